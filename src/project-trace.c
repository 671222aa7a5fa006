/* SPDX-License-Identifier: MIT */
/*
 * `gpuproj project --format trace`: the whole run as Chrome trace-event
 * JSON (include/gpuproj/trace.h). The format is the "JSON Object Format"
 * of Google's "Trace Event Format" document (traceEvents, displayTimeUnit,
 * otherData): complete events ("ph": "X", ts and dur in microseconds) and
 * metadata events ("ph": "M": process_name, process_sort_index,
 * thread_name, thread_sort_index), which Perfetto UI's JSON importer and
 * chrome://tracing read.
 *
 * The replay is timeline.c's (gpuproj_timeline_replay_spans()); the
 * durations on a target are gpuproj_timeline_project()'s, from the same
 * code (timeline_durations_node(), timeline-private.h): a kernel's × its
 * projected point / its source mean (lo, hi likewise), a graph's kernels
 * so, the rest of its span kept, copies and sets by
 * gpuproj_copy_project_ns() (sets as device copies), the work a cut epoch
 * carries into the next (GPUPROJ_TL_CARRY) × its thread's ratio.
 * tests/integration/test-trace.c holds the two to each other: per target,
 * Σ count × the drawn epoch equals the projection's replayed time.
 *
 * Tracks (tid) per application thread t: t·1024 its patterns, t·1024 + 1
 * its host calls, t·1024 + 2 + s stream slot s; tid 1023 the carried time.
 * Processes (pid): 1 the source, 2 … the targets in order.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>
#include <gpuproj/timeline.h>
#include <gpuproj/trace.h>

#include "timeline-private.h"
#include "util-escape.h"
#include "util.h"

#define TID_STRIDE 1024
#define TID_CARRIED 1023
/* Stream slots with a track of their own per thread; higher ones share the last. */
#define SLOT_TRACKS (TID_STRIDE - 4)

/* A kernel's index by record, for its projection: records sorted by address. */
struct kindex {
	const struct gpuproj_kernel **k;
	size_t *i, n;
};

struct trace {
	FILE *f;
	const struct gpuproj_profile *p;
	const struct gpuproj_timeline *tl;
	const struct gpuproj_target *src;
	size_t expand;
	struct kindex ki;
	char **knames;		/* JSON strings (quoted) of every kernel's shown and full name */
	char **kfull;
	bool first;		/* no event written yet */
	uint64_t events;
	double *dur, *lo, *hi;	/* per node of the pattern being drawn */
	struct gpuproj_tl_span *spans;
	size_t cap;
};

static int
cmp_kptr(const void *a, const void *b)
{
	const struct gpuproj_kernel *const *x = a, *const *y = b;

	return (*x > *y) - (*x < *y);
}

static int
kindex_build(struct kindex *ki, const struct gpuproj_profile *p)
{
	size_t n = gpuproj_profile_count(p), j;
	const struct gpuproj_kernel **sorted;

	ki->n = n;
	ki->k = calloc(n ? n : 1, sizeof(*ki->k));
	ki->i = calloc(n ? n : 1, sizeof(*ki->i));
	sorted = calloc(n ? n : 1, sizeof(*sorted));
	if (!ki->k || !ki->i || !sorted) {
		free(sorted);
		return GPUPROJ_E_NOMEM;
	}
	for (j = 0; j < n; j++)
		sorted[j] = gpuproj_profile_at(p, j);
	qsort(sorted, n, sizeof(*sorted), cmp_kptr);
	for (j = 0; j < n; j++) {
		size_t lo = 0, hi = n;
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, j);

		/* index of k in sorted order */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (sorted[mid] < k)
				lo = mid + 1;
			else
				hi = mid;
		}
		ki->k[lo] = k;
		ki->i[lo] = j;
	}
	free(sorted);
	return GPUPROJ_OK;
}

