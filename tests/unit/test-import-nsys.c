/* SPDX-License-Identifier: MIT */
/*
 * The Nsight Systems importer (src/import-nsys.c, `gpuproj import nsys`):
 * a synthetic export (tests/data/nsys/basic.sql, times worked by hand in
 * its header and below) read into kernels and a whole-run timeline node
 * by node; the same data under schema 2's table and column layout; the
 * counters of Nsight Compute exports joined; several processes and GPUs;
 * one exact message per kind of bad input, and nothing written; and, with
 * the argument "validation", the two real exports of
 * ../shared/validation/nsys (README there), CloverLeaf's replay onto its
 * own GPU against its recorded span included.
 *
 * The SQLite files are built at run time from the SQL fixture, with the
 * library gpuproj reads them with; the real exports are never copied.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuproj/import.h>
#include <gpuproj/merge.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>
#include <gpuproj/timeline.h>

#include "common.h"

#ifdef GPUPROJ_HAVE_SQLITE
#include <sqlite3.h>

static char *dir;
static struct gpuproj_targets *targets;

static void
setup(void)
{
	struct gpuproj_error err = { 0 };

	dir = test_tmpdir();
	ck_assert_int_eq(gpuproj_targets_load_builtin(&targets, &err), 0);
}

static void
teardown(void)
{
	test_rmtree(dir);
	free(dir);
	dir = NULL;
	targets = gpuproj_targets_free(targets);
}

static void
near(double got, double want, const char *what)
{
	ck_assert_msg(fabs(got - want) <= 1e-9 * fmax(1, fabs(want)), "%s: got %.17g, want %.17g",
		      what, got, want);
}

/* DIR/NAME.sqlite from basic.sql, then `change` (more SQL, or NULL). The path, malloc'd. */
static char *
make_db(const char *name, const char *change)
{
	char *sql = test_read_file(test_data("nsys/basic.sql")), *path = NULL, *msg = NULL;
	sqlite3 *db = NULL;

	ck_assert_ptr_nonnull(sql);
	if (asprintf(&path, "%s/%s.sqlite", dir, name) < 0)
		ck_abort();
	remove(path);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "basic.sql: %s", msg);
	if (change)
		ck_assert_msg(sqlite3_exec(db, change, NULL, NULL, &msg) == SQLITE_OK, "%s: %s",
			      change, msg);
	sqlite3_close(db);
	free(sql);
	return path;
}

static void
free_all(struct gpuproj_profile **ps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		gpuproj_profile_free(ps[i]);
	free(ps);
}

/* A node's times: gap, call, latency, duration (-1: not a time of the op). */
static void
node_is(const struct gpuproj_tl_node *n, enum gpuproj_tl_op op, double gap, double call,
	double lat, double dur, const char *what)
{
	ck_assert_msg(n->op == op, "%s: op %s, want %s", what, gpuproj_tl_op_name(n->op),
		      gpuproj_tl_op_name(op));
	near(n->gap_ns.mean, gap, what);
	near(n->call_ns.mean, call, what);
	if (lat < 0) {
		ck_assert_uint_eq(n->lat_ns.n, 0);
		ck_assert_uint_eq(n->dur_ns.n, 0);
	} else {
		near(n->lat_ns.mean, lat, what);
		near(n->dur_ns.mean, dur, what);
	}
}

/* The three kernels, the device, the process: as basic.sql has them. */
static void
basic_kernels(const struct gpuproj_profile *p)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const struct gpuproj_process_info *pr = gpuproj_profile_process(p);
	const struct gpuproj_kernel *k;

	ck_assert_str_eq(d->name, "NVIDIA A100-SXM4-40GB");
	ck_assert_str_eq(d->chip, "GA100");
	ck_assert_int_eq(d->cc_major, 8);
	ck_assert_int_eq(d->sms, 108);
	near(d->clock_hz, 1.41e9, "clock");
	near(d->driver[GPUPROJ_DRV_THREADS_PER_SM], 64 * 32, "threads per SM");
	near(d->driver[GPUPROJ_DRV_SMEM_PER_BLOCK_OPTIN_BYTES], 166912, "smem optin");
	ck_assert_str_eq(pr->application, "cuda-app");
	ck_assert_int_eq(pr->pid, 4242);
	ck_assert_str_eq(gpuproj_profile_attr(p, "origin"), "nsys-import");
	ck_assert_uint_eq(gpuproj_profile_count(p), 3);
	/* In order of first launch: stencil3d (12300), gemm (13300), gemm with 4 KiB (19100). */
	k = gpuproj_profile_at(p, 0);
	ck_assert_str_eq(k->name, "_Z9stencil3dPKdPdiii");
	ck_assert_str_eq(k->demangled, "stencil3d(const double *, double *, int, int, int)");
	ck_assert(k->grid.x == 16 && k->grid.y == 64 && k->grid.z == 128);
	ck_assert(k->block.x == 32 && k->block.y == 4 && k->block.z == 1);
	ck_assert_uint_eq(k->smem_dynamic, 1024);
	ck_assert_uint_eq(k->regs_per_thread, 40);
	ck_assert_uint_eq(k->launches, 2);
	near(gpuproj_kernel_mean_ns(k), 1000, "stencil3d mean");
	k = gpuproj_profile_at(p, 1);
	ck_assert_str_eq(k->name, "_Z4gemmIfEviPKfPf");
	ck_assert_uint_eq(k->smem_dynamic, 0);
	ck_assert_uint_eq(k->smem_static, 2048);
	ck_assert_uint_eq(k->launches, 2);
	near(gpuproj_kernel_mean_ns(k), 2000, "gemm mean");
	k = gpuproj_profile_at(p, 2);
	ck_assert_uint_eq(k->smem_dynamic, 4096);
	ck_assert_uint_eq(k->launches, 1);
	/* Σ kernel time 2·1000 + 3·2000. */
	near(gpuproj_profile_run_info(p)->gpu_ns, 8000, "gpu_ns");
	ck_assert_uint_eq(k->profiled, 0);
	ck_assert_uint_eq(k->metric_n[GPUPROJ_M_BYTES_DRAM], 0);
}

/*
 * The timeline, node by node (times relative to each epoch's start, the
 * previous epoch's end; gpuproj_tl_epoch_fold() derives them):
 *   E0 (from 1000, wall 11100): cudaMalloc gap 0 call 1000; the copy,
 *      called at 1100 (gap 100), starts 100 later, lasts 9800, returns 100
 *      after it ended: blocking, legacy (stream 7 is the NULL stream),
 *      pageable (srcKind 0), 10^6 B.
 *   E1, E2 (x2, wall 3300 from 12100): stencil3d called at 100 (gap 100,
 *      call 10), starts 100 later, 1000; gemm called at 120 (gap 10, call
 *      10), starts when stencil3d ends (latency 0), 2000; the device
 *      synchronise at 140 (gap 10) returns 100 after the GPU is done (3200).
 *   E3 (wall 2600 from 18700): gemm called at 300, runs 400-2400 (latency
 *      100, 2000); the asynchronous pinned 4 KiB D2H called at 320 (gap
 *      10, call 10), runs after gemm for 100 (latency 0); the stream
 *      synchronise at 340 returns 100 after it (2600).
 *   Thread 4243 (wall 610 from 5000): cudaMalloc 500; the failed launch
 *      100 later, 10: a call (it expects no record, so the epoch is whole).
 * Every epoch is explained; the threads' union is [1000, 21300]: 20300.
 */
