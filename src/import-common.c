/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the importers (import-common.h): CSV on libcsv with
 * line and column positions, numbers with thousands separators, units,
 * launch dimensions, a string map, and the import summary
 * (gpuproj_import_summary_clear() of include/gpuproj/import.h lives here).
 *
 * Thread safety: reentrant; no global state.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <csv.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include <gpuproj/model.h>

#include "import-common.h"
#include "util.h"

/* ---- CSV ---- */

/* Parser state shared with the libcsv callbacks. */
struct csv_state {
	struct import_csv *t;
	size_t rows_cap;
	char **fields;          /* the record being read */
	size_t n, cap;
	const char *rec_start;  /* its first byte in the input */
	const char *end;        /* end of the input */
	int rec_line;
	unsigned char delim;
	bool oom;
	/* Streaming (import_csv_stream_file()): each record goes here, then is freed. */
	int (*on_row)(void *userdata, const struct import_csv_row *row,
		      const struct import_csv *info);
	void *row_userdata;
	int row_status;         /* the first non-zero return of on_row */
};

static void
row_free(struct import_csv_row *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->fields[i]);
	free(r->fields);
	free(r->columns);
	memset(r, 0, sizeof(*r));
}

struct import_csv_row *
import_csv_row_copy(const struct import_csv_row *r)
{
	struct import_csv_row *c = calloc(1, sizeof(*c));
	size_t i;

	if (!c)
		return NULL;
	c->fields = calloc(r->n ? r->n : 1, sizeof(*c->fields));
	c->columns = calloc(r->n ? r->n : 1, sizeof(*c->columns));
	if (!c->fields || !c->columns)
		goto nomem;
	for (i = 0; i < r->n; i++) {
		if (!(c->fields[i] = strdup(r->fields[i])))
			goto nomem;
		c->n = i + 1;
		c->columns[i] = r->columns[i];
	}
	c->n = r->n;
	c->line = r->line;
	c->end_column = r->end_column;
	return c;
nomem:
	import_csv_row_free(c);
	return NULL;
}

void
import_csv_row_free(struct import_csv_row *r)
{
	if (!r)
		return;
	row_free(r);
	free(r);
}

void
import_csv_clear(struct import_csv *t)
{
	size_t i;

	if (!t)
		return;
	/* A streamed table counts rows it does not hold. */
	for (i = 0; t->rows && i < t->n_rows; i++)
		row_free(&t->rows[i]);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

static void
on_field(void *s, size_t len, void *data)
{
	struct csv_state *st = data;
	char *f;

	if (st->oom)
		return;
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 16;
		char **nf = realloc(st->fields, cap * sizeof(*nf));

		if (!nf) {
			st->oom = true;
			return;
		}
		st->fields = nf;
		st->cap = cap;
	}
	f = malloc(len + 1);
	if (!f) {
		st->oom = true;
		return;
	}
	if (len)
		memcpy(f, s, len);
	f[len] = '\0';
	st->fields[st->n++] = f;
}

/*
 * Columns of the fields of the record that starts at `p` (a line start):
 * re-scan its text, honouring quotes, the way libcsv split it.
 */
static void
record_columns(const char *p, const char *end, unsigned char delim, int *cols, size_t n)
{
	const char *line = p;
	bool quoted = false;
	size_t f = 0;

	cols[0] = 1;
	for (; p < end && f + 1 < n; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '\n')
			line = p + 1;
		else if (!quoted && (unsigned char)*p == delim)
			cols[++f] = (int)(p + 1 - line) + 1;
	}
	/* Only reached for inconsistent input; keep the array defined. */
	while (++f < n)
		cols[f] = 0;
}

/* The column just after the record that starts at `p` (its line break excluded). */
static int
record_end_column(const char *p, const char *end)
{
	const char *line = p;
	bool quoted = false;

	for (; p < end; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '\n' && !quoted)
			break;
		else if (*p == '\n')
			line = p + 1;
	}
	if (p > line && p[-1] == '\r')
		p--;
	return (int)(p - line) + 1;
}

static void
on_record(int c, void *data)
{
	struct csv_state *st = data;
	struct import_csv *t = st->t;
	struct import_csv_row *r;

	(void)c;
	if (st->oom || st->row_status) {
		goto drop;
	}
	if (st->on_row) {
		/* Streaming: the record, its callback, and it is gone (no table grows). */
		struct import_csv_row row = { 0 };

		row.columns = calloc(st->n ? st->n : 1, sizeof(*row.columns));
		if (!row.columns) {
			st->oom = true;
			goto drop;
		}
		if (st->n)
			record_columns(st->rec_start, st->end, st->delim, row.columns, st->n);
		row.end_column = st->rec_start ? record_end_column(st->rec_start, st->end) : 0;
		row.fields = st->fields;
		row.n = st->n;
		row.line = st->rec_line;
		t->n_rows++;
		st->row_status = st->on_row(st->row_userdata, &row, t);
		st->fields = NULL;
		st->n = st->cap = 0;
		row_free(&row);
		return;
	}
	if (t->n_rows == st->rows_cap) {
		size_t cap = st->rows_cap ? st->rows_cap * 2 : 64;
		struct import_csv_row *nr = realloc(t->rows, cap * sizeof(*nr));

		if (!nr) {
			st->oom = true;
			goto drop;
		}
		t->rows = nr;
		st->rows_cap = cap;
	}
	r = &t->rows[t->n_rows];
	memset(r, 0, sizeof(*r));
	r->columns = calloc(st->n ? st->n : 1, sizeof(*r->columns));
	if (!r->columns) {
		st->oom = true;
		goto drop;
	}
	if (st->n)
		record_columns(st->rec_start, st->end, st->delim, r->columns, st->n);
	r->end_column = st->rec_start ? record_end_column(st->rec_start, st->end) : 0;
	r->fields = st->fields;
	r->n = st->n;
	r->line = st->rec_line;
	t->n_rows++;
	st->fields = NULL;
	st->n = st->cap = 0;
	return;
drop:
	while (st->n > 0)
		free(st->fields[--st->n]);
}

