/* SPDX-License-Identifier: MIT */
/*
 * gpuproj validate: project kernels measured on one GPU onto the others and
 * compare with the times measured there (include/gpuproj/validate.h).
 */
#include "config.h"

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

static int
render_study(FILE *f, void *userdata)
{
	return gpuproj_assumption_study_write_table(f, userdata);
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

	if (gpuproj_validate_assumptions((const struct gpuproj_profile *const *)profiles,
					 n_profiles, targets, vopt, &st, &err) ||
	    gpuproj_assumption_study_save(&st, path, created, command, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	/* Atomically, as every -o: a failure leaves nothing half-written. */
	ret = cli_write_output(output, render_study, &st);
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
		"DATASET is a gpuproj profile JSON, a gpuperfpredict CSV, a NeuSight CSV, an\n"
		"XLA matmul-table CSV or a seed 002 CSV (recognised by content). The CSV files\n"
		"of one data set are imported together, one profile per GPU. Measured\n"
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
		"  --clock sustained|burst|auto  FP rate of power-limited GPUs (default: %s;\n"
		"                       `gpuproj project --help` explains; burst for data\n"
		"                       timed in short bursts, as NeuSight's; auto: the regime\n"
		"                       each profile's measured clock shows)\n",
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
		"  --fp32 fma|dense     FP32 rate of FFMA-dense kernels (default: %s; `gpuproj\n"
		"                       project --help` explains)\n"
		"  --rates sustained|datasheet  the ceilings of every model but naive (default:\n"
		"                       %s; `gpuproj project --help` explains)\n"
		"  --launch-floor on|off  the target's launch floor (default: %s; `gpuproj\n"
		"                       project --help` explains)\n"
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
		"  --coverage P         coverage to fit for, 0 < P < 1 (default %g, the\n"
		"                       built-in table's)\n"
		"  --format FMT         table (default), csv or json\n"
		"  --details            json: add every comparison (kernel, projection, error)\n"
		"  -o, --output FILE    write to FILE instead of standard output\n"
		"  -h, --help           show this help\n\n",
		gpuproj_compute_name(gpuproj_compute_default()),
		gpuproj_fp32_name(gpuproj_fp32_default()),
		gpuproj_rates_name(gpuproj_rates_default()),
		gpuproj_launch_floor_default() ? "on" : "off", drop_words(inputs, sizeof(inputs)),
		GPUPROJ_INTERVALS_DEFAULT_COVERAGE);
	cli_print_shared_help(f);
	fputs("Per model and (source, target) pair, pooled per model, and pooled per model\n"
	      "over pairs of GPUs of the same and of different architecture generations\n"
	      "(Ampere, Hopper, CDNA3, ...; rows '(same gen)', '(cross gen)'): n, failed (not\n"
	      "projected, with the reason), MAPE = mean |projected - measured| / measured,\n"
	      "median APE, coverage (measured inside the projected [lo, hi]) and bias (mean\n"
	      "signed error), for all configurations and separately for those measured\n"
	      "below / at or above the threshold. Results on the gpuperfpredict data set are\n"
	      "printed with its citation (CC BY 4.0).\n\n", f);
	cli_print_exit_status(f, "validate");
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

/* The command line, parsed. */
struct validate_args {
	const char *targets_path, *output, *intervals_arg, *fit_path, *merge_arg;
	const char *study; /* --fit-assumptions FILE */
	char *command, created[32];
	const char **sources, **tnames;
	const struct gpuproj_model **models;
	size_t n_sources, n_tnames, n_models;
	bool details, list;
	struct cli_shared shared;
	int fmt;
	double threshold_ns;
	struct gpuproj_validate_options vopt;
	struct gpuproj_model_options mopt;
};

/* --model NAME|all|list: -1 to go on, else the exit status. */
static int
parse_model(const char *value, struct validate_args *a)
{
	const struct gpuproj_model *m;
	size_t i;

	if (strcmp(value, "list") == 0) {
		a->list = true;
	} else if (strcmp(value, "all") == 0) {
		for (i = 0; i < gpuproj_model_count(); i++)
			add_model(a->models, &a->n_models, gpuproj_model_at(i));
	} else {
		m = gpuproj_model_find(value);
		if (!m)
			return cli_usage_error("validate", "unknown model '%s' (`--model list` "
					       "lists them)", value);
		add_model(a->models, &a->n_models, m);
	}
	return -1;
}

/* --holdout WORD: -1 to go on, else the exit status. */
static int
parse_holdout(const char *value, struct validate_args *a)
{
	size_t n;
	const struct gpuproj_word *w = gpuproj_holdout_words(&n);
	char words[128];
	int h;

	if (!cli_word(value, w, n, &h))
		return cli_usage_error("validate", "--holdout must be %s, not '%s'",
				       cli_word_list(words, sizeof(words), w, n, ""), value);
	a->vopt.holdout = (enum gpuproj_holdout)h;
	return -1;
}

static int check_args(int argc, const struct validate_args *a);

/* The options and their usage errors. Returns -1 to go on, else the exit status. */
static int
parse_args(int argc, char **argv, struct validate_args *a)
{
	enum { O_TARGETS = 256, O_MODEL, O_THRESHOLD, O_SOURCE, O_TARGET, O_FORMAT, O_DETAILS,
	       O_INTERVALS, O_HOLDOUT, O_FIT, O_COVERAGE, O_MERGE, O_SECTIONS, O_DROP,
	       O_FIT_ASSUMPTIONS };
	static const struct option opts[] = {
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "model", required_argument, NULL, O_MODEL },
		{ "threshold", required_argument, NULL, O_THRESHOLD },
		{ "source", required_argument, NULL, O_SOURCE },
		{ "target", required_argument, NULL, O_TARGET },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "details", no_argument, NULL, O_DETAILS },
		{ "l2-capacity", required_argument, NULL, CLI_O_MODEL(GPUPROJ_OPTION_L2_CAPACITY) },
		{ "launch-floor", required_argument, NULL,
		  CLI_O_MODEL(GPUPROJ_OPTION_LAUNCH_FLOOR) },
		{ "waves", required_argument, NULL, CLI_O_MODEL(GPUPROJ_OPTION_WAVES) },
		{ "occupancy", required_argument, NULL,
		  CLI_O_MODEL(GPUPROJ_OPTION_OCCUPANCY_TERM) },
		{ "clock", required_argument, NULL, CLI_O_MODEL(GPUPROJ_OPTION_CLOCK) },
		{ "compute", required_argument, NULL, CLI_O_MODEL(GPUPROJ_OPTION_COMPUTE) },
		{ "fp32", required_argument, NULL, CLI_O_MODEL(GPUPROJ_OPTION_FP32) },
		{ "rates", required_argument, NULL, CLI_O_MODEL(GPUPROJ_OPTION_RATES) },
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
	double *cov = &a->vopt.fit_coverage;
	int c, r = -1, idx = 0;

	/* The command as given, for a fitted table's provenance (before getopt permutes argv). */
	a->command = command_line(argc, argv);
	optind = 1;
	opterr = 0;
	a->sources = calloc((size_t)argc + 1, sizeof(*a->sources));
	a->tnames = calloc((size_t)argc + 1, sizeof(*a->tnames));
	a->models = calloc((size_t)argc * gpuproj_model_count() + 1, sizeof(*a->models));
	if (!a->sources || !a->tnames || !a->models || !a->command)
		return cli_fail("out of memory");
	while (r < 0 && (c = getopt_long(argc, argv, ":ho:q", cli_options(opts), &idx)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case O_TARGETS: a->targets_path = optarg; break;
		case O_SOURCE: a->sources[a->n_sources++] = optarg; break;
		case O_TARGET: a->tnames[a->n_tnames++] = optarg; break;
		case O_DETAILS: a->details = true; break;
		case O_INTERVALS: a->intervals_arg = optarg; break;
		case O_FIT: a->fit_path = optarg; break;
		case O_MERGE: a->merge_arg = optarg; break;
		case O_SECTIONS: a->vopt.default_sections = true; break;
		case O_HOLDOUT: r = parse_holdout(optarg, a); break;
		case O_FIT_ASSUMPTIONS: a->study = optarg; break;
		case O_DROP:
			if (!parse_drop(optarg, &a->mopt.drop_inputs))
				return EXIT_USAGE;
			break;
		case O_COVERAGE:
			if (!parse_double(optarg, cov) || !(*cov > 0) || !(*cov < 1))
				return cli_usage_error("validate", "--coverage needs a number "
						       "between 0 and 1 (exclusive), not '%s'",
						       optarg);
			break;
		case 'o': a->output = optarg; break;
		case O_MODEL: r = parse_model(optarg, a); break;
		case O_THRESHOLD:
			if (!parse_duration_ns(optarg, &a->threshold_ns) || !(a->threshold_ns > 0))
				return cli_usage_error("validate", "--threshold needs a positive "
						       "duration such as 50us or 1ms, not '%s'",
						       optarg);
			break;
		case O_FORMAT:
			if (!cli_parse_format("validate", optarg, format_names,
					      ARRAY_LENGTH(format_names), &a->fmt))
				return EXIT_USAGE;
			break;
		case 'q':
		case CLI_O_PROGRESS:
			if (cli_shared_option("validate", c, optarg, &a->shared) < 0)
				return EXIT_USAGE;
			break;
		default: /* a model option, else ':' missing value, '?' unknown option */
			r = cli_model_option("validate", opts[idx].name, c, optarg, &a->mopt);
			if (r == 0)
				return cli_option_error("validate", c, argv);
			r = r < 0 ? EXIT_USAGE : -1;
		}
	}
	if (r >= 0)
		return r;
	return check_args(argc, a);
}

/*
 * After the options: the datasets and the combinations the options allow.
 * Returns -1 to go on, else the exit status (as parse_args()).
 */
static int
check_args(int argc, const struct validate_args *a)
{
	if (a->list) {
		cli_print_models();
		return EXIT_OK;
	}
	if (optind == argc)
		return cli_usage_error("validate", "missing DATASET (a profile JSON, a "
				       "gpuperfpredict, NeuSight or XLA matmul CSV)");
	if (a->details && a->fmt != FMT_JSON)
		return cli_usage_error("validate", "--details needs --format json");
	if (a->fit_path && a->intervals_arg)
		return cli_usage_error("validate", "--fit-intervals and --intervals exclude each "
				       "other: the fitted intervals are the ones used");
	if (a->merge_arg && !a->fit_path)
		return cli_usage_error("validate", "--merge-intervals needs --fit-intervals FILE "
				       "(where the merged table is written)");
	if (a->study && (a->fit_path || a->vopt.default_sections || a->vopt.holdout ||
			 a->mopt.drop_inputs || a->fmt != FMT_TABLE))
		return cli_usage_error("validate", "--fit-assumptions runs its own validations: "
				       "without --fit-intervals, --default-sections, --holdout, "
				       "--drop or --format");
	return -1;
}

/*
 * The interval tables: the base of --merge-intervals, --intervals, and
 * the date of a fitted one. Returns EXIT_OK, or the status after the error.
 */
static int
load_tables(struct validate_args *a, struct gpuproj_intervals **iv,
	    struct gpuproj_intervals **base, const struct gpuproj_intervals **base_table)
{
	struct gpuproj_error err = { 0 };

	if (a->merge_arg && strcmp(a->merge_arg, "builtin") == 0) {
		*base_table = gpuproj_intervals_builtin();
	} else if (a->merge_arg) {
		if (gpuproj_intervals_load(a->merge_arg, base, &err))
			return cli_fail_error(&err);
		/* Read whole; the merged table may replace it (atomically) in place. */
		if (file_same(a->merge_arg, a->fit_path))
			file_forget_input(a->merge_arg);
		*base_table = *base;
	}
	if (a->intervals_arg && cli_apply_intervals(a->intervals_arg, &a->mopt, iv))
		return EXIT_FAIL;
	a->vopt.fit_intervals = a->fit_path != NULL;
	a->vopt.fit_command = a->command;
	return a->fit_path || a->study
		       ? fit_date(a->created, sizeof(a->created), &a->vopt.fit_created)
		       : EXIT_OK;
}

/* NeuSight's harness times bursts from idle: say which regime compares like with like. */
static void
neusight_note(const struct validate_args *a, struct gpuproj_profile *const *profiles, size_t n)
{
	size_t i;

	for (i = 0; a->mopt.clock == GPUPROJ_CLOCK_DEFAULT && i < n; i++) {
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
}

/* The fitted (or merged) table, then the statistics in the format asked for. */
static int
write_results(const struct validate_args *a, const struct gpuproj_validation *val,
	      const struct gpuproj_intervals *base_table, struct gpuproj_intervals **merged)
{
	struct gpuproj_error err = { 0 };

	if (base_table && gpuproj_intervals_merge(base_table, val->fitted, merged, &err))
		return cli_fail_error(&err);
	if (a->fit_path && gpuproj_intervals_save(*merged ? *merged : val->fitted, a->fit_path,
						  &err))
		return cli_fail_error(&err);
	if (a->fmt == FMT_JSON)
		return gpuproj_validation_write_json(a->output ? a->output : "-", val, a->details,
						     &err) ? cli_fail_error(&err) : EXIT_OK;
	return cli_write_output(a->output, a->fmt == FMT_CSV ? render_csv : render_table,
				(void *)val);
}

int
cmd_validate(int argc, char **argv)
{
	struct validate_args a = { .fmt = FMT_TABLE,
				   .threshold_ns = GPUPROJ_VALIDATE_DEFAULT_THRESHOLD_NS };
	struct gpuproj_intervals *iv = NULL, *base = NULL, *merged = NULL;
	const struct gpuproj_intervals *base_table = NULL;
	const char *origin = NULL;
	size_t n_profiles = 0, i;
	struct cli_progress prog;
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_profile **profiles = NULL;
	struct gpuproj_validation val = { 0 };
	struct gpuproj_error err = { 0 };
	int ret = parse_args(argc, argv, &a);

	if (ret >= 0)
		goto out;
	ret = load_tables(&a, &iv, &base, &base_table);
	if (ret)
		goto out;
	ret = EXIT_FAIL;
	if (cli_load_targets(a.targets_path, &targets, &origin))
		goto out;
	if (gpuproj_import_datasets((const char *const *)argv + optind, (size_t)(argc - optind),
				  targets, &profiles, &n_profiles, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	neusight_note(&a, profiles, n_profiles);
	a.vopt.models = a.models;
	a.vopt.n_models = a.n_models;
	a.vopt.threshold_ns = a.threshold_ns;
	a.vopt.sources = a.sources;
	a.vopt.n_sources = a.n_sources;
	a.vopt.targets = a.tnames;
	a.vopt.n_targets = a.n_tnames;
	a.vopt.targets_origin = origin;
	a.vopt.model_options = &a.mopt;
	cli_progress_init(&prog, &a.shared, "validate", "kernel x target");
	a.vopt.progress = cli_progress_update;
	a.vopt.progress_userdata = &prog;
	if (a.study) {
		ret = fit_assumptions(a.study, profiles, n_profiles, targets, &a.vopt,
				      a.vopt.fit_created, a.command, a.output);
		goto out;
	}
	if (gpuproj_validate((const struct gpuproj_profile *const *)profiles, n_profiles, targets,
			     &a.vopt, &val, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	if (val.n_comparisons == 0)
		cli_fail("nothing to validate: no kernel of the data sets has a time measured on "
			 "another (selected) GPU");
	else
		ret = write_results(&a, &val, base_table, &merged);
out:
	gpuproj_validation_clear(&val);
	gpuproj_intervals_free(iv);
	gpuproj_intervals_free(base);
	gpuproj_intervals_free(merged);
	free(a.command);
	for (i = 0; i < n_profiles; i++)
		gpuproj_profile_free(profiles[i]);
	free(profiles);
	gpuproj_targets_free(targets);
	free(a.sources);
	free(a.tnames);
	free(a.models);
	return ret;
}
