/* SPDX-License-Identifier: MIT */
/*
 * The CI performance gate (include/gpuproj/gate.h): baseline vs current
 * profile on the source GPU (measured) and on target GPUs (projected),
 * whole run and per kernel, with a noise band from the launch spreads.
 * The JUnit XML, Markdown and plain-text renderings of the result are in
 * gate-write.c.
 *
 * Both profiles are first folded over device ordinals (gpuproj_kernel_merge)
 * so kernels match on name, tag, grid, block and dynamic shared memory.
 *
 * Thread safety: reentrant; inputs are only read.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/gate.h>
#include <gpuproj/timeline.h>
#include <gpuproj/merge.h>

#include "util.h"

/* The label of a kernel in findings and reports (gate.h). */
char *
gpuproj_gate_kernel_label(const struct gpuproj_kernel *k, char *buf, size_t size)
{
	char smem[40] = "";

	if (!buf || size == 0)
		return buf;
	if (!k) {
		snprintf(buf, size, "(none)");
		return buf;
	}
	if (k->smem_dynamic)
		snprintf(smem, sizeof(smem), ", smem %u B", k->smem_dynamic);
	snprintf(buf, size, "%s (%ux%ux%u,%ux%ux%u%s)%s%s%s",
		 k->demangled ? k->demangled : k->name, k->grid.x, k->grid.y, k->grid.z,
		 k->block.x, k->block.y, k->block.z, smem, k->tag && *k->tag ? " [" : "",
		 k->tag && *k->tag ? k->tag : "", k->tag && *k->tag ? "]" : "");
	return buf;
}

/* Relative slack on threshold comparisons: a change of exactly +10 % is not beyond +10 %. */
#define THRESHOLD_SLACK 1e-9

static const struct gpuproj_word metric_words[] = {
	{ "kernel", GPUPROJ_GATE_METRIC_KERNEL },
	{ "wall", GPUPROJ_GATE_METRIC_WALL },
};

const struct gpuproj_word *
gpuproj_gate_metric_words(size_t *ret_n)
{
	*ret_n = ARRAY_LENGTH(metric_words);
	return metric_words;
}

void
gpuproj_gate_options_init(struct gpuproj_gate_options *opt)
{
	if (!opt)
		return;
	memset(opt, 0, sizeof(*opt));
	opt->max_regression = GPUPROJ_GATE_DEFAULT_MAX_REGRESSION;
	opt->kernel_max_regression = GPUPROJ_GATE_DEFAULT_KERNEL_MAX_REGRESSION;
	opt->noise_k = GPUPROJ_GATE_DEFAULT_NOISE_K;
	opt->min_time_ns = NAN;
	opt->min_time_fraction = GPUPROJ_GATE_DEFAULT_MIN_TIME_FRACTION;
}

const char *
gpuproj_gate_status_name(enum gpuproj_gate_status s)
{
	switch (s) {
	case GPUPROJ_GATE_OK: return "ok";
	case GPUPROJ_GATE_REGRESSED: return "REGRESSED";
	case GPUPROJ_GATE_NOISE: return "noise";
	case GPUPROJ_GATE_IMPROVED: return "improved";
	case GPUPROJ_GATE_SMALL: return "small";
	case GPUPROJ_GATE_NEW: return "new";
	case GPUPROJ_GATE_VANISHED: return "vanished";
	case GPUPROJ_GATE_UNPROJECTED: return "not projected";
	case GPUPROJ_GATE_NOT_COMPARABLE: return "not comparable";
	}
	return "?";
}

const char *
gpuproj_gate_cause_name(enum gpuproj_gate_cause c)
{
	switch (c) {
	case GPUPROJ_GATE_CAUSE_TIME: return "time";
	case GPUPROJ_GATE_CAUSE_COUNTERS: return "counters";
	case GPUPROJ_GATE_CAUSE_UNKNOWN: return "unknown";
	case GPUPROJ_GATE_CAUSE_RUN: return "run";
	}
	return "?";
}

/* ---- comparison ---- */

void
gpuproj_gate_result_clear(struct gpuproj_gate_result *r)
{
	size_t i, col;

	if (!r)
		return;
	for (i = 0; r->kernels && i < r->n_kernels; i++) {
		for (col = 0; r->kernels[i].cells && col < r->n_columns; col++)
			free(r->kernels[i].cells[col].why);
		free(r->kernels[i].cells);
	}
	free(r->kernels);
	for (col = 0; r->columns && col < r->n_columns; col++)
		free(r->columns[col].run.why);
	free(r->columns);
	for (i = 0; r->findings && i < r->n_findings; i++)
		free(r->findings[i].text);
	free(r->findings);
	gpuproj_profile_free(r->base);
	gpuproj_profile_free(r->cur);
	gpuproj_targets_free(r->derived[0]);
	gpuproj_targets_free(r->derived[1]);
	memset(r, 0, sizeof(*r));
}

/* Copy of p with the records of one signature on several devices folded into one. */
static int
fold_devices(const struct gpuproj_profile *p, struct gpuproj_profile **ret)
{
	struct gpuproj_profile *f = gpuproj_profile_new();
	size_t i;

	if (!f)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		struct gpuproj_signature sig = {
			.name = k->name, .tag = k->tag, .grid = k->grid, .block = k->block,
			.smem_dynamic = k->smem_dynamic, .device = 0,
		};
		struct gpuproj_kernel *dst;

		if (gpuproj_profile_kernel(f, &sig, &dst) || gpuproj_kernel_merge(dst, k)) {
			gpuproj_profile_free(f);
			return GPUPROJ_E_NOMEM;
		}
	}
	/* The whole run's timeline comes along (its kernels mapped onto the folded records). */
	gpuproj_profile_run_info_mut(f)->wall_ns = gpuproj_profile_run_info(p)->wall_ns;
	if (gpuproj_timeline_merge(f, p, true)) {
		gpuproj_profile_free(f);
		return GPUPROJ_E_NOMEM;
	}
	*ret = f;
	return GPUPROJ_OK;
}

/* Record address → index in its profile, for records found by signature. */
struct kidx {
	const struct gpuproj_kernel *k;
	size_t i;
};