static bool
is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!isspace((unsigned char)s[i]))
			return false;
	}
	return true;
}

/* A CSV parse in progress, fed one physical line at a time. */
struct csv_feed {
	const char *name;
	const struct import_csv_options *opt;
	struct import_csv t;
	struct csv_state st;
	struct csv_parser p;
	bool p_init;
	bool in_quotes;
	int lineno;
	/* Streaming: the current record's text (its lines so far), for columns. */
	bool copy_records;
	struct strbuf rec;
};

/*
 * UTF-16 (Windows PowerShell's `>` and Out-File write it): every other
 * byte of ASCII text is NUL. Refuse it whole rather than at the first
 * NUL, with how to convert it.
 */
static int
check_utf16(const char *text, size_t len, const char *name, struct gpuproj_error *err)
{
	if ((len >= 2 && ((unsigned char)text[0] == 0xff && (unsigned char)text[1] == 0xfe)) ||
	    (len >= 2 && ((unsigned char)text[0] == 0xfe && (unsigned char)text[1] == 0xff)) ||
	    (len >= 2 && text[0] != '\0' && text[1] == '\0'))
		return error_set(err, GPUPROJ_E_PARSE, name, 1, 1,
				 "UTF-16 text, not a UTF-8 CSV file (PowerShell's '>' writes "
				 "UTF-16): convert it with `iconv -f UTF-16 -t UTF-8` or let the "
				 "tool write the file itself (ncu --log-file, nvprof --log-file)");
	return GPUPROJ_OK;
}

