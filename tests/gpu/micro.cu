// SPDX-License-Identifier: MIT
//
// Micro-kernels with analytic metric values, for scripts/gpu-acceptance.sh.
// Each kernel runs LAUNCHES times: under libproj.so the first launch of each
// is profiled, the others timed. The program writes what every collected
// metric must be (per launch) to the file named by argv[1], one line each:
//
//   expect <kernel-name-substring> <gpuproj metric> <value> <relative tolerance>
//
// and a line "ok" on stdout when every kernel ran. Values are exact counts
// of the code below (SASS-level: nothing here lets the compiler merge or
// drop the floating-point instructions, no fast-math); tolerances cover what
// the hardware adds (DRAM refresh-free but ECC/prefetch traffic, the stores
// that fill shared memory) and are stated in each line.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "gpu-check.h"

constexpr int BLOCKS = 1024, THREADS = 256, K = 1024, LAUNCHES = 3;
constexpr int SHARED_ITERS = 256, ACTIVE_LANES = 8;
constexpr long COPY_N = 1L << 26;	// 64 Mi floats = 256 MiB per array

// K FMAs per thread in four independent chains, fully unrolled. FP adds: 3 to
// start the chains (x + 1, ...) and 3 to combine them (checked in the SASS).
template <typename T>
__global__ void fma_chain(T *out, T a, T b)
{
	T x = threadIdx.x, y = x + 1, z = x + 2, w = x + 3;
#pragma unroll
	for (int i = 0; i < K / 4; i++) {
		x = fma(x, a, b);
		y = fma(y, a, b);
		z = fma(z, a, b);
		w = fma(w, a, b);
	}
	out[blockIdx.x * blockDim.x + threadIdx.x] = x + y + z + w;
}

// K FADDs per thread (four chains), plus 3 to start and 3 to combine them.
__global__ void add_chain(float *out, float a)
{
	float x = threadIdx.x, y = x + 1, z = x + 2, w = x + 3;
#pragma unroll
	for (int i = 0; i < K / 4; i++) {
		x = __fadd_rn(x, a);
		y = __fadd_rn(y, a);
		z = __fadd_rn(z, a);
		w = __fadd_rn(w, a);
	}
	out[blockIdx.x * blockDim.x + threadIdx.x] = x + y + z + w;
}

// A pure copy: 4 B read + 4 B written per element, no arithmetic on the data.
__global__ void copy(const float *__restrict__ in, float *__restrict__ out, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		out[i] = in[i];
}

