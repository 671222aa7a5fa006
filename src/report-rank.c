/* SPDX-License-Identifier: MIT */
/*
 * The procurement report's rankings (include/gpuproj/report.h), from the
 * projections report-doc.c made: which kernels count (timed, and projected
 * on some target reported on), which targets are complete (they project
 * every one of those) and are ranked, the totals over the counted kernels
 * only (no carried time), prices (targets.yaml's price_usd, replaced by
 * quotes), cost per job, performance per dollar and per watt, the memory
 * fit, the workload mix, the order of the leading targets, and the texts
 * of the summary that both writers print.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/interval.h>
#include <gpuproj/report.h>

#include "report-doc-private.h"
#include "project-wholerun.h"
#include "util.h"

#define NS_PER_HOUR 3.6e12
/* Names listed in one summary line before "and N more". */
#define SUMMARY_NAMES 3
/* Consecutive leading ranks whose distinctness the report states. */
#define DISTINCT_RANKS 10

/* ---- names and figures as printed (report-fmt.c: the numbers) ---- */

const char *
doc_fit_name(enum gpuproj_report_fit f)
{
	switch (f) {
	case GPUPROJ_REPORT_FIT_YES: return "fits";
	case GPUPROJ_REPORT_FIT_NO: return "does not fit";
	case GPUPROJ_REPORT_FIT_UNKNOWN: break;
	}
	return "unknown";
}

char *
doc_fmt_coverage(const struct gpuproj_report_doc *doc, char *buf, size_t size)
{
	snprintf(buf, size, "%.0f %%", 100 * doc->coverage);
	return buf;
}

double
doc_rank_ns(const struct gpuproj_report_doc *doc, const struct gpuproj_report_rank *r)
{
	return doc->by_wall && r->whole.valid ? r->whole.wall_ns : r->point_ns;
}

bool
doc_ranked(const struct gpuproj_report_doc *doc, const struct gpuproj_report_rank *r)
{
	return doc->by_wall ? r->whole.valid : r->n_projected > 0;
}

/* ---- the order of two targets ---- */

void
gpuproj_report_order_overlap(const struct gpuproj_report_rank *a,
			     const struct gpuproj_report_rank *b, double coverage,
			     struct gpuproj_report_order *ret)
{
	double lo = fmax(a->rel_lo, b->rel_lo), hi = fmin(a->rel_hi, b->rel_hi);
	double ulo = fmin(a->rel_lo, b->rel_lo), uhi = fmax(a->rel_hi, b->rel_hi);

	ret->overlap = hi > lo && uhi > ulo ? (hi - lo) / (uhi - ulo) : 0;
	ret->distinct = !(hi >= lo);
	/*
	 * P(both inside their intervals) ≥ 1 − 2(1 − c) by the union bound;
	 * disjoint intervals then keep the order. Only where the intervals
	 * were fitted on both GPUs: elsewhere their coverage is unmeasured.
	 */
	ret->p_holds = ret->distinct && !a->n_interval_unseen && !b->n_interval_unseen &&
		       coverage > 0.5 ? 2 * coverage - 1 : NAN;
}

/* ---- counted kernels, one row ---- */

int
doc_count_kernels(const struct gpuproj_report_doc *doc, struct doc_profile *dp)
{
	size_t k, t;

	dp->counted = calloc(dp->n_kernels + 1, sizeof(*dp->counted));
	if (!dp->counted)
		return GPUPROJ_E_NOMEM;
	for (k = 0; k < dp->n_kernels; k++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);
		double ns = gpuproj_kernel_total_ns(kr);
		bool assumed = false;

		if (isnan(ns))
			continue;
		for (t = 0; t < doc->n_targets; t++) {
			const struct doc_kproj *kp = doc_kp(doc, dp, t, k);

			if (kp->status == GPUPROJ_OK) {
				dp->counted[k] = true;
				assumed |= kp->assumed;
			}
		}
		if (!dp->counted[k])
			continue;
		dp->n_counted++;
		dp->counted_ns += ns;
		dp->n_assumed += assumed;
	}
	return GPUPROJ_OK;
}

