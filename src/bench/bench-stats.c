/* SPDX-License-Identifier: MIT */
/*
 * gpuproj bench: statistics and ceilings (docs/bench.md, "From runs to
 * ceilings").
 *
 * Every benchmark gives one rate per timed run (work / time); a ceiling is
 * the median of those rates, its spread the interquartile range relative
 * to the median. Then, on the one basis of targets.yaml
 * (docs/targets-schema.md, "One basis per level"):
 *  - DRAM: stream_gbs = the read, copy and triad medians; bw_gbs.dram =
 *    triad on every GPU (scale and the write-only init are reported only);
 *  - L2: the plateau = median of the point medians with footprints from
 *    L2/8 to L2/2; the drop between L2/2 and the L2 size is reported (a
 *    segmented L2, as on GA100 and GH100, loses bandwidth there);
 *  - L1: the best size; shared: the conflict-free (stride 1) rate, and
 *    bytes per clock per SM for every stride;
 *  - clock: median of the SM clock samples NVML logged during the FMA
 *    runs, else the device's maximum clock; the sustained clock of
 *    targets.yaml = FP32 FMA rate / (2 x FP32 lanes x SMs), the lanes of the
 *    CC from the built-in targets.yaml (else estimated from the rates);
 *  - latency: ns per dependent load of the pointer chase, the median of
 *    each footprint's runs, a level's value the median over its footprints;
 *  - ipc_per_scheduler = GIPS / (SMs x 4 schedulers x clock).
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/target.h>

#include "bench.h"
#include "util.h"

/* Quantile of sorted x[0..n), linear interpolation between order statistics. */
static double
quantile(const double *x, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)floor(pos);
	double frac = pos - (double)lo;

	if (lo + 1 >= n)
		return x[n - 1];
	return x[lo] + frac * (x[lo + 1] - x[lo]);
}

void
bench_stats_compute(const double *x, size_t n, struct bench_stats *ret)
{
	double *s;
	size_t i, m = 0;

	memset(ret, 0, sizeof(*ret));
	ret->median = ret->min = ret->max = ret->q1 = ret->q3 = ret->spread_pct = NAN;
	s = n ? malloc(n * sizeof(*s)) : NULL;
	if (!s)
		return;
	for (i = 0; i < n; i++) {
		if (isfinite(x[i]))
			s[m++] = x[i];
	}
	if (m) {
		qsort(s, m, sizeof(*s), cmp_double);
		ret->n = m;
		ret->min = s[0];
		ret->max = s[m - 1];
		ret->median = quantile(s, m, 0.5);
		ret->q1 = quantile(s, m, 0.25);
		ret->q3 = quantile(s, m, 0.75);
		ret->spread_pct = ret->median != 0 ? 100 * (ret->q3 - ret->q1) / ret->median : NAN;
	}
	free(s);
}

void
bench_rate_compute(const struct bench_meas *m, struct bench_rate *ret)
{
	double *rates;
	size_t i;

	memset(ret, 0, sizeof(*ret));
	ret->value = ret->clock_mhz = NAN;
	bench_stats_compute(NULL, 0, &ret->s);
	ret->m = m;
	if (!m || m->error || m->n == 0 || !(m->work > 0))
		return;
	rates = malloc(m->n * sizeof(*rates));
	if (!rates)
		return;
	for (i = 0; i < m->n; i++)
		rates[i] = m->times_ns[i] > 0 ? m->work / m->times_ns[i] : NAN; /* per ns = G/s */
	bench_stats_compute(rates, m->n, &ret->s);
	free(rates);
	if (ret->s.n == 0)
		return;
	ret->ok = true;
	ret->value = ret->s.median;
	if (m->n_clock) {
		struct bench_stats c;

		bench_stats_compute(m->sm_mhz, m->n_clock, &c);
		ret->clock_mhz = c.median;
	}
}

static void
summarize_compute(const struct bench_raw *raw, struct bench_summary *s)
{
	static const char *const fop[BENCH_FOP_COUNT] = { "fma", "add", "mul" };
	char name[32];
	size_t p, k;

	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < BENCH_FOP_COUNT; k++) {
			snprintf(name, sizeof(name), "%s_%s", gpuproj_prec_name(p), fop[k]);
			bench_rate_compute(bench_raw_find(raw, name), &s->fp[p][k]);
		}
	}
	bench_rate_compute(bench_raw_find(raw, "int32_add"), &s->int_add);
	bench_rate_compute(bench_raw_find(raw, "int32_mad"), &s->int_mad);
	bench_rate_compute(bench_raw_find(raw, "shared_ldst"), &s->ldst);
	bench_rate_compute(bench_raw_find(raw, "gips"), &s->gips);
}

