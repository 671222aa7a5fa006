/* SPDX-License-Identifier: MIT */
/*
 * Tensor-core counters, candidates and instruction shapes
 * (include/gpuproj/tensor.h, which says what every number rests on).
 *
 * The counter table was generated from the CUPTI 13.0 profiler host API's
 * metric list per chip (cuptiProfilerHostGetBaseMetrics and
 * cuptiProfilerHostConfigAddMetrics of every name, API 130001, no GPU; the
 * enumeration output is kept in ../research/enum/out-<CHIP>.txt) and is
 * checked against the host API on all 30 chips by
 * tests/inject/test-cupti-host.c. It has no other dependency, so the CUPTI
 * test double (tests/fake) compiles it too and refuses what the real chips
 * lack.
 *
 * Thread safety: constant data and pure functions.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/error.h>
#include <gpuproj/tensor.h>

#include "target-chips.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the counter table ---- */

/* Counter base names (".sum" etc. appended by the user). */
enum ctr {
	/* operation counters, sm__ops_path_tensor_src_… */
	C_FP16_FP32 = 0, C_FP16, C_FP16_BF16_TF32_FP32, C_FP16_FP16, C_BF16_FP32, C_TF32_FP32,
	C_FP8, C_FP8_FP16, C_FP8_FP32, C_FP468_FP16, C_FP468_FP32, C_FP46_FP16, C_FP46_FP32,
	C_FP4_FP32, C_INT8, C_FP64,
	C_OPS_END,
	/* instruction and cycle counters */
	C_INST = C_OPS_END, C_HMMA_OP, C_HMMA_SUB, C_HFMA2, C_IMMA_OP, C_IMMA_SUB, C_DMMA_OP,
	C_DMMA_SUB, C_DMMA_FP64, C_GMMA, C_TC, C_CYCLES,
	C_COUNT
};

#define OPS "sm__ops_path_tensor_src_"
static const char *const ctr_name[C_COUNT] = {
	[C_FP16_FP32] = OPS "fp16_dst_fp32",
	[C_FP16] = OPS "fp16",
	[C_FP16_BF16_TF32_FP32] = OPS "fp16_bf16_tf32_dst_fp32",
	[C_FP16_FP16] = OPS "fp16_dst_fp16",
	[C_BF16_FP32] = OPS "bf16_dst_fp32",
	[C_TF32_FP32] = OPS "tf32_dst_fp32",
	[C_FP8] = OPS "fp8",
	[C_FP8_FP16] = OPS "fp8_dst_fp16",
	[C_FP8_FP32] = OPS "fp8_dst_fp32",
	[C_FP468_FP16] = OPS "fp4_fp6_fp8_dst_fp16",
	[C_FP468_FP32] = OPS "fp4_fp6_fp8_dst_fp32",
	[C_FP46_FP16] = OPS "fp4_fp6_dst_fp16",
	[C_FP46_FP32] = OPS "fp4_fp6_dst_fp32",
	[C_FP4_FP32] = OPS "fp4_dst_fp32",
	[C_INT8] = OPS "int8",
	[C_FP64] = OPS "fp64",
	[C_INST] = "sm__inst_executed_pipe_tensor",
	[C_HMMA_OP] = "sm__inst_executed_pipe_tensor_op_hmma",
	[C_HMMA_SUB] = "sm__inst_executed_pipe_tensor_subpipe_hmma",
	[C_HFMA2] = "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2",
	[C_IMMA_OP] = "sm__inst_executed_pipe_tensor_op_imma",
	[C_IMMA_SUB] = "sm__inst_executed_pipe_tensor_subpipe_imma",
	[C_DMMA_OP] = "sm__inst_executed_pipe_tensor_op_dmma",
	[C_DMMA_SUB] = "sm__inst_executed_pipe_tensor_subpipe_dmma",
	[C_DMMA_FP64] = "sm__inst_executed_pipe_fp64_op_dmma",
	[C_GMMA] = "sm__inst_executed_pipe_tensor_op_gmma",
	[C_TC] = "sm__inst_executed_pipe_tc",
	[C_CYCLES] = "sm__pipe_tensor_cycles_active",
};

#define B(c) (1u << (c))
/* The instruction and cycle counters of the families. */
#define I_VOLTA (B(C_INST) | B(C_HMMA_OP) | B(C_CYCLES))
#define I_TURING (I_VOLTA | B(C_IMMA_OP))
#define I_GA10X (I_TURING | B(C_DMMA_FP64))
#define I_GA100 (I_TURING | B(C_DMMA_OP) | B(C_HFMA2))
#define I_GH100 (I_GA100 | B(C_GMMA))
#define I_GB (B(C_INST) | B(C_HMMA_SUB) | B(C_IMMA_SUB) | B(C_TC) | B(C_CYCLES))
/* Operation counters. */
#define O_AMPERE (B(C_FP16_FP32) | B(C_FP16_FP16) | B(C_BF16_FP32) | B(C_TF32_FP32) | \
		  B(C_INT8) | B(C_FP64))
#define O_GB100 (O_AMPERE | B(C_FP468_FP16) | B(C_FP468_FP32) | B(C_FP4_FP32))
#define O_GB202 (O_AMPERE | B(C_FP8_FP16) | B(C_FP8_FP32) | B(C_FP46_FP16) | B(C_FP46_FP32) | \
		 B(C_FP4_FP32))
