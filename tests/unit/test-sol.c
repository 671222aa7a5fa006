/* SPDX-License-Identifier: MIT */
/*
 * The coarser "sol" model (src/model-sol.c) and the fallbacks of
 * gpuproj_project_run() (model.h): the projection against hand-computed
 * values on the fixture GPUs of tests/data/targets-models.yaml, what it
 * needs, its occupancy term (hroof-occ's), and the run's coverage counts
 * (projected, unprojected including never-timed kernels, by which
 * fallback).
 *
 * With the argument "validation" (suite 'validation'): sol on the
 * gpuperfpredict data set (../shared/validation), given only what an
 * export of Nsight Compute's default sections would hold — the duration,
 * the launch geometry and the four speed-of-light percentages, derived
 * from the data set's counters against each source GPU's targets.yaml
 * ceilings by gpuproj_profile_default_sections() (model.h) — beside
 * hroof-occ on the full counters, including the coverage and width of the
 * built-in intervals (sol's fitted on such profiles) on the shape-held-out
 * half; and sol on NeuSight's analytic profiles reduced the same way. The
 * figures are docs/validation.md's ("sol on exports of the default
 * sections" and the sol rows of its summary table); the test fails when
 * they drift.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuproj/import.h>
#include <gpuproj/interval.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>
#include <gpuproj/validate.h>

#include "common.h"

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))
#define ck_assert_rel(a, e)                                                                      \
	do {                                                                                     \
		double a_ = (a), e_ = (e);                                                       \
		ck_assert_msg(fabs(a_ - e_) <= 1e-9 * fmax(1.0, fabs(e_)), "%s = %.17g, expected " \
			      "%.17g", #a, a_, e_);                                              \
	} while (0)

static struct gpuproj_targets *targets;
static const struct gpuproj_target *src, *tgt;
static struct gpuproj_profile *prof;

static void
setup(void)
{
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-models.yaml"), &targets, &err), 0);
	src = gpuproj_targets_find(targets, "ModelSrc");
	tgt = gpuproj_targets_find(targets, "ModelTgt");
	prof = gpuproj_profile_new();
	ck_assert_ptr_nonnull(prof);
}

static void
teardown(void)
{
	gpuproj_profile_free(prof);
	targets = gpuproj_targets_free(targets);
}

/* A kernel of `blocks` × 256 threads timed at `ns`, optionally without its geometry. */
static struct gpuproj_kernel *
kernel_g(const char *name, double ns, bool geometry, uint32_t blocks)
{
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *k;

	sig.name = name;
	sig.tag = geometry ? "" : GPUPROJ_TAG_NO_GEOMETRY;
	sig.grid = geometry ? (struct gpuproj_dim3){ blocks, 1, 1 } : (struct gpuproj_dim3){ 1, 1, 1 };
	sig.block = geometry ? (struct gpuproj_dim3){ 256, 1, 1 } : (struct gpuproj_dim3){ 1, 1, 1 };
	ck_assert_int_eq(gpuproj_profile_kernel(prof, &sig, &k), 0);
	if (!isnan(ns))
		gpuproj_kernel_add_duration(k, ns);
	else
		k->launches++;
	k->profiled = 1;
	return k;
}

static struct gpuproj_kernel *
kernel(const char *name, double ns, bool geometry)
{
	return kernel_g(name, ns, geometry, 1000);
}

/* The four speed-of-light percentages (SM, DRAM, L2, L1; NaN: absent). */
static void
sol_pcts(struct gpuproj_kernel *k, double sm, double dram, double l2, double l1)
{
	const char *names[4] = { GPUPROJ_SOL_SM_PCT, GPUPROJ_SOL_DRAM_PCT, GPUPROJ_SOL_L2_PCT,
				 GPUPROJ_SOL_L1_PCT };
	double v[4] = { sm, dram, l2, l1 };
	int i;

	for (i = 0; i < 4; i++) {
		if (!isnan(v[i]))
			ck_assert_int_eq(gpuproj_kernel_add_extra(k, names[i], "%", v[i]), 0);
	}
}

static void
set(struct gpuproj_kernel *k, enum gpuproj_metric m, double v)
{
	k->metric_sum[m] = v;
	k->metric_n[m] = 1;
}

/* Everything hroof needs: 1e6 FFMA, warp efficiency 1, bytes per level. */
static void
hroof_inputs(struct gpuproj_kernel *k)
{
	int m;

	for (m = GPUPROJ_M_INST_FP16_FMA; m <= GPUPROJ_M_INST_FP64_MUL; m++)
		set(k, (enum gpuproj_metric)m, 0);
	set(k, GPUPROJ_M_INST_FP32_FMA, 1e6);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 1);
	set(k, GPUPROJ_M_BYTES_L1, 4e6);
	set(k, GPUPROJ_M_BYTES_L2, 2e6);
	set(k, GPUPROJ_M_BYTES_DRAM, 1e6);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
}

