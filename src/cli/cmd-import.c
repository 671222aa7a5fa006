/* SPDX-License-Identifier: MIT */
/*
 * gpuproj import ncu|nvprof|nsys|gpuperfpredict|neusight|xla-matmul|kerneltuner|
 * seed002:
 * turn measurements made by other tools into gpuproj-profile/1 JSON
 * (include/gpuproj/import.h). A summary of what was found goes to stderr: the GPU (checked against
 * targets.yaml), warnings, and what the default model still lacks — with
 * the kernels a fallback model will project and the command that collects
 * everything.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>
#include <gpuproj/timeline.h>

#include "cli.h"
#include "import-help.h"
#include "util.h"

/*
 * Where the summary goes: stderr, or a stream that drops it with -q (its
 * warnings then go to stderr as "gpuproj: warning: …"). One command per
 * process, so one setting.
 */
static FILE *summary_out;
static bool quiet;

/* The summary's stream (stderr until -q). */
static FILE *
summary(void)
{
	return summary_out ? summary_out : stderr;
}

/* -q: the summary into /dev/null; warnings stay (summary_warning()). */
static void
set_quiet(void)
{
	quiet = true;
	if (!summary_out)
		summary_out = fopen("/dev/null", "w");
}

static struct cli_shared shared; /* -q, --progress */

/*
 * getopt_long's `c` when it is a shared option (-q, --progress): applied;
 * 1, 0 when `c` is none, -1 after the usage error.
 */
static int
shared_option(const char *cmd, int c)
{
	int r = cli_shared_option(cmd, c, optarg, &shared);

	if (r > 0 && shared.quiet)
		set_quiet();
	return r;
}

/* A warning of the summary: its line there, and on stderr alone with -q. */
static void
summary_warning(const char *what)
{
	if (quiet)
		cli_warn("%s", what);
	else
		fprintf(stderr, "  warning: %s\n", cli_shown(what));
}

/*
 * The GPU of an imported profile against targets.yaml: set its entry, or
 * say in one line which entries are close and how to name it; cross-check
 * the export's compute capability and SM count. Prints the "device:" line.
 */
static int
check_device(struct gpuproj_profile *p, const struct gpuproj_targets *ts)
{
	static const struct gpuproj_lookup_words words = {
		.what = "the export's GPU",
		.hint = "name it with --device-name NAME here, or --source NAME to `gpuproj project`",
	};
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const struct gpuproj_target *t = NULL;
	struct gpuproj_error err = { 0 };
	char cc[16] = "";

	if (d->cc_major > 0)
		snprintf(cc, sizeof(cc), "CC %d.%d", d->cc_major, d->cc_minor);
	if (!d->name) {
		char what[96] = "";
		size_t i, n = 0;

		/* What the export does say about its GPU. */
		if (*cc && d->sms)
			snprintf(what, sizeof(what), " (%s, %d SMs", cc, d->sms);
		else if (*cc || d->sms)
			snprintf(what, sizeof(what), " (%s%.0d%s", cc, d->sms,
				 d->sms ? " SMs" : "");
		if (*what && d->driver[GPUPROJ_DRV_MEMORY_BYTES] > 0)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), ", %.1f GiB",
				 d->driver[GPUPROJ_DRV_MEMORY_BYTES] / 1073741824.0);
		if (*what)
			strcat(what, ")");
		/* Identified by its attributes: recorded, so that project needs no --source. */
		if (ts && gpuproj_targets_identify(ts, d, &t, &err) == GPUPROJ_OK) {
			fprintf(summary(), "  device: not named in the file%s = targets.yaml %s "
				"(identified by its attributes)\n", what, t->name);
			if (gpuproj_profile_set_device(p, NULL, t->name, t->chip, d->cc_major,
						       d->cc_minor, d->sms, d->clock_hz))
				return GPUPROJ_E_NOMEM;
			return GPUPROJ_OK;
		}
		fprintf(summary(), "  device: not named in the file%s", what);
		if (ts && d->cc_major > 0 && d->sms > 0)
			fprintf(summary(), "; %s", cli_shown(err.message));
		/* Entries with the same compute capability: the likely candidates. */
		for (i = 0; ts && d->cc_major > 0 && i < gpuproj_targets_count(ts) && n < 6; i++) {
			const struct gpuproj_target *c = gpuproj_targets_get(ts, i);

			if (c->vendor != GPUPROJ_VENDOR_NVIDIA || c->cc_major != d->cc_major ||
			    c->cc_minor != d->cc_minor)
				continue;
			fprintf(summary(), "%s%s (%d SMs)",
				n++ ? ", " : "; targets.yaml entries of "
				"that CC: ", c->name, c->sms);
		}
		fprintf(summary(), "; pass --device-name NAME here or --source NAME to `gpuproj "
			"project`\n");
		return GPUPROJ_OK;
	}
	if (ts && gpuproj_targets_lookup(ts, d->name, &words, &t, &err) != GPUPROJ_OK) {
		fprintf(summary(), "  device: %s%s%s; warning: %s\n", cli_shown(d->name),
			*cc ? ", " : "", cc, cli_shown(err.message));
		if (quiet)
			cli_warn("device %s: %s", d->name, err.message);
		return GPUPROJ_OK;
	}
	fprintf(summary(), "  device: %s", cli_shown(d->name));
	if (*cc)
		fprintf(summary(), ", %s", cc);
	if (d->sms > 0)
		fprintf(summary(), ", %d SMs", d->sms);
	if (!t) {
		fputc('\n', summary());
		return GPUPROJ_OK;
	}
	{
		char diff[96];

		/* A variant targets.yaml does not list: never its sibling's entry, silently. */
		if (gpuproj_target_differs(t, d, diff, sizeof(diff))) {
			fprintf(summary(), "; warning: not targets.yaml's %s (%s): a variant it "
				"does not list (or a MIG partition); `gpuproj project` derives "
				"a provisional entry from the export's attributes where they "
				"suffice, --source NAME overrides\n", t->name, diff);
			if (quiet)
				cli_warn("device %s: not targets.yaml's %s (%s): a variant it "
					 "does not list; --source NAME overrides", d->name, t->name,
					 diff);
			return GPUPROJ_OK;
		}
	}
	fprintf(summary(), " = targets.yaml %s\n", t->name);
	if (!d->target &&
	    gpuproj_profile_set_device(p, d->name, t->name, t->chip, d->cc_major ? d->cc_major
										 : t->cc_major,
				       d->cc_major ? d->cc_minor : t->cc_minor, d->sms ? d->sms : t->sms,
				       d->clock_hz))
		return GPUPROJ_E_NOMEM;
	return GPUPROJ_OK;
}

