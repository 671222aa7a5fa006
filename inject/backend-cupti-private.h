/* SPDX-License-Identifier: MIT */
/*
 * Shared state of the CUPTI backend (backend-cupti*.c); private to it.
 * Only these files include <cupti*.h> (see backend.h).
 *
 *   backend-cupti.c           libcupti loading, init/flush/shutdown/describe
 *                             (the inj_backend_ops table), degrading
 *   backend-cupti-device.c    devices, chips (metric resolution), contexts
 *   backend-cupti-window.c    profiling windows, whatever the profiler API
 *   backend-cupti-range.c     range profiler + host API (CC >= 7.5)
 *   backend-cupti-legacy.c    legacy profiler + NVPW (CC 7.0)
 *   backend-cupti-callbacks.c callback API: launches, capture, resources
 *   backend-cupti-activity.c  activity buffers and record translation
 *
 * The two profiler APIs sit behind struct cupti_prof_ops, chosen once per
 * chip (struct chipinfo.prof); nothing else asks which API a chip uses.
 *
 * Lock order: g_ctx_lock → ci->lock → g_dev_lock (a leaf: device_off only);
 * chipinfo.eval_lock is a leaf taken under ci->lock (one evaluation).
 * A context's window lock (ci->win_lock) is taken before ci->lock and never
 * while g_ctx_lock is held; every wait on it is bounded by GPUPROJ_WAIT. The collector lock comes after g_ctx_lock in
 * cupti_on_context_created() but before it in the exit report
 * (cupti_describe()): the two never overlap because context set-up stops
 * once exit began (see cupti_shutdown()).
 */
#ifndef INJ_BACKEND_CUPTI_PRIVATE_H
#define INJ_BACKEND_CUPTI_PRIVATE_H

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
};

/* Driver functions, taken from libcuda.so.1 when the first context appears. */
struct cupti_drv {
	CUPTI_FN(cuDeviceGet);
	CUPTI_FN(cuDeviceGetName);
	CUPTI_FN(cuDeviceGetAttribute);
	CUPTI_FN(cuDeviceTotalMem_v2);
	CUPTI_FN(cuDeviceGetPCIBusId);
	CUPTI_FN(cuCtxPushCurrent_v2);
	CUPTI_FN(cuCtxPopCurrent_v2);
	CUPTI_FN(cuCtxSynchronize);
};

extern struct cupti_api g_api;
extern struct cupti_drv g_drv;

/* ---- calling CUPTI ---- */

/** The first failed call of a sequence: its name and result. */
struct cupti_err {
	const char *call;	/* "cuptiRangeProfilerStart", NULL while all succeeded */
	CUptiResult r;
};

/** "CUPTI_ERROR_..." for a result (cuptiGetResultString). */
const char *cupti_result_name(CUptiResult r);
/** Log a failed call (debug level: callers print the user-facing line); returns r. */
CUptiResult cupti_logged(CUptiResult r, const char *call);
/** Record a failed call in `e` (the first one wins) and log it; true when r failed. */
bool cupti_failed(struct cupti_err *e, CUptiResult r, const char *call);

/*
 * CUPTI_CALL(&err, fn, args...): call g_api.fn(args...); true on success,
 * else the failure (with the call's name) is recorded in err.
 */
#define CUPTI_CALL(e, fn, ...) (!cupti_failed((e), g_api.fn(__VA_ARGS__), #fn))
/* CUPTI_TRY(fn, args...): call g_api.fn(args...), log a failure; the result. */
#define CUPTI_TRY(fn, ...) cupti_logged(g_api.fn(__VA_ARGS__), #fn)

/* ---- global state ---- */

enum cupti_state { ST_OFF = 0, ST_RUNNING, ST_EXITING, ST_CHILD, ST_FATAL };

extern atomic_int g_state;
extern const struct inj_config *g_cfg;
extern struct inj_collector *g_col;
/* Metrics on (mode full, N > 0, nothing degraded them globally). */
extern atomic_bool g_metrics;
extern char g_metrics_off[512];
extern atomic_int g_captures;		/* stream captures in progress or beginning (process-wide) */
extern atomic_bool g_nested_seen;	/* driver launch callbacks fire under runtime ones */
extern atomic_bool g_profiler_initialized;
/*
 * libcupti 13.0 GA (API 130000; cupti_is_13_0_ga(), cupti-records.h):
 * cuptiActivityDisable(CONCURRENT_KERNEL) can deadlock and
 * cuptiActivityFlushAll can crash, both fixed in 13.0 Update 1 (CUPTI
 * release notes). gpuproj then never disables kernel
 * tracing, lets CUPTI's worker flush (cuptiActivityFlushPeriod) and calls
 * cuptiActivityFlushAll only before a context goes and at exit.
 */