static void
basic_timeline(const struct gpuproj_profile *p)
{
	const struct gpuproj_timeline *tl = gpuproj_profile_timeline(p);
	const struct gpuproj_tl_pattern *pat;
	const struct gpuproj_tl_node *n;
	size_t i;

	ck_assert_ptr_nonnull(tl);
	ck_assert_uint_eq(tl->threads, 2);
	ck_assert_uint_eq(tl->n_patterns, 4);
	near(tl->span_ns, 20300, "span");
	near(tl->wall_ns, 20300, "wall");
	near(tl->spill_ns, 0, "spill");
	for (i = 0; i < GPUPROJ_TL_WHY_COUNT; i++)
		ck_assert_uint_eq(tl->unexplained[i].epochs, 0);
	/* 11100 + 2 · 3300 + 2600 + 610 */
	near(gpuproj_timeline_explained_ns(tl), 20910, "explained");
	near(gpuproj_timeline_bound_ns(tl), 0, "bound");

	pat = &tl->patterns[0];
	ck_assert_uint_eq(pat->thread, 0);
	ck_assert_uint_eq(pat->wall_ns.n, 1);
	near(pat->wall_ns.mean, 11100, "E0 wall");
	ck_assert_uint_eq(pat->n_nodes, 2);
	node_is(&pat->nodes[0], GPUPROJ_TL_CALL, 0, 1000, -1, -1, "E0 malloc");
	n = &pat->nodes[1];
	node_is(n, GPUPROJ_TL_COPY, 100, 100, 100, 9800, "E0 copy");
	ck_assert(n->blocking && n->legacy && !n->pinned);
	ck_assert_int_eq(n->copy, GPUPROJ_COPY_H2D);
	ck_assert_uint_eq(n->bytes, 1000000);
	ck_assert_uint_eq(n->stream, 0);

	pat = &tl->patterns[1];
	ck_assert_uint_eq(pat->wall_ns.n, 2);
	near(pat->wall_ns.mean, 3300, "E1 wall");
	ck_assert_uint_eq(pat->n_nodes, 3);
	node_is(&pat->nodes[0], GPUPROJ_TL_KERNEL, 100, 10, 100, 1000, "E1 stencil3d");
	ck_assert_ptr_eq(pat->nodes[0].kernel, gpuproj_profile_at(p, 0));
	node_is(&pat->nodes[1], GPUPROJ_TL_KERNEL, 10, 10, 0, 2000, "E1 gemm");
	ck_assert_ptr_eq(pat->nodes[1].kernel, gpuproj_profile_at(p, 1));
	node_is(&pat->nodes[2], GPUPROJ_TL_SYNC_DEVICE, 10, 100, -1, -1, "E1 sync");

	pat = &tl->patterns[2];
	near(pat->wall_ns.mean, 2600, "E3 wall");
	ck_assert_uint_eq(pat->n_nodes, 3);
	node_is(&pat->nodes[0], GPUPROJ_TL_KERNEL, 300, 10, 100, 2000, "E3 gemm");
	ck_assert_ptr_eq(pat->nodes[0].kernel, gpuproj_profile_at(p, 2));
	n = &pat->nodes[1];
	node_is(n, GPUPROJ_TL_COPY, 10, 10, 0, 100, "E3 copy");
	ck_assert(!n->blocking && n->pinned);
	ck_assert_int_eq(n->copy, GPUPROJ_COPY_D2H);
	ck_assert_uint_eq(n->bytes, 4096);
	node_is(&pat->nodes[2], GPUPROJ_TL_SYNC_STREAM, 10, 100, -1, -1, "E3 sync");
	ck_assert_uint_eq(pat->nodes[2].stream, 0);

	pat = &tl->patterns[3];
	ck_assert_uint_eq(pat->thread, 1);
	near(pat->wall_ns.mean, 610, "thread 1 wall");
	ck_assert_uint_eq(pat->n_nodes, 2);
	node_is(&pat->nodes[0], GPUPROJ_TL_CALL, 0, 500, -1, -1, "thread 1 malloc");
	node_is(&pat->nodes[1], GPUPROJ_TL_CALL, 100, 10, -1, -1, "thread 1 failed launch");
}

START_TEST(basic)
{
	char *path = make_db("basic", NULL);
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_nsys_join join = { 0 };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0;

	ck_assert_msg(gpuproj_import_nsys(path, NULL, &ps, &n, &sum, &join, &err) == GPUPROJ_OK,
		      "%s", err.message);
	ck_assert_uint_eq(n, 1);
	/* 5 kernels + 2 copies + 3 synchronisations + 13 calls (the two backtrace rows skipped). */
	ck_assert_uint_eq(sum.rows, 23);
	ck_assert_uint_eq(sum.launches, 5);
	ck_assert_uint_eq(sum.kernels, 3);
	ck_assert_uint_eq(sum.n_warnings, 0);
	ck_assert_uint_eq(join.kernels, 3);
	ck_assert_uint_eq(join.joined, 0);
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "nsys.schema"), "3.13.2");
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "nsys.version"), "2024.5.1.113");
	basic_kernels(ps[0]);
	basic_timeline(ps[0]);
	gpuproj_import_summary_clear(&sum);
	free_all(ps, n);
	free(path);
}
END_TEST

/*
 * Onto its own GPU the replay gives the recorded span back: the epochs'
 * times did not vary, so the identity check is exact, and every kernel,
 * projected by the envelope (no counters), keeps its time. The threads
 * overlapped: 20910 of epochs in a 20300 span, scaled to it.
 */
START_TEST(identity)
{
	char *path = make_db("identity", NULL);
	const struct gpuproj_target *src = gpuproj_targets_find(targets, "A100-SXM4-40GB");
	struct gpuproj_run_projection run;
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0, i;

	ck_assert_int_eq(gpuproj_import_nsys(path, NULL, &ps, &n, NULL, NULL, &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_project_run(ps[0], gpuproj_model_default(), src, src, NULL, &run),
			 GPUPROJ_OK);
	ck_assert_uint_eq(run.n_projected, 3);
	ck_assert_uint_eq(run.n_assumed, 3);
	for (i = 0; i < run.n; i++) {
		ck_assert_uint_eq(run.kernels[i].assumed, 1u << GPUPROJ_ASSUME_BINDING);
		near(run.kernels[i].point_ns, gpuproj_kernel_mean_ns(gpuproj_profile_at(ps[0], i)),
		     "kernel onto itself");
	}
	ck_assert(run.whole.valid);
	near(run.whole.identity_error, 0, "identity");
	near(run.whole.source_ns, 20300, "recorded span");
	near(run.whole.wall_ns, 20300, "replayed onto the source");
	near(run.whole.explained, 1, "explained");
	gpuproj_run_projection_clear(&run);
	free_all(ps, n);
	free(path);
}
END_TEST

/*
 * The same run under schema 2's layout (EXPORT_META_DATA, 2.9.1, no enum
 * tables, the kernel table's columns in another order and without
 * greenContextId, runtime rows carrying a `name` column): the same
 * profile. Columns are read by name, never by position.
 */
START_TEST(schema2_layout)
{
	static const char *const change =
		"ALTER TABLE META_DATA_EXPORT RENAME TO EXPORT_META_DATA;"
		"UPDATE EXPORT_META_DATA SET value = '2.9.1' WHERE name = 'EXPORT_SCHEMA_VERSION';"
		"UPDATE EXPORT_META_DATA SET value = '2022.2.1.31' "
		"WHERE name = 'EXPORT_PRODUCT_VERSION';"
		"DROP TABLE ENUM_NSYS_EVENT_CLASS; DROP TABLE ENUM_CUPTI_STREAM_TYPE;"
		"CREATE TABLE k2 AS SELECT gridZ, gridY, gridX, blockZ, blockY, blockX, "
		"mangledName,"
		" shortName, demangledName, graphNodeId, dynamicSharedMemory, staticSharedMemory,"
		" registersPerThread, globalPid, correlationId, streamId, contextId, deviceId, end,"
		" start FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid;"
		"DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
		"ALTER TABLE k2 RENAME TO CUPTI_ACTIVITY_KIND_KERNEL;"
		"ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME ADD COLUMN name INTEGER;";
	char *path = make_db("schema2", change);
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0;

	ck_assert_msg(gpuproj_import_nsys(path, NULL, &ps, &n, NULL, NULL, &err) == GPUPROJ_OK,
		      "%s", err.message);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "nsys.schema"), "2.9.1");
	basic_kernels(ps[0]);
	basic_timeline(ps[0]);
	free_all(ps, n);
	free(path);
}
END_TEST

