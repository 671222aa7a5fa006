/* SPDX-License-Identifier: MIT */
/*
 * gpuproj validate: statistics worked out by hand, the threshold split,
 * failed projections, joining profiles by signature, data-set detection,
 * the gpuperfpredict mapping on a tiny synthetic CSV, bad inputs with their
 * exact messages, and the CLI's exit statuses. No ../shared needed.
 *
 * GPUs: tests/data/targets-test.yaml.
 *   SrcGPU ("Test Source GPU"): DRAM 100, L2 400, L1 1000 GB/s
 *   TgtGPU ("Test Target GPU"): DRAM 400, L2 800, L1 2000 GB/s
 *
 * Every kernel below moves B_L1 = 2D, B_L2 = B_DRAM = D bytes and does no
 * FLOP, so hroof works in time space (eq. 4–8; D cancels):
 *   hits N_L1 = 2D − D = D, N_L2 = D − D = 0, N_DRAM = D
 *   source: BW_L1 = 2D / (D/1000e9 + D/100e9) = 2 / 1.1e-11 = 181.82 GB/s,
 *           BW_L2 = BW_DRAM = D / (D/100e9) = 100 GB/s
 *   target: BW_L1 = 2 / (0.5e-12 + 2.5e-12) = 666.67 GB/s, BW_L2 = BW_DRAM = 400 GB/s
 *   T_t(L1) = T_s × 181.82/666.67 = 3/11 T_s; T_t(L2) = T_t(DRAM) = T_s/4
 *   → lo = T_s/4, hi = 3 T_s/11, point = (1/4 + 3/11)/2 T_s = 23/88 T_s.
 * With T_s a multiple of 88 µs the numbers are round:
 *   K "a": T_s =  88 µs → [22, 24], point 23 µs; measured  20 µs: e = +15 %, short, outside
 *   K "b": T_s = 880 µs → [220, 240], point 230; measured 230 µs: e =   0 %, long, inside
 *   K "c": T_s = 440 µs → [110, 120], point 115; measured 125 µs: e =  −8 %, long, outside
 *   K "d": T_s = 176 µs → [44, 48],   point 46;  measured  46 µs: e =   0 %, short, inside
 *   K "e": neither FLOP nor bytes → hroof cannot project it (NEEDS, below; a kernel
 *          missing only some inputs is projected with assumptions); measured 100 µs
 *   K "f": no time on the target → not compared at all
 * Threshold 50 µs:
 *   all:   n 4, failed 1; APE {15, 0, 8, 0}: MAPE 23/4 = 5.75, median (0+8)/2 = 4,
 *          coverage 2/4 = 50 %, bias (15 + 0 − 8 + 0)/4 = 1.75
 *   short: a, d: n 2, failed 0; MAPE 7.5, median 7.5, coverage 50, bias +7.5
 *   long:  b, c (+ e failed): n 2, failed 1; MAPE 4, median 4, coverage 50, bias −4
 *   width (hi − lo)/point = (3/11 − 1/4)/(23/88) = 2/23 = 8.6957 % for every kernel
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/interval.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/validate.h>

#include "common.h"

#define EPS 1e-9
/* Why hroof cannot project kernel "e": neither FLOP nor bytes. */
#define NEEDS "hroof needs FLOP (inst.fp{16,32,64}.{fma,add,mul} or flop.tensor.*) or bytes " \
	"(bytes.l1, bytes.l2, bytes.dram)"
/* 200/23 % (the width of every interval below) as the CSV writer prints it */
#define W23 "8.69565"

static struct gpuproj_targets *targets;

/*
 * The hand-worked values of this file are hroof's: validate with it, not
 * with whatever model is the default (hroof-occ since the models issue).
 */
static const struct gpuproj_model *hroof_models[1];
/* hroof's own intervals (no calibration), which the comment works out. */
static const struct gpuproj_model_options levels = { .level_interval = true };
static const struct gpuproj_validate_options hroof_opt = { .models = hroof_models, .n_models = 1,
							   .model_options = &levels };
static char *tmp;

static void
setup(void)
{
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-test.yaml"), &targets, &err), 0);
	hroof_models[0] = gpuproj_model_find("hroof");
	tmp = test_tmpdir();
}

static void
teardown(void)
{
	targets = gpuproj_targets_free(targets);
	test_rmtree(tmp);
	free(tmp);
	tmp = NULL;
}

static void
set(struct gpuproj_kernel *k, enum gpuproj_metric m, double v)
{
	k->metric_sum[m] = v;
	k->metric_n[m] = 1;
}

/* A FLOP-free kernel with B_L1 = 2D, B_L2 = B_DRAM = D (see the top). */
static struct gpuproj_kernel *
kernel(struct gpuproj_profile *p, const char *tag, int device, double t_us, bool with_l1)
{
	struct gpuproj_signature sig = { .name = "_Z4copyPfS_", .tag = tag, .grid = { 64, 1, 1 },
					 .block = { 256, 1, 1 }, .device = device };
	struct gpuproj_kernel *k;
	int m;

	ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, t_us * 1000.0);
	k->profiled = 1;
	for (m = GPUPROJ_M_INST_FP16_FMA; m <= GPUPROJ_M_INST_FP64_MUL; m++)
		set(k, m, 0);
	if (!with_l1) {
		/* Nothing to scale by (NEEDS): no FP count, no bytes. */
		for (m = GPUPROJ_M_INST_FP16_FMA; m <= GPUPROJ_M_INST_FP64_MUL; m++)
			k->metric_n[m] = 0;
		return k;
	}
	set(k, GPUPROJ_M_BYTES_L1, 2e6);
	set(k, GPUPROJ_M_BYTES_L2, 1e6);
	set(k, GPUPROJ_M_BYTES_DRAM, 1e6);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	return k;
}

/* The source profile of the top comment, references on TgtGPU. */
static struct gpuproj_profile *
source_profile(void)
{
	static const struct {
		const char *tag;
		double t_us, measured_us;
		bool l1;
	} ks[] = {
		{ "a", 88, 20, true }, { "b", 880, 230, true }, { "c", 440, 125, true },
		{ "d", 176, 46, true }, { "e", 100, 100, false }, { "f", 300, NAN, true },
	};
	struct gpuproj_profile *p = gpuproj_profile_new();
	size_t i;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(gpuproj_profile_set_device(p, "Test Source GPU", NULL, NULL, 0, 0, 0, NAN),
			 0);
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		struct gpuproj_kernel *k = kernel(p, ks[i].tag, 0, ks[i].t_us, ks[i].l1);

		if (!isnan(ks[i].measured_us))
			ck_assert_int_eq(gpuproj_kernel_set_reference(
						 k, "TgtGPU", ks[i].measured_us * 1000.0, 1), 0);
	}
	return p;
}

static void
check_stats(const struct gpuproj_validation_stats *s, size_t n, size_t failed, double mape,
	    double median, double cover, double bias)
{
	ck_assert_uint_eq(s->n, n);
	ck_assert_uint_eq(s->n_failed, failed);
	ck_assert_double_eq_tol(s->mape_pct, mape, EPS);
	ck_assert_double_eq_tol(s->median_ape_pct, median, EPS);
	ck_assert_double_eq_tol(s->coverage_pct, cover, EPS);
	ck_assert_double_eq_tol(s->bias_pct, bias, EPS);
	ck_assert_double_eq_tol(s->width_pct, 200.0 / 23.0, EPS);
}

