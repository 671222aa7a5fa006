/* SPDX-License-Identifier: MIT */
/*
 * Benchmark: project N kernel signatures (default 100,000) onto every GPU
 * of the built-in targets.yaml with every model, and time loading and
 * saving their profile JSON. Then hostile whole-run
 * timelines: patterns of one kernel on stream slot 65534 and 4,095 device
 * synchronisations (1 pattern: a 230 KB profile; 16: 3.7 MB), projected
 * onto every GPU with the default model. Prints figures; checks nothing (speed goals are
 * not tests). Run with `meson compile -C build bench` or
 * `build/tests/bench/bench-project [N]`.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>
#include <gpuproj/timeline.h>

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

static long
peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* A replay bounded by its nodes: `n_pat` patterns of a kernel on slot 65534, 4,095 syncs. */
static int
bench_timeline(const struct gpuproj_targets *targets, const struct gpuproj_target *src,
	       size_t n_pat)
{
	struct gpuproj_signature sig = { .name = "_Z1kv", .grid = { 1024, 1, 1 },
					 .block = { 256, 1, 1 } };
	struct gpuproj_profile *p = gpuproj_profile_new();
	struct gpuproj_timeline *tl = gpuproj_timeline_new();
	struct gpuproj_tl_node *nodes = calloc(4096, sizeof(*nodes));
	struct gpuproj_kernel *k;
	struct gpuproj_tl_pattern pat = { 0 };
	double t0, dt;
	size_t i, t;

	if (!p || !tl || !nodes || gpuproj_profile_kernel(p, &sig, &k))
		return 1;
	gpuproj_kernel_add_duration(k, 10000);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_FMA, 1e8);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_DRAM, 1e7);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L2, 1e7);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L1, 1e7);
	k->profiled = 1;
	for (i = 0; i < 4096; i++) {
		struct gpuproj_tl_node *n = &nodes[i];

		n->op = i ? GPUPROJ_TL_SYNC_DEVICE : GPUPROJ_TL_KERNEL;
		n->stream = i ? GPUPROJ_TL_NONE : 65534;
		n->event = GPUPROJ_TL_NONE;
		n->kernel = i ? NULL : k;
		gpuproj_stats_add(&n->gap_ns, 10);
		gpuproj_stats_add(&n->call_ns, 0);
		if (!i) {
			gpuproj_stats_add(&n->lat_ns, 0);
			gpuproj_stats_add(&n->dur_ns, 10000);
		}
	}
	pat.nodes = nodes;
	pat.n_nodes = 4096;
	gpuproj_stats_add(&pat.wall_ns, 10000 + 4096 * 10);
	for (i = 0; i < n_pat; i++) {
		pat.thread = (uint32_t)i; /* another structure per pattern */
		if (gpuproj_timeline_add(tl, &pat, n_pat, SIZE_MAX, NULL))
			return 1;
	}
	tl->span_ns = tl->wall_ns = (double)n_pat * (10000 + 4096 * 10);
	gpuproj_profile_set_timeline(p, tl);
	t0 = now_s();
	for (t = 0; t < gpuproj_targets_count(targets); t++) {
		struct gpuproj_run_projection run;

		if (gpuproj_project_run(p, gpuproj_model_default(), src,
					gpuproj_targets_get(targets, t), NULL, &run))
			return 1;
		gpuproj_run_projection_clear(&run);
	}
	dt = now_s() - t0;
	printf("whole-run timeline, %zu pattern%s x 4,096 nodes (a kernel on stream slot 65534, "
	       "4,095 device synchronisations): %zu targets in %.3f s, %.2f ms per target\n",
	       n_pat, n_pat == 1 ? "" : "s", gpuproj_targets_count(targets), dt,
	       dt / (double)gpuproj_targets_count(targets) * 1e3);
	free(nodes);
	gpuproj_profile_free(p);
	return 0;
}

