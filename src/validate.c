/* SPDX-License-Identifier: MIT */
/*
 * Validation of projection models against measured times
 * (include/gpuproj/validate.h): joining measured times across GPUs and the
 * statistics, whose definitions are in the header. It reads profiles only:
 * loading data sets is import-dataset.c, the table, CSV and JSON writers
 * are validate-write.c.
 *
 * Thread safety: reentrant; only reads its inputs.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/interval.h>
#include <gpuproj/model.h>
#include <gpuproj/validate.h>

#include "model-private.h"
#include "profile-private.h"
#include "util.h"

const char *
gpuproj_validation_subset_name(enum gpuproj_validation_subset s)
{
	switch (s) {
	case GPUPROJ_VSUBSET_ALL: return "all";
	case GPUPROJ_VSUBSET_SHORT: return "short";
	case GPUPROJ_VSUBSET_LONG: return "long";
	case GPUPROJ_VSUBSET_COUNT: break;
	}
	return "?";
}

static const struct gpuproj_word holdout_words[] = {
	{ "shape", GPUPROJ_HOLDOUT_SHAPE },
	{ "gpu", GPUPROJ_HOLDOUT_GPU },
	{ "none", GPUPROJ_HOLDOUT_NONE },
};

const struct gpuproj_word *
gpuproj_holdout_words(size_t *ret_n)
{
	*ret_n = ARRAY_LENGTH(holdout_words);
	return holdout_words;
}

const char *
gpuproj_holdout_name(enum gpuproj_holdout h)
{
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(holdout_words); i++) {
		if (holdout_words[i].value == (int)h)
			return holdout_words[i].name;
	}
	return "?";
}

/* ---- validation ---- */

/* A comparison while collecting: its sort key and the owned reason text. */
struct pending {
	size_t model, source, target, seq; /* model index, source rank, target index, order */
	char *why;
};

static bool
same_signature(const struct gpuproj_kernel *a, const struct gpuproj_kernel *b)
{
	return a->grid.x == b->grid.x && a->grid.y == b->grid.y && a->grid.z == b->grid.z &&
	       a->block.x == b->block.x && a->block.y == b->block.y &&
	       a->block.z == b->block.z && a->smem_dynamic == b->smem_dynamic &&
	       strcmp(a->name, b->name) == 0 &&
	       strcmp(a->tag ? a->tag : "", b->tag ? b->tag : "") == 0;
}

/* The kernel of `q` with k's signature, ignoring the device ordinal. */
static const struct gpuproj_kernel *
find_same(const struct gpuproj_profile *q, const struct gpuproj_kernel *k)
{
	struct gpuproj_signature sig = {
		.name = k->name, .tag = k->tag, .grid = k->grid, .block = k->block,
		.smem_dynamic = k->smem_dynamic, .device = k->device,
	};
	const struct gpuproj_kernel *o = gpuproj_profile_find(q, &sig);
	size_t i;

	if (o)
		return o;
	for (i = 0; i < gpuproj_profile_count(q); i++) {
		o = gpuproj_profile_at(q, i);
		if (same_signature(o, k))
			return o;
	}
	return NULL;
}

/* The measured time of kernel k (of profile `self`) on target t (header: 1., 2.). */
static bool
measured_on(const struct gpuproj_kernel *k, const struct gpuproj_target *t,
	    const struct gpuproj_targets *targets, const struct gpuproj_profile *const *profiles,
	    const struct gpuproj_target *const *gpu_of, size_t n_profiles, size_t self,
	    double *ret)
{
	const struct gpuproj_reference *r = gpuproj_kernel_reference(k, t->name);
	size_t i;

	for (i = 0; !r && i < k->n_refs; i++) {
		if (gpuproj_targets_match(targets, k->refs[i].gpu) == t)
			r = &k->refs[i];
	}
	if (r && isfinite(r->mean_ns) && r->mean_ns > 0) {
		*ret = r->mean_ns;
		return true;
	}
	for (i = 0; i < n_profiles; i++) {
		const struct gpuproj_kernel *o;
		double ns;

		if (i == self || gpu_of[i] != t)
			continue;
		o = find_same(profiles[i], k);
		if (!o)
			continue;
		ns = gpuproj_kernel_mean_ns(o);
		if (isfinite(ns) && ns > 0) {
			*ret = ns;
			return true;
		}
	}
	return false;
}

