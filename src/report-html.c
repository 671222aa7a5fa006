/* SPDX-License-Identifier: MIT */
/*
 * The procurement report (include/gpuproj/report-html.h): building the
 * document (projections with every model, rankings, disagreements) and
 * writing it as one self-contained HTML file with inline SVG charts
 * (report-charts.c, PLplot). The Markdown writer is report-md.c.
 *
 * Thread safety: reentrant; charts fork (see report-charts.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuproj/report-html.h>

#include "report-charts.h"
#include "report-html-private.h"
#include "profile-private.h"
#include "util.h"

#define DEFAULT_TOP_KERNELS 3
#define DEFAULT_FEATURED 4
#define DEFAULT_CHART_PROFILES 4
/* Kernels drawn in the quadrant and instruction-roofline charts. */
#define CHART_KERNELS 6
/* Kernels with a column in the "every target" matrix. */
#define MATRIX_KERNELS 6
/* Characters of a kernel name in chart legends. */
#define CHART_NAME_CHARS 20

const char *const doc_assumptions[] = {
	"Projected time is GPU kernel time only: host code, data transfers, synchronisation and "
	"other non-kernel time of the run are not projected (the run's wall time is shown where "
	"the profile has it).",
	"Floating-point work is assumed the same on the target (FLOP ratio 1) unless a SASS "
	"comparison supplies a ratio; special functions can compile to different instruction "
	"counts (seed 000 §4.2).",
	"Warp efficiency is a property of the kernel and the same on every GPU.",
	"Target ceilings are the sustained FLOP/s and bandwidths of targets.yaml: measured where a "
	"measurement exists, otherwise datasheet values or estimates; the basis of every number "
	"is listed under \"Sources of the target numbers\".",
	"Kernels the model cannot project (no metrics: only timed, or a metric missing) are "
	"carried at their measured source time in every total, and counted as \"carried\".",
	"Energy = projected time × TDP: an upper-bound estimate that assumes the board draws its "
	"full rated power for the whole projected time; idle and host power are not included.",
	"Time × price = projected time × the target's price (USD·s): a relative figure for "
	"comparing purchases on this workload, not a running cost.",
	"The interval is each model's own spread (hroof: the L1, L2 and DRAM projections of "
	"seed 000 eq. 9, the point estimate their midpoint), not a statistical confidence "
	"interval. The hroof authors report 10.3–17.0 % mean absolute error on their validation.",
};
const size_t doc_n_assumptions = ARRAY_LENGTH(doc_assumptions);

const char *
doc_traffic_assumption(void)
{
	if (gpuproj_l2_capacity_default())
		return "Bytes through L1 and L2 are assumed the same on the target as measured on "
		       "the source (seed 000 §4.2: \"memory usage is considered as roughly "
		       "similar\"); DRAM bytes are adjusted for the target's L2 size (a footprint "
		       "model fitted on gpuproj's validation data: a larger L2 keeps more of the "
		       "kernel's data).";
	return "Memory traffic per level (bytes through L1, L2 and DRAM) is assumed the same on "
	       "the target as measured on the source (seed 000 §4.2: \"memory usage is "
	       "considered as roughly similar\"); caches of very different sizes can change it.";
}

/* ------------------------------------------------------------------ */
/* Shared helpers                                                      */
/* ------------------------------------------------------------------ */

size_t
doc_target_index(const struct gpuproj_report_doc *doc, const struct gpuproj_target *t)
{
	size_t i;

	for (i = 0; i < doc->n_targets; i++) {
		if (doc->targets[i] == t)
			return i;
	}
	return doc->n_targets;
}

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

char *
doc_fmt_speedup(double speedup, char *buf, size_t size)
{
	if (!isfinite(speedup))
		snprintf(buf, size, "–");
	else
		snprintf(buf, size, "%.2f×", speedup);
	return buf;
}

char *
doc_fmt_energy(double j, char *buf, size_t size)
{
	if (isnan(j))
		snprintf(buf, size, "unknown");
	else if (j < 1e3)
		snprintf(buf, size, "%.3g J", j);
	else if (j < 1e6)
		snprintf(buf, size, "%.3g kJ", j / 1e3);
	else
		snprintf(buf, size, "%.3g MJ", j / 1e6);
	return buf;
}

char *
doc_fmt_cost(double usd_s, char *buf, size_t size)
{
	if (isnan(usd_s)) {
		snprintf(buf, size, "unknown");
	} else if (usd_s < 1000) {
		snprintf(buf, size, "%.3g USD·s", usd_s);
	} else {
		/* Three significant digits, thousands separated by thin spaces. */
		double mag = pow(10, floor(log10(usd_s)) - 2);
		unsigned long long v = (unsigned long long)(round(usd_s / mag) * mag);
		char digits[32], grouped[64];
		size_t n, i, w = 0;

		snprintf(digits, sizeof(digits), "%llu", v);
		n = strlen(digits);
		for (i = 0; i < n && w + 4 < sizeof(grouped); i++) {
			if (i && (n - i) % 3 == 0) {
				memcpy(grouped + w, "\u2009", 3);
				w += 3;
			}
			grouped[w++] = digits[i];
		}
		grouped[w] = '\0';
		snprintf(buf, size, "%s USD·s", grouped);
	}
	return buf;
}

