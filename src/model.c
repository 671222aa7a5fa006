/* SPDX-License-Identifier: MIT */
/*
 * Projecting one kernel with a model (include/gpuproj/model.h): the
 * copy scaled to the source GPU (and the L2-capacity DRAM term,
 * gpuproj_l2_capacity_dram()), the clock regime, calibrated intervals
 * (model-interval.c), the tensor notes, details, and the inputs a model
 * lacks; the names of a projection's binding resource and interval GPUs.
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/interval.h>
#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

/*
 * Fixed-point iterations of the target's burst ceilings: the iteration
 * contracts by at most 1 − max/peak per step (0.56 on the T4, 0.53 on the
 * P4), so 200 reach the 1e-9 tolerance for any max/peak above 0.1.
 */
#define BURST_MAX_ITER 200
#define BURST_TOL 1e-9

/* Scale a per-launch metric of a copied kernel to `v` (kept absent when absent). */
static void
set_metric(struct gpuproj_kernel *k, enum gpuproj_metric m, double v)
{
	if (k->metric_n[m])
		k->metric_sum[m] = v * (double)k->metric_n[m];
}

/*
 * Fill the model context: FLOP ratio and, when the L2-capacity adjustment
 * is on and applies, a copy of the kernel in `kt_buf` with D_t.
 */
static void
prepare(const struct gpuproj_kernel *k, const struct gpuproj_target *src,
	const struct gpuproj_target *tgt, const struct gpuproj_model_options *opt,
	struct model_ctx *c, struct gpuproj_kernel *kt_buf, struct gpuproj_kernel *kd_buf)
{
	bool l2 = gpuproj_l2_capacity_default();
	double dt, f;

	/* The inputs the options take away (validate --drop): the model sees a view. */
	k = model_drop_inputs(k, opt ? opt->drop_inputs : 0, kd_buf);
	memset(c, 0, sizeof(*c));
	c->k = c->kt = k;
	c->src = src;
	c->tgt = tgt;
	c->flop_ratio = 1.0;
	c->waves = opt && opt->waves != GPUPROJ_WAVES_DEFAULT ? opt->waves : gpuproj_waves_default();
	c->notes = opt && opt->notes;
	c->occ_term = opt && (opt->occupancy_term == GPUPROJ_OCC_TERM_LITTLE ||
			      opt->occupancy_term == GPUPROJ_OCC_TERM_LINEAR ||
			      opt->occupancy_term == GPUPROJ_OCC_TERM_LITTLE_SOURCE)
			      ? opt->occupancy_term
			      : gpuproj_occupancy_term_default();
	c->compute = opt && (opt->compute == GPUPROJ_COMPUTE_FP ||
			     opt->compute == GPUPROJ_COMPUTE_ISSUE)
			     ? opt->compute
			     : gpuproj_compute_default();
	c->dram_src = c->dram_tgt = c->footprint = c->dram_floor_ns = NAN;
	c->dram_equiv_tgt = gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM);
	if (opt && opt->flop_ratio) {
		double r = opt->flop_ratio(opt->flop_ratio_userdata, k, src, tgt);

		if (r > 0 && isfinite(r))
			c->flop_ratio = r;
	}
	if (opt && opt->l2_capacity == GPUPROJ_L2_CAPACITY_ON)
		l2 = true;
	else if (opt && opt->l2_capacity == GPUPROJ_L2_CAPACITY_OFF)
		l2 = false;
	if (!l2 || src == tgt || gpuproj_l2_capacity_dram(k, src, tgt, &dt, &f) != GPUPROJ_OK)
		return;
	c->dram_src = gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM);
	c->dram_tgt = dt;
	c->footprint = f;
	if (dt == c->dram_src)
		return;
	if (dt > c->dram_src) {
		/*
		 * Back onto DRAM: the target's L2 cannot hold what the
		 * source's did. The models keep the source's bytes and the
		 * projection is at least the time the target's DRAM needs for D_t:
		 * scaling the source's time by the ratio of its roofs instead
		 * carries its efficiency on the roof that bound it onto a DRAM
		 * roof it never had (a strided or compute-bound kernel whose data
		 * stayed in L2 ran far below its L2 roof: on seed 002, long
		 * launches onto the held-out GPUs, hroof-occ 53.8 % off, 64.7 %
		 * scaled that way, 51.2 % with the floor; docs/validation.md "L2
		 * residency of repeated launches").
		 */
		if (tgt->bw_gbs[GPUPROJ_LEVEL_DRAM] > 0)
			c->dram_floor_ns = dt / tgt->bw_gbs[GPUPROJ_LEVEL_DRAM];
		c->l2_applied = true;
		return;
	}
	/* Onto L2: the target's L2 holds what the source's could not. */
	c->dram_equiv_tgt = dt + fmax(c->dram_src - dt, 0.0) * tgt->bw_gbs[GPUPROJ_LEVEL_DRAM] /
				      tgt->bw_gbs[GPUPROJ_LEVEL_L2];
	*kt_buf = *k;
	set_metric(kt_buf, GPUPROJ_M_BYTES_DRAM, dt);
	set_metric(kt_buf, GPUPROJ_M_SECTORS_DRAM, dt / 32.0);
	{
		double s = dt / c->dram_src; /* D_s > D_t ≥ 0 */

		set_metric(kt_buf, GPUPROJ_M_BYTES_DRAM_READ,
			   s * gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM_READ));
		set_metric(kt_buf, GPUPROJ_M_BYTES_DRAM_WRITE,
			   s * gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM_WRITE));
	}
	c->kt = kt_buf;
	c->l2_applied = true;
}

