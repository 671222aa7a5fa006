/* SPDX-License-Identifier: MIT */
/*
 * Occupancy calculator (include/gpuproj/occupancy.h): blocks per SM from
 * the targets.yaml limits, by the rules of the CUDA occupancy calculator
 * (cuda_occupancy.h: cudaOccMaxBlocksPerSMWarpsLimit, ...RegsLimit,
 * ...SmemLimit, cudaOccMaxBlocksPerMultiprocessor). The rules are spelled
 * out in the header. Thread safety: pure functions.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <gpuproj/occupancy.h>

static long
div_round_up(long x, long y)
{
	return (x + y - 1) / y;
}

static long
round_up(long x, long y)
{
	return y * div_round_up(x, y);
}

static int
imin(int a, int b)
{
	return a < b ? a : b;
}

int
gpuproj_occupancy_compute(const struct gpuproj_target *gpu, int threads_per_block,
			  int regs_per_thread, long smem_per_block_b, struct gpuproj_occupancy *out)
{
	const struct gpuproj_target_limits *L;
	int W, w, M, P;
	long smem_total;

	if (!gpu || !out || threads_per_block < 1 || regs_per_thread < 0 || smem_per_block_b < 0)
		return GPUPROJ_E_INVAL;
	L = &gpu->limits;
	W = gpu->warp_size;
	P = gpu->schedulers_per_sm > 0 ? gpu->schedulers_per_sm : 1;
	if (W < 1 || L->threads_per_sm < W || L->threads_per_block < 1 || L->blocks_per_sm < 1 ||
	    L->regs_per_sm < 1 || L->regs_per_block < 1 || L->reg_alloc_unit < 1 ||
	    L->smem_per_sm_kib < 0 || L->smem_alloc_unit_b < 1)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));

	w = (int)div_round_up(threads_per_block, W);
	M = L->threads_per_sm / W;
	out->warps_per_block = w;
	out->max_warps_per_sm = M;

	/* Threads (warps) per SM: cudaOccMaxBlocksPerSMWarpsLimit. */
	out->limit_threads = threads_per_block > L->threads_per_block ? 0 : M / w;

	/* Registers: cudaOccMaxBlocksPerSMRegsLimit (per sub-partition). */
	if (regs_per_thread == 0) {
		out->limit_regs = INT_MAX;
	} else {
		long rw = round_up((long)regs_per_thread * W, L->reg_alloc_unit);
		long assumed = rw * round_up(w, P), allocated = rw * w;

		out->regs_per_warp = (int)rw;
		if (regs_per_thread > L->regs_per_thread || assumed > L->regs_per_block ||
		    allocated > L->regs_per_block)
			out->limit_regs = 0;
		else
			out->limit_regs = (int)(((long)L->regs_per_sm / P / rw) * P / w);
		/*
		 * CC 6.0 (GP100, 2 sub-partitions): a block that could not run on
		 * a 4-sub-partition GP10x is not run on GP100 either (the
		 * forward-compatibility rule of cuda_occupancy.h).
		 */
		if (gpu->vendor == GPUPROJ_VENDOR_NVIDIA && gpu->cc_major == 6 && gpu->cc_minor == 0 &&
		    P != 4 && (rw * round_up(w, 4) > L->regs_per_block ||
			       ((long)L->regs_per_sm / 4 / rw) * 4 / w == 0))
			out->limit_regs = 0;
	}

	/* Shared memory: cudaOccMaxBlocksPerSMSmemLimit (default carve-out = maximum). */
	smem_total = smem_per_block_b + L->smem_reserved_per_block_b;
	out->smem_per_block = (int)round_up(smem_total, L->smem_alloc_unit_b);
	if (smem_per_block_b > (long)L->smem_per_block_kib * 1024)
		out->limit_smem = 0;
	else if (out->smem_per_block == 0)
		out->limit_smem = INT_MAX;
	else
		out->limit_smem = (int)((long)L->smem_per_sm_kib * 1024 / out->smem_per_block);

	/* Hardware limit: cudaOccMaxBlocksPerMultiprocessor. */
	out->limit_blocks = L->blocks_per_sm;

	out->blocks_per_sm = imin(imin(out->limit_threads, out->limit_regs),
				  imin(out->limit_smem, out->limit_blocks));
	if (out->blocks_per_sm == out->limit_threads)
		out->limiting |= GPUPROJ_OCC_LIMIT_THREADS;
	if (out->blocks_per_sm == out->limit_regs)
		out->limiting |= GPUPROJ_OCC_LIMIT_REGISTERS;
	if (out->blocks_per_sm == out->limit_smem)
		out->limiting |= GPUPROJ_OCC_LIMIT_SHARED;
	if (out->blocks_per_sm == out->limit_blocks)
		out->limiting |= GPUPROJ_OCC_LIMIT_BLOCKS;
	out->active_warps_per_sm = out->blocks_per_sm * w;
	out->occupancy = (double)out->active_warps_per_sm / (double)M;
	return out->blocks_per_sm > 0 ? GPUPROJ_OK : GPUPROJ_E_UNSUPPORTED;
}

char *
gpuproj_occupancy_limit_names(unsigned limiting, char *buf, size_t size)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ GPUPROJ_OCC_LIMIT_THREADS, "threads" },
		{ GPUPROJ_OCC_LIMIT_REGISTERS, "registers" },
		{ GPUPROJ_OCC_LIMIT_SHARED, "shared" },
		{ GPUPROJ_OCC_LIMIT_BLOCKS, "blocks" },
	};
	size_t i, len = 0;

	if (!buf || size == 0)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int n;

		if (!(limiting & names[i].bit))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? "+" : "", names[i].name);
		if (n < 0 || (size_t)n >= size - len)
			return buf;
		len += (size_t)n;
	}
	if (!len)
		snprintf(buf, size, "none");
	return buf;
}
