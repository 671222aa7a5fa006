/* SPDX-License-Identifier: MIT */
/*
 * JSON text scanned without building a tree (util.h "JSON scanning"):
 * one scanner, for two uses.
 *
 * - The profile loader (profile-json.c) checks the structure of a large
 *   profile (commas, brackets, nesting depth, text after the root) and
 *   finds the elements of its big arrays, so that jansson parses each
 *   kernel on its own instead of the whole text at once.
 * - json_locate() finds where a value sits: the line and column of the
 *   value a JSON path names ("kernels[3].metrics.bytes.dram"), so that an
 *   error found after parsing (a value out of its range, a wrong type) can
 *   name file:line:column as a syntax error does. jansson keeps no
 *   positions of the values it builds; the scanner reads the text again,
 *   only along the path. Object keys may themselves hold dots (metric
 *   names do): at each object the longest member name that matches the
 *   rest of the path wins.
 *
 * The scanner checks structure only: strings end and hold no control
 * character, numbers and literals are where values go; their spelling,
 * UTF-8 and duplicate keys are jansson's to check when it parses a piece.
 * On text it does not accept it stops: json_value_end() says 0, and
 * json_locate() reports the deepest position it reached, never beyond the
 * text.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "util.h"

size_t
json_ws(const char *t, size_t n, size_t i)
{
	while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* A string from its opening quote: the index after its closing one, or 0. */
static size_t
string_end(const char *t, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		unsigned char c = (unsigned char)t[i];

		if (c == '"')
			return i + 1;
		if (c < 0x20)
			return 0;
		if (c == '\\' && ++i >= n)
			return 0;
	}
	return 0;
}

size_t
json_value_end(const char *t, size_t n, size_t i, int depth)
{
	struct json_cursor c;
	int r;

	i = json_ws(t, n, i);
	if (i >= n || depth > JSON_SCAN_MAX_DEPTH)
		return 0;
	if (t[i] == '"')
		return string_end(t, n, i);
	if (t[i] == '{' || t[i] == '[') {
		if (json_cursor_open(&c, t, n, i, depth))
			return 0;
		while ((r = json_cursor_next(&c, NULL)) == 1) {
			c.i = json_value_end(t, n, c.i, depth + 1);
			if (!c.i)
				return 0;
		}
		return r == 0 ? c.i : 0;
	}
	/* A number or a literal: its extent here; jansson checks its spelling. */
	/* (strchr() finds the terminating NUL too: a NUL byte is not a digit.) */
	if (t[i] && strchr("-0123456789", t[i])) {
		size_t j = i;

		while (j < n && t[j] && strchr("+-0123456789.eE", t[j]))
			j++;
		return j > i ? j : 0;
	}
	if (n - i >= 4 && (memcmp(t + i, "true", 4) == 0 || memcmp(t + i, "null", 4) == 0))
		return i + 4;
	if (n - i >= 5 && memcmp(t + i, "false", 5) == 0)
		return i + 5;
	return 0;
}

int
json_cursor_open(struct json_cursor *c, const char *t, size_t n, size_t i, int depth)
{
	i = json_ws(t, n, i);
	if (i >= n || (t[i] != '{' && t[i] != '[') || depth > JSON_SCAN_MAX_DEPTH)
		return -1;
	*c = (struct json_cursor){ .t = t, .n = n, .i = i + 1, .depth = depth,
				   .close = t[i] == '{' ? '}' : ']', .first = true };
	return 0;
}

int
json_cursor_next(struct json_cursor *c, struct json_span *key)
{
	const char *t = c->t;
	size_t n = c->n, i = json_ws(t, n, c->i);

	if (!c->first) {
		/* After the previous value: a comma, or the end. */
		if (i < n && t[i] == c->close) {
			c->i = i + 1;
			return 0;
		}
		if (i >= n || t[i] != ',')
			return -1;
		i = json_ws(t, n, i + 1);
	} else if (i < n && t[i] == c->close) {
		c->i = i + 1;
		return 0;
	}
	c->first = false;
	if (c->close == '}') {
		size_t k = i;

		if (i >= n || t[i] != '"' || !(i = string_end(t, n, i)))
			return -1;
		if (key)
			*key = (struct json_span){ k, i };
		i = json_ws(t, n, i);
		if (i >= n || t[i] != ':')
			return -1;
		i++;
	}
	c->i = json_ws(t, n, i);
	return c->i < n ? 1 : -1;
}

