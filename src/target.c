/* SPDX-License-Identifier: MIT */
/*
 * targets.yaml loader (schema gpuproj-targets/1, docs/targets-schema.md).
 *
 * The file is loaded with libyaml's document API, so every node keeps its
 * start mark; validation then walks the tree and reports the first problem
 * as file:line:column. Checks: schema version, unknown keys (with the
 * nearest known key), duplicate keys, missing required fields, wrong types
 * (numbers must be plain scalars), non-positive rates and counts, duplicate
 * GPU names and match strings, and that every number has a source whose
 * BASIS is known and whose [KEY] citations exist in `references`. Two
 * consistency rules tie fields together: lanes_per_sm.fp32_int32_shared
 * cannot exceed lanes_per_sm.fp32 or .int32, and the latencies must grow
 * from L1 to L2 to DRAM. Which keys an entry and its groups have, in
 * which order, their types, which are required and every number's limit
 * are the field table's (target-fields.c); the parse functions here say
 * where the values go and check the rules that tie fields together.
 *
 * Thread safety: loading is reentrant; a loaded set is immutable.
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
#include "util.h"



static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A reference key and its position in the file. */
struct ref_at {
	const char *key;
	size_t index;
};

static int
cmp_ref_at(const void *a, const void *b)
{
	const struct ref_at *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Is `key` in `references`? O(log n): a file may cite many times. */
static bool
has_reference(const struct loader *ld, const char *key)
{
	if (!ld->refs_sorted)
		return gpuproj_targets_reference(ld->set, key) != NULL;
	return bsearch(&key, ld->refs_sorted, ld->set->n_refs, sizeof(*ld->refs_sorted),
		       cmp_str) != NULL;
}

static const char *const top_keys[] = { "schema", "references", "gpus" };

/* The words of host_link.interface. */
static const char *const link_interfaces[] = {
	"pcie2-x16", "pcie3-x16", "pcie4-x8", "pcie4-x16", "pcie5-x16", "pcie6-x16", "nvlink-c2c",
};

static const char *const basis_words[] = { "none", "measured", "datasheet", "derived", "estimate" };

/* ---- the field table (target-fields.c) as the loader reads it ---- */

/* Whether the entry's key `path` must be there. */
static bool
required(const char *path)
{
	const struct target_field *f = target_field_find(path);

	assert(f);
	return f && f->required;
}

/* The members of `group`: `n` of them, the length of the caller's array of values. */
static const struct target_field *
members(const char *group, size_t n)
{
	size_t nm;
	const struct target_field *m = target_field_members(group, &nm);

	assert(m && nm == n);
	(void)nm;
	return m;
}

/* ty_check_keys() with the keys of `group` (NULL: of the entry) in table order. */
static int
check_keys(struct loader *ld, yaml_node_t *map, const char *group, const char *where)
{
	const char *keys[TARGET_FIELDS_MAX];
	size_t n = target_field_keys(group, keys, ARRAY_LENGTH(keys));

	return ty_check_keys(ld, map, keys, n, where);
}

/* ---- numeric-path bookkeeping for the sources check ---- */

/*
 * Every number an entry holds, each added once: at most the rows of the
 * field table, so no number can escape the "every number has a source"
 * check and a new field counts itself (pathset_add() refuses to write past
 * the end all the same).
 */
#define PATHSET_MAX TARGET_FIELDS_MAX

struct pathset {
	const char *paths[PATHSET_MAX];	/* rows' paths of the field table */
	const yaml_node_t *nodes[PATHSET_MAX];
	size_t n;
};

static void
pathset_add(struct pathset *ps, const char *path, const yaml_node_t *node)
{
	/* Each path is added once per entry: PATHSET_MAX bounds the count. */
	assert(ps->n < PATHSET_MAX);
	if (ps->n >= PATHSET_MAX)
		return;
	ps->paths[ps->n] = path;
	ps->nodes[ps->n] = node;
	ps->n++;
}

/*
 * Read the map `group` of numbers into out[] (n values, one per member;
 * NaN = absent; a null, where the field allows it, reads as 0: "none").
 * The group must be there if its row says so; its required members must be
 * there once it is, checked after the values.
 */
static int
number_group(struct loader *ld, yaml_node_t *gpu, const char *group, double *out, size_t n,
	     struct pathset *ps, const char *where)
{
	const struct target_field *m = members(group, n);
	yaml_node_t *map;
	size_t i;
	int r;

	for (i = 0; i < n; i++)
		out[i] = NAN;
	r = ty_field(ld, gpu, group, required(group), where, &map);
	if (r || !map)
		return r;
	r = ty_require_kind(ld, map, YAML_MAPPING_NODE, group, "a mapping");
	if (r)
		return r;
	r = check_keys(ld, map, group, group);
	if (r)
		return r;
	for (i = 0; i < n; i++) {
		yaml_node_t *v = ty_map_lookup(ld, map, target_field_key(&m[i]), NULL);

		if (!v)
			continue;
		r = ty_number_node(ld, v, &m[i], &out[i]);
		if (r)
			return r;
		if (m[i].type == TF_NULLABLE && isnan(out[i]))
			out[i] = 0; /* null: no such path */
		pathset_add(ps, m[i].path, v);
	}
	for (i = 0; i < n; i++) {
		if (m[i].required && isnan(out[i]))
			return ty_fail(ld, GPUPROJ_E_SCHEMA, map, "%s: missing required field '%s'",
				    group, target_field_key(&m[i]));
	}
	return GPUPROJ_OK;
}

/* The value node of group.key, for positioned consistency errors. */
static yaml_node_t *
group_value(struct loader *ld, yaml_node_t *gpu, const char *group, const char *key)
{
	yaml_node_t *map = ty_map_lookup(ld, gpu, group, NULL);

	return map && map->type == YAML_MAPPING_NODE ? ty_map_lookup(ld, map, key, NULL) : map;
}

/*
 * lanes_per_sm (all five keys once the group is there), stream_gbs and
 * latency_ns (any subset), and the rules that tie their values together.
 */
static int
parse_rates(struct loader *ld, yaml_node_t *gpu, struct gpuproj_target *t, struct pathset *ps,
	    const char *where)
{
	double *const lane = t->lanes_per_sm;
	const double *lat = t->latency_ns;
	const struct target_field *m;
	int r;

	r = number_group(ld, gpu, "lanes_per_sm", lane, GPUPROJ_LANE_COUNT, ps, where);
	if (r)
		return r;
	if (ty_map_lookup(ld, gpu, "lanes_per_sm", NULL) &&
	    lane[GPUPROJ_LANE_FP32_INT32_SHARED] > fmin(lane[GPUPROJ_LANE_FP32],
							 lane[GPUPROJ_LANE_INT32]))
		return ty_fail(ld, GPUPROJ_E_SCHEMA,
			    group_value(ld, gpu, "lanes_per_sm", "fp32_int32_shared"),
			    "'lanes_per_sm.fp32_int32_shared' (%g) cannot exceed "
			    "'lanes_per_sm.fp32' (%g) or 'lanes_per_sm.int32' (%g)",
			    lane[GPUPROJ_LANE_FP32_INT32_SHARED], lane[GPUPROJ_LANE_FP32],
			    lane[GPUPROJ_LANE_INT32]);
	r = number_group(ld, gpu, "stream_gbs", t->stream_gbs, GPUPROJ_STREAM_COUNT, ps, where);
	if (r)
		return r;
	r = number_group(ld, gpu, "latency_ns", t->latency_ns, GPUPROJ_LEVEL_COUNT, ps, where);
	if (r)
		return r;
	r = number_group(ld, gpu, "launch_floor_us", t->launch_floor_us, GPUPROJ_LAUNCH_MODE_COUNT,
			 ps, where);
	if (r)
		return r;
	/* A graph saves launch work; it never adds any. */
	if (t->launch_floor_us[GPUPROJ_LAUNCH_GRAPH] > t->launch_floor_us[GPUPROJ_LAUNCH_STREAM])
		return ty_fail(ld, GPUPROJ_E_SCHEMA,
			       group_value(ld, gpu, "launch_floor_us", "graph"),
			       "'launch_floor_us.graph' (%g us) cannot exceed "
			       "'launch_floor_us.stream' (%g us)",
			       t->launch_floor_us[GPUPROJ_LAUNCH_GRAPH],
			       t->launch_floor_us[GPUPROJ_LAUNCH_STREAM]);
	m = members("latency_ns", GPUPROJ_LEVEL_COUNT);
	/* A level further from the SM cannot answer sooner: L1 < L2 < DRAM. */
	{
		static const enum gpuproj_level order[] = {
			GPUPROJ_LEVEL_L1, GPUPROJ_LEVEL_L2, GPUPROJ_LEVEL_DRAM,
		};
		size_t a, b;

		for (b = 1; b < ARRAY_LENGTH(order); b++) {
			for (a = 0; a < b; a++) {
				const char *ka = target_field_key(&m[order[a]]);
				const char *kb = target_field_key(&m[order[b]]);

				if (isnan(lat[order[a]]) || isnan(lat[order[b]]) ||
				    lat[order[a]] < lat[order[b]])
					continue;
				return ty_fail(ld, GPUPROJ_E_SCHEMA,
					    group_value(ld, gpu, "latency_ns", kb),
					    "'latency_ns.%s' (%g ns) must be longer than "
					    "'latency_ns.%s' (%g ns)", kb, lat[order[b]], ka,
					    lat[order[a]]);
			}
		}
	}
	return GPUPROJ_OK;
}

/*
 * peak_tensor (numbers, or null: the GPU has no such path; a null is a
 * claim and needs a source like a number) and max_tensor (numbers), any
 * subset of keys; a measured rate never above its peak, nor given where the
 * peak is null.
 */
static int
parse_tensor(struct loader *ld, yaml_node_t *gpu, struct gpuproj_target *t, struct pathset *ps,
	     const char *where)
{
	const struct target_field *m = members("max_tensor", GPUPROJ_TPREC_COUNT);
	size_t i;
	int r;

	r = number_group(ld, gpu, "peak_tensor", t->peak_tensor, GPUPROJ_TPREC_COUNT, ps, where);
	if (r)
		return r;
	r = number_group(ld, gpu, "max_tensor", t->max_tensor, GPUPROJ_TPREC_COUNT, ps, where);
	if (r)
		return r;
	for (i = 0; i < GPUPROJ_TPREC_COUNT; i++) {
		const char *key = target_field_key(&m[i]);

		if (isnan(t->max_tensor[i]) || isnan(t->peak_tensor[i]))
			continue;
		yaml_node_t *at = group_value(ld, gpu, "max_tensor", key);

		if (t->peak_tensor[i] == 0)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, at, "'max_tensor.%s' is given, but "
				    "'peak_tensor.%s' is null (no such tensor path)", key, key);
		if (t->max_tensor[i] > t->peak_tensor[i] * 1.005)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, at, "'max_tensor.%s' (%g) is above "
				    "'peak_tensor.%s' (%g): a measured dense rate cannot exceed "
				    "the dense peak", key, t->max_tensor[i], key,
				    t->peak_tensor[i]);
	}
	return GPUPROJ_OK;
}

