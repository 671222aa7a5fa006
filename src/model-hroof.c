/* SPDX-License-Identifier: MIT */
/*
 * hroof — hierarchical roofline with kernel-specific ceilings and its
 * projection: Van Lanker, Taboada, Brunet, Trahay, "Predicting GPU kernel's
 * performance on upcoming architectures", Euro-Par 2024 ([VanLanker2024]), §§2–3,
 * equations 1–10, as docs/internals/DESIGN.md §5 spells them out.
 *
 * Per GPU (source s or target t), per kernel k, per launch:
 *   FLOP       = Σ_p (2·N_FMA,p + N_ADD,p + N_MUL,p)                 (DESIGN §3)
 *   Perf^mix   = Σ_{p,kind} Perf^max_{p,kind} · N_{p,kind} / Σ N     (eq. 2, extended
 *                over precisions: instruction-count-weighted mean of the peaks)
 *   Perf^ceil  = warp_efficiency · Perf^mix                          (eq. 3)
 *   N_L1 = max(B_L1 − B_L2, 0), N_L2 = max(B_L2 − B_DRAM, 0),
 *   N_DRAM = B_DRAM, N_shM = wavefronts · 128 B
 *   t_x = N_x / BW_x (eq. 4); t_shM = wavefronts · 128 B / BW_shM     (eq. 5)
 *   BW^ceil_L1   = (N_L1+N_shM+N_L2+N_DRAM)/(t_L1+t_shM+t_L2+t_DRAM) (eq. 6)
 *   BW^ceil_L2   = (N_L2+N_DRAM)/(t_L2+t_DRAM)                         (eq. 7)
 *   BW^ceil_DRAM = N_DRAM/t_DRAM                                       (eq. 8)
 *   OI_x = FLOP / N+_x, N+_x the numerator of x's ceiling              (eq. 10)
 *   roofline_x = min(BW^ceil_x · OI_x, Perf^ceil)                      (eq. 1)
 *   Perf_t(x) = Perf_s / roofline_s,x · roofline_t,x                   (eq. 9)
 *   T_t(x) = FLOP_t / Perf_t(x) = r · T_s · roofline_s,x / roofline_t,x
 * with r = FLOP_t / FLOP_s from the SASS comparison (§4.2; 1 by default).
 * The three levels give the interval [lo, hi]; the point estimate is its
 * midpoint. FLOP = 0: the same ratio in time space,
 * T_t(x) = T_s · BW^ceil_s,x / BW^ceil_t,x. Levels without traffic drop out.
 *
 * Option (model.h, l2_capacity): the target side may use the kernel's DRAM
 * bytes adjusted for the target's L2 size (gpuproj_l2_capacity_dram()); the
 * hits and ceilings of eqs. 4–8 then differ between source and target, and
 * the FLOP = 0 case scales by N+_t,x / N+_s,x too.
 *
 * Binding resource on the target: the largest of the stand-alone times
 * t_L1, t_shM, t_L2, t_DRAM (eqs. 4–5) and FLOP/Perf^ceil (eq. 3). (The
 * lowest roofline is always L1's, since its ceiling time includes every
 * level's, so it cannot name the bottleneck.)
 *
 * Compute roof (option `compute`, model.h enum gpuproj_compute; beyond the
 * paper). FP (the default): eqs. 2–3 as above. ISSUE: a kernel's CUDA-core
 * time is bounded by every pipe it uses and by instruction issue, so the
 * CUDA-core time is max(t_fp, t_alu, t_issue) and Perf^ceil = FLOP / that:
 *   t_fp    = FLOP / (we · Perf^mix)                                (eqs. 2–3)
 *   u       = max_gflops.fp32_fma / (2 · L32)   lane-clocks/s = SMs × clock
 *   t_alu   = max(f/(D_f+S), i/(D_i+S), (f+i)/(D_f+D_i+S)) / (u · we)
 *   t_issue = W · 32/warp_size / (u · schedulers_per_sm · ipc_per_scheduler)
 * f = FP32 thread instructions (inst.fp32, else Σ inst.fp32.*; × r), i =
 * inst.int, W = inst.warp (every warp instruction: FP, integer, load/store,
 * control), we = warp efficiency, lanes_per_sm: L32 FP32 lanes of which S
 * also execute INT32 (D_f = L32 − S FP32-only, D_i = L_INT32 − S INT32-only).
 * Figures, with their sources in targets.yaml: one warp instruction per
 * scheduler per clock since Volta (Jia et al., "Dissecting the NVIDIA Volta
 * GPU Architecture via Microbenchmarking", arXiv:1804.06826, 2018, §3; the
 * Turing T4 report, arXiv:1903.07486, 2019), two on Kepler–Pascal (dual
 * issue: GK104/GK110 and GM204 whitepapers); FP32 lanes 64 + 64 separate
 * INT32 on GV100/TU10x/GA100, 128 FP32 + 64 INT32 on GH100/GB100, 128 FP32 of
 * which 64 also INT32 on GA10x/AD10x (NVIDIA Ampere GA102 whitepaper: of
 * the two datapaths of each SM partition one executes FP32 only, the other
 * FP32 or INT32; the Ada whitepaper keeps that SM), all 128 shared on
 * GB20x (sm_120) and on Maxwell/Pascal CUDA cores. On GA10x/AD10x/GH100 an
 * FFMA-only warp stream fills every issue slot, so each integer, address
 * or load/store instruction takes a slot from FP32; on Volta/Turing/GA100
 * FP32 needs half the slots. Profiles without the mix (analytic corpora)
 * count what they have — no inst.int: 0 integer instructions; no inst.warp:
 * W = (counted thread instructions) / (32 · we) — lower bounds, marked in
 * gpuproj_hroof.issue_mix and the note. A kernel with only FP instructions
 * gets the paper's roof. Binding "instruction" where t_issue exceeds the
 * pipes. AMD GPUs and GPUs without lanes_per_sm keep the FP roof (packed
 * FP32 on CDNA does 2 FMAs per lane-instruction, which the counts do not
 * separate).
 *
 * Assumptions (from the paper): bytes per level are the same on source and
 * target (§4.2: "memory usage is considered as roughly similar"); warp
 * efficiency is a property of the kernel, equal on both; bandwidth and FLOP
 * ceilings are the sustained values of targets.yaml.
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

/* Bytes one shared-memory wavefront moves: 32 banks × 4 B (eq. 5, N^max_shM_pc). */
#define SHARED_BYTES_PER_WAVEFRONT 128.0