static int
cmp_kidx(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct kidx *)a)->k;
	uintptr_t y = (uintptr_t)((const struct kidx *)b)->k;

	return x < y ? -1 : x > y;
}

/* A table sorted by address, so kernel_index() is O(log n); NULL on ENOMEM. */
static struct kidx *
kernel_index_table(const struct gpuproj_profile *p)
{
	size_t i, n = gpuproj_profile_count(p);
	struct kidx *t = calloc(n ? n : 1, sizeof(*t));

	if (!t)
		return NULL;
	for (i = 0; i < n; i++) {
		t[i].k = gpuproj_profile_at(p, i);
		t[i].i = i;
	}
	qsort(t, n, sizeof(*t), cmp_kidx);
	return t;
}

static size_t
kernel_index(const struct kidx *t, size_t n, const struct gpuproj_kernel *k)
{
	struct kidx key = { .k = k };
	const struct kidx *hit = bsearch(&key, t, n, sizeof(*t), cmp_kidx);

	return hit ? hit->i : SIZE_MAX;
}

static double
launches_of(const struct gpuproj_kernel *k)
{
	return (double)(k->launches ? k->launches : k->duration_ns.n);
}

/* Variance of the mean per launch, ns², scaled by r (projection ratio). */
static double
mean_variance(const struct gpuproj_kernel *k, double r)
{
	double s;

	if (k->duration_ns.n < 2)
		return 0;
	s = gpuproj_stats_stddev(&k->duration_ns) * r;
	return s * s / (double)k->duration_ns.n;
}

/*
 * The per-launch value of kernel `k` in a column: measured mean (target
 * NULL) or projected point, and its time ratio r = value / mean.
 */
static double
column_value(const struct gpuproj_kernel *k, const struct gpuproj_projection *pr, double *ret_r)
{
	double mean = gpuproj_kernel_mean_ns(k);

	if (!pr) {
		*ret_r = 1.0;
		return mean;
	}
	*ret_r = mean > 0 ? pr->point_ns / mean : 1.0;
	return pr->point_ns;
}

/* Status of a compared cell from its numbers. */
static void
judge(struct gpuproj_gate_cell *c, double threshold, bool gated)
{
	double diff = c->cur_ns - c->base_ns;
	bool beyond;

	c->change = diff / c->base_ns;
	beyond = c->change > threshold * (1 + THRESHOLD_SLACK) + THRESHOLD_SLACK;
	if (beyond && diff > c->noise_ns)
		c->status = gated ? GPUPROJ_GATE_REGRESSED : GPUPROJ_GATE_SMALL;
	else if (beyond)
		c->status = GPUPROJ_GATE_NOISE;
	else if (c->change < -threshold * (1 + THRESHOLD_SLACK) - THRESHOLD_SLACK &&
		 -diff > c->noise_ns)
		c->status = GPUPROJ_GATE_IMPROVED;
	else
		c->status = GPUPROJ_GATE_OK;
}

/* Set the cell's reason (malloc'd, owned by the result); false on ENOMEM. */
static bool
set_why(struct gpuproj_gate_cell *c, const char *fmt, ...) GPUPROJ_PRINTF(2, 3);

static bool
set_why(struct gpuproj_gate_cell *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&c->why, fmt, ap);
	va_end(ap);
	if (n < 0) {
		c->why = NULL;
		return false;
	}
	return true;
}

static void
cell_init(struct gpuproj_gate_cell *c)
{
	memset(c, 0, sizeof(*c));
	c->base_ns = c->cur_ns = c->base_total_ns = c->cur_total_ns = NAN;
	c->change = c->noise_ns = NAN;
	c->cur_lo_ns = c->cur_hi_ns = NAN;
}

/* Describe the GPU of a profile: "TARGET" or "TARGET ('device name')". */
static void
gpu_desc(const struct gpuproj_profile *p, const struct gpuproj_target *t, char *buf, size_t size)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);

	if (d->name && !str_eq_nocase_trim(d->name, t->name))
		snprintf(buf, size, "%s ('%s')", t->name, d->name);
	else
		snprintf(buf, size, "%s", t->name);
}

struct pair {
	const struct gpuproj_kernel *b, *c;
	size_t bi, ci;
	double key;
};

static int
cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

/* Longest first; ties in signature order (name, tag, grid, block, smem). */
static int
cmp_pair(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	const struct gpuproj_kernel *ka = a->b ? a->b : a->c, *kb = b->b ? b->b : b->c;
	int r;

	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	if ((r = strcmp(ka->name, kb->name)) || (r = strcmp(ka->tag, kb->tag)) ||
	    (r = cmp_u32(ka->grid.x, kb->grid.x)) || (r = cmp_u32(ka->grid.y, kb->grid.y)) ||
	    (r = cmp_u32(ka->grid.z, kb->grid.z)) || (r = cmp_u32(ka->block.x, kb->block.x)) ||
	    (r = cmp_u32(ka->block.y, kb->block.y)) || (r = cmp_u32(ka->block.z, kb->block.z)))
		return r;
	return cmp_u32(ka->smem_dynamic, kb->smem_dynamic);
}

static double
total_or_zero(const struct gpuproj_kernel *k)
{
	double t = k ? gpuproj_kernel_total_ns(k) : NAN;

	return isnan(t) ? 0 : t;
}

