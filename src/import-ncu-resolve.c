/* SPDX-License-Identifier: MIT */
/*
 * Nsight Compute import, resolution (import-ncu-private.h): a launch's
 * NVIDIA metrics (ncu_sources[], the tensor candidates of
 * include/gpuproj/tensor.h) folded into the logical metrics of a kernel
 * record, its extra metrics, the launch's duration and context, and the
 * profile's tensor attributes. Thread safety: reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/nvmetrics.h>
#include <gpuproj/tensor.h>
#include <gpuproj/profile.h>

#include "import-common.h"
#include "profile-private.h"
#include "util.h"

#define WARP_SIZE 32.0
#include "import-ncu-private.h"

#define WARP_SIZE 32.0

/* FP instruction sources by [precision][fma, add, mul] and the metrics they feed. */
static const enum src fp_src[3][3] = {
	{ SRC_HFMA, SRC_HADD, SRC_HMUL }, { SRC_FFMA, SRC_FADD, SRC_FMUL },
	{ SRC_DFMA, SRC_DADD, SRC_DMUL },
};
static const enum src fp_src_sm[3][3] = {
	{ SRC_HFMA_SM, SRC_HADD_SM, SRC_HMUL_SM }, { SRC_FFMA_SM, SRC_FADD_SM, SRC_FMUL_SM },
	{ SRC_DFMA_SM, SRC_DADD_SM, SRC_DMUL_SM },
};
static const enum gpuproj_metric fp_metric[3][3] = {
	{ GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL },
	{ GPUPROJ_M_INST_FP32_FMA, GPUPROJ_M_INST_FP32_ADD, GPUPROJ_M_INST_FP32_MUL },
	{ GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL },
};

/* ---- resolution: NVIDIA metrics → logical metrics ---- */

static bool
take(struct launch *L, enum src s, double *v)
{
	if (!L->have[s])
		return false;
	L->used[s] = true;
	*v = L->val[s];
	return true;
}

/* a + b, only when both were measured. */
static bool
take2(struct launch *L, enum src a, enum src b, double *v)
{
	if (!L->have[a] || !L->have[b])
		return false;
	L->used[a] = L->used[b] = true;
	*v = L->val[a] + L->val[b];
	return true;
}

/* The first measured source of a list (SRC_COUNT-terminated). */
static bool
take_first(struct launch *L, const enum src *list, double *v)
{
	for (; *list != SRC_COUNT; list++) {
		if (take(L, *list, v))
			return true;
	}
	return false;
}

/* A value that must be a small non-negative integer (registers, bytes per block). */
static bool
as_u32(double v, uint32_t *ret)
{
	double r = nearbyint(v);

	if (!(r >= 0 && r <= (double)UINT32_MAX) || fabs(v - r) > 1e-6 * fmax(1.0, r))
		return false;
	*ret = (uint32_t)r;
	return true;
}

/* Launch dimensions from x/y/z metrics or a total ("Grid Size" = blocks). */
static bool
dims_from_metrics(struct launch *L, enum src x, enum src y, enum src z, enum src total,
		  enum src label, struct gpuproj_dim3 *d)
{
	double v;
	uint32_t u[3] = { 1, 1, 1 };

	if (take(L, x, &v) && as_u32(v, &u[0]) && u[0] > 0) {
		if (take(L, y, &v) && (!as_u32(v, &u[1]) || u[1] == 0))
			return false;
		if (take(L, z, &v) && (!as_u32(v, &u[2]) || u[2] == 0))
			return false;
	} else if (!((take(L, total, &v) || take(L, label, &v)) && as_u32(v, &u[0]) && u[0] > 0)) {
		return false;
	}
	d->x = u[0];
	d->y = u[1];
	d->z = u[2];
	return true;
}

/* The position of the source a logical value came from (the launch's first row if none). */
static void
source_pos(const struct launch *L, int s, int *line, int *col)
{
	*line = s >= 0 && L->vline[s] ? L->vline[s] : L->line;
	*col = s >= 0 && L->vline[s] ? L->vcol[s] : 0;
}

/* The first source of a list that the launch has, or -1. */
static int
first_have(const struct launch *L, const enum src *list)
{
	for (; *list != SRC_COUNT; list++) {
		if (L->have[*list])
			return (int)*list;
	}
	return -1;
}

/*
 * Add one logical value: checked against the metric's documented range
 * (import_metric_check(): a rounding overshoot clamped with a warning,
 * anything else refused at the value's position) and the kernel's sum kept
 * finite. `s` is the source it came from (-1: derived from several).
 */
static int
add_metric(struct importer *im, const struct launch *L, struct gpuproj_kernel *k,
	   enum gpuproj_metric m, double v, int s)
{
	double orig = v;
	int line, col;

