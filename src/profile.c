/* SPDX-License-Identifier: MIT */
/*
 * Kernel records aggregated per signature (docs/internals/DESIGN.md §3).
 *
 * Records live in separately allocated structs so pointers stay valid while
 * the table grows; lookup is an open-addressing hash over every signature
 * field. Memory grows with distinct signatures only.
 *
 * Thread safety: none inside; callers serialise writers.
 */
#include "config.h"

#include <inttypes.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/profile.h>
#include <gpuproj/timeline.h>

#include "profile-private.h"
#include "util.h"

/* ---- kernel records ---- */

bool
gpuproj_kernel_has(const struct gpuproj_kernel *k, enum gpuproj_metric m)
{
	return (unsigned)m < GPUPROJ_M_COUNT && k->metric_n[m] > 0;
}

double
gpuproj_kernel_metric(const struct gpuproj_kernel *k, enum gpuproj_metric m)
{
	if (!gpuproj_kernel_has(k, m))
		return NAN;
	return k->metric_sum[m] / (double)k->metric_n[m];
}

double
gpuproj_kernel_mean_ns(const struct gpuproj_kernel *k)
{
	return k->duration_ns.n ? k->duration_ns.mean : NAN;
}

bool
gpuproj_kernel_geometry_known(const struct gpuproj_kernel *k)
{
	return !(k && k->tag && strcmp(k->tag, GPUPROJ_TAG_NO_GEOMETRY) == 0);
}

double
gpuproj_kernel_total_ns(const struct gpuproj_kernel *k)
{
	if (!k->duration_ns.n)
		return NAN;
	return k->duration_ns.mean * (double)(k->launches ? k->launches : k->duration_ns.n);
}

int
gpuproj_kernel_flop(const struct gpuproj_kernel *k, double *ret_flop)
{
	static const enum gpuproj_metric fp[3][3] = {
		{ GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL },
		{ GPUPROJ_M_INST_FP32_FMA, GPUPROJ_M_INST_FP32_ADD, GPUPROJ_M_INST_FP32_MUL },
		{ GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL },
	};
	double flop = 0;
	bool any = false;
	int p, j;

	for (p = 0; p < 3; p++) {
		for (j = 0; j < 3; j++) {
			if (!gpuproj_kernel_has(k, fp[p][j]))
				continue;
			any = true;
			flop += (j == 0 ? 2.0 : 1.0) * gpuproj_kernel_metric(k, fp[p][j]);
		}
	}
	if (!any)
		return GPUPROJ_E_MISSING;
	*ret_flop = flop;
	return GPUPROJ_OK;
}

int
gpuproj_kernel_add_duration(struct gpuproj_kernel *k, double ns)
{
	/* The launch counts; a duration that is not a time does not poison the mean. */
	k->launches++;
	if (!(ns >= 0 && ns <= GPUPROJ_MAX_NS))
		return GPUPROJ_E_INVAL;
	gpuproj_stats_add(&k->duration_ns, ns);
	return GPUPROJ_OK;
}

int
gpuproj_kernel_add_metric(struct gpuproj_kernel *k, enum gpuproj_metric m, double value)
{
	double lo, hi;

	if (gpuproj_metric_range(m, &lo, &hi) || !(value >= lo && value <= hi) ||
	    k->metric_n[m] == UINT32_MAX)
		return GPUPROJ_E_INVAL;
	k->metric_sum[m] += value;
	k->metric_n[m]++;
	return GPUPROJ_OK;
}

int
gpuproj_kernel_add_extra(struct gpuproj_kernel *k, const char *name, const char *unit,
			 double value)
{
	struct gpuproj_extra_metric *e;
	size_t i;

	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, name) == 0) {
			k->extra[i].sum += value;
			k->extra[i].n++;
			return GPUPROJ_OK;
		}
	}
	e = realloc(k->extra, (k->n_extra + 1) * sizeof(*e));
	if (!e)
		return GPUPROJ_E_NOMEM;
	k->extra = e;
	e = &k->extra[k->n_extra];
	e->name = strdup(name);
	e->unit = strdup(unit ? unit : "");
	if (!e->name || !e->unit) {
		free(e->name);
		free(e->unit);
		return GPUPROJ_E_NOMEM;
	}
	e->sum = value;
	e->n = 1;
	k->n_extra++;
	return GPUPROJ_OK;
}

