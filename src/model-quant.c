/* SPDX-License-Identifier: MIT */
/*
 * quant — quantitative roofline: E. Konstantinidis and Y. Cotronis, "A
 * quantitative roofline model for GPU kernel performance estimation using
 * micro-benchmarks and hardware metric profiling", JPDC 107 (2017); seed
 * 003 (the thesis summary), §2.2, formulas 2–19, Tables 1–3.
 *
 * Kernel parameters (Table 2) from the profile of the source GPU. The
 * seed's nvprof metrics (Table 1) and what stands in for them here:
 *
 * | seed (nvprof)          | notation  | gpuproj metric  | NVPW (include/gpuproj/nvmetrics.h)                       |
 * |---|---|---|---|
 * | flop_count_sp_fma      | M_fma32   | inst.fp32.fma   | smsp__sass_thread_inst_executed_op_ffma_pred_on.sum      |
 * | flop_count_dp_fma      | M_fma64   | inst.fp64.fma   | smsp__sass_thread_inst_executed_op_dfma_pred_on.sum      |
 * | inst_compute_ld_st     | M_ldst    | inst.ldst       | smsp__sass_thread_inst_executed_op_memory_pred_on.sum    |
 * | inst_executed          | M_inst    | inst.warp       | smsp__inst_executed.sum                                  |
 * | inst_fp_32             | M_fp32    | inst.fp32       | smsp__sass_thread_inst_executed_op_fp32_pred_on.sum      |
 * | inst_fp_64             | M_fp64    | inst.fp64       | smsp__sass_thread_inst_executed_op_fp64_pred_on.sum      |
 * | inst_integer           | M_int     | inst.int        | smsp__sass_thread_inst_executed_op_integer_pred_on.sum   |
 * | dram_read_transactions + dram_write_transactions | M_tran-r + M_tran-w | bytes.dram / 32 | dram__bytes.sum (= 32 × dram__sectors.sum) |
 *
 * All "thread-level" counts are per non-predicated thread, as in nvprof.
 * The gpuperfpredict importer maps the nvprof columns directly
 * (src/import-gpuperfpredict.c).
 *
 *   K_type = fp64 if M_fp64 > 0, else fp32 if M_fp32 > 0, else int
 *   W_comp = M_fp32 + M_fma32 | M_fp64 + M_fma64 | M_int              (2)
 *   W_traf = 32·(M_tran-r + M_tran-w) = bytes.dram                     (3)
 *   E_mix  = (M_fp + M_fma) / (2·M_fp) | 50 % for int                  (4)
 *   D_ops = I_ops / I_total, D_ldst = M_ldst / I_total,
 *   D_other = 1 − D_ops − D_ldst (clamped at 0)                        (5–7)
 *   I_ops = M_fp32 | M_fp64 | M_int;  I_total = W·M_inst               (8, 9)
 * with W the source's warp size (32; the seed wrote 32).
 *
 * Device parameters (Table 3) from targets.yaml, each with the BASIS of
 * its source so the output can say whether it was measured:
 *   T_SP = max_gflops.fp32_fma (measured) else peak_gflops.fp32_fma;
 *   T_DP likewise for fp64; T_int = peak_giops.int32_mad (2 ops per IMAD);
 *   T_add = peak_giops.int32_add; T_ldst = ldst_shared_gops;
 *   B_mem = bw_gbs.dram (the seed's micro-benchmarks measured all six;
 *   targets.yaml has measured values only where a benchmark was found).
 *
 *   T_op   = T_SP | T_DP | T_int                                       (10)
 *   W_op = T_SP / T_op; W_ldst = ½T_SP / T_ldst; W_other = ½T_SP / T_add (11–13)
 *   C_op = D_ops·W_op; C_ldst = D_ldst·W_ldst; C_other = D_other·W_other (14–16)
 *   E_instr = C_op / (C_op + C_ldst + C_other)                         (17)
 *   T'_op  = E_mix·E_instr·T_op                                        (18)
 *   O_krn = W_comp / W_traf, O_dev = T'_op / B_mem
 *   T_predicted = T'_op if O_krn > O_dev, else O_krn·B_mem              (19)
 *   time = W_comp / T_predicted = max(W_comp / T'_op, W_traf / B_mem)
 *
 * The point estimate is that time. The interval is [time, W_comp/T'_op +
 * W_traf/B_mem]: from compute and memory fully overlapped (the roofline's,
 * and the seed's, assumption) to not overlapped at all — our addition, so
 * that coverage means something for a model that predicts one number.
 * Binding: "compute" when O_krn > O_dev, else "dram".
 *
 * Assumptions (the seed's): one pipeline issues every instruction, no
 * co-issue; beneficial operations are MADs; "other" instructions cost an
 * integer add; the kernel is neither latency-bound nor short of
 * parallelism (it predicts an upper bound on performance otherwise). The
 * source time is not used; only the warp size of the source matters.
 * With the SASS comparison, W_comp is scaled by the target/source FLOP
 * ratio; with the L2-capacity option, W_traf is the target's
 * DRAM-equivalent traffic.
 *
 * Thread safety: stateless and reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

const char *
gpuproj_ktype_name(enum gpuproj_ktype t)
{
	switch (t) {
	case GPUPROJ_KTYPE_FP32: return "fp32";
	case GPUPROJ_KTYPE_FP64: return "fp64";
	case GPUPROJ_KTYPE_INT: return "int";
	}
	return "?";
}

const char *
gpuproj_quant_param_name(enum gpuproj_quant_param p)
{
	switch (p) {
	case GPUPROJ_QP_T_SP: return "T_SP";
	case GPUPROJ_QP_T_DP: return "T_DP";
	case GPUPROJ_QP_T_INT: return "T_int";
	case GPUPROJ_QP_T_ADD: return "T_add";
	case GPUPROJ_QP_T_LDST: return "T_ldst";
	case GPUPROJ_QP_B_MEM: return "B_mem";
	case GPUPROJ_QP_COUNT: break;
	}
	return "?";
}

/* The instruction classes and DRAM bytes of formulas 2–10. */
static const enum gpuproj_metric quant_metrics[] = {
	GPUPROJ_M_INST_FP32, GPUPROJ_M_INST_FP64, GPUPROJ_M_INST_INT, GPUPROJ_M_INST_LDST,
	GPUPROJ_M_INST_WARP, GPUPROJ_M_BYTES_DRAM,
};

