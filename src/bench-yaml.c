/* SPDX-License-Identifier: MIT */
/*
 * gpuproj bench: write the measured GPU as a complete targets file (schema
 * gpuproj-targets/1, docs/targets-schema.md) with one entry.
 *
 * Bases: every number the micro-benchmarks produce is "measured: ...
 * [BENCH]" (BENCH = this run: tool, date, host, device, driver); numbers
 * the driver reports (SMs, limits, memory, NVML's default power limit) are
 * "datasheet: device-reported ... [BENCH]"; constants no API reports come
 * from the CUDA Programming Guide [PG] or the occupancy calculator [OCC];
 * the vendor peaks are "derived:" from the FMA lanes per SM and the clock.
 * What cannot be measured (price, other spellings of the name, the exact
 * chip) is null or guessed and named in the header comment.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "util.h"

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

/* L1 bytes per clock per SM where not measured: 128 on GV100/GA100/GH100/GB100, else 64 [GC]. */
static int
l1_bytes_per_clk(const struct bench_device *d)
{
	return d->cc_minor == 0 && d->cc_major >= 7 && d->cc_major <= 10 ? 128 : 64;
}

/* The die family for a compute capability; exact=false where several dies share it. */
static const char *
chip_for(int major, int minor, bool *exact)
{
	static const struct {
		int major, minor;
		const char *chip;
		bool exact;
	} table[] = {
		{ 7, 0, "GV100", true },  { 7, 5, "TU10X", false }, { 8, 0, "GA100", true },
		{ 8, 6, "GA10X", false }, { 8, 9, "AD10X", false }, { 9, 0, "GH100", true },
		{ 10, 0, "GB100", true }, { 12, 0, "GB20X", false },
	};
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(table); i++) {
		if (table[i].major == major && table[i].minor == minor) {
			*exact = table[i].exact;
			return table[i].chip;
		}
	}
	*exact = false;
	return NULL;
}

/* YAML double-quoted string body (quotes and backslashes escaped). */
static void
quoted(struct strbuf *sb, const char *s)
{
	strbuf_append(sb, "\"");
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\') {
			char e[3] = { '\\', *s, 0 };

			strbuf_append(sb, e);
		} else if ((unsigned char)*s < 0x20) {
			strbuf_append(sb, " ");
		} else {
			strbuf_appendn(sb, s, 1);
		}
	}
	strbuf_append(sb, "\"");
}

/* A source line: `      path: "text"`. */
static void
source(struct strbuf *sb, const char *path, const char *fmt, ...) GPUPROJ_PRINTF(3, 4);

static void
source(struct strbuf *sb, const char *path, const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text) {
		sb->oom = true;
		return;
	}
	strbuf_printf(sb, "      %s: ", path);
	quoted(sb, text);
	strbuf_append(sb, "\n");
	free(text);
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
	double clock;                   /* clock_mhz as written */
	double bw[GPUPROJ_LEVEL_COUNT]; /* bw_gbs as written */
	bool bw_measured[GPUPROJ_LEVEL_COUNT];
	double peak[GPUPROJ_PREC_COUNT];
	bool peak_derived;
	double add_mul[GPUPROJ_PREC_COUNT];
};

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
		if (!(s->peak_dram_gbs > 0))
			return error_set(err, GPUPROJ_E_MISSING, NULL, 0, 0,
					 "no DRAM bandwidth was measured and the device reports "
					 "no memory clock to estimate it from: cannot write a "
					 "complete targets.yaml entry");
		e->bw[GPUPROJ_LEVEL_DRAM] = 0.9 * s->peak_dram_gbs;
	}
	/* Estimates are computed from the numbers as written. */
	e->bw[GPUPROJ_LEVEL_DRAM] = r1(e->bw[GPUPROJ_LEVEL_DRAM]);
	if (!e->bw_measured[GPUPROJ_LEVEL_L2])
		e->bw[GPUPROJ_LEVEL_L2] = 2.5 * e->bw[GPUPROJ_LEVEL_DRAM];
	if (!e->bw_measured[GPUPROJ_LEVEL_L1])
		e->bw[GPUPROJ_LEVEL_L1] = l1_bytes_per_clk(d) * d->sms * e->clock / 1000;
	if (!e->bw_measured[GPUPROJ_LEVEL_SHARED])
		e->bw[GPUPROJ_LEVEL_SHARED] = 128.0 * d->sms * e->clock / 1000;
	for (l = 0; l < GPUPROJ_LEVEL_COUNT; l++)
		e->bw[l] = r1(e->bw[l]);
	return GPUPROJ_OK;
}