static double
detail_opt(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
	   const struct gpuproj_model_options *opt, const char *name)
{
	struct gpuproj_model_details d;
	size_t i;

	ck_assert_int_eq(gpuproj_model_details(m, k, src, tgt, opt, &d), GPUPROJ_OK);
	for (i = 0; i < d.n; i++) {
		if (strcmp(d.items[i].name, name) == 0)
			return d.items[i].value;
	}
	ck_abort_msg("no detail %s", name);
	return NAN;
}

static double
detail(const struct gpuproj_model *m, const struct gpuproj_kernel *k, const char *name)
{
	return detail_opt(m, k, NULL, name);
}

/*
 * ModelSrc → ModelTgt: BW L1 1000 → 2000, L2 400 → 800, DRAM 100 → 400 GB/s;
 * FP32 2000 (peak) → 3200 GFLOP/s (measured, preferred). T_s = 100 µs, SM
 * 20 %, DRAM 60 %, L2 40 %, L1 30 %; compute term 0.2 · 2000/3200 = 0.125:
 *   L1:   max(0.3 · 1000/2000, 0.125) / max(0.3, 0.2) = 0.15/0.3 → 50 µs
 *   L2:   max(0.4 · 400/800, 0.125) / 0.4 = 0.2/0.4             → 50 µs
 *   DRAM: max(0.6 · 100/400, 0.125) / 0.6 = 0.15/0.6            → 25 µs
 * interval [25, 50] µs, point 37.5 µs; binding: L2 (0.2 is the largest).
 */
START_TEST(ratio_by_hand)
{
	const struct gpuproj_model *sol = gpuproj_model_find("sol");
	struct gpuproj_kernel *k = kernel("k", 1e5, false);
	struct gpuproj_projection p;
	double lo, hi, wl, wh;

	sol_pcts(k, 20, 60, 40, 30);
	ck_assert_int_eq(gpuproj_model_project(sol, k, src, tgt, NULL, &p), GPUPROJ_OK);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L1], 5e4);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L2], 5e4);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_DRAM], 2.5e4);
	ck_assert_rel(p.level_lo_ns, 2.5e4);
	ck_assert_rel(p.level_hi_ns, 5e4);
	ck_assert_rel(p.point_ns, 3.75e4);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_L2);
	/*
	 * The reported interval is the built-in table's for sol (fitted on
	 * default sections), widened for its one assumption: no launch geometry.
	 */
	ck_assert(gpuproj_intervals_lookup(gpuproj_intervals_builtin(), sol, GPUPROJ_BOUND_L2,
					   p.point_ns, &lo, &hi, NULL));
	ck_assert(p.calibrated);
	ck_assert_uint_eq(p.assumed, 1u << GPUPROJ_ASSUME_GEOMETRY);
	ck_assert(gpuproj_assumption_widening(sol, GPUPROJ_ASSUME_GEOMETRY, &wl, &wh));
	ck_assert_double_lt(wl, 1);
	ck_assert_rel(p.lo_ns, 3.75e4 * lo * wl);
	ck_assert_rel(p.hi_ns, 3.75e4 * hi * wh);
	/* Without the launch geometry there is no occupancy term, and the details say so. */
	ck_assert_rel(detail(sol, k, "occupancy_factor"), 1.0);
	ck_assert_rel(detail(sol, k, "src.f_sm"), 0.2);
	ck_assert_rel(detail(sol, k, "tgt.perf_fp32"), 3200);
	/* On the source itself: the measured time, to the nanosecond. */
	ck_assert_int_eq(gpuproj_model_project(sol, k, src, src, NULL, &p), GPUPROJ_OK);
	ck_assert_rel(p.point_ns, 1e5);
}
END_TEST

/* Compute-bound: SM 90 %, L1 10 %: max(0.05, 0.9 · 0.625) / 0.9 → 62.5 µs, binding compute. */
START_TEST(compute_bound_and_missing_levels)
{
	const struct gpuproj_model *sol = gpuproj_model_find("sol");
	struct gpuproj_kernel *k = kernel("k", 1e5, false);
	struct gpuproj_projection p;

	sol_pcts(k, 90, 0, NAN, 10);
	ck_assert_int_eq(gpuproj_model_project(sol, k, src, tgt, NULL, &p), GPUPROJ_OK);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_L1], 6.25e4);
	ck_assert(isnan(p.level_ns[GPUPROJ_HL_L2])); /* no L2 percentage: the level drops */
	ck_assert_rel(p.level_ns[GPUPROJ_HL_DRAM], 6.25e4); /* DRAM 0 %: bound by compute */
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_COMPUTE);
}
END_TEST

