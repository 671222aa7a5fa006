/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI backend of libproj.so: the only C file that includes <cupti*.h>
 * (cupti-notes §§1–4 for every call sequence).
 *
 * - libcupti.so.13 is dlopen()ed at init and every function used is
 *   resolved into one table (`api`); a missing library or symbol leaves
 *   gpuproj off with one line, never a failed application start. Tests put
 *   the test double (tests/fake/) first in LD_LIBRARY_PATH.
 * - Callbacks: launches in the driver and runtime domains (CUDA 13's
 *   `__cudaLaunchKernel`, Ex, cooperative, graph), nested runtime→driver
 *   callbacks counted once (thread-local depth), stream capture begin/end,
 *   cudaDeviceReset, contexts, modules, CUPTI fatal errors.
 * - Activity: CONCURRENT_KERNEL records → struct inj_kernel_record.
 * - Metrics: the first N launches of each signature run inside a
 *   "window": range profiler (CC >= 7.5) or the legacy profiler + NVPW
 *   (CC 7.0), kernel replay, auto range, one range per window.
 *
 * Thread safety: launch callbacks run concurrently on application threads.
 * A writer-preferring rwlock (win_lock) is held for writing by the one
 * thread whose launch is profiled, from its ENTER to its EXIT callback;
 * every other launch ENTER takes it for reading for an instant, so no
 * launch starts inside a window (a launch that raced past still shows up as
 * a second range and the window is discarded). Each context's profiler
 * calls are serialised by its own mutex, so a context destroyed on another
 * thread can tear a window down safely. Activity buffers complete on
 * CUPTI's thread or the flush thread. Nothing in a launch callback calls
 * the driver; driver calls (device name, attributes) happen in the
 * context-created callback only, through dlsym(RTLD_DEFAULT).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "backend-nvpw.h"
#include "backend.h"
#include "collector.h"
#include "cupti-host.h"
#include "env.h"
#include "log.h"
#include "metrics-nvpw.h"
#include "util.h"

/* ---- the libcupti function table ---- */

#define FN(name) __typeof__(&name) name

static struct {
	FN(cuptiGetVersion);
	FN(cuptiGetResultString);
	FN(cuptiSubscribe);
	FN(cuptiUnsubscribe);
	FN(cuptiEnableCallback);
	FN(cuptiGetDeviceId);
	FN(cuptiDeviceGetChipName);
	FN(cuptiActivityRegisterCallbacks);
	FN(cuptiActivityEnable);
	FN(cuptiActivityDisable);
	FN(cuptiActivityGetNextRecord);
	FN(cuptiActivityFlushAll);
	FN(cuptiActivityGetNumDroppedRecords);
	FN(cuptiProfilerInitialize);
	FN(cuptiProfilerDeInitialize);
	FN(cuptiProfilerDeviceSupported);
	FN(cuptiProfilerGetCounterAvailability);
	FN(cuptiRangeProfilerEnable);
	FN(cuptiRangeProfilerDisable);
	FN(cuptiRangeProfilerGetCounterDataSize);
	FN(cuptiRangeProfilerCounterDataImageInitialize);
	FN(cuptiRangeProfilerSetConfig);
	FN(cuptiRangeProfilerStart);
	FN(cuptiRangeProfilerStop);
	FN(cuptiRangeProfilerDecodeData);
	FN(cuptiRangeProfilerGetCounterDataInfo);
	FN(cuptiProfilerCounterDataImageCalculateSize);
	FN(cuptiProfilerCounterDataImageInitialize);
	FN(cuptiProfilerCounterDataImageCalculateScratchBufferSize);
	FN(cuptiProfilerCounterDataImageInitializeScratchBuffer);
	FN(cuptiProfilerBeginSession);
	FN(cuptiProfilerEndSession);
	FN(cuptiProfilerSetConfig);
	FN(cuptiProfilerUnsetConfig);
	FN(cuptiProfilerEnableProfiling);
	FN(cuptiProfilerDisableProfiling);
} api;

/* Driver functions, resolved in the process when the first context appears. */
static struct {
	FN(cuDeviceGet);
	FN(cuDeviceGetName);
	FN(cuDeviceGetAttribute);
} drv;

#undef FN

static void *libcupti;


