/* SPDX-License-Identifier: MIT */
/*
 * occupancy — occupancy-aware roofline transfer: Srivastava, Naha, Gupta,
 * Rao, "Cross-GPU Performance Prediction Using Analytical Models and
 * Machine Learning" ([Srivastava-nd]), §4.1–5.3, Algorithm 1, equations 4–12,
 * plus wave quantisation for the under-used GPUs of [VanLanker2024] §5.3.
 *
 * Per GPU x (source s, target t), per kernel, per launch:
 *   O_x      = B_x·w / M_x, theoretical occupancy (§4.1.2; B_x blocks per SM
 *              from registers with allocation granularity, shared memory
 *              with granularity and the per-block reservation, threads and
 *              the hardware block limit: occupancy.h, the CUDA rules)
 *   C_x      = Perf^mix of the kernel's instruction mix ([VanLanker2024] eq. 2:
 *              "Peak Compute" of the precision the kernel uses; max_gflops
 *              where measured, else peak_gflops — §5.4's sustained values)
 *   BW_x     = bw_gbs.dram
 *   FLOP = 0 (pure memory, eqs. 6–8):
 *     BW_meas = Bytes / T_s; η = BW_meas / (O_s·BW_s)           (6, 7)
 *     T_t     = Bytes_t / (η·O_t·BW_t)                           (8)
 *   FLOP > 0 (compute or mixed, eqs. 9–12):
 *     AI = FLOP / Bytes; Roof_x = min(C_x, AI·BW_x)              (9)
 *     P_meas = FLOP / T_s; η = P_meas / (O_s·Roof_s)             (10, 11)
 *     T_t    = FLOP_t / (η·O_t·Roof_t)                           (12)
 *   i.e. T_t = T_s · (Roof_s/Roof_t) · (O_s/O_t) · (η_s/η_t ≈ 1)   (4, 5)
 * with FLOP_t = r·FLOP (r from the SASS comparison, 1 by default) and
 * Bytes = bytes.dram (Bytes_t ≠ Bytes only with the L2-capacity option).
 *
 * Wave quantisation (our addition; the seed assumes "steady state
 * dominates" and names "tail effects" and under-use as where it breaks;
 * [VanLanker2024] §5.3 shows kernels that "do not benefit from running on powerful
 * GPUs due to their lack of parallelism"). The transfer uses the
 * effective occupancy O'_x = O_x·u_x, with the wave fill
 * u_x = G / (waves_x·n_x), waves_x = ⌈G / n_x⌉ for a grid of G blocks and
 * n_x blocks per wave. ASSUMPTION (both definitions): a partial last wave
 * costs a full wave, and a wave's time is set by per-SM throughput. Two
 * definitions of a wave (option `waves`):
 * - "resident": n_x = B_x·SMs_x, the blocks resident at once. Then
 *   O'_x·Roof_x = (G·w/M_x)·(Roof_x/SMs_x)/waves_x: a grid smaller than one
 *   wave (G < B_t·SMs_t) runs at the target's per-SM roof — more SMs do not
 *   make it faster — and for G ≫ B·SMs this tends to the seed's O_x·Roof_x.
 *   Here each SM's throughput grows with its resident warps (the seed's
 *   linear O).
 * - "sm" (default, the better fit on the validation data): n_x = SMs_x,
 *   one block per SM per wave; the busiest SM runs ⌈G / SMs⌉ blocks, which
 *   share its throughput O_x·η·Roof_x/SMs_x however many are resident at
 *   once. A grid with fewer blocks than SMs does not speed up with more
 *   SMs; one with more blocks does, until every SM has work.
 * - "off": u = 1, the seed as published.
 * On gpuperfpredict "resident" doubled the MAPE (it predicts no gain from
 * the P100's 56 SMs for grids of 51–512 blocks, which run 2–6× faster
 * there), "sm" was slightly better than "off" (docs/validation.md).
 *
 * Point estimate: T_t above. Interval: between it and the plain roofline
 * ratio without occupancy or waves (T_s·r·Roof_s/Roof_t), so the interval
 * shows how much the occupancy terms move the estimate.
 *
 * Binding on the target: "latency" when the grid is less than one wave
 * there; else "occupancy" when O_t < O_s (the target holds fewer warps per
 * SM than the source did); else "dram" or "compute" from Roof_t.
 *
 * Further assumptions (the seed's): kernel efficiency η transfers; the
 * kernel uses the same registers per thread and shared memory per block on
 * the target (another compiler could allocate differently); DRAM traffic
 * is the same on both GPUs (unless the L2-capacity option is on).
 *
 * Thread safety: stateless and reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

int
model_occ_waves(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
		enum gpuproj_waves waves, struct gpuproj_occmodel *out, char *why, size_t whylen)
{
	double threads;
	long smem;
	int r;

	memset(out, 0, sizeof(*out));
	if (!gpuproj_kernel_geometry_known(k)) {
		/* Placeholders, not a launch of one thread (profile.h). */
		if (why)
			snprintf(why, whylen, "needs %s: the launch geometry was not recorded",
				 MODEL_GEOMETRY);
		return GPUPROJ_E_MISSING;
	}
	threads = (double)k->block.x * k->block.y * k->block.z;
	out->grid_blocks = (double)k->grid.x * k->grid.y * k->grid.z;
	if (!(threads >= 1) || !(out->grid_blocks >= 1) || threads > 1 << 30) {
		if (why)
			snprintf(why, whylen, "unusable launch: grid %ux%ux%u, block %ux%ux%u",
				 k->grid.x, k->grid.y, k->grid.z, k->block.x, k->block.y, k->block.z);
		return GPUPROJ_E_INVAL;
	}
	smem = (long)k->smem_static + (long)k->smem_dynamic;
	out->regs_used = k->regs_per_thread;
	r = gpuproj_occupancy_compute(gpu, (int)threads, (int)k->regs_per_thread, smem, &out->occ);
	/*
	 * More registers per thread (or per block) than the GPU allows: its
	 * compiler fits the kernel into the limit, spilling the rest
	 * (GPUPROJ_ASSUME_REGS_CAPPED; the spills' cost is not modelled). The
	 * most registers per thread that fit, one less at a time (≤ 255 tries).
	 */
	if (r == GPUPROJ_E_UNSUPPORTED && out->occ.limit_regs == 0 && out->occ.limit_threads > 0 &&
	    out->occ.limit_smem > 0 && k->regs_per_thread > 0) {
		struct gpuproj_occupancy capped;
		int regs = (int)k->regs_per_thread;

		if (gpu->limits.regs_per_thread > 0 && regs > gpu->limits.regs_per_thread)
			regs = gpu->limits.regs_per_thread;
		for (; regs > 0; regs--) {
			if (gpuproj_occupancy_compute(gpu, (int)threads, regs, smem, &capped) ==
			    GPUPROJ_OK) {
				out->occ = capped;
				out->regs_capped = true;
				out->regs_used = (unsigned)regs;
				r = GPUPROJ_OK;
				break;
			}
		}
	}
	if (r == GPUPROJ_E_UNSUPPORTED) {
		if (why)
			snprintf(why, whylen, "a block of %.0f threads, %u registers/thread and %ld B "
				 "shared memory does not fit on %s (blocks/SM by threads %d, "
				 "registers %d, shared memory %d)", threads, k->regs_per_thread,
				 smem, gpu->name, out->occ.limit_threads, out->occ.limit_regs,
				 out->occ.limit_smem);
		return r;
	}
	if (r) {
		if (why)
			snprintf(why, whylen, "%s: limits unusable for the occupancy calculation",
				 gpu->name);
		return r;
	}

	if (waves == GPUPROJ_WAVES_DEFAULT)
		waves = gpuproj_waves_default();
	out->wave_model = waves;
	switch (waves) {
	case GPUPROJ_WAVES_RESIDENT:
		out->wave_blocks = (double)out->occ.blocks_per_sm * gpu->sms;
		break;
	case GPUPROJ_WAVES_SM:
		out->wave_blocks = gpu->sms;
		break;
	case GPUPROJ_WAVES_OFF:
	case GPUPROJ_WAVES_DEFAULT:
		out->wave_model = GPUPROJ_WAVES_OFF;
		out->wave_blocks = out->grid_blocks;
		break;
	default:
		/* Not an enumerator: no wave size, and the fill would be NaN. */
		if (why)
			snprintf(why, whylen, "unknown wave quantisation %d", (int)waves);
		return GPUPROJ_E_INVAL;
	}
	out->waves = ceil(out->grid_blocks / out->wave_blocks);
	out->wave_fill = out->grid_blocks / (out->waves * out->wave_blocks);
	out->occupancy_eff = out->occ.occupancy * out->wave_fill;
	return GPUPROJ_OK;
}

