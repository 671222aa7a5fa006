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

#include <errno.h>
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
	/* The launch mode stays known only when both records know it (a new one takes src's). */
	dst->launch_mode_known = dst->launches || dst->profiled
					 ? dst->launch_mode_known && src->launch_mode_known
					 : src->launch_mode_known;
	dst->graph_launches += src->graph_launches;
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

/* Processes without a rank, by "HOST:PID", with the file each came from. */
struct seen_proc {
	char *id;            /* NULL = empty slot */
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
	struct seen_proc *procs;
	size_t n_procs, nproc_slots;
	/* What --force let through, one clause each (attribute "merge_forced"). */
	struct strbuf forced;
	bool warned_live;
	/* What the first rank that says fixed. */
	char *app, *app_label;
	char *gpu_name, *gpu_target, *gpu_label;
	bool warned_app, warned_gpu, warned_rank;
	char *host;
	bool host_mixed;
	double wall_max;
	/* The ranks' largest peak device memory (each rank has its own GPU); unknown with one. */
	double peak_max;
	bool peak_unknown;
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

static size_t
str_hash(const char *s, size_t mask)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (size_t)h & mask;
}

static const struct seen_proc *
proc_find(const struct gpuproj_merge *m, const char *id)
{
	size_t h;

	if (!m->nproc_slots)
		return NULL;
	for (h = str_hash(id, m->nproc_slots - 1); m->procs[h].id;
	     h = (h + 1) & (m->nproc_slots - 1)) {
		if (strcmp(m->procs[h].id, id) == 0)
			return &m->procs[h];
	}
	return NULL;
}

