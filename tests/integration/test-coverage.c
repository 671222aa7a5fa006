/* SPDX-License-Identifier: MIT */
/*
 * `gpuproj project` tells the truth about coverage (issue 11), and the
 * import commands around it, end to end on exports of the shapes people
 * have (tests/data/ncu-*.csv, described in test-import-ncu.c):
 * - nothing projected onto any target: exit 1, one line, nothing written;
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
#include <gpuproj/model.h>
#include <gpuproj/profile.h>

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
	char *json = import("ncu-old.csv", "old.json", NULL), *out, *err, *table;
	struct stat st;

	/* hroof-occ lacks counts, sol the speed-of-light section, hroof the warp efficiency. */
	if (asprintf(&table, "%s/table.txt", dir) < 0)
		abort();
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source A100-SXM4-40GB -o '%s'", json,
				  table), 2);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strstr(err, "gpuproj: ") == err && count(err, "\n") == 1, "%s", err);
	ck_assert_msg(strstr(err, ": no kernel could be projected onto any target (1 kernel "
			     "signature; 1 of them: hroof needs bytes.l1, bytes.l2, "
			     "shared.wavefronts, warp_efficiency); `gpuproj ncu-metrics` prints the "
			     "ncu command that collects what is missing\n") != NULL, "%s", err);
	ck_assert_int_ne(stat(table, &st), 0); /* nothing written */
	free(out);
	free(err);
	/* JSON too: no file with a "projection" of carried time. */
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --source A100-SXM4-40GB --format json "
				  "-o '%s'", json, table), 2);
	ck_assert_int_ne(stat(table, &st), 0);
	free(out);
	free(err);
	free(table);
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

	/* --verbose: the model's notes per target are the long form's (issue 33). */
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
	ck_assert_ptr_nonnull(strstr(out, "\"why_fallback\": \"hroof needs bytes.l1"));
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
	/* With the fallback off, nothing is projected: exit 1, one line. */
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

/* Launches without a geometry: hroof stands in for hroof-occ, labelled. */
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
	ck_assert_msg(strstr(err, "  1 of them will be projected by hroof, without the occupancy "
			     "term (launch geometry unknown)\n") != NULL, "%s", err);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --target A100-SXM4-40GB --target "
				  "B200-180GB", json), 0);
	ck_assert_ptr_nonnull(strstr(out, "  [by hroof]\n"));
	ck_assert_ptr_nonnull(strstr(out, "note: on every target, 1 kernel(s) projected by hroof "
				     "without the occupancy term (launch geometry unknown)\n"));
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
	/* A name targets.yaml lacks: close names and both ways to name it, in one line. */
	ck_assert_int_eq(test_cli(&out, &err, "import ncu --device-name 'NVIDIA H100 PCIe MIG 3g.40gb' '%s' -o "
				  "'%s/nvl.json'", test_data("ncu-metrics-gh100.csv"), dir), 0);
	ck_assert_msg(strstr(err, "  device: NVIDIA H100 PCIe MIG 3g.40gb, CC 9.0; warning: the export's GPU "
			     "'NVIDIA H100 PCIe MIG 3g.40gb' is not in targets.yaml; close names: ") != NULL, "%s",
		      err);
	free(out);
	free(err);
	/* The export's CC against the entry's: said, not silently used. */
	csv = test_write_file(dir, "cc.csv", wrong_cc);
	ck_assert_int_eq(test_cli(&out, &err, "import ncu '%s' -o '%s/cc.json'", csv, dir), 0);
	ck_assert_msg(strstr(err, "  warning: the export says CC 8.0 and 0 SMs, targets.yaml's "
			     "H100-PCIe-80GB has CC 9.0 and 114 SMs") != NULL, "%s", err);
	free(out);
	free(err);
	free(csv);
	free(json);
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
	tcase_add_test(tc, unprojected_counted_with_untimed);
	tcase_add_test(tc, notes_per_target_when_coverage_differs);
	tcase_add_test(tc, sol_labelled_coarser);
	tcase_add_test(tc, hroof_when_geometry_unknown);
	tcase_add_test(tc, ncu_rep_through_ncu_on_path);
	tcase_add_test(tc, ncu_rep_failing_or_absent);
	tcase_add_test(tc, source_gpu_from_the_export);
	tcase_add_test(tc, ncu_metrics_command);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