/*
 * What Algorithm 1 reads from the kernel: its DRAM bytes (unless given),
 * at least one FP instruction count and its register count.
 */
static void
occ_needs(const struct gpuproj_kernel *k, bool need_bytes, struct model_missing *out)
{
	bool any_fp;

	model_flop(k, &any_fp);
	if (!any_fp && need_bytes && !gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM))
		model_missing_add(out, MODEL_FP_GROUP " or bytes.dram");
}

void
occupancy_needs(const struct gpuproj_kernel *k, struct model_missing *out)
{
	occ_needs(k, true, out);
}

/*
 * Algorithm 1's stand-ins: no FP count, the pure-memory case (eqs. 6–8);
 * no DRAM bytes, the compute roof alone (AI = ∞); no registers, no
 * register limit; no launch geometry, no occupancy or wave term (the plain
 * roofline ratio, the interval's other end).
 */
unsigned
occupancy_assumes(const struct gpuproj_kernel *k)
{
	unsigned bits = 0;
	bool any_fp;

	model_flop(k, &any_fp);
	if (!any_fp)
		bits |= 1u << GPUPROJ_ASSUME_FLOP;
	if (!gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM))
		bits |= 1u << GPUPROJ_ASSUME_DRAM;
	if (!gpuproj_kernel_geometry_known(k))
		bits |= 1u << GPUPROJ_ASSUME_GEOMETRY;
	else if (k->regs_per_thread == 0)
		bits |= 1u << GPUPROJ_ASSUME_REGISTERS;
	return bits;
}

