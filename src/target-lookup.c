/* SPDX-License-Identifier: MIT */
/*
 * A loaded set of targets (include/gpuproj/target.h): lookup by name and
 * by device name, close names, references, rates, sources and the names
 * of the enumerations; the one "not in targets.yaml" message; the source
 * GPU of a profile. Thread safety: reentrant; a loaded set is immutable.
 */
#include "config.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "target-chips.h"
#include "target-fields.h"
#include "target-private.h"
#include "util.h"

size_t
gpuproj_targets_count(const struct gpuproj_targets *s)
{
	return s ? s->n : 0;
}

const struct gpuproj_target *
gpuproj_targets_get(const struct gpuproj_targets *s, size_t i)
{
	return s && i < s->n ? &s->gpus[i] : NULL;
}

const struct gpuproj_target *
gpuproj_targets_find(const struct gpuproj_targets *s, const char *name)
{
	size_t i;

	if (!s || !name)
		return NULL;
	for (i = 0; i < s->n; i++) {
		if (str_eq_nocase_trim(s->gpus[i].name, name))
			return &s->gpus[i];
	}
	return NULL;
}

const struct gpuproj_target *
gpuproj_targets_match(const struct gpuproj_targets *s, const char *device_name)
{
	size_t i, j;

	if (!s || !device_name)
		return NULL;
	for (i = 0; i < s->n; i++) {
		for (j = 0; j < s->gpus[i].n_match; j++) {
			if (str_eq_nocase_trim(s->gpus[i].match[j], device_name))
				return &s->gpus[i];
		}
	}
	return gpuproj_targets_find(s, device_name);
}

size_t
gpuproj_targets_suggest(const struct gpuproj_targets *s, const char *name, const char **out,
			size_t max)
{
	struct cand {
		const char *name;
		size_t score;
	} *c;
	size_t i, j, n = 0, w = 0;
	size_t cap;

	if (!s || !name || max == 0)
		return 0;
	cap = strlen(name) / 3 + 2;
	c = calloc(s->n, sizeof(*c));
	if (!c)
		return 0;
	for (i = 0; i < s->n; i++) {
		const struct gpuproj_target *t = &s->gpus[i];
		size_t best = str_distance(name, t->name, cap);

		for (j = 0; j < t->n_match; j++) {
			size_t d = str_distance(name, t->match[j], cap);

			if (d < best)
				best = d;
		}
		/* A shared substring (e.g. "H100" in "H100-PCIe-80GB") counts as close. */
		if (best >= cap && strlen(name) >= 3) {
			char lname[128], lt[128];
			size_t k;

			snprintf(lname, sizeof(lname), "%s", name);
			snprintf(lt, sizeof(lt), "%s", t->name);
			for (k = 0; lname[k]; k++)
				lname[k] = (char)tolower((unsigned char)lname[k]);
			for (k = 0; lt[k]; k++)
				lt[k] = (char)tolower((unsigned char)lt[k]);
			if (strstr(lt, lname) || strstr(lname, lt))
				best = cap - 1;
		}
		if (best < cap) {
			c[n].name = t->name;
			c[n].score = best;
			n++;
		}
	}
	/* Stable selection by score, keeping only names nearly as close as the best. */
	{
		size_t best = cap;

		for (i = 0; i < n; i++) {
			if (c[i].score < best)
				best = c[i].score;
		}
		if (best + 3 < cap)
			cap = best + 3;
	}
	for (j = 0; j < cap && w < max; j++) {
		for (i = 0; i < n && w < max; i++) {
			if (c[i].score == j)
				out[w++] = c[i].name;
		}
	}
	free(c);
	return w;
}

const char *
gpuproj_targets_reference_at(const struct gpuproj_targets *s, size_t i, const char **ret_text)
{
	if (!s || i >= s->n_refs)
		return NULL;
	if (ret_text)
		*ret_text = s->ref_texts[i];
	return s->ref_keys[i];
}

double
gpuproj_target_gflops(const struct gpuproj_target *t, enum gpuproj_prec p, enum gpuproj_opkind k,
		      bool *ret_measured)
{
	double m = t->max_gflops[p][k];

	if (ret_measured) {
		size_t n;
		/* Rows [prec][kind]: FMA, ADD/MUL per precision (target-fields.c). */
		const struct target_field *f = target_field_members("max_gflops", &n);
		/* An ADD/MUL value filled in as FMA / 2 rests on the FMA source. */
		bool add_mul = k != GPUPROJ_OP_FMA && t->max_add_mul_given[p];

		*ret_measured = !isnan(m) && gpuproj_target_basis(t, f[2 * p + add_mul].path) ==
						     GPUPROJ_BASIS_MEASURED;
	}
	return isnan(m) ? t->peak_gflops[p][k] : m;
}

