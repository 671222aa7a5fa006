/* SPDX-License-Identifier: MIT */
/*
 * The "timeline" member of gpuproj-profile/1 (docs/formats/profile.md,
 * include/gpuproj/timeline.h), version GPUPROJ_TIMELINE_VERSION:
 *
 *   "timeline": {"version": 1, "ranks": 1, "threads": 1, "wall_ns": 1.2e9, "span_ns": 1.1e9,
 *                "spill_ns": 0, "explained_ns": 1.0e9, "bound_ns": 2e6,
 *                "unexplained": {"profiled": {"epochs": 1, "ns": 8e7}, ...},
 *                "reconstructed": {"epochs": 1, "ns": 2e8, "blocking_ns": 3e6}, (optional)
 *                "patterns": [{"thread": 0, "cut": false,
 *                              "wall_ns": {"n": 100, "mean": 1e7, "stddev": 2e4,
 *                                          "min": 9.9e6, "max": 1.01e7},
 *                              "nodes": [{"op": "kernel", "kernel": 3, "stream": 0,
 *                                         "gap_ns": 1200, "call_ns": [3500, 120],
 *                                         "lat_ns": 800, "dur_ns": [1.1e5, 900]}, ...]}]}
 *
 * A node's time is its mean, or [mean, stddev] when it varied; its sample
 * count is the pattern's ("wall_ns.n"). "explained_ns" and "bound_ns" are
 * written for people and recomputed on reading. Kernels are indices into
 * "kernels". Reading checks types and names here, ranges in
 * gpuproj_timeline_validate() (positioned by the profile loader).
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/profile.h>
#include <gpuproj/timeline.h>

#include "profile-json.h"
#include "util-escape.h"
#include "util.h"

/* ---- writing ---- */

/* A node time: the mean, or [mean, stddev] when it varied. */
static json_t *
time_json(const struct gpuproj_stats *s)
{
	double sd = gpuproj_stats_stddev(s);

	if (sd > 0)
		return json_pack("[o,o]", json_num(s->mean), json_num(sd));
	return json_num(s->mean);
}

static size_t
kernel_index(const struct gpuproj_profile *p, const struct gpuproj_kernel *k)
{
	struct gpuproj_signature sig = { .name = k->name, .tag = k->tag, .grid = k->grid,
					 .block = k->block, .smem_dynamic = k->smem_dynamic,
					 .device = k->device };
	const struct gpuproj_kernel *f = gpuproj_profile_find(p, &sig);
	size_t i, n = gpuproj_profile_count(p);

	for (i = 0; f && i < n; i++) {
		if (gpuproj_profile_at(p, i) == f)
			return i;
	}
	return SIZE_MAX;
}

/* Indices of every kernel record, by position (the writer's "kernels" order). */
struct kidx {
	const struct gpuproj_kernel **keys;
	size_t *vals, mask;
};

static bool
kidx_build(struct kidx *x, const struct gpuproj_profile *p)
{
	size_t n = gpuproj_profile_count(p), cap = 16, i;

	while (cap < 2 * n + 2)
		cap *= 2;
	x->keys = calloc(cap, sizeof(*x->keys));
	x->vals = calloc(cap, sizeof(*x->vals));
	if (!x->keys || !x->vals)
		return false;
	x->mask = cap - 1;
	for (i = 0; i < n; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		size_t h = ((uintptr_t)k >> 4) * 0x9E3779B97F4A7C15ULL >> 7 & x->mask;

		while (x->keys[h])
			h = (h + 1) & x->mask;
		x->keys[h] = k;
		x->vals[h] = i;
	}
	return true;
}

static size_t
kidx_get(const struct kidx *x, const struct gpuproj_profile *p, const struct gpuproj_kernel *k)
{
	size_t h = ((uintptr_t)k >> 4) * 0x9E3779B97F4A7C15ULL >> 7 & x->mask;

	while (x->keys[h]) {
		if (x->keys[h] == k)
			return x->vals[h];
		h = (h + 1) & x->mask;
	}
	return kernel_index(p, k);
}

