/* SPDX-License-Identifier: MIT */
/**
 * @file model.h
 * Projection models: from a kernel measured on a source GPU to its time on
 * a target GPU (docs/internals/DESIGN.md §5).
 *
 * Every model works per kernel signature and returns, per target, an
 * interval [lo, hi] of per-launch times (ns), a point estimate and the
 * binding resource. Whole-run projection sums point × launches over the
 * signatures; kernels a model cannot project keep their source time and are
 * counted separately, never silently dropped.
 *
 * Models (by name, in registry order):
 * - "hroof": hierarchical roofline with kernel-specific ceilings, Van Lanker
 *   et al., Euro-Par 2024 ([VanLanker2024]), eqs. 1–10.
 * - "occupancy": roofline ratio × occupancy ratio ([Srivastava-nd], Algorithm 1,
 *   eqs. 4–12) with the occupancy calculator of occupancy.h and wave
 *   quantisation (src/model-occupancy.c).
 * - "quant": quantitative roofline, Konstantinidis & Cotronis ([Konstantinidis2017],
 *   formulas 2–19): an absolute prediction from instruction mix and the
 *   target's throughputs; does not use the source time (src/model-quant.c).
 * - "irm": instruction roofline, Ding & Williams / Leinhauser et al. (seed
 *   004, eqs. 1–4): the hroof ratio method on warp instructions and 32-B
 *   transactions (src/model-irm.c).
 * - "hroof-occ": hroof with occupancy as latency hiding: each level's time
 *   is at least the time Little's law allows with the warps resident on the
 *   target (gpuproj_latency_hiding(), src/model-private.h), plus wave
 *   quantisation; src/model-hroof-occ.c. The default (docs/validation.md "The default
 *   model, and why").
 * - "sol": a coarser hroof for exports of Nsight Compute's default sections
 *   (SpeedOfLight, LaunchStats, Occupancy), which carry no per-level byte
 *   and no FP instruction counts: the time each resource was busy on the
 *   source follows from its throughput percentage (GPUPROJ_SOL_*), and is
 *   projected by hroof's ratio method against plain ceilings, times seed
 *   002's occupancy ratio (src/model-sol.c). gpuproj_project_run() uses
 *   it, labelled, for kernels the default model cannot project
 *   (gpuproj_model_options.fallback).
 * - "naive" (baseline, by name only): the ratio of the datasheet rooflines
 *   (peak FP32 FMA, peak DRAM bandwidth) of source and target.
 * - "envelope" (by name only, and the default model's last fallback): a
 *   kernel without counters, its time scaled by the FP32 ceilings and by the
 *   DRAM bandwidths, the interval spanning both, binding unknown
 *   (src/model-envelope.c).
 *
 * Point and interval: every model returns its point and its own interval;
 * gpuproj_model_project() then replaces lo_ns/hi_ns by the calibrated
 * interval of interval.h (the model's validation residuals), keeping the
 * model's own in level_lo_ns/level_hi_ns.
 *
 * Optional cache-capacity adjustment (all models, option l2_capacity):
 * gpuproj_l2_capacity_dram() (src/model-private.h).
 *
 * Thread safety: models are stateless; projecting from several threads is
 * safe as long as each call has its own output.
 */
#ifndef GPUPROJ_MODEL_H
#define GPUPROJ_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/error.h>
#include <gpuproj/occupancy.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>
#include <gpuproj/timeline.h>

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
	/**
	 * Not known: a kernel without counters, projected by the "envelope"
	 * model (gpuproj_projection.assumed says so). Only ever last.
	 */
	GPUPROJ_BOUND_UNKNOWN = 9,
};

/**
 * @return "l1", "l2", "dram", "compute", "shared", "instruction", "occupancy", "latency",
 *         "unknown" or "none"
 */
const char *gpuproj_bound_name(enum gpuproj_bound b);

/** Hierarchical-roofline levels with a projection ([VanLanker2024] eq. 9). */
enum gpuproj_hlevel {
	GPUPROJ_HL_L1 = 0,
	GPUPROJ_HL_L2 = 1,
	GPUPROJ_HL_DRAM = 2,
	GPUPROJ_HL_COUNT = 3,
};

/** Were the GPUs of a projection among those its calibrated interval was fitted on? */
enum gpuproj_interval_gpus {
	GPUPROJ_INTERVAL_GPUS_UNKNOWN = 0, /**< not calibrated, or the table does not say */
	GPUPROJ_INTERVAL_GPUS_FITTED,      /**< both the source and the target */
	GPUPROJ_INTERVAL_GPUS_UNSEEN,      /**< the source, the target or both were not */
};

/** @return "fitted", "unseen" or "unknown" */
const char *gpuproj_interval_gpus_name(enum gpuproj_interval_gpus g);

/**
 * What a model assumed in place of an input the kernel's profile lacks
 * (docs/models.md "Missing inputs"): one bit each (1u << value) in
 * gpuproj_projection.assumed. A model runs on what was measured and states
 * the rest; it refuses only when a kernel has no timed launch, or neither
 * FLOP nor bytes to scale by. Each assumption has a word (written in JSON
 * as `"assumed": [words]`, in tables and reports), the input whose absence
 * makes it (`gpuproj validate --drop INPUT` takes the inputs away to
 * measure what the assumption costs) and what it means. Its cost is the
 * widening of the calibrated interval that the built-in table
 * src/data/assumptions.json gives per model (gpuproj_assumption_widening()).
 */
enum gpuproj_assumption {
	/**
	 * "shared unbounded": no shared.wavefronts; the shared-memory level is
	 * no constraint (t_shM = 0): the projection is a lower bound there.
	 */
	GPUPROJ_ASSUME_SHARED = 0,
	/** "full warps": no warp_efficiency; 1 (every lane active) in eq. 3. */
	GPUPROJ_ASSUME_WARPS,
	/**
	 * "l1 unmeasured": no bytes.l1; the L1 level is not projected and no
	 * L1 hits are counted (only the measured levels bound).
	 */
	GPUPROJ_ASSUME_L1,
	/**
	 * "l2 unmeasured": no bytes.l2; the L2 level is not projected, L2 hits
	 * are counted at L1 (a lower bound).
	 */
	GPUPROJ_ASSUME_L2,
	/** "dram unmeasured": no bytes.dram; no DRAM level, L2 serves every byte below L1. */
	GPUPROJ_ASSUME_DRAM,
	/** "compute unbounded": no FP instruction counts; memory levels only. */
	GPUPROJ_ASSUME_FLOP,
	/**
	 * "issue lower bound": no instruction mix (inst.int, inst.ldst,
	 * inst.warp): the instructions counted stand for all, a lower bound on
	 * issue and on the integer and load/store pipes.
	 */
	GPUPROJ_ASSUME_MIX,
	/**
	 * "occupancy unknown": no launch geometry (GPUPROJ_TAG_NO_GEOMETRY):
	 * no occupancy or wave term (hroof-occ = hroof; occupancy = the
	 * roofline ratio).
	 */
	GPUPROJ_ASSUME_GEOMETRY,
	/** "registers unknown": regs_per_thread 0; no register limit on occupancy. */
	GPUPROJ_ASSUME_REGISTERS,
	/**
	 * "registers capped": the kernel uses more registers per thread (or
	 * per block) than the target allows; the target's compiler is assumed
	 * to fit it into the target's limit (spills not modelled).
	 */
	GPUPROJ_ASSUME_REGS_CAPPED,
	/**
	 * "percentages derived": sol on a profile with counters: its
	 * speed-of-light percentages derived from them against the source's
	 * ceilings (gpuproj_profile_default_sections()), not measured.
	 */
	GPUPROJ_ASSUME_PERCENTAGES,
	/**
	 * "tensor shape assumed": the tensor FLOP came from instruction counts
	 * times the default MMA shape of the compute capability (the import's
	 * import.tensor.* attribute says "assumed").
	 */
	GPUPROJ_ASSUME_TENSOR_SHAPE,
	/**
	 * "binding unknown": a timed kernel without any counter, projected by
	 * the "envelope" model (src/model-envelope.c): the time scaled by the
	 * FP32 ceilings and by the DRAM bandwidths, the interval spanning both.
	 */
	GPUPROJ_ASSUME_BINDING,
	GPUPROJ_ASSUME_COUNT,
};

