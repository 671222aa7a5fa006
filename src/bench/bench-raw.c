/* SPDX-License-Identifier: MIT */
/*
 * gpuproj bench: read the raw measurements of gpuproj-bench-kernels
 * (JSON, schema gpuproj-bench-raw/1, docs/bench.md "Raw JSON"). The same
 * format holds a --query answer (device only), a full run and a run that
 * failed part-way (an "error" at the top and on the failed benchmark).
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench.h"
#include "util.h"

struct reader {
	const char *file;
	struct gpuproj_error *err;
};

static int
bad(struct reader *rd, const char *path, const char *what)
{
	return error_set(rd->err, GPUPROJ_E_SCHEMA, rd->file, 0, 0, "%s: %s", path, what);
}

/* Optional string member; NULL when absent or null. */
static int
get_str(struct reader *rd, json_t *obj, const char *key, const char *path, char **ret)
{
	json_t *v = json_object_get(obj, key);

	*ret = NULL;
	if (!v || json_is_null(v))
		return GPUPROJ_OK;
	if (!json_is_string(v))
		return bad(rd, path, "expected a string");
	*ret = strdup(json_string_value(v));
	return *ret ? GPUPROJ_OK : error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0,
					     "out of memory");
}

/* Number member; NaN when absent or null (or required: an error). */
static int
get_num(struct reader *rd, json_t *obj, const char *key, const char *path, bool required,
	double *ret)
{
	json_t *v = json_object_get(obj, key);

	*ret = NAN;
	if (!v || json_is_null(v))
		return required ? bad(rd, path, "missing number") : GPUPROJ_OK;
	if (!json_is_number(v))
		return bad(rd, path, "expected a number");
	*ret = json_number_value(v);
	return GPUPROJ_OK;
}

/*
 * Optional whole-number member in [lo, hi); NaN when absent or null. A
 * fraction or a value out of range is an error (converting it to an integer
 * type would be undefined).
 */
static int
get_whole(struct reader *rd, json_t *obj, const char *key, const char *path, double lo,
	  double hi, double *ret)
{
	int r = get_num(rd, obj, key, path, false, ret);

	if (r || isnan(*ret))
		return r;
	if (*ret != floor(*ret) || *ret < lo || *ret >= hi)
		return bad(rd, path, "expected a whole number in range");
	return GPUPROJ_OK;
}

static int
get_int(struct reader *rd, json_t *obj, const char *key, const char *path, int *ret)
{
	double v;
	int r = get_whole(rd, obj, key, path, INT_MIN, INT_MAX + 1.0, &v);

	*ret = r || isnan(v) ? 0 : (int)v;
	return r;
}

/* Array of numbers (null elements become NaN). */
static int
get_array(struct reader *rd, json_t *obj, const char *key, const char *path, double **ret,
	  size_t *ret_n)
{
	json_t *a = json_object_get(obj, key), *v;
	size_t i;

	*ret = NULL;
	*ret_n = 0;
	if (!a || json_is_null(a))
		return GPUPROJ_OK;
	if (!json_is_array(a))
		return bad(rd, path, "expected an array of numbers");
	if (json_array_size(a) == 0)
		return GPUPROJ_OK;
	*ret = calloc(json_array_size(a), sizeof(double));
	if (!*ret)
		return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0, "out of memory");
	json_array_foreach(a, i, v) {
		if (json_is_null(v))
			(*ret)[i] = NAN;
		else if (json_is_number(v))
			(*ret)[i] = json_number_value(v);
		else
			return bad(rd, path, "expected an array of numbers");
	}
	*ret_n = json_array_size(a);
	return GPUPROJ_OK;
}

