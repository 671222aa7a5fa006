/* SPDX-License-Identifier: MIT */
/*
 * gpuproj bench: statistics and ceilings (docs/bench.md, "From runs to
 * ceilings").
 *
 * Every benchmark gives one rate per timed run (work / time); a ceiling is
 * the median of those rates, its spread the interquartile range relative
 * to the median. Then:
 *  - DRAM: the highest median of read, copy, scale and triad (write-only
 *    init is reported but not used, as for targets.yaml's measured rows);
 *  - L2: the plateau = median of the point medians with footprints from
 *    L2/8 to L2/2; the drop between L2/2 and the L2 size is reported (a
 *    segmented L2, as on GA100 and GH100, loses bandwidth there);
 *  - L1: the best size; shared: the conflict-free (stride 1) rate, and
 *    bytes per clock per SM for every stride;
 *  - clock: median of the SM clock samples of the compute benchmarks
 *    (NVML, during the runs), else the device's maximum clock;
 *  - ipc_per_scheduler = GIPS / (SMs x 4 schedulers x clock).
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

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

/* SM clock: median over every sample of the compute family. */
static void
summarize_clock(const struct bench_raw *raw, struct bench_summary *s)
{
	double *all;
	size_t n = 0, i, j;

	s->clock_mhz = raw->dev.max_clock_mhz;
	s->clock_lo_mhz = s->clock_hi_mhz = NAN;
	for (i = 0; i < raw->n; i++) {
		if (raw->meas[i].family && strcmp(raw->meas[i].family, "compute") == 0)
			n += raw->meas[i].n_clock;
	}
	if (!n)
		return;
	all = malloc(n * sizeof(*all));
	if (!all)
		return;
	n = 0;
	for (i = 0; i < raw->n; i++) {
		const struct bench_meas *m = &raw->meas[i];

		if (!m->family || strcmp(m->family, "compute") != 0 || m->error)
			continue;
		for (j = 0; j < m->n_clock; j++)
			all[n++] = m->sm_mhz[j];
	}
	{
		struct bench_stats c;

		bench_stats_compute(all, n, &c);
		if (c.n) {
			s->clock_mhz = c.median;
			s->clock_observed = true;
			s->clock_samples = c.n;
			s->clock_lo_mhz = c.min;
			s->clock_hi_mhz = c.max;
		}
	}
	free(all);
}

static void
summarize_dram(const struct bench_raw *raw, struct bench_summary *s)
{
	static const char *const names[BENCH_DRAM_COUNT] = {
		"dram_init", "dram_read", "dram_copy", "dram_scale", "dram_triad",
	};
	size_t k;

	s->dram_gbs = NAN;
	s->dram_best = -1;
	s->dram_array_b = NAN;
	for (k = 0; k < BENCH_DRAM_COUNT; k++) {
		bench_rate_compute(bench_raw_find(raw, names[k]), &s->dram[k]);
		if (s->dram[k].m)
			s->dram_array_b = s->dram[k].m->size_b;
		if (k != BENCH_DRAM_INIT && s->dram[k].ok &&
		    (isnan(s->dram_gbs) || s->dram[k].value > s->dram_gbs)) {
			s->dram_gbs = s->dram[k].value;
			s->dram_best = (int)k;
		}
	}
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

void
bench_summarize(const struct bench_raw *raw, struct bench_summary *s)
{
	memset(s, 0, sizeof(*s));
	summarize_clock(raw, s);
	summarize_compute(raw, s);
	summarize_dram(raw, s);
	summarize_l2(raw, s);
	summarize_l1_shared(raw, s);
	s->ipc_per_scheduler = NAN;
	if (s->gips.ok) {
		double clk = s->gips.clock_mhz > 0 ? s->gips.clock_mhz : s->clock_mhz;

		if (clk > 0 && raw->dev.sms > 0)
			s->ipc_per_scheduler =
				s->gips.value * 1e9 / (raw->dev.sms * 4.0 * clk * 1e6);
	}
}
