/* SPDX-License-Identifier: MIT */
/*
 * What each assumption of the models costs (include/gpuproj/validate.h
 * gpuproj_validate_assumptions(), docs/models.md "Missing inputs"): the
 * validation run once with every input and once per assumption with its
 * input taken away (gpuproj_model_options.drop_inputs), comparison by
 * comparison; per model and assumption, the calibrated-interval method of
 * interval.h (the shortest window of the ratios measured / projected) on
 * the calibration half by shape, with and without the input, and the
 * widening that takes one window to the other; MAPE and coverage on the
 * evaluation half. Its table (gpuproj_assumption_study_save()) is the
 * built-in src/data/assumptions.json that gpuproj_assumption_widening()
 * reads. Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include <gpuproj/interval.h>
#include <gpuproj/model.h>
#include <gpuproj/validate.h>

#include "model-private.h"
#include "profile-private.h"
#include "util-escape.h"
#include "util.h"

/* The windows' coverage when the options leave it: the built-in intervals'. */
#define STUDY_COVERAGE 0.85

void
gpuproj_assumption_study_clear(struct gpuproj_assumption_study *s)
{
	size_t i;

	if (!s)
		return;
	free(s->costs);
	for (i = 0; i < s->n_citations; i++)
		free(s->citations[i]);
	free(s->citations);
	memset(s, 0, sizeof(*s));
}

/* Two runs compare the same things in the same order (gpuproj_validate() is deterministic). */
static bool
same_comparisons(const struct gpuproj_validation *a, const struct gpuproj_validation *b)
{
	size_t i;

	if (a->n_comparisons != b->n_comparisons)
		return false;
	for (i = 0; i < a->n_comparisons; i++) {
		const struct gpuproj_validation_comparison *x = &a->comparisons[i];
		const struct gpuproj_validation_comparison *y = &b->comparisons[i];

		if (x->model != y->model || x->source != y->source || x->target != y->target ||
		    x->kernel != y->kernel)
			return false;
	}
	return true;
}

/* |point − measured| / measured, %. */
static double
ape(double point, double measured)
{
	return fabs(point - measured) / measured * 100.0;
}

/* Within [point·lo, point·hi]. */
static bool
inside(double point, double lo, double hi, double measured)
{
	return point * lo <= measured && measured <= point * hi;
}

/* Comparisons ordered by source, target, kernel (addresses: one run's). */
static int
by_case(const void *pa, const void *pb)
{
	const struct gpuproj_validation_comparison *a =
		*(const struct gpuproj_validation_comparison *const *)pa;
	const struct gpuproj_validation_comparison *b =
		*(const struct gpuproj_validation_comparison *const *)pb;
	const void *x[3] = { a->source, a->target, a->kernel };
	const void *y[3] = { b->source, b->target, b->kernel };
	int i;

	for (i = 0; i < 3; i++)
		if (x[i] != y[i])
			return (uintptr_t)x[i] < (uintptr_t)y[i] ? -1 : 1;
	return 0;
}

/* naive's comparisons of a run, sorted by_case(); NULL on no memory (*n = 0: none). */
static const struct gpuproj_validation_comparison **
naive_index(const struct gpuproj_validation *v, size_t *n)
{
	const struct gpuproj_model *naive = gpuproj_model_find("naive");
	const struct gpuproj_validation_comparison **idx;
	size_t i;

	*n = 0;
	idx = malloc((v->n_comparisons ? v->n_comparisons : 1) * sizeof(*idx));
	if (!idx)
		return NULL;
	for (i = 0; i < v->n_comparisons; i++)
		if (v->comparisons[i].model == naive)
			idx[(*n)++] = &v->comparisons[i];
	qsort(idx, *n, sizeof(*idx), by_case);
	return idx;
}

/* naive's projection of c's source, target and kernel, if it projected one. */
static const struct gpuproj_validation_comparison *
naive_of(const struct gpuproj_validation_comparison *const *idx, size_t n,
	 const struct gpuproj_validation_comparison *c)
{
	const struct gpuproj_validation_comparison *const *hit =
		n ? bsearch(&c, idx, n, sizeof(*idx), by_case) : NULL;

	return hit && (*hit)->status == GPUPROJ_OK && (*hit)->point_ns > 0 ? *hit : NULL;
}

/*
 * One (model, assumption): the cases of `base` (the input present, no such
 * assumption) that `drop` projected with the assumption; naive's MAPE on
 * the same evaluation cases from `nidx` (naive_index() of base, n_nidx).
 */
