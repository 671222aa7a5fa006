/* SPDX-License-Identifier: MIT */
/*
 * naive — the baseline every model must beat: the ratio of the
 * datasheet rooflines of source and target, with the datasheet FP32 FMA
 * peak and the datasheet DRAM bandwidth and nothing else.
 *
 * Per GPU g: P_g = peak_gflops.fp32_fma (never max_gflops), BW_g =
 * peak_bw_gbs.dram; with FLOP (all precisions counted as FP32 work, DESIGN
 * §3) and B = bytes.dram of the kernel, OI = FLOP / B:
 *   Roof_g = min(P_g, OI · BW_g)                     (the classic roofline)
 *   T_t    = T_s · Roof_s / Roof_t   (FLOP > 0)
 *   T_t    = T_s · BW_s / BW_t       (FLOP = 0, B > 0)
 * The interval is the point; binding "compute" or "dram" from Roof_t. It
 * ignores caches, occupancy, instruction mix, sustained clocks and measured
 * bandwidths on purpose: it is what a spreadsheet of datasheet numbers
 * gives, so validation shows what each model adds.
 *
 * Found by name ("naive", gpuproj_model_find()), not among the models
 * `--model all` lists.
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

void
naive_needs(const struct gpuproj_kernel *k, struct model_missing *out)
{
	static const enum gpuproj_metric need[] = { GPUPROJ_M_BYTES_DRAM };
	bool any;

	model_missing_metrics(k, need, ARRAY_LENGTH(need), out);
	model_flop(k, &any);
	if (!any)
		model_missing_add(out, MODEL_FP_GROUP);
}

/* Roof_g in FLOP/s (FLOP > 0) or B/s (FLOP = 0); false without datasheet numbers. */
static bool
roof(const struct gpuproj_target *g, double flop, double bytes, double *ret, bool *mem)
{
	double p = g->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] * 1e9;
	double bw = g->peak_dram_gbs * 1e9;

	if (!(bw > 0) || (flop > 0 && !(p > 0)))
		return false;
	if (flop > 0) {
		double m = bytes > 0 ? flop / bytes * bw : INFINITY;

		*mem = m < p;
		*ret = fmin(p, m);
	} else {
		*mem = true;
		*ret = bw;
	}
	return true;
}

int
naive_project(const struct model_ctx *c, struct gpuproj_projection *out)
{
	struct model_missing missing = { 0 };
	double ts = gpuproj_kernel_mean_ns(c->k), flop, bytes, rs, rt;
	bool ms, mt;

	if (isnan(ts) || ts <= 0) {
		snprintf(out->why, sizeof(out->why), "no timed launch (duration)");
		return out->status = GPUPROJ_E_MISSING;
	}
	naive_needs(c->k, &missing);
	if (missing.n)
		return out->status = model_missing_why(&missing, "naive", out->why,
						       sizeof(out->why));
	flop = model_flop(c->k, NULL);
	bytes = gpuproj_kernel_metric(c->k, GPUPROJ_M_BYTES_DRAM);
	if (flop < 0 || bytes < 0) {
		snprintf(out->why, sizeof(out->why), "a FLOP or byte count is negative");
		return out->status = GPUPROJ_E_INVAL;
	}
	if (flop == 0 && bytes == 0) {
		snprintf(out->why, sizeof(out->why),
			 "kernel has neither FLOP nor DRAM traffic to scale by");
		return out->status = GPUPROJ_E_UNSUPPORTED;
	}
	if (!roof(c->src, flop, bytes, &rs, &ms) || !roof(c->tgt, flop, bytes, &rt, &mt)) {
		snprintf(out->why, sizeof(out->why),
			 "naive needs peak_bw_gbs.dram and peak_gflops.fp32_fma of both GPUs");
		return out->status = GPUPROJ_E_MISSING;
	}
	out->flop_ratio = c->flop_ratio;
	out->point_ns = ts * rs / rt * (flop > 0 ? c->flop_ratio : 1.0);
	out->lo_ns = out->hi_ns = out->point_ns;
	out->binding = mt ? GPUPROJ_BOUND_DRAM : GPUPROJ_BOUND_COMPUTE;
	if (c->notes)
		snprintf(out->note, sizeof(out->note), "datasheet roofline %.4g -> %.4g %s", rs,
			 rt, flop > 0 ? "FLOP/s" : "B/s");
	return out->status = GPUPROJ_OK;
}

int
naive_details(const struct model_ctx *c, struct gpuproj_model_details *out)
{
	double flop = model_flop(c->k, NULL), bytes = gpuproj_kernel_metric(c->k,
									   GPUPROJ_M_BYTES_DRAM);
	double rs, rt;
	bool ms, mt;

	if (!roof(c->src, flop, bytes, &rs, &ms) || !roof(c->tgt, flop, bytes, &rt, &mt))
		return GPUPROJ_E_MISSING;
	model_detail_key(out, c->src, "src.peak_fp32", c->src->peak_gflops[GPUPROJ_FP32][0],
			 "GFLOP/s", "peak_gflops.fp32_fma");
	model_detail_key(out, c->src, "src.peak_dram", c->src->peak_dram_gbs, "GB/s",
			 "peak_bw_gbs.dram");
	model_detail_key(out, c->tgt, "tgt.peak_fp32", c->tgt->peak_gflops[GPUPROJ_FP32][0],
			 "GFLOP/s", "peak_gflops.fp32_fma");
	model_detail_key(out, c->tgt, "tgt.peak_dram", c->tgt->peak_dram_gbs, "GB/s",
			 "peak_bw_gbs.dram");
	model_detail(out, "src.roof", rs, flop > 0 ? "FLOP/s" : "B/s");
	model_detail(out, "tgt.roof", rt, flop > 0 ? "FLOP/s" : "B/s");
	return GPUPROJ_OK;
}
