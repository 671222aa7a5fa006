/* SPDX-License-Identifier: MIT */
/*
 * gpuproj — project CUDA kernel times onto other GPUs.
 * Dispatches `gpuproj <command>`; each command lives in cmd-<name>.c.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuproj/interval.h>

#include "cli.h"
#include "util.h"

static const struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	/* Its sub-commands ("verbs", "sources") from the command's own table, or NULL. */
	const char *subs;
	const char *(*sub)(size_t i);
} commands[] = {
	{ "project", "project a profile onto target GPUs (table, JSON, CSV or a trace)",
	  cmd_project, NULL, NULL },
	{ "targets", "list, show, check or derive GPU descriptions (targets.yaml)", cmd_targets,
	  "verbs", cli_targets_verb },
	{ "import", "convert other tools' exports and data sets to profiles", cmd_import,
	  "sources", cli_import_source },
	{ "ncu-metrics", "print the ncu command that collects what the default model needs",
	  cmd_ncu_metrics, NULL, NULL },
	{ "validate", "compare projections with times measured on other GPUs", cmd_validate,
	  NULL, NULL },
	{ "run", "run an application under libproj.so and project its kernels at exit", cmd_run,
	  NULL, NULL },
	{ "sass", "count FP instructions per kernel in SASS and derive target/source FLOP ratios",
	  cmd_sass, NULL, NULL },
	{ "report", "write a procurement report (self-contained HTML and Markdown)", cmd_report,
	  NULL, NULL },
	{ "gate", "CI performance gate: fail when projected time regresses", cmd_gate, NULL, NULL },
	{ "merge", "merge per-rank profiles of one job", cmd_merge, NULL, NULL },
	{ "bench", "measure this GPU's ceilings and write its targets.yaml entry", cmd_bench,
	  NULL, NULL },
};

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: gpuproj [--max-input-size SIZE] <command> [options] [arguments]\n"
		"       gpuproj --help | --version\n\n"
		"Project the measured kernels of a CUDA application onto other GPUs with\n"
		"roofline models (Van Lanker et al., Euro-Par 2024, and others).\n\n"
		"Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *c = &commands[i];
		size_t j, col;

		fprintf(f, "  %-11s %s\n", c->name, c->summary);
		if (!c->sub)
			continue;
		/* "              sources: ncu, nvprof, …", wrapped at 79 columns. */
		col = (size_t)fprintf(f, "%14s%s:", "", c->subs);
		for (j = 0; c->sub(j); j++) {
			size_t len = strlen(c->sub(j)) + 2;

			if (col + len > 79) {
				fprintf(f, "\n%*s", 14 + (int)strlen(c->subs) + 1, "");
				col = 14 + strlen(c->subs) + 1;
			}
			col += (size_t)fprintf(f, " %s%s", c->sub(j), c->sub(j + 1) ? "," : "");
		}
		fputc('\n', f);
	}
	fprintf(f, "\n`gpuproj <command> --help` describes a command.\n\n"
		"Option of every command:\n"
		"  --max-input-size SIZE  refuse input files larger than SIZE bytes (K, M, G, T:\n"
		"                         binary multiples; default 1G, or $GPUPROJ_MAX_INPUT_SIZE)\n\n"
		"No command overwrites one of its input files, and an interrupted command\n"
		"(SIGINT, SIGTERM, SIGHUP) leaves no temporary file behind.\n");
	cli_print_exit_status(f, NULL);
}

/*
 * What every command's status must also say: standard output could not be
 * written (`> /dev/full`, a closed pipe's EPIPE with SIGPIPE ignored, a
 * full disk). stdio keeps the error until the flush, and exit() would
 * swallow it: flush here, and fail (EXIT_ERROR, as every error) with one
 * line when the output was lost.
 */
static int
stdout_checked(int ret)
{
	int e;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return ret;
	/* A command that failed has said why (cli_write_output() names stdout itself). */
	if (ret != EXIT_OK)
		return ret;
	e = errno;
	if (e)
		cli_fail("<stdout>: write error: %s", strerror(e));
	else /* an earlier write failed; its errno is gone */
		cli_fail("<stdout>: write error");
	return EXIT_ERROR;
}

int
main(int argc, char **argv)
{
	struct gpuproj_error err = { 0 };
	uint64_t limit;
	size_t i;

	/*
	 * Numbers are read and printed in the C locale (util.h c_locale()): the
	 * command never calls setlocale(), and says so here for the code it
	 * shares with libproj.so, which runs in applications that do.
	 */
	if (c_locale())
		uselocale(c_locale());
	/* No command overwrites a file it read (util.h)… */
	file_protect_inputs(true);
	/* …and an interrupted write leaves no hidden temporary file. */
	if (file_remove_temporaries_on_signals() != 0)
		return cli_fail("cannot install signal handlers: %s", strerror(errno));
	/* The one option before the command: the input size limit. */
	while (argc >= 2 && (strcmp(argv[1], "--max-input-size") == 0 ||
			     strncmp(argv[1], "--max-input-size=", 17) == 0)) {
		const char *v = argv[1][16] == '=' ? argv[1] + 17 : argc >= 3 ? argv[2] : NULL;

		if (!v || !parse_byte_size(v, &limit))
			return cli_usage_error(NULL, "--max-input-size needs a size in bytes (a "
					       "positive integer, optionally with K, M, G or T), "
					       "got '%s'", v ? v : "");
		file_set_input_limit(limit);
		i = argv[1][16] == '=' ? 1 : 2;
		argv[i] = argv[0];
		argv += i;
		argc -= (int)i;
	}
	/* A bad GPUPROJ_MAX_INPUT_SIZE is a usage error before any work. */
	if (file_input_limit(&limit, NULL, &err))
		return cli_usage_error(NULL, "%s", err.message);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return stdout_checked(EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("gpuproj %s\n", GPUPROJ_VERSION);
		return stdout_checked(EXIT_OK);
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0)
			return stdout_checked(commands[i].run(argc - 1, argv + 1));
	}
	if (argv[1][0] == '-')
		return cli_usage_error(NULL, "unknown option '%s'", argv[1]);
	return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
}
