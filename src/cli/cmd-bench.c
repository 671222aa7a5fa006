/* SPDX-License-Identifier: MIT */
/*
 * gpuproj bench [--quick] [-o FILE.yaml] [--raw FILE.json] [--device N]
 *               [--name NAME] [--targets FILE] [--kernels PATH]
 * gpuproj bench --from-raw RAW.json [-o FILE.yaml] ...
 *
 * Measures the GPU this runs on with the CUDA micro-benchmarks of
 * gpuproj-bench-kernels (src/bench/kernels/), prints the ceilings with their
 * spread next to the matching targets.yaml entry, and writes a complete
 * targets file for the GPU plus the raw measurements as JSON (both
 * atomically). --from-raw redoes the statistics, table and files from a
 * recorded raw file without a GPU. docs/bench.md has the method.
 *
 * Without a GPU: one line, "no CUDA GPU found: <the driver's reason>", and
 * exit status 2 (EXIT_ERROR).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpuproj/target.h>

#include "bench/bench.h"
#include "cli.h"
#include "util.h"

#define KERNELS "gpuproj-bench-kernels"
#define KERNELS_NOGPU 3

extern char **environ;

struct opts {
	const char *output, *raw_out, *from_raw, *name, *targets, *kernels;
	int device;
	bool quick;
	struct cli_shared shared; /* -q, --progress (--no-progress: never) */
};

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj bench [options]\n"
		"       gpuproj bench --from-raw RAW.json [options]\n\n"
		"Measure this GPU with CUDA micro-benchmarks (FP64/FP32/FP16 FMA, ADD, MUL;\n"
		"integer add and multiply-add; instruction rate; DRAM (STREAM read, copy,\n"
		"triad), L2, L1 and shared-memory bandwidth; L1, L2 and DRAM latency by a\n"
		"pointer chase), print the ceilings with their spread beside the GPU's\n"
		"targets.yaml entry, and write a complete, sourced targets file for it, on the\n"
		"one basis of the built-in targets.yaml, plus the raw measurements as JSON.\n"
		"Default run under 3 minutes, --quick under 30 s.\n\n"
		"Options:\n"
		"  -o, --output FILE   targets file to write (default: <name>.yaml; '-' = stdout)\n"
		"      --raw FILE      raw measurements (default: the output with .json)\n"
		"      --quick         fewer, shorter runs (under 30 s)\n"
		"      --device N      CUDA device index (default 0)\n"
		"      --name NAME     entry name (default: from the device name)\n"
		"      --targets FILE  compare with this targets file (default: $GPUPROJ_TARGETS,\n"
		"                      else built-in)\n"
		"      --from-raw FILE no GPU: recompute the table and files from recorded raw "
		"JSON\n"
		"      --kernels PATH  the benchmark program (default: $GPUPROJ_BENCH_KERNELS, "
		"next\n"
		"                      to gpuproj, or " GPUPROJ_LIBDIR ")\n"
		"      --no-progress   as --progress never (kept)\n"
		"  -h, --help          show this help\n\n");
	cli_print_shared_help(f);
	fputs("-q is --quiet, not --quick (which has no short form): no progress and no\n"
	      "line naming the device and the plan; the table, warnings and errors stay.\n\n", f);
	cli_print_exit_status(f, "bench");
}

/* ---- finding and running gpuproj-bench-kernels ---- */

/*
 * The driver decides whether there is a GPU: load libcuda (or
 * $GPUPROJ_LIBCUDA), cuInit, count devices. On failure, `why` says why.
 */
static bool
probe_driver(int device, char *why, size_t size)
{
	const char *path = getenv("GPUPROJ_LIBCUDA");
	void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	int (*init)(unsigned), (*count)(int *), (*name)(int, const char **),
		(*str)(int, const char **);
	const char *en = NULL, *es = NULL;
	int r, n = 0;
	bool ok = false;

	if (!lib) {
		snprintf(why, size, "the CUDA driver is not installed (%s)", dlerror());
		return false;
	}
	*(void **)&init = dlsym(lib, "cuInit");
	*(void **)&count = dlsym(lib, "cuDeviceGetCount");
	*(void **)&name = dlsym(lib, "cuGetErrorName");
	*(void **)&str = dlsym(lib, "cuGetErrorString");
	if (!init || !count) {
		snprintf(why, size, "%s lacks cuInit or cuDeviceGetCount",
			 path && *path ? path : "libcuda.so.1");
		goto out;
	}
	r = init(0);
	if (r == 0)
		r = count(&n);
	if (r != 0) {
		if (name)
			name(r, &en);
		if (str)
			str(r, &es);
		snprintf(why, size, "%s (%s %d)", es ? es : "the driver failed",
			 en ? en : "CUresult", r);
		goto out;
	}
	if (n == 0)
		snprintf(why, size, "the driver reports no CUDA device");
	else if (device >= n)
		snprintf(why, size, "device %d does not exist (the driver reports %d)", device, n);
	else
		ok = true;
out:
	dlclose(lib);
	return ok;
}

