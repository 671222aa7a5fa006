/* SPDX-License-Identifier: MIT */
/*
 * Benchmark: import a 100 MB Nsight Compute export of the long layout
 * (`ncu --csv`: one row per metric of a launch) and of the raw layout
 * (`--page raw`: one row per launch) of the same launches, on one core.
 * The export is generated in $TMPDIR: 40 kernels, launches of ~40 metrics
 * each (the metrics of `gpuproj ncu-metrics`, a few of the default sections
 * and unmapped ones, auto-scaled units and thousands separators, as ncu
 * prints them). Prints size, time, MB/s and peak memory; checks nothing
 * (speed goals are not tests; the goal: 100 MB in under 10 s); then, each in
 * its own process, the peak memory of importing a 100,000-kernel raw export
 * and of projecting its profile (at most 4x the input). Run with
 * `meson compile -C build bench-import` or `build/tests/bench/bench-import [MB]`.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/project.h>
#include <gpuproj/target.h>

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long
peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* The metrics of one launch: name, unit, value (varied by launch). */
struct metric {
	const char *section, *name, *unit;
	double base;
};

static const struct metric metrics[] = {
	{ "GPU Speed Of Light Throughput", "Duration", "us", 41.9 },
	{ "GPU Speed Of Light Throughput", "DRAM Throughput", "%", 61.2 },
	{ "GPU Speed Of Light Throughput", "L1/TEX Cache Throughput", "%", 30.1 },
	{ "GPU Speed Of Light Throughput", "L2 Cache Throughput", "%", 40.0 },
	{ "GPU Speed Of Light Throughput", "Compute (SM) Throughput", "%", 22.0 },
	{ "GPU Speed Of Light Throughput", "SM Frequency", "Ghz", 1.76 },
	{ "GPU Speed Of Light Throughput", "Elapsed Cycles", "cycle", 73512 },
	{ "Launch Statistics", "Registers Per Thread", "register/thread", 40 },
	{ "Launch Statistics", "Waves Per SM", "", 0.87 },
	{ "Occupancy", "Achieved Occupancy", "%", 71.5 },
	{ "Command line profiler metrics", "gpu__time_duration.sum", "usecond", 41.9 },
	{ "Command line profiler metrics", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
	  "Minst", 2.10 },
	{ "Command line profiler metrics", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
	  "Kinst", 524.29 },
	{ "Command line profiler metrics", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
	  "inst", 0 },
	{ "Command line profiler metrics", "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
	  "inst", 0 },
	{ "Command line profiler metrics", "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
	  "inst", 0 },
	{ "Command line profiler metrics", "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
	  "inst", 0 },
	{ "Command line profiler metrics", "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
	  "inst", 0 },
	{ "Command line profiler metrics", "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
	  "inst", 0 },
	{ "Command line profiler metrics", "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
	  "inst", 0 },
	{ "Command line profiler metrics",
	  "smsp__average_thread_inst_executed_per_inst_executed.ratio", "", 29.5 },
	{ "Command line profiler metrics", "l1tex__t_bytes.sum", "Mbyte", 50.33 },
	{ "Command line profiler metrics", "lts__t_bytes.sum", "Mbyte", 33.55 },
	{ "Command line profiler metrics", "dram__bytes_read.sum", "Mbyte", 16.78 },
	{ "Command line profiler metrics", "dram__bytes_write.sum", "Mbyte", 8.39 },
	{ "Command line profiler metrics", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "",
	  1048576 },
	{ "Command line profiler metrics", "launch__grid_dim_x", "", 4096 },
	{ "Command line profiler metrics", "launch__grid_dim_y", "", 1 },
	{ "Command line profiler metrics", "launch__grid_dim_z", "", 1 },
	{ "Command line profiler metrics", "launch__block_dim_x", "", 256 },
	{ "Command line profiler metrics", "launch__block_dim_y", "", 1 },
	{ "Command line profiler metrics", "launch__block_dim_z", "", 1 },
	{ "Command line profiler metrics", "launch__registers_per_thread", "register/thread", 40 },
	{ "Command line profiler metrics", "launch__shared_mem_per_block_static", "byte/block", 0 },
	{ "Command line profiler metrics", "launch__shared_mem_per_block_dynamic", "Kbyte/block",
	  4.10 },
	{ "Command line profiler metrics", "sm__warps_active.avg.pct_of_peak_sustained_active", "%",
	  71.5 },
	{ "Command line profiler metrics", "sm__cycles_active.avg", "cycle", 66120.5 },
	{ "Command line profiler metrics", "smsp__inst_executed.sum", "Minst", 1.31 },
	{ "Command line profiler metrics", "lts__t_sector_hit_rate.pct", "%", 81.3 },
	{ "Command line profiler metrics", "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
	  "%", 12.9 },
};

