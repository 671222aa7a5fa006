/* SPDX-License-Identifier: MIT */
/*
 * The occupancy, quant, irm and hroof-occ models, the L2-capacity rule and
 * the disagreement predicate, against values worked out by hand. GPUs:
 * tests/data/targets-models.yaml
 *
 *   ModelSrc:   10 SMs, 1 GHz, 4 schedulers; FP32 FMA 2000 GFLOP/s (peak,
 *               estimate); IADD 1000, IMAD 1000 GIOP/s; LDS/STS 500 G/s;
 *               DRAM 100 (measured), L2 400, L1 1000 GB/s; L2 1 MiB;
 *               CC 7.0 limits (96 KiB shared/SM, 256-B unit, no reserve);
 *               latency L2 200, DRAM 400 ns; datasheet DRAM 120 GB/s
 *   ModelTgt:   20 SMs, 2 GHz; FP32 FMA measured 3200 GFLOP/s; IADD 2000,
 *               IMAD 4000; LDS/STS 1000; DRAM 400, L2 800, L1 2000 GB/s
 *               (measured); L2 4 MiB; CC 8.0 limits (164 KiB, 128 B, 1 KiB);
 *               latency L2 100, DRAM 500 ns; datasheet DRAM 500 GB/s, FP32 4000
 *   ModelSrc2x: ModelSrc with 20 SMs and twice the FLOP/s and bandwidths;
 *               L2 2 MiB; latencies of ModelSrc
 *   ModelAMD:   10 CUs, 1 GHz, wavefront 64, 1 scheduler per CU; the
 *               bandwidths of ModelSrc; no latency_ns
 *
 * Times in ns, rates in base units unless named.
 */
#include "config.h"

#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/interval.h>
#include <gpuproj/model.h>

#include "common.h"
#include "model-private.h"

#define MiB 1048576.0
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct gpuproj_targets *targets, *targets_test;
static const struct gpuproj_target *src, *tgt, *x2, *amd;
static struct gpuproj_profile *prof;

static void
setup(void)
{
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-models.yaml"), &targets, &err), 0);
	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-test.yaml"), &targets_test, &err),
			 0);
	src = gpuproj_targets_find(targets, "ModelSrc");
	tgt = gpuproj_targets_find(targets, "ModelTgt");
	x2 = gpuproj_targets_find(targets, "ModelSrc2x");
	amd = gpuproj_targets_find(targets, "ModelAMD");
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(tgt);
	ck_assert_ptr_nonnull(x2);
	ck_assert_ptr_nonnull(amd);
	prof = gpuproj_profile_new();
	ck_assert_ptr_nonnull(prof);
}

static void
teardown(void)
{
	prof = gpuproj_profile_free(prof);
	targets = gpuproj_targets_free(targets);
	targets_test = gpuproj_targets_free(targets_test);
}

/* A kernel with one timed launch of `ns`; no metric yet. */
static struct gpuproj_kernel *
kernel(const char *name, double ns, uint32_t grid, uint32_t block, uint32_t regs, uint32_t smem)
{
	struct gpuproj_signature sig = { .name = name, .grid = { grid, 1, 1 },
					 .block = { block, 1, 1 } };
	struct gpuproj_kernel *k;

	ck_assert_int_eq(gpuproj_profile_kernel(prof, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, ns);
	k->profiled = 1;
	k->regs_per_thread = regs;
	k->smem_static = smem;
	return k;
}

static void
set(struct gpuproj_kernel *k, enum gpuproj_metric m, double v)
{
	k->metric_sum[m] = v;
	k->metric_n[m] = 1;
}

/* The nine FP counters: `ffma` FP32 FMA, all others 0. */
static void
fp(struct gpuproj_kernel *k, double ffma)
{
	int m;

	for (m = GPUPROJ_M_INST_FP16_FMA; m <= GPUPROJ_M_INST_FP64_MUL; m++)
		set(k, (enum gpuproj_metric)m, 0);
	set(k, GPUPROJ_M_INST_FP32_FMA, ffma);
}

static struct gpuproj_projection
project_opt(const char *model, const struct gpuproj_kernel *k, const struct gpuproj_target *from,
	    const struct gpuproj_target *to, const struct gpuproj_model_options *opt)
{
	struct gpuproj_model_options o = { 0 };
	struct gpuproj_projection p;
	const struct gpuproj_model *m = gpuproj_model_find(model);

	ck_assert_ptr_nonnull(m);
	/* The equations' own intervals; calibration has its own test (calibrated_intervals). */
	if (opt)
		o = *opt;
	o.level_interval = true;
	gpuproj_model_project(m, k, from, to, &o, &p);
	return p;
}

/* With notes (gpuproj_model_options.notes), so that tests can check them. */
static struct gpuproj_projection
project(const char *model, const struct gpuproj_kernel *k, const struct gpuproj_target *from,
	const struct gpuproj_target *to)
{
	struct gpuproj_model_options notes = { .notes = true };

	return project_opt(model, k, from, to, &notes);
}

#define ck_assert_rel(a, b) \
	ck_assert_msg(fabs((a) - (b)) <= 1e-9 * fabs((double)(b)), "%s = %.17g, expected %.17g", #a, \
		      (double)(a), (double)(b))

#define ck_assert_ok(p) ck_assert_msg((p).status == GPUPROJ_OK, "status %d: %s", (p).status, (p).why)

/* ------------------------------------------------------------------ registry */

START_TEST(registry)
{
	static const char *const names[] = { "hroof", "occupancy", "quant", "irm", "hroof-occ",
					     "sol" };
	enum gpuproj_waves w;
	size_t i;

	ck_assert_uint_eq(gpuproj_model_count(), 6);
	for (i = 0; i < 6; i++) {
		ck_assert_str_eq(gpuproj_model_name(gpuproj_model_at(i)), names[i]);
		ck_assert_ptr_eq(gpuproj_model_find(names[i]), gpuproj_model_at(i));
		ck_assert_ptr_nonnull(gpuproj_model_summary(gpuproj_model_at(i)));
	}
	ck_assert_str_eq(gpuproj_model_name(gpuproj_model_default()), "hroof-occ");
	ck_assert_ptr_null(gpuproj_model_at(6));
	ck_assert(gpuproj_model_is_coarse(gpuproj_model_find("sol")));
	ck_assert(!gpuproj_model_is_coarse(gpuproj_model_default()));
	ck_assert(!gpuproj_l2_capacity_default());
	ck_assert_int_eq(gpuproj_waves_default(), GPUPROJ_WAVES_SM);
	ck_assert_int_eq(gpuproj_waves_from_name("Resident", &w), GPUPROJ_OK);
	ck_assert_int_eq(w, GPUPROJ_WAVES_RESIDENT);
	ck_assert_int_eq(gpuproj_waves_from_name("sometimes", &w), GPUPROJ_E_INVAL);
	ck_assert_str_eq(gpuproj_waves_name(GPUPROJ_WAVES_OFF), "off");
	ck_assert_str_eq(gpuproj_ktype_name(GPUPROJ_KTYPE_FP64), "fp64");
	ck_assert_str_eq(gpuproj_quant_param_name(GPUPROJ_QP_T_LDST), "T_ldst");
}
END_TEST

/*
 * The option tables (model.h struct gpuproj_word): each option's words in
 * the order the command's "must be" messages list them, every word
 * parsed back to its value in any case and named by it, value 0 named
 * "default" and parsed from it, and nothing else accepted.
 */
START_TEST(option_words)
{
	static const struct {
		enum gpuproj_option o;
		const char *words; /* the table's names, space-separated */
	} cases[] = {
		{ GPUPROJ_OPTION_L2_CAPACITY, "on off" },
		{ GPUPROJ_OPTION_WAVES, "sm resident off" },
		{ GPUPROJ_OPTION_OCCUPANCY_TERM, "little little-source linear" },
		{ GPUPROJ_OPTION_CLOCK, "sustained burst auto" },
		{ GPUPROJ_OPTION_COMPUTE, "fp issue" },
		{ GPUPROJ_OPTION_RATES, "sustained datasheet" },
		{ GPUPROJ_OPTION_LAUNCH_FLOOR, "on off" },
		{ GPUPROJ_OPTION_FP32, "fma dense" },
	};
	enum gpuproj_l2_capacity l2 = GPUPROJ_L2_CAPACITY_DEFAULT;
	const struct gpuproj_word *w;
	char joined[128], upper[32];
	size_t i, j, n, len;
	int v;

	ck_assert_int_eq(ARRAY_LENGTH(cases), GPUPROJ_OPTION_COUNT);
	for (i = 0; i < ARRAY_LENGTH(cases); i++) {
		w = gpuproj_option_words(cases[i].o, &n);
		ck_assert_ptr_nonnull(w);
		joined[0] = '\0';
		for (j = 0; j < n; j++) {
			len = strlen(joined);
			snprintf(joined + len, sizeof(joined) - len, "%s%s", j ? " " : "",
				 w[j].name);
			ck_assert_int_ne(w[j].value, 0);
			ck_assert_str_eq(gpuproj_option_name(cases[i].o, w[j].value), w[j].name);
			for (len = 0; w[j].name[len] && len + 1 < sizeof(upper); len++)
				upper[len] = (char)toupper((unsigned char)w[j].name[len]);
			upper[len] = '\0';
			v = -1;
			ck_assert_int_eq(gpuproj_option_from_name(cases[i].o, upper, &v),
					 GPUPROJ_OK);
			ck_assert_int_eq(v, w[j].value);
		}
		ck_assert_str_eq(joined, cases[i].words);
		ck_assert_str_eq(gpuproj_option_name(cases[i].o, 0), "default");
		ck_assert_str_eq(gpuproj_option_name(cases[i].o, 99), "?");
		v = -1;
		ck_assert_int_eq(gpuproj_option_from_name(cases[i].o, "Default", &v),
				 GPUPROJ_OK);
		ck_assert_int_eq(v, 0);
		ck_assert_int_eq(gpuproj_option_from_name(cases[i].o, "bogus", &v),
				 GPUPROJ_E_INVAL);
		ck_assert_int_eq(gpuproj_option_from_name(cases[i].o, NULL, &v), GPUPROJ_E_INVAL);
		ck_assert_int_eq(v, 0);
	}
	ck_assert_ptr_null(gpuproj_option_words(GPUPROJ_OPTION_COUNT, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert_str_eq(gpuproj_option_name(GPUPROJ_OPTION_COUNT, 1), "?");
	ck_assert_int_eq(gpuproj_option_from_name(GPUPROJ_OPTION_COUNT, "on", &v), GPUPROJ_E_INVAL);
	/* The typed parsers are the same tables. */
	ck_assert_int_eq(gpuproj_l2_capacity_from_name("On", &l2), GPUPROJ_OK);
	ck_assert_int_eq(l2, GPUPROJ_L2_CAPACITY_ON);
	ck_assert_int_eq(gpuproj_l2_capacity_from_name("maybe", &l2), GPUPROJ_E_INVAL);
	ck_assert_int_eq(l2, GPUPROJ_L2_CAPACITY_ON);
	ck_assert_str_eq(gpuproj_l2_capacity_name(GPUPROJ_L2_CAPACITY_OFF), "off");
	ck_assert_str_eq(gpuproj_occupancy_term_name(GPUPROJ_OCC_TERM_LITTLE_SOURCE),
			 "little-source");
}
END_TEST

/* ---------------------------------------------------------------- quant */

/*
 * FP32 kernel on ModelTgt: M_fp32 = 1e6, M_fma32 = 6e5, M_fp64 = 0,
 * M_int = 1e6, M_ldst = 1e6, M_inst = 1e5 warp instructions, 1e6 DRAM bytes.
 *   K_type fp32; W_comp = 1.6e6 (2); W_traf = 1e6 (3);
 *   E_mix = 1.6e6 / 2e6 = 0.8 (4); I_ops = 1e6 (8), I_total = 32·1e5 = 3.2e6 (9);
 *   D_ops = D_ldst = 0.3125, D_other = 0.375 (5–7).
 * Device: T_SP = 3200 (max_gflops, measured), T_ldst = 1000, T_add = 2000,
 *   B_mem = 400 (measured).
 *   T_op = 3200 (10); W_op = 1, W_ldst = 1600/1000 = 1.6, W_other = 1600/2000 = 0.8
 *   (11–13); C_op = 0.3125, C_ldst = 0.5, C_other = 0.3 (14–16);
 *   E_instr = 0.3125/1.1125 (17); T'_op = 0.8·E_instr·3200 = 800/1.1125
 *   = 719.1 GFLOP/s (18).
 *   O_krn = 1.6, O_dev = 719.1/400 = 1.798 ≥ O_krn → memory-bound:
 *   T_predicted = 1.6·400 = 640 (19); time = 1.6e6/640 = 2500 ns.
 * Interval [2500, 2500 + W_comp/T'_op = 2500 + 2225] ns.
 */
START_TEST(quant_memory_bound)
{
	struct gpuproj_kernel *k = kernel("mix", 1e6, 100, 256, 32, 0);
	struct gpuproj_quant_kernel kp;
	struct gpuproj_quant_device dp;
	struct gpuproj_quant q;
	struct gpuproj_projection p;

	set(k, GPUPROJ_M_INST_FP32, 1e6);
	set(k, GPUPROJ_M_INST_FP32_FMA, 6e5);
	set(k, GPUPROJ_M_INST_FP64, 0);
	set(k, GPUPROJ_M_INST_INT, 1e6);
	set(k, GPUPROJ_M_INST_LDST, 1e6);
	set(k, GPUPROJ_M_INST_WARP, 1e5);
	set(k, GPUPROJ_M_BYTES_DRAM, 1e6);
	ck_assert_int_eq(gpuproj_quant_kernel_params(k, 32, &kp, NULL, 0), GPUPROJ_OK);
	ck_assert_int_eq(kp.type, GPUPROJ_KTYPE_FP32);
	ck_assert_rel(kp.w_comp, 1.6e6);
	ck_assert_rel(kp.w_traf, 1e6);
	ck_assert_rel(kp.e_mix, 0.8);
	ck_assert_rel(kp.i_total, 3.2e6);
	ck_assert_rel(kp.d_ops, 0.3125);
	ck_assert_rel(kp.d_ldst, 0.3125);
	ck_assert_rel(kp.d_other, 0.375);
	gpuproj_quant_device_params(tgt, &dp);
	ck_assert_rel(dp.p[GPUPROJ_QP_T_SP].value, 3200);
	ck_assert_str_eq(dp.p[GPUPROJ_QP_T_SP].key, "max_gflops.fp32_fma");
	ck_assert_int_eq(dp.p[GPUPROJ_QP_T_SP].basis, GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(dp.p[GPUPROJ_QP_T_LDST].basis, GPUPROJ_BASIS_DERIVED);
	ck_assert_int_eq(dp.p[GPUPROJ_QP_B_MEM].basis, GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(gpuproj_quant_predict(&kp, &dp, &q, NULL, 0), GPUPROJ_OK);
	ck_assert_rel(q.w_ldst, 1.6);
	ck_assert_rel(q.w_other, 0.8);
	ck_assert_rel(q.e_instr, 0.3125 / 1.1125);
	ck_assert_rel(q.t_op_adj, 800 / 1.1125);
	ck_assert(!q.compute_bound);
	ck_assert_rel(q.t_predicted, 640);
	ck_assert_rel(q.time_ns, 2500);
	ck_assert_rel(q.t_comp_ns, 2225);

	p = project_opt("quant", k, src, tgt, NULL);
	ck_assert_ok(p);
	ck_assert_str_eq(p.note, ""); /* notes only when asked for */
	p = project("quant", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2500);
	ck_assert_rel(p.lo_ns, 2500);
	ck_assert_rel(p.hi_ns, 4725);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);
	/* The output says which device parameters were measured and which derived. */
	ck_assert_str_eq(p.note, "K_type fp32; measured: T_SP B_mem; derived: T_add T_ldst");
	/* On ModelSrc T_SP is a peak with an "estimate" basis. */
	p = project("quant", k, src, src);
	ck_assert_ok(p);
	ck_assert_str_eq(p.note, "K_type fp32; measured: B_mem; derived: T_add T_ldst; "
			 "estimate: T_SP");
}
END_TEST

/*
 * All-FMA FP32 kernel on ModelTgt: M_fp32 = M_fma32 = 1e6, M_inst = 31250
 * (I_total = 1e6 = I_ops: D_ops = 1), no ld/st, 1e5 DRAM bytes.
 *   W_comp = 2e6, E_mix = 1, E_instr = 1, T'_op = 3200; O_krn = 20 > O_dev =
 *   3200/400 = 8: compute-bound, time = 2e6/3200 = 625 ns, interval
 *   [625, 625 + 1e5/400 = 875].
 * Integer kernel (M_fp32 = M_fp64 = 0, M_int = 2e6, M_inst = 1e5, 1e5 B):
 *   K_type int, W_comp = 2e6, E_mix = 0.5, D_ops = 2e6/3.2e6 = 0.625,
 *   D_other = 0.375; T_op = T_int = 4000, W_op = 3200/4000 = 0.8, W_other = 0.8,
 *   E_instr = 0.5/(0.5+0.3) = 0.625, T'_op = 0.5·0.625·4000 = 1250;
 *   O_krn = 20 > 1250/400: time = 2e6/1250 = 1600 ns.
 */
START_TEST(quant_compute_bound_and_types)
{
	struct gpuproj_kernel *k = kernel("fma", 1e6, 100, 256, 32, 0);
	struct gpuproj_kernel *ki = kernel("int", 1e6, 100, 256, 32, 0);
	struct gpuproj_kernel *kd = kernel("dp", 1e6, 100, 256, 32, 0);
	struct gpuproj_quant_kernel kp;
	struct gpuproj_projection p;

	set(k, GPUPROJ_M_INST_FP32, 1e6);
	set(k, GPUPROJ_M_INST_FP32_FMA, 1e6);
	set(k, GPUPROJ_M_INST_FP64, 0);
	set(k, GPUPROJ_M_INST_INT, 0);
	set(k, GPUPROJ_M_INST_LDST, 0);
	set(k, GPUPROJ_M_INST_WARP, 31250);
	set(k, GPUPROJ_M_BYTES_DRAM, 1e5);
	p = project("quant", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 625);
	ck_assert_rel(p.hi_ns, 875);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_COMPUTE);

	set(ki, GPUPROJ_M_INST_FP32, 0);
	set(ki, GPUPROJ_M_INST_FP64, 0);
	set(ki, GPUPROJ_M_INST_INT, 2e6);
	set(ki, GPUPROJ_M_INST_LDST, 0);
	set(ki, GPUPROJ_M_INST_WARP, 1e5);
	set(ki, GPUPROJ_M_BYTES_DRAM, 1e5);
	ck_assert_int_eq(gpuproj_quant_kernel_params(ki, 32, &kp, NULL, 0), GPUPROJ_OK);
	ck_assert_int_eq(kp.type, GPUPROJ_KTYPE_INT);
	ck_assert_rel(kp.e_mix, 0.5);
	ck_assert_rel(kp.d_ops, 0.625);
	p = project("quant", ki, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1600);
	ck_assert_ptr_nonnull(strstr(p.note, "K_type int; "));
	ck_assert_ptr_nonnull(strstr(p.note, "T_int"));

	/* K_type fp64 wins over fp32 (the seed's rule): W_comp = 4e5 + 2e5, E_mix = 6e5/8e5. */
	set(kd, GPUPROJ_M_INST_FP32, 1e6);
	set(kd, GPUPROJ_M_INST_FP64, 4e5);
	set(kd, GPUPROJ_M_INST_FP64_FMA, 2e5);
	set(kd, GPUPROJ_M_INST_INT, 0);
	set(kd, GPUPROJ_M_INST_LDST, 0);
	set(kd, GPUPROJ_M_INST_WARP, 1e5);
	set(kd, GPUPROJ_M_BYTES_DRAM, 1e6);
	ck_assert_int_eq(gpuproj_quant_kernel_params(kd, 32, &kp, NULL, 0), GPUPROJ_OK);
	ck_assert_int_eq(kp.type, GPUPROJ_KTYPE_FP64);
	ck_assert_rel(kp.w_comp, 6e5);
	ck_assert_rel(kp.e_mix, 0.75);
	ck_assert_rel(kp.i_ops, 4e5);
}
END_TEST

START_TEST(quant_missing_inputs)
{
	struct gpuproj_kernel *k = kernel("bare", 1e6, 100, 256, 32, 0);
	struct gpuproj_kernel *kf = kernel("nofma", 1e6, 100, 256, 32, 0);
	struct gpuproj_projection p;

	struct gpuproj_quant_kernel kp;

	/* Nothing to time (W_comp, formula 2): the one refusal. */
	set(k, GPUPROJ_M_BYTES_DRAM, 1e6);
	p = project("quant", k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_E_MISSING);
	ck_assert_str_eq(p.why, "quant needs inst.fp{16,32,64}.{fma,add,mul} or inst.int");

	/*
	 * No FMA count of the kernel's type: none assumed (the instruction mix,
	 * "issue lower bound"): W_comp = M_fp32 + 0 = 1e6, E_mix = 1e6 / 2e6 = 0.5.
	 */
	set(kf, GPUPROJ_M_INST_FP32, 1e6);
	set(kf, GPUPROJ_M_INST_FP64, 0);
	set(kf, GPUPROJ_M_INST_INT, 0);
	set(kf, GPUPROJ_M_INST_LDST, 0);
	set(kf, GPUPROJ_M_INST_WARP, 1e5);
	set(kf, GPUPROJ_M_BYTES_DRAM, 1e6);
	p = project("quant", kf, src, tgt);
	ck_assert_ok(p);
	ck_assert_uint_eq(p.assumed, 1u << GPUPROJ_ASSUME_MIX);
	ck_assert_int_eq(gpuproj_quant_kernel_params(kf, 32, &kp, NULL, 0), GPUPROJ_OK);
	ck_assert_rel(kp.w_comp, 1e6);
	ck_assert_rel(kp.e_mix, 0.5);

	/* targets-test.yaml's TgtGPU has no peak_giops nor ldst_shared_gops. */
	set(kf, GPUPROJ_M_INST_FP32_FMA, 0);
	p = project("quant", kf, src, gpuproj_targets_find(targets_test, "TgtGPU"));
	ck_assert_int_eq(p.status, GPUPROJ_E_MISSING);
	ck_assert_str_eq(p.why, "quant needs targets.yaml peak_giops.int32_add (T_add), "
			 "ldst_shared_gops (T_ldst)");
}
END_TEST

/* ------------------------------------------------------------------ irm */

/*
 * 1e6 warp instructions, transactions L1 4e6, L2 1.5e6, DRAM 1e6, 1 ms on
 * ModelSrc.
 * ModelSrc: GIPS = 10 SMs × 4 × 1 × 1 GHz = 40 (eq. 3); GTXN = 1000/32 = 31.25,
 *   400/32 = 12.5, 100/32 = 3.125; II = 0.25, 2/3, 1; rooflines
 *   min(GTXN·II, 40) = 7.8125, 8.3333, 3.125; achieved = 1e6/1e6 ns = 1 (eq. 4).
 * ModelTgt: GIPS = 20 × 4 × 1 × 2 = 160; GTXN = 62.5, 25, 12.5; rooflines
 *   15.625, 16.667, 12.5.
 * T_t = T_s·roof_s/roof_t: L1 5e5, L2 5e5, DRAM 2.5e5 → [2.5e5, 5e5], point
 * 3.75e5. Binding: stand-alone times inst 1e6/160 = 6250 ns, L1 4e6/62.5 =
 * 64000, L2 60000, DRAM 1e6/12.5 = 80000 → dram.
 * ModelAMD (wavefront 64, 1 scheduler/CU): inst = 1e6·32/64 = 5e5, GIPS = 10·1·1·1
 * = 10; same bandwidths as ModelSrc, half the instructions: II halves, each
 * roofline halves (all below 10), and T_t = T_s·(5e5/1e6)·2 = 1e6 at every level.
 */
START_TEST(irm_memory)
{
	struct gpuproj_kernel *k = kernel("irm", 1e6, 100, 256, 32, 0);
	struct gpuproj_kernel *kb = kernel("irmb", 1e6, 100, 256, 32, 0);
	struct gpuproj_projection p;
	struct gpuproj_irm s;

	set(k, GPUPROJ_M_INST_WARP, 1e6);
	set(k, GPUPROJ_M_SECTORS_L1, 4e6);
	set(k, GPUPROJ_M_SECTORS_L2, 1.5e6);
	set(k, GPUPROJ_M_SECTORS_DRAM, 1e6);
	ck_assert_int_eq(gpuproj_irm_compute(k, src, 32, 1e6, &s, NULL, 0), GPUPROJ_OK);
	ck_assert_rel(s.gips_peak, 40);
	ck_assert_rel(s.gips_achieved, 1);
	ck_assert_rel(s.ii[GPUPROJ_HL_L1], 0.25);
	ck_assert_rel(s.roofline[GPUPROJ_HL_L2], 12.5 / 1.5);
	ck_assert_rel(s.roofline[GPUPROJ_HL_DRAM], 3.125);

	p = project("irm", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L1], 5e5);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L2], 5e5);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_DRAM], 2.5e5);
	ck_assert_rel(p.lo_ns, 2.5e5);
	ck_assert_rel(p.hi_ns, 5e5);
	ck_assert_rel(p.point_ns, 3.75e5);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);

	ck_assert_int_eq(gpuproj_irm_compute(k, amd, 32, NAN, &s, NULL, 0), GPUPROJ_OK);
	ck_assert_rel(s.inst, 5e5);
	ck_assert_rel(s.gips_peak, 10);
	ck_assert(isnan(s.gips_achieved));
	p = project("irm", k, src, amd);
	ck_assert_ok(p);
	ck_assert_rel(p.lo_ns, 1e6);
	ck_assert_rel(p.hi_ns, 1e6);

	/* Bytes / 32 stand in for missing sectors. */
	set(kb, GPUPROJ_M_INST_WARP, 1e6);
	set(kb, GPUPROJ_M_BYTES_L1, 4e6 * 32);
	set(kb, GPUPROJ_M_BYTES_L2, 1.5e6 * 32);
	set(kb, GPUPROJ_M_BYTES_DRAM, 1e6 * 32);
	p = project("irm", kb, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 3.75e5);
}
END_TEST

