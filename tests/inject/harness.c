/* SPDX-License-Identifier: MIT */
/*
 * Scenario runner of the injection tests (see harness.h): fork + execve of
 * the scripted application with a controlled environment, then parsing of
 * what it left behind.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "harness.h"

extern char **environ;

char *
fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

static const char *
need_env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v) {
		fprintf(stderr, "%s is not set (run through meson test)\n", name);
		abort();
	}
	return v;
}

const char *
inject_libproj(void)
{
	return need_env("INJECT_LIBPROJ");
}

const char *
inject_fake_app(void)
{
	return need_env("INJECT_FAKE_APP");
}

const char *
inject_targets(void)
{
	return need_env("INJECT_TARGETS");
}

bool
under_wrapper(void)
{
	const char *w = getenv("INJECT_WRAPPER");

	return w && *w;
}

/* ---- environment ---- */

struct envv {
	char **v;
	size_t n, cap;
};

static void
env_set(struct envv *e, const char *kv)
{
	size_t len = strcspn(kv, "="), i;
	bool unset = kv[0] == '-';

	if (unset) {
		kv++;
		len = strlen(kv);
	}
	for (i = 0; i < e->n; i++) {
		if (strncmp(e->v[i], kv, len) == 0 && e->v[i][len] == '=') {
			free(e->v[i]);
			if (unset) {
				e->v[i] = e->v[--e->n];
				e->v[e->n] = NULL;
			} else {
				e->v[i] = strdup(kv);
			}
			return;
		}
	}
	if (unset)
		return;
	if (e->n + 2 > e->cap) {
		e->cap = e->cap ? 2 * e->cap : 64;
		e->v = realloc(e->v, e->cap * sizeof(*e->v));
		if (!e->v)
			abort();
	}
	e->v[e->n++] = strdup(kv);
	e->v[e->n] = NULL;
}

static void
env_free(struct envv *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
}

/* ---- reading back ---- */

static char *
read_file(const char *path)
{
	char *s = test_read_file(path);

	return s ? s : strdup("");
}

static bool
starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static void
split_lines(struct run *r)
{
	char *copy = strdup(r->err), *line, *save = NULL;
	char *table_head = fmt("[gpuproj] gpuproj %s, model ", GPUPROJ_VERSION);
	bool in_table = false;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!starts(line, "[gpuproj]"))
			continue;
		if (starts(line, table_head))
			in_table = true;
		if (in_table && (starts(line, "[gpuproj] wrote ") ||
				 starts(line, "[gpuproj] cannot write the report")))
			in_table = false;
		if (in_table) {
			r->table_lines++;
			continue;
		}
		r->lines = realloc(r->lines, (r->n_lines + 1) * sizeof(*r->lines));
		r->lines[r->n_lines++] = strdup(line);
	}
	free(table_head);
	free(copy);
}

void
run_prog(struct run *r, const char *const *env, const char *const *argv)
{
	struct envv e = { 0 };
	char **args = NULL, *wrap = NULL, *tok, *save = NULL, *path;
	size_t n = 0, i;
	const char *w = getenv("INJECT_WRAPPER");
	char **p;
	pid_t pid;
	int status;
	json_error_t jerr;

	memset(r, 0, sizeof(*r));
	r->dir = test_tmpdir();
	r->output = fmt("%s/out.json", r->dir);
	r->tmp = fmt("%s.tmp", r->dir);
	ck_assert_int_eq(mkdir(r->tmp, 0700), 0);
	for (p = environ; *p; p++) {
		if (starts(*p, "GPUPROJ_") || starts(*p, "CUDA_INJECTION64_PATH=") ||
		    starts(*p, "LD_PRELOAD=") || starts(*p, "OMPI_") || starts(*p, "PMI_") ||
		    starts(*p, "PMIX_") || starts(*p, "SLURM_") || starts(*p, "CUDA_MPS_") ||
		    starts(*p, "MV2_") || starts(*p, "PALS_") || starts(*p, "ALPS_") ||
		    starts(*p, "RANK=") || starts(*p, "LOCAL_RANK=") || starts(*p, "LC_") ||
		    starts(*p, "LANG=") || starts(*p, "LOCPATH="))
			continue;
		env_set(&e, *p);
	}
	{
		const char *old = getenv("LD_LIBRARY_PATH");
		bool nolegacy = false;
		char *kv;

		for (i = 0; env && env[i]; i++)
			nolegacy |= strcmp(env[i], INJECT_NO_LEGACY_PROFILER) == 0;
		kv = fmt("LD_LIBRARY_PATH=%s%s%s%s%s",
			 nolegacy ? need_env("INJECT_FAKE_NOLEGACY_LIBDIR") : "", nolegacy ? ":" : "",
			 need_env("INJECT_FAKE_LIBDIR"), old && *old ? ":" : "", old && *old ? old : "");
		env_set(&e, kv);
		free(kv);
	}
#define SET(...) \
	do { \
		char *kv_ = fmt(__VA_ARGS__); \
		env_set(&e, kv_); \
		free(kv_); \
	} while (0)
	SET("CUDA_INJECTION64_PATH=%s", inject_libproj());
	SET("GPUPROJ_OUTPUT=%s", r->output);
	SET("GPUPROJ_TARGETS=%s", inject_targets());
	SET("FAKE_REPORT=%s/fake.txt", r->dir);
	SET("TMPDIR=%s", r->tmp);
#undef SET
	for (i = 0; env && env[i]; i++) {
		if (strcmp(env[i], INJECT_NO_LEGACY_PROFILER) != 0)
			env_set(&e, env[i]);
	}

	/* argv: wrapper words, then the program. */
	if (w && *w) {
		wrap = strdup(w);
		for (tok = strtok_r(wrap, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			args = realloc(args, (n + 2) * sizeof(*args));
			args[n++] = tok;
		}
	}
	for (i = 0; argv[i]; i++) {
		args = realloc(args, (n + 2) * sizeof(*args));
		args[n++] = (char *)argv[i];
	}
	args[n] = NULL;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *o = fmt("%s/stdout", r->dir), *er = fmt("%s/stderr", r->dir);
		int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(er, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 || fe < 0 || chdir(r->dir) != 0)
			_exit(126);
		dup2(fo, 1);
		dup2(fe, 2);
		execve(args[0], args, e.v);
		if (!strchr(args[0], '/'))
			execvpe(args[0], args, e.v);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status)) {
		r->signal = WTERMSIG(status);
		r->status = 128 + r->signal;
	} else {
		r->status = WEXITSTATUS(status);
	}
	path = fmt("%s/stdout", r->dir);
	r->out = read_file(path);
	free(path);
	path = fmt("%s/stderr", r->dir);
	r->err = read_file(path);
	free(path);
	path = fmt("%s/fake.txt", r->dir);
	r->report = read_file(path);
	free(path);
	{
		/* Only a regular file: a FIFO a scenario planted would block the open. */
		struct stat st;

		if (lstat(r->output, &st) == 0 && S_ISREG(st.st_mode))
			r->json = json_load_file(r->output, 0, &jerr);
	}
	split_lines(r);
	free(args);
	free(wrap);
	env_free(&e);
	/* Show what happened in the test log. */
	fprintf(stderr, "---- exit %d, stderr:\n%s---- fake report:\n%s", r->status, r->err,
		r->report);
}

