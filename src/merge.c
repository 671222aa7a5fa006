/* SPDX-License-Identifier: MIT */
/*
 * Merging per-rank profiles into a job profile (include/gpuproj/merge.h).
 *
 * The merge owns one growing profile. Each rank is folded record by record
 * into it (signature without the device ordinal); the rank's total time per
 * signature is summed in a side table while the rank is folded and added as
 * one sample of that signature's per-rank statistics afterwards. Ranks that
 * never launched a signature are added as a block of zeros at the end
 * (gpuproj_stats_merge() with an all-zero block), so nothing per rank is
 * kept: memory is the merged records plus a few words per record, plus the
 * rank numbers seen (for duplicate detection).
 *
 * Thread safety: one merge per thread; no global state.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuproj/merge.h>
#include <gpuproj/timeline.h>

#include "profile-private.h"
#include "util.h"

/* ---- folding one record into another ---- */

static void
metric_fold(double *sum, uint32_t *n, double bsum, uint32_t bn)
{
	uint64_t total = (uint64_t)*n + bn;

	if (total <= UINT32_MAX) {
		*sum += bsum;
		*n = (uint32_t)total;
		return;
	}
	/* Beyond 2^32 profiled launches: keep the mean, saturate the count. */
	*sum = (*sum + bsum) / (double)total * (double)UINT32_MAX;
	*n = UINT32_MAX;
}

int
gpuproj_kernel_merge(struct gpuproj_kernel *dst, const struct gpuproj_kernel *src)
{
	size_t i, j;

	if (!dst || !src)
		return GPUPROJ_E_INVAL;
	dst->launches += src->launches;
	dst->profiled += src->profiled;
	gpuproj_stats_merge(&dst->duration_ns, &src->duration_ns);
	for (i = 0; i < GPUPROJ_M_COUNT; i++) {
		if (src->metric_n[i])
			metric_fold(&dst->metric_sum[i], &dst->metric_n[i], src->metric_sum[i],
				    src->metric_n[i]);
	}
	if (src->smem_static > dst->smem_static)
		dst->smem_static = src->smem_static;
	if (src->regs_per_thread > dst->regs_per_thread)
		dst->regs_per_thread = src->regs_per_thread;
	if (!dst->demangled && src->demangled &&
	    profile_kernel_set_demangled(dst, src->demangled))
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < src->n_extra; i++) {
		const struct gpuproj_extra_metric *e = &src->extra[i];

		if (gpuproj_kernel_add_extra(dst, e->name, e->unit, e->sum))
			return GPUPROJ_E_NOMEM;
		/* add_extra counted one launch; account for all of e's. */
		for (j = 0; j < dst->n_extra; j++) {
			if (strcmp(dst->extra[j].name, e->name) == 0) {
				dst->extra[j].n += e->n - 1;
				break;
			}
		}
	}
	for (i = 0; i < src->n_refs; i++) {
		const struct gpuproj_reference *b = &src->refs[i];
		const struct gpuproj_reference *a = gpuproj_kernel_reference(dst, b->gpu);
		double mean = b->mean_ns;
		uint64_t launches = b->launches;

		if (a) {
			launches = a->launches + b->launches;
			mean = launches ? (a->mean_ns * (double)a->launches +
					   b->mean_ns * (double)b->launches) / (double)launches
					: (a->mean_ns + b->mean_ns) / 2;
		}
		if (gpuproj_kernel_set_reference(dst, b->gpu, mean, launches))
			return GPUPROJ_E_NOMEM;
	}
	return GPUPROJ_OK;
}

double
gpuproj_merge_imbalance(const struct gpuproj_rank_stats *r)
{
	if (!r || r->time_ns.n == 0 || !(r->time_ns.mean > 0))
		return NAN;
	return r->time_ns.max / r->time_ns.mean - 1.0;
}

/* ---- the merge ---- */

/* Side data of one merged record, found by record address. */
struct rec {
	struct gpuproj_kernel *k;   /* the merged record (owned by the merge's profile) */
	double acc;          /* this rank's total time so far, ns */
	uint64_t covered;    /* ranks accounted in k->ranks.time_ns */
	uint64_t stamp;      /* generation of the rank that last touched it */
	bool launched;       /* this rank launched it */
};