size_t
doc_cannot(const struct gpuproj_report_doc *doc, const struct doc_profile *dp, size_t t)
{
	size_t k, n = 0;

	for (k = 0; k < dp->n_kernels; k++)
		n += dp->counted[k] && doc_kp(doc, dp, t, k)->status != GPUPROJ_OK;
	return n;
}

static enum gpuproj_report_fit
fit_of(double peak_bytes, const struct gpuproj_target *t)
{
	if (isnan(peak_bytes) || isnan(t->memory_gib))
		return GPUPROJ_REPORT_FIT_UNKNOWN;
	return t->memory_gib * BYTES_PER_GIB >= peak_bytes ? GPUPROJ_REPORT_FIT_YES
							   : GPUPROJ_REPORT_FIT_NO;
}

/* Prices, cost per job, performance per dollar and per watt, energy. */
static void
fill_costs(const struct gpuproj_report_doc *doc, struct gpuproj_report_rank *r)
{
	const struct gpuproj_target *t = r->target;
	const struct doc_price *pr = doc_price_of(doc, t);
	double ns = doc_rank_ns(doc, r);

	r->purchase_usd = pr ? pr->purchase_usd : NAN;
	r->hourly_usd = pr ? pr->hourly_usd : NAN;
	r->price_origin = pr && pr->origin[0] ? pr->origin : NULL;
	r->energy_j = r->cost_per_job_usd = r->perf_per_kusd = r->perf_per_kw = NAN;
	if (!r->complete || !doc_ranked(doc, r))
		return;
	if (!isnan(t->tdp_w)) {
		r->energy_j = ns * 1e-9 * t->tdp_w;
		r->perf_per_kw = r->speedup / (t->tdp_w / 1e3);
	}
	/* With weights the "job" is an hour of today's work on the source(s). */
	r->cost_per_job_usd = doc->weighted ? r->hourly_usd * r->rel
					    : r->hourly_usd * ns / NS_PER_HOUR;
	r->perf_per_kusd = r->speedup / (r->purchase_usd / 1e3);
}

/* One profile's row of target t from its kernel projections (totals set by project_profile). */
static void
fill_row(const struct gpuproj_report_doc *doc, const struct doc_profile *dp, size_t t,
	 struct gpuproj_report_rank *row)
{
	double src = 0, key, src_key;
	size_t k;

	row->source_ns = row->point_ns = row->lo_ns = row->hi_ns = 0;
	row->unprojected_source_ns = 0;
	row->n_unprojected = 0;
	for (k = 0; k < dp->n_kernels; k++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);
		const struct doc_kproj *kp = doc_kp(doc, dp, t, k);
		double ns = gpuproj_kernel_total_ns(kr);
		double launches = (double)(kr->launches ? kr->launches : 1);

		if (kp->status != GPUPROJ_OK) {
			row->n_unprojected++;
			row->unprojected_source_ns += isnan(ns) ? 0 : ns;
			continue;
		}
		if (!dp->counted[k])
			continue;
		row->source_ns += ns;
		row->point_ns += kp->point_ns * launches;
		row->lo_ns += kp->lo_ns * launches;
		row->hi_ns += kp->hi_ns * launches;
	}
	row->n_cannot = doc_cannot(doc, dp, t);
	row->complete = row->n_cannot == 0;
	src = row->source_ns;
	row->share = dp->kernel_ns > 0 ? src / dp->kernel_ns : 0;
	if (doc->by_wall && row->whole.valid) {
		key = row->whole.wall_ns;
		src_key = row->whole.source_ns;
		row->rel_lo = src_key > 0 ? row->whole.lo_ns / src_key : NAN;
		row->rel_hi = src_key > 0 ? row->whole.hi_ns / src_key : NAN;
	} else {
		key = row->point_ns;
		src_key = src;
		row->rel_lo = src_key > 0 ? row->lo_ns / src_key : NAN;
		row->rel_hi = src_key > 0 ? row->hi_ns / src_key : NAN;
	}
	row->rel = src_key > 0 && doc_ranked(doc, row) ? key / src_key : NAN;
	row->speedup = key > 0 && doc_ranked(doc, row) ? src_key / key : NAN;
	row->memory_fit = fit_of(dp->peak_bytes, row->target);
}

