/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI Profiler Host API and the NVPW host library, real ones, no GPU
 * ([CUPTI-TEST] [P]): every logical metric of docs/internals/DESIGN.md §3 resolves from
 * its candidate list on GV100, TU102, GA100, GA102, GH100, AD102, GB100 and
 * GB202; the config image builds; the pass count is printed and checked
 * against the value recorded with libcupti 13.0 (API 130001); the chip
 * differences the candidates exist for are the ones expected (GB202's
 * dram__bytes_op_*, no uniform datapath on GV100). GV100 also goes through
 * the legacy NVPW path libproj.so uses there.
 *
 * Skips (exit 77, with a message) when libcupti.so.13 cannot be loaded.
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvpw.h"
#include "cupti-host.h"
#include "metrics-nvpw.h"

#include <gpuproj/nvmetrics.h>
#include <gpuproj/tensor.h>

#include "target-chips.h"

/*
 * Pass counts of the full metric set per GPUPROJ_TENSOR mode (ops, inst,
 * off), recorded with libcupti 13.0 (130001); off is the set before the
 * tensor metrics (docs/internals/injection.md "Replay passes").
 */
static const struct {
	const char *chip;
	size_t names[GPUPROJ_TENSOR_MODE_COUNT]; /* NVPW names (incl. gpu__time_duration.sum) */
	size_t passes[GPUPROJ_TENSOR_MODE_COUNT]; /* range profiler host API */
} chips[] = {
	{ "GV100", { 40, 39, 36 }, { 4, 4, 3 } },
	{ "TU102", { 42, 41, 37 }, { 4, 4, 3 } },
	{ "GA100", { 50, 43, 37 }, { 8, 3, 3 } },
	{ "GA102", { 50, 42, 37 }, { 8, 3, 3 } },
	{ "GH100", { 46, 43, 37 }, { 8, 3, 3 } },
	{ "AD102", { 52, 42, 37 }, { 8, 3, 3 } },
	{ "GB100", { 48, 40, 37 }, { 5, 3, 3 } },
	{ "GB202", { 50, 42, 37 }, { 6, 3, 3 } },
};
/* Legacy NVPW scheduler (libnvperf_host 13.0) for the ops set on GV100. */
#define GV100_LEGACY_PASSES 4

static void *libcupti;
static unsigned version;

static bool
valid_host(void *ud, const char *name)
{
	return inj_host_metric_valid(ud, NULL, name, NULL);
}

static bool
valid_nvpw(void *ud, const char *name)
{
	return inj_nvpw_metric_valid(ud, name);
}

