/* SPDX-License-Identifier: MIT */
/*
 * The activity API side of the CUPTI backend: CONCURRENT_KERNEL records →
 * struct inj_kernel_record ([CUPTI-ACT]), in the layout of the loaded
 * libcupti's version. Buffers: 1 MiB, 8-byte
 * aligned (cupti_common.h ACTIVITY_RECORD_ALIGNMENT), a pool of 4.
 *
 * The buffer callbacks (cuptiActivityRegisterCallbacks) get no userdata:
 * this file, which registers them, keeps the one pointer to the backend's
 * state they need (g_act_st, set before they are registered and never
 * changed), as Kineto keeps its profiler's.
 *
 * Thread safety: buffers complete on CUPTI's thread or on the thread that
 * flushes; the pool has its own lock (st->pool_lock).
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "cupti-private.h"
#include "cupti-records.h"
#include "util.h"

#define BUF_SIZE (1u << 20)

/* The state the buffer callbacks work on (cupti_activity_start()). */
static struct cupti_state *g_act_st;

/*
 * ---- Another CUPTI client taking the activity API ----
 *
 * CUPTI 13.0 keeps one pair of buffer callbacks per process
 * (cuptiActivityRegisterCallbacks, cupti_activity.h:7668; "Only a single
 * subscriber can be registered at a time", cupti_callbacks.h:779 — a
 * multi-subscriber mode with per-subscriber activity APIs came in later
 * CUPTI releases: the 13.3 Update 1 notes fix a crash "in multi-subscriber
 * mode", CUPTI Python 13.5 binds it; how it routes records is [GPU?]).
 * A framework profiler in the process (PyTorch's
 * Kineto) registers its own when it starts: kernel records go to it from
 * then on. gpuproj yields: it notices (launches go on through its
 * callbacks, none of its buffers comes back for 2 s), says so once, keeps
 * what it has, and neither takes the callbacks back (that would steal the
 * framework's records) nor disables kernel tracing at exit (it is the
 * framework's now). Launches are counted in every mode (without metrics
 * the launch callbacks do nothing else), and the rule is checked on the
 * worker's ticks and once more at exit, after the last forced flush:
 * nothing is in flight then, so the 2 s need not have passed
 * (cupti_activity_watch_final()).
 */
#define TAKEOVER_S 2.0
#define TAKEOVER_LAUNCHES 64

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
ours_ran(struct cupti_state *st)
{
	atomic_store_explicit(&st->ours_ns, now_ns(), memory_order_relaxed);
	atomic_store_explicit(&st->ours_launches, cupti_launches_seen(st), memory_order_relaxed);
}

void
cupti_activity_watch(struct cupti_state *st)
{
	uint64_t launches = cupti_launches_seen(st), t = now_ns();

	if (atomic_load(&st->taken_over))
		return;
	if (!atomic_load_explicit(&st->ours_ns, memory_order_relaxed)) {
		ours_ran(st); /* the clock starts with the first tick */
		return;
	}
	if (launches - atomic_load(&st->ours_launches) < TAKEOVER_LAUNCHES ||
	    (double)(t - atomic_load(&st->ours_ns)) < TAKEOVER_S * 1e9)
		return;
	if (atomic_exchange(&st->taken_over, true))
		return;
	inj_warn("another CUPTI client in this process (a framework's profiler, PyTorch's for one) "
		 "took over the kernel records: %llu launches since have none for gpuproj, which "
		 "keeps what it has and leaves kernel tracing to that client",
		 (unsigned long long)(launches - atomic_load(&st->ours_launches)));
}

/*
 * At exit, once the contexts are synchronised and the final forced flush
 * has delivered every buffer of ours: launches since our buffers last came
 * back had none for us. At least TAKEOVER_EXIT_LAUNCHES of them: the last
 * launches of a run can fail without a record, and that is no takeover.
 */
#define TAKEOVER_EXIT_LAUNCHES 8

void
cupti_activity_watch_final(struct cupti_state *st)
{
	uint64_t launches = cupti_launches_seen(st);

	if (atomic_load(&st->taken_over) || !atomic_load(&st->ours_ns) ||
	    launches - atomic_load(&st->ours_launches) < TAKEOVER_EXIT_LAUNCHES)
		return;
	if (atomic_exchange(&st->taken_over, true))
		return;
	inj_warn("another CUPTI client in this process (a framework's profiler, PyTorch's for one) "
		 "took over the kernel records: %llu launches since have none for gpuproj, which "
		 "keeps what it has and leaves kernel tracing to that client",
		 (unsigned long long)(launches - atomic_load(&st->ours_launches)));
}

bool
cupti_activity_taken_over(struct cupti_state *st)
{
	return atomic_load(&st->taken_over);
}

static void CUPTIAPI
buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	struct cupti_state *st = g_act_st;
	uint8_t *b = NULL;

	pthread_mutex_lock(&st->pool_lock);
	if (st->n_pool)
		b = st->pool[--st->n_pool];
	pthread_mutex_unlock(&st->pool_lock);
	if (!b)
		b = aligned_alloc(8, BUF_SIZE);
	ours_ran(st);
	*buf = b;
	*size = b ? BUF_SIZE : 0; /* 0: CUPTI drops the records and counts them */
	*max_records = 0;
}

static void
buffer_release(struct cupti_state *st, uint8_t *buf)
{
	pthread_mutex_lock(&st->pool_lock);
	if (st->n_pool < POOL_MAX) {
		st->pool[st->n_pool++] = buf;
		buf = NULL;
	}
	pthread_mutex_unlock(&st->pool_lock);
	free(buf);
}

