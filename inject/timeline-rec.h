/* SPDX-License-Identifier: MIT */
/*
 * The timeline recorder of libproj.so: from the application's
 * API calls and the GPU's records (backend.h, "The whole run") to the
 * profile's whole-run timeline (include/gpuproj/timeline.h), bounded.
 *
 * Records arrive out of order, in batches (a buffer at a time, from
 * CUPTI's thread or the thread that flushes; buffers of one thread may
 * come out of order when several threads deliver). Per application thread
 * the recorder queues the API calls and, by correlation id, the GPU
 * records; on the worker's tick (every 100 ms) it takes a call (with the
 * driver calls nested in it) when
 *   - it arrived INJ_TL_SETTLE_MS ago or more (its buffer's neighbours are in),
 *   - a later call of the same thread began after it ended (so any call it
 *     is nested in has arrived too: a thread's calls end in order), and
 *   - what the call produces (INJ_EXPECT_*) has arrived,
 * or when it waited INJ_TL_WAIT_TICKS ticks, or at exit. Taking calls on
 * the worker keeps the recorder's allocations on one thread. Each call
 * becomes one node of the thread's current epoch (timeline.h "Epochs"),
 * which closes when the host waited and nothing it issued is still
 * running, or at GPUPROJ_TL_MAX_NODES calls; a closed epoch folds into
 * the timeline (gpuproj_timeline_add()).
 *
 * Memory: the queues are bounded (INJ_TL_MAX_CALLS calls per thread,
 * INJ_TL_MAX_RECORDS GPU records): past a bound the oldest calls are taken
 * at once (their epoch is counted incomplete if a record was missing);
 * GPU records no call claimed are dropped after INJ_TL_ORPHAN_TICKS.
 * Threads beyond GPUPROJ_TL_MAX_THREADS are not followed: their epochs
 * (split at their synchronising calls) and traced span are counted as
 * unexplained ("threads"), for up to 1,024 such threads (past them, each
 * call counts as one).
 *
 * Thread safety: every function may be called from any thread (one lock;
 * the record functions under inj_timeline_batch_begin()). The lock is
 * taken before the collector's, never while holding it.
 */
#ifndef INJ_TIMELINE_REC_H
#define INJ_TIMELINE_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/profile.h>

#include "backend.h"

/** How long a call waits for its thread's other buffers before it may be taken, ms. */
#define INJ_TL_SETTLE_MS 20
/** The same when the queues are past their bounds (a shorter guard), ms. */
#define INJ_TL_PRESSURE_MS 2
/** Flush ticks (100 ms each) a call waits for the records it produces. */
#define INJ_TL_WAIT_TICKS 20
/** Flush ticks after which a GPU record no call claimed is dropped. */
#define INJ_TL_ORPHAN_TICKS 50
/**
 * Calls queued (every thread; a quarter for one thread) before the ready
 * ones, then the oldest, are taken at once; one thread's half: its oldest
 * quarter, at once (its queue's memory).
 */
#define INJ_TL_MAX_CALLS 8192
/** GPU, sync and event records queued before the same. */
#define INJ_TL_MAX_RECORDS 8192

struct inj_timeline;

/**
 * A new recorder; `now` (may be NULL) reads the vendor's clock (the clock
 * of its records), so that the time before the first call and after the
 * last counts in the traced wall time. NULL on ENOMEM.
 */
struct inj_timeline *inj_timeline_new(uint64_t (*now)(void));
void inj_timeline_free(struct inj_timeline *tl);
/**
 * Set the clock (as for inj_timeline_new()) and start the traced wall time
 * now: the recorder records from here (inj_timeline_recording()).
 */
void inj_timeline_start(struct inj_timeline *tl, uint64_t (*now)(void));
/**
 * The backend no longer delivers the timeline's records (its activity
 * kinds are off): it stops recording. What was recorded stays.
 */
void inj_timeline_stop(struct inj_timeline *tl);
/**
 * Whether the recorder records (between inj_timeline_start() and
 * inj_timeline_stop()): then the backend gives it its records in batches,
 * and the collector adds one op record per kernel record
 * (inj_collector_records()). False for NULL.
 */
bool inj_timeline_recording(const struct inj_timeline *tl);

/**
 * A batch of records (one buffer): the lock is taken by begin and released
 * by end, which takes what the bounds force (the rest waits for the tick).
 * The record functions below are called only between the two.
 */
void inj_timeline_batch_begin(struct inj_timeline *tl);
void inj_timeline_batch_end(struct inj_timeline *tl);
/** Records of one batch (any order). */
void inj_timeline_api(struct inj_timeline *tl, const struct inj_api_record *r);
void inj_timeline_op(struct inj_timeline *tl, const struct inj_op_record *r);
void inj_timeline_sync(struct inj_timeline *tl, const struct inj_sync_record *r);
void inj_timeline_event(struct inj_timeline *tl, const struct inj_event_record *r);
/** A stream of a context, and whether it is the legacy default (NULL) stream. */
void inj_timeline_stream(struct inj_timeline *tl, uint32_t ctx, uint32_t stream, bool legacy);
/** Take what is ready (outside a batch); `tick` true once per flush period (the worker). */
void inj_timeline_process(struct inj_timeline *tl, bool tick);
/**
 * The traced run ends now (before the last flush at exit). Skipped (the end
 * is the last call's) when the recorder's lock is not free by the exit
 * deadline.
 */
void inj_timeline_mark_end(struct inj_timeline *tl);
/**
 * At exit, after the last records: take every call, close every epoch and
 * give `p` (whose kernel records the op records point at) the timeline.
 * Later records are ignored. Idempotent. false when the recorder's lock
 * was not free by the exit deadline (inj_timeline_exit_by()): `p` then has
 * no timeline. A NULL recorder: true.
 */
bool inj_timeline_finish(struct inj_timeline *tl, struct gpuproj_profile *p);
/** Bound the exit path's wait for the recorder's lock (inj_collector_exit_by()); accepts NULL. */
void inj_timeline_exit_by(struct inj_timeline *tl, const struct timespec *by);

#endif
