/* SPDX-License-Identifier: MIT */
/*
 * The gpuproj-profile/1 JSON format (docs/formats/profile.md), on jansson.
 *
 * Reading validates types and reports the JSON path of the first problem,
 * with its line and column (jansson gives them for syntax errors only;
 * json_locate() finds the value again in the text). Writing goes through
 * file_write_atomic(), so a profile on disk is always complete.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/profile.h>
#include <gpuproj/timeline.h>

#include "profile-json.h"
#include "profile-private.h"
#include "util-escape.h"
#include "util.h"

/* ---- writing ---- */

/*
 * Every json_object_set_new() / json_array_append_new() result is checked:
 * `bad` collects failures (ENOMEM; jansson also refuses strings that are
 * not UTF-8, which json_set_text() and json_set_named() never hand it), and
 * a builder that saw one returns NULL instead of a profile with a field
 * silently missing.
 */

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
	int bad = 0;

	bad |= json_object_set_new(t, "sum", json_num(s->sum));
	bad |= json_object_set_new(t, "min", json_num(s->min));
	bad |= json_object_set_new(t, "max", json_num(s->max));
	bad |= json_object_set_new(t, "mean", json_num(s->mean));
	bad |= json_object_set_new(t, "stddev", json_num(gpuproj_stats_stddev(s)));
	bad |= json_object_set_new(t, "m2", json_num(s->m2));
	bad |= json_object_set_new(o, "n", json_integer((json_int_t)s->n));
	bad |= json_object_set_new(o, "present", json_integer((json_int_t)r->present));
	bad |= json_object_set_new(o, key, t);
	bad |= json_object_set_new(o, "imbalance", s->mean > 0 ? json_num(s->max / s->mean - 1.0)
							       : json_null());
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
kernel_to_json(const struct gpuproj_kernel *k)
{
	json_t *o = json_object(), *metrics = json_object(), *dur = json_object();
	size_t i;
	int bad = 0;

	bad |= json_set_text(o, "name", k->name);
	if (k->demangled)
		bad |= json_set_text(o, "demangled", k->demangled);
	if (k->tag && *k->tag)
		bad |= json_set_text(o, "tag", k->tag);
	bad |= json_object_set_new(o, "grid", json_dim3(k->grid));
	bad |= json_object_set_new(o, "block", json_dim3(k->block));
	bad |= json_object_set_new(o, "smem_dynamic_bytes", json_integer(k->smem_dynamic));
	bad |= json_object_set_new(o, "smem_static_bytes", json_integer(k->smem_static));
	bad |= json_object_set_new(o, "regs_per_thread", json_integer(k->regs_per_thread));
	bad |= json_object_set_new(o, "device", json_integer(k->device));
	bad |= json_object_set_new(o, "launches", json_integer((json_int_t)k->launches));
	bad |= json_object_set_new(o, "profiled_launches", json_integer((json_int_t)k->profiled));
	if (k->launch_mode_known)
		bad |= json_object_set_new(o, "graph_launches",
					   json_integer((json_int_t)k->graph_launches));
	bad |= json_object_set_new(dur, "n", json_integer((json_int_t)k->duration_ns.n));
	if (k->duration_ns.n) {
		bad |= json_object_set_new(dur, "sum", json_real(k->duration_ns.sum));
		bad |= json_object_set_new(dur, "min", json_real(k->duration_ns.min));
		bad |= json_object_set_new(dur, "max", json_real(k->duration_ns.max));
		bad |= json_object_set_new(dur, "mean", json_real(k->duration_ns.mean));
		bad |= json_object_set_new(dur, "stddev",
					   json_real(gpuproj_stats_stddev(&k->duration_ns)));
		bad |= json_object_set_new(dur, "m2", json_real(k->duration_ns.m2));
	}
	bad |= json_object_set_new(o, "duration_ns", dur);
	for (i = 0; i < GPUPROJ_M_COUNT; i++) {
		const char *name = gpuproj_metric_name((enum gpuproj_metric)i);
		double v;

		if (!k->metric_n[i])
			continue;
		v = gpuproj_kernel_metric(k, (enum gpuproj_metric)i);
		if (k->metric_n[i] == (k->profiled ? k->profiled : 1))
			bad |= json_object_set_new(metrics, name, json_real(v));
		else
			bad |= json_object_set_new(metrics, name,
						   json_pack("{s:f,s:I}", "value", v, "launches",
							     (json_int_t)k->metric_n[i]));
	}
	bad |= json_object_set_new(o, "metrics", metrics);
	if (k->n_extra) {
		json_t *ex = json_object();

		for (i = 0; i < k->n_extra; i++) {
			json_t *e = json_pack("{s:f,s:I}", "value",
					      k->extra[i].sum / (double)k->extra[i].n, "launches",
					      (json_int_t)k->extra[i].n);

			if (!e || json_set_text(e, "unit", k->extra[i].unit)) {
				json_decref(e);
				bad = -1;
				continue;
			}
			bad |= json_set_named(ex, k->extra[i].name, e, "name_hex");
		}
		bad |= json_object_set_new(o, "extra_metrics", ex);
	}
	if (k->n_refs) {
		json_t *refs = json_object();

		for (i = 0; i < k->n_refs; i++)
			bad |= json_set_named(refs, k->refs[i].gpu,
					      json_pack("{s:f,s:I}", "mean", k->refs[i].mean_ns,
							"launches", (json_int_t)k->refs[i].launches),
					      "gpu_hex");
		bad |= json_object_set_new(o, "reference_ns", refs);
	}
	if (k->ranks.time_ns.n)
		bad |= json_object_set_new(o, "ranks", ranks_to_json(&k->ranks, "total_ns"));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *profile_to_json_ex(const struct gpuproj_profile *p, bool kernels,
				  struct gpuproj_error *reterr);

json_t *
profile_to_json(const struct gpuproj_profile *p, struct gpuproj_error *reterr)
{
	return profile_to_json_ex(p, true, reterr);
}

json_t *
profile_to_json_head(const struct gpuproj_profile *p, struct gpuproj_error *reterr)
{
	return profile_to_json_ex(p, false, reterr);
}

json_t *
profile_kernel_json(const struct gpuproj_profile *p, size_t i)
{
	return kernel_to_json(gpuproj_profile_at(p, i));
}

/* "device": the GPU, its driver attributes, NVML's SM clock; *ret_bad |= a failure. */
static json_t *
device_to_json(const struct gpuproj_device_info *d, int *ret_bad)
{
	json_t *dev = json_object();
	size_t i;
	int bad = 0;

	bad |= json_set_text(dev, "name", d->name);
	bad |= json_set_text(dev, "target", d->target);
	bad |= json_set_text(dev, "chip", d->chip);
	if (d->cc_major > 0) {
		char cc[16];

		snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
		bad |= json_object_set_new(dev, "cc", json_string(cc));
	} else {
		bad |= json_object_set_new(dev, "cc", json_null());
	}
	bad |= json_object_set_new(dev, "sms", d->sms > 0 ? json_integer(d->sms) : json_null());
	bad |= json_object_set_new(dev, "clock_hz", json_num(d->clock_hz));
	{
		json_t *drv = json_object();

		for (i = 0; i < GPUPROJ_DRV_COUNT; i++) {
			if (isnan(d->driver[i]))
				continue;
			/* Integers as integers (all but the power limit; the caller validated). */
			bad |= json_object_set_new(drv, gpuproj_driver_attr_name(i),
						   d->driver[i] == floor(d->driver[i])
							   ? json_integer((json_int_t)d->driver[i])
							   : json_num(d->driver[i]));
		}
		if (json_object_size(drv))
			bad |= json_object_set_new(dev, "driver", drv);
		else
			json_decref(drv);
	}
	if (d->sm_clock.samples > 0) {
		const struct gpuproj_sm_clock *c = &d->sm_clock;
		json_t *clk = json_object(), *why = json_array();
		unsigned long long bit;

		bad |= json_object_set_new(clk, "from", json_string("nvml"));
		bad |= json_object_set_new(clk, "samples", json_integer((json_int_t)c->samples));
		bad |= json_object_set_new(clk, "mean_mhz", json_num(c->mean_mhz));
		bad |= json_object_set_new(clk, "min_mhz", json_num(c->min_mhz));
		bad |= json_object_set_new(clk, "max_mhz", json_num(c->max_mhz));
		for (bit = 1; bit && bit <= c->reasons; bit <<= 1) {
			if (c->reasons & bit)
				bad |= json_array_append_new(why, json_string(
								  gpuproj_clock_reason_name(bit)));
		}
		bad |= json_object_set_new(clk, "event_reasons", why);
		bad |= json_object_set_new(clk, "capped_samples",
					   json_integer((json_int_t)c->capped_samples));
		bad |= json_object_set_new(dev, "sm_clock", clk);
	}
	*ret_bad |= bad;
	return dev;
}

static json_t *
profile_to_json_ex(const struct gpuproj_profile *p, bool with_kernels,
		   struct gpuproj_error *reterr)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const struct gpuproj_process_info *pr = gpuproj_profile_process(p);
	const struct gpuproj_run_info *run = gpuproj_profile_run_info(p);
	json_t *root, *attrs, *attrs_hex, *kernels, *tool, *dev, *proc, *jrun;
	const char *key, *value;
	size_t i;
	int bad = 0;

	/* A value out of range would be written as a file no gpuproj reads back. */
	if (gpuproj_profile_validate(p, NULL, reterr))
		return NULL;
	root = json_object();
	attrs = json_object();
	attrs_hex = json_object();
	kernels = json_array();
	tool = json_object();
	bad |= json_object_set_new(root, "schema", json_string(GPUPROJ_PROFILE_SCHEMA));
	/* The version of the tool that measured the data ("tool_version"), else ours. */
	value = gpuproj_profile_attr(p, "tool_version");
	bad |= json_object_set_new(tool, "name", json_string("gpuproj"));
	bad |= json_set_text(tool, "version", value ? value : GPUPROJ_VERSION);
	bad |= json_object_set_new(root, "tool", tool);
	for (i = 0; (key = gpuproj_profile_attr_at(p, i, &value)) != NULL; i++) {
		if (strcmp(key, "tool_version") == 0)
			continue;
		bad |= json_object_set_new(attrs, key, json_string_lossy(value));
		if (!utf8_valid(value)) {
			char *hex = hex_encode(value);

			bad |= json_object_set_new(attrs_hex, key, hex ? json_string(hex) : NULL);
			free(hex);
		}
	}
	bad |= json_object_set_new(root, "attributes", attrs);
	if (json_object_size(attrs_hex))
		bad |= json_object_set_new(root, "attributes_hex", attrs_hex);
	else
		json_decref(attrs_hex);

	dev = device_to_json(d, &bad);
	bad |= json_object_set_new(root, "device", dev);

	proc = json_object();
	bad |= json_set_text(proc, "application", pr->application);
	bad |= json_set_text(proc, "host", pr->host);
	bad |= json_object_set_new(proc, "pid", pr->pid >= 0 ? json_integer(pr->pid) : json_null());
	bad |= json_object_set_new(proc, "rank",
				   pr->rank >= 0 ? json_integer(pr->rank) : json_null());
	if (pr->argv) {
		json_t *argv = json_array(), *argv_hex = NULL;

		for (i = 0; pr->argv[i]; i++) {
			bad |= json_array_append_new(argv, json_string_lossy(pr->argv[i]));
			if (!utf8_valid(pr->argv[i]) && !argv_hex) {
				size_t j;

				/* One entry per argument: null where the text is exact. */
				argv_hex = json_array();
				for (j = 0; j < i; j++)
					bad |= json_array_append_new(argv_hex, json_null());
			}
			if (argv_hex) {
				char *hex = utf8_valid(pr->argv[i]) ? NULL : hex_encode(pr->argv[i]);

				bad |= json_array_append_new(argv_hex, utf8_valid(pr->argv[i]) ?
							     json_null() : hex ? json_string(hex) : NULL);
				free(hex);
			}
		}
		bad |= json_object_set_new(proc, "argv", argv);
		if (argv_hex)
			bad |= json_object_set_new(proc, "argv_hex", argv_hex);
	} else {
		bad |= json_object_set_new(proc, "argv", json_null());
	}
	bad |= json_object_set_new(root, "process", proc);

	jrun = json_object();
	bad |= json_object_set_new(jrun, "wall_ns", json_num(run->wall_ns));
	bad |= json_object_set_new(jrun, "gpu_ns", json_num(run->gpu_ns));
	bad |= json_object_set_new(jrun, "kernel_ns", json_num(gpuproj_profile_kernel_time_ns(p)));
	bad |= json_object_set_new(jrun, "dropped_records",
				   json_integer((json_int_t)run->dropped_records));
	/* Written only when known: absent means unknown (imports, older profiles). */
	if (!isnan(run->peak_device_memory_bytes))
		bad |= json_object_set_new(jrun, "peak_device_memory_bytes",
					   json_integer((json_int_t)run->peak_device_memory_bytes));
	if (run->ranks.time_ns.n)
		bad |= json_object_set_new(jrun, "ranks", ranks_to_json(&run->ranks, "kernel_ns"));
	bad |= json_object_set_new(root, "run", jrun);

	if (with_kernels) {
		for (i = 0; i < gpuproj_profile_count(p); i++)
			bad |= json_array_append_new(kernels,
						     kernel_to_json(gpuproj_profile_at(p, i)));
		bad |= json_object_set_new(root, "kernels", kernels);
	} else {
		/* Written one kernel at a time (json_stream()). */
		json_decref(kernels);
		bad |= json_object_set_new(root, "kernels", json_stream_placeholder(0));
	}
	if (gpuproj_profile_timeline(p))
		bad |= json_object_set_new(root, "timeline", timeline_to_json(p));
	if (bad) {
		json_decref(root);
		error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory encoding the profile");
		return NULL;
	}
	return root;
}

