/* SPDX-License-Identifier: MIT */
/*
 * Compute family: FP64/FP32/FP16 FMA, ADD and MUL throughput, integer add
 * (IADD3) and multiply-add (IMAD) throughput, and the warp-instruction
 * rate (peak GIPS, [Leinhauser2022]) from a mix of IMAD (FMA pipe) and LOP3 (ALU
 * pipe) that lets every scheduler issue one instruction per clock.
 *
 * Kernels are extern "C" so that the SASS check finds them by name:
 * bench_<prec>_<op>, bench_int32_add, bench_int32_mad, bench_gips.
 * Methodology in bench-kernels.h and docs/bench.md.
 */
#ifndef __CUDACC_RTC__
#include <string.h>
#endif

#include <cuda_fp16.h>

#include "bench-kernels.h"

/* Explicit fused multiply-add (independent of -fmad). */
__device__ __forceinline__ float
fused(float x, float a, float b)
{
	return __fmaf_rn(x, a, b);
}

__device__ __forceinline__ double
fused(double x, double a, double b)
{
	return __fma_rn(x, a, b);
}

/* One step of chain x: the operation the benchmark is named after. */
template <typename T, int OP>
__device__ __forceinline__ T
fp_step(T x, T a, T b)
{
	if (OP == BENCH_FMA)
		return fused(x, a, b);
	if (OP == BENCH_ADD)
		return x + b;
	return x * a;
}

template <int OP>
__device__ __forceinline__ __half2
h2_step(__half2 x, __half2 a, __half2 b)
{
	if (OP == BENCH_FMA)
		return __hfma2(x, a, b);
	if (OP == BENCH_ADD)
		return __hadd2(x, b);
	return __hmul2(x, a);
}

/*
 * BENCH_CHAINS chains of BENCH_STEPS dependent steps per iteration; the
 * chains start from different values and are folded into one, stored only
 * when it equals the runtime sentinel (never, in practice).
 */