/** One assumption's names (gpuproj_assumption_info()). */
struct gpuproj_assumption_info {
	const char *word;    /**< "full warps": JSON, tables, reports (static) */
	/**
	 * The input whose absence makes it, as `gpuproj validate --drop` takes
	 * it ("warp-efficiency"), or NULL for an assumption no input can be
	 * dropped for (static)
	 */
	const char *input;
	const char *meaning; /**< one line: what is missing and what is assumed (static) */
};

/** @return the names of an assumption, or NULL for a value out of the enum */
const struct gpuproj_assumption_info *gpuproj_assumption_info(enum gpuproj_assumption a);

/**
 * Parse a --drop input name ("shared", "warp-efficiency", …; case-insensitive).
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL, or no assumption has that input; *ret untouched)
 */
int gpuproj_assumption_from_input(const char *input, enum gpuproj_assumption *ret);

/**
 * The words of a set of assumptions, in enum order, joined by ", ".
 * @param bits gpuproj_projection.assumed
 * @param buf output ("" when bits is 0), always NUL-terminated when size > 0
 * @return buf
 */
char *gpuproj_assumption_words(unsigned bits, char *buf, size_t size);

struct gpuproj_model;

/**
 * The widening of a calibrated interval for one assumption of model m
 * (built-in table src/data/assumptions.json, measured by dropping the input
 * from the validation corpora and validating again: docs/models.md
 * "Missing inputs"): a projection with the assumption gets
 * [point · lo · lo_factor, point · hi · hi_factor].
 *
 * @param[out] ret_lo factor ≤ 1 on the lower end (1: not widened)
 * @param[out] ret_hi factor ≥ 1 on the upper end (1: not widened)
 * @return true when the table measured it for m; false: 1 and 1 (not
 *         measured: the assumption's entry says why)
 */
bool gpuproj_assumption_widening(const struct gpuproj_model *m, enum gpuproj_assumption a,
				 double *ret_lo, double *ret_hi);

/**
 * One line saying where the widening table comes from (corpora, date,
 * command), for reports; static.
 */
const char *gpuproj_assumptions_origin(void);

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
	/**
	 * When status == OK and the options asked for notes (`notes`): a short
	 * model-specific note, else "" (quant: K_type and which device
	 * parameters were measured or derived; occupancy, hroof-occ: occupancy
	 * and waves on source → target; irm: achieved and peak GIPS; any model:
	 * the L2-capacity DRAM factor when applied, and where tensor work of a
	 * precision the target lacks runs there, e.g. "tensor fp8 -> bf16 (fp8
	 * no path)", gpuproj_tensor_path()). gpuproj_model_details() gives
	 * every number.
	 */
	char note[320];
	/**
	 * Set by gpuproj_project_run() when the run's model could not project
	 * this kernel and a fallback model did (gpuproj_model_options.fallback):
	 * that model (hroof when only the launch geometry of hroof-occ was
	 * missing, else "sol", coarser); NULL when the run's own model projected
	 * it or nothing did. `why` then keeps why the run's model could not.
	 */
	const struct gpuproj_model *fallback;
	/**
	 * The model's own interval before calibration, ns (hroof: [min, max]
	 * over the levels; NaN when not projected). lo_ns/hi_ns equal it when
	 * `calibrated` is false.
	 */
	double level_lo_ns, level_hi_ns;
	/**
	 * lo_ns/hi_ns are the calibrated interval of interval.h (point × the
	 * factors of the model's validation residuals for its binding and
	 * class), which held the measured time in the table's coverage (85 % for
	 * the built-in table)
	 * of the validation cases; false: no table entry, or the options asked
	 * for the level interval.
	 */
	bool calibrated;
	/**
	 * When `calibrated`: whether the table was fitted on both GPUs of the
	 * pair (gpuproj_intervals_gpu_fitted() of the source and the target,
	 * by targets.yaml name). UNSEEN: its coverage there is unmeasured, and
	 * lower than fitted on GPUs held out of a fit (docs/models.md "Intervals").
	 * UNKNOWN when not calibrated or when the table does not say.
	 */
	enum gpuproj_interval_gpus interval_gpus;
	/**
	 * When status == OK: what the model assumed for inputs the kernel
	 * lacks, bit (1u << enum gpuproj_assumption) each; 0 when it had every
	 * input. A calibrated interval is widened by each one's factors
	 * (gpuproj_assumption_widening()). The "envelope" model's projection
	 * of a kernel without counters has GPUPROJ_ASSUME_BINDING.
	 */
	unsigned assumed;
};

/**
 * Names under which the default-section quantities of the "sol" model are
 * kept in a kernel's extra_metrics: Nsight Compute's own metric names, unit
 * "%" (of the source GPU's peak, 0–100). The ncu importer maps the
 * section labels of every ncu version onto them ("DRAM Throughput", "SOL
 * FB", …; docs/cli/gpuproj-import.md "gpuproj import ncu").
 */
#define GPUPROJ_SOL_DRAM_PCT "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
/** L2 (lts) throughput, % of peak (see GPUPROJ_SOL_DRAM_PCT). */
#define GPUPROJ_SOL_L2_PCT "lts__throughput.avg.pct_of_peak_sustained_elapsed"
/** L1/TEX throughput, % of peak over active cycles (see GPUPROJ_SOL_DRAM_PCT). */
#define GPUPROJ_SOL_L1_PCT "l1tex__throughput.avg.pct_of_peak_sustained_active"
/** SM (compute) throughput: the busiest SM pipe or issue, % of peak. */
#define GPUPROJ_SOL_SM_PCT "sm__throughput.avg.pct_of_peak_sustained_elapsed"

