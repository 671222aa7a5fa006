/* SPDX-License-Identifier: MIT */
/**
 * @file target.h
 * GPU descriptions loaded from targets.yaml (schema `gpuproj-targets/1`,
 * docs/targets-schema.md).
 *
 * A set of targets is an opaque, immutable handle; the GPUs in it are plain
 * read-only structs owned by the set. All rates are stored in the units of
 * their YAML keys (GFLOP/s, GB/s = 10^9 B/s, MHz, KiB, MiB) so that what a
 * user reads in the file is what the models use.
 *
 * Thread safety: a loaded set is never modified, so any number of threads
 * may read it concurrently.
 */
#ifndef GPUPROJ_TARGET_H
#define GPUPROJ_TARGET_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include <gpuproj/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Schema string a targets file must declare. */
#define GPUPROJ_TARGETS_SCHEMA "gpuproj-targets/1"

enum gpuproj_vendor {
	GPUPROJ_VENDOR_NVIDIA = 0,
	GPUPROJ_VENDOR_AMD = 1,
};

/** Floating-point precisions. */
enum gpuproj_prec {
	GPUPROJ_FP16 = 0,
	GPUPROJ_FP32 = 1,
	GPUPROJ_FP64 = 2,
	GPUPROJ_PREC_COUNT = 3,
};

/** Floating-point operation kinds ([VanLanker2024] eq. 2: FMA vs. ADD/MUL). */
enum gpuproj_opkind {
	GPUPROJ_OP_FMA = 0,     /**< fused multiply-add, 2 FLOP per thread instruction */
	GPUPROJ_OP_ADD_MUL = 1, /**< add or multiply, 1 FLOP per thread instruction */
	GPUPROJ_OPKIND_COUNT = 2,
};

/** Memory levels with a bandwidth in targets.yaml (`bw_gbs`). */
enum gpuproj_level {
	GPUPROJ_LEVEL_L1 = 0,
	GPUPROJ_LEVEL_L2 = 1,
	GPUPROJ_LEVEL_DRAM = 2,
	GPUPROJ_LEVEL_SHARED = 3,
	GPUPROJ_LEVEL_COUNT = 4,
};

/**
 * Execution lanes of one SM (CU), `lanes_per_sm` in targets.yaml: results
 * per clock per SM of one thread-level operation.
 */
enum gpuproj_lane {
	GPUPROJ_LANE_FP16 = 0,              /**< FP16 FMA results (an HFMA2 counts 2) */
	GPUPROJ_LANE_FP32 = 1,              /**< FP32 FMA results */
	GPUPROJ_LANE_FP64 = 2,              /**< FP64 FMA results */
	GPUPROJ_LANE_INT32 = 3,             /**< INT32 add/logic results (IADD3, LOP3) */
	/**
	 * Of the FP32 and INT32 lanes, how many are one datapath that executes
	 * either an FP32 or an INT32 operation each clock (0: separate pipes, as
	 * on GV100, TU10x, GA100, GH100; 64 on GA10x/AD10x, whose 128 FP32
	 * lanes are 64 FP32-only + 64 FP32-or-INT32 lanes).
	 */
	GPUPROJ_LANE_FP32_INT32_SHARED = 4,
	GPUPROJ_LANE_COUNT = 5,
};

/** STREAM-like DRAM kernels of `stream_gbs` (all bytes read and written counted). */
enum gpuproj_stream {
	GPUPROJ_STREAM_READ = 0,  /**< read-only: sum += a[i] */
	GPUPROJ_STREAM_COPY = 1,  /**< one read, one write stream: b[i] = a[i] (or s * a[i]) */
	GPUPROJ_STREAM_TRIAD = 2, /**< two or three read, one write stream: a[i] = b[i] + s * c[i] */
	GPUPROJ_STREAM_COUNT = 3,
};

/**
 * How a kernel was launched (`launch_floor_us` in targets.yaml; the
 * profile's graph_launches, profile.h): on a stream, one launch call per
 * kernel, or as a node of a CUDA graph (cudaGraphLaunch).
 */
enum gpuproj_launch_mode {
	GPUPROJ_LAUNCH_STREAM = 0, /**< `<<<>>>`, cudaLaunchKernel, cuLaunchKernel */
	GPUPROJ_LAUNCH_GRAPH = 1,  /**< a kernel node of a launched CUDA graph */
	GPUPROJ_LAUNCH_MODE_COUNT = 2,
};

/**
 * Input precisions of the tensor cores (AMD: matrix cores, MFMA), in the
 * order of targets.yaml's `peak_tensor`/`max_tensor` keys and of the
 * profile's `flop.tensor.*` metrics (profile.h).
 */
enum gpuproj_tensor_prec {
	GPUPROJ_TPREC_FP16 = 0,   /**< FP16 inputs, FP32 accumulate: `fp16_gflops` */
	GPUPROJ_TPREC_FP16_ACC16, /**< FP16 inputs, FP16 accumulate: `fp16_acc16_gflops` */
	GPUPROJ_TPREC_BF16,       /**< `bf16_gflops` */
	GPUPROJ_TPREC_TF32,       /**< `tf32_gflops` (AMD: XF32) */
	GPUPROJ_TPREC_FP8,        /**< `fp8_gflops` */
	GPUPROJ_TPREC_FP4,        /**< FP4 (and FP6): `fp4_gflops` */
	GPUPROJ_TPREC_INT8,       /**< `int8_gops`: integer operations */
	GPUPROJ_TPREC_FP64,       /**< `fp64_gflops` (DMMA, AMD FP64 MFMA) */
	GPUPROJ_TPREC_COUNT,
};

