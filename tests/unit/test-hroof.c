/* SPDX-License-Identifier: MIT */
/*
 * hroof (Van Lanker et al. 2024, eqs. 1–10) against values worked out by
 * hand. GPUs: tests/data/targets-test.yaml
 *
 *   SrcGPU: FP32 FMA 2000, FP64 FMA 1000 GFLOP/s (ADD/MUL = half);
 *           DRAM 100, L2 400, L1 1000, shared 1280 GB/s
 *   TgtGPU: FP32 FMA 4000, FP64 FMA peak 2000 but measured 1600 (used);
 *           DRAM 400, L2 800, L1 2000, shared 2560 GB/s
 *   Tensor (GFLOP/s): SrcGPU FP16 20000 (FP16 accumulate too), every other
 *   precision null; TgtGPU FP16 peak 80000, measured 60000 (used), BF16
 *   80000, TF32 40000, FP8 160000, FP64 4000, FP4 null, INT8 and
 *   FP16-accumulate absent (unknown).
 *
 * Notation below: t in seconds, rates in FLOP/s or B/s, times in ns.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/model.h>
#include <gpuproj/project.h>

#include "common.h"

static struct gpuproj_targets *targets;
static const struct gpuproj_target *src, *tgt;
static struct gpuproj_profile *prof;

static void
setup(void)
{
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-test.yaml"), &targets, &err), 0);
	src = gpuproj_targets_find(targets, "SrcGPU");
	tgt = gpuproj_targets_find(targets, "TgtGPU");
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(tgt);
	prof = gpuproj_profile_new();
	ck_assert_ptr_nonnull(prof);
}

static void
teardown(void)
{
	prof = gpuproj_profile_free(prof);
	targets = gpuproj_targets_free(targets);
}

/* A kernel with one timed launch and the nine FP counters (all 0 unless set). */
static struct gpuproj_kernel *
kernel(const char *name, double duration_ns)
{
	struct gpuproj_signature sig = { .name = name, .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct gpuproj_kernel *k;
	int m;

	ck_assert_int_eq(gpuproj_profile_kernel(prof, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, duration_ns);
	k->profiled = 1;
	for (m = GPUPROJ_M_INST_FP16_FMA; m <= GPUPROJ_M_INST_FP64_MUL; m++)
		gpuproj_kernel_add_metric(k, m, 0);
	return k;
}

/* Set a metric to `v` (replacing the zero a kernel starts with). */
static void
set(struct gpuproj_kernel *k, enum gpuproj_metric m, double v)
{
	k->metric_sum[m] = v;
	k->metric_n[m] = 1;
}

static void
bytes(struct gpuproj_kernel *k, double l1, double l2, double dram, double wavefronts)
{
	set(k, GPUPROJ_M_BYTES_L1, l1);
	set(k, GPUPROJ_M_BYTES_L2, l2);
	set(k, GPUPROJ_M_BYTES_DRAM, dram);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, wavefronts);
}

static struct gpuproj_projection
project(const struct gpuproj_kernel *k, const struct gpuproj_target *from,
	const struct gpuproj_target *to)
{
	/* The equations' own interval [min, max over levels], not the calibrated one. */
	static const struct gpuproj_model_options levels = { .level_interval = true };
	struct gpuproj_projection p;

	gpuproj_model_project(gpuproj_model_find("hroof"), k, from, to, &levels, &p);
	return p;
}

#define ck_assert_rel(a, b) \
	ck_assert_msg(fabs((a) - (b)) <= 1e-9 * fabs(b), "%s = %.17g, expected %.17g", #a, \
		      (double)(a), (double)(b))

/*
 * DRAM-bound streaming kernel: 1e6 FFMA (2e6 FLOP), 1e8 B at every level,
 * 1.2 ms on the source.
 * Source: hits N_L1 = N_L2 = 0, N_DRAM = 1e8; t_DRAM = 1e8/1e11 = 1e-3 s.
 *   Every level's ceiling is 1e11 B/s, OI = 2e6/1e8 = 0.02 FLOP/B,
 *   roofline = min(1e11·0.02, 2e12) = 2e9 FLOP/s.
 * Target: t_DRAM = 1e8/4e11 = 2.5e-4 s, roofline = 4e11·0.02 = 8e9.
 * T_t = 1.2e6 ns · 2e9/8e9 = 3e5 ns at every level; binding DRAM
 * (t_DRAM 2.5e-4 s ≫ compute 2e6/4e12 = 5e-7 s).
 */
START_TEST(dram_bound)
{
	struct gpuproj_kernel *k = kernel("stream", 1.2e6);
	struct gpuproj_projection p;
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_INST_FP32_FMA, 1e6);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	bytes(k, 1e8, 1e8, 1e8, 0);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, src, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.flop, 2e6);
	ck_assert_rel(h.perf_mix, 2e12);
	ck_assert_rel(h.perf_ceil, 2e12);
	ck_assert_rel(h.hits[GPUPROJ_LEVEL_DRAM], 1e8);
	ck_assert_rel(h.t[GPUPROJ_LEVEL_DRAM], 1e-3);
	ck_assert_rel(h.bw_ceil[GPUPROJ_HL_L1], 1e11);
	ck_assert_rel(h.oi[GPUPROJ_HL_DRAM], 0.02);
	ck_assert_rel(h.roofline[GPUPROJ_HL_L2], 2e9);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_rel(p.lo_ns, 3e5);
	ck_assert_rel(p.hi_ns, 3e5);
	ck_assert_rel(p.point_ns, 3e5);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_DRAM], 3e5);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);
}
END_TEST

/*
 * Compute-bound FP64 kernel: 1e9 DFMA (2e9 FLOP), 1e6 B per level, 2.5 ms.
 * Source: Perf^ceil = 1e12 (FP64 FMA peak, no measured value);
 *   t_DRAM = 1e6/1e11 = 1e-5 s → BW·OI = 2e9/1e-5 = 2e14 > 1e12, so every
 *   roofline is 1e12.
 * Target: measured FP64 FMA 1600 GFLOP/s wins over the 2000 peak:
 *   rooflines 1.6e12. T_t = 2.5e6 · 1e12/1.6e12 = 1.5625e6 ns; compute.
 */
START_TEST(compute_bound_uses_measured_peak)
{
	struct gpuproj_kernel *k = kernel("dgemm", 2.5e6);
	struct gpuproj_projection p;

	set(k, GPUPROJ_M_INST_FP64_FMA, 1e9);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	bytes(k, 1e6, 1e6, 1e6, 0);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_rel(p.lo_ns, 1.5625e6);
	ck_assert_rel(p.hi_ns, 1.5625e6);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_COMPUTE);
}
END_TEST