static int
feed_init(struct csv_feed *f, const char *name, const struct import_csv_options *opt,
	  struct gpuproj_error *err)
{
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->opt = opt;
	strbuf_init(&f->rec);
	if (csv_init(&f->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
		return error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
	f->p_init = true;
	f->st.t = &f->t;
	f->st.delim = opt && opt->delim ? opt->delim : ',';
	csv_set_delim(&f->p, f->st.delim);
	return GPUPROJ_OK;
}

static void
feed_free(struct csv_feed *f)
{
	if (f->p_init)
		csv_free(&f->p);
	while (f->st.n > 0)
		free(f->st.fields[--f->st.n]);
	free(f->st.fields);
	import_csv_clear(&f->t);
	strbuf_free(&f->rec);
}

/*
 * One physical line, [pos, next), `nl` true when it ends in a line break.
 * `end` is the end of the input in buffer mode (records are scanned in
 * place), unused when records are copied.
 */
static int
feed_line(struct csv_feed *f, const char *pos, const char *next, bool nl, const char *end,
	  struct gpuproj_error *err)
{
	const struct import_csv_options *opt = f->opt;
	const char *q;
	size_t done;

	f->lineno++;
	if (!nl)
		f->t.last_line_open = f->lineno;
	if (!f->in_quotes) {
		size_t l = (size_t)((nl ? next - 1 : next) - pos);

		if (l > 0 && pos[l - 1] == '\r')
			l--;
		if (is_blank(pos, l))
			return GPUPROJ_OK;
		if (opt && opt->skip_line && opt->skip_line(opt->userdata, pos, l, f->lineno)) {
			f->t.n_skipped++;
			return GPUPROJ_OK;
		}
		f->st.rec_start = pos;
		f->st.rec_line = f->lineno;
		f->rec.len = 0;
	}
	/* A NUL would end the field early: refuse it, where it is. */
	q = memchr(pos, '\0', (size_t)(next - pos));
	if (q)
		return error_set(err, GPUPROJ_E_PARSE, f->name, f->lineno, (int)(q - pos) + 1,
				 "a NUL byte: not a text CSV file (binary data, or a file damaged "
				 "on the way)");
	for (q = pos; q < next; q++) {
		if (*q == '"')
			f->in_quotes = !f->in_quotes;
	}
	if (!nl)
		f->t.unterminated_line = f->st.rec_line;
	if (f->copy_records) {
		/* The record's lines are kept until it ends: its columns come from them. */
		strbuf_appendn(&f->rec, pos, (size_t)(next - pos));
		if (f->rec.oom)
			return error_set(err, GPUPROJ_E_NOMEM, f->name, f->lineno, 0, "out of memory");
		f->st.rec_start = f->rec.buf;
		f->st.end = f->rec.buf + f->rec.len;
	} else {
		f->st.end = end;
	}
	done = csv_parse(&f->p, pos, (size_t)(next - pos), on_field, on_record, &f->st);
	if (f->st.row_status)
		return f->st.row_status;
	if (f->st.oom)
		return error_set(err, GPUPROJ_E_NOMEM, f->name, f->lineno, 0, "out of memory");
	if (done != (size_t)(next - pos)) {
		if (csv_error(&f->p) == CSV_EPARSE)
			return error_set(err, GPUPROJ_E_PARSE, f->name, f->lineno, (int)done + 1,
					 "malformed CSV: a quote inside an unquoted field, or text "
					 "after a closing quote");
		return error_set(err, GPUPROJ_E_NOMEM, f->name, f->lineno, 0, "out of memory");
	}
	return GPUPROJ_OK;
}

static int
feed_finish(struct csv_feed *f, struct gpuproj_error *err)
{
	if (csv_fini(&f->p, on_field, on_record, &f->st) != 0) {
		if (csv_error(&f->p) == CSV_EPARSE)
			return error_set(err, GPUPROJ_E_PARSE, f->name, f->st.rec_line, 0,
					 "malformed CSV: a quoted field that starts on this line is "
					 "never closed");
		return error_set(err, GPUPROJ_E_NOMEM, f->name, f->lineno, 0, "out of memory");
	}
	if (f->st.row_status)
		return f->st.row_status;
	if (f->st.oom)
		return error_set(err, GPUPROJ_E_NOMEM, f->name, f->lineno, 0, "out of memory");
	f->t.n_lines = f->lineno;
	return GPUPROJ_OK;
}

int
import_csv_read_buffer(const char *text, size_t len, const char *name,
		       const struct import_csv_options *opt, struct import_csv *ret,
		       struct gpuproj_error *err)
{
	const char *pos = text, *end = text + len;
	struct csv_feed f;
	int status;

	if ((status = check_utf16(text, len, name, err)))
		return status;
	if ((status = feed_init(&f, name, opt, err)))
		return status;
	/* A UTF-8 byte order mark (Windows editors and shells add one). */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		pos += 3;
	while (pos < end) {
		const char *nl = memchr(pos, '\n', (size_t)(end - pos));
		const char *next = nl ? nl + 1 : end;

		if ((status = feed_line(&f, pos, next, nl != NULL, end, err)))
			goto out;
		pos = next;
	}
	if ((status = feed_finish(&f, err)))
		goto out;
	*ret = f.t;
	memset(&f.t, 0, sizeof(f.t));
out:
	feed_free(&f);
	return status;
}

int
import_csv_stream_file(const char *path, const struct import_csv_options *opt,
		       int (*on_row)(void *userdata, const struct import_csv_row *row,
				     const struct import_csv *info),
		       void *userdata, struct import_csv *ret_info, struct gpuproj_error *err)
{
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	struct file_reader rd;
	struct csv_feed f;
	char *buf = NULL;
	size_t len = 0, cap = (size_t)1 << 16, start = 0;
	bool first = true, eof = false;
	int status;

	if ((status = file_reader_open(&rd, path, 0, NULL, err)))
		return status;
	if ((status = feed_init(&f, name, opt, err)))
		goto out;
	f.copy_records = true;
	f.st.on_row = on_row;
	f.st.row_userdata = userdata;
	buf = malloc(cap);
	if (!buf) {
		status = error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	while (!eof) {
		ssize_t n;
		const char *pos, *end;

		/* Keep the partial line at the front; make room for more. */
		if (start) {
			memmove(buf, buf + start, len - start);
			len -= start;
			start = 0;
		}
		if (cap - len < ((size_t)1 << 15)) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				char sz[32];

				status = error_set(err, GPUPROJ_E_NOMEM, name, 0, 0,
						   "out of memory after reading %s (line %d has no "
						   "line break yet)", format_bytes(rd.total, sz,
										  sizeof(sz)),
						   f.lineno + 1);
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		n = file_reader_read(&rd, buf + len, cap - len, err);
		if (n < 0) {
			status = err ? err->status : GPUPROJ_E_IO;
			goto out;
		}
		eof = n == 0;
		len += (size_t)n;
		pos = buf;
		end = buf + len;
		if (first && (len >= 3 || eof)) {
			first = false;
			if ((status = check_utf16(buf, len, name, err)))
				goto out;
			if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
				pos += 3;
		} else if (first) {
			continue;
		}
		for (;;) {
			const char *nl = memchr(pos, '\n', (size_t)(end - pos));

			if (!nl && !(eof && pos < end))
				break;
			if ((status = feed_line(&f, pos, nl ? nl + 1 : end, nl != NULL, NULL, err)))
				goto out;
			pos = nl ? nl + 1 : end;
		}
		start = (size_t)(pos - buf);
	}
	if ((status = feed_finish(&f, err)))
		goto out;
	file_reader_close(&rd, true);
	if (ret_info) {
		*ret_info = f.t;
		memset(&f.t, 0, sizeof(f.t));
	}
	free(buf);
	feed_free(&f);
	return GPUPROJ_OK;
out:
	free(buf);
	if (f.p_init)
		feed_free(&f);
	file_reader_close(&rd, false);
	return status;
}

int
import_csv_read_file(const char *path, const struct import_csv_options *opt,
		     struct import_csv *ret, struct gpuproj_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	r = file_read_all(path, &text, &len, err);
	if (r)
		return r;
	r = import_csv_read_buffer(text, len, path, opt, ret, err);
	free(text);
	return r;
}

const char *
import_csv_field(const struct import_csv_row *r, size_t i)
{
	return r && i < r->n ? r->fields[i] : "";
}

int
import_csv_column(const struct import_csv_row *r, size_t i)
{
	if (!r || r->n == 0)
		return 0;
	if (i < r->n)
		return r->columns[i];
	/* A missing field: just after the record. */
	return r->end_column;
}

/* Equal after trimming blanks around `field`. */
static bool
eq_trimmed(const char *field, const char *name)
{
	size_t n = strlen(name), l;

	while (isspace((unsigned char)*field))
		field++;
	l = strlen(field);
	while (l > 0 && isspace((unsigned char)field[l - 1]))
		l--;
	return l == n && strncmp(field, name, n) == 0;
}

long
import_csv_find(const struct import_csv_row *header, const char *name)
{
	size_t i;

	for (i = 0; header && i < header->n; i++) {
		if (eq_trimmed(header->fields[i], name))
			return (long)i;
	}
	return -1;
}

bool
import_csv_next_duplicate(const struct import_csv_row *header, size_t *i, size_t *j)
{
	struct import_strmap seen = { 0 };
	size_t k, first;
	char *name;
	bool found = false;

	if (!header)
		return false;
	/* Each call rebuilds the map up to the next duplicate: linear overall
	 * for the usual case of none or a few. */
	for (k = 0; k < header->n && !found; k++) {
		const char *f = header->fields[k];
		size_t l;

		while (isspace((unsigned char)*f))
			f++;
		l = strlen(f);
		while (l > 0 && isspace((unsigned char)f[l - 1]))
			l--;
		if (l == 0)
			continue;
		name = strndup(f, l);
		if (!name)
			break;
		if (import_strmap_get(&seen, name, &first)) {
			if (k >= *j) {
				*i = first;
				*j = k;
				found = true;
			}
		} else if (import_strmap_put(&seen, name, k)) {
			free(name);
			break;
		}
		free(name);
	}
	import_strmap_clear(&seen);
	if (found)
		(*j)++;
	return found;
}

/* ---- numbers ---- */

bool
import_value_absent(const char *s)
{
	size_t l;

	if (!s)
		return true;
	while (isspace((unsigned char)*s))
		s++;
	l = strlen(s);
	while (l > 0 && isspace((unsigned char)s[l - 1]))
		l--;
	return l == 0 || (l == 3 && strncasecmp(s, "n/a", 3) == 0);
}

bool
import_is_text_label(const char *v)
{
	bool alpha = false;

	for (; *v; v++) {
		if (isdigit((unsigned char)*v))
			return false;
		if (isalpha((unsigned char)*v))
			alpha = true;
	}
	return alpha;
}

/*
 * Copy a number as tools print it into buf without its thousands
 * separators, checking their grouping. False on any error.
 */
static bool
clean_number(const char *s, char *buf, size_t size)
{
	size_t o = 0, lead = 0;
	int group = -1; /* digits since the last separator; -1 before the first */
	const char *p;

	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	p = s;
	if (*p == '+' || *p == '-')
		buf[o++] = *p++;
	/* Integer part, with optional thousands separators. */
	while (isdigit((unsigned char)*p) || *p == ',') {
		if (*p == ',') {
			if (lead == 0 || (group < 0 && lead > 3) || (group >= 0 && group != 3))
				return false;
			group = 0;
		} else {
			if (group >= 0)
				group++;
			else
				lead++;
			if (o + 1 >= size)
				return false;
			buf[o++] = *p;
		}
		p++;
	}
	if (group >= 0 && group != 3)
		return false;
	/* Fraction, exponent and trailing blanks; strtold checks the shape. */
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p) && !isspace((unsigned char)*p) &&
		    !strchr(".eE+-", *p))
			return false;
		if (o + 1 >= size)
			return false;
		buf[o++] = *p;
	}
	buf[o] = '\0';
	return true;
}

