/* SPDX-License-Identifier: MIT */
/*
 * The NeuSight importer (src/import-neusight.c): analytic metrics of
 * hand-checked rows, merging, references, bad input (suite 'unit'); with
 * the argument "dataset", the real training set from
 * ../shared/validation/neusight-train (test_validation_dir(); never copied
 * into the repository) imported and validated (suite 'validation': exits
 * 77, skipped, when the directory is absent). Data: Lee et al.,
 * Forecasting GPU Performance for Deep Learning Training and Inference
 * (NeuSight, ASPLOS 2025); sitar-lab/NeuSight@6945927d, MIT licence.
 *
 * Targets: the built-in targets.yaml.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/validate.h>

#include "common.h"

static struct gpuproj_targets *targets;
static char *tmpdir;

/* Write a file into this test's temporary directory; the caller frees the path. */
static char *
test_write_temp(const char *name, const char *text)
{
	return test_write_file(tmpdir, name, text);
}

#define HEADER_LINEAR                                                                              \
	"OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per "   \
	"SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,Kernels,B,M,N,K\n"
#define HEADER_ADD                                                                                 \
	"OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,Warps per SM,Blocks per "   \
	"SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,CUDA Version,B,H\n"
#define ADD_KERNEL                                                                                 \
	"\"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, " \
	"at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "                  \
	"at::detail::Array<char*, 3>)\""

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

