/* SPDX-License-Identifier: MIT */
/*
 * libproj.so end to end on the CUPTI/driver test double (no GPU): scripted
 * runs of tests/fake/fake-app, each checking the JSON produced, the exact
 * "[gpuproj]" stderr lines, the application's stdout and exit status, and
 * that the test double saw no misuse of the CUPTI API (violations 0).
 *
 * Every scenario is a row of `scenarios[]` (struct scenario) driven by one
 * runner, run_scenario(): the script, the environment, the expected exit
 * status or signal, stdout, stderr lines, kernel records, call counts of
 * the double, and, where a scenario checks more, a function of its own
 * (`extra`). Line templates: "@init" (the start-up line), "@device" (the
 * default Fake A100's line) or "@device:NAME|CHIP|CC|SMS|METRICS|PASSES",
 * "@wrote:KERNELS|LAUNCHES|PROFILED", and in any line {out} (the report
 * path), {targets} (the targets file), {version} (gpuproj's version),
 * {dir} (the scratch directory), {tmp} (the application's TMPDIR).
 *
 * Source GPU "Fake A100" = FakeA100 of targets-inject.yaml. Projections are
 * checked for plumbing (the source onto itself is 1x; every number equals
 * what the public API computes from the written profile); the model's own
 * arithmetic is tested in tests/unit.
 * The standard kernel: grid 1000 x block 256 = 256000 threads, scripted per
 * thread with 100 FFMA, 8 B DRAM, 16 B L2, 32 B L1 and full warps.
 *
 * The same binary runs in the `slow` suite under valgrind (INJECT_WRAPPER).
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "common.h"
#include "harness.h"

#define THREADS 256000.0
#define METRICS \
	"metric smsp__sass_thread_inst_executed_op_ffma_pred_on.sum 100", \
	"metric dram__bytes.sum 8", "metric lts__t_sectors_srcunit_tex.sum 0.5", \
	"metric l1tex__t_bytes.sum 32", \
	"metric smsp__average_thread_inst_executed_per_inst_executed.ratio 32", \
	"metric sm__warps_active.avg.pct_of_peak_sustained_active 50"
#define SAXPY "_Z5saxpyifPKfPf"
#define COPY "_Z4copyPKfPf"
#define K_DIMS "1000,1,1 256,1,1"

#define LINE_INIT "@init"
#define LINE_DEV "@device"
#define LINE_NOT_IN_TARGETS(gpu, cc) \
	"[gpuproj] the source GPU '" gpu "' is not in targets.yaml ({targets}) and no " \
	"provisional entry could be derived (targets.yaml has no GPU of compute capability " cc \
	" with lanes_per_sm, stream_gbs.triad and peak_bw_gbs.dram to take per-SM figures " \
	"from): the profile is written without projections; add a targets.yaml entry " \
	"(`gpuproj bench` writes one) or project later with `gpuproj project --source NAME " \
	"{out}`"
#define LINES(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define ENV(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define CMDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A kernel record's expected counts (and mean duration when timed). */
struct kcheck {
	const char *name;
	long launches, profiled, timed;
	double mean_ns;
};

/* A call count of the test double: exactly n, or at least n. */
struct ccheck {
	const char *func;
	unsigned long n;
	bool at_least;
};

struct scenario {
	const char *name;
	const char *const *env;		/* NULL-terminated, see run_app() */
	const char *const *cmds;	/* fake-app commands */
	int status;			/* exit status */
	int signal;			/* the signal that must kill it (status not checked) */
	const char *out;		/* stdout; NULL: not checked */
	bool skip_violations;		/* the double's report is checked by `extra` */
	const char *const *lines;	/* "[gpuproj]" lines (templates); NULL: not checked */
	struct kcheck kernels[4];	/* up to the first with name NULL */
	struct ccheck calls[4];
	struct { const char *key, *value; } attrs[2]; /* profile attributes, exact */
	void (*extra)(struct run *r);	/* the scenario's own checks */
};

/* ---- helpers ---- */

static void
assert_close(double got, double want, const char *what)
{
	ck_assert_msg(fabs(got - want) <= 1e-9 * fmax(1, fabs(want)), "%s: got %.17g, want %.17g",
		      what, got, want);
}

/* The standard checks of a kernel record. */
static json_t *
check_kernel(const struct run *r, const char *name, long launches, long profiled, long timed,
	     double mean_ns)
{
	json_t *k = kernel_named(r, name, 0), *d;

	ck_assert_msg(k != NULL, "kernel %s missing", name);
	ck_assert_int_eq(jint(k, "launches"), launches);
	ck_assert_int_eq(jint(k, "profiled_launches"), profiled);
	d = json_object_get(k, "duration_ns");
	ck_assert_int_eq(jint(d, "n"), timed);
	if (timed)
		assert_close(jreal(d, "mean"), mean_ns, "duration mean");
	return k;
}

static char *
line_init(const struct run *r)
{
	return fmt("[gpuproj] gpuproj %s (CUPTI 13.0 (API 130001)): timing every kernel launch, "
		   "profiling the first 1 launch of each kernel signature; report at exit: %s",
		   GPUPROJ_VERSION, r->output);
}

static char *
line_device(const char *name, const char *chip, const char *cc, int sms, int metrics, int passes)
{
	return fmt("[gpuproj] device 0: %s (%s, CC %s, %d SMs): %d metrics in %d pass%s; the first "
		   "1 launch of each kernel signature runs %d time%s under kernel replay",
		   name, chip, cc, sms, metrics, passes, passes == 1 ? "" : "es", passes,
		   passes == 1 ? "" : "s");
}

static char *
line_wrote(const struct run *r, int kernels, int launches, int profiled)
{
	return fmt("[gpuproj] wrote %s (%d kernel signature%s, %d launch%s, %d profiled)", r->output,
		   kernels, kernels == 1 ? "" : "s", launches, launches == 1 ? "" : "es", profiled);
}

/* A template with {out}, {targets}, {version} replaced. */
static char *
subst(const struct run *r, const char *t)
{
	static const char *const keys[] = { "{out}", "{targets}", "{version}", "{dir}", "{tmp}" };
	const char *vals[] = { r->output, inject_targets(), GPUPROJ_VERSION, r->dir, r->tmp };
	char *s = strdup(t);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		char *p;

		while ((p = strstr(s, keys[i])) != NULL) {
			char *n = fmt("%.*s%s%s", (int)(p - s), s, vals[i], p + strlen(keys[i]));

			free(s);
			s = n;
		}
	}
	return s;
}

/* One expected line from its template (see the top of the file). */
static char *
expand_line(const struct run *r, const char *t)
{
	char name[128], chip[32], cc[16];
	int sms, metrics, passes, k, l, p;

	if (strcmp(t, LINE_INIT) == 0)
		return line_init(r);
	if (strcmp(t, LINE_DEV) == 0)
		return line_device("Fake A100", "GA100", "8.0", 100, 50, 4);
	if (sscanf(t, "@device:%127[^|]|%31[^|]|%15[^|]|%d|%d|%d", name, chip, cc, &sms, &metrics,
		   &passes) == 6)
		return line_device(name, chip, cc, sms, metrics, passes);
	if (sscanf(t, "@wrote:%d|%d|%d", &k, &l, &p) == 3)
		return line_wrote(r, k, l, p);
	return subst(r, t);
}

static void
expect_line_templates(const struct run *r, const char *const *tmpl)
{
	size_t n = 0, i;
	char **want;

	while (tmpl[n])
		n++;
	want = calloc(n + 1, sizeof(*want));
	for (i = 0; i < n; i++)
		want[i] = expand_line(r, tmpl[i]);
	expect_lines(r, (const char *const *)want);
	for (i = 0; i < n; i++)
		free(want[i]);
	free(want);
}

/*
 * The projections in the file equal what the public API computes from the
 * profile in the same file with the same targets and the default model.
 */
static void
expect_same_projections(const struct run *r)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_targets *t = NULL;
	const struct gpuproj_target *src;
	struct gpuproj_error err = { 0 };
	size_t i;

	ck_assert_int_eq(gpuproj_profile_load(r->output, &p, &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_targets_load(inject_targets(), &t, &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_resolve_source(p, t, NULL, &src, &err), GPUPROJ_OK);
	for (i = 0; i < gpuproj_targets_count(t); i++) {
		struct gpuproj_run_projection run;
		const struct gpuproj_target *tgt = gpuproj_targets_get(t, i);
		json_t *j = projection_for(r, tgt->name);

		ck_assert_ptr_nonnull(j);
		ck_assert_int_eq(gpuproj_project_run(p, gpuproj_model_default(), src, tgt, NULL, &run),
				 GPUPROJ_OK);
		assert_close(jreal(j, "point_ns"), run.point_ns, tgt->name);
		assert_close(jreal(j, "source_ns"), run.source_ns, "source_ns");
		gpuproj_run_projection_clear(&run);
	}
	gpuproj_targets_free(t);
	gpuproj_profile_free(p);
}

/* ---- the runner ---- */

static void
run_scenario(const struct scenario *s)
{
	struct run r;
	size_t i;

	fprintf(stderr, "==== scenario %s\n", s->name);
	run_app(&r, s->env, s->cmds);
	if (s->signal) {
		ck_assert_int_eq(r.signal, s->signal);
	} else {
		ck_assert_int_eq(r.signal, 0);
		ck_assert_int_eq(r.status, s->status);
		if (!s->skip_violations)
			expect_no_violations(&r);
	}
	if (s->out)
		ck_assert_str_eq(r.out, s->out);
	if (s->lines)
		expect_line_templates(&r, s->lines);
	for (i = 0; i < ARRAY_SIZE(s->kernels) && s->kernels[i].name; i++)
		check_kernel(&r, s->kernels[i].name, s->kernels[i].launches, s->kernels[i].profiled,
			     s->kernels[i].timed, s->kernels[i].mean_ns);
	for (i = 0; i < ARRAY_SIZE(s->calls) && s->calls[i].func; i++) {
		unsigned long n = fake_report_calls(&r, s->calls[i].func);

		if (s->calls[i].at_least)
			ck_assert_msg(n >= s->calls[i].n, "%s called %lu times, want >= %lu",
				      s->calls[i].func, n, s->calls[i].n);
		else
			ck_assert_msg(n == s->calls[i].n, "%s called %lu times, want %lu",
				      s->calls[i].func, n, s->calls[i].n);
	}
	for (i = 0; i < ARRAY_SIZE(s->attrs) && s->attrs[i].key; i++) {
		const char *v = attr(&r, s->attrs[i].key);

		ck_assert_msg(v && strcmp(v, s->attrs[i].value) == 0, "attribute %s is '%s', want '%s'",
			      s->attrs[i].key, v ? v : "(none)", s->attrs[i].value);
	}
	if (s->extra)
		s->extra(&r);
	run_free(&r);
}

/* ---- the scenarios' own checks ---- */

/* The profile's run.peak_device_memory_bytes, -1 when absent (unknown). */
static double
peak_bytes(const struct run *r)
{
	json_t *v = json_object_get(json_object_get(r->json, "run"), "peak_device_memory_bytes");

	ck_assert_ptr_nonnull(r->json);
	if (!v)
		return -1;
	ck_assert_msg(json_is_integer(v), "peak_device_memory_bytes is not an integer");
	return (double)json_integer_value(v);
}

/*
 * peak_memory: slots 1 (1 GiB), 2 (512 MiB) live: 1.5 GiB; free 1; 3 (256
 * MiB, driver only) and 4 (pitch 1000 B × 4 rows → 1024 × 4 = 4096 B):
 * 0.75 GiB + 4 KiB; a failed 64 GiB one counts nothing; free 2, 3 (async),
 * 4; then 5 (768 MiB, async). The peak is 1 GiB + 512 MiB = 1610612736 B,
 * each allocation once although the runtime call nests a driver call.
 */
static void
extra_peak_memory(struct run *r)
{
	ck_assert_double_eq(peak_bytes(r), 1610612736.0);
}

/* peak_memory_loads: the field reads back, and a report says it fits (40 GiB). */
static void
extra_peak_memory_report(struct run *r)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };

	ck_assert_double_eq(peak_bytes(r), 41875931136.0);
	ck_assert_int_eq(gpuproj_profile_load(r->output, &p, &err), GPUPROJ_OK);
	ck_assert_double_eq(gpuproj_profile_run_info(p)->peak_device_memory_bytes, 41875931136.0);
	gpuproj_profile_free(p);
}

/* No allocation callback: the peak of a run without allocations is 0 B, known. */
static void
extra_peak_zero(struct run *r)
{
	ck_assert_double_eq(peak_bytes(r), 0.0);
}

/*
 * first_n_then_timing: the file as a whole, saxpy's metrics, the other
 * signatures, and the projections (the source onto itself is 1x, Double
 * halves everything, graph kernels are carried unprojected).
 */
