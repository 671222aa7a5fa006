/* SPDX-License-Identifier: MIT */
/*
 * The Kernel Tuner importer (src/import-kerneltuner.c): analytic metrics of
 * hand-checked configurations, references between GPUs, skipped failed
 * configurations, detection by gpuproj_import_datasets(), bad input.
 * Fixtures: tests/data/kerneltuner/ (configurations cut from
 * AutoTuningAssociation/benchmark_hub @ 8eeb99e7, MIT; README there).
 *
 * Targets: the built-in targets.yaml.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>

#include "common.h"

static struct gpuproj_targets *targets;
static char *tmpdir;

static void
setup(void)
{
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_targets_load_builtin(&targets, &err), 0);
	tmpdir = test_tmpdir();
}

static void
teardown(void)
{
	targets = gpuproj_targets_free(targets);
	test_rmtree(tmpdir);
	free(tmpdir);
	tmpdir = NULL;
}

static void
free_all(struct gpuproj_profile **ps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		gpuproj_profile_free(ps[i]);
	free(ps);
}

static const struct gpuproj_kernel *
find(const struct gpuproj_profile *p, const char *name, const char *tag_prefix)
{
	size_t i;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (strcmp(k->name, name) == 0 && k->tag && strncmp(k->tag, tag_prefix,
								       strlen(tag_prefix)) == 0)
			return k;
	}
	return NULL;
}

#define M(k, m, v) \
	ck_assert_msg(fabs(gpuproj_kernel_metric(k, m) - (v)) <= 1e-9 * fabs((double)(v)) + 1e-9, \
		      "%s = %.17g, expected %.17g", gpuproj_metric_name(m), \
		      gpuproj_kernel_metric(k, m), (double)(v))

/*
 * Xgemm MWG = NWG = 16, KWG 32, MDIMC = NDIMC = 8, VWM = VWN = 1, SA = SB = 0;
 * M = N = 4096; K from GFLOP/s = 2983.8356 at 46.072413 ms on the 3090:
 * 2983.8356 · 46.072413e6 / (2·4096² + 2·4096) = 4096.
 * MWI = NWI = 2, T = 64, blocks 256 × 256 = 65536, warps 131072.
 *   fma  = 4096³ + 4096²                   = 68,736,253,952; mul = 4096² = 16,777,216
 *   dram = 4 (MK + KN + 2MN) = 16 · 4096²    = 268,435,456 (read 201,326,592)
 *   l2   = 2 · 4MK · (N/16) + 8MN           = 34,493,956,096
 *   l1 (no shared memory): a warp's A load touches lanes x = 0..7 at words
 *   0, 2, …, 14: 2 sectors = 64 B; its B load rows y = 0..3 at words 0, 2,
 *   4, 6: 1 sector = 32 B; per k 2 loads of each:
 *   131072 · 4096 · 2 · (64 + 32) + 8MN     = 103,213,432,832
 *   ldst = 65536 · 64 · 4096 · (2 + 2) + 2MN = 68,753,031,168
 *   warp = (fp32 + ldst) / 32               = 4,297,064,448
 */
