/* SPDX-License-Identifier: MIT */
/*
 * hroof-occ — the hierarchical roofline of [VanLanker2024] (model-hroof.c, eqs.
 * 1–10) with occupancy as latency hiding: Little's law on the kernel's
 * memory traffic below L1, plus the wave quantisation of [Srivastava-nd]'s
 * occupancy model (model-occupancy.c).
 *
 * Sources of the term:
 * - J. D. C. Little, "A proof for the queuing formula L = λW", Operations
 *   Research 9(3):383–387, 1961: in steady state the mean number of items
 *   in a system equals their arrival rate times their mean time in it. For
 *   a memory level: bytes in flight = bandwidth × latency.
 * - V. Volkov, "Understanding Latency Hiding on GPUs", PhD thesis, UC
 *   Berkeley, 2016 (EECS-2016-143), ch. 4–6: a GPU hides memory latency by
 *   keeping enough warps resident; a memory-bound kernel's throughput is
 *   min(peak bandwidth, warps × bytes in flight per warp / latency), so it
 *   saturates at an occupancy set by latency × bandwidth, not at 100 %, and
 *   throughput is *not* proportional to occupancy (the assumption of seed
 *   002 eq. 4, which this term replaces).
 *
 * Per GPU g (source s, target t), per kernel and launch:
 *   B_g   resident blocks per SM (occupancy.h: CUDA occupancy rules), w warps
 *         per block, G blocks in the grid
 *   W_g = w · min(G, B_g · SMs_g)               warps resident at once
 *   D_g = N_L2 · L_L2,g + N_DRAM · L_DRAM,g    latency-weighted bytes, B·ns
 *         with hroof's hits N_L2 = max(B_L2 − B_DRAM, 0), N_DRAM = B_DRAM
 *         (eq. 4) and the pointer-chase latencies latency_ns.{l2,dram} of
 *         targets.yaml. D_g / T is Little's law: the bytes in flight needed
 *         to move those bytes in time T.
 * Memory-level parallelism (bytes in flight per warp, b) from the source:
 *   b_lo   = D_s / (W_s · T_s)        what the source measurement shows: its
 *                                     warps held at least this much in
 *                                     flight on average (exact when the
 *                                     source was latency-bound)
 *   b_life = B_L2 / (G · w)           every byte a warp moves below L1 —
 *                                     the most it can have in flight
 *   e_s    = min(T_roof,s / T_s, 1)   how close the source ran to a roof:
 *                                     T_roof,s is the largest stand-alone
 *                                     time of hroof (FLOP/Perf^ceil, t_L1,
 *                                     t_shM, t_L2, t_DRAM, eqs. 3–5)
 *   σ      = clamp((e_s − 0.5) / (0.9 − 0.5), 0, 1)
 *   b      = b_lo^(1−σ) · max(b_lo, b_life)^σ
 * A source far from every roof (e_s ≤ 0.5) was limited by latency, and its
 * warps held exactly b_lo in flight; a source at a roof (e_s ≥ 0.9) hides
 * its latency, the measurement bounds b only from below, and the code's own
 * bound b_life is taken (a warp that issues all its loads before it waits
 * on them, as streaming kernels do); in between, geometrically between the
 * two, so that the projection is continuous in the source's time. The two
 * thresholds are fixed by that reading, not fitted.
 * Target:
 *   T_lat,t = D_t / (W_t · b)         the time Little's law allows the
 *                                     target's resident warps
 *   u_g     wave fill (model-occupancy.c, option `waves`: "sm" by default)
 *   T_t(x)  = max(T_hroof,t(x) · u_s / u_t, T_lat,t)   for x ∈ {L1, L2, DRAM}
 * where T_hroof,t(x) is hroof's level-x projection (eq. 9, with the SASS
 * FLOP ratio and, with the option, the L2-capacity DRAM bytes). The
 * interval is [min, max] over the levels and the point its midpoint, as in
 * hroof. So:
 * - a kernel that saturates on the source and still covers latency on the
 *   target (T_lat,t ≤ its hroof time) projects exactly as hroof (× the wave
 *   fill ratio, 1 for grids of many waves on both);
 * - a kernel latency-bound on the source (b = b_lo) projects to
 *   T_s · (D_t/D_s) · (W_s/W_t) where that is slower than hroof: more
 *   bandwidth does not help it, fewer resident warps or longer latency
 *   slow it in proportion;
 * - the under-one-wave case: W_t counts only the G·w warps that exist, and
 *   u_t < 1 keeps [VanLanker2024] §5.3's kernels that do not speed up on a larger
 *   GPU.
 * Where a GPU of the pair has no latency_ns for a level that carries
 * traffic, the Little term is skipped (hroof × wave fill) and the note says
 * so. The option occupancy_term = linear restores the previous term, hroof
 * × [Srivastava-nd]'s O'_s/O'_t (eq. 4, O' = occupancy × wave fill).
 *
 * Binding on the target: "occupancy" when the Little term sets the time
 * (too few resident warps to hide the latency), else "latency" when the
 * grid has fewer blocks than a wave there, else hroof's. (Linear term:
 * "latency" under one wave, "occupancy" when O_t < O_s, else hroof's.)
 *
 * Assumptions: hroof's (bytes per level and warp efficiency transfer);
 * the kernel uses the same registers and shared memory per block on both
 * GPUs; b is a property of the code and transfers; loaded latency grows
 * with the load, which the unloaded pointer-chase latencies do not show
 * (the term is optimistic near saturation, where hroof's ceilings take
 * over). An unknown register count (regs_per_thread 0) applies no register
 * limit; the note says so.
 *
 * Validation: the gpu-benches gpu-stream sweeps (tests/data/gpu-stream-
 * sweeps.txt, test-models.c) and docs/validation.md "The default model, and
 * why".
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

/* e_s below which the source counts as latency-bound, and above which as throughput-bound. */
#define LH_LATENCY_BOUND 0.5
#define LH_THROUGHPUT_BOUND 0.9