static int
rank_cmp(const void *a, const void *b)
{
	const struct gpuproj_report_rank *x = a, *y = b;
	bool xn = isnan(x->rel), yn = isnan(y->rel);

	if (x->complete != y->complete)
		return x->complete ? -1 : 1;
	if (x->complete) {
		if (xn != yn)
			return xn ? 1 : -1;
		if (!xn && x->rel != y->rel)
			return x->rel < y->rel ? -1 : 1;
	}
	return strcmp(x->target->name, y->target->name);
}

void
doc_sort_ranking(struct gpuproj_report_rank *rows, size_t n)
{
	qsort(rows, n, sizeof(*rows), rank_cmp);
}

/* ---- prices ---- */

const struct doc_price *
doc_price_of(const struct gpuproj_report_doc *doc, const struct gpuproj_target *t)
{
	size_t i = doc_target_index(doc, t);

	return i < doc->n_targets && doc->price ? &doc->price[i] : NULL;
}

static int
resolve_prices(struct gpuproj_report_doc *doc, struct gpuproj_error *reterr)
{
	static const struct gpuproj_lookup_words words = { .what = "GPU of the price" };
	size_t i, t;

	doc->price = calloc(doc->n_targets + 1, sizeof(*doc->price));
	if (!doc->price)
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	for (t = 0; t < doc->n_targets; t++) {
		struct doc_price *p = &doc->price[t];

		p->purchase_usd = doc->targets[t]->price_usd;
		p->hourly_usd = NAN;
		if (!isnan(p->purchase_usd))
			snprintf(p->origin, sizeof(p->origin), "targets.yaml");
	}
	for (i = 0; i < doc->opt.n_prices; i++) {
		const struct gpuproj_report_price *q = &doc->opt.prices[i];
		const struct gpuproj_target *tg;
		struct doc_price *p;
		struct gpuproj_error e = { 0 };
		char was[sizeof(p->origin)];
		const char *qo;
		int r;

		r = gpuproj_targets_lookup(doc->set, q->name ? q->name : "", &words, &tg, &e);
		if (r)
			return error_set(reterr, r, e.file, e.line, e.column, "%s%s%s",
					 q->origin ? q->origin : "", q->origin ? ": " : "",
					 e.message);
		t = doc_target_index(doc, tg);
		if (t == doc->n_targets)
			continue; /* a GPU not reported on */
		p = &doc->price[t];
		qo = q->origin ? q->origin : "quote";
		snprintf(was, sizeof(was), "%s", p->origin);
		/* Where each of the two prices now comes from. */
		if (!isnan(q->purchase_usd) && !isnan(q->hourly_usd))
			snprintf(p->origin, sizeof(p->origin), "%s", qo);
		else if (!isnan(q->purchase_usd) && !isnan(p->hourly_usd))
			snprintf(p->origin, sizeof(p->origin), "%.90s; hourly: %.90s", qo, was);
		else if (!isnan(q->purchase_usd))
			snprintf(p->origin, sizeof(p->origin), "%s", qo);
		else if (!isnan(p->purchase_usd))
			snprintf(p->origin, sizeof(p->origin), "%.90s; hourly: %.90s", was, qo);
		else
			snprintf(p->origin, sizeof(p->origin), "%s", qo);
		if (!isnan(q->purchase_usd))
			p->purchase_usd = q->purchase_usd;
		if (!isnan(q->hourly_usd))
			p->hourly_usd = q->hourly_usd;
	}
	return GPUPROJ_OK;
}

/* ---- the combined ranking ---- */

