/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI backend's module header (inject/cupti/); private to it. Only
 * these files include <cupti*.h> (see backend.h).
 *
 *   cupti.c             the inj_backend_ops table: init/flush/shutdown/
 *                       describe; holds the one struct cupti_state
 *   cupti-api.c         libcupti loading (st->api), CUPTI_CALL's helpers
 *   cupti-degrade.c     what a failure means: metrics off, a device off,
 *                       CUPTI's fatal error
 *   cupti-device.c      devices, chips (metric resolution), contexts
 *   cupti-window.c      profiling windows, whatever the profiler API
 *   cupti-range.c       range profiler + host API (CC >= 7.5)
 *   cupti-legacy.c      legacy profiler + NVPW (CC 7.0)
 *   cupti-callbacks.c   callback API: launches, capture, resources
 *   cupti-activity.c    activity buffers and record translation
 *   cupti-timeline.c    the whole-run timeline's activity kinds
 *   cupti-host.cpp      the profiler host API (C++), nvpw.c NVPW
 *   cupti-records.h     kernel record layouts by CUPTI version
 *
 * State: everything the backend keeps is in one struct cupti_state, whose
 * one instance lives in cupti.c (the ops table has no argument to carry
 * it). Every internal function takes it as its first argument, `st`;
 * CUPTI hands it back to the subscriber callback as cuptiSubscribe's
 * userdata. The activity API's buffer callbacks get no userdata: the file
 * that registers them (cupti-activity.c) keeps one static pointer to it,
 * as Kineto does. Per-thread launch state is thread-local in
 * cupti-callbacks.c (struct cupti_tls, passed down). No file shares a
 * global with another.
 *
 * The two profiler APIs sit behind struct cupti_prof_ops, chosen once per
 * chip (struct chipinfo.prof); nothing else asks which API a chip uses.
 *
 * Lock order: st->ctx_lock → ci->lock → st->dev_lock (a leaf: device_off
 * only); chipinfo.eval_lock is a leaf taken under ci->lock (one
 * evaluation). A context's window lock (ci->win_lock) is taken before
 * ci->lock and never while st->ctx_lock is held; every wait on it is
 * bounded by GPUPROJ_WAIT. The collector lock comes after st->ctx_lock in
 * cupti_on_context_created() but before it in the exit report
 * (cupti_describe()): the two never overlap because context set-up stops
 * once exit began (see cupti_shutdown()).
 */
#ifndef INJ_CUPTI_PRIVATE_H
#define INJ_CUPTI_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "backend.h"
#include "collector.h"
#include "env.h"
#include "log.h"
#include "metrics-nvpw.h"

/* ---- the libcupti function table ---- */

#define CUPTI_FN(name) __typeof__(&name) name

struct cupti_api {
	CUPTI_FN(cuptiGetVersion);
	CUPTI_FN(cuptiGetResultString);
	CUPTI_FN(cuptiSubscribe);
	CUPTI_FN(cuptiUnsubscribe);
	CUPTI_FN(cuptiEnableCallback);
	CUPTI_FN(cuptiGetDeviceId);
	CUPTI_FN(cuptiDeviceGetChipName);
	CUPTI_FN(cuptiActivityRegisterCallbacks);
	CUPTI_FN(cuptiActivityEnable);
	CUPTI_FN(cuptiActivityDisable);
	CUPTI_FN(cuptiActivityGetNextRecord);
	CUPTI_FN(cuptiActivityFlushAll);
	CUPTI_FN(cuptiActivityFlushPeriod);
	CUPTI_FN(cuptiActivityGetNumDroppedRecords);
	CUPTI_FN(cuptiProfilerInitialize);
	CUPTI_FN(cuptiProfilerDeInitialize);
	CUPTI_FN(cuptiProfilerDeviceSupported);
	CUPTI_FN(cuptiProfilerGetCounterAvailability);
	CUPTI_FN(cuptiRangeProfilerEnable);
	CUPTI_FN(cuptiRangeProfilerDisable);
	CUPTI_FN(cuptiRangeProfilerGetCounterDataSize);
	CUPTI_FN(cuptiRangeProfilerCounterDataImageInitialize);
	CUPTI_FN(cuptiRangeProfilerSetConfig);
	CUPTI_FN(cuptiRangeProfilerStart);
	CUPTI_FN(cuptiRangeProfilerStop);
	CUPTI_FN(cuptiRangeProfilerDecodeData);
	CUPTI_FN(cuptiRangeProfilerGetCounterDataInfo);
	CUPTI_FN(cuptiProfilerCounterDataImageCalculateSize);
	CUPTI_FN(cuptiProfilerCounterDataImageInitialize);
	CUPTI_FN(cuptiProfilerCounterDataImageCalculateScratchBufferSize);
	CUPTI_FN(cuptiProfilerCounterDataImageInitializeScratchBuffer);
	CUPTI_FN(cuptiProfilerBeginSession);
	CUPTI_FN(cuptiProfilerEndSession);
	CUPTI_FN(cuptiProfilerSetConfig);
	CUPTI_FN(cuptiProfilerUnsetConfig);
	CUPTI_FN(cuptiProfilerEnableProfiling);
	CUPTI_FN(cuptiProfilerDisableProfiling);
	CUPTI_FN(cuptiProfilerFlushCounterData);
	/* the whole-run timeline's (cupti-timeline.c, optional) */
	CUPTI_FN(cuptiGetCallbackName);
	CUPTI_FN(cuptiGetTimestamp);
};

