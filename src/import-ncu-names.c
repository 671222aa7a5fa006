/* SPDX-License-Identifier: MIT */
/*
 * Nsight Compute import, the names (import-ncu-private.h): every NVIDIA
 * metric and section label the importer maps (ncu_sources[], the table of
 * docs/cli/gpuproj-import.md "gpuproj import ncu"), interned strings, and
 * a launch's unmapped values, and the names `gpuproj ncu-metrics` asks
 * ncu to collect. The bottom of the importer: import-ncu.c and
 * import-ncu-resolve.c call into it, it calls neither.
 * Thread safety: reentrant; the table is constant.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/nvmetrics.h>
#include <gpuproj/tensor.h>
#include <gpuproj/profile.h>

#include "import-common.h"
#include "profile-private.h"
#include "util.h"


#include "import-ncu-private.h"

/*
 * Section names of the labels: ncu 2019.5–2020 call the speed-of-light
 * section "GPU Speed Of Light", later versions "GPU Speed Of Light
 * Throughput"; the identifier (`--section SpeedOfLight`) is the same.
 */
#define SOL "GPU Speed Of Light Throughput|GPU Speed Of Light|SpeedOfLight"
#define LAUNCH "Launch Statistics|LaunchStats"
#define MWA "Memory Workload Analysis|MemoryWorkloadAnalysis"
#define SASS(x) GPUPROJ_NV_SASS_THREAD(x)
#define SASS_SM(x) GPUPROJ_NV_SASS_THREAD_SM(x)

/*
 * name: the metric name, or a section label (the default
 * `--print-metric-name label` output); section: NULL for metric names,
 * else the "|"-separated section names (display name and identifier) the
 * label belongs to, "*" for any.
 */
