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
		"  --l2-capacity on|off scale DRAM bytes down on a target whose L2 holds more of\n"
		"                       the kernel's footprint than the source's (default: %s)\n"
		"  --waves sm|resident|off  wave quantisation of the occupancy models (default:\n"
		"                       %s): a wave of one block per SM, of the blocks resident\n"
		"                       at once, or none\n"
		"  --no-fallback        project every kernel with the model alone; without\n"
		"                       --model, kernels the default model lacks inputs for are\n"
		"                       projected by hroof (launch geometry unknown) or sol\n"
		"                       (coarser: from Nsight Compute's throughput percentages),\n"
		"                       labelled; a model named with --model is always alone\n"
		"  --intervals FILE|builtin|levels  projection intervals: a calibrated table\n"
		"                       (gpuproj-intervals/1), the built-in one (default: each\n"
		"                       model's validation residuals; docs/validation.md), or\n"
		"                       each model's own [min, max] over its levels\n"
		"  --occupancy little|linear  hroof-occ's occupancy term (default: %s): Little's\n"
		"                       law on the resident warps and the latencies of\n"
		"                       targets.yaml, or the linear occupancy ratio of\n"
		"                       Srivastava et al.\n"
		"  --clock sustained|burst  FP rate of GPUs whose sustained clock is below their\n"
		"                       boost clock (default: %s): sustained under full\n"
		"                       load (an application's steady state), or burst: a kernel\n"
		"                       timed in a short burst from idle runs its first\n"
		"                       boost_hold_us at the boost rate (targets.yaml)\n",
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
		"  --rates sustained|datasheet  the ceilings of every model but naive (default:\n"
		"                       %s): the rates measured under sustained load\n"
		"                       (STREAM triad DRAM, FMA at the held clock), or the\n"
		"                       datasheet's (docs/models.md \"Rates\")\n"
		"  --details            json: add every number behind each projection\n"
		"  --format FMT         table (default), json or csv\n"
		"  -o, --output FILE    write to FILE instead of standard output (JSON is\n"
		"                       written atomically)\n"
		"  --top N              kernels detailed per target in the table (default 5)\n"
		"  --all-kernels        detail every kernel in the table\n"
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
		"of the projection is shown too.\n\n"
		"Exit status: 0 success, 1 failure (bad input, unknown GPU, no kernel projected\n"
		"onto any target), 2 bad usage.\n",
		gpuproj_compute_name(gpuproj_compute_default()),
		gpuproj_rates_name(gpuproj_rates_default()));
}

enum format { FMT_TABLE, FMT_JSON, FMT_CSV };
static const char *const format_names[] = { "table", "json", "csv" };

/* What the table and CSV writers need (cli_write_output's render callback). */
/*
 * Runs computed one at a time, as a writer asks for them (100,000
 * kernels projected onto 44 GPUs held 2.3 GB of projections at once, the
 * CSV 3.4 GB): the previous run is released when the next is asked for.
 * Run i is target i with the one model.
 */
struct run_provider {
	const struct gpuproj_profile *p;
	const struct gpuproj_model *model;
	const struct gpuproj_target *src;
	const struct gpuproj_target *const *tgts;
	const struct gpuproj_model_options *mopt;
	struct gpuproj_run_projection run;
	bool have;
};

static const struct gpuproj_run_projection *
provide_run(void *userdata, size_t i, int *ret_status)
{
	struct run_provider *rp = userdata;

	if (rp->have)
		gpuproj_run_projection_clear(&rp->run);
	rp->have = false;
	*ret_status = gpuproj_project_run(rp->p, rp->model, rp->src, rp->tgts[i], rp->mopt,
					  &rp->run);
	if (*ret_status)
		return NULL;
	rp->have = true;
	return &rp->run;
}

static void
provider_clear(struct run_provider *rp)
{
	if (rp->have)
		gpuproj_run_projection_clear(&rp->run);
	rp->have = false;
}

struct text_out {
	bool csv, all_models;
	const struct gpuproj_profile *profile;
	const struct gpuproj_target *src;
	const struct gpuproj_run_projection *runs;
	size_t n_runs, n_tgts, n_models;
	const struct gpuproj_project_write_options *ropt;
	const struct gpuproj_sass *sass;
	const char *cubin;
	struct run_provider *provider; /* one model: runs come from here, not `runs` */
};

