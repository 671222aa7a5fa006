/* SPDX-License-Identifier: MIT */
/*
 * The CI gate's result as JSON (include/gpuproj/gate.h gpuproj_gate_json(),
 * schema docs/formats/gate.md): the verdict, the findings and every GPU's
 * figures, for dashboards (Bencher, github-action-benchmark) and scripts.
 *
 * Thread safety: reentrant; the result is only read.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/gate.h>

#include "util-escape.h"
#include "util.h"

/* gpuproj_gate_status_name() as a JSON word: lower case, '_' for a space. */
static json_t *
status_word(enum gpuproj_gate_status s)
{
	char buf[32];
	size_t i;

	snprintf(buf, sizeof(buf), "%s", gpuproj_gate_status_name(s));
	for (i = 0; buf[i]; i++)
		buf[i] = buf[i] == ' ' ? '_' : (char)tolower((unsigned char)buf[i]);
	return json_string(buf);
}

static json_t *
cell_json(const struct gpuproj_gate_cell *c, bool target)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "status", status_word(c->status));
	json_object_set_new(o, "baseline_ns", json_num(c->base_ns));
	json_object_set_new(o, "current_ns", json_num(c->cur_ns));
	json_object_set_new(o, "baseline_total_ns", json_num(c->base_total_ns));
	json_object_set_new(o, "current_total_ns", json_num(c->cur_total_ns));
	json_object_set_new(o, "change", json_num(c->change));
	json_object_set_new(o, "noise_ns", json_num(c->noise_ns));
	json_object_set_new(o, "interval_ns", isnan(c->cur_lo_ns) ? json_null()
					      : json_pack("[oo]", json_num(c->cur_lo_ns),
							  json_num(c->cur_hi_ns)));
	json_object_set_new(o, "interval_unseen", json_boolean(c->cur_interval_unseen));
	json_object_set_new(o, "coarse", json_boolean(c->coarse));
	json_object_set_new(o, "binding", target && c->binding != GPUPROJ_BOUND_NONE
					  ? json_string(gpuproj_bound_name(c->binding))
					  : json_null());
	json_object_set_new(o, "why", json_str_or_null(c->why));
	return o;
}

static json_t *
finding_json(const struct gpuproj_gate_result *r, const struct gpuproj_gate_finding *f)
{
	json_t *o = json_object(), *counters = json_array();
	size_t i;

	if (!o || !counters) {
		json_decref(o);
		json_decref(counters);
		return NULL;
	}
	json_object_set_new(o, "kernel", f->kernel == SIZE_MAX
					 ? json_null() : json_integer((json_int_t)f->kernel));
	json_object_set_new(o, "cause", json_string(gpuproj_gate_cause_name(f->cause)));
	json_object_set_new(o, "text", json_str_or_null(f->text));
	json_object_set_new(o, "regressed_cells", json_integer((json_int_t)f->n_regressed));
	json_object_set_new(o, "targets_compared", json_integer((json_int_t)f->n_targets_compared));
	json_object_set_new(o, "targets_regressed",
			    json_integer((json_int_t)f->n_targets_regressed));
	json_object_set_new(o, "source_change", json_num(f->kernel == SIZE_MAX
							 ? r->columns[0].run.change
							 : r->kernels[f->kernel].cells[0].change));
	json_object_set_new(o, "counters_compared", json_integer((json_int_t)f->n_compared));
	json_object_set_new(o, "counters_changed", json_integer((json_int_t)f->n_changed));
	for (i = 0; i < f->n_changed && i < GPUPROJ_GATE_FINDING_COUNTERS; i++) {
		const struct gpuproj_gate_counter_change *c = &f->changes[i];

		json_array_append_new(counters, json_pack("{s:s, s:o, s:o, s:o}", "metric",
							  gpuproj_metric_name(c->metric),
							  "baseline", json_num(c->base), "current",
							  json_num(c->cur), "change",
							  json_num(c->change)));
	}
	json_object_set_new(o, "counters", counters);
	return o;
}

static json_t *
kernel_json(const struct gpuproj_gate_result *r, const struct gpuproj_gate_kernel *gk)
{
	const struct gpuproj_kernel *k = gk->base ? gk->base : gk->cur;
	json_t *o = json_object(), *cells = json_array();
	char label[1024];
	size_t col;

	if (!o || !cells) {
		json_decref(o);
		json_decref(cells);
		return NULL;
	}
	gpuproj_gate_kernel_label(k, label, sizeof(label));
	json_object_set_new(o, "label", json_str_or_null(label));
	json_object_set_new(o, "name", json_str_or_null(k->name));
	json_object_set_new(o, "demangled", json_str_or_null(k->demangled));
	json_object_set_new(o, "tag", json_str_or_null(k->tag));
	json_object_set_new(o, "grid", json_dim3(k->grid));
	json_object_set_new(o, "block", json_dim3(k->block));
	json_object_set_new(o, "smem_dynamic", json_integer(k->smem_dynamic));
	json_object_set_new(o, "baseline_launches", gk->base ? json_integer((json_int_t)
						    gk->base->launches) : json_null());
	json_object_set_new(o, "current_launches", gk->cur ? json_integer((json_int_t)
						   gk->cur->launches) : json_null());
	for (col = 0; col < r->n_columns; col++)
		json_array_append_new(cells, cell_json(&gk->cells[col], col > 0));
	json_object_set_new(o, "cells", cells);
	return o;
}