/*
 * Instruction-bound: 1e6 warp instructions, 1e3 transactions per level,
 * 1 ms on ModelSrc. Every roofline is capped by GIPS: 40 on ModelSrc, 160 on
 * ModelTgt → T_t = 1e6·40/160 = 2.5e5 at every level, binding "instruction"
 * (1e6/160 = 6250 ns ≫ 1e3/12.5 = 80 ns). On ModelAMD: 5e5 wavefront
 * instructions at 10 GIPS: T_t = 1e6·(5e5/1e6)·40/10 = 2e6.
 */
START_TEST(irm_instruction_bound)
{
	struct gpuproj_kernel *k = kernel("alu", 1e6, 100, 256, 32, 0);
	struct gpuproj_projection p;

	set(k, GPUPROJ_M_INST_WARP, 1e6);
	set(k, GPUPROJ_M_SECTORS_L1, 1e3);
	set(k, GPUPROJ_M_SECTORS_L2, 1e3);
	set(k, GPUPROJ_M_SECTORS_DRAM, 1e3);
	p = project("irm", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2.5e5);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_INSTRUCTION);
	p = project("irm", k, src, amd);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2e6);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_INSTRUCTION);

	/*
	 * With 2e10 FP16 tensor FLOP behind those instructions: targets-models.yaml
	 * gives no tensor rates (unknown), so the work runs at the FP32 FMA rate
	 * (gpuproj_tensor_path()): t_tc = 2e10/2e12 = 1e-2 s on ModelSrc,
	 * 2e10/3.2e12 = 6.25e-3 s on ModelTgt (its measured FP32 rate), far above
	 * issue (2.5e-5 s): the instruction ceilings become 1e6/1e-2 = 0.1 and
	 * 0.16 G inst/s, T_t = 1e6 · 0.1/0.16 = 6.25e5 ns.
	 */
	set(k, GPUPROJ_M_FLOP_TENSOR_FP16, 2e10);
	{
		struct gpuproj_irm s;

		ck_assert_int_eq(gpuproj_irm_compute(k, src, 32, 1e6, &s, NULL, 0), GPUPROJ_OK);
		ck_assert_rel(s.t_tensor, 1e-2);
		ck_assert_rel(s.gips_peak, 0.1);
	}
	p = project("irm", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 6.25e5);
}
END_TEST

START_TEST(irm_missing_inputs)
{
	struct gpuproj_kernel *k = kernel("half", 1e6, 100, 256, 32, 0);
	struct gpuproj_projection p;

	struct gpuproj_irm irm;

	set(k, GPUPROJ_M_SECTORS_L1, 1e3);
	set(k, GPUPROJ_M_BYTES_DRAM, 1e3);
	p = project("irm", k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_E_MISSING);
	ck_assert_str_eq(p.why, "irm needs inst.warp (or thread instruction counts)");
	/*
	 * No inst.warp: the thread instructions counted / 32 (full warps, a lower
	 * bound): 3.2e4 FP32 → 1000; no L2 level (neither sectors nor bytes).
	 */
	set(k, GPUPROJ_M_INST_FP32, 3.2e4);
	p = project("irm", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_uint_eq(p.assumed, 1u << GPUPROJ_ASSUME_MIX | 1u << GPUPROJ_ASSUME_L2);
	ck_assert(isnan(p.level_ns[GPUPROJ_HL_L2]));
	ck_assert_int_eq(gpuproj_irm_compute(k, src, 32, NAN, &irm, NULL, 0), GPUPROJ_OK);
	ck_assert_rel(irm.inst, 1000.0);
	ck_assert(!irm.valid[GPUPROJ_HL_L2]);
}
END_TEST

/* ------------------------------------------------------------ occupancy */

/*
 * Base kernel: 1e5 ns on the source, blocks of 256 threads (w = 8), 64
 * registers (r_w = 2048: 8 warps per sub-partition, 32 per SM → 4 blocks),
 * 1e6 FFMA = 2e6 FLOP, 1e7 DRAM bytes.
 * Occupancy: ModelSrc and ModelTgt both B = 4 (registers), O = 32/64 = 0.5.
 * Roof (eq. 9), AI = 0.2 FLOP/B: ModelSrc min(2e12, 0.2·1e11) = 2e10;
 *   ModelTgt min(3.2e12, 0.2·4e11) = 8e10; ModelSrc2x min(4e12, 0.2·2e11) = 4e10.
 */
static struct gpuproj_kernel *
occ_kernel(const char *name, uint32_t grid, uint32_t smem, double ffma)
{
	struct gpuproj_kernel *k = kernel(name, 1e5, grid, 256, 64, smem);

	fp(k, ffma);
	set(k, GPUPROJ_M_BYTES_DRAM, 1e7);
	return k;
}

/*
 * 1000 blocks, per-SM waves: ModelSrc 100 waves, ModelTgt 50, both full (u = 1).
 * T_t = 1e5 · (2e10/8e10) · (0.5/0.5) = 2.5e4 ns (eq. 12 via eq. 4), interval
 * [2.5e4, 2.5e4] (no occupancy effect), binding dram.
 * With 40000 B of shared memory per block:
 *   ModelSrc s = ⌈40000/256⌉·256 = 40192 → ⌊98304/40192⌋ = 2 blocks, O = 0.25;
 *   ModelTgt s = ⌈41024/128⌉·128 = 41088 → ⌊167936/41088⌋ = 4 (= registers), O = 0.5.
 *   T_t = 2.5e4 · 0.25/0.5 = 1.25e4, interval [1.25e4, 2.5e4] (plain roofline
 *   ratio at the top). The other way, ModelTgt → ModelSrc: 1e5·(8e10/2e10)·(0.5/0.25)
 *   = 8e5, binding "occupancy" (the target holds fewer warps per SM).
 * FLOP = 0 (eqs. 6–8): T_t = 1e5 · (0.5·1e11)/(0.5·4e11) = 2.5e4.
 */
START_TEST(occupancy_transfer)
{
	struct gpuproj_kernel *k = occ_kernel("base", 1000, 0, 1e6);
	struct gpuproj_kernel *ks = occ_kernel("smem", 1000, 40000, 1e6);
	struct gpuproj_kernel *km = occ_kernel("copy", 1000, 0, 0);
	struct gpuproj_occmodel o;
	struct gpuproj_projection p;

	ck_assert_int_eq(gpuproj_occmodel_compute(k, tgt, 1.0, GPUPROJ_WAVES_SM, &o, NULL, 0),
			 GPUPROJ_OK);
	ck_assert_int_eq(o.occ.blocks_per_sm, 4);
	ck_assert_rel(o.occ.occupancy, 0.5);
	ck_assert_rel(o.waves, 50);
	ck_assert_rel(o.wave_fill, 1);
	ck_assert_rel(o.peak_compute, 3.2e12);
	ck_assert_rel(o.roof, 8e10);
	ck_assert(o.memory_bound);

	p = project("occupancy", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2.5e4);
	ck_assert_rel(p.lo_ns, 2.5e4);
	ck_assert_rel(p.hi_ns, 2.5e4);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);

	ck_assert_int_eq(gpuproj_occmodel_compute(ks, src, 1.0, GPUPROJ_WAVES_SM, &o, NULL, 0),
			 GPUPROJ_OK);
	ck_assert_int_eq(o.occ.blocks_per_sm, 2);
	ck_assert_int_eq(o.occ.smem_per_block, 40192);
	p = project("occupancy", ks, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1.25e4);
	ck_assert_rel(p.lo_ns, 1.25e4);
	ck_assert_rel(p.hi_ns, 2.5e4);
	ck_assert_ptr_nonnull(strstr(p.note, "occupancy 0.25 (shared) -> 0.50 (registers+shared)"));
	p = project("occupancy", ks, tgt, src);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 8e5);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_OCCUPANCY);

	p = project("occupancy", km, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2.5e4);
}
END_TEST