#define N_KERNELS 40

/* Measurements vary from launch to launch; launch attributes do not. */
static double
vary(const struct metric *m, size_t launch)
{
	if (strstr(m->name, "launch__") || strstr(m->name, "Registers"))
		return m->base;
	return m->base * (1 + 0.01 * (double)(launch % 7));
}

/* A value as ncu prints it: two decimals, thousands separators. */
static void
print_value(FILE *f, double v)
{
	char buf[64], *dot;
	size_t lead, i;

	snprintf(buf, sizeof(buf), "%.2f", v);
	dot = strchr(buf, '.');
	lead = dot ? (size_t)(dot - buf) : strlen(buf);
	for (i = 0; i < lead; i++) {
		fputc(buf[i], f);
		if ((lead - i - 1) % 3 == 0 && i + 1 < lead)
			fputc(',', f);
	}
	fputs(buf + lead, f);
}

static void
kernel_name(size_t k, char *buf, size_t size)
{
	snprintf(buf, size, "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_%zux128_32x3_nn_"
		 "align4>(cutlass_80_tensorop_s1688gemm_%zux128_32x3_nn_align4::Params)",
		 64 + 32 * k, 64 + 32 * k);
}

/* Write launches until the file reaches `bytes`; returns the launches written. */
static size_t
write_long(const char *path, size_t bytes)
{
	FILE *f = fopen(path, "w");
	size_t launch = 0, m;
	char name[256];

	if (!f)
		return 0;
	fputs("==PROF== Connected to process 4242 (/opt/app/bench)\n", f);
	fputs("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
	      "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","
	      "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n", f);
	while ((size_t)ftell(f) < bytes) {
		kernel_name(launch % N_KERNELS, name, sizeof(name));
		for (m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
			fprintf(f, "\"%zu\",\"4242\",\"bench\",\"127.0.0.1\",\"%s\",\"1\",\"7\","
				"\"(256, 1, 1)\",\"(4096, 1, 1)\",\"0\",\"9.0\",\"%s\",\"%s\",\"%s\",\"",
				launch, name, metrics[m].section, metrics[m].name, metrics[m].unit);
			print_value(f, vary(&metrics[m], launch));
			fputs("\"\n", f);
		}
		launch++;
	}
	fclose(f);
	return launch;
}

