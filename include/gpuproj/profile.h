/* SPDX-License-Identifier: MIT */
/**
 * @file profile.h
 * Kernel records aggregated per signature, and the `gpuproj-profile/1`
 * JSON format (docs/internals/DESIGN.md §3, docs/formats/profile.md).
 *
 * A kernel signature is (mangled name, grid, block, dynamic shared bytes,
 * device ordinal, tag). Every launch of one signature folds into one
 * struct gpuproj_kernel: a launch count, duration statistics over the timed
 * launches, and per-launch means of the logical metrics measured on the
 * profiled launches. Memory is therefore bounded by the number of distinct
 * signatures, not launches.
 *
 * Thread safety: a profile is not internally locked; callers serialise
 * writers (the injection library holds its own lock). Reading a profile
 * that no thread modifies is safe from any number of threads.
 */
#ifndef GPUPROJ_PROFILE_H
#define GPUPROJ_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Schema string of the profile JSON this library reads and writes. */
#define GPUPROJ_PROFILE_SCHEMA "gpuproj-profile/1"

/**
 * Logical metrics (docs/internals/DESIGN.md §3). Each is a per-launch value; the JSON
 * name is given by gpuproj_metric_name(). Only ever append.
 *
 * "thread-level" = executed by non-predicated threads (NVIDIA
 * `smsp__sass_thread_inst_executed_op_*_pred_on.sum`, nvprof `flop_count_*`).
 */
enum gpuproj_metric {
	GPUPROJ_M_INST_FP16_FMA = 0, /**< "inst.fp16.fma": thread-level HFMA, count */
	GPUPROJ_M_INST_FP16_ADD,     /**< "inst.fp16.add", count */
	GPUPROJ_M_INST_FP16_MUL,     /**< "inst.fp16.mul", count */
	GPUPROJ_M_INST_FP32_FMA,     /**< "inst.fp32.fma": thread-level FFMA, count */
	GPUPROJ_M_INST_FP32_ADD,     /**< "inst.fp32.add", count */
	GPUPROJ_M_INST_FP32_MUL,     /**< "inst.fp32.mul", count */
	GPUPROJ_M_INST_FP64_FMA,     /**< "inst.fp64.fma": thread-level DFMA, count */
	GPUPROJ_M_INST_FP64_ADD,     /**< "inst.fp64.add", count */
	GPUPROJ_M_INST_FP64_MUL,     /**< "inst.fp64.mul", count */
	GPUPROJ_M_INST_FP16,         /**< "inst.fp16": all thread-level FP16 instructions, count */
	GPUPROJ_M_INST_FP32,         /**< "inst.fp32": all thread-level FP32 instructions (nvprof inst_fp_32), count */
	GPUPROJ_M_INST_FP64,         /**< "inst.fp64": all thread-level FP64 instructions (nvprof inst_fp_64), count */
	GPUPROJ_M_INST_INT,          /**< "inst.int": thread-level integer instructions, count */
	GPUPROJ_M_INST_LDST,         /**< "inst.ldst": thread-level load/store instructions, count */
	GPUPROJ_M_INST_OTHER,        /**< "inst.other": other thread-level instructions, count */
	GPUPROJ_M_INST_WARP,         /**< "inst.warp": executed warp instructions, count */
	GPUPROJ_M_INST_THREAD,       /**< "inst.thread": executed thread instructions, count */
	GPUPROJ_M_WARP_EFFICIENCY,   /**< "warp_efficiency": mean active threads per warp instruction / warp size, 0..1 */
	GPUPROJ_M_BYTES_L1,          /**< "bytes.l1": bytes through L1/TEX (`l1tex__t_bytes.sum`), B */
	GPUPROJ_M_BYTES_L2,          /**< "bytes.l2": bytes through L2 (`lts__t_bytes.sum`), B */
	GPUPROJ_M_BYTES_DRAM,        /**< "bytes.dram": DRAM bytes (`dram__bytes.sum`), B */
	GPUPROJ_M_BYTES_DRAM_READ,   /**< "bytes.dram_read", B */
	GPUPROJ_M_BYTES_DRAM_WRITE,  /**< "bytes.dram_write", B */
	GPUPROJ_M_SHARED_BYTES,      /**< "shared.bytes": shared-memory bytes accessed, B */
	GPUPROJ_M_SHARED_WAVEFRONTS, /**< "shared.wavefronts": shared-memory wavefronts (cycles of the 128 B/clk pipe), count */
	GPUPROJ_M_SHARED_BANK_CONFLICTS, /**< "shared.bank_conflicts", count */
	GPUPROJ_M_SECTORS_L1,        /**< "sectors.l1": 32 B L1 transactions, count */
	GPUPROJ_M_SECTORS_L2,        /**< "sectors.l2": 32 B L2 transactions, count */
	GPUPROJ_M_SECTORS_DRAM,      /**< "sectors.dram": 32 B DRAM transactions, count */
	GPUPROJ_M_OCCUPANCY_ACHIEVED, /**< "occupancy.achieved": achieved warps / max warps, 0..1 */
	GPUPROJ_M_CYCLES_SM_ACTIVE,  /**< "cycles.sm_active": mean SM active cycles, cycles */
	GPUPROJ_M_CLOCK_SM,          /**< "clock.sm": SM clock during the launch, Hz */
	/*
	 * Tensor cores (docs/formats/profile.md "Tensor work"): FLOP (2 per
	 * multiply-add; integer: operations) per input precision, from the
	 * `sm__ops_path_tensor_src_*` counters, or from tensor instruction
	 * counts times an instruction shape (imports; marked assumed). Dense
	 * work: structured-sparse MMAs count the work the pipe executed.
	 */
	GPUPROJ_M_FLOP_TENSOR_FP16,  /**< "flop.tensor.fp16": FP16 inputs, FP32 accumulate (or unsplit), FLOP */
	GPUPROJ_M_FLOP_TENSOR_FP16_ACC16, /**< "flop.tensor.fp16_acc16": FP16 inputs, FP16 accumulate, FLOP */
	GPUPROJ_M_FLOP_TENSOR_BF16,  /**< "flop.tensor.bf16": BF16 inputs, FLOP */
	GPUPROJ_M_FLOP_TENSOR_TF32,  /**< "flop.tensor.tf32": TF32 inputs, FLOP */
	GPUPROJ_M_FLOP_TENSOR_FP8,   /**< "flop.tensor.fp8": FP8 inputs (E4M3/E5M2), FLOP */
	GPUPROJ_M_FLOP_TENSOR_FP4,   /**< "flop.tensor.fp4": FP4 and FP6 inputs (the counters do not split them), FLOP */
	GPUPROJ_M_FLOP_TENSOR_INT8,  /**< "flop.tensor.int8": INT8 inputs, integer operations */
	GPUPROJ_M_FLOP_TENSOR_FP64,  /**< "flop.tensor.fp64": FP64 inputs (DMMA), FLOP */
	GPUPROJ_M_INST_TENSOR,       /**< "inst.tensor": warp instructions of the tensor pipe, count */
	GPUPROJ_M_TENSOR_UTILIZATION, /**< "tensor.utilization": tensor-pipe active cycles / SM active cycles, 0..1 */
	GPUPROJ_M_COUNT
};

