/* SPDX-License-Identifier: MIT */
/*
 * gpuproj run: run an application under libproj.so (CUDA_INJECTION64_PATH)
 * and let it project at exit. Needs no CUDA at run time for --help and
 * its error paths; the library itself is found next to this executable
 * (build tree) or in the install libdir ($GPUPROJ_LIBPROJ overrides).
 *
 * APP runs as a child: its status is the command's; SIGTERM and SIGHUP
 * are passed on to it, SIGINT and SIGQUIT reach it from the terminal (as
 * system(3)). When libproj.so never started in the run (APP never
 * initialised CUDA, or the library could not load), one line says that
 * nothing was profiled and why: libproj.so creates the file
 * $GPUPROJ_RUN_MARK when the CUDA driver starts it (inject/entry.c).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <gpuproj/target.h>

#include "cli.h"
#include "util.h"

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj run [options] [--] APP [ARGS...]\n\n"
		"Run APP unmodified under libproj.so, the CUPTI injection library: every kernel\n"
		"launch is timed, the first launch of each kernel signature is profiled for\n"
		"metrics, and at exit a projection table for every GPU in targets.yaml is\n"
		"printed on standard error and the profile with its projections is written as\n"
		"JSON. APP's own output and exit status are unchanged.\n\n"
		"Options:\n"
		"  --targets FILE     GPU descriptions for the projections (GPUPROJ_TARGETS;\n"
		"                     default: the built-in targets.yaml)\n"
		"  -o, --output PATTERN  report file (GPUPROJ_OUTPUT; default\n"
		"                     gpuproj-%%p.json; %%p pid, %%h host, %%r MPI rank, %%q{VAR}\n"
		"                     a variable)\n"
		"  --live SECONDS     refresh a status line and a snapshot JSON every SECONDS\n"
		"                     while APP runs (GPUPROJ_LIVE)\n"
		"  -h, --help         show this help\n\n"
		"When nothing was profiled (APP never initialised CUDA, or libproj.so could\n"
		"not load) one line on standard error says so and why.\n\n"
		"Other GPUPROJ_* variables (GPUPROJ_PROFILE_LAUNCHES, GPUPROJ_KERNEL_REGEX,\n"
		"GPUPROJ_MODE, GPUPROJ_LOG, ...) pass through; docs/libproj.md lists them.\n"
		"The same works without this command:\n"
		"  CUDA_INJECTION64_PATH=/path/to/libproj.so APP ARGS...\n\n");
	cli_print_exit_status(f, "run");
}

/* libproj.so beside this executable in a build tree, else the install libdir. */
static char *
find_libproj(char *looked, size_t size)
{
	char exe[PATH_MAX], *slash, *cand;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *dirs[2];
	size_t i;

	looked[0] = '\0';
	dirs[0] = NULL;
	dirs[1] = GPUPROJ_LIBDIR;
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			/* build/src/cli/gpuproj → build/inject/libproj.so */
			if (asprintf(&cand, "%s/../../inject", exe) >= 0)
				dirs[0] = cand;
		}
	}
	for (i = 0; i < 2; i++) {
		char path[PATH_MAX + 32], real[PATH_MAX];

		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/libproj.so", dirs[i]);
		snprintf(looked + strlen(looked), size - strlen(looked), "%s%s",
			 looked[0] ? ", " : "", path);
		if (access(path, R_OK) == 0 && realpath(path, real)) {
			free((char *)dirs[0]);
			return strdup(real);
		}
	}
	free((char *)dirs[0]);
	return NULL;
}

