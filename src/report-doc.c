/* SPDX-License-Identifier: MIT */
/*
 * The procurement report's document (include/gpuproj/report.h), built
 * once: each profile's source GPU and the targets resolved, every kernel
 * projected onto every target with every registered model, the rankings,
 * the kernels the models disagree on, and the data of the HTML report's
 * charts (hroof's ceilings, the quadrant split, the instruction roofline).
 * Also the helpers both writers share (names and numbers as the reports
 * print them, the fixed texts). The writers are report-html.c and
 * report-md.c; they only format what is here.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuproj/interval.h>
#include <gpuproj/report.h>

#include "profile-private.h"
#include "report-doc-private.h"
#include "project-wholerun.h"
#include "util.h"

#define DEFAULT_TOP_KERNELS 3
#define DEFAULT_FEATURED 4
#define DEFAULT_CHART_PROFILES 4
/*
 * Characters of a kernel name in chart legends (the captions give them in
 * full); a ray's label also carries its number, intensity and tag.
 */
#define CHART_NAME_CHARS 40
#define RAY_NAME_CHARS 32

/* The fixed assumptions; doc_assumption_list() adds those that depend on the report. */
static const char *const fixed_assumptions[] = {
	"Floating-point work is assumed the same on the target (FLOP ratio 1) unless a SASS "
	"comparison supplies a ratio; special functions can compile to different instruction "
	"counts (Van Lanker et al. 2024, §4.2).",
	"Warp efficiency is a property of the kernel and the same on every GPU.",
	"Target ceilings are the sustained FLOP/s and bandwidths of targets.yaml: measured where a "
	"measurement exists, otherwise datasheet values or estimates; the basis of every number "
	"is listed under \"Sources of the target numbers\".",
	"Totals are over the kernels every complete target projects, and their share of the "
	"measured kernel time is stated: a kernel no target projects (only timed, or a metric "
	"missing) is in no total, and a target that cannot run a kernel another target runs (a "
	"block that does not fit) is listed apart with what it cannot run, never ranked.",
	"Energy = projected time × TDP: an upper-bound estimate that assumes the board draws its "
	"full rated power for the whole projected time; idle and host power are not included.",
	"Cost per job = hourly price × projected time; performance per dollar = speedup ÷ "
	"purchase price (per 1,000 USD); performance per watt = speedup ÷ TDP (per kW). Prices "
	"are targets.yaml's launch prices (a few consumer cards) unless quoted (--price, "
	"--prices); the report names where each comes from and says \"unknown\" rather than "
	"guessing.",
	"Memory fit compares targets.yaml's memory_gib with the run's peak device memory as "
	"libproj.so recorded it (the application's allocations; the CUDA context and the "
	"libraries' own reserves come on top); imports do not record it (unknown).",
	"P(order holds), calibrated, is Φ(|ln(t₁ / t₂)| / σ) of the two ranked times with σ "
	"the spread of the projected ratio of two targets on the validation data (the model's "
	"pooled group, src/data/intervals.json \"order\"; the same as `gpuproj project` prints "
	"under its whole-run table). It is an estimate, not a bound: on GPUs held out of its "
	"fit it said 0.79 where 90 % of orders held, but 0.69 where 41 % held on seed 002's "
	"TITAN X/V, RTX 2080 Ti and 4070 (docs/validation.md \"Order of two targets\").",
};

int
doc_assumption_list(const struct gpuproj_report_doc *doc, char ***ret, size_t *ret_n)
{
	size_t n = ARRAY_LENGTH(fixed_assumptions) + 3, i, w = 0;
	char cov[32], **list = calloc(n, sizeof(*list));

	if (!list)
		return GPUPROJ_E_NOMEM;
	doc_fmt_coverage(doc, cov, sizeof(cov));
	list[w++] = xstrdup(doc->by_wall ?
		"The whole run is replayed onto each target with the same host (its time kept as "
		"measured), host copies at the target's host link, peer copies as measured "
		"(docs/models.md \"Whole run\")." :
		"Projected time is GPU kernel time only: host code, data transfers, "
		"synchronisation and other non-kernel time of the run are not projected (the "
		"run's wall time is shown where the profile has it).");
	for (i = 0; i < ARRAY_LENGTH(fixed_assumptions); i++)
		list[w++] = xstrdup(fixed_assumptions[i]);
	list[w++] = xasprintf("The interval of a projected time is calibrated on the model's "
		"validation residuals: for each model, binding resource and launch length, the "
		"narrowest range around the point that held the measured time in %s of the "
		"validation cases (the built-in table: %s; split-conformal, "
		"docs/validation.md). It is wide where the model is often wrong. The interval of a "
		"total is the sum of its kernels' interval ends (as wide as if every kernel erred "
		"the same way). The hroof charts show hroof's own band instead: the L1, L2 and "
		"DRAM projections of Van Lanker et al. 2024, eq. 9, whose midpoint is the point "
		"estimate.", cov, gpuproj_intervals_origin(gpuproj_intervals_builtin()));
	list[w++] = doc->opt.order_method ? xstrdup(doc->opt.order_method) :
		xasprintf("The order of two targets is judged by the overlap of their intervals "
			  "(intersection over union), until the intervals are calibrated for "
			  "it: disjoint intervals are distinct at %s, and where both were fitted "
			  "on both GPUs the order then holds with a probability of at least 2 × "
			  "%.2f − 1 = %.0f %% (the union bound, no independence assumed); "
			  "overlapping intervals give no probability.", cov, doc->coverage,
			  100 * (2 * doc->coverage - 1));
	for (i = 0; i < w; i++) {
		if (!list[i]) {
			doc_assumption_list_free(list, w);
			return GPUPROJ_E_NOMEM;
		}
	}
	*ret = list;
	*ret_n = w;
	return GPUPROJ_OK;
}

void
doc_assumption_list_free(char **list, size_t n)
{
	size_t i;

	for (i = 0; list && i < n; i++)
		free(list[i]);
	free(list);
}

const char *
doc_traffic_assumption(void)
{
	if (gpuproj_l2_capacity_default())
		return "Bytes through L1 and L2 are assumed the same on the target as measured on "
		       "the source (Van Lanker et al. 2024, §4.2: \"memory usage is considered as roughly "
		       "similar\"); DRAM bytes are adjusted for the target's L2 size (the L2 "
		       "residency of repeated launches, fitted on gpu-benches: a larger L2 keeps "
		       "more of the kernel's data, and no projection is below the DRAM time of "
		       "what a smaller one cannot keep).";
	return "Memory traffic per level (bytes through L1, L2 and DRAM) is assumed the same on "
	       "the target as measured on the source (Van Lanker et al. 2024, §4.2: \"memory usage is "
	       "considered as roughly similar\"); caches of very different sizes can change it.";
}

