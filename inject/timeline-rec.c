/* SPDX-License-Identifier: MIT */
/*
 * The timeline recorder (timeline-rec.h): API calls and GPU records →
 * epochs → the profile's timeline (include/gpuproj/timeline.h). What is
 * recorded, how it is bounded and the replay's error bound are in
 * timeline.h and docs/internals/DESIGN.md §8; the rules of taking a call are in
 * timeline-rec.h.
 *
 * Thread safety: one mutex around everything; the core's timeline is only
 * touched under it.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuproj/timeline.h>

#include "log.h"
#include "timeline-rec.h"

/* ---- queued records ---- */

enum { DEV_OP = 0, DEV_SYNC, DEV_EVENT };

/* A GPU, sync or event record waiting for its call (pool entry). */
struct dev {
	uint8_t type;		/* DEV_* */
	uint32_t next;		/* next record of the same call, index + 1 (0: none) */
	uint32_t tick;		/* when it arrived */
	union {
		struct inj_op_record op;
		struct inj_sync_record sync;
		struct inj_event_record event;
	} u;
};

/* An API call waiting to be taken. */
struct call {
	uint64_t start, end;
	uint32_t corr;
	uint32_t arrived_ms;	/* when it arrived (the recorder's clock, ms) */
	uint8_t expect;
	bool runtime;
};

#define STREAM_SLOTS 256
#define EVENT_SLOTS 256
#define GRAPH_POOL 1024

/* One application thread: its queued calls and the epoch being built. */
struct thr {
	uint32_t tid;
	uint32_t index;		/* thread number in the profile */
	struct call *q;		/* queued calls [qh, qn), sorted by start */
	size_t qh, qn, qcap;
	uint32_t waited;	/* ticks the head call has waited */
	/* the epoch */
	struct gpuproj_tl_raw *raw;	/* [GPUPROJ_TL_MAX_NODES] */
	bool *pert;			/* [GPUPROJ_TL_MAX_NODES]: ran under kernel replay */
	struct gpuproj_tl_node *nodes;	/* [GPUPROJ_TL_MAX_NODES]: its fold, reused */
	size_t n_raw;
	bool open, perturbed, incomplete;
	uint64_t start, outstanding;
	/*
	 * The epoch's streams by slot, and when each one's work ends: kept
	 * across a cut, so that the next epoch begins with the work
	 * still running (GPUPROJ_TL_CARRY nodes) on the same slots.
	 */
	struct { uint32_t ctx, stream; uint64_t ready; bool legacy; } streams[STREAM_SLOTS];
	size_t n_streams;
	bool carry;		/* the epoch was cut: the next one carries its streams' work */
	uint64_t events[EVENT_SLOTS];
	size_t n_events;
	struct gpuproj_tl_graph_kernel *gpool;	/* [GRAPH_POOL], graph nodes' kernels */
	size_t n_gpool;
	/* the thread's traced span: its first call's start, its last epoch's end */
	bool seen;
	uint64_t first, last;
};

/*
 * A thread beyond GPUPROJ_TL_MAX_THREADS: not followed, but its epochs are
 * counted, not its API calls. Its epochs end at its
 * synchronising calls (INJ_EXPECT_SYNC: the records that would tell a
 * blocking one from a stream's wait for an event are not joined for it),
 * a runtime call and the driver call nested in it counted once; its time
 * is its traced span, first call to last.
 */
struct extra_thr {
	uint32_t tid;
	bool used;
	uint64_t first, last;		/* its calls' span */
	uint64_t sync_start, sync_end;	/* its last synchronising call (nested ones in it) */
	uint64_t syncs;
};

/* Threads beyond GPUPROJ_TL_MAX_THREADS whose epochs are counted; past them, calls are. */
#define EXTRA_THREADS 1024

/* A context's legacy default stream (from the stream records). */
struct legacy {
	uint32_t ctx, stream;
};

/*
 * An epoch with a profiled launch, kept to be reconstructed at the end
 * (timeline.h "Reconstructed epochs"), when every kernel's duration is in.
 */
struct deferred {
	struct gpuproj_tl_pattern pat;	/* folded as measured (owned) */
	bool *pert;			/* [pat.n_nodes]: nodes that ran under kernel replay */
	double measured_ns;		/* its measured wall time */
};

struct inj_timeline {
	pthread_mutex_t lock;
	uint64_t (*now)(void);
	uint64_t t_start, t_end;
	atomic_bool recording;	/* inj_timeline_start() .. inj_timeline_stop() */
	bool finished;
	struct gpuproj_timeline *tl;
	struct thr *thr[GPUPROJ_TL_MAX_THREADS];
	size_t n_thr;
	struct thr *last_thr;
	struct extra_thr *extra;	/* [EXTRA_THREADS], threads beyond GPUPROJ_TL_MAX_THREADS */
	size_t n_extra;
	uint64_t extra_calls;	/* calls of threads beyond those too: one epoch each */
	double extra_ns;
	/* records by correlation id: open addressing, key 0 = empty */
	uint32_t *keys, *heads;	/* head: pool index + 1 */
	size_t mask, n_keys;
	struct dev *pool;
	uint32_t *free_list;
	size_t n_pool, cap_pool, n_free;
	size_t n_dev;		/* records queued */
	uint32_t tick;
	uint32_t last_purge;
	size_t n_calls;		/* calls queued, every thread */
	uint32_t batch_ms;	/* CLOCK_MONOTONIC, ms, when the current batch began */
	struct legacy *legacy;
	size_t n_legacy;
	uint64_t dropped_orphans;
	bool oom;
	/* epochs to reconstruct, at most GPUPROJ_TL_MAX_PATTERNS of GPUPROJ_TL_MAX_TOTAL_NODES */
	struct deferred deferred[GPUPROJ_TL_MAX_PATTERNS];
	size_t n_deferred, deferred_nodes;
	/* an ordinary (unprofiled) launch call's host time, for the reconstruction */
	double launch_call_sum;
	uint64_t launch_call_n;
	/* At exit: the exit path's waits for `lock` end then (inj_timeline_exit_by()). */
	bool has_exit_by;
	struct timespec exit_by;
};

