/* SPDX-License-Identifier: MIT */
/*
 * Internal helpers of the core library: error filling, strings, files,
 * numbers. Not installed; nothing here is exported from libproj.so.
 *
 * Thread safety: every function is reentrant.
 */
#ifndef GPUPROJ_UTIL_H
#define GPUPROJ_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuproj/error.h>

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define GPUPROJ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GPUPROJ_PRINTF(a, b)
#endif

/*
 * Fill `err` (may be NULL) with status, location and a printf-formatted
 * message. Returns `status` so callers can `return error_set(...)`.
 */
int error_set(struct gpuproj_error *err, int status, const char *file, int line, int column,
	      const char *fmt, ...) GPUPROJ_PRINTF(6, 7);
int error_setv(struct gpuproj_error *err, int status, const char *file, int line, int column,
	       const char *fmt, va_list ap) GPUPROJ_PRINTF(6, 0);
/*
 * Set where an error filled by another function happened (file, line,
 * column), keeping its message. `err` may be NULL. Returns `status`.
 */
int error_locate(struct gpuproj_error *err, int status, const char *file, int line, int column);

/* strdup that returns NULL for NULL. */
char *xstrdup(const char *s);
/* strndup. */
char *xstrndup(const char *s, size_t n);
/* malloc'd printf. NULL on ENOMEM. */
char *xasprintf(const char *fmt, ...) GPUPROJ_PRINTF(1, 2);
/* Case-insensitive equality after trimming blanks on both; NULL equals nothing. */
bool str_eq_nocase_trim(const char *a, const char *b);
/* Levenshtein distance, case-insensitive; capped at `cap` (returns cap when larger). */
size_t str_distance(const char *a, const char *b, size_t cap);
/* True when s starts with prefix. */
bool str_startswith(const char *s, const char *prefix);

/* A growable string buffer. */
struct strbuf {
	char *buf;
	size_t len, cap;
	bool oom;        /* an append failed; buf holds what fitted */
};
void strbuf_init(struct strbuf *sb);
void strbuf_free(struct strbuf *sb);
void strbuf_append(struct strbuf *sb, const char *s);
void strbuf_appendn(struct strbuf *sb, const char *s, size_t n);
void strbuf_printf(struct strbuf *sb, const char *fmt, ...) GPUPROJ_PRINTF(2, 3);
/* Steal the buffer (caller frees); the strbuf is reset. */
char *strbuf_steal(struct strbuf *sb);

/*
 * Read a whole file ("-" = stdin) into a NUL-terminated malloc'd buffer.
 * Errors: GPUPROJ_E_IO naming the file and errno text, GPUPROJ_E_NOMEM.
 */
int file_read_all(const char *path, char **ret, size_t *ret_len, struct gpuproj_error *err);

/*
 * Atomically replace `path` with `len` bytes of `data`: write
 * `<dir>/.<base>.XXXXXX`, fsync, rename. "-" writes stdout. On failure the
 * temporary file is removed and `path` is untouched. A `path` that exists
 * and is not a regular file (/dev/null, a FIFO) is written in place.
 */
int file_write_atomic(const char *path, const char *data, size_t len, struct gpuproj_error *err);

/*
 * Strict number parsing: the whole string must be consumed (surrounding
 * blanks allowed). Return false on any garbage, overflow or empty input.
 */
bool parse_double(const char *s, double *ret);
bool parse_int64(const char *s, int64_t *ret);

/*
 * Parse a duration with unit suffix: "50us", "1.5 ms", "200ns", "2s",
 * "50µs"; a bare number is nanoseconds. Returns false on bad input.
 */
bool parse_duration_ns(const char *s, double *ret_ns);

/* CSV (RFC 4180): a field, quoted when it holds a comma, quote or line break. */
void csv_write_field(FILE *out, const char *s);
/* CSV: a number as %.6g, nothing for NaN (an empty field). */
void csv_write_num(FILE *out, double v);

/* Format ns human-readably into buf ("12.3 us", "4.56 ms", "1.23 s"). */
char *format_ns(double ns, char *buf, size_t size);

#endif
