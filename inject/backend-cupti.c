/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI backend of libproj.so ([CUPTI-INJ], [CUPTI-CB], [CUPTI-ACT],
 * [CUPTI-RP] and [CUPTI-LEG] for every call sequence): this file loads libcupti, starts and stops collection and
 * describes it (the inj_backend_ops table), and decides what a failure
 * means (degrading). The rest of the backend is split by API, see
 * backend-cupti-private.h.
 *
 * - libcupti.so.13 is dlopen()ed at init and every function used is
 *   resolved into one table (g_api); a missing library or symbol leaves
 *   gpuproj off with one line, never a failed application start. Tests put
 *   the test double (tests/fake/) first in LD_LIBRARY_PATH.
 * - Metrics: the first N launches of each signature run inside a
 *   "window" (backend-cupti-window.c) on the chip's profiler API.
 *
 * Thread safety: init/shutdown once (entry.c); flush from the worker
 * thread; the degrade functions from any thread.
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "backend-cupti-private.h"
#include "backend-nvpw.h"
#include "cupti-host.h"
#include "cupti-records.h"
#include "util.h"

struct cupti_api g_api;
struct cupti_drv g_drv;

atomic_int g_state = ST_OFF;
const struct inj_config *g_cfg;
struct inj_collector *g_col;
atomic_bool g_metrics;
char g_metrics_off[512];
atomic_int g_captures;
atomic_bool g_nested_seen;
atomic_bool g_profiler_initialized;
bool g_cupti_ga;

static void *libcupti;
/* The first legacy profiler symbol libcupti lacks, NULL when it has them all. */
static const char *g_legacy_missing;
/* cuptiGetVersion of the loaded libcupti, 0 until known. */
static uint32_t g_api_version;
static CUpti_SubscriberHandle g_sub;
static bool g_subscribed, g_activity;
static char g_version[64] = "CUPTI (not loaded)";
static pthread_mutex_t g_degrade_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_dev_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- calling CUPTI ---- */