/* The lock on the exit path: bounded once a deadline is set (inj_collector_exit_by()). */
static bool
exit_lock(struct inj_timeline *t)
{
	if (!t->has_exit_by) {
		pthread_mutex_lock(&t->lock);
		return true;
	}
	return pthread_mutex_timedlock(&t->lock, &t->exit_by) == 0;
}

void
inj_timeline_exit_by(struct inj_timeline *t, const struct timespec *by)
{
	if (!t)
		return;
	t->exit_by = *by;
	t->has_exit_by = true;
}

static void
oom(struct inj_timeline *t)
{
	if (!t->oom) {
		t->oom = true;
		inj_warn("out of memory recording the whole-run timeline: it stops here (the whole "
			 "run will be projected from what was recorded so far)");
	}
}

struct inj_timeline *
inj_timeline_new(uint64_t (*now)(void))
{
	struct inj_timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->tl = gpuproj_timeline_new();
	t->mask = 4095;
	t->keys = calloc(t->mask + 1, sizeof(*t->keys));
	t->heads = calloc(t->mask + 1, sizeof(*t->heads));
	if (!t->tl || !t->keys || !t->heads) {
		gpuproj_timeline_free(t->tl);
		free(t->keys);
		free(t->heads);
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	t->now = now;
	if (now)
		t->t_start = now();
	return t;
}

void
inj_timeline_start(struct inj_timeline *t, uint64_t (*now)(void))
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->now = now;
	t->t_start = now ? now() : 0;
	pthread_mutex_unlock(&t->lock);
	atomic_store(&t->recording, true);
}

void
inj_timeline_stop(struct inj_timeline *t)
{
	if (t)
		atomic_store(&t->recording, false);
}

bool
inj_timeline_recording(const struct inj_timeline *t)
{
	return t && atomic_load(&t->recording);
}

static void
thr_free(struct thr *h)
{
	if (!h)
		return;
	free(h->q);
	free(h->raw);
	free(h->pert);
	free(h->nodes);
	free(h->gpool);
	free(h);
}

void
inj_timeline_free(struct inj_timeline *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n_thr; i++)
		thr_free(t->thr[i]);
	for (i = 0; i < t->n_deferred; i++) {
		gpuproj_tl_pattern_clear(&t->deferred[i].pat);
		free(t->deferred[i].pert);
	}
	gpuproj_timeline_free(t->tl);
	free(t->keys);
	free(t->heads);
	free(t->pool);
	free(t->free_list);
	free(t->legacy);
	free(t->extra);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* ---- the correlation map ---- */

static size_t
slot_of(uint32_t key, size_t mask)
{
	return (size_t)(key * 2654435761u) & mask;
}