/* Driver functions, taken from libcuda.so.1 when the first context appears. */
struct cupti_drv {
	void *lib;			/* libcuda.so.1, when it was loaded already */
	CUPTI_FN(cuDeviceGet);
	CUPTI_FN(cuDeviceGetName);
	CUPTI_FN(cuDeviceGetAttribute);
	CUPTI_FN(cuDeviceTotalMem_v2);
	CUPTI_FN(cuDeviceGetPCIBusId);
	CUPTI_FN(cuCtxPushCurrent_v2);
	CUPTI_FN(cuCtxPopCurrent_v2);
	CUPTI_FN(cuCtxSynchronize);
};

/* ---- devices, chips, contexts ---- */

#define MAX_CHIPS 16

struct chipinfo;
struct ctxinfo;
struct cupti_err;
struct cupti_state;
struct devinfo;

/*
 * One profiler API: how a chip's metrics are resolved and configured, and
 * how a window is opened and closed on a context. Chosen once per chip.
 */
struct cupti_prof_ops {
	const char *api;	/* "range profiler + host API", for the profile */
	/*
	 * Resolve the chip's metrics and build its configuration (host side,
	 * no GPU). On failure says why through cupti_device_off() and
	 * returns -1.
	 */
	int (*chip_setup)(struct cupti_state *st, struct chipinfo *c, struct devinfo *d,
			  const uint8_t *avail);
	/* Release the chip's CUPTI/NVPW objects (the metric set stays). */
	void (*chip_release)(struct cupti_state *st, struct chipinfo *c);
	/* Open a window on ci for one launch (ci->lock held). */
	bool (*open)(struct cupti_state *st, struct ctxinfo *ci, struct chipinfo *c,
		     struct cupti_err *err);
	/*
	 * Close it after the launch: raw values (c->set->n_names) of the
	 * single range into `raw`. @return ranges seen, -1 on error (err set)
	 */
	long (*close)(struct cupti_state *st, struct ctxinfo *ci, struct chipinfo *c, double *raw,
		      struct cupti_err *err);
	/* Stop and release whatever is open on ci (ci->lock held). */
	void (*teardown)(struct cupti_state *st, struct ctxinfo *ci);
	/*
	 * What the L2 holds when each replay pass runs, for the profile's
	 * `cache_control` attribute: "all (...)" where gpuproj resets the L2
	 * before every pass, else "none (...)".
	 */
	const char *(*cache_control)(const struct cupti_state *st);
};

struct chipinfo {
	char chip[32];
	const struct cupti_prof_ops *prof;
	bool ok;
	struct inj_metric_set *set;
	/*
	 * The chip's evaluation object is shared by every context of the chip
	 * (8 GPUs of one kind, one thread each), but one object is used by one
	 * thread at a time (cupti-host.h, nvpw.h: callers serialise):
	 * eval_lock is held around each evaluation. A leaf lock, taken under
	 * ci->lock.
	 */
	pthread_mutex_t eval_lock;
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
	const struct cupti_prof_ops *prof; /* the device's profiler API, NULL = none */
	/*
	 * One window at a time on the context: held for writing by the thread
	 * whose launch is profiled, from its ENTER to its EXIT; every other
	 * launch ENTER on the context takes it for reading for an instant.
	 * Every wait on it is bounded (GPUPROJ_WAIT).
	 */
	pthread_rwlock_t win_lock;
	pthread_mutex_t lock;		/* profiler calls on this context */
	/* work since the last synchronisation (cupti-callbacks.c) */
	_Atomic uintptr_t pend_stream;	/* first non-legacy stream with launches, 0 */
	atomic_bool pend_multi;		/* a second one had launches too */
	atomic_bool pend_wait;		/* a stream waits for an event or a value */
	atomic_bool ready;		/* windows may open here */
	bool dead;
	/* range profiler */
	CUpti_RangeProfiler_Object *rp;
	/* counter-data image (both APIs) */
	uint8_t *cd;
	size_t cd_size;
	uint8_t *scratch;		/* legacy */
	size_t scratch_size;
	/* the window */
	bool win_open;
	bool win_aborted;
	bool legacy_session;
	bool exit_locked;		/* win_lock taken by cupti_windows_quiesce() */
};