	source_pos(L, s, &line, &col);
	switch (import_metric_check(m, &v)) {
	case IMPORT_RANGE_OK:
		break;
	case IMPORT_RANGE_CLAMPED:
		if (ncu_warn_once(im, gpuproj_metric_name(m)) &&
		    import_summary_warn(&im->sum, "%s:%d: %s = %.17g is outside its range; clamped "
					"to %g (rounding in the tool's output)", im->path, line,
					gpuproj_metric_name(m), orig, v))
			return ncu_oom(im, line);
		break;
	case IMPORT_RANGE_BAD: {
		double lo, hi;
		bool open;

		import_metric_range(m, &lo, &hi, &open);
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, col,
				 "launch %s: %s = %.17g is outside its range (%s %g to %g%s)",
				 L->id, gpuproj_metric_name(m), orig, open ? "above" : "from", lo,
				 hi, m == GPUPROJ_M_CLOCK_SM ? " Hz" : "");
	}
	}
	gpuproj_kernel_add_metric(k, m, v);
	if (!isfinite(k->metric_sum[m]))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, col,
				 "launch %s: %s: the sum over the launches of '%s' is not finite "
				 "(values too large)", L->id, gpuproj_metric_name(m), L->kernel);
	return GPUPROJ_OK;
}

/* Take the first source of `list` that the launch has, and add it as `m` (scaled). */
static int
add_first(struct importer *im, struct launch *L, struct gpuproj_kernel *k,
	  enum gpuproj_metric m, const enum src *list, double scale)
{
	int s = first_have(L, list);
	double v = NAN;

	if (s < 0)
		return GPUPROJ_OK;
	take(L, (enum src)s, &v);
	return add_metric(im, L, k, m, v * scale, s);
}

/* A default-section percentage into extra_metrics under its metric name (model.h). */
static int
add_sol(struct importer *im, struct launch *L, const char *name, const enum src *list)
{
	int s = first_have(L, list);
	double v = NAN;

	if (s < 0)
		return GPUPROJ_OK;
	take(L, (enum src)s, &v);
	return ncu_add_extra(im, L, name, "%", v, L->vline[s], L->vcol[s]) ? ncu_oom(im, L->line)
									   : GPUPROJ_OK;
}

/*
 * The launch's duration, ns, and where it came from: gpu__time_duration.sum
 * (or the section's "Duration"), else elapsed SM cycles / their rate
 * (`sm__cycles_elapsed.avg` with `sm__cycles_elapsed.avg.per_second`, or the
 * `smsp__` pair, which the common roofline recipes collect instead).
 */
static int
launch_duration(struct importer *im, struct launch *L, double *ns, bool *have)
{
	static const enum src dur[] = { SRC_DURATION, SRC_DURATION_L, SRC_COUNT };
	static const enum src pairs[][2] = { { SRC_CYC_SM, SRC_CLOCK }, { SRC_CYC_SMSP, SRC_CLOCK_SMSP } };
	size_t i;

	*have = false;
	if (take_first(L, dur, ns)) {
		*have = true;
		return GPUPROJ_OK;
	}
	for (i = 0; i < ARRAY_LENGTH(pairs); i++) {
		enum src c = pairs[i][0], r = pairs[i][1];

		if (!L->have[c] || !L->have[r])
			continue;
		L->used[c] = true;
		if (!(L->val[r] > 0))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->vline[r], L->vcol[r],
					 "launch %s: %s is 0: no duration from %s", L->id,
					 ncu_sources[r].name, ncu_sources[c].name);
		*ns = L->val[c] / L->val[r] * 1e9;
		if (!(*ns > 0 && *ns <= IMPORT_MAX_DURATION_NS))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->vline[c], L->vcol[c],
					 "launch %s: %s / %s = %g ns is not a kernel duration",
					 L->id, ncu_sources[c].name, ncu_sources[r].name, *ns);
		*have = true;
		return GPUPROJ_OK;
	}
	return GPUPROJ_OK;
}

/*
 * The tensor metrics (flop.tensor.*, inst.tensor, tensor.utilization) from
 * the counters of the export, with the candidates libproj.so uses
 * (gpuproj_tensor_candidates(), GPUPROJ_TENSOR_OPS: include/gpuproj/tensor.h,
 * one table of names): the first candidate all of whose terms the launch
 * has wins. The counters are not mapped sources: they arrive as extras and
 * stay there. An instruction count is multiplied by the default FLOP per
 * instruction of the launch's compute capability (unknown: 8.0) and the
 * metric is marked assumed; the NERSC roofline recipe's export
 * [Yang2020], with only sm__inst_executed_pipe_tensor.sum,
 * is that case.
 */
/* One summary line: a launch's tensor metric came from other counters than the first's. */
static int
tensor_differs(struct importer *im, const struct launch *L, enum gpuproj_metric m,
	       const char *expr)
{
	const char *name = gpuproj_metric_name(m);

	if (import_summary_warn(&im->sum, "%s:%d: %s of launch %s comes from %s, not from what "
				"the first launch used (import.tensor.%s)", im->path, L->line, name,
				L->id, expr, name))
		return GPUPROJ_E_NOMEM;
	return GPUPROJ_OK;
}

/*
 * The unit a tensor counter must have: its value is taken as
 * FLOP, instructions or a percentage, so it is checked as every mapped
 * counter's is (import.h). `unit` is the kept base unit (Gop already
 * scaled to op). The pipe utilisation is a percentage; instruction counts
 * are "inst" or none; the operation counters' math_op dimension "op"
 * (any SI prefix) or none [GPU?].
 */
static const char *
tensor_unit_expected(const char *name, const char *unit)
{
	if (strstr(name, ".pct_of_peak"))
		return strcmp(unit, "%") == 0 ? NULL : "a percentage (%)";
	if (strncmp(name, "sm__inst_executed", 17) == 0)
		return !*unit || strcmp(unit, "inst") == 0
			       ? NULL
			       : "a count of instructions ('inst' or none)";
	return !*unit || strcmp(unit, "op") == 0 ? NULL : "a count of operations ('op' or none)";
}