static const char *
result_name(CUptiResult r)
{
	const char *s = NULL;

	if (api.cuptiGetResultString && api.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "CUPTI_ERROR_(unknown)";
}

/* Log a failed CUPTI call (debug: callers print the user-facing line). */
static CUptiResult
cupti_logged(CUptiResult r, const char *call)
{
	if (r != CUPTI_SUCCESS)
		inj_debug("%s failed: %s (%d)", call, result_name(r), (int)r);
	return r;
}

/* Wrap every CUPTI call: log `#call` with cuptiGetResultString; on failure goto label. */
#define CUPTI_CHECK(call, label) \
	do { \
		r = cupti_logged((call), #call); \
		if (r != CUPTI_SUCCESS) \
			goto label; \
	} while (0)
/* Same, for calls whose failure is only logged. */
#define CUPTI_TRY(call) cupti_logged((call), #call)

/* ---- global state ---- */

enum state { ST_OFF = 0, ST_RUNNING, ST_EXITING, ST_CHILD, ST_FATAL };

static atomic_int g_state = ST_OFF;
static const struct inj_config *g_cfg;
static struct inj_collector *g_col;
static CUpti_SubscriberHandle g_sub;
static bool g_subscribed, g_activity;
static char g_version[64] = "CUPTI (not loaded)";

/* Metrics on (mode full, N > 0, nothing degraded them globally). */
static atomic_bool g_metrics;
static char g_metrics_off[512];
static pthread_mutex_t g_degrade_lock = PTHREAD_MUTEX_INITIALIZER;

/* Windows. */
static pthread_rwlock_t g_win_lock;
static atomic_int g_captures;		/* stream captures in progress (process-wide) */
static atomic_bool g_nested_seen;	/* driver launch callbacks fire under runtime ones */
static atomic_bool g_profiler_initialized;

#define LEVEL_RT 1
#define LEVEL_DRV 2

struct ctxinfo;

/* Per-thread launch state. */
struct tls {
	int depth;			/* runtime launch/capture calls in progress */
	bool pending;			/* runtime launch awaiting its nested driver callback */
	uint32_t pending_corr;
	int win_level;			/* 0, LEVEL_RT or LEVEL_DRV: where the window opened */
	struct ctxinfo *win_ctx;
	struct inj_prof_launch *win_pl;
	struct inj_gate *win_gate;
	bool win_name_level;		/* credit taken on a key without dimensions */
	/* cache of the last context looked up */
	CUcontext last_ctx;
	struct ctxinfo *last_ci;
	unsigned last_gen;
};
static _Thread_local struct tls tls;

/* ---- devices, chips, contexts ---- */

#define MAX_CHIPS 16

struct chipinfo {
	char chip[32];
	bool legacy;			/* CC 7.0: legacy profiler + NVPW */
	bool ok;
	struct inj_metric_set *set;
	struct inj_host *host;		/* range profiler: evaluation */
	struct inj_nvpw *nvpw;		/* legacy */
	uint8_t *config;		/* range profiler config image */
	size_t config_size;
	size_t passes;
};

struct devinfo {
	char why[384];			/* why metrics are off on it, "" */
	bool checked;
	bool metrics;			/* counters usable on this device */
	struct inj_device_info info;
	struct chipinfo *chip;
	int fails;			/* consecutive profiler failures */
};

struct ctxinfo {
	CUcontext ctx;
	int device;
	pthread_mutex_t lock;		/* profiler calls on this context */
	atomic_bool ready;		/* windows may open here */
	bool dead;
	/* range profiler */
	CUpti_RangeProfiler_Object *rp;
	/* counter-data image (both paths) */
	uint8_t *cd;
	size_t cd_size;
	uint8_t *scratch;		/* legacy */
	size_t scratch_size;
	/* the window */
	bool win_open;
	bool win_aborted;
	bool legacy_session;
};

/*
 * Lock order: g_ctx_lock → ci->lock → g_dev_lock (a leaf: device_off only).
 * The collector lock comes after g_ctx_lock in on_context_created() but
 * before it in cupti_describe() (exit report): the two never overlap
 * because context set-up stops once exit began (see cupti_shutdown()).
 */
static pthread_mutex_t g_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ctxinfo **g_ctxs;
static size_t g_n_ctxs, g_cap_ctxs;
static atomic_uint g_ctx_gen;
static struct devinfo g_devs[INJ_MAX_DEVICES];
static struct chipinfo g_chips[MAX_CHIPS];
static size_t g_n_chips;

/* ---- degrading ---- */

/* Metrics off for the whole process; one line, once. */
static void
metrics_off(const char *fmt, ...) INJ_PRINTF(1, 2);

static void
metrics_off(const char *fmt, ...)
{
	va_list ap;
	bool first;

	pthread_mutex_lock(&g_degrade_lock);
	first = atomic_exchange(&g_metrics, false) && !g_metrics_off[0];
	if (first) {
		va_start(ap, fmt);
		vsnprintf(g_metrics_off, sizeof(g_metrics_off), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&g_degrade_lock);
	if (first)
		inj_warn("%s: metrics off, every launch is still timed (the profile will have "
			 "durations but no projections)", g_metrics_off);
}

static void
no_permission(const char *call, CUptiResult r)
{
	metrics_off("no permission to read GPU performance counters (%s from %s); profiling "
		    "needs root or the nvidia driver option NVreg_RestrictProfilingToAdminUsers=0 "
		    "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)", result_name(r), call);
}

/* Counters unusable on one device; prints once per device. */
static void
device_off(struct devinfo *d, const char *fmt, ...) INJ_PRINTF(2, 3);

static void
device_off(struct devinfo *d, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	pthread_mutex_lock(&g_dev_lock);
	if (!d->metrics && d->checked) {
		pthread_mutex_unlock(&g_dev_lock);
		return;
	}
	d->metrics = false;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(d->why, sizeof(d->why), "%s", why);
	pthread_mutex_unlock(&g_dev_lock);
	inj_warn("device %d (%s): %s: metrics off on this device, every launch is still timed",
		 d->info.ordinal, d->info.name[0] ? d->info.name : "?", why);
}

/* A profiler call failed: decide what it means. Context lock held. */
static void
profiler_failed(struct ctxinfo *ci, const char *call, CUptiResult r)
{
	struct devinfo *d = &g_devs[ci->device];

	switch ((int)r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
		no_permission(call, r);
		return;
	case CUPTI_ERROR_NOT_SUPPORTED:
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
	case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
	case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
		device_off(d, "%s returned %s", call, result_name(r));
		atomic_store(&ci->ready, false);
		return;
	default:
		break;
	}
	/* Unknown failures: retry later launches, give up after three in a row. */
	if (++d->fails >= 3) {
		device_off(d, "the profiler failed three times in a row (last: %s returned %s)",
			   call, result_name(r));
		atomic_store(&ci->ready, false);
	}
}

/* ---- contexts ---- */

static struct ctxinfo *
ctx_find_locked(CUcontext ctx)
{
	size_t i;

	for (i = g_n_ctxs; i-- > 0;) {
		if (g_ctxs[i]->ctx == ctx && !g_ctxs[i]->dead)
			return g_ctxs[i];
	}
	return NULL;
}

static struct ctxinfo *
ctx_find(CUcontext ctx)
{
	struct ctxinfo *ci;
	unsigned gen = atomic_load(&g_ctx_gen);

	if (!ctx)
		return NULL;
	if (tls.last_ctx == ctx && tls.last_gen == gen)
		return tls.last_ci;
	pthread_mutex_lock(&g_ctx_lock);
	ci = ctx_find_locked(ctx);
	pthread_mutex_unlock(&g_ctx_lock);
	tls.last_ctx = ctx;
	tls.last_ci = ci;
	tls.last_gen = gen;
	return ci;
}

/* ---- chips: metric resolution and config images (host side, no GPU) ---- */

struct validator {
	const char *chip;
	const uint8_t *avail;
	struct inj_nvpw *nvpw;
};

static bool
valid_host(void *ud, const char *name)
{
	struct validator *v = ud;

	return inj_host_metric_valid(v->chip, v->avail, name, NULL);
}

static bool
valid_nvpw(void *ud, const char *name)
{
	struct validator *v = ud;

	return inj_nvpw_metric_valid(v->nvpw, name);
}

/* Find or build the chip's metric set and config (g_ctx_lock held). */
static struct chipinfo *
chip_get(struct devinfo *d, const uint8_t *avail)
{
	struct validator v = { .chip = d->info.chip, .avail = avail };
	struct chipinfo *c;
	size_t i;
	int r;

	for (i = 0; i < g_n_chips; i++) {
		if (strcmp(g_chips[i].chip, d->info.chip) != 0)
			continue;
		if (!g_chips[i].ok)
			device_off(d, "the metric set-up for %s failed on an earlier device",
				   d->info.chip);
		return &g_chips[i];
	}
	if (g_n_chips == MAX_CHIPS)
		return NULL;
	c = &g_chips[g_n_chips++];
	snprintf(c->chip, sizeof(c->chip), "%s", d->info.chip);
	c->legacy = d->info.cc_major == 7 && d->info.cc_minor == 0;

	if (c->legacy) {
		const char *why = NULL;

		if (inj_nvpw_load(&why) != 0) {
			device_off(d, "%s", why);
			return c;
		}
		r = inj_nvpw_new(c->chip, avail, &c->nvpw);
		if (r != 0) {
			device_off(d, "the NVPW metrics evaluator does not accept chip %s (%s)",
				   c->chip, inj_nvpw_status_name(r));
			return c;
		}
		v.nvpw = c->nvpw;
		if (inj_metrics_resolve(c->chip, valid_nvpw, &v, &c->set) != 0) {
			device_off(d, "out of memory resolving metrics");
			return c;
		}
		r = inj_nvpw_config(c->nvpw, c->set->names, c->set->n_names, &c->passes);
		if (r != 0) {
			device_off(d, "cannot build the NVPW config image for %s (%s)", c->chip,
				   inj_nvpw_status_name(r));
			return c;
		}
	} else {
		r = inj_host_new(c->chip, avail, &c->host);
		if (r != CUPTI_SUCCESS) {
			device_off(d, "the CUPTI host API does not know chip %s (%s)", c->chip,
				   result_name((CUptiResult)r));
			return c;
		}
		if (inj_metrics_resolve(c->chip, valid_host, &v, &c->set) != 0) {
			device_off(d, "out of memory resolving metrics");
			return c;
		}
		r = inj_host_config(c->host, c->set->names, c->set->n_names, &c->config,
				    &c->config_size, &c->passes);
		if (r != CUPTI_SUCCESS) {
			device_off(d, "cannot build the config image for %s (%s)", c->chip,
				   result_name((CUptiResult)r));
			return c;
		}
	}
	c->ok = true;
	if (c->set->n_unavailable) {
		for (i = 0; i < GPUPROJ_M_COUNT; i++) {
			if (!c->set->map[i].expr)
				inj_info("%s: metric %s is not available on this chip (tried %zu "
					 "candidate(s)); models that need it will say so", c->chip,
					 gpuproj_metric_name((enum gpuproj_metric)i),
					 inj_metrics_candidate_count((enum gpuproj_metric)i));
		}
	}
	return c;
}

/*
 * Release the chips' CUPTI/NVPW objects (at exit). The resolved metric sets
 * stay: the report describes them afterwards (cupti_describe()).
 */
static void
chips_release(void)
{
	size_t i;

	for (i = 0; i < g_n_chips; i++) {
		inj_host_free(g_chips[i].host);
		g_chips[i].host = NULL;
		inj_nvpw_free(g_chips[i].nvpw);
		g_chips[i].nvpw = NULL;
		free(g_chips[i].config);
		g_chips[i].config = NULL;
	}
}

/* ---- device set-up at context creation (driver calls allowed here) ---- */

static void
resolve_driver(void)
{
	if (!drv.cuDeviceGet)
		inj_dlsym(RTLD_DEFAULT, "cuDeviceGet", &drv.cuDeviceGet);
	if (!drv.cuDeviceGetName)
		inj_dlsym(RTLD_DEFAULT, "cuDeviceGetName", &drv.cuDeviceGetName);
	if (!drv.cuDeviceGetAttribute)
		inj_dlsym(RTLD_DEFAULT, "cuDeviceGetAttribute", &drv.cuDeviceGetAttribute);
}

static void
device_describe(struct devinfo *d, int ordinal)
{
	CUpti_Device_GetChipName_Params cp = {
		.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
		.deviceIndex = (size_t)ordinal,
	};
	CUdevice dev = ordinal;
	CUptiResult r;
	int v;

	d->info.ordinal = ordinal;
	d->info.clock_hz = NAN;
	resolve_driver();
	if (drv.cuDeviceGet && drv.cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS)
		dev = ordinal;
	if (drv.cuDeviceGetName &&
	    drv.cuDeviceGetName(d->info.name, (int)sizeof(d->info.name), dev) != CUDA_SUCCESS)
		d->info.name[0] = '\0';
	if (drv.cuDeviceGetAttribute) {
		if (drv.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) ==
		    CUDA_SUCCESS)
			d->info.cc_major = v;
		if (drv.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) ==
		    CUDA_SUCCESS)
			d->info.cc_minor = v;
		if (drv.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) ==
		    CUDA_SUCCESS)
			d->info.sms = v;
		if (drv.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) == CUDA_SUCCESS &&
		    v > 0)
			d->info.clock_hz = (double)v * 1e3;
	}
	CUPTI_CHECK(api.cuptiDeviceGetChipName(&cp), out);
	snprintf(d->info.chip, sizeof(d->info.chip), "%s", cp.pChipName ? cp.pChipName : "");
out:
	return;
}

