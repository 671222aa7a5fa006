/* SPDX-License-Identifier: MIT */
/*
 * Internal helpers of the core library: error filling, strings, files,
 * numbers. Not installed; nothing here is exported from libproj.so.
 *
 * Thread safety: every function is reentrant.
 */
#ifndef GPUPROJ_UTIL_H
#define GPUPROJ_UTIL_H

#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
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
 * An input read in pieces (a streaming parser): the checks and the limit
 * of file_read_limited() (`limit` and `what` as there); file_reader_read()
 * returns the bytes read, 0 at the end, or -1 with err filled (a read
 * error, or more than the limit from a pipe or a growing file). Close with
 * file_reader_close(), `ok` true when the whole file was read as an input
 * (it is then remembered: file_protect_inputs()).
 */
struct file_reader {
	int fd;
	bool is_stdin;
	const char *path, *name, *what;
	uint64_t max, total;
	struct stat st;
};
int file_reader_open(struct file_reader *r, const char *path, uint64_t limit, const char *what,
		     struct gpuproj_error *err);
ssize_t file_reader_read(struct file_reader *r, char *buf, size_t size, struct gpuproj_error *err);
void file_reader_close(struct file_reader *r, bool ok);

/*
 * Read regular files only (libproj.so turns it on: a FIFO named by
 * GPUPROJ_TARGETS must not hang the application at start-up): files are
 * opened O_NONBLOCK, and anything but a regular file is refused
 * (GPUPROJ_E_IO, "is a FIFO, not a regular file; …"). Off by default: the
 * command reads pipes and devices it is given.
 */
void file_inputs_regular_only(bool on);

/*
 * Never overwrite an input: with protection on (the gpuproj
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
 * Whether `path` can be written the way file_write_atomic() writes it:
 * its name fits the file system (pathconf NAME_MAX) and a temporary file
 * can be created (and is removed at once) in its directory. GPUPROJ_OK,
 * or GPUPROJ_E_IO saying why ("cannot create a file in DIR: Read-only file
 * system"), GPUPROJ_E_NOMEM. For a writer that must know before it has
 * anything to write (libproj.so at start-up, so that a report that could
 * not be written at exit goes elsewhere and says so then).
 */
int file_probe_dir(const char *path, struct gpuproj_error *err);
/*
 * Atomically replace `path` with `len` bytes of `data`: write
 * `<dir>/.<base>.<pid>.<n>.<ns>` (the base cut to 32 bytes), fsync, rename. "-" writes stdout. On
 * failure the temporary file is removed and `path` is untouched. A `path`
 * that exists and is not a regular file (/dev/null, a FIFO) is written in
 * place. Refuses (GPUPROJ_E_INVAL) a `path` that is an input of this
 * process (file_check_output()).
 */
int file_write_atomic(const char *path, const char *data, size_t len, struct gpuproj_error *err);
/* file_write_atomic_ex() and file_tmp_open() flags. */
enum {
	/*
	 * Only ever create or replace a regular file (libproj.so inside other
	 * people's processes): a `path` that exists and is anything else —
	 * lstat(): a symbolic link whatever it points at, a FIFO, a device — is
	 * refused (GPUPROJ_E_IO, "is a FIFO, not a regular file; …") and never
	 * opened, checked again before the rename.
	 */
	FILE_WRITE_REGULAR = 1u << 0,
	/*
	 * Never replace an existing `path` (renameat2(RENAME_NOREPLACE); link()
	 * where the file system lacks it): GPUPROJ_E_IO with *ret_exists set
	 * when one is there, and nothing is left behind.
	 */
	FILE_WRITE_NOREPLACE = 1u << 1,
};
/*
 * file_write_atomic() with `flags`. *ret_exists (may be NULL) is set when
 * FILE_WRITE_NOREPLACE found `path` taken. With FILE_WRITE_NOREPLACE,
 * `replaceable` (may be NULL) is the one file that may still be replaced:
 * the regular file lstat() described then (device, inode, modification
 * time: a profile of an earlier run). Whether `path` is still that file is
 * checked in the same step as the rename where the file system exchanges
 * two names (renameat2(RENAME_EXCHANGE), then the old file is looked at and
 * the names exchanged back if it is another), else by lstat() just before
 * rename(); so two processes that found the same earlier file never both
 * replace it, whenever they write.
 */