/* Per-thread launch state (owned by cupti-callbacks.c, passed down). */
#define LEVEL_RT 1
#define LEVEL_DRV 2

struct cupti_tls {
	int depth;			/* runtime launch/capture calls in progress */
	bool pending;			/* runtime launch awaiting its nested driver callback */
	uint32_t pending_corr;
	int win_level;			/* 0, LEVEL_RT or LEVEL_DRV: where the window opened */
	struct ctxinfo *win_ctx;
	struct inj_prof_launch *win_pl;
	struct inj_gate *win_gate;
	bool win_name_level;		/* credit taken on a key without dimensions */
	/* a launch that is not profiled holds its context's window lock for reading */
	struct ctxinfo *rd_ctx;
	int rd_level;			/* LEVEL_RT or LEVEL_DRV: released at that EXIT */
	int mem_depth;			/* runtime allocation calls in progress */
	/* cache of the last context looked up */
	CUcontext last_ctx;
	struct ctxinfo *last_ci;
	unsigned last_gen;
};

/* ---- the backend's state ---- */

/* What the library is doing (cupti_state.run). */
enum cupti_run { ST_OFF = 0, ST_RUNNING, ST_EXITING, ST_CHILD, ST_FATAL };

#define MAX_CAPTURES 64		/* stream captures kept by stream (cupti-callbacks.c) */
#define LAUNCH_STRIPES 64	/* launch counters, one per cache line */
#define POOL_MAX 4		/* activity buffers kept for reuse */
#define TIMELINE_KINDS 7	/* activity kinds of the whole-run timeline */

/*
 * Everything the CUPTI backend keeps, in one place (one instance, in
 * cupti.c). Each group says which file writes it; any file may read.
 */
struct cupti_state {
	/* ---- cupti.c (cupti-api.c: libcupti, api, legacy_missing): set at init ---- */
	const struct inj_config *cfg;
	struct inj_collector *col;
	atomic_int run;			/* enum cupti_run */
	void *libcupti;
	struct cupti_api api;
	/* The first legacy profiler symbol libcupti lacks, NULL when it has them all. */
	const char *legacy_missing;
	uint32_t api_version;		/* cuptiGetVersion, 0 until known */
	/*
	 * libcupti 13.0 GA (API 130000; cupti_is_13_0_ga(), cupti-records.h):
	 * cuptiActivityDisable(CONCURRENT_KERNEL) can deadlock and
	 * cuptiActivityFlushAll can crash, both fixed in 13.0 Update 1 (CUPTI
	 * release notes). gpuproj then never disables kernel
	 * tracing, lets CUPTI's worker flush (cuptiActivityFlushPeriod) and calls
	 * cuptiActivityFlushAll only before a context goes and at exit.
	 */
	bool ga;
	char version[64];		/* "CUPTI 13.0 (API 130001)" */
	void *libcuda;			/* the driver, kept loaded (driver_loadable()) */
	CUpti_SubscriberHandle sub;
	bool subscribed, activity;

	/* ---- cupti-degrade.c ---- */
	/* Metrics on (mode full, N > 0, nothing degraded them globally). */
	atomic_bool metrics;
	char metrics_off[512];		/* why they went off, "" */
	pthread_mutex_t degrade_lock;	/* metrics_off */
	pthread_mutex_t dev_lock;	/* devinfo.why, .metrics in cupti_device_off() */

