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

int
cmd_report(int argc, char **argv)
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
	const char *html = NULL, *md = NULL, *targets_path = NULL, *targets_origin = NULL;
	const char *source = NULL, *model_name = NULL;
	const char **target_names = NULL;
	size_t n_target_names = 0, n_inputs = 0, i;
	bool builtin = false;
	struct gpuproj_report_doc_options ropt = { 0 };
	struct gpuproj_report_input *inputs = NULL;
	struct gpuproj_profile **profiles = NULL;
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	struct progress prog = { cli_stderr_is_tty(), false };
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	target_names = calloc((size_t)argc + 1, sizeof(*target_names));
	if (!target_names)
		return cli_fail("out of memory");
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			ret = EXIT_OK;
			goto out;
		case O_HTML: html = optarg; break;
		case O_MD: md = optarg; break;
		case O_BUILTIN: builtin = true; break;
		case O_TARGETS: targets_path = optarg; break;
		case O_SOURCE: source = optarg; break;
		case O_TARGET: target_names[n_target_names++] = optarg; break;
		case O_MODEL: model_name = optarg; break;
		case O_NO_CHARTS: ropt.no_charts = true; break;
		case O_DATE: ropt.date = optarg; break;
		case O_TOP:
		case O_FEATURED:
		case O_CHART_PROFILES:
			if (!cli_parse_size("report", argv[optind - 1], optarg,
					    c == O_TOP ? &ropt.top_kernels :
					    c == O_FEATURED ? &ropt.featured_targets :
					    &ropt.chart_profiles)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		default: /* ':' missing value, '?' unknown option */
			ret = cli_option_error("report", c, argv);
			goto out;
		}
	}
	if (model_name && strcmp(model_name, "list") == 0) {
		cli_print_models();
		ret = EXIT_OK;
		goto out;
	}
	if (!html && !md) {
		ret = cli_usage_error("report", "name an output: --html FILE and/or --md FILE");
		goto out;
	}
	if (html && md && strcmp(html, "-") != 0 && (strcmp(html, md) == 0 || file_same(html, md))) {
		ret = cli_usage_error("report", "--html and --md name the same file '%s'", md);
		goto out;
	}
	if (!builtin && optind >= argc) {
		ret = cli_usage_error("report", "missing PROFILE (one or more, or --builtin)");
		goto out;
	}
	if (ropt.date && !*ropt.date) {
		ret = cli_usage_error("report", "--date needs a non-empty value");
		goto out;
	}
	ropt.model = model_name ? gpuproj_model_find(model_name) : NULL;
	if (model_name && !ropt.model) {
		ret = cli_usage_error("report", "unknown model '%s' (`--model list` lists them)",
				      model_name);
		goto out;
	}

	n_inputs = (size_t)(argc - optind) + (builtin ? 1 : 0);
	inputs = calloc(n_inputs, sizeof(*inputs));
	profiles = calloc(n_inputs, sizeof(*profiles));
	if (!inputs || !profiles) {
		cli_fail("out of memory");
		goto out;
	}
	if (cli_load_targets(targets_path, &targets, &targets_origin))
		goto out;

	/* Load every profile before anything is written. */
	for (i = 0; i < n_inputs; i++) {
		bool is_builtin = builtin && i == 0;
		const char *path = is_builtin ? NULL : argv[optind + (int)i - (builtin ? 1 : 0)];

		show_progress(&prog, "loading", i, n_inputs);
		if (is_builtin ? gpuproj_profile_load_builtin(&profiles[i], &err)
			       : gpuproj_profile_load(path, &profiles[i], &err)) {
			end_progress(&prog);
			cli_fail_error(&err);
			goto out;
		}
		inputs[i].profile = profiles[i];
		inputs[i].label = is_builtin ? "default-profile.json (built-in)" : path;
		inputs[i].source = source;
	}
	show_progress(&prog, "loading", n_inputs, n_inputs);

	ropt.target_names = target_names;
	ropt.n_target_names = n_target_names;
	ropt.targets_origin = targets_origin;
	ropt.progress = show_progress;
	ropt.progress_userdata = &prog;
	if (gpuproj_report_doc_new(inputs, n_inputs, targets, &ropt, &doc, &err)) {
		end_progress(&prog);
		cli_fail_error(&err);
		goto out;
	}
	if (gpuproj_report_doc_write(doc, html, md, &err)) {
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
	free(target_names);
	gpuproj_targets_free(targets);
	return ret;
}
