/* SPDX-License-Identifier: MIT */
/*
 * gpuproj bench without a GPU: statistics, the plan (sizes and repetitions
 * from device properties), the raw JSON reader, the ceilings and the
 * targets.yaml entry, all on the recorded fixture tests/data/bench-a100-raw.json
 * (a synthetic A100 run made from public numbers; see its "fixture" field).
 * With the argument "cli": the command end to end, with a fake libcuda and
 * a fake benchmark program (tests/fake/bench/).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuproj/target.h>

#include "bench/bench.h"
#include "common.h"

#define FIXTURE "bench-a100-raw.json"

static char *
fixture_text(size_t *len)
{
	char *text = test_read_file(test_data(FIXTURE));

	ck_assert_ptr_nonnull(text);
	*len = strlen(text);
	return text;
}

static void
load_fixture(struct bench_raw *raw)
{
	struct gpuproj_error err = { 0 };
	size_t len;
	char *text = fixture_text(&len);
	int r = bench_raw_parse(text, len, FIXTURE, raw, &err);

	ck_assert_msg(r == GPUPROJ_OK, "%s", err.message);
	free(text);
}

/* ---- statistics ---- */

static const struct {
	double x[8];
	size_t n;
	double median, q1, q3, min, max;
} stats_cases[] = {
	{ { 5, 1, 4, 2, 3 }, 5, 3, 2, 4, 1, 5 },
	{ { 4, 1, 3, 2 }, 4, 2.5, 1.75, 3.25, 1, 4 },
	{ { 7 }, 1, 7, 7, 7, 7, 7 },
	{ { NAN, 1, 3 }, 3, 2, 1.5, 2.5, 1, 3 },                 /* NaN ignored */
	{ { 10, 10, 10, 10, 10, 10 }, 6, 10, 10, 10, 10, 10 },
	{ { 1, 2, 3, 4, 5, 6, 7, 100 }, 8, 4.5, 2.75, 6.25, 1, 100 }, /* robust to the outlier */
};

START_TEST(stats_table)
{
	struct bench_stats s;

	bench_stats_compute(stats_cases[_i].x, stats_cases[_i].n, &s);
	ck_assert_double_eq_tol(s.median, stats_cases[_i].median, 1e-12);
	ck_assert_double_eq_tol(s.q1, stats_cases[_i].q1, 1e-12);
	ck_assert_double_eq_tol(s.q3, stats_cases[_i].q3, 1e-12);
	ck_assert_double_eq(s.min, stats_cases[_i].min);
	ck_assert_double_eq(s.max, stats_cases[_i].max);
	ck_assert_double_eq_tol(s.spread_pct, 100 * (s.q3 - s.q1) / s.median, 1e-12);
}
END_TEST

START_TEST(stats_empty_is_nan)
{
	struct bench_stats s;
	double x = NAN;

	bench_stats_compute(NULL, 0, &s);
	ck_assert(isnan(s.median) && s.n == 0);
	bench_stats_compute(&x, 1, &s);
	ck_assert(isnan(s.median) && s.n == 0);
}
END_TEST

START_TEST(rate_is_median_of_per_run_rates)
{
	double t[] = { 1e6, 2e6, 4e6 }, clk[] = { 1400, 1410, 1395 };
	struct bench_meas m = { .name = "x", .unit = "flop", .work = 1e9, .times_ns = t, .n = 3,
				.sm_mhz = clk, .n_clock = 3 };
	struct bench_rate r;

	bench_rate_compute(&m, &r);
	ck_assert(r.ok);
	/* 1e9 / 1e6 ns = 1000 G/s, 500, 250: the median is 500 GFLOP/s */
	ck_assert_double_eq_tol(r.value, 500, 1e-9);
	ck_assert_double_eq_tol(r.s.min, 250, 1e-9);
	ck_assert_double_eq_tol(r.s.max, 1000, 1e-9);
	ck_assert_double_eq(r.clock_mhz, 1400);
	m.error = "cudaErrorLaunchFailure";
	bench_rate_compute(&m, &r);
	ck_assert(!r.ok && isnan(r.value));
}
END_TEST

/* ---- plan ---- */

struct dev_case {
	const char *name;
	int cc_major, cc_minor, sms, threads_per_sm, blocks_per_sm, smem_per_sm_b, reserved;
	double l2_b, free_b, clock, mem_clock;
	int bus;
	unsigned compute_blocks, shared_blocks;
};

static const struct dev_case devs[] = {
	/* threads/SM 2048 -> 8 blocks of 256; shared: min(8, 164 KiB / 17 KiB = 9) */
	{ "A100", 8, 0, 108, 2048, 32, 167936, 1024, 41943040, 40e9, 1410, 1215, 5120, 864, 864 },
	{ "H200", 9, 0, 132, 2048, 32, 233472, 1024, 52428800, 140e9, 1980, 3201, 6144, 1056,
	  1056 },
	/* T4: 1024 threads/SM -> 4 blocks; 64 KiB / 16 KiB = 4 */
	{ "T4", 7, 5, 40, 1024, 16, 65536, 0, 4194304, 15e9, 1590, 5001, 256, 160, 160 },
	/* L40: 1536 -> 6; 100 KiB / 17 KiB = 5 blocks of shared */
	{ "L40", 8, 9, 142, 1536, 24, 102400, 1024, 100663296, 45e9, 2490, 9001, 384, 852, 710 },
	/* little free memory: the DRAM arrays shrink to free / 6 */
	{ "small", 8, 6, 10, 1536, 16, 102400, 1024, 6291456, 0.6e9, 1500, 7000, 128, 60, 50 },
};

static void
make_dev(const struct dev_case *c, struct bench_device *d)
{
	memset(d, 0, sizeof(*d));
	d->name = (char *)c->name;
	d->cc_major = c->cc_major;
	d->cc_minor = c->cc_minor;
	d->sms = c->sms;
	d->warp_size = 32;
	d->threads_per_sm = c->threads_per_sm;
	d->threads_per_block = 1024;
	d->blocks_per_sm = c->blocks_per_sm;
	d->smem_per_sm_b = c->smem_per_sm_b;
	d->smem_reserved_per_block_b = c->reserved;
	d->l2_b = c->l2_b;
	d->free_mem_b = c->free_b;
	d->max_clock_mhz = c->clock;
	d->mem_clock_mhz = c->mem_clock;
	d->mem_bus_bits = c->bus;
}

START_TEST(plan_sizes_from_device)
{
	const struct dev_case *c = &devs[_i];
	struct bench_device d;
	int mode;

	make_dev(c, &d);
	for (mode = BENCH_MODE_QUICK; mode <= BENCH_MODE_DEFAULT; mode++) {
		struct bench_plan p;
		struct gpuproj_error err = { 0 };
		size_t i, n_l2 = 0, n_l1 = 0, n_shared = 0, n_dram = 0, n_fp = 0;
		size_t n_lat[BENCH_LAT_COUNT] = { 0 };
		double min_fp = INFINITY, max_fp = 0, est;

		ck_assert_int_eq(bench_plan_make(&d, mode, &p, &err), GPUPROJ_OK);
		for (i = 0; i < p.n; i++) {
			const struct bench_spec *s = &p.specs[i];

			ck_assert_int_ge(s->reps, 5);
			ck_assert_int_ge(s->iters, 1);
			ck_assert_uint_le(s->threads, 1024);
			if (strncmp(s->name, "fp", 2) == 0 || strcmp(s->name, "gips") == 0 ||
			    strncmp(s->name, "int32", 5) == 0) {
				n_fp++;
				ck_assert_uint_eq(s->blocks, c->compute_blocks);
				ck_assert_uint_eq(s->threads, 256);
			} else if (strncmp(s->name, "dram_", 5) == 0) {
				n_dram++;
				/* >= 4x L2 unless memory is short; all three within half the free
				 * memory */
				if (c->free_b > 100 * c->l2_b)
					ck_assert_double_ge(s->size_b, 4 * c->l2_b);
				ck_assert_double_le(3 * s->size_b, c->free_b / 2 + 1);
				ck_assert_double_eq(fmod(s->size_b, 2 * 1024 * 1024), 0);
			} else if (strcmp(s->name, "l2_read") == 0) {
				n_l2++;
				min_fp = fmin(min_fp, s->size_b);
				max_fp = fmax(max_fp, s->size_b);
				ck_assert_double_eq(fmod(s->size_b, 4096), 0);
			} else if (strcmp(s->name, "l1_read") == 0) {
				n_l1++;
				ck_assert_uint_eq(s->blocks, (unsigned)c->sms);
				ck_assert_double_ge(s->size_b, 16384);
				ck_assert_double_le(s->size_b, 65536);
			} else if (strncmp(s->name, "shared_", 7) == 0) {
				n_shared++;
				ck_assert_uint_eq(s->blocks, c->shared_blocks);
			} else if (strncmp(s->name, "latency_", 8) == 0) {
				/* one thread; a power-of-two footprint of 128-byte lines */
				ck_assert_uint_eq(s->blocks, 1);
				ck_assert_uint_eq(s->threads, 1);
				ck_assert_uint_eq(s->stride, 128);
				ck_assert_double_eq(exp2(round(log2(s->size_b))), s->size_b);
				if (strcmp(s->name, "latency_l1") == 0) {
					n_lat[BENCH_LAT_L1]++;
					ck_assert_double_le(s->size_b, 16384);
				} else if (strcmp(s->name, "latency_l2") == 0) {
					/* beyond every L1 (256 KiB at most), within the near half */
					n_lat[BENCH_LAT_L2]++;
					ck_assert_double_ge(s->size_b, 512 * 1024);
					ck_assert_double_le(s->size_b, c->l2_b / 4);
				} else {
					ck_assert_str_eq(s->name, "latency_dram");
					n_lat[BENCH_LAT_DRAM]++;
					ck_assert_double_ge(s->size_b, 4 * c->l2_b);
					ck_assert_double_ge(s->size_b, 64 * 1048576.0);
					ck_assert_double_le(s->size_b, c->free_b / 4);
				}
			} else {
				ck_abort_msg("unexpected benchmark %s", s->name);
			}
		}
		ck_assert_uint_eq(n_lat[BENCH_LAT_L1], mode == BENCH_MODE_QUICK ? 1 : 2);
		ck_assert_uint_ge(n_lat[BENCH_LAT_L2], 1);
		ck_assert_uint_ge(n_lat[BENCH_LAT_DRAM], 1);
		ck_assert_uint_eq(n_fp, 12);
		ck_assert_uint_eq(n_dram, 5);
		ck_assert_uint_eq(n_shared, 7);
		ck_assert_uint_eq(n_l2, mode == BENCH_MODE_QUICK ? 7 : 12);
		ck_assert_uint_eq(n_l1, mode == BENCH_MODE_QUICK ? 1 : 3);
		/* the sweep spans L2/8 .. 2 x L2 */
		ck_assert_double_le(min_fp, c->l2_b / 8);
		ck_assert_double_gt(min_fp, c->l2_b / 8 - 4096);
		ck_assert_double_eq(max_fp, 2 * c->l2_b);
		/* time budget: --quick under 30 s, default under 3 minutes */
		est = bench_plan_estimate_s(&p, &d);
		if (mode == BENCH_MODE_QUICK)
			ck_assert_msg(est < 30, "%s quick: %.1f s", c->name, est);
		else
			ck_assert_msg(est < 180, "%s default: %.1f s", c->name, est);
		bench_plan_free(&p);
	}
}
END_TEST