static void
extra_first_n(struct run *r)
{
	json_t *k, *p, *dev;
	double src_ns;

	ck_assert_uint_gt(r->table_lines, 5);
	ck_assert_ptr_nonnull(r->json);
	ck_assert_str_eq(json_string_value(json_object_get(r->json, "schema")), "gpuproj-profile/1");
	ck_assert_str_eq(attr(r, "origin"), "injection");
	ck_assert_str_eq(attr(r, "report"), "exit");
	ck_assert_str_eq(attr(r, "env.GPUPROJ_OUTPUT"), r->output);
	ck_assert_str_eq(attr(r, "metrics.GA100.inst.fp32.fma"),
			 "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
	ck_assert_str_eq(attr(r, "metrics.GA100.warp_efficiency"),
			 "smsp__average_thread_inst_executed_per_inst_executed.ratio * 0.03125");
	ck_assert_str_eq(attr(r, "metrics.GA100.passes"), "4");
	/* GPUPROJ_TENSOR's default, and the operation counters GA100 has (src/tensor.c). */
	ck_assert_str_eq(attr(r, "tensor"), "ops");
	ck_assert_str_eq(attr(r, "metrics.GA100.tensor"),
			 "ops: FLOP measured (operation counters)");
	ck_assert_str_eq(attr(r, "metrics.GA100.flop.tensor.fp16"),
			 "sm__ops_path_tensor_src_fp16_dst_fp32.sum+"
			 "-0.5*sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_on.sum");
	ck_assert_str_eq(attr(r, "metrics.GA100.flop.tensor.fp8"), "unavailable");
	dev = json_object_get(r->json, "device");
	ck_assert_str_eq(json_string_value(json_object_get(dev, "name")), "Fake A100");
	ck_assert_str_eq(json_string_value(json_object_get(dev, "chip")), "GA100");
	ck_assert_str_eq(json_string_value(json_object_get(dev, "cc")), "8.0");
	ck_assert_int_eq(jint(dev, "sms"), 100);
	assert_close(jreal(dev, "clock_hz"), 1.41e9, "clock");
	ck_assert_int_eq(jint(json_object_get(r->json, "process"), "pid") > 0, 1);
	ck_assert_int_eq(json_is_null(json_object_get(json_object_get(r->json, "process"), "rank")),
			 1);
	ck_assert_int_eq(jint(json_object_get(r->json, "run"), "dropped_records"), 0);

	/* saxpy: 5 launches, the first profiled (nested rt → drv, credit moved to the full key). */
	k = check_kernel(r, SAXPY, 5, 1, 4, 1000);
	assert_close(kmetric(k, "inst.fp32.fma"), 100 * THREADS, "ffma");
	assert_close(kmetric(k, "bytes.dram"), 8 * THREADS, "dram");
	assert_close(kmetric(k, "bytes.l2"), 16 * THREADS, "l2");
	assert_close(kmetric(k, "bytes.l1"), 32 * THREADS, "l1");
	assert_close(kmetric(k, "warp_efficiency"), 1.0, "warp efficiency");
	assert_close(kmetric(k, "occupancy.achieved"), 0.5, "occupancy");
	assert_close(kmetric(k, "inst.fp64.fma"), 0, "dfma");
	assert_close(jreal(json_object_get(json_object_get(k, "extra_metrics"),
					   "gpu__time_duration.sum"), "value"), 1000, "gpu time");
	/* The other grid of saxpy is another signature, profiled on its own. */
	k = kernel_named(r, SAXPY, 500);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(jint(k, "profiled_launches"), 1);
	ck_assert_int_eq(jint(json_object_get(k, "duration_ns"), "n"), 1);
	assert_close(jreal(json_object_get(k, "duration_ns"), "mean"), 600,
		     "profiler-only duration");
	ck_assert_str_eq(attr(r, "duration_from_profiler"), SAXPY);

	k = check_kernel(r, COPY, 3, 1, 2, 2000);
	ck_assert_int_eq(jint(k, "regs_per_thread"), 40);
	ck_assert_int_eq(jint(k, "smem_static_bytes"), 1024);
	check_kernel(r, "_Z2exv", 2, 1, 1, 3000);
	ck_assert_int_eq(jint(kernel_named(r, "_Z2exv", 0), "smem_dynamic_bytes"), 128);
	check_kernel(r, "_Z3exdv", 2, 1, 1, 4000);
	check_kernel(r, "_Z3legv", 2, 1, 1, 5000);
	/* Cooperative launches are never profiled (they may wait for each other). */
	check_kernel(r, "_Z4coopv", 2, 0, 2, 6000);
	check_kernel(r, "_Z5rcoopv", 2, 0, 2, 7000);
	check_kernel(r, "_Z4ptszv", 2, 1, 1, 8000);
	check_kernel(r, "_Z6graphkv", 4, 0, 4, 500);
	/* The launch mode: the graph's 4 launches are graph launches, saxpy's none. */
	ck_assert_int_eq(jint(kernel_named(r, "_Z6graphkv", 0), "graph_launches"), 4);
	ck_assert_int_eq(jint(kernel_named(r, SAXPY, 1000), "graph_launches"), 0);
	ck_assert_int_eq(kernel_count(r), 10);
	{
		/* Demangled with the process's C++ runtime when there is one. */
		const char *d = json_string_value(json_object_get(kernel_named(r, SAXPY, 1000),
								  "demangled"));

		if (d)
			ck_assert_str_eq(d, "saxpy(int, float, float const*, float*)");
	}

	/* Projections: the source onto itself is 1x, Double halves everything. */
	ck_assert_str_eq(json_string_value(json_object_get(r->json, "source_target")), "FakeA100");
	p = projection_for(r, "FakeA100");
	ck_assert_ptr_nonnull(p);
	src_ns = jreal(p, "source_ns");
	ck_assert(src_ns > 0);
	assert_close(jreal(p, "point_ns"), src_ns, "source onto itself");
	p = projection_for(r, "Double");
	ck_assert_ptr_nonnull(p);
	/*
	 * The graph and the two cooperative kernels have no metrics: the
	 * envelope projects them (assumed: binding unknown), nothing is carried.
	 */
	ck_assert_int_eq(jint(p, "unprojected_kernels"), 0);
	ck_assert_int_eq(jint(p, "assumed_kernels"), 3);
	assert_close(jreal(p, "unprojected_source_ns"), 0, "unprojected");
	/* And the numbers are the library's own for this profile and these targets. */
	expect_same_projections(r);
}

static void
extra_permission(struct run *r)
{
	ck_assert_ptr_nonnull(strstr(attr(r, "metrics"), "off: no permission"));
	/* Timed, never counted: projected by the envelope, not carried. */
	ck_assert_int_eq(jint(projection_for(r, "Double"), "unprojected_kernels"), 0);
	ck_assert_int_eq(jint(projection_for(r, "Double"), "assumed_kernels"), 1);
}

static void
extra_multiple_subscribers(struct run *r)
{
	ck_assert_ptr_null(r->json);
	ck_assert_int_eq(test_count_dir(r->dir), 3); /* stdout, stderr, fake.txt */
}

static void
extra_context_destroyed(struct run *r)
{
	ck_assert_uint_eq(fake_report_calls(r, "cuptiRangeProfilerDisable"),
			  fake_report_calls(r, "cuptiRangeProfilerEnable"));
}

static void
extra_fork_child(struct run *r)
{
	char *child = fmt("%s/fake.txt.child", r->dir), *rep;

	/* stdout, stderr, fake.txt, fake.txt.child, out.json: nothing from the child. */
	ck_assert_int_eq(test_count_dir(r->dir), 5);
	rep = test_read_file(child);
	ck_assert_ptr_nonnull(rep);
	ck_assert_msg(strncmp(rep, "violations 0\n", 13) == 0, "child: %s", rep);
	free(rep);
	free(child);
}

static void
extra_fork_waits_for_flush(struct run *r)
{
	ck_assert_msg(strstr(r->report, "\nforks_during_flush 0\n") != NULL,
		      "a fork came while the worker was inside cuptiActivityFlushAll: %s", r->report);
	extra_fork_child(r);
}

static void
extra_gb202(struct run *r)
{
	json_t *k = kernel_named(r, SAXPY, 0);

	ck_assert_str_eq(attr(r, "metrics.GB202.bytes.dram_read"), "dram__bytes_op_read.sum");
	ck_assert_str_eq(attr(r, "metrics.GB202.bytes.dram_write"), "dram__bytes_op_write.sum");
	assert_close(kmetric(k, "bytes.dram_read"), 6 * THREADS, "dram read");
	assert_close(kmetric(k, "bytes.dram_write"), 2 * THREADS, "dram write");
	ck_assert_str_eq(json_string_value(json_object_get(r->json, "source_target")),
			 "FakeRTX5090");
}

static void
extra_dropped_records(struct run *r)
{
	ck_assert_int_eq(jint(json_object_get(r->json, "run"), "dropped_records"), 5);
}

/* Bad GPUPROJ_* values: the report goes to the default name in the working directory. */
static void
extra_bad_environment(struct run *r)
{
	const char *p = strstr(r->err, "report at exit: ");
	char *pid_json, *path, *l8, *l9, *l10;
	json_error_t jerr;

	ck_assert_ptr_null(r->json);
	ck_assert_ptr_nonnull(p);
	pid_json = strndup(p + 16, strcspn(p + 16, "\n"));
	ck_assert_ptr_nonnull(strstr(pid_json, "gpuproj-"));
	path = fmt("%s/%s", r->dir, pid_json);
	r->json = json_load_file(path, 0, &jerr);
	ck_assert_msg(r->json != NULL, "%s: %s", path, jerr.text);
	l8 = fmt("[gpuproj] gpuproj %s (CUPTI 13.0 (API 130001)): timing every kernel launch, "
		 "profiling the first 1 launch of each kernel signature; report at exit: %s",
		 GPUPROJ_VERSION, pid_json);
	l9 = line_device("Fake A100", "GA100", "8.0", 100, 50, 4);
	l10 = fmt("[gpuproj] wrote %s (1 kernel signature, 2 launches, 1 profiled)", pid_json);
	expect_lines(r, (const char *const[]){
		"[gpuproj] GPUPROJ_LOG='loud' is not one of debug, info, warn, error; using info",
		"[gpuproj] GPUPROJ_MODE='fast' is not one of full, timing, off; using full",
		"[gpuproj] GPUPROJ_TENSOR='flops' is not one of ops, inst, off; using ops",
		"[gpuproj] GPUPROJ_PROFILE_LAUNCHES='abc' is not a non-negative integer (at most "
		"1000000); using 1",
		"[gpuproj] GPUPROJ_LIVE='-1' is not a number of seconds from 0.1 to 86400; live "
		"projection off",
		"[gpuproj] GPUPROJ_OUTPUT='prof-%z.json' has an unknown or incomplete pattern '%z' "
		"(known: %p %h %r %q{VAR} %%); using gpuproj-%p.json",
		"[gpuproj] GPUPROJ_KERNEL_REGEX='(' is not a POSIX extended regular expression "
		"(Unmatched ( or \\(); profiling every kernel",
		"[gpuproj] GPUPROJ_SIGNALS='maybe' is not a boolean (1 or 0); using 0",
		"[gpuproj] GPUPROJ_PRELOAD='2' is not a boolean (1 or 0); using 0",
		"[gpuproj] GPUPROJ_MOD is not a libproj.so variable and is ignored; did you mean "
		"GPUPROJ_MODE?",
		l8, l9, l10, NULL });
	free(l8);
	free(l9);
	free(l10);
	free(path);
	free(pid_json);
	/* Defaults kept: mode full, 1 profiled launch, bad values echoed as given. */
	check_kernel(r, SAXPY, 2, 1, 1, 1000);
	ck_assert_str_eq(attr(r, "env.GPUPROJ_PROFILE_LAUNCHES"), "abc");
	ck_assert_str_eq(attr(r, "mode"), "full");
	ck_assert_str_eq(attr(r, "profile_launches"), "1");
	ck_assert_str_eq(attr(r, "env.GPUPROJ_TENSOR"), "flops");
	ck_assert_str_eq(attr(r, "tensor"), "ops");
}

/*
 * Tensor kernels: the double answers the tensor counters per chip
 * as the host API lists them (src/tensor.c), so each chip resolves its own
 * names. Values are per thread × THREADS (fake_set_metric: ".sum" scales).
 */
#define TENSOR_KERNEL "_Z4mmaPK6__halfPf"
#define TENSOR_LAUNCHES "repeat 2 launch rt 1 " TENSOR_KERNEL " " K_DIMS " 0 1000"

/* GA100: FP16 with FP32 accumulate X − ½ X_sparsity_on, BF16, INT8, FP64; no FP8. */
static void
extra_tensor_ga100(struct run *r)
{
	json_t *k = check_kernel(r, TENSOR_KERNEL, 2, 1, 1, 1000);

	/* (4096 − 1024 / 2) FLOP per thread */
	assert_close(kmetric(k, "flop.tensor.fp16"), 3584 * THREADS, "fp16");
	assert_close(kmetric(k, "flop.tensor.bf16"), 2048 * THREADS, "bf16");
	assert_close(kmetric(k, "flop.tensor.int8"), 512 * THREADS, "int8");
	assert_close(kmetric(k, "flop.tensor.fp64"), 64 * THREADS, "fp64");
	assert_close(kmetric(k, "flop.tensor.fp16_acc16"), 0, "fp16 acc16 (counted, none)");
	assert_close(kmetric(k, "inst.tensor"), 1 * THREADS, "inst");
	assert_close(kmetric(k, "tensor.utilization"), 0.4, "utilization");
	ck_assert(isnan(kmetric(k, "flop.tensor.fp8")));
	ck_assert_str_eq(attr(r, "metrics.GA100.tensor"),
			 "ops: FLOP measured (operation counters)");
	ck_assert_str_eq(attr(r, "metrics.GA100.flop.tensor.bf16"),
			 "sm__ops_path_tensor_src_bf16_dst_fp32.sum+"
			 "-0.5*sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_on.sum");
	ck_assert_str_eq(attr(r, "metrics.GA100.flop.tensor.fp64"),
			 "sm__ops_path_tensor_src_fp64.sum");
	ck_assert_str_eq(attr(r, "metrics.GA100.tensor.utilization"),
			 "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active * 0.01");
}

/* GH100: FP16 not split by accumulator; FP8 with its _sparsity_on twin. */
static void
extra_tensor_gh100(struct run *r)
{
	json_t *k = check_kernel(r, TENSOR_KERNEL, 2, 1, 1, 1000);

	assert_close(kmetric(k, "flop.tensor.fp16"), 8192 * THREADS, "fp16");
	/* 100 − 50 / 2 */
	assert_close(kmetric(k, "flop.tensor.fp8"), 75 * THREADS, "fp8");
	ck_assert(isnan(kmetric(k, "flop.tensor.fp16_acc16")));
	ck_assert_str_eq(attr(r, "metrics.GH100.flop.tensor.fp16"),
			 "sm__ops_path_tensor_src_fp16.sum");
	ck_assert_str_eq(attr(r, "metrics.GH100.flop.tensor.fp16_acc16"), "unavailable");
}

/* TU116 (no operation counters): instruction counts × HMMA.1688, marked assumed. */
static void
extra_tensor_tu116(struct run *r)
{
	json_t *k = check_kernel(r, TENSOR_KERNEL, 2, 1, 1, 1000);

	/* 3 HMMA.1688 per thread × 2,048 FLOP */
	assert_close(kmetric(k, "flop.tensor.fp16"), 3 * 2048 * THREADS, "fp16");
	/* 1 IMMA.8816 × 2,048 */
	assert_close(kmetric(k, "flop.tensor.int8"), 2048 * THREADS, "int8");
	ck_assert_str_eq(attr(r, "metrics.TU116.flop.tensor.fp16"),
			 "sm__inst_executed_pipe_tensor_op_hmma.sum * 2048 (assumed: FLOP per "
			 "instruction of HMMA.1688)");
	ck_assert_str_eq(attr(r, "metrics.TU116.tensor"),
			 "ops: FLOP assumed (instruction counts x shape)");
}

/* GB100, GPUPROJ_TENSOR=inst: tcgen05 has no static shape; DMMA.8x8x4 does. */
static void
extra_tensor_gb100_inst(struct run *r)
{
	json_t *k = check_kernel(r, TENSOR_KERNEL, 2, 1, 1, 1000);

	ck_assert(isnan(kmetric(k, "flop.tensor.fp16")));
	ck_assert(isnan(kmetric(k, "flop.tensor.int8")));
	ck_assert(isnan(kmetric(k, "flop.tensor.bf16")));
	/* 2 DMMA per thread × 512 */
	assert_close(kmetric(k, "flop.tensor.fp64"), 1024 * THREADS, "fp64");
	assert_close(kmetric(k, "inst.tensor"), 7 * THREADS, "inst");
	ck_assert_str_eq(attr(r, "tensor"), "inst");
	ck_assert_str_eq(attr(r, "metrics.GB100.tensor"),
			 "inst: FLOP assumed (instruction counts x shape)");
	ck_assert_str_eq(attr(r, "metrics.GB100.flop.tensor.fp16"),
			 "unavailable (UTCHMMA: tcgen05 MMAs carry their shape in a runtime "
			 "descriptor)");
	ck_assert_str_eq(attr(r, "metrics.GB100.flop.tensor.bf16"), "unavailable");
	ck_assert_str_eq(attr(r, "metrics.GB100.flop.tensor.fp64"),
			 "sm__inst_executed_pipe_tensor_subpipe_dmma.sum * 512 (assumed: FLOP per "
			 "instruction of DMMA.8x8x4)");
}

static void
extra_legacy(struct run *r)
{
	json_t *k = kernel_named(r, SAXPY, 0);

	assert_close(kmetric(k, "inst.fp32.fma"), 100 * THREADS, "ffma");
	assert_close(kmetric(k, "bytes.l1"), 32 * THREADS, "l1");
	ck_assert_str_eq(attr(r, "metrics.GV100.api"), "legacy profiler + NVPW (CC 7.0)");
	ck_assert_ptr_nonnull(strstr(attr(r, "metrics.GV100.inst.other"), "_op_misc_"));
	ck_assert_ptr_null(strstr(attr(r, "metrics.GV100.inst.other"), "uniform"));
}

static void
extra_not_in_targets(struct run *r)
{
	ck_assert_uint_eq(r->table_lines, 0);
	ck_assert_int_eq(json_array_size(json_object_get(r->json, "projections")), 0);
}

/*
 * A GPU the built-in targets.yaml does not list (an RTX A5000: GA102, 64
 * SMs, 1695 MHz, 8001 MHz x 384-bit GDDR6): projected from a provisional
 * entry derived from the driver's attributes and a GA102 sibling's per-SM
 * figures, said in one line and marked in the JSON.
 */
static void
extra_derived_source(struct run *r)
{
	static const char head[] = "[gpuproj] the source GPU 'NVIDIA RTX A5000' is not in "
				   "targets.yaml (built-in): projecting from a provisional entry "
				   "derived from its device attributes and the per-SM figures of ";
	json_t *drv = json_object_get(json_object_get(r->json, "device"), "driver");
	json_t *projs = json_object_get(r->json, "projections"), *pj;
	const char *sib = json_string_value(json_object_get(r->json, "source_derived_from"));
	size_t i, n = 0;

	ck_assert_uint_eq(r->n_lines, 4);
	ck_assert_msg(strncmp(r->lines[2], head, strlen(head)) == 0, "%s", r->lines[2]);
	ck_assert_ptr_nonnull(strstr(r->lines[2], " (basis device-attributes; `gpuproj targets "
					      "derive "));
	ck_assert_str_eq(json_string_value(json_object_get(r->json, "source_target")), "RTX-A5000");
	ck_assert_str_eq(json_string_value(json_object_get(r->json, "source_basis")),
			 "device-attributes");
	ck_assert_ptr_nonnull(sib);
	ck_assert_ptr_nonnull(strstr(r->lines[2], sib));
	ck_assert_int_eq(jint(drv, "memory_clock_khz"), 8001000);
	ck_assert_int_eq(jint(drv, "memory_bus_bits"), 384);
	ck_assert_int_eq(jint(drv, "threads_per_sm"), 1536);
	assert_close(jreal(drv, "power_limit_w"), 230, "power limit (NVML)");
	ck_assert_uint_gt(json_array_size(projs), 40);
	json_array_foreach(projs, i, pj)
		n += jint(pj, "projected_kernels") == 1;
	ck_assert_uint_eq(n, json_array_size(projs));
	ck_assert_uint_gt(r->table_lines, 0);
}

static void
extra_no_report(struct run *r)
{
	ck_assert_ptr_null(r->json);
}

static void
extra_stderr_broken(struct run *r)
{
	ck_assert_str_eq(r->err, "");
	ck_assert_ptr_nonnull(r->json);
}

/* Live projection: the last refresh has seen every record (the app flushed, then slept). */
static void
extra_live(struct run *r)
{
	const char *last = NULL;
	size_t i, n_live = 0;
	json_error_t jerr;
	char *live;
	json_t *snap;

	for (i = 0; i < r->n_lines; i++) {
		if (strncmp(r->lines[i], "[gpuproj] live ", 15) == 0) {
			n_live++;
			last = r->lines[i];
		}
	}
	ck_assert_ptr_nonnull(last);
	ck_assert_ptr_nonnull(strstr(last, ": 3 launches, 1 kernel, GPU 2.00 us | "));
	ck_assert_ptr_nonnull(strstr(last, "| Double 1.50 us (2.00x)"));
	ck_assert_ptr_nonnull(strstr(last, "| FakeA100 3.00 us (1.00x)"));
	ck_assert_uint_ge(n_live, 2);
	live = fmt("%s/out.live.json", r->dir);
	snap = json_load_file(live, 0, &jerr);
	ck_assert_msg(snap != NULL, "%s: %s", live, jerr.text);
	ck_assert_int_eq(json_array_size(json_object_get(snap, "projections")), 4);
	json_decref(snap);
	free(live);
}

/*
 * The SM clock: the profiled launch's sm__cycles_elapsed.avg
 * .per_second as its clock.sm; NVML's SM clock while kernels ran, which the
 * worker samples every flush in which kernels completed, unless NVML calls
 * the GPU idle: the double answers 1275 MHz with SwPowerCap (0x4) each
 * time, so every sample is 1275 MHz and capped, however many the timing
 * gives.
 */
static void
extra_sm_clock(struct run *r)
{
	json_t *clk = json_object_get(json_object_get(r->json, "device"), "sm_clock");
	json_t *why;

	/* The profiled launch's own clock, from the counters: clock.sm. */
	assert_close(kmetric(kernel_named(r, SAXPY, 0), "clock.sm"), 1.35e9, "clock.sm");
	ck_assert_ptr_nonnull(clk);
	ck_assert_str_eq(json_string_value(json_object_get(clk, "from")), "nvml");
	ck_assert_int_ge(jint(clk, "samples"), 1);
	ck_assert_int_eq(jint(clk, "capped_samples"), jint(clk, "samples"));
	assert_close(jreal(clk, "mean_mhz"), 1275, "mean");
	assert_close(jreal(clk, "min_mhz"), 1275, "min");
	assert_close(jreal(clk, "max_mhz"), 1275, "max");
	why = json_object_get(clk, "event_reasons");
	ck_assert_int_eq(json_array_size(why), 1);
	ck_assert_str_eq(json_string_value(json_array_get(why, 0)), "sw_power_cap");
}

/* NVML calls the GPU idle (GpuIdle 0x1) every time: no sample, no device.sm_clock. */
static void
extra_sm_clock_idle(struct run *r)
{
	ck_assert_ptr_null(json_object_get(json_object_get(r->json, "device"), "sm_clock"));
}

/* GPUPROJ_KEEP_CUBINS=1: the same bytes twice are one file, with the module's bytes. */
static void
extra_keep_cubins(struct run *r)
{
	char *dir = fmt("%s/out.cubins", r->dir), cmd[4200], name[512] = "";
	unsigned char buf[1000];
	size_t i;
	FILE *p;

	ck_assert_str_eq(attr(r, "env.GPUPROJ_KEEP_CUBINS"), "1");
	ck_assert_int_eq(test_count_dir(dir), 1);
	snprintf(cmd, sizeof(cmd), "ls '%s'", dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(fgets(name, sizeof(name), p));
	pclose(p);
	name[strcspn(name, "\n")] = '\0';
	snprintf(cmd, sizeof(cmd), "%s/%s", dir, name);
	p = fopen(cmd, "rb");
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(fread(buf, 1, sizeof(buf), p), 1000);
	fclose(p);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(buf[i], (unsigned char)(i * 7 + 7));
	free(dir);
}

/* Reload the report from `name` (relative to the run's directory). */
static void
reload(struct run *r, const char *name)
{
	char *p = fmt("%s/%s", r->dir, name);
	json_error_t jerr;

	json_decref(r->json);
	r->json = json_load_file(p, 0, &jerr);
	ck_assert_msg(r->json != NULL, "%s: %s", p, jerr.text);
	free(p);
}

static void
extra_mpi_rank(struct run *r)
{
	char host[256] = "", *l3, *name;

	gethostname(host, sizeof(host) - 1);
	name = fmt("prof-3-x-%s%%.json", host);
	l3 = fmt("[gpuproj] wrote %s (1 kernel signature, 1 launch, 1 profiled)", name);
	ck_assert_uint_eq(r->n_lines, 3);
	ck_assert_str_eq(r->lines[2], l3);
	reload(r, name);
	ck_assert_int_eq(jint(json_object_get(r->json, "process"), "rank"), 3);
	free(l3);
	free(name);
}

static void
extra_mpi_rank_inserted(struct run *r)
{
	char *p = fmt("%s/out.2.json", r->dir);
	char *want = fmt("[gpuproj] wrote %s (1 kernel signature, 1 launch, 1 profiled)", p);

	ck_assert_ptr_null(r->json);
	ck_assert_uint_eq(r->n_lines, 3);
	ck_assert_str_eq(r->lines[2], want);
	reload(r, "out.2.json");
	ck_assert_int_eq(jint(json_object_get(r->json, "process"), "rank"), 2);
	free(want);
	free(p);
}

static char entry_kind(const struct run *r, const char *name);

/* An invalid rank variable is said, not taken as rank 0; the next one is used. */
static void
extra_mpi_rank_invalid(struct run *r)
{
	reload(r, "out.json");
	ck_assert(json_is_null(json_object_get(json_object_get(r->json, "process"), "rank")));
	ck_assert_int_eq(entry_kind(r, "out.0.json"), 0);
}

static void
extra_mpi_rank_invalid_next(struct run *r)
{
	ck_assert_ptr_null(r->json);
	reload(r, "out.2.json");
	ck_assert_int_eq(jint(json_object_get(r->json, "process"), "rank"), 2);
}

/* A pattern expanding to "-" or "" falls back to the default name; the line says which. */
static void
extra_output_fallback(struct run *r, const char *why)
{
	char *want, *name;
	const char *p;

	ck_assert_uint_eq(r->n_lines, 4);
	want = fmt("[gpuproj] GPUPROJ_OUTPUT='%%q{OUTDASH}' %s; using gpuproj-%%p.json", why);
	ck_assert_str_eq(r->lines[0], want);
	free(want);
	p = strstr(r->err, "report at exit: ");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(strncmp(p + 16, "gpuproj-", 8), 0);
	name = strndup(p + 16, strcspn(p + 16, "\n"));
	reload(r, name);
	ck_assert_int_eq(jint(kernel_named(r, SAXPY, 0), "launches"), 1);
	free(name);
}

static void
extra_output_dash(struct run *r)
{
	extra_output_fallback(r, "expands to '-', the application's standard output");
}

static void
extra_output_empty(struct run *r)
{
	extra_output_fallback(r, "expands to an empty path");
}

static void
extra_unsupported_device(struct run *r)
{
	ck_assert_str_eq(attr(r, "device.0.metrics"),
			 "off: compute capability 6.0 has no CUPTI profiler (needs >= 7.0)");
}

/* The test double itself catches misuse: four broken rules, four violations. */
static void
extra_double_misuse(struct run *r)
{
	ck_assert_msg(strncmp(r->report, "violations 4\n", 13) == 0, "%s", r->report);
	ck_assert_ptr_nonnull(strstr(r->report, "violation: cuptiProfilerInitialize: structSize is 0"));
	ck_assert_ptr_nonnull(strstr(r->report, "violation: cuptiRangeProfilerGetCounterDataSize: "
						"not a range profiler object"));
	ck_assert_ptr_nonnull(strstr(r->report, "violation: cuptiRangeProfilerStart: "
						"cuptiRangeProfilerSetConfig must come first"));
	ck_assert_ptr_nonnull(strstr(r->report, "violation: cuptiRangeProfilerDecodeData: "
						"cuptiRangeProfilerStop must come first"));
}

/*
 * The driver and the C++ runtime are in the process but out of its global
 * scope: the device is still named (projections), kernels demangled; and
 * the application really exports no driver symbol.
 */
static void
extra_local_scopes(struct run *r)
{
	char *cmd = fmt("nm -D --defined-only '%s' | grep -c ' cu[A-Z]'", inject_fake_app());
	char *out = NULL;

	ck_assert_str_eq(json_string_value(json_object_get(kernel_named(r, SAXPY, 0), "demangled")),
			 "saxpy(int, float, float const*, float*)");
	ck_assert_str_eq(json_string_value(json_object_get(r->json, "source_target")), "FakeA100");
	test_run(cmd, &out, NULL);
	ck_assert_str_eq(out, "0\n");
	free(out);
	free(cmd);
}

/* Two signatures of one kernel, grid and block: with and without a 2x1x1 cluster. */
static void
extra_clusters(struct run *r)
{
	json_t *ks = json_object_get(r->json, "kernels"), *k;
	size_t i, plain = 0, clustered = 0;

	ck_assert_int_eq(kernel_count(r), 2);
	json_array_foreach(ks, i, k) {
		const char *tag = json_string_value(json_object_get(k, "tag"));

		ck_assert_int_eq(jint(k, "launches"), 2);
		ck_assert_int_eq(jint(k, "profiled_launches"), 1);
		if (tag) {
			ck_assert_str_eq(tag, "cluster=2x1x1");
			clustered++;
		} else {
			plain++;
		}
	}
	ck_assert_uint_eq(plain, 1);
	ck_assert_uint_eq(clustered, 1);
}

/*
 * The soak: 16 threads, LAUNCHES launches over SIGS
 * signatures, live snapshots every 0.1 s (no launch after the first 10 %
 * starts before 0.3 s, so that snapshots are written on any machine),
 * SIGTERM at TERM % with GPUPROJ_SIGNALS=1, the threads launching on: the
 * report is written ("signal SIGTERM"), loads back and projects with
 * `gpuproj project`, every signature was profiled once, the live snapshot
 * loads, the application dies of SIGTERM as it does without gpuproj, and
 * memory is flat: RSS at the signal at most RSS at 20 % of the launches
 * (after the warm-up: threads started, every signature profiled, the
 * activity buffers and the double's queues at their size) + 10 % + 4 MiB.
 * Figures go to the test log.
 */
static void
soak_check(struct run *r, long launches, long sigs, int term)
{
	const char *p;
	char *cmd, *out = NULL, *err = NULL, *live, *soak;
	long rss20 = -1, rss_term = -1, at = -1;
	json_error_t jerr;
	json_t *snap, *k;
	struct run bare;
	size_t i;
	int rc;

	ck_assert_ptr_nonnull(r->json);
	ck_assert_str_eq(attr(r, "report"), "signal SIGTERM");
	ck_assert_int_eq(kernel_count(r), sigs);
	json_array_foreach(json_object_get(r->json, "kernels"), i, k)
		ck_assert_int_eq(jint(k, "profiled_launches"), 1);
	cmd = fmt("'%s' project --targets '%s' '%s'", test_gpuproj(), inject_targets(), r->output);
	rc = test_run(cmd, &out, &err);
	ck_assert_msg(rc == 0, "gpuproj project on the soak's report: exit %d: %s", rc, err);
	free(cmd);
	free(out);
	free(err);
	live = fmt("%s/out.live.json", r->dir);
	snap = json_load_file(live, 0, &jerr);
	ck_assert_msg(snap != NULL, "%s: %s", live, jerr.text);
	json_decref(snap);
	free(live);
	if ((p = strstr(r->out, "soak rss_kb 20% ")))
		rss20 = atol(p + 16);
	if ((p = strstr(r->out, "soak sigterm at ")))
		sscanf(p, "soak sigterm at %ld rss_kb %ld", &at, &rss_term);
	ck_assert_int_eq(at, launches * term / 100);
	fprintf(stderr, "soak figures: %ld launches, %ld signatures, SIGTERM at %ld; RSS %s",
		launches, sigs, at, r->out);
	/*
	 * ASan's quarantine keeps what is freed: RSS is not the application's
	 * there. Elsewhere RSS may grow by the activity buffers (1 MiB each,
	 * cupti-activity.c BUF_SIZE) filled and not yet delivered, which
	 * depends on how far CUPTI's (the double's) delivery thread lags, not
	 * on the launches: on two cores at a load of 10 the small soak went
	 * from 17,256 KiB at 20 % to 25,412 at the signal (flat at 17,8xx until
	 * 50 %), the full soak between 28,396 and 34,588. One buffer per
	 * application thread is allowed for that, besides 10 % and 4 MiB: a
	 * leak of ~150 bytes per launch still fails the small soak (140,000
	 * launches between the two points), ~40 bytes the full one (550,000).
	 */
	if (!getenv("INJECT_ASAN_RUNTIME"))
		ck_assert_msg(rss20 > 0 && rss_term > 0 &&
			      rss_term <= rss20 + rss20 / 10 + 4096 + 16 * 1024,
			      "RSS grew: %ld KiB at 20%% of the launches, %ld at the signal", rss20,
			      rss_term);
	/* Without gpuproj the application dies of the same signal. */
	soak = fmt("soak 16 %ld %ld %d 300", launches, sigs, term);
	run_app(&bare, ENV("-CUDA_INJECTION64_PATH"), CMDS("init", "ctx 0", soak));
	ck_assert_int_eq(bare.signal, 15);
	ck_assert_int_eq(r->signal, bare.signal);
	run_free(&bare);
	free(soak);
}

static void
extra_soak_small(struct run *r)
{
	soak_check(r, 200000, 100, 90);
}

static void
extra_soak_full(struct run *r)
{
	soak_check(r, 1000000, 1000, 75);
}

/* Nothing was left queued on the double's GPU and no record went with a context. */
static void
extra_gpu_drained(struct run *r)
{
	ck_assert_ptr_nonnull(strstr(r->report, "\ngpu pending_at_exit 0 records_lost_with_context 0\n"));
}

/* Two devices: kernels are kept apart by device, each profiled on its own. */
static void
extra_two_devices(struct run *r)
{
	json_t *ks = json_object_get(r->json, "kernels"), *k;
	size_t i, seen = 0;

	ck_assert_int_eq(kernel_count(r), 2);
	json_array_foreach(ks, i, k) {
		long long dev = jint(k, "device");

		ck_assert_int_eq(jint(k, "launches"), 2);
		ck_assert_int_eq(jint(k, "profiled_launches"), 1);
		assert_close(jreal(json_object_get(k, "duration_ns"), "mean"), dev ? 1500 : 1000,
			     "per-device duration");
		seen |= 1u << dev;
	}
	ck_assert_uint_eq(seen, 3);
}

/* ---- hostile outputs, names, environment ---- */

/* What lstat() says `name` (in the run's directory) is: 'f' file, 'l' link, 'p' FIFO, 'd' dir, 0 none. */
static char
entry_kind(const struct run *r, const char *name)
{
	char *p = fmt("%s/%s", r->dir, name);
	struct stat st;
	char k = 0;

	if (lstat(p, &st) == 0)
		k = S_ISREG(st.st_mode) ? 'f' : S_ISLNK(st.st_mode) ? 'l' : S_ISFIFO(st.st_mode) ? 'p'
		    : S_ISDIR(st.st_mode) ? 'd' : '?';
	free(p);
	return k;
}

/*
 * A FIFO planted as the report (directly, or behind a symbolic link): one
 * line, nothing opened or written, the FIFO and the link left as they were,
 * no temporary file left behind (stdout, stderr, fake.txt and what was
 * planted).
 */
/*
 * The report refused there goes to the fallback place (the
 * application's TMPDIR, named in the line) with everything in it.
 */
static void
expect_fallback_report(struct run *r)
{
	char *fb = fmt("%s/out.json", r->tmp);
	json_error_t jerr;

	ck_assert_ptr_null(r->json);
	r->json = json_load_file(fb, 0, &jerr);
	ck_assert_msg(r->json != NULL, "%s: %s", fb, jerr.text);
	check_kernel(r, SAXPY, 1, 1, 1, 1000);
	ck_assert_int_eq(test_count_dir(r->tmp), 1);
	free(fb);
}

static void
extra_output_fifo(struct run *r)
{
	ck_assert_int_eq(entry_kind(r, "out.json"), 'p');
	ck_assert_int_eq(test_count_dir(r->dir), 4);
	expect_fallback_report(r);
}

static void
extra_output_symlink(struct run *r)
{
	ck_assert_int_eq(entry_kind(r, "out.json"), 'l');
	ck_assert_int_eq(entry_kind(r, "victim"), 'p');
	ck_assert_int_eq(test_count_dir(r->dir), 5);
	expect_fallback_report(r);
}

/*
 * A valid 244-byte name: written under it. Before, the
 * temporary name beside it (".<name>.<pid>.<n>.<ns>") was beyond NAME_MAX
 * (255) and the report was lost at exit ("cannot create a temporary file
 * beside it: File name too long").
 */
#define LONG_OUTPUT \
	"LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL" \
	"LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL" \
	"LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL.json"
static void
extra_output_long_name(struct run *r)
{
	ck_assert_int_eq((int)strlen(LONG_OUTPUT), 244);
	ck_assert_int_eq(entry_kind(r, LONG_OUTPUT), 'f');
	reload(r, LONG_OUTPUT);
	check_kernel(r, SAXPY, 1, 1, 1, 1000);
	/* stdout, stderr, fake.txt and the report: no temporary file left. */
	ck_assert_int_eq(test_count_dir(r->dir), 4);
}

/*
 * The output's directory removed while the application ran:
 * at exit the report goes to the application's TMPDIR, named in the line.
 */
static void
extra_output_dir_gone(struct run *r)
{
	ck_assert_int_eq(entry_kind(r, "sub"), 0);
	expect_fallback_report(r);
}

/*
 * An output directory nobody may create files in (sysfs:
 * EACCES even for root), found at start-up: said then, and the start-up
 * line names where the report goes instead.
 */
START_TEST(output_dir_unwritable)
{
	struct run r;
	char *init, *moved, *wrote, *fb;
	json_error_t jerr;

	if (access("/sys/kernel", F_OK) != 0) {
		test_skip("output_dir_unwritable: no sysfs at /sys");
		return;
	}
	fprintf(stderr, "==== scenario output_dir_unwritable\n");
	run_app(&r, ENV("GPUPROJ_OUTPUT=/sys/gpuproj-test.json"),
		CMDS(METRICS, "init", "ctx 0", "stdout hello",
		     "launch drv 1 " SAXPY " " K_DIMS " 0 1000", "exit 7"));
	ck_assert_int_eq(r.status, 7);
	ck_assert_str_eq(r.out, "hello\n");
	expect_no_violations(&r);
	fb = fmt("%s/gpuproj-test.json", r.tmp);
	moved = fmt("[gpuproj] GPUPROJ_OUTPUT: the report cannot be written as "
		    "/sys/gpuproj-test.json (cannot create a file in /sys: Permission denied): it "
		    "goes to %s instead", fb);
	init = fmt("[gpuproj] gpuproj %s (CUPTI 13.0 (API 130001)): timing every kernel launch, "
		   "profiling the first 1 launch of each kernel signature; report at exit: %s",
		   GPUPROJ_VERSION, fb);
	wrote = fmt("[gpuproj] wrote %s (1 kernel signature, 1 launch, 1 profiled)", fb);
	ck_assert_uint_ge(r.n_lines, 4);
	ck_assert_str_eq(r.lines[0], moved);
	ck_assert_str_eq(r.lines[1], init);
	ck_assert_str_eq(r.lines[r.n_lines - 1], wrote);
	r.json = json_load_file(fb, 0, &jerr);
	ck_assert_msg(r.json != NULL, "%s: %s", fb, jerr.text);
	check_kernel(&r, SAXPY, 1, 1, 1, 1000);
	ck_assert_int_eq(test_count_dir(r.tmp), 1);
	free(fb);
	free(moved);
	free(init);
	free(wrote);
	run_free(&r);
}
END_TEST

/* A relative GPUPROJ_OUTPUT is resolved at start-up, not in the directory of exit. */
static void
extra_output_after_chdir(struct run *r)
{
	char *want = fmt("[gpuproj] wrote %s/rel.json (1 kernel signature, 1 launch, 1 profiled)",
			 r->dir);

	ck_assert_int_eq(entry_kind(r, "rel.json"), 'f');
	ck_assert_int_eq(entry_kind(r, "sub/rel.json"), 0);
	ck_assert_str_eq(r->lines[r->n_lines - 1], want);
	reload(r, "rel.json");
	check_kernel(r, SAXPY, 1, 1, 1, 1000);
	free(want);
}

/* A symbolic link planted as the cubin directory: not followed, one line, nothing written there. */
static void
extra_cubins_symlink(struct run *r)
{
	char *elsewhere = fmt("%s/elsewhere", r->dir);

	ck_assert_int_eq(entry_kind(r, "out.cubins"), 'l');
	ck_assert_int_eq(test_count_dir(elsewhere), 0);
	ck_assert_ptr_nonnull(r->json);
	free(elsewhere);
}

/* The FNV-1a 64 name of the cubin "module 1 7 1000" loads (bytes i * 7 + 7). */
#define KEPT_CUBIN "module-8dda2f77ba0d04e5.cubin"

/* A FIFO planted as a cubin's name: left as it was, the report still written. */
static void
extra_cubins_fifo(struct run *r)
{
	char *dir = fmt("%s/kept", r->dir);

	ck_assert_int_eq(entry_kind(r, "kept/" KEPT_CUBIN), 'p');
	ck_assert_int_eq(test_count_dir(dir), 1);
	reload(r, "out.json");
	check_kernel(r, SAXPY, 1, 1, 1, 1000);
	free(dir);
}

/* A relative GPUPROJ_KEEP_CUBINS names the directory of start-up, not the one of the load. */
static void
extra_cubins_after_chdir(struct run *r)
{
	ck_assert_int_eq(entry_kind(r, "kept/" KEPT_CUBIN), 'f');
	ck_assert_int_eq(entry_kind(r, "sub/kept"), 0);
	ck_assert_int_eq(test_count_dir(r->dir), 6);
}

/*
 * Another process wrote the report's name during the run: its file is kept,
 * this report goes to out.<pid>.json, and the line says so.
 */
static void
extra_two_writers(struct run *r)
{
	char *theirs = fmt("%s/out.json", r->dir), *text = test_read_file(theirs), *want;
	const char *last = r->lines[r->n_lines - 1], *name;
	long pid;

	ck_assert_str_eq(text, "another process's profile\n");
	ck_assert_ptr_null(r->json);
	name = strstr(last, "/out.");
	ck_assert_ptr_nonnull(name);
	pid = strtol(name + 5, NULL, 10);
	ck_assert_int_gt(pid, 0);
	want = fmt("[gpuproj] wrote %s/out.%ld.json (1 kernel signature, 1 launch, 1 profiled): "
		   "%s was written by another process during this run (give each process its "
		   "own GPUPROJ_OUTPUT, with %%p or %%r)", r->dir, pid, theirs);
	ck_assert_str_eq(last, want);
	free(want);
	want = fmt("out.%ld.json", pid);
	reload(r, want);
	ck_assert_int_eq(jint(json_object_get(r->json, "process"), "pid"), pid);
	free(want);
	free(text);
	free(theirs);
}

/* A profile of an earlier run, there before start-up, is replaced as before. */
static void
extra_stale_replaced(struct run *r)
{
	ck_assert_ptr_nonnull(r->json);
	check_kernel(r, SAXPY, 1, 1, 1, 1000);
}

static void
extra_rank_from(struct run *r, const char *file, long rank)
{
	reload(r, file);
	ck_assert_int_eq(jint(json_object_get(r->json, "process"), "rank"), rank);
}

static void extra_rank_mv2(struct run *r) { extra_rank_from(r, "out.5.json", 5); }
static void extra_rank_pals(struct run *r) { extra_rank_from(r, "out.6.json", 6); }
static void extra_rank_alps(struct run *r) { extra_rank_from(r, "out.7.json", 7); }
static void extra_rank_torchrun(struct run *r) { extra_rank_from(r, "out.3.json", 3); }

/*
 * setlocale(LC_ALL, "de_DE.UTF-8") before cuInit: targets.yaml still loads,
 * the JSON and the table are in the C locale. The application's own
 * printf is in its locale ("1,5"), as without gpuproj.
 */
static void
extra_locale(struct run *r)
{
	const char *table = strstr(r->err, "FakeA100");

	ck_assert_ptr_nonnull(r->json);
	ck_assert_str_eq(json_string_value(json_object_get(r->json, "source_target")), "FakeA100");
	ck_assert_uint_gt(r->table_lines, 5);
	ck_assert_ptr_nonnull(table);
	ck_assert_ptr_nonnull(strstr(r->err, "1.00x"));
	ck_assert_ptr_null(strstr(r->err, "1,00x"));
	expect_same_projections(r);
}

/* A tiny GPUPROJ_MAX_INPUT_SIZE refuses GPUPROJ_TARGETS, never the built-in copy. */
static void
extra_tiny_input_limit(struct run *r)
{
	char *head = fmt("[gpuproj] GPUPROJ_TARGETS: %s: is ", inject_targets());
	const char *tail = ", larger than the limit of 1 bytes for a targets file (raise it with "
			   "--max-input-size or GPUPROJ_MAX_INPUT_SIZE); using the built-in "
			   "targets.yaml";
	size_t i;

	ck_assert_uint_ge(r->n_lines, 1);
	ck_assert_int_eq(strncmp(r->lines[0], head, strlen(head)), 0);
	ck_assert_str_eq(r->lines[0] + strlen(r->lines[0]) - strlen(tail), tail);
	for (i = 0; i < r->n_lines; i++)
		ck_assert_ptr_null(strstr(r->lines[i], "does not load"));
	ck_assert_str_eq(attr(r, "targets"), "built-in");
	free(head);
}

static void
extra_projected(struct run *r)
{
	expect_same_projections(r);
}

/*
 * Kernel names from the application reach stderr escaped: the exit table
 * and every [gpuproj] line (a window title and a right-to-left override
 * in an NCCL-named kernel).
 */
static void
extra_names_escaped(struct run *r)
{
	test_assert_terminal_safe(r->err);
	ck_assert_ptr_nonnull(strstr(r->err, "\n[gpuproj] #1 ncclKernel\\e]0;owned\\a\\u202e"
				     "evil  grid(1000,1,1) block(256,1,1)\n"));
	ck_assert_ptr_nonnull(kernel_named(r, "ncclKernel\x1b]0;owned\a\xe2\x80\xae" "evil", 0));
}

/*
 * A driver that reports one absurd field. The profile is
 * written with that field unknown (and everything else: the kernel, its
 * metrics, the timeline); before, the writer refused the whole report at
 * exit ("device.sms -5 is outside [0, 4096]") and the application's exit
 * status hid it.
 */
static void
check_device_kept(struct run *r, long sms, const char *cc, double clock_hz)
{
	json_t *dev;

	ck_assert_ptr_nonnull(r->json);
	dev = json_object_get(r->json, "device");
	/* Unknown: null (docs/formats/profile.md). */
	if (sms)
		ck_assert_int_eq(jint(dev, "sms"), sms);
	else
		ck_assert(json_is_null(json_object_get(dev, "sms")));
	if (cc)
		ck_assert_str_eq(json_string_value(json_object_get(dev, "cc")), cc);
	else
		ck_assert(json_is_null(json_object_get(dev, "cc")));
	if (isnan(clock_hz))
		ck_assert(json_is_null(json_object_get(dev, "clock_hz")) ||
			  !json_object_get(dev, "clock_hz"));
	else
		assert_close(jreal(dev, "clock_hz"), clock_hz, "clock");
	ck_assert_ptr_nonnull(json_object_get(r->json, "timeline"));
	assert_close(kmetric(kernel_named(r, "_Z2k1v", 0), "inst.fp32.fma"), 100 * THREADS, "ffma");
	/* Nothing left behind: stdout, stderr, the double's report and the profile. */
	ck_assert_int_eq(test_count_dir(r->dir), 4);
}

static void
extra_dev_sms(struct run *r)
{
	check_device_kept(r, 0, "8.0", 1.41e9);
}

static void
extra_dev_clock(struct run *r)
{
	check_device_kept(r, 100, "8.0", NAN);
}

static void
extra_dev_cc(struct run *r)
{
	check_device_kept(r, 100, NULL, 1.41e9);
}

static void
extra_dev_bus(struct run *r)
{
	check_device_kept(r, 100, "8.0", 1.41e9);
	ck_assert_ptr_null(json_object_get(json_object_get(json_object_get(r->json, "device"),
							   "driver"), "memory_bus_bits"));
}

/*
 * The main thread (a warm-up epoch) and 66 threads of 3
 * epochs each (a launch and a device synchronise); the recorder follows
 * 64 threads, so 3 threads' 3 epochs each, 9, are unexplained "threads".
 * Before: their API calls were counted, 36 (3 threads x 3 x a runtime and
 * its nested driver call for the launch and for the synchronise). Their
 * time depends on how the 66 threads interleave on the double's clock:
 * only its presence is checked.
 */
static void
extra_threads_not_followed(struct run *r)
{
	json_t *tl = json_object_get(r->json, "timeline"), *thr;

	ck_assert_ptr_nonnull(tl);
	ck_assert_int_eq(jint(tl, "threads"), 64);
	thr = json_object_get(json_object_get(tl, "unexplained"), "threads");
	ck_assert_int_eq(jint(thr, "epochs"), 9);
	ck_assert(jreal(thr, "ns") > 0);
}

/*
 * The application's SIGALRM handler calls exit() at a point
 * the double chooses ($FAKE_ALARM_AT, fake-cupti.c): the exit path runs in
 * the frozen frame. Before: libproj.so blocked for good there (on the
 * recorder's lock its buffer callback held, or on CUPTI's in
 * cuptiGetTimestamp), the application hung (timeout, no profile). Now it
 * exits with its own status and output, and the report holds what was
 * collected. The double's report lists what CUPTI was left with (nothing
 * else is a violation).
 */
#define LINE_CUPTI_STUCK \
	"[gpuproj] CUPTI did not answer within 1 s at exit (GPUPROJ_WAIT; exit() called from a " \
	"signal handler that interrupted a CUDA call?): gpuproj calls it no more, and records " \
	"it had not delivered are missing from the report"

static void
check_signal_exit(struct run *r, bool timeline)
{
	char *wrote = fmt("[gpuproj] wrote %s (1 kernel signature, ", r->output);
	const char *v;
	size_t i;
	bool stuck = false;

	ck_assert_uint_ge(r->n_lines, 3);
	{
		char *init = line_init(r);

		ck_assert_str_eq(r->lines[0], init);
		free(init);
	}
	for (i = 0; i < r->n_lines; i++)
		stuck |= strcmp(r->lines[i], LINE_CUPTI_STUCK) == 0;
	ck_assert_msg(stuck, "no line: %s", LINE_CUPTI_STUCK);
	ck_assert_int_eq(strncmp(r->lines[r->n_lines - 1], wrote, strlen(wrote)), 0);
	ck_assert_ptr_nonnull(r->json);
	ck_assert_ptr_nonnull(kernel_named(r, "_Z2k1v", 0));
	ck_assert(!timeline || json_object_get(r->json, "timeline"));
	/* What CUPTI was left with, and nothing else. */
	for (v = strstr(r->report, "violation: "); v; v = strstr(v + 1, "violation: "))
		ck_assert_msg(!strncmp(v, "violation: host object for GA100 never "
					  "deinitialised\n", 53) ||
			      !strncmp(v, "violation: still subscribed at exit", 35) ||
			      !strncmp(v, "violation: kernel activity still enabled at exit", 48) ||
			      !strncmp(v, "violation: activity kind ", 25) ||
			      !strncmp(v, "violation: profiler still initialised at exit", 45),
			      "%.80s", v);
	free(wrote);
}

/* The signal while the double holds CUPTI's lock (recording an API call). */
static void
extra_signal_exit_cupti_lock(struct run *r)
{
	check_signal_exit(r, false);
	ck_assert_ptr_nonnull(strstr(r->report, "\nexit_lock_held 1\n"));
}

/*
 * The signal inside gpuproj's buffer callback on the application's thread,
 * which holds the recorder's lock: blocked there until the callback ends
 * (backend.h inj_signals_block()), so the timeline is whole; CUPTI's
 * forced flush then waits for that delivery, which never ends: bounded.
 */
static void
extra_signal_exit_buffer_callback(struct run *r)
{
	check_signal_exit(r, true);
}

/* ---- the scenarios ---- */

/*
 * ---- The whole run ----
 *
 * Each scenario profiles its kernels once first (a warm-up epoch ended by
 * a synchronisation: a profiled launch runs under kernel replay, which
 * blocks the host), then repeats one epoch TL_N times on the double's
 * virtual clock (fake.h "Time": host work and kernel durations as
 * scripted, API calls and launch latency 0). The expected figures per
 * epoch are in each scenario's comment: measured on FakeA100, projected
 * onto Double, where every kernel takes half its time and a pinned 1 MB
 * copy 2000 + 10^6 / 50 = 22000 ns instead of 2000 + 10^6 / 25 = 42000
 * (targets-inject.yaml).
 *
 * The warm-up epoch is reconstructed (timeline.h "Reconstructed epochs"):
 * each profiled launch at its kernel's one-pass duration (the
 * mean of its timed launches), with the host time and latency of an
 * ordinary launch (0 on the double). WARMUP runs K1 then K2 on the legacy
 * stream, so its reconstruction takes d1 + d2 (their timed means in the
 * scenario), d1/2 + d2/2 on Double, all kernel time. Measured, each
 * profiled launch drained the context and ran 4 replay passes of 3x its
 * scripted duration (fake.h fake_kernel_run()): 4 x 3 x (10000 + 20000) =
 * 360000 ns, of which the reconstruction keeps d1 + d2 and leaves the
 * rest out of the timeline's wall (reconstructed.blocking_ns).
 */
#define TL_N 10
#define K1 "_Z2k1v"
#define K2 "_Z2k2v"
#define K3 "_Z2k3v"
#define WARMUP "launch rt 1 " K1 " " K_DIMS " 0 10000", "launch rt 1 " K2 " " K_DIMS " 0 20000", \
	"sync 1"
/* What WARMUP's epoch measured under replay (above). */
#define WARMUP_MEASURED 360000.0

/* Per-epoch figures of one whole-run check: measured, and projected onto Double. */
struct whole_want {
	double measured;			/* epoch wall on FakeA100 */
	double wall, kernel, copy, host, overlap; /* epoch on Double */
	/* the reconstructed warm-up epoch: on FakeA100, on Double (kernel time), as measured */
	double warm, warm_double, warm_measured;
};

/* The timeline's first pattern that is (or is not) reconstructed, or NULL. */
static json_t *
pattern_of(json_t *tl, bool reconstructed)
{
	json_t *pats = json_object_get(tl, "patterns");
	size_t i;

	for (i = 0; i < json_array_size(pats); i++) {
		json_t *pat = json_array_get(pats, i);

		if (json_is_true(json_object_get(pat, "reconstructed")) == reconstructed)
			return pat;
	}
	return NULL;
}

/*
 * The run's whole-run projections: onto FakeA100 the identity (the
 * replay reproduces the measured time: error 0, whole = measured wall);
 * onto Double the hand figures × TL_N plus the warm-up's, plus what is
 * carried unchanged (the time outside epochs: measured wall − TL_N ×
 * epoch − warm-up; 0 on the double). Also the timeline itself: one
 * pattern of TL_N epochs and the warm-up's, reconstructed.
 */
static void
check_whole(struct run *r, const struct whole_want *w)
{
	json_t *tl = json_object_get(r->json, "timeline"), *pats, *pat, *warm, *rec, *src, *dbl;
	json_t *bar;
	double wall, explained = TL_N * w->measured + w->warm, carried;

	ck_assert_msg(tl != NULL, "no timeline in the profile");
	pats = json_object_get(tl, "patterns");
	ck_assert_int_eq((int)json_array_size(pats), 2);
	pat = pattern_of(tl, false);
	ck_assert_ptr_nonnull(pat);
	ck_assert_int_eq(jint(json_object_get(pat, "wall_ns"), "n"), TL_N);
	assert_close(jreal(json_object_get(pat, "wall_ns"), "mean"), w->measured, "epoch wall");
	warm = pattern_of(tl, true);
	ck_assert_ptr_nonnull(warm);
	ck_assert_int_eq(jint(json_object_get(warm, "wall_ns"), "n"), 1);
	assert_close(jreal(json_object_get(warm, "wall_ns"), "mean"), w->warm, "warm-up wall");
	ck_assert_int_eq(jint(json_object_get(json_object_get(tl, "unexplained"), "profiled"),
			      "epochs"), 0);
	rec = json_object_get(tl, "reconstructed");
	ck_assert_int_eq(jint(rec, "epochs"), 1);
	assert_close(jreal(rec, "ns"), w->warm, "reconstructed");
	assert_close(jreal(rec, "blocking_ns"), w->warm_measured - w->warm, "replay's blocking");
	/* Nothing outside the epochs on the double (its API calls take no time). */
	wall = jreal(tl, "wall_ns");
	carried = wall - explained;
	ck_assert_msg(carried >= 0, "carried %g", carried);

	src = json_object_get(projection_for(r, "FakeA100"), "whole_run");
	ck_assert_ptr_nonnull(src);
	assert_close(jreal(src, "identity_error"), 0, "identity error");
	assert_close(jreal(src, "wall_ns"), wall, "identity: the measured wall");
	assert_close(jreal(src, "explained"), explained / wall, "explained share");
	assert_close(jreal(src, "reconstructed"), w->warm / wall, "reconstructed share");

	dbl = json_object_get(projection_for(r, "Double"), "whole_run");
	ck_assert_ptr_nonnull(dbl);
	assert_close(jreal(dbl, "source_ns"), wall, "measured wall");
	assert_close(jreal(dbl, "replayed_ns"), TL_N * w->wall + w->warm_double, "replayed");
	assert_close(jreal(dbl, "carried_ns"), carried, "carried");
	assert_close(jreal(dbl, "wall_ns"), TL_N * w->wall + w->warm_double + carried, "whole run");
	assert_close(jreal(dbl, "kernel_ns"), TL_N * w->kernel + w->warm_double, "kernel part");
	assert_close(jreal(dbl, "copy_ns"), TL_N * w->copy, "copy part");
	assert_close(jreal(dbl, "host_ns"), TL_N * w->host, "host part");
	assert_close(jreal(dbl, "overlap_ns"), TL_N * w->overlap, "overlap part");
	assert_close(jreal(dbl, "identity_error"), 0, "identity error (Double)");
	bar = json_object_get(dbl, "bar");
	assert_close(jreal(bar, "kernel_ns") + jreal(bar, "copy_ns") + jreal(bar, "host_ns") +
			     jreal(bar, "carried_ns"), jreal(dbl, "wall_ns"), "the bar sums to it");
	ck_assert_int_eq(jint(dbl, "copies_kept"), 0);
	ck_assert_int_eq(jint(dbl, "kernels_kept"), 0);
}

/*
 * Serial: host 5000, K1 10000, K2 20000, sync: 35000; Double 5000 + 5000 + 10000.
 * Warm-up: 10000 + 20000 = 30000; Double 15000.
 */
static void
extra_tl_serial(struct run *r)
{
	check_whole(r, &(struct whole_want){ 35000, 20000, 15000, 0, 5000, 0, 30000, 15000,
					     WARMUP_MEASURED });
}

/*
 * Two streams at once: K1 on 1, K2 on 2, sync: 20000; Double max(5000, 10000), overlap 5000.
 * Warm-up (one stream): 30000; Double 15000.
 */
static void
extra_tl_streams(struct run *r)
{
	check_whole(r, &(struct whole_want){ 20000, 10000, 15000, 0, 0, 5000, 30000, 15000,
					     WARMUP_MEASURED });
}

/*
 * Host-bound: host 50000, K1 1000, host 50000, K2 2000, sync: K1 runs under
 * the second host segment, K2 [100000, 102000]: 102000; Double 101000.
 * Warm-up: K1 and K2 at their timed 1000 and 2000: 3000; Double 1500.
 */
static void
extra_tl_host(struct run *r)
{
	check_whole(r, &(struct whole_want){ 102000, 101000, 1500, 0, 100000, 500, 3000, 1500,
					     WARMUP_MEASURED });
}

/*
 * Copy-bound: an asynchronous H2D of 1 MB (42000), K1 10000 after it, a
 * blocking D2H of 1 MB (42000): 94000; Double 22000 + 5000 + 22000.
 * Warm-up: K1 10000 and K2, never timed, at the range profiler's one pass
 * (its scripted 20000): 30000; Double 15000.
 */
static void
extra_tl_copy(struct run *r)
{
	check_whole(r, &(struct whole_want){ 94000, 49000, 5000, 44000, 0, 0, 30000, 15000,
					     WARMUP_MEASURED });
}

/*
 * A synchronous H2D of 1 MB (42000) from pageable memory returns once
 * staged (the double: halfway, 21000), before its copy ends; host 30000,
 * K1 10000 after both, a blocking D2H (42000): 21000 + 30000 + 10000 +
 * 42000 = 103000 per epoch. Taken as blocking to its end (the recorder's
 * rule before: the copy's record lacks the async flag), the replay onto
 * the source would give 124000, an identity error of +20 %. Onto Double
 * (copies 22000, K1 5000): the call's 21000 of host time kept, host
 * 30000, K1 at 51000 (the copy ended at 22000), D2H: 78000.
 */
static void
extra_tl_pageable(struct run *r)
{
	json_t *tl = json_object_get(r->json, "timeline"), *pat = pattern_of(tl, false), *node;
	json_t *src = json_object_get(projection_for(r, "FakeA100"), "whole_run");

	ck_assert_ptr_nonnull(pat);
	assert_close(jreal(json_object_get(pat, "wall_ns"), "mean"), 103000, "epoch wall");
	node = json_array_get(json_object_get(pat, "nodes"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(node, "op")), "copy");
	ck_assert_msg(!json_is_true(json_object_get(node, "blocking")),
		      "a pageable H2D that returned before its end recorded as blocking");
	ck_assert_ptr_nonnull(src);
	assert_close(jreal(src, "identity_error"), 0, "identity error");
	/* 10 epochs at 78000, the warm-up (K1, K2 reconstructed) at 15000. */
	node = json_object_get(projection_for(r, "Double"), "whole_run");
	assert_close(jreal(node, "replayed_ns"), 10 * 78000 + 15000, "replayed onto Double");
}

/*
 * An event across streams: K1 on 1, event recorded after it, stream 2 waits
 * for it, K2 on 2, sync: K2 [10000, 30000]: 30000; Double 5000 + 10000.
 * Warm-up: 30000; Double 15000.
 */
static void
extra_tl_event(struct run *r)
{
	check_whole(r, &(struct whole_want){ 30000, 15000, 15000, 0, 0, 0, 30000, 15000,
					     WARMUP_MEASURED });
}

/*
 * A graph of 4 launches of K1 (5000 each): host 1000, graph 20000, sync: 21000;
 * Double 1000 + 10000.
 * Warm-up: K1 alone (5000), profiled outside the graph: 5000; Double 2500; measured
 * 4 passes x 3 x 5000 = 60000.
 */
static void
extra_tl_graph(struct run *r)
{
	json_t *node = json_array_get(json_object_get(pattern_of(json_object_get(r->json,
		"timeline"), false), "nodes"), 0);

	check_whole(r, &(struct whole_want){ 21000, 11000, 10000, 0, 1000, 0, 5000, 2500,
					     60000 });
	ck_assert_str_eq(json_string_value(json_object_get(node, "op")), "graph");
	ck_assert_int_eq(jint(json_array_get(json_object_get(node, "kernels"), 0), "launches"), 4);
}

/*
 * An application that synchronises once, at the end. Host work
 * of 50 ms before each of four 0.5 ms launches of K3, then one sync, with
 * the first launch profiled. The thread's one epoch runs from L1 to the
 * sync; the first 50 ms are before it (outside any epoch: carried).
 * Measured: the profiled L1 blocked the host for its 4 replay passes of
 * 3 x 0.5 ms = 6 ms, so L1 [50, 56] ms, L2 at 106, L3 at 156, L4
 * [206, 206.5], the sync ends at 206.5 ms. Reconstructed: L1 an ordinary
 * launch (0 host time, no latency) at its one-pass 0.5 ms: the epoch L1
 * [0, 0.5], L2 [50, 50.5], L3 [100, 100.5], L4 [150, 150.5]: 150.5 ms, the
 * 6 ms of blocking left out of the recorded wall: 206.5 − 6 = 200.5 ms.
 * Onto its own GPU the replay gives back the 150.5 ms, the whole run the
 * 200.5 ms; of it 150 + 50 = 200 ms host time. Onto Double (kernels at
 * half): the epoch's 150 ms of host time kept, the last kernel 0.25 ms:
 * 150.25 ms, kernel time 4 x 0.25 = 1 ms of which 0.75 ms under the host
 * work (overlap); with the 50 ms carried, 200.25 ms. On every target the
 * 200 ms of host time (150 ms in the epoch, 50 ms carried) stay, and the
 * whole run is at least that and at most the source's 200.5 ms plus the
 * 2 ms the kernels take there (a target 4x slower: 200 + 4 x 2 ms).
 */
static void
extra_tl_one_sync(struct run *r)
{
	json_t *tl = json_object_get(r->json, "timeline"), *pat, *rec, *src, *dbl, *p;
	size_t i, n_whole = 0;

	ck_assert_msg(tl != NULL, "no timeline in the profile");
	ck_assert_int_eq((int)json_array_size(json_object_get(tl, "patterns")), 1);
	pat = pattern_of(tl, true);
	ck_assert_ptr_nonnull(pat);
	assert_close(jreal(json_object_get(pat, "wall_ns"), "mean"), 150.5e6, "epoch wall");
	ck_assert_int_eq(jint(json_object_get(json_object_get(tl, "unexplained"), "profiled"),
			      "epochs"), 0);
	rec = json_object_get(tl, "reconstructed");
	ck_assert_int_eq(jint(rec, "epochs"), 1);
	assert_close(jreal(rec, "ns"), 150.5e6, "reconstructed");
	assert_close(jreal(rec, "blocking_ns"), 6e6, "the replay's blocking");
	assert_close(jreal(tl, "wall_ns"), 200.5e6, "the recorded wall, less the replay");

	src = json_object_get(projection_for(r, "FakeA100"), "whole_run");
	ck_assert_ptr_nonnull(src);
	assert_close(jreal(src, "identity_error"), 0, "identity error");
	assert_close(jreal(src, "replayed_ns"), 150.5e6, "replayed (FakeA100)");
	assert_close(jreal(src, "carried_ns"), 50e6, "carried (FakeA100)");
	assert_close(jreal(src, "wall_ns"), 200.5e6, "whole run (FakeA100)");
	assert_close(jreal(src, "host_ns"), 150e6, "host time in the epoch (FakeA100)");
	assert_close(jreal(src, "reconstructed"), 150.5e6 / 200.5e6, "reconstructed share");

	dbl = json_object_get(projection_for(r, "Double"), "whole_run");
	ck_assert_ptr_nonnull(dbl);
	assert_close(jreal(dbl, "replayed_ns"), 150.25e6, "replayed (Double)");
	assert_close(jreal(dbl, "host_ns"), 150e6, "host time in the epoch (Double)");
	assert_close(jreal(dbl, "kernel_ns"), 1e6, "kernel part");
	assert_close(jreal(dbl, "overlap_ns"), 0.75e6, "overlap part");
	assert_close(jreal(dbl, "carried_ns"), 50e6, "carried (Double)");
	assert_close(jreal(dbl, "wall_ns"), 200.25e6, "whole run (Double)");

	json_array_foreach(json_object_get(r->json, "projections"), i, p) {
		json_t *w = json_object_get(p, "whole_run");

		if (!w)
			continue;
		n_whole++;
		assert_close(jreal(w, "host_ns"), 150e6, "host time in the epoch (every target)");
		assert_close(jreal(w, "carried_ns"), 50e6, "carried (every target)");
		ck_assert_msg(jreal(w, "wall_ns") >= 200e6 && jreal(w, "wall_ns") <= 208e6,
			      "%s: whole run %g ns",
			      json_string_value(json_object_get(p, "target")), jreal(w, "wall_ns"));
	}
	ck_assert_uint_eq(n_whole, json_array_size(json_object_get(r->json, "projections")));
}

/*
 * 1,100 launches of K1 (10000) after the warm-up, on the
 * legacy stream (`sync_at_end`: one device synchronise at the end; its
 * epoch is cut at 512 calls twice) or on stream 1 of a thread that never
 * synchronises (`producer`). Onto Double every kernel takes half: the
 * replayed part is 1,100 x 5000 = 5.5 ms either way, as with a
 * synchronise every 100 launches; onto FakeA100 the measured 11 ms. Before:
 * `sync_at_end` kept the wait for the cut epochs' work as a latency at the
 * source's time (Double 10.98 ms, a speedup of 1.03 where the same launches
 * synchronised every 100 gave 1.94); `producer` left its GPU work outside
 * any epoch, carried at the source's time (Double 11.36 ms, 1.00x).
 */
static void
check_tl_1100(struct run *r, int thread, int n_patterns)
{
	json_t *tl = json_object_get(r->json, "timeline"), *pats, *src, *dbl;
	size_t i, j;

	ck_assert_ptr_nonnull(tl);
	pats = json_object_get(tl, "patterns");
	/* Besides them, the warm-up's epoch with the profiled launch, reconstructed. */
	ck_assert_int_eq((int)json_array_size(pats), n_patterns + 1);
	ck_assert_ptr_nonnull(pattern_of(tl, true));
	for (i = 0, j = 0; i < json_array_size(pats); i++) {
		json_t *pat = json_array_get(pats, i), *n0;

		if (json_is_true(json_object_get(pat, "reconstructed")))
			continue;
		ck_assert_int_eq(jint(pat, "thread"), thread);
		/* 512 calls, 512, then the rest: the later ones begin with the carried work. */
		n0 = json_array_get(json_object_get(pat, "nodes"), 0);
		ck_assert_int_eq(json_is_true(json_object_get(pat, "cut")),
				 j + 1 < (size_t)n_patterns);
		ck_assert_str_eq(json_string_value(json_object_get(n0, "op")),
				 j ? "carried" : "kernel");
		j++;
	}
	assert_close(jreal(tl, "spill_ns"), 0, "nothing spilled: carried");
	src = json_object_get(projection_for(r, "FakeA100"), "whole_run");
	assert_close(jreal(src, "identity_error"), 0, "identity error");
	/* With the warm-up's reconstructed epoch: K1 and K2 at their one-pass 10 + 20 µs. */
	assert_close(jreal(src, "replayed_ns"), 1100 * 10000.0 + 30000, "replayed onto the source");
	dbl = json_object_get(projection_for(r, "Double"), "whole_run");
	assert_close(jreal(dbl, "replayed_ns"), 1100 * 5000.0 + 15000, "replayed onto Double");
	assert_close(jreal(dbl, "carried_ns"), jreal(src, "carried_ns"), "carried");
	/* The warm-up's kernels (15 µs on Double) ran on thread 0's legacy stream too. */
	assert_close(jreal(dbl, "floor_ns"), 1100 * 5000.0 + (thread == 0 ? 15000 : 0),
		     "one stream's GPU time");
	ck_assert(!json_is_true(json_object_get(dbl, "floored")));
	assert_close(jreal(dbl, "bound_ns"), 0, "no spread");
}

static void
extra_tl_sync_at_end(struct run *r)
{
	check_tl_1100(r, 0, 3);
}

static void
extra_tl_producer(struct run *r)
{
	check_tl_1100(r, 1, 3);
}

#define K(name, launches, profiled, timed, mean) { name, launches, profiled, timed, mean }
#define CALLS(func, n) { func, n, false }
#define CALLS_GE(func, n) { func, n, true }

/* The profile's metrics.<CHIP>.cache_control under CUPTI >= 13.4 and before. */
#define CACHE_ALL "all (the L2 reset before every replay pass: CUPTI >= 13.4)"
#define CACHE_NONE \
	"none (CUPTI < 13.4 has no cache control: replay passes see the L2 earlier passes left)"

/*
 * A row for CUPTI VERSION (shown as SHOWN): its record layout read, every
 * figure as with 13.0; from 13.4 the range profiler resets the L2 before
 * every pass (cacheControlMode ALL = 1 in the 13.4 Enable struct), before
 * it sends 13.0's struct (mode 0 as the double counts it).
 */
#define RECORDS_ROW(NAME, VERSION, SHOWN, MODE, OTHER, CACHE)                                             \
	{                                                                                          \
		.name = NAME,                                                                      \
		.cmds = CMDS("cupti-version " VERSION, METRICS, "init", "ctx 0",                  \
			     "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000",                  \
			     "launch ex 1 _Z7clusterPf " K_DIMS " 0 1000 cluster=2,1,1"),         \
		.lines = LINES("[gpuproj] gpuproj {version} (CUPTI " SHOWN " (API " VERSION       \
			       ")): timing every kernel launch, profiling the first 1 launch of " \
			       "each kernel signature; report at exit: {out}",                    \
			       LINE_DEV, "@wrote:2|4|2"),                                         \
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },                                            \
		.calls = { CALLS("cacheControlMode=" MODE, 2),                                     \
			   CALLS("cacheControlMode=" OTHER, 0) },                                  \
		.attrs = { { "metrics.GA100.cache_control", CACHE } },                             \
		.extra = extra_gpu_drained,                                                        \
	}

static const struct scenario scenarios[] = {
	{
		/*
		 * First-N profiling then timing only, every launch path: the first
		 * launch of each signature is profiled (metrics, excluded from
		 * timing: its three replay records are ignored), every other launch
		 * is timed; graph kernels and cooperative launches are timed, never
		 * profiled. Projections onto Double halve every time.
		 */
		.name = "first_n_then_timing",
		.cmds = CMDS(METRICS, "init", "ctx 0", "stdout app output",
			     "repeat 5 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "repeat 3 launch drv 1 " COPY " " K_DIMS " 0 2000 regs=40 static=1024",
			     "repeat 2 launch rt-ex 1 _Z2exv " K_DIMS " 128 3000",
			     "repeat 2 launch ex 1 _Z3exdv " K_DIMS " 0 4000",
			     "repeat 2 launch rt-legacy 1 _Z3legv " K_DIMS " 0 5000",
			     "repeat 2 launch coop 1 _Z4coopv " K_DIMS " 0 6000",
			     "repeat 2 launch rt-coop 1 _Z5rcoopv " K_DIMS " 0 7000",
			     "repeat 2 launch drv-ptsz 1 _Z4ptszv " K_DIMS " 0 8000",
			     "graph 1 _Z6graphkv " K_DIMS " 0 500 4",
			     "flush", "launch rt 1 " SAXPY " 500,1,1 256,1,1 0 600"),
		.out = "app output\n",
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:10|25|7"),
		/* Profiled launches: 7 signatures, each Start/Stop/Decode once. */
		.calls = { CALLS("cuptiRangeProfilerStart", 7),
			   CALLS("cuptiRangeProfilerDecodeData", 7),
			   CALLS("cuptiUnsubscribe", 1) },
		.extra = extra_first_n,
	},
	{
		/* A launch that does not execute has no range: not counted, the next one is profiled. */
		.name = "ranges_zero_not_counted",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "launch drv 1 " SAXPY " " K_DIMS " 0 1000 noexec",
			     "repeat 3 launch drv 1 " SAXPY " " K_DIMS " 0 1000",
			     "ranges 2", "launch drv 1 " COPY " " K_DIMS " 0 2000",
			     "repeat 2 launch drv 1 " COPY " " K_DIMS " 0 2000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:2|6|2"),
		/*
		 * noexec: no record, no count; then launch 2 profiled, 3 and 4 timed.
		 * Two ranges (another kernel inside the window): counted untimed, retried.
		 */
		.kernels = { K(SAXPY, 3, 1, 2, 1000), K(COPY, 3, 1, 1, 2000) },
		.calls = { CALLS("cuptiRangeProfilerStart", 4) },
	},
	{
		/*
		 * A window whose only range was dropped (numTotalRanges 0,
		 * numOfRangeDropped 1) is discarded like one with two ranges, without
		 * evaluating a range that is not in the image and without counting
		 * as a profiler failure: three discarded windows (counted, untimed),
		 * the fourth profiled, the fifth timed.
		 */
		.name = "dropped_range_discarded",
		.cmds = CMDS(METRICS, "init", "ctx 0", "dropped-ranges 3",
			     "repeat 5 launch drv 1 " COPY " " K_DIMS " 0 2000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|5|1"),
		.kernels = { K(COPY, 5, 1, 1, 2000) },
		.calls = { CALLS("cuptiRangeProfilerStart", 4) },
	},
	{
		/*
		 * A signature whose launches never execute: every window fails, but
		 * only 8 are opened (each leaves a profiled-launch entry: memory
		 * stays bounded by signatures, not launches); the other signatures
		 * are unaffected.
		 */
		.name = "failed_windows_bounded",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "repeat 50 launch drv 1 " SAXPY " " K_DIMS " 0 1000 noexec",
			     "repeat 2 launch drv 1 " COPY " " K_DIMS " 0 2000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(COPY, 2, 1, 1, 2000) },
		.calls = { CALLS("cuptiRangeProfilerStart", 8 + 1) },
	},
	{
		/* No permission for counters: one line naming the driver option; timing goes on. */
		.name = "permission_denied",
		.cmds = CMDS(METRICS, "fail cuptiProfilerGetCounterAvailability 35", "init", "ctx 0",
			     "repeat 4 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "exit 3"),
		.status = 3,
		.lines = LINES(LINE_INIT,
			       "[gpuproj] no permission to read GPU performance counters "
			       "(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES from "
			       "cuptiProfilerGetCounterAvailability); profiling needs root or the "
			       "nvidia driver option NVreg_RestrictProfilingToAdminUsers=0 "
			       "(https://developer.nvidia.com/ERR_NVGPUCTRPERM): metrics off, every "
			       "launch is still timed (the profile will have durations; kernels "
			       "without counters are projected by the envelope, binding unknown)",
			       "@wrote:1|4|0"),
		.kernels = { K(SAXPY, 4, 0, 4, 1000) },
		.calls = { CALLS("cuptiRangeProfilerEnable", 0) },
		.extra = extra_permission,
	},
	{
		/* Another profiler attached: gpuproj is off, says so once, changes nothing. */
		.name = "multiple_subscribers",
		.cmds = CMDS("fail cuptiSubscribe 39", "init", "ctx 0", "stdout unchanged",
			     "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "exit 7"),
		.status = 7,
		.out = "unchanged\n",
		.lines = LINES("[gpuproj] another CUPTI client is attached to this process (Nsight "
			       "Systems or Compute, compute-sanitizer, cuda-gdb, or a framework's "
			       "profiler; CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): gpuproj is "
			       "off, the application runs unchanged; run it without the other tool to "
			       "profile it"),
		.calls = { CALLS("cuptiActivityEnable", 0) },
		.extra = extra_multiple_subscribers,
	},
	{
		/*
		 * The context is destroyed (on another thread) while a launch is
		 * being profiled: the profiler object is released in
		 * CONTEXT_DESTROY_STARTING, the window's metrics are dropped, and a
		 * later context profiles again. 1 aborted (counted, untimed), 1
		 * profiled on context 2, 3 timed.
		 */
		.name = "context_destroyed_mid_profile",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "launch drv 1 " SAXPY " " K_DIMS " 0 1000 destroy-mid", "ctx 0",
			     "repeat 2 launch drv 2 " SAXPY " " K_DIMS " 0 1000", "reset 2", "ctx 0",
			     "repeat 2 launch rt 3 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|5|1"),
		.kernels = { K(SAXPY, 5, 1, 3, 1000) },
		/* cudaDeviceReset flushes the activity buffers first. */
		.calls = { CALLS_GE("cuptiActivityFlushAll", 2) },
		.extra = extra_context_destroyed,
	},
	{
		/* A forked child neither touches CUPTI nor writes the parent's report. */
		.name = "fork_child_silent",
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "fork", "launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
		.extra = extra_fork_child,
	},
	{
		/*
		 * fork() while gpuproj's worker thread is inside
		 * cuptiActivityFlushAll (made 60 ms long): the fork waits until
		 * the flush is over, so the child inherits no lock or allocator
		 * state of that thread. Before: about one fork in two landed in a
		 * flush, and under GCC 12's ASan a child that exited there could
		 * deadlock in the leak check (CI, scenario fork_child_silent).
		 */
		.name = "fork_waits_for_flush",
		.env = ENV("FAKE_FLUSH_DELAY_MS=60"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "fork", "sleep 37", "fork", "sleep 37", "fork", "sleep 37", "fork",
			     "sleep 37", "fork", "sleep 37", "fork", "sleep 37", "fork", "sleep 37",
			     "fork"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|1|1"),
		.kernels = { K(SAXPY, 1, 1, 1, 1000) },
		.extra = extra_fork_waits_for_flush,
	},
	{
		/*
		 * Two threads fork at once, 300 times each, while flushes take 50 ms:
		 * each fork releases only the worker lock its own thread took (the
		 * children _exit at once: under GCC 12's ASan a child that exits
		 * normally can inherit the other forking thread's allocator lock).
		 * Before (one flag for the process): the second forker's parent
		 * handler saw the first one's cleared flag, the lock stayed held,
		 * the worker blocked on it and exit waited for the worker forever
		 * (HANG, the test's timeout).
		 */
		.name = "fork_two_threads_at_once",
		.env = ENV("FAKE_FLUSH_DELAY_MS=50"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "par repeat 300 fork-exit | repeat 300 fork-exit",
			     "launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
	},
	{
		/*
		 * Threads launching concurrently: exact counts, one profiled launch
		 * per signature. `launch rt` is CUDA 13's __cudaLaunchKernel (no
		 * parameters): until the first nested driver callback has been
		 * seen, a thread decides at the runtime level by name, so a thread
		 * that started in that instant may open a window that its driver
		 * level cancels (the signature already had its launch) before the
		 * kernel runs: cuptiRangeProfilerStart at least 3, every completed
		 * window (DecodeData) exactly one per signature.
		 */
		.name = "threads_concurrent",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "threads 4 300 launch rt 1 _Z6sharedv " K_DIMS " 0 1000",
			     "threads 2 200 launch drv 1 _Z3ownILi%tEEvv " K_DIMS " 0 2000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:3|1600|3"),
		.kernels = { K("_Z6sharedv", 1200, 1, 1199, 1000),
			     K("_Z3ownILi0EEvv", 200, 1, 199, 2000),
			     K("_Z3ownILi1EEvv", 200, 1, 199, 2000) },
		.calls = { CALLS_GE("cuptiRangeProfilerStart", 3),
			   CALLS("cuptiRangeProfilerDecodeData", 3) },
	},
	{
		/* GB202 spells the DRAM directions differently: the second candidate is used. */
		.name = "gb202_metric_fallback",
		.cmds = CMDS("device 0 \"Fake RTX 5090\" GB202 12.0 170 2000000", METRICS,
			     "metric dram__bytes_op_read.sum 6", "metric dram__bytes_op_write.sum 2",
			     "metric dram__bytes_read.sum 1000", "init", "ctx 0",
			     "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, "@device:Fake RTX 5090|GB202|12.0|170|50|4", "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
		.extra = extra_gb202,
	},
	{
		/* Dropped activity records are counted, reported, and said. */
		.name = "dropped_records",
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "drop 5", "repeat 10 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|7|1",
			       "[gpuproj] CUPTI dropped 5 activity records (buffers full): those "
			       "launches are missing from the counts and times"),
		.kernels = { K(SAXPY, 7, 1, 6, 1000) },
		.extra = extra_dropped_records,
	},
	{
		/* Bad GPUPROJ_* values: one line each naming the variable and the default kept. */
		.name = "bad_environment",
		.env = ENV("GPUPROJ_PROFILE_LAUNCHES=abc", "GPUPROJ_MODE=fast", "GPUPROJ_LIVE=-1",
			   "GPUPROJ_KERNEL_REGEX=(", "GPUPROJ_OUTPUT=prof-%z.json",
			   "GPUPROJ_SIGNALS=maybe", "GPUPROJ_PRELOAD=2", "GPUPROJ_MOD=timing",
			   "GPUPROJ_LOG=loud", "GPUPROJ_TENSOR=flops"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.extra = extra_bad_environment,
	},
	{
		/* A tensor kernel on GA100: the operation counters. */
		.name = "tensor_ga100",
		.cmds = CMDS(METRICS, "metric sm__ops_path_tensor_src_fp16_dst_fp32.sum 4096",
			     "metric sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_on.sum 1024",
			     "metric sm__ops_path_tensor_src_bf16_dst_fp32.sum 2048",
			     "metric sm__ops_path_tensor_src_int8.sum 512",
			     "metric sm__ops_path_tensor_src_fp64.sum 64",
			     "metric sm__ops_path_tensor_src_fp8.sum 999",
			     "metric sm__inst_executed_pipe_tensor.sum 1",
			     "metric sm__pipe_tensor_cycles_active.avg."
			     "pct_of_peak_sustained_active 40",
			     "init", "ctx 0", TENSOR_LAUNCHES),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.extra = extra_tensor_ga100,
	},
	{
		.name = "tensor_gh100",
		.cmds = CMDS("device 0 \"Fake H100\" GH100 9.0 132 1755000", METRICS,
			     "metric sm__ops_path_tensor_src_fp16.sum 8192",
			     "metric sm__ops_path_tensor_src_fp16_dst_fp16.sum 999",
			     "metric sm__ops_path_tensor_src_fp8.sum 100",
			     "metric sm__ops_path_tensor_src_fp8_sparsity_on.sum 50",
			     "init", "ctx 0", TENSOR_LAUNCHES),
		.extra = extra_tensor_gh100,
	},
	{
		.name = "tensor_tu116_falls_back_to_inst",
		.cmds = CMDS("device 0 \"Fake GTX 1660\" TU116 7.5 22 1785000", METRICS,
			     "metric sm__inst_executed_pipe_tensor_op_hmma.sum 3",
			     "metric sm__inst_executed_pipe_tensor_op_imma.sum 1",
			     "init", "ctx 0", TENSOR_LAUNCHES),
		.extra = extra_tensor_tu116,
	},
	{
		.name = "tensor_gb100_inst",
		.env = ENV("GPUPROJ_TENSOR=inst"),
		.cmds = CMDS("device 0 \"Fake B200\" GB100 10.0 148 1965000", METRICS,
			     "metric sm__inst_executed_pipe_tensor_subpipe_hmma.sum 5",
			     "metric sm__inst_executed_pipe_tensor_subpipe_dmma.sum 2",
			     "metric sm__inst_executed_pipe_tensor.sum 7",
			     "init", "ctx 0", TENSOR_LAUNCHES),
		.extra = extra_tensor_gb100_inst,
	},
	{
		/*
		 * CC 7.0: the legacy profiler + NVPW path. No uniform datapath on
		 * GV100: 36 metrics, 40 with the tensor counters (FP16 by
		 * accumulator, instructions, pipe).
		 */
		.name = "legacy_gv100",
		.cmds = CMDS("device 0 \"Fake V100\" GV100 7.0 80 1380000", METRICS, "init", "ctx 0",
			     "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, "@device:Fake V100|GV100|7.0|80|40|3", "@wrote:1|3|1"),
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },
		/* The passes are flushed into the image, as NVIDIA's samples do. */
		.calls = { CALLS("cuptiProfilerBeginSession", 1), CALLS("cuptiRangeProfilerEnable", 0),
			   CALLS("NVPW_MetricsEvaluator_EvaluateToGpuValues", 1),
			   CALLS("cuptiProfilerFlushCounterData", 1) },
		.extra = extra_legacy,
	},
	{
		/*
		 * A CUPTI without the legacy profiler API (deprecated in CUDA 13.0
		 * "and will be removed"): nothing changes on CC >= 7.5, which uses
		 * the range profiler. Before: "libcupti.so.13 lacks
		 * cuptiProfilerCounterDataImageCalculateSize": gpuproj off, not even
		 * timing.
		 */
		.name = "no_legacy_profiler_cc80",
		.env = ENV(INJECT_NO_LEGACY_PROFILER),
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|3|1"),
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },
		.calls = { CALLS("cuptiRangeProfilerEnable", 1) },
	},
	{
		/* ... and on CC 7.0, which needs it: timing only there, one line saying why. */
		.name = "no_legacy_profiler_gv100",
		.env = ENV(INJECT_NO_LEGACY_PROFILER),
		.cmds = CMDS("device 0 \"Fake V100\" GV100 7.0 80 1380000", METRICS, "init", "ctx 0",
			     "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT,
			       "[gpuproj] device 0 (Fake V100): this libcupti.so.13 lacks "
			       "cuptiProfilerCounterDataImageCalculateSize of the legacy profiler API, "
			       "which CC 7.0 needs (deprecated since CUDA 13.0; a CUDA 13.0-13.5 CUPTI "
			       "has it): metrics off on this device, every launch is still timed",
			       "@wrote:1|3|0"),
		.kernels = { K(SAXPY, 3, 0, 3, 1000) },
		.calls = { CALLS("cuptiRangeProfilerEnable", 0) },
	},
	{
		/*
		 * GPUPROJ_MODE=timing: no profiler, every launch timed. Subscribed:
		 * cudaDeviceReset, cuCtxDestroy, cuDevicePrimaryCtxReset (records
		 * are delivered before a context goes), contexts, the fatal-error
		 * state, the 20 launch callbacks of the runtime and the driver,
		 * which only count launches (a second CUPTI client taking the
		 * records is noticed from them), and the 20 allocation and free
		 * callbacks (the run's peak device memory).
		 */
		.name = "timing_mode",
		.env = ENV("GPUPROJ_MODE=timing"),
		.cmds = CMDS("init", "ctx 0", "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES("[gpuproj] gpuproj {version} (CUPTI 13.0 (API 130001)): timing every "
			       "kernel launch, no metrics (GPUPROJ_MODE=timing); report at exit: {out}",
			       "@wrote:1|3|0"),
		.kernels = { K(SAXPY, 3, 0, 3, 1000) },
		.calls = { CALLS("cuptiProfilerInitialize", 0), CALLS("cuptiEnableCallback", 46) },
		.attrs = { { "mode", "timing" } },
	},
	{
		/*
		 * The run's peak device memory from the allocation
		 * callbacks: runtime calls with their nested driver calls counted
		 * once, a driver-only call, a pitched one (its pitch returned), a
		 * failed one not at all, async frees (extra_peak_memory() works
		 * out the figure).
		 */
		.name = "peak_memory",
		.cmds = CMDS(METRICS, "init", "ctx 0", "alloc 1 1 1073741824",
			     "alloc 1 2 536870912",
			     "launch rt 1 " SAXPY " " K_DIMS " 0 1000", "free 1 1",
			     "alloc 1 3 268435456 drv", "alloc 1 4 1000 pitch",
			     "alloc 1 6 68719476736 fail", "sync 1", "free 1 2", "free 1 3 async",
			     "free 1 4 drv", "alloc 1 5 805306368 async", "free 1 6"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|1|1"),
		.kernels = { K(SAXPY, 1, 1, 1, 1000) },
		.extra = extra_peak_memory,
	},
	{
		/*
		 * In timing mode too; 39 GiB live at once (41875931136 B) on the
		 * double's 40 GiB A100: the profile loads back with the figure.
		 */
		.name = "peak_memory_timing",
		.env = ENV("GPUPROJ_MODE=timing"),
		.cmds = CMDS("init", "ctx 0", "alloc 1 1 40802189312", "alloc 1 2 1073741824",
			     "launch rt 1 " SAXPY " " K_DIMS " 0 1000", "free 1 2", "free 1 1"),
		.lines = LINES("[gpuproj] gpuproj {version} (CUPTI 13.0 (API 130001)): timing every "
			       "kernel launch, no metrics (GPUPROJ_MODE=timing); report at exit: {out}",
			       "@wrote:1|1|0"),
		.kernels = { K(SAXPY, 1, 0, 1, 1000) },
		.extra = extra_peak_memory_report,
	},
	{
		/* A run that allocates nothing: 0 B, known (the callbacks were on). */
		.name = "peak_memory_none",
		.env = ENV("GPUPROJ_MODE=timing"),
		.cmds = CMDS("init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES("[gpuproj] gpuproj {version} (CUPTI 13.0 (API 130001)): timing every "
			       "kernel launch, no metrics (GPUPROJ_MODE=timing); report at exit: {out}",
			       "@wrote:1|1|0"),
		.extra = extra_peak_zero,
	},
	{
		/* GPUPROJ_KERNEL_REGEX limits profiling; GPUPROJ_PROFILE_LAUNCHES=2 profiles two. */
		.name = "kernel_regex_and_n",
		.env = ENV("GPUPROJ_KERNEL_REGEX=saxpy|nothing", "GPUPROJ_PROFILE_LAUNCHES=2"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 4 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "repeat 4 launch rt 1 " COPY " " K_DIMS " 0 2000"),
		.lines = LINES("[gpuproj] gpuproj {version} (CUPTI 13.0 (API 130001)): timing every "
			       "kernel launch, profiling the first 2 launches of each kernel signature "
			       "matching saxpy|nothing; report at exit: {out}",
			       "[gpuproj] device 0: Fake A100 (GA100, CC 8.0, 100 SMs): 50 "
			       "metrics in 4 passes; the first 2 launches of each kernel signature "
			       "run 4 times under kernel replay",
			       "@wrote:2|8|2"),
		.kernels = { K(SAXPY, 4, 2, 2, 1000), K(COPY, 4, 0, 4, 2000) },
		.attrs = { { "kernel_regex", "saxpy|nothing" } },
	},
	{
		/* A source GPU missing from targets.yaml: profile written, one line on what to do. */
		.name = "source_not_in_targets",
		.cmds = CMDS("device 0 \"Mystery GPU\" GA100 8.0 108 1410000", METRICS, "init", "ctx 0",
			     "launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, "@device:Mystery GPU|GA100|8.0|108|50|4",
			       LINE_NOT_IN_TARGETS("Mystery GPU", "8.0"), "@wrote:1|1|1"),
		.kernels = { K(SAXPY, 1, 1, 1, 1000) }, /* timed by the profiler */
		.extra = extra_not_in_targets,
	},
	{
		/* A source GPU missing from the built-in targets.yaml: a provisional entry. */
		.name = "source_derived_from_device_attributes",
		.env = ENV("-GPUPROJ_TARGETS"),
		.cmds = CMDS("device 0 \"NVIDIA RTX A5000\" GA102 8.6 64 1695000 mem_khz=8001000 "
			     "bus=384 l2=6291456 mem_mib=24564 power_w=230", METRICS, "init", "ctx 0",
			     "launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.kernels = { K(SAXPY, 1, 1, 1, 1000) },
		.extra = extra_derived_source,
	},
	{
		/* NVML's SM clock sampled while kernels ran: device.sm_clock. */
		.name = "nvml_sm_clock",
		.cmds = CMDS("device 0 \"Fake A100\" GA100 8.0 108 1410000 nvml_sm_mhz=1275 "
			     "nvml_reasons=4", METRICS,
			     "metric sm__cycles_elapsed.avg.per_second 1350000000", "init", "ctx 0",
			     "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "flush",
			     "sleep 400",
			     "launch rt 1 " SAXPY " " K_DIMS " 0 1000", "flush", "sleep 400"),
		.kernels = { K(SAXPY, 4, 1, 3, 1000) },
		.extra = extra_sm_clock,
	},
	{
		/* The same with NVML calling the GPU idle: nothing sampled. */
		.name = "nvml_sm_clock_idle",
		.cmds = CMDS("device 0 \"Fake A100\" GA100 8.0 108 1410000 nvml_sm_mhz=210 "
			     "nvml_reasons=1", METRICS, "init", "ctx 0",
			     "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "flush",
			     "sleep 400"),
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },
		.extra = extra_sm_clock_idle,
	},
	{
		/* GPUPROJ_SIGNALS=1: SIGTERM writes the report, then the process dies of SIGTERM. */
		.name = "sigterm_report",
		.env = ENV("GPUPROJ_SIGNALS=1"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "signal TERM"),
		.signal = 15,
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
		.attrs = { { "report", "signal SIGTERM" } },
	},
	{
		/* Without GPUPROJ_SIGNALS a signal kills the process as usual; no report. */
		.name = "sigterm_default",
		.cmds = CMDS("init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000", "signal TERM"),
		.signal = 15,
		.extra = extra_no_report,
	},
	{
		/*
		 * GPUPROJ_SIGNALS=1 and fork: the child inherits gpuproj's handler
		 * but not its worker thread; SIGTERM and SIGINT must still kill the
		 * child (fake-app exits 5 when one is swallowed), and the parent
		 * reports as usual.
		 */
		.name = "sigterm_fork_child",
		.env = ENV("GPUPROJ_SIGNALS=1"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "fork-signal TERM", "fork-signal INT",
			     "launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
		.attrs = { { "report", "exit" } },
	},
	{
		/*
		 * stderr is a pipe whose reader is gone: gpuproj's lines raise no
		 * SIGPIPE (the application, which writes nothing there, would not
		 * have died), and the report is still written.
		 */
		.name = "stderr_broken_pipe",
		.cmds = CMDS(METRICS, "stderr-broken", "init", "ctx 0", "stdout hello",
			     "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.out = "hello\n",
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
		.extra = extra_stderr_broken,
	},
	{
		/* Live projection: a status line per period and a snapshot JSON. */
		.name = "live_projection",
		.env = ENV("GPUPROJ_LIVE=0.1"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "flush", "sleep 500"),
		.extra = extra_live,
	},
	{
		/* GPUPROJ_KEEP_CUBINS=1 keeps each module's bytes beside the report. */
		.name = "keep_cubins",
		.env = ENV("GPUPROJ_KEEP_CUBINS=1"),
		.cmds = CMDS("init", "ctx 0", "module 1 7 1000", "module 1 7 1000",
			     "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|1|1"),
		.extra = extra_keep_cubins,
	},
	{
		/* MPI rank in the output name (%r), and in the profile. */
		.name = "mpi_rank",
		.env = ENV("OMPI_COMM_WORLD_RANK=3", "GPUPROJ_OUTPUT=prof-%r-%q{MYTAG}-%h%%.json",
			   "MYTAG=x"),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.extra = extra_mpi_rank,
	},
	{
		/* With a rank and neither %r nor %p in the pattern, the rank goes before the extension. */
		.name = "mpi_rank_inserted",
		.env = ENV("SLURM_PROCID=2"),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.extra = extra_mpi_rank_inserted,
	},
	{
		/*
		 * RANK=abc. Before: skipped without a word, so %r named the
		 * file as rank 0 and the profile had no rank.
		 */
		.name = "mpi_rank_invalid",
		.env = ENV("RANK=abc"),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES("[gpuproj] RANK='abc' is not an MPI rank (an integer from 0): "
			       "ignored",
			       LINE_INIT, LINE_DEV, "@wrote:1|1|1"),
		.extra = extra_mpi_rank_invalid,
	},
	{
		/* ... and the next variable is used: Slurm's task number. */
		.name = "mpi_rank_invalid_then_slurm",
		.env = ENV("PMI_RANK=-1", "SLURM_PROCID=2"),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES("[gpuproj] PMI_RANK='-1' is not an MPI rank (an integer from 0): "
			       "ignored",
			       "[gpuproj] gpuproj {version} (CUPTI 13.0 (API 130001)): timing "
			       "every kernel launch, profiling the first 1 launch of each kernel "
			       "signature; report at exit: {dir}/out.2.json", LINE_DEV,
			       "[gpuproj] wrote {dir}/out.2.json (1 kernel signature, 1 launch, 1 "
			       "profiled)"),
		.extra = extra_mpi_rank_invalid_next,
	},
	{
		/* A pattern that only expands to "-" falls back to the default name, never stdout. */
		.name = "output_expands_to_dash",
		.env = ENV("GPUPROJ_OUTPUT=%q{OUTDASH}", "OUTDASH=-"),
		.cmds = CMDS("init", "ctx 0", "stdout hello", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.out = "hello\n",
		.extra = extra_output_dash,
	},
	{
		/* ... and one that expands to nothing, too. */
		.name = "output_expands_to_empty",
		.env = ENV("GPUPROJ_OUTPUT=%q{OUTDASH}", "-OUTDASH"),
		.cmds = CMDS("init", "ctx 0", "stdout hello", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.out = "hello\n",
		.extra = extra_output_empty,
	},
	{
		/* A device without profiler support (CC 6.0): timing only there. */
		.name = "unsupported_device",
		.cmds = CMDS("device 0 \"Fake P100\" GP100 6.0 56 1300000", "init", "ctx 0",
			     "repeat 2 launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT,
			       "[gpuproj] device 0 (Fake P100): compute capability 6.0 has no CUPTI "
			       "profiler (needs >= 7.0): metrics off on this device, every launch is "
			       "still timed",
			       LINE_NOT_IN_TARGETS("Fake P100", "6.0"), "@wrote:1|2|0"),
		.kernels = { K(SAXPY, 2, 0, 2, 1000) },
		.extra = extra_unsupported_device,
	},
	{
		/* A CUPTI fatal error stops collection; what was collected is still written. */
		.name = "fatal_error",
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "flush", "fatal device lost", "launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] CUPTI reported a fatal error (CUPTI_ERROR_UNKNOWN: device "
			       "lost): collection stopped; what was collected so far is written at exit",
			       "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
	},
	{
		/* Launches during stream capture are never profiled (a context sync would break it). */
		.name = "stream_capture",
		.cmds = CMDS(METRICS, "init", "ctx 0", "capture-begin",
			     "launch rt 1 " SAXPY " " K_DIMS " 0 1000 noexec", "capture-end",
			     "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
		.calls = { CALLS("cuptiRangeProfilerStart", 1) },
	},
	{
		/*
		 * Runtime launches without a nested driver callback (CUDA 13's
		 * __cudaLaunchKernel carries no dimensions): gated by name; and a
		 * NULL context at the runtime ENTER is skipped, the next launch
		 * profiled.
		 */
		.name = "runtime_only_and_null_context",
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch rt 1 " COPY " " K_DIMS " 0 2000 ctxnull",
			     "repeat 2 launch rt 1 " COPY " " K_DIMS " 0 2000",
			     "repeat 3 launch rt-only 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:2|6|2"),
		.kernels = { K(COPY, 3, 1, 2, 2000), K(SAXPY, 3, 1, 2, 1000) },
	},
	{
		/* The test double itself catches misuse: four broken rules, four violations. */
		.name = "double_catches_misuse",
		.env = ENV("-CUDA_INJECTION64_PATH"),
		.cmds = CMDS("ctx 0", "selftest"),
		.skip_violations = true,
		.extra = extra_double_misuse,
	},
	{
		/* Two devices: each says what it collects; the chip is set up once. */
		.name = "two_devices",
		.cmds = CMDS("device 1 \"Fake A100\" GA100 8.0 100 1410000", METRICS, "init",
			     "ctx 0", "ctx 1", "repeat 2 launch drv 1 " SAXPY " " K_DIMS " 0 1000",
			     "repeat 2 launch drv 2 " SAXPY " " K_DIMS " 0 1500"),
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] device 1: Fake A100 (GA100, CC 8.0, 100 SMs): 50 "
			       "metrics in 4 passes; the first 1 launch of each kernel signature "
			       "runs 4 times under kernel replay",
			       "@wrote:2|4|2"),
		/* One chip set-up serves both devices; the second device is described too. */
		.calls = { CALLS("cuptiProfilerHostGetConfigImage", 1),
			   CALLS("cuptiRangeProfilerStart", 2) },
		.extra = extra_two_devices,
	},
	{
		/*
		 * Two devices of one chip, one thread each (8 GPUs of a node, one
		 * thread per GPU): both contexts' windows close at once and
		 * evaluate on the chip's one host object, which callers must
		 * serialise (cupti-host.h). The double keeps each evaluation
		 * 30 ms and counts a second thread inside as a violation. Before
		 * the per-chip lock: "a host object evaluated by two threads at
		 * once".
		 */
		.name = "two_devices_one_chip_two_threads",
		.env = ENV("FAKE_EVAL_HOLD_MS=30"),
		.cmds = CMDS("device 1 \"Fake A100\" GA100 8.0 100 1410000", METRICS, "init",
			     "ctx 0", "ctx 1",
			     "par launch drv 1 _Z2k1v " K_DIMS " 0 1000 ; launch drv 1 _Z2k2v " K_DIMS
			     " 0 1000 ; launch drv 1 _Z2k3v " K_DIMS " 0 1000 | launch drv 2 _Z2k1v "
			     K_DIMS " 0 1000 ; launch drv 2 _Z2k2v " K_DIMS " 0 1000 ; launch drv 2 "
			     "_Z2k3v " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] device 1: Fake A100 (GA100, CC 8.0, 100 SMs): 50 "
			       "metrics in 4 passes; the first 1 launch of each kernel signature "
			       "runs 4 times under kernel replay",
			       "@wrote:6|6|6"),
		.calls = { CALLS("cuptiProfilerHostEvaluateToGpuValues", 6) },
	},
	{
		/*
		 * libcudart loads libcuda.so.1 RTLD_LOCAL, so the
		 * driver's functions are not in the global scope; gpuproj takes
		 * them from libcuda.so.1 itself (before: device name "", CC 0.0,
		 * 0 SMs, no projection). Likewise the demangler, here from a
		 * libstdc++ loaded RTLD_LOCAL.
		 */
		.name = "driver_and_cxx_runtime_out_of_global_scope",
		.cmds = CMDS(METRICS, "load-cxx", "init", "ctx 0",
			     "launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|1|1"),
		.kernels = { K(SAXPY, 1, 1, 1, 1000) },
		.extra = extra_local_scopes,
	},
	{
		/*
		 * The double runs kernels asynchronously: A (stream 1) spins until B,
		 * launched after it on stream 2, sets a flag; the run finishes, both
		 * are timed, A ends after B.
		 */
		.name = "kernel_waits_for_later_launch_timing",
		.env = ENV("GPUPROJ_MODE=timing"),
		.cmds = CMDS("init", "ctx 0",
			     "launch drv 1 _Z8consumerPVi " K_DIMS " 0 1000 stream=1 waits=1",
			     "launch drv 1 _Z8producerPVi " K_DIMS " 0 2000 stream=2 sets=1"),
		.kernels = { K("_Z8consumerPVi", 1, 0, 1, 1000), K("_Z8producerPVi", 1, 0, 1, 2000) },
		.extra = extra_gpu_drained,
	},
	{
		/*
		 * Kernels still running at exit keep their records:
		 * gpuproj synchronises every live context before the final flush
		 * (before: 1 launch, the profiled one).
		 */
		.name = "exit_with_kernels_in_flight",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "repeat 3 launch drv 1 " SAXPY " " K_DIMS " 0 1000 inflight"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|3|1"),
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },
		.calls = { CALLS_GE("cuCtxSynchronize", 1) },
		.extra = extra_gpu_drained,
	},
	{
		/*
		 * LULESH's pattern: cudaDeviceReset() with kernels in
		 * flight, then exit. gpuproj synchronises the context and flushes in
		 * the reset's ENTER callback, while the context exists (before: the
		 * unsynchronised flush missed them and they went with the context).
		 */
		.name = "reset_with_kernels_in_flight",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "repeat 3 launch drv 1 " SAXPY " " K_DIMS " 0 1000 inflight", "reset 1"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|3|1"),
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },
		.extra = extra_gpu_drained,
	},
	{
		/*
		 * cuCtxDestroy of a context whose finished kernels' records
		 * CUPTI has not collected yet: gpuproj flushes in cuCtxDestroy's ENTER
		 * callback (before: they were lost with the context).
		 */
		.name = "destroy_with_uncollected_records",
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 3 launch drv 1 " COPY " " K_DIMS " 0 2000",
			     "destroy 1"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|3|1"),
		.kernels = { K(COPY, 3, 1, 2, 2000) },
		.extra = extra_gpu_drained,
	},
	{
		/*
		 * An ncclDevKernel_AllReduce_Sum_f32_RING_LL kernel (stream 1) spins
		 * until a kernel launched after it on stream 2 sets a flag (it may
		 * wait for a later launch). NCCL's kernels are never profiled,
		 * nor is a launch while another stream has pending work that could be
		 * its producer; after a synchronisation the producer is profiled.
		 * Before: the ncclDevKernel_AllReduce_Sum_f32_RING_LL kernel was profiled, kernel replay waited for the
		 * flag forever (the double's HANG, exit 124).
		 */
		.name = "hang_nccl_waits_for_later_launch",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "launch drv 1 ncclDevKernel_AllReduce_Sum_f32_RING_LL " K_DIMS " 0 5000 stream=1 waits=1",
			     "launch drv 1 _Z8producerPVi " K_DIMS " 0 2000 stream=2 sets=1",
			     "sync 1", "launch drv 1 _Z8producerPVi " K_DIMS " 0 2000 stream=2"),
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] ncclDevKernel_AllReduce_Sum_f32_RING_LL and NCCL's other kernels are never profiled (they "
			       "wait for other GPUs and ranks, and would hang under kernel replay); "
			       "they are timed",
			       "@wrote:2|3|1"),
		.kernels = { K("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1, 0, 1, 5000), K("_Z8producerPVi", 2, 1, 1, 2000) },
		.extra = extra_gpu_drained,
	},
	{
		/* The same with a kernel of the application's, excluded by GPUPROJ_KERNEL_EXCLUDE. */
		.name = "hang_excluded_by_name",
		.env = ENV("GPUPROJ_KERNEL_EXCLUDE=consumer"),
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "launch drv 1 _Z8consumerPVi " K_DIMS " 0 5000 stream=1 waits=1",
			     "launch drv 1 _Z8producerPVi " K_DIMS " 0 2000 stream=2 sets=1"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:2|2|0"),
		.kernels = { K("_Z8consumerPVi", 1, 0, 1, 5000), K("_Z8producerPVi", 1, 0, 1, 2000) },
		.extra = extra_gpu_drained,
	},
	{
		/* A cooperative launch waiting for a later launch: never profiled. */
		.name = "hang_cooperative",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "launch coop 1 _Z4gridPVi " K_DIMS " 0 5000 stream=1 waits=2",
			     "launch drv 1 _Z8producerPVi " K_DIMS " 0 2000 stream=2 sets=2"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:2|2|0"),
		.kernels = { K("_Z4gridPVi", 1, 0, 1, 5000), K("_Z8producerPVi", 1, 0, 1, 2000) },
		.extra = extra_gpu_drained,
	},
	{
		/*
		 * A stream waits for a value the host writes later
		 * (cuStreamWaitValue32): a kernel launched behind it is not
		 * profiled; after a synchronisation it is. Before: kernel replay
		 * drained the context, i.e. waited for the host, which was waiting
		 * for the launch to return (HANG).
		 */
		.name = "hang_stream_wait_value",
		.cmds = CMDS(METRICS, "init", "ctx 0", "wait-value 1 1 5",
			     "launch drv 1 " SAXPY " " K_DIMS " 0 1000 stream=1", "host-write 5",
			     "sync 1", "launch drv 1 " SAXPY " " K_DIMS " 0 1000 stream=1"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
		.extra = extra_gpu_drained,
	},
	{
		/*
		 * A profiled kernel on device 0 waits for a kernel another thread
		 * launches on device 1 (a peer GPU). Windows lock one context, not
		 * the process: the other launch (profiled itself, on its own
		 * context) is not held up. Before: one process-wide lock parked it
		 * behind the window that waited for it (HANG).
		 */
		.name = "hang_peer_device_other_thread",
		.cmds = CMDS("device 1 \"Fake A100\" GA100 8.0 100 1410000", METRICS, "init",
			     "ctx 0", "ctx 1",
			     "par launch drv 1 _Z4peerPVi " K_DIMS " 0 1000 waits=3 | sleep 200 ; "
			     "launch drv 2 _Z6signalPVi " K_DIMS " 0 1000 sets=3"),
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] device 1: Fake A100 (GA100, CC 8.0, 100 SMs): 50 "
			       "metrics in 4 passes; the first 1 launch of each kernel signature "
			       "runs 4 times under kernel replay",
			       "@wrote:2|2|2"),
		.kernels = { K("_Z4peerPVi", 1, 1, 1, 1000), K("_Z6signalPVi", 1, 1, 1, 1000) },
		.extra = extra_gpu_drained,
	},
	{
		/*
		 * A profiled kernel waits for a flag the host writes after another
		 * thread's launch on the same context; that launch waits for the
		 * window. The wait is bounded (GPUPROJ_WAIT): past it, metrics stop
		 * on the device, one line, and the run finishes (the late launch ran
		 * inside the window, which is discarded). Before: the launch waited
		 * forever for the window, which waited forever for the host (HANG).
		 */
		.name = "hang_bounded_window_wait",
		.env = ENV("GPUPROJ_WAIT=0.3"),
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "par launch drv 1 _Z4pollPVi " K_DIMS " 0 1000 waits=4 | sleep 200 ; "
			     "launch drv 1 " COPY " " K_DIMS " 0 2000 ; host-write 4",
			     "launch drv 1 _Z4pollPVi " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] device 0 (Fake A100): a launch waited 0.3 s (GPUPROJ_WAIT) "
			       "for another thread's profiled launch, which may be waiting for it: "
			       "metrics off on this device, every launch is still timed",
			       "@wrote:2|3|0"),
		.kernels = { K("_Z4pollPVi", 2, 0, 1, 1000) },
		.extra = extra_gpu_drained,
	},
	{
		/* 8 threads x 200 signatures on one context: every signature profiled once, exactly. */
		.name = "threads_8x200_signatures_one_context",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "threads 8 200 launch rt 1 _Z3sigILi%t_%iEEvv " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1600|1600|1600"),
		.calls = { CALLS("cuptiRangeProfilerStart", 1600) },
		.extra = extra_gpu_drained,
	},
	{
		/* Bad GPUPROJ_WAIT and GPUPROJ_KERNEL_EXCLUDE: one line each, defaults kept. */
		.name = "bad_wait_and_exclude",
		.env = ENV("GPUPROJ_WAIT=0", "GPUPROJ_KERNEL_EXCLUDE=("),
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES("[gpuproj] GPUPROJ_WAIT='0' is not a positive number of seconds (at most "
			       "3600); using 10",
			       "[gpuproj] GPUPROJ_KERNEL_EXCLUDE='(' is not a POSIX extended regular "
			       "expression (Unmatched ( or \\(); no kernel is excluded by name (NCCL's "
			       "still are)",
			       LINE_INIT, LINE_DEV, "@wrote:1|1|1"),
		.kernels = { K(SAXPY, 1, 1, 1, 1000) },
		.attrs = { { "env.GPUPROJ_WAIT", "0" } },
	},
	{
		/*
		 * Another thread begins a global-mode stream capture while
		 * a launch is profiled; the capture waits for the window, so the
		 * window's DecodeData does not synchronise during it. Before: the
		 * capture began inside the window and the synchronisation invalidated
		 * it (the double's violation).
		 */
		.name = "capture_begins_during_window",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "par launch drv 1 " SAXPY " " K_DIMS " 0 1000 hold=300 | sleep 100 ; "
			     "capture-begin 3 ; launch drv 1 " COPY " " K_DIMS " 0 2000 stream=3 noexec ; "
			     "capture-end 3",
			     "repeat 2 launch drv 1 " COPY " " K_DIMS " 0 2000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:2|3|2"),
		.kernels = { K(SAXPY, 1, 1, 1, 1000), K(COPY, 2, 1, 1, 2000) },
		.extra = extra_gpu_drained,
	},
	{
		/*
		 * A capture abandoned without cudaStreamEndCapture (its
		 * stream destroyed) no longer keeps profiling off. Before: nothing
		 * was profiled for the rest of the run.
		 */
		.name = "capture_abandoned",
		.cmds = CMDS(METRICS, "init", "ctx 0", "capture-begin 3", "stream-destroy 1 3",
			     "repeat 2 launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
	},
	{
		/*
		 * The thread block cluster is part of the signature
		 * (cuLaunchKernelEx / cudaLaunchKernelExC attributes; the record's
		 * cluster dimensions); the profile tags it. Before: one signature,
		 * 4 launches, 1 profiled.
		 */
		.name = "cluster_shape_in_signature",
		.cmds = CMDS("device 0 \"Fake H100\" GH100 9.0 132 1755000", METRICS, "init", "ctx 0",
			     "repeat 2 launch ex 1 _Z7clusterPf " K_DIMS " 0 1000 cluster=2,1,1",
			     "repeat 2 launch rt-ex 1 _Z7clusterPf " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, "@device:Fake H100|GH100|9.0|132|46|3",
			       LINE_NOT_IN_TARGETS("Fake H100", "9.0"), "@wrote:2|4|2"),
		.extra = extra_clusters,
	},
	{
		/*
		 * DCGM holds the counters: the first window fails with
		 * CUPTI_ERROR_HARDWARE_BUSY; one line says what holds them and how to
		 * pause it; timing goes on. Before: an unknown failure, retried, then
		 * "the profiler failed three times in a row".
		 */
		.name = "counters_busy",
		.cmds = CMDS(METRICS, "counters-busy", "init", "ctx 0",
			     "repeat 4 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] the GPU performance counters are busy "
			       "(CUPTI_ERROR_HARDWARE_BUSY from cuptiRangeProfilerStart): another "
			       "profiler holds them, on cluster nodes usually DCGM or dcgm-exporter; "
			       "pause it with 'dcgmi profile --pause' (and 'dcgmi profile --resume' "
			       "afterwards) and run again: metrics off, every launch is still timed "
			       "(the profile will have durations; kernels without counters are "
			       "projected by the envelope, binding unknown)",
			       "@wrote:1|4|0"),
		.kernels = { K(SAXPY, 4, 0, 4, 1000) },
		.calls = { CALLS("cuptiRangeProfilerStart", 1) },
	},
	/*
	 * CUPTI 13.1-13.2, 13.3 and 13.4-13.5 write Kernel11, 12, 13
	 * (224, 232, 248 bytes; tests/fake/fake-records.h); read in their
	 * layouts. The API versions of the released wheels (13.2.86, 13.5.25).
	 */
	RECORDS_ROW("records_kernel11", "130100", "13.1", "0", "1", CACHE_NONE),
	RECORDS_ROW("records_kernel11_13_2", "130202", "13.2", "0", "1", CACHE_NONE),
	RECORDS_ROW("records_kernel12", "130300", "13.3", "0", "1", CACHE_NONE),
	RECORDS_ROW("records_kernel13", "130400", "13.4", "1", "0", CACHE_ALL),
	RECORDS_ROW("records_kernel13_13_5", "130500", "13.5", "1", "0", CACHE_ALL),
	{
		/*
		 * A libcupti whose records gpuproj does not know is
		 * refused with one line; the application runs unchanged. Before: its
		 * records were read as CUpti_ActivityKernel10.
		 */
		.name = "records_unknown_version_refused",
		.cmds = CMDS("cupti-version 140000", METRICS, "init", "ctx 0", "stdout unchanged",
			     "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "exit 7"),
		.status = 7,
		.out = "unchanged\n",
		.lines = LINES("[gpuproj] libcupti.so.13 is API version 140000, whose kernel records "
			       "gpuproj cannot read (it knows CUPTI 13.0 to 13.5, API 130000-130599): "
			       "gpuproj is off, the application runs unchanged; use a gpuproj that knows "
			       "this CUPTI, or put a known one first in LD_LIBRARY_PATH"),
		.calls = { CALLS("cuptiSubscribe", 0) },
		.extra = extra_no_report,
	},
	{
		/*
		 * CUPTI 13.0 GA (API 130000) can deadlock in
		 * cuptiActivityDisable(CONCURRENT_KERNEL) and crash in
		 * cuptiActivityFlushAll: one line; kernel tracing is never disabled;
		 * CUPTI's worker delivers the buffers (cuptiActivityFlushPeriod)
		 * instead of a FlushAll every 100 ms, which is called at exit only.
		 * Before: no line, a flush every 100 ms, the disable at exit (the
		 * double's violation).
		 */
		.name = "cupti_13_0_ga_bugs_avoided",
		.cmds = CMDS("cupti-version 130000", METRICS, "init", "ctx 0",
			     "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "sleep 350"),
		.lines = LINES("[gpuproj] libcupti.so.13 is CUDA 13.0 GA (API 130000), whose "
			       "cuptiActivityDisable(CONCURRENT_KERNEL) can deadlock and "
			       "cuptiActivityFlushAll can crash (fixed in 13.0 Update 1): gpuproj leaves "
			       "kernel tracing on and flushes only before a context goes and at exit; "
			       "install CUDA 13.0 Update 1 or later",
			       "[gpuproj] gpuproj {version} (CUPTI 13.0 (API 130000)): timing every kernel "
			       "launch, profiling the first 1 launch of each kernel signature; report at "
			       "exit: {out}",
			       LINE_DEV, "@wrote:1|3|1"),
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },
		/* Disabled at exit: the whole-run timeline's seven kinds, never kernel tracing. */
		.calls = { CALLS("cuptiActivityDisable", 7), CALLS("cuptiActivityFlushAll", 1),
			   CALLS("cuptiActivityFlushPeriod", 1) },
	},
	{
		/*
		 * A second CUPTI client in the process (PyTorch's Kineto) registers
		 * its own activity callbacks, traces 100 launches, then stops and
		 * disables kernel tracing. gpuproj yields: one line, its report keeps
		 * the 3 launches whose records it had, Kineto gets all 100 of its
		 * own, gpuproj does not disable tracing again at exit. Before: no
		 * line, and the disable at exit of a kind that was no longer
		 * enabled (the double's violation).
		 */
		.name = "second_cupti_client_takes_over",
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "sleep 300", "kineto-start",
			     "repeat 100 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "sleep 2600",
			     "sync 1", "kineto-stop"),
		.out = "kineto records 100\n",
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] another CUPTI client in this process (a framework's profiler, "
			       "PyTorch's for one) took over the kernel records: 100 launches since have "
			       "none for gpuproj, which keeps what it has and leaves kernel tracing to "
			       "that client",
			       "@wrote:1|3|1"),
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },
		.calls = { CALLS("cuptiActivityDisable", 1) },
	},
	/*
	 * A FIFO planted as the report. Before: the report was
	 * written into it in place, and with nobody reading, the application
	 * hung at exit forever (past GPUPROJ_WAIT).
	 */
	{
		.name = "output_fifo_refused",
		.cmds = CMDS("mkfifo out.json", "init", "ctx 0", "stdout hello",
			     "launch drv 1 " SAXPY " " K_DIMS " 0 1000", "exit 7"),
		.status = 7,
		.out = "hello\n",
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] cannot write the report: {out}: is a FIFO, not a regular file; "
			       "only a regular file is created or replaced there; wrote "
			       "{tmp}/out.json instead (1 kernel signature, 1 launch, 1 profiled)"),
		.extra = extra_output_fifo,
	},
	{
		/* ... and behind a symbolic link someone planted (before: followed, hung). */
		.name = "output_symlink_refused",
		.cmds = CMDS("mkfifo victim", "symlink victim out.json", "init", "ctx 0",
			     "stdout hello", "launch drv 1 " SAXPY " " K_DIMS " 0 1000", "exit 7"),
		.status = 7,
		.out = "hello\n",
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] cannot write the report: {out}: is a symbolic link, not "
			       "a regular file; only a regular file is created or replaced there; "
			       "wrote {tmp}/out.json instead (1 kernel signature, 1 launch, 1 "
			       "profiled)"),
		.extra = extra_output_symlink,
	},
	{
		/*
		 * The driver dlclose()s libproj.so after
		 * InitializeInjection (the double's, FAKE_DLCLOSE_INJECTION). Linked
		 * -z nodelete it stays: the run is reported at exit. Before: glibc
		 * ran its atexit handler at dlclose (nothing recorded yet: no
		 * report) and unmapped it; the application's output and status were
		 * the same, the profile lost.
		 */
		.name = "driver_dlcloses_injection",
		.env = ENV("FAKE_DLCLOSE_INJECTION=1"),
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "repeat 3 launch rt 1 " K1 " " K_DIMS " 0 1000",
			     "sync 1", "stdout kept", "exit 5"),
		.status = 5,
		.out = "kept\n",
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|3|1"),
		.kernels = { K(K1, 3, 1, 2, 1000) },
	},
	{
		.name = "signal_exit_holding_cupti_lock",
		.env = ENV("FAKE_ALARM_AT=api-record:50", "GPUPROJ_WAIT=1"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "stdout before", "alarm-exit 0 3",
			     "repeat 300 do launch rt 1 " K1 " " K_DIMS " 0 1000 ; sync 1",
			     "stdout after"),
		.status = 3,
		.out = "before\n",
		.skip_violations = true,
		.extra = extra_signal_exit_cupti_lock,
	},
	{
		.name = "signal_exit_in_buffer_callback",
		.env = ENV("FAKE_ALARM_AT=next-record:3", "FAKE_BUFFER_BYTES=4096",
			   "GPUPROJ_WAIT=1"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "stdout before", "alarm-exit 0 3",
			     "repeat 2000 do launch rt 1 " K1 " " K_DIMS " 0 1000 ; sync 1",
			     "stdout after"),
		.status = 3,
		.out = "before\n",
		.skip_violations = true,
		.extra = extra_signal_exit_buffer_callback,
	},
	{
		.name = "threads_not_followed_epochs",
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch rt 1 " K1 " " K_DIMS " 0 1000",
			     "sync 1",
			     "threads 66 3 do launch rt 1 " K1 " " K_DIMS " 0 1000 ; sync 1"),
		.extra = extra_threads_not_followed,
	},
	{
		/* A valid name of 244 bytes. */
		.name = "output_long_name",
		.env = ENV("GPUPROJ_OUTPUT=" LONG_OUTPUT),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES("[gpuproj] gpuproj {version} (CUPTI 13.0 (API 130001)): timing "
			       "every kernel launch, profiling the first 1 launch of each kernel "
			       "signature; report at exit: " LONG_OUTPUT, LINE_DEV,
			       "[gpuproj] wrote " LONG_OUTPUT " (1 kernel signature, 1 launch, 1 "
			       "profiled)"),
		.extra = extra_output_long_name,
	},
	{
		/* The output's directory gone by exit. */
		.name = "output_dir_gone_at_exit",
		.env = ENV("GPUPROJ_OUTPUT=sub/out.json"),
		.cmds = CMDS("mkdir sub", "init", "ctx 0", "stdout hello",
			     "launch drv 1 " SAXPY " " K_DIMS " 0 1000", "rmdir sub", "exit 7"),
		.status = 7,
		.out = "hello\n",
		.lines = LINES("[gpuproj] gpuproj {version} (CUPTI 13.0 (API 130001)): timing "
			       "every kernel launch, profiling the first 1 launch of each kernel "
			       "signature; report at exit: sub/out.json", LINE_DEV,
			       "[gpuproj] cannot write the report: {dir}/sub/out.json: cannot "
			       "create a temporary file beside it: No such file or directory; "
			       "wrote {tmp}/out.json instead (1 kernel signature, 1 launch, 1 "
			       "profiled)"),
		.extra = extra_output_dir_gone,
	},
	{
		/*
		 * A relative GPUPROJ_OUTPUT names the directory of
		 * start-up. Before: the report went to sub/, where the application
		 * had chdir()ed.
		 */
		.name = "output_relative_after_chdir",
		.env = ENV("GPUPROJ_OUTPUT=rel.json"),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000", "mkdir sub",
			     "chdir sub"),
		.extra = extra_output_after_chdir,
	},
	{
		/*
		 * The cubin directory beside the report is a planted
		 * symbolic link. Before: followed, the cubins written where it pointed.
		 */
		.name = "keep_cubins_symlink_refused",
		.env = ENV("GPUPROJ_KEEP_CUBINS=1"),
		.cmds = CMDS("mkdir elsewhere", "symlink elsewhere out.cubins", "init", "ctx 0",
			     "module 1 7 1000", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] GPUPROJ_KEEP_CUBINS: cannot keep cubins in {dir}/out.cubins: is a "
			       "symbolic link, not a directory",
			       "@wrote:1|1|1"),
		.extra = extra_cubins_symlink,
	},
	{
		/*
		 * A FIFO planted where a cubin goes. Before: opened for
		 * writing, and with nobody reading, the application hung at the
		 * module load, forever.
		 */
		.name = "keep_cubins_fifo_refused",
		.env = ENV("GPUPROJ_KEEP_CUBINS=kept"),
		.cmds = CMDS("mkdir kept", "mkfifo kept/" KEPT_CUBIN, "init", "ctx 0", "stdout hello",
			     "module 1 7 1000", "launch drv 1 " SAXPY " " K_DIMS " 0 1000", "exit 7"),
		.status = 7,
		.out = "hello\n",
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] GPUPROJ_KEEP_CUBINS: {dir}/kept/" KEPT_CUBIN " is a FIFO, "
			       "not a regular file; left as it is",
			       "@wrote:1|1|1"),
		.extra = extra_cubins_fifo,
	},
	{
		/*
		 * A relative GPUPROJ_KEEP_CUBINS is resolved at
		 * start-up. Before: the cubins went to sub/kept, where the
		 * application had chdir()ed by the time it loaded the module.
		 */
		.name = "keep_cubins_relative_after_chdir",
		.env = ENV("GPUPROJ_KEEP_CUBINS=kept"),
		.cmds = CMDS("init", "ctx 0", "mkdir sub", "chdir sub", "module 1 7 1000",
			     "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.extra = extra_cubins_after_chdir,
	},
	{
		/*
		 * Another process writes the same GPUPROJ_OUTPUT during
		 * the run. Before: both said "wrote", one profile was lost.
		 */
		.name = "output_written_by_another_process",
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000",
			     "write out.json another process's profile\n"),
		.extra = extra_two_writers,
	},
	{
		/* ... while a profile of an earlier run, there at start-up, is replaced. */
		.name = "output_stale_replaced",
		.cmds = CMDS("write out.json an earlier run's profile\n", "init", "ctx 0",
			     "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|1|1"),
		.extra = extra_stale_replaced,
	},
	/* The rank variables of MVAPICH2, Cray PALS and ALPS, torchrun. */
	{
		.name = "rank_mvapich",
		.env = ENV("MV2_COMM_WORLD_RANK=5"),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.extra = extra_rank_mv2,
	},
	{
		.name = "rank_cray_pals",
		.env = ENV("PALS_RANKID=6"),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.extra = extra_rank_pals,
	},
	{
		.name = "rank_cray_alps",
		.env = ENV("ALPS_APP_PE=7"),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.extra = extra_rank_alps,
	},
	{
		.name = "rank_torchrun",
		.env = ENV("RANK=3", "LOCAL_RANK=1"),
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.extra = extra_rank_torchrun,
	},
	{
		/*
		 * A back-reference (a glibc extension; exponential
		 * matching) and repetition counts that multiply are refused with one
		 * line each. Before: accepted, silently.
		 */
		.name = "kernel_regex_bounded",
		.env = ENV("GPUPROJ_KERNEL_REGEX=(sax)\\1py", "GPUPROJ_KERNEL_EXCLUDE=((a{100}){100})"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES("[gpuproj] GPUPROJ_KERNEL_REGEX='(sax)\\1py' is refused: it has a "
			       "back-reference (\\1), which POSIX extended expressions do not have "
			       "and whose matching can take time exponential in the name; profiling "
			       "every kernel",
			       "[gpuproj] GPUPROJ_KERNEL_EXCLUDE='((a{100}){100})' is refused: it has "
			       "more than 4096 elements once its repetitions are expanded (counts "
			       "multiply: (x{100}){100} is x 10000 times), too large to compile and "
			       "to match quickly; no kernel is excluded by name (NCCL's still are)",
			       LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
	},
	{
		/*
		 * A tiny GPUPROJ_MAX_INPUT_SIZE in the application's
		 * environment. Before: the built-in targets.yaml was refused as well
		 * ("the built-in targets.yaml does not load"): no projections at all.
		 */
		.name = "max_input_size_tiny",
		.env = ENV("GPUPROJ_MAX_INPUT_SIZE=1"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.extra = extra_tiny_input_limit,
	},
	{
		/* ... and a bad one: one line, the default kept (before: every file refused). */
		.name = "max_input_size_bad",
		.env = ENV("GPUPROJ_MAX_INPUT_SIZE=lots"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES("[gpuproj] GPUPROJ_MAX_INPUT_SIZE='lots' is not a size in bytes (a "
			       "positive integer, optionally with K, M, G or T); using 1 GiB",
			       LINE_INIT, LINE_DEV, "@wrote:1|1|1"),
		.extra = extra_projected,
	},
	{
		/*
		 * A kernel name with a window title (OSC 0) and a
		 * right-to-left override, in the NCCL line and the exit table.
		 * Before: both reached the terminal raw.
		 */
		.name = "kernel_names_escaped_on_stderr",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "repeat 2 launch drv 1 ncclKernel\x1b]0;owned\a\xe2\x80\xae" "evil "
			     K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] ncclKernel\\e]0;owned\\a\\u202eevil and NCCL's other "
			       "kernels are never profiled (they wait for other GPUs and ranks, and "
			       "would hang under kernel replay); they are timed",
			       "@wrote:1|2|0"),
		.extra = extra_names_escaped,
	},
	{
		/*
		 * Kineto's count at stop is whole even when CUPTI's worker is
		 * still delivering a buffer when Kineto flushes: the flush
		 * returns only once every record has been handed over
		 * (cupti_activity.h:7709-7715, "a blocking call"). The double
		 * holds the worker's deliveries 600 ms; the worker ticks every
		 * 100 ms, so 300 ms after the launches it holds the buffer with
		 * the 100 records (the 1,000 ms before Kineto starts let gpuproj
		 * have its own 3). Before the double modelled the wait, this
		 * printed "kineto records 0" (CI under ASan once printed 34).
		 */
		.name = "second_cupti_client_flush_waits_for_delivery",
		.env = ENV("FAKE_DELIVER_HOLD_MS=600"),
		.cmds = CMDS(METRICS, "init", "ctx 0", "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "sleep 1000", "kineto-start",
			     "repeat 100 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "sync 1",
			     "sleep 300", "kineto-stop"),
		.out = "kineto records 100\n",
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] another CUPTI client in this process (a framework's profiler, "
			       "PyTorch's for one) took over the kernel records: 100 launches since have "
			       "none for gpuproj, which keeps what it has and leaves kernel tracing to "
			       "that client",
			       "@wrote:1|3|1"),
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },
		.calls = { CALLS("cuptiActivityDisable", 1) },
	},
	{
		/*
		 * The second client takes the records in
		 * GPUPROJ_MODE=timing, and stops before exit (no 2 s for the
		 * worker's rule): noticed all the same, from the launches counted
		 * by the launch callbacks (which, without metrics, only count),
		 * and tracing is not disabled again. Before: no line in timing
		 * mode (no launch callbacks), and the disable at exit of a kind
		 * no longer enabled (the double's violation).
		 */
		.name = "second_cupti_client_in_timing_mode",
		.env = ENV("GPUPROJ_MODE=timing"),
		.cmds = CMDS("init", "ctx 0", "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "sleep 300", "kineto-start",
			     "repeat 100 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "sync 1",
			     "kineto-stop"),
		.out = "kineto records 100\n",
		.lines = LINES("[gpuproj] gpuproj {version} (CUPTI 13.0 (API 130001)): timing every "
			       "kernel launch, no metrics (GPUPROJ_MODE=timing); report at exit: {out}",
			       "[gpuproj] another CUPTI client in this process (a framework's profiler, "
			       "PyTorch's for one) took over the kernel records: 100 launches since have "
			       "none for gpuproj, which keeps what it has and leaves kernel tracing to "
			       "that client",
			       "@wrote:1|3|0"),
		.kernels = { K(SAXPY, 3, 0, 3, 1000) },
		.calls = { CALLS("cuptiActivityDisable", 1) },
	},
	{
		/* ... and in full mode with fewer than 64 launches (before: not noticed). */
		.name = "second_cupti_client_few_launches",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "sleep 300",
			     "kineto-start", "repeat 10 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
			     "kineto-stop"),
		.out = "kineto records 10\n",
		.lines = LINES(LINE_INIT, LINE_DEV,
			       "[gpuproj] another CUPTI client in this process (a framework's profiler, "
			       "PyTorch's for one) took over the kernel records: 10 launches since have "
			       "none for gpuproj, which keeps what it has and leaves kernel tracing to "
			       "that client",
			       "@wrote:1|3|1"),
		.kernels = { K(SAXPY, 3, 1, 2, 1000) },
		.calls = { CALLS("cuptiActivityDisable", 1) },
	},
	/*
	 * One absurd device field; the application's output and
	 * exit status unchanged, the profile written with the field unknown.
	 */
