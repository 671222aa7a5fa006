/* SPDX-License-Identifier: MIT */
/*
 * The GPU descriptions as `gpuproj targets list` and `gpuproj targets show`
 * print them (include/gpuproj/target.h: gpuproj_targets_write_list(),
 * gpuproj_target_write_show()); loading and checking is target.c. The
 * field paths `show` prints are the field table's (target-fields.c).
 *
 * Thread safety: reentrant; the descriptions are only read.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/target.h>

#include "target-fields.h"
#include "util.h"
#include "util-escape.h"

/* "*" after a number whose source's basis is `measured`, else " ". */
static const char *
mark(const struct gpuproj_target *t, const char *path)
{
	const struct gpuproj_source *s = gpuproj_target_source(t, path);

	return s && s->basis == GPUPROJ_BASIS_MEASURED ? "*" : " ";
}

int
gpuproj_targets_write_list(FILE *out, const struct gpuproj_targets *ts, const char *origin)
{
	size_t i;

	if (!out || !ts || !origin)
		return GPUPROJ_E_INVAL;
	fprintf(out, "# %zu GPUs from %s; GFLOP/s FMA, GB/s; * = measured, otherwise datasheet, "
		     "derived or estimate (`gpuproj targets show NAME`)\n", gpuproj_targets_count(ts),
		     origin);
	fprintf(out, "%-20s %-7s %5s %6s %9s %9s %8s %8s %8s %8s %6s\n", "name", "arch", "SMs", "MHz",
		     "FP64", "FP32", "DRAM", "L2", "L1", "shared", "L2MiB");
	for (i = 0; i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i);
		bool m64, m32;
		double f64 = gpuproj_target_gflops(t, GPUPROJ_FP64, GPUPROJ_OP_FMA, &m64);
		double f32 = gpuproj_target_gflops(t, GPUPROJ_FP32, GPUPROJ_OP_FMA, &m32);

		fprintf(out, "%-20s %-7s %5d %6.0f %8.0f%s %8.0f%s %7.0f%s %7.0f%s %7.0f%s %7.0f%s %6.1f\n",
			     t->name, t->arch, t->sms, t->clock_mhz, f64, m64 ? "*" : " ", f32,
			     m32 ? "*" : " ", t->bw_gbs[GPUPROJ_LEVEL_DRAM], mark(t, "bw_gbs.dram"),
			     t->bw_gbs[GPUPROJ_LEVEL_L2], mark(t, "bw_gbs.l2"),
			     t->bw_gbs[GPUPROJ_LEVEL_L1], mark(t, "bw_gbs.l1"),
			     t->bw_gbs[GPUPROJ_LEVEL_SHARED], mark(t, "bw_gbs.shared"), t->limits.l2_mib);
	}
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

/*
 * The columns of `targets list` as its JSON and CSV write them: the key
 * (its unit in the name) and the source path whose basis marks it
 * measured (NULL: the FMA rates, whose mark gpuproj_target_gflops() gives).
 */
enum list_col {
	COL_SMS, COL_CLOCK, COL_FP64, COL_FP32, COL_DRAM, COL_L2, COL_L1, COL_SHARED, COL_L2MIB,
	COL_COUNT
};
static const struct {
	const char *key, *path;
} list_cols[COL_COUNT] = {
	{ "sms", NULL },
	{ "clock_mhz", NULL },
	{ "fp64_fma_gflops", NULL },
	{ "fp32_fma_gflops", NULL },
	{ "dram_gbs", "bw_gbs.dram" },
	{ "l2_gbs", "bw_gbs.l2" },
	{ "l1_gbs", "bw_gbs.l1" },
	{ "shared_gbs", "bw_gbs.shared" },
	{ "l2_mib", NULL },
};

/* Row `t`'s numbers in list_cols order, and which of them are measured. */
static void
list_row(const struct gpuproj_target *t, double v[COL_COUNT], bool measured[COL_COUNT])
{
	int c;

	memset(measured, 0, COL_COUNT * sizeof(*measured));
	v[COL_SMS] = t->sms;
	v[COL_CLOCK] = t->clock_mhz;
	v[COL_FP64] = gpuproj_target_gflops(t, GPUPROJ_FP64, GPUPROJ_OP_FMA, &measured[COL_FP64]);
	v[COL_FP32] = gpuproj_target_gflops(t, GPUPROJ_FP32, GPUPROJ_OP_FMA, &measured[COL_FP32]);
	v[COL_DRAM] = t->bw_gbs[GPUPROJ_LEVEL_DRAM];
	v[COL_L2] = t->bw_gbs[GPUPROJ_LEVEL_L2];
	v[COL_L1] = t->bw_gbs[GPUPROJ_LEVEL_L1];
	v[COL_SHARED] = t->bw_gbs[GPUPROJ_LEVEL_SHARED];
	v[COL_L2MIB] = t->limits.l2_mib;
	for (c = 0; c < COL_COUNT; c++) {
		if (list_cols[c].path)
			measured[c] = *mark(t, list_cols[c].path) == '*';
	}
}

