/* SPDX-License-Identifier: MIT */
/*
 * Kernel records and the gpuproj-profile/1 JSON: statistics, signature
 * lookup, exact round trips, and one test per class of bad JSON.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuproj/profile.h>

#include "common.h"

/*
 * Samples 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squared deviations 32,
 * sample standard deviation sqrt(32/7).
 */
START_TEST(stats_welford)
{
	static const double xs[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct gpuproj_stats a = { 0 }, b = { 0 }, all = { 0 };
	size_t i;

	for (i = 0; i < 8; i++) {
		gpuproj_stats_add(i < 3 ? &a : &b, xs[i]);
		gpuproj_stats_add(&all, xs[i]);
	}
	ck_assert_uint_eq(all.n, 8);
	ck_assert_double_eq_tol(all.mean, 5.0, 1e-12);
	ck_assert_double_eq_tol(all.m2, 32.0, 1e-12);
	ck_assert_double_eq_tol(gpuproj_stats_stddev(&all), sqrt(32.0 / 7.0), 1e-12);
	ck_assert_double_eq(all.min, 2);
	ck_assert_double_eq(all.max, 9);
	gpuproj_stats_merge(&a, &b);
	ck_assert_uint_eq(a.n, 8);
	ck_assert_double_eq_tol(a.mean, 5.0, 1e-12);
	ck_assert_double_eq_tol(a.m2, 32.0, 1e-12);
	ck_assert_double_eq(a.sum, 40);
	ck_assert_double_eq(a.min, 2);
	ck_assert_double_eq(a.max, 9);
}
END_TEST

START_TEST(signature_lookup)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature s = { .name = "k", .grid = { 2, 1, 1 }, .block = { 64, 1, 1 } };
	struct gpuproj_kernel *k1, *k2, *k3, *first;
	char name[32];
	int i;

	ck_assert_int_eq(gpuproj_profile_kernel(p, &s, &k1), 0);
	ck_assert_int_eq(gpuproj_profile_kernel(p, &s, &k2), 0);
	ck_assert_ptr_eq(k1, k2);
	s.tag = "input=2";
	ck_assert_int_eq(gpuproj_profile_kernel(p, &s, &k3), 0);
	ck_assert_ptr_ne(k1, k3);
	s.tag = "";
	s.smem_dynamic = 1024;
	ck_assert_ptr_null(gpuproj_profile_find(p, &s));
	/* Growth keeps records where they are and finds them all. */
	first = k1;
	for (i = 0; i < 5000; i++) {
		struct gpuproj_signature t = { .name = name, .grid = { (uint32_t)i + 1, 1, 1 },
					       .block = { 32, 1, 1 } };
		struct gpuproj_kernel *k;

		snprintf(name, sizeof(name), "kernel_%d", i % 37);
		ck_assert_int_eq(gpuproj_profile_kernel(p, &t, &k), 0);
		gpuproj_kernel_add_duration(k, i);
	}
	ck_assert_uint_eq(gpuproj_profile_count(p), 5002);
	s.smem_dynamic = 0;
	ck_assert_ptr_eq(gpuproj_profile_find(p, &s), first);
	for (i = 0; i < 5000; i++) {
		struct gpuproj_signature t = { .name = name, .grid = { (uint32_t)i + 1, 1, 1 },
					       .block = { 32, 1, 1 } };
		struct gpuproj_kernel *k;

		snprintf(name, sizeof(name), "kernel_%d", i % 37);
		k = gpuproj_profile_find(p, &t);
		ck_assert_ptr_nonnull(k);
		ck_assert_double_eq(k->duration_ns.sum, i);
	}
	/* Sorting by time keeps lookups working. */
	gpuproj_profile_sort_by_time(p);
	ck_assert_double_eq(gpuproj_profile_at(p, 0)->duration_ns.sum, 4999);
	ck_assert_ptr_eq(gpuproj_profile_find(p, &s), first);
	gpuproj_profile_free(p);
}
END_TEST