/* `_sparsity_on` twins. */
#define S_AMPERE (B(C_FP16_FP32) | B(C_FP16_FP16) | B(C_BF16_FP32) | B(C_TF32_FP32) | B(C_INT8))
#define S_GB202 (B(C_FP8_FP16) | B(C_FP8_FP32) | B(C_FP46_FP16) | B(C_FP46_FP32) | B(C_FP4_FP32))

/* `_realtime` twins of instruction and cycle counters. */
#define RT_GB20X (B(C_HMMA_SUB) | B(C_IMMA_SUB) | B(C_CYCLES))

/*
 * The chips of one compute capability (with or without tensor cores) and
 * their tensor counters; which chips those are comes from the chip table
 * (target-chips.c: every chip the host API lists). `realtime`: every
 * operation counter but FP64 has a `_realtime` twin; `rt_more`: other
 * counters with one (GB20x: the per-subpipe instructions and the pipe's
 * active cycles). From the host API's enumeration (out-<CHIP>.txt); GV11B
 * is listed by the host API but refused by cuptiProfilerHostInitialize
 * (CUPTI_ERROR_NOT_SUPPORTED).
 */
static const struct family {
	int cc_major, cc_minor;
	bool tensor_cores;    /* the chips' target_chip.tensor_cores */
	unsigned has;         /* bits of enum ctr */
	unsigned sparse;      /* operation counters with a `_sparsity_on` twin */
	bool realtime;
	unsigned rt_more;     /* instruction and cycle counters with a `_realtime` twin */
} families[] = {
	/* GV100 */
	{ 7, 0, true, I_VOLTA | B(C_FP16_FP32) | B(C_FP16_FP16), 0, false, 0 },
	/* GV11B */
	{ 7, 2, true, 0, 0, false, 0 },
	/* TU102, TU104, TU106 */
	{ 7, 5, true, I_TURING | B(C_FP16_BF16_TF32_FP32) | B(C_FP16_FP16) | B(C_INT8), 0, false,
	  0 },
	/* TU116, TU117 (GTX 16xx): no tensor cores, but the pipe's counters exist. */
	{ 7, 5, false, I_TURING, 0, false, 0 },
	/* GA100 */
	{ 8, 0, true, I_GA100 | O_AMPERE, S_AMPERE, false, 0 },
	/* GA102 … GA107 */
	{ 8, 6, true, I_GA10X | O_AMPERE, S_AMPERE, false, 0 },
	/* GA10B */
	{ 8, 7, true, I_GA10X | B(C_HFMA2) | O_AMPERE, S_AMPERE, false, 0 },
	/* AD102 … AD107 */
	{ 8, 9, true, I_GA10X | O_AMPERE | B(C_FP8), S_AMPERE | B(C_FP8), false, 0 },
	/* Hopper (GH100): FP16 not split by accumulator; no INT4. */
	{ 9, 0, true,
	  I_GH100 | B(C_FP16) | B(C_BF16_FP32) | B(C_TF32_FP32) | B(C_FP8) | B(C_INT8) |
		  B(C_FP64),
	  B(C_FP8), false, 0 },
	/* GB100, GB102 */
	{ 10, 0, true, I_GB | B(C_DMMA_SUB) | O_GB100, 0, true, 0 },
	/* GB110 */
	{ 10, 3, true, I_GB | B(C_DMMA_FP64) | O_GB202, 0, true, 0 },
	/* GB10B */
	{ 11, 0, true, I_GB | B(C_DMMA_FP64) | O_GB100, 0, true, 0 },
	/* GB202 … GB207 */
	{ 12, 0, true, (I_GB & ~B(C_TC)) | B(C_DMMA_FP64) | O_GB202, S_GB202, true, RT_GB20X },
	/* GB20B */
	{ 12, 1, true, (I_GB & ~B(C_TC)) | B(C_DMMA_FP64) | O_GB202, S_GB202, true, RT_GB20X },
};

/* Whether the host API lists the chip (the chips the counter table covers). */
static bool
host_api_lists(const struct target_chip *c)
{
	return c && (c->cupti == TARGET_CHIP_CUPTI_FULL || c->cupti == TARGET_CHIP_CUPTI_NO_DRAM ||
		     c->cupti == TARGET_CHIP_CUPTI_REFUSED);
}

static const struct family *
family_of(const char *chip)
{
	const struct target_chip *c = target_chip_find(chip);
	size_t f;

	if (!host_api_lists(c))
		return NULL;
	for (f = 0; f < N_OF(families); f++) {
		if (families[f].cc_major == c->cc_major && families[f].cc_minor == c->cc_minor &&
		    families[f].tensor_cores == c->tensor_cores)
			return &families[f];
	}
	return NULL;
}

bool
gpuproj_tensor_chip_known(const char *chip)
{
	return family_of(chip) != NULL;
}

bool
gpuproj_tensor_chip_cc(const char *chip, int *ret_major, int *ret_minor)
{
	const struct family *f = family_of(chip);

	if (!f)
		return false;
	if (ret_major)
		*ret_major = f->cc_major;
	if (ret_minor)
		*ret_minor = f->cc_minor;
	return true;
}

