/* SPDX-License-Identifier: MIT */
/*
 * `gpuproj project --format trace` (src/project-trace.c,
 * include/gpuproj/trace.h): the Chrome trace-event JSON's structure, its
 * event counts worked by hand, the source process reproducing the
 * recorded span, each target's process agreeing with the whole-run
 * projection, the envelope's args, --expand, the bound and bad usage.
 *
 * The profile: kernels k0 (10 us) and k1 (20 us) without counters, and a
 * timeline of two patterns on one thread (test-timeline.c's):
 *   serial, 3 epochs of 31500: host 1000, k0 [1000, 11000] and k1
 *   [11000, 31000] on stream slot 0, a device synchronise returning 500
 *   after k1;
 *   copy, 2 epochs of 42000: a blocking pinned H2D of 10^6 B;
 * and 10000 ns in an unexplained epoch; traced wall 200000, span 188500.
 * Targets: tests/data/targets-trace.yaml (Tgt doubles Src's rates).
 */
#include "config.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuproj/profile.h>
#include <gpuproj/timeline.h>
#include <gpuproj/trace.h>

#include "common.h"

#define N GPUPROJ_TL_NONE

static char *dir, *profile, *nocount;

static struct gpuproj_tl_raw
op(enum gpuproj_tl_op o, uint16_t stream, uint64_t cs, uint64_t ce, uint64_t os, uint64_t oe)
{
	return (struct gpuproj_tl_raw){ .op = o, .stream = stream, .event = N, .call_start = cs,
					.call_end = ce, .op_start = os, .op_end = oe };
}

/* The profile of the file comment; `epochs` of the serial pattern (3 here). */
static char *
write_profile(const char *name, uint64_t epochs)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature a = { .name = "_Z2k0v", .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct gpuproj_signature b = { .name = "_Z2k1v", .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct gpuproj_kernel *k0, *k1;
	struct gpuproj_timeline *tl = gpuproj_timeline_new();
	struct gpuproj_tl_raw ser[] = {
		op(GPUPROJ_TL_KERNEL, 0, 1000, 1000, 1000, 11000),
		op(GPUPROJ_TL_KERNEL, 0, 1000, 1000, 11000, 31000),
		{ .op = GPUPROJ_TL_SYNC_DEVICE, .stream = N, .event = N, .call_start = 1000,
		  .call_end = 31500 },
	};
	struct gpuproj_tl_raw copy[] = { op(GPUPROJ_TL_COPY, 0, 0, 42000, 0, 42000) };
	struct gpuproj_tl_pattern pat;
	struct gpuproj_error err = { 0 };
	char *path = NULL;
	uint64_t i;

	ck_assert_int_eq(gpuproj_profile_kernel(p, &a, &k0), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_profile_kernel(p, &b, &k1), GPUPROJ_OK);
	gpuproj_kernel_add_duration(k0, 10000);
	gpuproj_kernel_add_duration(k1, 20000);
	gpuproj_profile_set_device(p, "Src GPU", NULL, "GA100", 8, 0, 100, 1e9);
	ser[0].kernel = k0;
	ser[1].kernel = k1;
	copy[0].copy = GPUPROJ_COPY_H2D;
	copy[0].pinned = copy[0].blocking = true;
	copy[0].bytes = 1000000;
	ck_assert_int_eq(gpuproj_tl_epoch_fold(ser, 3, 0, 31500, &pat), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 4096, NULL), GPUPROJ_OK);
	gpuproj_tl_pattern_clear(&pat);
	/* The same epoch `epochs` times: one sample each (Welford of equal values). */
	for (i = 1; i < epochs; i++) {
		struct gpuproj_tl_pattern *q = &tl->patterns[0];
		size_t j;

		gpuproj_stats_add(&q->wall_ns, 31500);
		for (j = 0; j < q->n_nodes; j++) {
			struct gpuproj_tl_node *n = &q->nodes[j];

			gpuproj_stats_add(&n->gap_ns, n->gap_ns.mean);
			gpuproj_stats_add(&n->call_ns, n->call_ns.mean);
			if (n->lat_ns.n)
				gpuproj_stats_add(&n->lat_ns, n->lat_ns.mean);
			if (n->dur_ns.n)
				gpuproj_stats_add(&n->dur_ns, n->dur_ns.mean);
		}
	}
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(gpuproj_tl_epoch_fold(copy, 1, 0, 42000, &pat), GPUPROJ_OK);
		ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 4096, NULL), GPUPROJ_OK);
		gpuproj_tl_pattern_clear(&pat);
	}
	tl->unexplained[GPUPROJ_TL_WHY_PROFILED].epochs = 1;
	tl->unexplained[GPUPROJ_TL_WHY_PROFILED].ns = 10000;
	tl->threads = 1;
	tl->span_ns = (double)epochs * 31500 + 2 * 42000 + 10000;
	tl->wall_ns = tl->span_ns + 11500;
	gpuproj_profile_set_timeline(p, tl);
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		ck_abort();
	ck_assert_msg(gpuproj_profile_save(p, path, &err) == GPUPROJ_OK, "%s", err.message);
	gpuproj_profile_free(p);
	return path;
}

