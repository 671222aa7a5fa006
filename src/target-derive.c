/* SPDX-License-Identifier: MIT */
/*
 * Provisional targets.yaml entries for GPUs the file does not list, from
 * what the CUDA driver reported about the device (the profile's `device`
 * and `device.driver`) and the per-SM figures of a sibling in the file:
 * the same architecture (compute capability), the same chip where the file
 * has one. The method is the file's own rule for a GPU without a
 * measurement (targets.yaml header, docs/targets-schema.md "One basis per
 * level"): a value is derived from a named sibling's measured efficiency,
 * never from a flat factor. Every number carries its source, so the entry
 * passes the loader and `gpuproj targets check --one-basis`; it is built
 * as YAML text and loaded by the one loader (target.c), which is also what
 * `gpuproj targets derive` prints for the user to refine.
 *
 *   from the driver (basis datasheet: the device's own report)
 *     sms, boost_clock_mhz (CU_DEVICE_ATTRIBUTE_CLOCK_RATE, the maximum
 *     clock), memory_gib, limits (threads, blocks, registers, shared memory
 *     per SM and block, reserved shared memory, L2 size), warp_size, tdp_w
 *     (NVML's enforced power limit)
 *   derived
 *     peak_bw_gbs.dram = 2 x memory clock x bus width / 8 (double data
 *       rate; the formula of NVIDIA's deviceQuery/bandwidthTest samples)
 *     bw_gbs.dram = stream_gbs.triad = peak_bw_gbs.dram x the sibling's
 *       triad / peak
 *     clock_mhz = boost x the sibling's clock_mhz / boost_clock_mhz
 *     peak_gflops, max_gflops = 2 x lanes_per_sm x sms x boost or clock
 *     bw_gbs.l2, .l1, .shared = the sibling's bytes per SM-clock x sms x
 *       boost; peak_giops, ldst_shared_gops = its per-SM-clock rate x sms
 *       x clock_mhz
 *     latency_ns: the sibling's l1 and l2 cycles at this clock, its dram ns
 *   from the sibling (same architecture)
 *     lanes_per_sm, schedulers_per_sm, ipc_per_scheduler, regs_per_thread,
 *     reg_alloc_unit, smem_alloc_unit_b, and any limit the driver did not
 *     report
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "target-private.h"
#include "util.h"

/* How well `t` can serve as the sibling of `d`: -1 unusable, higher is better. */
static int
sibling_score(const struct gpuproj_target *t, const struct gpuproj_device_info *d)
{
	int score = 0;

	if (t->vendor != GPUPROJ_VENDOR_NVIDIA || t->cc_major != d->cc_major ||
	    t->cc_minor != d->cc_minor || t->provisional)
		return -1;
	/* Per-SM figures and the DRAM efficiency need these. */
	if (isnan(t->lanes_per_sm[GPUPROJ_LANE_FP32]) || isnan(t->boost_clock_mhz) ||
	    isnan(t->stream_gbs[GPUPROJ_STREAM_TRIAD]) || isnan(t->peak_dram_gbs))
		return -1;
	if (d->chip && t->chip && strcasecmp(d->chip, t->chip) == 0)
		score += 100;
	if (gpuproj_target_basis(t, "stream_gbs.triad") == GPUPROJ_BASIS_MEASURED)
		score += 10;
	if (gpuproj_target_basis(t, "max_gflops.fp32_fma") == GPUPROJ_BASIS_MEASURED ||
	    gpuproj_target_basis(t, "clock_mhz") == GPUPROJ_BASIS_MEASURED)
		score += 5;
	return score;
}

static const struct gpuproj_target *
pick_sibling(const struct gpuproj_device_info *d, const struct gpuproj_targets *targets)
{
	const struct gpuproj_target *best = NULL;
	int best_score = -1;
	size_t i;

	for (i = 0; i < gpuproj_targets_count(targets); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(targets, i);
		int s = sibling_score(t, d);

		/* Ties: the SM count closest to the device's, then file order. */
		if (s > best_score ||
		    (s == best_score && s >= 0 && abs(t->sms - d->sms) < abs(best->sms - d->sms))) {
			best = t;
			best_score = s;
		}
	}
	return best_score >= 0 ? best : NULL;
}

