/* SPDX-License-Identifier: MIT */
/*
 * `gpuproj project` tells the truth about coverage, and the
 * import commands around it, end to end on exports of the shapes people
 * have (tests/data/ncu-*.csv, described in test-import-ncu.c):
 * - nothing projected onto any target: exit 2, one line, nothing written;
 * - per target, kernels not projected counted in JSON and table, the
 *   never-timed ones included; one note covering every target, or a note
 *   per target when they differ; a run that projected nothing reads "not
 *   projected", never the carried source time;
 * - kernels projected by the coarser sol model labelled so in the table,
 *   JSON, CSV, the report and the gate;
 * - `import ncu` of a .ncu-rep through a stand-in `ncu` on PATH (the
 *   command line of the Nsight Compute CLI manual: `ncu --import FILE
 *   --csv --page raw`), and without ncu;
 * - the source GPU read from the export and checked against targets.yaml.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuproj/import.h>
#include <gpuproj/interval.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "common.h"

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

/* `gpuproj import ncu FIXTURE -o dir/NAME [ARGS]`, which must succeed; the profile path. */
static char *
import(const char *fixture, const char *name, const char *args)
{
	char *json, *out, *err;
	int rc;

	if (asprintf(&json, "%s/%s", dir, name) < 0)
		abort();
	rc = test_cli(&out, &err, "import ncu %s '%s' -o '%s'", args ? args : "", test_data(fixture),
		      json);
	ck_assert_msg(rc == 0, "%s", err);
	free(out);
	free(err);
	return json;
}

static size_t
count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

START_TEST(nothing_projected_exits_1)
{
	char *json = import("ncu-b200-raw-attrs.csv", "raw.json", NULL), *out, *err, *table;
	struct stat st;

	/*
	 * A real B200 export (tests/data/README) with a time and throughput
	 * percentages but neither FLOP nor bytes: nothing to stand on. The
	 * message names the ncu line for the export's own chip (GB100).
	 */
	if (asprintf(&table, "%s/table.txt", dir) < 0)
		abort();
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source B200-180GB -o '%s'", json,
				  table), 2);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strstr(err, "gpuproj: ") == err && count(err, "\n") == 2, "%s", err);
	ck_assert_msg(strstr(err, ": no kernel could be projected onto any target (2 kernel "
			     "signatures; 2 of them: hroof-occ needs FLOP (inst.fp{16,32,64}."
			     "{fma,add,mul} or flop.tensor.*) or bytes (bytes.l1, bytes.l2, "
			     "bytes.dram)); collect it with:\n    ncu --csv --page raw --metrics "
			     "gpu__time_duration.sum,") != NULL, "%s", err);
	ck_assert_msg(strstr(err, " --log-file run.csv ./app   (`gpuproj ncu-metrics --chip GB100` "
			     "prints it)\n") != NULL, "%s", err);
	ck_assert_int_ne(stat(table, &st), 0); /* nothing written */
	free(out);
	free(err);
	/* JSON too: no file with a "projection" of carried time. */
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source B200-180GB --format json "
				  "-o '%s'", json, table), 2);
	ck_assert_int_ne(stat(table, &st), 0);
	free(out);
	free(err);
	free(table);
	free(json);
}
END_TEST

/*
 * An export with a time, FP counts and DRAM bytes only (ncu-old.csv): the
 * default model runs on them, each assumption named per kernel, in the
 * run's note and in JSON.
 */
START_TEST(assumed_when_inputs_missing)
{
	char *json = import("ncu-old.csv", "old.json", NULL), *out, *err, *md;

	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source A100-SXM4-40GB --target "
				  "H100-SXM5-80GB", json), 0);
	ck_assert_msg(strstr(out, "  [assumed: shared unbounded, full warps, l1 unmeasured, l2 "
			     "unmeasured, registers unknown]\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "note: projected with assumptions for inputs the profile lacks: "
			     "shared unbounded (1 of 1 kernel(s)), full warps (1 of 1 kernel(s)), ")
		      != NULL, "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source A100-SXM4-40GB --target "
				  "H100-SXM5-80GB --format json", json), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"assumed_kernels\": 1,"));
	ck_assert_ptr_nonnull(strstr(out, "\"assumed\": [\n      \"shared unbounded\",\n"));
	free(out);
	free(err);
	/* The report: a dagger on the target's interval (not the source's), a footnote. */
	ck_assert_int_eq(test_cli(&out, &err, "report '%s' --source A100-SXM4-40GB --target "
				  "H100-SXM5-80GB --md '%s/r.md' --html '%s/r.html'", json, dir,
				  dir), 0);
	free(out);
	free(err);
	if (asprintf(&md, "%s/r.md", dir) < 0)
		abort();
	out = test_read_file(md);
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(count(out, " † |"), 1);
	ck_assert_msg(strstr(out, "\n† projected with assumptions for inputs the profile lacks: "
			     "shared unbounded (up to 1 kernel(s) per GPU), ") != NULL, "%s", out);
	free(out);
	free(md);
	free(json);
}
END_TEST

/*
 * A profile of three kernels: one projectable by hroof-occ, one without
 * inputs, one never timed. Every target counts 2 not projected, in JSON
 * ("unprojected_kernels": 2, "projected_kernels": 1) and in one table note.
 */
