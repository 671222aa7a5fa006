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

#include <gpuproj/interval.h>
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

/*
 * What the report's totals are over: Σ point × launches (and lo, hi, the
 * measured time) of the timed kernels a run projects; nothing carried.
 */
struct sums {
	double point, lo, hi, src;
};

static struct sums
projected_sums(const struct gpuproj_profile *p, const struct gpuproj_run_projection *run)
{
	struct sums s = { 0, 0, 0, 0 };
	size_t k;

	for (k = 0; k < run->n; k++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(p, k);
		double launches = (double)(kr->launches ? kr->launches : 1);

		if (run->kernels[k].status != GPUPROJ_OK || !kr->duration_ns.n)
			continue;
		s.point += run->kernels[k].point_ns * launches;
		s.lo += run->kernels[k].lo_ns * launches;
		s.hi += run->kernels[k].hi_ns * launches;
		s.src += gpuproj_kernel_total_ns(kr);
	}
	return s;
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

/*
 * The ranking sums gpuproj_project_run()'s kernel projections over the
 * kernels projected (no carried time), and the HTML shows them.
 */
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
		struct sums sum;

		ck_assert_int_eq(gpuproj_project_run(p, gpuproj_model_find("hroof"), src,
						     rows[i].target, NULL, &run), GPUPROJ_OK);
		sum = projected_sums(p, &run);
		ck_assert(rows[i].point_ns == sum.point);
		ck_assert(rows[i].lo_ns == sum.lo);
		ck_assert(rows[i].hi_ns == sum.hi);
		ck_assert(rows[i].source_ns == sum.src);
		ck_assert_uint_eq(rows[i].n_unprojected, run.n_unprojected);
		ck_assert(rows[i].speedup == sum.src / sum.point);
		ck_assert(rows[i].complete);
		/* The HTML carries the exact value (%.17g) beside the human one. */
		ck_assert(row_attr(html, "ranking-combined", rows[i].target->name, "data-point-ns") ==
			  sum.point);
		ck_assert(row_attr(html, "ranking-combined", rows[i].target->name, "data-lo-ns") ==
			  sum.lo);
		ck_assert(row_attr(html, "ranking-combined", rows[i].target->name, "data-hi-ns") ==
			  sum.hi);
		gpuproj_run_projection_clear(&run);
	}
	/*
	 * Fastest first: TgtGPU, stream 10 × 1.2 ms → 10 × 300 µs = 3 ms; the
	 * kernel hroof cannot project (5 µs measured) is in no total: it is
	 * projected on no target, so both targets are complete.
	 */
	ck_assert_str_eq(rows[0].target->name, "TgtGPU");
	ck_assert_double_eq_tol(rows[0].point_ns, 10 * 300000.0, 1e-6);
	ck_assert_double_eq_tol(rows[0].source_ns, 10 * 1200000.0, 1e-6);
	ck_assert(!rows[0].is_source);
	ck_assert(rows[1].is_source);
	ck_assert_double_eq_tol(rows[1].speedup, 1.0, 1e-12);
	ck_assert_uint_eq(rows[0].n_unprojected, 1);
	ck_assert_double_eq_tol(rows[0].unprojected_source_ns, 5000.0, 1e-9);
	/* 12 ms of the 12.005 ms measured: 99.96 % (the share the report states). */
	ck_assert_double_eq_tol(rows[0].share, 12e6 / 12.005e6, 1e-12);
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
			/* speedup 4 (12 ms → 3 ms) ÷ 10 kUSD = 0.4; ÷ 0.3 kW = 13.3. */
			ck_assert_double_eq_tol(r->purchase_usd, 10000, 1e-12);
			ck_assert_double_eq_tol(r->perf_per_kusd, 0.4, 1e-12);
			ck_assert_double_eq_tol(r->perf_per_kw, 4 / 0.3, 1e-12);
			ck_assert_double_eq_tol(r->energy_j, r->point_ns * 1e-9 * 300, 1e-12);
			ck_assert_str_eq(r->price_origin, "targets.yaml");
		} else {
			ck_assert_str_eq(r->target->name, "SrcGPU");
			ck_assert(isnan(r->purchase_usd));
			ck_assert(isnan(r->perf_per_kusd));
			ck_assert_ptr_null(r->price_origin);
			ck_assert_double_eq_tol(r->energy_j, r->point_ns * 1e-9 * 100, 1e-12);
		}
		/* No hourly price anywhere: no cost per job. */
		ck_assert(isnan(r->hourly_usd));
		ck_assert(isnan(r->cost_per_job_usd));
	}
	/*
	 * HTML cost table: TgtGPU's price, per-dollar and per-watt figures,
	 * energy 3 ms × 300 W = 0.9 J; SrcGPU "unknown" for the price only.
	 */
	row = strstr(strstr(html, "id=\"costs\""), "data-target=\"TgtGPU\"");
	ck_assert_ptr_nonnull(row);
	end = strstr(row, "</tr>");
	*end = '\0';
	ck_assert_ptr_nonnull(strstr(row, "<td class=\"num\">10000 USD</td><td class=\"num\">"
				      "unknown</td><td class=\"num\">unknown</td><td class=\"num\">"
				      "0.4</td><td class=\"num\">300 W</td><td class=\"num\">13.3"
				      "</td><td class=\"num\">0.9 J</td>"));
	*end = '<';
	row = strstr(strstr(html, "id=\"costs\""), "data-target=\"SrcGPU\"");
	ck_assert_ptr_nonnull(row);
	end = strstr(row, "</tr>");
	*end = '\0';
	ck_assert_ptr_nonnull(strstr(row, "data-purchase-usd=\"nan\""));
	ck_assert_ptr_null(strstr(row, "data-j=\"nan\""));
	*end = '<';
	/* Markdown likewise, and both say what the numbers are. */
	ck_assert_ptr_nonnull(strstr(md, "| 1 | TgtGPU | 10000 USD | unknown | unknown | 0.4 | "
				     "300 W | 13.3 | 0.9 J | targets.yaml |\n"));
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
		struct sums s0 = projected_sums(p0, &r0), s1 = projected_sums(p1, &r1);

		ck_assert(rows[i].point_ns == s0.point + s1.point);
		ck_assert(rows[i].lo_ns == s0.lo + s1.lo);
		ck_assert(rows[i].hi_ns == s0.hi + s1.hi);
		ck_assert(rows[i].source_ns == s0.src + s1.src);
		ck_assert_uint_eq(rows[i].n_unprojected, r0.n_unprojected + r1.n_unprojected);
		if (i)
			ck_assert(rows[i - 1].point_ns <= rows[i].point_ns);
		ck_assert(row_attr(html, "ranking-combined", rows[i].target->name,
				   "data-point-ns") == rows[i].point_ns);
		ck_assert(row_attr(html, "ranking-p2", rows[i].target->name, "data-point-ns") ==
			  s1.point);
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
	struct gpuproj_report_input in = { p, "rank0.json", NULL, 0 };
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
	/* The ranking chart, 3 rooflines, the quadrant split and the instruction roofline. */
	ck_assert_uint_eq(n_svg, 6);
	ck_assert_ptr_nonnull(strstr(html, "<svg id=\"ranking-chart\" class=\"chart-svg\""));
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
 * The hierarchical rooflines of a kernel with tensor work draw its
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
	struct gpuproj_report_input in = { p, "tensor.json", NULL, 0 };
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
 * With tensor work, the rankings (Markdown and HTML) say where it
 * runs on each target: a Pascal GPU has no tensor path, so FP16 tensor work
 * runs there on CUDA-core FP32 (gpuproj_tensor_path()); an H100 runs it on
 * its own. A profile without tensor work gets no such column.
 */