/*
 * Whether the kernel reports tensor work (a flop.tensor.* metric above 0;
 * the NERSC recipe's sm__inst_executed_pipe_tensor.sum of 0 is none).
 */
static bool
has_tensor(const struct gpuproj_kernel *k)
{
	int p;

	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		enum gpuproj_metric m = gpuproj_tensor_metric((enum gpuproj_tensor_prec)p);

		if (gpuproj_kernel_has(k, m) && gpuproj_kernel_metric(k, m) > 0)
			return true;
	}
	return false;
}

/* The kernel measured bytes at any level (or shared wavefronts): something to scale. */
static bool
has_traffic(const struct gpuproj_kernel *k)
{
	return gpuproj_kernel_has(k, GPUPROJ_M_BYTES_L1) ||
	       gpuproj_kernel_has(k, GPUPROJ_M_BYTES_L2) ||
	       gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM) ||
	       gpuproj_kernel_has(k, GPUPROJ_M_SHARED_WAVEFRONTS);
}

/*
 * What eqs. 2–10 cannot do without: something to scale by, FLOP (an FP
 * instruction count above 0, or tensor FLOP) or bytes at some level. FP
 * counts of 0 and no bytes measured (an nvprof export of flop_count_* only,
 * for a kernel that computes nothing) is nothing to scale by either. Every
 * other input has a stated stand-in (hroof_assumes()).
 */
void
hroof_needs(const struct gpuproj_kernel *k, struct model_missing *out)
{
	bool any_fp;
	double flop = model_flop(k, &any_fp);

	if (!(any_fp && flop > 0) && !has_tensor(k) && !has_traffic(k))
		model_missing_add(out, MODEL_FLOP_OR_BYTES);
}

