/* SPDX-License-Identifier: MIT */
/*
 * gpuproj bench [--quick] [-o FILE.yaml] [--raw FILE.json] [--device N]
 *               [--name NAME] [--targets FILE] [--kernels PATH]
 * gpuproj bench --from-raw RAW.json [-o FILE.yaml] ...
 *
 * Measures the GPU this runs on with the CUDA micro-benchmarks of
 * gpuproj-bench-kernels (scripts/bench/), prints the ceilings with their
 * spread next to the matching targets.yaml entry, and writes a complete
 * targets file for the GPU plus the raw measurements as JSON (both
 * atomically). --from-raw redoes the statistics, table and files from a
 * recorded raw file without a GPU. docs/bench.md has the method.
 *
 * Without a GPU: one line, "no CUDA GPU found: <the driver's reason>", and
 * exit status 1.
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

#include <jansson.h>

#include <gpuproj/target.h>

#include "bench.h"
#include "cli.h"
#include "util.h"

#define KERNELS "gpuproj-bench-kernels"
#define KERNELS_NOGPU 3

extern char **environ;

struct opts {
	const char *output, *raw_out, *from_raw, *name, *targets, *kernels;
	int device;
	bool quick, progress;
};

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj bench [options]\n"
		"       gpuproj bench --from-raw RAW.json [options]\n\n"
		"Measure this GPU with CUDA micro-benchmarks (FP64/FP32/FP16 FMA, ADD, MUL;\n"
		"integer add and multiply-add; instruction rate; DRAM, L2, L1 and shared-memory\n"
		"bandwidth), print the ceilings with their spread beside the GPU's targets.yaml\n"
		"entry, and write a complete, sourced targets file for it plus the raw\n"
		"measurements as JSON. Default run under 3 minutes, --quick under 30 s.\n\n"
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
		"      --no-progress   no progress lines on the terminal\n"
		"  -h, --help          show this help\n\n"
		"Exit status: 0 success, 1 failure (including: no CUDA GPU), 2 bad usage.\n");
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
			/* build tree: build/src/cli/gpuproj -> build/scripts/bench/ */
			p = xasprintf("%s/../../scripts/bench/" KERNELS, self);
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
		return fail_error(&err);
	if (bench_raw_parse(text, len, path, raw, &err)) {
		free(text);
		return fail_error(&err);
	}
	*ret_text = text;
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
	int st, ret = EXIT_FAIL;

	if (!probe_driver(o->device, why, sizeof(why)))
		return fail("bench: no CUDA GPU found: %s", why);
	strbuf_init(&looked);
	kernels = find_kernels(o->kernels, &looked);
	if (!kernels) {
		ret = fail(
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
		fail("bench: cannot create a temporary file: %s", strerror(errno));
		goto out;
	}
	{
		char *argv[] = { kernels, "--query", "--device", dev, "--output", query, NULL };

		st = run_kernels(argv, true);
	}
	if (st < 0) {
		fail("bench: cannot run %s: %s", kernels, strerror(errno));
		goto out;
	}
	if (load_raw(query, &q, &qtext))
		goto out;
	if (st != 0 || q.error || !q.dev.name) {
		const char *e = q.error ? q.error : "(no reason given)";

		/* The driver saw the device: the runtime inside the program cannot use it. */
		if (st == KERNELS_NOGPU)
			fail("bench: " KERNELS " cannot use CUDA device %d: %s%s", o->device, e,
			     strstr(e, "cudaErrorInsufficientDriver")
				     ? " (the driver is older than the CUDA runtime the program "
				       "was built "
				       "with: update the driver, or build gpuproj with an older "
				       "CUDA toolkit)"
				     : "");
		else
			fail("bench: %s --query failed (status %d): %s", kernels, st, e);
		goto out;
	}
	if (bench_plan_make(&q.dev, o->quick ? BENCH_MODE_QUICK : BENCH_MODE_DEFAULT, &plan,
			    &err)) {
		fail_error(&err);
		goto out;
	}
	plan_text = bench_plan_format(&plan);
	if (!plan_text || file_write_atomic(plan_path, plan_text, strlen(plan_text), &err)) {
		if (plan_text)
			fail_error(&err);
		else
			fail("bench: out of memory");
		goto out;
	}
	fprintf(stderr, "gpuproj bench: %s (sm_%d%d, %d SMs): %zu benchmarks, %s mode, "
		"about %.0f s\n", q.dev.name, q.dev.cc_major, q.dev.cc_minor, q.dev.sms, plan.n,
		o->quick ? "quick" : "default", bench_plan_estimate_s(&plan, &q.dev));
	{
		const char *prog = !o->progress ? "none" : cli_stderr_is_tty() ? "tty" : "lines";
		char *argv[] = { kernels,    "--plan", plan_path,    "--device",   dev,
				 "--output", raw_path, "--progress", (char *)prog, NULL };

		st = run_kernels(argv, false);
	}
	if (st < 0) {
		fail("bench: cannot run %s: %s", kernels, strerror(errno));
		goto out;
	}
	if (load_raw(raw_path, raw, text))
		goto out;
	if (st == KERNELS_NOGPU) {
		fail("bench: " KERNELS " cannot use CUDA device %d: %s", o->device,
		     raw->error ? raw->error : "(no reason given)");
		goto out;
	}
	if (raw->n == 0 && raw->error && strstr(raw->error, "cudaErrorNoKernelImageForDevice")) {
		/* E.g. a V100 with a program built by CUDA 13, which dropped sm_70 and sm_72. */
		fail("bench: %s has no code for this GPU (sm_%d%d): %s; build it with a CUDA "
		     "toolkit that supports sm_%d%d (CUDA 12 for sm_70/sm_72: docs/bench.md)",
		     kernels, q.dev.cc_major, q.dev.cc_minor, raw->error, q.dev.cc_major,
		     q.dev.cc_minor);
		goto out;
	}
	if (st != 0 || raw->error) {
		fprintf(stderr, "gpuproj: bench: warning: the run stopped early (%s); the results "
			"below are partial\n", raw->error ? raw->error : "see above");
		if (raw->n == 0)
			goto out;
		*partial = true;
	}
	ret = EXIT_OK;
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

/* ---- the table ---- */

/* One comparison row: measured vs the targets.yaml entry. */
struct row {
	const char *field;          /* e.g. "fp64_fma", "fp64_add", "bw_gbs.dram" */
	const char *label;
	const char *unit;
	const struct bench_rate *r;
	double measured;
	double reference;           /* the entry's model value, NaN if none */
	char ref_path[48];          /* its sources path */
	double peak;                /* the entry's peak, NaN if none */
};

static char
basis_letter(const struct gpuproj_target *t, const char *path)
{
	const struct gpuproj_source *s = t && *path ? gpuproj_target_source(t, path) : NULL;

	if (t && !*path)
		return 'd'; /* computed here from the entry: peak GIPS */
	if (!s)
		return ' ';
	switch (s->basis) {
	case GPUPROJ_BASIS_MEASURED: return 'm';
	case GPUPROJ_BASIS_DATASHEET: return 's';
	case GPUPROJ_BASIS_DERIVED: return 'd';
	case GPUPROJ_BASIS_ESTIMATE: return 'e';
	case GPUPROJ_BASIS_NONE: break;
	}
	return ' ';
}

static size_t
make_rows(const struct bench_summary *s, const struct bench_device *d,
	  const struct gpuproj_target *t, struct row *rows, size_t max)
{
	static const char *const fp_field[GPUPROJ_PREC_COUNT][2] = {
		{ "fp16_fma", "fp16_add_mul" }, { "fp32_fma", "fp32_add_mul" },
		{ "fp64_fma", "fp64_add_mul" },
	};
	static const char *const fp_row[GPUPROJ_PREC_COUNT][BENCH_FOP_COUNT] = {
		{ "fp16_fma", "fp16_add", "fp16_mul" }, { "fp32_fma", "fp32_add", "fp32_mul" },
		{ "fp64_fma", "fp64_add", "fp64_mul" },
	};
	static const char *const fp_label[GPUPROJ_PREC_COUNT][BENCH_FOP_COUNT] = {
		{ "fp16 fma (half2)", "fp16 add (half2)", "fp16 mul (half2)" },
		{ "fp32 fma", "fp32 add", "fp32 mul" },
		{ "fp64 fma", "fp64 add", "fp64 mul" },
	};
	char path[48];
	size_t n = 0;
	int p, k;

#define ROW(...) do { if (n < max) rows[n++] = (struct row){ __VA_ARGS__ }; } while (0)
	for (p = GPUPROJ_PREC_COUNT - 1; p >= 0; p--) {
		for (k = 0; k < BENCH_FOP_COUNT; k++) {
			int kind = k == BENCH_FOP_FMA ? GPUPROJ_OP_FMA : GPUPROJ_OP_ADD_MUL;
			bool meas;
			double ref = t ? gpuproj_target_gflops(t, p, kind, &meas) : NAN;

			snprintf(path, sizeof(path), "%s.%s",
				 t && !isnan(t->max_gflops[p][kind]) ? "max_gflops" : "peak_gflops",
				 fp_field[p][kind]);
			ROW(fp_row[p][k], fp_label[p][k], "GFLOP/s", &s->fp[p][k],
			    s->fp[p][k].value, ref, "", t ? t->peak_gflops[p][kind] : NAN);
			if (n)
				snprintf(rows[n - 1].ref_path, sizeof(rows[n - 1].ref_path), "%s",
					 path);
		}
	}
	ROW("int32_add", "int32 add (IADD3)", "GIOP/s", &s->int_add, s->int_add.value,
	    t ? t->int32_add_giops : NAN, "peak_giops.int32_add", NAN);
	ROW("int32_mad", "int32 mad (IMAD)", "GIOP/s", &s->int_mad, s->int_mad.value,
	    t ? t->int32_mad_giops : NAN, "peak_giops.int32_mad", NAN);
	ROW("ldst_shared_gops", "shared ld/st", "G inst/s", &s->ldst, s->ldst.value,
	    t ? t->ldst_shared_gops : NAN, "ldst_shared_gops", NAN);
	ROW("gips", "warp instructions", "GIPS", &s->gips, s->gips.value,
	    t ? t->sms * t->schedulers_per_sm * t->ipc_per_scheduler * t->clock_mhz / 1000 : NAN,
	    "", NAN);
	ROW("bw_gbs.dram", "DRAM", "GB/s", s->dram_best >= 0 ? &s->dram[s->dram_best] : NULL,
	    s->dram_gbs, t ? t->bw_gbs[GPUPROJ_LEVEL_DRAM] : NAN, "bw_gbs.dram",
	    t ? t->peak_dram_gbs : NAN);
	ROW("bw_gbs.l2", "L2 (plateau)", "GB/s", NULL, s->l2_gbs,
	    t ? t->bw_gbs[GPUPROJ_LEVEL_L2] : NAN, "bw_gbs.l2", NAN);
	ROW("bw_gbs.l1", "L1", "GB/s", NULL, s->l1_gbs, t ? t->bw_gbs[GPUPROJ_LEVEL_L1] : NAN,
	    "bw_gbs.l1", NAN);
	ROW("bw_gbs.shared", "shared", "GB/s", NULL, s->shared_gbs,
	    t ? t->bw_gbs[GPUPROJ_LEVEL_SHARED] : NAN, "bw_gbs.shared", NAN);
	ROW("clock_mhz", "SM clock", "MHz", NULL, s->clock_mhz, t ? t->clock_mhz : NAN,
	    "clock_mhz", NAN);
#undef ROW
	(void)d;
	return n;
}

static const struct bench_rate *
row_rate(const struct row *r, const struct bench_summary *s)
{
	size_t i;

	if (r->r)
		return r->r;
	if (strcmp(r->field, "bw_gbs.l1") == 0) {
		for (i = 0; i < s->n_l1; i++) {
			if (s->l1[i].size_b == s->l1_size_b)
				return &s->l1[i].r;
		}
	}
	if (strcmp(r->field, "bw_gbs.shared") == 0) {
		for (i = 0; i < s->n_shared; i++) {
			if (s->shared[i].stride == 1)
				return &s->shared[i].r;
		}
	}
	return NULL;
}

/* The rest of a sweep line for a point that was not measured. */
static void
print_failed(FILE *f, const struct bench_rate *r)
{
	fprintf(f, "  failed: %s\n", r->m && r->m->error ? r->m->error : "no timed run");
}

static void
print_table(FILE *f, const struct bench_raw *raw, const struct bench_summary *s,
	    const struct gpuproj_target *t, const char *origin, const struct row *rows, size_t n)
{
	const struct bench_device *d = &raw->dev;
	size_t i;

	fprintf(f, "gpuproj bench %s: %s (sm_%d%d, %d SMs, ECC %s)", raw->kernels_version ?
		raw->kernels_version : GPUPROJ_VERSION, d->name, d->cc_major, d->cc_minor, d->sms,
		d->ecc ? "on" : "off");
	if (d->driver_version)
		fprintf(f, ", driver %s", d->driver_version);
	fprintf(f, ", CUDA %d.%d driver API, kernels built with CUDA %d.%d\n",
		d->driver_api_version / 1000, d->driver_api_version % 1000 / 10,
		d->toolkit_version / 1000, d->toolkit_version % 1000 / 10);
	if (s->clock_observed)
		fprintf(f, "SM clock: %.0f MHz median of %zu NVML samples during the compute runs "
			"(%.0f-%.0f); maximum %.0f MHz\n", s->clock_mhz, s->clock_samples,
			s->clock_lo_mhz, s->clock_hi_mhz, d->max_clock_mhz);
	else
		fprintf(f, "SM clock: %.0f MHz is the device's maximum clock, not observed (NVML: "
			"%s)\n", s->clock_mhz, d->nvml_reason ? d->nvml_reason : "not available");
	if (t)
		fprintf(f, "targets.yaml entry: %s (%s); basis m measured, s datasheet, d derived, "
			"e estimate\n", t->name, origin);
	else
		fprintf(f, "targets.yaml entry: none matches \"%s\" (%s)\n", d->name, origin);
	fprintf(f, "\n%-20s %11s %-9s %7s %6s %7s %12s %6s\n", "ceiling", "measured", "unit",
		"spread", "MHz", "%peak", "targets.yaml", "ratio");
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const struct bench_rate *rt = row_rate(r, s);
		char spread[16] = "", mhz[16] = "", peak[16] = "", ref[24] = "", ratio[16] = "";

		if (rt && rt->ok) {
			snprintf(spread, sizeof(spread), "%.1f%%", rt->s.spread_pct);
			if (rt->clock_mhz > 0)
				snprintf(mhz, sizeof(mhz), "%.0f", rt->clock_mhz);
		}
		if (r->peak > 0 && r->measured > 0)
			snprintf(peak, sizeof(peak), "%.1f%%", 100 * r->measured / r->peak);
		if (r->reference > 0) {
			snprintf(ref, sizeof(ref), "%.1f %c", r->reference,
				 basis_letter(t, r->ref_path));
			if (r->measured > 0)
				snprintf(ratio, sizeof(ratio), "%.3f", r->measured / r->reference);
		}
		if (r->measured > 0)
			fprintf(f, "%-20s %11.1f %-9s %7s %6s %7s %12s %6s\n", r->label,
				r->measured, r->unit, spread, mhz, peak, ref, ratio);
		else
			fprintf(f, "%-20s %11s %-9s %7s %6s %7s %12s %6s\n", r->label, "-", r->unit,
				"", "", "", ref, "");
	}
	if (s->ipc_per_scheduler > 0)
		fprintf(f, "%-20s %11.3f (GIPS / (SMs x 4 schedulers x clock))\n",
			"IPC per scheduler", s->ipc_per_scheduler);

	fprintf(f, "\nDRAM (double arrays of %.0f MiB = %.1f x L2; GB/s, spread):\n",
		s->dram_array_b / (1024.0 * 1024), s->dram_array_b / d->l2_b);
	{
		static const char *const dn[] = { "init (write)", "read", "copy", "scale",
						  "triad" };

		for (i = 0; i < BENCH_DRAM_COUNT; i++) {
			const struct bench_rate *r = &s->dram[i];

			if (r->ok)
				fprintf(f, "  %-13s %9.1f  %5.1f%%%s\n", dn[i], r->value,
					r->s.spread_pct,
					(int)i == s->dram_best ? "  <- bw_gbs.dram" : "");
			else if (r->m)
				fprintf(f, "  %-13s   failed: %s\n", dn[i],
					r->m->error ? r->m->error : "");
		}
		if (s->peak_dram_gbs > 0)
			fprintf(f, "  %-13s %9.1f  (2 x memory clock x bus width)\n", "peak",
				s->peak_dram_gbs);
	}
	if (s->n_l2) {
		fprintf(f, "\nL2 sweep (L2 %.1f MiB; ld.global.cg; GB/s, spread):\n",
			d->l2_b / (1024.0 * 1024));
		for (i = 0; i < s->n_l2; i++) {
			const struct bench_l2_point *p = &s->l2[i];
			double frac = p->footprint_b / d->l2_b;

			fprintf(f, "  %8.1f MiB %5.3g x L2 ", p->footprint_b / (1024.0 * 1024), frac);
			if (!p->r.ok)
				print_failed(f, &p->r);
			else
				fprintf(f, "%9.1f  %5.1f%%%s\n", p->r.value, p->r.s.spread_pct,
					frac >= 0.125 * 0.99 && frac <= 0.5 * 1.01 ? "  plateau"
										   : "");
		}
		if (s->l2_plateau_points)
			fprintf(f, "  plateau (median of %zu points, L2/8 .. L2/2): %.1f GB/s\n",
				s->l2_plateau_points, s->l2_gbs);
		else
			fprintf(f, "  plateau: no point from L2/8 to L2/2 was measured\n");
		if (s->l2_drop_pct > 15)
			fprintf(f,
				"  segmented L2: %.0f%% lower at %.1f MiB (between L2/2 and the L2 "
				"size): the far partition serves part of the footprint\n",
				s->l2_drop_pct, s->l2_drop_footprint_b / (1024.0 * 1024));
		else if (!isnan(s->l2_drop_pct))
			fprintf(f, "  no segmented-L2 drop (%.0f%% between L2/2 and the L2 size)\n",
				s->l2_drop_pct);
	}
	if (s->n_l1) {
		fprintf(f, "\nL1 (one block per SM; GB/s, spread, bytes/clk/SM):\n");
		for (i = 0; i < s->n_l1; i++) {
			const struct bench_rate *r = &s->l1[i].r;
			double clk = r->clock_mhz > 0 ? r->clock_mhz : s->clock_mhz;

			fprintf(f, "  %5.0f KiB ", s->l1[i].size_b / 1024);
			if (!r->ok)
				print_failed(f, r);
			else
				fprintf(f, "%9.1f  %5.1f%%  %6.1f\n", r->value, r->s.spread_pct,
					r->value * 1e3 / (d->sms * clk));
		}
	}
	if (s->n_shared) {
		fprintf(f, "\nShared memory, 32-bit loads with an s-way bank conflict (GB/s of "
			"requested bytes, spread, bytes/clk/SM):\n");
		for (i = 0; i < s->n_shared; i++) {
			const struct bench_shared_point *p = &s->shared[i];

			fprintf(f, "  s = %-3u ", p->stride);
			if (!p->r.ok)
				print_failed(f, &p->r);
			else
				fprintf(f, "%9.1f  %5.1f%%  %6.1f\n", p->r.value, p->r.s.spread_pct,
					p->bytes_per_clk_sm);
		}
	}
}