static bool
is_fma_run(const struct bench_meas *m)
{
	size_t n = strlen(m->name);

	return n > 4 && strcmp(m->name + n - 4, "_fma") == 0 && m->family &&
	       strcmp(m->family, "compute") == 0;
}

/*
 * SM clock under FMA load: median over every NVML sample of the FMA runs
 * (fma_only) or of all compute runs; false when there is none.
 */
static bool
clock_from(const struct bench_raw *raw, bool fma_only, struct bench_summary *s)
{
	struct bench_stats c;
	double *all;
	size_t n = 0, i, j;

	for (i = 0; i < raw->n; i++)
		n += raw->meas[i].n_clock;
	if (!n)
		return false;
	all = malloc(n * sizeof(*all));
	if (!all)
		return false;
	n = 0;
	for (i = 0; i < raw->n; i++) {
		const struct bench_meas *m = &raw->meas[i];

		if (!m->family || strcmp(m->family, "compute") != 0 || m->error ||
		    (fma_only && !is_fma_run(m)))
			continue;
		for (j = 0; j < m->n_clock; j++)
			all[n++] = m->sm_mhz[j];
	}
	bench_stats_compute(all, n, &c);
	free(all);
	if (!c.n)
		return false;
	s->clock_mhz = c.median;
	s->clock_observed = true;
	s->clock_samples = c.n;
	s->clock_lo_mhz = c.min;
	s->clock_hi_mhz = c.max;
	return true;
}

static void
summarize_clock(const struct bench_raw *raw, struct bench_summary *s)
{
	s->clock_mhz = raw->dev.max_clock_mhz;
	s->clock_lo_mhz = s->clock_hi_mhz = NAN;
	if (!clock_from(raw, true, s))
		clock_from(raw, false, s);
	/* The datasheet (maximum boost) clock: what the driver reports, else NVML's. */
	s->boost_mhz = raw->dev.max_clock_mhz > 0 ? raw->dev.max_clock_mhz :
		       raw->dev.nvml_max_sm_clock_mhz > 0 ? raw->dev.nvml_max_sm_clock_mhz : NAN;
}

static void
summarize_dram(const struct bench_raw *raw, struct bench_summary *s)
{
	static const char *const names[BENCH_DRAM_COUNT] = {
		"dram_init", "dram_read", "dram_copy", "dram_scale", "dram_triad",
	};
	size_t k;

	s->dram_array_b = NAN;
	for (k = 0; k < BENCH_DRAM_COUNT; k++) {
		bench_rate_compute(bench_raw_find(raw, names[k]), &s->dram[k]);
		if (s->dram[k].m)
			s->dram_array_b = s->dram[k].m->size_b;
	}
	/* NaN where failed (bench_rate_compute leaves value NaN). */
	s->stream_gbs[GPUPROJ_STREAM_READ] = s->dram[BENCH_DRAM_READ].value;
	s->stream_gbs[GPUPROJ_STREAM_COPY] = s->dram[BENCH_DRAM_COPY].value;
	s->stream_gbs[GPUPROJ_STREAM_TRIAD] = s->dram[BENCH_DRAM_TRIAD].value;
	s->dram_gbs = s->stream_gbs[GPUPROJ_STREAM_TRIAD];
	if (raw->dev.mem_clock_mhz > 0 && raw->dev.mem_bus_bits > 0)
		s->peak_dram_gbs =
			2 * raw->dev.mem_clock_mhz * 1e6 * raw->dev.mem_bus_bits / 8 / 1e9;
	else
		s->peak_dram_gbs = NAN;
}

static int
cmp_l2(const void *a, const void *b)
{
	double x = ((const struct bench_l2_point *)a)->footprint_b;
	double y = ((const struct bench_l2_point *)b)->footprint_b;

	return (x > y) - (x < y);
}