/*
 * Shared-memory kernel with 4-way bank conflicts: 1e6 wavefronts where a
 * conflict-free access pattern would need 2.5e5 (bank_conflicts = 7.5e5);
 * no L1/L2/DRAM traffic; 1e6 FFMA (2e6 FLOP); 200 µs.
 * Source: N_shM = 1e6 · 128 B = 1.28e8 B, t_shM = 1.28e8/1.28e12 = 1e-4 s;
 *   L1 ceiling = 1.28e12 B/s, OI_L1 = 2e6/1.28e8 = 0.015625,
 *   roofline_L1 = 2e10; L2 and DRAM carry nothing and drop out.
 * Target: t_shM = 5e-5 s, roofline_L1 = 4e10. T_t = 2e5 · 2e10/4e10 = 1e5
 *   ns, interval [1e5, 1e5]; binding shared (5e-5 s > 2e6/4e12 s).
 * Conflicts count: the same kernel without them (2.5e5 wavefronts) has a
 *   4× shorter t_shM (2.5e-5 s on the source).
 */
/* A kernel with tensor work only: no CUDA-core FP counter at all. */
static struct gpuproj_kernel *
tensor_kernel(const char *name, double duration_ns)
{
	struct gpuproj_signature sig = { .name = name, .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct gpuproj_kernel *k;

	ck_assert_int_eq(gpuproj_profile_kernel(prof, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, duration_ns);
	k->profiled = 1;
	return k;
}

/*
 * Where each precision runs (gpuproj_tensor_path()): its own path, the
 * table's next precision, or CUDA cores; measured rates first.
 */
START_TEST(tensor_paths)
{
	struct gpuproj_tensor_path t;

	ck_assert_int_eq(gpuproj_tensor_path(tgt, GPUPROJ_TPREC_FP16, &t), 0);
	ck_assert(t.tensor == GPUPROJ_TPREC_FP16 && !t.fallback && !t.unknown);
	ck_assert_rel(t.gflops, 60000.0); /* max_tensor wins over the 80000 peak */
	/* FP16 accumulate absent: unknown, the FP32-accumulate rate instead. */
	ck_assert_int_eq(gpuproj_tensor_path(tgt, GPUPROJ_TPREC_FP16_ACC16, &t), 0);
	ck_assert(t.tensor == GPUPROJ_TPREC_FP16 && t.fallback && t.unknown);
	/* FP4 null -> FP8. */
	ck_assert_int_eq(gpuproj_tensor_path(tgt, GPUPROJ_TPREC_FP4, &t), 0);
	ck_assert(t.tensor == GPUPROJ_TPREC_FP8 && t.fallback && !t.unknown);
	ck_assert_rel(t.gflops, 160000.0);
	/* INT8 unknown -> DP4A on CUDA cores: 4 x the FP32 FMA rate. */
	ck_assert_int_eq(gpuproj_tensor_path(tgt, GPUPROJ_TPREC_INT8, &t), 0);
	ck_assert(t.tensor == GPUPROJ_TPREC_COUNT && t.cuda == GPUPROJ_FP32 && t.unknown);
	ck_assert_rel(t.gflops, 16000.0);
	/* SrcGPU: FP8 null -> BF16 null -> CUDA-core FP32; FP64 -> CUDA-core FP64. */
	ck_assert_int_eq(gpuproj_tensor_path(src, GPUPROJ_TPREC_FP8, &t), 0);
	ck_assert(t.tensor == GPUPROJ_TPREC_COUNT && t.cuda == GPUPROJ_FP32 && t.fallback);
	ck_assert_rel(t.gflops, 2000.0);
	ck_assert_int_eq(gpuproj_tensor_path(src, GPUPROJ_TPREC_FP64, &t), 0);
	ck_assert(t.tensor == GPUPROJ_TPREC_COUNT && t.cuda == GPUPROJ_FP64);
	ck_assert_rel(t.gflops, 1000.0);
	ck_assert_int_eq(gpuproj_tensor_path(src, GPUPROJ_TPREC_COUNT, &t), GPUPROJ_E_INVAL);
}
END_TEST

/*
 * A tensor-bound GEMM: 2e9 FP16 tensor FLOP, 1e6 B per level, 200 µs.
 * Source: t_tensor = 2e9 / 2e13 = 1e-4 s, no CUDA-core work: Perf^ceil =
 *   2e9 / 1e-4 = 2e13; BW·OI at DRAM = 1e11 · 2e9/1e6 = 2e14 > 2e13, so every
 *   roofline is 2e13. Target: FP16 measured 6e13 -> rooflines 6e13.
 *   T_t = 2e5 · 2e13 / 6e13 = 66666.67 ns; binding compute.
 */
START_TEST(tensor_bound)
{
	struct gpuproj_kernel *k = tensor_kernel("hgemm", 2e5);
	struct gpuproj_projection p;
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_FLOP_TENSOR_FP16, 2e9);
	bytes(k, 1e6, 1e6, 1e6, 0);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, src, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.flop, 2e9);
	ck_assert_rel(h.flop_tensor, 2e9);
	ck_assert_rel(h.t_tensor, 1e-4);
	ck_assert_rel(h.perf_ceil, 2e13);
	ck_assert_uint_eq(h.tensor_fallback, 0);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_rel(p.lo_ns, 2e5 * 2e13 / 6e13);
	ck_assert_rel(p.hi_ns, 2e5 * 2e13 / 6e13);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_COMPUTE);
}
END_TEST

/*
 * BF16 work on a source without BF16 tensor cores (SrcGPU: null -> SGEMM on
 * CUDA cores, 2e12 FLOP/s): 2e9 FLOP take t_cuda = 1e-3 s; 1.1 ms measured.
 * Target BF16 8e13: T_t = 1.1e6 · 2e12 / 8e13 = 27500 ns.
 */
START_TEST(tensor_fallback_to_cuda_cores)
{
	struct gpuproj_kernel *k = tensor_kernel("bf16gemm", 1.1e6);
	struct gpuproj_projection p;
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_FLOP_TENSOR_BF16, 2e9);
	bytes(k, 1e6, 1e6, 1e6, 0);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, src, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.t_cuda, 1e-3);
	ck_assert_rel(h.t_tensor, 0.0);
	ck_assert_rel(h.perf_ceil, 2e12);
	ck_assert_uint_eq(h.tensor_fallback, 1u << GPUPROJ_TPREC_BF16);
	p = project(k, src, tgt);
	ck_assert_rel(p.point_ns, 27500.0);
	/* The note says where the work runs on a target without the path. */
	{
		static const struct gpuproj_model_options notes = { .level_interval = true,
								   .notes = true };

		gpuproj_model_project(gpuproj_model_find("hroof"), k, tgt, src, &notes, &p);
		ck_assert_int_eq(p.status, GPUPROJ_OK);
		ck_assert_str_eq(p.note, "tensor bf16 -> CUDA-core fp32 (bf16 no path)");
	}
}
END_TEST

/*
 * Both pipes at once: 1e9 FFMA (2e9 CUDA-core FLOP, warp efficiency 1) and
 * 2e10 FP16 tensor FLOP, 2 ms measured.
 * Source: t_cuda = 2e9/2e12 = 1e-3, t_tensor = 2e10/2e13 = 1e-3; compute
 *   1e-3 s, Perf^ceil = 2.2e10 / 1e-3 = 2.2e13.
 * Target: t_cuda = 2e9/4e12 = 5e-4, t_tensor = 2e10/6e13 = 3.33e-4; compute
 *   5e-4 s (the CUDA cores now bind), Perf^ceil = 4.4e13. T_t = 2e6/2 = 1e6.
 */
