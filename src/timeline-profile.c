/* SPDX-License-Identifier: MIT */
/*
 * The whole-run timeline against its profile (include/gpuproj/timeline.h):
 * merging two profiles' timelines, checking a timeline's ranges and that
 * its nodes name the profile's kernels, and the whole run projected onto
 * a target with the run's kernel projections (docs/models.md "Whole
 * run"). Above profile.c and timeline.c, which know nothing of it.
 * Thread safety: reentrant.
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

#include <gpuproj/profile.h>

#include "timeline-private.h"
#include "util.h"

/* ---- merge and copy ---- */

static const struct gpuproj_kernel *
map_kernel(struct gpuproj_profile *dst, const struct gpuproj_kernel *k)
{
	struct gpuproj_signature sig = {
		.name = k->name,
		.tag = k->tag,
		.grid = k->grid,
		.block = k->block,
		.smem_dynamic = k->smem_dynamic,
		.device = k->device,
	};

	const struct gpuproj_kernel *f = gpuproj_profile_find(dst, &sig);

	/* `gpuproj merge` folds every device's kernels into device 0's signature. */
	if (!f && k->device != 0) {
		sig.device = 0;
		f = gpuproj_profile_find(dst, &sig);
	}
	return f;
}

int
gpuproj_timeline_merge(struct gpuproj_profile *dst, const struct gpuproj_profile *src,
		       bool same_process)
{
	const struct gpuproj_timeline *s = gpuproj_profile_timeline(src);
	struct gpuproj_timeline *d;
	uint32_t thread_base;
	size_t i, j, g;
	bool created = false;
	int r = GPUPROJ_OK;

	if (!dst || !src)
		return GPUPROJ_E_INVAL;
	if (!s)
		return GPUPROJ_OK;
	d = gpuproj_profile_timeline_mut(dst);
	if (!d) {
		d = gpuproj_timeline_new();
		if (!d)
			return GPUPROJ_E_NOMEM;
		d->ranks = 0;
		d->wall_ns = 0;
		created = true;
	}
	thread_base = same_process ? 0 : d->threads;
	for (i = 0; i < s->n_patterns && !r; i++) {
		struct gpuproj_tl_pattern p;

		if (timeline_pattern_copy(&p, &s->patterns[i])) {
			r = GPUPROJ_E_NOMEM;
			break;
		}
		p.thread += thread_base;
		for (j = 0; j < p.n_nodes && !r; j++) {
			struct gpuproj_tl_node *n = &p.nodes[j];

			if (n->kernel && !(n->kernel = map_kernel(dst, n->kernel)))
				r = GPUPROJ_E_NOTFOUND;
			for (g = 0; g < n->n_graph && !r; g++) {
				if (!(n->graph[g].kernel = map_kernel(dst, n->graph[g].kernel)))
					r = GPUPROJ_E_NOTFOUND;
			}
		}
		if (!r)
			r = gpuproj_timeline_add(d, &p, GPUPROJ_TL_MAX_MERGED, SIZE_MAX, NULL);
		gpuproj_tl_pattern_clear(&p);
	}
	if (r) {
		if (created)
			gpuproj_timeline_free(d);
		return r;
	}
	if (same_process) {
		d->ranks = s->ranks;
		d->threads = s->threads;
		d->wall_ns = s->wall_ns;
		d->span_ns = s->span_ns;
		d->spill_ns = s->spill_ns;
	} else {
		double w = isnan(s->wall_ns) ? gpuproj_profile_run_info(src)->wall_ns : s->wall_ns;

		d->ranks += s->ranks;
		d->threads += s->threads;
		/* A wall nobody knows makes the job's unknown (its run's wall is used then). */
		d->wall_ns += w;
		d->span_ns += s->span_ns;
		d->spill_ns += s->spill_ns;
	}
	for (i = 0; i < GPUPROJ_TL_WHY_COUNT; i++) {
		d->unexplained[i].epochs += s->unexplained[i].epochs;
		d->unexplained[i].ns += s->unexplained[i].ns;
	}
	d->reconstructed.epochs += s->reconstructed.epochs;
	d->reconstructed.ns += s->reconstructed.ns;
	d->reconstructed.blocking_ns += s->reconstructed.blocking_ns;
	if (created)
		gpuproj_profile_set_timeline(dst, d);
	return GPUPROJ_OK;
}