static int
commit_tensor(struct importer *im, struct launch *L, struct gpuproj_kernel *k)
{
	const struct extra **found = NULL;
	size_t n_found = 0, i, m;
	bool ops = false;
	int r = GPUPROJ_OK, major = L->cc_major, minor = L->cc_minor;

	/* The "CC" column, else the device attributes (as ncu_set_context()). */
	if (major == 0 && L->have[SRC_CC_MAJOR] && L->val[SRC_CC_MAJOR] >= 1 &&
	    L->val[SRC_CC_MAJOR] <= 99) {
		major = (int)L->val[SRC_CC_MAJOR];
		minor = L->have[SRC_CC_MINOR] ? (int)L->val[SRC_CC_MINOR] : 0;
	}
	/*
	 * The launch's tensor counters (a raw page has ~1000 extras: look once),
	 * all of them: with a cap of 64, 64 other sm__*tensor* or *mma* columns
	 * would lose the tensor FLOP in silence.
	 */
	for (i = 0; i < L->n_extras; i++) {
		const char *name = im->names.v[L->extras[i].name];

		if (strncmp(name, "sm__", 4) == 0 &&
		    (strstr(name, "tensor") || strstr(name, "mma"))) {
			if (!found && !(found = malloc((L->n_extras - i) * sizeof(*found))))
				return ncu_oom(im, L->line);
			found[n_found++] = &L->extras[i];
			ops = ops || strncmp(name, "sm__ops_path_tensor_", 20) == 0;
		}
	}
	for (m = 0; n_found && m < GPUPROJ_M_COUNT; m++) {
		const struct gpuproj_tensor_candidate *c;
		enum gpuproj_metric lm = (enum gpuproj_metric)m;
		size_t nc = gpuproj_tensor_candidates(GPUPROJ_TENSOR_OPS, lm, &c);

		for (i = 0; i < nc; i++) {
			struct gpuproj_tensor_shape shape = { .flop_per_inst = 1 };
			const char *p = c[i].expr, *t;
			double sum = 0, f;
			size_t tlen;
			bool all = true;
			int more = 0;

			/*
			 * HMMA counts hold BF16, TF32, FP8 too: with any operation
			 * counter exported they would count its work twice.
			 */
			if (c[i].op == GPUPROJ_TOP_HMMA && ops)
				continue;
			if (c[i].op != GPUPROJ_TOP_NONE &&
			    (gpuproj_tensor_shape_default(major, minor, c[i].op, &shape) ||
			     !(shape.flop_per_inst > 0)))
				continue;
			while (all && (more = gpuproj_nv_expr_term(&p, &t, &tlen, &f)) > 0) {
				size_t j;

				all = false;
				for (j = 0; j < n_found && !all; j++) {
					const char *name = im->names.v[found[j]->name];
					const char *unit = im->names.v[found[j]->unit], *want;

					if (strlen(name) != tlen || strncmp(name, t, tlen) != 0)
						continue;
					if ((want = tensor_unit_expected(name, unit))) {
						r = error_set(im->err, GPUPROJ_E_SCHEMA, im->path,
							      found[j]->line, found[j]->col,
							      "launch %s: %s: unit '%s' is not %s",
							      L->id, name, unit, want);
						goto out;
					}
					sum += f * found[j]->value;
					all = true;
				}
			}
			if (!all || more < 0)
				continue;
			sum *= c[i].scale * (c[i].op != GPUPROJ_TOP_NONE ? shape.flop_per_inst : 1);
			if ((r = add_metric(im, L, k, lm, sum, -1)))
				goto out;
			if (!im->tensor_expr[m]) {
				im->tensor_expr[m] = c[i].expr;
				im->tensor_flop[m] = c[i].scale;
				if (c[i].op != GPUPROJ_TOP_NONE) {
					im->tensor_flop[m] = shape.flop_per_inst;
					snprintf(im->tensor_shape[m], sizeof(im->tensor_shape[m]),
						 "%.20s%s", shape.shape,
						 major ? "" : ", CC unknown: 8.0");
				}
			} else if (!im->tensor_mixed[m] &&
				   (im->tensor_expr[m] != c[i].expr ||
				    im->tensor_flop[m] != c[i].scale * shape.flop_per_inst)) {
				/* The attribute is the first launch's: say when one differs. */
				im->tensor_mixed[m] = true;
				if ((r = tensor_differs(im, L, lm, c[i].expr)))
					goto out;
			}
			break;
		}
	}
out:
	free(found);
	return r;
}

/*
 * Profile attributes and one summary line per tensor metric taken from
 * instruction counts: how each tensor metric was obtained
 * ("import.tensor.flop.tensor.fp16" = "EXPR * 4096 (assumed: FLOP per
 * instruction of HMMA.16816)", as libproj.so writes metrics.<CHIP>.*).
 */
