/* SPDX-License-Identifier: MIT */
/*
 * gpuproj import ncu|gpuperfpredict|neusight: turn measurements made by other tools
 * into gpuproj-profile/1 JSON (include/gpuproj/import.h). A summary of what
 * was found, and of what the default model still lacks, goes to stderr.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "cli.h"


static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import ncu [--device-name NAME] FILE.csv -o OUT.json\n"
		"       gpuproj import gpuperfpredict [--targets FILE] FILE.csv... -o DIR\n"
		"       gpuproj import neusight [--targets FILE] DIR|FILE.csv... -o DIR\n\n"
		"Convert measurements made by other tools into gpuproj profiles\n"
		"(gpuproj-profile/1 JSON) for `gpuproj project`.\n\n"
		"ncu             an Nsight Compute CSV export: `ncu --csv` (one row per metric)\n"
		"                or `ncu --csv --page raw` (one row per launch)\n"
		"gpuperfpredict  CSV files of the gpuperfpredict data set: one profile per GPU\n"
		"neusight        the NeuSight training set (FP32 linear and add latencies): one\n"
		"                profile per GPU, metrics derived analytically from the shapes\n\n"
		"`gpuproj import ncu --help`, `gpuproj import gpuperfpredict --help` and\n"
		"`gpuproj import neusight --help` tell more.\n"
		"Exit status: 0 success, 1 failure (bad input, cannot write), 2 bad usage.\n");
}

static void
help_ncu(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import ncu [--device-name NAME] FILE.csv -o OUT.json\n\n"
		"Read an Nsight Compute CSV export and write a gpuproj profile.\n"
		"FILE.csv is what `ncu --csv … > FILE.csv` or `ncu -i REPORT.ncu-rep --csv\n"
		"[--page raw]` prints (\"-\" reads standard input); ==PROF== lines and output\n"
		"of the application before the CSV header are skipped. Every row (launch) of\n"
		"one kernel with the same grid, block and dynamic shared memory folds into one\n"
		"record. Known NVIDIA metrics become gpuproj's logical metrics (README \"ncu\n"
		"import\"); every other metric is kept under extra_metrics.\n\n"
		"For the default model (hroof-occ, like hroof) collect at least:\n"
		"  ncu --csv --metrics gpu__time_duration.sum,\\\n"
		"    smsp__sass_thread_inst_executed_op_{h,f,d}{fma,add,mul}_pred_on.sum,\\\n"
		"    smsp__average_thread_inst_executed_per_inst_executed.ratio,\\\n"
		"    l1tex__t_bytes.sum,lts__t_bytes.sum,dram__bytes.sum,\\\n"
		"    l1tex__data_pipe_lsu_wavefronts_mem_shared.sum  ./app\n"
		"(expand the braces by hand: ncu takes a plain comma-separated list).\n\n"
		"Options:\n"
		"  --device-name NAME  the GPU the file was measured on, when the file does not\n"
		"                      name it (no device__attribute_display_name metric)\n"
		"  -o, --output FILE   the profile to write (\"-\" = standard output); written\n"
		"                      atomically, and not at all when the import fails\n"
		"  -h, --help          show this help\n\n"
		"A summary goes to standard error: rows, launches, kernel signatures, metrics\n"
		"kept unmapped, warnings, and the logical metrics the default model needs that\n"
		"no launch had.\n"
		"Exit status: 0 success, 1 failure (bad input, cannot write), 2 bad usage.\n");
}

static void
help_gpp(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import gpuperfpredict [--targets FILE] FILE.csv... -o DIR\n\n"
		"Read CSV files of the gpuperfpredict data set (Amaris et al.: nvprof metrics\n"
		"of Rodinia kernels on 9 GPUs; CC BY 4.0) and write one profile per GPU to\n"
		"DIR/<GPU name>.json. Each profile also carries the times measured on the\n"
		"other GPUs, so `gpuproj validate` can check projections against them.\n\n"
		"Options:\n"
		"  --targets FILE      GPU descriptions; every GPU of the data set must match an\n"
		"                      entry (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output DIR    directory for the profiles (created when missing)\n"
		"  -h, --help          show this help\n\n"
		"Exit status: 0 success, 1 failure (bad input, unknown GPU, cannot write),\n"
		"2 bad usage.\n");
}

static void
help_neu(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import neusight [--targets FILE] DIR|FILE.csv... -o DIR\n\n"
		"Read the NeuSight training set (Lee et al., ASPLOS 2025: PyTorch FP32\n"
		"`linear` and `add` latencies on several GPUs; MIT) and write one profile per\n"
		"GPU to DIR/<GPU name>.json. A directory argument reads its *.csv files and\n"
		"those of its subdirectories (neusight-train/linear, neusight-train/add). The\n"
		"data set has no hardware counters: FLOP, bytes per level, shared-memory\n"
		"wavefronts, instruction counts and the launch resources are derived from the\n"
		"operator shape and the cuBLAS kernel's tile (src/import-neusight.c says how),\n"
		"and the profiles are labelled analytic (attribute metrics = analytic). A\n"
		"kernel signature is the operator and its shape (cuBLAS picks another kernel\n"
		"on each GPU); each profile carries the times the other GPUs measured, so\n"
		"`gpuproj validate` can check projections against them.\n\n"
		"Options:\n"
		"  --targets FILE      GPU descriptions; every `Device` of the data set must\n"
		"                      match an entry (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output DIR    directory for the profiles (created when missing)\n"
		"  -h, --help          show this help\n\n"
		"Exit status: 0 success, 1 failure (bad input, unknown GPU, cannot write),\n"
		"2 bad usage.\n");
}

static void
print_device(const struct gpuproj_profile *p, const char *hint)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);

	if (!d->name) {
		fprintf(stderr, "  device: not named in the file%s\n", hint);
		return;
	}
	fprintf(stderr, "  device: %s", d->name);
	if (d->cc_major > 0)
		fprintf(stderr, ", CC %d.%d", d->cc_major, d->cc_minor);
	if (d->sms > 0)
		fprintf(stderr, ", %d SMs", d->sms);
	fputc('\n', stderr);
}

static void
print_missing(const char *const *names, size_t n, size_t kernels, size_t total)
{
	const char *model = gpuproj_model_name(gpuproj_model_default());
	size_t i;

	if (n == 0) {
		fprintf(stderr, "  every input of the default model (%s) is present\n", model);
		return;
	}
	fprintf(stderr, "  %zu of %zu kernel signature%s cannot be projected by the default model "
		"(%s); missing:", kernels, total, total == 1 ? "" : "s", model);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s %s", i ? "," : "", names[i]);
	fputc('\n', stderr);
}

static int
import_ncu(int argc, char **argv)
{
	enum { O_DEVICE = 256 };
	static const struct option opts[] = {
		{ "device-name", required_argument, NULL, O_DEVICE },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *device = NULL, *output = NULL, *file;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	size_t i;
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h': help_ncu(stdout); return EXIT_OK;
		case O_DEVICE: device = optarg; break;
		case 'o': output = optarg; break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("import ncu", c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error("import ncu", "missing FILE.csv");
	if (optind != argc - 1)
		return cli_usage_error("import ncu", "expected one FILE.csv, got %d",
				       argc - optind);
	if (!output)
		return cli_usage_error("import ncu", "missing -o OUT.json (\"-o -\" writes "
				       "standard output)");
	if (device && !*device)
		return cli_usage_error("import ncu", "--device-name needs a non-empty NAME");
	file = argv[optind];

	if (gpuproj_import_ncu(file, &p, &sum, &err))
		return cli_fail_error(&err);
	if (device) {
		const struct gpuproj_device_info *d = gpuproj_profile_device(p);

		if (gpuproj_profile_set_device(p, device, d->target, d->chip, d->cc_major,
					       d->cc_minor, d->sms, d->clock_hz)) {
			ret = cli_fail("out of memory");
			goto out;
		}
	}
	if (gpuproj_profile_save(p, output, &err)) {
		ret = cli_fail_error(&err);
		goto out;
	}
	fprintf(stderr, "gpuproj: imported %s: %zu row%s, %zu launch%s, %zu kernel signature%s, "
		"%zu other metric%s kept\n", file, sum.rows, sum.rows == 1 ? "" : "s",
		sum.launches, sum.launches == 1 ? "" : "es", sum.kernels,
		sum.kernels == 1 ? "" : "s", sum.kept_metrics, sum.kept_metrics == 1 ? "" : "s");
	print_device(p, "; pass --device-name NAME so `gpuproj project` finds the source GPU");
	for (i = 0; i < sum.n_warnings; i++)
		fprintf(stderr, "  warning: %s\n", sum.warnings[i]);
	print_missing((const char *const *)sum.missing, sum.n_missing, sum.kernels_missing,
		      sum.kernels);
	if (strcmp(output, "-") != 0)
		fprintf(stderr, "  wrote %s\n", output);
	ret = EXIT_OK;
out:
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	return ret;
}

/* A file name from a GPU name: letters, digits, '-', '_' and '.'; others become '_'. */
static char *
file_name_for(const struct gpuproj_profile *p, size_t index)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const char *name = d->target ? d->target : d->name;
	char *s, *q;

	if (!name || !*name) {
		if (asprintf(&s, "gpu%zu", index) < 0)
			return NULL;
		return s;
	}
	s = strdup(name);
	for (q = s; q && *q; q++) {
		if (!(*q >= 'a' && *q <= 'z') && !(*q >= 'A' && *q <= 'Z') &&
		    !(*q >= '0' && *q <= '9') && *q != '-' && *q != '_' && *q != '.')
			*q = '_';
	}
	if (s && s[0] == '.')
		s[0] = '_';
	return s;
}