/* Why the profiler API says no, in words; NULL when supported. */
static const char *
unsupported_reason(const CUpti_Profiler_DeviceSupported_Params *p)
{
	if (p->isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return NULL;
	if (p->architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "the GPU architecture has no profiler support (needs compute capability >= 7.0)";
	if (p->vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
		return "a vGPU with profiling disabled by the hypervisor";
	if (p->vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "an unsupported vGPU configuration";
	if (p->sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "SLI is enabled";
	if (p->confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "confidential computing is enabled";
	if (p->cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "a CMP (crypto mining) GPU";
	if (p->wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "WSL without profiler support";
	return "the device or configuration is not supported";
}

/* Check the device once: support, permission, chip, metrics (g_ctx_lock held). */
static void
device_setup(struct devinfo *d, CUcontext ctx)
{
	CUpti_Profiler_Initialize_Params ip = { .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
	CUpti_Profiler_DeviceSupported_Params sp = {
		.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE,
		.cuDevice = d->info.ordinal,
		.api = CUPTI_PROFILER_RANGE_PROFILING,
	};
	CUpti_Profiler_GetCounterAvailability_Params ap = {
		.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
		.ctx = ctx,
	};
	uint8_t *avail = NULL;
	const char *why;
	CUptiResult r;

	d->metrics = true;
	if (!atomic_load(&g_metrics)) {
		d->metrics = false;
		return;
	}
	if (d->info.cc_major > 0 && d->info.cc_major < 7) {
		device_off(d, "compute capability %d.%d has no CUPTI profiler (needs >= 7.0)",
			   d->info.cc_major, d->info.cc_minor);
		return;
	}
	if (!d->info.chip[0]) {
		device_off(d, "cuptiDeviceGetChipName gave no chip name");
		return;
	}
	if (!atomic_load(&g_profiler_initialized)) {
		r = CUPTI_TRY(api.cuptiProfilerInitialize(&ip));
		if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
			no_permission("cuptiProfilerInitialize", r);
			d->metrics = false;
			return;
		}
		if (r != CUPTI_SUCCESS) {
			metrics_off("cuptiProfilerInitialize failed (%s)", result_name(r));
			d->metrics = false;
			return;
		}
		atomic_store(&g_profiler_initialized, true);
	}
	r = CUPTI_TRY(api.cuptiProfilerDeviceSupported(&sp));
	if (r == CUPTI_SUCCESS && (why = unsupported_reason(&sp)) != NULL) {
		/* CC 7.0 is supported by the legacy API only; the range API says no. */
		if (!(d->info.cc_major == 7 && d->info.cc_minor == 0 &&
		      sp.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
		      sp.vGpu == CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
		      sp.sli == CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
		      sp.confidentialCompute == CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
		      sp.cmp == CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
		      sp.wsl == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)) {
			device_off(d, "performance counters are not available: %s", why);
			return;
		}
	}
	/* Counter availability: where missing permission shows up ([T], cupti-notes §1). */
	r = CUPTI_TRY(api.cuptiProfilerGetCounterAvailability(&ap));
	if (r == CUPTI_SUCCESS && ap.counterAvailabilityImageSize > 0) {
		avail = malloc(ap.counterAvailabilityImageSize);
		if (avail) {
			ap.pCounterAvailabilityImage = avail;
			r = CUPTI_TRY(api.cuptiProfilerGetCounterAvailability(&ap));
		}
	}
	if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
	    r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES) {
		no_permission("cuptiProfilerGetCounterAvailability", r);
		d->metrics = false;
		goto out;
	}
	if (r != CUPTI_SUCCESS) {
		device_off(d, "cuptiProfilerGetCounterAvailability returned %s", result_name(r));
		goto out;
	}
	d->chip = chip_get(d, avail);
	if (!d->chip || !d->chip->ok) {
		d->metrics = false;
		goto out;
	}
	inj_info("device %d: %s (%s, CC %d.%d, %d SMs): %zu metrics in %zu pass%s; the first %u "
		 "launch%s of each kernel signature run%s %zu time%s under kernel replay",
		 d->info.ordinal, d->info.name, d->info.chip, d->info.cc_major, d->info.cc_minor,
		 d->info.sms, d->chip->set->n_names, d->chip->passes,
		 d->chip->passes == 1 ? "" : "es", g_cfg->profile_launches,
		 g_cfg->profile_launches == 1 ? "" : "es", g_cfg->profile_launches == 1 ? "s" : "",
		 d->chip->passes, d->chip->passes == 1 ? "" : "s");
out:
	free(avail);
}

static void
on_context_created(CUcontext ctx)
{
	struct ctxinfo *ci;
	uint32_t ordinal = 0;
	struct devinfo *d;
	CUptiResult r;

	CUPTI_CHECK(api.cuptiGetDeviceId(ctx, &ordinal), fail);
	if (ordinal >= INJ_MAX_DEVICES) {
		inj_warn("device ordinal %u is beyond the %d gpuproj supports; its kernels are "
			 "not profiled", ordinal, INJ_MAX_DEVICES);
		return;
	}
	ci = calloc(1, sizeof(*ci));
	if (!ci)
		return;
	ci->ctx = ctx;
	ci->device = (int)ordinal;
	pthread_mutex_init(&ci->lock, NULL);

	pthread_mutex_lock(&g_ctx_lock);
	if (atomic_load(&g_state) != ST_RUNNING) {
		/*
		 * Exit began (cupti_shutdown() passed g_ctx_lock since): the
		 * report holds the collector lock and then takes g_ctx_lock,
		 * so this must not take the collector lock below.
		 */
		pthread_mutex_unlock(&g_ctx_lock);
		pthread_mutex_destroy(&ci->lock);
		free(ci);
		return;
	}
	d = &g_devs[ordinal];
	if (!d->checked) {
		device_describe(d, (int)ordinal);
		inj_collector_device(g_col, &d->info);
		if (atomic_load(&g_metrics))
			device_setup(d, ctx);
		d->checked = true;
	}
	if (g_n_ctxs == g_cap_ctxs) {
		size_t cap = g_cap_ctxs ? 2 * g_cap_ctxs : 8;
		struct ctxinfo **n = realloc(g_ctxs, cap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&g_ctx_lock);
			pthread_mutex_destroy(&ci->lock);
			free(ci);
			return;
		}
		g_ctxs = n;
		g_cap_ctxs = cap;
	}
	g_ctxs[g_n_ctxs++] = ci;
	atomic_store(&ci->ready, d->metrics && d->chip && d->chip->ok && atomic_load(&g_metrics));
	atomic_fetch_add(&g_ctx_gen, 1);
	pthread_mutex_unlock(&g_ctx_lock);
	return;
fail:
	inj_debug("context %p: device unknown; its launches are timed only", (void *)ctx);
}

/* ---- windows: one profiled launch ---- */

/* Tear down whatever is open on the context (ctx lock held). */
static void
window_teardown(struct ctxinfo *ci)
{
	if (ci->rp) {
		CUpti_RangeProfiler_Stop_Params st = {
			.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
			.pRangeProfilerObject = ci->rp,
		};
		CUpti_RangeProfiler_Disable_Params dp = {
			.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
			.pRangeProfilerObject = ci->rp,
		};

		if (ci->win_open)
			CUPTI_TRY(api.cuptiRangeProfilerStop(&st));
		CUPTI_TRY(api.cuptiRangeProfilerDisable(&dp));
		ci->rp = NULL;
	}
	if (ci->legacy_session) {
		CUpti_Profiler_DisableProfiling_Params dp = {
			.structSize = CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE, .ctx = ci->ctx };
		CUpti_Profiler_UnsetConfig_Params up = {
			.structSize = CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE, .ctx = ci->ctx };
		CUpti_Profiler_EndSession_Params ep = {
			.structSize = CUpti_Profiler_EndSession_Params_STRUCT_SIZE, .ctx = ci->ctx };

		if (ci->win_open) {
			CUPTI_TRY(api.cuptiProfilerDisableProfiling(&dp));
			CUPTI_TRY(api.cuptiProfilerUnsetConfig(&up));
		}
		CUPTI_TRY(api.cuptiProfilerEndSession(&ep));
		ci->legacy_session = false;
	}
}

/*
 * Range profiler, ENTER side (cupti-notes §4a steps 3–6). [GPU?] Enable per
 * window mirrors NVIDIA's samples; once confirmed on a GPU, Enable +
 * SetConfig could stay per context with only Start/Stop per launch.
 */
static bool
range_open(struct ctxinfo *ci, struct chipinfo *chip)
{
	CUpti_RangeProfiler_Enable_Params ep = {
		.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, .ctx = ci->ctx };
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
		.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_SetConfig_Params sp = {
		.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_Start_Params stp = {
		.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE };
	const char *call = "cuptiRangeProfilerEnable";
	CUptiResult r;

	CUPTI_CHECK(api.cuptiRangeProfilerEnable(&ep), fail);
	ci->rp = ep.pRangeProfilerObject;
	{
		/* Per object: the image belongs to the metrics the object was told about. */
		CUpti_RangeProfiler_GetCounterDataSize_Params gp = {
			.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
			.pRangeProfilerObject = ci->rp,
			.pMetricNames = chip->set->names,
			.numMetrics = chip->set->n_names,
			.maxNumOfRanges = 1,
			.maxNumRangeTreeNodes = 1,
		};

		call = "cuptiRangeProfilerGetCounterDataSize";
		CUPTI_CHECK(api.cuptiRangeProfilerGetCounterDataSize(&gp), fail);
		if (!ci->cd || ci->cd_size != gp.counterDataSize) {
			free(ci->cd);
			ci->cd = aligned_alloc(8, (gp.counterDataSize + 7) / 8 * 8 + 8);
			ci->cd_size = ci->cd ? gp.counterDataSize : 0;
			if (!ci->cd) {
				r = CUPTI_ERROR_OUT_OF_MEMORY;
				goto fail;
			}
		}
	}
	ip.pRangeProfilerObject = ci->rp;
	ip.counterDataSize = ci->cd_size;
	ip.pCounterData = ci->cd;
	call = "cuptiRangeProfilerCounterDataImageInitialize";
	CUPTI_CHECK(api.cuptiRangeProfilerCounterDataImageInitialize(&ip), fail);
	sp.pRangeProfilerObject = ci->rp;
	sp.configSize = chip->config_size;
	sp.pConfig = chip->config;
	sp.counterDataImageSize = ci->cd_size;
	sp.pCounterDataImage = ci->cd;
	sp.range = CUPTI_AutoRange;
	sp.replayMode = CUPTI_KernelReplay;
	sp.maxRangesPerPass = 1;
	sp.numNestingLevels = 1;
	sp.minNestingLevel = 1;
	sp.passIndex = 0;
	sp.targetNestingLevel = 1;
	call = "cuptiRangeProfilerSetConfig";
	CUPTI_CHECK(api.cuptiRangeProfilerSetConfig(&sp), fail);
	stp.pRangeProfilerObject = ci->rp;
	call = "cuptiRangeProfilerStart";
	CUPTI_CHECK(api.cuptiRangeProfilerStart(&stp), fail);
	return true;
fail:
	window_teardown(ci);
	profiler_failed(ci, call, r);
	return false;
}

/* Legacy profiler (CC 7.0), ENTER side (cupti-notes §4b). */
static bool
legacy_open(struct ctxinfo *ci, struct chipinfo *chip)
{
	CUpti_Profiler_CounterDataImageOptions opt = {
		.structSize = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE,
		.maxNumRanges = 1,
		.maxNumRangeTreeNodes = 1,
		.maxRangeNameLength = 64,
	};
	CUpti_Profiler_CounterDataImage_Initialize_Params ip = {
		.structSize = CUpti_Profiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
		.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE,
		.pOptions = &opt,
	};
	CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params isp = {
		.structSize = CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params_STRUCT_SIZE,
	};
	CUpti_Profiler_BeginSession_Params bp = {
		.structSize = CUpti_Profiler_BeginSession_Params_STRUCT_SIZE };
	CUpti_Profiler_SetConfig_Params sp = {
		.structSize = CUpti_Profiler_SetConfig_Params_STRUCT_SIZE };
	CUpti_Profiler_EnableProfiling_Params enp = {
		.structSize = CUpti_Profiler_EnableProfiling_Params_STRUCT_SIZE, .ctx = ci->ctx };
	const char *call = "cuptiProfilerCounterDataImageCalculateSize";
	size_t prefix_size;
	CUptiResult r;

	opt.pCounterDataPrefix = inj_nvpw_prefix(chip->nvpw, &prefix_size);
	opt.counterDataPrefixSize = prefix_size;
	if (!ci->cd) {
		CUpti_Profiler_CounterDataImage_CalculateSize_Params cp = {
			.structSize = CUpti_Profiler_CounterDataImage_CalculateSize_Params_STRUCT_SIZE,
			.sizeofCounterDataImageOptions =
				CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE,
			.pOptions = &opt,
		};
		CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params sp2 = {
			.structSize =
				CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params_STRUCT_SIZE,
		};

		CUPTI_CHECK(api.cuptiProfilerCounterDataImageCalculateSize(&cp), fail);
		ci->cd = aligned_alloc(8, (cp.counterDataImageSize + 7) / 8 * 8 + 8);
		if (!ci->cd) {
			r = CUPTI_ERROR_OUT_OF_MEMORY;
			goto fail;
		}
		ci->cd_size = cp.counterDataImageSize;
		ip.counterDataImageSize = ci->cd_size;
		ip.pCounterDataImage = ci->cd;
		call = "cuptiProfilerCounterDataImageInitialize";
		CUPTI_CHECK(api.cuptiProfilerCounterDataImageInitialize(&ip), fail);
		sp2.counterDataImageSize = ci->cd_size;
		sp2.pCounterDataImage = ci->cd;
		call = "cuptiProfilerCounterDataImageCalculateScratchBufferSize";
		CUPTI_CHECK(api.cuptiProfilerCounterDataImageCalculateScratchBufferSize(&sp2), fail);
		ci->scratch = aligned_alloc(8, (sp2.counterDataScratchBufferSize + 7) / 8 * 8 + 8);
		if (!ci->scratch) {
			r = CUPTI_ERROR_OUT_OF_MEMORY;
			goto fail;
		}
		ci->scratch_size = sp2.counterDataScratchBufferSize;
	}
	/* Re-initialise every window, else the previous range stays in the image. */
	ip.counterDataImageSize = ci->cd_size;
	ip.pCounterDataImage = ci->cd;
	call = "cuptiProfilerCounterDataImageInitialize";
	CUPTI_CHECK(api.cuptiProfilerCounterDataImageInitialize(&ip), fail);
	isp.counterDataImageSize = ci->cd_size;
	isp.pCounterDataImage = ci->cd;
	isp.counterDataScratchBufferSize = ci->scratch_size;
	isp.pCounterDataScratchBuffer = ci->scratch;
	call = "cuptiProfilerCounterDataImageInitializeScratchBuffer";
	CUPTI_CHECK(api.cuptiProfilerCounterDataImageInitializeScratchBuffer(&isp), fail);

	bp.ctx = ci->ctx;
	bp.counterDataImageSize = ci->cd_size;
	bp.pCounterDataImage = ci->cd;
	bp.counterDataScratchBufferSize = ci->scratch_size;
	bp.pCounterDataScratchBuffer = ci->scratch;
	bp.range = CUPTI_AutoRange;
	bp.replayMode = CUPTI_KernelReplay;
	bp.maxRangesPerPass = 1;
	bp.maxLaunchesPerPass = 1;
	call = "cuptiProfilerBeginSession";
	CUPTI_CHECK(api.cuptiProfilerBeginSession(&bp), fail);
	ci->legacy_session = true;
	sp.ctx = ci->ctx;
	sp.pConfig = inj_nvpw_config_image(chip->nvpw, &sp.configSize);
	sp.minNestingLevel = 1;
	sp.numNestingLevels = 1;
	sp.passIndex = 0;
	sp.targetNestingLevel = 1;
	call = "cuptiProfilerSetConfig";
	CUPTI_CHECK(api.cuptiProfilerSetConfig(&sp), fail_session);
	call = "cuptiProfilerEnableProfiling";
	r = cupti_logged(api.cuptiProfilerEnableProfiling(&enp), "cuptiProfilerEnableProfiling");
	if (r != CUPTI_SUCCESS) {
		CUpti_Profiler_UnsetConfig_Params up = {
			.structSize = CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE, .ctx = ci->ctx };

		CUPTI_TRY(api.cuptiProfilerUnsetConfig(&up));
		goto fail_session;
	}
	return true;
fail_session:
	window_teardown(ci);
fail:
	profiler_failed(ci, call, r);
	return false;
}

/*
 * Open a window for the launch about to happen (win_lock held for writing).
 * On success the thread owns it until the launch's EXIT.
 */
static bool
window_open(struct ctxinfo *ci, struct inj_gate *g, uint32_t corr, uint32_t corr2, int level,
	    bool name_level)
{
	struct devinfo *d = &g_devs[ci->device];
	struct chipinfo *chip = d->chip;
	struct inj_prof_launch *pl;
	bool ok;

	pthread_mutex_lock(&ci->lock);
	if (ci->dead || !atomic_load(&ci->ready) || !chip || !chip->ok ||
	    !atomic_load(&g_metrics)) {
		pthread_mutex_unlock(&ci->lock);
		inj_collector_gate_give_back(g_col, g);
		return false;
	}
	ok = chip->legacy ? legacy_open(ci, chip) : range_open(ci, chip);
	if (!ok) {
		pthread_mutex_unlock(&ci->lock);
		inj_collector_gate_give_back(g_col, g);
		return false;
	}
	ci->win_open = true;
	ci->win_aborted = false;
	pthread_mutex_unlock(&ci->lock);

	pl = inj_collector_prof_begin(g_col, g);
	if (!pl) {
		pthread_mutex_lock(&ci->lock);
		window_teardown(ci);
		ci->win_open = false;
		pthread_mutex_unlock(&ci->lock);
		return false;
	}
	inj_collector_prof_add_corr(g_col, pl, corr);
	if (corr2)
		inj_collector_prof_add_corr(g_col, pl, corr2);
	tls.win_level = level;
	tls.win_ctx = ci;
	tls.win_pl = pl;
	tls.win_gate = g;
	tls.win_name_level = name_level;
	return true;
}

/* Range profiler, EXIT side (§4a steps 6–8). Returns ranges seen, -1 on error. */
static long
range_close(struct ctxinfo *ci, struct chipinfo *chip, double *raw, const char **call,
	    CUptiResult *ret_r)
{
	CUpti_RangeProfiler_Stop_Params stp = {
		.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ci->rp,
	};
	CUpti_RangeProfiler_DecodeData_Params dp = {
		.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ci->rp,
	};
	CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {
		.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
		.pCounterDataImage = ci->cd,
		.counterDataImageSize = ci->cd_size,
	};
	CUpti_RangeProfiler_Disable_Params dis = {
		.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ci->rp,
	};
	long ranges = -1;
	CUptiResult r;
	int hr;

	*call = "cuptiRangeProfilerStop";
	CUPTI_CHECK(api.cuptiRangeProfilerStop(&stp), out);
	*call = "cuptiRangeProfilerDecodeData";
	CUPTI_CHECK(api.cuptiRangeProfilerDecodeData(&dp), out);
	*call = "cuptiRangeProfilerGetCounterDataInfo";
	CUPTI_CHECK(api.cuptiRangeProfilerGetCounterDataInfo(&ip), out);
	ranges = (long)ip.numTotalRanges;
	if (dp.numOfRangeDropped) {
		/*
		 * Only one range and none dropped is usable (cupti-notes §4a);
		 * 0 + 1 dropped must not pass as one: the kernel ran, but its
		 * range is not in the image. Discard it like 2+ ranges.
		 */
		inj_debug("%zu range(s) dropped", dp.numOfRangeDropped);
		ranges += (long)dp.numOfRangeDropped;
		if (ranges < 2)
			ranges = 2;
	}
	if (ranges == 1) {
		*call = "cuptiProfilerHostEvaluateToGpuValues";
		hr = inj_host_evaluate(chip->host, ci->cd, ci->cd_size, 0, chip->set->names,
				       chip->set->n_names, raw);
		r = cupti_logged((CUptiResult)hr, "cuptiProfilerHostEvaluateToGpuValues");
		if (r != CUPTI_SUCCESS)
			ranges = -1;
	}
out:
	*ret_r = r;
	if (ci->rp) {
		CUptiResult r2 = CUPTI_TRY(api.cuptiRangeProfilerDisable(&dis));

		if (r2 != CUPTI_SUCCESS && r == CUPTI_SUCCESS) {
			*ret_r = r2;
			*call = "cuptiRangeProfilerDisable";
		}
		ci->rp = NULL;
	}
	return ranges;
}

static long
legacy_close(struct ctxinfo *ci, struct chipinfo *chip, double *raw, const char **call,
	     CUptiResult *ret_r)
{
	CUpti_Profiler_DisableProfiling_Params dp = {
		.structSize = CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE, .ctx = ci->ctx };
	CUpti_Profiler_UnsetConfig_Params up = {
		.structSize = CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE, .ctx = ci->ctx };
	CUpti_Profiler_EndSession_Params ep = {
		.structSize = CUpti_Profiler_EndSession_Params_STRUCT_SIZE, .ctx = ci->ctx };
	size_t n = 0;
	long ranges = -1;
	CUptiResult r;
	int st;

	*call = "cuptiProfilerDisableProfiling";
	CUPTI_CHECK(api.cuptiProfilerDisableProfiling(&dp), fail);
	*call = "cuptiProfilerUnsetConfig";
	CUPTI_CHECK(api.cuptiProfilerUnsetConfig(&up), fail);
	*call = "cuptiProfilerEndSession";
	ci->legacy_session = false;
	CUPTI_CHECK(api.cuptiProfilerEndSession(&ep), out);
	*call = "NVPW_CounterData_GetNumRanges";
	st = inj_nvpw_num_ranges(ci->cd, &n);
	if (st != 0) {
		r = CUPTI_ERROR_UNKNOWN;
		goto out;
	}
	ranges = (long)n;
	if (ranges == 1) {
		*call = "NVPW_MetricsEvaluator_EvaluateToGpuValues";
		st = inj_nvpw_evaluate(chip->nvpw, ci->cd, ci->cd_size, 0, raw);
		if (st != 0) {
			r = CUPTI_ERROR_UNKNOWN;
			ranges = -1;
		}
	}
	goto out;
fail:
	if (ci->legacy_session) {
		CUPTI_TRY(api.cuptiProfilerEndSession(&ep));
		ci->legacy_session = false;
	}
out:
	*ret_r = r;
	return ranges;
}

/* Close the calling thread's window at its launch's EXIT; releases win_lock. */
static void
window_close(void)
{
	struct ctxinfo *ci = tls.win_ctx;
	struct inj_prof_launch *pl = tls.win_pl;
	struct devinfo *d = &g_devs[ci->device];
	struct chipinfo *chip = d->chip;
	double *raw = NULL, values[GPUPROJ_M_COUNT];
	const char *call = "";
	CUptiResult r = CUPTI_SUCCESS;
	long ranges = -1;
	bool aborted;

	pthread_mutex_lock(&ci->lock);
	aborted = ci->win_aborted;
	if (!aborted) {
		raw = calloc(chip->set->n_names ? chip->set->n_names : 1, sizeof(*raw));
		if (!raw) {
			window_teardown(ci);
		} else if (chip->legacy) {
			ranges = legacy_close(ci, chip, raw, &call, &r);
		} else {
			ranges = range_close(ci, chip, raw, &call, &r);
		}
		if (r != CUPTI_SUCCESS)
			profiler_failed(ci, call, r);
		else
			d->fails = 0;
	}
	ci->win_open = false;
	ci->win_aborted = false;
	pthread_mutex_unlock(&ci->lock);

	if (ranges == 1) {
		double gpu_ns = NAN;

		inj_metrics_values(chip->set, raw, values);
		if (chip->set->duration_index != SIZE_MAX)
			gpu_ns = raw[chip->set->duration_index];
		inj_collector_prof_done(g_col, pl, values, gpu_ns);
	} else if (ranges == 0) {
		/* No range: the kernel did not run (e.g. captured); profile a later launch. */
		inj_debug("a profiled launch produced no range (not executed); a later launch of "
			  "the same signature is profiled instead");
		inj_collector_prof_failed(g_col, pl, false);
	} else {
		if (aborted)
			inj_debug("the context was destroyed while a launch was profiled; its metrics "
				  "are discarded");
		else if (ranges > 1)
			inj_debug("%ld ranges in one window (another launch ran inside it); metrics "
				  "discarded, a later launch is profiled instead", ranges);
		inj_collector_prof_failed(g_col, pl, true);
	}
	free(raw);
	tls.win_level = 0;
	tls.win_ctx = NULL;
	tls.win_pl = NULL;
	tls.win_gate = NULL;
	tls.win_name_level = false;
	pthread_rwlock_unlock(&g_win_lock);
}

/*
 * The window turned out to be unwanted before the kernel ran (a nested
 * driver callback revealed a signature already profiled N times): close it
 * without decoding; the launch runs and is timed as usual.
 */
static void
window_cancel(void)
{
	struct ctxinfo *ci = tls.win_ctx;

	pthread_mutex_lock(&ci->lock);
	if (!ci->win_aborted)
		window_teardown(ci);
	ci->win_open = false;
	ci->win_aborted = false;
	pthread_mutex_unlock(&ci->lock);
	inj_collector_prof_cancel(g_col, tls.win_pl);
	tls.win_level = 0;
	tls.win_ctx = NULL;
	tls.win_pl = NULL;
	tls.win_gate = NULL;
	tls.win_name_level = false;
	pthread_rwlock_unlock(&g_win_lock);
}

/* ---- launch callbacks ---- */

enum kind {
	K_NONE = 0,
	K_LAUNCH,		/* a kernel launch with its parameters */
	K_LAUNCH_NOPARAMS,	/* __cudaLaunchKernel: name and context only */
	K_GRAPH,		/* graph launch: never profiled */
	K_CAPTURE_BEGIN,
	K_CAPTURE_END,
	K_RESET,		/* cudaDeviceReset */
};

static enum kind
runtime_kind(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
		return K_LAUNCH;
	case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
	case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
		return K_LAUNCH_NOPARAMS;
	case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
		return K_GRAPH;
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030:
		return K_CAPTURE_BEGIN;
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000:
		return K_CAPTURE_END;
	case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020:
		return K_RESET;
	default:
		return K_NONE;
	}
}

static enum kind
driver_kind(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
		return K_LAUNCH;
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
		return K_GRAPH;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
		return K_CAPTURE_BEGIN;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
		return K_CAPTURE_END;
	default:
		return K_NONE;
	}
}

static void
set_dims(struct inj_launch_key *k, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
	 unsigned by, unsigned bz, size_t smem)
{
	k->grid.x = gx;
	k->grid.y = gy;
	k->grid.z = gz;
	k->block.x = bx;
	k->block.y = by;
	k->block.z = bz;
	k->smem_dynamic = (uint32_t)smem;
	k->dims_known = true;
}

static void
runtime_dims(CUpti_CallbackId cbid, const void *params, struct inj_launch_key *k)
{
	switch (cbid) {
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
		const cudaLaunchKernel_v7000_params *p = params;

		set_dims(k, p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x,
			 p->blockDim.y, p->blockDim.z, p->sharedMem);
		break;
	}
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000: {
		const cudaLaunchCooperativeKernel_v9000_params *p = params;

		set_dims(k, p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x,
			 p->blockDim.y, p->blockDim.z, p->sharedMem);
		break;
	}
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
		const cudaLaunchKernelExC_v11060_params *p = params;

		if (p->config)
			set_dims(k, p->config->gridDim.x, p->config->gridDim.y,
				 p->config->gridDim.z, p->config->blockDim.x,
				 p->config->blockDim.y, p->config->blockDim.z,
				 p->config->dynamicSmemBytes);
		break;
	}
	default:
		break;
	}
}

static void
driver_dims(CUpti_CallbackId cbid, const void *params, struct inj_launch_key *k)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
		const cuLaunchKernel_params *p = params;

		set_dims(k, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY,
			 p->blockDimZ, p->sharedMemBytes);
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
		const cuLaunchCooperativeKernel_params *p = params;

		set_dims(k, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY,
			 p->blockDimZ, p->sharedMemBytes);
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		const cuLaunchKernelEx_params *p = params;

		if (p->config)
			set_dims(k, p->config->gridDimX, p->config->gridDimY, p->config->gridDimZ,
				 p->config->blockDimX, p->config->blockDimY, p->config->blockDimZ,
				 p->config->sharedMemBytes);
		break;
	}
	default:
		break;
	}
}