static int
kernel_cell(struct gpuproj_gate_cell *cell, const struct pair *pk, size_t col,
	    const struct gpuproj_run_projection *brun, const struct gpuproj_run_projection *crun,
	    const struct gpuproj_gate_result *res, const struct gpuproj_gate_options *opt,
	    double min_time)
{
	const struct gpuproj_projection *bp = NULL, *cp = NULL;
	double rb = 1, rc = 1;

	cell_init(cell);
	if (col > 0) {
		bp = pk->b ? &brun->kernels[pk->bi] : NULL;
		cp = pk->c ? &crun->kernels[pk->ci] : NULL;
		/* Either side by the coarser model: labelled by the writers. */
		cell->coarse = (bp && bp->status == GPUPROJ_OK &&
				gpuproj_model_is_coarse(bp->fallback ? bp->fallback : brun->model)) ||
			       (cp && cp->status == GPUPROJ_OK &&
				gpuproj_model_is_coarse(cp->fallback ? cp->fallback : crun->model));
	}
	/* Values on each side that has one (also for new/vanished kernels). */
	if (pk->b && pk->b->duration_ns.n && (!bp || bp->status == GPUPROJ_OK)) {
		cell->base_ns = column_value(pk->b, bp, &rb);
		cell->base_total_ns = cell->base_ns * launches_of(pk->b);
	}
	if (pk->c && pk->c->duration_ns.n && (!cp || cp->status == GPUPROJ_OK)) {
		cell->cur_ns = column_value(pk->c, cp, &rc);
		cell->cur_total_ns = cell->cur_ns * launches_of(pk->c);
		if (cp) {
			cell->binding = cp->binding;
			cell->cur_lo_ns = cp->lo_ns;
			cell->cur_hi_ns = cp->hi_ns;
			cell->cur_interval_unseen =
				cp->interval_gpus == GPUPROJ_INTERVAL_GPUS_UNSEEN;
		}
	}
	if (!pk->b) {
		cell->status = GPUPROJ_GATE_NEW;
		return GPUPROJ_OK;
	}
	if (!pk->c) {
		cell->status = GPUPROJ_GATE_VANISHED;
		return GPUPROJ_OK;
	}
	if (col == 0 && res->gpu_changed) {
		cell->status = GPUPROJ_GATE_NOT_COMPARABLE;
		return set_why(cell, "the source GPU changed (%s -> %s)", res->base_source->name,
			       res->cur_source->name) ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
	}
	if (!pk->b->duration_ns.n || !pk->c->duration_ns.n) {
		cell->status = GPUPROJ_GATE_NOT_COMPARABLE;
		return set_why(cell, "no timed launch in the %s",
			       !pk->b->duration_ns.n && !pk->c->duration_ns.n ? "baseline nor the "
			       "current profile" : !pk->b->duration_ns.n ? "baseline"
			       : "current profile") ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
	}
	if ((bp && bp->status != GPUPROJ_OK) || (cp && cp->status != GPUPROJ_OK)) {
		bool ok;

		cell->status = GPUPROJ_GATE_UNPROJECTED;
		if (bp->status != GPUPROJ_OK && cp->status != GPUPROJ_OK &&
		    strcmp(bp->why, cp->why) == 0)
			ok = set_why(cell, "%s", bp->why);
		else if (bp->status != GPUPROJ_OK && cp->status != GPUPROJ_OK)
			ok = set_why(cell, "baseline: %s; current: %s", bp->why, cp->why);
		else
			ok = set_why(cell, "%s: %s", bp->status != GPUPROJ_OK ? "baseline" : "current",
				     bp->status != GPUPROJ_OK ? bp->why : cp->why);
		return ok ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
	}
	if (!(cell->base_ns > 0)) {
		cell->status = GPUPROJ_GATE_NOT_COMPARABLE;
		return set_why(cell, "the baseline time is 0") ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
	}
	cell->noise_ns = opt->noise_k * sqrt(mean_variance(pk->b, rb) + mean_variance(pk->c, rc));
	judge(cell, opt->kernel_max_regression,
	      fmax(cell->base_total_ns, cell->cur_total_ns) >= min_time);
	return GPUPROJ_OK;
}

/* Whole-run value and variance of a profile in a column. */
static double
run_value(const struct gpuproj_profile *p, const struct gpuproj_run_projection *run,
	  double *ret_var)
{
	double var = 0;
	size_t i;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		double r = 1, l = launches_of(k);

		if (!k->duration_ns.n)
			continue;
		if (run && run->kernels[i].status == GPUPROJ_OK)
			column_value(k, &run->kernels[i], &r);
		var += l * l * mean_variance(k, r);
	}
	*ret_var = var;
	return run ? run->point_ns : gpuproj_profile_kernel_time_ns(p);
}

/*
 * --metric wall: a profile's whole-run wall time in a column (measured on
 * the source, projected on a target) and the variance of its total from
 * the epochs' spread, scaled like the time (gpuproj_gate_metric).
 */
static bool
wall_value(const struct gpuproj_profile *p, const struct gpuproj_run_projection *run,
	   const struct gpuproj_target *src, double *ret_ns, double *ret_var)
{
	const struct gpuproj_timeline *tl = gpuproj_profile_timeline(p);
	struct gpuproj_whole_run w;
	double var = 0, r;
	size_t i;

	if (!tl)
		return false;
	if (run) {
		w = run->whole;
	} else if (gpuproj_timeline_project(p, NULL, src, src, &w) != GPUPROJ_OK) {
		return false;
	}
	if (!w.valid)
		return false;
	for (i = 0; i < tl->n_patterns; i++) {
		const struct gpuproj_stats *s = &tl->patterns[i].wall_ns;
		double sd = gpuproj_stats_stddev(s);

		var += (double)s->n * sd * sd;
	}
	r = w.source_ns > 0 ? w.wall_ns / w.source_ns : 1;
	/*
	 * The source's column is the measured wall time (not the replay onto
	 * the source, which a timeline that does not describe its run could
	 * make anything); a target's the projection.
	 */
	*ret_ns = run ? w.wall_ns : w.source_ns;
	*ret_var = var * (run ? r * r : 1);
	return true;
}

static int
wall_cell(struct gpuproj_gate_cell *cell, size_t col, const struct gpuproj_gate_result *res,
	  const struct gpuproj_run_projection *brun, const struct gpuproj_run_projection *crun,
	  const struct gpuproj_gate_options *opt)
{
	double vb = 0, vc = 0;
	bool hb = wall_value(res->base, col ? brun : NULL, res->base_source, &cell->base_ns, &vb);
	bool hc = wall_value(res->cur, col ? crun : NULL, res->cur_source, &cell->cur_ns, &vc);

	cell->base_total_ns = cell->base_ns;
	cell->cur_total_ns = cell->cur_ns;
	if (col && crun->whole.valid) {
		cell->cur_lo_ns = crun->whole.lo_ns;
		cell->cur_hi_ns = crun->whole.hi_ns;
		cell->cur_interval_unseen = crun->n_interval_unseen > 0;
	}
	if (col == 0 && res->gpu_changed) {
		cell->status = GPUPROJ_GATE_NOT_COMPARABLE;
		return set_why(cell, "the source GPU changed (%s -> %s)", res->base_source->name,
			       res->cur_source->name) ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
	}
	if (!hb || !hc) {
		cell->status = GPUPROJ_GATE_NOT_COMPARABLE;
		return set_why(cell, "--metric wall: the %s has no whole-run timeline (a profile "
			       "from a libproj.so before it, or an import)", !hb ? "baseline"
			       : "current profile") ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
	}
	if (!(cell->base_ns > 0)) {
		cell->status = GPUPROJ_GATE_NOT_COMPARABLE;
		return set_why(cell, "the baseline's whole run has no time") ? GPUPROJ_OK
									      : GPUPROJ_E_NOMEM;
	}
	cell->noise_ns = opt->noise_k * sqrt(vb + vc);
	judge(cell, opt->max_regression, true);
	return GPUPROJ_OK;
}

