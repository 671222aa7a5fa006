/* SPDX-License-Identifier: MIT */
/*
 * gpuproj sass: count FP instructions per kernel in the SASS of several
 * architectures, find the special-function blocks, and print the
 * target/source FLOP ratio hroof uses (include/gpuproj/sass.h, docs/sass.md).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/sass.h>

#include "cli.h"
#include "util.h"

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj sass [options] FILE|DIR...\n\n"
		"Compare the SASS of each kernel across GPU architectures (Van Lanker et al.\n"
		"2024, §4.2): FP instructions by kind in all code and in the basic blocks that\n"
		"implement special functions (division, square root, reciprocal, exp/log,\n"
		"sin/cos: MUFU-based sequences and their slow paths), FLOP per static pass,\n"
		"and the target/source FLOP ratio the hroof model applies.\n\n"
		"FILE: an executable, shared library or object (.nv_fatbin, __nv_relfatbin),\n"
		"a fatbin or a cubin; DIR: every *.cubin and *.fatbin in it. Architectures\n"
		"without SASS in the binary are compiled from its PTX (libnvJitLink or ptxas).\n\n"
		"Options:\n"
		"  --arch sm_XY          analyse this architecture; repeat for several\n"
		"                        (default: every architecture with SASS in the input)\n"
		"  --source-arch sm_XY   the source of the ratios (default: the first --arch,\n"
		"                        else the lowest architecture)\n"
		"  --format FMT          table (default) or json\n"
		"  -o, --output FILE     write to FILE instead of standard output\n"
		"  --kernel TEXT         only kernels whose name contains TEXT\n"
		"  --jobs N              parallel nvdisasm / compiler processes (default: CPUs)\n"
		"  --slow-path-weight W  slow-path executions per special-function execution,\n"
		"                        0..1 (default 0: operands are normal numbers)\n"
		"  -h, --help            show this help\n\n"
		"ratio = (F_s - S_s + S_t) / F_s, F = FLOP of the kernel, S = FLOP of its\n"
		"special blocks, per static pass (each block once); see docs/sass.md.\n"
		"Needs nvdisasm: the CUDA toolkit's, or `pip install nvidia-cuda-nvdisasm`.\n"
		"sm_70/sm_72 (dropped by CUDA 13) need a CUDA 11/12 nvdisasm (and ptxas for\n"
		"PTX): $GPUPROJ_NVDISASM_LEGACY, ~/.cache/gpuproj/legacy-cuda/bin or PATH.\n\n");
	cli_print_shared_help(f);
	cli_print_exit_status(f, "sass");
}

enum format { FMT_TABLE, FMT_JSON };
static const char *const format_names[] = { "table", "json" };

/* The library's (phase, done, total, what): the shared progress, the phase as its unit. */
static void
progress(void *userdata, const char *phase, size_t done, size_t total, const char *what)
{
	(void)what;
	cli_progress_phase(userdata, phase, done, total);
}

/* What the table and JSON writers need (cli_write_output's render callback). */
struct sass_out {
	bool json;
	const struct gpuproj_sass *s;
	const char *source, *filter;
	double weight;
};

static int
render_sass(FILE *f, void *userdata)
{
	const struct sass_out *o = userdata;
	char *text;
	int r;

	if (!o->json)
		return gpuproj_sass_write_table(f, o->s, o->source, o->filter, o->weight);
	r = gpuproj_sass_json(o->s, o->source, o->filter, o->weight, &text);
	if (r == GPUPROJ_OK && fputs(text, f) == EOF)
		r = GPUPROJ_E_IO;
	free(text);
	return r;
}

/* The command line, parsed. */
struct sass_args {
	const char **archs, *source, *output, *filter;
	size_t n_archs, jobs;
	int fmt;
	struct cli_shared shared; /* -q, --progress */
	struct gpuproj_sass_options sopt;
};

/* "sm_XY": sm_ and a digit 1-9. */
static bool
is_sm_arch(const char *s)
{
	return strncmp(s, "sm_", 3) == 0 && s[3] >= '1' && s[3] <= '9';
}

/*
 * --arch and --source-arch checked; the source analysed too, first.
 * Returns -1 to go on, else the usage error's status.
 */
