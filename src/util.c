/* SPDX-License-Identifier: MIT */
/*
 * Internal helpers: strings, buffers, UTF-8, strict number and duration
 * parsing in the C locale, CSV cells and text for terminals. Files and
 * process state are in util-file.c.
 * Thread safety: reentrant; no global state but the C locale object,
 * made once.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

char *
xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *
xstrndup(const char *s, size_t n)
{
	return s ? strndup(s, n) : NULL;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

static void
trim_span(const char *s, const char **start, size_t *len)
{
	const char *e;

	while (*s && isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*start = s;
	*len = (size_t)(e - s);
}

bool
str_eq_nocase_trim(const char *a, const char *b)
{
	const char *sa, *sb;
	size_t la, lb;

	if (!a || !b)
		return false;
	trim_span(a, &sa, &la);
	trim_span(b, &sb, &lb);
	return la == lb && strncasecmp(sa, sb, la) == 0;
}

bool
str_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

size_t
str_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row, i, j, d;

	if (la > 256 || lb > 256)
		return cap;
	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return cap;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0];
		size_t rowmin;

		row[0] = i;
		rowmin = row[0];
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) ==
				      tolower((unsigned char)b[j - 1]) ? 0 : 1;
			size_t best = prev + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
			if (best < rowmin)
				rowmin = best;
		}
		if (rowmin >= cap) {
			free(row);
			return cap;
		}
	}
	d = row[lb];
	free(row);
	return d < cap ? d : cap;
}

void
strbuf_init(struct strbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

void
strbuf_free(struct strbuf *sb)
{
	free(sb->buf);
	strbuf_init(sb);
}

static bool
strbuf_reserve(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	size_t cap;
	char *nb;

	if (sb->oom)
		return false;
	if (need <= sb->cap)
		return true;
	cap = sb->cap ? sb->cap : 256;
	while (cap < need)
		cap *= 2;
	nb = realloc(sb->buf, cap);
	if (!nb) {
		sb->oom = true;
		return false;
	}
	sb->buf = nb;
	sb->cap = cap;
	return true;
}

void
strbuf_appendn(struct strbuf *sb, const char *s, size_t n)
{
	if (!strbuf_reserve(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
strbuf_append(struct strbuf *sb, const char *s)
{
	strbuf_appendn(sb, s, strlen(s));
}

void
strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !strbuf_reserve(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

char *
strbuf_steal(struct strbuf *sb)
{
	char *b = sb->buf;

	if (!b)
		b = strdup("");
	strbuf_init(sb);
	return b;
}

/* ---- UTF-8 ---- */

/*
 * Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when the bytes there are not one.
 */
static size_t
utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	size_t n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool
utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;

	while (i < len) {
		size_t n = utf8_seq(p + i, len - i);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

char *
utf8_lossy(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_append(&sb, "");
	while (i < len) {
		size_t n = utf8_seq(p + i, len - i);

		if (n) {
			strbuf_appendn(&sb, s + i, n);
			i += n;
		} else {
			strbuf_append(&sb, "\xef\xbf\xbd"); /* U+FFFD REPLACEMENT CHARACTER */
			i++;
		}
	}
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_steal(&sb);
}

char *
hex_encode(const char *s)
{
	static const char digits[] = "0123456789abcdef";
	size_t len = strlen(s), i;
	char *out = malloc(2 * len + 1);

	if (!out)
		return NULL;
	for (i = 0; i < len; i++) {
		out[2 * i] = digits[(unsigned char)s[i] >> 4];
		out[2 * i + 1] = digits[(unsigned char)s[i] & 0xf];
	}
	out[2 * len] = '\0';
	return out;
}

static int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
hex_decode(const char *hex, char **ret)
{
	size_t len = strlen(hex), i;
	char *out;

	if (len % 2)
		return GPUPROJ_E_INVAL;
	for (i = 0; i < len; i += 2) {
		if (hex_digit(hex[i]) < 0 || hex_digit(hex[i + 1]) < 0 ||
		    (hex_digit(hex[i]) | hex_digit(hex[i + 1])) == 0)
			return GPUPROJ_E_INVAL; /* not hex, or a NUL byte */
	}
	out = malloc(len / 2 + 1);
	if (!out)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < len; i += 2)
		out[i / 2] = (char)(hex_digit(hex[i]) << 4 | hex_digit(hex[i + 1]));
	out[len / 2] = '\0';
	*ret = out;
	return GPUPROJ_OK;
}

