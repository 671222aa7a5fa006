// SPDX-License-Identifier: MIT
//
// Applications whose kernels wait for other work, for the hang checks of
// scripts/gpu-acceptance.sh: each must finish under libproj.so (the script
// runs them under a time-out), as it does without it. Built with nvcc's
// defaults (no -lcuda): driver functions come through
// cudaGetDriverEntryPointByVersion.
//
//   hang later      an NCCL-named kernel (stream 1) spins until a kernel
//                   launched after it on stream 2 sets a flag
//   hang exclude    the same with an application kernel (run it with
//                   GPUPROJ_KERNEL_EXCLUDE=consumer_wait)
//   hang coop       a cooperative launch waits for a later kernel
//   hang waitvalue  a stream waits (cuStreamWaitValue32) for a value the
//                   host writes after launching a kernel behind it
//   hang threads    a kernel spins on a host-mapped flag that another
//                   thread writes after its own launch on the same device
//   hang peer       a kernel on device 0 waits for a kernel another thread
//                   launches on device 1 (exit 77 with one device)
//
// Prints "ok CASE" and exits 0 when the case finished.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <cuda.h>
#include <cuda_runtime.h>

#include "gpu-check.h"

__device__ void
spin_until(volatile int *flag)
{
	while (*flag == 0)
		;
}

// NCCL's kernels are recognised by name (ncclDevKernel_*).
extern "C" __global__ void ncclDevKernel_AllReduce_Sum_f32_RING_LL(volatile int *flag, int *out)
{
	spin_until(flag);
	out[0] = 1;
}

__global__ void consumer_wait(volatile int *flag, int *out)
{
	spin_until(flag);
	out[0] = 2;
}

__global__ void coop_wait(volatile int *flag, int *out)
{
	spin_until(flag);
	out[blockIdx.x] = 3;
}

__global__ void producer(volatile int *flag)
{
	__threadfence_system();
	*flag = 1;
}

__global__ void plain(int *out)
{
	out[threadIdx.x] = threadIdx.x;
}

// Host-mapped memory: visible to every device and the host.
static int *
mapped_flag(int **dev)
{
	int *h;

	CHECK(cudaHostAlloc(&h, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
	*h = 0;
	CHECK(cudaHostGetDevicePointer((void **)dev, h, 0));
	return h;
}

static void
sleep_ms(int ms)
{
	std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

int
main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	cudaStream_t s1, s2;
	int *hflag, *flag, *out;

	if (strcmp(c, "peer") == 0) {
		int n = 0;

		CHECK(cudaGetDeviceCount(&n));
		if (n < 2) {
			printf("skip peer: one device\n");
			return 77;
		}
	}
	CHECK(cudaSetDevice(0));
	CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	hflag = mapped_flag(&flag);
	CHECK(cudaMalloc(&out, 1024 * sizeof(int)));
	if (strcmp(c, "later") == 0) {
		ncclDevKernel_AllReduce_Sum_f32_RING_LL<<<1, 1, 0, s1>>>(flag, out);
		producer<<<1, 1, 0, s2>>>(flag);
	} else if (strcmp(c, "exclude") == 0) {
		consumer_wait<<<1, 1, 0, s1>>>(flag, out);
		producer<<<1, 1, 0, s2>>>(flag);
	} else if (strcmp(c, "coop") == 0) {
		void *args[] = { &flag, &out };

		CHECK(cudaLaunchCooperativeKernel((void *)coop_wait, dim3(2), dim3(32), args, 0, s1));
		producer<<<1, 1, 0, s2>>>(flag);
	} else if (strcmp(c, "waitvalue") == 0) {
		CUresult (*wait_value)(CUstream, CUdeviceptr, cuuint32_t, unsigned int) = nullptr;
		cudaDriverEntryPointQueryResult q;
		void *fn = nullptr;

		CHECK(cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &fn, 12000,
						       cudaEnableDefault, &q));
		if (!fn || q != cudaDriverEntryPointSuccess) {
			printf("skip waitvalue: no cuStreamWaitValue32\n");
			return 77;
		}
		memcpy(&wait_value, &fn, sizeof(fn));
		if (wait_value((CUstream)s1, (CUdeviceptr)flag, 1, CU_STREAM_WAIT_VALUE_GEQ) !=
		    CUDA_SUCCESS) {
			printf("skip waitvalue: cuStreamWaitValue32 not supported here\n");
			return 77;
		}
		plain<<<1, 32, 0, s1>>>(out);
		sleep_ms(200);
		*(volatile int *)hflag = 1;
	} else if (strcmp(c, "threads") == 0) {
		std::thread t([&] {
			sleep_ms(200);
			plain<<<1, 32, 0, s2>>>(out + 64);
			*(volatile int *)hflag = 1;
		});
		consumer_wait<<<1, 1, 0, s1>>>(flag, out);
		t.join();
	} else if (strcmp(c, "peer") == 0) {
		std::thread t([&] {
			cudaStream_t s;

			sleep_ms(200);
			CHECK(cudaSetDevice(1));
			CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
			producer<<<1, 1, 0, s>>>(flag);
			CHECK(cudaStreamSynchronize(s));
		});
		consumer_wait<<<1, 1, 0, s1>>>(flag, out);
		t.join();
		CHECK(cudaSetDevice(0));
	} else {
		fprintf(stderr, "usage: hang later|exclude|coop|waitvalue|threads|peer\n");
		return 2;
	}
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	printf("ok %s\n", c);
	return 0;
}