static void
setup(void)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature a = { .name = "_Z2k0v", .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct gpuproj_kernel *k;

	dir = test_tmpdir();
	profile = write_profile("p.json", 3);
	/* A profile without a timeline. */
	ck_assert_int_eq(gpuproj_profile_kernel(p, &a, &k), GPUPROJ_OK);
	gpuproj_kernel_add_duration(k, 10000);
	gpuproj_profile_set_device(p, "Src GPU", NULL, "GA100", 8, 0, 100, 1e9);
	if (asprintf(&nocount, "%s/notl.json", dir) < 0)
		ck_abort();
	ck_assert_int_eq(gpuproj_profile_save(p, nocount, NULL), GPUPROJ_OK);
	gpuproj_profile_free(p);
}

static void
teardown(void)
{
	test_rmtree(dir);
	free(dir);
	free(profile);
	free(nocount);
}

/* Run the command on `prof` into DIR/t.json and parse it; exit status checked. */
static json_t *
trace_of(const char *prof, const char *extra)
{
	char *out = NULL, *err = NULL, *path = NULL;
	json_error_t je;
	json_t *j;
	int rc;

	if (asprintf(&path, "%s/t.json", dir) < 0)
		ck_abort();
	rc = test_cli(&out, &err, "project '%s' --targets '%s' --format trace %s -o '%s'", prof,
		      test_data("targets-trace.yaml"), extra, path);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_str_eq(out, "");
	j = json_load_file(path, 0, &je);
	ck_assert_msg(j != NULL, "%s:%d: %s", path, je.line, je.text);
	free(out);
	free(err);
	free(path);
	return j;
}

static json_t *
trace(const char *extra)
{
	return trace_of(profile, extra);
}

/* Complete events of process `pid` (and category `cat`, or any). */
static size_t
count(json_t *ev, int pid, const char *cat)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach(ev, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0 ||
		    json_integer_value(json_object_get(e, "pid")) != pid)
			continue;
		if (!cat || strcmp(json_string_value(json_object_get(e, "cat")), cat) == 0)
			n++;
	}
	return n;
}

/* The last end (ts + dur) of process `pid`'s complete events, µs. */
static double
end_of(json_t *ev, int pid)
{
	double m = 0;
	size_t i;
	json_t *e;

	json_array_foreach(ev, i, e) {
		if (strcmp(json_string_value(json_object_get(e, "ph")), "X") != 0 ||
		    json_integer_value(json_object_get(e, "pid")) != pid)
			continue;
		m = fmax(m, json_number_value(json_object_get(e, "ts")) +
			       json_number_value(json_object_get(e, "dur")));
	}
	return m;
}