START_TEST(chip_resolves)
{
	const char *chip = chips[_i].chip;
	struct inj_metric_set *set = NULL;
	struct inj_host *h = NULL;
	uint8_t *image = NULL;
	size_t size = 0, passes = 0, m;
	enum gpuproj_tensor_mode mode;
	int r;

	ck_assert_int_eq(inj_metrics_resolve(chip, GPUPROJ_TENSOR_OPS, valid_host, (void *)chip,
					     &set), 0);
	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		enum gpuproj_metric lm = (enum gpuproj_metric)m;

		/* Tensor metrics: the precisions the chip has (tensor_table_matches_host). */
		if (gpuproj_tensor_candidates(GPUPROJ_TENSOR_OPS, lm, NULL))
			continue;
		ck_assert_msg(set->map[m].expr != NULL ||
			      inj_metrics_candidate_count(GPUPROJ_TENSOR_OPS, lm) == 0,
			      "%s: %s resolves to no candidate", chip, gpuproj_metric_name(lm));
	}
	/* The tensor counters are those the core's table predicts for the chip. */
	{
		const char *tnames[64];
		size_t nt = gpuproj_tensor_metric_names(chip, GPUPROJ_TENSOR_OPS, tnames, 64), i, j;

		ck_assert_uint_gt(nt, 0);
		for (i = 0; i < nt; i++) {
			bool in = false;

			for (j = 0; j < set->n_names; j++)
				in = in || strcmp(set->names[j], tnames[i]) == 0;
			ck_assert_msg(in, "%s: the table predicts %s, the host API refuses it",
				      chip, tnames[i]);
		}
	}
	ck_assert_uint_ne(set->duration_index, SIZE_MAX);
	r = inj_host_new(chip, NULL, &h);
	ck_assert_int_eq(r, 0);
	r = inj_host_config(h, set->names, set->n_names, &image, &size, &passes);
	ck_assert_msg(r == 0, "%s: config image: CUptiResult %d", chip, r);
	ck_assert_uint_gt(size, 0);
	printf("%s: %zu metrics, config image %zu B, %zu pass(es) (CUPTI API %u)\n", chip,
	       set->n_names, size, passes, version);
	fflush(stdout);
	ck_assert_uint_eq(set->n_names, chips[_i].names[GPUPROJ_TENSOR_OPS]);
	if (version == 130001)
		ck_assert_msg(passes == chips[_i].passes[GPUPROJ_TENSOR_OPS],
			      "%s: %zu passes, recorded %zu", chip, passes,
			      chips[_i].passes[GPUPROJ_TENSOR_OPS]);

	/* The differences the candidate lists exist for. */
	/* The same chip in the cheaper modes. */
	for (mode = GPUPROJ_TENSOR_INST; mode < GPUPROJ_TENSOR_MODE_COUNT; mode++) {
		struct inj_metric_set *ms = NULL;
		struct inj_host *mh = NULL;
		uint8_t *mi = NULL;
		size_t msize = 0, mpasses = 0;

		ck_assert_int_eq(inj_metrics_resolve(chip, mode, valid_host, (void *)chip, &ms), 0);
		ck_assert_int_eq(inj_host_new(chip, NULL, &mh), 0);
		ck_assert_int_eq(inj_host_config(mh, ms->names, ms->n_names, &mi, &msize,
						 &mpasses), 0);
		printf("%s GPUPROJ_TENSOR=%s: %zu metrics, %zu pass(es)\n", chip,
		       gpuproj_tensor_mode_name(mode), ms->n_names, mpasses);
		fflush(stdout);
		ck_assert_uint_eq(ms->n_names, chips[_i].names[mode]);
		if (version == 130001)
			ck_assert_msg(mpasses == chips[_i].passes[mode], "%s %s: %zu passes, "
				      "recorded %zu", chip, gpuproj_tensor_mode_name(mode), mpasses,
				      chips[_i].passes[mode]);
		free(mi);
		inj_host_free(mh);
		inj_metrics_free(ms);
	}
	if (strcmp(chip, "GB202") == 0) {
		ck_assert_str_eq(set->map[GPUPROJ_M_BYTES_DRAM_READ].expr, "dram__bytes_op_read.sum");
		ck_assert_str_eq(set->map[GPUPROJ_M_BYTES_DRAM_WRITE].expr,
				 "dram__bytes_op_write.sum");
	} else {
		ck_assert_str_eq(set->map[GPUPROJ_M_BYTES_DRAM_READ].expr, "dram__bytes_read.sum");
	}
	if (strcmp(chip, "GV100") == 0)
		ck_assert_ptr_null(strstr(set->map[GPUPROJ_M_INST_OTHER].expr, "uniform"));
	else
		ck_assert_ptr_nonnull(strstr(set->map[GPUPROJ_M_INST_OTHER].expr, "uniform"));
	free(image);
	inj_host_free(h);
	inj_metrics_free(set);
}
END_TEST

/*
 * The chips of the chip table (src/target-chips.c) the host API lists and
 * initialises: every chip of the tensor table but GV11B, which
 * cuptiProfilerHostInitialize refuses.
 */
static const struct target_chip *
host_chip(size_t i)
{
	const struct target_chip *c = target_chip_at(i);
	bool up = c->cupti == TARGET_CHIP_CUPTI_FULL || c->cupti == TARGET_CHIP_CUPTI_NO_DRAM;

	return up ? c : NULL;
}

/*
 * The params of cuptiProfilerHostGetSupportedChips (cupti_profiler_host.h
 * of CUDA 13.0, CUpti_Profiler_Host_GetSupportedChips_Params: structSize,
 * pPriv "Assign to NULL", [out] numChips, [out] ppChipNames; the
 * _STRUCT_SIZE ends at ppChipNames), spelled here because that header is
 * C++ only.
 */
struct host_supported_chips {
	size_t structSize;
	void *pPriv;
	size_t numChips;
	const char *const *ppChipNames;
};

/*
 * The chip table lists what the host API lists, both ways (with API
 * 130001; another version may list chips this one does not, which are
 * printed): a chip NVIDIA adds, or one added to the table that the host
 * API does not know, fails here by name.
 */
