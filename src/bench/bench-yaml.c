/* SPDX-License-Identifier: MIT */
/*
 * gpuproj bench: write the measured GPU as a complete targets file (schema
 * gpuproj-targets/1, docs/targets-schema.md) with one entry, through the
 * entry writer `gpuproj targets derive` uses too (target-emit.c).
 *
 * The entry is on the one basis of the repository's targets.yaml
 * (docs/targets-schema.md, "One basis per level"; checked with
 * gpuproj_target_check_one_basis()): clock_mhz is the SM clock sustained
 * under full FMA load, derived from the measured FP32 FMA rate and the FP32
 * lanes; boost_clock_mhz is the driver's maximum clock (datasheet) and the
 * peaks are computed at it; lanes_per_sm are those of the built-in
 * targets.yaml for the CC, with the same source text and references;
 * bw_gbs.dram is the measured STREAM triad, stream_gbs read/copy/triad the
 * STREAM-like runs, latency_ns the pointer chase.
 *
 * Bases: every number the micro-benchmarks produce is "measured: ...
 * [BENCH]" (BENCH = this run: tool, date, host, device, driver); numbers
 * the driver reports (SMs, limits, memory, maximum clock, NVML's default
 * power limit) are "datasheet: device-reported ... [BENCH]"; constants no
 * API reports come from the CUDA Programming Guide [PG] or the occupancy
 * calculator [OCC], cited with the built-in targets.yaml's own reference
 * texts; the vendor peaks and the sustained clock are "derived:". What
 * cannot be measured (price, other spellings of the name, the exact chip)
 * is null or guessed and named in the header comment.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "target-chips.h"
#include "target-emit.h"
#include "util.h"

/* Fallback citations, for a built-in targets.yaml without these keys. */
static const char ref_pg[] =
	"NVIDIA CUDA C++ Programming Guide, https://docs.nvidia.com/cuda/cuda-c-programming-guide/ "
	": "
	"'Arithmetic Instructions' (FMA results per clock per SM: FP32 64 on CC 7.0-8.0 and 128 on "
	"CC 8.6-10.0; FP64 32 on 7.0/8.0, 64 on 9.0/10.0, 2 on 7.5/8.6/8.9; FP16 non-tensor 128 on "
	"7.x/8.6/8.9, 256 on 8.0/9.0/10.0), 'Features and Technical Specifications' (255 registers "
	"per thread)";
static const char ref_occ[] =
	"NVIDIA CUDA Toolkit header include/cuda_occupancy.h (the occupancy calculator): "
	"cudaOccSubPartitionsPerMultiprocessor = 4 (warp schedulers per SM, CC 7 to 10), "
	"cudaOccRegAllocationGranularity = 256 registers per warp, "
	"cudaOccSMemAllocationGranularity = 256 B (CC 7.x) and 128 B (CC 8.0 and later)";

char *
bench_entry_name(const char *device_name)
{
	const char *s = device_name ? device_name : "";
	char *out, *o;

	while (*s == ' ')
		s++;
	if (strncmp(s, "NVIDIA ", 7) == 0 && s[7])
		s += 7;
	out = malloc(strlen(s) + 2);
	if (!out)
		return NULL;
	for (o = out; *s; s++) {
		bool ok = isalnum((unsigned char)*s) || strchr("._+-", *s);

		if (ok)
			*o++ = *s;
		else if (o > out && o[-1] != '-')
			*o++ = '-';
	}
	while (o > out && o[-1] == '-')
		o--;
	*o = '\0';
	if (o == out) {
		free(out);
		return strdup("GPU");
	}
	return out;
}

/* A source line: `      path: "text"`. */
static void
source(struct target_emit *w, const char *path, const char *fmt, ...) GPUPROJ_PRINTF(3, 4);

static void
source(struct target_emit *w, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	target_emit_vsource(w, path, fmt, ap);
	va_end(ap);
}

/* "median of 15 runs, IQR 0.4%, SM clock 1410 MHz" (the memory clock for DRAM) */
static void
rate_note(char *buf, size_t size, const struct bench_rate *r)
{
	int n = snprintf(buf, size, "median of %zu runs, IQR %.1f%%", r->s.n, r->s.spread_pct);
	const struct bench_meas *m = r->m;

	if (n <= 0 || (size_t)n >= size)
		return;
	if (m && m->family && strcmp(m->family, "dram") == 0) {
		struct bench_stats mem;

		bench_stats_compute(m->mem_mhz, m->mem_mhz ? m->n : 0, &mem);
		if (mem.n)
			snprintf(buf + n, size - (size_t)n, ", memory clock %.0f MHz", mem.median);
	} else if (r->clock_mhz > 0) {
		snprintf(buf + n, size - (size_t)n, ", SM clock %.0f MHz", r->clock_mhz);
	}
}

