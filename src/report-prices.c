/* SPDX-License-Identifier: MIT */
/*
 * Price quotes for the procurement report (gpuproj_report_prices_load(),
 * include/gpuproj/report.h): a CSV file through import-common.c's libcsv
 * reader (positions of every cell) or a YAML file through libyaml with
 * targets.yaml's guards (target-yaml.h). One table names the two prices
 * (the CSV columns and the YAML keys); every error names file:line:column.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include <gpuproj/report.h>

#include "import-common.h"
#include "target-yaml.h"
#include "util.h"

/* Prices of 10⁹ USD or more are refused: no GPU costs that, a typo does. */
#define PRICE_MAX_USD 1e9

/* The prices a quote has: CSV columns and YAML keys alike. */
enum { P_PURCHASE, P_HOURLY, P_COUNT };
static const char *const price_keys[P_COUNT] = { "purchase_usd", "hourly_usd" };

struct gpuproj_report_prices {
	struct gpuproj_report_price *q;
	size_t n;
	const struct gpuproj_target **tgt; /* [n] the GPU each names, for duplicates */
	int *line;                         /* [n] its line, for duplicates */
};

struct gpuproj_report_prices *
gpuproj_report_prices_free(struct gpuproj_report_prices *p)
{
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < p->n; i++) {
		free((char *)p->q[i].name);
		free((char *)p->q[i].origin);
	}
	free(p->q);
	free(p->tgt);
	free(p->line);
	free(p);
	return NULL;
}

const struct gpuproj_report_price *
gpuproj_report_prices_get(const struct gpuproj_report_prices *p, size_t *ret_n)
{
	if (ret_n)
		*ret_n = p ? p->n : 0;
	return p ? p->q : NULL;
}

/* A price cell or scalar: a number in (0, PRICE_MAX_USD). */
static int
parse_price(const char *s, const char *file, int line, int col, const char *what, double *ret,
	    struct gpuproj_error *err)
{
	double v;

	if (!parse_double(s, &v) || !isfinite(v) || !(v > 0))
		return error_set(err, GPUPROJ_E_SCHEMA, file, line, col, "%s '%s' is not a "
				 "number > 0 (USD)", what, s);
	if (v >= PRICE_MAX_USD)
		return error_set(err, GPUPROJ_E_LIMIT, file, line, col, "%s %g USD is not below "
				 "%g USD", what, v, PRICE_MAX_USD);
	*ret = v;
	return GPUPROJ_OK;
}

/* Append a quote for `name` (checked against targets, once each). */
static int
add_quote(struct gpuproj_report_prices *p, const struct gpuproj_targets *targets, const char *name,
	  const double v[P_COUNT], const char *file, int line, int col, struct gpuproj_error *err)
{
	static const struct gpuproj_lookup_words words = { .what = "GPU" };
	const struct gpuproj_target *t;
	struct gpuproj_error e = { 0 };
	struct gpuproj_report_price *q;
	size_t i;
	int r;

	if (!*name)
		return error_set(err, GPUPROJ_E_SCHEMA, file, line, col, "a quote has no GPU name");
	r = gpuproj_targets_lookup(targets, name, &words, &t, &e);
	if (r)
		return error_set(err, r, file, line, col, "%s", e.message);
	for (i = 0; i < p->n; i++) {
		if (p->tgt[i] == t)
			return error_set(err, GPUPROJ_E_SCHEMA, file, line, col,
					 "%s is quoted twice (first at line %d)", t->name,
					 p->line[i]);
	}
	if (isnan(v[P_PURCHASE]) && isnan(v[P_HOURLY]))
		return error_set(err, GPUPROJ_E_SCHEMA, file, line, col, "the quote for %s gives "
				 "no price (%s or %s)", name, price_keys[P_PURCHASE],
				 price_keys[P_HOURLY]);
	q = realloc(p->q, (p->n + 1) * sizeof(*p->q));
	if (q)
		p->q = q;
	p->tgt = realloc(p->tgt, (p->n + 1) * sizeof(*p->tgt));
	p->line = realloc(p->line, (p->n + 1) * sizeof(*p->line));
	if (!q || !p->tgt || !p->line)
		return error_set(err, GPUPROJ_E_NOMEM, file, 0, 0, "out of memory");
	q = &p->q[p->n];
	memset(q, 0, sizeof(*q));
	q->purchase_usd = v[P_PURCHASE];
	q->hourly_usd = v[P_HOURLY];
	q->name = xstrdup(name);
	q->origin = xasprintf("%s:%d", file, line);
	p->tgt[p->n] = t;
	p->line[p->n] = line;
	p->n++;
	if (!q->name || !q->origin)
		return error_set(err, GPUPROJ_E_NOMEM, file, 0, 0, "out of memory");
	return GPUPROJ_OK;
}

