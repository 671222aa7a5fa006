/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI backend of libproj.so ([CUPTI-INJ], [CUPTI-CB], [CUPTI-ACT],
 * [CUPTI-RP] and [CUPTI-LEG] for every call sequence): this file starts
 * and stops collection and describes it (the inj_backend_ops table) and
 * holds the backend's one state. The rest of the backend sits below it,
 * split by API (cupti-private.h); what a failure means is decided in
 * cupti-degrade.c.
 *
 * - libcupti.so.13 is dlopen()ed at init and every function used is
 *   resolved into one table (st->api, cupti-api.c); a missing library or
 *   symbol leaves gpuproj off with one line, never a failed application
 *   start. Tests put the test double (tests/fake/) first in
 *   LD_LIBRARY_PATH.
 * - Metrics: the first N launches of each signature run inside a
 *   "window" (cupti-window.c) on the chip's profiler API.
 *
 * Thread safety: init/shutdown once (entry.c); flush from the worker
 * thread.
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

#include "cupti-private.h"
#include "nvpw.h"
#include "cupti-host.h"
#include "cupti-records.h"
#include "util.h"

/*
 * The backend's one state (cupti-private.h). The ops table carries no
 * argument, so it lives here and every function below passes it down.
 */
static struct cupti_state g_cupti = {
	.version = "CUPTI (not loaded)",
	.degrade_lock = PTHREAD_MUTEX_INITIALIZER,
	.dev_lock = PTHREAD_MUTEX_INITIALIZER,
	.ctx_lock = PTHREAD_MUTEX_INITIALIZER,
	.cap_lock = PTHREAD_MUTEX_INITIALIZER,
	.pool_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* ---- ops ---- */

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
driver_loadable(struct cupti_state *st, char *why, size_t size)
{
	const char *e;

	if (!st->libcuda)
		st->libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!st->libcuda)
		st->libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (st->libcuda)
		return true;
	e = dlerror();
	snprintf(why, size, "%s", e ? e : "libcuda.so.1 not found");
	return false;
}

static int
cupti_init(const struct inj_config *cfg, struct inj_collector *col)
{
	struct cupti_state *st = &g_cupti;
	struct cupti_err err = { 0 };
	uint32_t version = 0;
	bool launches;
	CUptiResult r;
	char mps[4200], why[512];

	st->cfg = cfg;
	st->col = col;
	if (cupti_api_load(st) != 0)
		return -1;
	if (!driver_loadable(st, why, sizeof(why))) {
		inj_warn("no CUDA driver can be loaded in this process (%s): gpuproj is off, the "
			 "application runs unchanged", why);
		return -1;
	}
	/*
	 * With a driver, a failure here is CUPTI's own (which ones it returns
	 * when the driver loads but cannot serve it, no GPU or a driver older
	 * than this CUPTI, is [GPU?]).
	 */
	if (!CUPTI_CALL(st, &err, cuptiGetVersion, &version)) {
		inj_warn("cuptiGetVersion failed (%s): gpuproj is off, the application runs "
			 "unchanged", cupti_result_name(st, err.r));
		return -1;
	}
	snprintf(st->version, sizeof(st->version), "CUPTI %u.%u (API %u)", version / 10000,
		 version / 100 % 100, version);
	st->api_version = version;
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
		st->ga = true;
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

		if (inj_host_load(st->libcupti, &missing) != 0)
			inj_debug("host API incomplete (%s)", missing ? missing : "?");
	}

	atomic_store(&st->metrics, cfg->mode == INJ_MODE_FULL && cfg->profile_launches > 0);
	/* The callback gets the state back as its userdata. */
	r = CUPTI_TRY(st, cuptiSubscribe, &st->sub, cupti_callback, st);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		inj_warn("another CUPTI client is attached to this process (Nsight Systems or "
			 "Compute, compute-sanitizer, cuda-gdb, or a framework's profiler; "
			 "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): gpuproj is off, the "
			 "application runs unchanged; run it without the other tool to profile it");
		return -1;
	}
	if (r != CUPTI_SUCCESS) {
		inj_warn("cuptiSubscribe failed (%s): gpuproj is off, the application runs "
			 "unchanged", cupti_result_name(st, r));
		return -1;
	}
	st->subscribed = true;
	launches = atomic_load(&st->metrics);
	if (!launches && cfg->mode == INJ_MODE_FULL)
		inj_debug("GPUPROJ_PROFILE_LAUNCHES=0: timing only");
	if (!inj_host_loaded() && launches)
		cupti_metrics_off(st, "the CUPTI profiler host API is missing from libcupti.so.13");
	if (launches && mps_active(mps, sizeof(mps)))
		cupti_metrics_off(st,
				  "CUDA MPS is active (%s): MPS clients cannot read performance "
				  "counters", mps);
	r = cupti_callbacks_enable(st, atomic_load(&st->metrics));
	if (r != CUPTI_SUCCESS) {
		inj_warn("cannot enable CUPTI callbacks (%s): gpuproj is off, the application runs "
			 "unchanged", cupti_result_name(st, r));
		goto fail;
	}
	if (!cupti_activity_start(st, &err)) {
		inj_warn("cannot trace kernels with the CUPTI activity API (%s): gpuproj is off, the "
			 "application runs unchanged", cupti_result_name(st, err.r));
		goto fail;
	}
	st->activity = true;
	/* The whole run: API calls, copies, syncs, events; off on any failure. */
	cupti_timeline_init(st);
	/* 13.0 GA: CUPTI's own worker delivers the buffers, not a FlushAll every 100 ms. */
	if (st->ga)
		CUPTI_TRY(st, cuptiActivityFlushPeriod, 100);
	atomic_store(&st->run, ST_RUNNING);
	return 0;
