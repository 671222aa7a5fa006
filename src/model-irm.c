/* SPDX-License-Identifier: MIT */
/*
 * irm — instruction roofline: N. Ding and S. Williams, "An instruction
 * roofline model for GPUs", PMBS 2019, as restated for NVIDIA and AMD GPUs
 * by M. Leinhauser et al., "Metrics and design of an instruction roofline
 * model for AMD GPUs", ACM TOPC 9(1), 2022 ([Leinhauser2022]), §4.2, equations 1–4.
 *
 * Per GPU x, per kernel, per launch:
 *   inst_x   = warp-level instructions: inst.warp measured with warps of
 *              W_s threads; on a GPU with W_x ≠ W_s (wavefront 64 on AMD
 *              CDNA) inst_x = inst.warp · W_s / W_x — the seed's eq. 1/2
 *              normalise thread instructions to the wavefront (÷ 64) just
 *              as nvprof's inst_executed counts warps of 32. Assumes full
 *              warps (the divergence pattern scales with the warp).
 *   GIPS_x   = SMs (CUs) × schedulers per SM × IPC × clock (GHz)   (eq. 3)
 *              (warp schedulers per SM and IPC per scheduler from
 *              targets.yaml: 4 × 1 on Volta–Blackwell, 1 wavefront
 *              scheduler per CU on CDNA, dual issue on Kepler–Pascal)
 *   txn_x,l  = 32-B transactions at level l ∈ {L1, L2, DRAM}: sectors.l
 *              (bytes.l / 32 where sectors were not collected)
 *   GTXN_x,l = bw_gbs.l / 32 B, billions of transactions per second
 *   II_x,l   = inst_x / txn_x,l, instructions per transaction (Ding &
 *              Williams' intensity; the seed uses inst/byte on AMD for
 *              want of transaction counters — the same up to the factor 32)
 *   roof_x,l = min(GTXN_x,l · II_x,l, GIPS_x)
 *   achieved = inst_s / 1e9 / T_s, G inst/s                         (eq. 4)
 *
 * Projection (DESIGN §5: the hroof ratio method on instructions instead of
 * FLOP, [VanLanker2024] eq. 9): Perf_t(l) = Perf_s / roof_s,l · roof_t,l with
 * Perf = inst / T, so
 *   T_t(l) = T_s · (inst_t / inst_s) · roof_s,l / roof_t,l
 * for each level with traffic on the source; the interval is their range,
 * the point its midpoint. With no traffic at all,
 * T_t = T_s · (inst_t/inst_s) · GIPS_s / GIPS_t. Binding on the target: the
 * largest stand-alone time, inst_t / GIPS_t ("instruction") or
 * txn_t,l / GTXN_t,l ("l1", "l2", "dram").
 *
 * Tensor work (flop.tensor.*; beyond the seed) runs on its own pipe: its
 * MMAs issue as warp instructions but take t_tc = Σ FLOP_p / R_p there
 * (hroof's tensor paths, model.h gpuproj_tensor_path()), so the
 * instruction ceiling becomes GIPS' = inst / max(inst / GIPS, t_tc).
 *
 * Assumptions: the same instructions execute on both GPUs (no SASS
 * comparison: the FLOP ratio option does not apply); transactions per
 * level are the same (unless the L2-capacity option changes DRAM's); the
 * kernel's efficiency relative to each roof transfers (the hroof
 * assumption). Shared-memory traffic is not a level of this roofline.
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

/* Per level: the 32-byte transactions, or the bytes they are derived from. */
static const enum gpuproj_metric irm_sectors[GPUPROJ_HL_COUNT] = {
	GPUPROJ_M_SECTORS_L1, GPUPROJ_M_SECTORS_L2, GPUPROJ_M_SECTORS_DRAM,
};
static const enum gpuproj_metric irm_bytes[GPUPROJ_HL_COUNT] = {
	GPUPROJ_M_BYTES_L1, GPUPROJ_M_BYTES_L2, GPUPROJ_M_BYTES_DRAM,
};

/*
 * Thread instructions the kernel counts (inst.thread, else the sum of the
 * FP, integer, load/store and other classes): what stands in for inst.warp
 * × 32 when inst.warp is missing; NaN when none is counted.
 */
static double
thread_inst(const struct gpuproj_kernel *k)
{
	static const enum gpuproj_metric cls[] = {
		GPUPROJ_M_INST_FP16, GPUPROJ_M_INST_FP32, GPUPROJ_M_INST_FP64, GPUPROJ_M_INST_INT,
		GPUPROJ_M_INST_LDST, GPUPROJ_M_INST_OTHER,
	};
	double sum = 0;
	bool any = false;
	size_t i;
	int p, j;

	if (gpuproj_kernel_has(k, GPUPROJ_M_INST_THREAD))
		return gpuproj_kernel_metric(k, GPUPROJ_M_INST_THREAD);
	for (i = 0; i < ARRAY_LENGTH(cls); i++) {
		if (gpuproj_kernel_has(k, cls[i])) {
			sum += gpuproj_kernel_metric(k, cls[i]);
			any = true;
		}
	}
	/* FP classes absent: their fma, add and mul counts. */
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		if (gpuproj_kernel_has(k, cls[p]))
			continue;
		for (j = 0; j < 3; j++) {
			if (gpuproj_kernel_has(k, model_fp_metrics[p][j])) {
				sum += gpuproj_kernel_metric(k, model_fp_metrics[p][j]);
				any = true;
			}
		}
	}
	return any ? sum : NAN;
}