static void
summarize_l2(const struct bench_raw *raw, struct bench_summary *s)
{
	double l2 = raw->dev.l2_b, med[BENCH_MAX_POINTS], lowest = NAN;
	size_t i, n = 0;

	s->l2_gbs = s->l2_drop_pct = s->l2_drop_footprint_b = NAN;
	for (i = 0; i < raw->n && s->n_l2 < BENCH_MAX_POINTS; i++) {
		struct bench_l2_point *p = &s->l2[s->n_l2];

		if (strcmp(raw->meas[i].name, "l2_read") != 0)
			continue;
		p->footprint_b = raw->meas[i].size_b;
		bench_rate_compute(&raw->meas[i], &p->r);
		s->n_l2++;
	}
	qsort(s->l2, s->n_l2, sizeof(s->l2[0]), cmp_l2);
	if (!(l2 > 0))
		return;
	/* Plateau rule: footprints L2/8 .. L2/2 (a 1% margin for rounding to 4 KiB). */
	for (i = 0; i < s->n_l2; i++) {
		double f = s->l2[i].footprint_b / l2;

		if (s->l2[i].r.ok && f >= 0.125 * 0.99 && f <= 0.5 * 1.01)
			med[n++] = s->l2[i].r.value;
	}
	if (n) {
		struct bench_stats st;

		bench_stats_compute(med, n, &st);
		s->l2_gbs = st.median;
		s->l2_plateau_points = n;
	}
	/* Segmented L2: the lowest point above L2/2 and up to the L2 size. */
	for (i = 0; i < s->n_l2; i++) {
		double f = s->l2[i].footprint_b / l2;

		if (s->l2[i].r.ok && f > 0.5 * 1.01 && f <= 1.01 &&
		    (isnan(lowest) || s->l2[i].r.value < lowest)) {
			lowest = s->l2[i].r.value;
			s->l2_drop_footprint_b = s->l2[i].footprint_b;
		}
	}
	if (!isnan(lowest) && s->l2_gbs > 0)
		s->l2_drop_pct = 100 * (1 - lowest / s->l2_gbs);
}

static void
summarize_l1_shared(const struct bench_raw *raw, struct bench_summary *s)
{
	size_t i;

	s->l1_gbs = s->l1_size_b = s->shared_gbs = NAN;
	for (i = 0; i < raw->n; i++) {
		const struct bench_meas *m = &raw->meas[i];

		if (strcmp(m->name, "l1_read") == 0 && s->n_l1 < BENCH_MAX_POINTS) {
			struct bench_l1_point *p = &s->l1[s->n_l1++];

			p->size_b = m->size_b;
			bench_rate_compute(m, &p->r);
			if (p->r.ok && (isnan(s->l1_gbs) || p->r.value > s->l1_gbs)) {
				s->l1_gbs = p->r.value;
				s->l1_size_b = p->size_b;
			}
		} else if (strcmp(m->name, "shared_read") == 0 && s->n_shared < BENCH_MAX_POINTS) {
			struct bench_shared_point *p = &s->shared[s->n_shared++];
			double clk;

			p->stride = m->stride;
			bench_rate_compute(m, &p->r);
			clk = p->r.clock_mhz > 0 ? p->r.clock_mhz : s->clock_mhz;
			p->bytes_per_clk_sm = p->r.ok && clk > 0 ?
				p->r.value * 1e9 / (raw->dev.sms * clk * 1e6) : NAN;
			if (p->stride == 1 && p->r.ok)
				s->shared_gbs = p->r.value;
		}
	}
}

static int
cmp_lat(const void *a, const void *b)
{
	const struct bench_lat_point *x = a, *y = b;

	if (x->level != y->level)
		return (x->level > y->level) - (x->level < y->level);
	return (x->footprint_b > y->footprint_b) - (x->footprint_b < y->footprint_b);
}

