/* SPDX-License-Identifier: MIT */
/*
 * gpuproj report: the procurement report of one or more profiles, as one
 * self-contained HTML file and/or Markdown (include/gpuproj/report.h).
 * Everything is loaded and rendered before any file is written, so a bad
 * input leaves no output behind.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/report.h>

#include "cli.h"
#include "util.h"

/* A price quote is below this, USD (report-prices.c holds files to it too). */
#define PRICE_MAX_USD 1e9

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj report [options] PROFILE... -o OUT.html|OUT.md [--format FMT]\n"
		"       gpuproj report [options] PROFILE... --html OUT.html [--md OUT.md]\n"
		"       gpuproj report [options] --builtin [PROFILE...] --html OUT.html\n\n"
		"Write a procurement report: a five-line summary, the run, a ranking of the\n"
		"complete target GPUs by projected GPU kernel time (or whole-run time, when the\n"
		"profiles have a timeline) with intervals and their order, the targets that\n"
		"cannot run every kernel (apart, not ranked), memory fit, cost per job and\n"
		"performance per dollar and per watt, per-kernel tables, hierarchical rooflines\n"
		"of the top kernels, the quadrant-split chart, the instruction roofline, where\n"
		"models disagree, assumptions and the source of every target number. Several\n"
		"profiles (MPI ranks, runs) are projected separately and summed, or with\n"
		"--weight ranked as a workload mix.\n\n"
		"Options:\n"
		"  -o, --output FILE    write the report to FILE (\"-\" = standard output) in the\n"
		"                       --format given, else the one its extension names (.html,\n"
		"                       .htm: html; .md: md)\n"
		"  --format FMT         html (one self-contained file, inline SVG charts, no\n"
		"                       scripts), md (Markdown for merge-request comments: at\n"
		"                       most %d characters, the longest parts shortened) or\n"
		"                       md-full (the Markdown report in full, however long)\n"
		"  --html FILE          as -o FILE --format html; beside --md, both are written\n"
		"  --md FILE            as -o FILE --format md\n"
		"  --md-full            the Markdown report of --md in full (as --format md-full)\n"
		"  --builtin            add the bundled profile of published measurements\n"
		"  --targets FILE       GPU descriptions (default: $GPUPROJ_TARGETS, else the\n"
		"                       built-in targets.yaml)\n"
		"  --source NAME        the GPU every profile was measured on (default: from\n"
		"                       each profile's device name through targets.yaml 'match')\n"
		"  --target NAME        report on this GPU (repeat; default: every target); the\n"
		"                       source GPUs are always included\n"
		"  --price NAME=USD     the purchase price of GPU NAME (repeat); replaces\n"
		"                       targets.yaml's price_usd and a --prices quote\n"
		"  --prices FILE        price quotes, CSV (columns name, purchase_usd,\n"
		"                       hourly_usd) or YAML (NAME: {purchase_usd: USD,\n"
		"                       hourly_usd: USD}); the hourly price gives cost per job\n"
		"  --weight PROFILE=W   share of facility time of PROFILE (its path as given, or\n"
		"                       'builtin'); give every profile one: the targets are then\n"
		"                       ranked by the weighted sum of projected / measured time\n"
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
		"$PLPLOT_LIB).\n\n",
		GPUPROJ_REPORT_MD_LIMIT, gpuproj_model_name(gpuproj_model_default()));
	cli_print_shared_help(f);
	cli_print_exit_status(f, "report");
}

/* The library's (stage, done, total): loading, projecting, charts. */
static void
show_progress(void *userdata, const char *stage, size_t done, size_t total)
{
	cli_progress_phase(userdata, stage, done, total);
}

/* What the options say. */
struct args {
	const char *html, *md, *targets_path, *source, *model_name, *prices_path;
	const char *output;                    /* -o FILE */
	int format;                            /* --format: enum format, or -1 */
	struct cli_shared shared;              /* -q, --progress */
	const char **target_names, **weights;  /* [argc] each */
	size_t n_target_names, n_weights, n_prices;
	struct gpuproj_report_price *prices;   /* [argc] from --price */
	bool builtin;
	struct gpuproj_report_doc_options ropt;
};

enum format { FMT_HTML, FMT_MD, FMT_MD_FULL };
static const char *const format_names[] = { "html", "md", "md-full" };