static int
parse_device(struct reader *rd, json_t *j, struct bench_device *d)
{
	static const struct {
		const char *key;
		size_t off;
	} ints[] = {
		{ "index", offsetof(struct bench_device, index) },
		{ "cc_major", offsetof(struct bench_device, cc_major) },
		{ "cc_minor", offsetof(struct bench_device, cc_minor) },
		{ "sms", offsetof(struct bench_device, sms) },
		{ "warp_size", offsetof(struct bench_device, warp_size) },
		{ "threads_per_sm", offsetof(struct bench_device, threads_per_sm) },
		{ "threads_per_block", offsetof(struct bench_device, threads_per_block) },
		{ "blocks_per_sm", offsetof(struct bench_device, blocks_per_sm) },
		{ "regs_per_sm", offsetof(struct bench_device, regs_per_sm) },
		{ "regs_per_block", offsetof(struct bench_device, regs_per_block) },
		{ "smem_per_sm_b", offsetof(struct bench_device, smem_per_sm_b) },
		{ "smem_per_block_optin_b", offsetof(struct bench_device, smem_per_block_optin_b) },
		{ "smem_reserved_per_block_b",
		  offsetof(struct bench_device, smem_reserved_per_block_b) },
		{ "mem_bus_bits", offsetof(struct bench_device, mem_bus_bits) },
		{ "driver_api_version", offsetof(struct bench_device, driver_api_version) },
		{ "runtime_version", offsetof(struct bench_device, runtime_version) },
		{ "toolkit_version", offsetof(struct bench_device, toolkit_version) },
	};
	static const struct {
		const char *key;
		size_t off;
	} nums[] = {
		{ "l2_b", offsetof(struct bench_device, l2_b) },
		{ "total_mem_b", offsetof(struct bench_device, total_mem_b) },
		{ "free_mem_b", offsetof(struct bench_device, free_mem_b) },
		{ "max_clock_mhz", offsetof(struct bench_device, max_clock_mhz) },
		{ "mem_clock_mhz", offsetof(struct bench_device, mem_clock_mhz) },
	};
	char path[96];
	json_t *nv, *ecc;
	size_t i;
	int r;

	if (!json_is_object(j))
		return bad(rd, "device", "expected an object");
	r = get_str(rd, j, "name", "device.name", &d->name);
	if (!r && !d->name)
		r = bad(rd, "device.name", "missing");
	if (!r)
		r = get_str(rd, j, "pci_bus_id", "device.pci_bus_id", &d->pci_bus_id);
	for (i = 0; i < ARRAY_LENGTH(ints) && !r; i++) {
		snprintf(path, sizeof(path), "device.%s", ints[i].key);
		r = get_int(rd, j, ints[i].key, path, (int *)((char *)d + ints[i].off));
	}
	for (i = 0; i < ARRAY_LENGTH(nums) && !r; i++) {
		snprintf(path, sizeof(path), "device.%s", nums[i].key);
		r = get_num(rd, j, nums[i].key, path, false, (double *)((char *)d + nums[i].off));
	}
	if (r)
		return r;
	ecc = json_object_get(j, "ecc");
	d->ecc = ecc && json_is_true(ecc);
	d->nvml_max_sm_clock_mhz = d->nvml_max_mem_clock_mhz = d->power_limit_w = NAN;
	nv = json_object_get(j, "nvml");
	if (nv && json_is_object(nv)) {
		json_t *a = json_object_get(nv, "available");

		d->nvml = a && json_is_true(a);
		r = get_str(rd, nv, "reason", "device.nvml.reason", &d->nvml_reason);
		if (!r)
			r = get_str(rd, nv, "driver_version", "device.nvml.driver_version",
				    &d->driver_version);
		if (!r)
			r = get_num(rd, nv, "max_sm_clock_mhz", "device.nvml.max_sm_clock_mhz",
				    false, &d->nvml_max_sm_clock_mhz);
		if (!r)
			r = get_num(rd, nv, "max_mem_clock_mhz", "device.nvml.max_mem_clock_mhz",
				    false, &d->nvml_max_mem_clock_mhz);
		if (!r)
			r = get_num(rd, nv, "default_power_limit_w",
				    "device.nvml.default_power_limit_w", false, &d->power_limit_w);
		if (r)
			return r;
		if (d->driver_version && !*d->driver_version) {
			free(d->driver_version);
			d->driver_version = NULL;
		}
	} else if (nv) {
		return bad(rd, "device.nvml", "expected an object");
	}
	if (d->sms <= 0)
		return bad(rd, "device.sms", "missing or not positive");
	return GPUPROJ_OK;
}

static int
parse_meas(struct reader *rd, json_t *j, size_t idx, struct bench_meas *m)
{
	char path[64], p2[96];
	double v;
	size_t n;
	int r;

	snprintf(path, sizeof(path), "benchmarks[%zu]", idx);
	if (!json_is_object(j))
		return bad(rd, path, "expected an object");
#define P(key) (snprintf(p2, sizeof(p2), "%s.%s", path, key), p2)
	r = get_str(rd, j, "name", P("name"), &m->name);
	if (!r && !m->name)
		r = bad(rd, P("name"), "missing");
	if (!r)
		r = get_str(rd, j, "family", P("family"), &m->family);
	if (!r)
		r = get_str(rd, j, "unit", P("unit"), &m->unit);
	if (!r && !m->unit)
		r = bad(rd, P("unit"), "missing");
	if (!r)
		r = get_str(rd, j, "error", P("error"), &m->error);
	if (!r && !(r = get_whole(rd, j, "blocks", P("blocks"), 0, UINT_MAX + 1.0, &v)))
		m->blocks = isnan(v) ? 0 : (unsigned)v;
	if (!r && !(r = get_whole(rd, j, "threads", P("threads"), 0, UINT_MAX + 1.0, &v)))
		m->threads = isnan(v) ? 0 : (unsigned)v;
	if (!r && !(r = get_whole(rd, j, "stride", P("stride"), 0, UINT_MAX + 1.0, &v)))
		m->stride = isnan(v) ? 0 : (unsigned)v;
	if (!r && !(r = get_whole(rd, j, "iters", P("iters"), 0, 0x1p63, &v)))
		m->iters = isnan(v) ? 0 : (long long)v;
	if (!r)
		r = get_num(rd, j, "size_b", P("size_b"), false, &m->size_b);
	if (!r)
		r = get_num(rd, j, "work", P("work"), true, &m->work);
	if (!r && !(m->work > 0))
		r = bad(rd, P("work"), "must be positive");
	if (!r)
		r = get_array(rd, j, "times_ns", P("times_ns"), &m->times_ns, &m->n);
	if (!r)
		r = get_array(rd, j, "sm_clock_mhz", P("sm_clock_mhz"), &m->sm_mhz, &m->n_clock);
	if (!r && m->n_clock && m->n_clock != m->n)
		r = bad(rd, P("sm_clock_mhz"), "needs one sample per timed run");
	if (!r)
		r = get_array(rd, j, "mem_clock_mhz", P("mem_clock_mhz"), &m->mem_mhz, &n);
	if (!r && n && n != m->n)
		r = bad(rd, P("mem_clock_mhz"), "needs one sample per timed run");
	if (!r)
		r = get_array(rd, j, "power_w", P("power_w"), &m->power_w, &n);
	if (!r && n && n != m->n)
		r = bad(rd, P("power_w"), "needs one sample per timed run");
#undef P
	return r;
}

