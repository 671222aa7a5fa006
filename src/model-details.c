/* SPDX-License-Identifier: MIT */
/*
 * What a model says about a projection besides its time (model-private.h):
 * the items of its details (gpuproj_model_details()), its note, and the
 * inputs it lacks, with their "MODEL needs ..." message. Below every model
 * file and model.c, calling none of them. Thread safety: reentrant.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

void
model_note_append(struct gpuproj_projection *out, const char *fmt, ...)
{
	size_t len = strlen(out->note);
	va_list ap;

	if (len + 3 >= sizeof(out->note))
		return;
	if (len) {
		memcpy(out->note + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(out->note + len, sizeof(out->note) - len, fmt, ap);
	va_end(ap);
}

void
model_missing_add(struct model_missing *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (strcmp(m->names[i], name) == 0)
			return;
	}
	if (m->n < MODEL_MISSING_MAX)
		m->names[m->n++] = name;
}

bool
model_missing_metrics(const struct gpuproj_kernel *k, const enum gpuproj_metric *ms, size_t n,
		      struct model_missing *m)
{
	bool missing = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (gpuproj_kernel_has(k, ms[i]))
			continue;
		model_missing_add(m, gpuproj_metric_name(ms[i]));
		missing = true;
	}
	return missing;
}

int
model_missing_why(const struct model_missing *m, const char *model, char *why, size_t whylen)
{
	size_t i, len;

	if (why && whylen) {
		snprintf(why, whylen, "%s needs ", model);
		for (i = 0; i < m->n; i++) {
			len = strlen(why);
			snprintf(why + len, whylen - len, "%s%s", i ? ", " : "", m->names[i]);
		}
	}
	return GPUPROJ_E_MISSING;
}

void
model_detail(struct gpuproj_model_details *d, const char *name, double value, const char *unit)
{
	struct gpuproj_detail *it;

	if (d->n >= GPUPROJ_DETAILS_MAX)
		return;
	it = &d->items[d->n++];
	it->name = name;
	it->value = value;
	it->unit = unit;
	it->key = NULL;
	it->basis = GPUPROJ_BASIS_NONE;
}

void
model_detail_key(struct gpuproj_model_details *d, const struct gpuproj_target *gpu,
		 const char *name, double value, const char *unit, const char *key)
{
	model_detail(d, name, value, unit);
	if (d->n && d->items[d->n - 1].name == name) {
		d->items[d->n - 1].key = key;
		d->items[d->n - 1].basis = key ? gpuproj_target_basis(gpu, key)
					       : GPUPROJ_BASIS_NONE;
	}
}
