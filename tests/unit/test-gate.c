/* SPDX-License-Identifier: MIT */
/*
 * The CI performance gate: the library (suite "gate", meson suite 'unit')
 * and `gpuproj gate` end to end (suite "gate-cli", run with the argument
 * "cli", meson suite 'integration').
 *
 * Fixtures (tests/data, GPUs of targets-test.yaml). Every kernel except
 * "incomplete" is DRAM-bound with bytes.l1 = l2 = dram, so hroof projects
 * SrcGPU → TgtGPU by the DRAM bandwidth ratio 100/400 = 0.25; "incomplete"
 * lacks metrics, cannot be projected and is carried at its source time.
 *
 * gate-base.json (launches × mean per launch, launch stddev):
 *   stream      50 × 100 µs, sd 2 µs     =  5000 µs
 *   noisy        4 × 100 µs, sd 30 µs    =   400 µs
 *   steady     100 ×  50 µs, sd 1 µs     =  5000 µs
 *   tiny        10 ×   1 µs, sd 0.1 µs   =    10 µs
 *   vanishing   10 ×  20 µs, sd 0        =   200 µs
 *   incomplete  10 ×  10 µs, sd 0        =   100 µs
 *   whole run (source)                     10710 µs; 1 % = 107.1 µs min time
 *   TgtGPU: (10710 − 100) × 0.25 + 100     = 2752.5 µs
 *   whole-run variance Σ L²·s²/n: stream 50·4 = 200, noisy 16·900/4 = 3600,
 *   steady 100·1 = 100, tiny 10·0.01 = 0.1 → 3900.1 µs² per profile.
 *
 * gate-pass.json: stream 101 µs (+1 %); noisy 115 µs sd 30 µs (+15 %, but
 *   noise band 3·√(900/4 + 900/4) = 3·21.21 = 63.64 µs > 15 µs: within
 *   noise); tiny 2 µs (+100 %, but 20 µs < 107.1 µs min time: small);
 *   vanishing gone; newcomer 10 × 10 µs new. Whole run 5050 + 460 + 5000 +
 *   20 + 100 + 100 = 10730 µs (+0.187 %); TgtGPU 2657.5 + 100 = 2757.5 µs.
 *
 * gate-fail.json: gate-base.json with stream at 112 µs sd 2 µs: +12 %,
 *   noise band 3·√(4/50 + 4/50) = 1.2 µs → regressed (TgtGPU: 25 → 28 µs,
 *   band 0.3 µs). Whole run 11310 µs: +5.60 % > 5 %, band
 *   3·√(2·3900.1) = 264.96 µs < 600 µs → regressed; TgtGPU 2902.5 µs,
 *   +5.45 %, band 66.24 µs → regressed.
 *
 * gate-othergpu.json: gate-base.json measured on TgtGPU: DRAM-bound kernels
 *   at 1/4 of the time (so every projection equals the baseline's), tool
 *   version 0.0.9.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <gpuproj/gate.h>
#include <gpuproj/merge.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "common.h"

#define US 1000.0

static struct gpuproj_targets *targets;
static const struct gpuproj_target *tgt;   /* TgtGPU */
static const struct gpuproj_target *srcg;  /* SrcGPU */

static void
setup(void)
{
	struct gpuproj_error e = { 0 };

	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-test.yaml"), &targets, &e), 0);
	tgt = gpuproj_targets_find(targets, "TgtGPU");
	srcg = gpuproj_targets_find(targets, "SrcGPU");
	ck_assert_ptr_nonnull(tgt);
	ck_assert_ptr_nonnull(srcg);
}

static void
teardown(void)
{
	targets = gpuproj_targets_free(targets);
}

/*
 * Defaults with the model pinned to "hroof", whose projections the numbers
 * above are worked out for (the default model may change).
 */
static void
opts_init(struct gpuproj_gate_options *o)
{
	gpuproj_gate_options_init(o);
	o->model = gpuproj_model_find("hroof");
	ck_assert_ptr_nonnull(o->model);
}

static struct gpuproj_profile *
load(const char *name)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error e = { 0 };

	ck_assert_msg(gpuproj_profile_load(test_data(name), &p, &e) == 0, "%s: %s", name,
		      e.message);
	return p;
}

/* The kernel row named `name` (mangled), or NULL. */
static const struct gpuproj_gate_kernel *
row(const struct gpuproj_gate_result *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_kernels; i++) {
		const struct gpuproj_kernel *k = r->kernels[i].base ? r->kernels[i].base
								    : r->kernels[i].cur;

		if (strcmp(k->name, name) == 0)
			return &r->kernels[i];
	}
	return NULL;
}

/* Compare two fixtures with columns [source, TgtGPU] and default options. */
static void
compare(const char *base_name, const char *cur_name, const struct gpuproj_gate_options *opt,
	struct gpuproj_gate_result *res)
{
	struct gpuproj_profile *b = load(base_name), *c = load(cur_name);
	const struct gpuproj_target *cols[1] = { tgt };
	struct gpuproj_gate_options defaults;
	struct gpuproj_error e = { 0 };

	opts_init(&defaults);
	ck_assert_msg(gpuproj_gate_compare(b, c, targets, cols, 1, opt ? opt : &defaults, res,
					   &e) == 0, "%s", e.message);
	gpuproj_profile_free(b);
	gpuproj_profile_free(c);
}

static bool
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

#define EQ_US(v, us) ck_assert_double_eq_tol((v), (us) * US, 1e-6 * fabs((us) * US) + 1e-6)

START_TEST(gate_pass_noise_small_new_vanished)
{
	struct gpuproj_gate_result r;
	const struct gpuproj_gate_kernel *k;

	compare("gate-base.json", "gate-pass.json", NULL, &r);
	ck_assert(!r.regression);
	ck_assert_uint_eq(r.n_regressed, 0);
	ck_assert_uint_eq(r.n_columns, 2);
	ck_assert_str_eq(r.columns[0].label, "SrcGPU (measured)");
	ck_assert_str_eq(r.columns[1].label, "TgtGPU");
	ck_assert(!r.gpu_changed);
	ck_assert_uint_eq(r.n_warnings, 0);

	/* Whole run. */
	EQ_US(r.columns[0].run.base_ns, 10710);
	EQ_US(r.columns[0].run.cur_ns, 10730);
	ck_assert_double_eq_tol(r.columns[0].run.change, 20.0 / 10710, 1e-12);
	ck_assert_int_eq(r.columns[0].run.status, GPUPROJ_GATE_OK);
	EQ_US(r.columns[1].run.base_ns, 2752.5);
	EQ_US(r.columns[1].run.cur_ns, 2757.5);
	ck_assert_int_eq(r.columns[1].run.status, GPUPROJ_GATE_OK);
	EQ_US(r.columns[0].min_time_ns, 107.1);
	EQ_US(r.columns[1].min_time_ns, 27.525);

	/* Longest first: stream and steady (5000 µs) lead; ties by label. */
	ck_assert_uint_eq(r.n_kernels, 7);
	ck_assert_str_eq(r.kernels[0].base->name, "stream");
	ck_assert_str_eq(r.kernels[1].base->name, "steady");

	k = row(&r, "noisy");
	ck_assert_int_eq(k->cells[0].status, GPUPROJ_GATE_NOISE);
	ck_assert_double_eq_tol(k->cells[0].change, 0.15, 1e-12);
	EQ_US(k->cells[0].noise_ns, 3 * sqrt(900.0 / 4 * 2));
	ck_assert_int_eq(k->cells[1].status, GPUPROJ_GATE_NOISE);
	EQ_US(k->cells[1].base_ns, 25);
	EQ_US(k->cells[1].cur_ns, 28.75);
	EQ_US(k->cells[1].noise_ns, 0.25 * 3 * sqrt(900.0 / 4 * 2));

	k = row(&r, "tiny");
	ck_assert_int_eq(k->cells[0].status, GPUPROJ_GATE_SMALL);
	ck_assert_int_eq(k->cells[1].status, GPUPROJ_GATE_SMALL);
	EQ_US(k->cells[0].cur_total_ns, 20);

	k = row(&r, "stream");
	ck_assert_int_eq(k->cells[0].status, GPUPROJ_GATE_OK);
	ck_assert_double_eq_tol(k->cells[0].change, 0.01, 1e-12);

	k = row(&r, "vanishing");
	ck_assert_ptr_null(k->cur);
	ck_assert_int_eq(k->cells[0].status, GPUPROJ_GATE_VANISHED);
	ck_assert_int_eq(k->cells[1].status, GPUPROJ_GATE_VANISHED);
	EQ_US(k->cells[0].base_ns, 20);
	k = row(&r, "newcomer");
	ck_assert_ptr_null(k->base);
	ck_assert_int_eq(k->cells[0].status, GPUPROJ_GATE_NEW);
	EQ_US(k->cells[1].cur_ns, 2.5);
	ck_assert_uint_eq(r.n_new, 1);
	ck_assert_uint_eq(r.n_vanished, 1);

	/* Projection failures are listed, not passed silently. */
	k = row(&r, "incomplete");
	ck_assert_int_eq(k->cells[0].status, GPUPROJ_GATE_OK);
	ck_assert_int_eq(k->cells[1].status, GPUPROJ_GATE_UNPROJECTED);
	ck_assert_str_eq(k->cells[1].why, "hroof needs FLOP (inst.fp{16,32,64}.{fma,add,mul} or "
			 "flop.tensor.*) or bytes (bytes.l1, bytes.l2, bytes.dram)");
	ck_assert_uint_eq(r.n_unprojected, 1);
	ck_assert_uint_eq(r.columns[1].n_unprojected, 1);
	gpuproj_gate_result_clear(&r);
	ck_assert_ptr_null(r.kernels);
}
END_TEST

