/* SPDX-License-Identifier: MIT */
/*
 * A profile's run projected with one model (gpuproj_project_run(),
 * include/gpuproj/model.h): every kernel, the fallbacks of the default
 * model, and the whole-run timeline replayed on the target
 * (timeline.c); and onto every target the way the front ends ask for it
 * (gpuproj_project_targets(): the source GPU or its provisional entry,
 * the targets, the SASS FLOP ratio and tensor rescaling, the runs).
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/interval.h>
#include <gpuproj/model.h>
#include <gpuproj/sass.h>

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
 * (sol, then the envelope for a kernel without counters, for the default
 * model). The projection keeps the run model's reason when no fallback
 * succeeds.
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

/* ---- onto every target (gpuproj_project_targets()) ---- */

static int
oom(struct gpuproj_error *err)
{
	return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
}

/* The targets of the request: by name, in its order, or every one of the file. */
static int
resolve_targets(const struct gpuproj_project_request *req, struct gpuproj_projections *out,
		struct gpuproj_error *err)
{
	static const struct gpuproj_lookup_words words = { .what = "target GPU" };
	size_t i, n = req->n_target_names ? req->n_target_names
					  : gpuproj_targets_count(req->targets);
	int r;

	out->targets = calloc(n + 1, sizeof(*out->targets));
	if (!out->targets)
		return oom(err);
	for (i = 0; i < n; i++) {
		if (!req->n_target_names) {
			out->targets[i] = gpuproj_targets_get(req->targets, i);
			continue;
		}
		r = gpuproj_targets_lookup(req->targets, req->target_names[i], &words,
					   &out->targets[i], err);
		if (r)
			return r;
	}
	out->n_targets = n;
	return GPUPROJ_OK;
}

/*
 * SASS analysis of the device code for the source's and the NVIDIA
 * targets' architectures, each once ([VanLanker2024] §4.2), and the tensor
 * FLOP per MMA instruction of the source's SASS. No NVIDIA architecture:
 * no analysis.
 */
static int
analyse_sass(struct gpuproj_profile *p, const struct gpuproj_project_request *req,
	     struct gpuproj_projections *out, struct gpuproj_error *err)
{
	struct gpuproj_sass_options opt = { 0 };
	const struct gpuproj_target *src = out->source;
	const char **archs = calloc(out->n_targets + 2, sizeof(*archs));
	size_t i, j, n = 0;
	int r = GPUPROJ_OK;

	if (!archs)
		return oom(err);
	for (i = 0; i <= out->n_targets; i++) {
		const struct gpuproj_target *t = i == 0 ? src : out->targets[i - 1];

		if (!t || t->vendor != GPUPROJ_VENDOR_NVIDIA || !t->arch)
			continue;
		for (j = 0; j < n && strcmp(archs[j], t->arch) != 0; j++)
			;
		if (j == n)
			archs[n++] = t->arch;
	}
	opt.archs = archs;
	opt.n_archs = n;
	opt.progress = req->sass_progress;
	opt.progress_userdata = req->sass_progress_userdata;
	if (n)
		r = gpuproj_sass_analyze(req->cubins, req->n_cubins, &opt, &out->sass, err);
	free(archs);
	if (r == GPUPROJ_OK && out->sass && src->vendor == GPUPROJ_VENDOR_NVIDIA && src->arch &&
	    gpuproj_sass_tensor_rescale(p, out->sass, src->arch, &out->n_rescaled))
		r = oom(err);
	return r;
}

int
gpuproj_project_targets(struct gpuproj_profile *p, const struct gpuproj_project_request *req,
			struct gpuproj_projections *out, struct gpuproj_error *reterr)
{
	size_t t, m;
	int r;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!p || !req || !req->targets || !out)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	out->profile = p;
	out->options = req->options;
	out->n_models = req->all_models ? gpuproj_model_count() : 1;
	out->model = req->all_models ? NULL : req->model ? req->model : gpuproj_model_default();
	if (req->all_models)
		out->options.fallback = GPUPROJ_FALLBACK_OFF;
	r = gpuproj_resolve_source_or_derive(p, req->targets, req->source, &out->source,
					     &out->derived, reterr);
	if (r == GPUPROJ_OK)
		r = resolve_targets(req, out, reterr);
	if (r == GPUPROJ_OK && req->n_cubins)
		r = analyse_sass(p, req, out, reterr);
	if (r)
		return r;
	out->options.flop_ratio = out->sass ? gpuproj_sass_flop_ratio_cb : NULL;
	out->options.flop_ratio_userdata = out->sass;
	out->n_runs = out->n_targets * out->n_models;
	if (req->on_demand && !req->all_models)
		return GPUPROJ_OK;
	out->runs = calloc(out->n_runs ? out->n_runs : 1, sizeof(*out->runs));
	if (!out->runs)
		return oom(reterr);
	for (t = 0; t < out->n_targets; t++) {
		for (m = 0; m < out->n_models; m++) {
			const struct gpuproj_model *model = out->model ? out->model
								       : gpuproj_model_at(m);

			if (gpuproj_project_run(p, model, out->source, out->targets[t],
						&out->options, &out->runs[t * out->n_models + m]))
				return oom(reterr);
		}
	}
	return GPUPROJ_OK;
}

const struct gpuproj_run_projection *
gpuproj_projections_provide(void *projections, size_t i, int *ret_status)
{
	struct gpuproj_projections *pr = projections;

	if (pr->have_current)
		gpuproj_run_projection_clear(&pr->current);
	pr->have_current = false;
	if (i >= pr->n_targets || !pr->model) {
		*ret_status = GPUPROJ_E_INVAL;
		return NULL;
	}
	*ret_status = gpuproj_project_run(pr->profile, pr->model, pr->source, pr->targets[i],
					  &pr->options, &pr->current);
	if (*ret_status)
		return NULL;
	pr->have_current = true;
	return &pr->current;
}

void
gpuproj_projections_clear(struct gpuproj_projections *pr)
{
	size_t i;

	if (!pr)
		return;
	if (pr->have_current)
		gpuproj_run_projection_clear(&pr->current);
	for (i = 0; pr->runs && i < pr->n_runs; i++)
		gpuproj_run_projection_clear(&pr->runs[i]);
	free(pr->runs);
	free(pr->targets);
	gpuproj_sass_free(pr->sass);
	gpuproj_targets_free(pr->derived);
	memset(pr, 0, sizeof(*pr));
}