/**
 * The profile that an Nsight Compute export of only the default sections
 * (SpeedOfLight, LaunchStats, Occupancy) of the same run would give, made
 * from a profile with full counters (src/model-default-sections.c). It is what
 * the "sol" model is validated and calibrated on (`gpuproj validate
 * --default-sections`; docs/validation.md "sol on exports of the default
 * sections").
 *
 * **What survives.** Per profile: the device, process and run information
 * and every attribute, plus the attribute "sections" saying how the profile
 * was made. Per kernel: the signature (name, tag, grid, block, dynamic
 * shared memory, device ordinal) and demangled name; the duration
 * statistics, launches and profiled launches (SpeedOfLight "Duration");
 * registers per thread and static shared memory (LaunchStats);
 * occupancy.achieved (Occupancy), cycles.sm_active and clock.sm
 * (SpeedOfLight), where the input has them; the per-rank statistics of a
 * merged profile; and the reference times measured on other GPUs (not part
 * of an export: they are the measured times a validation compares with).
 * **Dropped:** every other metric — the FP instruction counts, bytes per
 * level, shared-memory wavefronts, sectors, warp and thread instruction
 * counts, warp efficiency — and every extra metric except the four below.
 * **Added:** the four speed-of-light percentages (extra metrics
 * GPUPROJ_SOL_DRAM_PCT, _L2_PCT, _L1_PCT, _SM_PCT, unit "%"). A kernel that
 * already carries one (an ncu export with more sections) keeps it as
 * measured; only absent ones are derived.
 *
 * **Derivation**, per launch, with T the mean duration (ns) and the source
 * GPU's targets.yaml ceilings (bw_gbs in GB/s, so GB/s × ns = B; P_p =
 * gpuproj_target_gflops(p, FMA), GFLOP/s; issue rate I = SMs × schedulers
 * per SM × IPC per scheduler × clock_mhz / 1000, warp instructions per ns):
 *   - DRAM = bytes.dram / (BW_DRAM · T)
 *   - L2   = bytes.l2 / (BW_L2 · T)
 *   - L1   = max(bytes.l1 / BW_L1, shared.wavefronts · 128 B / BW_shared) / T
 *     (the L1/TEX unit also serves shared memory)
 *   - SM   = max(FLOP_16 / P_16, FLOP_32 / P_32, FLOP_64 / P_64,
 *     inst.warp / I) / T, FLOP_p = 2·fma_p + add_p + mul_p over the counts
 *     collected for precision p
 *
 * each × 100 and at most 100 %. A term whose metric or ceiling is missing
 * drops out; a percentage without any term is not set (sol then names what
 * it lacks); a kernel without a timed launch gets none.
 *
 * **How ncu defines them** (NVIDIA Nsight Compute, Kernel Profiling Guide,
 * "Metrics Structure", throughputs, and section "GPU Speed Of Light
 * Throughput"): a `*__throughput.avg.pct_of_peak_sustained_elapsed`
 * metric is the achieved rate of a unit over the kernel's elapsed cycles as
 * a percentage of the unit's peak sustained rate, and it is the *maximum*
 * over the unit's constituent sub-metrics (`ncu --metrics breakdown:NAME`
 * lists them): for DRAM the DRAM cycles and bytes; for L2 (lts) the
 * sectors, tag lookups and data-stage cycles of the busiest slice; for
 * L1/TEX (`pct_of_peak_sustained_active`: over the SM's active cycles) the
 * data and tag stages, shared memory included; for the SM the busiest
 * pipe (FMA, ALU, FP64, FP16, tensor, …) or instruction issue. The peaks
 * are the hardware's, at the clocks of the run.
 *
 * **Why it is optimistic** for real exports: (1) the same targets.yaml
 * ceilings are used here and by sol to turn a percentage back into traffic
 * (sol: bytes_x = f_x · BW_x · T), so sol recovers the counted bytes and
 * FLOP exactly, whereas a real percentage is of NVIDIA's peak, and the ratio
 * between that peak and targets.yaml's (often measured, lower) ceiling is
 * an error a real export carries into every projection; (2) here a
 * percentage is counted bytes or FLOP over one ceiling, while ncu's is the
 * busiest sub-unit (an unbalanced slice, tag rather than byte throughput, a
 * pipe other than FP or issue), which need not be proportional to the
 * bytes and FLOP that carry over to another GPU. The cap at 100 % is
 * ncu's too; here it binds only where the counters exceed a targets.yaml
 * ceiling (a ceiling below what the kernel reached), and sol then sees less
 * traffic than was counted. The durations are the data set's, not ncu's
 * `gpu__time_duration` (NeuSight's include the operator's launch
 * overhead).
 *
 * @param p a profile with counters (FP counts, bytes per level, …)
 * @param targets GPU descriptions: the source GPU's ceilings
 * @param source the source GPU (targets.yaml name or match string), or
 *        NULL: from the profile (gpuproj_resolve_source())
 * @param[out] ret new profile, owned by the caller (gpuproj_profile_free())
 * @param[out] reterr optional
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL p, targets or ret);
 *         GPUPROJ_E_NOTFOUND (the source GPU is not in targets, as
 *         gpuproj_resolve_source() says); GPUPROJ_E_NOMEM
 */
int gpuproj_profile_default_sections(const struct gpuproj_profile *p,
				     const struct gpuproj_targets *targets, const char *source,
				     struct gpuproj_profile **ret, struct gpuproj_error *reterr);

/**
 * Where work of one tensor-core input precision runs on a GPU: its own
 * tensor path, or — where the GPU has none (`peak_tensor` null) or the file
 * does not say (absent) — the path a library takes there
 * (gpuproj_tensor_path()).
 */
struct gpuproj_tensor_path {
	/** The tensor precision whose rate is used; GPUPROJ_TPREC_COUNT: CUDA cores. */
	enum gpuproj_tensor_prec tensor;
	enum gpuproj_prec cuda;   /**< the CUDA-core precision, when `tensor` is COUNT */
	double gflops;            /**< the rate, GFLOP/s (INT8: GOP/s), > 0 */
	bool fallback;            /**< not the precision's own tensor path */
	bool unknown;             /**< the precision's own rate is absent from targets.yaml */
};

/**
 * The path of tensor work of precision `p` on `t`: its own tensor rate
 * (gpuproj_target_tensor_gflops()) where the GPU has one, else the next of
 * this table, followed until a path exists — what cuBLAS, cuDNN and
 * Transformer Engine do on a GPU without the precision:
 *
 *   fp16_acc16 -> fp16 (FP32 accumulate)   fp8  -> bf16 (Transformer Engine's
 *   fp16, bf16, tf32 -> CUDA-core FP32          higher-precision path)
 *     (GEMMs of these types run as SGEMM     fp4  -> fp8
 *     on GPUs without the tensor type)       fp64 -> CUDA-core FP64 (DGEMM)
 *   int8 -> CUDA-core DP4A: 4 × the FP32 FMA rate in operations (Pascal
 *     GP102 whitepaper: Tesla P40 47 INT8 TOPS = 4 × 11.8 FP32 TFLOPS)
 *
 * CUDA-core rates are gpuproj_target_gflops() of the FMA (FLOP/s: a
 * library GEMM issues FMAs).
 *
 * @param p precision (enum gpuproj_tensor_prec)
 * @param[out] out the path
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL argument, p out of the enum)
 */
int gpuproj_tensor_path(const struct gpuproj_target *t, enum gpuproj_tensor_prec p,
			struct gpuproj_tensor_path *out);

/**
 * A kernel's FLOP mix, per launch: CUDA-core FLOP (Σ_p 2·FMA + ADD + MUL of
 * inst.fp*) and tensor FLOP per input precision (flop.tensor.*; INT8 in
 * operations); metrics the kernel lacks count 0.
 *
 * @param[out] ret_cuda CUDA-core FLOP
 * @param[out] ret_tensor GPUPROJ_TPREC_COUNT values
 * @return whether the kernel has any tensor work (> 0)
 */
bool gpuproj_kernel_flop_mix(const struct gpuproj_kernel *k, double *ret_cuda,
			     double ret_tensor[GPUPROJ_TPREC_COUNT]);

/**
 * The same over a profile: Σ over kernels of per-launch FLOP × launches.
 * @return whether any kernel has tensor work
 */
bool gpuproj_profile_flop_mix(const struct gpuproj_profile *p, double *ret_cuda,
			      double ret_tensor[GPUPROJ_TPREC_COUNT]);

/**
 * The mix as text, largest share first, shares of the total in percent:
 * "tensor bf16 78.2%, CUDA cores 20.1%, tensor fp16 1.7%" (shares under
 * 0.05 % left out).
 *
 * @param buf output, always NUL-terminated when size > 0
 * @return buf ("" when there is no FLOP at all)
 */
char *gpuproj_flop_mix_text(double cuda, const double tensor[GPUPROJ_TPREC_COUNT], char *buf,
			    size_t size);

/**
 * The compute roof of hroof and hroof-occ (gpuproj_model_options.compute).
 */
enum gpuproj_compute {
	GPUPROJ_COMPUTE_DEFAULT = 0, /**< gpuproj_compute_default() decides */
	/**
	 * [VanLanker2024] eqs. 2–3: the FP instructions over the FP peaks of their
	 * precisions and kinds, times warp efficiency (the paper).
	 */
	GPUPROJ_COMPUTE_FP = 1,
	/**
	 * Every pipe the kernel uses and instruction issue: the
	 * CUDA-core time is the largest of (a) eqs. 2–3 as above; (b) the
	 * FP32/INT32 datapath: with D_f FP32-only, D_i INT32-only and S shared
	 * lanes per SM (targets.yaml lanes_per_sm), f FP32 and i INT32 thread
	 * instructions and warp efficiency w,
	 *   t_alu = max(f / (D_f + S), i / (D_i + S), (f + i) / (D_f + D_i + S)) / (u · w),
	 * u = the sustained FP32 FMA rate / (2 · lanes_per_sm.fp32) = SMs × clock
	 * (lane-clocks per second); (c) instruction issue: every warp
	 * instruction (FP, integer, load/store, control: inst.warp) takes one
	 * issue slot of one scheduler,
	 *   t_issue = inst.warp / (u · schedulers_per_sm · ipc_per_scheduler).
	 * Without integer or non-FP instructions (b) and (c) never exceed (a),
	 * and the roof is the paper's. Where the profile lacks the instruction
	 * mix (analytic corpora) a default is used and marked
	 * (gpuproj_hroof.issue_mix): integer instructions 0 when inst.int is
	 * absent, inst.warp = (all thread instructions the profile counts) /
	 * (32 · w) when it is absent — lower bounds, so the roof is never
	 * tighter than the mix shows. Sources of lanes, schedulers and issue
	 * rates: targets.yaml (CUDA C++ Programming Guide throughput table;
	 * NVIDIA Volta, Turing, GA100, GA102, Ada, Hopper whitepapers; Jia et
	 * al., "Dissecting the NVIDIA Volta GPU Architecture via
	 * Microbenchmarking", arXiv:1804.06826, 2018, and "Dissecting the
	 * NVidia Turing T4 GPU via Microbenchmarking", arXiv:1903.07486, 2019:
	 * one warp instruction issued per scheduler per clock on Volta and
	 * Turing). src/model-hroof.c gives the equations.
	 */
	GPUPROJ_COMPUTE_ISSUE = 2,
};

