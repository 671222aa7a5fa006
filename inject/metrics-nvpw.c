/* SPDX-License-Identifier: MIT */
/*
 * The per-chip resolution of the logical metrics' NVIDIA candidates: the
 * core's tables, include/gpuproj/nvmetrics.h (the one table libproj.so,
 * `gpuproj import ncu` and `gpuproj ncu-metrics` read) and, for the tensor
 * metrics per GPUPROJ_TENSOR mode, include/gpuproj/tensor.h. Each name is
 * asked of the CUPTI host API ([CUPTI-MET]); the first candidate whose
 * names are all valid wins (tests/inject/test-cupti-host.c compares the
 * result with the tables' recorded chip restrictions).
 *
 * Thread safety: constant tables; resolution allocates a new set.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/nvmetrics.h>
#include <gpuproj/tensor.h>

#include "metrics-nvpw.h"
#include "util.h"

size_t
inj_metrics_candidate_count(enum gpuproj_tensor_mode mode, enum gpuproj_metric m)
{
	size_t n;

	if ((unsigned)m >= GPUPROJ_M_COUNT)
		return 0;
	n = gpuproj_tensor_candidates(mode, m, NULL);
	if (n)
		return n;
	return gpuproj_nv_candidates(m, NULL);
}

const char *
inj_metrics_candidate(enum gpuproj_tensor_mode mode, enum gpuproj_metric m, size_t i)
{
	const struct gpuproj_tensor_candidate *c;
	const struct gpuproj_nv_candidate *nv;
	size_t n;

	if ((unsigned)m >= GPUPROJ_M_COUNT)
		return NULL;
	n = gpuproj_tensor_candidates(mode, m, &c);
	if (n)
		return i < n ? c[i].expr : NULL;
	n = gpuproj_nv_candidates(m, &nv);
	return i < n ? nv[i].expr : NULL;
}

/* Cache of validator answers: the same name appears in several candidates. */
struct answer {
	char *name;
	bool valid;
};

struct resolver {
	inj_metric_valid_fn valid;
	void *ud;
	struct answer *answers;
	size_t n_answers, cap_answers;
	struct inj_metric_set *set;
	size_t cap_names;
	bool oom;
};

static bool
ask(struct resolver *rv, const char *name)
{
	size_t i;
	bool v;

	for (i = 0; i < rv->n_answers; i++) {
		if (strcmp(rv->answers[i].name, name) == 0)
			return rv->answers[i].valid;
	}
	v = rv->valid(rv->ud, name);
	if (rv->n_answers == rv->cap_answers) {
		size_t cap = rv->cap_answers ? 2 * rv->cap_answers : 64;
		struct answer *a = realloc(rv->answers, cap * sizeof(*a));

		if (!a) {
			rv->oom = true;
			return v;
		}
		rv->answers = a;
		rv->cap_answers = cap;
	}
	rv->answers[rv->n_answers].name = strdup(name);
	if (!rv->answers[rv->n_answers].name) {
		rv->oom = true;
		return v;
	}
	rv->answers[rv->n_answers++].valid = v;
	return v;
}

/* Index of `name` in the set's name list, appending it; SIZE_MAX on ENOMEM. */
static size_t
intern(struct resolver *rv, const char *name, size_t len)
{
	struct inj_metric_set *s = rv->set;
	size_t i;
	char *copy;

	for (i = 0; i < s->n_names; i++) {
		if (strlen(s->names[i]) == len && strncmp(s->names[i], name, len) == 0)
			return i;
	}
	if (s->n_names == rv->cap_names) {
		size_t cap = rv->cap_names ? 2 * rv->cap_names : 64;
		const char **n = realloc(s->names, cap * sizeof(*n));

		if (!n)
			return SIZE_MAX;
		s->names = n;
		rv->cap_names = cap;
	}
	copy = strndup(name, len);
	if (!copy)
		return SIZE_MAX;
	s->names[s->n_names] = copy;
	return s->n_names++;
}

/*
 * Split "a+b" (each term optionally "factor*name";
 * gpuproj_nv_expr_term()) into terms; all must be valid. Returns true and
 * fills map.
 */
static bool
try_candidate(struct resolver *rv, const struct gpuproj_nv_candidate *c, struct inj_metric_map *map)
{
	char term[256];
	const char *p = c->expr, *name;
	size_t n = 0, starts[INJ_MAX_TERMS], lens[INJ_MAX_TERMS], len, i;
	double factors[INJ_MAX_TERMS], f;
	int more;

	while ((more = gpuproj_nv_expr_term(&p, &name, &len, &f)) > 0) {
		if (n == INJ_MAX_TERMS || len >= sizeof(term))
			return false;
		memcpy(term, name, len);
		term[len] = '\0';
		if (!ask(rv, term))
			return false;
		starts[n] = (size_t)(name - c->expr);
		factors[n] = f;
		lens[n++] = len;
	}
	if (more < 0)
		return false;
	for (i = 0; i < n; i++) {
		map->term[i] = intern(rv, c->expr + starts[i], lens[i]);
		map->factor[i] = factors[i];
		if (map->term[i] == SIZE_MAX) {
			rv->oom = true;
			return false;
		}
	}
	map->n_terms = n;
	map->expr = c->expr;
	map->scale = c->scale;
	return n > 0;
}