const struct ncu_source ncu_sources[SRC_COUNT] = {
	[SRC_DURATION] = { GPUPROJ_NV_DURATION, NULL, K_TIME },
	[SRC_DURATION_L] = { "Duration", SOL, K_TIME },
	[SRC_HFMA] = { SASS("hfma"), NULL, K_COUNT },
	[SRC_HADD] = { SASS("hadd"), NULL, K_COUNT },
	[SRC_HMUL] = { SASS("hmul"), NULL, K_COUNT },
	[SRC_FFMA] = { SASS("ffma"), NULL, K_COUNT },
	[SRC_FADD] = { SASS("fadd"), NULL, K_COUNT },
	[SRC_FMUL] = { SASS("fmul"), NULL, K_COUNT },
	[SRC_DFMA] = { SASS("dfma"), NULL, K_COUNT },
	[SRC_DADD] = { SASS("dadd"), NULL, K_COUNT },
	[SRC_DMUL] = { SASS("dmul"), NULL, K_COUNT },
	[SRC_HFMA_SM] = { SASS_SM("hfma"), NULL, K_COUNT },
	[SRC_HADD_SM] = { SASS_SM("hadd"), NULL, K_COUNT },
	[SRC_HMUL_SM] = { SASS_SM("hmul"), NULL, K_COUNT },
	[SRC_FFMA_SM] = { SASS_SM("ffma"), NULL, K_COUNT },
	[SRC_FADD_SM] = { SASS_SM("fadd"), NULL, K_COUNT },
	[SRC_FMUL_SM] = { SASS_SM("fmul"), NULL, K_COUNT },
	[SRC_DFMA_SM] = { SASS_SM("dfma"), NULL, K_COUNT },
	[SRC_DADD_SM] = { SASS_SM("dadd"), NULL, K_COUNT },
	[SRC_DMUL_SM] = { SASS_SM("dmul"), NULL, K_COUNT },
	[SRC_FP16] = { SASS("fp16"), NULL, K_COUNT },
	[SRC_FP32] = { SASS("fp32"), NULL, K_COUNT },
	[SRC_FP64] = { SASS("fp64"), NULL, K_COUNT },
	[SRC_INT] = { SASS("integer"), NULL, K_COUNT },
	[SRC_MEM] = { SASS("memory"), NULL, K_COUNT },
	[SRC_FP16_SM] = { SASS_SM("fp16"), NULL, K_COUNT },
	[SRC_FP32_SM] = { SASS_SM("fp32"), NULL, K_COUNT },
	[SRC_FP64_SM] = { SASS_SM("fp64"), NULL, K_COUNT },
	[SRC_INT_SM] = { SASS_SM("integer"), NULL, K_COUNT },
	[SRC_MEM_SM] = { SASS_SM("memory"), NULL, K_COUNT },
	[SRC_INST] = { GPUPROJ_NV_INST_WARP, NULL, K_COUNT },
	[SRC_INST_SM] = { "sm__inst_executed.sum", NULL, K_COUNT },
	[SRC_INST_L] = { "Executed Instructions", "Instruction Statistics|InstructionStats",
			 K_COUNT },
	[SRC_TINST] = { GPUPROJ_NV_INST_THREAD, NULL, K_COUNT },
	[SRC_TINST_SM] = { "sm__thread_inst_executed.sum", NULL, K_COUNT },
	[SRC_WE_AVG] = { GPUPROJ_NV_WARP_EFF_AVG, NULL,
			 K_COUNT },
	[SRC_WE_RATIO] = { GPUPROJ_NV_WARP_EFF_RATIO, NULL, K_COUNT },
	[SRC_WE_PCT] = { "smsp__thread_inst_executed_per_inst_executed.pct", NULL, K_PCT },
	[SRC_WE_L] = { "Avg. Active Threads Per Warp", "*", K_COUNT },
	[SRC_L1_BYTES] = { GPUPROJ_NV_L1_BYTES, NULL, K_BYTES },
	[SRC_L2_BYTES] = { GPUPROJ_NV_L2_BYTES, NULL, K_BYTES },
	/* SM <-> L2 only (what libproj.so collects; src/nvmetrics.c says why). */
	[SRC_L2_SECT_TEX] = { GPUPROJ_NV_L2_SECTORS_TEX, NULL, K_COUNT },
	[SRC_DRAM_BYTES] = { GPUPROJ_NV_DRAM_BYTES, NULL, K_BYTES },
	[SRC_DRAM_RD] = { GPUPROJ_NV_DRAM_READ, NULL, K_BYTES },
	[SRC_DRAM_WR] = { GPUPROJ_NV_DRAM_WRITE, NULL, K_BYTES },
	[SRC_DRAM_OP_RD] = { GPUPROJ_NV_DRAM_OP_READ, NULL, K_BYTES },
	[SRC_DRAM_OP_WR] = { GPUPROJ_NV_DRAM_OP_WRITE, NULL, K_BYTES },
	[SRC_SH_WF] = { GPUPROJ_NV_SHARED_WAVEFRONTS, NULL, K_COUNT },
	[SRC_SH_WF_LD] = { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", NULL, K_COUNT },
	[SRC_SH_WF_ST] = { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", NULL, K_COUNT },
	[SRC_SH_BC] = { GPUPROJ_NV_SHARED_BANK_CONFLICTS, NULL, K_COUNT },
	[SRC_SH_BC_LD] = { GPUPROJ_NV_SHARED_BANK_CONFLICTS_LD, NULL,
			   K_COUNT },
	[SRC_SH_BC_ST] = { GPUPROJ_NV_SHARED_BANK_CONFLICTS_ST, NULL,
			   K_COUNT },
	[SRC_SH_BYTES] = { GPUPROJ_NV_SHARED_BYTES, NULL, K_BYTES },
	[SRC_SH_BYTES_SMSP] = { "smsp__sass_data_bytes_mem_shared.sum", NULL, K_BYTES },
	[SRC_L1_SECT] = { GPUPROJ_NV_L1_SECTORS, NULL, K_COUNT },
	[SRC_L2_SECT] = { GPUPROJ_NV_L2_SECTORS, NULL, K_COUNT },
	[SRC_DRAM_SECT] = { GPUPROJ_NV_DRAM_SECTORS, NULL, K_COUNT },
	[SRC_DRAM_SECT_RD] = { GPUPROJ_NV_DRAM_SECTORS_READ, NULL, K_COUNT },
	[SRC_DRAM_SECT_WR] = { GPUPROJ_NV_DRAM_SECTORS_WRITE, NULL, K_COUNT },
	[SRC_OCC] = { GPUPROJ_NV_OCCUPANCY, NULL, K_PCT },
	[SRC_OCC_L] = { "Achieved Occupancy", "Occupancy", K_PCT },
	[SRC_ACTIVE] = { GPUPROJ_NV_SM_ACTIVE_CYCLES, NULL, K_COUNT },
	[SRC_ACTIVE_L] = { "SM Active Cycles", SOL, K_COUNT },
	[SRC_CLOCK] = { GPUPROJ_NV_SM_CLOCK, NULL, K_FREQ },
	[SRC_CLOCK_L] = { "SM Frequency", SOL, K_FREQ },
	[SRC_REGS] = { GPUPROJ_NV_REGISTERS, NULL, K_COUNT },
	[SRC_REGS_L] = { "Registers Per Thread", LAUNCH, K_COUNT },
	[SRC_SMEM_DYN] = { GPUPROJ_NV_SMEM_DYNAMIC, NULL, K_BYTES },
	[SRC_SMEM_DYN_L] = { "Dynamic Shared Memory Per Block", LAUNCH, K_BYTES },
	[SRC_SMEM_ST] = { GPUPROJ_NV_SMEM_STATIC, NULL, K_BYTES },
	[SRC_SMEM_ST_L] = { "Static Shared Memory Per Block", LAUNCH, K_BYTES },
	[SRC_GRID] = { "launch__grid_size", NULL, K_COUNT },
	[SRC_GRID_L] = { "Grid Size", LAUNCH, K_COUNT },
	[SRC_GRID_X] = { GPUPROJ_NV_GRID_DIM_X, NULL, K_COUNT },
	[SRC_GRID_Y] = { GPUPROJ_NV_GRID_DIM_Y, NULL, K_COUNT },
	[SRC_GRID_Z] = { GPUPROJ_NV_GRID_DIM_Z, NULL, K_COUNT },
	[SRC_BLOCK] = { "launch__block_size", NULL, K_COUNT },
	[SRC_BLOCK_L] = { "Block Size", LAUNCH, K_COUNT },
	[SRC_BLOCK_X] = { GPUPROJ_NV_BLOCK_DIM_X, NULL, K_COUNT },
	[SRC_BLOCK_Y] = { GPUPROJ_NV_BLOCK_DIM_Y, NULL, K_COUNT },
	[SRC_BLOCK_Z] = { GPUPROJ_NV_BLOCK_DIM_Z, NULL, K_COUNT },
	[SRC_SMS] = { "device__attribute_multiprocessor_count", NULL, K_COUNT },
	[SRC_SMS_L] = { "# SMs", LAUNCH, K_COUNT },
	[SRC_CC_MAJOR] = { "device__attribute_compute_capability_major", NULL, K_COUNT },
	[SRC_CC_MINOR] = { "device__attribute_compute_capability_minor", NULL, K_COUNT },
	/* CU_DEVICE_ATTRIBUTE_* as ncu names them (kHz, bits, bytes, counts). */
	[SRC_DEV_CLOCK] = { "device__attribute_clock_rate", NULL, K_COUNT },
	[SRC_DEV_MEMCLK] = { "device__attribute_memory_clock_rate", NULL, K_COUNT },
	[SRC_DEV_BUS] = { "device__attribute_global_memory_bus_width", NULL, K_COUNT },
	[SRC_DEV_MEM] = { "device__attribute_total_memory", NULL, K_SIZE },
	[SRC_DEV_L2] = { "device__attribute_l2_cache_size", NULL, K_SIZE },
	[SRC_DEV_THR_SM] = { "device__attribute_max_threads_per_multiprocessor", NULL, K_COUNT },
	[SRC_DEV_THR_BLK] = { "device__attribute_max_threads_per_block", NULL, K_COUNT },
	[SRC_DEV_BLK_SM] = { "device__attribute_max_blocks_per_multiprocessor", NULL, K_COUNT },
	[SRC_DEV_REG_SM] = { "device__attribute_max_registers_per_multiprocessor", NULL, K_COUNT },
	[SRC_DEV_REG_BLK] = { "device__attribute_max_registers_per_block", NULL, K_COUNT },
	[SRC_DEV_SMEM_SM] = { "device__attribute_max_shared_memory_per_multiprocessor", NULL,
			      K_SIZE },
	[SRC_DEV_SMEM_OPTIN] = { "device__attribute_max_shared_memory_per_block_optin", NULL,
				 K_SIZE },
	[SRC_DEV_SMEM_RES] = { "device__attribute_reserved_shared_memory_per_block", NULL,
			       K_SIZE },
	[SRC_DEV_WARP] = { "device__attribute_warp_size", NULL, K_COUNT },
	[SRC_CYC_SM] = { "sm__cycles_elapsed.avg", NULL, K_COUNT },
	[SRC_CYC_SMSP] = { "smsp__cycles_elapsed.avg", NULL, K_COUNT },
	[SRC_CLOCK_SMSP] = { "smsp__cycles_elapsed.avg.per_second", NULL, K_FREQ },
	/*
	 * The speed-of-light percentages, by metric name and by the labels of
	 * the section's versions (2019.5–2020: "SOL FB", "SOL L2", "SOL L1/TEX
	 * Cache" or "SOL TEX", "SM [%]"; 2021+: "DRAM Throughput", "L2 Cache
	 * Throughput", "L1/TEX Cache Throughput", "Compute (SM) Throughput").
	 */
	[SRC_SOL_DRAM] = { GPUPROJ_SOL_DRAM_PCT, NULL, K_PCT },
	[SRC_SOL_DRAM_OLD] = { "dram__throughput.avg.pct_of_peak_sustained_elapsed", NULL, K_PCT },
	[SRC_SOL_DRAM_L] = { "DRAM Throughput", SOL, K_PCT },
	[SRC_SOL_DRAM_L20] = { "SOL FB", SOL, K_PCT },
	[SRC_SOL_L2] = { GPUPROJ_SOL_L2_PCT, NULL, K_PCT },
	[SRC_SOL_L2_L] = { "L2 Cache Throughput", SOL, K_PCT },
	[SRC_SOL_L2_L20] = { "SOL L2", SOL, K_PCT },
	[SRC_SOL_L1] = { GPUPROJ_SOL_L1_PCT, NULL, K_PCT },
	[SRC_SOL_L1_L] = { "L1/TEX Cache Throughput", SOL, K_PCT },
	[SRC_SOL_L1_L20] = { "SOL L1/TEX Cache", SOL, K_PCT },
	[SRC_SOL_L1_TEX20] = { "SOL TEX", SOL, K_PCT },
	[SRC_SOL_SM] = { GPUPROJ_SOL_SM_PCT, NULL, K_PCT },
	[SRC_SOL_SM_L] = { "Compute (SM) Throughput", SOL, K_PCT },
	[SRC_SOL_SM_L20] = { "SM [%]", SOL, K_PCT },
	/* Memory Workload Analysis "Memory Throughput" is the DRAM byte rate. */
	[SRC_DRAM_BPS] = { "dram__bytes.sum.per_second", NULL, K_BW },
	[SRC_DRAM_BPS_L] = { "Memory Throughput", MWA, K_BW },
};

int
ncu_oom(struct importer *im, int line)
{
	return error_set(im->err, GPUPROJ_E_NOMEM, im->path, line, 0, "out of memory");
}

int
ncu_names_intern(struct importer *im, const char *s, size_t *ret)
{
	struct names *n = &im->names;
	size_t i;

	if (import_strmap_get(&n->map, s, ret))
		return GPUPROJ_OK;
	if (n->n == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 256;
		char **nv = realloc(n->v, cap * sizeof(*nv));

		if (!nv)
			return GPUPROJ_E_NOMEM;
		n->v = nv;
		n->cap = cap;
	}
	if (n->n >= im->cap_flags) {
		size_t cap = im->cap_flags ? im->cap_flags * 2 : 256;
		size_t *fu = realloc(im->first_unit, cap * sizeof(*fu)), *h;
		bool *w;

		if (!fu)
			return GPUPROJ_E_NOMEM;
		im->first_unit = fu;
		h = realloc(im->hint, cap * sizeof(*h));
		if (!h)
			return GPUPROJ_E_NOMEM;
		im->hint = h;
		w = realloc(im->warned, cap * sizeof(*w));
		if (!w)
			return GPUPROJ_E_NOMEM;
		im->warned = w;
		for (i = im->cap_flags; i < cap; i++) {
			fu[i] = SIZE_MAX;
			h[i] = 0;
			w[i] = false;
		}
		im->cap_flags = cap;
	}
	n->v[n->n] = strdup(s);
	if (!n->v[n->n])
		return GPUPROJ_E_NOMEM;
	if (import_strmap_put(&n->map, s, n->n)) {
		free(n->v[n->n]);
		return GPUPROJ_E_NOMEM;
	}
	*ret = n->n++;
	return GPUPROJ_OK;
}

/* Warn once per interned name. */
bool
ncu_warn_once(struct importer *im, const char *name)
{
	size_t id;

	if (ncu_names_intern(im, name, &id))
		return false;
	if (im->warned[id])
		return false;
	im->warned[id] = true;
	return true;
}

int
ncu_add_extra(struct importer *im, struct launch *L, const char *name, const char *unit,
	  double value, int line, int col)
{
	struct extra *e;
	size_t nid, uid;

	if (ncu_names_intern(im, name, &nid) || ncu_names_intern(im, unit, &uid))
		return GPUPROJ_E_NOMEM;
	if (L->n_extras == L->cap_extras) {
		size_t cap = L->cap_extras ? L->cap_extras * 2 : 16;

		e = realloc(L->extras, cap * sizeof(*e));
		if (!e)
			return GPUPROJ_E_NOMEM;
		L->extras = e;
		L->cap_extras = cap;
	}
	e = &L->extras[L->n_extras++];
	e->name = nid;
	e->unit = uid;
	e->seq = im->seq++;
	e->value = value;
	e->line = line;
	e->col = col;
	return GPUPROJ_OK;
}

/* ---- the collection command (gpuproj ncu-metrics) ---- */

/*
 * The metrics that give every input of the default model (model.h:
 * hroof-occ needs bytes.l1, bytes.l2, bytes.dram, shared.wavefronts, the FP
 * instruction counts and warp_efficiency; its occupancy term the launch
 * geometry, registers and shared memory), plus the GPU's name. The NVIDIA
 * names are the candidates libproj.so resolves on each chip, from the
 * core's one table (include/gpuproj/nvmetrics.h,
 * gpuproj_nv_candidate_on_chip(); tests/inject/test-ncu-metrics.c checks
 * every name with the real host API on GV100 … GB202). DRAM bytes are
 * collected as read + write: the same counters as dram__bytes.sum, and the
 * split feeds bytes.dram_read/_write.
 */
static const enum gpuproj_metric ncu_logical[] = {
	GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL,
	GPUPROJ_M_INST_FP32_FMA, GPUPROJ_M_INST_FP32_ADD, GPUPROJ_M_INST_FP32_MUL,
	GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL,
	GPUPROJ_M_WARP_EFFICIENCY, GPUPROJ_M_BYTES_L1, GPUPROJ_M_BYTES_L2,
	GPUPROJ_M_BYTES_DRAM_READ, GPUPROJ_M_BYTES_DRAM_WRITE, GPUPROJ_M_SHARED_WAVEFRONTS,
};

/* ncu's own: the launch geometry and resources, and the GPU's name. */
static const char *const ncu_launch[] = {
	GPUPROJ_NV_GRID_DIM_X, GPUPROJ_NV_GRID_DIM_Y, GPUPROJ_NV_GRID_DIM_Z,
	GPUPROJ_NV_BLOCK_DIM_X, GPUPROJ_NV_BLOCK_DIM_Y, GPUPROJ_NV_BLOCK_DIM_Z,
	GPUPROJ_NV_REGISTERS, GPUPROJ_NV_SMEM_STATIC, GPUPROJ_NV_SMEM_DYNAMIC,
	GPUPROJ_NV_DISPLAY_NAME,
};

static void
put_name(const char **names, size_t max, size_t *n, const char *name)
{
	if (names && *n < max)
		names[*n] = name;
	(*n)++;
}

size_t
gpuproj_ncu_metrics(const char *chip, const char **names, size_t max)
{
	size_t i, n = 0;

	put_name(names, max, &n, GPUPROJ_NV_DURATION);
	for (i = 0; i < ARRAY_LENGTH(ncu_logical); i++) {
		const struct gpuproj_nv_candidate *c =
			gpuproj_nv_candidate_on_chip(ncu_logical[i], chip);

		/* Every metric of the list has a one-name candidate on every chip. */
		if (c)
			put_name(names, max, &n, c->expr);
	}
	for (i = 0; i < ARRAY_LENGTH(ncu_launch); i++)
		put_name(names, max, &n, ncu_launch[i]);
	return n;
}

size_t
gpuproj_ncu_metrics_tensor(const char *chip, enum gpuproj_tensor_mode mode, const char **names,
			   size_t max)
{
	size_t n = gpuproj_ncu_metrics(chip, names, max);
	const char *scratch[64];

	/* The tensor names: into the caller's room after the common ones, or counted. */
	if (names && n < max)
		return n + gpuproj_tensor_metric_names(chip, mode, names + n, max - n);
	return n + gpuproj_tensor_metric_names(chip, mode, scratch, ARRAY_LENGTH(scratch));
}

bool
gpuproj_ncu_chip_known(const char *chip)
{
	return gpuproj_nv_chip_known(chip);
}