START_TEST(stats_by_hand)
{
	struct gpuproj_profile *p = source_profile();
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_validation v = { 0 };
	struct gpuproj_error err = { 0 };
	const struct gpuproj_validation_comparison *c;

	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &hroof_opt, &v, &err), 0);
	ck_assert_double_eq(v.threshold_ns, 50000.0);
	ck_assert_uint_eq(v.n_models, 1);
	ck_assert_str_eq(gpuproj_model_name(v.models[0]), "hroof");
	ck_assert_uint_eq(v.n_pairs, 1);
	ck_assert_str_eq(v.pairs[0].source->name, "SrcGPU");
	ck_assert_str_eq(v.pairs[0].target->name, "TgtGPU");
	check_stats(&v.pairs[0].stats[GPUPROJ_VSUBSET_ALL], 4, 1, 5.75, 4.0, 50.0, 1.75);
	check_stats(&v.pairs[0].stats[GPUPROJ_VSUBSET_SHORT], 2, 0, 7.5, 7.5, 50.0, 7.5);
	check_stats(&v.pairs[0].stats[GPUPROJ_VSUBSET_LONG], 2, 1, 4.0, 4.0, 50.0, -4.0);
	/* One pair: the overall group is the same. */
	check_stats(&v.overall[0].stats[GPUPROJ_VSUBSET_ALL], 4, 1, 5.75, 4.0, 50.0, 1.75);
	ck_assert_ptr_null(v.overall[0].source);

	/* Five comparisons in kernel order; "f" has no time on the target. */
	ck_assert_uint_eq(v.n_comparisons, 5);
	c = &v.comparisons[0];
	ck_assert_str_eq(c->kernel->tag, "a");
	ck_assert_double_eq_tol(c->lo_ns, 22000, 1e-6);
	ck_assert_double_eq_tol(c->hi_ns, 24000, 1e-6);
	ck_assert_double_eq_tol(c->point_ns, 23000, 1e-6);
	ck_assert_double_eq_tol(c->error_pct, 15.0, EPS);
	ck_assert(!c->covered);
	ck_assert(v.comparisons[1].covered);
	c = &v.comparisons[4];
	ck_assert_str_eq(c->kernel->tag, "e");
	ck_assert_int_eq(c->status, GPUPROJ_E_MISSING);
	ck_assert_str_eq(c->why, NEEDS);
	ck_assert(isnan(c->error_pct));
	ck_assert_uint_eq(v.pairs[0].n_reasons, 1);
	ck_assert_str_eq(v.pairs[0].reasons[0].why, NEEDS);
	ck_assert_uint_eq(v.pairs[0].reasons[0].count, 1);
	ck_assert_uint_eq(v.overall[0].n_reasons, 1);
	/* No gpuperfpredict input: no citation. */
	ck_assert_uint_eq(v.n_citations, 0);

	gpuproj_validation_clear(&v);
	ck_assert_ptr_null(v.pairs);
	gpuproj_validation_clear(&v); /* twice is fine */
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(threshold_split)
{
	struct gpuproj_profile *p = source_profile();
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_validate_options opt = hroof_opt;
	struct gpuproj_validation v = { 0 };

	/*
	 * 200 µs: short = a (15), d (0), c (8) + e (failed, 100 µs):
	 * MAPE 23/3, median 8, coverage 1/3, bias (15 + 0 − 8)/3 = 7/3; long = b alone.
	 */
	opt.threshold_ns = 200000;
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &opt, &v, NULL), 0);
	check_stats(&v.pairs[0].stats[GPUPROJ_VSUBSET_SHORT], 3, 1, 23.0 / 3, 8.0, 100.0 / 3,
		    7.0 / 3);
	check_stats(&v.pairs[0].stats[GPUPROJ_VSUBSET_LONG], 1, 0, 0.0, 0.0, 100.0, 0.0);
	check_stats(&v.pairs[0].stats[GPUPROJ_VSUBSET_ALL], 4, 1, 5.75, 4.0, 50.0, 1.75);
	gpuproj_validation_clear(&v);

	/* Exactly at the threshold counts as long: b is measured at 230 µs. */
	opt.threshold_ns = 230000;
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &opt, &v, NULL), 0);
	ck_assert_uint_eq(v.pairs[0].stats[GPUPROJ_VSUBSET_SHORT].n, 3);
	ck_assert_uint_eq(v.pairs[0].stats[GPUPROJ_VSUBSET_LONG].n, 1);
	gpuproj_validation_clear(&v);

	/* ≤ 0 means the default 50 µs. */
	opt.threshold_ns = 0;
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &opt, &v, NULL), 0);
	ck_assert_double_eq(v.threshold_ns, GPUPROJ_VALIDATE_DEFAULT_THRESHOLD_NS);
	ck_assert_uint_eq(v.pairs[0].stats[GPUPROJ_VSUBSET_SHORT].n, 2);
	gpuproj_validation_clear(&v);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(every_kernel_fails)
{
	/* Only failures on a pair: the pair is reported, with NaN statistics. */
	struct gpuproj_profile *p = gpuproj_profile_new();
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_validation v = { 0 };
	struct gpuproj_kernel *k;

	gpuproj_profile_set_device(p, "Test Source GPU", NULL, NULL, 0, 0, 0, NAN);
	k = kernel(p, "x", 0, 10, false);
	gpuproj_kernel_set_reference(k, "TgtGPU", 5000, 1);
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &hroof_opt, &v, NULL), 0);
	ck_assert_uint_eq(v.n_pairs, 1);
	ck_assert_uint_eq(v.pairs[0].stats[GPUPROJ_VSUBSET_ALL].n, 0);
	ck_assert_uint_eq(v.pairs[0].stats[GPUPROJ_VSUBSET_ALL].n_failed, 1);
	ck_assert_uint_eq(v.pairs[0].stats[GPUPROJ_VSUBSET_SHORT].n_failed, 1);
	ck_assert(isnan(v.pairs[0].stats[GPUPROJ_VSUBSET_ALL].mape_pct));
	ck_assert(isnan(v.pairs[0].stats[GPUPROJ_VSUBSET_ALL].coverage_pct));
	gpuproj_validation_clear(&v);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(nothing_to_compare)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_validation v = { 0 };

	gpuproj_profile_set_device(p, "Test Source GPU", NULL, NULL, 0, 0, 0, NAN);
	kernel(p, "x", 0, 10, true);
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &hroof_opt, &v, NULL), 0);
	ck_assert_uint_eq(v.n_comparisons, 0);
	ck_assert_uint_eq(v.n_pairs, 0);
	ck_assert_uint_eq(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n, 0);
	gpuproj_validation_clear(&v);
	gpuproj_profile_free(p);
}
END_TEST

/*
 * The same measurements as two profile JSONs, one per GPU, without
 * references: the target profile's kernels (device 1) are found by
 * signature ignoring the device. Its kernels have no metrics, so the
 * reverse pair TgtGPU → SrcGPU exists with 4 failures.
 */
static void
write_pair_json(char **ret_src, char **ret_tgt)
{
	static const struct {
		const char *tag;
		double t_us, measured_us;
	} ks[] = { { "a", 88, 20 }, { "b", 880, 230 }, { "c", 440, 125 }, { "d", 176, 46 } };
	struct gpuproj_profile *s = gpuproj_profile_new(), *t = gpuproj_profile_new();
	struct gpuproj_error err = { 0 };
	size_t i;

	gpuproj_profile_set_device(s, "Test Source GPU", NULL, NULL, 0, 0, 0, NAN);
	gpuproj_profile_set_device(t, "Test Target GPU", NULL, NULL, 0, 0, 0, NAN);
	for (i = 0; i < 4; i++) {
		struct gpuproj_signature sig = { .name = "_Z4copyPfS_", .tag = ks[i].tag,
						 .grid = { 64, 1, 1 }, .block = { 256, 1, 1 },
						 .device = 1 };
		struct gpuproj_kernel *k;

		kernel(s, ks[i].tag, 0, ks[i].t_us, true);
		ck_assert_int_eq(gpuproj_profile_kernel(t, &sig, &k), 0);
		gpuproj_kernel_add_duration(k, ks[i].measured_us * 1000.0);
	}
	if (asprintf(ret_src, "%s/src.json", tmp) < 0 || asprintf(ret_tgt, "%s/tgt.json", tmp) < 0)
		abort();
	ck_assert_int_eq(gpuproj_profile_save(s, *ret_src, &err), 0);
	ck_assert_int_eq(gpuproj_profile_save(t, *ret_tgt, &err), 0);
	gpuproj_profile_free(s);
	gpuproj_profile_free(t);
}

