/* SPDX-License-Identifier: MIT */
/*
 * gpuproj bench: the plan. Which micro-benchmarks run, on which grid, over
 * which buffer sizes and how often, all chosen from the properties the
 * device reports (docs/bench.md, "Sizes and repetitions"). The trip counts
 * here are only first guesses from nominal per-clock rates: the kernels
 * program scales them until one launch takes target_ms.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "target-chips.h"
#include "util.h"

/* Threads per block of the compute, DRAM, L2 and shared kernels. */
#define BLOCK 256
/* Shared memory per block of the shared-memory kernels (bench-kernels.h). */
#define SHARED_BLOCK_B 16384.0
#define MIB (1024.0 * 1024.0)

struct mode_params {
	int reps, warmup;
	double target_ms;          /* one launch of a compute / cache / shared kernel */
	double warm_ms;
	double dram_l2_factor;     /* DRAM array >= factor x L2 */
	double dram_min_b;
	double dram_ms;            /* DRAM array >= what the peak bandwidth reads in this time */
	int dram_reps;
	const double *l2_fractions; /* of the L2 size */
	size_t n_l2;
	const double *l1_sizes;
	size_t n_l1;
};

static const double l2_quick[] = { 0.125, 0.25, 0.375, 0.5, 0.75, 1.0, 2.0 };
static const double l2_default[] = { 0.125, 0.1875, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875,
				     1.0, 1.25, 1.5, 2.0 };
static const double l1_quick[] = { 32768 };
static const double l1_default[] = { 16384, 32768, 65536 };

static const struct mode_params modes[] = {
	[BENCH_MODE_QUICK] = { 5, 1, 3.0, 300, 4, 64 * MIB, 0.5, 9, l2_quick,
			       ARRAY_LENGTH(l2_quick), l1_quick, ARRAY_LENGTH(l1_quick) },
	[BENCH_MODE_DEFAULT] = { 15, 2, 25.0, 2000, 8, 512 * MIB, 1.0, 31, l2_default,
				 ARRAY_LENGTH(l2_default), l1_default, ARRAY_LENGTH(l1_default) },
};

static const char *const fp_names[GPUPROJ_PREC_COUNT][BENCH_FOP_COUNT] = {
	[GPUPROJ_FP16] = { "fp16_fma", "fp16_add", "fp16_mul" },
	[GPUPROJ_FP32] = { "fp32_fma", "fp32_add", "fp32_mul" },
	[GPUPROJ_FP64] = { "fp64_fma", "fp64_add", "fp64_mul" },
};
static const char *const dram_names[BENCH_DRAM_COUNT] = {
	"dram_init", "dram_read", "dram_copy", "dram_scale", "dram_triad",
};
static const unsigned shared_strides[] = { 1, 2, 4, 8, 16, 32 };

/*
 * Nominal thread-level rate per clock per SM of a benchmark, for first
 * trip counts and the time estimate only (measured values replace it).
 */
static double
nominal_per_clk_sm(const struct bench_device *d, const char *name)
{
	size_t p, k;

	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < BENCH_FOP_COUNT; k++) {
			if (strcmp(name, fp_names[p][k]) == 0) {
				int lanes = target_chip_fma_lanes(d->cc_major, d->cc_minor, p);

				if (lanes == 0)
					lanes = p == GPUPROJ_FP64 ? 2 : 64;
				/* half2: one instruction per two results */
				return p == GPUPROJ_FP16 ? lanes / 2.0 : lanes;
			}
		}
	}
	if (strcmp(name, "gips") == 0)
		return 4 * 32;      /* 4 schedulers x 1 warp instruction */
	if (strcmp(name, "shared_ldst") == 0)
		return 32;
	return 64;                  /* IADD3, IMAD */
}

static int
add(struct bench_plan *plan, size_t *cap, const struct bench_spec *s)
{
	if (plan->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;
		struct bench_spec *n = realloc(plan->specs, ncap * sizeof(*n));

		if (!n)
			return GPUPROJ_E_NOMEM;
		plan->specs = n;
		*cap = ncap;
	}
	plan->specs[plan->n++] = *s;
	return GPUPROJ_OK;
}

/* Trip count making one launch last about target_ms at the nominal rate. */
static long long
guess_iters(double work_per_iter, double rate_per_s, double target_ms)
{
	double it = rate_per_s > 0 ? target_ms * 1e-3 * rate_per_s / work_per_iter : 1;

	if (!(it >= 1))
		return 1;
	if (it > 1e9)
		return 1000000000LL;
	return (long long)it;
}

/* Largest power of two <= x (x >= 1). */
static double
pow2_floor(double x)
{
	return exp2(floor(log2(x)));
}

static double
pow2_ceil(double x)
{
	return exp2(ceil(log2(x)));
}

