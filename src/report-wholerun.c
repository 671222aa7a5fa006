/* SPDX-License-Identifier: MIT */
/*
 * The whole run in the projection writers (issue 23): the table's block,
 * the JSON member and the CSV rows of gpuproj_run_projection.whole
 * (include/gpuproj/timeline.h). report.c calls these; the numbers are
 * gpuproj_timeline_project()'s, never recomputed here.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/model.h>
#include <gpuproj/report.h>
#include <gpuproj/timeline.h>

#include "report-common.h"
#include "report-wholerun.h"
#include "util.h"

bool
whole_run_any(const struct gpuproj_run_projection *runs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (runs[i].whole.valid)
			return true;
	}
	return false;
}

const char *
whole_run_cell(const struct gpuproj_run_projection *run, char *buf, size_t size)
{
	if (!run->whole.valid)
		return "-";
	return format_ns(run->whole.wall_ns, buf, size);
}

/* "+0.0 %" with the tolerance's flag. */
static const char *
identity_text(double e, char *buf, size_t size)
{
	snprintf(buf, size, "%+.1f %%%s", 100 * e,
		 fabs(e) > GPUPROJ_TL_IDENTITY_TOLERANCE ? " (beyond the 2 % tolerance: the "
							    "epochs' times varied)" : "");
	return buf;
}

int
gpuproj_report_whole_run_table(FILE *out, const struct gpuproj_profile *p,
			       const struct gpuproj_run_projection *runs, size_t n_runs)
{
	const struct gpuproj_timeline *tl = gpuproj_profile_timeline(p);
	const struct gpuproj_whole_run *w0 = NULL;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], h[64];
	size_t r;

	for (r = 0; r < n_runs && !w0; r++) {
		if (runs[r].whole.valid)
			w0 = &runs[r].whole;
	}
	if (!tl || !w0)
		return GPUPROJ_OK;
	fprintf(out, "\nWhole run: projected wall time of the run per target, kernels, copies, host "
		"time and their overlap (the recorded timeline replayed; host time kept: same host "
		"assumed)\n");
	fprintf(out, "%-20s %11s %25s %9s %11s %11s %11s %11s %11s\n", "target", "whole run",
		"interval", "speedup", "kernel", "copy", "host", "overlap", "carried");
	for (r = 0; r < n_runs; r++) {
		const struct gpuproj_whole_run *w = &runs[r].whole;
		char interval[64];

		if (!w->valid)
			continue;
		snprintf(interval, sizeof(interval), "[%s, %s]", format_ns(w->lo_ns, a, sizeof(a)),
			 format_ns(w->hi_ns, b, sizeof(b)));
		snprintf(h, sizeof(h), "%.2fx", w->speedup);
		fprintf(out, "%-20s %11s %25s %9s %11s %11s %11s %11s %11s\n",
			runs[r].target->name, format_ns(w->wall_ns, c, sizeof(c)), interval, h,
			format_ns(w->kernel_ns, d, sizeof(d)), format_ns(w->copy_ns, e, sizeof(e)),
			format_ns(w->host_ns, f, sizeof(f)), format_ns(w->overlap_ns, g, sizeof(g)),
			format_ns(w->carried_ns, a, sizeof(a)));
	}
	fprintf(out, "measured whole run %s; the replay explains %.1f %% of it (the rest is "
		"carried unchanged: epochs with a profiled launch %" PRIu64 ", incomplete %" PRIu64
		", beyond the bounds %" PRIu64 ", and time outside any epoch); "
		"identity check (replay onto the source against the measured time of the "
		"explained part): %s\n", format_ns(w0->source_ns, a, sizeof(a)),
		100 * w0->explained, tl->unexplained[GPUPROJ_TL_WHY_PROFILED].epochs,
		tl->unexplained[GPUPROJ_TL_WHY_INCOMPLETE].epochs,
		tl->unexplained[GPUPROJ_TL_WHY_OVERFLOW].epochs,
		identity_text(w0->identity_error, h, sizeof(h)));
	for (r = 0; r < n_runs; r++) {
		const struct gpuproj_whole_run *w = &runs[r].whole;

		if (w->valid && (w->copies_kept || w->kernels_kept))
			fprintf(out, "note: %s: %zu copy and %zu kernel node(s) keep their source "
				"time (no host_link in targets.yaml, peer copies, kernels not "
				"projected)\n", runs[r].target->name, w->copies_kept,
				w->kernels_kept);
	}
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