int
gpuproj_latency_hiding(struct gpuproj_latency_hiding *lh)
{
	double b_hi;

	if (!lh)
		return GPUPROJ_E_INVAL;
	lh->efficiency = lh->blend = lh->mlp_lo = lh->mlp = lh->tgt_ns = NAN;
	if (!(lh->src_ns > 0) || !(lh->src_roof_ns >= 0) || !(lh->src_warps > 0) ||
	    !(lh->tgt_warps > 0) || !(lh->src_lat_bytes >= 0) || !(lh->tgt_lat_bytes >= 0) ||
	    !(lh->life_bytes >= 0) || !isfinite(lh->src_ns) || !isfinite(lh->src_roof_ns) ||
	    !isfinite(lh->src_warps) || !isfinite(lh->tgt_warps) ||
	    !isfinite(lh->src_lat_bytes) || !isfinite(lh->tgt_lat_bytes) ||
	    !isfinite(lh->life_bytes))
		return GPUPROJ_E_INVAL;
	lh->efficiency = fmin(lh->src_roof_ns / lh->src_ns, 1.0);
	lh->blend = (lh->efficiency - LH_LATENCY_BOUND) / (LH_THROUGHPUT_BOUND - LH_LATENCY_BOUND);
	lh->blend = lh->from_source ? fmin(fmax(lh->blend, 0.0), 1.0) : 1.0;
	lh->mlp_lo = lh->src_lat_bytes / (lh->src_warps * lh->src_ns);
	b_hi = fmax(lh->mlp_lo, lh->life_bytes);
	if (lh->blend >= 1 || !(lh->mlp_lo > 0))
		lh->mlp = b_hi; /* (also: no traffic below L1 on the source, nothing to infer) */
	else if (lh->blend <= 0)
		lh->mlp = lh->mlp_lo;
	else
		lh->mlp = exp((1.0 - lh->blend) * log(lh->mlp_lo) + lh->blend * log(b_hi));
	lh->tgt_ns = lh->tgt_lat_bytes > 0 && lh->mlp > 0
			     ? lh->tgt_lat_bytes / (lh->tgt_warps * lh->mlp)
			     : 0.0;
	return GPUPROJ_OK;
}

