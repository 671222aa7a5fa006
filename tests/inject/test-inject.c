/* SPDX-License-Identifier: MIT */
/*
 * libproj.so end to end on the CUPTI/driver test double (no GPU): scripted
 * runs of tests/fake/fake-app, each checking the JSON produced, the exact
 * "[gpuproj]" stderr lines, the application's stdout and exit status, and
 * that the test double saw no misuse of the CUPTI API (violations 0).
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
	"metric dram__bytes.sum 8", "metric lts__t_bytes.sum 16", \
	"metric l1tex__t_bytes.sum 32", \
	"metric smsp__average_thread_inst_executed_per_inst_executed.ratio 32", \
	"metric sm__warps_active.avg.pct_of_peak_sustained_active 50"
#define SAXPY "_Z5saxpyifPKfPf"
#define COPY "_Z4copyPKfPf"
#define K_DIMS "1000,1,1 256,1,1"

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

static void
free3(char *a, char *b, char *c)
{
	free(a);
	free(b);
	free(c);
}

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

/* ---- scenarios ---- */

/*
 * First-N profiling then timing only, every launch path: the first launch
 * of each signature is profiled (metrics, excluded from timing: its three
 * replay records are ignored), every other launch is timed; graph kernels
 * are timed, never profiled. Projections onto Double halve every time.
 */
START_TEST(first_n_then_timing)
{
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "stdout app output",
		"repeat 5 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
		"repeat 3 launch drv 1 " COPY " " K_DIMS " 0 2000 regs=40 static=1024",
		"repeat 2 launch rt-ex 1 _Z2exv " K_DIMS " 128 3000",
		"repeat 2 launch ex 1 _Z3exdv " K_DIMS " 0 4000",
		"repeat 2 launch rt-legacy 1 _Z3legv " K_DIMS " 0 5000",
		"repeat 2 launch coop 1 _Z4coopv " K_DIMS " 0 6000",
		"repeat 2 launch rt-coop 1 _Z5rcoopv " K_DIMS " 0 7000",
		"repeat 2 launch drv-ptsz 1 _Z4ptszv " K_DIMS " 0 8000",
		"graph 1 _Z6graphkv " K_DIMS " 0 500 4",
		"flush", "launch rt 1 " SAXPY " 500,1,1 256,1,1 0 600", NULL,
	};
	struct run r;
	json_t *k, *p, *dev;
	double src_ns;
	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "app output\n");
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 10, 25, 9);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	ck_assert_uint_gt(r.table_lines, 5);
	ck_assert_ptr_nonnull(r.json);

	ck_assert_str_eq(json_string_value(json_object_get(r.json, "schema")), "gpuproj-profile/1");
	ck_assert_str_eq(attr(&r, "origin"), "injection");
	ck_assert_str_eq(attr(&r, "report"), "exit");
	ck_assert_str_eq(attr(&r, "env.GPUPROJ_OUTPUT"), r.output);
	ck_assert_str_eq(attr(&r, "metrics.GA100.inst.fp32.fma"),
			 "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
	ck_assert_str_eq(attr(&r, "metrics.GA100.warp_efficiency"),
			 "smsp__average_thread_inst_executed_per_inst_executed.ratio * 0.03125");
	ck_assert_str_eq(attr(&r, "metrics.GA100.passes"), "3");
	dev = json_object_get(r.json, "device");
	ck_assert_str_eq(json_string_value(json_object_get(dev, "name")), "Fake A100");
	ck_assert_str_eq(json_string_value(json_object_get(dev, "chip")), "GA100");
	ck_assert_str_eq(json_string_value(json_object_get(dev, "cc")), "8.0");
	ck_assert_int_eq(jint(dev, "sms"), 108);
	assert_close(jreal(dev, "clock_hz"), 1.41e9, "clock");
	ck_assert_int_eq(jint(json_object_get(r.json, "process"), "pid") > 0, 1);
	ck_assert_int_eq(json_is_null(json_object_get(json_object_get(r.json, "process"), "rank")), 1);
	ck_assert_int_eq(jint(json_object_get(r.json, "run"), "dropped_records"), 0);

	/* saxpy: 5 launches, the first profiled (nested rt → drv, credit moved to the full key). */
	k = check_kernel(&r, SAXPY, 5, 1, 4, 1000);
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
	k = kernel_named(&r, SAXPY, 500);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(jint(k, "profiled_launches"), 1);
	ck_assert_int_eq(jint(json_object_get(k, "duration_ns"), "n"), 1);
	assert_close(jreal(json_object_get(k, "duration_ns"), "mean"), 600,
		     "profiler-only duration");
	ck_assert_str_eq(attr(&r, "duration_from_profiler"), SAXPY);

	k = check_kernel(&r, COPY, 3, 1, 2, 2000);
	ck_assert_int_eq(jint(k, "regs_per_thread"), 40);
	ck_assert_int_eq(jint(k, "smem_static_bytes"), 1024);
	check_kernel(&r, "_Z2exv", 2, 1, 1, 3000);
	ck_assert_int_eq(jint(kernel_named(&r, "_Z2exv", 0), "smem_dynamic_bytes"), 128);
	check_kernel(&r, "_Z3exdv", 2, 1, 1, 4000);
	check_kernel(&r, "_Z3legv", 2, 1, 1, 5000);
	check_kernel(&r, "_Z4coopv", 2, 1, 1, 6000);
	check_kernel(&r, "_Z5rcoopv", 2, 1, 1, 7000);
	check_kernel(&r, "_Z4ptszv", 2, 1, 1, 8000);
	check_kernel(&r, "_Z6graphkv", 4, 0, 4, 500);
	ck_assert_int_eq(kernel_count(&r), 10);
	{
		/* Demangled with the process's C++ runtime when there is one. */
		const char *d = json_string_value(json_object_get(kernel_named(&r, SAXPY, 1000),
								  "demangled"));

		if (d)
			ck_assert_str_eq(d, "saxpy(int, float, float const*, float*)");
	}

	/* Projections: the source onto itself is 1x, Double halves everything. */
	ck_assert_str_eq(json_string_value(json_object_get(r.json, "source_target")), "FakeA100");
	p = projection_for(&r, "FakeA100");
	ck_assert_ptr_nonnull(p);
	src_ns = jreal(p, "source_ns");
	ck_assert(src_ns > 0);
	assert_close(jreal(p, "point_ns"), src_ns, "source onto itself");
	p = projection_for(&r, "Double");
	ck_assert_ptr_nonnull(p);
	/* The graph kernel has no metrics: its 4 x 500 ns are carried unchanged. */
	ck_assert_int_eq(jint(p, "unprojected_kernels"), 1);
	assert_close(jreal(p, "unprojected_source_ns"), 2000, "unprojected");
	/* And the numbers are the library's own for this profile and these targets. */
	expect_same_projections(&r);

	/* Profiled launches: 9 signatures, each Start/Stop/Decode once. */
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerStart"), 9);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerDecodeData"), 9);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiUnsubscribe"), 1);
	run_free(&r);
}
END_TEST

