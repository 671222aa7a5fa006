/* SPDX-License-Identifier: MIT */
/*
 * envelope — kernels without counters (an Nsight Systems import, a
 * profile taken with GPUPROJ_MODE=timing): their time alone cannot say
 * which resource binds them, so the projection is the envelope of both
 * answers, stated as such, never one of them silently.
 *
 * With T_s the measured mean duration, P_g = gpuproj_target_gflops(g,
 * FP32, FMA) (the FP32 FMA ceiling the other models use: max_gflops where
 * measured, else peak_gflops) and B_g = bw_gbs.dram of GPU g:
 *   t_compute = T_s · P_s / P_t        (a kernel bound by FP32 compute)
 *   t_memory  = T_s · B_s / B_t        (a kernel bound by DRAM bandwidth)
 *   [lo, hi]  = [min, max](t_compute, t_memory)
 *   point     = sqrt(t_compute · t_memory)
 * The point is the interval's centre on the log scale of the ratio (a
 * factor k above lo is the same factor below hi); it is no estimate of
 * which binds. The binding is "unknown" and every writer says
 * "assumed: binding unknown" (gpuproj_projection.assumed). Latency-bound
 * and tensor-core kernels fall outside the envelope; onto the source GPU
 * both ratios are 1 and the kernel keeps its time.
 *
 * gpuproj_project_run() uses it with the default model, after hroof and
 * sol, for a timed kernel with no counter at all (no logical and no
 * extra metric): a kernel with some counters is projected from them, or
 * not at all, saying what it lacks. Found by name ("envelope"), not in
 * `--model all`.
 *
 * Thread safety: stateless and reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

bool
model_kernel_has_counters(const struct gpuproj_kernel *k)
{
	int m;

	if (k->n_extra)
		return true;
	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		if (k->metric_n[m])
			return true;
	}
	return false;
}

void
envelope_needs(const struct gpuproj_kernel *k, struct model_missing *out)
{
	if (model_kernel_has_counters(k))
		model_missing_add(out, MODEL_NO_COUNTERS);
}

/* P_g and B_g of the file comment; false when a GPU lacks one. */
static bool
ceilings(const struct gpuproj_target *g, double *p, double *b)
{
	*p = gpuproj_target_gflops(g, GPUPROJ_FP32, GPUPROJ_OP_FMA, NULL);
	*b = g->bw_gbs[GPUPROJ_LEVEL_DRAM];
	return *p > 0 && *b > 0;
}

int
envelope_project(const struct model_ctx *c, struct gpuproj_projection *out)
{
	struct model_missing missing = { 0 };
	double ts = gpuproj_kernel_mean_ns(c->k), ps, pt, bs, bt, tc, tm;

	if (isnan(ts) || ts <= 0) {
		snprintf(out->why, sizeof(out->why), "no timed launch (duration)");
		return out->status = GPUPROJ_E_MISSING;
	}
	envelope_needs(c->k, &missing);
	if (missing.n)
		return out->status = model_missing_why(&missing, "envelope", out->why,
						       sizeof(out->why));
	if (!ceilings(c->src, &ps, &bs) || !ceilings(c->tgt, &pt, &bt)) {
		snprintf(out->why, sizeof(out->why),
			 "envelope needs the FP32 FMA rate and bw_gbs.dram of both GPUs");
		return out->status = GPUPROJ_E_MISSING;
	}
	tc = ts * ps / pt;
	tm = ts * bs / bt;
	out->lo_ns = fmin(tc, tm);
	out->hi_ns = fmax(tc, tm);
	out->point_ns = sqrt(tc * tm);
	out->binding = GPUPROJ_BOUND_UNKNOWN;
	out->assumed = 1u << GPUPROJ_ASSUME_BINDING;
	out->flop_ratio = 1.0;
	if (c->notes)
		snprintf(out->note, sizeof(out->note), "no counters: compute-bound %.4g ns, "
			 "memory-bound %.4g ns", tc, tm);
	return out->status = GPUPROJ_OK;
}

int
envelope_details(const struct model_ctx *c, struct gpuproj_model_details *out)
{
	double ps, pt, bs, bt, ts = gpuproj_kernel_mean_ns(c->k);

	if (!ceilings(c->src, &ps, &bs) || !ceilings(c->tgt, &pt, &bt) || !(ts > 0))
		return GPUPROJ_E_MISSING;
	model_detail(out, "src.fp32_fma", ps, "GFLOP/s");
	model_detail_key(out, c->src, "src.bw_dram", bs, "GB/s", "bw_gbs.dram");
	model_detail(out, "tgt.fp32_fma", pt, "GFLOP/s");
	model_detail_key(out, c->tgt, "tgt.bw_dram", bt, "GB/s", "bw_gbs.dram");
	model_detail(out, "t_compute", ts * ps / pt, "ns");
	model_detail(out, "t_memory", ts * bs / bt, "ns");
	return GPUPROJ_OK;
}
