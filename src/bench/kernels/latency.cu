/* SPDX-License-Identifier: MIT */
/*
 * Latency family: a single-thread pointer chase (docs/bench.md, "Latency").
 *
 * The buffer holds one 8-byte pointer per BENCH_CHASE_SPACING_B (128-byte)
 * line; element x points at element (a x + c) mod n, a full-period linear
 * congruential step (n a power of two, c odd, a = 1 mod 4: Hull and Dobell,
 * SIAM Review 4(3), 1962), so the chain is one cycle through every line of
 * the footprint in a scattered order. One thread follows it: each load's
 * address is the value of the load before, BENCH_CHASE_STEPS dependent
 * 64-bit loads per trip of a `#pragma unroll 1` loop, so the time per load
 * is the load-to-use latency of the level the footprint lives in. The
 * loads are plain `ld.global.u64` (no cache operator: the default .ca,
 * cached in L1 and L2 on CC 7.0 and later; written in PTX so that the
 * pointer, which the compiler cannot trace to a kernel argument, is still
 * loaded as global and not generic), as gpu-benches' gpu-latency loads:
 * the footprint, not a cache operator, picks the level.
 *
 * The position in the chain is kept in a device cell (`cursor`) between
 * launches: every launch goes on where the last one stopped, so a DRAM
 * footprint of several L2 sizes is not revisited (and cached) from one
 * launch to the next.
 *
 * tests/bench-build/sass-check.py asserts that the trip loop is exactly
 * BENCH_CHASE_STEPS LDG.E.64, each one's address the destination of the one
 * before (a dependent chain, not independent loads), and nothing else in
 * memory.
 */
#include "bench-kernels.h"

/* Multiplier and increment of the chain's LCG (Knuth's MMIX constants). */
#define CHASE_LCG_A 6364136223846793005ULL
#define CHASE_LCG_C 1442695040888963407ULL

extern "C" __global__ void __launch_bounds__(1024)
bench_latency_init(unsigned long long *buf, unsigned long long n)
{
	const unsigned long long words = BENCH_CHASE_SPACING_B / sizeof(unsigned long long);
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long x;

	for (x = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; x < n; x += stride) {
		unsigned long long next = (CHASE_LCG_A * x + CHASE_LCG_C) & (n - 1);

		buf[x * words] = (unsigned long long)(buf + next * words);
	}
}

extern "C" __global__ void __launch_bounds__(32)
bench_latency_chase(unsigned long long *cursor, int iters)
{
	unsigned long long p = *cursor;
	int i, k;

#pragma unroll 1
	for (i = 0; i < iters; i++) {
#pragma unroll
		for (k = 0; k < BENCH_CHASE_STEPS; k++)
			asm("ld.global.u64 %0, [%0];" : "+l"(p));
	}
	*cursor = p;
}

#ifndef __CUDACC_RTC__ /* host code (not compiled by NVRTC, which the sm_70 SASS check uses) */
cudaError_t
bench_latency_prepare(void *buf, size_t n, void *cursor, cudaStream_t s)
{
	unsigned long long start = (unsigned long long)(uintptr_t)buf;
	unsigned blocks = (unsigned)((n + 255) / 256);
	cudaError_t e;

	if (n == 0 || (n & (n - 1)))
		return cudaErrorInvalidValue;
	if (blocks > 65535)
		blocks = 65535;
	bench_latency_init<<<blocks, 256, 0, s>>>((unsigned long long *)buf,
						   (unsigned long long)n);
	e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(cursor, &start, sizeof(start), cudaMemcpyHostToDevice, s);
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(s);
	return e;
}

cudaError_t
bench_latency_launch(const struct bench_launch *l)
{
	/* One thread: nothing else competes for the level while the chain runs. */
	bench_latency_chase<<<1, 1, 0, l->stream>>>((unsigned long long *)l->c, l->iters);
	return cudaGetLastError();
}
#endif /* __CUDACC_RTC__ */