/*
 * gpuproj_occmodel_compute() with the DRAM bytes given (`bytes` ≥ 0) or
 * read from the kernel (NaN).
 */
static int
occ_compute(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu, double flop_ratio,
	    enum gpuproj_waves waves, double bytes, struct gpuproj_occmodel *out, char *why,
	    size_t whylen)
{
	struct model_missing missing = { 0 };
	double flop = 0, mix = 0;
	int r;

	occ_needs(k, isnan(bytes), &missing);
	r = model_flop_mix(k, gpu, &flop, &mix, why, whylen);
	if (r == GPUPROJ_E_INVAL)
		return r;
	if (missing.n)
		return model_missing_why(&missing, "occupancy", why, whylen);
	if (r == GPUPROJ_E_MISSING)
		flop = mix = 0; /* no FP count: the pure-memory case (ASSUME_FLOP) */
	/* No DRAM bytes: the compute roof alone (ASSUME_DRAM). */
	if (isnan(bytes))
		bytes = gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM)
				? gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM)
				: 0.0;
	if (bytes < 0) {
		if (why)
			snprintf(why, whylen, "metric bytes.dram is negative");
		return GPUPROJ_E_INVAL;
	}
	if (gpuproj_kernel_geometry_known(k)) {
		r = model_occ_waves(k, gpu, waves, out, why, whylen);
		if (r)
			return r;
	} else {
		/* No launch geometry: no occupancy or wave term (ASSUME_GEOMETRY). */
		memset(out, 0, sizeof(*out));
		out->occ.occupancy = 1;
		out->wave_model = GPUPROJ_WAVES_OFF;
		out->grid_blocks = out->wave_blocks = out->waves = 1;
		out->wave_fill = out->occupancy_eff = 1;
	}
	out->flop = flop * (flop_ratio > 0 ? flop_ratio : 1.0);
	out->bytes = bytes;
	out->peak_compute = out->flop > 0 ? mix : 0;
	out->bw = gpu->bw_gbs[GPUPROJ_LEVEL_DRAM] * 1e9;
	if (out->flop > 0) {
		out->ai = bytes > 0 ? out->flop / bytes : INFINITY;
		out->roof = fmin(out->peak_compute, out->ai * out->bw);           /* eq. 9 */
		out->memory_bound = out->ai * out->bw < out->peak_compute;
	} else {
		out->ai = 0;
		out->roof = out->bw;
		out->memory_bound = true;
	}
	return GPUPROJ_OK;
}

