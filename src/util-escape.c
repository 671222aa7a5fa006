/* SPDX-License-Identifier: MIT */
/*
 * The writers' shared escapers and JSON helpers (util-escape.h).
 * Thread safety: reentrant; no global state.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util-escape.h"

/*
 * s, or a copy with U+FFFD for each byte that is not valid UTF-8 (owned
 * by the caller through *fixed); NULL, with sb->oom set, when the copy
 * cannot be made.
 */
static const char *
valid_text(struct strbuf *sb, const char *s, char **fixed)
{
	*fixed = NULL;
	if (utf8_valid(s))
		return s;
	*fixed = utf8_lossy(s);
	if (!*fixed)
		sb->oom = true;
	return *fixed;
}

/*
 * Append s with the characters `rep` maps to a non-NULL string replaced.
 * Bytes that are not valid UTF-8 become U+FFFD first: every file the
 * writers produce is valid UTF-8 (XML parsers refuse anything else).
 */
/*
 * Sequences every writer replaces before `rep` sees a byte: a
 * bidirectional control (it would reorder what a person reads: a name
 * that shows as another) becomes the visible text "\u202e"; for XML also
 * the non-characters U+FFFE and U+FFFF, which XML 1.0 forbids (Char,
 * section 2.2), become U+FFFD. Returns the bytes of `s` replaced (0: none)
 * with the replacement in `out`.
 */
static size_t
special_seq(const char *s, bool xml, char out[8])
{
	uint32_t cp;
	size_t n = text_bidi_len(s, &cp);

	if (n) {
		snprintf(out, 8, "\\u%04x", (unsigned)cp);
		return n;
	}
	if (xml && (unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbf &&
	    ((unsigned char)s[2] == 0xbe || (unsigned char)s[2] == 0xbf)) {
		snprintf(out, 8, "\xef\xbf\xbd"); /* U+FFFD REPLACEMENT CHARACTER */
		return 3;
	}
	return 0;
}

static void
escape_ex(struct strbuf *sb, const char *s, const char *(*rep)(unsigned char c), bool xml)
{
	const char *run, *r;
	char *fixed = NULL, seq[8];
	size_t n;

	if (!s)
		return;
	if (!(s = valid_text(sb, s, &fixed)))
		return;
	run = s;
	while (*s) {
		if ((unsigned char)*s >= 0xd8 && (n = special_seq(s, xml, seq)) != 0) {
			strbuf_appendn(sb, run, (size_t)(s - run));
			strbuf_append(sb, seq);
			s += n;
			run = s;
			continue;
		}
		r = rep((unsigned char)*s);
		if (r) {
			strbuf_appendn(sb, run, (size_t)(s - run));
			strbuf_append(sb, r);
			run = s + 1;
		}
		s++;
	}
	strbuf_append(sb, run);
	free(fixed);
}

static void
escape(struct strbuf *sb, const char *s, const char *(*rep)(unsigned char c))
{
	escape_ex(sb, s, rep, false);
}

static const char *
html_rep(unsigned char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&#39;";
	default: return NULL;
	}
}

void
html_escape(struct strbuf *sb, const char *s)
{
	escape(sb, s, html_rep);
}

static const char *
xml_rep(unsigned char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	case '\t': return "&#9;";
	case '\n': return "&#10;";
	case '\r': return "&#13;";
	/* XML 1.0 forbids the other controls (Char, section 2.2): U+FFFD. */
	default: return c < 0x20 ? "\xef\xbf\xbd" : NULL;
	}
}

void
xml_escape(struct strbuf *sb, const char *s)
{
	escape_ex(sb, s, xml_rep, true);
}

static const char *
md_rep(unsigned char c)
{
	switch (c) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '|': return "\\|";
	case '\\': return "\\\\";
	case '`': return "\\`";
	case '*': return "\\*";
	case '_': return "\\_";
	case '[': return "\\[";
	case ']': return "\\]";
	case '#': return "\\#";
	case '~': return "\\~";
	default: return c < 0x20 ? " " : NULL;
	}
}

static const char *md_code_rep(unsigned char c);

/*
 * A bare URL at s (http:// or https:// at the start of a word): its length,
 * up to white space or a character Markdown or a table gives meaning to
 * there (< > " ` |), trailing punctuation left out (a sentence's full stop,
 * a closing parenthesis it was written in); 0 when there is none.
 */
