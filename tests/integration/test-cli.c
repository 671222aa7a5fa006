/* SPDX-License-Identifier: MIT */
/*
 * The gpuproj command end to end: exit statuses (0 ok, 1 failure, 2 usage),
 * help, project in every format, targets verbs, and clear errors that
 * produce no output files. Fixtures: tests/data/targets-test.yaml and
 * profile-test.json (the DRAM-bound kernel of test-hroof: 1.2 ms on SrcGPU
 * projects to 300 µs on TgtGPU; its reference on TgtGPU is 200 µs, so the
 * error is +50%).
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "common.h"

#define TARGETS "--targets '%s'"

/* Collapse runs of blanks, so table checks do not depend on column widths. */
static char *
squeeze(char *s)
{
	char *r = s, *w = s;

	for (; *r; r++) {
		if (*r == ' ' && w > s && w[-1] == ' ')
			continue;
		*w++ = *r;
	}
	*w = '\0';
	return s;
}

/* How many times `needle` occurs in `hay`. */
static size_t
count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

START_TEST(version_and_help)
{
	char *out, *err;

	ck_assert_int_eq(test_cli(&out, &err, "--version"), 0);
	ck_assert_str_eq(out, "gpuproj " GPUPROJ_VERSION "\n");
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "--help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: gpuproj [--max-input-size SIZE] <command>"));
	ck_assert_ptr_nonnull(strstr(out, "project"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: gpuproj project"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "targets --help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: gpuproj targets"));
	free(out);
	free(err);
}
END_TEST

static const struct usage_case {
	const char *args, *stderr_first_line;
} usage_cases[] = {
	{ "", "Usage: gpuproj [--max-input-size SIZE] <command> [options] [arguments]" },
	{ "bogus", "gpuproj: unknown command 'bogus'" },
	{ "--bogus", "gpuproj: unknown option '--bogus'" },
	{ "project", "gpuproj: project: missing PROFILE (or --builtin)" },
	{ "project a.json b.json", "gpuproj: project: expected one PROFILE, got 2" },
	{ "project --format xml a.json", "gpuproj: project: --format must be table, json, csv or "
	  "trace, not 'xml'" },
	{ "project --expand 0 a.json", "gpuproj: project: --expand needs a positive integer, "
	  "got '0'" },
	{ "project --top 0 a.json", "gpuproj: project: --top needs a positive integer, got '0'" },
	{ "project --top ' 5' a.json", "gpuproj: project: --top needs a positive integer, got ' 5'" },
	{ "project --top 99999999999999999999999 a.json",
	  "gpuproj: project: --top needs a positive integer, got '99999999999999999999999'" },
	{ "project --model nope a.json", "gpuproj: project: unknown model 'nope' (`--model list` "
	  "lists them)" },
	{ "project --builtin a.json", "gpuproj: project: give either PROFILE or --builtin, not both" },
	{ "project --target", "gpuproj: project: option '--target' needs a value" },
	{ "project --l2-capacity maybe a.json", "gpuproj: project: --l2-capacity must be on or off, "
	  "not 'maybe'" },
	{ "project --waves tidal a.json", "gpuproj: project: --waves must be sm, resident or off, "
	  "not 'tidal'" },
	{ "project --details a.json", "gpuproj: project: --details needs --format json" },
	{ "validate --l2-capacity 1 a.csv", "gpuproj: validate: --l2-capacity must be on or off, "
	  "not '1'" },
	{ "validate --waves 2 a.csv", "gpuproj: validate: --waves must be sm, resident or off, "
	  "not '2'" },
	{ "project --clock boost a.json", "gpuproj: project: --clock must be sustained, burst or "
	  "auto, not 'boost'" },
	{ "project --fp32 sgemm a.json", "gpuproj: project: --fp32 must be fma or dense, not "
	  "'sgemm'" },
	{ "validate --clock 1 a.csv", "gpuproj: validate: --clock must be sustained, burst or "
	  "auto, not '1'" },
	{ "validate --fp32 2 a.csv", "gpuproj: validate: --fp32 must be fma or dense, not '2'" },
	{ "project --occupancy lots a.json", "gpuproj: project: --occupancy must be little, "
	  "little-source or linear, not 'lots'" },
	{ "validate --compute pipes a.csv", "gpuproj: validate: --compute must be fp or issue, "
	  "not 'pipes'" },
	{ "project --rates peak a.json", "gpuproj: project: --rates must be sustained or "
	  "datasheet, not 'peak'" },
	{ "validate --holdout kernel a.csv", "gpuproj: validate: --holdout must be shape, gpu or "
	  "none, not 'kernel'" },
	{ "validate --holdout Shape a.csv", "gpuproj: validate: --holdout must be shape, gpu or "
	  "none, not 'Shape'" },
	{ "gate --metric cpu a.json b.json", "gpuproj: gate: --metric needs 'kernel' or 'wall', "
	  "got 'cpu'" },
	{ "ncu-metrics --tensor flops", "gpuproj: ncu-metrics: --tensor 'flops' is not one of "
	  "ops, inst, off" },
	{ "targets", "gpuproj: targets: missing verb: list, show NAME, check FILE or derive PROFILE" },
	{ "targets frobnicate", "gpuproj: targets: unknown verb 'frobnicate': list, show NAME, "
	  "check FILE or derive PROFILE" },
	{ "targets check", "gpuproj: targets: check needs exactly one FILE" },
	/* A short option inside a cluster is named by its letter. */
	{ "sass -qx a.cubin", "gpuproj: sass: unknown option '-x'" },
	{ "project -o", "gpuproj: project: option '-o' needs a value" },
};

START_TEST(usage_errors_exit_2)
{
	const struct usage_case *c = &usage_cases[_i];
	char *out, *err, *nl;

	ck_assert_int_eq(test_cli(&out, &err, "%s", c->args), 2);
	ck_assert_str_eq(out, "");
	nl = strchr(err, '\n');
	ck_assert_ptr_nonnull(nl);
	*nl = '\0';
	ck_assert_str_eq(err, c->stderr_first_line);
	free(out);
	free(err);
}
END_TEST

START_TEST(project_table)
{
	char *out, *err;

	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --intervals levels " TARGETS " '%s'",
			     test_data("targets-test.yaml"), test_data("profile-test.json")), 0);
	ck_assert_str_eq(err, "");
	squeeze(out);
	/*
	 * Whole run on TgtGPU: 10 × 300 µs + 5 µs carried = 3.005 ms, speedup
	 * 12.005/3.005 = 3.995; measured unknown (one kernel has no reference).
	 */
	ck_assert_msg(strstr(out, "\nTgtGPU 3.00 ms [3.00 ms, 3.00 ms] 4.00x - - dram \n") != NULL,
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\nSrcGPU 12.0 ms [12.0 ms, 12.0 ms] 1.00x - - dram "
				     "(source)\n"));
	ck_assert_ptr_nonnull(strstr(out, "source GPU: SrcGPU (Test Source GPU"));
	/* Per kernel: 300 µs, speedup 4x, DRAM-bound, measured 200 µs, error +50%. */
	ck_assert_msg(strstr(out, " TgtGPU 300 us [300 us, 300 us] 4.00x dram 200 us +50.0%\n") != NULL,
		      "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "TgtGPU not projected: hroof needs FLOP "
				     "(inst.fp{16,32,64}.{fma,add,mul} or flop.tensor.*) or bytes "
				     "(bytes.l1, bytes.l2, bytes.dram)\n"));
	/* Counted on every target, with the number of kernels, in one line. */
	ck_assert_msg(strstr(out, "note: on every target, 1 of 2 kernel(s) could not be projected; "
			     "their source time (5.00 us) is carried unchanged") != NULL, "%s", out);
	free(out);
	free(err);
}
END_TEST