/* Statistics of the comparisons c[idx[0..n)], as defined in validate.h. */
static void
compute_stats(struct gpuproj_validation_stats *s, const struct gpuproj_validation_comparison *c,
	      const size_t *idx, size_t n_idx, double *scratch)
{
	double sum_ape = 0, sum_err = 0, sum_width = 0;
	size_t i, n = 0, covered = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n_idx; i++) {
		const struct gpuproj_validation_comparison *x = &c[idx[i]];

		if (x->status != GPUPROJ_OK) {
			s->n_failed++;
			continue;
		}
		scratch[n++] = fabs(x->error_pct);
		sum_ape += fabs(x->error_pct);
		sum_err += x->error_pct;
		sum_width += (x->hi_ns - x->lo_ns) / x->point_ns * 100.0;
		covered += x->covered;
	}
	s->n = n;
	if (n == 0) {
		s->mape_pct = s->median_ape_pct = s->coverage_pct = s->bias_pct = s->width_pct = NAN;
		return;
	}
	s->width_pct = sum_width / (double)n;
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	s->mape_pct = sum_ape / (double)n;
	s->median_ape_pct = n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
	s->coverage_pct = 100.0 * (double)covered / (double)n;
	s->bias_pct = sum_err / (double)n;
}

/* Fill a group's stats (three subsets) and reasons from the comparisons c[idx]. */
static int
fill_group(struct gpuproj_validation_group *g, struct gpuproj_validation_comparison *c,
	   struct pending *pend, const size_t *idx, size_t n_idx, double threshold_ns,
	   size_t *sub, double *scratch, bool set_why)
{
	size_t i, j, ns, nl;

	compute_stats(&g->stats[GPUPROJ_VSUBSET_ALL], c, idx, n_idx, scratch);
	for (i = 0, ns = 0; i < n_idx; i++) {
		if (c[idx[i]].measured_ns < threshold_ns)
			sub[ns++] = idx[i];
	}
	compute_stats(&g->stats[GPUPROJ_VSUBSET_SHORT], c, sub, ns, scratch);
	for (i = 0, nl = 0; i < n_idx; i++) {
		if (!(c[idx[i]].measured_ns < threshold_ns))
			sub[nl++] = idx[i];
	}
	compute_stats(&g->stats[GPUPROJ_VSUBSET_LONG], c, sub, nl, scratch);

	for (i = 0; i < n_idx; i++) {
		const char *why = pend[idx[i]].why;

		if (c[idx[i]].status == GPUPROJ_OK)
			continue;
		for (j = 0; j < g->n_reasons; j++) {
			if (strcmp(g->reasons[j].why, why) == 0)
				break;
		}
		if (j == g->n_reasons) {
			struct gpuproj_validation_reason *nr =
				realloc(g->reasons, (g->n_reasons + 1) * sizeof(*nr));

			if (!nr)
				return GPUPROJ_E_NOMEM;
			g->reasons = nr;
			nr[j].why = strdup(why);
			nr[j].count = 0;
			if (!nr[j].why)
				return GPUPROJ_E_NOMEM;
			g->n_reasons++;
		}
		g->reasons[j].count++;
	}
	/* Most frequent first; insertion sort keeps ties in first-seen order. */
	for (i = 1; i < g->n_reasons; i++) {
		struct gpuproj_validation_reason r = g->reasons[i];

		for (j = i; j > 0 && g->reasons[j - 1].count < r.count; j--)
			g->reasons[j] = g->reasons[j - 1];
		g->reasons[j] = r;
	}
	if (set_why) {
		for (i = 0; i < n_idx; i++) {
			if (c[idx[i]].status == GPUPROJ_OK)
				continue;
			for (j = 0; j < g->n_reasons; j++) {
				if (strcmp(g->reasons[j].why, pend[idx[i]].why) == 0)
					c[idx[i]].why = g->reasons[j].why;
			}
		}
	}
	return GPUPROJ_OK;
}

static int
cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->model != y->model)
		return x->model < y->model ? -1 : 1;
	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : 0;
}