#define DEV_ROW(NAME, DEVICE, LINE, DEVLINE, EXTRA)                                               \
	{                                                                                          \
		.name = NAME,                                                                      \
		.cmds = CMDS("device 0 \"Fake A100\" GA100 " DEVICE, METRICS, "init", "ctx 0",    \
			     "launch rt 1 " K1 " " K_DIMS " 0 10000", "sync 1", "stdout kept",     \
			     "exit 3"),                                                            \
		.status = 3,                                                                       \
		.out = "kept\n",                                                                   \
		.lines = LINES(LINE_INIT,                                                          \
			       "[gpuproj] device 0 (Fake A100): the driver reports " LINE,         \
			       DEVLINE, "@wrote:1|1|1"),                                          \
		.kernels = { K(K1, 1, 1, 1, 10000) },                                              \
		.extra = EXTRA,                                                                    \
	}
	DEV_ROW("device_sms_negative", "8.0 -5 1410000",
		"-5 SMs, not a GPU's (1 to 4096): the SM count is left unknown in the profile",
		"@device:Fake A100|GA100|8.0|0|50|4", extra_dev_sms),
	DEV_ROW("device_sms_5000", "8.0 5000 1410000",
		"5000 SMs, not a GPU's (1 to 4096): the SM count is left unknown in the profile",
		"@device:Fake A100|GA100|8.0|0|50|4", extra_dev_sms),
	DEV_ROW("device_clock_20ghz", "8.0 100 20000000",
		"an SM clock of 2e+10 Hz, not a GPU's (up to 1e+10 Hz): it is left unknown in the "
		"profile", LINE_DEV, extra_dev_clock),
	DEV_ROW("device_cc_100", "100.0 100 1410000",
		"compute capability 100.0, which is none (1.0 to 99.9): it is left unknown in the "
		"profile", "@device:Fake A100|GA100|0.0|100|50|4", extra_dev_cc),
	DEV_ROW("device_bus_bits", "8.0 100 1410000 bus=99999999",
		"memory_bus_bits = 99999999, outside (0, 65536]: it is left unknown in the profile",
		LINE_DEV, extra_dev_bus),