static int
measure(const struct gpuproj_validation *base, const struct gpuproj_validation *drop,
	const struct gpuproj_model *m, enum gpuproj_assumption a, double coverage,
	const struct gpuproj_validation_comparison *const *nidx, size_t n_nidx,
	struct gpuproj_assumption_cost *out)
{
	const struct gpuproj_intervals *iv = gpuproj_intervals_builtin();
	size_t n = base->n_comparisons, i, nc = 0;
	double *r0 = malloc((n ? n : 1) * sizeof(*r0)), *ra = malloc((n ? n : 1) * sizeof(*ra));
	double sum0 = 0, suma = 0, sumn = 0, blo, bhi;
	size_t cover_plain = 0, cover_wide = 0, cover_builtin = 0;

	if (!r0 || !ra) {
		free(r0);
		free(ra);
		return GPUPROJ_E_NOMEM;
	}
	memset(out, 0, sizeof(*out));
	out->model = m;
	out->assumption = a;
	out->lo = out->hi = 1;
	out->base_lo = out->base_hi = out->drop_lo = out->drop_hi = NAN;
	/* Calibration half: the windows. */
	for (i = 0; i < n; i++) {
		const struct gpuproj_validation_comparison *c0 = &base->comparisons[i];
		const struct gpuproj_validation_comparison *ca = &drop->comparisons[i];

		out->n_assumed += ca->model == m && ca->status == GPUPROJ_OK &&
				  (ca->assumed & (1u << a));
		if (c0->model != m || c0->status != GPUPROJ_OK || ca->status != GPUPROJ_OK ||
		    (c0->assumed & (1u << a)) || !(ca->assumed & (1u << a)) ||
		    profile_shape_hash(c0->kernel) % 2 != 0 || !(c0->point_ns > 0) ||
		    !(ca->point_ns > 0))
			continue;
		r0[nc] = c0->measured_ns / c0->point_ns;
		ra[nc] = ca->measured_ns / ca->point_ns;
		nc++;
	}
	out->n = nc;
	if (nc) {
		interval_shortest_window(r0, nc, coverage, &out->base_lo, &out->base_hi);
		interval_shortest_window(ra, nc, coverage, &out->drop_lo, &out->drop_hi);
	}
	out->measured = nc >= GPUPROJ_INTERVALS_MIN_GROUP;
	if (out->measured) {
		out->lo = fmin(1.0, out->drop_lo / out->base_lo);
		out->hi = fmax(1.0, out->drop_hi / out->base_hi);
	}
	/* Evaluation half: accuracy with and without the input, coverage. */
	gpuproj_assumption_widening(m, a, &blo, &bhi);
	for (i = 0; i < n; i++) {
		const struct gpuproj_validation_comparison *c0 = &base->comparisons[i];
		const struct gpuproj_validation_comparison *ca = &drop->comparisons[i];
		const struct gpuproj_validation_comparison *cn;
		double lo = NAN, hi = NAN;

		if (c0->model != m || c0->status != GPUPROJ_OK || ca->status != GPUPROJ_OK ||
		    (c0->assumed & (1u << a)) || !(ca->assumed & (1u << a)) ||
		    profile_shape_hash(c0->kernel) % 2 == 0 || !(c0->point_ns > 0) ||
		    !(ca->point_ns > 0))
			continue;
		out->n_eval++;
		sum0 += ape(c0->point_ns, c0->measured_ns);
		suma += ape(ca->point_ns, ca->measured_ns);
		if ((cn = naive_of(nidx, n_nidx, c0))) {
			out->n_naive++;
			sumn += ape(cn->point_ns, cn->measured_ns);
		}
		if (gpuproj_intervals_lookup(iv, m, ca->binding, ca->point_ns, &lo, &hi, NULL)) {
			cover_plain += inside(ca->point_ns, lo, hi, ca->measured_ns);
			cover_wide += inside(ca->point_ns, lo * out->lo, hi * out->hi,
					     ca->measured_ns);
			cover_builtin += inside(ca->point_ns, lo * blo, hi * bhi,
						ca->measured_ns);
		}
	}
	out->mape_base_pct = out->n_eval ? sum0 / (double)out->n_eval : NAN;
	out->mape_drop_pct = out->n_eval ? suma / (double)out->n_eval : NAN;
	out->cover_plain_pct = out->n_eval ? 100.0 * (double)cover_plain / (double)out->n_eval
					   : NAN;
	out->cover_widened_pct = out->n_eval ? 100.0 * (double)cover_wide / (double)out->n_eval
					     : NAN;
	out->cover_builtin_pct = out->n_eval ? 100.0 * (double)cover_builtin /
						       (double)out->n_eval : NAN;
	if (!out->n_eval || out->n_naive != out->n_eval)
		out->n_naive = 0; /* not the same cases */
	out->naive_mape_pct = out->n_naive ? sumn / (double)out->n_naive : NAN;
	free(r0);
	free(ra);
	return GPUPROJ_OK;
}

