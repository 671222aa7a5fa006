/* SPDX-License-Identifier: MIT */
/*
 * gpuproj_profile_default_sections() (include/gpuproj/model.h): from a
 * profile with full counters, the profile an export of Nsight Compute's
 * default sections of the same run would give — the input of the "sol"
 * model. What survives, the formulas of the four speed-of-light
 * percentages, how ncu defines them and why this derivation is optimistic
 * are in the header.
 *
 * Thread safety: reentrant; only reads its inputs.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "model-private.h"
#include "profile-private.h"
#include "util.h"

/* Metrics an export of the default sections carries (header: "What survives"). */
static const enum gpuproj_metric kept[] = {
	GPUPROJ_M_OCCUPANCY_ACHIEVED, /* Occupancy: Achieved Occupancy */
	GPUPROJ_M_CYCLES_SM_ACTIVE,   /* SpeedOfLight: SM Active Cycles */
	GPUPROJ_M_CLOCK_SM,           /* SpeedOfLight: SM Frequency */
};

/* The busy time of a term, ns, or NaN when its metric or ceiling is missing. */
static double
busy(double amount, double rate)
{
	if (isnan(amount) || !(rate > 0) || !isfinite(rate))
		return NAN;
	return amount / rate;
}

/* FLOP of one precision, 2·fma + add + mul over the counts collected; NaN when none is. */
static double
flop_of(const struct gpuproj_kernel *k, enum gpuproj_metric fma)
{
	double f = 0;
	bool any = false;
	int i;

	for (i = 0; i < 3; i++) {
		enum gpuproj_metric m = (enum gpuproj_metric)(fma + i);

		if (gpuproj_kernel_has(k, m)) {
			f += (i == 0 ? 2 : 1) * gpuproj_kernel_metric(k, m);
			any = true;
		}
	}
	return any ? f : NAN;
}

/* max over the terms that exist (fmax ignores a NaN), as % of T, at most 100; NaN when none. */
static double
pct_of(const double *busy_ns, size_t n, double t_ns)
{
	double b = NAN, v;
	size_t i;

	for (i = 0; i < n; i++)
		b = fmax(b, busy_ns[i]);
	if (isnan(b))
		return NAN;
	v = 100.0 * b / t_ns;
	return v > 100 ? 100 : v;
}

static bool
has_extra(const struct gpuproj_kernel *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, name) == 0 && k->extra[i].n > 0)
			return true;
	}
	return false;
}

/* Copy one kernel's surviving fields and extras of k into n (header). */
static int
copy_kernel(struct gpuproj_kernel *n, const struct gpuproj_kernel *k)
{
	size_t i;
	int st;

	n->duration_ns = k->duration_ns;
	n->launches = k->launches;
	n->profiled = k->profiled;
	n->regs_per_thread = k->regs_per_thread;
	n->smem_static = k->smem_static;
	n->ranks = k->ranks;
	if (k->demangled && (st = profile_kernel_set_demangled(n, k->demangled)))
		return st;
	for (i = 0; i < ARRAY_LENGTH(kept); i++) {
		n->metric_sum[kept[i]] = k->metric_sum[kept[i]];
		n->metric_n[kept[i]] = k->metric_n[kept[i]];
	}
	for (i = 0; i < k->n_refs; i++) {
		st = gpuproj_kernel_set_reference(n, k->refs[i].gpu, k->refs[i].mean_ns,
						  k->refs[i].launches);
		if (st)
			return st;
	}
	/* Percentages measured by ncu stay as measured (summed as they were). */
	for (i = 0; i < k->n_extra; i++) {
		const struct gpuproj_extra_metric *e = &k->extra[i];
		struct gpuproj_extra_metric *d;

		if (strcmp(e->name, GPUPROJ_SOL_DRAM_PCT) != 0 &&
		    strcmp(e->name, GPUPROJ_SOL_L2_PCT) != 0 &&
		    strcmp(e->name, GPUPROJ_SOL_L1_PCT) != 0 && strcmp(e->name, GPUPROJ_SOL_SM_PCT) != 0)
			continue;
		if ((st = gpuproj_kernel_add_extra(n, e->name, e->unit, 0)))
			return st;
		d = &n->extra[n->n_extra - 1];
		d->sum = e->sum;
		d->n = e->n;
	}
	return GPUPROJ_OK;
}