static int
run_cell(struct gpuproj_gate_cell *cell, size_t col, const struct gpuproj_gate_result *res,
	 const struct gpuproj_run_projection *brun, const struct gpuproj_run_projection *crun,
	 const struct gpuproj_gate_options *opt)
{
	double vb, vc;

	cell_init(cell);
	if (opt->metric == GPUPROJ_GATE_METRIC_WALL)
		return wall_cell(cell, col, res, brun, crun, opt);
	cell->base_ns = cell->base_total_ns = run_value(res->base, col ? brun : NULL, &vb);
	cell->cur_ns = cell->cur_total_ns = run_value(res->cur, col ? crun : NULL, &vc);
	if (col) {
		cell->cur_lo_ns = crun->lo_ns;
		cell->cur_hi_ns = crun->hi_ns;
		cell->cur_interval_unseen = crun->n_interval_unseen > 0;
	}
	if (col == 0 && res->gpu_changed) {
		cell->status = GPUPROJ_GATE_NOT_COMPARABLE;
		return set_why(cell, "the source GPU changed (%s -> %s)", res->base_source->name,
			       res->cur_source->name) ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
	}
	if (!(cell->base_ns > 0)) {
		cell->status = GPUPROJ_GATE_NOT_COMPARABLE;
		return set_why(cell, "the baseline has no timed kernel") ? GPUPROJ_OK
									  : GPUPROJ_E_NOMEM;
	}
	cell->noise_ns = opt->noise_k * sqrt(vb + vc);
	judge(cell, opt->max_regression, true);
	return GPUPROJ_OK;
}

static bool
bad_fraction(double v)
{
	return !isfinite(v) || v < 0;
}

/* Phase 1: the options, checked; NULL: the defaults. */
static int
gate_options(const struct gpuproj_gate_options *opt_in,
	     const struct gpuproj_target *const *gate_targets, size_t n_gate_targets,
	     struct gpuproj_gate_options *opt, struct gpuproj_error *reterr)
{
	size_t i;

	if (opt_in)
		*opt = *opt_in;
	else
		gpuproj_gate_options_init(opt);
	if (bad_fraction(opt->max_regression) || bad_fraction(opt->kernel_max_regression) ||
	    bad_fraction(opt->noise_k) || bad_fraction(opt->min_time_fraction) ||
	    (!isnan(opt->min_time_ns) && bad_fraction(opt->min_time_ns)))
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "thresholds, noise band and minimum time must be finite and "
				 "non-negative");
	for (i = 0; i < n_gate_targets; i++) {
		if (!gate_targets[i])
			return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	}
	if (!opt->model)
		opt->model = gpuproj_model_default();
	return GPUPROJ_OK;
}

/*
 * Phase 2: nothing timed on a side: no verdict. Before, a current profile
 * without a timed kernel (another CUPTI client took the kernel records)
 * passed as "improved -100 %".
 */
static int
gate_timed(const struct gpuproj_profile *base, const struct gpuproj_profile *cur,
	   const char *bl, const char *cl, struct gpuproj_error *reterr)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		const struct gpuproj_profile *p = i ? cur : base;
		size_t k, n = gpuproj_profile_count(p);
		uint64_t launches = 0;

		for (k = 0; k < n; k++) {
			if (gpuproj_profile_at(p, k)->duration_ns.n)
				break;
			launches += gpuproj_profile_at(p, k)->launches;
		}
		if (k < n)
			continue;
		return error_set(reterr, GPUPROJ_E_UNSUPPORTED, i ? cl : bl, 0, 0,
				 "the %s has no timed kernel (%zu kernel signature%s, %" PRIu64
				 " launch%s, none timed): nothing to compare, no verdict; a profile "
				 "libproj.so wrote while another CUPTI client (a framework's "
				 "profiler, PyTorch's Kineto) took the kernel records has none, and "
				 "libproj.so said so on stderr", i ? "current profile" : "baseline",
				 n, n == 1 ? "" : "s", launches, launches == 1 ? "" : "es");
	}
	return GPUPROJ_OK;
}

/*
 * Phase 2, --metric wall: a timeline that does not describe its run: no
 * verdict (a pattern whose wall was ten times its epochs' sum replayed
 * at -82 % and would pass, also merged into a job).
 */
static int
gate_wall_identity(const struct gpuproj_profile *base, const struct gpuproj_profile *cur,
		   const char *bl, const char *cl, struct gpuproj_error *reterr)
{
	size_t i;
	int r;

	for (i = 0; i < 2; i++) {
		struct gpuproj_error te = { 0 };

		r = gpuproj_timeline_check_identity(gpuproj_profile_timeline(i ? cur : base), NULL,
						    &te);
		if (r == GPUPROJ_E_NOMEM)
			return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
		if (r)
			return error_set(reterr, GPUPROJ_E_UNSUPPORTED, i ? cl : bl, 0, 0,
					 "the %s's whole-run timeline is inconsistent, %s; "
					 "--metric wall gives no verdict on it",
					 i ? "current profile" : "baseline", te.message);
	}
	return GPUPROJ_OK;
}

/*
 * Phase 3: the source GPUs of both profiles (one provisional entry for the
 * same unlisted GPU), whether it changed, and the warnings of the result.
 */
