/* SPDX-License-Identifier: MIT */
/*
 * gpuproj_profile_validate() (include/gpuproj/profile.h): every number of a
 * profile within its range (docs/formats/profile.md "Ranges"), its
 * timeline against its kernels (timeline-profile.c). Above profile.c and
 * timeline.c, so that neither calls the other back.
 * Thread safety: reentrant.
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

/* ---- ranges (gpuproj_profile_validate) ---- */

static int
out_of_range(const char *file, struct gpuproj_error *err, const char *where, const char *what,
	     double v, double lo, double hi, const char *unit)
{
	return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s%s%s %.17g is outside [%g, %g]%s%s",
			 where, *where ? "." : "", what, v, lo, hi, *unit ? " " : "", unit);
}

/* NaN (unknown) passes when `allow_nan`; everything else must lie in [lo, hi]. */
static int
check_num(const char *file, struct gpuproj_error *err, const char *where, const char *what,
	  double v, double lo, double hi, const char *unit, bool allow_nan)
{
	if ((allow_nan && isnan(v)) || (v >= lo && v <= hi))
		return GPUPROJ_OK;
	return out_of_range(file, err, where, what, v, lo, hi, unit);
}

/* Counts are written as JSON integers (int64) and read back below 2^63. */
#define MAX_N ((uint64_t)INT64_MAX)

static int
check_stats(const char *file, struct gpuproj_error *err, const char *where,
	    const struct gpuproj_stats *s, double max)
{
	int r;

	if (s->n > MAX_N)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s.n %" PRIu64 " is larger "
				 "than %" PRIu64, where, s->n, MAX_N);
	if (!s->n)
		return GPUPROJ_OK;
	if ((r = check_num(file, err, where, "mean", s->mean, 0, max, "ns", false)) ||
	    (r = check_num(file, err, where, "min", s->min, 0, max, "ns", false)) ||
	    (r = check_num(file, err, where, "max", s->max, 0, max, "ns", false)) ||
	    (r = check_num(file, err, where, "sum", s->sum, 0, DBL_MAX, "ns", false)) ||
	    (r = check_num(file, err, where, "m2", s->m2, 0, DBL_MAX, "ns^2", false)))
		return r;
	if (s->min > s->max)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s: 'min' is larger than 'max'",
				 where);
	return GPUPROJ_OK;
}

static int
check_ranks(const char *file, struct gpuproj_error *err, const char *where,
	    const struct gpuproj_rank_stats *r)
{
	char w[96];

	snprintf(w, sizeof(w), "%s%sranks", where, *where ? "." : "");
	if (r->time_ns.n && r->present > r->time_ns.n)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s.present %" PRIu64 " is larger "
				 "than n %" PRIu64, w, r->present, r->time_ns.n);
	return check_stats(file, err, w, &r->time_ns, GPUPROJ_MAX_TOTAL_NS);
}

static int
check_kernel(const char *file, struct gpuproj_error *err, const struct gpuproj_kernel *k,
	     size_t idx)
{
	char w[48], ww[160];
	size_t i;
	int r;

	snprintf(w, sizeof(w), "kernels[%zu]", idx);
	if (!k->name || !*k->name)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s: the kernel has no name", w);
	if (!k->grid.x || !k->grid.y || !k->grid.z || !k->block.x || !k->block.y || !k->block.z)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s: grid and block dimensions "
				 "must be at least 1", w);
	if (k->device < 0)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s.device %d is negative", w,
				 k->device);
	if (k->regs_per_thread > GPUPROJ_MAX_REGS_PER_THREAD)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s.regs_per_thread %u is "
				 "larger than %d", w, k->regs_per_thread,
				 GPUPROJ_MAX_REGS_PER_THREAD);
	if (k->launches > MAX_N || k->profiled > MAX_N)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s: launch counts must be below "
				 "2^63", w);
	if (k->launch_mode_known && k->graph_launches > k->launches)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s: 'graph_launches' (%" PRIu64
				 ") is larger than 'launches' (%" PRIu64 ")", w, k->graph_launches,
				 k->launches);
	if (k->launches < k->duration_ns.n)
		return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s: 'launches' (%" PRIu64 ") is "
				 "smaller than duration_ns.n (%" PRIu64 ")", w, k->launches,
				 k->duration_ns.n);
	snprintf(ww, sizeof(ww), "%s.duration_ns", w);
	if ((r = check_stats(file, err, ww, &k->duration_ns, GPUPROJ_MAX_NS)))
		return r;
	for (i = 0; i < GPUPROJ_M_COUNT; i++) {
		double lo, hi;

		if (!k->metric_n[i])
			continue;
		gpuproj_metric_range((enum gpuproj_metric)i, &lo, &hi);
		snprintf(ww, sizeof(ww), "%s.metrics", w);
		if ((r = check_num(file, err, ww, gpuproj_metric_name((enum gpuproj_metric)i),
				   gpuproj_kernel_metric(k, (enum gpuproj_metric)i), lo, hi,
				   gpuproj_metric_unit((enum gpuproj_metric)i), false)))
			return r;
	}
	for (i = 0; i < k->n_extra; i++) {
		const struct gpuproj_extra_metric *e = &k->extra[i];

		snprintf(ww, sizeof(ww), "%s.extra_metrics", w);
		if (!e->n || e->n > MAX_N)
			return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s: a launch count of "
					 "an extra metric is 0 or not below 2^63", ww);
		if ((r = check_num(file, err, ww, "value", e->sum / (double)e->n, -GPUPROJ_MAX_EXTRA,
				   GPUPROJ_MAX_EXTRA, "", false)))
			return r;
	}
	for (i = 0; i < k->n_refs; i++) {
		snprintf(ww, sizeof(ww), "%s.reference_ns", w);
		if (k->refs[i].launches > MAX_N)
			return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s: launches not below "
					 "2^63", ww);
		if (!(k->refs[i].mean_ns > 0))
			return error_set(err, GPUPROJ_E_SCHEMA, file, 0, 0, "%s: mean %.17g must be "
					 "positive", ww, k->refs[i].mean_ns);
		if ((r = check_num(file, err, ww, "mean", k->refs[i].mean_ns, 0, GPUPROJ_MAX_NS,
				   "ns", false)))
			return r;
	}
	return check_ranks(file, err, w, &k->ranks);
}