START_TEST(ranking_tensor_paths)
{
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p = load_profile("profile-tensor.json");
	struct gpuproj_profile *q = load_profile("report-rank0.json");
	struct gpuproj_report_input in = { p, "tensor.json", "A100-SXM4-40GB", 0 };
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
	ck_assert_ptr_nonnull(strstr(md, "| Memory | Tensor work runs on |\n"));
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
	struct gpuproj_report_input in = { p, NULL, NULL, 0 };
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
	struct gpuproj_report_input in = { p, NULL, NULL, 0 };
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

/* ---- a report a committee can act on ---- */

/* A report of the built-in profile on the named targets, the default model, no charts. */
static struct gpuproj_report_doc *
builtin_doc(const struct gpuproj_profile *p, const struct gpuproj_targets *t,
	    const char *const *names, size_t n, struct gpuproj_report_doc_options *opt)
{
	struct gpuproj_report_input in = { p, "default-profile.json (built-in)", NULL, 0 };
	struct gpuproj_report_doc_options o = { 0 };
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };

	if (!opt)
		opt = &o;
	opt->date = DATE;
	opt->no_charts = true;
	opt->target_names = names;
	opt->n_target_names = n;
	ck_assert_msg(gpuproj_report_doc_new(&in, 1, t, opt, &doc, &err) == GPUPROJ_OK, "%s",
		      err.message);
	return doc;
}

static struct gpuproj_profile *
builtin_profile(void)
{
	struct gpuproj_profile *p = NULL;

	ck_assert_int_eq(gpuproj_profile_load_builtin(&p, NULL), GPUPROJ_OK);
	return p;
}

/*
 * The bundled profile on a GTX-680: its 4 SGEMM kernels use 122 or 90
 * registers per thread, more than CC 3.0's 63. They are
 * projected with the register count capped at the target's limit,
 * stated ("registers capped", spills not modelled), so the GTX-680 runs
 * every kernel: complete, ranked, its 4 capped kernels counted and the
 * ranking marked †. (Before registers were capped the blocks did not
 * fit and the GTX-680 was listed apart as incomplete.)
 */
