/* SPDX-License-Identifier: MIT */
/*
 * gpuproj validate: project kernels measured on one GPU onto the others and
 * compare with the times measured there (include/gpuproj/validate.h).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuproj/import.h>
#include <gpuproj/interval.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/validate.h>

#include "cli.h"
#include "util.h"

/* The inputs --drop takes ("shared, warp-efficiency, …"), from model.h's table. */
static const char *
drop_words(char *buf, size_t size)
{
	size_t len = 0;
	int a;

	buf[0] = '\0';
	for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
		const char *in = gpuproj_assumption_info((enum gpuproj_assumption)a)->input;

		if (in && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", in);
	}
	return buf;
}

/* --drop LIST into bits of gpuproj_model_options.drop_inputs; false (usage printed) when bad. */
static bool
parse_drop(const char *list, unsigned *ret)
{
	char buf[256], inputs[256], *tok, *save = NULL;
	enum gpuproj_assumption a;

	if (strlen(list) >= sizeof(buf)) {
		cli_usage_error("validate", "--drop: list too long");
		return false;
	}
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (gpuproj_assumption_from_input(tok, &a)) {
			cli_usage_error("validate", "--drop takes %s, not '%s'",
					drop_words(inputs, sizeof(inputs)), tok);
			return false;
		}
		*ret |= 1u << a;
	}
	if (!*ret) {
		cli_usage_error("validate", "--drop needs an input (%s)",
				drop_words(inputs, sizeof(inputs)));
		return false;
	}
	return true;
}

