/* SPDX-License-Identifier: MIT */
/*
 * What the model files share and tests may see, behind
 * include/gpuproj/model.h: the equations of the models on one kernel and
 * one GPU (latency hiding, the L2-capacity DRAM term, the occupancy,
 * quant and irm quantities), which tests check against hand-worked
 * values; and the internal entry points, one set per model file,
 * registered in model-registry.c. `project` fills `out` (status,
 * interval, point, binding, why, note) and returns out->status; `details`
 * lists the numbers behind the projection. Both receive a context
 * prepared by model.c. Not installed.
 */
#ifndef GPUPROJ_MODEL_PRIVATE_H
#define GPUPROJ_MODEL_PRIVATE_H

#include <stdbool.h>

#include <gpuproj/model.h>

#include "util.h"

/*
 * ---- model internals behind the registry ----
 *
 * The equations of the models, each on one kernel and one GPU: the model
 * files use them and tests check them against hand-worked values
 * (tests/unit/test-models.c, test-hroof.c, test-robust.c include this
 * header); nothing else in gpuproj calls them, so they are not part of
 * include/gpuproj/model.h.
 */

/** The profile metric of a tensor precision's FLOP (flop.tensor.*), or GPUPROJ_M_COUNT. */
enum gpuproj_metric gpuproj_tensor_metric(enum gpuproj_tensor_prec p);

/**
 * Little's-law latency hiding of a kernel's memory traffic below L1, from
 * a source GPU s to a target t (hroof-occ; equations in
 * src/model-hroof-occ.c, after Little, "A proof for the queuing formula
 * L = λW", Operations Research 9(3), 1961, and Volkov, "Understanding
 * Latency Hiding on GPUs", PhD thesis, UC Berkeley, 2016). Fill the inputs,
 * call gpuproj_latency_hiding(); times in ns, bytes in B.
 */
struct gpuproj_latency_hiding {
	/* inputs */
	double src_ns;        /**< T_s: measured time per launch on the source, ns (> 0) */
	/**
	 * T_roof,s: the largest stand-alone resource time on the source (hroof
	 * eqs. 3–5: FLOP/Perf^ceil, t_L1, t_shM, t_L2, t_DRAM), ns
	 */
	double src_roof_ns;
	double src_warps;     /**< W_s: warps resident at once on the whole source GPU (> 0) */
	double tgt_warps;     /**< W_t: the same on the target (> 0) */
	double src_lat_bytes; /**< D_s = Σ_x N_x · L_x,s over L2 hits and DRAM bytes, B·ns (≥ 0) */
	double tgt_lat_bytes; /**< D_t, with the target's latencies (and bytes), B·ns (≥ 0) */
	double life_bytes;    /**< b_life: bytes below L1 per warp over its whole life, B (≥ 0) */
	/**
	 * false: b = max(b_lo, b_life) (σ = 1); true: b blends from b_lo (a
	 * source far below its roofs, e_s ≤ 0.5) to max(b_lo, b_life) (e_s ≥ 0.9)
	 */
	bool from_source;
	/* outputs */
	double efficiency;    /**< e_s = min(T_roof,s / T_s, 1) */
	double blend;         /**< σ(e_s), 0 (latency-bound source) .. 1 (throughput-bound) */
	double mlp_lo;        /**< b_lo = D_s / (W_s · T_s): bytes in flight per warp on the source, B */
	double mlp;           /**< b: the bytes in flight per warp assumed on the target, B */
	double tgt_ns;        /**< T_lat,t = D_t / (W_t · b), ns (0 when D_t = 0) */
};

/**
 * Compute the outputs of `lh` from its inputs (equations in
 * src/model-hroof-occ.c).
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL, or an input out of its range
 *         or not finite; outputs NaN)
 */
int gpuproj_latency_hiding(struct gpuproj_latency_hiding *lh);