static bool
map_grow(struct inj_timeline *t)
{
	size_t cap = 2 * (t->mask + 1), i;
	uint32_t *keys = calloc(cap, sizeof(*keys)), *heads = calloc(cap, sizeof(*heads));

	if (!keys || !heads) {
		free(keys);
		free(heads);
		return false;
	}
	for (i = 0; i <= t->mask; i++) {
		size_t j;

		if (!t->keys[i])
			continue;
		for (j = slot_of(t->keys[i], cap - 1); keys[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = t->keys[i];
		heads[j] = t->heads[i];
	}
	free(t->keys);
	free(t->heads);
	t->keys = keys;
	t->heads = heads;
	t->mask = cap - 1;
	return true;
}

static size_t
map_find(const struct inj_timeline *t, uint32_t key)
{
	size_t j;

	for (j = slot_of(key, t->mask); t->keys[j]; j = (j + 1) & t->mask) {
		if (t->keys[j] == key)
			return j;
	}
	return SIZE_MAX;
}

/* Remove slot j (backward shift, so lookups need no tombstones). */
static void
map_remove(struct inj_timeline *t, size_t j)
{
	size_t i = j, k;

	t->keys[i] = 0;
	t->heads[i] = 0;
	t->n_keys--;
	for (k = (i + 1) & t->mask; t->keys[k]; k = (k + 1) & t->mask) {
		size_t home = slot_of(t->keys[k], t->mask);

		/* Move k to i when its home is not in (i, k]. */
		if ((k > i && (home <= i || home > k)) || (k < i && home <= i && home > k)) {
			t->keys[i] = t->keys[k];
			t->heads[i] = t->heads[k];
			t->keys[k] = 0;
			t->heads[k] = 0;
			i = k;
		}
	}
}

static struct dev *
dev_new(struct inj_timeline *t, uint32_t key)
{
	uint32_t idx;
	size_t j;
	struct dev *d;

	if (!key)
		return NULL;
	if (t->n_free) {
		idx = t->free_list[--t->n_free];
	} else {
		if (t->n_pool == t->cap_pool) {
			size_t cap = t->cap_pool ? 2 * t->cap_pool : 1024;
			struct dev *p = realloc(t->pool, cap * sizeof(*p));
			uint32_t *f;

			if (!p)
				return NULL;
			t->pool = p;
			f = realloc(t->free_list, cap * sizeof(*f));
			if (!f)
				return NULL;
			t->free_list = f;
			t->cap_pool = cap;
		}
		idx = (uint32_t)t->n_pool++;
	}
	if ((t->n_keys + 1) * 2 > t->mask + 1 && !map_grow(t)) {
		t->free_list[t->n_free++] = idx;
		return NULL;
	}
	d = &t->pool[idx];
	memset(d, 0, sizeof(*d));
	d->tick = t->tick;
	j = map_find(t, key);
	if (j == SIZE_MAX) {
		for (j = slot_of(key, t->mask); t->keys[j]; j = (j + 1) & t->mask)
			;
		t->keys[j] = key;
		t->n_keys++;
	} else {
		d->next = t->heads[j];
	}
	t->heads[j] = idx + 1;
	t->n_dev++;
	return d;
}

static void
dev_free_chain(struct inj_timeline *t, uint32_t head)
{
	while (head) {
		uint32_t idx = head - 1;

		head = t->pool[idx].next;
		t->free_list[t->n_free++] = idx;
		t->n_dev--;
	}
}

/*
 * Records no call took (its API record was dropped, or it belongs to a
 * thread not followed): dropped after INJ_TL_ORPHAN_TICKS, so the map stays
 * bounded. A rebuild of the map, every 10 ticks.
 */
static void
purge_orphans(struct inj_timeline *t)
{
	size_t i;
	bool again = true;

	if (t->tick - t->last_purge < 10)
		return;
	t->last_purge = t->tick;
	while (again) {
		again = false;
		for (i = 0; i <= t->mask; i++) {
			if (!t->keys[i] || t->tick - t->pool[t->heads[i] - 1].tick < INJ_TL_ORPHAN_TICKS)
				continue;
			dev_free_chain(t, t->heads[i]);
			t->dropped_orphans++;
			map_remove(t, i);
			again = true; /* the shift may have moved an old one to a visited slot */
		}
	}
}

/* ---- threads ---- */

static struct thr *
thread_of(struct inj_timeline *t, uint32_t tid)
{
	struct thr *h;
	size_t i;

	if (t->last_thr && t->last_thr->tid == tid)
		return t->last_thr;
	for (i = 0; i < t->n_thr; i++) {
		if (t->thr[i]->tid == tid)
			return t->last_thr = t->thr[i];
	}
	if (t->n_thr == GPUPROJ_TL_MAX_THREADS)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h || !(h->raw = calloc(GPUPROJ_TL_MAX_NODES, sizeof(*h->raw))) ||
	    !(h->pert = calloc(GPUPROJ_TL_MAX_NODES, sizeof(*h->pert))) ||
	    !(h->nodes = calloc(GPUPROJ_TL_MAX_NODES, sizeof(*h->nodes))) ||
	    !(h->gpool = calloc(GRAPH_POOL, sizeof(*h->gpool)))) {
		thr_free(h);
		oom(t);
		return NULL;
	}
	h->tid = tid;
	h->index = (uint32_t)t->n_thr;
	t->thr[t->n_thr++] = h;
	return t->last_thr = h;
}

/*
 * Before b in the queue: earlier start; at the same start the earlier
 * correlation id (ids follow the order calls began on a thread, so a call
 * comes before the driver calls nested in it, even when a clock gives
 * them all the same instant [GPU?]).
 */
static bool
call_before(const struct call *a, const struct call *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return a->corr < b->corr;
}

static bool
enqueue_call(struct thr *h, const struct call *c)
{
	size_t i;

	/* Full: compact when any is taken, else grow (so capacity follows the calls queued). */
	if (h->qn == h->qcap && h->qh > 0) {
		memmove(h->q, h->q + h->qh, (h->qn - h->qh) * sizeof(*h->q));
		h->qn -= h->qh;
		h->qh = 0;
	}
	if (h->qn == h->qcap) {
		size_t cap = h->qcap ? 2 * h->qcap : 256;
		struct call *q = realloc(h->q, cap * sizeof(*q));

		if (!q)
			return false;
		h->q = q;
		h->qcap = cap;
	}
	/* Calls arrive nearly in order: the tail's neighbourhood first, else a binary search. */
	i = h->qn;
	if (i > h->qh && call_before(c, &h->q[i - 1])) {
		i--;
		if (i > h->qh && call_before(c, &h->q[i - 1])) {
			size_t lo = h->qh, hi = i - 1;

			/* The first position whose call is not before c, in [lo, hi]. */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (call_before(&h->q[mid], c))
					lo = mid + 1;
				else
					hi = mid;
			}
			i = lo;
		}
	}
	memmove(h->q + i + 1, h->q + i, (h->qn - i) * sizeof(*h->q));
	h->q[i] = *c;
	h->qn++;
	return true;
}

/* ---- records in ---- */

enum take_mode { TAKE_TICK, TAKE_PRESSURE, TAKE_ALL };
static void process_thread(struct inj_timeline *t, struct thr *h, enum take_mode mode,
			   size_t limit);

/* Count a call of a thread that is not followed (struct extra_thr). */
static void
extra_call(struct inj_timeline *t, uint32_t tid, const struct call *c)
{
	struct extra_thr *x = NULL;
	size_t i, h;

	if (!t->extra && !(t->extra = calloc(EXTRA_THREADS, sizeof(*t->extra)))) {
		oom(t);
		return;
	}
	for (i = 0, h = (tid * 2654435761u) % EXTRA_THREADS; i < EXTRA_THREADS;
	     i++, h = (h + 1) % EXTRA_THREADS) {
		if (!t->extra[h].used && t->n_extra < EXTRA_THREADS) {
			x = &t->extra[h];
			x->used = true;
			x->tid = tid;
			x->first = c->start;
			x->last = c->end;
			t->n_extra++;
			break;
		}
		if (t->extra[h].used && t->extra[h].tid == tid) {
			x = &t->extra[h];
			break;
		}
	}
	if (!x) {
		/* Beyond every table: each call is taken for an epoch. */
		t->extra_calls++;
		t->extra_ns += (double)(c->end - c->start);
		return;
	}
	if (c->start < x->first)
		x->first = c->start;
	if (c->end > x->last)
		x->last = c->end;
	if (!(c->expect & INJ_EXPECT_SYNC))
		return;
	if (x->syncs && c->start >= x->sync_start && c->end <= x->sync_end)
		return; /* nested in the last one (a driver call in its runtime call) */
	if (x->syncs && c->start <= x->sync_start && c->end >= x->sync_end) {
		x->sync_start = c->start; /* encloses the last one: the same wait */
		x->sync_end = c->end;
		return;
	}
	x->syncs++;
	x->sync_start = c->start;
	x->sync_end = c->end;
}

