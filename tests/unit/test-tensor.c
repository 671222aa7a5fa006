/* SPDX-License-Identifier: MIT */
/*
 * Tensor-core tables (include/gpuproj/tensor.h, src/tensor.c): which
 * counters each chip has, which names a chip's tensor metrics resolve to in
 * each GPUPROJ_TENSOR mode, the FLOP per SASS tensor instruction (opcodes as
 * nvdisasm 13.0 / 11.8 printed them for one-instruction PTX kernels compiled
 * for sm_70 … sm_120: ../research/tensor-shapes.md), per kernel name and the
 * per-architecture defaults. The counter table itself is checked against
 * the real CUPTI host API in tests/inject/test-cupti-host.c.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/nvmetrics.h>
#include <gpuproj/tensor.h>

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

/* FLOP per SASS instruction: 2·M·N·K, Volta's HMMA.884 per step. */
static const struct {
	const char *opcode;
	int arch;
	double flop;
	enum gpuproj_tensor_prec prec;
	enum gpuproj_tensor_op op;
	const char *shape;
	bool warpgroup;
} sass_cases[] = {
	/* sm_70 wmma f32: 16× HMMA.884.F32.F32.STEPi for 8192 FLOP → 512 each */
	{ "HMMA.884.F32.F32.STEP0", 70, 512, GPUPROJ_TPREC_FP16, GPUPROJ_TOP_HMMA, "HMMA.884.F32", false },
	/* sm_70 wmma f16: 8× HMMA.884.F16.F16 → 1024 each */
	{ "HMMA.884.F16.F16.STEP1", 70, 1024, GPUPROJ_TPREC_FP16_ACC16, GPUPROJ_TOP_HMMA,
	  "HMMA.884.F16", false },
	{ "HMMA.1688.F16", 75, 2048, GPUPROJ_TPREC_FP16_ACC16, GPUPROJ_TOP_HMMA, "HMMA.1688", false },
	{ "HMMA.1688.F32", 75, 2048, GPUPROJ_TPREC_FP16, GPUPROJ_TOP_HMMA, "HMMA.1688", false },
	{ "HMMA.16816.F32", 80, 4096, GPUPROJ_TPREC_FP16, GPUPROJ_TOP_HMMA, "HMMA.16816", false },
	{ "HMMA.16816.F32.BF16", 86, 4096, GPUPROJ_TPREC_BF16, GPUPROJ_TOP_HMMA, "HMMA.16816", false },
	{ "HMMA.1684.F32.TF32", 89, 1024, GPUPROJ_TPREC_TF32, GPUPROJ_TOP_HMMA, "HMMA.1684", false },
	{ "HMMA.1688.F32.TF32", 120, 2048, GPUPROJ_TPREC_TF32, GPUPROJ_TOP_HMMA, "HMMA.1688", false },
	{ "IMMA.8816.S8.S8", 75, 2048, GPUPROJ_TPREC_INT8, GPUPROJ_TOP_IMMA, "IMMA.8816", false },
	{ "IMMA.16832.S8.S8", 80, 8192, GPUPROJ_TPREC_INT8, GPUPROJ_TOP_IMMA, "IMMA.16832", false },
	{ "IMMA.16864.S4.S4", 86, 16384, GPUPROJ_TPREC_INT8, GPUPROJ_TOP_IMMA, "IMMA.16864", false },
	{ "DMMA.884", 80, 512, GPUPROJ_TPREC_FP64, GPUPROJ_TOP_DMMA, "DMMA.884", false },
	{ "DMMA.16x8x16", 90, 4096, GPUPROJ_TPREC_FP64, GPUPROJ_TOP_DMMA, "DMMA.16x8x16", false },
	{ "DMMA.8x8x4", 100, 512, GPUPROJ_TPREC_FP64, GPUPROJ_TOP_DMMA, "DMMA.8x8x4", false },
	{ "QMMA.16832.F32.E4M3.E4M3", 89, 8192, GPUPROJ_TPREC_FP8, GPUPROJ_TOP_HMMA,
	  "QMMA.16832", false },
	{ "QMMA.16832.F32.E2M1.E2M1", 120, 8192, GPUPROJ_TPREC_FP4, GPUPROJ_TOP_HMMA,
	  "QMMA.16832", false },
	{ "OMMA.SF.16864.F32.E2M1.E2M1.UE4M3.4X", 120, 16384, GPUPROJ_TPREC_FP4,
	  GPUPROJ_TOP_HMMA, "OMMA.16864", false },
	/* wgmma: 2·64·N·K per warpgroup instruction */
	{ "HGMMA.64x128x16.F32", 90, 262144, GPUPROJ_TPREC_FP16, GPUPROJ_TOP_HMMA,
	  "HGMMA.64x128x16", true },
	{ "HGMMA.64x256x16.F32.BF16", 90, 524288, GPUPROJ_TPREC_BF16, GPUPROJ_TOP_HMMA,
	  "HGMMA.64x256x16", true },
	{ "HGMMA.64x256x8.F32.TF32", 90, 262144, GPUPROJ_TPREC_TF32, GPUPROJ_TOP_HMMA,
	  "HGMMA.64x256x8", true },
	{ "HGMMA.64x8x16.F32", 90, 16384, GPUPROJ_TPREC_FP16, GPUPROJ_TOP_HMMA, "HGMMA.64x8x16",
	  true },
	{ "QGMMA.64x256x32.F32.E4M3.E4M3", 90, 1048576, GPUPROJ_TPREC_FP8, GPUPROJ_TOP_HMMA,
	  "QGMMA.64x256x32", true },
	{ "IGMMA.64x256x32.S8.S8", 90, 1048576, GPUPROJ_TPREC_INT8, GPUPROJ_TOP_IMMA,
	  "IGMMA.64x256x32", true },
	/* tcgen05: the shape is a runtime value */
	{ "UTCHMMA", 100, NAN, GPUPROJ_TPREC_FP16, GPUPROJ_TOP_HMMA, "UTCHMMA", false },
	{ "UTCHMMA.2CTA", 100, NAN, GPUPROJ_TPREC_FP16, GPUPROJ_TOP_HMMA, "UTCHMMA.2CTA", false },
	{ "UTCQMMA", 100, NAN, GPUPROJ_TPREC_FP8, GPUPROJ_TOP_HMMA, "UTCQMMA", false },
	{ "UTCOMMA.4X", 100, NAN, GPUPROJ_TPREC_FP4, GPUPROJ_TOP_HMMA, "UTCOMMA.4X", false },
	{ "UTCIMMA", 100, NAN, GPUPROJ_TPREC_INT8, GPUPROJ_TOP_IMMA, "UTCIMMA", false },
};