/* "NAME=VALUE" with VALUE a number in (0, max): NAME into *name (in `arg`), the value. */
static bool
split_number(char *arg, double max, const char **name, double *v)
{
	char *eq = strrchr(arg, '=');

	if (!eq || eq == arg || !parse_double(eq + 1, v) || !isfinite(*v) || !(*v > 0) ||
	    !(*v < max))
		return false;
	*eq = '\0';
	*name = arg;
	return true;
}

/* Parse the options; returns -1 to go on, else the exit status. */
static int
parse_args(int argc, char **argv, struct args *a)
{
	enum {
		O_HTML = 256, O_MD, O_BUILTIN, O_TARGETS, O_SOURCE, O_TARGET, O_MODEL, O_TOP,
		O_FEATURED, O_CHART_PROFILES, O_NO_CHARTS, O_DATE, O_PRICE, O_PRICES, O_WEIGHT,
		O_MD_FULL, O_FORMAT,
	};
	static const struct option opts[] = {
		{ "html", required_argument, NULL, O_HTML },
		{ "md", required_argument, NULL, O_MD },
		{ "md-full", no_argument, NULL, O_MD_FULL },
		{ "builtin", no_argument, NULL, O_BUILTIN },
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "source", required_argument, NULL, O_SOURCE },
		{ "target", required_argument, NULL, O_TARGET },
		{ "price", required_argument, NULL, O_PRICE },
		{ "prices", required_argument, NULL, O_PRICES },
		{ "weight", required_argument, NULL, O_WEIGHT },
		{ "model", required_argument, NULL, O_MODEL },
		{ "top", required_argument, NULL, O_TOP },
		{ "featured", required_argument, NULL, O_FEATURED },
		{ "chart-profiles", required_argument, NULL, O_CHART_PROFILES },
		{ "no-charts", no_argument, NULL, O_NO_CHARTS },
		{ "date", required_argument, NULL, O_DATE },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gpuproj_report_price *q;
	const char *name;
	double v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", cli_options(opts), NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case O_HTML: a->html = optarg; break;
		case O_MD: a->md = optarg; break;
		case O_MD_FULL: a->ropt.md_full = true; break;
		case O_BUILTIN: a->builtin = true; break;
		case O_TARGETS: a->targets_path = optarg; break;
		case O_SOURCE: a->source = optarg; break;
		case O_TARGET: a->target_names[a->n_target_names++] = optarg; break;
		case O_PRICES: a->prices_path = optarg; break;
		case O_MODEL: a->model_name = optarg; break;
		case O_NO_CHARTS: a->ropt.no_charts = true; break;
		case O_DATE: a->ropt.date = optarg; break;
		case 'o': a->output = optarg; break;
		case O_FORMAT:
			if (!cli_parse_format("report", optarg, format_names,
					      ARRAY_LENGTH(format_names), &a->format))
				return EXIT_USAGE;
			break;
		case 'q':
		case CLI_O_PROGRESS:
			if (cli_shared_option("report", c, optarg, &a->shared) < 0)
				return EXIT_USAGE;
			break;
		case O_PRICE:
			q = &a->prices[a->n_prices++];
			q->hourly_usd = NAN;
			q->origin = "--price";
			if (!split_number(optarg, PRICE_MAX_USD, &q->name, &q->purchase_usd))
				return cli_usage_error("report", "--price needs NAME=USD, USD "
						       "a number > 0 and below %g: '%s'",
						       PRICE_MAX_USD, optarg);
			break;
		case O_WEIGHT:
			if (!split_number(optarg, 1e300, &name, &v))
				return cli_usage_error("report", "--weight needs PROFILE=W, W "
						       "a share > 0: '%s'", optarg);
			optarg[strlen(optarg)] = '='; /* kept whole: apply_weights() splits it */
			a->weights[a->n_weights++] = optarg;
			break;
		case O_TOP:
		case O_FEATURED:
		case O_CHART_PROFILES:
			if (!cli_parse_size("report", argv[optind - 1], optarg,
					    c == O_TOP ? &a->ropt.top_kernels :
					    c == O_FEATURED ? &a->ropt.featured_targets :
					    &a->ropt.chart_profiles))
				return EXIT_USAGE;
			break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("report", c, argv);
		}
	}
	return -1;
}

/* ".html" or ".htm": html; ".md": md; else -1. */
static int
format_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot && strchr(dot, '/'))
		dot = NULL;
	if (dot && (strcmp(dot, ".html") == 0 || strcmp(dot, ".htm") == 0))
		return FMT_HTML;
	if (dot && strcmp(dot, ".md") == 0)
		return FMT_MD;
	return -1;
}