bool
import_parse_scaled(const char *s, double scale, double *ret)
{
	char buf[128], *end;
	long double v;
	double d;

	if (!clean_number(s, buf, sizeof(buf)))
		return false;
	errno = 0;
	v = strtold_c(buf, &end);
	if (end == buf || errno == ERANGE)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	/* In long double, so "4.19" Mbyte is 4190000 exactly, not 4190000.0000000005. */
	d = (double)(v * (long double)scale);
	if (!isfinite(d))
		return false;
	*ret = d;
	return true;
}

bool
import_parse_number(const char *s, double *ret)
{
	return import_parse_scaled(s, 1.0, ret);
}

/* One positive 32-bit integer; advances *s past it. */
static bool
parse_dim(const char **s, uint32_t *ret)
{
	char *end;
	unsigned long long v;

	while (isspace((unsigned char)**s))
		(*s)++;
	if (!isdigit((unsigned char)**s))
		return false;
	errno = 0;
	v = strtoull(*s, &end, 10);
	if (errno == ERANGE || v == 0 || v > UINT32_MAX)
		return false;
	*s = end;
	while (isspace((unsigned char)**s))
		(*s)++;
	*ret = (uint32_t)v;
	return true;
}

bool
import_parse_dim3(const char *s, struct gpuproj_dim3 *ret)
{
	uint32_t v[3] = { 1, 1, 1 };
	bool paren;
	int i;

	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	paren = *s == '(';
	if (paren)
		s++;
	for (i = 0; i < 3; i++) {
		if (!parse_dim(&s, &v[i]))
			return false;
		if (*s != ',')
			break;
		s++;
	}
	if (i == 3)
		return false; /* a fourth component */
	if (paren) {
		if (*s != ')')
			return false;
		s++;
		while (isspace((unsigned char)*s))
			s++;
	}
	if (*s)
		return false;
	ret->x = v[0];
	ret->y = v[1];
	ret->z = v[2];
	return true;
}