void
bench_latency_footprints(const struct bench_device *d, enum bench_mode mode,
			 double ret[BENCH_LAT_COUNT][2], size_t n[BENCH_LAT_COUNT])
{
	bool dflt = mode != BENCH_MODE_QUICK;
	double l2 = d->l2_b, f, dram, cap;

	/* L1: 16 KiB fits the L1 of every CC 7.0+ SM (32 KiB or more besides shared memory). */
	n[BENCH_LAT_L1] = 0;
	if (dflt)
		ret[BENCH_LAT_L1][n[BENCH_LAT_L1]++] = 8 * 1024;
	ret[BENCH_LAT_L1][n[BENCH_LAT_L1]++] = 16 * 1024;
	/*
	 * L2: L2/8, at least 2 MiB (8x the largest L1, 256 KiB on GH100 and GB100)
	 * but at most L2/4, rounded down to a power of two: between the L1 size and
	 * half the L2, in the near partition of a split L2 (GA100, GH100, GB100).
	 */
	f = pow2_floor(fmax(l2 / 8, fmin(2 * MIB, l2 / 4)));
	n[BENCH_LAT_L2] = 0;
	if (dflt && f / 2 >= MIB)
		ret[BENCH_LAT_L2][n[BENCH_LAT_L2]++] = f / 2;
	ret[BENCH_LAT_L2][n[BENCH_LAT_L2]++] = f;
	/*
	 * DRAM: 4x the L2 and at least 64 MiB, rounded up to a power of two, so a
	 * pass through the chain evicts every line before it comes round again;
	 * within a quarter of the free memory.
	 */
	dram = pow2_ceil(fmax(4 * l2, 64 * MIB));
	cap = d->free_mem_b > 0 ? pow2_floor(fmax(d->free_mem_b / 4, 4096)) : dram;
	n[BENCH_LAT_DRAM] = 0;
	ret[BENCH_LAT_DRAM][n[BENCH_LAT_DRAM]++] = fmin(dram, cap);
	if (dflt && 2 * dram <= cap)
		ret[BENCH_LAT_DRAM][n[BENCH_LAT_DRAM]++] = 2 * dram;
}

/*
 * Latency: one thread chasing pointers (src/bench/kernels/latency.cu) over
 * footprints that sit in L1, in L2 and far beyond the L2. First trip counts
 * from nominal latencies (40, 250, 700 ns per load).
 */
static int
plan_latency(const struct bench_device *d, const struct mode_params *mp, struct bench_plan *plan,
	     size_t *cap)
{
	static const char *const names[BENCH_LAT_COUNT] = {
		"latency_l1", "latency_l2", "latency_dram",
	};
	static const double nominal_ns[BENCH_LAT_COUNT] = { 40, 250, 700 };
	double fp[BENCH_LAT_COUNT][2];
	size_t n[BENCH_LAT_COUNT], l, i;
	int r = GPUPROJ_OK;

	bench_latency_footprints(d, plan->mode, fp, n);
	for (l = 0; l < BENCH_LAT_COUNT; l++) {
		for (i = 0; i < n[l] && !r; i++) {
			struct bench_spec s = {
				names[l], 1, 1,
				guess_iters(16.0, 1e9 / nominal_ns[l], mp->target_ms),
				fp[l][i], 128, mp->reps, mp->warmup, mp->target_ms,
			};

			r = add(plan, cap, &s);
		}
	}
	return r;
}

/* Resident blocks of `threads` per SM, limited by threads, blocks and shared memory. */
static unsigned
resident(const struct bench_device *d, unsigned threads, double smem_b)
{
	int by_threads = d->threads_per_sm / (int)threads;
	int n = by_threads < d->blocks_per_sm ? by_threads : d->blocks_per_sm;

	if (smem_b > 0) {
		int by_smem = (int)(d->smem_per_sm_b / (smem_b + d->smem_reserved_per_block_b));

		if (by_smem < n)
			n = by_smem;
	}
	return n > 0 ? (unsigned)n : 1;
}

/*
 * Compute: one full wave of 256-thread blocks, BENCH_OPS_PER_ITER (64) per
 * trip; `full` blocks fill the GPU.
 */
static int
plan_compute(const struct bench_device *d, const struct mode_params *mp, unsigned full,
	     struct bench_plan *plan, size_t *cap)
{
	static const char *const other[] = { "int32_add", "int32_mad", "gips" };
	double clk_hz = d->max_clock_mhz * 1e6;
	struct bench_spec s;
	size_t i, p, k;
	int r = GPUPROJ_OK;