static int
add_citation(struct gpuproj_validation *v, const char *text)
{
	char **nc;
	size_t i;

	for (i = 0; i < v->n_citations; i++) {
		if (strcmp(v->citations[i], text) == 0)
			return GPUPROJ_OK;
	}
	nc = realloc(v->citations, (v->n_citations + 1) * sizeof(*nc));
	if (!nc)
		return GPUPROJ_E_NOMEM;
	v->citations = nc;
	nc[v->n_citations] = strdup(text);
	if (!nc[v->n_citations])
		return GPUPROJ_E_NOMEM;
	v->n_citations++;
	return GPUPROJ_OK;
}

static int
collect_citations(struct gpuproj_validation *v, const struct gpuproj_profile *const *profiles,
		  size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *cit = gpuproj_profile_attr(profiles[i], "citation");
		const char *lic = gpuproj_profile_attr(profiles[i], "license");
		char *text;
		int st;

		if (!cit)
			continue;
		text = lic ? xasprintf("%s (%s)", cit, lic) : strdup(cit);
		if (!text)
			return GPUPROJ_E_NOMEM;
		st = add_citation(v, text);
		free(text);
		if (st)
			return st;
	}
	return GPUPROJ_OK;
}

static const struct gpuproj_lookup_words source_words = { .what = "source GPU" };
static const struct gpuproj_lookup_words target_words = { .what = "target GPU" };

void
gpuproj_validation_clear(struct gpuproj_validation *v)
{
	size_t i, j;

	if (!v)
		return;
	for (i = 0; i < v->n_pairs; i++) {
		for (j = 0; j < v->pairs[i].n_reasons; j++)
			free(v->pairs[i].reasons[j].why);
		free(v->pairs[i].reasons);
	}
	free(v->pairs);
	for (i = 0; v->overall && i < v->n_models; i++) {
		for (j = 0; j < v->overall[i].n_reasons; j++)
			free(v->overall[i].reasons[j].why);
		free(v->overall[i].reasons);
	}
	free(v->overall);
	for (i = 0; v->generations && i < 2 * v->n_models; i++) {
		for (j = 0; j < v->generations[i].n_reasons; j++)
			free(v->generations[i].reasons[j].why);
		free(v->generations[i].reasons);
	}
	free(v->generations);
	free(v->models);
	free(v->comparisons);
	for (i = 0; i < v->n_citations; i++)
		free(v->citations[i]);
	free(v->citations);
	free(v->targets_origin);
	gpuproj_intervals_free(v->fitted);
	free(v->intervals_origin);
	for (i = 0; i < v->n_derived; i++)
		gpuproj_profile_free(v->derived[i]);
	free(v->derived);
	memset(v, 0, sizeof(*v));
}

static int
cmp_target_name(const void *a, const void *b)
{
	const struct gpuproj_target *x = *(const struct gpuproj_target *const *)a;
	const struct gpuproj_target *y = *(const struct gpuproj_target *const *)b;

	return strcmp(x->name, y->name);
}

/* Is comparison c in the calibration half? (enum gpuproj_holdout) */
static bool
in_calibration(enum gpuproj_holdout h, const struct gpuproj_validation_comparison *c,
	       const struct gpuproj_target *const *sorted, size_t n_sorted)
{
	size_t i;

	if (h == GPUPROJ_HOLDOUT_SHAPE)
		return profile_shape_hash(c->kernel) % 2 == 0;
	if (h == GPUPROJ_HOLDOUT_GPU) {
		for (i = 0; i < n_sorted; i++) {
			if (sorted[i] == c->target)
				return i % 2 == 0;
		}
	}
	return false;
}

/* What the projections were made from (a fitted table's provenance "inputs"). */
#define INPUTS_PROFILES "the data sets' metrics as imported"
#define INPUTS_SECTIONS                                                                    \
	"Nsight Compute default sections (duration, launch, speed-of-light percentages) "   \
	"derived from the data sets' counters against each source GPU's targets.yaml "     \
	"ceilings (gpuproj_profile_default_sections(), `gpuproj validate --default-sections`)"