/* Wait while another thread's window is open (no lock is kept). */
static void
pause_for_window(void)
{
	if (!atomic_load_explicit(&g_metrics, memory_order_relaxed))
		return;
	pthread_rwlock_rdlock(&g_win_lock);
	pthread_rwlock_unlock(&g_win_lock);
}

/*
 * Decide at a launch's ENTER whether it is profiled; open its window if so.
 * Every launch comes through here once (at its outermost level).
 */
static void
decide(const CUpti_CallbackData *cd, struct inj_launch_key *key, uint32_t corr2, int level)
{
	struct inj_gate *g;
	struct ctxinfo *ci;

	if (!atomic_load_explicit(&g_metrics, memory_order_relaxed))
		return;
	ci = ctx_find(cd->context);
	if (!ci || !atomic_load(&ci->ready) || !cd->symbolName ||
	    atomic_load(&g_captures) > 0) {
		pause_for_window();
		return;
	}
	key->name = cd->symbolName;
	key->device = ci->device;
	if (!inj_collector_gate_take(g_col, key, &g)) {
		pause_for_window();
		return;
	}
	pthread_rwlock_wrlock(&g_win_lock);
	if (!window_open(ci, g, cd->correlationId, corr2, level, !key->dims_known))
		pthread_rwlock_unlock(&g_win_lock);
}

