/* SPDX-License-Identifier: MIT */
/*
 * Merging per-rank profiles: the library (suite "merge", meson suite
 * 'unit') and `gpuproj merge` end to end (suite "merge-cli", argument
 * "cli", meson suite 'integration').
 *
 * Fixtures (tests/data/merge-*.json), application /opt/lulesh/lulesh2.0 on
 * "Test Source GPU" (SrcGPU of targets-test.yaml), every launch timed,
 * launch spread 0 within a rank; kernels DRAM-bound (bytes.l1 = l2 = dram),
 * so TgtGPU projects at 100/400 = 0.25 of the source time:
 *
 *   rank 0 (node1): stencil 10 × 100 µs (bytes 1e6), reduce 5 × 20 µs
 *   rank 1 (node1, device 1): stencil 10 × 120 µs (bytes 2e6), halo 1 × 50 µs
 *   rank 2 (node2): stencil 20 × 90 µs (bytes 3e6), reduce 5 × 20 µs
 *
 * Job: stencil 40 launches, Σ 1000 + 1200 + 1800 = 4000 µs, mean 100 µs,
 *   m2 = Σ n_i (mean_i − 100)² = 10·0 + 10·400 + 20·100 = 6000 µs²,
 *   bytes.dram (1e6 + 2e6 + 3e6) / 3 = 2e6 (3 profiled launches).
 *   Per-rank totals 1000, 1200, 1800 µs: mean 1333.33, min 1000, max 1800,
 *   imbalance 1800 / 1333.33 − 1 = 0.35, present 3.
 * reduce: 10 launches, per-rank 100, 0, 100 µs: mean 66.67, imbalance 0.5,
 *   present 2. halo: per-rank 0, 50, 0 µs: mean 16.67, imbalance 2, present 1.
 * Run: per-rank Σ kernel time 1100, 1250, 1900 µs: mean 1416.67, max 1900,
 *   imbalance 0.341176; wall = max 6 ms; gpu_ns Σ 4.25 ms; hosts differ → none.
 *   Projection onto TgtGPU: 4.25 ms × 0.25 = 1.0625 ms.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuproj/merge.h>
#include <gpuproj/profile.h>

#include "common.h"

#define US 1000.0
#define EQ(v, x) ck_assert_double_eq_tol((v), (x), 1e-9 * fabs((double)(x)) + 1e-9)

static struct gpuproj_kernel *
find(const struct gpuproj_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		if (strcmp(gpuproj_profile_at(p, i)->name, name) == 0)
			return gpuproj_profile_at(p, i);
	}
	return NULL;
}

struct calls {
	size_t done[8], total[8], n;
	char warnings[4][GPUPROJ_ERROR_MSG_SIZE];
	size_t n_warnings;
};

static void
on_progress(void *userdata, size_t done, size_t total)
{
	struct calls *c = userdata;

	if (c->n < 8) {
		c->done[c->n] = done;
		c->total[c->n] = total;
	}
	c->n++;
}

static void
on_warn(void *userdata, const char *msg)
{
	struct calls *c = userdata;

	if (c->n_warnings < 4)
		snprintf(c->warnings[c->n_warnings], sizeof(c->warnings[0]), "%s", msg);
	c->n_warnings++;
}

static struct gpuproj_profile *
merge_three(struct calls *calls)
{
	const char *paths[3];
	struct gpuproj_merge_options o = { .progress = on_progress, .progress_userdata = calls };
	struct gpuproj_profile *job = NULL;
	struct gpuproj_error e = { 0 };

	paths[0] = test_data("merge-rank0.json");
	paths[1] = test_data("merge-rank1.json");
	paths[2] = test_data("merge-rank2.json");
	ck_assert_msg(gpuproj_merge_files(paths, 3, &o, &job, &e) == 0, "%s", e.message);
	return job;
}

static void
check_job(const struct gpuproj_profile *job)
{
	const struct gpuproj_run_info *run = gpuproj_profile_run_info(job);
	const struct gpuproj_process_info *pr = gpuproj_profile_process(job);
	const struct gpuproj_kernel *k;

	ck_assert_uint_eq(gpuproj_profile_count(job), 3);
	ck_assert_str_eq(gpuproj_profile_attr(job, "merged_ranks"), "3");
	ck_assert_str_eq(gpuproj_profile_device(job)->name, "Test Source GPU");
	ck_assert_int_eq(pr->rank, -1);
	ck_assert_int_eq(pr->pid, -1);
	ck_assert_ptr_null(pr->host);
	ck_assert_str_eq(pr->application, "/opt/lulesh/lulesh2.0");
	EQ(run->wall_ns, 6e6);
	EQ(run->gpu_ns, 4.25e6);
	ck_assert_uint_eq(run->ranks.time_ns.n, 3);
	ck_assert_uint_eq(run->ranks.present, 3);
	EQ(run->ranks.time_ns.mean, 1416.666666666667 * US);
	EQ(run->ranks.time_ns.min, 1100 * US);
	EQ(run->ranks.time_ns.max, 1900 * US);
	EQ(gpuproj_merge_imbalance(&run->ranks), 1900.0 / (4250.0 / 3) - 1);

	/* Longest first. */
	k = gpuproj_profile_at(job, 0);
	ck_assert_str_eq(k->name, "stencil");
	ck_assert_int_eq(k->device, 0);
	ck_assert_uint_eq(k->launches, 40);
	ck_assert_uint_eq(k->profiled, 3);
	ck_assert_uint_eq(k->duration_ns.n, 40);
	EQ(k->duration_ns.sum, 4000 * US);
	EQ(k->duration_ns.mean, 100 * US);
	EQ(k->duration_ns.m2, 6000 * US * US);
	EQ(k->duration_ns.min, 90 * US);
	EQ(k->duration_ns.max, 120 * US);
	EQ(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM), 2e6);
	ck_assert_uint_eq(k->metric_n[GPUPROJ_M_BYTES_DRAM], 3);
	ck_assert_uint_eq(k->ranks.time_ns.n, 3);
	ck_assert_uint_eq(k->ranks.present, 3);
	EQ(k->ranks.time_ns.mean, 4000.0 / 3 * US);
	EQ(k->ranks.time_ns.min, 1000 * US);
	EQ(k->ranks.time_ns.max, 1800 * US);
	/* m2 over 1000, 1200, 1800: 111111.1 + 17777.8 + 217777.8 µs². */
	EQ(k->ranks.time_ns.m2, 346666.6666666667 * US * US);
	EQ(gpuproj_merge_imbalance(&k->ranks), 0.35);

	k = find(job, "reduce");
	ck_assert_uint_eq(k->launches, 10);
	ck_assert_uint_eq(k->ranks.time_ns.n, 3);
	ck_assert_uint_eq(k->ranks.present, 2);
	EQ(k->ranks.time_ns.min, 0);
	EQ(gpuproj_merge_imbalance(&k->ranks), 0.5);
	k = find(job, "halo");
	ck_assert_uint_eq(k->ranks.present, 1);
	EQ(k->ranks.time_ns.mean, 50.0 / 3 * US);
	EQ(gpuproj_merge_imbalance(&k->ranks), 2.0);
}

