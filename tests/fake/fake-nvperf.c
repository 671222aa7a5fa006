/* SPDX-License-Identifier: MIT */
/*
 * The NVPW test double: libnvperf_host.so and libnvperf_target.so (the same
 * source built twice, with the real SONAMEs) for libproj.so's legacy (CC
 * 7.0) profiler path. Compiled against the real nvperf headers; it shares
 * state and the counter-data image format with fake-cupti.c (linked
 * against the fake libcupti.so.13) and enforces the same rules: exact
 * structSize, NULL pPriv, call order (InitializeHost first, pass group
 * begun before AddMetrics and ended before GenerateConfigImage, device
 * attributes set before evaluation, size queries before copies), live
 * objects, nothing left alive at exit.
 *
 * Metric m's only raw dependency is "raw:m"; images carry raw names and
 * fake-cupti's value function maps them back to m's scripted value.
 *
 * Thread safety: one mutex; the client serialises per object anyway.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvperf_cuda_host.h>
#include <nvperf_host.h>
#include <nvperf_target.h>

#include "fake.h"

#define NV FAKE_EXPORT NVPA_Status
#define BLOB_PREFIX 0x58465046u
#define BLOB_NVCONFIG 0x46434e46u

FAKE_EXPORT uint8_t *fake_blob_make(uint32_t magic, const char *chip, const char *names, size_t n,
				    size_t names_len, size_t *ret_size);

static pthread_mutex_t M = PTHREAD_MUTEX_INITIALIZER;
static bool host_initialized;
static char *metric_names[512];		/* metricIndex → name */
static char *raw_names[512];		/* metricIndex → "raw:name" */
static size_t n_metric_names;
static int live_objects;

static NVPA_Status
nbad(const char *func, const char *what)
{
	fake_violation("%s: %s", func, what);
	return NVPA_STATUS_INVALID_ARGUMENT;
}

#define ENTER(p, T) \
	do { \
		int f_; \
		fake_count(__func__); \
		if (!(p)) \
			return nbad(__func__, "NULL params"); \
		if ((p)->structSize == 0) \
			return nbad(__func__, "structSize is 0"); \
		if ((p)->structSize != T##_STRUCT_SIZE) \
			return nbad(__func__, "structSize is not " #T "_STRUCT_SIZE"); \
		if ((p)->pPriv) \
			return nbad(__func__, "pPriv is not NULL"); \
		if ((f_ = fake_scripted_failure(__func__)) != 0) \
			return (NVPA_Status)f_; \
	} while (0)

#define NEED_HOST() \
	do { \
		if (!host_initialized) \
			return nbad(__func__, "NVPW_InitializeHost must come first"); \
	} while (0)

static size_t
metric_index(const char *name)
{
	size_t i;

	pthread_mutex_lock(&M);
	for (i = 0; i < n_metric_names; i++) {
		if (strcmp(metric_names[i], name) == 0)
			goto out;
	}
	if (n_metric_names == 512) {
		i = 0;
		goto out;
	}
	metric_names[n_metric_names] = strdup(name);
	raw_names[n_metric_names] = malloc(strlen(name) + 5);
	if (!metric_names[n_metric_names] || !raw_names[n_metric_names])
		abort();
	sprintf(raw_names[n_metric_names], "raw:%s", name);
	i = n_metric_names++;
out:
	pthread_mutex_unlock(&M);
	return i;
}

/* ---- objects ---- */

#define EVAL_MAGIC 0x4c564546u
#define CFG_MAGIC 0x47464346u
#define BLD_MAGIC 0x444c4246u

struct NVPW_MetricsEvaluator {
	uint32_t magic;
	char chip[32];
	bool attrs_set;
};

struct names {
	char **v;
	size_t n, cap;
};

/* What configs and builders begin with (see obj_new()). */
struct obj_head {
	uint32_t magic;
	char chip[32];
};

struct NVPA_RawMetricsConfig {
	struct obj_head h;
	int state;		/* 0 created, 1 pass group open, 2 closed, 3 generated */
	struct names raw;
};

struct NVPA_CounterDataBuilder {
	struct obj_head h;
	struct names raw;
};

static void
names_add(struct names *n, const char *s)
{
	size_t i;

	for (i = 0; i < n->n; i++) {
		if (strcmp(n->v[i], s) == 0)
			return;
	}
	if (n->n == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 16;
		n->v = realloc(n->v, n->cap * sizeof(*n->v));
		if (!n->v)
			abort();
	}
	n->v[n->n++] = strdup(s);
}

static void
names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->n; i++)
		free(n->v[i]);
	free(n->v);
}