/**
 * Ranges of the numbers a profile holds (docs/formats/profile.md "Ranges"):
 * chosen so that no real measurement approaches them and every product the
 * tools form (per-launch value × launches, Σ over kernels, squared spreads)
 * stays finite. gpuproj_profile_validate() enforces them; values outside
 * never enter a profile through the gpuproj_kernel_add_*() functions.
 */
/** Largest per-launch duration, and reference time, ns (about 31.7 years). */
#define GPUPROJ_MAX_NS 1e18
/** Largest run-level time (wall_ns, gpu_ns, per-rank totals), ns: ≥ GPUPROJ_MAX_NS × INT64_MAX. */
#define GPUPROJ_MAX_TOTAL_NS 1e37
/** Largest per-launch value of a count, byte or cycle metric. */
#define GPUPROJ_MAX_METRIC 1e18
/** Largest SM clock (device clock_hz, metric clock.sm), Hz: 10 GHz. */
#define GPUPROJ_MAX_CLOCK_HZ 1e10
/** Largest magnitude of an extra (tool-specific) metric's per-launch value. */
#define GPUPROJ_MAX_EXTRA 1e200
/** Largest SM (CU) count of a device: the targets.yaml limit too. */
#define GPUPROJ_MAX_SMS 4096
/** Largest peak device memory of a run (run.peak_device_memory_bytes), bytes: 2⁵³ (8 PiB). */
#define GPUPROJ_MAX_MEMORY_BYTES 9007199254740992.0

/**
 * The range [lo, hi] a metric's per-launch value must lie in: [0, 1] for
 * ratios (warp_efficiency, occupancy.achieved), [0, GPUPROJ_MAX_CLOCK_HZ]
 * for clock.sm, [0, GPUPROJ_MAX_METRIC] for counts, bytes and cycles.
 * @return GPUPROJ_OK, or GPUPROJ_E_INVAL when `m` is out of the enum
 */