/* ------------------------------------------------------------------ */
/* Shared helpers                                                      */
/* ------------------------------------------------------------------ */

const char *
doc_kernel_name(const struct gpuproj_kernel *k)
{
	return k->demangled && *k->demangled ? k->demangled : k->name;
}

void
doc_short_name(const struct gpuproj_kernel *k, size_t max, char *buf, size_t size)
{
	const char *n = doc_kernel_name(k), *p;
	size_t cp = 0, w = 0;

	for (p = n; *p && w + 4 < size; p++) {
		if (((unsigned char)*p & 0xC0) != 0x80) {
			if (cp == max - 1 && strlen(p) > 1) {
				/* More than `max` code points: cut here and mark it. */
				size_t rest = 0;
				const char *q;

				for (q = p; *q; q++)
					rest += ((unsigned char)*q & 0xC0) != 0x80;
				if (rest > 1) {
					memcpy(buf + w, "…", 3);
					w += 3;
					break;
				}
			}
			cp++;
		}
		buf[w++] = *p;
	}
	buf[w] = '\0';
}

const char *
doc_application(const struct gpuproj_profile *p)
{
	const struct gpuproj_process_info *pi = gpuproj_profile_process(p);

	if (pi->application && *pi->application)
		return pi->application;
	if (pi->argv && pi->argv[0] && *pi->argv[0])
		return pi->argv[0];
	return "unknown application";
}

void
doc_applications(const struct gpuproj_report_doc *doc, char *buf, size_t size)
{
	size_t i, j, shown = 0, w = 0;

	buf[0] = '\0';
	for (i = 0; i < doc->n_profiles; i++) {
		const char *a = doc_application(doc->profiles[i].profile);
		bool seen = false;

		for (j = 0; j < i && !seen; j++)
			seen = strcmp(a, doc_application(doc->profiles[j].profile)) == 0;
		if (seen)
			continue;
		if (shown == 3) {
			snprintf(buf + w, size - w, ", …");
			return;
		}
		w += (size_t)snprintf(buf + w, size - w, "%s%s", shown ? ", " : "", a);
		if (w >= size)
			return;
		shown++;
	}
}

void
doc_chart_label(const struct gpuproj_kernel *k, size_t rank, size_t max, char *buf, size_t size)
{
	const char *full = doc_kernel_name(k), *p;
	char fn[400], name[200];
	struct gpuproj_kernel tmp;
	size_t w = 0;
	int depth = 0;

	/* The function name with its template arguments: no return type, no parameters. */
	if (strncmp(full, "void ", 5) == 0)
		full += 5;
	for (p = full; *p && w + 1 < sizeof(fn); p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (*p == '(' && depth == 0 && p != full)
			break;
		fn[w++] = *p;
	}
	fn[w] = '\0';
	memset(&tmp, 0, sizeof(tmp));
	tmp.name = fn;
	doc_short_name(&tmp, max, name, sizeof(name));
	if (rank && k->tag && *k->tag)
		snprintf(buf, size, "#%zu %s [%s]", rank, name, k->tag);
	else if (rank)
		snprintf(buf, size, "#%zu %s", rank, name);
	else if (k->tag && *k->tag)
		snprintf(buf, size, "%s [%s]", name, k->tag);
	else
		snprintf(buf, size, "%s", name);
}

bool
doc_tensor_mix(const struct gpuproj_report_doc *doc, const struct doc_profile *dp,
	       double mix[GPUPROJ_TPREC_COUNT])
{
	double cuda, one[GPUPROJ_TPREC_COUNT];
	bool any = false;
	size_t i;
	int p;

	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		mix[p] = 0;
	for (i = 0; i < doc->n_profiles; i++) {
		if (dp && dp != &doc->profiles[i])
			continue;
		if (!gpuproj_profile_flop_mix(doc->profiles[i].profile, &cuda, one))
			continue;
		any = true;
		for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
			mix[p] += one[p];
	}
	return any;
}

char *
doc_tensor_paths(const double mix[GPUPROJ_TPREC_COUNT], const struct gpuproj_target *t, char *buf,
		 size_t size)
{
	size_t len = 0;
	int p;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		struct gpuproj_tensor_path path;
		const char *name = gpuproj_tensor_prec_name(p);
		int n;

		if (!(mix[p] > 0) || gpuproj_tensor_path(t, p, &path) != GPUPROJ_OK ||
		    !path.fallback)
			continue;
		if (path.tensor == GPUPROJ_TPREC_COUNT)
			n = snprintf(buf + len, size - len, "%s%s on CUDA-core %s%s", len ? "; " : "",
				     name, gpuproj_prec_name(path.cuda),
				     path.unknown ? " (rate unknown)" : "");
		else
			n = snprintf(buf + len, size - len, "%s%s on tensor %s%s", len ? "; " : "",
				     name, gpuproj_tensor_prec_name(path.tensor),
				     path.unknown ? " (rate unknown)" : "");
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
	if (len == 0)
		snprintf(buf, size, "own tensor paths");
	return buf;
}

char *
doc_assumed_note(const struct gpuproj_report_rank *rows, size_t n, char *buf, size_t size)
{
	size_t i, w = 0, any = 0;
	int a, listed = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		any += rows[i].n_assumed;
	if (!any || size < 2)
		return NULL;
	w = (size_t)snprintf(buf, size, "projected with assumptions for inputs the profile "
			     "lacks:");
	for (a = 0; a < GPUPROJ_ASSUME_COUNT && w < size; a++) {
		size_t hi = 0;

		for (i = 0; i < n; i++)
			hi = rows[i].n_assumption[a] > hi ? rows[i].n_assumption[a] : hi;
		if (hi)
			w += (size_t)snprintf(buf + w, size - w, "%s %s (up to %zu kernel(s) per "
					      "GPU)", listed++ ? "," : "",
					      gpuproj_assumption_info((enum gpuproj_assumption)a)
						      ->word, hi);
	}
	if (w < size)
		snprintf(buf + w, size - w, "; their intervals are widened by what each cost on "
			 "validation (docs/models.md \"Missing inputs\")");
	return buf;
}