static void
near(double got, double want, const char *what)
{
	ck_assert_msg(fabs(got - want) <= 1e-9 * fmax(1, fabs(want)), "%s: got %.17g, want %.17g",
		      what, got, want);
}

/*
 * Structure: an object with displayTimeUnit, otherData and traceEvents;
 * every event an object with ph "X" or "M", integer pid and tid; a
 * complete event with a name, a category, ts ≥ 0, dur ≥ 0 and args; two
 * processes named, source first.
 */
START_TEST(structure)
{
	json_t *j = trace("--target Tgt"), *ev = json_object_get(j, "traceEvents"), *e;
	size_t i, names = 0;

	ck_assert_str_eq(json_string_value(json_object_get(j, "displayTimeUnit")), "ns");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "otherData"),
							   "source")), "Src");
	ck_assert(json_is_array(ev));
	json_array_foreach(ev, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));

		ck_assert_ptr_nonnull(ph);
		ck_assert(json_is_integer(json_object_get(e, "pid")));
		ck_assert(json_is_integer(json_object_get(e, "tid")));
		ck_assert(json_is_object(json_object_get(e, "args")));
		if (strcmp(ph, "M") == 0) {
			if (strcmp(json_string_value(json_object_get(e, "name")),
				   "process_name") == 0) {
				const char *n = json_string_value(json_object_get(
					json_object_get(e, "args"), "name"));

				ck_assert_str_eq(n, names++ ? "Tgt (hroof-occ)"
							    : "Src (source, as recorded)");
			}
			continue;
		}
		ck_assert_str_eq(ph, "X");
		ck_assert(json_is_string(json_object_get(e, "name")));
		ck_assert(json_is_string(json_object_get(e, "cat")));
		ck_assert(json_number_value(json_object_get(e, "ts")) >= 0);
		ck_assert(json_number_value(json_object_get(e, "dur")) >= 0);
	}
	ck_assert_uint_eq(names, 2);
	json_decref(j);
}
END_TEST

/*
 * Counts, per process, each pattern drawn once: 2 pattern events; host
 * gaps: the serial epoch's first call (1000; the others follow at once):
 * 1; calls: 3 + 1 = 4; kernels 2; copies 1; carried 1 (10000 unexplained
 * + 11500 outside any epoch).
 * The source process ends at the recorded wall: 3 · 31500 + 2 · 42000 +
 * 21500 = 200000 ns = 200 us. Tgt: k0, k1 by the envelope (both ratios
 * 1/2: 5000 and 10000), so a serial epoch is 1000 + 5000 + 10000 + 500 =
 * 16500; the 1 MB pinned copy 2 us + 10^6 / 50 GB/s = 22000 (Src:
 * 2 + 40 us, measured 42000); 3 · 16500 + 2 · 22000 + 21500 = 115000.
 */
START_TEST(counts_and_span)
{
	json_t *j = trace("--target Tgt"), *ev = json_object_get(j, "traceEvents"), *e;
	size_t i;
	int pid;

	for (pid = 1; pid <= 2; pid++) {
		ck_assert_uint_eq(count(ev, pid, "pattern"), 2);
		ck_assert_uint_eq(count(ev, pid, "host"), 1);
		ck_assert_uint_eq(count(ev, pid, "call"), 4);
		ck_assert_uint_eq(count(ev, pid, "kernel"), 2);
		ck_assert_uint_eq(count(ev, pid, "copy"), 1);
		ck_assert_uint_eq(count(ev, pid, "carried"), 1);
	}
	near(end_of(ev, 1), 200, "source process: the recorded wall");
	near(end_of(ev, 2), 115, "Tgt process: the projected wall");
	/* The envelope's kernel k0 on Tgt, with its interval and binding. */
	json_array_foreach(ev, i, e) {
		json_t *a = json_object_get(e, "args");

		if (json_integer_value(json_object_get(e, "pid")) != 2 ||
		    strcmp(json_string_value(json_object_get(e, "name")), "_Z2k0v") != 0)
			continue;
		near(json_number_value(json_object_get(e, "dur")), 5, "k0 on Tgt, us");
		near(json_number_value(json_object_get(a, "source_ns")), 10000, "k0 source");
		near(json_number_value(json_object_get(a, "projected_ns")), 5000, "k0 projected");
		near(json_number_value(json_object_get(a, "lo_ns")), 5000, "k0 lo");
		near(json_number_value(json_object_get(a, "hi_ns")), 5000, "k0 hi");
		ck_assert_str_eq(json_string_value(json_object_get(a, "binding")), "unknown");
		ck_assert_str_eq(json_string_value(json_object_get(a, "assumed")),
				 "binding unknown");
		ck_assert_str_eq(json_string_value(json_object_get(a, "model")), "envelope");
	}
	json_decref(j);
}
END_TEST