/*
 * Thread-level FP instructions of precision p: inst.fp<p> when counted,
 * else the sum of its fma, add and mul counts; *any tells whether any was.
 */
static double
fp_inst(const struct gpuproj_kernel *k, enum gpuproj_prec p, bool *any)
{
	static const enum gpuproj_metric total[GPUPROJ_PREC_COUNT] = {
		GPUPROJ_M_INST_FP16, GPUPROJ_M_INST_FP32, GPUPROJ_M_INST_FP64,
	};
	double sum = 0;
	int j;

	if (gpuproj_kernel_has(k, total[p])) {
		*any = true;
		return gpuproj_kernel_metric(k, total[p]);
	}
	for (j = 0; j < 3; j++) {
		if (!gpuproj_kernel_has(k, model_fp_metrics[p][j]))
			continue;
		*any = true;
		sum += gpuproj_kernel_metric(k, model_fp_metrics[p][j]);
	}
	return sum;
}

/* A metric's per-launch value, or `dflt` when the kernel lacks it. */
static double
metric_or(const struct gpuproj_kernel *k, enum gpuproj_metric m, double dflt)
{
	return gpuproj_kernel_has(k, m) ? gpuproj_kernel_metric(k, m) : dflt;
}

/*
 * What formulas 2–10 cannot do without: an operation to time, W_comp
 * (formula 2): an FP instruction count or inst.int.
 */
void
quant_needs(const struct gpuproj_kernel *k, struct model_missing *out)
{
	bool any = false;

	fp_inst(k, GPUPROJ_FP32, &any);
	fp_inst(k, GPUPROJ_FP64, &any);
	if (!any && !gpuproj_kernel_has(k, GPUPROJ_M_INST_INT))
		model_missing_add(out, MODEL_FP_GROUP " or inst.int");
}

