/* SPDX-License-Identifier: MIT */
/*
 * Logging of libproj.so: one line per message on stderr, prefixed
 * "[gpuproj] ", written with a single write(2) so lines from several
 * threads never interleave and the application's stdio buffers are never
 * touched. GPUPROJ_LOG (debug|info|warn|error) sets the level.
 *
 * Thread safety: every function may be called from any thread; the level
 * is an atomic set once at start-up.
 */
#ifndef INJ_LOG_H
#define INJ_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum inj_log_level {
	INJ_LOG_DEBUG = 0,
	INJ_LOG_INFO = 1,
	INJ_LOG_WARN = 2,
	INJ_LOG_ERROR = 3,
	INJ_LOG_NONE = 4,	/* nothing (used before start-up and in forked children) */
};

#define INJ_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Set the level (messages below it are dropped). */
void inj_log_set_level(enum inj_log_level level);
/* True when a message of `level` would be printed. */
bool inj_log_enabled(enum inj_log_level level);
/* Print "[gpuproj] <message>\n" when `level` is enabled. */
void inj_log(enum inj_log_level level, const char *fmt, ...) INJ_PRINTF(2, 3);
void inj_logv(enum inj_log_level level, const char *fmt, va_list ap) INJ_PRINTF(2, 0);
/* Print a block of lines (e.g. the report table), each with the prefix. */
void inj_log_block(enum inj_log_level level, const char *text);
/* Write raw bytes to stderr (the live status line), no prefix added. */
void inj_log_raw(const char *text, size_t len);

#define inj_debug(...) inj_log(INJ_LOG_DEBUG, __VA_ARGS__)
#define inj_info(...) inj_log(INJ_LOG_INFO, __VA_ARGS__)
#define inj_warn(...) inj_log(INJ_LOG_WARN, __VA_ARGS__)
#define inj_error(...) inj_log(INJ_LOG_ERROR, __VA_ARGS__)
/* An internal invariant broke: a gpuproj bug, never the user's fault. */

#endif