/** What a number in targets.yaml rests on (the BASIS of its source text). */
enum gpuproj_basis {
	GPUPROJ_BASIS_NONE = 0,      /**< no source (only for absent values) */
	GPUPROJ_BASIS_MEASURED = 1,  /**< a benchmark result */
	GPUPROJ_BASIS_DATASHEET = 2, /**< a vendor datasheet / whitepaper / guide value */
	GPUPROJ_BASIS_DERIVED = 3,   /**< computed from other cited numbers */
	GPUPROJ_BASIS_ESTIMATE = 4,  /**< no measurement found: an assumption */
};

/**
 * How the GPU reaches its host's memory (`host_link` in targets.yaml,
 * docs/targets-schema.md): what the whole-run replay uses for host copies
 * (timeline.h, gpuproj_copy_project_ns()). Rates are sustained copy
 * rates, GB/s (10^9 B/s), of large (≥ 32 MB) cudaMemcpy(Async) copies
 * measured the way NVIDIA's bandwidthTest and nvbandwidth measure them;
 * absent numbers are NaN and an absent group has interface NULL.
 */
struct gpuproj_host_link {
	/**
	 * The link, one of "pcie2-x16", "pcie3-x16", "pcie4-x8", "pcie4-x16", "pcie5-x16",
	 * "pcie6-x16", "nvlink-c2c" (a static string), or NULL when the entry
	 * has no `host_link`.
	 */
	const char *interface;
	double h2d_pinned_gbs;    /**< host to device from pinned (page-locked) memory */
	double d2h_pinned_gbs;    /**< device to host into pinned memory */
	double h2d_pageable_gbs;  /**< host to device from pageable (malloc'd) memory */
	double d2h_pageable_gbs;  /**< device to host into pageable memory */
	double latency_us;        /**< fixed cost of one copy, µs */
};

/** Occupancy limits of one SM (CU); see docs/targets-schema.md. */
struct gpuproj_target_limits {
	int threads_per_sm;            /**< max resident threads per SM */
	int threads_per_block;         /**< max threads per block */
	int blocks_per_sm;             /**< max resident blocks per SM */
	int regs_per_sm;               /**< 32-bit registers per SM */
	int regs_per_block;            /**< max 32-bit registers per block */
	int regs_per_thread;           /**< max 32-bit registers per thread */
	int reg_alloc_unit;            /**< register allocation granularity per warp, registers */
	int smem_per_sm_kib;           /**< max shared memory per SM, KiB */
	int smem_per_block_kib;        /**< max shared memory per block, KiB */
	int smem_alloc_unit_b;         /**< shared-memory allocation granularity, bytes */
	int smem_reserved_per_block_b; /**< shared memory reserved by the system per block, bytes */
	double l2_mib;                 /**< L2 cache size, MiB */
};

/** One `sources:` entry: a path (key, group or group.key) and its text. */
struct gpuproj_source {
	const char *path;           /**< e.g. "bw_gbs.l2" or "peak_gflops" */
	enum gpuproj_basis basis;   /**< parsed from the text's "BASIS:" prefix */
	const char *text;           /**< the whole source text as written */
};

/**
 * One GPU. Absent optional numbers are NaN (test with isnan()).
 * All pointers are owned by the containing struct gpuproj_targets.
 */