static bool
executable_at(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* --kernels, $GPUPROJ_BENCH_KERNELS, beside gpuproj, the build tree, the install. */
static char *
find_kernels(const char *opt, struct strbuf *looked)
{
	char self[PATH_MAX], *slash, *p;
	const char *env = getenv("GPUPROJ_BENCH_KERNELS");
	ssize_t n;

	if (opt)
		return executable_at(opt) ? strdup(opt) : (strbuf_append(looked, opt), NULL);
	if (env && *env)
		return executable_at(env) ? strdup(env) : (strbuf_append(looked, env), NULL);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			p = xasprintf("%s/" KERNELS, self);
			if (p && executable_at(p))
				return p;
			strbuf_printf(looked, "%s, ", p ? p : "?");
			free(p);
			/* build tree: build/src/cli/gpuproj -> build/src/bench/kernels/ */
			p = xasprintf("%s/../../src/bench/kernels/" KERNELS, self);
			if (p && executable_at(p))
				return p;
			strbuf_printf(looked, "%s, ", p ? p : "?");
			free(p);
		}
	}
	p = xasprintf("%s/" KERNELS, GPUPROJ_LIBDIR);
	if (p && executable_at(p))
		return p;
	strbuf_append(looked, p ? p : "?");
	free(p);
	return NULL;
}

