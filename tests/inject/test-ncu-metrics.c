/* SPDX-License-Identifier: MIT */
/*
 * `gpuproj ncu-metrics` against the real CUPTI profiler host API, no GPU
 * (as test-cupti-host.c): on every chip the host API resolves, each
 * hardware metric of gpuproj_ncu_metrics_tensor(chip, ops) is a valid
 * metric name for that chip, and for every logical metric the default
 * model needs, and every tensor metric, it is exactly the candidate
 * libproj.so resolves there (include/gpuproj/nvmetrics.h): the command collects
 * what the injection collects, and nothing else. The launch__* and
 * device__* names are launch and device attributes, not counters; the host
 * API does not list them.
 *
 * Skips (exit 77, with a message) when libcupti.so.13 cannot be loaded.
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>

#include "cupti-host.h"
#include "metrics-nvpw.h"
#include "target-chips.h"

/*
 * Every chip the command knows that the host API resolves: those of the
 * chip table (src/target-chips.c) with every name (not GH200, a name of ncu
 * only, which takes GH100's names).
 */
static const char *
chip_at(size_t i)
{
	const struct target_chip *c = target_chip_at(i);

	return c->cupti == TARGET_CHIP_CUPTI_FULL && gpuproj_ncu_chip_known(c->name) ? c->name
										       : NULL;
}

/* The logical metrics behind the default model's inputs (model.h, hroof_needs). */
static const enum gpuproj_metric needed[] = {
	GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL,
	GPUPROJ_M_INST_FP32_FMA, GPUPROJ_M_INST_FP32_ADD, GPUPROJ_M_INST_FP32_MUL,
	GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL,
	GPUPROJ_M_WARP_EFFICIENCY, GPUPROJ_M_BYTES_L1, GPUPROJ_M_BYTES_L2,
	GPUPROJ_M_BYTES_DRAM_READ, GPUPROJ_M_BYTES_DRAM_WRITE, GPUPROJ_M_SHARED_WAVEFRONTS,
};

static bool
valid_host(void *ud, const char *name)
{
	return inj_host_metric_valid(ud, NULL, name, NULL);
}

static bool
listed(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(names[i], name) == 0)
			return true;
	}
	return false;
}

START_TEST(names_valid_and_as_resolved)
{
	const char *chip = chip_at(_i), *names[64], *hw[64];
	struct inj_metric_set *set = NULL;
	struct inj_host *h = NULL;
	uint8_t *image = NULL;
	size_t n = gpuproj_ncu_metrics_tensor(chip, GPUPROJ_TENSOR_OPS, names, 64), n_hw = 0, i, t;
	size_t size = 0, passes = 0;
	int status = 0;

	if (!chip)
		return;
	ck_assert_uint_le(n, 64);
	for (i = 0; i < n; i++) {
		if (strncmp(names[i], "launch__", 8) == 0 || strncmp(names[i], "device__", 8) == 0)
			continue;
		ck_assert_msg(inj_host_metric_valid(chip, NULL, names[i], &status),
			      "%s: %s is not a metric of this chip (status %d)", chip, names[i],
			      status);
		hw[n_hw++] = names[i];
	}
	ck_assert_int_eq(inj_metrics_resolve(chip, GPUPROJ_TENSOR_OPS, valid_host, (void *)chip,
					     &set), 0);
	for (i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		const char *expr = set->map[needed[i]].expr;

		ck_assert_ptr_nonnull(expr);
		ck_assert_msg(listed(names, n, expr), "%s: libproj.so collects %s for %s; "
			      "gpuproj ncu-metrics does not", chip, expr,
			      gpuproj_metric_name(needed[i]));
	}
	ck_assert(listed(names, n, INJ_DURATION_METRIC));
	/* Every term of every tensor metric libproj.so resolves, and no other tensor counter. */
	for (i = 0; i < GPUPROJ_M_COUNT; i++) {
		const struct inj_metric_map *map = &set->map[i];

		if (!gpuproj_tensor_candidates(GPUPROJ_TENSOR_OPS, (enum gpuproj_metric)i, NULL))
			continue;
		for (t = 0; map->expr && t < map->n_terms; t++)
			ck_assert_msg(listed(names, n, set->names[map->term[t]]), "%s: libproj.so "
				      "collects %s for %s; gpuproj ncu-metrics does not", chip,
				      set->names[map->term[t]],
				      gpuproj_metric_name((enum gpuproj_metric)i));
	}
	/* Nor anything libproj.so does not collect. */
	for (i = 0; i < n_hw; i++)
		ck_assert_msg(listed(set->names, set->n_names, hw[i]), "%s: gpuproj ncu-metrics "
			      "asks for %s, which libproj.so does not collect", chip, hw[i]);
	/* How many replay passes ncu will need (printed, not checked). */
	ck_assert_int_eq(inj_host_new(chip, NULL, &h), 0);
	ck_assert_int_eq(inj_host_config(h, hw, n_hw, &image, &size, &passes), 0);
	printf("%s: %zu metrics (%zu counters), %zu pass(es)\n", chip, n, n_hw, passes);
	fflush(stdout);
	free(image);
	inj_host_free(h);
	inj_metrics_free(set);
}
END_TEST

int
main(void)
{
	const char *path = getenv("INJECT_REAL_CUPTI"), *missing = NULL;
	void *libcupti;
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed;

#if defined(__SANITIZE_ADDRESS__)
	/* As test-cupti-host.c: libcupti loads libnvperf_host with RTLD_DEEPBIND. */
	fprintf(stderr, "SKIP: the real libcupti cannot run under AddressSanitizer (it loads "
		"libnvperf_host.so with RTLD_DEEPBIND); the non-sanitizer build runs this test\n");
	(void)path;
	(void)missing;
	(void)libcupti;
	return 77;
#endif
	libcupti = dlopen(path && *path ? path : "libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!libcupti) {
		fprintf(stderr, "SKIP: cannot load libcupti.so.13 (%s): the host API check needs "
			"the CUDA toolkit's CUPTI\n", dlerror());
		return 77;
	}
	if (inj_host_load(libcupti, &missing) != 0) {
		fprintf(stderr, "SKIP: libcupti.so.13 has no profiler host API (%s missing)\n",
			missing);
		return 77;
	}
	s = suite_create("ncu-metrics");
	tc = tcase_create("host");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, names_valid_and_as_resolved, 0, target_chip_count());
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
