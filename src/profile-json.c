/* SPDX-License-Identifier: MIT */
/*
 * The gpuproj-profile/1 JSON format (README "Profile JSON"), on jansson.
 *
 * Reading validates types and reports the JSON path of the first problem
 * (jansson gives line:column for syntax errors only). Writing goes through
 * file_write_atomic(), so a profile on disk is always complete.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/profile.h>

#include "profile-json.h"
#include "profile-private.h"
#include "report-common.h"
#include "util.h"

/* ---- writing ---- */

/*
 * Per-rank statistics of a merged profile: {"n", "present", KEY: {sum, min,
 * max, mean, stddev, m2}, "imbalance"}; imbalance = max / mean - 1, null
 * when the mean is 0.
 */
static json_t *
ranks_to_json(const struct gpuproj_rank_stats *r, const char *key)
{
	const struct gpuproj_stats *s = &r->time_ns;
	json_t *o = json_object(), *t = json_object();

	json_object_set_new(o, "n", json_integer((json_int_t)s->n));
	json_object_set_new(o, "present", json_integer((json_int_t)r->present));
	json_object_set_new(t, "sum", json_real(s->sum));
	json_object_set_new(t, "min", json_real(s->min));
	json_object_set_new(t, "max", json_real(s->max));
	json_object_set_new(t, "mean", json_real(s->mean));
	json_object_set_new(t, "stddev", json_real(gpuproj_stats_stddev(s)));
	json_object_set_new(t, "m2", json_real(s->m2));
	json_object_set_new(o, key, t);
	json_object_set_new(o, "imbalance", s->mean > 0 ? json_real(s->max / s->mean - 1.0)
							: json_null());
	return o;
}

static json_t *
kernel_to_json(const struct gpuproj_kernel *k)
{
	json_t *o = json_object(), *metrics = json_object(), *dur;
	size_t i;

	json_object_set_new(o, "name", json_string(k->name));
	if (k->demangled)
		json_object_set_new(o, "demangled", json_string(k->demangled));
	if (k->tag && *k->tag)
		json_object_set_new(o, "tag", json_string(k->tag));
	json_object_set_new(o, "grid", json_dim3(k->grid));
	json_object_set_new(o, "block", json_dim3(k->block));
	json_object_set_new(o, "smem_dynamic_bytes", json_integer(k->smem_dynamic));
	json_object_set_new(o, "smem_static_bytes", json_integer(k->smem_static));
	json_object_set_new(o, "regs_per_thread", json_integer(k->regs_per_thread));
	json_object_set_new(o, "device", json_integer(k->device));
	json_object_set_new(o, "launches", json_integer((json_int_t)k->launches));
	json_object_set_new(o, "profiled_launches", json_integer((json_int_t)k->profiled));
	dur = json_object();
	json_object_set_new(dur, "n", json_integer((json_int_t)k->duration_ns.n));
	if (k->duration_ns.n) {
		json_object_set_new(dur, "sum", json_real(k->duration_ns.sum));
		json_object_set_new(dur, "min", json_real(k->duration_ns.min));
		json_object_set_new(dur, "max", json_real(k->duration_ns.max));
		json_object_set_new(dur, "mean", json_real(k->duration_ns.mean));
		json_object_set_new(dur, "stddev", json_real(gpuproj_stats_stddev(&k->duration_ns)));
		json_object_set_new(dur, "m2", json_real(k->duration_ns.m2));
	}
	json_object_set_new(o, "duration_ns", dur);
	for (i = 0; i < GPUPROJ_M_COUNT; i++) {
		double v;

		if (!k->metric_n[i])
			continue;
		v = gpuproj_kernel_metric(k, (enum gpuproj_metric)i);
		if (k->metric_n[i] == (k->profiled ? k->profiled : 1))
			json_object_set_new(metrics, gpuproj_metric_name((enum gpuproj_metric)i),
					    json_real(v));
		else
			json_object_set_new(metrics, gpuproj_metric_name((enum gpuproj_metric)i),
					    json_pack("{s:f,s:I}", "value", v, "launches",
						      (json_int_t)k->metric_n[i]));
	}
	json_object_set_new(o, "metrics", metrics);
	if (k->n_extra) {
		json_t *ex = json_object();

		for (i = 0; i < k->n_extra; i++)
			json_object_set_new(ex, k->extra[i].name,
					    json_pack("{s:f,s:s,s:I}", "value",
						      k->extra[i].sum / (double)k->extra[i].n,
						      "unit", k->extra[i].unit, "launches",
						      (json_int_t)k->extra[i].n));
		json_object_set_new(o, "extra_metrics", ex);
	}
	if (k->n_refs) {
		json_t *refs = json_object();

		for (i = 0; i < k->n_refs; i++)
			json_object_set_new(refs, k->refs[i].gpu,
					    json_pack("{s:f,s:I}", "mean", k->refs[i].mean_ns,
						      "launches", (json_int_t)k->refs[i].launches));
		json_object_set_new(o, "reference_ns", refs);
	}
	if (k->ranks.time_ns.n)
		json_object_set_new(o, "ranks", ranks_to_json(&k->ranks, "total_ns"));
	return o;
}