/* A launch that does not execute has no range: not counted, the next one is profiled. */
START_TEST(ranges_zero_not_counted)
{
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0",
		"launch drv 1 " SAXPY " " K_DIMS " 0 1000 noexec",
		"repeat 3 launch drv 1 " SAXPY " " K_DIMS " 0 1000",
		"ranges 2", "launch drv 1 " COPY " " K_DIMS " 0 2000",
		"repeat 2 launch drv 1 " COPY " " K_DIMS " 0 2000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 2, 6, 2);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	/* noexec: no record, no count; then launch 2 profiled, 3 and 4 timed. */
	check_kernel(&r, SAXPY, 3, 1, 2, 1000);
	/* Two ranges (another kernel inside the window): counted untimed, retried. */
	check_kernel(&r, COPY, 3, 1, 1, 2000);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerStart"), 4);
	run_free(&r);
}
END_TEST

/*
 * A window whose only range was dropped (numTotalRanges 0, numOfRangeDropped
 * 1) is discarded like one with two ranges, without evaluating a range that
 * is not in the image and without counting as a profiler failure.
 */
START_TEST(dropped_range_discarded)
{
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "dropped-ranges 3",
		"repeat 5 launch drv 1 " COPY " " K_DIMS " 0 2000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 5, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	/* Three discarded windows (counted, untimed), the fourth profiled, the fifth timed. */
	check_kernel(&r, COPY, 5, 1, 1, 2000);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerStart"), 4);
	run_free(&r);
}
END_TEST

/*
 * A signature whose launches never execute: every window fails, but only
 * 8 are opened (each leaves a profiled-launch entry: memory stays bounded
 * by signatures, not launches); the other signatures are unaffected.
 */
START_TEST(failed_windows_bounded)
{
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0",
		"repeat 50 launch drv 1 " SAXPY " " K_DIMS " 0 1000 noexec",
		"repeat 2 launch drv 1 " COPY " " K_DIMS " 0 2000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 2, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	check_kernel(&r, COPY, 2, 1, 1, 2000);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerStart"), 8 + 1);
	run_free(&r);
}
END_TEST

/* No permission for counters: one line naming the driver option; timing goes on. */
START_TEST(permission_denied)
{
	static const char *const cmds[] = {
		METRICS, "fail cuptiProfilerGetCounterAvailability 35", "init", "ctx 0",
		"repeat 4 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "exit 3", NULL,
	};
	struct run r;
	char *l1, *l3;
	json_t *p;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 3);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l3 = line_wrote(&r, 1, 4, 0);
	expect_lines(&r, (const char *const[]){
		l1,
		"[gpuproj] no permission to read GPU performance counters "
		"(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES from cuptiProfilerGetCounterAvailability); "
		"profiling needs root or the nvidia driver option "
		"NVreg_RestrictProfilingToAdminUsers=0 "
		"(https://developer.nvidia.com/ERR_NVGPUCTRPERM): metrics off, every launch is "
		"still timed (the profile will have durations but no projections)",
		l3, NULL });
	free(l1);
	free(l3);
	check_kernel(&r, SAXPY, 4, 0, 4, 1000);
	ck_assert_ptr_nonnull(strstr(attr(&r, "metrics"), "off: no permission"));
	p = projection_for(&r, "Double");
	ck_assert_int_eq(jint(p, "unprojected_kernels"), 1);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerEnable"), 0);
	run_free(&r);
}
END_TEST

/* Another profiler attached: gpuproj is off, says so once, changes nothing. */
START_TEST(multiple_subscribers)
{
	static const char *const cmds[] = {
		"fail cuptiSubscribe 39", "init", "ctx 0", "stdout unchanged",
		"repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000", "exit 7", NULL,
	};
	struct run r;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 7);
	ck_assert_str_eq(r.out, "unchanged\n");
	expect_no_violations(&r);
	expect_lines(&r, (const char *const[]){
		"[gpuproj] another CUPTI client is attached to this process (Nsight Systems or "
		"Compute, compute-sanitizer, cuda-gdb, or a framework's profiler; "
		"CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): gpuproj is off, the application "
		"runs unchanged; run it without the other tool to profile it", NULL });
	ck_assert_ptr_null(r.json);
	ck_assert_int_eq(test_count_dir(r.dir), 3); /* stdout, stderr, fake.txt */
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiActivityEnable"), 0);
	run_free(&r);
}
END_TEST