static int
gate_sources(const struct gpuproj_profile *base, const struct gpuproj_profile *cur,
	     const struct gpuproj_targets *targets, const struct gpuproj_gate_options *opt,
	     const char *bl, const char *cl, struct gpuproj_gate_result *out,
	     struct gpuproj_error *reterr)
{
	const char *bn = gpuproj_profile_device(base)->name;
	const char *cn = gpuproj_profile_device(cur)->name;
	const char *bv, *cv;
	char bdesc[320], cdesc[320];
	struct gpuproj_error e = { 0 };
	size_t i;

	if (gpuproj_resolve_source_or_derive(base, targets, opt->source, &out->base_source,
					     &out->derived[0], &e))
		return error_set(reterr, e.status, bl, 0, 0, "baseline: %s", e.message);
	if (out->derived[0] && cn && str_eq_nocase_trim(cn, bn)) {
		/* The same unlisted GPU: one provisional entry for both (same source). */
		out->cur_source = out->base_source;
	} else if (gpuproj_resolve_source_or_derive(cur, targets, opt->source, &out->cur_source,
						    &out->derived[1], &e)) {
		return error_set(reterr, e.status, cl, 0, 0, "current profile: %s", e.message);
	}
	gpu_desc(base, out->base_source, bdesc, sizeof(bdesc));
	gpu_desc(cur, out->cur_source, cdesc, sizeof(cdesc));
	/* With a source override the caller vouches for both profiles' GPU. */
	out->gpu_changed = out->base_source != out->cur_source ||
			   (!opt->source && bn && cn && !str_eq_nocase_trim(bn, cn));
	if (out->gpu_changed && !opt->allow_gpu_change)
		return error_set(reterr, GPUPROJ_E_MISMATCH, NULL, 0, 0,
				 "the baseline (%s) was measured on %s and the current profile "
				 "(%s) on %s: measured times of different GPUs are not comparable; "
				 "measure the baseline on the same GPU, or pass --allow-gpu-change "
				 "to gate on projected times only", bl, bdesc, cl, cdesc);
	if (out->gpu_changed)
		snprintf(out->warnings[out->n_warnings++], sizeof(out->warnings[0]),
			 "source GPU changed: baseline %s, current %s; measured times are not "
			 "compared, only projections gate (--allow-gpu-change)", bdesc, cdesc);
	bv = gpuproj_profile_attr(base, "tool_version");
	cv = gpuproj_profile_attr(cur, "tool_version");
	if (bv && cv && strcmp(bv, cv) != 0) {
		out->version_changed = true;
		snprintf(out->warnings[out->n_warnings++], sizeof(out->warnings[0]),
			 "tool version differs: baseline measured with gpuproj %s, current with "
			 "gpuproj %s", bv, cv);
	}
	/* A job profile merged with --force carries what was forced (merge.h): say it. */
	for (i = 0; i < 2; i++) {
		const char *forced = gpuproj_profile_attr(i ? cur : base, "merge_forced");

		if (forced && out->n_warnings < ARRAY_LENGTH(out->warnings))
			snprintf(out->warnings[out->n_warnings++], sizeof(out->warnings[0]),
				 "the %s (%s) was merged with --force: %s", i ? "current profile"
				 : "baseline", i ? cl : bl, forced);
	}
	return GPUPROJ_OK;
}

/* Phase 5: the kernels of either profile, paired by signature, largest first. */
static int
gate_pairs(const struct gpuproj_gate_result *out, struct pair **ret, size_t *ret_n)
{
	size_t nb = gpuproj_profile_count(out->base), nc = gpuproj_profile_count(out->cur);
	struct pair *pairs = calloc(nb + nc + 1, sizeof(*pairs));
	struct kidx *cur_index = kernel_index_table(out->cur);
	size_t i, n_pairs = 0;

	if (!pairs || !cur_index) {
		free(pairs);
		free(cur_index);
		return GPUPROJ_E_NOMEM;
	}
	for (i = 0; i < nb + nc; i++) {
		bool in_base = i < nb;
		const struct gpuproj_kernel *k = gpuproj_profile_at(in_base ? out->base : out->cur,
								    in_base ? i : i - nb);
		struct gpuproj_signature sig = {
			.name = k->name, .tag = k->tag, .grid = k->grid, .block = k->block,
			.smem_dynamic = k->smem_dynamic, .device = 0,
		};
		struct pair *p;

		if (!in_base && gpuproj_profile_find(out->base, &sig))
			continue;
		p = &pairs[n_pairs++];
		if (in_base) {
			p->b = k;
			p->bi = i;
			p->c = gpuproj_profile_find(out->cur, &sig);
			p->ci = p->c ? kernel_index(cur_index, nc, p->c) : SIZE_MAX;
		} else {
			p->c = k;
			p->ci = i - nb;
			p->bi = SIZE_MAX;
		}
	}
	for (i = 0; i < n_pairs; i++)
		pairs[i].key = fmax(total_or_zero(pairs[i].b), total_or_zero(pairs[i].c));
	qsort(pairs, n_pairs, sizeof(*pairs), cmp_pair);
	free(cur_index);
	*ret = pairs;
	*ret_n = n_pairs;
	return GPUPROJ_OK;
}

/* Phase 6: the columns (measured, then each target) and their whole-run cells. */
static int
gate_columns(struct gpuproj_gate_result *out, const struct gpuproj_target *const *gate_targets,
	     size_t ncol, const struct gpuproj_run_projection *bruns,
	     const struct gpuproj_run_projection *cruns, const struct gpuproj_gate_options *opt)
{
	double base_ns;
	size_t col;

	out->columns = calloc(ncol, sizeof(*out->columns));
	if (!out->columns)
		return GPUPROJ_E_NOMEM;
	out->n_columns = ncol;
	for (col = 0; col < ncol; col++) {
		struct gpuproj_gate_column *c = &out->columns[col];

		if (col == 0 && out->gpu_changed)
			snprintf(c->label, sizeof(c->label), "%s -> %s (measured)",
				 out->base_source->name, out->cur_source->name);
		else if (col == 0)
			snprintf(c->label, sizeof(c->label), "%s (measured)", out->base_source->name);
		else
			snprintf(c->label, sizeof(c->label), "%s", gate_targets[col - 1]->name);
		c->target = col ? gate_targets[col - 1] : NULL;
		if (run_cell(&c->run, col, out, col ? &bruns[col - 1] : NULL,
			     col ? &cruns[col - 1] : NULL, opt))
			return GPUPROJ_E_NOMEM;
		base_ns = isnan(c->run.base_ns) ? 0 : c->run.base_ns;
		c->min_time_ns = !isnan(opt->min_time_ns) ? opt->min_time_ns
							  : opt->min_time_fraction * base_ns;
		if (c->run.status == GPUPROJ_GATE_REGRESSED)
			out->n_regressed++;
	}
	return GPUPROJ_OK;
}