/*
 * The DRAM floor of prepare() (D_t > D_s): no projected time below the
 * target's DRAM time for D_t; where it binds, the binding resource is
 * DRAM. The point only: the calibrated interval follows it.
 */
static void
dram_floor(const struct model_ctx *c, struct gpuproj_projection *out)
{
	int i;

	if (!(c->dram_floor_ns > out->point_ns))
		return;
	out->point_ns = c->dram_floor_ns;
	out->lo_ns = fmax(out->lo_ns, c->dram_floor_ns);
	out->hi_ns = fmax(out->hi_ns, c->dram_floor_ns);
	for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
		if (!isnan(out->level_ns[i]))
			out->level_ns[i] = fmax(out->level_ns[i], c->dram_floor_ns);
	}
	out->binding = GPUPROJ_BOUND_DRAM;
	if (c->notes)
		model_note_append(out, "L2 capacity: DRAM floor %.4g us binds",
				  c->dram_floor_ns / 1e3);
}

/*
 * The launch floor (gpuproj_launch_floor_ns(), option launch_floor): no
 * projection onto another GPU below it; the note gives its share of the
 * point (and says when it binds, the mode it took: stream, graph, a mix, or
 * unknown, which takes the stream floor).
 */
static void
launch_floor(const struct gpuproj_kernel *k, const struct gpuproj_target *src,
	     const struct gpuproj_target *tgt, const struct gpuproj_model_options *opt,
	     bool notes, struct gpuproj_projection *out)
{
	bool on = opt && opt->launch_floor == GPUPROJ_LAUNCH_FLOOR_ON	 ? true
		  : opt && opt->launch_floor == GPUPROJ_LAUNCH_FLOOR_OFF ? false
		  : gpuproj_launch_floor_default();
	double g, f;
	char mode[32];
	int i;

	if (!on || src == tgt)
		return;
	f = gpuproj_launch_floor_ns(k, tgt, &g);
	if (!(f > 0))
		return;
	if (isnan(g))
		snprintf(mode, sizeof(mode), "mode unknown: stream");
	else if (g == 0 || g == 1)
		snprintf(mode, sizeof(mode), "%s", g ? "graph" : "stream");
	else
		snprintf(mode, sizeof(mode), "%.0f%% graph", 100 * g);
	if (f > out->point_ns) {
		out->point_ns = f;
		out->lo_ns = fmax(out->lo_ns, f);
		out->hi_ns = fmax(out->hi_ns, f);
		for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
			if (!isnan(out->level_ns[i]))
				out->level_ns[i] = fmax(out->level_ns[i], f);
		}
		if (notes)
			model_note_append(out, "launch floor %.3g us (%s) binds", f / 1e3, mode);
	} else if (notes && f >= 0.1 * out->point_ns) {
		model_note_append(out, "launch floor %.3g us (%s): %.0f%% of the point",
				  f / 1e3, mode, 100 * f / out->point_ns);
	}
}

