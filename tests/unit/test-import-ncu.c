/* SPDX-License-Identifier: MIT */
/*
 * Nsight Compute CSV import: the helpers of import-common.h (numbers with
 * thousands separators, launch dimensions, units), the long (`ncu --csv`)
 * and raw (`--page raw`) layouts with aggregation checked numerically, one
 * test per class of bad input (exact message, position, nothing written),
 * and `gpuproj import ncu` end to end.
 *
 * Fixtures (tests/data/ncu-*.csv) are written after real ncu output:
 * - ncu-long.csv: ncu 2023+ `--csv --metrics …`, "Estimated Speedup"
 *   columns, ==PROF== lines and one line of application output before the
 *   header, demangled names with commas, auto-scaled units (the same metric
 *   in msecond/usecond/nsecond and Mbyte/Kbyte/byte), n/a values, rows
 *   without the trailing rule columns;
 * - ncu-sections.csv: the default `ncu --csv` (section labels such as
 *   "Duration", rule rows, "Memory Throughput" in two sections);
 * - ncu-old.csv: ncu 2020 ("Kernel Time", no launch columns);
 * - ncu-raw.csv: `--page raw --print-kernel-base mangled`, CRLF;
 * - ncu-2020-sol.csv: Nsight Compute 2020.1 (`nv-nsight-cu-cli --csv`,
 *   default sections): the section named "GPU Speed Of Light", its labels
 *   "SOL FB", "SOL L2", "SOL TEX", "SM [%]", "Memory [%]", units
 *   "cycle/second" and "nsecond", a "Kernel Time" column, Launch
 *   Statistics' "Block Size"/"Grid Size" as totals (the shape of exports
 *   of that version in public repositories, e.g. Rodinia kernel logs);
 * - ncu-roofline.csv: the roofline recipe's metric list (NERSC's
 *   "Roofline on NVIDIA GPUs" collects sm__cycles_elapsed.avg and
 *   .avg.per_second instead of gpu__time_duration.sum), no launch columns;
 * - ncu-b200-sections.csv: ncu 2025 on a B200 (CC 10.0), default sections:
 *   metric rows end after "Metric Value" with a trailing comma while rule
 *   rows fill the five rule columns, "# SMs" in unit "SM", text-valued
 *   labels (PolicySpread, CachePreferNone, all), 5 KB-class template
 *   names, the application's output before the header;
 * - ncu-metrics-gh100.csv, ncu-metrics-gb202.csv: `--page raw` exports of
 *   exactly the list `gpuproj ncu-metrics --chip GH100` (GB202) prints, with
 *   the units row and the alphabetical column order of the raw page.
 * Inline inputs follow the Nsight Compute CLI manual's descriptions of
 * `--csv`, `--page raw` and `--print-units`. Every number in them is made
 * up; no file of another project is copied.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>

#include "common.h"
#include "import-common.h"

static char *dir;

static void
setup(void)
{
	dir = test_tmpdir();
}

static void
teardown(void)
{
	test_rmtree(dir);
	free(dir);
	dir = NULL;
}

/* ---- helpers ---- */

#define assert_near(actual, expected)                                                    \
	do {                                                                             \
		double a_ = (actual), e_ = (expected);                                   \
		ck_assert_msg(fabs(a_ - e_) <= 1e-9 * fmax(1.0, fabs(e_)),               \
			      "%s = %.17g, expected %.17g", #actual, a_, e_);            \
	} while (0)

static struct gpuproj_profile *
import_ok(const char *path, struct gpuproj_import_summary *sum)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	char buf[2048];
	int r = gpuproj_import_ncu(path, &p, sum, &err);

	ck_assert_msg(r == GPUPROJ_OK, "%s", gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_ptr_nonnull(p);
	return p;
}

/* The record of a kernel by name and grid (fails the test when absent). */
static struct gpuproj_kernel *
kernel(const struct gpuproj_profile *p, const char *name, uint32_t gx, uint32_t gy,
       uint32_t gz)
{
	size_t i;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (strcmp(k->name, name) == 0 && k->grid.x == gx && k->grid.y == gy &&
		    k->grid.z == gz)
			return k;
	}
	ck_abort_msg("no kernel %s with grid (%u, %u, %u)", name, gx, gy, gz);
	return NULL;
}

static const struct gpuproj_extra_metric *
extra(const struct gpuproj_kernel *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, name) == 0)
			return &k->extra[i];
	}
	return NULL;
}

static void
assert_metric(const struct gpuproj_kernel *k, enum gpuproj_metric m, double mean, uint32_t n)
{
	ck_assert_msg(k->metric_n[m] == n, "%s: %s reported by %u launches, expected %u",
		      k->name, gpuproj_metric_name(m), k->metric_n[m], n);
	assert_near(gpuproj_kernel_metric(k, m), mean);
}

static void
assert_extra(const struct gpuproj_kernel *k, const char *name, const char *unit, double mean,
	     uint64_t n)
{
	const struct gpuproj_extra_metric *e = extra(k, name);

	ck_assert_msg(e != NULL, "%s: no extra metric %s", k->name, name);
	ck_assert_str_eq(e->unit, unit);
	ck_assert_uint_eq(e->n, n);
	assert_near(e->sum / (double)e->n, mean);
}

/* 1-based column of `needle` in `line`. */
static int
column_of(const char *line, const char *needle)
{
	const char *at = strstr(line, needle);

	ck_assert_ptr_nonnull(at);
	return (int)(at - line) + 1;
}

/* The start of a long-format row: launch 0 of k(int), grid (4, 1, 1). */
#define LONG_HEADER                                                                        \
	"\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","  \
	"\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","          \
	"\"Metric Name\",\"Metric Unit\",\"Metric Value\""
#define ROW(id) "\"" id "\",\"77\",\"app\",\"h\",\"k(int)\",\"1\",\"7\",\"(256, 1, 1)\","   \
	"\"(4, 1, 1)\",\"0\",\"8.0\",\"Command line profiler metrics\","

/* ---- import-common.h helpers ---- */

static const struct {
	const char *text;
	bool ok;
	double value;
} number_cases[] = {
	{ "12", true, 12 },
	{ "1,234,567", true, 1234567 },
	{ "1,073,741,824", true, 1073741824.0 },
	{ "1,100.50", true, 1100.5 },
	{ "-1,000", true, -1000 },
	{ " 7 ", true, 7 },
	{ "0.0015", true, 0.0015 },
	{ "1.5e-6", true, 1.5e-6 },
	{ "123,456.5e3", true, 123456500 },
	{ "1,23", false, 0 },
	{ "12,3456", false, 0 },
	{ "1234,567", false, 0 },
	{ ",123", false, 0 },
	{ "1,,234", false, 0 },
	{ "1,234,", false, 0 },
	{ "", false, 0 },
	{ "n/a", false, 0 },
	{ "abc", false, 0 },
	{ "1.2.3", false, 0 },
	{ "0x10", false, 0 },
	{ "inf", false, 0 },
	{ "12 34", false, 0 },
};

START_TEST(number_parse)
{
	double v = -99;
	bool ok = import_parse_number(number_cases[_i].text, &v);

	ck_assert_msg(ok == number_cases[_i].ok, "'%s': parsed %d, expected %d",
		      number_cases[_i].text, ok, number_cases[_i].ok);
	if (ok)
		assert_near(v, number_cases[_i].value);
	else
		ck_assert_double_eq(v, -99);
}
END_TEST

START_TEST(number_absent)
{
	ck_assert(import_value_absent(""));
	ck_assert(import_value_absent("  "));
	ck_assert(import_value_absent("n/a"));
	ck_assert(import_value_absent("N/A"));
	ck_assert(!import_value_absent("0"));
	ck_assert(!import_value_absent("n/a2"));
}
END_TEST

static const struct {
	const char *text;
	bool ok;
	uint32_t x, y, z;
} dim3_cases[] = {
	{ "(256, 1, 1)", true, 256, 1, 1 },
	{ "(16,16,1)", true, 16, 16, 1 },
	{ " (16, 64, 128) ", true, 16, 64, 128 },
	{ "1024", true, 1024, 1, 1 },
	{ "32, 4", true, 32, 4, 1 },
	{ "(4294967295, 1, 1)", true, 4294967295u, 1, 1 },
	{ "(4294967296, 1, 1)", false, 0, 0, 0 },
	{ "(0, 1, 1)", false, 0, 0, 0 },
	{ "(1, 1, 1, 1)", false, 0, 0, 0 },
	{ "(256, 1, 1", false, 0, 0, 0 },
	{ "(-1, 1, 1)", false, 0, 0, 0 },
	{ "", false, 0, 0, 0 },
	{ "(a, 1, 1)", false, 0, 0, 0 },
};

START_TEST(dim3_parse)
{
	struct gpuproj_dim3 d = { 7, 7, 7 };
	bool ok = import_parse_dim3(dim3_cases[_i].text, &d);

	ck_assert_msg(ok == dim3_cases[_i].ok, "'%s'", dim3_cases[_i].text);
	if (ok) {
		ck_assert_uint_eq(d.x, dim3_cases[_i].x);
		ck_assert_uint_eq(d.y, dim3_cases[_i].y);
		ck_assert_uint_eq(d.z, dim3_cases[_i].z);
	}
}
END_TEST

static const struct {
	const char *unit;
	enum import_unit_family family;
	double scale;
	const char *base;
} unit_cases[] = {
	{ "", IMPORT_UNIT_NONE, 1, "" },
	{ "%", IMPORT_UNIT_PERCENT, 1, "%" },
	{ "nsecond", IMPORT_UNIT_TIME, 1, "nsecond" },
	{ "usecond", IMPORT_UNIT_TIME, 1e3, "nsecond" },
	{ "msecond", IMPORT_UNIT_TIME, 1e6, "nsecond" },
	{ "second", IMPORT_UNIT_TIME, 1e9, "nsecond" },
	{ "us", IMPORT_UNIT_TIME, 1e3, "nsecond" },
	{ "byte", IMPORT_UNIT_BYTES, 1, "byte" },
	/* ncu's byte prefixes are decimal (see import-common.c). */
	{ "Kbyte", IMPORT_UNIT_BYTES, 1e3, "byte" },
	{ "Mbyte", IMPORT_UNIT_BYTES, 1e6, "byte" },
	{ "Gbyte", IMPORT_UNIT_BYTES, 1e9, "byte" },
	{ "Tbyte", IMPORT_UNIT_BYTES, 1e12, "byte" },
	{ "KiB", IMPORT_UNIT_BYTES, 1024, "byte" },
	{ "Kbyte/block", IMPORT_UNIT_BYTES, 1e3, "byte" },
	{ "hz", IMPORT_UNIT_FREQUENCY, 1, "hz" },
	{ "Ghz", IMPORT_UNIT_FREQUENCY, 1e9, "hz" },
	{ "cycle/nsecond", IMPORT_UNIT_FREQUENCY, 1e9, "hz" },
	{ "cycle/usecond", IMPORT_UNIT_FREQUENCY, 1e6, "hz" },
	{ "byte/second", IMPORT_UNIT_BANDWIDTH, 1, "byte/second" },
	{ "Gbyte/second", IMPORT_UNIT_BANDWIDTH, 1e9, "byte/second" },
	{ "Tbyte/s", IMPORT_UNIT_BANDWIDTH, 1e12, "byte/second" },
	{ "inst", IMPORT_UNIT_COUNT, 1, "inst" },
	{ "Minst", IMPORT_UNIT_COUNT, 1e6, "inst" },
	{ "cycle", IMPORT_UNIT_COUNT, 1, "cycle" },
	{ "register/thread", IMPORT_UNIT_COUNT, 1, "register/thread" },
	{ "inst/cycle", IMPORT_UNIT_COUNT, 1, "inst/cycle" },
	{ "furlong", IMPORT_UNIT_OTHER, 1, "" },
	{ "Xbyte", IMPORT_UNIT_OTHER, 1, "" },
};

START_TEST(unit_classify)
{
	struct import_unit u;

	import_unit_parse(unit_cases[_i].unit, &u);
	ck_assert_msg(u.family == unit_cases[_i].family, "'%s': family %s, expected %s",
		      unit_cases[_i].unit, import_unit_family_name(u.family),
		      import_unit_family_name(unit_cases[_i].family));
	ck_assert_msg(u.scale == unit_cases[_i].scale, "'%s': scale %g, expected %g",
		      unit_cases[_i].unit, u.scale, unit_cases[_i].scale);
	ck_assert_str_eq(u.base, unit_cases[_i].base);
}
END_TEST

START_TEST(csv_positions)
{
	static const char text[] = "\"a\",\"b,c\" , d\n\n  \n\"x\"\"y\",\"\"\r\n";
	struct import_csv t = { 0 };
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(import_csv_read_buffer(text, strlen(text), "t.csv", NULL, &t, &err), 0);
	ck_assert_uint_eq(t.n_rows, 2);
	ck_assert_int_eq(t.n_lines, 4);
	ck_assert_uint_eq(t.rows[0].n, 3);
	ck_assert_str_eq(t.rows[0].fields[1], "b,c");
	ck_assert_str_eq(t.rows[0].fields[2], "d");
	ck_assert_int_eq(t.rows[0].line, 1);
	ck_assert_int_eq(t.rows[0].columns[0], 1);
	ck_assert_int_eq(t.rows[0].columns[1], 5);
	ck_assert_int_eq(t.rows[0].columns[2], 12);
	ck_assert_int_eq(t.rows[1].line, 4);
	ck_assert_str_eq(t.rows[1].fields[0], "x\"y");
	ck_assert_str_eq(t.rows[1].fields[1], "");
	ck_assert_int_eq(t.rows[1].columns[1], 8);
	ck_assert_str_eq(import_csv_field(&t.rows[1], 5), "");
	ck_assert_int_eq(import_csv_find(&t.rows[0], "b,c"), 1);
	ck_assert_int_eq(import_csv_find(&t.rows[0], "B,C"), -1);
	import_csv_clear(&t);
}
END_TEST

/* ---- the long layout ---- */