/*
 * Waves, ModelSrc → ModelSrc2x (twice the SMs and roofs: roof ratio 1/2).
 *   1000 blocks, "sm": 100 and 50 full waves → T = 1e5·0.5 = 5e4.
 *   5 blocks, "sm": fills 5/10 and 5/20 → T = 1e5·0.5·(0.5/0.25) = 1e5: fewer
 *     blocks than SMs, no gain from more SMs; binding "latency".
 *   11 blocks, "sm": 2 waves on 10 SMs, fill 11/20; 1 wave on 20, fill 11/20 →
 *     5e4: the source paid a whole second wave for one block.
 *   40 blocks, "resident" (B·SMs = 40 and 80): fills 1 and 0.5 → 1e5 (one
 *     partial wave on the target); "sm": 4 and 2 full waves → 5e4; "off" → 5e4.
 */
START_TEST(wave_quantisation)
{
	struct gpuproj_model_options res = { .waves = GPUPROJ_WAVES_RESIDENT, .notes = true };
	struct gpuproj_model_options off = { .waves = GPUPROJ_WAVES_OFF };
	struct gpuproj_projection p;

	p = project("occupancy", occ_kernel("g1000", 1000, 0, 1e6), src, x2);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 5e4);
	p = project("occupancy", occ_kernel("g5", 5, 0, 1e6), src, x2);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1e5);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_LATENCY);
	p = project("occupancy", occ_kernel("g11", 11, 0, 1e6), src, x2);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 5e4);
	p = project_opt("occupancy", occ_kernel("g40", 40, 0, 1e6), src, x2, &res);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1e5);
	ck_assert_ptr_nonnull(strstr(p.note, "resident waves 1 -> 1 (fill 1.00 -> 0.50)"));
	p = project("occupancy", occ_kernel("g40", 40, 0, 1e6), src, x2);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 5e4);
	p = project_opt("occupancy", occ_kernel("g5", 5, 0, 1e6), src, x2, &off);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 5e4);
	/* A value outside the enum is refused, not turned into a NaN wave fill. */
	{
		struct gpuproj_model_options bad = { .waves = (enum gpuproj_waves)99 };
		struct gpuproj_occmodel o;
		char why[128] = "";

		ck_assert_int_eq(gpuproj_occmodel_compute(occ_kernel("g7", 7, 0, 1e6), src, 1.0,
							  (enum gpuproj_waves)99, &o, why,
							  sizeof(why)),
				 GPUPROJ_E_INVAL);
		ck_assert_str_eq(why, "unknown wave quantisation 99");
		p = project_opt("occupancy", occ_kernel("g7", 7, 0, 1e6), src, x2, &bad);
		ck_assert_int_eq(p.status, GPUPROJ_E_INVAL);
		ck_assert(isnan(p.point_ns));
	}
}
END_TEST

START_TEST(occupancy_missing_and_unfit)
{
	struct gpuproj_kernel *k = kernel("bare", 1e5, 100, 256, 0, 0);
	struct gpuproj_kernel *big = occ_kernel("big", 100, 100 * 1024, 1e6);
	struct gpuproj_projection p;

	p = project("occupancy", k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_E_MISSING);
	ck_assert_str_eq(p.why, "occupancy needs inst.fp{16,32,64}.{fma,add,mul} or bytes.dram");
	/* 100 KiB per block does not fit ModelSrc's 96 KiB. */
	p = project("occupancy", big, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_E_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(p.why, "does not fit on ModelSrc"));
	ck_assert(isnan(p.point_ns));
}
END_TEST

/*
 * hroof-occ, Little's-law term (src/model-hroof-occ.c). The smem kernel:
 * 1000 blocks of 256 threads (8 warps), 40000 B shared per block, 1e7 B at
 * L1, L2 and DRAM (all DRAM hits), warp efficiency 1, FP32 FMA 1e6, 1e5 ns.
 * hroof: 2.5e4 ns at every level (occupancy_transfer's comment).
 * Source ModelSrc: 2 blocks/SM × 10 SMs → W_s = 8·min(1000, 20) = 160 warps;
 *   T_roof,s = t_DRAM = 1e7 B / 1e11 B/s = 1e5 ns = T_s → e_s = 1;
 *   D_s = 1e7 · 400 = 4e9 B·ns; b_lo = 4e9 / (160 · 1e5) = 250 B;
 *   b_life = 1e7 / (1000 · 8) = 1250 B → b = 1250 B.
 * Target ModelTgt: 4 blocks/SM × 20 SMs → W_t = 640; D_t = 1e7 · 500 = 5e9;
 *   T_lat,t = 5e9 / (640 · 1250) = 6250 ns < 2.5e4: the warps cover the
 *   latency, and the projection is hroof's exactly (both grids fill their
 *   waves: u = 1). The linear term instead gives 2.5e4 · 0.25/0.5 = 1.25e4.
 */
START_TEST(hroof_occ)
{
	struct gpuproj_model_options lin = { .notes = true,
					     .occupancy_term = GPUPROJ_OCC_TERM_LINEAR };
	struct gpuproj_kernel *k = occ_kernel("hocc", 1000, 40000, 1e6);
	struct gpuproj_model_details d;
	struct gpuproj_projection p, h;
	size_t i;

	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	set(k, GPUPROJ_M_BYTES_L1, 1e7);
	set(k, GPUPROJ_M_BYTES_L2, 1e7);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	h = project("hroof", k, src, tgt);
	ck_assert_ok(h);
	ck_assert_rel(h.point_ns, 2.5e4);
	p = project("hroof-occ", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, h.point_ns);
	ck_assert_rel(p.lo_ns, h.lo_ns);
	ck_assert_rel(p.hi_ns, h.hi_ns);
	for (i = 0; i < GPUPROJ_HL_COUNT; i++)
		ck_assert_rel(p.level_ns[i], h.level_ns[i]);
	ck_assert_int_eq(p.binding, h.binding);
	ck_assert_msg(strstr(p.note, "Little: warps 160 -> 640, 1.25e+03 B/warp in flight "
				     "(source 250, e 1.00), floor 6.25 us"), "%s", p.note);
	ck_assert_int_eq(gpuproj_model_details(gpuproj_model_find("hroof-occ"), k, src, tgt, NULL,
					       &d), GPUPROJ_OK);
	for (i = 0; i < d.n && strcmp(d.items[i].name, "tgt.latency_time") != 0; i++)
		;
	ck_assert_uint_lt(i, d.n);
	ck_assert_rel(d.items[i].value, 6250);
	for (i = 0; i < d.n && strcmp(d.items[i].name, "tgt.latency_dram") != 0; i++)
		;
	ck_assert_uint_lt(i, d.n);
	ck_assert_str_eq(d.items[i].key, "latency_ns.dram");

	/* The previous term, [Srivastava-nd] eq. 4, as an option. */
	p = project_opt("hroof-occ", k, src, tgt, &lin);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1.25e4);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_DRAM], 1.25e4);
	ck_assert_ptr_nonnull(strstr(p.note, "linear occupancy factor 0.5"));
	k->regs_per_thread = 0;
	p = project_opt("hroof-occ", k, src, tgt, &lin);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1.25e4);
	ck_assert_ptr_nonnull(strstr(p.note, "regs_per_thread unknown: no register limit"));
	/* What hroof lacks, hroof-occ assumes as hroof does (and says so). */
	p = project("hroof-occ", occ_kernel("nol1", 1000, 0, 1e6), src, tgt);
	ck_assert_ok(p);
	ck_assert_uint_eq(p.assumed, 1u << GPUPROJ_ASSUME_SHARED | 1u << GPUPROJ_ASSUME_WARPS |
					     1u << GPUPROJ_ASSUME_L1 | 1u << GPUPROJ_ASSUME_L2);
}
END_TEST

/*
 * A streaming kernel that cannot hide the target's latency: 20 blocks of 256
 * threads, no FLOP, 1.6e5 B at every level (DRAM hits), no shared memory.
 * Every block is resident at once on both GPUs: W_s = W_t = 8 · 20 = 160.
 * ModelSrc, T_s = 1600 ns = 1.6e5 B / 1e11 B/s (e_s = 1):
 *   D_s = 1.6e5 · 400 = 6.4e7, b_lo = 6.4e7 / (160 · 1600) = 250 B,
 *   b_life = 1.6e5 / 160 = 1000 B → b = 1000 B.
 * ModelTgt: hroof (time space) 1600 · 1e11/4e11 = 400 ns at each level;
 *   waves: ⌈20/10⌉ = 2 full waves on ModelSrc, 1 full on ModelTgt → u = 1;
 *   D_t = 1.6e5 · 500 = 8e7, T_lat,t = 8e7 / (160 · 1000) = 500 ns > 400:
 *   point 500 ns, binding "occupancy" (too few warps to hide the latency).
 * little-source, T_s = 3200 ns (e_s = 0.5, σ = 0: latency-bound source):
 *   b = b_lo = 1.6e5 · 400 / (160 · 3200) = 125 B, T_lat,t = 8e7/(160·125) =
 *   4000 ns = T_s · (500/400): more bandwidth does not help, the longer
 *   latency slows it; the default (σ = 1) keeps b = 1000 B: max(800, 500).
 * ModelAMD has no latency_ns: no term, hroof × wave fill, and the note says so.
 */
START_TEST(hroof_occ_latency_floor)
{
	struct gpuproj_model_options srcopt = {
		.notes = true, .occupancy_term = GPUPROJ_OCC_TERM_LITTLE_SOURCE };
	struct gpuproj_kernel *k = kernel("stream", 1600, 20, 256, 16, 0);
	struct gpuproj_kernel *k2 = kernel("stream-slow", 3200, 20, 256, 16, 0);
	struct gpuproj_kernel *kk[2] = { k, k2 };
	struct gpuproj_projection p;
	int i;

	for (i = 0; i < 2; i++) {
		fp(kk[i], 0);
		set(kk[i], GPUPROJ_M_BYTES_L1, 1.6e5);
		set(kk[i], GPUPROJ_M_BYTES_L2, 1.6e5);
		set(kk[i], GPUPROJ_M_BYTES_DRAM, 1.6e5);
		set(kk[i], GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	}
	p = project("hroof", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 400);
	p = project("hroof-occ", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 500);
	ck_assert_rel(p.lo_ns, 500);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L2], 500);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_OCCUPANCY);

	p = project_opt("hroof-occ", k2, src, tgt, &srcopt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 4000);
	p = project("hroof-occ", k2, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 800);

	p = project("hroof-occ", k, src, amd);
	ck_assert_ok(p);
	ck_assert_ptr_nonnull(strstr(p.note, "no latency_ns for a level with traffic on ModelAMD"));
}
END_TEST

/*
 * gpuproj_latency_hiding() on its own: e_s = 0.7 lies halfway between 0.5
 * and 0.9, so with from_source σ = 0.5 and b = √(b_lo · b_hi):
 *   b_lo = 4e9 / (100 · 1e5) = 400 B, b_life = 1600 B → b = 800 B,
 *   T_lat,t = 8e9 / (200 · 800) = 5e4 ns.
 * Without from_source σ = 1: b = 1600, T_lat,t = 2.5e4. Bad inputs: INVAL.
 */
START_TEST(latency_hiding_fn)
{
	struct gpuproj_latency_hiding lh = {
		.src_ns = 1e5, .src_roof_ns = 7e4, .src_warps = 100, .tgt_warps = 200,
		.src_lat_bytes = 4e9, .tgt_lat_bytes = 8e9, .life_bytes = 1600,
		.from_source = true,
	};

	ck_assert_int_eq(gpuproj_latency_hiding(&lh), GPUPROJ_OK);
	ck_assert_rel(lh.efficiency, 0.7);
	ck_assert_rel(lh.blend, 0.5);
	ck_assert_rel(lh.mlp_lo, 400);
	ck_assert_rel(lh.mlp, 800);
	ck_assert_rel(lh.tgt_ns, 5e4);
	lh.from_source = false;
	ck_assert_int_eq(gpuproj_latency_hiding(&lh), GPUPROJ_OK);
	ck_assert_rel(lh.mlp, 1600);
	ck_assert_rel(lh.tgt_ns, 2.5e4);
	lh.tgt_warps = 0;
	ck_assert_int_eq(gpuproj_latency_hiding(&lh), GPUPROJ_E_INVAL);
	ck_assert(isnan(lh.tgt_ns));
	lh.tgt_warps = 200;
	lh.src_ns = NAN;
	ck_assert_int_eq(gpuproj_latency_hiding(&lh), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_latency_hiding(NULL), GPUPROJ_E_INVAL);
}
END_TEST

/*
 * Datasheet rates (model.h, enum gpuproj_rates): gpuproj_target_datasheet()
 * sets ModelTgt's DRAM to its peak_bw_gbs 500 GB/s (bw_gbs 400) and clears
 * max_gflops (3200), so FP32 FMA is the peak 4000; ModelSrc: DRAM 120 (bw
 * 100), FP32 2000 either way (no max_gflops).
 * A compute-bound kernel (1e12 FFMA, 1e3 B per level) ModelSrc → ModelTgt,
 *   hroof: sustained 1.6e6·2000/3200 = 1e6 ns; datasheet 1.6e6·2000/4000 =
 *   8e5 ns.
 * A DRAM-bound kernel (no FLOP, 1e9 B at every level) ModelSrc → ModelTgt,
 *   hroof: its time scales by the DRAM rates (t_DRAM = 1e9/BW dominates on
 *   both): sustained 1e7·100/400 = 2.5e6 ns; datasheet 1e7·120/500 = 2.4e6.
 * naive takes the peaks either way (1e7·120/500 = 2.4e6); onto its own GPU a
 * kernel keeps its measured time.
 */
START_TEST(datasheet_rates)
{
	struct gpuproj_model_options ds = { .rates = GPUPROJ_RATES_DATASHEET };
	struct gpuproj_model_options sus = { .rates = GPUPROJ_RATES_SUSTAINED };
	struct gpuproj_target g;
	struct gpuproj_kernel *kc, *km;
	struct gpuproj_projection p;
	enum gpuproj_rates r = GPUPROJ_RATES_DEFAULT;

	gpuproj_target_datasheet(tgt, &g);
	ck_assert_rel(g.bw_gbs[GPUPROJ_LEVEL_DRAM], 500);
	ck_assert_rel(g.bw_gbs[GPUPROJ_LEVEL_L2], 800);
	ck_assert(isnan(g.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA]));
	ck_assert_rel(gpuproj_target_gflops(&g, GPUPROJ_FP32, GPUPROJ_OP_FMA, NULL), 4000);
	ck_assert_rel(tgt->bw_gbs[GPUPROJ_LEVEL_DRAM], 400);
	ck_assert_rel(tgt->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 3200);

	ck_assert_int_eq(gpuproj_rates_default(), GPUPROJ_RATES_SUSTAINED);
	ck_assert_int_eq(gpuproj_rates_from_name("DataSheet", &r), GPUPROJ_OK);
	ck_assert_int_eq(r, GPUPROJ_RATES_DATASHEET);
	ck_assert_int_eq(gpuproj_rates_from_name("peak", &r), GPUPROJ_E_INVAL);
	ck_assert_int_eq(r, GPUPROJ_RATES_DATASHEET);
	ck_assert_str_eq(gpuproj_rates_name(GPUPROJ_RATES_SUSTAINED), "sustained");

	kc = kernel("rates-compute", 1.6e6, 1000, 256, 32, 0);
	fp(kc, 1e12);
	set(kc, GPUPROJ_M_WARP_EFFICIENCY, 1);
	set(kc, GPUPROJ_M_BYTES_L1, 1e3);
	set(kc, GPUPROJ_M_BYTES_L2, 1e3);
	set(kc, GPUPROJ_M_BYTES_DRAM, 1e3);
	set(kc, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	p = project_opt("hroof", kc, src, tgt, &sus);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1e6);
	p = project_opt("hroof", kc, src, tgt, &ds);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 8e5);
	p = project_opt("hroof", kc, tgt, tgt, &ds);
	ck_assert_rel(p.point_ns, 1.6e6);

	km = kernel("rates-dram", 1e7, 1000, 256, 32, 0);
	fp(km, 0);
	set(km, GPUPROJ_M_WARP_EFFICIENCY, 1);
	set(km, GPUPROJ_M_BYTES_L1, 1e9);
	set(km, GPUPROJ_M_BYTES_L2, 1e9);
	set(km, GPUPROJ_M_BYTES_DRAM, 1e9);
	set(km, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	p = project_opt("hroof", km, src, tgt, &sus);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2.5e6);
	p = project_opt("hroof", km, src, tgt, &ds);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2.4e6);
	p = project_opt("naive", km, src, tgt, &sus);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2.4e6);
	p = project_opt("naive", km, src, tgt, &ds);
	ck_assert_rel(p.point_ns, 2.4e6);
}
END_TEST

