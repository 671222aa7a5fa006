/* SPDX-License-Identifier: MIT */
/*
 * The seed 002 importer (src/import-seed002.c): analytic metrics of
 * hand-checked rows in each of the data set's three header layouts, the
 * join across GPUs, the data-set sniffing of gpuproj_import_datasets(),
 * the L2 hit share, bad input (suite 'unit'). The real data set is
 * checked by tests/validation/test-seed002.c. Rows are those of
 * Debdeep23/test1@f808e854 predict-kernel-perf/data/runs_*_final.csv
 * (Srivastava, Naha, Gupta, Rao), cut to the columns the importer reads
 * plus a few it ignores.
 *
 * Targets: the built-in targets.yaml (RTX-4070 36 MiB L2, TITAN-V 4.5 MiB,
 * RTX-2080-Ti 5.5 MiB).
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

#include "common.h"
#include "model-private.h"

static struct gpuproj_targets *targets;
static char *tmpdir;

/* The 4070 file's layout: no iters column. */
#define H4070                                                                                      \
	"kernel,regs,shmem,mean_ms,std_ms,N,rows,cols,block,grid_blocks,size_kind,FLOPs,BYTES,"    \
	"arithmetic_intensity,working_set_bytes,shared_bytes,mem_pattern,gpu_device_name\n"
/* The TITAN V file's layout: reps and iters. */
#define HTITANV                                                                                    \
	"kernel,regs,shmem,reps,mean_ms,std_ms,N,rows,cols,iters,block,grid_blocks,size_kind,"     \
	"FLOPs,BYTES,arithmetic_intensity,working_set_bytes,shared_bytes,mem_pattern,"            \
	"gpu_device_name\n"
/* The 2080 Ti file's layout: empty rows/cols. */
#define H2080                                                                                      \
	"kernel,regs,shmem,block,grid_blocks,mean_ms,std_ms,N,rows,cols,iters,size_kind,FLOPs,"   \
	"BYTES,shared_bytes,working_set_bytes,arithmetic_intensity,mem_pattern,"                  \
	"has_branch_divergence,atomic_ops_count,gpu_device_name\n"

#define ROWS_4070                                                                                  \
	"saxpy,12,0,0.106717,0.000204,4194304,0,0,256,16384,N,8388608,50331648,0.166667,"          \
	"50331648,0,coalesced,NVIDIA GeForce RTX 4070\n"                                           \
	"matmul_tiled,37,8192,9.871057,0.01,0,2048,2048,1024,4096,rows_cols,17179869184,"          \
	"50331648,341.33,50331648,8192,mm_tiled,NVIDIA GeForce RTX 4070\n"
#define ROWS_TITANV                                                                                \
	"saxpy,12,0,100,0.086258,0.0001,4194304,0,0,0,256,16384,N,8388608,50331648,0.166667,"      \
	"50331648,0,coalesced,NVIDIA TITAN V\n"                                                    \
	"atomic_hotspot,7,0,50,0.486523,0.161583,262144,0,0,50,256,1024,N,0,104857600,0,4,0,"      \
	"atomics_hotspot,NVIDIA TITAN V\n"
#define ROWS_2080                                                                                  \
	"saxpy,12,0,256,16384,0.095837,0.0002,4194304,,,0,N,8388608,50331648,0,50331648,0.166667," \
	"coalesced,0,0,NVIDIA GeForce RTX 2080 Ti\n"                                               \
	"vector_add,12,0,256,1024,0.004039,0.0001,262144,,,0,N,262144,3145728,0,3145728,0.25,"     \
	"coalesced,0,0,NVIDIA GeForce RTX 2080 Ti\n"

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

static struct gpuproj_kernel *
find(struct gpuproj_profile *p, const char *name, const char *tag)
{
	size_t i;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (strcmp(k->name, name) == 0 && strcmp(k->tag, tag) == 0)
			return k;
	}
	ck_abort_msg("no %s %s", name, tag);
	return NULL;
}