struct gpuproj_target {
	const char *name;           /**< unique id, e.g. "H100-PCIe-80GB" */
	const char *description;    /**< human name, or NULL */
	const char *const *match;   /**< device names mapping to this entry */
	size_t n_match;             /**< length of match */
	enum gpuproj_vendor vendor;
	const char *arch;           /**< "sm_90", "gfx942" */
	int cc_major, cc_minor;     /**< compute capability from arch (NVIDIA), 0.0 for AMD */
	const char *chip;           /**< "GH100" */
	int sms;                    /**< SMs (NVIDIA) or CUs (AMD) */
	int warp_size;              /**< threads per warp / wavefront */
	double clock_mhz;           /**< sustained SM clock under full FMA load, MHz (the clock of max_gflops) */
	double boost_clock_mhz;     /**< datasheet maximum boost clock, MHz, or NaN */
	/**
	 * `boost_hold_us`: how long, from idle, the GPU keeps its FP rate at
	 * peak_gflops (boost clock) under full load before its power limit
	 * brings it to max_gflops (clock_mhz), µs, or NaN (unknown: the burst
	 * regime leaves it unchanged; gpuproj_target_burst()).
	 */
	double boost_hold_us;
	/**
	 * 0, except in a copy made by gpuproj_target_burst(): the
	 * share of the kernel's time at peak_gflops that its max_gflops blend
	 * (0..1); such rates are reported with basis "derived", not their
	 * file's basis (gpuproj_target_gflops(), --details).
	 */
	double burst_share;
	/**
	 * 0, except in a copy made by gpuproj_target_scale_fp() (the AUTO
	 * clock regime, model.h enum gpuproj_clock): the factor its FP
	 * ceilings were scaled by; such rates are reported with basis
	 * "derived" (gpuproj_target_basis()).
	 */
	double clock_factor;
	int schedulers_per_sm;      /**< warp (wavefront) schedulers per SM (CU) */
	double ipc_per_scheduler;   /**< warp instructions per scheduler per cycle (default 1) */
	double memory_gib;          /**< device memory, GiB, or NaN */
	struct gpuproj_target_limits limits;
	/** Vendor peak FLOP/s, GFLOP/s, [precision][op kind]; ADD/MUL filled as FMA/2 when absent. */
	double peak_gflops[GPUPROJ_PREC_COUNT][GPUPROJ_OPKIND_COUNT];
	/**
	 * Sustained FLOP/s under full load (at clock_mhz), GFLOP/s, or NaN;
	 * ADD/MUL filled as FMA/2 when only FMA is given. The models use it
	 * where present (gpuproj_target_gflops()).
	 */
	double max_gflops[GPUPROJ_PREC_COUNT][GPUPROJ_OPKIND_COUNT];
	/**
	 * `fp32_dense_gflops`: the CUDA-core FP32 rate FFMA-dense code reaches,
	 * GFLOP/s, or NaN: a large cuBLAS SGEMM with TF32 off (FLOP = 2 per
	 * FMA), measured, or derived from a sibling of the same SM datapath and
	 * power class (docs/targets-schema.md). The analogue of max_tensor for
	 * the CUDA cores; the models use it for FFMA-dense kernels when asked
	 * (gpuproj_model_options.fp32, model.h), never above max_gflops.fp32_fma.
	 */
	double fp32_dense_gflops;
	/**
	 * `sustained_clock_mhz`: the SM clock the GPU holds under seconds of
	 * full FFMA load, MHz, or NaN (a clock NVML logged during such a run,
	 * or derived from a sibling of the same power class); what the target
	 * runs at in the sustained clock regime of `--clock auto`
	 * (enum gpuproj_clock, model.h).
	 */
	double sustained_clock_mhz;
	/**
	 * NaN, except in a copy made for an FFMA-dense kernel (model.c): the
	 * FFMA-loop rate max_gflops.fp32_fma had before the copy's took the
	 * dense rate, GFLOP/s. The issue roof's lane-clocks come from it, and
	 * max_gflops.fp32_fma then reports fp32_dense_gflops's source.
	 */
	double fp32_loop_gflops;
	/** True where `peak_gflops.*_add_mul` was written in the file (false: FMA/2). */
	bool peak_add_mul_given[GPUPROJ_PREC_COUNT];
	/** True where `max_gflops.*_add_mul` was written in the file (false: FMA/2 or absent). */
	bool max_add_mul_given[GPUPROJ_PREC_COUNT];
	double int32_add_giops;     /**< integer add throughput, GIOP/s, or NaN */
	double int32_mad_giops;     /**< integer multiply-add throughput (2 op/IMAD), GIOP/s, or NaN */
	double ldst_shared_gops;    /**< shared ld/st thread instructions per second / 1e9, or NaN */
	double peak_dram_gbs;       /**< datasheet DRAM bandwidth, GB/s, or NaN */
	double bw_gbs[GPUPROJ_LEVEL_COUNT]; /**< model bandwidth per level, GB/s (all > 0) */
	/**
	 * `lanes_per_sm`: results per clock per SM, indexed by enum
	 * gpuproj_lane; all NaN when the group is absent, else all set.
	 */
	double lanes_per_sm[GPUPROJ_LANE_COUNT];
	/**
	 * `peak_tensor`: the vendor's dense (no sparsity) tensor-core peak per
	 * input precision, GFLOP/s (INT8: GOP/s), by enum gpuproj_tensor_prec;
	 * NaN = not given (unknown); 0 = null in the file: the GPU has no such
	 * tensor path (a library runs that work elsewhere:
	 * gpuproj_tensor_path(), model.h).
	 */
	double peak_tensor[GPUPROJ_TPREC_COUNT];
	/**
	 * `max_tensor`: the dense rate a large GEMM sustains, measured (the way
	 * max_gflops is the sustained FMA rate), by precision; NaN = absent.
	 * The models use it where present (gpuproj_target_tensor_gflops()).
	 */
	double max_tensor[GPUPROJ_TPREC_COUNT];
	/** `stream_gbs`: STREAM-like DRAM bandwidth, GB/s, by enum gpuproj_stream; NaN = absent. */
	double stream_gbs[GPUPROJ_STREAM_COUNT];
	/**
	 * `latency_ns`: load-to-use latency of one dependent load (pointer
	 * chase) that hits the level, ns, by enum gpuproj_level; NaN = absent.
	 */
	double latency_ns[GPUPROJ_LEVEL_COUNT];
	/**
	 * `launch_floor_us`: the shortest time per kernel that back-to-back
	 * launches of a near-empty kernel reach, µs, by enum
	 * gpuproj_launch_mode; NaN = absent. No projection onto the GPU is
	 * below it (include/gpuproj/model.h, option launch_floor).
	 */
	double launch_floor_us[GPUPROJ_LAUNCH_MODE_COUNT];
	double price_usd;           /**< USD, or NaN when unknown */
	double tdp_w;               /**< W, or NaN when unknown */
	const struct gpuproj_source *sources; /**< every number's source */
	size_t n_sources;
	int line;                   /**< line of the entry in its file (1-based) */
	/**
	 * NULL for an entry read from a targets file; GPUPROJ_BASIS_DEVICE for
	 * a provisional entry that gpuproj_targets_derive() made from a
	 * profile's device attributes (writers mark it wherever it is shown).
	 */
	const char *provisional;
	/** The targets.yaml GPU a provisional entry took its per-SM figures from, or NULL. */
	const char *derived_from;
	/** `host_link`: the link to the host's memory (interface NULL when absent). */
	struct gpuproj_host_link host_link;
};