START_TEST(unprojected_counted_with_untimed)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature sig = { .tag = "", .grid = { 64, 1, 1 }, .block = { 128, 1, 1 } };
	struct gpuproj_kernel *k;
	struct gpuproj_error e = { 0 };
	char *path, *out, *err;
	int m;

	ck_assert_int_eq(gpuproj_profile_set_device(p, "NVIDIA A100-SXM4-40GB", NULL, NULL, 8, 0,
						    108, NAN), 0);
	sig.name = "full";
	ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, 1e5);
	for (m = GPUPROJ_M_INST_FP16_FMA; m <= GPUPROJ_M_INST_FP64_MUL; m++)
		gpuproj_kernel_add_metric(k, (enum gpuproj_metric)m, m == GPUPROJ_M_INST_FP32_FMA ? 1e6
											    : 0);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L1, 4e6);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L2, 2e6);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_DRAM, 1e6);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	k->profiled = 1;
	sig.name = "bare";
	ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, 5e3);
	/* A counter, not the inputs: not projected (a kernel without any: the envelope). */
	gpuproj_kernel_add_metric(k, GPUPROJ_M_OCCUPANCY_ACHIEVED, 0.5);
	sig.name = "untimed";
	ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &k), 0);
	k->launches = 3;
	if (asprintf(&path, "%s/three.json", dir) < 0)
		abort();
	ck_assert_int_eq(gpuproj_profile_save(p, path, &e), 0);
	gpuproj_profile_free(p);

	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --format json --target H100-PCIe-80GB "
				  "--target V100-SXM2-16GB", path), 0);
	ck_assert_uint_eq(count(out, "\"unprojected_kernels\": 2,"), 2);
	ck_assert_uint_eq(count(out, "\"projected_kernels\": 1,"), 2);
	ck_assert_uint_eq(count(out, "\"unprojected_source_ns\": 5000"), 2);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --target H100-PCIe-80GB "
				  "--target V100-SXM2-16GB", path), 0);
	/* One line covers both targets: the counts are the same. */
	ck_assert_msg(strstr(out, "note: on every target, 2 of 3 kernel(s) could not be projected; "
			     "their source time (5.00 us) is carried unchanged") != NULL, "%s", out);
	ck_assert_uint_eq(count(out, "could not be projected"), 1);
	free(out);
	free(err);
	free(path);
}
END_TEST

/*
 * A block of 200 KB of dynamic shared memory fits on an H100 (228 KB per
 * SM) but not on a V100 (96 KB): coverage differs per target, and every
 * target gets its own note.
 */
START_TEST(notes_per_target_when_coverage_differs)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature sig = { .tag = "", .grid = { 64, 1, 1 }, .block = { 128, 1, 1 },
					 .smem_dynamic = 200 * 1024 };
	struct gpuproj_kernel *k;
	struct gpuproj_error e = { 0 };
	char *path, *out, *err;
	int m;

	ck_assert_int_eq(gpuproj_profile_set_device(p, "NVIDIA H100 PCIe", NULL, NULL, 9, 0, 114,
						    NAN), 0);
	sig.name = "bigsmem";
	ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &k), 0);
	gpuproj_kernel_add_duration(k, 1e5);
	for (m = GPUPROJ_M_INST_FP16_FMA; m <= GPUPROJ_M_INST_FP64_MUL; m++)
		gpuproj_kernel_add_metric(k, (enum gpuproj_metric)m, m == GPUPROJ_M_INST_FP32_FMA ? 1e6
											    : 0);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L1, 4e6);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L2, 2e6);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_DRAM, 1e6);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	k->profiled = 1;
	if (asprintf(&path, "%s/smem.json", dir) < 0)
		abort();
	ck_assert_int_eq(gpuproj_profile_save(p, path, &e), 0);
	gpuproj_profile_free(p);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --target H100-SXM5-80GB "
				  "--target V100-SXM2-16GB", path), 0);
	/* The V100 row: nothing projected there, so no time either. */
	ck_assert_msg(strstr(out, "\nV100-SXM2-16GB       not projected ") != NULL, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "note: on V100-SXM2-16GB, none of the 1 kernel(s) could be "
				     "projected (see the per-kernel table for why)\n"));
	ck_assert_ptr_null(strstr(out, "note: on H100-SXM5-80GB"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --format json --target H100-SXM5-80GB "
				  "--target V100-SXM2-16GB", path), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"point_ns\": null"));
	ck_assert_ptr_nonnull(strstr(out, "\"speedup\": null"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --format csv --target H100-SXM5-80GB "
				  "--target V100-SXM2-16GB", path), 0);
	ck_assert_ptr_nonnull(strstr(out, "\n(total),,,,1,100000,V100-SXM2-16GB,hroof-occ,not "
				     "projected,,,,,,,,\"1 of 1 kernels not projected, 0 by a "
				     "fallback (0 coarser)\",,targets.yaml\n"));
	free(out);
	free(err);
	free(path);
}
END_TEST