/* ---- units ---- */

/*
 * Nsight Compute prints each value with an SI prefix chosen for it unless
 * `--print-units base` is given ("Metrics and Units" in the Nsight Compute
 * CLI manual). The prefixes are decimal, bytes included: "Kbyte" = 1000
 * bytes, "Mbyte" = 10^6, … (the SI-style spelling; scripts that rescale
 * ncu CSV use the same factors, e.g. one reading ncu 2026.2's raw page with
 * {"Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12}). Times are
 * "nsecond"/"usecond"/"msecond"/"second" in older versions and
 * "ns"/"us"/"ms"/"s" in newer ones; frequencies "cycle/nsecond" (= GHz) in
 * older versions and "hz"/"Mhz"/"Ghz" in newer ones.
 */
static bool
time_scale(const char *u, double *ret_ns)
{
	static const struct {
		const char *name;
		double ns;
	} t[] = {
		{ "nsecond", 1 }, { "ns", 1 }, { "usecond", 1e3 }, { "us", 1e3 },
		{ "\xc2\xb5s", 1e3 }, { "msecond", 1e6 }, { "ms", 1e6 }, { "second", 1e9 },
		{ "s", 1e9 }, { "psecond", 1e-3 }, { "ps", 1e-3 },
	};
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(t); i++) {
		if (strcmp(u, t[i].name) == 0) {
			*ret_ns = t[i].ns;
			return true;
		}
	}
	return false;
}

/* Decimal prefix: "K" → 1e3 … "P" → 1e15 (either case); "" → 1. */
static bool
si_prefix(const char *p, size_t len, double *ret)
{
	static const char prefixes[] = "KMGTP";
	const char *f;

	if (len == 0) {
		*ret = 1;
		return true;
	}
	if (len != 1 || p[0] == '\0')
		return false;
	f = strchr(prefixes, toupper((unsigned char)p[0]));
	if (!f)
		return false;
	*ret = pow(1000.0, (double)(f - prefixes + 1));
	return true;
}

/* True when `u` is [prefix]`base`; *ret gets the prefix's factor. */
static bool
prefixed(const char *u, const char *base, double *ret)
{
	size_t lu = strlen(u), lb = strlen(base);

	return lu >= lb && strcmp(u + lu - lb, base) == 0 && si_prefix(u, lu - lb, ret);
}

static bool
bytes_scale(const char *u, double *ret)
{
	static const char binary[] = "KMGTP";
	const char *p;

	if (prefixed(u, "byte", ret))
		return true;
	/* Binary: KiB … PiB (not ncu's, but unambiguous). */
	if (u[0] && strcmp(u + 1, "iB") == 0 && (p = strchr(binary, u[0])) != NULL) {
		*ret = pow(1024.0, (double)(p - binary + 1));
		return true;
	}
	return false;
}

static bool
hz_scale(const char *u, double *ret)
{
	static const struct {
		const char *name;
		double hz;
	} t[] = { { "hz", 1 }, { "khz", 1e3 }, { "mhz", 1e6 }, { "ghz", 1e9 } };
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(t); i++) {
		if (strcasecmp(u, t[i].name) == 0) {
			*ret = t[i].hz;
			return true;
		}
	}
	return false;
}

/* A count unit, optionally prefixed ("Minst"); *base gets the unprefixed name. */
static bool
count_scale(const char *u, double *ret, const char **base)
{
	static const char *const names[] = {
		"inst", "sector", "request", "warp", "wavefront", "cycle", "thread", "block",
		"register", "transaction", "SM", "cluster",
		/* The tensor operation counters' math_op ("Gop": 10^9 op). */
		"op",
	};
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(names); i++) {
		if (prefixed(u, names[i], ret)) {
			*base = names[i];
			return true;
		}
	}
	return false;
}

void
import_unit_parse(const char *unit, struct import_unit *ret)
{
	char num[64], den[64];
	const char *slash, *u = unit ? unit : "", *cn, *cd;
	double a, b;
	size_t l;

	ret->family = IMPORT_UNIT_OTHER;
	ret->scale = 1.0;
	ret->base[0] = '\0';
	while (isspace((unsigned char)*u))
		u++;
	l = strlen(u);
	while (l > 0 && isspace((unsigned char)u[l - 1]))
		l--;
	if (l == 0) {
		ret->family = IMPORT_UNIT_NONE;
		return;
	}
	if (l >= sizeof(num))
		return;
	memcpy(num, u, l);
	num[l] = '\0';
	if (strcmp(num, "%") == 0) {
		ret->family = IMPORT_UNIT_PERCENT;
		snprintf(ret->base, sizeof(ret->base), "%%");
		return;
	}
	slash = strchr(num, '/');
	if (!slash) {
		if (time_scale(num, &a)) {
			ret->family = IMPORT_UNIT_TIME;
			ret->scale = a;
			snprintf(ret->base, sizeof(ret->base), "nsecond");
		} else if (bytes_scale(num, &a)) {
			ret->family = IMPORT_UNIT_BYTES;
			ret->scale = a;
			snprintf(ret->base, sizeof(ret->base), "byte");
		} else if (hz_scale(num, &a)) {
			ret->family = IMPORT_UNIT_FREQUENCY;
			ret->scale = a;
			snprintf(ret->base, sizeof(ret->base), "hz");
		} else if (count_scale(num, &a, &cn)) {
			ret->family = IMPORT_UNIT_COUNT;
			ret->scale = a;
			snprintf(ret->base, sizeof(ret->base), "%s", cn);
		}
		return;
	}
	snprintf(den, sizeof(den), "%s", slash + 1);
	num[slash - num] = '\0';
	if (bytes_scale(num, &a) && strcmp(den, "block") == 0) {
		ret->family = IMPORT_UNIT_BYTES;
		ret->scale = a;
		snprintf(ret->base, sizeof(ret->base), "byte");
	} else if (bytes_scale(num, &a) && time_scale(den, &b)) {
		ret->family = IMPORT_UNIT_BANDWIDTH;
		ret->scale = a * 1e9 / b;
		snprintf(ret->base, sizeof(ret->base), "byte/second");
	} else if (strcmp(num, "cycle") == 0 && time_scale(den, &b)) {
		ret->family = IMPORT_UNIT_FREQUENCY;
		ret->scale = 1e9 / b;
		snprintf(ret->base, sizeof(ret->base), "hz");
	} else if (count_scale(num, &a, &cn) && count_scale(den, &b, &cd)) {
		ret->family = IMPORT_UNIT_COUNT;
		ret->scale = a / b;
		snprintf(ret->base, sizeof(ret->base), "%s/%s", cn, cd);
	}
}