/*
 * The stand-ins of gpuproj_quant_kernel_params(): no inst.int, inst.ldst
 * or the FMA count of the kernel's type, 0 of them; no inst.warp, the
 * thread instructions counted / warp size (lower bounds: ASSUME_MIX); no
 * bytes.dram, W_traf = 0 (ASSUME_DRAM); no FP count, an integer kernel
 * (ASSUME_FLOP).
 */
unsigned
quant_assumes(const struct gpuproj_kernel *k)
{
	unsigned bits = 0;
	bool any = false;
	double fp64 = fp_inst(k, GPUPROJ_FP64, &any), fp32 = fp_inst(k, GPUPROJ_FP32, &any);

	if (!any)
		bits |= 1u << GPUPROJ_ASSUME_FLOP;
	if (!gpuproj_kernel_has(k, GPUPROJ_M_INST_INT) ||
	    !gpuproj_kernel_has(k, GPUPROJ_M_INST_LDST) ||
	    !gpuproj_kernel_has(k, GPUPROJ_M_INST_WARP) ||
	    (fp64 > 0 && !gpuproj_kernel_has(k, GPUPROJ_M_INST_FP64_FMA)) ||
	    (!(fp64 > 0) && fp32 > 0 && !gpuproj_kernel_has(k, GPUPROJ_M_INST_FP32_FMA)))
		bits |= 1u << GPUPROJ_ASSUME_MIX;
	if (!gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM))
		bits |= 1u << GPUPROJ_ASSUME_DRAM;
	return bits;
}

int
gpuproj_quant_kernel_params(const struct gpuproj_kernel *k, int warp_size,
			    struct gpuproj_quant_kernel *out, char *why, size_t whylen)
{
	double m_fp32, m_fp64, m_int, m_ldst, m_inst, fma = 0, m_fp = 0;
	struct model_missing missing = { 0 };
	bool any = false;
	size_t i;

	if (!k || !out || warp_size < 1)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	quant_needs(k, &missing);
	for (i = 0; i < ARRAY_LENGTH(quant_metrics); i++) {
		if (gpuproj_kernel_has(k, quant_metrics[i]) &&
		    gpuproj_kernel_metric(k, quant_metrics[i]) < 0) {
			if (why)
				snprintf(why, whylen, "metric %s is negative",
					 gpuproj_metric_name(quant_metrics[i]));
			return GPUPROJ_E_INVAL;
		}
	}
	m_fp32 = fp_inst(k, GPUPROJ_FP32, &any);
	m_fp64 = fp_inst(k, GPUPROJ_FP64, &any);
	/* K_type, by the seed's rule; needs M_fp64 and M_fp32 to decide. */
	if (m_fp64 > 0)
		out->type = GPUPROJ_KTYPE_FP64;
	else if (m_fp32 > 0)
		out->type = GPUPROJ_KTYPE_FP32;
	else
		out->type = GPUPROJ_KTYPE_INT;
	if (missing.n)
		return model_missing_why(&missing, "quant", why, whylen);