int
source_date_epoch(bool *set, time_t *ret, struct gpuproj_error *reterr)
{
	const char *env = getenv("SOURCE_DATE_EPOCH");
	int64_t v;

	*set = false;
	if (!env || !*env)
		return GPUPROJ_OK;
	if (!parse_int64(env, &v) || v < 0 || (int64_t)(time_t)v != v)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "SOURCE_DATE_EPOCH must be a non-negative integer (seconds since "
				 "1970-01-01 UTC), not '%s'", env);
	*set = true;
	*ret = (time_t)v;
	return GPUPROJ_OK;
}

void
deadline_after(double s, struct timespec *ret)
{
	clock_gettime(CLOCK_REALTIME, ret);
	ret->tv_sec += (time_t)s;
	ret->tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (ret->tv_nsec >= 1000000000L) {
		ret->tv_sec++;
		ret->tv_nsec -= 1000000000L;
	}
}

int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

bool
parse_double(const char *s, double *ret)
{
	char *end;
	double v;

	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	errno = 0;
	v = strtod_c(s, &end);
	if (end == s || errno == ERANGE)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	if (!isfinite(v))
		return false;
	*ret = v;
	return true;
}

bool
parse_int64(const char *s, int64_t *ret)
{
	char *end;
	long long v;

	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	errno = 0;
	v = c_locale() ? strtoll_l(s, &end, 10, c_locale()) : strtoll(s, &end, 10);
	if (end == s || errno == ERANGE)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*ret = v;
	return true;
}

/* ---- numbers in the C locale ---- */

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale_obj;