int
gpuproj_kernel_set_reference(struct gpuproj_kernel *k, const char *gpu, double mean_ns,
			     uint64_t launches)
{
	struct gpuproj_reference *r;
	size_t i;

	for (i = 0; i < k->n_refs; i++) {
		if (strcasecmp(k->refs[i].gpu, gpu) == 0) {
			k->refs[i].mean_ns = mean_ns;
			k->refs[i].launches = launches;
			return GPUPROJ_OK;
		}
	}
	r = realloc(k->refs, (k->n_refs + 1) * sizeof(*r));
	if (!r)
		return GPUPROJ_E_NOMEM;
	k->refs = r;
	r[k->n_refs].gpu = strdup(gpu);
	if (!r[k->n_refs].gpu)
		return GPUPROJ_E_NOMEM;
	r[k->n_refs].mean_ns = mean_ns;
	r[k->n_refs].launches = launches;
	k->n_refs++;
	return GPUPROJ_OK;
}

const struct gpuproj_reference *
gpuproj_kernel_reference(const struct gpuproj_kernel *k, const char *gpu)
{
	size_t i;

	for (i = 0; i < k->n_refs; i++) {
		if (strcasecmp(k->refs[i].gpu, gpu) == 0)
			return &k->refs[i];
	}
	return NULL;
}

static void
kernel_free(struct gpuproj_kernel *k)
{
	size_t i;

	if (!k)
		return;
	if (k->demangled != k->name)
		free(k->demangled);
	free(k->name);
	free(k->tag);
	for (i = 0; i < k->n_extra; i++) {
		free(k->extra[i].name);
		free(k->extra[i].unit);
	}
	free(k->extra);
	for (i = 0; i < k->n_refs; i++)
		free(k->refs[i].gpu);
	free(k->refs);
	free(k);
}

/* ---- profile ---- */


static uint64_t
fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t
sig_hash(const char *name, const char *tag, struct gpuproj_dim3 grid, struct gpuproj_dim3 block,
	 uint32_t smem, int device)
{
	uint64_t h = 14695981039346656037ULL;
	uint32_t v[8] = { grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, (uint32_t)device };

	h = fnv(h, name, strlen(name) + 1);
	h = fnv(h, tag ? tag : "", strlen(tag ? tag : "") + 1);
	return fnv(h, v, sizeof(v));
}

static bool
sig_equal(const struct gpuproj_kernel *k, const struct gpuproj_signature *s)
{
	const char *tag = s->tag ? s->tag : "";

	return k->grid.x == s->grid.x && k->grid.y == s->grid.y && k->grid.z == s->grid.z &&
	       k->block.x == s->block.x && k->block.y == s->block.y && k->block.z == s->block.z &&
	       k->smem_dynamic == s->smem_dynamic && k->device == s->device &&
	       strcmp(k->name, s->name) == 0 && strcmp(k->tag, tag) == 0;
}

static uint64_t
kernel_hash(const struct gpuproj_kernel *k)
{
	return sig_hash(k->name, k->tag, k->grid, k->block, k->smem_dynamic, k->device);
}

static int
rehash(struct gpuproj_profile *p, size_t nslots)
{
	size_t *slots = calloc(nslots, sizeof(*slots));
	size_t i;

	if (!slots)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < p->n; i++) {
		size_t h = (size_t)kernel_hash(p->kernels[i]) & (nslots - 1);

		while (slots[h])
			h = (h + 1) & (nslots - 1);
		slots[h] = i + 1;
	}
	free(p->slots);
	p->slots = slots;
	p->nslots = nslots;
	return GPUPROJ_OK;
}