/* A B200 export of the default sections: sol, labelled coarser everywhere. */
START_TEST(sol_labelled_coarser)
{
	char *json = import("ncu-b200-sections.csv", "b200.json", NULL), *out, *err, *md;

	/* --verbose: the model's notes per target are the long form's. */
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source B200-180GB --target "
				  "H100-SXM5-80GB --target H100-PCIe-80GB --verbose", json), 0);
	ck_assert_msg(strstr(out, "note: on every target, 2 kernel(s) projected by sol, coarser "
			     "(from Nsight Compute's throughput percentages: hroof-occ lacks their "
			     "inputs)\n") != NULL, "%s", out);
	ck_assert_uint_eq(count(out, "  [by sol, coarser]\n"), 4); /* 2 kernels × 2 targets */
	ck_assert_uint_eq(count(out, " by sol: coarser: from throughput %"), 2);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source B200-180GB --target "
				  "H100-SXM5-80GB --target H100-PCIe-80GB --format json", json), 0);
	ck_assert_uint_eq(count(out, "\"model\": \"sol\""), 4);
	ck_assert_uint_eq(count(out, "\"coarse\": true"), 4);
	ck_assert_uint_eq(count(out, "\"coarse_kernels\": 2"), 2);
	ck_assert_ptr_nonnull(strstr(out, "\"why_fallback\": \"hroof-occ: an export of "
				     "ncu's default sections (throughput percentages, no FP "
				     "counts): sol's input\""));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source B200-180GB --target "
				  "H100-SXM5-80GB --format csv", json), 0);
	ck_assert_uint_eq(count(out, ",H100-SXM5-80GB,sol,ok (coarser),"), 2);
	free(out);
	free(err);
	/* The report (Markdown) and the gate. */
	if (asprintf(&md, "%s/r.md", dir) < 0)
		abort();
	ck_assert_int_eq(test_cli(&out, &err, "report '%s' --source B200-180GB --target "
				  "H100-SXM5-80GB --md '%s' --html '%s/r.html'", json, md, dir), 0);
	free(out);
	free(err);
	out = test_read_file(md);
	ck_assert_ptr_nonnull(out);
	ck_assert_msg(strstr(out, "2 by sol (coarser)") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(test_cli(&out, &err, "gate --baseline '%s' '%s' --source B200-180GB "
				  "--target H100-SXM5-80GB", json, json), 0);
	ck_assert_msg(strstr(out, "projected by sol, coarser (2 kernel x GPU)") != NULL, "%s", out);
	free(out);
	free(err);
	/* With the fallback off, nothing is projected: exit 2, one line. */
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source B200-180GB --no-fallback",
				  json), 2);
	ck_assert_ptr_nonnull(strstr(err, "no kernel could be projected onto any target"));
	free(out);
	free(err);
	/* Side by side: sol has its column; hroof-occ's reads "not projected". */
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source B200-180GB --target "
				  "H100-SXM5-80GB --model all", json), 0);
	ck_assert_ptr_nonnull(strstr(out, "hroof-occ: 2 of 2 kernel(s) not projected on every "
				     "target\n"));
	ck_assert_ptr_null(strstr(out, "sol: 2 of 2"));
	free(out);
	free(err);
	free(md);
	free(json);
}
END_TEST

/* Launches without a geometry: hroof-occ runs without its occupancy term, assumed. */
START_TEST(hroof_when_geometry_unknown)
{
	static const char text[] =
		"\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
		"\"0\",\"1\",\"k\",\"device__attribute_display_name\",\"\",\"NVIDIA H100 PCIe\"\n"
		"\"0\",\"1\",\"k\",\"gpu__time_duration.sum\",\"us\",\"100\"\n"
		"\"0\",\"1\",\"k\",\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\",\"inst\","
		"\"1000000\"\n"
		"\"0\",\"1\",\"k\",\"smsp__average_thread_inst_executed_per_inst_executed.ratio\",\"\","
		"\"32\"\n"
		"\"0\",\"1\",\"k\",\"l1tex__t_bytes.sum\",\"Mbyte\",\"4\"\n"
		"\"0\",\"1\",\"k\",\"lts__t_bytes.sum\",\"Mbyte\",\"2\"\n"
		"\"0\",\"1\",\"k\",\"dram__bytes.sum\",\"Mbyte\",\"1\"\n"
		"\"0\",\"1\",\"k\",\"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum\",\"\",\"0\"\n";
	char *csv = test_write_file(dir, "nogeom.csv", text), *json, *out, *err;

	if (asprintf(&json, "%s/nogeom.json", dir) < 0)
		abort();
	ck_assert_int_eq(test_cli(&out, &err, "import ncu '%s' -o '%s'", csv, json), 0);
	ck_assert_msg(strstr(err, "  the default model (hroof-occ) assumes, for inputs the export "
			     "lacks: occupancy unknown (1 of 1); its intervals widen by what each "
			     "costs (docs/models.md \"Missing inputs\")\n") != NULL, "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --target A100-SXM4-40GB --target "
				  "B200-180GB", json), 0);
	ck_assert_uint_eq(count(out, "  [assumed: occupancy unknown]\n"), 2);
	ck_assert_ptr_nonnull(strstr(out, "note: projected with assumptions for inputs the "
				     "profile lacks: occupancy unknown (1 of 1 kernel(s) on every "
				     "target); "));
	ck_assert_ptr_null(strstr(out, "[by hroof]"));
	free(out);
	free(err);
	free(csv);
	free(json);
}
END_TEST

/* A stand-in for Nsight Compute's CLI: checks its arguments, prints an export. */
static char *
stand_in_ncu(const char *body)
{
	char *bin, *script, *path;

	if (asprintf(&bin, "%s/bin", dir) < 0 || mkdir(bin, 0755) != 0 ||
	    asprintf(&script, "#!/bin/sh\n# Stand-in for `ncu --import REPORT --csv --page raw`.\n"
		     "if [ \"$1\" != --import ] || [ \"$3\" != --csv ] || [ \"$4\" != --page ] || "
		     "[ \"$5\" != raw ] || [ $# -ne 5 ]; then\n"
		     "  echo \"==ERROR== unexpected arguments: $*\" >&2; exit 2\nfi\n%s\n", body) < 0)
		abort();
	path = test_write_file(bin, "ncu", script);
	ck_assert_int_eq(chmod(path, 0755), 0);
	free(script);
	free(path);
	return bin;
}