/* Why libproj.so cannot load (a child dlopen()s it: constructors stay there), or NULL. */
static char *
load_problem(const char *lib)
{
	char buf[512] = "";
	int fds[2], status;
	ssize_t n = 0;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return NULL;
	pid = fork();
	if (pid == 0) {
		const char *e;

		close(fds[0]);
		unsetenv("GPUPROJ_PRELOAD"); /* the constructor must not start profiling */
		if (!dlopen(lib, RTLD_NOW | RTLD_LOCAL)) {
			e = dlerror();
			if (e && write(fds[1], e, strlen(e)) < 0)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	if (pid > 0) {
		do
			n = read(fds[0], buf, sizeof(buf) - 1);
		while (n < 0 && errno == EINTR);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

static volatile sig_atomic_t g_child;

/* SIGTERM, SIGHUP: passed on to APP, which decides (the command then has its status). */
static void
pass_on(int sig)
{
	if (g_child > 0)
		kill((pid_t)g_child, sig);
}

/*
 * Run APP as a child with `mark` in GPUPROJ_RUN_MARK; returns its wait
 * status, or -1 after printing why it could not be run (*ret_code: 126
 * or 127).
 */
static int
run_child(char **argv, int *ret_code)
{
	struct sigaction pass = { .sa_handler = pass_on }, ign = { .sa_handler = SIG_IGN };
	struct sigaction old[4];
	int fds[2], status = -1, e = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0) {
		cli_fail("run: %s", strerror(errno));
		*ret_code = EXIT_ERROR;
		return -1;
	}
	sigemptyset(&pass.sa_mask);
	sigemptyset(&ign.sa_mask);
	sigaction(SIGTERM, &pass, &old[0]);
	sigaction(SIGHUP, &pass, &old[1]);
	sigaction(SIGINT, &ign, &old[2]);
	sigaction(SIGQUIT, &ign, &old[3]);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGTERM, &old[0], NULL);
		sigaction(SIGHUP, &old[1], NULL);
		sigaction(SIGINT, &old[2], NULL);
		sigaction(SIGQUIT, &old[3], NULL);
		close(fds[0]);
		execvp(argv[0], argv);
		e = errno;
		if (write(fds[1], &e, sizeof(e)) < 0)
			_exit(EXIT_CANNOT_EXEC);
		_exit(e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
	}
	close(fds[1]);
	if (pid < 0) {
		cli_fail("run: cannot start '%s': %s", argv[0], strerror(errno));
		*ret_code = EXIT_ERROR;
		close(fds[0]);
		return -1;
	}
	g_child = pid;
	/* exec's errno, or nothing once exec succeeded (the pipe closes on exec). */
	do
		n = read(fds[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	g_child = 0;
	sigaction(SIGTERM, &old[0], NULL);
	sigaction(SIGHUP, &old[1], NULL);
	sigaction(SIGINT, &old[2], NULL);
	sigaction(SIGQUIT, &old[3], NULL);
	if (n == (ssize_t)sizeof(e)) {
		fprintf(stderr, "gpuproj: run: cannot run '%s': %s\n", cli_shown(argv[0]),
			strerror(e));
		*ret_code = e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
		return -1;
	}
	return status;
}

int
cmd_run(int argc, char **argv)
{
	enum { O_TARGETS = 256, O_LIVE };
	static const struct option opts[] = {
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "output", required_argument, NULL, 'o' },
		{ "live", required_argument, NULL, O_LIVE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *targets = NULL, *output = NULL, *live = NULL, *old, *env_lib;
	char looked[2 * PATH_MAX + 64], *lib, *end, real[PATH_MAX], *problem = NULL;
	char dir[PATH_MAX], mark[PATH_MAX + 16];
	bool loaded;
	int status;
	struct gpuproj_targets *t = NULL;
	double secs;
	int c, e = 0;

	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, so APP's own options stay APP's. */
	while ((c = getopt_long(argc, argv, "+:ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case O_TARGETS: targets = optarg; break;
		case 'o': output = optarg; break;
		case O_LIVE: live = optarg; break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("run", c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("run", "missing APP to run");
	if (output && !*output)
		return cli_usage_error("run", "--output needs a file name pattern");
	if (live) {
		errno = 0;
		secs = strtod_c(live, &end);
		if (errno || end == live || *end || !isfinite(secs) || secs < 0.1 || secs > 86400)
			return cli_usage_error("run", "--live needs a number of seconds from 0.1 to "
					       "86400, not '%s'", live);
	}
	if (targets) {
		/* Check it now (clear errors before the run), and pin it: APP may chdir. */
		if (cli_load_targets(targets, &t, NULL))
			return EXIT_FAIL;
		t = gpuproj_targets_free(t);
		if (!realpath(targets, real))
			return cli_fail("%s: %s", targets, strerror(errno));
		setenv("GPUPROJ_TARGETS", real, 1);
	}
	env_lib = getenv("GPUPROJ_LIBPROJ");
	lib = env_lib && *env_lib ? strdup(env_lib) : find_libproj(looked, sizeof(looked));
	if (lib)
		problem = load_problem(lib);
	else if (asprintf(&problem, "libproj.so was not found (looked for %s; it is built when "
			  "the CUDA toolkit is found, meson -Dcupti=enabled)", looked) < 0)
		problem = NULL;
	if (lib) {
		old = getenv("CUDA_INJECTION64_PATH");
		if (old && *old && strcmp(old, lib) != 0)
			fprintf(stderr, "gpuproj: run: CUDA_INJECTION64_PATH was '%s'; using %s "
				"instead\n", cli_shown(old), cli_shown(lib));
		setenv("CUDA_INJECTION64_PATH", lib, 1);
	}
	if (output)
		setenv("GPUPROJ_OUTPUT", output, 1);
	if (live)
		setenv("GPUPROJ_LIVE", live, 1);
	/* The handshake's file, in a directory of its own. */
	snprintf(dir, sizeof(dir), "%s/gpuproj-run-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir)) {
		snprintf(mark, sizeof(mark), "%s/loaded", dir);
		setenv("GPUPROJ_RUN_MARK", mark, 1);
	} else {
		dir[0] = mark[0] = '\0';
	}
	status = run_child(argv + optind, &e);
	loaded = mark[0] && access(mark, F_OK) == 0;
	if (mark[0]) {
		unlink(mark);
		rmdir(dir);
	}
	if (status >= 0 && !loaded && mark[0]) {
		if (lib && !problem)
			fprintf(stderr, "gpuproj: run: nothing was profiled: %s never initialised "
				"CUDA, so the CUDA driver never loaded libproj.so (a program "
				"without CUDA calls, or a static one that cannot load "
				"libcuda.so)\n", cli_shown(argv[optind]));
		else if (lib)
			fprintf(stderr, "gpuproj: run: nothing was profiled: libproj.so could not "
				"load: %s\n", cli_shown(problem));
		else
			fprintf(stderr, "gpuproj: run: nothing was profiled: %s\n",
				problem ? cli_shown(problem) : "libproj.so was not found");
	}
	free(lib);
	free(problem);
	if (status < 0)
		return e;
	if (WIFSIGNALED(status)) {
		/* Die of the same signal, as the shell would report APP's death. */
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