/*
 * host_link: the interface (a word of link_interfaces) and all five numbers
 * once the group is there; pageable rates cannot exceed pinned ones (a
 * pageable copy is staged through a pinned buffer).
 */
static int
parse_host_link(struct loader *ld, yaml_node_t *gpu, struct gpuproj_target *t, struct pathset *ps,
		const char *where)
{
	struct gpuproj_host_link *l = &t->host_link;
	/* The interface, then the numbers. */
	const struct target_field *m = members("host_link", 6), *num = m + 1;
	double v[5];
	yaml_node_t *map, *n;
	size_t i;
	int r;

	memset(l, 0, sizeof(*l));
	l->h2d_pinned_gbs = l->d2h_pinned_gbs = l->h2d_pageable_gbs = l->d2h_pageable_gbs = NAN;
	l->latency_us = NAN;
	map = ty_map_lookup(ld, gpu, "host_link", NULL);
	if (!map)
		return GPUPROJ_OK;
	r = ty_require_kind(ld, map, YAML_MAPPING_NODE, "host_link", "a mapping");
	if (r)
		return r;
	r = check_keys(ld, map, "host_link", "host_link");
	if (r)
		return r;
	n = ty_map_lookup(ld, map, target_field_key(&m[0]), NULL);
	if (!n)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, map, "host_link: missing required field '%s'",
			    target_field_key(&m[0]));
	if (n->type != YAML_SCALAR_NODE)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'host_link.interface' must be a word, not %s",
			    ty_node_kind(n));
	for (i = 0; i < ARRAY_LENGTH(link_interfaces); i++) {
		if (strcmp(ty_scalar(n), link_interfaces[i]) == 0)
			l->interface = link_interfaces[i];
	}
	if (!l->interface) {
		char words[160] = "";

		for (i = 0; i < ARRAY_LENGTH(link_interfaces); i++)
			snprintf(words + strlen(words), sizeof(words) - strlen(words), "%s%s",
				 i ? ", " : "", link_interfaces[i]);
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'host_link.interface' must be one of %s, "
			    "got '%s'", words, ty_scalar(n));
	}
	(void)where;
	for (i = 0; i < ARRAY_LENGTH(v); i++) {
		v[i] = NAN;
		n = ty_map_lookup(ld, map, target_field_key(&num[i]), NULL);
		if (!n && num[i].required)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, map, "host_link: missing required field '%s'",
				    target_field_key(&num[i]));
		if (!n)
			continue;
		r = ty_number_node(ld, n, &num[i], &v[i]);
		if (r)
			return r;
		pathset_add(ps, num[i].path, n);
	}
	l->h2d_pinned_gbs = v[0];
	l->d2h_pinned_gbs = v[1];
	l->h2d_pageable_gbs = v[2];
	l->d2h_pageable_gbs = v[3];
	l->latency_us = v[4];
	for (i = 0; i < 2; i++) {
		if (v[2 + i] > v[i])
			return ty_fail(ld, GPUPROJ_E_SCHEMA, group_value(ld, gpu, "host_link",
								     target_field_key(&num[2 + i])),
				    "'host_link.%s' (%g GB/s) cannot exceed 'host_link.%s' (%g GB/s): "
				    "a pageable copy is staged through pinned memory",
				    target_field_key(&num[2 + i]), v[2 + i],
				    target_field_key(&num[i]), v[i]);
	}
	return GPUPROJ_OK;
}