void
run_app(struct run *r, const char *const *env, const char *const *cmds)
{
	const char *argv[64];
	size_t n = 0, i;

	argv[n++] = inject_fake_app();
	for (i = 0; cmds[i] && n < 63; i++)
		argv[n++] = cmds[i];
	argv[n] = NULL;
	run_prog(r, env, argv);
}

void
run_free(struct run *r)
{
	size_t i;

	for (i = 0; i < r->n_lines; i++)
		free(r->lines[i]);
	free(r->lines);
	json_decref(r->json);
	if (r->dir)
		test_rmtree(r->dir);
	if (r->tmp)
		test_rmtree(r->tmp);
	free(r->dir);
	free(r->tmp);
	free(r->output);
	free(r->out);
	free(r->err);
	free(r->report);
	memset(r, 0, sizeof(*r));
}

void
expect_lines(const struct run *r, const char *const *want)
{
	size_t n = 0, i;
	bool ok;

	while (want[n])
		n++;
	ok = n == r->n_lines;
	for (i = 0; ok && i < n; i++)
		ok = strcmp(want[i], r->lines[i]) == 0;
	if (!ok) {
		fprintf(stderr, "expected %zu line(s):\n", n);
		for (i = 0; i < n; i++)
			fprintf(stderr, "  <%s>\n", want[i]);
		fprintf(stderr, "got %zu:\n", r->n_lines);
		for (i = 0; i < r->n_lines; i++)
			fprintf(stderr, "  <%s>%s\n", r->lines[i],
				i < n && strcmp(want[i], r->lines[i]) ? "   <-- differs" : "");
	}
	ck_assert_msg(ok, "stderr lines differ (see the log)");
}

void
expect_no_violations(const struct run *r)
{
	ck_assert_msg(starts(r->report, "violations 0\n"), "test double report: %s", r->report);
}

unsigned long
fake_report_calls(const struct run *r, const char *func)
{
	char *key = fmt("\ncalls %s ", func);
	const char *p = strstr(r->report, key);
	unsigned long n = 0;

	if (p)
		n = strtoul(p + strlen(key), NULL, 10);
	free(key);
	return n;
}

json_t *
kernel_named(const struct run *r, const char *name, unsigned grid_x)
{
	json_t *ks = json_object_get(r->json, "kernels"), *k;
	size_t i;

	json_array_foreach(ks, i, k) {
		const char *n = json_string_value(json_object_get(k, "name"));

		if (n && strcmp(n, name) == 0 &&
		    (!grid_x ||
		     json_integer_value(json_array_get(json_object_get(k, "grid"), 0)) == grid_x))
			return k;
	}
	return NULL;
}

json_t *
projection_for(const struct run *r, const char *target)
{
	json_t *ps = json_object_get(r->json, "projections"), *p;
	size_t i;

	json_array_foreach(ps, i, p) {
		const char *t = json_string_value(json_object_get(p, "target"));

		if (t && strcmp(t, target) == 0)
			return p;
	}
	return NULL;
}

size_t
kernel_count(const struct run *r)
{
	return json_array_size(json_object_get(r->json, "kernels"));
}

const char *
attr(const struct run *r, const char *key)
{
	return json_string_value(json_object_get(json_object_get(r->json, "attributes"), key));
}

long long
jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

double
jreal(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

double
kmetric(json_t *k, const char *name)
{
	json_t *m = json_object_get(json_object_get(k, "metrics"), name);

	if (json_is_number(m))
		return json_number_value(m);
	if (json_is_object(m))
		return jreal(m, "value");
	return NAN;
}
