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

#include <gpuproj/interval.h>
#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/project.h>
#include <gpuproj/sass.h>
#include <gpuproj/trace.h>

#include "cli.h"
#include "util.h"

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
		"  --model NAME         projection model (default: %s); `--model list` lists them;\n"
		"                       `--model all`: every model side by side, with a '!' where\n"
		"                       they disagree by more than %gx (docs/validation.md)\n"
		"  --l2-capacity on|off L2 residency of repeated launches: fewer DRAM bytes on a\n"
		"                       target whose L2 holds more of the kernel's footprint than\n"
		"                       the source's, and at least the DRAM time of the bytes a\n"
		"                       smaller L2 cannot hold (default: %s)\n"
		"  --waves sm|resident|off  wave quantisation of the occupancy models (default:\n"
		"                       %s): a wave of one block per SM, of the blocks resident\n"
		"                       at once, or none\n"
		"  --no-fallback        project every kernel with the model alone; without\n"
		"                       --model, kernels the default model lacks inputs for are\n"
		"                       projected by hroof (launch geometry unknown) or sol\n"
		"                       (coarser: from Nsight Compute's throughput percentages),\n"
		"                       and kernels without any counter by the envelope of the\n"
		"                       target's FP32 and DRAM ceilings (assumed: binding\n"
		"                       unknown), labelled; a model named with --model is always\n"
		"                       alone\n"
		"  --intervals FILE|builtin|levels  projection intervals: a calibrated table\n"
		"                       (gpuproj-intervals/1), the built-in one (default: each\n"
		"                       model's validation residuals; docs/validation.md), or\n"
		"                       each model's own [min, max] over its levels\n"
		"  --occupancy little|linear  hroof-occ's occupancy term (default: %s): Little's\n"
		"                       law on the resident warps and the latencies of\n"
		"                       targets.yaml, or the linear occupancy ratio of\n"
		"                       Srivastava et al.\n"
		"  --clock sustained|burst|auto  FP rate of GPUs whose sustained clock is below\n"
		"                       their boost clock (default: %s): sustained under full\n"
		"                       load (an application's steady state), or burst: a kernel\n"
		"                       timed in a short burst from idle runs its first\n"
		"                       boost_hold_us at the boost rate (targets.yaml), or auto:\n"
		"                       the regime the source's measured clock shows, carried\n"
		"                       to the target (docs/models.md \"Clock regime\")\n",
		gpuproj_model_name(gpuproj_model_default()), GPUPROJ_MODEL_DISAGREEMENT_FACTOR,
		gpuproj_l2_capacity_default() ? "on" : "off",
		gpuproj_waves_name(gpuproj_waves_default()),
		gpuproj_occupancy_term_name(gpuproj_occupancy_term_default()),
		gpuproj_clock_name(gpuproj_clock_default()));
	fprintf(f,
		"  --compute fp|issue   hroof's and hroof-occ's compute roof (default: %s): fp =\n"
		"                       the FP instructions over the FP peaks (Van Lanker et\n"
		"                       al. 2024, eqs. 2-3); issue = also the FP32/INT32 lanes (shared on\n"
		"                       sm_86/sm_89/sm_120) and one warp instruction per\n"
		"                       scheduler per clock for every instruction\n"
		"                       (docs/models.md \"Compute roof\")\n"
		"  --fp32 fma|dense     FP32 rate of FFMA-dense kernels (default: %s): the\n"
		"                       FMA-loop rate (max_gflops), or what a large SGEMM\n"
		"                       reaches (fp32_dense_gflops; docs/models.md \"Achievable\n"
		"                       FP32 rate\")\n"
		"  --rates sustained|datasheet  the ceilings of every model but naive (default:\n"
		"                       %s): the rates measured under sustained load\n"
		"                       (STREAM triad DRAM, FMA at the held clock), or the\n"
		"                       datasheet's (docs/models.md \"Rates\")\n"
		"  --launch-floor on|off  hold every projection (but naive's) at or above the\n"
		"                       target's launch floor for the kernel's launch mode\n"
		"                       (targets.yaml launch_floor_us; default: %s)\n"
		"  --details            json: add every number behind each projection\n"
		"  --format FMT         table (default), json, csv, or trace: the whole run as\n"
		"                       Chrome trace-event JSON for Perfetto UI (one process\n"
		"                       per GPU; docs/formats/trace.md)\n"
		"  --expand N           trace: draw the first N epochs of each pattern (default\n"
		"                       %d: once, standing for its count; at most %d)\n"
		"  -o, --output FILE    write to FILE instead of standard output (JSON is\n"
		"                       written atomically)\n"
		"  --top N              kernels detailed per target in the table (default 5)\n"
		"  --all-kernels        detail every kernel in the table\n"
		"  -v, --verbose        the long table: the model's notes per target, and a row\n"
		"                       per target for each kernel also beyond 8 targets\n"
		"  --cubins DIR|FILE    the application's device code (a directory of *.cubin /\n"
		"                       *.fatbin as kept with GPUPROJ_KEEP_CUBINS, or the\n"
		"                       executable, a fatbin or a cubin; repeatable): compare the\n"
		"                       SASS of special functions on the source and each target\n"
		"                       and scale target FLOP (`gpuproj sass`; default ratio 1);\n"
		"                       tensor FLOP assumed from instruction counts take the\n"
		"                       FLOP per MMA instruction of each kernel's SASS instead\n"
		"  -h, --help           show this help\n\n"
		"Per kernel: launches, source time, projected time per launch with its\n"
		"interval, speedup and binding resource; whole-run totals per target. Where\n"
		"the profile carries times measured on a target (reference_ns), the error\n"
		"of the projection is shown too.\n\n",
		gpuproj_compute_name(gpuproj_compute_default()),
		gpuproj_fp32_name(gpuproj_fp32_default()),
		gpuproj_rates_name(gpuproj_rates_default()),
		gpuproj_launch_floor_default() ? "on" : "off", GPUPROJ_TRACE_EXPAND_DEFAULT,
		GPUPROJ_TRACE_EXPAND_MAX);
	cli_print_shared_help(f);
	cli_print_exit_status(f, "project");
}