int gpuproj_metric_range(enum gpuproj_metric m, double *ret_lo, double *ret_hi);

/** @return the JSON name of a metric ("inst.fp32.fma"), or NULL if out of range */
const char *gpuproj_metric_name(enum gpuproj_metric m);
/** @return the unit of a metric ("count", "B", "ratio", "cycles", "Hz") */
const char *gpuproj_metric_unit(enum gpuproj_metric m);
/** @return a one-line description of a metric */
const char *gpuproj_metric_description(enum gpuproj_metric m);
/**
 * Look up a metric by JSON name.
 * @param[out] ret the metric
 * @return GPUPROJ_OK or GPUPROJ_E_NOTFOUND
 */
int gpuproj_metric_from_name(const char *name, enum gpuproj_metric *ret);

/** Launch dimensions. */
struct gpuproj_dim3 {
	uint32_t x, y, z;
};

/** Running statistics of a sample (Welford); all values in the sample's unit. */
struct gpuproj_stats {
	uint64_t n;       /**< sample size */
	double sum;       /**< sum of samples */
	double min, max;  /**< extremes (0 when n == 0) */
	double mean;      /**< mean (0 when n == 0) */
	double m2;        /**< sum of squared deviations from the mean */
};

/** Add one sample. */
void gpuproj_stats_add(struct gpuproj_stats *s, double x);
/** Merge b into a (parallel Welford; exact for n, sum, min, max, mean). */
void gpuproj_stats_merge(struct gpuproj_stats *a, const struct gpuproj_stats *b);
/** @return the sample standard deviation, 0 when n < 2 */
double gpuproj_stats_stddev(const struct gpuproj_stats *s);

/**
 * How a signature's time spreads over the ranks of a merged job profile
 * (`gpuproj merge`, include/gpuproj/merge.h). Zeroed (time_ns.n == 0) in
 * profiles that were not merged.
 */
struct gpuproj_rank_stats {
	/**
	 * Per-rank total time, ns: one sample per merged rank (mean × launches
	 * on that rank); ranks that never launched the signature count as 0 ns,
	 * so time_ns.n is the number of ranks merged.
	 */
	struct gpuproj_stats time_ns;
	uint64_t present;  /**< ranks that launched the signature (≤ time_ns.n) */
};

/** A metric the importer or collector does not know, kept as measured. */
struct gpuproj_extra_metric {
	char *name;   /**< tool's metric name, e.g. "sm__throughput.avg.pct_of_peak_sustained_elapsed" */
	char *unit;   /**< tool's unit string ("%", "byte", ""), never NULL */
	double sum;   /**< sum over the launches that reported it */
	uint64_t n;   /**< number of launches that reported it */
};

/** A duration measured for the same kernel configuration on another GPU. */
struct gpuproj_reference {
	char *gpu;        /**< targets.yaml name of that GPU */
	double mean_ns;   /**< mean duration per launch, ns */
	uint64_t launches; /**< launches averaged */
};

/**
 * The most registers per thread any input may give (a profile's
 * `regs_per_thread`, the ncu and nvprof imports, targets.yaml's
 * `limits.regs_per_thread`): the 65,536 32-bit registers of one SM's
 * register file on every NVIDIA architecture since Kepler (CUDA C++
 * Programming Guide, "Features and Technical Specifications"), which no
 * thread can exceed; the architectures' real limit per thread is 255.
 */
#define GPUPROJ_MAX_REGS_PER_THREAD 65536

/**
 * One kernel signature and everything measured for it.
 * Owned by its profile; strings are NUL-terminated and owned too.
 */
struct gpuproj_kernel {
	char *name;                 /**< mangled name */
	char *demangled;            /**< demangled name or NULL; may be `name` itself */
	char *tag;                  /**< extra signature part (importers: input size), "" when none */
	struct gpuproj_dim3 grid;   /**< grid dimensions, blocks */
	struct gpuproj_dim3 block;  /**< block dimensions, threads */
	uint32_t smem_dynamic;      /**< dynamic shared memory per block, B */
	uint32_t smem_static;       /**< static shared memory per block, B */
	uint32_t regs_per_thread;   /**< registers per thread (0 = unknown) */
	int device;                 /**< device ordinal */
	uint64_t launches;          /**< every launch seen (timed, profiled or both) */
	uint64_t profiled;          /**< launches whose metrics were collected */
	/**
	 * Launches that ran as kernel nodes of a CUDA graph (cudaGraphLaunch),
	 * the others on a stream; meaningful only when launch_mode_known
	 * (libproj.so records it; importers do not know it).
	 */
	uint64_t graph_launches;
	bool launch_mode_known;     /**< graph_launches was recorded */
	struct gpuproj_stats duration_ns; /**< durations of timed launches, ns */
	double metric_sum[GPUPROJ_M_COUNT]; /**< sum over profiled launches */
	uint32_t metric_n[GPUPROJ_M_COUNT]; /**< launches that reported each metric; 0 = not collected */
	struct gpuproj_extra_metric *extra; /**< metrics kept by name */
	size_t n_extra;
	struct gpuproj_reference *refs;     /**< measured durations on other GPUs */
	size_t n_refs;
	/** Merged profiles: per-rank total time of this signature (JSON "ranks"). */
	struct gpuproj_rank_stats ranks;
};