START_TEST(gate_fail_kernel_and_whole_run)
{
	struct gpuproj_gate_result r;
	const struct gpuproj_gate_kernel *k;

	compare("gate-base.json", "gate-fail.json", NULL, &r);
	ck_assert(r.regression);
	ck_assert_uint_eq(r.n_regressed, 4);
	ck_assert_uint_eq(r.n_new, 0);
	ck_assert_uint_eq(r.n_vanished, 0);
	k = row(&r, "stream");
	ck_assert_int_eq(k->cells[0].status, GPUPROJ_GATE_REGRESSED);
	ck_assert_double_eq_tol(k->cells[0].change, 0.12, 1e-12);
	EQ_US(k->cells[0].noise_ns, 1.2);
	ck_assert_int_eq(k->cells[1].status, GPUPROJ_GATE_REGRESSED);
	EQ_US(k->cells[1].base_ns, 25);
	EQ_US(k->cells[1].cur_ns, 28);
	EQ_US(k->cells[1].noise_ns, 0.3);
	ck_assert_uint_eq(r.columns[0].n_regressed, 1);
	ck_assert_uint_eq(r.columns[1].n_regressed, 1);

	ck_assert_int_eq(r.columns[0].run.status, GPUPROJ_GATE_REGRESSED);
	EQ_US(r.columns[0].run.cur_ns, 11310);
	EQ_US(r.columns[0].run.noise_ns, 3 * sqrt(2 * 3900.1));
	ck_assert_int_eq(r.columns[1].run.status, GPUPROJ_GATE_REGRESSED);
	EQ_US(r.columns[1].run.cur_ns, 2902.5);
	EQ_US(r.columns[1].run.noise_ns, 0.25 * 3 * sqrt(2 * 3900.1));
	ck_assert_double_eq_tol(r.columns[1].run.change, 150.0 / 2752.5, 1e-12);
	gpuproj_gate_result_clear(&r);

	/* The other way round it is an improvement, and passes. */
	compare("gate-fail.json", "gate-base.json", NULL, &r);
	ck_assert(!r.regression);
	ck_assert_int_eq(row(&r, "stream")->cells[0].status, GPUPROJ_GATE_IMPROVED);
	ck_assert_int_eq(r.columns[0].run.status, GPUPROJ_GATE_IMPROVED);
	gpuproj_gate_result_clear(&r);
}
END_TEST

START_TEST(gate_thresholds_are_options)
{
	struct gpuproj_gate_options o;
	struct gpuproj_gate_result r;

	/* Looser thresholds: +12 % and +5.6 % pass. */
	opts_init(&o);
	o.kernel_max_regression = 0.125;
	o.max_regression = 0.06;
	compare("gate-base.json", "gate-fail.json", &o, &r);
	ck_assert(!r.regression);
	ck_assert_int_eq(row(&r, "stream")->cells[0].status, GPUPROJ_GATE_OK);
	gpuproj_gate_result_clear(&r);

	/*
	 * No minimum time: tiny (+100 %, band 3·√(0.01/10 · 2) µs = 0.134 µs)
	 * now fails. A minimum of 20 µs still lets its 20 µs fail (≥), 20.1 µs
	 * does not.
	 */
	opts_init(&o);
	o.min_time_ns = 0;
	compare("gate-base.json", "gate-pass.json", &o, &r);
	ck_assert(r.regression);
	ck_assert_int_eq(row(&r, "tiny")->cells[0].status, GPUPROJ_GATE_REGRESSED);
	EQ_US(row(&r, "tiny")->cells[0].noise_ns, 3 * sqrt(0.01 / 10 * 2));
	gpuproj_gate_result_clear(&r);
	o.min_time_ns = 20 * US;
	compare("gate-base.json", "gate-pass.json", &o, &r);
	ck_assert_int_eq(row(&r, "tiny")->cells[0].status, GPUPROJ_GATE_REGRESSED);
	/* On TgtGPU the same kernel is 5 µs, under the absolute 20 µs. */
	ck_assert_int_eq(row(&r, "tiny")->cells[1].status, GPUPROJ_GATE_SMALL);
	gpuproj_gate_result_clear(&r);
	o.min_time_ns = 20.1 * US;
	compare("gate-base.json", "gate-pass.json", &o, &r);
	ck_assert(!r.regression);
	gpuproj_gate_result_clear(&r);

	/* A narrower noise band (k = 0.5: 10.6 µs) lets noisy's +15 µs fail. */
	opts_init(&o);
	o.noise_k = 0.5;
	compare("gate-base.json", "gate-pass.json", &o, &r);
	ck_assert_int_eq(row(&r, "noisy")->cells[0].status, GPUPROJ_GATE_REGRESSED);
	gpuproj_gate_result_clear(&r);

	/* Bad option values. */
	opts_init(&o);
	o.max_regression = -0.01;
	{
		struct gpuproj_profile *b = load("gate-base.json");
		struct gpuproj_error e = { 0 };

		ck_assert_int_eq(gpuproj_gate_compare(b, b, targets, NULL, 0, &o, &r, &e),
				 GPUPROJ_E_INVAL);
		ck_assert_str_eq(e.message, "thresholds, noise band and minimum time must be "
				 "finite and non-negative");
		o.max_regression = NAN;
		ck_assert_int_eq(gpuproj_gate_compare(b, b, targets, NULL, 0, &o, &r, &e),
				 GPUPROJ_E_INVAL);
		ck_assert_int_eq(gpuproj_gate_compare(NULL, b, targets, NULL, 0, NULL, &r, &e),
				 GPUPROJ_E_INVAL);
		gpuproj_gate_result_clear(&r);
		gpuproj_profile_free(b);
	}
}
END_TEST

/* A one-kernel profile on SrcGPU, built in code. */
static struct gpuproj_profile *
one_kernel(uint64_t n, double mean_us, double sd_us, int device)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_signature sig = { .name = "k", .grid = { 8, 1, 1 }, .block = { 64, 1, 1 },
					 .device = device };
	struct gpuproj_kernel *k;

	ck_assert_int_eq(gpuproj_profile_set_device(p, "Test Source GPU", NULL, NULL, 0, 0, 0,
						    NAN), 0);
	ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &k), 0);
	k->launches = n;
	k->duration_ns.n = n;
	k->duration_ns.mean = mean_us * US;
	k->duration_ns.sum = mean_us * US * (double)n;
	k->duration_ns.min = k->duration_ns.max = mean_us * US;
	k->duration_ns.m2 = sd_us * US * sd_us * US * (double)(n - 1);
	return p;
}

static enum gpuproj_gate_status
status_of(struct gpuproj_profile *b, struct gpuproj_profile *c,
	  const struct gpuproj_gate_options *o, double *ret_noise)
{
	struct gpuproj_gate_options defaults;
	struct gpuproj_gate_result r;
	struct gpuproj_error e = { 0 };
	enum gpuproj_gate_status s;

	opts_init(&defaults);
	ck_assert_msg(gpuproj_gate_compare(b, c, targets, NULL, 0, o ? o : &defaults, &r, &e) == 0,
		      "%s", e.message);
	ck_assert_uint_eq(r.n_kernels, 1);
	s = r.kernels[0].cells[0].status;
	if (ret_noise)
		*ret_noise = r.kernels[0].cells[0].noise_ns;
	gpuproj_gate_result_clear(&r);
	gpuproj_profile_free(b);
	gpuproj_profile_free(c);
	return s;
}

/*
 * The band is the standard error of the mean, so it narrows with launches:
 * 100 → 115 µs with sd 30 µs is noise over 4 launches (band 63.6 µs) and a
 * regression over 400 (band 3·√(900/400 · 2) = 6.36 µs). Over 1 launch no
 * spread is known: the threshold alone decides.
 */
START_TEST(gate_noise_band_narrows_with_launches)
{
	double noise;

	ck_assert_int_eq(status_of(one_kernel(4, 100, 30, 0), one_kernel(4, 115, 30, 0), NULL,
				   &noise), GPUPROJ_GATE_NOISE);
	EQ_US(noise, 63.6396);
	ck_assert_int_eq(status_of(one_kernel(400, 100, 30, 0), one_kernel(400, 115, 30, 0), NULL,
				   &noise), GPUPROJ_GATE_REGRESSED);
	EQ_US(noise, 6.36396);
	ck_assert_int_eq(status_of(one_kernel(1, 100, 0, 0), one_kernel(1, 115, 0, 0), NULL, &noise),
			 GPUPROJ_GATE_REGRESSED);
	ck_assert_double_eq(noise, 0);
	/* +1 % over a tight spread is far outside the band, but under the threshold. */
	ck_assert_int_eq(status_of(one_kernel(50, 100, 2, 0), one_kernel(50, 101, 2, 0), NULL, NULL),
			 GPUPROJ_GATE_OK);
}
END_TEST