START_TEST(plan_text_for_the_kernels_program)
{
	struct bench_device d;
	struct bench_plan p;
	char *text;

	make_dev(&devs[0], &d);
	ck_assert_int_eq(bench_plan_make(&d, BENCH_MODE_QUICK, &p, NULL), GPUPROJ_OK);
	text = bench_plan_format(&p);
	ck_assert_ptr_nonnull(text);
	ck_assert(strncmp(text, "gpuproj-bench-plan/1\n", 21) == 0);
	ck_assert_ptr_nonnull(strstr(text, "\nwarm_ms 300\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nbench fp64_fma blocks=864 threads=256 "));
	ck_assert_ptr_nonnull(strstr(text, "\nbench shared_read blocks=864 threads=256 "));
	ck_assert_ptr_nonnull(strstr(text, " stride=32 reps=5 warmup=1 target_ms=3\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nbench l2_read blocks=864 threads=256 "));
	ck_assert_ptr_nonnull(strstr(text, "size=83886080 ")); /* 2 x 40 MiB */
	/* pointer chase: 16 KiB, 4 MiB (L2/8 rounded down), 256 MiB (4 x L2 rounded up) */
	ck_assert_ptr_nonnull(strstr(text, "\nbench latency_l1 blocks=1 threads=1 "));
	ck_assert_ptr_nonnull(strstr(text, " size=16384 stride=128 "));
	ck_assert_ptr_nonnull(strstr(text, " size=4194304 stride=128 "));
	ck_assert_ptr_nonnull(strstr(text, "\nbench latency_dram blocks=1 threads=1 "));
	ck_assert_ptr_nonnull(strstr(text, " size=268435456 stride=128 "));
	free(text);
	bench_plan_free(&p);
}
END_TEST

START_TEST(plan_rejects_incomplete_device)
{
	struct bench_device d;
	struct bench_plan p;
	struct gpuproj_error err = { 0 };

	make_dev(&devs[0], &d);
	d.l2_b = 0;
	ck_assert_int_eq(bench_plan_make(&d, BENCH_MODE_DEFAULT, &p, &err), GPUPROJ_E_INVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "L2"));
}
END_TEST

/* The footprints of every level on the fixture's A100 and on small or full devices. */
START_TEST(latency_footprints)
{
	struct bench_device d;
	double fp[BENCH_LAT_COUNT][2];
	size_t n[BENCH_LAT_COUNT];

	make_dev(&devs[0], &d); /* A100: 40 MiB L2, 40 GB free */
	bench_latency_footprints(&d, BENCH_MODE_DEFAULT, fp, n);
	ck_assert_uint_eq(n[BENCH_LAT_L1], 2);
	ck_assert_double_eq(fp[BENCH_LAT_L1][0], 8192);
	ck_assert_double_eq(fp[BENCH_LAT_L1][1], 16384);
	ck_assert_uint_eq(n[BENCH_LAT_L2], 2);
	ck_assert_double_eq(fp[BENCH_LAT_L2][0], 2 * 1048576.0);
	ck_assert_double_eq(fp[BENCH_LAT_L2][1], 4 * 1048576.0);
	ck_assert_uint_eq(n[BENCH_LAT_DRAM], 2);
	ck_assert_double_eq(fp[BENCH_LAT_DRAM][0], 256 * 1048576.0);
	ck_assert_double_eq(fp[BENCH_LAT_DRAM][1], 512 * 1048576.0);
	make_dev(&devs[2], &d); /* T4: 4 MiB L2 -> L2/4 = 1 MiB; DRAM at least 64 MiB */
	bench_latency_footprints(&d, BENCH_MODE_QUICK, fp, n);
	ck_assert_uint_eq(n[BENCH_LAT_L1], 1);
	ck_assert_uint_eq(n[BENCH_LAT_L2], 1);
	ck_assert_double_eq(fp[BENCH_LAT_L2][0], 1048576);
	ck_assert_uint_eq(n[BENCH_LAT_DRAM], 1);
	ck_assert_double_eq(fp[BENCH_LAT_DRAM][0], 64 * 1048576.0);
	d.free_mem_b = 100e6; /* a quarter of the free memory caps the DRAM footprint */
	bench_latency_footprints(&d, BENCH_MODE_DEFAULT, fp, n);
	ck_assert_uint_eq(n[BENCH_LAT_DRAM], 1);
	ck_assert_double_eq(fp[BENCH_LAT_DRAM][0], 16 * 1048576.0);
}
END_TEST

/*
 * The lanes bench takes from the built-in targets.yaml are those of every
 * entry of the CC whose lanes are datasheet or estimate (a derived, product-
 * specific cap such as the H20's FP64 is not the CC's), with the same text.
 */
START_TEST(lanes_from_builtin_targets)
{
	static const int ccs[][2] = { { 7, 0 }, { 7, 5 }, { 8, 0 }, { 8, 6 },  { 8, 9 },
				      { 9, 0 }, { 10, 0 }, { 10, 3 }, { 12, 0 } };
	struct gpuproj_targets *ts = NULL;
	struct bench_lanes ln;
	size_t c, i, agree;
	int k;

	ck_assert_int_eq(gpuproj_targets_load_builtin(&ts, NULL), GPUPROJ_OK);
	for (c = 0; c < sizeof(ccs) / sizeof(ccs[0]); c++) {
		char arch[16];

		memset(&ln, 0, sizeof(ln));
		ck_assert_msg(bench_lanes_builtin(ccs[c][0], ccs[c][1], NULL, &ln), "CC %d.%d", ccs[c][0],
			      ccs[c][1]);
		snprintf(arch, sizeof(arch), "sm_%d%d", ccs[c][0], ccs[c][1]);
		for (i = agree = 0; i < gpuproj_targets_count(ts); i++) {
			const struct gpuproj_target *t = gpuproj_targets_get(ts, i);
			const struct gpuproj_source *src = gpuproj_target_source(t, "lanes_per_sm");

			if (strcmp(t->arch, arch) != 0 || !src || src->basis != ln.basis)
				continue;
			for (k = 0; k < GPUPROJ_LANE_COUNT; k++)
				ck_assert_msg(t->lanes_per_sm[k] == ln.v[k], "%s lanes %d: %g vs %g",
					      t->name, k, t->lanes_per_sm[k], ln.v[k]);
			ck_assert_str_eq(src->text, ln.text);
			agree++;
		}
		ck_assert_uint_ge(agree, 1);
	}
	/* CC 9.0: the GH100 SM's 64 FP64 lanes, not the H20's capped 2.9 */
	ck_assert(bench_lanes_builtin(9, 0, NULL, &ln));
	ck_assert_double_eq(ln.v[GPUPROJ_LANE_FP64], 64);
	ck_assert_int_eq(ln.basis, GPUPROJ_BASIS_DATASHEET);
	/* CC 8.6: 64 of the 128 FP32 lanes also do INT32 */
	ck_assert(bench_lanes_builtin(8, 6, NULL, &ln));
	ck_assert_double_eq(ln.v[GPUPROJ_LANE_FP32_INT32_SHARED], 64);
	ck_assert(bench_lanes_builtin(10, 0, NULL, &ln));
	ck_assert_int_eq(ln.basis, GPUPROJ_BASIS_ESTIMATE);
	ck_assert(!bench_lanes_builtin(12, 1, NULL, &ln));
	ck_assert(!bench_lanes_builtin(7, 2, NULL, &ln));
	/* A device with its own entry gets that entry's lanes: the H20's capped FP64 */
	memset(&ln, 0, sizeof(ln));
	ck_assert(bench_lanes_builtin(9, 0, "NVIDIA H20", &ln));
	ck_assert(ln.by_name);
	ck_assert_str_eq(ln.entry, gpuproj_targets_match(ts, "NVIDIA H20")->name);
	ck_assert_double_eq_tol(ln.v[GPUPROJ_LANE_FP64], 2.9, 1e-9);
	ck_assert_int_eq(ln.basis, GPUPROJ_BASIS_DERIVED);
	/* ... but not another CC's entry, nor an unknown name */
	memset(&ln, 0, sizeof(ln));
	ck_assert(bench_lanes_builtin(8, 0, "NVIDIA H20", &ln));
	ck_assert(!ln.by_name);
	ck_assert_double_eq(ln.v[GPUPROJ_LANE_FP64], 32);
	ck_assert(bench_lanes_builtin(9, 0, "NVIDIA H999", &ln));
	ck_assert(!ln.by_name);
	ck_assert_double_eq(ln.v[GPUPROJ_LANE_FP64], 64);
	gpuproj_targets_free(ts);
}
END_TEST

/* ---- raw JSON ---- */

START_TEST(raw_fixture_parses)
{
	struct bench_raw raw;

	load_fixture(&raw);
	ck_assert_str_eq(raw.dev.name, "NVIDIA A100-SXM4-40GB");
	ck_assert_int_eq(raw.dev.sms, 108);
	ck_assert_int_eq(raw.dev.cc_major, 8);
	ck_assert_int_eq(raw.dev.smem_per_sm_b, 167936);
	ck_assert_double_eq(raw.dev.l2_b, 41943040);
	ck_assert(raw.dev.nvml && raw.dev.ecc);
	ck_assert_double_eq(raw.dev.power_limit_w, 400);
	ck_assert_str_eq(raw.dev.driver_version, "580.65.06");
	ck_assert_str_eq(raw.host, "fixture-a100");
	ck_assert_str_eq(raw.mode, "default");
	ck_assert_uint_eq(raw.n, 45);
	ck_assert_str_eq(raw.meas[0].name, "fp64_fma");
	ck_assert_uint_eq(raw.meas[0].n, 15);
	ck_assert_uint_eq(raw.meas[0].n_clock, 15);
	ck_assert_ptr_nonnull(bench_raw_find(&raw, "shared_ldst"));
	ck_assert_ptr_null(bench_raw_find(&raw, "nothing"));
	bench_raw_free(&raw);
}
END_TEST