#define M(k, m, v)                                                        \
	ck_assert_double_eq_tol(gpuproj_kernel_metric(k, m), (double)(v), \
				1e-9 * fabs((double)(v)) + 1e-9)

/* Import the three files, 4070 first; *ps in order RTX-4070, TITAN-V, RTX-2080-Ti. */
static void
import_three(struct gpuproj_profile ***ps, size_t *np)
{
	struct gpuproj_error err = { 0 };
	char buf[1024];
	char *f[3];
	size_t i;

	f[0] = test_write_file(tmpdir, "runs_4070_final.csv", H4070 ROWS_4070);
	f[1] = test_write_file(tmpdir, "runs_titanv_final.csv", HTITANV ROWS_TITANV);
	f[2] = test_write_file(tmpdir, "runs_2080ti_final.csv", H2080 ROWS_2080);
	ck_assert_msg(gpuproj_import_seed002((const char *const *)f, 3, targets, ps, np, &err) == 0,
		      "%s", gpuproj_error_format(&err, buf, sizeof(buf)));
	for (i = 0; i < 3; i++)
		free(f[i]);
	ck_assert_uint_eq(*np, 3);
}

/*
 * RTX 4070 saxpy, N = 4194304 (src/import-seed002.c), by hand:
 *   tag "N=4194304,rows=0,cols=0,iters=0" (no iters column: 0), grid 16384,
 *   block 256, 12 registers, 0 B shared; 0.106717 ms = 106717 ns, one launch
 *   fma = FLOPs / 2 = 4194304 (multiply-add), add 0, fp32 4194304
 *   bytes.l1 = bytes.l2 = 50331648; inst.ldst = 50331648 / 4 = 12582912
 *   inst.warp = (4194304 + 12582912) / 32 = 524288
 *   bytes.dram: W = 50331648 B = 48 MiB in 36 MiB of L2, W/C = 4/3;
 *   h = (1.5 − 4/3) / (1.5 − 0.68) = (1/6) / 0.82 = 0.2032520325…;
 *   50331648 · (1 − h) = 40101638.2439…
 * matmul_tiled 2048: fma = 17179869184 / 2 = 8589934592, 37 registers,
 *   8192 B shared, bytes.dram the same 40101638.24 (W = 48 MiB),
 *   inst.warp = (8589934592 + 12582912) / 32 = 268828672.
 * TITAN V saxpy: 48 MiB in 4.5 MiB (W/C = 10.7 ≥ 1.5): h = 0,
 *   bytes.dram = 50331648; its mean 0.086258 ms is the 4070's reference.
 * TITAN V atomic_hotspot: tag iters=50, FLOPs 0: fma = add = 0;
 *   W = 4 B: h = 1, bytes.dram = 0; bytes.l2 104857600. No other GPU has it.
 * RTX 2080 Ti vector_add 262144 (empty rows/cols: 0): add = 262144;
 *   W = 3 MiB in 5.5 MiB, W/C = 0.545 ≤ 0.68: bytes.dram = 0;
 *   inst.ldst = 3145728 / 4 = 786432, inst.warp = (262144 + 786432) / 32 = 32768.
 */