extern bool g_cupti_ga;

/* ---- devices, chips, contexts ---- */

#define MAX_CHIPS 16

struct chipinfo;
struct ctxinfo;
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
	int (*chip_setup)(struct chipinfo *c, struct devinfo *d, const uint8_t *avail);
	/* Release the chip's CUPTI/NVPW objects (the metric set stays). */
	void (*chip_release)(struct chipinfo *c);
	/* Open a window on ci for one launch (ci->lock held). */
	bool (*open)(struct ctxinfo *ci, struct chipinfo *c, struct cupti_err *err);
	/*
	 * Close it after the launch: raw values (c->set->n_names) of the
	 * single range into `raw`. @return ranges seen, -1 on error (err set)
	 */
	long (*close)(struct ctxinfo *ci, struct chipinfo *c, double *raw, struct cupti_err *err);
	/* Stop and release whatever is open on ci (ci->lock held). */
	void (*teardown)(struct ctxinfo *ci);
};

extern const struct cupti_prof_ops cupti_range_ops;	/* backend-cupti-range.c */
/**
 * The range profiler's cache control under the loaded libcupti, for the
 * profile's `cache_control` attribute: "all (...)" on CUPTI >= 13.4, where
 * gpuproj resets the L2 before every replay pass, else "none (...)".
 */
const char *cupti_cache_control(void);
extern const struct cupti_prof_ops cupti_legacy_ops;	/* backend-cupti-legacy.c */

struct chipinfo {
	char chip[32];
	const struct cupti_prof_ops *prof;
	bool ok;
	struct inj_metric_set *set;
	/*
	 * The chip's evaluation object is shared by every context of the chip
	 * (8 GPUs of one kind, one thread each), but one object is used by one
	 * thread at a time (cupti-host.h, backend-nvpw.h: callers serialise):
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
	/* work since the last synchronisation (backend-cupti-callbacks.c) */
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

extern pthread_mutex_t g_ctx_lock;
extern struct ctxinfo **g_ctxs;
extern size_t g_n_ctxs;
extern struct devinfo g_devs[INJ_MAX_DEVICES];
extern struct chipinfo g_chips[MAX_CHIPS];
extern size_t g_n_chips;

/* Per-thread launch state (owned by backend-cupti-callbacks.c, passed down). */
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
	/* cache of the last context looked up */
	CUcontext last_ctx;
	struct ctxinfo *last_ci;
	unsigned last_gen;
};

/* ---- backend-cupti.c: degrading ---- */

/** Metrics off for the whole process; one line, once. */
void cupti_metrics_off(const char *fmt, ...) INJ_PRINTF(1, 2);
/** No counter permission (from `call`). */
void cupti_no_permission(const char *call, CUptiResult r);
/** The counters are held by another profiler (DCGM...): metrics off, one line naming what to do. */
void cupti_counters_busy(const char *call);
/** Counters unusable on one device; one line per device. */
void cupti_device_off(struct devinfo *d, const char *fmt, ...) INJ_PRINTF(2, 3);
/**
 * The first symbol of the deprecated legacy profiler API (CC 7.0 only) the
 * loaded libcupti lacks, NULL when it has them all.
 */
const char *cupti_legacy_missing(void);
/** The loaded libcupti's API version (cuptiGetVersion), 0 before it is known. */
uint32_t cupti_api_version(void);
/** A profiler call failed on ci: decide what it means (ci->lock held). */
void cupti_profiler_failed(struct ctxinfo *ci, const struct cupti_err *err);

/* ---- backend-cupti-device.c ---- */

/** The context's entry (cached per thread in t), NULL when unknown or dead. */
struct ctxinfo *cupti_ctx_find(struct cupti_tls *t, CUcontext ctx);
void cupti_on_context_created(CUcontext ctx);
void cupti_on_context_destroy(CUcontext ctx);
/** No more windows on any context of the device (after cupti_device_off()). */
void cupti_device_stop(int device);
/** Release the chips' CUPTI/NVPW objects at exit (the metric sets stay). */
void cupti_chips_release(void);
/**
 * At exit: take every context's window lock (no window open any more),
 * waiting at most `s` seconds in all. @return whether all were taken
 */
bool cupti_windows_quiesce(double s);
/** Wait (bounded) until no window is open on any context (a stream capture begins). */
void cupti_windows_wait_all(void);
/** Release what cupti_windows_quiesce() took. */
void cupti_windows_release(void);
/** Release every context's profiler objects and images at exit. */
void cupti_contexts_release(bool call_cupti);
/**
 * Wait until ctx's work is done (cuCtxSynchronize with ctx pushed); not
 * from a launch callback. @return false when the driver functions are missing
 */