	/* The stand-ins of quant_assumes() for what the profile lacks. */
	m_int = metric_or(k, GPUPROJ_M_INST_INT, 0);
	m_ldst = metric_or(k, GPUPROJ_M_INST_LDST, 0);
	m_inst = metric_or(k, GPUPROJ_M_INST_WARP,
			   (m_fp32 + m_fp64 + fp_inst(k, GPUPROJ_FP16, &any) + m_int + m_ldst +
			    metric_or(k, GPUPROJ_M_INST_OTHER, 0)) / warp_size);
	switch (out->type) {
	case GPUPROJ_KTYPE_FP64:
		m_fp = m_fp64;
		fma = metric_or(k, GPUPROJ_M_INST_FP64_FMA, 0);
		break;
	case GPUPROJ_KTYPE_FP32:
		m_fp = m_fp32;
		fma = metric_or(k, GPUPROJ_M_INST_FP32_FMA, 0);
		break;
	case GPUPROJ_KTYPE_INT:
		break;
	}
	if (fma < 0 || m_fp < 0) {
		if (why)
			snprintf(why, whylen, "an FMA count is negative");
		return GPUPROJ_E_INVAL;
	}
	if (out->type == GPUPROJ_KTYPE_INT) {
		out->w_comp = m_int;                                    /* (2) */
		out->e_mix = 0.5;                                       /* (4) */
		out->i_ops = m_int;                                     /* (8) */
	} else {
		out->w_comp = m_fp + fma;                               /* (2) */
		out->e_mix = (m_fp + fma) / (2.0 * m_fp);               /* (4) */
		out->i_ops = m_fp;                                      /* (8) */
	}
	/* An FMA is one of the M_fp instructions: E_mix ≤ 1 for consistent counters. */
	if (out->e_mix > 1)
		out->e_mix = 1;
	out->w_traf = metric_or(k, GPUPROJ_M_BYTES_DRAM, 0);           /* (3) */
	out->i_total = (double)warp_size * m_inst;                     /* (9) */
	if (!(out->w_comp > 0) || !(out->i_total > 0)) {
		if (why)
			snprintf(why, whylen, "no %s (W_comp = %.6g, I_total = %.6g): nothing "
				 "for the quantitative roofline to scale",
				 out->w_comp > 0 ? "instruction" : "compute operation", out->w_comp,
				 out->i_total);
		return GPUPROJ_E_UNSUPPORTED;
	}
	out->d_ops = out->i_ops / out->i_total;                        /* (5) */
	out->d_ldst = m_ldst / out->i_total;                           /* (6) */
	out->d_other = fmax(1.0 - out->d_ops - out->d_ldst, 0.0);      /* (7) */
	return GPUPROJ_OK;
}

/* One parameter: a value, its key and (when `basis`) the BASIS of the key's source. */
static void
param(const struct gpuproj_target *gpu, struct gpuproj_quant_value *v, double value,
      const char *key, bool basis)
{
	v->value = value;
	v->key = key;
	v->basis = basis ? gpuproj_target_basis(gpu, key) : GPUPROJ_BASIS_NONE;
}

/* gpuproj_quant_device_params(), the source lookups only when asked. */
static void
device_params(const struct gpuproj_target *gpu, struct gpuproj_quant_device *out, bool basis)
{
	double sp = gpu->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA];
	double dp = gpu->max_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA];

	if (isnan(sp))
		param(gpu, &out->p[GPUPROJ_QP_T_SP], gpu->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA],
		      "peak_gflops.fp32_fma", basis);
	else
		param(gpu, &out->p[GPUPROJ_QP_T_SP], sp, "max_gflops.fp32_fma", basis);
	if (isnan(dp))
		param(gpu, &out->p[GPUPROJ_QP_T_DP], gpu->peak_gflops[GPUPROJ_FP64][GPUPROJ_OP_FMA],
		      "peak_gflops.fp64_fma", basis);
	else
		param(gpu, &out->p[GPUPROJ_QP_T_DP], dp, "max_gflops.fp64_fma", basis);
	param(gpu, &out->p[GPUPROJ_QP_T_INT], gpu->int32_mad_giops, "peak_giops.int32_mad", basis);
	param(gpu, &out->p[GPUPROJ_QP_T_ADD], gpu->int32_add_giops, "peak_giops.int32_add", basis);
	param(gpu, &out->p[GPUPROJ_QP_T_LDST], gpu->ldst_shared_gops, "ldst_shared_gops", basis);
	param(gpu, &out->p[GPUPROJ_QP_B_MEM], gpu->bw_gbs[GPUPROJ_LEVEL_DRAM], "bw_gbs.dram", basis);
}

void
gpuproj_quant_device_params(const struct gpuproj_target *gpu, struct gpuproj_quant_device *out)
{
	device_params(gpu, out, true);
}

int
gpuproj_quant_predict(const struct gpuproj_quant_kernel *kp, const struct gpuproj_quant_device *dp,
		      struct gpuproj_quant *out, char *why, size_t whylen)
{
	enum gpuproj_quant_param op;
	struct strbuf missing;
	double sp, tc, tm;
	int i;