static bool
call_succeeded(CUpti_CallbackDomain dom, const CUpti_CallbackData *cd)
{
	if (!cd->functionReturnValue)
		return false;
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
		return *(const cudaError_t *)cd->functionReturnValue == cudaSuccess;
	return *(const CUresult *)cd->functionReturnValue == CUDA_SUCCESS;
}

static void
capture_changed(enum kind k, bool ok)
{
	if (k == K_CAPTURE_BEGIN && ok) {
		atomic_fetch_add(&g_captures, 1);
	} else if (k == K_CAPTURE_END) {
		int c = atomic_load(&g_captures);

		while (c > 0 && !atomic_compare_exchange_weak(&g_captures, &c, c - 1))
			;
	}
}

static void
on_runtime(CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	enum kind k = runtime_kind(cbid);
	struct inj_launch_key key = { 0 };

	if (k == K_NONE)
		return;
	if (cd->callbackSite == CUPTI_API_ENTER) {
		if (k == K_RESET) {
			/* Deliver what is buffered before the contexts go ([S] helper_cupti_activity.h). */
			CUPTI_TRY(api.cuptiActivityFlushAll(0));
			return;
		}
		tls.depth++;
		switch (k) {
		case K_LAUNCH:
			if (tls.depth == 1) {
				runtime_dims(cbid, cd->functionParams, &key);
				decide(cd, &key, 0, LEVEL_RT);
			}
			break;
		case K_LAUNCH_NOPARAMS:
			if (tls.depth != 1)
				break;
			if (atomic_load_explicit(&g_nested_seen, memory_order_relaxed)) {
				/*
				 * The nested driver callback will know the dimensions
				 * (and waits for another thread's window there).
				 */
				tls.pending = true;
				tls.pending_corr = cd->correlationId;
			} else {
				decide(cd, &key, 0, LEVEL_RT);
			}
			break;
		case K_GRAPH:
			if (tls.depth == 1)
				pause_for_window();
			break;
		case K_NONE:
		case K_CAPTURE_BEGIN:
		case K_CAPTURE_END:
		case K_RESET:
			break;
		}
		return;
	}
	/* EXIT */
	if (k == K_RESET)
		return;
	if (tls.depth == 1) {
		if (tls.win_level == LEVEL_RT)
			window_close();
		if (tls.pending) {
			/*
			 * No nested driver callback came: launches like this one are
			 * decided at the runtime level again (by name) from now on.
			 */
			atomic_store(&g_nested_seen, false);
			tls.pending = false;
		}
		if (k == K_CAPTURE_BEGIN || k == K_CAPTURE_END)
			capture_changed(k, call_succeeded(CUPTI_CB_DOMAIN_RUNTIME_API, cd));
	}
	if (tls.depth > 0)
		tls.depth--;
}