static void
combine(struct gpuproj_report_doc *doc, size_t t, struct gpuproj_report_rank *row)
{
	double key = 0, src = 0, lo = 0, hi = 0, kns = 0;
	bool fit_no = false, fit_unknown = false;
	size_t i;
	int a;

	row->target = doc->targets[t];
	row->complete = true;
	row->rel = row->rel_lo = row->rel_hi = 0;
	for (i = 0; i < doc->n_profiles; i++) {
		const struct doc_profile *dp = &doc->profiles[i];
		const struct gpuproj_report_rank *pt = &dp->totals[t];

		row->source_ns += pt->source_ns;
		row->point_ns += pt->point_ns;
		row->lo_ns += pt->lo_ns;
		row->hi_ns += pt->hi_ns;
		row->n_unprojected += pt->n_unprojected;
		row->unprojected_source_ns += pt->unprojected_source_ns;
		row->n_projected += pt->n_projected;
		row->n_coarse += pt->n_coarse;
		row->n_interval_unseen += pt->n_interval_unseen;
		row->n_assumed += pt->n_assumed;
		for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++)
			row->n_assumption[a] += pt->n_assumption[a];
		row->n_cannot += pt->n_cannot;
		row->complete &= pt->complete;
		row->is_source |= pt->is_source;
		whole_run_add(&row->whole, &pt->whole, i == 0);
		kns += dp->kernel_ns;
		fit_no |= pt->memory_fit == GPUPROJ_REPORT_FIT_NO;
		fit_unknown |= pt->memory_fit == GPUPROJ_REPORT_FIT_UNKNOWN;
		if (doc->weighted) {
			row->rel += dp->weight * pt->rel;
			row->rel_lo += dp->weight * pt->rel_lo;
			row->rel_hi += dp->weight * pt->rel_hi;
		}
	}
	row->share = kns > 0 ? row->source_ns / kns : 0;
	row->memory_fit = fit_no ? GPUPROJ_REPORT_FIT_NO :
			  fit_unknown ? GPUPROJ_REPORT_FIT_UNKNOWN : GPUPROJ_REPORT_FIT_YES;
	if (!doc->weighted) {
		if (doc->by_wall && row->whole.valid) {
			key = row->whole.wall_ns;
			src = row->whole.source_ns;
			lo = row->whole.lo_ns;
			hi = row->whole.hi_ns;
		} else {
			key = row->point_ns;
			src = row->source_ns;
			lo = row->lo_ns;
			hi = row->hi_ns;
		}
		row->rel = src > 0 && doc_ranked(doc, row) ? key / src : NAN;
		row->rel_lo = src > 0 ? lo / src : NAN;
		row->rel_hi = src > 0 ? hi / src : NAN;
		row->speedup = key > 0 && doc_ranked(doc, row) ? src / key : NAN;
	} else {
		row->speedup = row->rel > 0 ? 1 / row->rel : NAN;
	}
}

/*
 * The calibrated probability that `a` (ranked first) is faster than `b`
 * (gpuproj_report_order.p_calibrated); NaN when the built-in table has no
 * order group for the model or a relative time is not positive.
 */
static double
calibrated_order(const struct gpuproj_report_doc *doc, const struct gpuproj_report_rank *a,
		 const struct gpuproj_report_rank *b)
{
	const struct gpuproj_model *m = doc->opt.model ? doc->opt.model : gpuproj_model_default();
	struct gpuproj_order o;
	struct gpuproj_error err = { 0 };

	if (!(a->rel > 0) || !(b->rel > 0) || !isfinite(a->rel) || !isfinite(b->rel))
		return NAN;
	if (gpuproj_intervals_order(gpuproj_intervals_builtin(), m, a->rel, GPUPROJ_BOUND_UNKNOWN,
				    b->rel, GPUPROJ_BOUND_UNKNOWN, &o, &err) != GPUPROJ_OK)
		return NAN;
	/* Equal times: a coin (0.5); a ranked first yet slower cannot happen. */
	return o.faster == 1 ? 1 - o.p_holds : o.p_holds;
}

static int
leading_pairs(struct gpuproj_report_doc *doc)
{
	gpuproj_report_order_fn fn = doc->opt.order_fn ? doc->opt.order_fn
						       : gpuproj_report_order_overlap;
	size_t i, j, w = 0;

	doc->n_leading = doc->n_complete < DOC_LEADING ? doc->n_complete : DOC_LEADING;
	doc->pairs = calloc(DOC_LEADING * DOC_LEADING, sizeof(*doc->pairs));
	if (!doc->pairs)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < doc->n_leading; i++) {
		doc->any_unseen |= doc->combined[i].n_interval_unseen > 0;
		for (j = i + 1; j < doc->n_leading; j++) {
			doc->pairs[w].a = i;
			doc->pairs[w].b = j;
			fn(&doc->combined[i], &doc->combined[j], doc->coverage, &doc->pairs[w].o);
			doc->pairs[w].o.p_calibrated =
				calibrated_order(doc, &doc->combined[i], &doc->combined[j]);
			w++;
		}
	}
	doc->n_pairs = w;
	return GPUPROJ_OK;
}

