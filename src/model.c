/* SPDX-License-Identifier: MIT */
/*
 * Projecting one kernel with a model (include/gpuproj/model.h): the
 * copy scaled to the source GPU (and the L2-capacity DRAM term,
 * gpuproj_l2_capacity_dram()), the clock regime, calibrated intervals
 * (model-interval.c), the tensor notes, details, and the inputs a model
 * lacks; the names of a projection's binding resource and interval GPUs;
 * the note, missing-input and detail helpers of the model files
 * (model-private.h). Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
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
	c->dram_src = c->dram_tgt = c->footprint = NAN;
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
	/*
	 * Only towards a larger L2 (the case of [VanLanker2024] §5.5): growing the DRAM
	 * bytes on a smaller-L2 target made every ratio model worse on the
	 * validation data (hroof MAPE 38.8 → 53.1 %; P100 → Kepler pairs
	 * 37 → 163 %): a source whose data stayed in L2 was not DRAM-bound,
	 * and the ratio method then carries its low efficiency onto a DRAM
	 * roof it never had. docs/validation.md.
	 */
	if (!l2 || src == tgt || !(tgt->limits.l2_mib > src->limits.l2_mib) ||
	    gpuproj_l2_capacity_dram(k, src, tgt, &dt, &f) != GPUPROJ_OK)
		return;
	c->dram_src = gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM);
	c->dram_tgt = dt;
	c->footprint = f;
	if (dt == c->dram_src)
		return;
	c->dram_equiv_tgt = dt + fmax(c->dram_src - dt, 0.0) * tgt->bw_gbs[GPUPROJ_LEVEL_DRAM] /
				      tgt->bw_gbs[GPUPROJ_LEVEL_L2];
	*kt_buf = *k;
	set_metric(kt_buf, GPUPROJ_M_BYTES_DRAM, dt);
	set_metric(kt_buf, GPUPROJ_M_SECTORS_DRAM, dt / 32.0);
	if (c->dram_src > 0) {
		double s = dt / c->dram_src;

		set_metric(kt_buf, GPUPROJ_M_BYTES_DRAM_READ,
			   s * gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM_READ));
		set_metric(kt_buf, GPUPROJ_M_BYTES_DRAM_WRITE,
			   s * gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM_WRITE));
	} else {
		/* Nothing went to DRAM on the source: the extra traffic is fetching. */
		set_metric(kt_buf, GPUPROJ_M_BYTES_DRAM_READ, dt);
		set_metric(kt_buf, GPUPROJ_M_BYTES_DRAM_WRITE, 0);
	}
	c->kt = kt_buf;
	c->l2_applied = true;
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
 * m->project() in the clock regime of the options (model.h, enum
 * gpuproj_clock). Burst: the source's ceilings for its measured mean
 * duration (gpuproj_target_burst() into `sb`); onto the same GPU the
 * target is that same copy, so the kernel keeps its measured time; else
 * the target's ceilings (into `tb`) for the projected point, iterated from
 * the sustained projection until the point moves by less than BURST_TOL of
 * itself. The iteration converges: T·ceiling(T) grows strictly with T, so
 * the fixed point is unique, and the points fall towards it monotonically
 * (each is an upper bound), by at most a factor 1 − max/peak per step.
 * c->src and c->tgt then point at the copies; *fs, *ft = their FP32 FMA
 * ceiling factors (1 = unchanged), for the note.
 */
