/* SPDX-License-Identifier: MIT */
/*
 * The whole run in the projection writers: the table's block,
 * the JSON member and the CSV rows of gpuproj_run_projection.whole
 * (include/gpuproj/timeline.h). project-write.c calls these; the numbers are
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
#include <gpuproj/project.h>
#include <gpuproj/timeline.h>

#include "util-escape.h"
#include "project-wholerun.h"
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

/*
 * "+0.0 %" with the tolerance's flag: beyond it, the epochs' times varied
 * when their spread (the bound, relative) allows that much; else the
 * timeline does not describe what was measured (-82 % is not put down to
 * varying epochs whose spread was 0).
 */
/* "1.23x" (unit as given), or "-" where the speedup is unknown (NaN). */
static const char *
speedup_text(double v, const char *unit, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%.2f%s", v, unit);
	else
		snprintf(buf, size, "-");
	return buf;
}

static const char *
identity_text(double e, double bound, char *buf, size_t size)
{
	snprintf(buf, size, "%+.1f %%%s", 100 * e,
		 fabs(e) <= GPUPROJ_TL_IDENTITY_TOLERANCE ? ""
		 : fabs(e) <= GPUPROJ_TL_IDENTITY_TOLERANCE + bound
			 ? " (beyond the 2 % tolerance: the epochs' times varied)"
			 : " (beyond the 2 % tolerance and the epochs' spread: the timeline is "
			   "inconsistent)");
	return buf;
}

int
gpuproj_project_whole_run_table(FILE *out, const struct gpuproj_profile *p,
				const struct gpuproj_run_projection *runs, size_t n_runs)
{
	const struct gpuproj_timeline *tl = gpuproj_profile_timeline(p);
	const struct gpuproj_whole_run *w0 = NULL;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], h[160];
	size_t r, r0 = 0;

	for (r = 0; r < n_runs && !w0; r++) {
		if (runs[r].whole.valid) {
			w0 = &runs[r].whole;
			r0 = r;
		}
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
		speedup_text(w->speedup, "x", h, sizeof(h));
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
		identity_text(w0->identity_error, w0->bound, h, sizeof(h)));
	if (tl->reconstructed.epochs)
		fprintf(out, "of it, %.1f %% is %" PRIu64 " reconstructed epoch(s) with a profiled "
			"launch: each at its one-pass duration, without the %s the host blocked "
			"under kernel replay (docs/models.md \"Whole run\")\n",
			100 * w0->reconstructed, tl->reconstructed.epochs,
			format_ns(tl->reconstructed.blocking_ns, a, sizeof(a)));
	if (w0->bound_ns > 0)
		fprintf(out, "note: the intervals include the error bound of replaying each "
			"pattern at its mean times (on %s ±%s; the spread of the epochs' "
			"times)\n",
			runs[r0].target->name, format_ns(w0->bound_ns, a, sizeof(a)));
	for (r = 0; r < n_runs; r++) {
		const struct gpuproj_whole_run *w = &runs[r].whole;

		if (w->valid && w->floored)
			fprintf(out, "note: %s: the whole run is the GPU time of one stream of one "
				"thread (%s): the replay of its epochs, which end before their GPU "
				"work does (a thread that never waits for it), gave less\n",
				runs[r].target->name, format_ns(w->floor_ns, a, sizeof(a)));
	}
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
	if (w->reconstructed > 0)
		bad |= json_object_set_new(o, "reconstructed", json_num(w->reconstructed));
	bad |= json_object_set_new(o, "explained", json_num(w->explained));
	bad |= json_object_set_new(o, "identity_error", json_num(w->identity_error));
	bad |= json_object_set_new(o, "identity_tolerance", json_num(GPUPROJ_TL_IDENTITY_TOLERANCE));
	bad |= json_object_set_new(o, "bound", json_num(w->bound));
	bad |= json_object_set_new(o, "bound_ns", json_num(w->bound_ns));
	bad |= json_object_set_new(o, "floor_ns", json_num(w->floor_ns));
	bad |= json_object_set_new(o, "floored", json_boolean(w->floored));
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

/* ---- the procurement report (report.h) ---- */

