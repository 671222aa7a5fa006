/* SPDX-License-Identifier: MIT */
/*
 * The CI gate's result as JUnit XML, Markdown and plain text
 * (include/gpuproj/gate.h: gpuproj_gate_junit(), gpuproj_gate_markdown(),
 * gpuproj_gate_print(), gpuproj_gate_write()); the comparison itself is
 * gate.c. Escaping is util-escape.c's.
 *
 * Thread safety: reentrant; the result is only read.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/gate.h>

#include "util-escape.h"
#include "util.h"

static const char *
pct(double change, char *buf, size_t size)
{
	if (isnan(change))
		snprintf(buf, size, "n/a");
	else if (isinf(change))
		snprintf(buf, size, "%s", change > 0 ? "+inf%" : "-inf%");
	else
		snprintf(buf, size, "%+.1f%%", change * 100);
	return buf;
}

static const char *
fmt_t(double ns, char *buf, size_t size)
{
	return format_ns(ns, buf, size);
}

/* Threshold of the cells of a kind, as "+10%". */
static const char *
thr(double fraction, char *buf, size_t size)
{
	snprintf(buf, size, "%g%%", fraction * 100);
	return buf;
}

/* "1% of the baseline run" or "20 us". */
static const char *
min_time_desc(const struct gpuproj_gate_options *o, char *buf, size_t size)
{
	char t[32];

	if (!isnan(o->min_time_ns))
		snprintf(buf, size, "%s", fmt_t(o->min_time_ns, t, sizeof(t)));
	else
		snprintf(buf, size, "%g%% of the baseline run", o->min_time_fraction * 100);
	return buf;
}

/* One line with a kernel cell's numbers. */
static void
describe_kernel_cell(struct strbuf *sb, const struct gpuproj_gate_result *r,
		     const struct gpuproj_gate_kernel *gk, size_t col)
{
	const struct gpuproj_gate_cell *c = &gk->cells[col];
	const char *what = col ? "projected" : "measured";
	char a[32], b[32], d[32], e[32], f[32], g[32];

	if (gk->base)
		strbuf_printf(sb, "baseline: %s %s per launch, %llu launches (launch sd %s "
			      "measured, %llu timed)",
			      fmt_t(c->base_ns, a, sizeof(a)), what,
			      (unsigned long long)gk->base->launches,
			      fmt_t(gpuproj_stats_stddev(&gk->base->duration_ns), b, sizeof(b)),
			      (unsigned long long)gk->base->duration_ns.n);
	else
		strbuf_append(sb, "baseline: none (new kernel)");
	strbuf_append(sb, "; ");
	if (gk->cur)
		strbuf_printf(sb, "current: %s %s per launch, %llu launches (launch sd %s "
			      "measured, %llu timed)",
			      fmt_t(c->cur_ns, a, sizeof(a)), what,
			      (unsigned long long)gk->cur->launches,
			      fmt_t(gpuproj_stats_stddev(&gk->cur->duration_ns), b, sizeof(b)),
			      (unsigned long long)gk->cur->duration_ns.n);
	else
		strbuf_append(sb, "current: none (vanished kernel)");
	if (c->coarse)
		strbuf_append(sb, "; projected by sol, coarser (from throughput percentages: the "
			      "model lacks this kernel's inputs)");
	if (!isnan(c->change))
		strbuf_printf(sb, "; change %s (threshold +%s, noise band %s, minimum time %s): %s",
			      pct(c->change, d, sizeof(d)),
			      thr(r->options.kernel_max_regression, e, sizeof(e)),
			      fmt_t(c->noise_ns, f, sizeof(f)),
			      fmt_t(r->columns[col].min_time_ns, g, sizeof(g)),
			      gpuproj_gate_status_name(c->status));
	if (c->why)
		strbuf_printf(sb, "; %s", c->why);
}

