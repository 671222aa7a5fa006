/* SPDX-License-Identifier: MIT */
/*
 * sol — a coarser hierarchical roofline for exports of Nsight Compute's
 * default sections (SpeedOfLight, LaunchStats, Occupancy): most exports
 * people have. They carry the kernel's duration and, per resource, its
 * throughput as a percentage of the source GPU's peak ("DRAM Throughput",
 * "L2 Cache Throughput", "L1/TEX Cache Throughput", "Compute (SM)
 * Throughput"; GPUPROJ_SOL_* in model.h), but no per-level byte and no FP
 * instruction count, so hroof ([VanLanker2024]) cannot run.
 *
 * What the percentages give, per launch, on the source s (T_s the measured
 * mean duration, C_s,x the source's ceiling of resource x in targets.yaml):
 *   busy fraction f_x = pct_x / 100, for x ∈ {L1, L2, DRAM}:
 *     bytes_x = f_x · BW_s,x · T_s (the traffic that keeps x that busy);
 *     DRAM: bytes.dram / (BW_s,DRAM · T_s) when the profile has bytes.dram
 *     (Memory Workload Analysis "Memory Throughput" × duration, or counted);
 *   compute fraction f_c = pct_SM / 100, i.e. the work of the busiest SM
 *     pipe is f_c · P_s · T_s, with P the FP32 FMA rate (max_gflops where
 *     measured, else peak_gflops): SM pipes scale with SMs × lanes × clock,
 *     which the FP32 rate measures.
 * Projection: hroof's ratio method ([VanLanker2024] eq. 9) with these bytes and
 * this work against plain ceilings (eq. 1 with BW^ceil = BW, no
 * kernel-specific ceilings of eqs. 6–7: the levels' traffic is not known
 * separately enough):
 *   time_g(x) = max(bytes_x / BW_g,x, work / P_g)                (eq. 1 as time)
 *   T_t(x) = T_s · time_t(x) / time_s(x)                          (eq. 9)
 *          = T_s · max(f_x · BW_s,x/BW_t,x, f_c · P_s/P_t) / max(f_x, f_c)
 * Levels without a percentage, or with f_x = f_c = 0, drop out; the interval
 * [lo, hi] spans the remaining levels and the point is its midpoint, as in
 * hroof. Binding resource on the target: the largest of f_x·BW_s,x/BW_t,x
 * and f_c·P_s/P_t. When the launch geometry is known, the projection is
 * multiplied by the occupancy term of hroof-occ ([Srivastava-nd] eq. 4 with wave
 * fill, O'_s/O'_t), as the default model does; without it, not (the note
 * says so).
 *
 * Why coarser than hroof (labelled so wherever it is printed): a
 * throughput percentage is the utilisation of the busiest sub-unit of the
 * resource (ncu's "breakdown" metrics), not its bytes; the percentages are
 * of NVIDIA's peak, the ceilings here of targets.yaml (often measured,
 * lower): on the source the two agree only up to that ratio, which then
 * enters every projection; the compute side knows no precision mix (an
 * FP64-bound kernel is scaled by the FP32 rate) and no warp efficiency.
 * Validation on gpuperfpredict and NeuSight with the quantities such an
 * export would have (gpuproj_profile_default_sections(), model.h; `gpuproj
 * validate --default-sections`): docs/validation.md "sol on exports of the
 * default sections". Its calibrated interval (interval.h) is
 * fitted on those reduced profiles.
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

/* Names of the inputs, for needs() and messages. */
#define NEED_SM GPUPROJ_SOL_SM_PCT " (Compute (SM) Throughput)"
#define NEED_DRAM GPUPROJ_SOL_DRAM_PCT " (DRAM Throughput) or bytes.dram"

/* Mean of a kernel's extra metric (percent), or NaN. */
static double
extra_pct(const struct gpuproj_kernel *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, name) == 0 && k->extra[i].n > 0)
			return k->extra[i].sum / (double)k->extra[i].n;
	}
	return NAN;
}

/* The kernel has counters its percentages can be derived from (model_sol_derive()). */
static bool
derivable_sm(const struct gpuproj_kernel *k)
{
	bool any_fp;

	model_flop(k, &any_fp);
	return any_fp || gpuproj_kernel_has(k, GPUPROJ_M_INST_WARP);
}