char *
doc_fmt_pct(double frac, char *buf, size_t size)
{
	if (!isfinite(frac))
		snprintf(buf, size, "–");
	else
		snprintf(buf, size, "%.1f %%", 100.0 * frac);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Building the document                                               */
/* ------------------------------------------------------------------ */

static int
rank_cmp(const void *a, const void *b)
{
	const struct gpuproj_report_rank *x = a, *y = b;
	bool xn = isnan(x->point_ns), yn = isnan(y->point_ns);

	if (xn != yn)
		return xn ? 1 : -1;
	if (!xn && x->point_ns != y->point_ns)
		return x->point_ns < y->point_ns ? -1 : 1;
	return strcmp(x->target->name, y->target->name);
}

static void
fill_costs(struct gpuproj_report_rank *r)
{
	const struct gpuproj_target *t = r->target;

	r->speedup = r->point_ns > 0 ? r->source_ns / r->point_ns : NAN;
	r->energy_j = isnan(t->tdp_w) ? NAN : r->point_ns * 1e-9 * t->tdp_w;
	r->cost_usd_s = isnan(t->price_usd) ? NAN : r->point_ns * 1e-9 * t->price_usd;
}

/* The binding resource of most projected time over the given profiles. */
static enum gpuproj_bound
dominant_binding(const struct gpuproj_report_doc *doc, size_t first, size_t last, size_t t)
{
	double by[GPUPROJ_BOUND_LATENCY + 1] = { 0 };
	enum gpuproj_bound best = GPUPROJ_BOUND_NONE;
	size_t p, k;
	int b;

	for (p = first; p < last; p++) {
		const struct doc_profile *dp = &doc->profiles[p];

		for (k = 0; k < dp->n_kernels; k++) {
			const struct doc_kproj *kp = doc_kp(doc, dp, t, k);
			const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);

			if (kp->status == GPUPROJ_OK && kp->binding <= GPUPROJ_BOUND_LATENCY)
				by[kp->binding] += kp->point_ns *
						   (double)(kr->launches ? kr->launches : 1);
		}
	}
	for (b = 1; b <= GPUPROJ_BOUND_LATENCY; b++) {
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

static void
progress(const struct gpuproj_report_doc *doc, const char *stage, size_t done, size_t total)
{
	if (doc->opt.progress)
		doc->opt.progress(doc->opt.progress_userdata, stage, done, total);
}

/* Project one profile onto every target with every model. */
static int
project_profile(struct gpuproj_report_doc *doc, struct doc_profile *dp)
{
	const struct gpuproj_profile *p = dp->profile;
	size_t n = gpuproj_profile_count(p), nt = doc->n_targets, nm = doc->n_models;
	struct gpuproj_run_projection *runs = NULL;
	struct gpuproj_projection *cmp = NULL;
	size_t *flagged = NULL, *worst_t = NULL, t, k, m;
	double *worst_f = NULL, *worst_pts = NULL;
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
	cmp = calloc(nm, sizeof(*cmp));
	flagged = calloc(n + 1, sizeof(*flagged));
	worst_t = calloc(n + 1, sizeof(*worst_t));
	worst_f = calloc(n + 1, sizeof(*worst_f));
	worst_pts = calloc(n * nm + 1, sizeof(*worst_pts));
	if (!dp->kp || !dp->why || !dp->order || !dp->totals || !dp->ranking ||
	    !dp->model_point_ns || !dp->model_unprojected || !runs || !cmp || !flagged || !worst_t ||
	    !worst_f || !worst_pts)
		goto out;

	for (k = 0; k < n; k++) {
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

	for (t = 0; t < nt; t++) {
		const struct gpuproj_target *tgt = doc->targets[t];
		struct gpuproj_report_rank *row = &dp->totals[t];

		for (m = 0; m < nm; m++) {
			if (gpuproj_project_run(p, doc->models[m], dp->src, tgt, NULL, &runs[m]))
				goto out;
			dp->model_point_ns[m * nt + t] = runs[m].point_ns;
			dp->model_unprojected[m * nt + t] = runs[m].n_unprojected;
		}
		for (k = 0; k < n; k++) {
			const struct gpuproj_projection *pr = &runs[0].kernels[k];
			struct doc_kproj *kp = &dp->kp[t * n + k];

			kp->status = pr->status;
			kp->binding = pr->binding;
			kp->lo_ns = pr->status == GPUPROJ_OK ? pr->lo_ns : NAN;
			kp->hi_ns = pr->status == GPUPROJ_OK ? pr->hi_ns : NAN;
			kp->point_ns = pr->status == GPUPROJ_OK ? pr->point_ns : NAN;
			if (pr->status != GPUPROJ_OK && !dp->why[k]) {
				dp->why[k] = xstrdup(pr->why[0] ? pr->why
								 : gpuproj_strerror(pr->status));
				if (!dp->why[k])
					goto out;
			}
		}
		row->target = tgt;
		row->source_ns = runs[0].source_ns;
		row->point_ns = runs[0].point_ns;
		row->lo_ns = runs[0].lo_ns;
		row->hi_ns = runs[0].hi_ns;
		row->n_unprojected = runs[0].n_unprojected;
		row->unprojected_source_ns = runs[0].unprojected_source_ns;
		row->is_source = tgt == dp->src;
		fill_costs(row);

		/* Where the models disagree on a kernel (model.h's flag and factor). */
		for (k = 0; nm > 1 && k < n; k++) {
			double lo = INFINITY, hi = 0;

			for (m = 0; m < nm; m++)
				cmp[m] = runs[m].kernels[k];
			if (!gpuproj_models_disagree(cmp, nm, GPUPROJ_MODEL_DISAGREEMENT_FACTOR))
				continue;
			for (m = 0; m < nm; m++) {
				if (cmp[m].status == GPUPROJ_OK && cmp[m].point_ns > 0) {
					lo = fmin(lo, cmp[m].point_ns);
					hi = fmax(hi, cmp[m].point_ns);
				}
			}
			flagged[k]++;
			if (hi / lo > worst_f[k]) {
				worst_f[k] = hi / lo;
				worst_t[k] = t;
				for (m = 0; m < nm; m++) {
					const struct gpuproj_projection *pr = &runs[m].kernels[k];

					worst_pts[k * nm + m] =
						pr->status == GPUPROJ_OK ? pr->point_ns : NAN;
				}
			}
		}
		for (m = 0; m < nm; m++)
			gpuproj_run_projection_clear(&runs[m]);
	}
	for (t = 0; t < nt; t++)
		dp->totals[t].binding = dominant_binding(doc, (size_t)(dp - doc->profiles),
							  (size_t)(dp - doc->profiles) + 1, t);
	memcpy(dp->ranking, dp->totals, nt * sizeof(*dp->ranking));
	qsort(dp->ranking, nt, sizeof(*dp->ranking), rank_cmp);

	for (k = 0; k < n; k++)
		dp->n_dis += flagged[k] > 0;
	if (dp->n_dis) {
		size_t o, w = 0;

		dp->dis = calloc(dp->n_dis, sizeof(*dp->dis));
		if (!dp->dis)
			goto out;
		for (o = 0; o < n; o++) {
			struct doc_disagreement *d;

			k = dp->order[o];
			if (!flagged[k])
				continue;
			d = &dp->dis[w++];
			d->kernel = k;
			d->n_flagged = flagged[k];
			d->worst_target = worst_t[k];
			d->worst_factor = worst_f[k];
			d->point_ns = malloc(nm * sizeof(*d->point_ns));
			if (!d->point_ns)
				goto out;
			memcpy(d->point_ns, &worst_pts[k * nm], nm * sizeof(*d->point_ns));
		}
	}
	r = GPUPROJ_OK;
out:
	for (m = 0; runs && m < nm; m++)
		gpuproj_run_projection_clear(&runs[m]);
	free(runs);
	free(cmp);
	free(flagged);
	free(worst_t);
	free(worst_f);
	free(worst_pts);
	return r;
}

static int
resolve_date(struct gpuproj_report_doc *doc, struct gpuproj_error *reterr)
{
	const char *env = getenv("SOURCE_DATE_EPOCH");
	time_t when;
	struct tm tm;

	if (doc->opt.date) {
		snprintf(doc->date, sizeof(doc->date), "%s", doc->opt.date);
		return GPUPROJ_OK;
	}
	if (env && *env) {
		int64_t v;

		if (!parse_int64(env, &v) || v < 0)
			return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
					 "SOURCE_DATE_EPOCH must be a non-negative integer (seconds "
					 "since 1970-01-01 UTC), not '%s'", env);
		when = (time_t)v;
	} else {
		when = time(NULL);
	}
	if (!gmtime_r(&when, &tm) ||
	    !strftime(doc->date, sizeof(doc->date), "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(doc->date, sizeof(doc->date), "%lld s since 1970", (long long)when);
	return GPUPROJ_OK;
}

static int
unknown_target(const struct gpuproj_targets *set, const char *name, struct gpuproj_error *reterr)
{
	const char *close[5];
	size_t n = gpuproj_targets_suggest(set, name, close, ARRAY_LENGTH(close)), i;
	struct strbuf sb;
	int r;

	strbuf_init(&sb);
	for (i = 0; i < n; i++)
		strbuf_printf(&sb, "%s%s", i ? ", " : "; close names: ", close[i]);
	r = error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0,
		      "target GPU '%s' is not in targets.yaml%s (`gpuproj targets list` shows all)",
		      name, sb.buf ? sb.buf : "");
	strbuf_free(&sb);
	return r;
}

static bool
add_target(struct gpuproj_report_doc *doc, const struct gpuproj_target *t)
{
	if (doc_target_index(doc, t) < doc->n_targets)
		return false;
	doc->targets[doc->n_targets++] = t;
	return true;
}

int
gpuproj_report_doc_new(const struct gpuproj_report_input *inputs, size_t n_inputs,
		       const struct gpuproj_targets *targets,
		       const struct gpuproj_report_doc_options *opt,
		       struct gpuproj_report_doc **ret, struct gpuproj_error *reterr)
{
	struct gpuproj_report_doc *doc = NULL;
	size_t n_set = targets ? gpuproj_targets_count(targets) : 0, i, j, t;
	int r;

	if (!inputs || !n_inputs || !targets || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "a report needs at least one profile and a set of targets");
	for (i = 0; i < n_inputs; i++) {
		if (!inputs[i].profile)
			return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
					 "report input %zu has no profile", i + 1);
	}
	if (!n_set)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "the target set is empty");

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
			const struct gpuproj_target *tg =
				gpuproj_targets_match(targets, doc->opt.target_names[i]);

			if (!tg) {
				r = unknown_target(targets, doc->opt.target_names[i], reterr);
				goto fail;
			}
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
		dp->label = inputs[i].label ? xstrdup(inputs[i].label)
					    : xasprintf("profile %zu", i + 1);
		if (!dp->label)
			goto nomem;
		doc->n_profiles++;
		r = gpuproj_resolve_source(dp->profile, targets, inputs[i].source, &dp->src, &e);
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

		progress(doc, "projecting", i, doc->n_profiles);
		dp->src_index = doc_target_index(doc, dp->src);
		r = project_profile(doc, dp);
		if (r)
			goto nomem;
		doc->n_disagreements += dp->n_dis;
	}
	progress(doc, "projecting", doc->n_profiles, doc->n_profiles);

	/* The combined ranking: per-profile totals summed. */
	for (t = 0; t < doc->n_targets; t++) {
		struct gpuproj_report_rank *row = &doc->combined[t];

		row->target = doc->targets[t];
		for (i = 0; i < doc->n_profiles; i++) {
			const struct gpuproj_report_rank *pt = &doc->profiles[i].totals[t];

			row->source_ns += pt->source_ns;
			row->point_ns += pt->point_ns;
			row->lo_ns += pt->lo_ns;
			row->hi_ns += pt->hi_ns;
			row->n_unprojected += pt->n_unprojected;
			row->unprojected_source_ns += pt->unprojected_source_ns;
			row->is_source |= pt->is_source;
		}
		fill_costs(row);
		row->binding = dominant_binding(doc, 0, doc->n_profiles, t);
	}
	qsort(doc->combined, doc->n_targets, sizeof(*doc->combined), rank_cmp);

	/* Featured targets: the best ranked that are not a source. */
	if (!doc->featured_given) {
		for (j = 0; j < doc->n_targets && doc->n_featured < doc->opt.featured_targets; j++) {
			if (!doc->combined[j].is_source)
				doc->featured[doc->n_featured++] = doc->combined[j].target;
		}
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
		free(dp->kp);
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
	}
	free(doc->profiles);
	free(doc->models);
	free(doc->targets);
	free(doc->featured);
	free(doc->combined);
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

/* ------------------------------------------------------------------ */
/* HTML                                                                */
/* ------------------------------------------------------------------ */

struct html {
	struct strbuf sb;
	const struct gpuproj_report_doc *doc;
	size_t chart_done, chart_total;
	int status;                  /* first chart failure */
	struct gpuproj_error *err;
};

/* Text with &, <, >, " and ' escaped (safe in element content and attributes). */
static void
esc(struct strbuf *sb, const char *s)
{
	const char *p, *run = s;

	if (!s)
		return;
	for (p = s; *p; p++) {
		const char *rep;

		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: continue;
		}
		strbuf_appendn(sb, run, (size_t)(p - run));
		strbuf_append(sb, rep);
		run = p + 1;
	}
	strbuf_append(sb, run);
}