/* ---- sources ---- */

static bool
is_ref_char(int c)
{
	return isalnum(c) || c == '-' || c == '_';
}

static int
check_source_text(struct loader *ld, yaml_node_t *n, const char *path, enum gpuproj_basis *ret)
{
	const char *text = ty_scalar(n);
	const char *colon = strchr(text, ':');
	const char *p;
	size_t i, cites = 0;
	enum gpuproj_basis basis = GPUPROJ_BASIS_NONE;

	if (colon) {
		for (i = 1; i < ARRAY_LENGTH(basis_words); i++) {
			if ((size_t)(colon - text) == strlen(basis_words[i]) &&
			    strncmp(text, basis_words[i], strlen(basis_words[i])) == 0)
				basis = (enum gpuproj_basis)i;
		}
	}
	if (basis == GPUPROJ_BASIS_NONE)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n,
			    "source of '%s' must start with 'measured:', 'datasheet:', 'derived:' "
			    "or 'estimate:', got '%.40s'", path, text);
	for (p = text; (p = strchr(p, '[')) != NULL; p++) {
		const char *q = p + 1;
		char key[64];

		while (*q && is_ref_char((unsigned char)*q))
			q++;
		if (*q != ']' || q == p + 1 || (size_t)(q - p - 1) >= sizeof(key))
			continue; /* not a citation, e.g. "[1/2]" */
		memcpy(key, p + 1, (size_t)(q - p - 1));
		key[q - p - 1] = '\0';
		if (!has_reference(ld, key)) {
			const char *guess = NULL;

			guess = ty_nearest(key, (const char *const *)ld->set->ref_keys, ld->set->n_refs);
			if (guess)
				return ty_fail(ld, GPUPROJ_E_SCHEMA, n,
					    "source of '%s' cites [%s], which is not in 'references'; "
					    "did you mean [%s]?", path, key, guess);
			return ty_fail(ld, GPUPROJ_E_SCHEMA, n,
				    "source of '%s' cites [%s], which is not in 'references'", path,
				    key);
		}
		cites++;
	}
	if ((basis == GPUPROJ_BASIS_MEASURED || basis == GPUPROJ_BASIS_DATASHEET) && cites == 0)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n,
			    "source of '%s' is '%s' but cites no reference ([KEY])", path,
			    basis_words[basis]);
	*ret = basis;
	return GPUPROJ_OK;
}

/*
 * Is `path` a field path `sources` may name: a key of the entry (a number,
 * a group or a word; not `sources`) or a number of a group?
 */
static bool
known_path(const char *path)
{
	const struct target_field *f = target_field_find(path);

	if (!f)
		return false;
	return strchr(path, '.') ? target_field_is_number(f) : f->type != TF_SOURCES;
}

static int
parse_sources(struct loader *ld, yaml_node_t *gpu, struct gpuproj_target *t,
	      const struct pathset *ps, const char *where)
{
	yaml_node_t *map;
	yaml_node_pair_t *p;
	struct gpuproj_source *src;
	size_t n, i, c;
	int r;

	r = ty_field(ld, gpu, "sources", required("sources"), where, &map);
	if (r)
		return r;
	r = ty_require_kind(ld, map, YAML_MAPPING_NODE, "sources", "a mapping of path: \"BASIS: text\"");
	if (r)
		return r;
	n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	src = calloc(n ? n : 1, sizeof(*src));
	if (!src)
		return ty_fail(ld, GPUPROJ_E_NOMEM, map, "out of memory");
	t->sources = src;
	for (p = map->data.mapping.pairs.start, i = 0; p < map->data.mapping.pairs.top; p++, i++) {
		yaml_node_t *k = yaml_document_get_node(ld->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(ld->doc, p->value);
		const char *guess;
		bool present = false;
		size_t j;

		if (!k || k->type != YAML_SCALAR_NODE)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, k, "keys in sources must be field paths");
		for (j = 0; j < i; j++) {
			if (strcmp(src[j].path, ty_scalar(k)) == 0)
				return ty_fail(ld, GPUPROJ_E_SCHEMA, k, "duplicate key '%s' in sources",
					    ty_scalar(k));
		}
		if (!known_path(ty_scalar(k))) {
			/* The guesses: the entry's keys, then the groups' numbers. */
			const char *all[TARGET_FIELDS_MAX];
			const struct target_field *f;
			size_t na = target_field_keys(NULL, all, ARRAY_LENGTH(all)), nf, g;

			f = target_fields(&nf);
			for (g = 0; g < nf && na < ARRAY_LENGTH(all); g++) {
				if (strchr(f[g].path, '.') && target_field_is_number(&f[g]))
					all[na++] = f[g].path;
			}
			guess = ty_nearest(ty_scalar(k), all, na);
			if (guess)
				return ty_fail(ld, GPUPROJ_E_SCHEMA, k,
					    "unknown field path '%s' in sources; did you mean '%s'?",
					    ty_scalar(k), guess);
			return ty_fail(ld, GPUPROJ_E_SCHEMA, k, "unknown field path '%s' in sources",
				    ty_scalar(k));
		}
		for (j = 0; j < ps->n; j++) {
			size_t lk = strlen(ty_scalar(k));

			if (strcmp(ps->paths[j], ty_scalar(k)) == 0 ||
			    (strncmp(ps->paths[j], ty_scalar(k), lk) == 0 && ps->paths[j][lk] == '.'))
				present = true;
		}
		if (!present)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, k,
				    "source given for '%s', but the entry has no such value", ty_scalar(k));
		if (!v || v->type != YAML_SCALAR_NODE || ty_is_null(v))
			return ty_fail(ld, GPUPROJ_E_SCHEMA, v ? v : k,
				    "source of '%s' must be a string \"BASIS: text\"", ty_scalar(k));
		src[i].path = strdup(ty_scalar(k));
		src[i].text = strdup(ty_scalar(v));
		t->n_sources = i + 1;
		if (!src[i].path || !src[i].text)
			return ty_fail(ld, GPUPROJ_E_NOMEM, v, "out of memory");
		r = check_source_text(ld, v, ty_scalar(k), &src[i].basis);
		if (r)
			return r;
	}
	/* Every number must be covered. */
	for (c = 0; c < ps->n; c++) {
		if (!gpuproj_target_source(t, ps->paths[c]))
			return ty_fail(ld, GPUPROJ_E_SCHEMA, ps->nodes[c],
				    "'%s' of '%s' has no source: add '%s' (or its group) to 'sources'",
				    ps->paths[c], t->name, ps->paths[c]);
	}
	return GPUPROJ_OK;
}

