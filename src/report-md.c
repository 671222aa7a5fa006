/* SPDX-License-Identifier: MIT */
/*
 * The Markdown writer of the procurement report
 * (gpuproj_report_doc_markdown(), include/gpuproj/report.h):
 * GitHub-flavoured Markdown for merge-request comments, with the HTML
 * report's text and tables and no charts, images or external links. It
 * only formats the document report-doc.c built; the HTML writer
 * (report-html.c) is its sibling.
 * User strings are escaped with util-escape.h's md_code() (kernel names,
 * in code spans) and md_text() (everything else).
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/report.h>

#include "util-escape.h"
#include "report-doc-private.h"
#include "project-wholerun.h"
#include "util.h"

/* Kernels listed before the rest go into a collapsed <details> block. */
#define MD_KERNELS_SHOWN 15

static void
md_ranking(struct strbuf *sb, const struct gpuproj_report_rank *rows, size_t n,
	   const double *tensor_mix)
{
	size_t i, unseen = 0;
	char a[32], b[32], c[48], d[48], e[48], paths[256], note[1024];

	strbuf_printf(sb, "| # | Target GPU | Projected GPU time | Interval | Speedup vs. source | "
		      "Binding | Time × price | Energy (upper bound) | Carried unprojected |%s\n"
		      "|--:|---|--:|--:|--:|---|--:|--:|--:|%s\n",
		      tensor_mix ? " Tensor work runs on |" : "", tensor_mix ? "---|" : "");
	for (i = 0; i < n; i++) {
		const struct gpuproj_report_rank *r = &rows[i];

		strbuf_printf(sb, "| %zu | ", i + 1);
		if (r->is_source)
			strbuf_append(sb, "**");
		md_text(sb, r->target->name);
		strbuf_append(sb, r->is_source ? "** (source)" : "");
		if (!r->n_projected) {
			/* Never the carried source time dressed up as a projection. */
			strbuf_printf(sb, " | not projected | – | – | – | – | – | %zu (all) |%s\n",
				      r->n_unprojected, tensor_mix ? " – |" : "");
			continue;
		}
		strbuf_printf(sb, " | %s | ", format_ns(r->point_ns, a, sizeof(a)));
		strbuf_printf(sb, "%s – ", format_ns(r->lo_ns, a, sizeof(a)));
		strbuf_printf(sb, "%s%s%s | %s | %s | %s | %s | ",
			      format_ns(r->hi_ns, b, sizeof(b)), r->n_interval_unseen ? " \\*" : "",
			      r->n_assumed ? " †" : "",
			      doc_fmt_speedup(r->speedup, c, sizeof(c)),
			      gpuproj_bound_name(r->binding),
			      doc_fmt_cost(r->cost_usd_s, d, sizeof(d)),
			      doc_fmt_energy(r->energy_j, e, sizeof(e)));
		if (r->n_unprojected)
			strbuf_printf(sb, "%zu (%s)", r->n_unprojected,
				      format_ns(r->unprojected_source_ns, a, sizeof(a)));
		else
			strbuf_append(sb, "0");
		if (r->n_coarse)
			strbuf_printf(sb, "; %zu by sol (coarser)", r->n_coarse);
		strbuf_append(sb, " |");
		if (tensor_mix) {
			strbuf_append(sb, " ");
			md_text(sb, doc_tensor_paths(tensor_mix, r->target, paths, sizeof(paths)));
			strbuf_append(sb, " |");
		}
		strbuf_append(sb, "\n");
		unseen += r->n_interval_unseen > 0;
	}
	if (unseen)
		strbuf_append(sb, "\n\\* " REPORT_UNSEEN_NOTE "\n");
	if (doc_assumed_note(rows, n, note, sizeof(note))) {
		strbuf_append(sb, "\n† ");
		md_text(sb, note);
		strbuf_append(sb, "\n");
	}
	strbuf_append(sb, "\n");
}

