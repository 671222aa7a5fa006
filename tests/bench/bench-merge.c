/* SPDX-License-Identifier: MIT */
/*
 * Benchmark: merge RANKS rank files (default 4,096) of SIGS kernel
 * signatures each (default 500) with gpuproj_merge_files() and with
 * `gpuproj merge` (which also projects the job onto every GPU of the
 * built-in targets.yaml and writes it), and report time and peak RSS of
 * each, next to the peak RSS of loading a single rank file.
 *
 * The rank files look like what libproj.so writes: "NVIDIA H100 PCIe",
 * every signature with timing statistics and 19 metrics, about 1 kB of
 * JSON per signature. Ten signatures in fifty run only on every eighth
 * rank, so the zero-filled rank statistics are exercised.
 *
 * Usage: bench-merge [GPUPROJ_EXE [RANKS [SIGS [DIR]]]]; files go to a new
 * directory under DIR (default $TMPDIR or /tmp) and are removed afterwards.
 * Each measurement runs in a child process so its peak RSS is its own.
 * Prints figures; checks nothing (`meson compile -C build bench-merge`).
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

#include <gpuproj/merge.h>
#include <gpuproj/profile.h>

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Deterministic pseudo-random numbers (xorshift64*). */
static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static double
urand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static int
write_rank(const char *path, size_t rank, size_t sigs)
{
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_error err = { 0 };
	const char *argv[] = { "/apps/lulesh/lulesh2.0", "-s", "80", NULL };
	char host[32];
	size_t i, j;
	int r;

	snprintf(host, sizeof(host), "node%04zu", rank / 4);
	if (!p || gpuproj_profile_set_device(p, "NVIDIA H100 PCIe", NULL, "GH100", 9, 0, 114,
					     1.755e9) ||
	    gpuproj_profile_set_process(p, "/apps/lulesh/lulesh2.0", host, 10000 + (int64_t)rank,
					(int64_t)rank, argv) ||
	    gpuproj_profile_set_attr(p, "origin", "injection"))
		return 1;
	for (i = 0; i < sigs; i++) {
		char name[96];
		struct gpuproj_signature sig = { .name = name,
						 .grid = { (uint32_t)(64 + i), 1, 1 },
						 .block = { 256, 1, 1 },
						 .device = (int)(rank % 4) };
		struct gpuproj_kernel *k;
		uint64_t launches = 50 + (uint64_t)(urand() * 100);
		double mean = 1e4 + 1e5 * (double)(i % 17) + 1e3 * urand();
		double bytes = 1e6 + 1e8 * (double)(i % 13);

		if (i % 50 == 49 && rank % 8 != 0)
			continue;
		snprintf(name, sizeof(name), "_ZN6lulesh%zukernel_%zuIdEEvPKT_PS1_i", i % 7, i);
		if (gpuproj_profile_kernel(p, &sig, &k))
			return 1;
		for (j = 0; j < launches; j++)
			gpuproj_kernel_add_duration(k, mean * (0.95 + 0.1 * urand()));
		k->profiled = 1;
		k->regs_per_thread = 64;
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP64_FMA, 1e8);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP64_ADD, 2e7);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP64_MUL, 2e7);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_FMA, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_ADD, 1e5);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_MUL, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP16_FMA, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP16_ADD, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP16_MUL, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_WARP_EFFICIENCY, 0.9);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L1, bytes * 3);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L2, bytes * 2);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_DRAM, bytes);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS, 1e5);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_WARP, 5e6);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_THREAD, 1.5e8);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_OCCUPANCY_ACHIEVED, 0.6);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_CYCLES_SM_ACTIVE, 1e6);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_CLOCK_SM, 1.755e9);
	}
	r = gpuproj_profile_save(p, path, &err);
	if (r)
		fprintf(stderr, "bench-merge: %s: %s\n", path, err.message);
	gpuproj_profile_free(p);
	return r;
}

/* CPU time (user + system) of the last measure(), s: robust on a busy machine. */
static double cpu_s;

/* Run fn in a child; return its exit status, wall time and peak RSS (KiB). */
static int
measure(int (*fn)(void *), void *arg, double *ret_s, long *ret_kib)
{
	struct rusage ru;
	double t0 = now_s();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	*ret_s = now_s() - t0;
	*ret_kib = ru.ru_maxrss;
	cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct job {
	char **paths;
	size_t n;
	const char *exe;
	const char *out;
	unsigned threads;
};

static int
do_load_one(void *arg)
{
	struct job *j = arg;
	struct gpuproj_profile *p = NULL;

	return gpuproj_profile_load(j->paths[0], &p, NULL) ? 1 : 0;
}

static int
do_merge_lib(void *arg)
{
	struct job *j = arg;
	struct gpuproj_merge_options o = { .threads = j->threads };
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };

	if (gpuproj_merge_files((const char *const *)j->paths, j->n, &o, &p, &err)) {
		fprintf(stderr, "bench-merge: %s: %s\n", err.file, err.message);
		return 1;
	}
	if (gpuproj_profile_count(p) == 0)
		return 1;
	gpuproj_profile_free(p);
	return 0;
}