START_TEST(merge_three_ranks)
{
	struct calls calls = { 0 };
	struct gpuproj_profile *job = merge_three(&calls);

	check_job(job);
	/* Progress after every file. */
	ck_assert_uint_eq(calls.n, 3);
	ck_assert_uint_eq(calls.done[0], 1);
	ck_assert_uint_eq(calls.done[2], 3);
	ck_assert_uint_eq(calls.total[2], 3);
	gpuproj_profile_free(job);
}
END_TEST

/* The rank statistics survive a JSON round trip; unmerged profiles write none. */
/*
 * The merged job's peak device memory is the largest rank's
 * (each rank has its own GPU): ranks at 1, 3 and 2 GiB give 3 GiB; with
 * one rank that did not record it, the job's is unknown.
 */
START_TEST(merge_peak_memory)
{
	static const double gib[3] = { 1, 3, 2 };
	char *dir = test_tmpdir(), *paths[3];
	struct gpuproj_profile *job = NULL;
	struct gpuproj_error e = { 0 };
	int i, round;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < 3; i++) {
			struct gpuproj_profile *p = NULL;
			char name[32];

			snprintf(name, sizeof(name), "merge-rank%d.json", i);
			ck_assert_int_eq(gpuproj_profile_load(test_data(name), &p, &e), GPUPROJ_OK);
			if (round == 0 || i != 1)
				gpuproj_profile_run_info_mut(p)->peak_device_memory_bytes =
					gib[i] * 1073741824.0;
			if (asprintf(&paths[i], "%s/r%d-%d.json", dir, round, i) < 0)
				abort();
			ck_assert_int_eq(gpuproj_profile_save(p, paths[i], &e), GPUPROJ_OK);
			gpuproj_profile_free(p);
		}
		ck_assert_msg(gpuproj_merge_files((const char *const *)paths, 3, NULL, &job, &e) ==
			      GPUPROJ_OK, "%s", e.message);
		if (round == 0)
			EQ(gpuproj_profile_run_info(job)->peak_device_memory_bytes, 3221225472.0);
		else
			ck_assert(isnan(gpuproj_profile_run_info(job)->peak_device_memory_bytes));
		gpuproj_profile_free(job);
		for (i = 0; i < 3; i++)
			free(paths[i]);
	}
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(merge_json_round_trip)
{
	struct calls calls = { 0 };
	struct gpuproj_profile *job = merge_three(&calls), *back = NULL, *plain = NULL;
	struct gpuproj_error e = { 0 };
	char *dir = test_tmpdir(), *path, *text;

	ck_assert_int_gt(asprintf(&path, "%s/job.json", dir), 0);
	ck_assert_int_eq(gpuproj_profile_save(job, path, &e), 0);
	text = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(text, "\"ranks\": {\n   \"n\": 3,\n   \"present\": 3,\n   "
				     "\"kernel_ns\": {"));
	ck_assert_ptr_nonnull(strstr(text, "\"imbalance\": 0.35"));
	free(text);
	ck_assert_int_eq(gpuproj_profile_load(path, &back, &e), 0);
	check_job(back);
	gpuproj_profile_free(back);

	plain = gpuproj_profile_new();
	ck_assert_int_eq(gpuproj_profile_save(plain, path, &e), 0);
	text = test_read_file(path);
	ck_assert_ptr_null(strstr(text, "\"ranks\""));
	free(text);
	gpuproj_profile_free(plain);
	gpuproj_profile_free(job);
	free(path);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* Merging (0 + 1) and then 2 gives the same job as merging all three. */