int
gpuproj_profile_save(const struct gpuproj_profile *p, const char *path,
		     struct gpuproj_error *reterr)
{
	struct gpuproj_error local = { 0 };
	json_t *root;
	int r;

	if (!p || !path)
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	root = profile_to_json_head(p, reterr ? reterr : &local);
	if (!root) {
		r = reterr ? reterr->status : local.status;
		/* Name the file the profile was not written to. */
		if (reterr && !reterr->file[0])
			snprintf(reterr->file, sizeof(reterr->file), "%s", path);
		return r;
	}
	r = profile_stream_save(root, p, path, reterr);
	json_decref(root);
	return r;
}

int
profile_kernel_write(FILE *f, void *userdata, size_t i, size_t indent)
{
	json_t *v = profile_kernel_json(userdata, i);
	int r;

	if (!v)
		return GPUPROJ_E_NOMEM;
	r = json_stream_value(f, v, indent);
	json_decref(v);
	return r;
}

int
profile_stream_save(json_t *root, const struct gpuproj_profile *p, const char *path,
		    struct gpuproj_error *reterr)
{
	struct file_tmp t;
	FILE *f;
	int r;

	/*
	 * Kernel by kernel into the temporary file: the JSON of a
	 * profile of 100,000 kernels is never a tree, nor a text, in memory.
	 */
	if ((r = file_tmp_open(&t, path, 0, reterr)))
		return r;
	f = file_tmp_stream(&t);
	if (!f) {
		file_tmp_abort(&t);
		return error_set(reterr, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
	}
	{
		struct json_stream_array k = { gpuproj_profile_count(p), profile_kernel_write,
					       (void *)p };

		r = json_stream(f, root, 0, &k, 1);
		if (!r && fputc('\n', f) == EOF)
			r = GPUPROJ_E_IO;
	}
	if (r) {
		int e = errno;

		file_tmp_abort(&t);
		return r == GPUPROJ_E_IO ? error_set(reterr, r, path, 0, 0, "write error: %s",
						     strerror(e))
					 : error_set(reterr, r, path, 0, 0, "out of memory encoding "
						     "JSON");
	}
	return file_tmp_commit(&t, NULL, reterr);
}

/* ---- reading ---- */


static void
reader_clear(struct profile_reader *rd)
{
	size_t i;

	for (i = 0; i < rd->n_scratch; i++)
		free(rd->scratch[i]);
	free(rd->scratch);
	rd->scratch = NULL;
	rd->n_scratch = rd->cap_scratch = 0;
}

/* The reader's errors (profile-json-reader.c), by their short names. */
#define nomem profile_reader_nomem
#define bad profile_reader_bad

/*
 * The exact bytes a *_hex member holds (docs/formats/profile.md, "Text that
 * is not UTF-8"), owned by the reader. `text`, when not NULL, is the text
 * member it belongs to, which must be the same bytes with U+FFFD for each
 * invalid byte: a file edited in one place only is refused, not guessed at.
 */
static int
decode_hex(struct profile_reader *rd, json_t *hexv, const char *text, const char *path, const char *what,
	   const char **out)
{
	char *bytes = NULL, *lossy;
	int r;

	if (!json_is_string(hexv))
		return bad(rd, path, "'%s' must be a string of hex digits", what);
	r = hex_decode(json_string_value(hexv), &bytes);
	if (r == GPUPROJ_E_NOMEM)
		return nomem(rd);
	if (r)
		return bad(rd, path, "'%s' must be pairs of hex digits without 00", what);
	if (text) {
		lossy = utf8_lossy(bytes);
		if (!lossy) {
			free(bytes);
			return nomem(rd);
		}
		r = strcmp(lossy, text) != 0;
		free(lossy);
		if (r) {
			free(bytes);
			return bad(rd, path, "'%s' and the text it belongs to disagree (the text "
				   "must be its bytes with U+FFFD for each that is not UTF-8)", what);
		}
	}
	if (rd->n_scratch == rd->cap_scratch) {
		size_t cap = rd->cap_scratch ? rd->cap_scratch * 2 : 8;
		char **v = realloc(rd->scratch, cap * sizeof(*v));

		if (!v) {
			free(bytes);
			return nomem(rd);
		}
		rd->scratch = v;
		rd->cap_scratch = cap;
	}
	rd->scratch[rd->n_scratch++] = bytes;
	*out = bytes;
	return GPUPROJ_OK;
}

/*
 * Optional string member with its `<key>_hex` companion: absent/null →
 * *out NULL.
 */
static int
opt_string(struct profile_reader *rd, json_t *obj, const char *key, const char *path, const char **out)
{
	json_t *v = json_object_get(obj, key), *h;
	char hkey[64];

	*out = NULL;
	snprintf(hkey, sizeof(hkey), "%s_hex", key);
	h = json_object_get(obj, hkey);
	if (!v || json_is_null(v)) {
		if (h && !json_is_null(h))
			return bad(rd, path, "'%s' without '%s'", hkey, key);
		return GPUPROJ_OK;
	}
	if (!json_is_string(v))
		return bad(rd, path, "'%s' must be a string", key);
	*out = json_string_value(v);
	if (h && !json_is_null(h))
		return decode_hex(rd, h, *out, path, hkey, out);
	return GPUPROJ_OK;
}

/* Optional number member: absent/null → NaN. */
static int
opt_number(struct profile_reader *rd, json_t *obj, const char *key, const char *path, double *out)
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
/*
 * device.sm_clock (written by libproj.so; docs/formats/profile.md): from
 * "nvml", samples ≥ 1, the three clocks, event_reasons by name, and the
 * capped samples, in the ranges of gpuproj_profile_set_sm_clock().
 */
static int opt_integer(struct profile_reader *rd, json_t *obj, const char *key, const char *path,
		       double lo, double hi, double *out);

static int
read_sm_clock(struct profile_reader *rd, struct gpuproj_profile *p, json_t *clk)
{
	static const char *const keys[] = { "from", "samples", "mean_mhz", "min_mhz", "max_mhz",
					     "event_reasons", "capped_samples" };
	struct gpuproj_sm_clock c = { 0 };
	const char *key, *from;
	double n, capped, v[3];
	json_t *why, *it;
	size_t i, j;
	int r;

	if (!clk || json_is_null(clk))
		return GPUPROJ_OK;
	if (!json_is_object(clk))
		return bad(rd, "device.sm_clock", "must be an object");
	json_object_foreach(clk, key, it) {
		for (i = 0; i < ARRAY_LENGTH(keys) && strcmp(key, keys[i]) != 0; i++)
			;
		if (i == ARRAY_LENGTH(keys))
			return bad(rd, "device.sm_clock", "'%s' is not a member gpuproj knows",
				   key);
	}
	if ((r = opt_string(rd, clk, "from", "device.sm_clock", &from)) ||
	    (r = opt_integer(rd, clk, "samples", "device.sm_clock", 1, 0x1p53, &n)) ||
	    (r = opt_integer(rd, clk, "capped_samples", "device.sm_clock", 0, 0x1p53, &capped)) ||
	    (r = opt_number(rd, clk, "mean_mhz", "device.sm_clock", &v[0])) ||
	    (r = opt_number(rd, clk, "min_mhz", "device.sm_clock", &v[1])) ||
	    (r = opt_number(rd, clk, "max_mhz", "device.sm_clock", &v[2])))
		return r;
	if (!from || strcmp(from, "nvml") != 0)
		return bad(rd, "device.sm_clock", "'from' must be \"nvml\"");
	if (isnan(n) || isnan(v[0]) || isnan(v[1]) || isnan(v[2]))
		return bad(rd, "device.sm_clock", "needs samples, mean_mhz, min_mhz and max_mhz");
	c.samples = (uint64_t)n;
	c.capped_samples = isnan(capped) ? 0 : (uint64_t)capped;
	c.mean_mhz = v[0];
	c.min_mhz = v[1];
	c.max_mhz = v[2];
	why = json_object_get(clk, "event_reasons");
	if (why && !json_is_array(why))
		return bad(rd, "device.sm_clock", "'event_reasons' must be an array of names");
	json_array_foreach(why, i, it) {
		unsigned long long bit = 0;

		for (j = 0; json_is_string(it) && j < 64 && !bit; j++) {
			const char *nm = gpuproj_clock_reason_name(1ull << j);

			if (nm && strcmp(nm, json_string_value(it)) == 0)
				bit = 1ull << j;
		}
		if (!bit)
			return bad(rd, "device.sm_clock", "event_reasons[%zu] is not a clocks "
				   "event reason gpuproj knows (docs/formats/profile.md)", i);
		c.reasons |= bit;
	}
	if (gpuproj_profile_set_sm_clock(p, &c) != GPUPROJ_OK)
		return bad(rd, "device.sm_clock", "needs 0 < min_mhz <= mean_mhz <= max_mhz <= "
			   "10000 and capped_samples <= samples");
	return GPUPROJ_OK;
}

/* device.driver: every member a known attribute, each a number in (0, max]. */
static int
read_driver(struct profile_reader *rd, struct gpuproj_profile *p, json_t *drv)
{
	const char *key;
	json_t *v;
	size_t i;

	if (!drv || json_is_null(drv))
		return GPUPROJ_OK;
	if (!json_is_object(drv))
		return bad(rd, "device.driver", "must be an object");
	json_object_foreach(drv, key, v) {
		for (i = 0; i < GPUPROJ_DRV_COUNT; i++) {
			if (strcmp(key, gpuproj_driver_attr_name(i)) == 0)
				break;
		}
		if (i == GPUPROJ_DRV_COUNT)
			return bad(rd, "device.driver", "'%s' is not a driver attribute gpuproj knows",
				   key);
		if (json_is_null(v))
			continue;
		if (!json_is_number(v))
			return bad(rd, "device.driver", "'%s' must be a number", key);
		if (gpuproj_profile_set_driver_attr(p, i, json_number_value(v)) != GPUPROJ_OK)
			return bad(rd, "device.driver", "'%s' %.17g is outside (0, %g]%s", key,
				   json_number_value(v), gpuproj_driver_attr_max(i),
				   i == GPUPROJ_DRV_POWER_LIMIT_W ? "" : " or not an integer");
	}
	return GPUPROJ_OK;
}

static int
opt_number_range(struct profile_reader *rd, json_t *obj, const char *key, const char *path, double lo,
		 double hi, double *out)
{
	int r = opt_number(rd, obj, key, path, out);

	if (r == GPUPROJ_OK && !isnan(*out) && !(*out >= lo && *out < hi))
		return bad(rd, path, "'%s' is out of range: %.17g", key, *out);
	return r;
}

/*
 * Optional integer-valued member (a JSON integer, or a real with no
 * fraction as older writers produced): absent or null → NaN; otherwise in
 * [lo, hi].
 */
static int
opt_integer(struct profile_reader *rd, json_t *obj, const char *key, const char *path, double lo,
	    double hi, double *out)
{
	int r = opt_number(rd, obj, key, path, out);
	char top[32];

	if (r || isnan(*out) || (*out >= lo && *out <= hi && *out == floor(*out)))
		return r;
	if (hi == 0x1p62)
		snprintf(top, sizeof(top), "2^62");
	else
		snprintf(top, sizeof(top), "%.0f", hi);
	return bad(rd, path, "'%s' must be an integer from %.0f to %s (or null), got %.17g", key, lo,
		   top, *out);
}

/* "9.0", "12.1": major 1–99, minor 0–9, digits only. */
static bool
parse_cc(const char *s, int *major, int *minor)
{
	size_t i = 0;
	int maj = 0;

	while (isdigit((unsigned char)s[i]) && i < 2)
		maj = maj * 10 + (s[i++] - '0');
	if (i == 0 || maj == 0 || s[i] != '.' || !isdigit((unsigned char)s[i + 1]) || s[i + 2])
		return false;
	*major = maj;
	*minor = s[i + 1] - '0';
	return true;
}

static int
req_uint(struct profile_reader *rd, json_t *obj, const char *key, const char *path, bool required,
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
read_dim3(struct profile_reader *rd, json_t *obj, const char *key, const char *path,
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
read_ranks(struct profile_reader *rd, json_t *obj, const char *key, const char *path,
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

/* A kernel's "duration_ns" statistics (absent: none timed). */
static int
read_duration(struct profile_reader *rd, struct gpuproj_kernel *k, json_t *dur,
	      const char *path)
{
	char dpath[80];
	double s, mn, mx, mean, m2, sd;
	uint64_t u;
	int r;

	if (!dur)
		return GPUPROJ_OK;
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
	return GPUPROJ_OK;
}

/* A kernel's logical "metrics": per-launch means over their launches. */
static int
read_metrics(struct profile_reader *rd, struct gpuproj_kernel *k, json_t *metrics,
	     const char *path)
{
	const char *name;
	json_t *mv;
	int r;

	if (!metrics)
		return GPUPROJ_OK;
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
	return GPUPROJ_OK;
}

/* A kernel's "extra_metrics": other tools' metrics under their own names. */
static int
read_extra(struct profile_reader *rd, struct gpuproj_kernel *k, json_t *v, const char *path)
{
	const char *name;
	json_t *mv;
	int r;

	if (!v)
		return GPUPROJ_OK;
	if (!json_is_object(v))
		return bad(rd, path, "'extra_metrics' must be an object");
	json_object_foreach(v, name, mv) {
		json_t *jv = json_object_get(mv, "value");
		json_t *hv = json_object_get(mv, "name_hex");
		const char *unit = NULL, *exact = name;
		uint64_t n;
		char mpath[192];

		if (!json_is_object(mv) || !json_is_number(jv))
			return bad(rd, path, "extra_metrics.%s must be {\"value\": number, "
				   "\"unit\": string, \"launches\": integer}", name);
		snprintf(mpath, sizeof(mpath), "%s.extra_metrics.%s", path, name);
		if ((r = req_uint(rd, mv, "launches", mpath, false, UINT32_MAX, &n)) ||
		    (r = opt_string(rd, mv, "unit", mpath, &unit)))
			return r;
		/* The key is a label when the name is not UTF-8: name_hex is the name. */
		if (hv && (r = decode_hex(rd, hv, NULL, mpath, "name_hex", &exact)))
			return r;
		if (n == 0)
			n = 1;
		if (!isfinite(json_number_value(jv)) ||
		    fabs(json_number_value(jv)) > GPUPROJ_MAX_EXTRA)
			return bad(rd, mpath, "'value' %.17g is outside [-%g, %g]",
				   json_number_value(jv), GPUPROJ_MAX_EXTRA, GPUPROJ_MAX_EXTRA);
		for (size_t e = 0; e < k->n_extra; e++) {
			if (strcmp(k->extra[e].name, exact) == 0)
				return bad(rd, mpath, "a second extra metric of the same name");
		}
		if (gpuproj_kernel_add_extra(k, exact, unit ? unit : "",
					     json_number_value(jv) * (double)n))
			return nomem(rd);
		k->extra[k->n_extra - 1].n = n;
	}
	return GPUPROJ_OK;
}

/* A kernel's "reference_ns": its times measured on other GPUs. */
static int
read_references(struct profile_reader *rd, struct gpuproj_kernel *k, json_t *v,
		const char *path)
{
	const char *gpu;
	json_t *rv;
	int r;

	if (!v)
		return GPUPROJ_OK;
	if (!json_is_object(v))
		return bad(rd, path, "'reference_ns' must be an object");
	json_object_foreach(v, gpu, rv) {
		json_t *jm = json_object_get(rv, "mean");
		const char *exact = gpu;
		uint64_t n;
		char rpath[128];

		if (!json_is_object(rv) || !json_is_number(jm) || json_number_value(jm) <= 0)
			return bad(rd, path, "reference_ns.%s must be {\"mean\": positive "
				   "number, \"launches\": integer}", gpu);
		snprintf(rpath, sizeof(rpath), "%s.reference_ns.%s", path, gpu);
		if ((r = req_uint(rd, rv, "launches", rpath, false, UINT64_MAX >> 1, &n)))
			return r;
		if (json_object_get(rv, "gpu_hex") &&
		    (r = decode_hex(rd, json_object_get(rv, "gpu_hex"), NULL, rpath, "gpu_hex",
				    &exact)))
			return r;
		/* set_reference() replaces a name equal but for case: two would be one. */
		if (gpuproj_kernel_reference(k, exact))
			return bad(rd, rpath, "a second reference time for the same GPU");
		if (gpuproj_kernel_set_reference(k, exact, json_number_value(jm), n))
			return nomem(rd);
	}
	return GPUPROJ_OK;
}

static int
read_kernel(struct profile_reader *rd, struct gpuproj_profile *p, json_t *jk, size_t idx)
{
	char path[64];
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *k;
	const char *demangled = NULL;
	json_t *v;
	uint64_t u;
	int r;

	snprintf(path, sizeof(path), "kernels[%zu]", idx);
	if (!json_is_object(jk))
		return bad(rd, path, "must be an object");
	v = json_object_get(jk, "name");
	if (!json_is_string(v) || !*json_string_value(v))
		return bad(rd, path, "'name' must be a non-empty string");
	if ((r = opt_string(rd, jk, "name", path, &sig.name)) ||
	    (r = opt_string(rd, jk, "tag", path, &sig.tag)) ||
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
		return nomem(rd);
	if (demangled && profile_kernel_set_demangled(k, demangled))
		return nomem(rd);
	if ((r = req_uint(rd, jk, "smem_static_bytes", path, false, UINT32_MAX, &u)))
		return r;
	k->smem_static = (uint32_t)u;
	if ((r = req_uint(rd, jk, "regs_per_thread", path, false, GPUPROJ_MAX_REGS_PER_THREAD,
			  &u)))
		return r;
	k->regs_per_thread = (uint32_t)u;
	if ((r = req_uint(rd, jk, "launches", path, true, UINT64_MAX >> 1, &k->launches)) ||
	    (r = req_uint(rd, jk, "profiled_launches", path, false, UINT64_MAX >> 1, &k->profiled)))
		return r;
	if (json_object_get(jk, "graph_launches")) {
		if ((r = req_uint(rd, jk, "graph_launches", path, true, UINT64_MAX >> 1,
				  &k->graph_launches)))
			return r;
		k->launch_mode_known = true;
		if (k->graph_launches > k->launches)
			return bad(rd, path, "'graph_launches' (%" PRIu64 ") is larger than "
				   "'launches' (%" PRIu64 ")", k->graph_launches, k->launches);
	}

	if ((r = read_duration(rd, k, json_object_get(jk, "duration_ns"), path)))
		return r;
	if (k->launches < k->duration_ns.n)
		return bad(rd, path, "'launches' (%" PRIu64 ") is smaller than duration_ns.n (%"
			   PRIu64 ")", k->launches, k->duration_ns.n);

	if ((r = read_metrics(rd, k, json_object_get(jk, "metrics"), path)) ||
	    (r = read_extra(rd, k, json_object_get(jk, "extra_metrics"), path)) ||
	    (r = read_references(rd, k, json_object_get(jk, "reference_ns"), path)))
		return r;
	return read_ranks(rd, jk, "total_ns", path, &k->ranks);
}

/* "attributes" (with "attributes_hex" for text that is not UTF-8) and "tool". */
static int
read_attributes(struct profile_reader *rd, json_t *root, struct gpuproj_profile *p)
{
	json_t *v, *attrs, *attrs_hex;
	int r;

	attrs = json_object_get(root, "attributes");
	attrs_hex = json_object_get(root, "attributes_hex");
	if (attrs_hex && !json_is_object(attrs_hex))
		return bad(rd, "attributes_hex", "must be an object of hex strings");
	if (attrs) {
		const char *key;
		json_t *av;

		if (!json_is_object(attrs))
			return bad(rd, "attributes", "must be an object of strings");
		json_object_foreach(attrs, key, av) {
			const char *value;

			if (!json_is_string(av))
				return bad(rd, "attributes", "'%s' must be a string", key);
			if (!*key)
				return bad(rd, "attributes", "a key is empty");
			value = json_string_value(av);
			if (attrs_hex && json_object_get(attrs_hex, key) &&
			    (r = decode_hex(rd, json_object_get(attrs_hex, key), value,
					    "attributes_hex", key, &value)))
				return r;
			if (strcmp(key, "tool_version") == 0)
				continue; /* the writer keeps it in tool.version */
			if (gpuproj_profile_set_attr(p, key, value))
				return nomem(rd);
		}
	}
	if (attrs_hex) {
		const char *key;
		json_t *av;

		json_object_foreach(attrs_hex, key, av) {
			if (!attrs || !json_object_get(attrs, key))
				return bad(rd, "attributes_hex", "'%s' is not in 'attributes'", key);
		}
	}
	v = json_object_get(root, "tool");
	if (json_is_object(v)) {
		const char *version;

		if ((r = opt_string(rd, v, "version", "tool", &version)))
			return r;
		if (version && gpuproj_profile_set_attr(p, "tool_version", version))
			return nomem(rd);
	}
	return GPUPROJ_OK;
}

/* "device": the GPU the profile was measured on. */
static int
read_device(struct profile_reader *rd, json_t *dev, struct gpuproj_profile *p)
{
	const char *name, *target, *chip, *cc;
	double clock, sms;
	int major = 0, minor = 0;
	int r;

	if (!dev)
		return GPUPROJ_OK;
	if (!json_is_object(dev))
		return bad(rd, "device", "must be an object");
	if ((r = opt_string(rd, dev, "name", "device", &name)) ||
	    (r = opt_string(rd, dev, "target", "device", &target)) ||
	    (r = opt_string(rd, dev, "chip", "device", &chip)) ||
	    (r = opt_string(rd, dev, "cc", "device", &cc)) ||
	    (r = opt_number(rd, dev, "clock_hz", "device", &clock)) ||
	    (r = opt_integer(rd, dev, "sms", "device", 0, GPUPROJ_MAX_SMS, &sms)))
		return r;
	if (cc && !parse_cc(cc, &major, &minor))
		return bad(rd, "device", "'cc' must be a compute capability such as \"9.0\" "
			   "(major 1 to 99, minor 0 to 9), got '%s'", cc);
	if (!isnan(clock) && !(clock > 0 && clock <= GPUPROJ_MAX_CLOCK_HZ))
		return bad(rd, "device", "'clock_hz' %.17g is outside (0, %g] Hz", clock,
			   GPUPROJ_MAX_CLOCK_HZ);
	if (gpuproj_profile_set_device(p, name, target, chip, major, minor,
				       isnan(sms) ? 0 : (int)sms, clock))
		return nomem(rd);
	if ((r = read_driver(rd, p, json_object_get(dev, "driver"))) ||
	    (r = read_sm_clock(rd, p, json_object_get(dev, "sm_clock"))))
		return r;
	return GPUPROJ_OK;
}

/* "process": the application, its host, pid, rank and command line. */
static int
read_process(struct profile_reader *rd, json_t *proc, struct gpuproj_profile *p)
{
	const char *app, *host;
	double pid, rank;
	json_t *argv = json_object_get(proc, "argv");
	json_t *argv_hex = json_object_get(proc, "argv_hex");
	const char **av = NULL;
	size_t i;
	int r;

	if (!proc)
		return GPUPROJ_OK;
	if (!json_is_object(proc))
		return bad(rd, "process", "must be an object");
	if ((r = opt_string(rd, proc, "application", "process", &app)) ||
	    (r = opt_string(rd, proc, "host", "process", &host)) ||
	    (r = opt_integer(rd, proc, "pid", "process", 0, 0x1p62, &pid)) ||
	    (r = opt_integer(rd, proc, "rank", "process", 0, 0x1p62, &rank)))
		return r;
	if (argv_hex && !json_is_null(argv_hex) &&
	    (!json_is_array(argv_hex) || !json_is_array(argv) ||
	     json_array_size(argv_hex) != json_array_size(argv)))
		return bad(rd, "process", "'argv_hex' must be an array as long as 'argv'");
	if (argv && !json_is_null(argv)) {
		if (!json_is_array(argv))
			return bad(rd, "process", "'argv' must be an array of strings");
		av = calloc(json_array_size(argv) + 1, sizeof(*av));
		if (!av)
			return nomem(rd);
		for (i = 0; i < json_array_size(argv); i++) {
			json_t *h = json_is_array(argv_hex) ? json_array_get(argv_hex, i) : NULL;

			if (!json_is_string(json_array_get(argv, i))) {
				free(av);
				return bad(rd, "process", "'argv' must be an array of strings");
			}
			av[i] = json_string_value(json_array_get(argv, i));
			if (h && !json_is_null(h) &&
			    (r = decode_hex(rd, h, av[i], "process", "argv_hex", &av[i]))) {
				free(av);
				return r;
			}
		}
	}
	r = gpuproj_profile_set_process(p, app, host, isnan(pid) ? -1 : (int64_t)pid,
					isnan(rank) ? -1 : (int64_t)rank, av);
	free(av);
	if (r)
		return nomem(rd);
	return GPUPROJ_OK;
}

/* "run": the run's totals. */
static int
read_run(struct profile_reader *rd, json_t *run, struct gpuproj_profile *p)
{
	struct gpuproj_run_info *ri = gpuproj_profile_run_info_mut(p);
	uint64_t dropped;
	int r;

	if (!run)
		return GPUPROJ_OK;
	if (!json_is_object(run))
		return bad(rd, "run", "must be an object");
	if ((r = opt_number_range(rd, run, "wall_ns", "run", 0, GPUPROJ_MAX_TOTAL_NS,
				  &ri->wall_ns)) ||
	    (r = opt_number_range(rd, run, "gpu_ns", "run", 0, GPUPROJ_MAX_TOTAL_NS,
				  &ri->gpu_ns)) ||
	    (r = req_uint(rd, run, "dropped_records", "run", false, UINT64_MAX >> 1,
			  &dropped)) ||
	    (r = opt_integer(rd, run, "peak_device_memory_bytes", "run", 0,
			     GPUPROJ_MAX_MEMORY_BYTES, &ri->peak_device_memory_bytes)) ||
	    (r = read_ranks(rd, run, "kernel_ns", "run", &ri->ranks)))
		return r;
	ri->dropped_records = dropped;
	return GPUPROJ_OK;
}

static int
read_root(struct profile_reader *rd, json_t *root, struct gpuproj_profile *p)
{
	json_t *v, *kernels;
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

	if ((r = read_attributes(rd, root, p)) ||
	    (r = read_device(rd, json_object_get(root, "device"), p)) ||
	    (r = read_process(rd, json_object_get(root, "process"), p)) ||
	    (r = read_run(rd, json_object_get(root, "run"), p)))
		return r;

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
	v = json_object_get(root, "timeline");
	if (v && !json_is_null(v))
		return timeline_from_json(rd, v, p);
	return GPUPROJ_OK;
}

/*
 * gpuproj_profile_validate() names a value by its path, then a space
 * ("kernels[3].duration_ns.mean 1e+19 is outside ..."): the line and
 * column of that value, when the text holds it under that path (a mean
 * the file gave as a sum, for one, is not there: no position then).
 */
static void
locate_validate_error(const char *text, size_t len, struct gpuproj_error *err)
{
	const char *sp = err ? strchr(err->message, ' ') : NULL;

	if (sp)
		json_locate_error(text, len, err->message, (size_t)(sp - err->message), err);
}

/* ---- reading a large profile one kernel at a time ---- */

/*
 * A profile's JSON as a tree in jansson takes about 7 times its text (a
 * 108 MB profile of 100,000 kernels: 760 MB), so the loader parses the
 * top level without its two big arrays, then each kernel on its own, once
 * (and each stored projection, only to check its syntax: gpuproj never
 * reads them, DESIGN.md §3). The scanner (util-json-scan.c) first finds
 * where they are and checks everything jansson could only see whole:
 * commas, brackets, nesting depth, text after the root. Whatever the scan
 * does not accept is parsed whole, as before, for jansson's own error.
 */
struct split {
	struct json_span kernels, projections; /* the two arrays' values, or zero */
	struct json_span *elems;               /* the kernels' elements */
	size_t n_elems, cap_elems;
	struct json_span *pelems;              /* the projections' elements */
	size_t n_pelems, cap_pelems;
};

static bool
span_push(struct json_span **v, size_t *n, size_t *cap, size_t a, size_t b)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		struct json_span *nv = realloc(*v, c * sizeof(*nv));

		if (!nv)
			return false;
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = (struct json_span){ a, b };
	return true;
}

/* The elements of the array at `at` (the root's "kernels" or "projections"): its end, or 0. */
static size_t
split_array(const char *t, size_t n, size_t at, struct json_span **v, size_t *nv, size_t *cap)
{
	struct json_cursor c;
	size_t start;
	int r;

	if (json_cursor_open(&c, t, n, at, 1))
		return 0;
	while ((r = json_cursor_next(&c, NULL)) == 1) {
		start = c.i;
		c.i = json_value_end(t, n, c.i, 2);
		if (!c.i || !span_push(v, nv, cap, start, c.i))
			return 0;
	}
	return r == 0 ? c.i : 0;
}

/*
 * Scan the root object: where its "kernels" and "projections" arrays and
 * their elements are. Returns false when the text is not a well-formed
 * object alone (or memory ran out).
 */
static bool
split_scan(const char *t, size_t n, struct split *sp)
{
	struct json_cursor c;
	struct json_span k, *arr;
	size_t start;
	int r;

	if (json_cursor_open(&c, t, n, 0, 0) || c.close != '}')
		return false;
	while ((r = json_cursor_next(&c, &k)) == 1) {
		bool kern = k.end - k.start == 9 && memcmp(t + k.start, "\"kernels\"", 9) == 0;
		bool proj = k.end - k.start == 13 &&
			    memcmp(t + k.start, "\"projections\"", 13) == 0;

		start = c.i;
		arr = kern ? &sp->kernels : proj ? &sp->projections : NULL;
		if (arr && t[start] == '[') {
			if (arr->end) /* twice: jansson's duplicate check says so */
				return false;
			c.i = kern ? split_array(t, n, start, &sp->elems, &sp->n_elems,
						 &sp->cap_elems)
				   : split_array(t, n, start, &sp->pelems, &sp->n_pelems,
						 &sp->cap_pelems);
			*arr = (struct json_span){ start, c.i };
		} else {
			c.i = json_value_end(t, n, start, 1);
		}
		if (!c.i)
			return false;
	}
	return r == 0 && json_ws(t, n, c.i) == n;
}

/* The text without the big arrays' contents (each "[]"), malloc'd; NULL on ENOMEM. */
static char *
split_head(const char *text, size_t len, const struct split *sp, size_t *ret_len)
{
	const struct json_span *a = &sp->kernels, *b = &sp->projections, *tmp;
	size_t keep, o = 0;
	char *h;

	if (b->end && (!a->end || b->start < a->start)) {
		tmp = a;
		a = b;
		b = tmp;
	}
	keep = len - (a->end - a->start) - (b->end - b->start) + 4;
	h = malloc(keep + 1);
	if (!h)
		return NULL;
#define COPY(from, to) do { memcpy(h + o, text + (from), (to) - (from)); o += (to) - (from); } while (0)
	if (a->end) {
		COPY(0, a->start);
		memcpy(h + o, "[]", 2);
		o += 2;
		if (b->end) {
			COPY(a->end, b->start);
			memcpy(h + o, "[]", 2);
			o += 2;
			COPY(b->end, len);
		} else {
			COPY(a->end, len);
		}
	} else {
		COPY(0, len);
	}
#undef COPY
	h[o] = '\0';
	*ret_len = o;
	return h;
}

/* Whether jansson parses every piece of `spans` from `from` on (their syntax only). */
static bool
split_parse(const char *text, const struct json_span *spans, size_t from, size_t n)
{
	json_error_t jerr;
	size_t i;

	for (i = from; i < n; i++) {
		json_t *v = json_loadb(text + spans[i].start, spans[i].end - spans[i].start,
				       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);

		if (!v)
			return false;
		json_decref(v);
	}
	return true;
}

/*
 * Read the kernels, each parsed once. A syntax error anywhere is the
 * error, as when the text is parsed whole: after a schema error (of the
 * top level, `r`, or of a kernel), the kernels not read yet are still
 * parsed for their syntax (a schema error in kernel 0 must not hide a
 * syntax error in kernel 1's bytes). Returns 1 for a syntax error (the
 * caller parses the text whole for jansson's message), else the status.
 */
static int
split_kernels(struct profile_reader *rd, const char *text, const struct split *sp, int r,
	      struct gpuproj_profile *p)
{
	json_error_t jerr;
	size_t i;

	for (i = 0; r == GPUPROJ_OK && i < sp->n_elems; i++) {
		json_t *k = json_loadb(text + sp->elems[i].start,
				       sp->elems[i].end - sp->elems[i].start,
				       JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);

		if (!k)
			return 1;
		r = read_kernel(rd, p, k, i);
		json_decref(k);
	}
	if (r && !split_parse(text, sp->elems, i, sp->n_elems))
		return 1;
	return r;
}

/*
 * Load `text` in pieces when the scan accepts it. Returns 1 when it did not
 * (the caller parses it whole), else the load's status with *ret set.
 */
static int
load_split(struct profile_reader *rd, const char *text, size_t len, struct gpuproj_profile **ret)
{
	struct split sp = { 0 };
	struct gpuproj_profile *p = NULL;
	json_error_t jerr;
	json_t *root = NULL, *timeline = NULL;
	char *head = NULL;
	size_t head_len = 0;
	int r = 1;

	if (!split_scan(text, len, &sp) || !(head = split_head(text, len, &sp, &head_len)))
		goto out;
	if (!(root = json_loadb(head, head_len, JSON_REJECT_DUPLICATES, &jerr)))
		goto out;
	/* The stored projections: their syntax is checked, nothing more (DESIGN.md §3). */
	if (!split_parse(text, sp.pelems, 0, sp.n_pelems))
		goto out;
	p = gpuproj_profile_new();
	if (!p) {
		r = nomem(rd);
		goto out;
	}
	/*
	 * The timeline names kernels by their index in "kernels": read after
	 * them, as read_root() reads it after the kernels of a whole parse.
	 */
	timeline = json_incref(json_object_get(root, "timeline"));
	if (timeline && json_object_del(root, "timeline")) {
		r = nomem(rd);
		goto out;
	}
	r = split_kernels(rd, text, &sp, read_root(rd, root, p), p);
	if (r)
		goto out;
	if (timeline && !json_is_null(timeline) && (r = timeline_from_json(rd, timeline, p)))
		goto out;
	*ret = p;
	p = NULL;
	r = GPUPROJ_OK;
out:
	gpuproj_profile_free(p);
	json_decref(timeline);
	json_decref(root);
	free(head);
	free(sp.elems);
	free(sp.pelems);
	return r;
}

static int load_buffer(const char *text, size_t len, const char *name, bool split,
		       struct gpuproj_profile **ret, struct gpuproj_error *reterr);

int
gpuproj_profile_load_buffer(const char *text, size_t len, const char *name,
			    struct gpuproj_profile **ret, struct gpuproj_error *reterr)
{
	return load_buffer(text, len, name, true, ret, reterr);
}

int
profile_load_buffer_whole(const char *text, size_t len, const char *name,
			  struct gpuproj_profile **ret, struct gpuproj_error *reterr)
{
	return load_buffer(text, len, name, false, ret, reterr);
}

static int
load_buffer(const char *text, size_t len, const char *name, bool split,
	    struct gpuproj_profile **ret, struct gpuproj_error *reterr)
{
	struct profile_reader rd = { .file = name ? name : "<buffer>", .text = text, .len = len,
			     .err = reterr };
	struct gpuproj_profile *p = NULL;
	json_error_t jerr;
	json_t *root;
	int r;

	if (!text || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, rd.file, 0, 0, "invalid argument");
	r = split ? load_split(&rd, text, len, &p) : 1;
	if (r == 1) {
		/* What the pieces decoded before a syntax error showed up goes. */
		reader_clear(&rd);
		root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
		if (!root)
			return error_set(reterr, GPUPROJ_E_PARSE, rd.file,
					 jerr.line > 0 ? jerr.line : 0,
					 jerr.column > 0 ? jerr.column : 0, "JSON syntax error: %s",
					 jerr.text);
		p = gpuproj_profile_new();
		if (!p) {
			json_decref(root);
			return error_set(reterr, GPUPROJ_E_NOMEM, rd.file, 0, 0, "out of memory");
		}
		r = read_root(&rd, root, p);
		json_decref(root);
	}
	reader_clear(&rd);
	/* The same ranges the writer enforces (one rule for both directions). */
	if (!r) {
		r = gpuproj_profile_validate(p, rd.file, reterr);
		if (r == GPUPROJ_E_SCHEMA)
			locate_validate_error(text, len, reterr);
	}
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