START_TEST(gemm_by_hand)
{
	const char *paths[] = { test_data("kerneltuner/gemm_RTX_2080_Ti.json"),
				test_data("kerneltuner/gemm_RTX_3090.json") };
	char p0[4096], p1[4096];
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *k;
	const struct gpuproj_reference *ref;
	size_t n = 0;

	snprintf(p0, sizeof(p0), "%s", paths[0]);
	snprintf(p1, sizeof(p1), "%s", paths[1]);
	paths[0] = p0;
	paths[1] = p1;
	ck_assert_int_eq(gpuproj_import_kerneltuner(paths, 2, targets, &ps, &n, &err), GPUPROJ_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(gpuproj_profile_device(ps[0])->target, "RTX-2080-Ti");
	ck_assert_str_eq(gpuproj_profile_device(ps[1])->target, "RTX-3090");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "origin"), "kerneltuner");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "metrics"), "analytic");
	ck_assert_uint_eq(gpuproj_profile_count(ps[0]), 3);
	k = find(ps[0], "Xgemm", "MWG=16,NWG=16,");
	ck_assert_ptr_nonnull(k);
	ck_assert_str_eq(k->tag, "MWG=16,NWG=16,KWG=32,MDIMC=8,NDIMC=8,MDIMA=8,NDIMB=8,KWI=2,"
				 "VWM=1,VWN=1,STRM=0,STRN=0,SA=0,SB=0,PRECISION=32");
	ck_assert_uint_eq(k->grid.x, 256);
	ck_assert_uint_eq(k->grid.y, 256);
	ck_assert_uint_eq(k->block.x, 8);
	ck_assert_uint_eq(k->block.y, 8);
	ck_assert_uint_eq(k->smem_static, 0);
	ck_assert(fabs(gpuproj_kernel_mean_ns(k) - 60880553.0) < 1e-3);
	M(k, GPUPROJ_M_INST_FP32_FMA, 68736253952.0);
	M(k, GPUPROJ_M_INST_FP32_MUL, 16777216.0);
	M(k, GPUPROJ_M_INST_FP32, 68753031168.0);
	M(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	M(k, GPUPROJ_M_BYTES_DRAM, 268435456.0);
	M(k, GPUPROJ_M_BYTES_DRAM_READ, 201326592.0);
	M(k, GPUPROJ_M_BYTES_L2, 34493956096.0);
	M(k, GPUPROJ_M_BYTES_L1, 103213432832.0);
	M(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	M(k, GPUPROJ_M_INST_LDST, 68753031168.0);
	M(k, GPUPROJ_M_INST_WARP, 4297064448.0);
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_INST_INT));
	ref = gpuproj_kernel_reference(k, "RTX-3090");
	ck_assert_ptr_nonnull(ref);
	ck_assert(fabs(ref->mean_ns - 46072413.0) < 1e-3);
	free_all(ps, n);
}
END_TEST

/*
 * convolution_kernel b = (32, 4), tiles 2 × 3, 15 × 15 filter, no padding,
 * image 4096²: T = 128 (4 full warps), grid ⌈4096/64⌉ × ⌈4096/12⌉ = 64 × 342
 * = 21888 blocks; tile 26 rows × 78 columns = E = 2028 floats, smem 8112 B;
 * N_y = min(45, 2·4 + 15) = 23, N_x = min(30, 32 + 15) = 30: 690 loads per
 * thread; a warp's accesses are one row of 32 words: 1 wavefront.
 *   fma  = 21888 · 128 · 6 · 225                   = 3,782,246,400
 *   dram = 4 (4110² + 4096²)                       = 134,677,264
 *   l2   = l1 = 4 (21888 · 2028 + 4096²)            = 244,664,320
 *   wavefronts = 21888 · (⌈2028/128⌉ · 4 + 4 · 690) = 61,811,712
 *   ldst = 21888 · (2 · 2028 + 128 · 690 + 128 · 6) = 2,038,735,872
 *   warp = (fma + ldst) / 32                       = 181,905,696
 * The configuration that failed to compile has no time and is not imported.
 */
START_TEST(convolution_by_hand)
{
	char p0[4096], p1[4096];
	const char *paths[2] = { p0, p1 };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *k;
	size_t n = 0;

	snprintf(p0, sizeof(p0), "%s", test_data("kerneltuner/conv_RTX_2080_Ti.json"));
	snprintf(p1, sizeof(p1), "%s", test_data("kerneltuner/conv_RTX_3090.json"));
	ck_assert_int_eq(gpuproj_import_kerneltuner(paths, 2, targets, &ps, &n, &err), GPUPROJ_OK);
	ck_assert_uint_eq(gpuproj_profile_count(ps[1]), 2);
	k = find(ps[1], "convolution_kernel", "block_size_x=32,block_size_y=4,");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->grid.x, 64);
	ck_assert_uint_eq(k->grid.y, 342);
	ck_assert_uint_eq(k->block.x, 32);
	ck_assert_uint_eq(k->block.y, 4);
	ck_assert_uint_eq(k->smem_static, 8112);
	M(k, GPUPROJ_M_INST_FP32_FMA, 3782246400.0);
	M(k, GPUPROJ_M_BYTES_DRAM, 134677264.0);
	M(k, GPUPROJ_M_BYTES_L2, 244664320.0);
	M(k, GPUPROJ_M_BYTES_L1, 244664320.0);
	M(k, GPUPROJ_M_SHARED_WAVEFRONTS, 61811712.0);
	M(k, GPUPROJ_M_INST_LDST, 2038735872.0);
	M(k, GPUPROJ_M_INST_WARP, 181905696.0);
	ck_assert(fabs(gpuproj_kernel_mean_ns(k) - 948838.4008407593) < 1e-3);
	ck_assert_ptr_null(find(ps[0], "convolution_kernel", "block_size_x=8,block_size_y=32,"));
	free_all(ps, n);
}
END_TEST