json_t *
profile_to_json(const struct gpuproj_profile *p)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const struct gpuproj_process_info *pr = gpuproj_profile_process(p);
	const struct gpuproj_run_info *run = gpuproj_profile_run_info(p);
	json_t *root = json_object(), *attrs = json_object(), *kernels = json_array();
	json_t *dev, *proc, *jrun;
	const char *key, *value;
	size_t i;

	json_object_set_new(root, "schema", json_string(GPUPROJ_PROFILE_SCHEMA));
	/* The version of the tool that measured the data ("tool_version"), else ours. */
	value = gpuproj_profile_attr(p, "tool_version");
	json_object_set_new(root, "tool", json_pack("{s:s,s:s}", "name", "gpuproj", "version",
						    value ? value : GPUPROJ_VERSION));
	for (i = 0; (key = gpuproj_profile_attr_at(p, i, &value)) != NULL; i++) {
		if (strcmp(key, "tool_version") != 0)
			json_object_set_new(attrs, key, json_string(value));
	}
	json_object_set_new(root, "attributes", attrs);

	dev = json_object();
	json_object_set_new(dev, "name", json_str_or_null(d->name));
	json_object_set_new(dev, "target", json_str_or_null(d->target));
	json_object_set_new(dev, "chip", json_str_or_null(d->chip));
	if (d->cc_major > 0) {
		char cc[16];

		snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
		json_object_set_new(dev, "cc", json_string(cc));
	} else {
		json_object_set_new(dev, "cc", json_null());
	}
	json_object_set_new(dev, "sms", d->sms > 0 ? json_integer(d->sms) : json_null());
	json_object_set_new(dev, "clock_hz", json_num(d->clock_hz));
	json_object_set_new(root, "device", dev);

	proc = json_object();
	json_object_set_new(proc, "application", json_str_or_null(pr->application));
	json_object_set_new(proc, "host", json_str_or_null(pr->host));
	json_object_set_new(proc, "pid", pr->pid >= 0 ? json_integer(pr->pid) : json_null());
	json_object_set_new(proc, "rank", pr->rank >= 0 ? json_integer(pr->rank) : json_null());
	if (pr->argv) {
		json_t *argv = json_array();

		for (i = 0; pr->argv[i]; i++)
			json_array_append_new(argv, json_string(pr->argv[i]));
		json_object_set_new(proc, "argv", argv);
	} else {
		json_object_set_new(proc, "argv", json_null());
	}
	json_object_set_new(root, "process", proc);

	jrun = json_object();
	json_object_set_new(jrun, "wall_ns", json_num(run->wall_ns));
	json_object_set_new(jrun, "gpu_ns", json_num(run->gpu_ns));
	json_object_set_new(jrun, "kernel_ns", json_real(gpuproj_profile_kernel_time_ns(p)));
	json_object_set_new(jrun, "dropped_records", json_integer((json_int_t)run->dropped_records));
	if (run->ranks.time_ns.n)
		json_object_set_new(jrun, "ranks", ranks_to_json(&run->ranks, "kernel_ns"));
	json_object_set_new(root, "run", jrun);

	for (i = 0; i < gpuproj_profile_count(p); i++)
		json_array_append_new(kernels, kernel_to_json(gpuproj_profile_at(p, i)));
	json_object_set_new(root, "kernels", kernels);
	return root;
}

int
gpuproj_profile_save(const struct gpuproj_profile *p, const char *path,
		     struct gpuproj_error *reterr)
{
	json_t *root;
	int r;