/* Import the given files; returns the status, profiles in *ps. */
static int
import(const char **paths, size_t n, struct gpuproj_profile ***ps, size_t *np,
       struct gpuproj_error *err)
{
	return gpuproj_import_neusight(paths, n, targets, ps, np, err);
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

#define M(k, m, v)                                                                                 \
	ck_assert_double_eq_tol(gpuproj_kernel_metric(k, m), (double)(v), 1e-9 * fabs((double)(v)) + 1e-9)

/*
 * NeuSight linear/NVIDIA A100-PCIE-40GB.csv, first row: B 1, M 58, N 13,
 * K 141, ampere_sgemm_32x128_tn, grid 5×1×1, block 256, 0.05450666695833206 ms.
 * By hand (src/import-neusight.c): P = 58, TM 32, TN 128, Z 1, w 8 warps.
 *   fma = 58·13·141 = 106314; add = 58·141 = 8178; fp32 = 114492
 *   dram = 4·(754 + 1833 + 8178 + 141) = 43624 (read 10912, write 32712)
 *   L2 reads = 4·13·(58·5 + 141·1) + 4·141·1 = 22412 + 564 = 22976
 *   bytes.l2 = bytes.l1 = 22976 + 4·8178 = 55688
 *   shared: stores 22412, loads 22412·√8 = 63391.0…, wavefronts (st+ld)/128
 *   ldst = 22976/16 + 22412/16 + ld/16 + 8178; warp = (fp32 + ldst)/32
 *   regs: a = 32·128/256 = 16 → 74; smem = 2·160·8·4 + 512 = 10752 B
 * The T4 row of the same shape (volta_sgemm_32x128_tn, grid 5×1×1) gives the
 * reference. The add row: n = 127·168 = 21336; dram = l2 = l1 = 256032 B.
 */
START_TEST(linear_and_add_by_hand)
{
	char *a = test_write_temp("linear-a100.csv",
				  HEADER_LINEAR
				  "linear,0.05450666695833206,NVIDIA A100-PCIE-40GB,p2.1.0,8902,"
				  "ampere_sgemm_32x128_tn,0.37037036,0.046296295,5,1,1,256,1,1,cu121,"
				  ";ampere_sgemm_32x128_tn,1,58,13,141\n");
	char *t = test_write_temp("linear-t4.csv",
				  HEADER_LINEAR
				  "linear,0.052213333547115326,Tesla T4,p2.1.0,8902,"
				  "volta_sgemm_32x128_tn,1.0,0.125,5,1,1,256,1,1,cu121,"
				  ";volta_sgemm_32x128_tn,1,58,13,141\n");
	char *d = test_write_temp("add-a100.csv",
				  HEADER_ADD "add,0.026816000044345856,NVIDIA A100-PCIE-40GB,p2.1.0,"
				  "8902," ADD_KERNEL ",1.5555556,0.3888889,42,1,1,128,1,1,cu121,127,168\n");
	const char *paths[] = { a, t, d };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	struct gpuproj_kernel *k;
	const struct gpuproj_reference *r;
	double ld = 22412.0 * sqrt(8.0);
	size_t n = 0;
	char buf[1024];

	ck_assert_msg(import(paths, 3, &ps, &n, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(gpuproj_profile_device(ps[0])->target, "A100-PCIe-40GB");
	ck_assert_str_eq(gpuproj_profile_device(ps[1])->target, "T4");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "metrics"), "analytic");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "origin"), "neusight");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "citation"), GPUPROJ_CITATION_NEUSIGHT);
	ck_assert_uint_eq(gpuproj_profile_count(ps[0]), 2);

	k = find(ps[0], "linear", "B=1,M=58,N=13,K=141");
	ck_assert_str_eq(k->demangled, "ampere_sgemm_32x128_tn");
	ck_assert_uint_eq(k->grid.x, 5);
	ck_assert_uint_eq(k->block.x, 256);
	ck_assert_uint_eq(k->launches, 1);
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(k), 54506.66695833206, 1e-6);
	M(k, GPUPROJ_M_INST_FP32_FMA, 106314);
	M(k, GPUPROJ_M_INST_FP32_ADD, 8178);
	M(k, GPUPROJ_M_INST_FP32_MUL, 0);
	M(k, GPUPROJ_M_INST_FP64_FMA, 0);
	M(k, GPUPROJ_M_INST_FP32, 114492);
	M(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	M(k, GPUPROJ_M_BYTES_DRAM, 43624);
	M(k, GPUPROJ_M_BYTES_DRAM_READ, 10912);
	M(k, GPUPROJ_M_BYTES_DRAM_WRITE, 32712);
	M(k, GPUPROJ_M_BYTES_L2, 55688);
	M(k, GPUPROJ_M_BYTES_L1, 55688);
	M(k, GPUPROJ_M_SHARED_WAVEFRONTS, (22412 + ld) / 128);
	M(k, GPUPROJ_M_INST_LDST, 22976.0 / 16 + 22412.0 / 16 + ld / 16 + 8178);
	M(k, GPUPROJ_M_INST_WARP, (114492 + 22976.0 / 16 + 22412.0 / 16 + ld / 16 + 8178) / 32);
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_INST_INT));
	ck_assert_uint_eq(k->regs_per_thread, 74);
	ck_assert_uint_eq(k->smem_static, 10752);
	r = gpuproj_kernel_reference(k, "T4");
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq_tol(r->mean_ns, 52213.333547115326, 1e-6);
	ck_assert_uint_eq(k->n_refs, 1);

	k = find(ps[0], "add", "B=127,H=168");
	ck_assert_ptr_nonnull(strstr(k->demangled, "vectorized_elementwise_kernel<4"));
	ck_assert_uint_eq(k->grid.x, 42);
	ck_assert_uint_eq(k->block.x, 128);
	ck_assert_uint_eq(k->regs_per_thread, 0);
	M(k, GPUPROJ_M_INST_FP32_ADD, 21336);
	M(k, GPUPROJ_M_BYTES_DRAM, 256032);
	M(k, GPUPROJ_M_BYTES_L2, 256032);
	M(k, GPUPROJ_M_BYTES_L1, 256032);
	M(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	M(k, GPUPROJ_M_INST_LDST, 16002);
	M(k, GPUPROJ_M_INST_WARP, (21336 + 16002) / 32.0);
	ck_assert_uint_eq(k->n_refs, 0);
	/* Every input of hroof and hroof-occ is there. */
	ck_assert_uint_eq(gpuproj_model_missing_names(gpuproj_model_default(), k, NULL, 0), 0);
	free_all(ps, n);
	/*
	 * `validate` names the harness's clock regime on stderr when --clock is left
	 * at its default, and only then.
	 */
	{
		char *out = NULL, *errs = NULL;

		ck_assert_int_eq(test_cli(&out, &errs, "validate --format csv '%s' '%s'", a, t), 0);
		ck_assert_msg(strstr(errs, "gpuproj: validate: note: NeuSight's times are the "
					   "mean of the 5 fastest of 25 calls from idle") != NULL,
			      "%s", errs);
		free(out);
		free(errs);
		ck_assert_int_eq(test_cli(&out, &errs,
					  "validate --clock sustained --format csv '%s' '%s'", a, t),
				 0);
		ck_assert_msg(strstr(errs, "note:") == NULL, "%s", errs);
		free(out);
		free(errs);
	}
	free(a);
	free(t);
	free(d);
}
END_TEST

