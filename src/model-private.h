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
	enum gpuproj_occupancy_term occ_term; /* resolved (never DEFAULT) */
	enum gpuproj_compute compute; /* hroof's compute roof, resolved (never DEFAULT) */
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

/*
 * The kernel inputs a model lacks, by name, in the order the model checks
 * them: metric names (gpuproj_metric_name()), the group
 * "inst.fp{16,32,64}.{fma,add,mul}" (at least one is needed), and launch
 * attributes ("regs_per_thread (launch attribute)"). Every name is a static
 * string. A model's `needs` function fills it from the kernel alone; the
 * same function decides the model's GPUPROJ_E_MISSING when it projects, so
 * gpuproj_model_missing_names() and the "X needs …" message cannot differ.
 */
#define MODEL_MISSING_MAX 16
struct model_missing {
	const char *names[MODEL_MISSING_MAX];
	size_t n;
};

typedef int (*model_project_fn)(const struct model_ctx *c, struct gpuproj_projection *out);
typedef int (*model_details_fn)(const struct model_ctx *c, struct gpuproj_model_details *out);
typedef void (*model_needs_fn)(const struct gpuproj_kernel *k, struct model_missing *out);

/*
 * A model of the registry (model-registry.c); opaque outside the model
 * files (include/gpuproj/model.h).
 */
struct gpuproj_model {
	const char *name;
	const char *summary;
	model_project_fn project;
	model_details_fn details;
	model_needs_fn needs;    /* the kernel inputs it lacks (model-private.h) */
	bool coarse;             /* gpuproj_model_is_coarse() */
	/*
	 * NULL: the model puts tensor work on the tensor pipes;
	 * else what it does with it instead, appended to the note of a kernel
	 * with tensor work ("tensor work 91% of FLOP not modelled: ...").
	 */
	const char *tensor_unmodelled;
};

/* [VanLanker2024], eqs. 1–10 (model-hroof.c); hroof-occ needs what hroof needs */
int hroof_project(const struct model_ctx *c, struct gpuproj_projection *out);
/*
 * The largest stand-alone time of a kernel on a GPU (s): FLOP/Perf^ceil
 * (eq. 3) and t_L1, t_shM, t_L2, t_DRAM (eqs. 4–5); what binding() ranks.
 */
double hroof_roof_s(const struct gpuproj_hroof *h);
/*
 * Append to out->note ("; " between parts), as far as it fits. Models that
 * write their own note first and hroof's compute note after use it.
 */
void model_note_append(struct gpuproj_projection *out, const char *fmt, ...)
	GPUPROJ_PRINTF(2, 3);
/* hroof_project() that also hands back both GPUs' ceilings (valid when it returns OK) */
int hroof_project_ceil(const struct model_ctx *c, struct gpuproj_projection *out,
		       struct gpuproj_hroof *s, struct gpuproj_hroof *t);
int hroof_details(const struct model_ctx *c, struct gpuproj_model_details *out);
/* Append the compute roof's note for the target's ceilings t (issue roof only). */
void hroof_compute_note(const struct model_ctx *c, const struct gpuproj_hroof *t,
			struct gpuproj_projection *out);
void hroof_needs(const struct gpuproj_kernel *k, struct model_missing *out);
/* [Srivastava-nd], Algorithm 1, eqs. 4–12 + waves (model-occupancy.c) */
int occupancy_project(const struct model_ctx *c, struct gpuproj_projection *out);
int occupancy_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void occupancy_needs(const struct gpuproj_kernel *k, struct model_missing *out);
/* [Konstantinidis2017], formulas 2–19 (model-quant.c) */
int quant_project(const struct model_ctx *c, struct gpuproj_projection *out);
int quant_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void quant_needs(const struct gpuproj_kernel *k, struct model_missing *out);
/* [Leinhauser2022], eqs. 1–4 + the hroof ratio method (model-irm.c) */
int irm_project(const struct model_ctx *c, struct gpuproj_projection *out);
int irm_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void irm_needs(const struct gpuproj_kernel *k, struct model_missing *out);

/* the coarser hroof on throughput percentages (model-sol.c) */
int sol_project(const struct model_ctx *c, struct gpuproj_projection *out);
int sol_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void sol_needs(const struct gpuproj_kernel *k, struct model_missing *out);

/*
 * The name of a missing launch geometry (GPUPROJ_TAG_NO_GEOMETRY, profile.h)
 * in the missing lists of the models that need it.
 */
