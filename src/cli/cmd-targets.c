/* SPDX-License-Identifier: MIT */
/*
 * gpuproj targets list|show NAME|check FILE
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <string.h>

#include <gpuproj/target.h>

#include "cli.h"

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj targets [--targets FILE] list\n"
		"       gpuproj targets [--targets FILE] show NAME\n"
		"       gpuproj targets check FILE\n\n"
		"list   one line per GPU: name, arch, SMs, sustained clock, FP64/FP32 FMA GFLOP/s\n"
		"       and DRAM, L2, L1, shared GB/s as the models use them ('*' = measured value)\n"
		"show   every number of one GPU with its basis and source\n"
		"check  validate a targets file (schema gpuproj-targets/1); prints the first\n"
		"       problem as FILE:LINE:COLUMN: message and exits 1\n\n"
		"Options:\n"
		"  --targets FILE   GPU descriptions (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  -h, --help       show this help\n");
}

static const char *
mark(const struct gpuproj_target *t, const char *path)
{
	const struct gpuproj_source *s = gpuproj_target_source(t, path);

	return s && s->basis == GPUPROJ_BASIS_MEASURED ? "*" : " ";
}

static int
list(const struct gpuproj_targets *ts, const char *origin)
{
	size_t i;

	printf("# %zu GPUs from %s; GFLOP/s FMA, GB/s; * = measured, otherwise datasheet, "
	       "derived or estimate (`gpuproj targets show NAME`)\n", gpuproj_targets_count(ts),
	       origin);
	printf("%-20s %-7s %5s %6s %9s %9s %8s %8s %8s %8s %6s\n", "name", "arch", "SMs", "MHz",
	       "FP64", "FP32", "DRAM", "L2", "L1", "shared", "L2MiB");
	for (i = 0; i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i);
		bool m64, m32;
		double f64 = gpuproj_target_gflops(t, GPUPROJ_FP64, GPUPROJ_OP_FMA, &m64);
		double f32 = gpuproj_target_gflops(t, GPUPROJ_FP32, GPUPROJ_OP_FMA, &m32);

		printf("%-20s %-7s %5d %6.0f %8.0f%s %8.0f%s %7.0f%s %7.0f%s %7.0f%s %7.0f%s %6.1f\n",
		       t->name, t->arch, t->sms, t->clock_mhz, f64, m64 ? "*" : " ", f32,
		       m32 ? "*" : " ", t->bw_gbs[GPUPROJ_LEVEL_DRAM], mark(t, "bw_gbs.dram"),
		       t->bw_gbs[GPUPROJ_LEVEL_L2], mark(t, "bw_gbs.l2"),
		       t->bw_gbs[GPUPROJ_LEVEL_L1], mark(t, "bw_gbs.l1"),
		       t->bw_gbs[GPUPROJ_LEVEL_SHARED], mark(t, "bw_gbs.shared"), t->limits.l2_mib);
	}
	return EXIT_OK;
}

static void
show_num(const struct gpuproj_target *t, const char *path, double v, const char *unit)
{
	const struct gpuproj_source *s;

	if (isnan(v))
		return;
	s = gpuproj_target_source(t, path);
	printf("  %-30s %12.6g %-8s %s\n", path, v, unit, s ? s->text : "");
}

/* An ADD/MUL value gpuproj filled in as FMA / 2 (not written in the file). */
static void
show_add_mul(const struct gpuproj_target *t, const char *group, int p, double v, bool given)
{
	char path[64];

	snprintf(path, sizeof(path), "%s.%s_add_mul", group, gpuproj_prec_name(p));
	if (given)
		show_num(t, path, v, "GFLOP/s");
	else if (!isnan(v))
		printf("  %-30s %12.6g %-8s derived: FMA / 2 (FADD, FMUL and FFMA issue at the same "
		       "rate; CUDA C++ Programming Guide)\n", path, v, "GFLOP/s");
}