/* Exactly +10 % is not beyond +10 %; +10.1 % is. */
START_TEST(gate_threshold_boundary)
{
	struct gpuproj_gate_options o;

	opts_init(&o);
	ck_assert_int_eq(status_of(one_kernel(10, 100, 0, 0), one_kernel(10, 110, 0, 0), &o, NULL),
			 GPUPROJ_GATE_OK);
	ck_assert_int_eq(status_of(one_kernel(10, 100, 0, 0), one_kernel(10, 110.1, 0, 0), &o,
				   NULL), GPUPROJ_GATE_REGRESSED);
	o.kernel_max_regression = 0;
	ck_assert_int_eq(status_of(one_kernel(10, 100, 0, 0), one_kernel(10, 100, 0, 0), &o, NULL),
			 GPUPROJ_GATE_OK);
	ck_assert_int_eq(status_of(one_kernel(10, 100, 0, 0), one_kernel(10, 100.01, 0, 0), &o,
				   NULL), GPUPROJ_GATE_REGRESSED);
}
END_TEST

/*
 * The device ordinal is not part of the match: the baseline ran k on
 * device 0 (10 × 100 µs), the current run split it over devices 0 and 1
 * (10 × 100 µs each, 20 launches). Folded, per launch nothing changed.
 */
START_TEST(gate_ignores_device_ordinal)
{
	struct gpuproj_profile *b = one_kernel(10, 100, 0, 0), *c = one_kernel(10, 100, 0, 0);
	struct gpuproj_profile *c1 = one_kernel(10, 100, 0, 1);
	struct gpuproj_signature sig = { .name = "k", .grid = { 8, 1, 1 }, .block = { 64, 1, 1 },
					 .device = 1 };
	struct gpuproj_gate_result r;
	struct gpuproj_error e = { 0 };
	struct gpuproj_kernel *k;

	/* c: k on device 0 and, as a separate record, on device 1. */
	ck_assert_int_eq(gpuproj_profile_kernel(c, &sig, &k), 0);
	ck_assert_int_eq(gpuproj_kernel_merge(k, gpuproj_profile_at(c1, 0)), 0);
	ck_assert_uint_eq(gpuproj_profile_count(c), 2);
	ck_assert_int_eq(gpuproj_gate_compare(b, c, targets, NULL, 0, NULL, &r, &e), 0);
	ck_assert_uint_eq(r.n_kernels, 1);
	ck_assert_uint_eq(r.n_new + r.n_vanished, 0);
	ck_assert_int_eq(r.kernels[0].cells[0].status, GPUPROJ_GATE_OK);
	ck_assert_uint_eq(r.kernels[0].cur->launches, 20);
	/* Twice the launches doubles the whole run: +100 %. */
	ck_assert_int_eq(r.columns[0].run.status, GPUPROJ_GATE_REGRESSED);
	ck_assert_double_eq_tol(r.columns[0].run.change, 1.0, 1e-12);
	gpuproj_gate_result_clear(&r);
	gpuproj_profile_free(b);
	gpuproj_profile_free(c);
	gpuproj_profile_free(c1);
}
END_TEST

