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
 * as YAML text by the entry writer (target-emit.c) and loaded by the one
 * loader (target.c), which is also what `gpuproj targets derive` prints for
 * the user to refine.
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
 *     fp32_dense_gflops = the sibling's fp32_dense_gflops / max_gflops (at
 *       most 1) x this max_gflops (at most the peak); sustained_clock_mhz =
 *       the sibling's sustained clock / its highest clock (boost or
 *       clock_mhz) x this GPU's highest clock
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

#include "target-emit.h"
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

/* Rounded to one decimal, as the entry writes it. */
static double
r1(double v)
{
	return round(v * 10) / 10;
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
	struct target_emit w;
	struct strbuf sb;
	char name[96], arch[16];
	double boost, clock, sm_boost, sm_clock, mem_khz, bus, peak_dram, triad_eff, triad;
	double drv_lim, dense_frac, sus_frac;
	size_t i;
	int r;

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
				 "written by libproj.so since gpuproj %s, and by `gpuproj import "
				 "ncu` from device__attribute_memory_clock_rate and "
				 "device__attribute_global_memory_bus_width)", GPUPROJ_VERSION);
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
	dense_frac = fmin(1.0, s->fp32_dense_gflops / s->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA]);
	sus_frac = s->sustained_clock_mhz / fmax(s->boost_clock_mhz, s->clock_mhz);

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
	target_emit_schema(&sb);
	strbuf_append(&sb, "\n");
	target_emit_references(&sb);
	{
		char text[512];

		snprintf(text, sizeof(text), "the CUDA driver's report of '%s' recorded in the "
			 "profile by libproj.so or from an Nsight Compute export's "
			 "device__attribute_* metrics (device: cuDeviceGetAttribute's compute "
			 "capability, multiprocessor count and clock rate; device.driver: memory "
			 "clock rate and bus width, cuDeviceTotalMem, L2 size, the per-SM and "
			 "per-block limits, and NVML's enforced power limit)", d->name);
		target_emit_reference(&sb, "DEV", text);
		snprintf(text, sizeof(text), "the targets.yaml entry %s%s%s%s, the GPU of the same "
			 "architecture (sm_%d%d, chip %s) whose per-SM figures these are; its own "
			 "sources say where each comes from", s->name, s->description ? " (" : "",
			 s->description ? s->description : "", s->description ? ")" : "",
			 d->cc_major, d->cc_minor, s->chip);
		target_emit_reference(&sb, "SIB", text);
	}
	target_emit_reference(&sb, "CUDA-SAMPLES", "NVIDIA/cuda-samples, deviceQuery and "
			      "bandwidthTest: peak memory bandwidth = 2 x memory clock rate x bus "
			      "width / 8 (double data rate)");
	strbuf_append(&sb, "\n");
	target_emit_gpus(&sb);
	target_emit_entry(&w, &sb, name);
	{
		char text[512];

		snprintf(text, sizeof(text), "%s (provisional: derived from the driver's device "
			 "attributes and %s)", d->name, s->name);
		target_emit_text(&w, "description", text);
	}
	{
		const char *match[] = { d->name };

		target_emit_list(&w, "match", match, 1);
	}
	target_emit_vendor(&w, GPUPROJ_VENDOR_NVIDIA);
	target_emit_word(&w, "arch", arch);
	target_emit_word(&w, "chip", d->chip && *d->chip ? d->chip : s->chip);
	/* Numbers as targets.yaml writes them (TARGET_EMIT_SHORT), the counts as integers. */