	/* ---- cupti-device.c: devices, chips, contexts ---- */
	pthread_mutex_t ctx_lock;	/* the tables below */
	struct ctxinfo **ctxs;		/* never freed: a context is marked dead */
	size_t n_ctxs, cap_ctxs;
	atomic_uint ctx_gen;		/* bumped when the table changes (cupti_tls cache) */
	struct devinfo devs[INJ_MAX_DEVICES];
	struct chipinfo chips[MAX_CHIPS];
	size_t n_chips;
	atomic_bool profiler_initialized;
	struct cupti_drv drv;
	struct {
		void *lib;		/* libnvidia-ml.so.1 */
		bool tried, initialised;
		/* Each device's handle (by PCI bus id), for the clock samples. */
		void *dev[INJ_MAX_DEVICES];
		bool have_dev[INJ_MAX_DEVICES];
		/* launches in records at the last sample (worker only) */
		uint64_t sampled_launches;
	} nvml;

	/* ---- cupti-callbacks.c ---- */
	/* Without metrics from the start: launch callbacks only count (count_only()). */
	atomic_bool count_only;
	atomic_bool nested_seen;	/* driver launch callbacks fire under runtime ones */
	atomic_int captures;		/* stream captures in progress or beginning (process) */
	pthread_mutex_t cap_lock;	/* caps */
	struct {
		CUcontext ctx;
		uintptr_t stream;
	} caps[MAX_CAPTURES];
	size_t n_caps;
	/* Launches seen (cupti_launches_seen()): a thread picks a stripe at its first launch. */
	struct {
		_Alignas(64) _Atomic uint64_t n;
	} launches[LAUNCH_STRIPES];
	atomic_uint next_stripe;

	/* ---- cupti-activity.c ---- */
	pthread_mutex_t pool_lock;	/* pool */
	uint8_t *pool[POOL_MAX];
	size_t n_pool;
	_Atomic uint64_t ours_ns;	/* our buffer callbacks last ran, CLOCK_MONOTONIC */
	_Atomic uint64_t ours_launches;	/* cupti_launches_seen() then */
	atomic_bool taken_over;		/* another CUPTI client took the activity callbacks */

	/* ---- cupti-timeline.c ---- */
	struct {
		bool on[TIMELINE_KINDS];	/* each kind enabled */
		struct inj_timeline *rec;
		/* What each runtime and driver call produces (INJ_EXPECT_*), by callback id. */
		uint8_t expect_rt[CUPTI_RUNTIME_TRACE_CBID_SIZE];
		uint8_t expect_drv[CUPTI_DRIVER_TRACE_CBID_SIZE];
	} tl;
};

/*
 * ---- The functions, bottom up ----
 *
 * Every file calls only the sections above its own: cupti-api.c calls
 * nothing of the backend, cupti-degrade.c only cupti-api.c, and so on up
 * to cupti.c (the ops table), which calls them all. Nothing calls back up
 * (scripts/house-metrics.py finds no cycle).
 */

/* ---- cupti-api.c: libcupti and calling it ---- */

/** The first failed call of a sequence: its name and result. */
struct cupti_err {
	const char *call;	/* "cuptiRangeProfilerStart", NULL while all succeeded */
	CUptiResult r;
};

/**
 * dlopen() libcupti.so.13 into st->libcupti and resolve st->api (the legacy
 * profiler's symbols optional: st->legacy_missing names the first absent
 * one). @return 0, or -1 after one line saying why gpuproj is off
 */
int cupti_api_load(struct cupti_state *st);
/** "CUPTI_ERROR_..." for a result (cuptiGetResultString). */
const char *cupti_result_name(const struct cupti_state *st, CUptiResult r);
/** Log a failed call (debug level: callers print the user-facing line); returns r. */
CUptiResult cupti_logged(const struct cupti_state *st, CUptiResult r, const char *call);
/** Record a failed call in `e` (the first one wins) and log it; true when r failed. */
bool cupti_failed(const struct cupti_state *st, struct cupti_err *e, CUptiResult r,
		  const char *call);

/*
 * CUPTI_CALL(st, &err, fn, args...): call st->api.fn(args...); true on
 * success, else the failure (with the call's name) is recorded in err.
 */
#define CUPTI_CALL(st, e, fn, ...) (!cupti_failed((st), (e), (st)->api.fn(__VA_ARGS__), #fn))
/* CUPTI_TRY(st, fn, args...): call st->api.fn(args...), log a failure; the result. */
#define CUPTI_TRY(st, fn, ...) cupti_logged((st), (st)->api.fn(__VA_ARGS__), #fn)

/** Launches seen by the launch callbacks so far (every mode), approximately. */
static inline uint64_t
cupti_launches_seen(struct cupti_state *st)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < LAUNCH_STRIPES; i++)
		n += atomic_load_explicit(&st->launches[i].n, memory_order_relaxed);
	return n;
}

