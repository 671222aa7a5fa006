/* SPDX-License-Identifier: MIT */
/*
 * The chip and architecture table (src/target-chips.c) against every table
 * that holds a chip: the NVIDIA metric names (nvmetrics.c) and the tensor
 * counters (tensor.c), which take their chip lists from it and must agree
 * with each other except where a chip's CUPTI status says why; the chip
 * restrictions of the metric names; the built-in targets.yaml (each
 * entry's chip, its compute capability or gfx target, its FMA lanes). A
 * chip added in one of these places and missed in another fails here,
 * naming the chip.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/nvmetrics.h>
#include <gpuproj/target.h>
#include <gpuproj/tensor.h>

#include "target-chips.h"

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

/* Each chip has an architecture; names are unique; the bench's dies are consistent. */
START_TEST(chips_have_architectures)
{
	size_t i, j, n = target_chip_count();

	ck_assert_ptr_null(target_chip_at(n));
	for (i = 0; i < n; i++) {
		const struct target_chip *c = target_chip_at(i);
		const struct target_arch *a = target_chip_arch(c);
		size_t dies = 0, in_family = 0;

		ck_assert_msg(a && a->generation, "%s has no architecture row", c->name);
		ck_assert_msg(a->vendor == c->vendor, "%s: vendor of its architecture", c->name);
		ck_assert_msg((c->vendor == GPUPROJ_VENDOR_AMD) == (c->gfx != NULL), "%s", c->name);
		ck_assert_ptr_eq(target_chip_find(c->name), c);
		for (j = 0; j < n; j++) {
			const struct target_chip *o = target_chip_at(j);

			ck_assert_msg(j == i || strcasecmp(o->name, c->name) != 0, "%s twice",
				      c->name);
			if (o->vendor != GPUPROJ_VENDOR_NVIDIA ||
			    c->vendor != GPUPROJ_VENDOR_NVIDIA || o->cc_major != c->cc_major ||
			    o->cc_minor != c->cc_minor)
				continue;
			dies += o->bench_die;
			if (a->family && a->cc_minor == c->cc_minor &&
			    strncmp(o->name, a->family, strlen(a->family) - 1) == 0)
				in_family++;
		}
		if (c->vendor != GPUPROJ_VENDOR_NVIDIA)
			continue;
		/* At most one die per CC, none where the CC has a family of several. */
		ck_assert_msg(dies <= 1, "CC %d.%d has %zu bench dies", c->cc_major, c->cc_minor,
			      dies);
		if (a->cc_minor == c->cc_minor && a->family) {
			ck_assert_msg(dies == 0, "CC %d.%d has a family and a die", c->cc_major,
				      c->cc_minor);
			ck_assert_msg(in_family >= 2, "family %s of CC %d.%d names %zu chips",
				      a->family, c->cc_major, c->cc_minor, in_family);
		}
		if (c->bench_die)
			ck_assert_msg(c->cupti == TARGET_CHIP_CUPTI_FULL, "%s", c->name);
		/* The CUPTI 13 profiler supports Volta and later only. */
		ck_assert_msg((c->cupti == TARGET_CHIP_CUPTI_NONE) == (c->cc_major < 7), "%s",
			      c->name);
	}
	ck_assert_ptr_null(target_chip_find(NULL));
	ck_assert_ptr_null(target_chip_find("GB300"));
	ck_assert_str_eq(target_chip_find("ga102")->name, "GA102");
}
END_TEST

/*
 * The NVIDIA metric names and the tensor counters know the same chips but
 * where the CUPTI status says why not: the tensor table has every chip the
 * host API lists (30: GV100 GV11B, TU102 TU104 TU106 TU116 TU117, GA100,
 * GA102 GA103 GA104 GA106 GA107, GA10B, AD102 … AD107 (5), GH100, GB100
 * GB102, GB110, GB10B, GB202 GB203 GB205 GB206 GB207, GB20B), the name
 * table those it resolves (30 - GV11B refused - GA10B GB10B GB20B without
 * DRAM counters = 26) and GH200, a name ncu reports: 27.
 */