static size_t
bare_url(const char *start, const char *s)
{
	size_t n;

	if (s > start && !isspace((unsigned char)s[-1]) && s[-1] != '(' && s[-1] != '[')
		return 0;
	if (strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0)
		return 0;
	for (n = 0; s[n] && !isspace((unsigned char)s[n]) && (unsigned char)s[n] >= 0x20 &&
		    !strchr("<>\"`|", s[n]); n++)
		;
	while (n && strchr(".,;:!?)]'*_~", s[n - 1]))
		n--;
	return n > 8 ? n : 0;
}

void
md_text(struct strbuf *sb, const char *s)
{
	const char *start = s, *run;
	char *part;
	size_t n;

	if (!s)
		return;
	/*
	 * A bare URL is written as a CommonMark autolink, <https://…> (6.5):
	 * escaped, its '_' and '~' would be part of the link GFM makes of it,
	 * and the link would break.
	 */
	for (run = s; *s; s++) {
		if (*s != 'h' || !(n = bare_url(start, s)))
			continue;
		part = xstrndup(run, (size_t)(s - run));
		if (!part) {
			sb->oom = true;
			return;
		}
		escape(sb, part, md_rep);
		free(part);
		part = xstrndup(s, n);
		if (!part) {
			sb->oom = true;
			return;
		}
		strbuf_append(sb, "<");
		/* Only what a URL may hold reaches here; bytes that are not UTF-8 become U+FFFD. */
		escape(sb, part, md_code_rep);
		strbuf_append(sb, ">");
		free(part);
		s += n - 1;
		run = s + 1;
	}
	escape(sb, run, md_rep);
}

static const char *
md_code_rep(unsigned char c)
{
	return c < 0x20 ? " " : NULL;
}

static const char *
md_cell_code_rep(unsigned char c)
{
	return c == '|' ? "\\|" : md_code_rep(c);
}