static const char *
mib(double bytes, char *buf, size_t size)
{
	if (bytes >= 1024.0 * 1024 * 1024)
		snprintf(buf, size, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
	else if (bytes >= 1024.0 * 1024)
		snprintf(buf, size, "%.1f MiB", bytes / (1024.0 * 1024));
	else
		snprintf(buf, size, "%.0f KiB", bytes / 1024.0);
	return buf;
}

/* Round to one decimal, the way the values are printed (so sources can repeat them). */
static double
r1(double v)
{
	return round(v * 10) / 10;
}

struct emit {
	const struct bench_raw *raw;
	const struct bench_device *d;
	const struct bench_summary *s;
	const struct gpuproj_targets *builtin; /* reference texts, or NULL */
	double clock;                   /* clock_mhz as written */
	enum gpuproj_basis clock_basis;
	double boost;                   /* boost_clock_mhz as written, NaN: none */
	double peak_clock;              /* the clock the peaks and estimates use */
	bool lanes;                     /* lanes_per_sm written */
	double bw[GPUPROJ_LEVEL_COUNT]; /* bw_gbs as written */
	bool bw_measured[GPUPROJ_LEVEL_COUNT];
	double triad;                   /* stream_gbs.triad as written (= bw_gbs.dram) */
	const char *dram_estimate;      /* how an unmeasured triad was estimated, or NULL */
	double peak[GPUPROJ_PREC_COUNT];
	bool peak_derived;
	double max_fma[GPUPROJ_PREC_COUNT]; /* max_gflops.<p>_fma as written, NaN: none */
	bool max_derived;               /* some max_gflops.<p>_fma is derived from the lanes */
	double add_mul[GPUPROJ_PREC_COUNT];
	double dense;                   /* fp32_dense_gflops as written, NaN: none */
	const struct gpuproj_target *dense_sib; /* the built-in entry it comes from, or NULL */
	double sustained;               /* sustained_clock_mhz as written */
	bool sustained_measured;        /* NVML's clock during the FP32 FMA loops */
	double lat[GPUPROJ_LEVEL_COUNT]; /* latency_ns as written, NaN: none */
	char lat_dropped[160];           /* latencies measured but not written, and why */
};

/* clock_mhz: the sustained clock of the FP32 FMA rate, else what NVML logged, else the maximum. */
static int
choose_clock(struct emit *e, struct gpuproj_error *err)
{
	const struct bench_summary *s = e->s;

	if (s->sustained_mhz > 0) {
		e->clock = r1(s->sustained_mhz);
		e->clock_basis = GPUPROJ_BASIS_DERIVED;
	} else if (s->clock_observed) {
		e->clock = r1(s->clock_mhz);
		e->clock_basis = GPUPROJ_BASIS_MEASURED;
	} else {
		e->clock = r1(s->clock_mhz);
		e->clock_basis = GPUPROJ_BASIS_DATASHEET;
	}
	if (!(e->clock > 0))
		return error_set(err, GPUPROJ_E_MISSING, NULL, 0, 0,
				 "no SM clock: neither observed nor reported by the device");
	e->boost = s->boost_mhz > 0 ? s->boost_mhz : NAN;
	e->peak_clock = e->boost > 0 ? e->boost : e->clock;
	e->lanes = s->lanes.basis != GPUPROJ_BASIS_NONE;
	return GPUPROJ_OK;
}

/* Required bandwidths; a level that was not measured gets a labelled estimate. */
static int
choose_bandwidths(struct emit *e, struct gpuproj_error *err)
{
	const struct bench_summary *s = e->s;
	const struct bench_device *d = e->d;
	int l;

	e->bw[GPUPROJ_LEVEL_DRAM] = s->dram_gbs;
	e->bw[GPUPROJ_LEVEL_L2] = s->l2_gbs;
	e->bw[GPUPROJ_LEVEL_L1] = s->l1_gbs;
	e->bw[GPUPROJ_LEVEL_SHARED] = s->shared_gbs;
	for (l = 0; l < GPUPROJ_LEVEL_COUNT; l++)
		e->bw_measured[l] = e->bw[l] > 0;
	if (!e->bw_measured[GPUPROJ_LEVEL_DRAM]) {
		/* The triad failed: its estimate stands for both (one basis, one value). */
		if (s->stream_gbs[GPUPROJ_STREAM_COPY] > 0) {
			e->bw[GPUPROJ_LEVEL_DRAM] = s->stream_gbs[GPUPROJ_STREAM_COPY];
			e->dram_estimate = "taken equal to the measured copy rate (stream_gbs.copy; "
					   "one write stream each, they differ by about 1% where both "
					   "were measured, e.g. A100 [BENCH])";
		} else if (s->peak_dram_gbs > 0) {
			e->bw[GPUPROJ_LEVEL_DRAM] = 0.9 * s->peak_dram_gbs;
			e->dram_estimate = "0.9 x the derived peak (peak_bw_gbs.dram)";
		} else {
			return error_set(err, GPUPROJ_E_MISSING, NULL, 0, 0,
					 "no DRAM bandwidth was measured and the device reports "
					 "no memory clock to estimate it from: cannot write a "
					 "complete targets.yaml entry");
		}
	}
	/* Estimates are computed from the numbers as written. */
	e->bw[GPUPROJ_LEVEL_DRAM] = r1(e->bw[GPUPROJ_LEVEL_DRAM]);
	e->triad = e->bw[GPUPROJ_LEVEL_DRAM];
	if (!e->bw_measured[GPUPROJ_LEVEL_L2])
		e->bw[GPUPROJ_LEVEL_L2] = 2.5 * e->bw[GPUPROJ_LEVEL_DRAM];
	if (!e->bw_measured[GPUPROJ_LEVEL_L1])
		e->bw[GPUPROJ_LEVEL_L1] = target_chip_l1_bytes_per_clk(d->cc_major, d->cc_minor) *
					  d->sms * e->peak_clock / 1000;
	if (!e->bw_measured[GPUPROJ_LEVEL_SHARED])
		e->bw[GPUPROJ_LEVEL_SHARED] = 128.0 * d->sms * e->peak_clock / 1000;
	for (l = 0; l < GPUPROJ_LEVEL_COUNT; l++)
		e->bw[l] = r1(e->bw[l]);
	return GPUPROJ_OK;
}

/*
 * peak_gflops: 2 x lanes x SMs x boost clock where the lanes are known, else
 * the measured FMA rate; max_gflops.<p>_fma: the measured rate, else
 * 2 x lanes x SMs x clock_mhz.
 */
static int
choose_peaks(struct emit *e, struct gpuproj_error *err)
{
	const struct bench_lanes *ln = &e->s->lanes;
	int p;

	e->peak_derived = e->lanes;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		const struct bench_rate *f = &e->s->fp[p][BENCH_FOP_FMA];

		e->max_fma[p] = f->ok ? f->value : NAN;
		if (!f->ok && e->lanes) {
			e->max_fma[p] = r1(2.0 * ln->v[p] * e->d->sms * e->clock / 1000);
			e->max_derived = true;
		}
		if (e->peak_derived) {
			e->peak[p] = r1(2.0 * ln->v[p] * e->d->sms * e->peak_clock / 1000);
		} else if (f->ok) {
			e->peak[p] = r1(f->value);
		} else {
			return error_set(
				err, GPUPROJ_E_MISSING, NULL, 0, 0,
				"CC %d.%d is not in the built-in targets.yaml, its FMA lanes per SM "
				"could not be estimated and %s FMA was not measured: cannot fill "
				"peak_gflops.%s_fma",
				e->d->cc_major, e->d->cc_minor, gpuproj_prec_name(p),
				gpuproj_prec_name(p));
		}
	}
	return GPUPROJ_OK;
}

/*
 * fp32_dense_gflops and sustained_clock_mhz (docs/targets-schema.md, "One
 * basis per level"). No SGEMM runs here: the dense rate is that of the
 * built-in entry whose lanes were taken, as its fraction of its FP32 FMA
 * rate (at most 1) x the one measured here, at most the peak (derived, naming it), else
 * the measured FMA rate (an estimate:
 * no loss assumed). The sustained clock is NVML's median SM clock during
 * the FP32 FMA loops (measured), else clock_mhz; never above the highest of
 * boost and clock_mhz.
 */
static void
choose_dense_clock(struct emit *e)
{
	const struct bench_summary *s = e->s;
	const struct bench_rate *f32 = &s->fp[GPUPROJ_FP32][BENCH_FOP_FMA];
	const struct gpuproj_target *sib = NULL;
	double top = e->boost > 0 ? fmax(e->boost, e->clock) : e->clock;

	if (e->builtin && s->lanes.builtin)
		sib = gpuproj_targets_find(e->builtin, s->lanes.entry);
	e->dense_sib = NULL;
	if (sib && sib->fp32_dense_gflops > 0 && e->max_fma[GPUPROJ_FP32] > 0) {
		e->dense = r1(fmin(fmin(1.0, sib->fp32_dense_gflops /
						  sib->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA]) *
					   e->max_fma[GPUPROJ_FP32],
				   e->peak[GPUPROJ_FP32]));
		e->dense_sib = sib;
	} else {
		e->dense = fmin(e->max_fma[GPUPROJ_FP32], e->peak[GPUPROJ_FP32]);
	}
	e->sustained_measured = f32->ok && f32->clock_mhz > 0;
	e->sustained = e->sustained_measured ? r1(fmin(f32->clock_mhz, top)) : e->clock;
}

