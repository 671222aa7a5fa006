/* SPDX-License-Identifier: MIT */
/*
 * The collector of libproj.so (see collector.h): first-N gating, the join
 * of profiled launches and activity records by correlation id, the
 * profile, the running totals.
 *
 * Thread safety: gate_lock guards the gate table (application threads at
 * launch ENTER); lock guards everything else (records from CUPTI's buffer
 * thread, profiled launches from application threads, readers). No
 * function holds both. Gate entries and profiled launches are never freed
 * before inj_collector_free(), so pointers to them stay valid.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/merge.h>
#include <gpuproj/profile.h>

#include "collector.h"
#include "env.h"
#include "log.h"
#include "metrics-nvpw.h"
#include "timeline-rec.h"
#include "util.h"


struct inj_gate {
	struct inj_gate *all_next;	/* every gate, for freeing */
	uint64_t hash;
	char *name;
	struct gpuproj_dim3 grid, block, cluster;
	uint32_t smem_dynamic;
	int device;
	bool dims_known;
	bool match;			/* GPUPROJ_KERNEL_REGEX accepts the name */
	atomic_uint taken;		/* credits taken: profiled or being profiled */
	atomic_uint failed;		/* windows that failed or were cancelled */
};

/*
 * A failed or cancelled window gives its credit back, so a later launch of
 * the key is profiled instead, but at most this many times per key: each
 * window leaves a profiled-launch entry, so memory (and profiler overhead)
 * stays bounded by distinct signatures even when every launch fails.
 */
#define MAX_FAILED_WINDOWS 8

/*
 * The gate table: open addressing over gate pointers, read without a lock
 * (launch ENTER on every application thread), written under gate_lock.
 * Growing publishes a new table; old ones stay valid (and are freed at the
 * end) so a reader that still holds one sees a consistent, if incomplete,
 * table and falls back to the locked path.
 */
struct gtable {
	struct gtable *older;
	size_t mask;
	_Atomic(struct inj_gate *) slot[];
};

enum pl_state { PL_OPEN, PL_DONE, PL_FAILED, PL_CANCELLED };

struct inj_prof_launch {
	struct inj_prof_launch *next;	/* all profiled launches, newest first */
	struct inj_gate *gate;
	enum pl_state state;
	bool executed;			/* FAILED: the kernel ran under the profiler */
	bool applied;			/* counted in its kernel record */
	uint32_t corr[2];
	int n_corr;
	struct gpuproj_kernel *k;	/* from the first record with one of corr */
	double values[GPUPROJ_M_COUNT];
	double gpu_ns;
};

/*
 * Records → kernel record cache: CUPTI hands every record of one function
 * the same name pointer, so (name pointer, dims) finds the record without
 * hashing the name. Entries are checked in full before use.
 */
#define KCACHE 4096

struct kcache {
	const char *name_ptr;
	struct gpuproj_dim3 grid, block, cluster;
	uint32_t smem_dynamic;
	int device;
	struct gpuproj_kernel *k;
};

struct inj_collector {
	const struct inj_config *cfg;
	struct kcache kcache[KCACHE];

	pthread_mutex_t gate_lock;
	_Atomic(struct gtable *) gates;
	struct inj_gate *all_gates;
	size_t n_gates;

	pthread_mutex_t lock;
	struct gpuproj_profile *profile;
	struct inj_prof_launch *launches;
	/* correlation id → profiled launch (open addressing, 0 = empty) */
	uint32_t *corr_keys;
	struct inj_prof_launch **corr_vals;
	size_t corr_cap, corr_n;
	struct inj_totals totals;
	uint64_t extra_records;		/* records of a profiled launch after its first (replay) */
	uint64_t ignored;		/* events after close */
	struct inj_device_info devices[INJ_MAX_DEVICES];
	bool device_known[INJ_MAX_DEVICES];
	int first_device;		/* ordinal of the first device with a context, -1 */
	/* NVML samples of that device (inj_collector_sm_clock()) */
	struct gpuproj_sm_clock sm_clock;
	double sm_clock_sum;		/* Σ of the samples, MHz */
	bool closed;
	bool finished;
	bool oom_logged;
	struct inj_timeline *tl;	/* the whole run (timeline-rec.h), NULL when out of memory */
	atomic_bool nccl_said;

	/* Peak device memory (collector.h): live allocations by address, open addressing. */
	pthread_mutex_t mem_lock;
	struct mem_slot *mem;		/* [mem_cap], ptr 0 = empty, MEM_GONE = deleted */
	size_t mem_cap, mem_n, mem_used;	/* used: live + deleted slots */
	uint64_t mem_live[INJ_MAX_DEVICES], mem_peak[INJ_MAX_DEVICES];
	bool mem_on, mem_overflow;

	/* At exit: the exit path's waits for `lock` end then (inj_collector_exit_by()). */
	bool has_exit_by;
	struct timespec exit_by;
};

struct mem_slot {
	uint64_t ptr, bytes;
	int device;
};

/* A deleted slot (a freed allocation): lookups go on past it. */
#define MEM_GONE UINT64_MAX

/*
 * The data lock on the exit path: bounded once inj_collector_exit_by() set
 * a deadline (exit() from a signal handler may have interrupted a frame
 * that holds it). false when it was not taken.
 */
static bool
exit_lock_of(struct inj_collector *c, pthread_mutex_t *m)
{
	if (!c->has_exit_by) {
		pthread_mutex_lock(m);
		return true;
	}
	return pthread_mutex_timedlock(m, &c->exit_by) == 0;
}