#undef DEV_ROW
	/*
	 * The whole run: each epoch's measured and projected figures
	 * by hand (the comments of extra_tl_*).
	 */
	{
		.name = "whole_run_serial",
		.cmds = CMDS(METRICS, "init", "ctx 0", WARMUP,
			     "repeat 10 do host 5000 ; launch rt 1 " K1 " " K_DIMS " 0 10000 ; "
			     "launch rt 1 " K2 " " K_DIMS " 0 20000 ; sync 1"),
		.extra = extra_tl_serial,
	},
	{
		.name = "whole_run_two_streams",
		.cmds = CMDS(METRICS, "init", "ctx 0", WARMUP,
			     "repeat 10 do launch rt 1 " K1 " " K_DIMS " 0 10000 stream=1 ; "
			     "launch rt 1 " K2 " " K_DIMS " 0 20000 stream=2 ; sync 1"),
		.extra = extra_tl_streams,
	},
	{
		.name = "whole_run_host_bound",
		.cmds = CMDS(METRICS, "init", "ctx 0", WARMUP,
			     "repeat 10 do host 50000 ; launch rt 1 " K1 " " K_DIMS " 0 1000 ; "
			     "host 50000 ; launch rt 1 " K2 " " K_DIMS " 0 2000 ; sync 1"),
		.extra = extra_tl_host,
	},
	{
		.name = "whole_run_copy_bound",
		.cmds = CMDS(METRICS, "init", "ctx 0", WARMUP,
			     "repeat 10 do memcpy 1 h2d 1000000 42000 async ; "
			     "launch rt 1 " K1 " " K_DIMS " 0 10000 ; memcpy 1 d2h 1000000 42000"),
		.extra = extra_tl_copy,
	},
	{
		.name = "whole_run_pageable_copy",
		.cmds = CMDS(METRICS, "init", "ctx 0", WARMUP,
			     "repeat 10 do memcpy 1 h2d 1000000 42000 pageable ; host 30000 ; "
			     "launch rt 1 " K1 " " K_DIMS " 0 10000 ; memcpy 1 d2h 1000000 42000"),
		.extra = extra_tl_pageable,
	},
	{
		.name = "whole_run_event_wait",
		.cmds = CMDS(METRICS, "init", "ctx 0", WARMUP,
			     "repeat 10 do launch rt 1 " K1 " " K_DIMS " 0 10000 stream=1 ; "
			     "event-record 1 1 1 ; wait-event 1 2 1 ; "
			     "launch rt 1 " K2 " " K_DIMS " 0 20000 stream=2 ; sync 1"),
		.extra = extra_tl_event,
	},
	{
		.name = "whole_run_one_sync",
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "repeat 4 do host 50000000 ; launch rt 1 " K3 " " K_DIMS " 0 500000",
			     "sync 1"),
		.extra = extra_tl_one_sync,
	},
	{
		.name = "whole_run_sync_at_end",
		.cmds = CMDS(METRICS, "init", "ctx 0", WARMUP,
			     "repeat 1100 launch rt 1 " K1 " " K_DIMS " 0 10000", "sync 1"),
		.extra = extra_tl_sync_at_end,
	},
	{
		.name = "whole_run_producer_never_syncs",
		.cmds = CMDS(METRICS, "init", "ctx 0", WARMUP,
			     "threads 1 1100 launch rt 1 " K1 " " K_DIMS " 0 10000 stream=1"),
		.extra = extra_tl_producer,
	},
	{
		/* The graph's kernel is profiled outside it first (graphs are never profiled). */
		.name = "whole_run_graph",
		.cmds = CMDS(METRICS, "init", "ctx 0", "launch rt 1 " K1 " " K_DIMS " 0 5000",
			     "sync 1", "repeat 10 do host 1000 ; graph 1 " K1 " " K_DIMS " 0 5000 4 ; "
			     "sync 1"),
		.extra = extra_tl_graph,
	},
};