/* latency_ns: the measured levels, kept only while they grow from L1 to L2 to DRAM. */
static void
choose_latencies(struct emit *e)
{
	static const enum bench_lat_level from[] = { BENCH_LAT_L1, BENCH_LAT_L2, BENCH_LAT_DRAM };
	static const enum gpuproj_level to[] = { GPUPROJ_LEVEL_L1, GPUPROJ_LEVEL_L2,
						 GPUPROJ_LEVEL_DRAM };
	double prev = 0;
	size_t i, n = 0;

	for (i = 0; i < GPUPROJ_LEVEL_COUNT; i++)
		e->lat[i] = NAN;
	for (i = 0; i < ARRAY_LENGTH(from); i++) {
		double v = e->s->lat_ns[from[i]];

		if (!(v > 0))
			continue;
		v = r1(v);
		if (v <= prev) {
			/* A footprint that did not reach its level (or a disturbed run). */
			n += (size_t)snprintf(e->lat_dropped + n, sizeof(e->lat_dropped) - n,
					      "%s%s %.1f ns is not longer than the level above",
					      n ? "; " : "", gpuproj_level_name(to[i]), v);
			if (n >= sizeof(e->lat_dropped))
				n = sizeof(e->lat_dropped) - 1;
			continue;
		}
		e->lat[to[i]] = v;
		prev = v;
	}
}

/* Every [KEY] cited in text, in order of first appearance, without duplicates. */
static size_t
cited_keys(const char *text, char keys[][32], size_t max)
{
	size_t n = 0, i, len;
	const char *p, *q;

	for (p = strchr(text, '['); p; p = strchr(p + 1, '[')) {
		for (q = p + 1; *q && (isalnum((unsigned char)*q) || *q == '-' || *q == '_'); q++)
			;
		len = (size_t)(q - p - 1);
		if (*q != ']' || len == 0 || len >= sizeof(keys[0]))
			continue;
		for (i = 0; i < n; i++) {
			if (strncmp(keys[i], p + 1, len) == 0 && keys[i][len] == '\0')
				break;
		}
		if (i == n && n < max) {
			memcpy(keys[n], p + 1, len);
			keys[n++][len] = '\0';
		}
	}
	return n;
}

static void
emit_header(struct strbuf *sb, struct emit *e, const struct bench_yaml_info *info,
	    const char *chip, bool chip_exact)
{
	const struct bench_device *d = e->d;
	const struct bench_summary *s = e->s;
	int l, p;

	strbuf_printf(sb, "# targets.yaml entry written by gpuproj bench %s on %s, %s "
		      "(%s mode; method: docs/bench.md).\n", info->version, info->host, info->date,
		      info->mode);
	strbuf_append(
		sb, "# Check: gpuproj targets check --one-basis FILE. To use it, merge the entry "
		    "and the references it\n# cites into your targets.yaml (or pass --targets "
		    "FILE).\n#\n");
	strbuf_append(sb,
		      "# measured [BENCH]: ipc_per_scheduler, max_gflops, peak_giops, "
		      "ldst_shared_gops, stream_gbs, bw_gbs,\n#   latency_ns\n");
	strbuf_printf(sb, "# derived: clock_mhz (%s), peak_gflops (%s)%s\n",
		      e->clock_basis == GPUPROJ_BASIS_DERIVED
			      ? "the FP32 FMA rate / (2 x FP32 lanes x sms): the sustained clock"
		      : e->clock_basis == GPUPROJ_BASIS_MEASURED ? "not derived: NVML's clock"
							       : "not derived: the maximum clock",
		      e->peak_derived ? "2 x lanes_per_sm x sms x boost_clock_mhz"
				      : "the measured FMA rate: no lanes for this CC",
		      s->peak_dram_gbs > 0 ? ", peak_bw_gbs.dram (memory clock x bus width)" : "");
	strbuf_append(sb, "# device-reported [BENCH]: sms, warp_size, memory_gib, limits, "
		      "boost_clock_mhz");
	strbuf_append(sb, d->nvml && d->power_limit_w > 0 ? ", tdp_w (NVML default power limit)\n"
							  : "\n");
	if (s->lanes.builtin && s->lanes.by_name)
		strbuf_printf(sb, "# lanes_per_sm: this GPU's own built-in targets.yaml entry's (%s, "
			      "%s), with its source and references\n", s->lanes.entry,
			      gpuproj_basis_name(s->lanes.basis));
	else if (s->lanes.builtin)
		strbuf_printf(sb, "# lanes_per_sm: CC %d.%d's in the built-in targets.yaml (as %s, "
			      "%s), with its source and references\n", d->cc_major, d->cc_minor,
			      s->lanes.entry, gpuproj_basis_name(s->lanes.basis));
	else if (e->lanes)
		strbuf_printf(sb, "# lanes_per_sm: ESTIMATED from the measured rates (CC %d.%d is "
			      "not in the built-in targets.yaml): check them\n", d->cc_major,
			      d->cc_minor);
	else
		strbuf_printf(sb, "# lanes_per_sm: unknown (CC %d.%d is not in the built-in "
			      "targets.yaml and the FMA/IADD3 runs failed)\n", d->cc_major,
			      d->cc_minor);
	strbuf_append(
		sb,
		"# programming guide / occupancy calculator [PG] [OCC]: schedulers_per_sm, "
		"limits.regs_per_thread,\n#   limits.reg_alloc_unit, limits.smem_alloc_unit_b\n");
	strbuf_append(sb, "# left for you: price_usd (unknown: null)");
	if (!(d->nvml && d->power_limit_w > 0))
		strbuf_append(sb, ", tdp_w (NVML not available: null)");
	strbuf_append(sb, ";\n#   match: add the other spellings of the device name (nvidia-smi, "
		      "ncu) where they differ;\n");
	if (!chip)
		strbuf_printf(sb, "#   chip: unknown for CC %d.%d, written as SM%d%d: set the die "
			      "(e.g. GB100)\n", d->cc_major, d->cc_minor, d->cc_major, d->cc_minor);
	else if (!chip_exact)
		strbuf_printf(sb, "#   chip: %s is the family of CC %d.%d: set the exact die\n",
			      chip, d->cc_major, d->cc_minor);
	else
		strbuf_printf(sb, "#   chip: %s from CC %d.%d\n", chip, d->cc_major, d->cc_minor);
	for (p = GPUPROJ_PREC_COUNT - 1; p >= 0; p--) {
		double u = s->lane_use[p];

		if (e->lanes && (u < 0.75 || u > 1.05))
			strbuf_printf(sb, "# CHECK: the %s FMA loop ran at %.1f%% of 2 x %g lanes/SM x "
				      "sms x its clock: this product may not have its CC's %s lanes "
				      "(a capped part, as the H20's FP64); peak_gflops.%s_fma and "
				      "lanes_per_sm.%s would overstate it\n",
				      gpuproj_prec_name(p), 100 * u, s->lanes.v[p], gpuproj_prec_name(p),
				      gpuproj_prec_name(p), gpuproj_prec_name(p));
	}
	for (l = 0; l < GPUPROJ_LEVEL_COUNT; l++) {
		if (!e->bw_measured[l])
			strbuf_printf(sb,
				      "# NOT MEASURED: bw_gbs.%s is an estimate (see its source); "
				      "run gpuproj bench again\n",
				      gpuproj_level_name(l));
	}
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		if (!e->s->fp[p][BENCH_FOP_FMA].ok && !isnan(e->max_fma[p]))
			strbuf_printf(sb, "# NOT MEASURED: max_gflops.%s_fma is derived from the lanes "
				      "and clock_mhz; run gpuproj bench again\n",
				      gpuproj_prec_name(p));
	}
	if (e->lat_dropped[0])
		strbuf_printf(sb, "# NOT WRITTEN: latency_ns: %s\n", e->lat_dropped);
}