START_TEST(incomplete_listed_apart)
{
	static const char *const names[] = { "GTX-680", "H100-SXM5-80GB" };
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p = builtin_profile();
	struct gpuproj_report_doc *doc = builtin_doc(p, t, names, 2, NULL);
	const struct gpuproj_report_rank *rows;
	char *md = md_of(doc);
	size_t n, i, seen = 0;

	rows = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	ck_assert_uint_eq(n, 3);
	for (i = 0; i < n; i++) {
		ck_assert(rows[i].complete);
		if (strcmp(rows[i].target->name, "GTX-680") != 0)
			continue;
		seen++;
		ck_assert_uint_eq(rows[i].n_cannot, 0);
		ck_assert_uint_eq(rows[i].n_assumption[GPUPROJ_ASSUME_REGS_CAPPED], 4);
	}
	ck_assert_uint_eq(seen, 1);
	ck_assert_ptr_null(strstr(md, "### Targets that cannot run every kernel"));
	ck_assert_ptr_nonnull(strstr(md, "registers capped (up to 4 kernel(s) per GPU)"));
	free(md);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * A target that cannot run a kernel is listed apart and never ranked on
 * carried time. Two kernels of profile-dgemm-h100.json's dgemm_tn
 * (20 ms each on the H100): one with 150,000 bytes of dynamic shared
 * memory per block, which fits the H100's 227 KiB (232,448 B) but not the
 * V100-SXM2-16GB's 96 KiB (98,304 B; targets.yaml smem_per_block_kib). The
 * V100 runs 1 of 2 kernels: incomplete, after the ranked targets, its row
 * naming the kernel; the H100 (the source) is ranked alone.
 */
START_TEST(incomplete_smem_listed_apart)
{
	static const char *const names[] = { "V100-SXM2-16GB", "H100-SXM5-80GB" };
	/* profile-dgemm-h100.json's header; its kernel as KERNEL(name, smem bytes). */
#define KERNEL(name, smem)                                                                  \
	"{\"name\": \"" name "\", \"tag\": \"\", \"grid\": [4884, 1, 1], "                  \
	"\"block\": [256, 1, 1], \"smem_dynamic_bytes\": " smem ", "                          \
	"\"regs_per_thread\": 128, \"device\": 0, \"launches\": 1, "                          \
	"\"profiled_launches\": 1, \"duration_ns\": {\"n\": 1, \"sum\": 2e7}, "              \
	"\"metrics\": {\"bytes.l1\": 1610612736, \"bytes.l2\": 1610612736, "                  \
	"\"bytes.dram\": 1610612736, \"shared.wavefronts\": 0, "                              \
	"\"flop.tensor.fp64\": 1099511627776}}"
	static const char json[] =
		"{\"schema\": \"gpuproj-profile/1\", "
		"\"tool\": {\"name\": \"gpuproj\", \"version\": \"0.1.0\"}, "
		"\"attributes\": {\"origin\": \"test fixture\"}, "
		"\"device\": {\"name\": \"NVIDIA H100 80GB HBM3\", \"target\": "
		"\"H100-SXM5-80GB\", \"chip\": \"GH100\", \"cc\": \"9.0\", \"sms\": 132, "
		"\"clock_hz\": 1.98e9}, "
		"\"process\": {\"application\": \"dgemm\", \"host\": null, \"pid\": null, "
		"\"rank\": null}, "
		"\"run\": {\"wall_ns\": 5e7, \"gpu_ns\": 4e7, \"dropped_records\": 0}, "
		"\"kernels\": [" KERNEL("dgemm_tn", "0") ", "
		KERNEL("dgemm_tn_smem", "150000") "]}\n";
#undef KERNEL
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	struct gpuproj_report_doc *doc;
	const struct gpuproj_report_rank *rows;
	char *dir = test_tmpdir(), *path, *md;
	size_t n;

	path = test_write_file(dir, "two.json", json);
	ck_assert_msg(gpuproj_profile_load(path, &p, &err) == GPUPROJ_OK, "%s", err.message);
	ck_assert_uint_eq(gpuproj_profile_count(p), 2);
	doc = builtin_doc(p, t, names, 2, NULL);
	rows = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(rows[0].target->name, "H100-SXM5-80GB");
	ck_assert(rows[0].complete);
	ck_assert_str_eq(rows[1].target->name, "V100-SXM2-16GB");
	ck_assert(!rows[1].complete);
	ck_assert_uint_eq(rows[1].n_cannot, 1);
	/* Its total is over what it runs (one kernel of 20 ms), not carried time. */
	ck_assert_double_eq_tol(rows[1].source_ns, 2e7, 1);
	md = md_of(doc);
	ck_assert_ptr_nonnull(strstr(md, "### Targets that cannot run every kernel (not ranked)\n\n"
				     "1 target cannot run some kernel that other targets run"));
	ck_assert_ptr_nonnull(strstr(md, "| V100-SXM2-16GB | 1 of 2 kernels | "));
	ck_assert_ptr_nonnull(strstr(md, "dgemm_tn_smem"));
	free(md);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
	free(path);
	free(dir);
}
END_TEST

/*
 * Prices: a CSV quote (purchase and hourly) and --price on the command
 * line, which replaces targets.yaml's price_usd (RTX-4090: 1599 → 1799).
 * H100-SXM5-80GB: 138.85 ms × 2.50 USD/h = 0.0000964 USD per job, speedup
 * 3.25 ÷ 27 kUSD = 0.12 per 1,000 USD, ÷ 0.7 kW = 4.64 per kW; RTX-4090:
 * 2.97 ÷ 1.799 = 1.65 per 1,000 USD. MI300X is quoted but not reported on.
 */
START_TEST(cli_prices)
{
	char *dir = test_tmpdir(), *csv, *md, *out = NULL, *err = NULL, *path;
	int rc;

	csv = test_write_file(dir, "quotes.csv", "name,purchase_usd,hourly_usd\n"
			      "H100-SXM5-80GB,27000,2.5\nMI300X,,1.99\n");
	rc = test_cli_at(dir, NULL, &out, &err, "report --builtin --target H100-SXM5-80GB "
			 "--target RTX-4090 --prices quotes.csv --price RTX-4090=1799 --md r.md "
			 "--no-charts --date %s", DATE);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	if (asprintf(&path, "%s/r.md", dir) < 0)
		abort();
	md = test_read_file(path);
	ck_assert_ptr_nonnull(md);
	ck_assert_ptr_nonnull(strstr(md, "| 1 | H100-SXM5-80GB | 27000 USD | 2.50 USD | "
				     "0.0000964 USD | 0.12 | 700 W | 4.64 | 97.2 J | quotes.csv:2 "
				     "|\n"));
	ck_assert_ptr_nonnull(strstr(md, "| 2 | RTX-4090 | 1799 USD | unknown | unknown | 1.65 | "
				     "450 W | 6.6 | 68.4 J | --price |\n"));
	ck_assert_ptr_nonnull(strstr(md, "; lowest cost per job: H100-SXM5-80GB (0.0000964 USD); "
				     "most performance per dollar: RTX-4090 (1.65× per 1,000 "
				     "USD).\n"));
	ck_assert_ptr_nonnull(strstr(md, "prices: 0 from targets.yaml, 2 quoted, 1 unknown."));
	ck_assert_ptr_null(strstr(md, "USD·s"));
	free(md);
	free(out);
	free(err);
	/* A bad price on the command line: usage, nothing written. */
	rc = test_cli_at(dir, NULL, &out, &err, "report --builtin --price RTX-4090=-5 --md x.md");
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(err, "gpuproj: report: --price needs NAME=USD, USD a number "
				      "> 0 and below 1e+09: 'RTX-4090=-5'\n"));
	free(out);
	free(err);
	/* An unknown GPU on the command line: failure with close names, nothing written. */
	rc = test_cli_at(dir, NULL, &out, &err, "report --builtin --price H100-SXM=1 --md x.md");
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(err, "--price: GPU of the price 'H100-SXM' is not in "
				      "targets.yaml; close names: "));
	ck_assert_int_eq(test_count_dir(dir), 2);
	free(out);
	free(err);
	free(path);
	free(csv);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* A bad prices file: its file:line:column and the exact message; the command writes nothing. */