static int
check_archs(struct sass_args *a)
{
	size_t i;

	for (i = 0; i < a->n_archs; i++) {
		if (!is_sm_arch(a->archs[i]))
			return cli_usage_error("sass", "--arch needs sm_XY (e.g. sm_90), got '%s'",
					       a->archs[i]);
	}
	if (!a->source)
		return -1;
	if (!is_sm_arch(a->source))
		return cli_usage_error("sass", "--source-arch needs sm_XY (e.g. sm_70), got '%s'",
				       a->source);
	for (i = 0; i < a->n_archs && strcmp(a->archs[i], a->source) != 0; i++)
		;
	if (a->n_archs && i == a->n_archs) {
		memmove(a->archs + 1, a->archs, a->n_archs * sizeof(*a->archs));
		a->archs[0] = a->source;
		a->n_archs++;
	}
	return -1;
}

/* The options and their usage errors. Returns -1 to go on, else the exit status. */
static int
parse_args(int argc, char **argv, struct sass_args *a)
{
	enum { O_ARCH = 256, O_SOURCE, O_FORMAT, O_KERNEL, O_JOBS, O_WEIGHT };
	static const struct option opts[] = {
		{ "arch", required_argument, NULL, O_ARCH },
		{ "source-arch", required_argument, NULL, O_SOURCE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "kernel", required_argument, NULL, O_KERNEL },
		{ "jobs", required_argument, NULL, O_JOBS },
		{ "slow-path-weight", required_argument, NULL, O_WEIGHT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double *w = &a->sopt.slow_path_weight;
	char *end;
	int c;

	optind = 1;
	opterr = 0;
	a->archs = calloc((size_t)argc + 2, sizeof(*a->archs));
	if (!a->archs)
		return cli_fail("out of memory");
	while ((c = getopt_long(argc, argv, ":ho:q", cli_options(opts), NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case O_ARCH: a->archs[a->n_archs++] = optarg; break;
		case O_SOURCE: a->source = optarg; break;
		case 'o': a->output = optarg; break;
		case O_KERNEL: a->filter = optarg; break;
		case 'q':
		case CLI_O_PROGRESS:
			if (cli_shared_option("sass", c, optarg, &a->shared) < 0)
				return EXIT_USAGE;
			break;
		case O_JOBS:
			if (!cli_parse_size("sass", "--jobs", optarg, &a->jobs))
				return EXIT_USAGE;
			break;
		case O_WEIGHT:
			errno = 0;
			*w = strtod_c(optarg, &end);
			if (errno || end == optarg || *end || !(*w >= 0) || *w > 1)
				return cli_usage_error("sass", "--slow-path-weight needs a number "
						       "between 0 and 1, got '%s'", optarg);
			break;
		case O_FORMAT:
			if (!cli_parse_format("sass", optarg, format_names, ARRAY_LENGTH(format_names),
					      &a->fmt))
				return EXIT_USAGE;
			break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("sass", c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("sass", "missing FILE (an executable, fatbin, cubin or a "
				       "directory of them)");
	return check_archs(a);
}

int
cmd_sass(int argc, char **argv)
{
	struct sass_args a = { .fmt = FMT_TABLE };
	struct gpuproj_sass *s = NULL;
	struct gpuproj_error err = { 0 };
	struct cli_progress prog;
	bool all_ok = true;
	size_t i;
	int r, ret = parse_args(argc, argv, &a);

	if (ret >= 0)
		goto out;
	ret = EXIT_FAIL;
	a.sopt.archs = a.archs;
	a.sopt.n_archs = a.n_archs;
	a.sopt.jobs = (unsigned)a.jobs;
	cli_progress_init(&prog, &a.shared, "sass", "");
	a.sopt.progress = progress;
	a.sopt.progress_userdata = &prog;
	r = gpuproj_sass_analyze((const char *const *)argv + optind, (size_t)(argc - optind),
				 &a.sopt, &s, &err);
	cli_progress_break(&prog);
	if (r) {
		cli_fail_error(&err);
		goto out;
	}
	if (!a.source)
		a.source = gpuproj_sass_arch_at(s, 0);
	for (i = 0; i < gpuproj_sass_arch_count(s); i++) {
		const char *note;

		if (gpuproj_sass_arch_status(s, i, &note) != GPUPROJ_OK) {
			fprintf(stderr, "gpuproj: sass: %s: %s\n", gpuproj_sass_arch_at(s, i),
				cli_shown(note));
			all_ok = false;
		}
	}
	{
		struct sass_out o = { .json = a.fmt == FMT_JSON, .s = s, .source = a.source,
				      .filter = a.filter, .weight = a.sopt.slow_path_weight };

		if (cli_write_output(a.output, render_sass, &o))
			goto out;
	}
	ret = all_ok ? EXIT_OK : EXIT_FAIL;
out:
	gpuproj_sass_free(s);
	free(a.archs);
	return ret;
}