static void
clear_projection(struct gpuproj_projection *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	out->lo_ns = out->hi_ns = out->point_ns = NAN;
	for (i = 0; i < GPUPROJ_HL_COUNT; i++)
		out->level_ns[i] = NAN;
	out->flop_ratio = 1.0;
	out->level_lo_ns = out->level_hi_ns = NAN;
}

/* Replace the model's own interval by the calibrated one (interval.h). */
static void
calibrate(const struct gpuproj_model *m, const struct gpuproj_model_options *opt,
	  const struct gpuproj_target *src, const struct gpuproj_target *tgt,
	  struct gpuproj_projection *out)
{
	const struct gpuproj_intervals *iv;
	double lo, hi;
	int fs, ft;

	out->level_lo_ns = out->lo_ns;
	out->level_hi_ns = out->hi_ns;
	/* Onto its own GPU a kernel takes its measured time: nothing to calibrate. */
	if ((opt && opt->level_interval) || src == tgt)
		return;
	iv = opt && opt->intervals ? opt->intervals : gpuproj_intervals_builtin();
	if (!gpuproj_intervals_lookup(iv, m, out->binding, out->point_ns, &lo, &hi, NULL))
		return;
	/* What each assumption costs (docs/models.md "Missing inputs"). */
	model_widen(m, out->assumed, &lo, &hi);
	out->lo_ns = out->point_ns * lo;
	out->hi_ns = out->point_ns * hi;
	out->calibrated = true;
	fs = gpuproj_intervals_gpu_fitted(iv, m, src->name);
	ft = gpuproj_intervals_gpu_fitted(iv, m, tgt->name);
	out->interval_gpus = fs == 0 || ft == 0 ? GPUPROJ_INTERVAL_GPUS_UNSEEN
			     : fs == 1 && ft == 1 ? GPUPROJ_INTERVAL_GPUS_FITTED
						  : GPUPROJ_INTERVAL_GPUS_UNKNOWN;
}

/* The clock regime the options ask for (DEFAULT resolved). */
static enum gpuproj_clock
effective_clock(const struct gpuproj_model_options *opt)
{
	return opt && opt->clock != GPUPROJ_CLOCK_DEFAULT ? opt->clock : gpuproj_clock_default();
}

/*
 * The ceilings a projection ends on: the clock regime's copies of both GPUs
 * (model.h, enum gpuproj_clock) and, for an FFMA-dense kernel with
 * GPUPROJ_FP32_DENSE, the dense copies on top of them (model-regime.c).
 */
struct regime {
	struct gpuproj_target sb, tb;   /* clock-regime copies */
	struct gpuproj_target sd, td;   /* dense copies of whatever the regime gave */
	enum gpuproj_clock clock;       /* effective */
	struct gpuproj_clock_regime cr; /* AUTO: the source's run */
	double fs, ft;                  /* FP32 FMA factor of the regime on each GPU (1: none) */
	bool fp32_dense;                /* the option asks for the dense rate */
	struct gpuproj_ffma_density fd; /* the kernel's density (with fp32_dense) */
	double ds, dt;                  /* dense fractions applied (1: none) */
	const struct gpuproj_target *src, *tgt; /* the files' entries */
};

