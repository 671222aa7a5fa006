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
#include <time.h>

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
 * The size limit on every input file gpuproj reads (docs/cli/gpuproj.md
 * "Bounded inputs"): 1 GiB unless raised with `gpuproj --max-input-size SIZE`
 * (file_set_input_limit()) or the environment variable
 * GPUPROJ_MAX_INPUT_SIZE (bytes, optionally with K, M, G or T: binary
 * multiples). The option wins over the variable.
 */
#define GPUPROJ_INPUT_LIMIT_DEFAULT ((uint64_t)1 << 30)
/* Set the limit for this process (0: back to the variable or the default). */
void file_set_input_limit(uint64_t bytes);
/*
 * The limit in force; *ret_explicit (may be NULL) tells whether the option
 * or the variable set it. GPUPROJ_E_INVAL, naming the variable, when
 * GPUPROJ_MAX_INPUT_SIZE is not a size.
 */
int file_input_limit(uint64_t *ret, bool *ret_explicit, struct gpuproj_error *err);
/* "512", "64K", "512M", "2G", "1T" (also "MiB"…: binary multiples) → bytes, > 0. */
bool parse_byte_size(const char *s, uint64_t *ret);
/* "1.5 GiB", "12 bytes" into buf. */
char *format_bytes(uint64_t n, char *buf, size_t size);

/*
 * Read a whole file ("-" = stdin) into a NUL-terminated malloc'd buffer.
 * A regular file larger than the input limit is refused before anything
 * is read; a pipe or device is read up to the limit and refused beyond it.
 * Every regular file read is remembered (file_protect_inputs()), so
 * file_write_atomic() never replaces it. Errors: GPUPROJ_E_IO naming the file and errno text,
 * GPUPROJ_E_LIMIT (too large, with the limit and how to raise it),
 * GPUPROJ_E_NOMEM (a clean failure: nothing is retried), GPUPROJ_E_INVAL
 * (GPUPROJ_MAX_INPUT_SIZE is not a size).
 */
int file_read_all(const char *path, char **ret, size_t *ret_len, struct gpuproj_error *err);
/*
 * As file_read_all() with a tighter limit for one kind of input (`limit`
 * bytes, 0 = only the input limit; the smaller applies) named `what` in
 * the message ("a targets file").
 */
int file_read_limited(const char *path, uint64_t limit, const char *what, char **ret,
		      size_t *ret_len, struct gpuproj_error *err);

/*
 * Never overwrite an input (issue 12): with protection on (the gpuproj
 * command turns it on; off by default, so a library caller may load and
 * save one file), every regular file read is remembered and
 * file_write_atomic() refuses to replace one.
 */
void file_protect_inputs(bool on);
/*
 * Remember `path` as an input of this process (readers that do not use
 * file_read_all()). Regular files only; "-" is ignored.
 */
void file_note_input(const char *path);
/*
 * GPUPROJ_E_INVAL when `path` names a regular file this process has read
 * (the same device and inode: through a symbolic or hard link too),
 * naming the input. Commands with several outputs call it for all of them
 * before writing the first.
 */
int file_check_output(const char *path, struct gpuproj_error *err);
/* Whether two paths name one existing file (device and inode, links followed). */
bool file_same(const char *a, const char *b);
/*
 * Forget one remembered input: a file read whole that the command updates
 * in place on purpose (validate --merge-intervals FILE --fit-intervals FILE).
 */
void file_forget_input(const char *path);
/* Forget every remembered input (tests; a long-lived process between jobs). */
void file_forget_inputs(void);

/*
 * Atomically replace `path` with `len` bytes of `data`: write
 * `<dir>/.<base>.<pid>.<n>.<ns>`, fsync, rename. "-" writes stdout. On
 * failure the temporary file is removed and `path` is untouched. A `path`
 * that exists and is not a regular file (/dev/null, a FIFO) is written in
 * place. Refuses (GPUPROJ_E_INVAL) a `path` that is an input of this
 * process (file_check_output()).
 */