START_TEST(join_profiles_by_signature)
{
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_validate_options opt = hroof_opt;
	struct gpuproj_validation v = { 0 };
	struct gpuproj_error err = { 0 };
	const char *only_src[] = { "SrcGPU" };
	char *a, *b;
	const char *paths[2];
	size_t n = 0, i;

	write_pair_json(&a, &b);
	paths[0] = a;
	paths[1] = b;
	ck_assert_int_eq(gpuproj_import_datasets(paths, 2, targets, &ps, &n, &err), 0);
	ck_assert_uint_eq(n, 2);

	ck_assert_int_eq(gpuproj_validate((const struct gpuproj_profile *const *)ps, n, targets,
					  &hroof_opt, &v, &err), 0);
	ck_assert_uint_eq(v.n_pairs, 2);
	ck_assert_str_eq(v.pairs[0].source->name, "SrcGPU");
	check_stats(&v.pairs[0].stats[GPUPROJ_VSUBSET_ALL], 4, 0, 5.75, 4.0, 50.0, 1.75);
	ck_assert_str_eq(v.pairs[1].source->name, "TgtGPU");
	ck_assert_uint_eq(v.pairs[1].stats[GPUPROJ_VSUBSET_ALL].n, 0);
	ck_assert_uint_eq(v.pairs[1].stats[GPUPROJ_VSUBSET_ALL].n_failed, 4);
	ck_assert_ptr_nonnull(strstr(v.pairs[1].reasons[0].why, "hroof needs"));
	ck_assert_uint_eq(v.pairs[1].reasons[0].count, 4);
	/* Overall pools both pairs: the same 4 comparisons plus 4 failures. */
	check_stats(&v.overall[0].stats[GPUPROJ_VSUBSET_ALL], 4, 4, 5.75, 4.0, 50.0, 1.75);
	gpuproj_validation_clear(&v);

	/* --source SrcGPU: only the first pair. */
	opt.sources = only_src;
	opt.n_sources = 1;
	ck_assert_int_eq(gpuproj_validate((const struct gpuproj_profile *const *)ps, n, targets,
					  &opt, &v, &err), 0);
	ck_assert_uint_eq(v.n_pairs, 1);
	check_stats(&v.overall[0].stats[GPUPROJ_VSUBSET_ALL], 4, 0, 5.75, 4.0, 50.0, 1.75);
	gpuproj_validation_clear(&v);

	for (i = 0; i < n; i++)
		gpuproj_profile_free(ps[i]);
	free(ps);
	free(a);
	free(b);
}
END_TEST

START_TEST(unknown_source_and_target_names)
{
	struct gpuproj_profile *p = source_profile();
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_validate_options opt = hroof_opt;
	struct gpuproj_validation v = { 0 };
	struct gpuproj_error err = { 0 };
	const char *bad[] = { "NoSuchGPU-XYZ" };
	const char *tgt[] = { "TgtGPU" };

	opt.targets = bad;
	opt.n_targets = 1;
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &opt, &v, &err), GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.message, "target GPU 'NoSuchGPU-XYZ' is not in "
					      "targets.yaml"));
	/* A source no data set was measured on. */
	opt.targets = NULL;
	opt.n_targets = 0;
	opt.sources = tgt;
	opt.n_sources = 1;
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &opt, &v, &err), GPUPROJ_E_NOTFOUND);
	ck_assert_str_eq(err.message, "no data set was measured on source GPU 'TgtGPU' (TgtGPU)");
	ck_assert_uint_eq(v.n_pairs, 0);
	gpuproj_profile_free(p);
}
END_TEST

/* ---- the gpuperfpredict CSV, in miniature ---- */

#define GPP_HEADER                                                                                 \
	"gpu,kernel,launches,input.size.1,input.size.2,grid.x,grid.y,block.x,block.y,"              \
	"registers.per.thread,static.smem,duration,inst_executed,fp_instructions.single.,"          \
	"fp_instructions.double.,integer_instructions,control.flow_instructions,"                  \
	"load.store_instructions,misc_instructions,"                                                \
	"floating_point_operations.single_precision_fma.,"                                          \
	"floating_point_operations.single_precision_add.,"                                          \
	"floating_point_operation.single_precision_mul.,"                                           \
	"floating_point_operations.double_precision.,"                                              \
	"floating_point_operations.double_precision_add.,"                                          \
	"floating_point_operations.double_precision_mul.,global_load_throughput,"                   \
	"global_store_throughput,l2_read_transactions,l2_write_transactions,"                       \
	"l2_throughput_.reads.,device_memory_read_transactions,device_memory_write_throughput,"     \
	"shared_load_transactions,shared_store_transactions,shared_load,shared_store,"              \
	"shared_memory_load_throughput,shared_memory_store_throughput,achieved_occupancy,"          \
	"active_cycles,elapsed_cycles_sm\n"

/*
 * Row 2, "Test Source GPU" (SrcGPU: CC 7.0, 10 SMs, warp 32), 4 launches of
 * 100 µs. Row 3, "Test Target GPU", 2 launches of 40 µs, static.smem in KiB
 * ("2" = 2048 B, as on the data set's GTX-980 and P100). Hand mapping of
 * row 2 (per launch):
 *   inst.thread = 8000 + 0 + 12000 + 2000 + 4000 + 0 = 26000;
 *   warp_efficiency = 26000 / (32 × 1000) = 0.8125
 *   inst.other = 2000 + 0; inst.fp64.fma = (700 − 100 − 0)/2 = 300
 *   t_prof = 32 × 30000 / (9.6 GB/s × 1e9) = 1e-4 s
 *   bytes.l1 = (10 + 5) GB/s × 1e9 × 1e-4 = 1.5e6 B; sectors.l1 = 46875
 *   bytes.l2 = 32 × (30000 + 10000) = 1.28e6 B; sectors.l2 = 40000
 *   bytes.dram_read = 32 × 20000 = 640000; dram_write = 2e9 × 1e-4 = 200000;
 *   bytes.dram = 840000; sectors.dram = 20000 + 200000/32 = 26250
 *   shared.wavefronts = 500 + 300 = 800 (CC 7.0: one unit per transaction);
 *   shared.bank_conflicts = (500 − 400) + (300 − 300) = 100;
 *   shared.bytes = (1 + 0.5) GB/s × 1e9 × 1e-4 = 150000
 *   cycles.sm_active = 900000 / 10 = 90000
 */
static const char gpp_csv[] =
	GPP_HEADER
	"Test Source GPU,k,4,1024,0,8,1,256,1,32,2048,1e-04,1000,8000,0,12000,2000,4000,0,"
	"3000,1000,500,700,100,0,10,5,30000,10000,9.6,20000,2,500,300,400,300,1.0,0.5,0.5,"
	"900000,1200000\n"
	"Test Target GPU,k,2,1024,0,8,1,256,1,32,2,4e-05,1000,8000,0,12000,2000,4000,0,"
	"3000,1000,500,700,100,0,30,15,30000,10000,24,20000,5,500,300,400,300,2.5,1.25,0.5,"
	"900000,1200000\n";

START_TEST(gpuperfpredict_mini_csv)
{
	char *path = test_write_file(tmp, "mini.csv", gpp_csv);
	const char *paths[] = { path };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *k;
	const struct gpuproj_reference *r;
	size_t n = 0, i;

	ck_assert_int_eq(gpuproj_import_datasets(paths, 1, targets, &ps, &n, &err), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(gpuproj_profile_device(ps[0])->name, "Test Source GPU");
	ck_assert_str_eq(gpuproj_profile_device(ps[0])->target, "SrcGPU");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "origin"), "gpuperfpredict");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "citation"), GPUPROJ_CITATION_GPUPERFPREDICT);
	ck_assert_uint_eq(gpuproj_profile_count(ps[0]), 1);
	k = gpuproj_profile_at(ps[0], 0);
	ck_assert_str_eq(k->name, "k");
	ck_assert_str_eq(k->tag, "input=1024x0");
	ck_assert_uint_eq(k->grid.x, 8);
	ck_assert_uint_eq(k->block.x, 256);
	ck_assert_uint_eq(k->block.z, 1);
	ck_assert_uint_eq(k->regs_per_thread, 32);
	ck_assert_uint_eq(k->smem_static, 2048);
	ck_assert_uint_eq(k->launches, 4);
	ck_assert_uint_eq(k->profiled, 4);
	ck_assert_uint_eq(k->duration_ns.n, 4);
	ck_assert_double_eq_tol(k->duration_ns.mean, 100000, 1e-6);
	ck_assert_double_eq_tol(k->duration_ns.min, 100000, 1e-6);
	ck_assert_double_eq_tol(k->duration_ns.max, 100000, 1e-6);
	ck_assert_uint_eq(k->metric_n[GPUPROJ_M_INST_WARP], 4);