/* The target's copy for the options: its regime copy `g`, then the dense fraction. */
static const struct gpuproj_target *
dense_on(struct regime *rg, const struct gpuproj_target *g, double d,
	 struct gpuproj_target *buf)
{
	if (!rg->fd.dense || !(d < 1))
		return g;
	model_dense_copy(g, d, buf);
	return buf;
}

/*
 * m->project() in the options' clock regime and FP32 rate. SUSTAINED: the
 * files' ceilings. BURST: the source's for its measured mean duration
 * (gpuproj_target_burst()); onto the same GPU the target is that copy, so
 * the kernel keeps its measured time; else the target's for the projected
 * point, iterated from the sustained projection until the point moves by
 * less than BURST_TOL of itself (T·ceiling(T) grows with T: a unique fixed
 * point, reached monotonically, by at most 1 − max/peak per step). AUTO
 * (gpuproj_clock_regime()): the source at its measured clock (× f /
 * clock_mhz), the target in the burst iteration (BOOST), at its sustained
 * clock (SUSTAINED: × min(1, sustained_clock_mhz / clock_mhz)) or as
 * SUSTAINED (UNKNOWN). c->src and c->tgt then point at the copies.
 */
static int
regime_project(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
	       const struct gpuproj_model_options *opt, struct model_ctx *c,
	       struct gpuproj_projection *out, struct regime *rg)
{
	const struct gpuproj_target *src = c->src, *tgt = c->tgt, *s0 = src;
	bool same = src == tgt, iterate = false;
	double f;
	int r, i;

	rg->src = src;
	rg->tgt = tgt;
	rg->fs = rg->ft = 1.0;
	rg->ds = rg->dt = 1.0;
	rg->clock = effective_clock(opt);
	rg->fp32_dense = (opt && opt->fp32 != GPUPROJ_FP32_DEFAULT ? opt->fp32
								  : gpuproj_fp32_default()) ==
			 GPUPROJ_FP32_DENSE;
	memset(&rg->fd, 0, sizeof(rg->fd));
	if (rg->fp32_dense) {
		gpuproj_kernel_ffma_density(k, &rg->fd);
		rg->ds = model_dense_fraction(src);
		rg->dt = model_dense_fraction(tgt);
	}
	memset(&rg->cr, 0, sizeof(rg->cr));
	if (rg->clock == GPUPROJ_CLOCK_BURST) {
		rg->fs = gpuproj_target_burst(src, gpuproj_kernel_mean_ns(k), &rg->sb);
		s0 = &rg->sb;
		iterate = tgt->boost_hold_us > 0;
	} else if (rg->clock == GPUPROJ_CLOCK_AUTO) {
		gpuproj_clock_regime(k, opt ? opt->source_clock : NULL, src, &rg->cr);
		if (rg->cr.src_mhz > 0 && src->clock_mhz > 0) {
			rg->fs = rg->cr.src_mhz / src->clock_mhz;
			gpuproj_target_scale_fp(src, rg->fs, &rg->sb);
			s0 = &rg->sb;
		}
		iterate = rg->cr.regime == GPUPROJ_REGIME_BOOST && tgt->boost_hold_us > 0;
	}
	c->src = dense_on(rg, s0, rg->ds, &rg->sd);
	if (same) {
		c->tgt = c->src;
		rg->ft = rg->fs;
		rg->dt = rg->ds;
		return m->project(c, out);
	}
	if (rg->clock == GPUPROJ_CLOCK_AUTO && rg->cr.regime == GPUPROJ_REGIME_SUSTAINED &&
	    tgt->sustained_clock_mhz > 0 && tgt->clock_mhz > 0) {
		f = fmin(1.0, tgt->sustained_clock_mhz / tgt->clock_mhz);
		if (f < 1) {
			gpuproj_target_scale_fp(tgt, f, &rg->tb);
			rg->ft = f;
			c->tgt = dense_on(rg, &rg->tb, rg->dt, &rg->td);
			return m->project(c, out);
		}
	}
	c->tgt = dense_on(rg, tgt, rg->dt, &rg->td);
	r = m->project(c, out);
	if (r != GPUPROJ_OK || !iterate)
		return r;
	for (i = 0; i < BURST_MAX_ITER; i++) {
		double prev = out->point_ns;

		rg->ft = gpuproj_target_burst(tgt, prev, &rg->tb);
		c->tgt = dense_on(rg, &rg->tb, rg->dt, &rg->td);
		r = m->project(c, out);
		if (r != GPUPROJ_OK || !(fabs(out->point_ns - prev) > BURST_TOL * prev))
			break;
	}
	return r;
}