int
doc_rank(struct gpuproj_report_doc *doc, struct gpuproj_error *reterr)
{
	size_t i, t, n_weighted = 0;
	double wsum = 0;
	int r;

	doc->coverage = gpuproj_intervals_coverage(gpuproj_intervals_builtin());
	doc->by_wall = doc->n_targets > 0;
	for (i = 0; i < doc->n_profiles; i++) {
		for (t = 0; t < doc->n_targets; t++)
			doc->by_wall &= doc->profiles[i].totals[t].whole.valid;
		n_weighted += doc->profiles[i].weight > 0;
		wsum += doc->profiles[i].weight;
	}
	doc->weighted = n_weighted > 0;
	for (i = 0; doc->weighted && i < doc->n_profiles; i++)
		doc->profiles[i].weight /= wsum;
	r = resolve_prices(doc, reterr);
	if (r)
		return r;
	for (i = 0; i < doc->n_profiles; i++) {
		struct doc_profile *dp = &doc->profiles[i];

		for (t = 0; t < doc->n_targets; t++) {
			fill_row(doc, dp, t, &dp->totals[t]);
			fill_costs(doc, &dp->totals[t]);
		}
		memcpy(dp->ranking, dp->totals, doc->n_targets * sizeof(*dp->ranking));
		doc_sort_ranking(dp->ranking, doc->n_targets);
	}
	for (t = 0; t < doc->n_targets; t++) {
		combine(doc, t, &doc->combined[t]);
		fill_costs(doc, &doc->combined[t]);
	}
	doc_sort_ranking(doc->combined, doc->n_targets);
	for (t = 0; t < doc->n_targets && doc->combined[t].complete; t++)
		;
	doc->n_complete = t;
	if (leading_pairs(doc))
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	return GPUPROJ_OK;
}

/* ---- the ranking chart ---- */

int
doc_rank_chart(struct gpuproj_report_doc *doc)
{
	size_t i, n = 0, cap = DOC_RANK_CHART_ROWS + doc->n_profiles + 1;
	char cov[32];
	struct chart_intervals *c = calloc(1, sizeof(*c));

	doc->rank_rows = calloc(cap, sizeof(*doc->rank_rows));
	doc->rank_labels = calloc(cap, sizeof(*doc->rank_labels));
	doc->rank_chart = c;
	if (!c || !doc->rank_rows || !doc->rank_labels)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < doc->n_complete && n < cap; i++) {
		const struct gpuproj_report_rank *r = &doc->combined[i];
		struct chart_interval_row *w = &doc->rank_rows[n];
		bool featured = false;
		size_t f;

		if (!doc_ranked(doc, r) || (i >= DOC_RANK_CHART_ROWS && !r->is_source))
			continue;
		for (f = 0; f < doc->n_featured; f++)
			featured |= doc->featured[f] == r->target;
		snprintf(doc->rank_labels[n], sizeof(doc->rank_labels[n]), "%zu %s%s", i + 1,
			 r->target->name, r->is_source ? " (source)" : "");
		w->label = doc->rank_labels[n];
		w->style = r->is_source ? CHART_ROW_SOURCE :
			   featured ? CHART_ROW_FEATURED : CHART_ROW_OTHER;
		if (doc->weighted) {
			w->point = r->rel;
			w->lo = r->rel_lo;
			w->hi = r->rel_hi;
		} else {
			w->point = doc_rank_ns(doc, r);
			w->lo = doc->by_wall ? r->whole.lo_ns : r->lo_ns;
			w->hi = doc->by_wall ? r->whole.hi_ns : r->hi_ns;
		}
		if (r->is_source) {
			/* Measured there: the source's time, no interval. */
			w->point = doc->weighted ? 1 : doc->by_wall ? r->whole.source_ns
								    : r->source_ns;
			w->lo = w->hi = NAN;
		}
		n++;
	}
	snprintf(doc->rank_x_label, sizeof(doc->rank_x_label), "%s",
		 doc->weighted ? "Facility time relative to the source (%)" :
		 doc->by_wall ? "Projected whole-run time (ms)" : "Projected GPU kernel time (ms)");
	snprintf(doc->rank_iv_label, sizeof(doc->rank_iv_label), "interval (nominal %s)",
		 doc_fmt_coverage(doc, cov, sizeof(cov)));
	c->x_label = doc->rank_x_label;
	c->x_scale = doc->weighted ? 0.01 : 1e6;
	c->rows = doc->rank_rows;
	c->n_rows = n;
	c->point_label = "projected (point)";
	c->interval_label = doc->rank_iv_label;
	c->source_label = "source GPU (measured)";
	return GPUPROJ_OK;
}

