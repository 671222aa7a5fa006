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
 * A kernel the run's model cannot project: the first fallback that can
 * (sol, for the default model). The projection keeps the run model's
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

bool
gpuproj_model_prefers_fallback(const struct gpuproj_model *m, const struct gpuproj_kernel *k)
{
	bool any_fp;
	size_t i;

	if (!m || !k || m != gpuproj_model_default())
		return false;
	model_flop(k, &any_fp);
	if (any_fp)
		return false;
	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, GPUPROJ_SOL_SM_PCT) == 0 && k->extra[i].n > 0)
			return true;
	}
	return false;
}

unsigned
gpuproj_model_assumptions(const struct gpuproj_model *m, const struct gpuproj_kernel *k)
{
	return m && k && m->assumes ? m->assumes(k) : 0;
}

/*
 * Tensor FLOP the import took from instruction counts × an assumed shape:
 * its attribute import.tensor.<metric> (import ncu) or metrics.<CHIP>.<metric>
 * (libproj.so) says "assumed" (GPUPROJ_ASSUME_TENSOR_SHAPE).
 */
static unsigned
tensor_shape_assumed(const struct gpuproj_profile *p, const struct gpuproj_kernel *k)
{
	const char *key, *value;
	size_t i;
	int t;

	for (t = 0; t < GPUPROJ_TPREC_COUNT; t++) {
		enum gpuproj_metric m = gpuproj_tensor_metric((enum gpuproj_tensor_prec)t);
		const char *name = gpuproj_metric_name(m);
		size_t nl = strlen(name);

		if (!(gpuproj_kernel_metric(k, m) > 0))
			continue;
		for (i = 0; (key = gpuproj_profile_attr_at(p, i, &value)); i++) {
			size_t kl = strlen(key);

			if (kl > nl && key[kl - nl - 1] == '.' &&
			    strcmp(key + kl - nl, name) == 0 && value && strstr(value, "assumed"))
				return 1u << GPUPROJ_ASSUME_TENSOR_SHAPE;
		}
	}
	return 0;
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

		if (n_fb && gpuproj_model_prefers_fallback(m, k)) {
			/* sol first; the run's model only if sol cannot. */
			snprintf(pr->why, sizeof(pr->why), "%s: an export of ncu's default "
				 "sections (throughput percentages, no FP counts): sol's input",
				 gpuproj_model_name(m));
			pr->status = GPUPROJ_E_MISSING;
			project_fallback(fb, n_fb, k, src, tgt, opt, pr);
			if (pr->status != GPUPROJ_OK)
				gpuproj_model_project(m, k, src, tgt, opt, pr);
		} else {
			gpuproj_model_project(m, k, src, tgt, opt, pr);
			if (pr->status == GPUPROJ_E_MISSING && n_fb)
				project_fallback(fb, n_fb, k, src, tgt, opt, pr);
		}
		if (pr->status == GPUPROJ_OK) {
			unsigned shape = tensor_shape_assumed(p, k);
			int a;

			/* Not widened: no corpus measures it (docs/models.md "Missing inputs"). */
			pr->assumed |= shape;
			out->n_projected++;
			out->n_interval_unseen += pr->interval_gpus == GPUPROJ_INTERVAL_GPUS_UNSEEN;
			if (pr->fallback) {
				out->n_fallback++;
				out->n_fallback_sol += gpuproj_model_is_coarse(pr->fallback);
			}
			out->n_assumed += pr->assumed != 0;
			for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++)
				out->n_assumption[a] += (pr->assumed >> a) & 1u;
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