START_TEST(sass_opcodes)
{
	struct gpuproj_tensor_shape s;

	ck_assert_msg(gpuproj_tensor_sass_op(sass_cases[_i].opcode, sass_cases[_i].arch, &s),
		      "%s not recognised", sass_cases[_i].opcode);
	if (isnan(sass_cases[_i].flop))
		ck_assert(isnan(s.flop_per_inst));
	else
		ck_assert_double_eq(s.flop_per_inst, sass_cases[_i].flop);
	ck_assert_int_eq(s.prec, sass_cases[_i].prec);
	ck_assert_int_eq(s.op, sass_cases[_i].op);
	ck_assert_str_eq(s.shape, sass_cases[_i].shape);
	ck_assert_int_eq(s.warpgroup, sass_cases[_i].warpgroup);
	ck_assert_int_eq(s.source, GPUPROJ_SHAPE_SASS);
}
END_TEST

START_TEST(sass_not_tensor)
{
	static const char *const not_mma[] = {
		"HFMA2.MMA", "HFMA2", "FFMA", "MUFU.RCP", "DFMA", "HMMA", "IMMA.X", "",
	};
	struct gpuproj_tensor_shape s;
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(not_mma); i++)
		ck_assert_msg(!gpuproj_tensor_sass_op(not_mma[i], 80, &s), "%s taken", not_mma[i]);
	ck_assert(!gpuproj_tensor_sass_op(NULL, 80, &s));
}
END_TEST

