/* SPDX-License-Identifier: MIT */
/*
 * `gpuproj bench` without the GPU: the plan (which benchmarks, sizes and
 * repetitions, chosen from the device's properties), the raw measurements
 * gpuproj-bench-kernels writes (JSON, schema gpuproj-bench-raw/1), the
 * statistics and ceilings computed from them, and the targets.yaml entry.
 * The CUDA side is src/bench/kernels/; docs/bench.md describes the method.
 *
 * Private to the core library and the CLI (not installed). Units: times
 * in ns, rates in G<unit>/s (GFLOP/s, GIOP/s, GB/s = 10^9 B/s, G
 * instructions/s), clocks in MHz, sizes in bytes.
 *
 * Thread safety: every function is reentrant; objects are not shared.
 */
#ifndef GPUPROJ_BENCH_H
#define GPUPROJ_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <gpuproj/error.h>
#include <gpuproj/target.h>

#define BENCH_RAW_SCHEMA "gpuproj-bench-raw/1"
#define BENCH_PLAN_SCHEMA "gpuproj-bench-plan/1"

enum bench_mode {
	BENCH_MODE_QUICK = 0,   /**< under 30 s: 5 runs per benchmark, short runs */
	BENCH_MODE_DEFAULT = 1, /**< under 3 min: 15 runs, longer runs, finer sweeps */
};

/* DRAM kernels, in the order of the raw names dram_<name>. */
enum bench_dram_kind {
	BENCH_DRAM_INIT = 0,
	BENCH_DRAM_READ = 1,
	BENCH_DRAM_COPY = 2,
	BENCH_DRAM_SCALE = 3,
	BENCH_DRAM_TRIAD = 4,
	BENCH_DRAM_COUNT = 5,
};

/* Pointer-chase levels, in the order of the raw names latency_<level>. */
enum bench_lat_level {
	BENCH_LAT_L1 = 0,
	BENCH_LAT_L2 = 1,
	BENCH_LAT_DRAM = 2,
	BENCH_LAT_COUNT = 3,
};

/* Dependent loads per trip of the pointer chase (src/bench/kernels/bench-kernels.h). */
#define BENCH_CHASE_STEPS 16
/* Bytes between two elements of the chase: one per 128-byte line (bench-kernels.h). */
#define BENCH_CHASE_SPACING_B 128

/* Floating-point op kinds measured (the schema folds ADD and MUL together). */
enum bench_fop {
	BENCH_FOP_FMA = 0,
	BENCH_FOP_ADD = 1,
	BENCH_FOP_MUL = 2,
	BENCH_FOP_COUNT = 3,
};

/* The device as gpuproj-bench-kernels --query reports it. */
struct bench_device {
	char *name;                  /* cudaDeviceProp.name */
	char *pci_bus_id;
	int index;
	int cc_major, cc_minor;
	int sms, warp_size;
	int threads_per_sm, threads_per_block, blocks_per_sm;
	int regs_per_sm, regs_per_block;
	int smem_per_sm_b, smem_per_block_optin_b, smem_reserved_per_block_b;
	double l2_b, total_mem_b, free_mem_b;
	double max_clock_mhz;        /* cudaDevAttrClockRate: maximum, not observed */
	double mem_clock_mhz;        /* cudaDevAttrMemoryClockRate, or NaN */
	int mem_bus_bits;            /* 0 when unknown */
	bool ecc;
	int driver_api_version, runtime_version, toolkit_version; /* 12080 = 12.8 */
	bool nvml;                   /* NVML loaded: clocks are observed */
	char *nvml_reason;           /* why not, or NULL */
	char *driver_version;        /* NVML's "570.86.15", or NULL */
	double nvml_max_sm_clock_mhz, nvml_max_mem_clock_mhz, power_limit_w; /* or NaN */
};

/* One benchmark of a plan (one `bench` line for gpuproj-bench-kernels). */
struct bench_spec {
	const char *name;            /* static: "fp64_fma", "l2_read", ... */
	unsigned blocks, threads;
	long long iters;             /* initial trip count; the kernels program scales it */
	double size_b;               /* DRAM: bytes per array; L2, latency: footprint; L1: per block */
	unsigned stride;             /* shared_read: word stride; latency: bytes between elements */
	int reps, warmup;
	double target_ms;            /* wanted duration of one launch */
};

struct bench_plan {
	enum bench_mode mode;
	double warm_ms;              /* spin the GPU this long before measuring */
	struct bench_spec *specs;
	size_t n;
};