/* ---- ranges ---- */

static int
bad(const char *file, struct gpuproj_error *err, const char *fmt, ...) GPUPROJ_PRINTF(3, 4);

static int
bad(const char *file, struct gpuproj_error *err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = error_setv(err, GPUPROJ_E_SCHEMA, file, 0, 0, fmt, ap);
	va_end(ap);
	return r;
}

/* Counts are written as JSON integers (int64) and read back below 2^63. */
#define MAX_N ((uint64_t)INT64_MAX)

static int
check_stat(const char *file, struct gpuproj_error *err, const char *where, const char *what,
	   const struct gpuproj_stats *s, uint64_t want_n, bool applies)
{
	if (!applies) {
		if (s->n)
			return bad(file, err, "%s.%s is not a time of this op", where, what);
		return GPUPROJ_OK;
	}
	if (s->n != want_n)
		return bad(file, err, "%s.%s has %" PRIu64 " samples, the pattern %" PRIu64, where,
			   what, s->n, want_n);
	if (!(s->mean >= 0 && s->mean <= GPUPROJ_MAX_NS))
		return bad(file, err, "%s.%s %.17g is outside [0, %g] ns", where, what, s->mean,
			   GPUPROJ_MAX_NS);
	if (!(s->m2 >= 0 && s->m2 <= DBL_MAX) || !(s->min >= 0 && s->min <= s->max) ||
	    !(s->max <= GPUPROJ_MAX_NS))
		return bad(file, err, "%s.%s has a spread or extremes out of range", where, what);
	return GPUPROJ_OK;
}

static bool
is_kernel_of(const struct gpuproj_profile *p, const struct gpuproj_kernel *k)
{
	struct gpuproj_signature sig;

	if (!k || !k->name)
		return false;
	sig = (struct gpuproj_signature){ .name = k->name, .tag = k->tag, .grid = k->grid,
					  .block = k->block, .smem_dynamic = k->smem_dynamic,
					  .device = k->device };
	return gpuproj_profile_find(p, &sig) == k;
}