/*
 * The ceilings a launch can reach when its grid fills a share u of the
 * SMs' wave slots (u = wave fill, model-occupancy.c): the SM-local rates
 * (FLOP/s, tensor-core rates, L1 and shared bandwidth) scale with u; L2 and DRAM are shared by
 * the whole GPU and stay, up to what the busy SMs can request through
 * their L1s (u · bw_gbs.l1). With u = 1 the GPU is unchanged.
 */
static void
wave_ceilings(const struct gpuproj_target *g, double u, struct gpuproj_target *out)
{
	int p, k;

	*out = *g;
	if (!(u < 1) || !(u > 0))
		return;
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (k = 0; k < GPUPROJ_OPKIND_COUNT; k++) {
			out->peak_gflops[p][k] *= u;
			out->max_gflops[p][k] *= u; /* NaN stays NaN */
		}
	}
	/* The tensor cores are SM-local too (0, "no such path", stays 0). */
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		out->peak_tensor[p] *= u;
		out->max_tensor[p] *= u;
	}
	out->bw_gbs[GPUPROJ_LEVEL_L1] *= u;
	out->bw_gbs[GPUPROJ_LEVEL_SHARED] *= u;
	out->bw_gbs[GPUPROJ_LEVEL_L2] = fmin(g->bw_gbs[GPUPROJ_LEVEL_L2], out->bw_gbs[GPUPROJ_LEVEL_L1]);
	out->bw_gbs[GPUPROJ_LEVEL_DRAM] = fmin(g->bw_gbs[GPUPROJ_LEVEL_DRAM],
					       out->bw_gbs[GPUPROJ_LEVEL_L1]);
}

/* Occupancy and waves on both GPUs; why names the problem. */
static int
factor(const struct model_ctx *c, struct gpuproj_occmodel *s, struct gpuproj_occmodel *t,
       char *why, size_t whylen)
{
	int r = model_occ_waves(c->k, c->src, c->waves, s, why, whylen);

	if (r == GPUPROJ_OK)
		r = model_occ_waves(c->kt, c->tgt, c->waves, t, why, whylen);
	return r;
}

/* W_g: warps resident at once on the whole GPU. */
static double
resident_warps(const struct gpuproj_occmodel *o, const struct gpuproj_target *gpu)
{
	return (double)o->occ.warps_per_block *
	       fmin(o->grid_blocks, (double)o->occ.blocks_per_sm * gpu->sms);
}

/*
 * D_g = N_L2 · L_L2 + N_DRAM · L_DRAM (B·ns) from hroof's hits on that GPU;
 * false when a level with traffic has no latency in targets.yaml.
 */
static bool
latency_bytes(const struct gpuproj_hroof *h, const struct gpuproj_target *gpu, double *ret)
{
	double n2 = h->hits[GPUPROJ_LEVEL_L2], nd = h->hits[GPUPROJ_LEVEL_DRAM];
	double l2 = gpu->latency_ns[GPUPROJ_LEVEL_L2], ld = gpu->latency_ns[GPUPROJ_LEVEL_DRAM];

	if ((n2 > 0 && !(l2 > 0)) || (nd > 0 && !(ld > 0)))
		return false;
	*ret = (n2 > 0 ? n2 * l2 : 0.0) + (nd > 0 ? nd * ld : 0.0);
	return true;
}

/* Everything the term computes, for project, details and notes. */
struct hoc {
	struct gpuproj_hroof hs, ht;     /* hroof ceilings on source and target */
	struct gpuproj_occmodel os, ot;  /* occupancy and waves */
	struct gpuproj_latency_hiding lh;
	bool little;                     /* the Little term was computed */
	double wave_ratio;               /* u_s / u_t */
	double linear_ratio;             /* O'_s / O'_t (linear term) */
};

/*
 * Fill `h` and project into `out` (hroof's projection, then the term).
 * Returns out->status.
 */