/** gpuproj_target.provisional of an entry derived from a profile's device attributes. */
#define GPUPROJ_BASIS_DEVICE "device-attributes"

/** An immutable, loaded set of targets (opaque). */
struct gpuproj_targets;

/**
 * Load and validate a targets file.
 *
 * Validation covers the whole schema of docs/targets-schema.md: schema
 * version, unknown keys (with the nearest known key suggested), missing
 * required fields, wrong types, non-positive rates and counts, numbers
 * beyond the schema's limits ("Limits": SMs ≤ 4,096, clock ≤ 10 GHz, …),
 * duplicate names and duplicate match strings, numbers without a source,
 * unknown BASIS words and citations of undefined references. Before libyaml
 * builds a document the text must be at most 8 MiB (unless the input limit
 * was raised explicitly: util.h) and nest flow collections at most 64 deep.
 *
 * @param path file to read
 * @param[out] ret on success the new set, owned by the caller (free with
 *             gpuproj_targets_free()); untouched on failure
 * @param[out] reterr optional; on failure file:line:column and message
 * @return GPUPROJ_OK; GPUPROJ_E_IO (cannot read), GPUPROJ_E_PARSE (not YAML),
 *         GPUPROJ_E_SCHEMA (any schema violation), GPUPROJ_E_LIMIT (a file
 *         over the size limit, flow nesting over 64, a number over its
 *         limit), GPUPROJ_E_INVAL (GPUPROJ_MAX_INPUT_SIZE is not a size),
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_targets_load(const char *path, struct gpuproj_targets **ret,
			 struct gpuproj_error *reterr);

/**
 * Same as gpuproj_targets_load() on a memory buffer.
 *
 * @param text YAML text (need not be NUL-terminated)
 * @param len length of text, bytes
 * @param name file name to use in error messages
 * @param[out] ret as for gpuproj_targets_load()
 * @param[out] reterr as for gpuproj_targets_load()
 * @return as for gpuproj_targets_load(), without GPUPROJ_E_IO
 */
int gpuproj_targets_load_buffer(const char *text, size_t len, const char *name,
				struct gpuproj_targets **ret, struct gpuproj_error *reterr);

/**
 * The targets.yaml compiled into the library (the repository's file at
 * build time). Used when no file is named; errors name it
 * "targets.yaml (built-in)". It is not an input file: the input size limit
 * (GPUPROJ_MAX_INPUT_SIZE, `--max-input-size`) does not apply to it.
 *
 * @param[out] ret,reterr as for gpuproj_targets_load()
 * @return as for gpuproj_targets_load_buffer(), without GPUPROJ_E_INVAL for
 *         GPUPROJ_MAX_INPUT_SIZE and without the size limit
 */
int gpuproj_targets_load_builtin(struct gpuproj_targets **ret, struct gpuproj_error *reterr);

/**
 * Load `path` if non-NULL, else the file named by the environment variable
 * GPUPROJ_TARGETS if set and non-empty, else the built-in set.
 *
 * @param path file or NULL
 * @param[out] ret,reterr as for gpuproj_targets_load()
 * @param[out] ret_origin optional; set to a static or `path`-owned string
 *             naming where the set came from (the path or "built-in")
 * @return as for gpuproj_targets_load()
 */
int gpuproj_targets_load_default(const char *path, struct gpuproj_targets **ret,
				 const char **ret_origin, struct gpuproj_error *reterr);

/**
 * Free a set. Accepts NULL.
 * @return NULL, so callers can write `t = gpuproj_targets_free(t);`
 */
struct gpuproj_targets *gpuproj_targets_free(struct gpuproj_targets *targets);

/** @return the number of GPUs in the set */
size_t gpuproj_targets_count(const struct gpuproj_targets *targets);

/**
 * @param i index, 0 ≤ i < gpuproj_targets_count()
 * @return the i-th GPU in file order, or NULL when i is out of range
 */
const struct gpuproj_target *gpuproj_targets_get(const struct gpuproj_targets *targets, size_t i);

/**
 * Find a GPU by its `name` (case-insensitive).
 * @return the GPU or NULL
 */
const struct gpuproj_target *gpuproj_targets_find(const struct gpuproj_targets *targets,
						  const char *name);

/**
 * Find the GPU whose `match` list contains a device name (case-insensitive,
 * surrounding blanks ignored), or whose `name` equals it.
 * @param device_name e.g. "NVIDIA H100 PCIe"
 * @return the GPU or NULL
 */