static uint8_t *
names_blob(uint32_t magic, const char *chip, const struct names *n, size_t *size)
{
	size_t len = 0, i;
	char *buf, *p;
	uint8_t *b;

	for (i = 0; i < n->n; i++)
		len += strlen(n->v[i]) + 1;
	p = buf = malloc(len ? len : 1);
	if (!buf)
		abort();
	for (i = 0; i < n->n; i++) {
		size_t l = strlen(n->v[i]) + 1;

		memcpy(p, n->v[i], l);
		p += l;
	}
	b = fake_blob_make(magic, chip, buf, n->n, len, size);
	free(buf);
	return b;
}

/* A raw request list: struct sizes and names from GetMetricRawDependencies. */
static bool
raw_ok(const char *func, const NVPA_RawMetricRequest *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].structSize != NVPA_RAW_METRIC_REQUEST_STRUCT_SIZE || r[i].pPriv ||
		    !r[i].pMetricName || strncmp(r[i].pMetricName, "raw:", 4) != 0) {
			nbad(func, "raw metric request not as returned by GetMetricRawDependencies");
			return false;
		}
	}
	return true;
}

/* ---- host ---- */

NV
NVPW_InitializeHost(NVPW_InitializeHost_Params *p)
{
	ENTER(p, NVPW_InitializeHost_Params);
	host_initialized = true;
	return NVPA_STATUS_SUCCESS;
}

NV
NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(
	NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params *p)
{
	ENTER(p, NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params);
	NEED_HOST();
	if (!fake_chip_known(p->pChipName))
		return NVPA_STATUS_INVALID_ARGUMENT;
	p->scratchBufferSize = sizeof(struct NVPW_MetricsEvaluator) + 64;
	return NVPA_STATUS_SUCCESS;
}

NV
NVPW_CUDA_MetricsEvaluator_Initialize(NVPW_CUDA_MetricsEvaluator_Initialize_Params *p)
{
	struct NVPW_MetricsEvaluator *e;

	ENTER(p, NVPW_CUDA_MetricsEvaluator_Initialize_Params);
	NEED_HOST();
	if (!p->pScratchBuffer || p->scratchBufferSize < sizeof(*e) + 64)
		return nbad(__func__, "scratch buffer smaller than calculated");
	if (!fake_chip_known(p->pChipName))
		return NVPA_STATUS_INVALID_ARGUMENT;
	e = (struct NVPW_MetricsEvaluator *)(void *)p->pScratchBuffer;
	memset(e, 0, sizeof(*e));
	e->magic = EVAL_MAGIC;
	snprintf(e->chip, sizeof(e->chip), "%s", p->pChipName);
	p->pMetricsEvaluator = e;
	pthread_mutex_lock(&M);
	live_objects++;
	pthread_mutex_unlock(&M);
	return NVPA_STATUS_SUCCESS;
}

#define EVAL(e) \
	do { \
		if (!(e) || (e)->magic != EVAL_MAGIC) \
			return nbad(__func__, "not a live metrics evaluator"); \
	} while (0)

NV
NVPW_MetricsEvaluator_Destroy(NVPW_MetricsEvaluator_Destroy_Params *p)
{
	ENTER(p, NVPW_MetricsEvaluator_Destroy_Params);
	EVAL(p->pMetricsEvaluator);
	p->pMetricsEvaluator->magic = 0;
	pthread_mutex_lock(&M);
	live_objects--;
	pthread_mutex_unlock(&M);
	return NVPA_STATUS_SUCCESS;
}

NV
NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(
	NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params *p)
{
	ENTER(p, NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params);
	EVAL(p->pMetricsEvaluator);
	if (p->metricEvalRequestStructSize != NVPW_MetricEvalRequest_STRUCT_SIZE ||
	    !p->pMetricEvalRequest)
		return nbad(__func__, "metricEvalRequestStructSize");
	if (!fake_metric_valid(p->pMetricsEvaluator->chip, p->pMetricName))
		return NVPA_STATUS_INVALID_ARGUMENT;
	memset(p->pMetricEvalRequest, 0, sizeof(*p->pMetricEvalRequest));
	p->pMetricEvalRequest->metricIndex = metric_index(p->pMetricName);
	return NVPA_STATUS_SUCCESS;
}

static const NVPW_MetricEvalRequest *
request_at(const NVPW_MetricEvalRequest *base, size_t stride, size_t i)
{
	return (const NVPW_MetricEvalRequest *)(const void *)((const uint8_t *)base + i * stride);
}

