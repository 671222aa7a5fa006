/* SPDX-License-Identifier: MIT */
/*
 * The targets.yaml loader's state and YAML helpers (target-yaml.c), shared
 * by target.c. Not installed. Every helper that fails fills the loader's
 * error (file:line:column of the node) and returns its status.
 */
#ifndef GPUPROJ_TARGET_YAML_H
#define GPUPROJ_TARGET_YAML_H

#include <stdbool.h>

#include <yaml.h>

#include <gpuproj/error.h>

#include "target-fields.h"
#include "target-private.h"
#include "util.h"

/* Loader state. */
struct loader {
	yaml_document_t *doc;
	const char *file;
	struct gpuproj_error *err;
	struct gpuproj_targets *set;
	const char **refs_sorted;	/* set->ref_keys sorted, for citation lookups */
};

/*
 * Before libyaml builds a document from `text`: at most the targets file's
 * size limit (unless `builtin`: compiled-in text has none) and flow
 * collections nested at most 64 deep (target.c says why). Returns
 * GPUPROJ_OK, GPUPROJ_E_LIMIT (the message names `file`, the limit and
 * `what` the file is: "a targets file") or GPUPROJ_E_NOMEM. The prices
 * file of `gpuproj report` is held to it too.
 */
int ty_guard(const char *text, size_t len, const char *file, const char *what, bool builtin,
	     struct gpuproj_error *err);

/* Fill the loader's error with `status` at `node`'s line and column (0 when NULL); returns `status`. */
int ty_fail(struct loader *ld, int status, const yaml_node_t *node, const char *fmt, ...)
	GPUPROJ_PRINTF(4, 5);

/* A scalar node's text (owned by the document). */
const char *ty_scalar(const yaml_node_t *n);

/* "a scalar", "a list", "a mapping" or "nothing", for messages. */
const char *ty_node_kind(const yaml_node_t *n);

/* Whether a plain scalar is YAML's null (empty, null, ~, Null, NULL). */
bool ty_is_null(const yaml_node_t *n);

/* The key node of a mapping entry whose value is `value` (for positions). */
yaml_node_t *ty_map_lookup(struct loader *ld, yaml_node_t *map, const char *key, yaml_node_t **ret_key);

/* The entry of `known` (n names) within two edits of `word`, or NULL. */
const char *ty_nearest(const char *word, const char *const *known, size_t n);

/* Keys must be known scalars, each once. */
int ty_check_keys(struct loader *ld, yaml_node_t *map, const char *const *known, size_t n,
	   const char *where);

/* GPUPROJ_E_SCHEMA at `n` unless it has node type `type`. */
int ty_require_kind(struct loader *ld, yaml_node_t *n, yaml_node_type_t type, const char *what,
	     const char *expected);

/* Fetch a required (or optional) field; *ret NULL when absent and optional. */
int ty_field(struct loader *ld, yaml_node_t *map, const char *key, bool required, const char *where,
      yaml_node_t **ret);

/* A string field (a scalar) of `map`, owned by the document, into *ret. */
int ty_get_string(struct loader *ld, yaml_node_t *map, const char *key, bool required, const char *where,
	   char **out);

/*
 * A number for field `f` (target-fields.h): a plain scalar that parses
 * completely; null (→ NaN) if f is TF_NULLABLE; > 0, or ≥ 0 if f->zero_ok;
 * at most f->max (GPUPROJ_E_LIMIT). Messages name f->path.
 */
int ty_number_node(struct loader *ld, yaml_node_t *n, const struct target_field *f, double *out);

/* ty_number_node() that must also be an integer (at most 1e9). */
int ty_integer_node(struct loader *ld, yaml_node_t *n, const struct target_field *f, int *out);

#endif