/* ---- cupti-degrade.c: what a failure means ---- */

/** Metrics off for the whole process; one line, once. */
void cupti_metrics_off(struct cupti_state *st, const char *fmt, ...) INJ_PRINTF(2, 3);
/** No counter permission (from `call`). */
void cupti_no_permission(struct cupti_state *st, const char *call, CUptiResult r);
/** The counters are held by another profiler (DCGM...): metrics off, one line naming what to do. */
void cupti_counters_busy(struct cupti_state *st, const char *call);
/** Counters unusable on one device; one line per device. */
void cupti_device_off(struct cupti_state *st, struct devinfo *d, const char *fmt, ...)
	INJ_PRINTF(3, 4);
/** No more windows on any context of the device (after cupti_device_off()). */
void cupti_device_stop(struct cupti_state *st, int device);
/** A profiler call failed on ci: decide what it means (ci->lock held). */
void cupti_profiler_failed(struct cupti_state *st, struct ctxinfo *ci,
			   const struct cupti_err *err);
/**
 * CUPTI reported a fatal error (CUPTI_CBID_STATE_FATAL_ERROR, `message`
 * may be NULL): metrics off, callbacks stop acting, one line; what was
 * collected is still written at exit.
 */
void cupti_fatal(struct cupti_state *st, CUptiResult r, const char *message);

/* ---- cupti-range.c, cupti-legacy.c: the profiler APIs ---- */

/** The range profiler + host API (CC >= 7.5; cache control on CUPTI >= 13.4). */
const struct cupti_prof_ops *cupti_range_profiler(void);
/** The legacy profiler + NVPW (CC 7.0 only). */
const struct cupti_prof_ops *cupti_legacy_profiler(void);

/* ---- cupti-timeline.c: the whole run ---- */

/**
 * Enable the activity kinds of the whole-run timeline (API calls, copies,
 * sets, synchronisations, events, streams) and start its clock; on any
 * failure the timeline stays off (one debug line), the rest goes on.
 */
void cupti_timeline_init(struct cupti_state *st);
/** A record of one of those kinds, from a completed buffer. */
void cupti_timeline_record(struct cupti_state *st, const CUpti_Activity *rec);
/**
 * Around the walk of one buffer (the recorder's lock, taken before the
 * collector's): done gets what begin returned.
 */
bool cupti_timeline_batch_begin(struct cupti_state *st);
void cupti_timeline_batch_done(struct cupti_state *st, bool begun);
/** Worker tick (every 100 ms). */
void cupti_timeline_tick(struct cupti_state *st);
/** At exit, before the last flush: the traced run ends; afterwards the kinds are disabled. */
void cupti_timeline_mark_end(struct cupti_state *st);
void cupti_timeline_disable(struct cupti_state *st);

/* ---- cupti-activity.c ---- */

/**
 * Register the buffer callbacks (they reach `st` through the file's one
 * static pointer: CUPTI gives them no userdata) and enable kernel records.
 * @return false with the failure in err
 */
bool cupti_activity_start(struct cupti_state *st, struct cupti_err *err);
/**
 * The kernel record type a libcupti of API version `api` (cuptiGetVersion)
 * writes, e.g. "CUpti_ActivityKernel11"; NULL for a version gpuproj does
 * not know (its records cannot be read).
 */
const char *cupti_record_layout(uint32_t api);
/** The API versions cupti_record_layout() knows: *api_min to *api_max (cuptiGetVersion). */
void cupti_record_known(uint32_t *api_min, uint32_t *api_max);
/** Worker tick: notice another CUPTI client that took the activity callbacks. */
void cupti_activity_watch(struct cupti_state *st);
/*
 * From the worker's flush: one NVML sample of the source device's SM clock
 * and clocks event reasons when kernels completed since the last one and
 * NVML does not call the GPU idle (cupti-device.c; docs/libproj.md).
 */
void cupti_nvml_sample(struct cupti_state *st);
/** The same at exit, after the final forced flush (no 2 s wait). */
void cupti_activity_watch_final(struct cupti_state *st);
/** Whether another CUPTI client took the activity callbacks (see cupti-activity.c). */
bool cupti_activity_taken_over(struct cupti_state *st);
/** Free the pooled buffers (exit). */
void cupti_buffers_release(struct cupti_state *st);

/* ---- cupti-window.c ---- */