/* ------------------------------------------------------------------ */
/* Projections, rankings, disagreements                               */
/* ------------------------------------------------------------------ */

/* The binding resource of most projected time over the given profiles. */
static enum gpuproj_bound
dominant_binding(const struct gpuproj_report_doc *doc, size_t first, size_t last, size_t t)
{
	double by[GPUPROJ_BOUND_UNKNOWN + 1] = { 0 };
	enum gpuproj_bound best = GPUPROJ_BOUND_NONE;
	size_t p, k;
	int b;

	for (p = first; p < last; p++) {
		const struct doc_profile *dp = &doc->profiles[p];

		for (k = 0; k < dp->n_kernels; k++) {
			const struct doc_kproj *kp = doc_kp(doc, dp, t, k);
			const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);

			if (kp->status == GPUPROJ_OK && kp->binding <= GPUPROJ_BOUND_UNKNOWN)
				by[kp->binding] += kp->point_ns *
						   (double)(kr->launches ? kr->launches : 1);
		}
	}
	for (b = 1; b <= GPUPROJ_BOUND_UNKNOWN; b++) {
		if (by[b] > by[best])
			best = (enum gpuproj_bound)b;
	}
	return best;
}

static enum gpuproj_prec
dominant_precision(const struct gpuproj_profile *p)
{
	static const enum gpuproj_metric m[GPUPROJ_PREC_COUNT][3] = {
		{ GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL },
		{ GPUPROJ_M_INST_FP32_FMA, GPUPROJ_M_INST_FP32_ADD, GPUPROJ_M_INST_FP32_MUL },
		{ GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL },
	};
	double flop[GPUPROJ_PREC_COUNT] = { 0 };
	enum gpuproj_prec best = GPUPROJ_FP32;
	size_t i;
	int q, j;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		double launches = (double)(k->launches ? k->launches : 1);

		for (q = 0; q < GPUPROJ_PREC_COUNT; q++) {
			for (j = 0; j < 3; j++) {
				double v = gpuproj_kernel_metric(k, m[q][j]);

				if (isfinite(v) && v > 0)
					flop[q] += (j == 0 ? 2 : 1) * v * launches;
			}
		}
	}
	for (q = 0; q < GPUPROJ_PREC_COUNT; q++) {
		if (flop[q] > flop[best])
			best = (enum gpuproj_prec)q;
	}
	return best;
}

void
doc_progress(const struct gpuproj_report_doc *doc, const char *stage, size_t done, size_t total)
{
	if (doc->opt.progress)
		doc->opt.progress(doc->opt.progress_userdata, stage, done, total);
}

/* Σ point × launches over the kernels a run projects (gpuproj_project_run()'s sum, no carry). */
static double
projected_ns(const struct gpuproj_profile *p, const struct gpuproj_run_projection *run)
{
	double sum = 0;
	size_t k;

	for (k = 0; k < run->n; k++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(p, k);

		if (run->kernels[k].status == GPUPROJ_OK && kr->duration_ns.n)
			sum += run->kernels[k].point_ns * (double)(kr->launches ? kr->launches : 1);
	}
	return sum;
}

/* Where the models disagree on the kernels of one profile, over its targets. */
struct dis_work {
	struct gpuproj_projection *cmp; /* [n_models]: one kernel's projections */
	size_t *flagged;                /* [kernel]: targets on which the models disagree */
	size_t *worst_t;                /* [kernel]: the target of the widest disagreement */
	double *worst_f;                /* [kernel]: its factor */
	double *worst_pts;              /* [kernel × n_models]: the models' points there */
};

/* The profile's launch counts and kernel time. */
static void
profile_counts(struct doc_profile *dp)
{
	const struct gpuproj_profile *p = dp->profile;
	size_t k;

	for (k = 0; k < gpuproj_profile_count(p); k++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(p, k);

		dp->launches += kr->launches;
		dp->profiled += kr->profiled;
		if (kr->duration_ns.n == 0)
			dp->n_untimed++;
		else if (kr->profiled == 0)
			dp->n_timed_only++;
	}
	dp->kernel_ns = gpuproj_profile_kernel_time_ns(p);
	dp->prec = dominant_precision(p);
}

/* Target t's kernels and counts from the report's model (run 0). */
static int
keep_target(struct doc_profile *dp, size_t t, const struct gpuproj_target *tgt,
	    const struct gpuproj_run_projection *run)
{
	struct gpuproj_report_rank *row = &dp->totals[t];
	size_t k, n = dp->n_kernels;

	for (k = 0; k < n; k++) {
		const struct gpuproj_projection *pr = &run->kernels[k];
		struct doc_kproj *kp = &dp->kp[t * n + k];

		kp->status = pr->status;
		kp->binding = pr->binding;
		kp->assumed = pr->status == GPUPROJ_OK &&
			      (pr->assumed & (1u << GPUPROJ_ASSUME_BINDING));
		kp->coarse = pr->status == GPUPROJ_OK &&
			     gpuproj_model_is_coarse(pr->fallback ? pr->fallback : run->model);
		kp->lo_ns = pr->status == GPUPROJ_OK ? pr->lo_ns : NAN;
		kp->hi_ns = pr->status == GPUPROJ_OK ? pr->hi_ns : NAN;
		kp->point_ns = pr->status == GPUPROJ_OK ? pr->point_ns : NAN;
		if (pr->status != GPUPROJ_OK) {
			const char *why = pr->why[0] ? pr->why : gpuproj_strerror(pr->status);

			if (!dp->why[k] && !(dp->why[k] = xstrdup(why)))
				return GPUPROJ_E_NOMEM;
			kp->why = strcmp(why, dp->why[k]) == 0 ? dp->why[k] : xstrdup(why);
			if (!kp->why)
				return GPUPROJ_E_NOMEM;
		}
	}
	/* The sums over the counted kernels: doc_rank() (report-rank.c). */
	row->target = tgt;
	row->n_projected = run->n_projected;
	row->n_coarse = gpuproj_model_is_coarse(run->model) ? run->n_projected
							     : run->n_fallback_sol;
	row->n_interval_unseen = run->n_interval_unseen;
	row->n_assumed = run->n_assumed;
	memcpy(row->n_assumption, run->n_assumption, sizeof(row->n_assumption));
	row->is_source = tgt == dp->src;
	row->whole = run->whole;
	return GPUPROJ_OK;
}