struct gpuproj_profile *
gpuproj_profile_new(void)
{
	struct gpuproj_profile *p = calloc(1, sizeof(*p));
	size_t i;

	if (!p)
		return NULL;
	p->device.clock_hz = NAN;
	for (i = 0; i < GPUPROJ_DRV_COUNT; i++)
		p->device.driver[i] = NAN;
	p->process.pid = -1;
	p->process.rank = -1;
	p->run.wall_ns = NAN;
	p->run.gpu_ns = NAN;
	p->run.peak_device_memory_bytes = NAN;
	if (rehash(p, 64)) {
		free(p);
		return NULL;
	}
	return p;
}

static void
free_argv(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

struct gpuproj_profile *
gpuproj_profile_free(struct gpuproj_profile *p)
{
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < p->n; i++)
		kernel_free(p->kernels[i]);
	free(p->kernels);
	free(p->slots);
	free(p->device.name);
	free(p->device.target);
	free(p->device.chip);
	free(p->process.application);
	free(p->process.host);
	free_argv(p->process.argv);
	for (i = 0; i < p->n_attrs; i++) {
		free(p->attrs[i].key);
		free(p->attrs[i].value);
	}
	free(p->attrs);
	gpuproj_timeline_free(p->timeline);
	free(p);
	return NULL;
}

const struct gpuproj_timeline *
gpuproj_profile_timeline(const struct gpuproj_profile *p)
{
	return p ? p->timeline : NULL;
}

struct gpuproj_timeline *
gpuproj_profile_timeline_mut(struct gpuproj_profile *p)
{
	return p ? p->timeline : NULL;
}

void
gpuproj_profile_set_timeline(struct gpuproj_profile *p, struct gpuproj_timeline *tl)
{
	if (!p) {
		gpuproj_timeline_free(tl);
		return;
	}
	if (p->timeline != tl)
		gpuproj_timeline_free(p->timeline);
	p->timeline = tl;
}

struct gpuproj_kernel *
gpuproj_profile_find(const struct gpuproj_profile *p, const struct gpuproj_signature *sig)
{
	size_t h;

	if (!p || !sig || !sig->name)
		return NULL;
	h = (size_t)sig_hash(sig->name, sig->tag, sig->grid, sig->block, sig->smem_dynamic,
			     sig->device) & (p->nslots - 1);
	while (p->slots[h]) {
		struct gpuproj_kernel *k = p->kernels[p->slots[h] - 1];

		if (sig_equal(k, sig))
			return k;
		h = (h + 1) & (p->nslots - 1);
	}
	return NULL;
}

int
gpuproj_profile_kernel(struct gpuproj_profile *p, const struct gpuproj_signature *sig,
		       struct gpuproj_kernel **ret)
{
	struct gpuproj_kernel *k;
	size_t h;

	if (!p || !sig || !sig->name || !ret)
		return GPUPROJ_E_INVAL;
	k = gpuproj_profile_find(p, sig);
	if (k) {
		*ret = k;
		return GPUPROJ_OK;
	}
	if ((p->n + 1) * 2 > p->nslots && rehash(p, p->nslots * 2))
		return GPUPROJ_E_NOMEM;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct gpuproj_kernel **nk = realloc(p->kernels, cap * sizeof(*nk));

		if (!nk)
			return GPUPROJ_E_NOMEM;
		p->kernels = nk;
		p->cap = cap;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return GPUPROJ_E_NOMEM;
	k->name = strdup(sig->name);
	k->tag = strdup(sig->tag ? sig->tag : "");
	if (!k->name || !k->tag) {
		kernel_free(k);
		return GPUPROJ_E_NOMEM;
	}
	k->grid = sig->grid;
	k->block = sig->block;
	k->smem_dynamic = sig->smem_dynamic;
	k->device = sig->device;
	p->kernels[p->n] = k;
	h = (size_t)kernel_hash(k) & (p->nslots - 1);
	while (p->slots[h])
		h = (h + 1) & (p->nslots - 1);
	p->slots[h] = p->n + 1;
	p->n++;
	*ret = k;
	return GPUPROJ_OK;
}