/* The notes of the clock regime and the FP32 rate (docs/models.md). */
static void
regime_note(const struct regime *rg, const struct gpuproj_kernel *k,
	    const struct model_ctx *c, struct gpuproj_projection *out)
{
	if (rg->clock == GPUPROJ_CLOCK_BURST && (rg->fs != 1 || rg->ft != 1))
		model_note_append(out, "burst: FP32 x%.3g src, x%.3g tgt", rg->fs, rg->ft);
	if (rg->clock == GPUPROJ_CLOCK_AUTO) {
		const char *tgt_as = rg->cr.regime == GPUPROJ_REGIME_BOOST ? "burst"
				     : rg->cr.regime == GPUPROJ_REGIME_SUSTAINED
					     ? "sustained_clock_mhz"
					     : "--clock sustained";

		if (rg->cr.from)
			model_note_append(out, "clock auto: src %.0f MHz (%s), %s: %s regime, "
					  "tgt %s; FP32 x%.3g src, x%.3g tgt", rg->cr.src_mhz,
					  rg->cr.from, rg->cr.why,
					  gpuproj_regime_name(rg->cr.regime), tgt_as,
					  rg->fs, rg->ft);
		else
			model_note_append(out, "clock auto: %s: regime unknown, tgt as %s",
					  rg->cr.why, tgt_as);
	}
	if (!rg->fp32_dense)
		return;
	if (!rg->fd.dense) {
		if (isnan(rg->fd.fma_share))
			return;
		if (isnan(rg->fd.issue_share))
			model_note_append(out,
					  "fp32: not FFMA-dense (FFMA %.0f%% of FLOP), FMA rate",
					  100 * rg->fd.fma_share);
		else
			model_note_append(out, "fp32: not FFMA-dense (FFMA %.0f%% of FLOP, %.0f%% "
					  "of warp instructions), FMA rate", 100 * rg->fd.fma_share,
					  100 * rg->fd.issue_share);
		return;
	}
	model_note_append(out, "fp32 dense: FFMA %.0f%% of FLOP, dense/FMA rate x%.3g src, x%.3g "
			  "tgt", 100 * rg->fd.fma_share, rg->ds, rg->dt);
	if (!isnan(rg->fd.issue_share)) {
		/* Which of the two binds on the target: the issue roof or the dense rate. */
		double issue = model_issue_fp32_flops(k, c->tgt);
		double we = gpuproj_kernel_metric(k, GPUPROJ_M_WARP_EFFICIENCY);
		double dense = gpuproj_target_gflops(c->tgt, GPUPROJ_FP32, GPUPROJ_OP_FMA, NULL) *
			       1e9 * (we > 0 && we <= 1 ? we : 1.0);

		if (issue > 0)
			model_note_append(out, "%s binds on tgt: issue allows %.4g TFLOP/s "
					  "(FFMA %.0f%% of warp instructions), the dense rate %.4g",
					  issue < dense ? "issue (--compute issue)"
							: "the dense rate",
					  issue / 1e12, 100 * rg->fd.issue_share, dense / 1e12);
	}
}