/* FLOP = Σ (2·fma + add + mul) over the precisions present. */
START_TEST(kernel_flop)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature s = { .name = "k", .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
	struct gpuproj_kernel *k;
	double flop;

	ck_assert_int_eq(gpuproj_profile_kernel(p, &s, &k), 0);
	ck_assert_int_eq(gpuproj_kernel_flop(k, &flop), GPUPROJ_E_MISSING);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_FMA, 10);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP64_MUL, 3);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP16_ADD, 1);
	ck_assert_int_eq(gpuproj_kernel_flop(k, &flop), 0);
	ck_assert_double_eq(flop, 24);
	/* A duration that is not a time counts the launch, not the sample. */
	gpuproj_kernel_add_duration(k, NAN);
	gpuproj_kernel_add_duration(k, -5);
	ck_assert_uint_eq(k->launches, 2);
	ck_assert_uint_eq(k->duration_ns.n, 0);
	/* Two profiled launches: means. */
	gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_FMA, 30);
	ck_assert_double_eq(gpuproj_kernel_metric(k, GPUPROJ_M_INST_FP32_FMA), 20);
	ck_assert(isnan(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_L1)));
	gpuproj_profile_free(p);
}
END_TEST

static struct gpuproj_profile *
sample_profile(void)
{
	static const char *const argv[] = { "./lulesh", "-s", "80", NULL };
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature s1 = { .name = "_Z6kernelPf", .grid = { 128, 2, 1 },
					.block = { 256, 1, 1 }, .smem_dynamic = 4096, .device = 1 };
	struct gpuproj_signature s2 = { .name = "copy\"quoted\\", .tag = "input=64x256",
					.grid = { 1, 1, 1 }, .block = { 32, 32, 1 } };
	struct gpuproj_kernel *k;

	ck_assert_int_eq(gpuproj_profile_set_device(p, "NVIDIA H100 PCIe", "H100-PCIe-80GB", "GH100",
						    9, 0, 114, 1.755e9), 0);
	/* What libproj.so reads from the driver; integers, except the power limit. */
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_MEMORY_CLOCK_KHZ, 1593000), 0);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_MEMORY_BUS_BITS, 5120), 0);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_L2_BYTES, 52428800), 0);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_POWER_LIMIT_W, 349.5), 0);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_WARP_SIZE, 32.5),
			 GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_REGS_PER_SM, 0),
			 GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_COUNT, 1), GPUPROJ_E_INVAL);
	/* NVML's SM clock while kernels ran (libproj.so): 3 samples, 2 power-capped. */
	{
		const struct gpuproj_sm_clock c = {
			.samples = 3, .mean_mhz = 1395.5, .min_mhz = 1350, .max_mhz = 1440,
			.reasons = GPUPROJ_CLK_SW_POWER_CAP | GPUPROJ_CLK_SW_THERMAL,
			.capped_samples = 2,
		};

		ck_assert_int_eq(gpuproj_profile_set_sm_clock(p, &c), 0);
	}
	ck_assert_int_eq(gpuproj_profile_set_process(p, "lulesh", "node01", 4242, 3, argv), 0);
	ck_assert_int_eq(gpuproj_profile_set_attr(p, "origin", "injection"), 0);
	ck_assert_int_eq(gpuproj_profile_set_attr(p, "env.GPUPROJ_MODE", "full"), 0);
	gpuproj_profile_run_info_mut(p)->wall_ns = 5e9;
	gpuproj_profile_run_info_mut(p)->gpu_ns = 1.25e9;
	gpuproj_profile_run_info_mut(p)->dropped_records = 7;
	gpuproj_profile_run_info_mut(p)->peak_device_memory_bytes = 41875931136.0;

	ck_assert_int_eq(gpuproj_profile_kernel(p, &s1, &k), 0);
	k->demangled = strdup("kernel(float*)");
	k->smem_static = 2048;
	k->regs_per_thread = 40;
	gpuproj_kernel_add_duration(k, 1000.5);
	gpuproj_kernel_add_duration(k, 1100.25);
	gpuproj_kernel_add_duration(k, 0.1 + 0.2); /* a value with no short decimal form */
	k->launches += 2;   /* two profiled launches, not timed */
	k->profiled = 2;
	gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_FMA, 1e6);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_FMA, 3e6);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_WARP_EFFICIENCY, 0.8125);
	ck_assert_int_eq(gpuproj_kernel_add_extra(k, "sm__throughput.avg.pct_of_peak_sustained_elapsed",
						  "%", 41.5), 0);
	ck_assert_int_eq(gpuproj_kernel_set_reference(k, "A100-SXM4-40GB", 1500.0, 12), 0);

	ck_assert_int_eq(gpuproj_profile_kernel(p, &s2, &k), 0);
	gpuproj_kernel_add_duration(k, 7.0);
	return p;
}