void
inj_timeline_api(struct inj_timeline *t, const struct inj_api_record *r)
{
	struct call c = { r->start, r->end < r->start ? r->start : r->end, r->corr, 0, r->expect,
			  r->runtime };
	struct thr *h;

	if (!t || t->finished || t->oom)
		return;
	c.arrived_ms = t->batch_ms;
	h = thread_of(t, r->tid);
	if (!h) {
		if (!t->oom)
			extra_call(t, r->tid, &c);
	} else if (!enqueue_call(h, &c)) {
		oom(t);
	} else {
		t->n_calls++;
		/* The hard bound on one thread's queue (its memory): its oldest half, now. */
		if (h->qn - h->qh > INJ_TL_MAX_CALLS / 2)
			process_thread(t, h, TAKE_ALL, INJ_TL_MAX_CALLS / 4);
	}
}

static void
dev_add(struct inj_timeline *t, uint32_t key, int type, const void *rec, size_t size)
{
	struct dev *d;

	if (!t || t->finished || t->oom)
		return;
	d = dev_new(t, key);
	if (d) {
		d->type = (uint8_t)type;
		memcpy(&d->u, rec, size);
	} else if (key) {
		oom(t);
	}
}

void
inj_timeline_op(struct inj_timeline *t, const struct inj_op_record *r)
{
	/* A copy is found by its runtime call when it has one (the driver call is nested in it). */
	dev_add(t, r->rt_corr ? r->rt_corr : r->corr, DEV_OP, r, sizeof(*r));
}

void
inj_timeline_sync(struct inj_timeline *t, const struct inj_sync_record *r)
{
	dev_add(t, r->corr, DEV_SYNC, r, sizeof(*r));
}

void
inj_timeline_event(struct inj_timeline *t, const struct inj_event_record *r)
{
	dev_add(t, r->corr, DEV_EVENT, r, sizeof(*r));
}

void
inj_timeline_stream(struct inj_timeline *t, uint32_t ctx, uint32_t stream, bool legacy)
{
	struct legacy *v;
	size_t i;

	if (!t || !legacy || t->finished)
		return;
	for (i = 0; i < t->n_legacy; i++) {
		if (t->legacy[i].ctx == ctx)
			break;
	}
	if (i == t->n_legacy) {
		v = realloc(t->legacy, (t->n_legacy + 1) * sizeof(*v));
		if (v) {
			t->legacy = v;
			t->n_legacy++;
		}
	}
	if (i < t->n_legacy) {
		t->legacy[i].ctx = ctx;
		t->legacy[i].stream = stream;
	}
}

static bool
is_legacy(const struct inj_timeline *t, uint32_t ctx, uint32_t stream)
{
	size_t i;

	for (i = 0; i < t->n_legacy; i++) {
		if (t->legacy[i].ctx == ctx)
			return t->legacy[i].stream == stream;
	}
	return false;
}

/* ---- epochs ---- */

static uint16_t
stream_slot(struct thr *h, uint32_t ctx, uint32_t stream)
{
	size_t i;

	for (i = 0; i < h->n_streams; i++) {
		if (h->streams[i].ctx == ctx && h->streams[i].stream == stream)
			return (uint16_t)i;
	}
	if (h->n_streams == STREAM_SLOTS)
		return STREAM_SLOTS - 1; /* beyond: folded into the last slot (more order, not less) */
	h->streams[h->n_streams].ctx = ctx;
	h->streams[h->n_streams].stream = stream;
	h->streams[h->n_streams].ready = 0;
	h->streams[h->n_streams].legacy = false;
	return (uint16_t)h->n_streams++;
}

static uint16_t
event_slot(struct thr *h, uint64_t id, bool add)
{
	size_t i;

	if (!id)
		return GPUPROJ_TL_NONE;
	for (i = 0; i < h->n_events; i++) {
		if (h->events[i] == id)
			return (uint16_t)i;
	}
	if (!add || h->n_events == EVENT_SLOTS)
		return GPUPROJ_TL_NONE;
	h->events[h->n_events] = id;
	return (uint16_t)h->n_events++;
}

/* Unprofiled kernel launch calls of an epoch: their host time, for the reconstruction. */
static void
count_launch_calls(struct inj_timeline *t, const struct thr *h)
{
	size_t i;

	for (i = 0; i < h->n_raw; i++) {
		if (h->raw[i].op == GPUPROJ_TL_KERNEL && !h->pert[i]) {
			t->launch_call_sum += (double)(h->raw[i].call_end - h->raw[i].call_start);
			t->launch_call_n++;
		}
	}
}

/*
 * Keep an epoch with a profiled launch for inj_timeline_finish() to
 * reconstruct; false when the bounds are full (it is unexplained then).
 */
static bool
defer_epoch(struct inj_timeline *t, struct thr *h, uint64_t end, bool cut)
{
	struct deferred *d;

	if (t->n_deferred == GPUPROJ_TL_MAX_PATTERNS ||
	    t->deferred_nodes + h->n_raw > GPUPROJ_TL_MAX_TOTAL_NODES)
		return false;
	d = &t->deferred[t->n_deferred];
	memset(d, 0, sizeof(*d));
	if (gpuproj_tl_epoch_fold(h->raw, h->n_raw, h->start, end, &d->pat) != GPUPROJ_OK ||
	    !(d->pert = malloc(h->n_raw * sizeof(*d->pert)))) {
		gpuproj_tl_pattern_clear(&d->pat);
		oom(t);
		return false;
	}
	memcpy(d->pert, h->pert, h->n_raw * sizeof(*d->pert));
	d->pat.thread = h->index;
	d->pat.cut = cut;
	d->pat.reconstructed = true;
	d->measured_ns = (double)(end - h->start);
	t->n_deferred++;
	t->deferred_nodes += h->n_raw;
	return true;
}

/* A time of one sample (a pattern of count 1). */
static void
one_sample(struct gpuproj_stats *s, double v)
{
	memset(s, 0, sizeof(*s));
	s->n = 1;
	s->sum = s->mean = s->min = s->max = v;
}

/*
 * Reconstruct a deferred epoch (timeline.h "Reconstructed epochs"): each
 * profiled launch the host time of an ordinary launch call, no latency,
 * its kernel's one-pass duration; the wall time the replay of that onto
 * the source. False when a profiled call is not a launch of a kernel with
 * a duration (the epoch stays "profiled").
 */
