/* SPDX-License-Identifier: MIT */
/*
 * Internal helpers: strings, buffers, whole-file I/O with atomic
 * replacement, strict number and duration parsing.
 * Thread safety: reentrant; no global state.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

int
file_read_all(const char *path, char **ret, size_t *ret_len, struct gpuproj_error *err)
{
	FILE *f;
	struct strbuf sb;
	/* On the heap: this runs inside applications (libproj.so at cuInit) on their threads. */
	char *chunk = malloc(65536);
	size_t n;
	bool is_stdin = strcmp(path, "-") == 0;

	if (!chunk)
		return error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
	f = is_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		int e = errno;

		free(chunk);
		return error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot open: %s", strerror(e));
	}
	strbuf_init(&sb);
	while ((n = fread(chunk, 1, 65536, f)) > 0)
		strbuf_appendn(&sb, chunk, n);
	free(chunk);
	if (ferror(f)) {
		int e = errno;

		if (!is_stdin)
			fclose(f);
		strbuf_free(&sb);
		return error_set(err, GPUPROJ_E_IO, path, 0, 0, "read error: %s", strerror(e));
	}
	if (!is_stdin)
		fclose(f);
	if (sb.oom) {
		strbuf_free(&sb);
		return error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory reading file");
	}
	if (ret_len)
		*ret_len = sb.len;
	*ret = strbuf_steal(&sb);
	return *ret ? GPUPROJ_OK : error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
}

/* Write all `len` bytes to `fd`, retrying after EINTR. Returns 0 or the errno of the failure. */
static int
write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		off += (size_t)w;
	}
	return 0;
}

int
file_write_atomic(const char *path, const char *data, size_t len, struct gpuproj_error *err)
{
	char *dup1 = NULL, *dup2 = NULL, *tmp = NULL;
	int fd = -1, status = GPUPROJ_OK, e;

	if (strcmp(path, "-") == 0) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
			return error_set(err, GPUPROJ_E_IO, "<stdout>", 0, 0, "write error: %s",
					 strerror(errno));
		return GPUPROJ_OK;
	}
	/*
	 * A target that exists and is not a regular file (/dev/null, a FIFO, a
	 * terminal) cannot be replaced by rename: write to it in place.
	 */
	{
		struct stat st;

		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			if (S_ISDIR(st.st_mode))
				return error_set(err, GPUPROJ_E_IO, path, 0, 0, "is a directory");
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0)
				return error_set(err, GPUPROJ_E_IO, path, 0, 0,
						 "cannot open for writing: %s", strerror(errno));
			e = write_all(fd, data, len);
			if (e) {
				close(fd);
				return error_set(err, GPUPROJ_E_IO, path, 0, 0, "write error: %s",
						 strerror(e));
			}
			return close(fd) == 0 ? GPUPROJ_OK
					      : error_set(err, GPUPROJ_E_IO, path, 0, 0,
							  "close failed: %s", strerror(errno));
		}
	}
	dup1 = strdup(path);
	dup2 = strdup(path);
	if (!dup1 || !dup2) {
		status = error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
		goto out;
	}
	/*
	 * open(O_CREAT | O_EXCL, 0666) under a fresh name, so the kernel applies
	 * the process umask (mkstemp creates 0600, and reading the umask back
	 * would mean changing it, racing other threads of an application we run
	 * inside).
	 */
	{
		static unsigned counter;
		unsigned attempt;

		for (attempt = 0; attempt < 100; attempt++) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			free(tmp);
			tmp = xasprintf("%s/.%s.%ld.%u.%lx", dirname(dup1), basename(dup2),
					(long)getpid(),
					__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED),
					(unsigned long)ts.tv_nsec);
			if (!tmp) {
				status = error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
				goto out;
			}
			fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
			if (fd >= 0 || errno != EEXIST)
				break;
		}
	}
	if (fd < 0) {
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0,
				   "cannot create a temporary file beside it: %s", strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	e = write_all(fd, data, len);
	if (e) {
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "write error: %s", strerror(e));
		goto out;
	}
	if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "fsync failed: %s", strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "close failed: %s", strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot rename %s over it: %s", tmp,
				   strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(dup1);
	free(dup2);
	return status;
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
	v = strtod(s, &end);
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
	v = strtoll(s, &end, 10);
	if (end == s || errno == ERANGE)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return false;
	*ret = v;
	return true;
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
	v = strtod(s, &end);
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

void
csv_write_field(FILE *out, const char *s)
{
	const char *c;

	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
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