/*
 * The deterministic version in `integration`: 16 threads,
 * 2 x 10^5 launches, 100 signatures (not under valgrind: too slow there).
 */
static const struct scenario soak_small = {
	.name = "soak_small",
	.env = ENV("GPUPROJ_SIGNALS=1", "GPUPROJ_LIVE=0.1"),
	.cmds = CMDS(METRICS, "init", "ctx 0", "soak 16 200000 100 90 300"),
	.signal = 15,
	.extra = extra_soak_small,
};

/* The full soak (suite `slow`, INJECT_SOAK=1): 16 threads, 10^6 launches, 1,000 signatures. */
static const struct scenario soak_full = {
	.name = "soak_full",
	.env = ENV("GPUPROJ_SIGNALS=1", "GPUPROJ_LIVE=0.1"),
	.cmds = CMDS(METRICS, "init", "ctx 0", "soak 16 1000000 1000 75 300"),
	.signal = 15,
	.extra = extra_soak_full,
};

START_TEST(soak)
{
	run_scenario(&soak_full);
}
END_TEST

START_TEST(soak_small_run)
{
	run_scenario(&soak_small);
}
END_TEST

START_TEST(scenario)
{
	run_scenario(&scenarios[_i]);
}
END_TEST

/*
 * The whole-run timeline stays bounded. fake-app's bench loop,
 * `launches` launches round-robin over 10 signatures with a device
 * synchronise after every 10: one repeating epoch. Returns the profile's
 * size (bytes) and the RSS the loop printed at 10 % and at the end.
 */