/*
 * Split-K (grid.z = 2, a splitkreduce kernel in `Kernels`): the bias and
 * the partial sum add 2·P·K FADDs, and L2 carries 2·(2·2 + 1)... = 5 P·K
 * word writes and reads: bytes.l2 = 4·N·(P·gx + K·gy) + 4·K·gy + 4·P·K·5.
 * A shape listed twice merges into one signature with the mean latency.
 * Sliced kernels: a = 32·32·4/128 = 32 accumulators → 90 registers,
 * smem = 2·64·32·4 + 512 = 16896 B.
 */
START_TEST(split_k_sliced_and_duplicates)
{
	char *a = test_write_temp("linear-v100.csv",
				  HEADER_LINEAR
				  "linear,0.1,Tesla V100-PCIE-32GB,p2.1.0,8902,"
				  "volta_sgemm_32x32_sliced1x4_tn,0.6,0.15,3,4,2,128,1,1,cu121,"
				  "\";volta_sgemm_32x32_sliced1x4_tn;void splitkreduce_kernel<32, 16>(x)\","
				  "1,126,115,72\n"
				  "linear,0.3,Tesla V100-PCIE-32GB,p2.1.0,8902,"
				  "volta_sgemm_32x32_sliced1x4_tn,0.6,0.15,3,4,2,128,1,1,cu121,"
				  "\";volta_sgemm_32x32_sliced1x4_tn;void splitkreduce_kernel<32, 16>(x)\","
				  "1,126,115,72\n");
	const char *paths[] = { a };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	struct gpuproj_kernel *k;
	size_t n = 0;
	double P = 126, N = 115, K = 72;

	ck_assert_int_eq(import(paths, 1, &ps, &n, &err), 0);
	ck_assert_uint_eq(gpuproj_profile_count(ps[0]), 1);
	k = find(ps[0], "linear", "B=1,M=126,N=115,K=72");
	ck_assert_str_eq(k->demangled,
			 "volta_sgemm_32x32_sliced1x4_tn;void splitkreduce_kernel<32, 16>(x)");
	ck_assert_uint_eq(k->launches, 2);
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(k), 2e5, 1e-6);
	M(k, GPUPROJ_M_INST_FP32_ADD, 2 * P * K);
	M(k, GPUPROJ_M_BYTES_L2, 4 * N * (P * 3 + K * 4) + 4 * K * 4 + 4 * P * K * 5);
	ck_assert_uint_eq(k->regs_per_thread, 90);
	ck_assert_uint_eq(k->smem_static, 16896);
	free_all(ps, n);
	free(a);
}
END_TEST