/**
 * The tag of a signature whose launch geometry the source did not record
 * (an Nsight Compute export without "Grid Size"/"Block Size" columns,
 * LaunchStats or launch__* metrics; an nvprof --metrics export without a
 * trace). Its grid and block are placeholders (1, 1, 1), and every launch of
 * one kernel name folds into it. Models that need the geometry (occupancy,
 * hroof-occ) report it missing rather than read the placeholders.
 */
#define GPUPROJ_TAG_NO_GEOMETRY "launch geometry unknown"

/**
 * @return false when the kernel's signature is tagged GPUPROJ_TAG_NO_GEOMETRY
 *         (grid and block are placeholders), else true
 */
bool gpuproj_kernel_geometry_known(const struct gpuproj_kernel *k);

/** @return true when the kernel has a value for metric m */
bool gpuproj_kernel_has(const struct gpuproj_kernel *k, enum gpuproj_metric m);
/** @return the per-launch mean of metric m, or NaN when not collected */
double gpuproj_kernel_metric(const struct gpuproj_kernel *k, enum gpuproj_metric m);
/**
 * Mean duration per launch, ns: the mean over timed launches.
 * @return ns, or NaN when no launch was timed
 */
double gpuproj_kernel_mean_ns(const struct gpuproj_kernel *k);
/**
 * Total time of the signature on the source, ns: mean × launches (profiled
 * launches, which run under replay, are counted at the mean of the others).
 * @return ns, or NaN when no launch was timed
 */
double gpuproj_kernel_total_ns(const struct gpuproj_kernel *k);
/**
 * FLOP per launch, [VanLanker2024] eq. 2 numerator / docs/internals/DESIGN.md §3:
 * Σ_p (2·fma_p + add_p + mul_p) over the precisions collected.
 * @param[out] ret_flop FLOP per launch
 * @return GPUPROJ_OK; GPUPROJ_E_MISSING when none of the nine
 *         inst.fp*.{fma,add,mul} metrics was collected
 */
int gpuproj_kernel_flop(const struct gpuproj_kernel *k, double *ret_flop);
/**
 * Add one timed launch of `ns` nanoseconds (also counts the launch). A
 * duration that is not a number in [0, GPUPROJ_MAX_NS] counts the launch
 * but is left out of the statistics.
 * @return GPUPROJ_OK, or GPUPROJ_E_INVAL when the duration was left out
 */
int gpuproj_kernel_add_duration(struct gpuproj_kernel *k, double ns);
/**
 * Add one metric value of a profiled launch, in the metric's unit
 * (gpuproj_metric_unit()). A value outside gpuproj_metric_range() (NaN and
 * infinities included) or `m` out of the enum is refused: the metric stays
 * as it was, and the caller says so (with the input's position).
 * @return GPUPROJ_OK, or GPUPROJ_E_INVAL when the value was refused
 */
int gpuproj_kernel_add_metric(struct gpuproj_kernel *k, enum gpuproj_metric m, double value);
/**
 * Add a value of a metric kept by name (`name` and `unit` are copied; a
 * NULL unit is stored as ""). Values of one name are summed; the JSON
 * shows their mean.
 * @return GPUPROJ_OK or GPUPROJ_E_NOMEM
 */
int gpuproj_kernel_add_extra(struct gpuproj_kernel *k, const char *name, const char *unit,
			     double value);
/**
 * Record a measured mean duration on another GPU (replaces an earlier one).
 * @return GPUPROJ_OK or GPUPROJ_E_NOMEM
 */
int gpuproj_kernel_set_reference(struct gpuproj_kernel *k, const char *gpu, double mean_ns,
				 uint64_t launches);