static void
assert_same_profile(const struct gpuproj_profile *a, const struct gpuproj_profile *b)
{
	const struct gpuproj_kernel *ka, *kb;
	size_t i;
	int m;

	ck_assert_str_eq(gpuproj_profile_device(b)->name, gpuproj_profile_device(a)->name);
	ck_assert_str_eq(gpuproj_profile_device(b)->target, "H100-PCIe-80GB");
	ck_assert_int_eq(gpuproj_profile_device(b)->cc_major, 9);
	ck_assert_int_eq(gpuproj_profile_device(b)->sms, 114);
	ck_assert_double_eq(gpuproj_profile_device(b)->clock_hz, 1.755e9);
	for (i = 0; i < GPUPROJ_DRV_COUNT; i++) {
		double va = gpuproj_profile_device(a)->driver[i];
		double vb = gpuproj_profile_device(b)->driver[i];

		ck_assert_msg((isnan(va) && isnan(vb)) || va == vb, "driver.%s: %g, %g",
			      gpuproj_driver_attr_name(i), va, vb);
	}
	ck_assert_double_eq(gpuproj_profile_device(b)->driver[GPUPROJ_DRV_POWER_LIMIT_W], 349.5);
	ck_assert(isnan(gpuproj_profile_device(b)->driver[GPUPROJ_DRV_WARP_SIZE]));
	ck_assert_mem_eq(&gpuproj_profile_device(b)->sm_clock, &gpuproj_profile_device(a)->sm_clock,
			 sizeof(struct gpuproj_sm_clock));
	ck_assert_str_eq(gpuproj_profile_process(b)->argv[2], "80");
	ck_assert_ptr_null(gpuproj_profile_process(b)->argv[3]);
	ck_assert_int_eq(gpuproj_profile_process(b)->rank, 3);
	ck_assert_str_eq(gpuproj_profile_attr(b, "env.GPUPROJ_MODE"), "full");
	ck_assert_double_eq(gpuproj_profile_run_info(b)->wall_ns, 5e9);
	ck_assert_uint_eq(gpuproj_profile_run_info(b)->dropped_records, 7);
	ck_assert_double_eq(gpuproj_profile_run_info(b)->peak_device_memory_bytes, 41875931136.0);
	ck_assert_uint_eq(gpuproj_profile_count(b), gpuproj_profile_count(a));
	for (i = 0; i < gpuproj_profile_count(a); i++) {
		ka = gpuproj_profile_at(a, i);
		kb = gpuproj_profile_at(b, i);
		ck_assert_str_eq(kb->name, ka->name);
		ck_assert_str_eq(kb->tag, ka->tag);
		ck_assert_uint_eq(kb->grid.y, ka->grid.y);
		ck_assert_uint_eq(kb->block.y, ka->block.y);
		ck_assert_uint_eq(kb->smem_dynamic, ka->smem_dynamic);
		ck_assert_uint_eq(kb->smem_static, ka->smem_static);
		ck_assert_int_eq(kb->device, ka->device);
		ck_assert_uint_eq(kb->launches, ka->launches);
		ck_assert_uint_eq(kb->profiled, ka->profiled);
		ck_assert_uint_eq(kb->duration_ns.n, ka->duration_ns.n);
		/* Full precision: equal bit for bit. */
		ck_assert(kb->duration_ns.mean == ka->duration_ns.mean);
		ck_assert(kb->duration_ns.m2 == ka->duration_ns.m2);
		ck_assert(kb->duration_ns.min == ka->duration_ns.min);
		for (m = 0; m < GPUPROJ_M_COUNT; m++) {
			ck_assert_uint_eq(kb->metric_n[m], ka->metric_n[m]);
			if (ka->metric_n[m])
				ck_assert(gpuproj_kernel_metric(kb, m) == gpuproj_kernel_metric(ka, m));
		}
		ck_assert_uint_eq(kb->n_extra, ka->n_extra);
		ck_assert_uint_eq(kb->n_refs, ka->n_refs);
	}
	kb = gpuproj_profile_at(b, 0);
	ck_assert_str_eq(kb->demangled, "kernel(float*)");
	ck_assert_str_eq(kb->extra[0].unit, "%");
	ck_assert_double_eq(kb->extra[0].sum, 41.5);
	ck_assert_double_eq(gpuproj_kernel_reference(kb, "a100-sxm4-40gb")->mean_ns, 1500.0);
	ck_assert_uint_eq(gpuproj_kernel_reference(kb, "A100-SXM4-40GB")->launches, 12);
	/* warp_efficiency was measured on 1 of 2 profiled launches: kept exactly. */
	ck_assert_uint_eq(kb->metric_n[GPUPROJ_M_WARP_EFFICIENCY], 1);
}