static int
compute(const struct model_ctx *c, struct gpuproj_projection *out, struct hoc *h)
{
	double ts = gpuproj_kernel_mean_ns(c->k), ds, dt, lo = INFINITY, hi = -INFINITY, below;
	double tmax = -INFINITY;
	enum gpuproj_bound hb;
	int r, i;

	memset(h, 0, sizeof(*h));
	/* No launch geometry: no occupancy or wave term, hroof's (ASSUME_GEOMETRY). */
	if (!gpuproj_kernel_geometry_known(c->k))
		return hroof_project_ceil(c, out, &h->hs, &h->ht);
	if (c->occ_term != GPUPROJ_OCC_TERM_LINEAR) {
		struct gpuproj_target sw, tw;
		struct model_ctx cw = *c;

		r = factor(c, &h->os, &h->ot, out->why, sizeof(out->why));
		if (r) {
			/* The kernel's own inputs are named first, as hroof names them. */
			int rh = hroof_project_ceil(c, out, &h->hs, &h->ht);

			if (rh)
				return rh;
			factor(c, &h->os, &h->ot, out->why, sizeof(out->why));
			goto unfit;
		}
		h->wave_ratio = h->os.wave_fill / h->ot.wave_fill;
		h->linear_ratio = h->os.occupancy_eff / h->ot.occupancy_eff;
		if (h->os.regs_capped || h->ot.regs_capped)
			out->assumed |= 1u << GPUPROJ_ASSUME_REGS_CAPPED;
		/* hroof on the ceilings the filled SMs reach (wave_ceilings()). */
		if (h->os.wave_fill < 1) {
			wave_ceilings(c->src, h->os.wave_fill, &sw);
			cw.src = &sw;
		}
		if (h->ot.wave_fill < 1) {
			wave_ceilings(c->tgt, h->ot.wave_fill, &tw);
			cw.tgt = &tw;
		}
		r = hroof_project_ceil(&cw, out, &h->hs, &h->ht);
		if (r)
			return r;
		hb = out->binding;
		goto little;
	}
	r = hroof_project_ceil(c, out, &h->hs, &h->ht);
	if (r)
		return r;
	r = factor(c, &h->os, &h->ot, out->why, sizeof(out->why));
	if (r)
		goto unfit;
	h->wave_ratio = h->os.wave_fill / h->ot.wave_fill;
	h->linear_ratio = h->os.occupancy_eff / h->ot.occupancy_eff;
	if (h->os.regs_capped || h->ot.regs_capped)
		out->assumed |= 1u << GPUPROJ_ASSUME_REGS_CAPPED;
	hb = out->binding;

	if (c->occ_term == GPUPROJ_OCC_TERM_LINEAR) {
		/* [Srivastava-nd] eq. 4 */
		out->lo_ns *= h->linear_ratio;
		out->hi_ns *= h->linear_ratio;
		out->point_ns *= h->linear_ratio;
		for (i = 0; i < GPUPROJ_HL_COUNT; i++)
			out->level_ns[i] *= h->linear_ratio;
		if (h->ot.wave_model != GPUPROJ_WAVES_OFF && h->ot.grid_blocks < h->ot.wave_blocks)
			out->binding = GPUPROJ_BOUND_LATENCY;
		else if (h->ot.occ.occupancy < h->os.occ.occupancy)
			out->binding = GPUPROJ_BOUND_OCCUPANCY;
		return out->status = GPUPROJ_OK;
	}
unfit:
	out->lo_ns = out->hi_ns = out->point_ns = NAN;
	for (i = 0; i < GPUPROJ_HL_COUNT; i++)
		out->level_ns[i] = NAN;
	out->binding = GPUPROJ_BOUND_NONE;
	return out->status = r;

little:
	h->lh.src_ns = ts;
	h->lh.src_roof_ns = hroof_roof_s(&h->hs) * 1e9;
	h->lh.from_source = c->occ_term == GPUPROJ_OCC_TERM_LITTLE_SOURCE;
	h->lh.src_warps = resident_warps(&h->os, c->src);
	h->lh.tgt_warps = resident_warps(&h->ot, c->tgt);
	/* Every byte below L1: bytes.l2, else what hroof counted there (ASSUME_L2). */
	below = gpuproj_kernel_has(c->k, GPUPROJ_M_BYTES_L2)
			? gpuproj_kernel_metric(c->k, GPUPROJ_M_BYTES_L2)
			: h->hs.hits[GPUPROJ_LEVEL_L2] + h->hs.hits[GPUPROJ_LEVEL_DRAM];
	h->lh.life_bytes = below / (h->os.grid_blocks * h->os.occ.warps_per_block);
	h->little = latency_bytes(&h->hs, c->src, &ds) && latency_bytes(&h->ht, c->tgt, &dt);
	if (h->little) {
		h->lh.src_lat_bytes = ds;
		h->lh.tgt_lat_bytes = dt;
		h->little = gpuproj_latency_hiding(&h->lh) == GPUPROJ_OK;
	}

	/* T_t(x) = max(T_hroof',t(x), T_lat,t) */
	for (i = 0; i < GPUPROJ_HL_COUNT; i++) {
		double x = out->level_ns[i];

		if (isnan(x))
			continue;
		tmax = fmax(tmax, x);
		if (h->little)
			x = fmax(x, h->lh.tgt_ns);
		out->level_ns[i] = x;
		lo = fmin(lo, x);
		hi = fmax(hi, x);
	}
	if (!(lo <= hi)) {
		/* No level carries traffic: hroof's compute-only projection. */
		lo = out->lo_ns;
		hi = out->hi_ns;
		tmax = hi;
	}
	out->lo_ns = lo;
	out->hi_ns = hi;
	out->point_ns = (lo + hi) / 2;
	if (h->little && h->lh.tgt_ns > tmax)
		out->binding = GPUPROJ_BOUND_OCCUPANCY;
	else if (h->ot.wave_model != GPUPROJ_WAVES_OFF && h->ot.grid_blocks < h->ot.wave_blocks)
		out->binding = GPUPROJ_BOUND_LATENCY;
	else
		out->binding = hb;
	return out->status = GPUPROJ_OK;
}