	if (!kp || !dp || !out)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	out->k = *kp;
	out->d = *dp;
	op = kp->type == GPUPROJ_KTYPE_FP64 ? GPUPROJ_QP_T_DP
	     : kp->type == GPUPROJ_KTYPE_FP32 ? GPUPROJ_QP_T_SP : GPUPROJ_QP_T_INT;
	/* T_SP, T_op, T_ldst, T_add and B_mem are always needed. */
	strbuf_init(&missing);
	for (i = 0; i < GPUPROJ_QP_COUNT; i++) {
		if (i == GPUPROJ_QP_T_DP && op != GPUPROJ_QP_T_DP)
			continue;
		if (i == GPUPROJ_QP_T_INT && op != GPUPROJ_QP_T_INT)
			continue;
		if (!(dp->p[i].value > 0))
			strbuf_printf(&missing, "%s%s (%s)", missing.len ? ", " : "", dp->p[i].key,
				      gpuproj_quant_param_name((enum gpuproj_quant_param)i));
	}
	if (missing.len) {
		if (why)
			snprintf(why, whylen, "quant needs targets.yaml %s", missing.buf);
		strbuf_free(&missing);
		return GPUPROJ_E_MISSING;
	}
	strbuf_free(&missing);

	sp = dp->p[GPUPROJ_QP_T_SP].value;
	out->t_op = dp->p[op].value;                                          /* (10) */
	out->w_op = sp / out->t_op;                                           /* (11) */
	out->w_ldst = 0.5 * sp / dp->p[GPUPROJ_QP_T_LDST].value;              /* (12) */
	out->w_other = 0.5 * sp / dp->p[GPUPROJ_QP_T_ADD].value;              /* (13) */
	out->c_op = kp->d_ops * out->w_op;                                    /* (14) */
	out->c_ldst = kp->d_ldst * out->w_ldst;                               /* (15) */
	out->c_other = kp->d_other * out->w_other;                            /* (16) */
	out->e_instr = out->c_op / (out->c_op + out->c_ldst + out->c_other);  /* (17) */
	out->t_op_adj = kp->e_mix * out->e_instr * out->t_op;                 /* (18) */
	out->o_krn = kp->w_traf > 0 ? kp->w_comp / kp->w_traf : INFINITY;
	out->o_dev = out->t_op_adj / dp->p[GPUPROJ_QP_B_MEM].value;
	out->compute_bound = out->o_krn > out->o_dev;
	out->t_predicted = out->compute_bound ? out->t_op_adj                 /* (19) */
					      : out->o_krn * dp->p[GPUPROJ_QP_B_MEM].value;
	tc = kp->w_comp / out->t_op_adj;          /* G op / (G op/s) = s; ×1e9 → ns below */
	tm = kp->w_traf / dp->p[GPUPROJ_QP_B_MEM].value;
	out->t_comp_ns = tc;                      /* (ops / Gops/s) = ns */
	out->t_mem_ns = tm;                       /* (B / GB/s) = ns */
	out->time_ns = kp->w_comp / out->t_predicted;
	if (!(out->e_instr > 0) || !isfinite(out->time_ns)) {
		if (why)
			snprintf(why, whylen, "no beneficial instruction (D_ops = %.3g): "
				 "E_instr = 0", kp->d_ops);
		return GPUPROJ_E_UNSUPPORTED;
	}
	return GPUPROJ_OK;
}

/*
 * Kernel parameters for the target: W_comp × r, W_traf from the context;
 * `basis`: look up where each device parameter came from.
 */
static int
predict(const struct model_ctx *c, bool basis, struct gpuproj_quant *q, char *why, size_t whylen)
{
	struct gpuproj_quant_kernel kp;
	struct gpuproj_quant_device dp;
	int r;

	r = gpuproj_quant_kernel_params(c->k, c->src->warp_size, &kp, why, whylen);
	if (r)
		return r;
	kp.w_comp *= c->flop_ratio;
	if (!isnan(c->dram_equiv_tgt))
		kp.w_traf = c->dram_equiv_tgt;
	device_params(c->tgt, &dp, basis);
	return gpuproj_quant_predict(&kp, &dp, q, why, whylen);
}

/* Append "; basis: name" (first of a basis) or " name" to a fixed buffer, truncating. */
static void
note_add(char *buf, size_t size, const char *basis, const char *name)
{
	size_t len = strlen(buf);

	if (len + 1 >= size)
		return;
	if (basis)
		snprintf(buf + len, size - len, "; %s: %s", basis, name);
	else
		snprintf(buf + len, size - len, " %s", name);
}