START_TEST(json_round_trip)
{
	struct gpuproj_profile *p = sample_profile(), *q = NULL;
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *a, *b, *ta, *tb;

	ck_assert_int_gt(asprintf(&a, "%s/a.json", dir), 0);
	ck_assert_int_gt(asprintf(&b, "%s/b.json", dir), 0);
	ck_assert_int_eq(gpuproj_profile_save(p, a, &err), 0);
	ck_assert_int_eq(gpuproj_profile_load(a, &q, &err), 0);
	assert_same_profile(p, q);
	/* Writing what was read gives the same bytes. */
	ck_assert_int_eq(gpuproj_profile_save(q, b, &err), 0);
	ta = test_read_file(a);
	tb = test_read_file(b);
	ck_assert_str_eq(ta, tb);
	ck_assert_ptr_nonnull(strstr(ta, "\"schema\": \"gpuproj-profile/1\""));
	/* No temporary files are left behind. */
	ck_assert_int_eq(test_count_dir(dir), 2);
	free(ta);
	free(tb);
	free(a);
	free(b);
	test_rmtree(dir);
	free(dir);
	gpuproj_profile_free(p);
	gpuproj_profile_free(q);
}
END_TEST

/* The saved file gets the mode the process umask gives (0666 & ~umask). */
START_TEST(save_respects_umask)
{
	struct gpuproj_profile *p = sample_profile();
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *path;
	struct stat st;
	mode_t old = umask(027);

	ck_assert_int_gt(asprintf(&path, "%s/m.json", dir), 0);
	ck_assert_int_eq(gpuproj_profile_save(p, path, &err), 0);
	umask(old);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0640);
	free(path);
	test_rmtree(dir);
	free(dir);
	gpuproj_profile_free(p);
}
END_TEST

/* Saving to /dev/null writes through it: the device must stay a device. */
START_TEST(save_to_device_keeps_it)
{
	struct gpuproj_profile *p = sample_profile();
	struct gpuproj_error err = { 0 };
	struct stat st;

	ck_assert_int_eq(gpuproj_profile_save(p, "/dev/null", &err), 0);
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(save_into_missing_directory)
{
	struct gpuproj_profile *p = sample_profile();
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_profile_save(p, "/nonexistent-dir/x.json", &err), GPUPROJ_E_IO);
	ck_assert_str_eq(err.file, "/nonexistent-dir/x.json");
	ck_assert_str_eq(err.message,
			 "cannot create a temporary file beside it: No such file or directory");
	gpuproj_profile_free(p);
}
END_TEST

/*
 * Bad JSON: status, line and column (of the syntax error, or of the value a
 * schema error is about: json_locate), exact message; output untouched.
 */
