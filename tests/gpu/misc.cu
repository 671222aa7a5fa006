// SPDX-License-Identifier: MIT
//
// Launch paths for scripts/gpu-acceptance.sh that the micro-kernels do not
// take, each a [GPU?] assumption of libproj.so:
//
//   - a kernel that calls printf, launched twice: its output must appear
//     exactly as without the injection (not once per replay pass);
//   - a cluster launch (cudaLaunchKernelEx, 2x1x1 clusters; CC >= 9.0 only):
//     its signature carries the cluster (tag cluster=2x1x1);
//   - a CUDA graph captured from a stream and launched twice: the kernels
//     are timed, the capture is not invalidated;
//   - a long kernel still running when main() returns (no synchronisation,
//     no cudaDeviceReset): it must still be counted;
//   - synchronous copies of 64 MiB from pageable (malloc'd) memory to the
//     device, each followed by a kernel: cudaMemcpy returns once the data
//     is staged, "the DMA to final destination may not have completed"
//     (CUDA Runtime API, "API synchronization behavior"), so libproj.so
//     records such a copy as blocking only when its record ended by the
//     call's return (inject/timeline-rec.c).
//
// Prints the printf lines, then "ok".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "gpu-check.h"

__global__ void say_hello(int launch)
{
	if (threadIdx.x == 0)
		printf("hello from launch %d block %d\n", launch, blockIdx.x);
}

__global__ void clustered(float *out)
{
	out[blockIdx.x * blockDim.x + threadIdx.x] = (float)blockIdx.x;
}

__global__ void graph_node(float *out, float v)
{
	out[blockIdx.x * blockDim.x + threadIdx.x] += v;
}

__global__ void after_copy(float *in)
{
	in[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
}

// About 0.2 s of spinning on the clock: still running when main() returns.
__global__ void long_running(long long cycles, float *out)
{
	long long t0 = clock64();

	while (clock64() - t0 < cycles)
		;
	out[threadIdx.x] = 1;
}

int
main()
{
	cudaDeviceProp prop;
	cudaStream_t s;
	cudaGraph_t g;
	cudaGraphExec_t ge;
	float *buf, *dst;
	char *host;
	const size_t pageable = (size_t)64 << 20;
	int i, khz = 0;

	CHECK(cudaGetDeviceProperties(&prop, 0));
	CHECK(cudaMalloc(&buf, 1 << 20));
	host = (char *)malloc(pageable);
	if (!host) {
		fprintf(stderr, "misc: out of host memory\n");
		return 1;
	}
	memset(host, 1, pageable);
	CHECK(cudaMalloc(&dst, pageable));
	for (i = 0; i < 4; i++) {
		CHECK(cudaMemcpy(dst, host, pageable, cudaMemcpyHostToDevice));
		after_copy<<<4, 128>>>(dst);
	}
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(dst));
	free(host);
	for (i = 0; i < 2; i++) {
		say_hello<<<4, 32>>>(i);
		CHECK(cudaDeviceSynchronize());
	}
	if (prop.major >= 9) {
		cudaLaunchConfig_t cfg = {};
		cudaLaunchAttribute attr;

		attr.id = cudaLaunchAttributeClusterDimension;
		attr.val.clusterDim.x = 2;
		attr.val.clusterDim.y = 1;
		attr.val.clusterDim.z = 1;
		cfg.gridDim = dim3(8);
		cfg.blockDim = dim3(128);
		cfg.attrs = &attr;
		cfg.numAttrs = 1;
		for (i = 0; i < 2; i++)
			CHECK(cudaLaunchKernelEx(&cfg, clustered, buf));
	}
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	graph_node<<<4, 128, 0, s>>>(buf, 1.0f);
	graph_node<<<4, 128, 0, s>>>(buf, 2.0f);
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&ge, g, 0));
	for (i = 0; i < 2; i++)
		CHECK(cudaGraphLaunch(ge, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaDeviceSynchronize());
	fflush(stdout);
	printf("ok\n");
	fflush(stdout);
	// The SM clock in kHz: 0.2 s worth of cycles; not waited for.
	CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
	long_running<<<1, 32>>>((long long)khz * 200, buf);
	return 0;
}
