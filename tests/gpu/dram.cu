// SPDX-License-Identifier: MIT
//
// DRAM bytes of a copy with a small and a large working set, for
// scripts/gpu-acceptance.sh: what kernel replay does to the caches. Each
// copy reads N floats and writes N floats (8 B per element of DRAM traffic
// when nothing stays in L2). The large set (2 x 512 MiB) is far beyond any
// L2: its DRAM bytes must match 8 N within 5 %. The small one (2 x 4 MiB)
// fits in the L2 of most data-centre GPUs: between passes of a kernel
// replay the memory is saved and restored, so how much of it still comes
// from DRAM is what the check reports (no tolerance: a figure).
//
// Writes "expect KERNEL METRIC VALUE TOL" lines (TOL < 0: report only) to
// argv[1], "ok" on stdout.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "gpu-check.h"

constexpr long SMALL_N = 1L << 20;	// 4 MiB per array: 8 MiB working set
constexpr long LARGE_N = 1L << 27;	// 512 MiB per array: 1 GiB working set
constexpr int LAUNCHES = 3;

template <int SET>
__global__ void copy_set(const float *__restrict__ in, float *__restrict__ out, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		out[i] = in[i];
}

int
main(int argc, char **argv)
{
	float *in, *out;
	FILE *f;
	int i;

	f = expectations(argc, argv, "dram");
	CHECK(cudaMalloc(&in, LARGE_N * sizeof(float)));
	CHECK(cudaMalloc(&out, LARGE_N * sizeof(float)));
	CHECK(cudaMemset(in, 0, LARGE_N * sizeof(float)));
	for (i = 0; i < LAUNCHES; i++) {
		copy_set<0><<<1024, 256>>>(in, out, SMALL_N);
		copy_set<1><<<1024, 256>>>(in, out, LARGE_N);
	}
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	fprintf(f, "expect copy_setILi0E bytes.dram %.17g -1\n", 8.0 * SMALL_N);
	fprintf(f, "expect copy_setILi1E bytes.dram %.17g 0.05\n", 8.0 * LARGE_N);
	fclose(f);
	cudaFree(in);
	cudaFree(out);
	printf("ok\n");
	return 0;
}