/* Phase 7: every kernel pair's cell in every column, and the counts. */
static int
gate_kernels(struct gpuproj_gate_result *out, const struct pair *pairs, size_t n_pairs,
	     const struct gpuproj_run_projection *bruns,
	     const struct gpuproj_run_projection *cruns, const struct gpuproj_gate_options *opt)
{
	size_t ncol = out->n_columns, i, col;

	out->kernels = calloc(n_pairs ? n_pairs : 1, sizeof(*out->kernels));
	if (!out->kernels)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < n_pairs; i++) {
		struct gpuproj_gate_kernel *gk = &out->kernels[i];

		gk->base = pairs[i].b;
		gk->cur = pairs[i].c;
		gk->cells = calloc(ncol, sizeof(*gk->cells));
		if (!gk->cells)
			return GPUPROJ_E_NOMEM;
		out->n_kernels++;
		if (!gk->base)
			out->n_new++;
		else if (!gk->cur)
			out->n_vanished++;
		for (col = 0; col < ncol; col++) {
			struct gpuproj_gate_cell *cell = &gk->cells[col];

			if (kernel_cell(cell, &pairs[i], col, col ? &bruns[col - 1] : NULL,
					col ? &cruns[col - 1] : NULL, out, opt,
					out->columns[col].min_time_ns))
				return GPUPROJ_E_NOMEM;
			if (cell->status == GPUPROJ_GATE_REGRESSED) {
				out->n_regressed++;
				out->columns[col].n_regressed++;
			} else if (cell->status == GPUPROJ_GATE_UNPROJECTED) {
				out->n_unprojected++;
				out->columns[col].n_unprojected++;
			}
			out->columns[col].n_coarse += cell->coarse;
		}
	}
	out->regression = out->n_regressed > 0;
	return GPUPROJ_OK;
}

/* ---- findings: one per cause ---- */

/*
 * Metrics that are rates of the run rather than counts of its work: they
 * move with the time itself (cycles, clock, achieved occupancy, the tensor
 * pipe's share of active cycles), so they name no cause.
 */
static bool
measured_with_time(enum gpuproj_metric m)
{
	return m == GPUPROJ_M_CYCLES_SM_ACTIVE || m == GPUPROJ_M_CLOCK_SM ||
	       m == GPUPROJ_M_OCCUPANCY_ACHIEVED || m == GPUPROJ_M_TENSOR_UTILIZATION;
}

static int
cmp_change(const void *x, const void *y)
{
	const struct gpuproj_gate_counter_change *a = x, *b = y;
	double fa = fabs(a->change), fb = fabs(b->change);

	if (fa != fb)
		return fa > fb ? -1 : 1;
	return a->metric < b->metric ? -1 : a->metric > b->metric;
}

/* The counters of a kernel in both profiles, compared (finding's n_compared, changes). */
static void
compare_counters(const struct gpuproj_kernel *b, const struct gpuproj_kernel *c,
		 struct gpuproj_gate_finding *f)
{
	struct gpuproj_gate_counter_change all[GPUPROJ_M_COUNT];
	size_t m;

	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		double vb, vc, d;

		if (measured_with_time((enum gpuproj_metric)m) ||
		    !gpuproj_kernel_has(b, (enum gpuproj_metric)m) ||
		    !gpuproj_kernel_has(c, (enum gpuproj_metric)m))
			continue;
		f->n_compared++;
		vb = gpuproj_kernel_metric(b, (enum gpuproj_metric)m);
		vc = gpuproj_kernel_metric(c, (enum gpuproj_metric)m);
		d = vc - vb;
		if (fabs(d) <= GPUPROJ_GATE_COUNTER_TOLERANCE * fabs(vb))
			continue;
		all[f->n_changed].metric = (enum gpuproj_metric)m;
		all[f->n_changed].base = vb;
		all[f->n_changed].cur = vc;
		all[f->n_changed].change = vb != 0 ? d / vb : d > 0 ? INFINITY : -INFINITY;
		f->n_changed++;
	}
	qsort(all, f->n_changed, sizeof(all[0]), cmp_change);
	memcpy(f->changes, all, sizeof(all[0]) * (f->n_changed < GPUPROJ_GATE_FINDING_COUNTERS
						  ? f->n_changed : GPUPROJ_GATE_FINDING_COUNTERS));
	if (!f->n_compared)
		f->cause = GPUPROJ_GATE_CAUSE_UNKNOWN;
	else
		f->cause = f->n_changed ? GPUPROJ_GATE_CAUSE_COUNTERS : GPUPROJ_GATE_CAUSE_TIME;
}

/* "+12.0%" (util: the writers' form), "+inf%". */
static void
sb_pct(struct strbuf *sb, double change)
{
	if (isinf(change))
		strbuf_append(sb, change > 0 ? "+inf%" : "-inf%");
	else
		strbuf_printf(sb, "%+.1f%%", change * 100);
}

/* "+a% to +b% on N targets" or "+a% on NAME" over cells[] of the target columns. */
static void
sb_range(struct strbuf *sb, const struct gpuproj_gate_result *r,
	 const struct gpuproj_gate_cell *cells, size_t stride,
	 bool (*keep)(const struct gpuproj_gate_cell *, const void *), const void *arg)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t col, n = 0, one = 0;
	char a[32], b[32];

	for (col = 1; col < r->n_columns; col++) {
		const struct gpuproj_gate_cell *c =
			(const struct gpuproj_gate_cell *)((const char *)cells + col * stride);

		if (isnan(c->change) || (keep && !keep(c, arg)))
			continue;
		lo = fmin(lo, c->change);
		hi = fmax(hi, c->change);
		one = col;
		n++;
	}
	if (!n)
		return;
	snprintf(a, sizeof(a), "%+.1f%%", lo * 100);
	snprintf(b, sizeof(b), "%+.1f%%", hi * 100);
	if (strcmp(a, b) == 0)
		strbuf_append(sb, a);
	else
		strbuf_printf(sb, "%s to %s", a, b);
	if (n == 1)
		strbuf_printf(sb, " on %s", r->columns[one].label);
	else
		strbuf_printf(sb, " on %zu targets", n);
}