/* peak_gflops: lanes x SMs x clock where the CC is known, else the measured FMA rate. */
static int
choose_peaks(struct emit *e, struct gpuproj_error *err)
{
	int p;

	e->peak_derived = true;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		if (bench_fma_lanes(e->d->cc_major, e->d->cc_minor, p) == 0)
			e->peak_derived = false;
	}
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		if (e->peak_derived) {
			e->peak[p] = r1(2.0 * bench_fma_lanes(e->d->cc_major, e->d->cc_minor, p) *
					e->d->sms * e->clock / 1000);
		} else if (e->s->fp[p][BENCH_FOP_FMA].ok) {
			e->peak[p] = r1(e->s->fp[p][BENCH_FOP_FMA].value);
		} else {
			return error_set(
				err, GPUPROJ_E_MISSING, NULL, 0, 0,
				"CC %d.%d is not in gpuproj's table of FMA lanes per SM and "
				"%s FMA was not measured: cannot fill peak_gflops.%s_fma",
				e->d->cc_major, e->d->cc_minor, gpuproj_prec_name(p),
				gpuproj_prec_name(p));
		}
	}
	return GPUPROJ_OK;
}

static void
emit_header(struct strbuf *sb, struct emit *e, const struct bench_yaml_info *info,
	    const char *chip, bool chip_exact)
{
	const struct bench_device *d = e->d;
	int l;

	strbuf_printf(sb, "# targets.yaml entry written by gpuproj bench %s on %s, %s "
		      "(%s mode; method: docs/bench.md).\n", info->version, info->host, info->date,
		      info->mode);
	strbuf_append(
		sb, "# Check: gpuproj targets check FILE. To use it, merge the entry and the "
		    "references it cites\n# into your targets.yaml (or pass --targets FILE).\n#\n");
	strbuf_append(sb,
		      "# measured [BENCH]: clock_mhz, ipc_per_scheduler, max_gflops, peak_giops, "
		      "ldst_shared_gops, bw_gbs\n");
	strbuf_append(sb, "# device-reported [BENCH]: sms, warp_size, memory_gib, limits");
	strbuf_append(sb, e->d->nvml && d->power_limit_w > 0
				  ? ", tdp_w (NVML default power limit)\n"
				  : "\n");
	strbuf_append(
		sb,
		"# programming guide / occupancy calculator [PG] [OCC]: schedulers_per_sm, "
		"limits.regs_per_thread,\n#   limits.reg_alloc_unit, limits.smem_alloc_unit_b\n");
	strbuf_printf(sb, "# derived: peak_gflops (%s)%s\n",
		      e->peak_derived ? "2 x FMA lanes/SM x sms x clock_mhz"
				      : "the measured FMA rate: no lane table for this CC",
		      e->s->peak_dram_gbs > 0 ? ", peak_bw_gbs.dram (memory clock x bus width)"
					      : "");
	strbuf_append(sb, "# left for you: price_usd (unknown: null)");
	if (!(e->d->nvml && d->power_limit_w > 0))
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
	for (l = 0; l < GPUPROJ_LEVEL_COUNT; l++) {
		if (!e->bw_measured[l])
			strbuf_printf(sb,
				      "# NOT MEASURED: bw_gbs.%s is an estimate (see its source); "
				      "run gpuproj bench again\n",
				      gpuproj_level_name(l));
	}
}

static void
emit_references(struct strbuf *sb, struct emit *e, const struct bench_yaml_info *info)
{
	const struct bench_device *d = e->d;
	struct strbuf t;
	char *text;

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
	strbuf_append(sb, "references:\n  BENCH: ");
	quoted(sb, text);
	strbuf_append(sb, "\n  PG: ");
	quoted(sb, ref_pg);
	strbuf_append(sb, "\n  OCC: ");
	quoted(sb, ref_occ);
	strbuf_append(sb, "\n");
	free(text);
}