START_TEST(tensor_and_cuda_pipes)
{
	struct gpuproj_kernel *k = kernel("fused", 2e6);
	struct gpuproj_projection p;
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_INST_FP32_FMA, 1e9);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	set(k, GPUPROJ_M_FLOP_TENSOR_FP16, 2e10);
	bytes(k, 1e6, 1e6, 1e6, 0);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, tgt, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.t_cuda, 5e-4);
	ck_assert_rel(h.perf_ceil, 4.4e13);
	p = project(k, src, tgt);
	ck_assert_rel(p.point_ns, 1e6);
	/* Without the tensor metric the kernel needs its CUDA-core counters only. */
	k->metric_n[GPUPROJ_M_FLOP_TENSOR_FP16] = 0;
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, src, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.flop_tensor, 0.0);
	ck_assert_rel(h.perf_ceil, 2e12);
}
END_TEST

/*
 * "quant and sol: say what they do with tensor work": a model
 * that leaves tensor work off the tensor pipes (here occupancy) says so in
 * its note, with the share of FLOP it leaves out (2e10 of 2.2e10 = 90.9 %);
 * the models that model it (hroof, hroof-occ, irm, naive) never do.
 * naive puts each pipe at its datasheet peak, one after the other
 * (model-naive.c), A100-SXM4-40GB -> H100-SXM5-80GB, GFLOP/s:
 *   t_s = 2e9 / 19491.8 + 2e10 / 312000 (FP32 FMA, FP16 tensor peaks)
 *   t_t = 2e9 / 66908.2 + 2e10 / 989400
 *   compute-bound on both (OI = 2.2e10 / 1e6 B), T_t = 2e6 ns · t_t / t_s
 *   = 601,116 ns. The same work in FP8: the A100 has no FP8 path and runs
 *   it as BF16 (peak 312000), the H100 at its FP8 peak 1978900.
 */
START_TEST(tensor_unmodelled_note)
{
	static const struct gpuproj_model_options notes = { .level_interval = true,
							   .notes = true };
	struct gpuproj_kernel *k = kernel("fused", 2e6);
	struct gpuproj_targets *builtin = NULL;
	const struct gpuproj_target *a100, *h100;
	struct gpuproj_error err = { 0 };
	struct gpuproj_projection p;

	set(k, GPUPROJ_M_INST_FP32_FMA, 1e9);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	set(k, GPUPROJ_M_FLOP_TENSOR_FP16, 2e10);
	bytes(k, 1e6, 1e6, 1e6, 0);
	/* naive needs peak_bw_gbs, which the test GPUs lack: the built-in A100 and H100. */
	ck_assert_int_eq(gpuproj_targets_load_builtin(&builtin, &err), GPUPROJ_OK);
	a100 = gpuproj_targets_find(builtin, "A100-SXM4-40GB");
	h100 = gpuproj_targets_find(builtin, "H100-SXM5-80GB");
	k->regs_per_thread = 32;
	gpuproj_model_project(gpuproj_model_find("occupancy"), k, a100, h100, &notes, &p);
	ck_assert_msg(p.status == GPUPROJ_OK, "%s", p.why);
	ck_assert_msg(strstr(p.note, "; tensor work 90.9% of FLOP not modelled: its roofline "
				     "ratio has CUDA-core FLOP only"), "%s", p.note);
	gpuproj_model_project(gpuproj_model_find("naive"), k, a100, h100, &notes, &p);
	ck_assert_msg(p.status == GPUPROJ_OK, "%s", p.why);
	ck_assert_rel(p.point_ns, 2e6 * (2e9 / 66908.2 + 2e10 / 989400.0) /
					  (2e9 / 19491.8 + 2e10 / 312000.0));
	ck_assert_msg(!strstr(p.note, "not modelled"), "%s", p.note);
	set(k, GPUPROJ_M_FLOP_TENSOR_FP16, 0);
	set(k, GPUPROJ_M_FLOP_TENSOR_FP8, 2e10);
	gpuproj_model_project(gpuproj_model_find("naive"), k, a100, h100, &notes, &p);
	ck_assert_msg(p.status == GPUPROJ_OK, "%s", p.why);
	ck_assert_rel(p.point_ns, 2e6 * (2e9 / 66908.2 + 2e10 / 1978900.0) /
					  (2e9 / 19491.8 + 2e10 / 312000.0));
	gpuproj_model_project(gpuproj_model_find("naive"), k, h100, a100, &notes, &p);
	ck_assert_msg(strstr(p.note, "tensor fp8 -> bf16 (fp8 no path)"), "%s", p.note);
	k->metric_n[GPUPROJ_M_FLOP_TENSOR_FP8] = 0;
	set(k, GPUPROJ_M_FLOP_TENSOR_FP16, 2e10);
	for (const char *const *m = (const char *const[]){ "hroof", "hroof-occ", "irm", NULL }; *m;
	     m++) {
		gpuproj_model_project(gpuproj_model_find(*m), k, src, tgt, &notes, &p);
		ck_assert_msg(!strstr(p.note, "not modelled"), "%s: %s", *m, p.note);
	}
	/* Without tensor work: no such note. */
	k->metric_n[GPUPROJ_M_FLOP_TENSOR_FP16] = 0;
	gpuproj_model_project(gpuproj_model_find("naive"), k, a100, h100, &notes, &p);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_ptr_null(strstr(p.note, "tensor"));
	gpuproj_targets_free(builtin);
}
END_TEST

START_TEST(shared_with_bank_conflicts)
{
	struct gpuproj_kernel *k = kernel("smem", 2e5);
	struct gpuproj_projection p;
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_INST_FP32_FMA, 1e6);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	set(k, GPUPROJ_M_SHARED_BANK_CONFLICTS, 7.5e5);
	bytes(k, 0, 0, 0, 1e6);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, src, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.t[GPUPROJ_LEVEL_SHARED], 1e-4);
	ck_assert_rel(h.roofline[GPUPROJ_HL_L1], 2e10);
	ck_assert(!h.valid[GPUPROJ_HL_L2]);
	ck_assert(!h.valid[GPUPROJ_HL_DRAM]);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_rel(p.lo_ns, 1e5);
	ck_assert_rel(p.hi_ns, 1e5);
	ck_assert(isnan(p.level_ns[GPUPROJ_HL_L2]));
	ck_assert(isnan(p.level_ns[GPUPROJ_HL_DRAM]));
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_SHARED);

	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 2.5e5);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, src, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.t[GPUPROJ_LEVEL_SHARED], 2.5e-5);
}
END_TEST

