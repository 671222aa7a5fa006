/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for libcuda.so.1 in the `gpuproj bench` CLI tests: the four
 * driver calls gpuproj's probe makes. FAKE_CUDA_INIT_ERROR=N makes cuInit
 * return N (100 = CUDA_ERROR_NO_DEVICE); FAKE_CUDA_DEVICES=N sets the
 * device count (default 1). Loaded through GPUPROJ_LIBCUDA.
 */
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int cuInit(unsigned flags);
EXPORT int cuDeviceGetCount(int *count);
EXPORT int cuGetErrorName(int error, const char **ret);
EXPORT int cuGetErrorString(int error, const char **ret);

int
cuInit(unsigned flags)
{
	const char *e = getenv("FAKE_CUDA_INIT_ERROR");

	(void)flags;
	return e ? atoi(e) : 0;
}

int
cuDeviceGetCount(int *count)
{
	const char *e = getenv("FAKE_CUDA_DEVICES");

	*count = e ? atoi(e) : 1;
	return 0;
}

int
cuGetErrorName(int error, const char **ret)
{
	*ret = error == 100 ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_UNKNOWN";
	return 0;
}

int
cuGetErrorString(int error, const char **ret)
{
	*ret = error == 100 ? "no CUDA-capable device is detected" : "unknown error";
	return 0;
}