START_TEST(name_and_tensor_tables_agree)
{
	size_t i, n_nv = 0, n_tensor = 0;
	char differ[256] = "";

	for (i = 0; i < target_chip_count(); i++) {
		const struct target_chip *c = target_chip_at(i);
		bool nv = gpuproj_nv_chip_known(c->name);
		bool tensor = gpuproj_tensor_chip_known(c->name);
		int major = -1, minor = -1;
		const char *why = NULL;

		switch (c->cupti) {
		case TARGET_CHIP_CUPTI_NONE:
			ck_assert_msg(!nv && !tensor, "%s: not a CUPTI 13 chip, yet known",
				      c->name);
			break;
		case TARGET_CHIP_CUPTI_FULL:
			ck_assert_msg(nv && tensor, "%s: the host API resolves it, but the %s "
				      "table lacks it", c->name, nv ? "tensor" : "NVIDIA name");
			break;
		case TARGET_CHIP_CUPTI_NO_DRAM:
			why = "no DRAM counters";
			break;
		case TARGET_CHIP_CUPTI_REFUSED:
			why = "refused by cuptiProfilerHostInitialize";
			break;
		case TARGET_CHIP_CUPTI_NCU_NAME:
			ck_assert_msg(nv && !tensor, "%s: a name of ncu only", c->name);
			why = "a name of ncu, not of the host API";
			break;
		}
		if (c->cupti == TARGET_CHIP_CUPTI_NO_DRAM || c->cupti == TARGET_CHIP_CUPTI_REFUSED)
			ck_assert_msg(!nv && tensor, "%s: %s: tensor table only", c->name, why);
		if (why) {
			printf("%s: %s table only (%s)\n", c->name, nv ? "name" : "tensor", why);
			snprintf(differ + strlen(differ), sizeof(differ) - strlen(differ), "%s%s",
				 *differ ? " " : "", c->name);
		}
		if (tensor) {
			ck_assert(gpuproj_tensor_chip_cc(c->name, &major, &minor));
			ck_assert_msg(major == c->cc_major && minor == c->cc_minor,
				      "%s: CC %d.%d in the tensor table, %d.%d in the chip table",
				      c->name, major, minor, c->cc_major, c->cc_minor);
		}
		n_nv += nv;
		n_tensor += tensor;
	}
	ck_assert_uint_eq(n_tensor, 30);
	ck_assert_uint_eq(n_nv, 27);
	ck_assert_str_eq(differ, "GV11B GA10B GH200 GB10B GB20B");
	ck_assert(!gpuproj_nv_chip_known("GB300") && !gpuproj_tensor_chip_known("GB300"));
	ck_assert(!gpuproj_nv_chip_known(NULL) && !gpuproj_tensor_chip_known(NULL));
	ck_assert(gpuproj_nv_chip_known("gb202") && gpuproj_tensor_chip_known("gb202"));
}
END_TEST

/* Every chip a candidate of the name table is restricted to or from is one it knows. */
START_TEST(name_restrictions_name_known_chips)
{
	size_t m, i, words = 0;

	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		const struct gpuproj_nv_candidate *c;
		size_t n = gpuproj_nv_candidates((enum gpuproj_metric)m, &c);

		for (i = 0; i < 2 * n; i++) {
			const char *list = i % 2 ? c[i / 2].only_on : c[i / 2].not_on;
			char word[32];
			size_t w;

			while (list && *list) {
				w = strcspn(list, " ");
				ck_assert_uint_lt(w, sizeof(word));
				memcpy(word, list, w);
				word[w] = '\0';
				ck_assert_msg(gpuproj_nv_chip_known(word),
					      "%s: '%s' is not a chip of the name table",
					      gpuproj_metric_name((enum gpuproj_metric)m), word);
				words++;
				list += w;
				list += strspn(list, " ");
			}
		}
	}
	/*
	 * GV100 once (INST_OTHER's first candidate, not_on), DRAM_OP_CHIPS' five
	 * chips four times (DRAM read and write: not_on of one candidate, only_on
	 * of the other).
	 */
	ck_assert_uint_eq(words, 1 + 4 * 5);
}
END_TEST

/*
 * Every entry of the built-in targets.yaml names a chip of the table with
 * its own vendor and compute capability (or gfx target). B300 and
 * GB300-B300 (sm_103) name GB100, the CC 10.0 die, while the chip the host
 * API lists at CC 10.3 is GB110: the file's entries say so until someone
 * confirms the die; this test fails when they change.
 */
