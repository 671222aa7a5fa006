/* SPDX-License-Identifier: MIT */
/**
 * @file nvmetrics.h
 * NVIDIA's metric names for gpuproj's logical metrics: the one table that
 * libproj.so (inject/metrics-nvpw.c resolves it with the CUPTI host API),
 * `gpuproj import ncu` (src/import-ncu-names.c maps an export's columns by
 * these names) and `gpuproj ncu-metrics` (gpuproj_ncu_metrics(), import.h:
 * the ncu command line) all read. The tensor-core counters have their own
 * table with the same role (include/gpuproj/tensor.h).
 *
 * **Names.** Nsight Perf SDK / Nsight Compute metric names ([CUPTI-MET];
 * `ncu --query-metrics`), each spelled once as a GPUPROJ_NV_* macro below
 * so that the candidate table and the importer's column map cannot drift
 * apart. Every name was checked with the CUPTI 13.0 profiler host API
 * (libnvperf_host 13.0) on GV100, TU102, GA100, GA102, GH100, AD102, GB100
 * and GB202; tests/inject/test-cupti-host.c and test-ncu-metrics.c keep
 * them honest against the installed host API.
 *
 * **Candidates.** Each logical metric (enum gpuproj_metric, profile.h) has
 * an ordered list of candidates, best first. A candidate is one name or a
 * sum "a+b+c" of several, and a scale factor: logical value = scale × Σ
 * terms (e.g. ×1/32 for warp efficiency from threads per warp
 * instruction, ×32 B for L2 bytes from sectors). libproj.so takes, per
 * chip, the first candidate all of whose names the host API accepts;
 * gpuproj_nv_candidate_on_chip() makes the same choice from the chip
 * restrictions recorded here, for tools that have no host API at hand
 * (`gpuproj ncu-metrics`).
 *
 * Thread safety: constant data and pure functions.
 */
#ifndef GPUPROJ_NVMETRICS_H
#define GPUPROJ_NVMETRICS_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Thread-level executed SASS instructions of one kind, per SM sub-partition. */
#define GPUPROJ_NV_SASS_THREAD(op) "smsp__sass_thread_inst_executed_op_" op "_pred_on.sum"
/** The same per SM (ncu's older sections use this form). */
#define GPUPROJ_NV_SASS_THREAD_SM(op) "sm__sass_thread_inst_executed_op_" op "_pred_on.sum"

/** A launch's duration on the GPU, ns. */
#define GPUPROJ_NV_DURATION "gpu__time_duration.sum"
/** Warp instructions executed. */
#define GPUPROJ_NV_INST_WARP "smsp__inst_executed.sum"
/** Thread instructions executed (predicated-on threads). */
#define GPUPROJ_NV_INST_THREAD "smsp__thread_inst_executed.sum"
/** Average active threads per executed warp instruction (0–32). */
#define GPUPROJ_NV_WARP_EFF_AVG "smsp__average_thread_inst_executed_per_inst_executed.ratio"
/** The same ratio under its older name. */
#define GPUPROJ_NV_WARP_EFF_RATIO "smsp__thread_inst_executed_per_inst_executed.ratio"
/** L1TEX bytes looked up (global, local, texture, surface). */
#define GPUPROJ_NV_L1_BYTES "l1tex__t_bytes.sum"
/** L1TEX sectors (32 B) looked up. */
#define GPUPROJ_NV_L1_SECTORS "l1tex__t_sectors.sum"
/** L2 sectors looked up by the SMs' L1TEX (SM ↔ L2 traffic only). */
#define GPUPROJ_NV_L2_SECTORS_TEX "lts__t_sectors_srcunit_tex.sum"
/** L2 bytes looked up from every source (with the split L2's fabric on GA100/GH100/GB100). */
#define GPUPROJ_NV_L2_BYTES "lts__t_bytes.sum"
/** L2 sectors looked up from every source. */
#define GPUPROJ_NV_L2_SECTORS "lts__t_sectors.sum"
/** L2 sectors read / written. */
#define GPUPROJ_NV_L2_SECTORS_READ "lts__t_sectors_op_read.sum"
#define GPUPROJ_NV_L2_SECTORS_WRITE "lts__t_sectors_op_write.sum"
/** DRAM bytes read and written. */
#define GPUPROJ_NV_DRAM_BYTES "dram__bytes.sum"
/** DRAM bytes read / written (every chip but GB202 … GB207). */
#define GPUPROJ_NV_DRAM_READ "dram__bytes_read.sum"
#define GPUPROJ_NV_DRAM_WRITE "dram__bytes_write.sum"
/** DRAM bytes read / written as GB202, GB203, GB205, GB206 and GB207 spell them. */
#define GPUPROJ_NV_DRAM_OP_READ "dram__bytes_op_read.sum"
#define GPUPROJ_NV_DRAM_OP_WRITE "dram__bytes_op_write.sum"
/** DRAM sectors (32 B), in all, read / written, and the GB20x spelling. */
#define GPUPROJ_NV_DRAM_SECTORS "dram__sectors.sum"
#define GPUPROJ_NV_DRAM_SECTORS_READ "dram__sectors_read.sum"
#define GPUPROJ_NV_DRAM_SECTORS_WRITE "dram__sectors_write.sum"
#define GPUPROJ_NV_DRAM_SECTORS_OP_READ "dram__sectors_op_read.sum"
#define GPUPROJ_NV_DRAM_SECTORS_OP_WRITE "dram__sectors_op_write.sum"
/** Bytes moved by shared-memory instructions (SASS). */
#define GPUPROJ_NV_SHARED_BYTES "sm__sass_data_bytes_mem_shared.sum"
/** Shared-memory wavefronts of the LSU pipe (≥ 1 per shared access; more with conflicts). */
#define GPUPROJ_NV_SHARED_WAVEFRONTS "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
/** Shared-memory bank conflicts, in all and for loads / stores. */
#define GPUPROJ_NV_SHARED_BANK_CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
#define GPUPROJ_NV_SHARED_BANK_CONFLICTS_LD \
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define GPUPROJ_NV_SHARED_BANK_CONFLICTS_ST \
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
/** Achieved occupancy: % of the peak sustained warps per active cycle. */
#define GPUPROJ_NV_OCCUPANCY "sm__warps_active.avg.pct_of_peak_sustained_active"
/** Cycles an SM was active, averaged over SMs. */
#define GPUPROJ_NV_SM_ACTIVE_CYCLES "sm__cycles_active.avg"
/** SM clock during the launch, Hz. */
#define GPUPROJ_NV_SM_CLOCK "sm__cycles_elapsed.avg.per_second"