int
gpuproj_profile_validate(const struct gpuproj_profile *p, const char *name,
			 struct gpuproj_error *reterr)
{
	const struct gpuproj_device_info *d;
	size_t i;
	int r;

	if (!p)
		return error_set(reterr, GPUPROJ_E_INVAL, name, 0, 0, "invalid argument");
	d = &p->device;
	if (!gpuproj_device_cc_ok(d->cc_major, d->cc_minor))
		return error_set(reterr, GPUPROJ_E_SCHEMA, name, 0, 0, "device.cc %d.%d is not a "
				 "compute capability (1.0 to 99.9, or unknown)", d->cc_major,
				 d->cc_minor);
	if (!gpuproj_device_sms_ok(d->sms))
		return error_set(reterr, GPUPROJ_E_SCHEMA, name, 0, 0, "device.sms %d is outside "
				 "[0, %d] (0: unknown)", d->sms, GPUPROJ_MAX_SMS);
	if (!gpuproj_device_clock_ok(d->clock_hz))
		return out_of_range(name, reterr, "device", "clock_hz", d->clock_hz, 0,
				    GPUPROJ_MAX_CLOCK_HZ, "Hz (and above 0)");
	for (i = 0; i < GPUPROJ_DRV_COUNT; i++) {
		if (!profile_driver_attr_ok((enum gpuproj_driver_attr)i, d->driver[i]))
			return error_set(reterr, GPUPROJ_E_SCHEMA, name, 0, 0, "device.driver.%s "
					 "%.17g is outside (0, %g]%s",
					 gpuproj_driver_attr_name((enum gpuproj_driver_attr)i),
					 d->driver[i],
					 gpuproj_driver_attr_max((enum gpuproj_driver_attr)i),
					 profile_driver_attr_integer((enum gpuproj_driver_attr)i)
						 ? " or not an integer" : "");
	}
	if (p->process.pid < -1 || p->process.rank < -1)
		return error_set(reterr, GPUPROJ_E_SCHEMA, name, 0, 0, "process: pid and rank must "
				 "be -1 (unknown) or at least 0");
	if ((r = check_num(name, reterr, "run", "wall_ns", p->run.wall_ns, 0, GPUPROJ_MAX_TOTAL_NS,
			   "ns", true)) ||
	    (r = check_num(name, reterr, "run", "gpu_ns", p->run.gpu_ns, 0, GPUPROJ_MAX_TOTAL_NS,
			   "ns", true)) ||
	    (r = check_num(name, reterr, "run", "peak_device_memory_bytes",
			   p->run.peak_device_memory_bytes, 0, GPUPROJ_MAX_MEMORY_BYTES, "bytes",
			   true)))
		return r;
	if (!isnan(p->run.peak_device_memory_bytes) &&
	    p->run.peak_device_memory_bytes != floor(p->run.peak_device_memory_bytes))
		return error_set(reterr, GPUPROJ_E_SCHEMA, name, 0, 0,
				 "run.peak_device_memory_bytes %.17g is not an integer",
				 p->run.peak_device_memory_bytes);
	if (p->run.dropped_records > MAX_N)
		return error_set(reterr, GPUPROJ_E_SCHEMA, name, 0, 0, "run.dropped_records is not "
				 "below 2^63");
	if ((r = check_ranks(name, reterr, "run", &p->run.ranks)))
		return r;
	for (i = 0; i < p->n_attrs; i++) {
		if (!*p->attrs[i].key || !utf8_valid(p->attrs[i].key))
			return error_set(reterr, GPUPROJ_E_SCHEMA, name, 0, 0, "attributes: a key is "
					 "empty or not UTF-8");
	}
	for (i = 0; i < p->n; i++) {
		if ((r = check_kernel(name, reterr, p->kernels[i], i)))
			return r;
	}
	return gpuproj_timeline_validate(p->timeline, p, name, reterr);
}