START_TEST(builtin_targets_chips)
{
	struct gpuproj_targets *ts = NULL;
	char odd[128] = "";
	size_t i;

	ck_assert_int_eq(gpuproj_targets_load_builtin(&ts, NULL), 0);
	for (i = 0; i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i);
		const struct target_chip *c = target_chip_find(t->chip);

		ck_assert_msg(c, "targets.yaml: %s: chip %s is not in src/target-chips.c", t->name,
			      t->chip);
		ck_assert_msg(c->vendor == t->vendor, "%s: vendor", t->name);
		if (t->vendor == GPUPROJ_VENDOR_AMD) {
			ck_assert_msg(strcmp(c->gfx, t->arch) == 0, "%s: %s is %s, not %s", t->name,
				      c->name, c->gfx, t->arch);
		} else if (c->cc_major != t->cc_major || c->cc_minor != t->cc_minor) {
			snprintf(odd + strlen(odd), sizeof(odd) - strlen(odd), "%s%s %s sm_%d%d",
				 *odd ? "; " : "", t->name, c->name, t->cc_major, t->cc_minor);
			continue;
		}
		ck_assert_ptr_eq(target_arch_of(t->arch), target_chip_arch(c));
	}
	ck_assert_str_eq(odd, "B300 GB100 sm_103; GB300-B300 GB100 sm_103");
	gpuproj_targets_free(ts);
}
END_TEST

/*
 * The FMA lanes of the table are those of every built-in entry whose
 * lanes_per_sm is on the datasheet basis; an entry with other lanes must
 * say they are not the architecture's (H20 FP64 2.9, H800 1.91: derived
 * from their capped FP64 rates).
 */
START_TEST(builtin_targets_lanes)
{
	static const enum gpuproj_lane lane[GPUPROJ_PREC_COUNT] = {
		GPUPROJ_LANE_FP16, GPUPROJ_LANE_FP32, GPUPROJ_LANE_FP64,
	};
	struct gpuproj_targets *ts = NULL;
	size_t i, checked = 0, other = 0;
	int p;

	ck_assert_int_eq(gpuproj_targets_load_builtin(&ts, NULL), 0);
	for (i = 0; i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i);
		bool same = true;

		if (t->vendor != GPUPROJ_VENDOR_NVIDIA ||
		    !target_chip_fma_lanes(t->cc_major, t->cc_minor, GPUPROJ_FP32))
			continue;
		for (p = 0; p < GPUPROJ_PREC_COUNT; p++)
			same = same && t->lanes_per_sm[lane[p]] ==
					       target_chip_fma_lanes(t->cc_major, t->cc_minor, p);
		if (same) {
			checked++;
			continue;
		}
		ck_assert_msg(gpuproj_target_basis(t, "lanes_per_sm") != GPUPROJ_BASIS_DATASHEET,
			      "%s: lanes_per_sm %g/%g/%g on the datasheet basis, CC %d.%d's are "
			      "%d/%d/%d in src/target-chips.c", t->name, t->lanes_per_sm[lane[0]],
			      t->lanes_per_sm[lane[1]], t->lanes_per_sm[lane[2]], t->cc_major,
			      t->cc_minor, target_chip_fma_lanes(t->cc_major, t->cc_minor, 0),
			      target_chip_fma_lanes(t->cc_major, t->cc_minor, 1),
			      target_chip_fma_lanes(t->cc_major, t->cc_minor, 2));
		other++;
	}
	/* 37 NVIDIA entries of CC 7.0 … 10.0; H20, H800-SXM5, H800-PCIe capped */
	ck_assert_uint_eq(checked, 34);
	ck_assert_uint_eq(other, 3);
	gpuproj_targets_free(ts);
}
END_TEST