NV
NVPW_MetricsEvaluator_GetMetricRawDependencies(
	NVPW_MetricsEvaluator_GetMetricRawDependencies_Params *p)
{
	size_t i;

	ENTER(p, NVPW_MetricsEvaluator_GetMetricRawDependencies_Params);
	EVAL(p->pMetricsEvaluator);
	if (p->metricEvalRequestStructSize != NVPW_MetricEvalRequest_STRUCT_SIZE ||
	    p->metricEvalRequestStrideSize < NVPW_MetricEvalRequest_STRUCT_SIZE ||
	    !p->pMetricEvalRequests)
		return nbad(__func__, "request struct/stride size");
	if (p->ppRawDependencies && p->numRawDependencies < p->numMetricEvalRequests)
		return nbad(__func__, "ppRawDependencies smaller than the count returned");
	for (i = 0; i < p->numMetricEvalRequests; i++) {
		size_t idx = request_at(p->pMetricEvalRequests, p->metricEvalRequestStrideSize,
					i)->metricIndex;

		if (idx >= n_metric_names)
			return nbad(__func__, "metricIndex not from ConvertMetricNameToMetricEvalRequest");
		if (p->ppRawDependencies)
			p->ppRawDependencies[i] = raw_names[idx];
	}
	p->numRawDependencies = p->numMetricEvalRequests;
	p->numOptionalRawDependencies = 0;
	return NVPA_STATUS_SUCCESS;
}

NV
NVPW_MetricsEvaluator_SetDeviceAttributes(NVPW_MetricsEvaluator_SetDeviceAttributes_Params *p)
{
	ENTER(p, NVPW_MetricsEvaluator_SetDeviceAttributes_Params);
	EVAL(p->pMetricsEvaluator);
	if (fake_cd_ranges(p->pCounterDataImage) < 0 || !p->counterDataImageSize)
		return nbad(__func__, "not a counter-data image");
	p->pMetricsEvaluator->attrs_set = true;
	return NVPA_STATUS_SUCCESS;
}

NV
NVPW_MetricsEvaluator_EvaluateToGpuValues(NVPW_MetricsEvaluator_EvaluateToGpuValues_Params *p)
{
	long ranges;
	size_t i;

	ENTER(p, NVPW_MetricsEvaluator_EvaluateToGpuValues_Params);
	EVAL(p->pMetricsEvaluator);
	if (!p->pMetricsEvaluator->attrs_set)
		return nbad(__func__, "NVPW_MetricsEvaluator_SetDeviceAttributes must come first");
	if (p->metricEvalRequestStructSize != NVPW_MetricEvalRequest_STRUCT_SIZE ||
	    p->metricEvalRequestStrideSize < NVPW_MetricEvalRequest_STRUCT_SIZE)
		return nbad(__func__, "request struct/stride size");
	ranges = fake_cd_ranges(p->pCounterDataImage);
	if (ranges < 0 || p->rangeIndex >= (size_t)ranges)
		return nbad(__func__, "rangeIndex beyond the image's ranges");
	for (i = 0; i < p->numMetricEvalRequests; i++) {
		size_t idx = request_at(p->pMetricEvalRequests, p->metricEvalRequestStrideSize,
					i)->metricIndex;

		if (idx >= n_metric_names ||
		    !fake_cd_value(p->pCounterDataImage, p->rangeIndex, raw_names[idx],
				   &p->pMetricValues[i]))
			return nbad(__func__, "a metric whose raw counters are not in the image");
	}
	return NVPA_STATUS_SUCCESS;
}

/* ---- raw metrics configs and counter-data builders: shared helpers ---- */

/* A new object of `size` bytes that begins with its struct obj_head. */
static void *
obj_new(size_t size, uint32_t magic, const char *chip)
{
	struct obj_head *o = calloc(1, size);

	if (!o)
		abort();
	o->magic = magic;
	snprintf(o->chip, sizeof(o->chip), "%s", chip);
	pthread_mutex_lock(&M);
	live_objects++;
	pthread_mutex_unlock(&M);
	return o;
}

static void
obj_free(void *obj, struct names *raw)
{
	((struct obj_head *)obj)->magic = 0;
	names_free(raw);
	free(obj);
	pthread_mutex_lock(&M);
	live_objects--;
	pthread_mutex_unlock(&M);
}

/* Add raw requests to a name list (AddMetrics of both object kinds). */
static NVPA_Status
add_raw(const char *func, struct names *raw, const NVPA_RawMetricRequest *r, size_t n)
{
	size_t i;

	if (!raw_ok(func, r, n))
		return NVPA_STATUS_INVALID_ARGUMENT;
	for (i = 0; i < n; i++)
		names_add(raw, r[i].pMetricName);
	return NVPA_STATUS_SUCCESS;
}