/* Does the family have base name `base` (len bytes), twins included? */
static bool
family_has_base(const struct family *f, const char *base, size_t len)
{
	static const char rt[] = "_realtime", sp[] = "_sparsity_on";
	size_t c;

	for (c = 0; c < C_COUNT; c++) {
		size_t n = strlen(ctr_name[c]);

		if (!(f->has & B(c)) || len < n || strncmp(base, ctr_name[c], n) != 0)
			continue;
		if (len == n)
			return true;
		if (((c < C_OPS_END && c != C_FP64 && f->realtime) || (f->rt_more & B(c))) &&
		    len == n + sizeof(rt) - 1 &&
		    strncmp(base + n, rt, sizeof(rt) - 1) == 0)
			return true;
		if ((f->sparse & B(c)) && len == n + sizeof(sp) - 1 &&
		    strncmp(base + n, sp, sizeof(sp) - 1) == 0)
			return true;
	}
	return false;
}

bool
gpuproj_tensor_counter_exists(const char *chip, const char *name)
{
	const struct family *f = family_of(chip);
	const char *dot;

	if (!f || !name || !(dot = strchr(name, '.')) || !dot[1])
		return false;
	return family_has_base(f, name, (size_t)(dot - name));
}

size_t
gpuproj_tensor_counter_names(const char **names, size_t max)
{
	size_t c;

	for (c = 0; c < C_COUNT && c < max; c++)
		names[c] = ctr_name[c];
	return C_COUNT;
}

/* ---- candidates ---- */

#define SUM(x) OPS x ".sum"
#define RT(x) OPS x "_realtime.sum"
/* Executed work of a counter with a `_sparsity_on` twin (tensor.h "Structured sparsity"). */
#define DENSE(x) OPS x ".sum+-0.5*" OPS x "_sparsity_on.sum"
#define OPC(e) { e, GPUPROJ_TOP_NONE, 1.0 }

/*
 * Instruction counts (GPUPROJ_TENSOR=inst, and the last resort of ops on a
 * chip without the operation counter, such as TU116/TU117) × the chip's
 * default FLOP per instruction. HFMA2.MMA (a register move that ptxas
 * issues on the tensor pipe) is inside op_hmma on GA100/GH100 and
 * subtracted where counted.
 */
#define I_HMMA \
	{ "sm__inst_executed_pipe_tensor_op_hmma.sum+-1*" \
	  "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum", GPUPROJ_TOP_HMMA, 1 }, \
	{ "sm__inst_executed_pipe_tensor_op_hmma.sum", GPUPROJ_TOP_HMMA, 1 }, \
	{ "sm__inst_executed_pipe_tensor_subpipe_hmma.sum", GPUPROJ_TOP_HMMA, 1 }, \
	I_NERSC
/*
 * Every tensor-pipe instruction taken as the default HMMA: the NERSC
 * hierarchical-roofline recipe [Yang2020] collects
 * only this counter. Every chip has the per-type counters above, so
 * libproj.so never gets here; `gpuproj import ncu` does on such exports.
 */
#define I_NERSC { "sm__inst_executed_pipe_tensor.sum", GPUPROJ_TOP_HMMA, 1 }
#define I_IMMA \
	{ "sm__inst_executed_pipe_tensor_op_imma.sum", GPUPROJ_TOP_IMMA, 1 }, \
	{ "sm__inst_executed_pipe_tensor_subpipe_imma.sum", GPUPROJ_TOP_IMMA, 1 }
#define I_DMMA \
	{ "sm__inst_executed_pipe_tensor_op_dmma.sum", GPUPROJ_TOP_DMMA, 1 }, \
	{ "sm__inst_executed_pipe_tensor_subpipe_dmma.sum", GPUPROJ_TOP_DMMA, 1 }, \
	{ "sm__inst_executed_pipe_fp64_op_dmma.sum", GPUPROJ_TOP_DMMA, 1 }

static const struct gpuproj_tensor_candidate c_fp16[] = {
	OPC(RT("fp16_dst_fp32")), OPC(DENSE("fp16_dst_fp32")), OPC(SUM("fp16_dst_fp32")),
	/* GH100: FP16 not split by accumulator; Turing: FP16 the only one of the three. */
	OPC(SUM("fp16")), OPC(SUM("fp16_bf16_tf32_dst_fp32")), I_HMMA,
};
static const struct gpuproj_tensor_candidate c_fp16_acc16[] = {
	OPC(RT("fp16_dst_fp16")), OPC(DENSE("fp16_dst_fp16")), OPC(SUM("fp16_dst_fp16")),
};
static const struct gpuproj_tensor_candidate c_bf16[] = {
	OPC(RT("bf16_dst_fp32")), OPC(DENSE("bf16_dst_fp32")), OPC(SUM("bf16_dst_fp32")),
};
static const struct gpuproj_tensor_candidate c_tf32[] = {
	OPC(RT("tf32_dst_fp32")), OPC(DENSE("tf32_dst_fp32")), OPC(SUM("tf32_dst_fp32")),
};
/*
 * FP8: GB110/GB20x split it by accumulator; GB100's UTCQMMA counts FP8, FP6
 * and FP4 inputs together (kind::f8f6f4 runs all three at the FP8 rate);
 * Ada and Hopper have one counter.
 */