enum format { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_TRACE };
static const char *const format_names[] = { "table", "json", "csv", "trace" };

/* The command line, parsed. */
struct project_args {
	const char *targets_path, *source, *model_name, *output, *profile_path;
	const char **target_names, **cubins;
	size_t n_target_names, n_cubins;
	bool builtin, all_models;
	int fmt;
	const struct gpuproj_model *model;
	struct gpuproj_project_write_options ropt;
	struct gpuproj_trace_options topt;
	struct gpuproj_model_options mopt;
	struct gpuproj_intervals *iv;
	struct cli_shared shared; /* -q, --progress: the SASS phase's line on a terminal */
};

/* What the table and CSV writers need (cli_write_output's render callback). */
struct text_out {
	const struct project_args *a;
	const struct gpuproj_profile *profile;
	struct gpuproj_projections *proj;
};

static int
render_text(FILE *f, void *userdata)
{
	const struct text_out *t = userdata;
	struct gpuproj_projections *pr = t->proj;
	const struct project_args *a = t->a;

	if (a->fmt == FMT_CSV)
		return pr->runs ? gpuproj_project_csv(f, t->profile, pr->source, pr->runs,
						      pr->n_runs)
				: gpuproj_project_csv_stream(f, t->profile, pr->source, pr->n_runs,
							     gpuproj_projections_provide, pr);
	if (pr->sass)
		fprintf(f, "FLOP ratio per kernel and target from the SASS of %zu "
			"kernel/architecture pairs (%s; docs/sass.md)\n",
			gpuproj_sass_count(pr->sass), a->cubins[0]);
	else
		fprintf(f, "FLOP ratio 1 on every target: no SASS analysis "
			"(--cubins compares special functions, docs/sass.md)\n");
	if (!pr->runs)
		return gpuproj_project_table_stream(f, t->profile, pr->source, pr->n_runs,
						    gpuproj_projections_provide, pr, &a->ropt);
	return gpuproj_project_table_models(f, t->profile, pr->source, pr->runs, pr->n_targets,
					    pr->n_models, &a->ropt);
}

static void
sass_progress(void *userdata, const char *phase, size_t done, size_t total, const char *what)
{
	(void)userdata;
	fprintf(stderr, "\rgpuproj: SASS %s %zu/%zu %s...\033[K%s", phase, done, total,
		cli_shown(what), done == total ? "\r\033[K" : "");
	fflush(stderr);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The most frequent reason a run's kernels were not projected (sorted,
 * counted in runs), copied into why[size]; returns how many kernels gave it.
 */