#define M(m, v)                                                                                    \
	ck_assert_double_eq_tol(gpuproj_kernel_metric(k, m), v, 1e-6 * fabs((double)(v)) + 1e-9)
	M(GPUPROJ_M_INST_WARP, 1000);
	M(GPUPROJ_M_INST_THREAD, 26000);
	M(GPUPROJ_M_WARP_EFFICIENCY, 0.8125);
	M(GPUPROJ_M_INST_FP32, 8000);
	M(GPUPROJ_M_INST_FP64, 0);
	M(GPUPROJ_M_INST_INT, 12000);
	M(GPUPROJ_M_INST_LDST, 4000);
	M(GPUPROJ_M_INST_OTHER, 2000);
	M(GPUPROJ_M_INST_FP32_FMA, 3000);
	M(GPUPROJ_M_INST_FP32_ADD, 1000);
	M(GPUPROJ_M_INST_FP32_MUL, 500);
	M(GPUPROJ_M_INST_FP64_FMA, 300);
	M(GPUPROJ_M_INST_FP64_ADD, 100);
	M(GPUPROJ_M_INST_FP64_MUL, 0);
	M(GPUPROJ_M_BYTES_L1, 1.5e6);
	M(GPUPROJ_M_SECTORS_L1, 46875);
	M(GPUPROJ_M_BYTES_L2, 1.28e6);
	M(GPUPROJ_M_SECTORS_L2, 40000);
	M(GPUPROJ_M_BYTES_DRAM_READ, 640000);
	M(GPUPROJ_M_BYTES_DRAM_WRITE, 200000);
	M(GPUPROJ_M_BYTES_DRAM, 840000);
	M(GPUPROJ_M_SECTORS_DRAM, 26250);
	M(GPUPROJ_M_SHARED_WAVEFRONTS, 800);
	M(GPUPROJ_M_SHARED_BANK_CONFLICTS, 100);
	M(GPUPROJ_M_SHARED_BYTES, 150000);
	M(GPUPROJ_M_OCCUPANCY_ACHIEVED, 0.5);
	M(GPUPROJ_M_CYCLES_SM_ACTIVE, 90000);
#undef M
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_INST_FP16_FMA));
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_CLOCK_SM));
	/* Raw columns kept by name. */
	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, "global_load_throughput") == 0)
			break;
	}
	ck_assert_uint_lt(i, k->n_extra);
	ck_assert_str_eq(k->extra[i].unit, "GB/s");
	ck_assert_double_eq_tol(k->extra[i].sum / (double)k->extra[i].n, 10.0, 1e-12);
	ck_assert_uint_eq(k->extra[i].n, 4);
	/* The reference carries the target's targets.yaml name. */
	r = gpuproj_kernel_reference(k, "TgtGPU");
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq_tol(r->mean_ns, 40000, 1e-6);
	ck_assert_uint_eq(r->launches, 2);
	/* The target's static.smem "2" is KiB (2 × 1024 = the other GPU's 2048). */
	ck_assert_uint_eq(gpuproj_profile_at(ps[1], 0)->smem_static, 2048);
	ck_assert_ptr_nonnull(gpuproj_kernel_reference(gpuproj_profile_at(ps[1], 0), "SrcGPU"));

	for (i = 0; i < n; i++)
		gpuproj_profile_free(ps[i]);
	free(ps);
	free(path);
}
END_TEST

/* A UTF-8 byte-order mark before "gpu" (Windows tools write one) is not part of the name. */
START_TEST(gpuperfpredict_bom)
{
	char *text, *path;
	const char *paths[1];
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0, i;

	ck_assert_int_gt(asprintf(&text, "\xef\xbb\xbf%s", gpp_csv), 0);
	path = test_write_file(tmp, "bom.csv", text);
	paths[0] = path;
	ck_assert_msg(gpuproj_import_gpuperfpredict(paths, 1, targets, &ps, &n, &err) == 0, "%s",
		      err.message);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(gpuproj_profile_device(ps[0])->name, "Test Source GPU");
	for (i = 0; i < n; i++)
		gpuproj_profile_free(ps[i]);
	free(ps);
	free(path);
	free(text);
}
END_TEST

