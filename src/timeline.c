/* SPDX-License-Identifier: MIT */
/*
 * The whole-run timeline (include/gpuproj/timeline.h): patterns of epochs,
 * their folding and bounds, and the replay onto a target.
 *
 * The replay follows Zhu, Pekhimenko et al., "Daydream: Accurately
 * Estimating the Efficacy of Optimizations for DNN Training", USENIX ATC
 * 2020 (a graph of host and device tasks with their dependencies, replayed
 * in order with each task's duration replaced), and Yu, Gao, Golikov,
 * Pekhimenko, "Habitat: A Runtime-Based Computational Performance
 * Predictor for Deep Neural Network Training", USENIX ATC 2021 (each
 * measured GPU operation scaled by its projection onto the target, the rest
 * kept). What differs, and why: both replay one DNN training iteration
 * given to them; here any CUDA application is recorded, so its epochs are
 * found at the host's waits, folded into patterns with statistics (memory
 * bounded by distinct patterns, not by run length) and replayed at their
 * mean times, with the error bound of timeline.h.
 *
 * The rules of one replay (timeline.h, "Replay"), in the same words as
 * gpuproj_tl_epoch_fold() derives each node's times from a measurement, so
 * that the replay with the source's times gives the measured wall time
 * back:
 *
 *   host:     h += gap                        (the call starts at h)
 *   GPU op:   start = max(h, pre(s)) + lat;   end = start + dur;   ready[s] = end
 *             blocking: h = max(h, end) + call,  else h += call
 *   carried:  ready[s] = h + lat + dur        (work of the cut epoch before; lat 0)
 *   record:   ev[e] = pre(s);                 h += call
 *   wait:     ready[s] = max(ready[s], ev[e]); h += call
 *   sync:     h = max(h, done) + call         (done: pre(s), every stream, ev[e])
 *   pre(s) = max(ready[s], legacy)  for a blocking stream,
 *            max(every ready, legacy) for the legacy default stream,
 *   where legacy is the end of the last op on the legacy default stream
 *   (CUDA Runtime API, "Stream synchronization behavior").
 *
 * Thread safety: reentrant; a timeline belongs to one profile.
 */
#include "config.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/model.h>
#include <gpuproj/target.h>
#include <gpuproj/timeline.h>

#include "timeline-private.h"
#include "util.h"

static const char *const op_names[GPUPROJ_TL_OP_COUNT] = {
	"call", "kernel", "copy", "memset", "graph", "event_record", "event_wait", "sync_device",
	"sync_stream", "sync_event", "carried",
};
static const char *const copy_names[GPUPROJ_COPY_KIND_COUNT] = { "h2d", "d2h", "d2d", "p2p",
								   "h2h" };
static const char *const why_names[GPUPROJ_TL_WHY_COUNT] = { "profiled", "incomplete",
							       "overflow", "threads" };

const char *
gpuproj_tl_op_name(enum gpuproj_tl_op op)
{
	return (unsigned)op < GPUPROJ_TL_OP_COUNT ? op_names[op] : NULL;
}

const char *
gpuproj_copy_kind_name(enum gpuproj_copy_kind k)
{
	return (unsigned)k < GPUPROJ_COPY_KIND_COUNT ? copy_names[k] : NULL;
}

const char *
gpuproj_tl_why_name(enum gpuproj_tl_why w)
{
	return (unsigned)w < GPUPROJ_TL_WHY_COUNT ? why_names[w] : NULL;
}

bool
gpuproj_tl_op_gpu(enum gpuproj_tl_op op)
{
	return op == GPUPROJ_TL_KERNEL || op == GPUPROJ_TL_COPY || op == GPUPROJ_TL_MEMSET ||
	       op == GPUPROJ_TL_GRAPH || op == GPUPROJ_TL_CARRY;
}

/* ---- life cycle ---- */

struct gpuproj_timeline *
gpuproj_timeline_new(void)
{
	struct gpuproj_timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->ranks = 1;
	tl->wall_ns = NAN;
	return tl;
}

void
gpuproj_tl_pattern_clear(struct gpuproj_tl_pattern *pat)
{
	size_t i;

	if (!pat)
		return;
	for (i = 0; i < pat->n_nodes; i++)
		free(pat->nodes[i].graph);
	free(pat->nodes);
	memset(pat, 0, sizeof(*pat));
}