	if (!p || !path)
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	root = profile_to_json(p);
	if (!root)
		return error_set(reterr, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
	r = json_save_atomic(root, path, reterr);
	json_decref(root);
	return r;
}

/* ---- reading ---- */

struct reader {
	const char *file;
	struct gpuproj_error *err;
};

static int
bad(struct reader *rd, const char *path, const char *fmt, ...) GPUPROJ_PRINTF(3, 4);

static int
bad(struct reader *rd, const char *path, const char *fmt, ...)
{
	char msg[GPUPROJ_ERROR_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error_set(rd->err, GPUPROJ_E_SCHEMA, rd->file, 0, 0, "%s: %s", path, msg);
}

/* Optional string member: absent/null → *out unchanged (NULL). */
static int
opt_string(struct reader *rd, json_t *obj, const char *key, const char *path, const char **out)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return GPUPROJ_OK;
	if (!json_is_string(v))
		return bad(rd, path, "'%s' must be a string", key);
	*out = json_string_value(v);
	return GPUPROJ_OK;
}

/* Optional number member: absent/null → NaN. */
static int
opt_number(struct reader *rd, json_t *obj, const char *key, const char *path, double *out)
{
	json_t *v = json_object_get(obj, key);

	*out = NAN;
	if (!v || json_is_null(v))
		return GPUPROJ_OK;
	if (!json_is_number(v))
		return bad(rd, path, "'%s' must be a number", key);
	*out = json_number_value(v);
	return GPUPROJ_OK;
}

/*
 * Optional number member converted to an integer type by the caller: absent
 * or null → NaN; otherwise it must lie in [lo, hi), the range the
 * conversion is defined for.
 */
static int
opt_number_range(struct reader *rd, json_t *obj, const char *key, const char *path, double lo,
		 double hi, double *out)
{
	int r = opt_number(rd, obj, key, path, out);

	if (r == GPUPROJ_OK && !isnan(*out) && !(*out >= lo && *out < hi))
		return bad(rd, path, "'%s' is out of range: %.17g", key, *out);
	return r;
}

static int
req_uint(struct reader *rd, json_t *obj, const char *key, const char *path, bool required,
	 uint64_t max, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);

	if (!v) {
		if (required)
			return bad(rd, path, "missing required field '%s'", key);
		*out = 0;
		return GPUPROJ_OK;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max)
		return bad(rd, path, "'%s' must be an integer between 0 and %" PRIu64, key, max);
	*out = (uint64_t)json_integer_value(v);
	return GPUPROJ_OK;
}

static int
read_dim3(struct reader *rd, json_t *obj, const char *key, const char *path,
	  struct gpuproj_dim3 *out)
{
	json_t *v = json_object_get(obj, key);
	uint32_t d[3];
	size_t i;

	if (!v)
		return bad(rd, path, "missing required field '%s'", key);
	if (!json_is_array(v) || json_array_size(v) != 3)
		return bad(rd, path, "'%s' must be an array of 3 integers [x, y, z]", key);
	for (i = 0; i < 3; i++) {
		json_t *e = json_array_get(v, i);

		if (!json_is_integer(e) || json_integer_value(e) < 1 ||
		    json_integer_value(e) > UINT32_MAX)
			return bad(rd, path, "'%s'[%zu] must be a positive integer", key, i);
		d[i] = (uint32_t)json_integer_value(e);
	}
	out->x = d[0];
	out->y = d[1];
	out->z = d[2];
	return GPUPROJ_OK;
}

/*
 * Optional "ranks" block of a merged profile (see ranks_to_json()); absent
 * or null leaves *out zeroed.
 */
static int
read_ranks(struct reader *rd, json_t *obj, const char *key, const char *path,
	   struct gpuproj_rank_stats *out)
{
	json_t *v = json_object_get(obj, "ranks"), *t;
	char rpath[96], tpath[112];
	double sum, mn, mx, mean, m2;
	uint64_t n, present;
	int r;