/* "NVIDIA RTX A6000" -> "RTX-A6000": the name rules of targets.yaml. */
static void
entry_name(const char *device, const struct gpuproj_targets *targets, char *out, size_t size)
{
	size_t n = 0;
	bool dash = false;
	const char *p = device;

	if (strncasecmp(p, "NVIDIA ", 7) == 0)
		p += 7;
	for (; *p && n + 1 < size; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '+';

		if (ok) {
			out[n++] = *p;
			dash = false;
		} else if (!dash && n > 0) {
			out[n++] = '-';
			dash = true;
		}
	}
	while (n > 0 && out[n - 1] == '-')
		n--;
	out[n] = '\0';
	if (n == 0)
		snprintf(out, size, "device");
	/* Never the name of a GPU in the file. */
	if (gpuproj_targets_find(targets, out) && strlen(out) + 8 < size)
		strcat(out, "-device");
}

/*
 * A YAML double-quoted scalar (YAML 1.2 §5.7, escaped characters): '"' and
 * '\' escaped, and what a terminal acts on (the entry is printed
 * on standard output) as YAML escapes that load back to the same text: C0
 * controls and DEL as \xNN, C1 controls (U+0080 to U+009F) as \xNN, the
 * bidirectional controls as \uNNNN.
 */
static void
yaml_quoted(struct strbuf *sb, const char *s)
{
	const unsigned char *u;
	uint32_t cp;
	size_t n;

	strbuf_append(sb, "\"");
	while (*s) {
		u = (const unsigned char *)s;
		n = 1;
		if (*s == '"' || *s == '\\')
			strbuf_printf(sb, "\\%c", *s);
		else if (u[0] < 0x20 || u[0] == 0x7f)
			strbuf_printf(sb, "\\x%02x", u[0]);
		else if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] < 0xa0) {
			strbuf_printf(sb, "\\x%02x", u[1]);
			n = 2;
		} else if ((n = text_bidi_len(s, &cp)) != 0)
			strbuf_printf(sb, "\\u%04x", (unsigned)cp);
		else
			strbuf_appendn(sb, s, n = 1);
		s += n;
	}
	strbuf_append(sb, "\"");
}

/* A chip name as it came (GA102), or quoted when it holds anything else. */
static void
yaml_plain_or_quoted(struct strbuf *sb, const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");

	if (*s && !s[n] && s[0] != '-' && s[0] != '.')
		strbuf_append(sb, s);
	else
		yaml_quoted(sb, s);
}

/* A number as targets.yaml writes one: up to one decimal, no exponent. */
static void
num(struct strbuf *sb, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		strbuf_printf(sb, "%.0f", v);
	else if (fabs(v) >= 100)
		strbuf_printf(sb, "%.1f", v);
	else
		strbuf_printf(sb, "%.4g", v);
}

static void
kv(struct strbuf *sb, const char *key, double v, bool more)
{
	strbuf_printf(sb, "%s: ", key);
	num(sb, v);
	if (more)
		strbuf_append(sb, ", ");
}

static void
source(struct strbuf *sb, const char *path, const char *fmt, ...) GPUPROJ_PRINTF(3, 4);

