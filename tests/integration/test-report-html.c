/* SPDX-License-Identifier: MIT */
/*
 * The procurement report (report-html.h, `gpuproj report`): sections of the
 * HTML and Markdown, ranking numbers equal to gpuproj_project_run()'s,
 * escaping of kernel names, price and energy only where targets.yaml has
 * them, several profiles summed, the models-disagree section, reproducible
 * dates, the CLI's exit statuses and that a failure writes nothing.
 *
 * Fixtures: tests/data/profile-test.json + targets-test.yaml (hand-checked
 * numbers: "stream" projects from 1.2 ms on SrcGPU to 300 µs on TgtGPU),
 * tests/data/report-rank{0,1}.json (synthetic LULESH-shaped profiles on a
 * V100) with the built-in targets.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/report.h>
#include <gpuproj/target.h>

#include "common.h"

#define DATE "2025-06-01"

static struct gpuproj_targets *
load_targets(const char *fixture)
{
	struct gpuproj_targets *t = NULL;
	struct gpuproj_error err = { 0 };

	if (fixture)
		ck_assert_msg(gpuproj_targets_load(test_data(fixture), &t, &err) == GPUPROJ_OK, "%s",
			      err.message);
	else
		ck_assert_int_eq(gpuproj_targets_load_builtin(&t, &err), GPUPROJ_OK);
	return t;
}

static struct gpuproj_profile *
load_profile(const char *fixture)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };

	ck_assert_msg(gpuproj_profile_load(test_data(fixture), &p, &err) == GPUPROJ_OK, "%s",
		      err.message);
	return p;
}

static struct gpuproj_report_doc *
make_doc(const struct gpuproj_profile *const *p, size_t n, const struct gpuproj_targets *t,
	 const char *const *labels)
{
	struct gpuproj_report_input in[4] = { { 0 } };
	struct gpuproj_report_doc_options opt = { 0 };
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	size_t i;

	ck_assert_uint_le(n, 4);
	for (i = 0; i < n; i++) {
		in[i].profile = p[i];
		in[i].label = labels ? labels[i] : NULL;
	}
	/* hroof explicitly: the hand-checked numbers of the fixtures are hroof's. */
	opt.model = gpuproj_model_find("hroof");
	opt.date = DATE;
	opt.no_charts = true;
	opt.targets_origin = "test fixture";
	ck_assert_msg(gpuproj_report_doc_new(in, n, t, &opt, &doc, &err) == GPUPROJ_OK, "%s",
		      err.message);
	return doc;
}