/* --fit-assumptions: the study, its table written to path and printed. */
static int
fit_assumptions(const char *path, struct gpuproj_profile **profiles, size_t n_profiles,
		const struct gpuproj_targets *targets, const struct gpuproj_validate_options *vopt,
		const char *created, const char *command, const char *output)
{
	struct gpuproj_assumption_study st = { 0 };
	struct gpuproj_error err = { 0 };
	int ret = EXIT_FAIL;
	FILE *f = stdout;

	if (gpuproj_validate_assumptions((const struct gpuproj_profile *const *)profiles,
					 n_profiles, targets, vopt, &st, &err) ||
	    gpuproj_assumption_study_save(&st, path, created, command, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	if (output && strcmp(output, "-") != 0 && !(f = fopen(output, "w"))) {
		cli_fail("%s: %s", output, strerror(errno));
		goto out;
	}
	ret = gpuproj_assumption_study_write_table(f, &st) ? EXIT_FAIL : EXIT_OK;
	if (f != stdout && fclose(f) != 0)
		ret = cli_fail("%s: %s", output, strerror(errno));
out:
	gpuproj_assumption_study_clear(&st);
	return ret;
}

static void
help(FILE *f)
{
	char inputs[256];

	fprintf(f,
		"Usage: gpuproj validate [options] DATASET...\n\n"
		"Project every kernel measured on one GPU onto every other GPU that measured the\n"
		"same kernel, and compare the projection with the measured time.\n\n"
		"DATASET is a gpuproj profile JSON, a gpuperfpredict CSV, a NeuSight CSV or an\n"
		"XLA matmul-table CSV (recognised by content). The CSV files of one data set are\n"
		"imported together, one profile per GPU. Measured\n"
		"times on a target come from a kernel's reference_ns or, for several profile\n"
		"JSONs, from the profile measured on that target (same signature, any device\n"
		"ordinal).\n\n"
		"Options:\n"
		"  --targets FILE       GPU descriptions (default: $GPUPROJ_TARGETS, else the\n"
		"                       built-in targets.yaml)\n"
		"  --model NAME         model to validate (default: %s); repeat for several;\n"
		"                       'all' = every model; `--model list` lists them;\n"
		"                       'naive' = the datasheet-roofline baseline\n"
		"  --threshold DUR      short/long split on the measured target time (default\n"
		"                       50us; units ns, us, µs, ms, s; a bare number is ns)\n"
		"  --source NAME        use only data measured on this GPU as the source; repeat\n"
		"  --target NAME        compare only on this GPU; repeat (default: all)\n"
		"  --l2-capacity on|off adjust DRAM bytes for each target's L2 size (default: %s;\n"
		"                       `gpuproj project --help` explains)\n"
		"  --waves sm|resident|off  wave quantisation of the occupancy model (default:\n"
		"                       %s; `gpuproj project --help` explains)\n"
		"  --occupancy little|linear  hroof-occ's occupancy term (default: %s;\n"
		"                       `gpuproj project --help` explains)\n"
		"  --clock sustained|burst  FP rate of power-limited GPUs (default: %s;\n"
		"                       `gpuproj project --help` explains; burst for data\n"
		"                       timed in short bursts, as NeuSight's)\n",
		gpuproj_model_name(gpuproj_model_default()),
		gpuproj_l2_capacity_default() ? "on" : "off",
		gpuproj_waves_name(gpuproj_waves_default()),
		gpuproj_occupancy_term_name(gpuproj_occupancy_term_default()),
		gpuproj_clock_name(gpuproj_clock_default()));
	fprintf(f,
		"  --compute fp|issue   hroof's and hroof-occ's compute roof (default: %s):\n"
		"                       the FP peaks (Van Lanker et al. 2024, eqs. 2-3), or\n"
		"                       every pipe and instruction issue (`gpuproj project\n"
		"                       --help` explains)\n"
		"  --rates sustained|datasheet  the ceilings of every model but naive (default:\n"
		"                       %s; `gpuproj project --help` explains)\n"
		"  --intervals FILE|builtin|levels  the calibrated intervals behind coverage and\n"
		"                       width: a table (gpuproj-intervals/1), the built-in one\n"
		"                       (default), or each model's own interval\n"
		"  --holdout shape|gpu  split the comparisons (by kernel shape, or by target GPU)\n"
		"                       and report only the evaluation half: figures on data\n"
		"                       that no fitted interval has seen\n"
		"  --fit-intervals FILE fit intervals on the calibration half (all comparisons\n"
		"                       without --holdout), use them, and write them to FILE;\n"
		"                       the table records this command in its provenance, and\n"
		"                       as its date $SOURCE_DATE_EPOCH (seconds since 1970,\n"
		"                       UTC) when set, else now\n"
		"  --merge-intervals BASE  with --fit-intervals FILE: write to FILE the table\n"
		"                       BASE (a file, or 'builtin') with the groups of the models\n"
		"                       fitted here added or replaced, every other group kept\n"
		"                       as it is (FILE may be BASE)\n"
		"  --default-sections   validate on what an export of Nsight Compute's default\n"
		"                       sections would hold: each profile reduced to durations,\n"
		"                       launch and the four speed-of-light percentages, derived\n"
		"                       from its counters against the source GPU's ceilings (the\n"
		"                       input of the coarser model 'sol'; docs/models.md \"sol\")\n"
		"  --drop INPUT[,INPUT...]  validate as if the profiles lacked these inputs:\n"
		"                       %s\n"
		"                       (each model then runs on its stated assumption for it;\n"
		"                       docs/models.md \"Missing inputs\")\n"
		"  --fit-assumptions FILE  measure what each assumption costs: validate with\n"
		"                       every input and again without each one, fit the widening\n"
		"                       of the intervals on the calibration half by shape, write\n"
		"                       the table (gpuproj-assumptions/1) to FILE and print it\n"
		"  --coverage P         coverage to fit for, 0 < P < 1 (default 0.8)\n"
		"  --format FMT         table (default), csv or json\n"
		"  --details            json: add every comparison (kernel, projection, error)\n"
		"  -o, --output FILE    write to FILE instead of standard output\n"
		"  -h, --help           show this help\n\n",
		gpuproj_compute_name(gpuproj_compute_default()),
		gpuproj_rates_name(gpuproj_rates_default()), drop_words(inputs, sizeof(inputs)));
	fputs("Per model and (source, target) pair, pooled per model, and pooled per model\n"
	      "over pairs of GPUs of the same and of different architecture generations\n"
	      "(Ampere, Hopper, CDNA3, ...; rows '(same gen)', '(cross gen)'): n, failed (not\n"
	      "projected, with the reason), MAPE = mean |projected - measured| / measured,\n"
	      "median APE, coverage (measured inside the projected [lo, hi]) and bias (mean\n"
	      "signed error), for all configurations and separately for those measured\n"
	      "below / at or above the threshold. Results on the gpuperfpredict data set are\n"
	      "printed with its citation (CC BY 4.0).\n\n"
	      "Exit status: 0 success (whatever the errors), 1 bad input, 2 bad usage.\n", f);
}

/* A word as a POSIX shell reads it back: bare when safe, else in single quotes. */
static char *
shell_word(const char *w)
{
	size_t n = 3, i;
	char *q, *p;

	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			    "_-+=./:,@%") == strlen(w))
		return xstrdup(w);
	for (i = 0; w[i]; i++)
		n += w[i] == '\'' ? 4 : 1;
	q = p = malloc(n);
	if (!q)
		return NULL;
	*p++ = '\'';
	for (i = 0; w[i]; i++) {
		if (w[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = w[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/* "gpuproj validate ARGS…" as given (argv[0] is "validate"); NULL on ENOMEM. */
static char *
command_line(int argc, char **argv)
{
	char *line = xstrdup("gpuproj"), *next, *w;
	int i;

	for (i = 0; line && i < argc; i++) {
		w = shell_word(argv[i]);
		next = w ? xasprintf("%s %s", line, w) : NULL;
		free(w);
		free(line);
		line = next;
	}
	return line;
}

enum format { FMT_TABLE, FMT_CSV, FMT_JSON };
static const char *const format_names[] = { "table", "csv", "json" };

static void
progress(void *userdata, size_t done, size_t total)
{
	size_t *last = userdata;

	/* About a hundred updates, and always the last one. */
	if (done != total && total > 100 && done - *last < total / 100)
		return;
	*last = done;
	fprintf(stderr, "\rgpuproj validate: %zu/%zu kernel x target", done, total);
	if (done == total)
		fputc('\n', stderr);
	fflush(stderr);
}

/* Add a model once. */
static void
add_model(const struct gpuproj_model **models, size_t *n, const struct gpuproj_model *m)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (models[i] == m)
			return;
	}
	models[(*n)++] = m;
}

static int
render_csv(FILE *f, void *userdata)
{
	return gpuproj_validation_write_csv(f, userdata);
}

static int
render_table(FILE *f, void *userdata)
{
	return gpuproj_validation_write_table(f, userdata);
}

/*
 * The date a fitted table records: $SOURCE_DATE_EPOCH (reproducible-builds.org
 * specification: seconds since 1970-01-01 00:00:00 UTC) when set, so that
 * a refit of the built-in table is byte-identical; *ret NULL (now) when not.
 */
static int
fit_date(char *buf, size_t size, const char **ret)
{
	struct gpuproj_error err = { 0 };
	struct tm tm;
	bool set;
	time_t t;

	*ret = NULL;
	if (source_date_epoch(&set, &t, &err))
		return cli_usage_error("validate", "%s", err.message);
	if (!set)
		return 0;
	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return cli_usage_error("validate", "SOURCE_DATE_EPOCH=%lld is not a date that can "
				       "be written (year beyond 9999?)", (long long)t);
	*ret = buf;
	return 0;
}

int
cmd_validate(int argc, char **argv)
{
	enum { O_TARGETS = 256, O_MODEL, O_THRESHOLD, O_SOURCE, O_TARGET, O_FORMAT, O_DETAILS,
	       O_L2, O_WAVES, O_OCCTERM, O_CLOCK, O_COMPUTE, O_RATES, O_INTERVALS, O_HOLDOUT, O_FIT, O_COVERAGE, O_MERGE,
	       O_SECTIONS, O_DROP, O_FIT_ASSUMPTIONS };
	static const struct option opts[] = {
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "model", required_argument, NULL, O_MODEL },
		{ "threshold", required_argument, NULL, O_THRESHOLD },
		{ "source", required_argument, NULL, O_SOURCE },
		{ "target", required_argument, NULL, O_TARGET },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "details", no_argument, NULL, O_DETAILS },
		{ "l2-capacity", required_argument, NULL, O_L2 },
		{ "waves", required_argument, NULL, O_WAVES },
		{ "occupancy", required_argument, NULL, O_OCCTERM },
		{ "clock", required_argument, NULL, O_CLOCK },
		{ "compute", required_argument, NULL, O_COMPUTE },
		{ "rates", required_argument, NULL, O_RATES },
		{ "intervals", required_argument, NULL, O_INTERVALS },
		{ "holdout", required_argument, NULL, O_HOLDOUT },
		{ "fit-intervals", required_argument, NULL, O_FIT },
		{ "coverage", required_argument, NULL, O_COVERAGE },
		{ "merge-intervals", required_argument, NULL, O_MERGE },
		{ "default-sections", no_argument, NULL, O_SECTIONS },
		{ "drop", required_argument, NULL, O_DROP },
		{ "fit-assumptions", required_argument, NULL, O_FIT_ASSUMPTIONS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *targets_path = NULL, *output = NULL, *origin = NULL;
	const char *intervals_arg = NULL, *fit_path = NULL, *merge_arg = NULL, *study = NULL;
	struct gpuproj_intervals *iv = NULL, *base = NULL, *merged = NULL;
	const struct gpuproj_intervals *base_table = NULL;
	char *command = NULL, created[32], words[128];
	const char **sources = NULL, **tnames = NULL;
	const struct gpuproj_model **models = NULL;
	size_t n_sources = 0, n_tnames = 0, n_models = 0, n_profiles = 0, i, last = 0, n_words;
	bool details = false, list = false;
	int fmt = FMT_TABLE;
	double threshold_ns = GPUPROJ_VALIDATE_DEFAULT_THRESHOLD_NS;
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_profile **profiles = NULL;
	struct gpuproj_validate_options vopt = { 0 };
	struct gpuproj_model_options mopt = { 0 };
	struct gpuproj_validation val = { 0 };
	struct gpuproj_error err = { 0 };
	int c, ret = EXIT_FAIL;

	/* The command as given, for a fitted table's provenance (before getopt permutes argv). */
	command = command_line(argc, argv);
	optind = 1;
	opterr = 0;
	sources = calloc((size_t)argc + 1, sizeof(*sources));
	tnames = calloc((size_t)argc + 1, sizeof(*tnames));
	models = calloc((size_t)argc * gpuproj_model_count() + 1, sizeof(*models));
	if (!sources || !tnames || !models || !command) {
		ret = cli_fail("out of memory");
		goto out;
	}
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			ret = EXIT_OK;
			goto out;
		case O_TARGETS: targets_path = optarg; break;
		case O_SOURCE: sources[n_sources++] = optarg; break;
		case O_TARGET: tnames[n_tnames++] = optarg; break;
		case O_DETAILS: details = true; break;
		case O_L2:
			if (!cli_parse_l2_capacity("validate", optarg, &mopt.l2_capacity)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_WAVES:
			if (!cli_parse_waves("validate", optarg, &mopt.waves)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_OCCTERM:
			if (!cli_parse_occupancy_term("validate", optarg, &mopt.occupancy_term)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_CLOCK:
			if (!cli_parse_clock("validate", optarg, &mopt.clock)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_COMPUTE:
			if (!cli_parse_compute("validate", optarg, &mopt.compute)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_RATES:
			if (!cli_parse_rates("validate", optarg, &mopt.rates)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_INTERVALS: intervals_arg = optarg; break;
		case O_FIT: fit_path = optarg; break;
		case O_MERGE: merge_arg = optarg; break;
		case O_SECTIONS: vopt.default_sections = true; break;
		case O_FIT_ASSUMPTIONS: study = optarg; break;
		case O_DROP:
			if (!parse_drop(optarg, &mopt.drop_inputs)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_HOLDOUT: {
			const struct gpuproj_word *w = gpuproj_holdout_words(&n_words);
			int h;

			if (!cli_word(optarg, w, n_words, &h)) {
				ret = cli_usage_error("validate", "--holdout must be %s, not '%s'",
						      cli_word_list(words, sizeof(words), w,
								    n_words, ""),
						      optarg);
				goto out;
			}
			vopt.holdout = (enum gpuproj_holdout)h;
			break;
		}
		case O_COVERAGE:
			if (!parse_double(optarg, &vopt.fit_coverage) || !(vopt.fit_coverage > 0) ||
			    !(vopt.fit_coverage < 1)) {
				ret = cli_usage_error("validate", "--coverage needs a number between 0 "
						      "and 1 (exclusive), not '%s'", optarg);
				goto out;
			}
			break;
		case 'o': output = optarg; break;
		case O_MODEL:
			if (strcmp(optarg, "list") == 0) {
				list = true;
			} else if (strcmp(optarg, "all") == 0) {
				for (i = 0; i < gpuproj_model_count(); i++)
					add_model(models, &n_models, gpuproj_model_at(i));
			} else {
				const struct gpuproj_model *m = gpuproj_model_find(optarg);

				if (!m) {
					ret = cli_usage_error("validate", "unknown model '%s' "
							      "(`--model list` lists them)", optarg);
					goto out;
				}
				add_model(models, &n_models, m);
			}
			break;
		case O_THRESHOLD:
			if (!parse_duration_ns(optarg, &threshold_ns) || !(threshold_ns > 0)) {
				ret = cli_usage_error("validate", "--threshold needs a positive "
						      "duration such as 50us or 1ms, not '%s'", optarg);
				goto out;
			}
			break;
		case O_FORMAT:
			if (!cli_parse_format("validate", optarg, format_names,
					      ARRAY_LENGTH(format_names), &fmt)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		default: /* ':' missing value, '?' unknown option */
			ret = cli_option_error("validate", c, argv);
			goto out;
		}
	}
	if (list) {
		cli_print_models();
		ret = EXIT_OK;
		goto out;
	}
	if (optind == argc) {
		ret = cli_usage_error("validate", "missing DATASET (a profile JSON, a "
				      "gpuperfpredict, NeuSight or XLA matmul CSV)");
		goto out;
	}
	if (details && fmt != FMT_JSON) {
		ret = cli_usage_error("validate", "--details needs --format json");
		goto out;
	}

	if (fit_path && intervals_arg) {
		ret = cli_usage_error("validate", "--fit-intervals and --intervals exclude each "
				      "other: the fitted intervals are the ones used");
		goto out;
	}
	if (merge_arg && !fit_path) {
		ret = cli_usage_error("validate", "--merge-intervals needs --fit-intervals FILE "
				      "(where the merged table is written)");
		goto out;
	}
	if (merge_arg && strcmp(merge_arg, "builtin") == 0) {
		base_table = gpuproj_intervals_builtin();
	} else if (merge_arg) {
		if (gpuproj_intervals_load(merge_arg, &base, &err)) {
			cli_fail_error(&err);
			goto out;
		}
		/* Read whole; the merged table may replace it (atomically) in place. */
		if (file_same(merge_arg, fit_path))
			file_forget_input(merge_arg);
		base_table = base;
	}
	if (intervals_arg && cli_apply_intervals(intervals_arg, &mopt, &iv))
		goto out;
	if (study && (fit_path || vopt.default_sections || vopt.holdout || mopt.drop_inputs ||
		      fmt != FMT_TABLE)) {
		ret = cli_usage_error("validate", "--fit-assumptions runs its own validations: "
				      "without --fit-intervals, --default-sections, --holdout, "
				      "--drop or --format");
		goto out;
	}
	vopt.fit_intervals = fit_path != NULL;
	vopt.fit_command = command;
	if (fit_path || study) {
		int r = fit_date(created, sizeof(created), &vopt.fit_created);

		if (r) {
			ret = r;
			goto out;
		}
	}

	if (cli_load_targets(targets_path, &targets, &origin))
		goto out;
	if (gpuproj_import_datasets((const char *const *)argv + optind, (size_t)(argc - optind),
				  targets, &profiles, &n_profiles, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	/* NeuSight's harness times bursts from idle: say which regime compares like with like. */
	for (i = 0; mopt.clock == GPUPROJ_CLOCK_DEFAULT && i < n_profiles; i++) {
		const char *o = gpuproj_profile_attr(profiles[i], "origin");

		if (o && strcmp(o, "neusight") == 0) {
			fprintf(stderr,
				"gpuproj: validate: note: NeuSight's times are the mean of the 5 "
				"fastest of 25 calls from idle, in which power-limited GPUs (T4, "
				"P4) hold their boost clock; --clock burst models that "
				"(docs/models.md \"Clock regime\")\n");
			break;
		}
	}
	vopt.models = models;
	vopt.n_models = n_models;
	vopt.threshold_ns = threshold_ns;
	vopt.sources = sources;
	vopt.n_sources = n_sources;
	vopt.targets = tnames;
	vopt.n_targets = n_tnames;
	vopt.targets_origin = origin;
	vopt.model_options = &mopt;
	if (cli_stderr_is_tty()) {
		vopt.progress = progress;
		vopt.progress_userdata = &last;
	}
	if (study) {
		ret = fit_assumptions(study, profiles, n_profiles, targets, &vopt,
				      vopt.fit_created, command, output);
		goto out;
	}
	if (gpuproj_validate((const struct gpuproj_profile *const *)profiles, n_profiles, targets,
			     &vopt, &val, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	if (val.n_comparisons == 0) {
		cli_fail("nothing to validate: no kernel of the data sets has a time measured on "
			 "another (selected) GPU");
		goto out;
	}

	if (base_table && gpuproj_intervals_merge(base_table, val.fitted, &merged, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	if (fit_path && gpuproj_intervals_save(merged ? merged : val.fitted, fit_path, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	if (fmt == FMT_JSON) {
		if (gpuproj_validation_write_json(output ? output : "-", &val, details, &err)) {
			cli_fail_error(&err);
			goto out;
		}
	} else if (cli_write_output(output, fmt == FMT_CSV ? render_csv : render_table, &val)) {
		goto out;
	}
	ret = EXIT_OK;
out:
	gpuproj_validation_clear(&val);
	gpuproj_intervals_free(iv);
	gpuproj_intervals_free(base);
	gpuproj_intervals_free(merged);
	free(command);
	for (i = 0; i < n_profiles; i++)
		gpuproj_profile_free(profiles[i]);
	free(profiles);
	gpuproj_targets_free(targets);
	free(sources);
	free(tnames);
	free(models);
	return ret;
}