static int
check_node(const struct gpuproj_tl_node *n, const struct gpuproj_profile *p, uint64_t count,
	   const char *file, struct gpuproj_error *err, const char *w)
{
	bool gpu = gpuproj_tl_op_gpu(n->op);
	size_t g;
	int r;

	if ((unsigned)n->op >= GPUPROJ_TL_OP_COUNT)
		return bad(file, err, "%s.op %d is not an op", w, (int)n->op);
	if ((unsigned)n->copy >= GPUPROJ_COPY_KIND_COUNT)
		return bad(file, err, "%s.kind %d is not a copy kind", w, (int)n->copy);
	if (gpu || n->op == GPUPROJ_TL_EVENT_RECORD || n->op == GPUPROJ_TL_EVENT_WAIT ||
	    n->op == GPUPROJ_TL_SYNC_STREAM) {
		if (n->stream == GPUPROJ_TL_NONE)
			return bad(file, err, "%s is a %s without a stream", w, gpuproj_tl_op_name(n->op));
	}
	if ((n->op == GPUPROJ_TL_KERNEL) != (n->kernel != NULL))
		return bad(file, err, "%s names a kernel but is no kernel, or the reverse", w);
	if (n->kernel && !is_kernel_of(p, n->kernel))
		return bad(file, err, "%s.kernel is not a kernel of the profile", w);
	if ((n->op == GPUPROJ_TL_GRAPH) != (n->n_graph > 0) && n->n_graph)
		return bad(file, err, "%s lists kernels but is no graph", w);
	if (n->n_graph > GPUPROJ_TL_MAX_GRAPH_KERNELS)
		return bad(file, err, "%s has more than %d graph kernels", w,
			   GPUPROJ_TL_MAX_GRAPH_KERNELS);
	if ((double)n->bytes > GPUPROJ_TL_MAX_BYTES)
		return bad(file, err, "%s.bytes %" PRIu64 " is above %g", w, n->bytes,
			   GPUPROJ_TL_MAX_BYTES);
	/* What the JSON has no place for must be empty (the writer would drop it). */
	if (n->op != GPUPROJ_TL_COPY && n->copy)
		return bad(file, err, "%s has a copy kind but is no copy", w);
	if (n->pinned && !(n->op == GPUPROJ_TL_COPY &&
			   (n->copy == GPUPROJ_COPY_H2D || n->copy == GPUPROJ_COPY_D2H)))
		return bad(file, err, "%s is pinned but no host-to-device or device-to-host copy", w);
	if (n->bytes && n->op != GPUPROJ_TL_COPY && n->op != GPUPROJ_TL_MEMSET)
		return bad(file, err, "%s has bytes but is no copy or set", w);
	for (g = 0; g < n->n_graph; g++) {
		char gw[192];

		snprintf(gw, sizeof(gw), "%s.kernels[%zu]", w, g);
		if (!is_kernel_of(p, n->graph[g].kernel))
			return bad(file, err, "%s.kernel is not a kernel of the profile", gw);
		if (!n->graph[g].launches)
			return bad(file, err, "%s.launches must be at least 1", gw);
		if ((r = check_stat(file, err, gw, "ns", &n->graph[g].ns, count, true)))
			return r;
	}
	if ((r = check_stat(file, err, w, "gap_ns", &n->gap_ns, count, true)) ||
	    (r = check_stat(file, err, w, "call_ns", &n->call_ns, count, true)) ||
	    (r = check_stat(file, err, w, "lat_ns", &n->lat_ns, count, gpu)) ||
	    (r = check_stat(file, err, w, "dur_ns", &n->dur_ns, count, gpu)))
		return r;
	return GPUPROJ_OK;
}