/*
 * Append where the kernel's tensor work of a precision the target lacks
 * runs there (gpuproj_tensor_path()): "tensor fp8 -> bf16 (fp8 no path)",
 * "tensor tf32 -> CUDA-core fp32 (tf32 unknown)".
 */
static void
tensor_note(const struct gpuproj_kernel *k, const struct gpuproj_target *tgt,
	    struct gpuproj_projection *out)
{
	int p;

	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		struct gpuproj_tensor_path path;

		if (!(gpuproj_kernel_metric(k, gpuproj_tensor_metric(p)) > 0) ||
		    gpuproj_tensor_path(tgt, p, &path) || !path.fallback)
			continue;
		model_note_append(out, "tensor %s -> %s%s (%s %s)", gpuproj_tensor_prec_name(p),
				  path.tensor == GPUPROJ_TPREC_COUNT ? "CUDA-core " : "",
				  path.tensor == GPUPROJ_TPREC_COUNT
					  ? gpuproj_prec_name(path.cuda)
					  : gpuproj_tensor_prec_name(path.tensor),
				  gpuproj_tensor_prec_name(p), path.unknown ? "unknown" : "no path");
	}
}

/*
 * For a model that does not put tensor work on the tensor pipes: the share
 * of the kernel's FLOP it leaves out and what it does instead,
 * "tensor work 90.9% of FLOP not modelled: quant's instruction mix has
 * CUDA-core FLOP only".
 */
static void
tensor_unmodelled_note(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
		       struct gpuproj_projection *out)
{
	double cuda, tensor[GPUPROJ_TPREC_COUNT], sum = 0;
	int p;

	if (!gpuproj_kernel_flop_mix(k, &cuda, tensor))
		return;
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		sum += tensor[p];
	model_note_append(out, "tensor work %.3g%% of FLOP not modelled: %s",
			  100.0 * sum / (sum + cuda), m->tensor_unmodelled);
}

/*
 * The ceilings of the options' rates (model.h, enum gpuproj_rates): with
 * datasheet rates, *src and *tgt point at copies in ds and dt (one copy
 * when they are the same GPU, so that a kernel keeps its measured time
 * there). naive takes the peaks itself; the copies change nothing for it.
 */
static void
rates_targets(const struct gpuproj_model_options *opt, const struct gpuproj_target **src,
	      const struct gpuproj_target **tgt, struct gpuproj_target *ds,
	      struct gpuproj_target *dt)
{
	enum gpuproj_rates r = opt && opt->rates != GPUPROJ_RATES_DEFAULT ? opt->rates
									 : gpuproj_rates_default();

	if (r != GPUPROJ_RATES_DATASHEET)
		return;
	gpuproj_target_datasheet(*src, ds);
	if (*tgt == *src) {
		*src = *tgt = ds;
		return;
	}
	gpuproj_target_datasheet(*tgt, dt);
	*src = ds;
	*tgt = dt;
}