static void
md_run_details(struct strbuf *sb, const struct doc_profile *dp)
{
	const struct gpuproj_profile *p = dp->profile;
	const struct gpuproj_device_info *dev = gpuproj_profile_device(p);
	const struct gpuproj_process_info *pi = gpuproj_profile_process(p);
	const struct gpuproj_run_info *run = gpuproj_profile_run_info(p);
	const char *v;
	char a[32];
	size_t i;

	strbuf_append(sb, "- **Application:** ");
	md_text(sb, doc_application(p));
	strbuf_append(sb, "\n");
	if (pi->argv && pi->argv[0]) {
		struct strbuf cmd;

		strbuf_init(&cmd);
		for (i = 0; pi->argv[i]; i++)
			strbuf_printf(&cmd, "%s%s", i ? " " : "", pi->argv[i]);
		strbuf_append(sb, "- **Command line:** ");
		md_code(sb, cmd.buf ? cmd.buf : "", false);
		strbuf_append(sb, "\n");
		strbuf_free(&cmd);
	}
	if (pi->host || pi->pid >= 0 || pi->rank >= 0) {
		strbuf_append(sb, "- **Process:** ");
		if (pi->host) {
			strbuf_append(sb, "host ");
			md_text(sb, pi->host);
		}
		if (pi->pid >= 0)
			strbuf_printf(sb, "%spid %" PRId64, pi->host ? ", " : "", pi->pid);
		if (pi->rank >= 0)
			strbuf_printf(sb, "%sMPI rank %" PRId64, pi->host || pi->pid >= 0 ? ", " : "",
				      pi->rank);
		strbuf_append(sb, "\n");
	}
	strbuf_append(sb, "- **Source GPU:** ");
	md_text(sb, dp->src->name);
	strbuf_append(sb, " (");
	md_text(sb, dev->name ? dev->name : "device name not recorded");
	strbuf_append(sb, "; ");
	md_text(sb, dp->src->arch);
	strbuf_printf(sb, ", %d SMs at %.0f MHz)\n", dp->src->sms, dp->src->clock_mhz);
	{
		double cuda, tensor[GPUPROJ_TPREC_COUNT];
		char mix[256];

		if (gpuproj_profile_flop_mix(p, &cuda, tensor)) {
			strbuf_append(sb, "- **FLOP mix:** ");
			md_text(sb, gpuproj_flop_mix_text(cuda, tensor, mix, sizeof(mix)));
			strbuf_append(sb, " (tensor work runs on each GPU's tensor ceilings: "
				      "`peak_tensor`/`max_tensor` of targets.yaml)\n");
		}
	}
	if (dp->src->provisional) {
		strbuf_printf(sb, "- **Source GPU basis:** %s — not in targets.yaml; a provisional "
			      "entry derived from the driver's device attributes and the per-SM "
			      "figures of ", dp->src->provisional);
		md_text(sb, dp->src->derived_from);
		strbuf_append(sb, " (`gpuproj targets derive` prints it)\n");
	}
	if ((v = gpuproj_profile_attr(p, "created"))) {
		strbuf_append(sb, "- **Measured:** ");
		md_text(sb, v);
		strbuf_append(sb, "\n");
	}
	strbuf_append(sb, "- **Measured with:** ");
	if ((v = gpuproj_profile_attr(p, "origin"))) {
		md_text(sb, v);
		strbuf_append(sb, ", ");
	}
	v = gpuproj_profile_attr(p, "tool_version");
	strbuf_append(sb, "gpuproj ");
	md_text(sb, v ? v : "version not recorded");
	strbuf_append(sb, "\n");
	if ((v = gpuproj_profile_attr(p, "citation"))) {
		strbuf_append(sb, "- **Data:** ");
		md_text(sb, v);
		strbuf_append(sb, "\n");
	}
	/* What `gpuproj merge --force` let through (merge.h): the counts may be off. */
	if ((v = gpuproj_profile_attr(p, "merge_forced"))) {
		strbuf_append(sb, "- **Warning: merged with --force:** ");
		md_text(sb, v);
		strbuf_append(sb, "\n");
	}
	strbuf_printf(sb, "- **Times:** GPU kernel time %s", format_ns(dp->kernel_ns, a, sizeof(a)));
	if (!isnan(run->wall_ns))
		strbuf_printf(sb, "; wall time %s", format_ns(run->wall_ns, a, sizeof(a)));
	strbuf_append(sb, "\n");
	strbuf_printf(sb, "- **Profiled and timed:** %zu kernel signatures, %" PRIu64 " launches, "
		      "%" PRIu64 " of them profiled (metrics collected); %zu signatures have "
		      "metrics, %zu were only timed (no metrics: not projected, measured time "
		      "carried)", dp->n_kernels, dp->launches, dp->profiled,
		      dp->n_kernels - dp->n_timed_only - dp->n_untimed, dp->n_timed_only);
	if (dp->n_untimed)
		strbuf_printf(sb, ", %zu have no timed launch", dp->n_untimed);
	strbuf_append(sb, "\n\n");
}