/*
 * The context is destroyed (on another thread) while a launch is being
 * profiled: the profiler object is released in CONTEXT_DESTROY_STARTING,
 * the window's metrics are dropped, and a later context profiles again.
 */
START_TEST(context_destroyed_mid_profile)
{
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0",
		"launch drv 1 " SAXPY " " K_DIMS " 0 1000 destroy-mid",
		"ctx 0", "repeat 2 launch drv 2 " SAXPY " " K_DIMS " 0 1000",
		"reset 2", "ctx 0", "repeat 2 launch rt 3 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 5, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	/* 1 aborted (counted, untimed), 1 profiled on context 2, 3 timed. */
	check_kernel(&r, SAXPY, 5, 1, 3, 1000);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerDisable"),
			  fake_report_calls(&r, "cuptiRangeProfilerEnable"));
	/* cudaDeviceReset flushes the activity buffers first. */
	ck_assert_uint_ge(fake_report_calls(&r, "cuptiActivityFlushAll"), 2);
	run_free(&r);
}
END_TEST

/* A forked child neither touches CUPTI nor writes the parent's report. */
START_TEST(fork_child_silent)
{
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000", "fork",
		"launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;
	char *child, *rep, *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0); /* 5 would mean the child failed */
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 2, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	/* stdout, stderr, fake.txt, fake.txt.child, out.json: nothing from the child. */
	ck_assert_int_eq(test_count_dir(r.dir), 5);
	child = fmt("%s/fake.txt.child", r.dir);
	rep = test_read_file(child);
	ck_assert_ptr_nonnull(rep);
	ck_assert_msg(strncmp(rep, "violations 0\n", 13) == 0, "child: %s", rep);
	free(rep);
	free(child);
	run_free(&r);
}
END_TEST

/* Threads launching concurrently: exact counts, one profiled launch per signature. */
START_TEST(threads_concurrent)
{
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0",
		"threads 4 300 launch rt 1 _Z6sharedv " K_DIMS " 0 1000",
		"threads 2 200 launch drv 1 _Z3ownILi%tEEvv " K_DIMS " 0 2000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 3, 1600, 3);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	check_kernel(&r, "_Z6sharedv", 1200, 1, 1199, 1000);
	check_kernel(&r, "_Z3ownILi0EEvv", 200, 1, 199, 2000);
	check_kernel(&r, "_Z3ownILi1EEvv", 200, 1, 199, 2000);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerStart"), 3);
	run_free(&r);
}
END_TEST