/* One benchmark's raw measurements. */
struct bench_meas {
	char *name, *family, *unit; /* unit: flop, iop, byte, inst, warp_inst */
	char *error;                 /* the benchmark failed (NULL if not) */
	unsigned blocks, threads, stride;
	long long iters;
	double size_b;
	double work;                 /* units per launch */
	double *times_ns;
	size_t n;                    /* timed runs */
	double *sm_mhz, *mem_mhz, *power_w; /* per run (NaN where not sampled), or NULL */
	size_t n_clock;              /* 0 or n */
};

/* A parsed raw file (gpuproj-bench-raw/1). */
struct bench_raw {
	char *kernels_version;
	char *host;                  /* where it ran, or NULL */
	char *date_utc;              /* "2026-11-21T10:02:03Z", or NULL */
	char *mode;                  /* "quick" or "default" (added by gpuproj bench), or NULL */
	char *clock_source;          /* "nvml" or "attribute" */
	char *error;                 /* run-level error, or NULL */
	double elapsed_s;            /* NaN when absent */
	struct bench_device dev;
	struct bench_meas *meas;
	size_t n;
};

/* Order statistics of a sample. */
struct bench_stats {
	size_t n;
	double median, min, max;
	double q1, q3;               /* quartiles, linear interpolation */
	double spread_pct;           /* 100 (q3 - q1) / median: relative interquartile range */
};

/* A measured rate: statistics of work / time over the timed runs. */
struct bench_rate {
	bool ok;                     /* measured (false: absent or failed) */
	struct bench_stats s;        /* of the per-run rates, G<unit>/s */
	double value;                /* s.median */
	double clock_mhz;            /* median SM clock during the runs, NaN if not observed */
	const struct bench_meas *m;  /* the raw entry (owned by the raw set) */
};

struct bench_l2_point {
	double footprint_b;
	struct bench_rate r;
};

struct bench_l1_point {
	double size_b;
	struct bench_rate r;
};

struct bench_shared_point {
	unsigned stride;             /* s-way bank conflict */
	struct bench_rate r;         /* GB/s of requested bytes */
	double bytes_per_clk_sm;     /* r.value / (sms x clock) */
};

/* One pointer-chase footprint: statistics of the per-run time per load. */
struct bench_lat_point {
	enum bench_lat_level level;
	double footprint_b;
	bool ok;
	struct bench_stats ns;       /* ns per dependent load, over the timed runs */
	double clock_mhz;            /* median SM clock NVML logged during the runs, NaN */
	double cycles;               /* ns.median x clock_mhz / 1000, NaN without a clock */
	const struct bench_meas *m;  /* the raw entry */
};

/*
 * Execution lanes per SM (targets.yaml `lanes_per_sm`) of the device: those
 * of its own built-in targets.yaml entry, else of the entries with its
 * compute capability (the same values and source text as the repository's
 * file), else estimated from the measured rates.
 */
struct bench_lanes {
	double v[GPUPROJ_LANE_COUNT]; /* results/clk/SM by enum gpuproj_lane; NaN: unknown */
	enum gpuproj_basis basis;     /* datasheet or estimate; NONE when unknown */
	bool builtin;                 /* taken from the built-in targets.yaml */
	bool by_name;                 /* builtin: the device's own entry (else the CC's) */
	char entry[64];               /* builtin: the entry they were taken from */
	char text[1024];              /* builtin: that entry's lanes_per_sm source text */
};

#define BENCH_MAX_POINTS 32