/* Each class of bad input: the exact message and no profile. */
START_TEST(bad_input)
{
	static const struct {
		const char *text, *expect;
	} cases[] = {
		{ "", "empty file: expected a NeuSight CSV header (OPName,Latency,Device,...)" },
		{ "OPName,Latency\nlinear,1\n",
		  "not a NeuSight CSV: the header has no 'OPName', 'Latency' and 'Device' columns" },
		{ HEADER_LINEAR, "no data rows: nothing to import" },
		{ HEADER_LINEAR "conv,0.1,Tesla T4,p,1,volta_sgemm_32x128_tn,1,1,5,1,1,256,1,1,c,;x,"
				"1,58,13,141\n",
		  "operator 'conv' is not one this importer derives metrics for (linear, add)" },
		{ HEADER_LINEAR "linear,0.1,Tesla T4,p,1,gemv2T_kernel,1,1,5,1,1,256,1,1,c,;x,1,58,"
				"13,141\n",
		  "kernel 'gemv2T_kernel' is not a cuBLAS SGEMM name "
		  "(<arch>_sgemm_<TM>x<TN>[_sliced1x<S>]_<ab>): its tile is unknown" },
		{ HEADER_LINEAR "linear,-1,Tesla T4,p,1,volta_sgemm_32x128_tn,1,1,5,1,1,256,1,1,c,"
				";x,1,58,13,141\n",
		  "column 'Latency': '-1' is not a non-negative number" },
		{ HEADER_LINEAR "linear,0.1,Tesla T4,p,1,volta_sgemm_32x128_tn,1,1,5,1,1,256,1,1,c,"
				";x,1,58.5,13,141\n",
		  "column 'M': '58.5' is not a positive integer" },
		{ HEADER_ADD "add,0.1,Tesla T4,p,1,k,1,1,0,1,1,128,1,1,c,1,2\n",
		  "column 'Grid x': '0' is not a positive integer" },
		{ HEADER_ADD "add,0.1,Tesla T4,p,1,k,1,1,1,1,1,128,1,1,c,1\n",
		  "the row has 16 fields, the header 17" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *f = test_write_temp("bad.csv", cases[i].text);
		const char *paths[] = { f };
		struct gpuproj_profile **ps = NULL;
		struct gpuproj_error err = { 0 };
		size_t n = 0;

		ck_assert_int_ne(import(paths, 1, &ps, &n, &err), 0);
		ck_assert_ptr_null(ps);
		ck_assert_msg(strstr(err.message, cases[i].expect) != NULL, "case %zu: '%s'", i,
			      err.message);
		ck_assert_ptr_nonnull(strstr(err.file, "bad.csv"));
		free(f);
	}
	{
		char *f = test_write_temp("gpu.csv", HEADER_ADD "add,0.1,Tesla K9000,p,1,k,1,1,1,1,"
								"1,128,1,1,c,1,2\n");
		const char *paths[] = { f };
		struct gpuproj_profile **ps = NULL;
		struct gpuproj_error err = { 0 };
		size_t n = 0;

		ck_assert_int_eq(import(paths, 1, &ps, &n, &err), GPUPROJ_E_NOTFOUND);
		ck_assert_ptr_nonnull(strstr(err.message, "Tesla K9000"));
		ck_assert_int_eq(err.line, 2);
		free(f);
	}
}
END_TEST

/* ---- the real data set (suite 'validation') ---- */

static struct gpuproj_profile **real;
static size_t n_real;

static void
setup_real(void)
{
	const char *dir = test_validation_dir();
	char path[4096], buf[2048];
	const char *paths[] = { path };
	struct gpuproj_error err = { 0 };

	setup();
	snprintf(path, sizeof(path), "%s/../neusight-train", dir);
	ck_assert_msg(import(paths, 1, &real, &n_real, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
}

static void
teardown_real(void)
{
	free_all(real, n_real);
	real = NULL;
	n_real = 0;
	teardown();
}

/* Signatures per GPU: linear rows + add rows, one shape of add listed twice. */
START_TEST(real_counts)
{
	static const struct {
		const char *target;
		size_t linear;
	} want[] = {
		{ "A100-PCIe-40GB", 6460 }, { "Tesla-P100-PCIe-16GB", 6423 }, { "Tesla-P4", 6423 },
		{ "T4", 6458 }, { "V100-PCIe-16GB", 6460 },
	};
	size_t i, j;

	ck_assert_uint_eq(n_real, 5);
	for (i = 0; i < 5; i++) {
		const struct gpuproj_profile *p = NULL;

		for (j = 0; j < n_real; j++) {
			if (strcmp(gpuproj_profile_device(real[j])->target, want[i].target) == 0)
				p = real[j];
		}
		ck_assert_msg(p != NULL, "no profile for %s", want[i].target);
		ck_assert_uint_eq(gpuproj_profile_count(p), want[i].linear + 1749);
		ck_assert_str_eq(gpuproj_profile_attr(p, "metrics"), "analytic");
	}
}
END_TEST

/*
 * `gpuproj validate` on both corpora with every model: every comparison is
 * made and hroof, hroof-occ and quant project all of them; quant (no
 * inst.int in analytic profiles) on its stated assumption, "issue lower
 * bound" (docs/models.md "Missing inputs"), on every one.
 */
START_TEST(real_validate)
{
	const struct gpuproj_model *models[] = {
		gpuproj_model_find("hroof"), gpuproj_model_find("hroof-occ"),
		gpuproj_model_find("quant"),
	};
	struct gpuproj_validate_options opt = { .models = models, .n_models = 3 };
	struct gpuproj_validation v = { 0 };
	struct gpuproj_error err = { 0 };
	size_t n, i, n_quant = 0;

	ck_assert_int_eq(gpuproj_validate((const struct gpuproj_profile *const *)real, n_real,
					  targets, &opt, &v, &err), 0);
	ck_assert_uint_eq(v.n_pairs, 3 * 20);
	n = v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n;
	/*
	 * linear: 6423 shapes on all five GPUs; A100 ∩ T4 6453, A100 ∩ V100 6457,
	 * T4 ∩ V100 6454; add: 1749 shapes on all five. Both directions of
	 * every pair: 2·(7·6423 + 6453 + 6457 + 6454) + 20·1749 = 163630.
	 */
	ck_assert_uint_eq(n, 2 * (7 * 6423 + 6453 + 6457 + 6454) + 20 * 1749);
	ck_assert_uint_eq(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n_failed, 0);
	ck_assert_uint_eq(v.overall[1].stats[GPUPROJ_VSUBSET_ALL].n, n);
	ck_assert_uint_eq(v.overall[1].stats[GPUPROJ_VSUBSET_ALL].n_failed, 0);
	ck_assert_uint_eq(v.overall[2].stats[GPUPROJ_VSUBSET_ALL].n, n);
	ck_assert_uint_eq(v.overall[2].stats[GPUPROJ_VSUBSET_ALL].n_failed, 0);
	for (i = 0; i < v.n_comparisons; i++) {
		if (v.comparisons[i].model != models[2])
			continue;
		n_quant++;
		ck_assert(v.comparisons[i].assumed & (1u << GPUPROJ_ASSUME_MIX));
	}
	ck_assert_uint_eq(n_quant, n);
	ck_assert_uint_eq(v.n_citations, 1);
	ck_assert_ptr_nonnull(strstr(v.citations[0], "NeuSight"));
	gpuproj_validation_clear(&v);
}
END_TEST

/*
 * The per-call overhead on the published files (src/import-neusight.c,
 * "Time"): every GPU's between 10 and 30 µs and below its shortest call;
 * a linear-only import finds the same value through the sibling add/
 * files as the import of the whole set.
 */
START_TEST(real_overhead)
{
	char path[4096], buf[2048];
	const char *paths[] = { path };
	struct gpuproj_profile **lin = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0, i, j;

	snprintf(path, sizeof(path), "%s/../neusight-train/linear", test_validation_dir());
	ck_assert_msg(import(paths, 1, &lin, &n, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(n, n_real);
	for (i = 0; i < n_real; i++) {
		const char *oh = gpuproj_profile_attr(real[i], "call_overhead_ns");
		double v = oh ? atof(oh) : NAN;

		ck_assert_msg(v >= 10000 && v <= 30000, "%s: %s",
			      gpuproj_profile_device(real[i])->target, oh);
		for (j = 0; j < n; j++) {
			if (strcmp(gpuproj_profile_device(lin[j])->target,
				   gpuproj_profile_device(real[i])->target) == 0)
				ck_assert_str_eq(gpuproj_profile_attr(lin[j], "call_overhead_ns"),
						 oh);
		}
	}
	free_all(lin, n);
}
END_TEST

/*
 * The command, as docs/cli/gpuproj-import.md shows it: the CSV files recognised by
 * content, the citation first.
 */
START_TEST(real_validate_cli)
{
	char *out = NULL, *err = NULL;

	ck_assert_int_eq(test_cli(&out, &err, "validate --format csv '%s/../neusight-train/add/'*.csv",
				  test_validation_dir()), 0);
	ck_assert_msg(strncmp(out, "# Data: Lee et al., Forecasting GPU Performance", 46) == 0, "%.200s",
		      out);
	ck_assert_ptr_nonnull(strstr(out, "\nhroof-occ,(all),(all),long,50000,13528,0,"));
	/* The regime of the data is named (stderr), since --clock was left at its default. */
	ck_assert_msg(strstr(err, "gpuproj: validate: note: NeuSight's times are the mean of the 5 "
			      "fastest of 25 calls from idle") &&
			      strstr(err, "--clock burst models that"), "%s", err);
	free(out);
	free(err);
}
END_TEST

/*
 * The clock regime of the harness (docs/models.md "Clock regime", docs/validation.md
 * "The burst clock"): hroof-occ on `linear`, long launches, MAPE 43.0 %
 * sustained (default), 35.4 % with --clock burst over every comparison and
 * 35.4 % on the half of the shapes the T4's and P4's boost_hold_us was not
 * fitted to (--holdout shape) — docs/validation.md's figures.
 */
static double
long_mape(const char *args)
{
	char *out = NULL, *err = NULL, *line;
	double mape = NAN;

	ck_assert_int_eq(test_cli(&out, &err,
				  "validate --format csv %s '%s/../neusight-train/linear/'*.csv",
				  args, test_validation_dir()), 0);
	line = strstr(out, "\nhroof-occ,(all),(all),long,50000,");
	ck_assert_ptr_nonnull(line);
	ck_assert_int_eq(sscanf(line, "\nhroof-occ,(all),(all),long,50000,%*u,0,%lf", &mape), 1);
	/* The note on the regime only where --clock was not given. */
	ck_assert_msg((strstr(err, "--clock burst models that") != NULL) == (*args == '\0'), "%s",
		      err);
	free(out);
	free(err);
	return mape;
}

START_TEST(real_burst)
{
	double sus = long_mape(""), burst = long_mape("--clock burst"),
	       held = long_mape("--clock burst --holdout shape");

	printf("NeuSight linear, hroof-occ, long MAPE: sustained %.2f %%, burst %.2f %%, burst on "
	       "the held-out shapes %.2f %%\n", sus, burst, held);
	ck_assert_msg(fabs(sus - 43.0) < 0.05, "%g", sus);
	ck_assert_msg(fabs(burst - 35.4) < 0.05, "%g", burst);
	ck_assert_msg(fabs(held - 35.4) < 0.05, "%g", held);
}
END_TEST

/*
 * An add file of `n` shapes (B = 1, H = 102400·i) whose latency is exactly
 * overhead_us + bytes / 200 GB/s, on the T4; malloc'd CSV text.
 */
static char *
add_rows(const char *header_device, int n, double overhead_us)
{
	char *text = NULL, *next;
	int i;

	if (asprintf(&text, "%s", HEADER_ADD) < 0)
		abort();
	for (i = 1; i <= n; i++) {
		double bytes = 12.0 * 102400 * i, ms = (overhead_us * 1e3 + bytes / 200.0) * 1e-6;

		if (asprintf(&next, "%sadd,%.17g,%s,p2.1.0,8902," ADD_KERNEL
			     ",4.2,1.05,42,1,1,128,1,1,cu121,1,%d\n", text, ms, header_device,
			     102400 * i) < 0)
			abort();
		free(text);
		text = next;
	}
	return text;
}

/*
 * The per-call overhead (src/import-neusight.c, "Time"): on add shapes
 * lying on latency = 20 µs + bytes / 200 GB/s the least-squares intercept
 * is 20 µs whichever half it is fitted on; it is subtracted from every
 * duration, recorded in the attributes, and found for a linear-only import
 * through the sibling add/ file of the data set's layout, references
 * included. The linear call of 60 µs on the T4 becomes 40 µs.
 */
START_TEST(call_overhead_estimated)
{
	char *dir, *sub, *text = add_rows("Tesla T4", 80, 20.0);
	char *add, *lin, *lin_a100, buf[1024];
	const char *paths[1];
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	struct gpuproj_kernel *k;
	const char *basis;
	size_t n = 0;

	ck_assert_int_gt(asprintf(&sub, "%s/linear", tmpdir), 0);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	free(sub);
	ck_assert_int_gt(asprintf(&sub, "%s/add", tmpdir), 0);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	add = test_write_file(sub, "Tesla T4.csv", text);
	free(sub);
	ck_assert_int_gt(asprintf(&dir, "%s/linear", tmpdir), 0);
	lin = test_write_file(dir, "Tesla T4.csv",
			      HEADER_LINEAR "linear,0.06,Tesla T4,p2.1.0,8902,"
					    "volta_sgemm_32x128_tn,1.0,0.125,5,1,1,256,1,1,cu121,"
					    ";volta_sgemm_32x128_tn,1,58,13,141\n");
	/* The A100 has no add file: nothing is subtracted, and it says so. */
	lin_a100 = test_write_file(dir, "NVIDIA A100-PCIE-40GB.csv",
				   HEADER_LINEAR
				   "linear,0.05,NVIDIA A100-PCIE-40GB,p2.1.0,8902,"
				   "ampere_sgemm_32x128_tn,0.37037036,0.046296295,5,1,1,256,1,1,"
				   "cu121,;ampere_sgemm_32x128_tn,1,58,13,141\n");

	/* The add file alone. */
	paths[0] = add;
	ck_assert_msg(import(paths, 1, &ps, &n, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "call_overhead_ns"), "20000");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "durations"),
			 "kernel time estimate: call latency minus call_overhead_ns");
	basis = gpuproj_profile_attr(ps[0], "call_overhead_basis");
	ck_assert_ptr_nonnull(strstr(basis, "least-squares"));
	ck_assert_ptr_nonnull(strstr(basis, add));
	k = find(ps[0], "add", "B=1,H=4096000");
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(k), 12.0 * 4096000 / 200.0, 1e-3);
	ck_assert_double_eq_tol(k->duration_ns.min, 12.0 * 4096000 / 200.0, 1e-3);
	ck_assert_double_eq_tol(k->duration_ns.sum, 12.0 * 4096000 / 200.0, 1e-3);
	free_all(ps, n);

	/* The linear directory alone: the T4's overhead from its sibling add file. */
	paths[0] = dir;
	ck_assert_msg(import(paths, 1, &ps, &n, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(gpuproj_profile_device(ps[0])->target, "A100-PCIe-40GB");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "call_overhead_ns"), "0");
	ck_assert_ptr_nonnull(strstr(gpuproj_profile_attr(ps[0], "call_overhead_basis"),
				     "not estimated: 0 add shapes"));
	ck_assert_ptr_null(gpuproj_profile_attr(ps[0], "durations"));
	ck_assert_str_eq(gpuproj_profile_attr(ps[1], "call_overhead_ns"), "20000");
	ck_assert_ptr_nonnull(strstr(gpuproj_profile_attr(ps[1], "call_overhead_basis"), add));
	ck_assert_uint_eq(gpuproj_profile_count(ps[1]), 1); /* the add rows are not imported */
	k = find(ps[1], "linear", "B=1,M=58,N=13,K=141");
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(k), 40000, 1e-6);
	/* The A100's reference to the T4 is the T4's kernel-time estimate. */
	k = find(ps[0], "linear", "B=1,M=58,N=13,K=141");
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(k), 50000, 1e-6);
	ck_assert_double_eq_tol(gpuproj_kernel_reference(k, "T4")->mean_ns, 40000, 1e-6);
	free_all(ps, n);
	free(text);
	free(add);
	free(lin);
	free(lin_a100);
	free(dir);
}
END_TEST