START_TEST(long_aggregates_launches)
{
	struct gpuproj_profile *p = import_ok(test_data("ncu-long.csv"), NULL);
	const char *gemm = "void gemm<float>(int, float const*, float*)";
	struct gpuproj_kernel *k;

	ck_assert_uint_eq(gpuproj_profile_count(p), 3);

	/* IDs 0, 2, 3: three launches of one signature, printed in three time units. */
	k = kernel(p, gemm, 64, 64, 1);
	ck_assert_uint_eq(k->launches, 3);
	ck_assert_uint_eq(k->profiled, 3);
	ck_assert_uint_eq(k->duration_ns.n, 3);
	assert_near(k->duration_ns.min, 900000);      /* "900,000" nsecond */
	assert_near(k->duration_ns.max, 1100500);     /* "1,100.50" usecond */
	assert_near(k->duration_ns.sum, 3000500);     /* + "1.00" msecond */
	assert_near(gpuproj_kernel_mean_ns(k), 3000500.0 / 3.0);
	ck_assert_uint_eq(k->block.x, 16);
	ck_assert_uint_eq(k->block.y, 16);
	ck_assert_uint_eq(k->block.z, 1);
	ck_assert_uint_eq(k->smem_dynamic, 2050);     /* "2.05" Kbyte/block */
	ck_assert_uint_eq(k->smem_static, 512);
	ck_assert_uint_eq(k->regs_per_thread, 64);
	ck_assert_int_eq(k->device, 0);
	ck_assert_str_eq(k->tag, "");
	assert_metric(k, GPUPROJ_M_INST_FP32_FMA, 1073741824.0, 3);
	assert_metric(k, GPUPROJ_M_INST_FP32_ADD, 2000, 3); /* 1,000 2,000 3,000 */
	assert_metric(k, GPUPROJ_M_INST_FP64_FMA, 0, 3);    /* the sm__ spelling */
	assert_metric(k, GPUPROJ_M_WARP_EFFICIENCY, 0.9, 3); /* 28.8 / 32 */
	assert_metric(k, GPUPROJ_M_BYTES_L1, 4e6, 3);
	assert_metric(k, GPUPROJ_M_BYTES_L2, 3e6, 3);
	assert_metric(k, GPUPROJ_M_BYTES_DRAM, 1.5e6, 3);   /* Mbyte, Kbyte, byte */
	assert_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS, 12288, 3);
	assert_metric(k, GPUPROJ_M_OCCUPANCY_ACHIEVED, 0.625, 3);
	assert_metric(k, GPUPROJ_M_CLOCK_SM, 1.755e9, 3);
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM_READ));
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_INST_WARP));

	/* Another grid is another signature. */
	k = kernel(p, gemm, 128, 64, 1);
	ck_assert_uint_eq(k->launches, 1);
	assert_near(gpuproj_kernel_mean_ns(k), 2e6);
	assert_metric(k, GPUPROJ_M_INST_FP32_FMA, 2147483648.0, 1);
	ck_assert_uint_eq(k->smem_dynamic, 2050);
	ck_assert_uint_eq(k->smem_static, 0);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(long_na_is_absent)
{
	struct gpuproj_profile *p = import_ok(test_data("ncu-long.csv"), NULL);
	struct gpuproj_kernel *k = kernel(p, "void gemm<float>(int, float const*, float*)", 64,
					  64, 1);

	/* hfma is n/a in every launch: not collected, not zero. */
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_INST_FP16_FMA));
	ck_assert(isnan(gpuproj_kernel_metric(k, GPUPROJ_M_INST_FP16_FMA)));
	/* fmul is n/a in launch 0 only: the mean of 500 and 700, not of 0, 500, 700. */
	assert_metric(k, GPUPROJ_M_INST_FP32_MUL, 600, 2);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(long_demangled_names_with_commas)
{
	struct gpuproj_profile *p = import_ok(test_data("ncu-long.csv"), NULL);
	const char *reduce = "reduce_sum_kernel(const int *, unsigned long long *, int)";
	struct gpuproj_kernel *k = kernel(p, reduce, 16385, 1, 1);

	ck_assert_str_eq(k->name, reduce);
	ck_assert_ptr_nonnull(k->demangled);
	ck_assert_str_eq(k->demangled, reduce);
	ck_assert_uint_eq(k->block.x, 256);
	ck_assert_uint_eq(k->regs_per_thread, 16);
	/* Insertion order follows the launches: gemm (ID 0), reduce (ID 1), gemm (ID 4). */
	ck_assert_str_eq(gpuproj_profile_at(p, 0)->name,
			 "void gemm<float>(int, float const*, float*)");
	ck_assert_ptr_eq(gpuproj_profile_at(p, 1), k);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(long_read_write_and_derived_efficiency)
{
	struct gpuproj_profile *p = import_ok(test_data("ncu-long.csv"), NULL);
	struct gpuproj_kernel *k = kernel(p, "reduce_sum_kernel(const int *, unsigned long long *, "
					  "int)", 16385, 1, 1);

	assert_near(gpuproj_kernel_mean_ns(k), 5120);          /* "5.12" usecond */
	assert_metric(k, GPUPROJ_M_BYTES_DRAM_READ, 4.19e6, 1);
	assert_metric(k, GPUPROJ_M_BYTES_DRAM_WRITE, 128, 1);
	assert_metric(k, GPUPROJ_M_BYTES_DRAM, 4190128, 1);    /* read + write */
	assert_metric(k, GPUPROJ_M_INST_WARP, 98765, 1);
	assert_metric(k, GPUPROJ_M_INST_THREAD, 2370360, 1);
	/* No ratio metric: 2,370,360 / (32 × 98,765). */
	assert_metric(k, GPUPROJ_M_WARP_EFFICIENCY, 0.75, 1);
	assert_metric(k, GPUPROJ_M_INST_INT, 1048576, 1);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(long_unknown_metrics_kept)
{
	struct gpuproj_profile *p = import_ok(test_data("ncu-long.csv"), NULL);
	struct gpuproj_kernel *k = kernel(p, "void gemm<float>(int, float const*, float*)", 64,
					  64, 1);

	ck_assert_uint_eq(k->n_extra, 2);
	/* 2.50 Mbyte, 2,600.00 Kbyte, 2,700,000 byte: averaged in bytes. */
	assert_extra(k, "l1tex__m_xbar2l1tex_read_bytes.sum", "byte", 2.6e6, 3);
	assert_extra(k, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", 47.2, 3);
	/* Mapped metrics and device attributes are not repeated there. */
	ck_assert_ptr_null(extra(k, "dram__bytes.sum"));
	ck_assert_ptr_null(extra(k, "device__attribute_multiprocessor_count"));
	ck_assert_uint_eq(kernel(p, "reduce_sum_kernel(const int *, unsigned long long *, int)",
				 16385, 1, 1)->n_extra, 0);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(long_summary_and_context)
{
	/*
	 * What the default model cannot do without (gpuproj_model_missing_inputs):
	 * nothing, since every kernel has FLOP or bytes; what it assumes in
	 * their place (gpuproj_model_assumptions()): two of the three kernels
	 * were profiled without memory or FP metrics, one counts DRAM bytes
	 * only (model.h enum gpuproj_assumption).
	 */
	static const unsigned want[GPUPROJ_ASSUME_COUNT] = {
		[GPUPROJ_ASSUME_SHARED] = 2, [GPUPROJ_ASSUME_WARPS] = 1, [GPUPROJ_ASSUME_L1] = 2,
		[GPUPROJ_ASSUME_L2] = 2, [GPUPROJ_ASSUME_DRAM] = 1, [GPUPROJ_ASSUME_FLOP] = 1,
	};
	unsigned count[GPUPROJ_ASSUME_COUNT] = { 0 };
	int a;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(test_data("ncu-long.csv"), &sum);
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const struct gpuproj_process_info *pr = gpuproj_profile_process(p);
	char expect[4200];
	size_t i;

	ck_assert_uint_eq(sum.rows, 75);
	ck_assert_uint_eq(sum.launches, 5);
	ck_assert_uint_eq(sum.kernels, 3);
	ck_assert_uint_eq(sum.kept_metrics, 2);
	ck_assert_uint_eq(sum.n_missing, 0);
	ck_assert_uint_eq(sum.kernels_missing, 0);
	for (i = 0; i < gpuproj_profile_count(p); i++) {
		unsigned bits = gpuproj_model_assumptions(gpuproj_model_default(),
							  gpuproj_profile_at(p, i));

		for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++)
			count[a] += (bits >> a) & 1u;
	}
	for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++)
		ck_assert_uint_eq(count[a], want[a]);
	/* The ==PROF== lines go silently; the application's line is reported. */
	ck_assert_uint_eq(sum.n_warnings, 1);
	snprintf(expect, sizeof(expect), "%s:2: skipped 1 line that is not CSV (application "
		 "output?)", test_data("ncu-long.csv"));
	ck_assert_str_eq(sum.warnings[0], expect);

	ck_assert_str_eq(d->name, "NVIDIA H100 80GB HBM3");
	ck_assert_int_eq(d->cc_major, 9);
	ck_assert_int_eq(d->cc_minor, 0);
	ck_assert_int_eq(d->sms, 132);
	ck_assert_str_eq(pr->application, "gemm_bench");
	ck_assert_str_eq(pr->host, "127.0.0.1");
	ck_assert_int_eq(pr->pid, 21093);
	ck_assert_str_eq(gpuproj_profile_attr(p, "origin"), "ncu-import");
	ck_assert_str_eq(gpuproj_profile_attr(p, "import.file"), test_data("ncu-long.csv"));
	ck_assert_str_eq(gpuproj_profile_attr(p, "import.format"), "ncu --csv");
	ck_assert_str_eq(gpuproj_profile_attr(p, "tool_version"), GPUPROJ_VERSION);
	gpuproj_import_summary_clear(&sum);
	ck_assert_ptr_null(sum.missing);
	ck_assert_uint_eq(sum.n_warnings, 0);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(sections_labels_mapped)
{
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(test_data("ncu-sections.csv"), &sum);
	struct gpuproj_kernel *k = kernel(p, "vectorAdd(const float *, const float *, float *, "
					  "int)", 196, 1, 1);
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	char expect[4200];

	ck_assert_uint_eq(gpuproj_profile_count(p), 1);
	ck_assert_uint_eq(k->launches, 2);
	assert_near(k->duration_ns.min, 4480);                 /* "Duration" 4.48 usecond */
	assert_near(k->duration_ns.max, 4640);
	assert_metric(k, GPUPROJ_M_CLOCK_SM, 1.40e9, 2);       /* "SM Frequency" cycle/nsecond */
	assert_metric(k, GPUPROJ_M_OCCUPANCY_ACHIEVED, 0.18, 2); /* "Achieved Occupancy" % */
	assert_metric(k, GPUPROJ_M_CYCLES_SM_ACTIVE, 3621.45, 2);
	ck_assert_uint_eq(k->regs_per_thread, 16);
	ck_assert_uint_eq(k->block.x, 256);
	/*
	 * One label, two sections, two meanings: the speed-of-light percentage
	 * is kept; Memory Workload Analysis's byte rate × the duration is the
	 * DRAM traffic (352.91 GB/s × 4.48 us and × 4.64 us).
	 */
	assert_extra(k, "GPU Speed Of Light Throughput: Memory Throughput", "%", 78.41, 2);
	ck_assert_ptr_null(extra(k, "Memory Workload Analysis: Memory Throughput"));
	assert_metric(k, GPUPROJ_M_BYTES_DRAM, 352.91e9 * (4.48e-6 + 4.64e-6) / 2, 2);
	/* The sol model's inputs under their metric names (model.h). */
	assert_extra(k, GPUPROJ_SOL_DRAM_PCT, "%", 78.41, 2);
	assert_extra(k, GPUPROJ_SOL_L2_PCT, "%", 30.19, 2);
	assert_extra(k, GPUPROJ_SOL_L1_PCT, "%", 18.27, 2);
	assert_extra(k, GPUPROJ_SOL_SM_PCT, "%", 10.82, 2);
	assert_extra(k, "Launch Statistics: Driver Shared Memory Per Block", "byte", 1020, 2);
	assert_extra(k, "GPU Speed Of Light Throughput: Elapsed Cycles", "cycle", 6218, 2);
	/* Rule rows (no metric name) are rows, not metrics. */
	ck_assert_uint_eq(sum.rows, 58);
	ck_assert_uint_eq(sum.kept_metrics, 18);
	/* A setting ("CachePreferNone"), not a measurement: one line, not a warning each. */
	ck_assert_uint_eq(sum.n_warnings, 1);
	snprintf(expect, sizeof(expect), "%s: 1 text value not kept (settings, not measurements; "
		 "e.g. Launch Statistics: Function Cache Configuration = CachePreferNone)",
		 test_data("ncu-sections.csv"));
	ck_assert_str_eq(sum.warnings[0], expect);
	/* "Device" holds the ordinal; no name in this file. */
	ck_assert_ptr_null(d->name);
	ck_assert_int_eq(d->cc_major, 8);
	ck_assert_int_eq(d->cc_minor, 6);
	/*
	 * Only bytes.dram (Memory Throughput x duration) and the percentages:
	 * nothing the default model cannot do without, but an export of the
	 * default sections, which sol projects first (no FP count, SM %).
	 */
	ck_assert_uint_eq(sum.n_missing, 0);
	ck_assert_uint_eq(sum.kernels_missing, 0);
	ck_assert(gpuproj_model_prefers_fallback(gpuproj_model_default(),
						 gpuproj_profile_at(p, 0)));
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(old_format_launch_size_from_metrics)
{
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(test_data("ncu-old.csv"), &sum);
	struct gpuproj_kernel *k = kernel(p, "saxpy(int, float, float *, float *)", 4096, 1, 1);

	ck_assert_uint_eq(k->block.x, 256);
	ck_assert_uint_eq(k->block.y, 1);
	ck_assert_uint_eq(k->launches, 2);
	assert_near(gpuproj_kernel_mean_ns(k), 58100);
	assert_metric(k, GPUPROJ_M_BYTES_DRAM, 12.58e6, 2);
	assert_metric(k, GPUPROJ_M_INST_FP32_FMA, 1048576, 2);
	ck_assert_uint_eq(k->n_extra, 0);
	ck_assert_uint_eq(sum.n_warnings, 0);
	ck_assert_uint_eq(sum.rows, 12);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

/* ---- the raw layout ---- */

START_TEST(raw_one_row_per_launch)
{
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(test_data("ncu-raw.csv"), &sum);
	struct gpuproj_kernel *k = kernel(p, "_Z9stencil3dPKdPdiii", 16, 64, 128);
	struct gpuproj_kernel *init = kernel(p, "_Z10init_fieldPdi", 8192, 1, 1);
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);

	ck_assert_uint_eq(gpuproj_profile_count(p), 2);
	/* --print-kernel-base mangled: no demangled name to keep. */
	ck_assert_ptr_null(k->demangled);
	ck_assert_uint_eq(k->block.x, 32);
	ck_assert_uint_eq(k->block.y, 4);
	ck_assert_uint_eq(k->smem_dynamic, 1024);
	ck_assert_uint_eq(k->regs_per_thread, 40);
	ck_assert_uint_eq(k->launches, 2);
	assert_near(k->duration_ns.min, 409800);
	assert_near(k->duration_ns.max, 412320);
	assert_near(gpuproj_kernel_mean_ns(k), 411060);
	assert_metric(k, GPUPROJ_M_BYTES_DRAM, 8450850, 2);   /* Kbyte */
	assert_metric(k, GPUPROJ_M_BYTES_L2, 95.2e6, 2);      /* Mbyte */
	assert_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS, 196608, 2); /* op_ld + op_st */
	assert_metric(k, GPUPROJ_M_WARP_EFFICIENCY, 0.9375, 2); /* 93.75 % */
	assert_metric(k, GPUPROJ_M_CLOCK_SM, 1.38e9, 2);      /* cycle/usecond */
	assert_metric(k, GPUPROJ_M_INST_FP64_FMA, 12582912, 2);
	assert_metric(k, GPUPROJ_M_INST_FP64_ADD, 4194304, 2);
	assert_metric(k, GPUPROJ_M_INST_FP64_MUL, 2097152, 2);
	assert_extra(k, "sm__inst_executed_pipe_tensor.sum", "inst", 0, 2);
	assert_extra(k, "launch__grid_size", "", 131072, 2);
	/* n/a in the last row: the metric is absent there, not zero. */
	ck_assert_ptr_null(extra(init, "sm__inst_executed_pipe_tensor.sum"));
	assert_metric(init, GPUPROJ_M_WARP_EFFICIENCY, 1.0, 1);
	ck_assert_str_eq(d->name, "Tesla V100-SXM2-16GB");
	ck_assert_int_eq(d->cc_major, 7);
	ck_assert_int_eq(d->sms, 80);
	ck_assert_uint_eq(sum.rows, 3);
	ck_assert_uint_eq(sum.launches, 3);
	ck_assert_uint_eq(sum.kernels, 2);
	ck_assert_uint_eq(sum.kept_metrics, 3);
	ck_assert_str_eq(gpuproj_profile_attr(p, "import.format"), "ncu --csv --page raw");
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

/* ---- unit scaling, one row per unit ---- */

static const struct {
	const char *metric, *unit, *value;
	int logical;        /* enum gpuproj_metric, or -1 for the duration */
	double expect;
} scale_cases[] = {
	{ "gpu__time_duration.sum", "nsecond", "1,500", -1, 1500 },
	{ "gpu__time_duration.sum", "usecond", "1.5", -1, 1500 },
	{ "gpu__time_duration.sum", "msecond", "0.0015", -1, 1500 },
	{ "gpu__time_duration.sum", "second", "0.0000015", -1, 1500 },
	{ "gpu__time_duration.sum", "ns", "1500", -1, 1500 },
	{ "gpu__time_duration.sum", "us", "1.50", -1, 1500 },
	{ "gpu__time_duration.sum", "ms", "0.0015", -1, 1500 },
	{ "gpu__time_duration.sum", "s", "1.5e-6", -1, 1500 },
	{ "dram__bytes.sum", "byte", "2,048", GPUPROJ_M_BYTES_DRAM, 2048 },
	{ "dram__bytes.sum", "Kbyte", "2.05", GPUPROJ_M_BYTES_DRAM, 2050 },
	{ "dram__bytes.sum", "Mbyte", "4.19", GPUPROJ_M_BYTES_DRAM, 4190000 },
	{ "dram__bytes.sum", "Gbyte", "1.5", GPUPROJ_M_BYTES_DRAM, 1.5e9 },
	{ "dram__bytes.sum", "Tbyte", "0.5", GPUPROJ_M_BYTES_DRAM, 5e11 },
	{ "dram__bytes.sum", "KiB", "2", GPUPROJ_M_BYTES_DRAM, 2048 },
	{ "sm__cycles_elapsed.avg.per_second", "hz", "1,410,000,000", GPUPROJ_M_CLOCK_SM, 1.41e9 },
	{ "sm__cycles_elapsed.avg.per_second", "Mhz", "1,410", GPUPROJ_M_CLOCK_SM, 1.41e9 },
	{ "sm__cycles_elapsed.avg.per_second", "Ghz", "1.41", GPUPROJ_M_CLOCK_SM, 1.41e9 },
	{ "sm__cycles_elapsed.avg.per_second", "cycle/nsecond", "1.41", GPUPROJ_M_CLOCK_SM,
	  1.41e9 },
	{ "sm__cycles_elapsed.avg.per_second", "cycle/usecond", "1,410", GPUPROJ_M_CLOCK_SM,
	  1.41e9 },
	{ "sm__cycles_elapsed.avg.per_second", "cycle/second", "1,410,000,000",
	  GPUPROJ_M_CLOCK_SM, 1.41e9 },
	{ "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "62.5",
	  GPUPROJ_M_OCCUPANCY_ACHIEVED, 0.625 },
	{ "smsp__thread_inst_executed_per_inst_executed.pct", "%", "75",
	  GPUPROJ_M_WARP_EFFICIENCY, 0.75 },
	{ "smsp__thread_inst_executed_per_inst_executed.ratio", "", "24",
	  GPUPROJ_M_WARP_EFFICIENCY, 0.75 },
	{ "smsp__inst_executed.sum", "inst", "98,765", GPUPROJ_M_INST_WARP, 98765 },
	{ "smsp__inst_executed.sum", "Kinst", "98.765", GPUPROJ_M_INST_WARP, 98765 },
	{ "sm__sass_data_bytes_mem_shared.sum", "Kbyte", "16.38", GPUPROJ_M_SHARED_BYTES, 16380 },
	{ "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "", "12,288",
	  GPUPROJ_M_SHARED_WAVEFRONTS, 12288 },
};

START_TEST(unit_scaling)
{
	char text[2048];
	struct gpuproj_profile *p;
	struct gpuproj_kernel *k;
	char *path;

	snprintf(text, sizeof(text), LONG_HEADER "\n" ROW("0") "\"%s\",\"%s\",\"%s\"\n",
		 scale_cases[_i].metric, scale_cases[_i].unit, scale_cases[_i].value);
	path = test_write_file(dir, "scale.csv", text);
	p = import_ok(path, NULL);
	k = kernel(p, "k(int)", 4, 1, 1);
	if (scale_cases[_i].logical < 0) {
		ck_assert_uint_eq(k->duration_ns.n, 1);
		assert_near(k->duration_ns.mean, scale_cases[_i].expect);
	} else {
		ck_assert_msg(gpuproj_kernel_has(k, (enum gpuproj_metric)scale_cases[_i].logical),
			      "%s in %s", scale_cases[_i].metric, scale_cases[_i].unit);
		assert_near(gpuproj_kernel_metric(k, (enum gpuproj_metric)scale_cases[_i].logical),
			    scale_cases[_i].expect);
		ck_assert_uint_eq(k->duration_ns.n, 0);
		ck_assert_uint_eq(k->launches, 1);
	}
	free(path);
	gpuproj_profile_free(p);
}
END_TEST

/* ---- files as people have them ---- */

START_TEST(appended_runs_with_repeated_headers)
{
	static const char text[] =
		"==PROF== Connected to process 77 (/bin/app)\n"
		LONG_HEADER "\n"
		ROW("0") "\"gpu__time_duration.sum\",\"nsecond\",\"100\"\n"
		"==PROF== Disconnected from process 77\n"
		"==PROF== Connected to process 78 (/bin/app)\n"
		LONG_HEADER "\n"
		"\"0\",\"78\",\"app\",\"h\",\"k(int)\",\"1\",\"7\",\"(256, 1, 1)\",\"(4, 1, 1)\","
		"\"0\",\"8.0\",\"Command line profiler metrics\",\"gpu__time_duration.sum\","
		"\"nsecond\",\"300\"\n";
	char *path = test_write_file(dir, "appended.csv", text);
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(path, &sum);
	struct gpuproj_kernel *k = kernel(p, "k(int)", 4, 1, 1);

	/* Two processes, both with launch ID 0: two launches. */
	ck_assert_uint_eq(k->launches, 2);
	assert_near(gpuproj_kernel_mean_ns(k), 200);
	ck_assert_uint_eq(sum.rows, 2);
	ck_assert_uint_eq(sum.n_warnings, 1);
	ck_assert_ptr_nonnull(strstr(sum.warnings[0], "launches from several processes"));
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

START_TEST(application_output_between_results)
{
	static const char text[] =
		"==PROF== Connected to process 77 (/bin/app)\n"
		"==PROF== Connected to process 78 (/bin/app)\n"
		LONG_HEADER "\n"
		ROW("0") "\"gpu__time_duration.sum\",\"nsecond\",\"100\"\n"
		"worker 78: done, checksum 0x5eed\n"
		"==PROF== Disconnected from process 78\n"
		ROW("1") "\"gpu__time_duration.sum\",\"nsecond\",\"300\"\n"
		"\n"
		"All done.\n";
	char *path = test_write_file(dir, "mixed.csv", text);
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(path, &sum);
	char expect[4200];

	ck_assert_uint_eq(kernel(p, "k(int)", 4, 1, 1)->launches, 2);
	ck_assert_uint_eq(sum.rows, 2);
	ck_assert_uint_eq(sum.n_warnings, 1);
	snprintf(expect, sizeof(expect), "%s:5: skipped 2 lines that are not CSV (application "
		 "output?)", path);
	ck_assert_str_eq(sum.warnings[0], expect);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

START_TEST(bom_and_crlf)
{
	static const char text[] = "\xef\xbb\xbf" LONG_HEADER "\r\n"
		ROW("0") "\"gpu__time_duration.sum\",\"usecond\",\"2.5\"\r\n";
	char *path = test_write_file(dir, "windows.csv", text);
	struct gpuproj_profile *p = import_ok(path, NULL);

	assert_near(gpuproj_kernel_mean_ns(kernel(p, "k(int)", 4, 1, 1)), 2500);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

START_TEST(duplicate_metric_in_a_launch)
{
	static const char text[] = LONG_HEADER "\n"
		ROW("0") "\"dram__bytes.sum\",\"byte\",\"100\"\n"
		ROW("0") "\"dram__bytes.sum\",\"byte\",\"100\"\n"
		ROW("0") "\"lts__t_bytes.sum\",\"byte\",\"300\"\n"
		ROW("0") "\"lts__t_bytes.sum\",\"byte\",\"400\"\n";
	char *path = test_write_file(dir, "dup.csv", text);
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(path, &sum);
	struct gpuproj_kernel *k = kernel(p, "k(int)", 4, 1, 1);
	char expect[4200];

	/* The same value twice (two sections list it): silent; different: the first, and a word. */
	assert_metric(k, GPUPROJ_M_BYTES_DRAM, 100, 1);
	assert_metric(k, GPUPROJ_M_BYTES_L2, 300, 1);
	ck_assert_uint_eq(sum.n_warnings, 1);
	snprintf(expect, sizeof(expect), "%s:5: lts__t_bytes.sum appears twice for launch 0 with "
		 "different values (300, 400); kept the first", path);
	ck_assert_str_eq(sum.warnings[0], expect);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

/*
 * L2 bytes: the SMs' sectors (lts__t_sectors_srcunit_tex.sum x 32 B, what
 * libproj.so collects) win over lts__t_bytes.sum, which on split-L2 chips
 * also counts the traffic between the two partitions; the other is kept by
 * name. Without the srcunit_tex form, lts__t_bytes.sum is used.
 */
START_TEST(l2_bytes_prefer_sm_sectors)
{
	static const char both[] = LONG_HEADER "\n"
		ROW("0") "\"lts__t_bytes.sum\",\"byte\",\"4,000\"\n"
		ROW("0") "\"lts__t_sectors_srcunit_tex.sum\",\"sector\",\"100\"\n";
	static const char only_bytes[] = LONG_HEADER "\n"
		ROW("0") "\"lts__t_bytes.sum\",\"byte\",\"4,000\"\n";
	char *path = test_write_file(dir, "l2-both.csv", both);
	struct gpuproj_profile *p = import_ok(path, NULL);
	struct gpuproj_kernel *k = kernel(p, "k(int)", 4, 1, 1);
	size_t i, kept = 0;

	assert_metric(k, GPUPROJ_M_BYTES_L2, 3200, 1);
	assert_metric(k, GPUPROJ_M_SECTORS_L2, 100, 1);
	for (i = 0; i < k->n_extra; i++)
		kept += strcmp(k->extra[i].name, "lts__t_bytes.sum") == 0 && k->extra[i].sum == 4000;
	ck_assert_uint_eq(kept, 1);
	gpuproj_profile_free(p);
	free(path);
	path = test_write_file(dir, "l2-bytes.csv", only_bytes);
	p = import_ok(path, NULL);
	assert_metric(kernel(p, "k(int)", 4, 1, 1), GPUPROJ_M_BYTES_L2, 4000, 1);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

/*
 * What the mapped sources leave unset comes from the core's NVIDIA name
 * table (include/gpuproj/nvmetrics.h), as libproj.so collects it:
 * inst.other from the six SASS instruction classes (launch 0; launch 1
 * lacks the uniform class and takes the five-class candidate, as on
 * GV100), sectors.l2 from lts__t_sectors_op_read + _op_write. A metric a
 * mapped source gives is not taken twice, and the counters stay by name.
 */
START_TEST(unmapped_counters_through_the_name_table)
{
#define SASS_ROW(id, op, v) \
	ROW(id) "\"smsp__sass_thread_inst_executed_op_" op "_pred_on.sum\",\"inst\",\"" v "\"\n"
	static const char text[] = LONG_HEADER "\n"
		SASS_ROW("0", "bit", "1") SASS_ROW("0", "control", "2")
		SASS_ROW("0", "conversion", "4") SASS_ROW("0", "misc", "8")
		SASS_ROW("0", "inter_thread_communication", "16") SASS_ROW("0", "uniform", "32")
		ROW("0") "\"lts__t_sectors_op_read.sum\",\"sector\",\"100\"\n"
		ROW("0") "\"lts__t_sectors_op_write.sum\",\"sector\",\"20\"\n"
		ROW("0") "\"dram__sectors.sum\",\"sector\",\"7\"\n"
		ROW("0") "\"dram__sectors_op_read.sum\",\"sector\",\"1000\"\n"
		ROW("0") "\"dram__sectors_op_write.sum\",\"sector\",\"1000\"\n"
		SASS_ROW("1", "bit", "1") SASS_ROW("1", "control", "2")
		SASS_ROW("1", "conversion", "4") SASS_ROW("1", "misc", "8")
		SASS_ROW("1", "inter_thread_communication", "16");
#undef SASS_ROW
	char *path = test_write_file(dir, "table-rest.csv", text);
	struct gpuproj_profile *p = import_ok(path, NULL);
	struct gpuproj_kernel *k = kernel(p, "k(int)", 4, 1, 1);

	/* (63 + 31) / 2 launches */
	assert_metric(k, GPUPROJ_M_INST_OTHER, 47, 2);
	assert_metric(k, GPUPROJ_M_SECTORS_L2, 120, 1);
	/* dram__sectors.sum is a mapped source: the op_ pair is not added to it. */
	assert_metric(k, GPUPROJ_M_SECTORS_DRAM, 7, 1);
	ck_assert_ptr_nonnull(extra(k, "lts__t_sectors_op_read.sum"));
	ck_assert_ptr_nonnull(extra(k, "smsp__sass_thread_inst_executed_op_uniform_pred_on.sum"));
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

/*
 * Tensor counters map through the core's candidates
 * (include/gpuproj/tensor.h), as libproj.so resolves them: an A100 export
 * with the operation counters and their _sparsity_on twin, the
 * instruction count and the pipe utilisation, in ncu 2023+'s long layout.
 * Units as ncu prints them with --print-units base: "inst" for
 * instructions, "%" for the percentage; the ops counters' math_op
 * dimension is printed without a unit [GPU?].
 */
START_TEST(tensor_operation_counters)
{
	static const char text[] = LONG_HEADER "\n"
		ROW("0") "\"gpu__time_duration.sum\",\"nsecond\",\"10,000\"\n"
		ROW("0") "\"sm__ops_path_tensor_src_fp16_dst_fp32.sum\",\"\",\"1,000,000\"\n"
		ROW("0") "\"sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_on.sum\",\"\","
			 "\"200,000\"\n"
		ROW("0") "\"sm__ops_path_tensor_src_tf32_dst_fp32.sum\",\"\",\"5,000\"\n"
		ROW("0") "\"sm__inst_executed_pipe_tensor.sum\",\"inst\",\"300\"\n"
		ROW("0") "\"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active\",\"%\","
			 "\"42.5\"\n";
	struct gpuproj_import_summary sum = { 0 };
	char *path = test_write_file(dir, "tensor-ops.csv", text);
	struct gpuproj_profile *p = import_ok(path, &sum);
	struct gpuproj_kernel *k = kernel(p, "k(int)", 4, 1, 1);

	/* 1,000,000 − 200,000 / 2: the executed work of a 2:4-sparse share */
	assert_metric(k, GPUPROJ_M_FLOP_TENSOR_FP16, 900000, 1);
	assert_metric(k, GPUPROJ_M_FLOP_TENSOR_TF32, 5000, 1);
	assert_metric(k, GPUPROJ_M_INST_TENSOR, 300, 1);
	assert_metric(k, GPUPROJ_M_TENSOR_UTILIZATION, 0.425, 1);
	ck_assert_uint_eq(k->metric_n[GPUPROJ_M_FLOP_TENSOR_BF16], 0);
	ck_assert_str_eq(gpuproj_profile_attr(p, "import.tensor.flop.tensor.fp16"),
			 "sm__ops_path_tensor_src_fp16_dst_fp32.sum+"
			 "-0.5*sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_on.sum");
	ck_assert_str_eq(gpuproj_profile_attr(p, "import.tensor.tensor.utilization"),
			 "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active * 0.01");
	ck_assert_uint_eq(sum.n_warnings, 0);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

/*
 * Every tensor counter of a launch is looked at. Before, the
 * first 64 sm__*tensor* / *mma* columns were (a fixed array): with 70
 * other such columns first, the operation counter was never seen and the
 * tensor FLOP was lost without a word.
 */
START_TEST(tensor_counters_beyond_64)
{
	char *text = NULL, *path;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);
	struct gpuproj_profile *p;
	struct gpuproj_kernel *k;

	fputs(LONG_HEADER "\n", f);
	for (i = 0; i < 70; i++)
		fprintf(f, ROW("0") "\"sm__pipe_tensor_op_other%zu.sum\",\"\",\"1\"\n", i);
	fputs(ROW("0") "\"sm__ops_path_tensor_src_fp16_dst_fp32.sum\",\"\",\"1,000\"\n", f);
	fclose(f);
	path = test_write_file(dir, "tensor-many.csv", text);
	p = import_ok(path, NULL);
	k = kernel(p, "k(int)", 4, 1, 1);
	assert_metric(k, GPUPROJ_M_FLOP_TENSOR_FP16, 1000, 1);
	gpuproj_profile_free(p);
	free(path);
	free(text);
}
END_TEST

/*
 * The tensor counters' units are checked as every mapped
 * counter's: a percentage, a time or a size is no count of operations
 * (before: taken as FLOP), and "Gop" is 10^9 op (before: taken as 1.5).
 * The value is on line 2, in the 15th field.
 */
static const struct {
	const char *unit, *expect;
	double flop;
} tensor_unit_cases[] = {
	{ "%", "launch 0: sm__ops_path_tensor_src_fp16_dst_fp32.sum: unit '%' is not a count of "
	  "operations ('op' or none)", 0 },
	{ "nsecond", "launch 0: sm__ops_path_tensor_src_fp16_dst_fp32.sum: unit 'nsecond' is not a "
	  "count of operations ('op' or none)", 0 },
	{ "byte", "launch 0: sm__ops_path_tensor_src_fp16_dst_fp32.sum: unit 'byte' is not a count "
	  "of operations ('op' or none)", 0 },
	{ "Gop", NULL, 1.5e9 },
	{ "op", NULL, 1.5 },
	{ "", NULL, 1.5 },
};

START_TEST(tensor_counter_units)
{
	char text[1024], *path;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	int r;

	snprintf(text, sizeof(text), LONG_HEADER "\n" ROW("0")
		 "\"sm__ops_path_tensor_src_fp16_dst_fp32.sum\",\"%s\",\"1.5\"\n",
		 tensor_unit_cases[_i].unit);
	path = test_write_file(dir, "tensor-unit.csv", text);
	r = gpuproj_import_ncu(path, &p, NULL, &err);
	if (tensor_unit_cases[_i].expect) {
		const char *row = strchr(text, '\n') + 1;

		ck_assert_int_eq(r, GPUPROJ_E_SCHEMA);
		ck_assert_ptr_null(p);
		ck_assert_str_eq(err.message, tensor_unit_cases[_i].expect);
		ck_assert_int_eq(err.line, 2);
		/* The value's column: after the row's 14 fields and their commas. */
		ck_assert_int_eq(err.column, (int)(strstr(row, "\"1.5\"") - row) + 1);
	} else {
		ck_assert_int_eq(r, GPUPROJ_OK);
		assert_metric(kernel(p, "k(int)", 4, 1, 1), GPUPROJ_M_FLOP_TENSOR_FP16,
			      tensor_unit_cases[_i].flop, 1);
		gpuproj_profile_free(p);
	}
	free(path);
}
END_TEST

/* A row of a V100 (CC 7.0) launch. */
#define ROW70(id) "\"" id "\",\"77\",\"app\",\"h\",\"k(int)\",\"1\",\"7\",\"(256, 1, 1)\"," \
	"\"(4, 1, 1)\",\"0\",\"7.0\",\"Command line profiler metrics\","

/*
 * The NERSC hierarchical-roofline recipe [Yang2020] collects only sm__inst_executed_pipe_tensor.sum: FLOP = instructions ×
 * the architecture's default (HMMA.884.F32, 512 on CC 7.0, the recipe's
 * own constant), marked assumed in an attribute and one summary line.
 */
START_TEST(tensor_nersc_recipe_assumed)
{
	static const char text[] = LONG_HEADER "\n"
		ROW70("0") "\"sm__cycles_elapsed.avg\",\"cycle\",\"13,800\"\n"
		ROW70("0") "\"sm__cycles_elapsed.avg.per_second\",\"cycle/second\","
			   "\"1,380,000,000\"\n"
		ROW70("0") "\"sm__inst_executed_pipe_tensor.sum\",\"inst\",\"1,000\"\n"
		ROW70("0") "\"dram__bytes.sum\",\"byte\",\"4,096\"\n";
	struct gpuproj_import_summary sum = { 0 };
	char *path = test_write_file(dir, "nersc.csv", text);
	struct gpuproj_profile *p = import_ok(path, &sum);
	struct gpuproj_kernel *k = kernel(p, "k(int)", 4, 1, 1);
	char expect[512];

	assert_metric(k, GPUPROJ_M_FLOP_TENSOR_FP16, 512000, 1); /* 1,000 × 512 */
	assert_metric(k, GPUPROJ_M_INST_TENSOR, 1000, 1);
	ck_assert_str_eq(gpuproj_profile_attr(p, "import.tensor.flop.tensor.fp16"),
			 "sm__inst_executed_pipe_tensor.sum * 512 (assumed: FLOP per instruction "
			 "of HMMA.884.F32)");
	ck_assert_uint_eq(sum.n_warnings, 1);
	snprintf(expect, sizeof(expect), "%s: flop.tensor.fp16 assumed: "
		 "sm__inst_executed_pipe_tensor.sum x 512 FLOP per instruction (HMMA.884.F32); the "
		 "counters split by instruction family, not by shape", path);
	ck_assert_str_eq(sum.warnings[0], expect);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

/*
 * With an operation counter exported, the HMMA instruction count is never
 * taken as FP16 (it holds the BF16 work too); the IMMA count is its own
 * family (INT8: 8,192 OP per IMMA.16832 on CC 8.0).
 */
START_TEST(tensor_inst_not_beside_ops)
{
	static const char text[] = LONG_HEADER "\n"
		ROW("0") "\"sm__ops_path_tensor_src_bf16_dst_fp32.sum\",\"\",\"4,096\"\n"
		ROW("0") "\"sm__inst_executed_pipe_tensor_op_hmma.sum\",\"inst\",\"1\"\n"
		ROW("0") "\"sm__inst_executed_pipe_tensor_op_imma.sum\",\"inst\",\"2\"\n"
		ROW("0") "\"sm__inst_executed_pipe_tensor.sum\",\"inst\",\"3\"\n";
	struct gpuproj_import_summary sum = { 0 };
	char *path = test_write_file(dir, "tensor-mixed.csv", text);
	struct gpuproj_profile *p = import_ok(path, &sum);
	struct gpuproj_kernel *k = kernel(p, "k(int)", 4, 1, 1);

	assert_metric(k, GPUPROJ_M_FLOP_TENSOR_BF16, 4096, 1);
	ck_assert_uint_eq(k->metric_n[GPUPROJ_M_FLOP_TENSOR_FP16], 0);
	assert_metric(k, GPUPROJ_M_FLOP_TENSOR_INT8, 16384, 1); /* 2 × 8,192 */
	ck_assert_ptr_null(gpuproj_profile_attr(p, "import.tensor.flop.tensor.fp16"));
	ck_assert_uint_eq(sum.n_warnings, 1); /* INT8 assumed */
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

/*
 * The import.tensor.* attribute says what the first launch used; a later
 * launch whose export holds other counters gets its own value and one
 * summary line (here a V100 launch with the NERSC recipe's counter after
 * an A100 launch with the operation counters).
 */
START_TEST(tensor_launches_differ)
{
	static const char text[] = LONG_HEADER "\n"
		ROW("0") "\"sm__ops_path_tensor_src_fp16_dst_fp32.sum\",\"\",\"1,000\"\n"
		ROW70("1") "\"sm__inst_executed_pipe_tensor.sum\",\"inst\",\"2\"\n";
	struct gpuproj_import_summary sum = { 0 };
	char *path = test_write_file(dir, "tensor-differ.csv", text);
	struct gpuproj_profile *p = import_ok(path, &sum);
	struct gpuproj_kernel *k = kernel(p, "k(int)", 4, 1, 1);
	char expect[512];

	assert_metric(k, GPUPROJ_M_FLOP_TENSOR_FP16, (1000 + 2 * 512) / 2.0, 2);
	ck_assert_str_eq(gpuproj_profile_attr(p, "import.tensor.flop.tensor.fp16"),
			 "sm__ops_path_tensor_src_fp16_dst_fp32.sum");
	ck_assert_uint_eq(sum.n_warnings, 1);
	snprintf(expect, sizeof(expect), "%s:3: flop.tensor.fp16 of launch 1 comes from "
		 "sm__inst_executed_pipe_tensor.sum, not from what the first launch used "
		 "(import.tensor.flop.tensor.fp16)", path);
	ck_assert_str_eq(sum.warnings[0], expect);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

START_TEST(extra_metric_in_two_units)
{
	static const char text[] = LONG_HEADER "\n"
		ROW("0") "\"smsp__foo.sum\",\"apple\",\"1\"\n"
		ROW("1") "\"smsp__foo.sum\",\"pear\",\"5\"\n"
		ROW("2") "\"smsp__foo.sum\",\"apple\",\"3\"\n";
	char *path = test_write_file(dir, "units.csv", text);
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(path, &sum);
	struct gpuproj_kernel *k = kernel(p, "k(int)", 4, 1, 1);
	char expect[4200];

	/* An unknown unit is kept verbatim; values in another unit cannot be averaged in. */
	ck_assert_uint_eq(k->launches, 3);
	assert_extra(k, "smsp__foo.sum", "apple", 2, 2);
	ck_assert_uint_eq(sum.n_warnings, 1);
	snprintf(expect, sizeof(expect), "%s:3: smsp__foo.sum is in 'pear' here but in 'apple' "
		 "before; kept only the values in 'apple'", path);
	ck_assert_str_eq(sum.warnings[0], expect);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

START_TEST(no_launch_dimensions)
{
	static const char text[] =
		"\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\","
		"\"Metric Value\"\n"
		"\"0\",\"5\",\"k\",\"gpu__time_duration.sum\",\"nsecond\",\"10\"\n";
	char *path = test_write_file(dir, "nodims.csv", text);
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(path, &sum);
	char expect[4200];

	/* Placeholders, marked as such: no model reads them as a launch of one thread. */
	ck_assert_str_eq(kernel(p, "k", 1, 1, 1)->tag, GPUPROJ_TAG_NO_GEOMETRY);
	ck_assert(!gpuproj_kernel_geometry_known(kernel(p, "k", 1, 1, 1)));
	ck_assert_uint_eq(sum.n_warnings, 1);
	snprintf(expect, sizeof(expect), "%s: 1 launch of 1 kernel without a launch geometry (no "
		 "\"Grid Size\"/\"Block Size\" columns, no LaunchStats section, no "
		 "launch__grid_size/launch__block_size or launch__grid_dim_*/launch__block_dim_*): "
		 "each kernel's launches fold into one record tagged \"launch geometry unknown\", "
		 "and the models project it without occupancy or wave term (assumed: occupancy "
		 "unknown); collect it with --section LaunchStats or `gpuproj ncu-metrics`", path);
	ck_assert_str_eq(sum.warnings[0], expect);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

/* ---- bad input: one test per class ---- */

/*
 * Write `text` to dir/name, import it, and expect `status` at line:column
 * with exactly `message`; then `gpuproj import ncu` must exit 1, print the
 * same error, and leave nothing but the input in dir.
 */
static void
expect_error(const char *name, const char *text, int status, int line, int column,
	     const char *message)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_error err = { 0 };
	char *path, *out, *errout, *expect, buf[2048];
	int rc;

	path = text ? test_write_file(dir, name, text) : NULL;
	if (!path && asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	ck_assert_int_eq(gpuproj_import_ncu(path, &p, &sum, &err), status);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(err.status, status);
	ck_assert_str_eq(err.file, path);
	ck_assert_int_eq(err.line, line);
	ck_assert_int_eq(err.column, column);
	ck_assert_str_eq(err.message, message);
	ck_assert_uint_eq(sum.n_warnings, 0); /* untouched on failure */

	if (asprintf(&expect, "gpuproj: %s\n", gpuproj_error_format(&err, buf, sizeof(buf))) < 0)
		abort();
	rc = test_cli(&out, &errout, "import ncu '%s' -o '%s/out.json'", path, dir);
	ck_assert_int_eq(rc, 2);
	ck_assert_str_eq(errout, expect);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(test_count_dir(dir), text ? 1 : 0);
	free(expect);
	free(out);
	free(errout);
	free(path);
}

/* ---- what real exports look like ---- */

/* Write `text`, import it; the profile (summary optional). */
static struct gpuproj_profile *
import_text(const char *name, const char *text, struct gpuproj_import_summary *sum)
{
	char *path = test_write_file(dir, name, text);
	struct gpuproj_profile *p = import_ok(path, sum);

	free(path);
	return p;
}

/* Does any warning of the summary contain `needle`? */
static bool
warned(const struct gpuproj_import_summary *sum, const char *needle)
{
	size_t i;

	for (i = 0; i < sum->n_warnings; i++) {
		if (strstr(sum->warnings[i], needle))
			return true;
	}
	return false;
}

START_TEST(ncu2020_speed_of_light_section)
{
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(test_data("ncu-2020-sol.csv"), &sum);
	struct gpuproj_kernel *k = kernel(p, "cuda_compute_flux(int, int*, float*, float*, float*)",
					  506, 1, 1);

	/* "GPU Speed Of Light" (2020) is the speed-of-light section: Duration is the time. */
	ck_assert_uint_eq(k->launches, 2);
	ck_assert_uint_eq(k->duration_ns.n, 2);
	assert_near(k->duration_ns.min, 38528);
	assert_near(k->duration_ns.max, 39680);
	assert_metric(k, GPUPROJ_M_CLOCK_SM, 1.245e9, 2);        /* "SM Frequency" cycle/second */
	assert_metric(k, GPUPROJ_M_CYCLES_SM_ACTIVE, (37603.90 + 39758.10) / 2, 2);
	assert_metric(k, GPUPROJ_M_OCCUPANCY_ACHIEVED, 0.3911, 2);
	ck_assert_uint_eq(k->block.x, 192); /* Launch Statistics' totals */
	ck_assert_uint_eq(k->regs_per_thread, 60);
	/* 2020 labels of the sol inputs: "SOL FB", "SOL L2", "SOL TEX", "SM [%]". */
	assert_extra(k, GPUPROJ_SOL_DRAM_PCT, "%", (34.41 + 33.09) / 2, 2);
	assert_extra(k, GPUPROJ_SOL_L2_PCT, "%", (30.54 + 29.46) / 2, 2);
	assert_extra(k, GPUPROJ_SOL_L1_PCT, "%", (28.81 + 27.44) / 2, 2);
	assert_extra(k, GPUPROJ_SOL_SM_PCT, "%", (26.02 + 27.25) / 2, 2);
	ck_assert_ptr_nonnull(extra(k, "GPU Speed Of Light: Memory [%]"));
	ck_assert_ptr_null(extra(k, "GPU Speed Of Light: Duration"));
	/* Not "missing duration": the default model lacks counts, sol has what it needs. */
	ck_assert_uint_eq(gpuproj_model_missing_names(gpuproj_model_find("sol"), k, NULL, 0), 0);
	ck_assert_uint_eq(sum.n_warnings, 0);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(duration_from_elapsed_cycles)
{
	static const char smsp[] =
		"\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Metric Name\","
		"\"Metric Unit\",\"Metric Value\"\n"
		"\"0\",\"3\",\"k\",\"(64, 1, 1)\",\"(8, 1, 1)\",\"smsp__cycles_elapsed.avg\",\"cycle\","
		"\"20,000\"\n"
		"\"0\",\"3\",\"k\",\"(64, 1, 1)\",\"(8, 1, 1)\",\"smsp__cycles_elapsed.avg.per_second\","
		"\"Ghz\",\"1.60\"\n";
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(test_data("ncu-roofline.csv"), &sum);
	struct gpuproj_kernel *k = kernel(p, "triad_kernel(double *, const double *, const double "
					  "*, double)", 1, 1, 1);

	/* 154,032.5 cycles / 1.41 cycle/ns = 109,242.9 ns, and 1.41 GHz is the SM clock. */
	ck_assert_uint_eq(k->duration_ns.n, 1);
	assert_near(k->duration_ns.mean, 154032.5 / 1.41);
	assert_metric(k, GPUPROJ_M_CLOCK_SM, 1.41e9, 1);
	assert_metric(k, GPUPROJ_M_INST_FP64_FMA, 8388608, 1);   /* sm__sass_… form */
	assert_metric(k, GPUPROJ_M_BYTES_DRAM, 201.33e6, 1);
	ck_assert_ptr_null(extra(k, "sm__cycles_elapsed.avg"));
	/*
	 * Nothing missing, never "duration"; the recipe collects no shared-memory
	 * wavefronts, warp efficiency or launch geometry: the default model
	 * assumes those (model.h enum gpuproj_assumption).
	 */
	ck_assert_uint_eq(gpuproj_model_missing_names(gpuproj_model_find("hroof"), k, NULL, 0), 0);
	ck_assert_uint_eq(gpuproj_model_assumptions(gpuproj_model_default(), k),
			  1u << GPUPROJ_ASSUME_SHARED | 1u << GPUPROJ_ASSUME_WARPS |
				  1u << GPUPROJ_ASSUME_GEOMETRY);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);

	/* The smsp__ pair, in Ghz: 20,000 / 1.6 = 12,500 ns. */
	p = import_text("smsp.csv", smsp, NULL);
	k = kernel(p, "k", 8, 1, 1);
	assert_near(k->duration_ns.mean, 12500);
	assert_metric(k, GPUPROJ_M_CLOCK_SM, 1.6e9, 1);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(csv_saved_again_unquoted_crlf)
{
	/* What a spreadsheet or pandas writes back: no quotes, CRLF, a quoted field with a comma. */
	static const char text[] =
		"ID,Process ID,Process Name,Host Name,Kernel Name,Context,Stream,Block Size,"
		"Grid Size,Section Name,Metric Name,Metric Unit,Metric Value\r\n"
		"0,44,app,h,\"axpy(float, float*)\",1,7,\"(256, 1, 1)\",\"(80, 1, 1)\","
		"GPU Speed Of Light Throughput,Duration,us,3.50\r\n"
		"0,44,app,h,\"axpy(float, float*)\",1,7,\"(256, 1, 1)\",\"(80, 1, 1)\","
		"Command line profiler metrics,dram__bytes.sum,Kbyte,\"1,024.00\"\r\n"
		"1,44,app,h,\"axpy(float, float*)\",1,7,\"(256, 1, 1)\",\"(80, 1, 1)\","
		"GPU Speed Of Light Throughput,Duration,us,3.70\r\n";
	struct gpuproj_profile *p = import_text("resaved.csv", text, NULL);
	struct gpuproj_kernel *k = kernel(p, "axpy(float, float*)", 80, 1, 1);

	ck_assert_uint_eq(k->launches, 2);
	assert_near(gpuproj_kernel_mean_ns(k), 3600);
	assert_metric(k, GPUPROJ_M_BYTES_DRAM, 1024000, 1);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(b200_default_sections)
{
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(test_data("ncu-b200-sections.csv"), &sum);
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	struct gpuproj_kernel *add = kernel(p, "void at::native::vectorized_elementwise_kernel<4, "
					    "at::native::CUDAFunctor_add<float>, std::array<char "
					    "*, 3>>(int, T2, T3)", 16384, 1, 1);
	struct gpuproj_kernel *gemm = kernel(p, "cutlass3x_sm100_tensorop_gemm_f16_f16_f32_f16_f16_"
					     "128x256x64_1x1x1_0_tnn_align8_1sm", 9, 32, 1);

	ck_assert_uint_eq(gpuproj_profile_count(p), 2);
	ck_assert_uint_eq(add->launches, 2);
	assert_near(gpuproj_kernel_mean_ns(add), 41900);
	ck_assert_uint_eq(gemm->smem_dynamic, 205696);
	ck_assert_uint_eq(gemm->regs_per_thread, 168);
	assert_extra(add, GPUPROJ_SOL_DRAM_PCT, "%", (88.10 + 87.35) / 2, 2);
	assert_extra(gemm, GPUPROJ_SOL_SM_PCT, "%", 23.59, 1);
	/* "# SMs" (unit "SM") is the device's SM count; CC from the "CC" column. */
	ck_assert_int_eq(d->sms, 148);
	ck_assert_int_eq(d->cc_major, 10);
	ck_assert_ptr_null(d->name);
	/* Settings are not numbers: one line, not a warning per label and launch. */
	ck_assert(warned(&sum, "3 text values not kept (settings, not measurements; e.g. Launch "
			 "Statistics: Cluster Scheduling Policy = PolicySpread)"));
	ck_assert(!warned(&sum, "is not a number"));
	ck_assert(warned(&sum, "ncu-b200-sections.csv:2: skipped 1 line that is not CSV"));
	/* Both kernels: the default model cannot run, sol can. */
	ck_assert_uint_eq(sum.kernels_missing, 2);
	ck_assert_uint_eq(gpuproj_model_missing_names(gpuproj_model_find("sol"), add, NULL, 0), 0);
	ck_assert_uint_eq(gpuproj_model_missing_names(gpuproj_model_find("sol"), gemm, NULL, 0), 0);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(no_geometry_folds_with_the_spread)
{
	static const char text[] =
		"\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\","
		"\"Metric Value\"\n"
		"\"0\",\"5\",\"gemv\",\"gpu__time_duration.sum\",\"usecond\",\"5.00\"\n"
		"\"1\",\"5\",\"gemv\",\"gpu__time_duration.sum\",\"usecond\",\"448.00\"\n";
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_text("fold.csv", text, &sum);
	struct gpuproj_kernel *k = kernel(p, "gemv", 1, 1, 1);

	ck_assert_uint_eq(k->launches, 2);
	ck_assert(!gpuproj_kernel_geometry_known(k));
	ck_assert(warned(&sum, ": 2 launches of 1 kernel without a launch geometry"));
	ck_assert(warned(&sum, "(their times averaged: gemv from 5 us to 448 us)"));
	/* hroof-occ and occupancy say so; they do not read (1, 1, 1) as a launch. */
	ck_assert(gpuproj_model_assumptions(gpuproj_model_default(), k) &
		  1u << GPUPROJ_ASSUME_GEOMETRY);
	ck_assert(gpuproj_model_assumptions(gpuproj_model_find("occupancy"), k) &
		  1u << GPUPROJ_ASSUME_GEOMETRY);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

static bool
skip_prof_line(void *ud, const char *line, size_t len, int lineno)
{
	(void)ud;
	(void)lineno;
	return len >= 2 && line[0] == '=' && line[1] == '=';
}

static const struct import_csv_options skip_prof = { 0, skip_prof_line, NULL };

/*
 * The DRAM direction names per chip, as the CUPTI 13.0 host API accepts
 * them (tests/inject/test-cupti-host.c nv_table_matches_host checks the
 * whole table against it): _op_read/_op_write on every GB20x chip, the
 * plain names elsewhere and for an unnamed chip.
 */
START_TEST(ncu_metrics_dram_names_per_chip)
{
	static const struct {
		const char *chip, *read, *write;
	} cases[] = {
		{ NULL, "dram__bytes_read.sum", "dram__bytes_write.sum" },
		{ "GV100", "dram__bytes_read.sum", "dram__bytes_write.sum" },
		{ "GH100", "dram__bytes_read.sum", "dram__bytes_write.sum" },
		{ "GB100", "dram__bytes_read.sum", "dram__bytes_write.sum" },
		{ "GB202", "dram__bytes_op_read.sum", "dram__bytes_op_write.sum" },
		{ "gb203", "dram__bytes_op_read.sum", "dram__bytes_op_write.sum" },
		{ "GB205", "dram__bytes_op_read.sum", "dram__bytes_op_write.sum" },
		{ "GB206", "dram__bytes_op_read.sum", "dram__bytes_op_write.sum" },
		{ "GB207", "dram__bytes_op_read.sum", "dram__bytes_op_write.sum" },
	};
	size_t c;

	for (c = 0; c < ARRAY_LENGTH(cases); c++) {
		const char *names[64];
		size_t n = gpuproj_ncu_metrics(cases[c].chip, names, 64), i, rd = 0, wr = 0, dram = 0;

		ck_assert_uint_le(n, 64);
		for (i = 0; i < n; i++) {
			rd += strcmp(names[i], cases[c].read) == 0;
			wr += strcmp(names[i], cases[c].write) == 0;
			dram += strncmp(names[i], "dram__", 6) == 0;
		}
		ck_assert_msg(rd == 1 && wr == 1 && dram == 2, "%s: %zu/%zu/%zu",
			      cases[c].chip ? cases[c].chip : "(none)", rd, wr, dram);
	}
}
END_TEST

START_TEST(recorded_ncu_metrics_export_misses_nothing)
{
	static const struct {
		const char *file, *chip, *dram_read;
	} cases[] = {
		{ "ncu-metrics-gh100.csv", "GH100", "dram__bytes_read.sum" },
		{ "ncu-metrics-gb202.csv", "GB202", "dram__bytes_op_read.sum" },
	};
	size_t c;

	for (c = 0; c < ARRAY_LENGTH(cases); c++) {
		struct gpuproj_import_summary sum = { 0 };
		struct import_csv t = { 0 };
		struct gpuproj_error err = { 0 };
		const char *names[64];
		size_t n = gpuproj_ncu_metrics(cases[c].chip, names, 64), i, metric_cols = 0;
		struct gpuproj_profile *p;
		const struct import_csv_row *h = NULL;

		/* The fixture's metric columns are exactly the list, no more, no fewer. */
		ck_assert_msg(import_csv_read_file(test_data(cases[c].file), &skip_prof, &t, &err) == 0,
			      "%s", err.message);
		for (i = 0; i < t.n_rows && !h; i++) {
			if (strcmp(import_csv_field(&t.rows[i], 0), "ID") == 0)
				h = &t.rows[i];
		}
		ck_assert_ptr_nonnull(h);
		for (i = 0; i < h->n; i++)
			metric_cols += strstr(h->fields[i], "__") != NULL;
		ck_assert_uint_eq(metric_cols, n);
		for (i = 0; i < n; i++)
			ck_assert_msg(import_csv_find(h, names[i]) >= 0, "%s: no column %s",
				      cases[c].file, names[i]);
		ck_assert(import_csv_find(h, cases[c].dram_read) >= 0);
		import_csv_clear(&t);

		p = import_ok(test_data(cases[c].file), &sum);
		ck_assert_uint_eq(sum.n_missing, 0);
		ck_assert_uint_eq(sum.kernels_missing, 0);
		ck_assert_uint_eq(gpuproj_model_missing_names(gpuproj_model_default(),
							      gpuproj_profile_at(p, 0), NULL, 0), 0);
		ck_assert_uint_eq(gpuproj_profile_at(p, 0)->smem_dynamic, 4100);
		gpuproj_import_summary_clear(&sum);
		gpuproj_profile_free(p);
	}
}
END_TEST

START_TEST(error_nvprof_export)
{
	char *msg;

	if (asprintf(&msg, "an nvprof export, not Nsight Compute's: import it with `gpuproj "
		     "import nvprof %s/nvprof.csv -o OUT.json`", dir) < 0)
		abort();
	expect_error("nvprof.csv",
		     "==20858== NVPROF is profiling process 20858, command: ./app\n"
		     "==20858== Profiling application: ./app\n"
		     "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\","
		     "\"Min\",\"Max\",\"Avg\"\n"
		     "\"Tesla K40c (0)\",\"k(float*)\",1,\"flop_count_sp\",\"Floating Point "
		     "Operations(Single Precision)\",8,8,8\n", GPUPROJ_E_PARSE, 1, 0, msg);
	free(msg);
}
END_TEST

START_TEST(error_counter_permission)
{
	expect_error("perm.csv",
		     "==PROF== Connected to process 42 (/home/u/probe)\n"
		     "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
		     "NVIDIA GPU Performance Counters on the target device 0. For instructions "
		     "on enabling permissions and to get more information see "
		     "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
		     "==PROF== Disconnected from process 42\n", GPUPROJ_E_PARSE, 2, 0,
		     "ncu could not read the GPU's performance counters (ERR_NVGPUCTRPERM: "
		     "profiling is restricted to administrators), so no kernel was measured: run "
		     "ncu with sudo, or allow all users (`options nvidia "
		     "NVreg_RestrictProfilingToAdminUsers=0` in a file under /etc/modprobe.d/, then "
		     "reboot; https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
}
END_TEST

/* ---- nothing quietly wrong ---- */

#define HDR_LONG "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Metric Name\"," \
		 "\"Metric Unit\",\"Metric Value\"\n"
#define ROW_LONG(id, metric, unit, value) \
	"\"" id "\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"" metric "\",\"" unit "\",\"" value "\"\n"
#define HDR_RAW "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\"," \
		"\"gpu__time_duration.sum\",\"dram__bytes.sum\"\n" \
		"\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"byte\"\n"

START_TEST(error_nul_byte)
{
	static const char text[] = HDR_LONG ROW_LONG("0", "gpu__time_duration.sum", "ns", "100")
		"\"1\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"gpu__time_\0duration.sum\","
		"\"ns\",\"100\"\n";
	char *path = NULL;
	FILE *f;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };

	/* A NUL ends a C string: write the bytes, not a string. */
	if (asprintf(&path, "%s/nul.csv", dir) < 0)
		abort();
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, sizeof(text) - 1, f), sizeof(text) - 1);
	fclose(f);
	ck_assert_int_eq(gpuproj_import_ncu(path, &p, NULL, &err), GPUPROJ_E_PARSE);
	ck_assert_int_eq(err.line, 3);
	ck_assert_int_eq(err.column, 49); /* the 'g' of gpu__time_ is at 38, the NUL at 49 */
	ck_assert_str_eq(err.message, "a NUL byte: not a text CSV file (binary data, or a file "
			 "damaged on the way)");
	free(path);
}
END_TEST

START_TEST(error_utf16)
{
	static const char text[] = "\xff\xfe\"\0I\0D\0\"\0";
	char *path = NULL;
	FILE *f;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };

	if (asprintf(&path, "%s/utf16.csv", dir) < 0)
		abort();
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	fwrite(text, 1, sizeof(text) - 1, f);
	fclose(f);
	ck_assert_int_eq(gpuproj_import_ncu(path, &p, NULL, &err), GPUPROJ_E_PARSE);
	ck_assert_ptr_nonnull(strstr(err.message, "UTF-16 text, not a UTF-8 CSV file"));
	free(path);
}
END_TEST

START_TEST(error_raw_row_shorter_than_header)
{
	expect_error("short.csv", HDR_RAW "\"0\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"100\"\n"
		     "\"1\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"100\",\"64\"\n",
		     GPUPROJ_E_PARSE, 3, 43, "the row ends after 6 fields, but the header (line 1) "
		     "has 7: a truncated or damaged row");
}
END_TEST

/*
 * The first launch of a raw-layout export whose commit fails (its SM clock
 * out of range): it was kept for the profile's context and left in the
 * launch list too, and freed twice (found by fuzz-ncu under ASan; the
 * reproducer is tests/fuzz/regressions/ncu/raw-first-launch-fails.csv).
 * The error is reported once; ASan and valgrind see no double free.
 */
START_TEST(error_raw_first_launch_fails_commit)
{
	expect_error("clock.csv", "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\","
		     "\"Grid Size\",\"gpu__time_duration.sum\","
		     "\"sm__cycles_elapsed.avg.per_second\"\n"
		     "\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"cycle/nsecond\"\n"
		     "\"0\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"100\",\"1,380,000\"\n",
		     GPUPROJ_E_SCHEMA, 3, 44,
		     "launch 0: clock.sm = 1380000000000000 is outside its range (above 0 to "
		     "1e+10 Hz)");
}
END_TEST

START_TEST(error_long_row_before_metric_value)
{
	expect_error("shortlong.csv", HDR_LONG
		     "\"0\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"gpu__time_duration.sum\"\n",
		     GPUPROJ_E_PARSE, 2, 62, "the row ends after 6 fields, but the header (line 1) "
		     "has 8: a truncated or damaged row");
}
END_TEST

START_TEST(error_row_longer_than_header)
{
	expect_error("long.csv", HDR_LONG
		     "\"0\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"gpu__time_duration.sum\","
		     "\"ns\",\"100\",\"stray\"\n",
		     GPUPROJ_E_PARSE, 2, 74, "9 fields, but the header (line 1) has 8");
}
END_TEST

START_TEST(trailing_empty_field_is_accepted)
{
	/* ncu 2023+ ends metric rows with a comma (empty rule columns follow on rule rows). */
	struct gpuproj_profile *p = import_text("trailing.csv", HDR_LONG
		"\"0\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"gpu__time_duration.sum\",\"ns\","
		"\"100\",\n", NULL);

	assert_near(gpuproj_kernel_mean_ns(kernel(p, "k", 4, 1, 1)), 100);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(error_truncated_last_row)
{
	/* Cut while it was written: the last row stops inside a field, no final newline. */
	expect_error("cut.csv", "ID,Process ID,Kernel Name,Block Size,Grid Size,Metric Name,"
		     "Metric Unit,Metric Value\n"
		     "0,9,k,32,4,gpu__time_duration.sum,ns,100\n"
		     "1,9,k,32,4,gpu__time_dur", GPUPROJ_E_PARSE, 3, 25,
		     "the file ends inside this row (6 of 8 fields): it was cut while it was "
		     "written");
}
END_TEST

START_TEST(error_only_messages_and_no_kernels)
{
	expect_error("msgs.csv", "==PROF== Connected to process 7 (/bin/app)\n"
		     "==ERROR== Failed to prepare kernel for profiling\n"
		     "==PROF== Disconnected from process 7\n", GPUPROJ_E_PARSE, 2, 0,
		     "no kernel data, only Nsight Compute messages; ncu said: ==ERROR== Failed to "
		     "prepare kernel for profiling");
}
END_TEST

START_TEST(duplicated_column_warns)
{
	static const char text[] =
		"\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
		"\"gpu__time_duration.sum\",\"dram__bytes.sum\",\"dram__bytes.sum\"\n"
		"\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"byte\",\"byte\"\n"
		"\"0\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"100\",\"64\",\"96\"\n";
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_text("dup.csv", text, &sum);
	char expect[4200];

	snprintf(expect, sizeof(expect), "%s/dup.csv:1:101: column \"dram__bytes.sum\" appears "
		 "twice (fields 7 and 8); a launch whose two values differ is reported", dir);
	ck_assert_str_eq(sum.warnings[0], expect);
	/* And that launch is: the first value is kept, the second named. */
	ck_assert(warned(&sum, "dram__bytes.sum appears twice for launch 0 with different values "
			 "(64, 96); kept the first"));
	assert_metric(kernel(p, "k", 4, 1, 1), GPUPROJ_M_BYTES_DRAM, 64, 1);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(repeated_raw_launch_id_counted_once)
{
	static const char text[] = HDR_RAW
		"\"0\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"100\",\"64\"\n"
		"\"1\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"120\",\"64\"\n"
		"\"0\",\"9\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"100\",\"64\"\n";
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_text("rep.csv", text, &sum);
	struct gpuproj_kernel *k = kernel(p, "k", 4, 1, 1);
	char expect[4200];

	ck_assert_uint_eq(k->launches, 2);
	assert_near(gpuproj_kernel_mean_ns(k), 110);
	ck_assert_uint_eq(sum.rows, 2);
	snprintf(expect, sizeof(expect), "%s/rep.csv:5: launch ID 0 of process 9 is already on "
		 "line 3; row skipped, not counted twice (the same export appended twice?)", dir);
	ck_assert_str_eq(sum.warnings[0], expect);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(percentage_rounding_clamped_with_warning)
{
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_text("pct.csv", HDR_LONG
		ROW_LONG("0", "gpu__time_duration.sum", "ns", "100")
		ROW_LONG("0", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "100.40"),
		&sum);
	char expect[4200];

	assert_metric(kernel(p, "k", 4, 1, 1), GPUPROJ_M_OCCUPANCY_ACHIEVED, 1.0, 1);
	snprintf(expect, sizeof(expect), "%s/pct.csv:3:94: "
		 "sm__warps_active.avg.pct_of_peak_sustained_active = 100.40 %% is above 100 %%: "
		 "clamped to 100 (rounding in the tool's output)", dir);
	ck_assert_str_eq(sum.warnings[0], expect);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(error_occupancy_out_of_range)
{
	/* 57 % written as 5,700 (or an occupancy of 57 given as a percentage of 1). */
	expect_error("occ.csv", HDR_LONG ROW_LONG("0", "gpu__time_duration.sum", "ns", "100")
		     ROW_LONG("0", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "5,700"),
		     GPUPROJ_E_SCHEMA, 3, 94, "sm__warps_active.avg.pct_of_peak_sustained_active: "
		     "5,700 % is not a percentage (0 to 100)");
}
END_TEST

START_TEST(error_negative_count)
{
	expect_error("neg.csv", HDR_LONG ROW_LONG("0", "gpu__time_duration.sum", "ns", "100")
		     ROW_LONG("0", "lts__t_bytes.sum", "Kbyte", "-4.10"), GPUPROJ_E_SCHEMA, 3, 65,
		     "lts__t_bytes.sum: negative value -4.10 Kbyte");
}
END_TEST

START_TEST(error_warp_efficiency_above_one)
{
	/* 40 active threads per warp instruction: not a warp of 32. */
	expect_error("we.csv", HDR_LONG ROW_LONG("0", "gpu__time_duration.sum", "ns", "100")
		     ROW_LONG("0", "smsp__average_thread_inst_executed_per_inst_executed.ratio", "",
			      "40"), GPUPROJ_E_SCHEMA, 3, 102, "launch 0: warp_efficiency = 1.25 is "
		     "outside its range (from 0 to 1)");
}
END_TEST

START_TEST(error_duration_not_finite)
{
	/* 1e300 s is not finite in ns; 10^16 ns (116 days) is no kernel's duration. */
	expect_error("inf.csv", HDR_LONG ROW_LONG("0", "gpu__time_duration.sum", "second", "1e300"),
		     GPUPROJ_E_SCHEMA, 2, 72, "gpu__time_duration.sum: 1e300 second is out of "
		     "range (not finite in nsecond)");
}
END_TEST

START_TEST(error_duration_too_long)
{
	expect_error("long-dur.csv", HDR_LONG ROW_LONG("0", "gpu__time_duration.sum", "ns",
						       "1e16"),
		     GPUPROJ_E_SCHEMA, 2, 68, "gpu__time_duration.sum: 1e16 ns is not a kernel "
		     "duration (> 0 and at most 1e+06 s)");
}
END_TEST

START_TEST(error_sum_not_finite)
{
	/*
	 * Each value is finite, their sum over the two launches would not be:
	 * a kept metric beyond the profile's ±1e200 (docs/formats/profile.md) is
	 * dropped with one positioned warning, and the rest imports.
	 */
	static const char text[] = HDR_LONG ROW_LONG("0", "gpu__time_duration.sum", "ns", "100")
		ROW_LONG("0", "lts__t_sectors_op_read.sum", "", "1.7e308")
		ROW_LONG("1", "gpu__time_duration.sum", "ns", "100")
		ROW_LONG("1", "lts__t_sectors_op_read.sum", "", "1.7e308");
	struct gpuproj_profile *p = NULL;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_error err = { 0 };
	char *path = test_write_file(dir, "sum.csv", text);
	size_t i, hits = 0;

	ck_assert_int_eq(gpuproj_import_ncu(path, &p, &sum, &err), GPUPROJ_OK);
	ck_assert_uint_eq(gpuproj_profile_count(p), 1);
	ck_assert_uint_eq(gpuproj_profile_at(p, 0)->launches, 2);
	ck_assert_uint_eq(gpuproj_profile_at(p, 0)->n_extra, 0);
	for (i = 0; i < sum.n_warnings; i++)
		hits += strstr(sum.warnings[i], "sum.csv:3: kept no value for "
				"\"lts__t_sectors_op_read.sum\": '1.7e308' is beyond ±1e+200") != NULL;
	ck_assert_uint_eq(hits, 1);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	free(path);
}
END_TEST

START_TEST(error_empty_file)
{
	expect_error("empty.csv", "", GPUPROJ_E_PARSE, 1, 0,
		     "empty file: expected an Nsight Compute CSV export (ncu --csv)");
}
END_TEST

START_TEST(error_header_only)
{
	expect_error("header.csv", "==PROF== Connected to process 5 (/bin/app)\n" LONG_HEADER "\n",
		     GPUPROJ_E_PARSE, 2, 0, "no kernel launches: the file ends after the header");
}
END_TEST

START_TEST(error_raw_header_and_units_only)
{
	expect_error("raw.csv", "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
		     "\"\",\"\",\"nsecond\"\n", GPUPROJ_E_PARSE, 2, 0,
		     "no kernel launches: the file ends after the header and units rows");
}
END_TEST

START_TEST(error_not_csv)
{
	expect_error("notes.txt", "Kernel timings for run 3\nall kernels: 12.5 ms, 3 launches\n",
		     GPUPROJ_E_PARSE, 1, 0,
		     "not an Nsight Compute CSV export: no line starts with the header "
		     "ncu --csv writes (\"ID\",\"Process ID\",…)");
}
END_TEST

START_TEST(error_unknown_header)
{
	expect_error("nsys.csv", "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Name\"\n"
		     "\"61.2\",\"1,234\",\"3\",\"gemm\"\n", GPUPROJ_E_PARSE, 1, 1,
		     "not an Nsight Compute CSV header: no \"ID\" and \"Kernel Name\" columns "
		     "(ncu --csv writes \"ID\",\"Process ID\",\"Process Name\",\"Host Name\","
		     "\"Kernel Name\",…)");
}
END_TEST

START_TEST(error_profiler_messages_only)
{
	expect_error("none.csv", "==PROF== Connected to process 5 (/bin/app)\n"
		     "==WARNING== No kernels were profiled.\n"
		     "==PROF== Disconnected from process 5\n", GPUPROJ_E_PARSE, 2, 0,
		     "no kernel data, only Nsight Compute messages; ncu said: ==WARNING== No "
		     "kernels were profiled.");
}
END_TEST

START_TEST(error_per_kernel_summary)
{
	expect_error("summary.csv", "\"Process ID\",\"Kernel Name\",\"Invocations\","
		     "\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Minimum\",\"Maximum\","
		     "\"Average\"\n"
		     "\"1\",\"k\",\"2\",\"S\",\"Duration\",\"us\",\"1\",\"3\",\"2\"\n",
		     GPUPROJ_E_PARSE, 1, 1,
		     "a per-kernel summary (ncu --print-summary): export every launch instead "
		     "(ncu --csv without --print-summary)");
}
END_TEST

START_TEST(error_value_not_a_number)
{
	static const char row[] = ROW("0") "\"gpu__time_duration.sum\",\"nsecond\",\"fast\"";

	expect_error("nan.csv", LONG_HEADER "\n" ROW("0") "\"gpu__time_duration.sum\",\"nsecond\","
		     "\"fast\"\n", GPUPROJ_E_SCHEMA, 2, column_of(row, "\"fast\""),
		     "gpu__time_duration.sum: 'fast' is not a number");
}
END_TEST

START_TEST(error_unknown_unit)
{
	static const char row[] = ROW("0") "\"dram__bytes.sum\",\"furlong\",\"12\"";

	expect_error("unit.csv", LONG_HEADER "\n" ROW("0") "\"dram__bytes.sum\",\"furlong\","
		     "\"12\"\n",
		     GPUPROJ_E_SCHEMA, 2, column_of(row, "\"furlong\""),
		     "dram__bytes.sum: unit 'furlong' is not a size (byte, Kbyte, Mbyte, Gbyte, "
		     "Tbyte)");
}
END_TEST

START_TEST(error_unit_of_another_kind)
{
	static const char row[] = ROW("0") "\"gpu__time_duration.sum\",\"byte\",\"12\"";

	expect_error("kind.csv", LONG_HEADER "\n" ROW("0") "\"gpu__time_duration.sum\",\"byte\","
		     "\"12\"\n", GPUPROJ_E_SCHEMA, 2, column_of(row, "\"byte\""),
		     "gpu__time_duration.sum: unit 'byte' is not a time (nsecond, usecond, "
		     "msecond, second, ns, us, ms, s)");
}
END_TEST

START_TEST(error_raw_unit_on_units_row)
{
	static const char units[] = "\"\",\"\",\"bogon\"";

	expect_error("rawunit.csv", "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
		     "\"\",\"\",\"bogon\"\n\"0\",\"k\",\"12\"\n", GPUPROJ_E_SCHEMA, 2,
		     column_of(units, "\"bogon\""),
		     "gpu__time_duration.sum: unit 'bogon' is not a time (nsecond, usecond, "
		     "msecond, second, ns, us, ms, s)");
}
END_TEST

START_TEST(error_mapped_metric_without_unit)
{
	static const char row[] = ROW("0") "\"dram__bytes.sum\",\"\",\"12\"";

	expect_error("nounit.csv", LONG_HEADER "\n" ROW("0") "\"dram__bytes.sum\",\"\",\"12\"\n",
		     GPUPROJ_E_SCHEMA, 2, column_of(row, "\"\",\"12"),
		     "dram__bytes.sum: no unit; expected a size (byte, Kbyte, Mbyte, Gbyte, "
		     "Tbyte)");
}
END_TEST

START_TEST(error_malformed_quotes)
{
	static const char row[] = ROW("0") "\"gpu__time_duration.sum\",\"\"ns\",\"12\"";

	/* libcsv stops at the character after the closing quote of "": the 'n'. */
	expect_error("quotes.csv", LONG_HEADER "\n" ROW("0") "\"gpu__time_duration.sum\",\"\"ns\","
		     "\"12\"\n", GPUPROJ_E_PARSE, 2, column_of(row, "ns\",\"12"),
		     "malformed CSV: a quote inside an unquoted field, or text after a closing "
		     "quote");
}
END_TEST

START_TEST(error_unterminated_quote)
{
	expect_error("cut.csv", LONG_HEADER "\n"
		     ROW("0") "\"gpu__time_duration.sum\",\"ns\",\"12\"\n"
		     "\"1\",\"77\",\"app\",\"h\",\"k(int", GPUPROJ_E_PARSE, 3, 0,
		     "malformed CSV: a quoted field that starts on this line is never closed");
}
END_TEST

START_TEST(error_raw_without_units_row)
{
	expect_error("nounits.csv", "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
		     "\"0\",\"k\",\"12\"\n", GPUPROJ_E_PARSE, 2, 1,
		     "expected the units row under the header (\"\",\"\",…,\"nsecond\",…), which "
		     "ncu --page raw writes");
}
END_TEST

START_TEST(error_id_not_a_launch_number)
{
	expect_error("id.csv", LONG_HEADER "\n"
		     ROW("0") "\"gpu__time_duration.sum\",\"ns\",\"12\"\n"
		     ROW("#1") "\"gpu__time_duration.sum\",\"ns\",\"12\"\n", GPUPROJ_E_SCHEMA, 3,
		     1, "\"ID\" '#1' is not a launch number");
}
END_TEST

START_TEST(error_bad_grid_size)
{
	static const char row[] =
		"\"0\",\"77\",\"app\",\"h\",\"k(int)\",\"1\",\"7\",\"(256, 1, 1)\","
		"\"(4, 0, 1)\",\"0\",\"8.0\",\"S\",\"gpu__time_duration.sum\",\"ns\",\"12\"";
	char text[1024];

	snprintf(text, sizeof(text), "%s\n%s\n", LONG_HEADER, row);
	expect_error("grid.csv", text, GPUPROJ_E_SCHEMA, 2, column_of(row, "\"(4, 0"),
		     "\"Grid Size\" '(4, 0, 1)' is not launch dimensions such as \"(1024, 1, 1)\"");
}
END_TEST

/* "CC" must be MAJOR.MINOR and nothing else (no trailing text, no overflowing numbers). */
START_TEST(error_bad_cc)
{
	static const char *const bad[] = { "9.0x", "99999999999.0", "9", "9.100" };
	char text[1024], row[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char msg[128], cc[64];

		snprintf(row, sizeof(row),
			 "\"0\",\"77\",\"app\",\"h\",\"k(int)\",\"1\",\"7\",\"(256, 1, 1)\","
			 "\"(4, 1, 1)\",\"0\",\"%s\",\"S\",\"gpu__time_duration.sum\",\"ns\",\"12\"",
			 bad[i]);
		snprintf(text, sizeof(text), "%s\n%s\n", LONG_HEADER, row);
		snprintf(msg, sizeof(msg),
			 "\"CC\" '%s' is not a compute capability such as \"9.0\"", bad[i]);
		snprintf(cc, sizeof(cc), "\"%s\",\"S\"", bad[i]);
		expect_error("cc.csv", text, GPUPROJ_E_SCHEMA, 2, column_of(row, cc), msg);
	}
}
END_TEST

START_TEST(error_missing_file)
{
	expect_error("absent.csv", NULL, GPUPROJ_E_IO, 0, 0,
		     "cannot open: No such file or directory");
}
END_TEST

/* ---- gpuproj import ---- */

static const char *
str_or(const char *s, const char *fallback)
{
	return s ? s : fallback;
}

/* Same records, compared field by field. */
static void
assert_same_profile(const struct gpuproj_profile *a, const struct gpuproj_profile *b)
{
	size_t i, j;

	ck_assert_uint_eq(gpuproj_profile_count(a), gpuproj_profile_count(b));
	ck_assert_str_eq(str_or(gpuproj_profile_device(a)->name, "-"),
			 str_or(gpuproj_profile_device(b)->name, "-"));
	ck_assert_int_eq(gpuproj_profile_device(a)->sms, gpuproj_profile_device(b)->sms);
	ck_assert_int_eq(gpuproj_profile_device(a)->cc_major, gpuproj_profile_device(b)->cc_major);
	ck_assert_str_eq(gpuproj_profile_attr(b, "origin"), "ncu-import");
	for (i = 0; i < gpuproj_profile_count(a); i++) {
		const struct gpuproj_kernel *x = gpuproj_profile_at(a, i);
		const struct gpuproj_kernel *y = gpuproj_profile_at(b, i);

		ck_assert_str_eq(x->name, y->name);
		ck_assert_str_eq(str_or(x->demangled, "-"), str_or(y->demangled, "-"));
		ck_assert_mem_eq(&x->grid, &y->grid, sizeof(x->grid));
		ck_assert_mem_eq(&x->block, &y->block, sizeof(x->block));
		ck_assert_uint_eq(x->smem_dynamic, y->smem_dynamic);
		ck_assert_uint_eq(x->smem_static, y->smem_static);
		ck_assert_uint_eq(x->regs_per_thread, y->regs_per_thread);
		ck_assert_uint_eq(x->launches, y->launches);
		ck_assert_uint_eq(x->profiled, y->profiled);
		ck_assert_uint_eq(x->duration_ns.n, y->duration_ns.n);
		ck_assert_double_eq(x->duration_ns.sum, y->duration_ns.sum);
		ck_assert_double_eq(x->duration_ns.min, y->duration_ns.min);
		ck_assert_double_eq(x->duration_ns.max, y->duration_ns.max);
		ck_assert_double_eq(x->duration_ns.mean, y->duration_ns.mean);
		for (j = 0; j < GPUPROJ_M_COUNT; j++) {
			ck_assert_uint_eq(x->metric_n[j], y->metric_n[j]);
			if (x->metric_n[j])
				assert_near(gpuproj_kernel_metric(y, (enum gpuproj_metric)j),
					    gpuproj_kernel_metric(x, (enum gpuproj_metric)j));
		}
		ck_assert_uint_eq(x->n_extra, y->n_extra);
		for (j = 0; j < x->n_extra; j++)
			assert_extra(y, x->extra[j].name, x->extra[j].unit,
				     x->extra[j].sum / (double)x->extra[j].n, x->extra[j].n);
	}
}

START_TEST(cli_import_round_trip)
{
	static const char *const fixtures[] = { "ncu-long.csv", "ncu-raw.csv", "ncu-sections.csv" };
	size_t f;

	for (f = 0; f < ARRAY_LENGTH(fixtures); f++) {
		struct gpuproj_profile *direct = import_ok(test_data(fixtures[f]), NULL);
		struct gpuproj_profile *loaded = NULL;
		struct gpuproj_error err = { 0 };
		char *args, *out, *errout, *json, buf[2048];
		int rc;

		if (asprintf(&json, "%s/out-%zu.json", dir, f) < 0 ||
		    asprintf(&args, "import ncu '%s' -o '%s'", test_data(fixtures[f]), json) < 0)
			abort();
		rc = test_cli(&out, &errout, "%s", args);
		ck_assert_msg(rc == 0, "%s: %s", fixtures[f], errout);
		ck_assert_str_eq(out, "");
		ck_assert_msg(gpuproj_profile_load(json, &loaded, &err) == 0, "%s",
			      gpuproj_error_format(&err, buf, sizeof(buf)));
		assert_same_profile(direct, loaded);
		gpuproj_profile_free(direct);
		gpuproj_profile_free(loaded);
		free(args);
		free(out);
		free(errout);
		free(json);
	}
}
END_TEST

START_TEST(cli_summary_names_missing_metrics)
{
	char *args, *out, *errout, *expect, *json;
	int rc;

	const char *names[64];
	size_t n = gpuproj_ncu_metrics(NULL, names, 64), i;
	char *list = NULL;

	/* The summary ends with the command of `gpuproj ncu-metrics`. */
	for (i = 0; i < n; i++) {
		char *t;

		if (asprintf(&t, "%s%s%s", list ? list : "", i ? "," : "", names[i]) < 0)
			abort();
		free(list);
		list = t;
	}
	if (asprintf(&json, "%s/saxpy.json", dir) < 0 ||
	    asprintf(&args, "import ncu '%s' -o '%s'", test_data("ncu-old.csv"), json) < 0 ||
	    asprintf(&expect,
		     "gpuproj: imported %s: 12 rows, 2 launches, 1 kernel signature, 0 other "
		     "metrics kept\n"
		     "  device: not named in the file; pass --device-name NAME here or --source "
		     "NAME to `gpuproj project`\n"
		     "  the default model (hroof-occ) assumes, for inputs the export lacks: "
		     "shared unbounded (1 of 1), full warps (1 of 1), l1 unmeasured (1 of 1), "
		     "l2 unmeasured (1 of 1), registers unknown (1 of 1); its intervals widen by "
		     "what each costs (docs/models.md \"Missing inputs\")\n"
		     "  collect everything with:\n"
		     "    ncu --csv --page raw --metrics %s --log-file run.csv ./app   "
		     "(`gpuproj ncu-metrics` prints it)\n"
		     "  wrote %s\n", test_data("ncu-old.csv"), list, json) < 0)
		abort();
	free(list);
	rc = test_cli(&out, &errout, "%s", args);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(errout, expect);
	free(args);
	free(out);
	free(errout);
	free(expect);
	free(json);
}
END_TEST

START_TEST(cli_device_name_and_stdin)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	char *args, *out, *errout, *json;
	int rc;

	if (asprintf(&json, "%s/vec.json", dir) < 0 ||
	    asprintf(&args, "import ncu --device-name 'NVIDIA GeForce RTX 3070' - -o '%s' < '%s'",
		     json, test_data("ncu-sections.csv")) < 0)
		abort();
	rc = test_cli(&out, &errout, "%s", args);
	ck_assert_msg(rc == 0, "%s", errout);
	/* Not in targets.yaml: one line naming close entries and the two ways out. */
	ck_assert_msg(strstr(errout, "  device: NVIDIA GeForce RTX 3070, CC 8.6; warning: the "
			     "export's GPU 'NVIDIA GeForce RTX 3070' is not in targets.yaml; close "
			     "names: ") != NULL, "%s", errout);
	ck_assert_ptr_nonnull(strstr(errout, " (name it with --device-name NAME here, or --source "
				     "NAME to `gpuproj project`)\n"));
	ck_assert_int_eq(gpuproj_profile_load(json, &p, &err), 0);
	ck_assert_str_eq(gpuproj_profile_device(p)->name, "NVIDIA GeForce RTX 3070");
	ck_assert_int_eq(gpuproj_profile_device(p)->cc_minor, 6);
	ck_assert_str_eq(gpuproj_profile_attr(p, "import.file"), "-");
	gpuproj_profile_free(p);
	free(args);
	free(out);
	free(errout);
	free(json);
}
END_TEST

START_TEST(cli_output_into_missing_directory)
{
	char *args, *out, *errout;
	int rc;

	if (asprintf(&args, "import ncu '%s' -o '%s/no/such/dir/out.json'",
		     test_data("ncu-long.csv"), dir) < 0)
		abort();
	rc = test_cli(&out, &errout, "%s", args);
	ck_assert_int_eq(rc, 2);
	ck_assert_ptr_nonnull(strstr(errout, "/no/such/dir/out.json: cannot create a temporary "
				     "file beside it: No such file or directory\n"));
	ck_assert_ptr_null(strstr(errout, "imported"));
	ck_assert_int_eq(test_count_dir(dir), 0);
	free(args);
	free(out);
	free(errout);
}
END_TEST

/* The gpuperfpredict side of the command (the importer itself is tested elsewhere). */
START_TEST(cli_gpuperfpredict_one_file_per_gpu)
{
	const char *data = test_validation_dir();
	char *args, *out, *errout, *json, *gpp;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	int rc, n = 0;

	if (!data) {
		test_skip("no ../shared/validation/gpuperfpredict");
		return;
	}
	if (asprintf(&args, "import gpuperfpredict --targets '%s' '%s/hotspot.csv' -o '%s/gpp'",
		     test_data("targets-gpuperfpredict.yaml"), data, dir) < 0 ||
	    asprintf(&gpp, "%s/gpp", dir) < 0 || asprintf(&json, "%s/Tesla-K40.json", gpp) < 0)
		abort();
	rc = test_cli(&out, &errout, "%s", args);
	ck_assert_msg(rc == 0, "%s", errout);
	/* One file per profile, named after the GPU's targets.yaml entry. */
	ck_assert_int_eq(sscanf(errout, "gpuproj: imported 1 file of gpuperfpredict into %d "
				"profiles", &n), 1);
	ck_assert_int_gt(n, 1);
	ck_assert_int_eq(test_count_dir(gpp), n);
	ck_assert_str_eq(out, "");
	ck_assert_msg(gpuproj_profile_load(json, &p, &err) == 0, "%s", err.message);
	ck_assert_uint_gt(gpuproj_profile_count(p), 0);
	gpuproj_profile_free(p);
	free(args);
	free(out);
	free(errout);
	free(json);
	free(gpp);
}
END_TEST

static const struct {
	const char *args;
	int rc;
	const char *stderr_text;
} usage_cases[] = {
	{ "import ncu", 2,
	  "gpuproj: import ncu: missing FILE.csv\nTry 'gpuproj import ncu --help'.\n" },
	{ "import ncu a.csv", 2, "gpuproj: import ncu: missing -o OUT.json (\"-o -\" writes "
	  "standard output)\nTry 'gpuproj import ncu --help'.\n" },
	{ "import ncu a.csv b.csv -o x.json", 2,
	  "gpuproj: import ncu: expected one FILE.csv, got 2\n"
	  "Try 'gpuproj import ncu --help'.\n" },
	{ "import ncu --frobnicate a.csv", 2, "gpuproj: import ncu: unknown option '--frobnicate'\n"
	  "Try 'gpuproj import ncu --help'.\n" },
	{ "import ncu a.csv -o", 2, "gpuproj: import ncu: option '-o' needs a value\n"
	  "Try 'gpuproj import ncu --help'.\n" },
	{ "import", 2,
	  "gpuproj: import: missing what to import: ncu, nvprof, nsys, gpuperfpredict, "
	  "neusight, xla-matmul, kerneltuner or seed002\n"
	  "Try 'gpuproj import --help'.\n" },
	{ "import rocprof x.csv", 2,
	  "gpuproj: import: unknown source 'rocprof': ncu, nvprof, nsys, gpuperfpredict, "
	  "neusight, xla-matmul, kerneltuner or seed002\n"
	  "Try 'gpuproj import --help'.\n" },
	{ "import nsys x.sqlite", 2, "gpuproj: import nsys: missing -o OUT.json or -o DIR/\n"
	  "Try 'gpuproj import nsys --help'.\n" },
	{ "import nsys a.sqlite b.sqlite -o x.json", 2,
	  "gpuproj: import nsys: expected one FILE.sqlite, got 2\n"
	  "Try 'gpuproj import nsys --help'.\n" },
	{ "import nsys --ncu", 2, "gpuproj: import nsys: option '--ncu' needs a value\n"
	  "Try 'gpuproj import nsys --help'.\n" },
	{ "import nvprof x.csv", 2, "gpuproj: import nvprof: missing -o OUT.json (\"-o -\" writes "
	  "standard output)\nTry 'gpuproj import nvprof --help'.\n" },
	{ "import neusight -o out", 2, "gpuproj: import neusight: missing DIR or FILE.csv\n"
	  "Try 'gpuproj import neusight --help'.\n" },
	{ "import neusight x.csv", 2, "gpuproj: import neusight: missing -o DIR\n"
	  "Try 'gpuproj import neusight --help'.\n" },
	{ "import gpuperfpredict -o out", 2, "gpuproj: import gpuperfpredict: missing FILE.csv\n"
	  "Try 'gpuproj import gpuperfpredict --help'.\n" },
	{ "import --help", 0, "" },
	{ "import ncu --help", 0, "" },
	{ "import nvprof --help", 0, "" },
	{ "import gpuperfpredict --help", 0, "" },
	{ "import neusight --help", 0, "" },
};

START_TEST(cli_usage)
{
	char *out, *errout;
	int rc;

	rc = test_cli(&out, &errout, "%s", usage_cases[_i].args);
	ck_assert_msg(rc == usage_cases[_i].rc, "'%s': exit %d", usage_cases[_i].args, rc);
	ck_assert_str_eq(errout, usage_cases[_i].stderr_text);
	if (rc == 0)
		ck_assert_ptr_nonnull(strstr(out, "Usage: gpuproj import "));
	else
		ck_assert_str_eq(out, "");
	free(out);
	free(errout);
}
END_TEST

static Suite *
import_ncu_suite(void)
{
	Suite *s = suite_create("import-ncu");
	TCase *th = tcase_create("helpers");
	TCase *tl = tcase_create("layouts");
	TCase *te = tcase_create("errors");
	TCase *tc = tcase_create("cli");

	tcase_add_loop_test(th, number_parse, 0, ARRAY_LENGTH(number_cases));
	tcase_add_test(th, number_absent);
	tcase_add_loop_test(th, dim3_parse, 0, ARRAY_LENGTH(dim3_cases));
	tcase_add_loop_test(th, unit_classify, 0, ARRAY_LENGTH(unit_cases));
	tcase_add_test(th, csv_positions);
	suite_add_tcase(s, th);

	tcase_add_checked_fixture(tl, setup, teardown);
	tcase_add_test(tl, long_aggregates_launches);
	tcase_add_test(tl, long_na_is_absent);
	tcase_add_test(tl, long_demangled_names_with_commas);
	tcase_add_test(tl, long_read_write_and_derived_efficiency);
	tcase_add_test(tl, long_unknown_metrics_kept);
	tcase_add_test(tl, long_summary_and_context);
	tcase_add_test(tl, sections_labels_mapped);
	tcase_add_test(tl, old_format_launch_size_from_metrics);
	tcase_add_test(tl, raw_one_row_per_launch);
	tcase_add_loop_test(tl, unit_scaling, 0, ARRAY_LENGTH(scale_cases));
	tcase_add_test(tl, appended_runs_with_repeated_headers);
	tcase_add_test(tl, application_output_between_results);
	tcase_add_test(tl, bom_and_crlf);
	tcase_add_test(tl, duplicate_metric_in_a_launch);
	tcase_add_test(tl, l2_bytes_prefer_sm_sectors);
	tcase_add_test(tl, tensor_operation_counters);
	tcase_add_test(tl, tensor_counters_beyond_64);
	tcase_add_loop_test(tl, tensor_counter_units, 0, ARRAY_LENGTH(tensor_unit_cases));
	tcase_add_test(tl, tensor_nersc_recipe_assumed);
	tcase_add_test(tl, tensor_inst_not_beside_ops);
	tcase_add_test(tl, tensor_launches_differ);
	tcase_add_test(tl, extra_metric_in_two_units);
	tcase_add_test(tl, no_launch_dimensions);
	tcase_add_test(tl, ncu2020_speed_of_light_section);
	tcase_add_test(tl, duration_from_elapsed_cycles);
	tcase_add_test(tl, csv_saved_again_unquoted_crlf);
	tcase_add_test(tl, b200_default_sections);
	tcase_add_test(tl, no_geometry_folds_with_the_spread);
	tcase_add_test(tl, recorded_ncu_metrics_export_misses_nothing);
	tcase_add_test(tl, unmapped_counters_through_the_name_table);
	tcase_add_test(tl, ncu_metrics_dram_names_per_chip);
	tcase_add_test(tl, trailing_empty_field_is_accepted);
	tcase_add_test(tl, duplicated_column_warns);
	tcase_add_test(tl, repeated_raw_launch_id_counted_once);
	tcase_add_test(tl, percentage_rounding_clamped_with_warning);
	suite_add_tcase(s, tl);

	tcase_add_checked_fixture(te, setup, teardown);
	tcase_add_test(te, error_empty_file);
	tcase_add_test(te, error_header_only);
	tcase_add_test(te, error_raw_header_and_units_only);
	tcase_add_test(te, error_not_csv);
	tcase_add_test(te, error_unknown_header);
	tcase_add_test(te, error_profiler_messages_only);
	tcase_add_test(te, error_per_kernel_summary);
	tcase_add_test(te, error_value_not_a_number);
	tcase_add_test(te, error_unknown_unit);
	tcase_add_test(te, error_unit_of_another_kind);
	tcase_add_test(te, error_raw_unit_on_units_row);
	tcase_add_test(te, error_mapped_metric_without_unit);
	tcase_add_test(te, error_malformed_quotes);
	tcase_add_test(te, error_unterminated_quote);
	tcase_add_test(te, error_raw_without_units_row);
	tcase_add_test(te, error_id_not_a_launch_number);
	tcase_add_test(te, error_bad_grid_size);
	tcase_add_test(te, error_bad_cc);
	tcase_add_test(te, error_missing_file);
	tcase_add_test(te, error_nvprof_export);
	tcase_add_test(te, error_counter_permission);
	tcase_add_test(te, error_nul_byte);
	tcase_add_test(te, error_utf16);
	tcase_add_test(te, error_raw_row_shorter_than_header);
	tcase_add_test(te, error_raw_first_launch_fails_commit);
	tcase_add_test(te, error_long_row_before_metric_value);
	tcase_add_test(te, error_row_longer_than_header);
	tcase_add_test(te, error_truncated_last_row);
	tcase_add_test(te, error_only_messages_and_no_kernels);
	tcase_add_test(te, error_occupancy_out_of_range);
	tcase_add_test(te, error_negative_count);
	tcase_add_test(te, error_warp_efficiency_above_one);
	tcase_add_test(te, error_duration_not_finite);
	tcase_add_test(te, error_duration_too_long);
	tcase_add_test(te, error_sum_not_finite);
	suite_add_tcase(s, te);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cli_import_round_trip);
	tcase_add_test(tc, cli_summary_names_missing_metrics);
	tcase_add_test(tc, cli_device_name_and_stdin);
	tcase_add_test(tc, cli_output_into_missing_directory);
	tcase_add_test(tc, cli_gpuperfpredict_one_file_per_gpu);
	tcase_add_loop_test(tc, cli_usage, 0, ARRAY_LENGTH(usage_cases));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(import_ncu_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