/** @return "fp", "issue" (or "default") */
const char *gpuproj_compute_name(enum gpuproj_compute c);
/**
 * Parse "fp", "issue" or "default" (case-insensitive).
 * @return GPUPROJ_OK or GPUPROJ_E_INVAL (*ret untouched)
 */
int gpuproj_compute_from_name(const char *name, enum gpuproj_compute *ret);
/** @return the compute roof used when the options leave it at DEFAULT */
enum gpuproj_compute gpuproj_compute_default(void);

/** What the issue roof assumed for a kernel (gpuproj_hroof.issue_mix bits). */
enum gpuproj_issue_mix {
	GPUPROJ_MIX_INT_ASSUMED = 1u << 0,  /**< no inst.int: 0 integer instructions assumed */
	GPUPROJ_MIX_WARP_ASSUMED = 1u << 1, /**< no inst.warp: the counted thread instructions / (32 w) */
	GPUPROJ_MIX_NO_LANES = 1u << 2,     /**< the GPU has no lanes_per_sm: only the FP roof */
};

/**
 * Kernel-specific ceilings of the hierarchical roofline on one GPU
 * ([VanLanker2024] §2). Bytes are per launch; rates in base units.
 */
struct gpuproj_hroof {
	double flop;                 /**< FLOP per launch (CUDA-core FLOP × flop_ratio + tensor FLOP) */
	double perf_mix;             /**< eq. 2, FLOP/s (weighted over precisions and op kinds) */
	double perf_ceil;            /**< eq. 3, FLOP/s = warp efficiency × perf_mix */
	/*
	 * Tensor work (docs/models.md "Tensor cores"): FLOP of flop.tensor.*,
	 * the time the tensor pipe needs for the work on its tensor paths,
	 * and the CUDA-core time of all the rest (the kernel's own FP
	 * instructions at perf_ceil, plus tensor work whose precision runs on
	 * CUDA cores). The compute time is max(t_cuda, t_tensor) and perf_mix
	 * and perf_ceil are then the FLOP over it; without tensor work every
	 * value is the seed's.
	 */
	double flop_tensor;          /**< tensor FLOP per launch (all precisions) */
	double t_tensor;             /**< s: Σ FLOP_p / rate of p's tensor path */
	double t_cuda;               /**< s: CUDA-core FLOP / perf_ceil + tensor work on CUDA cores */
	unsigned tensor_fallback;    /**< bit p: precision p ran on another path (gpuproj_tensor_path()) */
	unsigned tensor_unknown;     /**< bit p: p's own rate is absent from targets.yaml */
	/*
	 * The CUDA-core compute terms of GPUPROJ_COMPUTE_ISSUE, s (0 with the FP
	 * roof): eqs. 2–3 alone, the FP32/INT32 datapath and instruction issue;
	 * t_cuda's CUDA-core part is their maximum.
	 */
	double t_fp;                 /**< s: CUDA-core FLOP / (warp efficiency · Perf^mix) */
	double t_alu;                /**< s: FP32/INT32 datapath (enum gpuproj_compute) */
	double t_issue;              /**< s: warp instructions / issue rate */
	unsigned issue_mix;          /**< enum gpuproj_issue_mix bits (ISSUE only) */
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
 * Tensor work (flop.tensor.*, any precision present) extends eqs. 2–3 with
 * one compute roof per pipe: the tensor pipe needs
 * t_tensor = Σ_p FLOP_p / R_p over the precisions on a tensor path, the
 * CUDA cores t_cuda = FLOP_cuda / Perf^ceil_cuda + Σ FLOP_q / R_q over the
 * precisions that fall back to them (gpuproj_tensor_path(): R is that
 * path's rate); the pipes run concurrently, so compute takes
 * max(t_cuda, t_tensor) and Perf^ceil = (FLOP_cuda + Σ FLOP_p) / that time
 * (Perf^mix likewise with warp efficiency 1). Eqs. 1 and 4–10 are unchanged
 * with FLOP the total. A kernel with tensor work needs no CUDA-core FP
 * count, nor warp_efficiency unless it has CUDA-core FLOP.
 *
 * @param flop_ratio multiplier on the kernel's CUDA-core FLOP (1 on the
 *        source; the SASS target/source ratio on a target, [VanLanker2024] §4.2);
 *        tensor FLOP is the same on both (the same MMAs)
 * @param[out] out the ceilings
 * @param[out] why optional buffer for the reason on failure
 * @param whylen size of why
 * @return GPUPROJ_OK; GPUPROJ_E_MISSING naming every missing metric;
 *         GPUPROJ_E_INVAL (NULL k, gpu or out; a negative metric value;
 *         warp_efficiency outside (0, 1] when FLOP > 0)
 */
int gpuproj_hroof_ceilings(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
			   double flop_ratio, struct gpuproj_hroof *out, char *why, size_t whylen);

/**
 * gpuproj_hroof_ceilings() with a choice of compute roof (enum
 * gpuproj_compute; DEFAULT = gpuproj_compute_default()). With
 * GPUPROJ_COMPUTE_ISSUE, perf_ceil = CUDA-core FLOP / max(t_fp, t_alu,
 * t_issue) (before tensor work is added), and the instruction counts
 * inst.fp32, inst.int and inst.warp are read where present (none is
 * required). gpuproj_hroof_ceilings() is this with GPUPROJ_COMPUTE_FP; a
 * value of `compute` that is neither DEFAULT nor ISSUE is taken as FP.
 * @return as gpuproj_hroof_ceilings(): GPUPROJ_OK, GPUPROJ_E_MISSING or
 *         GPUPROJ_E_INVAL, with the reason in why
 */
int gpuproj_hroof_ceilings_compute(const struct gpuproj_kernel *k,
				   const struct gpuproj_target *gpu, double flop_ratio,
				   enum gpuproj_compute compute, struct gpuproj_hroof *out,
				   char *why, size_t whylen);

/** Whether projections are held at or above the target's launch floor (option launch_floor). */
enum gpuproj_launch_floor {
	GPUPROJ_LAUNCH_FLOOR_DEFAULT = 0, /**< gpuproj_launch_floor_default() decides */
	GPUPROJ_LAUNCH_FLOOR_OFF = 1,     /**< no floor */
	GPUPROJ_LAUNCH_FLOOR_ON = 2,      /**< never below gpuproj_launch_floor_ns() */
};

/** Whether to apply the L2-capacity DRAM adjustment (gpuproj_l2_capacity_dram()). */
enum gpuproj_l2_capacity {
	GPUPROJ_L2_CAPACITY_DEFAULT = 0, /**< gpuproj_l2_capacity_default() decides */
	GPUPROJ_L2_CAPACITY_OFF = 1,     /**< DRAM bytes on the target = on the source */
	GPUPROJ_L2_CAPACITY_ON = 2,      /**< adjust DRAM bytes for the target's L2 size */
};

/** @return "on", "off" (or "default") */
const char *gpuproj_l2_capacity_name(enum gpuproj_l2_capacity c);
/**
 * Parse "on", "off" or "default" (case-insensitive).
 * @return GPUPROJ_OK or GPUPROJ_E_INVAL (*ret untouched)
 */
int gpuproj_l2_capacity_from_name(const char *name, enum gpuproj_l2_capacity *ret);

/**
 * Wave quantisation in the occupancy models ("occupancy", "hroof-occ";
 * src/model-occupancy.c): how a grid of G blocks is cut into waves whose
 * partial last one costs a full one.
 */
enum gpuproj_waves {
	GPUPROJ_WAVES_DEFAULT = 0,  /**< gpuproj_waves_default() decides */
	GPUPROJ_WAVES_OFF = 1,      /**< no quantisation: [Srivastava-nd] as published */
	/**
	 * A wave is one block per SM: the busiest SM runs ⌈G / SMs⌉ blocks,
	 * fill u = G / (⌈G / SMs⌉·SMs).
	 */
	GPUPROJ_WAVES_SM = 2,
	/**
	 * A wave is the resident capacity B·SMs: ⌈G / (B·SMs)⌉ waves, fill
	 * u = G / (waves·B·SMs).
	 */
	GPUPROJ_WAVES_RESIDENT = 3,
};

/** @return "off", "sm", "resident" (or "default") */
const char *gpuproj_waves_name(enum gpuproj_waves w);
/**
 * Parse "off", "sm", "resident" or "default" (case-insensitive).
 * @return GPUPROJ_OK or GPUPROJ_E_INVAL (*ret untouched)
 */
int gpuproj_waves_from_name(const char *name, enum gpuproj_waves *ret);
/**
 * @return the wave quantisation used when the options leave it at
 *         GPUPROJ_WAVES_DEFAULT (chosen from validation, docs/validation.md)
 */
enum gpuproj_waves gpuproj_waves_default(void);

/**
 * Whether gpuproj_project_run() projects a kernel the run's model cannot
 * project (GPUPROJ_E_MISSING) with another model, labelled in
 * gpuproj_projection.fallback.
 */
enum gpuproj_fallback {
	/**
	 * On for the default model (hroof-occ): "sol" (coarser), for a kernel
	 * hroof-occ cannot project (no FLOP and no bytes) and first for a kernel
	 * of an export of ncu's default sections
	 * (gpuproj_model_prefers_fallback()), then "envelope" for a kernel
	 * without any counter (assumed: binding unknown). hroof-occ runs without
	 * the launch geometry itself (GPUPROJ_ASSUME_GEOMETRY). Off for every
	 * other model. (`gpuproj project --model NAME` sets GPUPROJ_FALLBACK_OFF:
	 * a model named by the user is that model alone.)
	 */
	GPUPROJ_FALLBACK_DEFAULT = 0,
	GPUPROJ_FALLBACK_OFF = 1,    /**< never: each kernel by the run's model or not at all */
};

/**
 * The occupancy term of hroof-occ (src/model-hroof-occ.c): how throughput
 * follows the warps a kernel keeps resident.
 */
enum gpuproj_occupancy_term {
	GPUPROJ_OCC_TERM_DEFAULT = 0, /**< gpuproj_occupancy_term_default() decides */
	/**
	 * Little's law (gpuproj_latency_hiding()): a level's bandwidth is
	 * min(ceiling, bytes in flight / latency); unchanged as long as the
	 * target's warps still cover the latency.
	 */
	GPUPROJ_OCC_TERM_LITTLE = 1,
	/** Seed 002 eq. 4: throughput proportional to occupancy, T × O'_s / O'_t. */
	GPUPROJ_OCC_TERM_LINEAR = 2,
	/**
	 * Little's law with the bytes in flight per warp inferred from the
	 * source's achieved bandwidth where the source ran below its roofs
	 * (gpuproj_latency_hiding.from_source).
	 */
	GPUPROJ_OCC_TERM_LITTLE_SOURCE = 3,
};

/** @return "little", "linear", "little-source" (or "default") */
const char *gpuproj_occupancy_term_name(enum gpuproj_occupancy_term t);
/**
 * Parse "little", "linear", "little-source" or "default" (case-insensitive).
 * @return GPUPROJ_OK or GPUPROJ_E_INVAL (*ret untouched)
 */
int gpuproj_occupancy_term_from_name(const char *name, enum gpuproj_occupancy_term *ret);
/** @return the occupancy term used when the options leave it at DEFAULT (little) */
enum gpuproj_occupancy_term gpuproj_occupancy_term_default(void);

/**
 * Which clock the FP ceilings of a GPU stand for (gpuproj_target.max_gflops
 * vs .peak_gflops). targets.yaml's max_gflops is the rate under sustained
 * full FMA load (the power- or thermal-limited clock_mhz); a GPU whose
 * clock_mhz is below its boost clock holds the boost clock for a while
 * after it was idle, so a kernel timed in a short burst from idle (a
 * benchmark harness: NeuSight's "5 fastest of 25 runs") runs faster than
 * the sustained rate says.
 */
enum gpuproj_clock {
	GPUPROJ_CLOCK_DEFAULT = 0,   /**< gpuproj_clock_default() decides (sustained) */
	/** Every kernel at the sustained rate (max_gflops): an application's steady state. */
	GPUPROJ_CLOCK_SUSTAINED = 1,
	/**
	 * A kernel of duration T on a GPU with boost_hold_us = τ runs its
	 * first min(T, τ) at the boost rate (peak_gflops) and the rest at the
	 * sustained rate: FP ceiling = max + (peak − max) · min(1, τ/T), the
	 * time average of that rate. The source side uses the kernel's measured
	 * mean duration; the target side the projected point, iterated to a
	 * fixed point (onto the source's own GPU, the source's copy: the
	 * kernel keeps its measured time). GPUs without boost_hold_us are
	 * unchanged, and so are the rates that are not FP ceilings (irm's
	 * issue rate, quant's integer and shared-memory rates stay at
	 * clock_mhz).
	 */
	GPUPROJ_CLOCK_BURST = 2,
	/**
	 * The regime the source ran in, carried to the target
	 * (gpuproj_clock_regime()): the source's FP ceilings at its measured SM
	 * clock (the kernel's clock.sm, else the run's NVML clock,
	 * gpuproj_model_options.source_clock); the target's in the burst regime
	 * above when the source ran at its boost clock though it cannot hold
	 * it under load, at its sustained_clock_mhz (× sustained / clock_mhz,
	 * never above 1) when the source ran below its boost clock or NVML saw
	 * a power or thermal cap, and as SUSTAINED when the regime is unknown
	 * (no clock recorded, or a source that holds its boost clock under load
	 * anyway). The note names the regime assumed.
	 */
	GPUPROJ_CLOCK_AUTO = 3,
};

/** @return "sustained", "burst", "auto" (or "default") */
const char *gpuproj_clock_name(enum gpuproj_clock c);
/**
 * Parse "sustained", "burst", "auto" or "default" (case-insensitive).
 * @return GPUPROJ_OK or GPUPROJ_E_INVAL (*ret untouched)
 */
int gpuproj_clock_from_name(const char *name, enum gpuproj_clock *ret);
/** @return the clock regime used when the options leave it at DEFAULT (sustained) */
enum gpuproj_clock gpuproj_clock_default(void);

/**
 * The CUDA-core FP32 rate of FFMA-dense kernels (gpuproj_model_options.fp32;
 * docs/models.md "Achievable FP32 rate").
 */
enum gpuproj_fp32 {
	GPUPROJ_FP32_DEFAULT = 0, /**< gpuproj_fp32_default() decides */
	/** Every kernel at max_gflops.fp32_fma, the FMA-loop rate (the paper's). */
	GPUPROJ_FP32_FMA = 1,
	/**
	 * FFMA-dense kernels (gpuproj_kernel_ffma_density()) at
	 * min(fp32_dense_gflops, max_gflops.fp32_fma) — the rate a large SGEMM
	 * reaches —, scaled with the clock regime like max_gflops; other
	 * kernels, and GPUs without fp32_dense_gflops, at max_gflops. Every
	 * model but naive.
	 */
	GPUPROJ_FP32_DENSE = 2,
};

/** @return "fma", "dense" (or "default") */
const char *gpuproj_fp32_name(enum gpuproj_fp32 f);
/**
 * Parse "fma", "dense" or "default" (case-insensitive).
 * @return GPUPROJ_OK or GPUPROJ_E_INVAL (*ret untouched)
 */
int gpuproj_fp32_from_name(const char *name, enum gpuproj_fp32 *ret);
/** @return the FP32 rate used when the options leave it at DEFAULT (fma) */
enum gpuproj_fp32 gpuproj_fp32_default(void);

/**
 * The ceilings the models take from targets.yaml (gpuproj_model_options.rates):
 * datasheet peaks, or the sustained rates real kernels reach (docs/models.md).
 */
enum gpuproj_rates {
	GPUPROJ_RATES_DEFAULT = 0, /**< gpuproj_rates_default() decides (sustained) */
	/**
	 * The rates measured under sustained load, one basis for every GPU
	 * (docs/targets-schema.md "One basis per level"): DRAM = bw_gbs.dram
	 * (the STREAM triad rate), FP = max_gflops (FMA at the clock held
	 * under full load), tensor = max_tensor where measured.
	 */
	GPUPROJ_RATES_SUSTAINED = 1,
	/**
	 * The vendor's promises where targets.yaml has them: DRAM =
	 * peak_bw_gbs.dram, FP = peak_gflops (boost clock), tensor =
	 * peak_tensor. L2, L1, shared memory, issue and integer rates have no
	 * datasheet value and stay as they are. For measuring what the
	 * sustained rates are worth (docs/validation.md), not for use.
	 */
	GPUPROJ_RATES_DATASHEET = 2,
};

/** @return "sustained", "datasheet" (or "default") */
const char *gpuproj_rates_name(enum gpuproj_rates r);
/**
 * Parse "sustained", "datasheet" or "default" (case-insensitive).
 * @return GPUPROJ_OK or GPUPROJ_E_INVAL (*ret untouched)
 */
int gpuproj_rates_from_name(const char *name, enum gpuproj_rates *ret);
/** @return the rates used when the options leave them at DEFAULT (sustained) */
enum gpuproj_rates gpuproj_rates_default(void);

/** A table of calibrated intervals (interval.h). */
struct gpuproj_intervals;

/** Options common to all models. Zero-initialise, then set what you need. */
struct gpuproj_model_options {
	/**
	 * Optional: target/source FLOP ratio of a kernel ([VanLanker2024] §4.2, SASS
	 * comparison); NULL or a non-positive return means 1. Used by hroof,
	 * occupancy and quant (irm counts instructions, not FLOP).
	 */
	double (*flop_ratio)(void *userdata, const struct gpuproj_kernel *k,
			     const struct gpuproj_target *src, const struct gpuproj_target *tgt);
	void *flop_ratio_userdata;
	/** L2-capacity DRAM adjustment; 0 (DEFAULT) = gpuproj_l2_capacity_default(). */
	enum gpuproj_l2_capacity l2_capacity;
	/** Wave quantisation of the occupancy model; 0 (DEFAULT) = gpuproj_waves_default(). */
	enum gpuproj_waves waves;
	/**
	 * Fill gpuproj_projection.note. Off by default: formatting the notes
	 * costs more than the projection itself (about 1 µs each).
	 */
	bool notes;
	/** gpuproj_project_run() with the default model: fallback models (see enum). */
	enum gpuproj_fallback fallback;
	/** hroof-occ's occupancy term; 0 (DEFAULT) = gpuproj_occupancy_term_default(). */
	enum gpuproj_occupancy_term occupancy_term;
	/** Clock regime of the FP ceilings; 0 (DEFAULT) = gpuproj_clock_default(). */
	enum gpuproj_clock clock;
	/** Calibrated intervals (interval.h) for lo_ns/hi_ns; NULL = the built-in table. */
	const struct gpuproj_intervals *intervals;
	/** true: lo_ns/hi_ns stay the model's own interval (no calibration). */
	bool level_interval;
	/** hroof's and hroof-occ's compute roof; 0 (DEFAULT) = gpuproj_compute_default(). */
	enum gpuproj_compute compute;
	/**
	 * The ceilings of every model but naive (which always takes the
	 * datasheet's); 0 (DEFAULT) = gpuproj_rates_default().
	 */
	enum gpuproj_rates rates;
	/**
	 * Launch floor (gpuproj_launch_floor_ns()); 0 (DEFAULT) =
	 * gpuproj_launch_floor_default().
	 */
	enum gpuproj_launch_floor launch_floor;
	/** FP32 rate of FFMA-dense kernels; 0 (DEFAULT) = gpuproj_fp32_default(). */
	enum gpuproj_fp32 fp32;
	/**
	 * The run's NVML SM clock on the source GPU (the profile's
	 * device.sm_clock), for the AUTO clock regime; NULL = none.
	 * gpuproj_project_run() sets it from the profile when it is NULL.
	 */
	const struct gpuproj_sm_clock *source_clock;
	/**
	 * Inputs the models ignore, bit (1u << enum gpuproj_assumption) per
	 * assumption whose input is taken away (gpuproj_assumption_info().input;
	 * `gpuproj validate --drop`): the kernel is projected as if its profile
	 * lacked them, to measure what each assumption costs. 0: none.
	 */
	unsigned drop_inputs;
};

/**
 * @return whether the L2-capacity adjustment is on when the options leave
 *         it at GPUPROJ_L2_CAPACITY_DEFAULT (chosen from validation,
 *         docs/validation.md)
 */
bool gpuproj_l2_capacity_default(void);

/**
 * @return whether the launch floor applies when the options leave it at
 *         GPUPROJ_LAUNCH_FLOOR_DEFAULT (chosen from validation,
 *         docs/validation.md "Launch floor")
 */
bool gpuproj_launch_floor_default(void);

/**
 * A word a user gives as an option's value, and the enum value it stands
 * for. Each option has one table of them (src/model-options.c for the
 * options above; gate.h and validate.h have their own), in the order a
 * message lists them: the names, the parsers and the command's "--waves
 * must be sm, resident or off" messages all come from it.
 */
struct gpuproj_word {
	const char *name; /**< static, lower case */
	int value;        /**< the enum value */
};

/** The projection options with words (gpuproj_option_words()). */
enum gpuproj_option {
	GPUPROJ_OPTION_L2_CAPACITY = 0, /**< enum gpuproj_l2_capacity: on, off */
	GPUPROJ_OPTION_WAVES,           /**< enum gpuproj_waves: sm, resident, off */
	/** enum gpuproj_occupancy_term: little, little-source, linear */
	GPUPROJ_OPTION_OCCUPANCY_TERM,
	GPUPROJ_OPTION_CLOCK,           /**< enum gpuproj_clock: sustained, burst, auto */
	GPUPROJ_OPTION_COMPUTE,         /**< enum gpuproj_compute: fp, issue */
	GPUPROJ_OPTION_RATES,           /**< enum gpuproj_rates: sustained, datasheet */
	GPUPROJ_OPTION_LAUNCH_FLOOR,    /**< enum gpuproj_launch_floor: on, off */
	GPUPROJ_OPTION_FP32,            /**< enum gpuproj_fp32: fma, dense */
	GPUPROJ_OPTION_COUNT,
};

/**
 * The words of an option's values. Every option's value 0 is its DEFAULT,
 * named "default": the parsers accept it, the tables do not list it.
 *
 * @param[out] ret_n the number of words (0 for an option out of the enum)
 * @return the table (static), or NULL for an option out of the enum
 */
const struct gpuproj_word *gpuproj_option_words(enum gpuproj_option o, size_t *ret_n);

/**
 * Parse an option's value: "default" (0) or a word of its table, in any
 * case (the gpuproj_<option>_from_name() functions are this).
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL name or ret, an option out of
 *         the enum, or no such word; *ret untouched)
 */
int gpuproj_option_from_name(enum gpuproj_option o, const char *name, int *ret);

/**
 * @return the word of an option's value: "default" for 0, "?" for a
 *         value (or option) without one
 */
const char *gpuproj_option_name(enum gpuproj_option o, int value);

struct gpuproj_model;

/**
 * Factor by which the point estimates of different models must differ for
 * gpuproj_models_disagree() to flag a kernel: 4, i.e. the slowest
 * projection is more than four times the fastest. Chosen on the
 * gpuperfpredict validation over all five models (docs/validation.md):
 * quant predicts an absolute, upper-bound performance and sits about 2×
 * below the ratio models, so at 2× two-thirds of the comparisons are
 * flagged and the flag carries no information; at 4× 13 % are flagged, and
 * among them an error of the default model above 50 % is 2.7× as frequent
 * (26 % against 9.5 %; median APE 30 % against 17 %).
 */
#define GPUPROJ_MODEL_DISAGREEMENT_FACTOR 4.0

/**
 * Do models disagree on a kernel? Compares the point estimates of the
 * projections with status GPUPROJ_OK (others are ignored).
 *
 * @param p projections of one kernel onto one target, one per model
 * @param n number of projections
 * @param factor threshold (> 1; ≤ 1 or NaN uses GPUPROJ_MODEL_DISAGREEMENT_FACTOR)
 * @return true when at least two projected points exist and
 *         max(point) > factor × min(point)
 */
bool gpuproj_models_disagree(const struct gpuproj_projection *p, size_t n, double factor);

/** One named number behind a projection (gpuproj_model_details()). */
struct gpuproj_detail {
	const char *name;   /**< static, e.g. "tgt.E_instr", "src.occupancy" */
	double value;       /**< in `unit`; NaN when not applicable */
	const char *unit;   /**< static: "ns", "B", "FLOP", "FLOP/s", "GFLOP/s", "ratio", … */
	const char *key;    /**< static targets.yaml key the value came from, or NULL */
	enum gpuproj_basis basis; /**< BASIS of `key`'s source; NONE when key is NULL */
};

/** Capacity of struct gpuproj_model_details. */
#define GPUPROJ_DETAILS_MAX 64

/** Every number a model used for one projection, for reports (JSON "details"). */
struct gpuproj_model_details {
	size_t n;
	struct gpuproj_detail items[GPUPROJ_DETAILS_MAX];
};

/**
 * @return the model named `name` ("hroof", …), or the baseline "naive"
 *         (src/model-naive.c: the ratio of datasheet rooflines, which
 *         validation compares every model with; not in gpuproj_model_at()),
 *         or NULL
 */
const struct gpuproj_model *gpuproj_model_find(const char *name);
/** @return the default model (chosen from validation evidence, docs/validation.md) */
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
 * @return true for a model coarser than the default by construction ("sol":
 *         throughput percentages instead of counted bytes and FLOP); writers
 *         label its projections "coarser"
 */
bool gpuproj_model_is_coarse(const struct gpuproj_model *m);
/**
 * The models gpuproj_project_run() falls back to for kernels model m cannot
 * project (GPUPROJ_FALLBACK_DEFAULT): for the default model "sol", then
 * "envelope" (a timed kernel without any counter: src/model-envelope.c);
 * none for other models.
 *
 * @param[out] out up to `max` models, in the order tried
 * @return the number of fallback models (≤ 2)
 */
size_t gpuproj_model_fallbacks(const struct gpuproj_model *m, const struct gpuproj_model **out,
			       size_t max);

/**
 * Project one kernel from `src` (the GPU it was measured on) to `tgt`.
 *
 * @param opt options or NULL for defaults
 * @param[out] out the projection; on failure status != GPUPROJ_OK and
 *             `why` names the missing input or the reason
 * @return out->status: GPUPROJ_OK; GPUPROJ_E_MISSING (a metric or launch
 *         attribute the model needs was not collected, or the kernel has no
 *         timed launch; `why` names them); GPUPROJ_E_UNSUPPORTED (the kernel
 *         has neither FLOP nor traffic to scale by; occupancy, hroof-occ:
 *         the block does not fit on the target; quant: no compute
 *         operation); GPUPROJ_E_INVAL (NULL arguments, negative metrics,
 *         an empty launch, occupancy and hroof-occ: opt->waves not an enum
 *         gpuproj_waves value)
 */
int gpuproj_model_project(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
			  const struct gpuproj_target *src, const struct gpuproj_target *tgt,
			  const struct gpuproj_model_options *opt, struct gpuproj_projection *out);

/**
 * The numbers behind gpuproj_model_project() for the same arguments:
 * per model, the source and target quantities of its equations (hroof:
 * FLOP, Perf^mix, Perf^ceil, ceilings, OI, rooflines; occupancy: occupancy,
 * limits, waves, Roof; quant: the kernel and device parameters with their
 * targets.yaml keys and bases, E_instr, T'_op, O_krn, O_dev; irm:
 * instructions, transactions, intensities, peak and achieved GIPS), plus
 * the L2-capacity adjustment when applied.
 *
 * @param[out] out filled (n = 0 when the model cannot explain the kernel)
 * @return the status gpuproj_model_project() would return
 */
int gpuproj_model_details(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
			  const struct gpuproj_target *src, const struct gpuproj_target *tgt,
			  const struct gpuproj_model_options *opt, struct gpuproj_model_details *out);

/**
 * The kernel inputs model m needs that kernel k lacks, as a list of names,
 * by the rule the model applies when it projects (each model's `needs` in
 * the registry decides its GPUPROJ_E_MISSING too, so the list and the
 * "MODEL needs …" message of gpuproj_model_project() agree): "duration"
 * first when no launch of k was timed, then the model's own, in the order
 * it checks them. Names are metric names (gpuproj_metric_name()), the
 * group "inst.fp{16,32,64}.{fma,add,mul}" (at least one of the nine is
 * needed), "sectors.X (or bytes.X)" (irm: either per level) and
 * "regs_per_thread (launch attribute)" (occupancy). hroof and hroof-occ:
 * bytes.l1, bytes.l2, bytes.dram, shared.wavefronts, the FP group, and
 * warp_efficiency when FLOP > 0. Independent of any GPU: nothing of the
 * targets is read.
 *
 * @param[out] names receives up to `max` names: static strings, valid for
 *             the life of the program; may be NULL when max is 0
 * @param max capacity of `names` (16 holds every model's full list)
 * @return the number of missing inputs (all of them, even beyond max); 0
 *         means the model has what it needs from the kernel (it may still
 *         fail for a GPU, e.g. a kernel that does not fit its limits)
 */
size_t gpuproj_model_missing_names(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
				   const char **names, size_t max);

/**
 * gpuproj_model_missing_names() joined into one line: "a, b, c".
 *
 * @param buf receives the names, comma-separated ("" when none)
 * @param size size of buf, bytes
 * @return the number of missing inputs, as gpuproj_model_missing_names()
 */
size_t gpuproj_model_missing_inputs(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
				    char *buf, size_t size);

/**
 * The inputs model m needs that some kernel of profile p lacks
 * (gpuproj_model_missing_names() of every kernel), each name once, in the
 * order first met.
 *
 * @param[out] names receives up to `max` names (static strings), or NULL
 * @param[out] ret_kernels optional: the number of kernels lacking any
 * @return the number of distinct names (even beyond max)
 */
size_t gpuproj_model_missing_in_profile(const struct gpuproj_model *m,
					const struct gpuproj_profile *p, const char **names,
					size_t max, size_t *ret_kernels);

/**
 * What model m assumes for kernel k, from the kernel alone (bits 1u <<
 * enum gpuproj_assumption; docs/models.md "Missing inputs"): every
 * projection m makes of k carries these, and may add those that depend on
 * the GPU (GPUPROJ_ASSUME_REGS_CAPPED) or the options (GPUPROJ_ASSUME_MIX
 * under the issue roof). Independent of any GPU.
 * @return the bits; 0 for NULL arguments
 */
unsigned gpuproj_model_assumptions(const struct gpuproj_model *m, const struct gpuproj_kernel *k);

/**
 * Does gpuproj_project_run() with the default model (and fallbacks on)
 * try its fallback, sol, first for kernel k? For a kernel of an export of
 * ncu's default sections: a measured SM throughput percentage
 * (GPUPROJ_SOL_SM_PCT) and no FP instruction count. The default model would
 * see only its memory levels (GPUPROJ_ASSUME_FLOP); sol, made for such
 * exports, knows the compute side from the percentage.
 * @return true for such a kernel and m the default model
 */
bool gpuproj_model_prefers_fallback(const struct gpuproj_model *m, const struct gpuproj_kernel *k);

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
	/**
	 * Kernels not projected (status ≠ GPUPROJ_OK), timed or not: a kernel
	 * that was never timed cannot be projected and has no source time to
	 * carry, but it is counted here all the same.
	 */
	size_t n_unprojected;
	double unprojected_source_ns; /**< source time of the timed ones, carried unchanged, ns */
	/**
	 * Kernels projected (status GPUPROJ_OK), fallbacks included: n = n_projected
	 * + n_unprojected. 0 means lo/hi/point are only carried source time (or
	 * 0): writers print "not projected" then, never that time.
	 */
	size_t n_projected;
	/** Of n_projected, kernels projected by a fallback model (gpuproj_projection.fallback). */
	size_t n_fallback;
	/** Of n_fallback, those projected by "sol" (coarser). */
	size_t n_fallback_sol;
	/**
	 * Of n_projected, kernels projected with at least one assumption
	 * (gpuproj_projection.assumed ≠ 0), and per assumption the kernels
	 * with it (n_assumption[GPUPROJ_ASSUME_BINDING]: the "envelope" of a
	 * kernel without counters).
	 */
	size_t n_assumed;
	size_t n_assumption[GPUPROJ_ASSUME_COUNT];
	/**
	 * Of n_projected, kernels whose calibrated interval was fitted without
	 * the source or the target GPU (gpuproj_projection.interval_gpus
	 * UNSEEN): writers mark their intervals.
	 */
	size_t n_interval_unseen;
	/**
	 * The options used (a copy; zeroed for NULL), so writers can ask
	 * gpuproj_model_details() for the same projection. flop_ratio_userdata
	 * is borrowed: it must outlive the run for that.
	 */
	struct gpuproj_model_options options;
	/**
	 * The whole run (kernels, copies, host time and their overlap) replayed
	 * onto the target when the profile has a timeline (timeline.h,
	 * gpuproj_timeline_project()); valid = false otherwise.
	 */
	struct gpuproj_whole_run whole;
};