/* A rank number seen, with the file it came from. */
struct seen_rank {
	int64_t rank;        /* -1 = empty slot */
	char *label;
};

struct gpuproj_merge {
	struct gpuproj_merge_options opt;
	struct gpuproj_profile *out;
	/* Records by address: open addressing, index + 1, 0 = empty. */
	struct rec *recs;
	size_t n_recs, cap_recs;
	size_t *slots;
	size_t nslots;
	size_t *touched;     /* rec indices touched by the current rank */
	size_t n_touched, cap_touched;
	uint64_t gen;
	uint64_t ranks;      /* ranks merged */
	struct seen_rank *seen;
	size_t n_seen, nseen_slots;
	/* What the first rank that says fixed. */
	char *app, *app_label;
	char *gpu_name, *gpu_target, *gpu_label;
	bool warned_app, warned_gpu, warned_rank;
	char *host;
	bool host_mixed;
	double wall_max;
	double gpu_sum;
	bool gpu_unknown;
	uint64_t dropped;
	/* Ranks without a timeline (timeline.h): their wall time, counted unexplained at the end. */
	uint64_t tl_missing;
	double tl_missing_ns;
	bool broken;         /* ENOMEM in the middle of a fold */
	bool finished;
};

static size_t
ptr_hash(const void *p, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)p;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h & mask;
}

static int
rec_rehash(struct gpuproj_merge *m, size_t nslots)
{
	size_t *slots = calloc(nslots, sizeof(*slots)), i;

	if (!slots)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < m->n_recs; i++) {
		size_t h = ptr_hash(m->recs[i].k, nslots - 1);

		while (slots[h])
			h = (h + 1) & (nslots - 1);
		slots[h] = i + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = nslots;
	return GPUPROJ_OK;
}

/* The side record of k, created when new; NULL on ENOMEM. */
static struct rec *
rec_get(struct gpuproj_merge *m, struct gpuproj_kernel *k)
{
	size_t h = ptr_hash(k, m->nslots - 1);
	struct rec *r;

	while (m->slots[h]) {
		r = &m->recs[m->slots[h] - 1];
		if (r->k == k)
			return r;
		h = (h + 1) & (m->nslots - 1);
	}
	if ((m->n_recs + 1) * 2 > m->nslots) {
		if (rec_rehash(m, m->nslots * 2))
			return NULL;
		h = ptr_hash(k, m->nslots - 1);
		while (m->slots[h])
			h = (h + 1) & (m->nslots - 1);
	}
	if (m->n_recs == m->cap_recs) {
		size_t cap = m->cap_recs ? m->cap_recs * 2 : 256;
		struct rec *nr = realloc(m->recs, cap * sizeof(*nr));

		if (!nr)
			return NULL;
		m->recs = nr;
		m->cap_recs = cap;
	}
	r = &m->recs[m->n_recs];
	memset(r, 0, sizeof(*r));
	r->k = k;
	m->slots[h] = ++m->n_recs;
	return r;
}

static int
touched_push(struct gpuproj_merge *m, size_t idx)
{
	if (m->n_touched == m->cap_touched) {
		size_t cap = m->cap_touched ? m->cap_touched * 2 : 256;
		size_t *nt = realloc(m->touched, cap * sizeof(*nt));

		if (!nt)
			return GPUPROJ_E_NOMEM;
		m->touched = nt;
		m->cap_touched = cap;
	}
	m->touched[m->n_touched++] = idx;
	return GPUPROJ_OK;
}

/* Rank-number set (open addressing on the rank value). */
static struct seen_rank *
seen_find(const struct gpuproj_merge *m, int64_t rank)
{
	size_t h;

	if (!m->nseen_slots)
		return NULL;
	h = ptr_hash((const void *)(uintptr_t)rank, m->nseen_slots - 1);
	while (m->seen[h].rank >= 0) {
		if (m->seen[h].rank == rank)
			return &m->seen[h];
		h = (h + 1) & (m->nseen_slots - 1);
	}
	return NULL;
}