/* GB202 spells the DRAM directions differently: the second candidate is used. */
START_TEST(gb202_metric_fallback)
{
	static const char *const cmds[] = {
		"device 0 \"Fake RTX 5090\" GB202 12.0 170 2000000", METRICS,
		"metric dram__bytes_op_read.sum 6", "metric dram__bytes_op_write.sum 2",
		"metric dram__bytes_read.sum 1000", "init", "ctx 0",
		"repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;
	json_t *k;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake RTX 5090", "GB202", "12.0", 170, 38, 3);
	l3 = line_wrote(&r, 1, 2, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	ck_assert_str_eq(attr(&r, "metrics.GB202.bytes.dram_read"), "dram__bytes_op_read.sum");
	ck_assert_str_eq(attr(&r, "metrics.GB202.bytes.dram_write"), "dram__bytes_op_write.sum");
	k = check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	assert_close(kmetric(k, "bytes.dram_read"), 6 * THREADS, "dram read");
	assert_close(kmetric(k, "bytes.dram_write"), 2 * THREADS, "dram write");
	ck_assert_str_eq(json_string_value(json_object_get(r.json, "source_target")), "FakeRTX5090");
	run_free(&r);
}
END_TEST

/* Dropped activity records are counted, reported, and said. */
START_TEST(dropped_records)
{
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
		"drop 5", "repeat 10 launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 7, 1);
	expect_lines(&r, (const char *const[]){
		l1, l2, l3,
		"[gpuproj] CUPTI dropped 5 activity records (buffers full): those launches are "
		"missing from the counts and times", NULL });
	free3(l1, l2, l3);
	check_kernel(&r, SAXPY, 7, 1, 6, 1000);
	ck_assert_int_eq(jint(json_object_get(r.json, "run"), "dropped_records"), 5);
	run_free(&r);
}
END_TEST

/* Bad GPUPROJ_* values: one line each naming the variable and the default kept. */
START_TEST(bad_environment)
{
	static const char *const env[] = {
		"GPUPROJ_PROFILE_LAUNCHES=abc", "GPUPROJ_MODE=fast", "GPUPROJ_LIVE=-1",
		"GPUPROJ_KERNEL_REGEX=(", "GPUPROJ_OUTPUT=prof-%z.json", "GPUPROJ_SIGNALS=maybe",
		"GPUPROJ_PRELOAD=2", "GPUPROJ_MOD=timing", "GPUPROJ_LOG=loud", NULL,
	};
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;
	char *path, *l8, *l9, *l10;
	json_error_t jerr;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	/* The default output name, in the application's working directory. */
	ck_assert_ptr_null(r.json);
	{
		char *pid_json = NULL;
		const char *p = strstr(r.err, "report at exit: ");

		ck_assert_ptr_nonnull(p);
		pid_json = strndup(p + 16, strcspn(p + 16, "\n"));
		ck_assert_ptr_nonnull(strstr(pid_json, "gpuproj-"));
		path = fmt("%s/%s", r.dir, pid_json);
		r.json = json_load_file(path, 0, &jerr);
		ck_assert_msg(r.json != NULL, "%s: %s", path, jerr.text);
		l8 = fmt("[gpuproj] gpuproj %s (CUPTI 13.0 (API 130001)): timing every kernel "
			 "launch, profiling the first 1 launch of each kernel signature; report at "
			 "exit: %s", GPUPROJ_VERSION, pid_json);
		l10 = fmt("[gpuproj] wrote %s (1 kernel signature, 2 launches, 1 profiled)", pid_json);
		free(pid_json);
	}
	l9 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	expect_lines(&r, (const char *const[]){
		"[gpuproj] GPUPROJ_LOG='loud' is not one of debug, info, warn, error; using info",
		"[gpuproj] GPUPROJ_MODE='fast' is not one of full, timing, off; using full",
		"[gpuproj] GPUPROJ_PROFILE_LAUNCHES='abc' is not a non-negative integer (at most "
		"1000000); using 1",
		"[gpuproj] GPUPROJ_LIVE='-1' is not a positive number of seconds (at most 86400); "
		"live projection off",
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
	/* Defaults kept: mode full, 1 profiled launch, bad values echoed as given. */
	check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	ck_assert_str_eq(attr(&r, "env.GPUPROJ_PROFILE_LAUNCHES"), "abc");
	ck_assert_str_eq(attr(&r, "mode"), "full");
	ck_assert_str_eq(attr(&r, "profile_launches"), "1");
	run_free(&r);
}
END_TEST

/* CC 7.0: the legacy profiler + NVPW path. */
START_TEST(legacy_gv100)
{
	static const char *const cmds[] = {
		"device 0 \"Fake V100\" GV100 7.0 80 1380000", METRICS, "init", "ctx 0",
		"repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;
	json_t *k;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	/* No uniform datapath on GV100: 37 metrics. */
	l2 = line_device("Fake V100", "GV100", "7.0", 80, 37, 3);
	l3 = line_wrote(&r, 1, 3, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	k = check_kernel(&r, SAXPY, 3, 1, 2, 1000);
	assert_close(kmetric(k, "inst.fp32.fma"), 100 * THREADS, "ffma");
	assert_close(kmetric(k, "bytes.l1"), 32 * THREADS, "l1");
	ck_assert_str_eq(attr(&r, "metrics.GV100.api"), "legacy profiler + NVPW (CC 7.0)");
	ck_assert_ptr_nonnull(strstr(attr(&r, "metrics.GV100.inst.other"), "_op_misc_"));
	ck_assert_ptr_null(strstr(attr(&r, "metrics.GV100.inst.other"), "uniform"));
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiProfilerBeginSession"), 1);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerEnable"), 0);
	ck_assert_uint_eq(fake_report_calls(&r, "NVPW_MetricsEvaluator_EvaluateToGpuValues"), 1);
	run_free(&r);
}
END_TEST

/* GPUPROJ_MODE=timing: no launch callbacks, no profiler, every launch timed. */
START_TEST(timing_mode)
{
	static const char *const env[] = { "GPUPROJ_MODE=timing", NULL };
	static const char *const cmds[] = {
		"init", "ctx 0", "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;
	char *l1, *l3;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = fmt("[gpuproj] gpuproj %s (CUPTI 13.0 (API 130001)): timing every kernel launch, no "
		 "metrics (GPUPROJ_MODE=timing); report at exit: %s", GPUPROJ_VERSION, r.output);
	l3 = line_wrote(&r, 1, 3, 0);
	expect_lines(&r, (const char *const[]){ l1, l3, NULL });
	free(l1);
	free(l3);
	check_kernel(&r, SAXPY, 3, 0, 3, 1000);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiProfilerInitialize"), 0);
	/* Only cudaDeviceReset, contexts and the fatal-error state: no launch callbacks. */
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiEnableCallback"), 4);
	ck_assert_str_eq(attr(&r, "mode"), "timing");
	run_free(&r);
}
END_TEST

/* GPUPROJ_KERNEL_REGEX limits profiling; GPUPROJ_PROFILE_LAUNCHES=2 profiles two. */
START_TEST(kernel_regex_and_n)
{
	static const char *const env[] = {
		"GPUPROJ_KERNEL_REGEX=saxpy|nothing", "GPUPROJ_PROFILE_LAUNCHES=2", NULL,
	};
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "repeat 4 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
		"repeat 4 launch rt 1 " COPY " " K_DIMS " 0 2000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = fmt("[gpuproj] gpuproj %s (CUPTI 13.0 (API 130001)): timing every kernel launch, "
		 "profiling the first 2 launches of each kernel signature matching saxpy|nothing; "
		 "report at exit: %s", GPUPROJ_VERSION, r.output);
	l2 = fmt("[gpuproj] device 0: Fake A100 (GA100, CC 8.0, 108 SMs): 38 metrics in 3 passes; "
		 "the first 2 launches of each kernel signature run 3 times under kernel replay");
	l3 = line_wrote(&r, 2, 8, 2);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	check_kernel(&r, SAXPY, 4, 2, 2, 1000);
	check_kernel(&r, COPY, 4, 0, 4, 2000);
	ck_assert_str_eq(attr(&r, "kernel_regex"), "saxpy|nothing");
	run_free(&r);
}
END_TEST

/* A source GPU missing from targets.yaml: profile written, one line on what to do. */
START_TEST(source_not_in_targets)
{
	static const char *const cmds[] = {
		"device 0 \"Mystery GPU\" GA100 8.0 108 1410000", METRICS, "init", "ctx 0",
		"launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3, *l4;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Mystery GPU", "GA100", "8.0", 108, 38, 3);
	l3 = fmt("[gpuproj] the source GPU 'Mystery GPU' is not in targets.yaml (%s): the profile "
		 "is written without projections; add a targets.yaml entry (`gpuproj bench` writes "
		 "one) or project later with `gpuproj project --source NAME %s`", inject_targets(),
		 r.output);
	l4 = line_wrote(&r, 1, 1, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, l4, NULL });
	free3(l1, l2, l3);
	free(l4);
	ck_assert_uint_eq(r.table_lines, 0);
	ck_assert_int_eq(json_array_size(json_object_get(r.json, "projections")), 0);
	check_kernel(&r, SAXPY, 1, 1, 1, 1000); /* timed by the profiler */
	run_free(&r);
}
END_TEST

/* LD_PRELOAD alone: the constructor points CUDA_INJECTION64_PATH at the library. */
START_TEST(ld_preload)
{
	/* An ASan-built library needs the ASan runtime first in LD_PRELOAD. */
	const char *asan = getenv("INJECT_ASAN_RUNTIME");
	char *pre = asan && *asan ? fmt("LD_PRELOAD=%s %s", asan, inject_libproj())
				  : fmt("LD_PRELOAD=%s", inject_libproj());
	const char *const env[] = { "-CUDA_INJECTION64_PATH", pre, NULL };
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 2, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	run_free(&r);
	free(pre);
}
END_TEST

/* gpuproj run sets the variables and execs the application. */
START_TEST(gpuproj_run)
{
	struct run r;
	char *out;
	const char *argv[16];
	char *l2, *l3;

	memset(&r, 0, sizeof(r));
	out = fmt("%s/run-%%p.json", "."); /* relative: the application's cwd */
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
	run_prog(&r, (const char *const[]){ "-CUDA_INJECTION64_PATH", "-GPUPROJ_OUTPUT",
					    "-GPUPROJ_TARGETS", NULL }, argv);
	ck_assert_int_eq(r.status, 9);
	expect_no_violations(&r);
	ck_assert_uint_ge(r.n_lines, 3);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = fmt("[gpuproj] wrote out.json (1 kernel signature, 2 launches, 1 profiled)");
	ck_assert_str_eq(r.lines[1], l2);
	ck_assert_str_eq(r.lines[2], l3);
	free(l2);
	free(l3);
	free(out);
	{
		char *p = fmt("%s/out.json", r.dir);
		json_error_t jerr;

		json_decref(r.json);
		r.json = json_load_file(p, 0, &jerr);
		free(p);
	}
	ck_assert_ptr_nonnull(r.json);
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
		{ "run --live 0 -- true", 2, "gpuproj: run: --live needs a positive number of "
		  "seconds (at most 86400), not '0'\nTry 'gpuproj run --help'.\n" },
		{ "run --bogus -- true", 2, "gpuproj: run: unknown option '--bogus'\n"
		  "Try 'gpuproj run --help'.\n" },
		{ "run -- /nonexistent/app", 127, "gpuproj: run: cannot run '/nonexistent/app': No "
		  "such file or directory\n" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
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

/* GPUPROJ_SIGNALS=1: SIGTERM writes the report, then the process dies of SIGTERM. */
START_TEST(sigterm_report)
{
	static const char *const env[] = { "GPUPROJ_SIGNALS=1", NULL };
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
		"signal TERM", NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.signal, 15);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 2, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	ck_assert_str_eq(attr(&r, "report"), "signal SIGTERM");
	check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	run_free(&r);
}
END_TEST

/*
 * GPUPROJ_SIGNALS=1 and fork: the child inherits gpuproj's handler but not
 * its worker thread; SIGTERM and SIGINT must still kill the child (fake-app
 * exits 5 when one is swallowed), and the parent reports as usual.
 */
START_TEST(sigterm_fork_child)
{
	static const char *const env[] = { "GPUPROJ_SIGNALS=1", NULL };
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000",
		"fork-signal TERM", "fork-signal INT", "launch rt 1 " SAXPY " " K_DIMS " 0 1000",
		NULL,
	};
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 2, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	ck_assert_str_eq(attr(&r, "report"), "exit");
	check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	run_free(&r);
}
END_TEST

/*
 * stderr is a pipe whose reader is gone: gpuproj's lines raise no SIGPIPE
 * (the application, which writes nothing there, would not have died), and
 * the report is still written.
 */
START_TEST(stderr_broken_pipe)
{
	static const char *const cmds[] = {
		METRICS, "stderr-broken", "init", "ctx 0", "stdout hello",
		"repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL,
	};
	struct run r;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.signal, 0);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	ck_assert_str_eq(r.out, "hello\n");
	ck_assert_str_eq(r.err, "");
	ck_assert_ptr_nonnull(r.json);
	check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	run_free(&r);
}
END_TEST

/* Without GPUPROJ_SIGNALS a signal kills the process as usual; no report. */
START_TEST(sigterm_default)
{
	static const char *const cmds[] = {
		"init", "ctx 0", "launch rt 1 " SAXPY " " K_DIMS " 0 1000", "signal TERM", NULL,
	};
	struct run r;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.signal, 15);
	ck_assert_ptr_null(r.json);
	run_free(&r);
}
END_TEST

/* Live projection: a status line per period and a snapshot JSON. */
START_TEST(live_projection)
{
	static const char *const env[] = { "GPUPROJ_LIVE=0.05", NULL };
	static const char *const cmds[] = {
		METRICS, "init", "ctx 0", "repeat 3 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
		"flush", "sleep 400", NULL,
	};
	struct run r;
	char *live;
	json_t *snap;
	json_error_t jerr;
	size_t i, n_live = 0;
	const char *last = NULL;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	/* The last refresh has seen every record (the app flushed, then slept). */
	for (i = 0; i < r.n_lines; i++) {
		if (strncmp(r.lines[i], "[gpuproj] live ", 15) == 0) {
			n_live++;
			last = r.lines[i];
		}
	}
	ck_assert_ptr_nonnull(last);
	ck_assert_ptr_nonnull(strstr(last, ": 3 launches, 1 kernel, GPU 2.00 us | "));
	ck_assert_ptr_nonnull(strstr(last, "| Double 1.50 us (2.00x)"));
	ck_assert_ptr_nonnull(strstr(last, "| FakeA100 3.00 us (1.00x)"));
	ck_assert_uint_ge(n_live, 2);
	live = fmt("%s/out.live.json", r.dir);
	snap = json_load_file(live, 0, &jerr);
	ck_assert_msg(snap != NULL, "%s: %s", live, jerr.text);
	ck_assert_int_eq(json_array_size(json_object_get(snap, "projections")), 4);
	json_decref(snap);
	free(live);
	run_free(&r);
}
END_TEST

/* GPUPROJ_KEEP_CUBINS=1 keeps each module's bytes beside the report. */
START_TEST(keep_cubins)
{
	static const char *const env[] = { "GPUPROJ_KEEP_CUBINS=1", NULL };
	static const char *const cmds[] = { "init", "ctx 0", "module 1 7 1000", "module 1 7 1000",
					    "launch drv 1 " SAXPY " " K_DIMS " 0 1000", NULL };
	struct run r;
	char *dir, *l1, *l2, *l3;
	int n;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 1, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	ck_assert_str_eq(attr(&r, "env.GPUPROJ_KEEP_CUBINS"), "1");
	dir = fmt("%s/out.cubins", r.dir);
	n = test_count_dir(dir);
	ck_assert_int_eq(n, 1); /* the same bytes twice: one file */
	{
		FILE *p;
		char cmd[4200], name[512] = "";
		unsigned char buf[1000];
		size_t i;

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
	}
	free(dir);
	run_free(&r);
}
END_TEST

/* MPI rank in the output name (%r), and in the profile. */
START_TEST(mpi_rank)
{
	static const char *const env[] = { "OMPI_COMM_WORLD_RANK=3",
					   "GPUPROJ_OUTPUT=prof-%r-%q{MYTAG}-%h%%.json", "MYTAG=x",
					   NULL };
	static const char *const cmds[] = { "init", "ctx 0",
					    "launch drv 1 " SAXPY " " K_DIMS " 0 1000", NULL };
	struct run r;
	char *p;
	json_error_t jerr;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	{
		char host[256] = "";
		char *l3;

		gethostname(host, sizeof(host) - 1);
		p = fmt("%s/prof-3-x-%s%%.json", r.dir, host);
		l3 = fmt("[gpuproj] wrote prof-3-x-%s%%.json (1 kernel signature, 1 launch, 1 "
			 "profiled)", host);
		ck_assert_uint_eq(r.n_lines, 3);
		ck_assert_str_eq(r.lines[2], l3);
		free(l3);
	}
	json_decref(r.json);
	r.json = json_load_file(p, 0, &jerr);
	ck_assert_msg(r.json != NULL, "%s", jerr.text);
	ck_assert_int_eq(jint(json_object_get(r.json, "process"), "rank"), 3);
	free(p);
	run_free(&r);
}
END_TEST

/* With a rank and neither %r nor %p in the pattern, the rank goes before the extension. */
START_TEST(mpi_rank_inserted)
{
	static const char *const env[] = { "SLURM_PROCID=2", NULL };
	static const char *const cmds[] = { "init", "ctx 0",
					    "launch drv 1 " SAXPY " " K_DIMS " 0 1000", NULL };
	struct run r;
	char *p, *want;
	json_error_t jerr;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	ck_assert_ptr_null(r.json);
	p = fmt("%s/out.2.json", r.dir);
	want = fmt("[gpuproj] wrote %s (1 kernel signature, 1 launch, 1 profiled)", p);
	ck_assert_uint_eq(r.n_lines, 3);
	ck_assert_str_eq(r.lines[2], want);
	r.json = json_load_file(p, 0, &jerr);
	ck_assert_msg(r.json != NULL, "%s", jerr.text);
	ck_assert_int_eq(jint(json_object_get(r.json, "process"), "rank"), 2);
	free(want);
	free(p);
	run_free(&r);
}
END_TEST

/*
 * A pattern that only expands to "-" (or to nothing) falls back to the
 * default name: the report never goes to the application's stdout.
 */
START_TEST(output_expands_to_stdout)
{
	static const char *const cases[][3] = {
		{ "GPUPROJ_OUTPUT=%q{OUTDASH}", "OUTDASH=-",
		  "expands to '-', the application's standard output" },
		{ "GPUPROJ_OUTPUT=%q{OUTDASH}", "-OUTDASH", "expands to an empty path" },
	};
	static const char *const cmds[] = { "init", "ctx 0", "stdout hello",
					    "launch drv 1 " SAXPY " " K_DIMS " 0 1000", NULL };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const env[] = { cases[i][0], cases[i][1], NULL };
		struct run r;
		char *want, *path;
		const char *p;
		json_error_t jerr;

		run_app(&r, env, cmds);
		ck_assert_int_eq(r.status, 0);
		expect_no_violations(&r);
		ck_assert_str_eq(r.out, "hello\n");
		ck_assert_uint_eq(r.n_lines, 4);
		want = fmt("[gpuproj] GPUPROJ_OUTPUT='%%q{OUTDASH}' %s; using gpuproj-%%p.json",
			   cases[i][2]);
		ck_assert_str_eq(r.lines[0], want);
		free(want);
		p = strstr(r.err, "report at exit: ");
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(strncmp(p + 16, "gpuproj-", 8), 0);
		path = fmt("%s/%.*s", r.dir, (int)strcspn(p + 16, "\n"), p + 16);
		json_decref(r.json);
		r.json = json_load_file(path, 0, &jerr);
		ck_assert_msg(r.json != NULL, "%s: %s", path, jerr.text);
		ck_assert_int_eq(jint(kernel_named(&r, SAXPY, 0), "launches"), 1);
		free(path);
		run_free(&r);
	}
}
END_TEST

