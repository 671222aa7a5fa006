/* SPDX-License-Identifier: MIT */
/*
 * naive — the baseline every model must beat: the ratio of the
 * datasheet rooflines of source and target, with the datasheet FP32 FMA
 * peak and the datasheet DRAM bandwidth and nothing else.
 *
 * Per GPU g: P_g = peak_gflops.fp32_fma (never max_gflops), BW_g =
 * peak_bw_gbs.dram; with FLOP (all CUDA-core precisions counted as FP32
 * work, DESIGN §3) and B = bytes.dram of the kernel — or its bytes.l2
 * when no byte reached DRAM (a working set that stayed in L2 between
 * launches: a spreadsheet divides the kernel's traffic by the DRAM
 * bandwidth all the same) —, OI = FLOP / B:
 *   Roof_g = min(P_g, OI · BW_g)                     (the classic roofline)
 * Tensor work ("never worse than the ratio of datasheet tensor
 * peaks"): FLOP_p of precision p runs at the datasheet rate R_p,g of the
 * path gpuproj_tensor_path() gives on g (peak_tensor of that precision,
 * never max_tensor; on CUDA cores the peak FMA rate, × 4 for INT8), one
 * pipe after the other as a spreadsheet adds them:
 *   P_g = (FLOP_cuda + Σ_p FLOP_p) / (FLOP_cuda / P_g,fp32 + Σ_p FLOP_p / R_p,g)
 * and FLOP in OI is the total. Without tensor work P_g is the FP32 peak.
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

/* The kernel counts FLOP (CUDA-core instructions or tensor work). */
static bool
has_flop(const struct gpuproj_kernel *k)
{
	double cuda, tensor[GPUPROJ_TPREC_COUNT];
	bool any;

	model_flop(k, &any);
	return any || gpuproj_kernel_flop_mix(k, &cuda, tensor);
}

/* What the datasheet ratio cannot do without: FLOP or DRAM bytes. */
void
naive_needs(const struct gpuproj_kernel *k, struct model_missing *out)
{
	if (!has_flop(k) && !gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM))
		model_missing_add(out, MODEL_FP_GROUP " or bytes.dram");
}

/* No FLOP: the DRAM bandwidth ratio; no DRAM bytes: the compute ratio. */
unsigned
naive_assumes(const struct gpuproj_kernel *k)
{
	return (has_flop(k) ? 0u : 1u << GPUPROJ_ASSUME_FLOP) |
	       (gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM) ? 0u : 1u << GPUPROJ_ASSUME_DRAM);
}

/*
 * The datasheet rate of tensor work of precision p on g, FLOP/s: the peak
 * of the path gpuproj_tensor_path() takes there. 0 when it has none.
 */
static double
tensor_peak(const struct gpuproj_target *g, enum gpuproj_tensor_prec p)
{
	struct gpuproj_tensor_path path;
	double used;

	if (gpuproj_tensor_path(g, p, &path))
		return 0;
	if (path.tensor != GPUPROJ_TPREC_COUNT)
		return g->peak_tensor[path.tensor] > 0 ? g->peak_tensor[path.tensor] * 1e9 : 0;
	/* CUDA cores: path.gflops = factor × the rate in use; the same factor × the peak. */
	used = gpuproj_target_gflops(g, path.cuda, GPUPROJ_OP_FMA, NULL);
	return used > 0 ? path.gflops / used * g->peak_gflops[path.cuda][GPUPROJ_OP_FMA] * 1e9 : 0;
}

/*
 * P_g of the file comment, FLOP/s, for the kernel's FLOP mix; 0 when a
 * rate it needs is absent.
 */
static double
compute_peak(const struct gpuproj_target *g, const struct gpuproj_kernel *k)
{
	double p32 = g->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] * 1e9;
	double cuda, tensor[GPUPROJ_TPREC_COUNT], total, t;
	int p;

	if (!k || !gpuproj_kernel_flop_mix(k, &cuda, tensor))
		return p32 > 0 ? p32 : 0;
	if (cuda > 0 && !(p32 > 0))
		return 0;
	total = cuda;
	t = cuda > 0 ? cuda / p32 : 0;
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		double r;

		if (!(tensor[p] > 0))
			continue;
		r = tensor_peak(g, (enum gpuproj_tensor_prec)p);
		if (!(r > 0))
			return 0;
		total += tensor[p];
		t += tensor[p] / r;
	}
	return t > 0 ? total / t : 0;
}

/* Roof_g in FLOP/s (FLOP > 0) or B/s (FLOP = 0); false without datasheet numbers. */
static bool
roof(const struct gpuproj_target *g, const struct gpuproj_kernel *k, double flop, double bytes,
     double *ret, bool *mem)
{
	double p = compute_peak(g, k);
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

/* B of the file comment: bytes.dram, or bytes.l2 when no byte reached DRAM. */
static double
naive_bytes(const struct gpuproj_kernel *k)
{
	double d = gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM);

	if (d == 0 && gpuproj_kernel_has(k, GPUPROJ_M_BYTES_L2))
		return gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_L2);
	return d;
}

/* CUDA-core plus tensor FLOP of the kernel. */
static double
total_flop(const struct gpuproj_kernel *k)
{
	double cuda, tensor[GPUPROJ_TPREC_COUNT], sum;
	int p;

	if (!gpuproj_kernel_flop_mix(k, &cuda, tensor))
		return model_flop(k, NULL);
	for (sum = cuda, p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		sum += tensor[p];
	return sum;
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
	flop = total_flop(c->k);
	bytes = naive_bytes(c->k);
	if (flop < 0 || bytes < 0) {
		snprintf(out->why, sizeof(out->why), "a FLOP or byte count is negative");
		return out->status = GPUPROJ_E_INVAL;
	}
	if (flop == 0 && bytes == 0) {
		snprintf(out->why, sizeof(out->why),
			 "kernel has neither FLOP nor DRAM traffic to scale by");
		return out->status = GPUPROJ_E_UNSUPPORTED;
	}
	if (!roof(c->src, c->k, flop, bytes, &rs, &ms) ||
	    !roof(c->tgt, c->k, flop, bytes, &rt, &mt)) {
		snprintf(out->why, sizeof(out->why),
			 "naive needs peak_bw_gbs.dram and peak_gflops.fp32_fma%s of both GPUs",
			 flop > model_flop(c->k, NULL) ? " (peak_tensor for tensor work)" : "");
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
	double flop = total_flop(c->k), bytes = naive_bytes(c->k);
	double rs, rt;
	bool ms, mt;

	if (!roof(c->src, c->k, flop, bytes, &rs, &ms) ||
	    !roof(c->tgt, c->k, flop, bytes, &rt, &mt))
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