#define NUM(path, v) target_emit_number(&w, path, v, TARGET_EMIT_SHORT)
#define MEMBER(group, i, v) target_emit_member(&w, group, i, v, TARGET_EMIT_SHORT)
	target_emit_number(&w, "sms", d->sms, TARGET_EMIT_F0);
	target_emit_number(&w, "warp_size", isnan(drv(d, GPUPROJ_DRV_WARP_SIZE))
			   ? s->warp_size : (int)drv(d, GPUPROJ_DRV_WARP_SIZE), TARGET_EMIT_F0);
	NUM("clock_mhz", clock);
	NUM("boost_clock_mhz", boost);
	target_emit_number(&w, "schedulers_per_sm", s->schedulers_per_sm, TARGET_EMIT_F0);
	if (s->ipc_per_scheduler != 1)
		NUM("ipc_per_scheduler", s->ipc_per_scheduler);
	if (!isnan(drv(d, GPUPROJ_DRV_MEMORY_BYTES)))
		NUM("memory_gib", r1(drv(d, GPUPROJ_DRV_MEMORY_BYTES) / 1073741824.0));
	target_emit_limits(&w, &lim, TARGET_EMIT_SHORT, 1);
	/* [prec][kind] members: FMA at 2 x prec (target-fields.c) */
	for (i = 0; i < 3; i++)
		MEMBER("peak_gflops", 2 * precs[i],
		       round(2 * s->lanes_per_sm[prec_lane[i]] * d->sms * boost / 100) / 10);
	for (i = 0; i < 3; i++)
		MEMBER("max_gflops", 2 * precs[i],
		       round(2 * s->lanes_per_sm[prec_lane[i]] * d->sms * clock / 100) / 10);
	/* The FFMA-dense rate and the sustained clock: the sibling's fractions (header). */
	if (!isnan(s->fp32_dense_gflops)) {
		double g = fmin(dense_frac * clock, boost) * 2 * s->lanes_per_sm[GPUPROJ_LANE_FP32];

		NUM("fp32_dense_gflops", round(g * d->sms / 100) / 10);
	}
	if (!isnan(s->sustained_clock_mhz))
		NUM("sustained_clock_mhz", r1(sus_frac * fmax(boost, clock)));
	if (!isnan(s->int32_add_giops) && !isnan(s->int32_mad_giops)) {
		NUM("peak_giops.int32_add", r1(s->int32_add_giops * sm_clock));
		NUM("peak_giops.int32_mad", r1(s->int32_mad_giops * sm_clock));
	}
	if (!isnan(s->ldst_shared_gops))
		NUM("ldst_shared_gops", r1(s->ldst_shared_gops * sm_clock));
	NUM("peak_bw_gbs.dram", r1(peak_dram));
	MEMBER("bw_gbs", GPUPROJ_LEVEL_DRAM, r1(triad));
	MEMBER("bw_gbs", GPUPROJ_LEVEL_L2, r1(s->bw_gbs[GPUPROJ_LEVEL_L2] * sm_boost));
	MEMBER("bw_gbs", GPUPROJ_LEVEL_L1, r1(s->bw_gbs[GPUPROJ_LEVEL_L1] * sm_boost));
	MEMBER("bw_gbs", GPUPROJ_LEVEL_SHARED, r1(s->bw_gbs[GPUPROJ_LEVEL_SHARED] * sm_boost));
	for (i = 0; i < GPUPROJ_LANE_COUNT; i++)
		MEMBER("lanes_per_sm", i, s->lanes_per_sm[i]);
	MEMBER("stream_gbs", GPUPROJ_STREAM_TRIAD, r1(triad));
	if (!isnan(s->latency_ns[GPUPROJ_LEVEL_L2]) && !isnan(s->latency_ns[GPUPROJ_LEVEL_DRAM])) {
		const double *lat = s->latency_ns;
		double cyc = s->boost_clock_mhz / boost, l2 = r1(lat[GPUPROJ_LEVEL_L2] * cyc);

		if (!isnan(lat[GPUPROJ_LEVEL_L1]))
			MEMBER("latency_ns", GPUPROJ_LEVEL_L1, r1(lat[GPUPROJ_LEVEL_L1] * cyc));
		MEMBER("latency_ns", GPUPROJ_LEVEL_L2, l2);
		MEMBER("latency_ns", GPUPROJ_LEVEL_DRAM, fmax(lat[GPUPROJ_LEVEL_DRAM], l2 + 0.1));
	}
	target_emit_null(&w, "price_usd", NULL);
	if (isnan(drv(d, GPUPROJ_DRV_POWER_LIMIT_W)))
		target_emit_null(&w, "tdp_w", NULL);
	else
		NUM("tdp_w", r1(drv(d, GPUPROJ_DRV_POWER_LIMIT_W)));