static void
flat_run(long launches, long *ret_size, long *ret_rss10, long *ret_rss_end)
{
	struct run r;
	char *bench = fmt("bench %ld 10 10", launches);
	const char *p;
	json_t *tl, *pat;
	struct stat st;
	long long folded, incomplete;

	run_app(&r, NULL, CMDS(METRICS, "init", "ctx 0", bench));
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	ck_assert_ptr_nonnull(r.json);
	ck_assert_int_eq(stat(r.output, &st), 0);
	/*
	 * What must not grow with the launches: the profile less its timeline
	 * patterns. Their number varies with the load (at most 4, checked
	 * below; each a few KiB), not with the launches: seen under a load of
	 * 8 on two cores, 2.4 and 4.8 KiB more for 10^6 launches than for 10^5
	 * from one pattern more.
	 */
	{
		json_t *copy = json_deep_copy(r.json);
		char *text;

		json_object_del(json_object_get(copy, "timeline"), "patterns");
		text = json_dumps(copy, JSON_INDENT(1) | JSON_REAL_PRECISION(17) |
				  JSON_ENSURE_ASCII);
		ck_assert_ptr_nonnull(text);
		*ret_size = (long)strlen(text);
		free(text);
		json_decref(copy);
	}
	p = strstr(r.out, "rss_kb_10pct=");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(sscanf(p, "rss_kb_10pct=%ld rss_kb_end=%ld", ret_rss10, ret_rss_end), 2);
	/*
	 * Two patterns: the first epoch (profiled) reconstructed (timeline.h
	 * "Reconstructed epochs"), every other folded into one. On a loaded
	 * machine the worker may take a few calls before their records came
	 * (TAKE_PRESSURE, timeline-rec.c): such an epoch is counted incomplete,
	 * never lost. Seen: 6 of 99,999 at a load of 10 on two cores; at most
	 * one in a thousand is allowed.
	 */
	tl = json_object_get(r.json, "timeline");
	pat = pattern_of(tl, false);
	folded = 0;
	/*
	 * Under heavy load (a load of 13 to 21 on two cores, the full suite
	 * beside other builds) a second pattern was seen twice: epochs whose
	 * calls were taken before their records (TAKE_PRESSURE) can differ in
	 * structure, e.g. the legacy stream not yet known from its STREAM
	 * record, or, when an incomplete epoch ran on to 512 calls and was
	 * cut, the next one beginning with the work it carries.
	 * Their epochs still count, below; the reconstructed epoch with the
	 * profiled launch is a pattern of its own, not counted here.
	 */
	ck_assert_ptr_nonnull(pat);
	for (size_t i = 0; i < json_array_size(json_object_get(tl, "patterns")); i++) {
		json_t *q = json_array_get(json_object_get(tl, "patterns"), i);

		if (!json_is_true(json_object_get(q, "reconstructed")))
			folded += jint(json_object_get(q, "wall_ns"), "n");
	}
	ck_assert_int_le((int)json_array_size(json_object_get(tl, "patterns")), 4);
	incomplete = jint(json_object_get(json_object_get(tl, "unexplained"), "incomplete"),
			  "epochs");
	/*
	 * Every epoch folded or counted incomplete; an incomplete one that ran
	 * on past synchronisations whose records it lacked counts once, so the
	 * sum may fall short by what it swallowed (itself within the 1/1000).
	 */
	ck_assert_int_le(folded + incomplete, launches / 10 - 1);
	ck_assert_msg(folded >= (launches / 10 - 1) - (launches / 10) / 1000, "%ld of %ld epochs "
		      "folded (%ld incomplete)", (long)folded, launches / 10 - 1, (long)incomplete);
	ck_assert_int_eq(jint(json_object_get(tl, "reconstructed"), "epochs"), 1);
	assert_close(jreal(json_object_get(projection_for(&r, "FakeA100"), "whole_run"),
			   "identity_error"), 0, "identity");
	fprintf(stderr, "whole-run timeline: %ld launches: profile %ld bytes (%ld without its %zu "
		"patterns), RSS %ld KiB at 10%%, %ld KiB at the end\n", launches, (long)st.st_size,
		*ret_size, json_array_size(json_object_get(tl, "patterns")), *ret_rss10,
		*ret_rss_end);
	free(bench);
	run_free(&r);
}