int file_write_atomic_ex(const char *path, const char *data, size_t len, unsigned flags,
			 const struct stat *replaceable, bool *ret_exists,
			 struct gpuproj_error *err);
/*
 * GPUPROJ_E_IO, naming what it is, when `path` exists and is not a regular
 * file (lstat(): a symbolic link counts as not regular).
 */
int file_check_regular(const char *path, struct gpuproj_error *err);

/*
 * An atomic write in steps, for writers that stream (a large CSV or JSON
 * is never held in memory whole): file_tmp_open() creates the hidden
 * temporary file beside `path` (or, without FILE_WRITE_REGULAR, opens an
 * existing non-regular `path` such as /dev/null to write in place; "-" is
 * standard output), the writer writes through file_tmp_stream() or
 * file_tmp_write(), file_tmp_commit() flushes, fsyncs and renames (every
 * error named with the file), file_tmp_abort() removes the temporary file
 * (commit does it itself on failure). The checks of file_write_atomic()
 * and the flags above apply.
 */
struct file_tmp {
	char *path, *tmp;	/* the destination, the temporary file (NULL in place) */
	int fd, slot;
	FILE *f;		/* after file_tmp_stream() */
	unsigned flags;
	bool in_place, to_stdout;
	/* FILE_WRITE_NOREPLACE: the file that may still be replaced (set by the caller). */
	bool have_replaceable;
	struct stat replaceable;
};
int file_tmp_open(struct file_tmp *t, const char *path, unsigned flags,
		  struct gpuproj_error *err);
/* A stdio stream on the file (NULL on ENOMEM); owned by `t`. */
FILE *file_tmp_stream(struct file_tmp *t);
/* Write bytes (no stream); 0 or the errno of the failure. */
int file_tmp_write(struct file_tmp *t, const char *data, size_t len);
int file_tmp_commit(struct file_tmp *t, bool *ret_exists, struct gpuproj_error *err);
void file_tmp_abort(struct file_tmp *t);

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
 * The "C" locale as a locale object (newlocale(), made once; never freed).
 * Numbers gpuproj reads and writes (YAML, JSON, CSV, the environment) mean
 * the same whatever locale the process runs in: an application under
 * libproj.so may have called setlocale(LC_ALL, "") in a comma-decimal
 * locale (de_DE, fr_FR) before cuInit. Parsers use it with strtod_l();
 * libproj.so makes it the thread's locale (uselocale()) while it formats.
 * (locale_t)0 only when newlocale() failed (then the process locale is used).
 */
locale_t c_locale(void);
/*
 * strtod() in the C locale that reads decimal numbers only: after blanks and
 * a sign, a digit or a '.' followed by a digit must come, and no "0x" (a
 * hexadecimal float: "0x10" would read as 16), "inf" or "nan". *end as
 * strtod() sets it (== s when nothing was read); errno ERANGE on overflow.
 */
double strtod_c(const char *s, char **end);
/* strtold() in the C locale (the same rules as strtod_c()). */
long double strtold_c(const char *s, char **end);

/*
 * Strict number parsing: the whole string must be consumed (surrounding
 * blanks allowed), decimal notation only (strtod_c()), in the C locale.
 * Return false on any garbage, overflow or empty input.
 */
bool parse_double(const char *s, double *ret);
bool parse_int64(const char *s, int64_t *ret);

/*
 * Parse a duration with unit suffix: "50us", "1.5 ms", "200ns", "2s",
 * "50µs"; a bare number is nanoseconds. Returns false on bad input.
 */
bool parse_duration_ns(const char *s, double *ret_ns);

/*
 * ---- JSON scanning (util-json-scan.c): JSON text read without a tree ----
 *
 * Structure only (brackets, commas, colons, strings that end and hold no
 * control character, numbers and literals where values go); spelling,
 * UTF-8 and duplicate keys are left to jansson. Indices are byte offsets.
 */

/* Nesting depth the scanner accepts, as jansson's JSON_PARSER_MAX_DEPTH. */
#define JSON_SCAN_MAX_DEPTH 2048