static void
describe_run_cell(struct strbuf *sb, const struct gpuproj_gate_result *r, size_t col)
{
	const struct gpuproj_gate_cell *c = &r->columns[col].run;
	char a[32], b[32], d[32], e[32], f[32];

	strbuf_printf(sb, "whole run%s %s: baseline %s, current %s",
		      r->options.metric == GPUPROJ_GATE_METRIC_WALL ? " wall time" : "",
		      col ? "projected" : "measured",
		      fmt_t(c->base_ns, a, sizeof(a)), fmt_t(c->cur_ns, b, sizeof(b)));
	if (!isnan(c->change))
		strbuf_printf(sb, "; change %s (threshold +%s, noise band %s): %s",
			      pct(c->change, d, sizeof(d)), thr(r->options.max_regression, e, sizeof(e)),
			      fmt_t(c->noise_ns, f, sizeof(f)), gpuproj_gate_status_name(c->status));
	if (c->why)
		strbuf_printf(sb, "; %s", c->why);
}

static const char *
skip_message(const struct gpuproj_gate_cell *c, char *buf, size_t size)
{
	switch (c->status) {
	case GPUPROJ_GATE_NEW:
		snprintf(buf, size, "new kernel: not in the baseline");
		break;
	case GPUPROJ_GATE_VANISHED:
		snprintf(buf, size, "vanished kernel: not in the current profile");
		break;
	case GPUPROJ_GATE_UNPROJECTED:
		snprintf(buf, size, "not projected: %s", c->why ? c->why : "");
		break;
	case GPUPROJ_GATE_NOT_COMPARABLE:
		snprintf(buf, size, "not comparable: %s", c->why ? c->why : "");
		break;
	case GPUPROJ_GATE_OK:
	case GPUPROJ_GATE_REGRESSED:
	case GPUPROJ_GATE_NOISE:
	case GPUPROJ_GATE_IMPROVED:
	case GPUPROJ_GATE_SMALL:
		return NULL;
	}
	return buf;
}

static char *
finish(struct strbuf *sb, char **ret)
{
	if (sb->oom) {
		strbuf_free(sb);
		return NULL;
	}
	*ret = strbuf_steal(sb);
	return *ret;
}

static void
junit_case(struct strbuf *sb, const char *classname, const char *name, const char *failure,
	   const char *skipped, const char *out)
{
	strbuf_append(sb, "    <testcase classname=\"");
	xml_escape(sb, classname);
	strbuf_append(sb, "\" name=\"");
	xml_escape(sb, name);
	strbuf_append(sb, "\">\n");
	if (failure) {
		/* The numbers go into the failure's text, which CI systems show. */
		strbuf_append(sb, "      <failure type=\"regression\" message=\"");
		xml_escape(sb, failure);
		strbuf_append(sb, "\">");
		xml_escape(sb, out);
		strbuf_append(sb, "</failure>\n    </testcase>\n");
		return;
	}
	if (skipped) {
		strbuf_append(sb, "      <skipped message=\"");
		xml_escape(sb, skipped);
		strbuf_append(sb, "\"/>\n");
	}
	strbuf_append(sb, "      <system-out>");
	xml_escape(sb, out);
	strbuf_append(sb, "</system-out>\n    </testcase>\n");
}

static void
junit_property(struct strbuf *sb, const char *name, const char *value)
{
	strbuf_append(sb, "      <property name=\"");
	xml_escape(sb, name);
	strbuf_append(sb, "\" value=\"");
	xml_escape(sb, value);
	strbuf_append(sb, "\"/>\n");
}

static bool
is_skip(enum gpuproj_gate_status s)
{
	return s == GPUPROJ_GATE_NEW || s == GPUPROJ_GATE_VANISHED ||
	       s == GPUPROJ_GATE_UNPROJECTED || s == GPUPROJ_GATE_NOT_COMPARABLE;
}

/* The test case's per-column lines: "COLUMN: numbers" each. */
static void
junit_columns(struct strbuf *sb, const struct gpuproj_gate_result *r,
	      const struct gpuproj_gate_kernel *gk)
{
	size_t col;

	for (col = 0; col < r->n_columns; col++) {
		strbuf_printf(sb, "%s%s: ", col ? "\n" : "", r->columns[col].label);
		if (gk)
			describe_kernel_cell(sb, r, gk, col);
		else
			describe_run_cell(sb, r, col);
	}
}

/*
 * A case is skipped when no column compared it (new, vanished, or not
 * projected nor comparable anywhere); the message is the first column's.
 */