static size_t
write_raw(const char *path, size_t launches)
{
	FILE *f = fopen(path, "w");
	size_t launch, m;
	char name[256];

	if (!f)
		return 0;
	fputs("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
	      "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\"", f);
	for (m = 10; m < sizeof(metrics) / sizeof(metrics[0]); m++)
		fprintf(f, ",\"%s\"", metrics[m].name);
	fputs("\n\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"", f);
	for (m = 10; m < sizeof(metrics) / sizeof(metrics[0]); m++)
		fprintf(f, ",\"%s\"", metrics[m].unit);
	fputc('\n', f);
	for (launch = 0; launch < launches; launch++) {
		kernel_name(launch % N_KERNELS, name, sizeof(name));
		fprintf(f, "\"%zu\",\"4242\",\"bench\",\"127.0.0.1\",\"%s\",\"1\",\"7\",\"(256, 1, 1)\","
			"\"(4096, 1, 1)\",\"0\",\"9.0\"", launch, name);
		for (m = 10; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
			fputs(",\"", f);
			print_value(f, vary(&metrics[m], launch));
			fputc('"', f);
		}
		fputc('\n', f);
	}
	fclose(f);
	return launches;
}

/*
 * A `--page raw` export of 100,000 distinct kernels (one
 * launch each, demangled template names, the metrics of `gpuproj
 * ncu-metrics`): about 27 MB. Before streaming, importing it peaked at
 * 1.0 GB (34x) and projecting its profile onto the built-in GPUs at
 * 2.4 GB (CSV 3.4 GB).
 */
static size_t
write_raw_kernels(const char *path, size_t kernels)
{
	static const char *const names[] = {
		"gpu__time_duration.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
		"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
		"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
		"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
		"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
		"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
		"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
		"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
		"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
		"smsp__average_thread_inst_executed_per_inst_executed.ratio", "l1tex__t_bytes.sum",
		"lts__t_bytes.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
		"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "launch__registers_per_thread",
		"sm__warps_active.avg.pct_of_peak_sustained_active",
	};
	static const char *const units[] = {
		"usecond", "inst", "inst", "inst", "inst", "inst", "inst", "inst", "inst", "inst", "",
		"Mbyte", "Mbyte", "Mbyte", "Mbyte", "", "register/thread", "%",
	};
	static const char *const values[] = {
		"41.90", "2100000", "524290", "0", "0", "0", "0", "0", "0", "0", "29.50", "50.33",
		"33.55", "16.78", "8.39", "1048576", "40", "71.50",
	};
	FILE *f = fopen(path, "w");
	size_t k, m, n = sizeof(names) / sizeof(names[0]);

	if (!f)
		return 0;
	fputs("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
	      "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\"", f);
	for (m = 0; m < n; m++)
		fprintf(f, ",\"%s\"", names[m]);
	fputs("\n\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"", f);
	for (m = 0; m < n; m++)
		fprintf(f, ",\"%s\"", units[m]);
	fputc('\n', f);
	for (k = 0; k < kernels; k++) {
		fprintf(f, "\"%zu\",\"4242\",\"bench\",\"127.0.0.1\",\"void stencil_kernel_%zu<float, "
			"256>(float*, float const*, int)\",\"1\",\"7\",\"(256, 1, 1)\","
			"\"(4096, 1, 1)\",\"0\",\"9.0\"", k, k);
		for (m = 0; m < n; m++)
			fprintf(f, ",\"%s\"", values[m]);
		fputc('\n', f);
	}
	fclose(f);
	return kernels;
}

/* Runs `fn` in a child process: its own peak RSS, KiB (or -1), as wait4() reports it. */
static long
in_child(int (*fn)(void *), void *arg)
{
	struct rusage ru;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg) ? 1 : 0);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return ru.ru_maxrss;
}

struct job {
	const char *in, *out, *format;
};

static int
do_import(void *arg)
{
	const struct job *j = arg;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_error err = { 0 };
	char buf[1024];

	/* The export names no GPU: as `--device-name "NVIDIA H100 PCIe"` would. */
	if (gpuproj_import_ncu(j->in, &p, &sum, &err) ||
	    gpuproj_profile_set_device(p, "NVIDIA H100 PCIe", NULL, NULL, 9, 0, 0, NAN) ||
	    gpuproj_profile_save(p, j->out, &err)) {
		fprintf(stderr, "bench-import: %s\n", gpuproj_error_format(&err, buf, sizeof(buf)));
		return 1;
	}
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	return 0;
}

/* As `gpuproj project`: every built-in GPU, the default model, runs one at a time. */
struct provider {
	const struct gpuproj_profile *p;
	const struct gpuproj_targets *t;
	const struct gpuproj_target *src;
	struct gpuproj_run_projection run;
	bool have;
};

static const struct gpuproj_run_projection *
provide(void *ud, size_t i, int *st)
{
	struct provider *pv = ud;

	if (pv->have)
		gpuproj_run_projection_clear(&pv->run);
	pv->have = false;
	*st = gpuproj_project_run(pv->p, gpuproj_model_default(), pv->src,
				  gpuproj_targets_get(pv->t, i), NULL, &pv->run);
	pv->have = !*st;
	return pv->have ? &pv->run : NULL;
}

static int
do_project(void *arg)
{
	const struct job *j = arg;
	struct provider pv = { 0 };
	struct gpuproj_targets *t = NULL;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	struct gpuproj_project_write_options opt = { 0 };
	size_t n;
	FILE *f;
	int r;

	if (gpuproj_targets_load_builtin(&t, &err) || gpuproj_profile_load(j->in, &p, &err) ||
	    gpuproj_resolve_source(p, t, NULL, &pv.src, &err)) {
		fprintf(stderr, "bench-import: %s\n", err.message);
		return 1;
	}
	pv.p = p;
	pv.t = t;
	n = gpuproj_targets_count(t);
	if (strcmp(j->format, "json") == 0) {
		r = gpuproj_project_json_stream("/dev/null", p, pv.src, n, provide, &pv, &opt,
						&err);
	} else {
		f = fopen("/dev/null", "w");
		if (!f)
			r = 1;
		else if (strcmp(j->format, "csv") == 0)
			r = gpuproj_project_csv_stream(f, p, pv.src, n, provide, &pv);
		else
			r = gpuproj_project_table_stream(f, p, pv.src, n, provide, &pv, &opt);
		if (f)
			fclose(f);
	}
	if (pv.have)
		gpuproj_run_projection_clear(&pv.run);
	gpuproj_profile_free(p);
	gpuproj_targets_free(t);
	return r;
}

