/* SPDX-License-Identifier: MIT */
/*
 * `gpuproj bench`'s outputs (bench.h): the comparison of the measured
 * ceilings with the targets.yaml entry, the table printed, and the raw
 * measurements with their summary as JSON. The statistics are
 * bench-stats.c, the entry bench-yaml.c; the CLI only runs and writes.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/target.h>

#include "bench.h"
#include "util-escape.h"
#include "util.h"

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

size_t
bench_rows(const struct bench_summary *s, const struct gpuproj_target *t, struct bench_row *rows,
	   size_t max)
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

#define ROW(...) do { if (n < max) rows[n++] = (struct bench_row){ __VA_ARGS__ }; } while (0)
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
	ROW("bw_gbs.dram", "DRAM (triad)", "GB/s", &s->dram[BENCH_DRAM_TRIAD], s->dram_gbs,
	    t ? t->bw_gbs[GPUPROJ_LEVEL_DRAM] : NAN, "bw_gbs.dram", t ? t->peak_dram_gbs : NAN);
	ROW("stream_gbs.read", "DRAM read", "GB/s", &s->dram[BENCH_DRAM_READ],
	    s->stream_gbs[GPUPROJ_STREAM_READ], t ? t->stream_gbs[GPUPROJ_STREAM_READ] : NAN,
	    "stream_gbs.read", t ? t->peak_dram_gbs : NAN);
	ROW("stream_gbs.copy", "DRAM copy", "GB/s", &s->dram[BENCH_DRAM_COPY],
	    s->stream_gbs[GPUPROJ_STREAM_COPY], t ? t->stream_gbs[GPUPROJ_STREAM_COPY] : NAN,
	    "stream_gbs.copy", t ? t->peak_dram_gbs : NAN);
	ROW("bw_gbs.l2", "L2 (plateau)", "GB/s", NULL, s->l2_gbs,
	    t ? t->bw_gbs[GPUPROJ_LEVEL_L2] : NAN, "bw_gbs.l2", NAN);
	ROW("bw_gbs.l1", "L1", "GB/s", NULL, s->l1_gbs, t ? t->bw_gbs[GPUPROJ_LEVEL_L1] : NAN,
	    "bw_gbs.l1", NAN);
	ROW("bw_gbs.shared", "shared", "GB/s", NULL, s->shared_gbs,
	    t ? t->bw_gbs[GPUPROJ_LEVEL_SHARED] : NAN, "bw_gbs.shared", NAN);
	ROW("latency_ns.l1", "L1 latency", "ns", NULL, s->lat_ns[BENCH_LAT_L1],
	    t ? t->latency_ns[GPUPROJ_LEVEL_L1] : NAN, "latency_ns.l1", NAN);
	ROW("latency_ns.l2", "L2 latency", "ns", NULL, s->lat_ns[BENCH_LAT_L2],
	    t ? t->latency_ns[GPUPROJ_LEVEL_L2] : NAN, "latency_ns.l2", NAN);
	ROW("latency_ns.dram", "DRAM latency", "ns", NULL, s->lat_ns[BENCH_LAT_DRAM],
	    t ? t->latency_ns[GPUPROJ_LEVEL_DRAM] : NAN, "latency_ns.dram", NAN);
	/* targets.yaml's clock_mhz is the sustained one: FP32 FMA rate / (2 x lanes x SMs). */
	ROW("clock_mhz", "SM clock (sustained)", "MHz", NULL,
	    s->sustained_mhz > 0 ? s->sustained_mhz : s->clock_mhz, t ? t->clock_mhz : NAN,
	    "clock_mhz", t ? t->boost_clock_mhz : NAN);
	ROW("boost_clock_mhz", "SM clock (maximum)", "MHz", NULL, s->boost_mhz,
	    t ? t->boost_clock_mhz : NAN, "boost_clock_mhz", NAN);
#undef ROW
	return n;
}