static const char *
case_skip(const struct gpuproj_gate_result *r, const struct gpuproj_gate_kernel *gk,
	  char *buf, size_t size)
{
	size_t col;

	for (col = 0; col < r->n_columns; col++) {
		if (!is_skip(gk ? gk->cells[col].status : r->columns[col].run.status))
			return NULL;
	}
	return skip_message(gk ? &gk->cells[0] : &r->columns[0].run, buf, size);
}

/* The finding of kernel i (SIZE_MAX: the whole run), or NULL. */
static const struct gpuproj_gate_finding *
finding_of(const struct gpuproj_gate_result *r, size_t i)
{
	size_t f;

	for (f = 0; f < r->n_findings; f++) {
		if (r->findings[f].kernel == i)
			return &r->findings[f];
	}
	return NULL;
}

int
gpuproj_gate_junit(const struct gpuproj_gate_result *r, char **ret)
{
	const struct gpuproj_gate_options *o;
	struct strbuf sb;
	size_t col, i, skipped = 0;
	char buf[64], label[1024], sk[320];

	if (!r || !ret || !r->columns)
		return GPUPROJ_E_INVAL;
	o = &r->options;
	for (i = 0; i <= r->n_kernels; i++)
		skipped += case_skip(r, i < r->n_kernels ? &r->kernels[i] : NULL, sk,
				     sizeof(sk)) != NULL;
	strbuf_init(&sb);
	strbuf_printf(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<testsuites name=\"gpuproj gate\" tests=\"%zu\" failures=\"%zu\" "
		      "skipped=\"%zu\" errors=\"0\">\n", 1 + r->n_kernels, r->n_findings,
		      skipped);
	strbuf_printf(&sb, "  <testsuite name=\"gpuproj gate\" tests=\"%zu\" failures=\"%zu\" "
		      "skipped=\"%zu\" errors=\"0\">\n    <properties>\n", 1 + r->n_kernels,
		      r->n_findings, skipped);
	junit_property(&sb, "baseline", o->baseline_label ? o->baseline_label : "baseline");
	junit_property(&sb, "current", o->current_label ? o->current_label : "current");
	junit_property(&sb, "model", gpuproj_model_name(o->model));
	snprintf(buf, sizeof(buf), "%g", o->max_regression * 100);
	junit_property(&sb, "max_regression_pct", buf);
	snprintf(buf, sizeof(buf), "%g", o->kernel_max_regression * 100);
	junit_property(&sb, "kernel_max_regression_pct", buf);
	snprintf(buf, sizeof(buf), "%g", o->noise_k);
	junit_property(&sb, "noise_k", buf);
	for (col = 0; col < r->n_columns; col++) {
		snprintf(buf, sizeof(buf), "%.17g", r->columns[col].min_time_ns);
		strbuf_append(&sb, "      <property name=\"min_time_ns: ");
		xml_escape(&sb, r->columns[col].label);
		strbuf_append(&sb, "\" value=\"");
		xml_escape(&sb, buf);
		strbuf_append(&sb, "\"/>\n");
	}
	for (i = 0; i < r->n_warnings; i++)
		junit_property(&sb, "warning", r->warnings[i]);
	strbuf_append(&sb, "    </properties>\n");
	/* The whole run first, then each kernel, longest first: one case each. */
	for (i = 0; i <= r->n_kernels; i++) {
		const struct gpuproj_gate_kernel *gk = i ? &r->kernels[i - 1] : NULL;
		const struct gpuproj_gate_finding *f = finding_of(r, gk ? i - 1 : SIZE_MAX);
		struct strbuf out;

		strbuf_init(&out);
		junit_columns(&out, r, gk);
		if (gk)
			gpuproj_gate_kernel_label(gk->base ? gk->base : gk->cur, label, sizeof(label));
		junit_case(&sb, "gpuproj gate", gk ? label : "(whole run)", f ? f->text : NULL,
			   f ? NULL : case_skip(r, gk, sk, sizeof(sk)), out.buf ? out.buf : "");
		if (out.oom)
			sb.oom = true;
		strbuf_free(&out);
	}
	strbuf_append(&sb, "  </testsuite>\n</testsuites>\n");
	return finish(&sb, ret) ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
}

/*
 * "PASS", or the findings: "FAIL: 2 findings (1 kernel and the whole run;
 * 4 regressed cells)".
 */