/*
 * The burst clock regime (model.h, enum gpuproj_clock). ModelTgt: FP32 FMA
 * 3200 GFLOP/s sustained, 4000 peak, boost_hold_us 100 (τ = 1e5 ns);
 * FP64 has no sustained rate (peak used, unchanged).
 *   gpuproj_target_burst(): T = 2e5 ns → share τ/T = 0.5 → 3200 + 800·0.5 =
 *   3600 (×1.125); T = 5e4 ≤ τ → 4000 (×1.25); T ≤ 0, or a GPU without
 *   boost_hold_us (ModelSrc) → unchanged (×1).
 * A compute-bound kernel (1e12 FFMA, 1e3 B per level) from ModelSrc (2000,
 * no boost_hold_us) onto ModelTgt, hroof: sustained T_t = T_s·2000/3200.
 *   T_s = 1.6e6 → 1e6 ns sustained. Burst: W = 1e6·3200 = T·3200 + 800·τ
 *   (the first τ at 4000) → T = 1e6 − 0.25·1e5 = 9.75e5 ns (≥ τ: consistent).
 *   T_s = 8e4 → 5e4 sustained; burst: all of it at the peak, T = 8e4·2000/4000
 *   = 4e4 ns (≤ τ).
 * The other way, ModelTgt → ModelSrc: the source's measured time sets its
 *   ceiling. T_s = 1.6e6: share 1e5/1.6e6 = 1/16 → 3250 → 1.6e6·3250/2000 =
 *   2.6e6 ns (sustained 2.56e6); T_s = 8e4 ≤ τ: 4000 → 1.6e5 ns (sustained
 *   1.28e5).
 * Onto its own GPU the kernel keeps its measured time in either regime.
 * Only FP64 with a sustained rate (a copy of ModelTgt: FP32 max removed,
 *   FP64 max 1000 of peak 2000): an FP64 kernel of 1e6 ns from ModelSrc (FP64
 *   1000) projects to 1e6 sustained, 1e6 − (1000/1000)·1e5 = 9e5 ns in burst:
 *   the FP64 blend counts though the FP32 factor stays 1.
 */
START_TEST(burst_clock)
{
	struct gpuproj_model_options burst = { .notes = true, .clock = GPUPROJ_CLOCK_BURST };
	struct gpuproj_target g, g64;
	struct gpuproj_kernel *k[2], *k64;
	struct gpuproj_projection p;
	struct gpuproj_model_details d;
	struct gpuproj_quant_device qd;
	enum gpuproj_clock c = GPUPROJ_CLOCK_DEFAULT;
	const double ts[2] = { 1.6e6, 8e4 }, sus[2] = { 1e6, 5e4 }, bur[2] = { 9.75e5, 4e4 };
	const double back_sus[2] = { 2.56e6, 1.28e5 }, back_bur[2] = { 2.6e6, 1.6e5 };
	size_t i;
	int m;

	ck_assert_rel(gpuproj_target_burst(tgt, 2e5, &g), 1.125);
	ck_assert_rel(g.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 3600);
	ck_assert_rel(g.burst_share, 0.5);
	ck_assert(isnan(g.max_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA]));
	ck_assert_rel(g.peak_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA], 2000);
	ck_assert_rel(tgt->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 3200);
	ck_assert_rel(gpuproj_target_burst(tgt, 5e4, &g), 1.25);
	ck_assert_rel(g.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 4000);
	ck_assert_rel(gpuproj_target_burst(tgt, 0, &g), 1.0);
	ck_assert_rel(g.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 3200);
	ck_assert_rel(gpuproj_target_burst(tgt, NAN, &g), 1.0);
	ck_assert_rel(gpuproj_target_burst(tgt, INFINITY, &g), 1.0);
	ck_assert(g.burst_share == 0);
	ck_assert_rel(gpuproj_target_burst(src, 5e4, &g), 1.0);
	ck_assert_rel(tgt->boost_hold_us, 100);
	ck_assert(isnan(src->boost_hold_us));

	ck_assert_int_eq(gpuproj_clock_default(), GPUPROJ_CLOCK_SUSTAINED);
	ck_assert_int_eq(gpuproj_clock_from_name("BURST", &c), GPUPROJ_OK);
	ck_assert_int_eq(c, GPUPROJ_CLOCK_BURST);
	ck_assert_int_eq(gpuproj_clock_from_name("boost", &c), GPUPROJ_E_INVAL);
	ck_assert_int_eq(c, GPUPROJ_CLOCK_BURST);
	ck_assert_str_eq(gpuproj_clock_name(GPUPROJ_CLOCK_SUSTAINED), "sustained");

	for (i = 0; i < 2; i++) {
		k[i] = kernel(i ? "burst-short" : "burst-long", ts[i], 1000, 256, 32, 0);
		fp(k[i], 1e12);
		set(k[i], GPUPROJ_M_WARP_EFFICIENCY, 1);
		set(k[i], GPUPROJ_M_BYTES_L1, 1e3);
		set(k[i], GPUPROJ_M_BYTES_L2, 1e3);
		set(k[i], GPUPROJ_M_BYTES_DRAM, 1e3);
		set(k[i], GPUPROJ_M_SHARED_WAVEFRONTS, 0);
		p = project("hroof", k[i], src, tgt);
		ck_assert_ok(p);
		ck_assert_rel(p.point_ns, sus[i]);
		p = project_opt("hroof", k[i], src, tgt, &burst);
		ck_assert_ok(p);
		ck_assert_rel(p.point_ns, bur[i]);
		ck_assert_msg(strstr(p.note, "burst: FP32 x1 src, x"), "%s", p.note);
		p = project_opt("hroof", k[i], tgt, src, NULL);
		ck_assert_rel(p.point_ns, back_sus[i]);
		p = project_opt("hroof", k[i], tgt, src, &burst);
		ck_assert_rel(p.point_ns, back_bur[i]);
		/* Onto its own GPU: the measured time, in either regime. */
		p = project_opt("hroof", k[i], tgt, tgt, &burst);
		ck_assert_rel(p.point_ns, ts[i]);
	}
	p = project_opt("hroof", k[1], tgt, src, &burst);
	ck_assert_ptr_nonnull(strstr(p.note, "burst: FP32 x1.25 src, x1 tgt"));
	/* The default model's note has room for it (gpuproj_projection.note). */
	p = project_opt("hroof-occ", k[0], src, tgt, &burst);
	ck_assert_ok(p);
	ck_assert_msg(strstr(p.note, "Little:") && strstr(p.note, "; burst: FP32 x1 src, x") &&
			      strstr(p.note, " tgt"), "%s", p.note);
	/* details: the factors the projection ended on; the blended rate is derived. */
	ck_assert_int_eq(gpuproj_model_details(gpuproj_model_find("hroof"), k[0], src, tgt, &burst,
					       &d), GPUPROJ_OK);
	for (i = 0; i < d.n && strcmp(d.items[i].name, "tgt.burst_fp32") != 0; i++)
		;
	ck_assert_uint_lt(i, d.n);
	ck_assert_rel(d.items[i].value, 1 + 0.25 * 1e5 / 9.75e5);
	gpuproj_quant_device_params(tgt, &qd);
	ck_assert_int_eq(qd.p[GPUPROJ_QP_T_SP].basis, GPUPROJ_BASIS_MEASURED);
	gpuproj_target_burst(tgt, 2e5, &g);
	gpuproj_quant_device_params(&g, &qd);
	ck_assert_rel(qd.p[GPUPROJ_QP_T_SP].value, 3600);
	ck_assert_int_eq(qd.p[GPUPROJ_QP_T_SP].basis, GPUPROJ_BASIS_DERIVED);
	/* gpuproj_target_basis(): only max_gflops of the copy turns derived. */
	ck_assert_int_eq(gpuproj_target_basis(tgt, "max_gflops.fp32_fma"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(gpuproj_target_basis(&g, "max_gflops.fp32_fma"), GPUPROJ_BASIS_DERIVED);
	ck_assert_int_eq(gpuproj_target_basis(&g, "bw_gbs.dram"), GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(gpuproj_target_basis(&g, "peak_gflops.fp32_fma"), GPUPROJ_BASIS_ESTIMATE);
	ck_assert_int_eq(gpuproj_target_basis(&g, "price_usd"), GPUPROJ_BASIS_NONE);

	/* A GPU whose only sustained rate below the peak is FP64's. */
	g64 = *tgt;
	for (m = 0; m < GPUPROJ_OPKIND_COUNT; m++)
		g64.max_gflops[GPUPROJ_FP32][m] = NAN;
	g64.max_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA] = 1000;
	k64 = kernel("burst-fp64", 1e6, 1000, 256, 32, 0);
	fp(k64, 0);
	set(k64, GPUPROJ_M_INST_FP64_FMA, 1e12);
	set(k64, GPUPROJ_M_WARP_EFFICIENCY, 1);
	set(k64, GPUPROJ_M_BYTES_L1, 1e3);
	set(k64, GPUPROJ_M_BYTES_L2, 1e3);
	set(k64, GPUPROJ_M_BYTES_DRAM, 1e3);
	set(k64, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	p = project_opt("hroof", k64, src, &g64, NULL);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1e6);
	p = project_opt("hroof", k64, src, &g64, &burst);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 9e5);
}
END_TEST

/* A compute-bound kernel: `ffma` FFMA per launch, 1e3 B per level, `ns` on the source. */
static struct gpuproj_kernel *
compute_kernel(const char *name, double ns, double ffma)
{
	struct gpuproj_kernel *k = kernel(name, ns, 1000, 256, 32, 0);

	fp(k, ffma);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	set(k, GPUPROJ_M_BYTES_L1, 1e3);
	set(k, GPUPROJ_M_BYTES_L2, 1e3);
	set(k, GPUPROJ_M_BYTES_DRAM, 1e3);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	return k;
}

/*
 * The achievable FP32 rate of FFMA-dense kernels (--fp32 dense; model.h
 * enum gpuproj_fp32, src/model-regime.c). Copies of the fixtures: S =
 * ModelSrc with max_gflops.fp32_fma 2000 and fp32_dense_gflops 1800 (d =
 * 0.9); T = ModelTgt (FMA 3200) with fp32_dense_gflops 1600 (d = 0.5), 80
 * FP32 lanes per SM (u = 3200e9 / 160 = 2e10 lane-clocks/s = 20 SMs x 1 GHz
 * of the FP32 lanes' rate), 4 schedulers.
 *   FFMA-dense, 1e12 FFMA, T_s = 1.6e6 ns, hroof: FMA rates 1.6e6 x 2000 /
 *   3200 = 1e6 ns; dense 1.6e6 x 1800 / 1600 = 1.8e6 ns.
 *   Not dense by FLOP: + 3e11 FADD: FFMA 2e12 / 2.3e12 = 87% < 90%: as fma.
 *   Not dense by issue: inst.warp 1e11 against 1e12 / 32 = 3.125e10 FFMA
 *   warp instructions: 31% < 50%: as fma.
 *   Dense, inst.warp 4e10 (78%): the issue roof allows 2e12 FLOP / (4e10 /
 *   (2e10 x 4)) = 4e12 FLOP/s on T, above the dense 1.6e12: the dense rate
 *   binds. With T's dense rate 3000 (d = 0.9375) and inst.warp 6e10 (52%):
 *   issue allows 2e12 / 0.75 = 2.67e12 < 3e12: issue binds.
 * d is never above 1: a dense rate above the FMA rate (S with 2400) is the
 * FMA rate. naive (datasheet peaks) is unchanged.
 */
START_TEST(fp32_dense)
{
	struct gpuproj_model_options dense = { .notes = true, .fp32 = GPUPROJ_FP32_DENSE };
	struct gpuproj_target s = *src, t = *tgt;
	struct gpuproj_kernel *k, *kadd, *kw, *kd;
	struct gpuproj_ffma_density fd;
	struct gpuproj_projection p;
	struct gpuproj_model_details d;
	enum gpuproj_fp32 f = GPUPROJ_FP32_DEFAULT;
	size_t i;

	s.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] = 2000;
	s.fp32_dense_gflops = 1800;
	t.fp32_dense_gflops = 1600;
	t.lanes_per_sm[GPUPROJ_LANE_FP16] = 160;
	t.lanes_per_sm[GPUPROJ_LANE_FP32] = 80;
	t.lanes_per_sm[GPUPROJ_LANE_FP64] = 40;
	t.lanes_per_sm[GPUPROJ_LANE_INT32] = 80;
	t.lanes_per_sm[GPUPROJ_LANE_FP32_INT32_SHARED] = 0;

	ck_assert_int_eq(gpuproj_fp32_default(), GPUPROJ_FP32_FMA);
	ck_assert_int_eq(gpuproj_fp32_from_name("DENSE", &f), GPUPROJ_OK);
	ck_assert_int_eq(f, GPUPROJ_FP32_DENSE);
	ck_assert_int_eq(gpuproj_fp32_from_name("sgemm", &f), GPUPROJ_E_INVAL);
	ck_assert_str_eq(gpuproj_fp32_name(GPUPROJ_FP32_FMA), "fma");

	k = compute_kernel("dense", 1.6e6, 1e12);
	ck_assert(gpuproj_kernel_ffma_density(k, &fd));
	ck_assert_rel(fd.fma_share, 1);
	ck_assert(isnan(fd.issue_share));
	p = project("hroof", k, &s, &t);
	ck_assert_rel(p.point_ns, 1e6);
	p = project_opt("hroof", k, &s, &t, &dense);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1.8e6);
	ck_assert_msg(strstr(p.note, "fp32 dense: FFMA 100% of FLOP, dense/FMA rate x0.9 src, x0.5 "
			     "tgt"), "%s", p.note);
	p = project_opt("hroof-occ", k, &s, &t, &dense);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1.8e6);
	/* naive keeps the datasheet peaks: 1.6e6 x 2000 / 4000. */
	p = project_opt("naive", k, &s, &t, &dense);
	ck_assert_rel(p.point_ns, 8e5);
	/* Onto its own GPU: the measured time. */
	p = project_opt("hroof", k, &t, &t, &dense);
	ck_assert_rel(p.point_ns, 1.6e6);
	/* The copy's FP32 FMA rate rests on fp32_dense_gflops (no source here: none). */
	ck_assert_int_eq(gpuproj_model_details(gpuproj_model_find("hroof"), k, &s, &t, &dense, &d),
			 GPUPROJ_OK);
	for (i = 0; i < d.n && strcmp(d.items[i].name, "tgt.fp32_dense") != 0; i++)
		;
	ck_assert_uint_lt(i, d.n);
	ck_assert_rel(d.items[i].value, 0.5);

	kadd = compute_kernel("dense-fadd", 1.6e6, 1e12);
	set(kadd, GPUPROJ_M_INST_FP32_ADD, 3e11);
	ck_assert(!gpuproj_kernel_ffma_density(kadd, &fd));
	ck_assert_rel(fd.fma_share, 2e12 / 2.3e12);
	ck_assert_rel(project_opt("hroof", kadd, &s, &t, &dense).point_ns,
		      project("hroof", kadd, &s, &t).point_ns);
	p = project_opt("hroof", kadd, &s, &t, &dense);
	ck_assert_msg(strstr(p.note, "fp32: not FFMA-dense (FFMA 87% of FLOP), FMA rate"), "%s",
		      p.note);

	kw = compute_kernel("dense-issue-heavy", 1.6e6, 1e12);
	set(kw, GPUPROJ_M_INST_WARP, 1e11);
	ck_assert(!gpuproj_kernel_ffma_density(kw, &fd));
	ck_assert_rel(fd.issue_share, 0.3125);
	ck_assert_rel(project_opt("hroof", kw, &s, &t, &dense).point_ns, 1e6);

	kd = compute_kernel("dense-issue", 1.6e6, 1e12);
	set(kd, GPUPROJ_M_INST_WARP, 4e10);
	ck_assert(gpuproj_kernel_ffma_density(kd, &fd));
	ck_assert_rel(fd.issue_share, 0.78125);
	p = project_opt("hroof", kd, &s, &t, &dense);
	ck_assert_rel(p.point_ns, 1.8e6);
	ck_assert_msg(strstr(p.note, "the dense rate binds on tgt: issue allows 4 TFLOP/s (FFMA "
			     "78% of warp instructions), the dense rate 1.6"), "%s", p.note);
	t.fp32_dense_gflops = 3000;
	set(kd, GPUPROJ_M_INST_WARP, 6e10);
	p = project_opt("hroof", kd, &s, &t, &dense);
	ck_assert_rel(p.point_ns, 1.6e6 * 1800 / 3000);
	ck_assert_msg(strstr(p.note, "issue (--compute issue) binds on tgt: issue allows 2.667 "
			     "TFLOP/s (FFMA 52% of warp instructions), the dense rate 3"), "%s",
		      p.note);
	/* --compute issue: the CUDA-core time is the larger, issue's: 1e12 x 2 / 2.67e12 s. */
	dense.compute = GPUPROJ_COMPUTE_ISSUE;
	p = project_opt("hroof", kd, &s, &t, &dense);
	ck_assert_ok(p);
	dense.compute = GPUPROJ_COMPUTE_DEFAULT;

	/* A dense rate above the FMA rate counts as the FMA rate: d = 1. */
	s.fp32_dense_gflops = 2400;
	t.fp32_dense_gflops = 1600;
	p = project_opt("hroof", k, &s, &t, &dense);
	ck_assert_rel(p.point_ns, 1.6e6 * 2000 / 1600);
}
END_TEST