	for (p = GPUPROJ_PREC_COUNT; p-- > 0;) {
		for (k = 0; k < BENCH_FOP_COUNT && !r; k++) {
			const char *name = fp_names[p][k];
			double rate = nominal_per_clk_sm(d, name) * d->sms * clk_hz;

			s = (struct bench_spec){
				name,
				full,
				BLOCK,
				guess_iters(64.0 * full * BLOCK, rate, mp->target_ms),
				0,
				1,
				mp->reps,
				mp->warmup,
				mp->target_ms
			};
			r = add(plan, cap, &s);
		}
	}
	for (i = 0; i < ARRAY_LENGTH(other) && !r; i++) {
		double rate = nominal_per_clk_sm(d, other[i]) * d->sms * clk_hz;

		s = (struct bench_spec){
			other[i],
			full,
			BLOCK,
			guess_iters(64.0 * full * BLOCK, rate, mp->target_ms),
			0,
			1,
			mp->reps,
			mp->warmup,
			mp->target_ms
		};
		r = add(plan, cap, &s);
	}
	return r;
}

/*
 * DRAM: arrays of factor x L2, at least dram_min_b and long enough for one pass to
 * take dram_ms at the peak bandwidth (launch ramp-up and tail stay small); all three
 * within half the free memory.
 */
static int
plan_dram(const struct bench_device *d, const struct mode_params *mp, unsigned full,
	  struct bench_plan *plan, size_t *cap)
{
	double arr = fmax(mp->dram_l2_factor * d->l2_b, mp->dram_min_b), cap_b;
	struct bench_spec s;
	size_t i;
	int r = GPUPROJ_OK;

	if (d->mem_clock_mhz > 0 && d->mem_bus_bits > 0)
		arr = fmax(arr, 2 * d->mem_clock_mhz * 1e6 * d->mem_bus_bits / 8 *
				mp->dram_ms * 1e-3);
	cap_b = d->free_mem_b > 0 ? d->free_mem_b / 2 / 3 : arr;
	if (arr > cap_b)
		arr = cap_b;
	arr = floor(arr / (2 * MIB)) * 2 * MIB;
	if (arr < 2 * MIB)
		arr = 2 * MIB;
	for (i = 0; i < BENCH_DRAM_COUNT && !r; i++) {
		s = (struct bench_spec){ dram_names[i], full,           BLOCK, 1, arr, 1,
					 mp->dram_reps, mp->warmup + 1, 0 };
		r = add(plan, cap, &s);
	}
	return r;
}

/* The caches: L2 by a footprint sweep, L1 by one block per SM re-reading its own. */
static int
plan_caches(const struct bench_device *d, const struct mode_params *mp, unsigned full,
	    struct bench_plan *plan, size_t *cap)
{
	double clk_hz = d->max_clock_mhz * 1e6;
	struct bench_spec s;
	size_t i;
	int r = GPUPROJ_OK;

	/* L2: footprint sweep, ld.global.cg, 8 loads of 16 B per trip. */
	for (i = 0; i < mp->n_l2 && !r; i++) {
		double fp = floor(mp->l2_fractions[i] * d->l2_b / 4096) * 4096;
		double rate = 64.0 * d->sms * clk_hz / 16; /* assume 64 B/clk/SM */

		if (fp < 4096)
			fp = 4096;
		s = (struct bench_spec){
			"l2_read",    full,
			BLOCK,        guess_iters(8.0 * full * BLOCK, rate, mp->target_ms),
			fp,           1,
			mp->reps,     mp->warmup,
			mp->target_ms
		};
		r = add(plan, cap, &s);
	}
	/* L1: one block per SM re-reading its own 16-64 KiB. */
	for (i = 0; i < mp->n_l1 && !r; i++) {
		unsigned t = 1024;
		double rate = 128.0 * d->sms * clk_hz / 16;

		if ((int)t > d->threads_per_block)
			t = (unsigned)d->threads_per_block;
		if ((int)t > d->threads_per_sm)
			t = (unsigned)d->threads_per_sm;
		s = (struct bench_spec){ "l1_read", (unsigned)d->sms, t,
					 guess_iters(8.0 * d->sms * t, rate, mp->target_ms),
					 mp->l1_sizes[i], 1, mp->reps, mp->warmup, mp->target_ms };
		r = add(plan, cap, &s);
	}
	return r;
}