/* One progress over every run: run `pass` of `passes` reports its share of the whole. */
struct passes_progress {
	void (*progress)(void *userdata, size_t done, size_t total);
	void *userdata;
	size_t pass, passes;
};

static void
passes_progress(void *userdata, size_t done, size_t total)
{
	const struct passes_progress *pp = userdata;

	pp->progress(pp->userdata, pp->pass * total + done, pp->passes * total);
}

int
gpuproj_validate_assumptions(const struct gpuproj_profile *const *profiles, size_t n_profiles,
			     const struct gpuproj_targets *targets,
			     const struct gpuproj_validate_options *opt,
			     struct gpuproj_assumption_study *out, struct gpuproj_error *reterr)
{
	struct gpuproj_validate_options vo = { 0 };
	struct gpuproj_model_options mo = { 0 };
	struct gpuproj_validation base = { 0 };
	const struct gpuproj_validation_comparison **nidx = NULL;
	struct passes_progress pp = { 0 };
	double coverage;
	size_t mi, i, n_nidx = 0;
	int a, st;

	if (!targets || !out)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	memset(out, 0, sizeof(*out));
	if (opt)
		vo = *opt;
	if (vo.model_options)
		mo = *vo.model_options;
	vo.holdout = GPUPROJ_HOLDOUT_NONE;
	vo.fit_intervals = false;
	vo.default_sections = false;
	vo.model_options = &mo;
	coverage = vo.fit_coverage > 0 && vo.fit_coverage < 1 ? vo.fit_coverage : STUDY_COVERAGE;
	out->coverage = coverage;
	mo.drop_inputs = 0;
	if (vo.progress) {
		pp.progress = vo.progress;
		pp.userdata = vo.progress_userdata;
		pp.passes = 1;
		for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
			if (gpuproj_assumption_info((enum gpuproj_assumption)a)->input)
				pp.passes++;
		}
		vo.progress = passes_progress;
		vo.progress_userdata = &pp;
	}
	st = gpuproj_validate(profiles, n_profiles, targets, &vo, &base, reterr);
	if (st)
		return st;
	out->citations = calloc(base.n_citations ? base.n_citations : 1, sizeof(*out->citations));
	out->costs = calloc(base.n_models * GPUPROJ_ASSUME_COUNT + 1, sizeof(*out->costs));
	nidx = naive_index(&base, &n_nidx);
	if (!out->citations || !out->costs || !nidx)
		goto nomem;
	for (i = 0; i < base.n_citations; i++) {
		if (!(out->citations[i] = strdup(base.citations[i])))
			goto nomem;
		out->n_citations++;
	}
	for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
		struct gpuproj_validation drop = { 0 };

		if (!gpuproj_assumption_info((enum gpuproj_assumption)a)->input)
			continue;
		mo.drop_inputs = 1u << a;
		pp.pass++;
		st = gpuproj_validate(profiles, n_profiles, targets, &vo, &drop, reterr);
		if (st)
			goto out;
		if (!same_comparisons(&base, &drop)) {
			gpuproj_validation_clear(&drop);
			st = error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				       "validation without %s compared other kernels than with it",
				       gpuproj_assumption_info((enum gpuproj_assumption)a)->input);
			goto out;
		}
		for (mi = 0; mi < base.n_models; mi++) {
			st = measure(&base, &drop, base.models[mi], (enum gpuproj_assumption)a,
				     coverage, nidx, n_nidx, &out->costs[out->n_costs]);
			if (st) {
				gpuproj_validation_clear(&drop);
				goto nomem;
			}
			out->n_costs++;
		}
		gpuproj_validation_clear(&drop);
	}
	st = GPUPROJ_OK;
	goto out;
nomem:
	st = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
out:
	free(nidx);
	gpuproj_validation_clear(&base);
	if (st)
		gpuproj_assumption_study_clear(out);
	return st;
}