/* references: BENCH, then every key the entry cites, with the built-in file's citation. */
static void
emit_references(struct strbuf *sb, struct emit *e, const struct bench_yaml_info *info,
		const char *cited_text)
{
	const struct bench_device *d = e->d;
	char keys[32][32];
	struct strbuf t;
	char *text;
	size_t i, n;

	strbuf_init(&t);
	strbuf_printf(&t, "gpuproj bench %s, %s, host %s: %s (PCI %s, CC %d.%d, %d SMs), ",
		      info->version, info->date, info->host, d->name,
		      d->pci_bus_id ? d->pci_bus_id : "?", d->cc_major, d->cc_minor, d->sms);
	if (d->driver_version)
		strbuf_printf(&t, "driver %s ", d->driver_version);
	strbuf_printf(&t, "(CUDA driver API %d.%d), kernels built with CUDA %d.%d, ECC %s; ",
		      d->driver_api_version / 1000, d->driver_api_version % 1000 / 10,
		      d->toolkit_version / 1000, d->toolkit_version % 1000 / 10,
		      d->ecc ? "on" : "off");
	strbuf_printf(&t, "%s mode: CUDA-event timing, warm-up then timed runs, median reported; ",
		      info->mode);
	if (d->nvml)
		strbuf_append(&t, "SM clock sampled by NVML during every run; ");
	else
		strbuf_printf(&t, "clocks not observed (NVML: %s); ",
			      d->nvml_reason ? d->nvml_reason : "not available");
	strbuf_printf(&t, "raw measurements in %s (gpuproj-bench-raw/1); device properties as "
		      "the CUDA runtime reported them", info->raw_file ? info->raw_file : "(none)");
	text = t.oom ? NULL : strbuf_steal(&t);
	strbuf_free(&t);
	if (!text) {
		sb->oom = true;
		return;
	}
	target_emit_references(sb);
	target_emit_reference(sb, "BENCH", text);
	free(text);
	n = cited_keys(cited_text, keys, ARRAY_LENGTH(keys));
	for (i = 0; i < n; i++) {
		const char *c = e->builtin ? gpuproj_targets_reference(e->builtin, keys[i]) : NULL;

		if (strcmp(keys[i], "BENCH") == 0)
			continue;
		if (!c && strcmp(keys[i], "PG") == 0)
			c = ref_pg;
		if (!c && strcmp(keys[i], "OCC") == 0)
			c = ref_occ;
		if (!c)
			continue; /* the loader names the undefined key */
		target_emit_reference(sb, keys[i], c);
	}
}