static void
md_kernel_row(struct strbuf *sb, const struct gpuproj_report_doc *doc,
	      const struct doc_profile *dp, size_t o)
{
	size_t k = dp->order[o], f;
	const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);
	const struct doc_kproj *ks = doc_kp(doc, dp, dp->src_index, k);
	double tot = gpuproj_kernel_total_ns(kr);
	char a[32], name[400];

	doc_short_name(kr, 100, name, sizeof(name));
	strbuf_printf(sb, "| %zu | ", o + 1);
	md_code(sb, name, true);
	strbuf_printf(sb, " | %s | %" PRIu64 " | %" PRIu64 " | ",
		      doc_fmt_pct(dp->kernel_ns > 0 && !isnan(tot) ? tot / dp->kernel_ns : NAN, a,
				  sizeof(a)), kr->launches, kr->profiled);
	strbuf_printf(sb, "%s | ", format_ns(gpuproj_kernel_mean_ns(kr), a, sizeof(a)));
	if (ks->status != GPUPROJ_OK) {
		strbuf_append(sb, "not projected: ");
		md_text(sb, dp->why[k] ? dp->why[k] : "unknown reason");
		strbuf_append(sb, kr->profiled ? "" : " (only timed)");
		for (f = 0; f < doc->n_featured; f++)
			strbuf_append(sb, " | –");
		strbuf_append(sb, " |\n");
		return;
	}
	strbuf_append(sb, gpuproj_bound_name(ks->binding));
	for (f = 0; f < doc->n_featured; f++) {
		const struct doc_kproj *kp = doc_kp(doc, dp, doc_target_index(doc, doc->featured[f]),
						    k);

		if (kp->status == GPUPROJ_OK)
			strbuf_printf(sb, " | %s (%s%s)", format_ns(kp->point_ns, a, sizeof(a)),
				      gpuproj_bound_name(kp->binding),
				      kp->coarse ? ", sol: coarser" : "");
		else
			strbuf_append(sb, " | –");
	}
	strbuf_append(sb, " |\n");
}

