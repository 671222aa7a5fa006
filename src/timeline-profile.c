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
	/*
	 * Times that cannot have been traced. A thread's epochs
	 * follow one another, so their measured times add up to at most the
	 * span of the threads' epochs, itself within the traced wall time.
	 * Before, a pattern of 2^63 - 1 epochs of 10^18 ns (each inside its
	 * range) in a run of a second was read, and projected to "0 ns".
	 */
	if (!isnan(tl->wall_ns) && tl->span_ns > tl->wall_ns * (1 + 1e-9) + 1)
		return bad(file, err, "timeline.span_ns %.17g is above its wall_ns %.17g: the "
			   "threads' epochs cannot span more than the traced run", tl->span_ns,
			   tl->wall_ns);
	for (i = 0; i < tl->n_patterns; i++) {
		const struct gpuproj_tl_pattern *pat = &tl->patterns[i];
		double thread_ns = 0;

		/* Once per thread, at its first pattern (P <= 4,096: P^2 / 2 at worst). */
		for (j = 0; j < i && tl->patterns[j].thread != pat->thread; j++)
			;
		if (j < i)
			continue;
		for (j = i; j < tl->n_patterns; j++) {
			if (tl->patterns[j].thread == pat->thread)
				thread_ns += tl->patterns[j].wall_ns.sum;
		}
		if (thread_ns > tl->span_ns * (1 + 1e-9) + 1)
			return bad(file, err, "timeline.patterns[%zu].wall_ns (thread %u): the "
				   "thread's epochs measure %.17g ns in all (count x mean "
				   "wall_ns over its patterns), above the %.17g ns the "
				   "timeline's epochs span (span_ns)", i, pat->thread, thread_ns,
				   tl->span_ns);
	}
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

int
gpuproj_timeline_check_identity(const struct gpuproj_timeline *tl, const char *file,
				struct gpuproj_error *err)
{
	size_t i, j;