static int
render_text(FILE *f, void *userdata)
{
	const struct text_out *t = userdata;

	if (t->csv)
		return t->provider ? gpuproj_project_csv_stream(f, t->profile, t->src, t->n_runs,
								provide_run, t->provider)
				   : gpuproj_project_csv(f, t->profile, t->src, t->runs, t->n_runs);
	if (t->sass)
		fprintf(f, "FLOP ratio per kernel and target from the SASS of %zu "
			"kernel/architecture pairs (%s; docs/sass.md)\n", gpuproj_sass_count(t->sass),
			t->cubin);
	else
		fprintf(f, "FLOP ratio 1 on every target: no SASS analysis "
			"(--cubins compares special functions, docs/sass.md)\n");
	if (t->provider)
		return gpuproj_project_table_stream(f, t->profile, t->src, t->n_runs, provide_run,
						    t->provider, t->ropt);
	return t->all_models ? gpuproj_project_table_models(f, t->profile, t->src, t->runs,
							    t->n_tgts, t->n_models, t->ropt)
			     : gpuproj_project_table(f, t->profile, t->src, t->runs, t->n_runs,
						     t->ropt);
}

static void
sass_progress(void *userdata, const char *phase, size_t done, size_t total, const char *what)
{
	(void)userdata;
	fprintf(stderr, "\rgpuproj: SASS %s %zu/%zu %s...\033[K%s", phase, done, total,
		cli_shown(what), done == total ? "\r\033[K" : "");
	fflush(stderr);
}

/*
 * SASS analysis of the application's device code for the source and the
 * NVIDIA targets ([VanLanker2024] §4.2). Architectures that cannot be analysed
 * keep ratio 1, with a warning; no usable input at all is an error.
 */
