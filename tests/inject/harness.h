/* SPDX-License-Identifier: MIT */
/*
 * Running the real libproj.so inside tests/fake/fake-app on the CUPTI test
 * double, and reading back what it produced: exit status, stdout, the
 * "[gpuproj]" lines of stderr (the report table set apart), the JSON
 * profile and the test double's report (violations, call counts).
 */
#ifndef GPUPROJ_INJECT_HARNESS_H
#define GPUPROJ_INJECT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct run {
	char *dir;		/* scratch directory, the application's cwd */
	char *tmp;		/* dir + ".tmp", the application's TMPDIR (the report's fallback) */
	char *output;		/* dir/out.json (GPUPROJ_OUTPUT) */
	int status;		/* exit status, or 128 + signal */
	int signal;		/* the signal that killed it, 0 */
	char *out, *err;	/* stdout, stderr */
	json_t *json;		/* out.json, NULL when not written */
	char *report;		/* the test double's report, "" when absent */
	char **lines;		/* "[gpuproj] ..." stderr lines outside the table */
	size_t n_lines;
	size_t table_lines;	/* lines of the report table */
};

/*
 * An `env` entry that is no variable: the test double's libcupti.so.13
 * comes without the legacy profiler API (tests/fake/no-legacy/), as a CUPTI
 * that removed what CUDA 13.0 deprecated.
 */
#define INJECT_NO_LEGACY_PROFILER "@no-legacy-profiler"

/*
 * Run fake-app with `cmds` (NULL-terminated). `env` (NULL-terminated)
 * adds or overrides variables ("NAME=value"), or removes one ("-NAME");
 * INJECT_NO_LEGACY_PROFILER swaps in the double without the legacy API.
 * The base environment: the test double first in LD_LIBRARY_PATH,
 * CUDA_INJECTION64_PATH=libproj.so, GPUPROJ_OUTPUT=dir/out.json,
 * GPUPROJ_TARGETS=the fixture, FAKE_REPORT=dir/fake.txt, TMPDIR=r->tmp
 * (an empty directory beside dir: where a report that cannot be written
 * goes), no other GPUPROJ_* variable. $INJECT_WRAPPER (e.g.
 * valgrind) prefixes the command.
 */
void run_app(struct run *r, const char *const *env, const char *const *cmds);
/* Same with an explicit program and arguments instead of fake-app. */
void run_prog(struct run *r, const char *const *env, const char *const *argv);
void run_free(struct run *r);

/* Fail unless r->lines equals `want` (NULL-terminated), printing both. */
void expect_lines(const struct run *r, const char *const *want);
/* Fail unless the test double saw no violation. */
void expect_no_violations(const struct run *r);
/* Calls of a function the test double counted. */
unsigned long fake_report_calls(const struct run *r, const char *func);

/* The kernel record named `name` (and grid x, 0 = any), or NULL. */
json_t *kernel_named(const struct run *r, const char *name, unsigned grid_x);
/* The projection run onto `target`, or NULL. */
json_t *projection_for(const struct run *r, const char *target);
/* Number of kernel records. */
size_t kernel_count(const struct run *r);
/* Attribute value or NULL. */
const char *attr(const struct run *r, const char *key);
/* Metric of a kernel record; NaN when absent. */
double kmetric(json_t *k, const char *name);
/* Integer/real member of an object; -1 / NaN when absent. */
long long jint(json_t *o, const char *key);
double jreal(json_t *o, const char *key);

/* Paths from meson. */
const char *inject_libproj(void);
const char *inject_fake_app(void);
const char *inject_targets(void);
/* A formatted string (aborts on ENOMEM). */
char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* True under valgrind (INJECT_WRAPPER set). */
bool under_wrapper(void);

#endif