int
gpuproj_model_project(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
		      const struct gpuproj_target *src, const struct gpuproj_target *tgt,
		      const struct gpuproj_model_options *opt, struct gpuproj_projection *out)
{
	struct gpuproj_target ds, dt;
	struct gpuproj_kernel kt, kd;
	struct model_ctx c;
	struct regime rg;
	int r;

	if (!out)
		return GPUPROJ_E_INVAL;
	clear_projection(out);
	if (!m || !k || !src || !tgt) {
		snprintf(out->why, sizeof(out->why), "invalid argument");
		return out->status = GPUPROJ_E_INVAL;
	}
	rates_targets(opt, &src, &tgt, &ds, &dt);
	prepare(k, src, tgt, opt, &c, &kt, &kd);
	r = regime_project(m, c.k, opt, &c, out, &rg);
	if (r == GPUPROJ_OK && m->assumes)
		out->assumed |= m->assumes(c.k);
	else if (r != GPUPROJ_OK)
		out->assumed = 0;
	/*
	 * A ratio model onto the source returns the measured time, whatever
	 * it assumed: nothing to state (quant's absolute time keeps them), but
	 * the envelope's binding, which stays unknown there too.
	 */
	if (r == GPUPROJ_OK && src == tgt && c.k->duration_ns.n > 0 &&
	    fabs(out->point_ns - gpuproj_kernel_mean_ns(c.k)) <=
		    1e-9 * gpuproj_kernel_mean_ns(c.k))
		out->assumed &= 1u << GPUPROJ_ASSUME_BINDING;
	if (r == GPUPROJ_E_MISSING && c.k->duration_ns.n > 0) {
		/* What the kernel lacks, by the model's name (hroof-occ runs hroof's checks). */
		struct model_missing missing = { 0 };

		m->needs(c.k, &missing);
		if (missing.n)
			model_missing_why(&missing, m->name, out->why, sizeof(out->why));
	}
	/* naive is the datasheet ratio and nothing else: no floor. */
	if (r == GPUPROJ_OK && m->project != naive_project) {
		dram_floor(&c, out);
		launch_floor(c.k, src, tgt, opt, c.notes, out);
	}
	if (r == GPUPROJ_OK)
		calibrate(m, opt, src, tgt, out);
	if (r == GPUPROJ_OK && c.notes)
		regime_note(&rg, k, &c, out);
	if (r == GPUPROJ_OK && c.l2_applied && c.notes && c.dram_src > 0)
		model_note_append(out, "L2 capacity: DRAM x%.3g", c.dram_tgt / c.dram_src);
	else if (r == GPUPROJ_OK && c.l2_applied && c.notes)
		model_note_append(out, "L2 capacity: DRAM 0 -> %.4g MB", c.dram_tgt / 1e6);
	if (r == GPUPROJ_OK && c.notes && !m->tensor_unmodelled)
		tensor_note(k, tgt, out);
	else if (r == GPUPROJ_OK && c.notes)
		tensor_unmodelled_note(m, k, out);
	return r;
}

int
gpuproj_model_details(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
		      const struct gpuproj_target *src, const struct gpuproj_target *tgt,
		      const struct gpuproj_model_options *opt, struct gpuproj_model_details *out)
{
	struct gpuproj_target ds, dt;
	struct gpuproj_kernel kt, kd;
	struct model_ctx c;
	struct regime rg;
	struct gpuproj_projection p;
	int r;

	if (!out)
		return GPUPROJ_E_INVAL;
	out->n = 0;
	if (!m || !k || !src || !tgt)
		return GPUPROJ_E_INVAL;
	rates_targets(opt, &src, &tgt, &ds, &dt);
	prepare(k, src, tgt, opt, &c, &kt, &kd);
	/* The ceilings the projection ended on (regime_project()). */
	clear_projection(&p);
	r = regime_project(m, c.k, opt, &c, &p, &rg);
	if (r == GPUPROJ_OK)
		r = m->details(&c, out);
	if (r == GPUPROJ_OK && rg.clock == GPUPROJ_CLOCK_BURST) {
		model_detail(out, "src.burst_fp32", rg.fs, "");
		model_detail(out, "tgt.burst_fp32", rg.ft, "");
	}
	if (r == GPUPROJ_OK && rg.clock == GPUPROJ_CLOCK_AUTO) {
		model_detail(out, "src.clock_mhz", rg.cr.src_mhz, "MHz");
		model_detail(out, "src.clock_fp32", rg.fs, "");
		model_detail(out, "tgt.clock_fp32", rg.ft, "");
	}
	if (r == GPUPROJ_OK && rg.fp32_dense) {
		model_detail(out, "ffma_flop_share", rg.fd.fma_share, "");
		model_detail(out, "ffma_issue_share", rg.fd.issue_share, "");
		model_detail(out, "src.fp32_dense", rg.fd.dense ? rg.ds : 1.0, "");
		model_detail(out, "tgt.fp32_dense", rg.fd.dense ? rg.dt : 1.0, "");
	}
	if (r != GPUPROJ_OK)
		out->n = 0;
	else if (c.l2_applied) {
		model_detail(out, "l2.footprint", c.footprint, "B");
		model_detail(out, "l2.dram_src", c.dram_src, "B");
		model_detail(out, "l2.dram_tgt", c.dram_tgt, "B");
	}
	return r;
}