static const struct gpuproj_tensor_candidate c_fp8[] = {
	OPC(RT("fp8_dst_fp16") "+" RT("fp8_dst_fp32")),
	OPC(SUM("fp8_dst_fp16") "+" SUM("fp8_dst_fp32")),
	OPC(RT("fp4_fp6_fp8_dst_fp16") "+" RT("fp4_fp6_fp8_dst_fp32")),
	OPC(SUM("fp4_fp6_fp8_dst_fp16") "+" SUM("fp4_fp6_fp8_dst_fp32")),
	OPC(DENSE("fp8")), OPC(SUM("fp8")),
};
/* FP4 and FP6: GB110/GB20x's FP4/FP6 and FP4 paths; GB100's UTCOMMA (FP4). */
static const struct gpuproj_tensor_candidate c_fp4[] = {
	OPC(RT("fp4_fp6_dst_fp16") "+" RT("fp4_fp6_dst_fp32") "+" RT("fp4_dst_fp32")),
	OPC(SUM("fp4_fp6_dst_fp16") "+" SUM("fp4_fp6_dst_fp32") "+" SUM("fp4_dst_fp32")),
	OPC(RT("fp4_dst_fp32")), OPC(SUM("fp4_dst_fp32")),
};
static const struct gpuproj_tensor_candidate c_int8[] = {
	OPC(RT("int8")), OPC(DENSE("int8")), OPC(SUM("int8")), I_IMMA,
};
static const struct gpuproj_tensor_candidate c_fp64[] = { OPC(SUM("fp64")), I_DMMA };
static const struct gpuproj_tensor_candidate c_inst[] = {
	OPC("sm__inst_executed_pipe_tensor.sum"),
};
/* Active cycles of the pipe / active SM cycles: percent → 0..1. */
static const struct gpuproj_tensor_candidate c_util[] = {
	{ "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", GPUPROJ_TOP_NONE,
	  0.01 },
};
static const struct gpuproj_tensor_candidate i_fp16[] = { I_HMMA };
static const struct gpuproj_tensor_candidate i_int8[] = { I_IMMA };
static const struct gpuproj_tensor_candidate i_fp64[] = { I_DMMA };

#define CANDS(a) { a, N_OF(a) }
static const struct {
	const struct gpuproj_tensor_candidate *c;
	size_t n;
} cands[GPUPROJ_TENSOR_MODE_COUNT][GPUPROJ_M_COUNT] = {
	[GPUPROJ_TENSOR_OPS] = {
		[GPUPROJ_M_FLOP_TENSOR_FP16] = CANDS(c_fp16),
		[GPUPROJ_M_FLOP_TENSOR_FP16_ACC16] = CANDS(c_fp16_acc16),
		[GPUPROJ_M_FLOP_TENSOR_BF16] = CANDS(c_bf16),
		[GPUPROJ_M_FLOP_TENSOR_TF32] = CANDS(c_tf32),
		[GPUPROJ_M_FLOP_TENSOR_FP8] = CANDS(c_fp8),
		[GPUPROJ_M_FLOP_TENSOR_FP4] = CANDS(c_fp4),
		[GPUPROJ_M_FLOP_TENSOR_INT8] = CANDS(c_int8),
		[GPUPROJ_M_FLOP_TENSOR_FP64] = CANDS(c_fp64),
		[GPUPROJ_M_INST_TENSOR] = CANDS(c_inst),
		[GPUPROJ_M_TENSOR_UTILIZATION] = CANDS(c_util),
	},
	[GPUPROJ_TENSOR_INST] = {
		[GPUPROJ_M_FLOP_TENSOR_FP16] = CANDS(i_fp16),
		[GPUPROJ_M_FLOP_TENSOR_INT8] = CANDS(i_int8),
		[GPUPROJ_M_FLOP_TENSOR_FP64] = CANDS(i_fp64),
		[GPUPROJ_M_INST_TENSOR] = CANDS(c_inst),
		[GPUPROJ_M_TENSOR_UTILIZATION] = CANDS(c_util),
	},
};

size_t
gpuproj_tensor_candidates(enum gpuproj_tensor_mode mode, enum gpuproj_metric m,
			  const struct gpuproj_tensor_candidate **ret)
{
	if (ret)
		*ret = NULL;
	if ((unsigned)mode >= GPUPROJ_TENSOR_MODE_COUNT || (unsigned)m >= GPUPROJ_M_COUNT)
		return 0;
	if (ret)
		*ret = cands[mode][m].c;
	return cands[mode][m].n;
}

/*
 * Every term of the candidates as a string of its own, so that
 * gpuproj_tensor_metric_names() can hand out static names
 * (tests/unit/test-tensor.c checks that each term is here).
 */