static void
verdict(const struct gpuproj_gate_result *r, char *buf, size_t size)
{
	size_t kernels = r->n_findings;
	bool run = r->n_findings && r->findings[r->n_findings - 1].kernel == SIZE_MAX;
	char what[96];

	if (!r->regression) {
		snprintf(buf, size, "PASS");
		return;
	}
	kernels -= run;
	if (kernels)
		snprintf(what, sizeof(what), "%zu kernel%s%s", kernels, kernels == 1 ? "" : "s",
			 run ? " and the whole run" : "");
	else
		snprintf(what, sizeof(what), "the whole run");
	snprintf(buf, size, "FAIL: %zu finding%s (%s; %zu regressed cell%s)", r->n_findings,
		 r->n_findings == 1 ? "" : "s", what, r->n_regressed,
		 r->n_regressed == 1 ? "" : "s");
}

static size_t
count_status(const struct gpuproj_gate_result *r, enum gpuproj_gate_status s)
{
	size_t n = 0, i, col;

	for (i = 0; i < r->n_kernels; i++) {
		for (col = 0; col < r->n_columns; col++)
			n += r->kernels[i].cells[col].status == s;
	}
	return n;
}

static void
md_cell_table(struct strbuf *sb, const struct gpuproj_gate_result *r,
	      enum gpuproj_gate_status s, bool noise)
{
	size_t i, col;
	char label[1024], a[32], b[32], c[32], d[32];

	strbuf_printf(sb, "| kernel | GPU | baseline | current | change | %s |\n"
		      "|:--|:--|--:|--:|--:|--:|\n", noise ? "noise band" : "kernel time");
	for (i = 0; i < r->n_kernels; i++) {
		const struct gpuproj_gate_kernel *gk = &r->kernels[i];

		for (col = 0; col < r->n_columns; col++) {
			const struct gpuproj_gate_cell *cell = &gk->cells[col];

			if (cell->status != s)
				continue;
			strbuf_append(sb, "| ");
			md_code(sb, gpuproj_gate_kernel_label(gk->base ? gk->base : gk->cur, label,
							       sizeof(label)), true);
			strbuf_append(sb, " | ");
			md_text(sb, r->columns[col].label);
			strbuf_printf(sb, " | %s | %s | %s | %s |\n", fmt_t(cell->base_ns, a, sizeof(a)),
				      fmt_t(cell->cur_ns, b, sizeof(b)), pct(cell->change, c, sizeof(c)),
				      noise ? fmt_t(cell->noise_ns, d, sizeof(d))
					    : fmt_t(fmax(cell->base_total_ns, cell->cur_total_ns),
						    d, sizeof(d)));
		}
	}
	strbuf_append(sb, "\n");
}

/*
 * Keep the Markdown under GPUPROJ_GATE_MD_MAX: a GitHub Actions job summary
 * holds 1 MiB ($GITHUB_STEP_SUMMARY; a larger one is refused and the step
 * shows an error), a GitLab merge-request note 1,000,000 characters. Table
 * rows past the budget are left out (headings, paragraphs, table headers and
 * <details> stay, so the counts in the headings still tell what there is),
 * and a note says how many and where every kernel is. The note goes before
 * the first table, where a reader sees it.
 */
static bool
md_cap(struct strbuf *sb, size_t max)
{
	const size_t reserve = 2048;
	struct strbuf out;
	const char *p = sb->buf, *first;
	size_t dropped = 0;
	char note[512];

	if (!sb->buf || sb->len <= max)
		return true;
	strbuf_init(&out);
	first = strstr(p, "\n### ");
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl + 1 - p) : strlen(p);
		const char *next = p + len;
		/* A table row: not a header (followed by its |:-- separator) nor the separator. */
		bool row = p[0] == '|' && p[1] != ':' && p[1] != '-' &&
			   !(next[0] == '|' && (next[1] == ':' || next[1] == '-'));

		if (p == first + 1) {
			/* The note's place: filled in below, once the count is known. */
			strbuf_append(&out, "\x01");
		}
		if (row && out.len + len > max - reserve)
			dropped++;
		else
			strbuf_appendn(&out, p, len);
		p = next;
	}
	snprintf(note, sizeof(note), "> **Cut:** %zu table row%s left out to keep this summary "
		 "under %zu KiB (a GitHub Actions job summary holds 1 MiB, a GitLab "
		 "merge-request note 1,000,000 characters); the JUnit report and the command's "
		 "output list every kernel.\n\n", dropped, dropped == 1 ? " was" : "s were",
		 max / 1024);
	strbuf_free(sb);
	strbuf_init(sb);
	if (out.oom) {
		strbuf_free(&out);
		sb->oom = true;
		return false;
	}
	for (p = out.buf; *p; p++) {
		if (*p == '\x01')
			strbuf_append(sb, note);
		else
			strbuf_appendn(sb, p, 1);
	}
	if (!first)
		strbuf_append(sb, note);
	strbuf_free(&out);
	return !sb->oom;
}