int
ncu_tensor_attributes(struct importer *im, struct gpuproj_profile *p)
{
	size_t m;

	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		const char *name = gpuproj_metric_name((enum gpuproj_metric)m);
		char key[96], *v;
		bool assumed = im->tensor_shape[m][0] != '\0';

		if (!im->tensor_expr[m])
			continue;
		snprintf(key, sizeof(key), "import.tensor.%s", name);
		if (assumed)
			v = xasprintf("%s * %g (assumed: FLOP per instruction of %s)",
				      im->tensor_expr[m], im->tensor_flop[m], im->tensor_shape[m]);
		else if (im->tensor_flop[m] != 1)
			v = xasprintf("%s * %g", im->tensor_expr[m], im->tensor_flop[m]);
		else
			v = xasprintf("%s", im->tensor_expr[m]);
		if (!v || gpuproj_profile_set_attr(p, key, v)) {
			free(v);
			return GPUPROJ_E_NOMEM;
		}
		free(v);
		if (assumed &&
		    import_summary_warn(&im->sum, "%s: %s assumed: %s x %g FLOP per instruction "
					"(%s); the counters split by instruction family, not by "
					"shape", im->path, name, im->tensor_expr[m],
					im->tensor_flop[m], im->tensor_shape[m]))
			return GPUPROJ_E_NOMEM;
	}
	return GPUPROJ_OK;
}

/*
 * A candidate expression of the core's table ("a+b", terms optionally
 * "f*name") summed over the launch's extras: true when the launch has
 * every term. Names are looked up in the interned set, so a name the file
 * never had costs one hash lookup.
 */
static bool
sum_extra_terms(struct importer *im, const struct launch *L, const char *expr, double *ret)
{
	const char *p = expr, *t;
	double sum = 0, f;
	size_t tlen;
	int more;

	while ((more = gpuproj_nv_expr_term(&p, &t, &tlen, &f)) > 0) {
		char name[128];
		size_t id, j;
		bool found = false;

		if (tlen >= sizeof(name))
			return false;
		memcpy(name, t, tlen);
		name[tlen] = '\0';
		if (!import_strmap_get(&im->names.map, name, &id))
			return false;
		for (j = 0; j < L->n_extras && !found; j++) {
			if (L->extras[j].name == id) {
				sum += f * L->extras[j].value;
				found = true;
			}
		}
		if (!found)
			return false;
	}
	if (more < 0)
		return false;
	*ret = sum;
	return true;
}

/*
 * The logical metrics the mapped sources left unset, from the core's
 * NVIDIA name table (include/gpuproj/nvmetrics.h, the candidates
 * libproj.so collects): the first candidate all of whose names the launch
 * exported as unmapped counters wins, e.g. inst.other from the six SASS
 * instruction classes, sectors.l2 from lts__t_sectors_op_read + _op_write.
 * The counters stay in extra_metrics as well. `before` holds the kernel's
 * metric_n[] before this launch.
 */
static int
commit_table_rest(struct importer *im, const struct launch *L, struct gpuproj_kernel *k,
		  const uint32_t *before)
{
	size_t m, i;
	int r;

	if (!L->n_extras)
		return GPUPROJ_OK;
	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		const struct gpuproj_nv_candidate *c;
		size_t n = gpuproj_nv_candidates((enum gpuproj_metric)m, &c);
		double v;

		if (k->metric_n[m] != before[m])
			continue;
		for (i = 0; i < n; i++) {
			if (!sum_extra_terms(im, L, c[i].expr, &v))
				continue;
			if ((r = add_metric(im, L, k, (enum gpuproj_metric)m, v * c[i].scale, -1)))
				return r;
			break;
		}
	}
	return GPUPROJ_OK;
}

