/* SPDX-License-Identifier: MIT */
/*
 * Degrading: what a failure means, said once. Metrics off for the whole
 * process (no permission, counters busy, set-up failed), off on one
 * device (unsupported, three failures in a row, a wait that ran out),
 * or collection stopped (CUPTI's fatal error). Every other file of the
 * backend calls down into these; they call only cupti-api.c.
 *
 * Thread safety: any thread. st->degrade_lock guards st->metrics_off,
 * st->dev_lock a device's why/metrics (a leaf lock: see the lock order in
 * cupti-private.h); cupti_device_stop() takes st->ctx_lock.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "cupti-private.h"

void
cupti_metrics_off(struct cupti_state *st, const char *fmt, ...)
{
	va_list ap;
	bool first;

	pthread_mutex_lock(&st->degrade_lock);
	first = atomic_exchange(&st->metrics, false) && !st->metrics_off[0];
	if (first) {
		va_start(ap, fmt);
		vsnprintf(st->metrics_off, sizeof(st->metrics_off), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&st->degrade_lock);
	if (first)
		inj_warn("%s: metrics off, every launch is still timed (the profile will have "
			 "durations; kernels without counters are projected by the envelope, "
			 "binding unknown)", st->metrics_off);
}

void
cupti_no_permission(struct cupti_state *st, const char *call, CUptiResult r)
{
	cupti_metrics_off(st, "no permission to read GPU performance counters (%s from %s); "
			  "profiling needs root or the nvidia driver option "
			  "NVreg_RestrictProfilingToAdminUsers=0 "
			  "(https://developer.nvidia.com/ERR_NVGPUCTRPERM)", cupti_result_name(st, r),
			  call);
}

/*
 * CUPTI_ERROR_HARDWARE_BUSY: "The performance monitoring hardware is in use
 * by other client" (cupti_result.h). DCGM holds the counters with a
 * system-wide lock (NVIDIA/DCGM issue 56) until paused.
 */
void
cupti_counters_busy(struct cupti_state *st, const char *call)
{
	cupti_metrics_off(st,
			  "the GPU performance counters are busy (CUPTI_ERROR_HARDWARE_BUSY from "
			  "%s): another profiler holds them, on cluster nodes usually DCGM or "
			  "dcgm-exporter; pause it with 'dcgmi profile --pause' (and 'dcgmi profile "
			  "--resume' afterwards) and run again", call);
}

void
cupti_device_off(struct cupti_state *st, struct devinfo *d, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	pthread_mutex_lock(&st->dev_lock);
	if (!d->metrics && d->checked) {
		pthread_mutex_unlock(&st->dev_lock);
		return;
	}
	d->metrics = false;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(d->why, sizeof(d->why), "%s", why);
	pthread_mutex_unlock(&st->dev_lock);
	inj_warn("device %d (%s): %s: metrics off on this device, every launch is still timed",
		 d->info.ordinal, d->info.name[0] ? d->info.name : "?", why);
}

void
cupti_profiler_failed(struct cupti_state *st, struct ctxinfo *ci, const struct cupti_err *err)
{
	struct devinfo *d = &st->devs[ci->device];
	const char *call = err->call ? err->call : "?";

	switch ((int)err->r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
		cupti_no_permission(st, call, err->r);
		return;
	case CUPTI_ERROR_HARDWARE_BUSY:
		cupti_counters_busy(st, call);
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
		cupti_device_off(st, d, "%s returned %s", call, cupti_result_name(st, err->r));
		atomic_store(&ci->ready, false);
		return;
	default:
		break;
	}
	/* Unknown failures: retry later launches, give up after three in a row. */
	if (++d->fails >= 3) {
		cupti_device_off(st, d,
				 "the profiler failed three times in a row (last: %s returned %s)",
				 call, cupti_result_name(st, err->r));
		atomic_store(&ci->ready, false);
	}
}

void
cupti_device_stop(struct cupti_state *st, int device)
{
	size_t i;

	pthread_mutex_lock(&st->ctx_lock);
	for (i = 0; i < st->n_ctxs; i++) {
		if (st->ctxs[i]->device == device)
			atomic_store(&st->ctxs[i]->ready, false);
	}
	pthread_mutex_unlock(&st->ctx_lock);
}

void
cupti_fatal(struct cupti_state *st, CUptiResult r, const char *message)
{
	atomic_store(&st->metrics, false);
	atomic_store(&st->run, ST_FATAL);
	inj_warn("CUPTI reported a fatal error (%s: %s): collection stopped; what was collected "
		 "so far is written at exit", cupti_result_name(st, r),
		 message ? message : "no message");
}