/*
 * The stand-ins of gpuproj_hroof_ceilings_compute() (docs/models.md
 * "Missing inputs"): no shared.wavefronts, no shared level; no
 * warp_efficiency (with CUDA-core FLOP), 1; no bytes at a level, no such
 * level and its hits counted at the level above; no FP count (and no
 * tensor work), no compute roof.
 */
unsigned
hroof_assumes(const struct gpuproj_kernel *k)
{
	static const struct {
		enum gpuproj_metric m;
		enum gpuproj_assumption a;
	} level[] = {
		{ GPUPROJ_M_SHARED_WAVEFRONTS, GPUPROJ_ASSUME_SHARED },
		{ GPUPROJ_M_BYTES_L1, GPUPROJ_ASSUME_L1 },
		{ GPUPROJ_M_BYTES_L2, GPUPROJ_ASSUME_L2 },
		{ GPUPROJ_M_BYTES_DRAM, GPUPROJ_ASSUME_DRAM },
	};
	unsigned bits = 0;
	bool any_fp;
	double flop = model_flop(k, &any_fp);
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(level); i++) {
		if (!gpuproj_kernel_has(k, level[i].m))
			bits |= 1u << level[i].a;
	}
	if (!any_fp && !has_tensor(k))
		bits |= 1u << GPUPROJ_ASSUME_FLOP;
	else if (flop > 0 && !gpuproj_kernel_has(k, GPUPROJ_M_WARP_EFFICIENCY))
		bits |= 1u << GPUPROJ_ASSUME_WARPS;
	return bits;
}

/*
 * Tensor work onto the compute roof (gpuproj_hroof_ceilings()'s comment in
 * model.h): out->flop, perf_mix and perf_ceil hold the CUDA-core values on
 * entry and the combined ones on return. GPUPROJ_E_INVAL for a negative
 * FLOP count (named in why).
 */
static int
tensor_roof(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
	    struct gpuproj_hroof *out, char *why, size_t whylen)
{
	struct model_tensor tw;
	double t_tensor, t_extra, ft, t_cuda, t_cuda_peak, t_comp, t_peak;
	int r = model_tensor_work(k, gpu, &tw, why, whylen);

	if (r)
		return r;
	ft = tw.flop;
	t_tensor = tw.t_tensor;
	t_extra = tw.t_cuda;
	out->tensor_fallback = tw.fallback;
	out->tensor_unknown = tw.unknown;
	out->flop_tensor = ft;
	out->t_tensor = t_tensor;
	if (ft <= 0)
		return GPUPROJ_OK;
	t_cuda = (out->flop > 0 && out->perf_ceil > 0 ? out->flop / out->perf_ceil : 0) + t_extra;
	t_cuda_peak = (out->flop > 0 && out->perf_mix > 0 ? out->flop / out->perf_mix : 0) + t_extra;
	out->t_cuda = t_cuda;
	t_comp = fmax(t_cuda, t_tensor);
	t_peak = fmax(t_cuda_peak, t_tensor);
	out->flop += ft;
	out->perf_ceil = out->flop / t_comp;
	out->perf_mix = out->flop / t_peak;
	return GPUPROJ_OK;
}

/* A metric's per-launch value, or `dflt` when the kernel lacks it (counted in *missing). */
static double
metric_or(const struct gpuproj_kernel *k, enum gpuproj_metric m, double dflt, bool *missing)
{
	double v;

	if (!gpuproj_kernel_has(k, m)) {
		if (missing)
			*missing = true;
		return dflt;
	}
	v = gpuproj_kernel_metric(k, m);
	return v > 0 ? v : 0;
}

/* A metric's per-launch value as measured (negative kept: checked later), else `dflt`. */
static double
measured_or(const struct gpuproj_kernel *k, enum gpuproj_metric m, double dflt)
{
	return gpuproj_kernel_has(k, m) ? gpuproj_kernel_metric(k, m) : dflt;
}

