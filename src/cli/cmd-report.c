/* SPDX-License-Identifier: MIT */
/*
 * gpuproj report: the procurement report of one or more profiles, as one
 * self-contained HTML file and/or Markdown (include/gpuproj/report.h).
 * Everything is loaded and rendered before any file is written, so a bad
 * input leaves no output behind.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/report.h>

#include "cli.h"
#include "util.h"

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj report [options] PROFILE... --html OUT.html [--md OUT.md]\n"
		"       gpuproj report [options] --builtin [PROFILE...] --html OUT.html\n\n"
		"Write a procurement report: the run, a ranking of the target GPUs by projected\n"
		"whole-run GPU time (interval, speedup, time x price and energy where known),\n"
		"per-kernel tables, hierarchical rooflines of the top kernels, the\n"
		"quadrant-split chart, the instruction roofline, where models disagree,\n"
		"assumptions and the source of every target number. Several profiles (MPI\n"
		"ranks, runs) are projected separately and also summed.\n\n"
		"Options:\n"
		"  --html FILE          write the HTML report (one self-contained file, inline\n"
		"                       SVG charts, no scripts); \"-\" = standard output\n"
		"  --md FILE            write the Markdown report (for merge-request comments)\n"
		"  --builtin            add the bundled profile of published measurements\n"
		"  --targets FILE       GPU descriptions (default: $GPUPROJ_TARGETS, else the\n"
		"                       built-in targets.yaml)\n"
		"  --source NAME        the GPU every profile was measured on (default: from\n"
		"                       each profile's device name through targets.yaml 'match')\n"
		"  --target NAME        report on this GPU (repeat; default: every target); the\n"
		"                       source GPUs are always included\n"
		"  --model NAME         model of the rankings and charts (default: %s);\n"
		"                       `--model list` lists them; every model is compared\n"
		"  --top N              kernels per profile with a roofline chart (default 3)\n"
		"  --featured N         best-ranked targets shown as columns in the kernel\n"
		"                       tables and beside the source in charts (default 4)\n"
		"  --chart-profiles N   profiles whose charts are drawn (default 4)\n"
		"  --no-charts          leave the charts out (no PLplot needed)\n"
		"  --date TEXT          the report date shown (default: $SOURCE_DATE_EPOCH as\n"
		"                       UTC when set, else now); for reproducible output\n"
		"  -h, --help           show this help\n\n"
		"Charts are drawn with PLplot's svg driver ($PLPLOT_DRV_DIR, fonts in\n"
		"$PLPLOT_LIB). Progress is shown on a terminal only.\n\n"
		"Exit status: 0 success, 1 failure (bad input, unknown GPU, charts or files\n"
		"that cannot be written; nothing is written then), 2 bad usage.\n",
		gpuproj_model_name(gpuproj_model_default()));
}

struct progress {
	bool tty;
	bool shown;
};

static void
show_progress(void *userdata, const char *stage, size_t done, size_t total)
{
	struct progress *p = userdata;

	if (!p->tty)
		return;
	fprintf(stderr, "\r\033[Kgpuproj report: %s %zu/%zu", stage, done, total);
	fflush(stderr);
	p->shown = true;
}

static void
end_progress(struct progress *p)
{
	if (p->shown) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
		p->shown = false;
	}
}

/* The command line, parsed. */
struct report_args {
	const char *html, *md, *targets_path, *source, *model_name;
	const char **target_names;
	size_t n_target_names;
	bool builtin;
	struct gpuproj_report_doc_options ropt;
};