/*
 * Counters of Nsight Compute exports (tests/data/ncu-raw.csv: stencil3d,
 * grid 16x64x128, block 32x4x1, 1 KiB dynamic: the same signature;
 * tests/data/ncu-long.csv: "void gemm<float>(int, float const*, float*)"
 * 64x64x1 and 128x64x1, block 16x16x1, 2050 B dynamic). stencil3d joins
 * exactly; gemm 64x64 matches both gemm signatures by name, grid and
 * block only: the first launched (no dynamic shared memory) gets it, by
 * launch order; the 4 KiB one stays without. Unjoined from Nsight
 * Compute: init_field, reduce_sum_kernel, gemm 128x64.
 */
START_TEST(join_ncu)
{
	char *path = make_db("join", NULL);
	struct gpuproj_profile *c[2] = { NULL, NULL }, **ps = NULL;
	struct gpuproj_nsys_options opt = { .counters = (const struct gpuproj_profile *const *)c,
					    .n_counters = 2 };
	struct gpuproj_nsys_join join = { 0 };
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *k;
	size_t n = 0;

	ck_assert_int_eq(gpuproj_import_ncu(test_data("ncu-raw.csv"), &c[0], NULL, &err), 0);
	ck_assert_int_eq(gpuproj_import_ncu(test_data("ncu-long.csv"), &c[1], NULL, &err), 0);
	ck_assert_int_eq(gpuproj_import_nsys(path, &opt, &ps, &n, NULL, &join, &err), GPUPROJ_OK);
	ck_assert_uint_eq(join.kernels, 3);
	ck_assert_uint_eq(join.joined, 2);
	ck_assert_uint_eq(join.by_launch_order, 1);
	ck_assert_uint_eq(join.unjoined_ncu, 3);
	k = gpuproj_profile_at(ps[0], 0);
	/* ncu-raw.csv: dram__bytes.sum 8,450.50 and 8,451.20 Kbyte: mean 8,450,850 B. */
	near(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM), 8450850, "stencil3d DRAM bytes");
	near(gpuproj_kernel_mean_ns(k), 1000, "its own duration");
	ck_assert_uint_eq(k->launches, 2);
	ck_assert(gpuproj_kernel_has(gpuproj_profile_at(ps[0], 1), GPUPROJ_M_INST_FP32_FMA));
	ck_assert(!gpuproj_kernel_has(gpuproj_profile_at(ps[0], 2), GPUPROJ_M_INST_FP32_FMA));
	ck_assert_uint_eq(gpuproj_profile_at(ps[0], 2)->n_extra, 0);
	/* A profile that loads back. */
	ck_assert_int_eq(gpuproj_profile_validate(ps[0], NULL, &err), GPUPROJ_OK);
	free_all(ps, n);
	gpuproj_profile_free(c[0]);
	gpuproj_profile_free(c[1]);
	free(path);
}
END_TEST

/*
 * A second process (pid 4300) with one launch on GPU 0, and a launch of
 * pid 4242's main thread on a second GPU (id 1) after E3: three profiles,
 * in order of their first kernel (4242 on 0 at 12300, 4300 on 0 at 14000,
 * 4242 on 1 at 22000), and one warning for the thread that used two GPUs.
 */
static const char *const multi_change =
	"INSERT INTO TARGET_INFO_GPU (vmId, id, name, smCount, computeMajor, computeMinor) "
	"VALUES (281474976710656, 1, 'NVIDIA A100-SXM4-40GB', 108, 8, 0);"
	"INSERT INTO PROCESSES VALUES (281547118739456, 4300, 'cuda-app');"
	"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
	" (13900, 13910, 0, 281547118743756, 10, 3, 0, NULL),"
	" (13920, 15100, 0, 281547118743756, 11, 4, 0, NULL),"
	" (21900, 21910, 0, 281546145665170, 30, 3, 0, NULL),"
	" (21920, 23100, 0, 281546145665170, 31, 4, 0, NULL);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
	" (14000, 15000, 0, 1, NULL, 7, 10, 281547118739456, 6, 7, 5, 0, 40, 16, 64, 128, 32, 4,"
	"  1, 0, 1024, NULL),"
	" (22000, 23000, 1, 2, NULL, 7, 30, 281546145660928, 6, 7, 5, 0, 40, 16, 64, 128, 32, 4,"
	"  1, 0, 1024, NULL);"
	"INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES"
	" (13920, 15100, 0, 1, NULL, 4294967295, 11, 281547118739456, 1, 4294967295),"
	" (21920, 23100, 1, 2, NULL, 4294967295, 31, 281546145660928, 1, 4294967295);";

START_TEST(processes_and_gpus)
{
	char *path = make_db("multi", multi_change);
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_timeline *tl;
	size_t n = 0;

	ck_assert_msg(gpuproj_import_nsys(path, NULL, &ps, &n, &sum, NULL, &err) == GPUPROJ_OK,
		      "%s", err.message);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(gpuproj_profile_process(ps[0])->pid, 4242);
	ck_assert_int_eq(gpuproj_profile_at(ps[0], 0)->device, 0);
	ck_assert_uint_eq(gpuproj_profile_count(ps[0]), 3);
	ck_assert_int_eq(gpuproj_profile_process(ps[1])->pid, 4300);
	ck_assert_uint_eq(gpuproj_profile_count(ps[1]), 1);
	ck_assert_int_eq(gpuproj_profile_process(ps[2])->pid, 4242);
	ck_assert_int_eq(gpuproj_profile_at(ps[2], 0)->device, 1);
	ck_assert_uint_eq(sum.kernels, 5);
	/* GPU 0 of pid 4242: basic.sql's timeline; GPU 1's launch and sync are not in it. */
	basic_timeline(ps[0]);
	/*
	 * GPU 1 of pid 4242: the main thread's launch and synchronise, one
	 * epoch of 1200 from the launch (21900) to the sync's end (23100).
	 */
	tl = gpuproj_profile_timeline(ps[2]);
	ck_assert_uint_eq(tl->threads, 1);
	ck_assert_uint_eq(tl->n_patterns, 1);
	near(tl->patterns[0].wall_ns.mean, 1200, "GPU 1 epoch");
	/* pid 4300: a launch [13900, 13910] on [14000, 15000], synchronised until 15100. */
	tl = gpuproj_profile_timeline(ps[1]);
	near(tl->patterns[0].wall_ns.mean, 1200, "pid 4300 epoch");
	node_is(&tl->patterns[0].nodes[0], GPUPROJ_TL_KERNEL, 0, 10, 100, 1000, "pid 4300 kernel");
	ck_assert_uint_eq(sum.n_warnings, 1);
	ck_assert_str_eq(sum.warnings[0], "thread 4242 of process 4242 called CUDA for several "
			 "GPUs: each GPU's timeline holds its own calls, the others' time counted "
			 "as host time between them");
	gpuproj_import_summary_clear(&sum);
	free_all(ps, n);
	free(path);
}
END_TEST