/* Shapes stated by kernel names (cuBLAS, CUTLASS 2 and 3, xmma). */
static const struct {
	const char *name;
	int cc_major, cc_minor;
	double flop;
	enum gpuproj_tensor_prec prec;
	const char *shape;
} name_cases[] = {
	/* the examples: HMMA.16816, FP16 inputs, FP32 accumulate: 2·16·8·16 */
	{ "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", 8, 0, 4096,
	  GPUPROJ_TPREC_FP16, "HMMA.16816" },
	{ "s16816gemm_fp16", 0, 0, 4096, GPUPROJ_TPREC_FP16, "HMMA.16816" },
	{ "cutlass_80_tensorop_s1688gemm_f16_256x128_32x3_nt_align8", 8, 0, 2048,
	  GPUPROJ_TPREC_FP16, "HMMA.1688" },
	{ "volta_h884gemm_64x64_ldg8_nn", 7, 0, 1024, GPUPROJ_TPREC_FP16_ACC16, "HMMA.884.F16" },
	{ "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", 7, 0, 512, GPUPROJ_TPREC_FP16,
	  "HMMA.884.F32" },
	{ "turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn", 7, 5, 2048, GPUPROJ_TPREC_FP16,
	  "HMMA.1688" },
	{ "ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_nn", 8, 0, 4096,
	  GPUPROJ_TPREC_BF16, "HMMA.16816" },
	{ "ampere_s1688tf32gemm_128x128_ldg8_stages_32x3_nn", 8, 0, 2048, GPUPROJ_TPREC_TF32,
	  "HMMA.1688" },
	{ "ampere_h16816gemm_256x128_ldg8_stages_32x3_nn", 8, 6, 4096, GPUPROJ_TPREC_FP16_ACC16,
	  "HMMA.16816" },
	{ "cutlass_80_tensorop_i16832gemm_s8_256x128_64x3_tn_align16", 8, 0, 8192,
	  GPUPROJ_TPREC_INT8, "IMMA.16832" },
	{ "turing_int8_i8816gemm_int8_128x128_ldg16_nt", 7, 5, 2048, GPUPROJ_TPREC_INT8,
	  "IMMA.8816" },
	{ "cutlass_80_tensorop_d884gemm_128x128_16x3_nn_align1", 8, 0, 512, GPUPROJ_TPREC_FP64,
	  "DMMA.884" },
	/* xmma (cuBLASLt): the instruction after "tensor" */
	{ "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_"
	  "tensor16x8x16_execute_kernel_trt", 8, 0, 4096, GPUPROJ_TPREC_BF16, "HMMA.16816" },
	/* CUTLASS 3 on Hopper: the warpgroup MMA 64×128×16 */
	{ "cutlass3x_sm90_tensorop_s64x128x16gemm_f16_f16_f32_f16_f16_128x256x64_1x2x1_0_tnn_"
	  "align8_warpspecialized_cooperative_epi_tma", 9, 0, 262144, GPUPROJ_TPREC_FP16,
	  "HGMMA.64x128x16" },
};

START_TEST(kernel_names)
{
	struct gpuproj_tensor_shape s;

	ck_assert_int_eq(gpuproj_tensor_shape_from_name(name_cases[_i].name,
							name_cases[_i].cc_major,
							name_cases[_i].cc_minor, &s), GPUPROJ_OK);
	ck_assert_double_eq(s.flop_per_inst, name_cases[_i].flop);
	ck_assert_int_eq(s.prec, name_cases[_i].prec);
	ck_assert_str_eq(s.shape, name_cases[_i].shape);
	ck_assert_int_eq(s.source, GPUPROJ_SHAPE_NAME);
}
END_TEST

START_TEST(kernel_names_without_shape)
{
	static const char *const names[] = {
		"ampere_sgemm_128x64_tn", "_Z6kernelPf", "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n",
		"void at::native::vectorized_elementwise_kernel<4>(int)", "dgemm", "x884gemm",
	};
	struct gpuproj_tensor_shape s;
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(names); i++)
		ck_assert_msg(gpuproj_tensor_shape_from_name(names[i], 8, 0, &s) ==
			      GPUPROJ_E_NOTFOUND, "%s", names[i]);
	/* m8n8k4 FP16 has no tensor instruction from sm_80 on */
	ck_assert_int_eq(gpuproj_tensor_shape_from_name("volta_h884gemm_64x64_ldg8_nn", 8, 0, &s),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_int_eq(gpuproj_tensor_shape_from_name(NULL, 8, 0, &s), GPUPROJ_E_INVAL);
}
END_TEST