size_t
gpuproj_profile_count(const struct gpuproj_profile *p)
{
	return p ? p->n : 0;
}

struct gpuproj_kernel *
gpuproj_profile_at(const struct gpuproj_profile *p, size_t i)
{
	return p && i < p->n ? p->kernels[i] : NULL;
}

const struct gpuproj_device_info *
gpuproj_profile_device(const struct gpuproj_profile *p)
{
	return &p->device;
}

const struct gpuproj_process_info *
gpuproj_profile_process(const struct gpuproj_profile *p)
{
	return &p->process;
}

static int
replace_str(char **dst, const char *src)
{
	char *n;

	if (!src)
		return GPUPROJ_OK;
	n = strdup(src);
	if (!n)
		return GPUPROJ_E_NOMEM;
	free(*dst);
	*dst = n;
	return GPUPROJ_OK;
}

int
gpuproj_profile_set_device(struct gpuproj_profile *p, const char *name, const char *target,
			   const char *chip, int cc_major, int cc_minor, int sms, double clock_hz)
{
	if (replace_str(&p->device.name, name) || replace_str(&p->device.target, target) ||
	    replace_str(&p->device.chip, chip))
		return GPUPROJ_E_NOMEM;
	p->device.cc_major = cc_major;
	p->device.cc_minor = cc_minor;
	p->device.sms = sms;
	p->device.clock_hz = clock_hz;
	return GPUPROJ_OK;
}

int
gpuproj_profile_set_device_info(struct gpuproj_profile *p, const struct gpuproj_device_info *d)
{
	int r;

	if (!p || !d)
		return GPUPROJ_E_INVAL;
	r = gpuproj_profile_set_device(p, d->name, d->target, d->chip, d->cc_major, d->cc_minor,
				       d->sms, d->clock_hz);
	if (r == GPUPROJ_OK) {
		memcpy(p->device.driver, d->driver, sizeof(p->device.driver));
		p->device.sm_clock = d->sm_clock;
	}
	return r;
}

/* The names of enum gpuproj_clock_reason's bits, by bit position (docs/formats/profile.md). */
static const char *const clock_reason_names[] = {
	"gpu_idle", "applications_clocks", "sw_power_cap", "hw_slowdown", "sync_boost",
	"sw_thermal", "hw_thermal", "hw_power_brake", "display_clocks",
};

_Static_assert(GPUPROJ_CLK_KNOWN == (1ull << ARRAY_LENGTH(clock_reason_names)) - 1,
	       "a name per bit of enum gpuproj_clock_reason");

const char *
gpuproj_clock_reason_name(unsigned long long bit)
{
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(clock_reason_names); i++) {
		if (bit == 1ull << i)
			return clock_reason_names[i];
	}
	return NULL;
}

/* Largest sample count: an integer a JSON double keeps exactly. */
#define SM_CLOCK_MAX_SAMPLES 9007199254740992.0

int
gpuproj_profile_set_sm_clock(struct gpuproj_profile *p, const struct gpuproj_sm_clock *c)
{
	static const struct gpuproj_sm_clock none = { 0 };

	if (!p || !c || (double)c->samples > SM_CLOCK_MAX_SAMPLES ||
	    (c->reasons & ~GPUPROJ_CLK_KNOWN) != 0)
		return GPUPROJ_E_INVAL;
	if (c->samples == 0) {
		if (memcmp(c, &none, sizeof(none)) != 0)
			return GPUPROJ_E_INVAL;
	} else if (!(c->min_mhz > 0 && c->min_mhz <= c->mean_mhz && c->mean_mhz <= c->max_mhz &&
		     c->max_mhz <= GPUPROJ_MAX_CLOCK_HZ / 1e6) || c->capped_samples > c->samples) {
		return GPUPROJ_E_INVAL;
	}
	p->device.sm_clock = *c;
	return GPUPROJ_OK;
}

