/* SPDX-License-Identifier: MIT */
/*
 * The gpuperfpredict importer on the real data set (suite 'validation'):
 * Amaris, Camargo, Cordeiro, Goldman, Trystram, A comparison of GPU
 * execution time prediction using machine learning and analytical modeling
 * (NCA 2016); data set marcosamaris/gpuperfpredict (CC BY 4.0). The CSVs
 * are read from ../shared/validation/gpuperfpredict (test_validation_dir());
 * they are never copied into the repository. When the directory is absent
 * the program says so ("SKIP: …" on stderr) and exits 77, which meson
 * reports as a skipped test.
 *
 * Targets: the repository's targets.yaml when present, else the test
 * fixture tests/data/targets-gpuperfpredict.yaml.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/validate.h>

#include "common.h"

static const char *const files[] = {
	"heartwall.csv", "hotspot.csv", "backprop_layerforward.csv", "backprop_adjust_weights.csv",
};
static const char *const labels[] = {
	"GTX-680", "Tesla-K20", "Tesla-K40", "Titan", "Quadro", "TitanX", "GTX-970", "GTX-980",
	"Tesla-P100",
};

static struct gpuproj_targets *targets;
static struct gpuproj_profile **profiles;
static size_t n_profiles;

static const char *
targets_path(void)
{
	static char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/targets.yaml", test_source_root());
	if (stat(path, &st) == 0)
		return path;
	return test_data("targets-gpuperfpredict.yaml");
}

static void
setup(void)
{
	const char *dir = test_validation_dir();
	char *paths[4];
	struct gpuproj_error err = { 0 };
	char buf[2048];
	size_t i;

	ck_assert_ptr_nonnull(dir); /* main() skips the suite otherwise */
	ck_assert_msg(gpuproj_targets_load(targets_path(), &targets, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	for (i = 0; i < 4; i++) {
		if (asprintf(&paths[i], "%s/%s", dir, files[i]) < 0)
			abort();
	}
	ck_assert_msg(gpuproj_import_gpuperfpredict((const char *const *)paths, 4, targets,
						    &profiles, &n_profiles, &err) == 0,
		      "%s", gpuproj_error_format(&err, buf, sizeof(buf)));
	for (i = 0; i < 4; i++)
		free(paths[i]);
}

static void
teardown(void)
{
	size_t i;

	for (i = 0; i < n_profiles; i++)
		gpuproj_profile_free(profiles[i]);
	free(profiles);
	profiles = NULL;
	n_profiles = 0;
	targets = gpuproj_targets_free(targets);
}

static struct gpuproj_profile *
profile_of(const char *label)
{
	size_t i;

	for (i = 0; i < n_profiles; i++) {
		if (strcmp(gpuproj_profile_device(profiles[i])->name, label) == 0)
			return profiles[i];
	}
	ck_abort_msg("no profile for %s", label);
	return NULL;
}

static struct gpuproj_kernel *
find(struct gpuproj_profile *p, const char *name, const char *tag, uint32_t gx, uint32_t gy,
     uint32_t bx, uint32_t by)
{
	struct gpuproj_signature sig = { .name = name, .tag = tag, .grid = { gx, gy, 1 },
					 .block = { bx, by, 1 } };
	struct gpuproj_kernel *k = gpuproj_profile_find(p, &sig);

	ck_assert_msg(k != NULL, "%s %s not imported", name, tag);
	return k;
}

START_TEST(counts_per_gpu)
{
	size_t i, j;

	/* README table: heartwall 85, hotspot 20, backprop 57 + 57 configurations × 9 GPUs. */
	ck_assert_uint_eq(n_profiles, 9);
	ck_assert_str_eq(gpuproj_profile_device(profiles[0])->name, "GTX-680"); /* first row */
	for (i = 0; i < 9; i++) {
		struct gpuproj_profile *p = profile_of(labels[i]);
		size_t heart = 0, hot = 0, fwd = 0, adj = 0;

		ck_assert_uint_eq(gpuproj_profile_count(p), 85 + 20 + 57 + 57);
		for (j = 0; j < gpuproj_profile_count(p); j++) {
			const char *n = gpuproj_profile_at(p, j)->name;

			heart += strcmp(n, "kernel") == 0;
			hot += strcmp(n, "calculate_temp") == 0;
			fwd += strcmp(n, "bpnn_layerforward_CUDA") == 0;
			adj += strcmp(n, "bpnn_adjust_weights_cuda") == 0;
		}
		ck_assert_uint_eq(heart, 85);
		ck_assert_uint_eq(hot, 20);
		ck_assert_uint_eq(fwd, 57);
		ck_assert_uint_eq(adj, 57);
		ck_assert_str_eq(gpuproj_profile_attr(p, "origin"), "gpuperfpredict");
		ck_assert_str_eq(gpuproj_profile_attr(p, "citation"),
				 GPUPROJ_CITATION_GPUPERFPREDICT);
		ck_assert_ptr_nonnull(strstr(gpuproj_profile_attr(p, "import.files"),
					     "heartwall.csv"));
		ck_assert_str_eq(gpuproj_profile_device(p)->target,
				 gpuproj_targets_match(targets, labels[i])->name);
	}
}
END_TEST

START_TEST(references_to_the_other_eight)
{
	size_t i, j, r;

	for (i = 0; i < n_profiles; i++) {
		const char *self = gpuproj_profile_device(profiles[i])->target;

		for (j = 0; j < gpuproj_profile_count(profiles[i]); j++) {
			const struct gpuproj_kernel *k = gpuproj_profile_at(profiles[i], j);

			ck_assert_uint_eq(k->n_refs, 8);
			ck_assert_ptr_null(gpuproj_kernel_reference(k, self));
			for (r = 0; r < 9; r++) {
				const char *name = gpuproj_targets_match(targets, labels[r])->name;

				if (strcmp(name, self) != 0)
					ck_assert_ptr_nonnull(gpuproj_kernel_reference(k, name));
			}
		}
	}
}
END_TEST

/*
 * hotspot.csv, row "Tesla-K40,calculate_temp,128,64,256,6,6,16,16,38,3072,
 * 5.666609374999996e-06,…" (Tesla-K40: CC 3.5, 15 SMX, warp 32), by hand:
 *   tag "input=64x256", grid 6×6×1, block 16×16×1, 38 registers, 3072 B
 *   launches 128; duration 5.666609374999996e-06 s = 5666.609375 ns (n = 128)
 *   inst.fp32.fma 119808, .add 28716, .mul 9572
 *   inst.fp64.fma = (95720 − 38288 − 0) / 2 = 28716, .add 38288, .mul 0
 *   inst.fp32 204176, inst.fp64 67004, inst.int 734528, inst.ldst 114372,
 *   inst.other = 154380 + 361716 = 516096, inst.warp 63864
 *   inst.thread = 204176 + 67004 + 734528 + 154380 + 114372 + 361716 = 1636176
 *   warp_efficiency = 1636176 / (32 × 63864) = 1636176 / 2043648 = 0.800615…
 *   t_prof = 32 × 2777.5625 / (10.623716078125003 GB/s × 1e9) = 8.366376e-6 s
 *   bytes.l1 = (9.638574539062498 + 2.6926811562499986) × 1e9 × t_prof = 103167.9 B
 *   bytes.l2 = 32 × (2777.5625 + 1175.7421875) = 32 × 3953.3046875 = 126505.75 B
 *   bytes.dram_read = 32 × 0 = 0; bytes.dram_write = 5.0031481484375e9 × t_prof
 *   = 41858.2 B = bytes.dram
 *   shared.wavefronts = (3144 + 1236) × 256 B / 128 B = 8760 (Kepler: 2 units per transaction)
 *   shared.bank_conflicts = (3144 − 3144) + (1236 − 1236) = 0
 *   occupancy.achieved 0.28726314843749995; cycles.sm_active = 54400.9921875 / 15 = 3626.7328125
 */
START_TEST(spot_check_k40_hotspot)
{
	struct gpuproj_kernel *k;
	const struct gpuproj_reference *r;

	k = find(profile_of("Tesla-K40"), "calculate_temp", "input=64x256", 6, 6, 16, 16);
	ck_assert_uint_eq(k->regs_per_thread, 38);
	ck_assert_uint_eq(k->smem_static, 3072);
	ck_assert_uint_eq(k->launches, 128);
	ck_assert_uint_eq(k->duration_ns.n, 128);
	ck_assert_double_eq_tol(gpuproj_kernel_mean_ns(k), 5666.609375, 1e-6);
	ck_assert_double_eq_tol(k->duration_ns.min, 5666.609375, 1e-6);
#define M(m, v, tol) ck_assert_double_eq_tol(gpuproj_kernel_metric(k, m), v, tol)
	M(GPUPROJ_M_INST_FP32_FMA, 119808, 1e-6);
	M(GPUPROJ_M_INST_FP32_ADD, 28716, 1e-6);
	M(GPUPROJ_M_INST_FP32_MUL, 9572, 1e-6);
	M(GPUPROJ_M_INST_FP64_FMA, 28716, 1e-6);
	M(GPUPROJ_M_INST_FP64_ADD, 38288, 1e-6);
	M(GPUPROJ_M_INST_FP64_MUL, 0, 1e-9);
	M(GPUPROJ_M_INST_FP32, 204176, 1e-6);
	M(GPUPROJ_M_INST_FP64, 67004, 1e-6);
	M(GPUPROJ_M_INST_INT, 734528, 1e-6);
	M(GPUPROJ_M_INST_LDST, 114372, 1e-6);
	M(GPUPROJ_M_INST_OTHER, 516096, 1e-6);
	M(GPUPROJ_M_INST_WARP, 63864, 1e-6);
	M(GPUPROJ_M_INST_THREAD, 1636176, 1e-6);
	M(GPUPROJ_M_WARP_EFFICIENCY, 1636176.0 / 2043648.0, 1e-12);
	M(GPUPROJ_M_BYTES_L1, 103167.9, 0.1);
	M(GPUPROJ_M_BYTES_L2, 126505.75, 1e-6);
	M(GPUPROJ_M_BYTES_DRAM_READ, 0, 1e-9);
	M(GPUPROJ_M_BYTES_DRAM_WRITE, 41858.2, 0.1);
	M(GPUPROJ_M_BYTES_DRAM, 41858.2, 0.1);
	M(GPUPROJ_M_SHARED_WAVEFRONTS, 8760, 1e-6);
	M(GPUPROJ_M_SHARED_BANK_CONFLICTS, 0, 1e-9);
	M(GPUPROJ_M_OCCUPANCY_ACHIEVED, 0.28726314843749995, 1e-12);
	M(GPUPROJ_M_CYCLES_SM_ACTIVE, 3626.7328125, 1e-6);
#undef M
	ck_assert(!gpuproj_kernel_has(k, GPUPROJ_M_INST_FP16_FMA));
	/* The same configuration on the P100: 3.015625 µs over 128 launches. */
	r = gpuproj_kernel_reference(k, gpuproj_targets_match(targets, "Tesla-P100")->name);
	ck_assert_ptr_nonnull(r);
	ck_assert_double_eq_tol(r->mean_ns, 3015.625, 1e-6);
	ck_assert_uint_eq(r->launches, 128);
}
END_TEST

START_TEST(static_smem_kib_on_gtx980_and_p100)
{
	/* Published as 3 and 11.59375 (KiB) for these two, 3072 and 11872 (B) for the others. */
	ck_assert_uint_eq(find(profile_of("Tesla-P100"), "calculate_temp", "input=64x256", 6, 6, 16,
			       16)->smem_static, 3072);
	ck_assert_uint_eq(find(profile_of("GTX-980"), "kernel", "input=20x0", 51, 1, 256, 1)
				  ->smem_static, 11872);
	ck_assert_uint_eq(find(profile_of("GTX-970"), "kernel", "input=20x0", 51, 1, 256, 1)
				  ->smem_static, 11872);
}
END_TEST

START_TEST(hroof_projects_every_configuration)
{
	struct gpuproj_validation v = { 0 };
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_validate((const struct gpuproj_profile *const *)profiles,
					  n_profiles, targets, NULL, &v, &err), 0);
	ck_assert_uint_eq(v.n_pairs, 72);
	ck_assert_uint_eq(v.n_comparisons, 72 * 219);
	ck_assert_uint_eq(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n_failed, 0);
	ck_assert_uint_eq(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].n, 72 * 219);
	ck_assert_uint_eq(v.n_citations, 1);
	ck_assert(isfinite(v.overall[0].stats[GPUPROJ_VSUBSET_ALL].mape_pct));
	gpuproj_validation_clear(&v);
}
END_TEST