/* MPS: counters cannot be read by MPS clients; timing goes on. */
START_TEST(mps_timing_only)
{
	struct run r;
	char *dir = test_tmpdir(), *ctl, *env_mps, *l1, *l2, *l3;
	const char *env[2];
	static const char *const cmds[] = { "init", "ctx 0",
					    "launch drv 1 " SAXPY " " K_DIMS " 0 1000", NULL };

	ctl = test_write_file(dir, "control", "");
	env_mps = fmt("CUDA_MPS_PIPE_DIRECTORY=%s", dir);
	env[0] = env_mps;
	env[1] = NULL;
	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = fmt("[gpuproj] CUDA MPS is active (%s): MPS clients cannot read performance counters: "
		 "metrics off, every launch is still timed (the profile will have durations but no "
		 "projections)", ctl);
	l2 = line_init(&r);
	l3 = line_wrote(&r, 1, 1, 0);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	check_kernel(&r, SAXPY, 1, 0, 1, 1000);
	free(ctl);
	free(env_mps);
	test_rmtree(dir);
	free(dir);
	run_free(&r);
}
END_TEST

/* A device without profiler support (CC 6.0): timing only there. */
START_TEST(unsupported_device)
{
	static const char *const cmds[] = { "device 0 \"Fake P100\" GP100 6.0 56 1300000", "init",
					    "ctx 0", "repeat 2 launch drv 1 " SAXPY " " K_DIMS " 0 1000",
					    NULL };
	struct run r;
	char *l1, *l3, *l4;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l3 = line_wrote(&r, 1, 2, 0);
	l4 = fmt("[gpuproj] the source GPU 'Fake P100' is not in targets.yaml (%s): the profile is "
		 "written without projections; add a targets.yaml entry (`gpuproj bench` writes "
		 "one) or project later with `gpuproj project --source NAME %s`", inject_targets(),
		 r.output);
	expect_lines(&r, (const char *const[]){
		l1,
		"[gpuproj] device 0 (Fake P100): compute capability 6.0 has no CUPTI profiler (needs "
		">= 7.0): metrics off on this device, every launch is still timed",
		l4, l3, NULL });
	free(l4);
	free(l1);
	free(l3);
	check_kernel(&r, SAXPY, 2, 0, 2, 1000);
	ck_assert_str_eq(attr(&r, "device.0.metrics"),
			 "off: compute capability 6.0 has no CUPTI profiler (needs >= 7.0)");
	run_free(&r);
}
END_TEST