/* The data lock on the exit path (exit_lock_of()). */
static bool
exit_lock(struct inj_collector *c)
{
	return exit_lock_of(c, &c->lock);
}

void
inj_collector_exit_by(struct inj_collector *c, const struct timespec *by)
{
	c->exit_by = *by;
	c->has_exit_by = true;
	inj_timeline_exit_by(c->tl, by);
}

static void
oom(struct inj_collector *c)
{
	if (!c->oom_logged) {
		c->oom_logged = true;
		inj_error("out of memory: some launches are missing from the counts");
	}
}

/*
 * A thread block cluster is part of a launch's signature (the launch's
 * geometry includes it: cuLaunchKernelEx's
 * CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, cuda.h; the
 * record's clusterX/Y/Z, cupti_activity.h CUpti_ActivityKernel10): 0,0,0
 * (no cluster, or a record from before CC 9.0) and 1,1,1 are the same.
 */
static struct gpuproj_dim3
cluster_norm(struct gpuproj_dim3 c)
{
	if (c.x <= 1 && c.y <= 1 && c.z <= 1)
		c.x = c.y = c.z = 1;
	return c;
}

/* The profile's signature tag for a cluster shape: "" or "cluster=2x1x1". */
static void
cluster_tag(struct gpuproj_dim3 c, char *buf, size_t size)
{
	c = cluster_norm(c);
	if (c.x == 1 && c.y == 1 && c.z == 1)
		buf[0] = '\0';
	else
		snprintf(buf, size, "cluster=%ux%ux%u", c.x, c.y, c.z);
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9E3779B97F4A7C15ULL;
	return h ^ (h >> 29);
}

/* Eight bytes at a time: the hot path hashes every launch's kernel name. */
static uint64_t
key_hash(const struct inj_launch_key *k)
{
	const char *s = k->name;
	size_t len = strlen(s);
	uint64_t h = mix(0x243F6A8885A308D3ULL, len), w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = mix(h, w);
	}
	w = 0;
	memcpy(&w, s, len);
	h = mix(h, w);
	h = mix(h, (uint64_t)(uint32_t)k->device << 1 | k->dims_known);
	if (k->dims_known) {
		struct gpuproj_dim3 c = cluster_norm(k->cluster);

		h = mix(h, (uint64_t)k->grid.x << 32 | k->grid.y);
		h = mix(h, (uint64_t)k->grid.z << 32 | k->block.x);
		h = mix(h, (uint64_t)k->block.y << 32 | k->block.z);
		h = mix(h, k->smem_dynamic);
		h = mix(h, (uint64_t)c.x << 42 | (uint64_t)c.y << 21 | c.z);
	}
	return h;
}

static bool
key_equal(const struct inj_gate *g, const struct inj_launch_key *k)
{
	if (g->dims_known != k->dims_known || g->device != k->device)
		return false;
	if (k->dims_known) {
		struct gpuproj_dim3 c = cluster_norm(k->cluster);

		if (g->grid.x != k->grid.x || g->grid.y != k->grid.y || g->grid.z != k->grid.z ||
		    g->block.x != k->block.x || g->block.y != k->block.y ||
		    g->block.z != k->block.z || g->smem_dynamic != k->smem_dynamic ||
		    g->cluster.x != c.x || g->cluster.y != c.y || g->cluster.z != c.z)
			return false;
	}
	return strcmp(g->name, k->name) == 0;
}

struct inj_collector *
inj_collector_new(const struct inj_config *cfg)
{
	struct inj_collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cfg = cfg;
	c->first_device = -1;
	{
		struct gtable *t = calloc(1, sizeof(*t) + 256 * sizeof(t->slot[0]));

		if (t)
			t->mask = 255;
		atomic_store(&c->gates, t);
	}
	c->profile = gpuproj_profile_new();
	c->tl = inj_timeline_new(NULL);
	if (!atomic_load(&c->gates) || !c->profile) {
		free(atomic_load(&c->gates));
		gpuproj_profile_free(c->profile);
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->gate_lock, NULL);
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->mem_lock, NULL);
	return c;
}

