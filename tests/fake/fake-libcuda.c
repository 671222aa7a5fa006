/* SPDX-License-Identifier: MIT */
/*
 * The driver of the test double: a libcuda.so.1 with the real SONAME and
 * the driver functions libproj.so calls, compiled against the real cuda.h.
 *
 * How the real one is reached, and what the double insists on:
 * - It is loaded by libcudart (tests/fake/fake-cudart.c) with
 *   dlopen("libcuda.so.1", RTLD_NOW), i.e. RTLD_LOCAL, as libcudart
 *   (shared and static) does ([CUPTI-BUILD]; docs/internals/injection.md §1): its
 *   symbols are NOT in the process's global scope, so
 *   dlsym(RTLD_DEFAULT, "cuDeviceGetName") finds nothing. The application
 *   (fake-app) neither links it nor exports driver symbols.
 * - cuInit (cuda.h:5207) loads the library named by
 *   CUDA_INJECTION64_PATH and calls its InitializeInjection, which must
 *   return 1, also the second time (NVIDIA's injection samples,
 *   profiling_injection/README.txt and cupti_trace_injection/README.txt:
 *   "at initialization").
 * - $FAKE_DLCLOSE_INJECTION=1: once InitializeInjection returned, the
 *   driver dlclose()s the library. Nothing in NVIDIA's injection
 *   documentation says the real driver keeps it loaded; whether one ever
 *   closes it is [GPU?]. A library whose threads and callbacks outlive its
 *   mapping crashes the application then, unless it is linked
 *   -z nodelete (dlclose() then leaves it mapped: glibc dl-close.c).
 * - No driver call inside a launch callback ([CUPTI-INJ]: CUDA calls in
 *   callbacks are "not supported unless stated"): a violation.
 * - Synchronisation drains the fake GPU's queues (fake_ctx_sync()); the
 *   current context is per thread, pushed and popped (cuda.h:6359
 *   cuCtxPushCurrent, :6393 cuCtxPopCurrent).
 *
 * Thread safety: the current-context stack is per thread; the rest is the
 * CUPTI double's (fake-cupti.c), which serialises itself.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "fake.h"

#define EXPORT __attribute__((visibility("default")))

/* cuda.h renames some functions to their _v2 symbols; the symbols are what matters. */
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent

EXPORT CUresult CUDAAPI cuInit(unsigned int flags);
EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *dev, int ordinal);
EXPORT CUresult CUDAAPI cuDeviceGetCount(int *count);
EXPORT CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev);
EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *v, CUdevice_attribute attr, CUdevice dev);
EXPORT CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
EXPORT CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev);
EXPORT CUresult CUDAAPI cuCtxGetCurrent(CUcontext *ctx);
EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx);
EXPORT CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx);
EXPORT CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *ctx);
EXPORT CUresult CUDAAPI cuCtxSynchronize(void);

static _Thread_local CUcontext ctx_stack[16];
static _Thread_local int ctx_depth;

static void
no_driver_in_launch(const char *func)
{
	if (fake_in_launch_callback())
		fake_violation("%s called inside a launch callback (no driver calls there)", func);
}

CUresult CUDAAPI
cuInit(unsigned int flags)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	static bool done;
	int (*init)(void);
	void *h, *sym;

	(void)flags;
	fake_count(__func__);
	if (done || !path || !*path) {
		done = true;
		return CUDA_SUCCESS;
	}
	done = true;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "fake-libcuda: cannot load %s: %s\n", path, dlerror());
		return CUDA_SUCCESS;
	}
	sym = dlsym(h, "InitializeInjection");
	if (!sym) {
		fprintf(stderr, "fake-libcuda: %s has no InitializeInjection\n", path);
		return CUDA_SUCCESS;
	}
	memcpy(&init, &sym, sizeof(sym));
	if (init() != 1 || init() != 1) {	/* the second call must be a no-op returning 1 */
		fprintf(stderr, "fake-libcuda: InitializeInjection did not return 1\n");
		exit(4);
	}
	if (getenv("FAKE_DLCLOSE_INJECTION") && dlclose(h) != 0)
		fprintf(stderr, "fake-libcuda: dlclose %s: %s\n", path, dlerror());
	return CUDA_SUCCESS;
}