START_TEST(rows_by_hand)
{
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_kernel *k;
	const struct gpuproj_reference *r;
	size_t np = 0;

	import_three(&ps, &np);
	ck_assert_str_eq(gpuproj_profile_device(ps[0])->target, "RTX-4070");
	ck_assert_str_eq(gpuproj_profile_device(ps[1])->target, "TITAN-V");
	ck_assert_str_eq(gpuproj_profile_device(ps[2])->target, "RTX-2080-Ti");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "origin"), "seed002");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "metrics"), "analytic");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "citation"), GPUPROJ_CITATION_SEED002);

	k = find(ps[0], "saxpy", "N=4194304,rows=0,cols=0,iters=0");
	ck_assert_uint_eq(k->grid.x, 16384);
	ck_assert_uint_eq(k->block.x, 256);
	ck_assert_uint_eq(k->regs_per_thread, 12);
	ck_assert_uint_eq(k->smem_static, 0);
	ck_assert_uint_eq(k->launches, 1);
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(k), 106717, 1e-6);
	M(k, GPUPROJ_M_INST_FP32_FMA, 4194304);
	M(k, GPUPROJ_M_INST_FP32_ADD, 0);
	M(k, GPUPROJ_M_INST_FP32_MUL, 0);
	M(k, GPUPROJ_M_INST_FP32, 4194304);
	M(k, GPUPROJ_M_INST_FP64, 0);
	M(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	M(k, GPUPROJ_M_BYTES_L1, 50331648);
	M(k, GPUPROJ_M_BYTES_L2, 50331648);
	M(k, GPUPROJ_M_BYTES_DRAM, 40101638.2439024);
	M(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	M(k, GPUPROJ_M_INST_LDST, 12582912);
	M(k, GPUPROJ_M_INST_WARP, 524288);
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_INST_INT));
	r = gpuproj_kernel_reference(k, "TITAN-V");
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq_tol(r->mean_ns, 86258, 1e-6);
	r = gpuproj_kernel_reference(k, "RTX-2080-Ti");
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq_tol(r->mean_ns, 95837, 1e-6);

	k = find(ps[0], "matmul_tiled", "N=0,rows=2048,cols=2048,iters=0");
	ck_assert_uint_eq(k->block.x, 1024);
	ck_assert_uint_eq(k->regs_per_thread, 37);
	ck_assert_uint_eq(k->smem_static, 8192);
	M(k, GPUPROJ_M_INST_FP32_FMA, 8589934592.0);
	M(k, GPUPROJ_M_BYTES_DRAM, 40101638.2439024);
	M(k, GPUPROJ_M_INST_WARP, 268828672);
	ck_assert_uint_eq(k->n_refs, 0);

	k = find(ps[1], "saxpy", "N=4194304,rows=0,cols=0,iters=0");
	M(k, GPUPROJ_M_BYTES_DRAM, 50331648);
	k = find(ps[1], "atomic_hotspot", "N=262144,rows=0,cols=0,iters=50");
	M(k, GPUPROJ_M_INST_FP32_FMA, 0);
	M(k, GPUPROJ_M_INST_FP32_ADD, 0);
	M(k, GPUPROJ_M_BYTES_L2, 104857600);
	M(k, GPUPROJ_M_BYTES_DRAM, 0);
	ck_assert_uint_eq(k->n_refs, 0);

	k = find(ps[2], "vector_add", "N=262144,rows=0,cols=0,iters=0");
	M(k, GPUPROJ_M_INST_FP32_ADD, 262144);
	M(k, GPUPROJ_M_INST_FP32_FMA, 0);
	M(k, GPUPROJ_M_BYTES_DRAM, 0);
	M(k, GPUPROJ_M_INST_LDST, 786432);
	M(k, GPUPROJ_M_INST_WARP, 32768);
	free_all(ps, np);
}
END_TEST

/* The ramp of gpuproj_l2_hit_share() (model.h): 1 to 0.68·C, 0 from 1.5·C, linear between. */
START_TEST(l2_hit_share)
{
	const double c = 1048576.0;

	ck_assert_double_eq(gpuproj_l2_hit_share(0, c), 1);
	ck_assert_double_eq(gpuproj_l2_hit_share(0.68 * c, c), 1);
	/* 1.09·C: (1.5 − 1.09) / 0.82 = 0.5 */
	ck_assert_double_eq_tol(gpuproj_l2_hit_share(1.09 * c, c), 0.5, 1e-12);
	ck_assert_double_eq(gpuproj_l2_hit_share(1.5 * c, c), 0);
	ck_assert_double_eq(gpuproj_l2_hit_share(10 * c, c), 0);
	ck_assert_double_eq(gpuproj_l2_hit_share(c, 0), 0);
	ck_assert_double_eq(gpuproj_l2_hit_share(NAN, c), 0);
	ck_assert_double_eq(gpuproj_l2_hit_share(-1, c), 0);
}
END_TEST