static json_t *
node_json(const struct gpuproj_tl_node *n, const struct kidx *x, const struct gpuproj_profile *p)
{
	json_t *o = json_object();
	int bad = 0;
	size_t g;

	bad |= json_object_set_new(o, "op", json_string(gpuproj_tl_op_name(n->op)));
	if (n->stream != GPUPROJ_TL_NONE)
		bad |= json_object_set_new(o, "stream", json_integer(n->stream));
	if (n->event != GPUPROJ_TL_NONE)
		bad |= json_object_set_new(o, "event", json_integer(n->event));
	if (n->legacy)
		bad |= json_object_set_new(o, "legacy", json_true());
	if (n->blocking)
		bad |= json_object_set_new(o, "blocking", json_true());
	if (n->op == GPUPROJ_TL_COPY) {
		bad |= json_object_set_new(o, "kind", json_string(gpuproj_copy_kind_name(n->copy)));
		if (n->copy == GPUPROJ_COPY_H2D || n->copy == GPUPROJ_COPY_D2H)
			bad |= json_object_set_new(o, "pinned", json_boolean(n->pinned));
	}
	if (n->op == GPUPROJ_TL_COPY || n->op == GPUPROJ_TL_MEMSET)
		bad |= json_object_set_new(o, "bytes", json_integer((json_int_t)n->bytes));
	if (n->kernel)
		bad |= json_object_set_new(o, "kernel",
					   json_integer((json_int_t)kidx_get(x, p, n->kernel)));
	if (n->n_graph) {
		json_t *a = json_array();

		for (g = 0; g < n->n_graph; g++)
			bad |= json_array_append_new(
				a, json_pack("{s:I,s:I,s:o}", "kernel",
					     (json_int_t)kidx_get(x, p, n->graph[g].kernel), "launches",
					     (json_int_t)n->graph[g].launches, "ns",
					     time_json(&n->graph[g].ns)));
		bad |= json_object_set_new(o, "kernels", a);
	}
	bad |= json_object_set_new(o, "gap_ns", time_json(&n->gap_ns));
	bad |= json_object_set_new(o, "call_ns", time_json(&n->call_ns));
	if (gpuproj_tl_op_gpu(n->op)) {
		bad |= json_object_set_new(o, "lat_ns", time_json(&n->lat_ns));
		bad |= json_object_set_new(o, "dur_ns", time_json(&n->dur_ns));
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *
timeline_to_json(const struct gpuproj_profile *p)
{
	const struct gpuproj_timeline *tl = gpuproj_profile_timeline(p);
	json_t *o, *un, *pats;
	struct kidx x = { 0 };
	size_t i, j;
	int bad = 0;

	if (!tl)
		return NULL;
	if (!kidx_build(&x, p)) {
		free(x.keys);
		free(x.vals);
		return NULL;
	}
	o = json_object();
	un = json_object();
	pats = json_array();
	bad |= json_object_set_new(o, "version", json_integer(GPUPROJ_TIMELINE_VERSION));
	bad |= json_object_set_new(o, "ranks", json_integer(tl->ranks));
	bad |= json_object_set_new(o, "threads", json_integer(tl->threads));
	bad |= json_object_set_new(o, "wall_ns", json_num(tl->wall_ns));
	bad |= json_object_set_new(o, "span_ns", json_num(tl->span_ns));
	bad |= json_object_set_new(o, "spill_ns", json_num(tl->spill_ns));
	bad |= json_object_set_new(o, "explained_ns", json_num(gpuproj_timeline_explained_ns(tl)));
	bad |= json_object_set_new(o, "bound_ns", json_num(gpuproj_timeline_bound_ns(tl)));
	for (i = 0; i < GPUPROJ_TL_WHY_COUNT; i++)
		bad |= json_object_set_new(un, gpuproj_tl_why_name(i),
					   json_pack("{s:I,s:o}", "epochs",
						     (json_int_t)tl->unexplained[i].epochs, "ns",
						     json_num(tl->unexplained[i].ns)));
	bad |= json_object_set_new(o, "unexplained", un);
	/* Only when epochs were reconstructed (older profiles read the same). */
	if (tl->reconstructed.epochs)
		bad |= json_object_set_new(o, "reconstructed",
					   json_pack("{s:I,s:o,s:o}", "epochs",
						     (json_int_t)tl->reconstructed.epochs, "ns",
						     json_num(tl->reconstructed.ns), "blocking_ns",
						     json_num(tl->reconstructed.blocking_ns)));
	for (i = 0; i < tl->n_patterns; i++) {
		const struct gpuproj_tl_pattern *pat = &tl->patterns[i];
		json_t *po = json_object(), *nodes = json_array();

		bad |= json_object_set_new(po, "thread", json_integer(pat->thread));
		bad |= json_object_set_new(po, "cut", json_boolean(pat->cut));
		if (pat->reconstructed)
			bad |= json_object_set_new(po, "reconstructed", json_true());
		bad |= json_object_set_new(
			po, "wall_ns",
			json_pack("{s:I,s:o,s:o,s:o,s:o}", "n", (json_int_t)pat->wall_ns.n, "mean",
				  json_num(pat->wall_ns.mean), "stddev",
				  json_num(gpuproj_stats_stddev(&pat->wall_ns)), "min",
				  json_num(pat->wall_ns.min), "max", json_num(pat->wall_ns.max)));
		for (j = 0; j < pat->n_nodes; j++)
			bad |= json_array_append_new(nodes, node_json(&pat->nodes[j], &x, p));
		bad |= json_object_set_new(po, "nodes", nodes);
		bad |= json_array_append_new(pats, po);
	}
	bad |= json_object_set_new(o, "patterns", pats);
	free(x.keys);
	free(x.vals);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- reading ---- */

#define BAD(...) profile_reader_bad(rd, __VA_ARGS__)

/*
 * A node time: a number (the mean) or [mean, stddev], non-negative; n samples.
 * Absent: `*out` zeroed when !required.
 */
static int
read_time(struct profile_reader *rd, json_t *obj, const char *key, const char *path,
	  uint64_t n, bool required, struct gpuproj_stats *out)
{
	json_t *v = json_object_get(obj, key);
	double mean, sd = 0;

	memset(out, 0, sizeof(*out));
	if (!v) {
		if (required)
			return BAD(path, "missing required field '%s'", key);
		return GPUPROJ_OK;
	}
	if (json_is_number(v)) {
		mean = json_number_value(v);
	} else if (json_is_array(v) && json_array_size(v) == 2 &&
		   json_is_number(json_array_get(v, 0)) && json_is_number(json_array_get(v, 1))) {
		mean = json_number_value(json_array_get(v, 0));
		sd = json_number_value(json_array_get(v, 1));
	} else {
		return BAD(path, "'%s' must be a number of ns or [mean, stddev]", key);
	}
	if (!(mean >= 0 && mean <= GPUPROJ_MAX_NS) || !(sd >= 0 && sd <= GPUPROJ_MAX_NS))
		return BAD(path, "'%s' must lie in [0, %g] ns (mean and stddev)", key,
			   GPUPROJ_MAX_NS);
	out->n = n;
	out->mean = mean;
	out->sum = mean * (double)n;
	out->min = out->max = mean;
	out->m2 = n > 1 ? sd * sd * (double)(n - 1) : 0;
	return GPUPROJ_OK;
}

static int
read_uint(struct profile_reader *rd, json_t *obj, const char *key, const char *path, bool required,
	  uint64_t max, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);

	*out = 0;
	if (!v) {
		if (required)
			return BAD(path, "missing required field '%s'", key);
		return GPUPROJ_OK;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max)
		return BAD(path, "'%s' must be an integer from 0 to %" PRIu64, key, max);
	*out = (uint64_t)json_integer_value(v);
	return GPUPROJ_OK;
}

static int
read_bool(struct profile_reader *rd, json_t *obj, const char *key, const char *path, bool *out)
{
	json_t *v = json_object_get(obj, key);

	*out = false;
	if (!v)
		return GPUPROJ_OK;
	if (!json_is_boolean(v))
		return BAD(path, "'%s' must be true or false", key);
	*out = json_is_true(v);
	return GPUPROJ_OK;
}

static int
read_total(struct profile_reader *rd, json_t *obj, const char *key, const char *path,
	   bool nullable, double *out)
{
	json_t *v = json_object_get(obj, key);

	*out = nullable ? NAN : 0;
	if (!v || (nullable && json_is_null(v)))
		return GPUPROJ_OK;
	if (!json_is_number(v) || !(json_number_value(v) >= 0 &&
				    json_number_value(v) <= GPUPROJ_MAX_TOTAL_NS))
		return BAD(path, "'%s' must be a number of ns from 0 to %g%s", key,
			   GPUPROJ_MAX_TOTAL_NS, nullable ? " (or null)" : "");
	*out = json_number_value(v);
	return GPUPROJ_OK;
}

static int
name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; s && i < n; i++) {
		if (strcmp(names[i], s) == 0)
			return (int)i;
	}
	return -1;
}

