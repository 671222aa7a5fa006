/* SPDX-License-Identifier: MIT */
/*
 * The whole-run timeline (include/gpuproj/timeline.h): measured epochs
 * folded into patterns, the replay against hand-computed walls and parts,
 * the identity (the replay with the source's times gives the measured
 * wall back), bounds and eviction, copies onto other host links, the JSON
 * round trip and its positioned errors, the projection of a profile, and
 * the merge of two ranks.
 *
 * Times in the comments are ns; "x0.5" means every kernel twice as fast.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuproj/gate.h>
#include <gpuproj/merge.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/report.h>
#include <gpuproj/target.h>
#include <gpuproj/timeline.h>

#include "common.h"

#define N GPUPROJ_TL_NONE

static void
near(double got, double want, const char *what)
{
	ck_assert_msg(fabs(got - want) <= 1e-6 * fmax(1, fabs(want)), "%s: got %.17g, want %.17g",
		      what, got, want);
}

/* A GPU op of the raw epoch. */
static struct gpuproj_tl_raw
gpu(enum gpuproj_tl_op op, uint16_t stream, uint64_t cs, uint64_t ce, uint64_t os, uint64_t oe)
{
	return (struct gpuproj_tl_raw){ .op = op, .stream = stream, .event = N, .call_start = cs,
					.call_end = ce, .op_start = os, .op_end = oe };
}

static struct gpuproj_tl_raw
host(enum gpuproj_tl_op op, uint16_t stream, uint16_t event, uint64_t cs, uint64_t ce)
{
	return (struct gpuproj_tl_raw){ .op = op, .stream = stream, .event = event,
					.call_start = cs, .call_end = ce };
}

/* Fold, check the identity, replay with every GPU op's duration × `k`. */
static void
fold_replay(const struct gpuproj_tl_raw *raw, size_t n, uint64_t start, uint64_t end, double k,
	    struct gpuproj_tl_parts *out)
{
	struct gpuproj_tl_pattern pat;
	struct gpuproj_tl_parts same;
	double *dur = calloc(n, sizeof(*dur));
	size_t i;

	ck_assert_int_eq(gpuproj_tl_epoch_fold(raw, n, start, end, &pat), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_timeline_replay(&pat, NULL, &same), GPUPROJ_OK);
	near(same.wall_ns, (double)(end - start), "identity");
	for (i = 0; i < n; i++)
		dur[i] = pat.nodes[i].dur_ns.mean * k;
	ck_assert_int_eq(gpuproj_timeline_replay(&pat, dur, out), GPUPROJ_OK);
	free(dur);
	gpuproj_tl_pattern_clear(&pat);
}

/*
 * Serial: host 1000, K1 10000 and K2 20000 on one stream, launched at
 * 1000, then a device synchronise that returns 500 after K2 ends (31000).
 * x0.5: K1 [1000, 6000], K2 [6000, 16000], sync returns at 16500.
 */
START_TEST(serial)
{
	struct gpuproj_tl_raw raw[] = {
		gpu(GPUPROJ_TL_KERNEL, 0, 1000, 1000, 1000, 11000),
		gpu(GPUPROJ_TL_KERNEL, 0, 1000, 1000, 11000, 31000),
		host(GPUPROJ_TL_SYNC_DEVICE, N, N, 1000, 31500),
	};
	struct gpuproj_tl_parts p;

	fold_replay(raw, 3, 0, 31500, 0.5, &p);
	near(p.wall_ns, 16500, "wall");
	near(p.kernel_ns, 15000, "kernel");
	near(p.host_ns, 1500, "host");
	near(p.copy_ns, 0, "copy");
	near(p.idle_ns, 0, "idle");
	near(p.overlap_ns, 0, "overlap");
	near(p.excl_kernel_ns, 15000, "bar kernel");
	near(p.excl_host_ns, 1500, "bar host");
}
END_TEST

/* Two streams at once: 10000 on s0 and 20000 on s1 from 0, sync. x0.5: 10000, overlap 5000. */
START_TEST(two_streams)
{
	struct gpuproj_tl_raw raw[] = {
		gpu(GPUPROJ_TL_KERNEL, 0, 0, 0, 0, 10000),
		gpu(GPUPROJ_TL_KERNEL, 1, 0, 0, 0, 20000),
		host(GPUPROJ_TL_SYNC_DEVICE, N, N, 0, 20000),
	};
	struct gpuproj_tl_parts p;

	fold_replay(raw, 3, 0, 20000, 0.5, &p);
	near(p.wall_ns, 10000, "wall");
	near(p.kernel_ns, 15000, "kernel");
	near(p.overlap_ns, 5000, "overlap");
	near(p.excl_kernel_ns, 10000, "bar kernel");
}
END_TEST

/*
 * An event across streams: K1 on s0 [0, 10000]; the event recorded after
 * it; s1 waits for it; K2 on s1 then runs [10000, 15000]; sync.
 * x0.5: K1 [0, 5000], K2 [5000, 7500].
 */
START_TEST(event_wait)
{
	struct gpuproj_tl_raw raw[] = {
		gpu(GPUPROJ_TL_KERNEL, 0, 0, 0, 0, 10000),
		host(GPUPROJ_TL_EVENT_RECORD, 0, 0, 0, 0),
		host(GPUPROJ_TL_EVENT_WAIT, 1, 0, 0, 0),
		gpu(GPUPROJ_TL_KERNEL, 1, 0, 0, 10000, 15000),
		host(GPUPROJ_TL_SYNC_STREAM, 1, N, 0, 15000),
	};
	struct gpuproj_tl_parts p;

	fold_replay(raw, 5, 0, 15000, 0.5, &p);
	near(p.wall_ns, 7500, "wall");
	near(p.overlap_ns, 0, "overlap");
	/* Without the wait, the two would overlap: the dependency is what keeps 7500. */
}
END_TEST

/*
 * Host-bound: 50000 of host work before each of two 1000-ns kernels, sync.
 * The second gap starts when the first call ends (50000), so K1 runs under
 * it; x0.5: K1 [50000, 50500], K2 [100000, 100500], sync at 100500 (the
 * kernels' halving saves 500, not 1000).
 */
START_TEST(host_bound)
{
	struct gpuproj_tl_raw raw[] = {
		gpu(GPUPROJ_TL_KERNEL, 0, 50000, 50000, 50000, 51000),
		gpu(GPUPROJ_TL_KERNEL, 0, 100000, 100000, 100000, 101000),
		host(GPUPROJ_TL_SYNC_DEVICE, N, N, 100000, 101000),
	};
	struct gpuproj_tl_parts p;

	fold_replay(raw, 3, 0, 101000, 0.5, &p);
	near(p.wall_ns, 100500, "wall");
	near(p.host_ns, 100000, "host");
	near(p.kernel_ns, 1000, "kernel");
	/* The bar gives the kernels' 1000 to "kernel" even where the host was busy too. */
	near(p.excl_host_ns, 99500, "bar host");
}
END_TEST

/*
 * Copy-bound and blocking: a blocking H2D copy [0, 40000] returning at
 * 40000, a kernel 2000, a blocking D2H copy 40000. Copies x0.5, kernel x0.5:
 * 20000 + 1000 + 20000.
 */
START_TEST(copy_bound)
{
	struct gpuproj_tl_raw raw[] = {
		gpu(GPUPROJ_TL_COPY, 0, 0, 40000, 0, 40000),
		gpu(GPUPROJ_TL_KERNEL, 0, 40000, 40000, 40000, 42000),
		gpu(GPUPROJ_TL_COPY, 0, 40000, 82000, 42000, 82000),
	};
	struct gpuproj_tl_parts p;

	raw[0].blocking = raw[2].blocking = true;
	raw[0].copy = GPUPROJ_COPY_H2D;
	raw[2].copy = GPUPROJ_COPY_D2H;
	fold_replay(raw, 3, 0, 82000, 0.5, &p);
	near(p.wall_ns, 41000, "wall");
	near(p.copy_ns, 40000, "copy");
	near(p.kernel_ns, 1000, "kernel");
	near(p.excl_copy_ns, 40000, "bar copy");
}
END_TEST

/* The legacy default stream waits for every stream, and they for it. */
START_TEST(legacy_stream)
{
	struct gpuproj_tl_raw raw[] = {
		gpu(GPUPROJ_TL_KERNEL, 1, 0, 0, 0, 10000),
		gpu(GPUPROJ_TL_KERNEL, 0, 0, 0, 10000, 12000),
		gpu(GPUPROJ_TL_KERNEL, 2, 0, 0, 12000, 13000),
		host(GPUPROJ_TL_SYNC_DEVICE, N, N, 0, 13000),
	};
	struct gpuproj_tl_parts p;

	raw[1].legacy = true;
	fold_replay(raw, 4, 0, 13000, 0.5, &p);
	near(p.wall_ns, 6500, "wall");
}
END_TEST