static int
seen_add(struct gpuproj_merge *m, int64_t rank, const char *label)
{
	size_t h, i;
	char *copy;

	if ((m->n_seen + 1) * 2 > m->nseen_slots) {
		size_t n = m->nseen_slots ? m->nseen_slots * 2 : 64;
		struct seen_rank *ns = malloc(n * sizeof(*ns));

		if (!ns)
			return GPUPROJ_E_NOMEM;
		for (i = 0; i < n; i++)
			ns[i].rank = -1;
		for (i = 0; i < m->nseen_slots; i++) {
			if (m->seen[i].rank < 0)
				continue;
			h = ptr_hash((const void *)(uintptr_t)m->seen[i].rank, n - 1);
			while (ns[h].rank >= 0)
				h = (h + 1) & (n - 1);
			ns[h] = m->seen[i];
		}
		free(m->seen);
		m->seen = ns;
		m->nseen_slots = n;
	}
	copy = strdup(label);
	if (!copy)
		return GPUPROJ_E_NOMEM;
	h = ptr_hash((const void *)(uintptr_t)rank, m->nseen_slots - 1);
	while (m->seen[h].rank >= 0)
		h = (h + 1) & (m->nseen_slots - 1);
	m->seen[h].rank = rank;
	m->seen[h].label = copy;
	m->n_seen++;
	return GPUPROJ_OK;
}

int
gpuproj_merge_new(const struct gpuproj_merge_options *opt, struct gpuproj_merge **ret)
{
	struct gpuproj_merge *m;

	if (!ret)
		return GPUPROJ_E_INVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return GPUPROJ_E_NOMEM;
	if (opt)
		m->opt = *opt;
	m->out = gpuproj_profile_new();
	if (!m->out || rec_rehash(m, 512)) {
		gpuproj_merge_free(m);
		return GPUPROJ_E_NOMEM;
	}
	m->wall_max = NAN;
	*ret = m;
	return GPUPROJ_OK;
}

struct gpuproj_merge *
gpuproj_merge_free(struct gpuproj_merge *m)
{
	size_t i;

	if (!m)
		return NULL;
	gpuproj_profile_free(m->out);
	free(m->recs);
	free(m->slots);
	free(m->touched);
	for (i = 0; i < m->nseen_slots; i++) {
		if (m->seen[i].rank >= 0)
			free(m->seen[i].label);
	}
	free(m->seen);
	free(m->app);
	free(m->app_label);
	free(m->gpu_name);
	free(m->gpu_target);
	free(m->gpu_label);
	free(m->host);
	free(m);
	return NULL;
}

size_t
gpuproj_merge_ranks(const struct gpuproj_merge *m)
{
	return m ? (size_t)m->ranks : 0;
}

/* Basename of the application, else of argv[0]; NULL when neither is known. */
static const char *
app_name(const struct gpuproj_process_info *pr)
{
	const char *s = pr->application;
	const char *slash;

	if ((!s || !*s) && pr->argv && pr->argv[0])
		s = pr->argv[0];
	if (!s || !*s)
		return NULL;
	slash = strrchr(s, '/');
	return slash && slash[1] ? slash + 1 : s;
}

static void
warn(struct gpuproj_merge *m, const char *fmt, ...) GPUPROJ_PRINTF(2, 3);