int file_write_atomic(const char *path, const char *data, size_t len, struct gpuproj_error *err);
/*
 * Remove the temporary files of writes in progress. Async-signal-safe: for
 * signal handlers (the injection's GPUPROJ_SIGNALS handler may call it).
 */
void file_remove_temporaries(void);
/*
 * Install handlers for SIGINT, SIGTERM and SIGHUP (those not ignored) that
 * remove the temporary files of writes in progress, then die of the same
 * signal. For the gpuproj command only: a library inside an application
 * must not take its signals. 0, or -1 with errno.
 */
int file_remove_temporaries_on_signals(void);
/* Tests: called after each chunk (1 MiB) a write puts into its temporary file. */
void file_write_set_test_hook(void (*hook)(const char *tmp_path, size_t written, size_t total));

/*
 * UTF-8 (RFC 3629; the rules jansson applies to JSON strings): whether `s`
 * is valid; `s` with every byte that is not part of a valid sequence
 * replaced by U+FFFD (malloc'd, NULL on ENOMEM).
 */
bool utf8_valid(const char *s);
char *utf8_lossy(const char *s);
/* Bytes of `s` as lowercase hex (malloc'd, NULL on ENOMEM). */
char *hex_encode(const char *s);
/*
 * Hex (either case) back to bytes, NUL-terminated, malloc'd in *ret.
 * GPUPROJ_E_INVAL for an odd length, a non-hex digit or a NUL byte;
 * GPUPROJ_E_NOMEM.
 */
int hex_decode(const char *hex, char **ret);

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

/*
 * json-locate.c: the position of a value in JSON text that jansson has
 * parsed. PATH names it as gpuproj's schema errors do: members joined by
 * '.', array indices as [N] ("kernels[3].metrics.bytes.dram"; a member
 * name may hold dots: the longest matching name wins); "" or NULL is the
 * top-level value. MEMBER, when not NULL, names a member of that value
 * (an object) to point at instead, when it is there. *line and *col are
 * 1-based (columns count characters). Returns true when the whole path
 * was found, false when it stopped early: the position is then the deepest
 * value it reached (the top level at worst). false with nothing set for a
 * NULL text, line or col.
 */
bool json_locate(const char *text, size_t len, const char *path, const char *member, int *line,
		 int *col);
/*
 * An error found after parsing that names its value by a path (the PATHLEN
 * bytes at PATH, not NUL-terminated, e.g. taken from the message): *err's
 * line and column become that value's, when err has none yet and the text
 * holds the whole path (json_locate() true); otherwise err is unchanged.
 */
void json_locate_error(const char *text, size_t len, const char *path, size_t pathlen,
		       struct gpuproj_error *err);

/*
 * $SOURCE_DATE_EPOCH (reproducible-builds.org: seconds since 1970-01-01
 * 00:00:00 UTC): *set false when it is unset or empty; else *set true and
 * *ret the time. GPUPROJ_E_INVAL, the variable and its value named, when
 * it is not a non-negative integer that fits a time_t.
 */
int source_date_epoch(bool *set, time_t *ret, struct gpuproj_error *reterr);

/*
 * The absolute CLOCK_REALTIME time `s` seconds (≥ 0, may be fractional)
 * from now, for pthread's timed waits.
 */
void deadline_after(double s, struct timespec *ret);

/* qsort() comparator: ascending doubles (NaN compares equal to everything). */
int cmp_double(const void *a, const void *b);

/* CSV (RFC 4180): a field, quoted when it holds a comma, quote or line break. */
void csv_write_field(FILE *out, const char *s);
/* CSV: a number as %.6g, nothing for NaN (an empty field). */
void csv_write_num(FILE *out, double v);

/* Format ns human-readably into buf ("12.3 us", "4.56 ms", "1.23 s"). */
char *format_ns(double ns, char *buf, size_t size);

#endif