/* bytes.dram (Memory Workload Analysis × duration) wins over the DRAM percentage. */
START_TEST(dram_bytes_over_percentage)
{
	const struct gpuproj_model *sol = gpuproj_model_find("sol");
	struct gpuproj_kernel *k = kernel("k", 1e5, false);
	struct gpuproj_projection p;

	/* 6e6 B in 100 µs at 100 GB/s: f = 0.6, whatever the 10 % says. */
	sol_pcts(k, 20, 10, NAN, NAN);
	set(k, GPUPROJ_M_BYTES_DRAM, 6e6);
	ck_assert_int_eq(gpuproj_model_project(sol, k, src, tgt, NULL, &p), GPUPROJ_OK);
	ck_assert_rel(p.level_ns[GPUPROJ_HL_DRAM], 2.5e4);
	ck_assert_rel(detail(sol, k, "src.f_dram"), 0.6);
}
END_TEST

START_TEST(needs)
{
	const struct gpuproj_model *sol = gpuproj_model_find("sol");
	struct gpuproj_kernel *k = kernel("k", NAN, false);
	struct gpuproj_projection p;
	const char *names[16];

	ck_assert_uint_eq(gpuproj_model_missing_names(sol, k, names, 16), 3);
	ck_assert_str_eq(names[0], "duration");
	ck_assert_str_eq(names[1], GPUPROJ_SOL_SM_PCT " (Compute (SM) Throughput)");
	ck_assert_str_eq(names[2], GPUPROJ_SOL_DRAM_PCT " (DRAM Throughput) or bytes.dram");
	gpuproj_kernel_add_duration(k, 1e5);
	ck_assert_int_eq(gpuproj_model_project(sol, k, src, tgt, NULL, &p), GPUPROJ_E_MISSING);
	ck_assert_str_eq(p.why, "sol needs " GPUPROJ_SOL_SM_PCT " (Compute (SM) Throughput), "
			 GPUPROJ_SOL_DRAM_PCT " (DRAM Throughput) or bytes.dram");
	sol_pcts(k, 10, 0, 0, 0);
	ck_assert_int_eq(gpuproj_model_project(sol, k, src, tgt, NULL, &p), GPUPROJ_OK);
	/* Nothing busy at all: nothing to scale by. */
	k = kernel("idle", 1e5, false);
	sol_pcts(k, 0, 0, 0, 0);
	ck_assert_int_eq(gpuproj_model_project(sol, k, src, tgt, NULL, &p), GPUPROJ_E_UNSUPPORTED);
}
END_TEST

/*
 * With the launch geometry: hroof-occ's occupancy term, the same factor.
 * 25 blocks: 3 waves on ModelSrc's 10 SMs (fill 25/30), 2 on ModelTgt's
 * 20 (fill 25/40): factor (25/30)/(25/40) = 4/3 at equal occupancy.
 */
START_TEST(occupancy_term_as_hroof_occ)
{
	const struct gpuproj_model *sol = gpuproj_model_find("sol");
	const struct gpuproj_model *hocc = gpuproj_model_find("hroof-occ");
	struct gpuproj_kernel *k = kernel_g("k", 1e5, true, 25), *plain = kernel("k2", 1e5, false);
	struct gpuproj_kernel *kh = kernel_g("kh", 1e5, true, 25);
	struct gpuproj_model_options linear = { .occupancy_term = GPUPROJ_OCC_TERM_LINEAR };
	struct gpuproj_projection p, q;
	double f;

	k->regs_per_thread = kh->regs_per_thread = 128;
	sol_pcts(k, 20, 60, 40, 30);
	sol_pcts(plain, 20, 60, 40, 30);
	hroof_inputs(kh);
	/* sol keeps [Srivastava-nd]'s linear ratio: hroof-occ's with --occupancy linear. */
	f = detail_opt(hocc, kh, &linear, "occupancy_factor");
	ck_assert_rel(f, 4.0 / 3.0);
	ck_assert_rel(detail(sol, k, "occupancy_factor"), f);
	ck_assert_int_eq(gpuproj_model_project(sol, k, src, tgt, NULL, &p), GPUPROJ_OK);
	ck_assert_int_eq(gpuproj_model_project(sol, plain, src, tgt, NULL, &q), GPUPROJ_OK);
	ck_assert_rel(p.point_ns, q.point_ns * f);
}
END_TEST

static double
extra_of(const struct gpuproj_kernel *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, name) == 0)
			return k->extra[i].sum / (double)k->extra[i].n;
	}
	return NAN;
}

static const struct gpuproj_kernel *
find_named(const struct gpuproj_profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		if (strcmp(gpuproj_profile_at(p, i)->name, name) == 0)
			return gpuproj_profile_at(p, i);
	}
	ck_abort_msg("no kernel %s", name);
	return NULL;
}