	for (i = 0; tl && i < tl->n_patterns; i++) {
		const struct gpuproj_tl_pattern *pat = &tl->patterns[i];
		struct gpuproj_tl_parts parts;
		bool waits = timeline_pattern_waits(pat);
		double b = 0, mean = pat->wall_ns.mean;
		char a[32], m[32], s[32];
		int r;

		if ((r = gpuproj_timeline_replay(pat, NULL, &parts)))
			return r == GPUPROJ_E_NOMEM
				       ? error_set(err, r, file, 0, 0, "out of memory")
				       : error_set(err, r, file, 0, 0, "invalid argument");
		for (j = 0; j < pat->n_nodes; j++) {
			const struct gpuproj_tl_node *n = &pat->nodes[j];

			b += gpuproj_stats_stddev(&n->gap_ns) + gpuproj_stats_stddev(&n->call_ns);
			if (waits)
				b += gpuproj_stats_stddev(&n->lat_ns) +
				     gpuproj_stats_stddev(&n->dur_ns);
		}
		if (fabs(parts.wall_ns - mean) <= GPUPROJ_TL_IDENTITY_TOLERANCE * mean + b + 1)
			continue;
		return bad(file, err, "timeline.patterns[%zu] (thread %u, %" PRIu64 " epochs): "
			   "replayed at its mean times it takes %s against the %s measured "
			   "(%+.1f %%), beyond the %g %% tolerance and the %s its times' spread "
			   "allows: the timeline does not describe what was measured", i,
			   pat->thread, pat->wall_ns.n, format_ns(parts.wall_ns, a, sizeof(a)),
			   format_ns(mean, m, sizeof(m)),
			   mean > 0 ? 100 * (parts.wall_ns - mean) / mean : 100.0,
			   100 * GPUPROJ_TL_IDENTITY_TOLERANCE, format_ns(b, s, sizeof(s)));
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

/*
 * Sums kept per thread (the ratio of target to source GPU
 * time of its cut epochs, which scales the work they carry) and per
 * (thread, stream slot) (the floor), in one open-addressing map of 64-bit
 * keys, key + 1 stored so that 0 is empty.
 */
struct sums {
	uint64_t *keys;
	double (*v)[4];		/* [0..2]: point, lo, hi; [3]: the source's */
	size_t mask, n;
};

static double *
sums_at(struct sums *m, uint64_t key)
{
	size_t h;

	if (!m->keys || (m->n + 1) * 2 > m->mask + 1) {
		size_t cap = m->keys ? 2 * (m->mask + 1) : 64, i;
		uint64_t *keys = calloc(cap, sizeof(*keys));
		double (*v)[4] = calloc(cap, sizeof(*v));

		if (!keys || !v) {
			free(keys);
			free(v);
			return NULL;
		}
		for (i = 0; m->keys && i <= m->mask; i++) {
			if (!m->keys[i])
				continue;
			for (h = (size_t)timeline_mix(0, m->keys[i]) & (cap - 1); keys[h];
			     h = (h + 1) & (cap - 1))
				;
			keys[h] = m->keys[i];
			memcpy(v[h], m->v[i], sizeof(v[h]));
		}
		free(m->keys);
		free(m->v);
		m->keys = keys;
		m->v = v;
		m->mask = cap - 1;
	}
	for (h = (size_t)timeline_mix(0, key + 1) & m->mask; m->keys[h]; h = (h + 1) & m->mask) {
		if (m->keys[h] == key + 1)
			return m->v[h];
	}
	m->keys[h] = key + 1;
	m->n++;
	return m->v[h];
}

static void
sums_free(struct sums *m)
{
	free(m->keys);
	free(m->v);
}

/* The value at `key`, or NULL when it has none. */
static const double *
sums_find(const struct sums *m, uint64_t key)
{
	size_t h;

	if (!m->keys)
		return NULL;
	for (h = (size_t)timeline_mix(0, key + 1) & m->mask; m->keys[h]; h = (h + 1) & m->mask) {
		if (m->keys[h] == key + 1)
			return m->v[h];
	}
	return NULL;
}

/* The rules of one target's durations (timeline-private.h). */
struct timeline_durations {
	struct kmap km;
	struct sums threads;	/* per thread: its cut epochs' GPU time, projected and source */
	const struct gpuproj_run_projection *run;
	const struct gpuproj_target *src, *tgt;
	bool identity;
};

/*
 * One node's GPU duration on the target, d[0..2] (point, lo, hi), by the
 * rules of timeline.h; carried work by the thread's ratio `carry`. The kept
 * counters are incremented when given.
 */
void
timeline_durations_node(const struct timeline_durations *td, const struct gpuproj_tl_node *n,
			const double carry[3], double d[3], size_t *kernels_kept,
			size_t *copies_kept)
{
	double m = n->dur_ns.mean;
	size_t g;
	int v;

	for (v = 0; v < 3; v++)
		d[v] = m;
	if (td->identity)
		return;
	if (n->op == GPUPROJ_TL_KERNEL) {
		struct kratio kr = ratio_of(&td->km, td->run, n->kernel);

		for (v = 0; v < 3; v++)
			d[v] = m * kr.r[v];
		if (kernels_kept)
			*kernels_kept += kr.kept;
	} else if (n->op == GPUPROJ_TL_GRAPH) {
		double base = m, add[3] = { 0, 0, 0 };

		for (g = 0; g < n->n_graph; g++) {
			struct kratio kr = ratio_of(&td->km, td->run, n->graph[g].kernel);

			base -= n->graph[g].ns.mean;
			for (v = 0; v < 3; v++)
				add[v] += n->graph[g].ns.mean * kr.r[v];
			if (kernels_kept)
				*kernels_kept += kr.kept;
		}
		for (v = 0; v < 3; v++)
			d[v] = (base > 0 ? base : 0) + add[v];
	} else if (n->op == GPUPROJ_TL_COPY || n->op == GPUPROJ_TL_MEMSET) {
		bool kept = false;
		double t = gpuproj_copy_project_ns(m, n->op == GPUPROJ_TL_MEMSET ? GPUPROJ_COPY_D2D
										  : n->copy,
						   n->pinned, n->bytes, td->src, td->tgt, &kept);

		for (v = 0; v < 3; v++)
			d[v] = t;
		if (copies_kept)
			*copies_kept += kept;
	} else if (n->op == GPUPROJ_TL_CARRY) {
		for (v = 0; v < 3; v++)
			d[v] = m * carry[v];
	}
}

void
timeline_durations_carry(const struct timeline_durations *td, uint32_t thread, double r[3])
{
	const double *t = sums_find(&td->threads, thread);
	int v;

	for (v = 0; v < 3; v++)
		r[v] = t && t[3] > 0 ? t[v] / t[3] : 1.0;
}

void
timeline_durations_free(struct timeline_durations *td)
{
	if (!td)
		return;
	free(td->km.keys);
	free(td->km.vals);
	sums_free(&td->threads);
	free(td);
}

/* Onto the source itself (no target, or the same GPU by name): measured times. */
static bool
same_gpu(const struct gpuproj_target *src, const struct gpuproj_target *tgt)
{
	return !src || !tgt || src == tgt ||
	       (src->name && tgt->name && strcmp(src->name, tgt->name) == 0);
}

int
timeline_durations_new(struct timeline_durations **ret, const struct gpuproj_profile *p,
		       const struct gpuproj_run_projection *run, const struct gpuproj_target *src,
		       const struct gpuproj_target *tgt)
{
	const struct gpuproj_timeline *tl = gpuproj_profile_timeline(p);
	struct timeline_durations *td = calloc(1, sizeof(*td));
	static const double one[3] = { 1, 1, 1 };
	size_t i, j;
	int v;

	*ret = NULL;
	if (!td || kmap_build(&td->km, p)) {
		free(td);
		return GPUPROJ_E_NOMEM;
	}
	td->run = run;
	td->src = src;
	td->tgt = tgt;
	td->identity = same_gpu(src, tgt);
	/* Each thread's cut epochs, target against source GPU time (the work they carry). */
	for (i = 0; tl && i < tl->n_patterns; i++) {
		const struct gpuproj_tl_pattern *pat = &tl->patterns[i];
		double cnt = (double)pat->wall_ns.n, *t;

		if (!pat->cut)
			continue;
		if (!(t = sums_at(&td->threads, pat->thread))) {
			timeline_durations_free(td);
			return GPUPROJ_E_NOMEM;
		}
		for (j = 0; j < pat->n_nodes; j++) {
			const struct gpuproj_tl_node *n = &pat->nodes[j];
			double d[3];

			if (!gpuproj_tl_op_gpu(n->op) || n->op == GPUPROJ_TL_CARRY)
				continue;
			timeline_durations_node(td, n, one, d, NULL, NULL);
			for (v = 0; v < 3; v++)
				t[v] += cnt * d[v];
			t[3] += cnt * n->dur_ns.mean;
		}
	}
	*ret = td;
	return GPUPROJ_OK;
}

/* What pass 2 of gpuproj_timeline_project() sums over the patterns. */
struct replay_sums {
	double e;		/* the patterns' measured wall, ns */
	double rsrc;		/* their replay at the source's times, ns */
	double rt[3];		/* their replay onto the target (point, lo, hi), ns */
	double bound_t;		/* the spreads of the target's times, ns */
	double rmax;		/* the largest ratio of carried work, at least 1 */
	struct gpuproj_tl_parts parts; /* the point replay's parts */
	struct sums slots;	/* per thread and stream: its GPU work (point, lo, hi), ns */
};

/*
 * Pass 2 for one pattern: its nodes' durations onto the target, their
 * spreads for the bound, each stream's GPU work for the floor, and the
 * pattern replayed onto the target and onto its source, into `acc`.
 */
static int
replay_pattern(const struct timeline_durations *td, const struct gpuproj_tl_pattern *pat,
	       struct replay_sums *acc, struct gpuproj_whole_run *out)
{
	double cnt = (double)pat->wall_ns.n, carry[3];
	double *dur = malloc(3 * pat->n_nodes * sizeof(*dur));
	struct gpuproj_tl_parts parts, *sum = &acc->parts;
	size_t j;
	int r = GPUPROJ_OK, v;
	bool waits;

	if (!dur)
		return GPUPROJ_E_NOMEM;
	timeline_durations_carry(td, pat->thread, carry);
	acc->rmax = fmax(acc->rmax, carry[0]);
	waits = timeline_pattern_waits(pat);
	for (j = 0; j < pat->n_nodes && !r; j++) {
		const struct gpuproj_tl_node *n = &pat->nodes[j];
		double d[3], *sl;

		timeline_durations_node(td, n, carry, d, &out->kernels_kept, &out->copies_kept);
		for (v = 0; v < 3; v++)
			dur[v * pat->n_nodes + j] = d[v];
		/* As gpuproj_timeline_bound_ns(), the GPU times' spreads projected. */
		acc->bound_t += cnt * (gpuproj_stats_stddev(&n->gap_ns) +
				       gpuproj_stats_stddev(&n->call_ns));
		if (waits)
			acc->bound_t += cnt * (gpuproj_stats_stddev(&n->lat_ns) +
					       gpuproj_stats_stddev(&n->dur_ns) *
						       (n->dur_ns.mean > 0 ? d[0] / n->dur_ns.mean
									   : 1));
		if (!gpuproj_tl_op_gpu(n->op) || n->op == GPUPROJ_TL_CARRY ||
		    n->stream == GPUPROJ_TL_NONE)
			continue;
		/* One stream's GPU work of one thread, over all its epochs (the floor). */
		if (!(sl = sums_at(&acc->slots, (uint64_t)pat->thread << 16 | n->stream))) {
			r = GPUPROJ_E_NOMEM;
			break;
		}
		for (v = 0; v < 3; v++)
			sl[v] += cnt * d[v];
	}
	for (v = 0; v < 3 && !r; v++) {
		r = gpuproj_timeline_replay(pat, &dur[v * pat->n_nodes], &parts);
		acc->rt[v] += cnt * parts.wall_ns;
		if (v == 0 && !r) {
			sum->kernel_ns += cnt * parts.kernel_ns;
			sum->copy_ns += cnt * parts.copy_ns;
			sum->host_ns += cnt * parts.host_ns;
			sum->idle_ns += cnt * parts.idle_ns;
			sum->overlap_ns += cnt * parts.overlap_ns;
			sum->excl_kernel_ns += cnt * parts.excl_kernel_ns;
			sum->excl_copy_ns += cnt * parts.excl_copy_ns;
			sum->excl_host_ns += cnt * parts.excl_host_ns;
		}
	}
	if (!r && !(r = gpuproj_timeline_replay(pat, NULL, &parts)))
		acc->rsrc += cnt * parts.wall_ns;
	acc->e += pat->wall_ns.sum;
	free(dur);
	return r;
}

int
gpuproj_timeline_project(const struct gpuproj_profile *p, const struct gpuproj_run_projection *run,
			 const struct gpuproj_target *src, const struct gpuproj_target *tgt,
			 struct gpuproj_whole_run *out)
{
	const struct gpuproj_timeline *tl;
	struct timeline_durations *td = NULL;
	struct replay_sums acc = { .rmax = 1 };
	const struct gpuproj_tl_parts *sum = &acc.parts;
	double e, u, w, span, f, c, scale, replayed, floor[3] = { 0, 0, 0 };
	const double *rt = acc.rt;
	size_t i;
	int r = GPUPROJ_OK, v;

	if (!p || !out)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	tl = gpuproj_profile_timeline(p);
	if (!tl || !tl->n_patterns)
		return GPUPROJ_OK;
	if (run && run->n != gpuproj_profile_count(p))
		return GPUPROJ_E_INVAL;
	/* Pass 1 (timeline_durations_new()): each thread's cut epochs, for the work they carry. */
	if (timeline_durations_new(&td, p, run, src, tgt))
		return GPUPROJ_E_NOMEM;
	/* Pass 2: every pattern replayed; the floor and the bound onto the target. */
	for (i = 0; i < tl->n_patterns && !r; i++)
		r = replay_pattern(td, &tl->patterns[i], &acc, out);
	timeline_durations_free(td);
	for (i = 0; !r && acc.slots.keys && i <= acc.slots.mask; i++) {
		for (v = 0; acc.slots.keys[i] && v < 3; v++)
			floor[v] = fmax(floor[v], acc.slots.v[i][v]);
	}
	sums_free(&acc.slots);
	if (r)
		return r;
	e = acc.e;
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
	/* The bound onto this target: its times' spreads, spill not carried (old profiles). */
	out->bound_ns = scale * f *
			(acc.bound_t + (isfinite(tl->spill_ns) ? tl->spill_ns : 0) * acc.rmax);
	out->lo_ns = fmax(0, scale * (f * rt[1] + f * u + c) - out->bound_ns);
	out->hi_ns = scale * (f * rt[2] + f * u + c) + out->bound_ns;
	out->kernel_ns = scale * f * sum->kernel_ns;
	out->copy_ns = scale * f * sum->copy_ns;
	out->host_ns = scale * f * sum->host_ns;
	out->idle_ns = scale * f * sum->idle_ns;
	/* Per pattern the work a cut epoch hands on may look like negative overlap; not in all. */
	out->overlap_ns = fmax(0, scale * f * sum->overlap_ns);
	out->bar_kernel_ns = scale * f * sum->excl_kernel_ns;
	out->bar_copy_ns = scale * f * sum->excl_copy_ns;
	out->bar_host_ns = scale * f * sum->excl_host_ns;
	/*
	 * Never below one stream's GPU time: a thread whose epochs
	 * end before its GPU work (one that never synchronises) is replayed at
	 * its host time. The difference is GPU time: replayed, in the bar's kernel.
	 */
	out->floor_ns = floor[0];
	if (out->wall_ns < floor[0]) {
		double add = floor[0] - out->wall_ns;

		out->wall_ns = floor[0];
		out->replayed_ns += add;
		out->bar_kernel_ns += add;
		out->floored = true;
	}
	out->lo_ns = fmax(out->lo_ns, floor[1]);
	out->hi_ns = fmax(out->hi_ns, floor[2]);
	/*
	 * The speedup is over the source's own replay: a measured wall below
	 * the source's GPU time (floored there as here) would make the source
	 * itself "0.03x". No measured whole run (a wall of 0): no speedup.
	 */
	out->source_wall_ns = out->wall_ns;
	if (!same_gpu(src, tgt)) {
		struct gpuproj_whole_run ws;

		if (gpuproj_timeline_project(p, NULL, src, src, &ws) == GPUPROJ_OK && ws.valid)
			out->source_wall_ns = ws.wall_ns;
		else
			out->source_wall_ns = out->source_ns;
	}
	if (!(out->source_ns > 0))
		out->source_wall_ns = 0;
	out->speedup = out->wall_ns > 0 && out->source_wall_ns > 0
			       ? out->source_wall_ns / out->wall_ns : NAN;
	out->explained = w > 0 ? f * e / w : 0;
	out->reconstructed = w > 0 ? fmin(f * tl->reconstructed.ns / w, out->explained) : 0;
	out->identity_error = e > 0 ? (acc.rsrc - e) / e : 0;
	out->bound = e > 0 ? gpuproj_timeline_bound_ns(tl) / e : 0;
	return GPUPROJ_OK;
}