/**
 * Project every kernel of a profile, and, when it has a timeline, the whole
 * run (out->whole, gpuproj_timeline_project()).
 * @param[out] out filled; release with gpuproj_run_projection_clear()
 * @return GPUPROJ_OK or GPUPROJ_E_NOMEM (per-kernel failures are recorded
 *         in out->kernels[i].status, not returned)
 */
int gpuproj_project_run(const struct gpuproj_profile *p, const struct gpuproj_model *m,
			const struct gpuproj_target *src, const struct gpuproj_target *tgt,
			const struct gpuproj_model_options *opt, struct gpuproj_run_projection *out);

/** Free what gpuproj_project_run() allocated; accepts a zeroed struct. */
void gpuproj_run_projection_clear(struct gpuproj_run_projection *r);

/** An analysis of SASS (sass.h). */
struct gpuproj_sass;

/**
 * What gpuproj_project_targets() projects, and how. Zero-initialise, then
 * set what you need.
 */
struct gpuproj_project_request {
	/** The GPU descriptions: the source and the targets (required). */
	const struct gpuproj_targets *targets;
	/**
	 * The source GPU by name or match string; NULL: the profile's device,
	 * or a provisional entry derived from its device attributes when
	 * targets.yaml lacks it (gpuproj_resolve_source_or_derive()).
	 */
	const char *source;
	/**
	 * The targets by name or match string (gpuproj_targets_lookup(), "target
	 * GPU"), in this order; NULL or 0: every GPU of `targets`, in file order.
	 */
	const char *const *target_names;
	size_t n_target_names;
	/**
	 * The model; NULL: gpuproj_model_default(). Its fallbacks follow
	 * options.fallback (gpuproj_project_run()).
	 */
	const struct gpuproj_model *model;
	/**
	 * Every registered model side by side instead of `model`
	 * (gpuproj_model_at() order), each alone: options.fallback is
	 * GPUPROJ_FALLBACK_OFF for them.
	 */
	bool all_models;
	/** The options of every projection (copied); flop_ratio is set from the SASS. */
	struct gpuproj_model_options options;
	/**
	 * The application's device code ([VanLanker2024] §4.2): files or
	 * directories for gpuproj_sass_analyze() on the source's and the
	 * NVIDIA targets' architectures, each once. The targets' FLOP is then
	 * scaled by the SASS FLOP ratio of each kernel
	 * (gpuproj_sass_flop_ratio_cb()), and tensor FLOP assumed from
	 * instruction counts takes each kernel's FLOP per MMA instruction on
	 * the source (gpuproj_sass_tensor_rescale()). NULL or 0: ratio 1.
	 */
	const char *const *cubins;
	size_t n_cubins;
	/** Progress of the SASS analysis (gpuproj_sass_options.progress), or NULL. */
	void (*sass_progress)(void *userdata, const char *phase, size_t done, size_t total,
			      const char *what);
	void *sass_progress_userdata;
	/**
	 * One model: compute the runs when asked (gpuproj_projections_provide()),
	 * holding one at a time (100,000 kernels onto 44 GPUs: 2.3 GB at once,
	 * about 50 MB one by one). false, or all_models: every run in the call
	 * (`runs`).
	 */
	bool on_demand;
};