static int
burst_project(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
	      const struct gpuproj_model_options *opt, struct model_ctx *c,
	      struct gpuproj_projection *out, struct gpuproj_target *sb, struct gpuproj_target *tb,
	      double *fs, double *ft)
{
	const struct gpuproj_target *tgt = c->tgt;
	bool same = c->src == c->tgt;
	int r, i;

	*fs = *ft = 1.0;
	if (effective_clock(opt) != GPUPROJ_CLOCK_BURST)
		return m->project(c, out);
	*fs = gpuproj_target_burst(c->src, gpuproj_kernel_mean_ns(k), sb);
	c->src = sb;
	if (same) {
		c->tgt = sb;
		*ft = *fs;
		return m->project(c, out);
	}
	r = m->project(c, out);
	if (r != GPUPROJ_OK || !(tgt->boost_hold_us > 0))
		return r;
	c->tgt = tb;
	for (i = 0; i < BURST_MAX_ITER; i++) {
		double prev = out->point_ns;

		*ft = gpuproj_target_burst(tgt, prev, tb);
		r = m->project(c, out);
		if (r != GPUPROJ_OK || !(fabs(out->point_ns - prev) > BURST_TOL * prev))
			break;
	}
	return r;
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
	struct gpuproj_target sb, tb, ds, dt;
	struct gpuproj_kernel kt, kd;
	struct model_ctx c;
	double fs, ft;
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
	r = burst_project(m, c.k, opt, &c, out, &sb, &tb, &fs, &ft);
	if (r == GPUPROJ_OK && m->assumes)
		out->assumed |= m->assumes(c.k);
	else if (r != GPUPROJ_OK)
		out->assumed = 0;
	/*
	 * A ratio model onto the source returns the measured time, whatever
	 * it assumed: nothing to state (quant's absolute time keeps them).
	 */
	if (r == GPUPROJ_OK && src == tgt && c.k->duration_ns.n > 0 &&
	    fabs(out->point_ns - gpuproj_kernel_mean_ns(c.k)) <=
		    1e-9 * gpuproj_kernel_mean_ns(c.k))
		out->assumed = 0;
	if (r == GPUPROJ_E_MISSING && c.k->duration_ns.n > 0) {
		/* What the kernel lacks, by the model's name (hroof-occ runs hroof's checks). */
		struct model_missing missing = { 0 };

		m->needs(c.k, &missing);
		if (missing.n)
			model_missing_why(&missing, m->name, out->why, sizeof(out->why));
	}
	if (r == GPUPROJ_OK)
		calibrate(m, opt, src, tgt, out);
	if (r == GPUPROJ_OK && c.notes && (fs != 1 || ft != 1))
		model_note_append(out, "burst: FP32 x%.3g src, x%.3g tgt", fs, ft);
	if (r == GPUPROJ_OK && c.l2_applied && c.notes)
		model_note_append(out, "L2 capacity: DRAM x%.3g",
				  c.dram_src > 0 ? c.dram_tgt / c.dram_src : INFINITY);
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
	struct gpuproj_target sb, tb, ds, dt;
	struct gpuproj_kernel kt, kd;
	struct model_ctx c;
	int r;

	if (!out)
		return GPUPROJ_E_INVAL;
	out->n = 0;
	if (!m || !k || !src || !tgt)
		return GPUPROJ_E_INVAL;
	rates_targets(opt, &src, &tgt, &ds, &dt);
	prepare(k, src, tgt, opt, &c, &kt, &kd);
	if (effective_clock(opt) == GPUPROJ_CLOCK_BURST) {
		/* The ceilings the projection ended on (burst_project()). */
		struct gpuproj_projection p;
		double fs, ft;

		clear_projection(&p);
		r = burst_project(m, c.k, opt, &c, &p, &sb, &tb, &fs, &ft);
		if (r == GPUPROJ_OK)
			r = m->details(&c, out);
		if (r == GPUPROJ_OK) {
			model_detail(out, "src.burst_fp32", fs, "");
			model_detail(out, "tgt.burst_fp32", ft, "");
		}
	} else
		r = m->details(&c, out);
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

void
model_note_append(struct gpuproj_projection *out, const char *fmt, ...)
{
	size_t len = strlen(out->note);
	va_list ap;

	if (len + 3 >= sizeof(out->note))
		return;
	if (len) {
		memcpy(out->note + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(out->note + len, sizeof(out->note) - len, fmt, ap);
	va_end(ap);
}

int
gpuproj_l2_capacity_dram(const struct gpuproj_kernel *k, const struct gpuproj_target *src,
			 const struct gpuproj_target *tgt, double *ret_dram, double *ret_footprint)
{
	double ds, b2, cs, ct, f, x;

	if (!k || !src || !tgt || !ret_dram)
		return GPUPROJ_E_INVAL;
	if (!gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM) || !gpuproj_kernel_has(k, GPUPROJ_M_BYTES_L2))
		return GPUPROJ_E_MISSING;
	if (!(src->limits.l2_mib > 0) || !(tgt->limits.l2_mib > 0))
		return GPUPROJ_E_UNSUPPORTED;
	ds = gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM);
	b2 = gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_L2);
	if (ds < 0 || b2 < 0)
		return GPUPROJ_E_INVAL;
	cs = src->limits.l2_mib * 1048576.0;
	ct = tgt->limits.l2_mib * 1048576.0;
	/* D_s = F·(1 − (C_s/F)²) with F ≥ C_s. */
	f = (ds + sqrt(ds * ds + 4.0 * cs * cs)) / 2.0;
	if (f > b2)
		f = b2;
	if (ret_footprint)
		*ret_footprint = f;
	if (f <= 0) {
		*ret_dram = 0;
		return GPUPROJ_OK;
	}
	x = ct / f;
	if (x > 1)
		x = 1;
	*ret_dram = fmin(f * (1.0 - x * x), b2);
	return GPUPROJ_OK;
}

void
model_missing_add(struct model_missing *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (strcmp(m->names[i], name) == 0)
			return;
	}
	if (m->n < MODEL_MISSING_MAX)
		m->names[m->n++] = name;
}

bool
model_missing_metrics(const struct gpuproj_kernel *k, const enum gpuproj_metric *ms, size_t n,
		      struct model_missing *m)
{
	bool missing = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (gpuproj_kernel_has(k, ms[i]))
			continue;
		model_missing_add(m, gpuproj_metric_name(ms[i]));
		missing = true;
	}
	return missing;
}

int
model_missing_why(const struct model_missing *m, const char *model, char *why, size_t whylen)
{
	size_t i, len;

	if (why && whylen) {
		snprintf(why, whylen, "%s needs ", model);
		for (i = 0; i < m->n; i++) {
			len = strlen(why);
			snprintf(why + len, whylen - len, "%s%s", i ? ", " : "", m->names[i]);
		}
	}
	return GPUPROJ_E_MISSING;
}

void
model_detail(struct gpuproj_model_details *d, const char *name, double value, const char *unit)
{
	struct gpuproj_detail *it;

	if (d->n >= GPUPROJ_DETAILS_MAX)
		return;
	it = &d->items[d->n++];
	it->name = name;
	it->value = value;
	it->unit = unit;
	it->key = NULL;
	it->basis = GPUPROJ_BASIS_NONE;
}

void
model_detail_key(struct gpuproj_model_details *d, const struct gpuproj_target *gpu,
		 const char *name, double value, const char *unit, const char *key)
{
	model_detail(d, name, value, unit);
	if (d->n && d->items[d->n - 1].name == name) {
		d->items[d->n - 1].key = key;
		d->items[d->n - 1].basis = key ? gpuproj_target_basis(gpu, key)
					       : GPUPROJ_BASIS_NONE;
	}
}