static int
read_kernel_ref(struct profile_reader *rd, json_t *obj, const char *path,
		const struct gpuproj_profile *p, const struct gpuproj_kernel **out)
{
	uint64_t i;
	int r = read_uint(rd, obj, "kernel", path, true, UINT32_MAX, &i);

	if (r)
		return r;
	if (i >= gpuproj_profile_count(p))
		return BAD(path, "'kernel' %" PRIu64 " is not an index of 'kernels' (%zu records)", i,
			   gpuproj_profile_count(p));
	*out = gpuproj_profile_at(p, (size_t)i);
	return GPUPROJ_OK;
}

static int
read_node(struct profile_reader *rd, json_t *jn, const char *path, uint64_t count,
	  const struct gpuproj_profile *p, struct gpuproj_tl_node *n)
{
	const char *ops[GPUPROJ_TL_OP_COUNT];
	static const char *const kinds[GPUPROJ_COPY_KIND_COUNT] = { "h2d", "d2h", "d2d", "p2p",
								      "h2h" };
	json_t *v;
	uint64_t u;
	int op, r;
	bool gpu;

	/* The one table of names (timeline.c). */
	for (op = 0; op < GPUPROJ_TL_OP_COUNT; op++)
		ops[op] = gpuproj_tl_op_name((enum gpuproj_tl_op)op);

	memset(n, 0, sizeof(*n));
	if (!json_is_object(jn))
		return BAD(path, "must be an object");
	v = json_object_get(jn, "op");
	op = json_is_string(v) ? name_index(ops, GPUPROJ_TL_OP_COUNT, json_string_value(v)) : -1;
	if (op < 0)
		return BAD(path, "'op' must be one of call, kernel, copy, memset, graph, "
			   "event_record, event_wait, sync_device, sync_stream, sync_event, "
			   "carried");
	n->op = (enum gpuproj_tl_op)op;
	gpu = gpuproj_tl_op_gpu(n->op);
	if ((r = read_uint(rd, jn, "stream", path, false, GPUPROJ_TL_MAX_SLOT, &u)))
		return r;
	n->stream = json_object_get(jn, "stream") ? (uint16_t)u : GPUPROJ_TL_NONE;
	if ((r = read_uint(rd, jn, "event", path, false, GPUPROJ_TL_MAX_SLOT, &u)))
		return r;
	n->event = json_object_get(jn, "event") ? (uint16_t)u : GPUPROJ_TL_NONE;
	if ((gpu || n->op == GPUPROJ_TL_EVENT_RECORD || n->op == GPUPROJ_TL_EVENT_WAIT ||
	     n->op == GPUPROJ_TL_SYNC_STREAM) && n->stream == GPUPROJ_TL_NONE)
		return BAD(path, "missing required field 'stream' (a %s runs on a stream)", ops[op]);
	if ((r = read_bool(rd, jn, "legacy", path, &n->legacy)) ||
	    (r = read_bool(rd, jn, "blocking", path, &n->blocking)) ||
	    (r = read_bool(rd, jn, "pinned", path, &n->pinned)))
		return r;
	/* Fields of other ops: refused, not dropped (what is read is what gets written). */
	if (json_object_get(jn, "kind") && n->op != GPUPROJ_TL_COPY)
		return BAD(path, "'kind' belongs to a copy, not a %s", ops[op]);
	if (json_object_get(jn, "bytes") && n->op != GPUPROJ_TL_COPY && n->op != GPUPROJ_TL_MEMSET)
		return BAD(path, "'bytes' belongs to a copy or memset, not a %s", ops[op]);
	if (json_object_get(jn, "kernel") && n->op != GPUPROJ_TL_KERNEL)
		return BAD(path, "'kernel' belongs to a kernel launch, not a %s (a graph lists "
			   "'kernels')", ops[op]);
	if (n->op == GPUPROJ_TL_COPY) {
		int k;

		v = json_object_get(jn, "kind");
		k = json_is_string(v) ? name_index(kinds, GPUPROJ_COPY_KIND_COUNT,
						   json_string_value(v)) : -1;
		if (k < 0)
			return BAD(path, "'kind' must be one of h2d, d2h, d2d, p2p, h2h");
		n->copy = (enum gpuproj_copy_kind)k;
	}
	if (json_object_get(jn, "pinned") &&
	    !(n->op == GPUPROJ_TL_COPY && (n->copy == GPUPROJ_COPY_H2D || n->copy == GPUPROJ_COPY_D2H)))
		return BAD(path, "'pinned' belongs to a copy between host and device (kind h2d or "
			   "d2h)");
	if (n->op == GPUPROJ_TL_COPY || n->op == GPUPROJ_TL_MEMSET) {
		if ((r = read_uint(rd, jn, "bytes", path, true, (uint64_t)1 << 62, &n->bytes)))
			return r;
	}
	if (n->op == GPUPROJ_TL_KERNEL && (r = read_kernel_ref(rd, jn, path, p, &n->kernel)))
		return r;
	v = json_object_get(jn, "kernels");
	if (v) {
		size_t g;

		if (n->op != GPUPROJ_TL_GRAPH || !json_is_array(v) ||
		    json_array_size(v) > GPUPROJ_TL_MAX_GRAPH_KERNELS)
			return BAD(path, "'kernels' belongs to a graph: an array of at most %d "
				   "{\"kernel\", \"launches\", \"ns\"}", GPUPROJ_TL_MAX_GRAPH_KERNELS);
		n->graph = calloc(json_array_size(v) ? json_array_size(v) : 1, sizeof(*n->graph));
		if (!n->graph)
			return profile_reader_nomem(rd);
		for (g = 0; g < json_array_size(v); g++) {
			json_t *gk = json_array_get(v, g);
			char gpath[256];

			snprintf(gpath, sizeof(gpath), "%s.kernels[%zu]", path, g);
			if (!json_is_object(gk))
				return BAD(gpath, "must be an object");
			if ((r = read_kernel_ref(rd, gk, gpath, p, &n->graph[g].kernel)) ||
			    (r = read_uint(rd, gk, "launches", gpath, true, UINT32_MAX, &u)))
				return r;
			if (!u)
				return BAD(gpath, "'launches' must be at least 1");
			n->graph[g].launches = (uint32_t)u;
			if ((r = read_time(rd, gk, "ns", gpath, count, true, &n->graph[g].ns)))
				return r;
			n->n_graph = g + 1;
		}
	}
	if ((r = read_time(rd, jn, "gap_ns", path, count, true, &n->gap_ns)) ||
	    (r = read_time(rd, jn, "call_ns", path, count, true, &n->call_ns)) ||
	    (r = read_time(rd, jn, "lat_ns", path, count, gpu, &n->lat_ns)) ||
	    (r = read_time(rd, jn, "dur_ns", path, count, gpu, &n->dur_ns)))
		return r;
	if (!gpu && (json_object_get(jn, "lat_ns") || json_object_get(jn, "dur_ns")))
		return BAD(path, "'lat_ns' and 'dur_ns' belong to GPU ops (kernel, copy, memset, "
			   "graph), not a %s", ops[op]);
	return GPUPROJ_OK;
}