int
gpuproj_occmodel_compute(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
			 double flop_ratio, enum gpuproj_waves waves, struct gpuproj_occmodel *out,
			 char *why, size_t whylen)
{
	if (!k || !gpu || !out)
		return GPUPROJ_E_INVAL;
	return occ_compute(k, gpu, flop_ratio, waves, NAN, out, why, whylen);
}

/* Both GPUs' quantities; the target's with the context's DRAM bytes. */
static int
both(const struct model_ctx *c, struct gpuproj_occmodel *s, struct gpuproj_occmodel *t,
     char *why, size_t whylen)
{
	int r = occ_compute(c->k, c->src, 1.0, c->waves, NAN, s, why, whylen);

	if (r == GPUPROJ_OK)
		r = occ_compute(c->kt, c->tgt, c->flop_ratio, c->waves, c->dram_equiv_tgt, t, why,
				whylen);
	if (r == GPUPROJ_OK && s->flop == 0 && s->bytes == 0) {
		if (why)
			snprintf(why, whylen, "kernel has neither FLOP nor DRAM traffic to scale by");
		r = GPUPROJ_E_UNSUPPORTED;
	}
	return r;
}

int
occupancy_project(const struct model_ctx *c, struct gpuproj_projection *out)
{
	struct gpuproj_occmodel s, t;
	double ts = gpuproj_kernel_mean_ns(c->k), t_occ, t_plain, work;
	char ls[64], lt[64];
	int r;

	if (isnan(ts) || ts <= 0) {
		snprintf(out->why, sizeof(out->why), "no timed launch (duration)");
		return out->status = GPUPROJ_E_MISSING;
	}
	r = both(c, &s, &t, out->why, sizeof(out->why));
	if (r)
		return out->status = r;
	out->flop_ratio = c->flop_ratio;
	/* FLOP_t / FLOP_s (eq. 12) or Bytes_t / Bytes_s (eq. 8). */
	work = s.flop > 0 ? c->flop_ratio : (s.bytes > 0 ? t.bytes / s.bytes : 1.0);
	t_plain = ts * work * s.roof / t.roof;
	t_occ = t_plain * s.occupancy_eff / t.occupancy_eff;                       /* eq. 4 */
	out->point_ns = t_occ;
	out->lo_ns = fmin(t_occ, t_plain);
	out->hi_ns = fmax(t_occ, t_plain);
	if (t.wave_model != GPUPROJ_WAVES_OFF && t.grid_blocks < t.wave_blocks)
		out->binding = GPUPROJ_BOUND_LATENCY;
	else if (t.occ.occupancy < s.occ.occupancy)
		out->binding = GPUPROJ_BOUND_OCCUPANCY;
	else
		out->binding = t.memory_bound ? GPUPROJ_BOUND_DRAM : GPUPROJ_BOUND_COMPUTE;
	if (s.regs_capped || t.regs_capped)
		out->assumed |= 1u << GPUPROJ_ASSUME_REGS_CAPPED;
	if (c->notes && !gpuproj_kernel_geometry_known(c->k))
		snprintf(out->note, sizeof(out->note),
			 "launch geometry unknown: the roofline ratio without occupancy or waves");
	else if (c->notes)
		snprintf(out->note, sizeof(out->note),
			 "occupancy %.2f (%s) -> %.2f (%s), %s waves %.0f -> %.0f (fill %.2f -> %.2f)",
			 s.occ.occupancy, gpuproj_occupancy_limit_names(s.occ.limiting, ls, sizeof(ls)),
			 t.occ.occupancy, gpuproj_occupancy_limit_names(t.occ.limiting, lt, sizeof(lt)),
			 gpuproj_waves_name(t.wave_model), s.waves, t.waves, s.wave_fill, t.wave_fill);
	return out->status = GPUPROJ_OK;
}