/* The "(all)" row of MODEL in a `validate` table: n, MAPE and cover. */
static void
all_row(const char *table, const char *model, size_t *n, double *mape, double *cover)
{
	char key[32];
	const char *at;

	snprintf(key, sizeof(key), "\n%s (all) ", model);
	at = strstr(table, key);
	ck_assert_msg(at != NULL, "no %s (all) row in:\n%s", model, table);
	ck_assert_int_eq(sscanf(at + 1, "%*s (all) (all) %zu %*d %lf %*f %lf", n, mape, cover), 3);
}

/*
 * `validate --fit-assumptions` (what each assumption costs, docs/models.md
 * "Missing inputs") against plain validations of the same file: on
 * hotspot.csv every kernel has every input, so each row's evaluation cases
 * are the evaluation half by shape; its MAPE with the input is
 * `validate --holdout shape`'s, its MAPE without it and the built-in
 * coverage are `validate --drop INPUT --holdout shape`'s, its naive
 * column is naive's (all) MAPE of the same run, and the widening is
 * min(1, dropped lo / base lo), max(1, dropped hi / base hi) of its own
 * windows (read back from the JSON written).
 */
START_TEST(fit_assumptions_against_validate)
{
	char *d = test_tmpdir(), *csv, *json, *out, *err, *plain, *dropped, *text;
	const char *row;
	size_t n_fit, n_eval, n_plain, n_naive, n_drop;
	double lo, hi, mape, without, cover, widened, builtin, naive;
	double p_mape, p_cover, n_mape, n_cover, d_mape, d_cover;

	if (asprintf(&csv, "%s/hotspot.csv", test_validation_dir()) < 0 ||
	    asprintf(&json, "%s/a.json", d) < 0)
		abort();
	ck_assert_int_eq(test_cli(&out, &err, "validate --model hroof --model naive --coverage "
				  "0.85 --progress always --fit-assumptions '%s' '%s'", json, csv),
			 0);
	/* One progress over every run (the base, one per dropped input): it never goes back. */
	{
		size_t done, total, last = 0, total0 = 0, lines = 0;

		for (row = strstr(err, "gpuproj validate: "); row;
		     row = strstr(row + 1, "gpuproj validate: ")) {
			ck_assert_int_eq(sscanf(row, "gpuproj validate: %zu/%zu", &done, &total),
					 2);
			if (!lines++)
				total0 = total;
			ck_assert_uint_eq(total, total0);
			ck_assert_uint_ge(done, last);
			last = done;
		}
		ck_assert_uint_gt(lines, 1);
		ck_assert_uint_eq(last, total0);
	}
	free(err);
	ck_assert_int_eq(test_cli(&plain, &err, "validate --model hroof --model naive --holdout "
				  "shape '%s'", csv), 0);
	free(err);
	ck_assert_int_eq(test_cli(&dropped, &err, "validate --model hroof --drop shared "
				  "--holdout shape '%s'", csv), 0);
	all_row(plain, "hroof", &n_plain, &p_mape, &p_cover);
	all_row(plain, "naive", &n_naive, &n_mape, &n_cover);
	all_row(dropped, "hroof", &n_drop, &d_mape, &d_cover);
	ck_assert_uint_eq(n_plain, n_drop);
	/* Every row: the same evaluation cases, naive's MAPE beside. */
	for (row = strstr(out, "\nhroof "); row; row = strstr(row + 1, "\nhroof ")) {
		ck_assert_int_eq(sscanf(row + 1, "hroof %*s %*s %zu %lf %lf %zu %lf %lf %lf %lf "
					"%lf %lf", &n_fit, &lo, &hi, &n_eval, &mape, &without,
					&cover, &widened, &builtin, &naive), 10);
		ck_assert_uint_eq(n_eval, n_plain);
		ck_assert_double_eq_tol(mape, p_mape, 0.051);
		ck_assert_double_eq_tol(naive, n_mape, 0.051);
		ck_assert(lo <= 1 && hi >= 1);
	}
	row = strstr(out, "\nhroof      shared unbounded ");
	ck_assert_msg(row != NULL, "%s", out);
	ck_assert_int_eq(sscanf(row + 1, "hroof %*s %*s %zu %lf %lf %zu %lf %lf %lf %lf %lf %lf",
				&n_fit, &lo, &hi, &n_eval, &mape, &without, &cover, &widened,
				&builtin, &naive), 10);
	ck_assert_double_eq_tol(without, d_mape, 0.051);
	ck_assert_double_eq_tol(builtin, d_cover, 0.051);
	ck_assert_double_gt(without, mape); /* 41.9 → 44.5 % when measured */
	/* The JSON: the first factor is hroof's shared unbounded, its widening from its windows. */
	text = test_read_file(json);
	ck_assert_ptr_nonnull(text);
	{
		double bl, bh, dl, dh, jlo, jhi, jn;
		const char *f = strstr(text, "\"assumption\": \"shared unbounded\"");

		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(sscanf(strstr(f, "\"lo\": "), "\"lo\": %lf", &jlo), 1);
		ck_assert_int_eq(sscanf(strstr(f, "\"hi\": "), "\"hi\": %lf", &jhi), 1);
		ck_assert_int_eq(sscanf(strstr(f, "\"base\": "), "\"base\": [ %lf , %lf", &bl, &bh),
				 2);
		ck_assert_int_eq(sscanf(strstr(f, "\"dropped\": "), "\"dropped\": [ %lf , %lf", &dl,
					&dh), 2);
		ck_assert_int_eq(sscanf(strstr(f, "\"naive_mape_pct\": "),
					"\"naive_mape_pct\": %lf", &jn), 1);
		ck_assert_double_eq_tol(jlo, fmin(1, dl / bl), 1e-12);
		ck_assert_double_eq_tol(jhi, fmax(1, dh / bh), 1e-12);
		ck_assert_double_eq_tol(jlo, lo, 0.0005);
		ck_assert_double_eq_tol(jn, naive, 0.051);
	}
	free(text);
	free(out);
	free(err);
	free(plain);
	free(dropped);
	free(json);
	free(csv);
	test_rmtree(d);
	free(d);
}
END_TEST

static Suite *
import_suite(void)
{
	Suite *s = suite_create("import-gpuperfpredict");
	TCase *tc = tcase_create("dataset");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, counts_per_gpu);
	tcase_add_test(tc, references_to_the_other_eight);
	tcase_add_test(tc, spot_check_k40_hotspot);
	tcase_add_test(tc, static_smem_kib_on_gtx980_and_p100);
	tcase_add_test(tc, hroof_projects_every_configuration);
	tcase_add_test(tc, fit_assumptions_against_validate);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	if (!test_validation_dir()) {
		test_skip("../shared/validation/gpuperfpredict is absent (set "
			  "GPUPROJ_VALIDATION_DIR to check the gpuperfpredict import)");
		return 77;
	}
	sr = srunner_create(import_suite());

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