START_TEST(project_json_and_csv)
{
	char *dir = test_tmpdir(), *out, *err, *json, *path;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error e = { 0 };

	ck_assert_int_gt(asprintf(&path, "%s/out.json", dir), 0);
	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --intervals levels --format json -o "
				  "'%s' --target TgtGPU "
			     TARGETS " '%s'", path, test_data("targets-test.yaml"),
			     test_data("profile-test.json")), 0);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	json = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(json, "\"point_ns\": 300000"));
	ck_assert_ptr_nonnull(strstr(json, "\"source_target\": \"SrcGPU\""));
	ck_assert_ptr_nonnull(strstr(json, "\"binding\": \"dram\""));
	/* The output is itself a valid profile. */
	ck_assert_int_eq(gpuproj_profile_load(path, &p, &e), 0);
	ck_assert_uint_eq(gpuproj_profile_count(p), 2);
	gpuproj_profile_free(p);
	free(json);
	free(out);
	free(err);

	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --intervals levels --format csv "
				  "--target TgtGPU " TARGETS
			     " '%s'", test_data("targets-test.yaml"), test_data("profile-test.json")),
			 0);
	ck_assert_ptr_nonnull(strstr(out, "kernel,tag,grid,block,launches,source_ns,target,model,"
				     "status,lo_ns,hi_ns,point_ns,speedup,binding,measured_ns,"
				     "error_pct,why,interval_gpus,source_basis\n"));
	/* --intervals levels: not calibrated, so interval_gpus is empty. */
	ck_assert_msg(strstr(out, "stream,,1024x1x1,256x1x1,10,1.2e+06,TgtGPU,hroof,ok,300000,"
			     "300000,300000,4,dram,200000,50,,,targets.yaml\n") != NULL, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "(total),,,,11,1.2005e+07,TgtGPU,hroof,ok,3.005e+06,"));
	free(out);
	free(err);
	free(path);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * By default the interval is the calibrated one (interval.h: the built-in
 * table): it lies around the point and differs from hroof's level interval
 * (300 µs at every level), which JSON keeps as level_lo_ns/level_hi_ns.
 */
START_TEST(project_calibrated_interval)
{
	char *dir = test_tmpdir(), *out, *err, *path, *json;

	ck_assert_int_gt(asprintf(&path, "%s/out.json", dir), 0);
	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --format json -o '%s' "
				  "--target TgtGPU " TARGETS " '%s'", path,
				  test_data("targets-test.yaml"), test_data("profile-test.json")), 0);
	json = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(json, "\"point_ns\": 300000.0,\n"
					   "     \"level_lo_ns\": 300000.0,\n"
					   "     \"level_hi_ns\": 300000.0,\n"
					   "     \"interval\": \"calibrated\""));
	ck_assert_ptr_null(strstr(json, "\"lo_ns\": 300000.0"));
	free(json);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --intervals /nonexistent.json "
				  TARGETS " '%s'", test_data("targets-test.yaml"),
				  test_data("profile-test.json")), 2);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent.json"));
	free(out);
	free(err);
	free(path);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* `text` with the first `from` replaced by `to` (malloc'd); fails when absent. */
static char *
replace_once(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *r;

	ck_assert_msg(at != NULL, "no '%s'", from);
	ck_assert_int_gt(asprintf(&r, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)),
			 0);
	return r;
}

/*
 * The order of the leading targets (docs/models.md "Order of two
 * targets"). targets-test.yaml plus Tgt2, TgtGPU with half its DRAM
 * bandwidth (200 GB/s); the profile's "stream" kernel alone (every kernel
 * projected: a complete run), 10 × 1.2 ms on SrcGPU, DRAM-bound: hroof
 * projects 10 × 300 µs onto TgtGPU and 10 × 600 µs onto Tgt2 (DRAM
 * 100 → 200 GB/s). A table with hroof's pooled order σ = 0.5: TgtGPU
 * faster than Tgt2 with Φ(ln(6/3) / 0.5) = Φ(1.386294) = 0.917171. The
 * source (measured, 12 ms) is not in the order. hroof-occ has no order
 * group in that table: no order line, "order": [].
 */
START_TEST(project_order)
{
	static const char profile[] =
		"{\"schema\": \"gpuproj-profile/1\",\n"
		" \"device\": {\"name\": \"Test Source GPU\"},\n"
		" \"kernels\": [{\"name\": \"stream\", \"grid\": [1024, 1, 1],\n"
		"  \"block\": [256, 1, 1],\n"
		"  \"launches\": 10, \"profiled_launches\": 1,\n"
		"  \"duration_ns\": {\"n\": 10, \"mean\": 1200000},\n"
		"  \"metrics\": {\"inst.fp16.fma\": 0, \"inst.fp16.add\": 0,\n"
		"   \"inst.fp16.mul\": 0,\n"
		"   \"inst.fp32.fma\": 1e6, \"inst.fp32.add\": 0, \"inst.fp32.mul\": 0,\n"
		"   \"inst.fp64.fma\": 0, \"inst.fp64.add\": 0, \"inst.fp64.mul\": 0,\n"
		"   \"warp_efficiency\": 1.0, \"bytes.l1\": 1e8, \"bytes.l2\": 1e8,\n"
		"   \"bytes.dram\": 1e8, \"shared.wavefronts\": 0}}]}\n";
	static const char table[] =
		"{\"schema\": \"gpuproj-intervals/1\", \"coverage\": 0.8, \"provenance\": {},\n"
		" \"groups\": [{\"model\": \"hroof\", \"binding\": \"*\", \"class\": \"*\",\n"
		"   \"n\": 100, \"lo\": 0.5, \"hi\": 2}],\n"
		" \"order\": {\"groups\": [{\"model\": \"hroof\", \"bindings\": \"*\",\n"
		"   \"class\": \"*\",\n"
		"   \"n\": 100, \"sigma\": 0.5}]}}\n";
	char *dir = test_tmpdir(), *out, *err, *yaml, *tgt, *tgt2, *all, *prof, *tab;
	const char *at;

	yaml = test_read_file(test_data("targets-test.yaml"));
	at = strstr(yaml, "  - name: TgtGPU");
	ck_assert_ptr_nonnull(at);
	tgt = strdup(at);
	tgt2 = replace_once(tgt, "name: TgtGPU", "name: Tgt2");
	free(tgt);
	tgt = replace_once(tgt2, "\"Test Target GPU\"", "\"Test Target GPU 2\"");
	free(tgt2);
	tgt2 = replace_once(tgt, "dram: 400,", "dram: 200,");
	ck_assert_int_gt(asprintf(&all, "%s%s", yaml, tgt2), 0);
	free(yaml);
	yaml = test_write_file(dir, "t.yaml", all);
	prof = test_write_file(dir, "p.json", profile);
	tab = test_write_file(dir, "iv.json", table);

	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --intervals '%s' " TARGETS
				  " '%s'", tab, yaml, prof), 0);
	ck_assert_str_eq(err, "");
	ck_assert_msg(strstr(out, "\norder of the leading targets (probability that the projected "
			     "order holds, from the errors two targets projected from one source "
			     "do not share: docs/models.md \"Order of two targets\"):\n"
			     "  TgtGPU faster than Tgt2: 0.92\n") != NULL, "%s", out);
	ck_assert_ptr_null(strstr(out, "faster than SrcGPU"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --intervals '%s' "
				  "--format json " TARGETS " '%s'", tab, yaml, prof), 0);
	ck_assert_msg(strstr(out, "\"order\": [\n  {\n   \"faster\": \"TgtGPU\",\n"
			     "   \"slower\": \"Tgt2\",\n   \"p_holds\": 0.917171") != NULL, "%s",
		      out);
	ck_assert_ptr_nonnull(strstr(out, "\"sigma\": 0.5,\n   \"n\": 100\n  }\n ]\n}\n"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof-occ --intervals '%s' "
				  "--format json " TARGETS " '%s'", tab, yaml, prof), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"order\": []\n}\n"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof-occ --intervals '%s' "
				  TARGETS " '%s'", tab, yaml, prof), 0);
	ck_assert_ptr_null(strstr(out, "order of the leading targets"));
	free(out);
	free(err);

	free(all);
	free(tgt);
	free(tgt2);
	free(yaml);
	free(prof);
	free(tab);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* The line of `text` that starts with `start` (a copy; NULL when none). */