static int
show(const struct gpuproj_targets *ts, const char *name)
{
	static const char *const lim[] = {
		"threads_per_sm", "threads_per_block", "blocks_per_sm", "regs_per_sm",
		"regs_per_block", "regs_per_thread", "reg_alloc_unit", "smem_per_sm_kib",
		"smem_per_block_kib", "smem_alloc_unit_b", "smem_reserved_per_block_b",
	};
	static const struct gpuproj_lookup_words words = { .hint = "" };
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *t;
	const struct gpuproj_target_limits *L;
	char path[64];
	size_t i;
	int p;

	if (gpuproj_targets_lookup(ts, name, &words, &t, &err))
		return cli_fail_error(&err);
	L = &t->limits;
	printf("%s%s%s%s\n", t->name, t->description ? " (" : "",
	       t->description ? t->description : "", t->description ? ")" : "");
	printf("  vendor %s, arch %s, chip %s\n", t->vendor == GPUPROJ_VENDOR_NVIDIA ? "nvidia" : "amd",
	       t->arch, t->chip);
	printf("  match:");
	for (i = 0; i < t->n_match; i++)
		printf(" \"%s\"", t->match[i]);
	printf("\n\n  %-30s %12s %-8s %s\n", "field", "value", "unit", "source");
	show_num(t, "sms", t->sms, "");
	show_num(t, "warp_size", t->warp_size, "threads");
	show_num(t, "clock_mhz", t->clock_mhz, "MHz");
	show_num(t, "boost_clock_mhz", t->boost_clock_mhz, "MHz");
	show_num(t, "schedulers_per_sm", t->schedulers_per_sm, "");
	if (gpuproj_target_source(t, "ipc_per_scheduler"))
		show_num(t, "ipc_per_scheduler", t->ipc_per_scheduler, "");
	show_num(t, "memory_gib", t->memory_gib, "GiB");
	{
		const int v[] = { L->threads_per_sm, L->threads_per_block, L->blocks_per_sm,
				  L->regs_per_sm, L->regs_per_block, L->regs_per_thread,
				  L->reg_alloc_unit, L->smem_per_sm_kib, L->smem_per_block_kib,
				  L->smem_alloc_unit_b, L->smem_reserved_per_block_b };

		for (i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
			snprintf(path, sizeof(path), "limits.%s", lim[i]);
			show_num(t, path, v[i], "");
		}
		show_num(t, "limits.l2_mib", L->l2_mib, "MiB");
	}
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		snprintf(path, sizeof(path), "peak_gflops.%s_fma", gpuproj_prec_name(p));
		show_num(t, path, t->peak_gflops[p][GPUPROJ_OP_FMA], "GFLOP/s");
		show_add_mul(t, "peak_gflops", p, t->peak_gflops[p][GPUPROJ_OP_ADD_MUL],
			     t->peak_add_mul_given[p]);
	}
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		snprintf(path, sizeof(path), "max_gflops.%s_fma", gpuproj_prec_name(p));
		show_num(t, path, t->max_gflops[p][GPUPROJ_OP_FMA], "GFLOP/s");
		show_add_mul(t, "max_gflops", p, t->max_gflops[p][GPUPROJ_OP_ADD_MUL],
			     t->max_add_mul_given[p]);
	}
	show_num(t, "peak_giops.int32_add", t->int32_add_giops, "GIOP/s");
	show_num(t, "peak_giops.int32_mad", t->int32_mad_giops, "GIOP/s");
	show_num(t, "ldst_shared_gops", t->ldst_shared_gops, "G/s");
	for (p = 0; p < GPUPROJ_LANE_COUNT; p++) {
		snprintf(path, sizeof(path), "lanes_per_sm.%s", gpuproj_lane_name(p));
		show_num(t, path, t->lanes_per_sm[p], "/clk/SM");
	}
	show_num(t, "peak_bw_gbs.dram", t->peak_dram_gbs, "GB/s");
	for (p = 0; p < GPUPROJ_STREAM_COUNT; p++) {
		snprintf(path, sizeof(path), "stream_gbs.%s", gpuproj_stream_name(p));
		show_num(t, path, t->stream_gbs[p], "GB/s");
	}
	for (p = 0; p < GPUPROJ_LEVEL_COUNT; p++) {
		snprintf(path, sizeof(path), "bw_gbs.%s", gpuproj_level_name(p));
		show_num(t, path, t->bw_gbs[p], "GB/s");
	}
	for (p = 0; p < GPUPROJ_LEVEL_COUNT; p++) {
		snprintf(path, sizeof(path), "latency_ns.%s", gpuproj_level_name(p));
		show_num(t, path, t->latency_ns[p], "ns");
	}
	if (isnan(t->price_usd))
		printf("  %-30s %12s %-8s %s\n", "price_usd", "unknown", "USD", "");
	show_num(t, "price_usd", t->price_usd, "USD");
	if (isnan(t->tdp_w))
		printf("  %-30s %12s %-8s %s\n", "tdp_w", "unknown", "W", "");
	show_num(t, "tdp_w", t->tdp_w, "W");

	/* The references this entry cites. */
	printf("\n  references:\n");
	for (i = 0;; i++) {
		const char *text, *key = gpuproj_targets_reference_at(ts, i, &text);
		char cite[80];
		size_t s;
		bool used = false;

		if (!key)
			break;
		snprintf(cite, sizeof(cite), "[%s]", key);
		for (s = 0; s < t->n_sources && !used; s++)
			used = strstr(t->sources[s].text, cite) != NULL;
		if (used)
			printf("  %-10s %s\n", cite, text);
	}
	return EXIT_OK;
}

int
cmd_targets(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "targets", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL, *origin = NULL, *verb;
	struct gpuproj_targets *ts = NULL;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h': help(stdout); return EXIT_OK;
		case 't': path = optarg; break;
		default: return cli_option_error("targets", c, argv); /* ':' or '?' */
		}
	}
	if (optind >= argc)
		return cli_usage_error("targets", "missing verb: list, show NAME or check FILE");
	verb = argv[optind++];
	if (strcmp(verb, "check") == 0) {
		struct gpuproj_error err = { 0 };

		if (optind != argc - 1)
			return cli_usage_error("targets", "check needs exactly one FILE");
		if (gpuproj_targets_load(argv[optind], &ts, &err))
			return cli_fail_error(&err);
		printf("%s: OK, %zu GPUs, schema %s\n", argv[optind], gpuproj_targets_count(ts),
		       GPUPROJ_TARGETS_SCHEMA);
		gpuproj_targets_free(ts);
		return EXIT_OK;
	}
	if (strcmp(verb, "list") == 0) {
		if (optind != argc)
			return cli_usage_error("targets", "list takes no argument");
	} else if (strcmp(verb, "show") == 0) {
		if (optind != argc - 1)
			return cli_usage_error("targets", "show needs exactly one NAME");
	} else {
		return cli_usage_error("targets", "unknown verb '%s': list, show NAME or check "
				       "FILE", verb);
	}
	if (cli_load_targets(path, &ts, &origin))
		return EXIT_FAIL;
	ret = strcmp(verb, "list") == 0 ? list(ts, origin) : show(ts, argv[optind]);
	gpuproj_targets_free(ts);
	return ret;
}