	memset(out, 0, sizeof(*out));
	if (!v || json_is_null(v))
		return GPUPROJ_OK;
	snprintf(rpath, sizeof(rpath), "%s.ranks", path);
	if (!json_is_object(v))
		return bad(rd, path, "'ranks' must be an object");
	if ((r = req_uint(rd, v, "n", rpath, true, UINT64_MAX >> 1, &n)))
		return r;
	if (n == 0)
		return GPUPROJ_OK;
	if (!json_object_get(v, "present"))
		present = n;
	else if ((r = req_uint(rd, v, "present", rpath, false, n, &present)))
		return r;
	t = json_object_get(v, key);
	snprintf(tpath, sizeof(tpath), "%s.%s", rpath, key);
	if (!json_is_object(t))
		return bad(rd, rpath, "missing required object '%s'", key);
	if ((r = opt_number(rd, t, "sum", tpath, &sum)) ||
	    (r = opt_number(rd, t, "min", tpath, &mn)) ||
	    (r = opt_number(rd, t, "max", tpath, &mx)) ||
	    (r = opt_number(rd, t, "mean", tpath, &mean)) ||
	    (r = opt_number(rd, t, "m2", tpath, &m2)))
		return r;
	if (isnan(mean) && !isnan(sum))
		mean = sum / (double)n;
	if (isnan(mean) || mean < 0)
		return bad(rd, tpath, "needs 'mean' (or 'sum') as a non-negative number");
	out->time_ns.n = n;
	out->time_ns.mean = mean;
	out->time_ns.sum = isnan(sum) ? mean * (double)n : sum;
	out->time_ns.min = isnan(mn) ? mean : mn;
	out->time_ns.max = isnan(mx) ? mean : mx;
	out->time_ns.m2 = isnan(m2) ? 0 : m2;
	out->present = present;
	if (out->time_ns.min > out->time_ns.max)
		return bad(rd, tpath, "'min' is larger than 'max'");
	return GPUPROJ_OK;
}

