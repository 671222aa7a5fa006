/* SPDX-License-Identifier: MIT */
/*
 * targets.yaml loader: a valid file loads with every number in the right
 * unit; each class of bad input is rejected with file:line:column and an
 * exact message, leaving the output untouched; the repository's
 * targets.yaml passes its own schema; the field table (src/target-fields.c)
 * is what the loader reads and what docs/targets-schema.md "Limits" says.
 */
#include "config.h"

#include <check.h>
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "common.h"
#include "target-fields.h"
#include "util.h"

/* A minimal valid file: line numbers below are 1-based lines of this text. */
static const char base_yaml[] =
	"schema: gpuproj-targets/1\n"                                    /* 1 */
	"references:\n"                                                  /* 2 */
	"  DS: \"a datasheet\"\n"                                        /* 3 */
	"  M: \"a measurement\"\n"                                       /* 4 */
	"gpus:\n"                                                        /* 5 */
	"  - name: G1\n"                                                 /* 6 */
	"    match: [\"Device One\"]\n"                                  /* 7 */
	"    vendor: nvidia\n"                                           /* 8 */
	"    arch: sm_80\n"                                              /* 9 */
	"    chip: GA100\n"                                              /* 10 */
	"    sms: 108\n"                                                 /* 11 */
	"    warp_size: 32\n"                                            /* 12 */
	"    clock_mhz: 1410\n"                                          /* 13 */
	"    schedulers_per_sm: 4\n"                                     /* 14 */
	"    limits: {threads_per_sm: 2048, threads_per_block: 1024, blocks_per_sm: 32,\n" /* 15 */
	"             regs_per_sm: 65536, regs_per_block: 65536, regs_per_thread: 255,\n" /* 16 */
	"             reg_alloc_unit: 256, smem_per_sm_kib: 164, smem_per_block_kib: 163,\n" /* 17 */
	"             smem_alloc_unit_b: 128, smem_reserved_per_block_b: 1024, l2_mib: 40}\n" /* 18 */
	"    peak_gflops: {fp16_fma: 78000, fp32_fma: 19500, fp64_fma: 9700}\n"  /* 19 */
	"    max_gflops: {fp64_fma: 9476}\n"                             /* 20 */
	"    bw_gbs: {dram: 1375, l2: 4710, l1: 19492, shared: 19492}\n" /* 21 */
	"    price_usd: null\n"                                          /* 22 */
	"    tdp_w: 400\n"                                               /* 23 */
	"    sources:\n"                                                 /* 24 */
	"      sms: \"datasheet: [DS]\"\n"                               /* 25 */
	"      warp_size: \"datasheet: [DS]\"\n"                         /* 26 */
	"      clock_mhz: \"datasheet: [DS]\"\n"                         /* 27 */
	"      schedulers_per_sm: \"datasheet: [DS]\"\n"                 /* 28 */
	"      limits: \"datasheet: [DS]\"\n"                            /* 29 */
	"      peak_gflops: \"derived: 2 x lanes x sms x clock [DS]\"\n" /* 30 */
	"      max_gflops: \"measured: HPL [M]\"\n"                      /* 31 */
	"      bw_gbs: \"measured: STREAM [M]\"\n"                       /* 32 */
	"      bw_gbs.shared: \"derived: 128 B/clk/SM x sms x clock\"\n" /* 33 */
	"      tdp_w: \"datasheet: [DS]\"\n";                            /* 34 */

/*
 * base_yaml plus the optional rate fields (boost clock, lanes, STREAM
 * bandwidths, latencies): their sources follow tdp_w's (lines 35-38), their
 * values close the entry (lines 39-42).
 */
static const char rates_tail[] =
	"      boost_clock_mhz: \"datasheet: [DS]\"\n"                /* 35 */
	"      lanes_per_sm: \"datasheet: [DS]\"\n"                   /* 36 */
	"      stream_gbs: \"measured: gpu-stream [M]\"\n"            /* 37 */
	"      latency_ns: \"measured: pointer chase [M]\"\n"         /* 38 */
	"    boost_clock_mhz: 1410\n"                                 /* 39 */
	"    lanes_per_sm: {fp16: 256, fp32: 64, fp64: 32, int32: 64, fp32_int32_shared: 0}\n" /* 40 */
	"    stream_gbs: {read: 1490, copy: 1381, triad: 1375}\n"     /* 41 */
	"    latency_ns: {l1: 20, l2: 150, dram: 300}\n";             /* 42 */

/* `text` with the first occurrence of `from` replaced by `to` (malloc'd). */
static char *
replace_in(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *out;

	ck_assert_msg(at != NULL, "fixture does not contain '%s'", from);
	out = malloc(strlen(text) + strlen(to) + 1);
	ck_assert_ptr_nonnull(out);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), to);
	strcat(out, at + strlen(from));
	return out;
}

/* base_yaml with the first occurrence of `from` replaced by `to`. */
static char *
variant(const char *from, const char *to)
{
	return replace_in(base_yaml, from, to);
}

/* base_yaml + tail (malloc'd). */
static char *
base_plus(const char *tail)
{
	char *out = malloc(sizeof(base_yaml) + strlen(tail));

	ck_assert_ptr_nonnull(out);
	strcpy(out, base_yaml);
	strcat(out, tail);
	return out;
}

/* base_yaml + rates_tail (malloc'd). */
static char *
rates_yaml(void)
{
	return base_plus(rates_tail);
}

/* Load `text`; expect failure with status, line, column and message. */
static void
expect_error(const char *text, int status, int line, int column, const char *message)
{
	struct gpuproj_targets *ts = (struct gpuproj_targets *)0x1;
	struct gpuproj_error err = { 0 };
	int r = gpuproj_targets_load_buffer(text, strlen(text), "t.yaml", &ts, &err);

	ck_assert_int_eq(r, status);
	ck_assert_int_eq(err.status, status);
	ck_assert_str_eq(err.file, "t.yaml");
	ck_assert_str_eq(err.message, message);
	ck_assert_int_eq(err.line, line);
	ck_assert_int_eq(err.column, column);
	/* Nothing else was produced: the output pointer is untouched. */
	ck_assert_ptr_eq(ts, (struct gpuproj_targets *)0x1);
}

static void
expect_variant_error(const char *from, const char *to, int status, int line, int column,
		     const char *message)
{
	char *text = variant(from, to);

	expect_error(text, status, line, column, message);
	free(text);
}

START_TEST(valid_file_loads)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *t;
	const struct gpuproj_source *s;
	bool measured;

	ck_assert_int_eq(gpuproj_targets_load_buffer(base_yaml, strlen(base_yaml), "t.yaml", &ts,
						     &err), GPUPROJ_OK);
	ck_assert_uint_eq(gpuproj_targets_count(ts), 1);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_str_eq(t->name, "G1");
	ck_assert_int_eq(t->line, 6);
	ck_assert_int_eq(t->cc_major, 8);
	ck_assert_int_eq(t->cc_minor, 0);
	ck_assert_int_eq(t->sms, 108);
	ck_assert_double_eq(t->clock_mhz, 1410);
	ck_assert_int_eq(t->limits.smem_reserved_per_block_b, 1024);
	ck_assert_double_eq(t->limits.l2_mib, 40);
	ck_assert_double_eq(t->peak_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA], 9700);
	/* ADD/MUL defaults to half the FMA rate. */
	ck_assert_double_eq(t->peak_gflops[GPUPROJ_FP64][GPUPROJ_OP_ADD_MUL], 4850);
	ck_assert(!t->peak_add_mul_given[GPUPROJ_FP64]);
	/* Measured ceilings win over peaks, and say so. */
	ck_assert_double_eq(gpuproj_target_gflops(t, GPUPROJ_FP64, GPUPROJ_OP_FMA, &measured), 9476);
	ck_assert(measured);
	ck_assert_double_eq(gpuproj_target_gflops(t, GPUPROJ_FP64, GPUPROJ_OP_ADD_MUL, &measured),
			    4738);
	ck_assert_double_eq(gpuproj_target_gflops(t, GPUPROJ_FP32, GPUPROJ_OP_FMA, &measured), 19500);
	ck_assert(!measured);
	ck_assert_double_eq(t->bw_gbs[GPUPROJ_LEVEL_DRAM], 1375);
	ck_assert_double_eq(t->bw_gbs[GPUPROJ_LEVEL_SHARED], 19492);
	ck_assert(isnan(t->price_usd));
	ck_assert_double_eq(t->tdp_w, 400);
	ck_assert(isnan(t->memory_gib));
	/* The most specific source wins. */
	s = gpuproj_target_source(t, "bw_gbs.shared");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->basis, GPUPROJ_BASIS_DERIVED);
	s = gpuproj_target_source(t, "bw_gbs.dram");
	ck_assert_int_eq(s->basis, GPUPROJ_BASIS_MEASURED);
	ck_assert_str_eq(s->path, "bw_gbs");
	ck_assert_ptr_null(gpuproj_target_source(t, "price_usd"));
	ck_assert_str_eq(gpuproj_targets_reference(ts, "M"), "a measurement");
	/* Lookups. */
	ck_assert_ptr_eq(gpuproj_targets_match(ts, "  device one "), t);
	ck_assert_ptr_eq(gpuproj_targets_match(ts, "g1"), t);
	ck_assert_ptr_null(gpuproj_targets_match(ts, "Device Two"));
	gpuproj_targets_free(ts);
}
END_TEST

/* The rate fields load into their arrays, each with its source. */
START_TEST(rates_load)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *t;
	char *text = rates_yaml();
	bool measured;

	ck_assert_int_eq(gpuproj_targets_load_buffer(text, strlen(text), "t.yaml", &ts, &err),
			 GPUPROJ_OK);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_double_eq(t->boost_clock_mhz, 1410);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP16], 256);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP32], 64);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP64], 32);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_INT32], 64);
	/* 0 is a valid count of shared FP32/INT32 lanes (separate pipes). */
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP32_INT32_SHARED], 0);
	ck_assert_double_eq(t->stream_gbs[GPUPROJ_STREAM_READ], 1490);
	ck_assert_double_eq(t->stream_gbs[GPUPROJ_STREAM_COPY], 1381);
	ck_assert_double_eq(t->stream_gbs[GPUPROJ_STREAM_TRIAD], 1375);
	ck_assert_double_eq(t->latency_ns[GPUPROJ_LEVEL_L1], 20);
	ck_assert_double_eq(t->latency_ns[GPUPROJ_LEVEL_L2], 150);
	ck_assert_double_eq(t->latency_ns[GPUPROJ_LEVEL_DRAM], 300);
	ck_assert(isnan(t->latency_ns[GPUPROJ_LEVEL_SHARED]));
	ck_assert_int_eq(gpuproj_target_source(t, "stream_gbs.triad")->basis,
			 GPUPROJ_BASIS_MEASURED);
	ck_assert_int_eq(gpuproj_target_source(t, "lanes_per_sm.fp32_int32_shared")->basis,
			 GPUPROJ_BASIS_DATASHEET);
	ck_assert_str_eq(gpuproj_lane_name(GPUPROJ_LANE_FP32_INT32_SHARED), "fp32_int32_shared");
	ck_assert_str_eq(gpuproj_stream_name(GPUPROJ_STREAM_TRIAD), "triad");
	ck_assert_str_eq(gpuproj_launch_mode_name(GPUPROJ_LAUNCH_GRAPH), "graph");
	ck_assert_str_eq(gpuproj_launch_mode_name(GPUPROJ_LAUNCH_MODE_COUNT), "?");
	/* 'measured' follows the source's basis, also for ADD/MUL filled as FMA / 2. */
	gpuproj_target_gflops(t, GPUPROJ_FP64, GPUPROJ_OP_ADD_MUL, &measured);
	ck_assert(measured);
	gpuproj_targets_free(ts);
	free(text);
	/* Without the group, the lanes are NaN, and so are absent latencies. */
	ck_assert_int_eq(gpuproj_targets_load_buffer(base_yaml, strlen(base_yaml), "t.yaml", &ts,
						     &err), GPUPROJ_OK);
	t = gpuproj_targets_get(ts, 0);
	ck_assert(isnan(t->lanes_per_sm[GPUPROJ_LANE_FP32]));
	ck_assert(isnan(t->boost_clock_mhz));
	ck_assert(isnan(t->stream_gbs[GPUPROJ_STREAM_TRIAD]));
	ck_assert(isnan(t->latency_ns[GPUPROJ_LEVEL_DRAM]));
	gpuproj_targets_free(ts);
}
END_TEST

