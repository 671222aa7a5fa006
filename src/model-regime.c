/* SPDX-License-Identifier: MIT */
/*
 * What real kernels reach on the CUDA cores and at
 * which clock (src/model-private.h; the options in include/gpuproj/model.h;
 * docs/models.md "Achievable FP32 rate" and "Clock regime").
 *
 * FFMA-dense kernels. A large SGEMM — the canonical FFMA-dense kernel —
 * reaches 90–98 % of the FP32 peak on SMs with 64 FP32 lanes per SM
 * (GP100, GV100, TU10x, GA100), 45–71 % on the 128-lane SMs of GA10x and
 * AD10x and 72–78 % on GH100 (targets.yaml fp32_dense_gflops, cuBLAS with
 * TF32 off). An FFMA loop without loads (max_gflops) reaches 93–99 % on
 * both. The difference is issue: one warp instruction per scheduler per
 * clock (Jia et al., arXiv:1804.06826, §3) feeds 32 FP32 lanes, so on a
 * 128-lane SM every load, address or loop instruction takes an issue slot
 * from an FFMA, while a 64-lane SM needs only every other slot for FP32.
 * gpu-benches' roofline kernel, two FFMA chains and a loop, shows the same
 * split: 63–66 % of the at-clock peak on A40, L40, H200 and GB200, 98.5 %
 * on A100 (te42kyfo/gpu-benches, the gpu-roofline result files @e4e93a37). So:
 *
 *   FFMA-dense  ⇔  2·N_FFMA / FLOP_cuda ≥ 0.9  and, with inst.warp,
 *                  (N_FFMA / (32·we)) / inst.warp ≥ 0.5
 *   d_g         = min(1, fp32_dense_gflops / max_gflops.fp32_fma)
 *   FP32 FMA rate of an FFMA-dense kernel on g = d_g × the rate of its
 *                 clock regime (max_gflops, or the burst/auto copy's)
 *
 * d_g is capped at 1: a dense rate above the loop rate (T4, P4, whose
 * max_gflops is fitted to NeuSight's sustained harness) comes from a board
 * in another clock regime, and the loop rate bounds the dense one.
 *
 * Clock regime. A kernel's run has a regime: at the boost clock (a burst
 * from idle, a benchmark harness) or below it (power or thermal limited
 * under sustained load, or clocks locked, as ncu's --clock-control base
 * does). gpuproj_clock_regime() reads it from the kernel's clock.sm (the
 * counters: sm__cycles_elapsed.avg.per_second) or the run's NVML samples.
 *
 * Thread safety: reentrant; constant data only.
 */
#include "config.h"

#include <math.h>

#include <gpuproj/model.h>

#include "model-private.h"

const char *
gpuproj_regime_name(enum gpuproj_regime r)
{
	switch (r) {
	case GPUPROJ_REGIME_BOOST: return "boost";
	case GPUPROJ_REGIME_SUSTAINED: return "sustained";
	case GPUPROJ_REGIME_UNKNOWN: break;
	}
	return "unknown";
}

bool
gpuproj_kernel_ffma_density(const struct gpuproj_kernel *k, struct gpuproj_ffma_density *out)
{
	double flop, fma, w, we;

	if (!k || !out)
		return false;
	out->fma_share = out->issue_share = NAN;
	out->dense = false;
	flop = model_flop(k, NULL);
	fma = gpuproj_kernel_has(k, GPUPROJ_M_INST_FP32_FMA)
		      ? gpuproj_kernel_metric(k, GPUPROJ_M_INST_FP32_FMA)
		      : 0;
	if (!(flop > 0) || !(fma >= 0))
		return false;
	out->fma_share = fmin(1.0, 2.0 * fma / flop);
	w = gpuproj_kernel_metric(k, GPUPROJ_M_INST_WARP);
	we = gpuproj_kernel_metric(k, GPUPROJ_M_WARP_EFFICIENCY);
	if (gpuproj_kernel_has(k, GPUPROJ_M_INST_WARP) && w > 0)
		out->issue_share = fmin(1.0, fma / (32.0 * (we > 0 && we <= 1 ? we : 1.0)) / w);
	out->dense = out->fma_share >= GPUPROJ_FFMA_DENSE_FLOP &&
		     (isnan(out->issue_share) || out->issue_share >= GPUPROJ_FFMA_DENSE_ISSUE);
	return out->dense;
}