/* Thread-level FP instructions of precision p: inst.fp<p> when counted, else Σ fma, add, mul. */
static double
fp_thread_inst(const struct gpuproj_kernel *k, enum gpuproj_prec p)
{
	static const enum gpuproj_metric all[GPUPROJ_PREC_COUNT] = {
		GPUPROJ_M_INST_FP16, GPUPROJ_M_INST_FP32, GPUPROJ_M_INST_FP64,
	};
	double parts = 0;
	int j;

	for (j = 0; j < 3; j++)
		parts += metric_or(k, model_fp_metrics[p][j], 0, NULL);
	return fmax(parts, metric_or(k, all[p], 0, NULL));
}

/*
 * The issue roof (GPUPROJ_COMPUTE_ISSUE, model.h): out->t_fp holds eqs.
 * 2–3's CUDA-core time on entry; fills t_alu, t_issue and issue_mix and
 * returns the CUDA-core time, the largest of the three. we = warp
 * efficiency (0 < we ≤ 1), r = the SASS FLOP ratio (FP instructions scale
 * with it).
 *
 *   u       = max_gflops.fp32_fma / (2 · L32)             lane-clocks per second (SMs × clock)
 *   f, i    = FP32 and INT32 thread instructions (inst.fp32, else Σ fp32.*; inst.int)
 *   t_alu   = max(f / (D_f + S), i / (D_i + S), (f + i) / (D_f + D_i + S)) / (u · we)
 *   W       = inst.warp · 32 / warp_size                   warp instructions on this GPU
 *   t_issue = W / (u · schedulers_per_sm · ipc_per_scheduler)
 *
 * D_f = L32 − S FP32-only, D_i = L_INT32 − S INT32-only and S shared lanes
 * per SM (lanes_per_sm). A kernel whose profile lacks inst.int is taken to
 * have none, one without inst.warp to issue W = (every thread instruction
 * it counts) / (32 · we): both lower bounds, marked in issue_mix. Only
 * NVIDIA GPUs with lanes_per_sm get the terms (on AMD CDNA, packed FP32
 * gives 2 FMA results per lane-instruction, which these counts do not
 * separate); others keep the FP roof (GPUPROJ_MIX_NO_LANES).
 */
static double
issue_roof(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu, double we,
	   double r, struct gpuproj_hroof *out)
{
	const double *L = gpu->lanes_per_sm;
	double f, i, w, u, ds, df, di, ipc, t_alu, fp_extra;
	bool no_int = false, no_warp = false;

	f = fp_thread_inst(k, GPUPROJ_FP32) * r;
	fp_extra = (r - 1) * fp_thread_inst(k, GPUPROJ_FP32);
	i = metric_or(k, GPUPROJ_M_INST_INT, 0, &no_int);
	if (no_int)
		out->issue_mix |= GPUPROJ_MIX_INT_ASSUMED;
	w = metric_or(k, GPUPROJ_M_INST_WARP, NAN, &no_warp);
	if (no_warp) {
		w = (fp_thread_inst(k, GPUPROJ_FP16) + fp_thread_inst(k, GPUPROJ_FP32) +
		     fp_thread_inst(k, GPUPROJ_FP64) + i + metric_or(k, GPUPROJ_M_INST_LDST, 0, NULL) +
		     metric_or(k, GPUPROJ_M_INST_OTHER, 0, NULL)) /
		    (32.0 * we);
		out->issue_mix |= GPUPROJ_MIX_WARP_ASSUMED;
	}
	w += fp_extra / (32.0 * we); /* the SASS ratio adds or removes FP instructions */
	/* Lane-clocks from the FMA-loop rate, also where the dense rate replaced it (model.h). */
	u = (gpu->fp32_loop_gflops > 0
		     ? gpu->fp32_loop_gflops
		     : gpuproj_target_gflops(gpu, GPUPROJ_FP32, GPUPROJ_OP_FMA, NULL)) *
	    1e9 / (2.0 * L[GPUPROJ_LANE_FP32]);
	if (gpu->vendor != GPUPROJ_VENDOR_NVIDIA || !(L[GPUPROJ_LANE_FP32] > 0) ||
	    !(L[GPUPROJ_LANE_INT32] > 0) || !(L[GPUPROJ_LANE_FP32_INT32_SHARED] >= 0) ||
	    !(gpu->schedulers_per_sm > 0) || !(u > 0) || !isfinite(u)) {
		out->issue_mix |= GPUPROJ_MIX_NO_LANES;
		return out->t_fp;
	}
	ds = L[GPUPROJ_LANE_FP32_INT32_SHARED];
	df = L[GPUPROJ_LANE_FP32] - ds;
	di = L[GPUPROJ_LANE_INT32] - ds;
	t_alu = fmax(f / (df + ds), (f + i) / (df + di + ds));
	if (di + ds > 0)
		t_alu = fmax(t_alu, i / (di + ds));
	out->t_alu = t_alu / (u * we);
	ipc = gpu->ipc_per_scheduler > 0 ? gpu->ipc_per_scheduler : 1.0;
	out->t_issue = w * 32.0 / (gpu->warp_size > 0 ? gpu->warp_size : 32) /
		       (u * gpu->schedulers_per_sm * ipc);
	return fmax(out->t_fp, fmax(out->t_alu, out->t_issue));
}