/*
 * FLOP-free copy with some cache reuse: B_L1 = 4e8, B_L2 = 3e8,
 * B_DRAM = 2e8 B; 2.2 ms. Time-space projection T_t = T_s·BW^ceil_s/BW^ceil_t.
 * Hits: N_L1 = 1e8, N_L2 = 1e8, N_DRAM = 2e8.
 * Source: t_L1 = 1e8/1e12 = 1e-4, t_L2 = 1e8/4e11 = 2.5e-4, t_DRAM = 2e-3 s
 *   ceil_L1 = 4e8/2.35e-3, ceil_L2 = 3e8/2.25e-3, ceil_DRAM = 1e11.
 * Target: t_L1 = 5e-5, t_L2 = 1.25e-4, t_DRAM = 5e-4 s
 *   ceil_L1 = 4e8/6.75e-4, ceil_L2 = 3e8/6.25e-4, ceil_DRAM = 4e11.
 * T_t(L1)   = 2.2e6 · 6.75e-4/2.35e-3 = 631914.89361702127 ns
 * T_t(L2)   = 2.2e6 · 6.25e-4/2.25e-3 = 611111.11111111111 ns
 * T_t(DRAM) = 2.2e6 · 0.25            = 550000 ns
 * interval [550000, 631914.89], point 590957.44680851064; binding DRAM.
 * warp_efficiency is not needed when FLOP = 0.
 */
START_TEST(flop_free_copy)
{
	struct gpuproj_kernel *k = kernel("copy", 2.2e6);
	struct gpuproj_projection p;

	bytes(k, 4e8, 3e8, 2e8, 0);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L1], 2.2e6 * 6.75e-4 / 2.35e-3);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L2], 2.2e6 * 6.25e-4 / 2.25e-3);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_DRAM], 550000.0);
	ck_assert_rel(p.lo_ns, 550000.0);
	ck_assert_rel(p.hi_ns, 631914.89361702127);
	ck_assert_rel(p.point_ns, 590957.44680851064);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);
}
END_TEST

/*
 * Mixed FP32/FP64 (eq. 2 over precisions): 1e6 each of FFMA, FADD, DFMA,
 * DMUL; FLOP = 2e6 + 1e6 + 2e6 + 1e6 = 6e6; 1000 B per level; 10 µs.
 * Perf^mix_s = (2000 + 1000 + 1000 + 500)/4 GFLOP/s = 1.125e12
 * Perf^mix_t = (4000 + 2000 + 1600 + 800)/4 GFLOP/s = 2.1e12
 *   (FP64 uses the measured 1600, ADD/MUL = 1600/2)
 * Memory is negligible (t_DRAM = 1e-8 s → 6e14 FLOP/s ≫ ceiling):
 * T_t = 1e4 · 1.125e12/2.1e12 = 5357.1428571428571 ns; compute.
 */
START_TEST(mixed_fp32_fp64)
{
	struct gpuproj_kernel *k = kernel("mixed", 1e4);
	struct gpuproj_projection p;
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_INST_FP32_FMA, 1e6);
	set(k, GPUPROJ_M_INST_FP32_ADD, 1e6);
	set(k, GPUPROJ_M_INST_FP64_FMA, 1e6);
	set(k, GPUPROJ_M_INST_FP64_MUL, 1e6);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	bytes(k, 1000, 1000, 1000, 0);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, src, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.flop, 6e6);
	ck_assert_rel(h.perf_mix, 1.125e12);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, tgt, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.perf_mix, 2.1e12);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_rel(p.point_ns, 1e4 * 1.125e12 / 2.1e12);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_COMPUTE);
}
END_TEST

/*
 * Warp efficiency 0.25 (eq. 3): 1e8 FFMA (2e8 FLOP), B_DRAM = 4e7 at every
 * level, 1 ms.
 * Source: Perf^ceil = 0.25 · 2e12 = 5e11; t_DRAM = 4e7/1e11 = 4e-4 s,
 *   BW·OI = 2e8/4e-4 = 5e11 → roofline 5e11.
 * Target: Perf^ceil = 0.25 · 4e12 = 1e12; t_DRAM = 1e-4 s → 2e12, so the
 *   roofline is the compute ceiling 1e12: T_t = 1e6 · 5e11/1e12 = 5e5 ns.
 * With warp efficiency 1 the target roofline would be the 2e12 of DRAM and
 * T_t = 2.5e5 ns: the low efficiency doubles the projection.
 */
START_TEST(warp_efficiency_quarter)
{
	struct gpuproj_kernel *k = kernel("divergent", 1e6);
	struct gpuproj_projection p;
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_INST_FP32_FMA, 1e8);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 0.25);
	bytes(k, 4e7, 4e7, 4e7, 0);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, src, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.perf_ceil, 5e11);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_rel(p.point_ns, 5e5);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_COMPUTE);

	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	p = project(k, src, tgt);
	ck_assert_rel(p.point_ns, 2.5e5);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);
}
END_TEST

/* Source = target returns the measured time at every level, whatever the kernel. */
START_TEST(source_equals_target)
{
	struct gpuproj_kernel *k = kernel("any", 123456.7);
	struct gpuproj_projection p;
	int i;

	set(k, GPUPROJ_M_INST_FP32_FMA, 3.3e6);
	set(k, GPUPROJ_M_INST_FP64_ADD, 1.1e5);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 0.8);
	bytes(k, 5e7, 3e7, 2.5e7, 4e5);
	p = project(k, tgt, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	for (i = 0; i < GPUPROJ_HL_COUNT; i++)
		ck_assert_rel(p.level_ns[i], 123456.7);
	ck_assert_rel(p.point_ns, 123456.7);
}
END_TEST

/* A FLOP ratio r (SASS comparison) scales OI_t and the time: T_t = r·T_s·roof_s/roof_t. */
START_TEST(flop_ratio_scales_target)
{
	struct gpuproj_kernel *k = kernel("dgemm", 2.5e6);
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_INST_FP64_FMA, 1e9);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	bytes(k, 1e6, 1e6, 1e6, 0);
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, tgt, 1.5, &h, NULL, 0), 0);
	ck_assert_rel(h.flop, 3e9);
	ck_assert_rel(h.oi[GPUPROJ_HL_DRAM], 3e3);
}
END_TEST

/*
 * Inputs the profile lacks become stated assumptions (model.h enum
 * gpuproj_assumption), not refusals: 1 µs, 10 FFMA (20 FLOP), bytes.l1 100,
 * bytes.dram 100, wavefronts 0; no bytes.l2, no warp_efficiency.
 * Full warps: Perf^ceil = Perf^mix = 2e12 (source), 4e12 (target). No L2
 * bytes: B_L2 := B_DRAM = 100, so N_L1 = N_L2 = 0, N_DRAM = 100, and the
 * L2 level is not projected. L1 and DRAM: ceiling 100 / (100/1e11) = 1e11
 * B/s on the source, 4e11 on the target; OI = 20/100 = 0.2; rooflines 2e10
 * and 8e10 FLOP/s; T_t = 1000 · 2e10/8e10 = 250 ns at both. Binding DRAM
 * (100/4e11 = 2.5e-10 s ≫ 20/4e12 = 5e-12 s).
 */
