/* SPDX-License-Identifier: MIT */
/*
 * The targets.yaml loader's YAML helpers (target-yaml.h): errors at a
 * node's position, scalars, mappings, unknown keys with the nearest known
 * one, and numbers of the type and within the limit their row of the field
 * table gives (target-fields.c; docs/targets-schema.md "Limits").
 * Thread safety: reentrant.
 */
#include "config.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "target-fields.h"
#include "target-private.h"
#include "target-yaml.h"

int
ty_fail(struct loader *ld, int status, const yaml_node_t *node, const char *fmt, ...)
{
	va_list ap;
	int line = node ? (int)node->start_mark.line + 1 : 0;
	int col = node ? (int)node->start_mark.column + 1 : 0;

	va_start(ap, fmt);
	error_setv(ld->err, status, ld->file, line, col, fmt, ap);
	va_end(ap);
	return status;
}

const char *
ty_scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

const char *
ty_node_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_NO_NODE: break;
	}
	return "nothing";
}

bool
ty_is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	v = ty_scalar(n);
	return !*v || strcmp(v, "null") == 0 || strcmp(v, "~") == 0 || strcmp(v, "Null") == 0 ||
	       strcmp(v, "NULL") == 0;
}

/* The key node of a mapping entry whose value is `value` (for positions). */
yaml_node_t *
ty_map_lookup(struct loader *ld, yaml_node_t *map, const char *key, yaml_node_t **ret_key)
{
	yaml_node_pair_t *p;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(ld->doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE && strcmp(ty_scalar(k), key) == 0) {
			if (ret_key)
				*ret_key = k;
			return yaml_document_get_node(ld->doc, p->value);
		}
	}
	return NULL;
}

const char *
ty_nearest(const char *word, const char *const *known, size_t n)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1, i;
	size_t cap = strlen(word) / 3 + 1;

	for (i = 0; i < n; i++) {
		size_t d = str_distance(word, known[i], cap + 1);

		if (d <= cap && d < bestd) {
			bestd = d;
			best = known[i];
		}
	}
	/* A key that contains the word or the other way round is a good guess too. */
	if (!best) {
		for (i = 0; i < n; i++) {
			if (strlen(word) >= 3 && (strstr(known[i], word) || strstr(word, known[i]))) {
				best = known[i];
				break;
			}
		}
	}
	return best;
}

/* Keys must be known scalars, each once. */
int
ty_check_keys(struct loader *ld, yaml_node_t *map, const char *const *known, size_t n,
	   const char *where)
{
	yaml_node_pair_t *p, *q;
	size_t i;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(ld->doc, p->key);
		bool ok = false;
		const char *guess;

		if (!k || k->type != YAML_SCALAR_NODE)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, k, "keys in %s must be scalars", where);
		for (q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = yaml_document_get_node(ld->doc, q->key);

			if (k2 && k2->type == YAML_SCALAR_NODE && strcmp(ty_scalar(k2), ty_scalar(k)) == 0)
				return ty_fail(ld, GPUPROJ_E_SCHEMA, k,
					    "duplicate key '%s' in %s (first at line %d)", ty_scalar(k),
					    where, (int)k2->start_mark.line + 1);
		}
		for (i = 0; i < n; i++) {
			if (strcmp(ty_scalar(k), known[i]) == 0) {
				ok = true;
				break;
			}
		}
		if (ok)
			continue;
		guess = ty_nearest(ty_scalar(k), known, n);
		if (guess)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, k, "unknown key '%s' in %s; did you mean '%s'?",
				    ty_scalar(k), where, guess);
		return ty_fail(ld, GPUPROJ_E_SCHEMA, k, "unknown key '%s' in %s", ty_scalar(k), where);
	}
	return GPUPROJ_OK;
}

int
ty_require_kind(struct loader *ld, yaml_node_t *n, yaml_node_type_t type, const char *what,
	     const char *expected)
{
	if (n->type != type)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'%s' must be %s, not %s", what, expected,
			    ty_node_kind(n));
	return GPUPROJ_OK;
}

/* Fetch a required (or optional) field; *ret NULL when absent and optional. */
int
ty_field(struct loader *ld, yaml_node_t *map, const char *key, bool required, const char *where,
      yaml_node_t **ret)
{
	*ret = ty_map_lookup(ld, map, key, NULL);
	if (!*ret && required)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, map, "%s: missing required field '%s'", where, key);
	return GPUPROJ_OK;
}

int
ty_get_string(struct loader *ld, yaml_node_t *map, const char *key, bool required, const char *where,
	   char **out)
{
	yaml_node_t *n;
	int r = ty_field(ld, map, key, required, where, &n);

	*out = NULL;
	if (r || !n)
		return r;
	if (n->type != YAML_SCALAR_NODE || ty_is_null(n))
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'%s' must be a string", key);
	if (!*ty_scalar(n))
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'%s' must not be empty", key);
	*out = strdup(ty_scalar(n));
	return *out ? GPUPROJ_OK : ty_fail(ld, GPUPROJ_E_NOMEM, n, "out of memory");
}

/*
 * A number for field `f`: a plain scalar that parses completely, null (→
 * NaN) where the field allows it, > 0 (≥ 0 where it may be 0), and at
 * most its limit (docs/targets-schema.md "Limits"); messages name f->path.
 */
int
ty_number_node(struct loader *ld, yaml_node_t *n, const struct target_field *f, double *out)
{
	const char *path = f->path;
	bool allow_null = f->type == TF_NULLABLE, positive = !f->zero_ok;
	double v;

	if (allow_null && ty_is_null(n)) {
		*out = NAN;
		return GPUPROJ_OK;
	}
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    !parse_double(ty_scalar(n), &v))
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'%s' must be a number%s, not %s%s%s%s", path,
			    allow_null ? " or null" : "",
			    n->type == YAML_SCALAR_NODE ? "'" : "",
			    n->type == YAML_SCALAR_NODE ? ty_scalar(n) : ty_node_kind(n),
			    n->type == YAML_SCALAR_NODE ? "'" : "",
			    n->type == YAML_SCALAR_NODE && n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE
				    ? " (quoted)" : "");
	if (positive && !(v > 0))
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'%s' must be positive, got %s", path, ty_scalar(n));
	if (!positive && v < 0)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'%s' must not be negative, got %s", path,
			    ty_scalar(n));
	if (v > f->max)
		return ty_fail(ld, GPUPROJ_E_LIMIT, n, "'%s' is %s, above the limit of %.15g%s%s "
			    "(no real GPU comes near it; docs/targets-schema.md)", path,
			    ty_scalar(n), f->max, *f->unit ? " " : "", f->unit);
	*out = v;
	return GPUPROJ_OK;
}

int
ty_integer_node(struct loader *ld, yaml_node_t *n, const struct target_field *f, int *out)
{
	double v;
	int r = ty_number_node(ld, n, f, &v);

	if (r)
		return r;
	if (v != floor(v) || v > 1e9)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'%s' must be an integer, got %s", f->path,
			    ty_scalar(n));
	/* ty_number_node() checked the limit: every int product of two limits fits in 64 bits. */
	*out = (int)v;
	return GPUPROJ_OK;
}