static int
commit_metrics(struct importer *im, struct launch *L, struct gpuproj_kernel *k)
{
	static const enum src inst[] = { SRC_INST, SRC_INST_SM, SRC_INST_L, SRC_COUNT };
	static const enum src tinst[] = { SRC_TINST, SRC_TINST_SM, SRC_COUNT };
	static const enum src shb[] = { SRC_SH_BYTES, SRC_SH_BYTES_SMSP, SRC_COUNT };
	static const enum src occ[] = { SRC_OCC, SRC_OCC_L, SRC_COUNT };
	static const enum src act[] = { SRC_ACTIVE, SRC_ACTIVE_L, SRC_COUNT };
	static const enum src clk[] = { SRC_CLOCK, SRC_CLOCK_SMSP, SRC_CLOCK_L, SRC_COUNT };
	static const enum src we_ratio[] = { SRC_WE_AVG, SRC_WE_RATIO, SRC_WE_L, SRC_COUNT };
	static const enum src we_pct[] = { SRC_WE_PCT, SRC_COUNT };
	static const enum src l1b[] = { SRC_L1_BYTES, SRC_COUNT };
	static const enum src l2b[] = { SRC_L2_BYTES, SRC_COUNT };
	static const enum src l2tex[] = { SRC_L2_SECT_TEX, SRC_COUNT };
	static const enum src rd[] = { SRC_DRAM_RD, SRC_DRAM_OP_RD, SRC_COUNT };
	static const enum src wr[] = { SRC_DRAM_WR, SRC_DRAM_OP_WR, SRC_COUNT };
	static const enum src l1s[] = { SRC_L1_SECT, SRC_COUNT };
	static const enum src l2s[] = { SRC_L2_SECT_TEX, SRC_L2_SECT, SRC_COUNT };
	static const enum src sol_dram[] = { SRC_SOL_DRAM, SRC_SOL_DRAM_OLD, SRC_SOL_DRAM_L,
					     SRC_SOL_DRAM_L20, SRC_COUNT };
	static const enum src sol_l2[] = { SRC_SOL_L2, SRC_SOL_L2_L, SRC_SOL_L2_L20, SRC_COUNT };
	static const enum src sol_l1[] = { SRC_SOL_L1, SRC_SOL_L1_L, SRC_SOL_L1_L20,
					   SRC_SOL_L1_TEX20, SRC_COUNT };
	static const enum src sol_sm[] = { SRC_SOL_SM, SRC_SOL_SM_L, SRC_SOL_SM_L20, SRC_COUNT };
	static const enum src bps[] = { SRC_DRAM_BPS, SRC_DRAM_BPS_L, SRC_COUNT };
	static const struct {
		enum src smsp, sm;
		enum gpuproj_metric m;
	} mix[] = {
		{ SRC_FP16, SRC_FP16_SM, GPUPROJ_M_INST_FP16 },
		{ SRC_FP32, SRC_FP32_SM, GPUPROJ_M_INST_FP32 },
		{ SRC_FP64, SRC_FP64_SM, GPUPROJ_M_INST_FP64 },
		{ SRC_INT, SRC_INT_SM, GPUPROJ_M_INST_INT },
		{ SRC_MEM, SRC_MEM_SM, GPUPROJ_M_INST_LDST },
	};
	double v = NAN, ni = NAN, nt = NAN, dur = NAN;
	uint32_t before[GPUPROJ_M_COUNT];
	bool timed;
	size_t i, j;
	int r = GPUPROJ_OK, s;

	memcpy(before, k->metric_n, sizeof(before));
	if ((r = launch_duration(im, L, &dur, &timed)))
		return r;
	if (timed) {
		int line, col;

		gpuproj_kernel_add_duration(k, dur);
		source_pos(L, first_have(L, (const enum src[]){ SRC_DURATION, SRC_DURATION_L,
								SRC_CYC_SM, SRC_CYC_SMSP, SRC_COUNT }),
			   &line, &col);
		if (!isfinite(k->duration_ns.sum) || !isfinite(k->duration_ns.m2))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, col,
					 "launch %s: the total duration of '%s' is not finite", L->id,
					 L->kernel);
	} else {
		k->launches++;
	}
	k->profiled++;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++) {
			const enum src list[] = { fp_src[i][j], fp_src_sm[i][j], SRC_COUNT };

			if ((r = add_first(im, L, k, fp_metric[i][j], list, 1.0)))
				return r;
		}
	}
	for (i = 0; i < ARRAY_LENGTH(mix); i++) {
		const enum src list[] = { mix[i].smsp, mix[i].sm, SRC_COUNT };

		if ((r = add_first(im, L, k, mix[i].m, list, 1.0)))
			return r;
	}
	if ((s = first_have(L, inst)) >= 0) {
		take(L, (enum src)s, &ni);
		if ((r = add_metric(im, L, k, GPUPROJ_M_INST_WARP, ni, s)))
			return r;
	}
	if ((s = first_have(L, tinst)) >= 0) {
		take(L, (enum src)s, &nt);
		if ((r = add_metric(im, L, k, GPUPROJ_M_INST_THREAD, nt, s)))
			return r;
	}
	/* Warp efficiency: active threads per warp instruction / 32. */
	if (first_have(L, we_ratio) >= 0)
		r = add_first(im, L, k, GPUPROJ_M_WARP_EFFICIENCY, we_ratio, 1.0 / WARP_SIZE);
	else if (first_have(L, we_pct) >= 0)
		r = add_first(im, L, k, GPUPROJ_M_WARP_EFFICIENCY, we_pct, 1.0 / 100.0);
	else if (isfinite(ni) && isfinite(nt) && ni > 0)
		r = add_metric(im, L, k, GPUPROJ_M_WARP_EFFICIENCY, nt / (WARP_SIZE * ni),
			       first_have(L, tinst));
	if (r)
		return r;

	/* L2 bytes: the SMs' sectors x 32 B where exported (libproj.so's choice), else all. */
	if ((r = add_first(im, L, k, GPUPROJ_M_BYTES_L1, l1b, 1.0)) ||
	    (r = first_have(L, l2tex) >= 0 ? add_first(im, L, k, GPUPROJ_M_BYTES_L2, l2tex, 32.0)
					   : add_first(im, L, k, GPUPROJ_M_BYTES_L2, l2b, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_BYTES_DRAM_READ, rd, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_BYTES_DRAM_WRITE, wr, 1.0)))
		return r;
	if (take(L, SRC_DRAM_BYTES, &v) || take2(L, SRC_DRAM_RD, SRC_DRAM_WR, &v) ||
	    take2(L, SRC_DRAM_OP_RD, SRC_DRAM_OP_WR, &v)) {
		r = add_metric(im, L, k, GPUPROJ_M_BYTES_DRAM, v,
			       L->have[SRC_DRAM_BYTES] ? SRC_DRAM_BYTES : -1);
	} else if ((s = first_have(L, bps)) >= 0 && timed) {
		/* Memory Workload Analysis: DRAM bytes = their rate × the duration. */
		take(L, (enum src)s, &v);
		r = add_metric(im, L, k, GPUPROJ_M_BYTES_DRAM, v * dur * 1e-9, s);
	}
	if (r)
		return r;
	if (take(L, SRC_SH_WF, &v) || take2(L, SRC_SH_WF_LD, SRC_SH_WF_ST, &v))
		r = add_metric(im, L, k, GPUPROJ_M_SHARED_WAVEFRONTS, v,
			       L->have[SRC_SH_WF] ? SRC_SH_WF : -1);
	if (!r && (take(L, SRC_SH_BC, &v) || take2(L, SRC_SH_BC_LD, SRC_SH_BC_ST, &v)))
		r = add_metric(im, L, k, GPUPROJ_M_SHARED_BANK_CONFLICTS, v,
			       L->have[SRC_SH_BC] ? SRC_SH_BC : -1);
	if (r)
		return r;
	if ((r = add_first(im, L, k, GPUPROJ_M_SHARED_BYTES, shb, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_SECTORS_L1, l1s, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_SECTORS_L2, l2s, 1.0)))
		return r;
	if (take(L, SRC_DRAM_SECT, &v) || take2(L, SRC_DRAM_SECT_RD, SRC_DRAM_SECT_WR, &v))
		r = add_metric(im, L, k, GPUPROJ_M_SECTORS_DRAM, v,
			       L->have[SRC_DRAM_SECT] ? SRC_DRAM_SECT : -1);
	if (r || (r = add_first(im, L, k, GPUPROJ_M_OCCUPANCY_ACHIEVED, occ, 0.01)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_CYCLES_SM_ACTIVE, act, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_CLOCK_SM, clk, 1.0)))
		return r;
	/* The default sections' percentages, for the sol model. */
	if ((r = add_sol(im, L, GPUPROJ_SOL_DRAM_PCT, sol_dram)) ||
	    (r = add_sol(im, L, GPUPROJ_SOL_L2_PCT, sol_l2)) ||
	    (r = add_sol(im, L, GPUPROJ_SOL_L1_PCT, sol_l1)) ||
	    (r = add_sol(im, L, GPUPROJ_SOL_SM_PCT, sol_sm)))
		return r;
	if ((r = commit_table_rest(im, L, k, before)))
		return r;
	return commit_tensor(im, L, k);
}