/*
 * The driver attributes: JSON key and largest value. The limits are far
 * beyond any GPU (a 64-bit bus of 1 MHz ... 16 TiB of memory, 100 kW), so
 * that a value past them is a broken file, not a future GPU.
 */
static const struct {
	const char *key;
	double max;
	bool integer;
} driver_attrs[GPUPROJ_DRV_COUNT] = {
	[GPUPROJ_DRV_MEMORY_CLOCK_KHZ] = { "memory_clock_khz", 1e8, true },
	[GPUPROJ_DRV_MEMORY_BUS_BITS] = { "memory_bus_bits", 65536, true },
	[GPUPROJ_DRV_MEMORY_BYTES] = { "memory_bytes", 17592186044416.0, true },
	[GPUPROJ_DRV_L2_BYTES] = { "l2_bytes", 17179869184.0, true },
	[GPUPROJ_DRV_THREADS_PER_SM] = { "threads_per_sm", 65536, true },
	[GPUPROJ_DRV_THREADS_PER_BLOCK] = { "threads_per_block", 65536, true },
	[GPUPROJ_DRV_BLOCKS_PER_SM] = { "blocks_per_sm", 65536, true },
	[GPUPROJ_DRV_REGS_PER_SM] = { "regs_per_sm", 16777216, true },
	[GPUPROJ_DRV_REGS_PER_BLOCK] = { "regs_per_block", 16777216, true },
	[GPUPROJ_DRV_SMEM_PER_SM_BYTES] = { "smem_per_sm_bytes", 1073741824.0, true },
	[GPUPROJ_DRV_SMEM_PER_BLOCK_OPTIN_BYTES] = { "smem_per_block_optin_bytes", 1073741824.0,
						     true },
	[GPUPROJ_DRV_SMEM_RESERVED_PER_BLOCK_BYTES] = { "smem_reserved_per_block_bytes",
							1073741824.0, true },
	[GPUPROJ_DRV_WARP_SIZE] = { "warp_size", 1024, true },
	[GPUPROJ_DRV_POWER_LIMIT_W] = { "power_limit_w", 1e5, false },
};

const char *
gpuproj_driver_attr_name(enum gpuproj_driver_attr a)
{
	return (unsigned)a < GPUPROJ_DRV_COUNT ? driver_attrs[a].key : NULL;
}

double
gpuproj_driver_attr_max(enum gpuproj_driver_attr a)
{
	return (unsigned)a < GPUPROJ_DRV_COUNT ? driver_attrs[a].max : NAN;
}

bool
profile_driver_attr_integer(enum gpuproj_driver_attr a)
{
	return (unsigned)a < GPUPROJ_DRV_COUNT && driver_attrs[a].integer;
}

bool
profile_driver_attr_ok(enum gpuproj_driver_attr a, double v)
{
	if (isnan(v))
		return true;
	return v > 0 && v <= driver_attrs[a].max && (!driver_attrs[a].integer || v == floor(v));
}

bool
gpuproj_driver_attr_ok(enum gpuproj_driver_attr a, double v)
{
	return (unsigned)a < GPUPROJ_DRV_COUNT && profile_driver_attr_ok(a, v);
}

bool
gpuproj_device_cc_ok(int major, int minor)
{
	return major >= 0 && major <= 99 && minor >= 0 && minor <= 9 && (major > 0 || minor == 0);
}

bool
gpuproj_device_sms_ok(int sms)
{
	return sms >= 0 && sms <= GPUPROJ_MAX_SMS;
}

bool
gpuproj_device_clock_ok(double hz)
{
	return isnan(hz) || (hz > 0 && hz <= GPUPROJ_MAX_CLOCK_HZ);
}

int
gpuproj_profile_set_driver_attr(struct gpuproj_profile *p, enum gpuproj_driver_attr a, double v)
{
	if (!p || (unsigned)a >= GPUPROJ_DRV_COUNT || !profile_driver_attr_ok(a, v))
		return GPUPROJ_E_INVAL;
	p->device.driver[a] = v;
	return GPUPROJ_OK;
}