fail:
	CUPTI_TRY(st, cuptiUnsubscribe, st->sub);
	st->subscribed = false;
	return -1;
}

static void
cupti_flush(bool forced)
{
	struct cupti_state *st = &g_cupti;
	int run = atomic_load(&st->run);

	if (!st->activity || (run != ST_RUNNING && run != ST_FATAL))
		return;
	if (!st->ga || forced)
		CUPTI_TRY(st, cuptiActivityFlushAll, forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
	if (!forced && run == ST_RUNNING) {
		cupti_activity_watch(st);
		cupti_timeline_tick(st);
		cupti_nvml_sample(st);
	}
}

/*
 * CUPTI does not answer at exit: a frame frozen inside it
 * holds its lock (the application called exit() from a signal handler
 * that interrupted a CUDA call; CUPTI's locks are its own: [GPU?] which
 * calls take which), or a thread is stuck in it. Nothing of CUPTI is
 * called any more; what was delivered is reported.
 */
static void
cupti_unresponsive(struct cupti_state *st)
{
	inj_warn("CUPTI did not answer within %g s at exit (GPUPROJ_WAIT; exit() called from a "
		 "signal handler that interrupted a CUDA call?): gpuproj calls it no more, and "
		 "records it had not delivered are missing from the report", st->cfg->wait_s);
	st->activity = false;
	st->subscribed = false;
}

/* What cupti_shutdown() does once the GPU is done: the last flush, and taking down. */
static void
shutdown_rest(struct cupti_state *st, int run, bool quiet)
{
	CUpti_Profiler_DeInitialize_Params dp = {
		.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE };

	if (st->activity) {
		cupti_timeline_mark_end(st);
		if (run == ST_RUNNING) {
			CUPTI_TRY(st, cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
			cupti_activity_watch_final(st);
			/* Not on 13.0 GA (can deadlock), nor when another client traces now. */
			if (!st->ga && !cupti_activity_taken_over(st))
				CUPTI_TRY(st, cuptiActivityDisable,
					  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
			/* The timeline's kinds: the same rule (they belong to that client then). */
			if (!cupti_activity_taken_over(st))
				cupti_timeline_disable(st);
		}
		st->activity = false;
	}
	if (st->subscribed) {
		if (run == ST_RUNNING)
			CUPTI_TRY(st, cuptiUnsubscribe, st->sub);
		st->subscribed = false;
	}
	if (!quiet) {
		cupti_windows_release(st);
		return;
	}
	/* Release profiler objects of contexts the application left alive. */
	cupti_contexts_release(st, run == ST_RUNNING);
	if (atomic_load(&st->profiler_initialized) && run == ST_RUNNING)
		CUPTI_TRY(st, cuptiProfilerDeInitialize, &dp);
	atomic_store(&st->profiler_initialized, false);
	cupti_chips_release(st);
	inj_nvpw_unload();
	cupti_buffers_release(st);
	cupti_windows_release(st);
}

struct rest_job {
	struct cupti_state *st;
	int run;
	bool quiet;
};

static void *
rest_main(void *arg)
{
	struct rest_job *j = arg;

	shutdown_rest(j->st, j->run, j->quiet);
	return NULL;
}

static void
cupti_shutdown(bool vendor_ok)
{
	struct cupti_state *st = &g_cupti;
	int run = atomic_load(&st->run);
	enum cupti_sync synced = CUPTI_SYNC_OK;
	struct timespec until;
	bool quiet;

	if (run == ST_CHILD || run == ST_OFF || run == ST_EXITING)
		return;
	atomic_store(&st->run, ST_EXITING);
	if (!vendor_ok) {
		cupti_unresponsive(st);
		return;
	}
	/*
	 * Let a context creation in progress finish; later ones see
	 * ST_EXITING under st->ctx_lock and stop (cupti_on_context_created()).
	 * Bounded: a frame frozen in one may hold it.
	 */
	deadline_after(st->cfg->wait_s, &until);
	if (pthread_mutex_timedlock(&st->ctx_lock, &until) != 0) {
		cupti_unresponsive(st);
		return;
	}
	pthread_mutex_unlock(&st->ctx_lock);
	/*
	 * Wait (2 s at most) for windows other threads have open: their EXIT
	 * callbacks still run (see cupti_callback()). If one never comes,
	 * leave the profiler objects alone rather than pull them from under
	 * it. After a fatal error callbacks stopped: an open window never
	 * closes, so do not wait at all.
	 */
	quiet = cupti_windows_quiesce(st, run == ST_FATAL ? 0 : 2.0);
	if (!quiet)
		inj_debug("a profiled launch is still open on another thread at exit");
	/*
	 * Kernels still running lose their records unless the flush comes
	 * after them: the flush does not synchronise (cupti_activity.h,
	 * cuptiActivityFlushAll). Wait for every live context, bounded.
	 */
	if (st->activity && run == ST_RUNNING)
		synced = cupti_contexts_sync(st, st->cfg->wait_s);
	if (synced == CUPTI_SYNC_GPU)
		inj_warn("the GPU had not finished %g s after exit began (GPUPROJ_WAIT): kernels "
			 "still running are missing from the report", st->cfg->wait_s);
	if (synced == CUPTI_SYNC_STUCK) {
		/* Before, cuptiGetTimestamp below then blocked for good. */
		cupti_unresponsive(st);
		return;
	}
	/*
	 * The rest calls CUPTI, whose forced flush waits for every buffer
	 * another thread is delivering (cupti_activity.h:7709-7715): one whose
	 * delivery a frame frozen by exit() from a signal handler never ends
	 * would keep it waiting for good. So it runs on a helper, GPUPROJ_WAIT
	 * at most.
	 */
	{
		struct rest_job *j = calloc(1, sizeof(*j));
		struct timespec until2;
		pthread_t t;

		if (!j) {
			shutdown_rest(st, run, quiet);
			return;
		}
		j->st = st;
		j->run = run;
		j->quiet = quiet;
		if (pthread_create(&t, NULL, rest_main, j) != 0) {
			free(j);
			shutdown_rest(st, run, quiet);
			return;
		}
		deadline_after(st->cfg->wait_s, &until2);
		if (pthread_timedjoin_np(t, NULL, &until2) == 0) {
			free(j);
			return;
		}
		/* Left behind with its job; the process ends. */
		pthread_detach(t);
		cupti_unresponsive(st);
	}
}

static void
cupti_child(void)
{
	struct cupti_state *st = &g_cupti;

	atomic_store(&st->run, ST_CHILD);
	atomic_store(&st->metrics, false);
}

static const char *
cupti_version_string(void)
{
	return g_cupti.version;
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
 * "assumed" (instruction counts × a shape), both, or none.
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
	struct cupti_state *st = &g_cupti;
	char key[160];
	size_t i, m;

	gpuproj_profile_set_attr(p, "cupti", st->version);
	if (st->metrics_off[0])
		attr(p, "metrics", "off: %s", st->metrics_off);
	else if (st->cfg->mode != INJ_MODE_FULL || st->cfg->profile_launches == 0)
		attr(p, "metrics", "off: timing only (GPUPROJ_MODE=%s, GPUPROJ_PROFILE_LAUNCHES=%u)",
		     inj_mode_name(st->cfg->mode), st->cfg->profile_launches);
	else
		attr(p, "metrics", "first %u launch(es) per signature, kernel replay, auto range",
		     st->cfg->profile_launches);
	/* For the first-GPU-run checklist (docs/internals/injection.md): what this CUDA did. */
	gpuproj_profile_set_attr(p, "nested_driver_callbacks",
				 atomic_load(&st->nested_seen) ? "yes" : "no");
	pthread_mutex_lock(&st->ctx_lock);
	for (i = 0; i < INJ_MAX_DEVICES; i++) {
		if (!st->devs[i].checked || !st->devs[i].why[0])
			continue;
		snprintf(key, sizeof(key), "device.%zu.metrics", i);
		attr(p, key, "off: %s", st->devs[i].why);
	}
	for (i = 0; i < st->n_chips; i++) {
		const struct chipinfo *c = &st->chips[i];

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
		gpuproj_profile_set_attr(p, key, c->prof->cache_control(st));
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
	pthread_mutex_unlock(&st->ctx_lock);
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