void
whole_run_add(struct gpuproj_whole_run *a, const struct gpuproj_whole_run *b, bool first)
{
	double wa, wb;

	if (first) {
		*a = *b;
		return;
	}
	if (!a->valid || !b->valid) {
		a->valid = false;
		return;
	}
	wa = a->source_ns;
	wb = b->source_ns;
	a->explained = wa + wb > 0 ? (a->explained * wa + b->explained * wb) / (wa + wb) : 0;
	a->identity_error = wa + wb > 0 ? (a->identity_error * wa + b->identity_error * wb) /
					  (wa + wb) : 0;
	a->bound = wa + wb > 0 ? (a->bound * wa + b->bound * wb) / (wa + wb) : 0;
	a->wall_ns += b->wall_ns;
	a->lo_ns += b->lo_ns;
	a->hi_ns += b->hi_ns;
	a->source_ns += b->source_ns;
	a->source_wall_ns += b->source_wall_ns;
	a->replayed_ns += b->replayed_ns;
	a->carried_ns += b->carried_ns;
	a->kernel_ns += b->kernel_ns;
	a->copy_ns += b->copy_ns;
	a->host_ns += b->host_ns;
	a->idle_ns += b->idle_ns;
	a->overlap_ns += b->overlap_ns;
	a->bar_kernel_ns += b->bar_kernel_ns;
	a->bar_copy_ns += b->bar_copy_ns;
	a->bar_host_ns += b->bar_host_ns;
	a->copies_kept += b->copies_kept;
	a->kernels_kept += b->kernels_kept;
	a->speedup = a->wall_ns > 0 && a->source_wall_ns > 0 ? a->source_wall_ns / a->wall_ns : NAN;
}

static bool
any_valid(const struct gpuproj_report_rank *rows, size_t n, double *ret_max)
{
	size_t i;
	bool any = false;

	*ret_max = 0;
	for (i = 0; i < n; i++) {
		/* The ranked rows only: a target that cannot run every kernel is listed apart. */
		if (!rows[i].whole.valid || !rows[i].complete)
			continue;
		any = true;
		if (rows[i].whole.wall_ns > *ret_max)
			*ret_max = rows[i].whole.wall_ns;
	}
	return any;
}

/* The bar's parts, in order: what ran, and what was carried. */
static const struct {
	const char *name, *color;
	char mark;
} parts[] = {
	{ "kernel", "#4e79a7", 'K' },
	{ "copy", "#f28e2b", 'C' },
	{ "host", "#76b7b2", 'H' },
	{ "carried (not replayed)", "#bab0ac", '.' },
};

static double
part_ns(const struct gpuproj_whole_run *w, size_t i)
{
	switch (i) {
	case 0:
		return w->bar_kernel_ns;
	case 1:
		return w->bar_copy_ns;
	case 2:
		return w->bar_host_ns;
	default:
		return w->carried_ns;
	}
}

static const char *
intro(void)
{
	return "The whole run replayed onto each target: every kernel at its projected time, "
	       "every host copy at the target's host link, host time unchanged (the same host is "
	       "assumed), the recorded stream order, overlap and waits kept (timeline.h). The bar "
	       "splits the projected wall time into time a kernel ran, a copy ran (and no kernel), "
	       "the host alone, and what is carried unchanged (epochs the recording could not "
	       "replay, time outside any epoch). Rankings are by whole-run time.";
}

void
whole_run_html(struct strbuf *sb, const struct gpuproj_report_rank *rows, size_t n)
{
	const double width = 360;
	double max;
	size_t i, j;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], h[32], bk[32], bc[32], bh[32];

	if (!any_valid(rows, n, &max) || !(max > 0))
		return;
	strbuf_append(sb, "<section id=\"whole-run\">\n<h2>Whole run</h2>\n<p>");
	html_escape(sb, intro());
	strbuf_append(sb, "</p>\n<p class=\"small\">");
	for (j = 0; j < ARRAY_LENGTH(parts); j++) {
		strbuf_printf(sb, "<svg width=\"10\" height=\"10\" aria-hidden=\"true\"><rect "
			      "width=\"10\" height=\"10\" fill=\"%s\"/></svg> ", parts[j].color);
		html_escape(sb, parts[j].name);
		strbuf_append(sb, j + 1 < ARRAY_LENGTH(parts) ? " &nbsp; " : "");
	}
	strbuf_append(sb, "</p>\n<div class=\"table-wrap\"><table class=\"ranking\" "
		      "id=\"whole-run-table\">\n<thead><tr><th class=\"num\">#</th><th>Target "
		      "GPU</th><th class=\"num\">Whole run</th><th class=\"num\">Interval</th>"
		      "<th class=\"num\">Speedup</th><th class=\"num\">Kernel</th><th "
		      "class=\"num\">Copy</th><th class=\"num\">Host</th><th class=\"num\">"
		      "Carried</th><th>Kernel / copy / host / carried</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++) {
		const struct gpuproj_whole_run *w = &rows[i].whole;
		double x = 0;

		if (!w->valid || !rows[i].complete)
			continue;
		strbuf_printf(sb, "<tr data-wall-ns=\"%.17g\"><td class=\"num\">%zu</td><th "
			      "scope=\"row\">", w->wall_ns, i + 1);
		html_escape(sb, rows[i].target->name);
		strbuf_printf(sb, "%s</th><td class=\"num\">%s</td><td class=\"num\">%s – %s</td>"
			      "<td class=\"num\">%s</td><td class=\"num\">%s</td><td "
			      "class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s"
			      "</td><td><svg width=\"%.0f\" height=\"14\" role=\"img\" "
			      "aria-label=\"kernel %s, copy %s, host %s, carried %s\">",
			      rows[i].is_source ? " <span class=\"small\">(source)</span>" : "",
			      format_ns(w->wall_ns, a, sizeof(a)), format_ns(w->lo_ns, b, sizeof(b)),
			      format_ns(w->hi_ns, c, sizeof(c)),
			      speedup_text(w->speedup, "×", h, sizeof(h)),
			      format_ns(w->kernel_ns, d, sizeof(d)), format_ns(w->copy_ns, e, sizeof(e)),
			      format_ns(w->host_ns, f, sizeof(f)),
			      format_ns(w->carried_ns, g, sizeof(g)), width,
			      format_ns(w->bar_kernel_ns, bk, sizeof(bk)),
			      format_ns(w->bar_copy_ns, bc, sizeof(bc)),
			      format_ns(w->bar_host_ns, bh, sizeof(bh)), g);
		for (j = 0; j < ARRAY_LENGTH(parts); j++) {
			double len = part_ns(w, j) / max * width;

			if (len > 0)
				strbuf_printf(sb, "<rect x=\"%.2f\" y=\"1\" width=\"%.2f\" "
					      "height=\"12\" fill=\"%s\"/>", x, len, parts[j].color);
			x += len > 0 ? len : 0;
		}
		strbuf_append(sb, "</svg></td></tr>\n");
	}
	strbuf_append(sb, "</tbody></table></div>\n");
	for (i = 0; i < n; i++) {
		const struct gpuproj_whole_run *w = &rows[i].whole;

		if (!w->valid)
			continue;
		strbuf_printf(sb, "<p class=\"note\">Measured whole run %s; the replay explains "
			      "%.1f %% of it; identity check (the replay onto the source against the "
			      "measured time of the explained part): %+.1f %% (tolerance %.0f %%).</p>\n",
			      format_ns(w->source_ns, a, sizeof(a)), 100 * w->explained,
			      100 * w->identity_error, 100 * GPUPROJ_TL_IDENTITY_TOLERANCE);
		break;
	}
	strbuf_append(sb, "</section>\n");
}