/*
 * The clock regime carried from the source (--clock auto; model.h
 * gpuproj_clock_regime(), src/model-regime.c). G = ModelSrc with clock_mhz
 * 1000, boost 1200, sustained_clock_mhz 800, max FP32 FMA 2000: the highest
 * clock is 1200, boost from 0.97 x 1200 = 1164 MHz on.
 *   no clock → unknown; clock.sm 1.2 GHz → boost (800 < 1164: G would slow
 *   under load); 1.0 GHz → sustained (below its boost clock); NVML mean
 *   1200 MHz with a capped sample → sustained; NVML 1200 without → boost;
 *   G2 = G holding 1200 under load: clock.sm 1.2 GHz → unknown.
 * Projections, hroof, 1e12 FFMA, T_s = 1.6e6 ns, onto T = ModelTgt (3200
 * GFLOP/s at clock_mhz 2000, boost_hold_us 100, 4000 peak) with
 * sustained_clock_mhz 1500 (x 0.75 → 2400):
 *   sustained, clock.sm 0.8 GHz: source x 800/1000 → 1600; target x 0.75
 *     → 2400: 1.6e6 x 1600 / 2400 = 1.0667e6 ns;
 *   boost, clock.sm 1.2 GHz: source x 1.2 → 2400; target in the burst
 *     regime: T x 3200 + 800 x 1e5 = 1.6e6 x 2400 → T = 1.175e6 ns (≥ τ);
 *   unknown: as --clock sustained, 1.6e6 x 2000 / 3200 = 1e6 ns.
 */
START_TEST(clock_auto)
{
	struct gpuproj_model_options autoc = { .notes = true, .clock = GPUPROJ_CLOCK_AUTO };
	struct gpuproj_target g = *src, g2, t = *tgt, sc;
	struct gpuproj_sm_clock run = { .samples = 4, .mean_mhz = 1200, .min_mhz = 1190,
					.max_mhz = 1210, .reasons = GPUPROJ_CLK_SW_POWER_CAP,
					.capped_samples = 1 };
	struct gpuproj_clock_regime cr;
	struct gpuproj_kernel *k;
	struct gpuproj_projection p;
	enum gpuproj_clock c = GPUPROJ_CLOCK_DEFAULT;

	g.boost_clock_mhz = 1200;
	g.sustained_clock_mhz = 800;
	g.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] = 2000;
	g2 = g;
	g2.sustained_clock_mhz = 1200;
	t.sustained_clock_mhz = 1500;
	ck_assert_int_eq(gpuproj_clock_from_name("Auto", &c), GPUPROJ_OK);
	ck_assert_int_eq(c, GPUPROJ_CLOCK_AUTO);
	ck_assert_str_eq(gpuproj_clock_name(GPUPROJ_CLOCK_AUTO), "auto");

	k = compute_kernel("clock", 1.6e6, 1e12);
	ck_assert_int_eq(gpuproj_clock_regime(k, NULL, &g, &cr), GPUPROJ_OK);
	ck_assert_int_eq(cr.regime, GPUPROJ_REGIME_UNKNOWN);
	ck_assert_str_eq(cr.why, "no clock recorded");
	ck_assert(isnan(cr.src_mhz));
	ck_assert_ptr_null(cr.from);
	p = project_opt("hroof", k, &g, &t, &autoc);
	ck_assert_rel(p.point_ns, 1e6);
	ck_assert_msg(strstr(p.note, "clock auto: no clock recorded: regime unknown, tgt as "
			     "--clock sustained"), "%s", p.note);
	/* The run's NVML record: capped, so sustained; without the cap, boost. */
	ck_assert_int_eq(gpuproj_clock_regime(k, &run, &g, &cr), GPUPROJ_OK);
	ck_assert_int_eq(cr.regime, GPUPROJ_REGIME_SUSTAINED);
	ck_assert_str_eq(cr.from, "nvml");
	ck_assert_str_eq(cr.why, "NVML saw a power or thermal cap");
	run.capped_samples = 0;
	run.reasons = 0;
	ck_assert_int_eq(gpuproj_clock_regime(k, &run, &g, &cr), GPUPROJ_OK);
	ck_assert_int_eq(cr.regime, GPUPROJ_REGIME_BOOST);
	ck_assert_rel(cr.src_mhz, 1200);

	set(k, GPUPROJ_M_CLOCK_SM, 1.2e9);
	ck_assert_int_eq(gpuproj_clock_regime(k, &run, &g, &cr), GPUPROJ_OK);
	ck_assert_int_eq(cr.regime, GPUPROJ_REGIME_BOOST);
	ck_assert_str_eq(cr.from, "counters");
	ck_assert_str_eq(cr.why, "at its boost clock, which it cannot hold under load");
	ck_assert_str_eq(gpuproj_regime_name(cr.regime), "boost");
	ck_assert_int_eq(gpuproj_clock_regime(k, NULL, &g2, &cr), GPUPROJ_OK);
	ck_assert_int_eq(cr.regime, GPUPROJ_REGIME_UNKNOWN);
	ck_assert_str_eq(cr.why, "at its boost clock, which it holds under load too");
	p = project_opt("hroof", k, &g, &t, &autoc);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 1.175e6);
	ck_assert_msg(strstr(p.note, "clock auto: src 1200 MHz (counters), at its boost clock, "
			     "which it cannot hold under load: boost regime, tgt burst; FP32 x1.2 "
			     "src, x"), "%s", p.note);
	/* Onto its own GPU: the measured time. */
	ck_assert_rel(project_opt("hroof", k, &g, &g, &autoc).point_ns, 1.6e6);

	set(k, GPUPROJ_M_CLOCK_SM, 0.8e9);
	ck_assert_int_eq(gpuproj_clock_regime(k, NULL, &g, &cr), GPUPROJ_OK);
	ck_assert_int_eq(cr.regime, GPUPROJ_REGIME_SUSTAINED);
	ck_assert_str_eq(cr.why, "below its boost clock");
	p = project_opt("hroof", k, &g, &t, &autoc);
	ck_assert_rel(p.point_ns, 1.6e6 * 1600 / 2400);
	ck_assert_msg(strstr(p.note, "clock auto: src 800 MHz (counters), below its boost clock: "
			     "sustained regime, tgt sustained_clock_mhz; FP32 x0.8 src, x0.75 tgt"),
		      "%s", p.note);
	/* The scaled copy: every FP ceiling x the factor, reported derived. */
	gpuproj_target_scale_fp(tgt, 0.75, &sc);
	ck_assert_rel(sc.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 2400);
	ck_assert_rel(sc.clock_factor, 0.75);
	ck_assert_int_eq(gpuproj_target_basis(&sc, "max_gflops.fp32_fma"), GPUPROJ_BASIS_DERIVED);
	ck_assert_int_eq(gpuproj_target_basis(&sc, "bw_gbs.dram"), GPUPROJ_BASIS_MEASURED);
	gpuproj_target_scale_fp(tgt, NAN, &sc);
	ck_assert(sc.clock_factor == 0);
	ck_assert_rel(sc.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 3200);
	/* --clock sustained and burst are the overrides: the measured clock plays no part. */
	autoc.clock = GPUPROJ_CLOCK_SUSTAINED;
	ck_assert_rel(project_opt("hroof", k, &g, &t, &autoc).point_ns, 1e6);

	/*
	 * gpuproj_project_run() hands the profile's NVML record to the model:
	 * a kernel without clock.sm, the run at 1200 MHz with a cap: sustained
	 * (source x 1.2 → 2400, target x 0.75 → 2400): 1.6e6 ns.
	 */
	{
		struct gpuproj_run_projection rp;
		struct gpuproj_kernel *k2 = compute_kernel("clock-run", 1.6e6, 1e12);

		run.capped_samples = 1;
		run.reasons = GPUPROJ_CLK_SW_POWER_CAP;
		ck_assert_int_eq(gpuproj_profile_set_sm_clock(prof, &run), GPUPROJ_OK);
		autoc.clock = GPUPROJ_CLOCK_AUTO;
		autoc.level_interval = true;
		ck_assert_int_eq(gpuproj_project_run(prof, gpuproj_model_find("hroof"), &g, &t,
						     &autoc, &rp), GPUPROJ_OK);
		ck_assert_ptr_eq(gpuproj_profile_at(prof, gpuproj_profile_count(prof) - 1), k2);
		p = rp.kernels[gpuproj_profile_count(prof) - 1];
		ck_assert_ok(p);
		ck_assert_rel(p.point_ns, 1.6e6);
		ck_assert_msg(strstr(p.note, "clock auto: src 1200 MHz (nvml), NVML saw a power or "
				     "thermal cap: sustained regime"), "%s", p.note);
		gpuproj_run_projection_clear(&rp);
	}
}
END_TEST


/*
 * The naive baseline: datasheet FP32 FMA peak and DRAM bandwidth only. The
 * "base" kernel (FLOP 2e6, DRAM 1e7 B, OI 0.2, 1e5 ns): Roof_s = min(2000e9,
 * 0.2·120e9) = 24e9, Roof_t = min(4000e9 (peak, not the measured 3200),
 * 0.2·500e9) = 1e11 → 1e5 · 24/100 = 2.4e4 ns, binding dram. ModelSrc2x has
 * no datasheet bandwidth: named. Not in the registry's list.
 */
START_TEST(naive_baseline)
{
	struct gpuproj_kernel *k = occ_kernel("base", 1000, 0, 1e6);
	struct gpuproj_projection p;
	size_t i;

	p = project("naive", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2.4e4);
	ck_assert_rel(p.lo_ns, 2.4e4);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);
	p = project("naive", k, src, x2);
	ck_assert_int_eq(p.status, GPUPROJ_E_MISSING);
	ck_assert_str_eq(p.why, "naive needs peak_bw_gbs.dram and peak_gflops.fp32_fma of both GPUs");
	for (i = 0; i < gpuproj_model_count(); i++)
		ck_assert_str_ne(gpuproj_model_name(gpuproj_model_at(i)), "naive");
}
END_TEST

/*
 * The kernel the interval tests project: occ_kernel()'s launch, FFMA and
 * 1e7 DRAM bytes, 1e7 B at L1 and L2 too, no shared memory, and warp
 * instructions so that irm projects it as well.
 */
static struct gpuproj_kernel *
interval_kernel(const char *name)
{
	struct gpuproj_kernel *k = occ_kernel(name, 1000, 40000, 1e6);

	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	set(k, GPUPROJ_M_INST_WARP, 1e5);
	set(k, GPUPROJ_M_BYTES_L1, 1e7);
	set(k, GPUPROJ_M_BYTES_L2, 1e7);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	return k;
}

/*
 * Calibrated intervals (interval.h) replace lo/hi: a table with hroof's
 * pooled factors [0.5, 2] and [0.8, 1.25] for dram-bound long launches. The
 * hroof_occ test kernel, timed at 1e6 ns, projects with hroof to 2.5e5 ns
 * (long), binding dram: [2e5, 3.125e5]; its level interval stays in
 * level_lo/hi. At 2000 ns (point 500 ns, short) it takes the pooled pair.
 * Onto its own GPU, or with level_interval, nothing is calibrated.
 */
START_TEST(calibrated_intervals)
{
	static const char table[] =
		"{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": {},"
		" \"groups\": ["
		"  {\"model\": \"hroof\", \"binding\": \"*\", \"class\": \"*\", \"n\": 100,"
		"   \"lo\": 0.5, \"hi\": 2},"
		"  {\"model\": \"hroof\", \"binding\": \"dram\", \"class\": \"long\", \"n\": 40,"
		"   \"lo\": 0.8, \"hi\": 1.25},"
		"  {\"model\": \"no-such-model\", \"binding\": \"*\", \"class\": \"*\", \"n\": 1,"
		"   \"lo\": 1, \"hi\": 1}]}";
	struct gpuproj_intervals *iv = NULL;
	struct gpuproj_error err = { 0 };
	struct gpuproj_model_options o = { 0 };
	struct gpuproj_kernel *k = interval_kernel("cal");
	struct gpuproj_projection p;
	const struct gpuproj_model *hroof = gpuproj_model_find("hroof");

	ck_assert_int_eq(gpuproj_intervals_load_buffer(table, sizeof(table) - 1, "t", &iv, &err),
			 0);
	ck_assert_double_eq(gpuproj_intervals_coverage(iv), 0.8);
	o.intervals = iv;
	k->duration_ns.mean = k->duration_ns.sum = 1e6; /* point 2.5e5 ns: long */
	gpuproj_model_project(hroof, k, src, tgt, &o, &p);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2.5e5);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);
	ck_assert(p.calibrated);
	ck_assert_rel(p.lo_ns, 2e5);
	ck_assert_rel(p.hi_ns, 3.125e5);
	/* No "gpus" in its provenance: the table does not say. */
	ck_assert_int_eq(p.interval_gpus, GPUPROJ_INTERVAL_GPUS_UNKNOWN);
	ck_assert_rel(p.level_lo_ns, 2.5e5);
	ck_assert_rel(p.level_hi_ns, 2.5e5);
	k->duration_ns.mean = k->duration_ns.sum = 2000; /* point 500 ns: short */
	gpuproj_model_project(hroof, k, src, tgt, &o, &p);
	ck_assert_rel(p.point_ns, 500);
	ck_assert_rel(p.lo_ns, 250);
	ck_assert_rel(p.hi_ns, 1000);
	gpuproj_model_project(hroof, k, src, src, &o, &p);
	ck_assert(!p.calibrated);
	ck_assert_rel(p.lo_ns, 2000);
	o.level_interval = true;
	gpuproj_model_project(hroof, k, src, tgt, &o, &p);
	ck_assert(!p.calibrated);
	ck_assert_rel(p.lo_ns, p.level_lo_ns);
	/* irm projects it but has no group: its own interval stays. */
	o.level_interval = false;
	gpuproj_model_project(gpuproj_model_find("irm"), k, src, tgt, &o, &p);
	ck_assert_ok(p);
	ck_assert(!p.calibrated);
	gpuproj_intervals_free(iv);

	/* The built-in table loads and covers the default model and the baseline. */
	ck_assert_ptr_nonnull(gpuproj_intervals_builtin());
	ck_assert(gpuproj_intervals_lookup(gpuproj_intervals_builtin(), gpuproj_model_default(),
					   GPUPROJ_BOUND_DRAM, 1e6, NULL, NULL, NULL));
	ck_assert(gpuproj_intervals_lookup(gpuproj_intervals_builtin(), gpuproj_model_find("naive"),
					   GPUPROJ_BOUND_COMPUTE, 1e6, NULL, NULL, NULL));
	ck_assert_ptr_nonnull(strstr(gpuproj_intervals_origin(gpuproj_intervals_builtin()),
				     "calibration half by shape"));
}
END_TEST

/*
 * gpuproj_intervals_merge(): base has hroof [0.5, 2], sol [0.1, 10] and a
 * "merged" entry for sol and irm; add has sol [0.8, 1.25]. The result:
 * hroof's group, irm's, then add's sol; the old entry keeps only irm, the
 * new one names sol; lookups give add's factors for sol. Tables of other
 * coverage or class boundary are refused.
 */