static int
do_merge_cli(void *arg)
{
	struct job *j = arg;
	char **argv = calloc(j->n + 6, sizeof(*argv));
	size_t i, a = 0;

	if (!argv)
		return 1;
	argv[a++] = (char *)j->exe;
	argv[a++] = (char *)"merge";
	for (i = 0; i < j->n; i++)
		argv[a++] = j->paths[i];
	argv[a++] = (char *)"-o";
	argv[a++] = (char *)j->out;
	argv[a] = NULL;
	/* Use the built-in targets.yaml, whatever the environment says. */
	unsetenv("GPUPROJ_TARGETS");
	execv(j->exe, argv);
	perror("bench-merge: execv");
	return 127;
}

int
main(int argc, char **argv)
{
	const char *exe = argc > 1 ? argv[1] : NULL;
	size_t ranks = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096;
	size_t sigs = argc > 3 ? strtoul(argv[3], NULL, 10) : 500;
	const char *base = argc > 4 ? argv[4] : getenv("TMPDIR");
	char *dir, *out;
	struct job job = { 0 };
	double t0, t_gen, t;
	long kib;
	uint64_t bytes = 0;
	size_t i;
	struct stat st;
	int rc = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("online CPUs: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));

	if (!ranks || !sigs) {
		fprintf(stderr, "usage: bench-merge [GPUPROJ_EXE [RANKS [SIGS [DIR]]]]\n");
		return 2;
	}
	if (asprintf(&dir, "%s/gpuproj-bench-merge-XXXXXX", base && *base ? base : "/tmp") < 0 ||
	    !mkdtemp(dir) || asprintf(&out, "%s/job.json", dir) < 0)
		return 1;
	job.paths = calloc(ranks, sizeof(*job.paths));
	if (!job.paths)
		return 1;
	job.n = ranks;
	job.exe = exe;
	job.out = out;

	t0 = now_s();
	for (i = 0; i < ranks; i++) {
		if (asprintf(&job.paths[i], "%s/rank-%05zu.json", dir, i) < 0 ||
		    write_rank(job.paths[i], i, sigs))
			return 1;
		if (stat(job.paths[i], &st) == 0)
			bytes += (uint64_t)st.st_size;
	}
	t_gen = now_s() - t0;
	printf("rank files: %zu x %zu signatures, %.2f GiB of JSON (%.0f kB per rank), written "
	       "in %.1f s\n", ranks, sigs, (double)bytes / (1 << 30),
	       (double)bytes / (double)ranks / 1e3, t_gen);

	if (measure(do_load_one, &job, &t, &kib) != 0) {
		fprintf(stderr, "bench-merge: loading one rank failed\n");
		rc = 1;
	} else {
		printf("load one rank file:           %7.3f s (CPU %7.3f s), peak RSS %6.1f MiB "
		       "(process baseline)\n", t, cpu_s, (double)kib / 1024);
	}
	for (i = 0; i < 2; i++) {
		/* One loader thread, then the default (one per CPU, at most 8). */
		job.threads = i == 0 ? 1 : 0;
		if (measure(do_merge_lib, &job, &t, &kib) != 0) {
			fprintf(stderr, "bench-merge: gpuproj_merge_files failed\n");
			rc = 1;
			continue;
		}
		printf("gpuproj_merge_files() %-8s %7.3f s (CPU %7.3f s), peak RSS %6.1f MiB, "
		       "%.2f ms per rank, %.0f MB/s of JSON\n", i == 0 ? "1 thr:" : "auto:", t, cpu_s,
		       (double)kib / 1024, t / (double)ranks * 1e3, (double)bytes / t / 1e6);
	}
	if (exe) {
		int st_cli = measure(do_merge_cli, &job, &t, &kib);

		if (st_cli != 0) {
			fprintf(stderr, "bench-merge: gpuproj merge exited with %d\n", st_cli);
			rc = 1;
		} else {
			stat(out, &st);
			printf("gpuproj merge -o job.json:    %7.3f s (CPU %7.3f s), peak RSS %6.1f MiB "
			       "(merge, project onto every built-in target, write %.1f MB)\n", t,
			       cpu_s, (double)kib / 1024, (double)st.st_size / 1e6);
		}
	}
	for (i = 0; i < ranks; i++) {
		unlink(job.paths[i]);
		free(job.paths[i]);
	}
	free(job.paths);
	unlink(out);
	rmdir(dir);
	free(out);
	free(dir);
	return rc;
}
