/* SPDX-License-Identifier: MIT */
/*
 * hroof-occ — the hierarchical roofline of seed 000 (model-hroof.c, eqs.
 * 1–10) with the occupancy term of seed 002 (eq. 4): the combination the
 * gpuperfpredict validation chose as the default (docs/validation.md).
 *
 * Seed 002 eq. 4 transfers a time as
 *   T_t = T_s · (Roof_s / Roof_t) · (O_s / O_t) · (η_s / η_t ≈ 1)
 * with a single DRAM roofline for Roof. hroof-occ keeps the occupancy
 * factor and puts hroof's per-level rooflines in place of Roof:
 *   T_t(x) = T_hroof,t(x) · O'_s / O'_t     for x ∈ {L1, L2, DRAM}
 * where T_hroof,t(x) is hroof's level-x projection (eq. 9, including the
 * SASS FLOP ratio and, with the option, the L2-capacity DRAM bytes) and
 * O'_x = O_x·u_x is the theoretical occupancy (occupancy.h: registers
 * with allocation granularity, shared memory with granularity and the
 * per-block reservation, threads, block limit) times the wave fill of the
 * `waves` option (model-occupancy.c: "sm" by default). The interval is
 * hroof's scaled by the same factor; the point is its midpoint.
 *
 * When the kernel's occupancy and wave fill are the same on both GPUs the
 * factor is 1 and the model is hroof. Binding on the target: "latency"
 * when the grid has fewer blocks than a wave there, "occupancy" when the
 * target holds fewer warps per SM than the source (O_t < O_s), else
 * hroof's.
 *
 * Assumptions: hroof's (bytes per level and warp efficiency transfer) and
 * seed 002's (throughput proportional to occupancy — the one that breaks
 * for throughput-bound kernels that already hide latency with fewer warps,
 * where hroof-occ is pessimistic on a target of lower occupancy; `--model
 * all` shows hroof next to it). The kernel uses the same registers and
 * shared memory on both GPUs. Unlike the occupancy model, an unknown
 * register count (regs_per_thread 0) is not an error here: the register
 * limit is then not applied and the note says so, because hroof's
 * projection does not depend on it.
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

/* Occupancy and waves on both GPUs; why names the problem. */
static int
factor(const struct model_ctx *c, struct gpuproj_occmodel *s, struct gpuproj_occmodel *t,
       char *why, size_t whylen)
{
	int r = model_occ_waves(c->k, c->src, c->waves, s, why, whylen);

	if (r == GPUPROJ_OK)
		r = model_occ_waves(c->kt, c->tgt, c->waves, t, why, whylen);
	return r;
}

int
hroofocc_project(const struct model_ctx *c, struct gpuproj_projection *out)
{
	struct gpuproj_occmodel s, t;
	enum gpuproj_bound hb;
	double ratio;
	char ls[64], lt[64];
	int r, i;

	r = hroof_project(c, out);
	if (r)
		return r;
	r = factor(c, &s, &t, out->why, sizeof(out->why));
	if (r) {
		out->lo_ns = out->hi_ns = out->point_ns = NAN;
		for (i = 0; i < GPUPROJ_HL_COUNT; i++)
			out->level_ns[i] = NAN;
		out->binding = GPUPROJ_BOUND_NONE;
		return out->status = r;
	}
	ratio = s.occupancy_eff / t.occupancy_eff;                       /* seed 002 eq. 4 */
	out->lo_ns *= ratio;
	out->hi_ns *= ratio;
	out->point_ns *= ratio;
	for (i = 0; i < GPUPROJ_HL_COUNT; i++)
		out->level_ns[i] *= ratio;
	hb = out->binding;
	if (t.wave_model != GPUPROJ_WAVES_OFF && t.grid_blocks < t.wave_blocks)
		out->binding = GPUPROJ_BOUND_LATENCY;
	else if (t.occ.occupancy < s.occ.occupancy)
		out->binding = GPUPROJ_BOUND_OCCUPANCY;
	else
		out->binding = hb;
	if (c->notes)
		snprintf(out->note, sizeof(out->note),
			 "occupancy factor %.3g: %.2f (%s) -> %.2f (%s), %s waves %.0f -> %.0f%s", ratio,
			 s.occ.occupancy, gpuproj_occupancy_limit_names(s.occ.limiting, ls, sizeof(ls)),
			 t.occ.occupancy, gpuproj_occupancy_limit_names(t.occ.limiting, lt, sizeof(lt)),
			 gpuproj_waves_name(t.wave_model), s.waves, t.waves,
			 c->k->regs_per_thread ? "" : "; regs_per_thread unknown: no register limit");
	return out->status = GPUPROJ_OK;
}

int
hroofocc_details(const struct model_ctx *c, struct gpuproj_model_details *out)
{
	struct gpuproj_occmodel s, t;
	int r;

	r = hroof_details(c, out);
	if (r)
		return r;
	r = factor(c, &s, &t, NULL, 0);
	if (r)
		return r;
	model_detail(out, "src.occupancy", s.occ.occupancy, "ratio");
	model_detail(out, "src.blocks_per_sm", s.occ.blocks_per_sm, "blocks");
	model_detail(out, "src.waves", s.waves, "waves");
	model_detail(out, "src.wave_fill", s.wave_fill, "ratio");
	model_detail(out, "tgt.occupancy", t.occ.occupancy, "ratio");
	model_detail(out, "tgt.blocks_per_sm", t.occ.blocks_per_sm, "blocks");
	model_detail(out, "tgt.waves", t.waves, "waves");
	model_detail(out, "tgt.wave_fill", t.wave_fill, "ratio");
	model_detail(out, "occupancy_factor", s.occupancy_eff / t.occupancy_eff, "ratio");
	return GPUPROJ_OK;
}