START_TEST(intervals_merge)
{
	static const char base_text[] =
		"{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": "
		" {\"created\": \"base-date\", \"merged\": [{\"models\": [\"sol\", \"irm\"],"
		"  \"created\": \"old-date\"}]},"
		" \"groups\": ["
		"  {\"model\": \"hroof\", \"binding\": \"*\", \"class\": \"*\", \"n\": 100,"
		"   \"lo\": 0.5, \"hi\": 2},"
		"  {\"model\": \"sol\", \"binding\": \"*\", \"class\": \"*\", \"n\": 50,"
		"   \"lo\": 0.1, \"hi\": 10},"
		"  {\"model\": \"irm\", \"binding\": \"*\", \"class\": \"*\", \"n\": 60,"
		"   \"lo\": 0.2, \"hi\": 3}]}";
	static const char add_text[] =
		"{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": "
		" {\"created\": \"add-date\", \"inputs\": \"default sections\"},"
		" \"groups\": ["
		"  {\"model\": \"sol\", \"binding\": \"*\", \"class\": \"*\", \"n\": 40,"
		"   \"lo\": 0.8, \"hi\": 1.25}]}";
	static const char other_text[] =
		"{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.9, \"provenance\": {},"
		" \"groups\": [{\"model\": \"sol\", \"binding\": \"*\", \"class\": \"*\","
		" \"n\": 40, \"lo\": 0.8, \"hi\": 1.25}]}";
	struct gpuproj_intervals *base = NULL, *add = NULL, *other = NULL, *m = NULL, *back = NULL;
	struct gpuproj_error err = { 0 };
	char *tmp = test_tmpdir(), *path = NULL, *text;
	const char *origin;
	double lo, hi;
	size_t n;

	ck_assert_int_eq(gpuproj_intervals_load_buffer(base_text, sizeof(base_text) - 1, "b", &base,
						       &err), 0);
	ck_assert_int_eq(gpuproj_intervals_load_buffer(add_text, sizeof(add_text) - 1, "a", &add,
						       &err), 0);
	ck_assert_int_eq(gpuproj_intervals_load_buffer(other_text, sizeof(other_text) - 1, "o",
						       &other, &err), 0);
	ck_assert_int_eq(gpuproj_intervals_merge(base, add, &m, &err), 0);
	ck_assert(gpuproj_intervals_lookup(m, gpuproj_model_find("sol"), GPUPROJ_BOUND_DRAM, 1e6,
					   &lo, &hi, &n));
	ck_assert_double_eq(lo, 0.8);
	ck_assert_double_eq(hi, 1.25);
	ck_assert_uint_eq(n, 40);
	ck_assert(gpuproj_intervals_lookup(m, gpuproj_model_find("hroof"), GPUPROJ_BOUND_DRAM, 1e6,
					   &lo, &hi, NULL));
	ck_assert_double_eq(lo, 0.5);
	ck_assert(gpuproj_intervals_lookup(m, gpuproj_model_find("irm"), GPUPROJ_BOUND_L2, 10, &lo,
					   &hi, NULL));
	ck_assert_double_eq(hi, 3);
	origin = gpuproj_intervals_origin(m);
	ck_assert_msg(strstr(origin, "fitted base-date") &&
		      strstr(origin, "; irm merged from a fit of old-date") &&
		      strstr(origin, "; sol merged from a fit of add-date on default sections"),
		      "%s", origin);
	/* Saved: groups hroof, irm, sol in that order; the entries as above. */
	ck_assert_int_gt(asprintf(&path, "%s/m.json", tmp), 0);
	ck_assert_int_eq(gpuproj_intervals_save(m, path, &err), 0);
	text = test_read_file(path);
	ck_assert(strstr(text, "\"model\": \"hroof\"") < strstr(text, "\"model\": \"irm\""));
	ck_assert(strstr(text, "\"model\": \"irm\"") < strstr(text, "\"model\": \"sol\""));
	ck_assert_ptr_null(strstr(text, "0.10000000000000001"));    /* base's sol group is gone */
	ck_assert_ptr_nonnull(strstr(text, "\"models\": [\n     \"irm\"\n    ]"));
	ck_assert_ptr_nonnull(strstr(text, "\"models\": [\n     \"sol\"\n    ],\n    \"created\": "
				     "\"add-date\",\n    \"inputs\": \"default sections\""));
	free(text);
	/* It reads back as it was written. */
	ck_assert_int_eq(gpuproj_intervals_load(path, &back, &err), 0);
	ck_assert_str_eq(gpuproj_intervals_origin(back), origin);

	ck_assert_int_eq(gpuproj_intervals_merge(base, other, &back, &err), GPUPROJ_E_INVAL);
	ck_assert_str_eq(err.message, "cannot merge intervals fitted for 0.9 coverage into a table "
			 "fitted for 0.8");
	ck_assert_int_eq(gpuproj_intervals_merge(base, NULL, &back, &err), GPUPROJ_E_INVAL);
	gpuproj_intervals_free(back);
	gpuproj_intervals_free(m);
	gpuproj_intervals_free(base);
	gpuproj_intervals_free(add);
	gpuproj_intervals_free(other);
	test_rmtree(tmp);
	free(tmp);
	free(path);
}
END_TEST

/*
 * The GPUs a table was fitted on (interval.h "GPUs"): the top-level "gpus"
 * lists ModelSrc and ModelTgt, the "merged" entry for irm only ModelSrc.
 * hroof ModelSrc → ModelTgt is fitted, irm's is unseen (its entry lacks the
 * target), and so is hroof onto X2; the level interval says nothing.
 */
START_TEST(intervals_gpus)
{
	static const char table[] =
		"{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": "
		" {\"gpus\": [\"ModelSrc\", \"ModelTgt\"], \"merged\": [{\"models\": [\"irm\"],"
		"  \"gpus\": [\"ModelSrc\"]}]},"
		" \"groups\": ["
		"  {\"model\": \"hroof\", \"binding\": \"*\", \"class\": \"*\", \"n\": 100,"
		"   \"lo\": 0.5, \"hi\": 2},"
		"  {\"model\": \"irm\", \"binding\": \"*\", \"class\": \"*\", \"n\": 100,"
		"   \"lo\": 0.5, \"hi\": 2}]}";
	struct gpuproj_intervals *iv = NULL;
	struct gpuproj_error err = { 0 };
	struct gpuproj_model_options o = { 0 };
	struct gpuproj_kernel *k = interval_kernel("gpus");
	const struct gpuproj_model *hroof = gpuproj_model_find("hroof");
	const struct gpuproj_model *irm = gpuproj_model_find("irm");
	struct gpuproj_projection p;

	ck_assert_int_eq(gpuproj_intervals_load_buffer(table, sizeof(table) - 1, "t", &iv, &err),
			 0);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(iv, hroof, "ModelSrc"), 1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(iv, hroof, "ModelTgt"), 1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(iv, hroof, "modeltgt"), 0); /* exact names */
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(iv, irm, "ModelTgt"), 0);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(iv, irm, "ModelSrc"), 1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(iv, hroof, NULL), -1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(NULL, hroof, "ModelSrc"), -1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(iv, NULL, "ModelSrc"), -1);
	o.intervals = iv;
	gpuproj_model_project(hroof, k, src, tgt, &o, &p);
	ck_assert_ok(p);
	ck_assert(p.calibrated);
	ck_assert_int_eq(p.interval_gpus, GPUPROJ_INTERVAL_GPUS_FITTED);
	gpuproj_model_project(irm, k, src, tgt, &o, &p);
	ck_assert_ok(p);
	ck_assert(p.calibrated);
	ck_assert_int_eq(p.interval_gpus, GPUPROJ_INTERVAL_GPUS_UNSEEN);
	gpuproj_model_project(hroof, k, src, x2, &o, &p);
	ck_assert_ok(p);
	ck_assert_int_eq(p.interval_gpus, GPUPROJ_INTERVAL_GPUS_UNSEEN);
	gpuproj_model_project(hroof, k, x2, tgt, &o, &p);
	ck_assert_ok(p);
	ck_assert_int_eq(p.interval_gpus, GPUPROJ_INTERVAL_GPUS_UNSEEN);
	o.level_interval = true;
	gpuproj_model_project(hroof, k, src, x2, &o, &p);
	ck_assert(!p.calibrated);
	ck_assert_int_eq(p.interval_gpus, GPUPROJ_INTERVAL_GPUS_UNKNOWN);
	ck_assert_str_eq(gpuproj_interval_gpus_name(GPUPROJ_INTERVAL_GPUS_FITTED), "fitted");
	ck_assert_str_eq(gpuproj_interval_gpus_name(GPUPROJ_INTERVAL_GPUS_UNSEEN), "unseen");
	ck_assert_str_eq(gpuproj_interval_gpus_name(GPUPROJ_INTERVAL_GPUS_UNKNOWN), "unknown");
	gpuproj_intervals_free(iv);

	/* The built-in table lists the validation corpora's GPUs, not others. */
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(gpuproj_intervals_builtin(),
						      gpuproj_model_default(), "T4"), 1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(gpuproj_intervals_builtin(),
						      gpuproj_model_default(), "GTX-980"), 1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(gpuproj_intervals_builtin(),
						      gpuproj_model_find("sol"), "Tesla-P4"), 1);
	ck_assert_int_eq(gpuproj_intervals_gpu_fitted(gpuproj_intervals_builtin(),
						      gpuproj_model_default(), "H200-SXM-141GB"), 0);
}
END_TEST

/*
 * The order of two targets (interval.h "Order of two targets"). One kernel
 * ("set") projected by hroof from S onto A, B, C, repeated for 30 sets:
 *   A point 1e5, measured 2e5 (log ratio ln 2), dram
 *   B point 1e5, measured 1e5 (0), dram
 *   C point 4e5, measured 2e5 (−ln 2), compute
 * pairs: A,B d = ln 2 (same binding); A,C d = 2 ln 2, B,C d = ln 2
 * (different); every point ≥ 50 µs: long. Per set Σd² = 6 (ln 2)², so
 *   pooled           σ = √(30·6/90)·ln 2 = √2 ln 2   = 0.98026 (90 pairs)
 *   same, long       σ = ln 2                        = 0.69315 (30)
 *   different, long  σ = √((4 + 1)/2) ln 2 = √2.5 ln 2 = 1.09596 (60)
 * and no short group (none under 50 µs). A case from another source (S2)
 * pairs with nothing, nor do two cases of one target (A) in a 31st set. Then
 *   1e5 vs 2e5, both dram: Φ(ln 2 / ln 2) = Φ(1) = 0.841345, A faster
 *   1e5 dram vs 2e5 compute: Φ(1/√2.5) = Φ(0.632456) = 0.736455
 *   2e3 vs 1e3 (short: pooled): Φ(1/√2) = 0.760250, B faster
 * irm has no pairs: no order. Saved and loaded: the same σ. Merged with a
 * table of hroof σ 2 (n 5) and naive σ 1: hroof's replaced, naive's added.
 */
