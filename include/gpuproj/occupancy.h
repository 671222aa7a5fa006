/* SPDX-License-Identifier: MIT */
/**
 * @file occupancy.h
 * Theoretical occupancy of a kernel on a GPU from the limits in
 * targets.yaml (docs/targets-schema.md, `limits`), following the rules of
 * the CUDA occupancy calculator (the toolkit's cuda_occupancy.h,
 * cudaOccMaxActiveBlocksPerMultiprocessor()) with the default cache
 * configuration, so that [Srivastava-nd]'s O = active warps / max warps (§4.1.2)
 * can be computed for any GPU in the file, including ones the user does not
 * have.
 *
 * Blocks per SM, B = min(B_threads, B_regs, B_smem, B_blocks), where, for a
 * block of T threads on a GPU with warp size W:
 *
 * - warps per block w = ⌈T / W⌉; max warps per SM M = threads_per_sm / W;
 *   B_threads = ⌊M / w⌋ (0 when T > threads_per_block);
 * - registers (R per thread): one warp is allocated
 *   r_w = ⌈R·W / reg_alloc_unit⌉ · reg_alloc_unit registers; registers are
 *   split evenly over the P = schedulers_per_sm SM sub-partitions, so
 *   B_regs = ⌊⌊(regs_per_sm / P) / r_w⌋ · P / w⌋. The block fits only when
 *   R ≤ regs_per_thread and r_w · ⌈w / P⌉·P ≤ regs_per_block (the
 *   hardware check of cuda_occupancy.h) and, on CC 6.0 (GP100, P = 2),
 *   also fits with P = 4 (cuda_occupancy.h's compatibility rule with
 *   GP10x); R = 0 (unknown) applies no register limit;
 * - shared memory (S = static + dynamic bytes per block): the block is
 *   allocated s = ⌈(S + smem_reserved_per_block_b) / smem_alloc_unit_b⌉ ·
 *   smem_alloc_unit_b bytes (the reservation is 1 KiB on CC ≥ 8.0, 0
 *   before), B_smem = ⌊smem_per_sm_kib·1024 / s⌋ (no limit when s = 0); the
 *   block fits only when S ≤ smem_per_block_kib·1024 (the opt-in maximum:
 *   a launch that asked for more than 48 KiB has opted in);
 * - B_blocks = blocks_per_sm.
 *
 * Theoretical occupancy O = B·w / M. The carve-out is the maximum shared
 * memory per SM (cudaOcc's default preference). Barrier limits (CC ≥ 9.0)
 * never bind with one barrier per block and are not modelled; neither is
 * partitioned global caching (off by default).
 *
 * AMD CDNA targets use the same rules with their targets.yaml limits
 * (wavefront 64, one "sub-partition" per CU): an approximation, since
 * CDNA allocates vector registers per SIMD.
 *
 * Thread safety: pure functions.
 */
#ifndef GPUPROJ_OCCUPANCY_H
#define GPUPROJ_OCCUPANCY_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/error.h>
#include <gpuproj/target.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What limits the number of resident blocks (bit set; several may tie). */
enum gpuproj_occ_limit {
	GPUPROJ_OCC_LIMIT_THREADS = 1 << 0,   /**< warps (threads) per SM */
	GPUPROJ_OCC_LIMIT_REGISTERS = 1 << 1, /**< register file */
	GPUPROJ_OCC_LIMIT_SHARED = 1 << 2,    /**< shared memory */
	GPUPROJ_OCC_LIMIT_BLOCKS = 1 << 3,    /**< hardware blocks per SM */
};

/** Result of gpuproj_occupancy_compute(). */
struct gpuproj_occupancy {
	int warps_per_block;     /**< w = ⌈T / W⌉ */
	int max_warps_per_sm;    /**< M = threads_per_sm / W */
	int limit_threads;       /**< B_threads, blocks */
	int limit_regs;          /**< B_regs, blocks (INT_MAX when R = 0) */
	int limit_smem;          /**< B_smem, blocks (INT_MAX when nothing is allocated) */
	int limit_blocks;        /**< B_blocks = blocks_per_sm */
	int blocks_per_sm;       /**< B = min of the four; 0 when the block does not fit */
	int active_warps_per_sm; /**< B·w */
	double occupancy;        /**< O = B·w / M, 0..1 */
	unsigned limiting;       /**< enum gpuproj_occ_limit bits equal to B */
	int regs_per_warp;       /**< r_w, registers allocated per warp */
	int smem_per_block;      /**< s, shared memory allocated per block, bytes */
};

/**
 * Theoretical occupancy of a block configuration on a GPU (rules in the
 * file comment).
 *
 * @param gpu the GPU (its `limits`, `warp_size`, `schedulers_per_sm`)
 * @param threads_per_block T ≥ 1
 * @param regs_per_thread R ≥ 0 (0 = unknown: no register limit)
 * @param smem_per_block_b S ≥ 0, static + dynamic shared memory per block, bytes
 * @param[out] out filled in every case but GPUPROJ_E_INVAL
 * @return GPUPROJ_OK (B ≥ 1); GPUPROJ_E_UNSUPPORTED when the block cannot
 *         run on the GPU (too many threads, registers or shared memory:
 *         B = 0, and the limit that is 0 says which); GPUPROJ_E_INVAL for
 *         NULL pointers, T < 1, R < 0, S < 0, or a GPU with non-positive
 *         limits
 */
int gpuproj_occupancy_compute(const struct gpuproj_target *gpu, int threads_per_block,
			      int regs_per_thread, long smem_per_block_b,
			      struct gpuproj_occupancy *out);

/**
 * Names of the limiting factors, e.g. "registers" or "threads+blocks".
 * @param limiting enum gpuproj_occ_limit bits
 * @param buf output, NUL-terminated when size > 0
 * @return buf ("none" when no bit is set)
 */
char *gpuproj_occupancy_limit_names(unsigned limiting, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_OCCUPANCY_H */