static int
read_kernel(struct reader *rd, struct gpuproj_profile *p, json_t *jk, size_t idx)
{
	char path[64];
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *k;
	const char *demangled = NULL;
	json_t *v, *dur, *metrics;
	uint64_t u;
	int r;

	snprintf(path, sizeof(path), "kernels[%zu]", idx);
	if (!json_is_object(jk))
		return bad(rd, path, "must be an object");
	v = json_object_get(jk, "name");
	if (!json_is_string(v) || !*json_string_value(v))
		return bad(rd, path, "'name' must be a non-empty string");
	sig.name = json_string_value(v);
	if ((r = opt_string(rd, jk, "tag", path, &sig.tag)) ||
	    (r = opt_string(rd, jk, "demangled", path, &demangled)) ||
	    (r = read_dim3(rd, jk, "grid", path, &sig.grid)) ||
	    (r = read_dim3(rd, jk, "block", path, &sig.block)))
		return r;
	if ((r = req_uint(rd, jk, "smem_dynamic_bytes", path, false, UINT32_MAX, &u)))
		return r;
	sig.smem_dynamic = (uint32_t)u;
	if ((r = req_uint(rd, jk, "device", path, false, INT32_MAX, &u)))
		return r;
	sig.device = (int)u;
	if (gpuproj_profile_find(p, &sig))
		return bad(rd, path, "duplicate kernel signature '%s' (grid, block, shared memory, "
			   "device and tag equal to an earlier entry)", sig.name);
	if (gpuproj_profile_kernel(p, &sig, &k))
		return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0, "out of memory");
	if (demangled && profile_kernel_set_demangled(k, demangled))
		return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0, "out of memory");
	if ((r = req_uint(rd, jk, "smem_static_bytes", path, false, UINT32_MAX, &u)))
		return r;
	k->smem_static = (uint32_t)u;
	if ((r = req_uint(rd, jk, "regs_per_thread", path, false, 65536, &u)))
		return r;
	k->regs_per_thread = (uint32_t)u;
	if ((r = req_uint(rd, jk, "launches", path, true, UINT64_MAX >> 1, &k->launches)) ||
	    (r = req_uint(rd, jk, "profiled_launches", path, false, UINT64_MAX >> 1, &k->profiled)))
		return r;

	dur = json_object_get(jk, "duration_ns");
	if (dur) {
		char dpath[80];
		double s, mn, mx, mean, m2, sd;

		snprintf(dpath, sizeof(dpath), "%s.duration_ns", path);
		if (!json_is_object(dur))
			return bad(rd, path, "'duration_ns' must be an object");
		if ((r = req_uint(rd, dur, "n", dpath, true, UINT64_MAX >> 1, &u)))
			return r;
		k->duration_ns.n = u;
		if (u > 0) {
			if ((r = opt_number(rd, dur, "sum", dpath, &s)) ||
			    (r = opt_number(rd, dur, "min", dpath, &mn)) ||
			    (r = opt_number(rd, dur, "max", dpath, &mx)) ||
			    (r = opt_number(rd, dur, "mean", dpath, &mean)) ||
			    (r = opt_number(rd, dur, "m2", dpath, &m2)) ||
			    (r = opt_number(rd, dur, "stddev", dpath, &sd)))
				return r;
			if (isnan(mean) && !isnan(s))
				mean = s / (double)u;
			if (isnan(mean) || mean < 0)
				return bad(rd, dpath, "needs 'mean' (or 'sum') as a non-negative number "
					   "when n > 0");
			k->duration_ns.mean = mean;
			k->duration_ns.sum = isnan(s) ? mean * (double)u : s;
			k->duration_ns.min = isnan(mn) ? mean : mn;
			k->duration_ns.max = isnan(mx) ? mean : mx;
			if (isnan(m2))
				m2 = isnan(sd) ? 0 : sd * sd * (double)(u > 1 ? u - 1 : 0);
			/* A negative spread would make the stddev NaN, which JSON cannot carry. */
			if (m2 < 0 || (!isnan(sd) && sd < 0))
				return bad(rd, dpath, "'m2' and 'stddev' must not be negative");
			k->duration_ns.m2 = m2;
			if (k->duration_ns.min > k->duration_ns.max)
				return bad(rd, dpath, "'min' is larger than 'max'");
		}
	}
	if (k->launches < k->duration_ns.n)
		return bad(rd, path, "'launches' (%" PRIu64 ") is smaller than duration_ns.n (%"
			   PRIu64 ")", k->launches, k->duration_ns.n);

	metrics = json_object_get(jk, "metrics");
	if (metrics) {
		const char *name;
		json_t *mv;

		if (!json_is_object(metrics))
			return bad(rd, path, "'metrics' must be an object");
		json_object_foreach(metrics, name, mv) {
			enum gpuproj_metric m;
			double value;
			uint64_t n = k->profiled ? k->profiled : 1;
			char mpath[128];

			if (gpuproj_metric_from_name(name, &m))
				return bad(rd, path, "unknown metric '%s' in 'metrics' (tool-specific "
					   "metrics belong in 'extra_metrics')", name);
			snprintf(mpath, sizeof(mpath), "%s.metrics.%s", path, name);
			if (json_is_object(mv)) {
				json_t *jv = json_object_get(mv, "value");

				if (!json_is_number(jv))
					return bad(rd, path, "metrics.%s.value must be a number", name);
				value = json_number_value(jv);
				if ((r = req_uint(rd, mv, "launches", mpath, true, UINT32_MAX, &n)))
					return r;
			} else if (json_is_number(mv)) {
				value = json_number_value(mv);
			} else if (json_is_null(mv)) {
				continue;
			} else {
				return bad(rd, path, "metrics.%s must be a number", name);
			}
			if (!isfinite(value))
				return bad(rd, path, "metrics.%s is not finite", name);
			if (n == 0)
				continue;
			/*
			 * metric_n is 32 bits; more profiled launches than that keep the
			 * mean (sum and count scale together) instead of wrapping to 0,
			 * which would drop the metric.
			 */
			if (n > UINT32_MAX)
				n = UINT32_MAX;
			k->metric_sum[m] = value * (double)n;
			k->metric_n[m] = (uint32_t)n;
		}
	}

	v = json_object_get(jk, "extra_metrics");
	if (v) {
		const char *name;
		json_t *mv;

		if (!json_is_object(v))
			return bad(rd, path, "'extra_metrics' must be an object");
		json_object_foreach(v, name, mv) {
			json_t *jv = json_object_get(mv, "value");
			json_t *ju = json_object_get(mv, "unit");
			uint64_t n;
			char mpath[192];

			if (!json_is_object(mv) || !json_is_number(jv))
				return bad(rd, path, "extra_metrics.%s must be {\"value\": number, "
					   "\"unit\": string, \"launches\": integer}", name);
			snprintf(mpath, sizeof(mpath), "%s.extra_metrics.%s", path, name);
			if ((r = req_uint(rd, mv, "launches", mpath, false, UINT32_MAX, &n)))
				return r;
			if (n == 0)
				n = 1;
			if (gpuproj_kernel_add_extra(k, name, json_is_string(ju) ?
						     json_string_value(ju) : "",
						     json_number_value(jv) * (double)n))
				return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0,
						 "out of memory");
			k->extra[k->n_extra - 1].n = n;
		}
	}

	v = json_object_get(jk, "reference_ns");
	if (v) {
		const char *gpu;
		json_t *rv;

		if (!json_is_object(v))
			return bad(rd, path, "'reference_ns' must be an object");
		json_object_foreach(v, gpu, rv) {
			json_t *jm = json_object_get(rv, "mean");
			uint64_t n;
			char rpath[128];

			if (!json_is_object(rv) || !json_is_number(jm) || json_number_value(jm) <= 0)
				return bad(rd, path, "reference_ns.%s must be {\"mean\": positive "
					   "number, \"launches\": integer}", gpu);
			snprintf(rpath, sizeof(rpath), "%s.reference_ns.%s", path, gpu);
			if ((r = req_uint(rd, rv, "launches", rpath, false, UINT64_MAX >> 1, &n)))
				return r;
			if (gpuproj_kernel_set_reference(k, gpu, json_number_value(jm), n))
				return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0,
						 "out of memory");
		}
	}
	return read_ranks(rd, jk, "total_ns", path, &k->ranks);
}