/*
 * What eqs. 1–4 cannot do without: instructions, inst.warp or thread
 * instruction counts to stand in for it. A level without sectors or bytes
 * drops out (irm_assumes()).
 */
void
irm_needs(const struct gpuproj_kernel *k, struct model_missing *out)
{
	if (!gpuproj_kernel_has(k, GPUPROJ_M_INST_WARP) && isnan(thread_inst(k)))
		model_missing_add(out, "inst.warp (or thread instruction counts)");
}

/*
 * No inst.warp: the thread instructions counted / warp size (full warps, the
 * classes counted: a lower bound, ASSUME_MIX); a level with neither
 * sectors nor bytes is not a roof.
 */
unsigned
irm_assumes(const struct gpuproj_kernel *k)
{
	static const enum gpuproj_assumption lv[GPUPROJ_HL_COUNT] = {
		GPUPROJ_ASSUME_L1, GPUPROJ_ASSUME_L2, GPUPROJ_ASSUME_DRAM,
	};
	unsigned bits = 0;
	int i;

	if (!gpuproj_kernel_has(k, GPUPROJ_M_INST_WARP))
		bits |= 1u << GPUPROJ_ASSUME_MIX;
	for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
		if (!gpuproj_kernel_has(k, irm_sectors[i]) && !gpuproj_kernel_has(k, irm_bytes[i]))
			bits |= 1u << lv[i];
	}
	return bits;
}

int
gpuproj_irm_compute(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
		    int source_warp_size, double time_ns, struct gpuproj_irm *out, char *why,
		    size_t whylen)
{
	static const enum gpuproj_level lv[GPUPROJ_HL_COUNT] = {
		GPUPROJ_LEVEL_L1, GPUPROJ_LEVEL_L2, GPUPROJ_LEVEL_DRAM,
	};
	struct model_missing missing = { 0 };
	double ipc;
	int i;

	if (!k || !gpu || !out || source_warp_size < 1 || gpu->warp_size < 1)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	irm_needs(k, &missing);
	if (missing.n)
		return model_missing_why(&missing, "irm", why, whylen);

	out->inst = (gpuproj_kernel_has(k, GPUPROJ_M_INST_WARP)
			     ? gpuproj_kernel_metric(k, GPUPROJ_M_INST_WARP)
			     : thread_inst(k) / source_warp_size) * /* ASSUME_MIX: full warps */
		    source_warp_size / gpu->warp_size;                           /* eqs. 1, 2 */
	ipc = gpu->ipc_per_scheduler > 0 ? gpu->ipc_per_scheduler : 1.0;
	/* In 64 bits: an int product overflowed for counts targets.yaml once accepted. */
	out->gips_peak = (double)((int64_t)gpu->sms *
				  (gpu->schedulers_per_sm > 0 ? gpu->schedulers_per_sm : 1)) *
			 ipc * gpu->clock_mhz / 1000.0;                          /* eq. 3 */
	out->gips_achieved = time_ns > 0 ? out->inst / time_ns : NAN;           /* eq. 4 */
	if (out->inst < 0) {
		if (why)
			snprintf(why, whylen, "metric inst.warp is negative");
		return GPUPROJ_E_INVAL;
	}
	{
		struct model_tensor tw;
		int r = model_tensor_work(k, gpu, &tw, why, whylen);

		if (r)
			return r;
		out->t_tensor = tw.t_tensor + tw.t_cuda;
		if (out->inst > 0 && out->t_tensor > out->inst / (out->gips_peak * 1e9))
			out->gips_peak = out->inst / out->t_tensor / 1e9;
	}
	for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
		double t = gpuproj_kernel_has(k, irm_sectors[i])
				   ? gpuproj_kernel_metric(k, irm_sectors[i])
			   : gpuproj_kernel_has(k, irm_bytes[i])
				   ? gpuproj_kernel_metric(k, irm_bytes[i]) / 32.0
				   : 0.0; /* not measured: not a roof (ASSUME_L1/L2/DRAM) */

		if (t < 0) {
			if (why)
				snprintf(why, whylen, "metric %s is negative",
					 gpuproj_metric_name(irm_sectors[i]));
			return GPUPROJ_E_INVAL;
		}
		out->txn[i] = t;
		out->gtxn_peak[i] = gpu->bw_gbs[lv[i]] / 32.0;
		out->valid[i] = t > 0;
		if (!out->valid[i]) {
			out->ii[i] = NAN;
			out->roofline[i] = out->gips_peak;
			continue;
		}
		out->ii[i] = out->inst / t;
		out->roofline[i] = fmin(out->gtxn_peak[i] * out->ii[i], out->gips_peak);
	}
	return GPUPROJ_OK;
}