static const struct {
	const char *json;
	int status;
	const char *message;
} raw_bad[] = {
	{ "{", GPUPROJ_E_PARSE, "not JSON" },
	{ "[]", GPUPROJ_E_SCHEMA, "expected an object" },
	{ "{\"schema\": \"gpuproj-bench-raw/2\"}", GPUPROJ_E_SCHEMA,
	  "schema is 'gpuproj-bench-raw/2', expected 'gpuproj-bench-raw/1'" },
	{ "{\"schema\": \"gpuproj-bench-raw/1\"}", GPUPROJ_E_SCHEMA,
	  "device: missing (and no error says why)" },
	{ "{\"schema\": \"gpuproj-bench-raw/1\", \"device\": {\"name\": \"G\"}}", GPUPROJ_E_SCHEMA,
	  "device.sms: missing or not positive" },
	{ "{\"schema\": \"gpuproj-bench-raw/1\", \"device\": {\"name\": \"G\", \"sms\": 2}, "
	  "\"benchmarks\": [{\"name\": \"x\", \"unit\": \"flop\", \"work\": 1, \"times_ns\": "
	  "[\"1\"]}]}",
	  GPUPROJ_E_SCHEMA, "benchmarks[0].times_ns: expected an array of numbers" },
	{ "{\"schema\": \"gpuproj-bench-raw/1\", \"device\": {\"name\": \"G\", \"sms\": 2}, "
	  "\"benchmarks\": [{\"name\": \"x\", \"unit\": \"flop\", \"work\": 1, \"times_ns\": [1, "
	  "2], "
	  "\"sm_clock_mhz\": [1]}]}",
	  GPUPROJ_E_SCHEMA, "benchmarks[0].sm_clock_mhz: needs one sample per timed run" },
	{ "{\"schema\": \"gpuproj-bench-raw/1\", \"device\": {\"name\": \"G\", \"sms\": 2}, "
	  "\"benchmarks\": [{\"name\": \"x\", \"unit\": \"flop\", \"work\": 0}]}",
	  GPUPROJ_E_SCHEMA, "benchmarks[0].work: must be positive" },
	/* Integers out of range or with a fraction: an error, not an undefined conversion. */
	{ "{\"schema\": \"gpuproj-bench-raw/1\", \"device\": {\"name\": \"G\", \"sms\": 1e30}}",
	  GPUPROJ_E_SCHEMA, "device.sms: expected a whole number in range" },
	{ "{\"schema\": \"gpuproj-bench-raw/1\", \"device\": {\"name\": \"G\", \"sms\": 2.5}}",
	  GPUPROJ_E_SCHEMA, "device.sms: expected a whole number in range" },
	{ "{\"schema\": \"gpuproj-bench-raw/1\", \"device\": {\"name\": \"G\", \"sms\": 2}, "
	  "\"benchmarks\": [{\"name\": \"x\", \"unit\": \"flop\", \"work\": 1, \"threads\": -1}]}",
	  GPUPROJ_E_SCHEMA, "benchmarks[0].threads: expected a whole number in range" },
	{ "{\"schema\": \"gpuproj-bench-raw/1\", \"device\": {\"name\": \"G\", \"sms\": 2}, "
	  "\"benchmarks\": [{\"name\": \"x\", \"unit\": \"flop\", \"work\": 1, \"iters\": 1e300}]}",
	  GPUPROJ_E_SCHEMA, "benchmarks[0].iters: expected a whole number in range" },
};

START_TEST(raw_bad_input)
{
	struct bench_raw raw;
	struct gpuproj_error err = { 0 };
	int r = bench_raw_parse(raw_bad[_i].json, strlen(raw_bad[_i].json), "r.json", &raw, &err);

	ck_assert_int_eq(r, raw_bad[_i].status);
	ck_assert_str_eq(err.file, "r.json");
	ck_assert_msg(strstr(err.message, raw_bad[_i].message), "got '%s'", err.message);
}
END_TEST

START_TEST(raw_error_only)
{
	static const char j[] =
		"{\"schema\": \"gpuproj-bench-raw/1\", \"error\": \"no CUDA-capable "
		"device is detected (cudaErrorNoDevice)\"}";
	struct bench_raw raw;

	ck_assert_int_eq(bench_raw_parse(j, strlen(j), "e.json", &raw, NULL), GPUPROJ_OK);
	ck_assert_ptr_null(raw.dev.name);
	ck_assert_str_eq(raw.error, "no CUDA-capable device is detected (cudaErrorNoDevice)");
	bench_raw_free(&raw);
}
END_TEST

/* ---- ceilings ---- */

START_TEST(summary_of_fixture)
{
	struct bench_raw raw;
	struct bench_summary s;
	double med[5];
	struct bench_stats st;
	size_t i, k = 0;

	load_fixture(&raw);
	bench_summarize(&raw, &s);
	/* clock: the 45 samples of the three FMA runs (3 x 15), one at 1395 */
	ck_assert(s.clock_observed);
	ck_assert_uint_eq(s.clock_samples, 45);
	ck_assert_double_eq(s.clock_mhz, 1410);
	ck_assert_double_eq(s.clock_lo_mhz, 1395);
	ck_assert_double_eq(s.boost_mhz, 1410);
	/* lanes of CC 8.0 from the built-in targets.yaml; the sustained clock from FP32 FMA */
	ck_assert(s.lanes.builtin && s.lanes.by_name);
	ck_assert_str_eq(s.lanes.entry, "A100-SXM4-40GB");
	ck_assert_int_eq(s.lanes.basis, GPUPROJ_BASIS_DATASHEET);
	ck_assert_double_eq(s.lanes.v[GPUPROJ_LANE_FP16], 256);
	ck_assert_double_eq(s.lanes.v[GPUPROJ_LANE_FP32], 64);
	ck_assert_double_eq(s.lanes.v[GPUPROJ_LANE_FP64], 32);
	ck_assert_double_eq(s.lanes.v[GPUPROJ_LANE_INT32], 64);
	ck_assert_double_eq(s.lanes.v[GPUPROJ_LANE_FP32_INT32_SHARED], 0);
	ck_assert_double_eq_tol(s.sustained_mhz,
				s.fp[GPUPROJ_FP32][BENCH_FOP_FMA].value * 1000 / (2 * 64 * 108), 1e-9);
	ck_assert_double_eq_tol(s.sustained_mhz, 1394.5, 0.5); /* 98.9% of the 1410 logged */
	ck_assert_double_eq_tol(s.lane_use[GPUPROJ_FP32], s.sustained_mhz / 1410, 1e-9);
	ck_assert_double_eq_tol(s.lane_use[GPUPROJ_FP64], 0.98, 0.01);
	/* FP: within 1% of the rates the fixture was made with */
	ck_assert_double_eq_tol(s.fp[GPUPROJ_FP64][BENCH_FOP_FMA].value, 9580, 96);
	ck_assert_double_eq_tol(s.fp[GPUPROJ_FP32][BENCH_FOP_ADD].value, 9630, 96);
	ck_assert_double_eq_tol(s.fp[GPUPROJ_FP16][BENCH_FOP_FMA].value, 74200, 742);
	ck_assert_double_lt(s.fp[GPUPROJ_FP64][BENCH_FOP_FMA].s.spread_pct, 1);
	ck_assert_double_eq_tol(s.int_mad.value, 19240, 192);
	ck_assert_double_eq_tol(s.ldst.value, 4760, 48);
	/* IPC = GIPS / (108 SMs x 4 x 1.41 GHz) */
	ck_assert_double_eq_tol(s.ipc_per_scheduler, s.gips.value / (108 * 4 * 1.41), 1e-9);
	ck_assert_double_eq_tol(s.ipc_per_scheduler, 0.97, 0.01);
	/* DRAM: bw_gbs.dram is the triad (one basis), not the best kernel (read) */
	ck_assert_double_eq(s.dram_gbs, s.dram[BENCH_DRAM_TRIAD].value);
	ck_assert_double_eq(s.stream_gbs[GPUPROJ_STREAM_TRIAD], s.dram[BENCH_DRAM_TRIAD].value);
	ck_assert_double_eq(s.stream_gbs[GPUPROJ_STREAM_READ], s.dram[BENCH_DRAM_READ].value);
	ck_assert_double_eq(s.stream_gbs[GPUPROJ_STREAM_COPY], s.dram[BENCH_DRAM_COPY].value);
	ck_assert_double_eq_tol(s.dram_gbs, 1375, 14);
	ck_assert_double_gt(s.stream_gbs[GPUPROJ_STREAM_READ], s.dram_gbs);
	ck_assert_double_gt(s.dram[BENCH_DRAM_INIT].value, s.dram_gbs);
	/* latency: two footprints per level, ns per load, cycles at the 1410 MHz logged */
	ck_assert_uint_eq(s.n_lat, 6);
	ck_assert_int_eq(s.lat[0].level, BENCH_LAT_L1);
	ck_assert_double_eq(s.lat[0].footprint_b, 8192);
	ck_assert_int_eq(s.lat[5].level, BENCH_LAT_DRAM);
	ck_assert_double_eq(s.lat[5].footprint_b, 512 * 1048576.0);
	ck_assert_double_eq_tol(s.lat[0].ns.median,
				s.lat[0].m->times_ns[0] / s.lat[0].m->work, 0.2);
	for (i = 0; i < BENCH_LAT_COUNT; i++)
		ck_assert_uint_eq(s.lat_points[i], 2);
	ck_assert_double_eq_tol(s.lat_ns[BENCH_LAT_L1], 25.5, 0.1);
	ck_assert_double_eq_tol(s.lat_ns[BENCH_LAT_L2], 151.0, 0.3);
	ck_assert_double_eq_tol(s.lat_ns[BENCH_LAT_DRAM], 406.7, 1.5);
	ck_assert_double_eq_tol(s.lat_ns[BENCH_LAT_L2],
				(s.lat[2].ns.median + s.lat[3].ns.median) / 2, 1e-9);
	ck_assert_double_eq_tol(s.lat_cycles[BENCH_LAT_L2], s.lat_ns[BENCH_LAT_L2] * 1.41, 1e-9);
	ck_assert_double_eq_tol(s.lat_cycles[BENCH_LAT_L1], 36, 0.5);
	ck_assert_double_eq(s.dram_array_b, 741 * 2 * 1048576.0); /* 1 ms at the peak */
	ck_assert_double_eq_tol(s.peak_dram_gbs, 1555.2, 1e-9); /* 2 x 1215 MHz x 5120 bit / 8 */
	/* L2: plateau = median of the 5 point medians from L2/8 to L2/2 */
	ck_assert_uint_eq(s.n_l2, 12);
	ck_assert_uint_eq(s.l2_plateau_points, 5);
	for (i = 0; i < s.n_l2; i++) {
		if (s.l2[i].footprint_b <= 41943040 / 2)
			med[k++] = s.l2[i].r.value;
	}
	ck_assert_uint_eq(k, 5);
	bench_stats_compute(med, 5, &st);
	ck_assert_double_eq(s.l2_gbs, st.median);
	/* segmented: the lowest point in (L2/2, L2] is the full-L2 one, ~46% down */
	ck_assert_double_eq(s.l2_drop_footprint_b, 41943040);
	ck_assert_double_eq_tol(s.l2_drop_pct, 46, 2);
	/* L1 best of three sizes; shared B/clk/SM per stride */
	ck_assert_uint_eq(s.n_l1, 3);
	ck_assert_double_eq(s.l1_size_b, 16384);
	ck_assert_uint_eq(s.n_shared, 6);
	ck_assert_uint_eq(s.shared[0].stride, 1);
	ck_assert_double_eq(s.shared_gbs, s.shared[0].r.value);
	ck_assert_double_eq_tol(s.shared[0].bytes_per_clk_sm, 126.7, 0.5);
	ck_assert_uint_eq(s.shared[5].stride, 32);
	ck_assert_double_eq_tol(s.shared[5].bytes_per_clk_sm, 4.0, 0.05);
	bench_raw_free(&raw);
}
END_TEST