static size_t
common_reason(const struct gpuproj_run_projection *run, char *why, size_t size)
{
	const char **w = calloc(run->n ? run->n : 1, sizeof(*w));
	size_t i, best = 0, count = 0;

	why[0] = '\0';
	if (!w)
		return 0;
	for (i = 0; i < run->n; i++)
		w[i] = run->kernels[i].why;
	qsort(w, run->n, sizeof(*w), cmp_str);
	for (i = 0; i < run->n; i++) {
		count = i > 0 && strcmp(w[i], w[i - 1]) == 0 ? count + 1 : 1;
		if (count > best) {
			best = count;
			snprintf(why, size, "%s", w[i]);
		}
	}
	free(w);
	return best;
}

/*
 * When no run projected any kernel, the table would only show carried
 * source time: say so in one line, with the most frequent reason on the
 * first target, and fail. Runs are looked at until one projects (on
 * demand: the first, as a rule). Returns true when something was projected.
 */
static bool
anything_projected(const struct gpuproj_profile *p, const struct gpuproj_targets *ts,
		   const char *label, struct gpuproj_projections *pr)
{
	const struct gpuproj_run_projection *run;
	size_t r, best = 0, n = gpuproj_profile_count(p);
	char why[sizeof(((struct gpuproj_projection *)0)->why)] = "", *how;
	int st;

	for (r = 0; r < pr->n_runs; r++) {
		run = pr->runs ? &pr->runs[r] : gpuproj_projections_provide(pr, r, &st);
		if (!run) {
			cli_fail("out of memory");
			return false;
		}
		if (run->n_projected)
			return true;
		if (r == 0)
			best = common_reason(run, why, sizeof(why));
	}
	if (n == 0 || pr->n_runs == 0) {
		cli_fail("%s: no kernel to project (the profile has none)", label);
		return false;
	}
	/* What collects it: the export's own tool, for its GPU (gpuproj_import_collection()). */
	how = strstr(why, "needs ") || strstr(why, "(duration)") ? gpuproj_import_collection(p, ts)
								  : NULL;
	cli_fail("%s: no kernel could be projected onto any target (%zu kernel signature%s; "
		 "%zu of them: %s)%s", label, n, n == 1 ? "" : "s", best,
		 *why ? why : "no reason given",
		 how ? "; collect it with:"
		 : strstr(why, "needs ") ? "; `gpuproj ncu-metrics` prints the ncu command "
					   "that collects what is missing" : "");
	if (how) {
		char *line, *save = NULL;

		for (line = strtok_r(how, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "    %s\n", line);
		free(how);
	}
	return false;
}

static int check_args(int argc, char **argv, struct project_args *a);

/*
 * Options into `a`. Returns -1 to go on, else the exit status (help,
 * `--model list`, a usage error).
 */
static int
parse_args(int argc, char **argv, struct project_args *a)
{
	enum { O_BUILTIN = 256, O_TARGETS, O_SOURCE, O_TARGET, O_MODEL, O_FORMAT, O_TOP, O_ALL,
	       O_CUBINS, O_INTERVALS, O_DETAILS, O_NO_FALLBACK, O_EXPAND };
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
		{ "verbose", no_argument, NULL, 'v' },
		{ "cubins", required_argument, NULL, O_CUBINS },
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
		{ "details", no_argument, NULL, O_DETAILS },
		{ "no-fallback", no_argument, NULL, O_NO_FALLBACK },
		{ "expand", required_argument, NULL, O_EXPAND },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gpuproj_model_options *mopt = &a->mopt;
	int c, r, idx = 0;

	optind = 1;
	opterr = 0;
	a->target_names = calloc((size_t)argc + 1, sizeof(*a->target_names));
	a->cubins = calloc((size_t)argc + 1, sizeof(*a->cubins));
	if (!a->target_names || !a->cubins)
		return cli_fail("out of memory");
	while ((c = getopt_long(argc, argv, ":ho:vq", cli_options(opts), &idx)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case O_BUILTIN: a->builtin = true; break;
		case O_TARGETS: a->targets_path = optarg; break;
		case O_SOURCE: a->source = optarg; break;
		case O_TARGET: a->target_names[a->n_target_names++] = optarg; break;
		case O_MODEL: a->model_name = optarg; break;
		case 'o': a->output = optarg; break;
		case O_ALL: a->ropt.all_kernels = true; break;
		case 'v': a->ropt.verbose = true; break;
		case O_CUBINS: a->cubins[a->n_cubins++] = optarg; break;
		case O_DETAILS: a->ropt.details = true; break;
		case O_NO_FALLBACK: mopt->fallback = GPUPROJ_FALLBACK_OFF; break;
		case O_INTERVALS:
			if (cli_apply_intervals(optarg, mopt, &a->iv))
				return EXIT_FAIL;
			break;
		case O_EXPAND:
			if (!cli_parse_size("project", "--expand", optarg, &a->topt.expand))
				return EXIT_USAGE;
			break;
		case O_TOP:
			if (!cli_parse_size("project", "--top", optarg, &a->ropt.top_kernels))
				return EXIT_USAGE;
			break;
		case O_FORMAT:
			if (!cli_parse_format("project", optarg, format_names,
					      ARRAY_LENGTH(format_names), &a->fmt))
				return EXIT_USAGE;
			break;
		case 'q':
		case CLI_O_PROGRESS:
			if (cli_shared_option("project", c, optarg, &a->shared) < 0)
				return EXIT_USAGE;
			break;
		default: /* a model option, else ':' missing value, '?' unknown option */
			r = cli_model_option("project", opts[idx].name, c, optarg, mopt);
			if (r < 0)
				return EXIT_USAGE;
			if (r == 0)
				return cli_option_error("project", c, argv);
		}
	}
	return check_args(argc, argv, a);
}

/*
 * After the options: the combinations they allow, the one PROFILE and the
 * model. Returns -1 to go on, else the exit status (as parse_args()).
 */
static int
check_args(int argc, char **argv, struct project_args *a)
{
	struct gpuproj_model_options *mopt = &a->mopt;

	if (a->model_name && strcmp(a->model_name, "list") == 0) {
		cli_print_models();
		return EXIT_OK;
	}
	if (a->ropt.details && a->fmt != FMT_JSON)
		return cli_usage_error("project", "--details needs --format json");
	if (a->topt.expand && a->fmt != FMT_TRACE)
		return cli_usage_error("project", "--expand needs --format trace");
	if (a->fmt == FMT_TRACE && a->model_name && strcmp(a->model_name, "all") == 0)
		return cli_usage_error("project",
				       "--format trace draws one model, not --model all");
	if (a->builtin && optind < argc)
		return cli_usage_error("project", "give either PROFILE or --builtin, not both");
	if (!a->builtin && optind != argc - 1)
		return optind == argc ? cli_usage_error("project", "missing PROFILE (or --builtin)")
				      : cli_usage_error("project", "expected one PROFILE, got %d",
							argc - optind);
	if (a->model_name && strcmp(a->model_name, "all") == 0) {
		/* Side by side, each column is its model alone (sol has its own). */
		a->all_models = true;
		a->model_name = NULL;
	}
	a->model = a->model_name ? gpuproj_model_find(a->model_name) : gpuproj_model_default();
	/* A model named on the command line is that model alone, the default one too. */
	if (a->model_name)
		mopt->fallback = GPUPROJ_FALLBACK_OFF;
	if (!a->model)
		return cli_usage_error("project", "unknown model '%s' (`--model list` lists them)",
				       a->model_name);
	a->profile_path = a->builtin ? "default-profile.json (built-in)" : argv[optind];
	a->ropt.profile_label = a->profile_path;
	a->ropt.intervals = a->iv; /* --intervals FILE; else the built-in order */
	a->topt.profile_label = a->profile_path;
	return -1;
}

/* What the projection did besides its runs: a provisional source, SASS it could not use. */
static void
project_notes(const struct project_args *a, const struct gpuproj_targets *ts,
	      const struct gpuproj_profile *p, const struct gpuproj_projections *pr, int status)
{
	const struct gpuproj_target *src = pr->source;
	size_t i;

	if (src && src->provisional) {
		const struct gpuproj_device_info *d = gpuproj_profile_device(p);
		const struct gpuproj_target *near = NULL;
		char diff[96] = "";

		/* A variant of a listed GPU (a 152-SM B200) says how it differs. */
		if (d->name && gpuproj_targets_lookup(ts, d->name, NULL, &near, NULL) == 0 &&
		    !gpuproj_target_differs(near, d, diff, sizeof(diff)))
			diff[0] = '\0';
		if (diff[0])
			fprintf(stderr, "gpuproj: project: note: the profile's GPU '%s' is not "
				"targets.yaml's %s (it has %s): projecting from a provisional "
				"entry derived from its device attributes and the per-SM figures "
				"of %s (basis %s; `gpuproj targets derive %s` prints it)\n",
				cli_shown(d->name), near->name, diff, src->derived_from,
				src->provisional, cli_shown(a->profile_path));
		else
			fprintf(stderr, "gpuproj: project: note: the profile's GPU '%s' is not "
				"in targets.yaml: projecting from a provisional entry derived from "
				"its device attributes and the per-SM figures of %s (basis %s; "
				"`gpuproj targets derive %s` prints it)\n", cli_shown(d->name),
				src->derived_from, src->provisional, cli_shown(a->profile_path));
	}
	for (i = 0; i < gpuproj_sass_arch_count(pr->sass); i++) {
		const char *note;

		if (gpuproj_sass_arch_status(pr->sass, i, &note) != GPUPROJ_OK)
			cli_warn("SASS for %s: %s; FLOP ratio 1 there",
				 gpuproj_sass_arch_at(pr->sass, i), note);
	}
	if (status == GPUPROJ_OK && pr->n_rescaled)
		fprintf(stderr, "gpuproj: tensor FLOP of %zu kernel metric(s): FLOP per "
			"MMA instruction from their %s SASS instead of the assumed "
			"default\n", pr->n_rescaled, src->arch);
}

/* The runs, written in the format asked for. */
static int
project_write(const struct project_args *a, const struct gpuproj_profile *p,
	      struct gpuproj_projections *pr)
{
	struct text_out t = { .a = a, .profile = p, .proj = pr };
	struct gpuproj_error err = { 0 };
	const char *out = a->output ? a->output : "-";
	int r;

	if (a->fmt == FMT_TABLE || a->fmt == FMT_CSV)
		return cli_write_output(a->output, render_text, &t);
	if (a->fmt == FMT_TRACE)
		r = gpuproj_trace_json(out, p, pr->source, pr->n_runs, gpuproj_projections_provide,
				       pr, &a->topt, &err);
	else if (pr->runs)
		r = gpuproj_project_json_ex(out, p, pr->source, pr->runs, pr->n_runs, &a->ropt,
					    &err);
	else
		r = gpuproj_project_json_stream(out, p, pr->source, pr->n_runs,
						gpuproj_projections_provide, pr, &a->ropt, &err);
	return r ? cli_fail_error(&err) : EXIT_OK;
}

int
cmd_project(int argc, char **argv)
{
	struct project_args a = { .fmt = FMT_TABLE, .mopt = { .notes = true } };
	struct gpuproj_project_request req = { 0 };
	struct gpuproj_projections proj = { 0 };
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_profile *profile = NULL;
	struct gpuproj_error err = { 0 };
	int r, ret = parse_args(argc, argv, &a);

	if (ret >= 0)
		goto out;
	ret = EXIT_FAIL;
	if (cli_load_targets(a.targets_path, &targets, NULL))
		goto out;
	if (a.builtin ? gpuproj_profile_load_builtin(&profile, &err)
		      : gpuproj_profile_load(a.profile_path, &profile, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	req = (struct gpuproj_project_request){
		.targets = targets, .source = a.source, .target_names = a.target_names,
		.n_target_names = a.n_target_names, .model = a.model, .all_models = a.all_models,
		.options = a.mopt, .cubins = a.cubins, .n_cubins = a.n_cubins,
		.sass_progress = cli_stderr_is_tty() && !a.shared.quiet &&
				 a.shared.progress == CLI_PROGRESS_AUTO ? sass_progress : NULL,
		/* One model: the writers take the runs one at a time. */
		.on_demand = true,
	};
	r = gpuproj_project_targets(profile, &req, &proj, &err);
	project_notes(&a, targets, profile, &proj, r);
	if (r) {
		cli_fail_error(&err);
		goto out;
	}
	if (anything_projected(profile, targets, a.profile_path, &proj))
		ret = project_write(&a, profile, &proj);
out:
	gpuproj_projections_clear(&proj);
	free(a.target_names);
	free(a.cubins);
	gpuproj_profile_free(profile);
	gpuproj_targets_free(targets);
	gpuproj_intervals_free(a.iv);
	return ret;
}