/*
 * Split (holdout), fit (fit_intervals), and give every projected comparison
 * its interval: the fitted table's, else the options' (NULL: built-in),
 * else (level_interval or no entry) the model's own. Calibration-half
 * comparisons are dropped from comp/pend (their `why` freed).
 */
static int
intervals(struct gpuproj_validation *v, const struct gpuproj_validate_options *opt,
	  struct gpuproj_validation_comparison *comp, struct pending *pend, size_t *n_comp,
	  const struct gpuproj_target *const *tlist, size_t n_t, struct gpuproj_error *reterr)
{
	const struct gpuproj_intervals *iv = NULL;
	const struct gpuproj_target **sorted = NULL;
	bool *calib = NULL;
	size_t i, j, n = *n_comp, n_sorted = 0;
	int st = GPUPROJ_OK;

	calib = calloc(n ? n : 1, sizeof(*calib));
	sorted = calloc(n_t ? n_t : 1, sizeof(*sorted));
	if (!calib || !sorted)
		goto nomem;
	for (i = 0; i < n_t; i++) {
		for (j = 0; j < n && comp[j].target != tlist[i]; j++)
			;
		if (j < n)
			sorted[n_sorted++] = tlist[i];
	}
	qsort(sorted, n_sorted, sizeof(*sorted), cmp_target_name);
	for (i = 0; i < n; i++)
		calib[i] = in_calibration(opt->holdout, &comp[i], sorted, n_sorted);

	if (opt->fit_intervals) {
		struct gpuproj_interval_sample *smp = calloc(n ? n : 1, sizeof(*smp));
		struct gpuproj_intervals_provenance prov = { 0 };
		const char *split;
		size_t m = 0;

		if (!smp)
			goto nomem;
		for (i = 0; i < n; i++) {
			if (comp[i].status != GPUPROJ_OK ||
			    (opt->holdout != GPUPROJ_HOLDOUT_NONE && !calib[i]))
				continue;
			smp[m++] = (struct gpuproj_interval_sample){
				comp[i].model, comp[i].binding, comp[i].point_ns, comp[i].measured_ns,
				comp[i].source ? comp[i].source->name : NULL,
				comp[i].target ? comp[i].target->name : NULL, comp[i].kernel
			};
		}
		split = opt->holdout == GPUPROJ_HOLDOUT_SHAPE
				? "the calibration half by shape (FNV-1a of kernel name and tag even)"
			: opt->holdout == GPUPROJ_HOLDOUT_GPU
				? "the calibration half by target GPU (even positions by name)"
				: "all comparisons";
		prov.corpora = (const char *const *)v->citations;
		prov.n_corpora = v->n_citations;
		prov.split = split;
		prov.targets = v->targets_origin;
		prov.inputs = v->default_sections ? INPUTS_SECTIONS : INPUTS_PROFILES;
		prov.command = opt->fit_command;
		prov.created = opt->fit_created;
		st = gpuproj_intervals_fit(smp, m, opt->fit_coverage, &prov, &v->fitted, reterr);
		free(smp);
		if (st)
			goto out;
		iv = v->fitted;
		v->intervals_origin = xasprintf("fitted here: %s", gpuproj_intervals_origin(iv));
	} else if (!(opt->model_options && opt->model_options->level_interval)) {
		iv = opt->model_options && opt->model_options->intervals
			     ? opt->model_options->intervals
			     : gpuproj_intervals_builtin();
		v->intervals_origin = xasprintf("%s: %s", opt->model_options &&
							  opt->model_options->intervals
							  ? "given" : "built-in",
						gpuproj_intervals_origin(iv));
	} else {
		v->intervals_origin = xstrdup("the models' own (no calibration)");
	}
	if (!v->intervals_origin)
		goto nomem;
	for (i = 0; i < n; i++) {
		struct gpuproj_validation_comparison *c = &comp[i];
		double lo, hi;

		if (c->status != GPUPROJ_OK)
			continue;
		if (iv && gpuproj_intervals_lookup(iv, c->model, c->binding, c->point_ns, &lo, &hi,
						   NULL)) {
			/* What each assumption costs, as gpuproj_model_project() widens. */
			model_widen(c->model, c->assumed, &lo, &hi);
			c->lo_ns = c->point_ns * lo;
			c->hi_ns = c->point_ns * hi;
			c->calibrated = true;
		}
		c->covered = c->lo_ns <= c->measured_ns && c->measured_ns <= c->hi_ns;
	}
	if (opt->holdout != GPUPROJ_HOLDOUT_NONE) {
		for (i = j = 0; i < n; i++) {
			if (calib[i]) {
				free(pend[i].why);
				v->n_calibration++;
				continue;
			}
			comp[j] = comp[i];
			pend[j] = pend[i];
			pend[j].seq = j;
			j++;
		}
		*n_comp = j;
	}
	goto out;
nomem:
	st = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
out:
	free(calib);
	free(sorted);
	return st;
}