static char *
line_starting(const char *text, const char *start)
{
	const char *p = text, *end;

	while (p && strncmp(p, start, strlen(start)) != 0) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return NULL;
	end = strchr(p, '\n');
	return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

/*
 * The built-in intervals were fitted on the validation corpora's GPUs
 * (interval.h "GPUs"): from the P100 onto the V100 (both there) the
 * interval is unmarked, onto the H200 (not there) it is marked "*" with a
 * note, in JSON "interval_gpus" and "interval_unseen_kernels", in CSV the
 * last column. The level interval (--intervals levels) is never marked.
 */
START_TEST(project_interval_unseen_gpus)
{
	char *out, *err, *line;

	ck_assert_int_eq(test_cli(&out, &err, "project --source Tesla-P100-PCIe-16GB "
				  "--target V100-PCIe-16GB --target H200-SXM-141GB '%s'",
				  test_data("profile-test.json")), 0);
	line = line_starting(out, "H200-SXM-141GB ");
	ck_assert_msg(line && strstr(line, "]* "), "%s", out);
	free(line);
	line = line_starting(out, "V100-PCIe-16GB ");
	ck_assert_msg(line && strstr(line, "] ") && !strchr(line, '*'), "%s", out);
	free(line);
	line = line_starting(out, "   H200-SXM-141GB ");
	ck_assert_msg(line && strstr(line, "]* "), "%s", out);
	free(line);
	ck_assert_ptr_nonnull(strstr(out, "\nnote: * = interval fitted on validation data without "
				     "this target or the source GPU (Tesla-P100-PCIe-16GB): its "
				     "coverage there is unmeasured"));
	free(out);
	free(err);

	ck_assert_int_eq(test_cli(&out, &err, "project --source Tesla-P100-PCIe-16GB "
				  "--target V100-PCIe-16GB --target H200-SXM-141GB --format json "
				  "'%s'", test_data("profile-test.json")), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"interval_gpus\": \"fitted\""));
	ck_assert_ptr_nonnull(strstr(out, "\"interval_gpus\": \"unseen\""));
	ck_assert_ptr_nonnull(strstr(out, "\"interval_unseen_kernels\": 0"));
	ck_assert_ptr_nonnull(strstr(out, "\"interval_unseen_kernels\": 1"));
	free(out);
	free(err);

	ck_assert_int_eq(test_cli(&out, &err, "project --source Tesla-P100-PCIe-16GB "
				  "--target V100-PCIe-16GB --target H200-SXM-141GB --format csv "
				  "'%s'", test_data("profile-test.json")), 0);
	line = line_starting(out, "stream,,1024x1x1,256x1x1,10,1.2e+06,H200-SXM-141GB,");
	ck_assert_msg(line && strlen(line) > 20 &&
		      strcmp(line + strlen(line) - 20, ",unseen,targets.yaml") == 0, "%s", out);
	free(line);
	line = line_starting(out, "stream,,1024x1x1,256x1x1,10,1.2e+06,V100-PCIe-16GB,");
	ck_assert_msg(line && strlen(line) > 20 &&
		      strcmp(line + strlen(line) - 20, ",fitted,targets.yaml") == 0, "%s", out);
	free(line);
	line = line_starting(out, "(total),,,,11,1.2005e+07,H200-SXM-141GB,");
	ck_assert_msg(line && strcmp(line + strlen(line) - 20, ",unseen,targets.yaml") == 0, "%s",
		      out);
	free(line);
	free(out);
	free(err);

	ck_assert_int_eq(test_cli(&out, &err, "project --source Tesla-P100-PCIe-16GB "
				  "--target H200-SXM-141GB --intervals levels '%s'",
				  test_data("profile-test.json")), 0);
	ck_assert_ptr_null(strstr(out, "note: *"));
	ck_assert_ptr_null(strstr(out, "]*"));
	free(out);
	free(err);
}
END_TEST

START_TEST(project_unknown_source_lists_close_names)
{
	char *dir = test_tmpdir(), *out, *err, *prof, *text;

	text = test_read_file(test_data("profile-test.json"));
	memcpy(strstr(text, "Test Source GPU"), "Test Sourze GPU", 15);
	prof = test_write_file(dir, "p.json", text);
	ck_assert_int_eq(test_cli(&out, &err, "project " TARGETS " '%s'", test_data("targets-test.yaml"),
			     prof), 2);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "gpuproj: the profile's GPU 'Test Sourze GPU' is not in targets.yaml; "
			 "close names: SrcGPU (`gpuproj targets list` shows all); no provisional "
			 "entry either: the profile does not record the GPU's name, compute "
			 "capability, SM count and clock, which a provisional entry is derived "
			 "from\n");
	free(out);
	free(err);
	/* --source fixes it. */
	ck_assert_int_eq(test_cli(&out, &err, "project --source SrcGPU --target TgtGPU " TARGETS " '%s'",
			     test_data("targets-test.yaml"), prof), 0);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --target TgtGPX " TARGETS " '%s'",
			     test_data("targets-test.yaml"), test_data("profile-test.json")), 2);
	ck_assert_str_eq(err, "gpuproj: target GPU 'TgtGPX' is not in targets.yaml; close names: "
			 "TgtGPU (`gpuproj targets list` shows all)\n");
	free(out);
	free(err);
	ck_assert_int_eq(test_count_dir(dir), 1);
	free(prof);
	free(text);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * A profile libproj.so wrote on a GPU the built-in targets.yaml does not
 * list (the test double playing an RTX A5000, tests/data/profile-rtx-a5000.json):
 * `targets derive` prints a provisional entry that loads and follows the one
 * basis; `project` projects from it, says so once on stderr and marks it in
 * the table, JSON and CSV.
 */