/* Kernel names, shortened, for lists in the summary. */
static const char *
short_name(const struct gpuproj_kernel *k, char *buf, size_t size)
{
	/* Escaped for the terminal (util.h term_text()), cut before an escape. */
	return term_text_buf(k->demangled ? k->demangled : k->name, buf, size);
}

enum tool {
	TOOL_NCU, TOOL_NVPROF, TOOL_GPP, TOOL_NEUSIGHT, TOOL_XLA, TOOL_KERNELTUNER, TOOL_SEED002,
	TOOL_NSYS
};

/*
 * Does --device-name contradict the export's own device: its name
 * (device__attribute_display_name or the "Device" column), or its compute
 * capability and SM count (device__attribute_*)? Then one error naming
 * both, and true.
 */
static bool
device_contradicts(const char *file, enum tool tool, const struct gpuproj_profile *p,
		   const struct gpuproj_targets *ts, const char *device)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const struct gpuproj_target *given = gpuproj_targets_match(ts, device);
	const char *col = tool == TOOL_NCU ? "device__attribute_display_name or \"Device\""
					   : "\"Device\"";
	/* nvprof's importer names the device --device-name; its column is kept aside. */
	const char *own = tool == TOOL_NVPROF ? gpuproj_profile_attr(p, "import.device_column")
					      : d->name;
	char diff[96];

	if (own && !str_eq_nocase_trim(own, device) &&
	    !(given && given == gpuproj_targets_match(ts, own))) {
		cli_fail("%s: --device-name '%s' contradicts the export's own device '%s' (%s): "
			 "drop --device-name, or pass --force to use it all the same",
			 cli_shown(file), cli_shown(device), cli_shown(own), col);
		return true;
	}
	if (tool == TOOL_NCU && given && gpuproj_target_differs(given, d, diff, sizeof(diff))) {
		cli_fail("%s: --device-name '%s' contradicts the export's device attributes: the "
			 "device has %s (targets.yaml %s): name another GPU, or pass --force",
			 cli_shown(file), cli_shown(device), diff, given->name);
		return true;
	}
	return false;
}


/*
 * What the default model lacks and assumes, which kernels sol will project
 * (exports of ncu's default sections: coarser), and how to collect
 * everything (gpuproj_import_collection(): the export's tool and GPU).
 */