bool
gpuproj_models_disagree(const struct gpuproj_projection *p, size_t n, double factor)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i, ok = 0;

	if (!p)
		return false;
	if (!(factor > 1))
		factor = GPUPROJ_MODEL_DISAGREEMENT_FACTOR;
	for (i = 0; i < n; i++) {
		if (p[i].status != GPUPROJ_OK || !(p[i].point_ns > 0) || !isfinite(p[i].point_ns))
			continue;
		lo = fmin(lo, p[i].point_ns);
		hi = fmax(hi, p[i].point_ns);
		ok++;
	}
	return ok >= 2 && hi > factor * lo;
}


size_t
gpuproj_model_missing_names(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
			    const char **names, size_t max)
{
	struct model_missing missing = { 0 };
	size_t i;

	if (!m || !k)
		return 0;
	if (k->duration_ns.n == 0)
		model_missing_add(&missing, "duration");
	m->needs(k, &missing);
	for (i = 0; names && i < missing.n && i < max; i++)
		names[i] = missing.names[i];
	return missing.n;
}

size_t
gpuproj_model_missing_inputs(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
			     char *buf, size_t size)
{
	const char *names[MODEL_MISSING_MAX];
	size_t n = gpuproj_model_missing_names(m, k, names, MODEL_MISSING_MAX), i, len;

	if (size) {
		buf[0] = '\0';
		for (i = 0; i < n && i < MODEL_MISSING_MAX; i++) {
			len = strlen(buf);
			snprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
		}
	}
	return n;
}

size_t
gpuproj_model_missing_in_profile(const struct gpuproj_model *m, const struct gpuproj_profile *p,
				 const char **names, size_t max, size_t *ret_kernels)
{
	struct model_missing all = { 0 };
	size_t i, j, kernels = 0;

	for (i = 0; m && p && i < gpuproj_profile_count(p); i++) {
		struct model_missing one = { 0 };
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (k->duration_ns.n == 0)
			model_missing_add(&one, "duration");
		m->needs(k, &one);
		kernels += one.n > 0;
		for (j = 0; j < one.n; j++)
			model_missing_add(&all, one.names[j]);
	}
	for (i = 0; names && i < all.n && i < max; i++)
		names[i] = all.names[i];
	if (ret_kernels)
		*ret_kernels = kernels;
	return all.n;
}

const char *
gpuproj_bound_name(enum gpuproj_bound b)
{
	switch (b) {
	case GPUPROJ_BOUND_NONE: return "none";
	case GPUPROJ_BOUND_L1: return "l1";
	case GPUPROJ_BOUND_L2: return "l2";
	case GPUPROJ_BOUND_DRAM: return "dram";
	case GPUPROJ_BOUND_COMPUTE: return "compute";
	case GPUPROJ_BOUND_SHARED: return "shared";
	case GPUPROJ_BOUND_INSTRUCTION: return "instruction";
	case GPUPROJ_BOUND_OCCUPANCY: return "occupancy";
	case GPUPROJ_BOUND_LATENCY: return "latency";
	case GPUPROJ_BOUND_UNKNOWN: return "unknown";
	}
	return "?";
}

const char *
gpuproj_interval_gpus_name(enum gpuproj_interval_gpus g)
{
	switch (g) {
	case GPUPROJ_INTERVAL_GPUS_FITTED: return "fitted";
	case GPUPROJ_INTERVAL_GPUS_UNSEEN: return "unseen";
	case GPUPROJ_INTERVAL_GPUS_UNKNOWN: break;
	}
	return "unknown";
}