/*
 * Carried work on an import: thread 4244 of pid 4242 launches stencil3d 600
 * times on stream 13 (non-blocking), call i at [100000 + 100 i, + 10], its
 * run at [100100 + 1000 i, 101100 + 1000 i] back to back, and (`with_sync`)
 * synchronises the device at [160000, 700100], when the last one ends.
 * Its first epoch is cut at 512 calls, at call 511's end (151110), wall
 * 51110, no wait; the GPU work runs on to 612100, so the next epoch (from
 * 151110) begins with a carried node on slot 0: latency 0, 612100 -
 * 151110 = 460990, after which kernel 512 starts at once (latency 0, not
 * 460990 as when that work was spilled); its 88 launches and the
 * synchronisation (gap 90, call 0) end at 700100: wall 548990. Without the
 * synchronisation the last epoch ends with its GPU work just the same, by
 * the device synchronisation of the exit (gap 0, call 0, from 159910).
 * Replayed onto the source both epochs give their walls back (identity
 * exact, the gate's check passes); the floor is the thread's one stream,
 * 600 x 1000 = 600000 ns.
 */
static char *
carry_db(const char *name, bool with_sync)
{
	char sql[2048];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME WITH RECURSIVE c(i) AS (SELECT 0 "
		 "UNION ALL SELECT i + 1 FROM c WHERE i < 599) SELECT 100000 + 100 * i, "
		 "100010 + 100 * i, 0, 281546145665172, 1000 + i, 3, 0, NULL FROM c;"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL WITH RECURSIVE c(i) AS (SELECT 0 "
		 "UNION ALL SELECT i + 1 FROM c WHERE i < 599) SELECT 100100 + 1000 * i, "
		 "101100 + 1000 * i, 0, 1, NULL, 13, 1000 + i, 281546145660928, 6, 7, 5, 0, 40, "
		 "16, 64, 128, 32, 4, 1, 0, 1024, NULL FROM c;%s",
		 with_sync ? "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (160000, 700100, 0, "
			     "281546145665172, 2000, 4, 0, NULL);"
			     "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (160000, "
			     "700100, 0, 1, NULL, 4294967295, 2000, 281546145660928, 1, "
			     "4294967295);" : "");
	return make_db(name, sql);
}

START_TEST(cut_epochs_carry)
{
	const struct gpuproj_target *src = gpuproj_targets_find(targets, "A100-SXM4-40GB");
	int with_sync = _i;
	char *path = carry_db(with_sync ? "carry-sync" : "carry-nosync", with_sync);
	const struct gpuproj_tl_pattern *cut = NULL, *next = NULL;
	const struct gpuproj_timeline *tl;
	struct gpuproj_run_projection run;
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0, i;

	ck_assert_msg(gpuproj_import_nsys(path, NULL, &ps, &n, NULL, NULL, &err) == GPUPROJ_OK,
		      "%s", err.message);
	ck_assert_uint_eq(n, 1);
	tl = gpuproj_profile_timeline(ps[0]);
	ck_assert_uint_eq(tl->threads, 3);
	near(tl->spill_ns, 0, "nothing spilled");
	for (i = 0; i < tl->n_patterns; i++) {
		if (tl->patterns[i].thread != 2)
			continue;
		if (tl->patterns[i].cut)
			cut = &tl->patterns[i];
		else
			next = &tl->patterns[i];
	}
	ck_assert_ptr_nonnull(cut);
	ck_assert_ptr_nonnull(next);
	ck_assert_uint_eq(cut->n_nodes, GPUPROJ_TL_MAX_NODES);
	near(cut->wall_ns.mean, 51110, "cut epoch");
	node_is(&cut->nodes[0], GPUPROJ_TL_KERNEL, 0, 10, 100, 1000, "first launch");
	node_is(&cut->nodes[1], GPUPROJ_TL_KERNEL, 90, 10, 0, 1000, "second launch");
	/* The carried node, the 88 launches, the synchronisation. */
	ck_assert_uint_eq(next->n_nodes, 1 + 88 + 1);
	near(next->wall_ns.mean, 548990, "the epoch after the cut");
	node_is(&next->nodes[0], GPUPROJ_TL_CARRY, 0, 0, 0, 460990, "carried");
	ck_assert_uint_eq(next->nodes[0].stream, 0);
	ck_assert(!next->nodes[0].legacy);
	node_is(&next->nodes[1], GPUPROJ_TL_KERNEL, 90, 10, 0, 1000, "launch 512");
	ck_assert_uint_eq(next->nodes[1].stream, 0);
	node_is(&next->nodes[89], GPUPROJ_TL_SYNC_DEVICE, with_sync ? 90 : 0, 0, -1, -1,
		"the last wait");
	ck_assert_int_eq(gpuproj_timeline_check_identity(tl, NULL, &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_profile_validate(ps[0], NULL, &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_project_run(ps[0], gpuproj_model_default(), src, src, NULL, &run),
			 GPUPROJ_OK);
	ck_assert(run.whole.valid);
	near(run.whole.identity_error, 0, "identity");
	near(run.whole.floor_ns, 600000, "floor: one stream of thread 2");
	ck_assert(!run.whole.floored);
	gpuproj_run_projection_clear(&run);
	free_all(ps, n);
	free(path);
}
END_TEST

/*
 * E0's pageable H2D copy ending at 12150, 50 ns after its cudaMemcpy
 * returned (12100): the call staged the data and did not wait for the DMA,
 * so the copy is not blocking (call 10000: 2100 to 12100; latency 100,
 * 9950 on the GPU), and E0 runs on into E1's calls to its synchronise.
 */
START_TEST(copy_returns_before_its_end)
{
	char *path = make_db("staged", "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = 12150 "
			     "WHERE rowid = 1;");
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_timeline *tl;
	const struct gpuproj_tl_node *c;
	size_t n = 0;

	ck_assert_msg(gpuproj_import_nsys(path, NULL, &ps, &n, NULL, NULL, &err) == GPUPROJ_OK,
		      "%s", err.message);
	tl = gpuproj_profile_timeline(ps[0]);
	/* E0 and E1 in one epoch, 1000 to 15400: malloc, copy, 2 launches, synchronise. */
	ck_assert_uint_eq(tl->patterns[0].n_nodes, 5);
	near(tl->patterns[0].wall_ns.mean, 14400, "E0 and E1");
	c = &tl->patterns[0].nodes[1];
	node_is(c, GPUPROJ_TL_COPY, 100, 10000, 100, 9950, "the staged copy");
	ck_assert(!c->blocking);
	ck_assert_int_eq(gpuproj_timeline_check_identity(tl, NULL, &err), GPUPROJ_OK);
	free_all(ps, n);
	free(path);
}
END_TEST

/*
 * E2's kernels starting 768 ns later than E1's (its synchronise returning
 * 768 later too): stencil3d's latency is 100 in E1 and 868 in E2, mean
 * 484, stddev 543.06 (√(2 · 384²)). Written and loaded back, the profile is the same: a
 * node time keeps its mean and spread, and the import holds min = max =
 * mean as the JSON does (fuzz-nsys found the extremes lost).
 */
START_TEST(varying_round_trip)
{
	char *path = make_db("vary", "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = start + 768, "
			     "end = end + 768 WHERE rowid IN (3, 4);"
			     "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET end = end + 768 "
			     "WHERE rowid = 2;"
			     "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = end + 768 "
			     "WHERE rowid = 10;");
	struct gpuproj_profile **ps = NULL, *back = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_tl_node *a, *b;
	char *json = NULL;
	size_t n = 0, j;

	ck_assert_msg(gpuproj_import_nsys(path, NULL, &ps, &n, NULL, NULL, &err) == GPUPROJ_OK,
		      "%s", err.message);
	a = &gpuproj_profile_timeline(ps[0])->patterns[1].nodes[0];
	near(a->lat_ns.mean, 484, "varying latency");
	near(gpuproj_stats_stddev(&a->lat_ns), sqrt(2.0 * 384 * 384), "its spread");
	ck_assert(a->lat_ns.min == 484 && a->lat_ns.max == 484);
	if (asprintf(&json, "%s/vary.json", dir) < 0)
		ck_abort();
	ck_assert_int_eq(gpuproj_profile_save(ps[0], json, &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_profile_load(json, &back, &err), GPUPROJ_OK);
	for (j = 0; j < 3; j++) {
		a = &gpuproj_profile_timeline(ps[0])->patterns[1].nodes[j];
		b = &gpuproj_profile_timeline(back)->patterns[1].nodes[j];
		ck_assert(a->lat_ns.min == b->lat_ns.min && a->lat_ns.max == b->lat_ns.max);
		ck_assert(a->dur_ns.min == b->dur_ns.min && a->dur_ns.max == b->dur_ns.max);
		ck_assert(a->call_ns.min == b->call_ns.min && a->call_ns.max == b->call_ns.max);
		ck_assert(a->gap_ns.min == b->gap_ns.min && a->gap_ns.max == b->gap_ns.max);
	}
	gpuproj_profile_free(back);
	free(json);
	free_all(ps, n);
	free(path);
}
END_TEST

/*
 * A runtime table without a row: no thread, no timeline, and the 7 GPU
 * records (5 kernels, 2 copies) counted as having no call (fuzz-nsys:
 * the empty list of thread spans once reached qsort() as NULL, which
 * UBSan refuses).
 */
START_TEST(empty_runtime_table)
{
	char *path = make_db("noapi-rows", "DELETE FROM CUPTI_ACTIVITY_KIND_RUNTIME;");
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0;

	ck_assert_int_eq(gpuproj_import_nsys(path, NULL, &ps, &n, &sum, NULL, &err), GPUPROJ_OK);
	ck_assert_uint_eq(gpuproj_profile_count(ps[0]), 3);
	ck_assert_ptr_null(gpuproj_profile_timeline(ps[0]));
	ck_assert_uint_eq(sum.n_warnings, 1);
	ck_assert_str_eq(sum.warnings[0], "7 GPU records had no CUDA call in the export (their "
			 "time is in the kernels, not in the timeline)");
	gpuproj_import_summary_clear(&sum);
	free_all(ps, n);
	free(path);
}
END_TEST

/* No runtime table: the kernels, no timeline, and a warning saying so. */
START_TEST(no_runtime_table)
{
	char *path = make_db("noapi", "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;");
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	char *want = NULL;
	size_t n = 0;

	ck_assert_int_eq(gpuproj_import_nsys(path, NULL, &ps, &n, &sum, NULL, &err), GPUPROJ_OK);
	ck_assert_uint_eq(gpuproj_profile_count(ps[0]), 3);
	ck_assert_ptr_null(gpuproj_profile_timeline(ps[0]));
	ck_assert_uint_eq(sum.n_warnings, 1);
	if (asprintf(&want, "%s: no CUPTI_ACTIVITY_KIND_RUNTIME table: kernels only, no whole-run "
		     "timeline (take the report with `nsys profile --trace=cuda`)", path) < 0)
		ck_abort();
	ck_assert_str_eq(sum.warnings[0], want);
	free(want);
	gpuproj_import_summary_clear(&sum);
	free_all(ps, n);
	free(path);
}
END_TEST

/* One case per kind of bad input: the change to basic.sql, the status, the message. */
static const struct {
	const char *change;
	int status;
	const char *message;
} bad[] = {
	{ "DROP TABLE META_DATA_EXPORT;", GPUPROJ_E_SCHEMA,
	  "an SQLite database, but not an Nsight Systems export: it has no META_DATA_EXPORT (or, "
	  "before export schema 3, EXPORT_META_DATA) table" },
	{ "UPDATE META_DATA_EXPORT SET value = 'NVIDIA Nsight Compute' "
	  "WHERE name = 'EXPORT_PRODUCT_NAME';", GPUPROJ_E_SCHEMA,
	  "an SQLite database, but not an Nsight Systems export: META_DATA_EXPORT says the product "
	  "is 'NVIDIA Nsight Compute'" },
	{ "UPDATE META_DATA_EXPORT SET value = '4.0.1' WHERE name = 'EXPORT_SCHEMA_VERSION';",
	  GPUPROJ_E_SCHEMA,
	  "Nsight Systems 2024.5.1.113 wrote export schema 4.0.1, newer than this gpuproj knows "
	  "(majors 2 to 3): its tables may mean something else; export it with an Nsight Systems "
	  "whose schema major is 2 to 3" },
	{ "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;", GPUPROJ_E_NOTFOUND,
	  "no CUPTI_ACTIVITY_KIND_KERNEL table: the report holds no CUDA kernel (was it taken with "
	  "`nsys profile --trace=cuda`?)" },
	{ "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL;", GPUPROJ_E_NOTFOUND,
	  "CUPTI_ACTIVITY_KIND_KERNEL is empty: the report holds no CUDA kernel launch" },
	{ "DROP TABLE StringIds;", GPUPROJ_E_SCHEMA,
	  "no StringIds table (Nsight Systems 2024.5.1.113, export schema 3.13.2)" },
	{ "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN gridY;", GPUPROJ_E_SCHEMA,
	  "table CUPTI_ACTIVITY_KIND_KERNEL has no column 'gridY' (Nsight Systems 2024.5.1.113, "
	  "export schema 3.13.2)" },
	{ "ALTER TABLE CUPTI_ACTIVITY_KIND_MEMCPY DROP COLUMN copyKind;", GPUPROJ_E_SCHEMA,
	  "table CUPTI_ACTIVITY_KIND_MEMCPY has no column 'copyKind' (Nsight Systems "
	  "2024.5.1.113, export schema 3.13.2)" },
	{ "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 12299 WHERE rowid = 1;", GPUPROJ_E_SCHEMA,
	  "table CUPTI_ACTIVITY_KIND_KERNEL, row 1: end 12299 is before its start 12300" },
	{ "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = -5 WHERE rowid = 3;", GPUPROJ_E_SCHEMA,
	  "table CUPTI_ACTIVITY_KIND_RUNTIME, row 3: start -5 is outside [0, "
	  "9223372036854775807]" },
	{ "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET mangledName = 999 WHERE rowid = 2;",
	  GPUPROJ_E_SCHEMA,
	  "table CUPTI_ACTIVITY_KIND_KERNEL, row 2: mangledName 999 is not in StringIds" },
	{ "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 0 WHERE rowid = 2;", GPUPROJ_E_SCHEMA,
	  "table CUPTI_ACTIVITY_KIND_KERNEL, row 2: gridX 0 is outside [1, 4294967295]" },
	{ "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET blockX = 'wide' WHERE rowid = 2;",
	  GPUPROJ_E_SCHEMA,
	  "table CUPTI_ACTIVITY_KIND_KERNEL, row 2: blockX 'wide' is not an integer" },
	{ "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -1 WHERE rowid = 1;", GPUPROJ_E_SCHEMA,
	  "table CUPTI_ACTIVITY_KIND_MEMCPY, row 1: bytes -1 is outside [0, 4611686018427387904]" },
	{ "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = NULL WHERE rowid = 4;",
	  GPUPROJ_E_SCHEMA, "table CUPTI_ACTIVITY_KIND_RUNTIME, row 4: correlationId is NULL" },
};

START_TEST(bad_input)
{
	char *path = make_db("bad", bad[_i].change), *out = NULL, *err_text = NULL, *json = NULL;
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	struct stat st;
	size_t n = 0;

	ck_assert_int_eq(gpuproj_import_nsys(path, NULL, &ps, &n, NULL, NULL, &err),
			 bad[_i].status);
	ck_assert_ptr_null(ps);
	ck_assert_str_eq(err.file, path);
	ck_assert_str_eq(err.message, bad[_i].message);
	/* The command: that one line, exit 1, nothing written. */
	if (asprintf(&json, "%s/out.json", dir) < 0)
		ck_abort();
	ck_assert_int_eq(test_cli(&out, &err_text, "import nsys '%s' -o '%s'", path, json), 2);
	ck_assert_str_eq(out, "");
	{
		char *want = NULL;

		if (asprintf(&want, "gpuproj: %s: %s\n", path, bad[_i].message) < 0)
			ck_abort();
		ck_assert_str_eq(err_text, want);
		free(want);
	}
	ck_assert_int_ne(stat(json, &st), 0);
	free(out);
	free(err_text);
	free(json);
	free(path);
}
END_TEST

/* Files that are no SQLite database at all, or a damaged one. */
START_TEST(not_sqlite)
{
	char *text = test_write_file(dir, "report.sqlite", "==PROF== not a database\n");
	char *path = make_db("cut", NULL), *cut = NULL, *data;
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	FILE *f;
	size_t n = 0;

	ck_assert_int_eq(gpuproj_import_nsys(text, NULL, &ps, &n, NULL, NULL, &err),
			 GPUPROJ_E_PARSE);
	ck_assert_str_eq(err.message, "not an SQLite database (an Nsight Systems report is "
			 "exported with `nsys export --type sqlite REPORT.nsys-rep`)");
	/* The first page alone: its header promises pages that are not there. */
	data = test_read_file(path);
	ck_assert_ptr_nonnull(data);
	if (asprintf(&cut, "%s/cut-short.sqlite", dir) < 0)
		ck_abort();
	f = fopen(cut, "wb");
	ck_assert_uint_eq(fwrite(data, 1, 4096, f), 4096);
	fclose(f);
	ck_assert_int_eq(gpuproj_import_nsys(cut, NULL, &ps, &n, NULL, NULL, &err),
			 GPUPROJ_E_PARSE);
	ck_assert_str_eq(err.message,
			 "SQLite cannot read the file: database disk image is malformed");
	ck_assert_ptr_null(ps);
	free(data);
	free(cut);
	free(text);
	free(path);
}
END_TEST

/*
 * The command: one profile to a file; several need -o DIR/ (nothing
 * written otherwise), where each gets <application>-<pid>-gpu<N>.json;
 * the two processes' profiles of GPU 0 merge; the projection of an import
 * states the envelope.
 */
START_TEST(cli)
{
	char *path = make_db("cli", NULL), *multi = make_db("cli-multi", multi_change);
	char *out = NULL, *err = NULL, *json = NULL, *want = NULL;
	struct stat st;
	int rc;

	if (asprintf(&json, "%s/one.json", dir) < 0)
		ck_abort();
	ck_assert_int_eq(test_cli(&out, &err, "import nsys '%s' -o '%s'", path, json), 0);
	ck_assert_msg(strstr(err, "(Nsight Systems 2024.5.1.113, export schema 3.13.2): 23 rows, "
			     "5 launches, 3 kernel signatures in 1 profile (one per GPU and "
			     "process)\n")
		      != NULL, "%s", err);
	ck_assert_msg(strstr(err, "    timeline: 2 threads, 4 patterns of 5 epochs "
			     "explaining 100.0 % of the 20.3 us traced; 0 epochs (0 ns) "
			     "unexplained\n") != NULL,
		      "%s", err);
	ck_assert_msg(strstr(err, "  3 of them, without counters, will be projected by the "
			     "envelope of the target's FP32 and DRAM ceilings (assumed: binding "
			     "unknown)\n") != NULL, "%s", err);
	ck_assert_int_eq(stat(json, &st), 0);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "project '%s' --target H100-PCIe-80GB --format json",
				  json), 0);
	/* The one list of assumptions (JSON "assumed"), here the envelope's alone. */
	ck_assert_ptr_nonnull(strstr(out, "\"assumed\": [\n"));
	ck_assert_ptr_nonnull(strstr(out, "\"binding unknown\"\n"));
	ck_assert_ptr_nonnull(strstr(out, "\"assumed_kernels\": 3,"));
	free(out);
	free(err);
	free(json);

	if (asprintf(&json, "%s/several.json", dir) < 0 ||
	    asprintf(&want, "gpuproj: %s holds 3 GPUs and processes with kernels (one profile "
		     "each): give -o DIR/ to write them all\n", multi) < 0)
		ck_abort();
	ck_assert_int_eq(test_cli(&out, &err, "import nsys '%s' -o '%s'", multi, json), 2);
	ck_assert_str_eq(err, want);
	ck_assert_int_ne(stat(json, &st), 0);
	free(out);
	free(err);
	free(json);
	free(want);
	json = NULL;

	ck_assert_int_eq(test_cli(&out, &err, "import nsys '%s' -o '%s/split/'", multi, dir), 0);
	free(out);
	free(err);
	{
		char *a = NULL, *b = NULL, *c = NULL, *m = NULL;

		if (asprintf(&a, "%s/split/cuda-app-4242-gpu0.json", dir) < 0 ||
		    asprintf(&b, "%s/split/cuda-app-4300-gpu0.json", dir) < 0 ||
		    asprintf(&c, "%s/split/cuda-app-4242-gpu1.json", dir) < 0 ||
		    asprintf(&m, "%s/job.json", dir) < 0)
			ck_abort();
		ck_assert_int_eq(stat(a, &st), 0);
		ck_assert_int_eq(stat(b, &st), 0);
		ck_assert_int_eq(stat(c, &st), 0);
		free(json);
		if (asprintf(&json, "%s/split", dir) < 0)
			ck_abort();
		ck_assert_int_eq(test_count_dir(json), 3);
		free(json);
		ck_assert_int_eq(test_cli(&out, &err, "merge '%s' '%s' -o '%s'", a, b, m), 0);
		free(out);
		free(err);
		rc = test_cli(&out, &err, "project '%s' --target A100-SXM4-40GB", m);
		ck_assert_msg(rc == 0, "%d: %s", rc, err);
		ck_assert_ptr_nonnull(strstr(out, "Whole run: projected wall time"));
		free(out);
		free(err);
		free(a);
		free(b);
		free(c);
		free(m);
	}
	free(path);
	free(multi);
}
END_TEST

/*
 * The copy of E0 10 us longer (everything after it 10 us later):
 * measured whole run 20300 → 30300 ns, +49.3 %; `gate --metric wall`
 * fails it (exit 1). And `report` takes the import, with its whole run.
 */
static const char *const slower_copy =
	"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = start + 10000, end = end + 10000 "
	"WHERE start >= 12100;"
	"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = start + 10000, end = end + 10000 "
	"WHERE start >= 12100;"
	"UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET start = start + 10000, end = end + 10000 "
	"WHERE start >= 12100;"
	"UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET start = start + 10000, "
	"end = end + 10000 WHERE start >= 12100;"
	"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = end + 10000 WHERE correlationId = 11 AND "
	"eventClass = 0;"
	"UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = end + 10000 WHERE correlationId = 11;";

START_TEST(gate_and_report)
{
	char *base = make_db("gate-base", NULL), *cur = make_db("gate-cur", slower_copy);
	char *out = NULL, *err = NULL, *bj = NULL, *cj = NULL, *html = NULL, *md = NULL, *text;

	if (asprintf(&bj, "%s/base.json", dir) < 0 || asprintf(&cj, "%s/cur.json", dir) < 0 ||
	    asprintf(&html, "%s/r.html", dir) < 0 || asprintf(&md, "%s/r.md", dir) < 0)
		ck_abort();
	ck_assert_int_eq(test_cli(&out, &err, "import nsys '%s' -o '%s'", base, bj), 0);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "import nsys '%s' -o '%s'", cur, cj), 0);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "gate --baseline '%s' '%s' --target H100-PCIe-80GB "
				  "--metric wall", bj, cj), 1);
	ck_assert_msg(strstr(out, "A100-SXM4-40GB (measured)         20.3 us      30.3 us    "
			     "+49.3%        0 ns  REGRESSED\n") != NULL, "%s", out);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "gate --baseline '%s' '%s' --target H100-PCIe-80GB "
				  "--metric wall", bj, bj), 0);
	free(out);
	free(err);
	ck_assert_int_eq(test_cli(&out, &err, "report '%s' --html '%s' --md '%s' --no-charts", bj,
				  html, md), 0);
	text = test_read_file(md);
	ck_assert_ptr_nonnull(strstr(text, "## Whole run"));
	free(text);
	free(out);
	free(err);
	free(bj);
	free(cj);
	free(html);
	free(md);
	free(base);
	free(cur);
}
END_TEST