START_TEST(missing_metrics_are_assumed)
{
	struct gpuproj_kernel *k = kernel("incomplete", 1e3);
	struct gpuproj_projection p;

	set(k, GPUPROJ_M_INST_FP32_FMA, 10);
	set(k, GPUPROJ_M_BYTES_L1, 100);
	set(k, GPUPROJ_M_BYTES_DRAM, 100);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_uint_eq(p.assumed, 1u << GPUPROJ_ASSUME_WARPS | 1u << GPUPROJ_ASSUME_L2);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L1], 250.0);
	ck_assert(isnan(p.level_ns[GPUPROJ_HL_L2]));
	ck_assert_rel(p.level_ns[GPUPROJ_HL_DRAM], 250.0);
	ck_assert_rel(p.point_ns, 250.0);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_DRAM);
}
END_TEST

/*
 * No FP counter: the memory levels only, in time space (compute unbounded):
 * 1 B at every level (N_DRAM = 1, no hits above), every ceiling 1e11 → 4e11
 * B/s: T_t = 100 · 1e11/4e11 = 25 ns.
 */
START_TEST(missing_fp_counters_are_assumed)
{
	struct gpuproj_signature sig = { .name = "nofp", .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
	struct gpuproj_kernel *k;
	struct gpuproj_projection p;

	ck_assert_int_eq(gpuproj_profile_kernel(prof, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, 100);
	bytes(k, 1, 1, 1, 0);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_uint_eq(p.assumed, 1u << GPUPROJ_ASSUME_FLOP);
	ck_assert_rel(p.point_ns, 25.0);
}
END_TEST

/* Neither FLOP nor bytes, or no time: the one refusal, named. */
START_TEST(nothing_measured_is_named)
{
	struct gpuproj_signature sig = { .name = "bare2", .grid = { 1, 1, 1 },
					 .block = { 1, 1, 1 } };
	struct gpuproj_kernel *k;
	struct gpuproj_projection p;

	ck_assert_int_eq(gpuproj_profile_kernel(prof, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, 100);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_E_MISSING);
	ck_assert_str_eq(p.why, "hroof needs FLOP (inst.fp{16,32,64}.{fma,add,mul} or "
			 "flop.tensor.*) or bytes (bytes.l1, bytes.l2, bytes.dram)");
	ck_assert_uint_eq(p.assumed, 0);
	ck_assert(isnan(p.point_ns));
}
END_TEST

/* The same rule as projecting, without a GPU; "duration" first when untimed. */
START_TEST(missing_inputs_by_name)
{
	struct gpuproj_signature sig = { .name = "bare", .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
	const struct gpuproj_model *m = gpuproj_model_find("hroof");
	struct gpuproj_kernel *k;
	char buf[256];

	ck_assert_int_eq(gpuproj_profile_kernel(prof, &sig, &k), 0);
	ck_assert_uint_eq(gpuproj_model_missing_inputs(m, k, buf, sizeof(buf)), 2);
	ck_assert_str_eq(buf, "duration, FLOP (inst.fp{16,32,64}.{fma,add,mul} or flop.tensor.*) "
			 "or bytes (bytes.l1, bytes.l2, bytes.dram)");
	gpuproj_kernel_add_duration(k, 10);
	set(k, GPUPROJ_M_INST_FP32_FMA, 5);
	bytes(k, 1, 1, 1, 0);
	ck_assert_uint_eq(gpuproj_model_missing_inputs(m, k, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_uint_eq(gpuproj_model_assumptions(m, k), 1u << GPUPROJ_ASSUME_WARPS);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	ck_assert_uint_eq(gpuproj_model_assumptions(m, k), 0);
}
END_TEST

START_TEST(no_duration)
{
	struct gpuproj_signature sig = { .name = "untimed", .grid = { 1, 1, 1 }, .block = { 1, 1, 1 } };
	struct gpuproj_kernel *k;
	struct gpuproj_projection p;

	ck_assert_int_eq(gpuproj_profile_kernel(prof, &sig, &k), 0);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_E_MISSING);
	ck_assert_str_eq(p.why, "no timed launch (duration)");
}
END_TEST

START_TEST(nothing_to_scale)
{
	struct gpuproj_kernel *k = kernel("empty", 2000);
	struct gpuproj_projection p;

	bytes(k, 0, 0, 0, 0);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_E_UNSUPPORTED);
	ck_assert_str_eq(p.why, "kernel has neither FLOP nor memory traffic to scale by");
}
END_TEST

START_TEST(bad_warp_efficiency)
{
	struct gpuproj_kernel *k = kernel("weird", 2000);
	struct gpuproj_projection p;

	set(k, GPUPROJ_M_INST_FP32_FMA, 10);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.5);
	bytes(k, 1, 1, 1, 0);
	p = project(k, src, tgt);
	ck_assert_int_eq(p.status, GPUPROJ_E_INVAL);
	ck_assert_str_eq(p.why, "warp_efficiency 1.5 is outside (0, 1]");
}
END_TEST

/*
 * Whole run: the DRAM-bound kernel above launched 10 times (3e5 ns each on
 * the target) plus an unprojectable 2000 ns kernel launched 5 times, whose
 * 1e4 ns are carried unchanged: point = 10·3e5 + 1e4 = 3.01e6 ns; source
 * = 10·1.2e6 + 5·2000 = 1.201e7 ns.
 */
START_TEST(run_totals_carry_unprojected)
{
	struct gpuproj_kernel *k = kernel("stream", 1.2e6);
	struct gpuproj_kernel *e = kernel("empty", 2000);
	struct gpuproj_run_projection run;
	int i;

	set(k, GPUPROJ_M_INST_FP32_FMA, 1e6);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	bytes(k, 1e8, 1e8, 1e8, 0);
	for (i = 0; i < 9; i++)
		gpuproj_kernel_add_duration(k, 1.2e6);
	bytes(e, 0, 0, 0, 0);
	for (i = 0; i < 4; i++)
		gpuproj_kernel_add_duration(e, 2000);
	ck_assert_int_eq(gpuproj_project_run(prof, gpuproj_model_find("hroof"), src, tgt,
					     &(struct gpuproj_model_options){ .level_interval = true },
					     &run), 0);
	ck_assert_uint_eq(run.n, 2);
	ck_assert_rel(run.source_ns, 1.201e7);
	ck_assert_rel(run.point_ns, 3.01e6);
	ck_assert_rel(run.lo_ns, 3.01e6);
	ck_assert_uint_eq(run.n_unprojected, 1);
	ck_assert_rel(run.unprojected_source_ns, 1e4);

	/*
	 * The writers index run.kernels by the profile's kernels: a run of
	 * another length is refused instead of read past its end.
	 */
	{
		FILE *f = tmpfile();
		struct gpuproj_error err = { 0 };

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(gpuproj_project_table(f, prof, src, &run, 1, NULL), GPUPROJ_OK);
		ck_assert_int_eq(gpuproj_project_csv(f, prof, src, &run, 1), GPUPROJ_OK);
		run.n = 3;
		ck_assert_int_eq(gpuproj_project_table(f, prof, src, &run, 1, NULL),
				 GPUPROJ_E_INVAL);
		ck_assert_int_eq(gpuproj_project_csv(f, prof, src, &run, 1), GPUPROJ_E_INVAL);
		ck_assert_int_eq(gpuproj_project_json("-", prof, src, &run, 1, &err),
				 GPUPROJ_E_INVAL);
		ck_assert_str_eq(err.message, "invalid argument: a projection does not cover "
				 "the profile's kernels");
		run.n = 2;
		fclose(f);
	}
	gpuproj_run_projection_clear(&run);
}
END_TEST

/*
 * gpuproj_project_targets(), the one orchestration of `project` and
 * libproj.so, on the stream kernel of run_totals_carry_unprojected (ten
 * launches of 1.2e6 ns; 3e5 ns per launch on TgtGPU, the level interval):
 * the source from the profile's device name ("Test Source GPU" matches
 * SrcGPU), every target in file order (SrcGPU: the measured 1.2e7 ns;
 * TgtGPU: 10 · 3e5 = 3e6 ns), the targets named, every model, runs on
 * demand, and an unknown target's message after the source was resolved.
 */
START_TEST(project_targets_orchestration)
{
	struct gpuproj_kernel *k = kernel("stream", 1.2e6);
	const char *names[] = { "TgtGPU" }, *bad[] = { "Quux" };
	struct gpuproj_project_request req = {
		.targets = targets, .model = gpuproj_model_find("hroof"),
		.options = { .level_interval = true },
	};
	struct gpuproj_projections pr;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_run_projection *run;
	size_t m;
	int i, st;

	set(k, GPUPROJ_M_INST_FP32_FMA, 1e6);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	bytes(k, 1e8, 1e8, 1e8, 0);
	for (i = 0; i < 9; i++)
		gpuproj_kernel_add_duration(k, 1.2e6);
	ck_assert_int_eq(gpuproj_profile_set_device(prof, "Test Source GPU", NULL, NULL, 0, 0, 0,
						    0), GPUPROJ_OK);

	/* Every target, one model: SrcGPU then TgtGPU, as targets-test.yaml lists them. */
	ck_assert_int_eq(gpuproj_project_targets(prof, &req, &pr, &err), GPUPROJ_OK);
	ck_assert_ptr_eq(pr.source, src);
	ck_assert_ptr_null(pr.derived);
	ck_assert_ptr_null(pr.sass);
	ck_assert_uint_eq(pr.n_targets, 2);
	ck_assert_uint_eq(pr.n_models, 1);
	ck_assert_uint_eq(pr.n_runs, 2);
	ck_assert_ptr_eq(pr.runs[0].target, src);
	ck_assert_ptr_eq(pr.runs[1].target, tgt);
	ck_assert_rel(pr.runs[0].point_ns, 1.2e7);
	ck_assert_rel(pr.runs[1].point_ns, 3e6);
	gpuproj_projections_clear(&pr);

	/* The targets named, one run at a time. */
	req.target_names = names;
	req.n_target_names = 1;
	req.on_demand = true;
	ck_assert_int_eq(gpuproj_project_targets(prof, &req, &pr, &err), GPUPROJ_OK);
	ck_assert_ptr_null(pr.runs);
	ck_assert_uint_eq(pr.n_runs, 1);
	run = gpuproj_projections_provide(&pr, 0, &st);
	ck_assert_ptr_nonnull(run);
	ck_assert_ptr_eq(run->target, tgt);
	ck_assert_rel(run->point_ns, 3e6);
	ck_assert_ptr_null(gpuproj_projections_provide(&pr, 1, &st));
	ck_assert_int_eq(st, GPUPROJ_E_INVAL);
	gpuproj_projections_clear(&pr);

	/* Every model side by side, each alone: target-major. */
	req.all_models = true;
	ck_assert_int_eq(gpuproj_project_targets(prof, &req, &pr, &err), GPUPROJ_OK);
	ck_assert_uint_eq(pr.n_models, gpuproj_model_count());
	ck_assert_uint_eq(pr.n_runs, gpuproj_model_count());
	ck_assert_int_eq(pr.options.fallback, GPUPROJ_FALLBACK_OFF);
	for (m = 0; m < pr.n_runs; m++)
		ck_assert_ptr_eq(pr.runs[m].model, gpuproj_model_at(m));
	gpuproj_projections_clear(&pr);

	/* An unknown target: the lookup's message; the source is resolved already. */
	req.all_models = false;
	req.target_names = bad;
	ck_assert_int_eq(gpuproj_project_targets(prof, &req, &pr, &err), GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_eq(pr.source, src);
	ck_assert_str_eq(err.message, "target GPU 'Quux' is not in targets.yaml "
			 "(`gpuproj targets list` shows all)");
	gpuproj_projections_clear(&pr);
	ck_assert_int_eq(gpuproj_project_targets(prof, NULL, &pr, &err), GPUPROJ_E_INVAL);
}
END_TEST

/* ---- the issue roof (GPUPROJ_COMPUTE_ISSUE), tests/data/targets-issue.yaml ---- */

static struct gpuproj_targets *itargets;
static const struct gpuproj_target *ded, *shr;

static void
setup_issue(void)
{
	struct gpuproj_error err = { 0 };

	setup();
	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-issue.yaml"), &itargets, &err),
			 0);
	ded = gpuproj_targets_find(itargets, "DedicatedGPU");
	shr = gpuproj_targets_find(itargets, "SharedGPU");
	ck_assert_ptr_nonnull(ded);
	ck_assert_ptr_nonnull(shr);
}

static void
teardown_issue(void)
{
	itargets = gpuproj_targets_free(itargets);
	teardown();
}

static struct gpuproj_projection
project_compute(const struct gpuproj_kernel *k, const struct gpuproj_target *from,
		const struct gpuproj_target *to, enum gpuproj_compute compute)
{
	struct gpuproj_model_options o = { .level_interval = true, .compute = compute };
	struct gpuproj_projection p;

	gpuproj_model_project(gpuproj_model_find("hroof"), k, from, to, &o, &p);
	return p;
}

/*
 * An FFMA kernel with integer and load/store work, no memory traffic:
 * f = 6.4e8 FFMA (1.28e9 FLOP), i = 3.2e8 INT32, 6.4e7 LD/ST thread
 * instructions, inst.warp W = 1.024e9 / 32 = 3.2e7, warp efficiency 1;
 * 2 ms on DedicatedGPU. u = 1e10 lane-clocks/s on both GPUs.
 * DedicatedGPU (D_f = 64, D_i = 64, S = 0):
 *   t_fp    = 1.28e9 / 1.28e12                          = 1e-3 s
 *   t_alu   = max(6.4e8/64, 3.2e8/64, 9.6e8/128) / 1e10 = 1e-3 s
 *   t_issue = 3.2e7 / (1e10 · 4 · 1)                    = 8e-4 s
 *   compute 1e-3 s (the FP roof), Perf^ceil = 1.28e12 FLOP/s, binding compute.
 * SharedGPU (D_f = 64, D_i = 0, S = 64):
 *   t_fp    = 1.28e9 / 2.56e12                          = 5e-4 s
 *   t_alu   = max(6.4e8/128, 3.2e8/64, 9.6e8/128) / 1e10 = 7.5e-4 s
 *   t_issue = 3.2e7 / 4e10                              = 8e-4 s
 *   compute 8e-4 s, Perf^ceil = 1.28e9 / 8e-4 = 1.6e12, binding instruction.
 * Projected (no traffic: T_t = T_s · Perf^ceil_s / Perf^ceil_t):
 *   issue roof 2e6 · 1.28e12 / 1.6e12 = 1.6e6 ns; FP roof 2e6 · 1.28/2.56 = 1e6 ns.
 * Back from SharedGPU (1.6e6 ns there) onto DedicatedGPU: 2e6 ns again.
 */
START_TEST(issue_roof_shared_datapath)
{
	struct gpuproj_kernel *k = kernel("ffma_int", 2e6);
	struct gpuproj_projection p;
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_INST_FP32_FMA, 6.4e8);
	set(k, GPUPROJ_M_INST_INT, 3.2e8);
	set(k, GPUPROJ_M_INST_LDST, 6.4e7);
	set(k, GPUPROJ_M_INST_WARP, 3.2e7);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	bytes(k, 0, 0, 0, 0);

	ck_assert_int_eq(gpuproj_hroof_ceilings_compute(k, ded, 1.0, GPUPROJ_COMPUTE_ISSUE, &h,
							NULL, 0), 0);
	ck_assert_rel(h.t_fp, 1e-3);
	ck_assert_rel(h.t_alu, 1e-3);
	ck_assert_rel(h.t_issue, 8e-4);
	ck_assert_rel(h.perf_ceil, 1.28e12);
	ck_assert_uint_eq(h.issue_mix, 0);
	ck_assert_int_eq(gpuproj_hroof_ceilings_compute(k, shr, 1.0, GPUPROJ_COMPUTE_ISSUE, &h,
							NULL, 0), 0);
	ck_assert_rel(h.t_fp, 5e-4);
	ck_assert_rel(h.t_alu, 7.5e-4);
	ck_assert_rel(h.t_issue, 8e-4);
	ck_assert_rel(h.perf_ceil, 1.6e12);
	/* The FP roof (the paper, and gpuproj_hroof_ceilings()) leaves the terms at 0. */
	ck_assert_int_eq(gpuproj_hroof_ceilings(k, shr, 1.0, &h, NULL, 0), 0);
	ck_assert_rel(h.perf_ceil, 2.56e12);
	ck_assert(h.t_issue == 0 && h.t_alu == 0 && h.t_fp == 0);

	p = project_compute(k, ded, shr, GPUPROJ_COMPUTE_ISSUE);
	ck_assert_int_eq(p.status, GPUPROJ_OK);
	ck_assert_rel(p.point_ns, 1.6e6);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_INSTRUCTION);
	p = project_compute(k, ded, shr, GPUPROJ_COMPUTE_FP);
	ck_assert_rel(p.point_ns, 1e6);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_COMPUTE);
	/* The default is the FP roof. */
	p = project_compute(k, ded, shr, GPUPROJ_COMPUTE_DEFAULT);
	ck_assert_rel(p.point_ns, 1e6);

	gpuproj_kernel_add_duration(k, 1.2e6); /* mean (2 + 1.2) / 2 = 1.6 ms */
	p = project_compute(k, shr, ded, GPUPROJ_COMPUTE_ISSUE);
	ck_assert_rel(p.point_ns, 2e6);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_COMPUTE);
}
END_TEST