START_TEST(merge_hierarchical)
{
	const char *paths[2];
	struct gpuproj_profile *half = NULL, *job = NULL;
	struct gpuproj_error e = { 0 };
	char *dir = test_tmpdir(), *path;

	ck_assert_int_gt(asprintf(&path, "%s/half.json", dir), 0);
	paths[0] = test_data("merge-rank0.json");
	paths[1] = test_data("merge-rank1.json");
	ck_assert_int_eq(gpuproj_merge_files(paths, 2, NULL, &half, &e), 0);
	ck_assert_str_eq(gpuproj_profile_attr(half, "merged_ranks"), "2");
	ck_assert_int_eq(gpuproj_profile_save(half, path, &e), 0);
	paths[0] = path;
	paths[1] = test_data("merge-rank2.json");
	ck_assert_msg(gpuproj_merge_files(paths, 2, NULL, &job, &e) == 0, "%s", e.message);
	check_job(job);
	gpuproj_profile_free(half);
	gpuproj_profile_free(job);
	free(path);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* Parsing ahead in threads changes nothing: same JSON with 1, 2 and 8 threads. */
START_TEST(merge_threads_same_result)
{
	static const unsigned threads[] = { 1, 2, 8 };
	const char *paths[6];
	char *dir = test_tmpdir(), *path, *first = NULL, *text;
	struct gpuproj_error e = { 0 };
	size_t i;

	/* Six files: the three ranks, then a hierarchical copy of them (ranks -1). */
	paths[0] = test_data("merge-rank0.json");
	paths[1] = test_data("merge-rank1.json");
	paths[2] = test_data("merge-rank2.json");
	paths[3] = test_data("merge-rank0.json");
	paths[4] = test_data("merge-rank1.json");
	paths[5] = test_data("merge-rank2.json");
	ck_assert_int_gt(asprintf(&path, "%s/job.json", dir), 0);
	for (i = 0; i < 3; i++) {
		struct calls calls = { 0 };
		struct gpuproj_merge_options o = { .threads = threads[i], .force = true,
						   .progress = on_progress,
						   .progress_userdata = &calls };
		struct gpuproj_profile *job = NULL;

		ck_assert_int_eq(gpuproj_merge_files(paths, 6, &o, &job, &e), 0);
		ck_assert_uint_eq(calls.n, 6);
		ck_assert_uint_eq(calls.done[5], 6);
		ck_assert_str_eq(gpuproj_profile_attr(job, "merged_ranks"), "6");
		ck_assert_int_eq(gpuproj_profile_save(job, path, &e), 0);
		text = test_read_file(path);
		if (!first)
			first = text;
		else {
			ck_assert_str_eq(text, first);
			free(text);
		}
		gpuproj_profile_free(job);
	}
	free(first);
	free(path);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* A file that fails in the middle of a threaded merge: its error, nothing leaks. */
START_TEST(merge_threads_error)
{
	struct gpuproj_merge_options o = { .threads = 4 };
	struct gpuproj_profile *job = NULL;
	struct gpuproj_error e = { 0 };
	const char *paths[8];
	size_t i;

	for (i = 0; i < 8; i++)
		paths[i] = test_data(i % 2 ? "merge-rank1.json" : "merge-rank0.json");
	paths[0] = test_data("merge-rank0.json");
	paths[1] = test_data("merge-rank1.json");
	paths[2] = "/nonexistent/rank2.json";
	paths[3] = test_data("targets-test.yaml");
	ck_assert_int_eq(gpuproj_merge_files(paths, 8, &o, &job, &e), GPUPROJ_E_IO);
	ck_assert_str_eq(e.file, "/nonexistent/rank2.json");
	ck_assert_ptr_null(job);
	/* Duplicate rank 0 at index 2 is the first error when the file exists. */
	paths[2] = test_data("merge-rank0.json");
	ck_assert_int_eq(gpuproj_merge_files(paths, 8, &o, &job, &e), GPUPROJ_E_MISMATCH);
	ck_assert_ptr_nonnull(strstr(e.message, "rank 0 was merged already"));
	ck_assert_ptr_null(job);
}
END_TEST

static const struct mismatch_case {
	const char *file;
	const char *before, *after;  /* the message: before + first rank's path + after */
} mismatch_cases[] = {
	{ "merge-otherapp.json", "application 'xhpl' differs from 'lulesh2.0' of ",
	  " (pass --force to merge anyway)" },
	{ "merge-othergpu.json", "GPU 'Test Target GPU' differs from 'Test Source GPU' of ",
	  " (pass --force to merge anyway)" },
	{ "merge-rank0.json", "rank 0 was merged already from ", " (pass --force to merge anyway)" },
};

START_TEST(merge_refuses_mismatch)
{
	const struct mismatch_case *c = &mismatch_cases[_i];
	struct gpuproj_profile *sentinel = gpuproj_profile_new(), *job = sentinel;
	struct gpuproj_error e = { 0 };
	const char *paths[3];
	char *r0 = strdup(test_data("merge-rank0.json")), *expect;

	paths[0] = r0;
	paths[1] = test_data("merge-rank1.json");
	paths[2] = test_data(c->file);
	ck_assert_int_eq(gpuproj_merge_files(paths, 3, NULL, &job, &e), GPUPROJ_E_MISMATCH);
	/* Untouched on failure. */
	ck_assert_ptr_eq(job, sentinel);
	ck_assert_str_eq(e.file, paths[2]);
	ck_assert_int_gt(asprintf(&expect, "%s%s%s", c->before, r0, c->after), 0);
	ck_assert_str_eq(e.message, expect);
	free(expect);
	free(r0);
	gpuproj_profile_free(sentinel);
}
END_TEST

/* --force: every kind of difference is merged with one warning each. */
START_TEST(merge_force_warns)
{
	struct calls calls = { 0 };
	struct gpuproj_merge_options o = { .force = true, .warn = on_warn, .warn_userdata = &calls };
	struct gpuproj_profile *job = NULL;
	struct gpuproj_error e = { 0 };
	const char *paths[5];
	char *r0 = strdup(test_data("merge-rank0.json")), *app = strdup(test_data(
		"merge-otherapp.json")), *gpu = strdup(test_data("merge-othergpu.json")), *w;

	paths[0] = r0;
	paths[1] = test_data("merge-rank1.json");
	paths[2] = test_data("merge-rank2.json");
	paths[3] = app;
	paths[4] = gpu;
	ck_assert_msg(gpuproj_merge_files(paths, 5, &o, &job, &e) == 0, "%s", e.message);
	ck_assert_str_eq(gpuproj_profile_attr(job, "merged_ranks"), "5");
	ck_assert_uint_eq(calls.n_warnings, 3);
	ck_assert_int_gt(asprintf(&w, "%s: application 'xhpl' differs from 'lulesh2.0' of %s; "
				  "merged anyway (--force)", app, r0), 0);
	ck_assert_str_eq(calls.warnings[0], w);
	free(w);
	ck_assert_int_gt(asprintf(&w, "%s: GPU 'Test Target GPU' differs from 'Test Source GPU' of "
				  "%s; merged anyway (--force), the job profile names %s's GPU", gpu,
				  r0, r0), 0);
	ck_assert_str_eq(calls.warnings[1], w);
	free(w);
	ck_assert_int_gt(asprintf(&w, "%s: rank 3 was merged already from %s; merged again "
				  "(--force)", gpu, app), 0);
	ck_assert_str_eq(calls.warnings[2], w);
	free(w);
	/* The job keeps the first rank's GPU. */
	ck_assert_str_eq(gpuproj_profile_device(job)->name, "Test Source GPU");
	ck_assert_uint_eq(find(job, "stencil")->launches, 60);
	gpuproj_profile_free(job);
	free(r0);
	free(app);
	free(gpu);
}
END_TEST

START_TEST(merge_bad_inputs)
{
	struct gpuproj_profile *job = NULL;
	struct gpuproj_merge *m = NULL;
	struct gpuproj_error e = { 0 };
	const char *paths[2];

	ck_assert_int_eq(gpuproj_merge_files(NULL, 0, NULL, &job, &e), GPUPROJ_E_INVAL);
	ck_assert_str_eq(e.message, "no rank profiles to merge");
	ck_assert_int_eq(gpuproj_merge_new(NULL, &m), 0);
	ck_assert_int_eq(gpuproj_merge_finish(m, &job, &e), GPUPROJ_E_INVAL);
	ck_assert_str_eq(e.message, "no rank profiles to merge");
	m = gpuproj_merge_free(m);

	paths[0] = test_data("merge-rank0.json");
	paths[1] = "/nonexistent/rank1.json";
	ck_assert_int_eq(gpuproj_merge_files(paths, 2, NULL, &job, &e), GPUPROJ_E_IO);
	ck_assert_str_eq(e.file, "/nonexistent/rank1.json");
	ck_assert_str_eq(e.message, "cannot open: No such file or directory");
	paths[1] = test_data("targets-test.yaml");
	ck_assert_int_eq(gpuproj_merge_files(paths, 2, NULL, &job, &e), GPUPROJ_E_PARSE);
	ck_assert_ptr_null(job);
}
END_TEST

/* Rank statistics in JSON: validated on load; merged inputs must be consistent. */
START_TEST(merge_rank_stats_json)
{
	static const char *const bad[] = {
		"{\"schema\":\"gpuproj-profile/1\",\"kernels\":[{\"name\":\"k\",\"grid\":[1,1,1],"
		"\"block\":[1,1,1],\"launches\":1,\"ranks\":{\"n\":2,\"present\":3,"
		"\"total_ns\":{\"mean\":1}}}]}",
		"{\"schema\":\"gpuproj-profile/1\",\"kernels\":[{\"name\":\"k\",\"grid\":[1,1,1],"
		"\"block\":[1,1,1],\"launches\":1,\"ranks\":{\"n\":2}}]}",
		"{\"schema\":\"gpuproj-profile/1\",\"kernels\":[{\"name\":\"k\",\"grid\":[1,1,1],"
		"\"block\":[1,1,1],\"launches\":1,\"ranks\":{\"n\":2,\"total_ns\":{\"mean\":1,"
		"\"min\":3,\"max\":2}}}]}",
	};
	static const char *const msgs[] = {
		"kernels[0].ranks: 'present' must be an integer between 0 and 2",
		"kernels[0].ranks: missing required object 'total_ns'",
		"kernels[0].ranks.total_ns: 'min' is larger than 'max'",
	};
	/* Kernel has rank statistics over 2 ranks, the run none: inconsistent. */
	static const char inconsistent[] =
		"{\"schema\":\"gpuproj-profile/1\",\"kernels\":[{\"name\":\"k\",\"grid\":[1,1,1],"
		"\"block\":[1,1,1],\"launches\":1,\"ranks\":{\"n\":2,\"total_ns\":{\"mean\":1}}}]}";
	struct gpuproj_profile *p = NULL;
	struct gpuproj_merge *m = NULL;
	struct gpuproj_error e = { 0 };
	size_t i;

	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(gpuproj_profile_load_buffer(bad[i], strlen(bad[i]), "r.json", &p, &e),
				 GPUPROJ_E_SCHEMA);
		ck_assert_str_eq(e.message, msgs[i]);
	}
	ck_assert_int_eq(gpuproj_profile_load_buffer(inconsistent, strlen(inconsistent), "r.json",
						     &p, &e), 0);
	ck_assert_uint_eq(gpuproj_profile_at(p, 0)->ranks.time_ns.n, 2);
	ck_assert_uint_eq(gpuproj_profile_at(p, 0)->ranks.present, 2);
	ck_assert_int_eq(gpuproj_merge_new(NULL, &m), 0);
	ck_assert_int_eq(gpuproj_merge_add(m, p, "r.json", &e), GPUPROJ_E_SCHEMA);
	ck_assert_str_eq(e.message, "kernels[0].ranks.n is 2 but run.ranks.n is 0: a merged "
			 "profile has rank statistics for every kernel over the same ranks");
	ck_assert_uint_eq(gpuproj_merge_ranks(m), 0);
	gpuproj_merge_free(m);
	gpuproj_profile_free(p);
}
END_TEST

/* gpuproj_kernel_merge: metrics, extra metrics and references as launch-weighted means. */
START_TEST(kernel_merge_fields)
{
	struct gpuproj_kernel a = { .name = "k", .tag = "" }, b = { .name = "k", .tag = "" };
	const struct gpuproj_reference *ref;
	char da[] = "k(int)";

	gpuproj_kernel_add_duration(&a, 10);
	gpuproj_kernel_add_duration(&b, 30);
	gpuproj_kernel_add_duration(&b, 50);
	a.profiled = 1;
	b.profiled = 3;
	gpuproj_kernel_add_metric(&a, GPUPROJ_M_BYTES_L2, 100);
	gpuproj_kernel_add_metric(&b, GPUPROJ_M_BYTES_L2, 200);
	gpuproj_kernel_add_metric(&b, GPUPROJ_M_BYTES_L2, 300);
	gpuproj_kernel_add_metric(&b, GPUPROJ_M_BYTES_L2, 400);
	gpuproj_kernel_add_metric(&b, GPUPROJ_M_WARP_EFFICIENCY, 0.5);
	b.regs_per_thread = 64;
	b.smem_static = 1024;
	b.demangled = da;
	ck_assert_int_eq(gpuproj_kernel_add_extra(&a, "x.pct", "%", 10), 0);
	ck_assert_int_eq(gpuproj_kernel_add_extra(&b, "x.pct", "%", 20), 0);
	ck_assert_int_eq(gpuproj_kernel_add_extra(&b, "x.pct", "%", 30), 0);
	ck_assert_int_eq(gpuproj_kernel_set_reference(&a, "TgtGPU", 5, 1), 0);
	ck_assert_int_eq(gpuproj_kernel_set_reference(&b, "TgtGPU", 9, 3), 0);
	ck_assert_int_eq(gpuproj_kernel_merge(&a, &b), 0);
	b.demangled = NULL;
	ck_assert_uint_eq(a.launches, 3);
	ck_assert_uint_eq(a.profiled, 4);
	EQ(a.duration_ns.mean, 30);
	EQ(a.duration_ns.m2, 800);   /* (10−30)² + 0 + (50−30)² */
	EQ(gpuproj_kernel_metric(&a, GPUPROJ_M_BYTES_L2), 250);  /* (100+200+300+400)/4 */
	ck_assert_uint_eq(a.metric_n[GPUPROJ_M_WARP_EFFICIENCY], 1);
	ck_assert_uint_eq(a.regs_per_thread, 64);
	ck_assert_uint_eq(a.smem_static, 1024);
	ck_assert_str_eq(a.demangled, "k(int)");
	ck_assert_uint_eq(a.n_extra, 1);
	ck_assert_uint_eq(a.extra[0].n, 3);
	EQ(a.extra[0].sum, 60);
	ref = gpuproj_kernel_reference(&a, "TgtGPU");
	ck_assert_uint_eq(ref->launches, 4);
	EQ(ref->mean_ns, 8);  /* (5·1 + 9·3) / 4 */
	ck_assert_int_eq(gpuproj_kernel_merge(NULL, &b), GPUPROJ_E_INVAL);
	free(a.demangled);
	free(a.extra[0].name);
	free(a.extra[0].unit);
	free(a.extra);
	free(a.refs[0].gpu);
	free(a.refs);
	free(b.extra[0].name);
	free(b.extra[0].unit);
	free(b.extra);
	free(b.refs[0].gpu);
	free(b.refs);
}
END_TEST

/* ---- gpuproj merge ---- */

/* `gpuproj merge` in tests/data; fmt a string literal. */
#define run(out, err, ...) test_cli_at(test_data(""), NULL, out, err, "merge " __VA_ARGS__)

#define RANKS "merge-rank0.json merge-rank1.json merge-rank2.json"

START_TEST(cli_merge_projects_job)
{
	char *dir = test_tmpdir(), *out, *err, *path, *text;
	struct gpuproj_profile *job = NULL;
	struct gpuproj_error e = { 0 };

	ck_assert_int_gt(asprintf(&path, "%s/job.json", dir), 0);
	ck_assert_int_eq(run(&out, &err, "--targets targets-test.yaml --model hroof " RANKS " -o '%s'",
			     path), 0);
	/* Not a terminal: no progress, nothing at all. */
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	text = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(text, "\"source_target\": \"SrcGPU\""));
	/* The point; lo_ns and hi_ns are the calibrated interval around it (interval.h). */
	ck_assert_ptr_nonnull(strstr(text, "\"target\": \"TgtGPU\",\n   \"source_ns\": 4250000.0,\n"
				     "   \"lo_ns\": "));
	ck_assert_ptr_nonnull(strstr(text, "   \"point_ns\": 1062500.0,\n   \"speedup\": 4.0,"));
	ck_assert_ptr_nonnull(strstr(text, "\"merged_ranks\": \"3\""));
	free(text);
	ck_assert_int_eq(gpuproj_profile_load(path, &job, &e), 0);
	check_job(job);
	gpuproj_profile_free(job);
	free(out);
	free(err);

	/* Without projections: the plain merged profile. */
	ck_assert_int_eq(run(&out, &err, "--no-projections " RANKS " -o '%s'", path), 0);
	text = test_read_file(path);
	ck_assert_ptr_null(strstr(text, "\"projections\""));
	free(text);
	free(out);
	free(err);
	free(path);
	test_rmtree(dir);
	free(dir);
}
END_TEST