int
occupancy_details(const struct model_ctx *c, struct gpuproj_model_details *out)
{
	static const char *const nm[2][17] = {
		{ "src.blocks_per_sm", "src.limit_threads", "src.limit_regs", "src.limit_smem",
		  "src.limit_blocks", "src.occupancy", "src.wave_blocks", "src.waves",
		  "src.wave_fill", "src.occupancy_eff", "src.flop", "src.bytes_dram",
		  "src.peak_compute", "src.bw_dram", "src.ai", "src.roof", "src.eta" },
		{ "tgt.blocks_per_sm", "tgt.limit_threads", "tgt.limit_regs", "tgt.limit_smem",
		  "tgt.limit_blocks", "tgt.occupancy", "tgt.wave_blocks", "tgt.waves",
		  "tgt.wave_fill", "tgt.occupancy_eff", "tgt.flop", "tgt.bytes_dram",
		  "tgt.peak_compute", "tgt.bw_dram", "tgt.ai", "tgt.roof", "tgt.eta" },
	};
	struct gpuproj_occmodel g[2];
	double ts = gpuproj_kernel_mean_ns(c->k);
	int r, i;

	r = both(c, &g[0], &g[1], NULL, 0);
	if (r)
		return r;
	if (isnan(ts) || ts <= 0)
		return GPUPROJ_E_MISSING;
	for (i = 0; i < 2; i++) {
		const struct gpuproj_occmodel *o = &g[i];
		const struct gpuproj_target *gpu = i ? c->tgt : c->src;

		model_detail(out, nm[i][0], o->occ.blocks_per_sm, "blocks");
		model_detail(out, nm[i][1], o->occ.limit_threads, "blocks");
		model_detail(out, nm[i][2], o->occ.limit_regs, "blocks");
		model_detail(out, nm[i][3], o->occ.limit_smem, "blocks");
		model_detail(out, nm[i][4], o->occ.limit_blocks, "blocks");
		model_detail(out, nm[i][5], o->occ.occupancy, "ratio");
		model_detail(out, nm[i][6], o->wave_blocks, "blocks");
		model_detail(out, nm[i][7], o->waves, "waves");
		model_detail(out, nm[i][8], o->wave_fill, "ratio");
		model_detail(out, nm[i][9], o->occupancy_eff, "ratio");
		model_detail(out, nm[i][10], o->flop, "FLOP");
		model_detail(out, nm[i][11], o->bytes, "B");
		model_detail(out, nm[i][12], o->peak_compute, "FLOP/s");
		model_detail_key(out, gpu, nm[i][13], o->bw, "B/s", "bw_gbs.dram");
		model_detail(out, nm[i][14], o->ai, "FLOP/B");
		model_detail(out, nm[i][15], o->roof, o->flop > 0 ? "FLOP/s" : "B/s");
		/* η of eqs. 7/11 on the source; the target's is assumed equal (eq. 4). */
		model_detail(out, nm[i][16],
			     g[0].flop > 0 ? g[0].flop / (ts * 1e-9) / (g[0].occupancy_eff * g[0].roof)
					   : g[0].bytes / (ts * 1e-9) / (g[0].occupancy_eff * g[0].roof),
			     "ratio");
	}
	return GPUPROJ_OK;
}