static bool
reconstruct(const struct inj_timeline *t, struct deferred *d, double *ret_wall)
{
	double call = t->launch_call_n ? t->launch_call_sum / (double)t->launch_call_n : 0;
	struct gpuproj_tl_parts parts;
	size_t i;

	for (i = 0; i < d->pat.n_nodes; i++) {
		struct gpuproj_tl_node *n = &d->pat.nodes[i];

		if (!d->pert[i])
			continue;
		if (n->op != GPUPROJ_TL_KERNEL || !n->kernel || !(n->kernel->duration_ns.n > 0) ||
		    !(n->kernel->duration_ns.mean > 0))
			return false;
		one_sample(&n->call_ns, call);
		one_sample(&n->lat_ns, 0);
		one_sample(&n->dur_ns, n->kernel->duration_ns.mean);
	}
	if (gpuproj_timeline_replay(&d->pat, NULL, &parts) != GPUPROJ_OK || !(parts.wall_ns >= 0))
		return false;
	*ret_wall = parts.wall_ns;
	one_sample(&d->pat.wall_ns, parts.wall_ns);
	return true;
}

/*
 * Every deferred epoch, reconstructed into the timeline; *ret_blocking:
 * what replay added; per_thread[thread index] (NULL: not asked) the same
 * per thread.
 */
static void
reconstruct_all(struct inj_timeline *t, double *ret_blocking, double *per_thread)
{
	size_t i;

	*ret_blocking = 0;
	for (i = 0; i < t->n_deferred; i++) {
		struct deferred *d = &t->deferred[i];
		double wall = 0;

		if (!reconstruct(t, d, &wall)) {
			t->tl->unexplained[GPUPROJ_TL_WHY_PROFILED].epochs++;
			t->tl->unexplained[GPUPROJ_TL_WHY_PROFILED].ns += d->measured_ns;
			continue;
		}
		/* The replay's blocking: never negative (a reconstruction is not longer). */
		if (wall > d->measured_ns)
			wall = d->measured_ns;
		t->tl->reconstructed.epochs++;
		t->tl->reconstructed.ns += wall;
		t->tl->reconstructed.blocking_ns += d->measured_ns - wall;
		*ret_blocking += d->measured_ns - wall;
		if (per_thread && d->pat.thread < t->n_thr)
			per_thread[d->pat.thread] += d->measured_ns - wall;
		if (gpuproj_timeline_add(t->tl, &d->pat, GPUPROJ_TL_MAX_PATTERNS,
					 GPUPROJ_TL_MAX_TOTAL_NODES, NULL) != GPUPROJ_OK)
			oom(t);
	}
}

/* Close the thread's epoch at `end`; `cut` when it did not end at a wait. */
static void
close_epoch(struct inj_timeline *t, struct thr *h, uint64_t end, bool cut)
{
	double wall;

	if (!h->open)
		return;
	if (end < h->start)
		end = h->start;
	wall = (double)(end - h->start);
	/*
	 * Cut with work still running: the next epoch carries it (its streams
	 * and their ready times stay), so nothing is spilled (spill_ns stays 0:
	 * it is for profiles written before carried nodes existed).
	 */
	count_launch_calls(t, h);
	if (h->perturbed && !h->incomplete && h->n_raw && defer_epoch(t, h, end, cut)) {
		/* Reconstructed at the end (inj_timeline_finish()). */
	} else if (h->perturbed) {
		t->tl->unexplained[GPUPROJ_TL_WHY_PROFILED].epochs++;
		t->tl->unexplained[GPUPROJ_TL_WHY_PROFILED].ns += wall;
	} else if (h->incomplete || !h->n_raw) {
		t->tl->unexplained[GPUPROJ_TL_WHY_INCOMPLETE].epochs++;
		t->tl->unexplained[GPUPROJ_TL_WHY_INCOMPLETE].ns += wall;
	} else {
		struct gpuproj_tl_pattern pat;

		/* Folded into the thread's own nodes: no allocation unless the pattern is new. */
		if (gpuproj_tl_epoch_fold_into(h->raw, h->n_raw, h->start, end, h->nodes, &pat) !=
		    GPUPROJ_OK) {
			oom(t);
		} else {
			pat.thread = h->index;
			pat.cut = cut;
			if (gpuproj_timeline_add(t->tl, &pat, GPUPROJ_TL_MAX_PATTERNS,
						 GPUPROJ_TL_MAX_TOTAL_NODES, NULL) != GPUPROJ_OK)
				oom(t);
		}
	}
	h->open = false;
	h->perturbed = h->incomplete = false;
	h->n_raw = 0;
	/* Cut while work runs: the streams (slots, ready times) and that work go on. */
	h->carry = cut && h->outstanding > end;
	if (!h->carry) {
		h->n_streams = 0;
		h->outstanding = 0;
	}
	h->n_events = 0;
	h->n_gpool = 0;
	h->start = end;
	h->last = end;
}

/* What one call's records say it did. */
struct took {
	size_t n_ops, n_kernels, n_copies, n_memsets;
	const struct inj_op_record *first;
	uint64_t op_start, op_end, bytes;
	bool graph, perturbed;
	const struct inj_sync_record *sync;
	const struct inj_event_record *event;
	struct gpuproj_tl_graph_kernel *gk;	/* in the thread's pool */
	size_t n_gk;
};