#undef NUM
#undef MEMBER

	target_emit_sources(&w);
	target_emit_source(&w, "sms", "datasheet: the driver's multiprocessor count [DEV]");
	target_emit_source(&w, "warp_size", "datasheet: %s [DEV]",
			   isnan(drv(d, GPUPROJ_DRV_WARP_SIZE))
				   ? "not reported: the architecture's, as for the sibling"
				   : "the driver's warp size");
	target_emit_source(&w, "boost_clock_mhz", "datasheet: the driver's clock rate (the maximum "
			   "SM clock) [DEV]");
	target_emit_source(&w, "clock_mhz", "derived: %s's sustained fraction of boost under FMA "
			   "load, %g/%g MHz [SIB], x boost_clock_mhz; a board with less power per "
			   "SM may hold less", s->name, s->clock_mhz, s->boost_clock_mhz);
	target_emit_source(&w, "schedulers_per_sm", "derived: the architecture's, as %s [SIB]",
			   s->name);
	if (s->ipc_per_scheduler != 1)
		target_emit_source(&w, "ipc_per_scheduler", "derived: the architecture's, as %s "
				   "[SIB]", s->name);
	if (!isnan(drv(d, GPUPROJ_DRV_MEMORY_BYTES)))
		target_emit_source(&w, "memory_gib", "datasheet: cuDeviceTotalMem [DEV]");
	target_emit_source(&w, "limits", "datasheet: the driver's per-SM and per-block limits "
			   "[DEV]; those it does not report (registers per thread, allocation "
			   "units) and any it did not give are %s's [SIB]", s->name);
	target_emit_source(&w, "limits.l2_mib", "%s", isnan(drv(d, GPUPROJ_DRV_L2_BYTES))
			   ? "derived: not reported; the sibling's [SIB]"
			   : "datasheet: the driver's L2 cache size [DEV]");
	target_emit_source(&w, "peak_gflops", "derived: 2 x lanes_per_sm x sms x boost_clock_mhz "
			   "/ 1000");
	target_emit_source(&w, "max_gflops", "derived: 2 x lanes_per_sm x sms x clock_mhz / 1000");
	if (!isnan(s->fp32_dense_gflops))
		target_emit_source(&w, "fp32_dense_gflops", "derived: sibling %s [SIB]: its "
				   "fp32_dense_gflops / max_gflops.fp32_fma = %g/%g (at most 1) x "
				   "this max_gflops.fp32_fma, at most the peak (the same SM "
				   "datapath; its power class assumed)", s->name,
				   s->fp32_dense_gflops,
				   s->max_gflops[GPUPROJ_FP32][GPUPROJ_OP_FMA]);
	if (!isnan(s->sustained_clock_mhz))
		target_emit_source(&w, "sustained_clock_mhz", "derived: sibling %s [SIB]: its "
				   "sustained_clock_mhz / its highest clock = %g/%g x this GPU's "
				   "highest clock; a board with less power per SM may hold less",
				   s->name, s->sustained_clock_mhz,
				   fmax(s->boost_clock_mhz, s->clock_mhz));
	if (!isnan(s->int32_add_giops) && !isnan(s->int32_mad_giops))
		target_emit_source(&w, "peak_giops", "derived: %s's per-SM-clock rates [SIB] x sms "
				   "x clock_mhz", s->name);
	if (!isnan(s->ldst_shared_gops))
		target_emit_source(&w, "ldst_shared_gops", "derived: %s's per-SM-clock rate [SIB] "
				   "x sms x clock_mhz", s->name);
	target_emit_source(&w, "peak_bw_gbs", "derived: 2 x %g MHz memory clock x %g-bit bus / 8 "
			   "[DEV], [CUDA-SAMPLES]", mem_khz / 1e3, bus);
	target_emit_source(&w, "bw_gbs.dram", "derived: %s's triad efficiency %g/%g = %.1f%% "
			   "[SIB] x peak_bw_gbs.dram (bw_gbs.dram = stream_gbs.triad, the one DRAM "
			   "basis)", s->name, s->stream_gbs[GPUPROJ_STREAM_TRIAD], s->peak_dram_gbs,
			   100 * triad_eff);
	target_emit_source(&w, "bw_gbs.l2", "derived: %s's L2 bytes per SM-clock [SIB] x sms x "
			   "boost_clock_mhz", s->name);
	target_emit_source(&w, "bw_gbs.l1", "derived: %s's L1 bytes per SM-clock [SIB] x sms x "
			   "boost_clock_mhz", s->name);
	target_emit_source(&w, "bw_gbs.shared", "derived: %s's shared-memory bytes per SM-clock "
			   "[SIB] x sms x boost_clock_mhz", s->name);
	target_emit_source(&w, "lanes_per_sm", "derived: the architecture's (sm_%d%d), as %s "
			   "[SIB]", d->cc_major, d->cc_minor, s->name);
	target_emit_source(&w, "stream_gbs.triad", "derived: %s's triad efficiency %.1f%% [SIB] x "
			   "peak_bw_gbs.dram", s->name, 100 * triad_eff);
	if (!isnan(s->latency_ns[GPUPROJ_LEVEL_L2]) && !isnan(s->latency_ns[GPUPROJ_LEVEL_DRAM]))
		target_emit_source(&w, "latency_ns", "derived: %s's L1 and L2 latencies in cycles "
				   "at boost_clock_mhz, its DRAM latency in ns [SIB]", s->name);
	/* A null tdp_w carries no source (the loader refuses a source for an absent value). */
	if (!isnan(drv(d, GPUPROJ_DRV_POWER_LIMIT_W)))
		target_emit_source(&w, "tdp_w", "datasheet: NVML's enforced power limit [DEV]");
	r = target_emit_end(&w, reterr);
	if (r) {
		strbuf_free(&sb);
		return r;
	}
	/*
	 * The entry is checked as `gpuproj targets check
	 * --one-basis` would check it, so that what derive prints (or the
	 * projection uses) is never an entry the file's rules refuse: a memory
	 * clock of 1 kHz gave `dram: 0`.
	 */
	{
		struct gpuproj_targets *set = NULL;
		struct gpuproj_error e = { 0 };

		r = gpuproj_targets_load_buffer(sb.buf, sb.len, "the derived entry", &set, &e);
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