/* A validation under way: its inputs, what each phase adds, and the result. */
struct validate_run {
	const struct gpuproj_validate_options *opt;
	const struct gpuproj_targets *targets;
	const struct gpuproj_profile *const *profiles; /* the default sections once reduced */
	size_t n_profiles;
	const struct gpuproj_target **gpu_of; /* [n_profiles]: the GPU each was measured on */
	size_t *rank;                         /* [n_profiles]: first profile of that GPU */
	bool *is_source;                      /* [n_profiles]: projected from */
	const struct gpuproj_target **tlist;  /* [n_t]: the targets */
	const struct gpuproj_target **srcsel; /* [opt->n_sources] */
	size_t n_t;
	struct gpuproj_model_options mopt;    /* the options, with the models' own intervals */
	struct gpuproj_validation v;          /* the result being filled */
	struct gpuproj_validation_comparison *comp;
	struct pending *pend;                 /* parallel to comp */
	size_t n_comp, cap_comp;
};

static int
nomem(struct gpuproj_error *reterr)
{
	return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
}

/* Phase 1: the options, the models and the arrays per profile and target. */
static int
validate_setup(struct validate_run *r, struct gpuproj_error *reterr)
{
	const struct gpuproj_validate_options *opt = r->opt;
	size_t np = r->n_profiles ? r->n_profiles : 1, mi;

	/* Project with the models' own intervals; calibration comes after (intervals()). */
	if (opt->model_options)
		r->mopt = *opt->model_options;
	r->mopt.level_interval = true;
	r->v.holdout = opt->holdout;
	r->v.threshold_ns = opt->threshold_ns > 0 ? opt->threshold_ns
						  : GPUPROJ_VALIDATE_DEFAULT_THRESHOLD_NS;
	r->v.n_models = opt->n_models ? opt->n_models : 1;
	r->v.models = calloc(r->v.n_models, sizeof(*r->v.models));
	r->n_t = opt->n_targets ? opt->n_targets : gpuproj_targets_count(r->targets);
	r->gpu_of = calloc(np, sizeof(*r->gpu_of));
	r->rank = calloc(np, sizeof(*r->rank));
	r->is_source = calloc(np, sizeof(*r->is_source));
	r->tlist = calloc(r->n_t ? r->n_t : 1, sizeof(*r->tlist));
	r->srcsel = calloc(opt->n_sources ? opt->n_sources : 1, sizeof(*r->srcsel));
	if (!r->v.models || !r->gpu_of || !r->rank || !r->is_source || !r->tlist || !r->srcsel)
		return nomem(reterr);
	for (mi = 0; mi < r->v.n_models; mi++) {
		r->v.models[mi] = opt->n_models ? opt->models[mi] : gpuproj_model_default();
		if (!r->v.models[mi])
			return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "model %zu is NULL",
					 mi);
	}
	if (opt->targets_origin && !(r->v.targets_origin = strdup(opt->targets_origin)))
		return nomem(reterr);
	return GPUPROJ_OK;
}