static void
on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	enum kind k = driver_kind(cbid);
	bool nested = tls.depth > 0;
	struct inj_launch_key key = { 0 };

	if (k == K_NONE)
		return;
	if (cd->callbackSite == CUPTI_API_ENTER) {
		switch (k) {
		case K_LAUNCH:
			if (!nested) {
				driver_dims(cbid, cd->functionParams, &key);
				decide(cd, &key, 0, LEVEL_DRV);
				break;
			}
			if (!atomic_load_explicit(&g_nested_seen, memory_order_relaxed))
				atomic_store(&g_nested_seen, true);
			if (tls.win_level == LEVEL_RT) {
				/*
				 * The runtime level profiles this launch; the record may carry
				 * this call's correlation id instead of the runtime's [GPU?].
				 */
				if (tls.win_name_level) {
					struct inj_gate *g;

					driver_dims(cbid, cd->functionParams, &key);
					key.name = cd->symbolName;
					key.device = tls.win_ctx->device;
					if (key.name && key.dims_known) {
						g = inj_collector_gate_move(g_col, tls.win_gate,
									    &key);
						if (!g) {
							/* That signature had its N: not this one. */
							window_cancel();
							break;
						}
						tls.win_gate = g;
						inj_collector_prof_set_gate(g_col, tls.win_pl, g);
						tls.win_name_level = false;
					}
				}
				inj_collector_prof_add_corr(g_col, tls.win_pl, cd->correlationId);
			} else if (tls.pending) {
				tls.pending = false;
				driver_dims(cbid, cd->functionParams, &key);
				decide(cd, &key, tls.pending_corr, LEVEL_DRV);
			}
			break;
		case K_GRAPH:
			if (!nested)
				pause_for_window();
			break;
		case K_NONE:
		case K_LAUNCH_NOPARAMS:
		case K_CAPTURE_BEGIN:
		case K_CAPTURE_END:
		case K_RESET:
			break;
		}
		return;
	}
	/* EXIT */
	if (k == K_LAUNCH && tls.win_level == LEVEL_DRV)
		window_close();
	if (!nested && (k == K_CAPTURE_BEGIN || k == K_CAPTURE_END))
		capture_changed(k, call_succeeded(CUPTI_CB_DOMAIN_DRIVER_API, cd));
}

/* ---- resources ---- */

static void
on_context_destroy(CUcontext ctx)
{
	struct ctxinfo *ci;

	pthread_mutex_lock(&g_ctx_lock);
	ci = ctx_find_locked(ctx);
	if (ci)
		ci->dead = true;
	atomic_fetch_add(&g_ctx_gen, 1);
	pthread_mutex_unlock(&g_ctx_lock);
	if (!ci)
		return;
	pthread_mutex_lock(&ci->lock);
	atomic_store(&ci->ready, false);
	if (ci->win_open) {
		/* A window is open on another thread: close the profiler objects now. */
		window_teardown(ci);
		ci->win_aborted = true;
	} else {
		window_teardown(ci);
	}
	free(ci->cd);
	ci->cd = NULL;
	free(ci->scratch);
	ci->scratch = NULL;
	pthread_mutex_unlock(&ci->lock);
}

/* GPUPROJ_KEEP_CUBINS: write each loaded module's cubin, named by its content hash. */
static void
keep_cubin(const CUpti_ModuleResourceData *m)
{
	char path[4096];
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i, off = 0;
	int fd;

	if (!m || !m->pCubin || !m->cubinSize || !g_cfg->keep_cubins || !g_cfg->keep_cubins[0])
		return;
	for (i = 0; i < m->cubinSize; i++) {
		h ^= (unsigned char)m->pCubin[i];
		h *= 0x100000001b3ULL;
	}
	(void)mkdir(g_cfg->keep_cubins, 0777);
	snprintf(path, sizeof(path), "%s/module-%016llx.cubin", g_cfg->keep_cubins,
		 (unsigned long long)h);
	/* Copy now: after an unload the bytes behind pCubin change ([T]). */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno != EEXIST)
			inj_warn("GPUPROJ_KEEP_CUBINS: cannot create %s: %s", path, strerror(errno));
		return;
	}
	while (off < m->cubinSize) {
		ssize_t w = write(fd, m->pCubin + off, m->cubinSize - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			inj_warn("GPUPROJ_KEEP_CUBINS: cannot write %s: %s", path, strerror(errno));
			break;
		}
		off += (size_t)w;
	}
	close(fd);
	if (off == m->cubinSize)
		inj_debug("kept module %u (%zu bytes) as %s", m->moduleId, m->cubinSize, path);
	else
		unlink(path);
}