START_TEST(ncu_rep_through_ncu_on_path)
{
	char *body, *bin, *rep, *env, *out, *err, *json;
	struct gpuproj_profile *a = NULL, *b = NULL;
	struct gpuproj_error e = { 0 };

	if (asprintf(&body, "[ -f \"$2\" ] || { echo \"==ERROR== cannot open $2\" >&2; exit 1; }\n"
		     "cat '%s'", test_data("ncu-metrics-gh100.csv")) < 0)
		abort();
	bin = stand_in_ncu(body);
	rep = test_write_file(dir, "run.ncu-rep", "NVIDIA Nsight Compute report (binary)\n");
	if (asprintf(&env, "PATH='%s':\"$PATH\" TMPDIR='%s'", bin, dir) < 0 ||
	    asprintf(&json, "%s/rep.json", dir) < 0)
		abort();
	ck_assert_int_eq(test_cli_at(NULL, env, &out, &err, "import ncu '%s' -o '%s'", rep, json),
			 0);
	ck_assert_ptr_nonnull(strstr(err, "  every input of the default model (hroof-occ) is "
				     "present\n"));
	/* The same profile as the export itself, and no temporary file left behind. */
	ck_assert_int_eq(gpuproj_profile_load(json, &a, &e), 0);
	ck_assert_int_eq(gpuproj_import_ncu(test_data("ncu-metrics-gh100.csv"), &b, NULL, &e), 0);
	ck_assert_uint_eq(gpuproj_profile_count(a), gpuproj_profile_count(b));
	ck_assert_uint_eq(gpuproj_profile_at(a, 0)->launches, gpuproj_profile_at(b, 0)->launches);
	ck_assert_int_eq(test_count_dir(dir), 3); /* bin, run.ncu-rep, rep.json */
	gpuproj_profile_free(a);
	gpuproj_profile_free(b);
	free(out);
	free(err);
	free(body);
	free(bin);
	free(rep);
	free(env);
	free(json);
}
END_TEST

START_TEST(ncu_rep_failing_or_absent)
{
	char *bin = stand_in_ncu("echo '==ERROR== The report file is corrupted.' >&2\nexit 1");
	char *rep = test_write_file(dir, "bad.ncu-rep", "x"), *env, *out, *err;

	if (asprintf(&env, "PATH='%s':\"$PATH\" TMPDIR='%s'", bin, dir) < 0)
		abort();
	ck_assert_int_eq(test_cli_at(NULL, env, &out, &err, "import ncu '%s' -o '%s/o.json'", rep,
				     dir), 2);
	ck_assert_msg(strstr(err, "bad.ncu-rep: `") != NULL && count(err, "\n") == 1, "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "--import "));
	ck_assert_ptr_nonnull(strstr(err, " --csv --page raw` failed (exit status 1): ==ERROR== The "
				     "report file is corrupted.\n"));
	ck_assert_int_eq(test_count_dir(dir), 2); /* bin, bad.ncu-rep: no output, no temporaries */
	free(out);
	free(err);
	free(env);
	/* No ncu at all: how to export, in one line. */
	ck_assert_int_eq(test_cli_at(NULL, "PATH=/nonexistent", &out, &err, "import ncu '%s' -o "
				     "'%s/o.json'", rep, dir), 2);
	ck_assert_msg(strstr(err, "bad.ncu-rep: a binary Nsight Compute report, and ncu is not on "
			     "PATH to export it: run `ncu --import ") != NULL &&
		      count(err, "\n") == 1, "%s", err);
	free(out);
	free(err);
	free(bin);
	free(rep);
}
END_TEST

START_TEST(source_gpu_from_the_export)
{
	static const char wrong_cc[] =
		"\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"CC\","
		"\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
		"\"0\",\"1\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"8.0\",\"device__attribute_display_"
		"name\",\"\",\"NVIDIA H100 PCIe\"\n"
		"\"0\",\"1\",\"k\",\"(32, 1, 1)\",\"(4, 1, 1)\",\"8.0\",\"gpu__time_duration.sum\","
		"\"ns\",\"100\"\n";
	char *json = import("ncu-metrics-gh100.csv", "gh.json", NULL), *csv, *out, *err;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error e = { 0 };

	/* device__attribute_display_name → the targets.yaml entry, recorded in the profile. */
	ck_assert_int_eq(gpuproj_profile_load(json, &p, &e), 0);
	ck_assert_str_eq(gpuproj_profile_device(p)->target, "H100-PCIe-80GB");
	ck_assert_str_eq(gpuproj_profile_device(p)->chip, "GH100");
	gpuproj_profile_free(p);
	/* A --device-name the export's own device contradicts: an error, unless --force. */
	ck_assert_int_eq(test_cli(&out, &err, "import ncu --device-name 'NVIDIA H100 PCIe MIG "
				  "3g.40gb' '%s' -o '%s/nvl.json'",
				  test_data("ncu-metrics-gh100.csv"), dir), 2);
	ck_assert_msg(strstr(err, ": --device-name 'NVIDIA H100 PCIe MIG 3g.40gb' contradicts "
			     "the export's own device 'NVIDIA H100 PCIe' "
			     "(device__attribute_display_name or \"Device\"): drop --device-name, "
			     "or pass --force to use it all the same\n") != NULL &&
		      count(err, "\n") == 1, "%s", err);
	free(out);
	free(err);
	/* Forced, a name targets.yaml lacks: close names and both ways to name it, in one line. */
	ck_assert_int_eq(test_cli(&out, &err, "import ncu --force --device-name 'NVIDIA H100 PCIe "
				  "MIG 3g.40gb' '%s' -o '%s/nvl.json'",
				  test_data("ncu-metrics-gh100.csv"), dir), 0);
	ck_assert_msg(strstr(err, "  device: NVIDIA H100 PCIe MIG 3g.40gb, CC 9.0; warning: the "
			     "export's GPU 'NVIDIA H100 PCIe MIG 3g.40gb' is not in targets.yaml; "
			     "close names: ") != NULL, "%s", err);
	free(out);
	free(err);
	/* The export's CC against the entry's: said, not silently used. */
	csv = test_write_file(dir, "cc.csv", wrong_cc);
	ck_assert_int_eq(test_cli(&out, &err, "import ncu '%s' -o '%s/cc.json'", csv, dir), 0);
	ck_assert_msg(strstr(err, "  device: NVIDIA H100 PCIe, CC 8.0; warning: not "
			     "targets.yaml's H100-PCIe-80GB (CC 8.0, not 9.0): a variant it does "
			     "not list (or a MIG partition); ") != NULL, "%s", err);
	free(out);
	free(err);
	free(csv);
	free(json);
}
END_TEST

/* stat() of DIR/NAME: 0 when it exists. */
static int
stat_path(const char *d, const char *name)
{
	struct stat st;
	char *path;
	int rc;

	if (asprintf(&path, "%s/%s", d, name) < 0)
		abort();
	rc = stat(path, &st);
	free(path);
	return rc;
}

/* `"148"` → `"152"` in the real B200 export: its device, grid and SM count. */
static char *
b200_with_152_sms(void)
{
	char *text = test_read_file(test_data("ncu-b200-raw-attrs.csv")), *at, *csv;

	ck_assert_ptr_nonnull(text);
	for (at = strstr(text, "\"148\""); at; at = strstr(at + 5, "\"148\""))
		memcpy(at + 1, "152", 3);
	csv = test_write_file(dir, "b200-152.csv", text);
	free(text);
	return csv;
}

/*
 * The GPU from the export's device__attribute_* columns: a nameless B200
 * by its CC, SMs, memory and clock; a 152-SM "NVIDIA B200" is no
 * B200-180GB, said at import and projected from a provisional entry.
 */
START_TEST(gpu_identified_by_attributes)
{
	char *json = import("ncu-b200-sections.csv", "b200.json", NULL), *csv, *out, *err;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error e = { 0 };

	ck_assert_int_eq(gpuproj_profile_load(json, &p, &e), 0);
	ck_assert_ptr_null(gpuproj_profile_device(p)->name);
	ck_assert_int_eq(gpuproj_profile_device(p)->sms, 148);
	gpuproj_profile_free(p);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --target H100-SXM5-80GB", json), 0);
	ck_assert_msg(strstr(out, "source GPU: B200-180GB ") != NULL, "%s", out);
	free(out);
	free(err);
	/*
	 * A --device-name whose entry the attributes contradict (H100-PCIe-80GB: CC 9.0,
	 * 114 SMs): an error naming both, nothing written; --force takes it and warns.
	 */
	ck_assert_int_eq(test_cli(&out, &err, "import ncu --device-name 'NVIDIA H100 PCIe' '%s' "
				  "-o '%s/h.json'", test_data("ncu-b200-sections.csv"), dir), 2);
	ck_assert_msg(strstr(err, "ncu-b200-sections.csv: --device-name 'NVIDIA H100 PCIe' "
			     "contradicts the export's device attributes: the device has CC 10.0, "
			     "not 9.0, 148 SMs, not 114 (targets.yaml H100-PCIe-80GB): name "
			     "another GPU, or pass --force\n") != NULL && count(err, "\n") == 1,
		      "%s", err);
	ck_assert_int_ne(stat_path(dir, "h.json"), 0);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "import ncu --force --device-name 'NVIDIA H100 PCIe' "
				  "'%s' -o '%s/h.json'", test_data("ncu-b200-sections.csv"), dir),
			 0);
	ck_assert_msg(strstr(err, "  device: NVIDIA H100 PCIe, CC 10.0, 148 SMs; warning: not "
			     "targets.yaml's H100-PCIe-80GB (CC 10.0, not 9.0, 148 SMs, not 114): "
			     "a variant it does not list (or a MIG partition); ") != NULL, "%s",
		      err);
	free(out);
	free(err);
	free(json);
	csv = b200_with_152_sms();
	ck_assert_int_eq(test_cli(&out, &err, "import ncu '%s' -o '%s/v.json'", csv, dir), 0);
	ck_assert_msg(strstr(err, "  device: NVIDIA B200, CC 10.0, 152 SMs; warning: not "
			     "targets.yaml's B200-180GB (152 SMs, not 148): a variant it does not "
			     "list (or a MIG partition); ") != NULL, "%s", err);
	ck_assert_ptr_null(strstr(err, "= targets.yaml"));
	free(out);
	free(err);
	/* Nothing to stand on in it, but the source is the provisional entry, said so. */
	ck_assert_int_eq(test_cli(&out, &err, "project '%s/v.json'", dir), 2);
	ck_assert_msg(strstr(err, "gpuproj: project: note: the profile's GPU 'NVIDIA B200' is "
			     "not targets.yaml's B200-180GB (it has 152 SMs, not 148): projecting "
			     "from a provisional entry derived from its device attributes") == err,
		      "%s",
		      err);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "targets derive '%s/v.json'", dir), 0);
	ck_assert_ptr_nonnull(strstr(out, "\n    sms: 152\n"));
	free(out);
	free(err);
	free(csv);
}
END_TEST