/* Two labels matching one targets.yaml entry would write one profile twice. */
START_TEST(gpuperfpredict_two_labels_one_gpu)
{
	const char *row = strchr(gpp_csv + strlen(GPP_HEADER), ',');
	char *text, *path;
	const char *paths[1];
	struct gpuproj_profile **ps = (struct gpuproj_profile **)0x1;
	struct gpuproj_error err = { 0 };
	size_t n = 7;

	/* The first data row again, labelled with the entry's name. */
	ck_assert_int_gt(asprintf(&text, "%sSrcGPU%.*s", gpp_csv,
				  (int)(strchr(row, '\n') - row + 1), row), 0);
	path = test_write_file(tmp, "twice.csv", text);
	paths[0] = path;
	ck_assert_int_eq(gpuproj_import_gpuperfpredict(paths, 1, targets, &ps, &n, &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_str_eq(err.message, "GPU labels 'Test Source GPU' and 'SrcGPU' of the data set "
			 "both match targets.yaml entry 'SrcGPU'; give each its own entry");
	ck_assert_int_eq(err.line, 4);
	ck_assert_int_eq(err.column, 1);
	ck_assert_ptr_eq(ps, (struct gpuproj_profile **)0x1);
	ck_assert_uint_eq(n, 7);
	free(path);
	free(text);
}
END_TEST

START_TEST(gpuperfpredict_citation_reported)
{
	char *path = test_write_file(tmp, "mini.csv", gpp_csv);
	const char *paths[] = { path };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_validation v = { 0 };
	size_t n = 0, i;

	ck_assert_int_eq(gpuproj_import_datasets(paths, 1, targets, &ps, &n, NULL), 0);
	ck_assert_int_eq(gpuproj_validate((const struct gpuproj_profile *const *)ps, n, targets,
					  &hroof_opt, &v, NULL), 0);
	ck_assert_uint_eq(v.n_citations, 1);
	ck_assert_str_eq(v.citations[0], GPUPROJ_CITATION_GPUPERFPREDICT " (CC BY 4.0)");
	/* Both directions projected (the mini CSV has every hroof input). */
	ck_assert_uint_eq(v.n_pairs, 2);
	ck_assert_uint_eq(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n, 2);
	gpuproj_validation_clear(&v);
	for (i = 0; i < n; i++)
		gpuproj_profile_free(ps[i]);
	free(ps);
	free(path);
}
END_TEST

/* ---- bad inputs: one test each, exact messages ---- */

static int
load_one(const char *name, const char *text, struct gpuproj_error *err, char **ret_path)
{
	struct gpuproj_profile **ps = NULL;
	const char *paths[1];
	size_t n = 0;
	int st;

	*ret_path = test_write_file(tmp, name, text);
	paths[0] = *ret_path;
	st = gpuproj_import_datasets(paths, 1, targets, &ps, &n, err);
	ck_assert_ptr_null(ps);
	return st;
}

/* A gpuperfpredict profile saved without its citation gets it back on load. */
START_TEST(gpuperfpredict_citation_restored)
{
	char *path = test_write_file(tmp, "mini.csv", gpp_csv), *json;
	const char *paths[] = { NULL };
	struct gpuproj_profile **ps = NULL, **back = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0, nb = 0, i;

	paths[0] = path;
	ck_assert_int_eq(gpuproj_import_datasets(paths, 1, targets, &ps, &n, &err), 0);
	ck_assert_int_eq(gpuproj_profile_set_attr(ps[0], "citation", NULL), 0);
	ck_assert_int_eq(gpuproj_profile_set_attr(ps[0], "license", NULL), 0);
	ck_assert_ptr_null(gpuproj_profile_attr(ps[0], "citation"));
	if (asprintf(&json, "%s/uncited.json", tmp) < 0)
		abort();
	ck_assert_int_eq(gpuproj_profile_save(ps[0], json, &err), 0);
	paths[0] = json;
	ck_assert_int_eq(gpuproj_import_datasets(paths, 1, targets, &back, &nb, &err), 0);
	ck_assert_uint_eq(nb, 1);
	ck_assert_str_eq(gpuproj_profile_attr(back[0], "citation"), GPUPROJ_CITATION_GPUPERFPREDICT);
	ck_assert_str_eq(gpuproj_profile_attr(back[0], "license"), "CC BY 4.0");
	for (i = 0; i < n; i++)
		gpuproj_profile_free(ps[i]);
	free(ps);
	gpuproj_profile_free(back[0]);
	free(back);
	free(json);
	free(path);
}
END_TEST

START_TEST(bad_unknown_gpu_label)
{
	struct gpuproj_error err = { 0 };
	char *path;

	ck_assert_int_eq(load_one("u.csv",
				  "gpu,kernel,launches,input.size.1,input.size.2,grid.x,grid.y,"
				  "block.x,block.y,registers.per.thread,static.smem,duration\n"
				  "Mystery 9000,k,1,1,0,1,1,32,1,16,0,1e-05\n",
				  &err, &path),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_str_eq(err.file, path);
	ck_assert_int_eq(err.line, 2);
	ck_assert_int_eq(err.column, 1);
	ck_assert_str_eq(err.message, "GPU 'Mystery 9000' of the data set is not in targets.yaml "
				      "(add its label to an entry's `match` list)");
	free(path);
}
END_TEST

START_TEST(bad_missing_column)
{
	struct gpuproj_error err = { 0 };
	char *path;

	ck_assert_int_eq(load_one("m.csv",
				  "gpu,kernel,launches,input.size.1,input.size.2,grid.x,grid.y,"
				  "block.x,block.y,registers.per.thread,static.smem\n"
				  "Test Source GPU,k,1,1,0,1,1,32,1,16,0\n",
				  &err, &path),
			 GPUPROJ_E_SCHEMA);
	ck_assert_str_eq(err.file, path);
	ck_assert_int_eq(err.line, 1);
	ck_assert_str_eq(err.message, "required column 'duration' is missing from the header");
	free(path);
}
END_TEST

START_TEST(bad_not_a_number)
{
	struct gpuproj_error err = { 0 };
	char *path;

	ck_assert_int_eq(load_one("n.csv",
				  "gpu,kernel,launches,input.size.1,input.size.2,grid.x,grid.y,"
				  "block.x,block.y,registers.per.thread,static.smem,duration\n"
				  "Test Source GPU,k,1,1,0,1,1,32,1,16,0,fast\n",
				  &err, &path),
			 GPUPROJ_E_SCHEMA);
	ck_assert_int_eq(err.line, 2);
	ck_assert_int_eq(err.column, 39);
	ck_assert_str_eq(err.message, "column 'duration': 'fast' is not a number");
	free(path);
}
END_TEST

START_TEST(bad_not_a_dataset)
{
	struct gpuproj_error err = { 0 };
	char buf[2048];
	char *path, *expect;

	ck_assert_int_eq(load_one("x.txt", "kernel,time\nfoo,1\n", &err, &path), GPUPROJ_E_PARSE);
	if (asprintf(&expect, "%s: not a data set: expected a gpuproj profile JSON (starting with "
		     "'{'), a gpuperfpredict CSV (first line 'gpu,kernel,...'), a NeuSight CSV "
		     "(first line 'OPName,Latency,Device,...'), an XLA matmul CSV (first line "
		     "'xla_table,gpu,dtype,...') or a seed 002 CSV (first line "
		     "'kernel,regs,shmem,...')", path) < 0)
		abort();
	ck_assert_str_eq(gpuproj_error_format(&err, buf, sizeof(buf)), expect);
	free(expect);
	free(path);
}
END_TEST

START_TEST(bad_missing_file)
{
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	const char *paths[] = { "/nonexistent/dir/data.csv" };
	size_t n = 0;

	ck_assert_int_eq(gpuproj_import_datasets(paths, 1, targets, &ps, &n, &err), GPUPROJ_E_IO);
	ck_assert_str_eq(err.file, "/nonexistent/dir/data.csv");
	ck_assert_str_eq(err.message, "cannot open: No such file or directory");
}
END_TEST

/* ---- writers ---- */

START_TEST(csv_and_json_writers)
{
	struct gpuproj_profile *p = source_profile();
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_validation v = { 0 };
	char *csv_path, *json_path, *text;
	FILE *f;

	gpuproj_profile_set_attr(p, "citation", "Someone, Some data (2020)");
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &hroof_opt, &v, NULL), 0);
	if (asprintf(&csv_path, "%s/v.csv", tmp) < 0 || asprintf(&json_path, "%s/v.json", tmp) < 0)
		abort();
	f = fopen(csv_path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(gpuproj_validation_write_csv(f, &v), 0);
	fclose(f);
	text = test_read_file(csv_path);
	ck_assert_str_eq(text,
			 "# Data: Someone, Some data (2020)\n"
			 "model,source,target,subset,threshold_ns,n,n_failed,mape_pct,"
			 "median_ape_pct,coverage_pct,bias_pct,width_pct\n"
			 "hroof,SrcGPU,TgtGPU,all,50000,4,1,5.75,4,50,1.75," W23 "\n"
			 "hroof,SrcGPU,TgtGPU,short,50000,2,0,7.5,7.5,50,7.5," W23 "\n"
			 "hroof,SrcGPU,TgtGPU,long,50000,2,1,4,4,50,-4," W23 "\n"
			 "hroof,(all),(all),all,50000,4,1,5.75,4,50,1.75," W23 "\n"
			 "hroof,(all),(all),short,50000,2,0,7.5,7.5,50,7.5," W23 "\n"
			 "hroof,(all),(all),long,50000,2,1,4,4,50,-4," W23 "\n"
			 /* SrcGPU sm_70 (Volta), TgtGPU sm_90 (Hopper): one cross-generation pair. */
			 "hroof,(cross gen),(all),all,50000,4,1,5.75,4,50,1.75," W23 "\n"
			 "hroof,(cross gen),(all),short,50000,2,0,7.5,7.5,50,7.5," W23 "\n"
			 "hroof,(cross gen),(all),long,50000,2,1,4,4,50,-4," W23 "\n");
	free(text);

	ck_assert_int_eq(gpuproj_validation_write_json(json_path, &v, true, NULL), 0);
	text = test_read_file(json_path);
	ck_assert_ptr_nonnull(strstr(text, "\"schema\": \"gpuproj-validation/1\""));
	ck_assert_ptr_nonnull(strstr(text, "\"citations\": [\n  \"Someone, Some data (2020)\""));
	ck_assert_ptr_nonnull(strstr(text, "\"why\": \"" NEEDS "\""));
	ck_assert_ptr_nonnull(strstr(text, "\"comparisons\""));
	ck_assert_ptr_nonnull(strstr(text, "\"generation\": \"same\""));
	ck_assert_ptr_nonnull(strstr(text, "\"generation\": \"cross\""));
	/* The schema comes first, the citations right after. */
	ck_assert_ptr_nonnull(strstr(text, "\"schema\""));
	ck_assert(strstr(text, "\"schema\"") < strstr(text, "\"citations\""));
	ck_assert(strstr(text, "\"citations\"") < strstr(text, "\"pairs\""));
	free(text);

	gpuproj_validation_clear(&v);
	gpuproj_profile_free(p);
	free(csv_path);
	free(json_path);
}
END_TEST

/*
 * Intervals fitted here (interval.h) on the four comparisons of the top
 * comment, ratios measured/point: a 20/23, b 1, c 125/115 = 25/23, d 1.
 * Four cases < 30: only hroof's pooled group is stored. Coverage 0.8:
 * k = ⌈5·0.8⌉ = 4, the window of all four: lo = 20/23, hi = 25/23, every
 * case inside, width (25 − 20)/23 = 21.739 %. Coverage 0.5: k = 3; windows
 * [20/23, 1] (width 3/23) and [1, 25/23] (2/23): lo = 1, hi = 25/23: b, c
 * and d inside, a outside: 75 %.
 * With holdout the calibration half is left out of every statistic.
 */
START_TEST(fitted_intervals_and_holdout)
{
	struct gpuproj_profile *p = source_profile();
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_validate_options opt = hroof_opt;
	struct gpuproj_validation v = { 0 };
	double lo, hi;
	size_t n;

	opt.fit_intervals = true;
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &opt, &v, NULL), 0);
	ck_assert_ptr_nonnull(v.fitted);
	ck_assert(gpuproj_intervals_lookup(v.fitted, hroof_models[0], GPUPROJ_BOUND_DRAM, 1e6, &lo,
					   &hi, &n));
	ck_assert_uint_eq(n, 4);
	ck_assert_double_eq_tol(lo, 20.0 / 23.0, EPS);
	ck_assert_double_eq_tol(hi, 25.0 / 23.0, EPS);
	ck_assert_double_eq_tol(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].coverage_pct, 100, EPS);
	ck_assert_double_eq_tol(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].width_pct, 500.0 / 23.0,
				EPS);
	ck_assert(v.comparisons[0].calibrated);
	ck_assert_double_eq_tol(v.comparisons[0].lo_ns, 20000, 1e-6);
	ck_assert_double_eq_tol(v.comparisons[0].level_lo_ns, 22000, 1e-6);
	/* The default coverage is the built-in table's, 85 % (interval.h). */
	ck_assert_ptr_nonnull(strstr(v.intervals_origin, "fitted here: 85 % intervals"));
	/* The fit records the GPUs of its cases: the source and the target, no other. */
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(v.fitted, hroof_models[0], "SrcGPU"), 1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(v.fitted, hroof_models[0], "TgtGPU"), 1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(v.fitted, hroof_models[0], "OtherGPU"), 0);
	gpuproj_validation_clear(&v);

	opt.fit_coverage = 0.5;
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &opt, &v, NULL), 0);
	ck_assert(gpuproj_intervals_lookup(v.fitted, hroof_models[0], GPUPROJ_BOUND_DRAM, 1e3, &lo,
					   &hi, NULL));
	ck_assert_double_eq_tol(lo, 1, EPS);
	ck_assert_double_eq_tol(hi, 25.0 / 23.0, EPS);
	ck_assert_double_eq_tol(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].coverage_pct, 75, EPS);
	gpuproj_validation_clear(&v);

	opt.holdout = GPUPROJ_HOLDOUT_SHAPE;
	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &opt, &v, NULL), 0);
	ck_assert_uint_eq(v.n_calibration + v.n_comparisons, 5);
	ck_assert_uint_gt(v.n_calibration, 0);
	ck_assert_uint_eq(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n +
				  v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n_failed,
			  v.n_comparisons);
	ck_assert_int_eq(v.holdout, GPUPROJ_HOLDOUT_SHAPE);
	gpuproj_validation_clear(&v);
	gpuproj_profile_free(p);
}
END_TEST