static const struct bad_json {
	const char *name, *text;
	int status, line, column;
	const char *message;
} bad_cases[] = {
	{ "syntax", "{\"schema\": \"gpuproj-profile/1\",\n \"kernels\": [,]}", GPUPROJ_E_PARSE, 2,
	  14, "JSON syntax error: unexpected token near ','" },
	{ "not-object", "[1, 2]", GPUPROJ_E_SCHEMA, 1, 1, "(top level): must be an object" },
	{ "no-schema", "{\"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 1,
	  "schema: missing: expected \"gpuproj-profile/1\"" },
	{ "schema-version", "{\"schema\": \"gpuproj-profile/9\", \"kernels\": []}", GPUPROJ_E_SCHEMA,
	  1, 12, "schema: unknown schema version 'gpuproj-profile/9': this gpuproj reads "
	  "'gpuproj-profile/1'" },
	{ "no-kernels", "{\"schema\": \"gpuproj-profile/1\"}", GPUPROJ_E_SCHEMA, 1, 1,
	  "kernels: missing required field" },
	{ "bad-grid", "{\"schema\": \"gpuproj-profile/1\", \"kernels\": [{\"name\": \"k\", "
	  "\"grid\": [1, 0, 1], \"block\": [1, 1, 1], \"launches\": 1}]}", GPUPROJ_E_SCHEMA, 1, 67,
	  "kernels[0]: 'grid'[1] must be a positive integer" },
	{ "unknown-metric", "{\"schema\": \"gpuproj-profile/1\", \"kernels\": [{\"name\": \"k\", "
	  "\"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 1, \"metrics\": "
	  "{\"bytes.l3\": 5}}]}", GPUPROJ_E_SCHEMA, 1, 45,
	  "kernels[0]: unknown metric 'bytes.l3' in 'metrics' (tool-specific metrics belong in "
	  "'extra_metrics')" },
	{ "duplicate-signature", "{\"schema\": \"gpuproj-profile/1\", \"kernels\": ["
	  "{\"name\": \"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 1},"
	  "{\"name\": \"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 2}]}",
	  GPUPROJ_E_SCHEMA, 1, 113, "kernels[1]: duplicate kernel signature 'k' (grid, block, shared "
	  "memory, device and tag equal to an earlier entry)" },
	{ "launches-below-timed", "{\"schema\": \"gpuproj-profile/1\", \"kernels\": [{\"name\": "
	  "\"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 1, \"duration_ns\": "
	  "{\"n\": 3, \"mean\": 5}}]}", GPUPROJ_E_SCHEMA, 1, 110,
	  "kernels[0]: 'launches' (1) is smaller than duration_ns.n (3)" },
	{ "graph-launches-above", "{\"schema\": \"gpuproj-profile/1\", \"kernels\": [{\"name\": "
	  "\"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 2, "
	  "\"graph_launches\": 3}]}",
	  GPUPROJ_E_SCHEMA, 1, 131,
	  "kernels[0]: 'graph_launches' (3) is larger than 'launches' (2)" },
	{ "negative-m2", "{\"schema\": \"gpuproj-profile/1\", \"kernels\": [{\"name\": "
	  "\"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 2, \"duration_ns\": "
	  "{\"n\": 2, \"mean\": 5, \"m2\": -1}}]}", GPUPROJ_E_SCHEMA, 1, 154,
	  "kernels[0].duration_ns: 'm2' and 'stddev' must not be negative" },
	{ "duplicate-key", "{\"schema\": \"gpuproj-profile/1\", \"schema\": \"x\", \"kernels\": []}",
	  GPUPROJ_E_PARSE, 1, 40, "JSON syntax error: duplicate object key near '\"schema\"'" },
	/* A nested "launches" is named by its full path, not the kernel's. */
	{ "metric-launches", "{\"schema\": \"gpuproj-profile/1\", \"kernels\": [{\"name\": \"k\", "
	  "\"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 1, \"metrics\": "
	  "{\"bytes.dram\": {\"value\": 1, \"launches\": -1}}}]}", GPUPROJ_E_SCHEMA, 1, 164,
	  "kernels[0].metrics.bytes.dram: 'launches' must be an integer between 0 and 4294967295" },
	{ "extra-launches", "{\"schema\": \"gpuproj-profile/1\", \"kernels\": [{\"name\": \"k\", "
	  "\"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 1, \"extra_metrics\": "
	  "{\"x__y.sum\": {\"value\": 1, \"launches\": 1.5}}}]}", GPUPROJ_E_SCHEMA, 1, 168,
	  "kernels[0].extra_metrics.x__y.sum: 'launches' must be an integer between 0 and "
	  "4294967295" },
	{ "reference-launches", "{\"schema\": \"gpuproj-profile/1\", \"kernels\": [{\"name\": "
	  "\"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 1, \"reference_ns\": "
	  "{\"P100\": {\"mean\": 5, \"launches\": \"3\"}}}]}", GPUPROJ_E_SCHEMA, 1, 162,
	  "kernels[0].reference_ns.P100: 'launches' must be an integer between 0 and "
	  "9223372036854775807" },
	/* Numbers converted to int / int64_t must fit (the conversion is undefined otherwise). */
	{ "sms-range", "{\"schema\": \"gpuproj-profile/1\", \"device\": {\"sms\": 1e20}, "
	  "\"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 51,
	  "device: 'sms' must be an integer from 0 to 4096 (or null), got 1e+20" },
	{ "pid-range", "{\"schema\": \"gpuproj-profile/1\", \"process\": {\"pid\": -1e19}, "
	  "\"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 52,
	  "process: 'pid' must be an integer from 0 to 2^62 (or null), got -1e+19" },
	/* Pretty-printed: the line and column of the value, on line 5. */
	{ "multi-line", "{\n  \"schema\": \"gpuproj-profile/1\",\n  \"kernels\": [\n    {\"name\": "
	  "\"k\", \"grid\": [1, 1, 1], \"block\": [1, 1, 1], \"launches\": 1,\n     \"metrics\": "
	  "{\"bytes.dram\": {\"value\": 1, \"launches\": -1}}}\n  ]\n}\n", GPUPROJ_E_SCHEMA, 5, 57,
	  "kernels[0].metrics.bytes.dram: 'launches' must be an integer between 0 and 4294967295" },
	{ "rank-range", "{\"schema\": \"gpuproj-profile/1\", \"process\": {\"rank\": "
	  "9.3e18}, \"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 53,
	  "process: 'rank' must be an integer from 0 to 2^62 (or null), got 9.3e+18" },
	/* device.driver: known attributes only, each in (0, max], integers but the power. */
	{ "driver-unknown", "{\"schema\": \"gpuproj-profile/1\", \"device\": {\"driver\": "
	  "{\"l3_bytes\": 5}}, \"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 67,
	  "device.driver: 'l3_bytes' is not a driver attribute gpuproj knows" },
	{ "driver-range", "{\"schema\": \"gpuproj-profile/1\", \"device\": {\"driver\": "
	  "{\"memory_bus_bits\": 38.5}}, \"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 74,
	  "device.driver: 'memory_bus_bits' 38.5 is outside (0, 65536] or not an integer" },
	{ "driver-type", "{\"schema\": \"gpuproj-profile/1\", \"device\": {\"driver\": "
	  "[1]}, \"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 54, "device.driver: must be an object" },
	/* The run's peak device memory: a whole number of bytes up to 2^53. */
	{ "peak-fraction", "{\"schema\": \"gpuproj-profile/1\", \"run\": "
	  "{\"peak_device_memory_bytes\": 1.5}, \"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 69,
	  "run: 'peak_device_memory_bytes' must be an integer from 0 to 9007199254740992 "
	  "(or null), got 1.5" },
	{ "peak-negative", "{\"schema\": \"gpuproj-profile/1\", \"run\": "
	  "{\"peak_device_memory_bytes\": -1}, \"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 69,
	  "run: 'peak_device_memory_bytes' must be an integer from 0 to 9007199254740992 "
	  "(or null), got -1" },
	/* device.sm_clock: NVML's record, every number in range, reasons by name. */
	{ "sm-clock-from", "{\"schema\": \"gpuproj-profile/1\", \"device\": {\"sm_clock\": "
	  "{\"from\": \"dcgm\", \"samples\": 1, \"mean_mhz\": 1, \"min_mhz\": 1, \"max_mhz\": 1}}, "
	  "\"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 65, "device.sm_clock: 'from' must be \"nvml\"" },
	{ "sm-clock-order", "{\"schema\": \"gpuproj-profile/1\", \"device\": {\"sm_clock\": "
	  "{\"from\": \"nvml\", \"samples\": 2, \"mean_mhz\": 900, \"min_mhz\": 1000, "
	  "\"max_mhz\": 1100}}, \"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 56,
	  "device.sm_clock: needs 0 < min_mhz <= mean_mhz <= max_mhz <= 10000 and "
	  "capped_samples <= samples" },
	{ "sm-clock-reason", "{\"schema\": \"gpuproj-profile/1\", \"device\": {\"sm_clock\": "
	  "{\"from\": \"nvml\", \"samples\": 1, \"mean_mhz\": 1, \"min_mhz\": 1, \"max_mhz\": 1, "
	  "\"event_reasons\": [\"sw_power_cap\", \"cosmic_rays\"]}}, \"kernels\": []}",
	  GPUPROJ_E_SCHEMA, 1, 56, "device.sm_clock: event_reasons[1] is not a clocks event reason "
	  "gpuproj knows (docs/formats/profile.md)" },
	{ "sm-clock-member", "{\"schema\": \"gpuproj-profile/1\", \"device\": {\"sm_clock\": "
	  "{\"from\": \"nvml\", \"samples\": 1, \"median_mhz\": 1}}, \"kernels\": []}",
	  GPUPROJ_E_SCHEMA, 1, 101, "device.sm_clock: 'median_mhz' is not a member gpuproj knows" },
	{ "sm-clock-samples", "{\"schema\": \"gpuproj-profile/1\", \"device\": {\"sm_clock\": "
	  "{\"from\": \"nvml\", \"samples\": 0, \"mean_mhz\": 1, \"min_mhz\": 1, \"max_mhz\": 1}}, "
	  "\"kernels\": []}", GPUPROJ_E_SCHEMA, 1, 84,
	  "device.sm_clock: 'samples' must be an integer from 1 to 9007199254740992 (or null), "
	  "got 0" },
};

/*
 * gpuproj_profile_set_sm_clock(): what libproj.so records, refused out of
 * its ranges; the names of NVML's reason bits (nvml.h nvmlClocksEventReason*).
 */
START_TEST(sm_clock_setter)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_sm_clock ok = { .samples = 2, .mean_mhz = 1400, .min_mhz = 1390,
				       .max_mhz = 1410, .reasons = GPUPROJ_CLK_HW_SLOWDOWN,
				       .capped_samples = 2 };
	struct gpuproj_sm_clock c;

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(gpuproj_profile_device(p)->sm_clock.samples, 0);
	ck_assert_int_eq(gpuproj_profile_set_sm_clock(p, &ok), GPUPROJ_OK);
	ck_assert_double_eq(gpuproj_profile_device(p)->sm_clock.mean_mhz, 1400);
	c = ok;
	c.capped_samples = 3;
	ck_assert_int_eq(gpuproj_profile_set_sm_clock(p, &c), GPUPROJ_E_INVAL);
	c = ok;
	c.max_mhz = 10001;
	ck_assert_int_eq(gpuproj_profile_set_sm_clock(p, &c), GPUPROJ_E_INVAL);
	c = ok;
	c.min_mhz = 0;
	ck_assert_int_eq(gpuproj_profile_set_sm_clock(p, &c), GPUPROJ_E_INVAL);
	c = ok;
	c.reasons = 0x200;
	ck_assert_int_eq(gpuproj_profile_set_sm_clock(p, &c), GPUPROJ_E_INVAL);
	memset(&c, 0, sizeof(c));
	c.mean_mhz = 1;
	ck_assert_int_eq(gpuproj_profile_set_sm_clock(p, &c), GPUPROJ_E_INVAL);
	c.mean_mhz = 0;
	ck_assert_int_eq(gpuproj_profile_set_sm_clock(p, &c), GPUPROJ_OK);
	ck_assert_uint_eq(gpuproj_profile_device(p)->sm_clock.samples, 0);
	ck_assert_int_eq(gpuproj_profile_set_sm_clock(NULL, &ok), GPUPROJ_E_INVAL);
	ck_assert_str_eq(gpuproj_clock_reason_name(GPUPROJ_CLK_SW_POWER_CAP), "sw_power_cap");
	ck_assert_str_eq(gpuproj_clock_reason_name(GPUPROJ_CLK_DISPLAY_CLOCKS), "display_clocks");
	ck_assert_ptr_null(gpuproj_clock_reason_name(0x200));
	ck_assert_ptr_null(gpuproj_clock_reason_name(0x6));
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(json_bad_input)
{
	const struct bad_json *c = &bad_cases[_i];
	struct gpuproj_profile *p = (struct gpuproj_profile *)0x1;
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_profile_load_buffer(c->text, strlen(c->text), "p.json", &p, &err),
			 c->status);
	ck_assert_msg(strcmp(err.message, c->message) == 0, "%s: got '%s'", c->name, err.message);
	ck_assert_str_eq(err.file, "p.json");
	ck_assert_int_eq(err.line, c->line);
	ck_assert_int_eq(err.column, c->column);
	ck_assert_ptr_eq(p, (struct gpuproj_profile *)0x1);
}
END_TEST