static int
read_root(struct reader *rd, json_t *root, struct gpuproj_profile *p)
{
	json_t *v, *dev, *proc, *run, *kernels, *attrs;
	size_t i;
	int r;

	if (!json_is_object(root))
		return bad(rd, "(top level)", "must be an object");
	v = json_object_get(root, "schema");
	if (!json_is_string(v))
		return bad(rd, "schema", "missing: expected \"%s\"", GPUPROJ_PROFILE_SCHEMA);
	if (strcmp(json_string_value(v), GPUPROJ_PROFILE_SCHEMA) != 0)
		return bad(rd, "schema", "unknown schema version '%s': this gpuproj reads '%s'",
			   json_string_value(v), GPUPROJ_PROFILE_SCHEMA);

	attrs = json_object_get(root, "attributes");
	if (attrs) {
		const char *key;
		json_t *av;

		if (!json_is_object(attrs))
			return bad(rd, "attributes", "must be an object of strings");
		json_object_foreach(attrs, key, av) {
			if (!json_is_string(av))
				return bad(rd, "attributes", "'%s' must be a string", key);
			if (gpuproj_profile_set_attr(p, key, json_string_value(av)))
				return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0,
						 "out of memory");
		}
	}
	v = json_object_get(root, "tool");
	if (json_is_object(v) && json_is_string(json_object_get(v, "version")) &&
	    !gpuproj_profile_attr(p, "tool_version") &&
	    gpuproj_profile_set_attr(p, "tool_version",
				     json_string_value(json_object_get(v, "version"))))
		return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0, "out of memory");

	dev = json_object_get(root, "device");
	if (dev) {
		const char *name, *target, *chip, *cc;
		double clock, sms;
		int major = 0, minor = 0;

		if (!json_is_object(dev))
			return bad(rd, "device", "must be an object");
		if ((r = opt_string(rd, dev, "name", "device", &name)) ||
		    (r = opt_string(rd, dev, "target", "device", &target)) ||
		    (r = opt_string(rd, dev, "chip", "device", &chip)) ||
		    (r = opt_string(rd, dev, "cc", "device", &cc)) ||
		    (r = opt_number(rd, dev, "clock_hz", "device", &clock)) ||
		    (r = opt_number_range(rd, dev, "sms", "device", INT_MIN, INT_MAX + 1.0, &sms)))
			return r;
		if (cc && sscanf(cc, "%d.%d", &major, &minor) != 2)
			return bad(rd, "device", "'cc' must look like \"9.0\", got '%s'", cc);
		if (gpuproj_profile_set_device(p, name, target, chip, major, minor,
					       isnan(sms) ? 0 : (int)sms, clock))
			return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0, "out of memory");
	}

	proc = json_object_get(root, "process");
	if (proc) {
		const char *app, *host;
		double pid, rank;
		json_t *argv = json_object_get(proc, "argv");
		const char **av = NULL;

		if (!json_is_object(proc))
			return bad(rd, "process", "must be an object");
		if ((r = opt_string(rd, proc, "application", "process", &app)) ||
		    (r = opt_string(rd, proc, "host", "process", &host)) ||
		    (r = opt_number_range(rd, proc, "pid", "process", -0x1p63, 0x1p63, &pid)) ||
		    (r = opt_number_range(rd, proc, "rank", "process", -0x1p63, 0x1p63, &rank)))
			return r;
		if (argv && !json_is_null(argv)) {
			if (!json_is_array(argv))
				return bad(rd, "process", "'argv' must be an array of strings");
			av = calloc(json_array_size(argv) + 1, sizeof(*av));
			if (!av)
				return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0,
						 "out of memory");
			for (i = 0; i < json_array_size(argv); i++) {
				if (!json_is_string(json_array_get(argv, i))) {
					free(av);
					return bad(rd, "process", "'argv' must be an array of strings");
				}
				av[i] = json_string_value(json_array_get(argv, i));
			}
		}
		r = gpuproj_profile_set_process(p, app, host, isnan(pid) ? -1 : (int64_t)pid,
						isnan(rank) ? -1 : (int64_t)rank, av);
		free(av);
		if (r)
			return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0, "out of memory");
	}

	run = json_object_get(root, "run");
	if (run) {
		struct gpuproj_run_info *ri = gpuproj_profile_run_info_mut(p);
		uint64_t dropped;

		if (!json_is_object(run))
			return bad(rd, "run", "must be an object");
		if ((r = opt_number(rd, run, "wall_ns", "run", &ri->wall_ns)) ||
		    (r = opt_number(rd, run, "gpu_ns", "run", &ri->gpu_ns)) ||
		    (r = req_uint(rd, run, "dropped_records", "run", false, UINT64_MAX >> 1,
				  &dropped)) ||
		    (r = read_ranks(rd, run, "kernel_ns", "run", &ri->ranks)))
			return r;
		ri->dropped_records = dropped;
	}

	kernels = json_object_get(root, "kernels");
	if (!kernels)
		return bad(rd, "kernels", "missing required field");
	if (!json_is_array(kernels))
		return bad(rd, "kernels", "must be an array");
	for (i = 0; i < json_array_size(kernels); i++) {
		r = read_kernel(rd, p, json_array_get(kernels, i), i);
		if (r)
			return r;
	}
	return GPUPROJ_OK;
}

