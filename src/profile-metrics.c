/* SPDX-License-Identifier: MIT */
/*
 * The logical-metric table (docs/internals/DESIGN.md §3): JSON name, unit, meaning.
 * NVIDIA's metric names for them are spelled once, as the GPUPROJ_NV_*
 * macros of include/gpuproj/nvmetrics.h; src/nvmetrics.c holds the ordered
 * candidates per logical metric and their chip restrictions, and
 * src/tensor.c the tensor-core counters'. libproj.so resolves those
 * candidates per chip with the CUPTI host API (inject/metrics-nvpw.c);
 * `gpuproj import ncu` maps an export's columns by the same names
 * (src/import-ncu-names.c); the other importers map their tools' names
 * onto this table. Thread safety: constant data only.
 */
#include "config.h"

#include <string.h>

#include <gpuproj/profile.h>

#include "util.h"

static const struct {
	const char *name, *unit, *desc;
} table[GPUPROJ_M_COUNT] = {
	[GPUPROJ_M_INST_FP16_FMA] = { "inst.fp16.fma", "count", "thread-level FP16 FMA instructions" },
	[GPUPROJ_M_INST_FP16_ADD] = { "inst.fp16.add", "count", "thread-level FP16 ADD instructions" },
	[GPUPROJ_M_INST_FP16_MUL] = { "inst.fp16.mul", "count", "thread-level FP16 MUL instructions" },
	[GPUPROJ_M_INST_FP32_FMA] = { "inst.fp32.fma", "count", "thread-level FP32 FMA instructions" },
	[GPUPROJ_M_INST_FP32_ADD] = { "inst.fp32.add", "count", "thread-level FP32 ADD instructions" },
	[GPUPROJ_M_INST_FP32_MUL] = { "inst.fp32.mul", "count", "thread-level FP32 MUL instructions" },
	[GPUPROJ_M_INST_FP64_FMA] = { "inst.fp64.fma", "count", "thread-level FP64 FMA instructions" },
	[GPUPROJ_M_INST_FP64_ADD] = { "inst.fp64.add", "count", "thread-level FP64 ADD instructions" },
	[GPUPROJ_M_INST_FP64_MUL] = { "inst.fp64.mul", "count", "thread-level FP64 MUL instructions" },
	[GPUPROJ_M_INST_FP16] = { "inst.fp16", "count", "all thread-level FP16 instructions" },
	[GPUPROJ_M_INST_FP32] = { "inst.fp32", "count", "all thread-level FP32 instructions" },
	[GPUPROJ_M_INST_FP64] = { "inst.fp64", "count", "all thread-level FP64 instructions" },
	[GPUPROJ_M_INST_INT] = { "inst.int", "count", "thread-level integer instructions" },
	[GPUPROJ_M_INST_LDST] = { "inst.ldst", "count", "thread-level load/store instructions" },
	[GPUPROJ_M_INST_OTHER] = { "inst.other", "count", "other thread-level instructions" },
	[GPUPROJ_M_INST_WARP] = { "inst.warp", "count", "executed warp instructions" },
	[GPUPROJ_M_INST_THREAD] = { "inst.thread", "count", "executed thread instructions" },
	[GPUPROJ_M_WARP_EFFICIENCY] = { "warp_efficiency", "ratio",
					"mean active threads per warp instruction / warp size" },
	[GPUPROJ_M_BYTES_L1] = { "bytes.l1", "B", "bytes through L1/TEX" },
	[GPUPROJ_M_BYTES_L2] = { "bytes.l2", "B", "bytes through L2" },
	[GPUPROJ_M_BYTES_DRAM] = { "bytes.dram", "B", "bytes read and written in DRAM" },
	[GPUPROJ_M_BYTES_DRAM_READ] = { "bytes.dram_read", "B", "bytes read from DRAM" },
	[GPUPROJ_M_BYTES_DRAM_WRITE] = { "bytes.dram_write", "B", "bytes written to DRAM" },
	[GPUPROJ_M_SHARED_BYTES] = { "shared.bytes", "B", "shared-memory bytes accessed" },
	[GPUPROJ_M_SHARED_WAVEFRONTS] = { "shared.wavefronts", "count",
					  "shared-memory wavefronts (128 B pipe cycles)" },
	[GPUPROJ_M_SHARED_BANK_CONFLICTS] = { "shared.bank_conflicts", "count",
					      "shared-memory bank conflicts" },
	[GPUPROJ_M_SECTORS_L1] = { "sectors.l1", "count", "32-byte L1 transactions" },
	[GPUPROJ_M_SECTORS_L2] = { "sectors.l2", "count", "32-byte L2 transactions" },
	[GPUPROJ_M_SECTORS_DRAM] = { "sectors.dram", "count", "32-byte DRAM transactions" },
	[GPUPROJ_M_OCCUPANCY_ACHIEVED] = { "occupancy.achieved", "ratio",
					   "achieved active warps / maximum warps per SM" },
	[GPUPROJ_M_CYCLES_SM_ACTIVE] = { "cycles.sm_active", "cycles", "mean SM active cycles" },
	[GPUPROJ_M_CLOCK_SM] = { "clock.sm", "Hz", "SM clock during the launch" },
	[GPUPROJ_M_FLOP_TENSOR_FP16] = { "flop.tensor.fp16", "FLOP",
					 "tensor-core FLOP, FP16 inputs, FP32 accumulate (or unsplit)" },
	[GPUPROJ_M_FLOP_TENSOR_FP16_ACC16] = { "flop.tensor.fp16_acc16", "FLOP",
					       "tensor-core FLOP, FP16 inputs, FP16 accumulate" },
	[GPUPROJ_M_FLOP_TENSOR_BF16] = { "flop.tensor.bf16", "FLOP", "tensor-core FLOP, BF16 inputs" },
	[GPUPROJ_M_FLOP_TENSOR_TF32] = { "flop.tensor.tf32", "FLOP", "tensor-core FLOP, TF32 inputs" },
	[GPUPROJ_M_FLOP_TENSOR_FP8] = { "flop.tensor.fp8", "FLOP", "tensor-core FLOP, FP8 inputs" },
	[GPUPROJ_M_FLOP_TENSOR_FP4] = { "flop.tensor.fp4", "FLOP",
					"tensor-core FLOP, FP4 and FP6 inputs" },
	[GPUPROJ_M_FLOP_TENSOR_INT8] = { "flop.tensor.int8", "OP",
					 "tensor-core integer operations, INT8 inputs" },
	[GPUPROJ_M_FLOP_TENSOR_FP64] = { "flop.tensor.fp64", "FLOP",
					 "tensor-core FLOP, FP64 inputs (DMMA)" },
	[GPUPROJ_M_INST_TENSOR] = { "inst.tensor", "count", "warp instructions of the tensor pipe" },
	[GPUPROJ_M_TENSOR_UTILIZATION] = { "tensor.utilization", "ratio",
					   "tensor-pipe active cycles / SM active cycles" },
};