#define T3(x) SUM(x), RT(x), OPS x "_sparsity_on.sum"
static const char *const terms[] = {
	T3("fp16_dst_fp32"), T3("fp16_dst_fp16"), T3("bf16_dst_fp32"), T3("tf32_dst_fp32"),
	T3("fp8"), T3("fp8_dst_fp16"), T3("fp8_dst_fp32"), T3("fp4_fp6_fp8_dst_fp16"),
	T3("fp4_fp6_fp8_dst_fp32"), T3("fp4_fp6_dst_fp16"), T3("fp4_fp6_dst_fp32"),
	T3("fp4_dst_fp32"), T3("int8"), SUM("fp16"), SUM("fp16_bf16_tf32_dst_fp32"), SUM("fp64"),
	"sm__inst_executed_pipe_tensor.sum",
	"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_tensor_op_hmma.sum",
	"sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum",
	"sm__inst_executed_pipe_tensor_subpipe_hmma.sum",
	"sm__inst_executed_pipe_tensor_op_imma.sum",
	"sm__inst_executed_pipe_tensor_subpipe_imma.sum",
	"sm__inst_executed_pipe_tensor_op_dmma.sum",
	"sm__inst_executed_pipe_tensor_subpipe_dmma.sum",
	"sm__inst_executed_pipe_fp64_op_dmma.sum",
};

/*
 * Term `t` of expr without its "factor*": start and length; NULL past the
 * last. Names only; the weights are parsed by gpuproj_nv_expr_term()
 * (nvmetrics.h), which this file does not call because the test double
 * compiles it alone, without util.c's strtod_c().
 */
static const char *
term_at(const char *expr, size_t t, size_t *len)
{
	const char *p = expr, *star;
	size_t i;

	for (i = 0; i < t && p; i++) {
		p = strchr(p, '+');
		if (p)
			p++;
	}
	if (!p || !*p)
		return NULL;
	*len = strcspn(p, "+");
	star = memchr(p, '*', *len);
	if (star) {
		*len -= (size_t)(star + 1 - p);
		p = star + 1;
	}
	return p;
}

/* The static string of a term, or NULL when terms[] lacks it. */
static const char *
term_static(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < N_OF(terms); i++) {
		if (strlen(terms[i]) == len && strncmp(terms[i], p, len) == 0)
			return terms[i];
	}
	return NULL;
}

size_t
gpuproj_tensor_metric_names(const char *chip, enum gpuproj_tensor_mode mode, const char **names,
			    size_t max)
{
	const struct family *f = family_of(chip);
	size_t n = 0, m, i, t, j, len;

	if (!f)
		return 0;
	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		const struct gpuproj_tensor_candidate *c;
		size_t nc = gpuproj_tensor_candidates(mode, (enum gpuproj_metric)m, &c);

		for (i = 0; i < nc; i++) {
			const char *p;
			bool all = true;

			/* As libproj.so: an instruction without a static shape gives no FLOP. */
			if (c[i].op != GPUPROJ_TOP_NONE) {
				struct gpuproj_tensor_shape sh;

				gpuproj_tensor_shape_default(f->cc_major, f->cc_minor, c[i].op,
							     &sh);
				if (!(sh.flop_per_inst > 0))
					continue;
			}
			for (t = 0; all && (p = term_at(c[i].expr, t, &len)); t++) {
				const char *name = term_static(p, len);

				all = name && gpuproj_tensor_counter_exists(chip, name);
			}
			if (!all)
				continue;
			for (t = 0; (p = term_at(c[i].expr, t, &len)); t++) {
				const char *name = term_static(p, len);
				bool seen = false;

				for (j = 0; j < n && j < max; j++)
					seen = seen || names[j] == name;
				if (seen)
					continue;
				if (n < max)
					names[n] = name;
				n++;
			}
			break;
		}
	}
	return n;
}

/* ---- modes ---- */

static const char *const mode_names[GPUPROJ_TENSOR_MODE_COUNT] = { "ops", "inst", "off" };

const char *
gpuproj_tensor_mode_name(enum gpuproj_tensor_mode m)
{
	return (unsigned)m < GPUPROJ_TENSOR_MODE_COUNT ? mode_names[m] : NULL;
}