static void
warn(struct gpuproj_merge *m, const char *fmt, ...)
{
	char msg[GPUPROJ_ERROR_MSG_SIZE];
	va_list ap;

	if (!m->opt.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	m->opt.warn(m->opt.warn_userdata, msg);
}

/*
 * Compare a rank with what earlier ranks fixed. Returns GPUPROJ_OK (maybe
 * after a warning under --force) or GPUPROJ_E_MISMATCH with reterr set.
 */
static int
check_identity(struct gpuproj_merge *m, const struct gpuproj_profile *rank, const char *label,
	       struct gpuproj_error *reterr)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(rank);
	const struct gpuproj_process_info *pr = gpuproj_profile_process(rank);
	const char *app = app_name(pr);
	const char *mine = NULL, *theirs = NULL;
	const struct seen_rank *s;

	if (app && m->app && strcmp(app, m->app) != 0) {
		if (!m->opt.force)
			return error_set(reterr, GPUPROJ_E_MISMATCH, label, 0, 0,
					 "application '%s' differs from '%s' of %s (pass --force "
					 "to merge anyway)", app, m->app, m->app_label);
		if (!m->warned_app)
			warn(m, "%s: application '%s' differs from '%s' of %s; merged anyway "
			     "(--force)", label, app, m->app, m->app_label);
		m->warned_app = true;
	}
	if (d->target && m->gpu_target) {
		if (!str_eq_nocase_trim(d->target, m->gpu_target)) {
			mine = d->target;
			theirs = m->gpu_target;
		}
	} else if (d->name && m->gpu_name && !str_eq_nocase_trim(d->name, m->gpu_name)) {
		mine = d->name;
		theirs = m->gpu_name;
	}
	if (mine) {
		if (!m->opt.force)
			return error_set(reterr, GPUPROJ_E_MISMATCH, label, 0, 0,
					 "GPU '%s' differs from '%s' of %s (pass --force to merge "
					 "anyway)", mine, theirs, m->gpu_label);
		if (!m->warned_gpu)
			warn(m, "%s: GPU '%s' differs from '%s' of %s; merged anyway (--force), "
			     "the job profile names %s's GPU", label, mine, theirs, m->gpu_label,
			     m->gpu_label);
		m->warned_gpu = true;
	}
	if (pr->rank >= 0 && (s = seen_find(m, pr->rank)) != NULL) {
		if (!m->opt.force)
			return error_set(reterr, GPUPROJ_E_MISMATCH, label, 0, 0,
					 "rank %" PRId64 " was merged already from %s (pass --force "
					 "to merge anyway)", pr->rank, s->label);
		if (!m->warned_rank)
			warn(m, "%s: rank %" PRId64 " was merged already from %s; merged again "
			     "(--force)", label, pr->rank, s->label);
		m->warned_rank = true;
	}
	return GPUPROJ_OK;
}

/* Remember what the first rank that names them says; copy run context. */
static int
take_identity(struct gpuproj_merge *m, const struct gpuproj_profile *rank, const char *label)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(rank);
	const struct gpuproj_process_info *pr = gpuproj_profile_process(rank);
	const char *app = app_name(pr);

	if (app && !m->app) {
		if (!(m->app = strdup(app)) || !(m->app_label = strdup(label)))
			return GPUPROJ_E_NOMEM;
	}
	if ((d->name || d->target) && !m->gpu_label) {
		if (!(m->gpu_label = strdup(label)) ||
		    (d->name && !(m->gpu_name = strdup(d->name))) ||
		    (d->target && !(m->gpu_target = strdup(d->target))))
			return GPUPROJ_E_NOMEM;
	} else if (m->gpu_label) {
		/* A later rank may add the field the first one lacked. */
		if (d->name && !m->gpu_name && !(m->gpu_name = strdup(d->name)))
			return GPUPROJ_E_NOMEM;
		if (d->target && !m->gpu_target && !(m->gpu_target = strdup(d->target)))
			return GPUPROJ_E_NOMEM;
	}
	if (m->ranks == 0) {
		const char *key, *value;
		size_t i;

		if (gpuproj_profile_set_device_info(m->out, d) ||
		    gpuproj_profile_set_process(m->out, pr->application, NULL, -1, -1,
						(const char *const *)pr->argv))
			return GPUPROJ_E_NOMEM;
		for (i = 0; (key = gpuproj_profile_attr_at(rank, i, &value)) != NULL; i++) {
			if (gpuproj_profile_set_attr(m->out, key, value))
				return GPUPROJ_E_NOMEM;
		}
		if (pr->host && !(m->host = strdup(pr->host)))
			return GPUPROJ_E_NOMEM;
	} else if (!m->host_mixed &&
		   (!pr->host || !m->host || strcmp(pr->host, m->host) != 0)) {
		m->host_mixed = true;
	}
	return GPUPROJ_OK;
}

/* Number of ranks a (possibly merged) input stands for; E_SCHEMA when inconsistent. */
static int
input_ranks(const struct gpuproj_profile *rank, const char *label, uint64_t *ret,
	    struct gpuproj_error *reterr)
{
	const struct gpuproj_run_info *run = gpuproj_profile_run_info(rank);
	uint64_t r = run->ranks.time_ns.n;
	size_t i;