/*
 * Slots are names, not sizes. The event_wait epoch on streams
 * 65534 and 7 and event 65000 replays exactly as on streams 0 and 1 and
 * event 0 (the replay renumbers to the slots used; before, it sized its
 * state by the largest slot and scanned it at every synchronisation).
 */
START_TEST(large_slots)
{
	struct gpuproj_tl_raw raw[] = {
		gpu(GPUPROJ_TL_KERNEL, 65534, 0, 0, 0, 10000),
		host(GPUPROJ_TL_EVENT_RECORD, 65534, 65000, 0, 0),
		host(GPUPROJ_TL_EVENT_WAIT, 7, 65000, 0, 0),
		gpu(GPUPROJ_TL_KERNEL, 7, 0, 0, 10000, 15000),
		host(GPUPROJ_TL_SYNC_STREAM, 7, N, 0, 15000),
		host(GPUPROJ_TL_SYNC_DEVICE, N, N, 15000, 15000),
	};
	struct gpuproj_tl_parts p;

	fold_replay(raw, 6, 0, 15000, 0.5, &p);
	near(p.wall_ns, 7500, "wall"); /* as event_wait: K1 [0, 5000], K2 [5000, 7500] */
	near(p.kernel_ns, 7500, "kernel");
	near(p.overlap_ns, 0, "overlap");
}
END_TEST

/* Values the replay's rules cannot produce are taken as 0: lat < 0 (clocks), a gap < 0. */
START_TEST(clamped)
{
	struct gpuproj_tl_raw raw[] = {
		gpu(GPUPROJ_TL_KERNEL, 0, 5000, 6000, 4000, 8000), /* starts before its call */
		host(GPUPROJ_TL_SYNC_DEVICE, N, N, 5500, 9000),    /* starts before the last ended */
	};
	struct gpuproj_tl_pattern pat;

	ck_assert_int_eq(gpuproj_tl_epoch_fold(raw, 2, 0, 9000, &pat), GPUPROJ_OK);
	near(pat.nodes[0].lat_ns.mean, 0, "lat");
	near(pat.nodes[1].gap_ns.mean, 0, "gap");
	gpuproj_tl_pattern_clear(&pat);
	ck_assert_int_eq(gpuproj_tl_epoch_fold(raw, 0, 0, 9000, &pat), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_tl_epoch_fold(raw, 2, 9000, 0, &pat), GPUPROJ_E_INVAL);
}
END_TEST

/* ---- a profile with kernels, a timeline and runs ---- */

static const char targets_yaml[] =
	"schema: gpuproj-targets/1\n"
	"references: {T: \"test\"}\n"
	"gpus:\n"
	"  - name: Src\n"
	"    match: [\"Src GPU\"]\n"
	"    vendor: nvidia\n    arch: sm_80\n    chip: GA100\n    sms: 100\n    warp_size: 32\n"
	"    clock_mhz: 1000\n    schedulers_per_sm: 4\n"
	"    limits: {threads_per_sm: 2048, threads_per_block: 1024, blocks_per_sm: 32,\n"
	"             regs_per_sm: 65536, regs_per_block: 65536, regs_per_thread: 255,\n"
	"             reg_alloc_unit: 256, smem_per_sm_kib: 164, smem_per_block_kib: 163,\n"
	"             smem_alloc_unit_b: 128, smem_reserved_per_block_b: 1024, l2_mib: 40}\n"
	"    peak_gflops: {fp16_fma: 80000, fp32_fma: 20000, fp64_fma: 10000}\n"
	"    bw_gbs: {dram: 1000, l2: 4000, l1: 16000, shared: 16000}\n"
	"    host_link: {interface: pcie4-x16, h2d_pinned_gbs: 25, d2h_pinned_gbs: 25,\n"
	"                h2d_pageable_gbs: 12.5, d2h_pageable_gbs: 12.5, latency_us: 2}\n"
	"    price_usd: null\n    tdp_w: null\n"
	"    sources: {sms: \"estimate: t\", warp_size: \"estimate: t\", clock_mhz: \"estimate: t\",\n"
	"              schedulers_per_sm: \"estimate: t\", limits: \"estimate: t\",\n"
	"              peak_gflops: \"estimate: t\", bw_gbs: \"estimate: t\",\n"
	"              host_link: \"estimate: t\"}\n"
	"  - name: Tgt\n"
	"    match: [\"Tgt GPU\"]\n"
	"    vendor: nvidia\n    arch: sm_90\n    chip: GH100\n    sms: 200\n    warp_size: 32\n"
	"    clock_mhz: 2000\n    schedulers_per_sm: 4\n"
	"    limits: {threads_per_sm: 2048, threads_per_block: 1024, blocks_per_sm: 32,\n"
	"             regs_per_sm: 65536, regs_per_block: 65536, regs_per_thread: 255,\n"
	"             reg_alloc_unit: 256, smem_per_sm_kib: 228, smem_per_block_kib: 227,\n"
	"             smem_alloc_unit_b: 128, smem_reserved_per_block_b: 1024, l2_mib: 40}\n"
	"    peak_gflops: {fp16_fma: 160000, fp32_fma: 40000, fp64_fma: 20000}\n"
	"    bw_gbs: {dram: 2000, l2: 8000, l1: 32000, shared: 32000}\n"
	"    host_link: {interface: pcie5-x16, h2d_pinned_gbs: 50, d2h_pinned_gbs: 50,\n"
	"                h2d_pageable_gbs: 25, d2h_pageable_gbs: 25, latency_us: 2}\n"
	"    price_usd: null\n    tdp_w: null\n"
	"    sources: {sms: \"estimate: t\", warp_size: \"estimate: t\", clock_mhz: \"estimate: t\",\n"
	"              schedulers_per_sm: \"estimate: t\", limits: \"estimate: t\",\n"
	"              peak_gflops: \"estimate: t\", bw_gbs: \"estimate: t\",\n"
	"              host_link.h2d_pinned_gbs: \"estimate: t\",\n"
	"              host_link.d2h_pinned_gbs: \"estimate: t\",\n"
	"              host_link.h2d_pageable_gbs: \"estimate: t\",\n"
	"              host_link.d2h_pageable_gbs: \"estimate: t\",\n"
	"              host_link.latency_us: \"estimate: t\"}\n"
	"  - name: NoLink\n"
	"    match: [\"NoLink GPU\"]\n"
	"    vendor: nvidia\n    arch: sm_90\n    chip: GH100\n    sms: 200\n    warp_size: 32\n"
	"    clock_mhz: 2000\n    schedulers_per_sm: 4\n"
	"    limits: {threads_per_sm: 2048, threads_per_block: 1024, blocks_per_sm: 32,\n"
	"             regs_per_sm: 65536, regs_per_block: 65536, regs_per_thread: 255,\n"
	"             reg_alloc_unit: 256, smem_per_sm_kib: 228, smem_per_block_kib: 227,\n"
	"             smem_alloc_unit_b: 128, smem_reserved_per_block_b: 1024, l2_mib: 40}\n"
	"    peak_gflops: {fp16_fma: 160000, fp32_fma: 40000, fp64_fma: 20000}\n"
	"    bw_gbs: {dram: 2000, l2: 8000, l1: 32000, shared: 32000}\n"
	"    price_usd: null\n    tdp_w: null\n"
	"    sources: {sms: \"estimate: t\", warp_size: \"estimate: t\", clock_mhz: \"estimate: t\",\n"
	"              schedulers_per_sm: \"estimate: t\", limits: \"estimate: t\",\n"
	"              peak_gflops: \"estimate: t\", bw_gbs: \"estimate: t\"}\n";

static struct gpuproj_targets *
load_targets(void)
{
	struct gpuproj_targets *t = NULL;
	struct gpuproj_error err = { 0 };
	int r = gpuproj_targets_load_buffer(targets_yaml, strlen(targets_yaml), "t.yaml", &t, &err);

	ck_assert_msg(r == GPUPROJ_OK, "%s:%d:%d: %s", err.file, err.line, err.column, err.message);
	return t;
}