/*
 * default_sections: the profile reduced by gpuproj_profile_default_sections()
 * (model.h) on SrcGPU (DRAM 100, L2 400, L1 1000 GB/s): per kernel DRAM
 * 1e6 B → 10 µs, L2 2.5 µs, L1 2e6 B → 2 µs of T_s, SM 0 % (no FLOP, no
 * warp instructions); "e" (no counter at all) has no percentage, and sol
 * cannot project it either (no SM busy time). sol on TgtGPU (DRAM 400, L2
 * 800, L1 2000): L1 and L2 levels T_s/2, DRAM T_s/4, point 3/8 T_s, times
 * its occupancy factor F (64 blocks: 7 waves on 10 SMs, 4 on 20). hroof
 * finds nothing it needs. The result is what validating the reduced
 * profile itself gives, and its kernels are the reduced ones.
 */
START_TEST(default_sections_option)
{
	struct gpuproj_profile *p = source_profile(), *q = NULL;
	const struct gpuproj_profile *ps[] = { p }, *qs[1];
	const struct gpuproj_model *models[2] = { gpuproj_model_find("sol"), hroof_models[0] };
	struct gpuproj_validate_options opt = { .models = models, .n_models = 2,
						.model_options = &levels, .default_sections = true };
	struct gpuproj_validation v = { 0 }, w = { 0 };
	struct gpuproj_model_details d;
	double f = NAN;
	size_t i;

	ck_assert_int_eq(gpuproj_validate(ps, 1, targets, &opt, &v, NULL), 0);
	ck_assert(v.default_sections);
	ck_assert_uint_eq(v.n_derived, 1);
	ck_assert_uint_eq(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n, 4);
	ck_assert_uint_eq(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n_failed, 1);
	ck_assert_uint_eq(v.overall[1].stats[GPUPROJ_VSUBSET_ALL].n, 0);
	ck_assert_uint_eq(v.overall[1].stats[GPUPROJ_VSUBSET_ALL].n_failed, 5);
	ck_assert_ptr_nonnull(strstr(v.overall[1].reasons[0].why, NEEDS));
	/* Kernel "b", T_s = 880 µs. */
	ck_assert_str_eq(v.comparisons[1].kernel->tag, "b");
	ck_assert(!gpuproj_kernel_has(v.comparisons[1].kernel, GPUPROJ_M_BYTES_DRAM));
	ck_assert_int_eq(gpuproj_model_details(models[0], v.comparisons[1].kernel,
					       v.comparisons[1].source, v.comparisons[1].target,
					       &levels, &d), 0);
	for (i = 0; i < d.n; i++) {
		if (strcmp(d.items[i].name, "occupancy_factor") == 0)
			f = d.items[i].value;
	}
	ck_assert_double_eq_tol(f, 8.0 / 7.0, EPS);
	ck_assert_double_eq_tol(v.comparisons[1].level_lo_ns, 220000 * f, 1e-6);
	ck_assert_double_eq_tol(v.comparisons[1].level_hi_ns, 440000 * f, 1e-6);
	ck_assert_double_eq_tol(v.comparisons[1].point_ns, 330000 * f, 1e-6);

	/* The same as validating the reduced profile. */
	ck_assert_int_eq(gpuproj_profile_default_sections(p, targets, NULL, &q, NULL), 0);
	qs[0] = q;
	opt.default_sections = false;
	ck_assert_int_eq(gpuproj_validate(qs, 1, targets, &opt, &w, NULL), 0);
	ck_assert(!w.default_sections);
	ck_assert_uint_eq(w.n_comparisons, v.n_comparisons);
	for (i = 0; i < v.n_comparisons; i++) {
		ck_assert_int_eq(w.comparisons[i].status, v.comparisons[i].status);
		if (v.comparisons[i].status == GPUPROJ_OK)
			ck_assert(w.comparisons[i].point_ns == v.comparisons[i].point_ns);
	}
	gpuproj_validation_clear(&w);
	gpuproj_validation_clear(&v);
	ck_assert_ptr_null(v.derived);
	gpuproj_profile_free(q);
	gpuproj_profile_free(p);
}
END_TEST

/* ---- the CLI ---- */

/* `gpuproj validate` with the test targets, and hroof unless the arguments name a model. */
static int
run(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
run(char **out, char **err, const char *fmt, ...)
{
	va_list ap;
	char *args;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&args, fmt, ap) < 0)
		abort();
	va_end(ap);
	rc = test_cli(out, err, "validate --targets '%s' %s%s%s", test_data("targets-test.yaml"),
		      strstr(args, "--model") ? "" : "--model hroof ",
		      strstr(args, "intervals") ? "" : "--intervals levels ", args);
	free(args);
	return rc;
}