/** A profile projected onto its targets (gpuproj_project_targets()). */
struct gpuproj_projections {
	const struct gpuproj_profile *profile; /**< the profile projected (borrowed) */
	/** The source GPU, owned by the request's targets or by `derived`. */
	const struct gpuproj_target *source;
	/** The provisional entry's set when the source was derived, else NULL (owned). */
	struct gpuproj_targets *derived;
	const struct gpuproj_target **targets; /**< [n_targets], owned array of borrowed GPUs */
	size_t n_targets;
	/** The model of every run; NULL with all_models (each run names its own). */
	const struct gpuproj_model *model;
	size_t n_models;          /**< 1, or gpuproj_model_count() with all_models */
	/**
	 * The SASS analysis when the request gave cubins and some architecture
	 * is NVIDIA's, else NULL (owned); gpuproj_sass_arch_status() says which
	 * architectures kept ratio 1.
	 */
	struct gpuproj_sass *sass;
	/** Tensor metrics whose FLOP per MMA the SASS gave (gpuproj_sass_tensor_rescale()). */
	size_t n_rescaled;
	/** The options used: the request's, with flop_ratio set from `sass`. */
	struct gpuproj_model_options options;
	/**
	 * [n_runs = n_targets × n_models], target-major: runs[t·n_models + m] is
	 * model m on target t; NULL on demand (n_runs runs can be provided).
	 */
	struct gpuproj_run_projection *runs;
	size_t n_runs;
	struct gpuproj_run_projection current; /**< on demand: the run last provided */
	bool have_current;
};