void
md_code(struct strbuf *sb, const char *s, bool in_table)
{
	size_t run = 0, longest = 0, len, i;
	const char *p;
	char *fixed = NULL;
	bool pad;

	if (!s)
		s = "";
	if (!(s = valid_text(sb, s, &fixed)))
		return;
	for (p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	len = strlen(s);
	pad = !len || s[0] == '`' || s[len - 1] == '`' ||
	      (s[0] == ' ' && s[len - 1] == ' ' && strspn(s, " ") < len);
	for (i = 0; i <= longest; i++)
		strbuf_append(sb, "`");
	if (pad && len)
		strbuf_append(sb, " ");
	escape(sb, s, in_table ? md_cell_code_rep : md_code_rep);
	if (pad)
		strbuf_append(sb, " ");
	for (i = 0; i <= longest; i++)
		strbuf_append(sb, "`");
	free(fixed);
}

json_t *
json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *
json_dim3(struct gpuproj_dim3 d)
{
	return json_pack("[III]", (json_int_t)d.x, (json_int_t)d.y, (json_int_t)d.z);
}

json_t *
json_string_lossy(const char *s)
{
	char *fixed;
	json_t *j;

	if (!s)
		return NULL;
	if (utf8_valid(s))
		return json_string(s);
	fixed = utf8_lossy(s);
	j = fixed ? json_string(fixed) : NULL;
	free(fixed);
	return j;
}

json_t *
json_str_or_null(const char *s)
{
	return s ? json_string_lossy(s) : json_null();
}

int
json_set_text(json_t *obj, const char *key, const char *s)
{
	char hkey[128], *hex;
	int r;

	if (!s || utf8_valid(s))
		return json_object_set_new(obj, key, json_str_or_null(s));
	snprintf(hkey, sizeof(hkey), "%s_hex", key);
	hex = hex_encode(s);
	r = json_object_set_new(obj, key, json_string_lossy(s));
	r |= json_object_set_new(obj, hkey, hex ? json_string(hex) : NULL);
	free(hex);
	return r ? -1 : 0;
}

int
json_set_named(json_t *map, const char *name, json_t *value, const char *hex_member)
{
	char *key = NULL, *hex = NULL;
	size_t n;
	int r = -1;

	if (!value)
		return -1;
	if (utf8_valid(name) && !json_object_get(map, name))
		return json_object_set_new(map, name, value);
	/* Not UTF-8, or its text is taken by an earlier name: a unique label. */
	key = utf8_lossy(name);
	for (n = 2; key && json_object_get(map, key); n++) {
		char *base = utf8_lossy(name);

		free(key);
		key = base ? xasprintf("%s #%zu", base, n) : NULL;
		free(base);
	}
	hex = hex_encode(name);
	if (key && hex && json_object_set_new(value, hex_member, json_string(hex)) == 0) {
		r = json_object_set_new(map, key, value);
		value = NULL;
	}
	json_decref(value);
	free(key);
	free(hex);
	return r;
}

char *
json_text(json_t *root)
{
	/* Full double precision so a round trip is exact; one final newline. */
	char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
	size_t len;
	char *nl;

	if (!text)
		return NULL;
	len = strlen(text);
	nl = realloc(text, len + 2);
	if (!nl) {
		free(text);
		return NULL;
	}
	nl[len] = '\n';
	nl[len + 1] = '\0';
	return nl;
}

/* The placeholder of stream array k: a string no writer produces (U+0001 is escaped). */
#define STREAM_MARK_FMT "\x01gpuproj-stream-%u\x01"
#define STREAM_MARK_JSON_FMT "\"\\u0001gpuproj-stream-%u\\u0001\""

json_t *
json_stream_placeholder(unsigned k)
{
	char mark[48];

	snprintf(mark, sizeof(mark), STREAM_MARK_FMT, k);
	return json_string(mark);
}

/* Write `text` with `indent` spaces before each line but the first. */
static int
put_indented(FILE *f, const char *text, size_t len, size_t indent)
{
	const char *p = text, *end = text + len, *nl;

	while (p < end) {
		size_t l;

		nl = memchr(p, '\n', (size_t)(end - p));
		l = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
		if (p != text && fprintf(f, "%*s", (int)indent, "") < 0)
			return -1;
		if (fwrite(p, 1, l, f) != l)
			return -1;
		p += l;
	}
	return 0;
}

int
json_stream_value(FILE *f, json_t *v, size_t indent)
{
	char *e = json_dumps(v, JSON_INDENT(1) | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII |
				JSON_ENCODE_ANY);
	int r;

	if (!e)
		return GPUPROJ_E_NOMEM;
	r = put_indented(f, e, strlen(e), indent) ? GPUPROJ_E_IO : GPUPROJ_OK;
	free(e);
	return r;
}

int
json_stream(FILE *f, json_t *root, size_t indent, const struct json_stream_array *arrays,
	    size_t n_arrays)
{
	char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17) |
					      JSON_ENSURE_ASCII | JSON_ENCODE_ANY);
	const char *pos;
	size_t k;
	int r = GPUPROJ_E_NOMEM;

	if (!text)
		return GPUPROJ_E_NOMEM;
	pos = text;
	for (k = 0; k < n_arrays; k++) {
		const struct json_stream_array *a = &arrays[k];
		char mark[48];
		const char *m, *line;
		size_t at, i, n;

		snprintf(mark, sizeof(mark), STREAM_MARK_JSON_FMT, (unsigned)k);
		m = strstr(pos, mark);
		if (!m) {
			r = GPUPROJ_E_INVAL;
			goto out;
		}
		/* The placeholder's line: the array's own indentation (plus ours). */
		for (line = m; line > text && line[-1] != '\n'; line--)
			;
		at = indent + strspn(line, " ");
		r = GPUPROJ_E_IO;
		if (put_indented(f, pos, (size_t)(m - pos), indent))
			goto out;
		n = a->count ? a->count(a->userdata) : a->n;
		if (n == 0 && fputs("[]", f) < 0)
			goto out;
		for (i = 0; i < n; i++) {
			/* As json_dumps() nests it: one level deeper than the array's key. */
			if (fputs(i ? ",\n" : "[\n", f) < 0 ||
			    fprintf(f, "%*s", (int)(at + 1), "") < 0)
				goto out;
			if ((r = a->write_elem(f, a->userdata, i, at + 1)))
				goto out;
			r = GPUPROJ_E_IO;
		}
		if (n && fprintf(f, "\n%*s]", (int)at, "") < 0)
			goto out;
		pos = m + strlen(mark);
	}
	if (put_indented(f, pos, strlen(pos), indent))
		goto out;
	r = ferror(f) ? GPUPROJ_E_IO : GPUPROJ_OK;
out:
	free(text);
	return r;
}

int
json_save_atomic(json_t *root, const char *path, struct gpuproj_error *reterr)
{
	char *text = json_text(root);
	int r;

	if (!text)
		return error_set(reterr, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory encoding JSON");
	r = file_write_atomic(path, text, strlen(text), reterr);
	free(text);
	return r;
}