START_TEST(timeline_flat)
{
	long size_small, size_big, rss10, rss_end, a, b;

	flat_run(100000, &size_small, &a, &b);
	flat_run(1000000, &size_big, &rss10, &rss_end);
	/* Ten times the launches: the same profile but for the digits of the counts. */
	ck_assert_msg(size_big <= size_small + size_small / 100 + 64,
		      "profile less its patterns grew: %ld bytes after 10^5 launches, %ld after "
		      "10^6", size_small,
		      size_big);
	/* RSS: the soak's rule (ASan's quarantine keeps what is freed: not there). */
	if (!getenv("INJECT_ASAN_RUNTIME"))
		ck_assert_msg(rss_end <= rss10 + rss10 / 10 + 4096, "RSS grew: %ld KiB at 10%% of "
			      "10^6 launches, %ld at the end", rss10, rss_end);
}
END_TEST

/* LD_PRELOAD alone: the constructor points CUDA_INJECTION64_PATH at the library. */
START_TEST(ld_preload)
{
	/* An ASan-built library needs the ASan runtime first in LD_PRELOAD. */
	const char *asan = getenv("INJECT_ASAN_RUNTIME");
	char *pre = asan && *asan ? fmt("LD_PRELOAD=%s %s", asan, inject_libproj())
				  : fmt("LD_PRELOAD=%s", inject_libproj());
	const struct scenario s = {
		.name = "ld_preload",
		.env = ENV("-CUDA_INJECTION64_PATH", pre),
		.cmds = CMDS(METRICS, "init", "ctx 0",
			     "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
	};

	run_scenario(&s);
	free(pre);
}
END_TEST

/*
 * GPUPROJ_PRELOAD=1 on a machine without a driver: CUPTI 13.2 would
 * overflow its stack in cuptiGetVersion, 13.3+ fail it (the double's
 * cuptiGetVersion says why). gpuproj looks for libcuda.so.1 first and
 * stays off with one line; the application runs unchanged. The fake
 * application finds its libraries by its RUNPATH; LD_LIBRARY_PATH holds
 * no libcuda.so.1 and libproj.so's RUNPATH (the toolkit's) neither.
 * Before: cuptiGetVersion called, the double's violation.
 */
START_TEST(preload_without_driver)
{
	const char *asan = getenv("INJECT_ASAN_RUNTIME");
	char *pre = asan && *asan ? fmt("LD_PRELOAD=%s %s", asan, inject_libproj())
				  : fmt("LD_PRELOAD=%s", inject_libproj());
	char *dir = test_tmpdir(), *ld = fmt("LD_LIBRARY_PATH=%s", dir);
	const struct scenario s = {
		.name = "preload_without_driver",
		.env = ENV("-CUDA_INJECTION64_PATH", pre, "GPUPROJ_PRELOAD=1",
			   "FAKE_CUPTI_VERSION=130202", ld),
		.cmds = CMDS("stdout unchanged", "exit 7"),
		.status = 7,
		.out = "unchanged\n",
		/* Under valgrind its launcher processes say it too (GPUPROJ_PRELOAD=1 is inherited). */
		.lines = under_wrapper() ? NULL
					 : LINES("[gpuproj] no CUDA driver can be loaded in this process "
						 "(libcuda.so.1: cannot open shared object file: No "
						 "such file or directory): gpuproj is off, the "
						 "application runs unchanged"),
		.calls = { CALLS("cuptiGetVersion", 0), CALLS("cuptiSubscribe", 0) },
		.extra = extra_no_report,
	};

	run_scenario(&s);
	test_rmtree(dir);
	free(dir);
	free(ld);
	free(pre);
}
END_TEST

/* MPS: counters cannot be read by MPS clients; timing goes on. */
START_TEST(mps_timing_only)
{
	char *dir = test_tmpdir(), *ctl, *env_mps, *l1;
	struct scenario s = {
		.name = "mps_timing_only",
		.cmds = CMDS("init", "ctx 0", "launch drv 1 " SAXPY " " K_DIMS " 0 1000"),
		.kernels = { K(SAXPY, 1, 0, 1, 1000) },
	};

	ctl = test_write_file(dir, "control", "");
	env_mps = fmt("CUDA_MPS_PIPE_DIRECTORY=%s", dir);
	l1 = fmt("[gpuproj] CUDA MPS is active (%s): MPS clients cannot read performance "
		 "counters: metrics off, every launch is still timed (the profile will have "
		 "durations; kernels without counters are projected by the envelope, binding "
		 "unknown)", ctl);
	s.env = ENV(env_mps);
	s.lines = LINES(l1, LINE_INIT, "@wrote:1|1|0");
	run_scenario(&s);
	free(l1);
	free(ctl);
	free(env_mps);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * An application that calls setlocale(LC_ALL, "de_DE.UTF-8")
 * before its first CUDA call (the locale is built here with localedef, in
 * a scratch LOCPATH). Before: "GPUPROJ_TARGETS: …: not a number", no
 * projections, the built-in copy refused too.
 */
START_TEST(locale_comma_decimal)
{
	const char *dir = test_comma_locale();
	char *locpath;
	struct scenario s = {
		.name = "locale_comma_decimal",
		.cmds = CMDS(METRICS, "setlocale de_DE.UTF-8", "init", "ctx 0",
			     "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000"),
		.out = "locale de_DE.UTF-8: 1,5\n",
		.lines = LINES(LINE_INIT, LINE_DEV, "@wrote:1|2|1"),
		.kernels = { K(SAXPY, 2, 1, 1, 1000) },
		.extra = extra_locale,
	};

	if (!dir) {
		test_skip("locale_comma_decimal: localedef cannot build de_DE.UTF-8 (glibc's locale "
			  "sources are not installed)");
		return;
	}
	locpath = fmt("LOCPATH=%s", dir);
	s.env = ENV(locpath, "LC_ALL=de_DE.UTF-8");
	run_scenario(&s);
	free(locpath);
}
END_TEST

/* gpuproj run sets the variables and execs the application. */
START_TEST(gpuproj_run)
{
	struct run r;
	const char *argv[16];
	char *l2, *l3;

	argv[0] = test_gpuproj();
	argv[1] = "run";
	argv[2] = "--targets";
	argv[3] = inject_targets();
	argv[4] = "--output";
	argv[5] = "out.json";
	argv[6] = "--";
	argv[7] = inject_fake_app();
	argv[8] = "metric dram__bytes.sum 8";
	argv[9] = "init";
	argv[10] = "ctx 0";
	argv[11] = "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000";
	argv[12] = "exit 9";
	argv[13] = NULL;
	run_prog(&r, ENV("-CUDA_INJECTION64_PATH", "-GPUPROJ_OUTPUT", "-GPUPROJ_TARGETS"), argv);
	ck_assert_int_eq(r.status, 9);
	expect_no_violations(&r);
	ck_assert_uint_ge(r.n_lines, 3);
	/* libproj.so started (its handshake file was made): no "nothing was profiled". */
	for (size_t i = 0; i < r.n_lines; i++)
		ck_assert_ptr_null(strstr(r.lines[i], "nothing was profiled"));
	l2 = line_device("Fake A100", "GA100", "8.0", 100, 50, 4);
	l3 = fmt("[gpuproj] wrote out.json (1 kernel signature, 2 launches, 1 profiled)");
	ck_assert_str_eq(r.lines[1], l2);
	ck_assert_str_eq(r.lines[2], l3);
	free(l2);
	free(l3);
	reload(&r, "out.json");
	check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	ck_assert_str_eq(attr(&r, "env.GPUPROJ_OUTPUT"), "out.json");
	run_free(&r);
}
END_TEST

/* gpuproj run: help and usage errors need neither CUDA nor the library. */
START_TEST(gpuproj_run_usage)
{
	static const struct {
		const char *args;
		int status;
		const char *err;
	} cases[] = {
		{ "run --help", 0, "" },
		{ "run", 2, "gpuproj: run: missing APP to run\nTry 'gpuproj run --help'.\n" },
		{ "run --live 0 -- true", 2, "gpuproj: run: --live needs a number of seconds from "
		  "0.1 to 86400, not '0'\nTry 'gpuproj run --help'.\n" },
		{ "run --bogus -- true", 2, "gpuproj: run: unknown option '--bogus'\n"
		  "Try 'gpuproj run --help'.\n" },
		{ "run -- /nonexistent/app", 127, "gpuproj: run: cannot run '/nonexistent/app': No "
		  "such file or directory\n" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *cmd = fmt("'%s' %s", test_gpuproj(), cases[i].args), *out = NULL, *err = NULL;

		ck_assert_int_eq(test_run(cmd, &out, &err), cases[i].status);
		ck_assert_str_eq(err, cases[i].err);
		if (i == 0)
			ck_assert_ptr_nonnull(strstr(out, "Usage: gpuproj run [options] [--] APP"));
		free(cmd);
		free(out);
		free(err);
	}
}
END_TEST

/* The library exports InitializeInjection only, and needs neither libcupti nor libstdc++. */
START_TEST(exported_symbols)
{
	char *cmd, *out = NULL;
	int rc;

	cmd = fmt("nm -D --defined-only '%s' | awk '{print $3}'", inject_libproj());
	rc = test_run(cmd, &out, NULL);
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(out, "InitializeInjection\n");
	free(out);
	free(cmd);
	cmd = fmt("readelf -d '%s' | grep NEEDED", inject_libproj());
	rc = test_run(cmd, &out, NULL);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_null(strstr(out, "libcupti"));
	ck_assert_ptr_null(strstr(out, "libstdc++"));
	ck_assert_ptr_null(strstr(out, "libcuda"));
	free(out);
	free(cmd);
	/* -z nodelete: a dlclose() never unmaps it (inject/meson.build). */
	cmd = fmt("readelf -d '%s' | grep FLAGS_1", inject_libproj());
	rc = test_run(cmd, &out, NULL);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(out, "NODELETE"));
	free(out);
	free(cmd);
}
END_TEST

static Suite *
inject_suite(void)
{
	Suite *s = suite_create("inject");
	TCase *tc = tcase_create("scenarios");

	tcase_set_timeout(tc, under_wrapper() ? 600 : 60);
	if (getenv("INJECT_SOAK")) {
		tcase_set_timeout(tc, 900);
		tcase_add_test(tc, soak);
		suite_add_tcase(s, tc);
		return s;
	}
	tcase_add_loop_test(tc, scenario, 0, (int)ARRAY_SIZE(scenarios));
	tcase_add_test(tc, ld_preload);
	tcase_add_test(tc, preload_without_driver);
	tcase_add_test(tc, mps_timing_only);
	tcase_add_test(tc, locale_comma_decimal);
	tcase_add_test(tc, gpuproj_run);
	tcase_add_test(tc, gpuproj_run_usage);
	tcase_add_test(tc, output_dir_unwritable);
	if (!under_wrapper()) {
		tcase_add_test(tc, exported_symbols);
		tcase_add_test(tc, soak_small_run);
		tcase_add_test(tc, timeline_flat);
	}
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(inject_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
