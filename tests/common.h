/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the Check suites: temporary directories and files,
 * reading files back, locating fixtures and ../shared/validation.
 */
#ifndef GPUPROJ_TEST_COMMON_H
#define GPUPROJ_TEST_COMMON_H

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>

/* A fresh directory under $TMPDIR (mkdtemp); the caller frees the string. */
char *test_tmpdir(void);
/* Write `text` to `dir/name`; returns the malloc'd path. Aborts on failure. */
char *test_write_file(const char *dir, const char *name, const char *text);
/* Read a whole file into a malloc'd NUL-terminated string, or NULL. */
char *test_read_file(const char *path);
/* Number of entries in a directory (excluding . and ..), -1 on error. */
int test_count_dir(const char *dir);
/* Remove a directory tree (best effort). */
void test_rmtree(const char *dir);
/* Path of a fixture in tests/data (static buffer, valid for 8 calls). */
const char *test_data(const char *name);
/* The source root (GPUPROJ_SOURCE_ROOT from meson, else config.h's). */
const char *test_source_root(void);
/*
 * The gpuperfpredict data set directory (../shared/validation/gpuperfpredict
 * beside the checkout, or $GPUPROJ_VALIDATION_DIR), or NULL when absent; in
 * that case the caller skips and says so with test_skip().
 */
const char *test_validation_dir(void);
/* Print "SKIP: <why>" to stderr (shown in the meson test log). */
void test_skip(const char *why);
/*
 * A directory holding the comma-decimal locale de_DE.UTF-8, built with
 * glibc's localedef on first use (for LOCPATH), or NULL when it cannot be
 * built (no locale sources): the caller then skips with test_skip().
 * The directory stays for the life of the test process.
 */
const char *test_comma_locale(void);
/*
 * Write DIR/FILE: a profile of Test Source GPU (targets-test.yaml's SrcGPU)
 * with one complete kernel per name (json_names: JSON string contents,
 * escapes allowed, e.g. "\\u001b]0;x\\u0007"), grids 1024, 1025, …, 50
 * launches of mean_ns each (sd 2 us). Returns the malloc'd path.
 */
char *test_write_profile(const char *dir, const char *file, const char *const *json_names,
			 size_t n, double mean_ns);
/*
 * Fail unless `text` is safe on a terminal: no control character but the
 * line feed (C0, DEL, C1), no bidirectional control.
 */
void test_assert_terminal_safe(const char *text);
/*
 * Run a command line with /bin/sh, capturing stdout and stderr into
 * malloc'd strings (either may be NULL if not wanted). Returns the exit
 * status (0–255) or -1 when it did not exit normally.
 */
int test_run(const char *cmdline, char **out, char **err);
/* Path of the built gpuproj executable (GPUPROJ_EXE from meson). */
const char *test_gpuproj(void);
/*
 * The one way the suites run the gpuproj command: `'GPUPROJ' ARGS` through
 * /bin/sh (ARGS printf-formatted; the caller quotes words for the shell),
 * stdout and stderr captured as by test_run(). Returns the exit status
 * (0–255) or -1.
 */
int test_cli(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * As test_cli(), run as `cd 'DIR' && ENV 'GPUPROJ' ARGS`: `dir` NULL runs
 * in the current directory; `env` (shell words before the program, such as
 * "VAR=x env -u Y") may be NULL or "".
 */
int test_cli_at(const char *dir, const char *env, char **out, char **err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* test_cli_at() with a va_list. */
int test_cli_v(const char *dir, const char *env, char **out, char **err, const char *fmt,
	       va_list ap) __attribute__((format(printf, 5, 0)));

#endif