	for (i = 0; i < gpuproj_profile_count(rank); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(rank, i);

		if (k->ranks.time_ns.n != r && (r || k->ranks.time_ns.n))
			return error_set(reterr, GPUPROJ_E_SCHEMA, label, 0, 0,
					 "kernels[%zu].ranks.n is %" PRIu64 " but run.ranks.n is %"
					 PRIu64 ": a merged profile has rank statistics for every "
					 "kernel over the same ranks", i, k->ranks.time_ns.n, r);
		if (r && k->device != 0)
			return error_set(reterr, GPUPROJ_E_SCHEMA, label, 0, 0,
					 "kernels[%zu]: a merged profile's kernels carry device 0, "
					 "not %d", i, k->device);
	}
	*ret = r ? r : 1;
	return GPUPROJ_OK;
}

/*
 * The rank's whole-run timeline (timeline.h) folds into the job's; a rank
 * without one (an older libproj.so, an import) adds its wall time to the
 * job's timeline as unexplained at gpuproj_merge_finish(), so that the
 * job's whole-run projection carries it unchanged rather than lose it.
 */
static int
merge_timeline(struct gpuproj_merge *m, const struct gpuproj_profile *rank)
{
	double w = gpuproj_profile_run_info(rank)->wall_ns;

	if (!gpuproj_profile_timeline(rank)) {
		m->tl_missing++;
		m->tl_missing_ns += w > 0 ? w : 0;
		return GPUPROJ_OK;
	}
	return gpuproj_timeline_merge(m->out, rank, false);
}

static void
finish_timeline(struct gpuproj_merge *m)
{
	struct gpuproj_timeline *tl = gpuproj_profile_timeline_mut(m->out);

	if (!tl || !m->tl_missing)
		return;
	tl->ranks += (uint32_t)m->tl_missing;
	tl->wall_ns += m->tl_missing_ns;
	tl->span_ns += m->tl_missing_ns;
	tl->unexplained[GPUPROJ_TL_WHY_INCOMPLETE].ns += m->tl_missing_ns;
}

int
gpuproj_merge_add(struct gpuproj_merge *m, const struct gpuproj_profile *rank, const char *label,
		  struct gpuproj_error *reterr)
{
	const struct gpuproj_process_info *pr;
	const struct gpuproj_run_info *run;
	struct gpuproj_run_info *out_run;
	uint64_t nranks = 1;
	bool merged_input, any_timed = false;
	size_t i;
	int r;

	if (!label)
		label = "<profile>";
	if (!m || !rank || m->broken || m->finished)
		return error_set(reterr, GPUPROJ_E_INVAL, label, 0, 0, "invalid argument");
	if ((r = input_ranks(rank, label, &nranks, reterr)) ||
	    (r = check_identity(m, rank, label, reterr)))
		return r;
	pr = gpuproj_profile_process(rank);
	run = gpuproj_profile_run_info(rank);
	merged_input = run->ranks.time_ns.n > 0;
	/* From here on a failure is ENOMEM, which leaves the merge unusable. */
	m->broken = true;
	if (take_identity(m, rank, label))
		goto nomem;
	if (!merged_input && pr->rank >= 0 && !seen_find(m, pr->rank) &&
	    seen_add(m, pr->rank, label))
		goto nomem;

	m->gen++;
	m->n_touched = 0;
	for (i = 0; i < gpuproj_profile_count(rank); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(rank, i);
		struct gpuproj_signature sig = {
			.name = k->name, .tag = k->tag, .grid = k->grid, .block = k->block,
			.smem_dynamic = k->smem_dynamic, .device = 0,
		};
		struct gpuproj_kernel *dst;
		struct rec *rc;
		double t;

		if (gpuproj_profile_kernel(m->out, &sig, &dst) ||
		    gpuproj_kernel_merge(dst, k) || !(rc = rec_get(m, dst)))
			goto nomem;
		if (merged_input) {
			gpuproj_stats_merge(&dst->ranks.time_ns, &k->ranks.time_ns);
			dst->ranks.present += k->ranks.present;
			rc->covered += nranks;
			continue;
		}
		if (rc->stamp != m->gen) {
			rc->stamp = m->gen;
			rc->acc = 0;
			rc->launched = false;
			if (touched_push(m, (size_t)(rc - m->recs)))
				goto nomem;
		}
		t = gpuproj_kernel_total_ns(k);
		if (!isnan(t)) {
			rc->acc += t;
			any_timed = true;
		}
		if (k->launches)
			rc->launched = true;
	}
	for (i = 0; i < m->n_touched; i++) {
		struct rec *rc = &m->recs[m->touched[i]];

		gpuproj_stats_add(&rc->k->ranks.time_ns, rc->acc);
		if (rc->launched)
			rc->k->ranks.present++;
		rc->covered++;
	}