static void
emit_numbers(struct strbuf *sb, struct emit *e, const char *name, const char *chip)
{
	const struct bench_device *d = e->d;
	const struct bench_summary *s = e->s;
	static const char *const keys[GPUPROJ_PREC_COUNT] = { "fp16", "fp32", "fp64" };
	bool first;
	int p;

	strbuf_printf(sb, "gpus:\n  - name: %s\n    description: ", name);
	{
		char *desc = xasprintf("%s, measured by gpuproj bench", d->name);

		quoted(sb, desc ? desc : "");
		free(desc);
	}
	strbuf_append(sb, "\n    match: [");
	quoted(sb, d->name);
	strbuf_printf(sb, "]\n    vendor: nvidia\n    arch: sm_%d%d\n", d->cc_major, d->cc_minor);
	if (chip)
		strbuf_printf(sb, "    chip: %s\n", chip);
	else
		strbuf_printf(sb, "    chip: SM%d%d\n", d->cc_major, d->cc_minor);
	strbuf_printf(sb, "    sms: %d\n    warp_size: %d\n    clock_mhz: %.0f\n"
		      "    schedulers_per_sm: 4\n", d->sms, d->warp_size, e->clock);
	if (s->ipc_per_scheduler > 0)
		strbuf_printf(sb, "    ipc_per_scheduler: %.3f\n", s->ipc_per_scheduler);
	if (d->total_mem_b > 0)
		strbuf_printf(sb, "    memory_gib: %.1f\n",
			      d->total_mem_b / (1024.0 * 1024 * 1024));
	strbuf_printf(
		sb,
		"    limits: {threads_per_sm: %d, threads_per_block: %d, blocks_per_sm: %d, "
		"regs_per_sm: %d,\n             regs_per_block: %d, regs_per_thread: 255, "
		"reg_alloc_unit: 256, smem_per_sm_kib: %d,\n             smem_per_block_kib: %d, "
		"smem_alloc_unit_b: %d, smem_reserved_per_block_b: %d, l2_mib: %.6g}\n",
		d->threads_per_sm, d->threads_per_block, d->blocks_per_sm, d->regs_per_sm,
		d->regs_per_block, d->smem_per_sm_b / 1024, d->smem_per_block_optin_b / 1024,
		d->cc_major >= 8 ? 128 : 256,
		d->smem_reserved_per_block_b > 0 ? d->smem_reserved_per_block_b : 0,
		d->l2_b / (1024.0 * 1024));
	strbuf_printf(sb, "    peak_gflops: {fp16_fma: %.1f, fp32_fma: %.1f, fp64_fma: %.1f}\n",
		      e->peak[GPUPROJ_FP16], e->peak[GPUPROJ_FP32], e->peak[GPUPROJ_FP64]);
	first = true;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		const struct bench_rate *add = &s->fp[p][BENCH_FOP_ADD],
					*mul = &s->fp[p][BENCH_FOP_MUL];

		e->add_mul[p] = add->ok && mul->ok ? (add->value + mul->value) / 2 :
				add->ok ? add->value : mul->ok ? mul->value : NAN;
		if (!s->fp[p][BENCH_FOP_FMA].ok && isnan(e->add_mul[p]))
			continue;
		/* One precision per line. */
		strbuf_append(sb, first ? "    max_gflops: {" : ",\n                 ");
		first = false;
		if (s->fp[p][BENCH_FOP_FMA].ok)
			strbuf_printf(sb, "%s_fma: %.1f%s", keys[p], s->fp[p][BENCH_FOP_FMA].value,
				      isnan(e->add_mul[p]) ? "" : ", ");
		if (!isnan(e->add_mul[p]))
			strbuf_printf(sb, "%s_add_mul: %.1f", keys[p], e->add_mul[p]);
	}
	if (!first)
		strbuf_append(sb, "}\n");
	if (s->int_add.ok || s->int_mad.ok) {
		strbuf_append(sb, "    peak_giops: {");
		if (s->int_add.ok)
			strbuf_printf(sb, "int32_add: %.1f%s", s->int_add.value,
				      s->int_mad.ok ? ", " : "");
		if (s->int_mad.ok)
			strbuf_printf(sb, "int32_mad: %.1f", s->int_mad.value);
		strbuf_append(sb, "}\n");
	}
	if (s->ldst.ok)
		strbuf_printf(sb, "    ldst_shared_gops: %.1f\n", s->ldst.value);
	if (s->peak_dram_gbs > 0)
		strbuf_printf(sb, "    peak_bw_gbs: {dram: %.1f}\n", s->peak_dram_gbs);
	strbuf_printf(sb, "    bw_gbs: {dram: %.1f, l2: %.1f, l1: %.1f, shared: %.1f}\n",
		      e->bw[GPUPROJ_LEVEL_DRAM], e->bw[GPUPROJ_LEVEL_L2], e->bw[GPUPROJ_LEVEL_L1],
		      e->bw[GPUPROJ_LEVEL_SHARED]);
	strbuf_append(sb, "    price_usd: null    # unknown: a benchmark cannot measure it\n");
	if (d->nvml && d->power_limit_w > 0)
		strbuf_printf(sb, "    tdp_w: %.0f\n", d->power_limit_w);
	else
		strbuf_append(sb,
			      "    tdp_w: null    # unknown: NVML was not available to report the "
			      "power limit\n");
}

