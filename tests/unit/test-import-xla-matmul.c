/* SPDX-License-Identifier: MIT */
/*
 * The XLA matmul-table importer (src/import-xla-matmul.c): analytic
 * metrics of hand-checked rows, merging, references across FP8 encodings,
 * bad input (suite 'unit'); with the argument "dataset", the tensor-core
 * GEMM corpus tests/data/xla-matmul/xla-matmul.csv (OpenXLA's default
 * matmul performance table, ROCm/xla@ea2c45f2, Apache-2.0) imported and
 * validated with the models that have tensor roofs, next to naive
 * (suite 'validation').
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
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/validate.h>

#include "common.h"

static struct gpuproj_targets *targets;
static char *tmpdir;

#define HEADER "xla_table,gpu,dtype,b,m,n,k,flop_per_s\n"

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

static struct gpuproj_profile *
of_target(struct gpuproj_profile **ps, size_t n, const char *target)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(gpuproj_profile_device(ps[i])->target, target) == 0)
			return ps[i];
	}
	ck_abort_msg("no profile for %s", target);
	return NULL;
}

#define M(k, m, v)                                                                                 \
	ck_assert_double_eq_tol(gpuproj_kernel_metric(k, m), (double)(v), 1e-9 * fabs((double)(v)) + 1e-9)

/*
 * By hand (src/import-xla-matmul.c), BF16 b = 2, m = 256, n = 384, k = 512
 * at 1e13 FLOP/s on the H100, listed twice (merged: 2 launches, same mean):
 *   F = 2·2·256·384·512 = 201326592 FLOP -> 20132.6592 ns
 *   g_n = ⌈384/128⌉ = 3, g_m = 2: grid (3, 2, 2), block 256
 *   dram read = 2·(256·512·2 + 512·384·2) = 1310720, write 2·256·384·2 =
 *   393216, dram = 1703936; L2 read = 2·(262144·3 + 393216·2) = 3145728,
 *   l2 = l1 = 3538944; wavefronts = 3145728 / 128 = 24576.
 * FP8 E4M3 256³ on the MI300X (FNUZ, 6e12 FLOP/s) and MI355X (FN, 8e12):
 *   one signature "e4m3xe4m3->bf16,b=1,m=256,n=256,k=256"; 33554432 FLOP,
 *   5592.405333 and 4194.304 ns, each the other's reference; dram =
 *   256²·(1 + 1 + 2) = 262144.
 */