/* ---- texts ---- */

char *
doc_distinct_groups(const struct gpuproj_report_doc *doc, char *buf, size_t size)
{
	gpuproj_report_order_fn fn = doc->opt.order_fn ? doc->opt.order_fn
						       : gpuproj_report_order_overlap;
	size_t n = doc->n_complete < DISTINCT_RANKS ? doc->n_complete : DISTINCT_RANKS;
	size_t i, start = 0, w = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		struct gpuproj_report_order o = { 0 };
		bool end = i + 1 == n;

		if (!end)
			fn(&doc->combined[i], &doc->combined[i + 1], doc->coverage, &o);
		if (!end && !o.distinct)
			continue;
		if (w < size) {
			int c = start == i ? snprintf(buf + w, size - w, "%s%zu", w ? " | " : "",
						      start + 1)
					   : snprintf(buf + w, size - w, "%s%zu–%zu",
						      w ? " | " : "", start + 1, i + 1);
			w += c > 0 ? (size_t)c : 0;
		}
		start = i + 1;
	}
	return buf;
}

char *
doc_ranked_by(const struct gpuproj_report_doc *doc, char *buf, size_t size)
{
	size_t i, n_counted = 0, n_kernels = 0;
	double counted = 0, all = 0;
	char share[32], what[600];

	for (i = 0; i < doc->n_profiles; i++) {
		n_counted += doc->profiles[i].n_counted;
		n_kernels += doc->profiles[i].n_kernels;
		counted += doc->profiles[i].counted_ns;
		all += doc->profiles[i].kernel_ns;
	}
	doc_fmt_pct(all > 0 ? counted / all : NAN, share, sizeof(share));
	if (doc->by_wall)
		snprintf(what, sizeof(what), "projected whole-run wall time (the recorded run "
			 "replayed: %zu of %zu kernels at their projected time, %s of the measured "
			 "kernel time; the other kernels and the host time as measured)", n_counted,
			 n_kernels, share);
	else
		snprintf(what, sizeof(what), "projected GPU kernel time over the %zu of %zu "
			 "kernels every complete target projects (%s of the measured kernel "
			 "time); host time, copies and the other kernels are in no total",
			 n_counted, n_kernels, share);
	if (doc->weighted) {
		struct strbuf sb;

		strbuf_init(&sb);
		strbuf_append(&sb, "the workload mix: Σ share of facility time × (");
		strbuf_append(&sb, what);
		strbuf_append(&sb, " ÷ the source's measured time) over the profiles (");
		for (i = 0; i < doc->n_profiles; i++)
			strbuf_printf(&sb, "%s%s %.0f %%", i ? ", " : "", doc->profiles[i].label,
				      100 * doc->profiles[i].weight);
		strbuf_append(&sb, ")");
		snprintf(buf, size, "%s", sb.buf ? sb.buf : "");
		strbuf_free(&sb);
	} else if (doc->n_profiles > 1) {
		snprintf(buf, size, "%s, summed over the %zu profiles", what, doc->n_profiles);
	} else {
		snprintf(buf, size, "%s", what);
	}
	return buf;
}