START_TEST(project_provisional_source)
{
	char *dir = test_tmpdir(), *out, *err, *yaml, *line;

	ck_assert_int_eq(test_cli(&out, &err, "targets derive '%s'",
				  test_data("profile-rtx-a5000.json")), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "  - name: RTX-A5000\n"));
	ck_assert_ptr_nonnull(strstr(out, "    match: [\"NVIDIA RTX A5000\"]\n"));
	ck_assert_ptr_nonnull(strstr(out, "    peak_bw_gbs: {dram: 768.1}\n"));
	yaml = test_write_file(dir, "a5000.yaml", out);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "targets check --one-basis '%s'", yaml), 0);
	ck_assert_ptr_nonnull(strstr(out, "OK, 1 GPUs, schema gpuproj-targets/1, one basis"));
	free(out);
	free(err);

	ck_assert_int_eq(test_cli(&out, &err, "project --target H100-SXM5-80GB '%s'",
				  test_data("profile-rtx-a5000.json")), 0);
	ck_assert_msg(strncmp(err, "gpuproj: project: note: the profile's GPU 'NVIDIA RTX A5000' "
			      "is not in targets.yaml: projecting from a provisional entry derived "
			      "from its device attributes and the per-SM figures of ", 150) == 0,
		      "%s", err);
	ck_assert_ptr_nonnull(strstr(out, "source GPU: RTX-A5000 (NVIDIA RTX A5000, sm_86, 64 SMs"));
	ck_assert_ptr_nonnull(strstr(out, "  provisional (basis device-attributes): not in "
				     "targets.yaml; derived from"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --target H100-SXM5-80GB --format json '%s'",
				  test_data("profile-rtx-a5000.json")), 0);
	ck_assert_ptr_nonnull(strstr(out, "\"source_target\": \"RTX-A5000\""));
	ck_assert_ptr_nonnull(strstr(out, "\"source_basis\": \"device-attributes\""));
	ck_assert_ptr_nonnull(strstr(out, "\"source_derived_from\": \""));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --target H100-SXM5-80GB --format csv '%s'",
				  test_data("profile-rtx-a5000.json")), 0);
	line = line_starting(out, "(total),,,,2,");
	ck_assert_msg(line && strcmp(line + strlen(line) - 18, ",device-attributes") == 0, "%s",
		      out);
	free(line);
	free(out);
	free(err);
	/* The gate and the procurement report say so too. */
	{
		char *md = NULL, *html = NULL, *text;

		ck_assert_int_gt(asprintf(&md, "%s/gate.md", dir), 0);
		ck_assert_int_eq(test_cli(&out, &err, "gate --baseline '%s' '%s' --target "
					  "H100-SXM5-80GB --md '%s'",
					  test_data("profile-rtx-a5000.json"),
					  test_data("profile-rtx-a5000.json"), md), 0);
		text = test_read_file(md);
		ck_assert_ptr_nonnull(strstr(text, "> **Note:** the source GPU RTX-A5000 is not in "
					     "targets.yaml: its projections use a provisional entry "
					     "(basis device-attributes)"));
		free(text);
		free(out);
		free(err);
		free(md);
		ck_assert_int_gt(asprintf(&md, "%s/report.md", dir), 0);
		ck_assert_int_gt(asprintf(&html, "%s/report.html", dir), 0);
		ck_assert_int_eq(test_cli(&out, &err, "report '%s' --md '%s' --html '%s'",
					  test_data("profile-rtx-a5000.json"), md, html), 0);
		text = test_read_file(md);
		ck_assert_ptr_nonnull(strstr(text, "- **Source GPU basis:** device-attributes — not "
					     "in targets.yaml"));
		free(text);
		text = test_read_file(html);
		ck_assert_ptr_nonnull(strstr(text, "<th scope=\"row\">Source GPU basis</th><td>"
					     "device-attributes: not in targets.yaml"));
		free(text);
		free(out);
		free(err);
		free(md);
		free(html);
	}
	/* --source names a listed GPU: no derivation, and an unlisted name is an error. */
	ck_assert_int_eq(test_cli(&out, &err, "project --source 'NVIDIA RTX A5000' --target "
				  "H100-SXM5-80GB '%s'", test_data("profile-rtx-a5000.json")), 2);
	ck_assert_ptr_nonnull(strstr(err, "source GPU 'NVIDIA RTX A5000' is not in targets.yaml"));
	free(out);
	free(err);
	free(yaml);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * Tensor work (tests/data/profile-tensor.json: 2e10 FP16 tensor FLOP and
 * 2e9 CUDA-core FLOP; test-hroof tensor_and_cuda_pipes works the numbers:
 * 2 ms -> 1 ms on TgtGPU): the FLOP mix per run and per kernel in the
 * table, the JSON's flop_mix, the report's and the gate's Markdown.
 */
START_TEST(project_tensor_flop_mix)
{
	char *dir = test_tmpdir(), *out, *err, *md, *text;

	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --intervals levels --target "
				  "TgtGPU " TARGETS " '%s'", test_data("targets-test.yaml"),
				  test_data("profile-tensor.json")), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nFLOP mix of the run: tensor fp16 90.9%, CUDA cores "
				     "9.1%\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n   FLOP mix: tensor fp16 90.9%, CUDA cores 9.1%\n"));
	ck_assert_ptr_nonnull(strstr(out, "TgtGPU                     1.00 ms"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --target TgtGPU --format json "
				  TARGETS " '%s'", test_data("targets-test.yaml"),
				  test_data("profile-tensor.json")), 0);
	ck_assert_msg(strstr(out, "\"flop_mix\": {\n  \"cuda_flop\": 2000000000.0,\n  "
			     "\"tensor_flop\": {\n   \"fp16\": 20000000000.0\n  }\n }") != NULL, "%s",
		      out);
	free(out);
	free(err);
	ck_assert_int_gt(asprintf(&md, "%s/gate.md", dir), 0);
	ck_assert_int_eq(test_cli(&out, &err, "gate " TARGETS " --baseline '%s' '%s' --target TgtGPU "
				  "--md '%s'", test_data("targets-test.yaml"),
				  test_data("profile-tensor.json"), test_data("profile-tensor.json"),
				  md), 0);
	text = test_read_file(md);
	ck_assert_ptr_nonnull(strstr(text, "FLOP mix of the current run: tensor fp16 90.9%, CUDA "
				     "cores 9.1%.\n"));
	free(text);
	free(out);
	free(err);
	free(md);
	ck_assert_int_gt(asprintf(&md, "%s/report.md", dir), 0);
	ck_assert_int_eq(test_cli(&out, &err, "report " TARGETS " '%s' --md '%s' --html '%s/r.html'",
				  test_data("targets-test.yaml"), test_data("profile-tensor.json"), md,
				  dir), 0);
	text = test_read_file(md);
	ck_assert_ptr_nonnull(strstr(text, "- **FLOP mix:** tensor fp16 90.9%, CUDA cores 9.1%"));
	free(text);
	free(out);
	free(err);
	free(md);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * A DGEMM-heavy profile (tests/data/profile-dgemm-h100.json: an
 * 8192^3 FP64-tensor GEMM, 20 ms on the H100 SXM) projected onto the B200
 * and the B300 with the built-in targets.yaml by the default model:
 * 20 ms x 66900/37000 = 36.162 ms and 20 ms x 66900/1250 = 1.0704 s (the
 * FP64 tensor peaks; test-hroof dgemm_h100_to_b200_b300 works them by
 * hand), and the report ranks the B300 below the B200.
 */