/**
 * DRAM traffic of a kernel on a GPU with a different L2 size: the
 * cache-capacity failure mode of [VanLanker2024] §5.5 ("probably due to its
 * smaller L2 cache size") and the L2 residency of repeated launches, as an
 * option of every model.
 *
 * Rule: a kernel launched again over the same buffers keeps the share h
 * of its footprint F in an L2 of C bytes (gpuproj_l2_hit_share(): 1 up to
 * GPUPROJ_L2_RESIDENT_RATIO · C, 0 from GPUPROJ_L2_THRASH_RATIO · C), so
 * its DRAM bytes are D(C) = F · (1 − h(F / C)). F is solved from the
 * source, D_s = D(C_s): 0.68 · C_s when D_s = 0 (the largest footprint its
 * L2 kept entirely), D_s when D_s ≥ 1.5 · C_s, else the root of
 * F · (F / C_s − 0.68) / 0.82 = D_s; F is capped at the source's L2
 * traffic B_L2 (every byte of the footprint passes L2 at least once). Then
 * D_t = min(D(C_t), B_L2), and D_t = D_s when both GPUs have the same L2
 * size. Both ways: fewer DRAM bytes on a target whose L2 holds what the
 * source's could not, more on one whose L2 cannot hold what the source's
 * did. C = limits.l2_mib · 2^20 B.
 *
 * Inputs: bytes.dram (D_s) and bytes.l2 (B_L2) per launch; both GPUs'
 * l2_mib.
 *
 * @param[out] ret_dram D_t, B per launch
 * @param[out] ret_footprint optional: F, B
 * @return GPUPROJ_OK; GPUPROJ_E_MISSING (bytes.dram or bytes.l2 not
 *         collected); GPUPROJ_E_UNSUPPORTED (an l2_mib ≤ 0);
 *         GPUPROJ_E_INVAL (NULL arguments, negative bytes)
 */
int gpuproj_l2_capacity_dram(const struct gpuproj_kernel *k, const struct gpuproj_target *src,
			     const struct gpuproj_target *tgt, double *ret_dram,
			     double *ret_footprint);

/**
 * Working set over L2 capacity below which a kernel launched again over
 * the same buffers runs from L2 (gpuproj_l2_hit_share()), and above which
 * it runs from DRAM. Fitted on te42kyfo/gpu-benches @ 1c36d509,
 * gpu-small-kernels/{l40,a40,a100_80,h200}.txt (10,000 queued launches of
 * a streaming kernel over one buffer pair; the hit share of each volume V
 * from its bandwidth between the GPU's L2 plateau and its DRAM rate):
 * least squares of the ramp over the 116 volumes with V / C in [0.5, 3];
 * SSE 3.64 against 11.32 for the quadratic rule of
 * gpuproj_l2_capacity_dram(). The L40 and A40 fall off from 1.0 to 1.5,
 * the A100 and H200 from 0.6 to 1.05.
 */
#define GPUPROJ_L2_RESIDENT_RATIO 0.68
#define GPUPROJ_L2_THRASH_RATIO 1.5

/**
 * Share of the accesses of a kernel relaunched over the same working set
 * of `footprint_b` bytes that hit in an L2 of `l2_b` bytes in the steady
 * state: 1 for F ≤ GPUPROJ_L2_RESIDENT_RATIO · C, 0 for F ≥
 * GPUPROJ_L2_THRASH_RATIO · C, linear in F / C between (a streaming
 * kernel's data stay in L2 from one launch to the next until its footprint
 * nears the capacity, then LRU-like replacement evicts them before they
 * are used again).
 *
 * @param footprint_b F, B (≥ 0)
 * @param l2_b C, B (> 0)
 * @return the share in [0, 1]; 0 when C is not positive or an input is
 *         not finite
 */
double gpuproj_l2_hit_share(double footprint_b, double l2_b);

/**
 * The launch floor of a kernel on a GPU: the shortest time per
 * launch that back-to-back launches reach there (targets.yaml
 * `launch_floor_us`, per enum gpuproj_launch_mode), weighted by the
 * kernel's launch modes: F = (1 − g) · F_stream + g · F_graph, g = its
 * graph_launches / launches when the profile recorded them
 * (launch_mode_known: libproj.so), else g = 0 (imports: the mode is
 * unknown, the stream floor is used). Every model but naive is held at or
 * above F on another GPU with the option on (gpuproj_model_project()).
 *
 * @param k the kernel (its launch modes)
 * @param gpu the GPU whose floor is wanted
 * @param[out] ret_graph_share optional: g, or NaN when the mode is unknown
 * @return F, ns; NaN when the GPU has no launch_floor_us or an argument is NULL
 */