static void
c_locale_make(void)
{
	c_locale_obj = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t
c_locale(void)
{
	pthread_once(&c_locale_once, c_locale_make);
	return c_locale_obj;
}

/* Whether s (blanks skipped by the caller or not) starts a decimal number strtod_c() reads. */
static bool
decimal_start(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return false;
	return isdigit((unsigned char)s[0]) || (s[0] == '.' && isdigit((unsigned char)s[1]));
}

double
strtod_c(const char *s, char **end)
{
	locale_t c = c_locale();

	if (!decimal_start(s)) {
		*end = (char *)s;
		return 0;
	}
	return c ? strtod_l(s, end, c) : strtod(s, end);
}

long double
strtold_c(const char *s, char **end)
{
	locale_t c = c_locale();

	if (!decimal_start(s)) {
		*end = (char *)s;
		return 0;
	}
	return c ? strtold_l(s, end, c) : strtold(s, end);
}

bool
parse_duration_ns(const char *s, double *ret_ns)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = {
		{ "ns", 1.0 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	errno = 0;
	v = strtod_c(s, &end);
	if (end == s || errno == ERANGE || !isfinite(v) || v < 0)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (!*end) {
		*ret_ns = v;
		return true;
	}
	for (i = 0; i < ARRAY_LENGTH(units); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			*ret_ns = v * units[i].scale;
			return true;
		}
	}
	return false;
}

/* Three significant digits without switching to exponent notation. */
static int
decimals3(double v)
{
	v = fabs(v);
	return v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
}

char *
format_ns(double ns, char *buf, size_t size)
{
	static const struct {
		double limit, scale;
		const char *unit;
	} steps[] = {
		{ 999.5, 1.0, "ns" }, { 999.5e3, 1e3, "us" }, { 999.5e6, 1e6, "ms" },
		{ INFINITY, 1e9, "s" },
	};
	double a = fabs(ns);
	size_t i;

	if (isnan(ns)) {
		snprintf(buf, size, "n/a");
		return buf;
	}
	for (i = 0; i < ARRAY_LENGTH(steps); i++) {
		if (a < steps[i].limit || i + 1 == ARRAY_LENGTH(steps)) {
			double v = ns / steps[i].scale;

			if (steps[i].scale == 1.0)
				snprintf(buf, size, "%.0f %s", v, steps[i].unit);
			else
				snprintf(buf, size, "%.*f %s", decimals3(v), v, steps[i].unit);
			break;
		}
	}
	return buf;
}

bool
csv_is_formula(const char *s)
{
	return s && *s && strchr("=+-@\t\r", *s);
}

void
csv_write_field(FILE *out, const char *s)
{
	bool formula = csv_is_formula(s);
	const char *c;

	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	/* OWASP "CSV Injection": a leading quote makes the cell text, not a formula. */
	if (formula)
		fputc('\'', out);
	for (c = s; *c; c++) {
		if (*c == '"')
			fputc('"', out);
		fputc(*c, out);
	}
	fputc('"', out);
}

void
csv_write_num(FILE *out, double v)
{
	if (!isnan(v))
		fprintf(out, "%.6g", v);
}

/* ---- text for terminals and logs ---- */

size_t
text_bidi_len(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c;

	if (u[0] == 0xd8 && u[1] == 0x9c) {
		c = 0x061c; /* ARABIC LETTER MARK */
		if (cp)
			*cp = c;
		return 2;
	}
	if (u[0] != 0xe2 || (u[1] != 0x80 && u[1] != 0x81) || (u[2] & 0xc0) != 0x80)
		return 0;
	c = 0x2000u | (uint32_t)(u[1] & 0x3f) << 6 | (u[2] & 0x3f);
	if (c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	    (c >= 0x2066 && c <= 0x2069)) {
		if (cp)
			*cp = c;
		return 3;
	}
	return 0;
}

/*
 * The unit of `s` term_text() writes next: its escape in `esc` (NUL when
 * the bytes are shown as they are); returns the bytes of `s` it covers.
 */
static size_t
term_unit(const char *s, char esc[8])
{
	static const char named[] = "abtnvfr";
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	esc[0] = '\0';
	if (u[0] < 0x20 || u[0] == 0x7f) {
		if (u[0] >= 7 && u[0] <= 13)
			snprintf(esc, 8, "\\%c", named[u[0] - 7]);
		else if (u[0] == 0x1b)
			snprintf(esc, 8, "\\e");
		else
			snprintf(esc, 8, "\\x%02x", u[0]);
		return 1;
	}
	if (u[0] < 0x80)
		return 1;
	if ((n = text_bidi_len(s, &cp)) != 0) {
		snprintf(esc, 8, "\\u%04x", (unsigned)cp);
		return n;
	}
	n = utf8_seq(u, strnlen(s, 4));
	if (n == 0) {
		snprintf(esc, 8, "\\x%02x", u[0]);
		return 1;
	}
	if (n == 2 && u[0] == 0xc2 && u[1] < 0xa0) /* C1: U+0080 to U+009F */
		snprintf(esc, 8, "\\u%04x", (unsigned)u[1]);
	return n;
}

bool
term_text_needs_escape(const char *s)
{
	char esc[8];

	while (s && *s) {
		s += term_unit(s, esc);
		if (esc[0])
			return true;
	}
	return false;
}

/* Bytes term_text() writes for all of `s`, counting no further than `limit`. */
static size_t
term_width(const char *s, size_t limit)
{
	size_t w = 0;
	char esc[8];

	while (*s && w <= limit) {
		size_t n = term_unit(s, esc);

		w += esc[0] ? strlen(esc) : n;
		s += n;
	}
	return w;
}

/* Where term_escape() puts its output. */
struct term_out {
	struct strbuf *sb;	/* a growable buffer, or */
	char *buf;		/* a fixed one of `size` bytes (NUL included) */
	size_t size, len;
};

static void
term_put(struct term_out *o, const char *s, size_t n)
{
	if (o->sb) {
		strbuf_appendn(o->sb, s, n);
		return;
	}
	if (o->len + n < o->size) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
		o->buf[o->len] = '\0';
	}
}

static void
term_escape(struct term_out *o, const char *s, size_t max)
{
	size_t used = 0;
	char esc[8];

	/* The whole text fits: no cut, no "...". */
	if (max != SIZE_MAX && term_width(s, max) <= max)
		max = SIZE_MAX;
	while (*s) {
		size_t n = term_unit(s, esc), w = esc[0] ? strlen(esc) : n;

		/* Cut before a unit that leaves no room for the "...". */
		if (max != SIZE_MAX && used + w + 3 > max) {
			term_put(o, "...", 3);
			return;
		}
		term_put(o, esc[0] ? esc : s, w);
		used += w;
		s += n;
	}
}

void
term_text(struct strbuf *sb, const char *s, size_t max)
{
	struct term_out o = { .sb = sb };

	if (s)
		term_escape(&o, s, max);
}

char *
term_text_buf(const char *s, char *buf, size_t size)
{
	struct term_out o = { .buf = buf, .size = size };

	if (!size)
		return buf;
	buf[0] = '\0';
	if (s)
		term_escape(&o, s, size - 1);
	return buf;
}

char *
term_strdup(const char *s)
{
	struct strbuf sb;

	if (!s)
		return NULL;
	strbuf_init(&sb);
	term_text(&sb, s, SIZE_MAX);
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_steal(&sb);
}