/* A CUPTI fatal error stops collection; what was collected is still written. */
START_TEST(fatal_error)
{
	static const char *const cmds[] = { METRICS, "init", "ctx 0",
					    "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000",
					    "flush", "fatal device lost",
					    "launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL };
	struct run r;
	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 2, 1);
	expect_lines(&r, (const char *const[]){
		l1, l2,
		"[gpuproj] CUPTI reported a fatal error (CUPTI_ERROR_UNKNOWN: device lost): "
		"collection stopped; what was collected so far is written at exit",
		l3, NULL });
	free3(l1, l2, l3);
	check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	run_free(&r);
}
END_TEST

/* Launches during stream capture are never profiled (a context sync would break it). */
START_TEST(stream_capture)
{
	static const char *const cmds[] = { METRICS, "init", "ctx 0", "capture-begin",
					    "launch rt 1 " SAXPY " " K_DIMS " 0 1000 noexec",
					    "capture-end",
					    "repeat 2 launch rt 1 " SAXPY " " K_DIMS " 0 1000", NULL };
	struct run r;

	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 1, 2, 1);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	check_kernel(&r, SAXPY, 2, 1, 1, 1000);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerStart"), 1);
	run_free(&r);
}
END_TEST

/*
 * Runtime launches without a nested driver callback (CUDA 13's
 * __cudaLaunchKernel carries no dimensions): gated by name; and a NULL
 * context at the runtime ENTER is skipped, the next launch profiled.
 */