static void
md_kernels(struct strbuf *sb, const struct gpuproj_report_doc *doc, const struct doc_profile *dp)
{
	size_t o, f;

	strbuf_printf(sb, "Kernels by measured time on %s; projected time per launch with %s "
		      "(binding resource in brackets).\n\n", dp->src->name,
		      gpuproj_model_name(doc->model));
	for (o = 0; o < dp->n_kernels; o++) {
		if (o == 0 || o == MD_KERNELS_SHOWN) {
			if (o == MD_KERNELS_SHOWN)
				strbuf_printf(sb, "\n<details><summary>%zu more kernels</summary>\n\n",
					      dp->n_kernels - MD_KERNELS_SHOWN);
			strbuf_append(sb, "| # | Kernel | Share of time | Launches | Profiled | "
				      "Source per launch | Binding on source");
			for (f = 0; f < doc->n_featured; f++) {
				strbuf_append(sb, " | ");
				md_text(sb, doc->featured[f]->name);
			}
			strbuf_append(sb, " |\n|--:|---|--:|--:|--:|--:|---");
			for (f = 0; f < doc->n_featured; f++)
				strbuf_append(sb, "|--:");
			strbuf_append(sb, "|\n");
		}
		md_kernel_row(sb, doc, dp, o);
	}
	if (dp->n_kernels > MD_KERNELS_SHOWN)
		strbuf_append(sb, "\n</details>\n");
	strbuf_append(sb, "\n");
}

static void
md_disagreement(struct strbuf *sb, const struct gpuproj_report_doc *doc)
{
	size_t p, i, m;
	char a[32];

	strbuf_append(sb, "## Where models disagree\n\n");
	if (doc->n_models < 2) {
		strbuf_append(sb, "Only one projection model (");
		md_text(sb, gpuproj_model_name(doc->model));
		strbuf_printf(sb, ") is registered in this build of gpuproj, so there is nothing to "
			      "compare. With several models, this section lists the kernels whose "
			      "point estimates differ by more than a factor of %.0f between models: "
			      "models with published errors of 10–20 %% cannot both be right there.\n\n",
			      GPUPROJ_MODEL_DISAGREEMENT_FACTOR);
		return;
	}
	strbuf_printf(sb, "Every registered model projected every kernel onto every target. A "
		      "kernel is flagged where the slowest point estimate is more than %.0f× the "
		      "fastest on some target (models with published errors of 10–20 %% cannot "
		      "both be right there; measure such kernels before deciding).\n\n",
		      GPUPROJ_MODEL_DISAGREEMENT_FACTOR);
	if (!doc->n_disagreements)
		strbuf_append(sb, "**No kernel is flagged.**\n\n");
	for (p = 0; p < doc->n_profiles; p++) {
		const struct doc_profile *dp = &doc->profiles[p];

		if (!dp->n_dis)
			continue;
		md_text(sb, dp->label);
		strbuf_printf(sb, ": %zu kernels flagged\n\n| Kernel | Targets flagged | Largest on | "
			      "Factor", dp->n_dis);
		for (m = 0; m < doc->n_models; m++) {
			strbuf_append(sb, " | ");
			md_text(sb, gpuproj_model_name(doc->models[m]));
		}
		strbuf_append(sb, " |\n|---|--:|---|--:");
		for (m = 0; m < doc->n_models; m++)
			strbuf_append(sb, "|--:");
		strbuf_append(sb, "|\n");
		for (i = 0; i < dp->n_dis; i++) {
			const struct doc_disagreement *d = &dp->dis[i];
			char name[400];

			doc_short_name(gpuproj_profile_at(dp->profile, d->kernel), 100, name,
				       sizeof(name));
			strbuf_append(sb, "| ");
			md_code(sb, name, true);
			strbuf_printf(sb, " | %zu of %zu | ", d->n_flagged, doc->n_targets);
			md_text(sb, doc->targets[d->worst_target]->name);
			strbuf_printf(sb, " | %.2f×", d->worst_factor);
			for (m = 0; m < doc->n_models; m++)
				strbuf_printf(sb, " | %s", format_ns(d->point_ns[m], a, sizeof(a)));
			strbuf_append(sb, " |\n");
		}
		strbuf_append(sb, "\n");
	}
}