CUresult CUDAAPI
cuDeviceGet(CUdevice *dev, int ordinal)
{
	no_driver_in_launch(__func__);
	if (!fake_get_device(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*dev = ordinal;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI
cuDeviceGetCount(int *count)
{
	int i;

	no_driver_in_launch(__func__);
	for (i = 0; fake_get_device(i); i++)
		;
	*count = i;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI
cuDeviceGetName(char *name, int len, CUdevice dev)
{
	const struct fake_device *d = fake_get_device(dev);

	no_driver_in_launch(__func__);
	if (!d || len <= 0)
		return CUDA_ERROR_INVALID_DEVICE;
	snprintf(name, (size_t)len, "%s", d->name);
	return CUDA_SUCCESS;
}

/* An attribute of the device, or CUDA_ERROR_INVALID_VALUE where it is set to -1. */
static CUresult
attr_of(const struct fake_device *d, enum fake_dev_attr a, int *v)
{
	if (d->attr[a] < 0 || d->attr[a] > INT32_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	*v = (int)d->attr[a];
	return CUDA_SUCCESS;
}

CUresult CUDAAPI
cuDeviceGetAttribute(int *v, CUdevice_attribute attr, CUdevice dev)
{
	const struct fake_device *d = fake_get_device(dev);

	no_driver_in_launch(__func__);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	switch ((int)attr) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = d->cc_major; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = d->cc_minor; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = d->sms; break;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = d->clock_khz; break;
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return attr_of(d, FAKE_DEV_MEM_KHZ, v);
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return attr_of(d, FAKE_DEV_BUS_BITS, v);
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return attr_of(d, FAKE_DEV_L2_BYTES, v);
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
		return attr_of(d, FAKE_DEV_THREADS_SM, v);
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return attr_of(d, FAKE_DEV_THREADS_BLOCK, v);
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return attr_of(d, FAKE_DEV_BLOCKS_SM, v);
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
		return attr_of(d, FAKE_DEV_REGS_SM, v);
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return attr_of(d, FAKE_DEV_REGS_BLOCK, v);
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
		return attr_of(d, FAKE_DEV_SMEM_SM, v);
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
		return attr_of(d, FAKE_DEV_SMEM_OPTIN, v);
	case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
		return attr_of(d, FAKE_DEV_SMEM_RESERVED, v);
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return attr_of(d, FAKE_DEV_WARP, v);
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/*
 * cuDeviceTotalMem (cuda.h maps it to _v2 since CUDA 3.2): the device's
 * memory in bytes.
 */
CUresult CUDAAPI
cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	const struct fake_device *d = fake_get_device(dev);

	no_driver_in_launch(__func__);
	if (!d)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (d->attr[FAKE_DEV_MEM_MIB] < 0)
		return CUDA_ERROR_NOT_SUPPORTED;
	*bytes = (size_t)d->attr[FAKE_DEV_MEM_MIB] << 20;
	return CUDA_SUCCESS;
}

/* "domain:bus:device.function" (cuda.h: "[domain]:[bus]:[device].[function]"); bus = ordinal + 1. */
CUresult CUDAAPI
cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
	no_driver_in_launch(__func__);
	if (!fake_get_device(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	if (!pciBusId || len < 13)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", dev + 1);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI
cuCtxGetCurrent(CUcontext *ctx)
{
	no_driver_in_launch(__func__);
	*ctx = ctx_depth ? ctx_stack[ctx_depth - 1] : NULL;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI
cuCtxSetCurrent(CUcontext ctx)
{
	no_driver_in_launch(__func__);
	if (!ctx_depth)
		ctx_depth = 1;
	ctx_stack[ctx_depth - 1] = ctx;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI
cuCtxPushCurrent_v2(CUcontext ctx)
{
	no_driver_in_launch(__func__);
	fake_count(__func__);
	if (!fake_ctx_alive(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (ctx_depth == (int)(sizeof(ctx_stack) / sizeof(ctx_stack[0])))
		return CUDA_ERROR_OUT_OF_MEMORY;
	ctx_stack[ctx_depth++] = ctx;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI
cuCtxPopCurrent_v2(CUcontext *ctx)
{
	no_driver_in_launch(__func__);
	if (!ctx_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	ctx_depth--;
	if (ctx)
		*ctx = ctx_stack[ctx_depth];
	return CUDA_SUCCESS;
}

/* cuCtxSynchronize (cuda.h:6621): until every queued operation of the current context is done. */
CUresult CUDAAPI
cuCtxSynchronize(void)
{
	no_driver_in_launch(__func__);
	fake_count(__func__);
	if (!ctx_depth || !fake_ctx_alive(ctx_stack[ctx_depth - 1]))
		return CUDA_ERROR_INVALID_CONTEXT;
	fake_ctx_sync(ctx_stack[ctx_depth - 1]);
	return CUDA_SUCCESS;
}