double gpuproj_launch_floor_ns(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
			       double *ret_graph_share);

/**
 * Seed 002's transfer quantities of a kernel on one GPU (model
 * "occupancy", src/model-occupancy.c). Rates in base units.
 */
struct gpuproj_occmodel {
	struct gpuproj_occupancy occ; /**< theoretical occupancy (occupancy.h) */
	enum gpuproj_waves wave_model; /**< OFF, SM or RESIDENT (never DEFAULT) */
	double grid_blocks;    /**< G, blocks in the grid */
	double wave_blocks;    /**< blocks per wave: SMs (SM), B·SMs (RESIDENT), G (OFF) */
	double waves;          /**< ⌈G / wave_blocks⌉ */
	double wave_fill;      /**< u = G / (waves·wave_blocks), 0..1: a partial last wave costs a full one */
	double occupancy_eff;  /**< O·u, the occupancy the transfer uses */
	double flop;           /**< FLOP per launch (× flop_ratio) */
	double bytes;          /**< DRAM bytes per launch ("Bytes" of eqs. 6–8) */
	double peak_compute;   /**< C: Perf^mix of [VanLanker2024] eq. 2, FLOP/s (0 when FLOP = 0) */
	double bw;             /**< BW: bw_gbs.dram, B/s */
	double ai;             /**< AI = FLOP / Bytes, FLOP/B (eq. 9; INFINITY when Bytes = 0) */
	double roof;           /**< Roof = min(C, AI·BW), FLOP/s (eq. 9); BW, B/s, when FLOP = 0 */
	bool memory_bound;     /**< Roof is the bandwidth term */
	/**
	 * The kernel's registers per thread did not fit the GPU: the occupancy
	 * is computed with regs_used, the most that fit (GPUPROJ_ASSUME_REGS_CAPPED)
	 */
	bool regs_capped;
	unsigned regs_used;    /**< registers per thread the occupancy used (0: no limit) */
};

/**
 * Compute gpuproj_occmodel for a kernel on a GPU.
 *
 * Inputs: grid, block, regs_per_thread (> 0), smem_static + smem_dynamic;
 * inst.fp{16,32,64}.{fma,add,mul} (FLOP and the mix of C); bytes.dram.
 *
 * @param flop_ratio multiplier on FLOP (1 on the source)
 * @param waves wave quantisation (DEFAULT = gpuproj_waves_default())
 * @param[out] why optional reason on failure
 * @return GPUPROJ_OK; GPUPROJ_E_MISSING naming every missing input;
 *         GPUPROJ_E_UNSUPPORTED (the block does not fit on the GPU, why
 *         says which limit); GPUPROJ_E_INVAL (NULL arguments, empty grid
 *         or block, negative metrics, `waves` not an enum gpuproj_waves value)
 */
int gpuproj_occmodel_compute(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
			     double flop_ratio, enum gpuproj_waves waves,
			     struct gpuproj_occmodel *out, char *why, size_t whylen);

/** Seed 003 K_type: the kind of the kernel's beneficial operations. */
enum gpuproj_ktype {
	GPUPROJ_KTYPE_FP32 = 0,
	GPUPROJ_KTYPE_FP64 = 1,
	GPUPROJ_KTYPE_INT = 2,
};

/** @return "fp32", "fp64" or "int" */
const char *gpuproj_ktype_name(enum gpuproj_ktype t);

/** Seed 003 kernel parameters (Table 2). Counts per launch. */
struct gpuproj_quant_kernel {
	enum gpuproj_ktype type; /**< K_type: fp64 if M_fp64 > 0, else fp32 if M_fp32 > 0, else int */
	double w_comp;   /**< W_comp, formula 2, operations */
	double w_traf;   /**< W_traf, formula 3, B (= 32 × DRAM transactions = bytes.dram) */
	double e_mix;    /**< E_mix, formula 4, 0..1 */
	double i_ops;    /**< I_ops, formula 8, thread instructions */
	double i_total;  /**< I_total = warp_size × M_inst, formula 9 */
	double d_ops;    /**< D_ops, formula 5, 0..1 */
	double d_ldst;   /**< D_ldst, formula 6, 0..1 */
	double d_other;  /**< D_other, formula 7, 0..1 (clamped at 0) */
};

