/* SPDX-License-Identifier: MIT */
/*
 * The bottom of the CUPTI backend: libcupti.so.13 dlopen()ed and every
 * function the backend uses resolved into one table (st->api), and the
 * helpers behind CUPTI_CALL and CUPTI_TRY (cupti-private.h), which name
 * the call that failed. Everything else in inject/cupti/ calls CUPTI
 * through them; this file calls nothing else of the backend.
 *
 * Thread safety: cupti_api_load() once, at init (cupti.c); the rest from
 * any thread (the table does not change afterwards).
 */
#include "config.h"

#include <dlfcn.h>

#include "cupti-private.h"

const char *
cupti_result_name(const struct cupti_state *st, CUptiResult r)
{
	const char *s = NULL;

	if (st->api.cuptiGetResultString && st->api.cuptiGetResultString(r, &s) == CUPTI_SUCCESS &&
	    s)
		return s;
	return "CUPTI_ERROR_(unknown)";
}

CUptiResult
cupti_logged(const struct cupti_state *st, CUptiResult r, const char *call)
{
	if (r != CUPTI_SUCCESS)
		inj_debug("%s failed: %s (%d)", call, cupti_result_name(st, r), (int)r);
	return r;
}

bool
cupti_failed(const struct cupti_state *st, struct cupti_err *e, CUptiResult r, const char *call)
{
	if (r == CUPTI_SUCCESS)
		return false;
	cupti_logged(st, r, call);
	if (e && !e->call) {
		e->call = call;
		e->r = r;
	}
	return true;
}

int
cupti_api_load(struct cupti_state *st)
{
	const char *missing = NULL;

	st->libcupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!st->libcupti) {
		inj_warn("cannot load libcupti.so.13 (%s): gpuproj is off, the application runs "
			 "unchanged; add the CUDA toolkit's lib64 (or extras/CUPTI/lib64) to "
			 "LD_LIBRARY_PATH", dlerror());
		return -1;
	}
#define R(name) \
	if (!missing && !inj_dlsym(st->libcupti, #name, &st->api.name)) \
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
	if (!inj_dlsym(st->libcupti, #name, &st->api.name) && !st->legacy_missing) \
		st->legacy_missing = #name
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
	if (st->legacy_missing)
		inj_debug("libcupti.so.13 lacks the legacy profiler's %s: no metrics on CC 7.0",
			  st->legacy_missing);
	return 0;
}