/* ---- CSV ---- */

static int
load_csv(const char *text, size_t len, const char *path, const struct gpuproj_targets *targets,
	 struct gpuproj_report_prices *p, struct gpuproj_error *err)
{
	struct import_csv csv = { 0 };
	const struct import_csv_row *h;
	long name_col, col[P_COUNT];
	size_t i, j;
	int r;

	r = import_csv_read_buffer(text, len, path, NULL, &csv, err);
	if (r)
		return r;
	if (!csv.n_rows) {
		r = error_set(err, GPUPROJ_E_SCHEMA, path, 1, 1, "is empty: a header (name,%s,%s) "
			      "then one row per GPU", price_keys[P_PURCHASE], price_keys[P_HOURLY]);
		goto out;
	}
	h = &csv.rows[0];
	name_col = import_csv_find(h, "name");
	for (j = 0; j < P_COUNT; j++)
		col[j] = import_csv_find(h, price_keys[j]);
	for (j = 0; j < h->n; j++) {
		const char *f = import_csv_field(h, j);

		if (strcmp(f, "name") != 0 && strcmp(f, price_keys[P_PURCHASE]) != 0 &&
		    strcmp(f, price_keys[P_HOURLY]) != 0) {
			r = error_set(err, GPUPROJ_E_SCHEMA, path, h->line, import_csv_column(h, j),
				      "unknown column '%s' (the columns are name, %s and %s)", f,
				      price_keys[P_PURCHASE], price_keys[P_HOURLY]);
			goto out;
		}
	}
	if (name_col < 0 || (col[P_PURCHASE] < 0 && col[P_HOURLY] < 0)) {
		r = error_set(err, GPUPROJ_E_SCHEMA, path, h->line, 1, "the header needs the "
			      "columns name and %s and/or %s", price_keys[P_PURCHASE],
			      price_keys[P_HOURLY]);
		goto out;
	}
	for (i = 1; i < csv.n_rows; i++) {
		const struct import_csv_row *row = &csv.rows[i];
		double v[P_COUNT] = { NAN, NAN };

		if (row->n != h->n) {
			r = error_set(err, GPUPROJ_E_SCHEMA, path, row->line, row->end_column,
				      "has %zu fields, the header %zu", row->n, h->n);
			goto out;
		}
		for (j = 0; j < P_COUNT; j++) {
			const char *f = col[j] >= 0 ? import_csv_field(row, (size_t)col[j]) : "";

			if (!*f)
				continue;
			r = parse_price(f, path, row->line, import_csv_column(row, (size_t)col[j]),
					price_keys[j], &v[j], err);
			if (r)
				goto out;
		}
		r = add_quote(p, targets, import_csv_field(row, (size_t)name_col), v, path,
			      row->line, import_csv_column(row, (size_t)name_col), err);
		if (r)
			goto out;
	}
out:
	import_csv_clear(&csv);
	return r;
}

/* ---- YAML ---- */