static void
emit_numbers(struct target_emit *w, struct strbuf *sb, struct emit *e, const char *name,
	     const char *chip)
{
	const struct bench_device *d = e->d;
	const struct bench_summary *s = e->s;
	/* bw_gbs: DRAM first, the one basis's level */
	static const enum gpuproj_level bw_order[GPUPROJ_LEVEL_COUNT] = {
		GPUPROJ_LEVEL_DRAM, GPUPROJ_LEVEL_L2, GPUPROJ_LEVEL_L1, GPUPROJ_LEVEL_SHARED,
	};
	const char *match[] = { d->name };
	/* regs_per_thread [PG], reg_alloc_unit and smem_alloc_unit_b [OCC] (emit_sources) */
	const struct gpuproj_target_limits lim = {
		.threads_per_sm = d->threads_per_sm,
		.threads_per_block = d->threads_per_block,
		.blocks_per_sm = d->blocks_per_sm,
		.regs_per_sm = d->regs_per_sm,
		.regs_per_block = d->regs_per_block,
		.regs_per_thread = 255,
		.reg_alloc_unit = 256,
		.smem_per_sm_kib = d->smem_per_sm_b / 1024,
		.smem_per_block_kib = d->smem_per_block_optin_b / 1024,
		.smem_alloc_unit_b = d->cc_major >= 8 ? 128 : 256,
		.smem_reserved_per_block_b =
			d->smem_reserved_per_block_b > 0 ? d->smem_reserved_per_block_b : 0,
		.l2_mib = d->l2_b / (1024.0 * 1024),
	};
	char word[32];
	bool first;
	int p, l;

	target_emit_gpus(sb);
	target_emit_entry(w, sb, name);
	{
		char *desc = xasprintf("%s, measured by gpuproj bench", d->name);

		target_emit_text(w, "description", desc ? desc : "");
		free(desc);
	}
	target_emit_list(w, "match", match, 1);
	target_emit_vendor(w, GPUPROJ_VENDOR_NVIDIA);
	snprintf(word, sizeof(word), "sm_%d%d", d->cc_major, d->cc_minor);
	target_emit_word(w, "arch", word);
	if (!chip)
		snprintf(word, sizeof(word), "SM%d%d", d->cc_major, d->cc_minor);
	target_emit_word(w, "chip", chip ? chip : word);
	target_emit_number(w, "sms", d->sms, TARGET_EMIT_F0);
	target_emit_number(w, "warp_size", d->warp_size, TARGET_EMIT_F0);
	target_emit_number(w, "clock_mhz", e->clock, TARGET_EMIT_F1);
	if (e->boost > 0)
		target_emit_number(w, "boost_clock_mhz", e->boost, TARGET_EMIT_G);
	target_emit_number(w, "schedulers_per_sm", 4, TARGET_EMIT_F0);
	if (s->ipc_per_scheduler > 0)
		target_emit_number(w, "ipc_per_scheduler", s->ipc_per_scheduler, TARGET_EMIT_F3);
	if (d->total_mem_b > 0)
		target_emit_number(w, "memory_gib", d->total_mem_b / (1024.0 * 1024 * 1024),
				   TARGET_EMIT_F1);
	target_emit_limits(w, &lim, TARGET_EMIT_G, 0);
	/* [prec][kind] members: FMA at 2 x prec, ADD/MUL after it (target-fields.c) */
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++)
		target_emit_member(w, "peak_gflops", 2 * p, e->peak[p], TARGET_EMIT_F1);
	first = true;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		const struct bench_rate *add = &s->fp[p][BENCH_FOP_ADD],
					*mul = &s->fp[p][BENCH_FOP_MUL];

		e->add_mul[p] = add->ok && mul->ok ? (add->value + mul->value) / 2 :
				add->ok ? add->value : mul->ok ? mul->value : NAN;
		if (isnan(e->max_fma[p]) && isnan(e->add_mul[p]))
			continue;
		/* One precision per line. */
		if (!first)
			target_emit_wrap(w, 0);
		first = false;
		if (!isnan(e->max_fma[p]))
			target_emit_member(w, "max_gflops", 2 * p, e->max_fma[p], TARGET_EMIT_F1);
		if (!isnan(e->add_mul[p]))
			target_emit_member(w, "max_gflops", 2 * p + 1, e->add_mul[p],
					   TARGET_EMIT_F1);
	}
	if (e->dense > 0)
		target_emit_number(w, "fp32_dense_gflops", e->dense, TARGET_EMIT_F1);
	target_emit_number(w, "sustained_clock_mhz", e->sustained, TARGET_EMIT_F1);
	if (s->int_add.ok)
		target_emit_number(w, "peak_giops.int32_add", s->int_add.value, TARGET_EMIT_F1);
	if (s->int_mad.ok)
		target_emit_number(w, "peak_giops.int32_mad", s->int_mad.value, TARGET_EMIT_F1);
	if (s->ldst.ok)
		target_emit_number(w, "ldst_shared_gops", s->ldst.value, TARGET_EMIT_F1);
	if (s->peak_dram_gbs > 0)
		target_emit_number(w, "peak_bw_gbs.dram", s->peak_dram_gbs, TARGET_EMIT_F1);
	for (l = 0; l < GPUPROJ_LEVEL_COUNT; l++)
		target_emit_member(w, "bw_gbs", bw_order[l], e->bw[bw_order[l]], TARGET_EMIT_F1);
	if (e->lanes) {
		for (l = 0; l < GPUPROJ_LANE_COUNT; l++)
			target_emit_member(w, "lanes_per_sm", l, s->lanes.v[l], TARGET_EMIT_G);
	}
	/* stream_gbs: the measured kernels; a triad that failed is the DRAM estimate. */
	if (s->stream_gbs[GPUPROJ_STREAM_READ] > 0)
		target_emit_member(w, "stream_gbs", GPUPROJ_STREAM_READ,
				   s->stream_gbs[GPUPROJ_STREAM_READ], TARGET_EMIT_F1);
	if (s->stream_gbs[GPUPROJ_STREAM_COPY] > 0)
		target_emit_member(w, "stream_gbs", GPUPROJ_STREAM_COPY,
				   s->stream_gbs[GPUPROJ_STREAM_COPY], TARGET_EMIT_F1);
	target_emit_member(w, "stream_gbs", GPUPROJ_STREAM_TRIAD, e->triad, TARGET_EMIT_F1);
	for (l = 0; l < GPUPROJ_LEVEL_COUNT; l++) {
		if (e->lat[l] > 0)
			target_emit_member(w, "latency_ns", l, e->lat[l], TARGET_EMIT_F1);
	}
	target_emit_null(w, "price_usd", "unknown: a benchmark cannot measure it");
	if (d->nvml && d->power_limit_w > 0)
		target_emit_number(w, "tdp_w", d->power_limit_w, TARGET_EMIT_F0);
	else
		target_emit_null(w, "tdp_w", "unknown: NVML was not available to report the "
				 "power limit");
}

static void
source_clock(struct target_emit *w, struct emit *e)
{
	const struct bench_device *d = e->d;
	const struct bench_summary *s = e->s;
	const struct bench_rate *f32 = &s->fp[GPUPROJ_FP32][BENCH_FOP_FMA];
	char seen[320];

	if (s->clock_observed)
		snprintf(seen, sizeof(seen), "NVML logged a median SM clock of %.0f MHz during "
			 "the FMA runs (%zu samples, %.0f to %.0f MHz)", s->clock_mhz,
			 s->clock_samples, s->clock_lo_mhz, s->clock_hi_mhz);
	else
		snprintf(seen, sizeof(seen), "no clock was logged (NVML: %s)",
			 d->nvml_reason ? d->nvml_reason : "not available");
	if (e->clock_basis == GPUPROJ_BASIS_DERIVED) {
		char use[96] = "";

		if (f32->clock_mhz > 0)
			snprintf(use, sizeof(use), "; the FFMA loop kept %.1f%% of the FP32 lanes busy "
				 "at the %.0f MHz of its own runs", 100 * s->lane_use[GPUPROJ_FP32],
				 f32->clock_mhz);
		source(w, "clock_mhz",
		       "derived: the measured FP32 FMA rate %.1f GFLOP/s (max_gflops.fp32_fma) / "
		       "(2 x %g FP32 lanes/SM x %d SMs) x 1000: the SM clock sustained under "
		       "full FMA load, the clock of max_gflops; %s%s [BENCH]",
		       f32->value, s->lanes.v[GPUPROJ_LANE_FP32], d->sms, seen, use);
	} else if (e->clock_basis == GPUPROJ_BASIS_MEASURED) {
		source(w, "clock_mhz",
		       "measured: %s; not derived from the FP32 FMA rate (%s) [BENCH]", seen,
		       f32->ok ? "no FP32 lanes for this CC" : "the FP32 FMA benchmark failed");
	} else {
		source(w, "clock_mhz", "datasheet: device-reported maximum SM clock "
		       "(cudaDevAttrClockRate), not observed under load: %s, and the FP32 FMA "
		       "rate could not give the sustained clock [BENCH]", seen);
	}
	if (e->boost > 0) {
		char nv[64] = "";

		if (d->nvml_max_sm_clock_mhz > 0 && d->max_clock_mhz > 0)
			snprintf(nv, sizeof(nv), "; NVML's maximum SM clock %.0f MHz",
				 d->nvml_max_sm_clock_mhz);
		if (d->max_clock_mhz > 0)
			source(w, "boost_clock_mhz", "datasheet: device-reported maximum SM clock "
			       "(cudaDevAttrClockRate, the driver's value)%s [BENCH]", nv);
		else
			source(w, "boost_clock_mhz", "datasheet: NVML's maximum SM clock "
			       "(nvmlDeviceGetMaxClockInfo, the driver's value; the CUDA runtime "
			       "reported none) [BENCH]");
	}
}

static void
source_lanes(struct target_emit *w, struct emit *e)
{
	const struct bench_summary *s = e->s;
	const struct bench_lanes *ln = &s->lanes;

	if (!e->lanes)
		return;
	if (ln->builtin) {
		source(w, "lanes_per_sm", "%s", ln->text);
		return;
	}
	source(w, "lanes_per_sm",
	       "estimate: CC %d.%d is not in the built-in targets.yaml: FP16 %g, FP32 %g, FP64 "
	       "%g results/clk/SM = each measured FMA rate / (2 x sms x the SM clock of its runs), "
	       "INT32 %g = the IADD3 rate / (sms x clock), rounded to powers of two; "
	       "fp32_int32_shared 0 assumed (separate FP32 and INT32 pipes, as on CC 7.0 to 9.0): "
	       "look the real split up [BENCH]",
	       e->d->cc_major, e->d->cc_minor, ln->v[GPUPROJ_LANE_FP16], ln->v[GPUPROJ_LANE_FP32],
	       ln->v[GPUPROJ_LANE_FP64], ln->v[GPUPROJ_LANE_INT32]);
}