int
gpuproj_profile_set_process(struct gpuproj_profile *p, const char *application, const char *host,
			    int64_t pid, int64_t rank, const char *const *argv)
{
	if (replace_str(&p->process.application, application) ||
	    replace_str(&p->process.host, host))
		return GPUPROJ_E_NOMEM;
	p->process.pid = pid;
	p->process.rank = rank;
	if (argv) {
		size_t n = 0, i;
		char **copy;

		while (argv[n])
			n++;
		copy = calloc(n + 1, sizeof(*copy));
		if (!copy)
			return GPUPROJ_E_NOMEM;
		for (i = 0; i < n; i++) {
			copy[i] = strdup(argv[i]);
			if (!copy[i]) {
				free_argv(copy);
				return GPUPROJ_E_NOMEM;
			}
		}
		free_argv(p->process.argv);
		p->process.argv = copy;
	}
	return GPUPROJ_OK;
}

int
gpuproj_profile_set_attr(struct gpuproj_profile *p, const char *key, const char *value)
{
	struct attr *a;
	size_t i;

	if (!key || !*key || !utf8_valid(key))
		return GPUPROJ_E_INVAL;
	for (i = 0; i < p->n_attrs; i++) {
		if (strcmp(p->attrs[i].key, key) != 0)
			continue;
		if (!value) {
			free(p->attrs[i].key);
			free(p->attrs[i].value);
			memmove(&p->attrs[i], &p->attrs[i + 1],
				(p->n_attrs - i - 1) * sizeof(*p->attrs));
			p->n_attrs--;
			return GPUPROJ_OK;
		}
		return replace_str(&p->attrs[i].value, value);
	}
	if (!value)
		return GPUPROJ_OK;
	a = realloc(p->attrs, (p->n_attrs + 1) * sizeof(*a));
	if (!a)
		return GPUPROJ_E_NOMEM;
	p->attrs = a;
	a[p->n_attrs].key = strdup(key);
	a[p->n_attrs].value = strdup(value);
	if (!a[p->n_attrs].key || !a[p->n_attrs].value) {
		free(a[p->n_attrs].key);
		free(a[p->n_attrs].value);
		return GPUPROJ_E_NOMEM;
	}
	p->n_attrs++;
	return GPUPROJ_OK;
}

const char *
gpuproj_profile_attr(const struct gpuproj_profile *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->n_attrs; i++) {
		if (strcmp(p->attrs[i].key, key) == 0)
			return p->attrs[i].value;
	}
	return NULL;
}

const char *
gpuproj_profile_attr_at(const struct gpuproj_profile *p, size_t i, const char **ret_value)
{
	if (i >= p->n_attrs)
		return NULL;
	if (ret_value)
		*ret_value = p->attrs[i].value;
	return p->attrs[i].key;
}

const struct gpuproj_run_info *
gpuproj_profile_run_info(const struct gpuproj_profile *p)
{
	return &p->run;
}

struct gpuproj_run_info *
gpuproj_profile_run_info_mut(struct gpuproj_profile *p)
{
	return &p->run;
}

double
gpuproj_profile_kernel_time_ns(const struct gpuproj_profile *p)
{
	double t = 0;
	size_t i;

	for (i = 0; i < p->n; i++) {
		double k = gpuproj_kernel_total_ns(p->kernels[i]);

		if (!isnan(k))
			t += k;
	}
	return t;
}

/*
 * Longest total time first, never-timed kernels last; ties by the rest of
 * the signature, so the order is deterministic.
 */