static void
out(struct html *h, const char *s)
{
	strbuf_append(&h->sb, s);
}

static void outf(struct html *h, const char *fmt, ...) GPUPROJ_PRINTF(2, 3);

static void
outf(struct html *h, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		h->sb.oom = true;
		return;
	}
	strbuf_append(&h->sb, s);
	free(s);
}

static void
oute(struct html *h, const char *s)
{
	esc(&h->sb, s);
}

/* A time cell: human text, exact value in data-ns. */
static void
td_ns(struct html *h, double ns)
{
	char b[32];

	if (isnan(ns)) {
		out(h, "<td class=\"num\">–</td>");
		return;
	}
	outf(h, "<td class=\"num\" data-ns=\"%.17g\">%s</td>", ns, format_ns(ns, b, sizeof(b)));
}

static const char css[] =
	":root{--fg:#1b1b1b;--muted:#5a5a5a;--rule:#c9ced6;--head:#eef2f7;--src:#fbf8e3;"
	"--accent:#0b4f8a}\n"
	"*{box-sizing:border-box}\n"
	"body{font:15px/1.45 \"DejaVu Sans\",\"Segoe UI\",system-ui,sans-serif;color:var(--fg);"
	"background:#fff;margin:0 auto;max-width:1280px;padding:1.2rem 1.5rem 3rem}\n"
	"h1{font-size:1.55rem;margin:.2rem 0 .3rem}\n"
	"h2{font-size:1.25rem;border-bottom:2px solid var(--rule);padding-bottom:.2rem;"
	"margin-top:2.2rem}\n"
	"h3{font-size:1.08rem;margin-top:1.6rem}\n"
	"h4{font-size:1rem;margin:1.2rem 0 .3rem}\n"
	"p.meta{color:var(--muted);margin:0 0 1rem}\n"
	"nav ol{columns:2;margin:.3rem 0 1rem;padding-left:1.4rem}\n"
	"a{color:var(--accent)}\n"
	"table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.88rem}\n"
	"caption{caption-side:top;text-align:left;font-weight:600;padding:.2rem 0}\n"
	"th,td{border:1px solid var(--rule);padding:.22rem .45rem;vertical-align:top;"
	"text-align:left}\n"
	"thead th{background:var(--head)}\n"
	"th[scope=row]{font-weight:600;background:#f7f9fb;white-space:nowrap}\n"
	".num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"tr.source td,tr.source th{background:var(--src)}\n"
	".table-wrap{overflow-x:auto}\n"
	"code{font-family:\"DejaVu Sans Mono\",monospace;font-size:.86em}\n"
	"code.kernel{overflow-wrap:anywhere}\n"
	"td.kname{min-width:18em;max-width:36em}\n"
	".small{font-size:.85em;color:var(--muted)}\n"
	".note{color:var(--muted);font-size:.9rem}\n"
	".warn{background:#fff4e5;border-left:4px solid #e69f00;padding:.4rem .7rem}\n"
	"figure.chart{margin:1.2rem 0;break-inside:avoid}\n"
	"figure.chart svg{display:block;width:100%;height:auto;max-width:980px}\n"
	"figcaption{font-size:.86rem;color:var(--muted);margin-top:.3rem;max-width:980px}\n"
	"dl.refs dt{font-weight:600}dl.refs dd{margin:0 0 .4rem 1.2rem}\n"
	"ul.assume li{margin:.25rem 0}\n"
	"@page{size:A4;margin:14mm}\n"
	"@media print{body{max-width:none;padding:0;font-size:10pt}"
	"nav{display:none}h2,h3,h4{break-after:avoid}"
	"table{font-size:7.5pt}th,td{padding:.15em .3em}tr,figure{break-inside:avoid}"
	"thead{display:table-header-group}"
	".table-wrap{overflow:visible}a{color:inherit;text-decoration:none}"
	"figure.chart svg{max-width:100%}}\n";

static void
html_ranking(struct html *h, const struct gpuproj_report_rank *rows, size_t n, const char *id,
	     const char *caption)
{
	size_t i;
	char a[32], b[32], c[48];

	outf(h, "<div class=\"table-wrap\"><table class=\"ranking\" id=\"%s\">\n<caption>", id);
	oute(h, caption);
	out(h, "</caption>\n<thead><tr><th class=\"num\">#</th><th>Target GPU</th>"
	    "<th class=\"num\">Projected</th><th class=\"num\">Interval</th>"
	    "<th class=\"num\">Speedup</th><th>Bound by</th>"
	    "<th class=\"num\">Time × price</th><th class=\"num\">Energy (upper bound)</th>"
	    "<th class=\"num\">Carried</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		const struct gpuproj_report_rank *r = &rows[i];

		outf(h, "<tr%s data-target=\"", r->is_source ? " class=\"source\"" : "");
		oute(h, r->target->name);
		outf(h, "\" data-point-ns=\"%.17g\" data-lo-ns=\"%.17g\" data-hi-ns=\"%.17g\" "
		     "data-source-ns=\"%.17g\"><td class=\"num\">%zu</td><th scope=\"row\">",
		     r->point_ns, r->lo_ns, r->hi_ns, r->source_ns, i + 1);
		oute(h, r->target->name);
		if (r->is_source)
			out(h, " <span class=\"small\">(source)</span>");
		out(h, "</th>");
		td_ns(h, r->point_ns);
		outf(h, "<td class=\"num\">%s – %s</td>", format_ns(r->lo_ns, a, sizeof(a)),
		     format_ns(r->hi_ns, b, sizeof(b)));
		outf(h, "<td class=\"num\">%s</td>", doc_fmt_speedup(r->speedup, c, sizeof(c)));
		outf(h, "<td>%s</td>", gpuproj_bound_name(r->binding));
		outf(h, "<td class=\"num\" data-usd-s=\"%.17g\">%s</td>", r->cost_usd_s,
		     doc_fmt_cost(r->cost_usd_s, c, sizeof(c)));
		outf(h, "<td class=\"num\" data-j=\"%.17g\">%s</td>", r->energy_j,
		     doc_fmt_energy(r->energy_j, c, sizeof(c)));
		if (r->n_unprojected)
			outf(h, "<td class=\"num\">%zu (%s)</td>", r->n_unprojected,
			     format_ns(r->unprojected_source_ns, a, sizeof(a)));
		else
			out(h, "<td class=\"num\">0</td>");
		out(h, "</tr>\n");
	}
	out(h, "</tbody></table></div>\n");
}

static void
html_kernel_cell(struct html *h, const struct gpuproj_kernel *k, bool full)
{
	char buf[400];

	out(h, "<code class=\"kernel\" title=\"");
	oute(h, k->name);
	out(h, "\">");
	if (full) {
		oute(h, doc_kernel_name(k));
	} else {
		doc_short_name(k, 120, buf, sizeof(buf));
		oute(h, buf);
	}
	out(h, "</code>");
	outf(h, "<br><span class=\"small\">grid&nbsp;(%" PRIu32 ",%" PRIu32 ",%" PRIu32
	     ") block&nbsp;(%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")", k->grid.x, k->grid.y,
	     k->grid.z, k->block.x, k->block.y, k->block.z);
	if (k->tag && *k->tag) {
		out(h, " [");
		oute(h, k->tag);
		out(h, "]");
	}
	out(h, "</span>");
}

