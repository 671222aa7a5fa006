/* SPDX-License-Identifier: MIT */
/*
 * gpuproj gate: the CI performance gate (include/gpuproj/gate.h).
 *
 * Exit status (cli.h, stable, for CI): 0 pass, 1 regression, 2 no verdict
 * (bad usage, unreadable or invalid input, an unknown GPU, different source
 * GPUs without --allow-gpu-change, or a report file that could not be
 * written). On status 2 no report file is written.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuproj/gate.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>

#include "cli.h"
#include "util.h"


static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj gate --baseline BASE.json [options] CURRENT.json\n\n"
		"Compare CURRENT.json with BASE.json: measured time on the source GPU and\n"
		"projected time on each target GPU, for the whole run and per kernel.\n"
		"A time regresses when it grows beyond the threshold AND beyond the noise\n"
		"band (K combined standard errors of the two means, from the launch spreads).\n\n"
		"Options:\n"
		"  --baseline FILE              the reference profile (required)\n"
		"  --target NAME                gate on this target GPU; repeat for several\n"
		"                               (default: every GPU in targets.yaml but the\n"
		"                               source GPU, which the measured column covers)\n"
		"  --max-regression PCT         whole-run threshold (default %g%%)\n"
		"  --kernel-max-regression PCT  per-kernel threshold (default %g%%)\n"
		"  --noise-k K                  noise band in standard errors (default %g)\n"
		"  --min-time DUR|PCT%%          kernels whose time is below this on both sides\n"
		"                               cannot fail: a duration (\"50us\") or a share of\n"
		"                               the baseline run (\"2%%\"; default %g%%)\n"
		"  --metric kernel|wall         what the whole-run test compares: the kernel\n"
		"                               time (default) or the run's wall time (kernels,\n"
		"                               copies, host time: the profiles' timelines)\n"
		"  --allow-gpu-change           profiles from different source GPUs: gate on\n"
		"                               projections only (default: error, exit 2)\n"
		"  --format text|json|junit|md  what -o writes (default text: the summary;\n"
		"                               json: verdict, findings and every GPU's figures,\n"
		"                               docs/formats/gate.md)\n"
		"  -o, --output FILE            write it to FILE (default: standard output; the\n"
		"                               summary then goes to stderr unless it is text)\n"
		"  --junit FILE                 also write JUnit XML (a test case per kernel and\n"
		"                               one for the whole run)\n"
		"  --md FILE                    also write a Markdown summary (merge-request\n"
		"                               comment)\n"
		"  --targets FILE               GPU descriptions (default: $GPUPROJ_TARGETS, else\n"
		"                               the built-in targets.yaml)\n"
		"  --source NAME                the source GPU of both profiles (default: from\n"
		"                               each profile's device; their device names are\n"
		"                               then not compared)\n"
		"  --model NAME                 projection model (default: %s)\n"
		"  -h, --help                   show this help\n\n"
		"Kernels match on name, tag, grid, block and dynamic shared memory (not the\n"
		"device ordinal). New and vanished kernels are listed and count in the\n"
		"whole-run totals. Stored projections in the files are ignored.\n\n",
		GPUPROJ_GATE_DEFAULT_MAX_REGRESSION * 100,
		GPUPROJ_GATE_DEFAULT_KERNEL_MAX_REGRESSION * 100, GPUPROJ_GATE_DEFAULT_NOISE_K,
		GPUPROJ_GATE_DEFAULT_MIN_TIME_FRACTION * 100,
		gpuproj_model_name(gpuproj_model_default()));
	cli_print_shared_help(f);
	cli_print_exit_status(f, "gate");
}

/* "5", "5%", "7.5 %" → 0.05, 0.05, 0.075; false on anything else or < 0. */
static bool
parse_pct(const char *s, double *ret)
{
	char buf[64];
	size_t len;
	double v;

	if (!s || strlen(s) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", s);
	len = strlen(buf);
	while (len && buf[len - 1] == ' ')
		buf[--len] = '\0';
	if (len && buf[len - 1] == '%')
		buf[--len] = '\0';
	if (!parse_double(buf, &v) || !isfinite(v) || v < 0)
		return false;
	*ret = v / 100;
	return true;
}

/* Print a library error and return the gate's "no verdict" status. */
static int
input_error(const struct gpuproj_error *err)
{
	cli_fail_error(err);
	return EXIT_USAGE;
}

/* The command line, parsed. */
/* What --format selects; the words are format_names[]. */
enum gate_format { FMT_TEXT, FMT_JSON, FMT_JUNIT, FMT_MD };
static const char *const format_names[] = { "text", "json", "junit", "md" };

struct gate_args {
	const char *baseline, *current, *junit, *md, *targets_path, *model_name, *output;
	int format;
	struct cli_shared shared; /* -q: no summary; --progress: accepted, nothing is long */
	const char **target_names;
	size_t n_target_names;
	struct gpuproj_gate_options opt;
};

enum {
	O_BASELINE = 256, O_TARGET, O_MAXREG, O_KMAXREG, O_NOISE, O_MINTIME, O_ALLOW,
	O_JUNIT, O_MD, O_TARGETS, O_SOURCE, O_MODEL, O_METRIC, O_FORMAT,
};

/*
 * The value of --metric, --max-regression, --kernel-max-regression,
 * --noise-k or --min-time into `opt`: -1 to go on, else the usage error's
 * status.
 */
static int
parse_value(int c, const char *value, struct gpuproj_gate_options *opt)
{
	const struct gpuproj_word *w;
	char words[128];
	size_t n;
	double v;
	int m;

	switch (c) {
	case O_METRIC:
		w = gpuproj_gate_metric_words(&n);
		if (!cli_word(value, w, n, &m))
			return cli_usage_error("gate", "--metric needs %s, got '%s'",
					       cli_word_list(words, sizeof(words), w, n, "'"),
					       value);
		opt->metric = (enum gpuproj_gate_metric)m;
		return -1;
	case O_MAXREG:
	case O_KMAXREG:
		if (!parse_pct(value, &v))
			return cli_usage_error("gate", "%s needs a non-negative percentage such as "
					       "'5' or '5%%', got '%s'", c == O_MAXREG ?
					       "--max-regression" : "--kernel-max-regression",
					       value);
		*(c == O_MAXREG ? &opt->max_regression : &opt->kernel_max_regression) = v;
		return -1;
	case O_NOISE:
		if (!parse_double(value, &v) || !isfinite(v) || v < 0)
			return cli_usage_error("gate", "--noise-k needs a non-negative number, "
					       "got '%s'", value);
		opt->noise_k = v;
		return -1;
	default: /* O_MINTIME */
		if (strchr(value, '%')) {
			if (parse_pct(value, &v)) {
				opt->min_time_fraction = v;
				opt->min_time_ns = NAN;
				return -1;
			}
		} else if (parse_duration_ns(value, &v) && isfinite(v) && v >= 0) {
			opt->min_time_ns = v;
			return -1;
		}
		return cli_usage_error("gate", "--min-time needs a duration such as '50us' or a "
				       "share of the run such as '1%%', got '%s'", value);
	}
}

/* Whether two outputs (NULL: none) are one: both standard output, or one file. */
static bool
same_output(const char *x, const char *y)
{
	return x && y && (strcmp(x, y) == 0 || (strcmp(x, "-") != 0 && file_same(x, y)));
}

/* The options and their usage errors. Returns -1 to go on, else the exit status. */
static int
parse_args(int argc, char **argv, struct gate_args *a)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ "target", required_argument, NULL, O_TARGET },
		{ "max-regression", required_argument, NULL, O_MAXREG },
		{ "kernel-max-regression", required_argument, NULL, O_KMAXREG },
		{ "noise-k", required_argument, NULL, O_NOISE },
		{ "min-time", required_argument, NULL, O_MINTIME },
		{ "allow-gpu-change", no_argument, NULL, O_ALLOW },
		{ "junit", required_argument, NULL, O_JUNIT },
		{ "md", required_argument, NULL, O_MD },
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "source", required_argument, NULL, O_SOURCE },
		{ "model", required_argument, NULL, O_MODEL },
		{ "metric", required_argument, NULL, O_METRIC },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;

	gpuproj_gate_options_init(&a->opt);
	optind = 1;
	opterr = 0;
	a->target_names = calloc((size_t)argc + 1, sizeof(*a->target_names));
	if (!a->target_names) {
		cli_fail("out of memory");
		return EXIT_USAGE;
	}
	while ((c = getopt_long(argc, argv, ":ho:q", cli_options(opts), NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case O_BASELINE: a->baseline = optarg; break;
		case O_TARGET: a->target_names[a->n_target_names++] = optarg; break;
		case O_ALLOW: a->opt.allow_gpu_change = true; break;
		case O_JUNIT: a->junit = optarg; break;
		case O_MD: a->md = optarg; break;
		case O_TARGETS: a->targets_path = optarg; break;
		case O_SOURCE: a->opt.source = optarg; break;
		case O_MODEL: a->model_name = optarg; break;
		case 'o': a->output = optarg; break;
		case O_FORMAT:
			if (!cli_parse_format("gate", optarg, format_names,
					      sizeof(format_names) / sizeof(format_names[0]),
					      &a->format))
				return EXIT_USAGE;
			break;
		case O_METRIC:
		case O_MAXREG:
		case O_KMAXREG:
		case O_NOISE:
		case O_MINTIME:
			r = parse_value(c, optarg, &a->opt);
			if (r >= 0)
				return r;
			break;
		case 'q':
		case CLI_O_PROGRESS:
			if (cli_shared_option("gate", c, optarg, &a->shared) < 0)
				return EXIT_USAGE;
			break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("gate", c, argv);
		}
	}
	if (!a->baseline)
		return cli_usage_error("gate", "missing --baseline BASE.json");
	/* One file for two reports: the second would replace the first (as report refuses). */
	if (a->junit && a->md && (strcmp(a->junit, a->md) == 0 || file_same(a->junit, a->md)))
		return cli_usage_error("gate", "--junit and --md name the same file '%s'", a->md);
	if (!a->output)
		a->output = "-";
	if (same_output(a->output, a->junit))
		return cli_usage_error("gate", "-o and --junit name the same file '%s'", a->junit);
	if (same_output(a->output, a->md))
		return cli_usage_error("gate", "-o and --md name the same file '%s'", a->md);
	if (optind != argc - 1)
		return optind == argc ? cli_usage_error("gate", "missing CURRENT.json")
				      : cli_usage_error("gate", "expected one CURRENT.json, got %d "
							"files", argc - optind);
	a->opt.model = a->model_name ? gpuproj_model_find(a->model_name) : gpuproj_model_default();
	if (!a->opt.model)
		return cli_usage_error("gate", "unknown model '%s' (`gpuproj project --model list` "
				       "lists them)", a->model_name);
	a->current = argv[optind];
	a->opt.baseline_label = a->baseline;
	a->opt.current_label = a->current;
	return -1;
}