/*
 * What sol cannot do without: the SM's busy percentage (measured, or
 * derivable from FP or warp instruction counts) and the DRAM's
 * (measured, or bytes.dram).
 */
void
sol_needs(const struct gpuproj_kernel *k, struct model_missing *out)
{
	if (isnan(extra_pct(k, GPUPROJ_SOL_SM_PCT)) && !derivable_sm(k))
		model_missing_add(out, NEED_SM);
	if (isnan(extra_pct(k, GPUPROJ_SOL_DRAM_PCT)) && !gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM))
		model_missing_add(out, NEED_DRAM);
}

/*
 * A kernel with counters but without ncu's percentages: sol derives them
 * against the source's ceilings (ASSUME_PERCENTAGES); sol is for exports
 * of the default sections, and says so.
 */
unsigned
sol_assumes(const struct gpuproj_kernel *k)
{
	static const char *const pct[] = { GPUPROJ_SOL_SM_PCT, GPUPROJ_SOL_L2_PCT,
					   GPUPROJ_SOL_L1_PCT };
	unsigned bits = 0;
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(pct); i++) {
		enum gpuproj_metric level = i == 1 ? GPUPROJ_M_BYTES_L2 : GPUPROJ_M_BYTES_L1;
		bool counted = i == 0 ? derivable_sm(k) : gpuproj_kernel_has(k, level);

		if (isnan(extra_pct(k, pct[i])) && counted)
			bits |= 1u << GPUPROJ_ASSUME_PERCENTAGES;
	}
	if (!gpuproj_kernel_geometry_known(k))
		bits |= 1u << GPUPROJ_ASSUME_GEOMETRY;
	else if (k->regs_per_thread == 0)
		bits |= 1u << GPUPROJ_ASSUME_REGISTERS;
	return bits;
}

/* Everything one projection uses. */
struct sol {
	double ts;                       /* source mean duration, ns */
	double f[GPUPROJ_HL_COUNT];      /* busy fraction per level, NaN when unknown */
	double fc;                       /* compute fraction */
	double bw_s[GPUPROJ_HL_COUNT], bw_t[GPUPROJ_HL_COUNT]; /* GB/s */
	double p_s, p_t;                 /* FP32 FMA rate, GFLOP/s */
	double level_ns[GPUPROJ_HL_COUNT];
	double lo, hi, point;
	enum gpuproj_bound binding;
	bool occ_applied;
	bool regs_capped;                /* the occupancy capped registers (ASSUME_REGS_CAPPED) */
	double occ_factor;               /* O'_s / O'_t, 1 when not applied */
	struct gpuproj_occmodel occ_s, occ_t;
};

static const enum gpuproj_level level_of[GPUPROJ_HL_COUNT] = {
	GPUPROJ_LEVEL_L1, GPUPROJ_LEVEL_L2, GPUPROJ_LEVEL_DRAM,
};
static const char *const pct_name[GPUPROJ_HL_COUNT] = {
	GPUPROJ_SOL_L1_PCT, GPUPROJ_SOL_L2_PCT, GPUPROJ_SOL_DRAM_PCT,
};
static const enum gpuproj_bound bound_of[GPUPROJ_HL_COUNT] = {
	GPUPROJ_BOUND_L1, GPUPROJ_BOUND_L2, GPUPROJ_BOUND_DRAM,
};