/*
 * -o FILE [--format FMT] onto --html/--md/--md-full (the aliases): the
 * format given, else the extension's. Returns -1 to go on, else EXIT_USAGE.
 */
static int
apply_output(struct args *a)
{
	int fmt = a->format;

	if (!a->output)
		return a->format < 0 ? -1 : cli_usage_error("report", "--format needs -o FILE");
	if (fmt < 0 && (fmt = format_of(a->output)) < 0)
		return cli_usage_error("report", "-o %s: the format cannot be told from the name: "
				       "add --format html, md or md-full", a->output);
	if (fmt == FMT_HTML ? a->html != NULL : a->md != NULL)
		return cli_usage_error("report", "-o and --%s both name the %s report",
				       fmt == FMT_HTML ? "html" : "md",
				       fmt == FMT_HTML ? "HTML" : "Markdown");
	if (fmt == FMT_HTML)
		a->html = a->output;
	else
		a->md = a->output;
	if (fmt == FMT_MD_FULL)
		a->ropt.md_full = true;
	return -1;
}

/* The checks of the options together; returns -1 to go on, else the exit status. */
static int
check_args(int argc, char **argv, struct args *a)
{
	int r;

	if (a->model_name && strcmp(a->model_name, "list") == 0) {
		cli_print_models();
		return EXIT_OK;
	}
	if ((r = apply_output(a)) >= 0)
		return r;
	if (!a->html && !a->md)
		return cli_usage_error("report", "name an output: -o FILE (or --html FILE and/or "
				       "--md FILE)");
	if (a->html && a->md && strcmp(a->html, "-") != 0 &&
	    (strcmp(a->html, a->md) == 0 || file_same(a->html, a->md)))
		return cli_usage_error("report", "--html and --md name the same file '%s'", a->md);
	if (!a->builtin && optind >= argc)
		return cli_usage_error("report", "missing PROFILE (one or more, or --builtin)");
	if (a->ropt.date && !*a->ropt.date)
		return cli_usage_error("report", "--date needs a non-empty value");
	a->ropt.model = a->model_name ? gpuproj_model_find(a->model_name) : NULL;
	if (a->model_name && !a->ropt.model)
		return cli_usage_error("report", "unknown model '%s' (`--model list` lists them)",
				       a->model_name);
	(void)argv;
	return -1;
}

/*
 * --weight PROFILE=W onto the inputs: PROFILE is an input's label (its path
 * as given) or "builtin"; each input once. Returns -1 or EXIT_USAGE.
 */
static int
apply_weights(const struct args *a, struct gpuproj_report_input *in, size_t n, bool builtin)
{
	size_t i, j;

	for (i = 0; i < a->n_weights; i++) {
		const char *spec = a->weights[i], *eq = strrchr(spec, '=');
		size_t len = (size_t)(eq - spec);
		double w = strtod(eq + 1, NULL);
		bool found = false;

		for (j = 0; j < n && !found; j++) {
			const char *name = builtin && j == 0 ? "builtin" : in[j].label;

			if (strlen(name) != len || strncmp(name, spec, len) != 0)
				continue;
			if (in[j].weight > 0)
				return cli_usage_error("report", "--weight names %.*s twice",
						       (int)len, spec);
			in[j].weight = w;
			found = true;
		}
		if (!found)
			return cli_usage_error("report", "--weight %s: no such PROFILE among the "
					       "inputs (name it as given on the command line, or "
					       "'builtin')", spec);
	}
	for (j = 0; a->n_weights && j < n; j++) {
		if (!(in[j].weight > 0))
			return cli_usage_error("report", "--weight: %s has no weight; give every "
					       "profile one, or none",
					       builtin && j == 0 ? "builtin" : in[j].label);
	}
	return -1;
}

/* The quotes of --prices FILE, then those of --price (later ones win). */
static struct gpuproj_report_price *
all_prices(const struct args *a, const struct gpuproj_report_prices *file, size_t *ret_n)
{
	size_t nf = 0;
	const struct gpuproj_report_price *fq = gpuproj_report_prices_get(file, &nf);
	struct gpuproj_report_price *all = calloc(nf + a->n_prices + 1, sizeof(*all));

	if (!all)
		return NULL;
	if (nf)
		memcpy(all, fq, nf * sizeof(*all));
	if (a->n_prices)
		memcpy(all + nf, a->prices, a->n_prices * sizeof(*all));
	*ret_n = nf + a->n_prices;
	return all;
}

