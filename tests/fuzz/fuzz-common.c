/* SPDX-License-Identifier: MIT */
/*
 * Shared parts of the libFuzzer harnesses (fuzz-common.h).
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/project.h>
#include <gpuproj/target.h>
#include <gpuproj/timeline.h>

#include "fuzz-common.h"
#include "import-common.h"
#include "profile-json.h"
#include "util-escape.h"

void
fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz oracle: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

const char *
fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];

	if (fd < 0) {
		fd = memfd_create("gpuproj-fuzz", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		perror("fuzz_file");
		abort();
	}
	return path;
}

/* ---- the profile oracle ---- */

bool
fuzz_same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool
fuzz_same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* Means kept as sums: value × n / n may differ from value in the last place. */
static bool
close_num(double a, double b)
{
	return fuzz_same_num(a, b) || fabs(a - b) <= 4 * DBL_EPSILON * fmax(fabs(a), fabs(b));
}

static bool
same_stats(const struct gpuproj_stats *a, const struct gpuproj_stats *b)
{
	if (a->n != b->n)
		return false;
	return !a->n || (fuzz_same_num(a->sum, b->sum) && fuzz_same_num(a->min, b->min) &&
			 fuzz_same_num(a->max, b->max) && fuzz_same_num(a->mean, b->mean) &&
			 fuzz_same_num(a->m2, b->m2));
}

static bool
same_ranks(const struct gpuproj_rank_stats *a, const struct gpuproj_rank_stats *b)
{
	return same_stats(&a->time_ns, &b->time_ns) && (!a->time_ns.n || a->present == b->present);
}

static void
compare_kernel(const struct gpuproj_kernel *a, const struct gpuproj_kernel *b, size_t i,
	       const char *what)
{
	size_t j;

#define KFAIL(field) fuzz_fail("%s: kernels[%zu].%s differs after a round trip", what, i, field)
	if (!fuzz_same_str(a->name, b->name))
		KFAIL("name");
	if (!fuzz_same_str(a->demangled, b->demangled))
		KFAIL("demangled");
	if (!fuzz_same_str(a->tag, b->tag))
		KFAIL("tag");
	if (memcmp(&a->grid, &b->grid, sizeof(a->grid)) || memcmp(&a->block, &b->block, sizeof(a->block)))
		KFAIL("grid/block");
	if (a->smem_dynamic != b->smem_dynamic || a->smem_static != b->smem_static ||
	    a->regs_per_thread != b->regs_per_thread || a->device != b->device)
		KFAIL("launch configuration");
	if (a->launches != b->launches || a->profiled != b->profiled)
		KFAIL("launches");
	if (!same_stats(&a->duration_ns, &b->duration_ns))
		KFAIL("duration_ns");
	for (j = 0; j < GPUPROJ_M_COUNT; j++) {
		if (a->metric_n[j] != b->metric_n[j] ||
		    (a->metric_n[j] &&
		     !close_num(gpuproj_kernel_metric(a, (enum gpuproj_metric)j),
				gpuproj_kernel_metric(b, (enum gpuproj_metric)j))))
			KFAIL(gpuproj_metric_name((enum gpuproj_metric)j));
	}
	if (a->n_extra != b->n_extra)
		KFAIL("extra_metrics (count)");
	for (j = 0; j < a->n_extra; j++) {
		const struct gpuproj_extra_metric *x = &a->extra[j], *y = &b->extra[j];

		if (!fuzz_same_str(x->name, y->name) || !fuzz_same_str(x->unit, y->unit) || x->n != y->n ||
		    !close_num(x->sum / (double)x->n, y->sum / (double)y->n))
			KFAIL("extra_metrics");
	}
	if (a->n_refs != b->n_refs)
		KFAIL("reference_ns (count)");
	for (j = 0; j < a->n_refs; j++) {
		if (!fuzz_same_str(a->refs[j].gpu, b->refs[j].gpu) ||
		    !fuzz_same_num(a->refs[j].mean_ns, b->refs[j].mean_ns) ||
		    a->refs[j].launches != b->refs[j].launches)
			KFAIL("reference_ns");
	}
	if (!same_ranks(&a->ranks, &b->ranks))
		KFAIL("ranks");
#undef KFAIL
}

