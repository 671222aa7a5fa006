/* SPDX-License-Identifier: MIT */
/**
 * @file tensor.h
 * Tensor-core work: which NVIDIA counters give it on which
 * chip, the candidates libproj.so and `gpuproj ncu-metrics` collect, and
 * the FLOP of one tensor instruction where only instruction counts exist.
 *
 * **Counters.** Nsight Perf SDK metrics, as the CUPTI 13.0 profiler host
 * API (API 130001, libnvperf_host 13.0) lists them per chip; the table in
 * src/tensor.c was generated from that enumeration on all 30 chip names the
 * host API knows (the chips of src/target-chips.c it lists, GV100 … GB20B;
 * tests/inject/test-cupti-host.c host_chip_list compares the two lists) and
 * is checked against the real host API by tests/inject/test-cupti-host.c
 * (tensor_table_matches_host). docs/internals/injection.md "Tensor cores"
 * has the replay passes per chip and mode.
 *
 * - `sm__ops_path_tensor_src_<in>[_dst_<acc>]`: "# of math ops executed in
 *   Tensor path with source X and destination Y" (dimension `math_op`),
 *   GV100 and later; one FLOP per math op is assumed (FLOP = 2 per
 *   multiply-add, so an op is one multiply or one add) **[GPU?]**: not
 *   yet checked on a GPU; the check to add to scripts/gpu_acceptance.py
 *   compares flop.tensor.fp16 of an mma micro-kernel with its known FLOP. Hopper's
 *   warpgroup MMA (HGMMA/QGMMA/IGMMA) and Blackwell's tcgen05 path
 *   (UTCHMMA/UTCQMMA/UTCIMMA/UTCOMMA) are inside these counters (the host
 *   API's per-op split `sm__ops_path_tensor_op_{hgmma,utchmma,…}_…` sums to
 *   them). Blackwell (GB1xx, GB20x) has a `_realtime` twin of each (but
 *   FP64) that needs far fewer replay passes; they are preferred
 *   **[GPU?: equal values]**.
 * - `sm__inst_executed_pipe_tensor`: warp instructions of the tensor pipe,
 *   every chip; per type `_op_{hmma,imma,dmma}` (Volta … Hopper),
 *   `_subpipe_{hmma,imma,dmma}` (Blackwell); DMMA runs on the FP64 pipe on
 *   GA10x, AD10x, GB110, GB10B and GB20x (`sm__inst_executed_pipe_fp64_op_dmma`).
 *
 * **Structured sparsity.** flop.tensor.* is the work the tensor pipe
 * executed: a 2:4-sparse MMA counts the multiply-adds it performs (half its
 * dense-equivalent), so that it divides by the dense rates of targets.yaml
 * (`peak_tensor` is dense). The plain ops counters are taken to count a
 * sparse MMA at its dense-equivalent (their peak is the sparse peak)
 * **[GPU?]**; the `_sparsity_on` twin tells the two apart: where a chip has
 * one for the chosen counter at no extra replay pass (GA100, GA10x, AD10x;
 * GH100 FP8) the candidate is `X − ½ X_sparsity_on`; elsewhere sparse
 * MMAs stay as the counter counts them (docs/internals/injection.md says where).
 *
 * **Instruction shapes.** One SASS MMA instruction does 2·M·N·K FLOP (its
 * shape is in the opcode: HMMA.16816 = 16×8×16 = 4,096 FLOP), except
 * Volta's HMMA.884 (4 instructions per m8n8k4 op with FP32 accumulate: 512
 * FLOP each; 2 with FP16: 1,024), Hopper's warpgroup MMAs (64×N×K per
 * warpgroup instruction, N in the opcode) and tcgen05 (shape in a runtime
 * descriptor: unknown statically). Verified by compiling one-instruction
 * PTX for sm_70 … sm_120 and disassembling it (nvdisasm 13.0 and 11.8;
 * ../research/tensor-shapes.md). The instruction counters split by type
 * only, not by shape: in a public A100 export the same 20480³ FP16 GEMM
 * gives 2,048 FLOP per `sm__inst_executed_pipe_tensor` instruction by
 * CUTLASS (HMMA.1688) and 4,096 by cuBLAS (HMMA.16816). The NERSC
 * hierarchical-roofline recipe [Yang2020] multiplies that counter by 512,
 * right for Volta's HMMA.884 with FP32 accumulate only.
 *
 * Thread safety: constant data and pure functions.
 */
#ifndef GPUPROJ_TENSOR_H
#define GPUPROJ_TENSOR_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What libproj.so collects of tensor work (GPUPROJ_TENSOR, docs/internals/injection.md). */
enum gpuproj_tensor_mode {
	/** Operation counters per precision (FLOP measured), instructions, pipe utilisation */
	GPUPROJ_TENSOR_OPS = 0,
	/** Instruction counters only (no extra replay pass): FLOP assumed from a shape */
	GPUPROJ_TENSOR_INST = 1,
	/** No tensor counter */
	GPUPROJ_TENSOR_OFF = 2,
	GPUPROJ_TENSOR_MODE_COUNT
};