static void
took_dev(struct thr *h, struct took *w, const struct dev *d)
{
	const struct inj_op_record *o = &d->u.op;
	size_t i;

	if (d->type == DEV_SYNC) {
		if (!w->sync)
			w->sync = &d->u.sync;
		return;
	}
	if (d->type == DEV_EVENT) {
		if (!w->event)
			w->event = &d->u.event;
		return;
	}
	if (!w->n_ops++) {
		w->first = o;
		w->op_start = o->start;
		w->op_end = o->end;
		if (!w->gk)
			w->gk = h->gpool + h->n_gpool;
	}
	if (o->start < w->op_start)
		w->op_start = o->start;
	if (o->end > w->op_end)
		w->op_end = o->end;
	w->perturbed |= o->perturbed;
	w->graph |= o->graph_id != 0;
	w->bytes += o->bytes;
	if (o->kind == INJ_OP_COPY)
		w->n_copies++;
	else if (o->kind == INJ_OP_MEMSET)
		w->n_memsets++;
	if (o->kind != INJ_OP_KERNEL || !o->k)
		return;
	w->n_kernels++;
	/* A graph's (or a call's several) kernels, by record, for scaling. */
	for (i = 0; i < w->n_gk; i++) {
		if (w->gk[i].kernel == o->k)
			break;
	}
	if (i == w->n_gk) {
		if (w->n_gk == GPUPROJ_TL_MAX_GRAPH_KERNELS || h->n_gpool + 1 > GRAPH_POOL)
			return; /* kept unscaled, inside the span */
		memset(&w->gk[i], 0, sizeof(w->gk[i]));
		w->gk[i].kernel = o->k;
		w->n_gk++;
		h->n_gpool++;
	}
	w->gk[i].launches++;
	if (!w->gk[i].ns.n)
		w->gk[i].ns.n = 1;
	w->gk[i].ns.sum += (double)(o->end - o->start);
	w->gk[i].ns.mean = w->gk[i].ns.min = w->gk[i].ns.max = w->gk[i].ns.sum;
}

/*
 * Open the thread's next epoch. After a cut: one carried node
 * per stream still busy, on its slot, from the epoch's start to when its
 * work ends (room left for at least one call).
 */
static void
open_epoch(struct thr *h)
{
	size_t s;

	h->open = true;
	h->perturbed = h->incomplete = false;
	for (s = 0; h->carry && s < h->n_streams && h->n_raw + 2 < GPUPROJ_TL_MAX_NODES; s++) {
		struct gpuproj_tl_raw *r;

		if (h->streams[s].ready <= h->start)
			continue;
		r = &h->raw[h->n_raw++];
		memset(r, 0, sizeof(*r));
		r->op = GPUPROJ_TL_CARRY;
		r->stream = (uint16_t)s;
		r->event = GPUPROJ_TL_NONE;
		r->legacy = h->streams[s].legacy;
		r->call_start = r->call_end = r->op_start = h->start;
		r->op_end = h->streams[s].ready;
	}
	h->carry = false;
}

/*
 * The thread's last epoch at exit, whose calls came after its last wait:
 * when its GPU work outlasts them (a thread that never synchronises), the
 * epoch ends with that work, by a device synchronisation at its end: the
 * wait the process's exit makes (libproj.so's own at exit, and the
 * context's destruction [GPU?]). Without it that work was time outside any
 * epoch, kept at the source's time on every target.
 */
static void
close_last_epoch(struct inj_timeline *t, struct thr *h)
{
	uint64_t end;

	if (!h->open && h->carry && h->outstanding > h->start)
		open_epoch(h);
	if (!h->open)
		return;
	end = h->n_raw ? h->raw[h->n_raw - 1].call_end : h->start;
	if (h->outstanding > end && h->n_raw < GPUPROJ_TL_MAX_NODES) {
		struct gpuproj_tl_raw *r = &h->raw[h->n_raw++];

		memset(r, 0, sizeof(*r));
		r->op = GPUPROJ_TL_SYNC_DEVICE;
		r->stream = r->event = GPUPROJ_TL_NONE;
		r->call_start = end;
		r->call_end = end = h->outstanding;
	}
	close_epoch(t, h, end, false);
}

/*
 * Take the group of calls q[qh, qh + n) (the first and those nested in it):
 * one node of the thread's epoch.
 */