START_TEST(gate_gpu_change)
{
	struct gpuproj_profile *b = load("gate-base.json"), *c = load("gate-othergpu.json");
	const struct gpuproj_target *cols[2] = { srcg, tgt };
	struct gpuproj_gate_options o;
	struct gpuproj_gate_result r;
	struct gpuproj_error e = { 0 };

	opts_init(&o);
	o.baseline_label = "base.json";
	o.current_label = "cur.json";
	ck_assert_int_eq(gpuproj_gate_compare(b, c, targets, cols, 2, &o, &r, &e),
			 GPUPROJ_E_MISMATCH);
	ck_assert_str_eq(e.message, "the baseline (base.json) was measured on SrcGPU ('Test "
			 "Source GPU') and the current profile (cur.json) on TgtGPU ('Test Target "
			 "GPU'): measured times of different GPUs are not comparable; measure the "
			 "baseline on the same GPU, or pass --allow-gpu-change to gate on projected "
			 "times only");
	gpuproj_gate_result_clear(&r);

	o.allow_gpu_change = true;
	ck_assert_int_eq(gpuproj_gate_compare(b, c, targets, cols, 2, &o, &r, &e), 0);
	ck_assert(r.gpu_changed);
	ck_assert(r.version_changed);
	ck_assert_uint_eq(r.n_warnings, 2);
	ck_assert_str_eq(r.warnings[0], "source GPU changed: baseline SrcGPU ('Test Source GPU'), "
			 "current TgtGPU ('Test Target GPU'); measured times are not compared, only "
			 "projections gate (--allow-gpu-change)");
	ck_assert_str_eq(r.warnings[1], "tool version differs: baseline measured with gpuproj "
			 "0.1.0, current with gpuproj 0.0.9");
	ck_assert_str_eq(r.columns[0].label, "SrcGPU -> TgtGPU (measured)");
	ck_assert_int_eq(r.columns[0].run.status, GPUPROJ_GATE_NOT_COMPARABLE);
	ck_assert_int_eq(row(&r, "stream")->cells[0].status, GPUPROJ_GATE_NOT_COMPARABLE);
	/* Projections from either GPU agree: stream 100 µs on SrcGPU, 25 µs on TgtGPU. */
	EQ_US(row(&r, "stream")->cells[1].cur_ns, 100);
	EQ_US(row(&r, "stream")->cells[2].cur_ns, 25);
	ck_assert_int_eq(row(&r, "stream")->cells[2].status, GPUPROJ_GATE_OK);
	EQ_US(r.columns[2].run.base_ns, 2752.5);
	EQ_US(r.columns[2].run.cur_ns, 2752.5);
	ck_assert(!r.regression);
	gpuproj_gate_result_clear(&r);

	/* --source vouches for both profiles' GPU: names are not compared. */
	o.allow_gpu_change = false;
	o.source = "SrcGPU";
	ck_assert_int_eq(gpuproj_gate_compare(b, c, targets, cols, 2, &o, &r, &e), 0);
	ck_assert(!r.gpu_changed);
	ck_assert_uint_eq(r.n_warnings, 1);
	gpuproj_gate_result_clear(&r);
	o.source = NULL;
	o.allow_gpu_change = true;

	/* A GPU that is not in targets.yaml: named, with the side. */
	gpuproj_profile_set_device(c, "Nonexistent GPU 9000", NULL, NULL, 0, 0, 0, NAN);
	ck_assert_int_eq(gpuproj_gate_compare(b, c, targets, cols, 2, &o, &r, &e),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_str_eq(e.file, "cur.json");
	ck_assert_ptr_nonnull(strstr(e.message, "current profile: the profile's GPU 'Nonexistent "
				     "GPU 9000' is not in targets.yaml"));
	gpuproj_gate_result_clear(&r);
	gpuproj_profile_free(b);
	gpuproj_profile_free(c);
}
END_TEST

START_TEST(kernel_label_format)
{
	struct gpuproj_kernel k = { .name = "_Z1kPf", .tag = "", .grid = { 2, 3, 4 },
				    .block = { 32, 2, 1 } };
	char buf[128];

	ck_assert_str_eq(gpuproj_gate_kernel_label(&k, buf, sizeof(buf)), "_Z1kPf (2x3x4,32x2x1)");
	k.demangled = "k(float*)";
	k.smem_dynamic = 4096;
	k.tag = "n=1024";
	ck_assert_str_eq(gpuproj_gate_kernel_label(&k, buf, sizeof(buf)),
			 "k(float*) (2x3x4,32x2x1, smem 4096 B) [n=1024]");
	ck_assert_str_eq(gpuproj_gate_status_name(GPUPROJ_GATE_REGRESSED), "REGRESSED");
}
END_TEST

/*
 * One test case per kernel and one for the whole run, not one
 * per kernel x GPU; a case fails with its finding, and its text has a
 * line per column. gate-fail.json: stream +12 % with unchanged counters
 * (the header's numbers) is one finding, the whole run another: 7 cases
 * (whole run + 6 kernels), 2 failures, 0 skipped (incomplete is
 * compared on the source column, only not projected onto TgtGPU).
 */
START_TEST(junit_xml)
{
	struct gpuproj_gate_result r;
	struct gpuproj_gate_options o;
	char *x;

	opts_init(&o);
	o.baseline_label = "base.json";
	o.current_label = "cur.json";
	compare("gate-base.json", "gate-fail.json", &o, &r);
	ck_assert_int_eq(gpuproj_gate_junit(&r, &x), 0);
	ck_assert_msg(starts_with(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "
				  "name=\"gpuproj gate\" tests=\"7\" failures=\"2\" skipped=\"0\" "
				  "errors=\"0\">\n  <testsuite name=\"gpuproj gate\" tests=\"7\" "
				  "failures=\"2\" skipped=\"0\" errors=\"0\">\n"), "%.300s", x);
	ck_assert_ptr_nonnull(strstr(x, "<property name=\"baseline\" value=\"base.json\"/>"));
	/* 1 % of each column's baseline run: 10710 µs measured, 2752.5 µs on TgtGPU. */
	ck_assert_ptr_nonnull(strstr(x, "<property name=\"min_time_ns: SrcGPU (measured)\" "
				     "value=\"107100\"/>\n      <property name=\"min_time_ns: "
				     "TgtGPU\" value=\"27525\"/>\n"));
	ck_assert_ptr_nonnull(strstr(x, "    <testcase classname=\"gpuproj gate\" name=\"stream "
				     "(1024x1x1,256x1x1)\">\n      <failure type=\"regression\" "
				     "message=\"kernel stream (1024x1x1,256x1x1): +12.0% measured "
				     "on SrcGPU, counters unchanged; every target follows (+12.0% "
				     "on TgtGPU)\">SrcGPU (measured): baseline: 100 us measured "
				     "per launch, 50 launches"));
	ck_assert_ptr_nonnull(strstr(x, "REGRESSED&#10;TgtGPU: baseline: 25.0 us projected per "
				     "launch, 50 launches"));
	/* Whole run: 10710 → 11310 µs (+5.6 %), TgtGPU +5.45 %; stream added 50 × 12 µs. */
	ck_assert_ptr_nonnull(strstr(x, "<testcase classname=\"gpuproj gate\" name=\"(whole "
				     "run)\">\n      <failure type=\"regression\" message=\"whole "
				     "run: +5.6% measured on SrcGPU (10.7 ms -&gt; 11.3 ms); +5.4% "
				     "on TgtGPU; largest changes: stream (1024x1x1,256x1x1) +600 "
				     "us\">SrcGPU (measured): whole run measured: baseline 10.7 "
				     "ms, current 11.3 ms; change +5.6% (threshold +5%, noise band "
				     "265 us): REGRESSED&#10;TgtGPU: whole run projected: baseline "
				     "2.75 ms, current 2.90 ms; change +5.4% (threshold +5%, noise "
				     "band 66.2 us): REGRESSED</failure>"));
	ck_assert_ptr_nonnull(strstr(x, "<testcase classname=\"gpuproj gate\" name=\"incomplete "
				     "(1x1x1,32x1x1)\">\n      <system-out>SrcGPU (measured): "));
	ck_assert_ptr_nonnull(strstr(x, "&#10;TgtGPU: baseline: n/a projected per launch, 10 "
				     "launches (launch sd 0 ns measured, 10 timed); current: n/a "
				     "projected per launch, 10 launches (launch sd 0 ns measured, "
				     "10 timed); hroof needs FLOP"));
	ck_assert_ptr_nonnull(strstr(x, "<testcase classname=\"gpuproj gate\" name=\"steady "
				     "(256x1x1,256x1x1)\">\n      <system-out>SrcGPU (measured): "
				     "baseline: 50.0 us "));
	ck_assert(starts_with(strstr(x, "  </testsuite>\n"), "  </testsuite>\n</testsuites>\n"));
	free(x);
	gpuproj_gate_result_clear(&r);

	/* New and vanished kernels are skipped test cases. */
	compare("gate-base.json", "gate-pass.json", &o, &r);
	ck_assert_int_eq(gpuproj_gate_junit(&r, &x), 0);
	ck_assert_ptr_nonnull(strstr(x, "tests=\"8\" failures=\"0\" skipped=\"2\""));
	ck_assert_ptr_nonnull(strstr(x, "name=\"newcomer (16x1x1,64x1x1)\">\n      <skipped "
				     "message=\"new kernel: not in the baseline\"/>"));
	ck_assert_ptr_nonnull(strstr(x, "name=\"vanishing (8x1x1,64x1x1)\">\n      <skipped "
				     "message=\"vanished kernel: not in the current profile\"/>"));
	ck_assert_ptr_null(strstr(x, "<failure"));
	free(x);
	gpuproj_gate_result_clear(&r);
}
END_TEST

/*
 * One cause: gate-fail.json's stream (+12 %, counters as in the
 * baseline) is one finding of cause "time" however many columns it
 * fails, and the whole run one more.
 */
START_TEST(findings_one_cause)
{
	struct gpuproj_gate_result r;
	const struct gpuproj_gate_finding *f;

	compare("gate-base.json", "gate-fail.json", NULL, &r);
	ck_assert_uint_eq(r.n_regressed, 4);
	ck_assert_uint_eq(r.n_findings, 2);
	f = &r.findings[0];
	ck_assert_str_eq(r.kernels[f->kernel].base->name, "stream");
	ck_assert_int_eq(f->cause, GPUPROJ_GATE_CAUSE_TIME);
	ck_assert_str_eq(gpuproj_gate_cause_name(f->cause), "time");
	/* The 14 metrics of gate-base.json's stream, in both; none moves with the time. */
	ck_assert_uint_eq(f->n_compared, 14);
	ck_assert_uint_eq(f->n_changed, 0);
	ck_assert_uint_eq(f->n_regressed, 2);
	ck_assert_uint_eq(f->n_targets_compared, 1);
	ck_assert_uint_eq(f->n_targets_regressed, 1);
	f = &r.findings[1];
	ck_assert_uint_eq(f->kernel, SIZE_MAX);
	ck_assert_int_eq(f->cause, GPUPROJ_GATE_CAUSE_RUN);
	ck_assert_uint_eq(f->n_regressed, 2);
	gpuproj_gate_result_clear(&r);
}
END_TEST

/*
 * Changed counters: gate-counters-base.json → gate-counters.json,
 * one kernel "stream" (50 launches, sd 2 µs) with 8e8 FP32 FMA (1.6e9
 * FLOP) and bytes.l1 = l2 = dram = 100 MB at 100 µs, then 140 MB at
 * 140 µs (+40 %). Columns: SrcGPU projected onto itself and TgtGPU.
 *   SrcGPU: DRAM 100 MB / 100 GB/s = 1.0 ms > FP32 1.6e9 / 2000 GFLOP/s
 *     = 0.8 ms: dram-bound, 1.4 ms after; the projection onto itself is
 *     the measured time, 100 → 140 µs: +40.0 %.
 *   TgtGPU: FP32 1.6e9 / 4000 GFLOP/s = 0.4 ms > DRAM 100 MB / 400 GB/s
 *     = 0.25 ms (0.35 ms after): compute-bound; 100 µs × 0.4 / 1.0 = 40 µs
 *     before, 140 µs × 0.4 / 1.4 = 40 µs after: +0.0 %.
 *   Whole run 50 × 100 µs = 5.00 ms → 7.00 ms (+40.0 %); TgtGPU 2.00 ms
 *   both: +0.0 %, so 1 of the 2 targets regresses.
 */
START_TEST(findings_changed_counters)
{
	struct gpuproj_profile *b = load("gate-counters-base.json");
	struct gpuproj_profile *c = load("gate-counters.json");
	const struct gpuproj_target *cols[2] = { srcg, tgt };
	struct gpuproj_gate_options o;
	struct gpuproj_gate_result r;
	struct gpuproj_error e = { 0 };
	const struct gpuproj_gate_finding *f;
	char *x;

	opts_init(&o);
	ck_assert_int_eq(gpuproj_gate_compare(b, c, targets, cols, 2, &o, &r, &e), 0);
	ck_assert_uint_eq(r.n_findings, 2);
	f = &r.findings[0];
	ck_assert_int_eq(f->cause, GPUPROJ_GATE_CAUSE_COUNTERS);
	ck_assert_uint_eq(f->n_changed, 3);
	ck_assert_int_eq(f->changes[0].metric, GPUPROJ_M_BYTES_L1);
	ck_assert_double_eq_tol(f->changes[2].change, 0.4, 1e-12);
	ck_assert_double_eq_tol(f->changes[2].base, 1e8, 1e-3);
	ck_assert_double_eq_tol(f->changes[2].cur, 1.4e8, 1e-3);
	ck_assert_int_eq(r.kernels[0].cells[1].binding, GPUPROJ_BOUND_DRAM);
	ck_assert_int_eq(r.kernels[0].cells[2].binding, GPUPROJ_BOUND_COMPUTE);
	EQ_US(r.kernels[0].cells[2].base_ns, 40);
	EQ_US(r.kernels[0].cells[2].cur_ns, 40);
	ck_assert_str_eq(f->text, "kernel stream (1024x1x1,256x1x1): +40.0% measured on SrcGPU; "
			 "counters changed: bytes.l1 +40.0%, bytes.l2 +40.0%, bytes.dram +40.0%; "
			 "the dram-bound targets regress most (dram-bound: +40.0% on SrcGPU; "
			 "compute-bound: +0.0% on TgtGPU)");
	ck_assert_str_eq(r.findings[1].text, "whole run: +40.0% measured on SrcGPU (5.00 ms -> "
			 "7.00 ms); +0.0% to +40.0% on 2 targets (1 regresses); largest changes: "
			 "stream (1024x1x1,256x1x1) +2.00 ms");
	ck_assert_int_eq(gpuproj_gate_junit(&r, &x), 0);
	ck_assert_ptr_nonnull(strstr(x, "tests=\"2\" failures=\"2\" skipped=\"0\""));
	ck_assert_ptr_nonnull(strstr(x, "<failure type=\"regression\" message=\"kernel stream "
				     "(1024x1x1,256x1x1): +40.0% measured on SrcGPU; counters "
				     "changed: bytes.l1 +40.0%, bytes.l2 +40.0%, bytes.dram "
				     "+40.0%; the dram-bound targets regress most (dram-bound: "
				     "+40.0% on SrcGPU; compute-bound: +0.0% on TgtGPU)\">"));
	free(x);
	gpuproj_gate_result_clear(&r);
	gpuproj_profile_free(b);
	gpuproj_profile_free(c);
}
END_TEST

/* Markup in kernel names is escaped in XML and Markdown. */
START_TEST(reports_escape_names)
{
	struct gpuproj_profile *b = one_kernel(10, 100, 0, 0), *c = one_kernel(10, 200, 0, 0);
	struct gpuproj_gate_result r;
	struct gpuproj_error e = { 0 };
	char *x, *md;

	ck_assert_int_eq(gpuproj_gate_compare(b, c, targets, NULL, 0, NULL, &r, &e), 0);
	/* Give the folded baseline record (owned by the result) a hostile demangled name. */
	{
		struct gpuproj_kernel *k = (struct gpuproj_kernel *)r.kernels[0].base;

		free(k->demangled);
		k->demangled = strdup("void f<a&b, \"q\" 'p'>(x|y) `t`\x01");
	}
	ck_assert_int_eq(gpuproj_gate_junit(&r, &x), 0);
	/* What XML 1.0 forbids becomes U+FFFD (before: '?'). */
	ck_assert_msg(strstr(x, "name=\"void f&lt;a&amp;b, &quot;q&quot; &apos;p&apos;&gt;(x|y) "
			     "`t`\xef\xbf\xbd (8x1x1,64x1x1)\"") != NULL, "%.3000s", x);
	ck_assert_int_eq(gpuproj_gate_markdown(&r, &md), 0);
	/*
	 * A code span keeps the backticks of the name (CommonMark §6.1: a fence
	 * longer than any backtick run inside), '|' escaped for the table cell.
	 */
	ck_assert_msg(strstr(md, "| ``void f<a&b, \"q\" 'p'>(x\\|y) `t`  (8x1x1,64x1x1)`` | "
			     "SrcGPU (measured) | 100 us | 200 us | +100.0% | 0 ns |\n") != NULL,
		      "%.3000s", md);
	free(x);
	free(md);
	gpuproj_gate_result_clear(&r);
	gpuproj_profile_free(b);
	gpuproj_profile_free(c);
}
END_TEST

/* n kernels of one long name each, every one taking mean_us per launch (10 launches). */
static struct gpuproj_profile *
many_kernels(size_t n, double mean_us)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	char name[256];
	size_t i;

	ck_assert_int_eq(gpuproj_profile_set_device(p, "Test Source GPU", NULL, NULL, 0, 0, 0, NAN),
			 0);
	for (i = 0; i < n; i++) {
		struct gpuproj_signature sig = { .name = name, .grid = { 8, 1, 1 },
						 .block = { 64, 1, 1 } };
		struct gpuproj_kernel *k;

		snprintf(name, sizeof(name), "_ZN9namespace6detail%zu_long_kernel_name_of_a_"
			 "template_library_with_many_parameters_expanded_for_every_typeEv", i);
		ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &k), 0);
		k->launches = 10;
		k->duration_ns.n = 10;
		k->duration_ns.mean = mean_us * US;
		k->duration_ns.sum = mean_us * US * 10;
		k->duration_ns.min = k->duration_ns.max = mean_us * US;
	}
	return p;
}