/* Where the models disagree on a kernel of target t (model.h's flag and factor). */
static void
flag_disagreements(struct dis_work *w, const struct gpuproj_run_projection *runs, size_t nm,
		   size_t n, size_t t)
{
	size_t k, m;

	for (k = 0; nm > 1 && k < n; k++) {
		double lo = INFINITY, hi = 0;

		for (m = 0; m < nm; m++)
			w->cmp[m] = runs[m].kernels[k];
		if (!gpuproj_models_disagree(w->cmp, nm, GPUPROJ_MODEL_DISAGREEMENT_FACTOR))
			continue;
		for (m = 0; m < nm; m++) {
			if (w->cmp[m].status == GPUPROJ_OK && w->cmp[m].point_ns > 0) {
				lo = fmin(lo, w->cmp[m].point_ns);
				hi = fmax(hi, w->cmp[m].point_ns);
			}
		}
		w->flagged[k]++;
		if (hi / lo > w->worst_f[k]) {
			w->worst_f[k] = hi / lo;
			w->worst_t[k] = t;
			for (m = 0; m < nm; m++) {
				const struct gpuproj_projection *pr = &runs[m].kernels[k];

				w->worst_pts[k * nm + m] = pr->status == GPUPROJ_OK ? pr->point_ns
										    : NAN;
			}
		}
	}
}

/* The flagged kernels, longest first, with the models' points on their worst target. */
static int
list_disagreements(struct doc_profile *dp, const struct dis_work *w, size_t nm)
{
	size_t k, o, i = 0, n = dp->n_kernels;

	for (k = 0; k < n; k++)
		dp->n_dis += w->flagged[k] > 0;
	if (!dp->n_dis)
		return GPUPROJ_OK;
	dp->dis = calloc(dp->n_dis, sizeof(*dp->dis));
	if (!dp->dis)
		return GPUPROJ_E_NOMEM;
	for (o = 0; o < n; o++) {
		struct doc_disagreement *d;

		k = dp->order[o];
		if (!w->flagged[k])
			continue;
		d = &dp->dis[i++];
		d->kernel = k;
		d->n_flagged = w->flagged[k];
		d->worst_target = w->worst_t[k];
		d->worst_factor = w->worst_f[k];
		d->point_ns = malloc(nm * sizeof(*d->point_ns));
		if (!d->point_ns)
			return GPUPROJ_E_NOMEM;
		memcpy(d->point_ns, &w->worst_pts[k * nm], nm * sizeof(*d->point_ns));
	}
	return GPUPROJ_OK;
}

/* Project one profile onto every target with every model. */
static int
project_profile(struct gpuproj_report_doc *doc, struct doc_profile *dp)
{
	const struct gpuproj_profile *p = dp->profile;
	size_t n = gpuproj_profile_count(p), nt = doc->n_targets, nm = doc->n_models, t, m;
	struct gpuproj_run_projection *runs = NULL;
	struct dis_work w = { 0 };
	int r = GPUPROJ_E_NOMEM;

	dp->n_kernels = n;
	dp->kp = calloc(nt * n + 1, sizeof(*dp->kp));
	dp->why = calloc(n + 1, sizeof(*dp->why));
	dp->order = profile_order_by_time(p); /* longest first, ties by signature */
	dp->totals = calloc(nt, sizeof(*dp->totals));
	dp->ranking = calloc(nt, sizeof(*dp->ranking));
	dp->model_point_ns = calloc(nm * nt, sizeof(*dp->model_point_ns));
	dp->model_unprojected = calloc(nm * nt, sizeof(*dp->model_unprojected));
	runs = calloc(nm, sizeof(*runs));
	w.cmp = calloc(nm, sizeof(*w.cmp));
	w.flagged = calloc(n + 1, sizeof(*w.flagged));
	w.worst_t = calloc(n + 1, sizeof(*w.worst_t));
	w.worst_f = calloc(n + 1, sizeof(*w.worst_f));
	w.worst_pts = calloc(n * nm + 1, sizeof(*w.worst_pts));
	if (!dp->kp || !dp->why || !dp->order || !dp->totals || !dp->ranking ||
	    !dp->model_point_ns || !dp->model_unprojected || !runs || !w.cmp || !w.flagged ||
	    !w.worst_t || !w.worst_f || !w.worst_pts)
		goto out;
	profile_counts(dp);
	for (t = 0; t < nt; t++) {
		for (m = 0; m < nm; m++) {
			if (gpuproj_project_run(p, doc->models[m], dp->src, doc->targets[t], NULL,
						&runs[m]))
				goto out;
			/* The kernels this model projects, nothing carried. */
			dp->model_point_ns[m * nt + t] = projected_ns(p, &runs[m]);
			dp->model_unprojected[m * nt + t] = runs[m].n_unprojected;
		}
		if (keep_target(dp, t, doc->targets[t], &runs[0]))
			goto out;
		flag_disagreements(&w, runs, nm, n, t);
		for (m = 0; m < nm; m++)
			gpuproj_run_projection_clear(&runs[m]);
	}
	for (t = 0; t < nt; t++)
		dp->totals[t].binding = dominant_binding(doc, (size_t)(dp - doc->profiles),
							  (size_t)(dp - doc->profiles) + 1, t);
	if (doc_count_kernels(doc, dp))
		goto out;
	r = list_disagreements(dp, &w, nm);
out:
	for (m = 0; runs && m < nm; m++)
		gpuproj_run_projection_clear(&runs[m]);
	free(runs);
	free(w.cmp);
	free(w.flagged);
	free(w.worst_t);
	free(w.worst_f);
	free(w.worst_pts);
	return r;
}

/* ------------------------------------------------------------------ */
/* The charts' data                                                    */
/* ------------------------------------------------------------------ */

const char *
doc_prec_label(enum gpuproj_prec p)
{
	switch (p) {
	case GPUPROJ_FP16: return "FP16";
	case GPUPROJ_FP32: return "FP32";
	case GPUPROJ_FP64: return "FP64";
	case GPUPROJ_PREC_COUNT: break;
	}
	return "FP32";
}

static double
gflops_of(const struct gpuproj_hroof *x, int l)
{
	return x->valid[l] ? x->bw_ceil[l] / 1e9 : NAN;
}