/* [a, b] as a JSON array of two numbers (null for NaN). */
static json_t *
pair(double a, double b)
{
	json_t *j = json_array();

	if (j && (json_array_append_new(j, json_num(a)) || json_array_append_new(j, json_num(b)))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* Why no factor: for every assumption without an input, and every cost under the minimum. */
static int
unmeasured(json_t *arr, const struct gpuproj_assumption_study *s)
{
	size_t i;
	int a, bad = 0;

	for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
		const struct gpuproj_assumption_info *info =
			gpuproj_assumption_info((enum gpuproj_assumption)a);
		const char *why =
			a == GPUPROJ_ASSUME_PERCENTAGES
				? "sol's intervals are fitted on percentages derived from the "
				  "corpora's counters (validate --default-sections): the "
				  "assumption is what they were fitted on"
				: "no input to take away: the validation corpora cannot show "
				  "its cost";
		json_t *u;

		if (info->input)
			continue;
		u = json_object();
		bad |= !u || json_object_set_new(u, "assumption", json_string(info->word)) ||
		       json_object_set_new(u, "model", json_null()) ||
		       json_object_set_new(u, "why", json_string(why)) ||
		       json_array_append_new(arr, u);
	}
	for (i = 0; i < s->n_costs; i++) {
		const struct gpuproj_assumption_cost *c = &s->costs[i];
		json_t *u;
		char why[128];

		if (c->measured)
			continue;
		if (!c->n_assumed)
			snprintf(why, sizeof(why), "not an input of %s: it never assumed it",
				 gpuproj_model_name(c->model));
		else
			snprintf(why, sizeof(why), "%zu case%s with the input (fewer than %d)",
				 c->n, c->n == 1 ? "" : "s", GPUPROJ_INTERVALS_MIN_GROUP);
		u = json_object();
		bad |= !u ||
		       json_object_set_new(u, "assumption", json_string(
			       gpuproj_assumption_info(c->assumption)->word)) ||
		       json_object_set_new(u, "model", json_string(gpuproj_model_name(c->model))) ||
		       json_object_set_new(u, "why", json_string(why)) ||
		       json_array_append_new(arr, u);
	}
	return bad;
}

int
gpuproj_assumption_study_save(const struct gpuproj_assumption_study *s, const char *path,
			      const char *created, const char *command,
			      struct gpuproj_error *reterr)
{
	json_t *root = json_object(), *prov = json_object(), *corpora = json_array();
	json_t *factors = json_array(), *un = json_array();
	char now[32] = "";
	size_t i;
	int bad, st;

	if (!s || !path) {
		json_decref(root);
		json_decref(prov);
		json_decref(corpora);
		json_decref(factors);
		json_decref(un);
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	}
	if (!created) {
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
		created = now;
	}
	bad = !root || !prov || !corpora || !factors || !un;
	for (i = 0; !bad && i < s->n_citations; i++)
		bad |= json_array_append_new(corpora, json_string(s->citations[i]));
	bad |= json_object_set_new(root, "schema", json_string("gpuproj-assumptions/1"));
	bad |= json_object_set_new(root, "method", json_string(
		"per model and assumption: the validation run with every input and again with "
		"the assumption's input taken away (gpuproj_model_options.drop_inputs); on the "
		"calibration half by shape (FNV-1a of kernel name and tag even), the cases whose "
		"kernel had the input, the shortest window holding the coverage's share of the "
		"ratios measured/projected with the input (base) and without (dropped), pooled "
		"over bindings and classes; widening lo = min(1, dropped lo / base lo), hi = "
		"max(1, dropped hi / base hi), multiplied into the calibrated interval of a "
		"projection with the assumption; MAPE and coverage on the evaluation half (odd); "
		"naive_mape_pct: naive's MAPE on the same evaluation cases, with every input"));
	bad |= json_object_set_new(root, "coverage", json_real(s->coverage));
	bad |= json_object_set_new(prov, "corpora", corpora);
	corpora = NULL;
	bad |= json_object_set_new(prov, "split", json_string(
		"the calibration half by shape (FNV-1a of kernel name and tag even)"));
	bad |= json_object_set_new(prov, "created", json_string(created));
	bad |= json_object_set_new(prov, "tool", json_string("gpuproj " GPUPROJ_VERSION));
	if (command)
		bad |= json_object_set_new(prov, "command", json_string(command));
	bad |= json_object_set_new(root, "provenance", prov);
	prov = NULL;
	for (i = 0; !bad && i < s->n_costs; i++) {
		const struct gpuproj_assumption_cost *c = &s->costs[i];
		const struct gpuproj_assumption_info *info = gpuproj_assumption_info(c->assumption);
		json_t *f;

		if (!c->measured)
			continue;
		f = json_object();
		bad |= !f || json_object_set_new(f, "assumption", json_string(info->word)) ||
		       json_object_set_new(f, "input", json_string(info->input)) ||
		       json_object_set_new(f, "model", json_string(gpuproj_model_name(c->model))) ||
		       json_object_set_new(f, "lo", json_num(c->lo)) ||
		       json_object_set_new(f, "hi", json_num(c->hi)) ||
		       json_object_set_new(f, "n", json_integer((json_int_t)c->n)) ||
		       json_object_set_new(f, "base", pair(c->base_lo, c->base_hi)) ||
		       json_object_set_new(f, "dropped", pair(c->drop_lo, c->drop_hi)) ||
		       json_object_set_new(f, "n_eval", json_integer((json_int_t)c->n_eval)) ||
		       json_object_set_new(f, "mape_pct",
					   pair(c->mape_base_pct, c->mape_drop_pct)) ||
		       json_object_set_new(f, "coverage_pct",
					   pair(c->cover_plain_pct, c->cover_widened_pct)) ||
		       json_object_set_new(f, "coverage_builtin_pct",
					   json_num(c->cover_builtin_pct)) ||
		       json_object_set_new(f, "naive_mape_pct", json_num(c->naive_mape_pct)) ||
		       json_array_append_new(factors, f);
	}
	bad |= json_object_set_new(root, "factors", factors);
	factors = NULL;
	bad |= unmeasured(un, s);
	bad |= json_object_set_new(root, "unmeasured", un);
	un = NULL;
	if (bad) {
		json_decref(root);
		json_decref(prov);
		json_decref(corpora);
		json_decref(factors);
		json_decref(un);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	st = json_save_atomic(root, path, reterr);
	json_decref(root);
	return st;
}

/* A percentage or "-". */
static const char *
pct(double v, char *buf, size_t size)
{
	if (isnan(v))
		return "-";
	snprintf(buf, size, "%.1f", v);
	return buf;
}

int
gpuproj_assumption_study_write_table(FILE *out, const struct gpuproj_assumption_study *s)
{
	char a[16], b[16], c[16], d[16], e[16], f[16];
	size_t i;

	fprintf(out, "What each assumption costs: validation with and without its input, %.0f %% "
		"windows of measured/projected on the calibration half by shape, MAPE and "
		"coverage on the evaluation half (docs/models.md \"Missing inputs\")\n",
		100 * s->coverage);
	for (i = 0; i < s->n_citations; i++)
		fprintf(out, "Data: %s\n", s->citations[i]);
	fprintf(out, "%-10s %-20s %7s %7s %7s %7s %9s %9s %8s %8s %8s %8s\n", "model",
		"assumption", "n", "lo", "hi", "n_eval", "MAPE", "without", "cover", "widened",
		"built-in", "naive");
	for (i = 0; i < s->n_costs; i++) {
		const struct gpuproj_assumption_cost *k = &s->costs[i];

		if (!k->n_assumed)
			continue; /* not an input of that model */
		fprintf(out, "%-10s %-20s %7zu %7.3f %7.3f %7zu %9s %9s %8s %8s %8s %8s%s\n",
			gpuproj_model_name(k->model), gpuproj_assumption_info(k->assumption)->word,
			k->n, k->lo, k->hi, k->n_eval, pct(k->mape_base_pct, a, sizeof(a)),
			pct(k->mape_drop_pct, b, sizeof(b)), pct(k->cover_plain_pct, c, sizeof(c)),
			pct(k->cover_widened_pct, d, sizeof(d)),
			pct(k->cover_builtin_pct, e, sizeof(e)),
			pct(k->naive_mape_pct, f, sizeof(f)),
			k->measured ? "" : "  (not measured)");
	}
	fprintf(out, "rows: each model and assumption it stated without the input; n = "
		"calibration cases whose kernel had the input; lo, hi = the widening of "
		"the calibrated interval; MAPE = with the input, without = the same cases "
		"without it; cover = the built-in interval without widening, widened = with "
		"lo, hi, built-in = with the built-in widening (src/data/assumptions.json; "
		"evaluation half, %%); naive = naive's MAPE on the same cases, every input "
		"present (- : naive not run, or not on all of them)\n");
	fflush(out);
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}