/*
 * A broken sibling add/ file read for the overhead fails the import with
 * that file's own error (import.h), and the outputs stay untouched.
 */
START_TEST(call_overhead_bad_sibling)
{
	char *dir, *sub, *add, *lin, buf[1024], want[4200];
	const char *paths[1];
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 12345;

	ck_assert_int_gt(asprintf(&dir, "%s/linear", tmpdir), 0);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	ck_assert_int_gt(asprintf(&sub, "%s/add", tmpdir), 0);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	add = test_write_file(sub, "Tesla T4.csv", HEADER_ADD);
	lin = test_write_file(dir, "Tesla T4.csv",
			      HEADER_LINEAR "linear,0.06,Tesla T4,p2.1.0,8902,"
					    "volta_sgemm_32x128_tn,1.0,0.125,5,1,1,256,1,1,cu121,"
					    ";volta_sgemm_32x128_tn,1,58,13,141\n");
	paths[0] = dir;
	ck_assert_int_eq(import(paths, 1, &ps, &n, &err), GPUPROJ_E_PARSE);
	snprintf(want, sizeof(want), "%s: no data rows: nothing to import", add);
	ck_assert_str_eq(gpuproj_error_format(&err, buf, sizeof(buf)), want);
	ck_assert_ptr_null(ps);
	ck_assert_uint_eq(n, 12345);
	free(add);
	free(lin);
	free(sub);
	free(dir);
}
END_TEST

