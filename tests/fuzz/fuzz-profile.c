/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the gpuproj-profile/1 JSON loader
 * (gpuproj_profile_load_buffer(), src/profile-json.c).
 *
 * Oracle: the loader, which parses large profiles in pieces, accepts and
 * refuses exactly what one parse of the whole text does (the same message
 * and position, the same profile); a profile it accepts is written, loads
 * back and means the same (fuzz_check_profile()); and every model projects each of its first
 * kernels between two GPUs of the built-in targets.yaml either with an
 * error or with a finite, non-negative interval around its point; and a
 * whole-run timeline replays onto the source GPU and onto another into
 * finite, non-negative parts whose bar adds up to the wall time, with a
 * finite identity error and an explained share in [0, 1] (the identity
 * tolerance itself is not asserted: the input's times are arbitrary).
 * An accepted timeline's times hold together (its span within
 * its wall, each thread's epochs within its span); every projection is
 * at least one stream's GPU time (floor_ns), its interval ordered and
 * widened by a finite, non-negative bound; the identity check of
 * gpuproj_timeline_check_identity() answers (GPUPROJ_OK or
 * GPUPROJ_E_SCHEMA).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>
#include <gpuproj/timeline.h>

#include "fuzz-common.h"
#include "profile-json.h"

static struct gpuproj_targets *targets;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (gpuproj_targets_load_builtin(&targets, NULL))
		fuzz_fail("the built-in targets.yaml does not load");
	return 0;
}

/* Model inputs come only from loaded profiles: what they give the models must stay finite. */
static void
check_models(const struct gpuproj_profile *p)
{
	size_t n = gpuproj_targets_count(targets), i, m;
	const struct gpuproj_target *src = gpuproj_targets_get(targets, 0);
	const struct gpuproj_target *tgt = gpuproj_targets_get(targets, n - 1);

	for (i = 0; i < gpuproj_profile_count(p) && i < 4; i++) {
		for (m = 0; m < gpuproj_model_count(); m++) {
			struct gpuproj_projection pr;

			if (gpuproj_model_project(gpuproj_model_at(m), gpuproj_profile_at(p, i), src,
						  tgt, NULL, &pr) != GPUPROJ_OK)
				continue;
			/*
			 * The model's own interval holds its point; the calibrated one
			 * (point × the residual factors, model.h) need not: a group whose
			 * measured times all exceed the projection has lo > point.
			 */
			if (!isfinite(pr.lo_ns) || !isfinite(pr.hi_ns) || !isfinite(pr.point_ns) ||
			    !isfinite(pr.level_lo_ns) || !isfinite(pr.level_hi_ns) ||
			    pr.lo_ns < 0 || pr.lo_ns > pr.hi_ns || pr.level_lo_ns < 0 ||
			    pr.level_lo_ns > pr.point_ns || pr.point_ns > pr.level_hi_ns)
				fuzz_fail("model %s, kernels[%zu]: projection [%g, %g] (model's own "
					  "[%g, %g]) point %g is not finite and ordered",
					  gpuproj_model_name(gpuproj_model_at(m)), i, pr.lo_ns, pr.hi_ns,
					  pr.level_lo_ns, pr.level_hi_ns, pr.point_ns);
		}
	}
}

/*
 * The loader parses in pieces (the top level, then each kernel);
 * it must accept and refuse exactly what one parse of the whole text does,
 * with the same message and the same profile.
 */
static void
check_pieces(const uint8_t *data, size_t size, int status, const struct gpuproj_error *err,
	     const struct gpuproj_profile *p)
{
	struct gpuproj_profile *w = NULL;
	struct gpuproj_error we = { 0 };
	int ws = profile_load_buffer_whole((const char *)data, size, "fuzz.json", &w, &we);

	if (ws != status || (status && (strcmp(we.message, err->message) != 0 ||
					we.line != err->line || we.column != err->column)))
		fuzz_fail("loaded in pieces: status %d, %d:%d %s; whole: status %d, %d:%d %s",
			  status, err->line, err->column, err->message, ws, we.line, we.column,
			  we.message);
	if (!status)
		fuzz_compare_profiles(p, w, false, "loaded in pieces against whole");
	gpuproj_profile_free(w);
}