START_TEST(cli_success_and_formats)
{
	char *a, *b, *out, *err;

	write_pair_json(&a, &b);
	ck_assert_int_eq(run(&out, &err, "--source SrcGPU --format csv '%s' '%s'", a, b), 0);
	ck_assert_ptr_nonnull(strstr(out, "hroof,SrcGPU,TgtGPU,all,50000,4,0,5.75,4,50,1.75," W23
				      "\n"));
	ck_assert_str_eq(err, ""); /* no progress when stderr is not a terminal */
	free(out);
	free(err);

	ck_assert_int_eq(run(&out, &err, "--threshold 200us '%s' '%s'", a, b), 0);
	ck_assert_ptr_nonnull(strstr(out, "Validation of hroof: 2 pairs"));
	ck_assert_ptr_nonnull(strstr(out, "short (< 200 us)") || strstr(out, "short (< 200.0 us)")
				      ? out : NULL);
	ck_assert_ptr_nonnull(strstr(out, "4 x hroof needs"));
	free(out);
	free(err);

	ck_assert_int_eq(run(&out, &err, "--model all --format json --details -o '%s/o.json' "
				   "'%s' '%s'", tmp, a, b), 0);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
	{
		char *p, *text;

		if (asprintf(&p, "%s/o.json", tmp) < 0)
			abort();
		text = test_read_file(p);
		ck_assert_ptr_nonnull(text);
		ck_assert_ptr_nonnull(strstr(text, "\"measured_ns\": 230000"));
		free(text);
		free(p);
	}
	free(a);
	free(b);
}
END_TEST

/* Occurrences of `needle` in `hay`. */
static int
count_of(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* The text of groups[] of a gpuproj-intervals/1 file: from "groups" to the end. */
static const char *
groups_text(const char *table)
{
	const char *g = strstr(table, "\"groups\"");

	ck_assert_ptr_nonnull(g);
	return g;
}

/* A fitted table's date is $SOURCE_DATE_EPOCH when set (reproducible refits); a bad one is refused. */
START_TEST(cli_fit_date_from_source_date_epoch)
{
	char *a, *b, *out, *err, *path, *t;

	write_pair_json(&a, &b);
	if (asprintf(&path, "%s/dated.json", tmp) < 0)
		abort();
	setenv("SOURCE_DATE_EPOCH", "86400", 1);
	ck_assert_int_eq(run(&out, &err, "--model hroof --fit-intervals '%s' '%s' '%s'", path, a, b),
			 0);
	free(out);
	free(err);
	t = test_read_file(path);
	ck_assert_msg(strstr(t, "\"created\": \"1970-01-02T00:00:00Z\"") != NULL, "%s", t);
	free(t);
	setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
	ck_assert_int_eq(run(&out, &err, "--model hroof --fit-intervals '%s' '%s' '%s'", path, a, b),
			 2);
	ck_assert_ptr_nonnull(strstr(err, "SOURCE_DATE_EPOCH must be a non-negative integer "
					  "(seconds since 1970-01-01 UTC), not 'yesterday'"));
	free(out);
	free(err);
	/* Refused before any work: the table written before is as it was. */
	t = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(t, "\"created\": \"1970-01-02T00:00:00Z\""));
	free(t);
	unsetenv("SOURCE_DATE_EPOCH");
	/* Unset: the time of the fit, not 1970. */
	ck_assert_int_eq(run(&out, &err, "--model hroof --fit-intervals '%s' '%s' '%s'", path, a, b),
			 0);
	free(out);
	free(err);
	t = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(t, "\"created\": \"20"));
	free(t);
	free(path);
	free(a);
	free(b);
}
END_TEST

/*
 * --default-sections and --merge-intervals: fit hroof on the counters into
 * base.json, then sol on the default sections merged into it. The merged
 * table keeps base's hroof group byte for byte, adds sol's, records both
 * commands and what sol was fitted on; merging sol again replaces it.
 */
START_TEST(cli_default_sections_and_merge)
{
	char *a, *b, *out, *err, *base, *merged, *tb, *tm, *tm2, *hroof_group;
	const char *end;

	write_pair_json(&a, &b);
	if (asprintf(&base, "%s/base.json", tmp) < 0 || asprintf(&merged, "%s/merged.json", tmp) < 0)
		abort();
	ck_assert_int_eq(run(&out, &err, "--default-sections --model sol --format json '%s' '%s'",
			     a, b), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"inputs\": \"default-sections\""));
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "--default-sections --model sol --model hroof '%s' '%s'",
			     a, b), 0);
	ck_assert_ptr_nonnull(strstr(out, "inputs: Nsight Compute default sections only"));
	ck_assert_msg(strstr(out, "8 x " NEEDS), "%s", out);
	free(out);
	free(err);

	ck_assert_int_eq(run(&out, &err, "--model hroof --fit-intervals '%s' '%s' '%s'", base, a, b),
			 0);
	free(out);
	free(err);
	tb = test_read_file(base);
	ck_assert_ptr_nonnull(strstr(tb, "\"command\": \"gpuproj validate --targets "));
	ck_assert_ptr_nonnull(strstr(tb, "--model hroof --fit-intervals "));
	ck_assert_ptr_nonnull(strstr(tb, "\"inputs\": \"the data sets' metrics as imported\""));
	ck_assert_int_eq(count_of(tb, "\"model\": \"sol\""), 0);

	ck_assert_int_eq(run(&out, &err, "--default-sections --model sol --fit-intervals '%s' "
			     "--merge-intervals '%s' '%s' '%s'", merged, base, a, b), 0);
	free(out);
	free(err);
	tm = test_read_file(merged);
	/* base's groups (all hroof's) come first, unchanged; then sol's. */
	hroof_group = strdup(groups_text(tb));
	end = strrchr(hroof_group, '}');                 /* the file's last brace */
	hroof_group[end - hroof_group] = '\0';
	end = strrchr(hroof_group, ']');                 /* the end of groups[] */
	hroof_group[end - hroof_group] = '\0';
	end = strrchr(hroof_group, '}');                 /* base's last group ends here */
	hroof_group[end - hroof_group + 1] = '\0';
	ck_assert_msg(strncmp(groups_text(tm), hroof_group, strlen(hroof_group)) == 0,
		      "base's groups changed:\n%s\n---\n%s", hroof_group, groups_text(tm));
	ck_assert_int_eq(count_of(tm, "\"model\": \"sol\""), 1);
	ck_assert_int_eq(count_of(tm, "\"model\": \"hroof\""),
			 count_of(tb, "\"model\": \"hroof\""));
	ck_assert_ptr_nonnull(strstr(tm, "\"merged\": ["));
	end = strstr(tm, "\"models\": [");                 /* merged[0].models = ["sol"] */
	ck_assert_ptr_nonnull(end);
	ck_assert_ptr_nonnull(strstr(end, "\"sol\""));
	ck_assert(strstr(end, "\"sol\"") < strchr(end, ']'));
	ck_assert_ptr_nonnull(strstr(tm, "--default-sections --model sol --fit-intervals"));
	ck_assert_ptr_nonnull(strstr(tm, "\"inputs\": \"Nsight Compute default sections"));
	ck_assert_int_eq(count_of(tm, "\"command\""), 2);

	/* Merging sol again into the merged table replaces it: one sol group, one entry. */
	ck_assert_int_eq(run(&out, &err, "--default-sections --model sol --fit-intervals '%s' "
			     "--merge-intervals '%s' '%s' '%s'", merged, merged, a, b), 0);
	free(out);
	free(err);
	tm2 = test_read_file(merged);
	ck_assert_int_eq(count_of(tm2, "\"model\": \"sol\""), 1);
	ck_assert_int_eq(count_of(tm2, "\"models\""), 1);
	/* And the table loads, with sol's factors and its origin. */
	ck_assert_int_eq(run(&out, &err, "--default-sections --model sol --intervals '%s' '%s' '%s'",
			     merged, a, b), 0);
	ck_assert_ptr_nonnull(strstr(out, "sol merged from a fit of "));
	free(out);
	free(err);

	/* Into the built-in table (fitted at 85 %): its models stay, sol's groups are these. */
	ck_assert_int_eq(run(&out, &err, "--default-sections --model sol --coverage 0.85 "
			     "--fit-intervals '%s' --merge-intervals builtin '%s' '%s'", merged, a, b),
			 0);
	free(out);
	free(err);
	free(tm2);
	tm2 = test_read_file(merged);
	ck_assert_int_gt(count_of(tm2, "\"model\": \"hroof-occ\""), 0);
	ck_assert_int_gt(count_of(tm2, "\"model\": \"naive\""), 0);
	ck_assert_int_eq(count_of(tm2, "\"model\": \"sol\""), 1);   /* 4 cases: pooled only */
	ck_assert_int_eq(count_of(tm2, "\"models\""), 1);

	/* Errors: no --fit-intervals; another coverage; a bad base. */
	ck_assert_int_eq(run(&out, &err, "--model sol --merge-intervals '%s' '%s' '%s'", base, a, b),
			 2);
	ck_assert_ptr_nonnull(strstr(err, "--merge-intervals needs --fit-intervals FILE"));
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "--default-sections --model sol --coverage 0.5 "
			     "--fit-intervals '%s/x.json' --merge-intervals '%s' '%s' '%s'", tmp,
			     base, a, b), 2);
	ck_assert_ptr_nonnull(strstr(err, "cannot merge intervals fitted for 0.5 coverage into a "
				     "table fitted for 0.8"));
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "--model sol --fit-intervals '%s/x.json' "
			     "--merge-intervals '%s' '%s' '%s'", tmp, a, a, b), 2);
	ck_assert_ptr_nonnull(strstr(err, "'schema' must be"));
	free(out);
	free(err);

	free(tb);
	free(tm);
	free(tm2);
	free(hroof_group);
	free(base);
	free(merged);
	free(a);
	free(b);
}
END_TEST

