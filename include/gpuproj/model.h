/* SPDX-License-Identifier: MIT */
/**
 * @file model.h
 * Projection models: from a kernel measured on a source GPU to its time on
 * a target GPU (DESIGN.md §5).
 *
 * Every model works per kernel signature and returns, per target, an
 * interval [lo, hi] of per-launch times (ns), a point estimate and the
 * binding resource. Whole-run projection sums point × launches over the
 * signatures; kernels a model cannot project keep their source time and are
 * counted separately, never silently dropped.
 *
 * Models (by name):
 * - "hroof": hierarchical roofline with kernel-specific ceilings, Van Lanker
 *   et al., Euro-Par 2024 (seed 000), eqs. 1–10. The default.
 *
 * Thread safety: models are stateless; projecting from several threads is
 * safe as long as each call has its own output.
 */
#ifndef GPUPROJ_MODEL_H
#define GPUPROJ_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/error.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The resource that bounds a kernel on a GPU. */
enum gpuproj_bound {
	GPUPROJ_BOUND_NONE = 0,     /**< not determined (not projected) */
	GPUPROJ_BOUND_L1 = 1,       /**< L1/TEX + shared-memory traffic */
	GPUPROJ_BOUND_L2 = 2,       /**< L2 traffic */
	GPUPROJ_BOUND_DRAM = 3,     /**< DRAM traffic */
	GPUPROJ_BOUND_COMPUTE = 4,  /**< floating-point ceiling (Perf^ceil) */
	GPUPROJ_BOUND_SHARED = 5,   /**< shared-memory pipe */
	GPUPROJ_BOUND_INSTRUCTION = 6, /**< instruction issue (instruction roofline) */
	GPUPROJ_BOUND_OCCUPANCY = 7,   /**< resident warps / waves (occupancy model) */
	GPUPROJ_BOUND_LATENCY = 8,     /**< too little parallelism to fill the GPU */
};

/** @return "l1", "l2", "dram", "compute", "shared", "instruction", "occupancy", "latency" or "none" */
const char *gpuproj_bound_name(enum gpuproj_bound b);

/** Hierarchical-roofline levels with a projection (seed 000 eq. 9). */
enum gpuproj_hlevel {
	GPUPROJ_HL_L1 = 0,
	GPUPROJ_HL_L2 = 1,
	GPUPROJ_HL_DRAM = 2,
	GPUPROJ_HL_COUNT = 3,
};

/** One kernel projected onto one target. */
struct gpuproj_projection {
	int status;          /**< GPUPROJ_OK, else why it was not projected (see why) */
	double lo_ns;        /**< lower end of the per-launch interval, ns */
	double hi_ns;        /**< upper end, ns */
	double point_ns;     /**< point estimate (hroof: midpoint of [lo, hi]), ns */
	enum gpuproj_bound binding; /**< binding resource on the target */
	/** Per-level projected time (hroof eq. 9 turned into time), ns; NaN where the level has no traffic. */
	double level_ns[GPUPROJ_HL_COUNT];
	double flop_ratio;   /**< target FLOP / source FLOP used (1 unless SASS analysis says otherwise) */
	char why[256];       /**< when status != OK: the reason, naming missing inputs */
};

/**
 * Kernel-specific ceilings of the hierarchical roofline on one GPU
 * (seed 000 §2). Bytes are per launch; rates in base units.
 */
struct gpuproj_hroof {
	double flop;                 /**< FLOP per launch (× flop_ratio) */
	double perf_mix;             /**< eq. 2, FLOP/s (weighted over precisions and op kinds) */
	double perf_ceil;            /**< eq. 3, FLOP/s = warp efficiency × perf_mix */
	double hits[GPUPROJ_LEVEL_COUNT]; /**< N_x of eq. 4–5, bytes: L1, L2, DRAM, shared */
	double t[GPUPROJ_LEVEL_COUNT];    /**< t_x of eqs. 4–5, s */
	double traversing[GPUPROJ_HL_COUNT]; /**< N+_x of eq. 10: bytes traversing x, B */
	double bw_ceil[GPUPROJ_HL_COUNT];    /**< eqs. 6–8, B/s (NaN when no traffic) */
	double oi[GPUPROJ_HL_COUNT];         /**< eq. 10, FLOP/B (NaN when no traffic) */
	double roofline[GPUPROJ_HL_COUNT];   /**< eq. 1 with ceilings: min(bw_ceil·oi, perf_ceil), FLOP/s */
	bool valid[GPUPROJ_HL_COUNT];        /**< level carries traffic */
};