static void
html_run_details(struct html *h, const struct doc_profile *dp)
{
	const struct gpuproj_profile *p = dp->profile;
	const struct gpuproj_device_info *dev = gpuproj_profile_device(p);
	const struct gpuproj_process_info *pi = gpuproj_profile_process(p);
	const struct gpuproj_run_info *run = gpuproj_profile_run_info(p);
	const char *v;
	char a[32], b[32];
	size_t i;
	size_t n_metrics = dp->n_kernels - dp->n_timed_only - dp->n_untimed;

	out(h, "<table class=\"run\"><tbody>\n<tr><th scope=\"row\">Application</th><td>");
	oute(h, doc_application(p));
	out(h, "</td></tr>\n");
	if (pi->argv && pi->argv[0]) {
		out(h, "<tr><th scope=\"row\">Command line</th><td><code>");
		for (i = 0; pi->argv[i]; i++) {
			if (i)
				out(h, " ");
			oute(h, pi->argv[i]);
		}
		out(h, "</code></td></tr>\n");
	}
	if (pi->host || pi->pid >= 0 || pi->rank >= 0) {
		out(h, "<tr><th scope=\"row\">Process</th><td>");
		if (pi->host) {
			out(h, "host ");
			oute(h, pi->host);
		}
		if (pi->pid >= 0)
			outf(h, "%spid %" PRId64, pi->host ? ", " : "", pi->pid);
		if (pi->rank >= 0)
			outf(h, "%sMPI rank %" PRId64, pi->host || pi->pid >= 0 ? ", " : "",
			     pi->rank);
		out(h, "</td></tr>\n");
	}
	out(h, "<tr><th scope=\"row\">Source GPU</th><td>");
	oute(h, dp->src->name);
	outf(h, " (%s", dev->name ? "" : "device name not recorded");
	oute(h, dev->name);
	out(h, "; ");
	oute(h, dp->src->arch);
	outf(h, ", %d SMs at %.0f MHz)</td></tr>\n", dp->src->sms, dp->src->clock_mhz);
	if ((v = gpuproj_profile_attr(p, "created"))) {
		out(h, "<tr><th scope=\"row\">Measured</th><td>");
		oute(h, v);
		out(h, "</td></tr>\n");
	}
	out(h, "<tr><th scope=\"row\">Measured with</th><td>");
	if ((v = gpuproj_profile_attr(p, "origin"))) {
		oute(h, v);
		out(h, ", ");
	}
	v = gpuproj_profile_attr(p, "tool_version");
	out(h, "gpuproj ");
	oute(h, v ? v : "version not recorded");
	out(h, "</td></tr>\n");
	if ((v = gpuproj_profile_attr(p, "citation"))) {
		out(h, "<tr><th scope=\"row\">Data</th><td>");
		oute(h, v);
		out(h, "</td></tr>\n");
	}
	if ((v = gpuproj_profile_attr(p, "merged_ranks"))) {
		out(h, "<tr><th scope=\"row\">Merged ranks</th><td>");
		oute(h, v);
		out(h, "</td></tr>\n");
	}
	outf(h, "<tr><th scope=\"row\">Times</th><td>GPU kernel time %s",
	     format_ns(dp->kernel_ns, a, sizeof(a)));
	if (!isnan(run->wall_ns))
		outf(h, "; wall time %s", format_ns(run->wall_ns, b, sizeof(b)));
	if (run->dropped_records)
		outf(h, "; <strong>%" PRIu64 " activity records dropped</strong> (times are low)",
		     run->dropped_records);
	out(h, "</td></tr>\n");
	outf(h, "<tr><th scope=\"row\">Profiled and timed</th><td>%zu kernel signatures, %"
	     PRIu64 " launches. %" PRIu64 " launches were profiled (metrics collected, under "
	     "replay); every launch was timed. %zu signatures have metrics and can be projected; "
	     "%zu were only timed (no profiled launch: no metrics, so they cannot be projected "
	     "and their measured time is carried unchanged)", dp->n_kernels, dp->launches,
	     dp->profiled, n_metrics, dp->n_timed_only);
	if (dp->n_untimed)
		outf(h, "; %zu have no timed launch and count for nothing", dp->n_untimed);
	out(h, ".</td></tr>\n</tbody></table>\n");
}

/* The per-kernel table: every kernel, projected time on the featured targets. */
static void
html_kernels(struct html *h, const struct doc_profile *dp, size_t pi)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t o, f;
	char a[32], b[32];

	outf(h, "<div class=\"table-wrap\"><table class=\"kernels\" id=\"p%zu-kernels\">\n"
	     "<caption>Kernels by measured time on %s; projected time per launch with %s "
	     "(binding resource below)</caption>\n<thead><tr><th class=\"num\">#</th>"
	     "<th>Kernel</th><th class=\"num\">Share</th>"
	     "<th class=\"num\">Launches (profiled)</th><th class=\"num\">Source per launch</th>"
	     "<th>Bound on source</th>", pi, dp->src->name, gpuproj_model_name(doc->model));
	for (f = 0; f < doc->n_featured; f++) {
		out(h, "<th class=\"num\">");
		oute(h, doc->featured[f]->name);
		out(h, "</th>");
	}
	out(h, "</tr></thead>\n<tbody>\n");
	for (o = 0; o < dp->n_kernels; o++) {
		size_t k = dp->order[o];
		const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);
		double tot = gpuproj_kernel_total_ns(kr);
		const struct doc_kproj *ks = doc_kp(doc, dp, dp->src_index, k);

		outf(h, "<tr><td class=\"num\">%zu</td><td class=\"kname\">", o + 1);
		html_kernel_cell(h, kr, false);
		out(h, "</td>");
		outf(h, "<td class=\"num\">%s</td>",
		     doc_fmt_pct(dp->kernel_ns > 0 && !isnan(tot) ? tot / dp->kernel_ns : NAN, a,
				 sizeof(a)));
		outf(h, "<td class=\"num\" data-launches=\"%" PRIu64 "\" data-profiled=\"%" PRIu64
		     "\">%" PRIu64 " (%" PRIu64 ")</td>", kr->launches, kr->profiled, kr->launches,
		     kr->profiled);
		td_ns(h, gpuproj_kernel_mean_ns(kr));
		if (ks->status == GPUPROJ_OK) {
			outf(h, "<td>%s</td>", gpuproj_bound_name(ks->binding));
		} else {
			outf(h, "<td colspan=\"%zu\" class=\"note\">not projected: ",
			     doc->n_featured + 1);
			oute(h, dp->why[k] ? dp->why[k] : "unknown reason");
			out(h, kr->profiled ? "" : " (only timed: no profiled launch)");
			out(h, "; carried at its measured time</td></tr>\n");
			continue;
		}
		for (f = 0; f < doc->n_featured; f++) {
			size_t t = doc_target_index(doc, doc->featured[f]);
			const struct doc_kproj *kp = doc_kp(doc, dp, t, k);

			if (kp->status != GPUPROJ_OK) {
				out(h, "<td class=\"num\">–</td>");
				continue;
			}
			outf(h, "<td class=\"num\" data-ns=\"%.17g\">%s<br><span class=\"small\">%s"
			     "</span></td>", kp->point_ns, format_ns(kp->point_ns, b, sizeof(b)),
			     gpuproj_bound_name(kp->binding));
		}
		out(h, "</tr>\n");
	}
	out(h, "</tbody></table></div>\n");
}

/* Projected total time of the top kernels on every target. */
static void
html_matrix(struct html *h, const struct doc_profile *dp, size_t pi)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t n = dp->n_kernels < MATRIX_KERNELS ? dp->n_kernels : MATRIX_KERNELS, i, o;
	char a[32];

	if (!n)
		return;
	outf(h, "<div class=\"table-wrap\"><table class=\"matrix\" id=\"p%zu-matrix\">\n"
	     "<caption>Projected total time (all launches) of the %zu longest kernels on every "
	     "target, with the binding resource</caption>\n<thead><tr><th>Target GPU</th>", pi, n);
	for (o = 0; o < n; o++)
		outf(h, "<th class=\"num\">#%zu</th>", o + 1);
	out(h, "<th class=\"num\">Whole run</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < doc->n_targets; i++) {
		const struct gpuproj_report_rank *r = &dp->ranking[i];
		size_t t = doc_target_index(doc, r->target);

		outf(h, "<tr%s><th scope=\"row\">", r->is_source ? " class=\"source\"" : "");
		oute(h, r->target->name);
		out(h, "</th>");
		for (o = 0; o < n; o++) {
			size_t k = dp->order[o];
			const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);
			const struct doc_kproj *kp = doc_kp(doc, dp, t, k);
			double tot;

			if (kp->status != GPUPROJ_OK) {
				out(h, "<td class=\"num\">not projected</td>");
				continue;
			}
			tot = kp->point_ns * (double)(kr->launches ? kr->launches : 1);
			outf(h, "<td class=\"num\" data-ns=\"%.17g\">%s <span class=\"small\">%s"
			     "</span></td>", tot, format_ns(tot, a, sizeof(a)),
			     gpuproj_bound_name(kp->binding));
		}
		td_ns(h, r->point_ns);
		out(h, "</tr>\n");
	}
	out(h, "</tbody></table></div>\n<p class=\"note\">Columns: ");
	for (o = 0; o < n; o++) {
		char buf[200];

		doc_short_name(gpuproj_profile_at(dp->profile, dp->order[o]), 60, buf, sizeof(buf));
		outf(h, "%s#%zu <code class=\"kernel\">", o ? "; " : "", o + 1);
		oute(h, buf);
		out(h, "</code>");
	}
	out(h, ".</p>\n");
}