static int
kernel_time_cmp(const struct gpuproj_kernel *ka, const struct gpuproj_kernel *kb)
{
	double ta = gpuproj_kernel_total_ns(ka), tb = gpuproj_kernel_total_ns(kb);
	int c;

	if (isnan(ta))
		ta = -1;
	if (isnan(tb))
		tb = -1;
	if (ta != tb)
		return ta > tb ? -1 : 1;
	if ((c = strcmp(ka->name, kb->name)) != 0 || (c = strcmp(ka->tag, kb->tag)) != 0)
		return c;
	{
		const uint32_t va[] = { ka->grid.x, ka->grid.y, ka->grid.z, ka->block.x,
					ka->block.y, ka->block.z, ka->smem_dynamic, (uint32_t)ka->device };
		const uint32_t vb[] = { kb->grid.x, kb->grid.y, kb->grid.z, kb->block.x,
					kb->block.y, kb->block.z, kb->smem_dynamic, (uint32_t)kb->device };
		size_t i;

		for (i = 0; i < ARRAY_LENGTH(va); i++) {
			if (va[i] != vb[i])
				return va[i] < vb[i] ? -1 : 1;
		}
	}
	return 0;
}

static int
cmp_time(const void *a, const void *b)
{
	return kernel_time_cmp(*(const struct gpuproj_kernel *const *)a,
			       *(const struct gpuproj_kernel *const *)b);
}

/* An index with its kernel, so the order can be sorted without shared state. */
struct indexed_kernel {
	size_t index;
	const struct gpuproj_kernel *k;
};

static int
cmp_indexed_time(const void *a, const void *b)
{
	const struct indexed_kernel *x = a, *y = b;
	int c = kernel_time_cmp(x->k, y->k);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

size_t *
profile_order_by_time(const struct gpuproj_profile *p)
{
	struct indexed_kernel *keys = malloc((p->n ? p->n : 1) * sizeof(*keys));
	size_t *order = malloc((p->n ? p->n : 1) * sizeof(*order));
	size_t i;

	if (!keys || !order) {
		free(keys);
		free(order);
		return NULL;
	}
	for (i = 0; i < p->n; i++) {
		keys[i].index = i;
		keys[i].k = p->kernels[i];
	}
	qsort(keys, p->n, sizeof(*keys), cmp_indexed_time);
	for (i = 0; i < p->n; i++)
		order[i] = keys[i].index;
	free(keys);
	return order;
}

void
gpuproj_profile_sort_by_time(struct gpuproj_profile *p)
{
	size_t i;

	qsort(p->kernels, p->n, sizeof(*p->kernels), cmp_time);
	/* Re-index in place: same table size, so no allocation can fail. */
	memset(p->slots, 0, p->nslots * sizeof(*p->slots));
	for (i = 0; i < p->n; i++) {
		size_t h = (size_t)kernel_hash(p->kernels[i]) & (p->nslots - 1);

		while (p->slots[h])
			h = (h + 1) & (p->nslots - 1);
		p->slots[h] = i + 1;
	}
}

int
profile_kernel_set_demangled(struct gpuproj_kernel *k, const char *demangled)
{
	/*
	 * The name itself (exports that give demangled names only: ncu, nvprof):
	 * shared, not copied; 100,000 kernels held 6.4 MB of copies.
	 */
	char *n;

	if (!demangled)
		return GPUPROJ_OK;
	if (k->name && strcmp(demangled, k->name) == 0) {
		n = k->name;
	} else {
		n = strdup(demangled);
		if (!n)
			return GPUPROJ_E_NOMEM;
	}
	if (k->demangled != k->name)
		free(k->demangled);
	k->demangled = n;
	return GPUPROJ_OK;
}

/*
 * fnv() over the name with its NUL, then the tag. The start value is one
 * digit short of FNV's offset basis (sig_hash() has the right one); it is
 * kept, because the calibration/evaluation split of `validate --holdout
 * shape`, the built-in intervals and every held-out figure rest on it.
 */
uint64_t
profile_shape_hash(const struct gpuproj_kernel *k)
{
	const char *tag = k->tag ? k->tag : "";
	uint64_t h = fnv(1469598103934665603ULL, k->name, strlen(k->name) + 1);

	return fnv(h, tag, strlen(tag));
}