/*
 * The key t[k.start, k.end) (with its quotes) compared with the start of
 * path: the length of path it matches when the key equals path[0..len)
 * and path[len] ends a segment ('.', '[' or the end), else 0. Keys with
 * escapes match only where the escape is \" \\ or \/ (enough for
 * gpuproj's keys).
 */
static size_t
key_match(const char *t, struct json_span k, const char *path)
{
	size_t i, len = 0;

	for (i = k.start + 1; i + 1 < k.end; i++) {
		char c = t[i];

		if (c == '\\') {
			if (++i + 1 >= k.end || (t[i] != '"' && t[i] != '\\' && t[i] != '/'))
				return 0;
			c = t[i];
		}
		if (path[len] != c)
			return 0;
		len++;
	}
	if (len == 0 || (path[len] && path[len] != '.' && path[len] != '['))
		return 0;
	return len;
}

static void
line_col(const char *t, size_t off, int *line, int *col)
{
	size_t i, l = 1, c = 1;

	for (i = 0; i < off; i++) {
		if (t[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)t[i] & 0xc0) != 0x80) {
			c++; /* a column per character, not per UTF-8 byte */
		}
	}
	*line = l > (size_t)INT_MAX ? INT_MAX : (int)l;
	*col = c > (size_t)INT_MAX ? INT_MAX : (int)c;
}

/*
 * The value of the member of the object at `at` whose key matches the
 * longest start of `path`, its length in *ret_len (exact: the whole of
 * `path`, a member's name); 0 when none does or the text stops.
 */
static size_t
find_member(const char *t, size_t n, size_t at, int depth, const char *path, bool exact,
	    size_t *ret_len)
{
	struct json_cursor c;
	struct json_span k;
	size_t best = 0, best_at = 0, m;

	if (json_cursor_open(&c, t, n, at, depth) || c.close != '}')
		return 0;
	while (json_cursor_next(&c, &k) == 1) {
		m = key_match(t, k, path);
		if (m > best && (!exact || !path[m])) {
			best = m;
			best_at = c.i;
		}
		if (!(c.i = json_value_end(t, n, c.i, depth + 1)))
			break;
	}
	*ret_len = best;
	return best ? best_at : 0;
}

/* The idx-th element of the array at `at`, or 0. */
static size_t
find_element(const char *t, size_t n, size_t at, int depth, unsigned long idx)
{
	struct json_cursor c;
	unsigned long k;

	if (json_cursor_open(&c, t, n, at, depth) || c.close != ']')
		return 0;
	for (k = 0; json_cursor_next(&c, NULL) == 1; k++) {
		if (k == idx)
			return c.i;
		if (!(c.i = json_value_end(t, n, c.i, depth + 1)))
			break;
	}
	return 0;
}

bool
json_locate(const char *text, size_t len, const char *path, const char *member, int *line,
	    int *col)
{
	size_t at, next, m;
	const char *p = path ? path : "";
	bool found = true;
	int depth = 0;

	if (!text || !line || !col)
		return false;
	at = json_ws(text, len, 0);
	while (*p && at < len) {
		if (*p == '.')
			p++;
		if (*p == '[') {
			/* An array index. */
			unsigned long idx = 0;

			for (p++; *p >= '0' && *p <= '9'; p++)
				idx = idx * 10 + (unsigned long)(*p - '0');
			next = *p == ']' ? find_element(text, len, at, depth, idx) : 0;
			if (next)
				p++;
		} else {
			/* A member: the longest key matching the rest of the path. */
			next = find_member(text, len, at, depth, p, false, &m);
			if (next)
				p += m;
		}
		if (!next) {
			found = false;
			break;
		}
		at = next;
		depth++;
	}
	/* A member of the value found: its value, when it is there. */
	if (found && member && *member && at < len) {
		next = find_member(text, len, at, depth, member, true, &m);
		if (next)
			at = next;
	}
	line_col(text, at < len ? at : len, line, col);
	return found;
}

void
json_locate_error(const char *text, size_t len, const char *path, size_t pathlen,
		  struct gpuproj_error *err)
{
	char buf[GPUPROJ_ERROR_MSG_SIZE];
	int line, col;

	if (!err || err->line || !path || pathlen == 0 || pathlen >= sizeof(buf))
		return;
	memcpy(buf, path, pathlen);
	buf[pathlen] = '\0';
	if (json_locate(text, len, buf, NULL, &line, &col)) {
		err->line = line;
		err->column = col;
	}
}