static char *
html_of(const struct gpuproj_report_doc *doc)
{
	char *text = NULL;
	size_t len = 0;
	struct gpuproj_error err = { 0 };

	ck_assert_msg(gpuproj_report_doc_html(doc, &text, &len, &err) == GPUPROJ_OK, "%s",
		      err.message);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

static char *
md_of(const struct gpuproj_report_doc *doc)
{
	char *text = NULL;
	size_t len = 0;

	ck_assert_int_eq(gpuproj_report_doc_markdown(doc, &text, &len, NULL), GPUPROJ_OK);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

/* The value of attribute `attr` in the ranking row of `target` (table `id`). */
static double
row_attr(const char *html, const char *table_id, const char *target, const char *attr)
{
	char key[256], *at;
	const char *table, *row, *end;
	double v;

	snprintf(key, sizeof(key), "id=\"%s\"", table_id);
	table = strstr(html, key);
	ck_assert_msg(table != NULL, "no table %s", table_id);
	end = strstr(table, "</table>");
	snprintf(key, sizeof(key), "data-target=\"%s\"", target);
	row = strstr(table, key);
	ck_assert_msg(row && row < end, "no row for %s in %s", target, table_id);
	snprintf(key, sizeof(key), "%s=\"", attr);
	at = strstr(row, key);
	ck_assert_msg(at != NULL, "no %s", attr);
	v = strtod(at + strlen(key), NULL);
	return v;
}

START_TEST(sections_present)
{
	struct gpuproj_targets *t = load_targets("targets-test.yaml");
	struct gpuproj_profile *p = load_profile("profile-test.json");
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_report_doc *doc = make_doc(ps, 1, t, NULL);
	char *html = html_of(doc), *md = md_of(doc);
	static const char *const html_need[] = {
		"<!DOCTYPE html>", "<section id=\"run\">", "<section id=\"ranking\">",
		"id=\"ranking-combined\"", "<section class=\"profile\" id=\"profile-1\">",
		"id=\"p1-kernels\"", "id=\"p1-matrix\"", "<section id=\"disagreement\">",
		"<section id=\"assumptions\">", "<section id=\"sources\">", "@media print",
		"report of " DATE, "gpuproj " GPUPROJ_VERSION, "Test Source GPU", "SrcGPU",
		"invented numbers for tests", "Charts were left out",
	};
	static const char *const md_need[] = {
		"# Projected GPU time of ", "## The run", "## Ranking of target GPUs",
		"## Kernels of ", "## Where models disagree", "## Assumptions and limits",
		"## Sources of the target numbers", "| # | Target GPU |", "|--:|---|", DATE,
	};
	size_t i;

	for (i = 0; i < sizeof(html_need) / sizeof(html_need[0]); i++)
		ck_assert_msg(strstr(html, html_need[i]), "HTML lacks %s", html_need[i]);
	for (i = 0; i < sizeof(md_need) / sizeof(md_need[0]); i++)
		ck_assert_msg(strstr(md, md_need[i]), "Markdown lacks %s", md_need[i]);
	/* Self-contained: no script, no external reference. */
	ck_assert_ptr_null(strstr(html, "<script"));
	ck_assert_ptr_null(strstr(html, "src=\""));
	ck_assert_ptr_null(strstr(html, "http://"));
	ck_assert_ptr_null(strstr(html, "https://"));
	ck_assert_ptr_null(strstr(md, "]("));
	ck_assert_ptr_null(strstr(md, "<img"));
	/* What was profiled and what only timed: the incomplete kernel cannot be projected. */
	ck_assert_ptr_nonnull(strstr(html, "not projected: hroof needs"));
	ck_assert_ptr_nonnull(strstr(html, "data-launches=\"10\" data-profiled=\"1\""));
	free(html);
	free(md);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/* The ranking carries gpuproj_project_run()'s numbers, unchanged, and the HTML shows them. */
START_TEST(ranking_equals_project_run)
{
	struct gpuproj_targets *t = load_targets("targets-test.yaml");
	struct gpuproj_profile *p = load_profile("profile-test.json");
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_report_doc *doc = make_doc(ps, 1, t, NULL);
	const struct gpuproj_target *src = gpuproj_targets_find(t, "SrcGPU");
	const struct gpuproj_report_rank *rows;
	char *html = html_of(doc);
	size_t n, i;

	rows = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	ck_assert_uint_eq(n, gpuproj_targets_count(t));
	for (i = 0; i < n; i++) {
		struct gpuproj_run_projection run = { 0 };

		ck_assert_int_eq(gpuproj_project_run(p, gpuproj_model_find("hroof"), src,
						     rows[i].target, NULL, &run), GPUPROJ_OK);
		ck_assert(rows[i].point_ns == run.point_ns);
		ck_assert(rows[i].lo_ns == run.lo_ns);
		ck_assert(rows[i].hi_ns == run.hi_ns);
		ck_assert(rows[i].source_ns == run.source_ns);
		ck_assert_uint_eq(rows[i].n_unprojected, run.n_unprojected);
		ck_assert(rows[i].speedup == run.source_ns / run.point_ns);
		/* The HTML carries the exact value (%.17g) beside the human one. */
		ck_assert(row_attr(html, "ranking-combined", rows[i].target->name, "data-point-ns") ==
			  run.point_ns);
		ck_assert(row_attr(html, "ranking-combined", rows[i].target->name, "data-lo-ns") ==
			  run.lo_ns);
		ck_assert(row_attr(html, "ranking-combined", rows[i].target->name, "data-hi-ns") ==
			  run.hi_ns);
		gpuproj_run_projection_clear(&run);
	}
	/* Fastest first: TgtGPU (stream 12 ms → 3 ms, plus the carried 5 µs). */
	ck_assert_str_eq(rows[0].target->name, "TgtGPU");
	ck_assert_double_eq_tol(rows[0].point_ns, 10 * 300000.0 + 5000.0, 1e-6);
	ck_assert(!rows[0].is_source);
	ck_assert(rows[1].is_source);
	ck_assert_double_eq_tol(rows[1].speedup, 1.0, 1e-12);
	ck_assert_uint_eq(rows[0].n_unprojected, 1);
	ck_assert_double_eq_tol(rows[0].unprojected_source_ns, 5000.0, 1e-9);
	/* The per-profile ranking of a single profile is the combined one. */
	{
		const struct gpuproj_report_rank *pr = gpuproj_report_doc_ranking(doc, 0, &n);

		ck_assert_ptr_nonnull(pr);
		ck_assert(pr[0].point_ns == rows[0].point_ns);
		ck_assert_ptr_null(gpuproj_report_doc_ranking(doc, 1, &n));
		ck_assert_uint_eq(n, 0);
	}
	free(html);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/* A kernel name and labels with <, >, & and " are escaped in HTML and safe in Markdown. */
START_TEST(escaping)
{
	static const char evil[] = "k<T&U>\"x\"|`y`";
	struct gpuproj_targets *t = load_targets("targets-test.yaml");
	struct gpuproj_profile *p = gpuproj_profile_new();
	const struct gpuproj_profile *ps[] = { p };
	const char *labels[] = { "<script>alert(1)</script>.json" };
	struct gpuproj_signature sig = { .name = evil, .grid = { 64, 1, 1 }, .block = { 128, 1, 1 } };
	struct gpuproj_kernel *k;
	struct gpuproj_report_doc *doc;
	char *html, *md;

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(gpuproj_profile_set_device(p, "Test Source GPU", NULL, NULL, 0, 0, 0, NAN),
			 GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_profile_set_process(p, "app<&>\"", NULL, -1, -1, NULL),
			 GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &k), GPUPROJ_OK);
	gpuproj_kernel_add_duration(k, 1000.0);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_DRAM, 1e5);
	doc = make_doc(ps, 1, t, labels);
	html = html_of(doc);
	md = md_of(doc);

	ck_assert_ptr_null(strstr(html, evil));
	ck_assert_ptr_null(strstr(html, "<T&U>"));
	ck_assert_ptr_nonnull(strstr(html, "k&lt;T&amp;U&gt;&quot;x&quot;|`y`"));
	ck_assert_ptr_null(strstr(html, "<script>"));
	ck_assert_ptr_nonnull(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;.json"));
	ck_assert_ptr_null(strstr(html, "app<&>"));
	ck_assert_ptr_nonnull(strstr(html, "app&lt;&amp;&gt;&quot;"));
	/* Markdown: the name in a code span whose fence outruns its backticks, '|' escaped. */
	ck_assert_ptr_nonnull(strstr(md, "`` k<T&U>\"x\"\\|`y` ``"));
	ck_assert_ptr_null(strstr(md, "<script>"));
	ck_assert_ptr_nonnull(strstr(md, "&lt;script&gt;alert(1)&lt;/script&gt;.json"));
	free(html);
	free(md);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * targets-test.yaml: TgtGPU has price_usd 10000 and tdp_w 300, SrcGPU only
 * tdp_w 100 (price null). tdp_w is required by the schema, so energy is
 * always known; the price is not.
 */
START_TEST(price_and_energy_only_when_known)
{
	struct gpuproj_targets *t = load_targets("targets-test.yaml");
	struct gpuproj_profile *p = load_profile("profile-test.json");
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_report_doc *doc = make_doc(ps, 1, t, NULL);
	const struct gpuproj_report_rank *rows;
	char *html = html_of(doc), *md = md_of(doc), *row, *end;
	size_t n, i;

	rows = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	for (i = 0; i < n; i++) {
		const struct gpuproj_report_rank *r = &rows[i];

		if (strcmp(r->target->name, "TgtGPU") == 0) {
			ck_assert_double_eq_tol(r->cost_usd_s, r->point_ns * 1e-9 * 10000, 1e-12);
			ck_assert_double_eq_tol(r->energy_j, r->point_ns * 1e-9 * 300, 1e-12);
		} else {
			ck_assert_str_eq(r->target->name, "SrcGPU");
			ck_assert(isnan(r->cost_usd_s));
			ck_assert_double_eq_tol(r->energy_j, r->point_ns * 1e-9 * 100, 1e-12);
		}
	}
	/* HTML: TgtGPU shows both numbers, SrcGPU "unknown" for the price only. */
	row = strstr(html, "data-target=\"TgtGPU\"");
	ck_assert_ptr_nonnull(row);
	end = strstr(row, "</tr>");
	*end = '\0';
	ck_assert_ptr_null(strstr(row, "unknown"));
	ck_assert_ptr_nonnull(strstr(row, "USD·s"));
	ck_assert_ptr_nonnull(strstr(row, " J<"));
	*end = '<';
	row = strstr(html, "data-target=\"SrcGPU\"");
	ck_assert_ptr_nonnull(row);
	end = strstr(row, "</tr>");
	*end = '\0';
	ck_assert_ptr_nonnull(strstr(row, "data-usd-s=\"nan\">unknown</td>"));
	ck_assert_ptr_null(strstr(row, "data-j=\"nan\""));
	*end = '<';
	/* Markdown likewise, and both say what the numbers are. */
	ck_assert_ptr_nonnull(strstr(md, "| unknown | "));
	ck_assert_ptr_nonnull(strstr(md, "upper bound"));
	ck_assert_ptr_nonnull(strstr(html, "an upper bound"));
	free(html);
	free(md);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/* Two profiles: each projected separately, the combined ranking sums them. */
START_TEST(two_profiles_combined)
{
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p0 = load_profile("report-rank0.json");
	struct gpuproj_profile *p1 = load_profile("report-rank1.json");
	const struct gpuproj_profile *ps[] = { p0, p1 };
	const char *labels[] = { "rank0.json", "rank1.json" };
	struct gpuproj_report_doc *doc = make_doc(ps, 2, t, labels);
	const struct gpuproj_target *src = gpuproj_targets_find(t, "V100-PCIe-16GB");
	const struct gpuproj_report_rank *rows;
	char *html = html_of(doc), *md = md_of(doc);
	size_t n, i;

	ck_assert_ptr_nonnull(src);
	ck_assert_uint_eq(gpuproj_report_doc_profile_count(doc), 2);
	rows = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	ck_assert_uint_eq(n, gpuproj_targets_count(t));
	for (i = 0; i < n; i++) {
		struct gpuproj_run_projection r0 = { 0 }, r1 = { 0 };

		ck_assert_int_eq(gpuproj_project_run(p0, gpuproj_model_find("hroof"), src,
						     rows[i].target, NULL, &r0), GPUPROJ_OK);
		ck_assert_int_eq(gpuproj_project_run(p1, gpuproj_model_find("hroof"), src,
						     rows[i].target, NULL, &r1), GPUPROJ_OK);
		ck_assert(rows[i].point_ns == r0.point_ns + r1.point_ns);
		ck_assert(rows[i].lo_ns == r0.lo_ns + r1.lo_ns);
		ck_assert(rows[i].hi_ns == r0.hi_ns + r1.hi_ns);
		ck_assert(rows[i].source_ns == r0.source_ns + r1.source_ns);
		ck_assert_uint_eq(rows[i].n_unprojected, r0.n_unprojected + r1.n_unprojected);
		if (i)
			ck_assert(rows[i - 1].point_ns <= rows[i].point_ns);
		ck_assert(row_attr(html, "ranking-combined", rows[i].target->name,
				   "data-point-ns") == rows[i].point_ns);
		ck_assert(row_attr(html, "ranking-p2", rows[i].target->name, "data-point-ns") ==
			  r1.point_ns);
		gpuproj_run_projection_clear(&r0);
		gpuproj_run_projection_clear(&r1);
	}
	ck_assert_ptr_nonnull(strstr(html, "sums over the profiles"));
	ck_assert_ptr_nonnull(strstr(html, "id=\"profile-1\""));
	ck_assert_ptr_nonnull(strstr(html, "id=\"profile-2\""));
	ck_assert_ptr_nonnull(strstr(html, "Profile 2: rank1.json"));
	ck_assert_ptr_nonnull(strstr(html, "MPI rank 1"));
	ck_assert_ptr_nonnull(strstr(html, "(2 profiles)"));
	ck_assert_ptr_nonnull(strstr(md, "**sums over the profiles**"));
	ck_assert_ptr_nonnull(strstr(md, "## Profile 2: rank1.json"));
	/* Every target's sources are listed, with their basis. */
	for (i = 0; i < n; i++) {
		char key[160];

		snprintf(key, sizeof(key), "<caption>%s", rows[i].target->name);
		ck_assert_msg(strstr(html, key), "no sources table for %s", rows[i].target->name);
	}
	ck_assert_ptr_nonnull(strstr(html, "<td>measured</td>"));
	ck_assert_ptr_nonnull(strstr(html, "<td>datasheet</td>"));
	ck_assert_ptr_nonnull(strstr(html, "<dt>[VL]</dt>"));
	free(html);
	free(md);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p0);
	gpuproj_profile_free(p1);
	gpuproj_targets_free(t);
}
END_TEST

START_TEST(models_disagree_section)
{
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p = load_profile("report-rank0.json");
	const struct gpuproj_profile *ps[] = { p };
	struct gpuproj_report_doc *doc = make_doc(ps, 1, t, NULL);
	char *html = html_of(doc), *md = md_of(doc);

	if (gpuproj_model_count() == 1) {
		ck_assert_uint_eq(gpuproj_report_doc_disagreements(doc), 0);
		ck_assert_ptr_nonnull(strstr(html, "Only one projection model (hroof) is registered"));
		ck_assert_ptr_nonnull(strstr(md, "Only one projection model (hroof) is registered"));
	} else {
		/* Every model is compared; flagged kernels or an explicit "none". */
		ck_assert_ptr_nonnull(strstr(html, "class=\"per-model\""));
		if (gpuproj_report_doc_disagreements(doc))
			ck_assert_ptr_nonnull(strstr(html, "class=\"disagree\""));
		else
			ck_assert_ptr_nonnull(strstr(html, "No kernel is flagged"));
	}
	{
		char want[2][64];

		snprintf(want[0], sizeof(want[0]), "factor of %.0f",
			 GPUPROJ_MODEL_DISAGREEMENT_FACTOR);
		snprintf(want[1], sizeof(want[1]), "more than %.0f× the fastest",
			 GPUPROJ_MODEL_DISAGREEMENT_FACTOR);
		ck_assert(strstr(html, want[0]) || strstr(html, want[1]));
	}
	free(html);
	free(md);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/* With PLplot: every chart is an inline <svg> with prefixed ids (skip without PLplot). */
START_TEST(html_with_charts)
{
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p = load_profile("report-rank0.json");
	struct gpuproj_report_input in = { p, "rank0.json", NULL };
	struct gpuproj_report_doc_options opt = { 0 };
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	char *html = NULL;
	const char *s;
	size_t n_svg = 0;
	int r;

	opt.date = DATE;
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, &opt, &doc, &err), GPUPROJ_OK);
	r = gpuproj_report_doc_html(doc, &html, NULL, &err);
	if (r == GPUPROJ_E_UNSUPPORTED) {
		test_skip(err.message);
		goto out;
	}
	ck_assert_msg(r == GPUPROJ_OK, "%s", err.message);
	/* No model named: the default one ranks. */
	{
		char want[64];

		snprintf(want, sizeof(want), "model %s", gpuproj_model_name(gpuproj_model_default()));
		ck_assert_ptr_nonnull(strstr(html, want));
	}
	for (s = html; (s = strstr(s, "<svg ")); s++)
		n_svg++;
	/* 3 rooflines, the quadrant split and the instruction roofline. */
	ck_assert_uint_eq(n_svg, 5);
	ck_assert_ptr_nonnull(strstr(html, "<svg id=\"p1-roofline-1\" class=\"chart-svg\""));
	ck_assert_ptr_nonnull(strstr(html, "id=\"p1-quadrant\""));
	ck_assert_ptr_nonnull(strstr(html, "id=\"p1-irm\""));
	ck_assert_ptr_null(strstr(html, "<?xml"));
	ck_assert_ptr_null(strstr(html, "id=\"text-clipping"));
	ck_assert_ptr_null(strstr(html, "<script"));
out:
	free(html);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * Issue 21: the hierarchical rooflines of a kernel with tensor work draw its
 * tensor-pipe ceilings (Okabe–Ito purple, #CC79A7, nowhere else in a report
 * of a profile without tensor work) and the caption names them with their
 * rates: targets-test.yaml's SrcGPU peak_tensor.fp16 20 TFLOP/s, TgtGPU
 * max_tensor.fp16 60 (the measured rate goes before its peak, 80).
 */
START_TEST(roofline_tensor_roofs)
{
	struct gpuproj_targets *t = load_targets("targets-test.yaml");
	struct gpuproj_profile *p = load_profile("profile-tensor.json");
	struct gpuproj_profile *q = load_profile("report-rank0.json");
	struct gpuproj_report_input in = { p, "tensor.json", NULL };
	struct gpuproj_report_doc_options opt = { 0 };
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	const char *target = "TgtGPU";
	char *html = NULL, *end;
	const char *svg;
	int r;

	opt.date = DATE;
	opt.model = gpuproj_model_find("hroof");
	opt.target_names = &target;
	opt.n_target_names = 1;
	ck_assert_msg(gpuproj_report_doc_new(&in, 1, t, &opt, &doc, &err) == GPUPROJ_OK, "%s",
		      err.message);
	r = gpuproj_report_doc_html(doc, &html, NULL, &err);
	if (r == GPUPROJ_E_UNSUPPORTED) {
		test_skip(err.message);
		goto out;
	}
	ck_assert_msg(r == GPUPROJ_OK, "%s", err.message);
	svg = strstr(html, "<svg id=\"p1-roofline-1\"");
	ck_assert_ptr_nonnull(svg);
	end = strstr(svg, "</svg>");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	ck_assert_ptr_nonnull(strstr(svg, "#CC79A7"));
	*end = '<';
	ck_assert_ptr_nonnull(strstr(html, "Purple: the tensor-pipe ceilings of the kernel's tensor "
					   "work (max_tensor, else peak_tensor), on SrcGPU tensor "
					   "fp16 20 TFLOP/s; on TgtGPU tensor fp16 60 TFLOP/s."));
	free(html);
	html = NULL;
	gpuproj_report_doc_free(doc);
	doc = NULL;

	/* Without tensor work: no purple anywhere, no such sentence. */
	in.profile = q;
	opt.target_names = NULL;
	opt.n_target_names = 0;
	gpuproj_targets_free(t);
	t = load_targets(NULL);
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, &opt, &doc, &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_report_doc_html(doc, &html, NULL, &err), GPUPROJ_OK);
	ck_assert_ptr_null(strstr(html, "#CC79A7"));
	ck_assert_ptr_null(strstr(html, "tensor-pipe ceilings"));
out:
	free(html);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_profile_free(q);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * Issue 21: with tensor work, the rankings (Markdown and HTML) say where it
 * runs on each target: a Pascal GPU has no tensor path, so FP16 tensor work
 * runs there on CUDA-core FP32 (gpuproj_tensor_path()); an H100 runs it on
 * its own. A profile without tensor work gets no such column.
 */
START_TEST(ranking_tensor_paths)
{
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p = load_profile("profile-tensor.json");
	struct gpuproj_profile *q = load_profile("report-rank0.json");
	struct gpuproj_report_input in = { p, "tensor.json", "A100-SXM4-40GB" };
	const char *names[] = { "H100-SXM5-80GB", "Tesla-P100-PCIe-16GB" };
	struct gpuproj_report_doc_options opt = { 0 };
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	char *md, *html, *line;

	opt.date = DATE;
	opt.no_charts = true;
	opt.target_names = names;
	opt.n_target_names = 2;
	ck_assert_msg(gpuproj_report_doc_new(&in, 1, t, &opt, &doc, &err) == GPUPROJ_OK, "%s",
		      err.message);
	md = md_of(doc);
	ck_assert_ptr_nonnull(strstr(md, "| Carried unprojected | Tensor work runs on |\n"));
	line = strstr(md, "| Tesla-P100-PCIe-16GB |");
	ck_assert_ptr_nonnull(line);
	ck_assert(strstr(line, "| fp16 on CUDA-core fp32 |\n") &&
		  strstr(line, "| fp16 on CUDA-core fp32 |\n") < strchr(line, '\n'));
	line = strstr(md, "| H100-SXM5-80GB |");
	ck_assert_ptr_nonnull(line);
	ck_assert(strstr(line, "| own tensor paths |\n") &&
		  strstr(line, "| own tensor paths |\n") < strchr(line, '\n'));
	html = html_of(doc);
	ck_assert_ptr_nonnull(strstr(html, "<th>Tensor work runs on</th>"));
	ck_assert_ptr_nonnull(strstr(html, "<td>fp16 on CUDA-core fp32</td></tr>"));
	free(md);
	free(html);
	gpuproj_report_doc_free(doc);
	doc = NULL;

	in.profile = q;
	in.source = NULL;
	opt.target_names = NULL;
	opt.n_target_names = 0;
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, &opt, &doc, &err), GPUPROJ_OK);
	md = md_of(doc);
	html = html_of(doc);
	ck_assert_ptr_null(strstr(md, "Tensor work runs on"));
	ck_assert_ptr_null(strstr(html, "Tensor work runs on"));
	free(md);
	free(html);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_profile_free(q);
	gpuproj_targets_free(t);
}
END_TEST

START_TEST(date_is_reproducible)
{
	struct gpuproj_targets *t = load_targets("targets-test.yaml");
	struct gpuproj_profile *p = load_profile("profile-test.json");
	struct gpuproj_report_input in = { p, NULL, NULL };
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	char *a, *b;

	setenv("SOURCE_DATE_EPOCH", "86400", 1);
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, NULL, &doc, NULL), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_report_doc_markdown(doc, &a, NULL, NULL), GPUPROJ_OK);
	ck_assert_ptr_nonnull(strstr(a, "1970-01-02 00:00 UTC"));
	doc = gpuproj_report_doc_free(doc);
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, NULL, &doc, NULL), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_report_doc_markdown(doc, &b, NULL, NULL), GPUPROJ_OK);
	ck_assert_str_eq(a, b);
	doc = gpuproj_report_doc_free(doc);
	free(a);
	free(b);
	setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, NULL, &doc, &err), GPUPROJ_E_INVAL);
	ck_assert_ptr_null(doc);
	ck_assert_ptr_nonnull(strstr(err.message, "SOURCE_DATE_EPOCH"));
	unsetenv("SOURCE_DATE_EPOCH");
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