/*
 * A .nsys-rep is exported with the nsys on PATH (here a stand-in that
 * copies a database to its --output, or fails as nsys does), and its
 * temporary export removed.
 */
START_TEST(nsys_rep)
{
	char *db = make_db("for-rep", NULL), *bin = NULL, *rep = NULL, *json = NULL, *env = NULL;
	char *tmp = NULL, *out = NULL, *err = NULL, *script = NULL, *want = NULL;

	if (asprintf(&bin, "%s/bin", dir) < 0 || asprintf(&tmp, "%s/tmp", dir) < 0 ||
	    asprintf(&json, "%s/rep.json", dir) < 0 ||
	    asprintf(&env, "PATH='%s':\"$PATH\" TMPDIR='%s'", bin, tmp) < 0 ||
	    asprintf(&script, "#!/bin/sh\n"
		     "# nsys export --type sqlite --output OUT --force-overwrite true REPORT\n"
		     "[ \"$1 $2 $3 $4 $6 $7\" = \"export --type sqlite --output "
		     "--force-overwrite true\" ] || exit 9\n"
		     "case \"$8\" in *bad*) echo 'Error: cannot read the report' >&2; "
		     "exit 3;; esac\n"
		     "cp '%s' \"$5\"\n", db) < 0)
		ck_abort();
	ck_assert_int_eq(mkdir(bin, 0755), 0);
	ck_assert_int_eq(mkdir(tmp, 0755), 0);
	free(test_write_file(bin, "nsys", script));
	{
		char *nsys = NULL;

		if (asprintf(&nsys, "%s/nsys", bin) < 0)
			ck_abort();
		ck_assert_int_eq(chmod(nsys, 0755), 0);
		free(nsys);
	}
	rep = test_write_file(dir, "run.nsys-rep", "not read by gpuproj\n");
	ck_assert_int_eq(test_cli_at(NULL, env, &out, &err, "import nsys '%s' -o '%s'", rep, json),
			 0);
	ck_assert_ptr_nonnull(strstr(err, "23 rows, 5 launches, 3 kernel signatures"));
	ck_assert_int_eq(test_count_dir(tmp), 0); /* the export and its directory removed */
	free(out);
	free(err);
	free(rep);
	rep = test_write_file(dir, "bad.nsys-rep", "x\n");
	ck_assert_int_eq(test_cli_at(NULL, env, &out, &err, "import nsys '%s' -o '%s/bad.json'",
				     rep, dir), 2);
	if (asprintf(&want, "gpuproj: %s: `%s/nsys export --type sqlite` failed (exit status 3): "
		     "Error: cannot read the report\n", rep, bin) < 0)
		ck_abort();
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(test_count_dir(tmp), 0);
	free(want);
	free(out);
	free(err);
	free(rep);
	free(db);
	free(bin);
	free(tmp);
	free(json);
	free(env);
	free(script);
}
END_TEST