/*
 * The tensor-pipe roofs of a panel: for each tensor precision the
 * kernel uses, the rate of the path it runs on on `t` (gpuproj_tensor_path():
 * its own tensor path, or the fallback a library takes), one line per
 * distinct path, labelled "tensor bf16" or "fp8 on tensor bf16" or "tf32 on
 * CUDA-core fp32".
 */
static void
tensor_roofs(const struct gpuproj_kernel *kr, const struct gpuproj_target *t,
	     struct chart_roofline_panel *q, char labels[][64])
{
	double cuda, tensor[GPUPROJ_TPREC_COUNT];
	int p;

	q->n_tensor = 0;
	if (!gpuproj_kernel_flop_mix(kr, &cuda, tensor))
		return;
	for (p = 0; p < GPUPROJ_TPREC_COUNT && q->n_tensor < CHART_TENSOR_ROOFS; p++) {
		struct gpuproj_tensor_path path;
		size_t i;
		char *lb = labels[q->n_tensor];

		if (!(tensor[p] > 0) || gpuproj_tensor_path(t, p, &path) != GPUPROJ_OK)
			continue;
		for (i = 0; i < q->n_tensor; i++) {
			if (q->tensor_gflops[i] == path.gflops)
				break;
		}
		if (i < q->n_tensor)
			continue;
		if (!path.fallback)
			snprintf(lb, 64, "tensor %s", gpuproj_tensor_prec_name(p));
		else if (path.tensor == GPUPROJ_TPREC_COUNT)
			snprintf(lb, 64, "%s on CUDA-core %s", gpuproj_tensor_prec_name(p),
				 gpuproj_prec_name(path.cuda));
		else
			snprintf(lb, 64, "%s on tensor %s", gpuproj_tensor_prec_name(p),
				 gpuproj_tensor_prec_name(path.tensor));
		q->tensor_gflops[q->n_tensor] = path.gflops;
		q->tensor_label[q->n_tensor] = lb;
		q->n_tensor++;
	}
}

/* Seed 000 Fig. 2: source and target hierarchical rooflines of one kernel. */
static void
roofline_data(const struct doc_profile *dp, size_t rank, const struct gpuproj_target *tgt,
	      struct doc_roofline *d)
{
	const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, dp->order[rank]);
	const struct gpuproj_model *hroof = gpuproj_model_find("hroof");
	struct gpuproj_hroof hs, ht;
	struct gpuproj_projection pr;
	struct chart_roofline *c = &d->chart;
	int l;

	d->rank = rank;
	d->mean_ns = gpuproj_kernel_mean_ns(kr);
	doc_short_name(kr, 100, d->name, sizeof(d->name));
	if (isnan(d->mean_ns)) {
		d->note = "the kernel has no timed launch";
		return;
	}
	if (gpuproj_hroof_ceilings(kr, dp->src, 1.0, &hs, d->note_buf, sizeof(d->note_buf))) {
		d->note = d->note_buf;
		return;
	}
	if (!(hs.flop > 0)) {
		d->note = "the kernel does no floating-point work (a copy or fill), so a FLOP "
			  "roofline does not apply; hroof projects its time by the ratio of the "
			  "bandwidth ceilings (Van Lanker et al. 2024, FLOP = 0 case)";
		return;
	}
	c->n_panels = 1;
	for (l = 0; l < CHART_LEVELS; l++) {
		c->panel[0].peak_bw_gbs[l] = dp->src->bw_gbs[l];
		c->panel[0].bw_ceil_gbs[l] = gflops_of(&hs, l);
		c->panel[0].oi[l] = hs.valid[l] ? hs.oi[l] : NAN;
		c->panel[0].perf_gflops[l] = hs.valid[l] ? hs.flop / d->mean_ns : NAN;
	}
	c->panel[0].peak_gflops = hs.perf_mix / 1e9;
	c->panel[0].perf_ceil_gflops = hs.perf_ceil / 1e9;
	tensor_roofs(kr, dp->src, &c->panel[0], d->tensor_label[0]);
	snprintf(d->title[0], sizeof(d->title[0]), "Source: %s (measured)", dp->src->name);
	c->panel[0].title = d->title[0];
	pr.status = GPUPROJ_E_INVAL;
	if (tgt && hroof &&
	    gpuproj_model_project(hroof, kr, dp->src, tgt, NULL, &pr) == GPUPROJ_OK &&
	    gpuproj_hroof_ceilings(kr, tgt, pr.flop_ratio, &ht, NULL, 0) == GPUPROJ_OK) {
		struct chart_roofline_panel *q = &c->panel[1];

		snprintf(d->title[1], sizeof(d->title[1]), "Target: %s (projected)", tgt->name);
		q->title = d->title[1];
		for (l = 0; l < CHART_LEVELS; l++) {
			q->peak_bw_gbs[l] = tgt->bw_gbs[l];
			q->bw_ceil_gbs[l] = gflops_of(&ht, l);
			q->oi[l] = ht.valid[l] ? ht.oi[l] : NAN;
			q->perf_gflops[l] = isfinite(pr.level_ns[l]) && pr.level_ns[l] > 0 ?
					    ht.flop / pr.level_ns[l] : NAN;
		}
		q->peak_gflops = ht.perf_mix / 1e9;
		q->perf_ceil_gflops = ht.perf_ceil / 1e9;
		tensor_roofs(kr, tgt, q, d->tensor_label[1]);
		/* Seed 000 Fig. 2 draws hroof's own band: the levels' projections. */
		q->has_interval = pr.level_lo_ns > 0 && pr.level_hi_ns > 0;
		q->interval_lo_gflops = ht.flop / pr.level_hi_ns;
		q->interval_hi_gflops = ht.flop / pr.level_lo_ns;
		c->n_panels = 2;
		d->tgt = tgt;
		d->lo_ns = pr.level_lo_ns;
		d->hi_ns = pr.level_hi_ns;
		d->point_ns = pr.point_ns;
	}
}

/* Position of a target in the combined ranking. */
static size_t
combined_pos(const struct gpuproj_report_doc *doc, const struct gpuproj_target *t)
{
	size_t i;

	for (i = 0; i < doc->n_targets && doc->combined[i].target != t; i++)
		;
	return i;
}

/* Seed 003 §2.1: devices as points, kernels as rays of slope OI. */
static int
quadrant_data(const struct gpuproj_report_doc *doc, const struct doc_profile *dp,
	      struct doc_quadrant *q)
{
	size_t t, o, f, n_rays = 0;