START_TEST(project_dgemm_b200_b300)
{
	char *dir = test_tmpdir(), *out, *err, *md, *text;

	ck_assert_int_eq(test_cli(&out, &err, "project --target B200-180GB --target B300 --format "
				  "csv '%s'", test_data("profile-dgemm-h100.json")), 0);
	ck_assert_msg(strstr(out, "\ndgemm_tn,,4884x1x1,256x1x1,1,2e+07,B200-180GB,hroof-occ,ok,"
			     "1.00603e+07,5.60744e+07,3.61622e+07,0.553064,compute,") != NULL,
		      "%s", out);
	ck_assert_msg(strstr(out, "\ndgemm_tn,,4884x1x1,256x1x1,1,2e+07,B300,hroof-occ,ok,"
			     "2.97786e+08,1.6598e+09,1.0704e+09,0.0186846,compute,") != NULL,
		      "%s", out);
	free(out);
	free(err);
	ck_assert_int_gt(asprintf(&md, "%s/report.md", dir), 0);
	ck_assert_int_eq(test_cli(&out, &err, "report '%s' --target B200-180GB --target B300 "
				  "--target H100-SXM5-80GB --md '%s' --html '%s/r.html'",
				  test_data("profile-dgemm-h100.json"), md, dir), 0);
	text = test_read_file(md);
	ck_assert_msg(strstr(text, "\n| 2 | B200-180GB | 36.2 ms |") != NULL, "%s", text);
	ck_assert_msg(strstr(text, "\n| 3 | B300 | 1.07 s |") != NULL, "%s", text);
	free(text);
	free(out);
	free(err);
	free(md);
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(project_bad_files)
{
	char *out, *err, *dir = test_tmpdir(), *bad;

	ck_assert_int_eq(test_cli(&out, &err, "project /nonexistent.json"), 2);
	ck_assert_str_eq(err, "gpuproj: /nonexistent.json: cannot open: No such file or directory\n");
	free(out);
	free(err);
	bad = test_write_file(dir, "bad.json", "{\"schema\": \"gpuproj-profile/1\",\n\"kernels\": 3}");
	ck_assert_int_eq(test_cli(&out, &err, "project '%s'", bad), 2);
	ck_assert_msg(strstr(err, "bad.json:2:12: kernels: must be an array\n") != NULL, "%s", err);
	free(out);
	free(err);
	/* A table into a missing directory fails the same way: rendered first, then written. */
	ck_assert_int_eq(test_cli(&out, &err, "project -o /nonexistent-dir/o.txt " TARGETS " '%s'",
			     test_data("targets-test.yaml"), test_data("profile-test.json")), 2);
	ck_assert_str_eq(err, "gpuproj: /nonexistent-dir/o.txt: cannot create a temporary file "
			 "beside it: No such file or directory\n");
	free(out);
	free(err);
	/* A JSON output into a missing directory fails and writes nothing. */
	ck_assert_int_eq(test_cli(&out, &err, "project --format json -o /nonexistent-dir/o.json " TARGETS
			     " '%s'", test_data("targets-test.yaml"),
			     test_data("profile-test.json")), 2);
	ck_assert_str_eq(err, "gpuproj: /nonexistent-dir/o.json: cannot create a temporary file "
			 "beside it: No such file or directory\n");
	free(out);
	free(err);
	free(bad);
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(targets_verbs)
{
	char *out, *err;

	ck_assert_int_eq(test_cli(&out, &err, "targets " TARGETS " list", test_data("targets-test.yaml")),
			 0);
	squeeze(out);
	ck_assert_ptr_nonnull(strstr(out, "\nTgtGPU sm_90 20 1000 1600* 4000 400 800 2000 2560 50.0\n"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "targets " TARGETS " show tgtgpu",
			     test_data("targets-test.yaml")), 0);
	ck_assert_ptr_nonnull(strstr(out, "max_gflops.fp64_fma"));
	ck_assert_ptr_nonnull(strstr(out, "[TEST]     gpuproj test fixture"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "targets " TARGETS " show nope",
			     test_data("targets-test.yaml")), 2);
	ck_assert_str_eq(err, "gpuproj: 'nope' is not in targets.yaml\n");
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "targets check '%s'", test_data("targets-test.yaml")), 0);
	ck_assert_msg(strstr(out, "targets-test.yaml: OK, 2 GPUs, schema gpuproj-targets/1\n") != NULL,
		      "%s", out);
	free(out);
	free(err);
	/* GPUPROJ_TARGETS is honoured. */
	{
		char *cmd;

		ck_assert_int_gt(asprintf(&cmd, "GPUPROJ_TARGETS='%s' '%s' targets list",
					  test_data("targets-test.yaml"), test_gpuproj()), 0);
		ck_assert_int_eq(test_run(cmd, &out, &err), 0);
		ck_assert_ptr_nonnull(strstr(out, "# 2 GPUs from "));
		free(cmd);
		free(out);
		free(err);
	}
}
END_TEST

/*
 * `--model all` on tests/data/profile-models.json (targets-models.yaml; the
 * numbers are those of test-models.c): "stream" (100 µs on ModelSrc) projects
 * to 25 µs on ModelTgt with hroof, occupancy, quant and hroof-occ, 37.5 µs
 * with irm; "slow" (10 ms, the same counters) to 2.5 ms with the ratio models
 * (3.75 ms irm) but 25 µs with quant, which does not use the source time:
 * 3.75 ms / 25 µs = 150 > 4, a disagreement. Whole run: 10 × 25 µs + 2.5 ms
 * = 2.75 ms; quant 11 × 25 µs = 275 µs; irm 10 × 37.5 µs + 3.75 ms = 4.12 ms.
 * sol, without speed-of-light percentages, derives them from the counters
 * (the DRAM share of the time at the source's peak): irm's figures,
 * "percentages derived" in its assumed line.
 */
