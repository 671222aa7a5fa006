/* SPDX-License-Identifier: MIT */
/*
 * Where a value sits in JSON text: the line and column of the value a
 * JSON path names ("kernels[3].metrics.bytes.dram"), so that an error
 * found after parsing (a value out of its range, a wrong type) can name
 * file:line:column as a syntax error does. jansson keeps no positions of
 * the values it builds; this scanner reads the text again, only along the
 * path.
 *
 * The text is assumed to be JSON that jansson has accepted (the callers
 * locate only after a successful parse); on anything else the scanner
 * stops and reports the deepest position it reached, never beyond the
 * text. Object keys may themselves hold dots (metric names do): at each
 * object the longest member name that matches the rest of the path wins.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "util.h"

static size_t
skip_ws(const char *t, size_t n, size_t i)
{
	while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* i at the opening quote: the index after the closing one. */
static size_t
skip_string(const char *t, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (t[i] == '\\')
			i++;
		else if (t[i] == '"')
			return i + 1;
	}
	return n;
}

/* i at a value: the index after it (objects and arrays whole, strings skipped inside). */
static size_t
skip_value(const char *t, size_t n, size_t i)
{
	size_t depth = 0;

	if (i >= n)
		return n;
	if (t[i] == '"')
		return skip_string(t, n, i);
	if (t[i] != '{' && t[i] != '[') {
		while (i < n && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' &&
		       t[i] != '\t' && t[i] != '\n' && t[i] != '\r')
			i++;
		return i;
	}
	for (; i < n; i++) {
		if (t[i] == '"') {
			i = skip_string(t, n, i) - 1;
		} else if (t[i] == '{' || t[i] == '[') {
			depth++;
		} else if (t[i] == '}' || t[i] == ']') {
			if (--depth == 0)
				return i + 1;
		}
	}
	return n;
}

/*
 * The key at t[i] (its opening quote) compared with the start of path:
 * the length of path it matches when the key equals path[0..len) and
 * path[len] ends a segment ('.', '[' or the end), else 0. Keys with escapes
 * match only where the escape is \" \\ or \/ (enough for gpuproj's keys).
 */
static size_t
key_match(const char *t, size_t n, size_t i, const char *path)
{
	size_t k = 0;

	for (i++; i < n && t[i] != '"'; i++) {
		char c = t[i];

		if (c == '\\') {
			if (++i >= n || (t[i] != '"' && t[i] != '\\' && t[i] != '/'))
				return 0;
			c = t[i];
		}
		if (path[k] != c)
			return 0;
		k++;
	}
	if (i >= n || k == 0 || (path[k] && path[k] != '.' && path[k] != '['))
		return 0;
	return k;
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

bool
json_locate(const char *text, size_t len, const char *path, const char *member, int *line,
	    int *col)
{
	size_t i = skip_ws(text, len, 0), at;
	const char *p = path ? path : "";
	bool found = true;

	if (!text || !line || !col)
		return false;
	at = i;
	while (*p && i < len) {
		if (*p == '.')
			p++;
		if (*p == '[') {
			/* An array index. */
			unsigned long idx = 0, k;

			for (p++; *p >= '0' && *p <= '9'; p++)
				idx = idx * 10 + (unsigned long)(*p - '0');
			if (*p != ']' || text[i] != '[') {
				found = false;
				break;
			}
			p++;
			i = skip_ws(text, len, i + 1);
			for (k = 0; k < idx && i < len && text[i] != ']'; k++) {
				i = skip_ws(text, len, skip_value(text, len, i));
				if (i < len && text[i] == ',')
					i = skip_ws(text, len, i + 1);
			}
			if (k < idx || i >= len || text[i] == ']') {
				found = false;
				break;
			}
			at = i;
		} else {
			/* A member: the longest key matching the rest of the path. */
			size_t best = 0, best_at = 0, m;

			if (text[i] != '{') {
				found = false;
				break;
			}
			i = skip_ws(text, len, i + 1);
			while (i < len && text[i] == '"') {
				m = key_match(text, len, i, p);
				i = skip_ws(text, len, skip_string(text, len, i));
				if (i < len && text[i] == ':')
					i = skip_ws(text, len, i + 1);
				if (m > best) {
					best = m;
					best_at = i;
				}
				i = skip_ws(text, len, skip_value(text, len, i));
				if (i < len && text[i] == ',')
					i = skip_ws(text, len, i + 1);
			}
			if (!best) {
				found = false;
				break;
			}
			p += best;
			i = best_at;
			at = i;
		}
	}
	/* A member of the value found: its value, when it is there. */
	if (found && member && *member && at < len && text[at] == '{') {
		i = skip_ws(text, len, at + 1);
		while (i < len && text[i] == '"') {
			size_t m = key_match(text, len, i, member);

			i = skip_ws(text, len, skip_string(text, len, i));
			if (i < len && text[i] == ':')
				i = skip_ws(text, len, i + 1);
			if (m && !member[m]) {
				at = i;
				break;
			}
			i = skip_ws(text, len, skip_value(text, len, i));
			if (i < len && text[i] == ',')
				i = skip_ws(text, len, i + 1);
		}
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