/** @return the reference for a GPU name (case-insensitive) or NULL */
const struct gpuproj_reference *gpuproj_kernel_reference(const struct gpuproj_kernel *k,
							 const char *gpu);

/** What a profile was taken on. Strings owned by the profile. */
/**
 * What the CUDA driver (and NVML) report about the source device, beyond
 * name, CC, SMs and clock: JSON `device.driver` (docs/formats/profile.md).
 * libproj.so reads them when a context is created (cuDeviceGetAttribute,
 * cuDeviceTotalMem, NVML's enforced power limit); a GPU that targets.yaml
 * does not list is projected from an entry derived from them
 * (gpuproj_targets_derive(), target.h).
 */
enum gpuproj_driver_attr {
	GPUPROJ_DRV_MEMORY_CLOCK_KHZ = 0,   /**< CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, kHz */
	GPUPROJ_DRV_MEMORY_BUS_BITS,        /**< CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, bits */
	GPUPROJ_DRV_MEMORY_BYTES,           /**< cuDeviceTotalMem, bytes */
	GPUPROJ_DRV_L2_BYTES,               /**< CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, bytes */
	GPUPROJ_DRV_THREADS_PER_SM,         /**< ..._MAX_THREADS_PER_MULTIPROCESSOR */
	GPUPROJ_DRV_THREADS_PER_BLOCK,      /**< ..._MAX_THREADS_PER_BLOCK */
	GPUPROJ_DRV_BLOCKS_PER_SM,          /**< ..._MAX_BLOCKS_PER_MULTIPROCESSOR */
	GPUPROJ_DRV_REGS_PER_SM,            /**< ..._MAX_REGISTERS_PER_MULTIPROCESSOR, 32-bit */
	GPUPROJ_DRV_REGS_PER_BLOCK,         /**< ..._MAX_REGISTERS_PER_BLOCK, 32-bit */
	GPUPROJ_DRV_SMEM_PER_SM_BYTES,      /**< ..._MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, bytes */
	GPUPROJ_DRV_SMEM_PER_BLOCK_OPTIN_BYTES, /**< ..._MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, bytes */
	GPUPROJ_DRV_SMEM_RESERVED_PER_BLOCK_BYTES, /**< ..._RESERVED_SHARED_MEMORY_PER_BLOCK, bytes */
	GPUPROJ_DRV_WARP_SIZE,              /**< CU_DEVICE_ATTRIBUTE_WARP_SIZE, threads */
	GPUPROJ_DRV_POWER_LIMIT_W,          /**< nvmlDeviceGetEnforcedPowerLimit, W */
	GPUPROJ_DRV_COUNT
};

/**
 * @return the JSON key of a driver attribute ("memory_clock_khz"), or NULL
 *         when `a` is out of the enum
 */
const char *gpuproj_driver_attr_name(enum gpuproj_driver_attr a);
/**
 * The largest value a driver attribute may take (values lie in (0, max];
 * integers for every attribute but the power limit).
 * @return the limit, or NaN when `a` is out of the enum
 */
double gpuproj_driver_attr_max(enum gpuproj_driver_attr a);

/**
 * NVML's clocks event reasons (nvml.h, `nvmlClocksEventReason*`, the
 * bits of nvmlDeviceGetCurrentClocksEventReasons(); formerly
 * `nvmlClocksThrottleReason*`): why the SM clock is below its maximum.
 */
enum gpuproj_clock_reason {
	GPUPROJ_CLK_GPU_IDLE = 0x1,                /**< nvmlClocksEventReasonGpuIdle */
	GPUPROJ_CLK_APPLICATIONS_CLOCKS = 0x2,     /**< ...ApplicationsClocksSetting */
	GPUPROJ_CLK_SW_POWER_CAP = 0x4,            /**< ...SwPowerCap */
	GPUPROJ_CLK_HW_SLOWDOWN = 0x8,             /**< ...HwSlowdown */
	GPUPROJ_CLK_SYNC_BOOST = 0x10,             /**< ...SyncBoost */
	GPUPROJ_CLK_SW_THERMAL = 0x20,             /**< ...SwThermalSlowdown */
	GPUPROJ_CLK_HW_THERMAL = 0x40,             /**< ...HwThermalSlowdown */
	GPUPROJ_CLK_HW_POWER_BRAKE = 0x80,         /**< ...HwPowerBrakeSlowdown */
	GPUPROJ_CLK_DISPLAY_CLOCKS = 0x100,        /**< ...DisplayClockSetting */
};
/** Every bit of enum gpuproj_clock_reason. */
#define GPUPROJ_CLK_KNOWN 0x1ffull
/** The reasons that mean a power or thermal limit holds the clock down. */
#define GPUPROJ_CLK_CAPPED                                                                       \
	(GPUPROJ_CLK_SW_POWER_CAP | GPUPROJ_CLK_HW_SLOWDOWN | GPUPROJ_CLK_SW_THERMAL |             \
	 GPUPROJ_CLK_HW_THERMAL | GPUPROJ_CLK_HW_POWER_BRAKE)