/* The replay of a timeline: finite, non-negative parts whose bar is the wall time. */
static void
check_whole(const struct gpuproj_profile *p)
{
	size_t n = gpuproj_targets_count(targets), i;
	const struct gpuproj_target *src = gpuproj_targets_get(targets, 0);
	const struct gpuproj_target *tgts[2] = { src, gpuproj_targets_get(targets, n - 1) };

	if (!gpuproj_profile_timeline(p))
		return;
	for (i = 0; i < 2; i++) {
		struct gpuproj_run_projection run;
		const struct gpuproj_whole_run *w = &run.whole;
		const double *parts[] = { &w->wall_ns, &w->lo_ns, &w->hi_ns, &w->replayed_ns,
					  &w->carried_ns, &w->kernel_ns, &w->copy_ns, &w->host_ns,
					  &w->idle_ns, &w->bar_kernel_ns, &w->bar_copy_ns,
					  &w->bar_host_ns };
		size_t j;

		if (gpuproj_project_run(p, gpuproj_model_default(), src, tgts[i], NULL, &run) !=
		    GPUPROJ_OK)
			continue;
		for (j = 0; w->valid && j < sizeof(parts) / sizeof(parts[0]); j++) {
			if (!isfinite(*parts[j]) || *parts[j] < 0)
				fuzz_fail("whole run onto %s: part %zu is %g", tgts[i]->name, j,
					  *parts[j]);
		}
		/* The floor, the bound, an ordered interval. */
		if (w->valid && (!isfinite(w->floor_ns) || w->floor_ns < 0 ||
				 w->wall_ns < w->floor_ns * (1 - 1e-12) ||
				 !isfinite(w->bound_ns) || w->bound_ns < 0 ||
				 w->lo_ns > w->hi_ns * (1 + 1e-12) + 1e-6))
			fuzz_fail("whole run onto %s: wall %g below the floor %g, bound %g, or "
				  "interval [%g, %g] out of order", tgts[i]->name, w->wall_ns,
				  w->floor_ns, w->bound_ns, w->lo_ns, w->hi_ns);
		if (w->valid && (fabs(w->bar_kernel_ns + w->bar_copy_ns + w->bar_host_ns +
				      w->carried_ns - w->wall_ns) > 1e-6 * w->wall_ns + 1e-3 ||
				 !isfinite(w->identity_error) || !(w->explained >= 0) ||
				 w->explained > 1 + 1e-9))
			fuzz_fail("whole run onto %s: bar %g + %g + %g + %g for a wall of %g, "
				  "identity error %g, explained %g", tgts[i]->name, w->bar_kernel_ns,
				  w->bar_copy_ns, w->bar_host_ns, w->carried_ns, w->wall_ns,
				  w->identity_error, w->explained);
		gpuproj_run_projection_clear(&run);
	}
}

/* What the loader accepts holds together (gpuproj_timeline_validate()). */
static void
check_timeline_rules(const struct gpuproj_profile *p)
{
	const struct gpuproj_timeline *tl = gpuproj_profile_timeline(p);
	struct gpuproj_error err = { 0 };
	size_t i, j;
	int r;

	if (!tl)
		return;
	if (!isnan(tl->wall_ns) && tl->span_ns > tl->wall_ns * (1 + 1e-9) + 1)
		fuzz_fail("timeline accepted with span %g above wall %g", tl->span_ns, tl->wall_ns);
	for (i = 0; i < tl->n_patterns; i++) {
		double sum = 0;

		for (j = 0; j < tl->n_patterns; j++) {
			if (tl->patterns[j].thread == tl->patterns[i].thread)
				sum += tl->patterns[j].wall_ns.sum;
		}
		if (sum > tl->span_ns * (1 + 1e-9) + 1)
			fuzz_fail("timeline accepted with thread %u's epochs %g above the span %g",
				  tl->patterns[i].thread, sum, tl->span_ns);
	}
	r = gpuproj_timeline_check_identity(tl, NULL, &err);
	if (r != GPUPROJ_OK && r != GPUPROJ_E_SCHEMA)
		fuzz_fail("gpuproj_timeline_check_identity() returned %d: %s", r, err.message);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	int status = gpuproj_profile_load_buffer((const char *)data, size, "fuzz.json", &p, &err);

	check_pieces(data, size, status, &err, p);
	if (status)
		return 0;
	fuzz_check_profile(p, "profile JSON");
	check_models(p);
	check_timeline_rules(p);
	check_whole(p);
	gpuproj_profile_free(p);
	return 0;
}