/* The --target GPUs, looked up before the profiles are read; false after the error. */
static bool
named_columns(const struct gate_args *a, const struct gpuproj_targets *targets,
	      const struct gpuproj_target **cols, size_t *n)
{
	size_t i;

	for (i = 0; i < a->n_target_names; i++) {
		cols[*n] = cli_target(targets, "gate", a->target_names[i]);
		if (!cols[(*n)++])
			return false;
	}
	return true;
}

/*
 * Without --target: every GPU of targets.yaml but the common source GPU,
 * which the measured column covers (a projection onto itself adds nothing).
 */
static void
default_columns(const struct gate_args *a, const struct gpuproj_targets *targets,
		const struct gpuproj_profile *base, const struct gpuproj_profile *cur,
		const struct gpuproj_target **cols, size_t *n)
{
	const struct gpuproj_target *bs = NULL, *cs = NULL;
	size_t i;

	if (gpuproj_resolve_source(base, targets, a->opt.source, &bs, NULL) ||
	    gpuproj_resolve_source(cur, targets, a->opt.source, &cs, NULL) || bs != cs)
		bs = NULL;
	for (i = 0; i < gpuproj_targets_count(targets); i++) {
		if (gpuproj_targets_get(targets, i) != bs)
			cols[(*n)++] = gpuproj_targets_get(targets, i);
	}
}