static int
sol_compute(const struct model_ctx *c, struct sol *s, char *why, size_t whylen)
{
	struct model_missing missing = { 0 };
	double best = -1, derived[4];
	bool any = false;
	int i, r;

	memset(s, 0, sizeof(*s));
	s->occ_factor = 1.0;
	s->lo = INFINITY;
	s->hi = -INFINITY;
	s->ts = gpuproj_kernel_mean_ns(c->k);
	if (isnan(s->ts) || s->ts <= 0) {
		if (why)
			snprintf(why, whylen, "no timed launch (duration)");
		return GPUPROJ_E_MISSING;
	}
	sol_needs(c->k, &missing);
	if (missing.n)
		return model_missing_why(&missing, "sol", why, whylen);
	/* What ncu did not measure, derived from the counters (order SM, DRAM, L2, L1). */
	model_sol_derive(c->k, c->src, derived);
	s->fc = (isnan(extra_pct(c->k, GPUPROJ_SOL_SM_PCT)) ? derived[0]
							  : extra_pct(c->k, GPUPROJ_SOL_SM_PCT)) /
		100.0;
	s->p_s = gpuproj_target_gflops(c->src, GPUPROJ_FP32, GPUPROJ_OP_FMA, NULL);
	s->p_t = gpuproj_target_gflops(c->tgt, GPUPROJ_FP32, GPUPROJ_OP_FMA, NULL);
	if (!(s->fc >= 0 && s->fc <= 1)) {
		if (why)
			snprintf(why, whylen, "%s = %.4g %% is not a percentage", GPUPROJ_SOL_SM_PCT,
				 100 * s->fc);
		return GPUPROJ_E_INVAL;
	}
	if (!(s->p_s > 0) || !(s->p_t > 0)) {
		if (why)
			snprintf(why, whylen, "sol needs peak_gflops.fp32_fma of %s",
				 !(s->p_s > 0) ? c->src->name : c->tgt->name);
		return GPUPROJ_E_MISSING;
	}
	for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
		double pct = extra_pct(c->k, pct_name[i]), num, den, tt;

		if (isnan(pct))
			pct = derived[3 - i]; /* L1 = derived[3], L2 = [2], DRAM = [1] */

		s->bw_s[i] = c->src->bw_gbs[level_of[i]];
		s->bw_t[i] = c->tgt->bw_gbs[level_of[i]];
		s->f[i] = pct / 100.0;
		s->level_ns[i] = NAN;
		if (i == GPUPROJ_HL_DRAM && gpuproj_kernel_has(c->k, GPUPROJ_M_BYTES_DRAM) &&
		    s->bw_s[i] > 0)
			s->f[i] = gpuproj_kernel_metric(c->k, GPUPROJ_M_BYTES_DRAM) /
				  (s->bw_s[i] * s->ts); /* B / (GB/s · ns) = B / B */
		if (isnan(s->f[i]) || !(s->bw_s[i] > 0) || !(s->bw_t[i] > 0))
			continue;
		if (s->f[i] < 0) {
			if (why)
				snprintf(why, whylen, "%s is negative", pct_name[i]);
			return GPUPROJ_E_INVAL;
		}
		den = fmax(s->f[i], s->fc);
		if (!(den > 0))
			continue; /* the level shows no activity at all */
		num = fmax(s->f[i] * s->bw_s[i] / s->bw_t[i], s->fc * s->p_s / s->p_t);
		tt = s->ts * num / den;                                /* eq. 9 */
		s->level_ns[i] = tt;
		s->lo = fmin(s->lo, tt);
		s->hi = fmax(s->hi, tt);
		any = true;
		if (s->f[i] * s->bw_s[i] / s->bw_t[i] > best) {
			best = s->f[i] * s->bw_s[i] / s->bw_t[i];
			s->binding = bound_of[i];
		}
	}
	if (!any) {
		if (why)
			snprintf(why, whylen, "no throughput to scale by: every percentage is 0 or "
				 "its ceiling is missing from targets.yaml");
		return GPUPROJ_E_UNSUPPORTED;
	}
	if (s->fc * s->p_s / s->p_t > best)
		s->binding = GPUPROJ_BOUND_COMPUTE;
	s->point = 0.5 * (s->lo + s->hi);

	/* The default model's occupancy term ([Srivastava-nd] eq. 4), when the geometry is known. */
	if (gpuproj_kernel_geometry_known(c->k)) {
		r = model_occ_waves(c->k, c->src, c->waves, &s->occ_s, why, whylen);
		if (r == GPUPROJ_OK)
			r = model_occ_waves(c->kt, c->tgt, c->waves, &s->occ_t, why, whylen);
		if (r)
			return r;
		s->regs_capped = s->occ_s.regs_capped || s->occ_t.regs_capped;
		s->occ_factor = s->occ_s.occupancy_eff / s->occ_t.occupancy_eff;
		s->occ_applied = true;
		s->lo *= s->occ_factor;
		s->hi *= s->occ_factor;
		s->point *= s->occ_factor;
		for (i = 0; i < GPUPROJ_HL_COUNT; i++)
			s->level_ns[i] *= s->occ_factor;
		if (s->occ_t.wave_model != GPUPROJ_WAVES_OFF &&
		    s->occ_t.grid_blocks < s->occ_t.wave_blocks)
			s->binding = GPUPROJ_BOUND_LATENCY;
		else if (s->occ_t.occ.occupancy < s->occ_s.occ.occupancy)
			s->binding = GPUPROJ_BOUND_OCCUPANCY;
	}
	return GPUPROJ_OK;
}