/*
 * An nvprof export of a Kepler GPU (Tesla K40c, CC 3.5) whose "init" kernel
 * has FP counts of 0 and no bytes: nothing to scale by, and the command
 * that collects it is nvprof's, for that GPU (no half-precision counters
 * before CC 5.3) — never ncu, which does not run there.
 */
START_TEST(kepler_sent_to_nvprof)
{
	char *out, *err, *json;

	if (asprintf(&json, "%s/k40.json", dir) < 0)
		abort();
	ck_assert_int_eq(test_cli(&out, &err, "import nvprof '%s' '%s' -o '%s'",
				  test_data("nvprof-trace.csv"), test_data("nvprof-metrics.csv"),
				  json), 0);
	ck_assert_msg(strstr(err, "  1 of 3 kernel signatures cannot be projected by the default "
			     "model (hroof-occ): no time, or neither FLOP nor bytes; ") != NULL,
		      "%s", err);
	ck_assert_msg(strstr(err, "  collect everything with:\n    nvprof --csv --print-gpu-trace "
			     "--log-file trace.csv ./app\n    nvprof --csv --metrics "
			     "flop_count_sp_fma,") != NULL, "%s", err);
	ck_assert_ptr_null(strstr(err, "ncu "));
	ck_assert_ptr_null(strstr(err, "flop_count_hp"));
	free(out);
	free(err);
	/* Its "Device" column against --device-name: an error unless --force. */
	ck_assert_int_eq(test_cli(&out, &err, "import nvprof --device-name 'Tesla V100-SXM2-16GB' "
				  "'%s' -o '%s/forced.json'", test_data("nvprof-metrics.csv"), dir),
			 2);
	ck_assert_msg(strstr(err, ": --device-name 'Tesla V100-SXM2-16GB' contradicts the "
			     "export's own device 'Tesla K40c' (\"Device\")") != NULL, "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "import nvprof --force --device-name 'Tesla "
				  "V100-SXM2-16GB' '%s' -o '%s/forced.json'",
				  test_data("nvprof-metrics.csv"), dir), 0);
	free(out);
	free(err);
	/* The other two project, the third is carried and says why. */
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --target V100-SXM2-16GB", json), 0);
	ck_assert_msg(strstr(out, "not projected: hroof-occ needs FLOP (inst.fp{16,32,64}."
			     "{fma,add,mul} or flop.tensor.*) or bytes (bytes.l1, bytes.l2, "
			     "bytes.dram)\n") != NULL, "%s", out);
	free(out);
	free(err);
	/* The metrics alone have no time: refused, with nvprof's lines. */
	ck_assert_int_eq(test_cli(&out, &err, "import nvprof '%s' -o '%s'",
				  test_data("nvprof-metrics.csv"), json), 0);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --target V100-SXM2-16GB", json), 2);
	ck_assert_msg(strstr(err, "(2 kernel signatures; 2 of them: no timed launch (duration)); "
			     "collect it with:\n    nvprof --csv --print-gpu-trace --log-file "
			     "trace.csv ./app\n") != NULL, "%s", err);
	ck_assert_ptr_null(strstr(err, "ncu "));
	free(out);
	free(err);
	free(json);
}
END_TEST