/**
 * @return the profile's name of one reason bit ("sw_power_cap",
 *         docs/formats/profile.md), or NULL for a bit that is none of
 *         enum gpuproj_clock_reason (or not exactly one bit)
 */
const char *gpuproj_clock_reason_name(unsigned long long bit);

/**
 * The source GPU's SM clock as NVML reported it while the run's kernels
 * ran (libproj.so samples it from its worker thread, every 100 ms in which
 * a kernel completed; `device.sm_clock` in the profile). samples = 0: not
 * sampled (imports, NVML not available); then every other field is 0.
 */
struct gpuproj_sm_clock {
	uint64_t samples;          /**< samples taken, 0..2^53 */
	double mean_mhz;           /**< mean SM clock over the samples, MHz (0, 10^4] */
	double min_mhz, max_mhz;   /**< smallest and largest sample, MHz */
	/** OR of the enum gpuproj_clock_reason bits seen in any sample */
	unsigned long long reasons;
	/** samples with a GPUPROJ_CLK_CAPPED reason (≤ samples) */
	uint64_t capped_samples;
};

/*
 * The ranges of a device's fields (docs/formats/profile.md "device"), as
 * gpuproj_profile_validate() holds a profile to them: a front end that
 * takes a value from a driver checks it here and keeps an absurd one
 * unknown rather than lose the profile at the writer.
 */
/** @return whether (major, minor) is 0.0 (unknown) or a compute capability 1.0 to 99.9 */
bool gpuproj_device_cc_ok(int major, int minor);
/** @return whether `sms` is 0 (unknown) or 1 to GPUPROJ_MAX_SMS */
bool gpuproj_device_sms_ok(int sms);
/** @return whether `hz` is NaN (unknown) or in (0, GPUPROJ_MAX_CLOCK_HZ] */
bool gpuproj_device_clock_ok(double hz);
/**
 * @return whether `v` is NaN (not reported) or in (0, gpuproj_driver_attr_max(a)], an
 *         integer where the attribute is one; false for `a` out of the enum
 */
bool gpuproj_driver_attr_ok(enum gpuproj_driver_attr a, double v);

struct gpuproj_device_info {
	char *name;          /**< device name as reported ("NVIDIA H100 PCIe"), or NULL */
	char *target;        /**< targets.yaml name, when the producer knew it, or NULL */
	char *chip;          /**< "GH100", or NULL */
	int cc_major, cc_minor; /**< compute capability, 0.0 when unknown */
	int sms;             /**< 0 when unknown */
	double clock_hz;     /**< SM clock, Hz, NaN when unknown */
	/** Driver attributes by enum gpuproj_driver_attr, in its units; NaN = not reported. */
	double driver[GPUPROJ_DRV_COUNT];
	/** NVML's SM clock during the run (samples = 0: not sampled). */
	struct gpuproj_sm_clock sm_clock;
};

/** The process a profile describes. Strings owned by the profile. */
struct gpuproj_process_info {
	char *application;   /**< executable or application name, or NULL */
	char *host;          /**< host name, or NULL */
	int64_t pid;         /**< -1 when unknown */
	int64_t rank;        /**< MPI rank, -1 when none */
	char **argv;         /**< command line, NULL-terminated, or NULL */
};

/** A set of kernel records plus run context (opaque). */
struct gpuproj_profile;

/** Signature fields for lookup (all borrowed). */
struct gpuproj_signature {
	const char *name;          /**< mangled name, required */
	const char *tag;           /**< NULL or "" for none */
	struct gpuproj_dim3 grid;
	struct gpuproj_dim3 block;
	uint32_t smem_dynamic;
	int device;
};

/**
 * Create an empty profile.
 * @return the profile (free with gpuproj_profile_free()) or NULL on ENOMEM
 */
struct gpuproj_profile *gpuproj_profile_new(void);
/** Free a profile and everything in it; accepts NULL; returns NULL. */
struct gpuproj_profile *gpuproj_profile_free(struct gpuproj_profile *p);

/**
 * The record for a signature, created (zeroed, launches = 0) when new.
 * Lookup is O(1) expected (hash of all signature fields).
 * @param[out] ret the record, owned by the profile; valid until the
 *             profile is freed (records never move)
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (NULL name), GPUPROJ_E_NOMEM
 */