/*
 * gpuproj_kernel_add_extra() searches the kernel's extras linearly; with
 * the ~1000 metrics of a raw page that is quadratic per launch. Every
 * kernel gets its extras in the same order, so the index a name had last
 * time is almost always right: try it first, update in place like
 * gpuproj_kernel_add_extra() does.
 */
static int
add_extra_hinted(struct gpuproj_kernel *k, const char *name, const char *unit, double value,
		 size_t *hint)
{
	size_t i, n = k->n_extra;

	if (*hint < n && strcmp(k->extra[*hint].name, name) == 0) {
		k->extra[*hint].sum += value;
		k->extra[*hint].n++;
		return GPUPROJ_OK;
	}
	if (gpuproj_kernel_add_extra(k, name, unit, value))
		return GPUPROJ_E_NOMEM;
	if (k->n_extra > n) {
		*hint = n;
		return GPUPROJ_OK;
	}
	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, name) == 0) {
			*hint = i;
			break;
		}
	}
	return GPUPROJ_OK;
}

static int
extra_cmp(const void *a, const void *b)
{
	const struct extra *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Unused mapped values and the launch's extras into the kernel's extra_metrics. */
static int
commit_extras(struct importer *im, struct launch *L, struct gpuproj_kernel *k)
{
	size_t i;

	for (i = 0; i < SRC_COUNT; i++) {
		const struct ncu_source *s = &ncu_sources[i];
		char *name;
		int r;

		if (!L->have[i] || L->used[i])
			continue;
		if (!s->section) {
			r = ncu_add_extra(im, L, s->name, im->names.v[L->unit[i]], L->val[i],
					  L->vline[i], L->vcol[i]);
		} else {
			/* The label's canonical section: the first of its list. */
			size_t l = strcspn(s->section, "|");

			name = xasprintf("%.*s: %s", (int)l, s->section, s->name);
			if (!name)
				return GPUPROJ_E_NOMEM;
			r = ncu_add_extra(im, L, name, im->names.v[L->unit[i]], L->val[i],
					  L->vline[i], L->vcol[i]);
			free(name);
		}
		if (r)
			return r;
	}
	if (L->n_extras > 1)
		qsort(L->extras, L->n_extras, sizeof(*L->extras), extra_cmp);
	for (i = 0; i < L->n_extras; i++) {
		const struct extra *e = &L->extras[i], *prev = i > 0 ? e - 1 : NULL;
		const char *name = im->names.v[e->name];
		size_t first = im->first_unit[e->name];

		if (i > 0 && e->name == prev->name) {
			/* The same metric twice in one launch (two sections list it). */
			if ((e->value != prev->value || e->unit != prev->unit) &&
			    !im->warned[e->name]) {
				im->warned[e->name] = true;
				if (import_summary_warn(&im->sum, "%s:%d: %s appears twice for "
							"launch %s with different values; kept "
							"the first", im->path, L->line, name,
							L->id))
					return GPUPROJ_E_NOMEM;
			}
			continue;
		}
		if (first == SIZE_MAX) {
			im->first_unit[e->name] = e->unit;
		} else if (first != e->unit) {
			const char *had = im->names.v[first];

			if (!im->warned[e->name]) {
				im->warned[e->name] = true;
				if (import_summary_warn(&im->sum, "%s:%d: %s is in '%s' here but "
							"in '%s' before; kept only the values "
							"in '%s'", im->path, L->line, name,
							im->names.v[e->unit], had, had))
					return GPUPROJ_E_NOMEM;
			}
			continue;
		}
		if (add_extra_hinted(k, name, im->names.v[e->unit], e->value, &im->hint[e->name]))
			return GPUPROJ_E_NOMEM;
		if (!isfinite(k->extra[im->hint[e->name]].sum))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->line, 0,
					 "launch %s: %s: the sum over the launches of '%s' is not "
					 "finite (values too large)", L->id, name, L->kernel);
	}
	return GPUPROJ_OK;
}