/* Run argv; stderr to /dev/null when quiet. Returns the exit status, -1 on failure. */
static int
run_kernels(char *const argv[], bool quiet)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, r;

	posix_spawn_file_actions_init(&fa);
	if (quiet)
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	fflush(stdout);
	fflush(stderr);
	r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		errno = r;
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *
temp_file(const char *what)
{
	const char *dir = getenv("TMPDIR");
	char *path = xasprintf("%s/gpuproj-bench-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);
	int fd;

	if (!path)
		return NULL;
	fd = mkstemp(path);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

/* Read and parse a raw file. */
static int
load_raw(const char *path, struct bench_raw *raw, char **ret_text)
{
	struct gpuproj_error err = { 0 };
	char *text = NULL;
	size_t len = 0;

	if (file_read_all(path, &text, &len, &err))
		return cli_fail_error(&err);
	if (bench_raw_parse(text, len, path, raw, &err)) {
		free(text);
		return cli_fail_error(&err);
	}
	*ret_text = text;
	return EXIT_OK;
}

/* Run the program's --query into `query` and load it into *q. */
static int
query_device(const struct opts *o, char *kernels, char *dev, char *query, struct bench_raw *q,
	     char **qtext)
{
	char *argv[] = { kernels, "--query", "--device", dev, "--output", query, NULL };
	int st = run_kernels(argv, true);
	const char *e;

	if (st < 0)
		return cli_fail("bench: cannot run %s: %s", kernels, strerror(errno));
	if (load_raw(query, q, qtext))
		return EXIT_FAIL;
	if (st == 0 && !q->error && q->dev.name)
		return EXIT_OK;
	e = q->error ? q->error : "(no reason given)";
	/* The driver saw the device: the runtime inside the program cannot use it. */
	if (st == KERNELS_NOGPU)
		return cli_fail("bench: " KERNELS " cannot use CUDA device %d: %s%s", o->device, e,
				strstr(e, "cudaErrorInsufficientDriver")
				? " (the driver is older than the CUDA runtime the program "
				"was built "
				"with: update the driver, or build gpuproj with an older "
				"CUDA toolkit)"
				: "");
	return cli_fail("bench: %s --query failed (status %d): %s", kernels, st, e);
}

/*
 * Run the plan on the device into `raw_path`, loaded into *raw and *text;
 * a run that stopped early with results is *partial.
 */
static int
run_plan(const struct opts *o, char *kernels, char *dev, char *plan_path, char *raw_path,
	 const struct bench_raw *q, struct bench_raw *raw, char **text, bool *partial)
{
	const struct cli_shared *sh = &o->shared;
	/* The kernels' --progress: none, a redrawn line (tty) or log lines. */
	const char *prog = sh->quiet || sh->progress == CLI_PROGRESS_NEVER ? "none"
			   : sh->progress == CLI_PROGRESS_AUTO && cli_stderr_is_tty() ? "tty"
										: "lines";
	char *argv[] = { kernels,    "--plan", plan_path,    "--device",   dev,
			 "--output", raw_path, "--progress", (char *)prog, NULL };
	int st = run_kernels(argv, false);

	if (st < 0)
		return cli_fail("bench: cannot run %s: %s", kernels, strerror(errno));
	if (load_raw(raw_path, raw, text))
		return EXIT_FAIL;
	if (st == KERNELS_NOGPU)
		return cli_fail("bench: " KERNELS " cannot use CUDA device %d: %s", o->device,
				raw->error ? raw->error : "(no reason given)");
	if (raw->n == 0 && raw->error && strstr(raw->error, "cudaErrorNoKernelImageForDevice"))
		/* E.g. a V100 with a program built by CUDA 13, which dropped sm_70 and sm_72. */
		return cli_fail("bench: %s has no code for this GPU (sm_%d%d): %s; build it with a "
				"CUDA toolkit that supports sm_%d%d (CUDA 12 for sm_70/sm_72: "
				"docs/bench.md)", kernels, q->dev.cc_major, q->dev.cc_minor,
				raw->error, q->dev.cc_major, q->dev.cc_minor);
	if (st != 0 || raw->error) {
		fprintf(stderr, "gpuproj: bench: warning: the run stopped early (%s); the results "
			"below are partial\n", raw->error ? raw->error : "see above");
		if (raw->n == 0)
			return EXIT_FAIL;
		*partial = true;
	}
	return EXIT_OK;
}

/* Query the device, plan, run. On success *raw and *text hold the run. */
static int
measure(const struct opts *o, struct bench_raw *raw, char **text, bool *partial)
{
	struct strbuf looked;
	char why[512], dev[16], *kernels, *query = NULL, *plan_path = NULL, *raw_path = NULL;
	char *qtext = NULL, *plan_text = NULL;
	struct bench_raw q = { 0 };
	struct bench_plan plan = { 0 };
	struct gpuproj_error err = { 0 };
	int ret = EXIT_FAIL;

	if (!probe_driver(o->device, why, sizeof(why)))
		return cli_fail("bench: no CUDA GPU found: %s", why);
	strbuf_init(&looked);
	kernels = find_kernels(o->kernels, &looked);
	if (!kernels) {
		ret = cli_fail(
			       "bench: the CUDA benchmark program " KERNELS " was not found (looked at "
			       "%s): gpuproj was built without the CUDA toolkit (nvcc); rebuild with it, "
			       "or name the program with --kernels or GPUPROJ_BENCH_KERNELS",
			       looked.buf ? looked.buf : "");
		strbuf_free(&looked);
		return ret;
	}
	strbuf_free(&looked);
	snprintf(dev, sizeof(dev), "%d", o->device);
	query = temp_file("query");
	plan_path = temp_file("plan");
	raw_path = temp_file("raw");
	if (!query || !plan_path || !raw_path) {
		cli_fail("bench: cannot create a temporary file: %s", strerror(errno));
		goto out;
	}
	if (query_device(o, kernels, dev, query, &q, &qtext))
		goto out;
	if (bench_plan_make(&q.dev, o->quick ? BENCH_MODE_QUICK : BENCH_MODE_DEFAULT, &plan,
			    &err)) {
		cli_fail_error(&err);
		goto out;
	}
	plan_text = bench_plan_format(&plan);
	if (!plan_text || file_write_atomic(plan_path, plan_text, strlen(plan_text), &err)) {
		if (plan_text)
			cli_fail_error(&err);
		else
			cli_fail("bench: out of memory");
		goto out;
	}
	if (!o->shared.quiet)
		fprintf(stderr, "gpuproj bench: %s (sm_%d%d, %d SMs): %zu benchmarks, %s mode, "
			"about %.0f s\n", q.dev.name, q.dev.cc_major, q.dev.cc_minor, q.dev.sms,
			plan.n, o->quick ? "quick" : "default",
			bench_plan_estimate_s(&plan, &q.dev));
	ret = run_plan(o, kernels, dev, plan_path, raw_path, &q, raw, text, partial);
out:
	if (ret != EXIT_OK && raw->n == 0) {
		bench_raw_free(raw);
		free(*text);
		*text = NULL;
	}
	if (query)
		unlink(query);
	if (plan_path)
		unlink(plan_path);
	if (raw_path)
		unlink(raw_path);
	free(query);
	free(plan_path);
	free(raw_path);
	free(qtext);
	free(plan_text);
	free(kernels);
	bench_raw_free(&q);
	bench_plan_free(&plan);
	return ret;
}

/* The raw measurements with their summary, written next to the entry. */
static int
write_raw(const char *path, const char *raw_text, const char *mode, const struct bench_summary *s,
	  const struct bench_row *rows, size_t n, const struct gpuproj_target *t)
{
	struct gpuproj_error err = { 0 };
	char *out = NULL;
	int r = bench_raw_with_summary(raw_text, mode, s, rows, n, t, &out, &err);

	if (r)
		return cli_fail("bench: %s", err.message);
	r = file_write_atomic(path, out, strlen(out), &err);
	free(out);
	return r ? cli_fail_error(&err) : EXIT_OK;
}

/* FILE.yaml -> FILE.json; other names get .json appended. */
static char *
raw_name_for(const char *yaml)
{
	size_t n = strlen(yaml);

	if (n > 5 && strcmp(yaml + n - 5, ".yaml") == 0)
		return xasprintf("%.*s.json", (int)(n - 5), yaml);
	if (n > 4 && strcmp(yaml + n - 4, ".yml") == 0)
		return xasprintf("%.*s.json", (int)(n - 4), yaml);
	return xasprintf("%s.json", yaml);
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The options and their usage errors. Returns -1 to go on, else the exit status. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "raw", required_argument, NULL, 'r' },
		{ "quick", no_argument, NULL, 'Q' }, /* no short form: -q is --quiet */
		{ "device", required_argument, NULL, 'd' },
		{ "name", required_argument, NULL, 'n' },
		{ "targets", required_argument, NULL, 't' },
		{ "from-raw", required_argument, NULL, 'f' },
		{ "kernels", required_argument, NULL, 'k' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", cli_options(lopts), NULL)) != -1) {
		switch (c) {
		case 'h': help(stdout); return EXIT_OK;
		case 'o': o->output = optarg; break;
		case 'r': o->raw_out = optarg; break;
		case 'Q': o->quick = true; break;
		case 'n': o->name = optarg; break;
		case 't': o->targets = optarg; break;
		case 'f': o->from_raw = optarg; break;
		case 'k': o->kernels = optarg; break;
		case 'P': o->shared.progress = CLI_PROGRESS_NEVER; break;
		case 'q':
		case CLI_O_PROGRESS:
			if (cli_shared_option("bench", c, optarg, &o->shared) < 0)
				return EXIT_USAGE;
			break;
		case 'd':
			if (strcmp(optarg, "0") == 0)
				v = 0;
			else if (!cli_parse_size("bench", "--device", optarg, &v))
				return EXIT_USAGE;
			if (v > 1024)
				return cli_usage_error("bench", "--device %s is not a device index",
						       optarg);
			o->device = (int)v;
			break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("bench", c, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
	if (o->from_raw && o->quick)
		return cli_usage_error("bench", "--quick and --from-raw do not go together");
	return -1;
}

/* The entry's name, the two files' names, and the date and host of the measurement. */
struct entry_names {
	char *name, *out_path, *raw_path;
	char date[16], host[256]; /* gethostname() need not terminate a truncated name */
};

static int
entry_names(const struct opts *o, const struct bench_raw *raw, struct entry_names *e)
{
	e->name = o->name ? strdup(o->name) : bench_entry_name(raw->dev.name);
	if (!e->name)
		return cli_fail("bench: out of memory");
	e->out_path = o->output ? strdup(o->output) : xasprintf("%s.yaml", e->name);
	e->raw_path = o->raw_out ? strdup(o->raw_out) :
		      !e->out_path ? NULL :
		      strcmp(e->out_path, "-") == 0 ? xasprintf("%s.json", e->name)
						    : raw_name_for(e->out_path);
	if (!e->out_path || !e->raw_path)
		return cli_fail("bench: out of memory");
	if (raw->date_utc && strlen(raw->date_utc) >= 10) {
		snprintf(e->date, sizeof(e->date), "%.10s", raw->date_utc);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		strftime(e->date, sizeof(e->date), "%Y-%m-%d", gmtime_r(&now, &tm));
	}
	if (raw->host)
		snprintf(e->host, sizeof(e->host), "%s", raw->host);
	else if (gethostname(e->host, sizeof(e->host) - 1) != 0)
		snprintf(e->host, sizeof(e->host), "unknown");
	return EXIT_OK;
}

/*
 * The targets.yaml entry, checked against the schema and the one-basis
 * rules, and the raw measurements: the raw file is kept even when the
 * entry cannot be written.
 */
static int
write_entry(const struct opts *o, const struct bench_raw *raw, const struct bench_summary *sum,
	    const struct entry_names *e, const char *text, const struct bench_row *rows,
	    size_t nrows, const struct gpuproj_target *t)
{
	struct bench_yaml_info info = {
		.name = e->name,
		.version = raw->kernels_version ? raw->kernels_version : GPUPROJ_VERSION,
		.date = e->date,
		.host = e->host,
		.raw_file = base_name(e->raw_path),
		.mode = raw->mode ? raw->mode : o->from_raw ? "recorded" :
			o->quick ? "quick" : "default",
	};
	struct gpuproj_targets *check = NULL;
	struct gpuproj_error err = { 0 }, berr = { 0 };
	char *yaml = NULL;
	int r = bench_yaml_emit(raw, sum, &info, &yaml, &err), ret = EXIT_FAIL;

	if (!r) {
		r = gpuproj_targets_load_buffer(yaml, strlen(yaml), e->out_path, &check, &err);
		if (r)
			fprintf(stderr, "gpuproj: bench: internal error: the entry written does "
				"not pass the targets schema:\n");
		/* A gap (a failed benchmark, an unknown CC) is said, not fatal. */
		else if (gpuproj_target_check_one_basis(gpuproj_targets_get(check, 0),
							e->out_path, &berr))
			fprintf(stderr, "gpuproj: bench: warning: %s\n", berr.message);
		gpuproj_targets_free(check);
	}
	/* Keep the measurements even when the entry cannot be written. */
	if ((!o->from_raw || (strcmp(e->raw_path, o->from_raw) != 0 &&
			      !file_same(e->raw_path, o->from_raw))) &&
	    write_raw(e->raw_path, text, o->from_raw ? NULL : info.mode, sum, rows, nrows, t))
		goto out;
	if (r || file_write_atomic(e->out_path, yaml, strlen(yaml), &err)) {
		cli_fail_error(&err);
		goto out;
	}
	ret = EXIT_OK;
out:
	free(yaml);
	return ret;
}

int
cmd_bench(int argc, char **argv)
{
	struct opts o = { 0 };
	struct bench_raw raw = { 0 };
	struct bench_summary sum;
	struct gpuproj_targets *ts = NULL;
	const struct gpuproj_target *t = NULL;
	struct gpuproj_error err = { 0 };
	struct bench_row rows[40];
	struct entry_names e = { 0 };
	const char *origin = "built-in";
	char *text = NULL;
	size_t nrows;
	bool partial = false;
	int ret = parse_args(argc, argv, &o);

	if (ret >= 0)
		return ret;
	if (o.from_raw) {
		if (load_raw(o.from_raw, &raw, &text))
			return EXIT_FAIL;
		if (!raw.dev.name)
			return cli_fail("bench: %s holds no device%s%s", o.from_raw,
					raw.error ? ": " : "", raw.error ? raw.error : "");
	} else if (measure(&o, &raw, &text, &partial)) {
		return EXIT_FAIL;
	}
	ret = EXIT_FAIL;
	bench_summarize(&raw, &sum);
	if (gpuproj_targets_load_default(o.targets, &ts, &origin, &err)) {
		char buf[GPUPROJ_ERROR_MSG_SIZE + GPUPROJ_ERROR_FILE_SIZE + 64];

		fprintf(stderr, "gpuproj: bench: warning: no comparison with targets.yaml: %s\n",
			gpuproj_error_format(&err, buf, sizeof(buf)));
		ts = NULL;
	} else {
		t = gpuproj_targets_match(ts, raw.dev.name);
	}
	nrows = bench_rows(&sum, t, rows, ARRAY_LENGTH(rows));
	if (entry_names(&o, &raw, &e))
		goto out;
	bench_write_table(strcmp(e.out_path, "-") == 0 ? stderr : stdout, &raw, &sum, t, origin,
			  rows, nrows);
	if (write_entry(&o, &raw, &sum, &e, text, rows, nrows, t))
		goto out;
	if (strcmp(e.out_path, "-") != 0)
		fprintf(stderr,
			"\ngpuproj bench: wrote %s (targets entry '%s'; check with `gpuproj "
			"targets check --one-basis %s`) and %s\n",
			e.out_path, e.name, e.out_path, e.raw_path);
	/* Files written, but an incomplete run is a failure (estimates stand in). */
	ret = partial ? cli_fail("bench: the run was incomplete: %s lacks or estimates what was "
				 "not measured (its sources say which)", e.out_path) : EXIT_OK;
out:
	free(e.name);
	free(e.out_path);
	free(e.raw_path);
	free(text);
	bench_raw_free(&raw);
	gpuproj_targets_free(ts);
	return ret;
}