int
gpuproj_hroof_ceilings(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
		       double flop_ratio, struct gpuproj_hroof *out, char *why, size_t whylen)
{
	return gpuproj_hroof_ceilings_compute(k, gpu, flop_ratio, GPUPROJ_COMPUTE_FP, out, why,
					      whylen);
}

int
gpuproj_hroof_ceilings_compute(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
			       double flop_ratio, enum gpuproj_compute compute,
			       struct gpuproj_hroof *out, char *why, size_t whylen)
{
	struct model_missing missing = { 0 };
	double mix = 0, b1, b2, bd, wf;
	double flop = 0;
	int r, i;

	if (!k || !gpu || !out)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	hroof_needs(k, &missing);
	/* FLOP and the instruction mix (eq. 2); a negative count first. */
	r = model_flop_mix(k, gpu, &flop, &mix, why, whylen);
	if (r == GPUPROJ_E_INVAL)
		return r;
	if (missing.n)
		return model_missing_why(&missing, "hroof", why, whylen);
	if (r == GPUPROJ_E_MISSING)
		flop = mix = 0; /* no FP count: tensor work only, or memory only (ASSUME_FLOP) */

	out->flop = flop * (flop_ratio > 0 ? flop_ratio : 1.0);
	if (flop > 0) {
		/* No warp_efficiency: full warps (GPUPROJ_ASSUME_WARPS). */
		double we = gpuproj_kernel_has(k, GPUPROJ_M_WARP_EFFICIENCY)
				    ? gpuproj_kernel_metric(k, GPUPROJ_M_WARP_EFFICIENCY)
				    : 1.0;

		if (!(we > 0 && we <= 1.0 + 1e-9)) {
			if (why)
				snprintf(why, whylen, "warp_efficiency %.4g is outside (0, 1]", we);
			return GPUPROJ_E_INVAL;
		}
		out->perf_mix = mix;                                /* eq. 2 */
		out->perf_ceil = (we > 1.0 ? 1.0 : we) * out->perf_mix; /* eq. 3 */
		if (compute == GPUPROJ_COMPUTE_DEFAULT)
			compute = gpuproj_compute_default();
		if (compute == GPUPROJ_COMPUTE_ISSUE) {
			double t;

			out->t_fp = out->flop / out->perf_ceil;
			t = issue_roof(k, gpu, we > 1.0 ? 1.0 : we,
				       flop_ratio > 0 ? flop_ratio : 1.0, out);
			out->perf_ceil = out->flop / t;
		}
	}
	out->t_cuda = out->flop > 0 ? out->flop / out->perf_ceil : 0;
	r = tensor_roof(k, gpu, out, why, whylen);
	if (r)
		return r;