/* ---- the real exports (validation) ---- */

static const char *
nsys_dir(void)
{
	static char path[4096];
	const char *v = test_validation_dir();
	struct stat st;

	if (!v)
		return NULL;
	snprintf(path, sizeof(path), "%s/../nsys", v);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path : NULL;
}

/*
 * CloverLeaf on an A100-SXM4-80GB of Perlmutter, Nsight Systems 2024.5.1
 * (README beside the file): 1,312 launches of 102 signatures (the README's
 * "3 kernels" are its three templates, par_ranged1d/2d and par_reduce);
 * one thread whose 1,338 epochs (launch, cudaDeviceSynchronize) fold into
 * 110 patterns explaining all of its 618,351,261 ns. Replayed onto its
 * own GPU at the patterns' mean times the run takes 618,345,551 ns:
 * -0.0009 % against the recorded span, inside the 2 % identity tolerance
 * and the 2.54 % error bound of replaying means (timeline.h). 254 of its
 * 279 copies (pageable H2D cudaMemcpy) end 2.2 to 43.3 us after their call
 * returned (the call stages the data: CUDA Runtime API, "API
 * synchronization behavior"), so they do not block to their end: taken as
 * blocking, the one epoch of pattern 13 (ten of them and a kernel)
 * replayed at 676,490 ns against the 649,452 measured, +4.2 %, which the
 * identity check of each pattern refuses, and the run at
 * 618,521,909 (+0.028 %).
 */