/* ---- the raw JSON written next to the entry ---- */

static json_t *
rate_json(const struct bench_rate *r)
{
	if (!r || !r->ok)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:I, s:o}", "value", r->value, "spread_pct",
			 r->s.spread_pct, "min", r->s.min, "max", r->s.max, "runs",
			 (json_int_t)r->s.n, "sm_clock_mhz",
			 r->clock_mhz > 0 ? json_real(r->clock_mhz) : json_null());
}

static json_t *
num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
summary_json(const struct bench_summary *s, const struct row *rows, size_t n,
	     const struct gpuproj_target *t)
{
	static const char *const dn[] = { "init", "read", "copy", "scale", "triad" };
	static const char *const fop[] = { "fma", "add", "mul" };
	json_t *j = json_object(), *fp = json_object(), *dram = json_object(), *l2 = json_array(),
	       *l1 = json_array(), *sh = json_array(), *cmp = json_array();
	char key[32];
	size_t i;
	int p, k;

	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < BENCH_FOP_COUNT; k++) {
			snprintf(key, sizeof(key), "%s_%s", gpuproj_prec_name(p), fop[k]);
			json_object_set_new(fp, key, rate_json(&s->fp[p][k]));
		}
	}
	for (i = 0; i < BENCH_DRAM_COUNT; i++)
		json_object_set_new(dram, dn[i], rate_json(&s->dram[i]));
	for (i = 0; i < s->n_l2; i++)
		json_array_append_new(l2,
				      json_pack("{s:f, s:o}", "footprint_b", s->l2[i].footprint_b,
						"rate", rate_json(&s->l2[i].r)));
	for (i = 0; i < s->n_l1; i++)
		json_array_append_new(l1, json_pack("{s:f, s:o}", "size_b", s->l1[i].size_b, "rate",
						    rate_json(&s->l1[i].r)));
	for (i = 0; i < s->n_shared; i++)
		json_array_append_new(sh, json_pack("{s:i, s:o, s:o}", "stride",
						    (int)s->shared[i].stride, "rate",
						    rate_json(&s->shared[i].r), "bytes_per_clk_sm",
						    num_or_null(s->shared[i].bytes_per_clk_sm)));
	for (i = 0; i < n; i++)
		json_array_append_new(cmp, json_pack("{s:s, s:s, s:o, s:o, s:o}", "field",
						     rows[i].field, "unit", rows[i].unit,
						     "measured", num_or_null(rows[i].measured),
						     "targets_yaml", num_or_null(rows[i].reference),
						     "peak", num_or_null(rows[i].peak)));
	json_object_set_new(j, "clock_mhz", num_or_null(s->clock_mhz));
	json_object_set_new(j, "clock_observed", json_boolean(s->clock_observed));
	json_object_set_new(j, "fp_gflops", fp);
	json_object_set_new(j, "int32_add_giops", rate_json(&s->int_add));
	json_object_set_new(j, "int32_mad_giops", rate_json(&s->int_mad));
	json_object_set_new(j, "ldst_shared_gops", rate_json(&s->ldst));
	json_object_set_new(j, "gips", rate_json(&s->gips));
	json_object_set_new(j, "ipc_per_scheduler", num_or_null(s->ipc_per_scheduler));
	json_object_set_new(j, "dram_gbs", dram);
	json_object_set_new(j, "bw_dram_gbs", num_or_null(s->dram_gbs));
	json_object_set_new(j, "peak_dram_gbs", num_or_null(s->peak_dram_gbs));
	json_object_set_new(j, "l2_sweep", l2);
	json_object_set_new(j, "bw_l2_gbs", num_or_null(s->l2_gbs));
	json_object_set_new(j, "l2_drop_pct", num_or_null(s->l2_drop_pct));
	json_object_set_new(j, "l1", l1);
	json_object_set_new(j, "bw_l1_gbs", num_or_null(s->l1_gbs));
	json_object_set_new(j, "shared", sh);
	json_object_set_new(j, "bw_shared_gbs", num_or_null(s->shared_gbs));
	json_object_set_new(j, "targets_entry", t ? json_string(t->name) : json_null());
	json_object_set_new(j, "comparison", cmp);
	return j;
}

