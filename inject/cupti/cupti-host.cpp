/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI Profiler Host API behind a C interface (cupti-host.h).
 *
 * The one C++ translation unit of libproj.so, because cupti_profiler_host.h
 * includes <string>. Compiled with -fno-exceptions -fno-rtti and written in
 * the C subset (malloc, no new/delete, no static locals), so its object
 * needs nothing from libstdc++ and the .so links with gcc. Functions come
 * from the libcupti handle the C side dlopen()ed, like every other CUPTI
 * call of libproj.so (the test double provides the same symbols).
 *
 * Thread safety: see cupti-host.h.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_profiler_host.h>
#include <cupti_result.h>

#include "cupti-host.h"

namespace {

struct host_api {
	decltype(&cuptiProfilerHostInitialize) initialize;
	decltype(&cuptiProfilerHostDeinitialize) deinitialize;
	decltype(&cuptiProfilerHostConfigAddMetrics) add_metrics;
	decltype(&cuptiProfilerHostGetConfigImageSize) image_size;
	decltype(&cuptiProfilerHostGetConfigImage) image;
	decltype(&cuptiProfilerHostGetNumOfPasses) passes;
	decltype(&cuptiProfilerHostEvaluateToGpuValues) evaluate;
};

host_api api;
bool loaded;

} /* namespace */

struct inj_host {
	CUpti_Profiler_Host_Object *obj;
};

template <typename F>
static bool
resolve(void *lib, const char *name, F *ret)
{
	void *p = dlsym(lib, name);

	*ret = reinterpret_cast<F>(p);
	return p != nullptr;
}

extern "C" int
inj_host_load(void *lib, const char **ret_missing)
{
	const char *missing = nullptr;

#define R(field, sym) \
	if (!missing && !resolve(lib, #sym, &api.field)) \
		missing = #sym
	R(initialize, cuptiProfilerHostInitialize);
	R(deinitialize, cuptiProfilerHostDeinitialize);
	R(add_metrics, cuptiProfilerHostConfigAddMetrics);
	R(image_size, cuptiProfilerHostGetConfigImageSize);
	R(image, cuptiProfilerHostGetConfigImage);
	R(passes, cuptiProfilerHostGetNumOfPasses);
	R(evaluate, cuptiProfilerHostEvaluateToGpuValues);
#undef R
	if (missing) {
		if (ret_missing)
			*ret_missing = missing;
		loaded = false;
		return -1;
	}
	loaded = true;
	return 0;
}

extern "C" bool
inj_host_loaded(void)
{
	return loaded;
}

extern "C" int
inj_host_new(const char *chip, const uint8_t *avail, struct inj_host **ret)
{
	CUpti_Profiler_Host_Initialize_Params p = {};
	struct inj_host *h;
	CUptiResult r;

	*ret = nullptr;
	if (!loaded)
		return CUPTI_ERROR_NOT_INITIALIZED;
	p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
	p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	p.pChipName = chip;
	p.pCounterAvailabilityImage = avail;
	r = api.initialize(&p);
	if (r != CUPTI_SUCCESS)
		return r;
	h = static_cast<struct inj_host *>(calloc(1, sizeof(*h)));
	if (!h) {
		CUpti_Profiler_Host_Deinitialize_Params d = {};

		d.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
		d.pHostObject = p.pHostObject;
		api.deinitialize(&d);
		return CUPTI_ERROR_OUT_OF_MEMORY;
	}
	h->obj = p.pHostObject;
	*ret = h;
	return CUPTI_SUCCESS;
}

extern "C" void
inj_host_free(struct inj_host *h)
{
	CUpti_Profiler_Host_Deinitialize_Params d = {};

	if (!h)
		return;
	d.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
	d.pHostObject = h->obj;
	if (loaded && h->obj)
		api.deinitialize(&d);
	free(h);
}

static CUptiResult
add(struct inj_host *h, const char *const *names, size_t n)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params p = {};

	p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
	p.pHostObject = h->obj;
	/* The API takes const char ** but does not modify the array. */
	p.ppMetricNames = const_cast<const char **>(names);
	p.numMetrics = n;
	return api.add_metrics(&p);
}

extern "C" bool
inj_host_metric_valid(const char *chip, const uint8_t *avail, const char *name, int *ret_status)
{
	struct inj_host *h;
	int r = inj_host_new(chip, avail, &h);

	if (r == CUPTI_SUCCESS) {
		r = add(h, &name, 1);
		inj_host_free(h);
	}
	if (ret_status)
		*ret_status = r;
	return r == CUPTI_SUCCESS;
}

extern "C" int
inj_host_passes(uint8_t *image, size_t size, size_t *ret_passes)
{
	CUpti_Profiler_Host_GetNumOfPasses_Params p = {};
	CUptiResult r;

	p.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
	p.configImageSize = size;
	p.pConfigImage = image;
	r = api.passes(&p);
	if (r == CUPTI_SUCCESS)
		*ret_passes = p.numOfPasses;
	return r;
}

extern "C" int
inj_host_config(struct inj_host *h, const char *const *names, size_t n, uint8_t **ret_image,
		size_t *ret_size, size_t *ret_passes)
{
	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {};
	CUpti_Profiler_Host_GetConfigImage_Params ip = {};
	uint8_t *img;
	CUptiResult r;
	size_t alloc;

	*ret_image = nullptr;
	r = add(h, names, n);
	if (r != CUPTI_SUCCESS)
		return r;
	sp.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
	sp.pHostObject = h->obj;
	r = api.image_size(&sp);
	if (r != CUPTI_SUCCESS)
		return r;
	alloc = (sp.configImageSize + 7) / 8 * 8;
	img = static_cast<uint8_t *>(aligned_alloc(8, alloc ? alloc : 8));
	if (!img)
		return CUPTI_ERROR_OUT_OF_MEMORY;
	ip.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
	ip.pHostObject = h->obj;
	ip.configImageSize = sp.configImageSize;
	ip.pConfigImage = img;
	r = api.image(&ip);
	if (r == CUPTI_SUCCESS)
		r = static_cast<CUptiResult>(inj_host_passes(img, sp.configImageSize, ret_passes));
	if (r != CUPTI_SUCCESS) {
		free(img);
		return r;
	}
	*ret_image = img;
	*ret_size = sp.configImageSize;
	return CUPTI_SUCCESS;
}

extern "C" int
inj_host_evaluate(struct inj_host *h, const uint8_t *image, size_t size, size_t range,
		  const char *const *names, size_t n, double *values)
{
	CUpti_Profiler_Host_EvaluateToGpuValues_Params p = {};

	p.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
	p.pHostObject = h->obj;
	p.pCounterDataImage = image;
	p.counterDataImageSize = size;
	p.rangeIndex = range;
	p.ppMetricNames = const_cast<const char **>(names);
	p.numMetrics = n;
	p.pMetricValues = values;
	return api.evaluate(&p);
}