/** @return "ops", "inst", "off", or NULL out of range */
const char *gpuproj_tensor_mode_name(enum gpuproj_tensor_mode m);
/**
 * @param[out] ret the mode named `s` ("ops", "inst", "off"; case-insensitive)
 * @return GPUPROJ_OK or GPUPROJ_E_NOTFOUND
 */
int gpuproj_tensor_mode_from_name(const char *s, enum gpuproj_tensor_mode *ret);

/** A tensor instruction family, as the per-type instruction counters split them. */
enum gpuproj_tensor_op {
	GPUPROJ_TOP_NONE = 0, /**< not an instruction count: an operation counter */
	GPUPROJ_TOP_HMMA,     /**< floating-point MMA: HMMA, HGMMA, QMMA, QGMMA, OMMA, UTC[HQO]MMA */
	GPUPROJ_TOP_IMMA,     /**< integer MMA: IMMA, IGMMA, UTCIMMA (BMMA: 1-bit) */
	GPUPROJ_TOP_DMMA,     /**< FP64 MMA: DMMA */
	GPUPROJ_TOP_COUNT
};

/**
 * One way to obtain a logical tensor metric: `expr` is a sum of NVIDIA
 * metric names, each optionally preceded by a factor and "*"
 * ("a.sum+-0.5*b.sum"). The value is scale × Σ factor·term; for an
 * instruction count (`op` not NONE), scale is the FLOP per instruction of
 * the chip (gpuproj_tensor_shape_default()) and is given here as 1.
 * Units of the value: FLOP for flop.tensor.* (integer operations for
 * int8), warp instructions for inst.tensor, tensor-pipe active cycles /
 * SM active cycles (0–1) for tensor.utilization (enum gpuproj_metric).
 * gpuproj_nv_expr_term() (nvmetrics.h) parses `expr`.
 */
struct gpuproj_tensor_candidate {
	const char *expr;
	enum gpuproj_tensor_op op;
	double scale;
};

/**
 * The candidates of a logical metric in a mode, best first (tried in
 * order; the first whose every term the chip has wins). Tensor metrics are
 * flop.tensor.*, inst.tensor and tensor.utilization; any other metric has
 * none. In GPUPROJ_TENSOR_OPS the FLOP lists end with the instruction
 * counts of GPUPROJ_TENSOR_INST (`op` set), for chips without the
 * operation counter (TU116/TU117; GV100 has no INT8 one).
 * @param[out] ret the array (static), NULL when there are none
 * @return the number of candidates
 */
size_t gpuproj_tensor_candidates(enum gpuproj_tensor_mode mode, enum gpuproj_metric m,
				 const struct gpuproj_tensor_candidate **ret);

/**
 * Whether a chip is in the counter table (one of the 30 chip names of the
 * CUPTI 13.0 host API; case-insensitive).
 */
bool gpuproj_tensor_chip_known(const char *chip);

/**
 * Whether NVIDIA metric `name` (a base name plus a submetric: ".sum",
 * ".avg.pct_of_peak_sustained_active", …) is a tensor counter of the table
 * that `chip` has, as the CUPTI 13.0 host API says (every counter of the
 * table accepts every counter submetric there; a bare base name is never
 * accepted).
 * @return false for a name outside the table, an unknown chip, no submetric
 */
bool gpuproj_tensor_counter_exists(const char *chip, const char *name);

/**
 * Every tensor counter base name of the table (for tests and docs).
 * @param[out] names up to max names (static strings)
 * @return the number of names
 */
size_t gpuproj_tensor_counter_names(const char **names, size_t max);

/**
 * The NVIDIA metrics a chip needs for the tensor metrics in `mode`: the
 * terms of each tensor metric's first candidate the chip has, in metric
 * order, each once (what `gpuproj ncu-metrics` adds; libproj.so resolves
 * the same candidates with the host API).
 * @param chip a chip of the table; NULL or unknown: none
 * @param mode GPUPROJ_TENSOR_OPS, _INST or _OFF (none)
 * @param[out] names up to max names (static strings)
 * @return the number of names (may exceed max; beyond max, a name may be
 *         counted twice, as only the names stored are checked for repeats:
 *         pass room for 64 to get the exact count)
 */
size_t gpuproj_tensor_metric_names(const char *chip, enum gpuproj_tensor_mode mode,
				   const char **names, size_t max);

/** Where an instruction's FLOP came from. */
enum gpuproj_tensor_shape_source {
	GPUPROJ_SHAPE_SASS = 0,    /**< the SASS opcode */
	GPUPROJ_SHAPE_NAME,        /**< the kernel's name ("s16816gemm", "tensor16x8x16") */
	GPUPROJ_SHAPE_DEFAULT,     /**< the architecture's default (gpuproj_tensor_shape_default()) */
};