/*
 * Timeline statistics are written as n, mean, stddev (and min, max for an
 * epoch's wall): n, mean, min and max come back exactly, the deviation
 * (kept as m2) to within a few units in the last place.
 */
static bool
same_tl_stats(const struct gpuproj_stats *a, const struct gpuproj_stats *b)
{
	return a->n == b->n &&
	       (!a->n || (fuzz_same_num(a->mean, b->mean) && fuzz_same_num(a->min, b->min) &&
			  fuzz_same_num(a->max, b->max) &&
			  close_num(gpuproj_stats_stddev(a), gpuproj_stats_stddev(b))));
}

/* The same kernel record of two profiles (their index in "kernels"). */
static bool
same_kernel(const struct gpuproj_kernel *a, const struct gpuproj_kernel *b)
{
	return (!a && !b) || (a && b && fuzz_same_str(a->name, b->name) &&
			      fuzz_same_str(a->tag, b->tag) && !memcmp(&a->grid, &b->grid, sizeof(a->grid)) &&
			      !memcmp(&a->block, &b->block, sizeof(a->block)) &&
			      a->smem_dynamic == b->smem_dynamic && a->device == b->device);
}

/* The whole-run timeline: every field written, node by node. */
static void
compare_timeline(const struct gpuproj_profile *pa, const struct gpuproj_profile *pb,
		 const char *what)
{
	const struct gpuproj_timeline *a = gpuproj_profile_timeline(pa);
	const struct gpuproj_timeline *b = gpuproj_profile_timeline(pb);
	size_t i, j, k;

	if (!a != !b)
		fuzz_fail("%s: the timeline %s after a round trip", what, a ? "was lost" : "appeared");
	if (!a)
		return;
	if (a->ranks != b->ranks || a->threads != b->threads || !fuzz_same_num(a->wall_ns, b->wall_ns) ||
	    !fuzz_same_num(a->span_ns, b->span_ns) || !fuzz_same_num(a->spill_ns, b->spill_ns) ||
	    a->n_patterns != b->n_patterns)
		fuzz_fail("%s: timeline differs after a round trip", what);
	for (i = 0; i < GPUPROJ_TL_WHY_COUNT; i++) {
		if (a->unexplained[i].epochs != b->unexplained[i].epochs ||
		    !fuzz_same_num(a->unexplained[i].ns, b->unexplained[i].ns))
			fuzz_fail("%s: timeline.unexplained.%s differs after a round trip", what,
				  gpuproj_tl_why_name((enum gpuproj_tl_why)i));
	}
	for (i = 0; i < a->n_patterns; i++) {
		const struct gpuproj_tl_pattern *x = &a->patterns[i], *y = &b->patterns[i];

		if (x->thread != y->thread || x->cut != y->cut || x->n_nodes != y->n_nodes ||
		    !same_tl_stats(&x->wall_ns, &y->wall_ns))
			fuzz_fail("%s: timeline.patterns[%zu] differs after a round trip", what, i);
		for (j = 0; j < x->n_nodes; j++) {
			const struct gpuproj_tl_node *u = &x->nodes[j], *v = &y->nodes[j];
			bool ok = u->op == v->op && u->stream == v->stream && u->event == v->event &&
				  u->legacy == v->legacy && u->blocking == v->blocking &&
				  u->copy == v->copy && u->pinned == v->pinned && u->bytes == v->bytes &&
				  same_kernel(u->kernel, v->kernel) && u->n_graph == v->n_graph &&
				  same_tl_stats(&u->gap_ns, &v->gap_ns) &&
				  same_tl_stats(&u->call_ns, &v->call_ns) &&
				  same_tl_stats(&u->lat_ns, &v->lat_ns) &&
				  same_tl_stats(&u->dur_ns, &v->dur_ns);

			for (k = 0; ok && k < u->n_graph; k++)
				ok = same_kernel(u->graph[k].kernel, v->graph[k].kernel) &&
				     u->graph[k].launches == v->graph[k].launches &&
				     same_tl_stats(&u->graph[k].ns, &v->graph[k].ns);
			if (!ok)
				fuzz_fail("%s: timeline.patterns[%zu].nodes[%zu] differs after a round "
					  "trip", what, i, j);
		}
	}
}