/** Seed 003 device parameters (Table 3), indices of gpuproj_quant_device.p. */
enum gpuproj_quant_param {
	GPUPROJ_QP_T_SP = 0, /**< FP32 FMA throughput, GFLOP/s */
	GPUPROJ_QP_T_DP,     /**< FP64 FMA throughput, GFLOP/s */
	GPUPROJ_QP_T_INT,    /**< integer multiply-add, GIOP/s (2 ops per IMAD) */
	GPUPROJ_QP_T_ADD,    /**< integer add, GIOP/s */
	GPUPROJ_QP_T_LDST,   /**< shared-memory load/store instructions, G/s */
	GPUPROJ_QP_B_MEM,    /**< DRAM bandwidth, GB/s */
	GPUPROJ_QP_COUNT,
};

/** One device parameter and where it came from. */
struct gpuproj_quant_value {
	double value;              /**< in the unit of enum gpuproj_quant_param; NaN when absent */
	const char *key;           /**< targets.yaml key it was read from (static) */
	enum gpuproj_basis basis;  /**< BASIS of that key's source (measured, datasheet, derived, estimate) */
};

/** Seed 003 device parameters of one GPU. */
struct gpuproj_quant_device {
	struct gpuproj_quant_value p[GPUPROJ_QP_COUNT];
};

/** @return "T_SP", "T_DP", "T_int", "T_add", "T_ldst", "B_mem" */
const char *gpuproj_quant_param_name(enum gpuproj_quant_param p);

/** Seed 003 prediction (formulas 10–19). Rates in G…/s as in Table 3. */
struct gpuproj_quant {
	struct gpuproj_quant_kernel k;
	struct gpuproj_quant_device d;
	double t_op;        /**< T_op, formula 10 */
	double w_op, w_ldst, w_other; /**< formulas 11–13 */
	double c_op, c_ldst, c_other; /**< formulas 14–16 */
	double e_instr;     /**< E_instr, formula 17, 0..1 */
	double t_op_adj;    /**< T'_op = E_mix·E_instr·T_op, formula 18 */
	double o_krn;       /**< O_krn = W_comp / W_traf, op/B (INFINITY when W_traf = 0) */
	double o_dev;       /**< O_dev = T'_op / B_mem, op/B */
	double t_predicted; /**< formula 19, G op/s */
	bool compute_bound; /**< O_krn > O_dev */
	double t_comp_ns;   /**< W_comp / T'_op, ns */
	double t_mem_ns;    /**< W_traf / B_mem, ns */
	double time_ns;     /**< W_comp / T_predicted = max(t_comp, t_mem), ns */
};

/**
 * Seed 003 kernel parameters from a profile (the NVPW equivalents of the
 * nvprof metrics of the seed's Table 1; mapping in src/model-quant.c).
 *
 * Inputs: inst.fp32, inst.fp64, inst.int, inst.ldst, inst.warp,
 * bytes.dram, and inst.fp32.fma or inst.fp64.fma for K_type fp32 / fp64.
 *
 * @param warp_size threads per warp of the GPU the profile was taken on (formula 9)
 * @param[out] why optional reason on failure
 * @return GPUPROJ_OK; GPUPROJ_E_MISSING naming every missing metric;
 *         GPUPROJ_E_UNSUPPORTED (no compute operation: W_comp = 0, or no
 *         instruction); GPUPROJ_E_INVAL (negative metrics, warp_size < 1)
 */
int gpuproj_quant_kernel_params(const struct gpuproj_kernel *k, int warp_size,
				struct gpuproj_quant_kernel *out, char *why, size_t whylen);

/**
 * Seed 003 device parameters from targets.yaml: T_SP, T_DP from
 * max_gflops.fp{32,64}_fma (measured) where present, else
 * peak_gflops.fp{32,64}_fma; T_int = peak_giops.int32_mad, T_add =
 * peak_giops.int32_add, T_ldst = ldst_shared_gops, B_mem = bw_gbs.dram.
 * Each value carries its key and the BASIS of its source. Absent values
 * are NaN (gpuproj_quant_predict() names them).
 */
void gpuproj_quant_device_params(const struct gpuproj_target *gpu,
				 struct gpuproj_quant_device *out);