static bool
bound_is(const struct gpuproj_gate_cell *c, const void *arg)
{
	return c->binding == *(const enum gpuproj_bound *)arg;
}

/*
 * "the dram-bound targets regress most (dram-bound: +40.0% on A;
 * compute-bound: +0.0% on B)": the compared target cells grouped by their
 * binding, the group with the largest change first.
 */
static void
sb_bindings(struct strbuf *sb, const struct gpuproj_gate_result *r,
	    const struct gpuproj_gate_kernel *gk)
{
	enum gpuproj_bound order[GPUPROJ_BOUND_UNKNOWN + 1];
	double top[GPUPROJ_BOUND_UNKNOWN + 1];
	bool regressed[GPUPROJ_BOUND_UNKNOWN + 1] = { false };
	size_t n = 0, i, j, col;

	for (i = 0; i <= GPUPROJ_BOUND_UNKNOWN; i++)
		top[i] = NAN;
	for (col = 1; col < r->n_columns; col++) {
		const struct gpuproj_gate_cell *c = &gk->cells[col];

		if (isnan(c->change))
			continue;
		if (isnan(top[c->binding]))
			order[n++] = c->binding;
		top[c->binding] = fmax(isnan(top[c->binding]) ? -INFINITY : top[c->binding],
				       c->change);
		regressed[c->binding] |= c->status == GPUPROJ_GATE_REGRESSED;
	}
	if (!n)
		return;
	/* Largest change first; ties in the enum's order (insertion sort: n ≤ 10). */
	for (i = 1; i < n; i++) {
		for (j = i; j > 0; j--) {
			double a = top[order[j]], b = top[order[j - 1]];
			enum gpuproj_bound t = order[j];

			if (a < b || (a == b && order[j] > order[j - 1]))
				break;
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	}
	if (n == 1) {
		strbuf_printf(sb, "; every target %s-bound: ", gpuproj_bound_name(order[0]));
		sb_range(sb, r, gk->cells, sizeof(gk->cells[0]), bound_is, &order[0]);
		return;
	}
	strbuf_printf(sb, "; the %s-bound targets %s most (", gpuproj_bound_name(order[0]),
		      regressed[order[0]] ? "regress" : "change");
	for (i = 0; i < n; i++) {
		strbuf_printf(sb, "%s%s-bound: ", i ? "; " : "", gpuproj_bound_name(order[i]));
		sb_range(sb, r, gk->cells, sizeof(gk->cells[0]), bound_is, &order[i]);
	}
	strbuf_append(sb, ")");
}

/* "+12.0% measured on SrcGPU", or why the source column has no change. */
static void
sb_measured(struct strbuf *sb, const struct gpuproj_gate_result *r,
	    const struct gpuproj_gate_cell *c)
{
	if (isnan(c->change)) {
		strbuf_printf(sb, "%s on the source", gpuproj_gate_status_name(c->status));
		return;
	}
	sb_pct(sb, c->change);
	strbuf_printf(sb, " measured on %s", r->base_source->name);
}

static void
kernel_finding_text(struct strbuf *sb, const struct gpuproj_gate_result *r,
		    const struct gpuproj_gate_kernel *gk, const struct gpuproj_gate_finding *f)
{
	char label[1024];
	size_t i;

	strbuf_printf(sb, "kernel %s: ", gpuproj_gate_kernel_label(gk->base, label,
								   sizeof(label)));
	sb_measured(sb, r, &gk->cells[0]);
	switch (f->cause) {
	case GPUPROJ_GATE_CAUSE_TIME:
		strbuf_append(sb, ", counters unchanged");
		if (f->n_targets_compared) {
			strbuf_append(sb, "; every target follows (");
			sb_range(sb, r, gk->cells, sizeof(gk->cells[0]), NULL, NULL);
			strbuf_append(sb, ")");
		}
		return;
	case GPUPROJ_GATE_CAUSE_COUNTERS:
		strbuf_append(sb, "; counters changed: ");
		for (i = 0; i < f->n_changed && i < GPUPROJ_GATE_FINDING_COUNTERS; i++) {
			strbuf_printf(sb, "%s%s ", i ? ", " : "",
				      gpuproj_metric_name(f->changes[i].metric));
			if (f->changes[i].base == 0)
				strbuf_printf(sb, "0 -> %.4g", f->changes[i].cur);
			else
				sb_pct(sb, f->changes[i].change);
		}
		if (f->n_changed > GPUPROJ_GATE_FINDING_COUNTERS)
			strbuf_printf(sb, " and %zu more",
				      f->n_changed - GPUPROJ_GATE_FINDING_COUNTERS);
		sb_bindings(sb, r, gk);
		return;
	case GPUPROJ_GATE_CAUSE_UNKNOWN:
	case GPUPROJ_GATE_CAUSE_RUN:
		strbuf_append(sb, "; no counter in both profiles, the cause is not known");
		if (f->n_targets_compared) {
			strbuf_append(sb, " (");
			sb_range(sb, r, gk->cells, sizeof(gk->cells[0]), NULL, NULL);
			strbuf_append(sb, ")");
		}
		return;
	}
}

/* Measured total change of a kernel on the source, ns (a missing side counts 0). */
static double
total_change(const struct gpuproj_gate_kernel *gk)
{
	return total_or_zero(gk->cur) - total_or_zero(gk->base);
}

static void
run_finding_text(struct strbuf *sb, const struct gpuproj_gate_result *r,
		 const struct gpuproj_gate_finding *f)
{
	const struct gpuproj_gate_cell *c = &r->columns[0].run;
	size_t i, j, best[3], n_best = 0;
	char a[32], b[32];

	strbuf_printf(sb, "whole run%s: ", r->options.metric == GPUPROJ_GATE_METRIC_WALL
					   ? " (wall time)" : "");
	sb_measured(sb, r, c);
	if (!isnan(c->change))
		strbuf_printf(sb, " (%s -> %s)", format_ns(c->base_ns, a, sizeof(a)),
			      format_ns(c->cur_ns, b, sizeof(b)));
	if (f->n_targets_compared) {
		strbuf_append(sb, "; ");
		sb_range(sb, r, &r->columns[0].run, sizeof(r->columns[0]), NULL, NULL);
		if (f->n_targets_regressed < f->n_targets_compared)
			strbuf_printf(sb, " (%zu regress%s)", f->n_targets_regressed,
				      f->n_targets_regressed == 1 ? "es" : "");
	}
	/* The three kernels that added the most measured time. */
	for (i = 0; i < r->n_kernels; i++) {
		double d = total_change(&r->kernels[i]);

		if (!(d > 0))
			continue;
		for (j = n_best; j > 0 && total_change(&r->kernels[best[j - 1]]) < d; j--) {
			if (j < 3)
				best[j] = best[j - 1];
		}
		if (j < 3) {
			best[j] = i;
			n_best += n_best < 3;
		}
	}
	for (i = 0; i < n_best; i++) {
		const struct gpuproj_gate_kernel *gk = &r->kernels[best[i]];
		char label[1024];

		strbuf_printf(sb, "%s%s +%s%s", i ? ", " : "; largest changes: ",
			      gpuproj_gate_kernel_label(gk->base ? gk->base : gk->cur, label,
							sizeof(label)),
			      format_ns(total_change(gk), a, sizeof(a)), gk->base ? "" : " (new)");
	}
}

/* Phase 8: one finding per regressed kernel, then the whole run's. */
static int
gate_findings(struct gpuproj_gate_result *out)
{
	size_t i, col, n = 0;
	bool run = false;

	for (col = 0; col < out->n_columns; col++)
		run |= out->columns[col].run.status == GPUPROJ_GATE_REGRESSED;
	out->findings = calloc(out->n_kernels + 1, sizeof(*out->findings));
	if (!out->findings)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i <= out->n_kernels; i++) {
		const struct gpuproj_gate_kernel *gk = i < out->n_kernels ? &out->kernels[i] : NULL;
		struct gpuproj_gate_finding *f = &out->findings[n];
		struct strbuf sb;

		memset(f, 0, sizeof(*f));
		for (col = 0; col < out->n_columns; col++) {
			const struct gpuproj_gate_cell *c = gk ? &gk->cells[col]
							       : &out->columns[col].run;

			f->n_regressed += c->status == GPUPROJ_GATE_REGRESSED;
			if (col && !isnan(c->change)) {
				f->n_targets_compared++;
				f->n_targets_regressed += c->status == GPUPROJ_GATE_REGRESSED;
			}
		}
		if (gk ? !f->n_regressed : !run)
			continue;
		f->kernel = gk ? i : SIZE_MAX;
		strbuf_init(&sb);
		if (gk) {
			compare_counters(gk->base, gk->cur, f);
			kernel_finding_text(&sb, out, gk, f);
		} else {
			f->cause = GPUPROJ_GATE_CAUSE_RUN;
			run_finding_text(&sb, out, f);
		}
		if (sb.oom) {
			strbuf_free(&sb);
			return GPUPROJ_E_NOMEM;
		}
		f->text = strbuf_steal(&sb);
		n++;
		out->n_findings = n;
	}
	return GPUPROJ_OK;
}