void
fuzz_compare_profiles(const struct gpuproj_profile *a, const struct gpuproj_profile *b,
		      bool round_trip, const char *what)
{
	const struct gpuproj_device_info *da = gpuproj_profile_device(a), *db = gpuproj_profile_device(b);
	const struct gpuproj_process_info *pa = gpuproj_profile_process(a);
	const struct gpuproj_process_info *pb = gpuproj_profile_process(b);
	const struct gpuproj_run_info *ra = gpuproj_profile_run_info(a), *rb = gpuproj_profile_run_info(b);
	const char *key, *value, *tv;
	size_t i, na = 0, nb = 0;

	if (!fuzz_same_str(da->name, db->name) || !fuzz_same_str(da->target, db->target) ||
	    !fuzz_same_str(da->chip, db->chip) || da->cc_major != db->cc_major ||
	    da->cc_minor != db->cc_minor || da->sms != db->sms || !fuzz_same_num(da->clock_hz, db->clock_hz))
		fuzz_fail("%s: device differs after a round trip", what);
	for (i = 0; i < GPUPROJ_DRV_COUNT; i++) {
		if (!fuzz_same_num(da->driver[i], db->driver[i]))
			fuzz_fail("%s: device.driver.%s differs after a round trip", what,
				  gpuproj_driver_attr_name(i));
	}
	if (!fuzz_same_str(pa->application, pb->application) || !fuzz_same_str(pa->host, pb->host) ||
	    pa->pid != pb->pid || pa->rank != pb->rank || !pa->argv != !pb->argv)
		fuzz_fail("%s: process differs after a round trip", what);
	for (i = 0; pa->argv && (pa->argv[i] || pb->argv[i]); i++) {
		if (!fuzz_same_str(pa->argv[i], pb->argv[i]))
			fuzz_fail("%s: process.argv[%zu] differs after a round trip", what, i);
	}
	if (!fuzz_same_num(ra->wall_ns, rb->wall_ns) || !fuzz_same_num(ra->gpu_ns, rb->gpu_ns) ||
	    ra->dropped_records != rb->dropped_records || !same_ranks(&ra->ranks, &rb->ranks))
		fuzz_fail("%s: run differs after a round trip", what);
	/* Attributes: the same set; tool_version is written as tool.version (ours by default). */
	for (i = 0; (key = gpuproj_profile_attr_at(a, i, &value)) != NULL; i++) {
		if (strcmp(key, "tool_version") == 0)
			continue;
		na++;
		if (!fuzz_same_str(value, gpuproj_profile_attr(b, key)))
			fuzz_fail("%s: attribute '%s' differs after a round trip", what, key);
	}
	for (i = 0; (key = gpuproj_profile_attr_at(b, i, &value)) != NULL; i++)
		nb += strcmp(key, "tool_version") != 0;
	if (na != nb)
		fuzz_fail("%s: %zu attributes became %zu", what, na, nb);
	tv = gpuproj_profile_attr(a, "tool_version");
	/* Written, a profile without one gets ours; two loads of one text agree exactly. */
	if (!fuzz_same_str(tv ? tv : round_trip ? GPUPROJ_VERSION : NULL,
			   gpuproj_profile_attr(b, "tool_version")))
		fuzz_fail("%s: tool version differs after a round trip", what);
	if (gpuproj_profile_count(a) != gpuproj_profile_count(b))
		fuzz_fail("%s: %zu kernels became %zu", what, gpuproj_profile_count(a),
			  gpuproj_profile_count(b));
	for (i = 0; i < gpuproj_profile_count(a); i++)
		compare_kernel(gpuproj_profile_at(a, i), gpuproj_profile_at(b, i), i, what);
	compare_timeline(a, b, what);
}

