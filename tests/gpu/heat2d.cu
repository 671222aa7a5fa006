// SPDX-License-Identifier: MIT
//
// heat2d: the example application of gpuproj (README main job with a GPU,
// scripts/gpu-acceptance.sh). A 2-D heat equation on an N x N grid, Jacobi
// iterations with a deterministic residual reduction every 50 steps: a
// memory-bound stencil, a shared-memory reduction and a small second stage,
// i.e. a few distinct kernels launched many times, like a real solver.
// Prints the residuals and a checksum; the output is bit-identical from run
// to run (no atomics), so a run under libproj.so can be compared with one
// without it.
//
// Usage: heat2d [N [STEPS]]   (default 2048 400)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t e_ = (call);                                                   \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "heat2d: %s: %s\n", #call, cudaGetErrorString(e_)); \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

constexpr int BX = 32, BY = 8, RED = 256;

__global__ void init(float *u, int n)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < n && y < n)
		u[y * n + x] = (x == 0 || y == 0 || x == n - 1 || y == n - 1) ? 1.0f : 0.0f;
}

__global__ void jacobi(const float *__restrict__ u, float *__restrict__ v, int n)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x <= 0 || y <= 0 || x >= n - 1 || y >= n - 1) {
		if (x < n && y < n)
			v[y * n + x] = u[y * n + x];
		return;
	}
	v[y * n + x] = 0.25f * (u[y * n + x - 1] + u[y * n + x + 1] + u[(y - 1) * n + x] +
				u[(y + 1) * n + x]);
}

// Per-block sums of |u - v| (fixed order: a tree in shared memory).
__global__ void residual_partial(const float *u, const float *v, float *part, long total)
{
	__shared__ float s[RED];
	float acc = 0;

	for (long i = blockIdx.x * (long)RED + threadIdx.x; i < total; i += (long)gridDim.x * RED)
		acc += fabsf(u[i] - v[i]);
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int w = RED / 2; w > 0; w /= 2) {
		if (threadIdx.x < w)
			s[threadIdx.x] += s[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		part[blockIdx.x] = s[0];
}

__global__ void residual_final(const float *part, int n, double *out)
{
	__shared__ double s[RED];
	double acc = 0;

	for (int i = threadIdx.x; i < n; i += RED)
		acc += part[i];
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int w = RED / 2; w > 0; w /= 2) {
		if (threadIdx.x < w)
			s[threadIdx.x] += s[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*out = s[0];
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2048, steps = argc > 2 ? atoi(argv[2]) : 400;
	const int parts = 512;
	dim3 block(BX, BY), grid((n + BX - 1) / BX, (n + BY - 1) / BY);
	float *u, *v, *part;
	double *res, r = 0;
	int s;

	if (n < 3 || steps < 1) {
		fprintf(stderr, "usage: heat2d [N>=3 [STEPS>=1]]\n");
		return 2;
	}
	CHECK(cudaMalloc(&u, (size_t)n * n * sizeof(float)));
	CHECK(cudaMalloc(&v, (size_t)n * n * sizeof(float)));
	CHECK(cudaMalloc(&part, parts * sizeof(float)));
	CHECK(cudaMalloc(&res, sizeof(double)));
	init<<<grid, block>>>(u, n);
	init<<<grid, block>>>(v, n);
	for (s = 1; s <= steps; s++) {
		jacobi<<<grid, block>>>(u, v, n);
		float *t = u;
		u = v;
		v = t;
		if (s % 50 == 0) {
			residual_partial<<<parts, RED>>>(u, v, part, (long)n * n);
			residual_final<<<1, RED>>>(part, parts, res);
			CHECK(cudaMemcpy(&r, res, sizeof(r), cudaMemcpyDeviceToHost));
			printf("step %d residual %.9g\n", s, r);
		}
	}
	residual_partial<<<parts, RED>>>(u, u, part, (long)n * n); // checksum: sum |u - 0|
	CHECK(cudaMemset(v, 0, (size_t)n * n * sizeof(float)));
	residual_partial<<<parts, RED>>>(u, v, part, (long)n * n);
	residual_final<<<1, RED>>>(part, parts, res);
	CHECK(cudaMemcpy(&r, res, sizeof(r), cudaMemcpyDeviceToHost));
	CHECK(cudaGetLastError());
	printf("heat2d %dx%d %d steps checksum %.9g\n", n, n, steps, r);
	cudaFree(u);
	cudaFree(v);
	cudaFree(part);
	cudaFree(res);
	return 0;
}
