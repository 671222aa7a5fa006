/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI side of the whole-run timeline (inject/timeline-rec.h):
 * the activity kinds it needs, their records translated into the neutral
 * structs of backend.h, and which API calls produce which record.
 *
 * Kinds (cupti_activity.h CUpti_ActivityKind, records in cupti-records.h):
 * RUNTIME and DRIVER (every API call with its thread and host times: the
 * host time between calls comes from them; driver calls nested in a
 * runtime call are part of it), MEMCPY, MEMSET, SYNCHRONIZATION
 * (device/context, stream and event synchronise, stream waits for an
 * event), CUDA_EVENT (an event recorded on a stream) and STREAM (which
 * stream is a context's NULL stream, for the legacy ordering [GPU?]).
 * They are enabled in every mode that times kernels (GPUPROJ_MODE=timing
 * included): records, not callbacks, so no launch callback is added.
 *
 * Which calls produce a record: from each callback ID's name
 * (cuptiGetCallbackName, cupti_callbacks.h:930-945), read once at start:
 * a name with "Memcpy", "Memset", "LaunchKernel", "LaunchCooperativeKernel"
 * or "GraphLaunch" (and no other "Graph", which names graph construction)
 * produces a GPU operation; one with "Synchronize" or "StreamWaitEvent" a
 * synchronisation record. Event records are taken when they come, not
 * waited for. Whether the real CUPTI writes each record in the buffer of
 * the call, and which correlation id (runtime or driver) it carries, is
 * [GPU?]; the recorder accepts either.
 *
 * Thread safety: records come from CUPTI's buffer thread or the thread
 * that flushes; the recorder locks. The recorder's clock takes no
 * argument: cuptiGetTimestamp is kept in this file's one static pointer
 * (g_clock), set before the recorder starts and never changed.
 */
#include "config.h"

#include <string.h>

#include <gpuproj/timeline.h>

#include "cupti-private.h"
#include "cupti-records.h"
#include "timeline-rec.h"
#include "util.h"

#define SAME_TYPE_MEMBER(T, m) _Static_assert(sizeof(((T *)0)->m) > 0, #T "." #m);
TIMELINE_READ(SAME_TYPE_MEMBER)

static const CUpti_ActivityKind tl_kinds[] = {
	CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
	CUPTI_ACTIVITY_KIND_CUDA_EVENT, CUPTI_ACTIVITY_KIND_STREAM,
};
_Static_assert(ARRAY_LENGTH(tl_kinds) == TIMELINE_KINDS, "TIMELINE_KINDS (cupti-private.h)");

/* cuptiGetTimestamp, for the recorder's clock (no userdata: see the top). */
static CUptiResult (*g_clock)(uint64_t *);

static uint64_t
timestamp(void)
{
	uint64_t t = 0;

	if (g_clock && g_clock(&t) != CUPTI_SUCCESS)
		t = 0;
	return t;
}

/* The expectation of a call named `name` (see the top of the file): the core's rule. */
static uint8_t
expect_of(const char *name)
{
	unsigned e = gpuproj_tl_api_expects(name);

	_Static_assert(GPUPROJ_TL_EXPECT_OP == INJ_EXPECT_OP &&
		       GPUPROJ_TL_EXPECT_SYNC == INJ_EXPECT_SYNC, "INJ_EXPECT_* (backend.h)");
	return (uint8_t)e;
}

void
cupti_timeline_init(struct cupti_state *st)
{
	void *lib = st->libcupti;
	size_t i;

	st->tl.rec = inj_collector_timeline(st->col);
	if (!st->tl.rec || !lib)
		return;
	if (!inj_dlsym(lib, "cuptiGetCallbackName", &st->api.cuptiGetCallbackName) ||
	    !inj_dlsym(lib, "cuptiGetTimestamp", &st->api.cuptiGetTimestamp)) {
		inj_debug("timeline: libcupti.so.13 lacks cuptiGetCallbackName or cuptiGetTimestamp: "
			  "no whole-run timeline");
		return;
	}
	for (i = 1; i < ARRAY_LENGTH(st->tl.expect_rt); i++) {
		const char *name = NULL;

		if (st->api.cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, (uint32_t)i, &name) ==
		    CUPTI_SUCCESS)
			st->tl.expect_rt[i] = expect_of(name);
	}
	for (i = 1; i < ARRAY_LENGTH(st->tl.expect_drv); i++) {
		const char *name = NULL;

		if (st->api.cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, (uint32_t)i, &name) ==
		    CUPTI_SUCCESS)
			st->tl.expect_drv[i] = expect_of(name);
	}
	for (i = 0; i < ARRAY_LENGTH(tl_kinds); i++) {
		CUptiResult r = st->api.cuptiActivityEnable(tl_kinds[i]);

		if (r != CUPTI_SUCCESS) {
			inj_debug("timeline: cuptiActivityEnable(%d) returned %s: no whole-run timeline",
				  (int)tl_kinds[i], cupti_result_name(st, r));
			cupti_timeline_disable(st);
			return;
		}
		st->tl.on[i] = true;
	}
	g_clock = st->api.cuptiGetTimestamp;
	inj_timeline_start(st->tl.rec, timestamp);
}