/* Phase 2: the GPU of every profile; the sources; the targets. */
static int
validate_gpus(struct validate_run *r, struct gpuproj_error *reterr)
{
	const struct gpuproj_validate_options *opt = r->opt;
	size_t pi, i, j, ti;
	int st;

	for (pi = 0; pi < r->n_profiles; pi++) {
		st = gpuproj_resolve_source(r->profiles[pi], r->targets, NULL, &r->gpu_of[pi],
					    reterr);
		if (st)
			return st;
		r->rank[pi] = pi;
		for (j = 0; j < pi; j++) {
			if (r->gpu_of[j] == r->gpu_of[pi]) {
				r->rank[pi] = r->rank[j];
				break;
			}
		}
		r->is_source[pi] = opt->n_sources == 0;
	}
	for (i = 0; i < opt->n_sources; i++) {
		bool any = false;

		st = gpuproj_targets_lookup(r->targets, opt->sources[i], &source_words,
					    &r->srcsel[i], reterr);
		if (st)
			return st;
		for (pi = 0; pi < r->n_profiles; pi++) {
			if (r->gpu_of[pi] == r->srcsel[i]) {
				r->is_source[pi] = true;
				any = true;
			}
		}
		if (!any)
			return error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0,
					 "no data set was measured on source GPU '%s' (%s)",
					 opt->sources[i], r->srcsel[i]->name);
	}
	for (ti = 0; ti < r->n_t; ti++) {
		if (!opt->n_targets) {
			r->tlist[ti] = gpuproj_targets_get(r->targets, ti);
			continue;
		}
		st = gpuproj_targets_lookup(r->targets, opt->targets[ti], &target_words,
					    &r->tlist[ti], reterr);
		if (st)
			return st;
	}
	return GPUPROJ_OK;
}

/* Phase 3: reduce the inputs to the default sections: from here on they are the profiles. */
static int
validate_sections(struct validate_run *r, struct gpuproj_error *reterr)
{
	struct gpuproj_validation *v = &r->v;
	size_t pi;
	int st;

	if (!r->opt->default_sections)
		return GPUPROJ_OK;
	v->default_sections = true;
	v->derived = calloc(r->n_profiles ? r->n_profiles : 1, sizeof(*v->derived));
	if (!v->derived)
		return nomem(reterr);
	for (pi = 0; pi < r->n_profiles; pi++) {
		st = gpuproj_profile_default_sections(r->profiles[pi], r->targets,
						      r->gpu_of[pi]->name, &v->derived[pi], reterr);
		if (st)
			return st;
		v->n_derived++;
	}
	r->profiles = (const struct gpuproj_profile *const *)v->derived;
	return GPUPROJ_OK;
}

/* One comparison: kernel k of profile pi projected with model mi onto target ti. */
static int
validate_compare(struct validate_run *r, size_t mi, size_t pi, size_t ti,
		 const struct gpuproj_kernel *k, double meas, struct gpuproj_error *reterr)
{
	struct gpuproj_validation_comparison *c;
	struct gpuproj_projection pr;
	size_t n = r->n_comp;

	if (n == r->cap_comp) {
		size_t nc = r->cap_comp ? r->cap_comp * 2 : 256;
		void *a = realloc(r->comp, nc * sizeof(*r->comp));

		if (!a)
			return nomem(reterr);
		r->comp = a;
		a = realloc(r->pend, nc * sizeof(*r->pend));
		if (!a)
			return nomem(reterr);
		r->pend = a;
		r->cap_comp = nc;
	}
	gpuproj_model_project(r->v.models[mi], k, r->gpu_of[pi], r->tlist[ti], &r->mopt, &pr);
	c = &r->comp[n];
	memset(c, 0, sizeof(*c));
	c->model = r->v.models[mi];
	c->source = r->gpu_of[pi];
	c->target = r->tlist[ti];
	c->kernel = k;
	c->source_ns = gpuproj_kernel_mean_ns(k);
	c->measured_ns = meas;
	c->status = pr.status;
	c->lo_ns = c->hi_ns = c->point_ns = c->error_pct = NAN;
	r->pend[n] = (struct pending){ mi, r->rank[pi], ti, n, NULL };
	c->level_lo_ns = c->level_hi_ns = NAN;
	if (pr.status == GPUPROJ_OK) {
		c->lo_ns = c->level_lo_ns = pr.level_lo_ns;
		c->hi_ns = c->level_hi_ns = pr.level_hi_ns;
		c->point_ns = pr.point_ns;
		c->binding = pr.binding;
		c->assumed = pr.assumed;
		c->error_pct = (pr.point_ns - meas) / meas * 100.0;
	} else {
		r->pend[n].why = strdup(pr.why[0] ? pr.why : gpuproj_strerror(pr.status));
		if (!r->pend[n].why)
			return nomem(reterr);
	}
	r->n_comp++;
	return GPUPROJ_OK;
}