int
main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000, i, t, m;
	struct gpuproj_profile *p = gpuproj_profile_new(), *q = NULL;
	struct gpuproj_targets *targets = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *src;
	char path[] = "/tmp/gpuproj-bench-XXXXXX.json";
	double t0, t_save, t_load;
	int fd;

	if (gpuproj_targets_load_builtin(&targets, &err)) {
		fprintf(stderr, "bench: %s\n", err.message);
		return 1;
	}
	src = gpuproj_targets_get(targets, 0);
	for (i = 0; i < n; i++) {
		char name[64];
		struct gpuproj_signature sig = { .name = name, .grid = { (uint32_t)(1 + i % 4096), 1, 1 },
						 .block = { 256, 1, 1 } };
		struct gpuproj_kernel *k;
		double bytes = 1e6 + 1e9 * urand();

		snprintf(name, sizeof(name), "_Z%zukernel_%zuPfS_", i % 97, i / 4096);
		if (gpuproj_profile_kernel(p, &sig, &k))
			return 1;
		gpuproj_kernel_add_duration(k, 1e3 + 1e6 * urand());
		gpuproj_kernel_add_duration(k, 1e3 + 1e6 * urand());
		k->profiled = 1;
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_FMA, 1e8 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_ADD, 1e7 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32_MUL, 1e7 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP64_FMA, i % 3 ? 0 : 1e7 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP64_ADD, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP64_MUL, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP16_FMA, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP16_ADD, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP16_MUL, 0);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_WARP_EFFICIENCY, 0.5 + 0.5 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L1, bytes * 3);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_L2, bytes * 2);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_BYTES_DRAM, bytes);
		gpuproj_kernel_add_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS, 1e5 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_WARP, 1e7 * urand());
		/* Inputs of the occupancy and quant models (regs, instruction mix). */
		k->regs_per_thread = 16 + (uint32_t)(i % 48);
		k->smem_static = (uint32_t)(i % 5) * 8192;
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP32, 1.2e8 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_FP64, i % 3 ? 0 : 1e7 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_INT, 1e8 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_INST_LDST, 5e7 * urand());
		gpuproj_kernel_add_metric(k, GPUPROJ_M_OCCUPANCY_ACHIEVED, urand());
	}
	fd = mkstemps(path, 5);
	if (fd < 0)
		return 1;
	close(fd);
	t0 = now_s();
	if (gpuproj_profile_save(p, path, &err)) {
		fprintf(stderr, "bench: %s\n", err.message);
		return 1;
	}
	t_save = now_s() - t0;
	t0 = now_s();
	if (gpuproj_profile_load(path, &q, &err)) {
		fprintf(stderr, "bench: %s\n", err.message);
		return 1;
	}
	t_load = now_s() - t0;
	printf("signatures: %zu, targets: %zu\n", n, gpuproj_targets_count(targets));
	printf("profile JSON: save %.3f s, load %.3f s (%.2f us per signature), peak RSS %ld MiB\n",
	       t_save, t_load, t_load / (double)n * 1e6, peak_rss_kib() / 1024);
	for (m = 0; m < gpuproj_model_count(); m++) {
		const struct gpuproj_model *model = gpuproj_model_at(m);
		size_t ok = 0, calls = 0;
		double t_proj;

		t0 = now_s();
		for (t = 0; t < gpuproj_targets_count(targets); t++) {
			struct gpuproj_run_projection run;

			if (gpuproj_project_run(q, model, src, gpuproj_targets_get(targets, t), NULL,
						&run))
				return 1;
			for (i = 0; i < run.n; i++)
				ok += run.kernels[i].status == GPUPROJ_OK;
			calls += run.n;
			gpuproj_run_projection_clear(&run);
		}
		t_proj = now_s() - t0;
		printf("model %-10s %zu projections in %.3f s: %.1f ns per (signature x target), "
		       "%zu projected; all targets %.2fx the JSON load time\n",
		       gpuproj_model_name(model), calls, t_proj, t_proj / (double)calls * 1e9, ok,
		       t_proj / t_load);
	}
	unlink(path);
	if (bench_timeline(targets, src, 1) || bench_timeline(targets, src, 16))
		return 1;
	gpuproj_profile_free(p);
	gpuproj_profile_free(q);
	gpuproj_targets_free(targets);
	return 0;
}