START_TEST(bad_inputs)
{
	struct gpuproj_targets *t = load_targets("targets-test.yaml");
	struct gpuproj_profile *p = load_profile("profile-test.json");
	struct gpuproj_report_input in = { p, NULL, NULL };
	struct gpuproj_report_doc_options opt = { 0 };
	const char *names[] = { "NoSuchGPU" };
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *path;

	ck_assert_int_eq(gpuproj_report_doc_new(&in, 0, t, NULL, &doc, &err), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, NULL, NULL, &doc, &err), GPUPROJ_E_INVAL);
	opt.target_names = names;
	opt.n_target_names = 1;
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, &opt, &doc, &err), GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.message, "NoSuchGPU"));
	in.source = "NoSuchGPU";
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, NULL, &doc, &err), GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_null(doc);
	in.source = NULL;
	/* A file that cannot be written: E_IO, nothing left behind. */
	opt.n_target_names = 0;
	opt.no_charts = true;
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, &opt, &doc, &err), GPUPROJ_OK);
	if (asprintf(&path, "%s/missing-dir/r.html", dir) < 0)
		abort();
	ck_assert_int_eq(gpuproj_report_doc_write(doc, path, NULL, &err), GPUPROJ_E_IO);
	ck_assert_int_eq(test_count_dir(dir), 0);
	ck_assert_int_eq(gpuproj_report_doc_write(doc, NULL, NULL, &err), GPUPROJ_E_INVAL);
	free(path);
	gpuproj_report_doc_free(doc);
	test_rmtree(dir);
	free(dir);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/* ---- the command ---- */