void
model_sol_derive(const struct gpuproj_kernel *k, const struct gpuproj_target *t, double v[4])
{
	double T = gpuproj_kernel_mean_ns(k);
	double issue = t->sms * t->schedulers_per_sm * t->ipc_per_scheduler * t->clock_mhz * 1e-3;
	double sm[4], l1[2];

	v[0] = v[1] = v[2] = v[3] = NAN;
	if (!(T > 0) || !isfinite(T))
		return; /* no timed launch: no percentage (sol says so) */
	/* GB/s × ns = B and GFLOP/s × ns = FLOP: every busy time below is in ns. */
	sm[0] = busy(flop_of(k, GPUPROJ_M_INST_FP16_FMA),
		     gpuproj_target_gflops(t, GPUPROJ_FP16, GPUPROJ_OP_FMA, NULL));
	sm[1] = busy(flop_of(k, GPUPROJ_M_INST_FP32_FMA),
		     gpuproj_target_gflops(t, GPUPROJ_FP32, GPUPROJ_OP_FMA, NULL));
	sm[2] = busy(flop_of(k, GPUPROJ_M_INST_FP64_FMA),
		     gpuproj_target_gflops(t, GPUPROJ_FP64, GPUPROJ_OP_FMA, NULL));
	sm[3] = busy(gpuproj_kernel_metric(k, GPUPROJ_M_INST_WARP), issue);
	l1[0] = busy(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_L1), t->bw_gbs[GPUPROJ_LEVEL_L1]);
	l1[1] = busy(gpuproj_kernel_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS) * 128.0,
		     t->bw_gbs[GPUPROJ_LEVEL_SHARED]);
	v[0] = pct_of(sm, 4, T);
	v[1] = pct_of((double[]){ busy(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM),
				       t->bw_gbs[GPUPROJ_LEVEL_DRAM]) }, 1, T);
	v[2] = pct_of((double[]){ busy(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_L2),
				       t->bw_gbs[GPUPROJ_LEVEL_L2]) }, 1, T);
	v[3] = pct_of(l1, 2, T);
}

/* The four percentages of kernel k on source GPU t, into n where n has none yet. */
static int
derive(struct gpuproj_kernel *n, const struct gpuproj_kernel *k, const struct gpuproj_target *t)
{
	const char *names[4] = { GPUPROJ_SOL_SM_PCT, GPUPROJ_SOL_DRAM_PCT, GPUPROJ_SOL_L2_PCT,
				 GPUPROJ_SOL_L1_PCT };
	double v[4];
	int i, st;

	model_sol_derive(k, t, v);
	for (i = 0; i < 4; i++) {
		if (isnan(v[i]) || has_extra(n, names[i]))
			continue;
		if ((st = gpuproj_kernel_add_extra(n, names[i], "%", v[i])))
			return st;
	}
	return GPUPROJ_OK;
}

int
gpuproj_profile_default_sections(const struct gpuproj_profile *p,
				 const struct gpuproj_targets *targets, const char *source,
				 struct gpuproj_profile **ret, struct gpuproj_error *reterr)
{
	const struct gpuproj_device_info *d;
	const struct gpuproj_process_info *pi;
	const struct gpuproj_target *t = NULL;
	struct gpuproj_profile *q = NULL;
	const char *key, *value;
	char *note = NULL;
	size_t i;
	int st;

	if (!p || !targets || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	st = gpuproj_resolve_source(p, targets, source, &t, reterr);
	if (st)
		return st;
	q = gpuproj_profile_new();
	if (!q)
		goto nomem;
	d = gpuproj_profile_device(p);
	pi = gpuproj_profile_process(p);
	if (gpuproj_profile_set_device_info(q, d) ||
	    gpuproj_profile_set_process(q, pi->application, pi->host, pi->pid, pi->rank,
					(const char *const *)pi->argv))
		goto nomem;
	*gpuproj_profile_run_info_mut(q) = *gpuproj_profile_run_info(p);
	for (i = 0; (key = gpuproj_profile_attr_at(p, i, &value)); i++) {
		if (gpuproj_profile_set_attr(q, key, value))
			goto nomem;
	}
	note = xasprintf("Nsight Compute default sections (SpeedOfLight, LaunchStats, Occupancy) "
			 "derived from the counters against %s's targets.yaml ceilings "
			 "(gpuproj_profile_default_sections())", t->name);
	if (!note || gpuproj_profile_set_attr(q, "sections", note))
		goto nomem;
	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		struct gpuproj_signature sig = { .name = k->name, .tag = k->tag, .grid = k->grid,
						 .block = k->block, .smem_dynamic = k->smem_dynamic,
						 .device = k->device };
		struct gpuproj_kernel *n;

		if (gpuproj_profile_kernel(q, &sig, &n) || copy_kernel(n, k) || derive(n, k, t))
			goto nomem;
	}
	free(note);
	*ret = q;
	return GPUPROJ_OK;
nomem:
	free(note);
	gpuproj_profile_free(q);
	return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
}
