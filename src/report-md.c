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

/*
 * How much of the report the Markdown holds (md_limits[]): the full
 * report, then parts shortened, longest first, until it fits the limit.
 */
struct md_caps {
	bool sources;          /* the sources of every target number */
	size_t kernels;        /* kernel rows per profile (SIZE_MAX: all) */
	size_t dis_rows;       /* rows per profile where models disagree */
	size_t profiles;       /* profiles with their own section */
	size_t rank_rows;      /* ranked rows per table (SIZE_MAX: all) */
	bool full;             /* nothing left out */
};

static const struct md_caps md_limits[] = {
	{ true, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, true },
	{ false, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, false },
	{ false, 15, 10, SIZE_MAX, SIZE_MAX, false },
	{ false, 10, 5, 8, 30, false },
	{ false, 5, 3, 4, 20, false },
	{ false, 3, 0, 2, 12, false },
};

#define LEFT_OUT "in the HTML report, or all of it with --md-full"

static const char *
md_time_heading(const struct gpuproj_report_doc *doc)
{
	if (doc->weighted)
		return "Facility time vs. the source";
	return doc->by_wall ? "Projected whole-run time" : "Projected GPU kernel time";
}

static void
md_ranking(struct strbuf *sb, const struct gpuproj_report_doc *doc,
	   const struct gpuproj_report_rank *rows, size_t n, const double *tensor_mix,
	   const struct md_caps *caps)
{
	size_t i, unseen = 0, shown = 0, n_complete = 0;
	char a[32], b[32], c[48], paths[256], note[1024];

	for (i = 0; i < n; i++)
		n_complete += rows[i].complete;
	strbuf_printf(sb, "| # | Target GPU | %s | Interval | Speedup vs. source | Binding | "
		      "Memory |%s\n|--:|---|--:|--:|--:|---|---|%s\n", md_time_heading(doc),
		      tensor_mix ? " Tensor work runs on |" : "", tensor_mix ? "---|" : "");
	for (i = 0; i < n; i++) {
		const struct gpuproj_report_rank *r = &rows[i];

		if (!r->complete)
			continue;
		if (shown++ == caps->rank_rows) {
			strbuf_printf(sb, "| | %zu more targets %s | | | | | |%s\n",
				      n_complete - caps->rank_rows, LEFT_OUT,
				      tensor_mix ? " |" : "");
			break;
		}
		strbuf_printf(sb, "| %zu | ", i + 1);
		if (r->is_source)
			strbuf_append(sb, "**");
		md_text(sb, r->target->name);
		strbuf_append(sb, r->is_source ? "** (source)" : "");
		if (!doc_ranked(doc, r)) {
			/* Never the measured source time dressed up as a projection. */
			strbuf_printf(sb, " | not projected | – | – | – | %s |%s\n",
				      doc_fit_name(r->memory_fit), tensor_mix ? " – |" : "");
			continue;
		}
		if (doc->weighted)
			strbuf_printf(sb, " | %s | %s – ", doc_fmt_pct(r->rel, a, sizeof(a)),
				      doc_fmt_pct(r->rel_lo, b, sizeof(b)));
		else
			strbuf_printf(sb, " | %s | %s – ",
				      format_ns(doc_rank_ns(doc, r), a, sizeof(a)),
				      format_ns(doc->by_wall ? r->whole.lo_ns : r->lo_ns, b,
						sizeof(b)));
		if (doc->weighted)
			doc_fmt_pct(r->rel_hi, a, sizeof(a));
		else
			format_ns(doc->by_wall ? r->whole.hi_ns : r->hi_ns, a, sizeof(a));
		strbuf_printf(sb, "%s%s%s | %s | %s", a, r->n_interval_unseen ? " \\*" : "",
			      r->n_assumed ? " †" : "", doc_fmt_speedup(r->speedup, c, sizeof(c)),
			      gpuproj_bound_name(r->binding));
		if (r->n_coarse)
			strbuf_printf(sb, "; %zu by sol (coarser)", r->n_coarse);
		strbuf_printf(sb, " | %s |", doc_fit_name(r->memory_fit));
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

/* The targets that cannot run every kernel: apart, with what and why. */
static void
md_incomplete(struct strbuf *sb, const struct gpuproj_report_doc *doc)
{
	size_t i, p, k;
	char a[32], b[32];

	if (doc->n_complete == doc->n_targets)
		return;
	strbuf_printf(sb, "### Targets that cannot run every kernel (not ranked)\n\n%zu target%s "
		      "cannot run some kernel that other targets run, so %s totals would not be "
		      "the same work: not ranked.\n\n| Target GPU | Cannot run | Projected time "
		      "of what it runs | Measured on the source | What cannot run, and why |\n"
		      "|---|--:|--:|--:|---|\n", doc->n_targets - doc->n_complete,
		      doc->n_targets - doc->n_complete == 1 ? "" : "s",
		      doc->n_targets - doc->n_complete == 1 ? "its" : "their");
	for (i = doc->n_complete; i < doc->n_targets; i++) {
		const struct gpuproj_report_rank *r = &doc->combined[i];
		size_t t = doc_target_index(doc, r->target), n_counted = 0, listed = 0;

		for (p = 0; p < doc->n_profiles; p++)
			n_counted += doc->profiles[p].n_counted;
		strbuf_append(sb, "| ");
		md_text(sb, r->target->name);
		strbuf_printf(sb, " | %zu of %zu kernels | %s | %s | ", r->n_cannot, n_counted,
			      r->n_projected ? format_ns(r->point_ns, a, sizeof(a)) : "–",
			      format_ns(r->source_ns, b, sizeof(b)));
		for (p = 0; p < doc->n_profiles; p++) {
			const struct doc_profile *dp = &doc->profiles[p];
			size_t o;

			for (o = 0; o < dp->n_kernels; o++) {
				const struct doc_kproj *kp;
				char name[200];

				k = dp->order[o];
				kp = doc_kp(doc, dp, t, k);
				if (!dp->counted[k] || kp->status == GPUPROJ_OK)
					continue;
				if (listed++ == 3) {
					strbuf_printf(sb, "; and %zu more", r->n_cannot - 3);
					break;
				}
				doc_short_name(gpuproj_profile_at(dp->profile, k), 60, name,
					       sizeof(name));
				strbuf_printf(sb, "%s#%zu ", listed > 1 ? "; " : "", o + 1);
				md_code(sb, name, true);
				strbuf_append(sb, ": ");
				md_text(sb, kp->why ? kp->why : "not projected");
			}
			if (listed > 3)
				break;
		}
		strbuf_append(sb, " |\n");
	}
	strbuf_append(sb, "\n");
}

/* The order of the leading targets: interval overlap, distinct ranks. */
static void
md_order(struct strbuf *sb, const struct gpuproj_report_doc *doc)
{
	size_t i;
	char cov[32], groups[256], a[32];

	if (doc->n_leading < 2)
		return;
	doc_fmt_coverage(doc, cov, sizeof(cov));
	doc_distinct_groups(doc, groups, sizeof(groups));
	strbuf_printf(sb, "### Order of the leading targets\n\nGroups of consecutive ranks whose "
		      "intervals overlap (the order within a group is not distinct at the "
		      "intervals' nominal %s): %s.\n\n| Faster | Slower | Interval overlap | "
		      "Distinct at %s | P(order holds) | P(order holds), calibrated |\n"
		      "|---|---|--:|---|--:|--:|\n", cov,
		      groups[0] ? groups : "–", cov);
	for (i = 0; i < doc->n_pairs; i++) {
		const struct doc_pair *pr = &doc->pairs[i];

		strbuf_printf(sb, "| %zu ", pr->a + 1);
		md_text(sb, doc->combined[pr->a].target->name);
		strbuf_printf(sb, " | %zu ", pr->b + 1);
		md_text(sb, doc->combined[pr->b].target->name);
		strbuf_printf(sb, " | %s | %s | ", doc_fmt_pct(pr->o.overlap, a, sizeof(a)),
			      pr->o.distinct ? "yes" : "no");
		if (isnan(pr->o.p_holds))
			strbuf_append(sb, pr->o.distinct ? "unknown (interval not fitted on "
				      "these GPUs) | " : "unknown (overlapping) | ");
		else
			strbuf_printf(sb, "≥ %.0f %% | ", 100 * pr->o.p_holds);
		if (isnan(pr->o.p_calibrated))
			strbuf_append(sb, "unknown |\n");
		else
			strbuf_printf(sb, "%.2f |\n", pr->o.p_calibrated);
	}
	strbuf_append(sb, "\n");
}

/* Prices, cost per job, performance per dollar and per watt, energy. */
static void
md_costs(struct strbuf *sb, const struct gpuproj_report_doc *doc, const struct md_caps *caps)
{
	size_t i;
	char a[48], b[48], c[48], d[48];

	strbuf_printf(sb, "### Cost, power and energy\n\nCost per job = hourly price × %s; "
		      "performance per dollar = speedup ÷ purchase price (per 1,000 USD); per "
		      "watt = speedup ÷ TDP (per kW); energy = projected time × TDP (an upper "
		      "bound: board power at full load). \"unknown\" where no price or TDP is "
		      "known: quote prices with --price NAME=USD or --prices FILE.\n\n| # | "
		      "Target GPU | Purchase price | Hourly price | Cost per %s | Speedup per "
		      "1,000 USD | TDP | Speedup per kW | Energy (upper bound) | Price from |\n"
		      "|--:|---|--:|--:|--:|--:|--:|--:|--:|---|\n",
		      doc->weighted ? "the source's share of the hour (an hour of today's work)"
				    : "projected time",
		      doc->weighted ? "hour of today's work" : "job");
	for (i = 0; i < doc->n_complete; i++) {
		const struct gpuproj_report_rank *r = &doc->combined[i];

		if (i == caps->rank_rows) {
			strbuf_printf(sb, "| | %zu more targets %s | | | | | | | | |\n",
				      doc->n_complete - caps->rank_rows, LEFT_OUT);
			break;
		}
		strbuf_printf(sb, "| %zu | ", i + 1);
		md_text(sb, r->target->name);
		strbuf_printf(sb, " | %s | %s | %s | ", doc_fmt_usd(r->purchase_usd, a, sizeof(a)),
			      isnan(r->hourly_usd) ? "unknown" :
			      doc_fmt_usd(r->hourly_usd, b, sizeof(b)),
			      doc_fmt_usd(r->cost_per_job_usd, c, sizeof(c)));
		if (isnan(r->perf_per_kusd))
			strbuf_append(sb, "unknown | ");
		else
			strbuf_printf(sb, "%.3g | ", r->perf_per_kusd);
		if (isnan(r->target->tdp_w))
			strbuf_append(sb, "unknown | unknown | ");
		else
			strbuf_printf(sb, "%.0f W | %.3g | ", r->target->tdp_w, r->perf_per_kw);
		strbuf_printf(sb, "%s | ", doc_fmt_energy(r->energy_j, d, sizeof(d)));
		md_text(sb, r->price_origin ? r->price_origin : "–");
		strbuf_append(sb, " |\n");
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
	if (isnan(dp->peak_bytes))
		strbuf_append(sb, "- **Peak device memory:** unknown (not recorded: imports and "
			      "older profiles do not have it; memory fit unknown)\n");
	else
		strbuf_printf(sb, "- **Peak device memory:** %s (%.0f bytes allocated at once, as "
			      "libproj.so recorded it)\n",
			      doc_fmt_gib(dp->peak_bytes, a, sizeof(a)), dp->peak_bytes);
	strbuf_printf(sb, "- **Profiled and timed:** %zu kernel signatures, %" PRIu64 " launches, "
		      "%" PRIu64 " of them profiled (metrics collected); %zu signatures have "
		      "metrics, %zu were only timed (no metrics)", dp->n_kernels, dp->launches,
		      dp->profiled,
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
md_kernels(struct strbuf *sb, const struct gpuproj_report_doc *doc, const struct doc_profile *dp,
	   const struct md_caps *caps)
{
	size_t o, f, n = dp->n_kernels < caps->kernels ? dp->n_kernels : caps->kernels;

	strbuf_printf(sb, "Kernels by measured time on %s; projected time per launch with %s "
		      "(binding resource in brackets).\n\n", dp->src->name,
		      gpuproj_model_name(doc->model));
	for (o = 0; o < n; o++) {
		if (o == 0 || o == MD_KERNELS_SHOWN) {
			if (o == MD_KERNELS_SHOWN)
				strbuf_printf(sb, "\n<details><summary>%zu more kernels</summary>\n\n",
					      n - MD_KERNELS_SHOWN);
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
	if (n > MD_KERNELS_SHOWN)
		strbuf_append(sb, "\n</details>\n");
	if (n < dp->n_kernels)
		strbuf_printf(sb, "\n%zu more kernels %s.\n", dp->n_kernels - n, LEFT_OUT);
	strbuf_append(sb, "\n");
}

static void
md_disagreement(struct strbuf *sb, const struct gpuproj_report_doc *doc,
		const struct md_caps *caps)
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

			if (i == caps->dis_rows) {
				strbuf_printf(sb, "| %zu more kernels %s |", dp->n_dis - i,
					      LEFT_OUT);
				for (m = 0; m < doc->n_models + 3; m++)
					strbuf_append(sb, " |");
				strbuf_append(sb, "\n");
				break;
			}
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

static void
md_summary(struct strbuf *sb, const struct gpuproj_report_doc *doc)
{
	char *lines[5] = { NULL };
	int i;

	if (doc_summary(doc, lines)) {
		sb->oom = true;
		return;
	}
	strbuf_append(sb, "## Summary\n\n");
	for (i = 0; i < 5; i++) {
		strbuf_append(sb, "- ");
		md_text(sb, lines[i]);
		strbuf_append(sb, "\n");
		free(lines[i]);
	}
	strbuf_append(sb, "\n");
}

static void
md_profiles_table(struct strbuf *sb, const struct gpuproj_report_doc *doc)
{
	size_t i;
	char a[32];

	strbuf_append(sb, "\n| # | Profile | Application | Rank | Source GPU | Kernels | "
		      "Launches | Profiled launches | Timed only | Kernel time |");
	strbuf_append(sb, doc->weighted ? " Share of facility time |\n"
					"|--:|---|---|--:|---|--:|--:|--:|--:|--:|--:|\n"
				      : "\n|--:|---|---|--:|---|--:|--:|--:|--:|--:|\n");
	for (i = 0; i < doc->n_profiles; i++) {
		const struct doc_profile *dp = &doc->profiles[i];
		const struct gpuproj_process_info *pi = gpuproj_profile_process(dp->profile);

		strbuf_printf(sb, "| %zu | ", i + 1);
		md_text(sb, dp->label);
		strbuf_append(sb, " | ");
		md_text(sb, doc_application(dp->profile));
		if (pi->rank >= 0)
			strbuf_printf(sb, " | %" PRId64 " | ", pi->rank);
		else
			strbuf_append(sb, " | – | ");
		md_text(sb, dp->src->name);
		strbuf_printf(sb, " | %zu | %" PRIu64 " | %" PRIu64 " | %zu | %s |", dp->n_kernels,
			      dp->launches, dp->profiled, dp->n_timed_only,
			      format_ns(dp->kernel_ns, a, sizeof(a)));
		if (doc->weighted)
			strbuf_printf(sb, " %s |", doc_fmt_pct(dp->weight, a, sizeof(a)));
		strbuf_append(sb, "\n");
	}
	strbuf_append(sb, "\n");
}

static void
md_assumptions(struct strbuf *sb, const struct gpuproj_report_doc *doc)
{
	char **list = NULL;
	size_t i, n = 0;

	strbuf_append(sb, "## Assumptions and limits\n\n");
	for (i = 0; i < doc->n_models; i++) {
		strbuf_append(sb, "- Model **");
		md_text(sb, gpuproj_model_name(doc->models[i]));
		strbuf_append(sb, "**: ");
		md_text(sb, gpuproj_model_summary(doc->models[i]));
		strbuf_append(sb, "\n");
	}
	strbuf_append(sb, "- ");
	md_text(sb, doc_traffic_assumption());
	strbuf_append(sb, "\n");
	if (doc_assumption_list(doc, &list, &n)) {
		sb->oom = true;
		return;
	}
	for (i = 0; i < n; i++) {
		strbuf_append(sb, "- ");
		md_text(sb, list[i]);
		strbuf_append(sb, "\n");
	}
	doc_assumption_list_free(list, n);
	strbuf_append(sb, "\n");
}

/* The whole Markdown report within `caps`. */
static void
md_render(struct strbuf *sb, const struct gpuproj_report_doc *doc, const struct md_caps *caps)
{
	size_t i;
	char apps[256], by[1200];
	double tensor_mix[GPUPROJ_TPREC_COUNT];

	doc_applications(doc, apps, sizeof(apps));
	strbuf_append(sb, "# Projected GPU time of ");
	md_text(sb, apps);
	if (doc->n_profiles > 1)
		strbuf_printf(sb, " (%zu profiles)", doc->n_profiles);
	strbuf_printf(sb, "\n\ngpuproj %s · report of ", GPUPROJ_VERSION);
	md_text(sb, doc->date);
	strbuf_append(sb, " · model ");
	md_text(sb, gpuproj_model_name(doc->model));
	strbuf_printf(sb, " · %zu target GPUs. Charts are in the HTML report.", doc->n_targets);
	if (!caps->full)
		strbuf_printf(sb, " Shortened to fit a merge-request comment (%zu characters at "
			      "most): what is left out says so; --md-full writes everything.",
			      doc->opt.md_limit ? doc->opt.md_limit
						: (size_t)GPUPROJ_REPORT_MD_LIMIT);
	strbuf_append(sb, "\n\n");
	md_summary(sb, doc);

	strbuf_append(sb, "## The run\n\n- **Model:** ");
	md_text(sb, gpuproj_model_name(doc->model));
	strbuf_append(sb, " — ");
	md_text(sb, gpuproj_model_summary(doc->model));
	strbuf_printf(sb, "\n- **Targets:** %zu GPUs", doc->n_targets);
	if (doc->opt.targets_origin) {
		strbuf_append(sb, " from ");
		md_text(sb, doc->opt.targets_origin);
	}
	strbuf_printf(sb, "\n- **Profiles:** %zu\n", doc->n_profiles);
	if (doc->n_profiles == 1) {
		strbuf_append(sb, "- **Profile:** ");
		md_text(sb, doc->profiles[0].label);
		strbuf_append(sb, "\n");
		md_run_details(sb, &doc->profiles[0]);
	} else {
		md_profiles_table(sb, doc);
	}

	strbuf_append(sb, "## Ranking of target GPUs\n\n");
	if (doc->n_profiles > 1 && !doc->weighted)
		strbuf_printf(sb, "Each of the %zu profiles was projected separately; this ranking "
			      "**sums over the profiles**, per target, the projected times, the "
			      "interval ends and the measured source times. ", doc->n_profiles);
	strbuf_append(sb, "Ranked by ");
	md_text(sb, doc_ranked_by(doc, by, sizeof(by)));
	strbuf_append(sb, ". Speedup = measured source time ÷ projected time. Memory: whether "
		      "the run's peak device memory fits in the target's (\"does not fit\": it "
		      "does not).\n\n");
	md_ranking(sb, doc, doc->combined, doc->n_targets,
		   doc_tensor_mix(doc, NULL, tensor_mix) ? tensor_mix : NULL, caps);
	md_order(sb, doc);
	md_incomplete(sb, doc);
	md_costs(sb, doc, caps);
	whole_run_md(sb, doc->combined, doc->n_targets);

	for (i = 0; i < doc->n_profiles; i++) {
		const struct doc_profile *dp = &doc->profiles[i];

		if (i == caps->profiles) {
			strbuf_printf(sb, "%zu more profiles %s.\n\n", doc->n_profiles - i,
				      LEFT_OUT);
			break;
		}
		if (doc->n_profiles > 1) {
			strbuf_printf(sb, "## Profile %zu: ", i + 1);
			md_text(sb, dp->label);
			strbuf_append(sb, "\n\n");
			md_run_details(sb, dp);
			strbuf_append(sb, "<details><summary>Ranking for this profile"
				      "</summary>\n\n");
			md_ranking(sb, doc, dp->ranking, doc->n_targets,
				   doc_tensor_mix(doc, dp, tensor_mix) ? tensor_mix : NULL, caps);
			strbuf_append(sb, "</details>\n\n### Per kernel\n\n");
		} else {
			strbuf_append(sb, "## Kernels of ");
			md_text(sb, dp->label);
			strbuf_append(sb, "\n\n");
		}
		if (dp->n_kernels)
			md_kernels(sb, doc, dp, caps);
		else
			strbuf_append(sb, "This profile has no kernels.\n\n");
	}
	md_disagreement(sb, doc, caps);
	md_assumptions(sb, doc);
	if (caps->sources)
		md_sources(sb, doc);
	else
		strbuf_append(sb, "## Sources of the target numbers\n\nEvery number of every "
			      "target comes from targets.yaml with a source and its basis; the "
			      "list is " LEFT_OUT " (`gpuproj targets show NAME` prints one "
			      "GPU's).\n");
}

int
gpuproj_report_doc_markdown(const struct gpuproj_report_doc *doc, char **ret_text,
			    size_t *ret_len, struct gpuproj_error *reterr)
{
	size_t limit, i;
	struct strbuf sb;

	if (!doc || !ret_text)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	limit = doc->opt.md_limit ? doc->opt.md_limit : GPUPROJ_REPORT_MD_LIMIT;
	strbuf_init(&sb);
	for (i = 0; i < ARRAY_LENGTH(md_limits); i++) {
		strbuf_free(&sb);
		strbuf_init(&sb);
		md_render(&sb, doc, &md_limits[i]);
		if (sb.oom || doc->opt.md_full || sb.len <= limit)
			break;
	}
	if (!sb.oom && !doc->opt.md_full && sb.len > limit) {
		/* Still too long (many profiles or targets): cut at a line, and say so. */
		static const char cut[] = "\n\n**The rest is left out to fit a merge-request "
					  "comment: " LEFT_OUT ".**\n";
		size_t at = limit > sizeof(cut) ? limit - sizeof(cut) : 0;

		while (at > 0 && sb.buf[at - 1] != '\n')
			at--;
		sb.len = at;
		sb.buf[at] = '\0';
		strbuf_append(&sb, cut + (at ? 0 : 2));
	}
	if (sb.oom) {
		strbuf_free(&sb);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	if (ret_len)
		*ret_len = sb.len;
	*ret_text = strbuf_steal(&sb);
	return GPUPROJ_OK;
}
