/* SPDX-License-Identifier: MIT */
/*
 * gpuproj gate: the CI performance gate (include/gpuproj/gate.h).
 *
 * Exit status (stable, for CI): 0 pass, 1 regression, 2 no verdict (bad
 * usage, unreadable or invalid input, an unknown GPU, different source GPUs
 * without --allow-gpu-change, or a report file that could not be written).
 * On status 2 no report file is written.
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

#define EXIT_REGRESSION 1

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
		"  --junit FILE                 write JUnit XML (one test case per kernel x GPU)\n"
		"  --md FILE                    write a Markdown summary (merge-request comment)\n"
		"  --targets FILE               GPU descriptions (default: $GPUPROJ_TARGETS, else\n"
		"                               the built-in targets.yaml)\n"
		"  --source NAME                the source GPU of both profiles (default: from\n"
		"                               each profile's device; their device names are\n"
		"                               then not compared)\n"
		"  --model NAME                 projection model (default: %s)\n"
		"  -h, --help                   show this help\n\n"
		"Kernels match on name, tag, grid, block and dynamic shared memory (not the\n"
		"device ordinal). New and vanished kernels are listed and count in the\n"
		"whole-run totals. Stored projections in the files are ignored.\n\n"
		"Exit status: 0 pass, 1 regression, 2 bad usage or input (no verdict).\n",
		GPUPROJ_GATE_DEFAULT_MAX_REGRESSION * 100,
		GPUPROJ_GATE_DEFAULT_KERNEL_MAX_REGRESSION * 100, GPUPROJ_GATE_DEFAULT_NOISE_K,
		GPUPROJ_GATE_DEFAULT_MIN_TIME_FRACTION * 100,
		gpuproj_model_name(gpuproj_model_default()));
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

int
cmd_gate(int argc, char **argv)
{
	enum {
		O_BASELINE = 256, O_TARGET, O_MAXREG, O_KMAXREG, O_NOISE, O_MINTIME, O_ALLOW,
		O_JUNIT, O_MD, O_TARGETS, O_SOURCE, O_MODEL, O_METRIC,
	};
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gpuproj_gate_options opt;
	const char *baseline = NULL, *junit = NULL, *md = NULL, *targets_path = NULL;
	const char *model_name = NULL;
	const char **target_names = NULL;
	const struct gpuproj_target **gate_targets = NULL;
	size_t n_target_names = 0, n_gate = 0, n_words, i;
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_profile *base = NULL, *cur = NULL;
	struct gpuproj_gate_result res = { 0 };
	struct gpuproj_error err = { 0 };
	char *junit_text = NULL, *md_text = NULL, words[128];
	FILE *summary;
	double v;
	int c, ret = EXIT_USAGE;

	gpuproj_gate_options_init(&opt);
	optind = 1;
	opterr = 0;
	target_names = calloc((size_t)argc + 1, sizeof(*target_names));
	if (!target_names) {
		cli_fail("out of memory");
		goto out;
	}
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			ret = EXIT_OK;
			goto out;
		case O_BASELINE: baseline = optarg; break;
		case O_TARGET: target_names[n_target_names++] = optarg; break;
		case O_ALLOW: opt.allow_gpu_change = true; break;
		case O_JUNIT: junit = optarg; break;
		case O_MD: md = optarg; break;
		case O_TARGETS: targets_path = optarg; break;
		case O_SOURCE: opt.source = optarg; break;
		case O_MODEL: model_name = optarg; break;
		case O_METRIC: {
			const struct gpuproj_word *w = gpuproj_gate_metric_words(&n_words);
			int m;

			if (!cli_word(optarg, w, n_words, &m)) {
				ret = cli_usage_error("gate", "--metric needs %s, got '%s'",
						      cli_word_list(words, sizeof(words), w,
								    n_words, "'"),
						      optarg);
				goto out;
			}
			opt.metric = (enum gpuproj_gate_metric)m;
			break;
		}
		case O_MAXREG:
		case O_KMAXREG:
			if (!parse_pct(optarg, &v)) {
				ret = cli_usage_error("gate", "%s needs a non-negative percentage "
						      "such as '5' or '5%%', got '%s'", c == O_MAXREG ?
						      "--max-regression" : "--kernel-max-regression",
						      optarg);
				goto out;
			}
			*(c == O_MAXREG ? &opt.max_regression : &opt.kernel_max_regression) = v;
			break;
		case O_NOISE:
			if (!parse_double(optarg, &v) || !isfinite(v) || v < 0) {
				ret = cli_usage_error("gate", "--noise-k needs a non-negative number, "
						      "got '%s'", optarg);
				goto out;
			}
			opt.noise_k = v;
			break;
		case O_MINTIME:
			if (strchr(optarg, '%')) {
				if (parse_pct(optarg, &v)) {
					opt.min_time_fraction = v;
					opt.min_time_ns = NAN;
					break;
				}
			} else if (parse_duration_ns(optarg, &v) && isfinite(v) && v >= 0) {
				opt.min_time_ns = v;
				break;
			}
			ret = cli_usage_error("gate", "--min-time needs a duration such as '50us' "
					      "or a share of the run such as '1%%', got '%s'",
					      optarg);
			goto out;
		default: /* ':' missing value, '?' unknown option */
			ret = cli_option_error("gate", c, argv);
			goto out;
		}
	}
	if (!baseline) {
		ret = cli_usage_error("gate", "missing --baseline BASE.json");
		goto out;
	}
	/* One file for two reports: the second would replace the first (as report refuses). */
	if (junit && md && (strcmp(junit, md) == 0 || file_same(junit, md))) {
		ret = cli_usage_error("gate", "--junit and --md name the same file '%s'", md);
		goto out;
	}
	if (optind != argc - 1) {
		ret = optind == argc ? cli_usage_error("gate", "missing CURRENT.json")
				     : cli_usage_error("gate", "expected one CURRENT.json, got %d files",
						       argc - optind);
		goto out;
	}
	opt.model = model_name ? gpuproj_model_find(model_name) : gpuproj_model_default();
	if (!opt.model) {
		ret = cli_usage_error("gate", "unknown model '%s' (`gpuproj project --model list` "
				      "lists them)", model_name);
		goto out;
	}
	opt.baseline_label = baseline;
	opt.current_label = argv[optind];

	if (cli_load_targets(targets_path, &targets, NULL))
		goto out;
	gate_targets = calloc((n_target_names ? n_target_names : gpuproj_targets_count(targets)) + 1,
			      sizeof(*gate_targets));
	if (!gate_targets) {
		cli_fail("out of memory");
		goto out;
	}
	if (n_target_names) {
		for (i = 0; i < n_target_names; i++) {
			const struct gpuproj_target *t = cli_target(targets, "gate", target_names[i]);

			if (!t)
				goto out;
			gate_targets[n_gate++] = t;
		}
	}

	if (gpuproj_profile_load(baseline, &base, &err) ||
	    gpuproj_profile_load(argv[optind], &cur, &err)) {
		input_error(&err);
		goto out;
	}
	if (!n_target_names) {
		/*
		 * Every GPU of targets.yaml but the common source GPU, which the
		 * measured column covers (a projection onto itself adds nothing).
		 */
		const struct gpuproj_target *bs = NULL, *cs = NULL;

		if (gpuproj_resolve_source(base, targets, opt.source, &bs, NULL) ||
		    gpuproj_resolve_source(cur, targets, opt.source, &cs, NULL) || bs != cs)
			bs = NULL;
		for (i = 0; i < gpuproj_targets_count(targets); i++) {
			if (gpuproj_targets_get(targets, i) != bs)
				gate_targets[n_gate++] = gpuproj_targets_get(targets, i);
		}
	}
	if (gpuproj_gate_compare(base, cur, targets, gate_targets, n_gate, &opt, &res, &err)) {
		input_error(&err);
		goto out;
	}
	for (i = 0; i < res.n_warnings; i++)
		cli_warn("%s", res.warnings[i]);

	/* Render everything first, so only I/O can fail once files are touched. */
	if ((junit && gpuproj_gate_junit(&res, &junit_text)) ||
	    (md && gpuproj_gate_markdown(&res, &md_text))) {
		cli_fail("out of memory");
		goto out;
	}
	/* Neither report is written when one would replace an input (util.h). */
	if ((junit && file_check_output(junit, &err)) || (md && file_check_output(md, &err))) {
		input_error(&err);
		goto out;
	}
	if (junit && gpuproj_gate_write(junit, junit_text, &err)) {
		input_error(&err);
		goto out;
	}
	if (md && gpuproj_gate_write(md, md_text, &err)) {
		input_error(&err);
		if (junit && strcmp(junit, "-") != 0)
			unlink(junit);
		goto out;
	}
	/* The human summary goes to stdout unless a report does. */
	summary = (junit && strcmp(junit, "-") == 0) || (md && strcmp(md, "-") == 0) ? stderr
										      : stdout;
	{
		int pr = gpuproj_gate_print(summary, &res), fl, e;

		errno = 0;
		fl = fflush(summary);
		e = errno;
		if (pr || fl != 0) {
			cli_fail("%s: write error%s%s", summary == stdout ? "<stdout>" : "<stderr>",
				 e ? ": " : "", e ? strerror(e) : "");
			goto out;
		}
	}
	ret = res.regression ? EXIT_REGRESSION : EXIT_OK;
out:
	free(junit_text);
	free(md_text);
	gpuproj_gate_result_clear(&res);
	gpuproj_profile_free(base);
	gpuproj_profile_free(cur);
	gpuproj_targets_free(targets);
	free(gate_targets);
	free(target_names);
	return ret;
}