static int
write_raw(const char *path, const char *raw_text, const char *mode, const struct bench_summary *s,
	  const struct row *rows, size_t n, const struct gpuproj_target *t)
{
	struct gpuproj_error err = { 0 };
	json_error_t jerr;
	json_t *root = json_loads(raw_text, 0, &jerr);
	char *out;
	int r;

	if (!root)
		return fail("bench: cannot re-read the raw measurements: %s", jerr.text);
	if (mode && !json_object_get(root, "mode"))
		json_object_set_new(root, "mode", json_string(mode));
	json_object_set_new(root, "gpuproj_version", json_string(GPUPROJ_VERSION));
	json_object_set_new(root, "summary", summary_json(s, rows, n, t));
	out = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	json_decref(root);
	if (!out)
		return fail("bench: out of memory");
	{
		char *nl = xasprintf("%s\n", out);

		free(out);
		if (!nl)
			return fail("bench: out of memory");
		r = file_write_atomic(path, nl, strlen(nl), &err);
		free(nl);
	}
	return r ? fail_error(&err) : EXIT_OK;
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

int
cmd_bench(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "raw", required_argument, NULL, 'r' },
		{ "quick", no_argument, NULL, 'q' },
		{ "device", required_argument, NULL, 'd' },
		{ "name", required_argument, NULL, 'n' },
		{ "targets", required_argument, NULL, 't' },
		{ "from-raw", required_argument, NULL, 'f' },
		{ "kernels", required_argument, NULL, 'k' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .progress = true };
	struct bench_raw raw = { 0 };
	struct bench_summary sum;
	struct gpuproj_targets *ts = NULL;
	const struct gpuproj_target *t = NULL;
	struct gpuproj_error err = { 0 };
	struct row rows[32];
	const char *origin = "built-in";
	char *text = NULL, *yaml = NULL, *name = NULL, *out_path = NULL, *raw_path = NULL;
	char date[16], host[256] = ""; /* gethostname() need not terminate a truncated name */
	size_t nrows;
	bool partial = false;
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", lopts, NULL)) != -1) {
		switch (c) {
		case 'h': help(stdout); return EXIT_OK;
		case 'o': o.output = optarg; break;
		case 'r': o.raw_out = optarg; break;
		case 'q': o.quick = true; break;
		case 'n': o.name = optarg; break;
		case 't': o.targets = optarg; break;
		case 'f': o.from_raw = optarg; break;
		case 'k': o.kernels = optarg; break;
		case 'P': o.progress = false; break;
		case 'd': {
			size_t v;

			if (strcmp(optarg, "0") == 0)
				v = 0;
			else if (!cli_parse_size("bench", "--device", optarg, &v))
				return EXIT_USAGE;
			if (v > 1024)
				return usage_error("bench", "--device %s is not a device index",
						   optarg);
			o.device = (int)v;
			break;
		}
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("bench", c, argv);
		}
	}
	if (optind != argc)
		return usage_error("bench", "unexpected argument '%s'", argv[optind]);
	if (o.from_raw && o.quick)
		return usage_error("bench", "--quick and --from-raw do not go together");

	if (o.from_raw) {
		if (load_raw(o.from_raw, &raw, &text))
			return EXIT_FAIL;
		if (!raw.dev.name)
			return fail("bench: %s holds no device%s%s", o.from_raw,
				    raw.error ? ": " : "", raw.error ? raw.error : "");
	} else if (measure(&o, &raw, &text, &partial)) {
		return EXIT_FAIL;
	}

	bench_summarize(&raw, &sum);
	if (gpuproj_targets_load_default(o.targets, &ts, &origin, &err)) {
		char buf[GPUPROJ_ERROR_MSG_SIZE + GPUPROJ_ERROR_FILE_SIZE + 64];

		fprintf(stderr, "gpuproj: bench: warning: no comparison with targets.yaml: %s\n",
			gpuproj_error_format(&err, buf, sizeof(buf)));
		ts = NULL;
	} else {
		t = gpuproj_targets_match(ts, raw.dev.name);
	}
	nrows = make_rows(&sum, &raw.dev, t, rows, ARRAY_LENGTH(rows));

	/* Names and the date and host of the measurement. */
	name = o.name ? strdup(o.name) : bench_entry_name(raw.dev.name);
	if (!name) {
		fail("bench: out of memory");
		goto out;
	}
	out_path = o.output ? strdup(o.output) : xasprintf("%s.yaml", name);
	raw_path = o.raw_out ? strdup(o.raw_out) :
		   strcmp(out_path, "-") == 0 ? xasprintf("%s.json", name) : raw_name_for(out_path);
	if (!out_path || !raw_path) {
		fail("bench: out of memory");
		goto out;
	}
	if (raw.date_utc && strlen(raw.date_utc) >= 10) {
		snprintf(date, sizeof(date), "%.10s", raw.date_utc);
	} else {
		time_t now = time(NULL);
		struct tm tm;

		strftime(date, sizeof(date), "%Y-%m-%d", gmtime_r(&now, &tm));
	}
	if (raw.host)
		snprintf(host, sizeof(host), "%s", raw.host);
	else if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "unknown");

	print_table(strcmp(out_path, "-") == 0 ? stderr : stdout, &raw, &sum, t, origin, rows,
		    nrows);
	{
		struct bench_yaml_info info = {
			.name = name,
			.version = raw.kernels_version ? raw.kernels_version : GPUPROJ_VERSION,
			.date = date,
			.host = host,
			.raw_file = base_name(raw_path),
			.mode = raw.mode ? raw.mode : o.from_raw ? "recorded" :
				o.quick ? "quick" : "default",
		};
		struct gpuproj_targets *check = NULL;
		int r = bench_yaml_emit(&raw, &sum, &info, &yaml, &err);

		if (!r) {
			r = gpuproj_targets_load_buffer(yaml, strlen(yaml), out_path, &check, &err);
			gpuproj_targets_free(check);
			if (r)
				fprintf(stderr,
					"gpuproj: bench: internal error: the entry written does "
					"not pass the targets schema:\n");
		}
		/* Keep the measurements even when the entry cannot be written. */
		if (!o.from_raw || strcmp(raw_path, o.from_raw) != 0) {
			if (write_raw(raw_path, text, o.from_raw ? NULL : info.mode, &sum, rows,
				      nrows, t))
				goto out;
		}
		if (r) {
			fail_error(&err);
			goto out;
		}
		if (file_write_atomic(out_path, yaml, strlen(yaml), &err)) {
			fail_error(&err);
			goto out;
		}
	}
	if (strcmp(out_path, "-") != 0)
		fprintf(stderr,
			"\ngpuproj bench: wrote %s (targets entry '%s'; check with `gpuproj "
			"targets check %s`) and %s\n",
			out_path, name, out_path, raw_path);
	/* Files written, but an incomplete run is a failure (estimates stand in). */
	ret = partial ? fail("bench: the run was incomplete: %s lacks or estimates what was not "
			     "measured (its sources say which)", out_path) : EXIT_OK;
out:
	free(yaml);
	free(name);
	free(out_path);
	free(raw_path);
	free(text);
	bench_raw_free(&raw);
	gpuproj_targets_free(ts);
	return ret;
}