static void
source(struct strbuf *sb, const char *path, const char *fmt, ...)
{
	char text[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	strbuf_printf(sb, "      %s: ", path);
	yaml_quoted(sb, text);
	strbuf_append(sb, "\n");
}

/* A driver attribute, or NaN. */
static double
drv(const struct gpuproj_device_info *d, enum gpuproj_driver_attr a)
{
	return d->driver[a];
}

int
gpuproj_target_derive_yaml(const struct gpuproj_device_info *d,
			   const struct gpuproj_targets *targets, char **ret_yaml,
			   struct gpuproj_error *reterr)
{
	static const enum gpuproj_prec precs[] = { GPUPROJ_FP16, GPUPROJ_FP32, GPUPROJ_FP64 };
	static const enum gpuproj_lane prec_lane[] = { GPUPROJ_LANE_FP16, GPUPROJ_LANE_FP32,
						       GPUPROJ_LANE_FP64 };
	const struct gpuproj_target *s;
	struct gpuproj_target_limits lim;
	struct strbuf sb;
	char name[96], arch[16];
	double boost, clock, sm_boost, sm_clock, mem_khz, bus, peak_dram, triad_eff, triad;
	double drv_lim;
	size_t i;

	if (!d || !targets || !ret_yaml)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	*ret_yaml = NULL;
	if (!d->name || !*d->name || d->cc_major <= 0 || d->sms <= 0 || !(d->clock_hz > 0))
		return error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0, "the profile does not "
				 "record the GPU's name, compute capability, SM count and clock, "
				 "which a provisional entry is derived from");
	mem_khz = drv(d, GPUPROJ_DRV_MEMORY_CLOCK_KHZ);
	bus = drv(d, GPUPROJ_DRV_MEMORY_BUS_BITS);
	if (isnan(mem_khz) || isnan(bus))
		return error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0, "the profile does not "
				 "record the GPU's memory clock and bus width (device.driver, "
				 "written by libproj.so since gpuproj %s)", GPUPROJ_VERSION);
	s = pick_sibling(d, targets);
	if (!s)
		return error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0, "targets.yaml has no GPU "
				 "of compute capability %d.%d with lanes_per_sm, stream_gbs.triad and "
				 "peak_bw_gbs.dram to take per-SM figures from", d->cc_major,
				 d->cc_minor);

	entry_name(d->name, targets, name, sizeof(name));
	snprintf(arch, sizeof(arch), "sm_%d%d", d->cc_major, d->cc_minor);
	boost = d->clock_hz / 1e6;
	clock = boost * s->clock_mhz / s->boost_clock_mhz;
	/* Per-SM scale factors: this GPU's SMs x clock over the sibling's. */
	sm_boost = d->sms * boost / (s->sms * s->boost_clock_mhz);
	sm_clock = d->sms * clock / (s->sms * s->clock_mhz);
	peak_dram = 2.0 * mem_khz * 1e3 * bus / 8.0 / 1e9;
	triad_eff = s->stream_gbs[GPUPROJ_STREAM_TRIAD] / s->peak_dram_gbs;
	triad = peak_dram * triad_eff;

	lim = s->limits;
#define LIM(field, attr, scale)                                                                    \
	do {                                                                                       \
		drv_lim = drv(d, attr);                                                            \
		if (!isnan(drv_lim))                                                               \
			lim.field = (int)(drv_lim / (scale));                                      \
	} while (0)
	LIM(threads_per_sm, GPUPROJ_DRV_THREADS_PER_SM, 1);
	LIM(threads_per_block, GPUPROJ_DRV_THREADS_PER_BLOCK, 1);
	LIM(blocks_per_sm, GPUPROJ_DRV_BLOCKS_PER_SM, 1);
	LIM(regs_per_sm, GPUPROJ_DRV_REGS_PER_SM, 1);
	LIM(regs_per_block, GPUPROJ_DRV_REGS_PER_BLOCK, 1);
	LIM(smem_per_sm_kib, GPUPROJ_DRV_SMEM_PER_SM_BYTES, 1024);
	LIM(smem_per_block_kib, GPUPROJ_DRV_SMEM_PER_BLOCK_OPTIN_BYTES, 1024);
	LIM(smem_reserved_per_block_b, GPUPROJ_DRV_SMEM_RESERVED_PER_BLOCK_BYTES, 1);