static void
on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
	switch (cbid) {
	case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
		on_context_created(rd->context);
		break;
	case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
		on_context_destroy(rd->context);
		break;
	case CUPTI_CBID_RESOURCE_MODULE_LOADED:
		keep_cubin(rd->resourceDescriptor);
		break;
	default:
		break;
	}
}

static void
on_state(CUpti_CallbackId cbid, const CUpti_StateData *sd)
{
	if (cbid != CUPTI_CBID_STATE_FATAL_ERROR)
		return;
	atomic_store(&g_metrics, false);
	atomic_store(&g_state, ST_FATAL);
	inj_warn("CUPTI reported a fatal error (%s: %s): collection stopped; what was collected "
		 "so far is written at exit", result_name(sd->notification.result),
		 sd->notification.message ? sd->notification.message : "no message");
}

static void CUPTIAPI
callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
	int st = atomic_load_explicit(&g_state, memory_order_relaxed);

	/*
	 * Only a running library acts; but a launch already inside its window
	 * when exit began must still close it at its EXIT (shutdown waits
	 * for that), so those callbacks pass while exiting.
	 */
	if (st != ST_RUNNING && !(st == ST_EXITING && tls.win_level &&
				  cbid != 0 && (dom == CUPTI_CB_DOMAIN_RUNTIME_API ||
						dom == CUPTI_CB_DOMAIN_DRIVER_API)))
		return;
	switch ((int)dom) {
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		on_runtime(cbid, data);
		break;
	case CUPTI_CB_DOMAIN_DRIVER_API:
		on_driver(cbid, data);
		break;
	case CUPTI_CB_DOMAIN_RESOURCE:
		on_resource(cbid, data);
		break;
	case CUPTI_CB_DOMAIN_STATE:
		on_state(cbid, data);
		break;
	default:
		break;
	}
}

/* ---- activity buffers ---- */

#define BUF_SIZE (1u << 20)
#define POOL_MAX 4

static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *g_pool[POOL_MAX];
static size_t g_n_pool;

static void CUPTIAPI
buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;

	pthread_mutex_lock(&g_pool_lock);
	if (g_n_pool)
		b = g_pool[--g_n_pool];
	pthread_mutex_unlock(&g_pool_lock);
	if (!b)
		b = aligned_alloc(8, BUF_SIZE);
	*buf = b;
	*size = b ? BUF_SIZE : 0; /* 0: CUPTI drops the records and counts them */
	*max_records = 0;
}

static void
buffer_release(uint8_t *buf)
{
	pthread_mutex_lock(&g_pool_lock);
	if (g_n_pool < POOL_MAX) {
		g_pool[g_n_pool++] = buf;
		buf = NULL;
	}
	pthread_mutex_unlock(&g_pool_lock);
	free(buf);
}

static void
translate(const CUpti_ActivityKernel10 *k, struct inj_kernel_record *r)
{
	r->name = k->name;
	r->grid.x = (uint32_t)k->gridX;
	r->grid.y = (uint32_t)k->gridY;
	r->grid.z = (uint32_t)k->gridZ;
	r->block.x = (uint32_t)k->blockX;
	r->block.y = (uint32_t)k->blockY;
	r->block.z = (uint32_t)k->blockZ;
	r->smem_dynamic = (uint32_t)k->dynamicSharedMemory;
	r->smem_static = (uint32_t)k->staticSharedMemory;
	r->regs_per_thread = k->registersPerThread;
	r->local_bytes_per_thread = k->localMemoryPerThread;
	r->device = (int)k->deviceId;
	r->correlation = k->correlationId;
	r->start_ns = k->start;
	r->end_ns = k->end;
	r->graph_id = k->graphId;
}

static void CUPTIAPI
buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
	struct inj_kernel_record batch[128];
	CUpti_Activity *rec = NULL;
	size_t n = 0, dropped = 0;
	int st = atomic_load(&g_state);
	CUptiResult r;

	if (!buf)
		return;
	if (st == ST_CHILD || !g_col)
		goto out;
	while ((r = api.cuptiActivityGetNextRecord(buf, valid, &rec)) == CUPTI_SUCCESS) {
		if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
		    rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
			continue;
		translate((const CUpti_ActivityKernel10 *)rec, &batch[n++]);
		if (n == ARRAY_LENGTH(batch)) {
			inj_collector_records(g_col, batch, n);
			n = 0;
		}
	}
	if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
		cupti_logged(r, "cuptiActivityGetNextRecord(buf, valid, &rec)");
	if (n)
		inj_collector_records(g_col, batch, n);
	if (CUPTI_TRY(api.cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped)) == CUPTI_SUCCESS &&
	    dropped)
		inj_collector_dropped(g_col, dropped);
out:
	buffer_release(buf);
}

/* ---- ops ---- */

static int
load_api(void)
{
	const char *missing = NULL;

	libcupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!libcupti) {
		inj_warn("cannot load libcupti.so.13 (%s): gpuproj is off, the application runs "
			 "unchanged; add the CUDA toolkit's lib64 (or extras/CUPTI/lib64) to "
			 "LD_LIBRARY_PATH", dlerror());
		return -1;
	}
#define R(name) \
	if (!missing && !inj_dlsym(libcupti, #name, &api.name)) \
		missing = #name
	R(cuptiGetVersion);
	R(cuptiGetResultString);
	R(cuptiSubscribe);
	R(cuptiUnsubscribe);
	R(cuptiEnableCallback);
	R(cuptiGetDeviceId);
	R(cuptiDeviceGetChipName);
	R(cuptiActivityRegisterCallbacks);
	R(cuptiActivityEnable);
	R(cuptiActivityDisable);
	R(cuptiActivityGetNextRecord);
	R(cuptiActivityFlushAll);
	R(cuptiActivityGetNumDroppedRecords);
	R(cuptiProfilerInitialize);
	R(cuptiProfilerDeInitialize);
	R(cuptiProfilerDeviceSupported);
	R(cuptiProfilerGetCounterAvailability);
	R(cuptiRangeProfilerEnable);
	R(cuptiRangeProfilerDisable);
	R(cuptiRangeProfilerGetCounterDataSize);
	R(cuptiRangeProfilerCounterDataImageInitialize);
	R(cuptiRangeProfilerSetConfig);
	R(cuptiRangeProfilerStart);
	R(cuptiRangeProfilerStop);
	R(cuptiRangeProfilerDecodeData);
	R(cuptiRangeProfilerGetCounterDataInfo);
	R(cuptiProfilerCounterDataImageCalculateSize);
	R(cuptiProfilerCounterDataImageInitialize);
	R(cuptiProfilerCounterDataImageCalculateScratchBufferSize);
	R(cuptiProfilerCounterDataImageInitializeScratchBuffer);
	R(cuptiProfilerBeginSession);
	R(cuptiProfilerEndSession);
	R(cuptiProfilerSetConfig);
	R(cuptiProfilerUnsetConfig);
	R(cuptiProfilerEnableProfiling);
	R(cuptiProfilerDisableProfiling);
#undef R
	if (missing) {
		inj_warn("libcupti.so.13 lacks %s (a CUPTI older than 13.0?): gpuproj is off, the "
			 "application runs unchanged", missing);
		return -1;
	}
	return 0;
}

/* Callbacks to enable; launches only when metrics may be collected. */
static const CUpti_CallbackId runtime_cbids[] = {
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000,
};
static const CUpti_CallbackId driver_cbids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
	CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
};

/* CUDA MPS: counters cannot be read by MPS clients (CUPTI docs §2.14) [GPU?]. */
static const char *
mps_active(char *buf, size_t size)
{
	const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
	struct stat st;
	char path[4096];

	snprintf(path, sizeof(path), "%s/control", dir && *dir ? dir : "/tmp/nvidia-mps");
	if (stat(path, &st) != 0)
		return NULL;
	snprintf(buf, size, "%s", path);
	return buf;
}