	/*
	 * A level the profile lacks (docs/models.md "Missing inputs"): no DRAM
	 * bytes, none; no L2 bytes, the DRAM bytes (no L2 hits: the bytes above
	 * DRAM count at L1); no L1 bytes, the L2 bytes (no L1 hits); no
	 * wavefronts, none. Such a level is not projected (measured[] below).
	 */
	bd = measured_or(k, GPUPROJ_M_BYTES_DRAM, 0.0);
	b2 = measured_or(k, GPUPROJ_M_BYTES_L2, bd);
	b1 = measured_or(k, GPUPROJ_M_BYTES_L1, b2);
	wf = measured_or(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0.0);
	if (b1 < 0 || b2 < 0 || bd < 0 || wf < 0) {
		if (why)
			snprintf(why, whylen, "a byte or wavefront count is negative");
		return GPUPROJ_E_INVAL;
	}
	/* Hits per level (eq. 4) and shared traffic (eq. 5). */
	out->hits[GPUPROJ_LEVEL_L1] = fmax(b1 - b2, 0.0);
	out->hits[GPUPROJ_LEVEL_L2] = fmax(b2 - bd, 0.0);
	out->hits[GPUPROJ_LEVEL_DRAM] = bd;
	out->hits[GPUPROJ_LEVEL_SHARED] = wf * SHARED_BYTES_PER_WAVEFRONT;
	for (i = 0; i < GPUPROJ_LEVEL_COUNT; i++)
		out->t[i] = out->hits[i] / (gpu->bw_gbs[i] * 1e9);

	/* Ceilings (eqs. 6–8), OI (eq. 10), rooflines (eq. 1 with ceilings). */
	{
		const double *N = out->hits, *t = out->t;
		double num[GPUPROJ_HL_COUNT], den[GPUPROJ_HL_COUNT];
		/* Only the measured levels bound (L1 also through shared traffic). */
		const bool measured[GPUPROJ_HL_COUNT] = {
			[GPUPROJ_HL_L1] = gpuproj_kernel_has(k, GPUPROJ_M_BYTES_L1) || wf > 0,
			[GPUPROJ_HL_L2] = gpuproj_kernel_has(k, GPUPROJ_M_BYTES_L2),
			[GPUPROJ_HL_DRAM] = gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM),
		};

		num[GPUPROJ_HL_L1] = N[GPUPROJ_LEVEL_L1] + N[GPUPROJ_LEVEL_SHARED] +
				     N[GPUPROJ_LEVEL_L2] + N[GPUPROJ_LEVEL_DRAM];
		den[GPUPROJ_HL_L1] = t[GPUPROJ_LEVEL_L1] + t[GPUPROJ_LEVEL_SHARED] +
				     t[GPUPROJ_LEVEL_L2] + t[GPUPROJ_LEVEL_DRAM];
		num[GPUPROJ_HL_L2] = N[GPUPROJ_LEVEL_L2] + N[GPUPROJ_LEVEL_DRAM];
		den[GPUPROJ_HL_L2] = t[GPUPROJ_LEVEL_L2] + t[GPUPROJ_LEVEL_DRAM];
		num[GPUPROJ_HL_DRAM] = N[GPUPROJ_LEVEL_DRAM];
		den[GPUPROJ_HL_DRAM] = t[GPUPROJ_LEVEL_DRAM];
		for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
			out->traversing[i] = num[i];
			out->valid[i] = num[i] > 0 && measured[i];
			if (!out->valid[i]) {
				out->bw_ceil[i] = out->oi[i] = NAN;
				out->roofline[i] = out->flop > 0 ? out->perf_ceil : NAN;
				continue;
			}
			out->bw_ceil[i] = num[i] / den[i];
			out->oi[i] = out->flop / num[i];
			out->roofline[i] = out->flop > 0 ? fmin(out->bw_ceil[i] * out->oi[i],
								out->perf_ceil)
							 : 0.0;
		}
	}
	return GPUPROJ_OK;
}

static enum gpuproj_bound
binding(const struct gpuproj_hroof *h)
{
	static const enum gpuproj_bound lv[GPUPROJ_LEVEL_COUNT] = {
		[GPUPROJ_LEVEL_L1] = GPUPROJ_BOUND_L1, [GPUPROJ_LEVEL_L2] = GPUPROJ_BOUND_L2,
		[GPUPROJ_LEVEL_DRAM] = GPUPROJ_BOUND_DRAM,
		[GPUPROJ_LEVEL_SHARED] = GPUPROJ_BOUND_SHARED,
	};
	enum gpuproj_bound b = GPUPROJ_BOUND_NONE;
	double best = 0;
	int i;

	if (h->flop > 0 && h->perf_ceil > 0) {
		best = h->flop / h->perf_ceil;
		/* Issue bound: instruction issue sets the CUDA-core time and the pipes do not. */
		b = h->t_issue > fmax(h->t_fp, h->t_alu) && h->t_issue >= h->t_tensor
			    ? GPUPROJ_BOUND_INSTRUCTION
			    : GPUPROJ_BOUND_COMPUTE;
	}
	for (i = 0; i < GPUPROJ_LEVEL_COUNT; i++) {
		if (h->t[i] > best) {
			best = h->t[i];
			b = lv[i];
		}
	}
	return b;
}