/* Draw one chart into the page (or a note where it cannot be drawn). */
static void
html_chart(struct html *h, int r, char *svg, const char *why, const char *id,
	   const char *caption_html)
{
	h->chart_done++;
	progress(h->doc, "charts", h->chart_done, h->chart_total);
	if (r == GPUPROJ_E_INVAL) {
		/* Nothing drawable: not an error, the page says why. */
		outf(h, "<p class=\"note\">No chart: %s.</p>\n", why);
		return;
	}
	if (r) {
		if (!h->status) {
			h->status = r;
			error_set(h->err, r, NULL, 0, 0, "cannot draw chart %s: %s", id, why);
		}
		return;
	}
	outf(h, "<figure class=\"chart\" id=\"fig-%s\">\n", id);
	out(h, svg);
	outf(h, "\n<figcaption id=\"%s-caption\">%s</figcaption>\n</figure>\n", id, caption_html);
}

static double
gflops_of(const struct gpuproj_hroof *x, int l)
{
	return x->valid[l] ? x->bw_ceil[l] / 1e9 : NAN;
}

/* Seed 000 Fig. 2: source and target hierarchical rooflines of one kernel. */
static void
html_roofline(struct html *h, const struct doc_profile *dp, size_t pi, size_t rank,
	      const struct gpuproj_target *tgt)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t k = dp->order[rank];
	const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);
	const struct gpuproj_model *hroof = gpuproj_model_find("hroof");
	struct gpuproj_hroof hs, ht;
	struct gpuproj_projection pr;
	struct chart_roofline c = { 0 };
	char why[512] = "", id[64], name[400], t0[40], t1[40], sp[40], *svg = NULL;
	char title0[200], title1[200];
	struct strbuf cap;
	double mean = gpuproj_kernel_mean_ns(kr);
	int l, r;

	snprintf(id, sizeof(id), "p%zu-roofline-%zu", pi, rank + 1);
	doc_short_name(kr, 100, name, sizeof(name));
	strbuf_init(&cap);
	outf(h, "<h4>#%zu <code class=\"kernel\">", rank + 1);
	oute(h, name);
	out(h, "</code></h4>\n");

	if (isnan(mean) || gpuproj_hroof_ceilings(kr, dp->src, 1.0, &hs, why, sizeof(why))) {
		h->chart_done++;
		progress(doc, "charts", h->chart_done, h->chart_total);
		out(h, "<p class=\"note\">No roofline: ");
		oute(h, isnan(mean) ? "the kernel has no timed launch" : why);
		out(h, ".</p>\n");
		return;
	}
	if (!(hs.flop > 0)) {
		h->chart_done++;
		progress(doc, "charts", h->chart_done, h->chart_total);
		out(h, "<p class=\"note\">No roofline: the kernel does no floating-point work (a "
		    "copy or fill), so a FLOP roofline does not apply; hroof projects its time by "
		    "the ratio of the bandwidth ceilings (seed 000, FLOP = 0 case).</p>\n");
		return;
	}
	c.n_panels = 1;
	c.panel[0].title = NULL;
	for (l = 0; l < CHART_LEVELS; l++) {
		c.panel[0].peak_bw_gbs[l] = dp->src->bw_gbs[l];
		c.panel[0].bw_ceil_gbs[l] = gflops_of(&hs, l);
		c.panel[0].oi[l] = hs.valid[l] ? hs.oi[l] : NAN;
		c.panel[0].perf_gflops[l] = hs.valid[l] ? hs.flop / mean : NAN;
	}
	c.panel[0].peak_gflops = hs.perf_mix / 1e9;
	c.panel[0].perf_ceil_gflops = hs.perf_ceil / 1e9;
	snprintf(title0, sizeof(title0), "Source: %s (measured)", dp->src->name);
	c.panel[0].title = title0;
	pr.status = GPUPROJ_E_INVAL;
	if (tgt && hroof &&
	    gpuproj_model_project(hroof, kr, dp->src, tgt, NULL, &pr) == GPUPROJ_OK &&
	    gpuproj_hroof_ceilings(kr, tgt, pr.flop_ratio, &ht, NULL, 0) == GPUPROJ_OK) {
		struct chart_roofline_panel *q = &c.panel[1];

		snprintf(title1, sizeof(title1), "Target: %s (projected)", tgt->name);
		q->title = title1;
		for (l = 0; l < CHART_LEVELS; l++) {
			q->peak_bw_gbs[l] = tgt->bw_gbs[l];
			q->bw_ceil_gbs[l] = gflops_of(&ht, l);
			q->oi[l] = ht.valid[l] ? ht.oi[l] : NAN;
			q->perf_gflops[l] = isfinite(pr.level_ns[l]) && pr.level_ns[l] > 0 ?
					    ht.flop / pr.level_ns[l] : NAN;
		}
		q->peak_gflops = ht.perf_mix / 1e9;
		q->perf_ceil_gflops = ht.perf_ceil / 1e9;
		q->has_interval = pr.lo_ns > 0 && pr.hi_ns > 0;
		q->interval_lo_gflops = ht.flop / pr.hi_ns;
		q->interval_hi_gflops = ht.flop / pr.lo_ns;
		c.n_panels = 2;
	}
	r = chart_roofline(&c, id, &svg, why, sizeof(why));
	strbuf_printf(&cap, "Hierarchical roofline with the kernel's ceilings (seed 000, Fig. 2): "
		      "Perf<sup>ceil</sup> (eq. 3) and BW<sup>ceil</sup> of L1, L2 and DRAM "
		      "(eqs. 6–8) on ");
	esc(&cap, dp->src->name);
	strbuf_printf(&cap, ", where the kernel was measured at %s per launch (its operational "
		      "intensities, eq. 10, are the three markers)",
		      format_ns(mean, t0, sizeof(t0)));
	if (c.n_panels == 2) {
		strbuf_append(&cap, ", and on ");
		esc(&cap, tgt->name);
		strbuf_printf(&cap, ", where hroof projects each level with eq. 9: the blue band "
			      "is the interval %s – %s per launch (%s speedup at the midpoint)",
			      format_ns(pr.lo_ns, t0, sizeof(t0)),
			      format_ns(pr.hi_ns, t1, sizeof(t1)),
			      doc_fmt_speedup(mean / pr.point_ns, sp, sizeof(sp)));
	}
	strbuf_append(&cap, ". Dashed grey: the GPUs' rooflines at peak FLOP/s (for this kernel's "
		      "instruction mix) and bandwidths. Both axes logarithmic.");
	if (doc->model != hroof)
		strbuf_append(&cap, " (The report's model is not hroof; this chart shows hroof's "
			      "view of the kernel.)");
	html_chart(h, r, svg, why, id, cap.buf ? cap.buf : "");
	free(svg);
	strbuf_free(&cap);
}

static const char *
prec_label(enum gpuproj_prec p)
{
	switch (p) {
	case GPUPROJ_FP16: return "FP16";
	case GPUPROJ_FP32: return "FP32";
	case GPUPROJ_FP64: return "FP64";
	case GPUPROJ_PREC_COUNT: break;
	}
	return "FP32";
}