static void
take(struct inj_timeline *t, struct thr *h, size_t n)
{
	const struct call *c = &h->q[h->qh];
	struct gpuproj_tl_raw *r;
	struct took w = { 0 };
	uint8_t expect = 0;
	uint32_t heads[64];
	size_t i, nh = 0;
	bool blocking = false;

	/* Gather the group's records (and remember the chains to free them after). */
	for (i = 0; i < n; i++) {
		size_t j = map_find(t, h->q[h->qh + i].corr);

		expect |= h->q[h->qh + i].expect;
		if (j == SIZE_MAX)
			continue;
		if (nh < 64) {
			uint32_t d;

			heads[nh++] = t->heads[j];
			for (d = t->heads[j]; d; d = t->pool[d - 1].next)
				took_dev(h, &w, &t->pool[d - 1]);
		} else {
			dev_free_chain(t, t->heads[j]);
		}
		map_remove(t, j);
	}
	if (!h->seen) {
		h->seen = true;
		h->first = c->start;
		h->start = c->start;
	}
	if (!h->open)
		open_epoch(h);
	if (((expect & INJ_EXPECT_OP) && !w.n_ops) || ((expect & INJ_EXPECT_SYNC) && !w.sync))
		h->incomplete = true;
	h->perturbed |= w.perturbed;
	h->pert[h->n_raw] = w.perturbed;
	r = &h->raw[h->n_raw];
	memset(r, 0, sizeof(*r));
	r->stream = r->event = GPUPROJ_TL_NONE;
	r->call_start = c->start;
	r->call_end = c->end;
	if (w.n_ops) {
		const struct inj_op_record *o = w.first;

		r->stream = stream_slot(h, o->ctx, o->stream);
		r->legacy = is_legacy(t, o->ctx, o->stream);
		r->op_start = w.op_start;
		r->op_end = w.op_end;
		if (w.graph || (w.n_ops > 1 && !w.perturbed && w.n_kernels)) {
			r->op = GPUPROJ_TL_GRAPH;
			r->graph = w.gk;
			r->n_graph = w.n_gk;
		} else if (w.n_kernels) {
			r->op = GPUPROJ_TL_KERNEL;
			r->kernel = o->k;
		} else if (w.n_copies && o->kind == INJ_OP_COPY) {
			/*
			 * Blocking only when it also ended by its call's return
			 * (gpuproj_tl_copy_blocks(): a pageable H2D cudaMemcpy
			 * returns once staged). [GPU?] that CUPTI's record and
			 * callback timestamps order a blocking copy's end before
			 * its call's return.
			 */
			r->op = GPUPROJ_TL_COPY;
			r->copy = (enum gpuproj_copy_kind)o->copy_kind;
			r->pinned = o->pinned;
			r->bytes = w.bytes;
			r->blocking = blocking = gpuproj_tl_copy_blocks(o->async, w.op_end, c->end);
		} else if (w.n_memsets) {
			r->op = GPUPROJ_TL_MEMSET;
			r->bytes = w.bytes;
			r->blocking = blocking = gpuproj_tl_copy_blocks(o->async, w.op_end, c->end);
		} else {
			/* A kernel record without a profile record (out of memory there): a call. */
			r->op = GPUPROJ_TL_CALL;
			r->stream = GPUPROJ_TL_NONE;
		}
		if (r->op != GPUPROJ_TL_CALL && w.op_end > h->outstanding)
			h->outstanding = w.op_end;
		if (r->op != GPUPROJ_TL_CALL && r->stream != GPUPROJ_TL_NONE) {
			if (w.op_end > h->streams[r->stream].ready)
				h->streams[r->stream].ready = w.op_end;
			h->streams[r->stream].legacy = r->legacy;
		}
	} else if (w.sync) {
		const struct inj_sync_record *s = w.sync;

		blocking = s->kind != INJ_SYNC_WAIT_EVENT;
		switch (s->kind) {
		case INJ_SYNC_DEVICE:
			r->op = GPUPROJ_TL_SYNC_DEVICE;
			break;
		case INJ_SYNC_STREAM:
			r->op = GPUPROJ_TL_SYNC_STREAM;
			r->stream = stream_slot(h, s->ctx, s->stream);
			r->legacy = is_legacy(t, s->ctx, s->stream);
			break;
		case INJ_SYNC_EVENT:
			r->op = GPUPROJ_TL_SYNC_EVENT;
			r->event = event_slot(h, s->event, false);
			break;
		case INJ_SYNC_WAIT_EVENT:
		default:
			r->op = GPUPROJ_TL_EVENT_WAIT;
			r->stream = stream_slot(h, s->ctx, s->stream);
			r->legacy = is_legacy(t, s->ctx, s->stream);
			r->event = event_slot(h, s->event, false);
			break;
		}
	} else if (w.event) {
		r->op = GPUPROJ_TL_EVENT_RECORD;
		r->stream = stream_slot(h, w.event->ctx, w.event->stream);
		r->legacy = is_legacy(t, w.event->ctx, w.event->stream);
		r->event = event_slot(h, w.event->event, true);
	} else {
		r->op = GPUPROJ_TL_CALL;
	}
	h->n_raw++;
	for (i = 0; i < nh; i++)
		dev_free_chain(t, heads[i]);
	h->qh += n;
	t->n_calls -= n;
	h->waited = 0;
	/* The host waited and nothing of the epoch runs any more: the epoch ends here. */
	if (blocking && h->outstanding <= c->end)
		close_epoch(t, h, c->end, false);
	else if (h->n_raw == GPUPROJ_TL_MAX_NODES)
		close_epoch(t, h, c->end, true);
}

/* Whether the group's records have arrived. */
static bool
group_ready(const struct inj_timeline *t, const struct thr *h, size_t n)
{
	uint8_t expect = 0, have = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		size_t j = map_find(t, h->q[h->qh + i].corr);
		uint32_t d;

		expect |= h->q[h->qh + i].expect;
		if (j == SIZE_MAX)
			continue;
		for (d = t->heads[j]; d; d = t->pool[d - 1].next)
			have |= t->pool[d - 1].type == DEV_OP ? INJ_EXPECT_OP
				: t->pool[d - 1].type == DEV_SYNC ? INJ_EXPECT_SYNC : 0;
	}
	return (expect & have) == expect;
}

static uint32_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

/*
 * How a thread's calls are taken (timeline-rec.h):
 *   TAKE_TICK     on the worker's tick, calls that arrived INJ_TL_SETTLE_MS
 *                 ago or more (buffers of one thread may be delivered out of
 *                 order by different threads: the call a driver call is
 *                 nested in can come after it), when ready;
 *   TAKE_PRESSURE the queues past their bounds: ready calls INJ_TL_PRESSURE_MS old;
 *   TAKE_ALL      at exit, or still past the bounds: every call, ready or not
 *                 (a missing record makes its epoch incomplete).
 */
static void
process_thread(struct inj_timeline *t, struct thr *h, enum take_mode mode, size_t limit)
{
	size_t taken = 0;

	while (h->qh < h->qn && taken < limit) {
		const struct call *c = &h->q[h->qh];
		size_t n = 1;

		/* A runtime call and the driver calls nested in it are one call. */
		while (c->runtime && h->qh + n < h->qn && !h->q[h->qh + n].runtime &&
		       h->q[h->qh + n].start >= c->start && h->q[h->qh + n].end <= c->end)
			n++;
		if (mode != TAKE_ALL) {
			/* A later call began after this one ended: anything enclosing it is here too. */
			if (h->qh + n >= h->qn)
				break;
			if (now_ms() - c->arrived_ms <
			    (mode == TAKE_TICK ? INJ_TL_SETTLE_MS : INJ_TL_PRESSURE_MS))
				break;
			if (!group_ready(t, h, n)) {
				if (mode == TAKE_TICK)
					h->waited++;
				if (h->waited < INJ_TL_WAIT_TICKS)
					break;
			}
		}
		take(t, h, n);
		taken += n;
	}
}

static bool
over_bounds(const struct inj_timeline *t, bool half)
{
	size_t d = half ? 2 : 1;

	return t->n_calls > INJ_TL_MAX_CALLS / d || t->n_dev > INJ_TL_MAX_RECORDS / d;
}