double
hroof_roof_s(const struct gpuproj_hroof *h)
{
	double best = 0;
	int i;

	if (h->flop > 0 && h->perf_ceil > 0)
		best = h->flop / h->perf_ceil;
	for (i = 0; i < GPUPROJ_LEVEL_COUNT; i++)
		best = fmax(best, h->t[i]);
	return best;
}

/*
 * The target side uses c->kt: the kernel as expected on the target (its
 * DRAM bytes differ from the source's only with the L2-capacity option).
 */
int
hroof_project(const struct model_ctx *c, struct gpuproj_projection *out)
{
	struct gpuproj_hroof s, t;
	int r = hroof_project_ceil(c, out, &s, &t);

	if (r == GPUPROJ_OK)
		hroof_compute_note(c, &t, out);
	return r;
}

int
hroof_project_ceil(const struct model_ctx *c, struct gpuproj_projection *out,
		   struct gpuproj_hroof *s, struct gpuproj_hroof *t)
{
	double flop_ratio = c->flop_ratio;
	double ts = gpuproj_kernel_mean_ns(c->k);
	double lo = INFINITY, hi = -INFINITY;
	bool any = false;
	int r, i;

	if (isnan(ts) || ts <= 0) {
		snprintf(out->why, sizeof(out->why), "no timed launch (duration)");
		return out->status = GPUPROJ_E_MISSING;
	}
	r = gpuproj_hroof_ceilings_compute(c->k, c->src, 1.0, c->compute, s, out->why,
					   sizeof(out->why));
	if (r == GPUPROJ_OK)
		r = gpuproj_hroof_ceilings_compute(c->kt, c->tgt, flop_ratio, c->compute, t,
						   out->why, sizeof(out->why));
	if (r)
		return out->status = r;
	out->flop_ratio = flop_ratio;

	for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
		double tt;

		out->level_ns[i] = NAN;
		if (!s->valid[i])
			continue;
		if (s->flop > 0) {
			tt = flop_ratio * ts * s->roofline[i] / t->roofline[i]; /* eq. 9 */
		} else {
			/*
			 * Time space: T_s · (N+_t/BW_t)/(N+_s/BW_s); N+_t = N+_s unless the
			 * L2-capacity option changed the target's DRAM bytes.
			 */
			if (!t->valid[i])
				continue;
			tt = ts * s->bw_ceil[i] / t->bw_ceil[i] * t->traversing[i] / s->traversing[i];
		}
		out->level_ns[i] = tt;
		lo = fmin(lo, tt);
		hi = fmax(hi, tt);
		any = true;
	}
	if (!any) {
		if (s->flop > 0) {
			/* No memory traffic at all: only the compute ceiling scales. */
			lo = hi = flop_ratio * ts * s->perf_ceil / t->perf_ceil;
		} else {
			snprintf(out->why, sizeof(out->why),
				 "kernel has neither FLOP nor memory traffic to scale by");
			return out->status = GPUPROJ_E_UNSUPPORTED;
		}
	}
	out->lo_ns = lo;
	out->hi_ns = hi;
	out->point_ns = (lo + hi) / 2;
	out->binding = binding(t);
	/* The issue roof on counted instructions only (gpuproj_hroof.issue_mix). */
	if ((s->issue_mix | t->issue_mix) & (GPUPROJ_MIX_INT_ASSUMED | GPUPROJ_MIX_WARP_ASSUMED))
		out->assumed |= 1u << GPUPROJ_ASSUME_MIX;
	return out->status = GPUPROJ_OK;
}