/* ---- one GPU ---- */

static int
parse_match(struct loader *ld, yaml_node_t *gpu, struct gpuproj_target *t, const char *where)
{
	yaml_node_t *seq;
	yaml_node_item_t *it;
	char **list;
	size_t n, i = 0;
	int r = ty_field(ld, gpu, "match", required("match"), where, &seq);

	if (r)
		return r;
	r = ty_require_kind(ld, seq, YAML_SEQUENCE_NODE, "match", "a list of device names");
	if (r)
		return r;
	n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	list = calloc(n + 1, sizeof(*list));
	if (!list)
		return ty_fail(ld, GPUPROJ_E_NOMEM, seq, "out of memory");
	t->match = (const char *const *)list;
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
		yaml_node_t *s = yaml_document_get_node(ld->doc, *it);

		if (!s || s->type != YAML_SCALAR_NODE || ty_is_null(s) || !*ty_scalar(s))
			return ty_fail(ld, GPUPROJ_E_SCHEMA, s ? s : seq,
				    "'match' entries must be non-empty strings");
		list[i] = strdup(ty_scalar(s));
		if (!list[i])
			return ty_fail(ld, GPUPROJ_E_NOMEM, s, "out of memory");
		t->n_match = ++i;
	}
	return GPUPROJ_OK;
}

static bool
valid_name(const char *s)
{
	for (; *s; s++) {
		if (!isalnum((unsigned char)*s) && !strchr("._+-", *s))
			return false;
	}
	return true;
}

static int
parse_arch(struct loader *ld, yaml_node_t *node, struct gpuproj_target *t)
{
	const char *a = t->arch;

	if (t->vendor == GPUPROJ_VENDOR_NVIDIA) {
		if (strncmp(a, "sm_", 3) != 0 || !isdigit((unsigned char)a[3]) ||
		    !isdigit((unsigned char)a[strlen(a) - 1]) || strlen(a) < 5 || strlen(a) > 7)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, node,
				    "'arch' of an NVIDIA GPU must be sm_XY (compute capability X.Y), "
				    "got '%s'", a);
		{
			int v = atoi(a + 3);

			t->cc_major = v / 10;
			t->cc_minor = v % 10;
		}
	} else {
		if (strncmp(a, "gfx", 3) != 0 || strlen(a) < 4)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, node,
				    "'arch' of an AMD GPU must be gfxNNN, got '%s'", a);
		t->cc_major = t->cc_minor = 0;
	}
	return GPUPROJ_OK;
}

/* limits: every member (they are all required), in struct gpuproj_target_limits order. */
static int
parse_limits(struct loader *ld, yaml_node_t *gpu, struct gpuproj_target *t, struct pathset *ps,
	     const char *where)
{
	struct gpuproj_target_limits *L = &t->limits;
	int *const ints[] = {
		&L->threads_per_sm, &L->threads_per_block, &L->blocks_per_sm, &L->regs_per_sm,
		&L->regs_per_block, &L->regs_per_thread, &L->reg_alloc_unit, &L->smem_per_sm_kib,
		&L->smem_per_block_kib, &L->smem_alloc_unit_b, &L->smem_reserved_per_block_b,
	};
	/* The integers, then l2_mib. */
	const struct target_field *m = members("limits", ARRAY_LENGTH(ints) + 1);
	yaml_node_t *map;
	size_t i;
	int r = ty_field(ld, gpu, "limits", required("limits"), where, &map);

	if (r)
		return r;
	r = ty_require_kind(ld, map, YAML_MAPPING_NODE, "limits", "a mapping");
	if (r)
		return r;
	r = check_keys(ld, map, "limits", "limits");
	if (r)
		return r;
	for (i = 0; i <= ARRAY_LENGTH(ints); i++) {
		yaml_node_t *v = ty_map_lookup(ld, map, target_field_key(&m[i]), NULL);

		if (!v)
			return ty_fail(ld, GPUPROJ_E_SCHEMA, map, "limits: missing required field '%s'",
				    target_field_key(&m[i]));
		assert((m[i].type == TF_INT) == (i < ARRAY_LENGTH(ints)));
		if (i < ARRAY_LENGTH(ints))
			r = ty_integer_node(ld, v, &m[i], ints[i]);
		else
			r = ty_number_node(ld, v, &m[i], &L->l2_mib);
		if (r)
			return r;
		pathset_add(ps, m[i].path, v);
	}
	return GPUPROJ_OK;
}

/*
 * The numbers of the entry itself, in table order, into their members of
 * *t: the nullable ones (price_usd, tdp_w: null when unknown, and then
 * without a source) or the others.
 */
static int
entry_numbers(struct loader *ld, yaml_node_t *gpu, struct gpuproj_target *t, bool nullable,
	      struct pathset *ps, const char *where)
{
	const struct target_field *f;
	size_t nf, i;