START_TEST(host_link_loaded)
{
	struct gpuproj_targets *t = load_targets();
	const struct gpuproj_target *s = gpuproj_targets_find(t, "Src"),
				    *g = gpuproj_targets_find(t, "Tgt"),
				    *nl = gpuproj_targets_find(t, "NoLink");
	bool kept;

	ck_assert_str_eq(s->host_link.interface, "pcie4-x16");
	near(s->host_link.h2d_pinned_gbs, 25, "h2d");
	near(g->host_link.latency_us, 2, "latency");
	ck_assert_ptr_null(nl->host_link.interface);
	ck_assert(isnan(nl->host_link.h2d_pinned_gbs));
	/* 1 MB pinned: 2000 + 40000 on Src, 2000 + 20000 on Tgt: 42000 → 22000. */
	near(gpuproj_copy_project_ns(42000, GPUPROJ_COPY_H2D, true, 1000000, s, g, &kept), 22000,
	     "h2d pinned");
	ck_assert(!kept);
	/* Pageable: 2000 + 80000 → 2000 + 40000, from a measured 100000: × 42/82. */
	near(gpuproj_copy_project_ns(100000, GPUPROJ_COPY_D2H, false, 1000000, s, g, &kept),
	     100000.0 * 42000 / 82000, "d2h pageable");
	/* Device copies by the DRAM bandwidths (1000 → 2000 GB/s). */
	near(gpuproj_copy_project_ns(1000, GPUPROJ_COPY_D2D, false, 1000000, s, g, &kept), 500,
	     "d2d");
	/* Peer copies, and a target without host_link: kept. */
	near(gpuproj_copy_project_ns(1000, GPUPROJ_COPY_P2P, false, 10, s, g, &kept), 1000, "p2p");
	ck_assert(kept);
	near(gpuproj_copy_project_ns(1000, GPUPROJ_COPY_H2D, true, 10, s, nl, &kept), 1000, "nolink");
	ck_assert(kept);
	/* A source without one: the target's model alone. */
	near(gpuproj_copy_project_ns(99, GPUPROJ_COPY_H2D, true, 1000000, nl, g, &kept), 22000,
	     "absolute");
	/* Onto itself: unchanged. */
	near(gpuproj_copy_project_ns(1234, GPUPROJ_COPY_H2D, true, 1000000, s, s, &kept), 1234,
	     "identity");
	gpuproj_targets_free(t);
}
END_TEST

/* A profile with kernels k0 (mean 10000) and k1 (mean 20000). */
static struct gpuproj_profile *
two_kernels(struct gpuproj_kernel **k0, struct gpuproj_kernel **k1)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature a = { .name = "_Z2k0v", .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct gpuproj_signature b = { .name = "_Z2k1v", .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };

	ck_assert_int_eq(gpuproj_profile_kernel(p, &a, k0), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_profile_kernel(p, &b, k1), GPUPROJ_OK);
	gpuproj_kernel_add_duration(*k0, 10000);
	gpuproj_kernel_add_duration(*k1, 20000);
	/* A counter, not the models' inputs: not projected (without any, the envelope would). */
	gpuproj_kernel_add_metric(*k0, GPUPROJ_M_BYTES_DRAM, 1e6);
	gpuproj_kernel_add_metric(*k1, GPUPROJ_M_BYTES_DRAM, 1e6);
	gpuproj_profile_set_device(p, "Src GPU", NULL, "GA100", 8, 0, 100, 1e9);
	return p;
}

/*
 * Two patterns: the serial one (x3) and a copy epoch (x2: pinned H2D 1 MB
 * measured 42000, blocking), plus 10000 of unexplained time; wall 200000.
 */
static struct gpuproj_profile *
profile_with_timeline(void)
{
	struct gpuproj_kernel *k0, *k1;
	struct gpuproj_profile *p = two_kernels(&k0, &k1);
	struct gpuproj_timeline *tl = gpuproj_timeline_new();
	struct gpuproj_tl_raw ser[] = {
		gpu(GPUPROJ_TL_KERNEL, 0, 1000, 1000, 1000, 11000),
		gpu(GPUPROJ_TL_KERNEL, 0, 1000, 1000, 11000, 31000),
		host(GPUPROJ_TL_SYNC_DEVICE, N, N, 1000, 31500),
	};
	struct gpuproj_tl_raw copy[] = { gpu(GPUPROJ_TL_COPY, 0, 0, 42000, 0, 42000) };
	struct gpuproj_tl_pattern pat;
	int i;

	ser[0].kernel = k0;
	ser[1].kernel = k1;
	copy[0].copy = GPUPROJ_COPY_H2D;
	copy[0].pinned = copy[0].blocking = true;
	copy[0].bytes = 1000000;
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(gpuproj_tl_epoch_fold(ser, 3, 0, 31500, &pat), GPUPROJ_OK);
		ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 16384, NULL), GPUPROJ_OK);
		gpuproj_tl_pattern_clear(&pat);
	}
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(gpuproj_tl_epoch_fold(copy, 1, 0, 42000, &pat), GPUPROJ_OK);
		ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 16384, NULL), GPUPROJ_OK);
		gpuproj_tl_pattern_clear(&pat);
	}
	ck_assert_uint_eq(tl->n_patterns, 2);
	tl->unexplained[GPUPROJ_TL_WHY_PROFILED].epochs = 1;
	tl->unexplained[GPUPROJ_TL_WHY_PROFILED].ns = 10000;
	tl->threads = 1;
	tl->span_ns = 3 * 31500 + 2 * 42000 + 10000; /* 188500 */
	tl->wall_ns = 200000;
	gpuproj_profile_set_timeline(p, tl);
	return p;
}

/* profile_with_timeline() with `host` ns more host time in each serial epoch. */
static struct gpuproj_profile *
slower_host(double host)
{
	struct gpuproj_profile *p = profile_with_timeline();
	struct gpuproj_timeline *tl = gpuproj_profile_timeline_mut(p);
	struct gpuproj_tl_pattern *pat = &tl->patterns[0];

	ck_assert_uint_eq(pat->n_nodes, 3);
	pat->nodes[0].gap_ns.mean += host;
	pat->nodes[0].gap_ns.sum += host * (double)pat->wall_ns.n;
	pat->wall_ns.mean += host;
	pat->wall_ns.sum += host * (double)pat->wall_ns.n;
	pat->wall_ns.min += host;
	pat->wall_ns.max += host;
	tl->wall_ns += host * (double)pat->wall_ns.n;
	tl->span_ns += host * (double)pat->wall_ns.n;
	return p;
}

/* A run that projects k0 and k1 at half their time (interval ×0.4 … ×0.8). */
static void
half_run(const struct gpuproj_profile *p, const struct gpuproj_target *t,
	 struct gpuproj_run_projection *run)
{
	size_t i;

	memset(run, 0, sizeof(*run));
	run->target = t;
	run->n = gpuproj_profile_count(p);
	run->kernels = calloc(run->n, sizeof(*run->kernels));
	for (i = 0; i < run->n; i++) {
		double m = gpuproj_kernel_mean_ns(gpuproj_profile_at(p, i));

		run->kernels[i].status = GPUPROJ_OK;
		run->kernels[i].point_ns = 0.5 * m;
		run->kernels[i].lo_ns = 0.4 * m;
		run->kernels[i].hi_ns = 0.8 * m;
	}
}