/**
 * Formulas 10–19 on kernel and device parameters.
 *
 * @param[out] why optional reason on failure
 * @return GPUPROJ_OK; GPUPROJ_E_MISSING naming the targets.yaml keys of
 *         absent device parameters the kernel needs
 */
int gpuproj_quant_predict(const struct gpuproj_quant_kernel *kp,
			  const struct gpuproj_quant_device *dp, struct gpuproj_quant *out,
			  char *why, size_t whylen);

/** Instruction roofline of a kernel on one GPU ([Leinhauser2022]; model "irm"). */
struct gpuproj_irm {
	double inst;        /**< warp-level (wavefront-level) instructions on this GPU */
	double gips_peak;   /**< eq. 3: SMs × schedulers/SM × IPC × clock, G inst/s */
	double txn[GPUPROJ_HL_COUNT];       /**< 32-B transactions per level: L1, L2, DRAM */
	double gtxn_peak[GPUPROJ_HL_COUNT]; /**< bw_gbs / 32 B, G txn/s */
	double ii[GPUPROJ_HL_COUNT];        /**< instruction intensity, inst / txn (NaN: no traffic) */
	double roofline[GPUPROJ_HL_COUNT];  /**< min(gtxn_peak·ii, gips_peak), G inst/s */
	bool valid[GPUPROJ_HL_COUNT];       /**< level carries traffic */
	double gips_achieved; /**< eq. 4: inst / 1e9 / time, G inst/s; NaN when no time was given */
	/**
	 * Tensor work (flop.tensor.*) on its own pipe: the time its MMAs need
	 * there, s (model_tensor_work(): tensor paths and CUDA-core fallbacks);
	 * the instruction ceiling of `roofline` is inst / max(inst / gips_peak,
	 * t_tensor) — issue, or the tensor pipe behind it. 0 without tensor work.
	 */
	double t_tensor;
};

/**
 * Instruction roofline quantities of a kernel on a GPU.
 *
 * Inputs: inst.warp; per level sectors.{l1,l2,dram}, else bytes.{l1,l2,dram}
 * / 32. The kernel was measured with warps of `source_warp_size` threads;
 * on a GPU with another warp size (64 on AMD CDNA), inst = inst.warp ×
 * source_warp_size / warp_size (thread instructions conserved, full warps
 * assumed).
 *
 * @param time_ns the kernel's time on this GPU for gips_achieved, or NaN
 * @param[out] why optional reason on failure
 * @return GPUPROJ_OK; GPUPROJ_E_MISSING naming the missing metrics;
 *         GPUPROJ_E_INVAL (negative metrics, source_warp_size < 1)
 */
int gpuproj_irm_compute(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
			int source_warp_size, double time_ns, struct gpuproj_irm *out, char *why,
			size_t whylen);

/** A projection model (opaque, static). */
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
	bool l2_applied;     /* kt's DRAM bytes differ from k's, or dram_floor_ns is set */
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
	/*
	 * When the target's L2 cannot hold what the source's did (D_t > D_s):
	 * the time its DRAM needs for D_t, D_t / bw_gbs.dram,t, ns — the
	 * projection's floor (model.c); the models see the source's bytes.
	 * NaN otherwise.
	 */
	double dram_floor_ns;
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
 * The assumptions (bits 1u << enum gpuproj_assumption) a model makes for a
 * kernel from the kernel alone: what it lacks and the model stands in for.
 * model.c adds them to every projection the model makes; a model adds the
 * ones that depend on a GPU (REGS_CAPPED) or on options (MIX under the
 * issue roof) itself.
 */