/*
 * Only FFMAs (f = 6.4e8, inst.warp = 2e7): the issue roof is the paper's on
 * both GPUs. DedicatedGPU: t_fp = t_alu = 1e-3 s, t_issue = 2e7/4e10 =
 * 5e-4 s; SharedGPU: t_fp = t_alu = t_issue = 5e-4 s (issue exactly full,
 * not above the pipes: binding compute). Projected 2e6 · 1.28/2.56 = 1e6 ns.
 */
START_TEST(issue_roof_pure_ffma_is_the_paper)
{
	struct gpuproj_kernel *k = kernel("ffma", 2e6);
	struct gpuproj_projection p;

	set(k, GPUPROJ_M_INST_FP32_FMA, 6.4e8);
	set(k, GPUPROJ_M_INST_INT, 0);
	set(k, GPUPROJ_M_INST_WARP, 2e7);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	bytes(k, 0, 0, 0, 0);
	p = project_compute(k, ded, shr, GPUPROJ_COMPUTE_ISSUE);
	ck_assert_rel(p.point_ns, 1e6);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_COMPUTE);
}
END_TEST

/*
 * A profile without inst.int and inst.warp (an analytic corpus): 0 integer
 * instructions and W = (f + LD/ST) / (32 · we) are assumed and marked.
 * f = 6.4e8, LD/ST 6.4e8, we = 0.5: W = 1.28e9 / 16 = 8e7.
 * SharedGPU: t_fp = 1.28e9 / (0.5 · 2.56e12) = 1e-3 s; t_alu = 6.4e8/128/1e10
 * / 0.5 = 1e-3 s; t_issue = 8e7 / 4e10 = 2e-3 s: Perf^ceil = 6.4e11 FLOP/s.
 * A GPU without lanes_per_sm keeps the FP roof (TgtGPU of targets-test.yaml:
 * 4000 GFLOP/s · 0.5).
 */