START_TEST(intervals_order)
{
	static char sets[31];
	struct gpuproj_interval_sample smp[96];
	const struct gpuproj_model *hroof = gpuproj_model_find("hroof");
	struct gpuproj_intervals *iv = NULL, *back = NULL;
	struct gpuproj_error err = { 0 };
	struct gpuproj_order o;
	char *dir = test_tmpdir(), path[4096];
	size_t i, n = 0;
	double ln2 = log(2.0);

	for (i = 0; i < 30; i++) {
		smp[n++] = (struct gpuproj_interval_sample){ hroof, GPUPROJ_BOUND_DRAM, 1e5, 2e5,
							     "S", "A", &sets[i] };
		smp[n++] = (struct gpuproj_interval_sample){ hroof, GPUPROJ_BOUND_DRAM, 1e5, 1e5,
							     "S", "B", &sets[i] };
		smp[n++] = (struct gpuproj_interval_sample){ hroof, GPUPROJ_BOUND_COMPUTE, 4e5, 2e5,
							     "S", "C", &sets[i] };
	}
	smp[n++] = (struct gpuproj_interval_sample){ hroof, GPUPROJ_BOUND_DRAM, 1e5, 9e5, "S2", "A",
						     &sets[0] };
	smp[n++] = (struct gpuproj_interval_sample){ hroof, GPUPROJ_BOUND_DRAM, 1e5, 9e5, "S", "A",
						     &sets[30] };
	smp[n++] = (struct gpuproj_interval_sample){ hroof, GPUPROJ_BOUND_DRAM, 1e5, 1e5, "S", "A",
						     &sets[30] };
	ck_assert_int_eq(gpuproj_intervals_fit(smp, n, 0.8, NULL, &iv, &err), GPUPROJ_OK);

	ck_assert_int_eq(gpuproj_intervals_order(iv, hroof, 1e5, GPUPROJ_BOUND_DRAM, 2e5,
						 GPUPROJ_BOUND_DRAM, &o, &err), GPUPROJ_OK);
	ck_assert_rel(o.sigma, ln2);
	ck_assert_int_eq(o.n, 30);
	ck_assert_int_eq(o.faster, 0);
	ck_assert_msg(fabs(o.p_holds - 0.841345) < 1e-6, "%.9f", o.p_holds);
	ck_assert_int_eq(gpuproj_intervals_order(iv, hroof, 1e5, GPUPROJ_BOUND_DRAM, 2e5,
						 GPUPROJ_BOUND_COMPUTE, &o, &err), GPUPROJ_OK);
	ck_assert_rel(o.sigma, sqrt(2.5) * ln2);
	ck_assert_int_eq(o.n, 60);
	ck_assert_msg(fabs(o.p_holds - 0.736455) < 1e-6, "%.9f", o.p_holds);
	ck_assert_int_eq(gpuproj_intervals_order(iv, hroof, 2e3, GPUPROJ_BOUND_DRAM, 1e3,
						 GPUPROJ_BOUND_DRAM, &o, &err), GPUPROJ_OK);
	ck_assert_rel(o.sigma, sqrt(2.0) * ln2);
	ck_assert_int_eq(o.n, 90);
	ck_assert_int_eq(o.faster, 1);
	ck_assert_msg(fabs(o.p_holds - 0.760250) < 1e-6, "%.9f", o.p_holds);
	ck_assert_int_eq(gpuproj_intervals_order(iv, hroof, 3e3, GPUPROJ_BOUND_DRAM, 3e3,
						 GPUPROJ_BOUND_L2, &o, &err), GPUPROJ_OK);
	ck_assert_int_eq(o.faster, -1);
	ck_assert_double_eq(o.p_holds, 0.5);

	ck_assert_int_eq(gpuproj_intervals_order(iv, gpuproj_model_find("irm"), 1e5,
						 GPUPROJ_BOUND_DRAM, 2e5, GPUPROJ_BOUND_DRAM, &o,
						 &err), GPUPROJ_E_UNSUPPORTED);
	ck_assert_str_eq(err.message, "the intervals have no order of two targets for model irm");
	ck_assert_int_eq(gpuproj_intervals_order(iv, hroof, 0, GPUPROJ_BOUND_DRAM, 2e5,
						 GPUPROJ_BOUND_DRAM, &o, &err), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_intervals_order(iv, hroof, 1e5, GPUPROJ_BOUND_DRAM, INFINITY,
						 GPUPROJ_BOUND_DRAM, &o, &err), GPUPROJ_E_INVAL);

	/* Saved and loaded, the groups are the same; merged, add's replace base's. */
	snprintf(path, sizeof(path), "%s/order.json", dir);
	ck_assert_int_eq(gpuproj_intervals_save(iv, path, &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_intervals_load(path, &back, &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_intervals_order(back, hroof, 1e5, GPUPROJ_BOUND_DRAM, 2e5,
						 GPUPROJ_BOUND_COMPUTE, &o, &err), GPUPROJ_OK);
	ck_assert_rel(o.sigma, sqrt(2.5) * ln2);
	gpuproj_intervals_free(back);
	ck_assert_int_eq(gpuproj_intervals_merge(gpuproj_intervals_builtin(), iv, &back, &err),
			 GPUPROJ_E_INVAL); /* 0.8 into 0.85 */
	{
		/* add's hroof order (σ 2) replaces the fit's; its naive one joins. */
		static const char add_text[] =
			"{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, "
			"\"provenance\": {}, \"groups\": [], \"order\": {\"groups\": ["
			"{\"model\": \"hroof\", \"bindings\": \"*\", \"class\": \"*\", "
			"\"n\": 5, \"sigma\": 2},"
			"{\"model\": \"naive\", \"bindings\": \"*\", \"class\": \"*\", "
			"\"n\": 7, \"sigma\": 1}]}}";
		struct gpuproj_intervals *add = NULL;

		ck_assert_int_eq(gpuproj_intervals_load_buffer(add_text, sizeof(add_text) - 1, "a",
							       &add, &err), GPUPROJ_OK);
		ck_assert_int_eq(gpuproj_intervals_merge(iv, add, &back, &err), GPUPROJ_OK);
		ck_assert_int_eq(gpuproj_intervals_order(back, hroof, 1e5, GPUPROJ_BOUND_DRAM, 2e5,
							 GPUPROJ_BOUND_DRAM, &o, &err), GPUPROJ_OK);
		ck_assert_double_eq(o.sigma, 2);
		ck_assert_int_eq(o.n, 5);
		ck_assert_int_eq(gpuproj_intervals_order(back, gpuproj_model_find("naive"), 1e5,
							 GPUPROJ_BOUND_DRAM, 2e5,
							 GPUPROJ_BOUND_COMPUTE, &o, &err),
				 GPUPROJ_OK);
		ck_assert_double_eq(o.sigma, 1);
		gpuproj_intervals_free(back);
		gpuproj_intervals_free(add);
	}
	gpuproj_intervals_free(iv);
	free(dir);

	/* The built-in table orders the default model's targets. */
	ck_assert_int_eq(gpuproj_intervals_order(gpuproj_intervals_builtin(),
						 gpuproj_model_default(), 1e5, GPUPROJ_BOUND_DRAM,
						 2e5, GPUPROJ_BOUND_DRAM, &o, &err), GPUPROJ_OK);
	ck_assert(o.p_holds > 0.5 && o.p_holds < 1);
}
END_TEST

/* Each class of bad table: the field named, and where it is (line 1, column; 0 when absent). */
START_TEST(intervals_bad_tables)
{
	static const struct {
		const char *text, *expect;
		int column;
	} cases[] = {
		{ "[1]", "not a JSON object", 0 },
		{ "{\"schema\": \"x\"}", "'schema' must be \"gpuproj-intervals/1\"", 12 },
		{ "{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 1.5}",
		  "'coverage' must be a number in (0, 1)", 47 },
		{ "{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": {}, "
		  "\"groups\": [{\"model\": \"hroof\", \"binding\": \"disk\", \"class\": \"*\", "
		  "\"n\": 1, \"lo\": 1, \"hi\": 1}]}",
		  "'groups[0].binding' must be a binding resource or \"*\"", 111 },
		{ "{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": {}, "
		  "\"groups\": [{\"model\": \"hroof\", \"binding\": \"*\", \"class\": \"*\", "
		  "\"n\": 1, \"lo\": 2, \"hi\": 1}]}",
		  "'groups[0].hi' must be a number at least 'lo'", 153 },
		{ "{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": {}, "
		  "\"groups\": [{\"model\": \"hroof\", \"binding\": \"*\", \"class\": \"*\", "
		  "\"n\": 0, \"lo\": 1, \"hi\": 1}]}",
		  "'groups[0].n' must be a positive integer", 135 },
		{ "{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": "
		  "{\"gpus\": \"T4\"}, \"groups\": []}",
		  "'provenance.gpus' must be an array of GPU names (strings)", 75 },
		{ "{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": "
		  "{\"merged\": [{\"models\": [\"sol\"], \"gpus\": [\"T4\", 4]}]}, \"groups\": []}",
		  "'provenance.merged[0].gpus' must be an array of GPU names (strings)", 106 },
		{ "{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": {}, "
		  "\"groups\": [], \"order\": {\"groups\": [{\"model\": \"hroof\", "
		  "\"bindings\": \"both\", \"class\": \"long\", \"n\": 1, \"sigma\": 1}]}}",
		  "'order.groups[0].bindings' must be \"same\", \"different\" or \"*\"", 136 },
		{ "{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": {}, "
		  "\"groups\": [], \"order\": {\"groups\": [{\"model\": \"hroof\", "
		  "\"bindings\": \"*\", \"class\": \"*\", \"n\": 1, \"sigma\": 0}]}}",
		  "'order.groups[0].sigma' must be a positive number", 172 },
		{ "{\"schema\": ", "", 11 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gpuproj_intervals *iv = NULL;
		struct gpuproj_error err = { 0 };
		int r = gpuproj_intervals_load_buffer(cases[i].text, strlen(cases[i].text), "t.json",
						      &iv, &err);

		ck_assert_int_eq(r, i + 1 == sizeof(cases) / sizeof(cases[0]) ? GPUPROJ_E_PARSE
									     : GPUPROJ_E_SCHEMA);
		ck_assert_ptr_null(iv);
		ck_assert_msg(strstr(err.message, cases[i].expect) != NULL, "%zu: %s", i,
			      err.message);
		ck_assert_msg(err.line == (cases[i].column ? 1 : 0) && err.column == cases[i].column,
			      "%zu: %d:%d, want column %d", i, err.line, err.column,
			      cases[i].column);
	}
}
END_TEST

/* ------------------------------------------------- gpu-stream sweeps */

/*
 * The occupancy term against measurements: the gpu-benches gpu-stream
 * sweeps (tests/data/gpu-stream-sweeps.txt: one kernel at rising occupancy
 * on one GPU, repository@commit per sweep). From the highest-occupancy row
 * of each sweep, every other row is projected onto the same GPU with the
 * hroof-occ equations, old and new:
 *   same GPU, same bytes: T_hroof = T_top; wave fill u = G/(⌈G/SMs⌉·SMs)
 *   old ([Srivastava-nd] eq. 4):  T = T_top · (W_top·u_top) / (W·u)
 *   new (Little):          T = max(T_top · u_top/u, T_lat),
 *                          T_lat from gpuproj_latency_hiding() with
 *                          W = blocks/SM · block/warp_size · SMs,
 *                          D = bytes · latency_ns.dram (streaming: every byte
 *                          a DRAM hit), T_roof = bytes / bw_gbs.dram,
 *                          b_life = bytes per thread · warp_size
 * and compared with the measured time bytes / GB/s. The GPUs' SMs, warp
 * size, DRAM ceiling and latency come from the built-in targets.yaml. The
 * table (MAPE per sweep and kernel, old vs new) goes to standard output;
 * the test fails unless the new term beats the old one on every NVIDIA
 * sweep for scale and triad, and halves its error over all of them.
 */
struct sweep_row {
	double block, bps, gbs[6];
};

#define SWEEP_KERNELS 3
static const char *const sweep_kernel_names[SWEEP_KERNELS] = { "read", "scale", "triad" };
static const int sweep_kernel_col[SWEEP_KERNELS] = { 1, 2, 3 };

/* DRAM bytes per thread of read, scale, triad in the two benchmark versions. */
static double
sweep_bytes_per_thread(int kernel, bool te)
{
	static const double b[SWEEP_KERNELS] = { 8, 16, 24 };

	return kernel == 2 && !te ? 32 : b[kernel];
}

/* MAPE (%) of old and new over one sweep and kernel. */
static void
sweep_errors(const struct gpuproj_target *g, const struct sweep_row *r, size_t n, bool te,
	     int kernel, double *ret_old, double *ret_new)
{
	double N = te ? 134217730.0 : 268435458.0, bt = sweep_bytes_per_thread(kernel, te);
	double bytes = bt * N, w = g->warp_size, L = g->latency_ns[GPUPROJ_LEVEL_DRAM];
	double bw = g->bw_gbs[GPUPROJ_LEVEL_DRAM], sum_old = 0, sum_new = 0;
	double wt = 0, ut = 0, tt = 0;
	size_t i, top = 0, m = 0;
	int c = sweep_kernel_col[kernel];

	for (i = 0; i < n; i++) {
		double wi = r[i].bps * r[i].block / w;

		if (wi >= r[top].bps * r[top].block / w)
			top = i;
	}
	for (i = 0; i <= n; i++) {
		/* i == n: the top row itself, first, for the reference quantities. */
		const struct sweep_row *x = &r[i == n ? top : i];
		double W = x->bps * x->block / w * g->sms;
		double G = floor(N / x->block) + 1;
		double u = G / (ceil(G / g->sms) * g->sms);
		double T = bytes / (x->gbs[c] * 1e9) * 1e9;

		if (i == 0) {
			const struct sweep_row *y = &r[top];
			double Gt = floor(N / y->block) + 1;

			wt = y->bps * y->block / w * g->sms;
			ut = Gt / (ceil(Gt / g->sms) * g->sms);
			tt = bytes / (y->gbs[c] * 1e9) * 1e9;
		}
		if (i == n || i == top)
			continue;
		{
			struct gpuproj_latency_hiding lh = {
				.src_ns = tt, .src_roof_ns = bytes / (bw * 1e9) * 1e9,
				.src_warps = wt, .tgt_warps = W, .src_lat_bytes = bytes * L,
				.tgt_lat_bytes = bytes * L, .life_bytes = bt * w,
			};
			double t_old = tt * (wt * ut) / (W * u), t_new;

			ck_assert_int_eq(gpuproj_latency_hiding(&lh), GPUPROJ_OK);
			t_new = fmax(tt * ut / u, lh.tgt_ns);
			sum_old += fabs(t_old / T - 1);
			sum_new += fabs(t_new / T - 1);
			m++;
		}
	}
	ck_assert_uint_gt(m, 10);
	*ret_old = 100 * sum_old / (double)m;
	*ret_new = 100 * sum_new / (double)m;
}

START_TEST(gpu_stream_sweeps)
{
	struct gpuproj_targets *builtin = NULL;
	struct gpuproj_error err = { 0 };
	struct sweep_row rows[64];
	char line[512], gpu[64], where[200], path[100], ver[8], label[64];
	double all_old = 0, all_new = 0;
	size_t n = 0, n_nv = 0;
	const struct gpuproj_target *g = NULL;
	bool te = false, have = false;
	FILE *f;

	ck_assert_int_eq(gpuproj_targets_load_builtin(&builtin, &err), 0);
	f = fopen(test_data("gpu-stream-sweeps.txt"), "r");
	ck_assert_ptr_nonnull(f);
	printf("gpu-stream sweeps: MAPE %% of projecting every row from the highest-occupancy "
	       "one, old (linear) / new (Little)\n%-16s %-17s %3s  %-13s %-13s %-13s\n", "GPU",
	       "source@commit", "n", "read", "scale", "triad");
	for (;;) {
		char *ok = fgets(line, sizeof(line), f);

		if ((!ok || strncmp(line, "sweep ", 6) == 0) && have) {
			double o[SWEEP_KERNELS], nw[SWEEP_KERNELS];
			int k;

			for (k = 0; k < SWEEP_KERNELS; k++)
				sweep_errors(g, rows, n, te, k, &o[k], &nw[k]);
			snprintf(label, sizeof(label), "%.*s@%.8s", (int)(strchr(where, '/') - where),
				 where, strchr(where, '@') + 1);
			printf("%-16s %-17s %3zu  %5.1f / %5.1f %5.1f / %5.1f %5.1f / %5.1f\n",
			       g->name, label, n - 1, o[0], nw[0], o[1], nw[1], o[2], nw[2]);
			if (g->vendor == GPUPROJ_VENDOR_NVIDIA) {
				for (k = 1; k < SWEEP_KERNELS; k++)
					ck_assert_msg(nw[k] < o[k], "%s %s: new %.1f >= old %.1f",
						      g->name, sweep_kernel_names[k], nw[k], o[k]);
				for (k = 0; k < SWEEP_KERNELS; k++) {
					all_old += o[k];
					all_new += nw[k];
				}
				n_nv += SWEEP_KERNELS;
			}
			have = false;
		}
		if (!ok)
			break;
		if (strncmp(line, "sweep ", 6) == 0) {
			ck_assert_int_eq(sscanf(line, "sweep %63s %199s %99s %7s", gpu, where, path,
						ver), 4);
			g = gpuproj_targets_find(builtin, gpu);
			ck_assert_msg(g != NULL, "%s is not in the built-in targets.yaml", gpu);
			ck_assert_msg(g->latency_ns[GPUPROJ_LEVEL_DRAM] > 0, "%s: no latency_ns.dram",
				      gpu);
			te = strcmp(ver, "te") == 0;
			n = 0;
			have = true;
			continue;
		}
		if (line[0] == '#' || line[0] == '\n')
			continue;
		ck_assert_uint_lt(n, ARRAY_LEN(rows));
		ck_assert_int_eq(sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf", &rows[n].block,
					&rows[n].bps, &rows[n].gbs[0], &rows[n].gbs[1],
					&rows[n].gbs[2], &rows[n].gbs[3], &rows[n].gbs[4],
					&rows[n].gbs[5]), 8);
		n++;
	}
	fclose(f);
	ck_assert_uint_gt(n_nv, 0);
	printf("NVIDIA, all sweeps and kernels: old %.1f %%, new %.1f %%\n", all_old / n_nv,
	       all_new / n_nv);
	ck_assert_msg(all_new < all_old / 2, "new %.1f, old %.1f", all_new / n_nv, all_old / n_nv);
	gpuproj_targets_free(builtin);
}
END_TEST

/* ---------------------------------------------------------- L2 capacity */

/*
 * The L2 residency rule (gpuproj_l2_capacity_dram(), model.h; ramp
 * r0 = 0.68, r1 = 1.5 of gpuproj_l2_hit_share()), by hand:
 * On ModelSrc (C_s = 1 MiB), D_s = 1 MiB, 10 MiB through L2: 0 < D_s < 1.5 C_s,
 *   F = (0.68 + √(0.68² + 4·0.82·1))/2 = (0.68 + √3.7424)/2 = 1.3072642 MiB
 *   (check: F·(F − 0.68)/0.82 = 1 MiB). ModelTgt (4 MiB), F/C = 0.33 ≤ 0.68:
 *   D_t = 0; ModelSrc2x (2 MiB), 0.65: D_t = 0.
 * D_s = 3 MiB ≥ 1.5 C_s: F = 3 MiB. ModelTgt: F/C = 0.75, h = 0.75/0.82 =
 *   0.9146341, D_t = 3·(1 − h) = 0.2560976 MiB; ModelSrc2x: 1.5, h = 0: 3 MiB.
 * Capped: D_s = 0.5 MiB with 0.5 MiB through L2: F = min(1.065, 0.5) = 0.5 MiB.
 * The other way, ModelTgt (4 MiB, D_s = 0, 2 MiB through L2): F = min(0.68·4,
 *   2) = 2 MiB; ModelSrc (1 MiB), F/C = 2: D_t = 2 MiB; ModelSrc2x (2 MiB),
 *   F/C = 1, h = 0.5/0.82 = 0.6097561: D_t = 2·(1 − h) = 0.7804878 MiB.
 * The same L2 on both sides keeps D_s.
 */
START_TEST(l2_capacity_rule)
{
	struct gpuproj_kernel *k = kernel("l2", 1e5, 1000, 256, 64, 0);
	double d, f;

	set(k, GPUPROJ_M_BYTES_DRAM, 1 * MiB);
	set(k, GPUPROJ_M_BYTES_L2, 10 * MiB);
	ck_assert_int_eq(gpuproj_l2_capacity_dram(k, src, tgt, &d, &f), GPUPROJ_OK);
	ck_assert_rel(f, (0.68 + sqrt(3.7424)) / 2 * MiB);
	ck_assert_rel(f * (f / MiB - 0.68) / 0.82, 1 * MiB);
	ck_assert(d == 0);
	ck_assert_int_eq(gpuproj_l2_capacity_dram(k, src, x2, &d, NULL), GPUPROJ_OK);
	ck_assert(d == 0);
	set(k, GPUPROJ_M_BYTES_DRAM, 3 * MiB);
	ck_assert_int_eq(gpuproj_l2_capacity_dram(k, src, tgt, &d, &f), GPUPROJ_OK);
	ck_assert_rel(f, 3 * MiB);
	ck_assert_rel(d, 3 * (1 - 0.75 / 0.82) * MiB);
	ck_assert_int_eq(gpuproj_l2_capacity_dram(k, src, x2, &d, NULL), GPUPROJ_OK);
	ck_assert_rel(d, 3 * MiB);
	ck_assert_int_eq(gpuproj_l2_capacity_dram(k, src, src, &d, NULL), GPUPROJ_OK);
	ck_assert_rel(d, 3 * MiB);
	set(k, GPUPROJ_M_BYTES_DRAM, 0.5 * MiB);
	set(k, GPUPROJ_M_BYTES_L2, 0.5 * MiB);
	ck_assert_int_eq(gpuproj_l2_capacity_dram(k, src, tgt, &d, &f), GPUPROJ_OK);
	ck_assert_rel(f, 0.5 * MiB);
	ck_assert(d == 0);
	set(k, GPUPROJ_M_BYTES_DRAM, 0);
	set(k, GPUPROJ_M_BYTES_L2, 2 * MiB);
	ck_assert_int_eq(gpuproj_l2_capacity_dram(k, tgt, src, &d, &f), GPUPROJ_OK);
	ck_assert_rel(f, 2 * MiB);
	ck_assert_rel(d, 2 * MiB);
	ck_assert_int_eq(gpuproj_l2_capacity_dram(k, tgt, x2, &d, NULL), GPUPROJ_OK);
	ck_assert_rel(d, 2 * (1 - 0.5 / 0.82) * MiB);
	/* Needs bytes.l2. */
	k->metric_n[GPUPROJ_M_BYTES_L2] = 0;
	ck_assert_int_eq(gpuproj_l2_capacity_dram(k, src, tgt, &d, NULL), GPUPROJ_E_MISSING);
}
END_TEST

/*
 * The option on a pure-memory kernel (FLOP = 0) of the occupancy model,
 * 1000 blocks, D_s = 3 MiB, 10 MiB through L2:
 * ModelSrc → ModelTgt:
 *   off (default): T_t = 1e5 · 1e11/4e11 = 2.5e4.
 *   on: D_t = 0.2560976 MiB (l2_capacity_rule); the 2.7439024 MiB no longer
 *   read from DRAM come from L2 at 800 GB/s, DRAM-equivalent bytes
 *   0.2560976 + 2.7439024·400/800 = 1.6280488 MiB: T_t = 2.5e4·1.6280488/3
 *   = 13567.07, and the note says DRAM x0.0854.
 * ModelTgt → ModelSrc (a smaller L2): F = (2.72 + √(2.72² + 4·0.82·4·3))/2 =
 *   4.7790057 MiB (≤ 10), D_t = F on 1 MiB, more than D_s: the model keeps
 *   the source's bytes, T_t = 1e5 · 4e11/1e11 = 4e5, above the DRAM floor
 *   4.7790057 MiB / 100 GB/s = 50112 ns; the note says DRAM x1.59.
 */
START_TEST(l2_capacity_option)
{
	struct gpuproj_model_options on = { .l2_capacity = GPUPROJ_L2_CAPACITY_ON, .notes = true };
	struct gpuproj_model_options off = { .l2_capacity = GPUPROJ_L2_CAPACITY_OFF };
	struct gpuproj_kernel *k = kernel("stream", 1e5, 1000, 256, 64, 0);
	struct gpuproj_model_details d;
	struct gpuproj_projection p;
	double f = (2.72 + sqrt(2.72 * 2.72 + 4 * 0.82 * 4 * 3)) / 2;
	size_t i;
	bool seen = false;

	fp(k, 0);
	set(k, GPUPROJ_M_BYTES_DRAM, 3 * MiB);
	set(k, GPUPROJ_M_BYTES_L2, 10 * MiB);
	p = project_opt("occupancy", k, src, tgt, &off);
	ck_assert_rel(p.point_ns, 2.5e4);
	p = project_opt("occupancy", k, src, tgt, &on);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2.5e4 * (3 * (1 - 0.75 / 0.82) / 2 + 1.5) / 3);
	ck_assert_ptr_nonnull(strstr(p.note, "L2 capacity: DRAM x0.0854"));
	ck_assert_int_eq(gpuproj_model_details(gpuproj_model_find("occupancy"), k, src, tgt, &on,
					       &d), GPUPROJ_OK);
	for (i = 0; i < d.n; i++) {
		if (strcmp(d.items[i].name, "l2.dram_tgt") == 0) {
			ck_assert_rel(d.items[i].value, 3 * (1 - 0.75 / 0.82) * MiB);
			seen = true;
		}
	}
	ck_assert(seen);
	p = project_opt("occupancy", k, tgt, src, &on);
	ck_assert_ok(p);
	ck_assert_ptr_nonnull(strstr(p.note, "L2 capacity: DRAM x1.59"));
	ck_assert_ptr_null(strstr(p.note, "floor"));
	ck_assert_rel(p.point_ns, 1e5 * 4);
	ck_assert_int_eq(gpuproj_model_details(gpuproj_model_find("occupancy"), k, tgt, src, &on,
					       &d), GPUPROJ_OK);
	for (i = 0, seen = false; i < d.n; i++) {
		if (strcmp(d.items[i].name, "l2.dram_tgt") == 0) {
			ck_assert_rel(d.items[i].value, f * MiB);
			seen = true;
		}
	}
	ck_assert(seen);
	p = project_opt("occupancy", k, tgt, src, &off);
	ck_assert_rel(p.point_ns, 1e5 * 4);
}
END_TEST

/*
 * hroof with the option, FLOP = 0, bytes.l1 = bytes.l2 (no L1 hits), T_s = 1e4,
 * ModelTgt (4 MiB) → ModelSrc (1 MiB), where the target's DRAM takes what
 * the source's L2 held (the DRAM floor of model.c):
 * 1. Resident on the source (D_s = 0, 2 MiB): D_t = 2 MiB (l2_capacity_rule).
 *    hroof on the source's bytes: the L1 and L2 ceilings 800 GB/s on the
 *    source, the target's L2 400 GB/s: 1e4 · 800/400 = 2e4, below the floor
 *    2 MiB / 100 GB/s = 20971.52 ns: point 20971.52, binding dram, the note
 *    says so. Off: 2e4.
 * 2. D_s = 1 MiB of 4 MiB: source t_L2 = 3 MiB / 800 GB/s = 3932.16 ns, t_DRAM =
 *    1 MiB / 400 GB/s = 2621.44 ns; target on the same bytes t_L2 = 3 MiB /
 *    400 GB/s = 7864.32, t_DRAM = 1 MiB / 100 GB/s = 10485.76 ns. Levels L1, L2:
 *    1e4·(7864.32 + 10485.76)/(3932.16 + 2621.44) = 28000, DRAM 1e4·10485.76 /
 *    2621.44 = 40000, point 34000. F = (2.72 + √(2.72² + 4·0.82·4·1))/2 =
 *    3.6248620 MiB, all of it from DRAM on 1 MiB: floor 3.6248620 MiB / 100 GB/s
 *    = 38009.5 ns > 34000: point 38009.5, the L1 and L2 levels lifted to it.
 */
START_TEST(l2_capacity_hroof)
{
	struct gpuproj_model_options on = { .l2_capacity = GPUPROJ_L2_CAPACITY_ON, .notes = true };
	struct gpuproj_model_options off = { .l2_capacity = GPUPROJ_L2_CAPACITY_OFF };
	struct gpuproj_kernel *k = kernel("res", 1e4, 1000, 256, 64, 0);
	double f = (2.72 + sqrt(2.72 * 2.72 + 4 * 0.82 * 4 * 1)) / 2 * MiB;
	struct gpuproj_projection p;

	fp(k, 0);
	set(k, GPUPROJ_M_BYTES_DRAM, 0);
	set(k, GPUPROJ_M_BYTES_L2, 2 * MiB);
	set(k, GPUPROJ_M_BYTES_L1, 2 * MiB);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	p = project_opt("hroof", k, tgt, src, &on);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 20971.52);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);
	ck_assert_ptr_nonnull(strstr(p.note, "L2 capacity: DRAM 0 -> 2.097 MB"));
	ck_assert_ptr_nonnull(strstr(p.note, "DRAM floor 20.97 us binds"));
	p = project_opt("hroof", k, tgt, src, &off);
	ck_assert_rel(p.point_ns, 2e4);
	set(k, GPUPROJ_M_BYTES_DRAM, 1 * MiB);
	set(k, GPUPROJ_M_BYTES_L2, 4 * MiB);
	set(k, GPUPROJ_M_BYTES_L1, 4 * MiB);
	p = project_opt("hroof", k, tgt, src, &off);
	ck_assert_rel(p.point_ns, 34000);
	p = project_opt("hroof", k, tgt, src, &on);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, f / 100);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L2], f / 100);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_DRAM], 40000);
}
END_TEST

