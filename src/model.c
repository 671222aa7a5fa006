/* SPDX-License-Identifier: MIT */
/*
 * Model registry, whole-run projection and source-GPU resolution
 * (include/gpuproj/model.h). Thread safety: the registry is constant data.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

typedef int (*project_fn)(const struct gpuproj_kernel *k, const struct gpuproj_target *src,
			  const struct gpuproj_target *tgt, double flop_ratio,
			  struct gpuproj_projection *out);

struct gpuproj_model {
	const char *name;
	const char *summary;
	project_fn project;
};

static const struct gpuproj_model models[] = {
	{ "hroof",
	  "hierarchical roofline with kernel-specific ceilings: Van Lanker et al., Euro-Par 2024, "
	  "eqs. 1-10 (interval over L1, L2, DRAM; point = midpoint)",
	  hroof_project },
};

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
	return NULL;
}

const struct gpuproj_model *
gpuproj_model_default(void)
{
	return &models[0];
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

int
gpuproj_model_project(const struct gpuproj_model *m, const struct gpuproj_kernel *k,
		      const struct gpuproj_target *src, const struct gpuproj_target *tgt,
		      const struct gpuproj_model_options *opt, struct gpuproj_projection *out)
{
	double ratio = 1.0;
	int i;

	if (!out)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	out->lo_ns = out->hi_ns = out->point_ns = NAN;
	for (i = 0; i < GPUPROJ_HL_COUNT; i++)
		out->level_ns[i] = NAN;
	out->flop_ratio = 1.0;
	if (!m || !k || !src || !tgt) {
		snprintf(out->why, sizeof(out->why), "invalid argument");
		return out->status = GPUPROJ_E_INVAL;
	}
	if (opt && opt->flop_ratio) {
		double r = opt->flop_ratio(opt->flop_ratio_userdata, k, src, tgt);

		if (r > 0 && isfinite(r))
			ratio = r;
	}
	return m->project(k, src, tgt, ratio, out);
}

void
gpuproj_run_projection_clear(struct gpuproj_run_projection *r)
{
	if (!r)
		return;
	free(r->kernels);
	memset(r, 0, sizeof(*r));
}

int
gpuproj_project_run(const struct gpuproj_profile *p, const struct gpuproj_model *m,
		    const struct gpuproj_target *src, const struct gpuproj_target *tgt,
		    const struct gpuproj_model_options *opt, struct gpuproj_run_projection *out)
{
	size_t i, n = gpuproj_profile_count(p);

	memset(out, 0, sizeof(*out));
	out->model = m;
	out->target = tgt;
	out->n = n;
	out->kernels = calloc(n ? n : 1, sizeof(*out->kernels));
	if (!out->kernels)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < n; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		struct gpuproj_projection *pr = &out->kernels[i];
		double src_ns = gpuproj_kernel_total_ns(k);
		double launches = (double)(k->launches ? k->launches : 1);

		gpuproj_model_project(m, k, src, tgt, opt, pr);
		if (isnan(src_ns))
			continue; /* never timed: nothing to carry either */
		out->source_ns += src_ns;
		if (pr->status == GPUPROJ_OK) {
			out->lo_ns += pr->lo_ns * launches;
			out->hi_ns += pr->hi_ns * launches;
			out->point_ns += pr->point_ns * launches;
		} else {
			out->n_unprojected++;
			out->unprojected_source_ns += src_ns;
			out->lo_ns += src_ns;
			out->hi_ns += src_ns;
			out->point_ns += src_ns;
		}
	}
	return GPUPROJ_OK;
}

static int
not_found(const struct gpuproj_targets *targets, const char *name, const char *what,
	  struct gpuproj_error *reterr)
{
	const char *close[5];
	size_t n = gpuproj_targets_suggest(targets, name, close, ARRAY_LENGTH(close)), i;
	struct strbuf sb;
	int r;

	strbuf_init(&sb);
	for (i = 0; i < n; i++)
		strbuf_printf(&sb, "%s%s", i ? ", " : "", close[i]);
	if (n)
		r = error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0,
			      "%s '%s' is not in targets.yaml; close names: %s "
			      "(`gpuproj targets list` shows all)", what, name, sb.buf);
	else
		r = error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0,
			      "%s '%s' is not in targets.yaml (`gpuproj targets list` shows all; "
			      "add an entry or pass --source NAME)", what, name);
	strbuf_free(&sb);
	return r;
}

int
gpuproj_resolve_source(const struct gpuproj_profile *p, const struct gpuproj_targets *targets,
		       const char *override, const struct gpuproj_target **ret,
		       struct gpuproj_error *reterr)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const struct gpuproj_target *t;

	if (override) {
		t = gpuproj_targets_match(targets, override);
		if (!t)
			return not_found(targets, override, "source GPU", reterr);
		*ret = t;
		return GPUPROJ_OK;
	}
	if (d->target) {
		t = gpuproj_targets_find(targets, d->target);
		if (t) {
			*ret = t;
			return GPUPROJ_OK;
		}
	}
	if (d->name) {
		t = gpuproj_targets_match(targets, d->name);
		if (t) {
			*ret = t;
			return GPUPROJ_OK;
		}
		return not_found(targets, d->name, "the profile's GPU", reterr);
	}
	if (d->target)
		return not_found(targets, d->target, "the profile's GPU", reterr);
	return error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0,
			 "the profile does not name its GPU; pass --source NAME");
}
