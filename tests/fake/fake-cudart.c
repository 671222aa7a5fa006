/* SPDX-License-Identifier: MIT */
/*
 * The runtime of the test double: a libcudart.so.13 that reaches the
 * driver as the real one does, with dlopen("libcuda.so.1", RTLD_NOW) —
 * RTLD_LOCAL, so the driver's symbols stay out of the global scope
 * ([CUPTI-BUILD]: libcudart, shared and static, loads libcuda.so.1 with
 * dlopen(..., RTLD_NOW)) — and initialises it with
 * cuInit (cuda.h:5207) on the first runtime call that needs the GPU
 * (cudaFree, cuda_runtime_api.h:4752; cudaFree(0) is the usual way to
 * initialise the runtime). fake-app links this
 * library, never libcuda.
 *
 * Thread safety: initialisation once (pthread_once).
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#define EXPORT __attribute__((visibility("default")))

/* The few runtime entry points fake-app uses, with the real declarations. */
EXPORT cudaError_t CUDARTAPI cudaFree(void *ptr);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *libcuda;
static int (*drv_init)(unsigned int);

static void
load_driver(void)
{
	void *sym;

	libcuda = dlopen("libcuda.so.1", RTLD_NOW);
	if (!libcuda) {
		fprintf(stderr, "fake-cudart: cannot load libcuda.so.1: %s\n", dlerror());
		exit(3);
	}
	sym = dlsym(libcuda, "cuInit");
	memcpy(&drv_init, &sym, sizeof(sym));
	if (!drv_init) {
		fprintf(stderr, "fake-cudart: libcuda.so.1 lacks cuInit\n");
		exit(3);
	}
	drv_init(0);
}

/* cudaFree(NULL): the customary way to make the runtime initialise the driver. */
cudaError_t CUDARTAPI
cudaFree(void *ptr)
{
	(void)ptr;
	pthread_once(&once, load_driver);
	return cudaSuccess;
}