static void
print_missing(const struct gpuproj_profile *p, const char *const *names, size_t n,
	      size_t kernels, enum tool tool, const struct gpuproj_targets *ts)
{
	const struct gpuproj_model *def = gpuproj_model_default();
	const struct gpuproj_model *sol = gpuproj_model_find("sol");
	const struct gpuproj_model *env = gpuproj_model_find("envelope");
	size_t total = gpuproj_profile_count(p), i, n_sol = 0, n_env = 0, n_rescued = 0;
	size_t count[GPUPROJ_ASSUME_COUNT] = { 0 }, listed = 0;
	unsigned any = 0;
	char buf[64], *how;
	int a;

	for (i = 0; i < total; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		unsigned bits = gpuproj_model_missing_names(def, k, NULL, 0) == 0
					? gpuproj_model_assumptions(def, k)
					: 0;

		any |= bits;
		for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++)
			count[a] += (bits >> a) & 1u;
	}
	if (n == 0 && !any) {
		fprintf(summary(), "  every input of the default model (%s) is present\n",
			gpuproj_model_name(def));
		return;
	}
	if (n)
		fprintf(summary(), "  %zu of %zu kernel signature%s cannot be projected by the "
			"default model (%s): no time, or neither FLOP nor bytes; missing:",
			kernels, total, total == 1 ? "" : "s", gpuproj_model_name(def));
	for (i = 0; i < n; i++)
		fprintf(summary(), "%s %s", i ? "," : "", names[i]);
	if (n)
		fputc('\n', summary());
	if (any) {
		fprintf(summary(), "  the default model (%s) assumes, for inputs the export lacks:",
			gpuproj_model_name(def));
		for (a = 0, listed = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
			if (count[a])
				fprintf(summary(), "%s %s (%zu of %zu)", listed++ ? "," : "",
					gpuproj_assumption_info((enum gpuproj_assumption)a)->word,
					count[a], total);
		}
		fprintf(summary(), "; its intervals widen by what each costs (docs/models.md "
			"\"Missing inputs\")\n");
	}
	if (tool == TOOL_GPP || tool == TOOL_NEUSIGHT || tool == TOOL_XLA ||
	    tool == TOOL_KERNELTUNER || tool == TOOL_SEED002)
		return;
	/* Exports of ncu's default sections: sol first (gpuproj_project_run()). */
	for (i = 0; i < total; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		bool lacks = gpuproj_model_missing_names(def, k, NULL, 0) != 0;

		if ((lacks || gpuproj_model_prefers_fallback(def, k)) &&
		    gpuproj_model_missing_names(sol, k, NULL, 0) == 0) {
			n_sol++;
			n_rescued += lacks;
		} else if (lacks && gpuproj_model_missing_names(env, k, NULL, 0) == 0) {
			n_env++;
			n_rescued++;
		}
	}
	if (n_sol) {
		fprintf(summary(), "  %zu kernel signature%s will be projected by sol, coarser (an "
			"export of ncu's default sections: from its speed-of-light throughput "
			"percentages): ", n_sol, n_sol == 1 ? "" : "s");
		for (i = 0, listed = 0; i < total && listed < 3; i++) {
			const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

			if ((!gpuproj_model_prefers_fallback(def, k) &&
			     gpuproj_model_missing_names(def, k, NULL, 0) == 0) ||
			    gpuproj_model_missing_names(sol, k, NULL, 0) != 0)
				continue;
			fprintf(summary(), "%s%s", listed++ ? ", " : "",
				short_name(k, buf, sizeof(buf)));
		}
		fprintf(summary(), "%s\n", n_sol > listed ? ", …" : "");
	}
	if (n_env)
		fprintf(summary(), "  %zu of them, without counters, will be projected by the "
			"envelope of the target's FP32 and DRAM ceilings (assumed: binding "
			"unknown)\n", n_env);
	if (kernels > n_rescued)
		fprintf(summary(), "  %zu of them cannot be projected at all\n",
			kernels - n_rescued);
	how = gpuproj_import_collection(p, ts);
	if (how) {
		char *line, *save = NULL;

		fprintf(summary(), "  collect everything with:\n");
		for (line = strtok_r(how, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(summary(), "    %s\n", line);
		free(how);
		if (tool == TOOL_NSYS)
			fprintf(summary(), "    gpuproj import nsys REPORT.sqlite --ncu run.csv -o "
				"OUT.json\n");
	}
}

static void
print_summary(const char *file, const struct gpuproj_import_summary *sum)
{
	fprintf(summary(), "gpuproj: imported %s: %zu row%s, %zu launch%s, %zu kernel signature%s, "
		"%zu other metric%s kept\n", file, sum->rows, sum->rows == 1 ? "" : "s",
		sum->launches, sum->launches == 1 ? "" : "es", sum->kernels,
		sum->kernels == 1 ? "" : "s", sum->kept_metrics, sum->kept_metrics == 1 ? "" : "s");
}

/* Is `name` an executable file in a directory of $PATH? The path, malloc'd. */
static char *
find_on_path(const char *name)
{
	const char *path = getenv("PATH"), *p;

	for (p = path; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t l = colon ? (size_t)(colon - p) : strlen(p);
		char *cand = NULL;

		if (asprintf(&cand, "%.*s/%s", (int)l, l ? p : ".", name) >= 0) {
			if (access(cand, X_OK) == 0)
				return cand;
			free(cand);
		}
		p += l + (colon ? 1 : 0);
	}
	return NULL;
}

/*
 * Export a .ncu-rep report with `ncu --import REPORT --csv --page raw` into
 * a temporary file; *ret_csv is its path (the caller unlinks and frees it).
 * EXIT_OK or EXIT_FAIL (the reason printed in one line).
 */
static int
export_report(const char *report, char **ret_csv)
{
	char *ncu = find_on_path("ncu"), *csv = NULL, *errf = NULL;
	const char *tmp = getenv("TMPDIR");
	int fd = -1, efd = -1, status, r = EXIT_FAIL;
	pid_t pid;

	*ret_csv = NULL;
	if (!ncu)
		return cli_fail("%s: a binary Nsight Compute report, and ncu is not on PATH to "
				"export it: run `ncu --import %s --csv --page raw > report.csv` "
				"where Nsight Compute is installed, then `gpuproj import ncu "
				"report.csv -o OUT.json`", report, report);
	if (access(report, R_OK) != 0) {
		r = cli_fail("%s: %s", report, strerror(errno));
		goto out;
	}
	if (asprintf(&csv, "%s/gpuproj-ncu-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0 ||
	    asprintf(&errf, "%s/gpuproj-ncu-err-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		r = cli_fail("out of memory");
		goto out;
	}
	fd = mkstemp(csv);
	efd = fd >= 0 ? mkstemp(errf) : -1;
	if (fd < 0 || efd < 0) {
		r = cli_fail("cannot create a temporary file for ncu's export: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = cli_fail("cannot run %s: %s", ncu, strerror(errno));
		goto out;
	}
	if (pid == 0) {
		char *argv[] = { ncu, "--import", (char *)report, "--csv", "--page", "raw", NULL };

		dup2(fd, STDOUT_FILENO);
		dup2(efd, STDERR_FILENO);
		execv(ncu, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char line[320] = "";
		FILE *e = fdopen(efd, "r");

		if (e) {
			efd = -1;
			rewind(e);
			while (fgets(line, sizeof(line), e) && line[0] == '\n')
				;
			line[strcspn(line, "\n")] = '\0';
			fclose(e);
		}
		r = cli_fail("%s: `%s --import %s --csv --page raw` failed (%s %d)%s%s", report, ncu,
			     report, WIFEXITED(status) ? "exit status" : "signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			     *line ? ": " : "", line);
		goto out;
	}
	*ret_csv = csv;
	csv = NULL;
	r = EXIT_OK;
out:
	if (fd >= 0)
		close(fd);
	if (efd >= 0)
		close(efd);
	if (errf) {
		unlink(errf);
		free(errf);
	}
	if (csv) {
		unlink(csv);
		free(csv);
	}
	free(ncu);
	return r;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), n = strlen(suffix);

	return l >= n && strcmp(s + l - n, suffix) == 0;
}

/* After an import: GPU, warnings, missing inputs and fallbacks, then write. */
static int
finish_import(struct gpuproj_profile *p, struct gpuproj_import_summary *sum, const char *file,
	      const char *output, const struct gpuproj_targets *ts, enum tool tool)
{
	struct gpuproj_error err = { 0 };
	size_t i;

	if (gpuproj_profile_save(p, output, &err))
		return cli_fail_error(&err);
	print_summary(file, sum);
	if (check_device(p, ts))
		return cli_fail("out of memory");
	for (i = 0; i < sum->n_warnings; i++)
		summary_warning(sum->warnings[i]);
	print_missing(p, (const char *const *)sum->missing, sum->n_missing, sum->kernels_missing,
		      tool, ts);
	if (strcmp(output, "-") != 0)
		fprintf(summary(), "  wrote %s\n", cli_shown(output));
	return EXIT_OK;
}

/*
 * The profile's GPU: --device-name over the export's, and its targets.yaml
 * entry; a variant (gpuproj_target_differs()) keeps no entry unless
 * forced. Nonzero on no memory.
 */
static int
record_device(struct gpuproj_profile *p, const struct gpuproj_targets *ts, const char *device,
	      bool force)
{
	const struct gpuproj_device_info *d = gpuproj_profile_device(p);
	const char *name = device ? device : d->name;
	const struct gpuproj_target *t = name ? gpuproj_targets_match(ts, name) : NULL;

	if (t && !(device && force) && gpuproj_target_differs(t, d, NULL, 0))
		t = NULL;
	if (!t && !device)
		return 0;
	return gpuproj_profile_set_device(p, name, t ? t->name : NULL, t ? t->chip : NULL,
					  d->cc_major, d->cc_minor, d->sms, d->clock_hz) ||
	       (device && force && gpuproj_profile_set_attr(p, "device.forced", device));
}

static int
import_one(int argc, char **argv, enum tool tool)
{
	enum { O_DEVICE = 256, O_TARGETS, O_FORCE };
	static const struct option opts[] = {
		{ "device-name", required_argument, NULL, O_DEVICE },
		{ "force", no_argument, NULL, O_FORCE },
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = tool == TOOL_NCU ? "import ncu" : "import nvprof";
	const char *device = NULL, *output = NULL, *targets_path = NULL, *file;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = NULL;
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	char *csv = NULL;
	bool force = false;
	int c, ret = EXIT_FAIL, r;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", cli_options(opts), NULL)) != -1) {
		switch (c) {
		case 'h':
			(tool == TOOL_NCU ? import_help_ncu : import_help_nvprof)(stdout);
			return EXIT_OK;
		case O_DEVICE: device = optarg; break;
		case O_FORCE: force = true; break;
		case O_TARGETS: targets_path = optarg; break;
		case 'o': output = optarg; break;
		default: /* -q, --progress; else ':' missing value, '?' unknown option */
			r = shared_option(cmd, c);
			if (r <= 0)
				return r < 0 ? EXIT_USAGE : cli_option_error(cmd, c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error(cmd, "missing FILE.csv");
	if (tool == TOOL_NCU && optind != argc - 1)
		return cli_usage_error(cmd, "expected one FILE.csv, got %d", argc - optind);
	if (!output)
		return cli_usage_error(cmd, "missing -o OUT.json (\"-o -\" writes standard output)");
	if (device && !*device)
		return cli_usage_error(cmd, "--device-name needs a non-empty NAME");
	file = argv[optind];
	if (cli_load_targets(targets_path, &ts, NULL))
		return EXIT_FAIL;

	if (tool == TOOL_NCU) {
		const char *path = file;

		if (ends_with(file, ".ncu-rep")) {
			if (export_report(file, &csv))
				goto out;
			path = csv;
		}
		r = gpuproj_import_ncu(path, &p, &sum, &err);
		if (r && csv && strcmp(err.file, csv) == 0)
			/* Name the report, not the temporary export. */
			snprintf(err.file, sizeof(err.file), "%s (ncu --import … --csv --page raw)",
				 file);
	} else {
		r = gpuproj_import_nvprof((const char *const *)(argv + optind),
					  (size_t)(argc - optind), ts, device, &p, &sum, &err);
	}
	if (r) {
		ret = cli_fail_error(&err);
		goto out;
	}
	/*
	 * The GPU: --device-name over the export's (never against it without
	 * --force), and its targets.yaml entry, recorded before the profile is
	 * written.
	 */
	if (device && !force && device_contradicts(file, tool, p, ts, device))
		goto out;
	if (record_device(p, ts, device, force)) {
		ret = cli_fail("out of memory");
		goto out;
	}
	{
		/* Every file of an nvprof run in the summary's first line. */
		char *files = NULL;
		int i;

		for (i = optind; i < argc; i++) {
			char *t = NULL;

			if (asprintf(&t, "%s%s%s", files ? files : "", files ? ", " : "", argv[i]) < 0) {
				free(files);
				ret = cli_fail("out of memory");
				goto out;
			}
			free(files);
			files = t;
		}
		ret = finish_import(p, &sum, files, output, ts, tool);
		free(files);
	}
out:
	if (csv) {
		unlink(csv);
		free(csv);
	}
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	gpuproj_targets_free(ts);
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
	enum tool tool;
	void (*help)(FILE *f);
	int (*import)(const char *const *paths, size_t n_paths,
		      const struct gpuproj_targets *targets, struct gpuproj_profile ***ret,
		      size_t *ret_n, struct gpuproj_error *err);
};

/*
 * Write each profile to OUTPUT/<GPU name>.json (paths[i], malloc'd), with
 * progress (the writing takes most of the time: NeuSight's 5 profiles of
 * 8,200 kernels each).
 * Returns the exit status.
 */
static int
multi_save(const struct multi_importer *im, const char *output,
	   struct gpuproj_profile *const *profiles, size_t n, char **paths)
{
	struct gpuproj_error err = { 0 };
	struct cli_progress prog;
	size_t i;

	cli_progress_init(&prog, &shared, im->cmd, "profiles written");
	for (i = 0; i < n; i++) {
		char *base = file_name_for(profiles[i], i);

		if (!base || asprintf(&paths[i], "%s/%s.json", output, base) < 0) {
			paths[i] = NULL;
			free(base);
			cli_progress_break(&prog);
			return cli_fail("out of memory");
		}
		free(base);
		if (gpuproj_profile_save(profiles[i], paths[i], &err)) {
			cli_progress_break(&prog);
			return cli_fail_error(&err);
		}
		cli_progress_update(&prog, i + 1, n);
	}
	cli_progress_break(&prog);
	return EXIT_OK;
}

/* The summary of one written profile: kernels, launches, overhead, missing inputs. */
static void
multi_summary(const struct multi_importer *im, const struct gpuproj_profile *p,
	      const char *path, const struct gpuproj_targets *ts)
{
	const char *missing[32], *overhead, *basis;
	size_t n_missing, n_kernels_missing = 0, k, launches = 0;

	for (k = 0; k < gpuproj_profile_count(p); k++)
		launches += gpuproj_profile_at(p, k)->launches;
	n_missing = gpuproj_model_missing_in_profile(gpuproj_model_default(), p, missing, 32,
						     &n_kernels_missing);
	fprintf(summary(), "  %s: %zu kernel signature%s, %zu launch%s\n", cli_shown(path),
		gpuproj_profile_count(p), gpuproj_profile_count(p) == 1 ? "" : "s", launches,
		launches == 1 ? "" : "es");
	overhead = gpuproj_profile_attr(p, "call_overhead_ns");
	basis = gpuproj_profile_attr(p, "call_overhead_basis");
	if (overhead)
		fprintf(summary(), "  per-call overhead subtracted: %s ns (%s)\n",
			cli_shown(overhead), cli_shown(basis ? basis : "basis not recorded"));
	print_missing(p, missing, n_missing < 32 ? n_missing : 32, n_kernels_missing, im->tool,
		      ts);
}

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
	char **paths = NULL;
	size_t n = 0, i;
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", cli_options(opts), NULL)) != -1) {
		switch (c) {
		case 'h': im->help(stdout); return EXIT_OK;
		case O_TARGETS: targets_path = optarg; break;
		case 'o': output = optarg; break;
		default: /* -q, --progress; else ':' missing value, '?' unknown option */
			ret = shared_option(im->cmd, c);
			if (ret <= 0)
				return ret < 0 ? EXIT_USAGE : cli_option_error(im->cmd, c, argv);
			ret = EXIT_FAIL;
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
	paths = calloc(n ? n : 1, sizeof(*paths));
	if (!paths) {
		ret = cli_fail("out of memory");
		goto out;
	}
	if ((ret = multi_save(im, output, profiles, n, paths)))
		goto out;
	fprintf(summary(), "gpuproj: imported %d %s%s of %s into %zu profile%s\n", argc - optind,
		im->noun, argc - optind == 1 ? "" : "s", im->what, n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		multi_summary(im, profiles[i], paths[i], ts);
	ret = EXIT_OK;
out:
	for (i = 0; i < n; i++) {
		gpuproj_profile_free(profiles[i]);
		if (paths)
			free(paths[i]);
	}
	free(paths);
	free(profiles);
	gpuproj_targets_free(ts);
	return ret;
}

/*
 * Export a .nsys-rep with `nsys export --type sqlite --output TMP
 * --force-overwrite true REPORT` into a temporary file; *ret_path is its
 * path (the caller unlinks and frees it). EXIT_OK or EXIT_FAIL (the reason
 * printed in one line).
 */
static int
export_nsys_report(const char *report, char **ret_path)
{
	char *nsys = find_on_path("nsys"), *dir = NULL, *out = NULL, *errf = NULL;
	const char *tmp = getenv("TMPDIR");
	int efd = -1, status, r = EXIT_FAIL;
	pid_t pid;

	*ret_path = NULL;
	if (!nsys)
		return cli_fail("%s: a binary Nsight Systems report, and nsys is not on PATH to "
				"export it: run `nsys export --type sqlite %s` where Nsight "
				"Systems is installed, then `gpuproj import nsys REPORT.sqlite -o "
				"OUT.json`",
				report, report);
	if (access(report, R_OK) != 0) {
		r = cli_fail("%s: %s", report, strerror(errno));
		goto out;
	}
	if (asprintf(&dir, "%s/gpuproj-nsys-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0 ||
	    !mkdtemp(dir) || asprintf(&out, "%s/export.sqlite", dir) < 0 ||
	    asprintf(&errf, "%s/stderr", dir) < 0) {
		r = cli_fail("cannot create a temporary directory for nsys's export: %s",
			     strerror(errno));
		goto out;
	}
	efd = open(errf, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0600);
	if (efd < 0) {
		r = cli_fail("%s: %s", errf, strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = cli_fail("cannot run %s: %s", nsys, strerror(errno));
		goto out;
	}
	if (pid == 0) {
		char *argv[] = { nsys, "export", "--type", "sqlite", "--output", out,
				 "--force-overwrite", "true", (char *)report, NULL };

		dup2(efd, STDOUT_FILENO);
		dup2(efd, STDERR_FILENO);
		execv(nsys, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || access(out, R_OK) != 0) {
		char line[320] = "";
		FILE *e = fdopen(efd, "r");

		if (e) {
			efd = -1;
			rewind(e);
			while (fgets(line, sizeof(line), e) && line[0] == '\n')
				;
			line[strcspn(line, "\n")] = '\0';
			fclose(e);
		}
		r = cli_fail("%s: `%s export --type sqlite` failed (%s %d)%s%s", report, nsys,
			     WIFEXITED(status) ? "exit status" : "signal",
			     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			     *line ? ": " : "", line);
		goto out;
	}
	*ret_path = out;
	out = NULL;
	r = EXIT_OK;
out:
	if (efd >= 0)
		close(efd);
	if (errf) {
		unlink(errf);
		free(errf);
	}
	if (out) {
		unlink(out);
		free(out);
	}
	if (dir && r != EXIT_OK)
		rmdir(dir);
	free(dir);
	free(nsys);
	return r;
}

/* Remove an export made by export_nsys_report() and its directory. */
static void
remove_nsys_export(char *path)
{
	char *slash;

	if (!path)
		return;
	unlink(path);
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		rmdir(path);
	}
	free(path);
}

/* DIR/<application>-<pid>-gpu<N>.json for profile p of an nsys import. */
static char *
nsys_output_name(const char *dir, const struct gpuproj_profile *p)
{
	const struct gpuproj_process_info *pr = gpuproj_profile_process(p);
	const char *app = pr->application ? strrchr(pr->application, '/') : NULL;
	int dev = gpuproj_profile_count(p) ? gpuproj_profile_at(p, 0)->device : 0;
	char *base, *q, *path = NULL;
	size_t l = strlen(dir);

	app = app ? app + 1 : pr->application;
	if (asprintf(&base, "%s-%" PRId64 "-gpu%d", app && *app ? app : "process", pr->pid,
		     dev) < 0)
		return NULL;
	for (q = base; *q; q++) {
		if (!(*q >= 'a' && *q <= 'z') && !(*q >= 'A' && *q <= 'Z') &&
		    !(*q >= '0' && *q <= '9') && *q != '-' && *q != '_' && *q != '.')
			*q = '_';
	}
	if (base[0] == '.')
		base[0] = '_';
	if (asprintf(&path, "%.*s/%s.json", (int)(l && dir[l - 1] == '/' ? l - 1 : l), dir,
		     base) < 0)
		path = NULL;
	free(base);
	return path;
}

/* One line about a profile's timeline: threads, patterns, epochs, what it explains. */
static void
print_nsys_timeline(const struct gpuproj_profile *p)
{
	const struct gpuproj_timeline *tl = gpuproj_profile_timeline(p);
	double e, u, f;
	uint64_t epochs = 0, unexplained = 0;
	size_t i;
	char b[32], c[32];

	if (!tl) {
		fprintf(summary(), "    timeline: none (no CUDA calls in the report)\n");
		return;
	}
	for (i = 0; i < tl->n_patterns; i++)
		epochs += tl->patterns[i].wall_ns.n;
	for (i = 0; i < GPUPROJ_TL_WHY_COUNT; i++)
		unexplained += tl->unexplained[i].epochs;
	e = gpuproj_timeline_explained_ns(tl);
	u = gpuproj_timeline_unexplained_ns(tl);
	/* Threads that ran at once: their epochs scaled to the span, as the projection does. */
	f = e + u > 0 && tl->span_ns > 0 ? fmin(1.0, tl->span_ns / (e + u)) : 1.0;
	fprintf(summary(), "    timeline: %u thread%s, %zu pattern%s of %" PRIu64 " epoch%s "
		"explaining %.1f %% of the %s traced; %" PRIu64 " epoch%s (%s) unexplained\n",
		tl->threads, tl->threads == 1 ? "" : "s", tl->n_patterns,
		tl->n_patterns == 1 ? "" : "s", epochs, epochs == 1 ? "" : "s",
		tl->wall_ns > 0 ? 100.0 * f * e / tl->wall_ns : 0.0,
		format_ns(tl->wall_ns, b, sizeof(b)),
		unexplained, unexplained == 1 ? "" : "s", format_ns(u, c, sizeof(c)));
}

/* The command line of `import nsys`, parsed. */
struct nsys_args {
	const char *targets_path, *output, *file;
	const char **ncu; /* [n_ncu], the --ncu exports */
	size_t n_ncu;
};

/* Options into `a` (a->ncu freed by the caller). Returns -1 to go on, else the exit status. */
static int
nsys_parse_args(int argc, char **argv, struct nsys_args *a)
{
	enum { O_TARGETS = 256, O_NCU };
	static const struct option opts[] = {
		{ "ncu", required_argument, NULL, O_NCU },
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "import nsys";
	int c, r;

	a->ncu = calloc((size_t)argc + 1, sizeof(*a->ncu));
	if (!a->ncu)
		return cli_fail("out of memory");
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", cli_options(opts), NULL)) != -1) {
		switch (c) {
		case 'h':
			import_help_nsys(stdout);
			return EXIT_OK;
		case O_NCU: a->ncu[a->n_ncu++] = optarg; break;
		case O_TARGETS: a->targets_path = optarg; break;
		case 'o': a->output = optarg; break;
		default: /* -q, --progress; else ':' missing value, '?' unknown option */
			r = shared_option(cmd, c);
			if (r <= 0)
				return r < 0 ? EXIT_USAGE : cli_option_error(cmd, c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error(cmd, "missing FILE.sqlite");
	if (optind != argc - 1)
		return cli_usage_error(cmd, "expected one FILE.sqlite, got %d", argc - optind);
	if (!a->output || !*a->output)
		return cli_usage_error(cmd, "missing -o OUT.json or -o DIR/");
	a->file = argv[optind];
	return -1;
}

/*
 * The counters of the --ncu exports into counters[n_ncu] (an .ncu-rep is
 * exported to CSV first): read before the report, so a bad export fails
 * first. Returns the exit status.
 */
static int
nsys_counters(const struct nsys_args *a, struct gpuproj_profile **counters)
{
	struct gpuproj_error err = { 0 };
	size_t i;

	for (i = 0; i < a->n_ncu; i++) {
		char *csv = NULL;
		const char *path = a->ncu[i];
		int r;

		if (ends_with(a->ncu[i], ".ncu-rep")) {
			if (export_report(a->ncu[i], &csv))
				return EXIT_FAIL;
			path = csv;
		}
		r = gpuproj_import_ncu(path, &counters[i], NULL, &err);
		if (r && csv && strcmp(err.file, csv) == 0)
			snprintf(err.file, sizeof(err.file), "%s (ncu --import … --csv --page raw)",
				 a->ncu[i]);
		if (csv) {
			unlink(csv);
			free(csv);
		}
		if (r)
			return cli_fail_error(&err);
	}
	return EXIT_OK;
}

/*
 * Where each of the n profiles goes (*ret_paths[n], freed by the caller):
 * a directory for several (or when named as one), else the file; each
 * checked before anything is written. Returns the exit status.
 */
static int
nsys_paths(const struct nsys_args *a, struct gpuproj_profile *const *profiles, size_t n,
	   char ***ret_paths)
{
	const char *output = a->output;
	struct gpuproj_error err = { 0 };
	struct stat st;
	bool to_dir;
	size_t i;

	to_dir = (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) ||
		 output[strlen(output) - 1] == '/';
	if (n > 1 && !to_dir)
		return cli_fail("%s holds %zu GPUs and processes with kernels (one profile each): "
				"give -o DIR/ to write them all", a->file, n);
	if (to_dir && mkdir(output, 0777) != 0 && errno != EEXIST)
		return cli_fail("%s: cannot create the directory: %s", output, strerror(errno));
	*ret_paths = calloc(n, sizeof(**ret_paths));
	if (!*ret_paths)
		return cli_fail("out of memory");
	for (i = 0; i < n; i++) {
		char *path = to_dir ? nsys_output_name(output, profiles[i]) : strdup(output);

		(*ret_paths)[i] = path;
		if (!path)
			return cli_fail("out of memory");
		if (file_check_output(path, &err))
			return cli_fail_error(&err);
	}
	return EXIT_OK;
}

/*
 * The GPUs against targets.yaml and the --ncu files, recorded in each
 * profile before anything is written. Returns the exit status.
 */
static int
nsys_record(const struct nsys_args *a, struct gpuproj_profile *const *profiles, size_t n,
	    const struct gpuproj_targets *ts)
{
	size_t i, f;

	for (i = 0; i < n; i++) {
		const struct gpuproj_device_info *d = gpuproj_profile_device(profiles[i]);
		const struct gpuproj_target *t =
			d->name ? gpuproj_targets_match(ts, d->name) : NULL;
		char *files = NULL;

		for (f = 0; f < a->n_ncu; f++) {
			char *joined = NULL;

			if (asprintf(&joined, "%s%s%s", files ? files : "", files ? ", " : "",
				     a->ncu[f]) < 0)
				joined = NULL;
			free(files);
			if (!(files = joined))
				break;
		}

		if ((t && gpuproj_profile_set_device(profiles[i], d->name, t->name, t->chip,
						     d->cc_major, d->cc_minor, d->sms,
						     d->clock_hz)) ||
		    (a->n_ncu && (!files || gpuproj_profile_set_attr(profiles[i], "import.counters",
								      files)))) {
			free(files);
			return cli_fail("out of memory");
		}
		free(files);
	}
	return EXIT_OK;
}

/* What was imported: the report, its warnings, the join, then each profile. */
static int
nsys_summary(const struct nsys_args *a, struct gpuproj_profile *const *profiles,
	     char *const *paths, size_t n, const struct gpuproj_import_summary *sum,
	     const struct gpuproj_nsys_join *join, const struct gpuproj_targets *ts)
{
	const char *ver = gpuproj_profile_attr(profiles[0], "nsys.version");
	const char *schema = gpuproj_profile_attr(profiles[0], "nsys.schema");
	size_t i;

	fprintf(summary(), "gpuproj: imported %s (Nsight Systems %s, export schema %s): %zu "
		"row%s, %zu launch%s, %zu kernel signature%s in %zu profile%s (one per GPU "
		"and process)\n", cli_shown(a->file), cli_shown(ver ? ver : "?"),
		cli_shown(schema ? schema : "?"), sum->rows, sum->rows == 1 ? "" : "s",
		sum->launches, sum->launches == 1 ? "" : "es", sum->kernels,
		sum->kernels == 1 ? "" : "s", n, n == 1 ? "" : "s");
	for (i = 0; i < sum->n_warnings; i++)
		fprintf(summary(), "  warning: %s\n", cli_shown(sum->warnings[i]));
	if (a->n_ncu)
		fprintf(summary(), "  counters (--ncu): %zu of %zu kernel signature%s joined "
			"(%zu by "
			"launch order); %zu Nsight Compute kernel%s joined none\n", join->joined,
			join->kernels, join->kernels == 1 ? "" : "s", join->by_launch_order,
			join->unjoined_ncu, join->unjoined_ncu == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		struct gpuproj_profile *p = profiles[i];
		const struct gpuproj_process_info *pr = gpuproj_profile_process(p);
		const char *missing[32];
		size_t nm, kernels_missing = 0, k, launches = 0;

		for (k = 0; k < gpuproj_profile_count(p); k++)
			launches += gpuproj_profile_at(p, k)->launches;
		fprintf(summary(), "  %s: process %s (pid %" PRId64 "), %zu kernel signature%s, "
			"%zu "
			"launch%s\n", cli_shown(paths[i]),
			cli_shown(pr->application ? pr->application : "?"), pr->pid,
			gpuproj_profile_count(p), gpuproj_profile_count(p) == 1 ? "" : "s",
			launches, launches == 1 ? "" : "es");
		if (check_device(p, ts))
			return cli_fail("out of memory");
		print_nsys_timeline(p);
		nm = gpuproj_model_missing_in_profile(gpuproj_model_default(), p, missing, 32,
						      &kernels_missing);
		print_missing(p, missing, nm < 32 ? nm : 32, kernels_missing, TOOL_NSYS, ts);
	}
	return EXIT_OK;
}

static int
import_nsys(int argc, char **argv)
{
	struct nsys_args a = { 0 };
	struct gpuproj_profile **counters = NULL, **profiles = NULL;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_nsys_join join = { 0 };
	struct gpuproj_nsys_options nopt = { 0 };
	struct cli_progress prog;
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	char *exported = NULL, **paths = NULL;
	const char *file;
	size_t n = 0, i;
	int ret = nsys_parse_args(argc, argv, &a);

	if (ret >= 0) {
		free(a.ncu);
		return ret;
	}
	file = a.file;
	if (cli_load_targets(a.targets_path, &ts, NULL)) {
		free(a.ncu);
		return EXIT_FAIL;
	}
	ret = EXIT_FAIL;
	counters = calloc(a.n_ncu ? a.n_ncu : 1, sizeof(*counters));
	if (!counters) {
		ret = cli_fail("out of memory");
		goto out;
	}
	if ((ret = nsys_counters(&a, counters)))
		goto out;
	ret = EXIT_FAIL;
	nopt.counters = (const struct gpuproj_profile *const *)counters;
	nopt.n_counters = a.n_ncu;
	if (ends_with(file, ".nsys-rep") || ends_with(file, ".qdrep")) {
		if (export_nsys_report(file, &exported))
			goto out;
	}
	if (gpuproj_import_nsys(exported ? exported : file, &nopt, &profiles, &n, &sum, &join,
				&err)) {
		if (exported && strcmp(err.file, exported) == 0)
			snprintf(err.file, sizeof(err.file), "%s (nsys export --type sqlite)",
				 file);
		ret = cli_fail_error(&err);
		goto out;
	}
	if ((ret = nsys_paths(&a, profiles, n, &paths)) ||
	    (ret = nsys_record(&a, profiles, n, ts)))
		goto out;
	cli_progress_init(&prog, &shared, "import nsys", "profiles written");
	for (i = 0; i < n; i++) {
		if (gpuproj_profile_save(profiles[i], paths[i], &err)) {
			cli_progress_break(&prog);
			ret = cli_fail_error(&err);
			goto out;
		}
		cli_progress_update(&prog, i + 1, n);
	}
	cli_progress_break(&prog);
	ret = nsys_summary(&a, profiles, paths, n, &sum, &join, ts);
out:
	for (i = 0; i < n; i++) {
		gpuproj_profile_free(profiles[i]);
		if (paths)
			free(paths[i]);
	}
	free(paths);
	free(profiles);
	for (i = 0; counters && i < a.n_ncu; i++)
		gpuproj_profile_free(counters[i]);
	free(counters);
	remove_nsys_export(exported);
	gpuproj_import_summary_clear(&sum);
	gpuproj_targets_free(ts);
	free(a.ncu);
	return ret;
}

static const struct multi_importer gpp = {
	"import gpuperfpredict", "gpuperfpredict", "FILE.csv", "file", TOOL_GPP, import_help_gpp,
	gpuproj_import_gpuperfpredict,
};
static const struct multi_importer neu = {
	"import neusight", "NeuSight", "DIR or FILE.csv", "path", TOOL_NEUSIGHT, import_help_neu,
	gpuproj_import_neusight,
};
static const struct multi_importer xla = {
	"import xla-matmul", "XLA matmul", "FILE.csv", "file", TOOL_XLA, import_help_xla,
	gpuproj_import_xla_matmul,
};

static const struct multi_importer kt = {
	"import kerneltuner", "Kernel Tuner", "FILE.json", "file", TOOL_KERNELTUNER, import_help_kt,
	gpuproj_import_kerneltuner,
};
static const struct multi_importer s2 = {
	"import seed002", "seed 002", "DIR or FILE.csv", "path", TOOL_SEED002, import_help_s2,
	gpuproj_import_seed002,
};

/*
 * The sources, in the order help and messages list them: one table
 * (`gpuproj --help` lists them through cli_import_source()).
 */
static const struct {
	const char *name;
	enum tool tool;
	const struct multi_importer *multi; /* NULL: a one-profile importer */
} sources[] = {
	{ "ncu", TOOL_NCU, NULL },
	{ "nvprof", TOOL_NVPROF, NULL },
	{ "nsys", TOOL_NSYS, NULL },
	{ "gpuperfpredict", TOOL_GPP, &gpp },
	{ "neusight", TOOL_NEUSIGHT, &neu },
	{ "xla-matmul", TOOL_XLA, &xla },
	{ "kerneltuner", TOOL_KERNELTUNER, &kt },
	{ "seed002", TOOL_SEED002, &s2 },
};

const char *
cli_import_source(size_t i)
{
	return i < ARRAY_LENGTH(sources) ? sources[i].name : NULL;
}

int
cmd_import(int argc, char **argv)
{
	char list[256] = "";
	size_t i, len;

	for (i = 0; i < ARRAY_LENGTH(sources); i++) {
		len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s",
			 i == 0 ? "" : i + 1 == ARRAY_LENGTH(sources) ? " or " : ", ",
			 sources[i].name);
	}
	if (argc < 2)
		return cli_usage_error("import", "missing what to import: %s", list);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		import_help(stdout);
		return EXIT_OK;
	}
	for (i = 0; i < ARRAY_LENGTH(sources); i++) {
		if (strcmp(argv[1], sources[i].name) != 0)
			continue;
		if (sources[i].multi)
			return import_multi(sources[i].multi, argc - 1, argv + 1);
		if (sources[i].tool == TOOL_NSYS)
			return import_nsys(argc - 1, argv + 1);
		return import_one(argc - 1, argv + 1, sources[i].tool);
	}
	if (argv[1][0] == '-')
		return cli_usage_error("import", "unknown option '%s'", argv[1]);
	return cli_usage_error("import", "unknown source '%s': %s", argv[1], list);
}