static const struct bench_rate *
row_rate(const struct bench_row *r, const struct bench_summary *s)
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

void
bench_write_table(FILE *f, const struct bench_raw *raw, const struct bench_summary *s,
		  const struct gpuproj_target *t, const char *origin, const struct bench_row *rows,
		  size_t n)
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
		fprintf(f, "SM clock: %.0f MHz median of %zu NVML samples during the FMA runs "
			"(%.0f-%.0f); maximum %.0f MHz\n", s->clock_mhz, s->clock_samples,
			s->clock_lo_mhz, s->clock_hi_mhz, s->boost_mhz);
	else
		fprintf(f, "SM clock: not observed (NVML: %s); maximum %.0f MHz\n",
			d->nvml_reason ? d->nvml_reason : "not available", s->boost_mhz);
	if (s->sustained_mhz > 0)
		fprintf(f, "Sustained clock (targets.yaml clock_mhz): %.1f MHz = FP32 FMA %.1f "
			"GFLOP/s / (2 x %g lanes x %d SMs)%s%s\n", s->sustained_mhz,
			s->fp[GPUPROJ_FP32][BENCH_FOP_FMA].value, s->lanes.v[GPUPROJ_LANE_FP32],
			d->sms, s->lanes.builtin ? "; lanes of " : "; lanes estimated",
			s->lanes.builtin ? s->lanes.entry : "");
	if (t)
		fprintf(f, "targets.yaml entry: %s (%s); basis m measured, s datasheet, d derived, "
			"e estimate\n", t->name, origin);
	else
		fprintf(f, "targets.yaml entry: none matches \"%s\" (%s)\n", d->name, origin);
	fprintf(f, "\n%-20s %11s %-9s %7s %6s %7s %12s %6s\n", "ceiling", "measured", "unit",
		"spread", "MHz", "%peak", "targets.yaml", "ratio");
	for (i = 0; i < n; i++) {
		const struct bench_row *r = &rows[i];
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
					i == BENCH_DRAM_TRIAD ? "  <- stream_gbs.triad = bw_gbs.dram"
					: i == BENCH_DRAM_READ ? "  <- stream_gbs.read"
					: i == BENCH_DRAM_COPY ? "  <- stream_gbs.copy" : "");
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
	if (s->n_lat) {
		static const char *const ln[BENCH_LAT_COUNT] = { "L1", "L2", "DRAM" };

		fprintf(f, "\nLatency, single-thread pointer chase (ns per dependent load, spread, "
			"SM clocks):\n");
		for (i = 0; i < s->n_lat; i++) {
			const struct bench_lat_point *p = &s->lat[i];

			if (p->footprint_b < 1024.0 * 1024)
				fprintf(f, "  %-5s %9.0f KiB ", ln[p->level], p->footprint_b / 1024);
			else
				fprintf(f, "  %-5s %9.1f MiB ", ln[p->level],
					p->footprint_b / (1024.0 * 1024));
			if (!p->ok)
				fprintf(f, "  failed: %s\n", p->m && p->m->error ? p->m->error :
							       "no timed run");
			else if (p->cycles > 0)
				fprintf(f, "%9.1f  %5.1f%%  %6.0f\n", p->ns.median, p->ns.spread_pct,
					p->cycles);
			else
				fprintf(f, "%9.1f  %5.1f%%\n", p->ns.median, p->ns.spread_pct);
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

/* ---- the raw JSON with its summary ---- */

static json_t *
rate_json(const struct bench_rate *r)
{
	if (!r || !r->ok)
		return json_null();
	/* json_num(): NaN and infinities as null (json_real() would give NULL). */
	return json_pack("{s:o, s:o, s:o, s:o, s:I, s:o}", "value", json_num(r->value),
			 "spread_pct", json_num(r->s.spread_pct), "min", json_num(r->s.min),
			 "max", json_num(r->s.max), "runs", (json_int_t)r->s.n, "sm_clock_mhz",
			 r->clock_mhz > 0 ? json_num(r->clock_mhz) : json_null());
}

static json_t *
summary_json(const struct bench_summary *s, const struct bench_row *rows, size_t n,
	     const struct gpuproj_target *t)
{
	static const char *const dn[] = { "init", "read", "copy", "scale", "triad" };
	static const char *const fop[] = { "fma", "add", "mul" };
	json_t *j = json_object(), *fp = json_object(), *dram = json_object(), *l2 = json_array(),
	       *l1 = json_array(), *sh = json_array(), *cmp = json_array();
	char key[32];
	size_t i;
	int p, k, bad = 0;

	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < BENCH_FOP_COUNT; k++) {
			snprintf(key, sizeof(key), "%s_%s", gpuproj_prec_name(p), fop[k]);
			bad |= json_object_set_new(fp, key, rate_json(&s->fp[p][k]));
		}
	}
	for (i = 0; i < BENCH_DRAM_COUNT; i++)
		bad |= json_object_set_new(dram, dn[i], rate_json(&s->dram[i]));
	for (i = 0; i < s->n_l2; i++)
		bad |= json_array_append_new(l2, json_pack("{s:o, s:o}", "footprint_b",
							   json_num(s->l2[i].footprint_b), "rate",
							   rate_json(&s->l2[i].r)));
	for (i = 0; i < s->n_l1; i++)
		bad |= json_array_append_new(l1, json_pack("{s:o, s:o}", "size_b",
							   json_num(s->l1[i].size_b), "rate",
							   rate_json(&s->l1[i].r)));
	for (i = 0; i < s->n_shared; i++)
		bad |= json_array_append_new(sh, json_pack("{s:i, s:o, s:o}", "stride",
						    (int)s->shared[i].stride, "rate",
						    rate_json(&s->shared[i].r), "bytes_per_clk_sm",
						    json_num(s->shared[i].bytes_per_clk_sm)));
	for (i = 0; i < n; i++)
		bad |= json_array_append_new(cmp, json_pack("{s:s, s:s, s:o, s:o, s:o}", "field",
						     rows[i].field, "unit", rows[i].unit,
						     "measured", json_num(rows[i].measured),
						     "targets_yaml", json_num(rows[i].reference),
						     "peak", json_num(rows[i].peak)));
	bad |= json_object_set_new(j, "clock_mhz", json_num(s->clock_mhz));
	bad |= json_object_set_new(j, "clock_observed", json_boolean(s->clock_observed));
	bad |= json_object_set_new(j, "sustained_clock_mhz", json_num(s->sustained_mhz));
	bad |= json_object_set_new(j, "boost_clock_mhz", json_num(s->boost_mhz));
	{
		json_t *ln = json_object(), *use = json_object();

		for (p = 0; p < GPUPROJ_LANE_COUNT; p++)
			bad |= json_object_set_new(ln, gpuproj_lane_name(p),
						   json_num(s->lanes.v[p]));
		bad |= json_object_set_new(ln, "basis",
					   json_string(gpuproj_basis_name(s->lanes.basis)));
		bad |= json_object_set_new(ln, "from", s->lanes.builtin ?
							       json_string(s->lanes.entry) :
							       json_null());
		for (p = 0; p < GPUPROJ_PREC_COUNT; p++)
			bad |= json_object_set_new(use, gpuproj_prec_name(p),
						   json_num(s->lane_use[p]));
		bad |= json_object_set_new(j, "lanes_per_sm", ln);
		bad |= json_object_set_new(j, "fma_lane_use", use);
	}
	bad |= json_object_set_new(j, "fp_gflops", fp);
	bad |= json_object_set_new(j, "int32_add_giops", rate_json(&s->int_add));
	bad |= json_object_set_new(j, "int32_mad_giops", rate_json(&s->int_mad));
	bad |= json_object_set_new(j, "ldst_shared_gops", rate_json(&s->ldst));
	bad |= json_object_set_new(j, "gips", rate_json(&s->gips));
	bad |= json_object_set_new(j, "ipc_per_scheduler", json_num(s->ipc_per_scheduler));
	bad |= json_object_set_new(j, "dram_gbs", dram);
	{
		json_t *st = json_object();

		for (p = 0; p < GPUPROJ_STREAM_COUNT; p++)
			bad |= json_object_set_new(st, gpuproj_stream_name(p),
						   json_num(s->stream_gbs[p]));
		bad |= json_object_set_new(j, "stream_gbs", st);
	}
	bad |= json_object_set_new(j, "bw_dram_gbs", json_num(s->dram_gbs));
	bad |= json_object_set_new(j, "peak_dram_gbs", json_num(s->peak_dram_gbs));
	bad |= json_object_set_new(j, "l2_sweep", l2);
	bad |= json_object_set_new(j, "bw_l2_gbs", json_num(s->l2_gbs));
	bad |= json_object_set_new(j, "l2_drop_pct", json_num(s->l2_drop_pct));
	bad |= json_object_set_new(j, "l1", l1);
	bad |= json_object_set_new(j, "bw_l1_gbs", json_num(s->l1_gbs));
	bad |= json_object_set_new(j, "shared", sh);
	bad |= json_object_set_new(j, "bw_shared_gbs", json_num(s->shared_gbs));
	{
		static const char *const ln[BENCH_LAT_COUNT] = { "l1", "l2", "dram" };
		json_t *pts = json_array(), *ns = json_object(), *cyc = json_object();

		for (i = 0; i < s->n_lat; i++) {
			const struct bench_lat_point *pt = &s->lat[i];

			bad |= json_array_append_new(
				pts, json_pack("{s:s, s:f, s:o, s:o, s:o, s:o, s:I}", "level",
					       ln[pt->level], "footprint_b", pt->footprint_b, "ns",
					       json_num(pt->ns.median), "spread_pct",
					       json_num(pt->ns.spread_pct), "sm_clock_mhz",
					       json_num(pt->clock_mhz), "cycles", json_num(pt->cycles),
					       "runs", (json_int_t)pt->ns.n));
		}
		for (p = 0; p < BENCH_LAT_COUNT; p++) {
			bad |= json_object_set_new(ns, ln[p], json_num(s->lat_ns[p]));
			bad |= json_object_set_new(cyc, ln[p], json_num(s->lat_cycles[p]));
		}
		bad |= json_object_set_new(j, "latency", pts);
		bad |= json_object_set_new(j, "latency_ns", ns);
		bad |= json_object_set_new(j, "latency_cycles", cyc);
	}
	bad |= json_object_set_new(j, "targets_entry", t ? json_string(t->name) : json_null());
	bad |= json_object_set_new(j, "comparison", cmp);
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

int
bench_raw_with_summary(const char *raw_text, const char *mode, const struct bench_summary *s,
		       const struct bench_row *rows, size_t n, const struct gpuproj_target *t,
		       char **ret_text, struct gpuproj_error *err)
{
	json_error_t jerr;
	json_t *root = json_loads(raw_text, 0, &jerr);
	char *out;
	int bad = 0;

	if (!root)
		return error_set(err, GPUPROJ_E_PARSE, NULL, 0, 0,
				 "cannot re-read the raw measurements: %s", jerr.text);
	if (mode && !json_object_get(root, "mode"))
		bad |= json_object_set_new(root, "mode", json_string_lossy(mode));
	bad |= json_object_set_new(root, "gpuproj_version", json_string(GPUPROJ_VERSION));
	bad |= json_object_set_new(root, "summary", summary_json(s, rows, n, t));
	out = bad ? NULL : json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
						  JSON_REAL_PRECISION(12));
	json_decref(root);
	*ret_text = out ? xasprintf("%s\n", out) : NULL;
	free(out);
	if (!*ret_text)
		return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	return GPUPROJ_OK;
}