void
cupti_timeline_disable(struct cupti_state *st)
{
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(tl_kinds); i++) {
		if (st->tl.on[i])
			CUPTI_TRY(st, cuptiActivityDisable, tl_kinds[i]);
		st->tl.on[i] = false;
	}
	inj_timeline_stop(st->tl.rec);
}

void
cupti_timeline_mark_end(struct cupti_state *st)
{
	if (inj_timeline_recording(st->tl.rec))
		inj_timeline_mark_end(st->tl.rec);
}

/* CUPTI's copy kind, folded (cupti_activity.h CUpti_ActivityMemcpyKind). */
static int
copy_kind(uint8_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
		return GPUPROJ_COPY_H2D;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
		return GPUPROJ_COPY_D2H;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return GPUPROJ_COPY_H2H;
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return GPUPROJ_COPY_P2P;
	default:
		return GPUPROJ_COPY_D2D;
	}
}

void
cupti_timeline_record(struct cupti_state *st, const CUpti_Activity *rec)
{
	if (!inj_timeline_recording(st->tl.rec))
		return;
	switch ((int)rec->kind) {
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: {
		const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)(const void *)rec;
		bool rt = rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
		struct inj_api_record r = {
			.start = a->start, .end = a->end, .tid = a->threadId,
			.corr = a->correlationId, .runtime = rt,
		};

		/* A failed call produces nothing to wait for. */
		if (!a->returnValue && rt)
			r.expect = a->cbid < ARRAY_LENGTH(st->tl.expect_rt) ? st->tl.expect_rt[a->cbid]
									    : 0;
		else if (!a->returnValue)
			r.expect = a->cbid < ARRAY_LENGTH(st->tl.expect_drv) ? st->tl.expect_drv[a->cbid]
									     : 0;
		inj_timeline_api(st->tl.rec, &r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)(const void *)rec;
		struct inj_op_record r = {
			.kind = INJ_OP_COPY, .corr = m->correlationId,
			.rt_corr = m->runtimeCorrelationId, .ctx = m->contextId,
			.stream = m->streamId, .start = m->start, .end = m->end, .bytes = m->bytes,
			.copy_kind = copy_kind(m->copyKind),
			/* The host side's memory: the source of H2D, the destination of D2H. */
			.pinned = (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ||
				   m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_ATOH ? m->dstKind
										   : m->srcKind) ==
				  CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
			.async = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0,
			.graph_id = m->graphId,
		};

		inj_timeline_op(st->tl.rec, &r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)(const void *)rec;
		struct inj_op_record r = {
			.kind = INJ_OP_MEMSET, .corr = m->correlationId, .ctx = m->contextId,
			.stream = m->streamId, .start = m->start, .end = m->end, .bytes = m->bytes,
			.async = (m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0,
			.graph_id = m->graphId,
		};

		inj_timeline_op(st->tl.rec, &r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
		const CUpti_ActivitySynchronization2 *y =
			(const CUpti_ActivitySynchronization2 *)(const void *)rec;
		struct inj_sync_record r = {
			.corr = y->correlationId, .ctx = y->contextId, .stream = y->streamId,
			.event = y->cudaEventSyncId == CUPTI_SYNCHRONIZATION_INVALID_VALUE
					 ? 0 : y->cudaEventSyncId,
		};

		switch (y->type) {
		case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
			r.kind = INJ_SYNC_EVENT;
			break;
		case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
			r.kind = INJ_SYNC_WAIT_EVENT;
			break;
		case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
			r.kind = INJ_SYNC_STREAM;
			break;
		case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
		case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN:
		case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_FORCE_INT:
		default:
			r.kind = INJ_SYNC_DEVICE;
			break;
		}
		inj_timeline_sync(st->tl.rec, &r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
		const CUpti_ActivityCudaEvent2 *e = (const CUpti_ActivityCudaEvent2 *)(const void *)rec;
		struct inj_event_record r = {
			.corr = e->correlationId, .ctx = e->contextId, .stream = e->streamId,
			.event = e->cudaEventSyncId,
		};

		inj_timeline_event(st->tl.rec, &r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_STREAM: {
		const CUpti_ActivityStream *s = (const CUpti_ActivityStream *)(const void *)rec;

		inj_timeline_stream(st->tl.rec, s->contextId, s->streamId,
				    (s->flag & CUPTI_ACTIVITY_STREAM_CREATE_MASK) ==
					    CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL);
		break;
	}
	default:
		break;
	}
}

bool
cupti_timeline_batch_begin(struct cupti_state *st)
{
	if (!inj_timeline_recording(st->tl.rec))
		return false;
	inj_timeline_batch_begin(st->tl.rec);
	return true;
}

void
cupti_timeline_batch_done(struct cupti_state *st, bool begun)
{
	if (begun)
		inj_timeline_batch_end(st->tl.rec);
}

void
cupti_timeline_tick(struct cupti_state *st)
{
	if (inj_timeline_recording(st->tl.rec))
		inj_timeline_process(st->tl.rec, true);
}