	f = target_fields(&nf);
	for (i = 0; i < nf; i++) {
		char *at = (char *)t + f[i].offset;
		yaml_node_t *n;
		int r;

		if (strchr(f[i].path, '.') || !target_field_is_number(&f[i]) ||
		    (f[i].type == TF_NULLABLE) != nullable)
			continue;
		assert(f[i].offset);
		r = ty_field(ld, gpu, f[i].path, f[i].required, where, &n);
		if (r)
			return r;
		if (!n)
			continue;
		if (f[i].type == TF_INT)
			r = ty_integer_node(ld, n, &f[i], (int *)(void *)at);
		else
			r = ty_number_node(ld, n, &f[i], (double *)(void *)at);
		if (r)
			return r;
		if (f[i].type != TF_NULLABLE || !isnan(*(double *)(void *)at))
			pathset_add(ps, f[i].path, n);
	}
	return GPUPROJ_OK;
}

static int
parse_gpu(struct loader *ld, yaml_node_t *gpu, struct gpuproj_target *t)
{
	struct pathset ps = { .n = 0 };
	char where[160];
	char *vendor = NULL;
	yaml_node_t *n, *keynode = NULL;
	double v[2 * GPUPROJ_PREC_COUNT];
	size_t i;
	int r;

	t->line = (int)gpu->start_mark.line + 1;
	if (gpu->type != YAML_MAPPING_NODE)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, gpu, "each entry of 'gpus' must be a mapping, not %s",
			    ty_node_kind(gpu));
	r = ty_get_string(ld, gpu, "name", required("name"), "GPU entry", (char **)&t->name);
	if (r)
		return r;
	n = ty_map_lookup(ld, gpu, "name", &keynode);
	if (!valid_name(t->name))
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n,
			    "'name' may only hold letters, digits, '.', '_', '+' and '-', got '%s'",
			    t->name);
	snprintf(where, sizeof(where), "GPU '%s'", t->name);
	r = check_keys(ld, gpu, NULL, where);
	if (r)
		return r;
	r = ty_get_string(ld, gpu, "description", required("description"), where,
			  (char **)&t->description);
	if (r)
		return r;
	r = parse_match(ld, gpu, t, where);
	if (r)
		return r;
	r = ty_get_string(ld, gpu, "vendor", required("vendor"), where, &vendor);
	if (r)
		return r;
	n = ty_map_lookup(ld, gpu, "vendor", NULL);
	if (strcmp(vendor, "nvidia") == 0) {
		t->vendor = GPUPROJ_VENDOR_NVIDIA;
	} else if (strcmp(vendor, "amd") == 0) {
		t->vendor = GPUPROJ_VENDOR_AMD;
	} else {
		r = ty_fail(ld, GPUPROJ_E_SCHEMA, n, "'vendor' must be 'nvidia' or 'amd', got '%s'",
			 vendor);
		free(vendor);
		return r;
	}
	free(vendor);
	r = ty_get_string(ld, gpu, "arch", required("arch"), where, (char **)&t->arch);
	if (r)
		return r;
	r = parse_arch(ld, ty_map_lookup(ld, gpu, "arch", NULL), t);
	if (r)
		return r;
	r = ty_get_string(ld, gpu, "chip", required("chip"), where, (char **)&t->chip);
	if (r)
		return r;

	t->ipc_per_scheduler = 1.0;
	t->boost_clock_mhz = NAN;
	t->boost_hold_us = NAN;
	t->fp32_dense_gflops = NAN;
	t->sustained_clock_mhz = NAN;
	t->fp32_loop_gflops = NAN;
	t->memory_gib = NAN;
	t->ldst_shared_gops = NAN;
	r = entry_numbers(ld, gpu, t, false, &ps, where);
	if (r)
		return r;
	r = parse_limits(ld, gpu, t, &ps, where);
	if (r)
		return r;

	/* peak_gflops: FMA of every precision required; ADD/MUL defaults to FMA/2. */
	r = number_group(ld, gpu, "peak_gflops", v, ARRAY_LENGTH(v), &ps, where);
	if (r)
		return r;
	for (i = 0; i < GPUPROJ_PREC_COUNT; i++) {
		t->peak_gflops[i][GPUPROJ_OP_FMA] = v[2 * i];
		t->peak_gflops[i][GPUPROJ_OP_ADD_MUL] = isnan(v[2 * i + 1]) ? v[2 * i] / 2 : v[2 * i + 1];
		t->peak_add_mul_given[i] = !isnan(v[2 * i + 1]);
	}
	r = number_group(ld, gpu, "max_gflops", v, ARRAY_LENGTH(v), &ps, where);
	if (r)
		return r;
	for (i = 0; i < GPUPROJ_PREC_COUNT; i++) {
		t->max_gflops[i][GPUPROJ_OP_FMA] = v[2 * i];
		t->max_gflops[i][GPUPROJ_OP_ADD_MUL] = isnan(v[2 * i + 1]) ? v[2 * i] / 2 : v[2 * i + 1];
		t->max_add_mul_given[i] = !isnan(v[2 * i + 1]);
	}
	/* What FFMA-dense code reaches cannot beat the FMA peak (as max_tensor, its peak). */
	if (t->fp32_dense_gflops > t->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA] * 1.005)
		return ty_fail(ld, GPUPROJ_E_SCHEMA,
			       ty_map_lookup(ld, gpu, "fp32_dense_gflops", NULL),
			       "'fp32_dense_gflops' (%g) is above 'peak_gflops.fp32_fma' (%g): "
			       "no code runs faster than the FMA peak", t->fp32_dense_gflops,
			       t->peak_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA]);
	r = number_group(ld, gpu, "peak_giops", v, 2, &ps, where);
	if (r)
		return r;
	t->int32_add_giops = v[0];
	t->int32_mad_giops = v[1];
	r = number_group(ld, gpu, "peak_bw_gbs", &t->peak_dram_gbs, 1, &ps, where);
	if (r)
		return r;
	r = number_group(ld, gpu, "bw_gbs", t->bw_gbs, GPUPROJ_LEVEL_COUNT, &ps, where);
	if (r)
		return r;
	r = parse_rates(ld, gpu, t, &ps, where);
	if (r)
		return r;
	r = parse_tensor(ld, gpu, t, &ps, where);
	if (r)
		return r;
	r = parse_host_link(ld, gpu, t, &ps, where);
	if (r)
		return r;

	/* price and power: required keys, null allowed. */
	r = entry_numbers(ld, gpu, t, true, &ps, where);
	if (r)
		return r;
	return parse_sources(ld, gpu, t, &ps, where);
}

/* ---- top level ---- */