int
gpuproj_gate_compare(const struct gpuproj_profile *base, const struct gpuproj_profile *cur,
		     const struct gpuproj_targets *targets,
		     const struct gpuproj_target *const *gate_targets, size_t n_gate_targets,
		     const struct gpuproj_gate_options *opt_in, struct gpuproj_gate_result *out,
		     struct gpuproj_error *reterr)
{
	struct gpuproj_gate_options opt;
	struct gpuproj_run_projection *bruns = NULL, *cruns = NULL;
	struct pair *pairs = NULL;
	size_t n_pairs = 0, i;
	const char *bl, *cl;
	int r;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!base || !cur || !targets || !out || (n_gate_targets && !gate_targets))
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	r = gate_options(opt_in, gate_targets, n_gate_targets, &opt, reterr);
	if (r)
		return r;
	bl = opt.baseline_label ? opt.baseline_label : "baseline";
	cl = opt.current_label ? opt.current_label : "current";
	out->options = opt;
	r = gate_timed(base, cur, bl, cl, reterr);
	if (r == GPUPROJ_OK && opt.metric == GPUPROJ_GATE_METRIC_WALL)
		r = gate_wall_identity(base, cur, bl, cl, reterr);
	if (r == GPUPROJ_OK)
		r = gate_sources(base, cur, targets, &opt, bl, cl, out, reterr);
	if (r)
		return r;
	/* Phase 4: one device per profile, projected onto every target column. */
	if (fold_devices(base, &out->base) || fold_devices(cur, &out->cur))
		goto nomem;
	bruns = calloc(n_gate_targets + 1, sizeof(*bruns));
	cruns = calloc(n_gate_targets + 1, sizeof(*cruns));
	if (!bruns || !cruns)
		goto nomem;
	for (i = 0; i < n_gate_targets; i++) {
		if (gpuproj_project_run(out->base, opt.model, out->base_source, gate_targets[i],
					opt.model_options, &bruns[i]) ||
		    gpuproj_project_run(out->cur, opt.model, out->cur_source, gate_targets[i],
					opt.model_options, &cruns[i]))
			goto nomem;
	}
	if (gate_pairs(out, &pairs, &n_pairs) ||
	    gate_columns(out, gate_targets, n_gate_targets + 1, bruns, cruns, &opt) ||
	    gate_kernels(out, pairs, n_pairs, bruns, cruns, &opt) || gate_findings(out))
		goto nomem;
	goto out;
nomem:
	r = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
out:
	for (i = 0; i < n_gate_targets; i++) {
		if (bruns)
			gpuproj_run_projection_clear(&bruns[i]);
		if (cruns)
			gpuproj_run_projection_clear(&cruns[i]);
	}
	free(bruns);
	free(cruns);
	free(pairs);
	return r;
}