START_TEST(issue_roof_default_mix)
{
	struct gpuproj_kernel *k = kernel("analytic", 1e6);
	struct gpuproj_projection p;
	struct gpuproj_hroof h;

	set(k, GPUPROJ_M_INST_FP32_FMA, 6.4e8);
	set(k, GPUPROJ_M_INST_LDST, 6.4e8);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 0.5);
	bytes(k, 0, 0, 0, 0);
	ck_assert_int_eq(gpuproj_hroof_ceilings_compute(k, shr, 1.0, GPUPROJ_COMPUTE_ISSUE, &h,
							NULL, 0), 0);
	ck_assert_uint_eq(h.issue_mix, GPUPROJ_MIX_INT_ASSUMED | GPUPROJ_MIX_WARP_ASSUMED);
	ck_assert_rel(h.t_fp, 1e-3);
	ck_assert_rel(h.t_alu, 1e-3);
	ck_assert_rel(h.t_issue, 2e-3);
	ck_assert_rel(h.perf_ceil, 6.4e11);
	ck_assert_int_eq(gpuproj_hroof_ceilings_compute(k, tgt, 1.0, GPUPROJ_COMPUTE_ISSUE, &h,
							NULL, 0), 0);
	ck_assert_uint_eq(h.issue_mix & GPUPROJ_MIX_NO_LANES, GPUPROJ_MIX_NO_LANES);
	ck_assert_rel(h.perf_ceil, 2e12);
	/* The note says what was assumed. */
	{
		struct gpuproj_model_options o = { .compute = GPUPROJ_COMPUTE_ISSUE, .notes = true };

		gpuproj_model_project(gpuproj_model_find("hroof"), k, shr, ded, &o, &p);
		ck_assert_int_eq(p.status, GPUPROJ_OK);
		ck_assert_msg(strstr(p.note, "inst.int unknown, 0 assumed") &&
				      strstr(p.note, "inst.warp unknown"),
			      "note: %s", p.note);
	}
}
END_TEST