static int
cupti_init(const struct inj_config *cfg, struct inj_collector *col)
{
	uint32_t version = 0;
	bool launches;
	CUptiResult r;
	size_t i;
	char mps[4200];

	g_cfg = cfg;
	g_col = col;
	{
		pthread_rwlockattr_t a;

		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&g_win_lock, &a);
		pthread_rwlockattr_destroy(&a);
	}
	if (load_api() != 0)
		return -1;
	CUPTI_CHECK(api.cuptiGetVersion(&version), fail_version);
	snprintf(g_version, sizeof(g_version), "CUPTI %u.%u (API %u)", version / 10000,
		 version / 100 % 100, version);
	if (version < CUPTI_API_VERSION)
		inj_info("libcupti API version %u is older than the %u gpuproj was built with; "
			 "continuing", version, (unsigned)CUPTI_API_VERSION);
	{
		const char *missing = NULL;

		if (inj_host_load(libcupti, &missing) != 0)
			inj_debug("host API incomplete (%s)", missing ? missing : "?");
	}

	atomic_store(&g_metrics, cfg->mode == INJ_MODE_FULL && cfg->profile_launches > 0);
	r = cupti_logged(api.cuptiSubscribe(&g_sub, callback, NULL),
			 "cuptiSubscribe(&sub, callback, NULL)");
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		inj_warn("another CUPTI client is attached to this process (Nsight Systems or "
			 "Compute, compute-sanitizer, cuda-gdb, or a framework's profiler; "
			 "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): gpuproj is off, the "
			 "application runs unchanged; run it without the other tool to profile it");
		return -1;
	}
	if (r != CUPTI_SUCCESS) {
		inj_warn("cuptiSubscribe failed (%s): gpuproj is off, the application runs "
			 "unchanged", result_name(r));
		return -1;
	}
	g_subscribed = true;
	launches = atomic_load(&g_metrics);
	if (!launches && cfg->mode == INJ_MODE_FULL)
		inj_debug("GPUPROJ_PROFILE_LAUNCHES=0: timing only");
	if (!inj_host_loaded() && launches)
		metrics_off("the CUPTI profiler host API is missing from libcupti.so.13");
	if (launches && mps_active(mps, sizeof(mps)))
		metrics_off("CUDA MPS is active (%s): MPS clients cannot read performance counters",
			    mps);
	launches = atomic_load(&g_metrics);
	for (i = 0; launches && i < ARRAY_LENGTH(runtime_cbids); i++)
		CUPTI_TRY(api.cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API,
						  runtime_cbids[i]));
	for (i = 0; launches && i < ARRAY_LENGTH(driver_cbids); i++)
		CUPTI_TRY(api.cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API,
						  driver_cbids[i]));
	CUPTI_TRY(api.cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API,
					  CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020));
	CUPTI_CHECK(api.cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE,
					    CUPTI_CBID_RESOURCE_CONTEXT_CREATED), fail_callbacks);
	CUPTI_CHECK(api.cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE,
					    CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
		    fail_callbacks);
	if (cfg->keep_cubins)
		CUPTI_TRY(api.cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_RESOURCE,
						  CUPTI_CBID_RESOURCE_MODULE_LOADED));
	CUPTI_TRY(api.cuptiEnableCallback(1, g_sub, CUPTI_CB_DOMAIN_STATE,
					  CUPTI_CBID_STATE_FATAL_ERROR));

	CUPTI_CHECK(api.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
		    fail_activity);
	CUPTI_CHECK(api.cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), fail_activity);
	g_activity = true;
	atomic_store(&g_state, ST_RUNNING);
	return 0;

fail_version:
	inj_warn("cuptiGetVersion failed (%s): gpuproj is off, the application runs unchanged",
		 result_name(r));
	return -1;
fail_callbacks:
	inj_warn("cannot enable CUPTI callbacks (%s): gpuproj is off, the application runs "
		 "unchanged", result_name(r));
	CUPTI_TRY(api.cuptiUnsubscribe(g_sub));
	g_subscribed = false;
	return -1;
fail_activity:
	inj_warn("cannot trace kernels with the CUPTI activity API (%s): gpuproj is off, the "
		 "application runs unchanged", result_name(r));
	CUPTI_TRY(api.cuptiUnsubscribe(g_sub));
	g_subscribed = false;
	return -1;
}

static void
cupti_flush(bool forced)
{
	int st = atomic_load(&g_state);

	if (!g_activity || (st != ST_RUNNING && st != ST_FATAL))
		return;
	CUPTI_TRY(api.cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0));
}

static void
cupti_shutdown(void)
{
	CUpti_Profiler_DeInitialize_Params dp = {
		.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE };
	int st = atomic_load(&g_state);
	struct timespec until;
	bool quiet;
	size_t i;

	if (st == ST_CHILD || st == ST_OFF || st == ST_EXITING)
		return;
	atomic_store(&g_state, ST_EXITING);
	/*
	 * Let a context creation in progress finish; later ones see
	 * ST_EXITING under g_ctx_lock and stop (on_context_created()).
	 */
	pthread_mutex_lock(&g_ctx_lock);
	pthread_mutex_unlock(&g_ctx_lock);
	/*
	 * Wait (2 s at most) for a window another thread has open: its EXIT
	 * callback still runs (see callback()). If it never comes, leave the
	 * profiler objects alone rather than pull them from under it.
	 */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	if (st == ST_FATAL) /* callbacks stopped: an open window never closes */
		quiet = pthread_rwlock_trywrlock(&g_win_lock) == 0;
	else
		quiet = pthread_rwlock_timedwrlock(&g_win_lock, &until) == 0;
	if (!quiet)
		inj_debug("a profiled launch is still open on another thread at exit");
	if (g_activity) {
		if (st == ST_RUNNING) {
			CUPTI_TRY(api.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
			CUPTI_TRY(api.cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
		}
		g_activity = false;
	}
	if (g_subscribed) {
		if (st == ST_RUNNING)
			CUPTI_TRY(api.cuptiUnsubscribe(g_sub));
		g_subscribed = false;
	}
	if (!quiet)
		return;
	/* Release profiler objects of contexts the application left alive. */
	pthread_mutex_lock(&g_ctx_lock);
	for (i = 0; i < g_n_ctxs; i++) {
		struct ctxinfo *ci = g_ctxs[i];

		pthread_mutex_lock(&ci->lock);
		if (!ci->dead && st == ST_RUNNING)
			window_teardown(ci);
		free(ci->cd);
		free(ci->scratch);
		ci->cd = ci->scratch = NULL;
		pthread_mutex_unlock(&ci->lock);
	}
	pthread_mutex_unlock(&g_ctx_lock);
	if (atomic_load(&g_profiler_initialized) && st == ST_RUNNING)
		CUPTI_TRY(api.cuptiProfilerDeInitialize(&dp));
	atomic_store(&g_profiler_initialized, false);
	chips_release();
	inj_nvpw_unload();
	pthread_mutex_lock(&g_pool_lock);
	while (g_n_pool)
		free(g_pool[--g_n_pool]);
	pthread_mutex_unlock(&g_pool_lock);
	pthread_rwlock_unlock(&g_win_lock);
}

static void
cupti_child(void)
{
	atomic_store(&g_state, ST_CHILD);
	atomic_store(&g_metrics, false);
}

static const char *
cupti_version_string(void)
{
	return g_version;
}

/* Set an attribute from a printf format (dropped when out of memory). */
static void
attr(struct gpuproj_profile *p, const char *key, const char *fmt, ...) INJ_PRINTF(3, 4);

static void
attr(struct gpuproj_profile *p, const char *key, const char *fmt, ...)
{
	char *v = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&v, fmt, ap) < 0)
		v = NULL;
	va_end(ap);
	if (v)
		gpuproj_profile_set_attr(p, key, v);
	free(v);
}

static void
cupti_describe(struct gpuproj_profile *p)
{
	char key[160];
	size_t i, m;

	gpuproj_profile_set_attr(p, "cupti", g_version);
	if (g_metrics_off[0])
		attr(p, "metrics", "off: %s", g_metrics_off);
	else if (g_cfg->mode != INJ_MODE_FULL || g_cfg->profile_launches == 0)
		attr(p, "metrics", "off: timing only (GPUPROJ_MODE=%s, GPUPROJ_PROFILE_LAUNCHES=%u)",
		     inj_mode_name(g_cfg->mode), g_cfg->profile_launches);
	else
		attr(p, "metrics", "first %u launch(es) per signature, kernel replay, auto range",
		     g_cfg->profile_launches);
	/* For the first-GPU-run checklist (docs/injection.md): what this CUDA did. */
	gpuproj_profile_set_attr(p, "nested_driver_callbacks",
				 atomic_load(&g_nested_seen) ? "yes" : "no");
	pthread_mutex_lock(&g_ctx_lock);
	for (i = 0; i < INJ_MAX_DEVICES; i++) {
		if (!g_devs[i].checked || !g_devs[i].why[0])
			continue;
		snprintf(key, sizeof(key), "device.%zu.metrics", i);
		attr(p, key, "off: %s", g_devs[i].why);
	}
	for (i = 0; i < g_n_chips; i++) {
		const struct chipinfo *c = &g_chips[i];

		if (!c->ok)
			continue;
		snprintf(key, sizeof(key), "metrics.%.32s.api", c->chip);
		gpuproj_profile_set_attr(p, key, c->legacy ? "legacy profiler + NVPW (CC 7.0)"
							   : "range profiler + host API");
		snprintf(key, sizeof(key), "metrics.%.32s.passes", c->chip);
		attr(p, key, "%zu", c->passes);
		for (m = 0; m < GPUPROJ_M_COUNT; m++) {
			const struct inj_metric_map *map = &c->set->map[m];

			snprintf(key, sizeof(key), "metrics.%.32s.%.64s", c->chip,
				 gpuproj_metric_name((enum gpuproj_metric)m));
			if (!map->expr)
				gpuproj_profile_set_attr(p, key, "unavailable");
			else if (map->scale != 1)
				attr(p, key, "%s * %g", map->expr, map->scale);
			else
				gpuproj_profile_set_attr(p, key, map->expr);
		}
	}
	pthread_mutex_unlock(&g_ctx_lock);
}

const struct inj_backend_ops inj_backend_cupti = {
	.version = INJ_BACKEND_VERSION,
	.name = "cupti",
	.init = cupti_init,
	.flush = cupti_flush,
	.shutdown = cupti_shutdown,
	.version_string = cupti_version_string,
	.describe = cupti_describe,
	.child = cupti_child,
};
