/* SPDX-License-Identifier: MIT */
/*
 * A validation's results as a table, CSV and JSON
 * (include/gpuproj/validate.h: gpuproj_validation_write_table(),
 * gpuproj_validation_write_csv(), gpuproj_validation_write_json()); the
 * validation itself is validate.c.
 *
 * Thread safety: reentrant; the result is only read.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/validate.h>

#include "util-escape.h"
#include "util.h"

/* What --default-sections did to the inputs, for the table and the CSV. */
#define SECTIONS_TEXT                                                                      \
	"Nsight Compute default sections only (duration, launch, speed-of-light "           \
	"percentages derived from the counters; --default-sections)"

static const char *
pct(double v, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f", v);
	return buf;
}

/*
 * Pairs, then overall, then generation groups: how many, and the i-th. The
 * table and the CSV skip a generation group without any comparison
 * (skip_group()); the JSON lists them all.
 */
static size_t
n_groups(const struct gpuproj_validation *v)
{
	return v->n_pairs + v->n_models + (v->generations ? 2 * v->n_models : 0);
}

static const struct gpuproj_validation_group *
group_at(const struct gpuproj_validation *v, size_t i)
{
	if (i < v->n_pairs)
		return &v->pairs[i];
	if (i < v->n_pairs + v->n_models)
		return &v->overall[i - v->n_pairs];
	return &v->generations[i - v->n_pairs - v->n_models];
}

/* A generation group with nothing in it (no pair of GPUs of known generations there). */
static bool
skip_group(const struct gpuproj_validation_group *g)
{
	const struct gpuproj_validation_stats *s = &g->stats[GPUPROJ_VSUBSET_ALL];

	return g->generation != GPUPROJ_GEN_ANY && s->n + s->n_failed == 0;
}

/* The source column: the GPU, "(all)", "(same gen)" or "(cross gen)". */
static const char *
source_label(const struct gpuproj_validation_group *g)
{
	if (g->source)
		return g->source->name;
	switch (g->generation) {
	case GPUPROJ_GEN_SAME: return "(same gen)";
	case GPUPROJ_GEN_CROSS: return "(cross gen)";
	case GPUPROJ_GEN_ANY: break;
	}
	return "(all)";
}

static void
table_stats(FILE *out, const struct gpuproj_validation_stats *s, bool with_failed)
{
	char a[32], b[32], c[32], d[32], e[32];

	if (with_failed)
		fprintf(out, " %6zu %5zu", s->n, s->n_failed);
	else
		fprintf(out, "  %6zu", s->n);
	fprintf(out, " %7s %7s %6s %6s %7s", pct(s->mape_pct, a, sizeof(a)),
		pct(s->median_ape_pct, b, sizeof(b)), pct(s->coverage_pct, c, sizeof(c)),
		pct(s->width_pct, e, sizeof(e)), pct(s->bias_pct, d, sizeof(d)));
}