static void
source_dram(struct target_emit *w, struct emit *e)
{
	static const char *const dn[] = { "init", "read", "copy", "scale", "triad" };
	static const char *const kernel[] = {
		"", "sum += a, read only", "c = a, 1 read + 1 write", "",
		"a = b + s x c, 2 reads + 1 write",
	};
	static const struct {
		const char *path;
		enum bench_dram_kind k;
	} streams[] = {
		{ "stream_gbs.read", BENCH_DRAM_READ },
		{ "stream_gbs.copy", BENCH_DRAM_COPY },
		{ "stream_gbs.triad", BENCH_DRAM_TRIAD },
	};
	const struct bench_device *d = e->d;
	const struct bench_summary *s = e->s;
	char note[160], sz[32], other[200];
	size_t i;

	snprintf(other, sizeof(other), "scale %s, write-only init %s not used",
		 s->dram[BENCH_DRAM_SCALE].ok ? "" : "(failed)",
		 s->dram[BENCH_DRAM_INIT].ok ? "" : "(failed)");
	if (s->dram[BENCH_DRAM_SCALE].ok && s->dram[BENCH_DRAM_INIT].ok)
		snprintf(other, sizeof(other), "scale %.1f and write-only init %.1f GB/s not used",
			 s->dram[BENCH_DRAM_SCALE].value, s->dram[BENCH_DRAM_INIT].value);
	else if (s->dram[BENCH_DRAM_SCALE].ok)
		snprintf(other, sizeof(other), "scale %.1f GB/s not used, write-only init (failed)",
			 s->dram[BENCH_DRAM_SCALE].value);
	else if (s->dram[BENCH_DRAM_INIT].ok)
		snprintf(other, sizeof(other), "scale (failed), write-only init %.1f GB/s not used",
			 s->dram[BENCH_DRAM_INIT].value);
	else
		snprintf(other, sizeof(other), "scale and write-only init (failed) not used");
	for (i = 0; i < ARRAY_LENGTH(streams); i++) {
		const struct bench_rate *r = &s->dram[streams[i].k];

		if (!r->ok)
			continue;
		rate_note(note, sizeof(note), r);
		source(w, streams[i].path,
		       "measured: dram_%s (%s; STREAM-like, double, arrays of %s = %.1f x L2), "
		       "%s [BENCH]", dn[streams[i].k], kernel[streams[i].k],
		       mib(s->dram_array_b, sz, sizeof(sz)), s->dram_array_b / d->l2_b, note);
	}
	if (e->bw_measured[GPUPROJ_LEVEL_DRAM]) {
		rate_note(note, sizeof(note), &s->dram[BENCH_DRAM_TRIAD]);
		source(w, "bw_gbs.dram",
		       "measured: = stream_gbs.triad, the one DRAM basis of targets.yaml (dram_triad, "
		       "%s; %s) [BENCH]", note, other);
	} else {
		source(w, "stream_gbs.triad", "estimate: NOT MEASURED (dram_triad failed): %s",
		       e->dram_estimate);
		source(w, "bw_gbs.dram", "estimate: NOT MEASURED: = stream_gbs.triad, %s",
		       e->dram_estimate);
	}
}

static void
source_latency(struct target_emit *w, struct emit *e)
{
	static const enum bench_lat_level from[GPUPROJ_LEVEL_COUNT] = {
		[GPUPROJ_LEVEL_L1] = BENCH_LAT_L1, [GPUPROJ_LEVEL_L2] = BENCH_LAT_L2,
		[GPUPROJ_LEVEL_DRAM] = BENCH_LAT_DRAM, [GPUPROJ_LEVEL_SHARED] = BENCH_LAT_COUNT,
	};
	static const char *const where[BENCH_LAT_COUNT] = {
		"in L1", "in L2 (below half the L2: the near partition of a split L2)",
		"far beyond the L2 (DRAM; the scattered lines span more pages than a TLB "
		"level may cover, so a TLB miss can add to a load, as in gpu-benches' DRAM "
		"plateau)",
	};
	const struct bench_summary *s = e->s;
	int l;

	for (l = 0; l < GPUPROJ_LEVEL_COUNT; l++) {
		enum bench_lat_level lv = from[l];
		struct strbuf pts;
		char path[32], sz[32], cyc[64] = "";
		size_t i;

		if (!(e->lat[l] > 0))
			continue;
		strbuf_init(&pts);
		for (i = 0; i < s->n_lat; i++) {
			const struct bench_lat_point *p = &s->lat[i];

			if (p->level != lv || !p->ok)
				continue;
			strbuf_printf(&pts, "%s%s: %.1f ns, median of %zu runs, IQR %.1f%%",
				      pts.len ? "; " : "", mib(p->footprint_b, sz, sizeof(sz)),
				      p->ns.median, p->ns.n, p->ns.spread_pct);
		}
		if (s->lat_cycles[lv] > 0)
			snprintf(cyc, sizeof(cyc), " = %.0f cycles at the SM clock NVML logged",
				 s->lat_cycles[lv]);
		snprintf(path, sizeof(path), "latency_ns.%s", gpuproj_level_name(l));
		source(w, path,
		       "measured: single-thread pointer chase (bench_latency_chase, "
		       "src/bench/kernels/latency.cu: %d dependent 64-bit loads per trip, one pointer "
		       "per %d-byte line in a scattered cyclic order) over footprints %s: %.1f ns%s, "
		       "the median over %zu footprint%s (%s) [BENCH]",
		       BENCH_CHASE_STEPS, BENCH_CHASE_SPACING_B, where[lv], e->lat[l], cyc,
		       s->lat_points[lv], s->lat_points[lv] == 1 ? "" : "s",
		       pts.buf ? pts.buf : "");
		if (pts.oom)
			w->sb->oom = true;
		strbuf_free(&pts);
	}
}