const struct gpuproj_target *gpuproj_targets_match(const struct gpuproj_targets *targets,
						   const char *device_name);

/**
 * Names close to `name` (Levenshtein distance over lower-case names and
 * match strings, or a shared substring), best first — for "did you mean"
 * messages.
 *
 * @param out caller array receiving up to `max` names (owned by the set)
 * @param max capacity of out
 * @return number of names written
 */
size_t gpuproj_targets_suggest(const struct gpuproj_targets *targets, const char *name,
			       const char **out, size_t max);

/**
 * How gpuproj_targets_lookup() words its error. Zero-initialise; every
 * field is optional.
 */
struct gpuproj_lookup_words {
	/** Before the name: "target GPU", "source GPU"; NULL: nothing. */
	const char *what;
	/** After the name: "of the data set"; NULL: nothing. */
	const char *where;
	/**
	 * The advice in brackets at the end; NULL: "`gpuproj targets list`
	 * shows all"; "": none.
	 */
	const char *hint;
	/** Added to the brackets when no close name was found; NULL: nothing. */
	const char *advice;
};

/**
 * Look a GPU up by its targets.yaml name or a match string
 * (gpuproj_targets_match()); the one place that words a GPU that is not in
 * the set:
 *
 *     [WHAT ]'NAME'[ WHERE] is not in targets.yaml[; close names: A, B, …]
 *     [ (HINT[; ADVICE])]
 *
 * with the close names of gpuproj_targets_suggest() (at most 5) and ADVICE
 * only when there is none.
 *
 * @param name what to look up (a name, a match string, a device name)
 * @param words how to word the error, or NULL (plain: "'NAME' is not in
 *        targets.yaml… (`gpuproj targets list` shows all)")
 * @param[out] ret the GPU (owned by the set); untouched on failure
 * @param[out] reterr optional; on failure the message above (no file)
 * @return GPUPROJ_OK; GPUPROJ_E_NOTFOUND; GPUPROJ_E_INVAL (NULL targets,
 *         name or ret)
 */
int gpuproj_targets_lookup(const struct gpuproj_targets *targets, const char *name,
			   const struct gpuproj_lookup_words *words,
			   const struct gpuproj_target **ret, struct gpuproj_error *reterr);

/* A measured profile and its device (profile.h). */
struct gpuproj_profile;
struct gpuproj_device_info;

/**
 * Find the source GPU of a profile: `override` if non-NULL (a targets.yaml
 * name or match string), else the profile's device.target name, else its
 * device.name through the `match` lists, else (a device that reports no
 * name) the one entry its attributes fit (gpuproj_targets_identify()).
 * Without an override, an entry whose compute capability or SM count the
 * device contradicts (gpuproj_target_differs(): another variant) is not
 * the source: GPUPROJ_E_NOTFOUND naming the difference, so that
 * gpuproj_resolve_source_or_derive() derives an entry from the device.
 *
 * @param[out] ret the GPU
 * @param[out] reterr optional; for an unknown GPU the message of
 *             gpuproj_targets_lookup() with "source GPU" (override) or
 *             "the profile's GPU", listing close names, else advising to
 *             add an entry or pass --source NAME; for a variant "the
 *             profile's GPU 'NAME' has 152 SMs, not 148: a variant …"
 * @return GPUPROJ_OK, GPUPROJ_E_NOTFOUND, GPUPROJ_E_INVAL (NULL argument)
 */
int gpuproj_resolve_source(const struct gpuproj_profile *p, const struct gpuproj_targets *targets,
			   const char *override, const struct gpuproj_target **ret,
			   struct gpuproj_error *reterr);

/**
 * Does a device contradict a targets.yaml entry it was matched to by name?
 * Its compute capability (NVIDIA) or SM count, where the device reports
 * them, differ from the entry's: another variant of the GPU (a 152-SM
 * B200 against the 148-SM B200-180GB) or a partition (MIG).
 *
 * @param buf optional: the differences, "152 SMs, not 148" ("" when none)
 * @return 1 when they differ, 0 when not (or t or d is NULL)
 */
int gpuproj_target_differs(const struct gpuproj_target *t, const struct gpuproj_device_info *d,
			   char *buf, size_t size);

/**
 * Identify a device that reports no name by its attributes: the one NVIDIA
 * entry of `targets` (provisional ones aside) with its compute capability
 * and SM count, whose memory_gib is within 12 % of the device's memory
 * (device.driver memory bytes: drivers report less than the nominal size)
 * and boost_clock_mhz within 3 % of its clock (device.clock_hz, the
 * driver's maximum clock), where those are known.
 *
 * @param[out] ret the entry
 * @param[out] reterr optional; why not: no such entry, or the several that
 *             fit, by name
 * @return GPUPROJ_OK; GPUPROJ_E_NOTFOUND (no CC or SM count to go by, no
 *         entry, or more than one); GPUPROJ_E_INVAL (NULL arguments)
 */
int gpuproj_targets_identify(const struct gpuproj_targets *targets,
			     const struct gpuproj_device_info *d, const struct gpuproj_target **ret,
			     struct gpuproj_error *reterr);