/*
 * Tensor cores: peak_tensor (numbers, or null for a path the GPU lacks,
 * sourced either way) and max_tensor (measured dense GEMM rates). Sources
 * after tdp_w's (lines 35-37), values close the entry (lines 38-39).
 */
static const char tensor_tail[] =
	"      peak_tensor: \"datasheet: dense, 1410 MHz [DS]\"\n"          /* 35 */
	"      peak_tensor.fp8_gflops: \"datasheet: no FP8 tensor path [DS]\"\n" /* 36 */
	"      max_tensor: \"measured: cuBLAS GEMM 8192^3 [M]\"\n"          /* 37 */
	"    peak_tensor: {fp16_gflops: 312000, bf16_gflops: 312000, tf32_gflops: 156000,\n" /* 38 */
	"                  fp8_gflops: null, int8_gops: 624000, fp64_gflops: 19500}\n"     /* 39 */
	"    max_tensor: {bf16_gflops: 280000}\n";                          /* 40 */

static char *
tensor_yaml(void)
{
	return base_plus(tensor_tail);
}

/* tail_yaml() with `from` replaced by `to`: expect the schema error. */
static void
expect_tail_error(char *(*tail_yaml)(void), const char *from, const char *to, int line,
		  int column, const char *message)
{
	char *base = tail_yaml();
	char *text = replace_in(base, from, to);

	expect_error(text, GPUPROJ_E_SCHEMA, line, column, message);
	free(text);
	free(base);
}

static void
expect_tensor_error(const char *from, const char *to, int line, int column, const char *message)
{
	expect_tail_error(tensor_yaml, from, to, line, column, message);
}

START_TEST(tensor_rates)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *t;
	char *text = tensor_yaml();
	bool measured = false;

	ck_assert_msg(gpuproj_targets_load_buffer(text, strlen(text), "t.yaml", &ts, &err) ==
		      GPUPROJ_OK, "%s", err.message);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_double_eq(t->peak_tensor[GPUPROJ_TPREC_FP16], 312000);
	ck_assert_double_eq(t->peak_tensor[GPUPROJ_TPREC_FP64], 19500);
	/* null: the GPU has no such path (0); absent: unknown (NaN). */
	ck_assert_double_eq(t->peak_tensor[GPUPROJ_TPREC_FP8], 0);
	ck_assert(isnan(t->peak_tensor[GPUPROJ_TPREC_FP4]));
	ck_assert(isnan(t->max_tensor[GPUPROJ_TPREC_FP16]));
	/* The models' rate: measured where given, else the peak, 0 or NaN passed on. */
	ck_assert_double_eq(gpuproj_target_tensor_gflops(t, GPUPROJ_TPREC_BF16, &measured), 280000);
	ck_assert(measured);
	ck_assert_double_eq(gpuproj_target_tensor_gflops(t, GPUPROJ_TPREC_FP16, &measured), 312000);
	ck_assert(!measured);
	ck_assert_double_eq(gpuproj_target_tensor_gflops(t, GPUPROJ_TPREC_FP8, NULL), 0);
	ck_assert(isnan(gpuproj_target_tensor_gflops(t, GPUPROJ_TPREC_FP4, NULL)));
	ck_assert(isnan(gpuproj_target_tensor_gflops(t, GPUPROJ_TPREC_COUNT, NULL)));
	ck_assert_int_eq(gpuproj_target_basis(t, "peak_tensor.fp8_gflops"), GPUPROJ_BASIS_DATASHEET);
	ck_assert_str_eq(gpuproj_tensor_prec_name(GPUPROJ_TPREC_FP16_ACC16), "fp16_acc16");
	ck_assert_str_eq(gpuproj_tensor_prec_key(GPUPROJ_TPREC_INT8), "int8_gops");
	gpuproj_targets_free(ts);
	free(text);
	/* Without them: all unknown. */
	ck_assert_int_eq(gpuproj_targets_load_buffer(base_yaml, strlen(base_yaml), "t.yaml", &ts,
						     &err), GPUPROJ_OK);
	ck_assert(isnan(gpuproj_targets_get(ts, 0)->peak_tensor[GPUPROJ_TPREC_FP16]));
	gpuproj_targets_free(ts);

	expect_tensor_error("fp16_gflops: 312000", "fp16_gflop: 312000", 38, 19,
			    "unknown key 'fp16_gflop' in peak_tensor; did you mean 'fp16_gflops'?");
	expect_tensor_error("{bf16_gflops: 280000}", "{bf16_gflops: 330000}", 40, 31,
			    "'max_tensor.bf16_gflops' (330000) is above 'peak_tensor.bf16_gflops' "
			    "(312000): a measured dense rate cannot exceed the dense peak");
	expect_tensor_error("{bf16_gflops: 280000}", "{fp8_gflops: 280000}", 40, 30,
			    "'max_tensor.fp8_gflops' is given, but 'peak_tensor.fp8_gflops' is null "
			    "(no such tensor path)");
	expect_tensor_error("int8_gops: 624000", "int8_gops: -1", 39, 48,
			    "'peak_tensor.int8_gops' must be positive, got -1");
	/* A null is a claim: without a source it is refused like a number. */
	{
		char *base = tensor_yaml(), *a, *b, *c;

		a = replace_in(base, "      peak_tensor: \"datasheet: dense, 1410 MHz [DS]\"\n", "");
		b = replace_in(a, "      peak_tensor.fp8_gflops: \"datasheet: no FP8 tensor path [DS]\"\n",
			       "");
		c = replace_in(b, "{fp16_gflops: 312000, bf16_gflops: 312000, tf32_gflops: 156000,\n"
			       "                  fp8_gflops: null, int8_gops: 624000, fp64_gflops: 19500}",
			       "{fp8_gflops: null}");
		expect_error(c, GPUPROJ_E_SCHEMA, 36, 31, "'peak_tensor.fp8_gflops' of 'G1' has no "
			     "source: add 'peak_tensor.fp8_gflops' (or its group) to 'sources'");
		free(a);
		free(b);
		free(c);
		free(base);
	}
}
END_TEST

/* rates_yaml() with `from` replaced by `to`: expect the error. */
static void
expect_rates_error(const char *from, const char *to, int line, int column, const char *message)
{
	expect_tail_error(rates_yaml, from, to, line, column, message);
}

/*
 * boost_hold_us (how long the GPU holds its boost clock, model.h enum
 * gpuproj_clock): optional, positive, sourced like every number. rates_yaml()
 * with its source after boost_clock_mhz's (line 36) and its value after
 * boost_clock_mhz's (line 41).
 */
static char *
hold_yaml(const char *source, const char *value)
{
	char *base = rates_yaml(), *a, *b;

	a = replace_in(base, "      boost_clock_mhz: \"datasheet: [DS]\"\n", source);
	b = replace_in(a, "    boost_clock_mhz: 1410\n", value);
	free(base);
	free(a);
	return b;
}

START_TEST(boost_hold)
{
	static const char src_line[] = "      boost_clock_mhz: \"datasheet: [DS]\"\n"
				       "      boost_hold_us: \"derived: fitted [M]\"\n";
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *t;
	char *text = hold_yaml(src_line, "    boost_clock_mhz: 1410\n    boost_hold_us: 400\n");

	ck_assert_int_eq(gpuproj_targets_load_buffer(text, strlen(text), "t.yaml", &ts, &err),
			 GPUPROJ_OK);
	t = gpuproj_targets_get(ts, 0);
	ck_assert_double_eq(t->boost_hold_us, 400);
	ck_assert_int_eq(gpuproj_target_source(t, "boost_hold_us")->basis, GPUPROJ_BASIS_DERIVED);
	gpuproj_targets_free(ts);
	free(text);
	/* Absent: NaN (rates_yaml() has none). */
	text = rates_yaml();
	ck_assert_int_eq(gpuproj_targets_load_buffer(text, strlen(text), "t.yaml", &ts, &err),
			 GPUPROJ_OK);
	ck_assert(isnan(gpuproj_targets_get(ts, 0)->boost_hold_us));
	gpuproj_targets_free(ts);
	free(text);

	text = hold_yaml(src_line, "    boost_clock_mhz: 1410\n    boost_hold_us: 0\n");
	expect_error(text, GPUPROJ_E_SCHEMA, 41, 20, "'boost_hold_us' must be positive, got 0");
	free(text);
	text = hold_yaml(src_line, "    boost_clock_mhz: 1410\n    boost_hold_us: 1e12\n");
	expect_error(text, GPUPROJ_E_LIMIT, 41, 20,
		     "'boost_hold_us' is 1e12, above the limit of 1000000000 us (1000 s) (no real "
		     "GPU comes near it; docs/targets-schema.md)");
	free(text);
	text = hold_yaml("      boost_clock_mhz: \"datasheet: [DS]\"\n",
			 "    boost_clock_mhz: 1410\n    boost_hold_us: 400\n");
	expect_error(text, GPUPROJ_E_SCHEMA, 40, 20,
		     "'boost_hold_us' of 'G1' has no source: add 'boost_hold_us' (or its group) "
		     "to 'sources'");
	free(text);
	text = hold_yaml(src_line, "    boost_clock_mhz: 1410\n    boost_hold_ms: 400\n");
	expect_error(text, GPUPROJ_E_SCHEMA, 41, 5,
		     "unknown key 'boost_hold_ms' in GPU 'G1'; did you mean 'boost_hold_us'?");
	free(text);
}
END_TEST

/*
 * An entry with every number the schema has (11 scalars and every group
 * key: 54 paths) loads, and without the source of 'sms' fails cleanly on it:
 * the bookkeeping of the sources check holds every path (it once had room
 * for one scalar less than the schema has, and such an entry wrote past it).
 */
