/* SPDX-License-Identifier: MIT */
/*
 * Compiled by src/bench/kernels/meson.build at configure time: can this nvcc
 * build device and host code with this host compiler? (If not, the build
 * skips gpuproj-bench-kernels instead of failing.)
 */
#include <cuda_runtime.h>

__global__ void
nvcc_probe(int *p)
{
	*p = 1;
}

int
nvcc_probe_launch(int *p)
{
	nvcc_probe<<<1, 1>>>(p);
	return (int)cudaGetLastError();
}