/**
 * A profile projected onto target GPUs, as `gpuproj project` and
 * libproj.so do it: resolve the source GPU (or derive a provisional
 * entry), look the targets up, analyse the SASS and rescale tensor FLOP
 * when cubins are given, then project every target with the model (and
 * its fallbacks) or every model. With the SASS, `p`'s tensor metrics may
 * change (gpuproj_sass_tensor_rescale()).
 *
 * @param[out] out filled as far as the call got (`source` once resolved,
 *             so that a caller can name a provisional source before the
 *             error); release with gpuproj_projections_clear() either way
 * @param[out] reterr optional
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL p, req, req->targets or out);
 *         the errors of gpuproj_resolve_source_or_derive() (source);
 *         GPUPROJ_E_NOTFOUND (a target name, with gpuproj_targets_lookup()'s
 *         message); gpuproj_sass_analyze()'s errors; GPUPROJ_E_NOMEM
 *         ("out of memory")
 */
int gpuproj_project_targets(struct gpuproj_profile *p, const struct gpuproj_project_request *req,
			    struct gpuproj_projections *out, struct gpuproj_error *reterr);

/**
 * Run `i` of an on-demand gpuproj_project_targets() (target i; i <
 * n_targets), computed now and valid until the next call or
 * gpuproj_projections_clear(): a project.h gpuproj_project_provider_fn with
 * `projections` as its userdata.
 * @return the run, or NULL with *ret_status GPUPROJ_E_NOMEM, or
 *         GPUPROJ_E_INVAL (i out of range)
 */
const struct gpuproj_run_projection *gpuproj_projections_provide(void *projections, size_t i,
								 int *ret_status);

/** Free what gpuproj_project_targets() allocated; accepts a zeroed struct. */
void gpuproj_projections_clear(struct gpuproj_projections *pr);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_MODEL_H */