/* Fold one launch into the profile. */
int
ncu_commit(struct importer *im, struct gpuproj_profile *p, struct launch *L, bool *no_dims)
{
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *k;
	uint32_t smem_dyn = 0, smem_st = 0, regs = 0;
	double v;
	int r;

	if (!L->have_grid)
		L->have_grid = dims_from_metrics(L, SRC_GRID_X, SRC_GRID_Y, SRC_GRID_Z, SRC_GRID,
						 SRC_GRID_L, &L->grid);
	if (!L->have_block)
		L->have_block = dims_from_metrics(L, SRC_BLOCK_X, SRC_BLOCK_Y, SRC_BLOCK_Z,
						  SRC_BLOCK, SRC_BLOCK_L, &L->block);
	if (!L->have_grid || !L->have_block) {
		/*
		 * Placeholders, marked by the signature's tag so that no model
		 * reads them as a launch of one thread (model.h: the occupancy
		 * models report the geometry missing).
		 */
		*no_dims = true;
		L->grid = (struct gpuproj_dim3){ 1, 1, 1 };
		L->block = (struct gpuproj_dim3){ 1, 1, 1 };
	}
	if ((take(L, SRC_SMEM_DYN, &v) || take(L, SRC_SMEM_DYN_L, &v)) && !as_u32(v, &smem_dyn))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->line, 0,
				 "launch %s: dynamic shared memory %g B is not a byte count", L->id,
				 v);
	if ((take(L, SRC_SMEM_ST, &v) || take(L, SRC_SMEM_ST_L, &v)) && !as_u32(v, &smem_st))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->line, 0,
				 "launch %s: static shared memory %g B is not a byte count", L->id,
				 v);
	if ((take(L, SRC_REGS, &v) || take(L, SRC_REGS_L, &v)) &&
	    (!as_u32(v, &regs) || regs > GPUPROJ_MAX_REGS_PER_THREAD))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->line, 0,
				 "launch %s: %g registers per thread is not a register count",
				 L->id, v);

	sig.name = L->kernel;
	sig.tag = L->have_grid && L->have_block ? "" : GPUPROJ_TAG_NO_GEOMETRY;
	sig.grid = L->grid;
	sig.block = L->block;
	sig.smem_dynamic = smem_dyn;
	sig.device = 0;
	if (gpuproj_profile_kernel(p, &sig, &k))
		return ncu_oom(im, L->line);
	/* A demangled name ("void f<float>(int, float*)"): also the display name. */
	if (!k->demangled && strchr(L->kernel, '(') && !str_startswith(L->kernel, "_Z") &&
	    profile_kernel_set_demangled(k, L->kernel))
		return ncu_oom(im, L->line);
	if (smem_st)
		k->smem_static = smem_st;
	if (regs)
		k->regs_per_thread = regs;
	/* Device attributes are not kernel metrics: mark them used. */
	L->used[SRC_SMS] = L->used[SRC_SMS_L] = true;
	L->used[SRC_CC_MAJOR] = L->used[SRC_CC_MINOR] = true;
	memset(&L->used[SRC_DEV_CLOCK], 1, (SRC_DEV_WARP - SRC_DEV_CLOCK + 1) * sizeof(L->used[0]));
	if ((r = commit_metrics(im, L, k)) || (r = commit_extras(im, L, k)))
		return r == GPUPROJ_E_NOMEM ? ncu_oom(im, L->line) : r;
	return GPUPROJ_OK;
}

/* The SM clock the driver reports (device__attribute_clock_rate, kHz), Hz; NaN when absent. */
static double
dev_clock_hz(const struct launch *L)
{
	double v = L->have[SRC_DEV_CLOCK] ? L->val[SRC_DEV_CLOCK] * 1e3 : NAN;

	return v > 0 && v <= GPUPROJ_MAX_CLOCK_HZ ? v : NAN;
}

/*
 * The driver's device attributes of the export (what libproj.so records as
 * device.driver): what identifies the GPU in targets.yaml and derives a
 * provisional entry for one it lacks (gpuproj_targets_derive()). A value
 * out of the profile's range is left out, with one warning.
 */