template <typename T, int OP>
__device__ __forceinline__ void
fp_body(T a, T b, int iters, T sentinel, T *sink)
{
	T x[BENCH_CHAINS];
	T sum = (T)0;
	int i, s, j;

#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++)
		x[j] = (T)(threadIdx.x + j);
#pragma unroll 1
	for (i = 0; i < iters; i++) {
#pragma unroll
		for (s = 0; s < BENCH_STEPS; s++) {
#pragma unroll
			for (j = 0; j < BENCH_CHAINS; j++)
				x[j] = fp_step<T, OP>(x[j], a, b);
		}
	}
#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++)
		sum += x[j];
	if (sum == sentinel)
		sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/* FP16 as half2: one HFMA2 is two FMAs per lane (4 FLOP). */
template <int OP>
__device__ __forceinline__ void
h2_body(unsigned ua, unsigned ub, int iters, unsigned sentinel, unsigned *sink)
{
	__half2 a = *reinterpret_cast<__half2 *>(&ua);
	__half2 b = *reinterpret_cast<__half2 *>(&ub);
	__half2 x[BENCH_CHAINS];
	unsigned sum = 0;
	int i, s, j;

#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++)
		x[j] = __halves2half2(__int2half_rn((int)threadIdx.x + j), __int2half_rn(j));
#pragma unroll 1
	for (i = 0; i < iters; i++) {
#pragma unroll
		for (s = 0; s < BENCH_STEPS; s++) {
#pragma unroll
			for (j = 0; j < BENCH_CHAINS; j++)
				x[j] = h2_step<OP>(x[j], a, b);
		}
	}
#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++)
		sum ^= *reinterpret_cast<unsigned *>(&x[j]);
	if (sum == sentinel)
		sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

#define FP_KERNEL(name, T, OP)                                                     \
	extern "C" __global__ void __launch_bounds__(1024)                          \
	name(T a, T b, int iters, T sentinel, T *sink)                               \
	{                                                                           \
		fp_body<T, OP>(a, b, iters, sentinel, sink);                        \
	}
#define H2_KERNEL(name, OP)                                                        \
	extern "C" __global__ void __launch_bounds__(1024)                          \
	name(unsigned a, unsigned b, int iters, unsigned sentinel, unsigned *sink)   \
	{                                                                           \
		h2_body<OP>(a, b, iters, sentinel, sink);                           \
	}

FP_KERNEL(bench_fp64_fma, double, BENCH_FMA)
FP_KERNEL(bench_fp64_add, double, BENCH_ADD)
FP_KERNEL(bench_fp64_mul, double, BENCH_MUL)
FP_KERNEL(bench_fp32_fma, float, BENCH_FMA)
FP_KERNEL(bench_fp32_add, float, BENCH_ADD)
FP_KERNEL(bench_fp32_mul, float, BENCH_MUL)
H2_KERNEL(bench_fp16_fma, BENCH_FMA)
H2_KERNEL(bench_fp16_add, BENCH_ADD)
H2_KERNEL(bench_fp16_mul, BENCH_MUL)

/*
 * Integer add. `x += c` chains would be folded (x + 8c); each step adds a
 * neighbouring chain too, x[j] = x[j] + x[j+1] + c, which the compiler
 * cannot simplify and which compiles to one three-input IADD3 (a two-input
 * add may be issued as IMAD.IADD on the FMA pipe instead). One IADD3 counts
 * as one integer op, as in the targets schema ("1 op per IADD").
 */
extern "C" __global__ void __launch_bounds__(1024)
bench_int32_add(unsigned c, int iters, unsigned sentinel, unsigned *sink)
{
	unsigned x[BENCH_CHAINS];
	unsigned sum = 0;
	int i, s, j;

#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++)
		x[j] = threadIdx.x + j * c;
#pragma unroll 1
	for (i = 0; i < iters; i++) {
#pragma unroll
		for (s = 0; s < BENCH_STEPS; s++) {
#pragma unroll
			for (j = 0; j < BENCH_CHAINS; j++)
				x[j] = x[j] + x[(j + 1) % BENCH_CHAINS] + c;
		}
	}
#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++)
		sum ^= x[j];
	if (sum == sentinel)
		sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/* Integer multiply-add, x = x * a + b: one IMAD, 2 integer ops. */
extern "C" __global__ void __launch_bounds__(1024)
bench_int32_mad(unsigned a, unsigned b, int iters, unsigned sentinel, unsigned *sink)
{
	unsigned x[BENCH_CHAINS];
	unsigned sum = 0;
	int i, s, j;

#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++)
		x[j] = threadIdx.x + j;
#pragma unroll 1
	for (i = 0; i < iters; i++) {
#pragma unroll
		for (s = 0; s < BENCH_STEPS; s++) {
#pragma unroll
			for (j = 0; j < BENCH_CHAINS; j++)
				x[j] = x[j] * a + b;
		}
	}
#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++)
		sum ^= x[j];
	if (sum == sentinel)
		sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/*
 * Warp-instruction rate: BENCH_CHAINS pairs, each step one IMAD (FMA pipe)
 * and one LOP3 (ALU pipe) that depend on each other, so neither folds;
 * alternating pipes lets each scheduler issue every clock.
 */
extern "C" __global__ void __launch_bounds__(1024)
bench_gips(unsigned a, int iters, unsigned sentinel, unsigned *sink)
{
	unsigned x[BENCH_CHAINS], y[BENCH_CHAINS];
	unsigned sum = 0;
	int i, s, j;

#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++) {
		x[j] = threadIdx.x + j;
		y[j] = threadIdx.x * (j + 1);
	}
#pragma unroll 1
	for (i = 0; i < iters; i++) {
#pragma unroll
		for (s = 0; s < BENCH_STEPS / 2; s++) {
#pragma unroll
			for (j = 0; j < BENCH_CHAINS; j++) {
				x[j] = x[j] * a + y[j];
				y[j] = y[j] ^ x[j];
			}
		}
	}
#pragma unroll
	for (j = 0; j < BENCH_CHAINS; j++)
		sum ^= x[j] + y[j];
	if (sum == sentinel)
		sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/* Clock warm-up: FP32 FMA chains, like bench_fp32_fma. */
extern "C" __global__ void __launch_bounds__(1024)
bench_spin(float a, float b, int iters, float sentinel, float *sink)
{
	fp_body<float, BENCH_FMA>(a, b, iters, sentinel, sink);
}

#ifndef __CUDACC_RTC__ /* host code: launches and occupancy (not compiled by NVRTC, which the sm_70 SASS check uses) */
/* half2 {v, v} as the bits the FP16 kernels take. */
static unsigned
h2_bits(float v)
{
	__half2 h = __float2half2_rn(v);
	unsigned u;

	memcpy(&u, &h, sizeof(u));
	return u;
}

/*
 * Values: FMA x*a+b with a = 0.999, b = 0.001 stays near 1; ADD grows
 * slowly; MUL uses a = 1 (the value is unknown to the compiler, and the
 * hardware has no shortcut for it). The sentinel is never reached.
 */
cudaError_t
bench_fp_launch(enum bench_prec prec, enum bench_fop op, const struct bench_launch *l)
{
	dim3 g(l->blocks), t(l->threads);
	float fa = op == BENCH_MUL ? 1.0f : 0.999f, fb = 0.001f;

	switch (prec) {
	case BENCH_FP64: {
		double *s = (double *)l->sink;

		if (op == BENCH_FMA)
			bench_fp64_fma<<<g, t, 0, l->stream>>>(fa, fb, l->iters, -1.25, s);
		else if (op == BENCH_ADD)
			bench_fp64_add<<<g, t, 0, l->stream>>>(fa, fb, l->iters, -1.25, s);
		else
			bench_fp64_mul<<<g, t, 0, l->stream>>>(fa, fb, l->iters, -1.25, s);
		break;
	}
	case BENCH_FP32: {
		float *s = (float *)l->sink;

		if (op == BENCH_FMA)
			bench_fp32_fma<<<g, t, 0, l->stream>>>(fa, fb, l->iters, -1.25f, s);
		else if (op == BENCH_ADD)
			bench_fp32_add<<<g, t, 0, l->stream>>>(fa, fb, l->iters, -1.25f, s);
		else
			bench_fp32_mul<<<g, t, 0, l->stream>>>(fa, fb, l->iters, -1.25f, s);
		break;
	}
	case BENCH_FP16: {
		unsigned *s = (unsigned *)l->sink;
		unsigned ha = h2_bits(fa), hb = h2_bits(fb);

		if (op == BENCH_FMA)
			bench_fp16_fma<<<g, t, 0, l->stream>>>(ha, hb, l->iters, 0xdeadbeefu, s);
		else if (op == BENCH_ADD)
			bench_fp16_add<<<g, t, 0, l->stream>>>(ha, hb, l->iters, 0xdeadbeefu, s);
		else
			bench_fp16_mul<<<g, t, 0, l->stream>>>(ha, hb, l->iters, 0xdeadbeefu, s);
		break;
	}
	}
	return cudaGetLastError();
}

cudaError_t
bench_int_launch(enum bench_iop op, const struct bench_launch *l)
{
	unsigned *s = (unsigned *)l->sink;

	if (op == BENCH_IADD)
		bench_int32_add<<<l->blocks, l->threads, 0, l->stream>>>(3u, l->iters, 0xdeadbeefu,
									 s);
	else
		bench_int32_mad<<<l->blocks, l->threads, 0, l->stream>>>(0x9e3779b1u, 7u, l->iters,
									   0xdeadbeefu, s);
	return cudaGetLastError();
}

cudaError_t
bench_gips_launch(const struct bench_launch *l)
{
	bench_gips<<<l->blocks, l->threads, 0, l->stream>>>(0x9e3779b1u, l->iters, 0xdeadbeefu,
							     (unsigned *)l->sink);
	return cudaGetLastError();
}

cudaError_t
bench_spin_launch(const struct bench_launch *l)
{
	bench_spin<<<l->blocks, l->threads, 0, l->stream>>>(0.999f, 0.001f, l->iters, -1.25f,
							     (float *)l->sink);
	return cudaGetLastError();
}

cudaError_t
bench_compute_occupancy(int what, int sub1, int sub2, unsigned threads, int *ret)
{
	/* [enum bench_prec][enum bench_fop] */
	static const void *const fp[3][3] = {
		{ (const void *)bench_fp16_fma, (const void *)bench_fp16_add,
		  (const void *)bench_fp16_mul },
		{ (const void *)bench_fp32_fma, (const void *)bench_fp32_add,
		  (const void *)bench_fp32_mul },
		{ (const void *)bench_fp64_fma, (const void *)bench_fp64_add,
		  (const void *)bench_fp64_mul },
	};
	const void *k;

	if (what == 0 && sub1 >= 0 && sub1 < 3 && sub2 >= 0 && sub2 < 3)
		k = fp[sub1][sub2];
	else if (what == 1)
		k = sub1 == BENCH_IADD ? (const void *)bench_int32_add
				       : (const void *)bench_int32_mad;
	else
		k = (const void *)bench_gips;
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(ret, k, (int)threads, 0);
}
#endif /* __CUDACC_RTC__ */