/* Whether an output goes to standard output. */
static bool
to_stdout(const char *path)
{
	return path && strcmp(path, "-") == 0;
}

/*
 * The human summary (gpuproj_gate_print()) on `f`; the status on success
 * is the verdict's.
 */
static int
print_summary(FILE *f, const struct gpuproj_gate_result *res)
{
	int pr = gpuproj_gate_print(f, res), fl, e;

	errno = 0;
	fl = fflush(f);
	e = errno;
	if (pr || fl != 0) {
		cli_fail("%s: write error%s%s", f == stdout ? "<stdout>" : "<stderr>",
			 e ? ": " : "", e ? strerror(e) : "");
		return EXIT_USAGE;
	}
	return res->regression ? EXIT_VERDICT : EXIT_OK;
}

/* The summary as text in memory (for -o FILE with --format text); NULL on ENOMEM. */
static char *
summary_text(const struct gpuproj_gate_result *res)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int r;

	if (!f)
		return NULL;
	r = gpuproj_gate_print(f, res);
	if (fclose(f) != 0 || r) {
		free(text);
		return NULL;
	}
	return text;
}

/* The text of --format FMT. Returns GPUPROJ_OK or GPUPROJ_E_NOMEM. */
static int
render(int fmt, const struct gpuproj_gate_result *res, char **ret)
{
	switch (fmt) {
	case FMT_JSON: return gpuproj_gate_json(res, ret);
	case FMT_JUNIT: return gpuproj_gate_junit(res, ret);
	case FMT_MD: return gpuproj_gate_markdown(res, ret);
	default:
		*ret = summary_text(res);
		return *ret ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
	}
}