/* Shared memory: 16 KiB per block, as many blocks as fit. */
static int
plan_shared(const struct bench_device *d, const struct mode_params *mp, struct bench_plan *plan,
	    size_t *cap)
{
	unsigned sblocks = (unsigned)d->sms * resident(d, BLOCK, SHARED_BLOCK_B);
	double clk_hz = d->max_clock_mhz * 1e6;
	struct bench_spec s;
	size_t i;
	int r = GPUPROJ_OK;

	for (i = 0; i < ARRAY_LENGTH(shared_strides) && !r; i++) {
		double rate = 32.0 * d->sms * clk_hz / shared_strides[i];

		s = (struct bench_spec){ "shared_read",
					 sblocks,
					 BLOCK,
					 guess_iters(16.0 * sblocks * BLOCK, rate,
						     mp->target_ms),
					 0,
					 shared_strides[i],
					 mp->reps,
					 mp->warmup,
					 mp->target_ms };
		r = add(plan, cap, &s);
	}
	if (!r) {
		double rate = 32.0 * d->sms * clk_hz;

		s = (struct bench_spec){ "shared_ldst",
					 sblocks,
					 BLOCK,
					 guess_iters(16.0 * sblocks * BLOCK, rate,
						     mp->target_ms),
					 0,
					 1,
					 mp->reps,
					 mp->warmup,
					 mp->target_ms };
		r = add(plan, cap, &s);
	}
	return r;
}

int
bench_plan_make(const struct bench_device *d, enum bench_mode mode, struct bench_plan *ret,
		struct gpuproj_error *err)
{
	const struct mode_params *mp = &modes[mode == BENCH_MODE_QUICK ? 0 : 1];
	struct bench_plan plan = { .mode = mode, .warm_ms = mp->warm_ms };
	unsigned full;
	size_t cap = 0;
	int r;

	if (!d || d->sms <= 0 || d->threads_per_sm <= 0 || d->blocks_per_sm <= 0 ||
	    !(d->l2_b > 0) || !(d->max_clock_mhz > 0))
		return error_set(err, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "the device report lacks SMs, threads or blocks per SM, the L2 "
				 "size or the clock; cannot plan the benchmarks");
	full = (unsigned)d->sms * resident(d, BLOCK, 0);
	r = plan_compute(d, mp, full, &plan, &cap);
	if (!r)
		r = plan_dram(d, mp, full, &plan, &cap);
	if (!r)
		r = plan_caches(d, mp, full, &plan, &cap);
	if (!r)
		r = plan_shared(d, mp, &plan, &cap);
	if (!r)
		r = plan_latency(d, mp, &plan, &cap);
	if (r) {
		bench_plan_free(&plan);
		return error_set(err, r, NULL, 0, 0, "out of memory");
	}
	*ret = plan;
	return GPUPROJ_OK;
}

void
bench_plan_free(struct bench_plan *plan)
{
	if (!plan)
		return;
	free(plan->specs);
	plan->specs = NULL;
	plan->n = 0;
}

char *
bench_plan_format(const struct bench_plan *plan)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb);
	strbuf_printf(&sb, "%s\n# %s mode, %zu benchmarks (gpuproj bench; docs/bench.md)\n",
		      BENCH_PLAN_SCHEMA, plan->mode == BENCH_MODE_QUICK ? "quick" : "default",
		      plan->n);
	strbuf_printf(&sb, "warm_ms %.0f\n", plan->warm_ms);
	for (i = 0; i < plan->n; i++) {
		const struct bench_spec *s = &plan->specs[i];

		strbuf_printf(&sb, "bench %s blocks=%u threads=%u iters=%lld size=%.0f stride=%u "
			      "reps=%d warmup=%d target_ms=%g\n", s->name, s->blocks, s->threads,
			      s->iters, s->size_b, s->stride, s->reps, s->warmup, s->target_ms);
	}
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_steal(&sb);
}

double
bench_plan_estimate_s(const struct bench_plan *plan, const struct bench_device *d)
{
	double total = plan->warm_ms / 1e3 + 1.0; /* context creation, allocation */
	double dram_peak = 0;
	size_t i;

	if (d->mem_clock_mhz > 0 && d->mem_bus_bits > 0)
		dram_peak = 2 * d->mem_clock_mhz * 1e6 * d->mem_bus_bits / 8;
	if (!(dram_peak > 0))
		dram_peak = 300e9; /* slowest datacentre-class part */
	for (i = 0; i < plan->n; i++) {
		const struct bench_spec *s = &plan->specs[i];

		if (strncmp(s->name, "dram_", 5) == 0) {
			static const double arrays[] = { 1, 1, 2, 2, 3 };
			size_t k;
			double a = 3;

			for (k = 0; k < BENCH_DRAM_COUNT; k++) {
				if (strcmp(s->name, dram_names[k]) == 0)
					a = arrays[k];
			}
			/* memset of three arrays + runs at 70% of the peak */
			total += (s->warmup + s->reps) * a * s->size_b / (0.7 * dram_peak);
			total += 3 * s->size_b / dram_peak / BENCH_DRAM_COUNT;
		} else {
			/* up to 3 calibration launches, then warm-up and timed runs */
			total += (3 + s->warmup + s->reps) * s->target_ms / 1e3;
		}
	}
	return total;
}