/** Stop whatever is open on ci (ci->lock held). */
void cupti_window_teardown(struct cupti_state *st, struct ctxinfo *ci);
/**
 * Take ci->win_lock for writing, waiting at most GPUPROJ_WAIT; on time-out
 * metrics stop on the device (one line) and false is returned.
 */
bool cupti_window_wrlock(struct cupti_state *st, struct ctxinfo *ci);
/** Open a window for the launch about to happen on t's thread (win_lock held). */
bool cupti_window_open(struct cupti_state *st, struct cupti_tls *t, struct ctxinfo *ci,
		       struct inj_gate *g, uint32_t corr, uint32_t corr2, int level,
		       bool name_level);
/** Close t's window at its launch's EXIT; releases win_lock (the context is synchronised). */
void cupti_window_close(struct cupti_state *st, struct cupti_tls *t);
/** Close t's window before the kernel ran, without decoding; releases win_lock. */
void cupti_window_cancel(struct cupti_state *st, struct cupti_tls *t);
/**
 * A launch that is not profiled: wait while another thread's window is
 * open on ci, then hold ci->win_lock for reading until the launch's EXIT
 * at `level` (cupti_window_launch_done()), so that no window opens while
 * the launch is being submitted. The wait is bounded by GPUPROJ_WAIT; on
 * time-out metrics stop on the device (one line) and the launch, which
 * may now run inside the window, is counted but not timed (`corr`).
 */
void cupti_window_launch(struct cupti_state *st, struct cupti_tls *t, struct ctxinfo *ci,
			 int level, uint32_t corr);
/** The launch's EXIT at `level`: release what cupti_window_launch() took. */
void cupti_window_launch_done(struct cupti_tls *t, int level);
/** Forget the context's pending work (it was synchronised). */
void cupti_pending_clear(struct ctxinfo *ci);

/* ---- cupti-device.c ---- */

/** The context's entry (cached per thread in t), NULL when unknown or dead. */
struct ctxinfo *cupti_ctx_find(struct cupti_state *st, struct cupti_tls *t, CUcontext ctx);
void cupti_on_context_created(struct cupti_state *st, CUcontext ctx);
void cupti_on_context_destroy(struct cupti_state *st, CUcontext ctx);
/** Release the chips' CUPTI/NVPW objects at exit (the metric sets stay). */
void cupti_chips_release(struct cupti_state *st);
/**
 * At exit: take every context's window lock (no window open any more),
 * waiting at most `s` seconds in all. @return whether all were taken
 */
bool cupti_windows_quiesce(struct cupti_state *st, double s);
/** Wait (bounded) until no window is open on any context (a stream capture begins). */
void cupti_windows_wait_all(struct cupti_state *st);
/** Release what cupti_windows_quiesce() took. */
void cupti_windows_release(struct cupti_state *st);
/** Release every context's profiler objects and images at exit. */
void cupti_contexts_release(struct cupti_state *st, bool call_cupti);
/**
 * Wait until ctx's work is done (cuCtxSynchronize with ctx pushed); not
 * from a launch callback. @return false when the driver functions are missing
 */
bool cupti_ctx_sync(struct cupti_state *st, CUcontext ctx);
/** What cupti_contexts_sync() found. */
enum cupti_sync {
	CUPTI_SYNC_OK = 0,	/* every context's work is done */
	CUPTI_SYNC_GPU,		/* CUPTI answers, the GPU had not finished by the bound */
	CUPTI_SYNC_STUCK,	/* CUPTI did not answer (cuptiGetTimestamp), or
				 * st->ctx_lock was held */
};
/**
 * At exit: wait for the work of every live context, at most `wait_s`
 * seconds (a helper thread syncs; on time-out it is left behind and the
 * report goes without the unfinished kernels). The helper first calls
 * cuptiGetTimestamp, so that a CUPTI whose lock a frozen frame holds
 * (exit() from a signal handler that interrupted it) is told
 * from a GPU that is still busy: after CUPTI_SYNC_STUCK no CUPTI function
 * may be called any more (it would block for good).
 */
enum cupti_sync cupti_contexts_sync(struct cupti_state *st, double wait_s);

/* ---- cupti-callbacks.c ---- */

/** The subscriber callback; `ud` is the struct cupti_state given to cuptiSubscribe. */
void CUPTIAPI cupti_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
			     const void *data);
/**
 * Enable the callbacks gpuproj needs on st->sub (launches only when
 * `launches`). @return CUPTI_SUCCESS or the failure
 */
CUptiResult cupti_callbacks_enable(struct cupti_state *st, bool launches);

#endif