double
gpuproj_target_tensor_gflops(const struct gpuproj_target *t, enum gpuproj_tensor_prec p,
			     bool *ret_measured)
{
	double m;

	if (ret_measured)
		*ret_measured = false;
	if (!t || (unsigned)p >= GPUPROJ_TPREC_COUNT)
		return NAN;
	m = t->max_tensor[p];
	if (!isnan(m) && t->peak_tensor[p] != 0) {
		if (ret_measured) {
			size_t n;
			const struct target_field *f = target_field_members("max_tensor", &n);

			*ret_measured = gpuproj_target_basis(t, f[p].path) ==
					GPUPROJ_BASIS_MEASURED;
		}
		return m;
	}
	return t->peak_tensor[p];
}

double
gpuproj_target_burst(const struct gpuproj_target *g, double duration_ns, struct gpuproj_target *out)
{
	double share, f = 1.0, tau;
	int p, k;

	if (!g || !out)
		return 1.0;
	*out = *g;
	out->burst_share = 0;
	tau = g->boost_hold_us * 1e3;
	if (!(tau > 0) || !isfinite(tau) || !(duration_ns > 0) || !isfinite(duration_ns))
		return 1.0;
	share = fmin(1.0, tau / duration_ns);
	out->burst_share = share;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < GPUPROJ_OPKIND_COUNT; k++) {
			double m = g->max_gflops[p][k], pk = g->peak_gflops[p][k];

			if (!(pk > m))  /* also NaN: no sustained rate, the peak is used */
				continue;
			out->max_gflops[p][k] = m + (pk - m) * share;
			if (p == GPUPROJ_FP32 && k == GPUPROJ_OP_FMA)
				f = out->max_gflops[p][k] / m;
		}
	}
	return f;
}

void
gpuproj_target_datasheet(const struct gpuproj_target *g, struct gpuproj_target *out)
{
	int p, k;

	if (!g || !out)
		return;
	*out = *g;
	if (g->peak_dram_gbs > 0)
		out->bw_gbs[GPUPROJ_LEVEL_DRAM] = g->peak_dram_gbs;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < GPUPROJ_OPKIND_COUNT; k++)
			out->max_gflops[p][k] = NAN;
	}
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		out->max_tensor[p] = NAN;
}

void
gpuproj_target_scale_fp(const struct gpuproj_target *g, double factor,
			struct gpuproj_target *out)
{
	int p, k;

	if (!g || !out)
		return;
	*out = *g;
	if (!(factor > 0) || !isfinite(factor))
		return;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < GPUPROJ_OPKIND_COUNT; k++)
			out->max_gflops[p][k] *= factor; /* NaN stays NaN: the peak is used */
	}
	out->fp32_loop_gflops *= factor;
	out->clock_factor = factor;
}

/* The basis of fp32_dense_gflops, for the copy that uses it (derived when also scaled). */
static enum gpuproj_basis
gpuproj_target_basis_of_dense(const struct gpuproj_target *t)
{
	const struct gpuproj_source *s = gpuproj_target_source(t, "fp32_dense_gflops");

	if (t->burst_share > 0 || t->clock_factor > 0)
		return GPUPROJ_BASIS_DERIVED;
	return s ? s->basis : GPUPROJ_BASIS_NONE;
}

enum gpuproj_basis
gpuproj_target_basis(const struct gpuproj_target *t, const char *path)
{
	const struct gpuproj_source *s = gpuproj_target_source(t, path);

	if (!s)
		return GPUPROJ_BASIS_NONE;
	/*
	 * A burst blend of the sustained and peak rates, or rates scaled to
	 * another clock, are derived, whatever the file says.
	 */
	if ((t->burst_share > 0 || t->clock_factor > 0) && strncmp(path, "max_gflops", 10) == 0)
		return GPUPROJ_BASIS_DERIVED;
	/* A copy for an FFMA-dense kernel holds the dense rate there (model.c). */
	if (t->fp32_loop_gflops > 0 && strcmp(path, "max_gflops.fp32_fma") == 0)
		return gpuproj_target_basis_of_dense(t);
	return s->basis;
}

const char *
gpuproj_level_name(enum gpuproj_level level)
{
	switch (level) {
	case GPUPROJ_LEVEL_L1: return "l1";
	case GPUPROJ_LEVEL_L2: return "l2";
	case GPUPROJ_LEVEL_DRAM: return "dram";
	case GPUPROJ_LEVEL_SHARED: return "shared";
	case GPUPROJ_LEVEL_COUNT: break;
	}
	return "?";
}