START_TEST(cloverleaf)
{
	const char *d = nsys_dir();
	char path[4200];
	const struct gpuproj_target *src;
	const struct gpuproj_timeline *tl;
	struct gpuproj_run_projection run;
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_error err = { 0 };
	uint64_t epochs = 0;
	size_t n = 0, i;

	if (!d) {
		test_skip("../shared/validation/nsys is absent");
		return;
	}
	snprintf(path, sizeof(path), "%s/cloverleaf-a100-nsys2024.5.sqlite", d);
	ck_assert_msg(gpuproj_import_nsys(path, NULL, &ps, &n, &sum, NULL, &err) == GPUPROJ_OK,
		      "%s", err.message);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(sum.launches, 1312);
	ck_assert_uint_eq(sum.kernels, 102);
	ck_assert_uint_eq(sum.n_warnings, 0);
	ck_assert_str_eq(gpuproj_profile_device(ps[0])->name, "NVIDIA A100-SXM4-80GB");
	ck_assert_str_eq(gpuproj_profile_process(ps[0])->application, "cuda-cloverleaf");
	/* The kernels' durations: Σ (end − start) over the table, 294,404,540 ns. */
	near(gpuproj_profile_run_info(ps[0])->gpu_ns, 294404540, "kernel time");
	tl = gpuproj_profile_timeline(ps[0]);
	ck_assert_uint_eq(tl->threads, 1);
	ck_assert_uint_eq(tl->n_patterns, 110);
	for (i = 0; i < tl->n_patterns; i++)
		epochs += tl->patterns[i].wall_ns.n;
	ck_assert_uint_eq(epochs, 1338);
	near(gpuproj_timeline_unexplained_ns(tl), 0, "unexplained");
	near(tl->wall_ns, 618351261, "traced wall");
	near(gpuproj_timeline_explained_ns(tl), 618351261, "explained");

	src = gpuproj_targets_find(targets, "A100-SXM4-80GB");
	ck_assert_int_eq(gpuproj_project_run(ps[0], gpuproj_model_default(), src, src, NULL, &run),
			 GPUPROJ_OK);
	ck_assert(run.whole.valid);
	near(run.whole.source_ns, 618351261, "recorded span");
	ck_assert_msg(fabs(run.whole.identity_error) <= GPUPROJ_TL_IDENTITY_TOLERANCE,
		      "identity %g", run.whole.identity_error);
	near(run.whole.wall_ns, 618345551, "replayed onto the source");
	near(run.whole.identity_error, (618345551.0 - 618351261.0) / 618351261.0, "identity");
	ck_assert_msg(run.whole.bound > fabs(run.whole.identity_error), "bound %g",
		      run.whole.bound);
	/* Each pattern describes what was measured (the gate's check). */
	ck_assert_msg(gpuproj_timeline_check_identity(tl, NULL, &err) == GPUPROJ_OK, "%s",
		      err.message);
	ck_assert(!run.whole.floored);
	near(run.point_ns, 294404540, "kernels onto themselves");
	gpuproj_run_projection_clear(&run);
	gpuproj_import_summary_clear(&sum);
	free_all(ps, n);
}
END_TEST