/*
 * A copy of a real export (tests/data/README.md) without the long-layout
 * rows whose "Metric Name" starts with one of `drop` (NULL-terminated):
 * the same export as one that never collected them.
 */
static char *
export_without(const char *fixture, const char *const *drop, const char *name)
{
	char *text = test_read_file(test_data(fixture)), *line, *next, *csv;
	char *buf;
	size_t d, len = 0;

	ck_assert_ptr_nonnull(text);
	buf = malloc(strlen(text) + 1);
	ck_assert_ptr_nonnull(buf);
	for (line = text; *line; line = next) {
		bool keep = true;

		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		for (d = 0; drop && drop[d]; d++) {
			char field[128];

			snprintf(field, sizeof(field), "\",\"%s", drop[d]);
			/* Metric Name follows Section Name ("Command line profiler metrics"). */
			if (strstr(line, field) && strstr(line, field) < next)
				keep = false;
		}
		if (keep) {
			memcpy(buf + len, line, (size_t)(next - line));
			len += (size_t)(next - line);
		}
	}
	buf[len] = '\0';
	csv = test_write_file(dir, name, buf);
	free(buf);
	free(text);
	return csv;
}

/*
 * Every class of missing input, on real exports of the NERSC roofline
 * recipe from an A100 (tests/data/README.md) and copies without some of
 * their rows: each model projects every kernel, states the assumption,
 * and its interval is the calibrated one widened by the built-in factor
 * of every assumption it states (src/data/assumptions.json).
 */
START_TEST(every_missing_input_assumed)
{
	static const char *const no_l1[] = { "l1tex__t_bytes.sum\"", NULL };
	static const char *const no_l2[] = { "lts__t_bytes.sum\"", NULL };
	static const char *const no_dram[] = { "dram__bytes.sum\"", NULL };
	static const char *const no_fp[] = { "sm__sass_thread_inst_executed_op_", NULL };
	static const char *const no_regs[] = { "Registers Per Thread", NULL };
	static const char *const no_shared[] = {
		"l1tex__data_pipe_lsu_wavefronts_mem_shared",
		"smsp__sass_l1tex_data_pipe_lsu_wavefronts", NULL
	};
	static const struct {
		const char *fixture;
		const char *const *drop;
		const char *model;
		enum gpuproj_assumption a;
	} cases[] = {
		{ "ncu-nersc-a100.csv", NULL, "hroof-occ", GPUPROJ_ASSUME_SHARED },
		{ "ncu-nersc-a100.csv", NULL, "hroof-occ", GPUPROJ_ASSUME_WARPS },
		{ "ncu-nersc-a100.csv", NULL, "hroof-occ", GPUPROJ_ASSUME_GEOMETRY },
		{ "ncu-nersc-a100.csv", no_l1, "hroof-occ", GPUPROJ_ASSUME_L1 },
		{ "ncu-nersc-a100.csv", no_l2, "hroof", GPUPROJ_ASSUME_L2 },
		{ "ncu-nersc-a100.csv", no_dram, "hroof-occ", GPUPROJ_ASSUME_DRAM },
		{ "ncu-nersc-a100.csv", no_fp, "hroof-occ", GPUPROJ_ASSUME_FLOP },
		{ "ncu-nersc-a100.csv", NULL, "occupancy", GPUPROJ_ASSUME_GEOMETRY },
		{ "ncu-nersc-a100.csv", NULL, "quant", GPUPROJ_ASSUME_MIX },
		{ "ncu-nersc-a100.csv", NULL, "irm", GPUPROJ_ASSUME_MIX },
		{ "ncu-nersc-a100.csv", NULL, "sol", GPUPROJ_ASSUME_PERCENTAGES },
		{ "ncu-nersc-tensor-a100.csv", no_regs, "hroof-occ", GPUPROJ_ASSUME_REGISTERS },
		{ "ncu-nersc-tensor-a100.csv", no_regs, "occupancy", GPUPROJ_ASSUME_REGISTERS },
		{ "ncu-nersc-tensor-a100.csv", no_shared, "hroof-occ", GPUPROJ_ASSUME_SHARED },
	};
	const struct gpuproj_intervals *iv = gpuproj_intervals_builtin();
	struct gpuproj_targets *ts = NULL;
	const struct gpuproj_target *src, *tgt;
	size_t c, i;

	ck_assert_int_eq(gpuproj_targets_load_builtin(&ts, NULL), 0);
	src = gpuproj_targets_find(ts, "A100-PCIe-40GB");
	tgt = gpuproj_targets_find(ts, "H100-SXM5-80GB");
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(tgt);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct gpuproj_model *m = gpuproj_model_find(cases[c].model);
		char name[32], *csv;
		struct gpuproj_profile *p = NULL;
		struct gpuproj_error e = { 0 };

		snprintf(name, sizeof(name), "case%zu.csv", c);
		csv = export_without(cases[c].fixture, cases[c].drop, name);
		ck_assert_ptr_nonnull(m);
		ck_assert_msg(gpuproj_import_ncu(csv, &p, NULL, &e) == 0, "%s", e.message);
		ck_assert_uint_eq(gpuproj_profile_count(p), 2);
		for (i = 0; i < gpuproj_profile_count(p); i++) {
			const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
			struct gpuproj_projection pr;
			double lo, hi, wl, wh;
			int a;

			ck_assert_msg(gpuproj_model_project(m, k, src, tgt, NULL, &pr) == 0,
				      "case %zu (%s), kernel %zu: %s", c, cases[c].model, i,
				      pr.why);
			ck_assert_msg(pr.assumed & (1u << cases[c].a), "case %zu: %s lacks '%s'", c,
				      cases[c].model, gpuproj_assumption_info(cases[c].a)->word);
			ck_assert_msg(gpuproj_model_assumptions(m, k) & (1u << cases[c].a) ||
				      cases[c].a == GPUPROJ_ASSUME_MIX, "case %zu", c);
			/* The interval: calibrated factors × each stated assumption's. */
			ck_assert(gpuproj_intervals_lookup(iv, m, pr.binding, pr.point_ns, &lo,
							   &hi, NULL));
			for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
				if (!(pr.assumed & (1u << a)))
					continue;
				gpuproj_assumption_widening(m, (enum gpuproj_assumption)a, &wl,
							    &wh);
				lo *= wl;
				hi *= wh;
			}
			ck_assert_double_eq_tol(pr.lo_ns, pr.point_ns * lo, 1e-9 * pr.point_ns);
			ck_assert_double_eq_tol(pr.hi_ns, pr.point_ns * hi, 1e-9 * pr.point_ns);
		}
		gpuproj_profile_free(p);
		free(csv);
	}
	gpuproj_targets_free(ts);
}
END_TEST