// Shared memory: one store, then SHARED_ITERS loads per thread. STRIDE 1: every
// warp access is conflict-free (1 wavefront); STRIDE 32: all lanes hit one bank
// (32 wavefronts, 31 conflicts per warp access).
template <int STRIDE>
__global__ void shared_access(float *out)
{
	__shared__ float s[THREADS * 32];
	volatile float *vs = s;
	float acc = 0;

	vs[(threadIdx.x * STRIDE) % (THREADS * 32)] = threadIdx.x;
	__syncthreads();
	for (int i = 0; i < SHARED_ITERS; i++)
		acc += vs[(threadIdx.x * STRIDE + i) % (THREADS * 32)];
	out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// A divergent warp: only ACTIVE_LANES of 32 lanes run the K FMAs.
__global__ void divergent(float *out, float a, float b)
{
	float x = threadIdx.x, y = x + 1, z = x + 2, w = x + 3;

	if ((threadIdx.x & 31) < ACTIVE_LANES) {
#pragma unroll
		for (int i = 0; i < K / 4; i++) {
			x = fmaf(x, a, b);
			y = fmaf(y, a, b);
			z = fmaf(z, a, b);
			w = fmaf(w, a, b);
		}
	}
	out[blockIdx.x * blockDim.x + threadIdx.x] = x + y + z + w;
}

static void
expect(FILE *f, const char *kernel, const char *metric, double value, double tol)
{
	fprintf(f, "expect %s %s %.17g %g\n", kernel, metric, value, tol);
}

int
main(int argc, char **argv)
{
	const double threads = (double)BLOCKS * THREADS, warps = threads / 32;
	float *f32, *in, *out;
	double *f64;
	FILE *f;
	int i;

	f = expectations(argc, argv, "micro");
	CHECK(cudaMalloc(&f32, threads * sizeof(float)));
	CHECK(cudaMalloc(&f64, threads * sizeof(double)));
	CHECK(cudaMalloc(&in, COPY_N * sizeof(float)));
	CHECK(cudaMalloc(&out, COPY_N * sizeof(float)));
	CHECK(cudaMemset(in, 0, COPY_N * sizeof(float)));
	for (i = 0; i < LAUNCHES; i++) {
		fma_chain<float><<<BLOCKS, THREADS>>>(f32, 1.0001f, 0.5f);
		fma_chain<double><<<BLOCKS, THREADS>>>(f64, 1.0001, 0.5);
		add_chain<<<BLOCKS, THREADS>>>(f32, 0.5f);
		copy<<<BLOCKS, THREADS>>>(in, out, COPY_N);
		shared_access<1><<<BLOCKS, THREADS>>>(f32);
		shared_access<32><<<BLOCKS, THREADS>>>(f32);
		divergent<<<BLOCKS, THREADS>>>(f32, 1.0001f, 0.5f);
	}
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());

	// Counts are thread-level instructions per launch.
	expect(f, "fma_chainIf", "inst.fp32.fma", threads * K, 0.001);
	expect(f, "fma_chainIf", "inst.fp32.add", threads * 6, 0.01);
	expect(f, "fma_chainIf", "inst.fp64.fma", 0, 0);
	expect(f, "fma_chainId", "inst.fp64.fma", threads * K, 0.001);
	expect(f, "fma_chainId", "inst.fp64.add", threads * 6, 0.01);
	expect(f, "fma_chainId", "inst.fp32.fma", 0, 0);
	expect(f, "add_chain", "inst.fp32.add", threads * (K + 6), 0.001);
	expect(f, "add_chain", "inst.fp32.fma", 0, 0);
	expect(f, "add_chain", "warp_efficiency", 1.0, 0.01);
	// DRAM: every byte read and written once (the arrays are 5x any L2); L2 and
	// L1 see the same 8 B per element; no floating point.
	expect(f, "copy", "bytes.dram", 8.0 * COPY_N, 0.03);
	expect(f, "copy", "bytes.l2", 8.0 * COPY_N, 0.05);
	expect(f, "copy", "bytes.l1", 8.0 * COPY_N, 0.05);
	expect(f, "copy", "inst.fp32.fma", 0, 0);
	// Shared: (1 store + SHARED_ITERS loads) warp accesses per warp.
	expect(f, "shared_accessILi1E", "shared.wavefronts", warps * (SHARED_ITERS + 1), 0.02);
	expect(f, "shared_accessILi1E", "shared.bank_conflicts", 0, 0.01 * warps * SHARED_ITERS);
	expect(f, "shared_accessILi32E", "shared.wavefronts", warps * (SHARED_ITERS + 1) * 32, 0.02);
	expect(f, "shared_accessILi32E", "shared.bank_conflicts", warps * (SHARED_ITERS + 1) * 31,
	       0.02);
	// Divergent: ACTIVE_LANES of 32 lanes run the chain; the ~20 other instructions
	// run on full warps, so efficiency is ACTIVE_LANES/32 plus a few percent.
	expect(f, "divergent", "inst.fp32.fma", threads * ACTIVE_LANES / 32 * K, 0.001);
	expect(f, "divergent", "inst.fp32.add", threads * 6, 0.01);
	expect(f, "divergent", "warp_efficiency", (double)ACTIVE_LANES / 32, 0.1);
	fclose(f);
	cudaFree(f32);
	cudaFree(f64);
	cudaFree(in);
	cudaFree(out);
	printf("ok\n");
	return 0;
}