/* Arguments after `gpuproj report --targets targets-test.yaml`. */
static const char *const usage_cases[] = {
	"",                                         /* nothing */
	"PROFILE",                                  /* no output named */
	"--html OUT",                               /* no profile */
	"PROFILE --html OUT --top 0",
	"PROFILE --html OUT --featured -3",
	"PROFILE --html OUT --bogus",
	"PROFILE --html OUT --model nosuchmodel",
	"PROFILE --html OUT --md OUT",
	"PROFILE --html OUT --date ''",
	"PROFILE --html",
};

START_TEST(cli_bad_usage_exits_2)
{
	char *dir = test_tmpdir(), *out_path, *err = NULL, line[2048];
	const char *c = usage_cases[_i];
	size_t w = 0;

	if (asprintf(&out_path, "%s/out.html", dir) < 0)
		abort();
	/* Substitute the placeholders. */
	while (*c && w + 600 < sizeof(line)) {
		if (strncmp(c, "PROFILE", 7) == 0) {
			w += (size_t)snprintf(line + w, sizeof(line) - w, "'%s'",
					      test_data("profile-test.json"));
			c += 7;
		} else if (strncmp(c, "OUT", 3) == 0) {
			w += (size_t)snprintf(line + w, sizeof(line) - w, "'%s'", out_path);
			c += 3;
		} else {
			line[w++] = *c++;
		}
	}
	line[w] = '\0';
	ck_assert_msg(test_cli(NULL, &err, "report --targets '%s' %s", test_data("targets-test.yaml"),
			  line) == 2,
		      "'%s' did not exit 2", usage_cases[_i]);
	ck_assert_ptr_nonnull(strstr(err, "gpuproj: report: "));
	ck_assert_ptr_nonnull(strstr(err, "Try 'gpuproj report --help'"));
	ck_assert_int_eq(test_count_dir(dir), 0);
	free(err);
	free(out_path);
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(cli_unreadable_profile_writes_nothing)
{
	char *dir = test_tmpdir(), *err = NULL;
	int rc;

	rc = test_cli(NULL, &err, "report '%s' '%s/missing.json' --targets '%s' --html '%s/r.html' "
		 "--md '%s/r.md'", test_data("profile-test.json"), dir,
		 test_data("targets-test.yaml"), dir, dir);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(err, "missing.json"));
	ck_assert_int_eq(test_count_dir(dir), 0);
	free(err);
	/* A profile whose GPU is unknown: also 1, also nothing written. */
	rc = test_cli(NULL, &err, "report '%s' --source NoSuchGPU --targets '%s' --html '%s/r.html'",
		 test_data("profile-test.json"), test_data("targets-test.yaml"), dir);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(err, "NoSuchGPU"));
	ck_assert_int_eq(test_count_dir(dir), 0);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(cli_writes_both_reproducibly)
{
	char *dir = test_tmpdir(), *out = NULL, *err = NULL, *h1, *h2, *m1, *path;
	int rc;

	rc = test_cli(&out, &err, "report '%s' '%s' --html '%s/a.html' --md '%s/a.md' --date %s "
		 "--no-charts --target H100-SXM5-80GB --target MI300X", test_data("report-rank0.json"),
		 test_data("report-rank1.json"), dir, dir, DATE);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	/* Quiet when stderr is not a terminal. */
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	rc = test_cli(&out, &err, "report '%s' '%s' --html '%s/b.html' --date %s --no-charts "
		 "--target H100-SXM5-80GB --target MI300X", test_data("report-rank0.json"),
		 test_data("report-rank1.json"), dir, DATE);
	ck_assert_int_eq(rc, 0);
	free(out);
	free(err);
	if (asprintf(&path, "%s/a.html", dir) < 0)
		abort();
	h1 = test_read_file(path);
	free(path);
	if (asprintf(&path, "%s/b.html", dir) < 0)
		abort();
	h2 = test_read_file(path);
	free(path);
	if (asprintf(&path, "%s/a.md", dir) < 0)
		abort();
	m1 = test_read_file(path);
	free(path);
	ck_assert_ptr_nonnull(h1);
	ck_assert_ptr_nonnull(h2);
	ck_assert_ptr_nonnull(m1);
	/* Labels differ only by path; the rest is byte-identical. */
	ck_assert_str_eq(h1, h2);
	ck_assert_ptr_nonnull(strstr(h1, "report of " DATE));
	/* Only the named targets and the source GPU. */
	ck_assert_ptr_nonnull(strstr(h1, "data-target=\"H100-SXM5-80GB\""));
	ck_assert_ptr_nonnull(strstr(h1, "data-target=\"MI300X\""));
	ck_assert_ptr_nonnull(strstr(h1, "data-target=\"V100-PCIe-16GB\""));
	ck_assert_ptr_null(strstr(h1, "data-target=\"A100-SXM4-40GB\""));
	ck_assert_ptr_nonnull(strstr(m1, "## Profile 2: "));
	/*
	 * Issue 25 #10: a bare URL of a source is an autolink, its '_' intact.
	 * Before: ".../CUDA\_C\_Programming\_Guide.pdf", a broken link.
	 */
	ck_assert_ptr_nonnull(strstr(m1, "<https://docs.nvidia.com/cuda/archive/9.1/pdf/"
				     "CUDA_C_Programming_Guide.pdf>;"));
	/*
	 * The built-in intervals were fitted with the source (V100-PCIe-16GB)
	 * but not the H100 or the MI300X: their intervals are marked, with
	 * the footnote; the source's own row is not calibrated, so not marked.
	 */
	{
		const char *h100 = strstr(m1, "| H100-SXM5-80GB | "), *v100 =
			strstr(m1, "| **V100-PCIe-16GB** (source) | ");

		ck_assert_ptr_nonnull(h100);
		ck_assert_ptr_nonnull(v100);
		ck_assert(strstr(h100, " \\* | ") < strchr(h100, '\n'));
		ck_assert(!strstr(v100, "\\*") || strstr(v100, "\\*") > strchr(v100, '\n'));
	}
	ck_assert_ptr_nonnull(strstr(m1, "\n\\* The interval was fitted on validation data without "
				     "this target or the source GPU"));
	ck_assert_ptr_nonnull(strstr(h1, "<p class=\"small\">* The interval was fitted on "
				     "validation data"));
	ck_assert_int_eq(test_count_dir(dir), 3);
	free(h1);
	free(h2);
	free(m1);
	test_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *
report_html_suite(void)
{
	Suite *s = suite_create("report-html");
	TCase *lib = tcase_create("library");
	TCase *cli = tcase_create("cli");

	tcase_add_test(lib, sections_present);
	tcase_add_test(lib, ranking_equals_project_run);
	tcase_add_test(lib, escaping);
	tcase_add_test(lib, price_and_energy_only_when_known);
	tcase_add_test(lib, two_profiles_combined);
	tcase_add_test(lib, models_disagree_section);
	tcase_add_test(lib, html_with_charts);
	tcase_add_test(lib, roofline_tensor_roofs);
	tcase_add_test(lib, ranking_tensor_paths);
	tcase_add_test(lib, date_is_reproducible);
	tcase_add_test(lib, bad_inputs);
	tcase_set_timeout(lib, 120);
	suite_add_tcase(s, lib);

	tcase_add_loop_test(cli, cli_bad_usage_exits_2, 0,
			    sizeof(usage_cases) / sizeof(usage_cases[0]));
	tcase_add_test(cli, cli_unreadable_profile_writes_nothing);
	tcase_add_test(cli, cli_writes_both_reproducibly);
	tcase_set_timeout(cli, 120);
	suite_add_tcase(s, cli);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(report_html_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
