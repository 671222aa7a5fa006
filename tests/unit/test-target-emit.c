/* SPDX-License-Identifier: MIT */
/*
 * The targets.yaml entry writer (src/target-emit.c) that `gpuproj targets
 * derive` and `gpuproj bench` share: the exact text of an entry with every
 * kind of key, which the loader reads back to the same values; text that
 * loads back to the same bytes; and each way a caller can misuse it
 * (a key not in the field table, of another type, twice, out of order, a
 * member past its group) refused with the key named.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/target.h>

#include "target-emit.h"

static const struct gpuproj_target_limits lim = {
	2048, 1024, 32, 65536, 65536, 255, 256, 164, 163, 128, 1024, 40,
};

/* A whole file: one entry with a text, a list, words, numbers in each format, groups. */
START_TEST(entry_text_and_load)
{
	static const char want[] =
		"schema: gpuproj-targets/1\n"
		"references:\n"
		"  DS: \"a \\\"datasheet\\\"\"\n"
		"gpus:\n"
		"  - name: X100+\n"
		"    description: \"tab\\x09bidi\\u202eend\"\n"
		"    match: [\"NVIDIA X100\", \"X 100\"]\n"
		"    vendor: nvidia\n"
		"    arch: sm_80\n"
		"    chip: \"GA 100\"\n"
		"    sms: 108\n"
		"    warp_size: 32\n"
		"    clock_mhz: 1410.0\n"
		"    boost_clock_mhz: 1410.5\n"
		"    schedulers_per_sm: 4\n"
		"    ipc_per_scheduler: 0.951\n"
		"    limits: {threads_per_sm: 2048, threads_per_block: 1024, blocks_per_sm: 32, "
		"regs_per_sm: 65536,\n"
		"              regs_per_block: 65536, regs_per_thread: 255, reg_alloc_unit: 256, "
		"smem_per_sm_kib: 164,\n"
		"              smem_per_block_kib: 163, smem_alloc_unit_b: 128, "
		"smem_reserved_per_block_b: 1024, l2_mib: 40}\n"
		"    peak_gflops: {fp16_fma: 77970, fp32_fma: 19492.5, fp64_fma: 9746.2}\n"
		"    max_gflops: {fp32_fma: 19000,\n"
		"                 fp64_add_mul: 4.5}\n"
		"    bw_gbs: {dram: 1555, l2: 4000, l1: 19400, shared: 19400}\n"
		"    lanes_per_sm: {fp16: 256, fp32: 64, fp64: 32, int32: 64, "
		"fp32_int32_shared: 0}\n"
		"    price_usd: null    # unknown\n"
		"    tdp_w: 400\n"
		"    sources:\n"
		"      sms: \"datasheet: the driver [DS]\"\n"
		"      limits.l2_mib: \"datasheet: 40 MiB [DS]\"\n"
		"      warp_size: \"datasheet: [DS]\"\n"
		"      clock_mhz: \"datasheet: [DS]\"\n"
		"      boost_clock_mhz: \"datasheet: [DS]\"\n"
		"      schedulers_per_sm: \"datasheet: [DS]\"\n"
		"      ipc_per_scheduler: \"datasheet: [DS]\"\n"
		"      limits: \"datasheet: [DS]\"\n"
		"      peak_gflops: \"datasheet: [DS]\"\n"
		"      max_gflops: \"datasheet: [DS]\"\n"
		"      bw_gbs: \"datasheet: [DS]\"\n"
		"      lanes_per_sm: \"datasheet: [DS]\"\n"
		"      tdp_w: \"datasheet: [DS]\"\n";
	static const char *const sourced[] = {
		"warp_size", "clock_mhz", "boost_clock_mhz", "schedulers_per_sm",
		"ipc_per_scheduler", "limits", "peak_gflops", "max_gflops", "bw_gbs",
		"lanes_per_sm", "tdp_w",
	};
	const char *match[] = { "NVIDIA X100", "X 100" };
	struct gpuproj_targets *ts = NULL;
	const struct gpuproj_target *t;
	struct gpuproj_error err = { 0 };
	struct target_emit w;
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb);
	target_emit_schema(&sb);
	target_emit_references(&sb);
	target_emit_reference(&sb, "DS", "a \"datasheet\"");
	target_emit_gpus(&sb);
	target_emit_entry(&w, &sb, "X100+");
	target_emit_text(&w, "description", "tab\tbidi\xe2\x80\xae" "end");
	target_emit_list(&w, "match", match, 2);
	target_emit_vendor(&w, GPUPROJ_VENDOR_NVIDIA);
	target_emit_word(&w, "arch", "sm_80");
	target_emit_word(&w, "chip", "GA 100");
	target_emit_number(&w, "sms", 108, TARGET_EMIT_F0);
	target_emit_number(&w, "warp_size", 32, TARGET_EMIT_SHORT);
	target_emit_number(&w, "clock_mhz", 1410, TARGET_EMIT_F1);
	target_emit_number(&w, "boost_clock_mhz", 1410.5, TARGET_EMIT_G);
	target_emit_number(&w, "schedulers_per_sm", 4, TARGET_EMIT_F0);
	target_emit_number(&w, "ipc_per_scheduler", 0.9512, TARGET_EMIT_F3);
	target_emit_limits(&w, &lim, TARGET_EMIT_SHORT, 1);
	/* SHORT: 77970 an integer; 19492.5 and 9746.25 (from 100: one decimal, 9746.2) */
	target_emit_member(&w, "peak_gflops", 0, 77970, TARGET_EMIT_SHORT);
	target_emit_member(&w, "peak_gflops", 2, 19492.5, TARGET_EMIT_SHORT);
	target_emit_member(&w, "peak_gflops", 4, 9746.25, TARGET_EMIT_SHORT);
	target_emit_member(&w, "max_gflops", 2, 19000, TARGET_EMIT_SHORT);
	target_emit_wrap(&w, 0);
	target_emit_member(&w, "max_gflops", 5, 4.5, TARGET_EMIT_SHORT);
	target_emit_member(&w, "bw_gbs", GPUPROJ_LEVEL_DRAM, 1555, TARGET_EMIT_SHORT);
	target_emit_member(&w, "bw_gbs", GPUPROJ_LEVEL_L2, 4000, TARGET_EMIT_SHORT);
	target_emit_member(&w, "bw_gbs", GPUPROJ_LEVEL_L1, 19400, TARGET_EMIT_SHORT);
	target_emit_member(&w, "bw_gbs", GPUPROJ_LEVEL_SHARED, 19400, TARGET_EMIT_SHORT);
	for (i = 0; i < GPUPROJ_LANE_COUNT; i++)
		target_emit_member(&w, "lanes_per_sm", i, (double[]){ 256, 64, 32, 64, 0 }[i],
				   TARGET_EMIT_G);
	target_emit_null(&w, "price_usd", "unknown");
	target_emit_number(&w, "tdp_w", 400, TARGET_EMIT_F0);
	target_emit_sources(&w);
	target_emit_source(&w, "sms", "datasheet: the driver [%s]", "DS");
	target_emit_source(&w, "limits.l2_mib", "datasheet: %d MiB [DS]", 40);
	for (i = 0; i < sizeof(sourced) / sizeof(sourced[0]); i++)
		target_emit_source(&w, sourced[i], "datasheet: [DS]");
	ck_assert_int_eq(target_emit_end(&w, &err), GPUPROJ_OK);
	ck_assert_str_eq(sb.buf, want);
	/* the loader reads back what was written (peak_gflops wants every FMA: it has them) */
	ck_assert_msg(gpuproj_targets_load_buffer(sb.buf, sb.len, "t.yaml", &ts, &err) == 0,
		      "%s:%d:%d: %s", err.file, err.line, err.column, err.message);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_str_eq(t->name, "X100+");
	ck_assert_str_eq(t->description, "tab\tbidi\xe2\x80\xae" "end");
	ck_assert_str_eq(t->chip, "GA 100");
	ck_assert_ptr_eq(gpuproj_targets_match(ts, "X 100"), t);
	ck_assert_int_eq(t->limits.smem_reserved_per_block_b, 1024);
	ck_assert_double_eq(t->limits.l2_mib, 40);
	ck_assert_double_eq(t->boost_clock_mhz, 1410.5);
	ck_assert_double_eq(t->ipc_per_scheduler, 0.951);
	ck_assert_double_eq(t->peak_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA], 9746.2);
	ck_assert_double_eq(t->bw_gbs[GPUPROJ_LEVEL_DRAM], 1555);
	ck_assert(isnan(t->price_usd));
	ck_assert_double_eq(t->tdp_w, 400);
	gpuproj_targets_free(ts);
	strbuf_free(&sb);
}
END_TEST