	if (merge_timeline(m, rank))
		goto nomem;
	out_run = gpuproj_profile_run_info_mut(m->out);
	if (merged_input) {
		gpuproj_stats_merge(&out_run->ranks.time_ns, &run->ranks.time_ns);
		out_run->ranks.present += run->ranks.present;
	} else {
		gpuproj_stats_add(&out_run->ranks.time_ns, gpuproj_profile_kernel_time_ns(rank));
		if (any_timed)
			out_run->ranks.present++;
	}
	if (!isnan(run->wall_ns) && (isnan(m->wall_max) || run->wall_ns > m->wall_max))
		m->wall_max = run->wall_ns;
	if (isnan(run->gpu_ns))
		m->gpu_unknown = true;
	else
		m->gpu_sum += run->gpu_ns;
	m->dropped += run->dropped_records;
	m->ranks += nranks;
	m->broken = false;
	return GPUPROJ_OK;
nomem:
	return error_set(reterr, GPUPROJ_E_NOMEM, label, 0, 0, "out of memory merging ranks");
}

int
gpuproj_merge_finish(struct gpuproj_merge *m, struct gpuproj_profile **ret,
		     struct gpuproj_error *reterr)
{
	struct gpuproj_run_info *run;
	char buf[32];
	size_t i;

	if (!m || !ret || m->broken || m->finished)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	if (m->ranks == 0)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "no rank profiles to merge");
	for (i = 0; i < m->n_recs; i++) {
		struct rec *rc = &m->recs[i];
		struct gpuproj_stats zeros = { 0 };

		/* Ranks that never launched the signature: a block of 0 ns samples. */
		zeros.n = m->ranks - rc->covered;
		gpuproj_stats_merge(&rc->k->ranks.time_ns, &zeros);
	}
	finish_timeline(m);
	run = gpuproj_profile_run_info_mut(m->out);
	run->wall_ns = m->wall_max;
	run->gpu_ns = m->gpu_unknown ? NAN : m->gpu_sum;
	run->dropped_records = m->dropped;
	snprintf(buf, sizeof(buf), "%" PRIu64, m->ranks);
	if (gpuproj_profile_set_attr(m->out, "merged_ranks", buf) ||
	    (!m->host_mixed && m->host &&
	     gpuproj_profile_set_process(m->out, NULL, m->host, -1, -1, NULL)))
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	gpuproj_profile_sort_by_time(m->out);
	*ret = m->out;
	m->out = NULL;
	m->finished = true;
	return GPUPROJ_OK;
}

/*
 * Parallel loading for gpuproj_merge_files(): worker threads parse files
 * into a window of slots ahead of the calling thread, which folds them
 * strictly in input order (so the result does not depend on the number of
 * threads) and frees each profile right after folding it. At most `window`
 * profiles are in memory at once.
 */
struct slot {
	struct gpuproj_profile *p;
	struct gpuproj_error err;
	int status;
	bool ready;
};