void
cupti_buffers_release(struct cupti_state *st)
{
	pthread_mutex_lock(&st->pool_lock);
	while (st->n_pool)
		free(st->pool[--st->n_pool]);
	pthread_mutex_unlock(&st->pool_lock);
}

/*
 * ---- Kernel record layouts, by the libcupti that is loaded ----
 *
 * cupti-records.h: which record each CUPTI 13.x writes (Kernel10 in 13.0,
 * Kernel11 in 13.1-13.2, Kernel12 in 13.3, Kernel13 in 13.4-13.5, read
 * from NVIDIA's released headers) and the prefix common to all of them.
 * Here it is held to the installed header at build time; the other
 * releases' headers are checked by tests/inject/check-cupti-records.py.
 */
#define SAME_OFFSET(ours, theirs)                                                                  \
	_Static_assert(offsetof(struct kernel_prefix, ours) ==                                     \
			       offsetof(CUpti_ActivityKernel10, theirs) &&                         \
		       sizeof(((struct kernel_prefix *)0)->ours) ==                                \
			       sizeof(((CUpti_ActivityKernel10 *)0)->theirs),                      \
		       #ours " is not where CUpti_ActivityKernel10 has " #theirs);
#define SAME_PLACE(ours, theirs)                                                                   \
	_Static_assert(offsetof(struct kernel_prefix, ours) ==                                     \
			       offsetof(CUpti_ActivityKernel10, theirs),                           \
		       #ours " is not where CUpti_ActivityKernel10 has " #theirs);
KERNEL_PREFIX_READ(SAME_OFFSET)
KERNEL_PREFIX_UNREAD(SAME_PLACE)
_Static_assert(KERNEL_PREFIX_END == offsetof(CUpti_ActivityKernel10, KERNEL_PREFIX_NEXT),
	       "struct kernel_prefix does not end where CUpti_ActivityKernel10's clusterZ does");

const char *
cupti_record_layout(uint32_t api)
{
	return cupti_record_for(api);
}

void
cupti_record_known(uint32_t *api_min, uint32_t *api_max)
{
	*api_min = cupti_record_versions[0].api_min;
	*api_max = cupti_record_versions[CUPTI_RECORD_VERSIONS - 1].api_max;
}

static void
translate(const struct kernel_prefix *k, struct inj_kernel_record *r)
{
	r->name = k->name;
	r->grid.x = (uint32_t)k->grid_x;
	r->grid.y = (uint32_t)k->grid_y;
	r->grid.z = (uint32_t)k->grid_z;
	r->block.x = (uint32_t)k->block_x;
	r->block.y = (uint32_t)k->block_y;
	r->block.z = (uint32_t)k->block_z;
	r->smem_dynamic = (uint32_t)k->dynamic_shared_memory;
	r->smem_static = (uint32_t)k->static_shared_memory;
	r->regs_per_thread = k->registers_per_thread;
	r->local_bytes_per_thread = k->local_memory_per_thread;
	r->device = (int)k->device_id;
	r->correlation = k->correlation_id;
	r->start_ns = k->start;
	r->end_ns = k->end;
	r->graph_id = k->graph_id;
	r->context_id = k->context_id;
	r->stream_id = k->stream_id;
	r->cluster.x = k->cluster_x;
	r->cluster.y = k->cluster_y;
	r->cluster.z = k->cluster_z;
}

static void CUPTIAPI
buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
	struct cupti_state *st = g_act_st;
	struct inj_kernel_record batch[128];
	CUpti_Activity *rec = NULL;
	size_t n = 0, dropped = 0;
	int run = atomic_load(&st->run);
	sigset_t old;
	bool begun;
	CUptiResult r;

	(void)ctx;
	(void)stream;
	(void)size;
	if (!buf)
		return;
	/* The recorder's and the collector's locks are held below (backend.h). */
	inj_signals_block(&old);
	ours_ran(st);
	if (run == ST_CHILD || !st->col)
		goto out;
	begun = cupti_timeline_batch_begin(st);
	while ((r = st->api.cuptiActivityGetNextRecord(buf, valid, &rec)) == CUPTI_SUCCESS) {
		if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
		    rec->kind != CUPTI_ACTIVITY_KIND_KERNEL) {
			cupti_timeline_record(st, rec);
			continue;
		}
		translate((const struct kernel_prefix *)(const void *)rec, &batch[n++]);
		if (n == ARRAY_LENGTH(batch)) {
			inj_collector_records(st->col, batch, n);
			n = 0;
		}
	}
	if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
		cupti_logged(st, r, "cuptiActivityGetNextRecord");
	if (n)
		inj_collector_records(st->col, batch, n);
	cupti_timeline_batch_done(st, begun);
	if (CUPTI_TRY(st, cuptiActivityGetNumDroppedRecords, NULL, 0, &dropped) == CUPTI_SUCCESS &&
	    dropped)
		inj_collector_dropped(st->col, dropped);
out:
	buffer_release(st, buf);
	inj_signals_restore(&old);
}

bool
cupti_activity_start(struct cupti_state *st, struct cupti_err *err)
{
	g_act_st = st;
	return CUPTI_CALL(st, err, cuptiActivityRegisterCallbacks, buffer_requested,
			  buffer_completed) &&
	       CUPTI_CALL(st, err, cuptiActivityEnable, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
}