/* Pointer chase: ns per load of every footprint; a level's value is the median over them. */
static void
summarize_latency(const struct bench_raw *raw, struct bench_summary *s)
{
	static const char *const names[BENCH_LAT_COUNT] = {
		"latency_l1", "latency_l2", "latency_dram",
	};
	double med[BENCH_MAX_POINTS], clk[BENCH_MAX_POINTS];
	size_t i, l;

	for (i = 0; i < raw->n && s->n_lat < BENCH_MAX_POINTS; i++) {
		const struct bench_meas *m = &raw->meas[i];
		struct bench_lat_point *p = &s->lat[s->n_lat];
		double ns[1000];
		size_t k, n = 0;

		for (l = 0; l < BENCH_LAT_COUNT && strcmp(m->name, names[l]) != 0; l++)
			;
		if (l == BENCH_LAT_COUNT)
			continue;
		s->n_lat++;
		p->level = (enum bench_lat_level)l;
		p->footprint_b = m->size_b;
		p->m = m;
		p->clock_mhz = p->cycles = NAN;
		for (k = 0; k < m->n && n < ARRAY_LENGTH(ns); k++) {
			if (m->times_ns[k] > 0 && !m->error && m->work > 0)
				ns[n++] = m->times_ns[k] / m->work;
		}
		bench_stats_compute(ns, n, &p->ns);
		p->ok = p->ns.n > 0;
		if (p->ok && m->n_clock) {
			struct bench_stats c;

			bench_stats_compute(m->sm_mhz, m->n_clock, &c);
			p->clock_mhz = c.median;
			p->cycles = p->ns.median * c.median / 1000;
		}
	}
	qsort(s->lat, s->n_lat, sizeof(s->lat[0]), cmp_lat);
	for (l = 0; l < BENCH_LAT_COUNT; l++) {
		struct bench_stats st, cs;
		size_t n = 0, nc = 0;

		for (i = 0; i < s->n_lat; i++) {
			if (s->lat[i].level != l || !s->lat[i].ok)
				continue;
			med[n++] = s->lat[i].ns.median;
			if (s->lat[i].clock_mhz > 0)
				clk[nc++] = s->lat[i].clock_mhz;
		}
		bench_stats_compute(med, n, &st);
		bench_stats_compute(clk, nc, &cs);
		s->lat_ns[l] = st.median;
		s->lat_points[l] = st.n;
		s->lat_cycles[l] = cs.n ? st.median * cs.median / 1000 : NAN;
	}
}

static double
round_pow2(double x)
{
	return x >= 1 ? exp2(round(log2(x))) : 1;
}

/*
 * Lanes per SM: the built-in targets.yaml's for the CC, else estimated from
 * the measured FMA and IADD3 rates at the clock of their runs (rounded to a
 * power of two; the shared FP32/INT32 lanes cannot be told apart this way and
 * are taken as 0). Then the sustained clock and how much of the lanes each
 * FMA loop used.
 */
static void
summarize_lanes(const struct bench_raw *raw, struct bench_summary *s)
{
	struct bench_lanes *ln = &s->lanes;
	double sms = raw->dev.sms;
	int p;

	for (p = 0; p < GPUPROJ_LANE_COUNT; p++)
		ln->v[p] = NAN;
	if (!bench_lanes_builtin(raw->dev.cc_major, raw->dev.cc_minor, raw->dev.name, ln)) {
		bool ok = true;

		for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
			const struct bench_rate *r = &s->fp[p][BENCH_FOP_FMA];
			double clk = r->clock_mhz > 0 ? r->clock_mhz : s->clock_mhz;

			if (r->ok && clk > 0)
				ln->v[p] = round_pow2(r->value * 1000 / (2 * sms * clk));
			else
				ok = false;
		}
		if (s->int_add.ok && (s->int_add.clock_mhz > 0 || s->clock_mhz > 0))
			ln->v[GPUPROJ_LANE_INT32] = round_pow2(
				s->int_add.value * 1000 /
				(sms * (s->int_add.clock_mhz > 0 ? s->int_add.clock_mhz : s->clock_mhz)));
		else
			ok = false;
		ln->v[GPUPROJ_LANE_FP32_INT32_SHARED] = 0;
		if (ok) {
			ln->basis = GPUPROJ_BASIS_ESTIMATE;
		} else {
			for (p = 0; p < GPUPROJ_LANE_COUNT; p++)
				ln->v[p] = NAN;
		}
	}
	s->sustained_mhz = NAN;
	if (s->fp[GPUPROJ_FP32][BENCH_FOP_FMA].ok && ln->v[GPUPROJ_LANE_FP32] > 0)
		s->sustained_mhz = s->fp[GPUPROJ_FP32][BENCH_FOP_FMA].value * 1000 /
				   (2 * ln->v[GPUPROJ_LANE_FP32] * sms);
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		const struct bench_rate *r = &s->fp[p][BENCH_FOP_FMA];
		double clk = r->clock_mhz > 0 ? r->clock_mhz : s->clock_mhz;

		s->lane_use[p] = r->ok && ln->v[p] > 0 && clk > 0 ?
				 r->value * 1000 / (2 * ln->v[p] * sms * clk) : NAN;
	}
}