const char *
import_unit_family_name(enum import_unit_family f)
{
	switch (f) {
	case IMPORT_UNIT_NONE: return "none";
	case IMPORT_UNIT_PERCENT: return "percentage";
	case IMPORT_UNIT_TIME: return "time";
	case IMPORT_UNIT_BYTES: return "size";
	case IMPORT_UNIT_FREQUENCY: return "frequency";
	case IMPORT_UNIT_BANDWIDTH: return "bandwidth";
	case IMPORT_UNIT_COUNT: return "count";
	case IMPORT_UNIT_OTHER: return "unknown";
	}
	return "unknown";
}

/* ---- ranges ---- */

void
import_metric_range(enum gpuproj_metric m, double *lo, double *hi, bool *lo_open)
{
	/* The profile's own ranges (gpuproj_metric_range(): ratios in [0, 1],
	 * clocks up to GPUPROJ_MAX_CLOCK_HZ, everything else up to
	 * GPUPROJ_MAX_METRIC), so that whatever an importer accepts the
	 * profile writer accepts too. A clock of zero is no clock. */
	if (gpuproj_metric_range(m, lo, hi)) {
		*lo = 0;
		*hi = INFINITY;
	}
	*lo_open = m == GPUPROJ_M_CLOCK_SM;
}

enum import_range
import_metric_check(enum gpuproj_metric m, double *v)
{
	double lo, hi, tol;
	bool lo_open;

	if (!isfinite(*v))
		return IMPORT_RANGE_BAD;
	import_metric_range(m, &lo, &hi, &lo_open);
	if ((lo_open ? *v > lo : *v >= lo) && *v <= hi)
		return IMPORT_RANGE_OK;
	if (lo_open)
		return IMPORT_RANGE_BAD; /* a zero or negative clock is no rounding */
	/* Rounding in a published ratio (a percentage of 100.4) is clamped;
	 * a count beyond its bound is refused. */
	tol = hi <= 1 ? 0.01 * (hi - lo) : 0.0;
	if (*v < lo && *v >= lo - tol) {
		*v = lo;
		return IMPORT_RANGE_CLAMPED;
	}
	if (*v > hi && *v <= hi + tol) {
		*v = hi;
		return IMPORT_RANGE_CLAMPED;
	}
	return IMPORT_RANGE_BAD;
}

/* ---- string map ---- */

static size_t
str_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return (size_t)h;
}

bool
import_strmap_get(const struct import_strmap *m, const char *key, size_t *ret)
{
	size_t h;

	if (!m->cap)
		return false;
	for (h = str_hash(key) & (m->cap - 1); m->keys[h]; h = (h + 1) & (m->cap - 1)) {
		if (strcmp(m->keys[h], key) == 0) {
			if (ret)
				*ret = m->values[h];
			return true;
		}
	}
	return false;
}

/* Place a key (owned) in a table with room; no duplicate check. */
static void
strmap_place(char **keys, size_t *values, size_t cap, char *key, size_t value)
{
	size_t h = str_hash(key) & (cap - 1);

	while (keys[h])
		h = (h + 1) & (cap - 1);
	keys[h] = key;
	values[h] = value;
}

int
import_strmap_put(struct import_strmap *m, const char *key, size_t value)
{
	char *copy;
	size_t h;

	if (m->cap) {
		for (h = str_hash(key) & (m->cap - 1); m->keys[h]; h = (h + 1) & (m->cap - 1)) {
			if (strcmp(m->keys[h], key) == 0) {
				m->values[h] = value;
				return GPUPROJ_OK;
			}
		}
	}
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64, i;
		char **keys = calloc(cap, sizeof(*keys));
		size_t *values = calloc(cap, sizeof(*values));

		if (!keys || !values) {
			free(keys);
			free(values);
			return GPUPROJ_E_NOMEM;
		}
		for (i = 0; i < m->cap; i++) {
			if (m->keys[i])
				strmap_place(keys, values, cap, m->keys[i], m->values[i]);
		}
		free(m->keys);
		free(m->values);
		m->keys = keys;
		m->values = values;
		m->cap = cap;
	}
	copy = strdup(key);
	if (!copy)
		return GPUPROJ_E_NOMEM;
	strmap_place(m->keys, m->values, m->cap, copy, value);
	m->n++;
	return GPUPROJ_OK;
}