/*
 * gpuproj_import_datasets() tells the seed's files by their first line and
 * imports them together.
 */
START_TEST(dataset_sniffed)
{
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	char buf[1024];
	char *f[2];
	size_t np = 0;

	f[0] = test_write_file(tmpdir, "a.csv", H4070 ROWS_4070);
	f[1] = test_write_file(tmpdir, "b.csv", HTITANV ROWS_TITANV);
	ck_assert_msg(gpuproj_import_datasets((const char *const *)f, 2, targets, &ps, &np, &err) ==
			      0,
		      "%s", gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(np, 2);
	ck_assert_ptr_nonnull(gpuproj_kernel_reference(
		find(ps[1], "saxpy", "N=4194304,rows=0,cols=0,iters=0"), "RTX-4070"));
	free_all(ps, np);
	free(f[0]);
	free(f[1]);
}
END_TEST

/* A directory argument reads its *.csv files (and nothing else). */
START_TEST(directory_argument)
{
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	const char *dir[1] = { tmpdir };
	char buf[1024];
	size_t np = 0;

	free(test_write_file(tmpdir, "runs_4070_final.csv", H4070 ROWS_4070));
	free(test_write_file(tmpdir, "gpu_metrics.json", "[]\n"));
	ck_assert_msg(gpuproj_import_seed002(dir, 1, targets, &ps, &np, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(np, 1);
	ck_assert_uint_eq(gpuproj_profile_count(ps[0]), 2);
	free_all(ps, np);
}
END_TEST

/* Bad input: one error naming file:line:column, nothing returned. */
static const struct {
	const char *text;
	int status;
	const char *msg; /* after "<path>:" */
} bad[] = {
	{ "", GPUPROJ_E_PARSE,
	  " empty file: expected a seed 002 CSV header (kernel,regs,shmem,...)" },
	{ H4070, GPUPROJ_E_PARSE, " no data rows: nothing to import" },
	{ "kernel,regs,shmem,block\nsaxpy,1,0,256\n", GPUPROJ_E_PARSE,
	  "1: not a seed 002 CSV: the header has no 'kernel', 'mean_ms' and 'gpu_device_name' "
	  "columns" },
	{ "kernel,regs,shmem,mean_ms,gpu_device_name\nsaxpy,1,0,1,NVIDIA TITAN V\n",
	  GPUPROJ_E_SCHEMA, "1: required column 'block' is missing from the header" },
	/* FLOPs of a kernel whose FP operation is not known. */
	{ H4070 "conv2d_5x5,30,0,0.01,0,0,512,512,256,1024,rows_cols,100,2097152,1,2097152,0,x,"
		"NVIDIA GeForce RTX 4070\n",
	  GPUPROJ_E_SCHEMA,
	  "2:53: kernel 'conv2d_5x5' has 100 FLOPs but is not one whose FP operation this "
	  "importer knows (saxpy, dot_product, conv2d_3x3, conv2d_7x7, matmul_naive, "
	  "matmul_tiled: multiply-add; vector_add, vector_add_divergent, reduce_sum: add)" },
	{ H4070 ROWS_4070 "saxpy,12,0,0.2,0,4194304,0,0,256,16384,N,8388608,50331648,0,50331648,0,"
			  "coalesced,NVIDIA GeForce RTX 4070\n",
	  GPUPROJ_E_SCHEMA,
	  "4: configuration saxpy N=4194304,rows=0,cols=0,iters=0, block 256, is listed twice "
	  "for 'NVIDIA GeForce RTX 4070'" },
	{ H4070 "saxpy,12,0,0,0,4194304,0,0,256,16384,N,8388608,50331648,0,50331648,0,coalesced,"
		"NVIDIA GeForce RTX 4070\n",
	  GPUPROJ_E_SCHEMA,
	  "2:12: column 'mean_ms': 0 is not a time in (0, 1000000000] milliseconds" },
	{ H4070 "saxpy,12,0,1,0,4194304,0,0,0,16384,N,8388608,50331648,0,50331648,0,coalesced,"
		"NVIDIA GeForce RTX 4070\n",
	  GPUPROJ_E_SCHEMA, "2:28: column 'block': a launch needs at least one thread per block" },
	{ H4070 "saxpy,12.5,0,1,0,4194304,0,0,256,16384,N,8388608,50331648,0,50331648,0,coalesced,"
		"NVIDIA GeForce RTX 4070\n",
	  GPUPROJ_E_SCHEMA, "2:7: column 'regs': '12.5' is not a whole number in [0, 255]" },
	{ H4070 "saxpy,12,0,1,0,4194304,0,0,256,16384,N,-1,50331648,0,50331648,0,coalesced,"
		"NVIDIA GeForce RTX 4070\n",
	  GPUPROJ_E_SCHEMA, "2:40: column 'FLOPs': '-1' is not a non-negative number" },
	{ H4070 "saxpy,12,0,1,0,4194304,0,0,256,16384,N,8388608,,0,50331648,0,coalesced,"
		"NVIDIA GeForce RTX 4070\n",
	  GPUPROJ_E_SCHEMA, "2:48: column 'BYTES' has no value" },
	{ H4070 "saxpy,12,0,1,0,4194304,0,0,256,16384,N,8388608,50331648,0,50331648,0,coalesced\n",
	  GPUPROJ_E_PARSE, "2: the row has 17 fields, the header 18" },
};

START_TEST(bad_input)
{
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	char buf[1024], *path, *expect;
	size_t np = 7;
	int i = _i;

	path = test_write_file(tmpdir, "bad.csv", bad[i].text);
	ck_assert_int_eq(gpuproj_import_seed002((const char *const *)&path, 1, targets, &ps, &np,
						&err),
			 bad[i].status);
	ck_assert_ptr_null(ps);
	ck_assert_uint_eq(np, 7);
	if (asprintf(&expect, "%s:%s", path, bad[i].msg) < 0)
		abort();
	ck_assert_str_eq(gpuproj_error_format(&err, buf, sizeof(buf)), expect);
	free(expect);
	free(path);
}
END_TEST

/* A device targets.yaml does not list: the lookup's message at its row and column. */
START_TEST(unknown_device)
{
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	char buf[1024], *path;
	size_t np = 0;

	path = test_write_file(tmpdir, "x.csv",
			       H4070 "saxpy,12,0,1,0,4194304,0,0,256,16384,N,8388608,50331648,0,"
				     "50331648,0,coalesced,NVIDIA GeForce RTX 4060 Ti\n");
	ck_assert_int_eq(gpuproj_import_seed002((const char *const *)&path, 1, targets, &ps, &np,
						&err),
			 GPUPROJ_E_NOTFOUND);
	gpuproj_error_format(&err, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, ":2:80: ") && strstr(buf, "'NVIDIA GeForce RTX 4060 Ti'") &&
			      strstr(buf, "of the seed 002 data set"),
		      "%s", buf);
	free(path);
}
END_TEST

static Suite *
seed002_suite(void)
{
	Suite *s = suite_create("import-seed002");
	TCase *tc = tcase_create("import");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rows_by_hand);
	tcase_add_test(tc, l2_hit_share);
	tcase_add_test(tc, dataset_sniffed);
	tcase_add_test(tc, directory_argument);
	tcase_add_loop_test(tc, bad_input, 0, (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, unknown_device);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(seed002_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