const char *
gpuproj_prec_name(enum gpuproj_prec p)
{
	switch (p) {
	case GPUPROJ_FP16: return "fp16";
	case GPUPROJ_FP32: return "fp32";
	case GPUPROJ_FP64: return "fp64";
	case GPUPROJ_PREC_COUNT: break;
	}
	return "?";
}

/* ---- lookup by name, with the one "not in targets.yaml" message ---- */

/* GPUPROJ_E_NOTFOUND with the message of gpuproj_targets_lookup() (target.h). */
static int
not_in_targets(const struct gpuproj_targets *targets, const char *name,
	       const struct gpuproj_lookup_words *words, struct gpuproj_error *reterr)
{
	static const struct gpuproj_lookup_words plain = { 0 };
	const char *close[5], *hint, *advice;
	size_t n, i;
	struct strbuf sb;
	int r;

	if (!words)
		words = &plain;
	hint = words->hint ? words->hint : "`gpuproj targets list` shows all";
	n = gpuproj_targets_suggest(targets, name, close, ARRAY_LENGTH(close));
	advice = !n && words->advice ? words->advice : "";
	strbuf_init(&sb);
	strbuf_printf(&sb, "%s%s'%s'%s%s is not in targets.yaml", words->what ? words->what : "",
		      words->what ? " " : "", name, words->where ? " " : "",
		      words->where ? words->where : "");
	for (i = 0; i < n; i++)
		strbuf_printf(&sb, "%s%s", i ? ", " : "; close names: ", close[i]);
	if (*hint || *advice)
		strbuf_printf(&sb, " (%s%s%s)", hint, *hint && *advice ? "; " : "", advice);
	r = error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0, "%s",
		      sb.oom || !sb.buf ? "a GPU is not in targets.yaml" : sb.buf);
	strbuf_free(&sb);
	return r;
}

int
gpuproj_targets_lookup(const struct gpuproj_targets *targets, const char *name,
		       const struct gpuproj_lookup_words *words, const struct gpuproj_target **ret,
		       struct gpuproj_error *reterr)
{
	const struct gpuproj_target *t;

	if (!targets || !name || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	t = gpuproj_targets_match(targets, name);
	if (!t)
		return not_in_targets(targets, name, words, reterr);
	*ret = t;
	return GPUPROJ_OK;
}

/*
 * How far the device's memory may lie from an entry's memory_gib and still
 * be it: cuDeviceTotalMem reports less than the nominal size (the ECC and
 * driver reservations: 79.2 GiB on an "80 GB" H100, 178.4 GiB on a "180 GB"
 * B200, Nsight Compute exports' device__attribute_total_memory), and the
 * entries give the nominal GB; two sizes of one chip differ by 2x.
 */
#define IDENTIFY_MEMORY_TOLERANCE 0.12
/* The same for the boost clock (driver's clock rate against boost_clock_mhz). */
#define IDENTIFY_CLOCK_TOLERANCE 0.03

int
gpuproj_target_differs(const struct gpuproj_target *t, const struct gpuproj_device_info *d,
		       char *buf, size_t size)
{
	size_t len = 0;
	int differs = 0;

	if (buf && size)
		buf[0] = '\0';
	if (!t || !d)
		return 0;
#define ADD(...)                                                                         \
	do {                                                                             \
		if (buf && len < size)                                                   \
			len += (size_t)snprintf(buf + len, size - len, __VA_ARGS__);     \
		differs = 1;                                                             \
	} while (0)
	if (d->cc_major > 0 && t->vendor == GPUPROJ_VENDOR_NVIDIA &&
	    (d->cc_major != t->cc_major || d->cc_minor != t->cc_minor))
		ADD("%sCC %d.%d, not %d.%d", len ? ", " : "", d->cc_major, d->cc_minor,
		    t->cc_major, t->cc_minor);
	if (d->sms > 0 && t->sms > 0 && d->sms != t->sms)
		ADD("%s%d SMs, not %d", len ? ", " : "", d->sms, t->sms);
#undef ADD
	return differs;
}

/* Does the device's memory or clock rule the entry out? (Unknown values do not.) */
static bool
fits_size_clock(const struct gpuproj_target *t, const struct gpuproj_device_info *d)
{
	double mem = d->driver[GPUPROJ_DRV_MEMORY_BYTES] / 1073741824.0;
	double mhz = d->clock_hz / 1e6;

	if (mem > 0 && t->memory_gib > 0 &&
	    fabs(mem - t->memory_gib) > IDENTIFY_MEMORY_TOLERANCE * t->memory_gib)
		return false;
	if (mhz > 0 && t->boost_clock_mhz > 0 &&
	    fabs(mhz - t->boost_clock_mhz) > IDENTIFY_CLOCK_TOLERANCE * t->boost_clock_mhz)
		return false;
	return true;
}

int
gpuproj_targets_identify(const struct gpuproj_targets *targets,
			 const struct gpuproj_device_info *d, const struct gpuproj_target **ret,
			 struct gpuproj_error *reterr)
{
	const struct gpuproj_target *found = NULL;
	struct strbuf names;
	size_t i, n = 0;
	char mem[32] = "";