static size_t
kindex_get(const struct kindex *ki, const struct gpuproj_kernel *k)
{
	size_t lo = 0, hi = ki->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ki->k[mid] < k)
			lo = mid + 1;
		else if (ki->k[mid] > k)
			hi = mid;
		else
			return ki->i[mid];
	}
	return SIZE_MAX;
}

/* `s` as a quoted JSON string (U+FFFD for bytes that are not UTF-8), malloc'd. */
static char *
quoted(const char *s)
{
	json_t *j = json_string_lossy(s ? s : "");
	char *t;

	if (!j)
		return NULL;
	t = json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
	json_decref(j);
	return t;
}

/* A kernel's name as the table shows it: demangled, cut at 96 bytes. */
static char *
shown_name(const struct gpuproj_kernel *k)
{
	const char *n = k->demangled ? k->demangled : k->name;
	size_t l = strlen(n);
	char *cut, *q;

	if (l <= 96)
		return quoted(n);
	cut = xasprintf("%.93s...", n);
	if (!cut)
		return NULL;
	q = quoted(cut);
	free(cut);
	return q;
}

static int
io(struct trace *t)
{
	return ferror(t->f) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

/* The separator before an event, and the count. */
static void
next_event(struct trace *t)
{
	fputs(t->first ? "\n" : ",\n", t->f);
	t->first = false;
	t->events++;
}

static void
meta(struct trace *t, int pid, int tid, const char *what, const char *name_json, long sort)
{
	next_event(t);
	if (name_json)
		fprintf(t->f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"name\":%s}}",
			what, pid, tid, name_json);
	else
		fprintf(t->f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"sort_index\":%ld}}", what, pid, tid, sort);
}

/* A number for JSON: %.17g, or null. */
static void
num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

/* A complete event's head: name (JSON), category, pid, tid, ts and dur (ns → µs). */
static void
x_event(struct trace *t, const char *name_json, const char *cat, int pid, int tid, double ts_ns,
	double dur_ns)
{
	next_event(t);
	fprintf(t->f, "{\"name\":%s,\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":",
		name_json, cat, pid, tid);
	num(t->f, ts_ns / 1e3);
	fputs(",\"dur\":", t->f);
	num(t->f, fmax(dur_ns, 0) / 1e3);
	fputs(",\"args\":{", t->f);
}

/*
 * Per node of `pat`: the GPU op's duration on the target of `td`, and its
 * interval ends (gpuproj_timeline_project()'s rules, timeline-private.h).
 */
static void
durations(struct trace *t, const struct gpuproj_tl_pattern *pat,
	  const struct timeline_durations *td, bool *kept)
{
	double carry[3], d[3];
	size_t j;

	timeline_durations_carry(td, pat->thread, carry);
	for (j = 0; j < pat->n_nodes; j++) {
		size_t kk = 0, ck = 0;

		timeline_durations_node(td, &pat->nodes[j], carry, d, &kk, &ck);
		t->dur[j] = d[0];
		t->lo[j] = d[1];
		t->hi[j] = d[2];
		kept[j] = kk || ck;
	}
}

/* The args of one GPU op. */
static void
op_args(struct trace *t, const struct gpuproj_tl_node *n, size_t j,
	const struct gpuproj_run_projection *run, bool kept)
{
	FILE *f = t->f;

	fputs("\"source_ns\":", f);
	num(f, n->dur_ns.mean);
	fputs(",\"projected_ns\":", f);
	num(f, t->dur[j]);
	fputs(",\"lo_ns\":", f);
	num(f, t->lo[j]);
	fputs(",\"hi_ns\":", f);
	num(f, t->hi[j]);
	if (n->op == GPUPROJ_TL_KERNEL) {
		size_t i = kindex_get(&t->ki, n->kernel);
		const struct gpuproj_projection *pr = run && i < run->n ? &run->kernels[i] : NULL;

		fprintf(f, ",\"kernel\":%s,\"grid\":\"%" PRIu32 "x%" PRIu32 "x%" PRIu32 "\","
			"\"block\":\"%" PRIu32 "x%" PRIu32 "x%" PRIu32 "\"",
			i < t->ki.n ? t->kfull[i] : "null", n->kernel->grid.x, n->kernel->grid.y,
			n->kernel->grid.z, n->kernel->block.x, n->kernel->block.y,
			n->kernel->block.z);
		if (!run) {
			fputs(",\"binding\":\"measured\"", f);
		} else if (pr && pr->status == GPUPROJ_OK && !kept) {
			fprintf(f, ",\"binding\":\"%s\",\"model\":\"%s\"",
				gpuproj_bound_name(pr->binding),
				gpuproj_model_name(pr->fallback ? pr->fallback : run->model));
			if (pr->assumed) {
				char words[256];

				fprintf(f, ",\"assumed\":\"%s\"",
					gpuproj_assumption_words(pr->assumed, words,
								 sizeof(words)));
			}
		} else {
			fputs(",\"binding\":\"not projected: source time kept\"", f);
		}
	} else if (n->op == GPUPROJ_TL_GRAPH) {
		fprintf(f, ",\"graph_kernels\":%zu,\"binding\":\"%s\"", n->n_graph,
			!run ? "measured" : kept ? "partly kept" : "projected kernels");
	} else if (n->op == GPUPROJ_TL_CARRY) {
		fprintf(f, ",\"binding\":\"%s\"", !run ? "measured"
			: "the thread's cut epochs' GPU time, target over source");
	} else {
		fprintf(f, ",\"bytes\":%" PRIu64, n->bytes);
		if (n->op == GPUPROJ_TL_COPY)
			fprintf(f, ",\"kind\":\"%s\",\"pinned\":%s",
				gpuproj_copy_kind_name(n->copy),
				n->pinned ? "true" : "false");
		fprintf(f, ",\"binding\":\"%s\"", !run ? "measured" : kept ? "kept (not modelled)"
			: n->op == GPUPROJ_TL_COPY && (n->copy == GPUPROJ_COPY_H2D ||
						       n->copy == GPUPROJ_COPY_D2H)
				? "host link" : "dram");
	}
	if (n->legacy)
		fputs(",\"legacy_stream\":true", f);
}

/* The JSON name of a GPU op's event. */
static const char *
op_name(struct trace *t, const struct gpuproj_tl_node *n, char *buf, size_t size)
{
	size_t i;

	switch (n->op) {
	case GPUPROJ_TL_KERNEL:
		i = kindex_get(&t->ki, n->kernel);
		return i < t->ki.n ? t->knames[i] : "\"kernel\"";
	case GPUPROJ_TL_GRAPH:
		snprintf(buf, size, "\"graph (%zu kernels)\"", n->n_graph);
		return buf;
	case GPUPROJ_TL_COPY:
		snprintf(buf, size, "\"copy %s %" PRIu64 " B\"", gpuproj_copy_kind_name(n->copy),
			 n->bytes);
		return buf;
	case GPUPROJ_TL_MEMSET:
		snprintf(buf, size, "\"memset %" PRIu64 " B\"", n->bytes);
		return buf;
	case GPUPROJ_TL_CARRY:
		return "\"carried: the cut epoch's GPU work\"";
	case GPUPROJ_TL_CALL:
	case GPUPROJ_TL_EVENT_RECORD:
	case GPUPROJ_TL_EVENT_WAIT:
	case GPUPROJ_TL_SYNC_DEVICE:
	case GPUPROJ_TL_SYNC_STREAM:
	case GPUPROJ_TL_SYNC_EVENT:
	case GPUPROJ_TL_OP_COUNT:
	default:
		snprintf(buf, size, "\"%s\"", gpuproj_tl_op_name(n->op));
		return buf;
	}
}

static const char *
op_cat(enum gpuproj_tl_op op)
{
	return op == GPUPROJ_TL_KERNEL || op == GPUPROJ_TL_GRAPH ? "kernel"
	       : op == GPUPROJ_TL_COPY ? "copy" : op == GPUPROJ_TL_CARRY ? "carried_work"
	       : "memset";
}

/* The host call of node n at t0 + its span, on track `tid`. */
static void
call_event(struct trace *t, const struct gpuproj_tl_node *n, const struct gpuproj_tl_span *sp,
	   int pid, int tid, double t0)
{
	char nb[64];

	snprintf(nb, sizeof(nb), "\"%s\"", gpuproj_tl_op_name(n->op));
	x_event(t, nb, "call", pid, tid, t0 + sp->call_start, sp->call_end - sp->call_start);
	fputs("\"gap_ns\":", t->f);
	num(t->f, n->gap_ns.mean);
	fputs(",\"call_ns\":", t->f);
	num(t->f, n->call_ns.mean);
	fprintf(t->f, ",\"blocking\":%s,\"binding\":\"host (kept: same host assumed)\"}}",
		n->blocking || n->op == GPUPROJ_TL_SYNC_DEVICE || n->op == GPUPROJ_TL_SYNC_STREAM ||
		n->op == GPUPROJ_TL_SYNC_EVENT ? "true" : "false");
}

/* Events of one pattern (drawn epochs inside), on thread lane `th` from `*at`. */
static int
draw_pattern(struct trace *t, int pid, size_t pi, const struct gpuproj_run_projection *run,
	     const struct timeline_durations *td, double *at, bool *streams_used)
{
	const struct gpuproj_tl_pattern *pat = &t->tl->patterns[pi];
	int base = (int)pat->thread * TID_STRIDE;
	struct gpuproj_tl_parts parts;
	uint64_t count = pat->wall_ns.n, e, drawn = count < t->expand ? count : t->expand;
	bool *kept;
	size_t j, slot;
	char nb[160];
	int r;

	if (pat->n_nodes > t->cap) {
		free(t->dur);
		free(t->lo);
		free(t->hi);
		free(t->spans);
		t->dur = malloc(pat->n_nodes * sizeof(*t->dur));
		t->lo = malloc(pat->n_nodes * sizeof(*t->lo));
		t->hi = malloc(pat->n_nodes * sizeof(*t->hi));
		t->spans = malloc(pat->n_nodes * sizeof(*t->spans));
		t->cap = t->dur && t->lo && t->hi && t->spans ? pat->n_nodes : 0;
		if (!t->cap)
			return GPUPROJ_E_NOMEM;
	}
	kept = calloc(pat->n_nodes, sizeof(*kept));
	if (!kept)
		return GPUPROJ_E_NOMEM;
	durations(t, pat, td, kept);
	if ((r = gpuproj_timeline_replay_spans(pat, t->dur, &parts, t->spans))) {
		free(kept);
		return r;
	}
	snprintf(nb, sizeof(nb), "\"pattern %zu: %" PRIu64 " epoch%s\"", pi, count,
		 count == 1 ? "" : "s");
	x_event(t, nb, "pattern", pid, base, *at, (double)count * parts.wall_ns);
	fprintf(t->f, "\"pattern\":%zu,\"epochs\":%" PRIu64 ",\"drawn\":%" PRIu64
		",\"cut\":%s,\"epoch_ns\":", pi, count, drawn, pat->cut ? "true" : "false");
	num(t->f, parts.wall_ns);
	fputs(",\"measured_epoch_ns\":", t->f);
	num(t->f, pat->wall_ns.mean);
	fputs(",\"kernel_ns\":", t->f);
	num(t->f, parts.kernel_ns);
	fputs(",\"copy_ns\":", t->f);
	num(t->f, parts.copy_ns);
	fputs(",\"host_ns\":", t->f);
	num(t->f, parts.host_ns);
	fputs("}}", t->f);
	for (e = 0; e < drawn; e++) {
		double t0 = *at + (double)e * parts.wall_ns;

		for (j = 0; j < pat->n_nodes; j++) {
			const struct gpuproj_tl_node *n = &pat->nodes[j];
			const struct gpuproj_tl_span *sp = &t->spans[j];

			/* The host's own time before the call (kept: same host assumed). */
			if (n->gap_ns.mean > 0) {
				x_event(t, "\"host\"", "host", pid, base + 1,
					t0 + sp->call_start - n->gap_ns.mean, n->gap_ns.mean);
				fputs("\"binding\":\"host (kept: same host assumed)\"}}", t->f);
			}
			/* Carried work is no call of the host's: only its stream's event. */
			if (n->op != GPUPROJ_TL_CARRY)
				call_event(t, n, sp, pid, base + 1, t0);
			if (!gpuproj_tl_op_gpu(n->op) || !isfinite(sp->op_start))
				continue;
			slot = n->stream == GPUPROJ_TL_NONE ? 0 : n->stream;
			slot = slot < SLOT_TRACKS ? slot : SLOT_TRACKS - 1;
			x_event(t, op_name(t, n, nb, sizeof(nb)), op_cat(n->op), pid,
				base + 2 + (int)slot, t0 + sp->op_start, sp->op_end - sp->op_start);
			op_args(t, n, j, run, kept[j]);
			fputs("}}", t->f);
			streams_used[(size_t)pat->thread * SLOT_TRACKS + slot] = true;
		}
	}
	*at += (double)count * parts.wall_ns;
	free(kept);
	return io(t);
}

/* One GPU's process: its metadata, every thread's patterns, the carried time. */
static int
draw_process(struct trace *t, int pid, const struct gpuproj_run_projection *run,
	     const struct gpuproj_target *tgt)
{
	const struct gpuproj_timeline *tl = t->tl;
	uint32_t threads = 0, th;
	struct gpuproj_whole_run w;
	struct timeline_durations *td = NULL;
	double *at, longest = 0;
	bool *used;
	char *name;
	size_t i, s;
	int r;

	for (i = 0; i < tl->n_patterns; i++)
		threads = tl->patterns[i].thread + 1 > threads ? tl->patterns[i].thread + 1 :
			  threads;
	at = calloc(threads ? threads : 1, sizeof(*at));
	used = calloc((size_t)(threads ? threads : 1) * SLOT_TRACKS, sizeof(*used));
	if (!at || !used) {
		free(at);
		free(used);
		return GPUPROJ_E_NOMEM;
	}
	name = xasprintf("%s (%s)", tgt->name, !run ? "source, as recorded"
			 : gpuproj_model_name(run->model));
	{
		char *q = name ? quoted(name) : NULL;

		free(name);
		if (!q) {
			free(at);
			free(used);
			return GPUPROJ_E_NOMEM;
		}
		meta(t, pid, 0, "process_name", q, 0);
		free(q);
	}
	meta(t, pid, 0, "process_sort_index", NULL, pid);
	if (timeline_durations_new(&td, t->p, run, t->src, tgt)) {
		free(at);
		free(used);
		return GPUPROJ_E_NOMEM;
	}
	for (i = 0; i < tl->n_patterns; i++) {
		th = tl->patterns[i].thread;
		if ((r = draw_pattern(t, pid, i, run, td, &at[th], used))) {
			timeline_durations_free(td);
			free(at);
			free(used);
			return r;
		}
	}
	timeline_durations_free(td);
	for (th = 0; th < threads; th++) {
		char buf[96];

		longest = fmax(longest, at[th]);
		snprintf(buf, sizeof(buf), "\"thread %u: patterns (x epochs)\"", th);
		meta(t, pid, (int)th * TID_STRIDE, "thread_name", buf, 0);
		meta(t, pid, (int)th * TID_STRIDE, "thread_sort_index", NULL,
		     (long)th * TID_STRIDE);
		snprintf(buf, sizeof(buf), "\"thread %u: host calls\"", th);
		meta(t, pid, (int)th * TID_STRIDE + 1, "thread_name", buf, 0);
		meta(t, pid, (int)th * TID_STRIDE + 1, "thread_sort_index", NULL,
		     (long)th * TID_STRIDE + 1);
		for (s = 0; s < SLOT_TRACKS; s++) {
			if (!used[(size_t)th * SLOT_TRACKS + s])
				continue;
			snprintf(buf, sizeof(buf), "\"thread %u: stream slot %zu%s\"", th, s,
				 s == SLOT_TRACKS - 1 ? " and above" : "");
			meta(t, pid, (int)(th * TID_STRIDE + 2 + s), "thread_name", buf, 0);
			meta(t, pid, (int)(th * TID_STRIDE + 2 + s), "thread_sort_index", NULL,
			     (long)(th * TID_STRIDE + 2 + s));
		}
	}
	free(at);
	free(used);
	/* The time the replay does not explain, as the projection carries it. */
	if ((r = gpuproj_timeline_project(t->p, run, t->src, tgt, &w)))
		return r;
	if (w.valid && w.carried_ns > 0) {
		x_event(t, "\"carried unchanged (not replayed)\"", "carried", pid, TID_CARRIED,
			longest, w.carried_ns);
		fputs("\"carried_ns\":", t->f);
		num(t->f, w.carried_ns);
		fputs(",\"binding\":\"measured time kept\"}}", t->f);
		meta(t, pid, TID_CARRIED, "thread_name", "\"carried (epochs not in patterns, time "
		     "outside any epoch)\"", 0);
	}
	return io(t);
}

/* Events one process needs: metadata, patterns, drawn calls and ops, carried. */
static uint64_t
count_events(const struct gpuproj_timeline *tl, size_t expand)
{
	uint64_t n = 2 + 1 + 2; /* process name, sort; carried and its name; slack */
	uint32_t threads = 0;
	size_t i, j;

	for (i = 0; i < tl->n_patterns; i++) {
		const struct gpuproj_tl_pattern *pat = &tl->patterns[i];
		uint64_t drawn = pat->wall_ns.n < expand ? pat->wall_ns.n : expand, per = 0;

		for (j = 0; j < pat->n_nodes; j++)
			/* gap, call, GPU op, and its stream's two names */
			per += 2 + gpuproj_tl_op_gpu(pat->nodes[j].op) + 2;
		n += 1 + drawn * per;
		threads = pat->thread + 1 > threads ? pat->thread + 1 : threads;
	}
	return n + 4 * (uint64_t)threads;
}

static void
trace_clear(struct trace *t)
{
	size_t i;

	for (i = 0; t->knames && i < t->ki.n; i++)
		free(t->knames[i]);
	for (i = 0; t->kfull && i < t->ki.n; i++)
		free(t->kfull[i]);
	free(t->knames);
	free(t->kfull);
	free(t->ki.k);
	free(t->ki.i);
	free(t->dur);
	free(t->lo);
	free(t->hi);
	free(t->spans);
}

static int
trace_write(struct trace *t, size_t n_runs, gpuproj_trace_run_fn get, void *userdata,
	    const struct gpuproj_trace_options *opt)
{
	FILE *f = t->f;
	size_t i;
	int r;

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"gpuproj %s\","
		"\"format\":\"Chrome trace-event JSON: one process per GPU (the source as "
		"recorded, each target as projected); per thread its patterns, its host calls "
		"and its stream slots; each pattern drawn once per epoch up to expand, its event "
		"as long as all its epochs\",\"expand\":%zu", GPUPROJ_VERSION, t->expand);
	if (opt && opt->profile_label) {
		char *q = quoted(opt->profile_label);

		if (!q)
			return GPUPROJ_E_NOMEM;
		fprintf(f, ",\"profile\":%s", q);
		free(q);
	}
	{
		char *q = quoted(t->src->name);

		if (!q)
			return GPUPROJ_E_NOMEM;
		fprintf(f, ",\"source\":%s},\"traceEvents\":[", q);
		free(q);
	}
	if ((r = draw_process(t, 1, NULL, t->src)))
		return r;
	for (i = 0; i < n_runs; i++) {
		int st = GPUPROJ_OK;
		const struct gpuproj_run_projection *run = get(userdata, i, &st);

		if (!run)
			return st ? st : GPUPROJ_E_NOMEM;
		if (run->n != gpuproj_profile_count(t->p))
			return GPUPROJ_E_INVAL;
		if ((r = draw_process(t, (int)i + 2, run, run->target)))
			return r;
	}
	fputs("\n]}\n", f);
	return io(t);
}