/**
 * A provisional targets.yaml entry (schema gpuproj-targets/1, one GPU, as
 * YAML text) for a device that `targets` does not list: the driver's
 * report of the device (name, CC, SMs, clock; device.driver's memory clock
 * and bus width, memory and L2 size, per-SM and per-block limits, power
 * limit) and the per-SM figures of its sibling in `targets` — an NVIDIA GPU
 * of the same compute capability with lanes_per_sm, stream_gbs.triad and
 * peak_bw_gbs.dram, the same chip first, measured values next, then the
 * closest SM count. Peak DRAM bandwidth = 2 x memory clock x bus width / 8
 * (NVIDIA's deviceQuery and bandwidthTest samples), the DRAM ceiling that
 * times the sibling's triad efficiency; clock_mhz = the boost clock times
 * the sibling's sustained fraction; every other rate the sibling's per
 * SM-clock figure times SMs x clock (src/target-derive.c lists each). Every
 * number is sourced; the entry passes gpuproj_target_check_one_basis().
 *
 * @param d the device (a profile's, gpuproj_profile_device())
 * @param targets where the sibling comes from
 * @param[out] ret_yaml malloc'd NUL-terminated text, owned by the caller;
 *             NULL on failure
 * @param[out] reterr optional; why no entry could be derived
 * @return GPUPROJ_OK; GPUPROJ_E_NOTFOUND (the device's name, CC, SMs,
 *         clock, memory clock or bus width is not recorded, or no sibling
 *         of its CC); GPUPROJ_E_SCHEMA (the text it built fails the
 *         loader or gpuproj_target_check_one_basis(), as `gpuproj targets
 *         check --one-basis` would: a driver attribute no GPU has, such as
 *         a memory clock of 1 kHz giving a DRAM bandwidth of 0; the text
 *         is not returned); GPUPROJ_E_INVAL (NULL argument);
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_target_derive_yaml(const struct gpuproj_device_info *d,
			       const struct gpuproj_targets *targets, char **ret_yaml,
			       struct gpuproj_error *reterr);

/**
 * The entry of gpuproj_target_derive_yaml(), loaded: a set of one GPU
 * whose `provisional` is GPUPROJ_BASIS_DEVICE and `derived_from` the
 * sibling's name.
 *
 * @param[out] ret the set, owned by the caller (gpuproj_targets_free())
 * @return as gpuproj_target_derive_yaml(); the loader's errors should the
 *         text not load (a defect)
 */
int gpuproj_targets_derive(const struct gpuproj_device_info *d,
			   const struct gpuproj_targets *targets, struct gpuproj_targets **ret,
			   struct gpuproj_error *reterr);

/**
 * gpuproj_resolve_source(); when the profile's GPU is not in `targets` and
 * no `override` is given, the provisional entry of gpuproj_targets_derive()
 * instead (writers mark it: gpuproj_target.provisional).
 *
 * @param[out] ret the source GPU; owned by `targets` or by *ret_derived
 * @param[out] ret_derived the derived set to free after using *ret (with
 *             gpuproj_targets_free()), NULL when the GPU is in `targets`
 * @param[out] reterr optional; when neither works, gpuproj_resolve_source()'s
 *             message followed by "; no provisional entry either: WHY"
 * @return GPUPROJ_OK, GPUPROJ_E_NOTFOUND, GPUPROJ_E_INVAL, GPUPROJ_E_NOMEM
 */
int gpuproj_resolve_source_or_derive(const struct gpuproj_profile *p,
				     const struct gpuproj_targets *targets, const char *override,
				     const struct gpuproj_target **ret,
				     struct gpuproj_targets **ret_derived,
				     struct gpuproj_error *reterr);

/**
 * The citation behind a reference key of the `references:` map.
 * @return the citation or NULL when the key is not defined
 */
const char *gpuproj_targets_reference(const struct gpuproj_targets *targets, const char *key);

/**
 * The reference keys, in file order.
 * @param i index
 * @param[out] ret_text optional citation text
 * @return key, or NULL when i is out of range
 */
const char *gpuproj_targets_reference_at(const struct gpuproj_targets *targets, size_t i,
					 const char **ret_text);

/**
 * The FLOP/s a model should use for one precision and op kind: the
 * sustained `max_gflops` value where present, else the `peak_gflops` one.
 *
 * @param p precision, @param k op kind
 * @param[out] ret_measured optional: true when the `max_gflops` value was
 *             used and its source's basis is `measured`
 * @return GFLOP/s (> 0)
 */
double gpuproj_target_gflops(const struct gpuproj_target *t, enum gpuproj_prec p,
			     enum gpuproj_opkind k, bool *ret_measured);

/**
 * The source of a number: the `sources` entry for `path` or its nearest
 * covering group (e.g. "peak_gflops.fp32_fma" → "peak_gflops").
 * @param path a dotted key path as in targets.yaml
 * @return the entry or NULL when none covers the path
 */
const struct gpuproj_source *gpuproj_target_source(const struct gpuproj_target *t,
						   const char *path);