int gpuproj_profile_kernel(struct gpuproj_profile *p, const struct gpuproj_signature *sig,
			   struct gpuproj_kernel **ret);
/** @return the record for a signature, or NULL */
struct gpuproj_kernel *gpuproj_profile_find(const struct gpuproj_profile *p,
					    const struct gpuproj_signature *sig);
/** @return the number of kernel signatures */
size_t gpuproj_profile_count(const struct gpuproj_profile *p);
/** @return the i-th record in insertion order, or NULL when out of range */
struct gpuproj_kernel *gpuproj_profile_at(const struct gpuproj_profile *p, size_t i);

/** @return the device description (modifiable through the setters below) */
const struct gpuproj_device_info *gpuproj_profile_device(const struct gpuproj_profile *p);
/** @return the process description */
const struct gpuproj_process_info *gpuproj_profile_process(const struct gpuproj_profile *p);

/**
 * Set the source device. NULL strings leave a field unset; values are copied.
 * @return GPUPROJ_OK or GPUPROJ_E_NOMEM
 */
int gpuproj_profile_set_device(struct gpuproj_profile *p, const char *name, const char *target,
			       const char *chip, int cc_major, int cc_minor, int sms,
			       double clock_hz);
/**
 * Copy a whole device description (another profile's), driver attributes
 * included. Strings are copied.
 * @return GPUPROJ_OK, GPUPROJ_E_NOMEM, GPUPROJ_E_INVAL (NULL argument)
 */
int gpuproj_profile_set_device_info(struct gpuproj_profile *p, const struct gpuproj_device_info *d);

/**
 * Set one driver attribute of the source device (NaN: not reported).
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (`a` out of the enum, or a value that
 *         is not NaN and outside (0, gpuproj_driver_attr_max(a)] or not an
 *         integer where the attribute is one)
 */
int gpuproj_profile_set_driver_attr(struct gpuproj_profile *p, enum gpuproj_driver_attr a,
				    double v);

/**
 * Set the source device's NVML clock record (device.sm_clock).
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL; samples above 2^53; a reason
 *         bit that is none of enum gpuproj_clock_reason; with samples > 0, a
 *         clock outside (0, 10^4] MHz, min > mean or mean > max,
 *         capped_samples > samples; with samples = 0, anything else set)
 */
int gpuproj_profile_set_sm_clock(struct gpuproj_profile *p, const struct gpuproj_sm_clock *c);

/**
 * Set the process description; argv may be NULL. Values are copied.
 * @return GPUPROJ_OK or GPUPROJ_E_NOMEM
 */
int gpuproj_profile_set_process(struct gpuproj_profile *p, const char *application,
				const char *host, int64_t pid, int64_t rank,
				const char *const *argv);

/**
 * Free-form string attributes: "origin" (injection, ncu-import,
 * gpuperfpredict), "citation" (where published measurements came from),
 * "created" (ISO 8601 UTC), "tool_version", the GPUPROJ_* environment
 * echoed as "env.GPUPROJ_…", and from the NeuSight importer
 * "call_overhead_ns" (ns, decimal), "call_overhead_basis" and "durations"
 * (what the durations are; gpuproj_import_neusight()). Values are copied;
 * NULL removes. Keys must
 * be non-empty valid UTF-8 (they are JSON keys); values may be any bytes
 * (the JSON keeps the exact bytes, docs/formats/profile.md).
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (a key that is empty or not UTF-8),
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_profile_set_attr(struct gpuproj_profile *p, const char *key, const char *value);
/** @return an attribute value or NULL */
const char *gpuproj_profile_attr(const struct gpuproj_profile *p, const char *key);
/** @return the i-th attribute key (insertion order) or NULL; value via ret_value */
const char *gpuproj_profile_attr_at(const struct gpuproj_profile *p, size_t i,
				    const char **ret_value);