int
bench_raw_parse(const char *text, size_t len, const char *name, struct bench_raw *ret,
		struct gpuproj_error *err)
{
	struct reader rd = { name ? name : "(raw)", err };
	struct bench_raw raw;
	json_error_t jerr;
	json_t *root, *v, *list;
	const char *schema;
	size_t i;
	int r = GPUPROJ_OK;

	memset(&raw, 0, sizeof(raw));
	raw.elapsed_s = NAN;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return error_set(err, GPUPROJ_E_PARSE, rd.file, jerr.line > 0 ? jerr.line : 0,
				 jerr.column > 0 ? jerr.column : 0, "not JSON: %s", jerr.text);
	if (!json_is_object(root)) {
		r = bad(&rd, "(top)", "expected an object");
		goto out;
	}
	v = json_object_get(root, "schema");
	schema = v && json_is_string(v) ? json_string_value(v) : NULL;
	if (!schema || strcmp(schema, BENCH_RAW_SCHEMA) != 0) {
		r = error_set(err, GPUPROJ_E_SCHEMA, rd.file, 0, 0,
			      "schema is '%s', expected '%s'", schema ? schema : "(none)",
			      BENCH_RAW_SCHEMA);
		goto out;
	}
	r = get_str(&rd, root, "error", "error", &raw.error);
	if (!r)
		r = get_str(&rd, root, "kernels_version", "kernels_version", &raw.kernels_version);
	if (!r)
		r = get_str(&rd, root, "clock_source", "clock_source", &raw.clock_source);
	if (!r)
		r = get_str(&rd, root, "host", "host", &raw.host);
	if (!r)
		r = get_str(&rd, root, "date_utc", "date_utc", &raw.date_utc);
	if (!r)
		r = get_str(&rd, root, "mode", "mode", &raw.mode);
	if (!r)
		r = get_num(&rd, root, "elapsed_s", "elapsed_s", false, &raw.elapsed_s);
	if (r)
		goto out;
	v = json_object_get(root, "device");
	if (!v) {
		if (!raw.error)
			r = bad(&rd, "device", "missing (and no error says why)");
		goto out;
	}
	r = parse_device(&rd, v, &raw.dev);
	if (r)
		goto out;
	list = json_object_get(root, "benchmarks");
	if (list && !json_is_array(list)) {
		r = bad(&rd, "benchmarks", "expected an array");
		goto out;
	}
	if (list && json_array_size(list)) {
		raw.meas = calloc(json_array_size(list), sizeof(*raw.meas));
		if (!raw.meas) {
			r = error_set(err, GPUPROJ_E_NOMEM, rd.file, 0, 0, "out of memory");
			goto out;
		}
		json_array_foreach(list, i, v) {
			raw.n = i + 1;
			r = parse_meas(&rd, v, i, &raw.meas[i]);
			if (r)
				goto out;
		}
	}
out:
	json_decref(root);
	if (r) {
		bench_raw_free(&raw);
		return r;
	}
	*ret = raw;
	return GPUPROJ_OK;
}

void
bench_raw_free(struct bench_raw *raw)
{
	size_t i;

	if (!raw)
		return;
	for (i = 0; i < raw->n; i++) {
		struct bench_meas *m = &raw->meas[i];

		free(m->name);
		free(m->family);
		free(m->unit);
		free(m->error);
		free(m->times_ns);
		free(m->sm_mhz);
		free(m->mem_mhz);
		free(m->power_w);
	}
	free(raw->meas);
	free(raw->kernels_version);
	free(raw->clock_source);
	free(raw->host);
	free(raw->date_utc);
	free(raw->mode);
	free(raw->error);
	free(raw->dev.name);
	free(raw->dev.pci_bus_id);
	free(raw->dev.nvml_reason);
	free(raw->dev.driver_version);
	memset(raw, 0, sizeof(*raw));
}

const struct bench_meas *
bench_raw_find(const struct bench_raw *raw, const char *name)
{
	size_t i;

	for (i = 0; i < raw->n; i++) {
		if (strcmp(raw->meas[i].name, name) == 0)
			return &raw->meas[i];
	}
	return NULL;
}