/* The options and their usage errors. Returns -1 to go on, else the exit status. */
static int
parse_args(int argc, char **argv, struct report_args *a)
{
	enum {
		O_HTML = 256, O_MD, O_BUILTIN, O_TARGETS, O_SOURCE, O_TARGET, O_MODEL, O_TOP,
		O_FEATURED, O_CHART_PROFILES, O_NO_CHARTS, O_DATE,
	};
	static const struct option opts[] = {
		{ "html", required_argument, NULL, O_HTML },
		{ "md", required_argument, NULL, O_MD },
		{ "builtin", no_argument, NULL, O_BUILTIN },
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "source", required_argument, NULL, O_SOURCE },
		{ "target", required_argument, NULL, O_TARGET },
		{ "model", required_argument, NULL, O_MODEL },
		{ "top", required_argument, NULL, O_TOP },
		{ "featured", required_argument, NULL, O_FEATURED },
		{ "chart-profiles", required_argument, NULL, O_CHART_PROFILES },
		{ "no-charts", no_argument, NULL, O_NO_CHARTS },
		{ "date", required_argument, NULL, O_DATE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gpuproj_report_doc_options *ropt = &a->ropt;
	int c;

	optind = 1;
	opterr = 0;
	a->target_names = calloc((size_t)argc + 1, sizeof(*a->target_names));
	if (!a->target_names)
		return cli_fail("out of memory");
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case O_HTML: a->html = optarg; break;
		case O_MD: a->md = optarg; break;
		case O_BUILTIN: a->builtin = true; break;
		case O_TARGETS: a->targets_path = optarg; break;
		case O_SOURCE: a->source = optarg; break;
		case O_TARGET: a->target_names[a->n_target_names++] = optarg; break;
		case O_MODEL: a->model_name = optarg; break;
		case O_NO_CHARTS: ropt->no_charts = true; break;
		case O_DATE: ropt->date = optarg; break;
		case O_TOP:
		case O_FEATURED:
		case O_CHART_PROFILES:
			if (!cli_parse_size("report", argv[optind - 1], optarg,
					    c == O_TOP ? &ropt->top_kernels :
					    c == O_FEATURED ? &ropt->featured_targets :
					    &ropt->chart_profiles))
				return EXIT_USAGE;
			break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("report", c, argv);
		}
	}
	if (a->model_name && strcmp(a->model_name, "list") == 0) {
		cli_print_models();
		return EXIT_OK;
	}
	if (!a->html && !a->md)
		return cli_usage_error("report", "name an output: --html FILE and/or --md FILE");
	if (a->html && a->md && strcmp(a->html, "-") != 0 &&
	    (strcmp(a->html, a->md) == 0 || file_same(a->html, a->md)))
		return cli_usage_error("report", "--html and --md name the same file '%s'", a->md);
	if (!a->builtin && optind >= argc)
		return cli_usage_error("report", "missing PROFILE (one or more, or --builtin)");
	if (ropt->date && !*ropt->date)
		return cli_usage_error("report", "--date needs a non-empty value");
	ropt->model = a->model_name ? gpuproj_model_find(a->model_name) : NULL;
	if (a->model_name && !ropt->model)
		return cli_usage_error("report", "unknown model '%s' (`--model list` lists them)",
				       a->model_name);
	return -1;
}

/* Load every profile before anything is written; false after the error. */
static bool
load_inputs(const struct report_args *a, char **paths, struct gpuproj_report_input *inputs,
	    struct gpuproj_profile **profiles, size_t n, struct progress *prog)
{
	struct gpuproj_error err = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		bool is_builtin = a->builtin && i == 0;
		const char *path = is_builtin ? NULL : paths[i - (a->builtin ? 1 : 0)];

		show_progress(prog, "loading", i, n);
		if (is_builtin ? gpuproj_profile_load_builtin(&profiles[i], &err)
			       : gpuproj_profile_load(path, &profiles[i], &err)) {
			end_progress(prog);
			cli_fail_error(&err);
			return false;
		}
		inputs[i].profile = profiles[i];
		inputs[i].label = is_builtin ? "default-profile.json (built-in)" : path;
		inputs[i].source = a->source;
	}
	show_progress(prog, "loading", n, n);
	return true;
}

int
cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	const char *targets_origin = NULL;
	size_t n_inputs = 0, i;
	struct gpuproj_report_input *inputs = NULL;
	struct gpuproj_profile **profiles = NULL;
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	struct progress prog = { cli_stderr_is_tty(), false };
	int ret = parse_args(argc, argv, &a);

	if (ret >= 0)
		goto out;
	ret = EXIT_FAIL;
	n_inputs = (size_t)(argc - optind) + (a.builtin ? 1 : 0);
	inputs = calloc(n_inputs, sizeof(*inputs));
	profiles = calloc(n_inputs, sizeof(*profiles));
	if (!inputs || !profiles) {
		cli_fail("out of memory");
		goto out;
	}
	if (cli_load_targets(a.targets_path, &targets, &targets_origin) ||
	    !load_inputs(&a, argv + optind, inputs, profiles, n_inputs, &prog))
		goto out;
	a.ropt.target_names = a.target_names;
	a.ropt.n_target_names = a.n_target_names;
	a.ropt.targets_origin = targets_origin;
	a.ropt.progress = show_progress;
	a.ropt.progress_userdata = &prog;
	if (gpuproj_report_doc_new(inputs, n_inputs, targets, &a.ropt, &doc, &err)) {
		end_progress(&prog);
		cli_fail_error(&err);
		goto out;
	}
	if (gpuproj_report_doc_write(doc, a.html, a.md, &err)) {
		end_progress(&prog);
		cli_fail_error(&err);
		if (err.status == GPUPROJ_E_BACKEND || err.status == GPUPROJ_E_UNSUPPORTED)
			fprintf(stderr, "gpuproj: report: nothing was written; --no-charts writes "
				"the report without charts\n");
		goto out;
	}
	end_progress(&prog);
	ret = EXIT_OK;
out:
	doc = gpuproj_report_doc_free(doc);
	for (i = 0; profiles && i < n_inputs; i++)
		gpuproj_profile_free(profiles[i]);
	free(profiles);
	free(inputs);
	free(a.target_names);
	gpuproj_targets_free(targets);
	return ret;
}