/*
 * The Markdown stays under the 1 MiB a GitHub job summary
 * holds (and GitLab's 1,000,000-character note), saying what is cut.
 * Before: 12,000 regressions made a 2.5 MB summary, which CI refuses.
 */
START_TEST(markdown_capped)
{
	struct gpuproj_profile *b = many_kernels(12000, 100), *c = many_kernels(12000, 200);
	struct gpuproj_gate_options o;
	struct gpuproj_gate_result r;
	struct gpuproj_error e = { 0 };
	char *md, *note;

	gpuproj_gate_options_init(&o);
	o.min_time_ns = 0; /* every kernel may fail */
	ck_assert_int_eq(gpuproj_gate_compare(b, c, targets, NULL, 0, &o, &r, &e), 0);
	ck_assert_uint_eq(r.n_regressed, 12001);
	ck_assert_int_eq(gpuproj_gate_markdown(&r, &md), 0);
	ck_assert_uint_le(strlen(md), GPUPROJ_GATE_MD_MAX);
	ck_assert(starts_with(md, "## gpuproj gate: FAIL: 12001 findings (12000 kernels and the "
			      "whole run; 12001 regressed cells)\n"));
	/* The note comes before the first table; the headings keep their counts. */
	note = strstr(md, "> **Cut:** ");
	ck_assert_ptr_nonnull(note);
	ck_assert(note < strstr(md, "### Whole run"));
	ck_assert_ptr_nonnull(strstr(note, " table rows were left out to keep this summary under "
				     "976 KiB (a GitHub Actions job summary holds 1 MiB, a GitLab "
				     "merge-request note 1,000,000 characters); the JUnit report and "
				     "the command's output list every kernel.\n"));
	ck_assert_ptr_nonnull(strstr(md, "### Regressions (12000)\n"));
	/* The first 100 findings, then how many more. */
	ck_assert_ptr_nonnull(strstr(md, "### Findings (12001)\n"));
	ck_assert_ptr_nonnull(strstr(md, "\n- … and 11901 more (the JUnit report and the "
				     "command's output have every finding)\n\n### Whole run\n"));
	ck_assert_ptr_nonnull(strstr(md, "### Whole run\n"));
	free(md);
	gpuproj_gate_result_clear(&r);
	gpuproj_profile_free(b);
	gpuproj_profile_free(c);
}
END_TEST

/*
 * A current profile without a timed kernel (another CUPTI
 * client took the records) gives no verdict. Before: PASS, "improved
 * -100 %".
 */
START_TEST(gate_nothing_timed)
{
	struct gpuproj_profile *b = one_kernel(10, 100, 0, 0), *c = one_kernel(10, 100, 0, 0);
	struct gpuproj_gate_result r;
	struct gpuproj_error e = { 0 };
	struct gpuproj_kernel *k = gpuproj_profile_at(c, 0);

	memset(&k->duration_ns, 0, sizeof(k->duration_ns));
	ck_assert_int_eq(gpuproj_gate_compare(b, c, targets, NULL, 0, NULL, &r, &e),
			 GPUPROJ_E_UNSUPPORTED);
	ck_assert_str_eq(e.file, "current");
	ck_assert_str_eq(e.message, "the current profile has no timed kernel (1 kernel signature, "
			 "10 launches, none timed): nothing to compare, no verdict; a profile "
			 "libproj.so wrote while another CUPTI client (a framework's profiler, "
			 "PyTorch's Kineto) took the kernel records has none, and libproj.so said "
			 "so on stderr");
	gpuproj_gate_result_clear(&r);
	ck_assert_int_eq(gpuproj_gate_compare(c, b, targets, NULL, 0, NULL, &r, &e),
			 GPUPROJ_E_UNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(e.message, "the baseline has no timed kernel"));
	gpuproj_gate_result_clear(&r);
	gpuproj_profile_free(b);
	gpuproj_profile_free(c);
}
END_TEST

