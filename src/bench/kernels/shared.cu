/* SPDX-License-Identifier: MIT */
/*
 * Shared-memory family.
 *
 * Bank conflicts: lane l of every warp reads the 32-bit word
 * l * stride + o, where o is a multiple of 32 words, so its bank is
 * (l * stride) mod 32: stride 1 is conflict-free (one wavefront per warp
 * instruction, 128 B per clock per SM on every NVIDIA part since Maxwell),
 * stride s (a power of two up to 32) is an s-way conflict. Each loop trip
 * issues BENCH_SHARED_LOADS_PER_ITER independent 32-bit loads at immediate
 * offsets k * 32 words from one base, which advances by 512 words per trip
 * within the first half of the buffer. Bytes counted are the bytes the
 * threads asked for (4 per lane and load), so an s-way conflict shows up
 * as 1/s of the conflict-free rate.
 *
 * Load/store instruction rate ([Konstantinidis2017]'s T_ldst): each trip
 * BENCH_LDST_PAIRS_PER_ITER conflict-free loads from the first half and as
 * many stores to the second half; one thread instruction each.
 *
 * The buffer is BENCH_SHARED_WORDS 32-bit words of dynamic shared memory.
 */
#include "bench-kernels.h"

/* The trip offset cycles through [0, WORDS/2) in steps of 512 words. */
#define TRIP_WORDS (BENCH_SHARED_LOADS_PER_ITER * 32)
#define TRIP_MASK ((BENCH_SHARED_WORDS / 2 - 1) & ~(TRIP_WORDS - 1))

extern "C" __global__ void __launch_bounds__(1024)
bench_shared_read(unsigned stride, int iters, unsigned sentinel, unsigned *sink)
{
	extern __shared__ unsigned sm[];
	unsigned lane = threadIdx.x & 31, base = lane * stride, o = 0, acc = 0;
	int i, k;

	for (i = threadIdx.x; i < BENCH_SHARED_WORDS; i += blockDim.x)
		sm[i] = (unsigned)i * 2654435761u;
	__syncthreads();
#pragma unroll 1
	for (i = 0; i < iters; i++) {
		const unsigned *p = sm + base + o;

#pragma unroll
		for (k = 0; k < BENCH_SHARED_LOADS_PER_ITER; k++)
			acc ^= p[k * 32];
		o = (o + TRIP_WORDS) & TRIP_MASK;
	}
	if (acc == sentinel)
		sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(1024)
bench_shared_ldst(int iters, unsigned sentinel, unsigned *sink)
{
	extern __shared__ unsigned sm[];
	unsigned lane = threadIdx.x & 31, o = 0, acc = 0;
	int i, k;

	for (i = threadIdx.x; i < BENCH_SHARED_WORDS; i += blockDim.x)
		sm[i] = (unsigned)i;
	__syncthreads();
#pragma unroll 1
	for (i = 0; i < iters; i++) {
		unsigned *p = sm + lane + o;

#pragma unroll
		for (k = 0; k < BENCH_LDST_PAIRS_PER_ITER; k++) {
			unsigned v = p[k * 32];

			p[BENCH_SHARED_WORDS / 2 + k * 32] = v + (unsigned)k;
		}
		o = (o + BENCH_LDST_PAIRS_PER_ITER * 32) & (BENCH_SHARED_WORDS / 2 - 1);
	}
	__syncthreads();
	acc = sm[BENCH_SHARED_WORDS / 2 + threadIdx.x % (BENCH_SHARED_WORDS / 2)];
	if (acc == sentinel)
		sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#ifndef __CUDACC_RTC__ /* host code: launches and occupancy (not compiled by NVRTC, which the sm_70 SASS check uses) */
cudaError_t
bench_shared_launch(const struct bench_launch *l)
{
	bench_shared_read<<<l->blocks, l->threads, BENCH_SHARED_WORDS * 4, l->stream>>>(
		l->stride, l->iters, 0xdeadbeefu, (unsigned *)l->sink);
	return cudaGetLastError();
}

cudaError_t
bench_ldst_launch(const struct bench_launch *l)
{
	bench_shared_ldst<<<l->blocks, l->threads, BENCH_SHARED_WORDS * 4, l->stream>>>(
		l->iters, 0xdeadbeefu, (unsigned *)l->sink);
	return cudaGetLastError();
}

cudaError_t
bench_shared_occupancy(bool ldst, unsigned threads, int *ret)
{
	const void *k = ldst ? (const void *)bench_shared_ldst : (const void *)bench_shared_read;

	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(ret, k, (int)threads,
							     BENCH_SHARED_WORDS * 4);
}
#endif /* __CUDACC_RTC__ */