static json_t *
gpu_json(const struct gpuproj_gate_result *r, size_t col)
{
	const struct gpuproj_gate_column *c = &r->columns[col];

	return json_pack("{s:o, s:o, s:b, s:o, s:I, s:I, s:I, s:o}",
			 "label", json_str_or_null(c->label),
			 "gpu", json_str_or_null(col ? c->target->name : r->cur_source->name),
			 "measured", col == 0,
			 "min_time_ns", json_num(c->min_time_ns),
			 "regressed_kernels", (json_int_t)c->n_regressed,
			 "unprojected_kernels", (json_int_t)c->n_unprojected,
			 "coarse_kernels", (json_int_t)c->n_coarse,
			 "whole_run", cell_json(&c->run, col > 0));
}

int
gpuproj_gate_json(const struct gpuproj_gate_result *r, char **ret)
{
	const struct gpuproj_gate_options *o;
	json_t *root, *arr;
	size_t i, n_metric;
	char *text;

	if (!r || !ret || !r->columns)
		return GPUPROJ_E_INVAL;
	o = &r->options;
	root = json_object();
	if (!root)
		return GPUPROJ_E_NOMEM;
	json_object_set_new(root, "schema", json_string(GPUPROJ_GATE_JSON_SCHEMA));
	json_object_set_new(root, "tool", json_pack("{s:s, s:s}", "name", "gpuproj", "version",
						    GPUPROJ_VERSION));
	json_object_set_new(root, "verdict", json_string(r->regression ? "fail" : "pass"));
	json_object_set_new(root, "baseline", json_pack("{s:o, s:o}", "label",
						       json_str_or_null(o->baseline_label),
						       "source_gpu",
						       json_str_or_null(r->base_source->name)));
	json_object_set_new(root, "current", json_pack("{s:o, s:o}", "label",
						      json_str_or_null(o->current_label),
						      "source_gpu",
						      json_str_or_null(r->cur_source->name)));
	json_object_set_new(root, "model", json_string(gpuproj_model_name(o->model)));
	json_object_set_new(root, "options", json_pack(
		"{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b}",
		"metric", gpuproj_gate_metric_words(&n_metric)[o->metric].name,
		"max_regression", json_num(o->max_regression),
		"kernel_max_regression", json_num(o->kernel_max_regression),
		"noise_k", json_num(o->noise_k),
		"min_time_ns", json_num(o->min_time_ns),
		"min_time_fraction", isnan(o->min_time_ns) ? json_num(o->min_time_fraction)
							   : json_null(),
		"counter_tolerance", json_num(GPUPROJ_GATE_COUNTER_TOLERANCE),
		"allow_gpu_change", o->allow_gpu_change));
	arr = json_array();
	for (i = 0; arr && i < r->n_warnings; i++)
		json_array_append_new(arr, json_str_or_null(r->warnings[i]));
	json_object_set_new(root, "warnings", arr);
	json_object_set_new(root, "counts", json_pack(
		"{s:I, s:I, s:I, s:I, s:I}", "findings", (json_int_t)r->n_findings,
		"regressed_cells", (json_int_t)r->n_regressed, "new_kernels", (json_int_t)r->n_new,
		"vanished_kernels", (json_int_t)r->n_vanished,
		"unprojected_cells", (json_int_t)r->n_unprojected));
	arr = json_array();
	for (i = 0; arr && i < r->n_findings; i++)
		json_array_append_new(arr, finding_json(r, &r->findings[i]));
	json_object_set_new(root, "findings", arr);
	arr = json_array();
	for (i = 0; arr && i < r->n_columns; i++)
		json_array_append_new(arr, gpu_json(r, i));
	json_object_set_new(root, "gpus", arr);
	arr = json_array();
	for (i = 0; arr && i < r->n_kernels; i++)
		json_array_append_new(arr, kernel_json(r, &r->kernels[i]));
	json_object_set_new(root, "kernels", arr);
	/*
	 * A member that could not be built (ENOMEM) is missing: json_*_set_new()
	 * and append_new() refuse NULL. Check the arrays' lengths.
	 */
	if (json_array_size(json_object_get(root, "kernels")) != r->n_kernels ||
	    json_array_size(json_object_get(root, "gpus")) != r->n_columns ||
	    json_array_size(json_object_get(root, "findings")) != r->n_findings ||
	    json_object_size(root) != 12) {
		json_decref(root);
		return GPUPROJ_E_NOMEM;
	}
	text = json_text(root);
	json_decref(root);
	if (!text)
		return GPUPROJ_E_NOMEM;
	*ret = text;
	return GPUPROJ_OK;
}