START_TEST(rows_by_hand)
{
	char *f = test_write_file(tmpdir, "t.csv",
				  HEADER
				  "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,2,256,384,512,10000000000000\n"
				  "gfx942,MI300X,f8e4m3fnuzxf8e4m3fnuz->bf16,1,256,256,256,6e12\n"
				  "gfx950,MI355X,f8e4m3fnxf8e4m3fn->bf16,1,256,256,256,8e12\n"
				  "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,2,256,384,512,1e13\n");
	const char *paths[] = { f };
	struct gpuproj_profile **ps = NULL, *h, *a3, *a5;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *k;
	size_t n = 0;

	ck_assert_msg(gpuproj_import_xla_matmul(paths, 1, targets, &ps, &n, &err) == 0, "%s",
		      err.message);
	ck_assert_uint_eq(n, 3);
	h = of_target(ps, n, "H100-SXM5-80GB");
	ck_assert_str_eq(gpuproj_profile_attr(h, "origin"), "xla-matmul");
	ck_assert_str_eq(gpuproj_profile_attr(h, "metrics"), "analytic");
	ck_assert_str_eq(gpuproj_profile_attr(h, "license"), "Apache-2.0");
	ck_assert_str_eq(gpuproj_profile_attr(h, "xla_table"), "sm_90");
	ck_assert_str_eq(gpuproj_profile_attr(h, "citation"), GPUPROJ_CITATION_XLA_MATMUL);
	ck_assert_uint_eq(gpuproj_profile_count(h), 1);
	k = gpuproj_profile_at(h, 0);
	ck_assert_str_eq(k->name, "matmul");
	ck_assert_str_eq(k->tag, "bf16xbf16->bf16,b=2,m=256,n=384,k=512");
	ck_assert_uint_eq(k->launches, 2);
	ck_assert(k->grid.x == 3 && k->grid.y == 2 && k->grid.z == 2);
	ck_assert(k->block.x == 256 && k->block.y == 1 && k->block.z == 1);
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(k), 20132.6592, 1e-6);
	M(k, GPUPROJ_M_FLOP_TENSOR_BF16, 201326592);
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_FLOP_TENSOR_FP8));
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_INST_FP32_FMA));
	M(k, GPUPROJ_M_BYTES_DRAM_READ, 1310720);
	M(k, GPUPROJ_M_BYTES_DRAM_WRITE, 393216);
	M(k, GPUPROJ_M_BYTES_DRAM, 1703936);
	M(k, GPUPROJ_M_BYTES_L2, 3538944);
	M(k, GPUPROJ_M_BYTES_L1, 3538944);
	M(k, GPUPROJ_M_SHARED_WAVEFRONTS, 24576);
	ck_assert_uint_eq(k->n_refs, 0);

	a3 = of_target(ps, n, "MI300X");
	a5 = of_target(ps, n, "MI355X");
	k = gpuproj_profile_at(a3, 0);
	ck_assert_str_eq(k->tag, "e4m3xe4m3->bf16,b=1,m=256,n=256,k=256");
	M(k, GPUPROJ_M_FLOP_TENSOR_FP8, 33554432);
	M(k, GPUPROJ_M_BYTES_DRAM, 262144);
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(k), 5592.405333333, 1e-6);
	ck_assert_uint_eq(k->n_refs, 1);
	ck_assert_str_eq(k->refs[0].gpu, "MI355X");
	ck_assert_double_eq_tol(k->refs[0].mean_ns, 4194.304, 1e-6);
	k = gpuproj_profile_at(a5, 0);
	ck_assert_uint_eq(k->n_refs, 1);
	ck_assert_str_eq(k->refs[0].gpu, "MI300X");
	ck_assert_double_eq_tol(k->refs[0].mean_ns, 5592.405333333, 1e-6);
	free_all(ps, n);

	/* gpuproj_import_datasets() tells the file by its header. */
	ck_assert_int_eq(gpuproj_import_datasets(paths, 1, targets, &ps, &n, &err), 0);
	ck_assert_uint_eq(n, 3);
	free_all(ps, n);
	free(f);
}
END_TEST