const char *
gpuproj_metric_name(enum gpuproj_metric m)
{
	return (unsigned)m < GPUPROJ_M_COUNT ? table[m].name : NULL;
}

const char *
gpuproj_metric_unit(enum gpuproj_metric m)
{
	return (unsigned)m < GPUPROJ_M_COUNT ? table[m].unit : NULL;
}

int
gpuproj_metric_range(enum gpuproj_metric m, double *ret_lo, double *ret_hi)
{
	const char *unit = gpuproj_metric_unit(m);

	if (!unit)
		return GPUPROJ_E_INVAL;
	*ret_lo = 0;
	if (strcmp(unit, "ratio") == 0)
		*ret_hi = 1;
	else if (strcmp(unit, "Hz") == 0)
		*ret_hi = GPUPROJ_MAX_CLOCK_HZ;
	else
		*ret_hi = GPUPROJ_MAX_METRIC;
	return GPUPROJ_OK;
}

const char *
gpuproj_metric_description(enum gpuproj_metric m)
{
	return (unsigned)m < GPUPROJ_M_COUNT ? table[m].desc : NULL;
}

int
gpuproj_metric_from_name(const char *name, enum gpuproj_metric *ret)
{
	unsigned i;

	if (!name)
		return GPUPROJ_E_INVAL;
	for (i = 0; i < GPUPROJ_M_COUNT; i++) {
		if (strcmp(table[i].name, name) == 0) {
			*ret = (enum gpuproj_metric)i;
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_NOTFOUND;
}