int
gpuproj_targets_write_list_json(FILE *out, const struct gpuproj_targets *ts)
{
	json_t *root, *o, *m;
	double v[COL_COUNT];
	bool meas[COL_COUNT];
	char *text;
	size_t i;
	int c, r = GPUPROJ_OK;

	if (!out || !ts)
		return GPUPROJ_E_INVAL;
	root = json_array();
	for (i = 0; root && i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i);

		o = json_object();
		m = json_array();
		if (!o || !m || json_array_append_new(root, o) ||
		    json_object_set_new(o, "name", json_string_lossy(t->name)) ||
		    json_object_set_new(o, "arch", json_string_lossy(t->arch))) {
			json_decref(m);
			r = GPUPROJ_E_NOMEM;
			break;
		}
		list_row(t, v, meas);
		for (c = 0; c < COL_COUNT; c++) {
			json_t *num = c == COL_SMS ? json_integer((json_int_t)v[c])
						   : json_num(v[c]);

			if (json_object_set_new(o, list_cols[c].key, num) ||
			    (meas[c] && json_array_append_new(m, json_string(list_cols[c].key))))
				r = GPUPROJ_E_NOMEM;
		}
		if (json_object_set_new(o, "measured", m))
			r = GPUPROJ_E_NOMEM;
	}
	/* 15 digits: what a double holds exactly in decimal (1067.4, not 1067.4000000000001). */
	text = root && r == GPUPROJ_OK ? json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(15) |
						    JSON_ENSURE_ASCII) : NULL;
	json_decref(root);
	if (!text)
		return GPUPROJ_E_NOMEM;
	if (fputs(text, out) == EOF || fputc('\n', out) == EOF)
		r = GPUPROJ_E_IO;
	free(text);
	return r == GPUPROJ_OK && ferror(out) ? GPUPROJ_E_IO : r;
}