/*
 * The NVPW size-query-then-copy convention (nvperf_host.h GetConfigImage /
 * GetCounterDataPrefix): pBuffer NULL asks for the size in bytesCopied; a
 * buffer smaller than that is a client mistake.
 */
static NVPA_Status
copy_blob(const char *func, uint32_t magic, const char *chip, const struct names *raw,
	  uint8_t *buf, size_t allocated, size_t *ret_copied)
{
	size_t size;
	uint8_t *img = names_blob(magic, chip, raw, &size);

	if (buf) {
		if (allocated < size) {
			free(img);
			return nbad(func, "bytesAllocated smaller than the size query returned");
		}
		memcpy(buf, img, size);
	}
	*ret_copied = size;
	free(img);
	return NVPA_STATUS_SUCCESS;
}

/* ---- raw metrics config ---- */

NV
NVPW_CUDA_RawMetricsConfig_Create_V2(NVPW_CUDA_RawMetricsConfig_Create_V2_Params *p)
{
	ENTER(p, NVPW_CUDA_RawMetricsConfig_Create_V2_Params);
	NEED_HOST();
	if (p->activityKind != NVPA_ACTIVITY_KIND_PROFILER)
		return nbad(__func__, "activityKind must be NVPA_ACTIVITY_KIND_PROFILER");
	if (!fake_chip_known(p->pChipName))
		return NVPA_STATUS_INVALID_ARGUMENT;
	p->pRawMetricsConfig = obj_new(sizeof(*p->pRawMetricsConfig), CFG_MAGIC, p->pChipName);
	return NVPA_STATUS_SUCCESS;
}

#define CFG(c) \
	do { \
		if (!(c) || (c)->h.magic != CFG_MAGIC) \
			return nbad(__func__, "not a live raw metrics config"); \
	} while (0)

NV
NVPW_RawMetricsConfig_Destroy(NVPW_RawMetricsConfig_Destroy_Params *p)
{
	ENTER(p, NVPW_RawMetricsConfig_Destroy_Params);
	CFG(p->pRawMetricsConfig);
	obj_free(p->pRawMetricsConfig, &p->pRawMetricsConfig->raw);
	return NVPA_STATUS_SUCCESS;
}

/* Move a config from state `from` to `to` (0 created, 1 pass group open, 2 closed, 3 generated). */
static NVPA_Status
cfg_step(const char *func, NVPA_RawMetricsConfig *c, int from, int to, const char *why)
{
	if (c->state != from)
		return nbad(func, why);
	c->state = to;
	return NVPA_STATUS_SUCCESS;
}

NV
NVPW_RawMetricsConfig_BeginPassGroup(NVPW_RawMetricsConfig_BeginPassGroup_Params *p)
{
	ENTER(p, NVPW_RawMetricsConfig_BeginPassGroup_Params);
	CFG(p->pRawMetricsConfig);
	return cfg_step(__func__, p->pRawMetricsConfig, 0, 1, "pass group already begun");
}

NV
NVPW_RawMetricsConfig_AddMetrics(NVPW_RawMetricsConfig_AddMetrics_Params *p)
{
	ENTER(p, NVPW_RawMetricsConfig_AddMetrics_Params);
	CFG(p->pRawMetricsConfig);
	if (p->pRawMetricsConfig->state != 1)
		return nbad(__func__, "NVPW_RawMetricsConfig_BeginPassGroup must come first");
	return add_raw(__func__, &p->pRawMetricsConfig->raw, p->pRawMetricRequests,
		       p->numMetricRequests);
}

NV
NVPW_RawMetricsConfig_EndPassGroup(NVPW_RawMetricsConfig_EndPassGroup_Params *p)
{
	ENTER(p, NVPW_RawMetricsConfig_EndPassGroup_Params);
	CFG(p->pRawMetricsConfig);
	return cfg_step(__func__, p->pRawMetricsConfig, 1, 2, "no pass group open");
}

NV
NVPW_RawMetricsConfig_GenerateConfigImage(NVPW_RawMetricsConfig_GenerateConfigImage_Params *p)
{
	ENTER(p, NVPW_RawMetricsConfig_GenerateConfigImage_Params);
	CFG(p->pRawMetricsConfig);
	return cfg_step(__func__, p->pRawMetricsConfig, 2, 3,
			"NVPW_RawMetricsConfig_EndPassGroup must come first");
}