/* JSON text of p; NULL only on ENOMEM, anything else fails the oracle. */
static char *
to_text(const struct gpuproj_profile *p, const char *what, const char *stage)
{
	struct gpuproj_error err = { 0 };
	json_t *j = profile_to_json(p, &err);
	char *t;

	if (!j) {
		if (err.status == GPUPROJ_E_NOMEM)
			return NULL;
		fuzz_fail("%s: %s profile cannot be written: %s", what, stage, err.message);
	}
	t = json_text(j);
	json_decref(j);
	return t;
}

static struct gpuproj_profile *
from_text(const char *text, const char *what, const char *stage)
{
	struct gpuproj_error err = { 0 };
	struct gpuproj_profile *p = NULL;
	int r = gpuproj_profile_load_buffer(text, strlen(text), "written.json", &p, &err);

	if (r == GPUPROJ_E_NOMEM)
		return NULL;
	if (r)
		fuzz_fail("%s: the %s profile gpuproj wrote does not load back: %s\n%s", what, stage,
			  err.message, text);
	return p;
}

/* ---- what gpuproj shows people and spreadsheets ---- */

void
fuzz_check_terminal(const char *text, size_t len, const char *what)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t i;

	for (i = 0; i < len; i++) {
		if ((u[i] < 0x20 && u[i] != '\n') || u[i] == 0x7f)
			fuzz_fail("%s: control byte 0x%02x at %zu reaches the terminal", what, u[i], i);
		if (i + 1 < len && u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] < 0xa0)
			fuzz_fail("%s: C1 control U+00%02X at %zu reaches the terminal", what,
				  u[i + 1], i);
		if (i + 2 < len && text_bidi_len(text + i, NULL))
			fuzz_fail("%s: a bidirectional control at %zu reaches the terminal", what, i);
	}
}

void
fuzz_check_csv(const char *text, size_t len, size_t n_text_columns, const char *what)
{
	size_t i = 0, col = 0, line = 1;

	while (i < len) {
		/* One field: its first character as a spreadsheet reads it (after the quote). */
		char first;

		if (text[i] == '"') {
			first = i + 1 < len ? text[i + 1] : '\0';
			for (i++; i < len; i++) {
				if (text[i] == '"' && i + 1 < len && text[i + 1] == '"')
					i++;
				else if (text[i] == '"')
					break;
			}
			i++;
		} else {
			first = text[i] == ',' || text[i] == '\n' ? '\0' : text[i];
			while (i < len && text[i] != ',' && text[i] != '\n')
				i++;
		}
		if (col < n_text_columns && first && strchr("=+-@\t\r", first))
			fuzz_fail("%s: line %zu, column %zu begins with '%c': a spreadsheet runs it as "
				  "a formula", what, line, col + 1, first);
		if (i < len && text[i] == ',') {
			col++;
		} else {
			col = 0;
			line++;
		}
		i++;
	}
}

/*
 * The table and the CSV of a profile projected from the first GPU of the
 * built-in targets.yaml onto the last: the table is safe on a terminal,
 * and no kernel or tag cell of the CSV is a formula.
 */
static void
check_writers(const struct gpuproj_profile *p, const char *what)
{
	static struct gpuproj_targets *targets;
	struct gpuproj_run_projection run;
	const struct gpuproj_target *src, *tgt;
	char *text = NULL;
	size_t len = 0, n;
	FILE *f;

	if (!targets && gpuproj_targets_load_builtin(&targets, NULL))
		fuzz_fail("the built-in targets.yaml does not load");
	n = gpuproj_targets_count(targets);
	src = gpuproj_targets_get(targets, 0);
	tgt = gpuproj_targets_get(targets, n - 1);
	if (gpuproj_project_run(p, gpuproj_model_default(), src, tgt, NULL, &run) != GPUPROJ_OK)
		return;
	if ((f = open_memstream(&text, &len))) {
		struct gpuproj_project_write_options opt = { .all_kernels = true,
							      .profile_label = what };

		if (gpuproj_project_table(f, p, src, &run, 1, &opt) == GPUPROJ_OK && !fclose(f))
			fuzz_check_terminal(text, len, "the projection table");
		else
			fclose(f);
		free(text);
	}
	text = NULL;
	if ((f = open_memstream(&text, &len))) {
		if (gpuproj_project_csv(f, p, src, &run, 1) == GPUPROJ_OK && !fclose(f))
			fuzz_check_csv(text, len, 2, "the projection CSV");
		else
			fclose(f);
		free(text);
	}
	gpuproj_run_projection_clear(&run);
}