static const char full_yaml[] =
	"schema: gpuproj-targets/1\n"
	"references:\n"
	"  DS: \"datasheet\"\n"
	"gpus:\n"
	"  - name: G1\n"
	"    match: [\"G1\"]\n"
	"    vendor: nvidia\n"
	"    arch: sm_80\n"
	"    chip: GA100\n"
	"    sms: 108\n"
	"    warp_size: 32\n"
	"    clock_mhz: 1410\n"
	"    boost_clock_mhz: 1410\n"
	"    boost_hold_us: 400\n"
	"    schedulers_per_sm: 4\n"
	"    ipc_per_scheduler: 1\n"
	"    memory_gib: 40\n"
	"    ldst_shared_gops: 4000\n"
	"    limits: {threads_per_sm: 2048, threads_per_block: 1024, blocks_per_sm: 32,\n"
	"             regs_per_sm: 65536, regs_per_block: 65536, regs_per_thread: 255,\n"
	"             reg_alloc_unit: 256, smem_per_sm_kib: 164, smem_per_block_kib: 163,\n"
	"             smem_alloc_unit_b: 128, smem_reserved_per_block_b: 1024, l2_mib: 40}\n"
	"    peak_gflops: {fp16_fma: 78000, fp16_add_mul: 39000, fp32_fma: 19500,\n"
	"                  fp32_add_mul: 9750, fp64_fma: 9700, fp64_add_mul: 4850}\n"
	"    max_gflops: {fp16_fma: 70000, fp16_add_mul: 35000, fp32_fma: 18000,\n"
	"                 fp32_add_mul: 9000, fp64_fma: 9476, fp64_add_mul: 4738}\n"
	"    peak_giops: {int32_add: 9750, int32_mad: 19500}\n"
	"    peak_bw_gbs: {dram: 1555}\n"
	"    bw_gbs: {dram: 1375, l2: 4710, l1: 19492, shared: 19492}\n"
	"    lanes_per_sm: {fp16: 256, fp32: 64, fp64: 32, int32: 64, fp32_int32_shared: 0}\n"
	"    stream_gbs: {read: 1490, copy: 1381, triad: 1375}\n"
	"    latency_ns: {l1: 20, l2: 150, dram: 300, shared: 20}\n"
	"    price_usd: 10000\n"
	"    tdp_w: 400\n"
	"    sources:\n"
	"      sms: \"datasheet: [DS]\"\n"
	"      warp_size: \"datasheet: [DS]\"\n"
	"      clock_mhz: \"datasheet: [DS]\"\n"
	"      boost_clock_mhz: \"datasheet: [DS]\"\n"
	"      boost_hold_us: \"estimate: [DS]\"\n"
	"      schedulers_per_sm: \"datasheet: [DS]\"\n"
	"      ipc_per_scheduler: \"datasheet: [DS]\"\n"
	"      memory_gib: \"datasheet: [DS]\"\n"
	"      ldst_shared_gops: \"derived: [DS]\"\n"
	"      limits: \"datasheet: [DS]\"\n"
	"      peak_gflops: \"datasheet: [DS]\"\n"
	"      max_gflops: \"estimate: [DS]\"\n"
	"      peak_giops: \"datasheet: [DS]\"\n"
	"      peak_bw_gbs: \"datasheet: [DS]\"\n"
	"      bw_gbs: \"estimate: [DS]\"\n"
	"      lanes_per_sm: \"datasheet: [DS]\"\n"
	"      stream_gbs: \"estimate: [DS]\"\n"
	"      latency_ns: \"estimate: [DS]\"\n"
	"      price_usd: \"estimate: [DS]\"\n"
	"      tdp_w: \"datasheet: [DS]\"\n";

START_TEST(full_entry)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	char *text;

	ck_assert_msg(gpuproj_targets_load_buffer(full_yaml, strlen(full_yaml), "t.yaml", &ts,
						  &err) == GPUPROJ_OK, "%d:%d: %s", err.line,
		      err.column, err.message);
	ck_assert_double_eq(gpuproj_targets_get(ts, 0)->boost_hold_us, 400);
	ck_assert_double_eq(gpuproj_targets_get(ts, 0)->latency_ns[GPUPROJ_LEVEL_SHARED], 20);
	gpuproj_targets_free(ts);
	text = replace_in(full_yaml, "      sms: \"datasheet: [DS]\"\n", "");
	expect_error(text, GPUPROJ_E_SCHEMA, 10, 10,
		     "'sms' of 'G1' has no source: add 'sms' (or its group) to 'sources'");
	free(text);
}
END_TEST

START_TEST(error_rates_unknown_key)
{
	expect_rates_error("{fp16: 256, fp32: 64,", "{fp16: 256, fp33: 64,", 40, 31,
			   "unknown key 'fp33' in lanes_per_sm; did you mean 'fp32'?");
	expect_rates_error("    stream_gbs: {", "    stream_gb: {", 41, 5,
			   "unknown key 'stream_gb' in GPU 'G1'; did you mean 'stream_gbs'?");
	expect_rates_error("{l1: 20, l2: 150, dram: 300}", "{l1: 20, l2: 150, hbm: 300}", 42,
			   35, "unknown key 'hbm' in latency_ns");
}
END_TEST

START_TEST(error_rates_unsourced)
{
	expect_rates_error("      stream_gbs: \"measured: gpu-stream [M]\"\n", "", 40, 24,
			   "'stream_gbs.read' of 'G1' has no source: add 'stream_gbs.read' (or "
			   "its group) to 'sources'");
	expect_rates_error("      boost_clock_mhz: \"datasheet: [DS]\"\n", "", 38, 22,
			   "'boost_clock_mhz' of 'G1' has no source: add 'boost_clock_mhz' (or "
			   "its group) to 'sources'");
	expect_rates_error("    latency_ns: {l1: 20, l2: 150, dram: 300}\n", "", 38, 7,
			   "source given for 'latency_ns', but the entry has no such value");
}
END_TEST

START_TEST(error_rates_non_positive)
{
	expect_rates_error("dram: 300}", "dram: 0}", 42, 41,
			   "'latency_ns.dram' must be positive, got 0");
	expect_rates_error("copy: 1381,", "copy: -1381,", 41, 36,
			   "'stream_gbs.copy' must be positive, got -1381");
	expect_rates_error("    boost_clock_mhz: 1410\n", "    boost_clock_mhz: 0\n", 39, 22,
			   "'boost_clock_mhz' must be positive, got 0");
	expect_rates_error("fp64: 32,", "fp64: 0,", 40, 47,
			   "'lanes_per_sm.fp64' must be positive, got 0");
	/* Only the shared-lane count may be 0, and it may not be negative. */
	expect_rates_error("fp32_int32_shared: 0}", "fp32_int32_shared: -64}", 40, 81,
			   "'lanes_per_sm.fp32_int32_shared' must not be negative, got -64");
}
END_TEST

START_TEST(error_rates_wrong_type)
{
	expect_rates_error("    stream_gbs: {read: 1490, copy: 1381, triad: 1375}\n",
			   "    stream_gbs: 1375\n", 41, 17,
			   "'stream_gbs' must be a mapping, not a scalar");
	expect_rates_error("triad: 1375}", "triad: \"1375\"}", 41, 49,
			   "'stream_gbs.triad' must be a number, not '1375' (quoted)");
	expect_rates_error("l2: 150,", "l2: fast,", 42, 30,
			   "'latency_ns.l2' must be a number, not 'fast'");
}
END_TEST

START_TEST(error_rates_missing_lane)
{
	expect_rates_error(" int32: 64,", "", 40, 19,
			   "lanes_per_sm: missing required field 'int32'");
}
END_TEST

/* More FP32-or-INT32 lanes than FP32 lanes cannot be. */
START_TEST(error_rates_shared_lanes_exceed)
{
	expect_rates_error("fp32_int32_shared: 0}", "fp32_int32_shared: 128}", 40, 81,
			   "'lanes_per_sm.fp32_int32_shared' (128) cannot exceed "
			   "'lanes_per_sm.fp32' (64) or 'lanes_per_sm.int32' (64)");
}
END_TEST

/* A level further from the SM cannot answer sooner. */
START_TEST(error_rates_latency_order)
{
	expect_rates_error("l2: 150,", "l2: 400,", 42, 41,
			   "'latency_ns.dram' (300 ns) must be longer than 'latency_ns.l2' "
			   "(400 ns)");
	expect_rates_error("{l1: 20,", "{l1: 200,", 42, 31,
			   "'latency_ns.l2' (150 ns) must be longer than 'latency_ns.l1' (200 ns)");
}
END_TEST

/*
 * launch_floor_us: both keys once the group is there; a graph never adds
 * launch work (rates_yaml() with the group after latency_ns, line 43, its
 * source after latency_ns's).
 */
START_TEST(error_launch_floor)
{
	char *base = rates_yaml(), *a, *b, *c;

	a = replace_in(base, "      latency_ns: \"measured: pointer chase [M]\"\n",
		       "      latency_ns: \"measured: pointer chase [M]\"\n"
		       "      launch_floor_us: \"measured: [M]\"\n");
	b = replace_in(a, "    latency_ns: {l1: 20, l2: 150, dram: 300}\n",
		       "    latency_ns: {l1: 20, l2: 150, dram: 300}\n"
		       "    launch_floor_us: {stream: 2, graph: 3}\n");
	expect_error(b, GPUPROJ_E_SCHEMA, 44, 41,
		     "'launch_floor_us.graph' (3 us) cannot exceed "
		     "'launch_floor_us.stream' (2 us)");
	c = replace_in(b, "{stream: 2, graph: 3}", "{stream: 2}");
	expect_error(c, GPUPROJ_E_SCHEMA, 44, 22,
		     "launch_floor_us: missing required field 'graph'");
	free(c);
	c = replace_in(b, "{stream: 2, graph: 3}", "{stream: 2, graph: 1.2}");
	{
		struct gpuproj_targets *ts = NULL;
		struct gpuproj_error err = { 0 };
		const struct gpuproj_target *t;

		ck_assert_msg(gpuproj_targets_load_buffer(c, strlen(c), "t.yaml", &ts, &err) == 0,
			      "%s", err.message);
		t = gpuproj_targets_get(ts, 0);
		ck_assert_double_eq(t->launch_floor_us[GPUPROJ_LAUNCH_STREAM], 2);
		ck_assert_double_eq(t->launch_floor_us[GPUPROJ_LAUNCH_GRAPH], 1.2);
		gpuproj_targets_free(ts);
	}
	free(a);
	free(b);
	free(c);
	free(base);
}
END_TEST

START_TEST(error_unknown_key_suggests)
{
	expect_variant_error("    clock_mhz: 1410\n", "    clock_mz: 1410\n", GPUPROJ_E_SCHEMA, 13, 5,
			     "unknown key 'clock_mz' in GPU 'G1'; did you mean 'clock_mhz'?");
}
END_TEST

START_TEST(error_unknown_key_in_group)
{
	expect_variant_error("bw_gbs: {dram: 1375,", "bw_gbs: {hbm: 1375,", GPUPROJ_E_SCHEMA, 21,
			     14, "unknown key 'hbm' in bw_gbs");
}
END_TEST

START_TEST(error_unknown_top_level_key)
{
	expect_variant_error("gpus:\n", "gpu:\n", GPUPROJ_E_SCHEMA, 5, 1,
			     "unknown key 'gpu' in the top level; did you mean 'gpus'?");
}
END_TEST

START_TEST(error_missing_required_field)
{
	expect_variant_error("    sms: 108\n", "", GPUPROJ_E_SCHEMA, 6, 5,
			     "GPU 'G1': missing required field 'sms'");
}
END_TEST

START_TEST(error_missing_required_bandwidth)
{
	expect_variant_error(", shared: 19492}", "}", GPUPROJ_E_SCHEMA, 21, 13,
			     "bw_gbs: missing required field 'shared'");
}
END_TEST

START_TEST(error_wrong_type)
{
	expect_variant_error("    sms: 108\n", "    sms: many\n", GPUPROJ_E_SCHEMA, 11, 10,
			     "'sms' must be a number, not 'many'");
}
END_TEST

START_TEST(error_wrong_type_quoted_number)
{
	expect_variant_error("    clock_mhz: 1410\n", "    clock_mhz: \"1410\"\n", GPUPROJ_E_SCHEMA,
			     13, 16, "'clock_mhz' must be a number, not '1410' (quoted)");
}
END_TEST

START_TEST(error_wrong_type_mapping)
{
	expect_variant_error("    match: [\"Device One\"]\n", "    match: \"Device One\"\n",
			     GPUPROJ_E_SCHEMA, 7, 12,
			     "'match' must be a list of device names, not a scalar");
}
END_TEST

START_TEST(error_non_integer_count)
{
	expect_variant_error("    sms: 108\n", "    sms: 108.5\n", GPUPROJ_E_SCHEMA, 11, 10,
			     "'sms' must be an integer, got 108.5");
}
END_TEST

START_TEST(error_non_positive_rate)
{
	expect_variant_error("{dram: 1375,", "{dram: 0,", GPUPROJ_E_SCHEMA, 21, 20,
			     "'bw_gbs.dram' must be positive, got 0");
}
END_TEST

START_TEST(error_negative_clock)
{
	expect_variant_error("    clock_mhz: 1410\n", "    clock_mhz: -1410\n", GPUPROJ_E_SCHEMA, 13,
			     16, "'clock_mhz' must be positive, got -1410");
}
END_TEST

