/* SPDX-License-Identifier: MIT */
/*
 * The "one basis per level" rules of docs/targets-schema.md for one GPU of
 * a loaded targets set: what the repository's targets.yaml holds for every
 * GPU (tests/unit/test-targets.c, repository_targets_one_basis) and what
 * `gpuproj targets check --one-basis` and `gpuproj bench` verify for a file
 * or an entry. The loader (target.c) does not apply them: every field they
 * need is optional in the schema, so a partial hand-written file still
 * loads; these rules say whether its ceilings can stand in a ratio with the
 * repository's.
 *
 * Thread safety: reentrant; the target is only read.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <gpuproj/target.h>

#include "util.h"

/* Relative tolerance of a derived value against its formula (rounding in the file). */
#define REL_TOL 0.005

static int
broken(const struct gpuproj_target *t, const char *file, struct gpuproj_error *err,
       const char *fmt, ...) GPUPROJ_PRINTF(4, 5);

static int
broken(const struct gpuproj_target *t, const char *file, struct gpuproj_error *err,
       const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return error_set(err, GPUPROJ_E_SCHEMA, file, t->line, 0,
			 "GPU '%s' is not on the one basis (docs/targets-schema.md, \"One basis "
			 "per level\"): %s", t->name, what);
}

/*
 * fp32_dense_gflops and sustained_clock_mhz (docs/targets-schema.md, "One
 * basis per level"): both given and sourced on a basis that is not a
 * datasheet's (no vendor publishes either); the dense rate at most the FMA
 * peak (the loader checks that already) and above 0; the sustained clock
 * at most the higher of the boost clock and clock_mhz (a GeForce card
 * sustains more than its spec boost); a derived value names the sibling it
 * comes from ("sibling NAME"), except a sustained clock equal to clock_mhz
 * (the T4's and P4's fitted clocks, the gpuperfpredict GPUs' own).
 */
static int
check_dense_and_clock(const struct gpuproj_target *t, const char *file,
		      struct gpuproj_error *reterr)
{
	static const char *const keys[] = { "fp32_dense_gflops", "sustained_clock_mhz" };
	const double v[] = { t->fp32_dense_gflops, t->sustained_clock_mhz };
	double top = fmax(t->boost_clock_mhz, t->clock_mhz);
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(keys); i++) {
		const struct gpuproj_source *s = gpuproj_target_source(t, keys[i]);

		if (isnan(v[i]) || !s)
			return broken(t, file, reterr, "no %s (%s)", keys[i],
				      i == 0 ? "the FP32 rate FFMA-dense code reaches: a large "
					       "cuBLAS SGEMM, TF32 off"
					     : "the SM clock held under seconds of full FFMA load");
		if (s->basis == GPUPROJ_BASIS_DATASHEET)
			return broken(t, file, reterr, "%s is datasheet: no vendor publishes it; "
				      "it is measured, derived from a named sibling or an estimate",
				      keys[i]);
		if (s->basis == GPUPROJ_BASIS_DERIVED && !strstr(s->text, "sibling ") &&
		    !(i == 1 && fabs(v[i] - t->clock_mhz) <= REL_TOL * t->clock_mhz))
			return broken(t, file, reterr, "%s is derived but names no sibling "
				      "('sibling NAME': the GPU of the same SM datapath and power "
				      "class it comes from)", keys[i]);
	}
	if (t->sustained_clock_mhz > top * (1 + REL_TOL))
		return broken(t, file, reterr, "sustained_clock_mhz (%g MHz) is above both "
			      "boost_clock_mhz and clock_mhz (%g MHz)", t->sustained_clock_mhz,
			      top);
	return GPUPROJ_OK;
}

int
gpuproj_target_check_one_basis(const struct gpuproj_target *t, const char *file,
			       struct gpuproj_error *reterr)
{
	const struct gpuproj_source *triad, *dram, *clk;
	double lanes32, implied;
	int p, r;