void
import_strmap_clear(struct import_strmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

/* ---- GPUs of a data set ---- */

int
import_gpus_find_or_add(struct import_gpus *gpus, const struct gpuproj_targets *targets,
			const struct import_gpu_source *src, const char *label,
			const char *files, const char *path, int line, int column,
			struct import_gpu **ret, struct gpuproj_error *err)
{
	const struct gpuproj_target *t;
	struct import_gpu *g;
	size_t i;
	int st;

	for (i = 0; i < gpus->n; i++) {
		if (strcmp(gpus->v[i].label, label) == 0) {
			*ret = &gpus->v[i];
			return GPUPROJ_OK;
		}
	}
	st = gpuproj_targets_lookup(targets, label, &src->lookup, &t, err);
	if (st)
		return error_locate(err, st, path, line, column);
	/* One profile per targets.yaml entry: two labels of one GPU would collide. */
	for (i = 0; i < gpus->n; i++) {
		if (gpus->v[i].target == t)
			return error_set(err, GPUPROJ_E_SCHEMA, path, line, column,
					 "%s '%s' and '%s'%s both match targets.yaml entry '%s'; "
					 "give each its own entry", src->labels,
					 gpus->v[i].label, label, src->where, t->name);
	}
	if (gpus->n == gpus->cap) {
		size_t cap = gpus->cap ? gpus->cap * 2 : 8;
		struct import_gpu *nv = realloc(gpus->v, cap * sizeof(*nv));

		if (!nv)
			goto nomem;
		gpus->v = nv;
		gpus->cap = cap;
	}
	g = &gpus->v[gpus->n];
	memset(g, 0, sizeof(*g));
	g->label = strdup(label);
	g->target = t;
	g->profile = gpuproj_profile_new();
	if (!g->label || !g->profile) {
		free(g->label);
		gpuproj_profile_free(g->profile);
		goto nomem;
	}
	gpus->n++;
	if (gpuproj_profile_set_device(g->profile, label, t->name, t->chip, t->cc_major,
				       t->cc_minor, t->sms, t->clock_mhz * 1e6))
		goto nomem;
	for (i = 0; src->attrs[i]; i += 2) {
		if (gpuproj_profile_set_attr(g->profile, src->attrs[i], src->attrs[i + 1]))
			goto nomem;
	}
	if (gpuproj_profile_set_attr(g->profile, "import.files", files))
		goto nomem;
	*ret = g;
	return GPUPROJ_OK;
nomem:
	return error_set(err, GPUPROJ_E_NOMEM, path, line, 0, "out of memory");
}

double
import_rate_bound(const struct gpuproj_targets *t, int tp, enum gpuproj_prec cp,
		  const char **ret_gpu, double *ret_peak)
{
	const char *gpu = NULL;
	double best = 0;
	size_t i;
	int pass, j, k;

	/* Pass 0: the precision asked for; pass 1 (none has it): every rate. */
	for (pass = 0; pass < 2 && !(best > 0); pass++) {
		for (i = 0; t && i < gpuproj_targets_count(t); i++) {
			const struct gpuproj_target *g = gpuproj_targets_get(t, i);
			double r = 0;

			for (j = 0; j < GPUPROJ_TPREC_COUNT; j++) {
				if (pass == 0 && (tp >= GPUPROJ_TPREC_COUNT || j != tp))
					continue;
				r = fmax(r, isfinite(g->peak_tensor[j]) ? g->peak_tensor[j] : 0);
				r = fmax(r, isfinite(g->max_tensor[j]) ? g->max_tensor[j] : 0);
			}
			for (j = 0; j < GPUPROJ_PREC_COUNT; j++) {
				if (pass == 0 && (tp < GPUPROJ_TPREC_COUNT || j != (int)cp))
					continue;
				for (k = 0; k < GPUPROJ_OPKIND_COUNT; k++) {
					double a = g->peak_gflops[j][k], b = g->max_gflops[j][k];

					r = fmax(r, isfinite(a) ? a : 0);
					r = fmax(r, isfinite(b) ? b : 0);
				}
			}
			if (r > best) {
				best = r;
				gpu = g->name;
			}
		}
	}
	if (ret_gpu)
		*ret_gpu = gpu;
	if (ret_peak)
		*ret_peak = best * 1e9;
	return best > 0 ? IMPORT_RATE_MARGIN * best * 1e9 : INFINITY;
}

bool
import_launch_ok(const double g[3], const double b[3], char *why, size_t size)
{
	static const char *const axis = "xyz";
	int i;

	for (i = 0; i < 3; i++) {
		double lim = i == 0 ? IMPORT_GRID_MAX_X : IMPORT_GRID_MAX_YZ;

		if (!(g[i] <= lim)) {
			snprintf(why, size, "grid.%c %.0f is above CUDA's %.0f", axis[i], g[i],
				 lim);
			return false;
		}
	}
	for (i = 0; i < 3; i++) {
		double lim = i == 2 ? IMPORT_BLOCK_MAX_Z : IMPORT_BLOCK_MAX_XY;

		if (!(b[i] <= lim)) {
			snprintf(why, size, "block.%c %.0f is above CUDA's %.0f", axis[i], b[i],
				 lim);
			return false;
		}
	}
	if (!(b[0] * b[1] * b[2] <= IMPORT_BLOCK_MAX_THREADS)) {
		snprintf(why, size, "a block of %.0f threads is above CUDA's %.0f",
			 b[0] * b[1] * b[2], IMPORT_BLOCK_MAX_THREADS);
		return false;
	}
	return true;
}

void
import_put(struct gpuproj_kernel *k, enum gpuproj_metric m, double v)
{
	k->metric_sum[m] += v;
	k->metric_n[m] += 1;
}

int
import_gpus_take(struct import_gpus *gpus, struct gpuproj_profile ***ret,
		 struct gpuproj_error *err)
{
	struct gpuproj_profile **out;
	size_t i;

	for (i = 0; i < gpus->n; i++) {
		struct gpuproj_error e = { 0 };
		int st = gpuproj_profile_validate(gpus->v[i].profile, NULL, &e);

		if (st)
			return error_set(err, st, NULL, 0, 0,
					 "GPU '%s': %s: a value derived from the data set that no "
					 "gpuproj profile holds", gpus->v[i].label, e.message);
	}
	out = calloc(gpus->n, sizeof(*out));
	if (!out)
		return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	for (i = 0; i < gpus->n; i++) {
		out[i] = gpus->v[i].profile;
		gpus->v[i].profile = NULL; /* moved to the caller */
	}
	*ret = out;
	return GPUPROJ_OK;
}

void
import_gpus_clear(struct import_gpus *gpus)
{
	size_t i;

	for (i = 0; i < gpus->n; i++) {
		free(gpus->v[i].label);
		gpuproj_profile_free(gpus->v[i].profile);
		import_strmap_clear(&gpus->v[i].by_key);
	}
	free(gpus->v);
	memset(gpus, 0, sizeof(*gpus));
}

char *
import_join_paths(const char *const *paths, size_t n)
{
	struct strbuf sb;
	size_t i;

	strbuf_init(&sb);
	for (i = 0; i < n; i++)
		strbuf_printf(&sb, "%s%s", i ? ", " : "", paths[i]);
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_steal(&sb);
}

/* ---- summary ---- */

#define MAX_WARNINGS 100

static int
append_str(char ***arr, size_t *n, char *s)
{
	char **na;

	if (!s)
		return GPUPROJ_E_NOMEM;
	na = realloc(*arr, (*n + 1) * sizeof(*na));
	if (!na) {
		free(s);
		return GPUPROJ_E_NOMEM;
	}
	na[(*n)++] = s;
	*arr = na;
	return GPUPROJ_OK;
}

int
import_summary_warn(struct gpuproj_import_summary *s, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int r;

	if (!s || s->n_warnings > MAX_WARNINGS)
		return GPUPROJ_OK;
	if (s->n_warnings == MAX_WARNINGS)
		return append_str(&s->warnings, &s->n_warnings,
				  strdup("further warnings suppressed"));
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	return append_str(&s->warnings, &s->n_warnings, r < 0 ? NULL : msg);
}

int
import_summary_finish(struct gpuproj_import_summary *s, const struct gpuproj_profile *p)
{
	struct import_strmap names = { 0 };
	size_t nk = gpuproj_profile_count(p), i, j;
	int r = GPUPROJ_OK;

	if (!s)
		return GPUPROJ_OK;
	for (i = 0; i < s->n_missing; i++)
		free(s->missing[i]);
	free(s->missing);
	s->missing = NULL;
	s->n_missing = 0;
	s->kernels = nk;
	for (i = 0; i < nk && r == GPUPROJ_OK; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		for (j = 0; j < k->n_extra && r == GPUPROJ_OK; j++) {
			if (!import_strmap_get(&names, k->extra[j].name, NULL))
				r = import_strmap_put(&names, k->extra[j].name, 0);
		}
	}
	s->kept_metrics = names.n;
	import_strmap_clear(&names);
	if (r)
		return r;
	/* The default model's structured list (model.h), copied into the summary. */
	{
		const char *missing[32];
		size_t n = gpuproj_model_missing_in_profile(gpuproj_model_default(), p, missing,
							     ARRAY_LENGTH(missing),
							     &s->kernels_missing);

		for (i = 0; i < n && i < ARRAY_LENGTH(missing) && r == GPUPROJ_OK; i++)
			r = append_str(&s->missing, &s->n_missing, strdup(missing[i]));
	}
	return r;
}

void
gpuproj_import_summary_clear(struct gpuproj_import_summary *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_missing; i++)
		free(s->missing[i]);
	free(s->missing);
	for (i = 0; i < s->n_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	memset(s, 0, sizeof(*s));
}

int
import_gpus_set_references(struct import_gpus *gpus, import_counterpart_fn find, void *userdata,
			   struct gpuproj_error *err)
{
	size_t a, b, i;

	for (a = 0; a < gpus->n; a++) {
		struct gpuproj_profile *p = gpus->v[a].profile;

		for (i = 0; i < gpuproj_profile_count(p); i++) {
			struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

			for (b = 0; b < gpus->n; b++) {
				const struct gpuproj_kernel *o;

				if (b == a)
					continue;
				o = find(&gpus->v[b], k, userdata);
				if (!o || !o->duration_ns.n)
					continue;
				if (gpuproj_kernel_set_reference(k, gpus->v[b].target->name,
								 gpuproj_kernel_mean_ns(o),
								 o->launches))
					return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0,
							 "out of memory");
			}
		}
	}
	return GPUPROJ_OK;
}