START_TEST(error_duplicate_name)
{
	/* Append a second copy of the GPU with the same name (other match). */
	const char *start = strstr(base_yaml, "  - name: G1\n");
	char *text = malloc(2 * sizeof(base_yaml));
	char *second;

	strcpy(text, base_yaml);
	second = strdup(start);
	second[strstr(second, "Device One") - second + 7] = 'X'; /* "Device Xne" */
	strcat(text, second);
	/* Second entry starts at line 35; its name value at line 35, column 11. */
	expect_error(text, GPUPROJ_E_SCHEMA, 35, 11,
		     "duplicate GPU name 'G1' (first defined at line 6)");
	free(second);
	free(text);
}
END_TEST

START_TEST(error_duplicate_match)
{
	const char *start = strstr(base_yaml, "  - name: G1\n");
	char *text = malloc(2 * sizeof(base_yaml));
	char *second;

	strcpy(text, base_yaml);
	second = strdup(start);
	second[11] = '2'; /* "  - name: G2" */
	strcat(text, second);
	expect_error(text, GPUPROJ_E_SCHEMA, 36, 12,
		     "match string 'Device One' of 'G2' is already used by 'G1' (line 6)");
	free(second);
	free(text);
}
END_TEST

START_TEST(error_unknown_schema_version)
{
	expect_variant_error("schema: gpuproj-targets/1\n", "schema: gpuproj-targets/2\n",
			     GPUPROJ_E_SCHEMA, 1, 9,
			     "unknown schema version 'gpuproj-targets/2': this gpuproj reads "
			     "'gpuproj-targets/1'");
}
END_TEST

START_TEST(error_number_without_source)
{
	expect_variant_error("      tdp_w: \"datasheet: [DS]\"\n", "", GPUPROJ_E_SCHEMA, 23, 12,
			     "'tdp_w' of 'G1' has no source: add 'tdp_w' (or its group) to "
			     "'sources'");
}
END_TEST

START_TEST(error_unknown_basis)
{
	expect_variant_error("\"measured: HPL [M]\"", "\"guessed: HPL [M]\"", GPUPROJ_E_SCHEMA,
			     31, 19,
			     "source of 'max_gflops' must start with 'measured:', 'datasheet:', "
			     "'derived:' or 'estimate:', got 'guessed: HPL [M]'");
}
END_TEST

START_TEST(error_undefined_reference)
{
	expect_variant_error("\"measured: STREAM [M]\"", "\"measured: STREAM [MM]\"",
			     GPUPROJ_E_SCHEMA, 32, 15,
			     "source of 'bw_gbs' cites [MM], which is not in 'references'; "
			     "did you mean [M]?");
}
END_TEST

START_TEST(error_measured_without_citation)
{
	expect_variant_error("\"measured: HPL [M]\"", "\"measured: HPL\"", GPUPROJ_E_SCHEMA, 31,
			     19, "source of 'max_gflops' is 'measured' but cites no reference "
			     "([KEY])");
}
END_TEST

START_TEST(error_source_for_absent_value)
{
	expect_variant_error("      tdp_w: \"datasheet: [DS]\"\n",
			     "      tdp_w: \"datasheet: [DS]\"\n      memory_gib: \"datasheet: [DS]\"\n",
			     GPUPROJ_E_SCHEMA, 35, 7,
			     "source given for 'memory_gib', but the entry has no such value");
}
END_TEST

START_TEST(error_yaml_syntax)
{
	expect_variant_error("    sms: 108\n", "    sms: [108\n", GPUPROJ_E_PARSE, 12, 14,
			     "YAML syntax error: did not find expected ',' or ']' while parsing a "
			     "flow sequence");
}
END_TEST

START_TEST(error_duplicate_key)
{
	expect_variant_error("    sms: 108\n", "    sms: 108\n    sms: 109\n", GPUPROJ_E_SCHEMA,
			     12, 5, "duplicate key 'sms' in GPU 'G1' (first at line 11)");
}
END_TEST

START_TEST(error_bad_arch)
{
	expect_variant_error("    arch: sm_80\n", "    arch: ampere\n", GPUPROJ_E_SCHEMA, 9, 11,
			     "'arch' of an NVIDIA GPU must be sm_XY (compute capability X.Y), got "
			     "'ampere'");
}
END_TEST

START_TEST(error_empty_file)
{
	expect_error("", GPUPROJ_E_SCHEMA, 0, 0,
		     "empty file: expected 'schema', 'references' and 'gpus'");
}
END_TEST

START_TEST(error_missing_file)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_targets_load("/nonexistent/t.yaml", &ts, &err), GPUPROJ_E_IO);
	ck_assert_str_eq(err.file, "/nonexistent/t.yaml");
	ck_assert_str_eq(err.message, "cannot open: No such file or directory");
	ck_assert_ptr_null(ts);
}
END_TEST