START_TEST(project_whole_run)
{
	struct gpuproj_targets *t = load_targets();
	const struct gpuproj_target *s = gpuproj_targets_find(t, "Src"),
				    *g = gpuproj_targets_find(t, "Tgt");
	struct gpuproj_profile *p = profile_with_timeline();
	struct gpuproj_run_projection run;
	struct gpuproj_whole_run w;

	/* Onto itself: the measured wall, identity 0. */
	half_run(p, s, &run);
	ck_assert_int_eq(gpuproj_timeline_project(p, &run, s, s, &w), GPUPROJ_OK);
	ck_assert(w.valid);
	near(w.wall_ns, 200000, "identity wall");
	near(w.identity_error, 0, "identity error");
	near(w.explained, (3 * 31500 + 2 * 42000) / 200000.0, "explained");
	gpuproj_run_projection_clear(&run);

	/*
	 * Onto Tgt: serial 16500 × 3, copy 22000 × 2 = 93500 replayed; carried:
	 * 10000 unexplained + (200000 − 188500) outside epochs = 21500.
	 */
	half_run(p, g, &run);
	ck_assert_int_eq(gpuproj_timeline_project(p, &run, s, g, &w), GPUPROJ_OK);
	near(w.replayed_ns, 3 * 16500 + 2 * 22000, "replayed");
	near(w.carried_ns, 21500, "carried");
	near(w.wall_ns, 93500 + 21500, "wall");
	near(w.source_ns, 200000, "source");
	near(w.speedup, 200000 / 115000.0, "speedup");
	near(w.kernel_ns, 3 * 15000, "kernel part");
	near(w.copy_ns, 2 * 22000, "copy part");
	near(w.host_ns, 3 * 1500, "host part");
	near(w.bar_kernel_ns + w.bar_copy_ns + w.bar_host_ns + w.carried_ns, w.wall_ns, "bar sums");
	/* Interval: kernels ×0.4 and ×0.8: serial 1000 + 12000 + 500, 1000 + 24000 + 500. */
	near(w.lo_ns, 3 * 13500 + 2 * 22000 + 21500, "lo");
	near(w.hi_ns, 3 * 25500 + 2 * 22000 + 21500, "hi");
	near(w.identity_error, 0, "identity error");
	ck_assert_uint_eq(w.copies_kept, 0);
	gpuproj_run_projection_clear(&run);

	/* A kernel not projected keeps its time and is counted. */
	half_run(p, g, &run);
	run.kernels[1].status = GPUPROJ_E_MISSING;
	ck_assert_int_eq(gpuproj_timeline_project(p, &run, s, g, &w), GPUPROJ_OK);
	ck_assert_uint_eq(w.kernels_kept, 1);
	near(w.replayed_ns, 3 * (1000 + 5000 + 20000 + 500) + 2 * 22000, "k1 kept");
	gpuproj_run_projection_clear(&run);

	/* gpuproj_project_run() fills run.whole with the same. */
	ck_assert_int_eq(gpuproj_project_run(p, gpuproj_model_find("naive"), s, g, NULL, &run),
			 GPUPROJ_OK);
	ck_assert(run.whole.valid);
	gpuproj_run_projection_clear(&run);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * A thread's epochs cut at GPUPROJ_TL_MAX_NODES hand their
 * running work on. `cut_then_sync`: pattern A, cut with the host's time 0,
 * two k0 launches on stream 0 ([0, 10000], [10000, 20000]); pattern C, the
 * next epoch, carrying stream 0 busy until 20000, one more k0
 * ([20000, 30000]) and a device synchronise returning at 30000.
 */
static struct gpuproj_profile *
cut_then_sync(bool final_sync, double wall)
{
	struct gpuproj_kernel *k0, *k1;
	struct gpuproj_profile *p = two_kernels(&k0, &k1);
	struct gpuproj_timeline *tl = gpuproj_timeline_new();
	struct gpuproj_tl_raw a[] = {
		gpu(GPUPROJ_TL_KERNEL, 0, 0, 0, 0, 10000),
		gpu(GPUPROJ_TL_KERNEL, 0, 0, 0, 10000, 20000),
	};
	struct gpuproj_tl_raw c[] = {
		gpu(GPUPROJ_TL_CARRY, 0, 0, 0, 0, 20000),
		gpu(GPUPROJ_TL_KERNEL, 0, 0, 0, 20000, 30000),
		host(GPUPROJ_TL_SYNC_DEVICE, N, N, 0, 30000),
	};
	struct gpuproj_tl_pattern pat;

	a[0].kernel = a[1].kernel = c[1].kernel = k0;
	ck_assert_int_eq(gpuproj_tl_epoch_fold(a, 2, 0, 0, &pat), GPUPROJ_OK);
	pat.cut = true;
	ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 16384, NULL), GPUPROJ_OK);
	gpuproj_tl_pattern_clear(&pat);
	ck_assert_int_eq(gpuproj_tl_epoch_fold(c, final_sync ? 3 : 2, 0, final_sync ? 30000 : 0,
					       &pat), GPUPROJ_OK);
	/* The carried node: busy from the epoch's start, no latency. */
	ck_assert_int_eq(pat.nodes[0].op, GPUPROJ_TL_CARRY);
	near(pat.nodes[0].dur_ns.mean, 20000, "carried");
	near(pat.nodes[0].lat_ns.mean, 0, "carried latency");
	near(pat.nodes[1].lat_ns.mean, 0, "no latency after the carried work");
	ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 16384, NULL), GPUPROJ_OK);
	gpuproj_tl_pattern_clear(&pat);
	tl->threads = 1;
	tl->span_ns = final_sync ? 30000 : 0;
	tl->wall_ns = wall;
	gpuproj_profile_set_timeline(p, tl);
	return p;
}

/*
 * Onto Tgt, kernels x0.5 (x0.4, x0.8): the cut epoch's GPU time 20000 →
 * 10000, so the carried 20000 → 10000; C: 10000 + 5000 = 15000 (lo: 8000 +
 * 4000, hi: 16000 + 8000). Without the carried node, C's wait would be a
 * latency of 20000 kept at the source's time: 25000, as a 5,000-launch
 * run that never synchronised was projected at a fifth of a
 * synchronising one's time.
 */
START_TEST(carried_work)
{
	struct gpuproj_targets *t = load_targets();
	const struct gpuproj_target *s = gpuproj_targets_find(t, "Src"),
				    *g = gpuproj_targets_find(t, "Tgt");
	struct gpuproj_profile *p = cut_then_sync(true, 30000);
	struct gpuproj_run_projection run;
	struct gpuproj_whole_run w;

	ck_assert_uint_eq(gpuproj_profile_timeline(p)->n_patterns, 2);
	half_run(p, s, &run);
	ck_assert_int_eq(gpuproj_timeline_project(p, &run, s, s, &w), GPUPROJ_OK);
	near(w.wall_ns, 30000, "identity wall");
	near(w.identity_error, 0, "identity error");
	gpuproj_run_projection_clear(&run);
	half_run(p, g, &run);
	ck_assert_int_eq(gpuproj_timeline_project(p, &run, s, g, &w), GPUPROJ_OK);
	near(w.replayed_ns, 15000, "replayed");
	near(w.wall_ns, 15000, "wall");
	near(w.lo_ns, 12000, "lo");
	near(w.hi_ns, 24000, "hi");
	/* Stream 0's GPU work: 3 x 5000 = the wall: not below it. */
	near(w.floor_ns, 15000, "floor");
	ck_assert(!w.floored);
	near(w.bound_ns, 0, "bound (no spread)");
	/* Kernel time counted once (in A and C), the bar sums to the wall. */
	near(w.kernel_ns, 15000, "kernel part");
	near(w.bar_kernel_ns + w.bar_copy_ns + w.bar_host_ns + w.carried_ns, w.wall_ns, "bar");
	gpuproj_run_projection_clear(&run);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * A thread that never waits (a producer): C without the
 * synchronise, and the traced wall (1000) ending before the GPU work did.
 * The replay gives 0 + 1000 carried; stream 0's GPU work onto Tgt is
 * 3 x 5000: the whole run is that (floored), the difference in the bar's
 * kernel part. Before: 1000, a 30x speedup of 30000 of kernel time.
 */
START_TEST(floor_of_one_stream)
{
	struct gpuproj_targets *t = load_targets();
	const struct gpuproj_target *s = gpuproj_targets_find(t, "Src"),
				    *g = gpuproj_targets_find(t, "Tgt");
	struct gpuproj_profile *p = cut_then_sync(false, 1000);
	struct gpuproj_run_projection run;
	struct gpuproj_whole_run w;

	half_run(p, g, &run);
	ck_assert_int_eq(gpuproj_timeline_project(p, &run, s, g, &w), GPUPROJ_OK);
	near(w.floor_ns, 15000, "floor");
	ck_assert(w.floored);
	near(w.wall_ns, 15000, "wall");
	near(w.lo_ns, 12000, "lo: kernels x0.4");
	near(w.hi_ns, 24000, "hi: kernels x0.8");
	near(w.carried_ns, 1000, "carried");
	near(w.bar_kernel_ns + w.bar_copy_ns + w.bar_host_ns + w.carried_ns, w.wall_ns, "bar");
	/* The speedup is over the source's replay (30000, floored too), not the 1000 measured. */
	near(w.source_ns, 1000, "measured");
	near(w.source_wall_ns, 30000, "source replayed");
	near(w.speedup, 2.0, "speedup");
	gpuproj_run_projection_clear(&run);
	/* On the source the floor is the measured GPU time: 30000. */
	half_run(p, s, &run);
	ck_assert_int_eq(gpuproj_timeline_project(p, &run, s, s, &w), GPUPROJ_OK);
	near(w.wall_ns, 30000, "source");
	near(w.speedup, 1.0, "source speedup");
	gpuproj_run_projection_clear(&run);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * The bound counts the GPU times' spread only where the host waits for the
 * GPU: 10 cut epochs of asynchronous launches whose kernel takes 10000 or
 * 30000 (sd 10541) have the host's wall whatever the GPU did: bound 0.
 * With a synchronise at the end: 10 x 10541. The projection widens its
 * interval by the bound onto the target (x0.5: 10 x 5270).
 */
START_TEST(bound_where_host_waits)
{
	struct gpuproj_targets *t = load_targets();
	const struct gpuproj_target *s = gpuproj_targets_find(t, "Src"),
				    *g = gpuproj_targets_find(t, "Tgt");
	int sync;

	for (sync = 0; sync < 2; sync++) {
		struct gpuproj_kernel *k0, *k1;
		struct gpuproj_profile *p = two_kernels(&k0, &k1);
		struct gpuproj_timeline *tl = gpuproj_timeline_new();
		struct gpuproj_run_projection run;
		struct gpuproj_whole_run w;
		double sd;
		int i;

		for (i = 0; i < 10; i++) {
			uint64_t d = i % 2 ? 30000 : 10000;
			struct gpuproj_tl_raw raw[] = {
				gpu(GPUPROJ_TL_KERNEL, 0, 0, 0, 0, d),
				host(GPUPROJ_TL_SYNC_DEVICE, N, N, 0, d),
			};
			struct gpuproj_tl_pattern pat;

			raw[0].kernel = k0;
			ck_assert_int_eq(gpuproj_tl_epoch_fold(raw, sync ? 2 : 1, 0, sync ? d : 0,
							       &pat), GPUPROJ_OK);
			pat.cut = !sync;
			ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 16384, NULL),
					 GPUPROJ_OK);
			gpuproj_tl_pattern_clear(&pat);
		}
		ck_assert_uint_eq(tl->n_patterns, 1);
		sd = gpuproj_stats_stddev(&tl->patterns[0].nodes[0].dur_ns);
		near(sd, 10540.925533894598, "sd");
		tl->span_ns = tl->wall_ns = sync ? 200000 : 0;
		gpuproj_profile_set_timeline(p, tl);
		near(gpuproj_timeline_bound_ns(gpuproj_profile_timeline(p)), sync ? 10 * sd : 0,
		     "bound");
		half_run(p, g, &run);
		ck_assert_int_eq(gpuproj_timeline_project(p, &run, s, g, &w), GPUPROJ_OK);
		near(w.bound_ns, sync ? 10 * sd * 0.5 : 0, "bound onto Tgt");
		if (sync) {
			/*
			 * Means 20000: hi 10 x 16000 (x0.8) widened by it; lo 10 x 8000
			 * (x0.4) less it, but never below stream 0's GPU time at x0.4,
			 * 10 x 8000 (a sum of the measured times, exact).
			 */
			near(w.lo_ns, 10 * 8000, "lo");
			near(w.hi_ns, 10 * 16000 + 10 * sd * 0.5, "hi");
		}
		gpuproj_run_projection_clear(&run);
		gpuproj_profile_free(p);
	}
	gpuproj_targets_free(t);
}
END_TEST