/*
 * gpuproj_profile_default_sections() on ModelSrc (10 SMs × 4 schedulers ×
 * IPC 1 at 1 GHz: 40 warp instructions per ns; FP32 2000, FP64 1000
 * GFLOP/s; BW DRAM 100, L2 400, L1 1000, shared 1000 GB/s), T = 100 µs:
 * "sol": FP32 FLOP 4e7 → 20 µs (20 %), 4e5 warp instructions → 10 µs:
 *        SM 20 %; DRAM 6e6 B → 60 µs (60 %); L2 1.6e7 B → 40 %; L1
 *        max(3e7 B / 1000, 1e5 wavefronts × 128 B / 1000) = 30 µs → 30 %:
 *        the percentages of ratio_by_hand, and so its projection;
 * "capped": FP64 FMA 4e7 → 8e7 FLOP → 80 µs beats FP32 ADD 1e6 (0.5 µs):
 *        SM 80 %; DRAM 2e7 B → 200 µs: capped at 100 %; no bytes.l2, L1
 *        nor wavefronts: no L2 or L1 percentage;
 * "measured": ncu's own SM percentage (55 %) stays, DRAM is derived (10 %);
 * "untimed": no duration, no percentage, but its reference survives.
 */
START_TEST(default_sections_by_hand)
{
	const struct gpuproj_model *sol = gpuproj_model_find("sol");
	struct gpuproj_kernel *k = kernel("sol", 1e5, false), *c = kernel("capped", 1e5, true);
	struct gpuproj_kernel *m = kernel("measured", 1e5, true), *u = kernel("untimed", NAN, true);
	struct gpuproj_profile *q = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *n;
	struct gpuproj_projection p;
	const char *value;
	int i;

	ck_assert_int_eq(gpuproj_profile_set_device(prof, "Model Source GPU", NULL, "GV100", 7, 0,
						    10, 1e9), 0);
	ck_assert_int_eq(gpuproj_profile_set_attr(prof, "citation", "a data set"), 0);
	for (i = GPUPROJ_M_INST_FP16_FMA; i <= GPUPROJ_M_INST_FP64_MUL; i++)
		set(k, (enum gpuproj_metric)i, 0);
	set(k, GPUPROJ_M_INST_FP32_FMA, 2e7);
	set(k, GPUPROJ_M_INST_WARP, 4e5);
	set(k, GPUPROJ_M_WARP_EFFICIENCY, 0.5);
	set(k, GPUPROJ_M_BYTES_DRAM, 6e6);
	set(k, GPUPROJ_M_BYTES_L2, 1.6e7);
	set(k, GPUPROJ_M_BYTES_L1, 3e7);
	set(k, GPUPROJ_M_SHARED_WAVEFRONTS, 1e5);
	set(k, GPUPROJ_M_OCCUPANCY_ACHIEVED, 0.75);
	k->regs_per_thread = 40;
	k->smem_static = 1024;
	ck_assert_int_eq(gpuproj_kernel_add_extra(k, "Warps per SM", "", 8), 0);
	ck_assert_int_eq(gpuproj_kernel_set_reference(k, "ModelTgt", 4e4, 1), 0);
	set(c, GPUPROJ_M_INST_FP64_FMA, 4e7);
	set(c, GPUPROJ_M_INST_FP32_ADD, 1e6);
	set(c, GPUPROJ_M_BYTES_DRAM, 2e7);
	set(m, GPUPROJ_M_BYTES_DRAM, 1e6);
	sol_pcts(m, 55, NAN, NAN, NAN);
	set(u, GPUPROJ_M_BYTES_DRAM, 1e6);
	ck_assert_int_eq(gpuproj_kernel_set_reference(u, "ModelTgt", 1e3, 1), 0);

	ck_assert_int_eq(gpuproj_profile_default_sections(prof, targets, NULL, &q, &err), 0);
	ck_assert_uint_eq(gpuproj_profile_count(q), 4);
	ck_assert_str_eq(gpuproj_profile_device(q)->name, "Model Source GPU");
	ck_assert_str_eq(gpuproj_profile_attr(q, "citation"), "a data set");
	value = gpuproj_profile_attr(q, "sections");
	ck_assert_ptr_nonnull(value);
	ck_assert_ptr_nonnull(strstr(value, "ModelSrc"));

	n = find_named(q, "sol");
	ck_assert_rel(extra_of(n, GPUPROJ_SOL_SM_PCT), 20);
	ck_assert_rel(extra_of(n, GPUPROJ_SOL_DRAM_PCT), 60);
	ck_assert_rel(extra_of(n, GPUPROJ_SOL_L2_PCT), 40);
	ck_assert_rel(extra_of(n, GPUPROJ_SOL_L1_PCT), 30);
	ck_assert_uint_eq(n->n_extra, 4);           /* "Warps per SM" is not in the sections */
	ck_assert_rel(gpuproj_kernel_mean_ns(n), 1e5);
	ck_assert_uint_eq(n->launches, 1);
	ck_assert_uint_eq(n->regs_per_thread, 40);
	ck_assert_uint_eq(n->smem_static, 1024);
	ck_assert_rel(gpuproj_kernel_metric(n, GPUPROJ_M_OCCUPANCY_ACHIEVED), 0.75);
	for (i = 0; i < GPUPROJ_M_COUNT; i++) {
		if (i != GPUPROJ_M_OCCUPANCY_ACHIEVED)
			ck_assert_msg(!gpuproj_kernel_has(n, (enum gpuproj_metric)i), "%s survived",
				      gpuproj_metric_name((enum gpuproj_metric)i));
	}
	ck_assert_ptr_nonnull(gpuproj_kernel_reference(n, "ModelTgt"));
	/* sol reads them as it reads ratio_by_hand's: 37.5 µs on ModelTgt. */
	ck_assert_int_eq(gpuproj_model_project(sol, n, src, tgt, NULL, &p), GPUPROJ_OK);
	ck_assert_rel(p.level_lo_ns, 2.5e4);
	ck_assert_rel(p.level_hi_ns, 5e4);
	ck_assert_rel(p.point_ns, 3.75e4);
	ck_assert_int_eq(p.binding, GPUPROJ_BOUND_L2);

	n = find_named(q, "capped");
	ck_assert_rel(extra_of(n, GPUPROJ_SOL_SM_PCT), 80);
	ck_assert_rel(extra_of(n, GPUPROJ_SOL_DRAM_PCT), 100);
	ck_assert(isnan(extra_of(n, GPUPROJ_SOL_L2_PCT)));
	ck_assert(isnan(extra_of(n, GPUPROJ_SOL_L1_PCT)));
	ck_assert(gpuproj_kernel_geometry_known(n));
	ck_assert_uint_eq(n->grid.x, 1000);

	n = find_named(q, "measured");
	ck_assert_rel(extra_of(n, GPUPROJ_SOL_SM_PCT), 55);
	ck_assert_rel(extra_of(n, GPUPROJ_SOL_DRAM_PCT), 10);
	ck_assert_uint_eq(n->n_extra, 2);

	n = find_named(q, "untimed");
	ck_assert_uint_eq(n->n_extra, 0);
	ck_assert_ptr_nonnull(gpuproj_kernel_reference(n, "ModelTgt"));
	gpuproj_profile_free(q);

	/* The source GPU named, or not found. */
	ck_assert_int_eq(gpuproj_profile_default_sections(prof, targets, "ModelTgt", &q, &err), 0);
	/* On ModelTgt's ceilings (DRAM 400 GB/s): 6e6 B in 100 µs is 15 %. */
	ck_assert_rel(extra_of(find_named(q, "sol"), GPUPROJ_SOL_DRAM_PCT), 15);
	gpuproj_profile_free(q);
	q = NULL;
	ck_assert_int_eq(gpuproj_profile_default_sections(prof, targets, "NoSuchGPU", &q, &err),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_null(q);
	ck_assert_int_eq(gpuproj_profile_default_sections(NULL, targets, NULL, &q, &err),
			 GPUPROJ_E_INVAL);
}
END_TEST

/*
 * gpuproj_project_run() with the default model: kernel "full" by hroof-occ,
 * "sections" by sol (fallback, coarse: an export of the default sections,
 * tried first), "nogeom" by hroof-occ itself, its occupancy unknown
 * (assumed), "bare" (no counters) by the envelope, "untimed" by nothing
 * and without source time — yet counted.
 * "bare", 200 µs on ModelSrc: FP32 2000 → 3200 GFLOP/s (measured),
 * DRAM 100 → 400 GB/s: compute-bound 200 · 2000 / 3200 = 125 µs,
 * memory-bound 200 · 100 / 400 = 50 µs; point √(125 · 50) = 79.0569 µs.
 */
START_TEST(run_fallbacks_and_coverage)
{
	const struct gpuproj_model *def = gpuproj_model_default();
	struct gpuproj_model_options opt = { 0 };
	struct gpuproj_run_projection run;
	struct gpuproj_kernel *full = kernel("full", 1e5, true);
	struct gpuproj_kernel *sections = kernel("sections", 1e5, true);
	struct gpuproj_kernel *nogeom = kernel("nogeom", 1e5, false);
	struct gpuproj_kernel *untimed = kernel("untimed", NAN, true);
	size_t i;

	hroof_inputs(full);
	sol_pcts(sections, 20, 60, 40, 30);
	hroof_inputs(nogeom);
	kernel("bare", 2e5, true);
	hroof_inputs(untimed);

	ck_assert_int_eq(gpuproj_project_run(prof, def, src, tgt, NULL, &run), 0);
	ck_assert_uint_eq(run.n, 5);
	ck_assert_uint_eq(run.n_projected, 4);
	ck_assert_uint_eq(run.n_unprojected, 1);      /* the never-timed one */
	ck_assert(run.unprojected_source_ns == 0);   /* which has no time to carry */
	ck_assert_uint_eq(run.n_fallback, 2);         /* sol and the envelope */
	ck_assert_uint_eq(run.n_fallback_sol, 1);
	/*
	 * Every kernel here has regs_per_thread 0: registers unknown; nogeom's
	 * geometry too; "bare" the envelope's binding unknown.
	 */
	ck_assert_uint_eq(run.n_assumed, 4);
	ck_assert_uint_eq(run.n_assumption[GPUPROJ_ASSUME_REGISTERS], 2);
	ck_assert_uint_eq(run.n_assumption[GPUPROJ_ASSUME_GEOMETRY], 1);
	ck_assert_uint_eq(run.n_assumption[GPUPROJ_ASSUME_BINDING], 1);
	for (i = 0; i < run.n; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(prof, i);
		const struct gpuproj_projection *p = &run.kernels[i];

		if (strcmp(k->name, "full") == 0) {
			ck_assert_int_eq(p->status, GPUPROJ_OK);
			ck_assert_ptr_null(p->fallback);
		} else if (strcmp(k->name, "sections") == 0) {
			ck_assert_int_eq(p->status, GPUPROJ_OK);
			ck_assert_ptr_eq(p->fallback, gpuproj_model_find("sol"));
			/* why: why not hroof-occ */
			ck_assert_str_eq(p->why, "hroof-occ: an export of ncu's default sections "
					 "(throughput percentages, no FP counts): sol's input");
		} else if (strcmp(k->name, "nogeom") == 0) {
			ck_assert_int_eq(p->status, GPUPROJ_OK);
			ck_assert_ptr_null(p->fallback);
			ck_assert_uint_eq(p->assumed, 1u << GPUPROJ_ASSUME_GEOMETRY);
		} else if (strcmp(k->name, "bare") == 0) {
			ck_assert_int_eq(p->status, GPUPROJ_OK);
			ck_assert_ptr_eq(p->fallback, gpuproj_model_find("envelope"));
			ck_assert_uint_eq(p->assumed, 1u << GPUPROJ_ASSUME_BINDING);
			ck_assert_str_eq(gpuproj_bound_name(p->binding), "unknown");
			ck_assert_rel(p->lo_ns, 5e4);
			ck_assert_rel(p->hi_ns, 1.25e5);
			ck_assert_rel(p->point_ns, sqrt(1.25e5 * 5e4));
			ck_assert(!p->calibrated);
		} else {
			ck_assert_int_ne(p->status, GPUPROJ_OK);
			ck_assert_ptr_null(p->fallback);
		}
	}
	gpuproj_run_projection_clear(&run);

	/* Off: each kernel by the model alone. */
	opt.fallback = GPUPROJ_FALLBACK_OFF;
	ck_assert_int_eq(gpuproj_project_run(prof, def, src, tgt, &opt, &run), 0);
	ck_assert_uint_eq(run.n_projected, 2); /* full, nogeom */
	ck_assert_uint_eq(run.n_unprojected, 3);
	ck_assert_uint_eq(run.n_fallback, 0);
	gpuproj_run_projection_clear(&run);
	/* The envelope by name: only "bare" (the others have counters, or no time). */
	ck_assert_int_eq(gpuproj_project_run(prof, gpuproj_model_find("envelope"), src, tgt, NULL,
					     &run), 0);
	ck_assert_uint_eq(run.n_projected, 1);
	for (i = 0; i < run.n; i++) {
		if (strcmp(gpuproj_profile_at(prof, i)->name, "sections") == 0)
			ck_assert_str_eq(run.kernels[i].why, "envelope needs no counters (a kernel "
					 "with counters is projected from them)");
	}
	gpuproj_run_projection_clear(&run);
	/* Onto its own GPU: both ratios 1, the measured time. */
	ck_assert_int_eq(gpuproj_project_run(prof, gpuproj_model_find("envelope"), src, src, NULL,
					     &run), 0);
	for (i = 0; i < run.n; i++) {
		if (strcmp(gpuproj_profile_at(prof, i)->name, "bare") == 0) {
			ck_assert_rel(run.kernels[i].point_ns, 2e5);
			ck_assert_rel(run.kernels[i].lo_ns, 2e5);
			ck_assert_rel(run.kernels[i].hi_ns, 2e5);
		}
	}
	gpuproj_run_projection_clear(&run);
	/* A model chosen by name is that model alone. */
	ck_assert_int_eq(gpuproj_project_run(prof, gpuproj_model_find("hroof"), src, tgt, NULL, &run),
			 0);
	ck_assert_uint_eq(run.n_projected, 2); /* full, nogeom */
	ck_assert_uint_eq(run.n_fallback, 0);
	gpuproj_run_projection_clear(&run);
}
END_TEST

/* ---- validation on gpuperfpredict ---- */

/*
 * docs/validation.md's figures ("sol on exports of the default sections";
 * overall, all configurations): MAPE, median APE and coverage over every comparison
 * with the built-in intervals (half of them the calibration half), then
 * coverage and width on the shape-held-out half alone, and coverage on the
 * GPUs held out of a refit (intervals fitted at 85 % on half of the target
 * GPUs); `levels`: the model's own interval instead (sol's before the
 * built-in table had groups for it; no GPU hold-out).
 */
static const struct {
	const char *model;
	bool default_sections, levels;
	double mape, median, coverage, held_coverage, held_width, gpu_coverage;
} readme[] = {
	{ "hroof-occ", false, false, 38.1, 23.0, 83.7, 83.4, 131.4, 70.2 },
	{ "sol", true, false, 31.3, 18.3, 82.9, 82.8, 110.8, 79.2 },
	{ "sol", true, true, 31.3, 18.3, 24.3, 23.8, 17.5, NAN },
};

START_TEST(gpuperfpredict)
{
	const char *vdir = test_validation_dir();
	static const char *const files[] = { "heartwall.csv", "hotspot.csv",
					     "backprop_layerforward.csv",
					     "backprop_adjust_weights.csv" };
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_profile **full = NULL, **sections;
	struct gpuproj_error err = { 0 };
	char *paths[4];
	size_t n = 0, i, c;

	if (!vdir) {
		test_skip("the gpuperfpredict data set (../shared/validation) is not here");
		return;
	}
	for (i = 0; i < 4; i++)
		ck_assert_int_gt(asprintf(&paths[i], "%s/%s", vdir, files[i]), 0);
	ck_assert_int_eq(gpuproj_targets_load_builtin(&ts, &err), 0);
	ck_assert_int_eq(gpuproj_import_datasets((const char *const *)paths, 4, ts, &full, &n, &err),
			 0);
	sections = calloc(n, sizeof(*sections));
	/* What an export of ncu's default sections would hold (model.h). */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(gpuproj_profile_default_sections(full[i], ts, NULL, &sections[i],
								  &err), 0);
	for (c = 0; c < ARRAY_LENGTH(readme); c++) {
		const struct gpuproj_model *m = gpuproj_model_find(readme[c].model);
		struct gpuproj_validate_options vo = { 0 };
		struct gpuproj_validation v = { 0 };
		const struct gpuproj_validation_stats *st;

		struct gpuproj_validation h = { 0 }, g = { 0 };
		struct gpuproj_model_options mo = { .level_interval = readme[c].levels };
		const struct gpuproj_profile *const *in = (const struct gpuproj_profile *const *)(
			readme[c].default_sections ? sections : full);
		const struct gpuproj_validation_stats *hs, *gs = NULL;
		char gcov[32];

		vo.models = &m;
		vo.n_models = 1;
		vo.model_options = &mo;
		ck_assert_int_eq(gpuproj_validate(in, n, ts, &vo, &v, &err), 0);
		vo.holdout = GPUPROJ_HOLDOUT_SHAPE;
		ck_assert_int_eq(gpuproj_validate(in, n, ts, &vo, &h, &err), 0);
		if (!readme[c].levels) {
			vo.holdout = GPUPROJ_HOLDOUT_GPU;
			vo.fit_intervals = true;
			vo.fit_coverage = 0.85;
			ck_assert_int_eq(gpuproj_validate(in, n, ts, &vo, &g, &err), 0);
			gs = &g.overall[0].stats[GPUPROJ_VSUBSET_ALL];
		}
		st = &v.overall[0].stats[GPUPROJ_VSUBSET_ALL];
		hs = &h.overall[0].stats[GPUPROJ_VSUBSET_ALL];
		if (gs)
			snprintf(gcov, sizeof(gcov), "%.1f %%", gs->coverage_pct);
		else
			snprintf(gcov, sizeof(gcov), "-");
		printf("%-10s %s%s: n %zu, failed %zu, MAPE %.1f %%, median APE %.1f %%, coverage "
		       "%.1f %%, bias %+.1f %%; long: MAPE %.1f, median %.1f; short: MAPE %.1f, "
		       "median %.1f; shape held out: n %zu, coverage %.1f %%, width %.1f %%; GPU "
		       "held out: coverage %s\n", readme[c].model,
		       readme[c].default_sections ? "(default sections)" : "(full counters)   ",
		       readme[c].levels ? ", own interval" : "", st->n, st->n_failed, st->mape_pct,
		       st->median_ape_pct, st->coverage_pct, st->bias_pct,
		       v.overall[0].stats[GPUPROJ_VSUBSET_LONG].mape_pct,
		       v.overall[0].stats[GPUPROJ_VSUBSET_LONG].median_ape_pct,
		       v.overall[0].stats[GPUPROJ_VSUBSET_SHORT].mape_pct,
		       v.overall[0].stats[GPUPROJ_VSUBSET_SHORT].median_ape_pct, hs->n,
		       hs->coverage_pct, hs->width_pct, gcov);
		fflush(stdout);
		/* Every comparison the full counters allow, none failed. */
		ck_assert_uint_eq(st->n, 15768);
		ck_assert_uint_eq(st->n_failed, 0);
		ck_assert_uint_eq(hs->n + h.n_calibration, 15768);
		ck_assert_msg(fabs(st->mape_pct - readme[c].mape) < 0.05,
			      "%s MAPE %.2f, documented %.1f", readme[c].model, st->mape_pct,
			      readme[c].mape);
		ck_assert(fabs(st->median_ape_pct - readme[c].median) < 0.05);
		ck_assert(fabs(st->coverage_pct - readme[c].coverage) < 0.05);
		ck_assert(fabs(hs->coverage_pct - readme[c].held_coverage) < 0.05);
		ck_assert(fabs(hs->width_pct - readme[c].held_width) < 0.05);
		ck_assert(!gs || fabs(gs->coverage_pct - readme[c].gpu_coverage) < 0.05);
		gpuproj_validation_clear(&v);
		gpuproj_validation_clear(&h);
		gpuproj_validation_clear(&g);
	}
	for (i = 0; i < n; i++) {
		gpuproj_profile_free(full[i]);
		gpuproj_profile_free(sections[i]);
	}
	free(full);
	free(sections);
	for (i = 0; i < 4; i++)
		free(paths[i]);
	gpuproj_targets_free(ts);
}
END_TEST

/*
 * sol on NeuSight's analytic profiles reduced the same way
 * (docs/validation.md, summary table, the "sol (default sections)" rows): long-launch MAPE over
 * every comparison, and coverage and width of the built-in intervals on
 * the shape-held-out half.
 */
static const struct {
	const char *op;
	size_t n_long;
	double long_mape, held_long_coverage, held_long_width;
} readme_neusight[] = {
	{ "linear", 123589, 46.0, 85.3, 132.8 },
	{ "add", 13528, 26.2, 97.1, 117.3 }, /* no registers: widened ("Missing inputs") */
};

START_TEST(neusight)
{
	const char *vdir = test_validation_dir();
	const struct gpuproj_model *m = gpuproj_model_find("sol");
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	size_t c, i;

	if (!vdir) {
		test_skip("../shared/validation is not here");
		return;
	}
	ck_assert_int_eq(gpuproj_targets_load_builtin(&ts, &err), 0);
	for (c = 0; c < ARRAY_LENGTH(readme_neusight); c++) {
		struct gpuproj_validate_options vo = { .models = &m, .n_models = 1,
						       .default_sections = true };
		struct gpuproj_validation v = { 0 }, h = { 0 };
		struct gpuproj_profile **ps = NULL;
		const struct gpuproj_validation_stats *st, *hs;
		char *dir, buf[1024];
		struct stat sb;
		size_t n = 0;

		ck_assert_int_gt(asprintf(&dir, "%s/../neusight-train/%s", vdir,
					  readme_neusight[c].op), 0);
		if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			test_skip("../shared/validation/neusight-train is not here");
			free(dir);
			break;
		}
		ck_assert_msg(gpuproj_import_neusight((const char *const *)&dir, 1, ts, &ps, &n,
						      &err) == 0, "%s",
			      gpuproj_error_format(&err, buf, sizeof(buf)));
		ck_assert_int_eq(gpuproj_validate((const struct gpuproj_profile *const *)ps, n, ts,
						  &vo, &v, &err), 0);
		vo.holdout = GPUPROJ_HOLDOUT_SHAPE;
		ck_assert_int_eq(gpuproj_validate((const struct gpuproj_profile *const *)ps, n, ts,
						  &vo, &h, &err), 0);
		st = &v.overall[0].stats[GPUPROJ_VSUBSET_LONG];
		hs = &h.overall[0].stats[GPUPROJ_VSUBSET_LONG];
		printf("sol (default sections), NeuSight %s, long: n %zu, failed %zu, MAPE %.1f %%; "
		       "shape held out: coverage %.1f %%, width %.1f %%\n", readme_neusight[c].op,
		       st->n, v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n_failed, st->mape_pct,
		       hs->coverage_pct, hs->width_pct);
		fflush(stdout);
		ck_assert_uint_eq(st->n, readme_neusight[c].n_long);
		ck_assert_uint_eq(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n_failed, 0);
		ck_assert(fabs(st->mape_pct - readme_neusight[c].long_mape) < 0.05);
		ck_assert(fabs(hs->coverage_pct - readme_neusight[c].held_long_coverage) < 0.05);
		ck_assert(fabs(hs->width_pct - readme_neusight[c].held_long_width) < 0.05);
		gpuproj_validation_clear(&v);
		gpuproj_validation_clear(&h);
		for (i = 0; i < n; i++)
			gpuproj_profile_free(ps[i]);
		free(ps);
		free(dir);
	}
	gpuproj_targets_free(ts);
}
END_TEST

int
main(int argc, char **argv)
{
	bool validation = argc > 1 && strcmp(argv[1], "validation") == 0;
	Suite *s = suite_create("sol");
	TCase *tc = tcase_create(validation ? "validation" : "model");
	SRunner *sr;
	int failed;

	if (validation) {
		tcase_set_timeout(tc, 600);
		tcase_add_test(tc, gpuperfpredict);
		tcase_add_test(tc, neusight);
	} else {
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_add_test(tc, ratio_by_hand);
		tcase_add_test(tc, compute_bound_and_missing_levels);
		tcase_add_test(tc, dram_bytes_over_percentage);
		tcase_add_test(tc, needs);
		tcase_add_test(tc, occupancy_term_as_hroof_occ);
		tcase_add_test(tc, default_sections_by_hand);
		tcase_add_test(tc, run_fallbacks_and_coverage);
	}
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