#undef LIM
	if (!isnan(drv(d, GPUPROJ_DRV_L2_BYTES)))
		lim.l2_mib = drv(d, GPUPROJ_DRV_L2_BYTES) / (1024.0 * 1024.0);

	strbuf_init(&sb);
	strbuf_append(&sb, "# A provisional entry: gpuproj derived it from the driver's device "
		      "attributes recorded in a\n# profile and the per-SM figures of ");
	strbuf_append(&sb, s->name);
	strbuf_append(&sb, " (same architecture). Replace the derived numbers\n# with "
		      "measurements (`gpuproj bench` measures them) and their sources.\n");
	strbuf_append(&sb, "schema: gpuproj-targets/1\n\nreferences:\n  DEV: ");
	{
		char text[512];

		snprintf(text, sizeof(text), "the CUDA driver's report of '%s' as libproj.so "
			 "recorded it in the profile (device: cuDeviceGetAttribute's compute "
			 "capability, multiprocessor count and clock rate; device.driver: memory "
			 "clock rate and bus width, cuDeviceTotalMem, L2 size, the per-SM and "
			 "per-block limits, and NVML's enforced power limit)", d->name);
		yaml_quoted(&sb, text);
		strbuf_append(&sb, "\n  SIB: ");
		snprintf(text, sizeof(text), "the targets.yaml entry %s%s%s%s, the GPU of the same "
			 "architecture (sm_%d%d, chip %s) whose per-SM figures these are; its own "
			 "sources say where each comes from", s->name, s->description ? " (" : "",
			 s->description ? s->description : "", s->description ? ")" : "",
			 d->cc_major, d->cc_minor, s->chip);
		yaml_quoted(&sb, text);
	}
	strbuf_append(&sb, "\n  CUDA-SAMPLES: \"NVIDIA/cuda-samples, deviceQuery and bandwidthTest: "
		      "peak memory bandwidth = 2 x memory clock rate x bus width / 8 (double data "
		      "rate)\"\n\ngpus:\n  - name: ");
	strbuf_append(&sb, name);
	strbuf_append(&sb, "\n    description: ");
	{
		char text[512];

		snprintf(text, sizeof(text), "%s (provisional: derived from the driver's device "
			 "attributes and %s)", d->name, s->name);
		yaml_quoted(&sb, text);
	}
	strbuf_append(&sb, "\n    match: [");
	yaml_quoted(&sb, d->name);
	strbuf_printf(&sb, "]\n    vendor: nvidia\n    arch: %s\n    chip: ", arch);
	yaml_plain_or_quoted(&sb, d->chip && *d->chip ? d->chip : s->chip);
	strbuf_printf(&sb, "\n    sms: %d\n    warp_size: %d\n    clock_mhz: ", d->sms,
		      isnan(drv(d, GPUPROJ_DRV_WARP_SIZE)) ? s->warp_size
							   : (int)drv(d, GPUPROJ_DRV_WARP_SIZE));
	num(&sb, clock);
	strbuf_append(&sb, "\n    boost_clock_mhz: ");
	num(&sb, boost);
	strbuf_printf(&sb, "\n    schedulers_per_sm: %d\n", s->schedulers_per_sm);
	if (s->ipc_per_scheduler != 1) {
		strbuf_append(&sb, "    ipc_per_scheduler: ");
		num(&sb, s->ipc_per_scheduler);
		strbuf_append(&sb, "\n");
	}
	if (!isnan(drv(d, GPUPROJ_DRV_MEMORY_BYTES))) {
		strbuf_append(&sb, "    memory_gib: ");
		num(&sb, round(drv(d, GPUPROJ_DRV_MEMORY_BYTES) / 1073741824.0 * 10) / 10);
		strbuf_append(&sb, "\n");
	}
	strbuf_printf(&sb, "    limits: {threads_per_sm: %d, threads_per_block: %d, blocks_per_sm: "
		      "%d, regs_per_sm: %d,\n              regs_per_block: %d, regs_per_thread: "
		      "%d, reg_alloc_unit: %d, smem_per_sm_kib: %d,\n              "
		      "smem_per_block_kib: %d, smem_alloc_unit_b: %d, smem_reserved_per_block_b: "
		      "%d, l2_mib: ", lim.threads_per_sm, lim.threads_per_block, lim.blocks_per_sm,
		      lim.regs_per_sm, lim.regs_per_block, lim.regs_per_thread, lim.reg_alloc_unit,
		      lim.smem_per_sm_kib, lim.smem_per_block_kib, lim.smem_alloc_unit_b,
		      lim.smem_reserved_per_block_b);
	num(&sb, lim.l2_mib);
	strbuf_append(&sb, "}\n    peak_gflops: {");
	for (i = 0; i < 3; i++) {
		char key[24];

		snprintf(key, sizeof(key), "%s_fma", gpuproj_prec_name(precs[i]));
		kv(&sb, key, round(2 * s->lanes_per_sm[prec_lane[i]] * d->sms * boost / 100) / 10,
		   i < 2);
	}
	strbuf_append(&sb, "}\n    max_gflops: {");
	for (i = 0; i < 3; i++) {
		char key[24];

		snprintf(key, sizeof(key), "%s_fma", gpuproj_prec_name(precs[i]));
		kv(&sb, key, round(2 * s->lanes_per_sm[prec_lane[i]] * d->sms * clock / 100) / 10,
		   i < 2);
	}
	strbuf_append(&sb, "}\n");
	if (!isnan(s->int32_add_giops) && !isnan(s->int32_mad_giops)) {
		strbuf_append(&sb, "    peak_giops: {");
		kv(&sb, "int32_add", round(s->int32_add_giops * sm_clock * 10) / 10, true);
		kv(&sb, "int32_mad", round(s->int32_mad_giops * sm_clock * 10) / 10, false);
		strbuf_append(&sb, "}\n");
	}
	if (!isnan(s->ldst_shared_gops)) {
		strbuf_append(&sb, "    ldst_shared_gops: ");
		num(&sb, round(s->ldst_shared_gops * sm_clock * 10) / 10);
		strbuf_append(&sb, "\n");
	}
	strbuf_append(&sb, "    peak_bw_gbs: {");
	kv(&sb, "dram", round(peak_dram * 10) / 10, false);
	strbuf_append(&sb, "}\n    bw_gbs: {");
	kv(&sb, "dram", round(triad * 10) / 10, true);
	kv(&sb, "l2", round(s->bw_gbs[GPUPROJ_LEVEL_L2] * sm_boost * 10) / 10, true);
	kv(&sb, "l1", round(s->bw_gbs[GPUPROJ_LEVEL_L1] * sm_boost * 10) / 10, true);
	kv(&sb, "shared", round(s->bw_gbs[GPUPROJ_LEVEL_SHARED] * sm_boost * 10) / 10, false);
	strbuf_append(&sb, "}\n    lanes_per_sm: {");
	for (i = 0; i < GPUPROJ_LANE_COUNT; i++)
		kv(&sb, gpuproj_lane_name(i), s->lanes_per_sm[i], i + 1 < GPUPROJ_LANE_COUNT);
	strbuf_append(&sb, "}\n    stream_gbs: {");
	kv(&sb, "triad", round(triad * 10) / 10, false);
	strbuf_append(&sb, "}\n");
	if (!isnan(s->latency_ns[GPUPROJ_LEVEL_L2]) && !isnan(s->latency_ns[GPUPROJ_LEVEL_DRAM])) {
		double cyc = s->boost_clock_mhz / boost;

		strbuf_append(&sb, "    latency_ns: {");
		if (!isnan(s->latency_ns[GPUPROJ_LEVEL_L1]))
			kv(&sb, "l1", round(s->latency_ns[GPUPROJ_LEVEL_L1] * cyc * 10) / 10, true);
		kv(&sb, "l2", round(s->latency_ns[GPUPROJ_LEVEL_L2] * cyc * 10) / 10, true);
		kv(&sb, "dram", fmax(s->latency_ns[GPUPROJ_LEVEL_DRAM],
				     round(s->latency_ns[GPUPROJ_LEVEL_L2] * cyc * 10) / 10 + 0.1),
		   false);
		strbuf_append(&sb, "}\n");
	}
	strbuf_append(&sb, "    price_usd: null\n    tdp_w: ");
	if (isnan(drv(d, GPUPROJ_DRV_POWER_LIMIT_W)))
		strbuf_append(&sb, "null");
	else
		num(&sb, round(drv(d, GPUPROJ_DRV_POWER_LIMIT_W) * 10) / 10);

	strbuf_append(&sb, "\n    sources:\n");
	source(&sb, "sms", "datasheet: the driver's multiprocessor count [DEV]");
	source(&sb, "warp_size", "datasheet: %s [DEV]",
	       isnan(drv(d, GPUPROJ_DRV_WARP_SIZE)) ? "not reported: the architecture's, as for "
						      "the sibling" : "the driver's warp size");
	source(&sb, "boost_clock_mhz", "datasheet: the driver's clock rate (the maximum SM "
	       "clock) [DEV]");
	source(&sb, "clock_mhz", "derived: %s's sustained fraction of boost under FMA load, "
	       "%g/%g MHz [SIB], x boost_clock_mhz; a board with less power per SM may hold "
	       "less", s->name, s->clock_mhz, s->boost_clock_mhz);
	source(&sb, "schedulers_per_sm", "derived: the architecture's, as %s [SIB]", s->name);
	if (s->ipc_per_scheduler != 1)
		source(&sb, "ipc_per_scheduler", "derived: the architecture's, as %s [SIB]",
		       s->name);
	if (!isnan(drv(d, GPUPROJ_DRV_MEMORY_BYTES)))
		source(&sb, "memory_gib", "datasheet: cuDeviceTotalMem [DEV]");
	source(&sb, "limits", "datasheet: the driver's per-SM and per-block limits [DEV]; those "
	       "it does not report (registers per thread, allocation units) and any it did not "
	       "give are %s's [SIB]", s->name);
	source(&sb, "limits.l2_mib", "%s", isnan(drv(d, GPUPROJ_DRV_L2_BYTES))
					     ? "derived: not reported; the sibling's [SIB]"
					     : "datasheet: the driver's L2 cache size [DEV]");
	source(&sb, "peak_gflops", "derived: 2 x lanes_per_sm x sms x boost_clock_mhz / 1000");
	source(&sb, "max_gflops", "derived: 2 x lanes_per_sm x sms x clock_mhz / 1000");
	if (!isnan(s->int32_add_giops) && !isnan(s->int32_mad_giops))
		source(&sb, "peak_giops", "derived: %s's per-SM-clock rates [SIB] x sms x clock_mhz",
		       s->name);
	if (!isnan(s->ldst_shared_gops))
		source(&sb, "ldst_shared_gops", "derived: %s's per-SM-clock rate [SIB] x sms x "
		       "clock_mhz", s->name);
	source(&sb, "peak_bw_gbs", "derived: 2 x %g MHz memory clock x %g-bit bus / 8 [DEV], "
	       "[CUDA-SAMPLES]", mem_khz / 1e3, bus);
	source(&sb, "bw_gbs.dram", "derived: %s's triad efficiency %g/%g = %.1f%% [SIB] x "
	       "peak_bw_gbs.dram (bw_gbs.dram = stream_gbs.triad, the one DRAM basis)", s->name,
	       s->stream_gbs[GPUPROJ_STREAM_TRIAD], s->peak_dram_gbs, 100 * triad_eff);
	source(&sb, "bw_gbs.l2", "derived: %s's L2 bytes per SM-clock [SIB] x sms x "
	       "boost_clock_mhz", s->name);
	source(&sb, "bw_gbs.l1", "derived: %s's L1 bytes per SM-clock [SIB] x sms x "
	       "boost_clock_mhz", s->name);
	source(&sb, "bw_gbs.shared", "derived: %s's shared-memory bytes per SM-clock [SIB] x sms "
	       "x boost_clock_mhz", s->name);
	source(&sb, "lanes_per_sm", "derived: the architecture's (sm_%d%d), as %s [SIB]",
	       d->cc_major, d->cc_minor, s->name);
	source(&sb, "stream_gbs.triad", "derived: %s's triad efficiency %.1f%% [SIB] x "
	       "peak_bw_gbs.dram", s->name, 100 * triad_eff);
	if (!isnan(s->latency_ns[GPUPROJ_LEVEL_L2]) && !isnan(s->latency_ns[GPUPROJ_LEVEL_DRAM]))
		source(&sb, "latency_ns", "derived: %s's L1 and L2 latencies in cycles at "
		       "boost_clock_mhz, its DRAM latency in ns [SIB]", s->name);
	source(&sb, "tdp_w", "%s", isnan(drv(d, GPUPROJ_DRV_POWER_LIMIT_W))
				      ? "estimate: unknown (NVML did not report a power limit)"
				      : "datasheet: NVML's enforced power limit [DEV]");
	if (sb.oom) {
		strbuf_free(&sb);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	/*
	 * Issue 35 #6: the entry is checked as `gpuproj targets check
	 * --one-basis` would check it, so that what derive prints (or the
	 * projection uses) is never an entry the file's rules refuse: a memory
	 * clock of 1 kHz gave `dram: 0`.
	 */
	{
		struct gpuproj_targets *set = NULL;
		struct gpuproj_error e = { 0 };
		int r = gpuproj_targets_load_buffer(sb.buf, sb.len, "the derived entry", &set, &e);

		if (r == GPUPROJ_OK)
			r = gpuproj_target_check_one_basis(gpuproj_targets_get(set, 0), NULL, &e);
		gpuproj_targets_free(set);
		if (r != GPUPROJ_OK) {
			strbuf_free(&sb);
			if (r == GPUPROJ_E_NOMEM)
				return error_set(reterr, r, NULL, 0, 0, "out of memory");
			return error_set(reterr, GPUPROJ_E_SCHEMA, NULL, 0, 0, "the entry derived "
					 "from the driver's report of '%s' fails the checks of "
					 "`gpuproj targets check --one-basis` (line %d: %s): the "
					 "device attributes it rests on are no GPU's (memory clock "
					 "%g kHz, bus %g bits, %d SMs at %g MHz)", d->name, e.line,
					 e.message, mem_khz, bus, d->sms, boost);
		}
	}
	*ret_yaml = strbuf_steal(&sb);
	return GPUPROJ_OK;
}