static const struct cli_bad {
	const char *args;
	int status;
	const char *stderr_first_line;
} cli_bad_cases[] = {
	{ "-o J", 2, "gpuproj: merge: no rank profiles given" },
	{ RANKS, 2, "gpuproj: merge: missing -o JOB.json (where to write the job profile)" },
	{ "--bogus " RANKS " -o J", 2, "gpuproj: merge: unknown option '--bogus'" },
	{ RANKS " -o", 2, "gpuproj: merge: option '-o' needs a value" },
	{ "--model nope " RANKS " -o J", 2, "gpuproj: merge: unknown model 'nope'" },
	{ "merge-rank0.json missing.json -o J", 2,
	  "gpuproj: missing.json: cannot open: No such file or directory" },
	{ "merge-rank0.json targets-test.yaml -o J", 2,
	  "gpuproj: targets-test.yaml:1:1: JSON syntax error: '[' or '{' expected near '#'" },
	{ "merge-rank0.json gate-base.json -o J", 2,
	  "gpuproj: gate-base.json: application 'app' differs from 'lulesh2.0' of "
	  "merge-rank0.json (pass --force to merge anyway)" },
	{ RANKS " merge-otherapp.json -o J", 2,
	  "gpuproj: merge-otherapp.json: application 'xhpl' differs from 'lulesh2.0' of "
	  "merge-rank0.json (pass --force to merge anyway)" },
	{ RANKS " merge-othergpu.json -o J", 2,
	  "gpuproj: merge-othergpu.json: GPU 'Test Target GPU' differs from 'Test Source GPU' of "
	  "merge-rank0.json (pass --force to merge anyway)" },
	{ RANKS " merge-rank1.json -o J", 2,
	  "gpuproj: merge-rank1.json: rank 1 was merged already from merge-rank1.json (pass "
	  "--force to merge anyway)" },
	{ "--source NoSuchGPU " RANKS " -o J", 2,
	  "gpuproj: source GPU 'NoSuchGPU' is not in targets.yaml" },
};