/*
 * The NERSC recipe's export (real, an A100): every kernel through the
 * default model, its assumptions listed per kernel and counted in JSON.
 */
START_TEST(nersc_recipe_projects_every_kernel)
{
	static const char *const recipe_extras[] = {
		"gpu__time_duration.sum\"", "gpu__compute_memory_throughput.",
		"gpu__dram_throughput.", "l1tex__throughput.", "lts__throughput.",
		"sm__throughput.", NULL
	};
	char *json = import("ncu-nersc-a100.csv", "nersc.json", NULL), *out, *err, *csv;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error e = { 0 };

	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source A100-PCIe-40GB --target "
				  "H100-SXM5-80GB", json), 0);
	ck_assert_ptr_null(strstr(out, "not projected"));
	ck_assert_uint_eq(count(out, "  [assumed: shared unbounded, full warps, occupancy "
				"unknown]\n"), 2);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source A100-PCIe-40GB --target "
				  "H100-SXM5-80GB --format json", json), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"projected_kernels\": 2,"));
	ck_assert_ptr_nonnull(strstr(out, "\"assumed_kernels\": 2,"));
	free(out);
	free(err);
	free(json);
	/*
	 * The recipe's list alone (its ncu script: sm__cycles_elapsed.avg{,.per_second},
	 * the nine sm__sass_thread_inst_executed_op_{d,f,h}{add,fma,mul}_pred_on.sum,
	 * sm__inst_executed_pipe_tensor.sum, dram__bytes.sum, lts__t_bytes.sum,
	 * l1tex__t_bytes.sum): the same file without gpu__time_duration and the four
	 * throughput percentages. The duration is cycles / rate: 7,556.52 cycles /
	 * 1,009,150,443.18 Hz = 7,488.0015 ns ("7.49 us") and 4,038.70 / 956,132,505.61 Hz =
	 * 4,223.9961 ns ("4.22 us"), what gpu__time_duration.sum says (7,488 and 4,224).
	 */
	csv = export_without("ncu-nersc-a100.csv", recipe_extras, "recipe.csv");
	if (asprintf(&json, "%s/recipe.json", dir) < 0)
		abort();
	ck_assert_int_eq(test_cli(&out, &err, "import ncu '%s' -o '%s'", csv, json), 0);
	ck_assert_msg(strstr(err, "  the default model (hroof-occ) assumes, for inputs the export "
			     "lacks: shared unbounded (2 of 2), full warps (2 of 2), occupancy "
			     "unknown (2 of 2); ") != NULL, "%s", err);
	ck_assert_ptr_null(strstr(err, "cannot be projected"));
	free(out);
	free(err);
	ck_assert_int_eq(gpuproj_profile_load(json, &p, &e), 0);
	ck_assert_uint_eq(gpuproj_profile_count(p), 2);
	ck_assert_double_eq_tol(gpuproj_profile_at(p, 0)->duration_ns.sum, 7488.0015, 1e-4);
	ck_assert_double_eq_tol(gpuproj_profile_at(p, 1)->duration_ns.sum, 4223.9961, 1e-4);
	gpuproj_profile_free(p);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source A100-PCIe-40GB --target "
				  "H100-SXM5-80GB", json), 0);
	ck_assert_ptr_null(strstr(out, "not projected"));
	ck_assert_ptr_nonnull(strstr(out, ", 7.49 us per launch on A100-PCIe-40GB, "));
	ck_assert_ptr_nonnull(strstr(out, ", 4.22 us per launch on A100-PCIe-40GB, "));
	ck_assert_uint_eq(count(out, "  [assumed: shared unbounded, full warps, occupancy "
				"unknown]\n"), 2);
	free(out);
	free(err);
	free(csv);
	/* Tensor work counted by instruction (HMMA assumed): said as well. */
	free(json);
	json = import("ncu-nersc-tensor-a100.csv", "tensor.json", NULL);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source A100-PCIe-40GB --target "
				  "H100-SXM5-80GB", json), 0);
	ck_assert_uint_eq(count(out, "  [assumed: full warps, tensor shape assumed]\n"), 2);
	free(out);
	free(err);
	free(json);
}
END_TEST

