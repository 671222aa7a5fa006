/* SPDX-License-Identifier: MIT */
/*
 * Model registry (each model's projection, details and the inputs it
 * needs), the whole-run projection, and the helpers the model files share
 * (include/gpuproj/model.h, model-private.h). Thread safety: the registry
 * is constant data.
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

struct gpuproj_model {
	const char *name;
	const char *summary;
	model_project_fn project;
	model_details_fn details;
	model_needs_fn needs;    /* the kernel inputs it lacks (model-private.h) */
	bool coarse;             /* gpuproj_model_is_coarse() */
	/*
	 * NULL: the model puts tensor work on the tensor pipes (issue 21);
	 * else what it does with it instead, appended to the note of a kernel
	 * with tensor work ("tensor work 91% of FLOP not modelled: ...").
	 */
	const char *tensor_unmodelled;
};

/* hroof-occ needs what hroof needs, and the launch geometry for its occupancy term. */
static void
hroofocc_needs(const struct gpuproj_kernel *k, struct model_missing *out)
{
	hroof_needs(k, out);
	if (!gpuproj_kernel_geometry_known(k))
		model_missing_add(out, MODEL_GEOMETRY);
}

static const struct gpuproj_model models[] = {
	{ "hroof",
	  "hierarchical roofline with kernel-specific ceilings: Van Lanker et al., Euro-Par 2024, "
	  "eqs. 1-10 (interval over L1, L2, DRAM; point = midpoint)",
	  hroof_project, hroof_details, hroof_needs, false, NULL },
	{ "occupancy",
	  "roofline ratio x occupancy ratio: seed 002 Algorithm 1, eqs. 4-12, with the CUDA "
	  "occupancy rules per GPU and wave quantisation (point; interval to the plain roofline "
	  "ratio)",
	  occupancy_project, occupancy_details, occupancy_needs, false,
	  "its roofline ratio has CUDA-core FLOP only" },
	{ "quant",
	  "quantitative roofline: Konstantinidis & Cotronis, JPDC 2017, formulas 2-19 (absolute "
	  "time from instruction mix and target throughputs; interval = overlapped .. serial "
	  "compute and memory)",
	  quant_project, quant_details, quant_needs, false,
	  "quant's instruction mix has CUDA-core FLOP only" },
	{ "irm",
	  "instruction roofline: Ding & Williams 2019 / Leinhauser et al., TOPC 2022, eqs. 1-4, "
	  "projected with the hroof ratio on warp instructions and 32-B transactions (interval "
	  "over L1, L2, DRAM)",
	  irm_project, irm_details, irm_needs, false, NULL },
	{ "hroof-occ",
	  "hroof with occupancy as latency hiding: Van Lanker et al. eqs. 1-10, each level at "
	  "least the time Little's law allows the target's resident warps (Volkov 2016; CUDA "
	  "occupancy rules, latency_ns), per-SM waves; the default",
	  hroofocc_project, hroofocc_details, hroofocc_needs, false, NULL },
	{ "sol",
	  "coarser: hroof's ratio method (seed 000 eq. 9) on the busy time of each resource "
	  "from Nsight Compute's speed-of-light percentages, plain ceilings, x seed 002's "
	  "occupancy ratio (eq. 4); for default-section exports (no byte or FLOP counts)",
	  sol_project, sol_details, sol_needs, true,
	  "sol scales ncu's SM busy % (tensor pipe included) by FP32 ceilings" },
};

/* Baselines: found by name, not listed by gpuproj_model_at() ("--model all"). */
static const struct gpuproj_model baselines[] = {
	{ "naive",
	  "baseline: the ratio of the datasheet rooflines of source and target (peak FP32 FMA "
	  "and peak DRAM bandwidth only)",
	  naive_project, naive_details, naive_needs, false,
	  "the datasheet FP32 and DRAM ratio by definition" },
};

/* The default model, chosen on the gpuperfpredict validation (docs/validation.md). */
#define DEFAULT_MODEL 4

/*
 * The L2-capacity adjustment's default, decided on the gpuperfpredict
 * validation (docs/validation.md).
 */