/*
 * Phase 4: project every kernel of every source profile with every model
 * onto every other target it was measured on.
 */
static int
validate_project(struct validate_run *r, struct gpuproj_error *reterr)
{
	const struct gpuproj_validate_options *opt = r->opt;
	size_t total = 0, done = 0, mi, pi, ti, ki;
	int st;

	for (pi = 0; pi < r->n_profiles; pi++) {
		if (r->is_source[pi])
			total += gpuproj_profile_count(r->profiles[pi]) * r->n_t;
	}
	total *= r->v.n_models;
	for (mi = 0; mi < r->v.n_models; mi++) {
		for (pi = 0; pi < r->n_profiles; pi++) {
			const struct gpuproj_profile *p = r->profiles[pi];

			if (!r->is_source[pi])
				continue;
			for (ti = 0; ti < r->n_t; ti++) {
				for (ki = 0; ki < gpuproj_profile_count(p); ki++) {
					const struct gpuproj_kernel *k = gpuproj_profile_at(p, ki);
					double meas;

					done++;
					if (opt->progress)
						opt->progress(opt->progress_userdata, done, total);
					if (r->tlist[ti] == r->gpu_of[pi] ||
					    !measured_on(k, r->tlist[ti], r->targets, r->profiles,
							 r->gpu_of, r->n_profiles, pi, &meas))
						continue;
					st = validate_compare(r, mi, pi, ti, k, meas, reterr);
					if (st)
						return st;
				}
			}
		}
	}
	return GPUPROJ_OK;
}

/* Phase 6: order by (model, source, target), keeping kernel order. */
static int
validate_sort(struct validate_run *r, struct gpuproj_error *reterr)
{
	struct gpuproj_validation_comparison *sorted;
	struct pending *ps = r->pend;
	size_t i;

	/* Sort an index of pending keys, then permute the comparisons. */
	for (i = 0; i < r->n_comp; i++)
		ps[i].seq = i;
	if (r->n_comp)
		qsort(ps, r->n_comp, sizeof(*ps), cmp_pending);
	sorted = calloc(r->n_comp ? r->n_comp : 1, sizeof(*sorted));
	if (!sorted)
		return nomem(reterr);
	for (i = 0; i < r->n_comp; i++)
		sorted[i] = r->comp[ps[i].seq];
	free(r->comp);
	r->comp = sorted;
	return GPUPROJ_OK;
}

/*
 * Phase 7: the statistics of every (model, source, target) pair, of every
 * model overall, and of its same- and cross-generation pairs.
 */