typedef unsigned (*model_assumes_fn)(const struct gpuproj_kernel *k);

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
	model_assumes_fn assumes; /* what it assumes for a kernel (model_assumes_fn) */
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
unsigned hroof_assumes(const struct gpuproj_kernel *k);
/* [Srivastava-nd], Algorithm 1, eqs. 4–12 + waves (model-occupancy.c) */
int occupancy_project(const struct model_ctx *c, struct gpuproj_projection *out);
int occupancy_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void occupancy_needs(const struct gpuproj_kernel *k, struct model_missing *out);
unsigned occupancy_assumes(const struct gpuproj_kernel *k);
/* [Konstantinidis2017], formulas 2–19 (model-quant.c) */
int quant_project(const struct model_ctx *c, struct gpuproj_projection *out);
int quant_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void quant_needs(const struct gpuproj_kernel *k, struct model_missing *out);
unsigned quant_assumes(const struct gpuproj_kernel *k);
/* [Leinhauser2022], eqs. 1–4 + the hroof ratio method (model-irm.c) */
int irm_project(const struct model_ctx *c, struct gpuproj_projection *out);
int irm_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void irm_needs(const struct gpuproj_kernel *k, struct model_missing *out);
unsigned irm_assumes(const struct gpuproj_kernel *k);

/* the coarser hroof on throughput percentages (model-sol.c) */
int sol_project(const struct model_ctx *c, struct gpuproj_projection *out);
int sol_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void sol_needs(const struct gpuproj_kernel *k, struct model_missing *out);
unsigned sol_assumes(const struct gpuproj_kernel *k);

/*
 * The name of a missing launch geometry (GPUPROJ_TAG_NO_GEOMETRY, profile.h)
 * in the missing lists of the models that need it.
 */
#define MODEL_GEOMETRY "grid and block (launch attribute)"

/*
 * What a model cannot do without when a kernel has neither: something to
 * scale by (docs/models.md "Missing inputs").
 */
#define MODEL_FLOP_OR_BYTES                                                             \
	"FLOP (" "inst.fp{16,32,64}.{fma,add,mul}" " or flop.tensor.*) or bytes (bytes.l1, " \
	"bytes.l2, bytes.dram)"

/*
 * The kernel model `m` sees with the inputs of `drop` (bits 1u << enum
 * gpuproj_assumption, gpuproj_model_options.drop_inputs) taken away: k
 * itself when drop is 0, else a shallow copy in buf (metrics cleared,
 * regs_per_thread 0, the tag GPUPROJ_TAG_NO_GEOMETRY) that lives as long
 * as buf and k. (model-assumptions.c)
 */
const struct gpuproj_kernel *model_drop_inputs(const struct gpuproj_kernel *k, unsigned drop,
					       struct gpuproj_kernel *buf);
/*
 * Widen the interval factors *lo, *hi by those of every assumption in
 * `assumed` for model m (gpuproj_assumption_widening()). (model-assumptions.c)
 */
void model_widen(const struct gpuproj_model *m, unsigned assumed, double *lo, double *hi);

/*
 * The calibrated-interval method of interval.h on n > 0 ratios r (sorted
 * in place): the shortest window of k = ⌈(n + 1)·c⌉ of them, *lo..*hi.
 * (model-interval.c)
 */
void interval_shortest_window(double *r, size_t n, double c, double *lo, double *hi);

/*
 * The four speed-of-light percentages of a kernel with counters on GPU t,
 * as gpuproj_profile_default_sections() derives them (model.h), into pct[]
 * in the order SM, DRAM, L2, L1 (NaN where no term exists or no launch was
 * timed). (model-default-sections.c)
 */
void model_sol_derive(const struct gpuproj_kernel *k, const struct gpuproj_target *t,
		      double pct[4]);

/* the datasheet-roofline baseline (model-naive.c) */
int naive_project(const struct model_ctx *c, struct gpuproj_projection *out);
int naive_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void naive_needs(const struct gpuproj_kernel *k, struct model_missing *out);
unsigned naive_assumes(const struct gpuproj_kernel *k);

/* kernels without counters: the envelope of compute- and memory-bound (model-envelope.c) */
int envelope_project(const struct model_ctx *c, struct gpuproj_projection *out);
int envelope_details(const struct model_ctx *c, struct gpuproj_model_details *out);
void envelope_needs(const struct gpuproj_kernel *k, struct model_missing *out);
/* Whether a kernel has any counter: a logical metric or an extra metric. */
bool model_kernel_has_counters(const struct gpuproj_kernel *k);
/* What the envelope lacks for a kernel with counters (it is for kernels without any). */
#define MODEL_NO_COUNTERS "no counters (a kernel with counters is projected from them)"

/* hroof with Little's-law latency hiding (model-hroof-occ.c) */
int hroofocc_project(const struct model_ctx *c, struct gpuproj_projection *out);
unsigned hroofocc_assumes(const struct gpuproj_kernel *k);
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