static const struct bad_prices {
	const char *name, *text;
	int status, line, column;
	const char *message;
} bad_prices[] = {
	{ "q.csv", "name,purchase_usd\nH100-SXM5-80G,27000\n", GPUPROJ_E_NOTFOUND, 2, 1,
	  "GPU 'H100-SXM5-80G' is not in targets.yaml; close names: H100-SXM5-80GB, "
	  "H800-SXM5-80GB, A100-SXM4-80GB (`gpuproj targets list` shows all)" },
	{ "q.csv", "name,purchase_usd\nH100-SXM5-80GB,abc\n", GPUPROJ_E_SCHEMA, 2, 16,
	  "purchase_usd 'abc' is not a number > 0 (USD)" },
	{ "q.csv", "name,price\nH100-SXM5-80GB,1\n", GPUPROJ_E_SCHEMA, 1, 6,
	  "unknown column 'price' (the columns are name, purchase_usd and hourly_usd)" },
	{ "q.csv", "name,purchase_usd\nH100-SXM5-80GB,1\nH100-SXM5-80GB,2\n", GPUPROJ_E_SCHEMA, 3,
	  1, "H100-SXM5-80GB is quoted twice (first at line 2)" },
	{ "q.csv", "name,hourly_usd\nA100-SXM4-40GB,\n", GPUPROJ_E_SCHEMA, 2, 1,
	  "the quote for A100-SXM4-40GB gives no price (purchase_usd or hourly_usd)" },
	{ "q.yaml", "H100-SXM5-80GB: {purchase: 1}\n", GPUPROJ_E_SCHEMA, 1, 18,
	  "unknown key 'purchase' in H100-SXM5-80GB; did you mean 'purchase_usd'?" },
	{ "q.yaml", "H100-SXM5-80GB:\n  purchase_usd: -5\n", GPUPROJ_E_SCHEMA, 2, 17,
	  "purchase_usd '-5' is not a number > 0 (USD)" },
	{ "q.yaml", "H100-SXM5-80GB: [1\n", GPUPROJ_E_PARSE, 2, 1,
	  "YAML syntax error: did not find expected ',' or ']' while parsing a flow sequence" },
	{ "q.yml", "B200-180GB: 1e9\n", GPUPROJ_E_LIMIT, 1, 13,
	  "purchase_usd 1e+09 USD is not below 1e+09 USD" },
	{ "q.txt", "B200-180GB: 1\n", GPUPROJ_E_INVAL, 0, 0,
	  "a prices file is named *.csv or *.yaml (or *.yml)" },
};