static int
validate_groups(struct validate_run *r, struct gpuproj_error *reterr)
{
	struct gpuproj_validation *v = &r->v;
	struct gpuproj_validation_comparison *comp = r->comp;
	struct pending *pend = r->pend;
	size_t n_comp = r->n_comp, nc = n_comp ? n_comp : 1, i, j, ki, mi;
	size_t *idx = calloc(nc, sizeof(*idx)), *sub = calloc(nc, sizeof(*sub));
	double *scratch = calloc(nc, sizeof(*scratch));
	signed char *same_gen = calloc(nc, sizeof(*same_gen)); /* 1 same, 0 cross, -1 unknown */
	int st = GPUPROJ_E_NOMEM;

	v->overall = calloc(v->n_models, sizeof(*v->overall));
	v->generations = calloc(2 * v->n_models, sizeof(*v->generations));
	if (!idx || !sub || !scratch || !same_gen || !v->overall || !v->generations)
		goto out;
	/* Same- or cross-generation (gpuproj_target_generation()), once per comparison. */
	for (i = 0; i < n_comp; i++) {
		const char *gs = gpuproj_target_generation(comp[i].source);
		const char *gt = gpuproj_target_generation(comp[i].target);

		same_gen[i] = gs && gt ? strcmp(gs, gt) == 0 : -1;
	}
	for (i = 0; i < n_comp; i = j) {
		struct gpuproj_validation_group *g;
		void *a;

		for (j = i; j < n_comp && pend[j].model == pend[i].model &&
			    pend[j].source == pend[i].source && pend[j].target == pend[i].target;
		     j++)
			;
		a = realloc(v->pairs, (v->n_pairs + 1) * sizeof(*v->pairs));
		if (!a)
			goto out;
		v->pairs = a;
		g = &v->pairs[v->n_pairs++];
		memset(g, 0, sizeof(*g));
		g->model = comp[i].model;
		g->source = comp[i].source;
		g->target = comp[i].target;
		for (ki = i; ki < j; ki++) {
			idx[ki - i] = ki;
			comp[ki].group = v->n_pairs - 1;
		}
		if (fill_group(g, comp, pend, idx, j - i, v->threshold_ns, sub, scratch, true))
			goto out;
	}
	for (mi = 0; mi < v->n_models; mi++) {
		size_t n = 0;

		v->overall[mi].model = v->models[mi];
		for (i = 0; i < n_comp; i++) {
			if (pend[i].model == mi)
				idx[n++] = i;
		}
		if (fill_group(&v->overall[mi], comp, pend, idx, n, v->threshold_ns, sub, scratch,
			       false))
			goto out;
		/* Same- and cross-generation pairs. */
		for (j = 0; j < 2; j++) {
			struct gpuproj_validation_group *g = &v->generations[2 * mi + j];

			g->model = v->models[mi];
			g->generation = j == 0 ? GPUPROJ_GEN_SAME : GPUPROJ_GEN_CROSS;
			for (i = 0, n = 0; i < n_comp; i++) {
				if (pend[i].model == mi && same_gen[i] == (j == 0))
					idx[n++] = i;
			}
			if (fill_group(g, comp, pend, idx, n, v->threshold_ns, sub, scratch, false))
				goto out;
		}
	}
	st = GPUPROJ_OK;
out:
	free(idx);
	free(sub);
	free(scratch);
	free(same_gen);
	return st ? nomem(reterr) : GPUPROJ_OK;
}

int
gpuproj_validate(const struct gpuproj_profile *const *profiles, size_t n_profiles,
		 const struct gpuproj_targets *targets, const struct gpuproj_validate_options *opt,
		 struct gpuproj_validation *out, struct gpuproj_error *reterr)
{
	static const struct gpuproj_validate_options defaults = { 0 };
	struct validate_run r = { .opt = opt ? opt : &defaults, .targets = targets,
				  .profiles = profiles, .n_profiles = n_profiles };
	size_t i;
	int st;

	if (!targets || !out || (n_profiles && !profiles))
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	memset(out, 0, sizeof(*out));
	st = validate_setup(&r, reterr);
	if (st == GPUPROJ_OK)
		st = validate_gpus(&r, reterr);
	if (st == GPUPROJ_OK && collect_citations(&r.v, r.profiles, r.n_profiles))
		st = nomem(reterr);
	if (st == GPUPROJ_OK)
		st = validate_sections(&r, reterr);
	if (st == GPUPROJ_OK)
		st = validate_project(&r, reterr);
	/* Phase 5: the intervals, fitted or looked up, and the held-out half. */
	if (st == GPUPROJ_OK)
		st = intervals(&r.v, r.opt, r.comp, r.pend, &r.n_comp,
			       (const struct gpuproj_target *const *)r.tlist, r.n_t, reterr);
	if (st == GPUPROJ_OK)
		st = validate_sort(&r, reterr);
	if (st == GPUPROJ_OK)
		st = validate_groups(&r, reterr);
	if (st == GPUPROJ_OK) {
		r.v.comparisons = r.comp;
		r.v.n_comparisons = r.n_comp;
		r.comp = NULL;
		*out = r.v;
		memset(&r.v, 0, sizeof(r.v));
	}
	for (i = 0; r.pend && i < r.n_comp; i++)
		free(r.pend[i].why);
	free(r.pend);
	free(r.comp);
	free(r.gpu_of);
	free(r.rank);
	free(r.is_source);
	free(r.tlist);
	free(r.srcsel);
	gpuproj_validation_clear(&r.v);
	return st;
}