/*
 * The MPI SAXPY, rank 0, A100-SXM4-40GB, Nsight Systems 2022.2 (schema
 * 2.9.1: EXPORT_META_DATA, a `name` column in the runtime table, runtime
 * rows repeated as "CUDA backtrace", eventClass 67): 5 launches of one
 * signature; 95 runtime rows of which 57 are calls (56 runtime, 1 driver;
 * 38 backtraces skipped), 15 copies, 5 kernels: 77 rows.
 */
START_TEST(saxpy)
{
	const char *d = nsys_dir();
	char path[4200];
	const struct gpuproj_target *src;
	struct gpuproj_run_projection run;
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *k;
	size_t n = 0;

	if (!d) {
		test_skip("../shared/validation/nsys is absent");
		return;
	}
	snprintf(path, sizeof(path), "%s/saxpy-mpi-a100.sqlite", d);
	ck_assert_msg(gpuproj_import_nsys(path, NULL, &ps, &n, &sum, NULL, &err) == GPUPROJ_OK,
		      "%s", err.message);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(gpuproj_profile_attr(ps[0], "nsys.schema"), "2.9.1");
	ck_assert_uint_eq(sum.launches, 5);
	ck_assert_uint_eq(sum.rows, 77);
	k = gpuproj_profile_at(ps[0], 0);
	ck_assert_str_eq(k->name, "_Z5saxpyPdS_S_di");
	ck_assert(k->grid.x == 2 && k->block.x == 512);
	ck_assert_uint_eq(k->regs_per_thread, 26);
	src = gpuproj_targets_find(targets, "A100-SXM4-40GB");
	ck_assert_int_eq(gpuproj_project_run(ps[0], gpuproj_model_default(), src, src, NULL, &run),
			 GPUPROJ_OK);
	ck_assert(run.whole.valid);
	ck_assert_msg(fabs(run.whole.identity_error) <= GPUPROJ_TL_IDENTITY_TOLERANCE,
		      "identity %g", run.whole.identity_error);
	gpuproj_run_projection_clear(&run);
	gpuproj_import_summary_clear(&sum);
	free_all(ps, n);
}
END_TEST

int
main(int argc, char **argv)
{
	bool validation = argc > 1 && strcmp(argv[1], "validation") == 0;
	Suite *s = suite_create("import-nsys");
	TCase *tc = tcase_create(validation ? "validation" : "import");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	if (validation) {
		tcase_set_timeout(tc, 300);
		tcase_add_test(tc, cloverleaf);
		tcase_add_test(tc, saxpy);
	} else {
		tcase_add_test(tc, basic);
		tcase_add_test(tc, identity);
		tcase_add_test(tc, schema2_layout);
		tcase_add_test(tc, join_ncu);
		tcase_add_test(tc, processes_and_gpus);
		tcase_add_test(tc, no_runtime_table);
		tcase_add_test(tc, varying_round_trip);
		tcase_add_loop_test(tc, cut_epochs_carry, 0, 2);
		tcase_add_test(tc, copy_returns_before_its_end);
		tcase_add_test(tc, empty_runtime_table);
		tcase_add_loop_test(tc, bad_input, 0, (int)(sizeof(bad) / sizeof(bad[0])));
		tcase_add_test(tc, not_sqlite);
		tcase_add_test(tc, cli);
		tcase_add_test(tc, gate_and_report);
		tcase_add_test(tc, nsys_rep);
	}
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#else /* !GPUPROJ_HAVE_SQLITE */

/* Built without SQLite: the importer says so, and there is nothing else to test. */
int
main(void)
{
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0;

	if (gpuproj_import_nsys("x.sqlite", NULL, &ps, &n, NULL, NULL, &err) !=
	    GPUPROJ_E_UNSUPPORTED)
		return EXIT_FAILURE;
	test_skip("built without SQLite (libsqlite3-dev): only the refusal is tested");
	return 77;
}

#endif