static void
emit_sources(struct strbuf *sb, struct emit *e)
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

	strbuf_append(sb, "    sources:\n");
	source(sb, "sms", "datasheet: device-reported, cudaDevAttrMultiProcessorCount [BENCH]");
	source(sb, "warp_size", "datasheet: device-reported, cudaDevAttrWarpSize [BENCH]");
	if (s->clock_observed)
		source(sb, "clock_mhz",
		       "measured: median SM clock sampled by NVML while the compute "
		       "benchmarks ran (%zu samples, %.0f to %.0f MHz); the driver's maximum is "
		       "%.0f MHz [BENCH]",
		       s->clock_samples, s->clock_lo_mhz, s->clock_hi_mhz, d->max_clock_mhz);
	else
		source(sb, "clock_mhz", "datasheet: device-reported maximum SM clock "
		       "(cudaDevAttrClockRate), not observed under load: NVML was not available "
		       "[BENCH]");
	source(sb, "schedulers_per_sm", "datasheet: 4 warp schedulers (SM sub-partitions) per SM "
	       "on CC 7.0 to 10.x [OCC]");
	if (s->ipc_per_scheduler > 0) {
		rate_note(note, sizeof(note), &s->gips);
		source(sb, "ipc_per_scheduler",
		       "measured: %.1f G warp instructions/s from a loop "
		       "of independent IMAD and LOP3 (67 per trip, %s) / (sms x 4 x %.0f MHz) "
		       "[BENCH]",
		       s->gips.value, note,
		       s->gips.clock_mhz > 0 ? s->gips.clock_mhz : s->clock_mhz);
	}
	if (d->total_mem_b > 0)
		source(sb, "memory_gib",
		       "datasheet: device-reported total memory, %.0f bytes "
		       "(cudaDeviceProp.totalGlobalMem: what the driver makes usable, a little "
		       "below "
		       "the marketed size) [BENCH]",
		       d->total_mem_b);
	source(sb, "limits",
	       "datasheet: device-reported by cudaDeviceGetAttribute "
	       "(MaxThreadsPerMultiProcessor, MaxThreadsPerBlock, MaxBlocksPerMultiprocessor, "
	       "MaxRegistersPerMultiprocessor, MaxRegistersPerBlock, "
	       "MaxSharedMemoryPerMultiprocessor, "
	       "MaxSharedMemoryPerBlockOptin, ReservedSharedMemoryPerBlock, L2CacheSize) [BENCH]");
	source(sb, "limits.regs_per_thread", "datasheet: 255 registers per thread [PG]");
	source(sb, "limits.reg_alloc_unit", "datasheet: 256 registers per warp [OCC]");
	source(sb, "limits.smem_alloc_unit_b", "datasheet: %d B on CC %d.%d [OCC]",
	       d->cc_major >= 8 ? 128 : 256, d->cc_major, d->cc_minor);
	if (e->peak_derived)
		source(sb, "peak_gflops",
		       "derived: 2 x FMA results/clk/SM [PG] x sms x clock_mhz / "
		       "1000 with FP32 %d, FP64 %d, FP16 %d results/clk/SM (CC %d.%d)",
		       bench_fma_lanes(d->cc_major, d->cc_minor, GPUPROJ_FP32),
		       bench_fma_lanes(d->cc_major, d->cc_minor, GPUPROJ_FP64),
		       bench_fma_lanes(d->cc_major, d->cc_minor, GPUPROJ_FP16), d->cc_major,
		       d->cc_minor);
	else
		source(sb, "peak_gflops", "estimate: the measured FMA rates (max_gflops); gpuproj "
		       "has no table of FMA lanes per SM for CC %d.%d", d->cc_major, d->cc_minor);
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		const struct bench_rate *f = &s->fp[p][BENCH_FOP_FMA];
		const char *pn = gpuproj_prec_name(p);
		char path[48];

		if (f->ok) {
			rate_note(note, sizeof(note), f);
			snprintf(path, sizeof(path), "max_gflops.%s_fma", pn);
			source(sb, path,
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
				source(sb, path,
				       "measured: mean of the %s loop, %.1f GFLOP/s (%s), and "
				       "the %s loop, %.1f GFLOP/s (%s) [BENCH]",
				       fp_ins[p][1], a->value, note, fp_ins[p][2], m->value, note2);
			} else {
				const struct bench_rate *one = a->ok ? a : m;

				rate_note(note, sizeof(note), one);
				source(sb, path,
				       "measured: the %s loop only (%s; the %s loop failed) "
				       "[BENCH]",
				       fp_ins[p][a->ok ? 1 : 2], note, fop[a->ok ? 2 : 1]);
			}
		}
	}
	if (s->int_add.ok) {
		rate_note(note, sizeof(note), &s->int_add);
		source(sb, "peak_giops.int32_add", "measured: IADD3 loop, one op per IADD3, %s "
		       "[BENCH]", note);
	}
	if (s->int_mad.ok) {
		rate_note(note, sizeof(note), &s->int_mad);
		source(sb, "peak_giops.int32_mad", "measured: IMAD loop, two ops per IMAD, %s "
		       "[BENCH]", note);
	}
	if (s->ldst.ok) {
		rate_note(note, sizeof(note), &s->ldst);
		source(sb, "ldst_shared_gops", "measured: conflict-free 32-bit LDS and STS loop, "
		       "thread instructions per second, %s [BENCH]", note);
	}
	if (s->peak_dram_gbs > 0)
		source(sb, "peak_bw_gbs",
		       "derived: 2 x memory clock %.0f MHz x bus width %d bits / 8 "
		       "(both device-reported; double data rate) [BENCH]",
		       d->mem_clock_mhz, d->mem_bus_bits);
	if (e->bw_measured[GPUPROJ_LEVEL_DRAM]) {
		static const char *const dn[] = { "init", "read", "copy", "scale", "triad" };
		char init[48] = "(failed)";

		if (s->dram[BENCH_DRAM_INIT].ok)
			snprintf(init, sizeof(init), "%.1f GB/s", s->dram[BENCH_DRAM_INIT].value);
		rate_note(note, sizeof(note), &s->dram[s->dram_best]);
		source(sb, "bw_gbs.dram",
		       "measured: best of the read, copy, scale and triad "
		       "medians (STREAM-like, double, arrays of %s = %.1f x L2): %s, %s; "
		       "write-only "
		       "init %s not used [BENCH]",
		       mib(s->dram_array_b, sz, sizeof(sz)), s->dram_array_b / d->l2_b,
		       dn[s->dram_best], note, init);
	} else {
		source(sb, "bw_gbs.dram",
		       "estimate: NOT MEASURED (the DRAM benchmarks failed); 0.9 x "
		       "the derived peak %.1f GB/s",
		       s->peak_dram_gbs);
	}
	if (e->bw_measured[GPUPROJ_LEVEL_L2]) {
		char seg[200] = "";

		if (s->l2_drop_pct > 15)
			snprintf(seg, sizeof(seg),
				 "; segmented L2: %.0f%% lower at %s (between L2/2 "
				 "and the L2 size)",
				 s->l2_drop_pct, mib(s->l2_drop_footprint_b, sz, sizeof(sz)));
		source(sb, "bw_gbs.l2", "measured: plateau = median of the L2 read sweep medians "
		       "over footprints L2/8 to L2/2 (%zu points, 16-byte ld.global.cg loads, "
		       "L1 bypassed)%s [BENCH]", s->l2_plateau_points, seg);
	} else {
		source(sb, "bw_gbs.l2", "estimate: NOT MEASURED; 2.5 x bw_gbs.dram (the middle of "
		       "the measured L2/DRAM ratios of GV100, GA100 and GH100)");
	}
	if (e->bw_measured[GPUPROJ_LEVEL_L1]) {
		const struct bench_rate *best = &s->l1[0].r;

		for (i = 0; i < s->n_l1; i++) {
			if (s->l1[i].size_b == s->l1_size_b)
				best = &s->l1[i].r;
		}
		rate_note(note, sizeof(note), best);
		source(sb, "bw_gbs.l1", "measured: one block per SM re-reading its own buffer, "
		       "16-byte ld.global.nc loads, best of %zu sizes: %s, %s [BENCH]", s->n_l1,
		       mib(s->l1_size_b, sz, sizeof(sz)), note);
	} else {
		source(sb, "bw_gbs.l1",
		       "estimate: NOT MEASURED; %d B/clk/SM x sms x clock_mhz / 1000 "
		       "(128 on GV100, GA100, GH100 and GB100 class SMs, 64 on the others, as "
		       "public gpu-cache measurements show)",
		       l1_bytes_per_clk(d));
	}
	if (e->bw_measured[GPUPROJ_LEVEL_SHARED]) {
		const struct bench_shared_point *one = &s->shared[0];

		for (i = 0; i < s->n_shared; i++) {
			if (s->shared[i].stride == 1)
				one = &s->shared[i];
		}
		rate_note(note, sizeof(note), &one->r);
		source(sb, "bw_gbs.shared",
		       "measured: conflict-free 32-bit LDS loop, %.1f B/clk/SM, "
		       "%s [BENCH]",
		       one->bytes_per_clk_sm, note);
	} else {
		source(sb, "bw_gbs.shared", "estimate: NOT MEASURED; 128 B/clk/SM (32 banks x 4 B) "
		       "x sms x clock_mhz / 1000");
	}
	if (d->nvml && d->power_limit_w > 0)
		source(sb, "tdp_w", "datasheet: device-reported default power limit "
		       "(NVML nvmlDeviceGetPowerManagementDefaultLimit) [BENCH]");
}

int
bench_yaml_emit(const struct bench_raw *raw, const struct bench_summary *sum,
		const struct bench_yaml_info *info, char **ret, struct gpuproj_error *err)
{
	struct emit e = { .raw = raw, .d = &raw->dev, .s = sum };
	struct strbuf sb;
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
	e.clock = round(sum->clock_mhz);
	if (!(e.clock > 0))
		return error_set(err, GPUPROJ_E_MISSING, NULL, 0, 0,
				 "no SM clock: neither observed nor reported by the device");
	r = choose_bandwidths(&e, err);
	if (!r)
		r = choose_peaks(&e, err);
	if (r)
		return r;
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
	chip = chip_for(raw->dev.cc_major, raw->dev.cc_minor, &chip_exact);

	strbuf_init(&sb);
	emit_header(&sb, &e, info, chip, chip_exact);
	strbuf_append(&sb, "schema: gpuproj-targets/1\n");
	emit_references(&sb, &e, info);
	emit_numbers(&sb, &e, name, chip);
	emit_sources(&sb, &e);
	free(name);
	if (sb.oom) {
		strbuf_free(&sb);
		return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	*ret = strbuf_steal(&sb);
	return GPUPROJ_OK;
}