static int
parse_references(struct loader *ld, yaml_node_t *root)
{
	yaml_node_t *map;
	yaml_node_pair_t *p;
	size_t n, i = 0;
	int r = ty_field(ld, root, "references", true, "top level", &map);

	if (r)
		return r;
	r = ty_require_kind(ld, map, YAML_MAPPING_NODE, "references", "a mapping KEY: citation");
	if (r)
		return r;
	n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	ld->set->ref_keys = calloc(n + 1, sizeof(char *));
	ld->set->ref_texts = calloc(n + 1, sizeof(char *));
	if (!ld->set->ref_keys || !ld->set->ref_texts)
		return ty_fail(ld, GPUPROJ_E_NOMEM, map, "out of memory");
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++, i++) {
		yaml_node_t *k = yaml_document_get_node(ld->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(ld->doc, p->value);
		const char *s;

		if (!k || k->type != YAML_SCALAR_NODE || !*ty_scalar(k))
			return ty_fail(ld, GPUPROJ_E_SCHEMA, k ? k : map, "reference keys must be strings");
		for (s = ty_scalar(k); *s; s++) {
			if (!is_ref_char((unsigned char)*s))
				return ty_fail(ld, GPUPROJ_E_SCHEMA, k,
					    "reference key '%s' may only hold letters, digits, '-' "
					    "and '_'", ty_scalar(k));
		}
		if (!v || v->type != YAML_SCALAR_NODE || ty_is_null(v) || !*ty_scalar(v))
			return ty_fail(ld, GPUPROJ_E_SCHEMA, v ? v : k,
				    "reference '%s' must be a non-empty citation string", ty_scalar(k));
		ld->set->ref_keys[i] = strdup(ty_scalar(k));
		ld->set->ref_texts[i] = strdup(ty_scalar(v));
		ld->set->n_refs = i + 1;
		if (!ld->set->ref_keys[i] || !ld->set->ref_texts[i])
			return ty_fail(ld, GPUPROJ_E_NOMEM, v, "out of memory");
	}
	/*
	 * Duplicates, found by sorting (a file may hold many references): the
	 * one reported is the first repeated key in file order, as before.
	 */
	{
		struct ref_at *order = malloc((n ? n : 1) * sizeof(*order));
		size_t dup = SIZE_MAX;

		ld->refs_sorted = malloc((n ? n : 1) * sizeof(*ld->refs_sorted));
		if (!order || !ld->refs_sorted) {
			free(order);
			return ty_fail(ld, GPUPROJ_E_NOMEM, map, "out of memory");
		}
		for (i = 0; i < n; i++) {
			order[i].key = ld->set->ref_keys[i];
			order[i].index = i;
		}
		qsort(order, n, sizeof(*order), cmp_ref_at);
		for (i = 0; i < n; i++) {
			ld->refs_sorted[i] = order[i].key;
			/* Within a key, by position: [i] is a later occurrence of [i - 1]'s key. */
			if (i && strcmp(order[i - 1].key, order[i].key) == 0 && order[i].index < dup &&
			    (i < 2 || strcmp(order[i - 2].key, order[i].key) != 0))
				dup = order[i].index;
		}
		free(order);
		if (dup != SIZE_MAX) {
			p = map->data.mapping.pairs.start + dup;
			return ty_fail(ld, GPUPROJ_E_SCHEMA, yaml_document_get_node(ld->doc, p->key),
				    "duplicate reference key '%s'", ld->set->ref_keys[dup]);
		}
	}
	return GPUPROJ_OK;
}

/* A GPU name (kind 0) or match string (kind 1), normalised for comparison. */
struct uniq_entry {
	int kind;
	char *norm;	/* lowercase; a match string also trimmed */
	size_t gpu, item;
};

static int
cmp_uniq(const void *a, const void *b)
{
	const struct uniq_entry *x = a, *y = b;
	int c;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	if ((c = strcmp(x->norm, y->norm)) != 0)
		return c;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	return x->item < y->item ? -1 : x->item > y->item;
}

static char *
normalise(const char *s, bool trim)
{
	size_t len, i;
	char *out;

	if (trim) {
		while (isspace((unsigned char)*s))
			s++;
	}
	len = strlen(s);
	while (trim && len && isspace((unsigned char)s[len - 1]))
		len--;
	out = malloc(len + 1);
	if (!out)
		return NULL;
	for (i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[len] = '\0';
	return out;
}

/*
 * No two GPUs share a name (case-insensitive) or a match string (also
 * ignoring surrounding blanks). By sorting, so a file with many GPUs and
 * match strings is checked in O(n log n); the problem reported is the one
 * a pairwise scan in file order finds first: the earliest GPU that repeats
 * an earlier one's name or match string, against the earliest such GPU,
 * its name before its match strings.
 */
static int
check_unique(struct loader *ld, yaml_node_t *seq)
{
	struct gpuproj_targets *s = ld->set;
	struct uniq_entry *e, best = { .gpu = SIZE_MAX };
	size_t n = s->n, i, a, g, best_b = 0;
	int r = GPUPROJ_OK;

	for (i = 0; i < s->n; i++)
		n += s->gpus[i].n_match;
	e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return ty_fail(ld, GPUPROJ_E_NOMEM, seq, "out of memory");
	for (i = 0, n = 0; i < s->n; i++) {
		e[n++] = (struct uniq_entry){ 0, normalise(s->gpus[i].name, false), i, 0 };
		for (a = 0; a < s->gpus[i].n_match; a++)
			e[n++] = (struct uniq_entry){ 1, normalise(s->gpus[i].match[a], true), i, a };
	}
	for (i = 0; i < n; i++) {
		if (!e[i].norm) {
			r = ty_fail(ld, GPUPROJ_E_NOMEM, seq, "out of memory");
			goto out;
		}
	}
	qsort(e, n, sizeof(*e), cmp_uniq);
	for (i = 0; i < n; i = g) {
		size_t first = i, second = SIZE_MAX;

		for (g = i + 1; g < n && e[g].kind == e[i].kind && strcmp(e[g].norm, e[i].norm) == 0;
		     g++) {
			if (second == SIZE_MAX && e[g].gpu != e[first].gpu)
				second = g;
		}
		if (second == SIZE_MAX)
			continue;
		/* Candidate: GPU e[second].gpu repeats GPU e[first].gpu. */
		if (e[second].gpu < best.gpu ||
		    (e[second].gpu == best.gpu &&
		     (e[first].gpu < best_b ||
		      (e[first].gpu == best_b &&
		       (e[second].kind < best.kind ||
			(e[second].kind == best.kind && e[second].item < best.item)))))) {
			best = e[second];
			best.norm = NULL;
			best_b = e[first].gpu;
		}
	}
	if (best.gpu != SIZE_MAX) {
		const struct gpuproj_target *ti = &s->gpus[best.gpu], *tj = &s->gpus[best_b];
		yaml_node_t *node = yaml_document_get_node(ld->doc,
							   seq->data.sequence.items.start[best.gpu]);

		if (best.kind == 0)
			r = ty_fail(ld, GPUPROJ_E_SCHEMA, ty_map_lookup(ld, node, "name", NULL),
				 "duplicate GPU name '%s' (first defined at line %d)", ti->name,
				 tj->line);
		else
			r = ty_fail(ld, GPUPROJ_E_SCHEMA, ty_map_lookup(ld, node, "match", NULL),
				 "match string '%s' of '%s' is already used by '%s' (line %d)",
				 ti->match[best.item], ti->name, tj->name, tj->line);
	}
out:
	for (i = 0; i < n; i++)
		free(e[i].norm);
	free(e);
	return r;
}

static int
parse_root(struct loader *ld, yaml_node_t *root)
{
	yaml_node_t *n, *seq;
	yaml_node_item_t *it;
	size_t count, i = 0;
	int r;

	if (!root)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, NULL, "empty file: expected 'schema', 'references' "
			    "and 'gpus'");
	if (root->type != YAML_MAPPING_NODE)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, root, "the top level must be a mapping, not %s",
			    ty_node_kind(root));
	r = ty_check_keys(ld, root, top_keys, ARRAY_LENGTH(top_keys), "the top level");
	if (r)
		return r;
	r = ty_field(ld, root, "schema", true, "top level", &n);
	if (r)
		return r;
	if (n->type != YAML_SCALAR_NODE || strcmp(ty_scalar(n), GPUPROJ_TARGETS_SCHEMA) != 0)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, n,
			    "unknown schema version '%s': this gpuproj reads '%s'",
			    n->type == YAML_SCALAR_NODE ? ty_scalar(n) : ty_node_kind(n),
			    GPUPROJ_TARGETS_SCHEMA);
	r = parse_references(ld, root);
	if (r)
		return r;
	r = ty_field(ld, root, "gpus", true, "top level", &seq);
	if (r)
		return r;
	r = ty_require_kind(ld, seq, YAML_SEQUENCE_NODE, "gpus", "a list of GPU entries");
	if (r)
		return r;
	count = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	if (count == 0)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, seq, "'gpus' is empty");
	ld->set->gpus = calloc(count, sizeof(*ld->set->gpus));
	if (!ld->set->gpus)
		return ty_fail(ld, GPUPROJ_E_NOMEM, seq, "out of memory");
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, i++) {
		ld->set->n = i + 1;
		r = parse_gpu(ld, yaml_document_get_node(ld->doc, *it), &ld->set->gpus[i]);
		if (r)
			return r;
	}
	return check_unique(ld, seq);
}