static void
memory_figures(const char *dir)
{
	char *csv = NULL, *json = NULL;
	struct stat cs, js;
	struct job j;
	long kib;
	double t0;
	size_t i;

	if (asprintf(&csv, "%s/gpuproj-bench-import-%d-100k.csv", dir, (int)getpid()) < 0 ||
	    asprintf(&json, "%s/gpuproj-bench-import-%d-100k.json", dir, (int)getpid()) < 0)
		return;
	write_raw_kernels(csv, 100000);
	stat(csv, &cs);
	printf("\nmemory (goal: at most 4x the input), each step in its own process:\n");
	j = (struct job){ csv, json, NULL };
	t0 = now_s();
	kib = in_child(do_import, &j);
	stat(json, &js);
	printf("  import ncu, --page raw, 100,000 kernels, %.1f MB: peak RSS %.1f MB = %.1fx the "
	       "input (%.2f s; profile JSON %.1f MB)\n", (double)cs.st_size / 1e6,
	       (double)kib * 1024 / 1e6, (double)kib * 1024 / (double)cs.st_size, now_s() - t0,
	       (double)js.st_size / 1e6);
	for (i = 0; i < 3; i++) {
		static const char *const formats[] = { "table", "csv", "json" };

		j = (struct job){ json, NULL, formats[i] };
		t0 = now_s();
		kib = in_child(do_project, &j);
		printf("  project that profile onto every built-in GPU, %-5s: peak RSS %.1f MB = "
		       "%.1fx the input (%.2f s)\n", formats[i], (double)kib * 1024 / 1e6,
		       (double)kib * 1024 / (double)js.st_size, now_s() - t0);
	}
	unlink(csv);
	unlink(json);
	free(csv);
	free(json);
}

static int
run(const char *label, const char *path, size_t launches)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_error err = { 0 };
	struct stat st;
	char buf[1024];
	double t0, t;

	if (stat(path, &st) != 0)
		return 1;
	t0 = now_s();
	if (gpuproj_import_ncu(path, &p, &sum, &err)) {
		fprintf(stderr, "bench-import: %s\n", gpuproj_error_format(&err, buf, sizeof(buf)));
		return 1;
	}
	t = now_s() - t0;
	printf("%-5s %7.1f MB, %zu rows, %zu launches, %zu signatures: %6.2f s, %6.1f MB/s "
	       "(peak RSS %ld MiB)\n", label, (double)st.st_size / 1e6, sum.rows, sum.launches,
	       gpuproj_profile_count(p), t, (double)st.st_size / 1e6 / t, peak_rss_kib() / 1024);
	fflush(stdout);
	if (sum.launches != launches)
		fprintf(stderr, "bench-import: %zu launches imported, %zu written\n", sum.launches,
			launches);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
	return 0;
}

int
main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 100, launches;
	const char *tmp = getenv("TMPDIR");
	char *lpath = NULL, *rpath = NULL;
	int r = 0;

	if (asprintf(&lpath, "%s/gpuproj-bench-import-%d-long.csv", tmp && *tmp ? tmp : "/tmp",
		     (int)getpid()) < 0 ||
	    asprintf(&rpath, "%s/gpuproj-bench-import-%d-raw.csv", tmp && *tmp ? tmp : "/tmp",
		     (int)getpid()) < 0)
		return 1;
	launches = write_long(lpath, mb * 1000000);
	write_raw(rpath, launches);
	printf("gpuproj import ncu, one core (goal: a 100 MB long-layout export in under 10 s)\n");
	r |= run("long", lpath, launches);
	r |= run("raw", rpath, launches);
	unlink(lpath);
	unlink(rpath);
	memory_figures(tmp && *tmp ? tmp : "/tmp");
	free(lpath);
	free(rpath);
	return r;
}