static int
set_driver_attrs(struct importer *im, const struct launch *L, struct gpuproj_profile *p)
{
	static const struct {
		enum src s;
		enum gpuproj_driver_attr a;
	} map[] = {
		{ SRC_DEV_MEMCLK, GPUPROJ_DRV_MEMORY_CLOCK_KHZ },
		{ SRC_DEV_BUS, GPUPROJ_DRV_MEMORY_BUS_BITS },
		{ SRC_DEV_MEM, GPUPROJ_DRV_MEMORY_BYTES },
		{ SRC_DEV_L2, GPUPROJ_DRV_L2_BYTES },
		{ SRC_DEV_THR_SM, GPUPROJ_DRV_THREADS_PER_SM },
		{ SRC_DEV_THR_BLK, GPUPROJ_DRV_THREADS_PER_BLOCK },
		{ SRC_DEV_BLK_SM, GPUPROJ_DRV_BLOCKS_PER_SM },
		{ SRC_DEV_REG_SM, GPUPROJ_DRV_REGS_PER_SM },
		{ SRC_DEV_REG_BLK, GPUPROJ_DRV_REGS_PER_BLOCK },
		{ SRC_DEV_SMEM_SM, GPUPROJ_DRV_SMEM_PER_SM_BYTES },
		{ SRC_DEV_SMEM_OPTIN, GPUPROJ_DRV_SMEM_PER_BLOCK_OPTIN_BYTES },
		{ SRC_DEV_SMEM_RES, GPUPROJ_DRV_SMEM_RESERVED_PER_BLOCK_BYTES },
		{ SRC_DEV_WARP, GPUPROJ_DRV_WARP_SIZE },
	};
	size_t i;
	int r;

	for (i = 0; i < ARRAY_LENGTH(map); i++) {
		if (!L->have[map[i].s])
			continue;
		r = gpuproj_profile_set_driver_attr(p, map[i].a, L->val[map[i].s]);
		if (r == GPUPROJ_E_NOMEM)
			return r;
		if (r && import_summary_warn(&im->sum, "%s:%d: %s = %.17g is not a GPU's; left "
					     "out", im->path, L->vline[map[i].s],
					     ncu_sources[map[i].s].name, L->val[map[i].s]))
			return GPUPROJ_E_NOMEM;
	}
	return GPUPROJ_OK;
}

/* The profile's device and process: from the first launch that names them. */
int
ncu_set_context(struct importer *im, struct gpuproj_profile *p)
{
	const struct launch *dev = im->ctx_dev, *first = im->ctx_first;
	int cc_major = 0, cc_minor = 0, sms = 0;
	size_t i;
	bool several = im->several_devices, several_pids = im->several_pids;

	/* Launches still held (the long layout): the first ones, and what differs. */
	if (!first && im->n_launches)
		first = im->launches[0];
	for (i = 0; i < im->n_launches; i++) {
		const struct launch *L = im->launches[i];

		if (L->pid != first->pid)
			several_pids = true;
		if (!L->device)
			continue;
		if (!dev)
			dev = L;
		else if (strcmp(dev->device, L->device) != 0)
			several = true;
	}
	if (several && import_summary_warn(&im->sum, "%s: launches from several GPUs; the "
					   "profile describes the first, %s", im->path,
					   dev->device))
		return ncu_oom(im, 0);
	if (!dev)
		dev = first;
	cc_major = dev->cc_major;
	cc_minor = dev->cc_minor;
	if (cc_major == 0 && dev->have[SRC_CC_MAJOR] && dev->val[SRC_CC_MAJOR] >= 1 &&
	    dev->val[SRC_CC_MAJOR] < 100) {
		cc_major = (int)dev->val[SRC_CC_MAJOR];
		if (dev->have[SRC_CC_MINOR] && dev->val[SRC_CC_MINOR] >= 0 &&
		    dev->val[SRC_CC_MINOR] < 10)
			cc_minor = (int)dev->val[SRC_CC_MINOR];
	}
	/* A count no GPU has (a shifted column) is left unknown, and said so. */
	if (dev->have[SRC_SMS] && dev->val[SRC_SMS] >= 1 && dev->val[SRC_SMS] <= GPUPROJ_MAX_SMS)
		sms = (int)dev->val[SRC_SMS];
	else if (dev->have[SRC_SMS_L] && dev->val[SRC_SMS_L] >= 1 &&
		 dev->val[SRC_SMS_L] <= GPUPROJ_MAX_SMS)
		sms = (int)dev->val[SRC_SMS_L]; /* Launch Statistics "# SMs" */
	else if ((dev->have[SRC_SMS] || dev->have[SRC_SMS_L]) &&
		 import_summary_warn(&im->sum, "%s: SM count %.17g is not a GPU's (1 to %d); "
				     "left unknown", im->path,
				     dev->have[SRC_SMS] ? dev->val[SRC_SMS] : dev->val[SRC_SMS_L],
				     GPUPROJ_MAX_SMS))
		return ncu_oom(im, 0);
	if (gpuproj_profile_set_device(p, dev->device, NULL, NULL, cc_major, cc_minor, sms,
				       dev_clock_hz(dev)) ||
	    gpuproj_profile_set_process(p, first->process, first->host, first->pid, -1, NULL) ||
	    set_driver_attrs(im, dev, p))
		return ncu_oom(im, 0);
	if (several_pids && import_summary_warn(&im->sum, "%s: launches from several processes; "
						"the profile names the first, pid %" PRId64,
						im->path, first->pid))
		return ncu_oom(im, 0);
	return GPUPROJ_OK;
}