/* validate's loader recognises the files by their first keys. */
START_TEST(datasets_detect_kerneltuner)
{
	char p0[4096], p1[4096];
	const char *paths[2] = { p0, p1 };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0;

	snprintf(p0, sizeof(p0), "%s", test_data("kerneltuner/gemm_RTX_2080_Ti.json"));
	snprintf(p1, sizeof(p1), "%s", test_data("kerneltuner/gemm_RTX_3090.json"));
	ck_assert_int_eq(gpuproj_import_datasets(paths, 2, targets, &ps, &n, &err), GPUPROJ_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "origin"), "kerneltuner");
	free_all(ps, n);
}
END_TEST

START_TEST(bad_input)
{
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	const char *path;
	size_t n = 0;

	path = test_write_file(tmpdir, "pnpoly.json",
			       "{\"device_name\": \"NVIDIA GeForce RTX 3090\", \"kernel_name\": "
			       "\"cn_pnpoly\", \"problem_size\": 20000000, \"tune_params_keys\": "
			       "[\"block_size_x\"], \"cache\": {}}");
	ck_assert_int_eq(gpuproj_import_kerneltuner(&path, 1, targets, &ps, &n, &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "'cn_pnpoly' is not one this importer"), "%s",
		      err.message);
	free((char *)path);
	path = test_write_file(tmpdir, "unknown.json",
			       "{\"device_name\": \"NVIDIA Imaginary GPU\", \"kernel_name\": "
			       "\"convolution_kernel\", \"problem_size\": [64, 64], "
			       "\"tune_params_keys\": [\"block_size_x\"], \"cache\": {}}");
	ck_assert_int_eq(gpuproj_import_kerneltuner(&path, 1, targets, &ps, &n, &err),
			 GPUPROJ_E_NOTFOUND);
	free((char *)path);
	path = test_write_file(tmpdir, "nok.json",
			       "{\"device_name\": \"NVIDIA GeForce RTX 3090\", \"kernel_name\": "
			       "\"Xgemm\", \"problem_size\": [64, 64], \"tune_params_keys\": "
			       "[\"MWG\"], \"cache\": {\"16\": {\"MWG\": 16, \"time\": 1.0}}}");
	ck_assert_int_eq(gpuproj_import_kerneltuner(&path, 1, targets, &ps, &n, &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "K cannot be recovered"), "%s", err.message);
	free((char *)path);
	path = test_write_file(tmpdir, "notkt.json", "[1, 2]");
	ck_assert_int_eq(gpuproj_import_kerneltuner(&path, 1, targets, &ps, &n, &err),
			 GPUPROJ_E_PARSE);
	free((char *)path);
}
END_TEST

/*
 * Configurations whose time or launch is none, each refused
 * with the file and the line of its `time` (or of the configuration) and
 * nothing written. One convolution configuration (bx = 32, by = 4, one
 * output per thread, 15 x 15 filter) on the RTX 3090 per case; the
 * configuration's key is on line 5, its time on line 7.
 */
static char *
kt_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
kt_printf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&s, fmt, ap), 0);
	va_end(ap);
	return s;
}