	q->dev = calloc(doc->n_targets + 1, sizeof(*q->dev));
	if (!q->dev)
		return GPUPROJ_E_NOMEM;
	for (t = 0; t < doc->n_targets; t++) {
		const struct gpuproj_target *tg = doc->targets[t];
		struct chart_device *dev = &q->dev[t];

		dev->name = tg->name;
		dev->bw_gbs = tg->bw_gbs[GPUPROJ_LEVEL_DRAM];
		dev->gflops = gpuproj_target_gflops(tg, dp->prec, GPUPROJ_OP_FMA, NULL);
		dev->style = tg == dp->src ? CHART_DEVICE_SOURCE : CHART_DEVICE_OTHER;
		/* Names placed first: the source, the featured targets, the rest by rank. */
		dev->label_rank = tg == dp->src ? 0 : (int)(doc->n_featured + 1 +
							    combined_pos(doc, tg));
		for (f = 0; f < doc->n_featured; f++) {
			if (doc->featured[f] == tg && tg != dp->src) {
				dev->style = CHART_DEVICE_FEATURED;
				dev->label_rank = (int)f + 1;
			}
		}
	}
	for (o = 0; o < dp->n_kernels && n_rays < DOC_CHART_KERNELS; o++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, dp->order[o]);
		struct gpuproj_hroof hs;
		char name[140];

		if (gpuproj_hroof_ceilings(kr, dp->src, 1.0, &hs, NULL, 0) || !(hs.flop > 0) ||
		    !hs.valid[GPUPROJ_HL_DRAM])
			continue;
		doc_chart_label(kr, 0, RAY_NAME_CHARS, name, sizeof(name));
		snprintf(q->labels[n_rays], sizeof(q->labels[n_rays]), "#%zu (OI %.2g) %s", o + 1,
			 hs.oi[GPUPROJ_HL_DRAM], name);
		q->ray_rank[n_rays] = o;
		q->rays[n_rays].label = q->labels[n_rays];
		q->rays[n_rays].oi = hs.oi[GPUPROJ_HL_DRAM];
		n_rays++;
	}
	snprintf(q->y_label, sizeof(q->y_label), "%s FMA throughput (GFLOP/s)",
		 doc_prec_label(dp->prec));
	q->chart.y_label = q->y_label;
	q->chart.devices = q->dev;
	q->chart.n_devices = doc->n_targets;
	q->chart.rays = q->rays;
	q->chart.n_rays = n_rays;
	return GPUPROJ_OK;
}

static double
peak_gips(const struct gpuproj_target *t)
{
	return (double)t->sms * t->schedulers_per_sm * t->ipc_per_scheduler * t->clock_mhz / 1e3;
}

/* Seed 004: instruction roofline of the source (and the chart target). */
static void
irm_data(const struct doc_profile *dp, const struct gpuproj_target *tgt, struct doc_irm *d)
{
	static const enum gpuproj_metric sec[CHART_LEVELS] = {
		GPUPROJ_M_SECTORS_L1, GPUPROJ_M_SECTORS_L2, GPUPROJ_M_SECTORS_DRAM,
	};
	static const enum gpuproj_metric byt[CHART_LEVELS] = {
		GPUPROJ_M_BYTES_L1, GPUPROJ_M_BYTES_L2, GPUPROJ_M_BYTES_DRAM,
	};
	struct chart_irm *c = &d->chart;
	size_t o, n = 0;
	int l;

	c->gpu[0].name = dp->src->name;
	c->gpu[0].peak_gips = peak_gips(dp->src);
	for (l = 0; l < CHART_LEVELS; l++)
		c->gpu[0].gtxn[l] = dp->src->bw_gbs[l] / 32.0;
	c->n_gpus = 1;
	if (tgt && tgt != dp->src) {
		c->gpu[1].name = tgt->name;
		c->gpu[1].peak_gips = peak_gips(tgt);
		for (l = 0; l < CHART_LEVELS; l++)
			c->gpu[1].gtxn[l] = tgt->bw_gbs[l] / 32.0;
		c->n_gpus = 2;
		d->tgt = tgt;
	}
	for (o = 0; o < dp->n_kernels && n < DOC_CHART_KERNELS; o++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, dp->order[o]);
		double inst = gpuproj_kernel_metric(kr, GPUPROJ_M_INST_WARP);
		double mean = gpuproj_kernel_mean_ns(kr);
		struct chart_irm_kernel *ks = &d->ks[n];
		bool any = false;

		if (!(isfinite(inst) && inst > 0) || !(mean > 0)) {
			d->n_no_inst += kr->launches > 0;
			continue;
		}
		ks->gips = inst / mean; /* warp instructions per ns = G/s */
		for (l = 0; l < CHART_LEVELS; l++) {
			double s = gpuproj_kernel_metric(kr, sec[l]);

			if (!(isfinite(s) && s > 0)) {
				double b = gpuproj_kernel_metric(kr, byt[l]);

				s = isfinite(b) && b > 0 ? b / 32.0 : NAN;
				d->derived |= !isnan(s);
			}
			ks->intensity[l] = isfinite(s) && s > 0 ? inst / s : NAN;
			any |= !isnan(ks->intensity[l]);
		}
		if (!any)
			continue;
		doc_chart_label(kr, o + 1, CHART_NAME_CHARS, d->labels[n], sizeof(d->labels[n]));
		ks->label = d->labels[n];
		n++;
	}
	c->kernels = d->ks;
	c->n_kernels = n;
}

/* The target beside the source in roofline charts: the best featured one. */
static const struct gpuproj_target *
chart_target(const struct gpuproj_report_doc *doc, const struct doc_profile *dp)
{
	size_t f;

	for (f = 0; f < doc->n_featured; f++) {
		if (doc->featured[f] != dp->src)
			return doc->featured[f];
	}
	return NULL;
}

/*
 * A kernel without a roofline: what was measured, its time per launch on
 * the source, and its projections onto the featured targets with their
 * intervals.
 */