static void
md_sources(struct strbuf *sb, const struct gpuproj_report_doc *doc)
{
	size_t i, j, n = 0;
	const char *key, *text;

	for (i = 0; i < doc->n_targets; i++)
		n += doc->targets[i]->n_sources;
	strbuf_append(sb, "## Sources of the target numbers\n\nEvery number of every target comes "
		      "from targets.yaml");
	if (doc->opt.targets_origin) {
		strbuf_append(sb, " (");
		md_text(sb, doc->opt.targets_origin);
		strbuf_append(sb, ")");
	}
	strbuf_printf(sb, " with a source and its basis (measured, datasheet, derived or "
		      "estimate).\n\n<details><summary>%zu targets, %zu sources</summary>\n\n",
		      doc->n_targets, n);
	for (i = 0; i < doc->n_targets; i++) {
		const struct gpuproj_target *t = doc->combined[i].target;

		strbuf_append(sb, "**");
		md_text(sb, t->name);
		strbuf_append(sb, "**\n\n| Number | Basis | Source |\n|---|---|---|\n");
		for (j = 0; j < t->n_sources; j++) {
			strbuf_append(sb, "| ");
			md_code(sb, t->sources[j].path, true);
			strbuf_printf(sb, " | %s | ", gpuproj_basis_name(t->sources[j].basis));
			md_text(sb, t->sources[j].text);
			strbuf_append(sb, " |\n");
		}
		strbuf_append(sb, "\n");
	}
	strbuf_append(sb, "**References**\n\n");
	for (i = 0; (key = gpuproj_targets_reference_at(doc->set, i, &text)); i++) {
		strbuf_append(sb, "- \\[");
		md_text(sb, key);
		strbuf_append(sb, "\\] ");
		md_text(sb, text);
		strbuf_append(sb, "\n");
	}
	strbuf_append(sb, "\n</details>\n");
}