/* The sources of fp32_dense_gflops and sustained_clock_mhz (choose_dense_clock()). */
static void
source_dense_clock(struct target_emit *w, struct emit *e)
{
	const struct bench_rate *f32 = &e->s->fp[GPUPROJ_FP32][BENCH_FOP_FMA];
	const struct gpuproj_target *sib = e->dense_sib;

	if (sib)
		source(w, "fp32_dense_gflops", "derived: sibling %s (the built-in targets.yaml "
		       "entry the lanes come from): its fp32_dense_gflops / max_gflops.fp32_fma = "
		       "%g/%g (at most 1) x this max_gflops.fp32_fma, at most the peak; no SGEMM "
		       "ran here (a large cuBLAS SGEMM, TF32 off, measures it)", sib->name,
		       sib->fp32_dense_gflops, sib->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA]);
	else if (e->dense > 0)
		source(w, "fp32_dense_gflops", "estimate: no SGEMM ran here and the built-in "
		       "targets.yaml has no entry to take the fraction from: the FP32 FMA rate, no "
		       "loss for FFMA-dense code assumed [BENCH]");
	if (e->sustained_measured)
		source(w, "sustained_clock_mhz", "measured: NVML's median SM clock during the FP32 "
		       "FMA loops (%.1f GFLOP/s); short loops may show a higher clock than seconds "
		       "of load hold [BENCH]", f32->value);
	else
		source(w, "sustained_clock_mhz", "derived: = clock_mhz (NVML logged no clock "
		       "during the FP32 FMA loops) [BENCH]");
}

static void
emit_sources(struct target_emit *w, struct emit *e)
{
	const struct bench_device *d = e->d;
	const struct bench_summary *s = e->s;
	static const char *const fop[BENCH_FOP_COUNT] = { "FMA", "ADD", "MUL" };
	static const char *const fp_ins[GPUPROJ_PREC_COUNT][BENCH_FOP_COUNT] = {
		{ "HFMA2", "HADD2", "HMUL2" },
		{ "FFMA", "FADD", "FMUL" },
		{ "DFMA", "DADD", "DMUL" },
	};
	char note[160], note2[160], sz[32];
	size_t i;
	int p;

	target_emit_sources(w);
	source(w, "sms", "datasheet: device-reported, cudaDevAttrMultiProcessorCount [BENCH]");
	source(w, "warp_size", "datasheet: device-reported, cudaDevAttrWarpSize [BENCH]");
	source_clock(w, e);
	source(w, "schedulers_per_sm", "datasheet: 4 warp schedulers (SM sub-partitions) per SM "
	       "on CC %d.%d [OCC]", d->cc_major, d->cc_minor);
	if (s->ipc_per_scheduler > 0) {
		rate_note(note, sizeof(note), &s->gips);
		source(w, "ipc_per_scheduler",
		       "measured: %.1f G warp instructions/s from a loop "
		       "of independent IMAD and LOP3 (67 per trip, %s) / (sms x 4 x %.0f MHz) "
		       "[BENCH]",
		       s->gips.value, note,
		       s->gips.clock_mhz > 0 ? s->gips.clock_mhz : s->clock_mhz);
	}
	if (d->total_mem_b > 0)
		source(w, "memory_gib",
		       "datasheet: device-reported total memory, %.0f bytes "
		       "(cudaDeviceProp.totalGlobalMem: what the driver makes usable, a little "
		       "below "
		       "the marketed size) [BENCH]",
		       d->total_mem_b);
	source(w, "limits",
	       "datasheet: device-reported by cudaDeviceGetAttribute "
	       "(MaxThreadsPerMultiProcessor, MaxThreadsPerBlock, MaxBlocksPerMultiprocessor, "
	       "MaxRegistersPerMultiprocessor, MaxRegistersPerBlock, "
	       "MaxSharedMemoryPerMultiprocessor, "
	       "MaxSharedMemoryPerBlockOptin, ReservedSharedMemoryPerBlock, L2CacheSize) [BENCH]");
	source(w, "limits.regs_per_thread", "datasheet: 255 registers per thread [PG]");
	source(w, "limits.reg_alloc_unit", "datasheet: 256 registers per warp [OCC]");
	source(w, "limits.smem_alloc_unit_b", "datasheet: %d B on CC %d.%d [OCC]",
	       d->cc_major >= 8 ? 128 : 256, d->cc_major, d->cc_minor);
	if (e->peak_derived)
		source(w, "peak_gflops",
		       "derived: 2 x lanes_per_sm (FMA results/clk/SM) x sms x %s / 1000: the "
		       "vendor peak at the boost clock",
		       e->boost > 0 ? "boost_clock_mhz" : "clock_mhz (no maximum clock reported)");
	else
		source(w, "peak_gflops", "estimate: the measured FMA rates (max_gflops); the FMA "
		       "lanes per SM of CC %d.%d are unknown", d->cc_major, d->cc_minor);
	if (e->max_derived)
		source(w, "max_gflops", "derived: 2 x lanes_per_sm x sms x clock_mhz / 1000, the "
		       "FMA rate at the sustained clock (that precision's FMA benchmark failed)");
	source_dense_clock(w, e);
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		const struct bench_rate *f = &s->fp[p][BENCH_FOP_FMA];
		const char *pn = gpuproj_prec_name(p);
		char path[48];

		if (f->ok) {
			rate_note(note, sizeof(note), f);
			snprintf(path, sizeof(path), "max_gflops.%s_fma", pn);
			source(w, path,
			       "measured: %s loop, 8 independent chains x 8 per trip, %s%s "
			       "[BENCH]",
			       fp_ins[p][0], note,
			       p == GPUPROJ_FP16 ? "; half2, 4 FLOP per instruction and lane" : "");
		}
		if (!isnan(e->add_mul[p])) {
			const struct bench_rate *a = &s->fp[p][BENCH_FOP_ADD];
			const struct bench_rate *m = &s->fp[p][BENCH_FOP_MUL];

			snprintf(path, sizeof(path), "max_gflops.%s_add_mul", pn);
			if (a->ok && m->ok) {
				rate_note(note, sizeof(note), a);
				rate_note(note2, sizeof(note2), m);
				source(w, path,
				       "measured: mean of the %s loop, %.1f GFLOP/s (%s), and "
				       "the %s loop, %.1f GFLOP/s (%s) [BENCH]",
				       fp_ins[p][1], a->value, note, fp_ins[p][2], m->value, note2);
			} else {
				const struct bench_rate *one = a->ok ? a : m;

				rate_note(note, sizeof(note), one);
				source(w, path,
				       "measured: the %s loop only (%s; the %s loop failed) "
				       "[BENCH]",
				       fp_ins[p][a->ok ? 1 : 2], note, fop[a->ok ? 2 : 1]);
			}
		}
	}
	if (s->int_add.ok) {
		rate_note(note, sizeof(note), &s->int_add);
		source(w, "peak_giops.int32_add", "measured: IADD3 loop, one op per IADD3, %s "
		       "[BENCH]", note);
	}
	if (s->int_mad.ok) {
		rate_note(note, sizeof(note), &s->int_mad);
		source(w, "peak_giops.int32_mad", "measured: IMAD loop, two ops per IMAD, %s "
		       "[BENCH]", note);
	}
	if (s->ldst.ok) {
		rate_note(note, sizeof(note), &s->ldst);
		source(w, "ldst_shared_gops", "measured: conflict-free 32-bit LDS and STS loop, "
		       "thread instructions per second, %s [BENCH]", note);
	}
	if (s->peak_dram_gbs > 0)
		source(w, "peak_bw_gbs",
		       "derived: 2 x memory clock %.0f MHz x bus width %d bits / 8 "
		       "(both device-reported; double data rate) [BENCH]",
		       d->mem_clock_mhz, d->mem_bus_bits);
	source_dram(w, e);
	if (e->bw_measured[GPUPROJ_LEVEL_L2]) {
		char seg[200] = "";

		if (s->l2_drop_pct > 15)
			snprintf(seg, sizeof(seg),
				 "; segmented L2: %.0f%% lower at %s (between L2/2 "
				 "and the L2 size)",
				 s->l2_drop_pct, mib(s->l2_drop_footprint_b, sz, sizeof(sz)));
		source(w, "bw_gbs.l2", "measured: plateau = median of the L2 read sweep medians "
		       "over footprints L2/8 to L2/2 (%zu points, 16-byte ld.global.cg loads, "
		       "L1 bypassed)%s [BENCH]", s->l2_plateau_points, seg);
	} else {
		source(w, "bw_gbs.l2", "estimate: NOT MEASURED; 2.5 x bw_gbs.dram (the middle of "
		       "the measured L2/DRAM ratios of GV100, GA100 and GH100)");
	}
	if (e->bw_measured[GPUPROJ_LEVEL_L1]) {
		const struct bench_rate *best = &s->l1[0].r;

		for (i = 0; i < s->n_l1; i++) {
			if (s->l1[i].size_b == s->l1_size_b)
				best = &s->l1[i].r;
		}
		rate_note(note, sizeof(note), best);
		source(w, "bw_gbs.l1", "measured: one block per SM re-reading its own buffer, "
		       "16-byte ld.global.nc loads, best of %zu sizes: %s, %s [BENCH]", s->n_l1,
		       mib(s->l1_size_b, sz, sizeof(sz)), note);
	} else {
		source(w, "bw_gbs.l1",
		       "estimate: NOT MEASURED; %d B/clk/SM x sms x %s / 1000 "
		       "(128 on GV100, GA100, GH100 and GB100 class SMs, 64 on the others, as "
		       "public gpu-cache measurements show)",
		       target_chip_l1_bytes_per_clk(d->cc_major, d->cc_minor),
		       e->boost > 0 ? "boost_clock_mhz" : "clock_mhz");
	}
	if (e->bw_measured[GPUPROJ_LEVEL_SHARED]) {
		const struct bench_shared_point *one = &s->shared[0];

		for (i = 0; i < s->n_shared; i++) {
			if (s->shared[i].stride == 1)
				one = &s->shared[i];
		}
		rate_note(note, sizeof(note), &one->r);
		source(w, "bw_gbs.shared",
		       "measured: conflict-free 32-bit LDS loop, %.1f B/clk/SM, "
		       "%s [BENCH]",
		       one->bytes_per_clk_sm, note);
	} else {
		source(w, "bw_gbs.shared", "estimate: NOT MEASURED; 128 B/clk/SM (32 banks x 4 B) "
		       "x sms x %s / 1000", e->boost > 0 ? "boost_clock_mhz" : "clock_mhz");
	}
	source_lanes(w, e);
	source_latency(w, e);
	if (d->nvml && d->power_limit_w > 0)
		source(w, "tdp_w", "datasheet: device-reported default power limit "
		       "(NVML nvmlDeviceGetPowerManagementDefaultLimit) [BENCH]");
}