START_TEST(host_chip_list)
{
	struct host_supported_chips p = { sizeof(p), NULL, 0, NULL };
	int (*get)(struct host_supported_chips *);
	void *sym = dlsym(libcupti, "cuptiProfilerHostGetSupportedChips");
	size_t i, j;

	ck_assert_ptr_nonnull(sym);
	memcpy(&get, &sym, sizeof(sym));
	ck_assert_int_eq(get(&p), 0);
	ck_assert_ptr_nonnull(p.ppChipNames);
	printf("host API: %zu chips\n", p.numChips);
	for (i = 0; i < p.numChips; i++) {
		const struct target_chip *c = target_chip_find(p.ppChipNames[i]);
		bool listed = c && (c->cupti == TARGET_CHIP_CUPTI_FULL ||
				    c->cupti == TARGET_CHIP_CUPTI_NO_DRAM ||
				    c->cupti == TARGET_CHIP_CUPTI_REFUSED);

		if (version == 130001)
			ck_assert_msg(listed, "the host API lists %s; src/target-chips.c does not "
				      "(as a chip of the host API)", p.ppChipNames[i]);
		else if (!listed)
			printf("note: the host API lists %s, src/target-chips.c does not\n",
			       p.ppChipNames[i]);
	}
	for (j = 0; j < target_chip_count(); j++) {
		const struct target_chip *c = target_chip_at(j);
		bool found = false;

		if (c->cupti != TARGET_CHIP_CUPTI_FULL && c->cupti != TARGET_CHIP_CUPTI_NO_DRAM &&
		    c->cupti != TARGET_CHIP_CUPTI_REFUSED)
			continue;
		for (i = 0; i < p.numChips; i++)
			found = found || strcmp(p.ppChipNames[i], c->name) == 0;
		ck_assert_msg(found, "src/target-chips.c has %s as a chip of the host API, which "
			      "does not list it", c->name);
	}
}
END_TEST

/*
 * The core's tensor counter table (src/tensor.c) is what the host API
 * says, both ways, on every chip it initialises (host_chip()): each base
 * name of the table and its _realtime and _sparsity_on twins, as ".sum".
 */
START_TEST(tensor_table_matches_host)
{
	static const char *const twins[] = { "", "_realtime", "_sparsity_on" };
	const char *chip, *bases[64];
	size_t nb = gpuproj_tensor_counter_names(bases, 64), b, t, yes = 0;

	if (!host_chip(_i))
		return;
	chip = host_chip(_i)->name;
	ck_assert(gpuproj_tensor_chip_known(chip));
	for (b = 0; b < nb; b++) {
		for (t = 0; t < sizeof(twins) / sizeof(twins[0]); t++) {
			char name[160];
			bool host, table;

			snprintf(name, sizeof(name), "%s%s.sum", bases[b], twins[t]);
			host = inj_host_metric_valid(chip, NULL, name, NULL);
			table = gpuproj_tensor_counter_exists(chip, name);
			ck_assert_msg(host == table, "%s: %s: host API %s, table %s", chip, name,
				      host ? "has it" : "refuses it", table ? "has it" : "not");
			yes += host;
		}
	}
	printf("%s: %zu tensor counters (with twins) of the table\n", chip, yes);
	fflush(stdout);
}
END_TEST

/*
 * The core's NVIDIA name table (include/gpuproj/nvmetrics.h) records which
 * chips lack a candidate's names, for `gpuproj ncu-metrics`, which has no
 * host API: on every chip of that table (the host API's chips but the
 * integrated GA10B, GB10B, GB20B, which have no DRAM counters), the
 * candidate the host API picks for each logical metric is the one the
 * recorded restrictions pick.
 */
START_TEST(nv_table_matches_host)
{
	const char *chip = host_chip(_i) ? host_chip(_i)->name : NULL;
	struct inj_metric_set *set = NULL;
	size_t m, checked = 0;

	if (!chip || !gpuproj_nv_chip_known(chip))
		return;
	ck_assert_int_eq(inj_metrics_resolve(chip, GPUPROJ_TENSOR_OFF, valid_host, (void *)chip,
					     &set), 0);
	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		enum gpuproj_metric lm = (enum gpuproj_metric)m;
		const struct gpuproj_nv_candidate *c = gpuproj_nv_candidate_on_chip(lm, chip);

		if (!gpuproj_nv_candidates(lm, NULL))
			continue;
		ck_assert_msg(c && set->map[m].expr && strcmp(c->expr, set->map[m].expr) == 0,
			      "%s: %s: the host API picks %s, the table's restrictions %s", chip,
			      gpuproj_metric_name(lm), set->map[m].expr ? set->map[m].expr : "none",
			      c ? c->expr : "none");
		checked++;
	}
	ck_assert_uint_gt(checked, 20);
	inj_metrics_free(set);
}
END_TEST

