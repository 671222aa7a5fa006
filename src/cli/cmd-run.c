/* SPDX-License-Identifier: MIT */
/*
 * gpuproj run: run an application under libproj.so (CUDA_INJECTION64_PATH)
 * and let it project at exit. Needs no CUDA at run time for --help and
 * its error paths; the library itself is found next to this executable
 * (build tree) or in the install libdir.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		"  --output PATTERN   report file (GPUPROJ_OUTPUT; default gpuproj-%%p.json;\n"
		"                     %%p pid, %%h host, %%r MPI rank, %%q{VAR} a variable)\n"
		"  --live SECONDS     refresh a status line and a snapshot JSON every SECONDS\n"
		"                     while APP runs (GPUPROJ_LIVE)\n"
		"  -h, --help         show this help\n\n"
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

int
cmd_run(int argc, char **argv)
{
	enum { O_TARGETS = 256, O_OUTPUT, O_LIVE };
	static const struct option opts[] = {
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "output", required_argument, NULL, O_OUTPUT },
		{ "live", required_argument, NULL, O_LIVE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *targets = NULL, *output = NULL, *live = NULL, *old;
	char looked[2 * PATH_MAX + 64], *lib, *end, real[PATH_MAX];
	struct gpuproj_targets *t = NULL;
	double secs;
	int c, e;

	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, so APP's own options stay APP's. */
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case O_TARGETS: targets = optarg; break;
		case O_OUTPUT: output = optarg; break;
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
	lib = find_libproj(looked, sizeof(looked));
	if (!lib)
		return cli_fail("run: cannot find libproj.so (looked for %s); it is built when the CUDA "
				"toolkit is found (meson -Dcupti=enabled)", looked);
	old = getenv("CUDA_INJECTION64_PATH");
	if (old && *old && strcmp(old, lib) != 0)
		fprintf(stderr, "gpuproj: run: CUDA_INJECTION64_PATH was '%s'; using %s instead\n",
			old, lib);
	setenv("CUDA_INJECTION64_PATH", lib, 1);
	if (output)
		setenv("GPUPROJ_OUTPUT", output, 1);
	if (live)
		setenv("GPUPROJ_LIVE", live, 1);
	free(lib);
	execvp(argv[optind], argv + optind);
	e = errno;
	fprintf(stderr, "gpuproj: run: cannot run '%s': %s\n", argv[optind], strerror(e));
	return e == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
}