START_TEST(runtime_only_and_null_context)
{
	static const char *const cmds[] = { METRICS, "init", "ctx 0",
					    "launch rt 1 " COPY " " K_DIMS " 0 2000 ctxnull",
					    "repeat 2 launch rt 1 " COPY " " K_DIMS " 0 2000",
					    "repeat 3 launch rt-only 1 " SAXPY " " K_DIMS " 0 1000",
					    NULL };
	struct run r;

	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 2, 6, 2);
	expect_lines(&r, (const char *const[]){ l1, l2, l3, NULL });
	free3(l1, l2, l3);
	check_kernel(&r, COPY, 3, 1, 2, 2000);
	check_kernel(&r, SAXPY, 3, 1, 2, 1000);
	run_free(&r);
}
END_TEST

/* The test double itself catches misuse: four broken rules, four violations. */
START_TEST(double_catches_misuse)
{
	static const char *const env[] = { "-CUDA_INJECTION64_PATH", NULL };
	static const char *const cmds[] = { "ctx 0", "selftest", NULL };
	struct run r;

	run_app(&r, env, cmds);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strncmp(r.report, "violations 4\n", 13) == 0, "%s", r.report);
	ck_assert_ptr_nonnull(strstr(r.report, "violation: cuptiProfilerInitialize: structSize is 0"));
	ck_assert_ptr_nonnull(strstr(r.report, "violation: cuptiRangeProfilerGetCounterDataSize: "
					       "not a range profiler object"));
	ck_assert_ptr_nonnull(strstr(r.report, "violation: cuptiRangeProfilerStart: "
					       "cuptiRangeProfilerSetConfig must come first"));
	ck_assert_ptr_nonnull(strstr(r.report, "violation: cuptiRangeProfilerDecodeData: "
					       "cuptiRangeProfilerStop must come first"));
	run_free(&r);
}
END_TEST