START_TEST(markdown_summary)
{
	struct gpuproj_gate_result r;
	struct gpuproj_gate_options o;
	char *md;

	opts_init(&o);
	o.baseline_label = "base.json";
	o.current_label = "cur.json";
	compare("gate-base.json", "gate-fail.json", &o, &r);
	ck_assert_int_eq(gpuproj_gate_markdown(&r, &md), 0);
	ck_assert_msg(starts_with(md, "## gpuproj gate: FAIL: 2 findings (1 kernel and the whole "
				  "run; 4 regressed cells)\n\nBaseline `base.json` (SrcGPU), "
				  "current `cur.json` (SrcGPU); model hroof."), "%.300s", md);
	ck_assert_ptr_nonnull(strstr(md, "### Findings (2)\n\nOne per cause; the tables below "
				     "have every GPU's numbers.\n\n- kernel stream "
				     "(1024x1x1,256x1x1): +12.0% measured on SrcGPU, counters "
				     "unchanged; every target follows (+12.0% on TgtGPU)\n- whole "
				     "run: +5.6% measured on SrcGPU (10.7 ms -&gt; 11.3 ms); +5.4% "
				     "on TgtGPU; largest changes: stream (1024x1x1,256x1x1) +600 "
				     "us\n\n### Whole run\n"));
	ck_assert_ptr_nonnull(strstr(md, "### Whole run\n\n| GPU | baseline | current | "
				     "current interval | change | noise band | result |\n"
				     "|:--|--:|--:|--:|--:|--:|:--|\n"
				     "| SrcGPU (measured) | 10.7 ms | 11.3 ms | - | +5.6% | 265 us | "
				     "**REGRESSED** |\n| TgtGPU | 2.75 ms | 2.90 ms | "));
	ck_assert_ptr_nonnull(strstr(md, " | +5.4% | 66.2 us | **REGRESSED** |\n"));
	/* The projected column carries the current value's (calibrated) interval. */
	ck_assert(isnan(r.columns[0].run.cur_lo_ns));
	ck_assert(r.columns[1].run.cur_lo_ns > 0);
	ck_assert(r.columns[1].run.cur_hi_ns >= r.columns[1].run.cur_lo_ns);
	/*
	 * The built-in intervals were not fitted on the test GPUs: the
	 * interval is marked, with the footnote under the table.
	 */
	ck_assert(r.columns[1].run.cur_interval_unseen);
	ck_assert(!r.columns[0].run.cur_interval_unseen);
	ck_assert_ptr_nonnull(strstr(md, " \\* | +5.4% | 66.2 us | **REGRESSED** |\n"));
	ck_assert_ptr_nonnull(strstr(md, "|\n\n\\* The interval was fitted on validation data "
				     "without this target or the source GPU"));
	ck_assert_ptr_nonnull(strstr(md, "### Regressions (2)\n"));
	ck_assert_ptr_nonnull(strstr(md, "| `stream (1024x1x1,256x1x1)` | TgtGPU | 25.0 us | "
				     "28.0 us | +12.0% | 300 ns |\n"));
	ck_assert_ptr_nonnull(strstr(md, "### Not projected (1)\n"));
	ck_assert_ptr_null(strstr(md, "### New kernels"));
	free(md);
	gpuproj_gate_result_clear(&r);

	compare("gate-base.json", "gate-pass.json", &o, &r);
	ck_assert_int_eq(gpuproj_gate_markdown(&r, &md), 0);
	ck_assert(starts_with(md, "## gpuproj gate: PASS\n"));
	ck_assert_ptr_nonnull(strstr(md, "### New kernels (1)\n"));
	ck_assert_ptr_nonnull(strstr(md, "| `newcomer (16x1x1,64x1x1)` | 10 | 10.0 us | 100 us |\n"));
	ck_assert_ptr_nonnull(strstr(md, "### Vanished kernels (1)\n"));
	ck_assert_ptr_nonnull(strstr(md, "| `vanishing (8x1x1,64x1x1)` | 10 | 20.0 us | 200 us |\n"));
	ck_assert_ptr_nonnull(strstr(md, "<details><summary>Within noise (2)"));
	ck_assert_ptr_nonnull(strstr(md, "| `noisy (64x1x1,128x1x1)` | SrcGPU (measured) | 100 us | "
				     "115 us | +15.0% | 63.6 us |\n"));
	ck_assert_ptr_nonnull(strstr(md, "<details><summary>Below the minimum time (2)"));
	free(md);
	gpuproj_gate_result_clear(&r);
}
END_TEST

/* ---- gpuproj gate ---- */

/* `gpuproj gate` in tests/data with the test targets and hroof; fmt a string literal. */
#define run(out, err, ...)                                                                        \
	test_cli_at(test_data(""), NULL, out, err,                                                \
		    "gate --targets targets-test.yaml --model hroof " __VA_ARGS__)

START_TEST(cli_pass)
{
	char *out, *err;

	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json gate-pass.json"), 0);
	ck_assert_str_eq(err, "");
	ck_assert_msg(starts_with(out, "gpuproj gate: PASS (baseline gate-base.json, current "
				  "gate-pass.json, model hroof)\n"), "%.300s", out);
	/* The source GPU is the measured column; it is not projected onto itself. */
	ck_assert_ptr_null(strstr(out, "\nSrcGPU  "));
	ck_assert_ptr_nonnull(strstr(out, "\nwithin noise (beyond the threshold, inside the noise "
				     "band) (2):\n  noisy (64x1x1,128x1x1) on SrcGPU (measured): 100 us "
				     "-> 115 us per launch, +15.0% (noise band 63.6 us, kernel time "
				     "460 us)\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nnew kernels (1, counted in the whole run):\n  newcomer "
				     "(16x1x1,64x1x1): 10 launches, 10.0 us per launch, 100 us in "
				     "total (measured)\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nvanished kernels (1, counted in the whole run):\n  "
				     "vanishing (8x1x1,64x1x1): 10 launches"));
	ck_assert_ptr_nonnull(strstr(out, "\nnot projected (1):\n  incomplete (1x1x1,32x1x1) on "
				     "TgtGPU: hroof needs"));
	free(out);
	free(err);
}
END_TEST

START_TEST(cli_fail_writes_reports)
{
	char *dir = test_tmpdir(), *out, *err, *x, *md, *path;

	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json --junit '%s/j.xml' --md "
			     "'%s/s.md' gate-fail.json", dir, dir), 1);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "gpuproj gate: FAIL: 2 findings (1 kernel and the "
				     "whole run; 4 regressed cells)"));
	ck_assert_ptr_nonnull(strstr(out, "\n\nfindings (2):\n  kernel stream (1024x1x1,256x1x1): "
				     "+12.0% measured on SrcGPU, counters unchanged; every target "
				     "follows (+12.0% on TgtGPU)\n  whole run: +5.6% measured on "
				     "SrcGPU (10.7 ms -> 11.3 ms); +5.4% on TgtGPU; largest "
				     "changes: stream (1024x1x1,256x1x1) +600 us\n\nwhole run "));
	ck_assert_ptr_nonnull(strstr(out, "\nSrcGPU (measured) "));
	ck_assert_int_gt(asprintf(&path, "%s/j.xml", dir), 0);
	x = test_read_file(path);
	free(path);
	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(strstr(x, "failures=\"2\""));
	ck_assert_int_gt(asprintf(&path, "%s/s.md", dir), 0);
	md = test_read_file(path);
	free(path);
	ck_assert_ptr_nonnull(md);
	ck_assert_ptr_nonnull(strstr(md, "## gpuproj gate: FAIL"));
	ck_assert_int_eq(test_count_dir(dir), 2);
	free(x);
	free(md);
	free(out);
	free(err);

	/* Looser thresholds on the command line: it passes. */
	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json --max-regression 6%% "
			     "--kernel-max-regression 12.5 gate-fail.json"), 0);
	free(out);
	free(err);
	/* --min-time 0 lets tiny's +100 % fail. */
	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json --min-time 0 gate-pass.json"), 1);
	ck_assert_ptr_nonnull(strstr(out, "tiny (1x1x1,32x1x1) on SrcGPU (measured): 1.00 us -> "
				     "2.00 us per launch, +100.0%"));
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json --target TgtGPU --min-time 25us "
			     "--noise-k 0 gate-pass.json"), 1);
	/* Without a band noisy fails: 460 µs on SrcGPU, 115 µs on TgtGPU, both above 25 µs. */
	ck_assert_ptr_nonnull(strstr(out, "\nregressions (2):\n  noisy (64x1x1,128x1x1) on SrcGPU "
				     "(measured)"));
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(cli_gpu_change)
{
	char *out, *err;

	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json --allow-gpu-change "
			     "gate-othergpu.json"), 0);
	ck_assert_str_eq(err, "gpuproj: warning: source GPU changed: baseline SrcGPU ('Test Source "
			 "GPU'), current TgtGPU ('Test Target GPU'); measured times are not "
			 "compared, only projections gate (--allow-gpu-change)\n"
			 "gpuproj: warning: tool version differs: baseline measured with gpuproj "
			 "0.1.0, current with gpuproj 0.0.9\n");
	/* Both GPUs are projected columns now. */
	ck_assert_ptr_nonnull(strstr(out, "\nSrcGPU -> TgtGPU (measured) "));
	ck_assert_ptr_nonnull(strstr(out, "\nSrcGPU  "));
	ck_assert_ptr_nonnull(strstr(out, "\nTgtGPU  "));
	free(out);
	free(err);
}
END_TEST

/* The JSON text `s` parsed (jansson), or a failed test. */
static json_t *
parse_json(const char *s)
{
	json_error_t je;
	json_t *j = json_loads(s, 0, &je);

	ck_assert_msg(j != NULL, "not JSON: %s at %d:%d: %.200s", je.text, je.line, je.column, s);
	return j;
}

static const char *
jstr(json_t *j, const char *path)
{
	json_t *v = json_object_get(j, path);

	ck_assert_msg(json_is_string(v), "%s is not a string", path);
	return json_string_value(v);
}

/*
 * One cause, end to end with the built-in targets: gate-fail.json's
 * stream +12 % (counters unchanged) on every built-in GPU but the source
 * (A100-SXM4-80GB, --source): 2 × (N + 1) regressed cells on N targets and
 * 1 + 1 columns' whole run, but 2 findings; JUnit 7 cases (whole run + 6
 * kernels), 2 failures (before: 116 failures with 57 targets).
 */