/* Seed 003 §2.1: devices as points, kernels as rays of slope OI. */
static void
html_quadrant(struct html *h, const struct doc_profile *dp, size_t pi)
{
	const struct gpuproj_report_doc *doc = h->doc;
	struct chart_device *dev = calloc(doc->n_targets + 1, sizeof(*dev));
	bool *labelled = calloc(doc->n_targets + 1, sizeof(*labelled));
	struct chart_ray rays[CHART_KERNELS];
	char labels[CHART_KERNELS][200], ylab[96], id[48], why[512] = "", *svg = NULL;
	size_t t, o, n_rays = 0, f, n_unlab = 0;
	struct strbuf cap;
	int r;

	snprintf(id, sizeof(id), "p%zu-quadrant", pi);
	if (!dev || !labelled) {
		free(dev);
		free(labelled);
		h->sb.oom = true;
		return;
	}
	for (t = 0; t < doc->n_targets; t++) {
		const struct gpuproj_target *tg = doc->targets[t];

		dev[t].name = tg->name;
		dev[t].bw_gbs = tg->bw_gbs[GPUPROJ_LEVEL_DRAM];
		dev[t].gflops = gpuproj_target_gflops(tg, dp->prec, GPUPROJ_OP_FMA, NULL);
		dev[t].style = tg == dp->src ? CHART_DEVICE_SOURCE : CHART_DEVICE_OTHER;
		/* Names placed first: the source, the featured targets by rank, the rest. */
		dev[t].label_rank = tg == dp->src ? 0 : (int)(doc->n_featured + 1 + t);
		for (f = 0; f < doc->n_featured; f++) {
			if (doc->featured[f] == tg && tg != dp->src) {
				dev[t].style = CHART_DEVICE_FEATURED;
				dev[t].label_rank = (int)f + 1;
			}
		}
	}
	for (o = 0; o < dp->n_kernels && n_rays < CHART_KERNELS; o++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, dp->order[o]);
		struct gpuproj_hroof hs;
		char name[140];

		if (gpuproj_hroof_ceilings(kr, dp->src, 1.0, &hs, NULL, 0) || !(hs.flop > 0) ||
		    !hs.valid[GPUPROJ_HL_DRAM])
			continue;
		doc_chart_label(kr, 0, CHART_NAME_CHARS, name, sizeof(name));
		snprintf(labels[n_rays], sizeof(labels[n_rays]), "#%zu (OI %.2g) %s", o + 1,
			 hs.oi[GPUPROJ_HL_DRAM], name);
		rays[n_rays].label = labels[n_rays];
		rays[n_rays].oi = hs.oi[GPUPROJ_HL_DRAM];
		n_rays++;
	}
	snprintf(ylab, sizeof(ylab), "%s FMA throughput (GFLOP/s)", prec_label(dp->prec));
	{
		struct chart_quadrant q = { ylab, dev, doc->n_targets, rays, n_rays };

		r = chart_quadrant(&q, id, &svg, labelled, why, sizeof(why));
	}
	strbuf_init(&cap);
	strbuf_printf(&cap, "Quadrant split (seed 003 §2.1): each GPU is a point (DRAM bandwidth "
		      "of targets.yaml, %s FMA throughput, measured where available: the "
		      "precision with the most FLOP in this profile); each kernel is a ray through "
		      "the origin whose slope is its DRAM operational intensity (FLOP/byte, after "
		      "each kernel's number in the legend). GPUs above a kernel's ray are "
		      "memory-bound for it, "
		      "GPUs below compute-bound. Rays: the %zu longest kernels with floating-point "
		      "work and DRAM traffic.", prec_label(dp->prec), n_rays);
	for (t = 0; t < doc->n_targets; t++)
		n_unlab += !labelled[t];
	if (r == GPUPROJ_OK && n_unlab) {
		bool first = true;

		strbuf_printf(&cap, " Not labelled (their names would overlap): ");
		for (t = 0; t < doc->n_targets; t++) {
			if (labelled[t])
				continue;
			strbuf_append(&cap, first ? "" : ", ");
			esc(&cap, dev[t].name);
			first = false;
		}
		strbuf_append(&cap, ".");
	}
	if (!n_rays)
		strbuf_append(&cap, " No kernel has both FLOP and DRAM traffic, so no ray is drawn.");
	html_chart(h, r, svg, why, id, cap.buf ? cap.buf : "");
	strbuf_free(&cap);
	free(svg);
	free(dev);
	free(labelled);
}

static double
peak_gips(const struct gpuproj_target *t)
{
	return (double)t->sms * t->schedulers_per_sm * t->ipc_per_scheduler * t->clock_mhz / 1e3;
}

/* Seed 004: instruction roofline of the source (and the best target). */
static void
html_irm(struct html *h, const struct doc_profile *dp, size_t pi, const struct gpuproj_target *tgt)
{
	static const enum gpuproj_metric sec[CHART_LEVELS] = {
		GPUPROJ_M_SECTORS_L1, GPUPROJ_M_SECTORS_L2, GPUPROJ_M_SECTORS_DRAM,
	};
	static const enum gpuproj_metric byt[CHART_LEVELS] = {
		GPUPROJ_M_BYTES_L1, GPUPROJ_M_BYTES_L2, GPUPROJ_M_BYTES_DRAM,
	};
	struct chart_irm c = { 0 };
	struct chart_irm_kernel ks[CHART_KERNELS];
	char labels[CHART_KERNELS][160], id[48], why[512] = "", *svg = NULL;
	size_t o, n = 0, n_no_inst = 0;
	bool derived = false;
	struct strbuf cap;
	int l, r;

	snprintf(id, sizeof(id), "p%zu-irm", pi);
	c.gpu[0].name = dp->src->name;
	c.gpu[0].peak_gips = peak_gips(dp->src);
	for (l = 0; l < CHART_LEVELS; l++)
		c.gpu[0].gtxn[l] = dp->src->bw_gbs[l] / 32.0;
	c.n_gpus = 1;
	if (tgt && tgt != dp->src) {
		c.gpu[1].name = tgt->name;
		c.gpu[1].peak_gips = peak_gips(tgt);
		for (l = 0; l < CHART_LEVELS; l++)
			c.gpu[1].gtxn[l] = tgt->bw_gbs[l] / 32.0;
		c.n_gpus = 2;
	}
	for (o = 0; o < dp->n_kernels && n < CHART_KERNELS; o++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, dp->order[o]);
		double inst = gpuproj_kernel_metric(kr, GPUPROJ_M_INST_WARP);
		double mean = gpuproj_kernel_mean_ns(kr);
		bool any = false;

		if (!(isfinite(inst) && inst > 0) || !(mean > 0)) {
			n_no_inst += kr->launches > 0;
			continue;
		}
		ks[n].gips = inst / mean; /* warp instructions per ns = G/s */
		for (l = 0; l < CHART_LEVELS; l++) {
			double s = gpuproj_kernel_metric(kr, sec[l]);

			if (!(isfinite(s) && s > 0)) {
				double b = gpuproj_kernel_metric(kr, byt[l]);

				s = isfinite(b) && b > 0 ? b / 32.0 : NAN;
				derived |= !isnan(s);
			}
			ks[n].intensity[l] = isfinite(s) && s > 0 ? inst / s : NAN;
			any |= !isnan(ks[n].intensity[l]);
		}
		if (!any)
			continue;
		doc_chart_label(kr, o + 1, CHART_NAME_CHARS, labels[n], sizeof(labels[n]));
		ks[n].label = labels[n];
		n++;
	}
	c.kernels = ks;
	c.n_kernels = n;
	r = chart_irm(&c, id, &svg, why, sizeof(why));
	strbuf_init(&cap);
	strbuf_printf(&cap, "Instruction roofline (seed 004, after Ding and Williams): warp "
		      "instructions per second against warp instructions per 32-byte transaction "
		      "at L1, L2 and DRAM. Peak GIPS = SMs × schedulers per SM × IPC × clock (");
	esc(&cap, dp->src->name);
	strbuf_printf(&cap, ": %.4g GIPS", c.gpu[0].peak_gips);
	if (c.n_gpus == 2) {
		strbuf_append(&cap, "; ");
		esc(&cap, tgt->name);
		strbuf_printf(&cap, ": %.4g GIPS, dashed", c.gpu[1].peak_gips);
	}
	strbuf_append(&cap, "); memory ceilings = bandwidth / 32 B. Points: the longest kernels as "
		      "measured on the source.");
	if (derived)
		strbuf_append(&cap, " Where a profile has no sector counts, transactions are "
			      "derived as bytes / 32.");
	if (!n)
		strbuf_append(&cap, " No kernel in this profile has the executed warp instruction "
			      "count (inst.warp), so only the ceilings are drawn.");
	else if (n_no_inst)
		strbuf_printf(&cap, " %zu other kernels lack inst.warp and are not drawn.",
			      n_no_inst);
	html_chart(h, r, svg, why, id, cap.buf ? cap.buf : "");
	strbuf_free(&cap);
	free(svg);
}