int
bench_yaml_emit(const struct bench_raw *raw, const struct bench_summary *sum,
		const struct bench_yaml_info *info, char **ret, struct gpuproj_error *err)
{
	struct emit e = { .raw = raw, .d = &raw->dev, .s = sum };
	struct gpuproj_targets *builtin = NULL;
	struct target_emit w;
	struct strbuf body, sb;
	char *name = NULL;
	const char *chip, *p;
	bool chip_exact;
	int r;

	if (!raw->dev.name || raw->dev.sms <= 0)
		return error_set(err, GPUPROJ_E_MISSING, NULL, 0, 0,
				 "the raw measurements hold no device");
	if (raw->dev.threads_per_sm <= 0 || raw->dev.threads_per_block <= 0 ||
	    raw->dev.blocks_per_sm <= 0 || raw->dev.regs_per_sm <= 0 ||
	    raw->dev.regs_per_block <= 0 || raw->dev.smem_per_sm_b < 1024 ||
	    raw->dev.smem_per_block_optin_b < 1024 || !(raw->dev.l2_b > 0) ||
	    raw->dev.warp_size <= 0)
		return error_set(err, GPUPROJ_E_MISSING, NULL, 0, 0,
				 "the device did not report all occupancy limits (threads, blocks, "
				 "registers, shared memory per SM and block, L2 size)");
	r = choose_clock(&e, err);
	if (!r)
		r = choose_bandwidths(&e, err);
	if (!r)
		r = choose_peaks(&e, err);
	if (r)
		return r;
	choose_latencies(&e);
	name = info->name ? strdup(info->name) : bench_entry_name(raw->dev.name);
	if (!name)
		return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	for (p = name; *p; p++) {
		if (!isalnum((unsigned char)*p) && !strchr("._+-", *p)) {
			r = error_set(
				err, GPUPROJ_E_INVAL, NULL, 0, 0,
				"entry name '%s' may only hold letters, digits, '.', '_', '+' "
				"and '-'",
				name);
			free(name);
			return r;
		}
	}
	chip = target_chip_die_for_cc(raw->dev.cc_major, raw->dev.cc_minor, &chip_exact);
	/* The citations of the repository's own file (none: the fallback texts). */
	if (gpuproj_targets_load_builtin(&builtin, NULL))
		builtin = NULL;
	e.builtin = builtin;
	choose_dense_clock(&e);

	/* The GPU first: the references list what its sources cite. */
	strbuf_init(&body);
	emit_numbers(&w, &body, &e, name, chip);
	emit_sources(&w, &e);
	free(name);
	r = target_emit_end(&w, err);
	if (r) {
		strbuf_free(&body);
		gpuproj_targets_free(builtin);
		return r;
	}
	strbuf_init(&sb);
	emit_header(&sb, &e, info, chip, chip_exact);
	target_emit_schema(&sb);
	if (!body.oom)
		emit_references(&sb, &e, info, body.buf);
	strbuf_append(&sb, body.buf ? body.buf : "");
	if (body.oom)
		sb.oom = true;
	strbuf_free(&body);
	gpuproj_targets_free(builtin);
	if (sb.oom) {
		strbuf_free(&sb);
		return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	/* Say in the file itself when the entry cannot stand on the one basis. */
	{
		struct gpuproj_targets *ts = NULL;
		struct gpuproj_error berr = { 0 };
		char *text = strbuf_steal(&sb);

		if (gpuproj_targets_load_buffer(text, strlen(text), "(entry)", &ts, NULL) == 0 &&
		    gpuproj_target_check_one_basis(gpuproj_targets_get(ts, 0), NULL, &berr)) {
			char *with = xasprintf("# NOT ON ONE BASIS: %s\n%s", berr.message, text);

			free(text);
			text = with;
		}
		gpuproj_targets_free(ts);
		if (!text)
			return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
		*ret = text;
	}
	return GPUPROJ_OK;
}