bool cupti_ctx_sync(CUcontext ctx);
/**
 * At exit: wait for the work of every live context, at most `wait_s`
 * seconds (a helper thread syncs; on time-out it is left behind and the
 * report goes without the unfinished kernels). @return false on time-out
 */
bool cupti_contexts_sync(double wait_s);

/* ---- backend-cupti-window.c ---- */

/** Stop whatever is open on ci (ci->lock held). */
void cupti_window_teardown(struct ctxinfo *ci);
/**
 * Take ci->win_lock for writing, waiting at most GPUPROJ_WAIT; on time-out
 * metrics stop on the device (one line) and false is returned.
 */
bool cupti_window_wrlock(struct ctxinfo *ci);
/** Open a window for the launch about to happen on t's thread (win_lock held). */
bool cupti_window_open(struct cupti_tls *t, struct ctxinfo *ci, struct inj_gate *g, uint32_t corr,
		       uint32_t corr2, int level, bool name_level);
/** Close t's window at its launch's EXIT; releases win_lock (the context is synchronised). */
void cupti_window_close(struct cupti_tls *t);
/** Close t's window before the kernel ran, without decoding; releases win_lock. */
void cupti_window_cancel(struct cupti_tls *t);
/**
 * A launch that is not profiled: wait while another thread's window is
 * open on ci, then hold ci->win_lock for reading until the launch's EXIT
 * at `level` (cupti_window_launch_done()), so that no window opens while
 * the launch is being submitted. The wait is bounded by GPUPROJ_WAIT; on
 * time-out metrics stop on the device (one line) and the launch, which
 * may now run inside the window, is counted but not timed (`corr`).
 */
void cupti_window_launch(struct cupti_tls *t, struct ctxinfo *ci, int level, uint32_t corr);
/** The launch's EXIT at `level`: release what cupti_window_launch() took. */
void cupti_window_launch_done(struct cupti_tls *t, int level);
/** Forget the context's pending work (it was synchronised). */
void cupti_pending_clear(struct ctxinfo *ci);

/* ---- backend-cupti-callbacks.c ---- */

/** Forget the captures of a context that is destroyed (abandoned with it). */
void cupti_captures_forget(CUcontext ctx);
/** The subscriber callback. */
void CUPTIAPI cupti_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
			     const void *data);
/** Enable the callbacks gpuproj needs (launches only when `launches`); 0 or the failure. */
CUptiResult cupti_callbacks_enable(CUpti_SubscriberHandle sub, bool launches);

/* ---- backend-cupti-activity.c ---- */

void CUPTIAPI cupti_buffer_requested(uint8_t **buf, size_t *size, size_t *max_records);
void CUPTIAPI cupti_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				     size_t valid);
/**
 * The kernel record type a libcupti of API version `api` (cuptiGetVersion)
 * writes, e.g. "CUpti_ActivityKernel11"; NULL for a version gpuproj does
 * not know (its records cannot be read).
 */
const char *cupti_record_layout(uint32_t api);
/** The API versions cupti_record_layout() knows: *api_min to *api_max (cuptiGetVersion). */
void cupti_record_known(uint32_t *api_min, uint32_t *api_max);
/** Launches seen by the launch callbacks so far (every mode), approximately. */
uint64_t cupti_launches_seen(void);
/** Worker tick: notice another CUPTI client that took the activity callbacks. */
void cupti_activity_watch(void);
/** The same at exit, after the final forced flush (no 2 s wait). */
void cupti_activity_watch_final(void);
/** Whether another CUPTI client took the activity callbacks (see backend-cupti-activity.c). */
bool cupti_activity_taken_over(void);
/** Free the pooled buffers (exit). */
void cupti_buffers_release(void);

/* ---- backend-cupti-timeline.c: the whole run ---- */

/**
 * Enable the activity kinds of the whole-run timeline (API calls, copies,
 * sets, synchronisations, events, streams) and start its clock; on any
 * failure the timeline stays off (one debug line), the rest goes on.
 */
void cupti_timeline_init(void *lib);
/** A record of one of those kinds, from a completed buffer. */
void cupti_timeline_record(const CUpti_Activity *rec);
/** Kernel records with what the collector made of them. */
void cupti_timeline_kernels(const struct inj_kernel_record *r, const struct inj_record_use *use,
			    size_t n);
/**
 * Around the walk of one buffer (the recorder's lock, taken before the
 * collector's): done gets what begin returned.
 */
bool cupti_timeline_batch_begin(void);
void cupti_timeline_batch_done(bool begun);
/** Worker tick (every 100 ms). */
void cupti_timeline_tick(void);
/** At exit, before the last flush: the traced run ends; afterwards the kinds are disabled. */
void cupti_timeline_mark_end(void);
void cupti_timeline_disable(void);

#endif