/* `gpuproj targets check` prints exactly one error line and nothing on stdout. */
START_TEST(cli_check_reports_and_produces_nothing)
{
	char *dir = test_tmpdir();
	char *text = variant("    clock_mhz: 1410\n", "    clock_mz: 1410\n");
	char *path = test_write_file(dir, "bad.yaml", text);
	char *cmd, *out, *err, *expect;
	int rc;

	ck_assert_int_gt(asprintf(&cmd, "'%s' targets check '%s'", test_gpuproj(), path), 0);
	rc = test_run(cmd, &out, &err);
	ck_assert_int_eq(rc, 2);
	ck_assert_str_eq(out, "");
	ck_assert_int_gt(asprintf(&expect, "gpuproj: %s:13:5: unknown key 'clock_mz' in GPU "
				  "'G1'; did you mean 'clock_mhz'?\n", path), 0);
	ck_assert_str_eq(err, expect);
	ck_assert_int_eq(test_count_dir(dir), 1); /* nothing written beside the input */
	free(expect);
	free(out);
	free(err);
	free(cmd);
	free(path);
	free(text);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* `gpuproj targets show` prints every rate field with its value, unit and source. */
START_TEST(cli_show_rates)
{
	static const char *const expect[] = {
		"  boost_clock_mhz                        1410 MHz      datasheet: [DS]\n",
		"  lanes_per_sm.fp32                        64 /clk/SM  datasheet: [DS]\n",
		"  lanes_per_sm.fp32_int32_shared            0 /clk/SM  datasheet: [DS]\n",
		"  stream_gbs.triad                       1375 GB/s     measured: gpu-stream [M]\n",
		"  latency_ns.l2                           150 ns       measured: pointer chase [M]\n",
		"  latency_ns.dram                         300 ns       measured: pointer chase [M]\n",
	};
	char *dir = test_tmpdir();
	char *text = rates_yaml();
	char *path = test_write_file(dir, "rates.yaml", text);
	char *cmd, *out, *err;
	size_t i;

	ck_assert_int_gt(asprintf(&cmd, "'%s' targets --targets '%s' show 'Device One'",
				  test_gpuproj(), path), 0);
	ck_assert_int_eq(test_run(cmd, &out, &err), 0);
	ck_assert_str_eq(err, "");
	for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		ck_assert_msg(strstr(out, expect[i]) != NULL, "missing '%s' in:\n%s", expect[i], out);
	free(out);
	free(err);
	free(cmd);
	free(path);
	free(text);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/* The repository's targets.yaml, and the copy built into the library, are valid. */
START_TEST(repository_targets_valid)
{
	struct gpuproj_targets *file = NULL, *builtin = NULL;
	struct gpuproj_error err = { 0 };
	char buf[2048];
	char path[4096];
	size_t i;

	snprintf(path, sizeof(path), "%s/targets.yaml", test_source_root());
	ck_assert_msg(gpuproj_targets_load(path, &file, &err) == GPUPROJ_OK, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_msg(gpuproj_targets_load_builtin(&builtin, &err) == GPUPROJ_OK, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	ck_assert_uint_eq(gpuproj_targets_count(file), gpuproj_targets_count(builtin));
	for (i = 0; i < gpuproj_targets_count(file); i++)
		ck_assert_str_eq(gpuproj_targets_get(file, i)->name,
				 gpuproj_targets_get(builtin, i)->name);
	gpuproj_targets_free(file);
	gpuproj_targets_free(builtin);
}
END_TEST

/*
 * The repository's targets.yaml keeps one basis per level on every GPU
 * (docs/targets-schema.md, "One basis per level"): every GPU has the
 * sustained and the boost clock, its lanes, a STREAM triad equal to the
 * DRAM bandwidth the models use, L2 and DRAM latencies, and sustained
 * FMA rates for every precision; derived rates follow from lanes x SMs x
 * clock, and the sustained clock from a measured FP32 FMA rate.
 */
START_TEST(repository_targets_one_basis)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	char buf[2048];
	char path[4096];
	size_t i;
	int p;

	snprintf(path, sizeof(path), "%s/targets.yaml", test_source_root());
	ck_assert_msg(gpuproj_targets_load(path, &ts, &err) == GPUPROJ_OK, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	for (i = 0; i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i);
		const struct gpuproj_source *triad = gpuproj_target_source(t, "stream_gbs.triad");
		const struct gpuproj_source *dram = gpuproj_target_source(t, "bw_gbs.dram");
		const struct gpuproj_source *clk = gpuproj_target_source(t, "clock_mhz");
		/* The nine gpuperfpredict GPUs keep the clock their data set ran at. */
		bool dataset_clock = clk && strstr(clk->text, "[GPP]") != NULL;

		ck_assert_msg(!isnan(t->boost_clock_mhz), "%s: no boost_clock_mhz", t->name);
		for (p = 0; p < GPUPROJ_LANE_COUNT; p++)
			ck_assert_msg(!isnan(t->lanes_per_sm[p]), "%s: no lanes_per_sm", t->name);
		ck_assert_msg(!isnan(t->stream_gbs[GPUPROJ_STREAM_TRIAD]), "%s: no stream_gbs.triad",
			      t->name);
		ck_assert_msg(t->bw_gbs[GPUPROJ_LEVEL_DRAM] == t->stream_gbs[GPUPROJ_STREAM_TRIAD],
			      "%s: bw_gbs.dram %g != stream_gbs.triad %g", t->name,
			      t->bw_gbs[GPUPROJ_LEVEL_DRAM], t->stream_gbs[GPUPROJ_STREAM_TRIAD]);
		ck_assert_msg(triad && dram && triad->basis == dram->basis,
			      "%s: bw_gbs.dram must carry the basis of stream_gbs.triad", t->name);
		ck_assert_msg(!isnan(t->latency_ns[GPUPROJ_LEVEL_L2]) &&
			      !isnan(t->latency_ns[GPUPROJ_LEVEL_DRAM]), "%s: no L2/DRAM latency",
			      t->name);
		/* Every GPU has a launch floor, sourced. */
		ck_assert_msg(t->launch_floor_us[GPUPROJ_LAUNCH_STREAM] > 0 &&
			      t->launch_floor_us[GPUPROJ_LAUNCH_GRAPH] > 0 &&
			      gpuproj_target_source(t, "launch_floor_us.graph"),
			      "%s: no launch_floor_us", t->name);
		for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
			/* enum gpuproj_prec and the first three lanes share their order. */
			double lanes = t->lanes_per_sm[p];
			double sustained = 2 * lanes * t->sms * t->clock_mhz / 1000;
			double peak = 2 * lanes * t->sms * t->boost_clock_mhz / 1000;
			char key[32];
			const struct gpuproj_source *s;

			snprintf(key, sizeof(key), "max_gflops.%s_fma", gpuproj_prec_name(p));
			s = gpuproj_target_source(t, key);
			ck_assert_msg(!isnan(t->max_gflops[p][GPUPROJ_OP_FMA]) && s, "%s: no %s",
				      t->name, key);
			if (s->basis != GPUPROJ_BASIS_MEASURED && strcmp(s->path, key) != 0)
				ck_assert_msg(fabs(t->max_gflops[p][GPUPROJ_OP_FMA] - sustained) <=
					      0.005 * sustained + 0.1,
					      "%s: %s %g != 2 x lanes x sms x clock_mhz = %g", t->name,
					      key, t->max_gflops[p][GPUPROJ_OP_FMA], sustained);
			ck_assert_msg(fabs(t->peak_gflops[p][GPUPROJ_OP_FMA] - peak) <= 0.005 * peak + 0.1,
				      "%s: peak_gflops.%s_fma %g != 2 x lanes x sms x boost = %g",
				      t->name, gpuproj_prec_name(p), t->peak_gflops[p][GPUPROJ_OP_FMA],
				      peak);
		}
		if (!dataset_clock) {
			double implied = t->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] /
					 (2 * t->lanes_per_sm[GPUPROJ_LANE_FP32] * t->sms) * 1000;

			ck_assert_msg(fabs(implied - t->clock_mhz) <= 0.005 * t->clock_mhz,
				      "%s: clock_mhz %g != max_gflops.fp32_fma / (2 x lanes x sms) = %g",
				      t->name, t->clock_mhz, implied);
		}
	}
	gpuproj_targets_free(ts);
}
END_TEST

static struct gpuproj_targets *load_repo(void);

/* "sibling NAME" in a source text: NAME into out, or false. */
static bool
sibling_of(const char *text, char *out, size_t size)
{
	const char *p = strstr(text, "sibling ");
	size_t n;

	if (!p)
		return false;
	p += strlen("sibling ");
	n = strcspn(p, " ,:;()");
	snprintf(out, size, "%.*s", (int)n, p);
	return n > 0;
}

/*
 * fp32_dense_gflops and sustained_clock_mhz of the repository's
 * targets.yaml, on the rules of docs/targets-schema.md "One basis per
 * level": every GPU has both; a measured dense rate is a cuBLAS SGEMM cited
 * from the GEMM tables ([ZZ-GEMM], [CH-GEMM], [BG-GEMM], [SB-GEMM], [XZ]),
 * never from a validation corpus ([NEUSIGHT], seed 002's [DB]); a derived
 * one names a sibling of the same SM datapath (FP32 lanes and shared lanes)
 * with a measured rate, and equals its fraction of its FMA rate x this FMA
 * rate, at most this peak; a
 * derived sustained clock names a measured sibling of the same vendor and
 * equals its sustained/highest-clock fraction x this highest clock, or is
 * clock_mhz itself. Worked by hand for two: L40 = 46880 / 85510.8 x 84492
 * = 46321.5 GFLOP/s (sibling L40S); RTX-4070 sustained = 1717.5 / 1740 x
 * 2475 = 2443.0 MHz (sibling A40).
 */
START_TEST(repository_targets_dense_and_sustained)
{
	struct gpuproj_targets *ts = load_repo();
	size_t i, measured = 0, derived = 0;

	for (i = 0; i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i), *sib;
		const struct gpuproj_source *d = gpuproj_target_source(t, "fp32_dense_gflops");
		const struct gpuproj_source *c = gpuproj_target_source(t, "sustained_clock_mhz");
		double top = fmax(t->boost_clock_mhz, t->clock_mhz);
		char name[64];

		ck_assert_msg(d && c && t->fp32_dense_gflops > 0 && t->sustained_clock_mhz > 0,
			      "%s: no fp32_dense_gflops or sustained_clock_mhz", t->name);
		ck_assert_msg(t->fp32_dense_gflops <=
			      t->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] * 1.005, "%s", t->name);
		ck_assert_msg(t->sustained_clock_mhz <= top * 1.005, "%s", t->name);
		ck_assert_msg(!strstr(d->text, "[NEUSIGHT]") && !strstr(d->text, "[DB]"),
			      "%s: a validation corpus's timing is no source of the dense rate",
			      t->name);
		if (d->basis == GPUPROJ_BASIS_MEASURED) {
			measured++;
			ck_assert_msg(strstr(d->text, "cuBLAS SGEMM") &&
				      (strstr(d->text, "[ZZ-GEMM]") ||
				       strstr(d->text, "[CH-GEMM]") ||
				       strstr(d->text, "[BG-GEMM]") ||
				       strstr(d->text, "[SB-GEMM]") ||
				       strstr(d->text, "[XZ]")), "%s: %s", t->name, d->text);
		} else if (d->basis == GPUPROJ_BASIS_DERIVED) {
			derived++;
			ck_assert_msg(sibling_of(d->text, name, sizeof(name)), "%s", t->name);
			sib = gpuproj_targets_find(ts, name);
			ck_assert_msg(sib && sib != t, "%s: sibling '%s'", t->name, name);
			ck_assert_int_eq(gpuproj_target_basis(sib, "fp32_dense_gflops"),
					 GPUPROJ_BASIS_MEASURED);
			ck_assert_double_eq(sib->lanes_per_sm[GPUPROJ_LANE_FP32],
					    t->lanes_per_sm[GPUPROJ_LANE_FP32]);
			ck_assert_double_eq(sib->lanes_per_sm[GPUPROJ_LANE_FP32_INT32_SHARED],
					    t->lanes_per_sm[GPUPROJ_LANE_FP32_INT32_SHARED]);
			ck_assert_msg(fabs(t->fp32_dense_gflops -
					   fmin(sib->fp32_dense_gflops /
						    sib->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] *
						    t->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA],
						t->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA])) <=
				      0.1, "%s: %g", t->name, t->fp32_dense_gflops);
		} else {
			ck_assert_int_eq(d->basis, GPUPROJ_BASIS_ESTIMATE);
		}
		if (c->basis == GPUPROJ_BASIS_DERIVED && sibling_of(c->text, name, sizeof(name))) {
			sib = gpuproj_targets_find(ts, name);
			ck_assert_msg(sib && sib->vendor == t->vendor, "%s: sibling '%s'", t->name,
				      name);
			ck_assert_int_eq(gpuproj_target_basis(sib, "sustained_clock_mhz"),
					 GPUPROJ_BASIS_MEASURED);
			ck_assert_msg(fabs(t->sustained_clock_mhz -
					   sib->sustained_clock_mhz /
						   fmax(sib->boost_clock_mhz, sib->clock_mhz) *
						   top) <= 0.1,
				      "%s: %g", t->name, t->sustained_clock_mhz);
		} else if (c->basis == GPUPROJ_BASIS_DERIVED) {
			ck_assert_double_eq(t->sustained_clock_mhz, t->clock_mhz);
		} else {
			ck_assert_int_eq(c->basis, GPUPROJ_BASIS_MEASURED);
		}
	}
	/* 26 boards have a measured SGEMM rate, 21 a derived one, 11 an estimate. */
	ck_assert_uint_eq(measured, 26);
	ck_assert_uint_eq(derived, 21);
	ck_assert_double_eq(gpuproj_targets_find(ts, "L40")->fp32_dense_gflops, 46321.5);
	ck_assert_double_eq(gpuproj_targets_find(ts, "RTX-4070")->sustained_clock_mhz, 2443);
	/*
	 * A copy holding the dense rate as its FP32 FMA rate (model.c, marked by
	 * fp32_loop_gflops) reports fp32_dense_gflops's basis there: L40's
	 * FMA rate is measured, its dense rate derived; L40S the other way.
	 */
	{
		struct gpuproj_target l40 = *gpuproj_targets_find(ts, "L40");
		struct gpuproj_target l40s = *gpuproj_targets_find(ts, "L40S");

		ck_assert_int_eq(gpuproj_target_basis(&l40, "max_gflops.fp32_fma"),
				 GPUPROJ_BASIS_MEASURED);
		l40.fp32_loop_gflops = l40.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA];
		ck_assert_int_eq(gpuproj_target_basis(&l40, "max_gflops.fp32_fma"),
				 GPUPROJ_BASIS_DERIVED);
		ck_assert_int_eq(gpuproj_target_basis(&l40, "max_gflops.fp64_fma"),
				 GPUPROJ_BASIS_MEASURED);
		ck_assert_int_eq(gpuproj_target_basis(&l40s, "max_gflops.fp32_fma"),
				 GPUPROJ_BASIS_DERIVED);
		l40s.fp32_loop_gflops = l40s.max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA];
		ck_assert_int_eq(gpuproj_target_basis(&l40s, "max_gflops.fp32_fma"),
				 GPUPROJ_BASIS_MEASURED);
		/* Scaled to another clock as well: derived. */
		l40s.clock_factor = 0.9;
		ck_assert_int_eq(gpuproj_target_basis(&l40s, "max_gflops.fp32_fma"),
				 GPUPROJ_BASIS_DERIVED);
	}
	gpuproj_targets_free(ts);
}
END_TEST

/*
 * The one-basis rules of the two (gpuproj_target_check_one_basis()) and
 * the loader's bound on the dense rate, each with its message: a dense
 * rate above the FMA peak (load error at its line and column), none at
 * all, one with a datasheet basis, a derived one naming no sibling, a
 * sustained clock above both clocks.
 */