static void
html_disagreement(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t p, i, m, t;
	char a[32];

	out(h, "<section id=\"disagreement\">\n<h2>Where models disagree</h2>\n");
	if (doc->n_models < 2) {
		out(h, "<p>Only one projection model (");
		oute(h, gpuproj_model_name(doc->model));
		outf(h, ") is registered in this build of gpuproj, so there is nothing to compare. "
		     "With several models, this section lists the kernels whose point estimates "
		     "differ by more than a factor of %.0f between models on some target: models "
		     "with published errors of 10–20 %% cannot both be right there, so such a "
		     "kernel deserves a measurement before a decision rests on it.</p>\n",
		     GPUPROJ_MODEL_DISAGREEMENT_FACTOR);
		out(h, "</section>\n");
		return;
	}
	out(h, "<p>Every registered model projected every kernel onto every target: ");
	for (m = 0; m < doc->n_models; m++) {
		outf(h, "%s<strong>", m ? ", " : "");
		oute(h, gpuproj_model_name(doc->models[m]));
		out(h, "</strong> (");
		oute(h, gpuproj_model_summary(doc->models[m]));
		out(h, ")");
	}
	outf(h, ". A kernel is flagged where the slowest point estimate is more than %.0f× the "
	     "fastest on some target: with published errors of 10–20 %% the models cannot both "
	     "be right there, and on gpuproj's validation data the default model's large "
	     "errors are much more frequent on flagged kernels than on the others. Measure "
	     "them before a decision rests on them.</p>\n", GPUPROJ_MODEL_DISAGREEMENT_FACTOR);
	if (!doc->n_disagreements)
		out(h, "<p><strong>No kernel is flagged</strong>: the models agree within the "
		    "factor on every kernel and target.</p>\n");
	for (p = 0; p < doc->n_profiles; p++) {
		const struct doc_profile *dp = &doc->profiles[p];

		if (!dp->n_dis)
			continue;
		out(h, "<div class=\"table-wrap\"><table class=\"disagree\"><caption>");
		oute(h, dp->label);
		outf(h, ": %zu kernels flagged</caption>\n<thead><tr><th>Kernel</th>"
		     "<th class=\"num\">Targets flagged</th><th>Largest disagreement on</th>"
		     "<th class=\"num\">Factor</th>", dp->n_dis);
		for (m = 0; m < doc->n_models; m++) {
			out(h, "<th class=\"num\">");
			oute(h, gpuproj_model_name(doc->models[m]));
			out(h, " per launch</th>");
		}
		out(h, "</tr></thead>\n<tbody>\n");
		for (i = 0; i < dp->n_dis; i++) {
			const struct doc_disagreement *d = &dp->dis[i];

			out(h, "<tr><td class=\"kname\">");
			html_kernel_cell(h, gpuproj_profile_at(dp->profile, d->kernel), false);
			outf(h, "</td><td class=\"num\">%zu of %zu</td><td>", d->n_flagged,
			     doc->n_targets);
			oute(h, doc->targets[d->worst_target]->name);
			outf(h, "</td><td class=\"num\">%.2f×</td>", d->worst_factor);
			for (m = 0; m < doc->n_models; m++)
				td_ns(h, d->point_ns[m]);
			out(h, "</tr>\n");
		}
		out(h, "</tbody></table></div>\n");
	}
	/* Whole-run totals per model, combined over the profiles. */
	out(h, "<div class=\"table-wrap\"><table class=\"per-model\"><caption>Projected whole-run "
	    "GPU time per model (sum over profiles; kernels a model cannot project carried at "
	    "their source time)</caption>\n<thead><tr><th>Target GPU</th>");
	for (m = 0; m < doc->n_models; m++) {
		out(h, "<th class=\"num\">");
		oute(h, gpuproj_model_name(doc->models[m]));
		out(h, "</th>");
	}
	out(h, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < doc->n_targets; i++) {
		const struct gpuproj_target *tg = doc->combined[i].target;

		t = doc_target_index(doc, tg);
		out(h, "<tr><th scope=\"row\">");
		oute(h, tg->name);
		out(h, "</th>");
		for (m = 0; m < doc->n_models; m++) {
			double sum = 0;
			size_t unp = 0;

			for (p = 0; p < doc->n_profiles; p++) {
				sum += doc->profiles[p].model_point_ns[m * doc->n_targets + t];
				unp += doc->profiles[p].model_unprojected[m * doc->n_targets + t];
			}
			outf(h, "<td class=\"num\" data-ns=\"%.17g\">%s", sum,
			     format_ns(sum, a, sizeof(a)));
			if (unp)
				outf(h, " <span class=\"small\">(%zu carried)</span>", unp);
			out(h, "</td>");
		}
		out(h, "</tr>\n");
	}
	out(h, "</tbody></table></div>\n</section>\n");
}

static void
html_assumptions(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t i;

	out(h, "<section id=\"assumptions\">\n<h2>Assumptions and limits</h2>\n"
	    "<ul class=\"assume\">\n");
	for (i = 0; i < doc->n_models; i++) {
		out(h, "<li>Model <strong>");
		oute(h, gpuproj_model_name(doc->models[i]));
		out(h, "</strong>: ");
		oute(h, gpuproj_model_summary(doc->models[i]));
		out(h, i == 0 ? " (used for the rankings, tables and charts).</li>\n" : ".</li>\n");
	}
	out(h, "<li>");
	oute(h, doc_traffic_assumption());
	out(h, "</li>\n");
	for (i = 0; i < doc_n_assumptions; i++) {
		out(h, "<li>");
		oute(h, doc_assumptions[i]);
		out(h, "</li>\n");
	}
	if (doc->mixed_sources)
		out(h, "<li>The profiles were measured on different GPUs; the combined speedup "
		    "compares the sum of their measured times with the sum of the "
		    "projections.</li>\n");
	out(h, "<li>Price and TDP are shown only where targets.yaml gives them; elsewhere the "
	    "report says \"unknown\" rather than guessing.</li>\n</ul>\n</section>\n");
}