static int
read_pattern(struct profile_reader *rd, json_t *jp, const char *path,
	     const struct gpuproj_profile *p, struct gpuproj_tl_pattern *pat)
{
	json_t *w, *nodes;
	uint64_t u;
	double mean, sd, mn, mx;
	size_t i;
	int r;

	if (!json_is_object(jp))
		return BAD(path, "must be an object");
	if ((r = read_uint(rd, jp, "thread", path, false, UINT32_MAX, &u)))
		return r;
	pat->thread = (uint32_t)u;
	if ((r = read_bool(rd, jp, "cut", path, &pat->cut)) ||
	    (r = read_bool(rd, jp, "reconstructed", path, &pat->reconstructed)))
		return r;
	w = json_object_get(jp, "wall_ns");
	if (!json_is_object(w))
		return BAD(path, "'wall_ns' must be {\"n\", \"mean\", \"stddev\", \"min\", \"max\"}");
	{
		char wpath[160];

		snprintf(wpath, sizeof(wpath), "%s.wall_ns", path);
		if ((r = read_uint(rd, w, "n", wpath, true, (uint64_t)INT64_MAX, &u)) ||
		    (r = read_total(rd, w, "mean", wpath, false, &mean)) ||
		    (r = read_total(rd, w, "stddev", wpath, false, &sd)))
			return r;
		if (!u)
			return BAD(wpath, "'n' must be at least 1");
		if (!json_object_get(w, "mean"))
			return BAD(wpath, "missing required field 'mean'");
		if ((r = read_total(rd, w, "min", wpath, true, &mn)) ||
		    (r = read_total(rd, w, "max", wpath, true, &mx)))
			return r;
	}
	pat->wall_ns.n = u;
	pat->wall_ns.mean = mean;
	pat->wall_ns.sum = mean * (double)u;
	pat->wall_ns.min = isnan(mn) ? mean : mn;
	pat->wall_ns.max = isnan(mx) ? mean : mx;
	pat->wall_ns.m2 = u > 1 ? sd * sd * (double)(u - 1) : 0;
	nodes = json_object_get(jp, "nodes");
	if (!json_is_array(nodes) || json_array_size(nodes) < 1 || json_array_size(nodes) > 65536)
		return BAD(path, "'nodes' must be an array of 1 to 65536 nodes");
	pat->nodes = calloc(json_array_size(nodes), sizeof(*pat->nodes));
	if (!pat->nodes)
		return profile_reader_nomem(rd);
	for (i = 0; i < json_array_size(nodes); i++) {
		char npath[192];

		snprintf(npath, sizeof(npath), "%s.nodes[%zu]", path, i);
		pat->n_nodes = i + 1;
		if ((r = read_node(rd, json_array_get(nodes, i), npath, u, p, &pat->nodes[i])))
			return r;
	}
	return GPUPROJ_OK;
}