int
gpuproj_timeline_validate(const struct gpuproj_timeline *tl, const struct gpuproj_profile *p,
			  const char *file, struct gpuproj_error *err)
{
	size_t i, j;
	int r;

	if (!tl)
		return GPUPROJ_OK;
	if (tl->ranks < 1)
		return bad(file, err, "timeline.ranks %u must be at least 1", tl->ranks);
	if (!(isnan(tl->wall_ns) || (tl->wall_ns >= 0 && tl->wall_ns <= GPUPROJ_MAX_TOTAL_NS)))
		return bad(file, err, "timeline.wall_ns %.17g is outside [0, %g] ns", tl->wall_ns,
			   GPUPROJ_MAX_TOTAL_NS);
	if (!(tl->span_ns >= 0 && tl->span_ns <= GPUPROJ_MAX_TOTAL_NS))
		return bad(file, err, "timeline.span_ns %.17g is outside [0, %g] ns", tl->span_ns,
			   GPUPROJ_MAX_TOTAL_NS);
	if (!(tl->spill_ns >= 0 && tl->spill_ns <= GPUPROJ_MAX_TOTAL_NS))
		return bad(file, err, "timeline.spill_ns %.17g is outside [0, %g] ns", tl->spill_ns,
			   GPUPROJ_MAX_TOTAL_NS);
	for (i = 0; i < GPUPROJ_TL_WHY_COUNT; i++) {
		if (tl->unexplained[i].epochs > MAX_N ||
		    !(tl->unexplained[i].ns >= 0 && tl->unexplained[i].ns <= GPUPROJ_MAX_TOTAL_NS))
			return bad(file, err, "timeline.unexplained.%s is out of range",
				   gpuproj_tl_why_name((enum gpuproj_tl_why)i));
	}
	if (tl->reconstructed.epochs > MAX_N ||
	    !(tl->reconstructed.ns >= 0 && tl->reconstructed.ns <= GPUPROJ_MAX_TOTAL_NS) ||
	    !(tl->reconstructed.blocking_ns >= 0 &&
	      tl->reconstructed.blocking_ns <= GPUPROJ_MAX_TOTAL_NS))
		return bad(file, err, "timeline.reconstructed is out of range");
	if (tl->n_patterns > GPUPROJ_TL_MAX_MERGED)
		return bad(file, err, "timeline.patterns holds %zu patterns, at most %d",
			   tl->n_patterns,
			   GPUPROJ_TL_MAX_MERGED);
	for (i = 0; i < tl->n_patterns; i++) {
		const struct gpuproj_tl_pattern *pat = &tl->patterns[i];
		char w[96];

		snprintf(w, sizeof(w), "timeline.patterns[%zu]", i);
		if (pat->n_nodes < 1 || pat->n_nodes > 65536)
			return bad(file, err, "%s has %zu nodes, not 1 to 65536", w, pat->n_nodes);
		if (pat->wall_ns.n < 1 || pat->wall_ns.n > MAX_N)
			return bad(file, err, "%s.wall_ns.n must be 1 to 2^63", w);
		if (!(pat->wall_ns.mean >= 0 && pat->wall_ns.mean <= GPUPROJ_MAX_NS) ||
		    !(pat->wall_ns.sum >= 0 && pat->wall_ns.sum <= GPUPROJ_MAX_TOTAL_NS) ||
		    !(pat->wall_ns.m2 >= 0 && pat->wall_ns.m2 <= DBL_MAX) ||
		    !(pat->wall_ns.min >= 0 && pat->wall_ns.min <= pat->wall_ns.max &&
		      pat->wall_ns.max <= GPUPROJ_MAX_NS))
			return bad(file, err, "%s.wall_ns holds a time out of range", w);
		for (j = 0; j < pat->n_nodes; j++) {
			char nw[128];

			snprintf(nw, sizeof(nw), "%s.nodes[%zu]", w, j);
			if ((r = check_node(&pat->nodes[j], p, pat->wall_ns.n, file, err, nw)))
				return r;
		}
	}
	return GPUPROJ_OK;
}

/* ---- the whole run onto a target ---- */

/* Kernel record → index in the profile: an open-addressing map of pointers. */
struct kmap {
	const struct gpuproj_kernel **keys;
	size_t *vals;
	size_t mask;
};

static int
kmap_build(struct kmap *km, const struct gpuproj_profile *p)
{
	size_t n = gpuproj_profile_count(p), cap = 16, i;

	while (cap < 2 * n + 2)
		cap *= 2;
	km->keys = calloc(cap, sizeof(*km->keys));
	km->vals = calloc(cap, sizeof(*km->vals));
	if (!km->keys || !km->vals) {
		free(km->keys);
		free(km->vals);
		return GPUPROJ_E_NOMEM;
	}
	km->mask = cap - 1;
	for (i = 0; i < n; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		size_t h = (size_t)timeline_mix(0, (uint64_t)(uintptr_t)k) & km->mask;

		while (km->keys[h])
			h = (h + 1) & km->mask;
		km->keys[h] = k;
		km->vals[h] = i;
	}
	return GPUPROJ_OK;
}

static size_t
kmap_get(const struct kmap *km, const struct gpuproj_kernel *k)
{
	size_t h = (size_t)timeline_mix(0, (uint64_t)(uintptr_t)k) & km->mask;

	while (km->keys[h]) {
		if (km->keys[h] == k)
			return km->vals[h];
		h = (h + 1) & km->mask;
	}
	return SIZE_MAX;
}