/* Text with every `from` replaced by `to` (malloc'd). */
static char *
replace_all(const char *text, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to), n = 0;
	const char *p;
	char *out, *o;

	for (p = strstr(text, from); p; p = strstr(p + lf, from))
		n++;
	out = malloc(strlen(text) + n * lt + 1);
	ck_assert_ptr_nonnull(out);
	for (o = out; (p = strstr(text, from)) != NULL; text = p + lf) {
		memcpy(o, text, (size_t)(p - text));
		o += p - text;
		memcpy(o, to, lt);
		o += lt;
	}
	strcpy(o, text);
	return out;
}

/* ---- the targets.yaml entry ---- */

static const struct bench_yaml_info info = {
	NULL, "0.1.0", "2026-11-21", "fixture-a100", "bench-a100.json", "default",
};

/* Emit from raw, load it back with the real loader, return the set. */
static struct gpuproj_targets *
emit_and_load(struct bench_raw *raw, char **ret_yaml)
{
	struct bench_summary s;
	struct gpuproj_error err = { 0 };
	struct gpuproj_targets *ts = NULL;
	char *yaml = NULL;
	int r;

	bench_summarize(raw, &s);
	r = bench_yaml_emit(raw, &s, &info, &yaml, &err);
	ck_assert_msg(r == GPUPROJ_OK, "%s", err.message);
	r = gpuproj_targets_load_buffer(yaml, strlen(yaml), "bench.yaml", &ts, &err);
	ck_assert_msg(r == GPUPROJ_OK, "%s:%d:%d: %s\n%s", err.file, err.line, err.column,
		      err.message, yaml);
	ck_assert_uint_eq(gpuproj_targets_count(ts), 1);
	/* What the file itself says about the one basis, the check says too. */
	ck_assert_int_eq(strstr(yaml, "# NOT ON ONE BASIS: ") != NULL,
			 gpuproj_target_check_one_basis(gpuproj_targets_get(ts, 0), NULL, NULL) != 0);
	if (ret_yaml)
		*ret_yaml = yaml;
	else
		free(yaml);
	return ts;
}

static enum gpuproj_basis
basis(const struct gpuproj_target *t, const char *path)
{
	const struct gpuproj_source *s = gpuproj_target_source(t, path);

	ck_assert_msg(s != NULL, "no source for %s", path);
	return s->basis;
}

/*
 * A device name with a control character: the entry's match is written as
 * the YAML escape (\x09), which loads back to the driver's name, so the
 * entry matches the device it was measured on; the name and description
 * keep it too.
 */
START_TEST(yaml_device_name_with_control_character)
{
	struct bench_raw raw;
	struct gpuproj_targets *ts;
	char *yaml = NULL;

	load_fixture(&raw);
	free(raw.dev.name);
	raw.dev.name = strdup("NVIDIA A100\tX");
	ck_assert_ptr_nonnull(raw.dev.name);
	ts = emit_and_load(&raw, &yaml);
	ck_assert_ptr_nonnull(strstr(yaml, "\n  - name: A100-X\n"
					   "    description: \"NVIDIA A100\\x09X, measured by "
					   "gpuproj bench\"\n"
					   "    match: [\"NVIDIA A100\\x09X\"]\n"));
	ck_assert_ptr_eq(gpuproj_targets_match(ts, "NVIDIA A100\tX"), gpuproj_targets_get(ts, 0));
	gpuproj_targets_free(ts);
	free(yaml);
	bench_raw_free(&raw);
}
END_TEST

START_TEST(yaml_from_fixture_passes_the_schema)
{
	struct bench_raw raw;
	struct bench_summary s;
	struct gpuproj_targets *ts;
	const struct gpuproj_target *t;
	char *yaml;

	load_fixture(&raw);
	bench_summarize(&raw, &s);
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_str_eq(t->name, "A100-SXM4-40GB");
	ck_assert_uint_eq(t->n_match, 1);
	ck_assert_str_eq(t->match[0], "NVIDIA A100-SXM4-40GB");
	ck_assert_ptr_nonnull(gpuproj_targets_match(ts, "NVIDIA A100-SXM4-40GB"));
	ck_assert_str_eq(t->arch, "sm_80");
	ck_assert_str_eq(t->chip, "GA100");
	ck_assert_int_eq(t->sms, 108);
	/* the sustained clock: FP32 FMA / (2 x 64 x 108), below the 1410 MHz boost */
	ck_assert_double_eq_tol(t->clock_mhz, s.sustained_mhz, 0.05);
	ck_assert_double_eq(t->clock_mhz, 1394.4);
	ck_assert_double_eq(t->boost_clock_mhz, 1410);
	ck_assert_int_eq(t->schedulers_per_sm, 4);
	ck_assert_double_eq_tol(t->ipc_per_scheduler, s.ipc_per_scheduler, 0.0005);
	ck_assert_double_eq_tol(t->memory_gib, 39.4, 1e-9);
	/* limits as the device reported them, KiB and MiB exact */
	ck_assert_int_eq(t->limits.threads_per_sm, 2048);
	ck_assert_int_eq(t->limits.smem_per_sm_kib, 164);
	ck_assert_int_eq(t->limits.smem_per_block_kib, 163);
	ck_assert_int_eq(t->limits.smem_alloc_unit_b, 128);
	ck_assert_int_eq(t->limits.smem_reserved_per_block_b, 1024);
	ck_assert_double_eq(t->limits.l2_mib, 40);
	/* derived peaks: 2 x lanes x 108 x 1410 MHz boost (the targets.yaml values) */
	ck_assert_double_eq_tol(t->peak_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA], 9745.9, 1e-9);
	ck_assert_double_eq_tol(t->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 19491.8, 1e-9);
	ck_assert_double_eq_tol(t->peak_gflops[GPUPROJ_FP16][GPUPROJ_OP_FMA], 77967.4, 1e-9);
	/* measured values, GFLOP/s to one decimal */
	ck_assert_double_eq_tol(t->max_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA],
				s.fp[GPUPROJ_FP64][BENCH_FOP_FMA].value, 0.05);
	ck_assert(t->max_add_mul_given[GPUPROJ_FP32]);
	ck_assert_double_eq_tol(t->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_ADD_MUL],
				(s.fp[GPUPROJ_FP32][BENCH_FOP_ADD].value +
				 s.fp[GPUPROJ_FP32][BENCH_FOP_MUL].value) / 2, 0.05);
	ck_assert_double_eq_tol(t->int32_add_giops, s.int_add.value, 0.05);
	ck_assert_double_eq_tol(t->int32_mad_giops, s.int_mad.value, 0.05);
	ck_assert_double_eq_tol(t->ldst_shared_gops, s.ldst.value, 0.05);
	ck_assert_double_eq_tol(t->peak_dram_gbs, 1555.2, 1e-9);
	ck_assert_double_eq_tol(t->bw_gbs[GPUPROJ_LEVEL_DRAM], s.dram[BENCH_DRAM_TRIAD].value, 0.05);
	ck_assert_double_eq(t->bw_gbs[GPUPROJ_LEVEL_DRAM], t->stream_gbs[GPUPROJ_STREAM_TRIAD]);
	ck_assert_double_eq_tol(t->stream_gbs[GPUPROJ_STREAM_READ], s.dram[BENCH_DRAM_READ].value,
				0.05);
	ck_assert_double_eq_tol(t->stream_gbs[GPUPROJ_STREAM_COPY], s.dram[BENCH_DRAM_COPY].value,
				0.05);
	/* lanes: CC 8.0's, as targets.yaml writes them */
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP16], 256);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP64], 32);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP32_INT32_SHARED], 0);
	/* latency from the pointer chase, ns */
	ck_assert_double_eq_tol(t->latency_ns[GPUPROJ_LEVEL_L1], s.lat_ns[BENCH_LAT_L1], 0.05);
	ck_assert_double_eq_tol(t->latency_ns[GPUPROJ_LEVEL_L2], s.lat_ns[BENCH_LAT_L2], 0.05);
	ck_assert_double_eq_tol(t->latency_ns[GPUPROJ_LEVEL_DRAM], s.lat_ns[BENCH_LAT_DRAM], 0.05);
	ck_assert(isnan(t->latency_ns[GPUPROJ_LEVEL_SHARED]));
	ck_assert_double_eq_tol(t->bw_gbs[GPUPROJ_LEVEL_L2], s.l2_gbs, 0.05);
	ck_assert_double_eq_tol(t->bw_gbs[GPUPROJ_LEVEL_L1], s.l1_gbs, 0.05);
	ck_assert_double_eq_tol(t->bw_gbs[GPUPROJ_LEVEL_SHARED], s.shared_gbs, 0.05);
	ck_assert(isnan(t->price_usd));
	ck_assert_double_eq(t->tdp_w, 400);
	/* bases */
	ck_assert_int_eq(basis(t, "clock_mhz"), GPUPROJ_BASIS_DERIVED);
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "clock_mhz")->text,
				     "/ (2 x 64 FP32 lanes/SM x 108 SMs) x 1000: the SM clock "
				     "sustained under full FMA load"));
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "clock_mhz")->text,
				     "NVML logged a median SM clock of 1410 MHz during the FMA runs"));
	ck_assert_int_eq(basis(t, "boost_clock_mhz"), GPUPROJ_BASIS_DATASHEET);
	/*
	 * No SGEMM runs: the dense rate is the device's own built-in entry's
	 * fraction of its FMA rate, 19180 / 18951.3 = 1.012, at most 1, x the
	 * FP32 FMA rate measured here; the sustained clock NVML's 1410 MHz
	 * during the FP32 FMA loops.
	 */
	ck_assert_double_eq(t->fp32_dense_gflops, t->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA]);
	ck_assert_int_eq(basis(t, "fp32_dense_gflops"), GPUPROJ_BASIS_DERIVED);
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "fp32_dense_gflops")->text,
				     "derived: sibling A100-SXM4-40GB (the built-in targets.yaml "
				     "entry the lanes come from)"));
	ck_assert_double_eq(t->sustained_clock_mhz, 1410);
	ck_assert_int_eq(basis(t, "sustained_clock_mhz"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(basis(t, "lanes_per_sm.fp32"), GPUPROJ_BASIS_DATASHEET);
	ck_assert_int_eq(basis(t, "stream_gbs.read"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(basis(t, "stream_gbs.triad"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(basis(t, "bw_gbs.dram"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(basis(t, "latency_ns.l1"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(basis(t, "latency_ns.dram"), GPUPROJ_BASIS_MEASURED);
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "latency_ns.l2")->text,
				     "single-thread pointer chase (bench_latency_chase"));
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "latency_ns.l2")->text,
				     "2.0 MiB: 150.7 ns"));
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "latency_ns.dram")->text,
				     "512.0 MiB: "));
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "bw_gbs.dram")->text,
				     "= stream_gbs.triad"));
	/* on the one basis of the repository's file */
	{
		struct gpuproj_error berr = { 0 };

		ck_assert_msg(gpuproj_target_check_one_basis(t, "bench.yaml", &berr) == 0, "%s",
			      berr.message);
	}
	/* the lanes' source and every reference it cites are the built-in file's own */
	{
		struct gpuproj_targets *b = NULL;
		const char *keys[] = { "PG", "OCC", "DS-A100" };
		size_t k;

		ck_assert_int_eq(gpuproj_targets_load_builtin(&b, NULL), GPUPROJ_OK);
		ck_assert_str_eq(gpuproj_target_source(t, "lanes_per_sm")->text,
				 gpuproj_target_source(gpuproj_targets_find(b, "A100-SXM4-40GB"),
						       "lanes_per_sm")->text);
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			ck_assert_str_eq(gpuproj_targets_reference(ts, keys[k]),
					 gpuproj_targets_reference(b, keys[k]));
		gpuproj_targets_free(b);
	}
	ck_assert_int_eq(basis(t, "max_gflops.fp64_fma"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(basis(t, "bw_gbs.l2"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(basis(t, "peak_giops.int32_mad"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(basis(t, "ipc_per_scheduler"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(basis(t, "sms"), GPUPROJ_BASIS_DATASHEET);
	ck_assert_int_eq(basis(t, "limits.threads_per_sm"), GPUPROJ_BASIS_DATASHEET);
	ck_assert_int_eq(basis(t, "tdp_w"), GPUPROJ_BASIS_DATASHEET);
	ck_assert_int_eq(basis(t, "peak_gflops.fp32_fma"), GPUPROJ_BASIS_DERIVED);
	ck_assert_int_eq(basis(t, "peak_bw_gbs.dram"), GPUPROJ_BASIS_DERIVED);
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "bw_gbs.l2")->text,
				     "segmented L2: 46% lower at 40.0 MiB"));
	ck_assert_ptr_nonnull(strstr(gpuproj_targets_reference(ts, "BENCH"),
				     "gpuproj bench 0.1.0, 2026-11-21, host fixture-a100: "
				     "NVIDIA A100-SXM4-40GB"));
	ck_assert_ptr_nonnull(strstr(gpuproj_targets_reference(ts, "BENCH"), "bench-a100.json"));
	/* what cannot be measured is named */
	ck_assert_ptr_nonnull(strstr(yaml, "# left for you: price_usd (unknown: null)"));
	ck_assert_ptr_nonnull(strstr(yaml, "price_usd: null"));
	ck_assert_ptr_null(strstr(yaml, "NOT MEASURED"));
	ck_assert_ptr_null(strstr(yaml, "NOT ON ONE BASIS"));
	ck_assert_ptr_null(strstr(yaml, "# CHECK:"));
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
}
END_TEST

/* Mark every benchmark with this name as failed. */
static void
fail_bench(struct bench_raw *raw, const char *name)
{
	size_t i;

	for (i = 0; i < raw->n; i++) {
		if (strcmp(raw->meas[i].name, name) == 0 && !raw->meas[i].error)
			raw->meas[i].error = strdup("cudaErrorLaunchTimeout (test)");
	}
}

START_TEST(yaml_estimates_what_failed)
{
	struct bench_raw raw;
	struct gpuproj_targets *ts;
	const struct gpuproj_target *t;
	char *yaml;

	load_fixture(&raw);
	fail_bench(&raw, "l2_read");
	fail_bench(&raw, "l1_read");
	fail_bench(&raw, "fp16_mul");
	fail_bench(&raw, "gips");
	fail_bench(&raw, "dram_init");
	fail_bench(&raw, "fp16_fma");
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	/* A failed write-only init is said so, not printed as "nan GB/s". */
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "bw_gbs.dram")->text,
				     "GB/s not used, write-only init (failed)"));
	/* FP16 FMA failed: 2 x 256 lanes x 108 SMs x the sustained clock, derived */
	ck_assert_double_eq_tol(t->max_gflops[GPUPROJ_FP16][GPUPROJ_OP_FMA],
				2 * 256 * 108 * t->clock_mhz / 1000, 0.05);
	ck_assert_int_eq(basis(t, "max_gflops.fp16_fma"), GPUPROJ_BASIS_DERIVED);
	ck_assert_int_eq(basis(t, "max_gflops.fp32_fma"), GPUPROJ_BASIS_MEASURED);
	ck_assert_ptr_nonnull(strstr(yaml, "# NOT MEASURED: max_gflops.fp16_fma"));
	ck_assert_int_eq(gpuproj_target_check_one_basis(t, NULL, NULL), GPUPROJ_OK);
	ck_assert_ptr_null(strstr(yaml, "nan"));
	/* L2 = 2.5 x DRAM, L1 = 128 B/clk/SM x 108 x 1410 MHz (boost), both estimates */
	ck_assert_double_eq_tol(t->bw_gbs[GPUPROJ_LEVEL_L2], 2.5 * t->bw_gbs[GPUPROJ_LEVEL_DRAM],
				0.1);
	ck_assert_double_eq_tol(t->bw_gbs[GPUPROJ_LEVEL_L1], 19491.8, 1e-9);
	ck_assert_int_eq(basis(t, "bw_gbs.l2"), GPUPROJ_BASIS_ESTIMATE);
	ck_assert_int_eq(basis(t, "bw_gbs.l1"), GPUPROJ_BASIS_ESTIMATE);
	ck_assert_ptr_nonnull(strstr(yaml, "# NOT MEASURED: bw_gbs.l2"));
	/* fp16 add_mul from ADD alone; no ipc_per_scheduler (schema default 1) */
	ck_assert(t->max_add_mul_given[GPUPROJ_FP16]);
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "max_gflops.fp16_add_mul")->text,
				     "the HADD2 loop only"));
	ck_assert_double_eq(t->ipc_per_scheduler, 1);
	ck_assert_ptr_null(gpuproj_target_source(t, "ipc_per_scheduler"));
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
}
END_TEST