int
gpuproj_targets_write_list_csv(FILE *out, const struct gpuproj_targets *ts)
{
	double v[COL_COUNT];
	bool meas[COL_COUNT];
	size_t i;
	int c, n;

	if (!out || !ts)
		return GPUPROJ_E_INVAL;
	fputs("name,arch", out);
	for (c = 0; c < COL_COUNT; c++)
		fprintf(out, ",%s", list_cols[c].key);
	fputs(",measured\n", out);
	for (i = 0; i < gpuproj_targets_count(ts); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(ts, i);

		csv_write_field(out, t->name);
		fputc(',', out);
		csv_write_field(out, t->arch);
		list_row(t, v, meas);
		for (c = 0; c < COL_COUNT; c++) {
			fputc(',', out);
			if (!isnan(v[c]))
				fprintf(out, "%.15g", v[c]);
		}
		fputc(',', out);
		for (c = 0, n = 0; c < COL_COUNT; c++) {
			if (meas[c])
				fprintf(out, "%s%s", n++ ? ";" : "", list_cols[c].key);
		}
		fputc('\n', out);
	}
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

static void
show_num(FILE *out, const struct gpuproj_target *t, const char *path, double v,
	 const char *unit)
{
	const struct gpuproj_source *s;

	if (isnan(v))
		return;
	s = gpuproj_target_source(t, path);
	fprintf(out, "  %-30s %12.6g %-8s %s\n", path, v, unit, s ? s->text : "");
}

/* An ADD/MUL value gpuproj filled in as FMA / 2 (not written in the file). */
static void
show_add_mul(FILE *out, const struct gpuproj_target *t, const char *path, double v, bool given)
{
	if (given)
		show_num(out, t, path, v, "GFLOP/s");
	else if (!isnan(v))
		fprintf(out, "  %-30s %12.6g %-8s derived: FMA / 2 (FADD, FMUL and FFMA issue at the same "
			     "rate; CUDA C++ Programming Guide)\n", path, v, "GFLOP/s");
}

int
gpuproj_target_write_show(FILE *out, const struct gpuproj_targets *ts,
			  const struct gpuproj_target *t)
{
	const struct gpuproj_target_limits *L;
	const struct target_field *m;
	size_t i, n;
	int p;

	if (!out || !ts || !t)
		return GPUPROJ_E_INVAL;
	L = &t->limits;
	fprintf(out, "%s%s%s%s\n", t->name, t->description ? " (" : "",
		     t->description ? t->description : "", t->description ? ")" : "");
	fprintf(out, "  vendor %s, arch %s, chip %s\n",
		t->vendor == GPUPROJ_VENDOR_NVIDIA ? "nvidia" : "amd", t->arch, t->chip);
	fprintf(out, "  match:");
	for (i = 0; i < t->n_match; i++)
		fprintf(out, " \"%s\"", t->match[i]);
	fprintf(out, "\n\n  %-30s %12s %-8s %s\n", "field", "value", "unit", "source");
	show_num(out, t, "sms", t->sms, "");
	show_num(out, t, "warp_size", t->warp_size, "threads");
	show_num(out, t, "clock_mhz", t->clock_mhz, "MHz");
	show_num(out, t, "boost_clock_mhz", t->boost_clock_mhz, "MHz");
	if (!isnan(t->boost_hold_us))
		show_num(out, t, "boost_hold_us", t->boost_hold_us, "us");
	show_num(out, t, "schedulers_per_sm", t->schedulers_per_sm, "");
	if (gpuproj_target_source(t, "ipc_per_scheduler"))
		show_num(out, t, "ipc_per_scheduler", t->ipc_per_scheduler, "");
	show_num(out, t, "memory_gib", t->memory_gib, "GiB");
	{
		const int v[] = { L->threads_per_sm, L->threads_per_block, L->blocks_per_sm,
				  L->regs_per_sm, L->regs_per_block, L->regs_per_thread,
				  L->reg_alloc_unit, L->smem_per_sm_kib, L->smem_per_block_kib,
				  L->smem_alloc_unit_b, L->smem_reserved_per_block_b };

		/* The integers in struct gpuproj_target_limits order, then l2_mib. */
		m = target_field_members("limits", &n);
		for (i = 0; i < sizeof(v) / sizeof(v[0]) && i < n; i++)
			show_num(out, t, m[i].path, v[i], "");
		show_num(out, t, "limits.l2_mib", L->l2_mib, "MiB");
	}
	/* [prec][kind]: FMA, then ADD/MUL, per precision. */
	m = target_field_members("peak_gflops", &n);
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		show_num(out, t, m[2 * p].path, t->peak_gflops[p][GPUPROJ_OP_FMA], "GFLOP/s");
		show_add_mul(out, t, m[2 * p + 1].path, t->peak_gflops[p][GPUPROJ_OP_ADD_MUL],
			     t->peak_add_mul_given[p]);
	}
	m = target_field_members("max_gflops", &n);
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		show_num(out, t, m[2 * p].path, t->max_gflops[p][GPUPROJ_OP_FMA], "GFLOP/s");
		show_add_mul(out, t, m[2 * p + 1].path, t->max_gflops[p][GPUPROJ_OP_ADD_MUL],
			     t->max_add_mul_given[p]);
	}
	show_num(out, t, "fp32_dense_gflops", t->fp32_dense_gflops, "GFLOP/s");
	show_num(out, t, "sustained_clock_mhz", t->sustained_clock_mhz, "MHz");
	show_num(out, t, "peak_giops.int32_add", t->int32_add_giops, "GIOP/s");
	show_num(out, t, "peak_giops.int32_mad", t->int32_mad_giops, "GIOP/s");
	show_num(out, t, "ldst_shared_gops", t->ldst_shared_gops, "G/s");
	m = target_field_members("lanes_per_sm", &n);
	for (p = 0; p < GPUPROJ_LANE_COUNT; p++)
		show_num(out, t, m[p].path, t->lanes_per_sm[p], "/clk/SM");
	show_num(out, t, "peak_bw_gbs.dram", t->peak_dram_gbs, "GB/s");
	m = target_field_members("stream_gbs", &n);
	for (p = 0; p < GPUPROJ_STREAM_COUNT; p++)
		show_num(out, t, m[p].path, t->stream_gbs[p], "GB/s");
	m = target_field_members("bw_gbs", &n);
	for (p = 0; p < GPUPROJ_LEVEL_COUNT; p++)
		show_num(out, t, m[p].path, t->bw_gbs[p], "GB/s");
	m = target_field_members("latency_ns", &n);
	for (p = 0; p < GPUPROJ_LEVEL_COUNT; p++)
		show_num(out, t, m[p].path, t->latency_ns[p], "ns");
	m = target_field_members("launch_floor_us", &n);
	for (p = 0; p < GPUPROJ_LAUNCH_MODE_COUNT; p++)
		show_num(out, t, m[p].path, t->launch_floor_us[p], "us");
	/* Tensor cores: a null peak is shown as "none" (the GPU has no such path). */
	m = target_field_members("peak_tensor", &n);
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		const struct gpuproj_source *s;
		const char *unit = p == GPUPROJ_TPREC_INT8 ? "GOP/s" : "GFLOP/s";

		if (t->peak_tensor[p] == 0) {
			s = gpuproj_target_source(t, m[p].path);
			fprintf(out, "  %-30s %12s %-8s %s\n", m[p].path, "none", unit,
				s ? s->text : "");
		} else {
			show_num(out, t, m[p].path, t->peak_tensor[p], unit);
		}
	}
	m = target_field_members("max_tensor", &n);
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		show_num(out, t, m[p].path, t->max_tensor[p],
			 p == GPUPROJ_TPREC_INT8 ? "GOP/s" : "GFLOP/s");
	if (isnan(t->price_usd))
		fprintf(out, "  %-30s %12s %-8s %s\n", "price_usd", "unknown", "USD", "");
	show_num(out, t, "price_usd", t->price_usd, "USD");
	if (isnan(t->tdp_w))
		fprintf(out, "  %-30s %12s %-8s %s\n", "tdp_w", "unknown", "W", "");
	show_num(out, t, "tdp_w", t->tdp_w, "W");

	/* The references this entry cites. */
	fprintf(out, "\n  references:\n");
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
			fprintf(out, "  %-10s %s\n", cite, text);
	}
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}