int
gpuproj_trace_json(const char *path, const struct gpuproj_profile *p,
		   const struct gpuproj_target *src, size_t n_runs, gpuproj_trace_run_fn get,
		   void *userdata, const struct gpuproj_trace_options *opt,
		   struct gpuproj_error *reterr)
{
	struct trace t = { .p = p, .src = src, .first = true };
	struct file_tmp tmp;
	uint64_t events;
	size_t i;
	int r;

	if (!p || !path || !src || (n_runs && !get))
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	t.expand = opt && opt->expand ? opt->expand : GPUPROJ_TRACE_EXPAND_DEFAULT;
	if (t.expand > GPUPROJ_TRACE_EXPAND_MAX)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "--expand %zu is above %d "
				 "epochs per pattern", t.expand, GPUPROJ_TRACE_EXPAND_MAX);
	t.tl = gpuproj_profile_timeline(p);
	if (!t.tl || !t.tl->n_patterns)
		return error_set(reterr, GPUPROJ_E_UNSUPPORTED,
				 opt && opt->profile_label ? opt->profile_label : NULL, 0, 0,
				 "no whole-run timeline to draw: the profile %s (libproj.so "
				 "records one; so does `gpuproj import nsys`)", !t.tl ? "has none"
				 : "has no pattern");
	/* Bounded, and counted before anything is written. */
	events = (1 + (uint64_t)n_runs) * count_events(t.tl, t.expand);
	if (events > GPUPROJ_TRACE_MAX_EVENTS)
		return error_set(reterr, GPUPROJ_E_LIMIT, NULL, 0, 0,
				 "the trace would hold up to %" PRIu64 " events (%zu GPUs, %zu "
				 "epochs drawn per pattern), more than %d: name fewer targets with "
				 "--target or draw fewer epochs with --expand", events, n_runs + 1,
				 t.expand, GPUPROJ_TRACE_MAX_EVENTS);
	if (kindex_build(&t.ki, p)) {
		trace_clear(&t);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	t.knames = calloc(t.ki.n ? t.ki.n : 1, sizeof(*t.knames));
	t.kfull = calloc(t.ki.n ? t.ki.n : 1, sizeof(*t.kfull));
	for (i = 0; t.knames && t.kfull && i < t.ki.n; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (!(t.knames[i] = shown_name(k)) ||
		    !(t.kfull[i] = quoted(k->demangled ? k->demangled : k->name)))
			break;
	}
	if (!t.knames || !t.kfull || i < t.ki.n) {
		trace_clear(&t);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	if ((r = file_tmp_open(&tmp, path, 0, reterr))) {
		trace_clear(&t);
		return r;
	}
	t.f = file_tmp_stream(&tmp);
	r = t.f ? trace_write(&t, n_runs, get, userdata, opt) : GPUPROJ_E_NOMEM;
	trace_clear(&t);
	if (r) {
		file_tmp_abort(&tmp);
		if (r == GPUPROJ_E_IO)
			return error_set(reterr, r, path, 0, 0, "write error: %s", strerror(errno));
		if (r == GPUPROJ_E_INVAL)
			return error_set(reterr, r, NULL, 0, 0, "invalid argument: a projection "
					 "does not cover the profile's kernels");
		if (r == GPUPROJ_E_NOMEM)
			return error_set(reterr, r, NULL, 0, 0, "out of memory");
		return error_set(reterr, r, NULL, 0, 0, "%s", gpuproj_strerror(r));
	}
	return file_tmp_commit(&tmp, NULL, reterr);
}