static int
times_data(const struct gpuproj_report_doc *doc, const struct doc_profile *dp,
	   struct doc_roofline *d)
{
	size_t k = dp->order[d->rank], f, n = 0;
	const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);

	d->trows = calloc(doc->n_featured + 1, sizeof(*d->trows));
	if (!d->trows)
		return GPUPROJ_E_NOMEM;
	snprintf(d->src_label, sizeof(d->src_label), "%s (measured)", dp->src->name);
	d->trows[n].label = d->src_label;
	d->trows[n].point = gpuproj_kernel_mean_ns(kr);
	d->trows[n].lo = d->trows[n].hi = NAN;
	d->trows[n++].style = CHART_ROW_SOURCE;
	for (f = 0; f < doc->n_featured; f++) {
		const struct doc_kproj *kp = doc_kp(doc, dp, doc_target_index(doc, doc->featured[f]),
						    k);

		if (kp->status != GPUPROJ_OK || doc->featured[f] == dp->src)
			continue;
		d->trows[n].label = doc->featured[f]->name;
		d->trows[n].point = kp->point_ns;
		d->trows[n].lo = kp->lo_ns;
		d->trows[n].hi = kp->hi_ns;
		d->trows[n++].style = CHART_ROW_FEATURED;
	}
	d->times.x_label = "Time per launch (µs)";
	d->times.x_scale = 1e3;
	d->times.rows = d->trows;
	d->times.n_rows = isnan(d->trows[0].point) ? 0 : n;
	d->times.point_label = "projected (point)";
	d->times.interval_label = "projected interval";
	d->times.source_label = "measured on the source";
	return GPUPROJ_OK;
}

/* The charts of one profile (after the featured targets are known). */
static int
charts_data(const struct gpuproj_report_doc *doc, struct doc_profile *dp)
{
	struct doc_charts *c = calloc(1, sizeof(*c));
	size_t i;

	if (!c)
		return GPUPROJ_E_NOMEM;
	dp->charts = c;
	c->tgt = chart_target(doc, dp);
	c->n_roof = dp->n_kernels < doc->opt.top_kernels ? dp->n_kernels : doc->opt.top_kernels;
	c->roof = calloc(c->n_roof + 1, sizeof(*c->roof));
	if (!c->roof)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < c->n_roof; i++) {
		roofline_data(dp, i, c->tgt, &c->roof[i]);
		if (c->roof[i].note && times_data(doc, dp, &c->roof[i]))
			return GPUPROJ_E_NOMEM;
	}
	if (quadrant_data(doc, dp, &c->quad))
		return GPUPROJ_E_NOMEM;
	irm_data(dp, c->tgt, &c->irm);
	return GPUPROJ_OK;
}

static void
charts_free(struct doc_charts *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; c->roof && i < c->n_roof; i++)
		free(c->roof[i].trows);
	free(c->roof);
	free(c->quad.dev);
	free(c);
}

/* ------------------------------------------------------------------ */
/* The document                                                        */
/* ------------------------------------------------------------------ */

static int
resolve_date(struct gpuproj_report_doc *doc, struct gpuproj_error *reterr)
{
	time_t when;
	struct tm tm;
	bool set;
	int r;

	if (doc->opt.date) {
		snprintf(doc->date, sizeof(doc->date), "%s", doc->opt.date);
		return GPUPROJ_OK;
	}
	if ((r = source_date_epoch(&set, &when, reterr)))
		return r;
	if (!set)
		when = time(NULL);
	if (!gmtime_r(&when, &tm) ||
	    !strftime(doc->date, sizeof(doc->date), "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(doc->date, sizeof(doc->date), "%lld s since 1970", (long long)when);
	return GPUPROJ_OK;
}

static bool
add_target(struct gpuproj_report_doc *doc, const struct gpuproj_target *t)
{
	if (doc_target_index(doc, t) < doc->n_targets)
		return false;
	doc->targets[doc->n_targets++] = t;
	return true;
}

/* The arguments of gpuproj_report_doc_new(): profiles, weights (all or none), targets. */
static int
check_inputs(const struct gpuproj_report_input *inputs, size_t n_inputs,
	     const struct gpuproj_targets *targets, struct gpuproj_report_doc **ret,
	     struct gpuproj_error *reterr)
{
	size_t i;

	if (!inputs || !n_inputs || !targets || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "a report needs at least one profile and a set of targets");
	for (i = 0; i < n_inputs; i++) {
		if (!inputs[i].profile)
			return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
					 "report input %zu has no profile", i + 1);
		if (!(inputs[i].weight >= 0) || !isfinite(inputs[i].weight))
			return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "the weight of %s "
					 "is %g: a share of facility time is a number > 0",
					 inputs[i].label ? inputs[i].label : "a profile",
					 inputs[i].weight);
		if ((inputs[i].weight > 0) != (inputs[0].weight > 0))
			return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "%s has no weight: "
					 "give every profile a share of facility time (--weight "
					 "PROFILE=W), or none",
					 inputs[i].weight > 0 ? (inputs[0].label ? inputs[0].label
									   : "profile 1")
							      : (inputs[i].label ? inputs[i].label
										 : "a profile"));
	}
	if (!gpuproj_targets_count(targets))
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "the target set is empty");
	return GPUPROJ_OK;
}

int
gpuproj_report_doc_new(const struct gpuproj_report_input *inputs, size_t n_inputs,
		       const struct gpuproj_targets *targets,
		       const struct gpuproj_report_doc_options *opt,
		       struct gpuproj_report_doc **ret, struct gpuproj_error *reterr)
{
	struct gpuproj_report_doc *doc = NULL;
	size_t n_set = targets ? gpuproj_targets_count(targets) : 0, i, j, t;
	int r = check_inputs(inputs, n_inputs, targets, ret, reterr);

	if (r)
		return r;
	doc = calloc(1, sizeof(*doc));
	if (!doc)
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	if (opt)
		doc->opt = *opt;
	if (!doc->opt.top_kernels)
		doc->opt.top_kernels = DEFAULT_TOP_KERNELS;
	if (!doc->opt.featured_targets)
		doc->opt.featured_targets = DEFAULT_FEATURED;
	if (!doc->opt.chart_profiles)
		doc->opt.chart_profiles = DEFAULT_CHART_PROFILES;
	doc->set = targets;
	doc->model = doc->opt.model ? doc->opt.model : gpuproj_model_default();
	r = resolve_date(doc, reterr);
	if (r)
		goto fail;