static const bool l2_capacity_default_on = false;
static const enum gpuproj_waves waves_default = GPUPROJ_WAVES_SM;
static const enum gpuproj_occupancy_term occupancy_term_default = GPUPROJ_OCC_TERM_LITTLE;
/*
 * Sustained by default: targets.yaml's max_gflops is the rate of an
 * application's steady state; burst is for data timed in short bursts from
 * idle (model.h, enum gpuproj_clock).
 */
static const enum gpuproj_clock clock_default = GPUPROJ_CLOCK_SUSTAINED;
/*
 * The paper's FP roof: the issue roof did not win on the pairs the choice
 * was made on (docs/validation.md "Compute roofs: choosing and held-out
 * pairs").
 */
static const enum gpuproj_compute compute_default = GPUPROJ_COMPUTE_FP;
/* The one-basis sustained rates (issue 22: docs/validation.md "Sustained rates"). */
static const enum gpuproj_rates rates_default = GPUPROJ_RATES_SUSTAINED;
/*
 * Fixed-point iterations of the target's burst ceilings: the iteration
 * contracts by at most 1 − max/peak per step (0.56 on the T4, 0.53 on the
 * P4), so 200 reach the 1e-9 tolerance for any max/peak above 0.1.
 */
#define BURST_MAX_ITER 200
#define BURST_TOL 1e-9

const struct gpuproj_model *
gpuproj_model_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < ARRAY_LENGTH(models); i++) {
		if (strcasecmp(models[i].name, name) == 0)
			return &models[i];
	}
	for (i = 0; i < ARRAY_LENGTH(baselines); i++) {
		if (strcasecmp(baselines[i].name, name) == 0)
			return &baselines[i];
	}
	return NULL;
}

size_t
model_index_count(void)
{
	return ARRAY_LENGTH(models) + ARRAY_LENGTH(baselines);
}

size_t
model_index(const struct gpuproj_model *m)
{
	if (m >= models && m < models + ARRAY_LENGTH(models))
		return (size_t)(m - models);
	if (m >= baselines && m < baselines + ARRAY_LENGTH(baselines))
		return ARRAY_LENGTH(models) + (size_t)(m - baselines);
	return model_index_count();
}

const struct gpuproj_model *
model_at_index(size_t i)
{
	if (i < ARRAY_LENGTH(models))
		return &models[i];
	i -= ARRAY_LENGTH(models);
	return i < ARRAY_LENGTH(baselines) ? &baselines[i] : NULL;
}

const struct gpuproj_model *
gpuproj_model_default(void)
{
	return &models[DEFAULT_MODEL];
}

size_t
gpuproj_model_count(void)
{
	return ARRAY_LENGTH(models);
}

const struct gpuproj_model *
gpuproj_model_at(size_t i)
{
	return i < ARRAY_LENGTH(models) ? &models[i] : NULL;
}

const char *
gpuproj_model_name(const struct gpuproj_model *m)
{
	return m ? m->name : NULL;
}

const char *
gpuproj_model_summary(const struct gpuproj_model *m)
{
	return m ? m->summary : NULL;
}

bool
gpuproj_model_is_coarse(const struct gpuproj_model *m)
{
	return m && m->coarse;
}

