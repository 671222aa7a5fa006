/* SPDX-License-Identifier: MIT */
/*
 * A profile's run projected with one model (gpuproj_project_run(),
 * include/gpuproj/model.h): every kernel, the fallbacks of the default
 * model, and the whole-run timeline replayed on the target
 * (timeline.c). Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/interval.h>
#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

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
 * needs it); sol whenever it can; the envelope for a kernel without counters. The projection keeps the run model's
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
		/* hroof stands in only for hroof-occ's geometry; sol and envelope say what they lack. */
		if (fb[i] == gpuproj_model_find("hroof")) {
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
	const struct gpuproj_model *fb[3];
	struct gpuproj_model_options with_clock;

	/* The run's NVML clock, for the AUTO clock regime (model.h). */
	if (opt && !opt->source_clock && gpuproj_profile_device(p)->sm_clock.samples > 0) {
		with_clock = *opt;
		with_clock.source_clock = &gpuproj_profile_device(p)->sm_clock;
		opt = &with_clock;
	}
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
				out->n_assumed += pr->assumed != NULL;
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