START_TEST(prices_file_errors)
{
	const struct bad_prices *c = &bad_prices[_i];
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_report_prices *q = (struct gpuproj_report_prices *)0x1;
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *path = test_write_file(dir, c->name, c->text), *e = NULL;

	ck_assert_int_eq(gpuproj_report_prices_load(path, t, &q, &err), c->status);
	ck_assert_ptr_eq(q, (struct gpuproj_report_prices *)0x1);
	ck_assert_msg(strcmp(err.message, c->message) == 0, "%s: got '%s'", c->text, err.message);
	ck_assert_str_eq(err.file, path);
	ck_assert_int_eq(err.line, c->line);
	ck_assert_int_eq(err.column, c->column);
	/* The command: exit 2, "gpuproj: FILE:LINE:COL: message", nothing written. */
	ck_assert_int_eq(test_cli_at(dir, NULL, NULL, &e, "report --builtin --prices %s --md r.md "
				     "--html r.html", c->name), 2);
	ck_assert_ptr_nonnull(strstr(e, c->message));
	ck_assert_int_eq(test_count_dir(dir), 1);
	free(e);
	free(path);
	test_rmtree(dir);
	free(dir);
	gpuproj_targets_free(t);
}
END_TEST

/* A YAML file with both forms reads back, in file order, with its origins. */
START_TEST(prices_file_yaml)
{
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_report_prices *q = NULL;
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *path, *origin;
	const struct gpuproj_report_price *v;
	size_t n;

	path = test_write_file(dir, "q.yaml", "# quotes\nH100-SXM5-80GB: {purchase_usd: 27000, "
			       "hourly_usd: 2.49}\nB200-180GB: 38000\n");
	ck_assert_msg(gpuproj_report_prices_load(path, t, &q, &err) == GPUPROJ_OK, "%s",
		      err.message);
	v = gpuproj_report_prices_get(q, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(v[0].name, "H100-SXM5-80GB");
	ck_assert_double_eq(v[0].purchase_usd, 27000);
	ck_assert_double_eq(v[0].hourly_usd, 2.49);
	ck_assert_str_eq(v[1].name, "B200-180GB");
	ck_assert_double_eq(v[1].purchase_usd, 38000);
	ck_assert(isnan(v[1].hourly_usd));
	if (asprintf(&origin, "%s:3", path) < 0)
		abort();
	ck_assert_str_eq(v[1].origin, origin);
	free(origin);
	gpuproj_report_prices_free(q);
	free(path);
	test_rmtree(dir);
	free(dir);
	gpuproj_targets_free(t);
}
END_TEST

/* Two rows with the given relative intervals (of the ranking's times). */
static void
order_rows(double alo, double ahi, double blo, double bhi, size_t unseen,
	   struct gpuproj_report_rank *a, struct gpuproj_report_rank *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	a->rel_lo = alo;
	a->rel_hi = ahi;
	b->rel_lo = blo;
	b->rel_hi = bhi;
	b->n_interval_unseen = unseen;
}

/*
 * The order of two targets from their intervals: [0.2, 0.5] and [0.4, 1.0]
 * overlap by 0.1 of their union 0.8 = 12.5 %, not distinct, no
 * probability; [0.2, 0.3] and [0.4, 0.5] are disjoint: distinct, and at
 * 85 % coverage the order holds with at least 2 × 0.85 − 1 = 70 %; with an
 * interval not fitted on the GPU, no probability.
 */
START_TEST(order_overlap)
{
	struct gpuproj_report_rank a, b;
	struct gpuproj_report_order o;

	order_rows(0.2, 0.5, 0.4, 1.0, 0, &a, &b);
	gpuproj_report_order_overlap(&a, &b, 0.85, &o);
	ck_assert_double_eq_tol(o.overlap, 0.125, 1e-15);
	ck_assert(!o.distinct);
	ck_assert(isnan(o.p_holds));
	order_rows(0.2, 0.3, 0.4, 0.5, 0, &a, &b);
	gpuproj_report_order_overlap(&a, &b, 0.85, &o);
	ck_assert_double_eq(o.overlap, 0);
	ck_assert(o.distinct);
	ck_assert_double_eq_tol(o.p_holds, 0.70, 1e-15);
	order_rows(0.2, 0.3, 0.4, 0.5, 1, &a, &b);
	gpuproj_report_order_overlap(&a, &b, 0.85, &o);
	ck_assert(o.distinct);
	ck_assert(isnan(o.p_holds));
	/* Touching intervals share a point: not distinct. */
	order_rows(0.2, 0.4, 0.4, 0.5, 0, &a, &b);
	gpuproj_report_order_overlap(&a, &b, 0.85, &o);
	ck_assert(!o.distinct);
}
END_TEST

/* Another method replaces the overlap: the report prints what it says, and its sentence. */
static void
order_fixed(const struct gpuproj_report_rank *a, const struct gpuproj_report_rank *b,
	    double coverage, struct gpuproj_report_order *ret)
{
	(void)a;
	(void)b;
	(void)coverage;
	ret->overlap = 0.5;
	ret->distinct = false;
	ret->p_holds = 0.42;
}

START_TEST(order_replaceable_and_coverage_derived)
{
	static const char *const names[] = { "H100-SXM5-80GB", "B200-180GB" };
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p = builtin_profile();
	struct gpuproj_report_doc_options opt = { 0 };
	struct gpuproj_report_doc *doc;
	char *md, want[200];
	double c = gpuproj_intervals_coverage(gpuproj_intervals_builtin()), p_cal;
	const struct gpuproj_report_rank *rows;
	size_t n;

	opt.order_fn = order_fixed;
	opt.order_method = "Calibrated by the accuracy work.";
	doc = builtin_doc(p, t, names, 2, &opt);
	md = md_of(doc);
	/*
	 * The calibrated column stays the report's own whatever the order
	 * function: Φ(|ln(rel₁ / rel₂)| / σ) with the default model's pooled
	 * σ = 0.5702 (src/data/intervals.json "order", hroof-occ, bindings
	 * "*"), Φ(x) = erfc(−x / √2) / 2.
	 */
	rows = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	ck_assert_uint_ge(n, 2);
	ck_assert(rows[0].rel < rows[1].rel);
	p_cal = 0.5 * erfc(-fabs(log(rows[0].rel / rows[1].rel)) / (0.5701814423622313 * sqrt(2)));
	ck_assert(p_cal > 0.5 && p_cal < 1);
	snprintf(want, sizeof(want), "| 1 B200-180GB | 2 H100-SXM5-80GB | 50.0 %% | no | "
		 "≥ 42 %% | %.2f |\n", p_cal);
	ck_assert_ptr_nonnull(strstr(md, want));
	ck_assert_ptr_nonnull(strstr(md, "- Calibrated by the accuracy work.\n"));
	/*
	 * One nominal coverage, the built-in table's (src/data/intervals.json
	 * "coverage": 0.85), in every mention: none says 80 %.
	 */
	ck_assert_double_eq_tol(c, 0.85, 1e-12);
	ck_assert_double_eq(c, GPUPROJ_INTERVALS_DEFAULT_COVERAGE);
	snprintf(want, sizeof(want), "held the measured time in %.0f %% of the validation cases "
		 "(the built-in table: %.0f %% intervals fitted", 100 * c, 100 * c);
	ck_assert_ptr_nonnull(strstr(md, want));
	ck_assert_ptr_nonnull(strstr(md, "intervals of nominal 85 % coverage"));
	ck_assert_ptr_null(strstr(md, "80 %"));
	free(md);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * Memory fit: the bundled profile with a peak of 39 GiB (41875931136 B)
 * fits an A100-SXM4-40GB (40 GiB) and an H100 (80), not an RTX-4090 (24):
 * "does not fit" in its row, named in the summary, not among the leaders.
 */
START_TEST(memory_fit)
{
	static const char *const names[] = { "RTX-4090", "A100-SXM4-40GB", "H100-SXM5-80GB" };
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p = builtin_profile();
	struct gpuproj_report_doc *doc;
	const struct gpuproj_report_rank *rows;
	char *md, *html, *lead;
	size_t n, i;

	gpuproj_profile_run_info_mut(p)->peak_device_memory_bytes = 41875931136.0;
	doc = builtin_doc(p, t, names, 3, NULL);
	rows = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(rows[i].memory_fit, strcmp(rows[i].target->name, "RTX-4090") == 0 ?
				 GPUPROJ_REPORT_FIT_NO : GPUPROJ_REPORT_FIT_YES);
	md = md_of(doc);
	html = html_of(doc);
	/* † : the bundled profile's kernels are projected on stated assumptions. */
	ck_assert_ptr_nonnull(strstr(md, "| RTX-4090 | 152 ms | 62.3 ms – 333 ms \\* † | 2.97× "
				     "| l2 "
					 "| "
				     "does not fit |\n"));
	ck_assert_ptr_nonnull(strstr(md, "| H100-SXM5-80GB | 139 ms | 38.6 ms – 215 ms \\* † "
				     "| 3.25× "
				     "| compute | fits |\n"));
	ck_assert_ptr_nonnull(strstr(md, "; does not fit the run's peak device memory: "
				     "RTX-4090.\n"));
	ck_assert_ptr_nonnull(strstr(md, "- **Peak device memory:** 39 GiB (41875931136 bytes "
				     "allocated at once, as libproj.so recorded it)\n"));
	lead = strstr(md, "- Leading GPUs: ");
	ck_assert_ptr_nonnull(lead);
	ck_assert(!strstr(lead, "RTX-4090") || strstr(lead, "RTX-4090") > strchr(lead, '\n'));
	ck_assert_ptr_nonnull(strstr(html, "<td class=\"nofit\">does not fit</td>"));
	free(md);
	free(html);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * A workload mix: rank 0 takes 3 shares of facility time, rank 1 one
 * (normalised 0.75, 0.25); each target's relative time is 0.75 × T0/S0
 * + 0.25 × T1/S1 over the profiles' own rankings, and the combined
 * ranking orders by it.
 */
START_TEST(workload_mix)
{
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p0 = load_profile("report-rank0.json");
	struct gpuproj_profile *p1 = load_profile("report-rank1.json");
	struct gpuproj_report_input in[2] = { { p0, "rank0.json", NULL, 3 },
					      { p1, "rank1.json", NULL, 1 } };
	static const char *const names[] = { "H100-SXM5-80GB", "MI300X", "A100-SXM4-40GB" };
	struct gpuproj_report_doc_options opt = { 0 };
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_report_rank *rows, *r0, *r1;
	size_t n, n0, n1, i, j;
	char *md;

	opt.date = DATE;
	opt.no_charts = true;
	opt.target_names = names;
	opt.n_target_names = 3;
	ck_assert_msg(gpuproj_report_doc_new(in, 2, t, &opt, &doc, &err) == GPUPROJ_OK, "%s",
		      err.message);
	rows = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	r0 = gpuproj_report_doc_ranking(doc, 0, &n0);
	r1 = gpuproj_report_doc_ranking(doc, 1, &n1);
	ck_assert_uint_eq(n, 4);
	for (i = 0; i < n; i++) {
		double want = NAN;

		for (j = 0; j < n0; j++) {
			size_t k;

			for (k = 0; k < n1; k++) {
				if (r0[j].target == rows[i].target &&
				    r1[k].target == rows[i].target)
					want = 0.75 * r0[j].point_ns / r0[j].source_ns +
					       0.25 * r1[k].point_ns / r1[k].source_ns;
			}
		}
		ck_assert_double_eq_tol(rows[i].rel, want, 1e-12 * want);
		ck_assert_double_eq_tol(rows[i].speedup, 1 / want, 1e-12 / want);
		if (i)
			ck_assert(rows[i - 1].rel <= rows[i].rel);
	}
	md = md_of(doc);
	ck_assert_ptr_nonnull(strstr(md, "| # | Target GPU | Facility time vs. the source |"));
	ck_assert_ptr_nonnull(strstr(md, "- Ranked by the workload mix: Σ share of facility time × "
				     "(projected GPU kernel time"));
	ck_assert_ptr_nonnull(strstr(md, "÷ the source's measured time) over the profiles "
				     "(rank0.json 75 %, rank1.json 25 %); model hroof-occ.\n"));
	ck_assert_ptr_nonnull(strstr(md, "| Share of facility time |"));
	free(md);
	gpuproj_report_doc_free(doc);
	/* Some weighted, some not: refused, naming the one without. */
	in[1].weight = 0;
	ck_assert_int_eq(gpuproj_report_doc_new(in, 2, t, &opt, &doc, &err), GPUPROJ_E_INVAL);
	ck_assert_str_eq(err.message, "rank1.json has no weight: give every profile a share of "
			 "facility time (--weight PROFILE=W), or none");
	gpuproj_profile_free(p0);
	gpuproj_profile_free(p1);
	gpuproj_targets_free(t);
}
END_TEST

/* --weight on the command line: the mix, and its usage errors. */
START_TEST(cli_weights)
{
	char *dir = test_tmpdir(), *out = NULL, *err = NULL;
	const char *r0 = test_data("report-rank0.json"), *r1 = test_data("report-rank1.json");
	int rc;

	rc = test_cli_at(dir, NULL, &out, &err, "report '%s' '%s' --weight '%s=0.7' --weight "
			 "'%s=0.3' --target H100-SXM5-80GB --md r.md --no-charts", r0, r1, r0, r1);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	free(out);
	free(err);
	rc = test_cli_at(dir, NULL, &out, &err, "report '%s' '%s' --weight '%s=0.7' --md x.md",
			 r0, r1, r0);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(err, "has no weight; give every profile one, or none"));
	free(out);
	free(err);
	rc = test_cli_at(dir, NULL, &out, &err, "report '%s' --weight other.json=1 --md x.md", r0);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(err, "gpuproj: report: --weight other.json=1: no such "
				      "PROFILE among the inputs"));
	free(out);
	free(err);
	rc = test_cli_at(dir, NULL, &out, &err, "report '%s' --weight '%s=0' --md x.md", r0, r0);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(err, "--weight needs PROFILE=W, W a share > 0"));
	ck_assert_int_eq(test_count_dir(dir), 1);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * Markdown that fits a merge-request comment: the bundled profile's full
 * report (58 targets' sources) is over GitHub's 65,536 characters; by
 * default the sources make room and it says so; md_full keeps them; a
 * tight limit cuts at a line and says so.
 */
START_TEST(markdown_limit)
{
	struct gpuproj_targets *t = load_targets(NULL);
	struct gpuproj_profile *p = builtin_profile();
	struct gpuproj_report_doc_options opt = { 0 };
	struct gpuproj_report_doc *doc = builtin_doc(p, t, NULL, 0, NULL);
	char *md = md_of(doc), *full;
	size_t len;

	ck_assert_uint_le(strlen(md), GPUPROJ_REPORT_MD_LIMIT);
	ck_assert_ptr_nonnull(strstr(md, "Shortened to fit a merge-request comment (65536 "
				     "characters at most): what is left out says so; --md-full "
				     "writes everything."));
	ck_assert_ptr_nonnull(strstr(md, "the list is in the HTML report, or all of it with "
				     "--md-full (`gpuproj targets show NAME` prints one GPU's)."));
	ck_assert_ptr_null(strstr(md, "**References**"));
	gpuproj_report_doc_free(doc);
	opt.md_full = true;
	doc = builtin_doc(p, t, NULL, 0, &opt);
	full = md_of(doc);
	ck_assert_uint_gt(strlen(full), GPUPROJ_REPORT_MD_LIMIT);
	ck_assert_ptr_nonnull(strstr(full, "**References**"));
	ck_assert_ptr_null(strstr(full, "Shortened"));
	free(full);
	gpuproj_report_doc_free(doc);
	memset(&opt, 0, sizeof(opt));
	opt.md_limit = 4000;
	doc = builtin_doc(p, t, NULL, 0, &opt);
	free(md);
	md = md_of(doc);
	len = strlen(md);
	ck_assert_uint_le(len, 4000);
	ck_assert_str_eq(md + len - strlen("**The rest is left out to fit a merge-request comment: "
					   "in the HTML report, or all of it with --md-full.**\n"),
			 "**The rest is left out to fit a merge-request comment: in the HTML "
			 "report, or all of it with --md-full.**\n");
	free(md);
	gpuproj_report_doc_free(doc);
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
		 "--no-charts --md-full --target H100-SXM5-80GB --target MI300X",
		 test_data("report-rank0.json"),
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
	 * A bare URL of a source is an autolink, its '_' intact.
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
	tcase_add_test(lib, incomplete_listed_apart);
	tcase_add_test(lib, incomplete_smem_listed_apart);
	tcase_add_loop_test(lib, prices_file_errors, 0,
			    sizeof(bad_prices) / sizeof(bad_prices[0]));
	tcase_add_test(lib, prices_file_yaml);
	tcase_add_test(lib, order_overlap);
	tcase_add_test(lib, order_replaceable_and_coverage_derived);
	tcase_add_test(lib, memory_fit);
	tcase_add_test(lib, workload_mix);
	tcase_add_test(lib, markdown_limit);
	tcase_set_timeout(lib, 120);
	suite_add_tcase(s, lib);

	tcase_add_loop_test(cli, cli_bad_usage_exits_2, 0,
			    sizeof(usage_cases) / sizeof(usage_cases[0]));
	tcase_add_test(cli, cli_unreadable_profile_writes_nothing);
	tcase_add_test(cli, cli_writes_both_reproducibly);
	tcase_add_test(cli, cli_prices);
	tcase_add_test(cli, cli_weights);
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