const char *
cupti_result_name(CUptiResult r)
{
	const char *s = NULL;

	if (g_api.cuptiGetResultString && g_api.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "CUPTI_ERROR_(unknown)";
}

CUptiResult
cupti_logged(CUptiResult r, const char *call)
{
	if (r != CUPTI_SUCCESS)
		inj_debug("%s failed: %s (%d)", call, cupti_result_name(r), (int)r);
	return r;
}

bool
cupti_failed(struct cupti_err *e, CUptiResult r, const char *call)
{
	if (r == CUPTI_SUCCESS)
		return false;
	cupti_logged(r, call);
	if (e && !e->call) {
		e->call = call;
		e->r = r;
	}
	return true;
}

/* ---- degrading ---- */

void
cupti_metrics_off(const char *fmt, ...)
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

void
cupti_no_permission(const char *call, CUptiResult r)
{
	cupti_metrics_off("no permission to read GPU performance counters (%s from %s); "
			  "profiling needs root or the nvidia driver option "
			  "NVreg_RestrictProfilingToAdminUsers=0 "
			  "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)", cupti_result_name(r), call);
}

/*
 * CUPTI_ERROR_HARDWARE_BUSY: "The performance monitoring hardware is in use
 * by other client" (cupti_result.h). DCGM holds the counters with a
 * system-wide lock (NVIDIA/DCGM issue 56) until paused.
 */
void
cupti_counters_busy(const char *call)
{
	cupti_metrics_off("the GPU performance counters are busy (CUPTI_ERROR_HARDWARE_BUSY from "
			  "%s): another profiler holds them, on cluster nodes usually DCGM or "
			  "dcgm-exporter; pause it with 'dcgmi profile --pause' (and 'dcgmi profile "
			  "--resume' afterwards) and run again", call);
}

void
cupti_device_off(struct devinfo *d, const char *fmt, ...)
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

void
cupti_profiler_failed(struct ctxinfo *ci, const struct cupti_err *err)
{
	struct devinfo *d = &g_devs[ci->device];
	const char *call = err->call ? err->call : "?";

	switch ((int)err->r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
		cupti_no_permission(call, err->r);
		return;
	case CUPTI_ERROR_HARDWARE_BUSY:
		cupti_counters_busy(call);
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
		cupti_device_off(d, "%s returned %s", call, cupti_result_name(err->r));
		atomic_store(&ci->ready, false);
		return;
	default:
		break;
	}
	/* Unknown failures: retry later launches, give up after three in a row. */
	if (++d->fails >= 3) {
		cupti_device_off(d, "the profiler failed three times in a row (last: %s returned %s)",
				 call, cupti_result_name(err->r));
		atomic_store(&ci->ready, false);
	}
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
	if (!missing && !inj_dlsym(libcupti, #name, &g_api.name)) \
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
	R(cuptiActivityFlushPeriod);
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
#undef R
	if (missing) {
		inj_warn("libcupti.so.13 lacks %s (a CUPTI older than 13.0?): gpuproj is off, the "
			 "application runs unchanged", missing);
		return -1;
	}
	/*
	 * The legacy profiler API, which only CC 7.0 needs (the range profiler
	 * does not run there): "deprecated as of CUDA 13.0 and will be removed
	 * in the future" (cupti_profiler_target.h). Optional, so that a CUPTI
	 * without it leaves gpuproj on; a CC 7.0 device then gets timing only
	 * (legacy_chip_setup(), cupti_legacy_missing()).
	 */
#define O(name) \
	if (!inj_dlsym(libcupti, #name, &g_api.name) && !g_legacy_missing) \
		g_legacy_missing = #name
	O(cuptiProfilerCounterDataImageCalculateSize);
	O(cuptiProfilerCounterDataImageInitialize);
	O(cuptiProfilerCounterDataImageCalculateScratchBufferSize);
	O(cuptiProfilerCounterDataImageInitializeScratchBuffer);
	O(cuptiProfilerBeginSession);
	O(cuptiProfilerEndSession);
	O(cuptiProfilerSetConfig);
	O(cuptiProfilerUnsetConfig);
	O(cuptiProfilerEnableProfiling);
	O(cuptiProfilerDisableProfiling);
	O(cuptiProfilerFlushCounterData);
#undef O
	if (g_legacy_missing)
		inj_debug("libcupti.so.13 lacks the legacy profiler's %s: no metrics on CC 7.0",
			  g_legacy_missing);
	return 0;
}

const char *
cupti_legacy_missing(void)
{
	return g_legacy_missing;
}

uint32_t
cupti_api_version(void)
{
	return g_api_version;
}

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

/*
 * Whether the CUDA driver can be loaded in this process. CUPTI 13.2 and
 * later load it (libcuda.so.1) inside their first call, cuptiGetVersion
 * included; where it cannot be loaded 13.3-13.5 fail that call with
 * CUPTI_ERROR_UNKNOWN and 13.2 recurses until the stack overflows, i.e.
 * crashes the application (observed with the libcupti.so.13 of NVIDIA's
 * 13.2.23 and 13.2.86 wheels on a machine without a driver; 13.0 and 13.1
 * answer without one). Under CUDA_INJECTION64_PATH the driver is the one
 * calling InitializeInjection, so it is loaded; under GPUPROJ_PRELOAD=1
 * (initialised from the constructor, in every process) it may not be.
 * The handle is kept: the driver is never unloaded under CUDA.
 */
static bool
driver_loadable(char *why, size_t size)
{
	static void *libcuda;
	const char *e;

	if (!libcuda)
		libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!libcuda)
		libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (libcuda)
		return true;
	e = dlerror();
	snprintf(why, size, "%s", e ? e : "libcuda.so.1 not found");
	return false;
}

static int
cupti_init(const struct inj_config *cfg, struct inj_collector *col)
{
	struct cupti_err err = { 0 };
	uint32_t version = 0;
	bool launches;
	CUptiResult r;
	char mps[4200], why[512];

	g_cfg = cfg;
	g_col = col;
	if (load_api() != 0)
		return -1;
	if (!driver_loadable(why, sizeof(why))) {
		inj_warn("no CUDA driver can be loaded in this process (%s): gpuproj is off, the "
			 "application runs unchanged", why);
		return -1;
	}
	/*
	 * With a driver, a failure here is CUPTI's own (which ones it returns
	 * when the driver loads but cannot serve it, no GPU or a driver older
	 * than this CUPTI, is [GPU?]).
	 */
	if (!CUPTI_CALL(&err, cuptiGetVersion, &version)) {
		inj_warn("cuptiGetVersion failed (%s): gpuproj is off, the application runs "
			 "unchanged", cupti_result_name(err.r));
		return -1;
	}
	snprintf(g_version, sizeof(g_version), "CUPTI %u.%u (API %u)", version / 10000,
		 version / 100 % 100, version);
	g_api_version = version;
	if (!cupti_record_layout(version)) {
		uint32_t lo, hi;

		cupti_record_known(&lo, &hi);
		inj_warn("libcupti.so.13 is API version %u, whose kernel records gpuproj cannot read "
			 "(it knows CUPTI %u.%u to %u.%u, API %u-%u): gpuproj is off, the "
			 "application runs unchanged; use a gpuproj that knows this CUPTI, or put a "
			 "known one first in LD_LIBRARY_PATH", version, lo / 10000, lo / 100 % 100,
			 hi / 10000, hi / 100 % 100, lo, hi);
		return -1;
	}
	inj_debug("kernel records are %s (API %u)", cupti_record_layout(version), version);
	/*
	 * CUDA 13.0 Update 1's CUPTI notes, resolved issues: "Fixed a potential
	 * deadlock that could occur while disabling the activity kind
	 * CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL using the API
	 * cuptiActivityDisable" and "Fixed a potential crash in the API
	 * cuptiActivityFlushAll" (forums.developer.nvidia.com/t/341320, "CUPTI
	 * 13.0 is now available"). What triggers them is not said: [GPU?].
	 */
	if (cupti_is_13_0_ga(version)) {
		g_cupti_ga = true;
		inj_warn("libcupti.so.13 is CUDA 13.0 GA (API 130000), whose "
			 "cuptiActivityDisable(CONCURRENT_KERNEL) can deadlock and "
			 "cuptiActivityFlushAll can crash (fixed in 13.0 Update 1): gpuproj leaves "
			 "kernel tracing on and flushes only before a context goes and at exit; "
			 "install CUDA 13.0 Update 1 or later");
	} else if (version < CUPTI_API_VERSION) {
		inj_info("libcupti API version %u is older than the %u gpuproj was built with; "
			 "continuing", version, (unsigned)CUPTI_API_VERSION);
	}
	{
		const char *missing = NULL;

		if (inj_host_load(libcupti, &missing) != 0)
			inj_debug("host API incomplete (%s)", missing ? missing : "?");
	}

	atomic_store(&g_metrics, cfg->mode == INJ_MODE_FULL && cfg->profile_launches > 0);
	r = CUPTI_TRY(cuptiSubscribe, &g_sub, cupti_callback, NULL);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		inj_warn("another CUPTI client is attached to this process (Nsight Systems or "
			 "Compute, compute-sanitizer, cuda-gdb, or a framework's profiler; "
			 "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): gpuproj is off, the "
			 "application runs unchanged; run it without the other tool to profile it");
		return -1;
	}
	if (r != CUPTI_SUCCESS) {
		inj_warn("cuptiSubscribe failed (%s): gpuproj is off, the application runs "
			 "unchanged", cupti_result_name(r));
		return -1;
	}
	g_subscribed = true;
	launches = atomic_load(&g_metrics);
	if (!launches && cfg->mode == INJ_MODE_FULL)
		inj_debug("GPUPROJ_PROFILE_LAUNCHES=0: timing only");
	if (!inj_host_loaded() && launches)
		cupti_metrics_off("the CUPTI profiler host API is missing from libcupti.so.13");
	if (launches && mps_active(mps, sizeof(mps)))
		cupti_metrics_off("CUDA MPS is active (%s): MPS clients cannot read performance "
				  "counters", mps);
	r = cupti_callbacks_enable(g_sub, atomic_load(&g_metrics));
	if (r != CUPTI_SUCCESS) {
		inj_warn("cannot enable CUPTI callbacks (%s): gpuproj is off, the application runs "
			 "unchanged", cupti_result_name(r));
		goto fail;
	}
	if (!CUPTI_CALL(&err, cuptiActivityRegisterCallbacks, cupti_buffer_requested,
			cupti_buffer_completed) ||
	    !CUPTI_CALL(&err, cuptiActivityEnable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
		inj_warn("cannot trace kernels with the CUPTI activity API (%s): gpuproj is off, the "
			 "application runs unchanged", cupti_result_name(err.r));
		goto fail;
	}
	g_activity = true;
	/* The whole run: API calls, copies, syncs, events; off on any failure. */
	cupti_timeline_init(libcupti);
	/* 13.0 GA: CUPTI's own worker delivers the buffers, not a FlushAll every 100 ms. */
	if (g_cupti_ga)
		CUPTI_TRY(cuptiActivityFlushPeriod, 100);
	atomic_store(&g_state, ST_RUNNING);
	return 0;
fail:
	CUPTI_TRY(cuptiUnsubscribe, g_sub);
	g_subscribed = false;
	return -1;
}

static void
cupti_flush(bool forced)
{
	int st = atomic_load(&g_state);

	if (!g_activity || (st != ST_RUNNING && st != ST_FATAL))
		return;
	if (!g_cupti_ga || forced)
		CUPTI_TRY(cuptiActivityFlushAll, forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
	if (!forced && st == ST_RUNNING) {
		cupti_activity_watch();
		cupti_timeline_tick();
	}
}

static void
cupti_shutdown(void)
{
	CUpti_Profiler_DeInitialize_Params dp = {
		.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE };
	int st = atomic_load(&g_state);
	bool quiet;

	if (st == ST_CHILD || st == ST_OFF || st == ST_EXITING)
		return;
	atomic_store(&g_state, ST_EXITING);
	/*
	 * Let a context creation in progress finish; later ones see
	 * ST_EXITING under g_ctx_lock and stop (cupti_on_context_created()).
	 */
	pthread_mutex_lock(&g_ctx_lock);
	pthread_mutex_unlock(&g_ctx_lock);
	/*
	 * Wait (2 s at most) for windows other threads have open: their EXIT
	 * callbacks still run (see cupti_callback()). If one never comes,
	 * leave the profiler objects alone rather than pull them from under
	 * it. After a fatal error callbacks stopped: an open window never
	 * closes, so do not wait at all.
	 */
	quiet = cupti_windows_quiesce(st == ST_FATAL ? 0 : 2.0);
	if (!quiet)
		inj_debug("a profiled launch is still open on another thread at exit");
	/*
	 * Kernels still running lose their records unless the flush comes
	 * after them: the flush does not synchronise (cupti_activity.h,
	 * cuptiActivityFlushAll). Wait for every live context, bounded.
	 */
	if (g_activity && st == ST_RUNNING && !cupti_contexts_sync(g_cfg->wait_s))
		inj_warn("the GPU had not finished %g s after exit began (GPUPROJ_WAIT): kernels "
			 "still running are missing from the report", g_cfg->wait_s);
	if (g_activity) {
		cupti_timeline_mark_end();
		if (st == ST_RUNNING) {
			CUPTI_TRY(cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
			cupti_activity_watch_final();
			/* Not on 13.0 GA (can deadlock), nor when another client traces now. */
			if (!g_cupti_ga && !cupti_activity_taken_over())
				CUPTI_TRY(cuptiActivityDisable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
			/* The timeline's kinds: the same rule (they belong to that client then). */
			if (!cupti_activity_taken_over())
				cupti_timeline_disable();
		}
		g_activity = false;
	}
	if (g_subscribed) {
		if (st == ST_RUNNING)
			CUPTI_TRY(cuptiUnsubscribe, g_sub);
		g_subscribed = false;
	}
	if (!quiet) {
		cupti_windows_release();
		return;
	}
	/* Release profiler objects of contexts the application left alive. */
	cupti_contexts_release(st == ST_RUNNING);
	if (atomic_load(&g_profiler_initialized) && st == ST_RUNNING)
		CUPTI_TRY(cuptiProfilerDeInitialize, &dp);
	atomic_store(&g_profiler_initialized, false);
	cupti_chips_release();
	inj_nvpw_unload();
	cupti_buffers_release();
	cupti_windows_release();
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

/*
 * How a chip's tensor FLOP were obtained: "measured" (operation counters),
 * "assumed" (instruction counts × a shape), "mixed", or "none".
 */
static const char *
tensor_summary(const struct inj_metric_set *s)
{
	size_t m, measured = 0, assumed = 0;

	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		if (!s->map[m].expr || m == GPUPROJ_M_INST_TENSOR ||
		    m == GPUPROJ_M_TENSOR_UTILIZATION ||
		    !gpuproj_tensor_candidates(s->tensor, (enum gpuproj_metric)m, NULL))
			continue;
		if (s->map[m].assumed)
			assumed++;
		else
			measured++;
	}
	if (measured && assumed)
		return "FLOP measured (operation counters) for some precisions, assumed "
		       "(instruction counts x shape) for others";
	if (assumed)
		return "FLOP assumed (instruction counts x shape)";
	if (measured)
		return "FLOP measured (operation counters)";
	return "no tensor FLOP";
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
	/* For the first-GPU-run checklist (docs/internals/injection.md): what this CUDA did. */
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
		gpuproj_profile_set_attr(p, key, c->prof->api);
		snprintf(key, sizeof(key), "metrics.%.32s.passes", c->chip);
		attr(p, key, "%zu", c->passes);
		snprintf(key, sizeof(key), "metrics.%.32s.tensor", c->chip);
		attr(p, key, "%s: %s", gpuproj_tensor_mode_name(c->set->tensor),
		     tensor_summary(c->set));
		/*
		 * What the L2 held when each pass ran: what DRAM and L2 bytes mean
		 * (docs/internals/injection.md).
		 */
		snprintf(key, sizeof(key), "metrics.%.32s.cache_control", c->chip);
		gpuproj_profile_set_attr(p, key, c->prof == &cupti_range_ops
							 ? cupti_cache_control()
							 : "none (the legacy profiler has no cache "
							   "control: replay passes see the L2 earlier "
							   "passes left)");
		for (m = 0; m < GPUPROJ_M_COUNT; m++) {
			const struct inj_metric_map *map = &c->set->map[m];

			snprintf(key, sizeof(key), "metrics.%.32s.%.64s", c->chip,
				 gpuproj_metric_name((enum gpuproj_metric)m));
			if (!map->expr && map->note[0])
				attr(p, key, "unavailable (%s)", map->note);
			else if (!map->expr)
				gpuproj_profile_set_attr(p, key, "unavailable");
			else if (map->assumed)
				attr(p, key, "%s * %g (assumed: FLOP per instruction of %s)",
				     map->expr, map->scale, map->shape);
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