/** Whole-run numbers of a profile. */
struct gpuproj_run_info {
	double wall_ns;          /**< process wall time, ns, NaN when unknown */
	double gpu_ns;           /**< Σ kernel durations, ns, NaN when unknown */
	uint64_t dropped_records; /**< activity records CUPTI dropped */
	/**
	 * The most device memory the application had allocated at once on the
	 * profile's GPU, bytes (libproj.so: from the allocation callbacks,
	 * docs/libproj.md "Peak device memory"); NaN when unknown (imports,
	 * older profiles, more live allocations than libproj.so tracks). An
	 * integer in [0, GPUPROJ_MAX_MEMORY_BYTES].
	 */
	double peak_device_memory_bytes;
	/**
	 * Merged profiles: per-rank Σ kernel time (JSON "run.ranks"); present
	 * counts ranks with any timed kernel. Zeroed otherwise.
	 */
	struct gpuproj_rank_stats ranks;
};
/** @return the run info (modifiable via gpuproj_profile_run_info_mut()) */
const struct gpuproj_run_info *gpuproj_profile_run_info(const struct gpuproj_profile *p);
/** @return the run info for modification */
struct gpuproj_run_info *gpuproj_profile_run_info_mut(struct gpuproj_profile *p);

/**
 * Σ over kernels of gpuproj_kernel_total_ns(), ns (kernels without timing
 * are skipped).
 */
double gpuproj_profile_kernel_time_ns(const struct gpuproj_profile *p);

/**
 * Sort records by total time, longest first (ties by name). Invalidates
 * indices, not record pointers.
 */
void gpuproj_profile_sort_by_time(struct gpuproj_profile *p);


/**
 * Check every number of a profile against its documented range (the
 * GPUPROJ_MAX_* limits above, gpuproj_metric_range(), compute capability
 * 1.0–99.9 or unknown, pid and rank -1 or ≥ 0, min ≤ max, counts that fit
 * the JSON) and that every kernel has a name. gpuproj_profile_save() and
 * the loaders call it, so every profile gpuproj writes loads back.
 *
 * @param name file name for the error (NULL: none)
 * @param[out] reterr optional; the JSON path of the first value out of
 *             range ("kernels[3].duration_ns.mean"), the value and the range
 * @return GPUPROJ_OK or GPUPROJ_E_SCHEMA
 */
int gpuproj_profile_validate(const struct gpuproj_profile *p, const char *name,
			     struct gpuproj_error *reterr);

/**
 * Read a `gpuproj-profile/1` JSON file. Stored projections are ignored
 * (they are recomputed from the kernels and the targets in use); unknown
 * keys are ignored so later minor additions stay readable.
 *
 * @param path file to read ("-" reads standard input)
 * @param[out] ret new profile owned by the caller, untouched on failure
 * @param[out] reterr optional; file:line:column for syntax errors, the
 *             JSON path (e.g. "kernels[3].grid") for schema errors, with
 *             the line and column of that value when the file holds it
 *             under that path (a value derived on reading, such as a
 *             variance from a standard deviation, has none)
 * @return GPUPROJ_OK; GPUPROJ_E_IO, GPUPROJ_E_LIMIT (larger than the input
 *         size limit), GPUPROJ_E_PARSE (not JSON), GPUPROJ_E_SCHEMA
 *         (missing/ill-typed field, a value out of its range, unknown schema
 *         version), GPUPROJ_E_NOMEM
 */
int gpuproj_profile_load(const char *path, struct gpuproj_profile **ret,
			 struct gpuproj_error *reterr);

/**
 * As gpuproj_profile_load() on a memory buffer.
 * @param name file name to use in error messages
 */
int gpuproj_profile_load_buffer(const char *text, size_t len, const char *name,
				struct gpuproj_profile **ret, struct gpuproj_error *reterr);

/**
 * The profile bundled into the library: published, cited measurements
 * (see its "citation" attribute), used by `gpuproj project --builtin` and
 * the README's main job on machines without a GPU.
 * @param[out] ret,reterr as for gpuproj_profile_load()
 */
int gpuproj_profile_load_builtin(struct gpuproj_profile **ret, struct gpuproj_error *reterr);

/**
 * Write a profile as `gpuproj-profile/1` JSON, without projections
 * (project.h writes profiles with projections). The file is written to a
 * temporary name in the same directory and renamed over `path`, so readers
 * never see a half-written file and a failure leaves `path` untouched.
 *
 * Strings that are not valid UTF-8 are kept exactly (docs/formats/profile.md
 * "Text that is not UTF-8"); a profile that fails gpuproj_profile_validate() is not written.
 *
 * @param path destination ("-" writes standard output)
 * @return GPUPROJ_OK, GPUPROJ_E_IO (reterr names the file and errno text),
 *         GPUPROJ_E_SCHEMA (a value out of range, named as by
 *         gpuproj_profile_validate()), GPUPROJ_E_INVAL (`path` is a file this
 *         process read), GPUPROJ_E_NOMEM
 */
int gpuproj_profile_save(const struct gpuproj_profile *p, const char *path,
			 struct gpuproj_error *reterr);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_PROFILE_H */