START_TEST(yaml_without_nvml)
{
	struct bench_raw raw;
	struct gpuproj_targets *ts;
	const struct gpuproj_target *t;
	char *yaml;
	size_t i;

	load_fixture(&raw);
	raw.dev.nvml = false;
	raw.dev.power_limit_w = NAN;
	raw.dev.nvml_reason = strdup("libnvidia-ml.so.1: cannot open shared object file");
	raw.dev.max_clock_mhz = 1410;
	for (i = 0; i < raw.n; i++)
		raw.meas[i].n_clock = 0;
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	/* the sustained clock needs no NVML: it is the FP32 FMA rate's */
	ck_assert_double_eq(t->clock_mhz, 1394.4);
	ck_assert_int_eq(basis(t, "clock_mhz"), GPUPROJ_BASIS_DERIVED);
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "clock_mhz")->text,
				     "no clock was logged (NVML: libnvidia-ml.so.1"));
	ck_assert_ptr_null(strstr(gpuproj_target_source(t, "latency_ns.l2")->text, "cycles"));
	/* No clock logged: the sustained clock is clock_mhz itself. */
	ck_assert_double_eq(t->sustained_clock_mhz, 1394.4);
	ck_assert_int_eq(basis(t, "sustained_clock_mhz"), GPUPROJ_BASIS_DERIVED);
	ck_assert_int_eq(gpuproj_target_check_one_basis(t, NULL, NULL), GPUPROJ_OK);
	ck_assert(isnan(t->tdp_w));
	ck_assert_ptr_nonnull(strstr(yaml, "tdp_w: null"));
	ck_assert_ptr_nonnull(strstr(gpuproj_targets_reference(ts, "BENCH"),
				     "clocks not observed (NVML: libnvidia-ml.so.1"));
	free(yaml);
	gpuproj_targets_free(ts);
	/* Without the FP32 FMA rate either: the device's maximum, not observed. */
	fail_bench(&raw, "fp32_fma");
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_double_eq(t->clock_mhz, 1410);
	ck_assert_int_eq(basis(t, "clock_mhz"), GPUPROJ_BASIS_DATASHEET);
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "clock_mhz")->text,
				     "not observed under load"));
	/* max_gflops.fp32_fma derived at that clock keeps the entry on the one basis */
	ck_assert_int_eq(basis(t, "max_gflops.fp32_fma"), GPUPROJ_BASIS_DERIVED);
	ck_assert_double_eq_tol(t->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 19491.8, 0.05);
	ck_assert_int_eq(gpuproj_target_check_one_basis(t, NULL, NULL), GPUPROJ_OK);
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
}
END_TEST

/* The triad failed: its estimate (the copy rate) is bw_gbs.dram too, with one basis. */
START_TEST(yaml_triad_failed)
{
	struct bench_raw raw;
	struct gpuproj_targets *ts;
	const struct gpuproj_target *t;
	char *yaml;

	load_fixture(&raw);
	fail_bench(&raw, "dram_triad");
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_double_eq(t->stream_gbs[GPUPROJ_STREAM_TRIAD],
			    t->stream_gbs[GPUPROJ_STREAM_COPY]);
	ck_assert_double_eq(t->bw_gbs[GPUPROJ_LEVEL_DRAM], t->stream_gbs[GPUPROJ_STREAM_TRIAD]);
	ck_assert_int_eq(basis(t, "stream_gbs.triad"), GPUPROJ_BASIS_ESTIMATE);
	ck_assert_int_eq(basis(t, "bw_gbs.dram"), GPUPROJ_BASIS_ESTIMATE);
	ck_assert_int_eq(basis(t, "stream_gbs.copy"), GPUPROJ_BASIS_MEASURED);
	ck_assert_ptr_nonnull(strstr(yaml, "# NOT MEASURED: bw_gbs.dram"));
	ck_assert_int_eq(gpuproj_target_check_one_basis(t, NULL, NULL), GPUPROJ_OK);
	free(yaml);
	gpuproj_targets_free(ts);
	/* and with copy failed as well: 0.9 x the derived peak */
	fail_bench(&raw, "dram_copy");
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_double_eq_tol(t->bw_gbs[GPUPROJ_LEVEL_DRAM], 0.9 * 1555.2, 0.05);
	ck_assert(isnan(t->stream_gbs[GPUPROJ_STREAM_COPY]));
	ck_assert_ptr_nonnull(strstr(gpuproj_target_source(t, "stream_gbs.triad")->text,
				     "0.9 x the derived peak"));
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
}
END_TEST