/* "carried" nodes are written and read back (the JSON name of GPUPROJ_TL_CARRY). */
START_TEST(carried_round_trip)
{
	struct gpuproj_profile *p = cut_then_sync(true, 30000), *q = NULL;
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *path = NULL, *text;
	const struct gpuproj_timeline *tl;

	if (asprintf(&path, "%s/p.json", dir) < 0)
		ck_abort();
	ck_assert_int_eq(gpuproj_profile_save(p, path, &err), GPUPROJ_OK);
	text = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(text, "\"op\": \"carried\""));
	ck_assert_msg(gpuproj_profile_load(path, &q, &err) == GPUPROJ_OK, "%s", err.message);
	tl = gpuproj_profile_timeline(q);
	ck_assert_int_eq(tl->patterns[1].nodes[0].op, GPUPROJ_TL_CARRY);
	ck_assert_int_eq(tl->patterns[1].nodes[0].stream, 0);
	near(tl->patterns[1].nodes[0].dur_ns.mean, 20000, "carried after a round trip");
	ck_assert(tl->patterns[0].cut);
	free(text);
	gpuproj_profile_free(q);
	gpuproj_profile_free(p);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/* Varying times: the identity holds within the stated bound, not exactly. */
START_TEST(bound)
{
	struct gpuproj_timeline *tl = gpuproj_timeline_new();
	struct gpuproj_kernel *k0, *k1;
	struct gpuproj_profile *p = two_kernels(&k0, &k1);
	struct gpuproj_run_projection run = { 0 };
	struct gpuproj_whole_run w;
	int i;

	/* Two streams, the longer alternating between them: max(a, b) at the means underestimates. */
	for (i = 0; i < 10; i++) {
		uint64_t a = i % 2 ? 30000 : 10000, b = i % 2 ? 10000 : 30000;
		struct gpuproj_tl_raw raw[] = {
			gpu(GPUPROJ_TL_KERNEL, 0, 0, 0, 0, a),
			gpu(GPUPROJ_TL_KERNEL, 1, 0, 0, 0, b),
			host(GPUPROJ_TL_SYNC_DEVICE, N, N, 0, 30000),
		};
		struct gpuproj_tl_pattern pat;

		raw[0].kernel = k0;
		raw[1].kernel = k1;
		ck_assert_int_eq(gpuproj_tl_epoch_fold(raw, 3, 0, 30000, &pat), GPUPROJ_OK);
		ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 64, 16384, NULL), GPUPROJ_OK);
		gpuproj_tl_pattern_clear(&pat);
	}
	tl->span_ns = tl->wall_ns = 300000;
	gpuproj_profile_set_timeline(p, tl);
	ck_assert_uint_eq(tl->n_patterns, 1);
	half_run(p, NULL, &run);
	ck_assert_int_eq(gpuproj_timeline_project(p, &run, NULL, NULL, &w), GPUPROJ_OK);
	/* Means 20000 each: the replay gives 20000 per epoch against 30000 measured. */
	near(w.identity_error, -1.0 / 3, "identity error");
	ck_assert(fabs(w.identity_error) <= w.bound);
	gpuproj_run_projection_clear(&run);
	gpuproj_profile_free(p);
}
END_TEST

/* Bounded: a pattern seen once makes room; else the new one is counted out. */
START_TEST(eviction)
{
	struct gpuproj_timeline *tl = gpuproj_timeline_new();
	struct gpuproj_tl_pattern pat;
	bool folded;
	uint64_t i;

	for (i = 0; i < 5; i++) {
		struct gpuproj_tl_raw raw[] = { gpu(GPUPROJ_TL_COPY, 0, 0, 1000, 0, 1000) };

		raw[0].bytes = i;
		raw[0].blocking = true;
		ck_assert_int_eq(gpuproj_tl_epoch_fold(raw, 1, 0, 1000, &pat), GPUPROJ_OK);
		ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 2, 100, &folded), GPUPROJ_OK);
		/* Seen twice: not evictable. */
		ck_assert_int_eq(gpuproj_timeline_add(tl, &pat, 2, 100, &folded), GPUPROJ_OK);
		gpuproj_tl_pattern_clear(&pat);
	}
	ck_assert_uint_eq(tl->n_patterns, 2);
	/* Patterns 2, 3, 4 found no room: 3 × 2 epochs of 1000. */
	ck_assert_uint_eq(tl->unexplained[GPUPROJ_TL_WHY_OVERFLOW].epochs, 6);
	near(tl->unexplained[GPUPROJ_TL_WHY_OVERFLOW].ns, 6000, "overflow ns");
	ck_assert(!folded);
	gpuproj_timeline_free(tl);
}
END_TEST

/* Every profile with a timeline written loads back and projects the same. */
START_TEST(json_round_trip)
{
	struct gpuproj_targets *t = load_targets();
	const struct gpuproj_target *s = gpuproj_targets_find(t, "Src"),
				    *g = gpuproj_targets_find(t, "Tgt");
	struct gpuproj_profile *p = profile_with_timeline(), *q = NULL;
	struct gpuproj_error err = { 0 };
	struct gpuproj_run_projection r1, r2;
	struct gpuproj_whole_run w1, w2;
	char *dir = test_tmpdir(), *path = NULL;

	if (asprintf(&path, "%s/p.json", dir) < 0)
		ck_abort();
	ck_assert_int_eq(gpuproj_profile_save(p, path, &err), GPUPROJ_OK);
	ck_assert_msg(gpuproj_profile_load(path, &q, &err) == GPUPROJ_OK, "%s:%d:%d: %s", err.file,
		      err.line, err.column, err.message);
	ck_assert_ptr_nonnull(gpuproj_profile_timeline(q));
	ck_assert_uint_eq(gpuproj_profile_timeline(q)->n_patterns, 2);
	half_run(p, g, &r1);
	half_run(q, g, &r2);
	ck_assert_int_eq(gpuproj_timeline_project(p, &r1, s, g, &w1), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_timeline_project(q, &r2, s, g, &w2), GPUPROJ_OK);
	near(w2.wall_ns, w1.wall_ns, "wall after a round trip");
	near(w2.explained, w1.explained, "explained after a round trip");
	gpuproj_run_projection_clear(&r1);
	gpuproj_run_projection_clear(&r2);
	gpuproj_profile_free(q);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/* A profile JSON with a timeline: `edit` replaced into the first node. */
static int
load_edited(const char *from, const char *to, struct gpuproj_error *err)
{
	struct gpuproj_profile *p = profile_with_timeline(), *q = NULL;
	char *dir = test_tmpdir(), *path = NULL, *text, *hit, *edited;
	int r;

	if (asprintf(&path, "%s/p.json", dir) < 0)
		ck_abort();
	ck_assert_int_eq(gpuproj_profile_save(p, path, NULL), GPUPROJ_OK);
	text = test_read_file(path);
	hit = strstr(text, from);
	ck_assert_msg(hit != NULL, "'%s' not in the profile", from);
	if (asprintf(&edited, "%.*s%s%s", (int)(hit - text), text, to, hit + strlen(from)) < 0)
		ck_abort();
	r = gpuproj_profile_load_buffer(edited, strlen(edited), "p.json", &q, err);
	gpuproj_profile_free(q);
	gpuproj_profile_free(p);
	free(edited);
	free(text);
	test_rmtree(dir);
	free(dir);
	free(path);
	return r;
}

START_TEST(json_errors)
{
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(load_edited("\"op\": \"kernel\"", "\"op\": \"kernal\"", &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "timeline.patterns[0].nodes[0]") && err.line > 0 &&
		      err.column > 0, "%d:%d: %s", err.line, err.column, err.message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_edited("\"kernel\": 0", "\"kernel\": 7", &err), GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "not an index of 'kernels'") && err.line > 0, "%s",
		      err.message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_edited("\"version\": 1", "\"version\": 2", &err), GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "timeline") != NULL, "%s", err.message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_edited("\"gap_ns\": 1000", "\"gap_ns\": -1", &err), GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "gap_ns") && err.line > 0, "%s", err.message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_edited("\"ranks\": 1", "\"ranks\": 0", &err), GPUPROJ_E_SCHEMA);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_edited("\"bytes\": 1000000", "\"bytes\": \"big\"", &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_msg(err.line > 0, "%s", err.message);
	/*
	 * Fields of another op are refused, not dropped: a call that says it
	 * is pinned would be written without it (the fuzzer's first find).
	 */
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_edited("\"op\": \"sync_device\"",
				     "\"op\": \"sync_device\", \"pinned\": true", &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "'pinned' belongs to a copy") && err.line > 0, "%s",
		      err.message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_edited("\"op\": \"sync_device\"",
				     "\"op\": \"sync_device\", \"bytes\": 8", &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "'bytes' belongs to a copy or memset"), "%s", err.message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_edited("\"op\": \"sync_device\"",
				     "\"op\": \"sync_device\", \"kernel\": 0", &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "'kernel' belongs to a kernel launch"), "%s", err.message);
}
END_TEST