/* The same numbers as the whole-run projection (`--format json`), for every target. */
START_TEST(agrees_with_projection)
{
	json_t *j = trace(""), *ev = json_object_get(j, "traceEvents"), *pj, *runs, *r;
	char *out = NULL, *err = NULL;
	json_error_t je;
	size_t i;

	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --targets '%s' --format json", profile,
				  test_data("targets-trace.yaml")), 0);
	pj = json_loads(out, 0, &je);
	ck_assert_ptr_nonnull(pj);
	runs = json_object_get(pj, "projections");
	ck_assert_uint_eq(json_array_size(runs), 2);
	json_array_foreach(runs, i, r) {
		json_t *w = json_object_get(r, "whole_run");

		near(end_of(ev, (int)i + 2) * 1e3, json_number_value(json_object_get(w, "wall_ns")),
		     json_string_value(json_object_get(r, "target")));
	}
	json_decref(pj);
	json_decref(j);
	free(out);
	free(err);
}
END_TEST

/*
 * Carried work in the trace: a cut epoch [0, 1000] launches k0 (call [0,
 * 500], runs [500, 10500]) and k1 (call [500, 1000], runs [10500, 30500]);
 * the next epoch [1000, 31000] carries that work on slot 0 (29500 from
 * its start) and synchronises the device, returning 500 after it. On Tgt
 * k0 and k1 take half (5000, 10000: the envelope), so the cut epoch's
 * ratio is 15000 / 30000 and the carried work 14750: the cut epoch keeps
 * its host time, 1000, the next takes 14750 + 500 = 15250; the whole run
 * 16250 against the source's 31000, as `--format json` has it. The
 * carried work is drawn on its stream (no host call), 14.75 us from 1 us.
 */
static char *
write_carry_profile(const char *name)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature a = { .name = "_Z2k0v", .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct gpuproj_signature b = { .name = "_Z2k1v", .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct gpuproj_kernel *k0, *k1;
	struct gpuproj_timeline *tl = gpuproj_timeline_new();
	struct gpuproj_tl_raw cut[] = {
		op(GPUPROJ_TL_KERNEL, 0, 0, 500, 500, 10500),
		op(GPUPROJ_TL_KERNEL, 0, 500, 1000, 10500, 30500),
	};
	struct gpuproj_tl_raw next[] = {
		op(GPUPROJ_TL_CARRY, 0, 1000, 1000, 1000, 30500),
		{ .op = GPUPROJ_TL_SYNC_DEVICE, .stream = N, .event = N, .call_start = 1000,
		  .call_end = 31000 },
	};
	struct gpuproj_tl_pattern pat;
	struct gpuproj_error err = { 0 };
	char *path = NULL;

	ck_assert_int_eq(gpuproj_profile_kernel(p, &a, &k0), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_profile_kernel(p, &b, &k1), GPUPROJ_OK);
	gpuproj_kernel_add_duration(k0, 10000);
	gpuproj_kernel_add_duration(k1, 20000);
	gpuproj_profile_set_device(p, "Src GPU", NULL, "GA100", 8, 0, 100, 1e9);
	cut[0].kernel = k0;
	cut[1].kernel = k1;
	ck_assert_int_eq(gpuproj_tl_epoch_fold(cut, 2, 0, 1000, &pat), GPUPROJ_OK);
	pat.cut = true;
	ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 4096, NULL), GPUPROJ_OK);
	gpuproj_tl_pattern_clear(&pat);
	ck_assert_int_eq(gpuproj_tl_epoch_fold(next, 2, 1000, 31000, &pat), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 4096, NULL), GPUPROJ_OK);
	gpuproj_tl_pattern_clear(&pat);
	tl->threads = 1;
	tl->span_ns = tl->wall_ns = 31000;
	gpuproj_profile_set_timeline(p, tl);
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		ck_abort();
	ck_assert_msg(gpuproj_profile_save(p, path, &err) == GPUPROJ_OK, "%s", err.message);
	gpuproj_profile_free(p);
	return path;
}