static void
target_free_fields(struct gpuproj_target *t)
{
	size_t i;

	free((char *)t->name);
	free((char *)t->description);
	free((char *)t->arch);
	free((char *)t->chip);
	for (i = 0; i < t->n_match; i++)
		free((char *)t->match[i]);
	free((void *)t->match);
	for (i = 0; i < t->n_sources; i++) {
		free((char *)t->sources[i].path);
		free((char *)t->sources[i].text);
	}
	free((void *)t->sources);
	free((char *)t->derived_from);
}

int
target_mark_provisional(struct gpuproj_targets *s, const char *derived_from)
{
	char *copy = strdup(derived_from);

	if (!copy || s->n != 1) {
		free(copy);
		return GPUPROJ_E_NOMEM;
	}
	s->gpus[0].provisional = GPUPROJ_BASIS_DEVICE;
	s->gpus[0].derived_from = copy;
	return GPUPROJ_OK;
}

struct gpuproj_targets *
gpuproj_targets_free(struct gpuproj_targets *s)
{
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < s->n; i++)
		target_free_fields(&s->gpus[i]);
	free(s->gpus);
	for (i = 0; i < s->n_refs; i++) {
		free(s->ref_keys[i]);
		free(s->ref_texts[i]);
	}
	free(s->ref_keys);
	free(s->ref_texts);
	free(s);
	return NULL;
}

/*
 * The guard before libyaml builds a document (target-yaml.h): the text is at
 * most TARGETS_MAX_BYTES (unless the input limit was raised explicitly)
 * and nests flow collections ([ ], { }) at most TARGETS_MAX_DEPTH deep.
 * libyaml's scanner checks every open flow level for stale simple keys on
 * every token, so 200,000 nested '[' took 96 s; its token scanner is cheap
 * while the depth stays small, so the depth is measured with it, stopping
 * at the first token beyond the limit (quotes, comments and block scalars
 * are the scanner's business, not a second lexer's). Block nesting needs
 * indentation and is bounded by the size. docs/targets-schema.md "Limits".
 */
#define TARGETS_MAX_BYTES ((uint64_t)8 << 20)
#define TARGETS_MAX_DEPTH 64

int
ty_guard(const char *text, size_t len, const char *file, const char *what, bool builtin,
	 struct gpuproj_error *err)
{
	yaml_parser_t parser;
	yaml_token_t token;
	uint64_t max = UINT64_MAX;
	bool raised;
	int depth = 0, r = GPUPROJ_OK;

	/*
	 * The built-in copy is compiled in, not an input: no size limit (a bad
	 * or tiny GPUPROJ_MAX_INPUT_SIZE in an application's environment must
	 * not take the built-in targets from libproj.so).
	 */
	if (!builtin) {
		r = file_input_limit(&max, &raised, err);
		if (r)
			return r;
		if (!raised && max > TARGETS_MAX_BYTES)
			max = TARGETS_MAX_BYTES;
	}
	if (len > max) {
		char a[32], b[32];

		return error_set(err, GPUPROJ_E_LIMIT, file, 0, 0, "is %s, larger than the limit "
				 "of %s for %s (raise it with --max-input-size or "
				 "GPUPROJ_MAX_INPUT_SIZE)", format_bytes(len, a, sizeof(a)),
				 format_bytes(max, b, sizeof(b)), what);
	}
	if (!yaml_parser_initialize(&parser))
		return error_set(err, GPUPROJ_E_NOMEM, file, 0, 0, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_scan(&parser, &token))
			break; /* the loader reports the syntax error with its position */
		if (token.type == YAML_FLOW_SEQUENCE_START_TOKEN ||
		    token.type == YAML_FLOW_MAPPING_START_TOKEN) {
			if (++depth > TARGETS_MAX_DEPTH)
				r = error_set(err, GPUPROJ_E_LIMIT, file,
					      (int)token.start_mark.line + 1,
					      (int)token.start_mark.column + 1,
					      "YAML nested more than %d levels deep ([ and { "
					      "inside each other)", TARGETS_MAX_DEPTH);
		} else if (token.type == YAML_FLOW_SEQUENCE_END_TOKEN ||
			   token.type == YAML_FLOW_MAPPING_END_TOKEN) {
			if (depth > 0)
				depth--;
		}
		if (token.type == YAML_STREAM_END_TOKEN || r) {
			yaml_token_delete(&token);
			break;
		}
		yaml_token_delete(&token);
	}
	yaml_parser_delete(&parser);
	return r;
}