/*
 * hroof's stand-ins, and without launch geometry no occupancy term;
 * without registers no register limit.
 */
unsigned
hroofocc_assumes(const struct gpuproj_kernel *k)
{
	unsigned bits = hroof_assumes(k);

	if (!gpuproj_kernel_geometry_known(k))
		bits |= 1u << GPUPROJ_ASSUME_GEOMETRY;
	else if (k->regs_per_thread == 0)
		bits |= 1u << GPUPROJ_ASSUME_REGISTERS;
	return bits;
}

int
hroofocc_project(const struct model_ctx *c, struct gpuproj_projection *out)
{
	struct hoc h;
	char ls[64], lt[64];
	int r = compute(c, out, &h);

	if (r || !c->notes)
		return r;
	if (!gpuproj_kernel_geometry_known(c->k))
		snprintf(out->note, sizeof(out->note),
			 "launch geometry unknown: hroof without the occupancy term");
	else if (c->occ_term == GPUPROJ_OCC_TERM_LINEAR)
		snprintf(out->note, sizeof(out->note),
			 "linear occupancy factor %.3g: %.2f (%s) -> %.2f (%s), %s waves %.0f -> %.0f%s",
			 h.linear_ratio, h.os.occ.occupancy,
			 gpuproj_occupancy_limit_names(h.os.occ.limiting, ls, sizeof(ls)),
			 h.ot.occ.occupancy,
			 gpuproj_occupancy_limit_names(h.ot.occ.limiting, lt, sizeof(lt)),
			 gpuproj_waves_name(h.ot.wave_model), h.os.waves, h.ot.waves,
			 c->k->regs_per_thread ? "" : "; regs_per_thread unknown: no register limit");
	else if (h.little)
		snprintf(out->note, sizeof(out->note),
			 "Little: warps %.0f -> %.0f, %.3g B/warp in flight (source %.3g, e %.2f), "
			 "floor %.3g us; %s waves %.0f -> %.0f%s",
			 h.lh.src_warps, h.lh.tgt_warps, h.lh.mlp, h.lh.mlp_lo, h.lh.efficiency,
			 h.lh.tgt_ns / 1e3, gpuproj_waves_name(h.ot.wave_model), h.os.waves,
			 h.ot.waves, c->k->regs_per_thread ? "" : "; regs unknown");
	else
		snprintf(out->note, sizeof(out->note),
			 "no latency_ns for a level with traffic on %s: occupancy term off; %s waves "
			 "%.0f -> %.0f",
			 latency_bytes(&h.hs, c->src, &(double){ 0 }) ? c->tgt->name : c->src->name,
			 gpuproj_waves_name(h.ot.wave_model), h.os.waves, h.ot.waves);
	hroof_compute_note(c, &h.ht, out);
	return r;
}

