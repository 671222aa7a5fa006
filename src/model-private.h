/* SPDX-License-Identifier: MIT */
/*
 * Internal model entry points: one pair per model file, registered in
 * model.c's models[] table. `project` fills `out` (status, interval, point,
 * binding, why, note) and returns out->status; `details` lists the numbers
 * behind the projection. Both receive a context prepared by model.c. Not
 * installed.
 */
#ifndef GPUPROJ_MODEL_PRIVATE_H
#define GPUPROJ_MODEL_PRIVATE_H

#include <stdbool.h>

#include <gpuproj/model.h>

#include "util.h"

/* What model.c hands every model for one (kernel, source, target). */
struct model_ctx {
	const struct gpuproj_kernel *k;  /* as measured on the source */
	/*
	 * The kernel as expected on the target: `k` itself, or (L2-capacity
	 * adjustment on) a shallow copy whose DRAM metrics are D_t.
	 */
	const struct gpuproj_kernel *kt;
	const struct gpuproj_target *src, *tgt;
	double flop_ratio;   /* target FLOP / source FLOP (> 0) */
	enum gpuproj_waves waves; /* resolved (never DEFAULT) */
	bool notes;          /* fill out->note */
	bool l2_applied;     /* kt's DRAM bytes differ from k's */
	double dram_src;     /* D_s, B per launch (NaN when not computed) */
	double dram_tgt;     /* D_t, B per launch (NaN when not computed) */
	double footprint;    /* F of gpuproj_l2_capacity_dram(), B (NaN when not computed) */
	/*
	 * For models that see only DRAM bytes (occupancy, quant): the target's
	 * DRAM-equivalent bytes D_t + max(D_s − D_t, 0)·BW_DRAM,t / BW_L2,t — bytes
	 * that no longer reach DRAM still come from L2, at L2 bandwidth. Equals
	 * D_s when the adjustment is off; NaN when bytes.dram is missing.
	 */
	double dram_equiv_tgt;
};

typedef int (*model_project_fn)(const struct model_ctx *c, struct gpuproj_projection *out);
typedef int (*model_details_fn)(const struct model_ctx *c, struct gpuproj_model_details *out);

/* seed 000, eqs. 1–10 (model-hroof.c) */
int hroof_project(const struct model_ctx *c, struct gpuproj_projection *out);
int hroof_details(const struct model_ctx *c, struct gpuproj_model_details *out);
/* seed 002, Algorithm 1, eqs. 4–12 + waves (model-occupancy.c) */
int occupancy_project(const struct model_ctx *c, struct gpuproj_projection *out);
int occupancy_details(const struct model_ctx *c, struct gpuproj_model_details *out);
/* seed 003, formulas 2–19 (model-quant.c) */
int quant_project(const struct model_ctx *c, struct gpuproj_projection *out);
int quant_details(const struct model_ctx *c, struct gpuproj_model_details *out);
/* seed 004, eqs. 1–4 + the hroof ratio method (model-irm.c) */
int irm_project(const struct model_ctx *c, struct gpuproj_projection *out);
int irm_details(const struct model_ctx *c, struct gpuproj_model_details *out);

/* hroof × seed 002's occupancy ratio (model-hroof-occ.c) */
int hroofocc_project(const struct model_ctx *c, struct gpuproj_projection *out);
int hroofocc_details(const struct model_ctx *c, struct gpuproj_model_details *out);

/*
 * Occupancy (occupancy.h) and wave quantisation of a kernel's launch on a
 * GPU: fills out->occ, grid_blocks, wave_model, wave_blocks, waves,
 * wave_fill, occupancy_eff (the rest zero). regs_per_thread 0 applies no
 * register limit. Returns GPUPROJ_OK, GPUPROJ_E_UNSUPPORTED (block does not
 * fit, why says which limit), GPUPROJ_E_INVAL (empty launch).
 * (model-occupancy.c)
 */
int model_occ_waves(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
		    enum gpuproj_waves waves, struct gpuproj_occmodel *out, char *why,
		    size_t whylen);

/* ---- helpers shared by the model files (model.c) ---- */

/* The nine inst.fp{16,32,64}.{fma,add,mul} metrics by [precision][fma, add, mul]. */
extern const enum gpuproj_metric model_fp_metrics[GPUPROJ_PREC_COUNT][3];

/*
 * FLOP per launch (DESIGN §3) and Perf^mix (seed 000 eq. 2: the
 * instruction-count-weighted mean of the GPU's FLOP/s for each precision
 * and op kind present), FLOP/s; *ret_mix = 0 when FLOP = 0. Appends
 * "inst.fp{16,32,64}.{fma,add,mul}" to `missing` when none was collected.
 * Returns GPUPROJ_OK, GPUPROJ_E_MISSING or GPUPROJ_E_INVAL (negative count,
 * named in why).
 */
int model_flop_mix(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
		   double *ret_flop, double *ret_mix, struct strbuf *missing, char *why,
		   size_t whylen);

/* Append the names of missing metrics to `sb` (", "-separated); true when any. */
bool model_missing(const struct gpuproj_kernel *k, const enum gpuproj_metric *ms, size_t n,
		   struct strbuf *sb);

/* Append one item to `d` (ignored when full). */
void model_detail(struct gpuproj_model_details *d, const char *name, double value,
		  const char *unit);
/* Append one item that came from a targets.yaml key of `gpu`. */
void model_detail_key(struct gpuproj_model_details *d, const struct gpuproj_target *gpu,
		      const char *name, double value, const char *unit, const char *key);

#endif