/* Ceilings derived from a raw set (docs/bench.md, "From runs to ceilings"). */
struct bench_summary {
	struct bench_rate fp[GPUPROJ_PREC_COUNT][BENCH_FOP_COUNT]; /* GFLOP/s */
	struct bench_rate int_add, int_mad; /* GIOP/s (IADD3 = 1 op, IMAD = 2) */
	struct bench_rate ldst;      /* G thread instructions/s */
	struct bench_rate gips;      /* G warp instructions/s */
	double ipc_per_scheduler;    /* gips / (sms x 4 x clock), NaN if not measured */
	struct bench_rate dram[BENCH_DRAM_COUNT];
	/* STREAM-like rates of targets.yaml `stream_gbs`: read, copy, triad medians, NaN */
	double stream_gbs[GPUPROJ_STREAM_COUNT];
	double dram_gbs;             /* bw_gbs.dram = stream_gbs.triad (one basis), NaN */
	double dram_array_b;         /* bytes per array */
	struct bench_l2_point l2[BENCH_MAX_POINTS];
	size_t n_l2;
	double l2_gbs;               /* plateau: median over footprints L2/8 .. L2/2 */
	size_t l2_plateau_points;
	double l2_drop_pct;          /* drop between L2/2 and the L2 size (segmented L2), NaN */
	double l2_drop_footprint_b;  /* footprint of the lowest point in that range */
	struct bench_l1_point l1[BENCH_MAX_POINTS];
	size_t n_l1;
	double l1_gbs;               /* best of the sizes */
	double l1_size_b;
	struct bench_shared_point shared[BENCH_MAX_POINTS];
	size_t n_shared;
	double shared_gbs;           /* stride 1 */
	struct bench_lat_point lat[BENCH_MAX_POINTS];
	size_t n_lat;
	double lat_ns[BENCH_LAT_COUNT];     /* median of the level's point medians, NaN */
	double lat_cycles[BENCH_LAT_COUNT]; /* the same in SM clocks (clock NVML logged), NaN */
	size_t lat_points[BENCH_LAT_COUNT]; /* points behind lat_ns */
	/*
	 * SM clock NVML logged during the FMA runs (fp16/fp32/fp64_fma): median of
	 * every sample (else of all compute runs; else the device's maximum clock,
	 * clock_observed false).
	 */
	double clock_mhz;
	bool clock_observed;
	size_t clock_samples;
	double clock_lo_mhz, clock_hi_mhz; /* range of the observed samples */
	double boost_mhz;            /* the device's maximum SM clock (datasheet), NaN */
	struct bench_lanes lanes;
	/*
	 * The SM clock sustained under full FMA load, as targets.yaml defines
	 * clock_mhz: measured FP32 FMA rate / (2 x lanes.fp32 x SMs); NaN
	 * without that rate or the lanes.
	 */
	double sustained_mhz;
	/*
	 * Measured FMA rate / (2 x lanes x SMs x the run's clock) per precision:
	 * how much of the lanes the FMA loop kept busy (about 0.97-1 when the
	 * lanes are right; far below on a product whose rate is capped), NaN.
	 */
	double lane_use[GPUPROJ_PREC_COUNT];
	double peak_dram_gbs;        /* 2 x memory clock x bus width / 8, NaN if unknown */
};

/* ---- plan (src/bench/bench-plan.c) ---- */

/*
 * Choose the benchmarks, grid sizes, buffer sizes and repetitions for a
 * device: compute grids fill every SM (blocks = SMs x resident blocks per
 * SM), DRAM arrays are >= 4x the L2 (8x by default) and at most half the
 * free memory for all three, the L2 footprint sweeps L2/8 .. 2 x L2, the L1
 * buffer is 16-64 KiB per block, shared memory 16 KiB per block.
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL for a device without SMs, L2 or
 *         clock; GPUPROJ_E_NOMEM
 */
int bench_plan_make(const struct bench_device *dev, enum bench_mode mode,
		    struct bench_plan *ret, struct gpuproj_error *err);
void bench_plan_free(struct bench_plan *plan);
/* The plan as gpuproj-bench-kernels reads it (malloc'd), NULL on ENOMEM. */
char *bench_plan_format(const struct bench_plan *plan);
/* Predicted wall time of the plan on `dev`, seconds (nominal rates). */
double bench_plan_estimate_s(const struct bench_plan *plan, const struct bench_device *dev);
/*
 * Pointer-chase footprints per level (bytes; docs/bench.md, "Latency"): L1
 * 16 KiB (default mode also 8 KiB); L2 pow2_floor(max(L2/8, min(2 MiB,
 * L2/4))) (default also half of it when >= 1 MiB); DRAM
 * pow2_ceil(max(4 x L2, 64 MiB)) within a quarter of the free memory
 * (default also twice that when it fits). n[level] points, at most 2.
 */
void bench_latency_footprints(const struct bench_device *dev, enum bench_mode mode,
			      double ret[BENCH_LAT_COUNT][2], size_t n[BENCH_LAT_COUNT]);

/* ---- raw measurements (src/bench/bench-raw.c) ---- */

/*
 * Parse gpuproj-bench-raw/1 JSON (from --query or --plan). A file whose
 * only content is an "error" parses, with ret->error set and no device.
 * @param name file name for error messages
 * @return GPUPROJ_OK; GPUPROJ_E_PARSE (not JSON), GPUPROJ_E_SCHEMA (wrong
 *         schema or types), GPUPROJ_E_NOMEM
 */
int bench_raw_parse(const char *text, size_t len, const char *name, struct bench_raw *ret,
		    struct gpuproj_error *err);
void bench_raw_free(struct bench_raw *raw);
/* The entry for a benchmark name (first one), or NULL. */
const struct bench_meas *bench_raw_find(const struct bench_raw *raw, const char *name);

/* ---- statistics (src/bench/bench-stats.c) ---- */