int
hroofocc_details(const struct model_ctx *c, struct gpuproj_model_details *out)
{
	struct gpuproj_projection p;
	struct hoc h;
	int r;

	r = hroof_details(c, out);
	if (r || !gpuproj_kernel_geometry_known(c->k))
		return r;
	memset(&p, 0, sizeof(p));
	r = compute(c, &p, &h);
	if (r)
		return r;
	model_detail(out, "src.occupancy", h.os.occ.occupancy, "ratio");
	model_detail(out, "src.blocks_per_sm", h.os.occ.blocks_per_sm, "blocks");
	model_detail(out, "src.waves", h.os.waves, "waves");
	model_detail(out, "src.wave_fill", h.os.wave_fill, "ratio");
	model_detail(out, "tgt.occupancy", h.ot.occ.occupancy, "ratio");
	model_detail(out, "tgt.blocks_per_sm", h.ot.occ.blocks_per_sm, "blocks");
	model_detail(out, "tgt.waves", h.ot.waves, "waves");
	model_detail(out, "tgt.wave_fill", h.ot.wave_fill, "ratio");
	if (c->occ_term == GPUPROJ_OCC_TERM_LINEAR) {
		model_detail(out, "occupancy_factor", h.linear_ratio, "ratio");
		return GPUPROJ_OK;
	}
	model_detail(out, "wave_factor", h.wave_ratio, "ratio");
	if (!h.little)
		return GPUPROJ_OK;
	model_detail(out, "src.resident_warps", h.lh.src_warps, "warps");
	model_detail(out, "tgt.resident_warps", h.lh.tgt_warps, "warps");
	model_detail_key(out, c->src, "src.latency_l2", c->src->latency_ns[GPUPROJ_LEVEL_L2], "ns",
			 "latency_ns.l2");
	model_detail_key(out, c->src, "src.latency_dram", c->src->latency_ns[GPUPROJ_LEVEL_DRAM],
			 "ns", "latency_ns.dram");
	model_detail_key(out, c->tgt, "tgt.latency_l2", c->tgt->latency_ns[GPUPROJ_LEVEL_L2], "ns",
			 "latency_ns.l2");
	model_detail_key(out, c->tgt, "tgt.latency_dram", c->tgt->latency_ns[GPUPROJ_LEVEL_DRAM],
			 "ns", "latency_ns.dram");
	model_detail(out, "src.latency_bytes", h.lh.src_lat_bytes, "B*ns");
	model_detail(out, "tgt.latency_bytes", h.lh.tgt_lat_bytes, "B*ns");
	model_detail(out, "src.roof_time", h.lh.src_roof_ns, "ns");
	model_detail(out, "src.efficiency", h.lh.efficiency, "ratio");
	model_detail(out, "mlp_source", h.lh.mlp_lo, "B");
	model_detail(out, "mlp_life", h.lh.life_bytes, "B");
	model_detail(out, "mlp_blend", h.lh.blend, "ratio");
	model_detail(out, "mlp", h.lh.mlp, "B");
	model_detail(out, "tgt.latency_time", h.lh.tgt_ns, "ns");
	return GPUPROJ_OK;
}