void
inj_collector_free(struct inj_collector *c)
{
	if (!c)
		return;
	while (c->all_gates) {
		struct inj_gate *next = c->all_gates->all_next;

		free(c->all_gates->name);
		free(c->all_gates);
		c->all_gates = next;
	}
	{
		struct gtable *t = atomic_load(&c->gates);

		while (t) {
			struct gtable *older = t->older;

			free(t);
			t = older;
		}
	}
	while (c->launches) {
		struct inj_prof_launch *next = c->launches->next;

		free(c->launches);
		c->launches = next;
	}
	free(c->corr_keys);
	free(c->corr_vals);
	free(c->mem);
	pthread_mutex_destroy(&c->mem_lock);
	inj_timeline_free(c->tl);
	gpuproj_profile_free(c->profile);
	pthread_mutex_destroy(&c->gate_lock);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

bool
inj_collector_close(struct inj_collector *c)
{
	if (!exit_lock(c))
		return false;
	c->closed = true;
	pthread_mutex_unlock(&c->lock);
	return true;
}

/* ---- peak device memory ---- */

static size_t
mem_hash(uint64_t ptr, size_t mask)
{
	/* Allocations are aligned: mix the high bits down (Fibonacci hashing). */
	return (size_t)((ptr * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
}

/* Rehash into `cap` slots (a power of two), dropping deleted ones. */
static bool
mem_rehash(struct inj_collector *c, size_t cap)
{
	struct mem_slot *t = calloc(cap, sizeof(*t));
	size_t i;

	if (!t)
		return false;
	for (i = 0; i < c->mem_cap; i++) {
		size_t j;

		if (!c->mem[i].ptr || c->mem[i].ptr == MEM_GONE)
			continue;
		for (j = mem_hash(c->mem[i].ptr, cap - 1); t[j].ptr; j = (j + 1) & (cap - 1))
			;
		t[j] = c->mem[i];
	}
	free(c->mem);
	c->mem = t;
	c->mem_cap = cap;
	c->mem_used = c->mem_n;
	return true;
}

void
inj_collector_mem_tracking(struct inj_collector *c, bool on)
{
	pthread_mutex_lock(&c->mem_lock);
	c->mem_on = on;
	pthread_mutex_unlock(&c->mem_lock);
}

void
inj_collector_mem_alloc(struct inj_collector *c, int device, uint64_t ptr, uint64_t bytes)
{
	size_t j, gone = SIZE_MAX;

	if (!ptr || ptr == MEM_GONE || device < 0 || device >= INJ_MAX_DEVICES)
		return;
	pthread_mutex_lock(&c->mem_lock);
	if (c->mem_overflow)
		goto out;
	/* At most half full (live and deleted slots), within the bound. */
	if ((c->mem_used + 1) * 2 > c->mem_cap) {
		size_t cap = c->mem_cap ? c->mem_cap : 512;

		while ((c->mem_n + 1) * 2 > cap)
			cap *= 2;
		if (c->mem_n >= INJ_MEM_MAX_LIVE || !mem_rehash(c, cap)) {
			c->mem_overflow = true;
			inj_warn("more than %u device allocations live at once (or out of memory): "
				 "the run's peak device memory is not recorded", INJ_MEM_MAX_LIVE);
			goto out;
		}
	}
	/* The whole chain for ptr itself; a new one goes into its first deleted slot. */
	for (j = mem_hash(ptr, c->mem_cap - 1); c->mem[j].ptr && c->mem[j].ptr != ptr;
	     j = (j + 1) & (c->mem_cap - 1)) {
		if (c->mem[j].ptr == MEM_GONE && gone == SIZE_MAX)
			gone = j;
	}
	if (c->mem[j].ptr == ptr) {
		/* Reused without a free we saw: the old one is gone. */
		c->mem_live[c->mem[j].device] -= c->mem[j].bytes;
	} else {
		if (gone != SIZE_MAX)
			j = gone;
		else
			c->mem_used++;
		c->mem_n++;
	}
	c->mem[j] = (struct mem_slot){ ptr, bytes, device };
	c->mem_live[device] += bytes;
	if (c->mem_live[device] > c->mem_peak[device])
		c->mem_peak[device] = c->mem_live[device];
out:
	pthread_mutex_unlock(&c->mem_lock);
}

void
inj_collector_mem_free(struct inj_collector *c, uint64_t ptr)
{
	size_t j;

	if (!ptr || ptr == MEM_GONE)
		return;
	pthread_mutex_lock(&c->mem_lock);
	for (j = c->mem_cap ? mem_hash(ptr, c->mem_cap - 1) : 0; c->mem_cap && c->mem[j].ptr;
	     j = (j + 1) & (c->mem_cap - 1)) {
		if (c->mem[j].ptr == ptr) {
			c->mem_live[c->mem[j].device] -= c->mem[j].bytes;
			c->mem[j].ptr = MEM_GONE;
			c->mem_n--;
			break;
		}
	}
	pthread_mutex_unlock(&c->mem_lock);
}

double
inj_collector_mem_peak(struct inj_collector *c)
{
	uint64_t peak = 0;
	bool known;
	int i;

	/* Also read at exit (inj_collector_finish()): an allocation callback may hold it. */
	if (!exit_lock_of(c, &c->mem_lock))
		return NAN;
	known = c->mem_on && !c->mem_overflow;
	for (i = 0; i < INJ_MAX_DEVICES; i++)
		peak = c->mem_peak[i] > peak ? c->mem_peak[i] : peak;
	pthread_mutex_unlock(&c->mem_lock);
	return known && (double)peak <= GPUPROJ_MAX_MEMORY_BYTES ? (double)peak : NAN;
}

/* ---- devices ---- */

void
inj_device_sanitize(struct inj_device_info *d)
{
	const char *name = d->name[0] ? d->name : "?";
	size_t i;

	if (!gpuproj_device_cc_ok(d->cc_major, d->cc_minor)) {
		inj_warn("device %d (%s): the driver reports compute capability %d.%d, which is "
			 "none (1.0 to 99.9): it is left unknown in the profile", d->ordinal, name,
			 d->cc_major, d->cc_minor);
		d->cc_major = d->cc_minor = 0;
	}
	if (!gpuproj_device_sms_ok(d->sms)) {
		inj_warn("device %d (%s): the driver reports %d SMs, not a GPU's (1 to %d): the SM "
			 "count is left unknown in the profile", d->ordinal, name, d->sms,
			 GPUPROJ_MAX_SMS);
		d->sms = 0;
	}
	if (!gpuproj_device_clock_ok(d->clock_hz)) {
		inj_warn("device %d (%s): the driver reports an SM clock of %g Hz, not a GPU's (up "
			 "to %g Hz): it is left unknown in the profile", d->ordinal, name,
			 d->clock_hz, GPUPROJ_MAX_CLOCK_HZ);
		d->clock_hz = NAN;
	}
	for (i = 0; i < GPUPROJ_DRV_COUNT; i++) {
		enum gpuproj_driver_attr a = (enum gpuproj_driver_attr)i;

		if (gpuproj_driver_attr_ok(a, d->driver[i]))
			continue;
		inj_warn("device %d (%s): the driver reports %s = %.17g, outside (0, %g]: it is "
			 "left unknown in the profile", d->ordinal, name,
			 gpuproj_driver_attr_name(a), d->driver[i], gpuproj_driver_attr_max(a));
		d->driver[i] = NAN;
	}
}

void
inj_collector_device(struct inj_collector *c, const struct inj_device_info *d)
{
	if (d->ordinal < 0 || d->ordinal >= INJ_MAX_DEVICES)
		return;
	pthread_mutex_lock(&c->lock);
	c->devices[d->ordinal] = *d;
	c->device_known[d->ordinal] = true;
	if (c->first_device < 0) {
		/* The profile's source GPU is the first device a context was made on. */
		c->first_device = d->ordinal;
		size_t i;

		if (gpuproj_profile_set_device(c->profile, d->name[0] ? d->name : NULL, NULL,
					       d->chip[0] ? d->chip : NULL, d->cc_major,
					       d->cc_minor, d->sms, d->clock_hz) != GPUPROJ_OK)
			oom(c);
		/* Every value is in range (inj_device_sanitize(), called by the backend). */
		for (i = 0; i < GPUPROJ_DRV_COUNT; i++)
			(void)gpuproj_profile_set_driver_attr(c->profile, (enum gpuproj_driver_attr)i,
							      d->driver[i]);
	} else if (d->ordinal != c->first_device &&
		   strcmp(d->name, c->devices[c->first_device].name) != 0) {
		inj_warn("device %d (%s) differs from device %d (%s): the profile names device %d "
			 "as its GPU, so projections of kernels that ran on device %d use the "
			 "wrong source", d->ordinal, d->name, c->first_device,
			 c->devices[c->first_device].name, c->first_device, d->ordinal);
	}
	pthread_mutex_unlock(&c->lock);
}

/* ---- gating ---- */

static bool
regex_match(const struct inj_config *cfg, const char *name)
{
	return !cfg->has_regex || inj_regex_match(&cfg->regex, name);
}

/* Lock-free lookup; NULL when absent (or added after the table the reader saw). */
static struct inj_gate *
gate_find(struct inj_collector *c, const struct inj_launch_key *k, uint64_t h)
{
	struct gtable *t = atomic_load_explicit(&c->gates, memory_order_acquire);
	struct inj_gate *g;
	size_t i;

	for (i = h & t->mask; (g = atomic_load_explicit(&t->slot[i], memory_order_acquire)) != NULL;
	     i = (i + 1) & t->mask) {
		if (g->hash == h && key_equal(g, k))
			return g;
	}
	return NULL;
}

/* gate_lock held. */
static void
gtable_put(struct gtable *t, struct inj_gate *g)
{
	size_t i;

	for (i = g->hash & t->mask; atomic_load_explicit(&t->slot[i], memory_order_relaxed);
	     i = (i + 1) & t->mask)
		;
	atomic_store_explicit(&t->slot[i], g, memory_order_release);
}

/* Find or create (gate_lock held). NULL on ENOMEM. */
static struct inj_gate *
gate_get(struct inj_collector *c, const struct inj_launch_key *k, uint64_t h)
{
	struct gtable *t = atomic_load(&c->gates);
	struct inj_gate *g = gate_find(c, k, h);

	if (g)
		return g;
	if (2 * (c->n_gates + 1) > t->mask + 1) {
		/* Grow: a new table with every gate, published for readers. */
		size_t n = 2 * (t->mask + 1);
		struct gtable *nt = calloc(1, sizeof(*nt) + n * sizeof(nt->slot[0]));
		struct inj_gate *x;

		if (!nt)
			return NULL;
		nt->mask = n - 1;
		nt->older = t;
		for (x = c->all_gates; x; x = x->all_next)
			gtable_put(nt, x);
		atomic_store_explicit(&c->gates, nt, memory_order_release);
		t = nt;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->name = strdup(k->name);
	if (!g->name) {
		free(g);
		return NULL;
	}
	g->hash = h;
	g->device = k->device;
	g->dims_known = k->dims_known;
	if (k->dims_known) {
		g->grid = k->grid;
		g->block = k->block;
		g->cluster = cluster_norm(k->cluster);
		g->smem_dynamic = k->smem_dynamic;
	}
	g->match = regex_match(c->cfg, k->name);
	if (g->match) {
		const char *why = NULL;

		if (inj_never_profiled(c->cfg, k->name, &why)) {
			g->match = false;
			if (strcmp(why, "NCCL") == 0 && !atomic_exchange(&c->nccl_said, true))
				inj_info("%s and NCCL's other kernels are never profiled (they wait for "
					 "other GPUs and ranks, and would hang under kernel replay); "
					 "they are timed", k->name);
		}
	}
	g->all_next = c->all_gates;
	c->all_gates = g;
	c->n_gates++;
	gtable_put(t, g);
	return g;
}

/* Take one of the N credits of g, lock-free. */
static bool
credit_take(struct inj_gate *g, unsigned n)
{
	unsigned t = atomic_load(&g->taken);

	while (t < n) {
		if (atomic_compare_exchange_weak(&g->taken, &t, t + 1))
			return true;
	}
	return false;
}

static void
credit_return(struct inj_gate *g)
{
	unsigned t = atomic_load(&g->taken);

	while (t > 0 && !atomic_compare_exchange_weak(&g->taken, &t, t - 1))
		;
}

bool
inj_collector_gate_take(struct inj_collector *c, const struct inj_launch_key *key,
			struct inj_gate **ret_gate)
{
	unsigned n = c->cfg->profile_launches;
	struct inj_gate *g;
	uint64_t h;

	if (n == 0 || c->cfg->mode != INJ_MODE_FULL)
		return false;
	h = key_hash(key);
	g = gate_find(c, key, h);
	if (!g) {
		pthread_mutex_lock(&c->gate_lock);
		g = gate_get(c, key, h);
		pthread_mutex_unlock(&c->gate_lock);
	}
	if (!g || !g->match || !credit_take(g, n))
		return false;
	*ret_gate = g;
	return true;
}

void
inj_collector_gate_give_back(struct inj_collector *c, struct inj_gate *g)
{
	(void)c;
	credit_return(g);
}

/* A window of g failed or was cancelled: its credit back, within the bound. */
static void
credit_return_failed(struct inj_gate *g)
{
	unsigned n = atomic_fetch_add(&g->failed, 1) + 1;

	if (n < MAX_FAILED_WINDOWS)
		credit_return(g);
	else if (n == MAX_FAILED_WINDOWS)
		inj_debug("%s: %d profiling windows failed; its remaining launches are timed only",
			  g->name, MAX_FAILED_WINDOWS);
}

struct inj_gate *
inj_collector_gate_move(struct inj_collector *c, struct inj_gate *from,
			const struct inj_launch_key *to)
{
	uint64_t h = key_hash(to);
	struct inj_gate *g = gate_find(c, to, h);

	if (!g) {
		pthread_mutex_lock(&c->gate_lock);
		g = gate_get(c, to, h);
		pthread_mutex_unlock(&c->gate_lock);
	}
	if (!g)
		return from; /* ENOMEM: keep the credit where it is */
	if (g == from)
		return g;
	if (!g->match || !credit_take(g, c->cfg->profile_launches))
		return NULL; /* the full signature had its N already */
	credit_return(from);
	return g;
}

/* ---- profiled launches ---- */
static bool
corr_grow(struct inj_collector *c)
{
	size_t cap = c->corr_cap ? 2 * c->corr_cap : 64, i;
	uint32_t *keys = calloc(cap, sizeof(*keys));
	struct inj_prof_launch **vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return false;
	}
	for (i = 0; i < c->corr_cap; i++) {
		size_t j;

		if (!c->corr_keys[i])
			continue;
		for (j = (c->corr_keys[i] * 2654435761u) & (cap - 1); keys[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = c->corr_keys[i];
		vals[j] = c->corr_vals[i];
	}
	free(c->corr_keys);
	free(c->corr_vals);
	c->corr_keys = keys;
	c->corr_vals = vals;
	c->corr_cap = cap;
	return true;
}

static struct inj_prof_launch *
corr_find(const struct inj_collector *c, uint32_t corr)
{
	size_t j;

	if (!c->corr_n || !corr)
		return NULL;
	for (j = (corr * 2654435761u) & (c->corr_cap - 1); c->corr_keys[j];
	     j = (j + 1) & (c->corr_cap - 1)) {
		if (c->corr_keys[j] == corr)
			return c->corr_vals[j];
	}
	return NULL;
}

static bool
corr_put(struct inj_collector *c, uint32_t corr, struct inj_prof_launch *pl)
{
	size_t j;

	if (!corr)
		return true;
	if ((c->corr_n + 1) * 2 > c->corr_cap && !corr_grow(c))
		return false;
	for (j = (corr * 2654435761u) & (c->corr_cap - 1); c->corr_keys[j];
	     j = (j + 1) & (c->corr_cap - 1)) {
		if (c->corr_keys[j] == corr) {
			c->corr_vals[j] = pl;
			return true;
		}
	}
	c->corr_keys[j] = corr;
	c->corr_vals[j] = pl;
	c->corr_n++;
	return true;
}

struct inj_prof_launch *
inj_collector_prof_begin(struct inj_collector *c, struct inj_gate *g)
{
	struct inj_prof_launch *pl = calloc(1, sizeof(*pl));
	size_t m;

	if (!pl) {
		inj_collector_gate_give_back(c, g);
		return NULL;
	}
	pl->gate = g;
	pl->state = PL_OPEN;
	pl->gpu_ns = NAN;
	for (m = 0; m < GPUPROJ_M_COUNT; m++)
		pl->values[m] = NAN;
	pthread_mutex_lock(&c->lock);
	pl->next = c->launches;
	c->launches = pl;
	pthread_mutex_unlock(&c->lock);
	return pl;
}

void
inj_collector_prof_set_gate(struct inj_collector *c, struct inj_prof_launch *pl,
			    struct inj_gate *g)
{
	pthread_mutex_lock(&c->lock);
	pl->gate = g;
	pthread_mutex_unlock(&c->lock);
}

void
inj_collector_prof_add_corr(struct inj_collector *c, struct inj_prof_launch *pl, uint32_t corr)
{
	int i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < pl->n_corr; i++) {
		if (pl->corr[i] == corr)
			goto out;
	}
	if (pl->n_corr < 2 && corr) {
		if (corr_put(c, corr, pl))
			pl->corr[pl->n_corr++] = corr;
		else
			oom(c);
	}
out:
	pthread_mutex_unlock(&c->lock);
}

/* Count a finished profiled launch in its kernel record (lock held). */
static void
pl_apply(struct inj_collector *c, struct inj_prof_launch *pl)
{
	struct gpuproj_kernel *k = pl->k;
	size_t m;

	if (pl->applied || !k || pl->state == PL_OPEN || pl->state == PL_CANCELLED)
		return;
	pl->applied = true;
	k->launches++;
	c->totals.launches++;
	if (pl->state != PL_DONE)
		return;
	k->profiled++;
	c->totals.profiled++;
	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		if (isfinite(pl->values[m]))
			gpuproj_kernel_add_metric(k, (enum gpuproj_metric)m, pl->values[m]);
	}
	if (isfinite(pl->gpu_ns) && gpuproj_kernel_add_extra(k, INJ_DURATION_METRIC, "ns",
							     pl->gpu_ns) != GPUPROJ_OK)
		oom(c);
}

void
inj_collector_prof_done(struct inj_collector *c, struct inj_prof_launch *pl, const double *values,
			double gpu_ns)
{
	pthread_mutex_lock(&c->lock);
	memcpy(pl->values, values, sizeof(pl->values));
	pl->gpu_ns = gpu_ns;
	pl->state = PL_DONE;
	pl_apply(c, pl);
	pthread_mutex_unlock(&c->lock);
}

void
inj_collector_prof_cancel(struct inj_collector *c, struct inj_prof_launch *pl)
{
	struct inj_gate *g;

	pthread_mutex_lock(&c->lock);
	pl->state = PL_CANCELLED;
	g = pl->gate;
	pthread_mutex_unlock(&c->lock);
	credit_return_failed(g);
}

void
inj_collector_prof_failed(struct inj_collector *c, struct inj_prof_launch *pl, bool executed)
{
	struct inj_gate *g;

	pthread_mutex_lock(&c->lock);
	pl->state = PL_FAILED;
	pl->executed = executed;
	g = pl->gate;
	pl_apply(c, pl);
	pthread_mutex_unlock(&c->lock);
	credit_return_failed(g);
}

void
inj_collector_untimed_launch(struct inj_collector *c, uint32_t corr)
{
	struct inj_prof_launch *pl;

	if (!corr)
		return;
	pl = calloc(1, sizeof(*pl));
	if (!pl) {
		pthread_mutex_lock(&c->lock);
		oom(c);
		pthread_mutex_unlock(&c->lock);
		return;
	}
	pl->state = PL_FAILED;
	pl->executed = true;
	pl->gpu_ns = NAN;
	pthread_mutex_lock(&c->lock);
	pl->next = c->launches;
	c->launches = pl;
	if (corr_put(c, corr, pl))
		pl->corr[pl->n_corr++] = corr;
	else
		oom(c);
	pthread_mutex_unlock(&c->lock);
}

/* ---- records ---- */

static struct gpuproj_kernel *
kernel_for(struct inj_collector *c, const struct inj_kernel_record *r)
{
	struct gpuproj_dim3 cl = cluster_norm(r->cluster);
	char tag[48];
	struct gpuproj_signature sig = {
		.name = r->name,
		.tag = tag,
		.grid = r->grid,
		.block = r->block,
		.smem_dynamic = r->smem_dynamic,
		.device = r->device,
	};
	/*
	 * Two ways per set, the most recent first; the set from a mix of the
	 * pointer and the dims (names are heap strings 16 or 32 bytes apart:
	 * XORing pointer >> 3 with the dims, as before, collided for 40 % of
	 * the records of the soak's 1,000 signatures).
	 */
	struct kcache *set = &c->kcache[mix(mix((uintptr_t)r->name, (uint64_t)r->grid.x << 32 |
						r->block.x), r->grid.y) % (KCACHE / 2) * 2];
	struct kcache *e;
	struct gpuproj_kernel *k;
	size_t before, w;

	for (w = 0; w < 2; w++) {
		e = &set[w];
		if (e->name_ptr == r->name && e->k && e->grid.x == r->grid.x &&
		    e->grid.y == r->grid.y && e->grid.z == r->grid.z && e->block.x == r->block.x &&
		    e->block.y == r->block.y && e->block.z == r->block.z &&
		    e->smem_dynamic == r->smem_dynamic && e->cluster.x == cl.x &&
		    e->cluster.y == cl.y && e->cluster.z == cl.z && e->device == r->device &&
		    strcmp(e->k->name, r->name) == 0) {
			if (w) {
				struct kcache t = set[0];

				set[0] = set[1];
				set[1] = t;
			}
			return set[0].k;
		}
	}
	cluster_tag(cl, tag, sizeof(tag));
	before = gpuproj_profile_count(c->profile);
	if (gpuproj_profile_kernel(c->profile, &sig, &k) != GPUPROJ_OK) {
		oom(c);
		return NULL;
	}
	if (gpuproj_profile_count(c->profile) != before) {
		c->totals.kernels++;
		k->smem_static = r->smem_static;
		k->regs_per_thread = r->regs_per_thread;
	}
	set[1] = set[0];
	e = &set[0];
	e->name_ptr = r->name;
	e->grid = r->grid;
	e->block = r->block;
	e->cluster = cl;
	e->smem_dynamic = r->smem_dynamic;
	e->device = r->device;
	e->k = k;
	return k;
}

struct inj_timeline *
inj_collector_timeline(struct inj_collector *c)
{
	return c ? c->tl : NULL;
}

/* What a record counted in, for the timeline: its kernel record, and whether it ran profiled. */
struct record_use {
	const struct gpuproj_kernel *k;
	bool perturbed;
};

/* Count records into the profile (the data lock held); out[i]: what record i counted in. */
static void
count_records(struct inj_collector *c, const struct inj_kernel_record *recs, size_t n,
	      struct record_use *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct inj_kernel_record *r = &recs[i];
		struct inj_prof_launch *pl = corr_find(c, r->correlation);
		struct gpuproj_kernel *k;

		if (!r->name)
			continue;
		if (pl && pl->state == PL_CANCELLED)
			pl = NULL; /* the window closed before the kernel ran: a plain launch */
		if (pl) {
			/* A profiled launch: counted once, never timed (it ran under replay). */
			out[i].perturbed = true;
			out[i].k = pl->k ? pl->k : kernel_for(c, r);
			if (pl->k) {
				c->extra_records++;
				continue;
			}
			pl->k = (struct gpuproj_kernel *)out[i].k;
			if (pl->k)
				/* graph launches are never profiled */
				pl->k->launch_mode_known = true;
			pl_apply(c, pl);
			continue;
		}
		k = kernel_for(c, r);
		if (!k)
			continue;
		out[i].k = k;
		/* The launch mode: a kernel node of a graph launch, or a stream launch. */
		k->launch_mode_known = true;
		if (r->graph_id)
			k->graph_launches++;
		if (r->end_ns > r->start_ns) {
			double ns = (double)(r->end_ns - r->start_ns);

			gpuproj_kernel_add_duration(k, ns);
			c->totals.timed++;
			c->totals.gpu_ns += ns;
		} else {
			k->launches++; /* no timing in the record */
		}
		c->totals.launches++;
	}
}

/* The records as the timeline's kernel ops (the recorder's batch held by the caller). */
static void
timeline_kernels(struct inj_timeline *tl, const struct inj_kernel_record *recs, size_t n,
		 const struct record_use *use)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct inj_op_record r = {
			.kind = INJ_OP_KERNEL, .corr = recs[i].correlation,
			.ctx = recs[i].context_id, .stream = recs[i].stream_id,
			.start = recs[i].start_ns, .end = recs[i].end_ns,
			.graph_id = recs[i].graph_id, .k = use[i].k, .perturbed = use[i].perturbed,
		};

		inj_timeline_op(tl, &r);
	}
}