/* Latencies that failed or do not grow from L1 to DRAM are left out, and the file says so. */
START_TEST(yaml_latency_gaps)
{
	struct bench_raw raw;
	struct gpuproj_targets *ts;
	const struct gpuproj_target *t;
	struct gpuproj_error berr = { 0 };
	char *yaml;
	size_t i, k;

	load_fixture(&raw);
	fail_bench(&raw, "latency_dram");
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert(isnan(t->latency_ns[GPUPROJ_LEVEL_DRAM]));
	ck_assert(!isnan(t->latency_ns[GPUPROJ_LEVEL_L2]));
	ck_assert_int_eq(gpuproj_target_check_one_basis(t, "x.yaml", &berr), GPUPROJ_E_SCHEMA);
	ck_assert_ptr_nonnull(strstr(berr.message, "no latency_ns.dram"));
	ck_assert_ptr_nonnull(strstr(yaml, "# NOT ON ONE BASIS: GPU 'A100-SXM4-40GB' is not on "
				     "the one basis"));
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
	/* An L2 "latency" below the L1 one (a footprint that stayed in L1): not written. */
	load_fixture(&raw);
	for (i = 0; i < raw.n; i++) {
		if (strcmp(raw.meas[i].name, "latency_l2") == 0) {
			for (k = 0; k < raw.meas[i].n; k++)
				raw.meas[i].times_ns[k] /= 10;
		}
	}
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert(isnan(t->latency_ns[GPUPROJ_LEVEL_L2]));
	ck_assert(!isnan(t->latency_ns[GPUPROJ_LEVEL_DRAM]));
	ck_assert_ptr_nonnull(strstr(yaml, "# NOT WRITTEN: latency_ns: l2 15.1 ns is not longer "
				     "than the level above"));
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
	/* A recording without the chase (older than it): schema-valid, not on one basis. */
	load_fixture(&raw);
	for (i = 0; i < raw.n; i++) {
		if (strncmp(raw.meas[i].name, "latency_", 8) == 0)
			raw.meas[i].name[0] = 'X';
	}
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert(isnan(t->latency_ns[GPUPROJ_LEVEL_L1]));
	ck_assert_ptr_null(strstr(yaml, "latency_ns:"));
	ck_assert_ptr_nonnull(strstr(yaml, "# NOT ON ONE BASIS: "));
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
}
END_TEST

/*
 * A device with its own built-in entry takes that entry's lanes and the
 * references they cite (the H20's derived FP64 cap, [DS-H20]); here the A100
 * rates run far above them, which the header flags.
 */
START_TEST(yaml_lanes_of_the_devices_own_entry)
{
	struct bench_raw raw;
	struct gpuproj_targets *ts;
	const struct gpuproj_target *t;
	char *yaml;

	load_fixture(&raw);
	raw.dev.cc_major = 9;
	free(raw.dev.name);
	raw.dev.name = strdup("NVIDIA H20");
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_double_eq_tol(t->lanes_per_sm[GPUPROJ_LANE_FP64], 2.9, 1e-9);
	ck_assert_int_eq(basis(t, "lanes_per_sm"), GPUPROJ_BASIS_DERIVED);
	ck_assert_ptr_nonnull(gpuproj_targets_reference(ts, "DS-H20"));
	ck_assert_ptr_nonnull(strstr(yaml, "# lanes_per_sm: this GPU's own built-in targets.yaml "
				     "entry's (H20"));
	ck_assert_ptr_nonnull(strstr(yaml, "# CHECK: the fp64 FMA loop ran at "));
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
}
END_TEST

/* A product whose FMA rate is far below its CC's lanes (an H20's FP64) is flagged. */
START_TEST(yaml_flags_capped_lanes)
{
	struct bench_raw raw;
	struct gpuproj_targets *ts;
	char *yaml;
	size_t i, k;

	load_fixture(&raw);
	for (i = 0; i < raw.n; i++) {
		if (strcmp(raw.meas[i].name, "fp64_fma") == 0) {
			for (k = 0; k < raw.meas[i].n; k++)
				raw.meas[i].times_ns[k] *= 20;
		}
	}
	ts = emit_and_load(&raw, &yaml);
	ck_assert_ptr_nonnull(strstr(yaml, "# CHECK: the fp64 FMA loop ran at 4.9% of 2 x 32 "
				     "lanes/SM x sms x its clock"));
	/* the measured rate is what the models use; the entry stays on the one basis */
	ck_assert_int_eq(gpuproj_target_check_one_basis(gpuproj_targets_get(ts, 0), NULL, NULL),
			 GPUPROJ_OK);
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
}
END_TEST

/*
 * gpuproj_target_check_one_basis(): every GPU of the repository's file passes
 * (the rules of tests/unit/test-targets.c's repository_targets_one_basis), and
 * an emitted entry with one rule broken fails, naming the GPU, line and rule.
 */
static const struct {
	const char *from, *to; /* a change to the entry */
	const char *drop;      /* and the source of this path removed, or NULL */
	const char *message;   /* what the check says; NULL: it passes */
} basis_breaks[] = {
	{ "    boost_clock_mhz: 1410\n", "", "boost_clock_mhz", "no boost_clock_mhz" },
	{ "    lanes_per_sm: {fp16: 256, fp32: 64, fp64: 32, int32: 64, fp32_int32_shared: 0}\n",
	  "", "lanes_per_sm", "no lanes_per_sm" },
	{ "triad: 1375.7}", "triad: 1375.6}", NULL, "bw_gbs.dram (1375.7 GB/s) must equal "
	  "stream_gbs.triad (1375.6 GB/s)" },
	{ "bw_gbs.dram: \"measured:", "bw_gbs.dram: \"derived:", NULL, "bw_gbs.dram is derived "
	  "but stream_gbs.triad is measured" },
	{ "latency_ns: {l1: 25.5, l2: 151.0, dram: 406.6}", "latency_ns: {l1: 25.5, dram: 406.6}",
	  "latency_ns.l2", "no latency_ns.l2" },
	{ "clock_mhz: 1394.4\n", "clock_mhz: 1410\n", NULL, "clock_mhz (1410 MHz) is not the "
	  "clock of the sustained FP32 FMA rate" },
	{ "fp64_fma: 9745.9}", "fp64_fma: 9476.0}", NULL, "peak_gflops.fp64_fma (9476 GFLOP/s) is "
	  "not 2 x lanes_per_sm.fp64 x sms x boost_clock_mhz / 1000 = 9745.92" },
	/* a rate under a group source must follow the formula ... */
	{ "    sources:\n", "    sources:\n      max_gflops: \"derived: a group source\"\n",
	  "max_gflops.fp16_fma", "max_gflops.fp16_fma (74077 GFLOP/s) is derived but not 2 x "
	  "lanes_per_sm.fp16 x sms x clock_mhz / 1000 = 77104.7" },
	/* ... one sourced on its own key need not (a product's own figure) */
	{ "max_gflops.fp16_fma: \"measured:", "max_gflops.fp16_fma: \"derived:", NULL, NULL },
};

/* text without the line of the source of `path` (malloc'd). */
static char *
drop_source(const char *text, const char *path)
{
	char key[96], *out = strdup(text), *p, *eol;

	ck_assert_ptr_nonnull(out);
	snprintf(key, sizeof(key), "\n      %s: \"", path);
	p = strstr(out, key);
	ck_assert_msg(p != NULL, "no source for %s", path);
	eol = strchr(p + 1, '\n');
	memmove(p, eol, strlen(eol) + 1);
	return out;
}

START_TEST(one_basis_check)
{
	struct bench_raw raw;
	struct bench_summary s;
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	char *yaml = NULL, *bad, path[4096];
	size_t i;

	/* the repository's file, every GPU */
	snprintf(path, sizeof(path), "%s/targets.yaml", test_source_root());
	ck_assert_int_eq(gpuproj_targets_load(path, &ts, &err), GPUPROJ_OK);
	for (i = 0; i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i);

		ck_assert_msg(gpuproj_target_check_one_basis(t, path, &err) == GPUPROJ_OK, "%s",
			      err.message);
	}
	gpuproj_targets_free(ts);
	ck_assert_int_eq(gpuproj_target_check_one_basis(NULL, NULL, &err), GPUPROJ_E_INVAL);
	/* an emitted entry with one rule broken at a time */
	load_fixture(&raw);
	bench_summarize(&raw, &s);
	ck_assert_int_eq(bench_yaml_emit(&raw, &s, &info, &yaml, &err), GPUPROJ_OK);
	bad = replace_all(yaml, basis_breaks[_i].from, basis_breaks[_i].to);
	ck_assert_msg(strcmp(bad, yaml) != 0, "'%s' is not in the entry", basis_breaks[_i].from);
	if (basis_breaks[_i].drop) {
		char *d = drop_source(bad, basis_breaks[_i].drop);

		free(bad);
		bad = d;
	}
	ts = NULL;
	ck_assert_msg(gpuproj_targets_load_buffer(bad, strlen(bad), "bad.yaml", &ts, &err) == 0,
		      "%s", err.message);
	if (basis_breaks[_i].message) {
		ck_assert_int_eq(gpuproj_target_check_one_basis(gpuproj_targets_get(ts, 0),
								"bad.yaml", &err), GPUPROJ_E_SCHEMA);
		ck_assert_str_eq(err.file, "bad.yaml");
		ck_assert_int_eq(err.line, gpuproj_targets_get(ts, 0)->line);
		ck_assert_msg(strstr(err.message, "GPU 'A100-SXM4-40GB' is not on the one basis") &&
			      strstr(err.message, basis_breaks[_i].message), "got '%s'", err.message);
	} else {
		/* measured under its own key only: a group source need not hold the formula */
		ck_assert_int_eq(gpuproj_target_check_one_basis(gpuproj_targets_get(ts, 0),
								"bad.yaml", &err), GPUPROJ_OK);
	}
	gpuproj_targets_free(ts);
	free(bad);
	free(yaml);
	bench_raw_free(&raw);
}
END_TEST

START_TEST(yaml_unknown_cc_and_odd_name)
{
	struct bench_raw raw;
	struct gpuproj_targets *ts;
	const struct gpuproj_target *t;
	char *yaml;

	load_fixture(&raw);
	raw.dev.cc_major = 12;
	raw.dev.cc_minor = 1;
	free(raw.dev.name);
	raw.dev.name = strdup("NVIDIA \"Odd\" GPU \\ (test)");
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_str_eq(t->name, "Odd-GPU-test");
	ck_assert_str_eq(t->match[0], "NVIDIA \"Odd\" GPU \\ (test)");
	ck_assert_str_eq(t->arch, "sm_121");
	ck_assert_str_eq(t->chip, "SM121");
	/*
	 * Not in the built-in targets.yaml: lanes estimated from the rates at the
	 * 1410 MHz logged, rounded to powers of two (FP64 9568 / (2 x 108 x 1.41) =
	 * 31.4 -> 32; FP16 243 -> 256; IADD3 63 -> 64), shared lanes assumed 0.
	 */
	ck_assert_int_eq(basis(t, "lanes_per_sm"), GPUPROJ_BASIS_ESTIMATE);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP64], 32);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP16], 256);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_INT32], 64);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP32_INT32_SHARED], 0);
	ck_assert_ptr_nonnull(strstr(yaml, "# lanes_per_sm: ESTIMATED from the measured rates"));
	ck_assert_double_eq_tol(t->peak_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA], 9745.9, 1e-9);
	ck_assert_int_eq(gpuproj_target_check_one_basis(t, NULL, NULL), GPUPROJ_OK);
	free(yaml);
	gpuproj_targets_free(ts);
	/* Without the IADD3 rate the lanes cannot be estimated: peaks are the measured rates. */
	fail_bench(&raw, "int32_add");
	ts = emit_and_load(&raw, &yaml);
	t = gpuproj_targets_get(ts, 0);
	ck_assert(isnan(t->lanes_per_sm[GPUPROJ_LANE_FP32]));
	ck_assert_double_eq(t->peak_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA],
			    t->max_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA]);
	ck_assert_int_eq(basis(t, "peak_gflops.fp64_fma"), GPUPROJ_BASIS_ESTIMATE);
	ck_assert_ptr_nonnull(strstr(yaml, "# NOT ON ONE BASIS: "));
	ck_assert_ptr_nonnull(strstr(yaml, "no lanes_per_sm"));
	free(yaml);
	gpuproj_targets_free(ts);
	bench_raw_free(&raw);
}
END_TEST