/* Defaults per architecture (tensor.h table). */
static const struct {
	int major, minor;
	enum gpuproj_tensor_op op;
	double flop;
	const char *shape;
	bool caveat;
} default_cases[] = {
	{ 7, 0, GPUPROJ_TOP_HMMA, 512, "HMMA.884.F32", false },
	{ 7, 0, GPUPROJ_TOP_IMMA, NAN, "", false },
	{ 7, 5, GPUPROJ_TOP_HMMA, 2048, "HMMA.1688", false },
	{ 7, 5, GPUPROJ_TOP_IMMA, 2048, "IMMA.8816", false },
	{ 8, 0, GPUPROJ_TOP_HMMA, 4096, "HMMA.16816", false },
	{ 8, 6, GPUPROJ_TOP_IMMA, 8192, "IMMA.16832", false },
	{ 8, 9, GPUPROJ_TOP_DMMA, 512, "DMMA.884", false },
	{ 9, 0, GPUPROJ_TOP_HMMA, 4096, "HMMA.16816", true },
	{ 9, 0, GPUPROJ_TOP_DMMA, 4096, "DMMA.16x8x16", false },
	{ 10, 0, GPUPROJ_TOP_HMMA, NAN, "UTCHMMA", true },
	{ 10, 0, GPUPROJ_TOP_DMMA, 512, "DMMA.8x8x4", false },
	{ 12, 0, GPUPROJ_TOP_HMMA, 4096, "HMMA.16816", false },
	{ 0, 0, GPUPROJ_TOP_HMMA, 4096, "HMMA.16816", true },
};

START_TEST(defaults)
{
	struct gpuproj_tensor_shape s;

	ck_assert_int_eq(gpuproj_tensor_shape_default(default_cases[_i].major,
						      default_cases[_i].minor,
						      default_cases[_i].op, &s), GPUPROJ_OK);
	if (isnan(default_cases[_i].flop))
		ck_assert(isnan(s.flop_per_inst));
	else
		ck_assert_double_eq(s.flop_per_inst, default_cases[_i].flop);
	ck_assert_str_eq(s.shape, default_cases[_i].shape);
	ck_assert_int_eq(s.caveat[0] != '\0', default_cases[_i].caveat);
	ck_assert_int_eq(s.source, GPUPROJ_SHAPE_DEFAULT);
	ck_assert_int_eq(gpuproj_tensor_shape_default(8, 0, GPUPROJ_TOP_NONE, &s),
			 GPUPROJ_E_INVAL);
}
END_TEST

/* Spot checks of the counter table against the host API's lists (out-<CHIP>.txt). */
#define HMMA_RT "sm__inst_executed_pipe_tensor_subpipe_hmma_realtime.sum"
#define CYC_RT "sm__pipe_tensor_cycles_active_realtime.sum"
#define INST_RT "sm__inst_executed_pipe_tensor_realtime.sum"