size_t
gpuproj_model_fallbacks(const struct gpuproj_model *m, const struct gpuproj_model **out,
			size_t max)
{
	const struct gpuproj_model *list[2] = { gpuproj_model_find("hroof"),
						 gpuproj_model_find("sol") };
	size_t i;

	if (m != gpuproj_model_default())
		return 0;
	for (i = 0; out && i < max && i < ARRAY_LENGTH(list); i++)
		out[i] = list[i];
	return ARRAY_LENGTH(list);
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
gpuproj_waves_name(enum gpuproj_waves w)
{
	switch (w) {
	case GPUPROJ_WAVES_DEFAULT: return "default";
	case GPUPROJ_WAVES_OFF: return "off";
	case GPUPROJ_WAVES_SM: return "sm";
	case GPUPROJ_WAVES_RESIDENT: return "resident";
	}
	return "?";
}

int
gpuproj_waves_from_name(const char *name, enum gpuproj_waves *ret)
{
	static const enum gpuproj_waves all[] = {
		GPUPROJ_WAVES_DEFAULT, GPUPROJ_WAVES_OFF, GPUPROJ_WAVES_SM, GPUPROJ_WAVES_RESIDENT,
	};
	size_t i;

	for (i = 0; name && ret && i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_waves_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_waves
gpuproj_waves_default(void)
{
	return waves_default;
}

const char *
gpuproj_occupancy_term_name(enum gpuproj_occupancy_term t)
{
	switch (t) {
	case GPUPROJ_OCC_TERM_DEFAULT: return "default";
	case GPUPROJ_OCC_TERM_LITTLE: return "little";
	case GPUPROJ_OCC_TERM_LINEAR: return "linear";
	case GPUPROJ_OCC_TERM_LITTLE_SOURCE: return "little-source";
	}
	return "?";
}

int
gpuproj_occupancy_term_from_name(const char *name, enum gpuproj_occupancy_term *ret)
{
	static const enum gpuproj_occupancy_term all[] = {
		GPUPROJ_OCC_TERM_DEFAULT, GPUPROJ_OCC_TERM_LITTLE, GPUPROJ_OCC_TERM_LINEAR,
		GPUPROJ_OCC_TERM_LITTLE_SOURCE,
	};
	size_t i;

	for (i = 0; name && ret && i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_occupancy_term_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_occupancy_term
gpuproj_occupancy_term_default(void)
{
	return occupancy_term_default;
}

const char *
gpuproj_clock_name(enum gpuproj_clock c)
{
	switch (c) {
	case GPUPROJ_CLOCK_DEFAULT: return "default";
	case GPUPROJ_CLOCK_SUSTAINED: return "sustained";
	case GPUPROJ_CLOCK_BURST: return "burst";
	}
	return "?";
}

int
gpuproj_clock_from_name(const char *name, enum gpuproj_clock *ret)
{
	static const enum gpuproj_clock all[] = {
		GPUPROJ_CLOCK_DEFAULT, GPUPROJ_CLOCK_SUSTAINED, GPUPROJ_CLOCK_BURST,
	};
	size_t i;

	for (i = 0; name && ret && i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_clock_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_clock
gpuproj_clock_default(void)
{
	return clock_default;
}

const char *
gpuproj_rates_name(enum gpuproj_rates r)
{
	switch (r) {
	case GPUPROJ_RATES_DEFAULT: return "default";
	case GPUPROJ_RATES_SUSTAINED: return "sustained";
	case GPUPROJ_RATES_DATASHEET: return "datasheet";
	}
	return "?";
}

int
gpuproj_rates_from_name(const char *name, enum gpuproj_rates *ret)
{
	static const enum gpuproj_rates all[] = {
		GPUPROJ_RATES_DEFAULT, GPUPROJ_RATES_SUSTAINED, GPUPROJ_RATES_DATASHEET,
	};
	size_t i;

	for (i = 0; name && ret && i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_rates_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_rates
gpuproj_rates_default(void)
{
	return rates_default;
}

void
gpuproj_target_datasheet(const struct gpuproj_target *g, struct gpuproj_target *out)
{
	int p, k;

	if (!g || !out)
		return;
	*out = *g;
	if (g->peak_dram_gbs > 0)
		out->bw_gbs[GPUPROJ_LEVEL_DRAM] = g->peak_dram_gbs;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < GPUPROJ_OPKIND_COUNT; k++)
			out->max_gflops[p][k] = NAN;
	}
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		out->max_tensor[p] = NAN;
}

double
gpuproj_target_burst(const struct gpuproj_target *g, double duration_ns, struct gpuproj_target *out)
{
	double share, f = 1.0, tau;
	int p, k;

	if (!g || !out)
		return 1.0;
	*out = *g;
	out->burst_share = 0;
	tau = g->boost_hold_us * 1e3;
	if (!(tau > 0) || !isfinite(tau) || !(duration_ns > 0) || !isfinite(duration_ns))
		return 1.0;
	share = fmin(1.0, tau / duration_ns);
	out->burst_share = share;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < GPUPROJ_OPKIND_COUNT; k++) {
			double m = g->max_gflops[p][k], pk = g->peak_gflops[p][k];

			if (!(pk > m))  /* also NaN: no sustained rate, the peak is used */
				continue;
			out->max_gflops[p][k] = m + (pk - m) * share;
			if (p == GPUPROJ_FP32 && k == GPUPROJ_OP_FMA)
				f = out->max_gflops[p][k] / m;
		}
	}
	return f;
}

const char *
gpuproj_compute_name(enum gpuproj_compute c)
{
	switch (c) {
	case GPUPROJ_COMPUTE_FP: return "fp";
	case GPUPROJ_COMPUTE_ISSUE: return "issue";
	case GPUPROJ_COMPUTE_DEFAULT: break;
	}
	return "default";
}

int
gpuproj_compute_from_name(const char *name, enum gpuproj_compute *ret)
{
	static const enum gpuproj_compute all[] = {
		GPUPROJ_COMPUTE_DEFAULT, GPUPROJ_COMPUTE_FP, GPUPROJ_COMPUTE_ISSUE,
	};
	size_t i;

	if (!name || !ret)
		return GPUPROJ_E_INVAL;
	for (i = 0; i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_compute_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_compute
gpuproj_compute_default(void)
{
	return compute_default;
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

bool
gpuproj_l2_capacity_default(void)
{
	return l2_capacity_default_on;
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
	struct model_ctx *c, struct gpuproj_kernel *kt_buf)
{
	bool l2 = l2_capacity_default_on;
	double dt, f;

	memset(c, 0, sizeof(*c));
	c->k = c->kt = k;
	c->src = src;
	c->tgt = tgt;
	c->flop_ratio = 1.0;
	c->waves = opt && opt->waves != GPUPROJ_WAVES_DEFAULT ? opt->waves : waves_default;
	c->notes = opt && opt->notes;
	c->occ_term = opt && (opt->occupancy_term == GPUPROJ_OCC_TERM_LITTLE ||
			      opt->occupancy_term == GPUPROJ_OCC_TERM_LINEAR ||
			      opt->occupancy_term == GPUPROJ_OCC_TERM_LITTLE_SOURCE)
			      ? opt->occupancy_term
			      : occupancy_term_default;
	c->compute = opt && (opt->compute == GPUPROJ_COMPUTE_FP ||
			     opt->compute == GPUPROJ_COMPUTE_ISSUE)
			     ? opt->compute
			     : compute_default;
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
	 * Only towards a larger L2 (the case of seed 000 §5.5): growing the DRAM
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
	out->lo_ns = out->point_ns * lo;
	out->hi_ns = out->point_ns * hi;
	out->calibrated = true;
	fs = gpuproj_intervals_gpu_fitted(iv, m, src->name);
	ft = gpuproj_intervals_gpu_fitted(iv, m, tgt->name);
	out->interval_gpus = fs == 0 || ft == 0 ? GPUPROJ_INTERVAL_GPUS_UNSEEN
			     : fs == 1 && ft == 1 ? GPUPROJ_INTERVAL_GPUS_FITTED
						  : GPUPROJ_INTERVAL_GPUS_UNKNOWN;
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

/* The clock regime the options ask for (DEFAULT resolved). */
static enum gpuproj_clock
effective_clock(const struct gpuproj_model_options *opt)
{
	return opt && opt->clock != GPUPROJ_CLOCK_DEFAULT ? opt->clock : clock_default;
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
tensor_note(const struct gpuproj_kernel *k, const struct gpuproj_target *tgt, char *note,
	    size_t size)
{
	int p;

	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		struct gpuproj_tensor_path path;
		size_t len = strlen(note);

		if (!(gpuproj_kernel_metric(k, gpuproj_tensor_metric(p)) > 0) ||
		    gpuproj_tensor_path(tgt, p, &path) || !path.fallback || len + 1 >= size)
			continue;
		snprintf(note + len, size - len, "%stensor %s -> %s%s (%s %s)", len ? "; " : "",
			 gpuproj_tensor_prec_name(p),
			 path.tensor == GPUPROJ_TPREC_COUNT ? "CUDA-core " : "",
			 path.tensor == GPUPROJ_TPREC_COUNT ? gpuproj_prec_name(path.cuda)
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
tensor_unmodelled_note(const struct gpuproj_model *m, const struct gpuproj_kernel *k, char *note,
		       size_t size)
{
	double cuda, tensor[GPUPROJ_TPREC_COUNT], sum = 0;
	size_t len = strlen(note);
	int p;

	if (!gpuproj_kernel_flop_mix(k, &cuda, tensor) || len + 1 >= size)
		return;
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		sum += tensor[p];
	snprintf(note + len, size - len, "%stensor work %.3g%% of FLOP not modelled: %s",
		 len ? "; " : "", 100.0 * sum / (sum + cuda), m->tensor_unmodelled);
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
									 : rates_default;

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
	struct gpuproj_kernel kt;
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
	prepare(k, src, tgt, opt, &c, &kt);
	r = burst_project(m, k, opt, &c, out, &sb, &tb, &fs, &ft);
	if (r == GPUPROJ_OK)
		calibrate(m, opt, src, tgt, out);
	if (r == GPUPROJ_OK && c.notes && (fs != 1 || ft != 1)) {
		size_t len = strlen(out->note);

		snprintf(out->note + len, sizeof(out->note) - len,
			 "%sburst: FP32 x%.3g src, x%.3g tgt", len ? "; " : "", fs, ft);
	}
	if (r == GPUPROJ_OK && c.l2_applied && c.notes) {
		size_t len = strlen(out->note);

		snprintf(out->note + len, sizeof(out->note) - len, "%sL2 capacity: DRAM x%.3g",
			 len ? "; " : "", c.dram_src > 0 ? c.dram_tgt / c.dram_src : INFINITY);
	}
	if (r == GPUPROJ_OK && c.notes && !m->tensor_unmodelled)
		tensor_note(k, tgt, out->note, sizeof(out->note));
	else if (r == GPUPROJ_OK && c.notes)
		tensor_unmodelled_note(m, k, out->note, sizeof(out->note));
	return r;
}

int
gpuproj_model_details(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
		      const struct gpuproj_target *src, const struct gpuproj_target *tgt,
		      const struct gpuproj_model_options *opt, struct gpuproj_model_details *out)
{
	struct gpuproj_target sb, tb, ds, dt;
	struct gpuproj_kernel kt;
	struct model_ctx c;
	int r;

	if (!out)
		return GPUPROJ_E_INVAL;
	out->n = 0;
	if (!m || !k || !src || !tgt)
		return GPUPROJ_E_INVAL;
	rates_targets(opt, &src, &tgt, &ds, &dt);
	prepare(k, src, tgt, opt, &c, &kt);
	if (effective_clock(opt) == GPUPROJ_CLOCK_BURST) {
		/* The ceilings the projection ended on (burst_project()). */
		struct gpuproj_projection p;
		double fs, ft;

		clear_projection(&p);
		r = burst_project(m, k, opt, &c, &p, &sb, &tb, &fs, &ft);
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

/* ---- helpers shared by the model files ---- */

const enum gpuproj_metric model_fp_metrics[GPUPROJ_PREC_COUNT][3] = {
	{ GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL },
	{ GPUPROJ_M_INST_FP32_FMA, GPUPROJ_M_INST_FP32_ADD, GPUPROJ_M_INST_FP32_MUL },
	{ GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL },
};

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

double
model_flop(const struct gpuproj_kernel *k, bool *ret_any)
{
	double flop = 0;
	bool any = false;
	int p, j;

	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (j = 0; j < 3; j++) {
			if (!gpuproj_kernel_has(k, model_fp_metrics[p][j]))
				continue;
			any = true;
			flop += (j == 0 ? 2.0 : 1.0) * gpuproj_kernel_metric(k, model_fp_metrics[p][j]);
		}
	}
	if (ret_any)
		*ret_any = any;
	return flop;
}

int
model_flop_mix(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
	       double *ret_flop, double *ret_mix, char *why, size_t whylen)
{
	double flop = 0, n_inst = 0, weighted = 0;
	bool any = false;
	int p, j;

	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (j = 0; j < 3; j++) {
			enum gpuproj_opkind kind = j == 0 ? GPUPROJ_OP_FMA : GPUPROJ_OP_ADD_MUL;
			double n;

			if (!gpuproj_kernel_has(k, model_fp_metrics[p][j]))
				continue;
			any = true;
			n = gpuproj_kernel_metric(k, model_fp_metrics[p][j]);
			if (n < 0) {
				if (why)
					snprintf(why, whylen, "metric %s is negative",
						 gpuproj_metric_name(model_fp_metrics[p][j]));
				return GPUPROJ_E_INVAL;
			}
			flop += (j == 0 ? 2.0 : 1.0) * n;
			n_inst += n;
			weighted += n * gpuproj_target_gflops(gpu, (enum gpuproj_prec)p, kind, NULL) *
				    1e9;
		}
	}
	if (!any)
		return GPUPROJ_E_MISSING;
	*ret_flop = flop;
	*ret_mix = n_inst > 0 ? weighted / n_inst : 0;
	return GPUPROJ_OK;
}

/* flop.tensor.* by enum gpuproj_tensor_prec. */
static const enum gpuproj_metric tensor_metrics[GPUPROJ_TPREC_COUNT] = {
	GPUPROJ_M_FLOP_TENSOR_FP16, GPUPROJ_M_FLOP_TENSOR_FP16_ACC16, GPUPROJ_M_FLOP_TENSOR_BF16,
	GPUPROJ_M_FLOP_TENSOR_TF32, GPUPROJ_M_FLOP_TENSOR_FP8, GPUPROJ_M_FLOP_TENSOR_FP4,
	GPUPROJ_M_FLOP_TENSOR_INT8, GPUPROJ_M_FLOP_TENSOR_FP64,
};

enum gpuproj_metric
gpuproj_tensor_metric(enum gpuproj_tensor_prec p)
{
	return (unsigned)p < GPUPROJ_TPREC_COUNT ? tensor_metrics[p] : GPUPROJ_M_COUNT;
}

int
model_tensor_work(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
		  struct model_tensor *out, char *why, size_t whylen)
{
	int p;

	memset(out, 0, sizeof(*out));
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		enum gpuproj_metric m = tensor_metrics[p];
		struct gpuproj_tensor_path path;
		double f;

		if (!gpuproj_kernel_has(k, m))
			continue;
		f = gpuproj_kernel_metric(k, m);
		if (f < 0) {
			if (why)
				snprintf(why, whylen, "metric %s is negative", gpuproj_metric_name(m));
			return GPUPROJ_E_INVAL;
		}
		if (f == 0 || gpuproj_tensor_path(gpu, (enum gpuproj_tensor_prec)p, &path) ||
		    !(path.gflops > 0))
			continue;
		out->flop += f;
		if (path.tensor == GPUPROJ_TPREC_COUNT)
			out->t_cuda += f / (path.gflops * 1e9);
		else
			out->t_tensor += f / (path.gflops * 1e9);
		if (path.fallback)
			out->fallback |= 1u << p;
		if (path.unknown)
			out->unknown |= 1u << p;
	}
	return GPUPROJ_OK;
}

bool
gpuproj_kernel_flop_mix(const struct gpuproj_kernel *k, double *ret_cuda,
			double ret_tensor[GPUPROJ_TPREC_COUNT])
{
	bool any = false;
	int p;

	*ret_cuda = model_flop(k, NULL);
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		double v = gpuproj_kernel_metric(k, tensor_metrics[p]);

		ret_tensor[p] = gpuproj_kernel_has(k, tensor_metrics[p]) && v > 0 ? v : 0;
		any |= ret_tensor[p] > 0;
	}
	return any;
}

bool
gpuproj_profile_flop_mix(const struct gpuproj_profile *prof, double *ret_cuda,
			 double ret_tensor[GPUPROJ_TPREC_COUNT])
{
	bool any = false;
	size_t i;
	int p;

	*ret_cuda = 0;
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		ret_tensor[p] = 0;
	for (i = 0; i < gpuproj_profile_count(prof); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(prof, i);
		double c, t[GPUPROJ_TPREC_COUNT];

		any |= gpuproj_kernel_flop_mix(k, &c, t);
		*ret_cuda += c * (double)k->launches;
		for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
			ret_tensor[p] += t[p] * (double)k->launches;
	}
	return any;
}

char *
gpuproj_flop_mix_text(double cuda, const double tensor[GPUPROJ_TPREC_COUNT], char *buf,
		      size_t size)
{
	double share[GPUPROJ_TPREC_COUNT + 1], total = cuda;
	bool done[GPUPROJ_TPREC_COUNT + 1] = { false };
	size_t len = 0;
	int p, n;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		total += tensor[p];
	if (!(total > 0))
		return buf;
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		share[p] = tensor[p] / total;
	share[GPUPROJ_TPREC_COUNT] = cuda / total;
	for (n = 0; n <= GPUPROJ_TPREC_COUNT; n++) {
		int best = -1;

		for (p = 0; p <= GPUPROJ_TPREC_COUNT; p++) {
			if (!done[p] && (best < 0 || share[p] > share[best]))
				best = p;
		}
		done[best] = true;
		if (share[best] < 0.0005 || len + 1 >= size)
			break;
		if (best == GPUPROJ_TPREC_COUNT)
			len += (size_t)snprintf(buf + len, size - len, "%sCUDA cores %.1f%%",
						len ? ", " : "", 100 * share[best]);
		else
			len += (size_t)snprintf(buf + len, size - len, "%stensor %s %.1f%%",
						len ? ", " : "", gpuproj_tensor_prec_name(best),
						100 * share[best]);
		if (len >= size)
			len = size - 1;
	}
	return buf;
}

int
gpuproj_tensor_path(const struct gpuproj_target *t, enum gpuproj_tensor_prec p,
		    struct gpuproj_tensor_path *out)
{
	/* Where a precision goes without its own path: a tensor precision, or CUDA cores. */
	static const struct {
		enum gpuproj_tensor_prec next; /* GPUPROJ_TPREC_COUNT: CUDA cores */
		enum gpuproj_prec cuda;
		double factor;                 /* operations per CUDA-core FLOP */
	} fallback[GPUPROJ_TPREC_COUNT] = {
		[GPUPROJ_TPREC_FP16] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_FP16_ACC16] = { GPUPROJ_TPREC_FP16, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_BF16] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_TF32] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_FP8] = { GPUPROJ_TPREC_BF16, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_FP4] = { GPUPROJ_TPREC_FP8, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_INT8] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, 4 },
		[GPUPROJ_TPREC_FP64] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP64, 1 },
	};
	enum gpuproj_tensor_prec q = p;
	int hops;

	if (!t || !out || (unsigned)p >= GPUPROJ_TPREC_COUNT)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	out->unknown = isnan(gpuproj_target_tensor_gflops(t, p, NULL));
	/* The table has no cycle: at most GPUPROJ_TPREC_COUNT hops. */
	for (hops = 0; hops <= GPUPROJ_TPREC_COUNT; hops++) {
		double r = gpuproj_target_tensor_gflops(t, q, NULL);

		if (r > 0) {
			out->tensor = q;
			out->gflops = r;
			out->fallback = q != p;
			return GPUPROJ_OK;
		}
		if (fallback[q].next == GPUPROJ_TPREC_COUNT) {
			out->tensor = GPUPROJ_TPREC_COUNT;
			out->cuda = fallback[q].cuda;
			out->gflops = fallback[q].factor *
				      gpuproj_target_gflops(t, fallback[q].cuda, GPUPROJ_OP_FMA, NULL);
			out->fallback = true;
			return GPUPROJ_OK;
		}
		q = fallback[q].next;
	}
	return GPUPROJ_E_INVAL;
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

void
gpuproj_run_projection_clear(struct gpuproj_run_projection *r)
{
	if (!r)
		return;
	free(r->kernels);
	memset(r, 0, sizeof(*r));
}

/*
 * A kernel the run's model lacks inputs for: the first fallback that can
 * project it. hroof stands in for hroof-occ only when the launch geometry
 * is all hroof-occ lacked (hroof-occ is hroof times an occupancy term that
 * needs it); sol whenever it can. The projection keeps the run model's
 * reason when no fallback succeeds.
 */
static void
project_fallback(const struct gpuproj_model *const *fb, size_t n_fb,
		 const struct gpuproj_kernel *k, const struct gpuproj_target *src,
		 const struct gpuproj_target *tgt, const struct gpuproj_model_options *opt,
		 struct gpuproj_projection *pr)
{
	struct gpuproj_projection alt;
	const struct gpuproj_model *tried = NULL;
	char why[sizeof(alt.why)] = "";
	size_t i;

	for (i = 0; i < n_fb; i++) {
		if (!fb[i])
			continue;
		if (!gpuproj_model_is_coarse(fb[i])) {
			const char *names[MODEL_MISSING_MAX];
			size_t n = gpuproj_model_missing_names(gpuproj_model_default(), k, names,
								MODEL_MISSING_MAX);

			if (!(n == 1 && strcmp(names[0], MODEL_GEOMETRY) == 0))
				continue;
		}
		gpuproj_model_project(fb[i], k, src, tgt, opt, &alt);
		if (alt.status != GPUPROJ_OK) {
			/* A fallback that had its inputs but still could not: worth saying. */
			if (alt.status != GPUPROJ_E_MISSING) {
				tried = fb[i];
				memcpy(why, alt.why, sizeof(why));
			}
			continue;
		}
		alt.fallback = fb[i];
		/* why: why the run's model could not (status OK: free for that). */
		memcpy(alt.why, pr->why, sizeof(alt.why));
		*pr = alt;
		return;
	}
	if (tried) {
		size_t len = strlen(pr->why);

		snprintf(pr->why + len, sizeof(pr->why) - len, "; %s cannot either: %s",
			 gpuproj_model_name(tried), why);
	}
}

int
gpuproj_project_run(const struct gpuproj_profile *p, const struct gpuproj_model *m,
		    const struct gpuproj_target *src, const struct gpuproj_target *tgt,
		    const struct gpuproj_model_options *opt, struct gpuproj_run_projection *out)
{
	size_t i, n = gpuproj_profile_count(p), n_fb = 0;
	const struct gpuproj_model *fb[2];

	if (!opt || opt->fallback == GPUPROJ_FALLBACK_DEFAULT)
		n_fb = gpuproj_model_fallbacks(m, fb, ARRAY_LENGTH(fb));
	memset(out, 0, sizeof(*out));
	out->model = m;
	out->target = tgt;
	out->n = n;
	if (opt)
		out->options = *opt;
	out->kernels = calloc(n ? n : 1, sizeof(*out->kernels));
	if (!out->kernels)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < n; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		struct gpuproj_projection *pr = &out->kernels[i];
		double src_ns = gpuproj_kernel_total_ns(k);
		double launches = (double)(k->launches ? k->launches : 1);

		gpuproj_model_project(m, k, src, tgt, opt, pr);
		if (pr->status == GPUPROJ_E_MISSING && n_fb)
			project_fallback(fb, n_fb, k, src, tgt, opt, pr);
		if (pr->status == GPUPROJ_OK) {
			out->n_projected++;
			out->n_interval_unseen += pr->interval_gpus == GPUPROJ_INTERVAL_GPUS_UNSEEN;
			if (pr->fallback) {
				out->n_fallback++;
				out->n_fallback_sol += gpuproj_model_is_coarse(pr->fallback);
			}
		} else {
			/* Counted even when never timed: it is not projected either. */
			out->n_unprojected++;
		}
		if (isnan(src_ns))
			continue; /* never timed: no time to carry */
		out->source_ns += src_ns;
		if (pr->status == GPUPROJ_OK) {
			out->lo_ns += pr->lo_ns * launches;
			out->hi_ns += pr->hi_ns * launches;
			out->point_ns += pr->point_ns * launches;
		} else {
			out->unprojected_source_ns += src_ns;
			out->lo_ns += src_ns;
			out->hi_ns += src_ns;
			out->point_ns += src_ns;
		}
	}
	/* The whole run: a NOMEM here leaves it invalid, the kernels stand. */
	(void)gpuproj_timeline_project(p, out, src, tgt, &out->whole);
	return GPUPROJ_OK;
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
