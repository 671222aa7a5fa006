/* SPDX-License-Identifier: MIT */
/*
 * NVPW host calls of the legacy (CC 7.0) profiler path; see nvpw.h
 * and [CUPTI-LEG]. Sequence after NVIDIA's extensions/profilerhost_util
 * (Metric.cpp, Eval.cpp): MetricsEvaluator → raw dependencies →
 * RawMetricsConfig (one pass group) → config image; CounterDataBuilder →
 * counter-data prefix; evaluation with SetDeviceAttributes +
 * EvaluateToGpuValues (isolated).
 *
 * Thread safety: see nvpw.h.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvperf_cuda_host.h>
#include <nvperf_host.h>
#include <nvperf_target.h>

#include "nvpw.h"
#include "backend.h"
#include "log.h"

#define FN(name) __typeof__(&name) name

static struct {
	void *host, *target;
	bool loaded;
	FN(NVPW_InitializeHost);
	FN(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize);
	FN(NVPW_CUDA_MetricsEvaluator_Initialize);
	FN(NVPW_MetricsEvaluator_Destroy);
	FN(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest);
	FN(NVPW_MetricsEvaluator_GetMetricRawDependencies);
	FN(NVPW_MetricsEvaluator_SetDeviceAttributes);
	FN(NVPW_MetricsEvaluator_EvaluateToGpuValues);
	FN(NVPW_CUDA_RawMetricsConfig_Create_V2);
	FN(NVPW_RawMetricsConfig_Destroy);
	FN(NVPW_RawMetricsConfig_BeginPassGroup);
	FN(NVPW_RawMetricsConfig_AddMetrics);
	FN(NVPW_RawMetricsConfig_EndPassGroup);
	FN(NVPW_RawMetricsConfig_GenerateConfigImage);
	FN(NVPW_RawMetricsConfig_GetConfigImage);
	FN(NVPW_RawMetricsConfig_GetNumPasses_V2);
	FN(NVPW_CUDA_CounterDataBuilder_Create);
	FN(NVPW_CounterDataBuilder_Destroy);
	FN(NVPW_CounterDataBuilder_AddMetrics);
	FN(NVPW_CounterDataBuilder_GetCounterDataPrefix);
	FN(NVPW_CounterData_GetNumRanges);
} nv;


struct inj_nvpw {
	uint8_t *scratch;
	struct NVPW_MetricsEvaluator *eval;
	char chip[32];
	struct NVPW_MetricEvalRequest *requests; /* one per configured metric */
	size_t n_requests;
	uint8_t *config;
	size_t config_size;
	uint8_t *prefix;
	size_t prefix_size;
};