/* Load every profile (`paths`: the operands) before anything is written; 0 or EXIT_FAIL. */
static int
load_inputs(const struct args *a, char **paths, struct gpuproj_profile **profiles,
	    struct gpuproj_report_input *inputs, size_t n, struct cli_progress *prog)
{
	struct gpuproj_error err = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		bool is_builtin = a->builtin && i == 0;
		const char *path = is_builtin ? NULL : paths[i - (a->builtin ? 1 : 0)];

		show_progress(prog, "loading", i, n);
		if (is_builtin ? gpuproj_profile_load_builtin(&profiles[i], &err)
			       : gpuproj_profile_load(path, &profiles[i], &err)) {
			cli_progress_break(prog);
			return cli_fail_error(&err);
		}
		inputs[i].profile = profiles[i];
		inputs[i].label = is_builtin ? "default-profile.json (built-in)" : path;
		inputs[i].source = a->source;
	}
	show_progress(prog, "loading", n, n);
	return 0;
}

int
cmd_report(int argc, char **argv)
{
	struct args a = { .format = -1 };
	struct gpuproj_report_input *inputs = NULL;
	struct gpuproj_profile **profiles = NULL;
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_report_prices *file_prices = NULL;
	struct gpuproj_report_price *prices = NULL;
	struct gpuproj_report_doc *doc = NULL;
	struct gpuproj_error err = { 0 };
	struct cli_progress prog;
	const char *targets_origin = NULL;
	size_t n_inputs = 0, i;
	int ret = EXIT_FAIL;

	a.target_names = calloc((size_t)argc + 1, sizeof(*a.target_names));
	a.weights = calloc((size_t)argc + 1, sizeof(*a.weights));
	a.prices = calloc((size_t)argc + 1, sizeof(*a.prices));
	if (!a.target_names || !a.weights || !a.prices) {
		cli_fail("out of memory");
		goto out;
	}
	if ((ret = parse_args(argc, argv, &a)) >= 0 || (ret = check_args(argc, argv, &a)) >= 0)
		goto out;
	ret = EXIT_FAIL;
	cli_progress_init(&prog, &a.shared, "report", "");
	n_inputs = (size_t)(argc - optind) + (a.builtin ? 1 : 0);
	inputs = calloc(n_inputs, sizeof(*inputs));
	profiles = calloc(n_inputs, sizeof(*profiles));
	if (!inputs || !profiles) {
		cli_fail("out of memory");
		goto out;
	}
	if (cli_load_targets(a.targets_path, &targets, &targets_origin))
		goto out;
	if (a.prices_path &&
	    gpuproj_report_prices_load(a.prices_path, targets, &file_prices, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	if (load_inputs(&a, argv + optind, profiles, inputs, n_inputs, &prog))
		goto out;
	if ((ret = apply_weights(&a, inputs, n_inputs, a.builtin)) >= 0)
		goto out;
	ret = EXIT_FAIL;
	prices = all_prices(&a, file_prices, &a.ropt.n_prices);
	if (!prices) {
		cli_fail("out of memory");
		goto out;
	}
	a.ropt.prices = prices;
	a.ropt.target_names = a.target_names;
	a.ropt.n_target_names = a.n_target_names;
	a.ropt.targets_origin = targets_origin;
	a.ropt.progress = show_progress;
	a.ropt.progress_userdata = &prog;
	if (gpuproj_report_doc_new(inputs, n_inputs, targets, &a.ropt, &doc, &err) ||
	    gpuproj_report_doc_write(doc, a.html, a.md, &err)) {
		cli_progress_break(&prog);
		cli_fail_error(&err);
		if (doc && (err.status == GPUPROJ_E_BACKEND || err.status == GPUPROJ_E_UNSUPPORTED))
			fprintf(stderr, "gpuproj: report: nothing was written; --no-charts writes "
				"the report without charts\n");
		goto out;
	}
	cli_progress_break(&prog);
	ret = EXIT_OK;
out:
	doc = gpuproj_report_doc_free(doc);
	for (i = 0; profiles && i < n_inputs; i++)
		gpuproj_profile_free(profiles[i]);
	free(profiles);
	free(inputs);
	free(a.target_names);
	free(a.weights);
	free(a.prices);
	free(prices);
	gpuproj_report_prices_free(file_prices);
	gpuproj_targets_free(targets);
	return ret;
}