/* The five lanes_per_sm keys of t share one source of basis `ok` (or any, ok NONE): it, else NULL. */
static const struct gpuproj_source *
lanes_source(const struct gpuproj_target *t, enum gpuproj_basis ok)
{
	const struct gpuproj_source *src = gpuproj_target_source(t, "lanes_per_sm");
	int k;

	if (!src || isnan(t->lanes_per_sm[0]) || (ok != GPUPROJ_BASIS_NONE && src->basis != ok))
		return NULL;
	for (k = 0; k < GPUPROJ_LANE_COUNT; k++) {
		char path[48];

		snprintf(path, sizeof(path), "lanes_per_sm.%s", gpuproj_lane_name(k));
		if (gpuproj_target_source(t, path) != src)
			return NULL;
	}
	return src;
}

bool
bench_lanes_builtin(int cc_major, int cc_minor, const char *device_name,
		    struct bench_lanes *ret)
{
	static const enum gpuproj_basis order[] = { GPUPROJ_BASIS_DATASHEET,
						    GPUPROJ_BASIS_ESTIMATE };
	struct gpuproj_targets *ts = NULL;
	const struct gpuproj_target *found = NULL, *own;
	const struct gpuproj_source *src = NULL;
	bool by_name = false;
	char arch[32];
	size_t b, i;
	int k;

	snprintf(arch, sizeof(arch), "sm_%d%d", cc_major, cc_minor);
	if (gpuproj_targets_load_builtin(&ts, NULL))
		return false;
	/* The device's own entry, when it is one of this CC. */
	own = device_name ? gpuproj_targets_match(ts, device_name) : NULL;
	if (own && own->vendor == GPUPROJ_VENDOR_NVIDIA && strcmp(own->arch, arch) == 0 &&
	    (src = lanes_source(own, GPUPROJ_BASIS_NONE)) != NULL) {
		found = own;
		by_name = true;
	}
	/* Else the CC's: datasheet before estimate, the first in file order. */
	for (b = 0; !found && b < ARRAY_LENGTH(order); b++) {
		for (i = 0; !found && i < gpuproj_targets_count(ts); i++) {
			const struct gpuproj_target *t = gpuproj_targets_get(ts, i);

			if (t->vendor == GPUPROJ_VENDOR_NVIDIA && strcmp(t->arch, arch) == 0 &&
			    (src = lanes_source(t, order[b])) != NULL)
				found = t;
		}
	}
	if (found && strlen(src->text) < sizeof(ret->text) &&
	    strlen(found->name) < sizeof(ret->entry)) {
		for (k = 0; k < GPUPROJ_LANE_COUNT; k++)
			ret->v[k] = found->lanes_per_sm[k];
		ret->basis = src->basis;
		ret->builtin = true;
		ret->by_name = by_name;
		snprintf(ret->entry, sizeof(ret->entry), "%s", found->name);
		snprintf(ret->text, sizeof(ret->text), "%s", src->text);
	} else {
		found = NULL;
	}
	gpuproj_targets_free(ts);
	return found != NULL;
}

void
bench_summarize(const struct bench_raw *raw, struct bench_summary *s)
{
	memset(s, 0, sizeof(*s));
	summarize_clock(raw, s);
	summarize_compute(raw, s);
	summarize_dram(raw, s);
	summarize_l2(raw, s);
	summarize_l1_shared(raw, s);
	summarize_latency(raw, s);
	summarize_lanes(raw, s);
	s->ipc_per_scheduler = NAN;
	if (s->gips.ok) {
		double clk = s->gips.clock_mhz > 0 ? s->gips.clock_mhz : s->clock_mhz;

		if (clk > 0 && raw->dev.sms > 0)
			s->ipc_per_scheduler =
				s->gips.value * 1e9 / (raw->dev.sms * 4.0 * clk * 1e6);
	}
}