START_TEST(compute_option_names)
{
	enum gpuproj_compute c = GPUPROJ_COMPUTE_DEFAULT;

	ck_assert_int_eq(gpuproj_compute_from_name("ISSUE", &c), GPUPROJ_OK);
	ck_assert_int_eq(c, GPUPROJ_COMPUTE_ISSUE);
	ck_assert_int_eq(gpuproj_compute_from_name("fp", &c), GPUPROJ_OK);
	ck_assert_int_eq(c, GPUPROJ_COMPUTE_FP);
	ck_assert_int_eq(gpuproj_compute_from_name("pipes", &c), GPUPROJ_E_INVAL);
	ck_assert_str_eq(gpuproj_compute_name(GPUPROJ_COMPUTE_ISSUE), "issue");
	ck_assert_int_eq(gpuproj_compute_default(), GPUPROJ_COMPUTE_FP);
}
END_TEST

/*
 * A DGEMM-heavy (FP64 tensor, DMMA) profile measured on an H100
 * SXM, projected onto a B200 and a B300 (Blackwell Ultra) with the
 * built-in targets.yaml. N = 8192: 2·N³ = 1.099511627776e12 FP64 tensor
 * FLOP, A, B, C of 8·N² = 536870912 B each: 3 · 536870912 = 1610612736 B at
 * every level; measured 20 ms (55 TFLOP/s). 4884 blocks of 256 threads
 * (4884 = lcm(132, 148): whole waves on both SM counts).
 * Rates (peak_tensor.fp64_gflops; none of the three has a max_tensor for
 * FP64): H100 66900, B200 37000, B300 1250 GFLOP/s.
 * Source: t_tensor = 1.0995e12 / 6.69e13 = 16.4 ms ≫ DRAM 1.61e9 / 3.167e12
 *   = 0.51 ms: compute-bound at every level, Perf^ceil = 6.69e13.
 * B200: compute-bound, T = 20 ms · 66900 / 37000 = 36.162162... ms.
 * B300: T = 20 ms · 66900 / 1250 = 1070.4 ms, 29.6 times the B200's
 *   (37000 / 1250): its FP64 tensor rate, not its bandwidth (which equals
 *   the B200's), decides. The default model (hroof-occ) gives the same
 *   points: full waves on 132 and 148 SMs, equal limits, compute-bound.
 */
START_TEST(dgemm_h100_to_b200_b300)
{
	static const struct gpuproj_model_options levels = { .level_interval = true };
	struct gpuproj_targets *bt = NULL;
	const struct gpuproj_target *h100, *b200, *b300;
	const struct gpuproj_model *models[2];
	struct gpuproj_signature sig = { .name = "dgemm_tn", .grid = { 4884, 1, 1 },
					 .block = { 256, 1, 1 } };
	struct gpuproj_kernel *k;
	struct gpuproj_projection p200, p300;
	size_t i;

	ck_assert_int_eq(gpuproj_targets_load_builtin(&bt, NULL), 0);
	h100 = gpuproj_targets_find(bt, "H100-SXM5-80GB");
	b200 = gpuproj_targets_find(bt, "B200-180GB");
	b300 = gpuproj_targets_find(bt, "B300");
	ck_assert(h100 && b200 && b300);
	ck_assert_int_eq(gpuproj_profile_kernel(prof, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, 2e7);
	k->profiled = 1;
	k->regs_per_thread = 128;
	set(k, GPUPROJ_M_FLOP_TENSOR_FP64, 2.0 * 8192.0 * 8192.0 * 8192.0);
	bytes(k, 1610612736.0, 1610612736.0, 1610612736.0, 0);
	models[0] = gpuproj_model_find("hroof");
	models[1] = gpuproj_model_default();
	ck_assert_str_eq(gpuproj_model_name(models[1]), "hroof-occ");
	for (i = 0; i < 2; i++) {
		gpuproj_model_project(models[i], k, h100, b200, &levels, &p200);
		gpuproj_model_project(models[i], k, h100, b300, &levels, &p300);
		ck_assert_int_eq(p200.status, GPUPROJ_OK);
		ck_assert_int_eq(p300.status, GPUPROJ_OK);
		ck_assert_rel(p200.point_ns, 2e7 * 66900.0 / 37000.0);
		ck_assert_rel(p300.point_ns, 2e7 * 66900.0 / 1250.0);
		ck_assert_rel(p300.point_ns / p200.point_ns, 29.6);
		ck_assert_int_eq(p200.binding, GPUPROJ_BOUND_COMPUTE);
		ck_assert_int_eq(p300.binding, GPUPROJ_BOUND_COMPUTE);
	}
	gpuproj_targets_free(bt);
}
END_TEST

static Suite *
hroof_suite(void)
{
	Suite *s = suite_create("hroof");
	TCase *tc = tcase_create("equations");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, dram_bound);
	tcase_add_test(tc, compute_bound_uses_measured_peak);
	tcase_add_test(tc, shared_with_bank_conflicts);
	tcase_add_test(tc, tensor_paths);
	tcase_add_test(tc, tensor_bound);
	tcase_add_test(tc, tensor_fallback_to_cuda_cores);
	tcase_add_test(tc, tensor_unmodelled_note);
	tcase_add_test(tc, tensor_and_cuda_pipes);
	tcase_add_test(tc, dgemm_h100_to_b200_b300);
	tcase_add_test(tc, flop_free_copy);
	tcase_add_test(tc, mixed_fp32_fp64);
	tcase_add_test(tc, warp_efficiency_quarter);
	tcase_add_test(tc, source_equals_target);
	tcase_add_test(tc, flop_ratio_scales_target);
	tcase_add_test(tc, missing_metrics_are_assumed);
	tcase_add_test(tc, nothing_measured_is_named);
	tcase_add_test(tc, missing_fp_counters_are_assumed);
	tcase_add_test(tc, no_duration);
	tcase_add_test(tc, missing_inputs_by_name);
	tcase_add_test(tc, nothing_to_scale);
	tcase_add_test(tc, bad_warp_efficiency);
	tcase_add_test(tc, run_totals_carry_unprojected);
	tcase_add_test(tc, project_targets_orchestration);
	suite_add_tcase(s, tc);
	tc = tcase_create("issue");
	tcase_add_checked_fixture(tc, setup_issue, teardown_issue);
	tcase_add_test(tc, issue_roof_shared_datapath);
	tcase_add_test(tc, issue_roof_pure_ffma_is_the_paper);
	tcase_add_test(tc, issue_roof_default_mix);
	tcase_add_test(tc, compute_option_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(hroof_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