START_TEST(bad_configurations)
{
	static const struct {
		const char *size, *time, *expect;
		int line, column;
	} cases[] = {
		/* Before: 1e306 ns dropped, its launch kept (a launch without a time). */
		{ "4096, 4096", "1e300", "configuration '32,4,15,15,0,1,1,0': time 1e+300 "
		  "ms is not a kernel time (1 ns to 1e+06 s)", 7, 15 },
		/* Before: 1e-294 ns, projected as "0 ns". */
		{ "4096, 4096", "1e-300", "configuration '32,4,15,15,0,1,1,0': time 1e-300 "
		  "ms is not a kernel time (1 ns to 1e+06 s)", 7, 15 },
		{ "4096, 4096", "0", "configuration '32,4,15,15,0,1,1,0': time 0 ms is not a "
		  "kernel time (1 ns to 1e+06 s)", 7, 15 },
		/*
		 * 4096 x 4096 outputs x 225 FMA x 2 FLOP = 7.55e9 FLOP in 1e-6 ms is
		 * 7.5e18 FLOP/s: above 2 x the fastest FP32 rate of the built-in
		 * targets.yaml (the test finds it as the importer does).
		 */
		{ "4096, 4096", "1e-6", NULL, 7, 15 },
		/*
		 * W = (2^32 + 5) x 32, H = 128 x 4: a grid of (2^32 + 5) x 128 blocks of
		 * 32 x 4. Before: grid.x cast to 5 while the metrics described 4.3e9
		 * blocks.
		 */
		{ "137438953632, 512", "1.0", "configuration '32,4,15,15,0,1,1,0': its launch, "
		  "grid (4294967301, 128, 1) and block (32, 4, 1), is beyond CUDA's limits "
		  "(grid.x 4294967301 is above CUDA's 2147483647)", 5, 27 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text, *dir = test_tmpdir(), *out = NULL;
		const char *path;
		struct gpuproj_profile **ps = NULL;
		struct gpuproj_error err = { 0 };
		size_t n = 0;

		text = kt_printf(
			"{\"device_name\": \"NVIDIA GeForce RTX 3090\",\n"
			" \"kernel_name\": \"convolution_kernel\", \"problem_size\": [%s],\n"
			" \"tune_params_keys\": [\"block_size_x\", \"block_size_y\", "
			"\"filter_height\", \"filter_width\", \"read_only\", \"tile_size_x\", "
			"\"tile_size_y\", \"use_padding\"],\n \"cache\": {\n"
			"    \"32,4,15,15,0,1,1,0\": {\"block_size_x\": 32, \"block_size_y\": 4,\n"
			"      \"filter_height\": 15, \"filter_width\": 15, \"read_only\": 0, "
			"\"tile_size_x\": 1, \"tile_size_y\": 1, \"use_padding\": 0,\n"
			"      \"time\": %s}}}\n", cases[i].size, cases[i].time);
		path = test_write_file(dir, "bad.json", text);
		ck_assert_int_eq(gpuproj_import_kerneltuner(&path, 1, targets, &ps, &n, &err),
				 GPUPROJ_E_SCHEMA);
		if (cases[i].expect) {
			ck_assert_str_eq(err.message, cases[i].expect);
		} else {
			const char *fastest = NULL;
			double peak = 0;
			size_t j;

			/* The fastest FP32 rate, from the same targets, as the message names it. */
			for (j = 0; j < gpuproj_targets_count(targets); j++) {
				const struct gpuproj_target *t = gpuproj_targets_get(targets, j);
				double r = fmax(t->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA],
						t->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA]);

				if (r > peak) {
					peak = r;
					fastest = t->name;
				}
			}
			out = kt_printf("configuration '32,4,15,15,0,1,1,0': 7549747200 FLOP in "
						 "1e-06 ms is 7.55e+18 FLOP/s, beyond "
						 "any GPU's FP32 rate (above 2 x the fastest in "
						 "targets.yaml, %s's %.4g FLOP/s)", fastest,
						 peak * 1e9);
			ck_assert_str_eq(err.message, out);
		}
		ck_assert_str_eq(err.file, path);
		ck_assert_msg(err.line == cases[i].line && err.column == cases[i].column,
			      "case %zu: %d:%d", i, err.line, err.column);
		ck_assert_ptr_null(ps);
		ck_assert_uint_eq(n, 0);
		/* Nothing written beside the input. */
		ck_assert_int_eq(test_count_dir(dir), 1);
		free(out);
		free(text);
		free((char *)path);
		test_rmtree(dir);
		free(dir);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("import-kerneltuner");
	TCase *tc = tcase_create("unit");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, gemm_by_hand);
	tcase_add_test(tc, convolution_by_hand);
	tcase_add_test(tc, datasets_detect_kerneltuner);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, bad_configurations);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
