/* SPDX-License-Identifier: MIT */
/*
 * Cache family.
 *
 * L2: every thread of a full grid walks a buffer of `n` 16-byte elements with stride
 * (grid size) mod n, wrapping at the end, BENCH_CACHE_LOADS_PER_ITER
 * independent 16-byte loads per loop trip, all with ld.global.cg (cached in
 * L2 only, so the L1 never serves them). The plan sweeps the footprint from
 * 1/8 to 2x the L2 size; within the L2 the bandwidth is the L2's.
 *
 * L1: one block per SM re-reads its own buffer of 16-64 KiB (a power of
 * two, so the index wraps with a mask) with ld.global.nc (the L1/texture
 * path), 16-byte loads.
 *
 * Loaded values are summed and stored only on a sentinel match.
 */
#include "bench-kernels.h"

extern "C" __global__ void __launch_bounds__(1024)
bench_l2_read(const uint4 *__restrict__ buf, unsigned n, unsigned step, int iters,
	      unsigned sentinel, unsigned *sink)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned idx = t % n, a = 0, b = 0;
	int i, k;

#pragma unroll 1
	for (i = 0; i < iters; i++) {
#pragma unroll
		for (k = 0; k < BENCH_CACHE_LOADS_PER_ITER; k++) {
			uint4 v = __ldcg(buf + idx);

			a ^= v.x ^ v.y;
			b ^= v.z ^ v.w;
			idx += step;
			if (idx >= n)
				idx -= n;
		}
	}
	if ((a ^ b) == sentinel)
		sink[t] = a;
}

extern "C" __global__ void __launch_bounds__(1024)
bench_l1_read(const uint4 *__restrict__ buf, unsigned mask, int iters, unsigned sentinel,
	      unsigned *sink)
{
	const uint4 *p = buf + (size_t)blockIdx.x * (mask + 1);
	unsigned idx = threadIdx.x, a = 0, b = 0;
	int i, k;

	/* Opaque to the optimiser: keeps the block's base out of the 32-bit index math. */
	asm("" : "+l"(p));
#pragma unroll 1
	for (i = 0; i < iters; i++) {
#pragma unroll
		for (k = 0; k < BENCH_CACHE_LOADS_PER_ITER; k++) {
			uint4 v = __ldg(p + (idx & mask));

			a ^= v.x ^ v.y;
			b ^= v.z ^ v.w;
			idx += blockDim.x;
		}
	}
	if ((a ^ b) == sentinel)
		sink[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

#ifndef __CUDACC_RTC__ /* host code: launches and occupancy (not compiled by NVRTC, which the sm_70 SASS check uses) */
cudaError_t
bench_l2_launch(const struct bench_launch *l)
{
	unsigned n = (unsigned)l->n;
	unsigned grid = l->blocks * l->threads;

	bench_l2_read<<<l->blocks, l->threads, 0, l->stream>>>((const uint4 *)l->a, n, grid % n,
							       l->iters, 0xdeadbeefu,
							       (unsigned *)l->sink);
	return cudaGetLastError();
}

cudaError_t
bench_l1_launch(const struct bench_launch *l)
{
	/* l->n: 16-byte elements per block, a power of two. */
	bench_l1_read<<<l->blocks, l->threads, 0, l->stream>>>((const uint4 *)l->a,
							       (unsigned)l->n - 1, l->iters,
							       0xdeadbeefu, (unsigned *)l->sink);
	return cudaGetLastError();
}

cudaError_t
bench_cache_occupancy(bool l1, unsigned threads, int *ret)
{
	const void *k = l1 ? (const void *)bench_l1_read : (const void *)bench_l2_read;

	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(ret, k, (int)threads, 0);
}
#endif /* __CUDACC_RTC__ */