static void
html_sources(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t i, j;
	const char *key, *text;

	out(h, "<section id=\"sources\">\n<h2>Sources of the target numbers</h2>\n<p>Every "
	    "number of every target shown comes from targets.yaml");
	if (doc->opt.targets_origin) {
		out(h, " (");
		oute(h, doc->opt.targets_origin);
		out(h, ")");
	}
	out(h, ", where each carries a source and its basis: <em>measured</em> (a benchmark "
	    "result), <em>datasheet</em> (vendor documents), <em>derived</em> (computed from "
	    "other cited numbers) or <em>estimate</em> (an assumption, no measurement found). "
	    "A source named for a group (e.g. <code>bw_gbs</code>) covers every key in it "
	    "unless a key has its own.</p>\n");
	for (i = 0; i < doc->n_targets; i++) {
		const struct gpuproj_target *t = doc->combined[i].target;

		out(h, "<div class=\"table-wrap\"><table class=\"sources\"><caption>");
		oute(h, t->name);
		if (t->description) {
			out(h, " — ");
			oute(h, t->description);
		}
		out(h, "</caption>\n<thead><tr><th>Number</th><th>Basis</th><th>Source</th></tr>"
		    "</thead>\n<tbody>\n");
		for (j = 0; j < t->n_sources; j++) {
			out(h, "<tr><td><code>");
			oute(h, t->sources[j].path);
			outf(h, "</code></td><td>%s</td><td>",
			     gpuproj_basis_name(t->sources[j].basis));
			oute(h, t->sources[j].text);
			out(h, "</td></tr>\n");
		}
		if (!t->n_sources)
			out(h, "<tr><td colspan=\"3\">no sources given</td></tr>\n");
		out(h, "</tbody></table></div>\n");
	}
	out(h, "<h3>References</h3>\n<dl class=\"refs\">\n");
	for (i = 0; (key = gpuproj_targets_reference_at(doc->set, i, &text)); i++) {
		out(h, "<dt>[");
		oute(h, key);
		out(h, "]</dt><dd>");
		oute(h, text);
		out(h, "</dd>\n");
	}
	out(h, "</dl>\n</section>\n");
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

static size_t
chart_rooflines(const struct gpuproj_report_doc *doc, const struct doc_profile *dp)
{
	return dp->n_kernels < doc->opt.top_kernels ? dp->n_kernels : doc->opt.top_kernels;
}

static void
html_profile(struct html *h, size_t pi)
{
	const struct gpuproj_report_doc *doc = h->doc;
	const struct doc_profile *dp = &doc->profiles[pi];
	const struct gpuproj_target *tgt = chart_target(doc, dp);
	size_t i, n_roof = chart_rooflines(doc, dp);

	outf(h, "<section class=\"profile\" id=\"profile-%zu\">\n<h2>", pi + 1);
	if (doc->n_profiles > 1)
		outf(h, "Profile %zu: ", pi + 1);
	else
		out(h, "Kernels of ");
	oute(h, dp->label);
	out(h, "</h2>\n");
	if (doc->n_profiles > 1) {
		out(h, "<h3>The run</h3>\n");
		html_run_details(h, dp);
		char id[48], *cap = xasprintf("%s: projected whole-run GPU time", dp->label);

		snprintf(id, sizeof(id), "ranking-p%zu", pi + 1);
		out(h, "<h3>Ranking for this profile</h3>\n");
		html_ranking(h, dp->ranking, doc->n_targets, id, cap ? cap : "");
		free(cap);
	}
	if (!dp->n_kernels) {
		out(h, "<p class=\"warn\">This profile has no kernels.</p>\n</section>\n");
		return;
	}
	out(h, "<h3>Per kernel</h3>\n");
	html_kernels(h, dp, pi + 1);
	html_matrix(h, dp, pi + 1);

	if (doc->opt.no_charts) {
		out(h, "<p class=\"note\">Charts were left out of this report (--no-charts).</p>\n");
	} else if (pi >= doc->opt.chart_profiles) {
		outf(h, "<p class=\"note\">Charts are drawn for the first %zu profiles only.</p>\n",
		     doc->opt.chart_profiles);
	} else {
		outf(h, "<h3>Hierarchical roofline of the %zu longest kernels</h3>\n", n_roof);
		for (i = 0; i < n_roof; i++)
			html_roofline(h, dp, pi + 1, i, tgt);
		out(h, "<h3>Quadrant split of the targets</h3>\n");
		html_quadrant(h, dp, pi + 1);
		out(h, "<h3>Instruction roofline</h3>\n");
		html_irm(h, dp, pi + 1, tgt);
	}
	out(h, "</section>\n");
}

static void
html_summed(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;

	out(h, "<p>");
	if (doc->n_profiles > 1)
		outf(h, "Each of the %zu profiles was projected separately onto every target with "
		     "<strong>%s</strong>. This ranking <strong>sums over the profiles</strong>, "
		     "per target: the projected whole-run GPU kernel times, the interval ends and "
		     "the measured kernel times on the source GPU%s. ", doc->n_profiles,
		     gpuproj_model_name(doc->model), doc->mixed_sources ? "s" : "");
	else
		outf(h, "The profile was projected onto every target with <strong>%s</strong>. ",
		     gpuproj_model_name(doc->model));
	out(h, "A profile's projected whole-run GPU time is the sum over its kernels of the "
	    "point estimate per launch × launches, plus the measured time of the kernels that "
	    "cannot be projected (carried unchanged, counted in the last column). Speedup = "
	    "measured kernel time on the source ÷ projected time. Time × price and energy "
	    "(projected time × TDP, an upper bound: board power at full load) are shown where "
	    "targets.yaml gives a price or a TDP, \"unknown\" elsewhere.</p>\n");
}

int
gpuproj_report_doc_html(const struct gpuproj_report_doc *doc, char **ret_text, size_t *ret_len,
			struct gpuproj_error *reterr)
{
	struct html h = { 0 };
	char app[256];
	size_t i;
	char a[32];

	if (!doc || !ret_text)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	strbuf_init(&h.sb);
	h.doc = doc;
	h.err = reterr;
	if (!doc->opt.no_charts) {
		for (i = 0; i < doc->n_profiles && i < doc->opt.chart_profiles; i++) {
			if (doc->profiles[i].n_kernels)
				h.chart_total += chart_rooflines(doc, &doc->profiles[i]) + 2;
		}
	}
	doc_applications(doc, app, sizeof(app));

	out(&h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
	outf(&h, "<meta name=\"generator\" content=\"gpuproj %s\">\n<title>Projected GPU time: ",
	     GPUPROJ_VERSION);
	oute(&h, app);
	out(&h, "</title>\n<style>\n");
	out(&h, css);
	out(&h, "</style>\n</head>\n<body>\n<header>\n<h1>Projected GPU time of ");
	oute(&h, app);
	if (doc->n_profiles > 1)
		outf(&h, " (%zu profiles)", doc->n_profiles);
	out(&h, "</h1>\n<p class=\"meta\">");
	outf(&h, "gpuproj %s · report of ", GPUPROJ_VERSION);
	oute(&h, doc->date);
	out(&h, " · model ");
	oute(&h, gpuproj_model_name(doc->model));
	outf(&h, " · %zu target GPUs</p>\n</header>\n", doc->n_targets);
	out(&h, "<nav aria-label=\"Contents\"><ol>\n<li><a href=\"#run\">The run</a></li>\n"
	    "<li><a href=\"#ranking\">Ranking of target GPUs</a></li>\n");
	for (i = 0; i < doc->n_profiles; i++) {
		outf(&h, "<li><a href=\"#profile-%zu\">%s", i + 1,
		     doc->n_profiles > 1 ? "Profile: " : "Kernels of ");
		oute(&h, doc->profiles[i].label);
		out(&h, "</a></li>\n");
	}
	out(&h, "<li><a href=\"#disagreement\">Where models disagree</a></li>\n"
	    "<li><a href=\"#assumptions\">Assumptions and limits</a></li>\n"
	    "<li><a href=\"#sources\">Sources of the target numbers</a></li>\n</ol></nav>\n<main>\n");

	/* The run. */
	out(&h, "<section id=\"run\">\n<h2>The run</h2>\n<table class=\"report-meta\"><tbody>\n");
	outf(&h, "<tr><th scope=\"row\">Report</th><td>gpuproj %s, ", GPUPROJ_VERSION);
	oute(&h, doc->date);
	out(&h, "</td></tr>\n<tr><th scope=\"row\">Model</th><td><strong>");
	oute(&h, gpuproj_model_name(doc->model));
	out(&h, "</strong>: ");
	oute(&h, gpuproj_model_summary(doc->model));
	outf(&h, "</td></tr>\n<tr><th scope=\"row\">Targets</th><td>%zu GPUs", doc->n_targets);
	if (doc->opt.targets_origin) {
		out(&h, " from ");
		oute(&h, doc->opt.targets_origin);
	}
	outf(&h, "</td></tr>\n<tr><th scope=\"row\">Profiles</th><td>%zu</td></tr>\n"
	     "</tbody></table>\n", doc->n_profiles);
	if (doc->n_profiles == 1) {
		out(&h, "<h3>");
		oute(&h, doc->profiles[0].label);
		out(&h, "</h3>\n");
		html_run_details(&h, &doc->profiles[0]);
	} else {
		out(&h, "<div class=\"table-wrap\"><table class=\"profiles\"><caption>The profiles"
		    "</caption>\n<thead><tr><th class=\"num\">#</th><th>Profile</th>"
		    "<th>Application</th><th class=\"num\">Rank</th><th>Host</th><th>Source GPU</th>"
		    "<th class=\"num\">Kernels</th><th class=\"num\">Launches</th>"
		    "<th class=\"num\">Profiled launches</th><th class=\"num\">Timed only</th>"
		    "<th class=\"num\">Kernel time</th></tr></thead>\n<tbody>\n");
		for (i = 0; i < doc->n_profiles; i++) {
			const struct doc_profile *dp = &doc->profiles[i];
			const struct gpuproj_process_info *pi = gpuproj_profile_process(dp->profile);

			outf(&h, "<tr><td class=\"num\">%zu</td><td><a href=\"#profile-%zu\">", i + 1,
			     i + 1);
			oute(&h, dp->label);
			out(&h, "</a></td><td>");
			oute(&h, doc_application(dp->profile));
			if (pi->rank >= 0)
				outf(&h, "</td><td class=\"num\">%" PRId64 "</td><td>", pi->rank);
			else
				out(&h, "</td><td class=\"num\">–</td><td>");
			oute(&h, pi->host ? pi->host : "–");
			out(&h, "</td><td>");
			oute(&h, dp->src->name);
			outf(&h, "</td><td class=\"num\">%zu</td><td class=\"num\">%" PRIu64 "</td>"
			     "<td class=\"num\">%" PRIu64 "</td><td class=\"num\">%zu</td>",
			     dp->n_kernels, dp->launches, dp->profiled, dp->n_timed_only);
			td_ns(&h, dp->kernel_ns);
			out(&h, "</tr>\n");
		}
		out(&h, "</tbody></table></div>\n");
	}
	out(&h, "</section>\n");

	/* The combined ranking. */
	out(&h, "<section id=\"ranking\">\n<h2>Ranking of target GPUs</h2>\n");
	html_summed(&h);
	html_ranking(&h, doc->combined, doc->n_targets, "ranking-combined",
		     doc->n_profiles > 1 ? "All profiles: projected whole-run GPU time, summed"
					 : "Projected whole-run GPU time");
	if (doc->combined[0].point_ns > 0) {
		outf(&h, "<p class=\"note\">Fastest: <strong>");
		oute(&h, doc->combined[0].target->name);
		outf(&h, "</strong>, %s projected GPU time", format_ns(doc->combined[0].point_ns, a,
								      sizeof(a)));
		if (isfinite(doc->combined[0].speedup))
			outf(&h, ", %.2f× the source", doc->combined[0].speedup);
		out(&h, ".</p>\n");
	}
	out(&h, "</section>\n");

	for (i = 0; i < doc->n_profiles; i++)
		html_profile(&h, i);
	html_disagreement(&h);
	html_assumptions(&h);
	html_sources(&h);
	out(&h, "</main>\n<footer><p class=\"note\">Written by gpuproj ");
	out(&h, GPUPROJ_VERSION);
	out(&h, ". Self-contained: no scripts, no external resources.</p></footer>\n"
	    "</body>\n</html>\n");
	progress(doc, "charts", h.chart_total, h.chart_total);

	if (h.status) {
		strbuf_free(&h.sb);
		return h.status;
	}
	if (h.sb.oom) {
		strbuf_free(&h.sb);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	if (ret_len)
		*ret_len = h.sb.len;
	*ret_text = strbuf_steal(&h.sb);
	return GPUPROJ_OK;
}

int
gpuproj_report_doc_write(const struct gpuproj_report_doc *doc, const char *html_path,
			 const char *md_path, struct gpuproj_error *reterr)
{
	char *html = NULL, *md = NULL;
	size_t html_len = 0, md_len = 0;
	int r;

	if (!doc || (!html_path && !md_path))
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "no output file named (HTML or Markdown)");
	if (html_path && (r = gpuproj_report_doc_html(doc, &html, &html_len, reterr)))
		goto out;
	if (md_path && (r = gpuproj_report_doc_markdown(doc, &md, &md_len, reterr)))
		goto out;
	if (html_path && (r = file_write_atomic(html_path, html, html_len, reterr)))
		goto out;
	if (md_path && (r = file_write_atomic(md_path, md, md_len, reterr))) {
		if (html_path && reterr) {
			size_t len = strlen(reterr->message);

			snprintf(reterr->message + len, sizeof(reterr->message) - len,
				 " (the HTML report %s was written)", html_path);
		}
		goto out;
	}
	r = GPUPROJ_OK;
out:
	free(html);
	free(md);
	return r;
}