START_TEST(carried_work)
{
	char *prof = write_carry_profile("carry.json"), *out = NULL, *err = NULL;
	json_t *j = trace_of(prof, "--target Tgt"), *ev = json_object_get(j, "traceEvents"), *e;
	json_t *pj, *w;
	json_error_t je;
	size_t i, seen = 0;

	for (i = 1; i <= 2; i++) {
		ck_assert_uint_eq(count(ev, (int)i, "carried_work"), 1);
		/* 2 launches and the synchronisation; the carried node is no call */
		ck_assert_uint_eq(count(ev, (int)i, "call"), 3);
	}
	near(end_of(ev, 1), 31, "source: the recorded wall");
	near(end_of(ev, 2), 16.25, "Tgt: the cut epoch's host time and the carried work");
	json_array_foreach(ev, i, e) {
		json_t *a = json_object_get(e, "args");

		if (!json_is_string(json_object_get(e, "cat")) ||
		    strcmp(json_string_value(json_object_get(e, "cat")), "carried_work") != 0)
			continue;
		ck_assert_str_eq(json_string_value(json_object_get(e, "name")),
				 "carried: the cut epoch's GPU work");
		near(json_number_value(json_object_get(e, "ts")), 1, "from the epoch's start");
		near(json_number_value(json_object_get(a, "source_ns")), 29500, "carried source");
		if (json_integer_value(json_object_get(e, "pid")) == 1) {
			near(json_number_value(json_object_get(e, "dur")), 29.5, "carried on Src");
			ck_assert_str_eq(json_string_value(json_object_get(a, "binding")),
					 "measured");
		} else {
			near(json_number_value(json_object_get(e, "dur")), 14.75, "carried on Tgt");
			near(json_number_value(json_object_get(a, "projected_ns")), 14750,
			     "projected");
			ck_assert_str_eq(json_string_value(json_object_get(a, "binding")),
					 "the thread's cut epochs' GPU time, target over source");
		}
		seen++;
	}
	ck_assert_uint_eq(seen, 2);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --targets '%s' --target Tgt --format "
				  "json", prof, test_data("targets-trace.yaml")), 0);
	pj = json_loads(out, 0, &je);
	ck_assert_ptr_nonnull(pj);
	w = json_object_get(json_array_get(json_object_get(pj, "projections"), 0), "whole_run");
	near(json_number_value(json_object_get(w, "wall_ns")), 16250, "the projection's wall");
	ck_assert(json_is_false(json_object_get(w, "floored")));
	json_decref(pj);
	json_decref(j);
	free(out);
	free(err);
	free(prof);
}
END_TEST

/*
 * --expand 2: the serial pattern's first 2 of 3 epochs and both copy
 * epochs drawn: gaps 2, calls 2 · 3 + 2 = 8, kernels 4, copies 2; the
 * second serial epoch 31.5 us after the first. The span is unchanged.
 */