START_TEST(cli_citation_first)
{
	char *path = test_write_file(tmp, "mini.csv", gpp_csv), *out, *err;

	ck_assert_int_eq(run(&out, &err, "--format csv '%s'", path), 0);
	ck_assert(strncmp(out, "# Data: " GPUPROJ_CITATION_GPUPERFPREDICT " (CC BY 4.0)\n",
			  strlen("# Data: " GPUPROJ_CITATION_GPUPERFPREDICT)) == 0);
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "'%s'", path), 0);
	ck_assert(strncmp(out, "Data: " GPUPROJ_CITATION_GPUPERFPREDICT,
			  strlen("Data: " GPUPROJ_CITATION_GPUPERFPREDICT)) == 0);
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "--format json '%s'", path), 0);
	ck_assert_ptr_nonnull(strstr(out, GPUPROJ_CITATION_GPUPERFPREDICT));
	free(out);
	free(err);
	free(path);
}
END_TEST

START_TEST(cli_exit_statuses)
{
	static const struct {
		const char *args;
		int rc;
		const char *err;
	} cases[] = {
		{ "", 2, "gpuproj: validate: missing DATASET" },
		{ "--threshold fast x.json", 2, "--threshold needs a positive duration" },
		{ "--threshold 0us x.json", 2, "--threshold needs a positive duration" },
		{ "--format xml x.json", 2, "--format must be table, csv or json, not 'xml'" },
		{ "--model nope x.json", 2, "unknown model 'nope'" },
		{ "--details x.json", 2, "--details needs --format json" },
		{ "--bogus x.json", 2, "unknown option '--bogus'" },
		{ "/nonexistent.json", 2, "gpuproj: /nonexistent.json: cannot open" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;
		int rc = run(&out, &err, "%s", cases[i].args);

		ck_assert_msg(rc == cases[i].rc, "'%s': exit %d, expected %d (%s)", cases[i].args,
			      rc, cases[i].rc, err);
		ck_assert_msg(strstr(err, cases[i].err), "'%s': stderr '%s'", cases[i].args, err);
		free(out);
		free(err);
	}
}
END_TEST

/*
 * --progress always prints a line each 10 % step (here each of
 * the 4 kernel x target comparisons of profile-test.json is 25 %) with the
 * time taken; never and -q print none; auto off a terminal prints nothing
 * for a run under 10 s (cli_success_and_formats).
 */
START_TEST(cli_progress_lines)
{
	char *out, *err, *line;
	int i;

	ck_assert_int_eq(test_cli(&out, &err, "validate --targets '%s' --progress always '%s'",
				  test_data("targets-test.yaml"), test_data("profile-test.json")), 0);
	line = err;
	for (i = 1; i <= 4; i++) {
		char want[96];

		snprintf(want, sizeof(want), "gpuproj validate: %d/4 kernel x target (%d%%, ", i,
			 25 * i);
		ck_assert_msg(strncmp(line, want, strlen(want)) == 0, "line %d: %s", i, line);
		line = strchr(line, '\n');
		ck_assert_ptr_nonnull(line);
		line++;
	}
	ck_assert_str_eq(line, "");
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "validate --targets '%s' --progress never '%s'",
				  test_data("targets-test.yaml"), test_data("profile-test.json")), 0);
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "validate --targets '%s' -q --progress always '%s'",
				  test_data("targets-test.yaml"), test_data("profile-test.json")), 0);
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "validate --progress sometimes x.json"), 2);
	ck_assert_str_eq(err, "gpuproj: validate: --progress must be auto, always or never, not "
			 "'sometimes'\nTry 'gpuproj validate --help'.\n");
	free(out);
	free(err);
}
END_TEST

START_TEST(cli_bad_input_is_2)
{
	char *txt = test_write_file(tmp, "notes.txt", "hello\n"), *out, *err, *a, *b;

	ck_assert_int_eq(run(&out, &err, "'%s'", txt), 2);
	ck_assert_ptr_nonnull(strstr(err, "not a data set"));
	ck_assert_str_eq(out, "");
	free(out);
	free(err);

	write_pair_json(&a, &b);
	ck_assert_int_eq(run(&out, &err, "--target NoSuchGPU-XYZ '%s' '%s'", a, b), 2);
	ck_assert_ptr_nonnull(strstr(err, "target GPU 'NoSuchGPU-XYZ' is not in targets.yaml"));
	free(out);
	free(err);

	/* One profile and nothing measured elsewhere: nothing to validate. */
	ck_assert_int_eq(run(&out, &err, "'%s'", a), 2);
	ck_assert_ptr_nonnull(strstr(err, "nothing to validate"));
	free(out);
	free(err);

	ck_assert_int_eq(run(&out, &err, "--model list"), 0);
	ck_assert_ptr_nonnull(strstr(out, "hroof"));
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "--help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: gpuproj validate"));
	free(out);
	free(err);
	free(txt);
	free(a);
	free(b);
}
END_TEST

static Suite *
validate_suite(void)
{
	Suite *s = suite_create("validate");
	TCase *tc = tcase_create("statistics");
	TCase *tio = tcase_create("inputs");
	TCase *tcli = tcase_create("cli");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, stats_by_hand);
	tcase_add_test(tc, threshold_split);
	tcase_add_test(tc, every_kernel_fails);
	tcase_add_test(tc, nothing_to_compare);
	tcase_add_test(tc, join_profiles_by_signature);
	tcase_add_test(tc, unknown_source_and_target_names);
	tcase_add_test(tc, csv_and_json_writers);
	tcase_add_test(tc, fitted_intervals_and_holdout);
	tcase_add_test(tc, default_sections_option);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tio, setup, teardown);
	tcase_add_test(tio, gpuperfpredict_mini_csv);
	tcase_add_test(tio, gpuperfpredict_bom);
	tcase_add_test(tio, gpuperfpredict_two_labels_one_gpu);
	tcase_add_test(tio, gpuperfpredict_citation_reported);
	tcase_add_test(tio, gpuperfpredict_citation_restored);
	tcase_add_test(tio, bad_unknown_gpu_label);
	tcase_add_test(tio, bad_missing_column);
	tcase_add_test(tio, bad_not_a_number);
	tcase_add_test(tio, bad_not_a_dataset);
	tcase_add_test(tio, bad_missing_file);
	suite_add_tcase(s, tio);

	tcase_add_checked_fixture(tcli, setup, teardown);
	tcase_add_test(tcli, cli_success_and_formats);
	tcase_add_test(tcli, cli_progress_lines);
	tcase_add_test(tcli, cli_default_sections_and_merge);
	tcase_add_test(tcli, cli_fit_date_from_source_date_epoch);
	tcase_add_test(tcli, cli_citation_first);
	tcase_add_test(tcli, cli_exit_statuses);
	tcase_add_test(tcli, cli_bad_input_is_2);
	suite_add_tcase(s, tcli);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(validate_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