static void
process_locked(struct inj_timeline *t, bool tick, bool final)
{
	size_t i;

	if (tick)
		t->tick++;
	for (i = 0; (tick || final) && i < t->n_thr; i++)
		process_thread(t, t->thr[i], final ? TAKE_ALL : TAKE_TICK, SIZE_MAX);
	/* One thread's queue past its share: its ready calls now. */
	for (i = 0; !final && i < t->n_thr; i++) {
		struct thr *h = t->thr[i];

		if (h->qn - h->qh > INJ_TL_MAX_CALLS / 4)
			process_thread(t, h, TAKE_PRESSURE, h->qn - h->qh - INJ_TL_MAX_CALLS / 8);
	}
	/* Past the bounds: ready calls first, then the oldest whatever arrived. */
	if (!final && over_bounds(t, false)) {
		for (i = 0; i < t->n_thr && over_bounds(t, true); i++)
			process_thread(t, t->thr[i], TAKE_PRESSURE, SIZE_MAX);
		while (over_bounds(t, true)) {
			size_t before = t->n_calls;

			for (i = 0; i < t->n_thr; i++)
				process_thread(t, t->thr[i], TAKE_ALL, 64);
			if (t->n_calls == before)
				break; /* records without calls: the purge drops them */
		}
	}
	if (tick)
		purge_orphans(t);
}

void
inj_timeline_batch_begin(struct inj_timeline *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->batch_ms = now_ms();
}

void
inj_timeline_batch_end(struct inj_timeline *t)
{
	if (!t)
		return;
	if (!t->finished && !t->oom)
		process_locked(t, false, false);
	pthread_mutex_unlock(&t->lock);
}

void
inj_timeline_process(struct inj_timeline *t, bool tick)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	if (!t->finished && !t->oom)
		process_locked(t, tick, false);
	pthread_mutex_unlock(&t->lock);
}

void
inj_timeline_mark_end(struct inj_timeline *t)
{
	if (!t || !t->now || !exit_lock(t))
		return;
	if (!t->t_end)
		t->t_end = t->now();
	pthread_mutex_unlock(&t->lock);
}

static int
cmp_span(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

bool
inj_timeline_finish(struct inj_timeline *t, struct gpuproj_profile *p)
{
	uint64_t (*spans)[2], lo = UINT64_MAX, hi = 0, end;
	double span = 0, cur_lo = 0, cur_hi = 0, blocking = 0, *blk;
	size_t i, n = 0;

	if (!t)
		return true;
	if (!exit_lock(t))
		return false;
	if (t->finished) {
		pthread_mutex_unlock(&t->lock);
		return true;
	}
	t->finished = true;
	if (t->oom) {
		pthread_mutex_unlock(&t->lock);
		return true;
	}
	process_locked(t, false, true);
	spans = calloc(t->n_thr ? t->n_thr : 1, sizeof(*spans));
	blk = calloc(t->n_thr ? t->n_thr : 1, sizeof(*blk));
	/* The threads' last calls, after their last wait: an epoch ending with them. */
	for (i = 0; i < t->n_thr; i++) {
		if (t->thr[i]->seen)
			close_last_epoch(t, t->thr[i]);
	}
	/*
	 * Epochs with a profiled launch: reconstructed, replay's blocking left
	 * out of the times — of each thread's own span (threads block at the
	 * same time: the sum is not taken from their union).
	 */
	reconstruct_all(t, &blocking, blk);
	for (i = 0; i < t->n_thr; i++) {
		struct thr *h = t->thr[i];

		if (!h->seen)
			continue;
		if (spans) {
			double b = blk ? blk[i] : 0, len = (double)(h->last - h->first);

			spans[n][0] = h->first;
			spans[n][1] = h->last - (uint64_t)(b < len ? b : len);
			n++;
		}
		if (h->first < lo)
			lo = h->first;
		if (h->last > hi)
			hi = h->last;
	}
	if (spans) {
		qsort(spans, n, sizeof(*spans), cmp_span);
		for (i = 0; i < n; i++) {
			if (i == 0 || (double)spans[i][0] > cur_hi) {
				span += cur_hi - cur_lo;
				cur_lo = (double)spans[i][0];
				cur_hi = (double)spans[i][1];
			} else if ((double)spans[i][1] > cur_hi) {
				cur_hi = (double)spans[i][1];
			}
		}
		span += cur_hi - cur_lo;
		free(spans);
	}
	free(blk);
	t->tl->threads = (uint32_t)t->n_thr;
	t->tl->span_ns = span;
	t->tl->unexplained[GPUPROJ_TL_WHY_THREADS].epochs = t->extra_calls;
	t->tl->unexplained[GPUPROJ_TL_WHY_THREADS].ns = t->extra_ns;
	for (i = 0; t->extra && i < EXTRA_THREADS; i++) {
		const struct extra_thr *x = &t->extra[i];

		if (!x->used)
			continue;
		/* Its synchronisations end epochs; calls after the last one are one more. */
		t->tl->unexplained[GPUPROJ_TL_WHY_THREADS].epochs +=
			x->syncs + (!x->syncs || x->last > x->sync_end);
		t->tl->unexplained[GPUPROJ_TL_WHY_THREADS].ns += (double)(x->last - x->first);
	}
	end = t->t_end ? t->t_end : hi;
	if (n && t->t_start && t->t_start < lo)
		lo = t->t_start;
	if (end < hi)
		end = hi;
	t->tl->wall_ns = n ? (double)(end - lo) : 0;
	t->tl->wall_ns = t->tl->wall_ns > blocking ? t->tl->wall_ns - blocking : 0;
	if (t->tl->wall_ns < span)
		t->tl->wall_ns = span;
	if (t->dropped_orphans)
		inj_debug("timeline: %llu GPU records had no API call and were dropped",
			  (unsigned long long)t->dropped_orphans);
	{
		size_t qcap = 0;

		for (i = 0; i < t->n_thr; i++)
			qcap = t->thr[i]->qcap > qcap ? t->thr[i]->qcap : qcap;
		inj_debug("timeline: %zu patterns, %zu threads, record pool %zu, map %zu slots, "
			  "largest call queue %zu", t->tl->n_patterns, t->n_thr, t->cap_pool,
			  t->mask + 1, qcap);
	}
	if (n || t->tl->n_patterns) {
		gpuproj_profile_set_timeline(p, t->tl);
		t->tl = NULL;
	}
	pthread_mutex_unlock(&t->lock);
	return true;
}