void
inj_collector_records(struct inj_collector *c, const struct inj_kernel_record *recs, size_t n)
{
	struct record_use use[128];
	bool tl = inj_timeline_recording(c->tl);
	size_t done, m;

	/* In chunks: the timeline's ops are added after the data lock is released. */
	for (done = 0; done < n; done += m) {
		m = n - done < ARRAY_LENGTH(use) ? n - done : ARRAY_LENGTH(use);
		memset(use, 0, m * sizeof(*use));
		pthread_mutex_lock(&c->lock);
		if (c->closed)
			c->ignored += m;
		else
			count_records(c, recs + done, m, use);
		pthread_mutex_unlock(&c->lock);
		if (tl)
			timeline_kernels(c->tl, recs + done, m, use);
	}
}

void
inj_collector_dropped(struct inj_collector *c, uint64_t n)
{
	pthread_mutex_lock(&c->lock);
	c->totals.dropped += n;
	pthread_mutex_unlock(&c->lock);
}

int
inj_collector_source_device(struct inj_collector *c)
{
	int d;

	if (!exit_lock(c))
		return -1;
	d = c->first_device;
	pthread_mutex_unlock(&c->lock);
	return d;
}

void
inj_collector_sm_clock(struct inj_collector *c, double mhz, unsigned long long reasons)
{
	struct gpuproj_sm_clock k;

	if (!(mhz > 0) || !(mhz <= GPUPROJ_MAX_CLOCK_HZ / 1e6))
		return;
	if (!exit_lock(c))
		return;
	k = c->sm_clock;
	k.min_mhz = k.samples ? fmin(k.min_mhz, mhz) : mhz;
	k.max_mhz = k.samples ? fmax(k.max_mhz, mhz) : mhz;
	k.samples++;
	/* The mean of the samples, kept inside [min, max] against rounding. */
	k.mean_mhz = fmin(k.max_mhz, fmax(k.min_mhz, (c->sm_clock_sum + mhz) / (double)k.samples));
	k.reasons |= reasons;
	k.capped_samples += (reasons & GPUPROJ_CLK_CAPPED) != 0;
	/* Refused only for a reason bit out of the enum (the caller masks them). */
	if (!c->closed && gpuproj_profile_set_sm_clock(c->profile, &k) == GPUPROJ_OK) {
		c->sm_clock = k;
		c->sm_clock_sum += mhz;
	}
	pthread_mutex_unlock(&c->lock);
}