/* The built-in profile: every model projects every kernel onto every target. */
START_TEST(builtin_every_model_every_kernel)
{
	char *out, *err;

	ck_assert_int_eq(test_cli(&out, &err, "project --builtin --model all --format json"), 0);
	ck_assert_ptr_null(strstr(out, "\"status\": \"missing"));
	ck_assert_uint_eq(count(out, "\"status\": \"ok\""), count(out, "\"status\": \""));
	ck_assert_uint_eq(count(out, "\"unprojected_kernels\": 0"),
			  count(out, "\"unprojected_kernels\": "));
	ck_assert_uint_eq(count(out, "\"model\": \"sol\""), count(out, "\"model\": \"hroof\""));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --builtin --model all"), 0);
	ck_assert_ptr_null(strstr(out, "n/p"));
	ck_assert_ptr_null(strstr(out, "not projected"));
	ck_assert_ptr_nonnull(strstr(out, "\nnote: quant projected with assumptions for inputs the "
				     "profile lacks: issue lower bound (8 of 8 kernel(s) on every "
				     "target)"));
	free(out);
	free(err);
}
END_TEST

START_TEST(ncu_metrics_command)
{
	char *out, *err;
	const char *names[64];
	size_t n = gpuproj_ncu_metrics_tensor("GB202", GPUPROJ_TENSOR_OPS, names, 64);
	size_t n_common = gpuproj_ncu_metrics("GB202", NULL, 0);

	ck_assert_int_eq(test_cli(&out, &err, "ncu-metrics --chip RTX-9090"), 2);
	ck_assert_ptr_nonnull(strstr(err, "'RTX-9090' is neither an NVIDIA chip gpuproj knows"));
	free(out);
	free(err);
	/* A targets.yaml GPU of chip GB202 (sm_120): GB202's DRAM metric names. */
	ck_assert_int_eq(test_cli(&out, &err, "ncu-metrics --chip RTX-5090"), 0);
	ck_assert_ptr_nonnull(strstr(out, ",dram__bytes_op_read.sum,dram__bytes_op_write.sum,"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "ncu-metrics --chip GB202"), 0);
	ck_assert_msg(strncmp(out, "ncu --csv --page raw --metrics gpu__time_duration.sum,", 54) ==
		      0, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, ",dram__bytes_op_read.sum,dram__bytes_op_write.sum,"));
	ck_assert_ptr_nonnull(strstr(out, " --log-file run.csv ./app\n"));
	ck_assert_uint_eq(count(out, ","), n - 1);
	/* GB202's tensor counters (src/tensor.c): 13 names, the _realtime twins first. */
	ck_assert_uint_eq(n, n_common + 13);
	ck_assert_ptr_nonnull(strstr(out, ",sm__ops_path_tensor_src_fp16_dst_fp32_realtime.sum,"));
	ck_assert_ptr_nonnull(strstr(out, ",sm__pipe_tensor_cycles_active.avg."
				     "pct_of_peak_sustained_active --log-file"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "ncu-metrics --chip GB202 --tensor off --list"), 0);
	ck_assert_uint_eq(count(out, ","), n_common - 1);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "ncu-metrics --chip GB202 --tensor inst --list"), 0);
	ck_assert_ptr_nonnull(strstr(out, ",sm__inst_executed_pipe_tensor_subpipe_hmma.sum,"));
	ck_assert_ptr_null(strstr(out, "sm__ops_path_tensor"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "ncu-metrics --tensor flops"), 2);
	ck_assert_ptr_nonnull(strstr(err, "--tensor 'flops' is not one of ops, inst, off"));
	free(out);
	free(err);
	/* A targets.yaml name: its chip (GH100), not GB202's spelling. */
	ck_assert_int_eq(test_cli(&out, &err, "ncu-metrics --chip H100-PCIe-80GB --list"), 0);
	ck_assert_ptr_nonnull(strstr(out, ",dram__bytes_read.sum,dram__bytes_write.sum,"));
	ck_assert_ptr_null(strstr(out, "ncu "));
	free(out);
	free(err);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("coverage");
	TCase *tc = tcase_create("cli");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, nothing_projected_exits_1);
	tcase_add_test(tc, assumed_when_inputs_missing);
	tcase_add_test(tc, unprojected_counted_with_untimed);
	tcase_add_test(tc, notes_per_target_when_coverage_differs);
	tcase_add_test(tc, sol_labelled_coarser);
	tcase_add_test(tc, hroof_when_geometry_unknown);
	tcase_add_test(tc, ncu_rep_through_ncu_on_path);
	tcase_add_test(tc, ncu_rep_failing_or_absent);
	tcase_add_test(tc, source_gpu_from_the_export);
	tcase_add_test(tc, gpu_identified_by_attributes);
	tcase_add_test(tc, kepler_sent_to_nvprof);
	tcase_add_test(tc, every_missing_input_assumed);
	tcase_add_test(tc, nersc_recipe_projects_every_kernel);
	tcase_add_test(tc, builtin_every_model_every_kernel);
	tcase_add_test(tc, ncu_metrics_command);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