/* "A (97.9 ms, 4.61×), B (…)" for the first n rows that pass `ok`. */
static size_t
names_list(const struct gpuproj_report_doc *doc, struct strbuf *sb, size_t max, bool with_time,
	   bool (*ok)(const struct gpuproj_report_doc *, const struct gpuproj_report_rank *))
{
	size_t i, shown = 0, more = 0, n_counted = 0;
	char a[32], b[32];

	for (i = 0; i < doc->n_profiles; i++)
		n_counted += doc->profiles[i].n_counted;
	for (i = 0; i < doc->n_targets; i++) {
		const struct gpuproj_report_rank *r = &doc->combined[i];

		if (!ok(doc, r))
			continue;
		if (shown == max) {
			more++;
			continue;
		}
		strbuf_append(sb, shown ? ", " : "");
		strbuf_append(sb, r->target->name);
		if (with_time && doc->weighted)
			strbuf_printf(sb, " (%s the source's time, %s)",
				      doc_fmt_pct(r->rel, a, sizeof(a)),
				      doc_fmt_speedup(r->speedup, b, sizeof(b)));
		else if (with_time)
			strbuf_printf(sb, " (%s, %s)", format_ns(doc_rank_ns(doc, r), a, sizeof(a)),
				      doc_fmt_speedup(r->speedup, b, sizeof(b)));
		else if (!r->complete)
			strbuf_printf(sb, " (cannot run %zu of %zu kernels)", r->n_cannot,
				      n_counted);
		shown++;
	}
	/* The leaders are the first few of the ranking; other lists say how many are left. */
	if (more && !with_time)
		strbuf_printf(sb, " and %zu more", more);
	return shown;
}

static bool
leading_ok(const struct gpuproj_report_doc *doc, const struct gpuproj_report_rank *r)
{
	return r->complete && !r->is_source && doc_ranked(doc, r) &&
	       r->memory_fit != GPUPROJ_REPORT_FIT_NO;
}

static bool
incomplete_ok(const struct gpuproj_report_doc *doc, const struct gpuproj_report_rank *r)
{
	(void)doc;
	return !r->complete;
}

static bool
nofit_ok(const struct gpuproj_report_doc *doc, const struct gpuproj_report_rank *r)
{
	(void)doc;
	return r->memory_fit == GPUPROJ_REPORT_FIT_NO;
}

/* The best row by a figure among the leading candidates (lowest cost or highest per-dollar). */
static const struct gpuproj_report_rank *
best_by(const struct gpuproj_report_doc *doc, bool cost)
{
	const struct gpuproj_report_rank *best = NULL;
	size_t i;

	for (i = 0; i < doc->n_targets; i++) {
		const struct gpuproj_report_rank *r = &doc->combined[i];
		double v = cost ? r->cost_per_job_usd : r->perf_per_kusd;

		if (!leading_ok(doc, r) || isnan(v))
			continue;
		if (!best || (cost ? v < best->cost_per_job_usd : v > best->perf_per_kusd))
			best = r;
	}
	return best;
}

static char *
line_leading(const struct gpuproj_report_doc *doc)
{
	const struct gpuproj_report_rank *c = best_by(doc, true), *d = best_by(doc, false);
	struct strbuf sb;
	char a[48], groups[256];

	strbuf_init(&sb);
	strbuf_append(&sb, "Leading GPUs");
	if (doc->weighted)
		strbuf_append(&sb, " for the workload mix");
	strbuf_append(&sb, ": ");
	if (!names_list(doc, &sb, SUMMARY_NAMES, true, leading_ok))
		strbuf_append(&sb, "none (no complete target that fits)");
	doc_distinct_groups(doc, groups, sizeof(groups));
	if (groups[0])
		strbuf_printf(&sb, "; groups of ranks whose intervals overlap, so that their order "
			      "is not distinct at %s: %s", doc_fmt_coverage(doc, a, sizeof(a)),
			      groups);
	if (c)
		strbuf_printf(&sb, "; lowest cost per job: %s (%s)", c->target->name,
			      doc_fmt_usd(c->cost_per_job_usd, a, sizeof(a)));
	if (d)
		strbuf_printf(&sb, "; most performance per dollar: %s (%.3g× per 1,000 USD)",
			      d->target->name, d->perf_per_kusd);
	if (!c && !d)
		strbuf_append(&sb, "; no price known for them (--price NAME=USD, --prices FILE)");
	strbuf_append(&sb, ".");
	return strbuf_steal(&sb);
}