/* Per kernel: the target's time over the source's (point, lo, hi); 1 where not projected. */
struct kratio {
	double r[3];
	bool kept;
};

static struct kratio
ratio_of(const struct kmap *km, const struct gpuproj_run_projection *run,
	 const struct gpuproj_kernel *k)
{
	struct kratio kr = { { 1, 1, 1 }, true };
	size_t i = kmap_get(km, k);
	const struct gpuproj_projection *pr;
	double mean;

	if (i == SIZE_MAX || !run || i >= run->n)
		return kr;
	pr = &run->kernels[i];
	mean = gpuproj_kernel_mean_ns(k);
	if (pr->status != GPUPROJ_OK || !(mean > 0) || !isfinite(pr->point_ns))
		return kr;
	kr.r[0] = pr->point_ns / mean;
	kr.r[1] = isfinite(pr->lo_ns) ? pr->lo_ns / mean : kr.r[0];
	kr.r[2] = isfinite(pr->hi_ns) ? pr->hi_ns / mean : kr.r[0];
	kr.kept = false;
	return kr;
}

int
gpuproj_timeline_project(const struct gpuproj_profile *p, const struct gpuproj_run_projection *run,
			 const struct gpuproj_target *src, const struct gpuproj_target *tgt,
			 struct gpuproj_whole_run *out)
{
	const struct gpuproj_timeline *tl;
	struct kmap km = { 0 };
	double e = 0, u, rsrc = 0, rt[3] = { 0, 0, 0 }, w, span, f, c, scale, replayed;
	struct gpuproj_tl_parts sum = { 0 };
	bool identity;
	size_t i, j, g;
	double *dur = NULL;
	int r = GPUPROJ_OK;