#define MODEL_GEOMETRY "grid and block (launch attribute)"

/* the datasheet-roofline baseline (model-naive.c) */
int naive_project(const struct model_ctx *c, struct gpuproj_projection *out);
int naive_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void naive_needs(const struct gpuproj_kernel *k, struct model_missing *out);

/* hroof with Little's-law latency hiding (model-hroof-occ.c) */
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

/*
 * Every model gpuproj knows, the registry's (gpuproj_model_at()) then the
 * baselines found only by name (gpuproj_model_find()): a dense index for
 * tables such as model-interval.c's.
 */
size_t model_index_count(void);
/* The index of m (< model_index_count()), or model_index_count() when unknown. */
size_t model_index(const struct gpuproj_model *m);
/* The model of an index, or NULL. */
const struct gpuproj_model *model_at_index(size_t i);

/* The nine inst.fp{16,32,64}.{fma,add,mul} metrics by [precision][fma, add, mul]. */
extern const enum gpuproj_metric model_fp_metrics[GPUPROJ_PREC_COUNT][3];

/* The name of the FP instruction group of which a model needs at least one. */
#define MODEL_FP_GROUP "inst.fp{16,32,64}.{fma,add,mul}"

/*
 * A kernel's tensor work (flop.tensor.*) on `gpu` (gpuproj_tensor_path()):
 * its FLOP, the time of the part on tensor paths and of the part that runs
 * on CUDA cores there, s, and which precisions fell back or were unknown
 * (bit per enum gpuproj_tensor_prec). GPUPROJ_E_INVAL for a negative value
 * (named in why).
 */
struct model_tensor {
	double flop, t_tensor, t_cuda;
	unsigned fallback, unknown;
};
int model_tensor_work(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
		      struct model_tensor *out, char *why, size_t whylen);

/*
 * FLOP per launch (DESIGN §3) and Perf^mix ([VanLanker2024] eq. 2: the
 * instruction-count-weighted mean of the GPU's FLOP/s for each precision
 * and op kind present), FLOP/s; *ret_mix = 0 when FLOP = 0. Returns
 * GPUPROJ_OK, GPUPROJ_E_MISSING (no inst.fp* metric: the kernel lacks
 * MODEL_FP_GROUP) or GPUPROJ_E_INVAL (negative count, named in why).
 */
int model_flop_mix(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
		   double *ret_flop, double *ret_mix, char *why, size_t whylen);

/*
 * FFMA-dense kernels (model-regime.c): d_g = min(1, fp32_dense_gflops /
 * max_gflops.fp32_fma), 1 when either is absent; a copy of g whose FP32 FMA
 * rate is × d (fp32_loop_gflops keeping the loop rate; unchanged when d is
 * not in (0, 1)); and the FFMA FLOP rate instruction issue allows the
 * kernel on g, FLOP/s (model-hroof.c's issue roof: 2 · inst.fp32.fma /
 * t_issue), NaN without inst.warp, lanes or on AMD.
 */
double model_dense_fraction(const struct gpuproj_target *g);
void model_dense_copy(const struct gpuproj_target *g, double d, struct gpuproj_target *out);
double model_issue_fp32_flops(const struct gpuproj_kernel *k, const struct gpuproj_target *g);

/*
 * FLOP per launch from the inst.fp* metrics present (DESIGN §3), without
 * checking signs; *ret_any (optional) tells whether any was present.
 */
double model_flop(const struct gpuproj_kernel *k, bool *ret_any);

/* Add one name (a static string) to `m`, once; ignored when full. */
void model_missing_add(struct model_missing *m, const char *name);
/* Add the names of the metrics of ms[0..n) that k lacks; true when any. */
bool model_missing_metrics(const struct gpuproj_kernel *k, const enum gpuproj_metric *ms,
			   size_t n, struct model_missing *m);
/*
 * The message of a kernel that lacks inputs: "<model> needs a, b, c" into
 * why (optional). Returns GPUPROJ_E_MISSING.
 */
int model_missing_why(const struct model_missing *m, const char *model, char *why,
		      size_t whylen);

/* Append one item to `d` (ignored when full). */
void model_detail(struct gpuproj_model_details *d, const char *name, double value,
		  const char *unit);
/* Append one item that came from a targets.yaml key of `gpu`. */
void model_detail_key(struct gpuproj_model_details *d, const struct gpuproj_target *gpu,
		      const char *name, double value, const char *unit, const char *key);

#endif