/* Architectures by `arch`: sm_XY by compute capability, a major's row for other minors. */
static const struct {
	const char *arch, *gen;
} arch_cases[] = {
	{ "sm_30", "Kepler" },    { "sm_37", "Kepler" },    { "sm_52", "Maxwell" },
	{ "sm_61", "Pascal" },    { "sm_70", "Volta" },     { "sm_72", "Volta" },
	{ "sm_75", "Turing" },    { "sm_80", "Ampere" },    { "sm_87", "Ampere" },
	{ "sm_89", "Ada" },       { "sm_90", "Hopper" },    { "sm_100", "Blackwell" },
	{ "sm_101", "Blackwell" }, { "sm_110", "Blackwell" }, { "sm_121", "Blackwell" },
	{ "gfx908", "CDNA1" },    { "gfx941", "CDNA3" },    { "gfx950", "CDNA4" },
	/* none: no row, not digits, too short or long, not a gfx target of the table */
	{ "sm_71", NULL },        { "sm_91", NULL },        { "sm_1000", NULL },
	{ "sm_90a", NULL },       { "sm_7", NULL },         { "sm_", NULL },
	{ "gfx1100", NULL },      { "GFX908", NULL },       { "", NULL },
};

START_TEST(architectures_by_arch)
{
	const struct target_arch *a = target_arch_of(arch_cases[_i].arch);

	if (!arch_cases[_i].gen)
		ck_assert_msg(!a, "%s: %s", arch_cases[_i].arch, a ? a->generation : "");
	else
		ck_assert_msg(a && strcmp(a->generation, arch_cases[_i].gen) == 0, "%s: %s",
			      arch_cases[_i].arch, a ? a->generation : "none");
}
END_TEST

/* What gpuproj bench plans and writes with: lanes, dies, L1 bytes per clock. */
START_TEST(bench_facts)
{
	bool exact = true;

	ck_assert_int_eq(target_chip_fma_lanes(8, 0, GPUPROJ_FP64), 32);
	ck_assert_int_eq(target_chip_fma_lanes(8, 0, GPUPROJ_FP16), 256);
	ck_assert_int_eq(target_chip_fma_lanes(8, 6, GPUPROJ_FP32), 128);
	ck_assert_int_eq(target_chip_fma_lanes(7, 5, GPUPROJ_FP64), 2);
	ck_assert_int_eq(target_chip_fma_lanes(9, 0, GPUPROJ_FP64), 64);
	ck_assert_int_eq(target_chip_fma_lanes(12, 1, GPUPROJ_FP32), 0);
	/* a major's row for every minor holds no lanes */
	ck_assert_int_eq(target_chip_fma_lanes(10, 1, GPUPROJ_FP32), 0);
	ck_assert_int_eq(target_chip_fma_lanes(8, 0, GPUPROJ_PREC_COUNT), 0);
	ck_assert_str_eq(target_chip_die_for_cc(7, 0, &exact), "GV100");
	ck_assert(exact);
	ck_assert_str_eq(target_chip_die_for_cc(10, 0, &exact), "GB100");
	ck_assert(exact);
	ck_assert_str_eq(target_chip_die_for_cc(7, 5, &exact), "TU10X");
	ck_assert(!exact);
	ck_assert_str_eq(target_chip_die_for_cc(12, 0, &exact), "GB20X");
	ck_assert(!exact);
	exact = true;
	ck_assert_ptr_null(target_chip_die_for_cc(7, 2, &exact));
	ck_assert(!exact);
	ck_assert_ptr_null(target_chip_die_for_cc(12, 1, &exact));
	ck_assert_ptr_null(target_chip_die_for_cc(13, 0, &exact));
	ck_assert_int_eq(target_chip_l1_bytes_per_clk(7, 0), 128);
	ck_assert_int_eq(target_chip_l1_bytes_per_clk(10, 0), 128);
	ck_assert_int_eq(target_chip_l1_bytes_per_clk(8, 6), 64);
	ck_assert_int_eq(target_chip_l1_bytes_per_clk(10, 3), 64);
	ck_assert_int_eq(target_chip_l1_bytes_per_clk(13, 0), 64);
	ck_assert_str_eq(target_vendor_word(GPUPROJ_VENDOR_NVIDIA), "nvidia");
	ck_assert_str_eq(target_vendor_word(GPUPROJ_VENDOR_AMD), "amd");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("chips");
	TCase *tc = tcase_create("chips");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, chips_have_architectures);
	tcase_add_test(tc, name_and_tensor_tables_agree);
	tcase_add_test(tc, name_restrictions_name_known_chips);
	tcase_add_test(tc, builtin_targets_chips);
	tcase_add_test(tc, builtin_targets_lanes);
	tcase_add_loop_test(tc, architectures_by_arch, 0, ARRAY_LENGTH(arch_cases));
	tcase_add_test(tc, bench_facts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