int
gpuproj_profile_load_buffer(const char *text, size_t len, const char *name,
			    struct gpuproj_profile **ret, struct gpuproj_error *reterr)
{
	struct reader rd = { .file = name ? name : "<buffer>", .err = reterr };
	struct gpuproj_profile *p;
	json_error_t jerr;
	json_t *root;
	int r;

	if (!text || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, rd.file, 0, 0, "invalid argument");
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return error_set(reterr, GPUPROJ_E_PARSE, rd.file, jerr.line > 0 ? jerr.line : 0,
				 jerr.column > 0 ? jerr.column : 0, "JSON syntax error: %s",
				 jerr.text);
	p = gpuproj_profile_new();
	if (!p) {
		json_decref(root);
		return error_set(reterr, GPUPROJ_E_NOMEM, rd.file, 0, 0, "out of memory");
	}
	r = read_root(&rd, root, p);
	json_decref(root);
	if (r) {
		gpuproj_profile_free(p);
		return r;
	}
	*ret = p;
	return GPUPROJ_OK;
}

int
gpuproj_profile_load(const char *path, struct gpuproj_profile **ret, struct gpuproj_error *reterr)
{
	char *text;
	size_t len;
	int r;

	if (!path || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	r = file_read_all(path, &text, &len, reterr);
	if (r)
		return r;
	r = gpuproj_profile_load_buffer(text, len, strcmp(path, "-") == 0 ? "<stdin>" : path, ret,
					reterr);
	free(text);
	return r;
}

extern const char gpuproj_builtin_profile[];
extern const size_t gpuproj_builtin_profile_len;

int
gpuproj_profile_load_builtin(struct gpuproj_profile **ret, struct gpuproj_error *reterr)
{
	return gpuproj_profile_load_buffer(gpuproj_builtin_profile, gpuproj_builtin_profile_len,
					   "default-profile.json (built-in)", ret, reterr);
}