/**
 * The basis of a number as `t` holds it: its source's basis
 * (gpuproj_target_source()), except GPUPROJ_BASIS_DERIVED for `max_gflops`
 * keys of a copy from gpuproj_target_burst() (burst_share > 0: the rate
 * there blends the sustained and peak rates) or gpuproj_target_scale_fp()
 * (clock_factor > 0), and fp32_dense_gflops's basis for
 * `max_gflops.fp32_fma` of a copy for an FFMA-dense kernel
 * (fp32_loop_gflops > 0; derived when also blended or scaled).
 * @param path a dotted key path as in targets.yaml
 * @return the basis; GPUPROJ_BASIS_NONE when no source covers the path
 */
enum gpuproj_basis gpuproj_target_basis(const struct gpuproj_target *t, const char *path);

/**
 * Check one GPU against the "one basis per level" rules of
 * docs/targets-schema.md, which the repository's targets.yaml follows for
 * every GPU: a projection is a ratio of two GPUs' ceilings, so each must
 * mean the same thing. The loader does not apply them (the fields they
 * need are optional in the schema); `gpuproj targets check --one-basis`
 * and `gpuproj bench` do. The rules, in the order checked:
 *  - boost_clock_mhz, all of lanes_per_sm, stream_gbs.triad,
 *    latency_ns.l2 and latency_ns.dram are present;
 *  - bw_gbs.dram == stream_gbs.triad, with the same basis;
 *  - for FP16, FP32 and FP64: max_gflops.<p>_fma is present, and unless
 *    its source is `measured` or sourced on its own key it is
 *    2 x lanes_per_sm.<p> x sms x clock_mhz / 1000; peak_gflops.<p>_fma is
 *    2 x lanes_per_sm.<p> x sms x boost_clock_mhz / 1000 (both within
 *    0.5 % + 0.1 GFLOP/s: values are rounded in the file);
 *  - clock_mhz = max_gflops.fp32_fma / (2 x lanes_per_sm.fp32 x sms) x 1000
 *    within 0.5 % (the sustained clock under FMA load), except where the
 *    clock_mhz source cites [GPP] (a data set's own clock).
 *
 * @param t the GPU (from a loaded set)
 * @param file file name for the error, or NULL; the error's line is t->line
 * @param[out] reterr optional; the first rule broken, naming the GPU and
 *             the values
 * @return GPUPROJ_OK; GPUPROJ_E_SCHEMA (a rule is broken); GPUPROJ_E_INVAL
 *         (t is NULL)
 */
int gpuproj_target_check_one_basis(const struct gpuproj_target *t, const char *file,
				   struct gpuproj_error *reterr);

/**
 * Write the `gpuproj targets list` table: a comment line naming the count
 * and `origin`, a header, then one row per GPU in file order: name, arch,
 * SMs, clock_mhz (MHz), FP64 and FP32 FMA rates as the models use them
 * (gpuproj_target_gflops(), GFLOP/s), bw_gbs of DRAM, L2, L1 and shared
 * (GB/s) and limits.l2_mib (MiB); a '*' follows each number whose
 * source's basis is `measured`.
 *
 * @param out stream to write
 * @param origin where the set came from, for the comment ("built-in", a path)
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (an argument is NULL); GPUPROJ_E_IO
 *         (the stream reports an error)
 */
int gpuproj_targets_write_list(FILE *out, const struct gpuproj_targets *targets,
			       const char *origin);

/**
 * The `gpuproj targets list` table as JSON: an array with one object per
 * GPU in file order, the table's columns under keys that name their unit:
 * name, arch, sms, clock_mhz (MHz), fp64_fma_gflops and fp32_fma_gflops
 * (GFLOP/s, as gpuproj_target_gflops()), dram_gbs, l2_gbs, l1_gbs and
 * shared_gbs (bw_gbs, GB/s), l2_mib (MiB; null when unknown), and
 * measured: the keys the table marks '*' (their source's basis is
 * `measured`). Numbers with 15 significant digits (the decimal a double
 * holds exactly); one final newline.
 *
 * @param out stream to write
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (an argument is NULL);
 *         GPUPROJ_E_NOMEM; GPUPROJ_E_IO (the stream reports an error)
 */
int gpuproj_targets_write_list_json(FILE *out, const struct gpuproj_targets *targets);

/**
 * The `gpuproj targets list` table as CSV (RFC 4180): a header of the
 * JSON keys (gpuproj_targets_write_list_json()) in that order, then one
 * row per GPU; numbers as the JSON's, an unknown one an empty field;
 * measured lists the measured keys separated by ';'.
 *
 * @param out stream to write
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (an argument is NULL); GPUPROJ_E_IO
 *         (the stream reports an error)
 */
int gpuproj_targets_write_list_csv(FILE *out, const struct gpuproj_targets *targets);

/**
 * Write the `gpuproj targets show NAME` text: the GPU's name, description,
 * vendor, arch, chip and match strings, then one row per number present
 * (field path as in targets.yaml, value, unit, its `sources` text; ADD/MUL
 * rates not in the file are shown as FMA / 2, derived; unknown price and
 * TDP as "unknown"), then the references its sources cite.
 *
 * @param out stream to write
 * @param targets the set `t` belongs to (for the references)
 * @param t the GPU (gpuproj_targets_lookup())
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (an argument is NULL); GPUPROJ_E_IO
 *         (the stream reports an error)
 */
int gpuproj_target_write_show(FILE *out, const struct gpuproj_targets *targets,
			      const struct gpuproj_target *t);