bool
inj_collector_totals(struct inj_collector *c, struct inj_totals *ret)
{
	if (!exit_lock(c)) {
		memset(ret, 0, sizeof(*ret));
		return false;
	}
	*ret = c->totals;
	pthread_mutex_unlock(&c->lock);
	return true;
}

/* Copy p into a new profile (public API only; see inj_collector_snapshot()). */
static struct gpuproj_profile *
profile_copy(const struct gpuproj_profile *p)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const struct gpuproj_process_info *pr = gpuproj_profile_process(p);
	struct gpuproj_profile *q = gpuproj_profile_new();
	const char *key, *value;
	size_t i;

	if (!q)
		return NULL;
	if (gpuproj_profile_set_device_info(q, d) != GPUPROJ_OK ||
	    ((pr->application || pr->host || pr->argv) &&
	     gpuproj_profile_set_process(q, pr->application, pr->host, pr->pid, pr->rank,
					 (const char *const *)pr->argv) != GPUPROJ_OK))
		goto oom;
	for (i = 0; (key = gpuproj_profile_attr_at(p, i, &value)) != NULL; i++) {
		if (gpuproj_profile_set_attr(q, key, value) != GPUPROJ_OK)
			goto oom;
	}
	*gpuproj_profile_run_info_mut(q) = *gpuproj_profile_run_info(p);
	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		struct gpuproj_signature sig = {
			.name = k->name,
			.tag = k->tag,
			.grid = k->grid,
			.block = k->block,
			.smem_dynamic = k->smem_dynamic,
			.device = k->device,
		};
		struct gpuproj_kernel *n;

		if (gpuproj_profile_kernel(q, &sig, &n) != GPUPROJ_OK ||
		    gpuproj_kernel_merge(n, k) != GPUPROJ_OK)
			goto oom;
		n->smem_static = k->smem_static;
		n->regs_per_thread = k->regs_per_thread;
		n->ranks = k->ranks;
	}
	return q;