/*
 * An intercept above 0.9 × the GPU's shortest call is capped there (every
 * duration stays positive); under 20 add shapes in the calibration half,
 * nothing is estimated or subtracted.
 */
START_TEST(call_overhead_capped_or_absent)
{
	char *text = add_rows("Tesla T4", 80, 20.0);
	char *few = add_rows("Tesla T4", 10, 20.0);
	char *a, *l, *f, buf[1024];
	const char *paths[2];
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0;

	a = test_write_temp("add-t4.csv", text);
	/* A 15 µs call: the cap is 13.5 µs. */
	l = test_write_temp("linear-t4.csv", HEADER_LINEAR
			    "linear,0.015,Tesla T4,p2.1.0,8902,"
			    "volta_sgemm_32x128_tn,1.0,0.125,5,1,1,256,1,1,cu121,"
			    ";volta_sgemm_32x128_tn,1,58,13,141\n");
	paths[0] = a;
	paths[1] = l;
	ck_assert_msg(import(paths, 2, &ps, &n, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "call_overhead_ns"), "13500");
	ck_assert_ptr_nonnull(strstr(gpuproj_profile_attr(ps[0], "call_overhead_basis"),
				     "capped at 0.9 x the shortest call"));
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(find(ps[0], "linear",
							    "B=1,M=58,N=13,K=141")),
				1500, 1e-6);
	free_all(ps, n);

	f = test_write_temp("add-few.csv", few);
	paths[0] = f;
	ck_assert_int_eq(import(paths, 1, &ps, &n, &err), 0);
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "call_overhead_ns"), "0");
	ck_assert_ptr_nonnull(strstr(gpuproj_profile_attr(ps[0], "call_overhead_basis"),
				     "(20 needed)"));
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(find(ps[0], "add", "B=1,H=102400")),
				20000 + 12.0 * 102400 / 200.0, 1e-3);
	free_all(ps, n);
	free(text);
	free(few);
	free(a);
	free(l);
	free(f);
}
END_TEST