/* Order statistics of x[0..n) (x is not modified); all NaN when n == 0. */
void bench_stats_compute(const double *x, size_t n, struct bench_stats *ret);
/* Rate statistics of one raw entry: per-run work / time, scaled to G<unit>/s. */
void bench_rate_compute(const struct bench_meas *m, struct bench_rate *ret);
/*
 * The lanes of a device from the built-in targets.yaml: those of the entry
 * whose match list holds `device_name` (NULL: none) when its arch is
 * sm_<major><minor> (the product's own, e.g. the H20's capped FP64); else
 * the compute capability's: the NVIDIA entries of that arch whose five
 * lanes_per_sm keys share one source, datasheet ones before estimates
 * (derived ones, a product's own cap, are skipped), the first in file order.
 * @return true when found (ret filled: values, basis, entry, source text,
 *         by_name)
 */
bool bench_lanes_builtin(int cc_major, int cc_minor, const char *device_name,
			 struct bench_lanes *ret);
/* Compute every ceiling of a raw set (the lanes from bench_lanes_builtin()). */
void bench_summarize(const struct bench_raw *raw, struct bench_summary *ret);

/* ---- the targets.yaml entry (src/bench/bench-yaml.c) ---- */

struct bench_yaml_info {
	const char *name;        /* entry name, or NULL: from the device name */
	const char *version;     /* gpuproj version */
	const char *date;        /* "2026-11-21" */
	const char *host;
	const char *raw_file;    /* where the raw JSON is written (named in the reference) */
	const char *mode;        /* "quick" or "default" */
};

/*
 * A valid entry name from a device name: "NVIDIA A100-SXM4-40GB" gives
 * "A100-SXM4-40GB"; characters other than letters, digits, '.', '_', '+'
 * and '-' become '-'. malloc'd, NULL on ENOMEM.
 */
char *bench_entry_name(const char *device_name);

/*
 * A complete targets file (schema gpuproj-targets/1) with one GPU: every
 * measured number sourced "measured: ... [BENCH]", device-reported values
 * "datasheet: device-reported ... [BENCH]", constants of the programming
 * guide or the occupancy calculator "datasheet: ... [PG]/[OCC]", peaks
 * "derived:"; what cannot be measured is null or omitted and named in a
 * comment. A required bandwidth that was not measured is an "estimate:"
 * that says so.
 * @param[out] ret malloc'd YAML text
 * @return GPUPROJ_OK; GPUPROJ_E_MISSING (nothing to base a required field
 *         on, named in err); GPUPROJ_E_INVAL (bad entry name); GPUPROJ_E_NOMEM
 */
int bench_yaml_emit(const struct bench_raw *raw, const struct bench_summary *sum,
		    const struct bench_yaml_info *info, char **ret, struct gpuproj_error *err);

/* ---- outputs (src/bench/bench-write.c) ---- */

/* One comparison row: a measured ceiling next to the targets.yaml entry's. */
struct bench_row {
	const char *field;          /* e.g. "fp64_fma", "fp64_add", "bw_gbs.dram" */
	const char *label;          /* as the table shows it */
	const char *unit;           /* "GFLOP/s", "GB/s", "MHz", ... */
	const struct bench_rate *r; /* its rate, or NULL (a plateau or sweep value) */
	double measured;
	double reference;           /* the entry's model value, NaN if none */
	char ref_path[48];          /* its sources path ("" for a value computed here) */
	double peak;                /* the entry's peak, NaN if none */
};

/*
 * The comparison rows of a summary with the entry `t` (NULL: none matches),
 * FP64 first, then FP32, FP16, integer, shared ld/st, GIPS, DRAM, L2, L1,
 * shared, clock. Fills at most `max` rows; returns how many.
 */
size_t bench_rows(const struct bench_summary *s, const struct gpuproj_target *t,
		  struct bench_row *rows, size_t max);
/*
 * Print the table of `gpuproj bench`: device and clock, the rows with
 * spread, clock, % of peak, the entry's value with its basis letter and the
 * ratio, then the DRAM kernels, the L2 sweep, L1 and shared memory.
 * `origin` names where the targets came from.
 */
void bench_write_table(FILE *f, const struct bench_raw *raw, const struct bench_summary *s,
		       const struct gpuproj_target *t, const char *origin,
		       const struct bench_row *rows, size_t n);
/*
 * The raw measurements `raw_text` (gpuproj-bench-raw/1) with "mode" (when
 * given and absent), "gpuproj_version" and a "summary" object (every
 * ceiling, the sweeps and the comparison rows) added; 12 significant
 * digits, key order kept, a final newline.
 * @param[out] ret_text malloc'd (caller frees)
 * @return GPUPROJ_OK; GPUPROJ_E_PARSE (raw_text is not JSON); GPUPROJ_E_NOMEM
 */
int bench_raw_with_summary(const char *raw_text, const char *mode, const struct bench_summary *s,
			   const struct bench_row *rows, size_t n, const struct gpuproj_target *t,
			   char **ret_text, struct gpuproj_error *err);

#endif
