/* SPDX-License-Identifier: MIT */
/*
 * gpuproj project: project every kernel of a profile onto target GPUs.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/report.h>

#include "cli.h"

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj project [options] PROFILE\n"
		"       gpuproj project [options] --builtin\n\n"
		"Project every kernel of PROFILE (gpuproj-profile/1 JSON, from libproj.so or\n"
		"`gpuproj import`) from the GPU it was measured on onto target GPUs.\n\n"
		"Options:\n"
		"  --builtin            project the bundled profile of published measurements\n"
		"                       (no GPU needed; see its citation in the output)\n"
		"  --targets FILE       GPU descriptions (default: $GPUPROJ_TARGETS, else the\n"
		"                       built-in targets.yaml)\n"
		"  --source NAME        the GPU the profile was measured on (default: from the\n"
		"                       profile's device name through targets.yaml 'match')\n"
		"  --target NAME        project onto this GPU; repeat for several (default: all)\n"
		"  --model NAME         projection model (default: %s); `--model list` lists them\n"
		"  --format FMT         table (default), json or csv\n"
		"  -o, --output FILE    write to FILE instead of standard output (JSON is\n"
		"                       written atomically)\n"
		"  --top N              kernels detailed per target in the table (default 5)\n"
		"  --all-kernels        detail every kernel in the table\n"
		"  -h, --help           show this help\n\n"
		"Per kernel: launches, source time, projected time per launch with its\n"
		"interval, speedup and binding resource; whole-run totals per target. Where\n"
		"the profile carries times measured on a target (reference_ns), the error\n"
		"of the projection is shown too.\n\n"
		"Exit status: 0 success, 1 failure (bad input, unknown GPU), 2 bad usage.\n",
		gpuproj_model_name(gpuproj_model_default()));
}

enum format { FMT_TABLE, FMT_JSON, FMT_CSV };

int
cmd_project(int argc, char **argv)
{
	enum { O_BUILTIN = 256, O_TARGETS, O_SOURCE, O_TARGET, O_MODEL, O_FORMAT, O_TOP, O_ALL };
	static const struct option opts[] = {
		{ "builtin", no_argument, NULL, O_BUILTIN },
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "source", required_argument, NULL, O_SOURCE },
		{ "target", required_argument, NULL, O_TARGET },
		{ "model", required_argument, NULL, O_MODEL },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, O_TOP },
		{ "all-kernels", no_argument, NULL, O_ALL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *targets_path = NULL, *source = NULL, *model_name = NULL, *output = NULL;
	const char **target_names = NULL;
	size_t n_target_names = 0, i, n_runs = 0;
	bool builtin = false;
	enum format fmt = FMT_TABLE;
	struct gpuproj_report_options ropt = { 0 };
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_profile *profile = NULL;
	const struct gpuproj_model *model;
	const struct gpuproj_target *src = NULL;
	struct gpuproj_run_projection *runs = NULL;
	struct gpuproj_error err = { 0 };
	const char *profile_path;
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	target_names = calloc((size_t)argc + 1, sizeof(*target_names));
	if (!target_names)
		return fail("out of memory");
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			free(target_names);
			return EXIT_OK;
		case O_BUILTIN: builtin = true; break;
		case O_TARGETS: targets_path = optarg; break;
		case O_SOURCE: source = optarg; break;
		case O_TARGET: target_names[n_target_names++] = optarg; break;
		case O_MODEL: model_name = optarg; break;
		case 'o': output = optarg; break;
		case O_ALL: ropt.all_kernels = true; break;
		case O_TOP:
			if (!cli_parse_size("project", "--top", optarg, &ropt.top_kernels)) {
				free(target_names);
				return EXIT_USAGE;
			}
			break;
		case O_FORMAT:
			if (strcmp(optarg, "table") == 0) {
				fmt = FMT_TABLE;
			} else if (strcmp(optarg, "json") == 0) {
				fmt = FMT_JSON;
			} else if (strcmp(optarg, "csv") == 0) {
				fmt = FMT_CSV;
			} else {
				free(target_names);
				return usage_error("project", "--format must be table, json or csv, "
						   "not '%s'", optarg);
			}
			break;
		case ':':
			free(target_names);
			return usage_error("project", "option '%s' needs a value", argv[optind - 1]);
		default:
			free(target_names);
			return usage_error("project", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (model_name && strcmp(model_name, "list") == 0) {
		for (i = 0; i < gpuproj_model_count(); i++)
			printf("%-10s %s\n", gpuproj_model_name(gpuproj_model_at(i)),
			       gpuproj_model_summary(gpuproj_model_at(i)));
		free(target_names);
		return EXIT_OK;
	}
	if (builtin && optind < argc) {
		free(target_names);
		return usage_error("project", "give either PROFILE or --builtin, not both");
	}
	if (!builtin && optind != argc - 1) {
		free(target_names);
		if (optind == argc)
			return usage_error("project", "missing PROFILE (or --builtin)");
		return usage_error("project", "expected one PROFILE, got %d", argc - optind);
	}
	model = model_name ? gpuproj_model_find(model_name) : gpuproj_model_default();
	if (!model) {
		free(target_names);
		return usage_error("project", "unknown model '%s' (`--model list` lists them)",
				   model_name);
	}
	if (cli_load_targets(targets_path, &targets, NULL))
		goto out;

	profile_path = builtin ? "default-profile.json (built-in)" : argv[optind];
	if (builtin ? gpuproj_profile_load_builtin(&profile, &err)
		    : gpuproj_profile_load(argv[optind], &profile, &err)) {
		fail_error(&err);
		goto out;
	}
	ropt.profile_label = profile_path;
	if (gpuproj_resolve_source(profile, targets, source, &src, &err)) {
		fail_error(&err);
		goto out;
	}

	/* The targets to project onto, in targets.yaml order or as given. */
	runs = calloc(n_target_names ? n_target_names : gpuproj_targets_count(targets),
		      sizeof(*runs));
	if (!runs) {
		fail("out of memory");
		goto out;
	}
	if (n_target_names) {
		for (i = 0; i < n_target_names; i++) {
			const struct gpuproj_target *t = gpuproj_targets_match(targets,
									       target_names[i]);

			if (!t) {
				const char *close[5];
				size_t nc = gpuproj_targets_suggest(targets, target_names[i], close, 5);

				fprintf(stderr, "gpuproj: target GPU '%s' is not in targets.yaml",
					target_names[i]);
				for (size_t j = 0; j < nc; j++)
					fprintf(stderr, "%s%s", j ? ", " : "; close names: ", close[j]);
				fprintf(stderr, " (`gpuproj targets list` shows all)\n");
				goto out;
			}
			if (gpuproj_project_run(profile, model, src, t, NULL, &runs[n_runs++])) {
				fail("out of memory");
				goto out;
			}
		}
	} else {
		for (i = 0; i < gpuproj_targets_count(targets); i++) {
			if (gpuproj_project_run(profile, model, src, gpuproj_targets_get(targets, i),
						NULL, &runs[n_runs++])) {
				fail("out of memory");
				goto out;
			}
		}
	}

	if (fmt == FMT_JSON) {
		if (gpuproj_report_json(output ? output : "-", profile, src, runs, n_runs, &err)) {
			fail_error(&err);
			goto out;
		}
	} else {
		FILE *f = stdout;
		int r;

		if (output && !(f = fopen(output, "w"))) {
			fail("%s: cannot open for writing: %s", output, strerror(errno));
			goto out;
		}
		if (fmt == FMT_CSV)
			r = gpuproj_report_csv(f, profile, src, runs, n_runs);
		else
			r = gpuproj_report_table(f, profile, src, runs, n_runs, &ropt);
		if (f != stdout && fclose(f) != 0)
			r = GPUPROJ_E_IO;
		if (r) {
			fail("%s: write error", output ? output : "<stdout>");
			goto out;
		}
	}
	ret = EXIT_OK;
out:
	for (i = 0; runs && i < n_runs; i++)
		gpuproj_run_projection_clear(&runs[i]);
	free(runs);
	free(target_names);
	gpuproj_profile_free(profile);
	gpuproj_targets_free(targets);
	return ret;
}