START_TEST(dense_and_sustained_rules)
{
	struct gpuproj_targets *ts = load_repo(), *one = NULL;
	const struct gpuproj_target *l40 = gpuproj_targets_find(ts, "L40");
	struct gpuproj_target t;
	struct gpuproj_source src[128];
	struct gpuproj_error err = { 0 };
	size_t i;
	char *text;

	ck_assert_int_eq(gpuproj_target_check_one_basis(l40, "f", &err), GPUPROJ_OK);
	/* A copy whose sources can be edited. */
	ck_assert_uint_le(l40->n_sources, ARRAY_LENGTH(src));
	t = *l40;
	memcpy(src, l40->sources, l40->n_sources * sizeof(*src));
	t.sources = src;
	t.fp32_dense_gflops = NAN;
	ck_assert_int_eq(gpuproj_target_check_one_basis(&t, "f", &err), GPUPROJ_E_SCHEMA);
	ck_assert_str_eq(err.message, "GPU 'L40' is not on the one basis (docs/targets-schema.md, "
			 "\"One basis per level\"): no fp32_dense_gflops (the FP32 rate FFMA-dense "
			 "code reaches: a large cuBLAS SGEMM, TF32 off)");
	t.fp32_dense_gflops = l40->fp32_dense_gflops;
	for (i = 0; i < t.n_sources; i++) {
		if (strcmp(src[i].path, "fp32_dense_gflops") == 0)
			src[i].text = "derived: L40S's fraction";
		if (strcmp(src[i].path, "sustained_clock_mhz") == 0)
			src[i].basis = GPUPROJ_BASIS_DATASHEET;
	}
	ck_assert_int_eq(gpuproj_target_check_one_basis(&t, "f", &err), GPUPROJ_E_SCHEMA);
	ck_assert_str_eq(err.message, "GPU 'L40' is not on the one basis (docs/targets-schema.md, "
			 "\"One basis per level\"): fp32_dense_gflops is derived but names no "
			 "sibling ('sibling NAME': the GPU of the same SM datapath and power "
			 "class it comes from)");
	memcpy(src, l40->sources, l40->n_sources * sizeof(*src));
	for (i = 0; i < t.n_sources; i++) {
		if (strcmp(src[i].path, "sustained_clock_mhz") == 0)
			src[i].basis = GPUPROJ_BASIS_DATASHEET;
	}
	ck_assert_int_eq(gpuproj_target_check_one_basis(&t, "f", &err), GPUPROJ_E_SCHEMA);
	ck_assert_str_eq(err.message, "GPU 'L40' is not on the one basis (docs/targets-schema.md, "
			 "\"One basis per level\"): sustained_clock_mhz is datasheet: no vendor "
			 "publishes it; it is measured, derived from a named sibling or an "
			 "estimate");
	memcpy(src, l40->sources, l40->n_sources * sizeof(*src));
	/* 2490 MHz boost, 2324.3 clock_mhz: 2510 is above both. */
	t.sustained_clock_mhz = 2510;
	ck_assert_int_eq(gpuproj_target_check_one_basis(&t, "f", &err), GPUPROJ_E_SCHEMA);
	ck_assert_str_eq(err.message, "GPU 'L40' is not on the one basis (docs/targets-schema.md, "
			 "\"One basis per level\"): sustained_clock_mhz (2510 MHz) is above both "
			 "boost_clock_mhz and clock_mhz (2490 MHz)");
	gpuproj_targets_free(ts);

	/* The loader: 101 against a peak of 100 (2 x 64 x 1 SM x 781.25 MHz). */
	text = strdup("schema: gpuproj-targets/1\nreferences: {}\ngpus:\n"
		      "  - name: G\n    match: [\"G\"]\n    vendor: nvidia\n    arch: sm_80\n"
		      "    chip: GA100\n    sms: 1\n    warp_size: 32\n    clock_mhz: 781.25\n"
		      "    schedulers_per_sm: 4\n"
		      "    limits: {threads_per_sm: 2048, threads_per_block: 1024, "
		      "blocks_per_sm: 32,\n"
		      "             regs_per_sm: 65536, regs_per_block: 65536, "
		      "regs_per_thread: 255,\n"
		      "             reg_alloc_unit: 256, smem_per_sm_kib: 164, "
		      "smem_per_block_kib: 163,\n"
		      "             smem_alloc_unit_b: 128, smem_reserved_per_block_b: 1024, "
		      "l2_mib: 40}\n"
		      "    peak_gflops: {fp16_fma: 400, fp32_fma: 100, fp64_fma: 50}\n"
		      "    fp32_dense_gflops: 101\n"
		      "    bw_gbs: {dram: 1, l2: 2, l1: 3, shared: 4}\n"
		      "    price_usd: null\n    tdp_w: null\n"
		      "    sources: {sms: \"estimate: x\", warp_size: \"estimate: x\", "
		      "clock_mhz: \"estimate: x\", schedulers_per_sm: \"estimate: x\", "
		      "limits: \"estimate: x\", peak_gflops: \"estimate: x\", "
		      "fp32_dense_gflops: \"estimate: x\", bw_gbs: \"estimate: x\"}\n");
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(gpuproj_targets_load_buffer(text, strlen(text), "g.yaml", &one, &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_int_eq(err.line, 18);
	ck_assert_int_eq(err.column, 24);
	ck_assert_str_eq(err.message, "'fp32_dense_gflops' (101) is above 'peak_gflops.fp32_fma' "
			 "(100): no code runs faster than the FMA peak");
	free(text);
}
END_TEST

/*
 * Architecture generations (gpuproj_target_generation()): every GPU of the
 * built-in targets.yaml has one, by its arch; GA100 and GA102 are both
 * Ampere, GB100 and GB202 both Blackwell; an unknown arch has none.
 */
START_TEST(generations_of_builtin_gpus)
{
	static const struct {
		const char *gpu, *gen;
	} cases[] = {
		{ "GTX-680", "Kepler" },         { "GTX-980", "Maxwell" },
		{ "Tesla-P100-PCIe-16GB", "Pascal" }, { "V100-SXM2-16GB", "Volta" },
		{ "T4", "Turing" },              { "A100-SXM4-80GB", "Ampere" },
		{ "RTX-3090", "Ampere" },        { "RTX-4090", "Ada" },
		{ "H100-SXM5-80GB", "Hopper" },  { "B200-180GB", "Blackwell" },
		{ "B300", "Blackwell" },         { "RTX-5090", "Blackwell" },
		{ "MI100", "CDNA1" },            { "MI210", "CDNA2" },
		{ "MI300X", "CDNA3" },           { "MI355X", "CDNA4" },
	};
	struct gpuproj_targets *t = NULL;
	struct gpuproj_target fake = { 0 };
	size_t i;

	ck_assert_int_eq(gpuproj_targets_load_builtin(&t, NULL), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct gpuproj_target *g = gpuproj_targets_find(t, cases[i].gpu);

		ck_assert_ptr_nonnull(g);
		ck_assert_str_eq(gpuproj_target_generation(g), cases[i].gen);
	}
	for (i = 0; i < gpuproj_targets_count(t); i++)
		ck_assert_msg(gpuproj_target_generation(gpuproj_targets_get(t, i)) != NULL,
			      "%s (%s) has no generation", gpuproj_targets_get(t, i)->name,
			      gpuproj_targets_get(t, i)->arch);
	fake.arch = "sm_1000";
	ck_assert_ptr_null(gpuproj_target_generation(&fake));
	fake.arch = "gfx1100";
	ck_assert_ptr_null(gpuproj_target_generation(&fake));
	ck_assert_ptr_null(gpuproj_target_generation(NULL));
	gpuproj_targets_free(t);
}
END_TEST

/*
 * Every device name of ../shared/validation/neusight-train (its README's
 * `Device` column) finds its entry.
 */
START_TEST(repository_targets_match_neusight_devices)
{
	static const char *const devices[][2] = {
		{ "Tesla P100-PCIE-16GB", "Tesla-P100-PCIe-16GB" },
		{ "Tesla P4", "Tesla-P4" },
		{ "Tesla T4", "T4" },
		{ "Tesla V100-PCIE-32GB", "V100-PCIe-16GB" },
		{ "NVIDIA A100-PCIE-40GB", "A100-PCIe-40GB" },
	};
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	char path[4096];
	size_t i;

	snprintf(path, sizeof(path), "%s/targets.yaml", test_source_root());
	ck_assert_int_eq(gpuproj_targets_load(path, &ts, &err), GPUPROJ_OK);
	for (i = 0; i < sizeof(devices) / sizeof(devices[0]); i++) {
		const struct gpuproj_target *t = gpuproj_targets_match(ts, devices[i][0]);

		ck_assert_msg(t != NULL, "'%s' matches no target", devices[i][0]);
		ck_assert_str_eq(t->name, devices[i][1]);
	}
	gpuproj_targets_free(ts);
}
END_TEST

/* The repository's targets.yaml. */
static struct gpuproj_targets *
load_repo(void)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	char path[4096];

	snprintf(path, sizeof(path), "%s/targets.yaml", test_source_root());
	ck_assert_msg(gpuproj_targets_load(path, &ts, &err) == GPUPROJ_OK, "%s", err.message);
	return ts;
}

/* An RTX A5000 as libproj.so records it (GA102, 64 SMs; driver attributes). */
static struct gpuproj_profile *
a5000_profile(bool with_memory)
{
	struct gpuproj_profile *p = gpuproj_profile_new();

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(gpuproj_profile_set_device(p, "NVIDIA RTX A5000", NULL, "GA102", 8, 6, 64,
						    1.695e9), 0);
	if (with_memory) {
		ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_MEMORY_CLOCK_KHZ,
								 8001000), 0);
		ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_MEMORY_BUS_BITS, 384),
				 0);
	}
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_L2_BYTES, 6291456), 0);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_THREADS_PER_SM, 1536), 0);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_SMEM_PER_SM_BYTES, 102400),
			 0);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_MEMORY_BYTES,
							 25757220864.0), 0);
	ck_assert_int_eq(gpuproj_profile_set_driver_attr(p, GPUPROJ_DRV_POWER_LIMIT_W, 230), 0);
	return p;
}

/*
 * A GPU the repository's targets.yaml does not list: a provisional entry
 * from its driver attributes and a GA102 sibling, every number as
 * src/target-derive.c documents it, loadable and one-basis clean.
 */
START_TEST(derive_provisional_entry)
{
	struct gpuproj_targets *ts = load_repo(), *set = NULL;
	struct gpuproj_profile *p = a5000_profile(true);
	const struct gpuproj_target *t, *s, *src = NULL;
	struct gpuproj_error err = { 0 };
	char *yaml = NULL;
	double peak = 2 * 8001000e3 * 384 / 8 / 1e9; /* 768.096 GB/s */

	ck_assert_msg(gpuproj_target_derive_yaml(gpuproj_profile_device(p), ts, &yaml, &err) == 0,
		      "%s", err.message);
	ck_assert_ptr_nonnull(strstr(yaml, "schema: gpuproj-targets/1\n"));
	ck_assert_int_eq(gpuproj_targets_derive(gpuproj_profile_device(p), ts, &set, &err), 0);
	ck_assert_uint_eq(gpuproj_targets_count(set), 1);
	t = gpuproj_targets_get(set, 0);
	s = gpuproj_targets_find(ts, t->derived_from);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(t->provisional, GPUPROJ_BASIS_DEVICE);
	ck_assert_str_eq(t->name, "RTX-A5000");
	ck_assert_str_eq(s->chip, "GA102");
	ck_assert_str_eq(t->arch, "sm_86");
	ck_assert_ptr_nonnull(gpuproj_targets_match(set, "NVIDIA RTX A5000"));
	ck_assert_int_eq(t->sms, 64);
	ck_assert_double_eq_tol(t->boost_clock_mhz, 1695, 1e-9);
	ck_assert_double_eq_tol(t->clock_mhz, 1695 * s->clock_mhz / s->boost_clock_mhz, 0.06);
	ck_assert_double_eq_tol(t->peak_dram_gbs, peak, 0.06);
	ck_assert_double_eq_tol(t->bw_gbs[GPUPROJ_LEVEL_DRAM],
				peak * s->stream_gbs[GPUPROJ_STREAM_TRIAD] / s->peak_dram_gbs, 0.06);
	ck_assert_double_eq(t->bw_gbs[GPUPROJ_LEVEL_DRAM], t->stream_gbs[GPUPROJ_STREAM_TRIAD]);
	ck_assert_double_eq_tol(t->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA], 2 * 128 * 64 * 1.695,
				0.06);
	ck_assert_double_eq_tol(t->bw_gbs[GPUPROJ_LEVEL_L2], s->bw_gbs[GPUPROJ_LEVEL_L2] * 64 *
				1695 / (s->sms * s->boost_clock_mhz), 0.06);
	ck_assert_double_eq(t->lanes_per_sm[GPUPROJ_LANE_FP32_INT32_SHARED], 64);
	/* Limits: the driver's where given, the sibling's where not. */
	ck_assert_int_eq(t->limits.threads_per_sm, 1536);
	ck_assert_int_eq(t->limits.smem_per_sm_kib, 100);
	ck_assert_double_eq(t->limits.l2_mib, 6);
	ck_assert_int_eq(t->limits.regs_per_thread, s->limits.regs_per_thread);
	ck_assert_double_eq_tol(t->memory_gib, 24, 0.05);
	ck_assert_double_eq(t->tdp_w, 230);
	ck_assert_int_eq(gpuproj_target_basis(t, "peak_bw_gbs.dram"), GPUPROJ_BASIS_DERIVED);
	ck_assert_int_eq(gpuproj_target_basis(t, "sms"), GPUPROJ_BASIS_DATASHEET);
	/*
	 * The sibling's fractions: A40, dense 18900 / 37094.4 x 27531.5 (2 x 128 x
	 * 64 x 1.6804, this clock_mhz) = 14027.6 GFLOP/s; sustained 1717.5 / 1740
	 * x 1695 = 1673.1 MHz (1695 is both the boost and the highest clock here).
	 */
	ck_assert_str_eq(t->derived_from, "A40");
	ck_assert_double_eq_tol(t->fp32_dense_gflops, 14027.6, 0.06);
	ck_assert_double_eq_tol(t->sustained_clock_mhz, 1673.1, 0.06);
	ck_assert_int_eq(gpuproj_target_basis(t, "fp32_dense_gflops"), GPUPROJ_BASIS_DERIVED);
	ck_assert_msg(gpuproj_target_check_one_basis(t, "derived", &err) == 0, "%s", err.message);

	/* Through the profile: derived when the GPU is not listed ... */
	set = gpuproj_targets_free(set);
	ck_assert_int_eq(gpuproj_resolve_source_or_derive(p, ts, NULL, &src, &set, &err), 0);
	ck_assert_ptr_nonnull(set);
	ck_assert_ptr_eq(src, gpuproj_targets_get(set, 0));
	ck_assert_str_eq(src->name, "RTX-A5000");
	set = gpuproj_targets_free(set);
	/* ... never with an explicit --source, which must name a listed GPU ... */
	ck_assert_int_eq(gpuproj_resolve_source_or_derive(p, ts, "NVIDIA RTX A5000", &src, &set,
							  &err), GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_null(set);
	/* ... and a listed GPU is the file's entry. */
	ck_assert_int_eq(gpuproj_profile_set_device(p, "NVIDIA A40", NULL, "GA102", 8, 6, 84, 1.74e9),
			 0);
	ck_assert_int_eq(gpuproj_resolve_source_or_derive(p, ts, NULL, &src, &set, &err), 0);
	ck_assert_ptr_null(set);
	ck_assert_str_eq(src->name, "A40");
	ck_assert_ptr_null(src->provisional);
	free(yaml);
	gpuproj_profile_free(p);
	gpuproj_targets_free(ts);
}
END_TEST