/**
 * The tensor-core rate a model should use for one input precision: the
 * measured `max_tensor` value where present, else `peak_tensor`.
 *
 * @param p precision (enum gpuproj_tensor_prec)
 * @param[out] ret_measured optional: true when `max_tensor` was used and its
 *             source's basis is `measured`
 * @return GFLOP/s (INT8: GOP/s) > 0; 0 when the GPU has no such path (null
 *         in the file); NaN when the file does not say (unknown), or `p` is
 *         out of the enum
 */
double gpuproj_target_tensor_gflops(const struct gpuproj_target *t, enum gpuproj_tensor_prec p,
				    bool *ret_measured);

/**
 * The GPU's FP ceilings for a kernel of duration `duration_ns` in the
 * burst regime (GPUPROJ_CLOCK_BURST, model.h enum gpuproj_clock): `*out`
 * = `*g` with every max_gflops[p][k] that is below peak_gflops[p][k]
 * raised to max + (peak − max) · min(1, τ/T), τ = g->boost_hold_us ·
 * 1000 ns.
 * out->burst_share = min(1, τ/T) (0 when nothing applies), so that the
 * blended rates are reported as derived.
 * @param g the GPU (targets.yaml entry)
 * @param duration_ns T, ns
 * @param[out] out the adjusted copy (pointers shared with `g`)
 * @return the factor by which the FP32 FMA ceiling rose, for notes (1 when
 *         it did not: no boost_hold_us, T not > 0 or not finite, no FP32
 *         sustained rate below the peak — other precisions may still have
 *         changed)
 */
double gpuproj_target_burst(const struct gpuproj_target *g, double duration_ns,
			    struct gpuproj_target *out);

/**
 * A GPU with its datasheet ceilings (GPUPROJ_RATES_DATASHEET, model.h enum
 * gpuproj_rates): `*out` =
 * `*g` with bw_gbs.dram = peak_bw_gbs.dram where that is given (> 0), and
 * every max_gflops and max_tensor rate cleared (NaN), so that
 * gpuproj_target_gflops() and gpuproj_target_tensor_gflops() fall back to
 * the peaks; with no sustained rate left, the burst regime changes nothing.
 * @param g the GPU (targets.yaml entry)
 * @param[out] out the copy (pointers shared with `g`)
 */
void gpuproj_target_datasheet(const struct gpuproj_target *g, struct gpuproj_target *out);

/**
 * A GPU's FP ceilings at another SM clock (GPUPROJ_CLOCK_AUTO, model.h
 * enum gpuproj_clock): `*out` = `*g` with every max_gflops[p][k] (and
 * fp32_loop_gflops) × `factor`, out->clock_factor = factor (rates reported
 * as derived). A factor that is not positive and finite leaves the copy
 * unchanged (clock_factor 0).
 * @param g the GPU (targets.yaml entry)
 * @param factor the clock ratio, e.g. sustained_clock_mhz / clock_mhz
 * @param[out] out the scaled copy (pointers shared with `g`)
 */
void gpuproj_target_scale_fp(const struct gpuproj_target *g, double factor,
			     struct gpuproj_target *out);

/**
 * The architecture generation of a GPU, from its `arch`, by the
 * architecture table of src/target-chips.c: NVIDIA sm_XY by compute
 * capability X.Y ("Kepler" … "Blackwell"; a major such as sm_3x or sm_12x
 * by its row for every minor), AMD gfx targets exactly ("CDNA1" …
 * "CDNA4"). What `gpuproj validate` splits same- from cross-generation
 * pairs by (validate.h).
 *
 * @return the name (static), or NULL for an arch the table lacks or a
 *         NULL target
 */
const char *gpuproj_target_generation(const struct gpuproj_target *t);

/**
 * @return the precision's name ("fp16", "fp16_acc16", "bf16", "tf32",
 *         "fp8", "fp4", "int8", "fp64"), or NULL when out of the enum
 */
const char *gpuproj_tensor_prec_name(enum gpuproj_tensor_prec p);
/**
 * @return its targets.yaml key in `peak_tensor`/`max_tensor`
 *         ("fp16_gflops", ..., "int8_gops"), or NULL when out of the enum
 */
const char *gpuproj_tensor_prec_key(enum gpuproj_tensor_prec p);

/** @return the YAML key of a level ("l1", "l2", "dram", "shared") */
const char *gpuproj_level_name(enum gpuproj_level level);
/** @return the YAML prefix of a precision ("fp16", "fp32", "fp64") */
const char *gpuproj_prec_name(enum gpuproj_prec p);
/** @return the YAML key of a lane ("fp16", "fp32", "fp64", "int32", "fp32_int32_shared") */
const char *gpuproj_lane_name(enum gpuproj_lane lane);
/** @return the YAML key of a STREAM kernel ("read", "copy", "triad") */
const char *gpuproj_stream_name(enum gpuproj_stream k);
/** @return "stream", "graph" (the keys of `launch_floor_us`), or "?" */
const char *gpuproj_launch_mode_name(enum gpuproj_launch_mode m);
/** @return "measured", "datasheet", "derived", "estimate" or "none" */
const char *gpuproj_basis_name(enum gpuproj_basis b);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_TARGET_H */