void
fuzz_check_profile(const struct gpuproj_profile *p, const char *what)
{
	struct gpuproj_profile *p2 = NULL, *p3 = NULL;
	char *t1 = NULL, *t2 = NULL, *t3 = NULL;

	check_writers(p, what);

	t1 = to_text(p, what, "accepted");
	if (!t1 || !(p2 = from_text(t1, what, "accepted")))
		goto out;
	fuzz_compare_profiles(p, p2, true, what);
	t2 = to_text(p2, what, "reloaded");
	if (!t2 || !(p3 = from_text(t2, what, "reloaded")))
		goto out;
	fuzz_compare_profiles(p2, p3, true, what);
	t3 = to_text(p3, what, "reloaded twice");
	if (t3 && strcmp(t2, t3) != 0)
		fuzz_fail("%s: writing a reloaded profile is not stable:\n%s\n----\n%s", what, t2, t3);
out:
	free(t1);
	free(t2);
	free(t3);
	gpuproj_profile_free(p2);
	gpuproj_profile_free(p3);
}

void
fuzz_check_analytic(const struct gpuproj_profile *p, const struct gpuproj_targets *targets,
		    const char *what)
{
	size_t i;
	int j;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		const struct gpuproj_stats *d = &k->duration_ns;
		double g[3] = { k->grid.x, k->grid.y, k->grid.z };
		double b[3] = { k->block.x, k->block.y, k->block.z };
		double cuda = 0, t = d->min * 1e-9;
		char why[96];

		if (k->launches != d->n)
			fuzz_fail("%s: kernels[%zu]: %llu launches, %llu timed", what, i,
				  (unsigned long long)k->launches, (unsigned long long)d->n);
		if (!(d->min >= IMPORT_MIN_DURATION_NS && d->max <= IMPORT_MAX_DURATION_NS))
			fuzz_fail("%s: kernels[%zu]: times from %g to %g ns", what, i, d->min,
				  d->max);
		if (!import_launch_ok(g, b, why, sizeof(why)))
			fuzz_fail("%s: kernels[%zu]: %s", what, i, why);
		for (j = 0; j < GPUPROJ_TPREC_COUNT; j++) {
			double f = gpuproj_kernel_metric(
				k, (enum gpuproj_metric)(GPUPROJ_M_FLOP_TENSOR_FP16 + j));
			double bound = import_rate_bound(targets, j, GPUPROJ_FP32, NULL, NULL);

			/* 1e-9 relative: the time was restored from the rate (2bmnk / rate). */
			if (f > 0 && f / t > bound * (1 + 1e-9))
				fuzz_fail("%s: kernels[%zu]: %g FLOP of %s in %g ns: %g FLOP/s, "
					  "above %g", what, i, f,
					  gpuproj_tensor_prec_name((enum gpuproj_tensor_prec)j),
					  d->min, f / t, bound);
		}
		if (gpuproj_kernel_flop(k, &cuda) == GPUPROJ_OK && cuda > 0 &&
		    cuda / t > import_rate_bound(targets, GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, NULL,
						 NULL) * (1 + 1e-9))
			fuzz_fail("%s: kernels[%zu]: %g FP32 FLOP in %g ns", what, i, cuda, d->min);
	}
}

void
fuzz_import_file(fuzz_import_fn import, const uint8_t *data, size_t size,
		 const struct gpuproj_targets *targets, bool analytic, const char *what)
{
	const char *path = fuzz_file(data, size);
	struct gpuproj_profile **profiles = NULL;
	size_t n = 0, i;

	if (import(&path, 1, targets, &profiles, &n, NULL))
		return;
	for (i = 0; i < n; i++) {
		fuzz_check_profile(profiles[i], what);
		if (analytic)
			fuzz_check_analytic(profiles[i], targets, what);
		gpuproj_profile_free(profiles[i]);
	}
	free(profiles);
}