START_TEST(project_model_all)
{
	char *dir = test_tmpdir(), *out, *err, *json, *path;

	ck_assert_int_eq(test_cli(&out, &err, "project --model all --target ModelTgt " TARGETS " '%s'",
			     test_data("targets-models.yaml"), test_data("profile-models.json")), 0);
	squeeze(out);
	ck_assert_ptr_nonnull(strstr(out, "6 models side by side (default: hroof-occ)"));
	/* Every model projects every kernel; sol says what it assumed. */
	ck_assert_msg(strstr(out, "\ntarget hroof occupancy quant irm hroof-occ sol measured "
			     "disagree\nModelTgt 2.75 ms 2.75 ms 275 us 4.12 ms 2.75 ms 4.12 ms "
			     "- 1\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, " ModelTgt 2.50 ms 2.50 ms 25.0 us 3.75 ms 2.50 ms 3.75 ms - !\n")
		      != NULL, "%s", out);
	ck_assert_msg(strstr(out, " ModelTgt 25.0 us 25.0 us 25.0 us 37.5 us 25.0 us 37.5 us "
			     "30.0 us\n") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\nnote: sol projected with assumptions for inputs the profile "
			     "lacks: percentages derived (2 of 2 kernel(s)); ") != NULL, "%s", out);
	ck_assert_uint_eq(count_of(out, "\n assumed by sol: percentages derived\n"), 2);
	ck_assert_ptr_null(strstr(out, "not projected"));
	ck_assert_ptr_null(strstr(out, "n/p"));
	ck_assert_ptr_nonnull(strstr(out, "more than 4x"));
	free(out);
	free(err);

	/* JSON: five runs per target; --details adds the numbers and their sources. */
	ck_assert_int_gt(asprintf(&path, "%s/all.json", dir), 0);
	ck_assert_int_eq(test_cli(&out, &err, "project --model all --details --format json -o '%s' "
			     "--target ModelTgt " TARGETS " '%s'", path,
			     test_data("targets-models.yaml"), test_data("profile-models.json")), 0);
	json = test_read_file(path);
	ck_assert_ptr_nonnull(json);
	ck_assert_ptr_nonnull(strstr(json, "\"model\": \"quant\""));
	ck_assert_ptr_nonnull(strstr(json, "\"model\": \"hroof-occ\""));
	ck_assert_ptr_nonnull(strstr(json, "\"note\": \"K_type fp32; measured: T_SP B_mem; "
				     "derived: T_add T_ldst\""));
	ck_assert_ptr_nonnull(strstr(json, "\"tgt.E_instr\": "));
	ck_assert_ptr_nonnull(strstr(json, "\"key\": \"max_gflops.fp32_fma\""));
	ck_assert_ptr_nonnull(strstr(json, "\"basis\": \"measured\""));
	free(json);
	free(out);
	free(err);
	/* Without --details: notes only. */
	ck_assert_int_eq(test_cli(&out, &err, "project --model quant --format json -o '%s' "
			     "--target ModelTgt " TARGETS " '%s'", path,
			     test_data("targets-models.yaml"), test_data("profile-models.json")), 0);
	json = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(json, "\"note\": \"K_type fp32"));
	ck_assert_ptr_null(strstr(json, "\"details\""));
	free(json);
	free(out);
	free(err);

	/* --l2-capacity and --waves reach the models (the default is named in --help). */
	ck_assert_int_eq(test_cli(&out, &err, "project --help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "(default: hroof-occ)"));
	ck_assert_ptr_nonnull(strstr(out, "--l2-capacity on|off"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --model occupancy --waves resident --l2-capacity on "
			     "--verbose --target ModelTgt " TARGETS " '%s'",
			     test_data("targets-models.yaml"),
			     test_data("profile-models.json")), 0);
	ck_assert_ptr_nonnull(strstr(out, "model occupancy"));
	ck_assert_ptr_nonnull(strstr(out, "resident waves"));
	free(out);
	free(err);
	/* --clock burst reaches the models: ModelTgt has boost_hold_us (test-models.c). */
	ck_assert_int_eq(test_cli(&out, &err, "project --model hroof --clock burst --all-kernels "
			     "--verbose --target ModelTgt " TARGETS " '%s'",
			     test_data("targets-models.yaml"),
			     test_data("profile-models.json")), 0);
	ck_assert_msg(strstr(out, "burst: FP32 x1 src, x") != NULL, "%s", out);
	free(out);
	free(err);
	/* The table names the quant device parameters' bases (the longest kernel, "slow"). */
	ck_assert_int_eq(test_cli(&out, &err, "project --model quant --verbose --target ModelTgt "
			     TARGETS " '%s'", test_data("targets-models.yaml"),
			     test_data("profile-models.json")), 0);
	squeeze(out);
	ck_assert_msg(strstr(out, "notes of quant on the longest kernel (slow):\n ModelTgt K_type fp32; "
			     "measured: T_SP B_mem; derived: T_add T_ldst\n") != NULL, "%s", out);
	free(out);
	free(err);
	free(path);
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(builtin_main_job)
{
	char *out, *err;
	const char *sm;
	int cc = 0;

	ck_assert_int_eq(test_cli(&out, &err, "project --builtin"), 0);
	ck_assert_ptr_nonnull(strstr(out, "profile: default-profile.json (built-in)"));
	ck_assert_ptr_nonnull(strstr(out, "data: "));
	/* The main job's source is a current GPU (Volta or later). */
	sm = strstr(out, "source GPU: ");
	ck_assert_ptr_nonnull(sm);
	sm = strstr(sm, ", sm_");
	ck_assert_ptr_nonnull(sm);
	ck_assert_int_eq(sscanf(sm, ", sm_%d", &cc), 1);
	ck_assert_int_ge(cc, 70);
	free(out);
	free(err);
}
END_TEST

/*
 * Kernel names as a hostile profile may carry them.
 * JSON string contents: a window title and a clipboard write (OSC 0, OSC
 * 52), a carriage return and a fake verdict, a C1 CSI, a right-to-left
 * override; and cells a spreadsheet would run (= + - @ tab CR).
 */
static const char *const hostile_names[] = {
	"\\u001b]0;owned\\u0007\\u001b]52;c;cHduZWQ=\\u0007title",
	"\\rgpuproj gate: PASS\\u009b31m\\u202eevil",
	"=HYPERLINK(\\\"http://x\\\")", "+1+1", "-2+3", "@SUM(A1:A9)", "\\tcmd", "\\rcr",
};

START_TEST(project_hostile_names)
{
	char *dir = test_tmpdir(), *path, *out, *err;

	path = test_write_profile(dir, "hostile.json", hostile_names,
				  sizeof(hostile_names) / sizeof(hostile_names[0]), 100000);
	/* The table: every name escaped, nothing a terminal would act on. */
	ck_assert_int_eq(test_cli(&out, &err, "project --all-kernels " TARGETS " '%s'",
				  test_data("targets-test.yaml"), path), 0);
	test_assert_terminal_safe(out);
	test_assert_terminal_safe(err);
	ck_assert_ptr_nonnull(strstr(out, "\\e]0;owned\\a\\e]52;c;cHduZWQ=\\atitle  grid("));
	ck_assert_ptr_nonnull(strstr(out, "\\rgpuproj gate: PASS\\u009b31m\\u202eevil  grid("));
	free(out);
	free(err);
	/* CSV: formulas neutralised (a leading quote, the cell quoted); text cells as they are. */
	ck_assert_int_eq(test_cli(&out, &err, "project --format csv --target TgtGPU " TARGETS " '%s'",
				  test_data("targets-test.yaml"), path), 0);
	ck_assert_ptr_nonnull(strstr(out, "\n\"'=HYPERLINK(\"\"http://x\"\")\",,"));
	ck_assert_ptr_nonnull(strstr(out, "\n\"'+1+1\",,"));
	ck_assert_ptr_nonnull(strstr(out, "\n\"'-2+3\",,"));
	ck_assert_ptr_nonnull(strstr(out, "\n\"'@SUM(A1:A9)\",,"));
	ck_assert_ptr_nonnull(strstr(out, "\n\"'\tcmd\",,"));
	ck_assert_ptr_nonnull(strstr(out, "\n\"'\rcr\",,"));
	ck_assert_ptr_nonnull(strstr(out, "\n\"'\rgpuproj gate: PASS"));
	free(out);
	free(err);
	free(path);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * `targets derive` checks its own output as `targets check
 * --one-basis` would. A memory clock of 1 kHz (profile-rtx-a5000.json with
 * memory_clock_khz 8001000 -> 1): 2 x 1 kHz x 384 bits / 8 = 96 kB/s,
 * written as `dram: 0`. Before: that entry printed, exit 0, and `targets
 * check` refused it. Now: exit 1, nothing on stdout, the reason; and
 * `project` says the same instead of projecting from it.
 */
START_TEST(derive_checks_its_output)
{
	char *dir = test_tmpdir(), *text = test_read_file(test_data("profile-rtx-a5000.json"));
	char *path, *out, *err, *edited = NULL;
	const char *a = strstr(text, "\"memory_clock_khz\": 8001000");
	static const char why[] = "the entry derived from the driver's report of 'NVIDIA RTX "
		"A5000' fails the checks of `gpuproj targets check --one-basis` (line 33: "
		"'peak_bw_gbs.dram' must be positive, got 0): the device attributes it rests on "
		"are no GPU's (memory clock 1 kHz, bus 384 bits, 64 SMs at 1695 MHz)";

	ck_assert_ptr_nonnull(a);
	ck_assert_int_gt(asprintf(&edited, "%.*s\"memory_clock_khz\": 1%s", (int)(a - text), text,
				  a + strlen("\"memory_clock_khz\": 8001000")), 0);
	path = test_write_file(dir, "slow-memory.json", edited);
	ck_assert_int_eq(test_cli(&out, &err, "targets derive '%s'", path), 2);
	ck_assert_str_eq(out, "");
	ck_assert_ptr_nonnull(strstr(err, why));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s'", path), 2);
	ck_assert_ptr_nonnull(strstr(err, why));
	free(out);
	free(err);
	free(edited);
	free(path);
	free(text);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * Terminal control in the provisional entries (targets derive): a device
 * name with a window title, a C1 CSI and a right-to-left override, and a
 * chip name that would add a YAML line, in a profile of a GPU targets.yaml
 * does not list. `targets derive` prints YAML escapes instead (they load
 * back to the same name: the entry still matches the device) and
 * `project`'s note escapes the name. Before: the controls reached the
 * terminal raw (C0 dropped, C1 and bidi kept), and the chip's line feed
 * broke the YAML.
 */
START_TEST(provisional_source_hostile_names)
{
	static const char name[] = "NVIDIA RTX A5000\\u001b]0;owned\\u0007\\u009b2J\\u202e";
	char *dir = test_tmpdir(), *text = test_read_file(test_data("profile-rtx-a5000.json"));
	char *path, *yaml, *out, *err, *edited = NULL;
	const char *a = strstr(text, "\"NVIDIA RTX A5000\""), *c = strstr(text, "\"GA102\"");

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_gt(asprintf(&edited, "%.*s\"%s\"%.*s\"GA102\\n    sms: 1\\u001b[2J\"%s",
				  (int)(a - text), text, name, (int)(c - a - 18), a + 18, c + 7),
			 0);
	path = test_write_file(dir, "hostile.json", edited);
	ck_assert_int_eq(test_cli(&out, &err, "targets derive '%s'", path), 0);
	test_assert_terminal_safe(out);
	test_assert_terminal_safe(err);
	ck_assert_ptr_nonnull(strstr(out, "    match: [\"NVIDIA RTX A5000\\x1b]0;owned\\x07"
				     "\\x9b2J\\u202e\"]\n"));
	ck_assert_ptr_nonnull(strstr(out, "    chip: \"GA102\\x0a    sms: 1\\x1b[2J\"\n"));
	yaml = test_write_file(dir, "derived.yaml", out);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "targets check --one-basis '%s'", yaml), 0);
	free(out);
	free(err);
	/* The entry matches the device, name for name: project uses it, and says so escaped. */
	ck_assert_int_eq(test_cli(&out, &err, "project --targets '%s' '%s'", yaml, path), 0);
	test_assert_terminal_safe(out);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "source GPU: RTX-A5000-0-owned-2J (NVIDIA RTX A5000\\e]0;"
				     "owned\\a\\u009b2J\\u202e, sm_86, 64 SMs"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --target H100-SXM5-80GB '%s'", path), 0);
	test_assert_terminal_safe(out);
	test_assert_terminal_safe(err);
	ck_assert_msg(strncmp(err, "gpuproj: project: note: the profile's GPU 'NVIDIA RTX A5000\\e]0;"
			      "owned\\a\\u009b2J\\u202e' is not in targets.yaml", 80) == 0, "%s", err);
	free(out);
	free(err);
	free(yaml);
	free(path);
	free(edited);
	free(text);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * project's default table is short. The built-in profile (8
 * kernels) on the built-in targets (N of them, more than 8): the
 * whole-run table, then per detailed kernel its two summary lines, no
 * model notes; --verbose gives a row per target per kernel and the notes.
 */
START_TEST(project_short_default)
{
	struct gpuproj_targets *builtin = NULL;
	struct gpuproj_error e = { 0 };
	char *out, *err, *want;
	size_t n;

	ck_assert_int_eq(gpuproj_targets_load(test_data("../../targets.yaml"), &builtin, &e), 0);
	n = gpuproj_targets_count(builtin);
	gpuproj_targets_free(builtin);
	ck_assert_uint_gt(n, 8);
	ck_assert_int_eq(test_cli(&out, &err, "project --builtin"), 0);
	ck_assert_ptr_null(strstr(out, "notes of hroof-occ"));
	ck_assert_ptr_null(strstr(out, "\n   target    "));
	/*
	 * Every target projects the longest kernel (the GTX-680 with its
	 * registers capped, stated), so no "not projected on" line.
	 */
	ck_assert_int_gt(asprintf(&want, "\n   %zu of %zu targets: speedup ", n, n), 0);
	ck_assert_ptr_nonnull(strstr(out, want));
	free(want);
	ck_assert_ptr_null(strstr(out, "\n   not projected on "));
	ck_assert_ptr_nonnull(strstr(out, "\n(--verbose: every target's row per kernel and the "
				     "model's notes per target)\n"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --builtin --verbose"), 0);
	ck_assert_ptr_nonnull(strstr(out, "notes of hroof-occ on the longest kernel"));
	ck_assert_ptr_nonnull(strstr(out, "\n   target                 projected"));
	ck_assert_ptr_null(strstr(out, "(--verbose:"));
	free(out);
	free(err);
}
END_TEST

/*
 * `gpuproj run` of a program that never initialises CUDA exits
 * with the program's status and says in one line that nothing was
 * profiled and why. Before: silent. GPUPROJ_LIBPROJ names a library that
 * loads (the C library this test runs with), so the cause is CUDA never
 * started, whatever this build has of libproj.so.
 */
START_TEST(run_without_cuda)
{
	Dl_info info;
	char *env, *out, *err;

	/* stdout is the C library's own FILE object. */
	ck_assert(dladdr(stdout, &info) && info.dli_fname);
	ck_assert_int_gt(asprintf(&env, "GPUPROJ_LIBPROJ='%s'", info.dli_fname), 0);
	ck_assert_int_eq(test_cli_at(NULL, env, &out, &err, "run -- sh -c 'exit 3'"), 3);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "gpuproj: run: nothing was profiled: sh never initialised CUDA, so "
			 "the CUDA driver never loaded libproj.so (a program without CUDA calls, "
			 "or a static one that cannot load libcuda.so)\n");
	free(out);
	free(err);
	ck_assert_int_eq(test_cli_at(NULL, env, &out, &err, "run /bin/true"), 0);
	ck_assert_ptr_nonnull(strstr(err, "nothing was profiled: /bin/true never initialised"));
	free(out);
	free(err);
	free(env);
}
END_TEST

/* A libproj.so that cannot load: the program still runs, its status is the command's. */
START_TEST(run_libproj_cannot_load)
{
	char *out, *err;

	ck_assert_int_eq(test_cli_at(NULL, "GPUPROJ_LIBPROJ=/nonexistent/libproj.so", &out, &err,
				     "run -- sh -c 'echo ran; exit 4'"), 4);
	ck_assert_str_eq(out, "ran\n");
	ck_assert_str_eq(err, "gpuproj: run: nothing was profiled: libproj.so could not load: "
			 "/nonexistent/libproj.so: cannot open shared object file: No such file "
			 "or directory\n");
	free(out);
	free(err);
}
END_TEST

/*
 * One exit-status convention for every command (cli.h enum
 * cli_exit_status): 0 success, 1 a failed verdict (gate only), 2 any
 * error, usage or input alike. Before, bad input was 1 for every command
 * but gate, where 1 meant a regression.
 */
START_TEST(exit_status_convention)
{
	static const struct { const char *args; int status; } cases[] = {
		{ "targets list", 0 },
		{ "gate --targets targets-test.yaml --baseline gate-base.json gate-pass.json",
		  0 },
		{ "gate --targets targets-test.yaml --baseline gate-base.json gate-fail.json",
		  1 },
		{ "project --bogus", 2 },                            /* usage */
		{ "project /nonexistent.json", 2 },                  /* input */
		{ "targets show NoSuchGPU", 2 },                     /* unknown GPU */
		{ "merge gate-base.json", 2 },                       /* usage: no -o */
		{ "import ncu targets-test.yaml -o /dev/null", 2 },  /* input: not a CSV */
		{ "ncu-metrics --chip RTX-9090", 2 },
		{ "gate --baseline /nonexistent.json gate-fail.json", 2 },
		{ "no-such-command", 2 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out, *err;
		int rc = test_cli_at(test_data(""), NULL, &out, &err, "%s", cases[i].args);

		ck_assert_msg(rc == cases[i].status, "%s: exit %d, expected %d (%s)", cases[i].args,
			      rc, cases[i].status, err);
		free(out);
		free(err);
	}
}
END_TEST

/* `gpuproj --help` prints the one table of statuses. */
START_TEST(exit_status_help)
{
	char *out, *err;

	ck_assert_int_eq(test_cli(&out, &err, "--help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nExit status: 0 success; 1 the verdict failed (gate: a "
				     "regression); 2 an error:\nbad usage or input, an unknown "
				     "GPU, an output that cannot be written (nothing\nis written); "
				     "126 APP cannot be executed (run); 127 APP not found "
				     "(run).\n"));
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project --help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "\nExit status: 0 success; 2 an error: bad usage or "
				     "input, an unknown GPU, an\noutput that cannot be written "
				     "(nothing is written).\n"));
	free(out);
	free(err);
}
END_TEST

/*
 * A command whose standard output cannot be written
 * (`> /dev/full`) fails with one line, gate with "no verdict". Before:
 * exit 0, and nothing said.
 */
START_TEST(stdout_unwritable)
{
	static const struct { const char *args; int status; } cases[] = {
		{ "--version", 2 }, { "--help", 2 }, { "targets list", 2 },
		{ "project --builtin", 2 }, { "project --builtin --format csv", 2 },
		{ "ncu-metrics --chip GA100", 2 },
		{ "gate --targets targets-test.yaml --baseline gate-base.json gate-pass.json", 2 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *cmd, *out, *err;

		ck_assert_int_gt(asprintf(&cmd, "cd '%s' && ( '%s' %s > /dev/full )", test_data(""),
					  test_gpuproj(), cases[i].args), 0);
		ck_assert_msg(test_run(cmd, &out, &err) == cases[i].status, "%s", cases[i].args);
		ck_assert_msg(strstr(err, "gpuproj: <stdout>: write error: No space left on "
				     "device\n") != NULL, "%s: %s", cases[i].args, err);
		free(cmd);
		free(out);
		free(err);
	}
}
END_TEST

static Suite *
cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, version_and_help);
	tcase_add_loop_test(tc, usage_errors_exit_2, 0, sizeof(usage_cases) / sizeof(usage_cases[0]));
	tcase_add_test(tc, project_table);
	tcase_add_test(tc, project_json_and_csv);
	tcase_add_test(tc, project_calibrated_interval);
	tcase_add_test(tc, project_order);
	tcase_add_test(tc, project_interval_unseen_gpus);
	tcase_add_test(tc, project_unknown_source_lists_close_names);
	tcase_add_test(tc, project_bad_files);
	tcase_add_test(tc, project_provisional_source);
	tcase_add_test(tc, provisional_source_hostile_names);
	tcase_add_test(tc, derive_checks_its_output);
	tcase_add_test(tc, project_tensor_flop_mix);
	tcase_add_test(tc, project_dgemm_b200_b300);
	tcase_add_test(tc, targets_verbs);
	tcase_add_test(tc, builtin_main_job);
	tcase_add_test(tc, project_model_all);
	tcase_add_test(tc, project_hostile_names);
	tcase_add_test(tc, stdout_unwritable);
	tcase_add_test(tc, exit_status_convention);
	tcase_add_test(tc, project_short_default);
	tcase_add_test(tc, run_without_cuda);
	tcase_add_test(tc, run_libproj_cannot_load);
	tcase_add_test(tc, exit_status_help);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(cli_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