void
whole_run_md(struct strbuf *sb, const struct gpuproj_report_rank *rows, size_t n)
{
	const int cells = 30;
	double max;
	size_t i, j;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], h[32];

	if (!any_valid(rows, n, &max) || !(max > 0))
		return;
	strbuf_printf(sb, "## Whole run\n\n%s Bar: `K` kernel, `C` copy, `H` host, `.` carried; "
		      "%d characters = the longest whole run.\n\n", intro(), cells);
	strbuf_append(sb, "| # | Target GPU | Whole run | Interval | Speedup | Kernel | Copy | Host "
		      "| Carried | Bar |\n|--:|---|--:|--:|--:|--:|--:|--:|--:|---|\n");
	for (i = 0; i < n; i++) {
		const struct gpuproj_whole_run *w = &rows[i].whole;
		double acc = 0;
		int done = 0;

		if (!w->valid || !rows[i].complete)
			continue;
		strbuf_printf(sb, "| %zu | ", i + 1);
		md_text(sb, rows[i].target->name);
		strbuf_printf(sb, "%s | %s | %s – %s | %s | %s | %s | %s | %s | `",
			      rows[i].is_source ? " (source)" : "",
			      format_ns(w->wall_ns, a, sizeof(a)), format_ns(w->lo_ns, b, sizeof(b)),
			      format_ns(w->hi_ns, c, sizeof(c)),
			      speedup_text(w->speedup, "x", h, sizeof(h)),
			      format_ns(w->kernel_ns, d, sizeof(d)), format_ns(w->copy_ns, e, sizeof(e)),
			      format_ns(w->host_ns, f, sizeof(f)),
			      format_ns(w->carried_ns, g, sizeof(g)));
		/* Cumulative rounding: the marks add up to the bar's length. */
		for (j = 0; j < ARRAY_LENGTH(parts); j++) {
			int upto;

			acc += part_ns(w, j);
			upto = (int)lround(acc / max * cells);
			for (; done < upto && done < cells; done++)
				strbuf_printf(sb, "%c", parts[j].mark);
		}
		strbuf_append(sb, "` |\n");
	}
	for (i = 0; i < n; i++) {
		const struct gpuproj_whole_run *w = &rows[i].whole;

		if (!w->valid)
			continue;
		strbuf_printf(sb, "\nMeasured whole run %s; the replay explains %.1f %% of it; identity "
			      "check (the replay onto the source against the measured time of the "
			      "explained part): %+.1f %% (tolerance %.0f %%).\n",
			      format_ns(w->source_ns, a, sizeof(a)), 100 * w->explained,
			      100 * w->identity_error, 100 * GPUPROJ_TL_IDENTITY_TOLERANCE);
		break;
	}
	strbuf_append(sb, "\n");
}