/**
 * Compute the hierarchical-roofline ceilings of a kernel on a GPU.
 *
 * Inputs from the kernel (per-launch means): inst.fp{16,32,64}.{fma,add,mul}
 * (FLOP and the mix of eq. 2), warp_efficiency (eq. 3, only when FLOP > 0),
 * bytes.l1, bytes.l2, bytes.dram (eq. 4: hits N_L1 = max(B_L1 − B_L2, 0),
 * N_L2 = max(B_L2 − B_DRAM, 0), N_DRAM = B_DRAM) and shared.wavefronts
 * (eq. 5: N_shM = wavefronts × 128 B). Inputs from the GPU: the FLOP/s of
 * gpuproj_target_gflops() and bw_gbs.
 *
 * @param flop_ratio multiplier on the kernel's FLOP (1 on the source; the
 *        SASS target/source ratio on a target, seed 000 §4.2)
 * @param[out] out the ceilings
 * @param[out] why optional buffer for the reason on failure
 * @param whylen size of why
 * @return GPUPROJ_OK; GPUPROJ_E_MISSING naming every missing metric;
 *         GPUPROJ_E_INVAL for a negative metric value
 */
int gpuproj_hroof_ceilings(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
			   double flop_ratio, struct gpuproj_hroof *out, char *why, size_t whylen);

/** Options common to all models. Zero-initialise, then set what you need. */
struct gpuproj_model_options {
	/**
	 * Optional: target/source FLOP ratio of a kernel (seed 000 §4.2, SASS
	 * comparison); NULL or a non-positive return means 1.
	 */
	double (*flop_ratio)(void *userdata, const struct gpuproj_kernel *k,
			     const struct gpuproj_target *src, const struct gpuproj_target *tgt);
	void *flop_ratio_userdata;
};

/** A projection model (opaque, static). */
struct gpuproj_model;

/** @return the model named `name` ("hroof", …) or NULL */
const struct gpuproj_model *gpuproj_model_find(const char *name);
/** @return the default model (chosen from validation evidence, README) */
const struct gpuproj_model *gpuproj_model_default(void);
/** @return the number of models */
size_t gpuproj_model_count(void);
/** @return the i-th model or NULL */
const struct gpuproj_model *gpuproj_model_at(size_t i);
/** @return the model's name */
const char *gpuproj_model_name(const struct gpuproj_model *m);
/** @return a one-line summary with the paper and equations it implements */
const char *gpuproj_model_summary(const struct gpuproj_model *m);

/**
 * Project one kernel from `src` (the GPU it was measured on) to `tgt`.
 *
 * @param opt options or NULL for defaults
 * @param[out] out the projection; on failure status != GPUPROJ_OK and
 *             `why` names the missing input or the reason
 * @return out->status: GPUPROJ_OK; GPUPROJ_E_MISSING (a metric the model
 *         needs was not collected, or the kernel has no timed launch);
 *         GPUPROJ_E_UNSUPPORTED (the kernel has neither FLOP nor traffic to
 *         scale by); GPUPROJ_E_INVAL (NULL arguments, negative metrics)
 */
int gpuproj_model_project(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
			  const struct gpuproj_target *src, const struct gpuproj_target *tgt,
			  const struct gpuproj_model_options *opt, struct gpuproj_projection *out);

/** A whole profile projected onto one target with one model. */
struct gpuproj_run_projection {
	const struct gpuproj_model *model;
	const struct gpuproj_target *target;
	size_t n;                          /**< number of kernels = gpuproj_profile_count() */
	struct gpuproj_projection *kernels; /**< [n], parallel to gpuproj_profile_at(i); owned */
	double source_ns;      /**< Σ kernel time on the source (timed kernels), ns */
	double lo_ns;          /**< Σ lo × launches + unprojected source time, ns */
	double hi_ns;          /**< Σ hi × launches + unprojected source time, ns */
	double point_ns;       /**< Σ point × launches + unprojected source time, ns */
	size_t n_unprojected;  /**< timed kernels the model could not project */
	double unprojected_source_ns; /**< their source time, carried unchanged, ns */
};

/**
 * Project every kernel of a profile.
 * @param[out] out filled; release with gpuproj_run_projection_clear()
 * @return GPUPROJ_OK or GPUPROJ_E_NOMEM (per-kernel failures are recorded
 *         in out->kernels[i].status, not returned)
 */
int gpuproj_project_run(const struct gpuproj_profile *p, const struct gpuproj_model *m,
			const struct gpuproj_target *src, const struct gpuproj_target *tgt,
			const struct gpuproj_model_options *opt, struct gpuproj_run_projection *out);

/** Free what gpuproj_project_run() allocated; accepts a zeroed struct. */
void gpuproj_run_projection_clear(struct gpuproj_run_projection *r);

/**
 * Find the source GPU of a profile: `override` if non-NULL (a targets.yaml
 * name or match string), else the profile's device.target name, else its
 * device.name through the `match` lists.
 *
 * @param[out] ret the GPU
 * @param[out] reterr optional; for an unknown GPU the message names it and
 *             lists close names
 * @return GPUPROJ_OK, GPUPROJ_E_NOTFOUND
 */
int gpuproj_resolve_source(const struct gpuproj_profile *p, const struct gpuproj_targets *targets,
			   const char *override, const struct gpuproj_target **ret,
			   struct gpuproj_error *reterr);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_MODEL_H */