static int
project_sass(const char *const *paths, size_t n_paths, const struct gpuproj_target *src,
	     const struct gpuproj_target *const *tgts, size_t n_tgts, struct gpuproj_sass **ret)
{
	struct gpuproj_sass_options opt = { 0 };
	struct gpuproj_error err = { 0 };
	const char **archs = calloc(n_tgts + 2, sizeof(*archs));
	size_t i, j, n = 0;
	int r = EXIT_OK;

	if (!archs)
		return cli_fail("out of memory");
	for (i = 0; i <= n_tgts; i++) {
		const struct gpuproj_target *t = i == 0 ? src : tgts[i - 1];

		if (!t || t->vendor != GPUPROJ_VENDOR_NVIDIA || !t->arch)
			continue;
		for (j = 0; j < n && strcmp(archs[j], t->arch) != 0; j++)
			;
		if (j == n)
			archs[n++] = t->arch;
	}
	opt.archs = archs;
	opt.n_archs = n;
	if (cli_stderr_is_tty())
		opt.progress = sass_progress;
	if (n && gpuproj_sass_analyze(paths, n_paths, &opt, ret, &err)) {
		cli_fail_error(&err);
		r = EXIT_FAIL;
	}
	for (i = 0; r == EXIT_OK && i < gpuproj_sass_arch_count(*ret); i++) {
		const char *note;

		if (gpuproj_sass_arch_status(*ret, i, &note) != GPUPROJ_OK)
			cli_warn("SASS for %s: %s; FLOP ratio 1 there", gpuproj_sass_arch_at(*ret, i),
				 note);
	}
	free(archs);
	return r;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * When no run projected any kernel, the table would only show carried
 * source time: say so in one line, with the most frequent reason, and fail.
 * Returns true when something was projected.
 */
static bool
nothing_projected(const struct gpuproj_profile *p, const struct gpuproj_targets *ts,
		  const char *label, const struct gpuproj_run_projection *runs, size_t n_runs)
{
	const char *why = NULL, **w;
	char *how;
	size_t r, i, best = 0, run = 0, n = gpuproj_profile_count(p);

	for (r = 0; r < n_runs; r++) {
		if (runs[r].n_projected)
			return true;
	}
	if (n == 0 || n_runs == 0) {
		cli_fail("%s: no kernel to project (the profile has none)", label);
		return false;
	}
	/* The most frequent reason on the first target (sorted, counted in runs). */
	w = calloc(n, sizeof(*w));
	if (w) {
		for (i = 0; i < n; i++)
			w[i] = runs[0].kernels[i].why;
		qsort(w, n, sizeof(*w), cmp_str);
		for (i = 0; i < n; i++) {
			run = i > 0 && strcmp(w[i], w[i - 1]) == 0 ? run + 1 : 1;
			if (run > best) {
				best = run;
				why = w[i];
			}
		}
	}
	/* What collects it: the export's own tool, for its GPU (gpuproj_import_collection()). */
	how = why && (strstr(why, "needs ") || strstr(why, "(duration)"))
		      ? gpuproj_import_collection(p, ts)
		      : NULL;
	cli_fail("%s: no kernel could be projected onto any target (%zu kernel signature%s; "
		 "%zu of them: %s)%s", label, n, n == 1 ? "" : "s", best,
		 why && *why ? why : "no reason given",
		 how ? "; collect it with:"
		 : why && strstr(why, "needs ") ? "; `gpuproj ncu-metrics` prints the ncu command "
						  "that collects what is missing" : "");
	if (how) {
		char *line, *save = NULL;

		for (line = strtok_r(how, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "    %s\n", line);
		free(how);
	}
	free(w);
	return false;
}

int
cmd_project(int argc, char **argv)
{
	enum { O_BUILTIN = 256, O_TARGETS, O_SOURCE, O_TARGET, O_MODEL, O_FORMAT, O_TOP, O_ALL,
	       O_CUBINS, O_L2, O_WAVES, O_OCCTERM, O_CLOCK, O_COMPUTE, O_RATES, O_INTERVALS, O_DETAILS, O_NO_FALLBACK };
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
		{ "cubins", required_argument, NULL, O_CUBINS },
		{ "l2-capacity", required_argument, NULL, O_L2 },
		{ "waves", required_argument, NULL, O_WAVES },
		{ "occupancy", required_argument, NULL, O_OCCTERM },
		{ "clock", required_argument, NULL, O_CLOCK },
		{ "compute", required_argument, NULL, O_COMPUTE },
		{ "rates", required_argument, NULL, O_RATES },
		{ "intervals", required_argument, NULL, O_INTERVALS },
		{ "details", no_argument, NULL, O_DETAILS },
		{ "no-fallback", no_argument, NULL, O_NO_FALLBACK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *targets_path = NULL, *source = NULL, *model_name = NULL, *output = NULL;
	const char **target_names = NULL, **cubins = NULL;
	size_t n_target_names = 0, i, n_runs = 0, n_cubins = 0;
	bool builtin = false;
	int fmt = FMT_TABLE;
	struct gpuproj_project_write_options ropt = { 0 };
	struct gpuproj_targets *targets = NULL, *derived = NULL;
	struct gpuproj_profile *profile = NULL;
	const struct gpuproj_model *model;
	const struct gpuproj_target *src = NULL;
	struct gpuproj_run_projection *runs = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target **tgts = NULL;
	size_t n_tgts = 0;
	struct gpuproj_sass *sass = NULL;
	struct gpuproj_model_options mopt = { .notes = true };
	struct gpuproj_intervals *iv = NULL;
	size_t n_models = 1, m;
	bool all_models = false;
	struct run_provider prov = { 0 };
	const char *profile_path;
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	target_names = calloc((size_t)argc + 1, sizeof(*target_names));
	cubins = calloc((size_t)argc + 1, sizeof(*cubins));
	if (!target_names || !cubins) {
		ret = cli_fail("out of memory");
		goto out;
	}
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			ret = EXIT_OK;
			goto out;
		case O_BUILTIN: builtin = true; break;
		case O_TARGETS: targets_path = optarg; break;
		case O_SOURCE: source = optarg; break;
		case O_TARGET: target_names[n_target_names++] = optarg; break;
		case O_MODEL: model_name = optarg; break;
		case 'o': output = optarg; break;
		case O_ALL: ropt.all_kernels = true; break;
		case O_CUBINS: cubins[n_cubins++] = optarg; break;
		case O_DETAILS: ropt.details = true; break;
		case O_NO_FALLBACK: mopt.fallback = GPUPROJ_FALLBACK_OFF; break;
		case O_L2:
			if (!cli_parse_l2_capacity("project", optarg, &mopt.l2_capacity)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_WAVES:
			if (!cli_parse_waves("project", optarg, &mopt.waves)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_OCCTERM:
			if (!cli_parse_occupancy_term("project", optarg, &mopt.occupancy_term)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_CLOCK:
			if (!cli_parse_clock("project", optarg, &mopt.clock)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_COMPUTE:
			if (!cli_parse_compute("project", optarg, &mopt.compute)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_RATES:
			if (!cli_parse_rates("project", optarg, &mopt.rates)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_INTERVALS:
			if (cli_apply_intervals(optarg, &mopt, &iv)) {
				ret = EXIT_FAIL;
				goto out;
			}
			break;
		case O_TOP:
			if (!cli_parse_size("project", "--top", optarg, &ropt.top_kernels)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_FORMAT:
			if (!cli_parse_format("project", optarg, format_names,
					      ARRAY_LENGTH(format_names), &fmt)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		default: /* ':' missing value, '?' unknown option */
			ret = cli_option_error("project", c, argv);
			goto out;
		}
	}
	if (model_name && strcmp(model_name, "list") == 0) {
		cli_print_models();
		ret = EXIT_OK;
		goto out;
	}
	if (ropt.details && fmt != FMT_JSON) {
		ret = cli_usage_error("project", "--details needs --format json");
		goto out;
	}
	if (builtin && optind < argc) {
		ret = cli_usage_error("project", "give either PROFILE or --builtin, not both");
		goto out;
	}
	if (!builtin && optind != argc - 1) {
		ret = optind == argc ? cli_usage_error("project", "missing PROFILE (or --builtin)")
				     : cli_usage_error("project", "expected one PROFILE, got %d",
						       argc - optind);
		goto out;
	}
	if (model_name && strcmp(model_name, "all") == 0) {
		all_models = true;
		n_models = gpuproj_model_count();
		model_name = NULL;
		/* Side by side, each column is its model alone (sol has its own). */
		mopt.fallback = GPUPROJ_FALLBACK_OFF;
	}
	model = model_name ? gpuproj_model_find(model_name) : gpuproj_model_default();
	/* A model named on the command line is that model alone, the default one too. */
	if (model_name)
		mopt.fallback = GPUPROJ_FALLBACK_OFF;
	if (!model) {
		ret = cli_usage_error("project", "unknown model '%s' (`--model list` lists them)",
				      model_name);
		goto out;
	}
	if (cli_load_targets(targets_path, &targets, NULL))
		goto out;

	profile_path = builtin ? "default-profile.json (built-in)" : argv[optind];
	if (builtin ? gpuproj_profile_load_builtin(&profile, &err)
		    : gpuproj_profile_load(argv[optind], &profile, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	ropt.profile_label = profile_path;
	/* A GPU targets.yaml does not list: a provisional entry from its device attributes. */
	if (gpuproj_resolve_source_or_derive(profile, targets, source, &src, &derived, &err)) {
		cli_fail_error(&err);
		goto out;
	}
	if (src->provisional) {
		const struct gpuproj_device_info *d = gpuproj_profile_device(profile);
		const struct gpuproj_target *near = NULL;
		char diff[96] = "";

		/* A variant of a listed GPU (a 152-SM B200) says how it differs. */
		if (d->name && gpuproj_targets_lookup(targets, d->name, NULL, &near, NULL) == 0 &&
		    !gpuproj_target_differs(near, d, diff, sizeof(diff)))
			diff[0] = '\0';
		if (diff[0])
			fprintf(stderr, "gpuproj: project: note: the profile's GPU '%s' is not "
				"targets.yaml's %s (it has %s): projecting from a provisional "
				"entry derived from its device attributes and the per-SM figures "
				"of %s (basis %s; `gpuproj targets derive %s` prints it)\n",
				cli_shown(d->name), near->name, diff, src->derived_from,
				src->provisional, cli_shown(profile_path));
		else
			fprintf(stderr, "gpuproj: project: note: the profile's GPU '%s' is not "
				"in targets.yaml: projecting from a provisional entry derived from "
				"its device attributes and the per-SM figures of %s (basis %s; "
				"`gpuproj targets derive %s` prints it)\n", cli_shown(d->name),
				src->derived_from, src->provisional, cli_shown(profile_path));
	}

	/* The targets to project onto, in targets.yaml order or as given. */
	n_tgts = n_target_names ? n_target_names : gpuproj_targets_count(targets);
	runs = calloc(n_tgts * n_models, sizeof(*runs));
	tgts = calloc(n_tgts + 1, sizeof(*tgts));
	if (!runs || !tgts) {
		cli_fail("out of memory");
		goto out;
	}
	if (n_target_names) {
		for (i = 0; i < n_target_names; i++) {
			const struct gpuproj_target *t = cli_target(targets, NULL, target_names[i]);

			if (!t)
				goto out;
			tgts[i] = t;
		}
	} else {
		for (i = 0; i < n_tgts; i++)
			tgts[i] = gpuproj_targets_get(targets, i);
	}
	if (n_cubins && project_sass(cubins, n_cubins, src, tgts, n_tgts, &sass))
		goto out;
	if (sass && src && src->vendor == GPUPROJ_VENDOR_NVIDIA && src->arch) {
		size_t n_rescaled = 0;

		if (gpuproj_sass_tensor_rescale(profile, sass, src->arch, &n_rescaled)) {
			cli_fail("out of memory");
			goto out;
		}
		if (n_rescaled)
			fprintf(stderr, "gpuproj: tensor FLOP of %zu kernel metric(s): FLOP per "
				"MMA instruction from their %s SASS instead of the assumed "
				"default\n", n_rescaled, src->arch);
	}
	mopt.flop_ratio = sass ? gpuproj_sass_flop_ratio_cb : NULL;
	mopt.flop_ratio_userdata = sass;
	prov = (struct run_provider){ .p = profile, .model = model, .src = src, .tgts = tgts,
				      .mopt = &mopt };
	if (!all_models) {
		/*
		 * One model: the writers take the runs one at a time (provide_run()).
		 * Nothing is written when no target gets a projection: look until
		 * one does (the first, as a rule).
		 */
		for (i = 0; i < n_tgts; i++) {
			int st;

			if (!provide_run(&prov, i, &st)) {
				cli_fail("out of memory");
				goto out;
			}
			if (prov.run.n_projected)
				break;
			if (i == 0 && n_tgts > 1) {
				/* Keep the first for the message if none projects. */
				runs[0] = prov.run;
				prov.have = false;
				n_runs = 1;
			}
		}
		if (i == n_tgts) {
			nothing_projected(profile, targets, profile_path,
					  n_runs ? runs : &prov.run, 1);
			goto out;
		}
		provider_clear(&prov);
	} else {
		for (i = 0; i < n_tgts; i++) {
			for (m = 0; m < n_models; m++) {
				if (gpuproj_project_run(profile, gpuproj_model_at(m), src, tgts[i],
							&mopt, &runs[n_runs++])) {
					cli_fail("out of memory");
					goto out;
				}
			}
		}
		if (!nothing_projected(profile, targets, profile_path, runs, n_runs))
			goto out;
	}
	if (fmt == FMT_JSON) {
		if (all_models ? gpuproj_project_json_ex(output ? output : "-", profile, src, runs,
							 n_runs, &ropt, &err)
			       : gpuproj_project_json_stream(output ? output : "-", profile, src,
							     n_tgts, provide_run, &prov, &ropt,
							     &err)) {
			cli_fail_error(&err);
			goto out;
		}
	} else {
		struct text_out t = {
			.csv = fmt == FMT_CSV, .all_models = all_models, .profile = profile,
			.src = src, .runs = runs, .n_runs = all_models ? n_runs : n_tgts,
			.n_tgts = n_tgts, .n_models = n_models, .ropt = &ropt, .sass = sass,
			.cubin = n_cubins ? cubins[0] : NULL,
			.provider = all_models ? NULL : &prov,
		};

		if (cli_write_output(output, render_text, &t))
			goto out;
	}
	ret = EXIT_OK;
out:
	provider_clear(&prov);
	for (i = 0; runs && i < n_runs; i++)
		gpuproj_run_projection_clear(&runs[i]);
	free(runs);
	free(tgts);
	gpuproj_sass_free(sass);
	free(target_names);
	free(cubins);
	gpuproj_profile_free(profile);
	gpuproj_targets_free(derived);
	gpuproj_targets_free(targets);
	gpuproj_intervals_free(iv);
	return ret;
}