START_TEST(unknown_chip_and_metric)
{
	struct inj_host *h = NULL;
	int status = 0;

	ck_assert_int_eq(inj_host_new("gh100", NULL, &h), 46); /* CUPTI_ERROR_INVALID_CHIP_NAME */
	ck_assert_ptr_null(h);
	ck_assert(!inj_host_metric_valid("GH100", NULL, "dram__bytes", &status));
	ck_assert_int_eq(status, 1); /* bare base names need a rollup */
	ck_assert(!inj_host_metric_valid("GH100", NULL, "bogus__metric.sum", &status));
	ck_assert(inj_host_metric_valid("GH100", NULL, "dram__bytes.sum", &status));
}
END_TEST

START_TEST(gv100_legacy_nvpw)
{
	struct inj_metric_set *set = NULL, *host_set = NULL;
	struct inj_nvpw *n = NULL;
	const char *why = NULL;
	size_t passes = 0, size = 0, m;
	int r;

	if (inj_nvpw_load(&why) != 0) {
		fprintf(stderr, "SKIP: %s\n", why);
		return;
	}
	r = inj_nvpw_new("GV100", NULL, &n);
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(inj_metrics_resolve("GV100", GPUPROJ_TENSOR_OPS, valid_nvpw, n, &set), 0);
	ck_assert_int_eq(inj_metrics_resolve("GV100", GPUPROJ_TENSOR_OPS, valid_host,
					     (void *)"GV100", &host_set), 0);
	/* Both libraries agree on every choice. */
	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		if (!host_set->map[m].expr) {
			ck_assert_ptr_null(set->map[m].expr);
			continue;
		}
		ck_assert_ptr_nonnull(set->map[m].expr);
		ck_assert_str_eq(set->map[m].expr, host_set->map[m].expr);
	}
	r = inj_nvpw_config(n, set->names, set->n_names, &passes);
	ck_assert_msg(r == 0, "NVPW config: %s", inj_nvpw_status_name(r));
	ck_assert_ptr_nonnull(inj_nvpw_config_image(n, &size));
	ck_assert_uint_gt(size, 0);
	ck_assert_ptr_nonnull(inj_nvpw_prefix(n, &size));
	ck_assert_uint_gt(size, 0);
	printf("GV100 (legacy NVPW): %zu metrics, %zu pass(es)\n", set->n_names, passes);
	fflush(stdout);
	if (version == 130001)
		ck_assert_uint_eq(passes, GV100_LEGACY_PASSES);
	inj_nvpw_free(n);
	inj_nvpw_unload();
	inj_metrics_free(set);
	inj_metrics_free(host_set);
}
END_TEST

static int
run_tests(void)
{
	const char *path = getenv("INJECT_REAL_CUPTI");
	const char *missing = NULL;
	unsigned (*get_version)(unsigned *);
	void *sym;
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed;

	libcupti = dlopen(path && *path ? path : "libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!libcupti) {
		fprintf(stderr, "SKIP: cannot load libcupti.so.13 (%s): host API tests need the CUDA "
			"toolkit's CUPTI\n", dlerror());
		return 77;
	}
	sym = dlsym(libcupti, "cuptiGetVersion");
	if (sym) {
		memcpy(&get_version, &sym, sizeof(sym));
		get_version(&version);
	}
	if (inj_host_load(libcupti, &missing) != 0) {
		fprintf(stderr, "SKIP: libcupti.so.13 has no profiler host API (%s missing)\n",
			missing);
		return 77;
	}
	if (version != 130001)
		fprintf(stderr, "note: CUPTI API %u, not 130001: pass counts printed, not checked\n",
			version);
	s = suite_create("cupti-host");
	tc = tcase_create("host");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, chip_resolves, 0, sizeof(chips) / sizeof(chips[0]));
	tcase_add_test(tc, host_chip_list);
	tcase_add_loop_test(tc, tensor_table_matches_host, 0, target_chip_count());
	tcase_add_loop_test(tc, nv_table_matches_host, 0, target_chip_count());
	tcase_add_test(tc, unknown_chip_and_metric);
	tcase_add_test(tc, gv100_legacy_nvpw);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

static bool
address_sanitizer(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#else
	return false;
#endif
}

int
main(void)
{
	if (address_sanitizer()) {
		/* libcupti dlopen()s libnvperf_host with RTLD_DEEPBIND, which ASan refuses. */
		fprintf(stderr, "SKIP: the real libcupti cannot run under AddressSanitizer (it "
			"loads libnvperf_host.so with RTLD_DEEPBIND); the non-sanitizer build runs "
			"this test\n");
		return 77;
	}
	return run_tests();
}