int
timeline_from_json(struct profile_reader *rd, json_t *v, struct gpuproj_profile *p)
{
	struct gpuproj_timeline *tl;
	json_t *un, *pats;
	uint64_t u;
	size_t i;
	int r;

	if (!json_is_object(v))
		return BAD("timeline", "must be an object");
	if ((r = read_uint(rd, v, "version", "timeline", true, UINT32_MAX, &u)))
		return r;
	if (u != GPUPROJ_TIMELINE_VERSION)
		return BAD("timeline", "'version' %" PRIu64 " is not one this gpuproj reads (%d)", u,
			   GPUPROJ_TIMELINE_VERSION);
	tl = gpuproj_timeline_new();
	if (!tl)
		return profile_reader_nomem(rd);
	/* Owned by the profile from here on, so every return below frees it with it. */
	gpuproj_profile_set_timeline(p, tl);
	if ((r = read_uint(rd, v, "ranks", "timeline", true, UINT32_MAX, &u)))
		return r;
	if (!u)
		return BAD("timeline", "'ranks' must be at least 1");
	tl->ranks = (uint32_t)u;
	if ((r = read_uint(rd, v, "threads", "timeline", false, UINT32_MAX, &u)))
		return r;
	tl->threads = (uint32_t)u;
	if ((r = read_total(rd, v, "wall_ns", "timeline", true, &tl->wall_ns)) ||
	    (r = read_total(rd, v, "span_ns", "timeline", false, &tl->span_ns)) ||
	    (r = read_total(rd, v, "spill_ns", "timeline", false, &tl->spill_ns)))
		return r;
	un = json_object_get(v, "unexplained");
	if (un) {
		const char *key;
		json_t *e;

		if (!json_is_object(un))
			return BAD("timeline", "'unexplained' must be an object");
		json_object_foreach(un, key, e) {
			char upath[64];
			int why = -1;

			for (i = 0; i < GPUPROJ_TL_WHY_COUNT; i++) {
				if (strcmp(key, gpuproj_tl_why_name(i)) == 0)
					why = (int)i;
			}
			if (why < 0)
				return BAD("timeline.unexplained", "'%s' is not a reason gpuproj knows "
					   "(profiled, incomplete, overflow, threads)", key);
			snprintf(upath, sizeof(upath), "timeline.unexplained.%s", key);
			if (!json_is_object(e))
				return BAD(upath, "must be {\"epochs\": integer, \"ns\": number}");
			if ((r = read_uint(rd, e, "epochs", upath, true, (uint64_t)INT64_MAX,
					   &tl->unexplained[why].epochs)) ||
			    (r = read_total(rd, e, "ns", upath, false, &tl->unexplained[why].ns)))
				return r;
		}
	}
	un = json_object_get(v, "reconstructed");
	if (un) {
		if (!json_is_object(un))
			return BAD("timeline", "'reconstructed' must be {\"epochs\": integer, "
				   "\"ns\": number, \"blocking_ns\": number}");
		if ((r = read_uint(rd, un, "epochs", "timeline.reconstructed", true,
				   (uint64_t)INT64_MAX, &tl->reconstructed.epochs)) ||
		    (r = read_total(rd, un, "ns", "timeline.reconstructed", false,
				    &tl->reconstructed.ns)) ||
		    (r = read_total(rd, un, "blocking_ns", "timeline.reconstructed", false,
				    &tl->reconstructed.blocking_ns)))
			return r;
	}
	pats = json_object_get(v, "patterns");
	if (!json_is_array(pats) || json_array_size(pats) > GPUPROJ_TL_MAX_MERGED)
		return BAD("timeline", "'patterns' must be an array of at most %d patterns",
			   GPUPROJ_TL_MAX_MERGED);
	tl->patterns = calloc(json_array_size(pats) ? json_array_size(pats) : 1,
			      sizeof(*tl->patterns));
	if (!tl->patterns)
		return profile_reader_nomem(rd);
	for (i = 0; i < json_array_size(pats); i++) {
		char ppath[64];

		snprintf(ppath, sizeof(ppath), "timeline.patterns[%zu]", i);
		tl->n_patterns = i + 1;
		if ((r = read_pattern(rd, json_array_get(pats, i), ppath, p, &tl->patterns[i])))
			return r;
		tl->patterns[i].key = gpuproj_tl_pattern_hash(&tl->patterns[i]);
	}
	return GPUPROJ_OK;
}