struct loader {
	const char *const *paths;
	size_t n;
	struct slot *slots;
	size_t window;
	size_t next;         /* next file a worker takes */
	size_t folded;       /* files the calling thread has consumed */
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *
loader_worker(void *arg)
{
	struct loader *ld = arg;

	pthread_mutex_lock(&ld->lock);
	for (;;) {
		size_t i;
		struct slot *s;

		/* Wait for a file to load and a free slot in the window. */
		while (!ld->stop && ld->next < ld->n && ld->next >= ld->folded + ld->window)
			pthread_cond_wait(&ld->cond, &ld->lock);
		if (ld->stop || ld->next >= ld->n)
			break;
		i = ld->next++;
		pthread_mutex_unlock(&ld->lock);

		s = &ld->slots[i % ld->window];
		s->p = NULL;
		memset(&s->err, 0, sizeof(s->err));
		s->status = gpuproj_profile_load(ld->paths[i], &s->p, &s->err);

		pthread_mutex_lock(&ld->lock);
		s->ready = true;
		pthread_cond_broadcast(&ld->cond);
	}
	pthread_mutex_unlock(&ld->lock);
	return NULL;
}

static unsigned
loader_threads(const struct gpuproj_merge_options *opt, size_t n)
{
	long cpus;
	unsigned t = opt ? opt->threads : 0;

	if (t == 0) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		t = cpus > 8 ? 8 : cpus > 1 ? (unsigned)cpus : 1;
	}
	if (t > 64)
		t = 64;
	if ((size_t)t > n)
		t = (unsigned)n;
	return t;
}

int
gpuproj_merge_files(const char *const *paths, size_t n, const struct gpuproj_merge_options *opt,
		    struct gpuproj_profile **ret, struct gpuproj_error *reterr)
{
	struct gpuproj_merge *m = NULL;
	struct loader ld = { 0 };
	pthread_t *tids = NULL;
	unsigned nthreads, started = 0, t;
	bool sync = false;
	size_t i;
	int r;

	if (!ret || (n && !paths))
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	if (n == 0)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "no rank profiles to merge");
	if ((r = gpuproj_merge_new(opt, &m)))
		return error_set(reterr, r, NULL, 0, 0, "out of memory");
	nthreads = loader_threads(opt, n);
	if (nthreads > 1) {
		ld.paths = paths;
		ld.n = n;
		ld.window = 2 * (size_t)nthreads;
		ld.slots = calloc(ld.window, sizeof(*ld.slots));
		tids = calloc(nthreads, sizeof(*tids));
		if (!ld.slots || !tids) {
			r = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
			goto out;
		}
		pthread_mutex_init(&ld.lock, NULL);
		pthread_cond_init(&ld.cond, NULL);
		sync = true;
		for (t = 0; t < nthreads; t++) {
			if (pthread_create(&tids[t], NULL, loader_worker, &ld) != 0)
				break;
			started++;
		}
	}
	for (i = 0; i < n; i++) {
		struct gpuproj_profile *p = NULL;

		if (started) {
			struct slot *s = &ld.slots[i % ld.window];

			pthread_mutex_lock(&ld.lock);
			while (!s->ready)
				pthread_cond_wait(&ld.cond, &ld.lock);
			pthread_mutex_unlock(&ld.lock);
			p = s->p;
			r = s->status;
			if (r && reterr)
				*reterr = s->err;
			s->p = NULL;
		} else {
			r = gpuproj_profile_load(paths[i], &p, reterr);
		}
		if (!r)
			r = gpuproj_merge_add(m, p, strcmp(paths[i], "-") == 0 ? "<stdin>" : paths[i],
					      reterr);
		gpuproj_profile_free(p);
		if (started) {
			/* Hand the slot back to the workers. */
			pthread_mutex_lock(&ld.lock);
			ld.slots[i % ld.window].ready = false;
			ld.folded = i + 1;
			pthread_cond_broadcast(&ld.cond);
			pthread_mutex_unlock(&ld.lock);
		}
		if (r)
			goto out;
		if (opt && opt->progress)
			opt->progress(opt->progress_userdata, i + 1, n);
	}
	r = gpuproj_merge_finish(m, ret, reterr);
out:
	if (started) {
		pthread_mutex_lock(&ld.lock);
		ld.stop = true;
		pthread_cond_broadcast(&ld.cond);
		pthread_mutex_unlock(&ld.lock);
		for (t = 0; t < started; t++)
			pthread_join(tids[t], NULL);
		/* Profiles loaded ahead of a failure. */
		for (i = 0; i < ld.window; i++)
			gpuproj_profile_free(ld.slots[i].p);
	}
	if (sync) {
		pthread_mutex_destroy(&ld.lock);
		pthread_cond_destroy(&ld.cond);
	}
	free(tids);
	free(ld.slots);
	gpuproj_merge_free(m);
	return r;
}