int
sol_project(const struct model_ctx *c, struct gpuproj_projection *out)
{
	struct sol s;
	int r, i;

	r = sol_compute(c, &s, out->why, sizeof(out->why));
	if (r)
		return out->status = r;
	out->lo_ns = s.lo;
	out->hi_ns = s.hi;
	out->point_ns = s.point;
	out->binding = s.binding;
	for (i = 0; i < GPUPROJ_HL_COUNT; i++)
		out->level_ns[i] = s.level_ns[i];
	out->flop_ratio = 1.0;
	if (s.regs_capped)
		out->assumed |= 1u << GPUPROJ_ASSUME_REGS_CAPPED;
	if (c->notes) {
		char occ[48];

		if (s.occ_applied)
			snprintf(occ, sizeof(occ), "occupancy factor %.3g", s.occ_factor);
		else
			snprintf(occ, sizeof(occ), "geometry unknown: no occupancy term");
		snprintf(out->note, sizeof(out->note),
			 "coarser: from throughput %% (SM %.0f, DRAM %.0f, L2 %.0f, L1 %.0f); %s%s",
			 100 * s.fc, 100 * s.f[GPUPROJ_HL_DRAM], 100 * s.f[GPUPROJ_HL_L2],
			 100 * s.f[GPUPROJ_HL_L1], occ,
			 sol_assumes(c->k) & (1u << GPUPROJ_ASSUME_PERCENTAGES)
				 ? "; sol is for exports of ncu's default sections: these "
				   "percentages are derived from the profile's counters"
				 : "");
	}
	return out->status = GPUPROJ_OK;
}

int
sol_details(const struct model_ctx *c, struct gpuproj_model_details *out)
{
	static const char *const f_name[GPUPROJ_HL_COUNT] = { "src.f_l1", "src.f_l2", "src.f_dram" };
	static const char *const t_name[GPUPROJ_HL_COUNT] = { "t_l1", "t_l2", "t_dram" };
	static const char *const bws[GPUPROJ_HL_COUNT] = { "src.bw_l1", "src.bw_l2", "src.bw_dram" };
	static const char *const bwt[GPUPROJ_HL_COUNT] = { "tgt.bw_l1", "tgt.bw_l2", "tgt.bw_dram" };
	static const char *const keys[GPUPROJ_HL_COUNT] = { "bw_gbs.l1", "bw_gbs.l2", "bw_gbs.dram" };
	struct sol s;
	int r, i;

	r = sol_compute(c, &s, NULL, 0);
	if (r)
		return r;
	model_detail(out, "src.time", s.ts, "ns");
	model_detail(out, "src.f_sm", s.fc, "ratio");
	for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
		model_detail(out, f_name[i], s.f[i], "ratio");
		model_detail_key(out, c->src, bws[i], s.bw_s[i], "GB/s", keys[i]);
		model_detail_key(out, c->tgt, bwt[i], s.bw_t[i], "GB/s", keys[i]);
		model_detail(out, t_name[i], s.level_ns[i], "ns");
	}
	model_detail_key(out, c->src, "src.perf_fp32", s.p_s, "GFLOP/s", "peak_gflops.fp32_fma");
	model_detail_key(out, c->tgt, "tgt.perf_fp32", s.p_t, "GFLOP/s", "peak_gflops.fp32_fma");
	model_detail(out, "occupancy_factor", s.occ_factor, "ratio");
	return GPUPROJ_OK;
}