START_TEST(host_link_errors)
{
	static const char *const cases[][2] = {
		{ "interface: pcie4-x16", "interface: pcie9-x16" },
		{ "h2d_pageable_gbs: 12.5", "h2d_pageable_gbs: 30" },
		{ "latency_us: 2}", "latency_us: -2}" },
		{ "latency_us: 2}", "latncy_us: 2}" },
		{ "h2d_pinned_gbs: 25,", "h2d_pinned_gbs: \"25\"," },
		{ "h2d_pinned_gbs: 25,", "h2d_pinned_gbs: 2e9," },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *y = strdup(targets_yaml), *hit = strstr(y, cases[i][0]), *e = NULL;
		struct gpuproj_targets *t = NULL;
		struct gpuproj_error err = { 0 };
		int r;

		ck_assert_ptr_nonnull(hit);
		if (asprintf(&e, "%.*s%s%s", (int)(hit - y), y, cases[i][1],
			     hit + strlen(cases[i][0])) < 0)
			ck_abort();
		r = gpuproj_targets_load_buffer(e, strlen(e), "t.yaml", &t, &err);
		ck_assert_msg(r != GPUPROJ_OK && err.line > 0 && err.column > 0,
			      "case %zu: %d %d:%d %s", i, r, err.line, err.column, err.message);
		free(e);
		free(y);
	}
}
END_TEST

/* Two ranks: patterns of the same structure fold, threads and times add. */
START_TEST(merge_ranks)
{
	struct gpuproj_profile *a = profile_with_timeline(), *b = profile_with_timeline(), *m = NULL;
	struct gpuproj_merge *mg = NULL;
	const struct gpuproj_timeline *tl;
	struct gpuproj_error err = { 0 };

	gpuproj_profile_set_process(a, "app", "h", 1, 0, NULL);
	gpuproj_profile_set_process(b, "app", "h", 2, 1, NULL);
	ck_assert_int_eq(gpuproj_merge_new(NULL, &mg), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_merge_add(mg, a, "a", &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_merge_add(mg, b, "b", &err), GPUPROJ_OK);
	ck_assert_msg(gpuproj_merge_finish(mg, &m, &err) == GPUPROJ_OK, "%s", err.message);
	tl = gpuproj_profile_timeline(m);
	ck_assert_ptr_nonnull(tl);
	ck_assert_uint_eq(tl->ranks, 2);
	ck_assert_uint_eq(tl->threads, 2);
	/* Different threads (other processes): four patterns, counts kept. */
	ck_assert_uint_eq(tl->n_patterns, 4);
	near(gpuproj_timeline_explained_ns(tl), 2 * (3 * 31500 + 2 * 42000), "explained");
	near(tl->wall_ns, 400000, "wall");
	ck_assert_uint_eq(tl->unexplained[GPUPROJ_TL_WHY_PROFILED].epochs, 2);
	ck_assert_int_eq(gpuproj_profile_validate(m, NULL, &err), GPUPROJ_OK);
	gpuproj_merge_free(mg);
	gpuproj_profile_free(m);
	gpuproj_profile_free(a);
	gpuproj_profile_free(b);
}
END_TEST

/*
 * gpuproj gate --metric wall: 10000 ns more host time per serial epoch
 * (+30000 on 200000, +15 %) fails the wall test on the source and on Tgt
 * (+30000 on 160000), while the kernel time, the default, did not change.
 */
/*
 * profile_with_timeline() whose serial pattern's measured
 * wall is ten times what its nodes add up to (315000 per epoch, the replay
 * 31500; spread 0), span and wall raised to hold it.
 */
static struct gpuproj_profile *
inconsistent_timeline(void)
{
	struct gpuproj_profile *p = profile_with_timeline();
	struct gpuproj_timeline *tl = gpuproj_profile_timeline_mut(p);
	struct gpuproj_tl_pattern *pat = &tl->patterns[0];

	pat->wall_ns.mean = pat->wall_ns.min = pat->wall_ns.max = 315000;
	pat->wall_ns.sum = 3 * 315000.0;
	tl->span_ns += 3 * (315000.0 - 31500);
	tl->wall_ns += 3 * (315000.0 - 31500);
	return p;
}

/*
 * The ranges hold the times together: a pattern of 2^63 - 1 epochs of
 * 10^18 ns each (both inside their ranges) in a timeline that spans
 * 188,500 ns is refused; so is a span longer than the traced wall.
 * Before: written and read, and projected onto its own source as "0 ns".
 */
START_TEST(timeline_times_hold_together)
{
	struct gpuproj_profile *p = profile_with_timeline();
	struct gpuproj_timeline *tl = gpuproj_profile_timeline_mut(p);
	struct gpuproj_tl_pattern *pat = &tl->patterns[0];
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *path = NULL;

	if (asprintf(&path, "%s/p.json", dir) < 0)
		ck_abort();
	pat->wall_ns.n = INT64_MAX;
	pat->wall_ns.mean = pat->wall_ns.max = 1e18;
	pat->wall_ns.sum = 1e18 * (double)INT64_MAX;
	ck_assert_int_eq(gpuproj_timeline_validate(tl, p, NULL, &err), GPUPROJ_E_SCHEMA);
	/* 1e18 x (2^63 - 1) + 2 x 42000 (the copy pattern, the same thread). */
	ck_assert_str_eq(err.message, "timeline.patterns[0].wall_ns (thread 0): the thread's "
			 "epochs measure 9.2233720368547758e+36 ns in all (count x mean wall_ns "
			 "over its patterns), above the 188500 ns the timeline's epochs span "
			 "(span_ns)");
	/* And nothing is written. */
	ck_assert_int_eq(gpuproj_profile_save(p, path, &err), GPUPROJ_E_SCHEMA);
	ck_assert_int_eq(access(path, F_OK), -1);
	gpuproj_profile_free(p);
	p = profile_with_timeline();
	tl = gpuproj_profile_timeline_mut(p);
	tl->span_ns = 300000;
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(gpuproj_timeline_validate(tl, p, NULL, &err), GPUPROJ_E_SCHEMA);
	ck_assert_str_eq(err.message, "timeline.span_ns 300000 is above its wall_ns 200000: the "
			 "threads' epochs cannot span more than the traced run");
	gpuproj_profile_free(p);
	/* The same through the reader, with the position: a serial epoch 100x as long. */
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(load_edited("\"mean\": 31500.0", "\"mean\": 3150000.0", &err),
			 GPUPROJ_E_SCHEMA);
	/* 3 x 3150000 + 2 x 42000. */
	ck_assert_msg(strstr(err.message, "the thread's epochs measure 9534000 ns in all") &&
		      err.line > 0, "%d: %s", err.line, err.message);
	test_rmtree(dir);
	free(dir);
	free(path);
}
END_TEST

/*
 * A pattern that does not describe what was measured: the check names
 * it; the identity error of the whole run says inconsistent, not "the
 * epochs varied"; gate --metric wall gives no verdict (exit 2), also on a
 * job merged from a good rank and that one. The gate's "(measured)"
 * column shows the measured wall (200000), not the replay.
 * Serial epochs: replay 31500 against 315000: -90 %.
 */
START_TEST(timeline_identity_fails)
{
	struct gpuproj_targets *t = load_targets();
	const struct gpuproj_target *g = gpuproj_targets_find(t, "Tgt");
	struct gpuproj_profile *bad = inconsistent_timeline(), *good = profile_with_timeline();
	struct gpuproj_profile *job = NULL;
	struct gpuproj_merge *mg = NULL;
	struct gpuproj_gate_options opt;
	struct gpuproj_gate_result res;
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *bp = NULL, *cp = NULL, *tp, *out = NULL, *errs = NULL;
	static const char why[] = "timeline.patterns[0] (thread 0, 3 epochs): replayed at its "
		"mean times it takes 31.5 us against the 315 us measured (-90.0 %), beyond the 2 % "
		"tolerance and the 0 ns its times' spread allows: the timeline does not describe "
		"what was measured";
	int rc;

	ck_assert_int_eq(gpuproj_timeline_check_identity(gpuproj_profile_timeline(good), NULL,
							 &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_timeline_check_identity(gpuproj_profile_timeline(bad), NULL,
							 &err), GPUPROJ_E_SCHEMA);
	ck_assert_str_eq(err.message, why);
	/* It is within the ranges: it loads and saves. */
	ck_assert_int_eq(gpuproj_profile_validate(bad, NULL, &err), GPUPROJ_OK);

	gpuproj_gate_options_init(&opt);
	opt.metric = GPUPROJ_GATE_METRIC_WALL;
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(gpuproj_gate_compare(good, bad, t, &g, 1, &opt, &res, &err),
			 GPUPROJ_E_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err.message, "the current profile's whole-run timeline is "
				     "inconsistent, timeline.patterns[0] (thread 0, 3 epochs)"));
	ck_assert_ptr_nonnull(strstr(err.message, "; --metric wall gives no verdict on it"));
	gpuproj_gate_result_clear(&res);
	/* A job with that rank: its pattern stays its own (another process's thread). */
	gpuproj_profile_set_process(good, "app", "h", 1, 0, NULL);
	gpuproj_profile_set_process(bad, "app", "h", 2, 1, NULL);
	ck_assert_int_eq(gpuproj_merge_new(NULL, &mg), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_merge_add(mg, good, "a", &err), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_merge_add(mg, bad, "b", &err), GPUPROJ_OK);
	ck_assert_msg(gpuproj_merge_finish(mg, &job, &err) == GPUPROJ_OK, "%s", err.message);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(gpuproj_gate_compare(good, job, t, &g, 1, &opt, &res, &err),
			 GPUPROJ_E_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(err.message, "(thread 1, 3 epochs)"));
	gpuproj_gate_result_clear(&res);
	/* Two good ones: the measured column is the measured wall. */
	ck_assert_int_eq(gpuproj_gate_compare(good, good, t, &g, 1, &opt, &res, &err), GPUPROJ_OK);
	near(res.columns[0].run.base_ns, 200000, "measured");
	gpuproj_gate_result_clear(&res);

	/*
	 * The command: exit 2, the reason; project's identity line says
	 * inconsistent: (3 x 31500 + 2 x 42000) / (3 x 315000 + 2 x 42000) - 1 =
	 * 178500 / 1029000 - 1 = -82.7 %.
	 */
	if (asprintf(&bp, "%s/b.json", dir) < 0 || asprintf(&cp, "%s/c.json", dir) < 0)
		ck_abort();
	tp = test_write_file(dir, "t.yaml", targets_yaml);
	/* What hroof needs, so that `project` projects something (FP32 only, 1e6 B per level). */
	for (size_t i = 0; i < gpuproj_profile_count(bad); i++) {
		struct gpuproj_kernel *k = gpuproj_profile_at(bad, i);
		int m;

		for (m = GPUPROJ_M_INST_FP16_FMA; m <= GPUPROJ_M_INST_FP64_MUL; m++)
			gpuproj_kernel_add_metric(k, (enum gpuproj_metric)m,
						  m == GPUPROJ_M_INST_FP32_FMA ? 1e6 : 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_DRAM, 1e6);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L2, 1e6);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L1, 1e6);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	}
	ck_assert_int_eq(gpuproj_profile_save(good, bp, NULL), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_profile_save(bad, cp, NULL), GPUPROJ_OK);
	rc = test_cli(&out, &errs, "gate --targets '%s' --target Tgt --metric wall --baseline '%s' "
		      "'%s'", tp, bp, cp);
	ck_assert_msg(rc == 2, "exit %d: %s%s", rc, out, errs);
	ck_assert_ptr_nonnull(strstr(errs, why));
	free(out);
	free(errs);
	rc = test_cli(&out, &errs, "project --targets '%s' --target Tgt --model hroof '%s'", tp,
		      cp);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, errs);
	ck_assert_ptr_nonnull(strstr(out, "identity check (replay onto the source against the "
				     "measured time of the explained part): -82.7 % (beyond the 2 "
				     "% tolerance and the epochs' spread: the timeline is "
				     "inconsistent)\n"));
	free(out);
	free(errs);
	gpuproj_merge_free(mg);
	gpuproj_profile_free(job);
	gpuproj_profile_free(good);
	gpuproj_profile_free(bad);
	gpuproj_targets_free(t);
	test_rmtree(dir);
	free(dir);
	free(bp);
	free(cp);
	free(tp);
}
END_TEST