/*
 * The launch floor (gpuproj_launch_floor_ns(), model.c), on a copy of
 * ModelTgt given launch_floor_us {stream: 3, graph: 1}, by hand:
 *   mode unknown (an import): the stream floor, 3000 ns;
 *   10 launches, 4 of them graph launches: 0.6·3 + 0.4·1 = 2.2 µs = 2200 ns;
 *   all 10 graph launches: 1000 ns.
 * hroof, FLOP = 0, 1 MiB through every level from DRAM, ModelSrc → ModelTgt:
 * the DRAM ratio 100/400 GB/s, so T_t = T_s / 4 (each level's ceiling on the
 * source is 100 GB/s, on the target 400):
 *   T_s = 4000 ns: 1000 ns, below the floor: 3000, "binds";
 *   T_s = 40000 ns: 10000 ns, the floor 30 % of it: "30% of the point";
 *   off: 1000 ns; onto the source's own GPU: no floor (its measured time).
 */
START_TEST(launch_floor_term)
{
	struct gpuproj_model_options on = { .launch_floor = GPUPROJ_LAUNCH_FLOOR_ON, .notes = true,
					    .level_interval = true };
	struct gpuproj_model_options off = { .launch_floor = GPUPROJ_LAUNCH_FLOOR_OFF,
					     .level_interval = true };
	struct gpuproj_target fl = *tgt;
	struct gpuproj_kernel *k = kernel("tiny", 4000, 1000, 256, 64, 0);
	const struct gpuproj_model *m = gpuproj_model_find("hroof");
	struct gpuproj_projection p;
	double g;

	fl.launch_floor_us[GPUPROJ_LAUNCH_STREAM] = 3;
	fl.launch_floor_us[GPUPROJ_LAUNCH_GRAPH] = 1;
	ck_assert(gpuproj_launch_floor_default());
	ck_assert(isnan(gpuproj_launch_floor_ns(k, tgt, NULL))); /* no launch_floor_us */
	ck_assert_double_eq_tol(gpuproj_launch_floor_ns(k, &fl, &g), 3000, 1e-9);
	ck_assert(isnan(g));
	k->launch_mode_known = true;
	k->launches = 10;
	k->graph_launches = 4;
	ck_assert_double_eq_tol(gpuproj_launch_floor_ns(k, &fl, &g), 2200, 1e-9);
	ck_assert_double_eq_tol(g, 0.4, 1e-12);
	k->graph_launches = 10;
	ck_assert_double_eq_tol(gpuproj_launch_floor_ns(k, &fl, NULL), 1000, 1e-9);
	k->launch_mode_known = false;
	k->launches = 1;
	k->graph_launches = 0;

	fp(k, 0);
	set(k, GPUPROJ_M_BYTES_DRAM, MiB);
	set(k, GPUPROJ_M_BYTES_L2, MiB);
	set(k, GPUPROJ_M_BYTES_L1, MiB);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	ck_assert_int_eq(gpuproj_model_project(m, k, src, &fl, &off, &p), GPUPROJ_OK);
	ck_assert_rel(p.point_ns, 1000);
	ck_assert_int_eq(gpuproj_model_project(m, k, src, &fl, &on, &p), GPUPROJ_OK);
	ck_assert_rel(p.point_ns, 3000);
	ck_assert_rel(p.hi_ns, 3000);
	ck_assert_ptr_nonnull(strstr(p.note, "launch floor 3 us (mode unknown: stream) binds"));
	k->duration_ns.sum = k->duration_ns.mean = k->duration_ns.min = k->duration_ns.max = 40000;
	ck_assert_int_eq(gpuproj_model_project(m, k, src, &fl, &on, &p), GPUPROJ_OK);
	ck_assert_rel(p.point_ns, 10000);
	ck_assert_ptr_nonnull(strstr(p.note, "launch floor 3 us (mode unknown: stream): 30% of "
					     "the point"));
	/* Onto its own GPU the kernel keeps its measured time. */
	ck_assert_int_eq(gpuproj_model_project(m, k, &fl, &fl, &on, &p), GPUPROJ_OK);
	ck_assert_rel(p.point_ns, 40000);
	/* naive is the datasheet ratio and nothing else. */
	k->duration_ns.sum = k->duration_ns.mean = k->duration_ns.min = k->duration_ns.max = 4000;
	ck_assert_int_eq(gpuproj_model_project(gpuproj_model_find("naive"), k, src, &fl, &on, &p),
			 GPUPROJ_OK);
	ck_assert_rel(p.point_ns, 4000 * 120.0 / 500);
}
END_TEST

/*
 * naive on a kernel whose data stayed in L2 (bytes.dram 0, 1 MiB through
 * L2, FLOP 0): the L2 bytes at the datasheet DRAM rates, ModelSrc 120 GB/s
 * → ModelTgt 500 GB/s: T_t = 1e4 · 120/500 = 2400 ns. With no traffic at
 * all it cannot project.
 */
START_TEST(naive_resident_kernel)
{
	struct gpuproj_kernel *k = kernel("res", 1e4, 1000, 256, 64, 0);
	struct gpuproj_projection p;

	fp(k, 0);
	set(k, GPUPROJ_M_BYTES_DRAM, 0);
	set(k, GPUPROJ_M_BYTES_L2, MiB);
	p = project("naive", k, src, tgt);
	ck_assert_ok(p);
	ck_assert_rel(p.point_ns, 2400);
	set(k, GPUPROJ_M_BYTES_L2, 0);
	p = project("naive", k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_E_UNSUPPORTED);
	ck_assert_str_eq(p.why, "kernel has neither FLOP nor DRAM traffic to scale by");
}
END_TEST

/* -------------------------------------------------------- disagreement */

START_TEST(models_disagree)
{
	struct gpuproj_projection p[4];

	memset(p, 0, sizeof(p));
	p[0].point_ns = 100;
	p[1].point_ns = 250;
	p[2].point_ns = 500;
	p[3].status = GPUPROJ_E_MISSING;
	p[3].point_ns = 1; /* not projected: ignored */
	/* 500 > 4 × 100 */
	ck_assert(gpuproj_models_disagree(p, 4, 4.0));
	ck_assert(!gpuproj_models_disagree(p, 4, 5.0));
	/* ≤ 1 or NaN: GPUPROJ_MODEL_DISAGREEMENT_FACTOR = 4 */
	ck_assert(GPUPROJ_MODEL_DISAGREEMENT_FACTOR == 4.0);
	ck_assert(gpuproj_models_disagree(p, 4, 0));
	ck_assert(gpuproj_models_disagree(p, 4, NAN));
	/* 250 ≤ 4 × 100 */
	ck_assert(!gpuproj_models_disagree(p, 2, 0));
	/* one projected point is no disagreement */
	ck_assert(!gpuproj_models_disagree(&p[2], 2, 1.5));
	ck_assert(!gpuproj_models_disagree(p, 0, 2));
	ck_assert(!gpuproj_models_disagree(NULL, 3, 2));
}
END_TEST

/* ---------------------------------------------------------------- details */

START_TEST(details)
{
	struct gpuproj_kernel *k = kernel("mix", 1e6, 100, 256, 32, 0);
	struct gpuproj_model_details d;
	const struct gpuproj_detail *sp = NULL, *ei = NULL;
	size_t i, m;

	set(k, GPUPROJ_M_INST_FP32, 1e6);
	set(k, GPUPROJ_M_INST_FP32_FMA, 6e5);
	set(k, GPUPROJ_M_INST_FP64, 0);
	set(k, GPUPROJ_M_INST_INT, 1e6);
	set(k, GPUPROJ_M_INST_LDST, 1e6);
	set(k, GPUPROJ_M_INST_WARP, 1e5);
	set(k, GPUPROJ_M_BYTES_DRAM, 1e6);
	ck_assert_int_eq(gpuproj_model_details(gpuproj_model_find("quant"), k, src, tgt, NULL, &d),
			 GPUPROJ_OK);
	for (i = 0; i < d.n; i++) {
		if (strcmp(d.items[i].name, "tgt.T_SP") == 0)
			sp = &d.items[i];
		if (strcmp(d.items[i].name, "tgt.E_instr") == 0)
			ei = &d.items[i];
	}
	ck_assert_ptr_nonnull(sp);
	ck_assert_rel(sp->value, 3200);
	ck_assert_str_eq(sp->key, "max_gflops.fp32_fma");
	ck_assert_int_eq(sp->basis, GPUPROJ_BASIS_MEASURED);
	ck_assert_ptr_nonnull(ei);
	ck_assert_rel(ei->value, 0.3125 / 1.1125);

	/* Every model explains what it projects, and fails like its projection. */
	fp(k, 6e5);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	set(k, GPUPROJ_M_BYTES_L1, 1e6);
	set(k, GPUPROJ_M_BYTES_L2, 1e6);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	/* sol's default-section percentages (model.h GPUPROJ_SOL_*). */
	ck_assert_int_eq(gpuproj_kernel_add_extra(k, GPUPROJ_SOL_SM_PCT, "%", 20), 0);
	ck_assert_int_eq(gpuproj_kernel_add_extra(k, GPUPROJ_SOL_DRAM_PCT, "%", 60), 0);
	for (m = 0; m < gpuproj_model_count(); m++) {
		const struct gpuproj_model *model = gpuproj_model_at(m);
		struct gpuproj_projection p;

		gpuproj_model_project(model, k, src, tgt, NULL, &p);
		ck_assert_int_eq(gpuproj_model_details(model, k, src, tgt, NULL, &d), p.status);
		ck_assert_msg(p.status == GPUPROJ_OK, "%s: %s", gpuproj_model_name(model), p.why);
		ck_assert_uint_gt(d.n, 8);
	}
	/* ... also for a kernel that was never timed (hroof's details used to say OK). */
	{
		struct gpuproj_stats timed = k->duration_ns;

		memset(&k->duration_ns, 0, sizeof(k->duration_ns));
		for (m = 0; m < gpuproj_model_count(); m++) {
			const struct gpuproj_model *model = gpuproj_model_at(m);
			struct gpuproj_projection p;

			gpuproj_model_project(model, k, src, tgt, NULL, &p);
			int r = gpuproj_model_details(model, k, src, tgt, NULL, &d);

			ck_assert_msg(r == p.status, "%s", gpuproj_model_name(model));
			if (p.status != GPUPROJ_OK)
				ck_assert_uint_eq(d.n, 0);
		}
		k->duration_ns = timed;
	}
	/* No instruction count at all: irm has nothing to scale. */
	k->metric_n[GPUPROJ_M_INST_WARP] = 0;
	for (m = GPUPROJ_M_INST_FP16_FMA; m <= GPUPROJ_M_INST_THREAD; m++)
		k->metric_n[m] = 0;
	ck_assert_int_eq(gpuproj_model_details(gpuproj_model_find("irm"), k, src, tgt, NULL, &d),
			 GPUPROJ_E_MISSING);
	ck_assert_uint_eq(d.n, 0);
}
END_TEST

static Suite *
models_suite(void)
{
	Suite *s = suite_create("models");
	TCase *tc = tcase_create("models");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, registry);
	tcase_add_test(tc, option_words);
	tcase_add_test(tc, burst_clock);
	tcase_add_test(tc, fp32_dense);
	tcase_add_test(tc, clock_auto);
	tcase_add_test(tc, datasheet_rates);
	tcase_add_test(tc, quant_memory_bound);
	tcase_add_test(tc, quant_compute_bound_and_types);
	tcase_add_test(tc, quant_missing_inputs);
	tcase_add_test(tc, irm_memory);
	tcase_add_test(tc, irm_instruction_bound);
	tcase_add_test(tc, irm_missing_inputs);
	tcase_add_test(tc, occupancy_transfer);
	tcase_add_test(tc, wave_quantisation);
	tcase_add_test(tc, occupancy_missing_and_unfit);
	tcase_add_test(tc, hroof_occ);
	tcase_add_test(tc, hroof_occ_latency_floor);
	tcase_add_test(tc, latency_hiding_fn);
	tcase_add_test(tc, naive_baseline);
	tcase_add_test(tc, calibrated_intervals);
	tcase_add_test(tc, intervals_order);
	tcase_add_test(tc, intervals_bad_tables);
	tcase_add_test(tc, intervals_gpus);
	tcase_add_test(tc, intervals_merge);
	tcase_add_test(tc, l2_capacity_rule);
	tcase_add_test(tc, l2_capacity_option);
	tcase_add_test(tc, l2_capacity_hroof);
	tcase_add_test(tc, launch_floor_term);
	tcase_add_test(tc, naive_resident_kernel);
	tcase_add_test(tc, models_disagree);
	tcase_add_test(tc, details);
	suite_add_tcase(s, tc);
	tc = tcase_create("sweeps");
	tcase_add_test(tc, gpu_stream_sweeps);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(models_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