/* A piece of the text: [start, end). */
struct json_span {
	size_t start, end;
};

/* The index of the first byte at or after i that is not JSON white space. */
size_t json_ws(const char *t, size_t n, size_t i);
/*
 * The value from i (after white space) at nesting `depth` (the root's is
 * 0): the index after it, or 0 when it is not well-formed or nests deeper
 * than JSON_SCAN_MAX_DEPTH.
 */
size_t json_value_end(const char *t, size_t n, size_t i, int depth);

/*
 * The members of an object or the elements of an array, one at a time:
 * json_cursor_open() at the '{' or '[' (after white space; -1 when there
 * is none, or it nests too deep), then json_cursor_next() until it
 * returns 0 (the end: c->i is after the closing bracket) or -1 (not
 * well-formed). On 1, c->i is at the next value (and *key, when not
 * NULL, the member's name with its quotes); the caller moves c->i past
 * it, with json_value_end(t, n, c->i, c->depth + 1) or its own scan.
 */
struct json_cursor {
	const char *t;
	size_t n, i;
	int depth;
	char close;
	bool first;
};
int json_cursor_open(struct json_cursor *c, const char *t, size_t n, size_t i, int depth);
int json_cursor_next(struct json_cursor *c, struct json_span *key);

/*
 * The position of a value in JSON text that jansson has
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

/*
 * CSV (RFC 4180): a field, quoted when it holds a comma, quote or line
 * break. A field that begins with '=', '+', '-', '@', a tab or a carriage
 * return (a formula to a spreadsheet: kernel names come from the profiled
 * program or an imported file) is neutralised as OWASP recommends ("CSV
 * Injection"): a single quote is put before it and the field is quoted, so
 * a spreadsheet shows the text instead of running it.
 */
void csv_write_field(FILE *out, const char *s);
/* Whether csv_write_field() neutralises `s` (it begins like a formula). */
bool csv_is_formula(const char *s);

/*
 * Text for a terminal or a log: what a terminal would act on
 * instead of showing is escaped, as git and journalctl do, so a kernel
 * name cannot set a window title, write the clipboard (OSC 52), make a
 * hyperlink, or return the carriage to overwrite a line: C0 controls and
 * DEL become \a \b \t \n \v \f \r \e or \xNN; C1 controls (U+0080 to
 * U+009F) and the bidirectional controls (U+061C, U+200E, U+200F, U+202A
 * to U+202E, U+2066 to U+2069; they reorder what follows on screen) become
 * \uNNNN; bytes that are not UTF-8 become \xNN. Backslashes are kept as
 * they are, so escaping twice changes nothing (libproj.so escapes every
 * line it logs, tables included).
 *
 * Appends to `sb` at most `max` bytes (SIZE_MAX: all of it); text that does
 * not fit is cut before an escape or a UTF-8 sequence, never inside one,
 * and ends in "..." (counted in `max`, which must then be at least 3).
 */
void term_text(struct strbuf *sb, const char *s, size_t max);
/*
 * term_text() into `buf` (size bytes, NUL included; size >= 4): the whole
 * text when it fits, else cut as above. Uses no heap (libproj.so's log
 * sink calls it on any thread). Returns buf.
 */
char *term_text_buf(const char *s, char *buf, size_t size);
/* term_text() of all of `s`, malloc'd; NULL for NULL or on ENOMEM. */
char *term_strdup(const char *s);
/* Whether `s` holds anything term_text() escapes. */
bool term_text_needs_escape(const char *s);
/*
 * Length of the bidirectional control (U+061C, U+200E, U+200F, U+202A to
 * U+202E, U+2066 to U+2069) at `s` in bytes (2 or 3), or 0 when there is
 * none; its code point in *cp (may be NULL).
 */
size_t text_bidi_len(const char *s, uint32_t *cp);
/* CSV: a number as %.6g, nothing for NaN (an empty field). */
void csv_write_num(FILE *out, double v);

/* Format ns human-readably into buf ("12.3 us", "4.56 ms", "1.23 s"). */
char *format_ns(double ns, char *buf, size_t size);

#endif