START_TEST(yaml_missing_everything_is_an_error)
{
	struct bench_raw raw;
	struct bench_summary s;
	struct gpuproj_error err = { 0 };
	char *yaml = NULL;

	load_fixture(&raw);
	fail_bench(&raw, "dram_read");
	fail_bench(&raw, "dram_copy");
	fail_bench(&raw, "dram_scale");
	fail_bench(&raw, "dram_triad");
	raw.dev.mem_clock_mhz = NAN;
	bench_summarize(&raw, &s);
	ck_assert_int_eq(bench_yaml_emit(&raw, &s, &info, &yaml, &err), GPUPROJ_E_MISSING);
	ck_assert_ptr_null(yaml);
	ck_assert_ptr_nonnull(strstr(err.message, "no DRAM bandwidth was measured"));
	bench_raw_free(&raw);
}
END_TEST

static const struct {
	const char *device, *name;
} names[] = {
	{ "NVIDIA A100-SXM4-40GB", "A100-SXM4-40GB" },
	{ "NVIDIA GeForce RTX 4090", "GeForce-RTX-4090" },
	{ "Tesla V100-PCIE-16GB", "Tesla-V100-PCIE-16GB" },
	{ "NVIDIA H100 80GB HBM3", "H100-80GB-HBM3" },
	{ "a/b (c)", "a-b-c" },
	{ "   ", "GPU" },
	{ "NVIDIA ", "NVIDIA" },
};

START_TEST(entry_names)
{
	char *n = bench_entry_name(names[_i].device);

	ck_assert_str_eq(n, names[_i].name);
	free(n);
}
END_TEST

/* ---- the command (argument "cli") ---- */

static char *dir;

static void
cli_setup(void)
{
	dir = test_tmpdir();
}

static void
cli_teardown(void)
{
	test_rmtree(dir);
	free(dir);
	dir = NULL;
}

/* Run `gpuproj bench ARGS` in the test's directory with ENV prefixed; returns the status. */
static int
bench(const char *env, const char *args, char **out, char **err)
{
	return test_cli_at(dir, env, out, err, "bench %s", args);
}

/* The test doubles of tests/fake/bench/ (paths from meson). */
static const char *
fake(const char *name)
{
	const char *var = strcmp(name, "fake-kernels.sh") == 0 ? "GPUPROJ_BENCH_FAKE_KERNELS" :
								   "GPUPROJ_BENCH_FAKE_LIBCUDA";
	const char *p = getenv(var);

	ck_assert_msg(p != NULL && *p, "%s is not set (meson sets it)", var);
	return p;
}

START_TEST(cli_from_raw_writes_checked_files)
{
	char *out = NULL, *err = NULL, args[2048], *yaml, *json, path[1024];
	struct bench_raw raw;
	int st;

	snprintf(args, sizeof(args), "--from-raw '%s' -o a100.yaml", test_data(FIXTURE));
	st = bench(NULL, args, &out, &err);
	ck_assert_msg(st == 0, "status %d: %s", st, err);
	ck_assert_ptr_nonnull(strstr(out, "NVIDIA A100-SXM4-40GB (sm_80, 108 SMs, ECC on)"));
	ck_assert_ptr_nonnull(strstr(out, "targets.yaml entry: A100-SXM4-40GB (built-in)"));
	ck_assert_ptr_nonnull(strstr(out, "fp64 fma"));
	ck_assert_ptr_nonnull(strstr(out, "segmented L2"));
	ck_assert_ptr_nonnull(strstr(out, "s = 32"));
	ck_assert_ptr_nonnull(strstr(out, "Latency, single-thread pointer chase"));
	ck_assert_ptr_nonnull(strstr(out, "  DRAM      512.0 MiB     407.9 "));
	ck_assert_ptr_nonnull(strstr(out, "Sustained clock (targets.yaml clock_mhz): 1394.4 MHz"));
	ck_assert_ptr_nonnull(strstr(out, "triad            1375.7    0.7%  <- stream_gbs.triad = "
				     "bw_gbs.dram"));
	ck_assert_ptr_nonnull(strstr(err, "wrote a100.yaml"));
	ck_assert_ptr_null(strstr(err, "warning"));
	free(out);
	free(err);
	/* gpuproj targets check accepts the file as written, on the one basis too */
	snprintf(args, sizeof(args), "cd '%s' && '%s' targets check --one-basis a100.yaml", dir,
		 test_gpuproj());
	st = test_run(args, &out, &err);
	ck_assert_msg(st == 0, "%s", err);
	ck_assert_str_eq(out, "a100.yaml: OK, 1 GPUs, schema gpuproj-targets/1, one basis\n");
	free(out);
	free(err);
	/* the raw JSON next to it: the measurements plus a summary, readable again */
	snprintf(path, sizeof(path), "%s/a100.json", dir);
	json = test_read_file(path);
	ck_assert_ptr_nonnull(json);
	ck_assert_ptr_nonnull(strstr(json, "\"summary\""));
	ck_assert_ptr_nonnull(strstr(json, "\"comparison\""));
	ck_assert_int_eq(bench_raw_parse(json, strlen(json), path, &raw, NULL), GPUPROJ_OK);
	ck_assert_uint_eq(raw.n, 45);
	bench_raw_free(&raw);
	free(json);
	snprintf(path, sizeof(path), "%s/a100.yaml", dir);
	yaml = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(yaml, "  - name: A100-SXM4-40GB\n"));
	free(yaml);
	/* and --from-raw on it gives the same entry */
	st = bench(NULL, "--from-raw a100.json -o again.yaml --name Again", NULL, &err);
	ck_assert_msg(st == 0, "%s", err);
	free(err);
	ck_assert_int_eq(test_count_dir(dir), 4);
}
END_TEST

/* Failed L1, L2 and shared points print "failed: ...", never "nan". */
START_TEST(cli_from_raw_failed_sweeps)
{
	char *text = test_read_file(test_data(FIXTURE)), *a, *b, *c, *out = NULL, *err = NULL;
	int st;

	ck_assert_ptr_nonnull(text);
	a = replace_all(text, "\"family\": \"l1\",", "\"family\": \"l1\", \"error\": \"l1 test\",");
	b = replace_all(a, "\"family\": \"l2\",", "\"family\": \"l2\", \"error\": \"l2 test\",");
	c = replace_all(b, "\"family\": \"shared\",",
			"\"family\": \"shared\", \"error\": \"shared test\",");
	free(test_write_file(dir, "failed.json", c));
	st = bench(NULL, "--from-raw failed.json -o failed.yaml", &out, &err);
	ck_assert_msg(st == 0, "status %d: %s", st, err);
	ck_assert_ptr_null(strstr(out, "nan"));
	ck_assert_ptr_nonnull(strstr(out, "failed: l1 test"));
	ck_assert_ptr_nonnull(strstr(out, "failed: l2 test"));
	ck_assert_ptr_nonnull(strstr(out, "failed: shared test"));
	ck_assert_ptr_nonnull(strstr(out, "plateau: no point from L2/8 to L2/2 was measured"));
	free(out);
	free(err);
	free(text);
	free(a);
	free(b);
	free(c);
}
END_TEST

/*
 * A recording without the pointer chase (an older gpuproj bench): the entry
 * is written and valid, and the command warns that it is not on the one basis.
 */
START_TEST(cli_from_raw_without_latency_warns)
{
	char *text = test_read_file(test_data(FIXTURE)), *old, *out = NULL, *err = NULL;
	char cmd[2048];
	int st;

	ck_assert_ptr_nonnull(text);
	old = replace_all(text, "\"name\": \"latency_", "\"name\": \"old_latency_");
	free(test_write_file(dir, "old.json", old));
	st = bench(NULL, "--from-raw old.json -o old.yaml", &out, &err);
	ck_assert_msg(st == 0, "status %d: %s", st, err);
	ck_assert_ptr_nonnull(strstr(err, "gpuproj: bench: warning: GPU 'A100-SXM4-40GB' is not "
				     "on the one basis (docs/targets-schema.md, \"One basis per "
				     "level\"): no latency_ns.l2"));
	free(out);
	free(err);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' targets check old.yaml", dir, test_gpuproj());
	ck_assert_int_eq(test_run(cmd, NULL, NULL), 0);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' targets check --one-basis old.yaml", dir,
		 test_gpuproj());
	st = test_run(cmd, &out, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strncmp(err, "gpuproj: old.yaml:", 18) == 0 &&
		      strstr(err, ": GPU 'A100-SXM4-40GB' is not on the one basis"), "%s", err);
	free(out);
	free(err);
	/* --one-basis is a check option only */
	snprintf(cmd, sizeof(cmd), "'%s' targets --one-basis list", test_gpuproj());
	st = test_run(cmd, NULL, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_ptr_nonnull(strstr(err, "--one-basis goes with check only"));
	free(err);
	free(old);
	free(text);
}
END_TEST

START_TEST(cli_no_driver)
{
	char *out = NULL, *err = NULL;
	int st =
		bench("GPUPROJ_LIBCUDA=/nonexistent/libcuda.so.1", "--quick -o x.yaml", &out, &err);

	ck_assert_int_eq(st, 2);
	ck_assert_str_eq(out, "");
	ck_assert(strncmp(err, "gpuproj: bench: no CUDA GPU found: the CUDA driver is not "
			  "installed (/nonexistent/libcuda.so.1: ", 89) == 0);
	ck_assert_int_eq((int)(strchr(err, '\n') - err), (int)strlen(err) - 1); /* one line */
	ck_assert_int_eq(test_count_dir(dir), 0);
	free(out);
	free(err);
}
END_TEST

