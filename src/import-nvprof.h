/* SPDX-License-Identifier: MIT */
/*
 * nvprof's metrics and events → gpuproj's logical metrics: the one mapping
 * both nvprof importers use (import-nvprof.c: `nvprof --csv` exports;
 * import-gpuperfpredict.c: the gpuperfpredict data set, whose columns are
 * nvprof's metric display names as R mangled them). Not installed.
 *
 * Each input is named three ways: nvprof's metric (or event) name
 * ("flop_count_sp_fma", what `nvprof --metrics` takes and prints in
 * "Metric Name"), its description as nvprof prints it in "Metric
 * Description" ("Floating Point Operations(Single Precision FMA)"), and the
 * gpuperfpredict column ("floating_point_operations.single_precision_fma.",
 * NULL when the data set has none). Definitions and caveats: the table in
 * src/import-gpuperfpredict.c (docs/cli/gpuproj-import.md), which this mapping
 * implements.
 *
 * Thread safety: constant data and pure functions.
 */
#ifndef GPUPROJ_IMPORT_NVPROF_H
#define GPUPROJ_IMPORT_NVPROF_H

#include <stdbool.h>

#include <gpuproj/profile.h>

/* nvprof inputs gpuproj maps. */
enum nvp {
	NVP_SP_FMA = 0, NVP_SP_ADD, NVP_SP_MUL,
	NVP_DP, NVP_DP_FMA, NVP_DP_ADD, NVP_DP_MUL,
	NVP_HP_FMA, NVP_HP_ADD, NVP_HP_MUL,
	NVP_INST_FP16, NVP_INST_FP32, NVP_INST_FP64, NVP_INST_INT, NVP_INST_LDST,
	NVP_INST_CONTROL, NVP_INST_MISC, NVP_INST_BITCONV, NVP_INST_ITC,
	NVP_INST_EXECUTED, NVP_WARP_EXEC_EFF,
	NVP_GLD_TP, NVP_GST_TP,
	NVP_L2_RD_TR, NVP_L2_WR_TR, NVP_L2_RD_TP,
	NVP_DRAM_RD_TR, NVP_DRAM_WR_TR, NVP_DRAM_RD_TP, NVP_DRAM_WR_TP,
	NVP_SH_LD_TR, NVP_SH_ST_TR, NVP_SH_LD, NVP_SH_ST, NVP_SH_LD_TP, NVP_SH_ST_TP,
	NVP_OCC, NVP_ACTIVE_CYCLES,
	NVP_TENSOR_FP_UTIL, NVP_TENSOR_INT_UTIL,
	NVP_COUNT
};

/* What a value is, for parsing and range checks. */
enum nvp_kind {
	NVP_K_COUNT,      /* a count, ≥ 0 */
	NVP_K_GBS,        /* a throughput, GB/s (10^9 B/s); nvprof prints "12.3GB/s", "560MB/s" */
	NVP_K_RATIO,      /* 0..1 (achieved_occupancy) */
	NVP_K_PCT,        /* 0..100; nvprof prints "99.8%" */
	NVP_K_LEVEL,      /* 0..10, a utilisation level; nvprof prints "Idle (0)", "Low (2)" */
};

struct nvp_input {
	const char *name;          /* nvprof metric or event name */
	const char *description;   /* nvprof's "Metric Description" (NULL for events) */
	const char *gpp_column;    /* gpuperfpredict column, or NULL */
	enum nvp_kind kind;
	bool event;                /* an event (`--events`), not a metric */
};

/* The table, indexed by enum nvp. */
extern const struct nvp_input nvp_inputs[NVP_COUNT];

/* The input named `name` (nvprof name, exact), or -1. */
int nvp_find(const char *name);
/* The input whose gpuperfpredict column is `column`, or -1. */
int nvp_find_gpp_column(const char *column);

/* The GPU an nvprof export was measured on, for the byte and cycle conversions. */
struct nvp_gpu {
	int warp_size;   /* threads per warp; 0: 32 */
	int cc_major;    /* 3 = Kepler: shared transactions of 256 B; 0: unknown (128 B) */
	int sms;         /* SMs, for active_cycles (summed over SMs); 0: unknown */
};

/*
 * The logical metrics of one kernel (per launch) from nvprof inputs (NaN
 * where not measured), the mapping documented in import-gpuperfpredict.c:
 * FP instruction counts, the instruction mix, warp efficiency (nvprof's
 * warp_execution_efficiency where measured, else derived), bytes and
 * sectors per level, shared-memory wavefronts (in 128-B units), bank
 * conflicts, occupancy, active cycles, and tensor.utilization from the
 * tensor units' utilisation levels (the higher of the FP and INT ones / 10:
 * Nsight Compute's nvprof transition table maps them to
 * sm__pipe_tensor_op_{hmma,imma}_cycles_active.avg.pct_of_peak_sustained_active;
 * a level is a tenth of that range, so ±0.05) — no tensor FLOP: nvprof
 * has no tensor instruction or operation count. Throughputs become bytes over
 * t_prof, the duration of nvprof's own replay pass, recovered from the L2
 * read count and rate (32 × l2_read_transactions / l2_read_throughput),
 * else `dur_s` (NaN: those bytes stay unknown). m[] gets NaN where nothing
 * follows.
 */
void nvp_logical_metrics(const double v[NVP_COUNT], const struct nvp_gpu *gpu, double dur_s,
			 double m[GPUPROJ_M_COUNT]);

/*
 * Parse an nvprof value as printed: a number with an optional unit suffix
 * ("12.5GB/s", "560.66MB/s", "0.000000B/s", "99.8%", "1.2e+03"), or for
 * NVP_K_LEVEL a level "Idle (0)" … "Max (10)" (the number in parentheses).
 * The value is scaled to the kind's unit (GB/s for NVP_K_GBS). False when it is not a
 * number, a unit of another kind, or not finite.
 */
bool nvp_parse_value(const char *s, enum nvp_kind kind, double *ret);

#endif