/* Launch attributes and the device's name: ncu reports them, the CUPTI
 * profiler does not (libproj.so takes them from the launch callback). */
#define GPUPROJ_NV_GRID_DIM_X "launch__grid_dim_x"
#define GPUPROJ_NV_GRID_DIM_Y "launch__grid_dim_y"
#define GPUPROJ_NV_GRID_DIM_Z "launch__grid_dim_z"
#define GPUPROJ_NV_BLOCK_DIM_X "launch__block_dim_x"
#define GPUPROJ_NV_BLOCK_DIM_Y "launch__block_dim_y"
#define GPUPROJ_NV_BLOCK_DIM_Z "launch__block_dim_z"
#define GPUPROJ_NV_REGISTERS "launch__registers_per_thread"
#define GPUPROJ_NV_SMEM_STATIC "launch__shared_mem_per_block_static"
#define GPUPROJ_NV_SMEM_DYNAMIC "launch__shared_mem_per_block_dynamic"
#define GPUPROJ_NV_DISPLAY_NAME "device__attribute_display_name"

/** One way to obtain a logical metric from NVIDIA counters. */
struct gpuproj_nv_candidate {
	/** one metric name, or "a+b+c": the sum of several */
	const char *expr;
	/** logical value = scale × the expression's value */
	double scale;
	/**
	 * the chips that have every name of expr, space-separated ("GB202
	 * GB203"), or NULL: every chip except those in not_on
	 */
	const char *only_on;
	/** chips that lack a name of expr, space-separated, or NULL */
	const char *not_on;
};

/**
 * The next term of a candidate expression: "a+b+c", each term a metric
 * name or "factor*name" (the tensor table weights terms: "a.sum+-1*b.sum").
 * The one parser of that syntax, for libproj.so's resolution and
 * `gpuproj import ncu`.
 * @param[in,out] pos where the term starts (in the expression); advanced
 *        past it and its '+'
 * @param[out] ret_name the term's metric name, pointing into the
 *        expression (not NUL-terminated)
 * @param[out] ret_len its length in bytes
 * @param[out] ret_factor its weight, 1 when none is written (C locale)
 * @return 1 for a term, 0 at the end of the expression, -1 for a
 *         malformed term (a factor that is not a number, an empty name);
 *         the outputs are set only for 1
 */
int gpuproj_nv_expr_term(const char **pos, const char **ret_name, size_t *ret_len,
			 double *ret_factor);

/**
 * The candidates of a logical metric, best first.
 * @param m a logical metric; the tensor metrics (flop.tensor.*,
 *        inst.tensor, pipe.tensor) have none here: see
 *        gpuproj_tensor_candidates() in tensor.h
 * @param[out] ret the table's row (static), or NULL when not wanted
 * @return the number of candidates (0 for tensor metrics, metrics no
 *         NVIDIA counter gives and m out of range)
 */
size_t gpuproj_nv_candidates(enum gpuproj_metric m, const struct gpuproj_nv_candidate **ret);

/**
 * The candidate libproj.so's host-API resolution picks on a chip, decided
 * from the chip restrictions recorded in the table (only_on, not_on).
 * @param m a logical metric
 * @param chip "GH100", "GB202", … (case-insensitive), or NULL: a chip
 *        with no restriction (the first candidate without only_on)
 * @return the candidate (static), or NULL when m has none
 */
const struct gpuproj_nv_candidate *gpuproj_nv_candidate_on_chip(enum gpuproj_metric m,
								 const char *chip);

/**
 * @return true for a chip whose names the table records (GV100 … GB207:
 *         the discrete NVIDIA chips since Volta the CUPTI 13 profiler
 *         supports, and GH200, which ncu names apart from GH100). The
 *         tensor table (gpuproj_tensor_chip_known()) also has the
 *         integrated GA10B, GB10B and GB20B (no DRAM counter in the CUPTI
 *         13.0 host API) and GV11B (which the host API refuses); they are
 *         not targets of `gpuproj ncu-metrics`. Both lists come from the
 *         chip table (src/target-chips.c, by each chip's CUPTI status);
 *         tests/unit/test-chips.c checks that they differ only so.
 */
bool gpuproj_nv_chip_known(const char *chip);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_NVMETRICS_H */