/* The ceilings of both GPUs, for reports. */
int
hroof_details(const struct model_ctx *c, struct gpuproj_model_details *out)
{
	static const char *const names[2][6] = {
		{ "src.flop", "src.perf_mix", "src.perf_ceil", "src.roofline_l1", "src.roofline_l2",
		  "src.roofline_dram" },
		{ "tgt.flop", "tgt.perf_mix", "tgt.perf_ceil", "tgt.roofline_l1", "tgt.roofline_l2",
		  "tgt.roofline_dram" },
	};
	static const char *const bw[2][3] = {
		{ "src.bw_ceil_l1", "src.bw_ceil_l2", "src.bw_ceil_dram" },
		{ "tgt.bw_ceil_l1", "tgt.bw_ceil_l2", "tgt.bw_ceil_dram" },
	};
	static const char *const oi[2][3] = {
		{ "src.oi_l1", "src.oi_l2", "src.oi_dram" },
		{ "tgt.oi_l1", "tgt.oi_l2", "tgt.oi_dram" },
	};
	struct gpuproj_hroof h[2];
	double ts = gpuproj_kernel_mean_ns(c->k);
	int r, g, i;

	/* Fail as hroof_project() does: the ratio method needs a source time. */
	if (isnan(ts) || ts <= 0)
		return GPUPROJ_E_MISSING;
	r = gpuproj_hroof_ceilings_compute(c->k, c->src, 1.0, c->compute, &h[0], NULL, 0);
	if (r == GPUPROJ_OK)
		r = gpuproj_hroof_ceilings_compute(c->kt, c->tgt, c->flop_ratio, c->compute, &h[1],
						   NULL, 0);
	if (r)
		return r;
	for (g = 0; g < 2; g++) {
		model_detail(out, names[g][0], h[g].flop, "FLOP");
		model_detail(out, names[g][1], h[g].perf_mix, "FLOP/s");
		model_detail(out, names[g][2], h[g].perf_ceil, "FLOP/s");
		for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
			model_detail(out, bw[g][i], h[g].bw_ceil[i], "B/s");
			model_detail(out, oi[g][i], h[g].oi[i], "FLOP/B");
			model_detail(out, names[g][3 + i], h[g].roofline[i], "FLOP/s");
		}
	}
	if (c->compute == GPUPROJ_COMPUTE_ISSUE) {
		static const char *const ct[2][4] = {
			{ "src.t_fp", "src.t_alu", "src.t_issue", "src.issue_mix" },
			{ "tgt.t_fp", "tgt.t_alu", "tgt.t_issue", "tgt.issue_mix" },
		};

		for (g = 0; g < 2; g++) {
			model_detail(out, ct[g][0], h[g].t_fp * 1e9, "ns");
			model_detail(out, ct[g][1], h[g].t_alu * 1e9, "ns");
			model_detail(out, ct[g][2], h[g].t_issue * 1e9, "ns");
			model_detail(out, ct[g][3], (double)h[g].issue_mix, "bits");
		}
	}
	return GPUPROJ_OK;
}

/*
 * The compute roof's note (GPUPROJ_COMPUTE_ISSUE): how far the target's
 * pipes or issue stand above eqs. 2–3, and the defaults of its mix.
 */
void
hroof_compute_note(const struct model_ctx *c, const struct gpuproj_hroof *t,
		   struct gpuproj_projection *out)
{
	double tc;

	if (!c->notes || c->compute != GPUPROJ_COMPUTE_ISSUE || !(t->t_fp > 0))
		return;
	tc = fmax(t->t_fp, fmax(t->t_alu, t->t_issue));
	if (t->issue_mix & GPUPROJ_MIX_NO_LANES)
		model_note_append(out, "compute: FP roof only (no lanes_per_sm or not NVIDIA)");
	else
		model_note_append(out, "compute: %s x%.3g the FP roof%s%s",
				  t->t_issue >= t->t_alu ? "issue" : "FP32/INT32 lanes",
				  tc / t->t_fp,
				  t->issue_mix & GPUPROJ_MIX_INT_ASSUMED ? "; inst.int unknown, 0 assumed"
									 : "",
				  t->issue_mix & GPUPROJ_MIX_WARP_ASSUMED
					  ? "; inst.warp unknown, counted instructions / 32"
					  : "");
}