/*
 * The reports, then the summary. -o (with --format), --junit and --md are
 * rendered first, so only I/O can fail once files are touched; on a
 * failure no file is left (one written before is removed). The summary
 * goes to standard output unless an output does, then to stderr.
 * Returns the exit status.
 */
static int
write_reports(const struct gate_args *a, const struct gpuproj_gate_result *res)
{
	struct gpuproj_error err = { 0 };
	/* [0] -o, [1] --junit, [2] --md; -o in text to stdout is the summary itself. */
	const char *path[3] = { a->output, a->junit, a->md };
	int fmt[3] = { a->format, FMT_JUNIT, FMT_MD };
	char *text[3] = { NULL, NULL, NULL };
	bool summary_out = a->format == FMT_TEXT && to_stdout(a->output);
	int ret = EXIT_USAGE;
	size_t i, j;

	if (summary_out)
		path[0] = NULL;
	for (i = 0; i < 3; i++) {
		if (path[i] && render(fmt[i], res, &text[i])) {
			cli_fail("out of memory");
			goto out;
		}
	}
	/* No report is written when one would replace an input (util.h). */
	for (i = 0; i < 3; i++) {
		if (path[i] && file_check_output(path[i], &err)) {
			input_error(&err);
			goto out;
		}
	}
	for (i = 0; i < 3; i++) {
		if (!path[i] || !gpuproj_gate_write(path[i], text[i], &err))
			continue;
		input_error(&err);
		for (j = 0; j < i; j++) {
			if (path[j] && !to_stdout(path[j]))
				unlink(path[j]);
		}
		goto out;
	}
	/* -q: no summary; text to -o FILE: the summary went there. */
	if (a->shared.quiet || (a->format == FMT_TEXT && !summary_out))
		ret = res->regression ? EXIT_VERDICT : EXIT_OK;
	else
		ret = print_summary(summary_out || !(to_stdout(path[0]) || to_stdout(a->junit) ||
						     to_stdout(a->md)) ? stdout : stderr, res);
out:
	for (i = 0; i < 3; i++)
		free(text[i]);
	return ret;
}

int
cmd_gate(int argc, char **argv)
{
	struct gate_args a = { 0 };
	const struct gpuproj_target **cols = NULL;
	size_t n_cols = 0, i;
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_profile *base = NULL, *cur = NULL;
	struct gpuproj_gate_result res = { 0 };
	struct gpuproj_error err = { 0 };
	int ret = parse_args(argc, argv, &a);

	if (ret >= 0)
		goto out;
	ret = EXIT_USAGE;
	if (cli_load_targets(a.targets_path, &targets, NULL))
		goto out;
	cols = calloc((a.n_target_names ? a.n_target_names : gpuproj_targets_count(targets)) + 1,
		      sizeof(*cols));
	if (!cols) {
		cli_fail("out of memory");
		goto out;
	}
	if (!named_columns(&a, targets, cols, &n_cols))
		goto out;
	if (gpuproj_profile_load(a.baseline, &base, &err) ||
	    gpuproj_profile_load(a.current, &cur, &err)) {
		input_error(&err);
		goto out;
	}
	if (!a.n_target_names)
		default_columns(&a, targets, base, cur, cols, &n_cols);
	if (gpuproj_gate_compare(base, cur, targets, cols, n_cols, &a.opt, &res, &err)) {
		input_error(&err);
		goto out;
	}
	for (i = 0; i < res.n_warnings; i++)
		cli_warn("%s", res.warnings[i]);
	ret = write_reports(&a, &res);
out:
	gpuproj_gate_result_clear(&res);
	gpuproj_profile_free(base);
	gpuproj_profile_free(cur);
	gpuproj_targets_free(targets);
	free(cols);
	free(a.target_names);
	return ret;
}