/* Both GPUs' instruction rooflines. */
static int
both(const struct model_ctx *c, struct gpuproj_irm *s, struct gpuproj_irm *t, char *why,
     size_t whylen)
{
	double ts = gpuproj_kernel_mean_ns(c->k);
	int r;

	if (isnan(ts) || ts <= 0) {
		if (why)
			snprintf(why, whylen, "no timed launch (duration)");
		return GPUPROJ_E_MISSING;
	}
	r = gpuproj_irm_compute(c->k, c->src, c->src->warp_size, ts, s, why, whylen);
	if (r == GPUPROJ_OK)
		r = gpuproj_irm_compute(c->kt, c->tgt, c->src->warp_size, NAN, t, why, whylen);
	if (r == GPUPROJ_OK && !(s->inst > 0)) {
		if (why)
			snprintf(why, whylen, "kernel executed no instruction (inst.warp = 0)");
		r = GPUPROJ_E_UNSUPPORTED;
	}
	return r;
}

int
irm_project(const struct model_ctx *c, struct gpuproj_projection *out)
{
	static const enum gpuproj_bound lb[GPUPROJ_HL_COUNT] = {
		GPUPROJ_BOUND_L1, GPUPROJ_BOUND_L2, GPUPROJ_BOUND_DRAM,
	};
	struct gpuproj_irm s, t;
	double ts = gpuproj_kernel_mean_ns(c->k), lo = INFINITY, hi = -INFINITY, scale, best;
	bool any = false;
	int r, i;

	r = both(c, &s, &t, out->why, sizeof(out->why));
	if (r)
		return out->status = r;
	scale = t.inst / s.inst;
	for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
		double tt;

		if (!s.valid[i])
			continue;
		tt = ts * scale * s.roofline[i] / t.roofline[i];
		out->level_ns[i] = tt;
		lo = fmin(lo, tt);
		hi = fmax(hi, tt);
		any = true;
	}
	if (!any)
		lo = hi = ts * scale * s.gips_peak / t.gips_peak;
	out->lo_ns = lo;
	out->hi_ns = hi;
	out->point_ns = (lo + hi) / 2;
	best = t.inst / t.gips_peak;
	out->binding = GPUPROJ_BOUND_INSTRUCTION;
	for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
		if (t.txn[i] / t.gtxn_peak[i] > best) {
			best = t.txn[i] / t.gtxn_peak[i];
			out->binding = lb[i];
		}
	}
	if (c->notes)
		snprintf(out->note, sizeof(out->note),
			 "GIPS achieved %.3g of peak %.4g on source, peak %.4g on target; II dram %.3g "
			 "inst/txn", s.gips_achieved, s.gips_peak, t.gips_peak, s.ii[GPUPROJ_HL_DRAM]);
	return out->status = GPUPROJ_OK;
}

int
irm_details(const struct model_ctx *c, struct gpuproj_model_details *out)
{
	static const char *const nm[2][12] = {
		{ "src.inst_warp", "src.gips_peak", "src.gips_achieved", "src.txn_l1", "src.txn_l2",
		  "src.txn_dram", "src.ii_l1", "src.ii_l2", "src.ii_dram", "src.roofline_l1",
		  "src.roofline_l2", "src.roofline_dram" },
		{ "tgt.inst_warp", "tgt.gips_peak", "tgt.gips_achieved", "tgt.txn_l1", "tgt.txn_l2",
		  "tgt.txn_dram", "tgt.ii_l1", "tgt.ii_l2", "tgt.ii_dram", "tgt.roofline_l1",
		  "tgt.roofline_l2", "tgt.roofline_dram" },
	};
	struct gpuproj_irm g[2];
	int r, i, l;

	r = both(c, &g[0], &g[1], NULL, 0);
	if (r)
		return r;
	for (i = 0; i < 2; i++) {
		model_detail(out, nm[i][0], g[i].inst, "inst");
		model_detail(out, nm[i][1], g[i].gips_peak, "Ginst/s");
		model_detail(out, nm[i][2], g[i].gips_achieved, "Ginst/s");
		for (l = 0; l < GPUPROJ_HL_COUNT; l++)
			model_detail(out, nm[i][3 + l], g[i].txn[l], "txn");
		for (l = 0; l < GPUPROJ_HL_COUNT; l++)
			model_detail(out, nm[i][6 + l], g[i].ii[l], "inst/txn");
		for (l = 0; l < GPUPROJ_HL_COUNT; l++)
			model_detail(out, nm[i][9 + l], g[i].roofline[l], "Ginst/s");
	}
	return GPUPROJ_OK;
}