/* A hand-written profile: metrics as plain numbers, durations from sum. */
START_TEST(json_minimal_hand_written)
{
	static const char text[] =
		"{\"schema\": \"gpuproj-profile/1\", \"device\": {\"name\": \"Tesla V100-PCIE-16GB\"},"
		" \"kernels\": [{\"name\": \"k\", \"grid\": [4, 1, 1], \"block\": [128, 1, 1],"
		" \"launches\": 4, \"profiled_launches\": 1,"
		" \"duration_ns\": {\"n\": 3, \"sum\": 30},"
		" \"metrics\": {\"bytes.dram\": 4096}}]}";
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *k;

	ck_assert_int_eq(gpuproj_profile_load_buffer(text, strlen(text), "h.json", &p, &err), 0);
	k = gpuproj_profile_at(p, 0);
	ck_assert_double_eq(gpuproj_kernel_mean_ns(k), 10);
	/* Four launches at the 10 ns mean of the three timed ones. */
	ck_assert_double_eq(gpuproj_kernel_total_ns(k), 40);
	ck_assert_double_eq(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM), 4096);
	ck_assert_str_eq(gpuproj_profile_device(p)->name, "Tesla V100-PCIE-16GB");
	/* No run.peak_device_memory_bytes (imports, older profiles): unknown. */
	ck_assert(isnan(gpuproj_profile_run_info(p)->peak_device_memory_bytes));
	gpuproj_profile_free(p);
}
END_TEST

