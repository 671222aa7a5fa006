/* SPDX-License-Identifier: MIT */
/*
 * gpuproj merge: fold per-rank profiles of one job into a job profile and
 * project it onto every target (include/gpuproj/merge.h).
 *
 * Progress ("merging 1234/4096 ranks") goes to stderr only when stderr is a
 * terminal, as one line refreshed at most ten times a second.
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuproj/merge.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/project.h>

#include "cli.h"

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj merge [options] RANK.json... -o JOB.json\n\n"
		"Merge the per-rank (or per-process) profiles of one job into one job\n"
		"profile: launches and time summed per kernel signature, per-rank\n"
		"min/max/mean of each signature's time and its imbalance (max/mean - 1)\n"
		"kept, and projections onto every target GPU recomputed for the job.\n\n"
		"Options:\n"
		"  -o, --output FILE    the job profile to write (required; '-' = standard\n"
		"                       output); written atomically, only on success\n"
		"  --force              merge ranks of different applications or GPUs, or\n"
		"                       repeated rank numbers, with a warning for each kind\n"
		"  --targets FILE       GPU descriptions (default: $GPUPROJ_TARGETS, else the\n"
		"                       built-in targets.yaml)\n"
		"  --source NAME        the GPU the ranks ran on (default: from the profiles)\n"
		"  --model NAME         projection model (default: %s)\n"
		"  --no-projections     write the merged profile without projections\n"
		"  -j, --jobs N         threads parsing rank files ahead of the merge\n"
		"                       (default: one per CPU, at most 8; the result is the\n"
		"                       same for any N)\n"
		"  -h, --help           show this help\n\n"
		"Ranks must share the application (process.application or argv[0]) and the\n"
		"GPU (device.target or device.name). Kernel signatures match on name, tag,\n"
		"grid, block and dynamic shared memory; the device ordinal is ignored.\n"
		"Files are folded one at a time, so memory stays near one rank per --jobs\n"
		"thread plus the job.\n\n",
		gpuproj_model_name(gpuproj_model_default()));
	cli_print_shared_help(f);
	cli_print_exit_status(f, "merge");
}

static void
on_warning(void *userdata, const char *message)
{
	/* Start on a fresh line when the progress line is showing. */
	cli_progress_break(userdata);
	cli_warn("%s", message);
}

/*
 * Write the job profile to `output`: as it is (targets NULL, --no-projections)
 * or with its projections by `model` onto every target from the source GPU.
 * Returns 0, or EXIT_FAIL after the error line.
 */
static int
write_job(const struct gpuproj_profile *job, const struct gpuproj_targets *targets,
	  const char *source, const struct gpuproj_model *model, const char *output)
{
	const struct gpuproj_target *src = NULL;
	struct gpuproj_run_projection *runs = NULL;
	struct gpuproj_error err = { 0 };
	size_t i, n_runs = 0;
	int ret = EXIT_FAIL;

	if (!targets) {
		if (gpuproj_profile_save(job, output, &err)) {
			cli_fail_error(&err);
			return EXIT_FAIL;
		}
		return 0;
	}
	if (gpuproj_resolve_source(job, targets, source, &src, &err)) {
		cli_fail("%s (or pass --no-projections)", err.message);
		return EXIT_FAIL;
	}
	runs = calloc(gpuproj_targets_count(targets) + 1, sizeof(*runs));
	if (!runs) {
		cli_fail("out of memory");
		return EXIT_FAIL;
	}
	for (i = 0; i < gpuproj_targets_count(targets); i++) {
		if (gpuproj_project_run(job, model, src, gpuproj_targets_get(targets, i), NULL,
					&runs[n_runs++])) {
			cli_fail("out of memory");
			goto out;
		}
	}
	if (gpuproj_project_json(output, job, src, runs, n_runs, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	ret = 0;
out:
	for (i = 0; i < n_runs; i++)
		gpuproj_run_projection_clear(&runs[i]);
	free(runs);
	return ret;
}

int
cmd_merge(int argc, char **argv)
{
	enum { O_FORCE = 256, O_TARGETS, O_SOURCE, O_MODEL, O_NO_PROJ };
	size_t jobs = 0;
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, O_FORCE },
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "source", required_argument, NULL, O_SOURCE },
		{ "model", required_argument, NULL, O_MODEL },
		{ "no-projections", no_argument, NULL, O_NO_PROJ },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *targets_path = NULL, *source = NULL, *model_name = NULL;
	bool no_proj = false;
	struct gpuproj_merge_options mopt = { 0 };
	struct cli_shared shared = { 0 };
	struct cli_progress prog;
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_profile *job = NULL;
	const struct gpuproj_model *model;
	struct gpuproj_error err = { 0 };
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:j:q", cli_options(opts), NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case 'o': output = optarg; break;
		case O_FORCE: mopt.force = true; break;
		case O_TARGETS: targets_path = optarg; break;
		case O_SOURCE: source = optarg; break;
		case O_MODEL: model_name = optarg; break;
		case O_NO_PROJ: no_proj = true; break;
		case 'j':
			if (!cli_parse_size("merge", "--jobs", optarg, &jobs))
				return EXIT_USAGE;
			if (jobs > 64)
				return cli_usage_error("merge", "--jobs must be at most 64, got '%s'", optarg);
			break;
		case 'q':
		case CLI_O_PROGRESS:
			if (cli_shared_option("merge", c, optarg, &shared) < 0)
				return EXIT_USAGE;
			break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("merge", c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error("merge", "no rank profiles given");
	if (!output)
		return cli_usage_error("merge", "missing -o JOB.json (where to write the job "
				       "profile)");
	model = model_name ? gpuproj_model_find(model_name) : gpuproj_model_default();
	if (!model)
		return cli_usage_error("merge", "unknown model '%s' (`gpuproj project --model "
				       "list` lists them)", model_name);
	if (!no_proj && cli_load_targets(targets_path, &targets, NULL))
		return EXIT_FAIL;

	mopt.threads = (unsigned)jobs;
	cli_progress_init(&prog, &shared, "merge", "ranks");
	mopt.warn = on_warning;
	mopt.warn_userdata = &prog;
	mopt.progress = cli_progress_update;
	mopt.progress_userdata = &prog;
	if (gpuproj_merge_files((const char *const *)argv + optind, (size_t)(argc - optind), &mopt,
				&job, &err)) {
		cli_progress_break(&prog);
		cli_fail_error(&err);
		goto out;
	}

	if (write_job(job, no_proj ? NULL : targets, source, model, output))
		goto out;
	if (prog.tty && prog.on && strcmp(output, "-") != 0)
		fprintf(stderr, "gpuproj: merged %s ranks, %zu kernel signatures, into %s\n",
			gpuproj_profile_attr(job, "merged_ranks"), gpuproj_profile_count(job), output);
	ret = EXIT_OK;
out:
	gpuproj_profile_free(job);
	gpuproj_targets_free(targets);
	return ret;
}
