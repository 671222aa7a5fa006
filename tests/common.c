/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Check suites (see common.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "common.h"

char *
test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (asprintf(&path, "%s/gpuproj-test-XXXXXX", base && *base ? base : "/tmp") < 0)
		abort();
	if (!mkdtemp(path))
		abort();
	return path;
}

char *
test_write_file(const char *dir, const char *name, const char *text)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	if (fclose(f) != 0)
		abort();
	return path;
}

char *
test_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[4096];

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	else
		buf[len] = '\0';
	return buf;
}

int
test_count_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	}
	closedir(d);
	return n;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
test_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *
test_source_root(void)
{
	const char *env = getenv("GPUPROJ_SOURCE_ROOT");

	return env && *env ? env : GPUPROJ_SOURCE_ROOT;
}

const char *
test_data(const char *name)
{
	/* Rotating buffers, so several calls can appear in one argument list. */
	static char path[8][4096];
	static unsigned next;
	char *p = path[next++ % 8];

	snprintf(p, sizeof(path[0]), "%s/tests/data/%s", test_source_root(), name);
	return p;
}

const char *
test_validation_dir(void)
{
	static char path[4096];
	const char *env = getenv("GPUPROJ_VALIDATION_DIR");
	struct stat st;

	if (env && *env)
		snprintf(path, sizeof(path), "%s", env);
	else
		snprintf(path, sizeof(path), "%s/../shared/validation/gpuperfpredict",
			 test_source_root());
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return path;
}

void
test_skip(const char *why)
{
	fprintf(stderr, "SKIP: %s\n", why);
}

static char *
slurp_fd(int fd)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	char chunk[4096];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		if (len + (size_t)n + 1 > cap) {
			cap = (len + (size_t)n + 1) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		memcpy(buf + len, chunk, (size_t)n);
		len += (size_t)n;
	}
	if (!buf)
		buf = calloc(1, 1);
	else
		buf[len] = '\0';
	return buf;
}

int
test_run(const char *cmdline, char **out, char **err)
{
	char *dir = test_tmpdir();
	char *full, *o, *e;
	int status, fd;

	if (asprintf(&full, "%s >'%s/out' 2>'%s/err'", cmdline, dir, dir) < 0)
		abort();
	status = system(full);
	free(full);
	if (asprintf(&o, "%s/out", dir) < 0 || asprintf(&e, "%s/err", dir) < 0)
		abort();
	if (out) {
		fd = open(o, O_RDONLY);
		*out = fd >= 0 ? slurp_fd(fd) : strdup("");
		if (fd >= 0)
			close(fd);
	}
	if (err) {
		fd = open(e, O_RDONLY);
		*err = fd >= 0 ? slurp_fd(fd) : strdup("");
		if (fd >= 0)
			close(fd);
	}
	free(o);
	free(e);
	test_rmtree(dir);
	free(dir);
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

const char *
test_gpuproj(void)
{
	const char *env = getenv("GPUPROJ_EXE");

	return env && *env ? env : "gpuproj";
}

int
test_cli_v(const char *dir, const char *env, char **out, char **err, const char *fmt, va_list ap)
{
	char *args, *cmd;
	int rc;

	if (vasprintf(&args, fmt, ap) < 0)
		abort();
	if (asprintf(&cmd, "%s%s%s%s%s'%s' %s", dir ? "cd '" : "", dir ? dir : "",
		     dir ? "' && " : "", env ? env : "", env && *env ? " " : "", test_gpuproj(),
		     args) < 0)
		abort();
	rc = test_run(cmd, out, err);
	free(cmd);
	free(args);
	return rc;
}

int
test_cli(char **out, char **err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = test_cli_v(NULL, NULL, out, err, fmt, ap);
	va_end(ap);
	return rc;
}

int
test_cli_at(const char *dir, const char *env, char **out, char **err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = test_cli_v(dir, env, out, err, fmt, ap);
	va_end(ap);
	return rc;
}

static char *comma_locale_dir;
static pid_t comma_locale_owner;

/* Forked Check children exit through atexit too: only the process that made it removes it. */
static void
comma_locale_cleanup(void)
{
	if (comma_locale_dir && comma_locale_owner == getpid())
		test_rmtree(comma_locale_dir);
}

const char *
test_comma_locale(void)
{
	static int state; /* 0 not tried, 1 built, -1 unavailable */
	char *dir, *cmd;

	if (state == 0) {
		comma_locale_owner = getpid();
		comma_locale_dir = dir = test_tmpdir();
		atexit(comma_locale_cleanup);
		if (asprintf(&cmd, "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1; "
			     "test -d '%s/de_DE.UTF-8'", dir, dir) < 0)
			abort();
		state = test_run(cmd, NULL, NULL) == 0 ? 1 : -1;
		free(cmd);
	}
	return state == 1 ? comma_locale_dir : NULL;
}

char *
test_write_profile(const char *dir, const char *file, const char *const *json_names, size_t n,
		   double mean_ns)
{
	char *text = NULL, *path;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		abort();
	fprintf(f, "{\n \"schema\": \"gpuproj-profile/1\",\n \"attributes\": {\"origin\": "
		"\"test fixture\"},\n \"device\": {\"name\": \"Test Source GPU\"},\n"
		" \"process\": {\"application\": \"app\", \"pid\": 1, \"rank\": null},\n"
		" \"kernels\": [\n");
	for (i = 0; i < n; i++)
		fprintf(f, "  {\"name\": \"%s\", \"grid\": [%zu, 1, 1], \"block\": [256, 1, 1], "
			"\"launches\": 50, \"profiled_launches\": 1, \"duration_ns\": {\"n\": 50, "
			"\"mean\": %.17g, \"stddev\": 2000}, \"metrics\": {\"inst.fp16.fma\": 0, "
			"\"inst.fp16.add\": 0, \"inst.fp16.mul\": 0, \"inst.fp32.fma\": 1e6, "
			"\"inst.fp32.add\": 0, \"inst.fp32.mul\": 0, \"inst.fp64.fma\": 0, "
			"\"inst.fp64.add\": 0, \"inst.fp64.mul\": 0, \"warp_efficiency\": 1.0, "
			"\"bytes.l1\": 1e8, \"bytes.l2\": 1e8, \"bytes.dram\": 1e8, "
			"\"shared.wavefronts\": 0}}%s\n", json_names[i], 1024 + i, mean_ns,
			i + 1 < n ? "," : "");
	fprintf(f, " ]\n}\n");
	fclose(f);
	path = test_write_file(dir, file, text);
	free(text);
	return path;
}

void
test_assert_terminal_safe(const char *text)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t i;

	for (i = 0; u[i]; i++) {
		ck_assert_msg(u[i] >= 0x20 || u[i] == '\n', "control byte 0x%02x at %zu: %.80s",
			      u[i], i, text + (i > 40 ? i - 40 : 0));
		ck_assert_msg(u[i] != 0x7f, "DEL at %zu", i);
		ck_assert_msg(!(u[i] == 0xc2 && u[i + 1] >= 0x80 && u[i + 1] < 0xa0),
			      "C1 control at %zu", i);
		ck_assert_msg(!(u[i] == 0xe2 && u[i + 1] == 0x80 &&
				((u[i + 2] >= 0xaa && u[i + 2] <= 0xae) || u[i + 2] == 0x8e ||
				 u[i + 2] == 0x8f)), "bidirectional control at %zu", i);
		ck_assert_msg(!(u[i] == 0xe2 && u[i + 1] == 0x81 && u[i + 2] >= 0xa6 &&
				u[i + 2] <= 0xa9), "bidirectional isolate at %zu", i);
	}
}