/* Two devices: kernels are kept apart by device, each profiled on its own. */
START_TEST(two_devices)
{
	static const char *const cmds[] = {
		"device 1 \"Fake A100\" GA100 8.0 108 1410000", METRICS, "init", "ctx 0", "ctx 1",
		"repeat 2 launch drv 1 " SAXPY " " K_DIMS " 0 1000",
		"repeat 2 launch drv 2 " SAXPY " " K_DIMS " 0 1500", NULL,
	};
	struct run r;
	json_t *ks, *k;
	size_t i, seen = 0;
	char *l1, *l2, *l3;

	run_app(&r, NULL, cmds);
	ck_assert_int_eq(r.status, 0);
	expect_no_violations(&r);
	l1 = line_init(&r);
	l2 = line_device("Fake A100", "GA100", "8.0", 108, 38, 3);
	l3 = line_wrote(&r, 2, 4, 2);
	/* Each device says what it collects; the chip is set up once. */
	expect_lines(&r, (const char *const[]){ l1, l2,
		"[gpuproj] device 1: Fake A100 (GA100, CC 8.0, 108 SMs): 38 metrics in 3 passes; the "
		"first 1 launch of each kernel signature runs 3 times under kernel replay", l3, NULL });
	free3(l1, l2, l3);
	ck_assert_int_eq(kernel_count(&r), 2);
	ks = json_object_get(r.json, "kernels");
	json_array_foreach(ks, i, k) {
		long long dev = jint(k, "device");

		ck_assert_int_eq(jint(k, "launches"), 2);
		ck_assert_int_eq(jint(k, "profiled_launches"), 1);
		assert_close(jreal(json_object_get(k, "duration_ns"), "mean"), dev ? 1500 : 1000,
			     "per-device duration");
		seen |= 1u << dev;
	}
	ck_assert_uint_eq(seen, 3);
	/* One chip set-up serves both devices; the second device is described too. */
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiProfilerHostGetConfigImage"), 1);
	ck_assert_uint_eq(fake_report_calls(&r, "cuptiRangeProfilerStart"), 2);
	run_free(&r);
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
}
END_TEST

static Suite *
inject_suite(void)
{
	Suite *s = suite_create("inject");
	TCase *tc = tcase_create("scenarios");

	tcase_set_timeout(tc, under_wrapper() ? 600 : 60);
	tcase_add_test(tc, first_n_then_timing);
	tcase_add_test(tc, ranges_zero_not_counted);
	tcase_add_test(tc, failed_windows_bounded);
	tcase_add_test(tc, dropped_range_discarded);
	tcase_add_test(tc, permission_denied);
	tcase_add_test(tc, multiple_subscribers);
	tcase_add_test(tc, context_destroyed_mid_profile);
	tcase_add_test(tc, fork_child_silent);
	tcase_add_test(tc, threads_concurrent);
	tcase_add_test(tc, gb202_metric_fallback);
	tcase_add_test(tc, dropped_records);
	tcase_add_test(tc, bad_environment);
	tcase_add_test(tc, legacy_gv100);
	tcase_add_test(tc, timing_mode);
	tcase_add_test(tc, kernel_regex_and_n);
	tcase_add_test(tc, source_not_in_targets);
	tcase_add_test(tc, ld_preload);
	tcase_add_test(tc, gpuproj_run);
	tcase_add_test(tc, gpuproj_run_usage);
	tcase_add_test(tc, sigterm_report);
	tcase_add_test(tc, sigterm_default);
	tcase_add_test(tc, sigterm_fork_child);
	tcase_add_test(tc, stderr_broken_pipe);
	tcase_add_test(tc, live_projection);
	tcase_add_test(tc, keep_cubins);
	tcase_add_test(tc, mpi_rank);
	tcase_add_test(tc, mpi_rank_inserted);
	tcase_add_test(tc, output_expands_to_stdout);
	tcase_add_test(tc, mps_timing_only);
	tcase_add_test(tc, unsupported_device);
	tcase_add_test(tc, fatal_error);
	tcase_add_test(tc, stream_capture);
	tcase_add_test(tc, runtime_only_and_null_context);
	tcase_add_test(tc, double_catches_misuse);
	tcase_add_test(tc, two_devices);
	if (!under_wrapper())
		tcase_add_test(tc, exported_symbols);
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