NV
NVPW_RawMetricsConfig_GetConfigImage(NVPW_RawMetricsConfig_GetConfigImage_Params *p)
{
	ENTER(p, NVPW_RawMetricsConfig_GetConfigImage_Params);
	CFG(p->pRawMetricsConfig);
	if (p->pRawMetricsConfig->state != 3)
		return nbad(__func__, "NVPW_RawMetricsConfig_GenerateConfigImage must come first");
	return copy_blob(__func__, BLOB_NVCONFIG, p->pRawMetricsConfig->h.chip,
			 &p->pRawMetricsConfig->raw, p->pBuffer, p->bytesAllocated, &p->bytesCopied);
}

NV
NVPW_RawMetricsConfig_GetNumPasses_V2(NVPW_RawMetricsConfig_GetNumPasses_V2_Params *p)
{
	ENTER(p, NVPW_RawMetricsConfig_GetNumPasses_V2_Params);
	CFG((struct NVPA_RawMetricsConfig *)(uintptr_t)p->pRawMetricsConfig);
	if (p->pRawMetricsConfig->state != 3)
		return nbad(__func__, "NVPW_RawMetricsConfig_GenerateConfigImage must come first");
	p->numPasses = fake_passes(p->pRawMetricsConfig->raw.n);
	return NVPA_STATUS_SUCCESS;
}

/* ---- counter-data builder ---- */

NV
NVPW_CUDA_CounterDataBuilder_Create(NVPW_CUDA_CounterDataBuilder_Create_Params *p)
{
	ENTER(p, NVPW_CUDA_CounterDataBuilder_Create_Params);
	NEED_HOST();
	if (!fake_chip_known(p->pChipName))
		return NVPA_STATUS_INVALID_ARGUMENT;
	p->pCounterDataBuilder = obj_new(sizeof(*p->pCounterDataBuilder), BLD_MAGIC, p->pChipName);
	return NVPA_STATUS_SUCCESS;
}

#define BLD(b) \
	do { \
		if (!(b) || (b)->h.magic != BLD_MAGIC) \
			return nbad(__func__, "not a live counter-data builder"); \
	} while (0)

NV
NVPW_CounterDataBuilder_Destroy(NVPW_CounterDataBuilder_Destroy_Params *p)
{
	ENTER(p, NVPW_CounterDataBuilder_Destroy_Params);
	BLD(p->pCounterDataBuilder);
	obj_free(p->pCounterDataBuilder, &p->pCounterDataBuilder->raw);
	return NVPA_STATUS_SUCCESS;
}

NV
NVPW_CounterDataBuilder_AddMetrics(NVPW_CounterDataBuilder_AddMetrics_Params *p)
{
	ENTER(p, NVPW_CounterDataBuilder_AddMetrics_Params);
	BLD(p->pCounterDataBuilder);
	return add_raw(__func__, &p->pCounterDataBuilder->raw, p->pRawMetricRequests,
		       p->numMetricRequests);
}

NV
NVPW_CounterDataBuilder_GetCounterDataPrefix(NVPW_CounterDataBuilder_GetCounterDataPrefix_Params *p)
{
	ENTER(p, NVPW_CounterDataBuilder_GetCounterDataPrefix_Params);
	BLD(p->pCounterDataBuilder);
	if (!p->pCounterDataBuilder->raw.n)
		return nbad(__func__, "no metrics added");
	return copy_blob(__func__, BLOB_PREFIX, p->pCounterDataBuilder->h.chip,
			 &p->pCounterDataBuilder->raw, p->pBuffer, p->bytesAllocated,
			 &p->bytesCopied);
}

/* ---- target ---- */

NV
NVPW_CounterData_GetNumRanges(NVPW_CounterData_GetNumRanges_Params *p)
{
	long r;

	ENTER(p, NVPW_CounterData_GetNumRanges_Params);
	r = fake_cd_ranges(p->pCounterDataImage);
	if (r < 0)
		return nbad(__func__, "not a counter-data image");
	p->numRanges = (size_t)r;
	return NVPA_STATUS_SUCCESS;
}

__attribute__((destructor)) static void
nvperf_exit(void)
{
	size_t i;

	/* Objects are per process; only the host library checks (it is loaded once). */
	if (live_objects > 0)
		fake_violation("%d NVPW object(s) never destroyed", live_objects);
	live_objects = 0;
	for (i = 0; i < n_metric_names; i++) {
		free(metric_names[i]);
		free(raw_names[i]);
	}
	n_metric_names = 0;
}