/* Bad input: one clear error naming file:line:column. */
START_TEST(bad_input)
{
	static const struct {
		const char *text, *expect;
		int status, line, column;
	} cases[] = {
		{ "", "empty file: expected the header xla_table,gpu,dtype,b,m,n,k,flop_per_s",
		  GPUPROJ_E_PARSE, 0, 0 },
		{ "xla_table,gpu,dtype,b,m,n,k\nsm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,2,3,4\n",
		  "required column 'flop_per_s' is missing from the header", GPUPROJ_E_SCHEMA, 1,
		  0 },
		{ HEADER, "no data rows: nothing to import", GPUPROJ_E_PARSE, 0, 0 },
		{ HEADER "sm_90,H100-SXM5-80GB,f32xf32->f32,1,256,256,256,1e12\n",
		  "data type 'f32xf32->f32' is not one this importer derives metrics for "
		  "(bf16xbf16->bf16, bf16xbf16->f32, FP8 E4M3/E5M2 -> bf16)",
		  GPUPROJ_E_SCHEMA, 2, 22 },
		{ HEADER "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,256.5,256,256,1e12\n",
		  "column 'm': '256.5' is not a positive integer", GPUPROJ_E_SCHEMA, 2, 40 },
		{ HEADER "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,256,256,256,0\n",
		  "column 'flop_per_s': '0' is not a positive number", GPUPROJ_E_SCHEMA, 2, 52 },
		{ HEADER "sm_90,,bf16xbf16->bf16,1,256,256,256,1e12\n", "column 'gpu' is empty",
		  GPUPROJ_E_SCHEMA, 2, 7 },
		{ HEADER "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,256,256\n",
		  "the row has 6 fields, the header 8", GPUPROJ_E_PARSE, 2, 0 },
		/*
		 * A rate no GPU reaches. The bound is 2 x the fastest
		 * BF16 rate of the built-in targets.yaml: MI355X's peak_tensor.bf16,
		 * 2,516.6 TFLOP/s. Before: averaged in (a time of 3.4 ps).
		 */
		{ HEADER "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,256,256,256,1e25\n",
		  "column 'flop_per_s': 1e25 is beyond any GPU's bf16 rate (above 2 x the fastest "
		  "in targets.yaml, MI355X's 2.517e+15 FLOP/s)", GPUPROJ_E_SCHEMA, 2, 52 },
		/*
		 * A time out of range after a good row of the same GEMM: 2 * 256^3
		 * FLOP at 1e-300 FLOP/s. Before: the row's time was dropped and its
		 * launch kept (2 launches, 1 timed: the kernel's total doubled).
		 */
		{ HEADER "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,256,256,256,1e12\n"
		  "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,256,256,256,1e-300\n",
		  "column 'flop_per_s': 1e-300 implies a kernel time of inf ns for 2*b*m*n*k = "
		  "33554432 FLOP, not one from 1 ns to 1e+06 s", GPUPROJ_E_SCHEMA, 3, 52 },
		/* A time far below a nanosecond: 2 FLOP at 1e10 FLOP/s, 0.2 ns. Before: "0 ns". */
		{ HEADER "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,1,1,1,1e10\n",
		  "column 'flop_per_s': 1e10 implies a kernel time of 0.2 ns for 2*b*m*n*k = 2 "
		  "FLOP, not one from 1 ns to 1e+06 s", GPUPROJ_E_SCHEMA, 2, 46 },
		/* m = 2^24: ⌈m / 128⌉ = 131072 blocks in y, above CUDA's 65535. */
		{ HEADER "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,16777216,256,1,1e12\n",
		  "shape b=1, m=16777216, n=256 is beyond a CUDA grid of 128-element tiles "
		  "(grid.y 131072 is above CUDA's 65535)", GPUPROJ_E_SCHEMA, 2, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *f = test_write_file(tmpdir, "bad.csv", cases[i].text);
		const char *paths[] = { f };
		struct gpuproj_profile **ps = NULL;
		struct gpuproj_error err = { 0 };
		size_t n = 0;

		ck_assert_int_eq(gpuproj_import_xla_matmul(paths, 1, targets, &ps, &n, &err),
				 cases[i].status);
		ck_assert_str_eq(err.message, cases[i].expect);
		ck_assert_str_eq(err.file, f);
		ck_assert_msg(err.line == cases[i].line && err.column == cases[i].column,
			      "case %zu: %d:%d", i, err.line, err.column);
		ck_assert_ptr_null(ps);
		free(f);
	}
	{
		char *f = test_write_file(tmpdir, "gpu.csv",
					  HEADER "x,Some GPU,bf16xbf16->bf16,1,256,256,256,1e12\n");
		const char *paths[] = { f };
		struct gpuproj_profile **ps = NULL;
		struct gpuproj_error err = { 0 };
		size_t n = 0;

		ck_assert_int_eq(gpuproj_import_xla_matmul(paths, 1, targets, &ps, &n, &err),
				 GPUPROJ_E_NOTFOUND);
		ck_assert_int_eq(err.line, 2);
		ck_assert_int_eq(err.column, 3);
		free(f);
	}
	{
		/*
		 * A shape inside every per-column bound whose FLOP (2·b·m·n·k =
		 * 3.4e19) no profile holds (GPUPROJ_MAX_METRIC 1e18): refused by
		 * the importer, naming the GPU, with no profile handed out.
		 * Before, the import succeeded and writing the profile failed.
		 * At 1e15 FLOP/s its time, 3.4e4 s, is inside the importer's range.
		 */
		char *f = test_write_file(tmpdir, "huge.csv",
					  HEADER "sm_90,H100-SXM5-80GB,bf16xbf16->bf16,1,65536,65536,"
					  "4000000000,1e15\n");
		const char *paths[] = { f };
		struct gpuproj_profile **ps = NULL;
		struct gpuproj_error err = { 0 };
		size_t n = 0;

		ck_assert_int_eq(gpuproj_import_xla_matmul(paths, 1, targets, &ps, &n, &err),
				 GPUPROJ_E_SCHEMA);
		ck_assert_str_eq(err.message,
				 "GPU 'H100-SXM5-80GB': kernels[0].metrics.flop.tensor.bf16 "
				 "3.4359738368e+19 is outside [0, 1e+18] FLOP: a value derived from the "
				 "data set that no gpuproj profile holds");
		ck_assert_ptr_null(ps);
		ck_assert_uint_eq(n, 0);
		free(f);
	}
}
END_TEST

/* ---- the corpus (suite 'validation') ---- */

static struct gpuproj_profile **real;
static size_t n_real;

static void
setup_real(void)
{
	const char *paths[] = { test_data("xla-matmul/xla-matmul.csv") };
	struct gpuproj_error err = { 0 };

	setup();
	ck_assert_msg(gpuproj_import_xla_matmul(paths, 1, targets, &real, &n_real, &err) == 0,
		      "%s", err.message);
}

static void
teardown_real(void)
{
	free_all(real, n_real);
	real = NULL;
	n_real = 0;
	teardown();
}

/*
 * 375 shapes (b 1, 2, 4; m, n, k 256..4096 by powers of two) per data
 * type: H100 and B200 BF16 and three FP8 pairings (1500 each), MI300X and
 * MI355X BF16 with BF16 and FP32 output and FP8 E4M3 (1125 each).
 */
START_TEST(real_counts)
{
	ck_assert_uint_eq(n_real, 4);
	ck_assert_uint_eq(gpuproj_profile_count(of_target(real, n_real, "H100-SXM5-80GB")), 1500);
	ck_assert_uint_eq(gpuproj_profile_count(of_target(real, n_real, "B200-180GB")), 1500);
	ck_assert_uint_eq(gpuproj_profile_count(of_target(real, n_real, "MI300X")), 1125);
	ck_assert_uint_eq(gpuproj_profile_count(of_target(real, n_real, "MI355X")), 1125);
}
END_TEST

/*
 * Every ordered pair: H100 <-> B200 share 1500 signatures, an NVIDIA and
 * an AMD GPU 750 (BF16 -> BF16 and E4M3), MI300X <-> MI355X 1125:
 * 2·1500 + 8·750 + 2·1125 = 11250 comparisons per model, all projected;
 * 1025 of them measured at >= 50 µs. All pairs are of different
 * generations (Hopper, Blackwell, CDNA3, CDNA4). Nothing of this table was
 * fitted: the tensor ceilings are targets.yaml's (max_tensor from Stas
 * Bekman's MAMF table, another harness and other machines; peak_tensor
 * from datasheets), the intervals are the built-in ones (fitted on
 * gpuperfpredict and NeuSight). Figures (docs/validation.md, "Tensor-core
 * GEMMs"), long launches, MAPE %: hroof 38.00, hroof-occ 34.76, naive (the
 * ratio of datasheet tensor peaks here) 41.95; checked to 0.006 so that a
 * change of model or ceilings shows here and in the docs together.
 */
START_TEST(real_validate)
{
	const struct gpuproj_model *models[] = {
		gpuproj_model_find("hroof"),
		gpuproj_model_find("hroof-occ"),
		gpuproj_model_find("naive"),
	};
	static const double long_mape[] = { 38.00, 34.76, 41.95 };
	struct gpuproj_validate_options opt = { .models = models, .n_models = 3 };
	struct gpuproj_validation v = { 0 };
	struct gpuproj_error err = { 0 };
	size_t i;

	ck_assert_int_eq(gpuproj_validate((const struct gpuproj_profile *const *)real, n_real,
					  targets, &opt, &v, &err), 0);
	ck_assert_uint_eq(v.n_pairs, 3 * 12);
	ck_assert_uint_eq(v.n_citations, 1);
	ck_assert_str_eq(v.citations[0], GPUPROJ_CITATION_XLA_MATMUL " (Apache-2.0)");
	for (i = 0; i < 3; i++) {
		const struct gpuproj_validation_stats *all = &v.overall[i].stats[GPUPROJ_VSUBSET_ALL];
		const struct gpuproj_validation_stats *lng = &v.overall[i].stats[GPUPROJ_VSUBSET_LONG];

		ck_assert_uint_eq(all->n, 11250);
		ck_assert_uint_eq(all->n_failed, 0);
		ck_assert_uint_eq(lng->n, 1025);
		printf("%-9s long MAPE %.3f %%, all %.3f %%\n", gpuproj_model_name(models[i]),
		       lng->mape_pct, all->mape_pct);
		ck_assert_msg(fabs(lng->mape_pct - long_mape[i]) < 0.006, "%s: long MAPE %.3f",
			      gpuproj_model_name(models[i]), lng->mape_pct);
		/* All pairs cross generations: the cross group is the overall one. */
		ck_assert_uint_eq(v.generations[2 * i].stats[GPUPROJ_VSUBSET_ALL].n, 0);
		ck_assert_uint_eq(v.generations[2 * i + 1].stats[GPUPROJ_VSUBSET_ALL].n, 11250);
	}
	/* The tensor roofs beat the ratio of datasheet tensor peaks on long launches. */
	ck_assert(v.overall[1].stats[GPUPROJ_VSUBSET_LONG].mape_pct <
		  v.overall[2].stats[GPUPROJ_VSUBSET_LONG].mape_pct);
	/*
	 * BF16 alone (the FP8 rows of the H100 are in doubt: fp8_over_peak),
	 * long launches: hroof 27.88, hroof-occ 22.91 (the goal across
	 * generations, <= 25 %, met), naive 33.37 %, over 737 comparisons.
	 */
	for (i = 0; i < 3; i++) {
		static const double bf16_long[] = { 27.878, 22.912, 33.370 };
		double sum = 0;
		size_t j, n = 0;

		for (j = 0; j < v.n_comparisons; j++) {
			const struct gpuproj_validation_comparison *c = &v.comparisons[j];

			if (c->model != models[i] || strncmp(c->kernel->tag, "bf16", 4) != 0 ||
			    c->measured_ns < v.threshold_ns)
				continue;
			ck_assert_int_eq(c->status, GPUPROJ_OK);
			sum += fabs(c->error_pct);
			n++;
		}
		ck_assert_uint_eq(n, 737);
		printf("%-9s BF16 long MAPE %.3f %%\n", gpuproj_model_name(models[i]), sum / n);
		ck_assert_msg(fabs(sum / n - bf16_long[i]) < 0.006, "%s: BF16 long MAPE %.3f",
			      gpuproj_model_name(models[i]), sum / n);
	}
	gpuproj_validation_clear(&v);
}
END_TEST

/*
 * A property of the data that the figures depend on: 87 of the H100's
 * 1125 FP8 GEMMs ran faster than its dense FP8 datasheet peak (1978.9
 * TFLOP/s, targets.yaml), up to 2620 TFLOP/s, all large shapes — which no
 * dense GEMM can; the other GPUs and every BF16 row stay below their
 * peaks. Either those times are not the whole GEMM (XLA takes the median
 * of the kernels it traced, and an FP8 dot may launch more than one) or
 * the work is not 2·b·m·n·k; docs/validation.md reports FP8 apart.
 */
START_TEST(fp8_over_peak)
{
	size_t i, j, over[2] = { 0, 0 };

	for (i = 0; i < n_real; i++) {
		const struct gpuproj_target *t = gpuproj_targets_find(
			targets, gpuproj_profile_device(real[i])->target);

		for (j = 0; j < gpuproj_profile_count(real[i]); j++) {
			const struct gpuproj_kernel *k = gpuproj_profile_at(real[i], j);
			bool fp8 = gpuproj_kernel_has(k, GPUPROJ_M_FLOP_TENSOR_FP8);
			enum gpuproj_metric m = fp8 ? GPUPROJ_M_FLOP_TENSOR_FP8
						    : GPUPROJ_M_FLOP_TENSOR_BF16;
			double rate = gpuproj_kernel_metric(k, m) / gpuproj_kernel_mean_ns(k);

			if (rate > t->peak_tensor[fp8 ? GPUPROJ_TPREC_FP8 : GPUPROJ_TPREC_BF16]) {
				ck_assert_str_eq(t->name, "H100-SXM5-80GB");
				over[fp8]++;
			}
		}
	}
	ck_assert_uint_eq(over[0], 0);
	ck_assert_uint_eq(over[1], 87);
}
END_TEST

int
main(int argc, char **argv)
{
	bool dataset = argc > 1 && strcmp(argv[1], "dataset") == 0;
	Suite *s = suite_create(dataset ? "import-xla-matmul-dataset" : "import-xla-matmul");
	TCase *tc = tcase_create(dataset ? "dataset" : "unit");
	SRunner *sr;
	int failed;

	if (dataset) {
		tcase_add_checked_fixture(tc, setup_real, teardown_real);
		tcase_set_timeout(tc, 600);
		tcase_add_test(tc, real_counts);
		tcase_add_test(tc, real_validate);
		tcase_add_test(tc, fp8_over_peak);
	} else {
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_add_test(tc, rows_by_hand);
		tcase_add_test(tc, bad_input);
	}
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