	if (!targets || !d || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	*ret = NULL;
	if (d->cc_major <= 0 || d->sms <= 0)
		return error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0, "the export names no GPU "
				 "and does not report its compute capability and SM count "
				 "(device__attribute_*) to identify it by");
	strbuf_init(&names);
	for (i = 0; i < gpuproj_targets_count(targets); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(targets, i);

		if (t->vendor != GPUPROJ_VENDOR_NVIDIA || t->provisional ||
		    gpuproj_target_differs(t, d, NULL, 0) || !fits_size_clock(t, d))
			continue;
		strbuf_printf(&names, "%s%s", n ? ", " : "", t->name);
		found = t;
		n++;
	}
	if (d->driver[GPUPROJ_DRV_MEMORY_BYTES] > 0)
		snprintf(mem, sizeof(mem), ", %.1f GiB",
			 d->driver[GPUPROJ_DRV_MEMORY_BYTES] / 1073741824.0);
	if (n == 1) {
		strbuf_free(&names);
		*ret = found;
		return GPUPROJ_OK;
	}
	if (n == 0)
		error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0, "no targets.yaml entry has CC "
			  "%d.%d, %d SMs%s%s", d->cc_major, d->cc_minor, d->sms, mem,
			  d->clock_hz > 0 ? " and that clock" : "");
	else
		error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0, "CC %d.%d, %d SMs%s fit %zu "
			  "targets.yaml entries (%s): the export's attributes do not tell them "
			  "apart", d->cc_major, d->cc_minor, d->sms, mem, n, names.buf);
	strbuf_free(&names);
	return GPUPROJ_E_NOTFOUND;
}

int
gpuproj_resolve_source(const struct gpuproj_profile *p, const struct gpuproj_targets *targets,
		       const char *override, const struct gpuproj_target **ret,
		       struct gpuproj_error *reterr)
{
	static const struct gpuproj_lookup_words source = {
		.what = "source GPU", .advice = "add an entry or pass --source NAME",
	};
	static const struct gpuproj_lookup_words profile_gpu = {
		.what = "the profile's GPU", .advice = "add an entry or pass --source NAME",
	};
	const struct gpuproj_device_info *d;
	const struct gpuproj_target *t;

	if (!p || !targets || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	d = gpuproj_profile_device(p);
	if (override)
		return gpuproj_targets_lookup(targets, override, &source, ret, reterr);
	t = d->target ? gpuproj_targets_find(targets, d->target) : NULL;
	if (!t && d->name) {
		int r = gpuproj_targets_lookup(targets, d->name, &profile_gpu, &t, reterr);

		if (r)
			return r;
	}
	if (t) {
		char diff[96];

		/*
		 * A variant the file does not list (a 152-SM B200): never the
		 * entry of another GPU, silently (gpuproj_resolve_source_or_derive()
		 * derives one from the device's attributes).
		 */
		if (!gpuproj_profile_attr(p, "device.forced") &&
		    gpuproj_target_differs(t, d, diff, sizeof(diff)))
			return error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0,
					 "the profile's GPU %s%s%shas %s: a variant targets.yaml "
					 "does not list (pass --source %s to project from that "
					 "entry anyway)", d->name ? "'" : "",
					 d->name ? d->name : "", d->name ? "' " : "", diff,
					 t->name);
		*ret = t;
		return GPUPROJ_OK;
	}
	/* A targets.yaml name recorded in the profile that the set lacks. */
	if (d->target)
		return not_in_targets(targets, d->target, &profile_gpu, reterr);
	/* No name: the device's attributes (CC, SMs, memory, clock), when they tell one entry. */
	if (d->cc_major > 0 && d->sms > 0) {
		struct gpuproj_error why = { 0 };

		if (gpuproj_targets_identify(targets, d, ret, &why) == GPUPROJ_OK)
			return GPUPROJ_OK;
		return error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0, "the profile does not "
				 "name its GPU and %s; pass --source NAME", why.message);
	}
	return error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0,
			 "the profile does not name its GPU; pass --source NAME");
}

const char *
gpuproj_target_generation(const struct gpuproj_target *t)
{
	const struct target_arch *a = t ? target_arch_of(t->arch) : NULL;

	return a ? a->generation : NULL;
}
