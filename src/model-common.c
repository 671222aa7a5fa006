/* SPDX-License-Identifier: MIT */
/*
 * What every model file shares (model-private.h): the names of the
 * projection options and their defaults, the target's burst ceilings,
 * the L2-capacity term, missing inputs, FLOP and the tensor mix, details.
 * Thread safety: reentrant; constant data only.
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
/* The one-basis sustained rates (docs/validation.md "Sustained rates"). */
static const enum gpuproj_rates rates_default = GPUPROJ_RATES_SUSTAINED;

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
	case GPUPROJ_CLOCK_AUTO: return "auto";
	}
	return "?";
}

int
gpuproj_clock_from_name(const char *name, enum gpuproj_clock *ret)
{
	static const enum gpuproj_clock all[] = {
		GPUPROJ_CLOCK_DEFAULT, GPUPROJ_CLOCK_SUSTAINED, GPUPROJ_CLOCK_BURST,
		GPUPROJ_CLOCK_AUTO,
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

