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
		"  -q, --quiet           no progress on standard error\n"
		"  -h, --help            show this help\n\n"
		"ratio = (F_s - S_s + S_t) / F_s, F = FLOP of the kernel, S = FLOP of its\n"
		"special blocks, per static pass (each block once); see docs/sass.md.\n"
		"Needs nvdisasm: the CUDA toolkit's, or `pip install nvidia-cuda-nvdisasm`.\n"
		"sm_70/sm_72 (dropped by CUDA 13) need a CUDA 11/12 nvdisasm (and ptxas for\n"
		"PTX): $GPUPROJ_NVDISASM_LEGACY, ~/.cache/gpuproj/legacy-cuda/bin or PATH.\n\n"
		"Exit status: 0 success, 1 failure (also when an architecture could not be\n"
		"analysed; the others are still printed), 2 bad usage.\n");
}

enum format { FMT_TABLE, FMT_JSON };
static const char *const format_names[] = { "table", "json" };

static void
progress(void *userdata, const char *phase, size_t done, size_t total, const char *what)
{
	(void)userdata;
	fprintf(stderr, "\rgpuproj sass: %s %zu/%zu %s...\033[K", phase, done, total,
		cli_shown(what));
	if (done == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
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

int
cmd_sass(int argc, char **argv)
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
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gpuproj_sass_options sopt = { 0 };
	struct gpuproj_sass *s = NULL;
	struct gpuproj_error err = { 0 };
	const char **archs = NULL, *source = NULL, *output = NULL, *filter = NULL;
	size_t n_archs = 0, jobs = 0, a;
	int fmt = FMT_TABLE;
	bool quiet = false, all_ok = true;
	char *end;
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	archs = calloc((size_t)argc + 2, sizeof(*archs));
	if (!archs)
		return cli_fail("out of memory");
	while ((c = getopt_long(argc, argv, ":ho:q", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			ret = EXIT_OK;
			goto out;
		case O_ARCH: archs[n_archs++] = optarg; break;
		case O_SOURCE: source = optarg; break;
		case 'o': output = optarg; break;
		case O_KERNEL: filter = optarg; break;
		case 'q': quiet = true; break;
		case O_JOBS:
			if (!cli_parse_size("sass", "--jobs", optarg, &jobs)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_WEIGHT:
			errno = 0;
			sopt.slow_path_weight = strtod_c(optarg, &end);
			if (errno || end == optarg || *end || !(sopt.slow_path_weight >= 0) ||
			    sopt.slow_path_weight > 1) {
				ret = cli_usage_error("sass", "--slow-path-weight needs a number between "
						      "0 and 1, got '%s'", optarg);
				goto out;
			}
			break;
		case O_FORMAT:
			if (!cli_parse_format("sass", optarg, format_names, ARRAY_LENGTH(format_names),
					      &fmt)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		default: /* ':' missing value, '?' unknown option */
			ret = cli_option_error("sass", c, argv);
			goto out;
		}
	}
	if (optind >= argc) {
		ret = cli_usage_error("sass", "missing FILE (an executable, fatbin, cubin or a "
				      "directory of them)");
		goto out;
	}
	for (a = 0; a < n_archs; a++) {
		if (strncmp(archs[a], "sm_", 3) != 0 || archs[a][3] < '1' || archs[a][3] > '9') {
			ret = cli_usage_error("sass", "--arch needs sm_XY (e.g. sm_90), got '%s'",
					      archs[a]);
			goto out;
		}
	}
	if (source) {
		if (strncmp(source, "sm_", 3) != 0 || source[3] < '1' || source[3] > '9') {
			ret = cli_usage_error("sass", "--source-arch needs sm_XY (e.g. sm_70), got '%s'",
					      source);
			goto out;
		}
		/* The source is analysed too, first. */
		for (a = 0; a < n_archs && strcmp(archs[a], source) != 0; a++)
			;
		if (n_archs && a == n_archs) {
			memmove(archs + 1, archs, n_archs * sizeof(*archs));
			archs[0] = source;
			n_archs++;
		}
	}
	sopt.archs = archs;
	sopt.n_archs = n_archs;
	sopt.jobs = (unsigned)jobs;
	if (!quiet && cli_stderr_is_tty())
		sopt.progress = progress;
	if (gpuproj_sass_analyze((const char *const *)argv + optind, (size_t)(argc - optind),
				 &sopt, &s, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	if (!source)
		source = gpuproj_sass_arch_at(s, 0);
	for (a = 0; a < gpuproj_sass_arch_count(s); a++) {
		const char *note;

		if (gpuproj_sass_arch_status(s, a, &note) != GPUPROJ_OK) {
			fprintf(stderr, "gpuproj: sass: %s: %s\n", gpuproj_sass_arch_at(s, a),
				cli_shown(note));
			all_ok = false;
		}
	}
	{
		struct sass_out o = { .json = fmt == FMT_JSON, .s = s, .source = source,
				      .filter = filter, .weight = sopt.slow_path_weight };

		if (cli_write_output(output, render_sass, &o))
			goto out;
	}
	ret = all_ok ? EXIT_OK : EXIT_FAIL;
out:
	gpuproj_sass_free(s);
	free(archs);
	return ret;
}