static int
proc_add(struct gpuproj_merge *m, const char *id, const char *label)
{
	size_t h, i;

	if (proc_find(m, id))
		return GPUPROJ_OK;
	if ((m->n_procs + 1) * 2 > m->nproc_slots) {
		size_t n = m->nproc_slots ? m->nproc_slots * 2 : 64;
		struct seen_proc *np = calloc(n, sizeof(*np));

		if (!np)
			return GPUPROJ_E_NOMEM;
		for (i = 0; i < m->nproc_slots; i++) {
			if (!m->procs[i].id)
				continue;
			for (h = str_hash(m->procs[i].id, n - 1); np[h].id; h = (h + 1) & (n - 1))
				;
			np[h] = m->procs[i];
		}
		free(m->procs);
		m->procs = np;
		m->nproc_slots = n;
	}
	for (h = str_hash(id, m->nproc_slots - 1); m->procs[h].id;
	     h = (h + 1) & (m->nproc_slots - 1))
		;
	m->procs[h].id = strdup(id);
	m->procs[h].label = strdup(label);
	if (!m->procs[h].id || !m->procs[h].label) {
		free(m->procs[h].id);
		free(m->procs[h].label);
		m->procs[h].id = NULL;
		return GPUPROJ_E_NOMEM;
	}
	m->n_procs++;
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
	m->peak_max = NAN;
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
	for (i = 0; i < m->nproc_slots; i++) {
		free(m->procs[i].id);
		free(m->procs[i].label);
	}
	free(m->procs);
	strbuf_free(&m->forced);
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

/*
 * A difference merged anyway (--force): said through opt.warn, and kept
 * for the job profile's "merge_forced" attribute, which gate and report
 * show (the trace of what was forced outlives the command's stderr).
 */
static void
warn(struct gpuproj_merge *m, const char *fmt, ...)
{
	char msg[GPUPROJ_ERROR_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	strbuf_printf(&m->forced, "%s%s", m->forced.len ? "; " : "", msg);
	if (m->opt.warn)
		m->opt.warn(m->opt.warn_userdata, msg);
}

/*
 * A live snapshot (libproj.so's <report>.live.json, GPUPROJ_LIVE): marked
 * "snapshot": "live"; older ones, unmarked, are the injection's profiles
 * without the "report" attribute every final report carries. Its launches
 * are in the final profile too: merging both counts them twice.
 */
static bool
is_live_snapshot(const struct gpuproj_profile *p)
{
	const char *snap = gpuproj_profile_attr(p, "snapshot");
	const char *origin = gpuproj_profile_attr(p, "origin");

	return (snap && strcmp(snap, "live") == 0) ||
	       (origin && strcmp(origin, "injection") == 0 && !gpuproj_profile_attr(p, "report"));
}

/* "HOST:PID" of a profile without a rank (its identity in a merge), or false. */
static bool
proc_id(const struct gpuproj_process_info *pr, char *buf, size_t size)
{
	if (pr->rank >= 0 || pr->pid < 0)
		return false;
	snprintf(buf, size, "%s:%" PRId64, pr->host && *pr->host ? pr->host : "?", pr->pid);
	return true;
}

/*
 * The members of a job profile (attribute "merged_members", written by
 * gpuproj_merge_finish()): rank numbers and ranges ("0-511,600") and
 * processes without a rank ("HOST:PID"), comma-separated. Calls `fn` for
 * each rank (id NULL) or process (id set); stops at the first non-zero
 * return. GPUPROJ_E_SCHEMA for a malformed list.
 */
static int
members_each(const char *list, const char *label, struct gpuproj_error *reterr,
	     int (*fn)(void *ud, int64_t rank, const char *id), void *ud)
{
	const char *p = list;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char tok[512];
		char *e1, *e2;
		long long lo, hi;
		int r;

		if (len == 0 || len >= sizeof(tok))
			return error_set(reterr, GPUPROJ_E_SCHEMA, label, 0, 0,
					 "attributes.merged_members: an empty or overlong member");
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (strchr(tok, ':')) {
			r = fn(ud, -1, tok);
		} else {
			errno = 0;
			lo = strtoll(tok, &e1, 10);
			hi = *e1 == '-' ? strtoll(e1 + 1, &e2, 10) : lo;
			if (*e1 == '-')
				e1 = e2;
			if (e1 == tok || *e1 || errno || lo < 0 || hi < lo || hi - lo > (1LL << 24))
				return error_set(reterr, GPUPROJ_E_SCHEMA, label, 0, 0,
						 "attributes.merged_members: '%s' is not a rank, a "
						 "range of ranks or HOST:PID", tok);
			for (r = 0; lo <= hi && !r; lo++)
				r = fn(ud, (int64_t)lo, NULL);
		}
		if (r)
			return r;
		p += len + (end ? 1 : 0);
	}
	return GPUPROJ_OK;
}

struct member_check {
	struct gpuproj_merge *m;
	const char *label;
	struct gpuproj_error *reterr;
	bool adding;
	bool job;            /* the input is a job profile (else a single process) */
};

static int
member_check(void *ud, int64_t rank, const char *id)
{
	struct member_check *c = ud;
	struct gpuproj_merge *m = c->m;
	const char *other = NULL;
	char what[320];

	if (c->adding) {
		if (id)
			return proc_add(m, id, c->label);
		return seen_find(m, rank) ? GPUPROJ_OK : seen_add(m, rank, c->label);
	}
	if (id) {
		const struct seen_proc *sp = proc_find(m, id);

		other = sp ? sp->label : NULL;
		snprintf(what, sizeof(what), "process %s", id);
	} else {
		const struct seen_rank *sr = seen_find(m, rank);

		other = sr ? sr->label : NULL;
		snprintf(what, sizeof(what), "rank %" PRId64, rank);
	}
	if (!other)
		return GPUPROJ_OK;
	if (!m->opt.force)
		return c->job ? error_set(c->reterr, GPUPROJ_E_MISMATCH, c->label, 0, 0,
					  "holds %s, which was merged already from %s: its "
					  "launches would count twice (pass --force to merge "
					  "anyway)", what, other)
			      : error_set(c->reterr, GPUPROJ_E_MISMATCH, c->label, 0, 0,
					  "%s was merged already from %s (pass --force to merge "
					  "anyway)", what, other);
	if (!m->warned_rank)
		warn(m, "%s: %s%s was merged already from %s; merged again (--force)", c->label,
		     c->job ? "holds " : "", what, other);
	m->warned_rank = true;
	return GPUPROJ_OK;
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
	if (is_live_snapshot(rank)) {
		if (!m->opt.force)
			return error_set(reterr, GPUPROJ_E_MISMATCH, label, 0, 0,
					 "is a live snapshot (GPUPROJ_LIVE) of a run in progress, not "
					 "its final profile: its launches are in the final one too "
					 "(merge the final profiles; pass --force to merge anyway)");
		if (!m->warned_live)
			warn(m, "%s: a live snapshot (GPUPROJ_LIVE), not a final profile; merged "
			     "anyway (--force)", label);
		m->warned_live = true;
	}
	if (gpuproj_profile_run_info(rank)->ranks.time_ns.n > 0) {
		/* A job profile: every rank and process it holds, against those merged. */
		const char *members = gpuproj_profile_attr(rank, "merged_members");
		struct member_check c = { m, label, reterr, false, true };
		int r;

		if (members && (r = members_each(members, label, reterr, member_check, &c)))
			return r;
		if (!members && !m->opt.force)
			return error_set(reterr, GPUPROJ_E_MISMATCH, label, 0, 0,
					 "is a job profile that does not record which ranks it holds "
					 "(merged by an earlier gpuproj): overlaps with the other files "
					 "cannot be found (merge its rank files instead; pass --force to "
					 "merge anyway)");
		if (!members)
			warn(m, "%s: a job profile that does not record its ranks; merged "
			     "anyway (--force), overlaps unchecked", label);
	} else {
		struct member_check c = { m, label, reterr, false, false };
		char id[320];
		int r;

		if (pr->rank >= 0 && (r = member_check(&c, pr->rank, NULL)))
			return r;
		if (proc_id(pr, id, sizeof(id)) && (r = member_check(&c, -1, id)))
			return r;
	}
	return GPUPROJ_OK;
}

/* Remember every rank and process `rank` holds (after check_identity()). */
static int
record_members(struct gpuproj_merge *m, const struct gpuproj_profile *rank, const char *label)
{
	const struct gpuproj_process_info *pr = gpuproj_profile_process(rank);
	struct member_check c = { m, label, NULL, true, false };
	const char *members = gpuproj_profile_attr(rank, "merged_members");
	const char *forced = gpuproj_profile_attr(rank, "merge_forced");
	char id[320];

	/* What an input job profile had forced stays on the record. */
	if (forced)
		strbuf_printf(&m->forced, "%s%s: %s", m->forced.len ? "; " : "", label, forced);
	if (gpuproj_profile_run_info(rank)->ranks.time_ns.n > 0)
		return members ? members_each(members, label, NULL, member_check, &c) : GPUPROJ_OK;
	if (pr->rank >= 0)
		return member_check(&c, pr->rank, NULL);
	if (proc_id(pr, id, sizeof(id)))
		return member_check(&c, -1, id);
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
	run = gpuproj_profile_run_info(rank);
	merged_input = run->ranks.time_ns.n > 0;
	/* From here on a failure is ENOMEM, which leaves the merge unusable. */
	m->broken = true;
	if (take_identity(m, rank, label) || record_members(m, rank, label) || m->forced.oom)
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
	if (isnan(run->peak_device_memory_bytes))
		m->peak_unknown = true;
	else if (isnan(m->peak_max) || run->peak_device_memory_bytes > m->peak_max)
		m->peak_max = run->peak_device_memory_bytes;
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

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The job's "merged_members" (members_each()): ranks as sorted ranges, then processes. */
static int
set_members(struct gpuproj_merge *m)
{
	int64_t *ranks = calloc(m->n_seen + 1, sizeof(*ranks));
	char **ids = calloc(m->n_procs + 1, sizeof(*ids));
	struct strbuf sb;
	size_t i, n = 0, k = 0;
	int r = GPUPROJ_E_NOMEM;

	strbuf_init(&sb);
	if (!ranks || !ids)
		goto out;
	for (i = 0; i < m->nseen_slots; i++) {
		if (m->seen[i].rank >= 0)
			ranks[n++] = m->seen[i].rank;
	}
	for (i = 0; i < m->nproc_slots; i++) {
		if (m->procs[i].id)
			ids[k++] = m->procs[i].id;
	}
	qsort(ranks, n, sizeof(*ranks), cmp_i64);
	qsort(ids, k, sizeof(*ids), cmp_str);
	for (i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
			j++;
		strbuf_printf(&sb, "%s%" PRId64, sb.len ? "," : "", ranks[i]);
		if (j > i)
			strbuf_printf(&sb, "-%" PRId64, ranks[j]);
		i = j + 1;
	}
	for (i = 0; i < k; i++)
		strbuf_printf(&sb, "%s%s", sb.len ? "," : "", ids[i]);
	if (sb.oom)
		goto out;
	r = gpuproj_profile_set_attr(m->out, "merged_members", sb.len ? sb.buf : NULL);
out:
	strbuf_free(&sb);
	free(ranks);
	free(ids);
	return r;
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
	run->peak_device_memory_bytes = m->peak_unknown ? NAN : m->peak_max;
	run->dropped_records = m->dropped;
	snprintf(buf, sizeof(buf), "%" PRIu64, m->ranks);
	if (set_members(m) ||
	    gpuproj_profile_set_attr(m->out, "merge_forced", m->forced.len ? m->forced.buf : NULL) ||
	    gpuproj_profile_set_attr(m->out, "merged_ranks", buf) ||
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