	if (!t)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "no GPU to check");
	if (isnan(t->boost_clock_mhz))
		return broken(t, file, reterr, "no boost_clock_mhz (the datasheet clock "
			      "peak_gflops is computed at)");
	for (p = 0; p < GPUPROJ_LANE_COUNT; p++) {
		if (isnan(t->lanes_per_sm[p]))
			return broken(t, file, reterr, "no lanes_per_sm (the FMA lanes that tie "
				      "clock_mhz, max_gflops and peak_gflops together)");
	}
	if (isnan(t->stream_gbs[GPUPROJ_STREAM_TRIAD]))
		return broken(t, file, reterr, "no stream_gbs.triad (bw_gbs.dram is the "
			      "STREAM-Triad rate on every GPU)");
	if (fabs(t->bw_gbs[GPUPROJ_LEVEL_DRAM] - t->stream_gbs[GPUPROJ_STREAM_TRIAD]) >
	    1e-9 * t->stream_gbs[GPUPROJ_STREAM_TRIAD])
		return broken(t, file, reterr, "bw_gbs.dram (%g GB/s) must equal "
			      "stream_gbs.triad (%g GB/s)", t->bw_gbs[GPUPROJ_LEVEL_DRAM],
			      t->stream_gbs[GPUPROJ_STREAM_TRIAD]);
	triad = gpuproj_target_source(t, "stream_gbs.triad");
	dram = gpuproj_target_source(t, "bw_gbs.dram");
	if (!triad || !dram || triad->basis != dram->basis)
		return broken(t, file, reterr, "bw_gbs.dram is %s but stream_gbs.triad is %s: "
			      "the two must carry the same basis",
			      gpuproj_basis_name(dram ? dram->basis : GPUPROJ_BASIS_NONE),
			      gpuproj_basis_name(triad ? triad->basis : GPUPROJ_BASIS_NONE));
	if (isnan(t->latency_ns[GPUPROJ_LEVEL_L2]) || isnan(t->latency_ns[GPUPROJ_LEVEL_DRAM]))
		return broken(t, file, reterr, "no latency_ns.%s (the pointer-chase latency "
			      "Little's law needs)",
			      isnan(t->latency_ns[GPUPROJ_LEVEL_L2]) ? "l2" : "dram");
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		/* enum gpuproj_prec and the first three lanes share their order. */
		double lanes = t->lanes_per_sm[p];
		double sustained = 2 * lanes * t->sms * t->clock_mhz / 1000;
		double peak = 2 * lanes * t->sms * t->boost_clock_mhz / 1000;
		double max = t->max_gflops[p][GPUPROJ_OP_FMA];
		const char *pn = gpuproj_prec_name(p);
		const struct gpuproj_source *s;
		char key[32];

		snprintf(key, sizeof(key), "max_gflops.%s_fma", pn);
		s = gpuproj_target_source(t, key);
		if (isnan(max) || !s)
			return broken(t, file, reterr, "no %s (the sustained rate the models use)",
				      key);
		/* A rate measured itself, or sourced on its own key, need not follow the formula. */
		if (s->basis != GPUPROJ_BASIS_MEASURED && strcmp(s->path, key) != 0 &&
		    fabs(max - sustained) > REL_TOL * sustained + 0.1)
			return broken(t, file, reterr, "%s (%g GFLOP/s) is %s but not 2 x "
				      "lanes_per_sm.%s x sms x clock_mhz / 1000 = %g", key, max,
				      gpuproj_basis_name(s->basis), pn, sustained);
		if (fabs(t->peak_gflops[p][GPUPROJ_OP_FMA] - peak) > REL_TOL * peak + 0.1)
			return broken(t, file, reterr, "peak_gflops.%s_fma (%g GFLOP/s) is not 2 x "
				      "lanes_per_sm.%s x sms x boost_clock_mhz / 1000 = %g", pn,
				      t->peak_gflops[p][GPUPROJ_OP_FMA], pn, peak);
	}
	r = check_dense_and_clock(t, file, reterr);
	if (r)
		return r;
	/*
	 * clock_mhz is the clock of the sustained FP32 FMA rate. The nine
	 * gpuperfpredict GPUs keep the clock their data set ran at ([GPP]).
	 */
	clk = gpuproj_target_source(t, "clock_mhz");
	if (clk && strstr(clk->text, "[GPP]"))
		return GPUPROJ_OK;
	lanes32 = t->lanes_per_sm[GPUPROJ_LANE_FP32];
	implied = t->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] / (2 * lanes32 * t->sms) * 1000;
	if (fabs(implied - t->clock_mhz) > REL_TOL * t->clock_mhz)
		return broken(t, file, reterr, "clock_mhz (%g MHz) is not the clock of the "
			      "sustained FP32 FMA rate: max_gflops.fp32_fma / (2 x lanes_per_sm.fp32 "
			      "x sms) x 1000 = %g MHz", t->clock_mhz, implied);
	return GPUPROJ_OK;
}