START_TEST(cli_no_device)
{
	char env[1024], *err = NULL;
	int st;

	snprintf(env, sizeof(env), "GPUPROJ_LIBCUDA='%s' FAKE_CUDA_INIT_ERROR=100",
		 fake("fake-libcuda.so"));
	st = bench(env, "-o x.yaml", NULL, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_str_eq(err, "gpuproj: bench: no CUDA GPU found: no CUDA-capable device is "
			 "detected (CUDA_ERROR_NO_DEVICE 100)\n");
	free(err);
	snprintf(env, sizeof(env), "GPUPROJ_LIBCUDA='%s' FAKE_CUDA_DEVICES=0",
		 fake("fake-libcuda.so"));
	st = bench(env, "-o x.yaml", NULL, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_str_eq(err, "gpuproj: bench: no CUDA GPU found: the driver reports no CUDA "
			 "device\n");
	free(err);
	ck_assert_int_eq(test_count_dir(dir), 0);
}
END_TEST

START_TEST(cli_kernels_program_missing)
{
	char env[1024], *err = NULL;
	int st;

	snprintf(env, sizeof(env), "GPUPROJ_LIBCUDA='%s' GPUPROJ_BENCH_KERNELS=/nonexistent/k",
		 fake("fake-libcuda.so"));
	st = bench(env, "-o x.yaml", NULL, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(err,
			     "gpuproj: bench: the CUDA benchmark program gpuproj-bench-kernels "
			     "was not found (looked at /nonexistent/k): gpuproj was built without "
			     "the CUDA toolkit (nvcc)") == err,
		      "%s", err);
	free(err);
}
END_TEST

START_TEST(cli_measure_with_fake_program)
{
	char env[2048], *out = NULL, *err = NULL, *plan, path[1024];
	int st;

	snprintf(env, sizeof(env), "GPUPROJ_LIBCUDA='%s' GPUPROJ_BENCH_KERNELS='%s' "
		 "FAKE_BENCH_RAW='%s' FAKE_BENCH_PLAN_COPY='%s/plan.txt'", fake("fake-libcuda.so"),
		 fake("fake-kernels.sh"), test_data(FIXTURE), dir);
	st = bench(env, "--quick --no-progress -o m.yaml", &out, &err);
	ck_assert_msg(st == 0, "status %d: %s", st, err);
	ck_assert_ptr_nonnull(strstr(err, "gpuproj bench: NVIDIA A100-SXM4-40GB (sm_80, 108 SMs): "
				     "35 benchmarks, quick mode, about "));
	ck_assert_ptr_nonnull(strstr(out, "L2 sweep"));
	snprintf(path, sizeof(path), "%s/plan.txt", dir);
	plan = test_read_file(path);
	ck_assert_ptr_nonnull(plan);
	ck_assert_ptr_nonnull(strstr(plan, "# quick mode, 35 benchmarks"));
	ck_assert_ptr_nonnull(strstr(plan, "bench latency_dram blocks=1 threads=1 "));
	ck_assert_ptr_nonnull(strstr(plan, "bench fp64_fma blocks=864 threads=256 "));
	free(plan);
	free(out);
	free(err);
	/* m.yaml, m.json and the plan copy */
	ck_assert_int_eq(test_count_dir(dir), 3);
	snprintf(env, sizeof(env), "cd '%s' && '%s' targets check m.yaml", dir, test_gpuproj());
	ck_assert_int_eq(test_run(env, NULL, NULL), 0);
}
END_TEST

START_TEST(cli_incomplete_run_fails_after_writing)
{
	char env[2048], *err = NULL;
	int st;

	snprintf(env, sizeof(env), "GPUPROJ_LIBCUDA='%s' GPUPROJ_BENCH_KERNELS='%s' "
		 "FAKE_BENCH_RAW='%s' FAKE_BENCH_STATUS=1", fake("fake-libcuda.so"),
		 fake("fake-kernels.sh"), test_data(FIXTURE));
	st = bench(env, "--no-progress -o p.yaml", NULL, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_ptr_nonnull(strstr(err, "warning: the run stopped early"));
	ck_assert_ptr_nonnull(strstr(err, "gpuproj: bench: the run was incomplete: p.yaml lacks or "
				     "estimates what was not measured"));
	free(err);
	/* the measurements are kept */
	ck_assert_int_eq(test_count_dir(dir), 2);
}
END_TEST

/* A GPU the program has no code for (a V100, a CUDA 13 build): what to rebuild with. */
START_TEST(cli_kernels_program_has_no_code_for_the_gpu)
{
	char env[2048], *err = NULL;
	int st;

	snprintf(env, sizeof(env), "GPUPROJ_LIBCUDA='%s' GPUPROJ_BENCH_KERNELS='%s' "
		 "FAKE_BENCH_RAW='%s' FAKE_BENCH_NOIMAGE=1", fake("fake-libcuda.so"),
		 fake("fake-kernels.sh"), test_data(FIXTURE));
	st = bench(env, "--no-progress -o x.yaml", NULL, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(err, "\ngpuproj: bench: ") && strstr(err, "fake-kernels.sh "
		      "has no code for this GPU (sm_80): warm-up: no kernel image is available for "
		      "execution on the device (cudaErrorNoKernelImageForDevice); build it with a "
		      "CUDA toolkit that supports sm_80 (CUDA 12 for sm_70/sm_72: "
		      "docs/bench.md)\n"), "%s", err);
	free(err);
	ck_assert_int_eq(test_count_dir(dir), 0);
}
END_TEST

START_TEST(cli_kernels_program_reports_no_gpu)
{
	char env[2048], *err = NULL;
	int st;

	snprintf(env, sizeof(env), "GPUPROJ_LIBCUDA='%s' GPUPROJ_BENCH_KERNELS='%s' "
		 "FAKE_BENCH_NOGPU=1", fake("fake-libcuda.so"), fake("fake-kernels.sh"));
	st = bench(env, "-o x.yaml", NULL, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_str_eq(err, "gpuproj: bench: gpuproj-bench-kernels cannot use CUDA device 0: no "
			 "CUDA-capable device is detected (cudaErrorNoDevice)\n");
	free(err);
	ck_assert_int_eq(test_count_dir(dir), 0);
}
END_TEST

static const struct {
	const char *args;
	const char *message;
} usage_cases[] = {
	{ "--bogus", "unknown option '--bogus'" },
	{ "--quick --from-raw x.json", "--quick and --from-raw do not go together" },
	{ "--device x", "--device needs a positive integer, got 'x'" },
	{ "extra", "unexpected argument 'extra'" },
	{ "-o", "option '-o' needs a value" },
};

START_TEST(cli_usage_errors)
{
	char *err = NULL;
	int st = bench(NULL, usage_cases[_i].args, NULL, &err);

	ck_assert_int_eq(st, 2);
	ck_assert_msg(strstr(err, usage_cases[_i].message), "got '%s'", err);
	free(err);
}
END_TEST

START_TEST(cli_from_raw_bad_file)
{
	char *err = NULL;
	int st;

	free(test_write_file(dir, "bad.json", "{\"schema\": \"other\"}"));
	st = bench(NULL, "--from-raw bad.json", NULL, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_str_eq(err, "gpuproj: bad.json: schema is 'other', expected "
			 "'gpuproj-bench-raw/1'\n");
	free(err);
	st = bench(NULL, "--from-raw missing.json", NULL, &err);
	ck_assert_int_eq(st, 2);
	ck_assert_ptr_nonnull(strstr(err, "missing.json"));
	free(err);
}
END_TEST

START_TEST(cli_help)
{
	char *out = NULL;

	ck_assert_int_eq(bench(NULL, "--help", &out, NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: gpuproj bench [options]"));
	ck_assert_ptr_nonnull(strstr(out, "--from-raw FILE"));
	free(out);
}
END_TEST

static Suite *
bench_suite(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("stats");

	tcase_add_loop_test(tc, stats_table, 0, sizeof(stats_cases) / sizeof(stats_cases[0]));
	tcase_add_test(tc, stats_empty_is_nan);
	tcase_add_test(tc, rate_is_median_of_per_run_rates);
	suite_add_tcase(s, tc);
	tc = tcase_create("plan");
	tcase_add_loop_test(tc, plan_sizes_from_device, 0, sizeof(devs) / sizeof(devs[0]));
	tcase_add_test(tc, plan_text_for_the_kernels_program);
	tcase_add_test(tc, plan_rejects_incomplete_device);
	tcase_add_test(tc, latency_footprints);
	tcase_add_test(tc, lanes_from_builtin_targets);
	suite_add_tcase(s, tc);
	tc = tcase_create("raw");
	tcase_add_test(tc, raw_fixture_parses);
	tcase_add_loop_test(tc, raw_bad_input, 0, sizeof(raw_bad) / sizeof(raw_bad[0]));
	tcase_add_test(tc, raw_error_only);
	suite_add_tcase(s, tc);
	tc = tcase_create("summary");
	tcase_add_test(tc, summary_of_fixture);
	suite_add_tcase(s, tc);
	tc = tcase_create("yaml");
	tcase_add_test(tc, yaml_from_fixture_passes_the_schema);
	tcase_add_test(tc, yaml_device_name_with_control_character);
	tcase_add_test(tc, yaml_estimates_what_failed);
	tcase_add_test(tc, yaml_without_nvml);
	tcase_add_test(tc, yaml_unknown_cc_and_odd_name);
	tcase_add_test(tc, yaml_triad_failed);
	tcase_add_test(tc, yaml_latency_gaps);
	tcase_add_test(tc, yaml_flags_capped_lanes);
	tcase_add_test(tc, yaml_lanes_of_the_devices_own_entry);
	tcase_add_loop_test(tc, one_basis_check, 0, sizeof(basis_breaks) / sizeof(basis_breaks[0]));
	tcase_add_test(tc, yaml_missing_everything_is_an_error);
	tcase_add_loop_test(tc, entry_names, 0, sizeof(names) / sizeof(names[0]));
	suite_add_tcase(s, tc);
	return s;
}

static Suite *
bench_cli_suite(void)
{
	Suite *s = suite_create("bench-cli");
	TCase *tc = tcase_create("cli");

	tcase_add_checked_fixture(tc, cli_setup, cli_teardown);
	tcase_add_test(tc, cli_from_raw_writes_checked_files);
	tcase_add_test(tc, cli_no_driver);
	tcase_add_test(tc, cli_no_device);
	tcase_add_test(tc, cli_kernels_program_missing);
	tcase_add_test(tc, cli_measure_with_fake_program);
	tcase_add_test(tc, cli_kernels_program_reports_no_gpu);
	tcase_add_test(tc, cli_kernels_program_has_no_code_for_the_gpu);
	tcase_add_test(tc, cli_incomplete_run_fails_after_writing);
	tcase_add_loop_test(tc, cli_usage_errors, 0, sizeof(usage_cases) / sizeof(usage_cases[0]));
	tcase_add_test(tc, cli_from_raw_bad_file);
	tcase_add_test(tc, cli_from_raw_failed_sweeps);
	tcase_add_test(tc, cli_from_raw_without_latency_warns);
	tcase_add_test(tc, cli_help);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	bool cli = argc > 1 && strcmp(argv[1], "cli") == 0;
	SRunner *sr = srunner_create(cli ? bench_cli_suite() : bench_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