START_TEST(counters)
{
	/* GH100 does not split FP16 by accumulator */
	ck_assert(gpuproj_tensor_counter_exists("GH100", "sm__ops_path_tensor_src_fp16.sum"));
	ck_assert(!gpuproj_tensor_counter_exists("GH100",
						 "sm__ops_path_tensor_src_fp16_dst_fp32.sum"));
	ck_assert(gpuproj_tensor_counter_exists("GH100", "sm__inst_executed_pipe_tensor_op_gmma.sum"));
	ck_assert(gpuproj_tensor_counter_exists("GH100",
						"sm__ops_path_tensor_src_fp8_sparsity_on.sum"));
	ck_assert(!gpuproj_tensor_counter_exists("GH100",
						 "sm__ops_path_tensor_src_int8_sparsity_on.sum"));
	/* Volta: FP16 only; Turing: FP16/BF16/TF32 in one counter */
	ck_assert(!gpuproj_tensor_counter_exists("GV100", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"));
	ck_assert(gpuproj_tensor_counter_exists("TU104",
						"sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32.sum"));
	ck_assert(!gpuproj_tensor_counter_exists("TU116", "sm__ops_path_tensor_src_int8.sum"));
	/* Blackwell: realtime twins, but not of FP64 */
	ck_assert(gpuproj_tensor_counter_exists("GB100",
						"sm__ops_path_tensor_src_int8_realtime.sum"));
	ck_assert(!gpuproj_tensor_counter_exists("GB100",
						 "sm__ops_path_tensor_src_fp64_realtime.sum"));
	ck_assert(!gpuproj_tensor_counter_exists("GA100",
						 "sm__ops_path_tensor_src_int8_realtime.sum"));
	ck_assert(gpuproj_tensor_counter_exists("GB202", "sm__inst_executed_pipe_fp64_op_dmma.sum"));
	ck_assert(!gpuproj_tensor_counter_exists("GB202", "sm__inst_executed_pipe_tc.sum"));
	ck_assert(gpuproj_tensor_counter_exists("gb100", "sm__inst_executed_pipe_tc.sum"));
	/* every submetric, never a bare name; unknown chips and names */
	ck_assert(gpuproj_tensor_counter_exists(
		"GA100", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"));
	ck_assert(!gpuproj_tensor_counter_exists("GA100", "sm__pipe_tensor_cycles_active"));
	ck_assert(!gpuproj_tensor_counter_exists("GA100", "sm__pipe_tensor_cycles_active."));
	ck_assert(!gpuproj_tensor_counter_exists("GB300", "sm__inst_executed_pipe_tensor.sum"));
	ck_assert(!gpuproj_tensor_counter_exists("GA100", "dram__bytes.sum"));
	ck_assert(!gpuproj_tensor_counter_exists("GV11B", "sm__inst_executed_pipe_tensor.sum"));
	ck_assert(!gpuproj_tensor_counter_exists(NULL, "sm__inst_executed_pipe_tensor.sum"));
	/* GB20x's instruction and cycle counters have _realtime twins; GB100's do not. */
	ck_assert(gpuproj_tensor_counter_exists("GB202", HMMA_RT));
	ck_assert(gpuproj_tensor_counter_exists("GB20B", CYC_RT));
	ck_assert(!gpuproj_tensor_counter_exists("GB100", HMMA_RT));
	ck_assert(!gpuproj_tensor_counter_exists("GB202", INST_RT));
}
END_TEST

/* What each chip's tensor metrics resolve to (the first candidate all of whose terms exist). */
static const struct {
	const char *chip;
	enum gpuproj_tensor_mode mode;
	const char *names; /* comma-separated */
} resolved[] = {
	{ "GV100", GPUPROJ_TENSOR_OPS,
	  "sm__ops_path_tensor_src_fp16_dst_fp32.sum,sm__ops_path_tensor_src_fp16_dst_fp16.sum,"
	  "sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "TU102", GPUPROJ_TENSOR_OPS,
	  "sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32.sum,"
	  "sm__ops_path_tensor_src_fp16_dst_fp16.sum,sm__ops_path_tensor_src_int8.sum,"
	  "sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "GA100", GPUPROJ_TENSOR_OPS,
	  "sm__ops_path_tensor_src_fp16_dst_fp32.sum,"
	  "sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_on.sum,"
	  "sm__ops_path_tensor_src_fp16_dst_fp16.sum,"
	  "sm__ops_path_tensor_src_fp16_dst_fp16_sparsity_on.sum,"
	  "sm__ops_path_tensor_src_bf16_dst_fp32.sum,"
	  "sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_on.sum,"
	  "sm__ops_path_tensor_src_tf32_dst_fp32.sum,"
	  "sm__ops_path_tensor_src_tf32_dst_fp32_sparsity_on.sum,"
	  "sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_int8_sparsity_on.sum,"
	  "sm__ops_path_tensor_src_fp64.sum,sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "GH100", GPUPROJ_TENSOR_OPS,
	  "sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,"
	  "sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum,"
	  "sm__ops_path_tensor_src_fp8_sparsity_on.sum,sm__ops_path_tensor_src_int8.sum,"
	  "sm__ops_path_tensor_src_fp64.sum,sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "GB100", GPUPROJ_TENSOR_OPS,
	  "sm__ops_path_tensor_src_fp16_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_fp16_dst_fp16_realtime.sum,"
	  "sm__ops_path_tensor_src_bf16_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_tf32_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp16_realtime.sum,"
	  "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_fp4_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_int8_realtime.sum,sm__ops_path_tensor_src_fp64.sum,"
	  "sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "GB202", GPUPROJ_TENSOR_OPS,
	  "sm__ops_path_tensor_src_fp16_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_fp16_dst_fp16_realtime.sum,"
	  "sm__ops_path_tensor_src_bf16_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_tf32_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_fp8_dst_fp16_realtime.sum,"
	  "sm__ops_path_tensor_src_fp8_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_fp4_fp6_dst_fp16_realtime.sum,"
	  "sm__ops_path_tensor_src_fp4_fp6_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_fp4_dst_fp32_realtime.sum,"
	  "sm__ops_path_tensor_src_int8_realtime.sum,sm__ops_path_tensor_src_fp64.sum,"
	  "sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "GA100", GPUPROJ_TENSOR_INST,
	  "sm__inst_executed_pipe_tensor_op_hmma.sum,"
	  "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum,"
	  "sm__inst_executed_pipe_tensor_op_imma.sum,sm__inst_executed_pipe_tensor_op_dmma.sum,"
	  "sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "AD102", GPUPROJ_TENSOR_INST,
	  "sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_imma.sum,"
	  "sm__inst_executed_pipe_fp64_op_dmma.sum,sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "GB202", GPUPROJ_TENSOR_INST,
	  "sm__inst_executed_pipe_tensor_subpipe_hmma.sum,"
	  "sm__inst_executed_pipe_tensor_subpipe_imma.sum,"
	  "sm__inst_executed_pipe_fp64_op_dmma.sum,sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "GA100", GPUPROJ_TENSOR_OFF, "" },
	/* tcgen05: no static shape for HMMA and IMMA, so only DMMA's count gives FLOP. */
	{ "GB100", GPUPROJ_TENSOR_INST,
	  "sm__inst_executed_pipe_tensor_subpipe_dmma.sum,sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	/* No operation counters: instruction counts × the CC 7.5 shapes. */
	{ "TU116", GPUPROJ_TENSOR_OPS,
	  "sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_tensor_op_imma.sum,"
	  "sm__inst_executed_pipe_tensor.sum,"
	  "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active" },
	{ "GV11B", GPUPROJ_TENSOR_OPS, "" },
};

START_TEST(metric_names)
{
	const char *names[64];
	char joined[4096] = "";
	size_t n = gpuproj_tensor_metric_names(resolved[_i].chip, resolved[_i].mode, names, 64), i;

	ck_assert_uint_le(n, 64);
	for (i = 0; i < n; i++) {
		ck_assert(gpuproj_tensor_counter_exists(resolved[_i].chip, names[i]));
		strcat(joined, i ? "," : "");
		strcat(joined, names[i]);
	}
	ck_assert_str_eq(joined, resolved[_i].names);
}
END_TEST

START_TEST(modes_and_candidates)
{
	const struct gpuproj_tensor_candidate *c;
	enum gpuproj_tensor_mode m;

	ck_assert_int_eq(gpuproj_tensor_mode_from_name("INST", &m), GPUPROJ_OK);
	ck_assert_int_eq(m, GPUPROJ_TENSOR_INST);
	ck_assert_int_eq(gpuproj_tensor_mode_from_name("flops", &m), GPUPROJ_E_NOTFOUND);
	ck_assert_str_eq(gpuproj_tensor_mode_name(GPUPROJ_TENSOR_OPS), "ops");
	ck_assert_ptr_null(gpuproj_tensor_mode_name(GPUPROJ_TENSOR_MODE_COUNT));
	/* only tensor metrics have candidates here; off has none */
	ck_assert_uint_eq(gpuproj_tensor_candidates(GPUPROJ_TENSOR_OPS, GPUPROJ_M_BYTES_L1, &c), 0);
	ck_assert_ptr_null(c);
	ck_assert_uint_eq(gpuproj_tensor_candidates(GPUPROJ_TENSOR_OFF,
						    GPUPROJ_M_FLOP_TENSOR_FP16, &c), 0);
	ck_assert_uint_eq(gpuproj_tensor_candidates(GPUPROJ_TENSOR_INST,
						    GPUPROJ_M_FLOP_TENSOR_BF16, &c), 0);
	ck_assert_uint_eq(gpuproj_tensor_candidates(GPUPROJ_TENSOR_INST,
						    GPUPROJ_M_FLOP_TENSOR_FP16, &c), 4);
	ck_assert_int_eq(c[0].op, GPUPROJ_TOP_HMMA);
	/* the NERSC recipe's lone counter last (only an import can lack the others) */
	ck_assert_str_eq(c[3].expr, "sm__inst_executed_pipe_tensor.sum");
	ck_assert_uint_eq(gpuproj_tensor_candidates(GPUPROJ_TENSOR_OPS,
						    GPUPROJ_M_TENSOR_UTILIZATION, &c), 1);
	ck_assert_double_eq(c[0].scale, 0.01);
	{
		int major = 0, minor = 0;

		ck_assert(gpuproj_tensor_chip_cc("GA102", &major, &minor));
		ck_assert_int_eq(major * 10 + minor, 86);
		ck_assert(!gpuproj_tensor_chip_cc("GB300", &major, &minor));
	}
}
END_TEST

/*
 * The candidate-expression syntax both tables use, parsed by one function
 * (gpuproj_nv_expr_term()): plain names, weighted terms, and what is
 * refused; then every candidate of both tables parses to the end.
 */
START_TEST(expression_terms)
{
	const char *p = "a.sum+-1*b.sum+0.5*c", *name = NULL;
	size_t len = 0, m, i;
	double f = 0;

	ck_assert_int_eq(gpuproj_nv_expr_term(&p, &name, &len, &f), 1);
	ck_assert(len == 5 && strncmp(name, "a.sum", len) == 0 && f == 1);
	ck_assert_int_eq(gpuproj_nv_expr_term(&p, &name, &len, &f), 1);
	ck_assert(len == 5 && strncmp(name, "b.sum", len) == 0 && f == -1);
	ck_assert_int_eq(gpuproj_nv_expr_term(&p, &name, &len, &f), 1);
	ck_assert(len == 1 && name[0] == 'c' && f == 0.5);
	ck_assert_int_eq(gpuproj_nv_expr_term(&p, &name, &len, &f), 0);
	p = "x1*a";
	ck_assert_int_eq(gpuproj_nv_expr_term(&p, &name, &len, &f), -1);
	p = "a++b";
	ck_assert_int_eq(gpuproj_nv_expr_term(&p, &name, &len, &f), 1);
	ck_assert_int_eq(gpuproj_nv_expr_term(&p, &name, &len, &f), -1);
	p = "2*";
	ck_assert_int_eq(gpuproj_nv_expr_term(&p, &name, &len, &f), -1);

	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		const struct gpuproj_nv_candidate *nv;
		const struct gpuproj_tensor_candidate *tc;
		size_t n = gpuproj_nv_candidates((enum gpuproj_metric)m, &nv);
		size_t nt = gpuproj_tensor_candidates(GPUPROJ_TENSOR_OPS, (enum gpuproj_metric)m, &tc);

		for (i = 0; i < n + nt; i++) {
			const char *e = i < n ? nv[i].expr : tc[i - n].expr;
			int r;

			p = e;
			while ((r = gpuproj_nv_expr_term(&p, &name, &len, &f)) > 0)
				;
			ck_assert_msg(r == 0, "%s: a malformed candidate", e);
		}
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("tensor");
	TCase *tc = tcase_create("tensor");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, sass_opcodes, 0, ARRAY_LENGTH(sass_cases));
	tcase_add_test(tc, sass_not_tensor);
	tcase_add_loop_test(tc, kernel_names, 0, ARRAY_LENGTH(name_cases));
	tcase_add_test(tc, kernel_names_without_shape);
	tcase_add_loop_test(tc, defaults, 0, ARRAY_LENGTH(default_cases));
	tcase_add_test(tc, counters);
	tcase_add_loop_test(tc, metric_names, 0, ARRAY_LENGTH(resolved));
	tcase_add_test(tc, modes_and_candidates);
	tcase_add_test(tc, expression_terms);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