/** The FLOP of one tensor instruction and what they rest on. */
struct gpuproj_tensor_shape {
	/** FLOP (integer: operations) per warp instruction; NaN when not static (tcgen05) */
	double flop_per_inst;
	enum gpuproj_tensor_prec prec;      /**< input precision (and accumulate for FP16) */
	enum gpuproj_tensor_op op;          /**< instruction family */
	enum gpuproj_tensor_shape_source source;
	/** per warpgroup (4 warps) instruction rather than per warp: Hopper's GMMA */
	bool warpgroup;
	char shape[40];                     /**< "HMMA.16816", "HGMMA.64x128x16", "UTCHMMA" */
	/** why the number may be wrong, or "" ("lower bound if the kernel uses HGMMA") */
	char caveat[96];
};

/**
 * The default instruction of a family on an architecture, for counts that
 * carry no shape (per-chip default of tensor-shapes.md §4: what cuBLAS and
 * CUTLASS issue for large GEMMs):
 *
 *   CC 7.0/7.2: HMMA.884.F32 512 (the NERSC recipe's constant; FP32 accumulate)
 *   CC 7.5:     HMMA.1688 2,048; IMMA.8816 2,048
 *   CC 8.x:     HMMA.16816 4,096; IMMA.16832 8,192; DMMA.884 512
 *   CC 9.0:     HMMA.16816 4,096 and IMMA.16832 8,192 (a lower bound for
 *               warpgroup MMAs, 16,384 … 524,288 each); DMMA.16x8x16 4,096
 *   CC 10.x/11.x: HMMA, IMMA: none (tcgen05 shapes are runtime values); DMMA.8x8x4 512
 *   CC 12.x:    HMMA.16816 4,096; IMMA.16832 8,192; DMMA.8x8x4 512
 *
 * @param cc_major, cc_minor compute capability; 0.0: unknown (taken as 8.0, said in caveat)
 * @param op HMMA (FP16 inputs, FP32 accumulate), IMMA (INT8) or DMMA (FP64)
 * @param[out] out the shape (flop_per_inst NaN where there is none)
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (op NONE or out of range, NULL out)
 */
int gpuproj_tensor_shape_default(int cc_major, int cc_minor, enum gpuproj_tensor_op op,
				 struct gpuproj_tensor_shape *out);

/** The compute capability of a chip of the table ("GA102" → 8.6). @return false if unknown */
bool gpuproj_tensor_chip_cc(const char *chip, int *ret_major, int *ret_minor);

/**
 * The shape and precision a kernel's name states, as cuBLAS, cuBLASLt and
 * CUTLASS name their kernels: `<acc><shape>gemm` with acc h (FP16
 * accumulate), s (FP32), i (INT32), d (FP64) and the instruction shape
 * ("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn" →
 * HMMA.16816, FP16 inputs, FP32 accumulate: 4,096 FLOP;
 * "volta_h884gemm_…" → HMMA.884.F16 1,024; "turing_fp16_s1688gemm_…" →
 * 2,048; "ampere_tf32_s1688gemm_tf32_…" → TF32 2,048; "…_i16832gemm_s8…" →
 * INT8 8,192), CUTLASS 3's warpgroup `s64x128x16gemm` (per warpgroup
 * instruction), and xmma's `…_tensor16x8x16_…`; the input precision from
 * fp16/f16/bf16/tf32/int8/i8/s8/e4m3/e5m2/fp8/f64 tokens (default FP16).
 *
 * @param kernel the name (mangled or not)
 * @param cc_major, cc_minor the architecture (HMMA.884's FLOP depend on it); 0: unknown
 * @param[out] out the shape, source GPUPROJ_SHAPE_NAME
 * @return GPUPROJ_OK; GPUPROJ_E_NOTFOUND (the name states no shape); GPUPROJ_E_INVAL
 */
int gpuproj_tensor_shape_from_name(const char *kernel, int cc_major, int cc_minor,
				   struct gpuproj_tensor_shape *out);

/**
 * Recognise a SASS tensor instruction from its opcode with modifiers, as
 * nvdisasm prints it: HMMA, IMMA, BMMA, DMMA, QMMA, OMMA (sm_70 … sm_120),
 * HGMMA, IGMMA, QGMMA, BGMMA (sm_90a), UTCHMMA, UTCQMMA, UTCIMMA, UTCOMMA
 * (sm_100a; FLOP NaN: shape in the instruction descriptor). `HFMA2.MMA`
 * (a register move on the tensor pipe) is not tensor work.
 * @param opcode "HMMA.16816.F32.BF16", "HGMMA.64x128x16.F32", "DMMA.8x8x4"
 * @param arch the architecture (70 for sm_70): HMMA.884's FLOP depend on it
 * @param[out] out the shape (source GPUPROJ_SHAPE_SASS)
 * @return true for a tensor MMA instruction
 */
bool gpuproj_tensor_sass_op(const char *opcode, int arch, struct gpuproj_tensor_shape *out);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_TENSOR_H */