int
quant_project(const struct model_ctx *c, struct gpuproj_projection *out)
{
	struct gpuproj_quant q;
	int r, b, i;

	r = predict(c, c->notes, &q, out->why, sizeof(out->why));
	if (r)
		return out->status = r;
	out->flop_ratio = c->flop_ratio;
	out->point_ns = out->lo_ns = q.time_ns;
	out->hi_ns = q.t_comp_ns + q.t_mem_ns;
	out->binding = q.compute_bound ? GPUPROJ_BOUND_COMPUTE : GPUPROJ_BOUND_DRAM;
	if (!c->notes)
		return out->status = GPUPROJ_OK;
	/* e.g. "K_type fp32; measured: B_mem; derived: T_SP T_ldst T_add" */
	snprintf(out->note, sizeof(out->note), "K_type %s", gpuproj_ktype_name(q.k.type));
	for (b = GPUPROJ_BASIS_NONE; b <= GPUPROJ_BASIS_ESTIMATE; b++) {
		bool first = true;

		for (i = 0; i < GPUPROJ_QP_COUNT; i++) {
			if ((int)q.d.p[i].basis != b ||
			    (i == GPUPROJ_QP_T_DP && q.k.type != GPUPROJ_KTYPE_FP64) ||
			    (i == GPUPROJ_QP_T_INT && q.k.type != GPUPROJ_KTYPE_INT))
				continue;
			note_add(out->note, sizeof(out->note),
				 first ? gpuproj_basis_name((enum gpuproj_basis)b) : NULL,
				 gpuproj_quant_param_name((enum gpuproj_quant_param)i));
			first = false;
		}
	}
	return out->status = GPUPROJ_OK;
}

int
quant_details(const struct model_ctx *c, struct gpuproj_model_details *out)
{
	static const char *const pn[GPUPROJ_QP_COUNT] = {
		"tgt.T_SP", "tgt.T_DP", "tgt.T_int", "tgt.T_add", "tgt.T_ldst", "tgt.B_mem",
	};
	static const char *const pu[GPUPROJ_QP_COUNT] = {
		"GFLOP/s", "GFLOP/s", "GIOP/s", "GIOP/s", "Ginst/s", "GB/s",
	};
	struct gpuproj_quant q;
	int r, i;

	r = predict(c, true, &q, NULL, 0);
	if (r)
		return r;
	model_detail(out, "K_type", (double)q.k.type, "0=fp32,1=fp64,2=int");
	model_detail(out, "W_comp", q.k.w_comp, "op");
	model_detail(out, "W_traf", q.k.w_traf, "B");
	model_detail(out, "E_mix", q.k.e_mix, "ratio");
	model_detail(out, "I_ops", q.k.i_ops, "inst");
	model_detail(out, "I_total", q.k.i_total, "inst");
	model_detail(out, "D_ops", q.k.d_ops, "ratio");
	model_detail(out, "D_ldst", q.k.d_ldst, "ratio");
	model_detail(out, "D_other", q.k.d_other, "ratio");
	for (i = 0; i < GPUPROJ_QP_COUNT; i++) {
		model_detail(out, pn[i], q.d.p[i].value, pu[i]);
		out->items[out->n - 1].key = q.d.p[i].key;
		out->items[out->n - 1].basis = q.d.p[i].basis;
	}
	model_detail(out, "tgt.T_op", q.t_op, "Gop/s");
	model_detail(out, "tgt.W_op", q.w_op, "ratio");
	model_detail(out, "tgt.W_ldst", q.w_ldst, "ratio");
	model_detail(out, "tgt.W_other", q.w_other, "ratio");
	model_detail(out, "tgt.E_instr", q.e_instr, "ratio");
	model_detail(out, "tgt.T'_op", q.t_op_adj, "Gop/s");
	model_detail(out, "O_krn", q.o_krn, "op/B");
	model_detail(out, "tgt.O_dev", q.o_dev, "op/B");
	model_detail(out, "tgt.T_predicted", q.t_predicted, "Gop/s");
	model_detail(out, "tgt.t_comp", q.t_comp_ns, "ns");
	model_detail(out, "tgt.t_mem", q.t_mem_ns, "ns");
	return GPUPROJ_OK;
}
