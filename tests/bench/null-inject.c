/* SPDX-License-Identifier: MIT */
/*
 * A do-nothing injection library: the baseline of bench-inject. It asks
 * CUPTI (the test double) for exactly what libproj.so asks for (launch
 * callbacks in both domains, concurrent-kernel records) and does nothing
 * with them, so bench-inject's difference is libproj.so's own CPU time.
 * Thread safety: the callbacks touch no state.
 */
#include <stdint.h>
#include <stdlib.h>

#include <cupti.h>

int InitializeInjection(void) __attribute__((visibility("default")));

static void CUPTIAPI
cb(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
	(void)ud;
	(void)dom;
	(void)cbid;
	(void)data;
}

static void CUPTIAPI
req(uint8_t **buf, size_t *size, size_t *max)
{
	*buf = aligned_alloc(8, 1u << 20);
	*size = *buf ? 1u << 20 : 0;
	*max = 0;
}

static void CUPTIAPI
done(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)size;
	(void)valid;
	free(buf);
}

int
InitializeInjection(void)
{
	static CUpti_SubscriberHandle sub;
	static const CUpti_CallbackId rt[] = {
		CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	};
	static const CUpti_CallbackId drv[] = { CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel };
	size_t i;

	if (sub)
		return 1;
	if (cuptiSubscribe(&sub, cb, NULL) != CUPTI_SUCCESS)
		return 1;
	for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++)
		cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, rt[i]);
	for (i = 0; i < sizeof(drv) / sizeof(drv[0]); i++)
		cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, drv[i]);
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
	cuptiActivityRegisterCallbacks(req, done);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	/* The whole-run timeline's kinds, so the double writes the same records. */
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_STREAM);
	return 1;
}