/* What a provisional entry cannot be derived from, said. */
START_TEST(derive_refused)
{
	struct gpuproj_targets *ts = load_repo(), *set = (struct gpuproj_targets *)0x1;
	struct gpuproj_profile *p = a5000_profile(false);
	const struct gpuproj_target *src = NULL;
	struct gpuproj_error err = { 0 };
	char *yaml = (char *)0x1;

	ck_assert_int_eq(gpuproj_target_derive_yaml(gpuproj_profile_device(p), ts, &yaml, &err),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_null(yaml);
	ck_assert_str_eq(err.message, "the profile does not record the GPU's memory clock and bus "
			 "width (device.driver, written by libproj.so since gpuproj " GPUPROJ_VERSION
			 ", and by `gpuproj import ncu` from device__attribute_memory_clock_rate "
			 "and device__attribute_global_memory_bus_width)");
	ck_assert_int_eq(gpuproj_resolve_source_or_derive(p, ts, NULL, &src, &set, &err),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_null(set);
	ck_assert_ptr_nonnull(strstr(err.message, "'NVIDIA RTX A5000' is not in targets.yaml"));
	ck_assert_ptr_nonnull(strstr(err.message, "; no provisional entry either: the profile "
					       "does not record the GPU's memory clock"));
	gpuproj_profile_free(p);
	/* An architecture the file has no GPU of. */
	p = a5000_profile(true);
	ck_assert_int_eq(gpuproj_profile_set_device(p, "Future GPU", NULL, "GX999", 99, 0, 200,
						    3e9), 0);
	ck_assert_int_eq(gpuproj_target_derive_yaml(gpuproj_profile_device(p), ts, &yaml, &err),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_str_eq(err.message, "targets.yaml has no GPU of compute capability 99.0 with "
			 "lanes_per_sm, stream_gbs.triad and peak_bw_gbs.dram to take per-SM "
			 "figures from");
	gpuproj_profile_free(p);
	gpuproj_targets_free(ts);
}
END_TEST

START_TEST(suggest_close_names)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	const char *out[4];

	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-test.yaml"), &ts, &err), 0);
	ck_assert_uint_eq(gpuproj_targets_suggest(ts, "TgtGPV", out, 4), 1);
	ck_assert_str_eq(out[0], "TgtGPU");
	ck_assert_uint_eq(gpuproj_targets_suggest(ts, "zzzzzzzzzzzz", out, 4), 0);
	gpuproj_targets_free(ts);
}
END_TEST

/* The one "not in targets.yaml" message: close names, else the caller's advice. */
START_TEST(lookup_words_the_error)
{
	static const struct gpuproj_lookup_words src = {
		.what = "source GPU", .advice = "add an entry or pass --source NAME",
	};
	static const struct gpuproj_lookup_words data = {
		.what = "GPU", .where = "of the data set",
		.hint = "add its label to an entry's `match` list",
	};
	static const struct gpuproj_lookup_words bare = { .hint = "" };
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *t = NULL;

	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-test.yaml"), &ts, &err), 0);
	/* By name and by match string. */
	ck_assert_int_eq(gpuproj_targets_lookup(ts, "TgtGPU", NULL, &t, &err), GPUPROJ_OK);
	ck_assert_str_eq(t->name, "TgtGPU");
	ck_assert_int_eq(gpuproj_targets_lookup(ts, "Test Source GPU", &src, &t, &err), GPUPROJ_OK);
	ck_assert_str_eq(t->name, "SrcGPU");
	t = NULL;
	ck_assert_int_eq(gpuproj_targets_lookup(ts, "TgtGPV", &src, &t, &err), GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_null(t);
	ck_assert_str_eq(err.message, "source GPU 'TgtGPV' is not in targets.yaml; close names: "
			 "TgtGPU (`gpuproj targets list` shows all)");
	ck_assert_int_eq(gpuproj_targets_lookup(ts, "zzzzzzzzzzzz", &src, &t, &err),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_str_eq(err.message, "source GPU 'zzzzzzzzzzzz' is not in targets.yaml "
			 "(`gpuproj targets list` shows all; add an entry or pass --source NAME)");
	ck_assert_int_eq(gpuproj_targets_lookup(ts, "zzzzzzzzzzzz", &data, &t, &err),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_str_eq(err.message, "GPU 'zzzzzzzzzzzz' of the data set is not in targets.yaml "
			 "(add its label to an entry's `match` list)");
	ck_assert_int_eq(gpuproj_targets_lookup(ts, "zzzzzzzzzzzz", &bare, &t, &err),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_str_eq(err.message, "'zzzzzzzzzzzz' is not in targets.yaml");
	ck_assert_int_eq(gpuproj_targets_lookup(ts, NULL, NULL, &t, &err), GPUPROJ_E_INVAL);
	gpuproj_targets_free(ts);
}
END_TEST

/* The `targets list` / `targets show` writers (src/target-write.c). */
START_TEST(writers_list_and_show)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *t = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_int_eq(gpuproj_targets_load(test_data("targets-test.yaml"), &ts, &err), 0);
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(gpuproj_targets_write_list(f, ts, "here"), GPUPROJ_OK);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(strncmp(buf, "# 2 GPUs from here; ", 20) == 0, "%s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "\nSrcGPU "));
	ck_assert_ptr_nonnull(strstr(buf, "\nTgtGPU "));
	free(buf);

	ck_assert_int_eq(gpuproj_targets_lookup(ts, "TgtGPU", NULL, &t, &err), GPUPROJ_OK);
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(gpuproj_target_write_show(f, ts, t), GPUPROJ_OK);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(strncmp(buf, "TgtGPU", 6) == 0, "%s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "  bw_gbs.dram "));
	ck_assert_ptr_nonnull(strstr(buf, "\n  references:\n"));
	free(buf);

	ck_assert_int_eq(gpuproj_targets_write_list(NULL, ts, "here"), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_target_write_show(stdout, ts, NULL), GPUPROJ_E_INVAL);
	/* A stream that cannot be written: the error, not success. */
	f = fopen("/dev/full", "w");
	if (f) {
		setvbuf(f, NULL, _IONBF, 0);
		ck_assert_int_eq(gpuproj_targets_write_list(f, ts, "here"), GPUPROJ_E_IO);
		ck_assert_int_eq(gpuproj_target_write_show(f, ts, t), GPUPROJ_E_IO);
		fclose(f);
	}
	gpuproj_targets_free(ts);
}
END_TEST

/* ---- the field table (src/target-fields.c) ---- */

/*
 * An entry with every number of the field table: 1, except where a rule
 * ties fields together (latencies grow from L1 to DRAM); `path` set to
 * `value` instead when given; a source for every number but `unsourced`.
 */
static char *
every_field_yaml(const char *path, const char *value, const char *unsourced)
{
	const struct target_field *f;
	size_t n, i, cap = 65536, len = 0;
	char *out = malloc(cap);
	bool open = false;

	ck_assert_ptr_nonnull(out);
	f = target_fields(&n);
#define PUT(...) (len += (size_t)snprintf(out + len, cap - len, __VA_ARGS__))
	PUT("schema: gpuproj-targets/1\nreferences:\n  DS: \"a datasheet\"\ngpus:\n"
	    "  - name: F\n    match: [\"F\"]\n    vendor: nvidia\n    arch: sm_80\n"
	    "    chip: GA100\n");
	for (i = 0; i < n; i++) {
		const char *v = "1";
		bool member = strchr(f[i].path, '.') != NULL;

		if (open && !member) {
			PUT("}\n");
			open = false;
		}
		if (f[i].type == TF_GROUP) {
			PUT("    %s: {", f[i].path);
			open = true;
			continue;
		}
		if (strcmp(f[i].path, "host_link.interface") == 0)
			v = "pcie4-x16";
		else if (!target_field_is_number(&f[i]))
			continue;
		if (strcmp(f[i].path, "latency_ns.l2") == 0)
			v = "2";
		if (strcmp(f[i].path, "latency_ns.dram") == 0)
			v = "3";
		if (path && strcmp(f[i].path, path) == 0)
			v = value;
		if (member)
			PUT("%s%s: %s", f[i - 1].type == TF_GROUP ? "" : ", ",
			    target_field_key(&f[i]), v);
		else
			PUT("    %s: %s\n", f[i].path, v);
	}
	if (open)
		PUT("}\n");
	PUT("    sources:\n");
	for (i = 0; i < n; i++) {
		if (target_field_is_number(&f[i]) &&
		    (!unsourced || strcmp(f[i].path, unsourced) != 0))
			PUT("      %s: \"estimate: a test value\"\n", f[i].path);
	}
#undef PUT
	ck_assert_uint_lt(len, cap);
	return out;
}

/* Load `text`: the status, and the message into msg (GPUPROJ_ERROR_MSG_SIZE). */
static int
load_status(const char *text, char *msg)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	int r = gpuproj_targets_load_buffer(text, strlen(text), "t.yaml", &ts, &err);

	snprintf(msg, GPUPROJ_ERROR_MSG_SIZE, "%s", r ? err.message : "");
	gpuproj_targets_free(ts);
	return r;
}

/* The table's shape: groups, the enumerations they index, and keys two groups share. */
START_TEST(field_table_shape)
{
	static const struct {
		const char *group;
		size_t n;
	} sizes[] = {
		{ "limits", 12 },
		{ "peak_gflops", 2 * GPUPROJ_PREC_COUNT },
		{ "max_gflops", 2 * GPUPROJ_PREC_COUNT },
		{ "peak_giops", 2 },
		{ "peak_bw_gbs", 1 },
		{ "bw_gbs", GPUPROJ_LEVEL_COUNT },
		{ "lanes_per_sm", GPUPROJ_LANE_COUNT },
		{ "stream_gbs", GPUPROJ_STREAM_COUNT },
		{ "latency_ns", GPUPROJ_LEVEL_COUNT },
		{ "launch_floor_us", GPUPROJ_LAUNCH_MODE_COUNT },
		{ "peak_tensor", GPUPROJ_TPREC_COUNT },
		{ "max_tensor", GPUPROJ_TPREC_COUNT },
		{ "host_link", 6 },	/* interface and five numbers */
	};
	static const char *const same[][2] = {
		{ "peak_gflops", "max_gflops" }, { "peak_tensor", "max_tensor" },
		{ "bw_gbs", "latency_ns" },
	};
	const struct target_field *f, *m, *m2;
	const char *keys[TARGET_FIELDS_MAX];
	size_t n, i, j, nm, nm2, groups = 0;

	f = target_fields(&n);
	ck_assert_uint_le(n, TARGET_FIELDS_MAX);
	for (i = 0; i < n; i++) {
		const char *dot = strchr(f[i].path, '.');
		size_t lg = dot ? (size_t)(dot - f[i].path) : 0;

		/* Paths are unique; a member follows its group or a sibling. */
		ck_assert_ptr_eq(target_field_find(f[i].path), &f[i]);
		if (dot) {
			ck_assert_uint_gt(i, 0);
			/* The group's row is "group"; a sibling's starts "group.". */
			lg += f[i - 1].type != TF_GROUP;
			ck_assert_msg(strncmp(f[i - 1].path, f[i].path, lg) == 0,
				      "%s does not follow its group", f[i].path);
		}
		groups += f[i].type == TF_GROUP;
		if (target_field_is_number(&f[i])) {
			ck_assert_msg(f[i].max > 0 && isfinite(f[i].max), "%s has no limit",
				      f[i].path);
			ck_assert_ptr_nonnull(f[i].unit);
			/* The entry's own numbers say where they go. */
			ck_assert_msg((f[i].offset != 0) == !dot, "%s: offset", f[i].path);
		}
	}
	ck_assert_uint_eq(groups, ARRAY_LENGTH(sizes));
	for (i = 0; i < ARRAY_LENGTH(sizes); i++) {
		m = target_field_members(sizes[i].group, &nm);
		ck_assert_ptr_nonnull(m);
		ck_assert_msg(nm == sizes[i].n, "%s: %zu members", sizes[i].group, nm);
	}
	for (i = 0; i < ARRAY_LENGTH(same); i++) {
		m = target_field_members(same[i][0], &nm);
		m2 = target_field_members(same[i][1], &nm2);
		ck_assert_uint_eq(nm, nm2);
		for (j = 0; j < nm; j++)
			ck_assert_str_eq(target_field_key(&m[j]), target_field_key(&m2[j]));
	}
	ck_assert_ptr_null(target_field_members("sms", &nm));
	ck_assert_uint_eq(nm, 0);
	/* The entry's keys: 33, from name to host_link. */
	n = target_field_keys(NULL, keys, ARRAY_LENGTH(keys));
	ck_assert_uint_eq(n, 33);
	ck_assert_str_eq(keys[0], "name");
	ck_assert_str_eq(keys[n - 1], "host_link");
	/* The enumerations' names are the keys of the groups they index. */
	ck_assert_str_eq(gpuproj_lane_name(GPUPROJ_LANE_FP32_INT32_SHARED), "fp32_int32_shared");
	ck_assert_str_eq(gpuproj_lane_name(GPUPROJ_LANE_COUNT), "?");
	ck_assert_str_eq(gpuproj_stream_name(GPUPROJ_STREAM_TRIAD), "triad");
	ck_assert_str_eq(gpuproj_tensor_prec_key(GPUPROJ_TPREC_INT8), "int8_gops");
	ck_assert_ptr_null(gpuproj_tensor_prec_key(GPUPROJ_TPREC_COUNT));
	m = target_field_members("bw_gbs", &nm);
	for (i = 0; i < GPUPROJ_LEVEL_COUNT; i++)
		ck_assert_str_eq(gpuproj_level_name((enum gpuproj_level)i),
				 target_field_key(&m[i]));
}
END_TEST

/*
 * Every number of the table is one the loader reads, counts for the
 * sources check (PATHSET_MAX's role) and holds to its limit: an entry
 * with all of them loads; without the source of any one it fails naming
 * that one; each at its limit is not refused for the limit, each 1% above
 * it is, naming the path and the limit.
 */
START_TEST(field_table_is_what_the_loader_reads)
{
	const struct target_field *f;
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	char msg[GPUPROJ_ERROR_MSG_SIZE], want[512], value[64];
	size_t n, i, numbers = 0;
	char *text = every_field_yaml(NULL, NULL, NULL);

	ck_assert_msg(gpuproj_targets_load_buffer(text, strlen(text), "t.yaml", &ts, &err) == 0,
		      "%s", err.message);
	free(text);
	f = target_fields(&n);
	for (i = 0; i < n; i++) {
		const struct gpuproj_source *s;

		if (!target_field_is_number(&f[i]))
			continue;
		numbers++;
		s = gpuproj_target_source(gpuproj_targets_get(ts, 0), f[i].path);
		ck_assert_ptr_nonnull(s);
		ck_assert_str_eq(s->path, f[i].path);

		text = every_field_yaml(NULL, NULL, f[i].path);
		ck_assert_int_eq(load_status(text, msg), GPUPROJ_E_SCHEMA);
		snprintf(want, sizeof(want), "'%s' of 'F' has no source: add '%s' (or its group) "
			 "to 'sources'", f[i].path, f[i].path);
		ck_assert_str_eq(msg, want);
		free(text);

		snprintf(value, sizeof(value), "%.17g", f[i].max);
		text = every_field_yaml(f[i].path, value, NULL);
		ck_assert_msg(load_status(text, msg) != GPUPROJ_E_LIMIT, "%s at its limit: %s",
			      f[i].path, msg);
		free(text);

		snprintf(value, sizeof(value), "%.17g", f[i].max * 1.01);
		text = every_field_yaml(f[i].path, value, NULL);
		ck_assert_int_eq(load_status(text, msg), GPUPROJ_E_LIMIT);
		snprintf(want, sizeof(want), "'%s' is %s, above the limit of %.15g%s%s (no real "
			 "GPU comes near it; docs/targets-schema.md)", f[i].path, value, f[i].max,
			 *f[i].unit ? " " : "", f[i].unit);
		ck_assert_str_eq(msg, want);
		free(text);
	}
	/* 11 numbers of the entry, 2 nullable ones and 66 in groups. */
	ck_assert_uint_eq(numbers, 79);
	gpuproj_targets_free(ts);
}
END_TEST

/* A limit as docs/targets-schema.md writes it: "4,096", "10,000 (10 GHz)", "10⁹ GFLOP/s". */
static double
doc_number(const char *s)
{
	double v = 0;

	while (*s == ' ')
		s++;
	/* 10 and a superscript digit ⁴ … ⁹ (U+2074 … U+2079: E2 81 B4 … B9). */
	if (strncmp(s, "10\xe2\x81", 4) == 0 && (unsigned char)s[4] >= 0xb4 &&
	    (unsigned char)s[4] <= 0xb9)
		return pow(10, (unsigned char)s[4] - 0xb0);
	for (; isdigit((unsigned char)*s) || *s == ','; s++) {
		if (*s != ',')
			v = v * 10 + (*s - '0');
	}
	return v;
}

/*
 * docs/targets-schema.md "Limits" and the table say the same: every
 * number of the table is in a line of the documentation's table with its
 * limit, and every name there is a field ("group.*" and "group.*_gbs"
 * cover members; a bare name after "group.x" in the same cell is of that
 * group).
 */
START_TEST(field_table_matches_schema_doc)
{
	char path[512], *doc, *line, *save = NULL, *limits;
	const struct target_field *f;
	size_t n, i, *seen;

	snprintf(path, sizeof(path), "%s/docs/targets-schema.md", test_source_root());
	doc = test_read_file(path);
	ck_assert_ptr_nonnull(doc);
	limits = strstr(doc, "\n## Limits\n");
	ck_assert_ptr_nonnull(limits);
	f = target_fields(&n);
	seen = calloc(n, sizeof(*seen));
	ck_assert_ptr_nonnull(seen);
	for (line = strtok_r(limits, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *cell2, *name, group[64] = "";
		double max;

		if (strncmp(line, "## ", 3) == 0 && line != limits + 1)
			break;
		if (strncmp(line, "| `", 3) != 0)
			continue;
		cell2 = strchr(line + 1, '|');
		ck_assert_ptr_nonnull(cell2);
		*cell2++ = '\0';
		max = doc_number(cell2);
		ck_assert_msg(max > 0, "no limit in '%s'", cell2);
		for (name = strchr(line, '`'); name; name = strchr(name, '`')) {
			char *end = strchr(++name, '`'), pattern[128];
			const char *dot;
			bool matched = false;

			ck_assert_ptr_nonnull(end);
			*end = '\0';
			dot = strchr(name, '.');
			if (dot)
				snprintf(group, sizeof(group), "%.*s", (int)(dot - name), name);
			if (!dot && *group)
				snprintf(pattern, sizeof(pattern), "%s.%s", group, name);
			else
				snprintf(pattern, sizeof(pattern), "%s", name);
			for (i = 0; i < n; i++) {
				if (!target_field_is_number(&f[i]) ||
				    fnmatch(pattern, f[i].path, 0) != 0)
					continue;
				ck_assert_msg(f[i].max == max, "%s: the table says %g, the "
					      "schema %g", f[i].path, f[i].max, max);
				seen[i]++;
				matched = true;
			}
			ck_assert_msg(matched, "'%s' in the schema's limits is no field", pattern);
			name = end + 1;
		}
	}
	for (i = 0; i < n; i++)
		ck_assert_msg(!target_field_is_number(&f[i]) || seen[i] == 1,
			      "%s is in %zu lines of the schema's limits", f[i].path, seen[i]);
	free(seen);
	free(doc);
}
END_TEST

static Suite *
targets_suite(void)
{
	Suite *s = suite_create("targets");
	TCase *tc = tcase_create("loader");

	tcase_add_test(tc, valid_file_loads);
	tcase_add_test(tc, rates_load);
	tcase_add_test(tc, tensor_rates);
	tcase_add_test(tc, boost_hold);
	tcase_add_test(tc, full_entry);
	tcase_add_test(tc, error_rates_unknown_key);
	tcase_add_test(tc, error_rates_unsourced);
	tcase_add_test(tc, error_rates_non_positive);
	tcase_add_test(tc, error_rates_wrong_type);
	tcase_add_test(tc, error_rates_missing_lane);
	tcase_add_test(tc, error_rates_shared_lanes_exceed);
	tcase_add_test(tc, error_rates_latency_order);
	tcase_add_test(tc, error_unknown_key_suggests);
	tcase_add_test(tc, error_unknown_key_in_group);
	tcase_add_test(tc, error_unknown_top_level_key);
	tcase_add_test(tc, error_missing_required_field);
	tcase_add_test(tc, error_missing_required_bandwidth);
	tcase_add_test(tc, error_wrong_type);
	tcase_add_test(tc, error_wrong_type_quoted_number);
	tcase_add_test(tc, error_wrong_type_mapping);
	tcase_add_test(tc, error_non_integer_count);
	tcase_add_test(tc, error_non_positive_rate);
	tcase_add_test(tc, error_negative_clock);
	tcase_add_test(tc, error_duplicate_name);
	tcase_add_test(tc, error_duplicate_match);
	tcase_add_test(tc, error_unknown_schema_version);
	tcase_add_test(tc, error_number_without_source);
	tcase_add_test(tc, error_unknown_basis);
	tcase_add_test(tc, error_undefined_reference);
	tcase_add_test(tc, error_measured_without_citation);
	tcase_add_test(tc, error_source_for_absent_value);
	tcase_add_test(tc, error_yaml_syntax);
	tcase_add_test(tc, error_duplicate_key);
	tcase_add_test(tc, error_bad_arch);
	tcase_add_test(tc, error_empty_file);
	tcase_add_test(tc, error_missing_file);
	tcase_add_test(tc, cli_check_reports_and_produces_nothing);
	tcase_add_test(tc, cli_show_rates);
	tcase_add_test(tc, repository_targets_valid);
	tcase_add_test(tc, repository_targets_one_basis);
	tcase_add_test(tc, error_launch_floor);
	tcase_add_test(tc, repository_targets_dense_and_sustained);
	tcase_add_test(tc, dense_and_sustained_rules);
	tcase_add_test(tc, derive_provisional_entry);
	tcase_add_test(tc, derive_refused);
	tcase_add_test(tc, repository_targets_match_neusight_devices);
	tcase_add_test(tc, generations_of_builtin_gpus);
	tcase_add_test(tc, suggest_close_names);
	tcase_add_test(tc, lookup_words_the_error);
	tcase_add_test(tc, writers_list_and_show);
	tcase_add_test(tc, field_table_shape);
	tcase_add_test(tc, field_table_is_what_the_loader_reads);
	tcase_add_test(tc, field_table_matches_schema_doc);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(targets_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