static int
load_buffer(const char *text, size_t len, const char *name, bool builtin,
	    struct gpuproj_targets **ret, struct gpuproj_error *reterr)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct loader ld = { .file = name ? name : "<buffer>", .err = reterr };
	int r;

	if (!text || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, ld.file, 0, 0, "invalid argument");
	r = ty_guard(text, len, ld.file, "a targets file", builtin, reterr);
	if (r)
		return r;
	if (!yaml_parser_initialize(&parser))
		return error_set(reterr, GPUPROJ_E_NOMEM, ld.file, 0, 0, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		r = error_set(reterr, GPUPROJ_E_PARSE, ld.file, (int)parser.problem_mark.line + 1,
			      (int)parser.problem_mark.column + 1, "YAML syntax error: %s%s%s",
			      parser.problem ? parser.problem : "unknown problem",
			      parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return r;
	}
	ld.doc = &doc;
	ld.set = calloc(1, sizeof(*ld.set));
	if (!ld.set) {
		r = error_set(reterr, GPUPROJ_E_NOMEM, ld.file, 0, 0, "out of memory");
	} else {
		r = parse_root(&ld, yaml_document_get_root_node(&doc));
		/* A second document in the stream is not part of the schema. */
		if (r == GPUPROJ_OK) {
			yaml_document_t doc2;

			if (yaml_parser_load(&parser, &doc2)) {
				yaml_node_t *root2 = yaml_document_get_root_node(&doc2);

				if (root2)
					r = ty_fail(&ld, GPUPROJ_E_SCHEMA, root2,
						 "more than one YAML document in the file");
				yaml_document_delete(&doc2);
			}
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	free(ld.refs_sorted);
	if (r) {
		gpuproj_targets_free(ld.set);
		return r;
	}
	*ret = ld.set;
	return GPUPROJ_OK;
}

int
gpuproj_targets_load_buffer(const char *text, size_t len, const char *name,
			    struct gpuproj_targets **ret, struct gpuproj_error *reterr)
{
	return load_buffer(text, len, name, false, ret, reterr);
}

int
gpuproj_targets_load(const char *path, struct gpuproj_targets **ret, struct gpuproj_error *reterr)
{
	char *text;
	size_t len;
	int r;

	if (!path || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	{
		uint64_t max;
		bool raised;

		r = file_input_limit(&max, &raised, reterr);
		if (!r)
			r = file_read_limited(path, raised ? 0 : TARGETS_MAX_BYTES, "a targets file",
					      &text, &len, reterr);
	}
	if (r)
		return r;
	r = gpuproj_targets_load_buffer(text, len, path, ret, reterr);
	free(text);
	return r;
}

/* Generated at build time from the repository's targets.yaml. */
extern const char gpuproj_builtin_targets[];
extern const size_t gpuproj_builtin_targets_len;

int
gpuproj_targets_load_builtin(struct gpuproj_targets **ret, struct gpuproj_error *reterr)
{
	return load_buffer(gpuproj_builtin_targets, gpuproj_builtin_targets_len,
			   "targets.yaml (built-in)", true, ret, reterr);
}

int
gpuproj_targets_load_default(const char *path, struct gpuproj_targets **ret,
			     const char **ret_origin, struct gpuproj_error *reterr)
{
	const char *env = getenv("GPUPROJ_TARGETS");

	if (path) {
		if (ret_origin)
			*ret_origin = path;
		return gpuproj_targets_load(path, ret, reterr);
	}
	if (env && *env) {
		if (ret_origin)
			*ret_origin = env;
		return gpuproj_targets_load(env, ret, reterr);
	}
	if (ret_origin)
		*ret_origin = "built-in";
	return gpuproj_targets_load_builtin(ret, reterr);
}

/* ---- what the loader looks up in the set it builds ---- */

const char *
gpuproj_targets_reference(const struct gpuproj_targets *s, const char *key)
{
	size_t i;

	if (!s || !key)
		return NULL;
	for (i = 0; i < s->n_refs; i++) {
		if (strcmp(s->ref_keys[i], key) == 0)
			return s->ref_texts[i];
	}
	return NULL;
}

const struct gpuproj_source *
gpuproj_target_source(const struct gpuproj_target *t, const char *path)
{
	char buf[96];
	size_t i;

	if (!t || !path)
		return NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		char *dot;

		for (i = 0; i < t->n_sources; i++) {
			if (strcmp(t->sources[i].path, buf) == 0)
				return &t->sources[i];
		}
		dot = strrchr(buf, '.');
		if (!dot)
			return NULL;
		*dot = '\0';
	}
}

/* ---- names of the enumerations: the keys of the groups they index ---- */

/* The key of member `i` of `group`, or NULL. */
static const char *
member_key(const char *group, size_t i)
{
	size_t n;
	const struct target_field *m = target_field_members(group, &n);

	return i < n ? target_field_key(&m[i]) : NULL;
}

const char *
gpuproj_tensor_prec_key(enum gpuproj_tensor_prec p)
{
	return member_key("peak_tensor", (unsigned)p);
}

const char *
gpuproj_tensor_prec_name(enum gpuproj_tensor_prec p)
{
	static const char *const names[GPUPROJ_TPREC_COUNT] = {
		"fp16", "fp16_acc16", "bf16", "tf32", "fp8", "fp4", "int8", "fp64",
	};

	return (unsigned)p < GPUPROJ_TPREC_COUNT ? names[p] : NULL;
}

const char *
gpuproj_lane_name(enum gpuproj_lane lane)
{
	const char *key = member_key("lanes_per_sm", (unsigned)lane);

	return key ? key : "?";
}

const char *
gpuproj_stream_name(enum gpuproj_stream k)
{
	const char *key = member_key("stream_gbs", (unsigned)k);

	return key ? key : "?";
}

const char *
gpuproj_launch_mode_name(enum gpuproj_launch_mode m)
{
	const char *key = member_key("launch_floor_us", (unsigned)m);

	return key ? key : "?";
}

const char *
gpuproj_basis_name(enum gpuproj_basis b)
{
	if ((size_t)b < ARRAY_LENGTH(basis_words))
		return basis_words[b];
	return "?";
}