/* Bad usage exits 2, bad input 1; one clear line; nothing written. */
START_TEST(cli_merge_bad)
{
	const struct cli_bad *c = &cli_bad_cases[_i];
	char *dir = test_tmpdir(), *args, *out, *err, *nl, *o;

	/* Write J into the temporary directory. */
	args = strdup(c->args);
	o = strstr(args, "-o J");
	if (o)
		*o = '\0';
	ck_assert_int_eq(run(&out, &err, "--targets targets-test.yaml %s%s%s%s", args,
			     o ? "-o '" : "", o ? dir : "", o ? "/J'" : ""), c->status);
	ck_assert_str_eq(out, "");
	nl = strchr(err, '\n');
	ck_assert_ptr_nonnull(nl);
	*nl = '\0';
	ck_assert_msg(strncmp(err, c->stderr_first_line, strlen(c->stderr_first_line)) == 0,
		      "got: %s\nwanted: %s", err, c->stderr_first_line);
	ck_assert_int_eq(test_count_dir(dir), 0);
	free(args);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(cli_merge_force)
{
	char *dir = test_tmpdir(), *out, *err;

	ck_assert_int_eq(run(&out, &err, "--force --targets targets-test.yaml " RANKS
			     " merge-otherapp.json -o '%s/J'", dir), 0);
	ck_assert_str_eq(err, "gpuproj: warning: merge-otherapp.json: application 'xhpl' differs "
			 "from 'lulesh2.0' of merge-rank0.json; merged anyway (--force)\n");
	ck_assert_int_eq(test_count_dir(dir), 1);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * A job profile records the ranks it holds (attribute
 * "merged_members"); merging it again with one of them, in either order
 * (every file of prof/ merged after its rank files were merged into
 * prof/job.json), is refused and writes nothing. Before: it succeeded and doubled every
 * count.
 */
START_TEST(cli_merge_job_with_its_ranks)
{
	char *dir = test_tmpdir(), *out, *err, *job, *text;

	ck_assert_int_gt(asprintf(&job, "%s/job.json", dir), 0);
	ck_assert_int_eq(run(&out, &err, "--no-projections " RANKS " -o '%s'", job), 0);
	text = test_read_file(job);
	ck_assert_ptr_nonnull(strstr(text, "\"merged_members\": \"0-2\""));
	free(text);
	free(out);
	free(err);
	/* The glob's order: job.json before rank-*.json. */
	ck_assert_int_eq(run(&out, &err, "--no-projections '%s' " RANKS " -o '%s/J'", job, dir), 2);
	ck_assert_str_eq(out, "");
	text = NULL;
	ck_assert_int_gt(asprintf(&text, "gpuproj: merge-rank0.json: rank 0 was merged already "
				  "from %s (pass --force to merge anyway)\n", job), 0);
	ck_assert_str_eq(err, text);
	free(text);
	free(out);
	free(err);
	/* And the other way round. */
	ck_assert_int_eq(run(&out, &err, "--no-projections merge-rank1.json '%s' -o '%s/J'", job,
			     dir), 2);
	ck_assert_int_gt(asprintf(&text, "gpuproj: %s: holds rank 1, which was merged already "
				  "from merge-rank1.json: its launches would count twice (pass "
				  "--force to merge anyway)\n", job), 0);
	ck_assert_str_eq(err, text);
	free(text);
	free(out);
	free(err);
	ck_assert_int_eq(test_count_dir(dir), 1);
	free(job);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * A live snapshot (<out>.live.json: marked "snapshot": "live"
 * by libproj.so; an older one has "origin": "injection" and no "report")
 * is caught by a glob like rank-*.json: refused. Before: its launches were
 * counted a second time.
 */
START_TEST(cli_merge_live_snapshot)
{
	static const char *const marks[] = {
		"\"origin\": \"injection\", \"snapshot\": \"live\"",
		"\"origin\": \"injection\"",
	};
	char *dir = test_tmpdir(), *out, *err, *text = test_read_file(test_data("merge-rank1.json"));
	const char *attrs = "\"origin\": \"test fixture\", \"note\": \"merge rank 1: numbers in "
			    "tests/unit/test-merge.c\"";
	size_t i;

	ck_assert_ptr_nonnull(strstr(text, attrs));
	for (i = 0; i < 2; i++) {
		char *p = strstr(text, attrs), *snap, *path, *want;

		ck_assert_int_gt(asprintf(&snap, "%.*s%s%s", (int)(p - text), text, marks[i],
					  p + strlen(attrs)), 0);
		path = test_write_file(dir, "rank-1.live.json", snap);
		ck_assert_int_eq(run(&out, &err, "--no-projections merge-rank0.json '%s' -o '%s/J'",
				     path, dir), 2);
		ck_assert_int_gt(asprintf(&want, "gpuproj: %s: is a live snapshot (GPUPROJ_LIVE) of a "
					  "run in progress, not its final profile: its launches are in "
					  "the final one too (merge the final profiles; pass --force to "
					  "merge anyway)\n", path), 0);
		ck_assert_str_eq(err, want);
		ck_assert_int_eq(test_count_dir(dir), 1);
		free(want);
		free(out);
		free(err);
		free(path);
		free(snap);
	}
	free(text);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * --force leaves a trace in the job profile ("merge_forced"),
 * which gate (stderr, Markdown, JUnit) and report show. Before: only the
 * merge's own stderr said it.
 */
START_TEST(cli_merge_force_trace)
{
	char *dir = test_tmpdir(), *out, *err, *text, *path;
	const char *why = "merge-otherapp.json: application 'xhpl' differs from 'lulesh2.0' of "
			  "merge-rank0.json; merged anyway (--force)";

	ck_assert_int_eq(run(&out, &err, "--force --no-projections " RANKS " merge-otherapp.json "
			     "-o '%s/J.json'", dir), 0);
	free(out);
	free(err);
	ck_assert_int_gt(asprintf(&path, "%s/J.json", dir), 0);
	text = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(text, why));
	free(text);
	free(path);
	ck_assert_int_eq(test_cli_at(dir, NULL, &out, &err, "gate --targets '%s' --model hroof "
				     "--baseline J.json J.json --md g.md --junit g.xml",
				     test_data("targets-test.yaml")), 0);
	ck_assert_ptr_nonnull(strstr(err, "gpuproj: warning: the current profile (J.json) was "
				     "merged with --force: merge-otherapp.json"));
	free(out);
	free(err);
	ck_assert_int_gt(asprintf(&path, "%s/g.md", dir), 0);
	text = test_read_file(path);
	free(path);
	ck_assert_ptr_nonnull(strstr(text, "> **Warning:** the baseline (J.json) was merged with "
				     "--force: merge-otherapp.json"));
	free(text);
	ck_assert_int_eq(test_cli_at(dir, NULL, &out, &err, "report --targets '%s' J.json --md r.md "
				     "--no-charts", test_data("targets-test.yaml")), 0);
	free(out);
	free(err);
	ck_assert_int_gt(asprintf(&path, "%s/r.md", dir), 0);
	text = test_read_file(path);
	free(path);
	ck_assert_ptr_nonnull(strstr(text, "- **Warning: merged with --force:** merge-otherapp.json: "
				     "application 'xhpl' differs"));
	free(text);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* On a terminal: one refreshed progress line (script(1) provides the terminal). */
START_TEST(cli_merge_progress_on_tty)
{
	char *dir = test_tmpdir(), *out, *err, *cmd;
	int rc;

	if (access("/usr/bin/script", X_OK) != 0) {
		test_skip("script(1) not available: progress on a terminal not tested");
		test_rmtree(dir);
		free(dir);
		return;
	}
	ck_assert_int_gt(asprintf(&cmd, "cd '%s/tests/data' && /usr/bin/script -qec \"'%s' merge "
				  "--targets targets-test.yaml " RANKS " -o '%s/J'\" /dev/null",
				  test_source_root(), test_gpuproj(), dir), 0);
	rc = test_run(cmd, &out, &err);
	ck_assert_int_eq(rc, 0);
	/* The shared progress line (cli-common.c): cleared, redrawn, ended at 100 %. */
	ck_assert_msg(strstr(out, "\r\033[Kgpuproj merge: 3/3 ranks (100%)\r\n") != NULL,
		      "%.300s", out);
	ck_assert_ptr_nonnull(strstr(out, "gpuproj: merged 3 ranks, 3 kernel signatures, into "));
	free(cmd);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *
merge_suite(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("merge");

	tcase_add_test(tc, merge_three_ranks);
	tcase_add_test(tc, merge_json_round_trip);
	tcase_add_test(tc, merge_peak_memory);
	tcase_add_test(tc, merge_hierarchical);
	tcase_add_test(tc, merge_threads_same_result);
	tcase_add_test(tc, merge_threads_error);
	tcase_add_loop_test(tc, merge_refuses_mismatch, 0,
			    sizeof(mismatch_cases) / sizeof(mismatch_cases[0]));
	tcase_add_test(tc, merge_force_warns);
	tcase_add_test(tc, merge_bad_inputs);
	tcase_add_test(tc, merge_rank_stats_json);
	tcase_add_test(tc, kernel_merge_fields);
	suite_add_tcase(s, tc);
	return s;
}

static Suite *
merge_cli_suite(void)
{
	Suite *s = suite_create("merge-cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, cli_merge_projects_job);
	tcase_add_loop_test(tc, cli_merge_bad, 0, sizeof(cli_bad_cases) / sizeof(cli_bad_cases[0]));
	tcase_add_test(tc, cli_merge_force);
	tcase_add_test(tc, cli_merge_job_with_its_ranks);
	tcase_add_test(tc, cli_merge_live_snapshot);
	tcase_add_test(tc, cli_merge_force_trace);
	tcase_add_test(tc, cli_merge_progress_on_tty);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	bool cli = argc > 1 && strcmp(argv[1], "cli") == 0;
	SRunner *sr = srunner_create(cli ? merge_cli_suite() : merge_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