static int
yaml_quote(struct loader *ld, yaml_node_t *key, yaml_node_t *val,
	   const struct gpuproj_targets *targets, struct gpuproj_report_prices *p)
{
	double v[P_COUNT] = { NAN, NAN };
	yaml_node_pair_t *q;
	size_t j;
	int r;

	if (!key || key->type != YAML_SCALAR_NODE)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, key, "a GPU name must be a scalar");
	if (!val)
		return ty_fail(ld, GPUPROJ_E_SCHEMA, key, "%s has no price", ty_scalar(key));
	if (val->type == YAML_SCALAR_NODE) {
		r = parse_price(ty_scalar(val), ld->file, (int)val->start_mark.line + 1,
				(int)val->start_mark.column + 1, price_keys[P_PURCHASE],
				&v[P_PURCHASE], ld->err);
	} else if (val->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *top = val->data.mapping.pairs.top;

		r = ty_check_keys(ld, val, price_keys, P_COUNT, ty_scalar(key));
		for (q = val->data.mapping.pairs.start; !r && q < top; q++) {
			yaml_node_t *k = yaml_document_get_node(ld->doc, q->key);
			yaml_node_t *n = yaml_document_get_node(ld->doc, q->value);

			for (j = 0; j < P_COUNT && strcmp(ty_scalar(k), price_keys[j]) != 0; j++)
				;
			if (!n || n->type != YAML_SCALAR_NODE)
				r = ty_fail(ld, GPUPROJ_E_SCHEMA, n ? n : k,
					    "%s.%s must be a number, not %s", ty_scalar(key),
					    price_keys[j], n ? ty_node_kind(n) : "nothing");
			else if (!ty_is_null(n))
				r = parse_price(ty_scalar(n), ld->file, (int)n->start_mark.line + 1,
						(int)n->start_mark.column + 1, price_keys[j], &v[j],
						ld->err);
		}
	} else {
		r = ty_fail(ld, GPUPROJ_E_SCHEMA, val, "%s must be a price or a mapping of %s and "
			    "%s, not %s", ty_scalar(key), price_keys[P_PURCHASE],
			    price_keys[P_HOURLY], ty_node_kind(val));
	}
	if (r)
		return r;
	return add_quote(p, targets, ty_scalar(key), v, ld->file, (int)key->start_mark.line + 1,
			 (int)key->start_mark.column + 1, ld->err);
}

static int
load_yaml(const char *text, size_t len, const char *path, const struct gpuproj_targets *targets,
	  struct gpuproj_report_prices *p, struct gpuproj_error *err)
{
	struct loader ld = { .file = path, .err = err };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *q;
	int r;

	r = ty_guard(text, len, path, "a prices file", false, err);
	if (r)
		return r;
	if (!yaml_parser_initialize(&parser))
		return error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		r = error_set(err, GPUPROJ_E_PARSE, path, (int)parser.problem_mark.line + 1,
			      (int)parser.problem_mark.column + 1, "YAML syntax error: %s%s%s",
			      parser.problem ? parser.problem : "unknown problem",
			      parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return r;
	}
	ld.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE)
		r = ty_fail(&ld, GPUPROJ_E_SCHEMA, root, "must be a mapping of GPU names to "
			    "prices (NAME: {%s: USD, %s: USD})", price_keys[P_PURCHASE],
			    price_keys[P_HOURLY]);
	for (q = root && !r ? root->data.mapping.pairs.start : NULL;
	     q && !r && q < root->data.mapping.pairs.top; q++)
		r = yaml_quote(&ld, yaml_document_get_node(&doc, q->key),
			       yaml_document_get_node(&doc, q->value), targets, p);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return r;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int
gpuproj_report_prices_load_buffer(const char *text, size_t len, const char *name, bool yaml,
				  const struct gpuproj_targets *targets,
				  struct gpuproj_report_prices **ret, struct gpuproj_error *reterr)
{
	struct gpuproj_report_prices *p;
	int r;

	if (!text || !name || !targets || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, name, 0, 0, "invalid argument");
	p = calloc(1, sizeof(*p));
	if (!p)
		return error_set(reterr, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
	r = yaml ? load_yaml(text, len, name, targets, p, reterr)
		 : load_csv(text, len, name, targets, p, reterr);
	if (r) {
		gpuproj_report_prices_free(p);
		return r;
	}
	*ret = p;
	return GPUPROJ_OK;
}

int
gpuproj_report_prices_load(const char *path, const struct gpuproj_targets *targets,
			   struct gpuproj_report_prices **ret, struct gpuproj_error *reterr)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	if (!path || !targets || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	if (!ends_with(path, ".csv") && !ends_with(path, ".yaml") && !ends_with(path, ".yml"))
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "a prices file is named "
				 "*.csv or *.yaml (or *.yml)");
	r = file_read_all(path, &text, &len, reterr);
	if (r)
		return r;
	r = gpuproj_report_prices_load_buffer(text, len, path, !ends_with(path, ".csv"), targets,
					      ret, reterr);
	free(text);
	return r;
}