	/* Every registered model, the report's first. */
	doc->models = calloc(gpuproj_model_count() + 1, sizeof(*doc->models));
	doc->targets = calloc(n_set + n_inputs, sizeof(*doc->targets));
	doc->featured = calloc(n_set + n_inputs, sizeof(*doc->featured));
	doc->profiles = calloc(n_inputs, sizeof(*doc->profiles));
	doc->combined = calloc(n_set + n_inputs, sizeof(*doc->combined));
	if (!doc->models || !doc->targets || !doc->featured || !doc->profiles || !doc->combined)
		goto nomem;
	doc->models[doc->n_models++] = doc->model;
	for (i = 0; i < gpuproj_model_count(); i++) {
		if (gpuproj_model_at(i) != doc->model)
			doc->models[doc->n_models++] = gpuproj_model_at(i);
	}

	/* The targets: the named ones (featured), or all; then the sources. */
	if (doc->opt.n_target_names) {
		for (i = 0; i < doc->opt.n_target_names; i++) {
			static const struct gpuproj_lookup_words words = { .what = "target GPU" };
			const struct gpuproj_target *tg;

			r = gpuproj_targets_lookup(targets, doc->opt.target_names[i], &words, &tg,
						   reterr);
			if (r)
				goto fail;
			if (add_target(doc, tg))
				doc->featured[doc->n_featured++] = tg;
		}
		doc->featured_given = true;
	} else {
		for (i = 0; i < n_set; i++)
			add_target(doc, gpuproj_targets_get(targets, i));
	}
	for (i = 0; i < n_inputs; i++) {
		struct doc_profile *dp = &doc->profiles[i];
		struct gpuproj_error e = { 0 };

		dp->profile = inputs[i].profile;
		dp->weight = inputs[i].weight;
		dp->peak_bytes = gpuproj_profile_run_info(dp->profile)->peak_device_memory_bytes;
		dp->label = inputs[i].label ? xstrdup(inputs[i].label)
					    : xasprintf("profile %zu", i + 1);
		if (!dp->label)
			goto nomem;
		doc->n_profiles++;
		r = gpuproj_resolve_source_or_derive(dp->profile, targets, inputs[i].source, &dp->src,
						     &dp->derived, &e);
		if (r) {
			error_set(reterr, r, e.file, e.line, e.column, "%s: %s", dp->label,
				  e.message);
			goto fail;
		}
		add_target(doc, dp->src);
		if (dp->src != doc->profiles[0].src)
			doc->mixed_sources = true;
	}

	for (i = 0; i < doc->n_profiles; i++) {
		struct doc_profile *dp = &doc->profiles[i];

		doc_progress(doc, "projecting", i, doc->n_profiles);
		dp->src_index = doc_target_index(doc, dp->src);
		r = project_profile(doc, dp);
		if (r)
			goto nomem;
		doc->n_disagreements += dp->n_dis;
	}
	doc_progress(doc, "projecting", doc->n_profiles, doc->n_profiles);

	/* The rankings: sums over the counted kernels, prices, the order (report-rank.c). */
	r = doc_rank(doc, reterr);
	if (r)
		goto fail;
	for (t = 0; t < doc->n_targets; t++) {
		struct gpuproj_report_rank *row = &doc->combined[t];

		row->binding = dominant_binding(doc, 0, doc->n_profiles,
						doc_target_index(doc, row->target));
	}

	/* Featured targets: the best ranked complete ones that are not a source and fit. */
	if (!doc->featured_given) {
		for (j = 0; j < doc->n_complete && doc->n_featured < doc->opt.featured_targets;
		     j++) {
			const struct gpuproj_report_rank *row = &doc->combined[j];

			if (!row->is_source && row->memory_fit != GPUPROJ_REPORT_FIT_NO)
				doc->featured[doc->n_featured++] = row->target;
		}
	}
	if (!doc->opt.no_charts && doc_rank_chart(doc))
		goto nomem;
	/* The charts' data: the first chart_profiles profiles with kernels. */
	for (i = 0; !doc->opt.no_charts && i < doc->n_profiles && i < doc->opt.chart_profiles;
	     i++) {
		if (doc->profiles[i].n_kernels && charts_data(doc, &doc->profiles[i]))
			goto nomem;
	}
	*ret = doc;
	return GPUPROJ_OK;

nomem:
	r = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
fail:
	gpuproj_report_doc_free(doc);
	return r;
}

struct gpuproj_report_doc *
gpuproj_report_doc_free(struct gpuproj_report_doc *doc)
{
	size_t i, k;

	if (!doc)
		return NULL;
	for (i = 0; i < doc->n_profiles; i++) {
		struct doc_profile *dp = &doc->profiles[i];

		free(dp->label);
		for (k = 0; dp->kp && k < dp->n_kernels * doc->n_targets; k++) {
			if (dp->kp[k].why && dp->kp[k].why != dp->why[k % dp->n_kernels])
				free(dp->kp[k].why);
		}
		free(dp->kp);
		free(dp->counted);
		for (k = 0; dp->why && k < dp->n_kernels; k++)
			free(dp->why[k]);
		free(dp->why);
		free(dp->order);
		free(dp->totals);
		free(dp->ranking);
		free(dp->model_point_ns);
		free(dp->model_unprojected);
		for (k = 0; dp->dis && k < dp->n_dis; k++)
			free(dp->dis[k].point_ns);
		free(dp->dis);
		charts_free(dp->charts);
		gpuproj_targets_free(dp->derived);
	}
	free(doc->profiles);
	free(doc->models);
	free(doc->targets);
	free(doc->featured);
	free(doc->combined);
	free(doc->price);
	free(doc->pairs);
	free(doc->rank_chart);
	free(doc->rank_rows);
	free(doc->rank_labels);
	free(doc);
	return NULL;
}

size_t
gpuproj_report_doc_profile_count(const struct gpuproj_report_doc *doc)
{
	return doc ? doc->n_profiles : 0;
}

const struct gpuproj_report_rank *
gpuproj_report_doc_ranking(const struct gpuproj_report_doc *doc, size_t profile, size_t *ret_n)
{
	if (ret_n)
		*ret_n = 0;
	if (!doc)
		return NULL;
	if (profile == GPUPROJ_REPORT_COMBINED) {
		if (ret_n)
			*ret_n = doc->n_targets;
		return doc->combined;
	}
	if (profile >= doc->n_profiles)
		return NULL;
	if (ret_n)
		*ret_n = doc->n_targets;
	return doc->profiles[profile].ranking;
}

size_t
gpuproj_report_doc_disagreements(const struct gpuproj_report_doc *doc)
{
	return doc ? doc->n_disagreements : 0;
}