/*
 * A tensor metric from the core's candidates: an operation counter as it
 * is, an instruction count × the chip's default FLOP per instruction
 * (marked assumed, with the shape). A chip whose instruction has no static
 * shape (tcgen05) leaves the metric unavailable, with the reason in `note`.
 */
static void
resolve_tensor(struct resolver *rv, enum gpuproj_tensor_mode mode, enum gpuproj_metric m)
{
	const struct gpuproj_tensor_candidate *tc;
	struct inj_metric_set *s = rv->set;
	struct inj_metric_map *map = &s->map[m];
	size_t n = gpuproj_tensor_candidates(mode, m, &tc), i;
	int major = 0, minor = 0;

	gpuproj_tensor_chip_cc(s->chip, &major, &minor);
	for (i = 0; i < n && !rv->oom; i++) {
		struct gpuproj_nv_candidate c = { tc[i].expr, tc[i].scale, NULL, NULL };
		struct gpuproj_tensor_shape shape;

		if (tc[i].op != GPUPROJ_TOP_NONE) {
			if (gpuproj_tensor_shape_default(major, minor, tc[i].op, &shape))
				continue;
			if (!(shape.flop_per_inst > 0)) {
				/* tcgen05 says why; a family the chip lacks needs no note. */
				if (!map->note[0] && shape.caveat[0])
					snprintf(map->note, sizeof(map->note), "%.16s: %.70s",
						 shape.shape, shape.caveat);
				continue;
			}
			c.scale = shape.flop_per_inst;
		}
		if (!try_candidate(rv, &c, map))
			continue;
		if (tc[i].op != GPUPROJ_TOP_NONE) {
			map->assumed = true;
			snprintf(map->shape, sizeof(map->shape), "%s", shape.shape);
		}
		map->note[0] = '\0';
		return;
	}
}

int
inj_metrics_resolve(const char *chip, enum gpuproj_tensor_mode mode, inj_metric_valid_fn valid,
		    void *ud, struct inj_metric_set **ret)
{
	struct resolver rv = { .valid = valid, .ud = ud };
	size_t m, i;

	*ret = NULL;
	rv.set = calloc(1, sizeof(*rv.set));
	if (!rv.set)
		return -1;
	snprintf(rv.set->chip, sizeof(rv.set->chip), "%s", chip);
	rv.set->duration_index = SIZE_MAX;
	rv.set->tensor = mode;
	for (m = 0; m < GPUPROJ_M_COUNT && !rv.oom; m++) {
		if (gpuproj_tensor_candidates(GPUPROJ_TENSOR_OPS, (enum gpuproj_metric)m, NULL)) {
			resolve_tensor(&rv, mode, (enum gpuproj_metric)m);
		} else {
			const struct gpuproj_nv_candidate *nv;
			size_t n = gpuproj_nv_candidates((enum gpuproj_metric)m, &nv);

			for (i = 0; i < n; i++) {
				if (try_candidate(&rv, &nv[i], &rv.set->map[m]))
					break;
			}
		}
		if (!rv.set->map[m].expr && inj_metrics_candidate_count(mode, m))
			rv.set->n_unavailable++;
	}
	if (!rv.oom && ask(&rv, INJ_DURATION_METRIC)) {
		rv.set->duration_index = intern(&rv, INJ_DURATION_METRIC,
						strlen(INJ_DURATION_METRIC));
		if (rv.set->duration_index == SIZE_MAX)
			rv.oom = true;
	}
	for (i = 0; i < rv.n_answers; i++)
		free(rv.answers[i].name);
	free(rv.answers);
	if (rv.oom) {
		inj_metrics_free(rv.set);
		return -1;
	}
	*ret = rv.set;
	return 0;
}

void
inj_metrics_free(struct inj_metric_set *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_names; i++)
		free((char *)s->names[i]);
	free(s->names);
	free(s);
}

void
inj_metrics_values(const struct inj_metric_set *s, const double *raw, double *out)
{
	size_t m, i;

	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		const struct inj_metric_map *map = &s->map[m];
		double sum = 0;

		out[m] = NAN;
		if (!map->expr)
			continue;
		for (i = 0; i < map->n_terms; i++)
			sum += map->factor[i] * raw[map->term[i]];
		if (isfinite(sum))
			out[m] = sum * map->scale;
	}
}