int
gpuproj_tensor_mode_from_name(const char *s, enum gpuproj_tensor_mode *ret)
{
	size_t i;

	for (i = 0; s && i < GPUPROJ_TENSOR_MODE_COUNT; i++) {
		if (strcasecmp(s, mode_names[i]) == 0) {
			*ret = (enum gpuproj_tensor_mode)i;
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_NOTFOUND;
}

/* ---- instruction shapes ---- */

static void
shape_init(struct gpuproj_tensor_shape *s, enum gpuproj_tensor_op op,
	   enum gpuproj_tensor_shape_source src)
{
	memset(s, 0, sizeof(*s));
	s->flop_per_inst = NAN;
	s->op = op;
	s->source = src;
	s->prec = op == GPUPROJ_TOP_IMMA ? GPUPROJ_TPREC_INT8
		  : op == GPUPROJ_TOP_DMMA ? GPUPROJ_TPREC_FP64 : GPUPROJ_TPREC_FP16;
}

int
gpuproj_tensor_shape_default(int cc_major, int cc_minor, enum gpuproj_tensor_op op,
			     struct gpuproj_tensor_shape *out)
{
	bool unknown = cc_major <= 0;
	double f = NAN;
	const char *shape = "";

	if (!out || op <= GPUPROJ_TOP_NONE || op >= GPUPROJ_TOP_COUNT)
		return GPUPROJ_E_INVAL;
	shape_init(out, op, GPUPROJ_SHAPE_DEFAULT);
	(void)cc_minor;
	if (unknown)
		cc_major = 8;
	switch (op) {
	case GPUPROJ_TOP_HMMA:
		if (cc_major == 7 && cc_minor < 5) {
			f = 512, shape = "HMMA.884.F32"; /* 4 per m8n8k4 op, FP32 accumulate */
		} else if (cc_major == 7) {
			f = 2048, shape = "HMMA.1688";
		} else if (cc_major == 10 || cc_major == 11) {
			shape = "UTCHMMA"; /* tcgen05: M, N, K in the runtime descriptor */
			snprintf(out->caveat, sizeof(out->caveat),
				 "tcgen05 MMAs carry their shape in a runtime descriptor");
		} else if (cc_major >= 8) {
			f = 4096, shape = "HMMA.16816";
			if (cc_major == 9)
				snprintf(out->caveat, sizeof(out->caveat), "a lower bound if the "
					 "kernel uses HGMMA (16384 to 524288 FLOP each)");
		}
		break;
	case GPUPROJ_TOP_IMMA:
		if (cc_major == 7 && cc_minor >= 5) {
			f = 2048, shape = "IMMA.8816";
		} else if (cc_major == 10 || cc_major == 11) {
			shape = "UTCIMMA";
			snprintf(out->caveat, sizeof(out->caveat),
				 "tcgen05 MMAs carry their shape in a runtime descriptor");
		} else if (cc_major >= 8) {
			f = 8192, shape = "IMMA.16832";
			if (cc_major == 9)
				snprintf(out->caveat, sizeof(out->caveat), "a lower bound if the "
					 "kernel uses IGMMA (16384 to 524288 OP each)");
		}
		break;
	case GPUPROJ_TOP_DMMA:
		if (cc_major == 8)
			f = 512, shape = "DMMA.884";
		else if (cc_major == 9)
			f = 4096, shape = "DMMA.16x8x16";
		else if (cc_major >= 10)
			f = 512, shape = "DMMA.8x8x4";
		break;
	case GPUPROJ_TOP_NONE:
	case GPUPROJ_TOP_COUNT:
		break;
	}
	out->flop_per_inst = f;
	snprintf(out->shape, sizeof(out->shape), "%s", shape);
	if (unknown && !out->caveat[0])
		snprintf(out->caveat, sizeof(out->caveat),
			 "compute capability unknown: taken as 8.0");
	return GPUPROJ_OK;
}

/* Case-insensitive substring. */
static bool
has(const char *s, const char *word)
{
	return strcasestr(s, word) != NULL;
}

/* A token of `s` (split at anything but letters and digits) equal to word. */
static bool
has_token(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p = s;

	while ((p = strcasestr(p, word))) {
		bool left = p == s || !isalnum((unsigned char)p[-1]);
		bool right = !isalnum((unsigned char)p[n]);

		if (left && right)
			return true;
		p++;
	}
	return false;
}

/* "16816" → 16, 8, 16; "884" → 8, 8, 4 (the shapes ptxas emits: M 8 or 16, N 8). */
static bool
parse_packed(const char *d, size_t len, int *m, int *n, int *k)
{
	char buf[8];

	if (len < 3 || len >= sizeof(buf))
		return false;
	if (len >= 4 && d[0] == '1' && d[1] == '6' && d[2] == '8') {
		*m = 16;
		memcpy(buf, d + 3, len - 3);
		buf[len - 3] = '\0';
	} else if (d[0] == '8' && d[1] == '8') {
		*m = 8;
		memcpy(buf, d + 2, len - 2);
		buf[len - 2] = '\0';
	} else {
		return false;
	}
	*n = 8;
	*k = atoi(buf);
	return *k > 0;
}

/* "64x128x16" → 64, 128, 16. */
static bool
parse_x(const char *d, size_t len, int *m, int *n, int *k)
{
	char buf[24], *e;
	long v[3];
	int i;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, d, len);
	buf[len] = '\0';
	e = buf;
	for (i = 0; i < 3; i++) {
		char *end;

		v[i] = strtol(e, &end, 10);
		if (end == e || v[i] <= 0 || v[i] > 4096 || (i < 2 && *end != 'x') ||
		    (i == 2 && *end))
			return false;
		e = end + 1;
	}
	*m = (int)v[0];
	*n = (int)v[1];
	*k = (int)v[2];
	return true;
}

/* Fill FLOP and the shape name from M, N, K (op and prec set). */
static void
shape_finish(struct gpuproj_tensor_shape *s, int m, int n, int k, int arch, bool acc16)
{
	static const char *const fam[GPUPROJ_TOP_COUNT] = { "", "HMMA", "IMMA", "DMMA" };
	const char *name = fam[s->op];

	if (m == 64) {
		s->warpgroup = true;
		name = s->op == GPUPROJ_TOP_IMMA ? "IGMMA"
		       : s->prec == GPUPROJ_TPREC_FP8 ? "QGMMA" : "HGMMA";
		snprintf(s->shape, sizeof(s->shape), "%s.%dx%dx%d", name, m, n, k);
		s->flop_per_inst = 2.0 * m * n * k;
		return;
	}
	if (s->op == GPUPROJ_TOP_HMMA && s->prec == GPUPROJ_TPREC_FP8)
		name = "QMMA";
	if (s->op == GPUPROJ_TOP_HMMA && s->prec == GPUPROJ_TPREC_FP4)
		name = "OMMA";
	if (s->op == GPUPROJ_TOP_DMMA && arch >= 90)
		snprintf(s->shape, sizeof(s->shape), "%s.%dx%dx%d", name, m, n, k);
	else
		snprintf(s->shape, sizeof(s->shape), "%s.%d%d%d", name, m, n, k);
	s->flop_per_inst = 2.0 * m * n * k;
	/*
	 * Volta/Turing HMMA.884: one m8n8k4 op per warp (4 MMAs of 8x8x4 on its
	 * quad pairs, 2048 FLOP) is 4 SASS steps with FP32 accumulate, 2 with FP16.
	 */
	if (s->op == GPUPROJ_TOP_HMMA && m == 8 && n == 8 && k == 4) {
		s->flop_per_inst = acc16 ? 1024 : 512;
		snprintf(s->shape, sizeof(s->shape), "HMMA.884.%s", acc16 ? "F16" : "F32");
	}
}

int
gpuproj_tensor_shape_from_name(const char *kernel, int cc_major, int cc_minor,
			       struct gpuproj_tensor_shape *out)
{
	const char *p, *g;
	int m = 0, n = 0, k = 0, arch = cc_major > 0 ? cc_major * 10 + cc_minor : 0;
	char acc = 0;
	bool found = false;

	if (!kernel || !out)
		return GPUPROJ_E_INVAL;
	/*
	 * <acc><shape>[<type>]gemm: the shape is the run of digits (and x)
	 * before "gemm" ("s16816gemm", "s1688tf32gemm", "s64x128x16gemm").
	 */
	for (p = kernel; !found && (g = strcasestr(p, "gemm")); p = g + 4) {
		static const char *const types[] = { "tf32", "bf16", "fp16", "f16", "i8", "fp8" };
		const char *e = g, *s;
		size_t i;

		for (i = 0; i < N_OF(types); i++) {
			size_t l = strlen(types[i]);

			if ((size_t)(g - kernel) > l && strncasecmp(g - l, types[i], l) == 0) {
				e = g - l;
				break;
			}
		}
		for (s = e; s > kernel && (isdigit((unsigned char)s[-1]) || s[-1] == 'x'); s--)
			;
		if (s == e || s == kernel || !strchr("hsidHSID", s[-1]))
			continue;
		acc = (char)tolower((unsigned char)s[-1]);
		found = memchr(s, 'x', (size_t)(e - s)) ? parse_x(s, (size_t)(e - s), &m, &n, &k) &&
								  m == 64
							: parse_packed(s, (size_t)(e - s), &m, &n, &k);
	}
	/* xmma: "..._tensor16x8x16_...". */
	for (p = kernel; !found && (g = strcasestr(p, "tensor")); p = g + 6) {
		size_t len = strspn(g + 6, "0123456789x");

		found = len && parse_x(g + 6, len, &m, &n, &k) && (m == 8 || m == 16 || m == 64);
	}
	if (!found)
		return GPUPROJ_E_NOTFOUND;
	if (acc == 'd' || has(kernel, "fp64") || has(kernel, "f64") || has_token(kernel, "dgemm"))
		shape_init(out, GPUPROJ_TOP_DMMA, GPUPROJ_SHAPE_NAME);
	else if (acc == 'i' || has(kernel, "int8") || has_token(kernel, "s8") ||
		 has_token(kernel, "i8") || has_token(kernel, "u8"))
		shape_init(out, GPUPROJ_TOP_IMMA, GPUPROJ_SHAPE_NAME);
	else
		shape_init(out, GPUPROJ_TOP_HMMA, GPUPROJ_SHAPE_NAME);
	if (out->op == GPUPROJ_TOP_HMMA) {
		if (has(kernel, "e4m3") || has(kernel, "e5m2") || has(kernel, "fp8"))
			out->prec = GPUPROJ_TPREC_FP8;
		else if (has(kernel, "tf32"))
			out->prec = GPUPROJ_TPREC_TF32;
		else if (has(kernel, "bf16"))
			out->prec = GPUPROJ_TPREC_BF16;
		else if (acc == 'h')
			out->prec = GPUPROJ_TPREC_FP16_ACC16;
	}
	shape_finish(out, m, n, k, arch, acc == 'h');
	/* HMMA.884 does not exist from sm_80 on (m8n8k4 FP16 runs on the FMA pipe there). */
	if (out->op == GPUPROJ_TOP_HMMA && m == 8 && k == 4 && arch >= 80)
		return GPUPROJ_E_NOTFOUND;
	if (out->warpgroup)
		snprintf(out->caveat, sizeof(out->caveat), "per warpgroup instruction (4 warps) "
			 "[GPU?: how the counter counts it]");
	return GPUPROJ_OK;
}

/* The element type among an opcode's modifiers. */
static enum gpuproj_tensor_prec
sass_prec(const char *mods, enum gpuproj_tensor_op op)
{
	if (op == GPUPROJ_TOP_IMMA)
		return GPUPROJ_TPREC_INT8;
	if (op == GPUPROJ_TOP_DMMA)
		return GPUPROJ_TPREC_FP64;
	if (strstr(mods, ".E2M1") || strstr(mods, ".E3M2") || strstr(mods, ".E2M3"))
		return GPUPROJ_TPREC_FP4;
	if (strstr(mods, ".E4M3") || strstr(mods, ".E5M2"))
		return GPUPROJ_TPREC_FP8;
	if (strstr(mods, ".TF32"))
		return GPUPROJ_TPREC_TF32;
	if (strstr(mods, ".BF16"))
		return GPUPROJ_TPREC_BF16;
	/* HMMA.16816.F16: FP16 accumulate; .F32 (or HMMA.884.F16.F16 vs .F32.F32). */
	if (strncmp(mods, ".F16", 4) == 0 || strstr(mods, ".F16.F16"))
		return GPUPROJ_TPREC_FP16_ACC16;
	return GPUPROJ_TPREC_FP16;
}

bool
gpuproj_tensor_sass_op(const char *opcode, int arch, struct gpuproj_tensor_shape *out)
{
	static const struct {
		const char *mnemonic;
		enum gpuproj_tensor_op op;
		bool warpgroup, utc;
	} ops[] = {
		{ "HMMA", GPUPROJ_TOP_HMMA, false, false }, { "QMMA", GPUPROJ_TOP_HMMA, false, false },
		{ "OMMA", GPUPROJ_TOP_HMMA, false, false }, { "IMMA", GPUPROJ_TOP_IMMA, false, false },
		{ "BMMA", GPUPROJ_TOP_IMMA, false, false }, { "DMMA", GPUPROJ_TOP_DMMA, false, false },
		{ "HGMMA", GPUPROJ_TOP_HMMA, true, false }, { "QGMMA", GPUPROJ_TOP_HMMA, true, false },
		{ "IGMMA", GPUPROJ_TOP_IMMA, true, false }, { "BGMMA", GPUPROJ_TOP_IMMA, true, false },
		{ "UTCHMMA", GPUPROJ_TOP_HMMA, false, true },
		{ "UTCQMMA", GPUPROJ_TOP_HMMA, false, true },
		{ "UTCOMMA", GPUPROJ_TOP_HMMA, false, true },
		{ "UTCIMMA", GPUPROJ_TOP_IMMA, false, true },
	};
	struct gpuproj_tensor_shape s;
	const char *mods, *d;
	size_t len, i, dlen;
	int m = 0, n = 0, k = 0;
	bool ok;

	if (!opcode)
		return false;
	len = strcspn(opcode, ".");
	mods = opcode + len;
	for (i = 0; i < N_OF(ops); i++) {
		if (strlen(ops[i].mnemonic) == len && strncmp(opcode, ops[i].mnemonic, len) == 0)
			break;
	}
	if (i == N_OF(ops))
		return false;
	shape_init(&s, ops[i].op, GPUPROJ_SHAPE_SASS);
	/* The element types follow the shape: "HMMA.16816.F32.BF16", "OMMA.SF.16864.F32.E2M1…". */
	d = *mods == '.' ? mods + 1 : mods;
	if (strncmp(d, "SF.", 3) == 0)
		d += 3;
	dlen = strcspn(d, ".");
	s.prec = sass_prec(ops[i].utc ? mods : d + dlen, ops[i].op);
	if (strncmp(opcode, "BMMA", 4) == 0 || strncmp(opcode, "BGMMA", 5) == 0)
		s.prec = GPUPROJ_TPREC_COUNT; /* 1-bit: no precision of the profile */
	if (ops[i].utc) {
		if (strncmp(opcode, "UTCQMMA", 7) == 0)
			s.prec = GPUPROJ_TPREC_FP8;
		else if (strncmp(opcode, "UTCOMMA", 7) == 0)
			s.prec = GPUPROJ_TPREC_FP4;
		snprintf(s.shape, sizeof(s.shape), "%.*s", (int)(strcspn(opcode, " ,;")),
			 opcode);
		snprintf(s.caveat, sizeof(s.caveat),
			 "tcgen05: M, N, K in the runtime instruction descriptor");
		if (out)
			*out = s;
		return true;
	}
	/* The shape: the first modifier ("16816", "884", "8x8x4", "64x128x16"). */
	ok = memchr(d, 'x', dlen) ? parse_x(d, dlen, &m, &n, &k) : parse_packed(d, dlen, &m, &n, &k);
	if (!ok)
		return false;
	shape_finish(&s, m, n, k, arch, s.prec == GPUPROJ_TPREC_FP16_ACC16);
	if (ops[i].warpgroup) {
		s.warpgroup = true;
		snprintf(s.shape, sizeof(s.shape), "%.*s.%.*s", (int)len, opcode, (int)dlen, d);
	} else if (ops[i].op == GPUPROJ_TOP_HMMA && len == 4 && strncmp(opcode, "HMMA", 4) != 0) {
		snprintf(s.shape, sizeof(s.shape), "%.*s.%.*s", (int)len, opcode, (int)dlen, d);
	}
	if (out)
		*out = s;
	return true;
}