oom:
	gpuproj_profile_free(q);
	return NULL;
}

struct gpuproj_profile *
inj_collector_snapshot(struct inj_collector *c)
{
	struct gpuproj_profile *q;

	pthread_mutex_lock(&c->lock);
	q = profile_copy(c->profile);
	pthread_mutex_unlock(&c->lock);
	return q;
}

struct gpuproj_profile *
inj_collector_lock(struct inj_collector *c)
{
	return exit_lock(c) ? c->profile : NULL;
}

void
inj_collector_unlock(struct inj_collector *c)
{
	pthread_mutex_unlock(&c->lock);
}

/* ---- exit ---- */

int
inj_collector_finish(struct inj_collector *c)
{
	struct inj_prof_launch *pl;
	struct gpuproj_run_info *run;
	struct strbuf names;
	size_t i, n_from_profiler = 0, n_orphans = 0;

	if (!exit_lock(c))
		return INJ_FINISH_NO_DATA;
	if (c->finished)
		goto out;
	c->finished = true;

	/*
	 * Profiled launches whose record never came (dropped, or not traced):
	 * count them from the launch key when its dimensions are known.
	 */
	for (pl = c->launches; pl; pl = pl->next) {
		struct inj_kernel_record r = { 0 };

		if (!pl->k && pl->state == PL_DONE)
			n_orphans++;
		if (pl->k || pl->state != PL_DONE || !pl->gate || !pl->gate->dims_known)
			continue;
		r.name = pl->gate->name;
		r.grid = pl->gate->grid;
		r.block = pl->gate->block;
		r.cluster = pl->gate->cluster;
		r.smem_dynamic = pl->gate->smem_dynamic;
		r.device = pl->gate->device;
		pl->k = kernel_for(c, &r);
		pl_apply(c, pl);
	}

	/* Signatures that only ever ran profiled: time them by the profiler. */
	strbuf_init(&names);
	for (i = 0; i < gpuproj_profile_count(c->profile); i++) {
		struct gpuproj_kernel *k = gpuproj_profile_at(c->profile, i);
		bool used = false;

		if (k->duration_ns.n != 0 || k->profiled == 0)
			continue;
		for (pl = c->launches; pl; pl = pl->next) {
			if (pl->k == k && pl->applied && pl->state == PL_DONE &&
			    isfinite(pl->gpu_ns) && pl->gpu_ns > 0) {
				gpuproj_stats_add(&k->duration_ns, pl->gpu_ns);
				used = true;
			}
		}
		if (used) {
			strbuf_printf(&names, "%s%s", n_from_profiler ? " " : "", k->name);
			n_from_profiler++;
		}
	}
	if (n_from_profiler) {
		gpuproj_profile_set_attr(c->profile, "duration_from_profiler", names.buf);
		gpuproj_profile_set_attr(c->profile, "duration_from_profiler.note",
					 "these kernels only ran profiled: their duration_ns is "
					 INJ_DURATION_METRIC " from the range profiler (one replay "
					 "pass), not an activity-record timing");
	}
	strbuf_free(&names);
	if (c->extra_records) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)c->extra_records);
		gpuproj_profile_set_attr(c->profile, "replay_records_ignored", buf);
	}
	if (n_orphans) {
		char buf[32];

		/* Counted from their launch keys above (when complete); see the checklist. */
		snprintf(buf, sizeof(buf), "%zu", n_orphans);
		gpuproj_profile_set_attr(c->profile, "profiled_launches_without_record", buf);
	}

	run = gpuproj_profile_run_info_mut(c->profile);
	run->gpu_ns = c->totals.gpu_ns;
	run->dropped_records = c->totals.dropped;
	run->peak_device_memory_bytes = inj_collector_mem_peak(c);
out:
	pthread_mutex_unlock(&c->lock);
	/*
	 * The whole run: its records all came (the backend flushed at shutdown).
	 * Without the data lock: the recorder's lock comes first (the buffer
	 * thread holds it while it gives the collector kernel records), and
	 * nothing else reads the profile's timeline now (the collector is closed).
	 */
	return inj_timeline_finish(c->tl, c->profile) ? INJ_FINISH_OK : INJ_FINISH_NO_TIMELINE;
}