int
gpuproj_clock_regime(const struct gpuproj_kernel *k, const struct gpuproj_sm_clock *run,
		     const struct gpuproj_target *src, struct gpuproj_clock_regime *out)
{
	double top, hz = NAN;

	if (!k || !src || !out)
		return GPUPROJ_E_INVAL;
	out->regime = GPUPROJ_REGIME_UNKNOWN;
	out->src_mhz = NAN;
	out->from = NULL;
	if (gpuproj_kernel_has(k, GPUPROJ_M_CLOCK_SM))
		hz = gpuproj_kernel_metric(k, GPUPROJ_M_CLOCK_SM);
	if (hz > 0) {
		out->src_mhz = hz / 1e6;
		out->from = "counters";
	} else if (run && run->samples > 0 && run->mean_mhz > 0) {
		out->src_mhz = run->mean_mhz;
		out->from = "nvml";
	}
	if (!out->from) {
		out->why = "no clock recorded";
		return GPUPROJ_OK;
	}
	top = fmax(src->boost_clock_mhz, src->clock_mhz); /* fmax ignores a NaN boost */
	if (run && run->capped_samples > 0) {
		out->regime = GPUPROJ_REGIME_SUSTAINED;
		out->why = "NVML saw a power or thermal cap";
	} else if (out->src_mhz < GPUPROJ_REGIME_BOOST_FRACTION * top) {
		out->regime = GPUPROJ_REGIME_SUSTAINED;
		out->why = "below its boost clock";
	} else if (src->sustained_clock_mhz < GPUPROJ_REGIME_BOOST_FRACTION * top) {
		out->regime = GPUPROJ_REGIME_BOOST;
		out->why = "at its boost clock, which it cannot hold under load";
	} else {
		out->why = "at its boost clock, which it holds under load too";
	}
	return GPUPROJ_OK;
}

double
model_dense_fraction(const struct gpuproj_target *g)
{
	double loop = g->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA];

	if (!(g->fp32_dense_gflops > 0) || !(loop > 0))
		return 1.0;
	return fmin(1.0, g->fp32_dense_gflops / loop);
}

void
model_dense_copy(const struct gpuproj_target *g, double d, struct gpuproj_target *out)
{
	*out = *g;
	if (!(d < 1) || !(d > 0) || !(g->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] > 0))
		return;
	out->fp32_loop_gflops = g->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA];
	out->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] *= d;
}

double
model_issue_fp32_flops(const struct gpuproj_kernel *k, const struct gpuproj_target *g)
{
	double fma = gpuproj_kernel_metric(k, GPUPROJ_M_INST_FP32_FMA);
	double w = gpuproj_kernel_metric(k, GPUPROJ_M_INST_WARP);
	double loop = g->fp32_loop_gflops > 0 ? g->fp32_loop_gflops
					      : g->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA];
	double l32 = g->lanes_per_sm[GPUPROJ_LANE_FP32];
	double ipc = g->ipc_per_scheduler > 0 ? g->ipc_per_scheduler : 1.0;
	double u, t_issue;

	if (!gpuproj_kernel_has(k, GPUPROJ_M_INST_WARP) || !(w > 0) || !(fma > 0) ||
	    !(l32 > 0) || !(loop > 0) || !(g->schedulers_per_sm > 0) ||
	    g->vendor != GPUPROJ_VENDOR_NVIDIA)
		return NAN;
	/* model-hroof.c's issue roof: u = SMs × clock from the FMA-loop rate. */
	u = loop * 1e9 / (2.0 * l32);
	t_issue = w * 32.0 / (g->warp_size > 0 ? g->warp_size : 32) /
		  (u * g->schedulers_per_sm * ipc);
	return 2.0 * fma / t_issue;
}