/* Log a failed NVPW call (debug: callers print the user-facing line). */
#define NVPW_CHECK(call, label) \
	do { \
		st = (call); \
		if (st != NVPA_STATUS_SUCCESS) { \
			inj_debug("%s failed: %s (%d)", #call, inj_nvpw_status_name(st), st); \
			goto label; \
		} \
	} while (0)

const char *
inj_nvpw_status_name(int status)
{
	switch (status) {
	case NVPA_STATUS_SUCCESS: return "NVPA_STATUS_SUCCESS";
	case NVPA_STATUS_ERROR: return "NVPA_STATUS_ERROR";
	case NVPA_STATUS_INTERNAL_ERROR: return "NVPA_STATUS_INTERNAL_ERROR";
	case NVPA_STATUS_NOT_INITIALIZED: return "NVPA_STATUS_NOT_INITIALIZED";
	case NVPA_STATUS_NOT_LOADED: return "NVPA_STATUS_NOT_LOADED";
	case NVPA_STATUS_FUNCTION_NOT_FOUND: return "NVPA_STATUS_FUNCTION_NOT_FOUND";
	case NVPA_STATUS_NOT_SUPPORTED: return "NVPA_STATUS_NOT_SUPPORTED";
	case NVPA_STATUS_NOT_IMPLEMENTED: return "NVPA_STATUS_NOT_IMPLEMENTED";
	case NVPA_STATUS_INVALID_ARGUMENT: return "NVPA_STATUS_INVALID_ARGUMENT";
	case NVPA_STATUS_INVALID_METRIC_ID: return "NVPA_STATUS_INVALID_METRIC_ID";
	case NVPA_STATUS_DRIVER_NOT_LOADED: return "NVPA_STATUS_DRIVER_NOT_LOADED";
	case NVPA_STATUS_OUT_OF_MEMORY: return "NVPA_STATUS_OUT_OF_MEMORY";
	case NVPA_STATUS_INSUFFICIENT_PRIVILEGE: return "NVPA_STATUS_INSUFFICIENT_PRIVILEGE";
	case NVPA_STATUS_UNSUPPORTED_GPU: return "NVPA_STATUS_UNSUPPORTED_GPU";
	case NVPA_STATUS_INSUFFICIENT_SPACE: return "NVPA_STATUS_INSUFFICIENT_SPACE";
	case NVPA_STATUS_PROFILING_NOT_ALLOWED: return "NVPA_STATUS_PROFILING_NOT_ALLOWED";
	default: return "NVPA_STATUS_(other)";
	}
}

int
inj_nvpw_load(const char **ret_why)
{
	NVPW_InitializeHost_Params init = { .structSize = NVPW_InitializeHost_Params_STRUCT_SIZE };
	const char *missing = NULL;
	NVPA_Status st;

	if (nv.loaded)
		return 0;
	nv.host = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_LOCAL);
	nv.target = dlopen("libnvperf_target.so", RTLD_NOW | RTLD_LOCAL);
	if (!nv.host || !nv.target) {
		*ret_why = "cannot load libnvperf_host.so / libnvperf_target.so (CUDA toolkit "
			   "lib64, or LD_LIBRARY_PATH)";
		goto fail;
	}
#define H(name) \
	if (!missing && !inj_dlsym(nv.host, #name, &nv.name)) \
		missing = #name
#define T(name) \
	if (!missing && !inj_dlsym(nv.target, #name, &nv.name)) \
		missing = #name
	H(NVPW_InitializeHost);
	H(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize);
	H(NVPW_CUDA_MetricsEvaluator_Initialize);
	H(NVPW_MetricsEvaluator_Destroy);
	H(NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest);
	H(NVPW_MetricsEvaluator_GetMetricRawDependencies);
	H(NVPW_MetricsEvaluator_SetDeviceAttributes);
	H(NVPW_MetricsEvaluator_EvaluateToGpuValues);
	H(NVPW_CUDA_RawMetricsConfig_Create_V2);
	H(NVPW_RawMetricsConfig_Destroy);
	H(NVPW_RawMetricsConfig_BeginPassGroup);
	H(NVPW_RawMetricsConfig_AddMetrics);
	H(NVPW_RawMetricsConfig_EndPassGroup);
	H(NVPW_RawMetricsConfig_GenerateConfigImage);
	H(NVPW_RawMetricsConfig_GetConfigImage);
	H(NVPW_RawMetricsConfig_GetNumPasses_V2);
	H(NVPW_CUDA_CounterDataBuilder_Create);
	H(NVPW_CounterDataBuilder_Destroy);
	H(NVPW_CounterDataBuilder_AddMetrics);
	H(NVPW_CounterDataBuilder_GetCounterDataPrefix);
	T(NVPW_CounterData_GetNumRanges);
#undef H
#undef T
	if (missing) {
		inj_debug("NVPW symbol %s not found", missing);
		*ret_why = "libnvperf_host.so lacks a symbol the legacy profiler needs";
		goto fail;
	}
	NVPW_CHECK(nv.NVPW_InitializeHost(&init), fail_init);
	nv.loaded = true;
	return 0;
fail_init:
	*ret_why = "NVPW_InitializeHost failed";
fail:
	inj_nvpw_unload();
	return -1;
}

void
inj_nvpw_unload(void)
{
	if (nv.host)
		dlclose(nv.host);
	if (nv.target)
		dlclose(nv.target);
	memset(&nv, 0, sizeof(nv));
}

int
inj_nvpw_new(const char *chip, const uint8_t *avail, struct inj_nvpw **ret)
{
	NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params sz = {
		.structSize = NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params_STRUCT_SIZE,
		.pChipName = chip,
		.pCounterAvailabilityImage = avail,
	};
	NVPW_CUDA_MetricsEvaluator_Initialize_Params in = {
		.structSize = NVPW_CUDA_MetricsEvaluator_Initialize_Params_STRUCT_SIZE,
		.pChipName = chip,
		.pCounterAvailabilityImage = avail,
	};
	struct inj_nvpw *n;
	NVPA_Status st;

	*ret = NULL;
	if (!nv.loaded)
		return NVPA_STATUS_NOT_LOADED;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NVPA_STATUS_OUT_OF_MEMORY;
	snprintf(n->chip, sizeof(n->chip), "%s", chip);
	NVPW_CHECK(nv.NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&sz), fail);
	n->scratch = malloc(sz.scratchBufferSize ? sz.scratchBufferSize : 1);
	if (!n->scratch) {
		st = NVPA_STATUS_OUT_OF_MEMORY;
		goto fail;
	}
	in.pScratchBuffer = n->scratch;
	in.scratchBufferSize = sz.scratchBufferSize;
	NVPW_CHECK(nv.NVPW_CUDA_MetricsEvaluator_Initialize(&in), fail);
	n->eval = in.pMetricsEvaluator;
	*ret = n;
	return NVPA_STATUS_SUCCESS;
fail:
	inj_nvpw_free(n);
	return st;
}

void
inj_nvpw_free(struct inj_nvpw *n)
{
	if (!n)
		return;
	if (n->eval && nv.loaded) {
		NVPW_MetricsEvaluator_Destroy_Params d = {
			.structSize = NVPW_MetricsEvaluator_Destroy_Params_STRUCT_SIZE,
			.pMetricsEvaluator = n->eval,
		};

		nv.NVPW_MetricsEvaluator_Destroy(&d);
	}
	free(n->scratch);
	free(n->requests);
	free(n->config);
	free(n->prefix);
	free(n);
}

static NVPA_Status
to_request(struct inj_nvpw *n, const char *name, struct NVPW_MetricEvalRequest *req)
{
	NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params p = {
		.structSize = NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params_STRUCT_SIZE,
		.pMetricsEvaluator = n->eval,
		.pMetricName = name,
		.pMetricEvalRequest = req,
		.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE,
	};

	return nv.NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(&p);
}

bool
inj_nvpw_metric_valid(struct inj_nvpw *n, const char *name)
{
	struct NVPW_MetricEvalRequest req;

	return to_request(n, name, &req) == NVPA_STATUS_SUCCESS;
}

/* Append the raw counters a request depends on (deduplicated). */
static NVPA_Status
add_raw(struct inj_nvpw *n, const struct NVPW_MetricEvalRequest *req, const char ***raw,
	size_t *n_raw, size_t *cap)
{
	NVPW_MetricsEvaluator_GetMetricRawDependencies_Params p = {
		.structSize = NVPW_MetricsEvaluator_GetMetricRawDependencies_Params_STRUCT_SIZE,
		.pMetricsEvaluator = n->eval,
		.pMetricEvalRequests = req,
		.numMetricEvalRequests = 1,
		.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE,
		.metricEvalRequestStrideSize = sizeof(*req),
	};
	const char **deps;
	NVPA_Status st;
	size_t i, j;

	NVPW_CHECK(nv.NVPW_MetricsEvaluator_GetMetricRawDependencies(&p), out);
	deps = calloc(p.numRawDependencies ? p.numRawDependencies : 1, sizeof(*deps));
	if (!deps)
		return NVPA_STATUS_OUT_OF_MEMORY;
	p.ppRawDependencies = deps;
	st = nv.NVPW_MetricsEvaluator_GetMetricRawDependencies(&p);
	if (st != NVPA_STATUS_SUCCESS) {
		inj_debug("NVPW_MetricsEvaluator_GetMetricRawDependencies failed: %s",
			  inj_nvpw_status_name(st));
		free(deps);
		return st;
	}
	for (i = 0; i < p.numRawDependencies; i++) {
		for (j = 0; j < *n_raw; j++) {
			if (strcmp((*raw)[j], deps[i]) == 0)
				break;
		}
		if (j < *n_raw)
			continue;
		if (*n_raw == *cap) {
			size_t c = *cap ? 2 * *cap : 64;
			const char **r = realloc(*raw, c * sizeof(*r));

			if (!r) {
				free(deps);
				return NVPA_STATUS_OUT_OF_MEMORY;
			}
			*raw = r;
			*cap = c;
		}
		(*raw)[(*n_raw)++] = deps[i]; /* owned by the evaluator */
	}
	free(deps);
out:
	return st;
}

/* Size query with pBuffer = NULL, then the copy. */
static NVPA_Status
get_config_image(NVPA_RawMetricsConfig *cfg, uint8_t **ret, size_t *ret_size)
{
	NVPW_RawMetricsConfig_GetConfigImage_Params p = {
		.structSize = NVPW_RawMetricsConfig_GetConfigImage_Params_STRUCT_SIZE,
		.pRawMetricsConfig = cfg,
	};
	NVPA_Status st;

	NVPW_CHECK(nv.NVPW_RawMetricsConfig_GetConfigImage(&p), out);
	*ret = aligned_alloc(8, (p.bytesCopied + 7) / 8 * 8 + 8);
	if (!*ret)
		return NVPA_STATUS_OUT_OF_MEMORY;
	p.bytesAllocated = p.bytesCopied;
	p.pBuffer = *ret;
	NVPW_CHECK(nv.NVPW_RawMetricsConfig_GetConfigImage(&p), out);
	*ret_size = p.bytesCopied;
out:
	return st;
}

static NVPA_Status
get_prefix(NVPA_CounterDataBuilder *b, uint8_t **ret, size_t *ret_size)
{
	NVPW_CounterDataBuilder_GetCounterDataPrefix_Params p = {
		.structSize = NVPW_CounterDataBuilder_GetCounterDataPrefix_Params_STRUCT_SIZE,
		.pCounterDataBuilder = b,
	};
	NVPA_Status st;

	NVPW_CHECK(nv.NVPW_CounterDataBuilder_GetCounterDataPrefix(&p), out);
	*ret = aligned_alloc(8, (p.bytesCopied + 7) / 8 * 8 + 8);
	if (!*ret)
		return NVPA_STATUS_OUT_OF_MEMORY;
	p.bytesAllocated = p.bytesCopied;
	p.pBuffer = *ret;
	NVPW_CHECK(nv.NVPW_CounterDataBuilder_GetCounterDataPrefix(&p), out);
	*ret_size = p.bytesCopied;
out:
	return st;
}

int
inj_nvpw_config(struct inj_nvpw *n, const char *const *names, size_t count, size_t *ret_passes)
{
	NVPW_CUDA_RawMetricsConfig_Create_V2_Params cp = {
		.structSize = NVPW_CUDA_RawMetricsConfig_Create_V2_Params_STRUCT_SIZE,
		.activityKind = NVPA_ACTIVITY_KIND_PROFILER,
		.pChipName = n->chip,
	};
	NVPW_CUDA_CounterDataBuilder_Create_Params bp = {
		.structSize = NVPW_CUDA_CounterDataBuilder_Create_Params_STRUCT_SIZE,
		.pChipName = n->chip,
	};
	const char **raw = NULL;
	NVPA_RawMetricRequest *reqs = NULL;
	size_t n_raw = 0, cap = 0, i;
	NVPA_Status st = NVPA_STATUS_SUCCESS;

	free(n->requests);
	n->requests = calloc(count ? count : 1, sizeof(*n->requests));
	n->n_requests = 0;
	if (!n->requests)
		return NVPA_STATUS_OUT_OF_MEMORY;
	for (i = 0; i < count; i++) {
		NVPW_CHECK(to_request(n, names[i], &n->requests[i]), out);
		st = add_raw(n, &n->requests[i], &raw, &n_raw, &cap);
		if (st != NVPA_STATUS_SUCCESS)
			goto out;
	}
	n->n_requests = count;
	reqs = calloc(n_raw ? n_raw : 1, sizeof(*reqs));
	if (!reqs) {
		st = NVPA_STATUS_OUT_OF_MEMORY;
		goto out;
	}
	for (i = 0; i < n_raw; i++) {
		reqs[i].structSize = NVPA_RAW_METRIC_REQUEST_STRUCT_SIZE;
		reqs[i].pMetricName = raw[i];
		reqs[i].isolated = 1;
		reqs[i].keepInstances = 1;
	}

	NVPW_CHECK(nv.NVPW_CUDA_RawMetricsConfig_Create_V2(&cp), out);
	{
		NVPW_RawMetricsConfig_BeginPassGroup_Params b = {
			.structSize = NVPW_RawMetricsConfig_BeginPassGroup_Params_STRUCT_SIZE,
			.pRawMetricsConfig = cp.pRawMetricsConfig,
		};
		NVPW_RawMetricsConfig_AddMetrics_Params a = {
			.structSize = NVPW_RawMetricsConfig_AddMetrics_Params_STRUCT_SIZE,
			.pRawMetricsConfig = cp.pRawMetricsConfig,
			.pRawMetricRequests = reqs,
			.numMetricRequests = n_raw,
		};
		NVPW_RawMetricsConfig_EndPassGroup_Params e = {
			.structSize = NVPW_RawMetricsConfig_EndPassGroup_Params_STRUCT_SIZE,
			.pRawMetricsConfig = cp.pRawMetricsConfig,
		};
		NVPW_RawMetricsConfig_GenerateConfigImage_Params g = {
			.structSize = NVPW_RawMetricsConfig_GenerateConfigImage_Params_STRUCT_SIZE,
			.pRawMetricsConfig = cp.pRawMetricsConfig,
		};
		NVPW_RawMetricsConfig_GetNumPasses_V2_Params np = {
			.structSize = NVPW_RawMetricsConfig_GetNumPasses_V2_Params_STRUCT_SIZE,
			.pRawMetricsConfig = cp.pRawMetricsConfig,
		};
		NVPW_RawMetricsConfig_Destroy_Params d = {
			.structSize = NVPW_RawMetricsConfig_Destroy_Params_STRUCT_SIZE,
			.pRawMetricsConfig = cp.pRawMetricsConfig,
		};

		NVPW_CHECK(nv.NVPW_RawMetricsConfig_BeginPassGroup(&b), destroy_cfg);
		NVPW_CHECK(nv.NVPW_RawMetricsConfig_AddMetrics(&a), destroy_cfg);
		NVPW_CHECK(nv.NVPW_RawMetricsConfig_EndPassGroup(&e), destroy_cfg);
		NVPW_CHECK(nv.NVPW_RawMetricsConfig_GenerateConfigImage(&g), destroy_cfg);
		free(n->config);
		n->config = NULL;
		st = get_config_image(cp.pRawMetricsConfig, &n->config, &n->config_size);
		if (st != NVPA_STATUS_SUCCESS)
			goto destroy_cfg;
		NVPW_CHECK(nv.NVPW_RawMetricsConfig_GetNumPasses_V2(&np), destroy_cfg);
		*ret_passes = np.numPasses;
destroy_cfg:
		nv.NVPW_RawMetricsConfig_Destroy(&d);
		if (st != NVPA_STATUS_SUCCESS)
			goto out;
	}

	NVPW_CHECK(nv.NVPW_CUDA_CounterDataBuilder_Create(&bp), out);
	{
		NVPW_CounterDataBuilder_AddMetrics_Params a = {
			.structSize = NVPW_CounterDataBuilder_AddMetrics_Params_STRUCT_SIZE,
			.pCounterDataBuilder = bp.pCounterDataBuilder,
			.pRawMetricRequests = reqs,
			.numMetricRequests = n_raw,
		};
		NVPW_CounterDataBuilder_Destroy_Params d = {
			.structSize = NVPW_CounterDataBuilder_Destroy_Params_STRUCT_SIZE,
			.pCounterDataBuilder = bp.pCounterDataBuilder,
		};

		NVPW_CHECK(nv.NVPW_CounterDataBuilder_AddMetrics(&a), destroy_builder);
		free(n->prefix);
		n->prefix = NULL;
		st = get_prefix(bp.pCounterDataBuilder, &n->prefix, &n->prefix_size);
destroy_builder:
		nv.NVPW_CounterDataBuilder_Destroy(&d);
	}
out:
	free(reqs);
	free(raw);
	return st;
}

const uint8_t *
inj_nvpw_config_image(const struct inj_nvpw *n, size_t *ret_size)
{
	*ret_size = n->config_size;
	return n->config;
}

const uint8_t *
inj_nvpw_prefix(const struct inj_nvpw *n, size_t *ret_size)
{
	*ret_size = n->prefix_size;
	return n->prefix;
}

int
inj_nvpw_num_ranges(const uint8_t *image, size_t *ret)
{
	NVPW_CounterData_GetNumRanges_Params p = {
		.structSize = NVPW_CounterData_GetNumRanges_Params_STRUCT_SIZE,
		.pCounterDataImage = image,
	};
	NVPA_Status st;

	if (!nv.loaded)
		return NVPA_STATUS_NOT_LOADED;
	NVPW_CHECK(nv.NVPW_CounterData_GetNumRanges(&p), out);
	*ret = p.numRanges;
out:
	return st;
}

int
inj_nvpw_evaluate(struct inj_nvpw *n, const uint8_t *image, size_t size, size_t range,
		  double *values)
{
	NVPW_MetricsEvaluator_SetDeviceAttributes_Params a = {
		.structSize = NVPW_MetricsEvaluator_SetDeviceAttributes_Params_STRUCT_SIZE,
		.pMetricsEvaluator = n->eval,
		.pCounterDataImage = image,
		.counterDataImageSize = size,
	};
	NVPW_MetricsEvaluator_EvaluateToGpuValues_Params e = {
		.structSize = NVPW_MetricsEvaluator_EvaluateToGpuValues_Params_STRUCT_SIZE,
		.pMetricsEvaluator = n->eval,
		.pMetricEvalRequests = n->requests,
		.numMetricEvalRequests = n->n_requests,
		.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE,
		.metricEvalRequestStrideSize = sizeof(*n->requests),
		.pCounterDataImage = image,
		.counterDataImageSize = size,
		.rangeIndex = range,
		.isolated = 1,
		.pMetricValues = values,
	};
	NVPA_Status st;

	NVPW_CHECK(nv.NVPW_MetricsEvaluator_SetDeviceAttributes(&a), out);
	NVPW_CHECK(nv.NVPW_MetricsEvaluator_EvaluateToGpuValues(&e), out);
out:
	return st;
}