json_t *
whole_run_json(const struct gpuproj_whole_run *w)
{
	json_t *o, *bar;
	int bad = 0;

	if (!w->valid)
		return NULL;
	o = json_object();
	bar = json_object();
	bad |= json_object_set_new(o, "wall_ns", json_num(w->wall_ns));
	bad |= json_object_set_new(o, "lo_ns", json_num(w->lo_ns));
	bad |= json_object_set_new(o, "hi_ns", json_num(w->hi_ns));
	bad |= json_object_set_new(o, "source_ns", json_num(w->source_ns));
	bad |= json_object_set_new(o, "speedup", json_num(w->speedup));
	bad |= json_object_set_new(o, "replayed_ns", json_num(w->replayed_ns));
	bad |= json_object_set_new(o, "carried_ns", json_num(w->carried_ns));
	bad |= json_object_set_new(o, "kernel_ns", json_num(w->kernel_ns));
	bad |= json_object_set_new(o, "copy_ns", json_num(w->copy_ns));
	bad |= json_object_set_new(o, "host_ns", json_num(w->host_ns));
	bad |= json_object_set_new(o, "idle_ns", json_num(w->idle_ns));
	bad |= json_object_set_new(o, "overlap_ns", json_num(w->overlap_ns));
	bad |= json_object_set_new(bar, "kernel_ns", json_num(w->bar_kernel_ns));
	bad |= json_object_set_new(bar, "copy_ns", json_num(w->bar_copy_ns));
	bad |= json_object_set_new(bar, "host_ns", json_num(w->bar_host_ns));
	bad |= json_object_set_new(bar, "carried_ns", json_num(w->carried_ns));
	bad |= json_object_set_new(o, "bar", bar);
	bad |= json_object_set_new(o, "explained", json_num(w->explained));
	bad |= json_object_set_new(o, "identity_error", json_num(w->identity_error));
	bad |= json_object_set_new(o, "identity_tolerance", json_num(GPUPROJ_TL_IDENTITY_TOLERANCE));
	bad |= json_object_set_new(o, "bound", json_num(w->bound));
	bad |= json_object_set_new(o, "copies_kept", json_integer((json_int_t)w->copies_kept));
	bad |= json_object_set_new(o, "kernels_kept", json_integer((json_int_t)w->kernels_kept));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* One CSV row of the whole run: the value in point_ns, what it is in the kernel column. */
static void
csv_row(FILE *out, const struct gpuproj_run_projection *run, const char *what, double source,
	double lo, double hi, double point, const char *why, const char *basis)
{
	fputs(what, out);
	fputs(",,,,,", out);
	csv_write_num(out, source);
	fputc(',', out);
	csv_write_field(out, run->target->name);
	fputc(',', out);
	csv_write_field(out, gpuproj_model_name(run->model));
	fputs(",ok,", out);
	csv_write_num(out, lo);
	fputc(',', out);
	csv_write_num(out, hi);
	fputc(',', out);
	csv_write_num(out, point);
	fputc(',', out);
	csv_write_num(out, !isnan(source) && point > 0 ? source / point : NAN);
	fputs(",,,,", out);
	csv_write_field(out, why);
	fprintf(out, ",,%s\n", basis);
}

void
whole_run_csv(FILE *out, const struct gpuproj_run_projection *run, const char *basis)
{
	const struct gpuproj_whole_run *w = &run->whole;
	char why[160];

	if (!w->valid)
		return;
	snprintf(why, sizeof(why), "explained %.4f; identity %+.4f; copies kept %zu; kernels "
		 "kept %zu", w->explained, w->identity_error, w->copies_kept, w->kernels_kept);
	csv_row(out, run, "(whole run)", w->source_ns, w->lo_ns, w->hi_ns, w->wall_ns, why, basis);
	csv_row(out, run, "(whole run: kernel)", NAN, NAN, NAN, w->kernel_ns, "", basis);
	csv_row(out, run, "(whole run: copy)", NAN, NAN, NAN, w->copy_ns, "", basis);
	csv_row(out, run, "(whole run: host)", NAN, NAN, NAN, w->host_ns, "", basis);
	csv_row(out, run, "(whole run: overlap)", NAN, NAN, NAN, w->overlap_ns, "", basis);
	csv_row(out, run, "(whole run: carried)", NAN, NAN, NAN, w->carried_ns, "", basis);
}