/*
 * More profiled launches than the 32-bit per-metric count holds: the metric
 * keeps its mean (it used to wrap to a count of 0 and vanish).
 */
START_TEST(json_many_profiled_launches)
{
	static const char text[] =
		"{\"schema\": \"gpuproj-profile/1\", \"device\": {\"sms\": 80, \"cc\": \"7.0\"},"
		" \"process\": {\"pid\": 4321, \"rank\": 3},"
		" \"kernels\": [{\"name\": \"k\", \"grid\": [1, 1, 1], \"block\": [32, 1, 1],"
		" \"launches\": 5000000000, \"profiled_launches\": 4294967296,"
		" \"metrics\": {\"bytes.dram\": 2.5}}]}";
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *k;

	ck_assert_int_eq(gpuproj_profile_load_buffer(text, strlen(text), "m.json", &p, &err), 0);
	k = gpuproj_profile_at(p, 0);
	ck_assert(gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM));
	ck_assert_double_eq(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM), 2.5);
	ck_assert_int_eq(gpuproj_profile_device(p)->sms, 80);
	ck_assert_int_eq(gpuproj_profile_process(p)->pid, 4321);
	ck_assert_int_eq(gpuproj_profile_process(p)->rank, 3);
	gpuproj_profile_free(p);
}
END_TEST

