/* SPDX-License-Identifier: MIT */
/*
 * The options every command that writes shares (docs/cli/gpuproj.md,
 * "Options every command shares"), end to end: `targets list --format
 * json|csv` parsed, `report -o` against its --md/--html aliases and its
 * format inferred from the extension, -q silencing progress, --progress
 * always printing progress lines where stderr is no terminal, and an
 * unwritable -o exiting 2 with nothing written. Which command takes which
 * option, and that --help and docs/cli say so, is test-cli-options.py's.
 */
#include "config.h"

#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define DATE "2025-06-01"

/* How many times `needle` occurs in `hay`. */
static size_t
count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

/* The GPU names of the `targets list` table, one per line after its two header lines. */
static size_t
table_names(char *table, char names[][64], size_t max)
{
	char *line, *save = NULL;
	size_t n = 0, skip = 2;

	for (line = strtok_r(table, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (skip) {
			skip--;
			continue;
		}
		if (n < max && sscanf(line, "%63s", names[n]) == 1)
			n++;
	}
	return n;
}

static const char *const list_keys[] = {
	"name", "arch", "sms", "clock_mhz", "fp64_fma_gflops", "fp32_fma_gflops", "dram_gbs",
	"l2_gbs", "l1_gbs", "shared_gbs", "l2_mib", "measured",
};
#define N_KEYS (sizeof(list_keys) / sizeof(list_keys[0]))

/*
 * json: one object per GPU of the table, in its order, with every column
 * under its key (units in the names); csv: the same keys as the header,
 * a row per GPU, the same names.
 */
START_TEST(targets_list_json_csv)
{
	static char names[128][64];
	char *dir = test_tmpdir(), *out, *err, *csv, *line, *save = NULL;
	size_t n, i, k, rows = 0;
	json_error_t jerr;
	json_t *root;

	ck_assert_int_eq(test_cli(&out, &err, "targets list"), 0);
	n = table_names(out, names, 128);
	ck_assert_uint_gt(n, 10);
	free(out);
	free(err);

	ck_assert_int_eq(test_cli(&out, &err, "targets list --format json -o '%s/l.json'", dir), 0);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	free(out);
	free(err);
	ck_assert_int_gt(asprintf(&out, "%s/l.json", dir), 0);
	root = json_load_file(out, 0, &jerr);
	ck_assert_msg(root != NULL, "%s: %s", out, jerr.text);
	free(out);
	ck_assert(json_is_array(root));
	ck_assert_uint_eq(json_array_size(root), n);
	for (i = 0; i < n; i++) {
		json_t *o = json_array_get(root, i);

		ck_assert(json_is_object(o));
		ck_assert_uint_eq(json_object_size(o), N_KEYS);
		for (k = 0; k < N_KEYS; k++)
			ck_assert_msg(json_object_get(o, list_keys[k]) != NULL, "GPU %zu: no %s", i,
				      list_keys[k]);
		ck_assert_str_eq(json_string_value(json_object_get(o, "name")), names[i]);
		ck_assert(json_is_integer(json_object_get(o, "sms")));
		ck_assert(json_number_value(json_object_get(o, "dram_gbs")) > 0);
		ck_assert(json_is_array(json_object_get(o, "measured")));
	}
	json_decref(root);

	ck_assert_int_eq(test_cli(&csv, &err, "targets list --format csv"), 0);
	ck_assert_str_eq(err, "");
	free(err);
	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (rows == 0) {
			ck_assert_str_eq(line, "name,arch,sms,clock_mhz,fp64_fma_gflops,"
				     "fp32_fma_gflops,dram_gbs,l2_gbs,l1_gbs,shared_gbs,l2_mib,"
				     "measured");
		} else {
			const char *name = names[rows - 1];

			ck_assert_uint_le(rows, n);
			ck_assert_uint_eq(count_of(line, ","), N_KEYS - 1);
			ck_assert_int_eq(strncmp(line, name, strlen(name)), 0);
			ck_assert_int_eq(line[strlen(name)], ',');
		}
		rows++;
	}
	ck_assert_uint_eq(rows, n + 1);
	free(csv);

	/* --format is list's; -o is not check's. */
	ck_assert_int_eq(test_cli(NULL, &err, "targets show A100-SXM4-80GB --format json"), 2);
	ck_assert_ptr_nonnull(strstr(err, "--format goes with list only"));
	free(err);
	ck_assert_int_eq(test_cli(NULL, &err, "targets list --format yaml"), 2);
	ck_assert_ptr_nonnull(strstr(err, "--format must be table, json or csv, not 'yaml'"));
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* The report of the two rank fixtures with `opts`, written into dir; its exit status. */
static int
report(const char *dir, char **err, const char *opts)
{
	return test_cli_at(dir, NULL, NULL, err, "report '%s' '%s' --date " DATE " --no-charts "
			   "--target H100-SXM5-80GB --target MI300X %s",
			   test_data("report-rank0.json"), test_data("report-rank1.json"), opts);
}

/* Whether two files of dir hold the same bytes. */
static bool
same_file(const char *dir, const char *a, const char *b)
{
	char *pa, *pb, *ta, *tb;
	bool same;

	ck_assert_int_gt(asprintf(&pa, "%s/%s", dir, a), 0);
	ck_assert_int_gt(asprintf(&pb, "%s/%s", dir, b), 0);
	ta = test_read_file(pa);
	tb = test_read_file(pb);
	ck_assert_msg(ta && tb, "%s, %s", pa, pb);
	same = strcmp(ta, tb) == 0;
	free(ta);
	free(tb);
	free(pa);
	free(pb);
	return same;
}

/*
 * -o x.md is --md x.md, -o x.html --html x.html, --format md-full -o
 * --md --md-full; -o x.txt alone cannot tell the format: 2, naming -o,
 * nothing written.
 */
START_TEST(report_output_and_format)
{
	char *dir = test_tmpdir(), *err;

	ck_assert_int_eq(report(dir, &err, "-o x.md"), 0);
	ck_assert_str_eq(err, "");
	free(err);
	ck_assert_int_eq(report(dir, &err, "--md y.md"), 0);
	free(err);
	ck_assert(same_file(dir, "x.md", "y.md"));
	ck_assert_int_eq(report(dir, &err, "--output x.html"), 0);
	free(err);
	ck_assert_int_eq(report(dir, &err, "--html y.html"), 0);
	free(err);
	ck_assert(same_file(dir, "x.html", "y.html"));
	ck_assert_int_eq(report(dir, &err, "-o full.txt --format md-full"), 0);
	free(err);
	ck_assert_int_eq(report(dir, &err, "--md full.md --md-full"), 0);
	free(err);
	ck_assert(same_file(dir, "full.txt", "full.md"));
	ck_assert_int_eq(test_count_dir(dir), 6);

	ck_assert_int_eq(report(dir, &err, "-o x.txt"), 2);
	ck_assert_msg(strstr(err, "gpuproj: report: -o x.txt: the format cannot be told from the "
			     "name: add --format html, md or md-full\n") != NULL, "%s", err);
	free(err);
	ck_assert_int_eq(report(dir, &err, "--format md"), 2);
	ck_assert_ptr_nonnull(strstr(err, "--format needs -o FILE"));
	free(err);
	ck_assert_int_eq(report(dir, &err, "-o a.md --md b.md"), 2);
	ck_assert_ptr_nonnull(strstr(err, "-o and --md both name the Markdown report"));
	free(err);
	ck_assert_int_eq(report(dir, &err, "-o a.md --format pdf"), 2);
	ck_assert_ptr_nonnull(strstr(err, "--format must be html, md or md-full, not 'pdf'"));
	free(err);
	ck_assert_int_eq(test_count_dir(dir), 6);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * --progress always: lines on a stderr that is no terminal (a pipe here),
 * from the start; -q: none, and the same files.
 */
START_TEST(progress_always_and_quiet)
{
	char *dir = test_tmpdir(), *err, *a, *b, *ta, *tb;

	ck_assert_int_eq(test_cli_at(dir, NULL, NULL, &err, "import xla-matmul '%s' -o loud "
				     "--progress always", test_data("xla-matmul/xla-matmul.csv")),
			 0);
	ck_assert_msg(strstr(err, "gpuproj import xla-matmul: 1/4 profiles written (25%, ") &&
		      strstr(err, "gpuproj import xla-matmul: 4/4 profiles written (100%, "),
		      "%s", err);
	ck_assert_uint_eq(count_of(err, "profiles written"), 4);
	ck_assert_ptr_nonnull(strstr(err, "gpuproj: imported 1 file of XLA matmul into 4 "
				     "profiles\n"));
	ck_assert_ptr_null(strchr(err, '\r'));
	free(err);
	ck_assert_int_eq(test_cli_at(dir, NULL, NULL, &err, "import xla-matmul '%s' -o quiet -q "
				     "--progress always", test_data("xla-matmul/xla-matmul.csv")),
			 0);
	ck_assert_str_eq(err, "");
	free(err);
	ck_assert_int_gt(asprintf(&a, "%s/loud/H100-SXM5-80GB.json", dir), 0);
	ck_assert_int_gt(asprintf(&b, "%s/quiet/H100-SXM5-80GB.json", dir), 0);
	ta = test_read_file(a);
	tb = test_read_file(b);
	ck_assert(ta && tb);
	ck_assert_str_eq(ta, tb);
	free(ta);
	free(tb);
	free(a);
	free(b);
	/* Without --progress, a short run off a terminal prints no progress. */
	ck_assert_int_eq(test_cli_at(dir, NULL, NULL, &err, "import xla-matmul '%s' -o auto",
				     test_data("xla-matmul/xla-matmul.csv")), 0);
	ck_assert_ptr_null(strstr(err, "profiles written"));
	free(err);

	/* -q keeps an importer's warnings, alone. */
	ck_assert_int_eq(test_cli_at(dir, NULL, NULL, &err, "import ncu '%s' -o r.json -q",
				     test_data("ncu-raw.csv")), 0);
	ck_assert_msg(strncmp(err, "gpuproj: warning: ", 18) == 0, "%s", err);
	ck_assert_ptr_null(strstr(err, "imported"));
	free(err);

	ck_assert_int_eq(report(dir, &err, "-o r.md --progress always"), 0);
	ck_assert_msg(strstr(err, "gpuproj report: 2/2 loading (100%, ") &&
		      strstr(err, "gpuproj report: 2/2 projecting (100%, "), "%s", err);
	ck_assert_uint_eq(count_of(err, "(100%"), 2);
	free(err);
	ck_assert_int_eq(report(dir, &err, "-o r.md -q --progress always"), 0);
	ck_assert_str_eq(err, "");
	free(err);
	ck_assert_int_eq(report(dir, &err, "-o r.md --progress sometimes"), 2);
	ck_assert_ptr_nonnull(strstr(err, "--progress must be auto, always or never, not "
				     "'sometimes'"));
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* An -o that cannot be written: 2, a message naming it, nothing written. */
START_TEST(output_unwritable)
{
	static const char *const cases[] = {
		"targets list",
		"targets list --format json",
		"targets show A100-SXM4-80GB",
		"ncu-metrics",
		"ncu-metrics --list -q",
		"project --builtin",
	};
	char *dir = test_tmpdir(), *err, *args, *bad;
	size_t i;

	/* Under a regular file: no directory can be made there, even as root. */
	free(test_write_file(dir, "file", "x"));
	ck_assert_int_gt(asprintf(&bad, "%s/file/f", dir), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_gt(asprintf(&args, "%s -o '%s'", cases[i], bad), 0);
		ck_assert_msg(test_cli(NULL, &err, "%s", args) == 2, "%s", args);
		ck_assert_msg(strstr(err, bad) != NULL, "%s: %s", args, err);
		free(err);
		free(args);
		ck_assert_int_gt(asprintf(&args, "%s -o /nonexistent/dir/f", cases[i]), 0);
		ck_assert_msg(test_cli(NULL, &err, "%s", args) == 2, "%s", args);
		ck_assert_msg(strstr(err, "gpuproj: /nonexistent/dir/f: ") != NULL, "%s: %s",
			      args, err);
		free(err);
		free(args);
	}
	ck_assert_int_eq(report(dir, &err, "-o /nonexistent/dir/f.md"), 2);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/dir/f.md"));
	free(err);
	ck_assert_int_eq(test_cli_at(dir, NULL, NULL, &err, "import xla-matmul '%s' -o file/out",
				     test_data("xla-matmul/xla-matmul.csv")), 2);
	ck_assert_ptr_nonnull(strstr(err, "file/out"));
	free(err);
	ck_assert_int_eq(test_count_dir(dir), 1);
	free(bad);
	test_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *
convention_suite(void)
{
	Suite *s = suite_create("cli-convention");
	TCase *tc = tcase_create("cli-convention");

	tcase_add_test(tc, targets_list_json_csv);
	tcase_add_test(tc, report_output_and_format);
	tcase_add_test(tc, progress_always_and_quiet);
	tcase_add_test(tc, output_unwritable);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(convention_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