	if (!p || !out)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	tl = gpuproj_profile_timeline(p);
	if (!tl || !tl->n_patterns)
		return GPUPROJ_OK;
	if (run && run->n != gpuproj_profile_count(p))
		return GPUPROJ_E_INVAL;
	identity = !src || !tgt || src == tgt ||
		   (src->name && tgt->name && strcmp(src->name, tgt->name) == 0);
	if (kmap_build(&km, p))
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < tl->n_patterns && !r; i++) {
		const struct gpuproj_tl_pattern *pat = &tl->patterns[i];
		double cnt = (double)pat->wall_ns.n;
		struct gpuproj_tl_parts parts;
		int v;

		free(dur);
		dur = malloc(3 * pat->n_nodes * sizeof(*dur));
		if (!dur) {
			r = GPUPROJ_E_NOMEM;
			break;
		}
		for (j = 0; j < pat->n_nodes; j++) {
			const struct gpuproj_tl_node *n = &pat->nodes[j];
			double d = n->dur_ns.mean;
			bool kept = false;

			for (v = 0; v < 3; v++)
				dur[v * pat->n_nodes + j] = d;
			if (identity)
				continue;
			if (n->op == GPUPROJ_TL_KERNEL) {
				struct kratio kr = ratio_of(&km, run, n->kernel);

				for (v = 0; v < 3; v++)
					dur[v * pat->n_nodes + j] = d * kr.r[v];
				out->kernels_kept += kr.kept;
			} else if (n->op == GPUPROJ_TL_GRAPH) {
				double base = d, add[3] = { 0, 0, 0 };

				for (g = 0; g < n->n_graph; g++) {
					struct kratio kr = ratio_of(&km, run, n->graph[g].kernel);

					base -= n->graph[g].ns.mean;
					for (v = 0; v < 3; v++)
						add[v] += n->graph[g].ns.mean * kr.r[v];
					out->kernels_kept += kr.kept;
				}
				for (v = 0; v < 3; v++)
					dur[v * pat->n_nodes + j] = (base > 0 ? base : 0) + add[v];
			} else if (n->op == GPUPROJ_TL_COPY || n->op == GPUPROJ_TL_MEMSET) {
				double t = gpuproj_copy_project_ns(d, n->op == GPUPROJ_TL_MEMSET
								       ? GPUPROJ_COPY_D2D : n->copy,
								   n->pinned, n->bytes, src, tgt, &kept);

				for (v = 0; v < 3; v++)
					dur[v * pat->n_nodes + j] = t;
				out->copies_kept += kept;
			}
		}
		for (v = 0; v < 3 && !r; v++) {
			r = gpuproj_timeline_replay(pat, &dur[v * pat->n_nodes], &parts);
			rt[v] += cnt * parts.wall_ns;
			if (v == 0 && !r) {
				sum.kernel_ns += cnt * parts.kernel_ns;
				sum.copy_ns += cnt * parts.copy_ns;
				sum.host_ns += cnt * parts.host_ns;
				sum.idle_ns += cnt * parts.idle_ns;
				sum.overlap_ns += cnt * parts.overlap_ns;
				sum.excl_kernel_ns += cnt * parts.excl_kernel_ns;
				sum.excl_copy_ns += cnt * parts.excl_copy_ns;
				sum.excl_host_ns += cnt * parts.excl_host_ns;
			}
		}
		if (!r && !(r = gpuproj_timeline_replay(pat, NULL, &parts)))
			rsrc += cnt * parts.wall_ns;
		e += pat->wall_ns.sum;
	}
	free(dur);
	free(km.keys);
	free(km.vals);
	if (r)
		return r;
	/*
	 * Threads that overlapped: their epochs add up to more than the span
	 * they covered; f scales the replayed and unexplained parts back to it.
	 */
	u = gpuproj_timeline_unexplained_ns(tl);
	w = tl->wall_ns;
	if (!(w >= 0))
		w = gpuproj_profile_run_info(p)->wall_ns;
	span = tl->span_ns > 0 ? tl->span_ns : e + u;
	if (!(w >= span))
		w = span;
	f = e + u > 0 ? fmin(1.0, span / (e + u)) : 1.0;
	c = w - span;
	/* A merged job: its slowest rank's measured wall, scaled by the job's ratio. */
	scale = 1.0;
	out->source_ns = w;
	if (tl->ranks > 1) {
		double rw = gpuproj_profile_run_info(p)->wall_ns;

		out->source_ns = rw > 0 ? rw : w / tl->ranks;
		scale = w > 0 ? out->source_ns / w : 1.0;
	}
	replayed = f * rt[0];
	out->valid = true;
	out->replayed_ns = scale * replayed;
	out->carried_ns = scale * (f * u + c);
	out->wall_ns = out->replayed_ns + out->carried_ns;
	out->lo_ns = scale * (f * rt[1] + f * u + c);
	out->hi_ns = scale * (f * rt[2] + f * u + c);
	out->speedup = out->wall_ns > 0 ? out->source_ns / out->wall_ns : NAN;
	out->kernel_ns = scale * f * sum.kernel_ns;
	out->copy_ns = scale * f * sum.copy_ns;
	out->host_ns = scale * f * sum.host_ns;
	out->idle_ns = scale * f * sum.idle_ns;
	out->overlap_ns = scale * f * sum.overlap_ns;
	out->bar_kernel_ns = scale * f * sum.excl_kernel_ns;
	out->bar_copy_ns = scale * f * sum.excl_copy_ns;
	out->bar_host_ns = scale * f * sum.excl_host_ns;
	out->explained = w > 0 ? f * e / w : 0;
	out->reconstructed = w > 0 ? fmin(f * tl->reconstructed.ns / w, out->explained) : 0;
	out->identity_error = e > 0 ? (rsrc - e) / e : 0;
	out->bound = e > 0 ? gpuproj_timeline_bound_ns(tl) / e : 0;
	return GPUPROJ_OK;
}