START_TEST(expand)
{
	json_t *j = trace("--target Tgt --expand 2"), *ev = json_object_get(j, "traceEvents"), *e;
	double first = -1, second = -1;
	size_t i;

	ck_assert_uint_eq(count(ev, 1, "pattern"), 2);
	ck_assert_uint_eq(count(ev, 1, "host"), 2);
	ck_assert_uint_eq(count(ev, 1, "call"), 8);
	ck_assert_uint_eq(count(ev, 1, "kernel"), 4);
	ck_assert_uint_eq(count(ev, 1, "copy"), 2);
	near(end_of(ev, 1), 200, "source span with --expand");
	json_array_foreach(ev, i, e) {
		if (json_integer_value(json_object_get(e, "pid")) != 1 ||
		    strcmp(json_string_value(json_object_get(e, "name")), "_Z2k0v") != 0)
			continue;
		if (first < 0)
			first = json_number_value(json_object_get(e, "ts"));
		else
			second = json_number_value(json_object_get(e, "ts"));
	}
	near(first, 1, "k0 of epoch 0, us");
	near(second, 32.5, "k0 of epoch 1, us");
	json_decref(j);
}
END_TEST

/*
 * Bounded: 10^6 epochs of the serial pattern drawn 100000 times: per
 * process 5 + (1 + 100000 · 14) + (1 + 2 · 5) + 4 = 1400021 events
 * (trace.c count_events(): a node's gap, call, op and its stream's two
 * names), on two GPUs 2800042 > 2000000: refused, nothing written.
 */
START_TEST(bounded)
{
	char *big = write_profile("big.json", 1000000), *out = NULL, *err = NULL, *path = NULL;
	struct stat st;

	if (asprintf(&path, "%s/big-trace.json", dir) < 0)
		ck_abort();
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --targets '%s' --target Tgt --format "
				  "trace --expand 100000 -o '%s'", big,
				  test_data("targets-trace.yaml"), path), 2);
	ck_assert_str_eq(err, "gpuproj: the trace would hold up to 2800042 events (2 GPUs, 100000 "
			 "epochs drawn per pattern), more than 2000000: name fewer targets with "
			 "--target or draw fewer epochs with --expand\n");
	ck_assert_int_ne(stat(path, &st), 0);
	free(out);
	free(err);
	free(path);
	free(big);
}
END_TEST

/* Bad usage and a profile without a timeline: one line each, nothing written. */
START_TEST(bad_usage)
{
	char *out = NULL, *err = NULL, *want = NULL;
	const char *t = test_data("targets-trace.yaml");

	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --targets '%s' --expand 2", profile, t),
			 2);
	ck_assert_str_eq(err, "gpuproj: project: --expand needs --format trace\n"
			 "Try 'gpuproj project --help'.\n");
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --targets '%s' --format trace --model "
				  "all", profile, t), 2);
	ck_assert_str_eq(err, "gpuproj: project: --format trace draws one model, not --model all\n"
			 "Try 'gpuproj project --help'.\n");
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --targets '%s' --format trace "
				  "--expand 100001", profile, t), 2);
	ck_assert_str_eq(err, "gpuproj: --expand 100001 is above 100000 epochs per pattern\n");
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --targets '%s' --format trace", nocount,
				  t), 2);
	if (asprintf(&want, "gpuproj: %s: no whole-run timeline to draw: the profile has none "
		     "(libproj.so records one; so does `gpuproj import nsys`)\n", nocount) < 0)
		ck_abort();
	ck_assert_str_eq(err, want);
	ck_assert_str_eq(out, "");
	free(want);
	free(out);
	free(err);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("trace");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, structure);
	tcase_add_test(tc, counts_and_span);
	tcase_add_test(tc, agrees_with_projection);
	tcase_add_test(tc, carried_work);
	tcase_add_test(tc, expand);
	tcase_add_test(tc, bounded);
	tcase_add_test(tc, bad_usage);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