/*
 * The launch mode: graph_launches, written when the recorder
 * knew it (libproj.so), read back as known; absent (imports, older
 * profiles): unknown.
 */
START_TEST(json_graph_launches)
{
	static const char text[] =
		"{\"schema\": \"gpuproj-profile/1\", \"kernels\": [{\"name\": \"k\", "
		"\"grid\": [1, 1, 1],"
		" \"block\": [32, 1, 1], \"launches\": 10, \"graph_launches\": 4},"
		" {\"name\": \"u\", \"grid\": [1, 1, 1], \"block\": [32, 1, 1], "
		"\"launches\": 10}]}";
	struct gpuproj_profile *p = NULL, *q = NULL;
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *a, *t;

	ck_assert_int_eq(gpuproj_profile_load_buffer(text, strlen(text), "g.json", &p, &err), 0);
	ck_assert(gpuproj_profile_at(p, 0)->launch_mode_known);
	ck_assert_uint_eq(gpuproj_profile_at(p, 0)->graph_launches, 4);
	ck_assert(!gpuproj_profile_at(p, 1)->launch_mode_known);
	ck_assert_int_gt(asprintf(&a, "%s/g.json", dir), 0);
	ck_assert_int_eq(gpuproj_profile_save(p, a, &err), 0);
	t = test_read_file(a);
	ck_assert_ptr_nonnull(strstr(t, "\"graph_launches\": 4"));
	/* Only the kernel that knew its mode says it. */
	ck_assert_ptr_null(strstr(strstr(t, "\"graph_launches\": 4") + 20, "graph_launches"));
	ck_assert_int_eq(gpuproj_profile_load(a, &q, &err), 0);
	ck_assert_uint_eq(gpuproj_profile_at(q, 0)->graph_launches, 4);
	ck_assert(!gpuproj_profile_at(q, 1)->launch_mode_known);
	free(t);
	free(a);
	test_rmtree(dir);
	free(dir);
	gpuproj_profile_free(p);
	gpuproj_profile_free(q);
}
END_TEST

START_TEST(builtin_profile_loads)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	char buf[2048];

	ck_assert_msg(gpuproj_profile_load_builtin(&p, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_gt(gpuproj_profile_count(p), 0);
	ck_assert_ptr_nonnull(gpuproj_profile_attr(p, "citation"));
	gpuproj_profile_free(p);
}
END_TEST

static Suite *
profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("records");
	TCase *tj = tcase_create("json");

	tcase_add_test(tc, stats_welford);
	tcase_add_test(tc, signature_lookup);
	tcase_add_test(tc, kernel_flop);
	suite_add_tcase(s, tc);
	tcase_add_test(tj, json_round_trip);
	tcase_add_test(tj, save_into_missing_directory);
	tcase_add_test(tj, save_to_device_keeps_it);
	tcase_add_test(tj, save_respects_umask);
	tcase_add_loop_test(tj, json_bad_input, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_test(tj, sm_clock_setter);
	tcase_add_test(tj, json_minimal_hand_written);
	tcase_add_test(tj, json_many_profiled_launches);
	tcase_add_test(tj, json_graph_launches);
	tcase_add_test(tj, builtin_profile_loads);
	suite_add_tcase(s, tj);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(profile_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