START_TEST(gate_wall)
{
	struct gpuproj_targets *t = load_targets();
	const struct gpuproj_target *g = gpuproj_targets_find(t, "Tgt");
	struct gpuproj_profile *base = profile_with_timeline(), *cur = slower_host(10000);
	struct gpuproj_gate_options opt;
	struct gpuproj_gate_result res;
	struct gpuproj_error err = { 0 };
	char *dir = test_tmpdir(), *bp = NULL, *cp = NULL, *tp, *out = NULL, *errs = NULL;
	int rc;

	gpuproj_gate_options_init(&opt);
	ck_assert_int_eq(gpuproj_gate_compare(base, cur, t, &g, 1, &opt, &res, &err), GPUPROJ_OK);
	ck_assert(!res.regression);
	gpuproj_gate_result_clear(&res);
	opt.metric = GPUPROJ_GATE_METRIC_WALL;
	ck_assert_int_eq(gpuproj_gate_compare(base, cur, t, &g, 1, &opt, &res, &err), GPUPROJ_OK);
	ck_assert(res.regression);
	near(res.columns[0].run.base_ns, 200000, "measured base wall");
	near(res.columns[0].run.cur_ns, 230000, "measured current wall");
	ck_assert_int_eq(res.columns[0].run.status, GPUPROJ_GATE_REGRESSED);
	/* The default model cannot project k0, k1 (no metrics): kept; the copies are projected. */
	near(res.columns[1].run.base_ns, 3 * 31500 + 2 * 22000 + 21500, "projected base wall");
	near(res.columns[1].run.cur_ns, 3 * 41500 + 2 * 22000 + 21500, "projected current wall");
	ck_assert_int_eq(res.columns[1].run.status, GPUPROJ_GATE_REGRESSED);
	gpuproj_gate_result_clear(&res);
	/* Without a timeline on one side: not comparable, no verdict from that cell. */
	gpuproj_profile_set_timeline(cur, NULL);
	ck_assert_int_eq(gpuproj_gate_compare(base, cur, t, &g, 1, &opt, &res, &err), GPUPROJ_OK);
	ck_assert_int_eq(res.columns[0].run.status, GPUPROJ_GATE_NOT_COMPARABLE);
	ck_assert_ptr_nonnull(strstr(res.columns[0].run.why, "no whole-run timeline"));
	gpuproj_gate_result_clear(&res);
	gpuproj_profile_free(cur);

	/* The command: exit 1 with --metric wall, 0 without. */
	cur = slower_host(10000);
	if (asprintf(&bp, "%s/b.json", dir) < 0 || asprintf(&cp, "%s/c.json", dir) < 0)
		ck_abort();
	tp = test_write_file(dir, "t.yaml", targets_yaml);
	ck_assert_int_eq(gpuproj_profile_save(base, bp, NULL), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_profile_save(cur, cp, NULL), GPUPROJ_OK);
	rc = test_cli(&out, &errs, "gate --targets '%s' --target Tgt --baseline '%s' '%s'", tp, bp,
		      cp);
	ck_assert_msg(rc == 0, "exit %d: %s%s", rc, out, errs);
	free(out);
	free(errs);
	rc = test_cli(&out, &errs, "gate --targets '%s' --target Tgt --metric wall --baseline '%s' "
		      "'%s'", tp, bp, cp);
	ck_assert_msg(rc == 1, "exit %d: %s%s", rc, out, errs);
	ck_assert_ptr_nonnull(strstr(out, "whole run (wall time)"));
	free(out);
	free(errs);
	rc = test_cli(&out, &errs, "gate --targets '%s' --metric cpu --baseline '%s' '%s'", tp, bp,
		      cp);
	ck_assert_int_eq(rc, 2);
	free(out);
	free(errs);
	gpuproj_profile_free(cur);
	gpuproj_profile_free(base);
	gpuproj_targets_free(t);
	test_rmtree(dir);
	free(dir);
	free(bp);
	free(cp);
	free(tp);
}
END_TEST