/* One data set imported into one profile per GPU, written to a directory. */
struct multi_importer {
	const char *cmd;        /* "import gpuperfpredict" */
	const char *what;       /* "gpuperfpredict" */
	const char *operand;    /* "FILE.csv" */
	const char *noun;       /* what an operand is, for the summary: "file" */
	void (*help)(FILE *f);
	int (*import)(const char *const *paths, size_t n_paths,
		      const struct gpuproj_targets *targets, struct gpuproj_profile ***ret,
		      size_t *ret_n, struct gpuproj_error *err);
};

static int
import_multi(const struct multi_importer *im, int argc, char **argv)
{
	enum { O_TARGETS = 256 };
	static const struct option opts[] = {
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *targets_path = NULL, *output = NULL, *origin = NULL;
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_profile **profiles = NULL;
	struct gpuproj_error err = { 0 };
	struct stat st;
	size_t n = 0, i;
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h': im->help(stdout); return EXIT_OK;
		case O_TARGETS: targets_path = optarg; break;
		case 'o': output = optarg; break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error(im->cmd, c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error(im->cmd, "missing %s", im->operand);
	if (!output || !*output)
		return cli_usage_error(im->cmd, "missing -o DIR");
	if (cli_load_targets(targets_path, &ts, &origin))
		return EXIT_FAIL;
	if (im->import((const char *const *)(argv + optind), (size_t)(argc - optind), ts, &profiles,
		       &n, &err)) {
		ret = cli_fail_error(&err);
		goto out;
	}
	if (mkdir(output, 0777) != 0 && errno != EEXIST) {
		ret = cli_fail("%s: cannot create the directory: %s", output, strerror(errno));
		goto out;
	}
	if (stat(output, &st) != 0 || !S_ISDIR(st.st_mode)) {
		ret = cli_fail("%s: not a directory", output);
		goto out;
	}
	fprintf(stderr, "gpuproj: imported %d %s%s of %s into %zu profile%s\n", argc - optind,
		im->noun, argc - optind == 1 ? "" : "s", im->what, n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		const struct gpuproj_profile *p = profiles[i];
		char *base = file_name_for(p, i), *path = NULL;
		const char *missing[32];
		size_t n_missing, n_kernels_missing = 0, k, launches = 0;

		if (!base || asprintf(&path, "%s/%s.json", output, base) < 0) {
			free(base);
			ret = cli_fail("out of memory");
			goto out;
		}
		free(base);
		if (gpuproj_profile_save(p, path, &err)) {
			free(path);
			ret = cli_fail_error(&err);
			goto out;
		}
		for (k = 0; k < gpuproj_profile_count(p); k++)
			launches += gpuproj_profile_at(p, k)->launches;
		n_missing = gpuproj_model_missing_in_profile(gpuproj_model_default(), p, missing,
							     32, &n_kernels_missing);
		fprintf(stderr, "  %s: %zu kernel signature%s, %zu launch%s\n", path,
			gpuproj_profile_count(p), gpuproj_profile_count(p) == 1 ? "" : "s",
			launches, launches == 1 ? "" : "es");
		print_missing(missing, n_missing < 32 ? n_missing : 32, n_kernels_missing,
			      gpuproj_profile_count(p));
		free(path);
	}
	ret = EXIT_OK;
out:
	for (i = 0; i < n; i++)
		gpuproj_profile_free(profiles[i]);
	free(profiles);
	gpuproj_targets_free(ts);
	return ret;
}

int
cmd_import(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error("import",
				       "missing what to import: ncu, gpuperfpredict or neusight");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		help(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "ncu") == 0)
		return import_ncu(argc - 1, argv + 1);
	if (strcmp(argv[1], "gpuperfpredict") == 0) {
		static const struct multi_importer gpp = {
			"import gpuperfpredict", "gpuperfpredict", "FILE.csv", "file", help_gpp,
			gpuproj_import_gpuperfpredict,
		};

		return import_multi(&gpp, argc - 1, argv + 1);
	}
	if (strcmp(argv[1], "neusight") == 0) {
		static const struct multi_importer neu = {
			"import neusight", "NeuSight", "DIR or FILE.csv", "path", help_neu,
			gpuproj_import_neusight,
		};

		return import_multi(&neu, argc - 1, argv + 1);
	}
	if (argv[1][0] == '-')
		return cli_usage_error("import", "unknown option '%s'", argv[1]);
	return cli_usage_error("import", "unknown source '%s': ncu, gpuperfpredict or neusight",
			       argv[1]);
}