struct gpuproj_timeline *
gpuproj_timeline_free(struct gpuproj_timeline *tl)
{
	size_t i;

	if (!tl)
		return NULL;
	for (i = 0; i < tl->n_patterns; i++)
		gpuproj_tl_pattern_clear(&tl->patterns[i]);
	free(tl->patterns);
	free(tl);
	return NULL;
}

/* A deep copy of a pattern (nodes and graph kernels). */
int
timeline_pattern_copy(struct gpuproj_tl_pattern *dst, const struct gpuproj_tl_pattern *src)
{
	size_t i;

	*dst = *src;
	dst->nodes = NULL;
	dst->n_nodes = 0;
	if (!src->n_nodes)
		return GPUPROJ_OK;
	dst->nodes = calloc(src->n_nodes, sizeof(*dst->nodes));
	if (!dst->nodes)
		return GPUPROJ_E_NOMEM;
	dst->n_nodes = src->n_nodes;
	for (i = 0; i < src->n_nodes; i++) {
		struct gpuproj_tl_node *d = &dst->nodes[i];

		*d = src->nodes[i];
		d->graph = NULL;
		d->n_graph = 0;
		if (!src->nodes[i].n_graph)
			continue;
		d->graph = malloc(src->nodes[i].n_graph * sizeof(*d->graph));
		if (!d->graph) {
			gpuproj_tl_pattern_clear(dst);
			return GPUPROJ_E_NOMEM;
		}
		memcpy(d->graph, src->nodes[i].graph, src->nodes[i].n_graph * sizeof(*d->graph));
		d->n_graph = src->nodes[i].n_graph;
	}
	return GPUPROJ_OK;
}

/* ---- sums and bounds ---- */

double
gpuproj_timeline_explained_ns(const struct gpuproj_timeline *tl)
{
	double s = 0;
	size_t i;

	for (i = 0; tl && i < tl->n_patterns; i++)
		s += tl->patterns[i].wall_ns.sum;
	return s;
}

double
gpuproj_timeline_unexplained_ns(const struct gpuproj_timeline *tl)
{
	double s = 0;
	size_t i;

	for (i = 0; tl && i < GPUPROJ_TL_WHY_COUNT; i++)
		s += tl->unexplained[i].ns;
	return s;
}

bool
timeline_pattern_waits(const struct gpuproj_tl_pattern *p)
{
	size_t j;

	for (j = 0; j < p->n_nodes; j++) {
		const struct gpuproj_tl_node *n = &p->nodes[j];

		if (n->op == GPUPROJ_TL_SYNC_DEVICE || n->op == GPUPROJ_TL_SYNC_STREAM ||
		    n->op == GPUPROJ_TL_SYNC_EVENT || (gpuproj_tl_op_gpu(n->op) && n->blocking))
			return true;
	}
	return false;
}

double
gpuproj_timeline_bound_ns(const struct gpuproj_timeline *tl)
{
	double s = 0;
	size_t i, j;

	if (!tl)
		return 0;
	for (i = 0; i < tl->n_patterns; i++) {
		const struct gpuproj_tl_pattern *p = &tl->patterns[i];
		bool waits = timeline_pattern_waits(p);
		double per = 0;

		for (j = 0; j < p->n_nodes; j++) {
			const struct gpuproj_tl_node *n = &p->nodes[j];

			per += gpuproj_stats_stddev(&n->gap_ns) + gpuproj_stats_stddev(&n->call_ns);
			if (waits)
				per += gpuproj_stats_stddev(&n->lat_ns) +
				       gpuproj_stats_stddev(&n->dur_ns);
		}
		s += per * (double)p->wall_ns.n;
	}
	return s + (isfinite(tl->spill_ns) ? tl->spill_ns : 0);
}

/* ---- the replay's state: streams, events, the legacy default stream ---- */

/*
 * The work of a replay is bounded by its nodes, not by the
 * slot numbers they carry. Slots (0 to GPUPROJ_TL_MAX_SLOT) are renumbered
 * to those the pattern uses, in order (a pattern of n nodes has at most n
 * streams and n events), and "every stream's work" is a running maximum
 * updated as ops end, so a synchronisation costs O(1): before, one node on
 * stream 65534 made each synchronisation scan 65,535 slots (a 230 KB
 * profile of 4,095 of them took 2.2 s per target).
 */