int
gpuproj_report_doc_markdown(const struct gpuproj_report_doc *doc, char **ret_text,
			    size_t *ret_len, struct gpuproj_error *reterr)
{
	struct strbuf sb;
	size_t i;
	char a[32], apps[256];
	double tensor_mix[GPUPROJ_TPREC_COUNT];

	if (!doc || !ret_text)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	strbuf_init(&sb);
	doc_applications(doc, apps, sizeof(apps));
	strbuf_append(&sb, "# Projected GPU time of ");
	md_text(&sb, apps);
	if (doc->n_profiles > 1)
		strbuf_printf(&sb, " (%zu profiles)", doc->n_profiles);
	strbuf_printf(&sb, "\n\ngpuproj %s · report of ", GPUPROJ_VERSION);
	md_text(&sb, doc->date);
	strbuf_append(&sb, " · model ");
	md_text(&sb, gpuproj_model_name(doc->model));
	strbuf_printf(&sb, " · %zu target GPUs. Charts are in the HTML report.\n\n",
		      doc->n_targets);

	strbuf_append(&sb, "## The run\n\n- **Model:** ");
	md_text(&sb, gpuproj_model_name(doc->model));
	strbuf_append(&sb, " — ");
	md_text(&sb, gpuproj_model_summary(doc->model));
	strbuf_printf(&sb, "\n- **Targets:** %zu GPUs", doc->n_targets);
	if (doc->opt.targets_origin) {
		strbuf_append(&sb, " from ");
		md_text(&sb, doc->opt.targets_origin);
	}
	strbuf_printf(&sb, "\n- **Profiles:** %zu\n", doc->n_profiles);
	if (doc->n_profiles == 1) {
		strbuf_append(&sb, "- **Profile:** ");
		md_text(&sb, doc->profiles[0].label);
		strbuf_append(&sb, "\n");
		md_run_details(&sb, &doc->profiles[0]);
	} else {
		strbuf_append(&sb, "\n| # | Profile | Application | Rank | Source GPU | Kernels | "
			      "Launches | Profiled launches | Timed only | Kernel time |\n"
			      "|--:|---|---|--:|---|--:|--:|--:|--:|--:|\n");
		for (i = 0; i < doc->n_profiles; i++) {
			const struct doc_profile *dp = &doc->profiles[i];
			const struct gpuproj_process_info *pi = gpuproj_profile_process(dp->profile);

			strbuf_printf(&sb, "| %zu | ", i + 1);
			md_text(&sb, dp->label);
			strbuf_append(&sb, " | ");
			md_text(&sb, doc_application(dp->profile));
			if (pi->rank >= 0)
				strbuf_printf(&sb, " | %" PRId64 " | ", pi->rank);
			else
				strbuf_append(&sb, " | – | ");
			md_text(&sb, dp->src->name);
			strbuf_printf(&sb, " | %zu | %" PRIu64 " | %" PRIu64 " | %zu | %s |\n",
				      dp->n_kernels, dp->launches, dp->profiled, dp->n_timed_only,
				      format_ns(dp->kernel_ns, a, sizeof(a)));
		}
		strbuf_append(&sb, "\n");
	}

	strbuf_append(&sb, "## Ranking of target GPUs\n\n");
	if (doc->n_profiles > 1)
		strbuf_printf(&sb, "Each of the %zu profiles was projected separately; this ranking "
			      "**sums over the profiles**, per target, the projected whole-run GPU "
			      "kernel times, the interval ends and the measured source times. ",
			      doc->n_profiles);
	strbuf_append(&sb, "Projected whole-run GPU time = Σ over kernels of point estimate per "
		      "launch × launches, plus the measured time of kernels that cannot be "
		      "projected (carried). Speedup = measured source time ÷ projected time. "
		      "Energy = projected time × TDP (an upper bound: board power at full load); "
		      "time × price in USD·s; \"unknown\" where targets.yaml has no TDP or price.\n\n");
	md_ranking(&sb, doc->combined, doc->n_targets,
		   doc_tensor_mix(doc, NULL, tensor_mix) ? tensor_mix : NULL);
	whole_run_md(&sb, doc->combined, doc->n_targets);

	for (i = 0; i < doc->n_profiles; i++) {
		const struct doc_profile *dp = &doc->profiles[i];

		if (doc->n_profiles > 1) {
			strbuf_printf(&sb, "## Profile %zu: ", i + 1);
			md_text(&sb, dp->label);
			strbuf_append(&sb, "\n\n");
			md_run_details(&sb, dp);
			strbuf_append(&sb, "<details><summary>Ranking for this profile</summary>\n\n");
			md_ranking(&sb, dp->ranking, doc->n_targets,
				   doc_tensor_mix(doc, dp, tensor_mix) ? tensor_mix : NULL);
			strbuf_append(&sb, "</details>\n\n### Per kernel\n\n");
		} else {
			strbuf_append(&sb, "## Kernels of ");
			md_text(&sb, dp->label);
			strbuf_append(&sb, "\n\n");
		}
		if (dp->n_kernels)
			md_kernels(&sb, doc, dp);
		else
			strbuf_append(&sb, "This profile has no kernels.\n\n");
	}
	md_disagreement(&sb, doc);

	strbuf_append(&sb, "## Assumptions and limits\n\n");
	for (i = 0; i < doc->n_models; i++) {
		strbuf_append(&sb, "- Model **");
		md_text(&sb, gpuproj_model_name(doc->models[i]));
		strbuf_append(&sb, "**: ");
		md_text(&sb, gpuproj_model_summary(doc->models[i]));
		strbuf_append(&sb, "\n");
	}
	strbuf_append(&sb, "- ");
	md_text(&sb, doc_traffic_assumption());
	strbuf_append(&sb, "\n");
	for (i = 0; i < doc_n_assumptions; i++) {
		strbuf_append(&sb, "- ");
		md_text(&sb, doc_assumptions[i]);
		strbuf_append(&sb, "\n");
	}
	strbuf_append(&sb, "\n");
	md_sources(&sb, doc);

	if (sb.oom) {
		strbuf_free(&sb);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	if (ret_len)
		*ret_len = sb.len;
	*ret_text = strbuf_steal(&sb);
	return GPUPROJ_OK;
}
