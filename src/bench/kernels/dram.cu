/* SPDX-License-Identifier: MIT */
/*
 * DRAM family, after STREAM and BabelStream (double arrays, one pass over
 * each array per launch, grid-stride loops over a grid that fills every
 * SM once): init (a = s, write only), read (sum of a, read only), copy
 * (c = a), scale (b = s * c), triad (a = b + s * c). Bytes per launch:
 * 1, 1, 2, 2 and 3 arrays (a store writes whole 32 B sectors, so no read
 * for ownership is counted). The arrays are at least 4x the L2 (the plan
 * in src/bench/bench-plan.c sizes them).
 *
 * Each thread handles four elements per loop trip (independent loads in
 * flight); the remainder runs in a second loop.
 */
#include "bench-kernels.h"

#define DRAM_UNROLL 4

extern "C" __global__ void __launch_bounds__(1024)
bench_dram_init(double *a, size_t n, double s)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	int k;

	for (; i + (DRAM_UNROLL - 1) * stride < n; i += DRAM_UNROLL * stride) {
#pragma unroll
		for (k = 0; k < DRAM_UNROLL; k++)
			a[i + k * stride] = s;
	}
	for (; i < n; i += stride)
		a[i] = s;
}

extern "C" __global__ void __launch_bounds__(1024)
bench_dram_read(const double *__restrict__ a, size_t n, double sentinel, double *sink)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, i = t;
	double acc[DRAM_UNROLL] = { 0 };
	int k;

	for (; i + (DRAM_UNROLL - 1) * stride < n; i += DRAM_UNROLL * stride) {
#pragma unroll
		for (k = 0; k < DRAM_UNROLL; k++)
			acc[k] += a[i + k * stride];
	}
	for (; i < n; i += stride)
		acc[0] += a[i];
	if (acc[0] + acc[1] + acc[2] + acc[3] == sentinel)
		sink[t] = acc[0];
}

extern "C" __global__ void __launch_bounds__(1024)
bench_dram_copy(const double *__restrict__ a, double *__restrict__ c, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	int k;

	for (; i + (DRAM_UNROLL - 1) * stride < n; i += DRAM_UNROLL * stride) {
#pragma unroll
		for (k = 0; k < DRAM_UNROLL; k++)
			c[i + k * stride] = a[i + k * stride];
	}
	for (; i < n; i += stride)
		c[i] = a[i];
}

extern "C" __global__ void __launch_bounds__(1024)
bench_dram_scale(double *__restrict__ b, const double *__restrict__ c, size_t n, double s)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	int k;

	for (; i + (DRAM_UNROLL - 1) * stride < n; i += DRAM_UNROLL * stride) {
#pragma unroll
		for (k = 0; k < DRAM_UNROLL; k++)
			b[i + k * stride] = s * c[i + k * stride];
	}
	for (; i < n; i += stride)
		b[i] = s * c[i];
}

extern "C" __global__ void __launch_bounds__(1024)
bench_dram_triad(double *__restrict__ a, const double *__restrict__ b,
		 const double *__restrict__ c, size_t n, double s)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	int k;

	for (; i + (DRAM_UNROLL - 1) * stride < n; i += DRAM_UNROLL * stride) {
#pragma unroll
		for (k = 0; k < DRAM_UNROLL; k++)
			a[i + k * stride] = b[i + k * stride] + s * c[i + k * stride];
	}
	for (; i < n; i += stride)
		a[i] = b[i] + s * c[i];
}

#ifndef __CUDACC_RTC__ /* host code: launches and occupancy (not compiled by NVRTC, which the sm_70 SASS check uses) */
cudaError_t
bench_dram_launch(enum bench_dram kind, const struct bench_launch *l)
{
	double *a = (double *)l->a, *b = (double *)l->b, *c = (double *)l->c;
	const double s = 0.4; /* BabelStream's scalar */

	switch (kind) {
	case BENCH_INIT:
		bench_dram_init<<<l->blocks, l->threads, 0, l->stream>>>(a, l->n, 0.1);
		break;
	case BENCH_READ:
		bench_dram_read<<<l->blocks, l->threads, 0, l->stream>>>(a, l->n, -1.25,
									(double *)l->sink);
		break;
	case BENCH_COPY:
		bench_dram_copy<<<l->blocks, l->threads, 0, l->stream>>>(a, c, l->n);
		break;
	case BENCH_SCALE:
		bench_dram_scale<<<l->blocks, l->threads, 0, l->stream>>>(b, c, l->n, s);
		break;
	case BENCH_TRIAD:
		bench_dram_triad<<<l->blocks, l->threads, 0, l->stream>>>(a, b, c, l->n, s);
		break;
	}
	return cudaGetLastError();
}

cudaError_t
bench_dram_occupancy(enum bench_dram kind, unsigned threads, int *ret)
{
	static const void *const k[] = {
		(const void *)bench_dram_init, (const void *)bench_dram_read,
		(const void *)bench_dram_copy, (const void *)bench_dram_scale,
		(const void *)bench_dram_triad,
	};

	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(ret, k[kind], (int)threads, 0);
}
#endif /* __CUDACC_RTC__ */