/*
 * ---- helpers shared by the model files: the registry's index
 * (model-registry.c), FLOP and tensor work (model-tensor.c), notes, missing
 * inputs and details (model-details.c) ----
 */

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

/** What the source's clock says about the run (gpuproj_clock_regime()). */
enum gpuproj_regime {
	GPUPROJ_REGIME_UNKNOWN = 0,   /**< no clock recorded, or one that cannot tell */
	GPUPROJ_REGIME_BOOST = 1,     /**< at its boost clock, which it cannot hold under load */
	GPUPROJ_REGIME_SUSTAINED = 2, /**< below its boost clock, or capped by power or heat */
};

/** @return "unknown", "boost" or "sustained" */
const char *gpuproj_regime_name(enum gpuproj_regime r);

/** The clock regime of one kernel's run on its source GPU. */
struct gpuproj_clock_regime {
	enum gpuproj_regime regime;
	double src_mhz;      /**< the measured SM clock, MHz; NaN when none was recorded */
	/** where src_mhz comes from: "counters" (clock.sm), "nvml" (the run's samples), or NULL */
	const char *from;
	/** why this regime, a static phrase ("below its boost clock", …; never NULL) */
	const char *why;
};

/**
 * Classify a kernel's run (docs/models.md "Clock regime"): f = the
 * kernel's clock.sm (counters: sm__cycles_elapsed.avg.per_second, cycles
 * over the duration of the profiled launches; ncu exports' clock
 * columns), else the run's NVML mean SM clock (`run`, samples > 0); top =
 * max(boost_clock_mhz, clock_mhz) of the source.
 *   SUSTAINED  when f < GPUPROJ_REGIME_BOOST_FRACTION · top, or NVML saw a
 *              GPUPROJ_CLK_CAPPED reason in any sample;
 *   BOOST      when f is at least that and the source's sustained_clock_mhz
 *              is below it (the GPU would have slowed under long load);
 *   UNKNOWN    otherwise: no clock, or a source that holds its boost clock
 *              under load anyway (A100, H200: the run's length cannot be told).
 * @param run the run's NVML record, or NULL
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL k, src or out)
 */
int gpuproj_clock_regime(const struct gpuproj_kernel *k, const struct gpuproj_sm_clock *run,
			 const struct gpuproj_target *src, struct gpuproj_clock_regime *out);
/** The share of the highest clock at or above which a source counts as at boost. */
#define GPUPROJ_REGIME_BOOST_FRACTION 0.97

/** How FFMA-dense a kernel is (gpuproj_kernel_ffma_density()). */
struct gpuproj_ffma_density {
	/** FLOP mix: 2 · inst.fp32.fma / CUDA-core FLOP, 0..1; NaN without CUDA-core FLOP */
	double fma_share;
	/**
	 * Instruction mix: FFMA warp instructions (inst.fp32.fma / (32 ·
	 * warp_efficiency)) / inst.warp, 0..1; NaN without inst.warp
	 */
	double issue_share;
	bool dense;         /**< both shares at or above their thresholds (below) */
};
/** FFMA-dense: at least this share of the CUDA-core FLOP is FP32 FMA ... */
#define GPUPROJ_FFMA_DENSE_FLOP 0.9
/** ... and, where the profile has inst.warp, at least this share of the warp instructions. */
#define GPUPROJ_FFMA_DENSE_ISSUE 0.5

/**
 * Whether a kernel's work is FFMA-dense (docs/models.md): FP32 FMA makes at
 * least GPUPROJ_FFMA_DENSE_FLOP of its CUDA-core FLOP (Σ_p 2·FMA + ADD +
 * MUL of inst.fp*) and, when inst.warp was counted, its FFMA warp
 * instructions at least GPUPROJ_FFMA_DENSE_ISSUE of all warp instructions
 * (a kernel whose issue slots go mostly to other instructions is bound by
 * issue, not by the FMA datapath). Tensor FLOP do not count: they run on
 * their own pipe.
 * @return out->dense; false for NULL arguments
 */
bool gpuproj_kernel_ffma_density(const struct gpuproj_kernel *k,
				 struct gpuproj_ffma_density *out);

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