/*
 * gpuproj report: with a timeline the rankings go by whole-run time. The
 * default model cannot project k0, k1 (no metrics), so every target has the
 * same kernel time and the kernel ranking would be by name (NoLink, Src,
 * Tgt); the whole run puts Tgt (faster host link: copies 22000 instead of
 * 42000) first. Both writers show the "Whole run" section with its bar.
 */
START_TEST(report_whole_run)
{
	struct gpuproj_targets *t = load_targets();
	struct gpuproj_profile *p = profile_with_timeline();
	struct gpuproj_report_input in = { .profile = p, .label = "p.json" };
	struct gpuproj_report_doc_options opt = { .no_charts = true, .date = "today" };
	struct gpuproj_report_doc *doc = NULL;
	const struct gpuproj_report_rank *rank;
	struct gpuproj_error err = { 0 };
	char *text = NULL;
	size_t len = 0, n = 0;

	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, &opt, &doc, &err), GPUPROJ_OK);
	rank = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(rank[0].target->name, "Tgt");
	ck_assert(rank[0].whole.valid);
	near(rank[0].whole.wall_ns, 3 * 31500 + 2 * 22000 + 21500, "Tgt whole run");
	near(rank[0].whole.copy_ns, 2 * 22000, "Tgt copies");
	ck_assert(rank[1].whole.wall_ns <= rank[2].whole.wall_ns);
	ck_assert_int_eq(gpuproj_report_doc_markdown(doc, &text, &len, &err), GPUPROJ_OK);
	ck_assert_ptr_nonnull(strstr(text, "## Whole run"));
	/*
	 * The interval: the replay at the kernels' lo and hi (main), which the
	 * default model now projects on stated assumptions, widened.
	 */
	ck_assert_ptr_nonnull(strstr(text, "| 1 | Tgt | 160 us | 145 us – 578 us | 1.25x | "
				     "90.0 us | 44.0 us "));
	ck_assert_ptr_nonnull(strstr(text, "explains 89.2 %"));
	/* The report says what it ranks, and it is what it ranks. */
	ck_assert_ptr_nonnull(strstr(text, "- Ranked by projected whole-run wall time (the "
				     "recorded run replayed: "));
	ck_assert_ptr_nonnull(strstr(text, "| # | Target GPU | Projected whole-run time |"));
	free(text);
	text = NULL;
	ck_assert_int_eq(gpuproj_report_doc_html(doc, &text, &len, &err), GPUPROJ_OK);
	ck_assert_ptr_nonnull(strstr(text, "<section id=\"whole-run\">"));
	ck_assert_ptr_nonnull(strstr(text, "aria-label=\"kernel "));
	free(text);
	gpuproj_report_doc_free(doc);

	/* Without a timeline: no section, the kernel ranking. */
	gpuproj_profile_set_timeline(p, NULL);
	ck_assert_int_eq(gpuproj_report_doc_new(&in, 1, t, &opt, &doc, &err), GPUPROJ_OK);
	rank = gpuproj_report_doc_ranking(doc, GPUPROJ_REPORT_COMBINED, &n);
	ck_assert_str_eq(rank[0].target->name, "NoLink");
	ck_assert_int_eq(gpuproj_report_doc_markdown(doc, &text, &len, &err), GPUPROJ_OK);
	ck_assert_ptr_null(strstr(text, "## Whole run"));
	ck_assert_ptr_nonnull(strstr(text, "- Ranked by projected GPU kernel time over the "));
	free(text);
	gpuproj_report_doc_free(doc);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
}
END_TEST

/*
 * The repository's targets.yaml: every GPU has a host_link (an entry added
 * without one fails here), within what its interface can carry per
 * direction (Gen4 x8 15.75; x16: Gen2 8, Gen3 15.75, Gen4 31.5, Gen5 63, Gen6 121 GB/s;
 * NVLink-C2C 450 GB/s), pageable not above pinned, and sourced.
 */
/*
 * The rules libproj.so's recorder and import nsys share (timeline-api.c):
 * which calls make which records, and which copies block.
 */
START_TEST(shared_record_rules)
{
	ck_assert_uint_eq(gpuproj_tl_api_expects("cudaLaunchKernel"), GPUPROJ_TL_EXPECT_OP);
	ck_assert_uint_eq(gpuproj_tl_api_expects("cudaLaunchKernel_v7000"), GPUPROJ_TL_EXPECT_OP);
	ck_assert_uint_eq(gpuproj_tl_api_expects("cudaMemcpyAsync_v3020"), GPUPROJ_TL_EXPECT_OP);
	ck_assert_uint_eq(gpuproj_tl_api_expects("cudaGraphLaunch"), GPUPROJ_TL_EXPECT_OP);
	ck_assert_uint_eq(gpuproj_tl_api_expects("cudaGraphInstantiate"), 0);
	ck_assert_uint_eq(gpuproj_tl_api_expects("cudaStreamSynchronize"), GPUPROJ_TL_EXPECT_SYNC);
	ck_assert_uint_eq(gpuproj_tl_api_expects("cudaStreamWaitEvent"), GPUPROJ_TL_EXPECT_SYNC);
	ck_assert_uint_eq(gpuproj_tl_api_expects("cudaMalloc"), 0);
	ck_assert_uint_eq(gpuproj_tl_api_expects(NULL), 0);
	/* A synchronous copy blocks when it ended by its call's return, not after. */
	ck_assert(gpuproj_tl_copy_blocks(false, 1000, 1000));
	ck_assert(gpuproj_tl_copy_blocks(false, 900, 1000));
	ck_assert(!gpuproj_tl_copy_blocks(false, 1001, 1000)); /* pageable H2D: staged */
	ck_assert(!gpuproj_tl_copy_blocks(true, 900, 1000));
}
END_TEST

START_TEST(repository_host_links)
{
	static const struct {
		const char *interface;
		double max_gbs;
	} links[] = { { "pcie2-x16", 8 },   { "pcie3-x16", 15.75 }, { "pcie4-x8", 15.75 },
		      { "pcie4-x16", 31.5 },
		      { "pcie5-x16", 63 },  { "pcie6-x16", 121 },   { "nvlink-c2c", 450 } };
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	char path[4096];
	size_t i, j;

	snprintf(path, sizeof(path), "%s/targets.yaml", test_source_root());
	ck_assert_int_eq(gpuproj_targets_load(path, &ts, &err), GPUPROJ_OK);
	for (i = 0; i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i);
		const struct gpuproj_host_link *l = &t->host_link;
		double max = 0;

		ck_assert_msg(l->interface != NULL, "%s: no host_link", t->name);
		for (j = 0; j < sizeof(links) / sizeof(links[0]); j++) {
			if (strcmp(links[j].interface, l->interface) == 0)
				max = links[j].max_gbs;
		}
		ck_assert_msg(l->h2d_pinned_gbs <= max && l->d2h_pinned_gbs <= max,
			      "%s: %g / %g GB/s over %s (at most %g)", t->name, l->h2d_pinned_gbs,
			      l->d2h_pinned_gbs, l->interface, max);
		ck_assert(l->h2d_pageable_gbs <= l->h2d_pinned_gbs &&
			  l->d2h_pageable_gbs <= l->d2h_pinned_gbs);
		ck_assert_msg(gpuproj_target_source(t, "host_link.latency_us") &&
			      gpuproj_target_source(t, "host_link.h2d_pinned_gbs"),
			      "%s: host_link unsourced", t->name);
	}
	gpuproj_targets_free(ts);
}
END_TEST

static Suite *
timeline_suite(void)
{
	Suite *s = suite_create("timeline");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, serial);
	tcase_add_test(tc, two_streams);
	tcase_add_test(tc, event_wait);
	tcase_add_test(tc, host_bound);
	tcase_add_test(tc, copy_bound);
	tcase_add_test(tc, legacy_stream);
	tcase_add_test(tc, large_slots);
	tcase_add_test(tc, clamped);
	tcase_add_test(tc, host_link_loaded);
	tcase_add_test(tc, project_whole_run);
	tcase_add_test(tc, carried_work);
	tcase_add_test(tc, floor_of_one_stream);
	tcase_add_test(tc, bound_where_host_waits);
	tcase_add_test(tc, carried_round_trip);
	tcase_add_test(tc, bound);
	tcase_add_test(tc, eviction);
	tcase_add_test(tc, json_round_trip);
	tcase_add_test(tc, json_errors);
	tcase_add_test(tc, host_link_errors);
	tcase_add_test(tc, merge_ranks);
	tcase_add_test(tc, gate_wall);
	tcase_add_test(tc, timeline_times_hold_together);
	tcase_add_test(tc, timeline_identity_fails);
	tcase_add_test(tc, report_whole_run);
	tcase_add_test(tc, shared_record_rules);
	tcase_add_test(tc, repository_host_links);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(timeline_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