int
gpuproj_targets_derive(const struct gpuproj_device_info *d, const struct gpuproj_targets *targets,
		       struct gpuproj_targets **ret, struct gpuproj_error *reterr)
{
	struct gpuproj_targets *set = NULL;
	char *yaml = NULL, file[128];
	const struct gpuproj_target *s;
	int r;

	if (!ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	r = gpuproj_target_derive_yaml(d, targets, &yaml, reterr);
	if (r != GPUPROJ_OK)
		return r;
	s = pick_sibling(d, targets);
	snprintf(file, sizeof(file), "the entry derived for '%.80s'", d->name);
	r = gpuproj_targets_load_buffer(yaml, strlen(yaml), file, &set, reterr);
	free(yaml);
	if (r != GPUPROJ_OK)
		return r;
	if (target_mark_provisional(set, s->name) != GPUPROJ_OK) {
		gpuproj_targets_free(set);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	*ret = set;
	return GPUPROJ_OK;
}

int
gpuproj_resolve_source_or_derive(const struct gpuproj_profile *p,
				 const struct gpuproj_targets *targets, const char *override,
				 const struct gpuproj_target **ret,
				 struct gpuproj_targets **ret_derived, struct gpuproj_error *reterr)
{
	struct gpuproj_error why = { 0 };
	int r;

	if (!ret_derived)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	*ret_derived = NULL;
	r = gpuproj_resolve_source(p, targets, override, ret, reterr);
	if (r != GPUPROJ_E_NOTFOUND || override)
		return r;
	if (gpuproj_targets_derive(gpuproj_profile_device(p), targets, ret_derived, &why) ==
	    GPUPROJ_OK) {
		*ret = gpuproj_targets_get(*ret_derived, 0);
		return GPUPROJ_OK;
	}
	if (why.status == GPUPROJ_E_NOMEM)
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	if (reterr) {
		char msg[GPUPROJ_ERROR_MSG_SIZE];

		snprintf(msg, sizeof(msg), "%s", reterr->message);
		error_set(reterr, GPUPROJ_E_NOTFOUND, NULL, 0, 0, "%s; no provisional entry either: "
			  "%s", msg, why.message);
	}
	return GPUPROJ_E_NOTFOUND;
}