int
gpuproj_validation_write_table(FILE *out, const struct gpuproj_validation *v)
{
	int wm = 5, ws = 6, wt = 6;
	size_t i, j, n_failed = 0, gen_rows = 0;
	char thr[32];

	for (i = 0; i < v->n_citations; i++)
		fprintf(out, "Data: %s\n", v->citations[i]);
	format_ns(v->threshold_ns, thr, sizeof(thr));
	fprintf(out, "%sValidation of ", v->n_citations ? "\n" : "");
	for (i = 0; i < v->n_models; i++)
		fprintf(out, "%s%s", i ? ", " : "", gpuproj_model_name(v->models[i]));
	for (i = 0; i < v->n_models; i++)
		n_failed += v->overall[i].stats[GPUPROJ_VSUBSET_ALL].n_failed;
	fprintf(out, ": %zu pair%s, %zu comparison%s (%zu not projected)%s%s\n", v->n_pairs,
		v->n_pairs == 1 ? "" : "s", v->n_comparisons, v->n_comparisons == 1 ? "" : "s",
		n_failed, v->targets_origin ? "; targets: " : "",
		v->targets_origin ? v->targets_origin : "");
	fprintf(out, "short = measured on the target < %s, long = >= %s\n", thr, thr);
	if (v->intervals_origin)
		fprintf(out, "intervals: %s\n", v->intervals_origin);
	if (v->default_sections)
		fprintf(out, "inputs: %s\n", SECTIONS_TEXT);
	if (v->holdout != GPUPROJ_HOLDOUT_NONE)
		fprintf(out, "held out: statistics on the evaluation half by %s only (%zu "
			"calibration comparison%s set aside)\n", gpuproj_holdout_name(v->holdout),
			v->n_calibration, v->n_calibration == 1 ? "" : "s");
	fputc('\n', out);

	for (i = 0; i < v->n_models; i++) {
		int l = (int)strlen(gpuproj_model_name(v->models[i]));

		wm = l > wm ? l : wm;
	}
	for (i = v->n_pairs + v->n_models; i < n_groups(v); i++)
		ws = skip_group(group_at(v, i)) ? ws : (int)strlen("(cross gen)");
	for (i = 0; i < v->n_pairs; i++) {
		int ls = (int)strlen(v->pairs[i].source->name);
		int lt = (int)strlen(v->pairs[i].target->name);

		ws = ls > ws ? ls : ws;
		wt = lt > wt ? lt : wt;
	}
	{
		char sh[64], lo[64];

		snprintf(sh, sizeof(sh), "short (< %s)", thr);
		snprintf(lo, sizeof(lo), "long (>= %s)", thr);
		/* Block widths: all 51, short and long 46 (see table_stats()). */
		fprintf(out, "%-*s %-*s %-*s  %-49s   %-43s   %s\n", wm, "", ws, "", wt, "",
			"all configurations", sh, lo);
	}
	fprintf(out, "%-*s %-*s %-*s %6s %5s %7s %7s %6s %6s %7s  %6s %7s %7s %6s %6s %7s  %6s %7s "
		"%7s %6s %6s %7s\n", wm, "model", ws, "source", wt, "target", "n", "fail", "MAPE",
		"medAPE", "cover", "width", "bias", "n", "MAPE", "medAPE", "cover", "width", "bias",
		"n", "MAPE", "medAPE", "cover", "width", "bias");
	for (i = 0; i < n_groups(v); i++) {
		const struct gpuproj_validation_group *g = group_at(v, i);

		if (skip_group(g))
			continue;
		if (i == v->n_pairs || (i >= v->n_pairs + v->n_models && !gen_rows++))
			fputc('\n', out);
		fprintf(out, "%-*s %-*s %-*s", wm, gpuproj_model_name(g->model), ws, source_label(g),
			wt, g->target ? g->target->name : "(all)");
		table_stats(out, &g->stats[GPUPROJ_VSUBSET_ALL], true);
		table_stats(out, &g->stats[GPUPROJ_VSUBSET_SHORT], false);
		table_stats(out, &g->stats[GPUPROJ_VSUBSET_LONG], false);
		fputc('\n', out);
	}
	for (i = 0; i < v->n_models; i++) {
		const struct gpuproj_validation_group *g = &v->overall[i];

		if (!g->n_reasons)
			continue;
		fprintf(out, "\n%s: %zu projections failed (not in the statistics):\n",
			gpuproj_model_name(g->model), g->stats[GPUPROJ_VSUBSET_ALL].n_failed);
		for (j = 0; j < g->n_reasons && j < 10; j++)
			fprintf(out, "  %6zu x %s\n", g->reasons[j].count, g->reasons[j].why);
		if (g->n_reasons > 10)
			fprintf(out, "  ... and %zu more reasons (--format json lists all)\n",
				g->n_reasons - 10);
	}
	fprintf(out, "\nn = projected kernels with a measured time on the target; "
		"fail = not projected.\n"
		"MAPE = mean |projected - measured| / measured; medAPE = its median; "
		"cover = measured\n"
		"inside the projected [lo, hi]; width = mean (hi - lo) / projected; bias = mean\n"
		"(projected - measured) / measured, > 0 = projections too slow. All in %%, per\n"
		"launch; (all) pools every pair of a model; (same gen) and (cross gen) its pairs\n"
		"of GPUs of the same and of different architecture generations.\n");
	fflush(out);
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

int
gpuproj_validation_write_csv(FILE *out, const struct gpuproj_validation *v)
{
	size_t i;
	int s;

	for (i = 0; i < v->n_citations; i++) {
		fputs("# Data: ", out);
		fputs(v->citations[i], out);
		fputc('\n', out);
	}
	if (v->default_sections)
		fputs("# Inputs: " SECTIONS_TEXT "\n", out);
	fputs("model,source,target,subset,threshold_ns,n,n_failed,mape_pct,median_ape_pct,"
	      "coverage_pct,bias_pct,width_pct\n", out);
	for (i = 0; i < n_groups(v); i++) {
		const struct gpuproj_validation_group *g = group_at(v, i);

		for (s = 0; !skip_group(g) && s < GPUPROJ_VSUBSET_COUNT; s++) {
			const struct gpuproj_validation_stats *st = &g->stats[s];

			csv_write_field(out, gpuproj_model_name(g->model));
			fputc(',', out);
			csv_write_field(out, source_label(g));
			fputc(',', out);
			csv_write_field(out, g->target ? g->target->name : "(all)");
			fprintf(out, ",%s,", gpuproj_validation_subset_name(
						     (enum gpuproj_validation_subset)s));
			csv_write_num(out, v->threshold_ns);
			fprintf(out, ",%zu,%zu,", st->n, st->n_failed);
			csv_write_num(out, st->mape_pct);
			fputc(',', out);
			csv_write_num(out, st->median_ape_pct);
			fputc(',', out);
			csv_write_num(out, st->coverage_pct);
			fputc(',', out);
			csv_write_num(out, st->bias_pct);
			fputc(',', out);
			csv_write_num(out, st->width_pct);
			fputc('\n', out);
		}
	}
	fflush(out);
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

static json_t *
stats_json(const struct gpuproj_validation_stats *s)
{
	json_t *o = json_object();
	int bad = 0;

	if (!o)
		return NULL;
	bad |= json_object_set_new(o, "n", json_integer((json_int_t)s->n));
	bad |= json_object_set_new(o, "n_failed", json_integer((json_int_t)s->n_failed));
	bad |= json_object_set_new(o, "mape_pct", json_num(s->mape_pct));
	bad |= json_object_set_new(o, "median_ape_pct", json_num(s->median_ape_pct));
	bad |= json_object_set_new(o, "coverage_pct", json_num(s->coverage_pct));
	bad |= json_object_set_new(o, "bias_pct", json_num(s->bias_pct));
	bad |= json_object_set_new(o, "width_pct", json_num(s->width_pct));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
group_json(const struct gpuproj_validation_group *g)
{
	json_t *o = json_object(), *f = json_array();
	size_t i;
	int s, bad = 0;

	if (!o || !f) {
		json_decref(o);
		json_decref(f);
		return NULL;
	}
	bad |= json_object_set_new(o, "model", json_string(gpuproj_model_name(g->model)));
	if (g->generation != GPUPROJ_GEN_ANY)
		bad |= json_object_set_new(o, "generation",
				    json_string(g->generation == GPUPROJ_GEN_SAME ? "same" : "cross"));
	if (g->source)
		bad |= json_object_set_new(o, "source", json_string(g->source->name));
	if (g->target)
		bad |= json_object_set_new(o, "target", json_string(g->target->name));
	for (s = 0; s < GPUPROJ_VSUBSET_COUNT; s++) {
		enum gpuproj_validation_subset sub = (enum gpuproj_validation_subset)s;

		bad |= json_object_set_new(o, gpuproj_validation_subset_name(sub),
				    stats_json(&g->stats[s]));
	}
	for (i = 0; i < g->n_reasons; i++)
		bad |= json_array_append_new(f, json_pack("{s:o,s:I}", "why",
							  json_string_lossy(g->reasons[i].why),
							  "count", (json_int_t)g->reasons[i].count));
	bad |= json_object_set_new(o, "failures", f);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
gpuproj_validation_write_json(const char *path, const struct gpuproj_validation *v, bool details,
			      struct gpuproj_error *reterr)
{
	json_t *root = json_object(), *cit = json_array(), *models = json_array();
	json_t *pairs = json_array(), *overall = json_array(), *gens = json_array();
	size_t i;
	int st, bad = 0;

	if (!root || !cit || !models || !pairs || !overall || !gens) {
		json_decref(root);
		json_decref(cit);
		json_decref(models);
		json_decref(pairs);
		json_decref(overall);
		json_decref(gens);
		return error_set(reterr, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
	}
	bad |= json_object_set_new(root, "schema", json_string(GPUPROJ_VALIDATION_SCHEMA));
	for (i = 0; i < v->n_citations; i++)
		bad |= json_array_append_new(cit, json_string_lossy(v->citations[i]));
	bad |= json_object_set_new(root, "citations", cit);
	bad |= json_object_set_new(root, "targets", json_str_or_null(v->targets_origin));
	bad |= json_object_set_new(root, "threshold_ns", json_num(v->threshold_ns));
	bad |= json_object_set_new(root, "intervals", json_str_or_null(v->intervals_origin));
	bad |= json_object_set_new(root, "holdout", json_string(gpuproj_holdout_name(v->holdout)));
	bad |= json_object_set_new(root, "n_calibration", json_integer((json_int_t)v->n_calibration));
	bad |= json_object_set_new(root, "inputs",
			    json_string(v->default_sections ? "default-sections" : "profiles"));
	for (i = 0; i < v->n_models; i++)
		bad |= json_array_append_new(models, json_string(gpuproj_model_name(v->models[i])));
	bad |= json_object_set_new(root, "models", models);
	for (i = 0; i < v->n_pairs; i++)
		bad |= json_array_append_new(pairs, group_json(&v->pairs[i]));
	bad |= json_object_set_new(root, "pairs", pairs);
	for (i = 0; i < v->n_models; i++)
		bad |= json_array_append_new(overall, group_json(&v->overall[i]));
	bad |= json_object_set_new(root, "overall", overall);
	for (i = 0; v->generations && i < 2 * v->n_models; i++)
		bad |= json_array_append_new(gens, group_json(&v->generations[i]));
	bad |= json_object_set_new(root, "generations", gens);
	if (details) {
		json_t *cs = json_array();

		for (i = 0; cs && i < v->n_comparisons; i++) {
			const struct gpuproj_validation_comparison *c = &v->comparisons[i];
			const struct gpuproj_kernel *k = c->kernel;
			bool ok = c->status == GPUPROJ_OK;
			json_t *o = json_object();

			if (!o) {
				bad = -1;
				break;
			}
			bad |= json_object_set_new(o, "model", json_string(gpuproj_model_name(c->model)));
			bad |= json_object_set_new(o, "source", json_string(c->source->name));
			bad |= json_object_set_new(o, "target", json_string(c->target->name));
			bad |= json_object_set_new(o, "kernel", json_string_lossy(k->name));
			bad |= json_object_set_new(o, "tag", json_string_lossy(k->tag ? k->tag : ""));
			bad |= json_object_set_new(o, "grid", json_dim3(k->grid));
			bad |= json_object_set_new(o, "block", json_dim3(k->block));
			bad |= json_object_set_new(o, "source_ns", json_num(c->source_ns));
			bad |= json_object_set_new(o, "measured_ns", json_num(c->measured_ns));
			bad |= json_object_set_new(o, "status",
					    json_string(ok ? "ok" : gpuproj_strerror(c->status)));
			bad |= json_object_set_new(o, "lo_ns", json_num(c->lo_ns));
			bad |= json_object_set_new(o, "hi_ns", json_num(c->hi_ns));
			bad |= json_object_set_new(o, "point_ns", json_num(c->point_ns));
			bad |= json_object_set_new(o, "level_lo_ns", json_num(c->level_lo_ns));
			bad |= json_object_set_new(o, "level_hi_ns", json_num(c->level_hi_ns));
			bad |= json_object_set_new(o, "calibrated", json_boolean(ok && c->calibrated));
			bad |= json_object_set_new(o, "binding",
					    ok ? json_string(gpuproj_bound_name(c->binding))
					       : json_null());
			bad |= json_object_set_new(o, "error_pct", json_num(c->error_pct));
			bad |= json_object_set_new(o, "covered", json_boolean(ok && c->covered));
			bad |= json_object_set_new(o, "why", json_str_or_null(c->why));
			bad |= json_array_append_new(cs, o);
		}
		bad |= json_object_set_new(root, "comparisons", cs ? cs : json_null());
	}
	/* Every member is checked: a failure is ENOMEM, never a silently missing field. */
	st = bad ? error_set(reterr, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory")
		 : json_save_atomic(root, path, reterr);
	json_decref(root);
	return st;
}