int
gpuproj_gate_markdown(const struct gpuproj_gate_result *r, char **ret)
{
	const struct gpuproj_gate_options *o;
	struct strbuf sb;
	size_t i, col, n, unseen = 0;
	char a[160], b[32], c[32], d[32], mt[80], label[1024];

	if (!r || !ret || !r->columns)
		return GPUPROJ_E_INVAL;
	o = &r->options;
	strbuf_init(&sb);
	verdict(r, a, sizeof(a));
	strbuf_printf(&sb, "## gpuproj gate: %s\n\n", a);
	strbuf_append(&sb, "Baseline ");
	md_code(&sb, o->baseline_label ? o->baseline_label : "baseline", false);
	strbuf_printf(&sb, " (%s), current ", r->base_source->name);
	md_code(&sb, o->current_label ? o->current_label : "current", false);
	strbuf_printf(&sb, " (%s); model %s. A time regresses beyond +%s per kernel or "
		      "+%s for the whole run **and** beyond the noise band (%g combined standard "
		      "errors of the launch times); kernels under %s cannot fail.\n\n",
		      r->cur_source->name, gpuproj_model_name(o->model),
		      thr(o->kernel_max_regression, a, sizeof(a)), thr(o->max_regression, b, sizeof(b)),
		      o->noise_k, min_time_desc(o, mt, sizeof(mt)));
	if (o->metric == GPUPROJ_GATE_METRIC_WALL)
		strbuf_append(&sb, "The whole run is its wall time (`--metric wall`: kernels, copies "
			      "and host time, the profiles' timelines replayed).\n\n");
	for (i = 0; i < r->n_warnings; i++) {
		strbuf_append(&sb, "> **Warning:** ");
		md_text(&sb, r->warnings[i]);
		strbuf_append(&sb, "\n\n");
	}
	{
		double cuda, tensor[GPUPROJ_TPREC_COUNT];
		char mix[256];

		if (gpuproj_profile_flop_mix(r->cur, &cuda, tensor)) {
			strbuf_append(&sb, "FLOP mix of the current run: ");
			md_text(&sb, gpuproj_flop_mix_text(cuda, tensor, mix, sizeof(mix)));
			strbuf_append(&sb, ".\n\n");
		}
	}
	if (r->cur_source->provisional) {
		strbuf_printf(&sb, "> **Note:** the source GPU %s is not in targets.yaml: its "
			      "projections use a provisional entry (basis %s) derived from the "
			      "driver's device attributes and the per-SM figures of ",
			      r->cur_source->name, r->cur_source->provisional);
		md_text(&sb, r->cur_source->derived_from);
		strbuf_append(&sb, " (`gpuproj targets derive` prints it).\n\n");
	}

	if (r->n_findings) {
		strbuf_printf(&sb, "### Findings (%zu)\n\nOne per cause; the tables below have "
			      "every GPU's numbers.\n\n", r->n_findings);
		for (i = 0; i < r->n_findings && i < GPUPROJ_GATE_MD_FINDINGS; i++) {
			strbuf_append(&sb, "- ");
			md_text(&sb, r->findings[i].text);
			strbuf_append(&sb, "\n");
		}
		if (r->n_findings > GPUPROJ_GATE_MD_FINDINGS)
			strbuf_printf(&sb, "- … and %zu more (the JUnit report and the command's "
				      "output have every finding)\n",
				      r->n_findings - GPUPROJ_GATE_MD_FINDINGS);
		strbuf_append(&sb, "\n");
	}
	strbuf_append(&sb, "### Whole run\n\n"
		      "| GPU | baseline | current | current interval | change | noise band | "
		      "result |\n|:--|--:|--:|--:|--:|--:|:--|\n");
	for (col = 0; col < r->n_columns; col++) {
		const struct gpuproj_gate_cell *cell = &r->columns[col].run;
		char iv[80], lo[32], hi[32];

		if (isnan(cell->cur_lo_ns))
			snprintf(iv, sizeof(iv), "-");
		else
			snprintf(iv, sizeof(iv), "%s – %s%s", fmt_t(cell->cur_lo_ns, lo, sizeof(lo)),
				 fmt_t(cell->cur_hi_ns, hi, sizeof(hi)),
				 cell->cur_interval_unseen ? " \\*" : "");
		unseen += cell->cur_interval_unseen;
		strbuf_append(&sb, "| ");
		md_text(&sb, r->columns[col].label);
		strbuf_printf(&sb, " | %s | %s | %s | %s | %s | %s%s%s |\n",
			      fmt_t(cell->base_ns, a, sizeof(a)), fmt_t(cell->cur_ns, b, sizeof(b)), iv,
			      pct(cell->change, c, sizeof(c)), fmt_t(cell->noise_ns, d, sizeof(d)),
			      cell->status == GPUPROJ_GATE_REGRESSED ? "**" : "",
			      gpuproj_gate_status_name(cell->status),
			      cell->status == GPUPROJ_GATE_REGRESSED ? "**" : "");
	}
	if (unseen)
		strbuf_append(&sb, "\n\\* " REPORT_UNSEEN_NOTE "\n");
	strbuf_append(&sb, "\n");

	n = count_status(r, GPUPROJ_GATE_REGRESSED);
	if (n) {
		strbuf_printf(&sb, "### Regressions (%zu)\n\nPer launch; measured on the source GPU, "
			      "projected on the others.\n\n", n);
		md_cell_table(&sb, r, GPUPROJ_GATE_REGRESSED, true);
	}
	n = count_status(r, GPUPROJ_GATE_IMPROVED);
	if (n) {
		strbuf_printf(&sb, "### Improvements (%zu)\n\n", n);
		md_cell_table(&sb, r, GPUPROJ_GATE_IMPROVED, true);
	}
	if (r->n_new || r->n_vanished) {
		int pass;

		for (pass = 0; pass < 2; pass++) {
			size_t cnt = pass ? r->n_vanished : r->n_new;

			if (!cnt)
				continue;
			strbuf_printf(&sb, "### %s kernels (%zu)\n\nCounted in the whole-run totals; "
				      "they cannot fail on their own.\n\n"
				      "| kernel | launches | time per launch | total time |\n"
				      "|:--|--:|--:|--:|\n", pass ? "Vanished" : "New", cnt);
			for (i = 0; i < r->n_kernels; i++) {
				const struct gpuproj_kernel *k = pass ? r->kernels[i].base
								      : r->kernels[i].cur;

				if ((pass ? r->kernels[i].cur : r->kernels[i].base) || !k)
					continue;
				strbuf_append(&sb, "| ");
				md_code(&sb, gpuproj_gate_kernel_label(k, label, sizeof(label)), true);
				strbuf_printf(&sb, " | %llu | %s | %s |\n",
					      (unsigned long long)k->launches,
					      fmt_t(gpuproj_kernel_mean_ns(k), a, sizeof(a)),
					      fmt_t(gpuproj_kernel_total_ns(k), b, sizeof(b)));
			}
			strbuf_append(&sb, "\n");
		}
	}
	n = 0;
	for (col = 0; col < r->n_columns; col++)
		n += r->columns[col].n_coarse;
	if (n) {
		strbuf_printf(&sb, "### Projected by sol, coarser (%zu)\n\nThe model lacks these "
			      "kernels' inputs (an export of Nsight Compute's default sections): "
			      "they are projected from throughput percentages, coarser.\n\n"
			      "| kernel | GPU |\n|:--|:--|\n", n);
		for (i = 0; i < r->n_kernels; i++) {
			for (col = 0; col < r->n_columns; col++) {
				const struct gpuproj_gate_kernel *gk = &r->kernels[i];

				if (!gk->cells[col].coarse)
					continue;
				strbuf_append(&sb, "| ");
				md_code(&sb, gpuproj_gate_kernel_label(gk->base ? gk->base : gk->cur,
								       label, sizeof(label)), true);
				strbuf_append(&sb, " | ");
				md_text(&sb, r->columns[col].label);
				strbuf_append(&sb, " |\n");
			}
		}
		strbuf_append(&sb, "\n");
	}
	if (r->n_unprojected) {
		strbuf_printf(&sb, "### Not projected (%zu)\n\nThe model cannot project these "
			      "kernels; the whole-run projections carry their measured time "
			      "unchanged.\n\n| kernel | GPU | why |\n|:--|:--|:--|\n", r->n_unprojected);
		for (i = 0; i < r->n_kernels; i++) {
			for (col = 0; col < r->n_columns; col++) {
				const struct gpuproj_gate_cell *cell = &r->kernels[i].cells[col];

				if (cell->status != GPUPROJ_GATE_UNPROJECTED)
					continue;
				strbuf_append(&sb, "| ");
				md_code(&sb, gpuproj_gate_kernel_label(r->kernels[i].base, label,
								       sizeof(label)), true);
				strbuf_append(&sb, " | ");
				md_text(&sb, r->columns[col].label);
				strbuf_append(&sb, " | ");
				md_text(&sb, cell->why ? cell->why : "");
				strbuf_append(&sb, " |\n");
			}
		}
		strbuf_append(&sb, "\n");
	}
	n = count_status(r, GPUPROJ_GATE_NOISE);
	if (n) {
		strbuf_printf(&sb, "<details><summary>Within noise (%zu): beyond the threshold, "
			      "inside the noise band</summary>\n\n", n);
		md_cell_table(&sb, r, GPUPROJ_GATE_NOISE, true);
		strbuf_append(&sb, "</details>\n\n");
	}
	n = count_status(r, GPUPROJ_GATE_SMALL);
	if (n) {
		strbuf_printf(&sb, "<details><summary>Below the minimum time (%zu): would regress, "
			      "too short to fail</summary>\n\n", n);
		md_cell_table(&sb, r, GPUPROJ_GATE_SMALL, false);
		strbuf_append(&sb, "</details>\n\n");
	}
	md_cap(&sb, GPUPROJ_GATE_MD_MAX);
	return finish(&sb, ret) ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
}