START_TEST(cli_one_cause_json_junit)
{
	char *dir = test_tmpdir(), *out, *err, *path, *x, *want;
	struct gpuproj_targets *builtin = NULL;
	struct gpuproj_error e = { 0 };
	json_t *j, *f;
	size_t n;

	ck_assert_int_eq(gpuproj_targets_load(test_data("../../targets.yaml"), &builtin, &e), 0);
	n = gpuproj_targets_count(builtin) - 1;
	gpuproj_targets_free(builtin);
	ck_assert_int_eq(test_cli_at(test_data(""), NULL, &out, &err, "gate --targets "
				     "../../targets.yaml --source A100-SXM4-80GB --baseline "
				     "gate-base.json gate-fail.json --format json --junit "
				     "'%s/j.xml'", dir), 1);
	ck_assert(starts_with(err, "gpuproj gate: FAIL: 2 findings (1 kernel and the whole run; "));
	j = parse_json(out);
	ck_assert_str_eq(jstr(j, "schema"), "gpuproj-gate/1");
	ck_assert_str_eq(jstr(j, "verdict"), "fail");
	ck_assert_uint_eq(json_array_size(json_object_get(j, "gpus")), n + 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "counts"),
							    "findings")), 2);
	/* stream in every column, the whole run in every column. */
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "counts"),
							    "regressed_cells")), 2 * (n + 1));
	f = json_array_get(json_object_get(j, "findings"), 0);
	ck_assert_str_eq(jstr(f, "cause"), "time");
	ck_assert_int_gt(asprintf(&want, "kernel stream (1024x1x1,256x1x1): +12.0%% measured on "
				  "A100-SXM4-80GB, counters unchanged; every target follows "
				  "(+12.0%% on %zu targets)", n), 0);
	ck_assert_str_eq(jstr(f, "text"), want);
	free(want);
	ck_assert_int_eq(json_integer_value(json_object_get(f, "targets_regressed")), n);
	ck_assert_double_eq_tol(json_real_value(json_object_get(f, "source_change")), 0.12, 1e-12);
	ck_assert_str_eq(jstr(json_array_get(json_object_get(j, "findings"), 1), "cause"), "run");
	json_decref(j);
	ck_assert_int_gt(asprintf(&path, "%s/j.xml", dir), 0);
	x = test_read_file(path);
	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(strstr(x, "<testsuites name=\"gpuproj gate\" tests=\"7\" "
				     "failures=\"2\" skipped=\"0\" errors=\"0\">\n"));
	free(x);
	free(path);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * Changed counters, end to end: the numbers of
 * findings_changed_counters through `--format json` on standard output;
 * the summary goes to stderr then.
 */
START_TEST(cli_changed_counters_json)
{
	char *out, *err;
	json_t *j, *f, *c, *cells;

	ck_assert_int_eq(run(&out, &err, "--target SrcGPU --target TgtGPU --baseline "
			     "gate-counters-base.json gate-counters.json --format json"), 1);
	ck_assert(starts_with(err, "gpuproj gate: FAIL: 2 findings (1 kernel and the whole run; 4 "
			      "regressed cells)"));
	j = parse_json(out);
	ck_assert_str_eq(jstr(j, "verdict"), "fail");
	f = json_array_get(json_object_get(j, "findings"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(f, "kernel")), 0);
	ck_assert_str_eq(jstr(f, "cause"), "counters");
	ck_assert_str_eq(jstr(f, "text"), "kernel stream (1024x1x1,256x1x1): +40.0% measured on "
			 "SrcGPU; counters changed: bytes.l1 +40.0%, bytes.l2 +40.0%, bytes.dram "
			 "+40.0%; the dram-bound targets regress most (dram-bound: +40.0% on "
			 "SrcGPU; compute-bound: +0.0% on TgtGPU)");
	ck_assert_int_eq(json_integer_value(json_object_get(f, "counters_changed")), 3);
	c = json_array_get(json_object_get(f, "counters"), 2);
	ck_assert_str_eq(jstr(c, "metric"), "bytes.dram");
	ck_assert_double_eq(json_real_value(json_object_get(c, "baseline")), 1e8);
	ck_assert_double_eq(json_real_value(json_object_get(c, "current")), 1.4e8);
	ck_assert_double_eq_tol(json_real_value(json_object_get(c, "change")), 0.4, 1e-12);
	/* Columns: SrcGPU measured, SrcGPU projected (dram), TgtGPU (compute, 40 µs both). */
	cells = json_object_get(json_array_get(json_object_get(j, "kernels"), 0), "cells");
	ck_assert_str_eq(jstr(json_array_get(cells, 0), "status"), "regressed");
	ck_assert(json_is_null(json_object_get(json_array_get(cells, 0), "binding")));
	ck_assert_str_eq(jstr(json_array_get(cells, 1), "binding"), "dram");
	ck_assert_str_eq(jstr(json_array_get(cells, 2), "binding"), "compute");
	ck_assert_str_eq(jstr(json_array_get(cells, 2), "status"), "ok");
	ck_assert_double_eq_tol(json_real_value(json_object_get(json_array_get(cells, 2),
								"baseline_ns")), 40000, 1e-6);
	ck_assert_double_eq_tol(json_real_value(json_object_get(json_array_get(cells, 2),
								"current_ns")), 40000, 1e-6);
	/* Whole run 5.00 → 7.00 ms measured; TgtGPU 2.00 ms both. */
	c = json_object_get(json_array_get(json_object_get(j, "gpus"), 2), "whole_run");
	ck_assert_str_eq(jstr(json_array_get(json_object_get(j, "gpus"), 2), "gpu"), "TgtGPU");
	ck_assert_double_eq_tol(json_real_value(json_object_get(c, "baseline_ns")), 2e6, 1e-3);
	ck_assert_double_eq_tol(json_real_value(json_object_get(c, "change")), 0, 1e-12);
	json_decref(j);
	free(out);
	free(err);
}
END_TEST

static const struct bad_case {
	const char *args;
	const char *stderr_first_line; /* "%s" = the source root's tests/data */
} bad_cases[] = {
	{ "gate-pass.json", "gpuproj: gate: missing --baseline BASE.json" },
	{ "--baseline gate-base.json", "gpuproj: gate: missing CURRENT.json" },
	{ "--baseline gate-base.json gate-pass.json gate-fail.json",
	  "gpuproj: gate: expected one CURRENT.json, got 2 files" },
	{ "--baseline gate-base.json --max-regression -5 gate-pass.json",
	  "gpuproj: gate: --max-regression needs a non-negative percentage such as '5' or '5%', "
	  "got '-5'" },
	{ "--baseline gate-base.json --kernel-max-regression ten gate-pass.json",
	  "gpuproj: gate: --kernel-max-regression needs a non-negative percentage such as '5' or "
	  "'5%', got 'ten'" },
	/* Decimal only; before, strtod() read "0x10" as 16 (%). */
	{ "--baseline gate-base.json --kernel-max-regression 0x10 gate-pass.json",
	  "gpuproj: gate: --kernel-max-regression needs a non-negative percentage such as '5' or "
	  "'5%', got '0x10'" },
	{ "--baseline gate-base.json --min-time fast gate-pass.json",
	  "gpuproj: gate: --min-time needs a duration such as '50us' or a share of the run such "
	  "as '1%', got 'fast'" },
	{ "--baseline gate-base.json --noise-k -1 gate-pass.json",
	  "gpuproj: gate: --noise-k needs a non-negative number, got '-1'" },
	{ "--baseline gate-base.json --model nope gate-pass.json",
	  "gpuproj: gate: unknown model 'nope' (`gpuproj project --model list` lists them)" },
	{ "--baseline gate-base.json --bogus gate-pass.json", "gpuproj: gate: unknown option "
	  "'--bogus'" },
	{ "--baseline gate-base.json --target NoSuchGPU gate-pass.json",
	  "gpuproj: gate: target GPU 'NoSuchGPU' is not in targets.yaml" },
	{ "--baseline missing.json gate-pass.json",
	  "gpuproj: missing.json: cannot open: No such file or directory" },
	{ "--baseline gate-base.json targets-test.yaml",
	  "gpuproj: targets-test.yaml:1:1: JSON syntax error: '[' or '{' expected near '#'" },
	{ "--baseline gate-base.json profile-test.json --source NoSuchGPU",
	  "gpuproj: gate-base.json: baseline: source GPU 'NoSuchGPU' is not in targets.yaml" },
	{ "--baseline gate-base.json gate-othergpu.json",
	  "gpuproj: the baseline (gate-base.json) was measured on SrcGPU ('Test Source GPU') and "
	  "the current profile (gate-othergpu.json) on TgtGPU ('Test Target GPU'): measured times "
	  "of different GPUs are not comparable; measure the baseline on the same GPU, or pass "
	  "--allow-gpu-change to gate on projected times only" },
};