int
main(int argc, char **argv)
{
	bool dataset = argc > 1 && strcmp(argv[1], "dataset") == 0;
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed;

	/* Skipped before Check allocates anything (LeakSanitizer counts it at exit). */
	if (dataset) {
		char path[4096];
		struct stat st;

		if (test_validation_dir())
			snprintf(path, sizeof(path), "%s/../neusight-train", test_validation_dir());
		if (!test_validation_dir() || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
			test_skip("../shared/validation is absent (set GPUPROJ_VALIDATION_DIR to "
				  "check the NeuSight import)");
			return 77;
		}
	}
	s = suite_create(dataset ? "import-neusight-dataset" : "import-neusight");
	tc = tcase_create(dataset ? "dataset" : "unit");
	if (dataset) {
		tcase_add_checked_fixture(tc, setup_real, teardown_real);
		tcase_set_timeout(tc, 600);
		tcase_add_test(tc, real_counts);
		tcase_add_test(tc, real_validate);
		tcase_add_test(tc, real_validate_cli);
		tcase_add_test(tc, real_burst);
		tcase_add_test(tc, real_overhead);
	} else {
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_add_test(tc, linear_and_add_by_hand);
		tcase_add_test(tc, split_k_sliced_and_duplicates);
		tcase_add_test(tc, bad_input);
		tcase_add_test(tc, call_overhead_estimated);
		tcase_add_test(tc, call_overhead_capped_or_absent);
		tcase_add_test(tc, call_overhead_bad_sibling);
	}
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