#define RSTATE_SMALL 256

struct rstate {
	double *ready;		/* [n_streams], by dense stream index */
	double *ev;		/* [n_events], by dense event index */
	uint16_t *sidx, *eidx;	/* per node: its dense stream and event index, or NONE */
	size_t n_streams, n_events;
	double legacy;		/* end of the last op on the legacy default stream */
	double all;		/* the largest ready time of any stream (running maximum) */
	/* up to RSTATE_SMALL streams, events and nodes without an allocation */
	double small_ready[RSTATE_SMALL], small_ev[RSTATE_SMALL];
	uint16_t small_sidx[RSTATE_SMALL], small_eidx[RSTATE_SMALL];
};

static int
cmp_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return (x > y) - (x < y);
}

/*
 * The slot at element i of a strided array of nodes (struct gpuproj_tl_raw
 * or struct gpuproj_tl_node: `stride` bytes apart).
 */
static uint16_t
slot_at(const uint16_t *first, size_t i, size_t stride)
{
	uint16_t v;

	memcpy(&v, (const char *)first + i * stride, sizeof(v));
	return v;
}

/* Dense indices of the n slots at `first` (stride bytes apart) into idx[n]; the count. */
static size_t
renumber(const uint16_t *first, size_t n, size_t stride, uint16_t *idx, uint16_t *scratch)
{
	size_t i, m = 0, u = 0;

	for (i = 0; i < n; i++) {
		uint16_t v = slot_at(first, i, stride);

		if (v != GPUPROJ_TL_NONE)
			scratch[m++] = v;
	}
	qsort(scratch, m, sizeof(*scratch), cmp_u16);
	for (i = 0; i < m; i++) {
		if (!u || scratch[u - 1] != scratch[i])
			scratch[u++] = scratch[i];
	}
	for (i = 0; i < n; i++) {
		uint16_t v = slot_at(first, i, stride);
		size_t lo = 0, hi = u;

		if (v == GPUPROJ_TL_NONE) {
			idx[i] = GPUPROJ_TL_NONE;
			continue;
		}
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (scratch[mid] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		idx[i] = (uint16_t)lo;
	}
	return u;
}

static void
rstate_free(struct rstate *st)
{
	if (st->ready != st->small_ready)
		free(st->ready);
	if (st->ev != st->small_ev)
		free(st->ev);
	if (st->sidx != st->small_sidx)
		free(st->sidx);
	if (st->eidx != st->small_eidx)
		free(st->eidx);
}

static int
rstate_init(struct rstate *st, const uint16_t *streams, const uint16_t *events, size_t n,
	    size_t stride)
{
	uint16_t *scratch;

	memset(st, 0, sizeof(*st));
	/* n ≤ 65,536 nodes (gpuproj_timeline_validate()): dense indices fit uint16_t. */
	st->sidx = n <= RSTATE_SMALL ? st->small_sidx : malloc(n * sizeof(*st->sidx));
	st->eidx = n <= RSTATE_SMALL ? st->small_eidx : malloc(n * sizeof(*st->eidx));
	st->ready = n <= RSTATE_SMALL ? st->small_ready : calloc(n ? n : 1, sizeof(double));
	st->ev = n <= RSTATE_SMALL ? st->small_ev : calloc(n ? n : 1, sizeof(double));
	scratch = malloc((n ? n : 1) * sizeof(*scratch));
	if (!st->sidx || !st->eidx || !st->ready || !st->ev || !scratch) {
		free(scratch);
		rstate_free(st);
		return GPUPROJ_E_NOMEM;
	}
	st->n_streams = renumber(streams, n, stride, st->sidx, scratch);
	st->n_events = renumber(events, n, stride, st->eidx, scratch);
	free(scratch);
	return GPUPROJ_OK;
}

/* What work on dense stream s waits for (see the rules at the top). */
static double
pre_of(const struct rstate *st, uint16_t s, bool legacy)
{
	if (legacy || s == GPUPROJ_TL_NONE)
		return fmax(st->legacy, st->all);
	return fmax(st->legacy, st->ready[s]);
}

static double
all_done(const struct rstate *st)
{
	return fmax(st->legacy, st->all);
}

/* Dense stream s may start its work no earlier than t (an event wait). */
static void
ready_at_least(struct rstate *st, uint16_t s, double t)
{
	st->ready[s] = fmax(st->ready[s], t);
	st->all = fmax(st->all, st->ready[s]);
}

/* An op on dense stream s ended at `end`. */
static void
op_ended(struct rstate *st, uint16_t s, bool legacy, double end)
{
	if (s != GPUPROJ_TL_NONE)
		ready_at_least(st, s, end);
	if (legacy)
		st->legacy = fmax(st->legacy, end);
}

static double
nonneg(double x)
{
	return x > 0 ? x : 0;
}

/* ---- one measured epoch → a pattern of count 1 ---- */

static void
one(struct gpuproj_stats *s, double x)
{
	memset(s, 0, sizeof(*s));
	gpuproj_stats_add(s, x);
}

/* Both folds; `nodes` NULL: allocate (and copy graph arrays), else use it and borrow them. */
static int
fold(const struct gpuproj_tl_raw *raw, size_t n, uint64_t start, uint64_t end,
     struct gpuproj_tl_node *nodes, struct gpuproj_tl_pattern *out)
{
	struct rstate st;
	double prev;
	size_t i;

	if (!raw || !out || n == 0 || n > GPUPROJ_TL_MAX_NODES || end < start)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	if (rstate_init(&st, &raw[0].stream, &raw[0].event, n, sizeof(raw[0])))
		return GPUPROJ_E_NOMEM;
	out->nodes = nodes ? nodes : calloc(n, sizeof(*out->nodes));
	if (!out->nodes) {
		rstate_free(&st);
		return GPUPROJ_E_NOMEM;
	}
	if (nodes)
		memset(nodes, 0, n * sizeof(*nodes));
	out->n_nodes = n;
	prev = 0;
	for (i = 0; i < n; i++) {
		const struct gpuproj_tl_raw *r = &raw[i];
		struct gpuproj_tl_node *d = &out->nodes[i];
		/* Relative to the epoch's start; a call before it (clocks) starts with it. */
		double cs = r->call_start > start ? (double)(r->call_start - start) : 0;
		double ce = r->call_end > start ? (double)(r->call_end - start) : 0;
		double os = r->op_start > start ? (double)(r->op_start - start) : 0;
		double oe = r->op_end > start ? (double)(r->op_end - start) : 0;
		/* The dense stream and event of the replay's state (rstate_init()). */
		uint16_t S = st.sidx[i], E = st.eidx[i];
		double done;

		if (ce < cs)
			ce = cs;
		if (oe < os)
			oe = os;
		d->op = r->op;
		d->stream = r->stream;
		d->event = r->event;
		d->legacy = r->legacy;
		d->blocking = r->blocking;
		/* Only what applies to the op (what the JSON can hold; validate checks it). */
		d->copy = r->op == GPUPROJ_TL_COPY ? r->copy : GPUPROJ_COPY_H2D;
		d->pinned = r->op == GPUPROJ_TL_COPY && r->pinned &&
			    (r->copy == GPUPROJ_COPY_H2D || r->copy == GPUPROJ_COPY_D2H);
		d->bytes = r->op == GPUPROJ_TL_COPY || r->op == GPUPROJ_TL_MEMSET ? r->bytes : 0;
		d->kernel = r->op == GPUPROJ_TL_KERNEL ? r->kernel : NULL;
		if (r->n_graph && nodes) {
			d->graph = (struct gpuproj_tl_graph_kernel *)r->graph;
			d->n_graph = r->n_graph;
		} else if (r->n_graph) {
			d->graph = malloc(r->n_graph * sizeof(*d->graph));
			if (!d->graph) {
				rstate_free(&st);
				gpuproj_tl_pattern_clear(out);
				return GPUPROJ_E_NOMEM;
			}
			memcpy(d->graph, r->graph, r->n_graph * sizeof(*d->graph));
			d->n_graph = r->n_graph;
		}
		one(&d->gap_ns, nonneg(cs - prev));
		prev = ce;
		switch (r->op) {
		case GPUPROJ_TL_KERNEL:
		case GPUPROJ_TL_COPY:
		case GPUPROJ_TL_MEMSET:
		case GPUPROJ_TL_GRAPH:
			done = pre_of(&st, S, r->legacy);
			one(&d->lat_ns, nonneg(os - fmax(cs, done)));
			one(&d->dur_ns, oe - os);
			op_ended(&st, S, r->legacy, oe);
			one(&d->call_ns, r->blocking ? nonneg(ce - fmax(cs, oe)) : ce - cs);
			break;
		case GPUPROJ_TL_CARRY:
			/* Busy from the epoch's start (no wait, no latency) until oe. */
			one(&d->lat_ns, 0);
			one(&d->dur_ns, oe);
			op_ended(&st, S, r->legacy, oe);
			one(&d->call_ns, 0);
			break;
		case GPUPROJ_TL_EVENT_RECORD:
			if (E != GPUPROJ_TL_NONE)
				st.ev[E] = S == GPUPROJ_TL_NONE ? 0 : pre_of(&st, S, r->legacy);
			one(&d->call_ns, ce - cs);
			break;
		case GPUPROJ_TL_EVENT_WAIT:
			if (E != GPUPROJ_TL_NONE && S != GPUPROJ_TL_NONE)
				ready_at_least(&st, S, st.ev[E]);
			one(&d->call_ns, ce - cs);
			break;
		case GPUPROJ_TL_SYNC_STREAM:
			done = pre_of(&st, S, r->legacy);
			one(&d->call_ns, nonneg(ce - fmax(cs, done)));
			break;
		case GPUPROJ_TL_SYNC_DEVICE:
			one(&d->call_ns, nonneg(ce - fmax(cs, all_done(&st))));
			break;
		case GPUPROJ_TL_SYNC_EVENT:
			done = E != GPUPROJ_TL_NONE ? st.ev[E] : 0;
			one(&d->call_ns, nonneg(ce - fmax(cs, done)));
			break;
		case GPUPROJ_TL_CALL:
		case GPUPROJ_TL_OP_COUNT:
		default:
			one(&d->call_ns, ce - cs);
			break;
		}
	}
	rstate_free(&st);
	one(&out->wall_ns, (double)(end - start));
	return GPUPROJ_OK;
}

int
gpuproj_tl_epoch_fold(const struct gpuproj_tl_raw *raw, size_t n, uint64_t start, uint64_t end,
		      struct gpuproj_tl_pattern *out)
{
	return fold(raw, n, start, end, NULL, out);
}

int
gpuproj_tl_epoch_fold_into(const struct gpuproj_tl_raw *raw, size_t n, uint64_t start,
			   uint64_t end, struct gpuproj_tl_node *nodes,
			   struct gpuproj_tl_pattern *out)
{
	if (!nodes)
		return GPUPROJ_E_INVAL;
	return fold(raw, n, start, end, nodes, out);
}

/* ---- structure: equality and hash ---- */

static bool
node_same(const struct gpuproj_tl_node *a, const struct gpuproj_tl_node *b)
{
	size_t i;

	if (a->op != b->op || a->stream != b->stream || a->event != b->event ||
	    a->legacy != b->legacy || a->blocking != b->blocking || a->copy != b->copy ||
	    a->pinned != b->pinned || a->bytes != b->bytes || a->kernel != b->kernel ||
	    a->n_graph != b->n_graph)
		return false;
	for (i = 0; i < a->n_graph; i++) {
		if (a->graph[i].kernel != b->graph[i].kernel ||
		    a->graph[i].launches != b->graph[i].launches)
			return false;
	}
	return true;
}

bool
gpuproj_tl_pattern_same(const struct gpuproj_tl_pattern *a, const struct gpuproj_tl_pattern *b)
{
	size_t i;

	if (a->thread != b->thread || a->cut != b->cut || a->reconstructed != b->reconstructed ||
	    a->n_nodes != b->n_nodes)
		return false;
	for (i = 0; i < a->n_nodes; i++) {
		if (!node_same(&a->nodes[i], &b->nodes[i]))
			return false;
	}
	return true;
}

uint64_t
gpuproj_tl_pattern_hash(const struct gpuproj_tl_pattern *pat)
{
	uint64_t h = timeline_mix(0x243F6A8885A308D3ULL, (uint64_t)pat->thread << 1 | pat->cut);
	size_t i, j;

	if (pat->reconstructed)
		h = timeline_mix(h, 0x5245434F4E535452ULL); /* measured patterns hash as before */
	h = timeline_mix(h, pat->n_nodes);
	for (i = 0; i < pat->n_nodes; i++) {
		const struct gpuproj_tl_node *n = &pat->nodes[i];

		h = timeline_mix(h, (uint64_t)n->op | (uint64_t)n->stream << 8 | (uint64_t)n->event << 24 |
			      (uint64_t)n->legacy << 40 | (uint64_t)n->blocking << 41 |
			      (uint64_t)n->pinned << 42 | (uint64_t)n->copy << 43);
		h = timeline_mix(h, n->bytes);
		h = timeline_mix(h, (uint64_t)(uintptr_t)n->kernel);
		for (j = 0; j < n->n_graph; j++)
			h = timeline_mix(h, (uint64_t)(uintptr_t)n->graph[j].kernel ^
				       (uint64_t)n->graph[j].launches << 48);
	}
	return h ? h : 1;
}

/* ---- folding into a timeline ---- */

static void
node_merge(struct gpuproj_tl_node *a, const struct gpuproj_tl_node *b)
{
	size_t i;

	gpuproj_stats_merge(&a->gap_ns, &b->gap_ns);
	gpuproj_stats_merge(&a->call_ns, &b->call_ns);
	gpuproj_stats_merge(&a->lat_ns, &b->lat_ns);
	gpuproj_stats_merge(&a->dur_ns, &b->dur_ns);
	for (i = 0; i < a->n_graph && i < b->n_graph; i++)
		gpuproj_stats_merge(&a->graph[i].ns, &b->graph[i].ns);
}

static size_t
total_nodes(const struct gpuproj_timeline *tl)
{
	size_t i, n = 0;

	for (i = 0; i < tl->n_patterns; i++)
		n += tl->patterns[i].n_nodes;
	return n;
}

static void
unexplain(struct gpuproj_timeline *tl, enum gpuproj_tl_why why, const struct gpuproj_tl_pattern *p)
{
	tl->unexplained[why].epochs += p->wall_ns.n;
	tl->unexplained[why].ns += p->wall_ns.sum;
}

int
gpuproj_timeline_add(struct gpuproj_timeline *tl, const struct gpuproj_tl_pattern *pat,
		     size_t max_patterns, size_t max_nodes, bool *ret_folded)
{
	uint64_t key;
	size_t i;

	if (ret_folded)
		*ret_folded = false;
	if (!tl || !pat)
		return GPUPROJ_E_INVAL;
	key = gpuproj_tl_pattern_hash(pat);
	for (i = 0; i < tl->n_patterns; i++) {
		struct gpuproj_tl_pattern *p = &tl->patterns[i];
		size_t j;

		if (p->key != key || !gpuproj_tl_pattern_same(p, pat))
			continue;
		gpuproj_stats_merge(&p->wall_ns, &pat->wall_ns);
		for (j = 0; j < p->n_nodes; j++)
			node_merge(&p->nodes[j], &pat->nodes[j]);
		if (ret_folded)
			*ret_folded = true;
		return GPUPROJ_OK;
	}
	/*
	 * New and no room: a structure refused before (it recurs) evicts a
	 * pattern seen once; a first refusal is remembered and counted out.
	 */
	while (tl->n_patterns >= max_patterns || total_nodes(tl) + pat->n_nodes > max_nodes) {
		size_t victim = SIZE_MAX;
		bool again = false;

		for (i = 0; i < tl->n_ghost && i < GPUPROJ_TL_GHOSTS; i++)
			again |= tl->ghost[i] == key;
		for (i = 0; again && i < tl->n_patterns; i++) {
			if (tl->patterns[i].wall_ns.n <= 1) {
				victim = i;
				break;
			}
		}
		if (victim == SIZE_MAX || pat->n_nodes > max_nodes) {
			if (!again)
				tl->ghost[tl->n_ghost++ % GPUPROJ_TL_GHOSTS] = key;
			unexplain(tl, GPUPROJ_TL_WHY_OVERFLOW, pat);
			return GPUPROJ_OK;
		}
		unexplain(tl, GPUPROJ_TL_WHY_OVERFLOW, &tl->patterns[victim]);
		gpuproj_tl_pattern_clear(&tl->patterns[victim]);
		memmove(&tl->patterns[victim], &tl->patterns[victim + 1],
			(tl->n_patterns - victim - 1) * sizeof(tl->patterns[0]));
		tl->n_patterns--;
	}
	{
		struct gpuproj_tl_pattern *v = realloc(tl->patterns,
						       (tl->n_patterns + 1) * sizeof(*v));

		if (!v)
			return GPUPROJ_E_NOMEM;
		tl->patterns = v;
		if (timeline_pattern_copy(&v[tl->n_patterns], pat))
			return GPUPROJ_E_NOMEM;
		v[tl->n_patterns].key = key;
		tl->n_patterns++;
	}
	if (ret_folded)
		*ret_folded = true;
	return GPUPROJ_OK;
}

/* ---- replay ---- */

enum { CAT_HOST, CAT_KERNEL, CAT_COPY, CAT_COUNT };

struct mark {
	double t;
	int cat;
	int d; /* +1 begins, -1 ends */
};

static int
cmp_mark(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d; /* ends before begins at the same instant */
}

static void
mark_add(struct mark *m, size_t *n, double a, double b, int cat)
{
	if (!(b > a))
		return;
	m[(*n)++] = (struct mark){ a, cat, +1 };
	m[(*n)++] = (struct mark){ b, cat, -1 };
}

int
gpuproj_timeline_replay(const struct gpuproj_tl_pattern *pat, const double *dur,
			struct gpuproj_tl_parts *out)
{
	return gpuproj_timeline_replay_spans(pat, dur, out, NULL);
}

int
gpuproj_timeline_replay_spans(const struct gpuproj_tl_pattern *pat, const double *dur,
			      struct gpuproj_tl_parts *out, struct gpuproj_tl_span *spans)
{
	struct rstate st;
	struct mark *m;
	size_t i, nm = 0;
	double h = 0;

	if (!pat || !out)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	if (!pat->n_nodes)
		return GPUPROJ_OK;
	if (rstate_init(&st, &pat->nodes[0].stream, &pat->nodes[0].event, pat->n_nodes,
			sizeof(pat->nodes[0])))
		return GPUPROJ_E_NOMEM;
	m = malloc(6 * pat->n_nodes * sizeof(*m));
	if (!m) {
		rstate_free(&st);
		return GPUPROJ_E_NOMEM;
	}
	for (i = 0; i < pat->n_nodes; i++) {
		const struct gpuproj_tl_node *n = &pat->nodes[i];
		double gap = n->gap_ns.mean, call = n->call_ns.mean, cs, done, start, end, d;
		uint16_t S = st.sidx[i], E = st.eidx[i];

		mark_add(m, &nm, h, h + gap, CAT_HOST);
		h += gap;
		cs = h;
		if (spans)
			spans[i] = (struct gpuproj_tl_span){ cs, cs, NAN, NAN };
		out->host_ns += gap + call;
		switch (n->op) {
		case GPUPROJ_TL_KERNEL:
		case GPUPROJ_TL_COPY:
		case GPUPROJ_TL_MEMSET:
		case GPUPROJ_TL_GRAPH:
			d = dur && isfinite(dur[i]) ? fmax(dur[i], 0) : n->dur_ns.mean;
			done = pre_of(&st, S, n->legacy);
			start = fmax(cs, done) + n->lat_ns.mean;
			end = start + d;
			if (spans) {
				spans[i].op_start = start;
				spans[i].op_end = end;
			}
			op_ended(&st, S, n->legacy, end);
			if (n->op == GPUPROJ_TL_KERNEL || n->op == GPUPROJ_TL_GRAPH) {
				out->kernel_ns += d;
				mark_add(m, &nm, start, end, CAT_KERNEL);
			} else {
				out->copy_ns += d;
				mark_add(m, &nm, start, end, CAT_COPY);
			}
			if (n->blocking)
				h = fmax(cs, end);
			break;
		case GPUPROJ_TL_CARRY:
			/*
			 * The previous epoch's work: its stream busy from now; counted in
			 * that epoch's parts, shown as kernel time in the bar.
			 */
			d = dur && isfinite(dur[i]) ? fmax(dur[i], 0) : n->dur_ns.mean;
			end = cs + n->lat_ns.mean + d;
			if (spans) {
				spans[i].op_start = cs + n->lat_ns.mean;
				spans[i].op_end = end;
			}
			op_ended(&st, S, n->legacy, end);
			mark_add(m, &nm, cs, end, CAT_KERNEL);
			break;
		case GPUPROJ_TL_EVENT_RECORD:
			if (E != GPUPROJ_TL_NONE)
				st.ev[E] = pre_of(&st, S, n->legacy);
			break;
		case GPUPROJ_TL_EVENT_WAIT:
			if (E != GPUPROJ_TL_NONE && S != GPUPROJ_TL_NONE)
				ready_at_least(&st, S, st.ev[E]);
			break;
		case GPUPROJ_TL_SYNC_STREAM:
			h = fmax(cs, pre_of(&st, S, n->legacy));
			break;
		case GPUPROJ_TL_SYNC_DEVICE:
			h = fmax(cs, all_done(&st));
			break;
		case GPUPROJ_TL_SYNC_EVENT:
			h = fmax(cs, E != GPUPROJ_TL_NONE ? st.ev[E] : 0);
			break;
		case GPUPROJ_TL_CALL:
		case GPUPROJ_TL_OP_COUNT:
		default:
			break;
		}
		mark_add(m, &nm, h, h + call, CAT_HOST);
		h += call;
		if (spans)
			spans[i].call_end = h;
	}
	rstate_free(&st);
	out->wall_ns = h;
	/* Exclusive shares and idle time: one sweep over [0, wall]. */
	qsort(m, nm, sizeof(*m), cmp_mark);
	{
		int busy[CAT_COUNT] = { 0 };
		double t = 0;

		for (i = 0; i <= nm; i++) {
			double next = i < nm ? fmin(m[i].t, h) : h;

			if (next > t) {
				double len = next - t;

				if (busy[CAT_KERNEL] > 0)
					out->excl_kernel_ns += len;
				else if (busy[CAT_COPY] > 0)
					out->excl_copy_ns += len;
				if (!busy[CAT_HOST] && !busy[CAT_KERNEL] && !busy[CAT_COPY])
					out->idle_ns += len;
				t = next;
			}
			if (i < nm)
				busy[m[i].cat] += m[i].d;
		}
	}
	free(m);
	out->excl_host_ns = nonneg(h - out->excl_kernel_ns - out->excl_copy_ns);
	out->overlap_ns = out->kernel_ns + out->copy_ns + out->host_ns + out->idle_ns - h;
	return GPUPROJ_OK;
}

/* ---- copies onto a target ---- */

/* latency + bytes / bandwidth on a GPU's host link (ns); NaN when it has none. */
static double
link_ns(const struct gpuproj_target *t, enum gpuproj_copy_kind kind, bool pinned, uint64_t bytes)
{
	const struct gpuproj_host_link *l = &t->host_link;
	double bw;

	if (!l->interface)
		return NAN;
	if (kind == GPUPROJ_COPY_H2D)
		bw = pinned ? l->h2d_pinned_gbs : l->h2d_pageable_gbs;
	else
		bw = pinned ? l->d2h_pinned_gbs : l->d2h_pageable_gbs;
	if (!(bw > 0) || !isfinite(l->latency_us))
		return NAN;
	return l->latency_us * 1e3 + (double)bytes / bw; /* B / (GB/s) = ns */
}

double
gpuproj_copy_project_ns(double source_ns, enum gpuproj_copy_kind kind, bool pinned,
			uint64_t bytes, const struct gpuproj_target *src,
			const struct gpuproj_target *tgt, bool *ret_kept)
{
	double a, b;

	if (ret_kept)
		*ret_kept = false;
	if (!src || !tgt || src == tgt || (src->name && tgt->name && !strcmp(src->name, tgt->name)))
		return source_ns;
	switch (kind) {
	case GPUPROJ_COPY_H2D:
	case GPUPROJ_COPY_D2H:
		b = link_ns(tgt, kind, pinned, bytes);
		if (isnan(b))
			break;
		a = link_ns(src, kind, pinned, bytes);
		return isnan(a) || !(a > 0) ? b : source_ns * b / a;
	case GPUPROJ_COPY_D2D: {
		double bs = src->bw_gbs[GPUPROJ_LEVEL_DRAM], bt = tgt->bw_gbs[GPUPROJ_LEVEL_DRAM];

		if (bs > 0 && bt > 0)
			return source_ns * bs / bt;
		break;
	}
	case GPUPROJ_COPY_P2P:
	case GPUPROJ_COPY_H2H:
	case GPUPROJ_COPY_KIND_COUNT:
	default:
		break;
	}
	if (ret_kept)
		*ret_kept = true;
	return source_ns;
}