int
gpuproj_gate_print(FILE *out, const struct gpuproj_gate_result *r)
{
	const struct gpuproj_gate_options *o;
	size_t i, col, n;
	char a[32], b[32], c[32], d[32], e[32], f[32], mt[160], label[1024], shown[1024];
	char bl[512], cl[512];
	int pass;

	if (!out || !r || !r->columns)
		return GPUPROJ_E_INVAL;
	o = &r->options;
	verdict(r, mt, sizeof(mt));
	/*
	 * Text for a terminal or a CI log: names and file names are escaped
	 * (util.h term_text()); a kernel named "\rgpuproj gate: PASS" cannot
	 * overwrite the verdict line.
	 */
	fprintf(out, "gpuproj gate: %s (baseline %s, current %s, model %s)\n", mt,
		term_text_buf(o->baseline_label ? o->baseline_label : "baseline", bl, sizeof(bl)),
		term_text_buf(o->current_label ? o->current_label : "current", cl, sizeof(cl)),
		gpuproj_model_name(o->model));
	fprintf(out, "thresholds: whole run +%s, kernel +%s, beyond a noise band of %g standard "
		"errors; kernels under %s cannot fail\n\n", thr(o->max_regression, a, sizeof(a)),
		thr(o->kernel_max_regression, b, sizeof(b)), o->noise_k,
		min_time_desc(o, mt, sizeof(mt)));
	if (r->n_findings) {
		fprintf(out, "findings (%zu):\n", r->n_findings);
		for (i = 0; i < r->n_findings; i++) {
			char *t = term_strdup(r->findings[i].text);

			fprintf(out, "  %s\n", t ? t : "out of memory");
			free(t);
		}
		fprintf(out, "\n");
	}
	fprintf(out, "%-28s %12s %12s %9s %11s  %s\n",
		o->metric == GPUPROJ_GATE_METRIC_WALL ? "whole run (wall time)" : "whole run",
		"baseline", "current", "change", "noise band", "result");
	for (col = 0; col < r->n_columns; col++) {
		const struct gpuproj_gate_cell *cell = &r->columns[col].run;

		fprintf(out, "%-28s %12s %12s %9s %11s  %s%s%s\n", r->columns[col].label,
			fmt_t(cell->base_ns, a, sizeof(a)), fmt_t(cell->cur_ns, b, sizeof(b)),
			pct(cell->change, c, sizeof(c)), fmt_t(cell->noise_ns, d, sizeof(d)),
			gpuproj_gate_status_name(cell->status), cell->why ? ": " : "",
			cell->why ? cell->why : "");
	}
	for (pass = 0; pass < 4; pass++) {
		static const enum gpuproj_gate_status which[4] = {
			GPUPROJ_GATE_REGRESSED, GPUPROJ_GATE_NOISE, GPUPROJ_GATE_SMALL,
			GPUPROJ_GATE_UNPROJECTED,
		};
		static const char *const title[4] = {
			"regressions", "within noise (beyond the threshold, inside the noise band)",
			"below the minimum time (would regress, cannot fail)", "not projected",
		};

		n = count_status(r, which[pass]);
		if (!n)
			continue;
		fprintf(out, "\n%s (%zu):\n", title[pass], n);
		for (i = 0; i < r->n_kernels; i++) {
			for (col = 0; col < r->n_columns; col++) {
				const struct gpuproj_gate_cell *cell = &r->kernels[i].cells[col];

				if (cell->status != which[pass])
					continue;
				gpuproj_gate_kernel_label(r->kernels[i].base ? r->kernels[i].base
									     : r->kernels[i].cur,
							  label, sizeof(label));
				term_text_buf(label, shown, sizeof(shown));
				if (which[pass] == GPUPROJ_GATE_UNPROJECTED)
					fprintf(out, "  %s on %s: %s\n", shown, r->columns[col].label,
						cell->why ? cell->why : "");
				else
					fprintf(out, "  %s on %s: %s -> %s per launch, %s (noise band "
						"%s, kernel time %s)%s\n", shown, r->columns[col].label,
						fmt_t(cell->base_ns, a, sizeof(a)),
						fmt_t(cell->cur_ns, b, sizeof(b)),
						pct(cell->change, c, sizeof(c)),
						fmt_t(cell->noise_ns, d, sizeof(d)),
						fmt_t(fmax(cell->base_total_ns, cell->cur_total_ns),
						      e, sizeof(e)),
						cell->coarse ? " [sol, coarser]" : "");
			}
		}
	}
	for (col = n = 0; col < r->n_columns; col++)
		n += r->columns[col].n_coarse;
	if (n)
		fprintf(out, "\nprojected by sol, coarser (%zu kernel x GPU): the model lacks their "
			"inputs; projected from throughput percentages\n", n);
	for (pass = 0; pass < 2; pass++) {
		n = pass ? r->n_vanished : r->n_new;
		if (!n)
			continue;
		fprintf(out, "\n%s kernels (%zu, counted in the whole run):\n",
			pass ? "vanished" : "new", n);
		for (i = 0; i < r->n_kernels; i++) {
			const struct gpuproj_kernel *k = pass ? r->kernels[i].base : r->kernels[i].cur;

			if ((pass ? r->kernels[i].cur : r->kernels[i].base) || !k)
				continue;
			fprintf(out, "  %s: %llu launches, %s per launch, %s in total (measured)\n",
				term_text_buf(gpuproj_gate_kernel_label(k, label, sizeof(label)), shown,
					      sizeof(shown)),
				(unsigned long long)k->launches,
				fmt_t(gpuproj_kernel_mean_ns(k), a, sizeof(a)),
				fmt_t(gpuproj_kernel_total_ns(k), f, sizeof(f)));
		}
	}
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

int
gpuproj_gate_write(const char *path, const char *text, struct gpuproj_error *reterr)
{
	if (!path || !text)
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	return file_write_atomic(path, text, strlen(text), reterr);
}