/* Bad usage or input: status 2, one clear line, and no report written. */
START_TEST(cli_bad_input_exit_2)
{
	const struct bad_case *c = &bad_cases[_i];
	char *dir = test_tmpdir(), *out, *err, *nl;

	ck_assert_int_eq(run(&out, &err, "%s --junit '%s/j.xml' --md '%s/s.md'", c->args, dir, dir),
			 2);
	ck_assert_str_eq(out, "");
	nl = strchr(err, '\n');
	ck_assert_ptr_nonnull(nl);
	*nl = '\0';
	ck_assert_msg(strncmp(err, c->stderr_first_line, strlen(c->stderr_first_line)) == 0,
		      "got: %s\nwanted: %s", err, c->stderr_first_line);
	ck_assert_int_eq(test_count_dir(dir), 0);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* A report that cannot be written: status 2, and the other report is not left behind. */
START_TEST(cli_unwritable_report)
{
	char *dir = test_tmpdir(), *out, *err;

	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json --junit '%s/j.xml' --md "
			     "'%s/no/such/dir/s.md' gate-fail.json", dir, dir), 2);
	ck_assert_str_eq(out, "");
	ck_assert_ptr_nonnull(strstr(err, "/no/such/dir/s.md: cannot create a temporary file "
				     "beside it: No such file or directory"));
	ck_assert_int_eq(test_count_dir(dir), 0);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * The gate's stdout is a CI log: a kernel named with a
 * carriage return and a fake verdict, a window title, a clipboard write,
 * a right-to-left override is shown escaped, never acted on.
 */
START_TEST(cli_names_escaped)
{
	static const char *const names[] = {
		"\\rgpuproj gate: PASS\\u001b]0;owned\\u0007\\u001b]52;c;cHduZWQ=\\u0007\\u202eevil",
	};
	char *dir = test_tmpdir(), *base, *cur, *out, *err;

	base = test_write_profile(dir, "base.json", names, 1, 100000);
	cur = test_write_profile(dir, "cur.json", names, 1, 120000);
	ck_assert_int_eq(test_cli(&out, &err, "gate --targets '%s' --model hroof --target TgtGPU "
				  "--baseline '%s' '%s'", test_data("targets-test.yaml"), base, cur), 1);
	test_assert_terminal_safe(out);
	test_assert_terminal_safe(err);
	ck_assert_msg(strstr(out, "\n  \\rgpuproj gate: PASS\\e]0;owned\\a\\e]52;c;cHduZWQ=\\a"
			     "\\u202eevil (1024x1x1,256x1x1) on SrcGPU (measured): 100 us -> 120 us "
			     "per launch") != NULL, "%s", out);
	free(out);
	free(err);
	free(base);
	free(cur);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* A profile with no timed kernel: exit 2, one line, no report. */
START_TEST(cli_nothing_timed)
{
	char *dir = test_tmpdir(), *out, *err, *cur, *text, *p;

	/* gate-pass.json with every duration gone: kernels launched, none timed. */
	text = test_read_file(test_data("gate-pass.json"));
	while ((p = strstr(text, "\"duration_ns\": {")) != NULL) {
		char *end = strchr(p, '}');

		memmove(p, "\"x\": 0", 6);
		memmove(p + 6, end + 1, strlen(end + 1) + 1);
	}
	cur = test_write_file(dir, "cur.json", text);
	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json '%s' --junit '%s/j.xml' "
			     "--md '%s/s.md'", cur, dir, dir), 2);
	ck_assert_str_eq(out, "");
	ck_assert_msg(strstr(err, "cur.json: the current profile has no timed kernel (6 kernel "
			     "signatures, 184 launches, none timed)") != NULL, "%s", err);
	ck_assert_ptr_nonnull(strstr(err, "nothing to compare, no verdict"));
	ck_assert_int_eq(test_count_dir(dir), 1);
	free(text);
	free(cur);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * --junit and --md naming one file (by name or through a
 * link) is refused, as report refuses it. Before: the Markdown replaced
 * the JUnit file, and CI read a report that was not XML.
 */
START_TEST(cli_one_file_two_reports)
{
	char *dir = test_tmpdir(), *out, *err, *link;

	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json gate-fail.json --junit '%s/r' "
			     "--md '%s/r'", dir, dir), 2);
	ck_assert_ptr_nonnull(strstr(err, "gpuproj: gate: --junit and --md name the same file '"));
	ck_assert_int_eq(test_count_dir(dir), 0);
	free(out);
	free(err);
	free(test_write_file(dir, "r.xml", ""));
	ck_assert_int_gt(asprintf(&link, "%s/r.md", dir), 0);
	ck_assert_int_eq(symlink("r.xml", link), 0);
	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json gate-fail.json --junit "
			     "'%s/r.xml' --md '%s'", dir, link), 2);
	ck_assert_ptr_nonnull(strstr(err, "--junit and --md name the same file"));
	free(link);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * Names with U+FFFE, U+FFFF and a control character give a
 * JUnit file an XML parser reads (python3's expat, where present).
 */
START_TEST(cli_junit_parses)
{
	static const char *const names[] = { "k\\ufffe\\uffff\\u0001x" };
	char *dir = test_tmpdir(), *base, *cur, *out, *err, *cmd;
	int rc;

	base = test_write_profile(dir, "base.json", names, 1, 100000);
	cur = test_write_profile(dir, "cur.json", names, 1, 120000);
	ck_assert_int_eq(test_cli(&out, &err, "gate --targets '%s' --model hroof --target TgtGPU "
				  "--baseline '%s' '%s' --junit '%s/j.xml'", test_data("targets-test.yaml"),
				  base, cur, dir), 1);
	free(out);
	free(err);
	ck_assert_int_gt(asprintf(&cmd, "command -v python3 >/dev/null || exit 77; python3 -c "
				  "\"import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])\" "
				  "'%s/j.xml'", dir), 0);
	rc = test_run(cmd, &out, &err);
	if (rc == 77)
		test_skip("python3 not found: the JUnit file was not parsed");
	else
		ck_assert_msg(rc == 0, "the JUnit file does not parse: %s", err);
	free(cmd);
	free(out);
	free(err);
	free(base);
	free(cur);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* -q prints no summary; the reports and the status stay. */
START_TEST(cli_quiet)
{
	char *dir = test_tmpdir(), *out, *err, *path, *x;

	ck_assert_int_eq(run(&out, &err, "--baseline gate-base.json -q --junit '%s/j.xml' "
			     "gate-fail.json", dir), 1);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "");
	ck_assert_int_gt(asprintf(&path, "%s/j.xml", dir), 0);
	x = test_read_file(path);
	ck_assert_ptr_nonnull(strstr(x, "failures=\"2\""));
	free(x);
	free(path);
	free(out);
	free(err);
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(cli_help)
{
	char *out, *err;

	ck_assert_int_eq(run(&out, &err, "--help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: gpuproj gate --baseline BASE.json [options] "
				     "CURRENT.json\n"));
	/* The one table (cli.h, cli-common.c), in the gate's words. */
	ck_assert_ptr_nonnull(strstr(out, "\n\nExit status: 0 pass; 1 a regression; 2 no "
				     "verdict: bad usage or input, an\nunknown GPU, different "
				     "source GPUs, a report that cannot be written (none "
				     "is\nwritten).\n"));
	free(out);
	free(err);
}
END_TEST

static Suite *
gate_suite(void)
{
	Suite *s = suite_create("gate");
	TCase *tc = tcase_create("compare");
	TCase *tr = tcase_create("reports");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, gate_pass_noise_small_new_vanished);
	tcase_add_test(tc, gate_fail_kernel_and_whole_run);
	tcase_add_test(tc, gate_thresholds_are_options);
	tcase_add_test(tc, gate_noise_band_narrows_with_launches);
	tcase_add_test(tc, gate_threshold_boundary);
	tcase_add_test(tc, gate_ignores_device_ordinal);
	tcase_add_test(tc, gate_gpu_change);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tr, setup, teardown);
	tcase_add_test(tr, kernel_label_format);
	tcase_add_test(tr, junit_xml);
	tcase_add_test(tr, findings_one_cause);
	tcase_add_test(tr, findings_changed_counters);
	tcase_add_test(tr, reports_escape_names);
	tcase_add_test(tr, markdown_summary);
	tcase_add_test(tr, markdown_capped);
	tcase_add_test(tr, gate_nothing_timed);
	suite_add_tcase(s, tr);
	return s;
}

static Suite *
gate_cli_suite(void)
{
	Suite *s = suite_create("gate-cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, cli_help);
	tcase_add_test(tc, cli_quiet);
	tcase_add_test(tc, cli_pass);
	tcase_add_test(tc, cli_fail_writes_reports);
	tcase_add_test(tc, cli_gpu_change);
	tcase_add_loop_test(tc, cli_bad_input_exit_2, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_test(tc, cli_unwritable_report);
	tcase_add_test(tc, cli_names_escaped);
	tcase_add_test(tc, cli_nothing_timed);
	tcase_add_test(tc, cli_one_file_two_reports);
	tcase_add_test(tc, cli_junit_parses);
	tcase_add_test(tc, cli_one_cause_json_junit);
	tcase_add_test(tc, cli_changed_counters_json);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	bool cli = argc > 1 && strcmp(argv[1], "cli") == 0;
	SRunner *sr = srunner_create(cli ? gate_cli_suite() : gate_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