static char *
line_source(const struct gpuproj_report_doc *doc)
{
	struct strbuf sb;
	size_t i, j;
	char a[32];

	strbuf_init(&sb);
	strbuf_append(&sb, "Source GPU: ");
	for (i = 0; i < doc->n_profiles; i++) {
		const struct doc_profile *dp = &doc->profiles[i];
		bool seen = false;
		double ns = 0;

		for (j = 0; j < i; j++)
			seen |= doc->profiles[j].src == dp->src;
		if (seen)
			continue;
		for (j = 0; j < doc->n_profiles; j++)
			ns += doc->profiles[j].src == dp->src ? doc->profiles[j].kernel_ns : 0;
		strbuf_printf(&sb, "%s%s%s (measured: %s of kernel time)", i ? ", " : "",
			      dp->src->name, dp->src->provisional ? " (provisional entry)" : "",
			      format_ns(ns, a, sizeof(a)));
	}
	strbuf_append(&sb, ".");
	return strbuf_steal(&sb);
}

static char *
line_assumed(const struct gpuproj_report_doc *doc)
{
	struct strbuf sb;
	size_t i, n_assumed = 0, n_unseen = 0, n_quoted = 0, n_listed = 0;
	char a[32];

	for (i = 0; i < doc->n_profiles; i++)
		n_assumed += doc->profiles[i].n_assumed;
	for (i = 0; i < doc->n_targets; i++) {
		const struct doc_price *p = &doc->price[i];

		n_unseen += doc->combined[i].n_interval_unseen > 0;
		if (!p->origin[0])
			continue;
		if (strcmp(p->origin, "targets.yaml") == 0)
			n_listed++;
		else
			n_quoted++;
	}
	strbuf_init(&sb);
	strbuf_append(&sb, "Assumed: the same FLOP and bytes per memory level on every GPU");
	strbuf_append(&sb, doc->by_wall
		      ? "; the same host (host time and host copies' setup kept)"
		      : "; kernel time only (host time and copies not projected)");
	if (n_assumed)
		strbuf_printf(&sb, "; %zu kernel%s without counters projected by the envelope "
			      "(binding unknown)", n_assumed, n_assumed == 1 ? "" : "s");
	strbuf_printf(&sb, "; intervals of nominal %s coverage",
		      doc_fmt_coverage(doc, a, sizeof(a)));
	if (n_unseen)
		strbuf_printf(&sb, ", not fitted on %zu of the %zu targets (*)", n_unseen,
			      doc->n_targets);
	strbuf_printf(&sb, "; prices: %zu from targets.yaml, %zu quoted, %zu unknown.", n_listed,
		      n_quoted, doc->n_targets - n_listed - n_quoted);
	return strbuf_steal(&sb);
}

static char *
line_incomplete(const struct gpuproj_report_doc *doc)
{
	struct strbuf sb;
	size_t i;
	bool peak_known = true, any_no = false;

	for (i = 0; i < doc->n_profiles; i++)
		peak_known &= !isnan(doc->profiles[i].peak_bytes);
	for (i = 0; i < doc->n_targets; i++)
		any_no |= doc->combined[i].memory_fit == GPUPROJ_REPORT_FIT_NO;
	strbuf_init(&sb);
	strbuf_append(&sb, "Incomplete (not ranked): ");
	if (doc->n_complete == doc->n_targets)
		strbuf_append(&sb, "none");
	else
		names_list(doc, &sb, SUMMARY_NAMES, false, incomplete_ok);
	if (any_no) {
		strbuf_append(&sb, "; does not fit the run's peak device memory: ");
		names_list(doc, &sb, SUMMARY_NAMES, false, nofit_ok);
	} else if (!peak_known) {
		strbuf_append(&sb, "; memory fit unknown (the profile does not record the run's "
			      "peak device memory)");
	}
	strbuf_append(&sb, ".");
	return strbuf_steal(&sb);
}

int
doc_summary(const struct gpuproj_report_doc *doc, char *lines[5])
{
	char buf[1200];
	int i;

	lines[0] = line_leading(doc);
	lines[1] = line_source(doc);
	lines[2] = line_assumed(doc);
	lines[3] = line_incomplete(doc);
	doc_ranked_by(doc, buf, sizeof(buf));
	lines[4] = xasprintf("Ranked by %s; model %s.", buf, gpuproj_model_name(doc->model));
	for (i = 0; i < 5; i++) {
		if (!lines[i]) {
			for (i = 0; i < 5; i++) {
				free(lines[i]);
				lines[i] = NULL;
			}
			return GPUPROJ_E_NOMEM;
		}
	}
	return GPUPROJ_OK;
}