/* Misuse: each refused, the first key named, whatever follows. */
static const struct {
	const char *what, *bad;
} misuse[] = {
	{ "unknown key", "cores" },
	{ "unknown member", "bw_gbs.l3" },
	{ "text as a number", "description" },
	{ "number as text", "sms" },
	{ "null for a required number", "clock_mhz" },
	{ "twice", "sms" },
	{ "out of order", "arch" },
	{ "member of an earlier group", "limits.l2_mib" },
	{ "member past its group", "lanes_per_sm" },
	{ "source before sources", "tdp_w" },
	{ "source of no key", "bw_gbs.l3" },
};

START_TEST(misuse_refused)
{
	struct gpuproj_error err = { 0 };
	struct target_emit w;
	struct strbuf sb;
	char want[200];

	strbuf_init(&sb);
	target_emit_entry(&w, &sb, "X");
	switch (_i) {
	case 0: target_emit_number(&w, "cores", 1, TARGET_EMIT_F0); break;
	case 1: target_emit_number(&w, "bw_gbs.l3", 1, TARGET_EMIT_F0); break;
	case 2: target_emit_number(&w, "description", 1, TARGET_EMIT_F0); break;
	case 3: target_emit_text(&w, "sms", "1"); break;
	case 4: target_emit_null(&w, "clock_mhz", NULL); break;
	case 5:
		target_emit_number(&w, "sms", 1, TARGET_EMIT_F0);
		target_emit_number(&w, "sms", 1, TARGET_EMIT_F0);
		break;
	case 6:
		target_emit_word(&w, "chip", "GA100");
		target_emit_word(&w, "arch", "sm_80");
		break;
	case 7:
		target_emit_number(&w, "limits.threads_per_sm", 1, TARGET_EMIT_F0);
		target_emit_number(&w, "bw_gbs.l1", 1, TARGET_EMIT_F0);
		target_emit_number(&w, "limits.l2_mib", 1, TARGET_EMIT_F0);
		break;
	case 8:
		target_emit_member(&w, "lanes_per_sm", GPUPROJ_LANE_COUNT, 1, TARGET_EMIT_F0);
		break;
	case 9: target_emit_source(&w, "tdp_w", "x"); break;
	case 10:
		target_emit_sources(&w);
		target_emit_source(&w, "bw_gbs.l3", "x");
		break;
	}
	/* what follows a refusal is still written, and the first refusal is the one named */
	target_emit_null(&w, "tdp_w", NULL);
	ck_assert_int_eq(target_emit_end(&w, &err), GPUPROJ_E_INVAL);
	snprintf(want, sizeof(want), "the targets.yaml writer was given '%s': not a key of the "
		 "field table of that type, or written twice or out of order", misuse[_i].bad);
	ck_assert_msg(strcmp(err.message, want) == 0, "%s: %s", misuse[_i].what, err.message);
	strbuf_free(&sb);
}
END_TEST

/* A writer that ran out of memory says so. */
START_TEST(out_of_memory)
{
	struct gpuproj_error err = { 0 };
	struct target_emit w;
	struct strbuf sb;

	strbuf_init(&sb);
	target_emit_entry(&w, &sb, "X");
	sb.oom = true;
	ck_assert_int_eq(target_emit_end(&w, &err), GPUPROJ_E_NOMEM);
	ck_assert_str_eq(err.message, "out of memory");
	strbuf_free(&sb);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("target-emit");
	TCase *tc = tcase_create("target-emit");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, entry_text_and_load);
	tcase_add_loop_test(tc, misuse_refused, 0, sizeof(misuse) / sizeof(misuse[0]));
	tcase_add_test(tc, out_of_memory);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
