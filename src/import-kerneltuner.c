/* SPDX-License-Identifier: MIT */
/*
 * Importer of Kernel Tuner brute-force cache files (include/gpuproj/import.h):
 * every configuration of a tunable kernel's search space timed on one GPU,
 * as published by AutoTuningAssociation/benchmark_hub (the "FAIR Benchmark
 * Hub for Auto-Tuning", MIT licence; B. van Werkhoven's Kernel Tuner, and
 * the search spaces of "Bringing Auto-Tuning to HIP", doi
 * 10.5281/zenodo.11617999). Every profile made here carries that citation.
 *
 * Input: the decompressed JSON of a cache file (`gunzip -k
 * cachefiles/.../GPU.json.gz`; the repository stores them gzipped):
 *   { "device_name": "NVIDIA GeForce RTX 3090", "kernel_name": "Xgemm",
 *     "problem_size": [4096, 4096], "tune_params_keys": ["MWG", …],
 *     "cache": { "16,16,…": { "MWG": 16, …, "time": 46.07, "times": […],
 *                "GFLOP/s": 2983.8, … }, … } }
 * `time` is the mean of the timed runs of one configuration in ms (Kernel
 * Tuner times each kernel launch with CUDA events); a configuration that
 * failed to compile or run has a string there and is skipped.
 *
 * Output: one profile per device_name (matched to targets.yaml through its
 * `match` lists), in order of first appearance. One configuration = one
 * kernel signature: name = kernel_name, tag = "P1=v1,P2=v2,…" over
 * tune_params_keys (the same on every GPU), grid and block as Kernel Tuner
 * launches them; duration = `time` (one launch, n = 1). A configuration
 * is refused, naming the file and the line of its `time` (or of the
 * configuration), when that time is outside [IMPORT_MIN_DURATION_NS,
 * IMPORT_MAX_DURATION_NS] (a number that is not a time: failures are
 * strings), when its analytic FLOP over its time is beyond any GPU's FP32
 * rate (import_rate_bound()), or when its launch is beyond CUDA's limits
 * (import_launch_ok(): a grid of 2^32 + 5 blocks is not cast to 5): nothing
 * of it is kept. Each signature
 * carries, for every other GPU that timed the same (kernel, configuration),
 * a reference time. Profiles have attributes origin = "kerneltuner",
 * metrics = "analytic", citation, license = "MIT", import.files.
 *
 * The files have no hardware counters: every metric is ANALYTIC, derived
 * from the problem size, the configuration and the kernel's source code
 * (benchmark_hub @ 8eeb99e7, currently_unused/kernels/): two kernels are
 * understood, any other kernel_name is an error naming it.
 *
 * ## Xgemm: CLBlast's GEMM (gemm/xgemm_part*.opencl), C = αAB + βC, FP32
 * M × N = problem_size, K = the reduction length, not stored in the file:
 * recovered from the file's own "GFLOP/s" metric, which Kernel Tuner
 * computed as (2MNK + 2MK) / time (kernels/gemm.py), and required to be the
 * same integer for every configuration. Block = (MDIMC, NDIMC), grid =
 * (M/MWG, N/NWG); each thread owns MWI × NWI = MWG/MDIMC × NWG/NDIMC
 * outputs; per k it loads MWI/VWM vectors of A and NWI/VWN of B (from
 * shared memory when SA, SB = 1, else from global memory through L1) and
 * does MWI·NWI FFMAs (XgemmBody). With T = MDIMC·NDIMC threads and B =
 * MN/(MWG·NWG) blocks:
 * | metric | value | why |
 * |---|---|---|
 * | inst.fp32.fma | MNK + MN | the product, and β·C + (α·acc) per output (StoreResults) |
 * | inst.fp32.mul | MN | α·acc |
 * | inst.fp32 | fma + mul | |
 * | warp_efficiency | 1 | T is a multiple of 32 in every search space |
 * | bytes.dram | 4(MK + KN + 2MN) | compulsory: A, B read, C read and written (β ≠ 0) |
 * | bytes.l2 | 4MK·N/NWG + 4KN·M/MWG + 8MN | each block reads its MWG × K panel of A and K × NWG panel of B |
 * | bytes.l1 | the panels where SA/SB = 1, else warps · K · (MWI/VWM) · s_A (A) and warps · K · (NWI/VWN) · s_B (B), + 8MN | without shared memory every warp reads its vectors per k from global memory through L1; s = the bytes of the distinct 32-byte sectors its lanes touch (lanes of one x read the same A words, lanes of one y the same B words) |
 * | shared.wavefronts | Σ tile stores / 128 B + warps · K · (MWI/VWM · w_A + NWI/VWN · w_B) | a warp's LDS of VWM (VWN) consecutive floats at stride MWI (NWI) words between threads (STRM = STRN = 0); w = the largest number of distinct 4-byte words one of the 32 banks serves (broadcasts count once), worked out per configuration |
 * | inst.ldst | B·T·K·(MWI/VWM + NWI/VWN) + Σ 2·panel/(4·VWM or VWN) + 2MN/VWM | inner loads, tile loads and stores, C read and written |
 * | inst.warp | (inst.fp32 + inst.ldst) / 32 | a LOWER bound: integer and control instructions are not counted |
 * | smem_static | 4·KWG·(SA·MWG + SB·NWG) B | alm, blm |
 *
 * ## convolution_kernel: 2D convolution (convolution.cu), FP32
 * Image W × H = problem_size, filter F_h × F_w (tune parameters; 15 × 15),
 * input (W + F_w − 1) × (H + F_h − 1). Block = (b_x, b_y), each thread
 * computes t_x × t_y outputs; grid = (⌈W/(b_x t_x)⌉, ⌈H/(b_y t_y)⌉). Each
 * block stages its input tile of E = (b_y t_y + F_h − 1)(b_x t_x + F_w − 1)
 * floats into shared memory (rows padded as the kernel's use_padding rule
 * says), then every thread does F_h·F_w FFMAs per output with the filter
 * from constant memory (an FFMA operand, no load). The loops are fully
 * unrolled, so a thread loads each distinct shared element it needs once:
 * N_y · N_x loads, N_y = |{y_i·b_y + i}| = min(F_h·t_y, (t_y − 1)·b_y + F_h),
 * N_x likewise. With G blocks of T threads (⌈T/32⌉ warps, warp efficiency
 * T / (32 ⌈T/32⌉)):
 * | metric | value |
 * |---|---|
 * | inst.fp32.fma, inst.fp32 | G·T·t_x·t_y·F_h·F_w (every thread computes its tile, also past the image edge) |
 * | bytes.dram | 4·input + 4·W·H |
 * | bytes.l2, bytes.l1 | 4·G·E + 4·W·H (each block reads its tile once) |
 * | shared.wavefronts | G·⌈E/T⌉·w_st·warps + G·warps·N_y·N_x·w_ld, w = wavefronts of a warp's access (rows of b_x threads, padded row stride, as for Xgemm) |
 * | inst.ldst | G·(2E + T·N_y·N_x + T·t_x·t_y) (tile loads and stores, shared loads, output stores) |
 * | inst.warp | (inst.fp32 + inst.ldst) / (32 · warp efficiency), lower bound |
 * | smem_static | 4·(b_y t_y + F_h − 1)·(padded row) B |
 *
 * inst.int is not set (unknown): hroof's issue roof then assumes none and
 * says so. regs_per_thread is 0 (unknown): no register limit is applied.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "import-common.h"
#include "profile-private.h"
#include "util.h"

/* The kernels this importer derives metrics for. */
enum kt_kernel { KT_XGEMM, KT_CONV };

static const struct import_gpu_source gpu_source = {
	.lookup = { .what = "GPU", .where = "of the Kernel Tuner cache file",
		    .hint = "add its device_name to an entry's `match` list" },
	.labels = "device names", .where = "",
	.attrs = (const char *const[]){ "origin", "kerneltuner", "metrics", "analytic", "citation",
					GPUPROJ_CITATION_KERNELTUNER, "license", "MIT", NULL },
};

struct kt_ctx {
	const struct gpuproj_targets *targets;
	struct import_gpus gpus; /* by_key: "kernel\037tag" → kernel index */
	char *files;
	struct gpuproj_error *err;
};


/*
 * Shared-memory wavefronts of one warp access: lane l of the n active
 * lanes reads `vec` consecutive 4-byte words at word (l % rows_w)·stride_x
 * + (l / rows_w)·stride_y. A wavefront serves one word per bank (32
 * banks, broadcasts free): the count is the largest number of distinct
 * words any bank holds, and at least the 128-byte wavefronts the distinct
 * words fill.
 */
static double
warp_wavefronts(unsigned n, unsigned rows_w, double stride_x, double stride_y, unsigned vec)
{
	double words[32 * 8];
	unsigned per_bank[32] = { 0 }, nw = 0, l, v, i, most = 0;

	if (rows_w < 1)
		rows_w = 1;
	for (l = 0; l < n && l < 32; l++) {
		for (v = 0; v < vec && v < 8; v++) {
			double w = (double)(l % rows_w) * stride_x + (double)(l / rows_w) * stride_y + v;
			bool seen = false;

			for (i = 0; i < nw && !seen; i++)
				seen = words[i] == w;
			if (seen)
				continue;
			words[nw++] = w;
			i = (unsigned)fmod(w, 32.0);
			if (++per_bank[i] > most)
				most = per_bank[i];
		}
	}
	return fmax((double)most, ceil((double)nw / 32.0));
}

/*
 * Bytes one warp's global load moves through L1 (l1tex__t_bytes: whole
 * 32-byte sectors, each once per request): lanes as in warp_wavefronts(),
 * the distinct sectors of the words they read × 32.
 */
static double
warp_sector_bytes(unsigned n, unsigned rows_w, double stride_x, double stride_y, unsigned vec)
{
	double sectors[32 * 8];
	unsigned ns = 0, l, v, i;

	if (rows_w < 1)
		rows_w = 1;
	for (l = 0; l < n && l < 32; l++) {
		for (v = 0; v < vec && v < 8; v++) {
			double sec = floor(((double)(l % rows_w) * stride_x +
					    (double)(l / rows_w) * stride_y + v) / 8.0);
			bool seen = false;

			for (i = 0; i < ns && !seen; i++)
				seen = sectors[i] == sec;
			if (!seen)
				sectors[ns++] = sec;
		}
	}
	return 32.0 * ns;
}

/* A non-negative integer tune parameter of a cache entry; false when absent or not one. */
static bool
param(json_t *entry, const char *name, double *ret)
{
	json_t *v = json_object_get(entry, name);
	double d;

	if (!json_is_number(v))
		return false;
	d = json_number_value(v);
	if (!(d >= 0) || d != floor(d) || d > 1e9)
		return false;
	*ret = d;
	return true;
}

/* The analytic metrics of an Xgemm configuration (file comment); false: a parameter is bad. */
static bool
xgemm_metrics(json_t *e, double M, double N, double K, struct gpuproj_signature *sig,
	      struct gpuproj_kernel *k, bool first, double launch[6])
{
	double mwg, nwg, kwg, mdimc, ndimc, vwm, vwn, sa, sb, strm, strn, prec;
	double mwi, nwi, T, B, warps, a_panel, b_panel, l1a, l1b, wf, wa, wb, ldst, fma;

	if (!param(e, "MWG", &mwg) || !param(e, "NWG", &nwg) || !param(e, "KWG", &kwg) ||
	    !param(e, "MDIMC", &mdimc) || !param(e, "NDIMC", &ndimc) || !param(e, "VWM", &vwm) ||
	    !param(e, "VWN", &vwn) || !param(e, "SA", &sa) || !param(e, "SB", &sb))
		return false;
	if (param(e, "STRM", &strm) && strm != 0)
		return false;
	if (param(e, "STRN", &strn) && strn != 0)
		return false;
	if (param(e, "PRECISION", &prec) && prec != 32)
		return false;
	if (!(mdimc > 0 && ndimc > 0 && vwm > 0 && vwn > 0 && kwg > 0 && vwm <= 8 && vwn <= 8) ||
	    fmod(mwg, mdimc * vwm) != 0 || fmod(nwg, ndimc * vwn) != 0 || fmod(M, mwg) != 0 ||
	    fmod(N, nwg) != 0 || fmod(K, kwg) != 0)
		return false;
	mwi = mwg / mdimc;
	nwi = nwg / ndimc;
	T = mdimc * ndimc;
	B = (M / mwg) * (N / nwg);
	warps = B * ceil(T / 32.0);
	fma = M * N * K + M * N;
	import_put(k, GPUPROJ_M_INST_FP32_FMA, fma);
	import_put(k, GPUPROJ_M_INST_FP32_ADD, 0);
	import_put(k, GPUPROJ_M_INST_FP32_MUL, M * N);
	import_put(k, GPUPROJ_M_INST_FP32, fma + M * N);
	import_put(k, GPUPROJ_M_WARP_EFFICIENCY, T / (32.0 * ceil(T / 32.0)));
	import_put(k, GPUPROJ_M_BYTES_DRAM_READ, 4.0 * (M * K + K * N + M * N));
	import_put(k, GPUPROJ_M_BYTES_DRAM_WRITE, 4.0 * M * N);
	import_put(k, GPUPROJ_M_BYTES_DRAM, 4.0 * (M * K + K * N + 2 * M * N));
	a_panel = 4.0 * M * K * (N / nwg);
	b_panel = 4.0 * K * N * (M / mwg);
	import_put(k, GPUPROJ_M_BYTES_L2, a_panel + b_panel + 8.0 * M * N);
	/* Without shared memory every warp reads its A (B) vectors per k from global memory. */
	l1a = sa ? a_panel
		 : warps * K * (mwi / vwm) *
			   warp_sector_bytes(32, (unsigned)fmin(mdimc, 32), mwi, 0, (unsigned)vwm);
	l1b = sb ? b_panel
		 : warps * K * (nwi / vwn) *
			   warp_sector_bytes(32, (unsigned)fmin(mdimc, 32), 0, nwi, (unsigned)vwn);
	import_put(k, GPUPROJ_M_BYTES_L1, l1a + l1b + 8.0 * M * N);
	/* A warp holds 32 consecutive tid = x + MDIMC·y: x varies fastest. */
	wa = warp_wavefronts(32, (unsigned)fmin(mdimc, 32), mwi, 0, (unsigned)vwm);
	wb = warp_wavefronts(32, (unsigned)fmin(mdimc, 32), 0, nwi, (unsigned)vwn);
	wf = (sa ? a_panel / 128.0 + warps * K * (mwi / vwm) * wa : 0) +
	     (sb ? b_panel / 128.0 + warps * K * (nwi / vwn) * wb : 0);
	import_put(k, GPUPROJ_M_SHARED_WAVEFRONTS, wf);
	ldst = B * T * K * (mwi / vwm + nwi / vwn) + (sa ? 2.0 * a_panel / (4.0 * vwm) : 0) +
	       (sb ? 2.0 * b_panel / (4.0 * vwn) : 0) + 2.0 * M * N / vwm;
	import_put(k, GPUPROJ_M_INST_LDST, ldst);
	import_put(k, GPUPROJ_M_INST_WARP, (fma + M * N + ldst) / 32.0);
	/* The launch as doubles first: a dimension past CUDA's limits is refused, never cast. */
	launch[0] = M / mwg;
	launch[1] = N / nwg;
	launch[2] = 1;
	launch[3] = mdimc;
	launch[4] = ndimc;
	launch[5] = 1;
	if (!import_launch_ok(launch, launch + 3, NULL, 0))
		return true;
	sig->grid = (struct gpuproj_dim3){ (uint32_t)(M / mwg), (uint32_t)(N / nwg), 1 };
	sig->block = (struct gpuproj_dim3){ (uint32_t)mdimc, (uint32_t)ndimc, 1 };
	if (first)
		k->smem_static = (uint32_t)(4.0 * kwg * ((sa ? mwg : 0) + (sb ? nwg : 0)));
	return true;
}

/* The analytic metrics of a convolution configuration (file comment). */
static bool
conv_metrics(json_t *e, double W, double H, struct gpuproj_signature *sig,
	     struct gpuproj_kernel *k, bool first, double launch[6])
{
	double bx, by, tx, ty, fh, fw, pad, T, G, E, rows, width, ny, nx, warps, we, wl, ws, fma;
	double ldst, bw_, bh_;

	if (!param(e, "block_size_x", &bx) || !param(e, "block_size_y", &by) ||
	    !param(e, "tile_size_x", &tx) || !param(e, "tile_size_y", &ty) ||
	    !param(e, "filter_height", &fh) || !param(e, "filter_width", &fw) ||
	    !(bx >= 1 && by >= 1 && tx >= 1 && ty >= 1 && fh >= 1 && fw >= 1) ||
	    bx * by > 1024 || json_object_get(e, "use_shmem"))
		return false;
	if (!param(e, "use_padding", &pad))
		pad = 1; /* the kernel's default */
	T = bx * by;
	G = ceil(W / (bx * tx)) * ceil(H / (by * ty));
	bw_ = (double)((unsigned)fw / 2 * 2);
	bh_ = (double)((unsigned)fh / 2 * 2);
	rows = by * ty + bh_;
	width = bx * tx + bw_;
	/* The kernel's padding rule (convolution.cu: padding_columns). */
	if (pad == 1 && fmod(bx, 32) != 0 && fmod(width - bx, 32) != 0)
		width += (double)((32 - (unsigned)(bw_ + bx * tx - bx)) & 31);
	E = rows * (bx * tx + bw_);
	ny = fmin(fh * ty, (ty - 1) * by + fh);
	nx = fmin(fw * tx, (tx - 1) * bx + fw);
	warps = ceil(T / 32.0);
	we = T / (32.0 * warps);
	/* Lanes: x = l % b_x across a row, rows b_y apart in y, row stride `width` words. */
	wl = warp_wavefronts((unsigned)fmin(T, 32), (unsigned)fmin(bx, 32), 1, width, 1);
	ws = wl;
	fma = G * T * tx * ty * fh * fw;
	import_put(k, GPUPROJ_M_INST_FP32_FMA, fma);
	import_put(k, GPUPROJ_M_INST_FP32_ADD, 0);
	import_put(k, GPUPROJ_M_INST_FP32_MUL, 0);
	import_put(k, GPUPROJ_M_INST_FP32, fma);
	import_put(k, GPUPROJ_M_WARP_EFFICIENCY, we);
	import_put(k, GPUPROJ_M_BYTES_DRAM_READ, 4.0 * (W + bw_) * (H + bh_));
	import_put(k, GPUPROJ_M_BYTES_DRAM_WRITE, 4.0 * W * H);
	import_put(k, GPUPROJ_M_BYTES_DRAM, 4.0 * ((W + bw_) * (H + bh_) + W * H));
	import_put(k, GPUPROJ_M_BYTES_L2, 4.0 * (G * E + W * H));
	import_put(k, GPUPROJ_M_BYTES_L1, 4.0 * (G * E + W * H));
	import_put(k, GPUPROJ_M_SHARED_WAVEFRONTS,
		   G * (ceil(E / T) * warps * ws + warps * ny * nx * wl));
	ldst = G * (2.0 * E + T * ny * nx + T * tx * ty);
	import_put(k, GPUPROJ_M_INST_LDST, ldst);
	import_put(k, GPUPROJ_M_INST_WARP, (fma + ldst) / (32.0 * we));
	launch[0] = ceil(W / (bx * tx));
	launch[1] = ceil(H / (by * ty));
	launch[2] = 1;
	launch[3] = bx;
	launch[4] = by;
	launch[5] = 1;
	if (!import_launch_ok(launch, launch + 3, NULL, 0))
		return true;
	sig->grid = (struct gpuproj_dim3){ (uint32_t)ceil(W / (bx * tx)),
					   (uint32_t)ceil(H / (by * ty)), 1 };
	sig->block = (struct gpuproj_dim3){ (uint32_t)bx, (uint32_t)by, 1 };
	if (first)
		k->smem_static = (uint32_t)(4.0 * rows * width);
	return true;
}

/*
 * K of an Xgemm file, from Kernel Tuner's metric GFLOP/s = (2MNK + 2MK) /
 * time: K = GFLOP/s · time / (2MN + 2M), rounded, the same integer for every
 * timed configuration. false when no configuration carries it or two
 * disagree.
 */
static bool
xgemm_k(json_t *cache, double M, double N, double *ret)
{
	const char *key;
	json_t *e;
	double K = 0;

	json_object_foreach(cache, key, e) {
		json_t *t = json_object_get(e, "time"), *g = json_object_get(e, "GFLOP/s");
		double k;

		if (!json_is_number(t) || !json_is_number(g) || !(json_number_value(t) > 0))
			continue;
		k = round(json_number_value(g) * json_number_value(t) * 1e6 / (2 * M * N + 2 * M));
		if (!(k >= 1))
			return false;
		if (K == 0)
			K = k;
		else if (fabs(k - K) > 0.5)
			return false;
	}
	*ret = K;
	return K >= 1;
}

/*
 * An error about configuration `ckey` of the file (text, len): at the
 * position of its member `member` (NULL: of the configuration) when the
 * text locates it (util.h json_locate()), else at 0:0.
 */
static int
cfg_error(struct kt_ctx *ctx, const char *path, const char *text, size_t len, const char *ckey,
	  const char *member, int status, const char *fmt, ...) GPUPROJ_PRINTF(8, 9);

static int
cfg_error(struct kt_ctx *ctx, const char *path, const char *text, size_t len, const char *ckey,
	  const char *member, int status, const char *fmt, ...)
{
	char *where = xasprintf("cache.%s", ckey);
	int line = 0, col = 0, r;
	va_list ap;

	if (!where || !json_locate(text, len, where, member, &line, &col))
		line = col = 0;
	free(where);
	va_start(ap, fmt);
	r = error_setv(ctx->err, status, path, line, col, fmt, ap);
	va_end(ap);
	return r;
}

/* Σ FLOP of a probe's analytic FP32 counts (FMA 2). */
static double
probe_flop(const struct gpuproj_kernel *k)
{
	return 2 * k->metric_sum[GPUPROJ_M_INST_FP32_FMA] + k->metric_sum[GPUPROJ_M_INST_FP32_ADD] +
	       k->metric_sum[GPUPROJ_M_INST_FP32_MUL];
}

/* One cache file being imported: what its top level says, and where its kernels go. */
struct kt_file {
	const char *path, *text, *kname;
	size_t len;
	json_t *cache, *keys;
	enum kt_kernel kind;
	double dim[2], K;	/* problem_size; an Xgemm's K (0 for a convolution) */
	double bound, peak;	/* import_rate_bound(), FLOP/s: the rate no time may beat */
	const char *fastest;	/* the GPU of `peak` */
	struct import_gpu *g;
};

/* The top level: the kernel, its problem size, an Xgemm's K. */
static int
kt_header(struct kt_ctx *ctx, json_t *root, struct kt_file *f, const char **ret_device)
{
	const char *path = f->path;
	json_t *ps;
	size_t i;

	*ret_device = json_string_value(json_object_get(root, "device_name"));
	f->kname = json_string_value(json_object_get(root, "kernel_name"));
	f->cache = json_object_get(root, "cache");
	f->keys = json_object_get(root, "tune_params_keys");
	ps = json_object_get(root, "problem_size");
	if (!*ret_device || !f->kname || !json_is_object(f->cache) || !json_is_array(f->keys))
		return error_set(ctx->err, GPUPROJ_E_PARSE, path, 0, 0,
				 "not a Kernel Tuner cache file: expected an object with "
				 "device_name, kernel_name, tune_params_keys and cache");
	if (strcmp(f->kname, "Xgemm") == 0)
		f->kind = KT_XGEMM;
	else if (strcmp(f->kname, "convolution_kernel") == 0)
		f->kind = KT_CONV;
	else
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, path, 0, 0,
				 "kernel '%s' is not one this importer derives metrics for "
				 "(Xgemm, convolution_kernel)", f->kname);
	for (i = 0; i < 2; i++) {
		json_t *v = json_array_get(ps, i);

		f->dim[i] = json_is_number(v) ? json_number_value(v) : 0;
		if (!(f->dim[i] >= 1) || f->dim[i] != floor(f->dim[i]))
			return error_set(ctx->err, GPUPROJ_E_SCHEMA, path, 0, 0,
					 "problem_size must hold two positive integers");
	}
	if (f->kind == KT_XGEMM && !xgemm_k(f->cache, f->dim[0], f->dim[1], &f->K))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, path, 0, 0,
				 "the GEMM's K cannot be recovered: no configuration has a "
				 "'GFLOP/s' metric and a time, or two disagree");
	return GPUPROJ_OK;
}

/* Configuration `ckey`'s tag: its parameters, in tune_params_keys' order. */
static int
kt_tag(struct kt_ctx *ctx, const struct kt_file *f, const char *ckey, json_t *e, char *tag,
       size_t size)
{
	size_t i, tlen = 0;

	tag[0] = '\0';
	for (i = 0; i < json_array_size(f->keys); i++) {
		const char *pn = json_string_value(json_array_get(f->keys, i));
		double v;

		if (!pn || !param(e, pn, &v))
			return cfg_error(ctx, f->path, f->text, f->len, ckey, pn, GPUPROJ_E_SCHEMA,
					 "configuration '%s': parameter '%s' is not a "
					 "non-negative integer", ckey, pn ? pn : "?");
		tlen += (size_t)snprintf(tag + tlen, tlen < size ? size - tlen : 0, "%s%s=%.0f",
					 i ? "," : "", pn, v);
	}
	if (tlen >= size)
		return cfg_error(ctx, f->path, f->text, f->len, ckey, NULL, GPUPROJ_E_SCHEMA,
				 "configuration '%s': too many parameters", ckey);
	return GPUPROJ_OK;
}

/*
 * One configuration: checked (its time, parameters, launch and rate),
 * then its kernel with the analytic metrics. *ret_counted: it gave a
 * kernel (not a failed configuration, nor the same one twice).
 */
static int
kt_config(struct kt_ctx *ctx, struct kt_file *f, const char *ckey, json_t *e, bool *ret_counted)
{
	json_t *t = json_object_get(e, "time");
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *k, probe;
	double launch[6] = { 0 }, t_ms, t_ns, flop;
	char tag[512], key[600], why[96];
	const char *path = f->path, *kname = f->kname;
	size_t before;
	bool ok;
	int st;

	*ret_counted = false;
	/* A configuration that failed: a string ("CompilationFailedConfig"). */
	if (!json_is_number(t))
		return GPUPROJ_OK;
	/* A time that is none is refused, naming the configuration's line. */
	t_ms = json_number_value(t);
	t_ns = t_ms * 1e6;
	if (!(t_ns >= IMPORT_MIN_DURATION_NS && t_ns <= IMPORT_MAX_DURATION_NS))
		return cfg_error(ctx, path, f->text, f->len, ckey, "time", GPUPROJ_E_SCHEMA,
				 "configuration '%s': time %g ms is not a kernel time (%g ns "
				 "to %g s)", ckey, t_ms, IMPORT_MIN_DURATION_NS,
				 IMPORT_MAX_DURATION_NS / 1e9);
	if ((st = kt_tag(ctx, f, ckey, e, tag, sizeof(tag))))
		return st;
	sig.name = kname;
	sig.tag = tag;
	sig.grid = sig.block = (struct gpuproj_dim3){ 1, 1, 1 };
	/* The launch comes from the configuration: work it out before the lookup. */
	memset(&probe, 0, sizeof(probe));
	ok = f->kind == KT_XGEMM
		     ? xgemm_metrics(e, f->dim[0], f->dim[1], f->K, &sig, &probe, false, launch)
		     : conv_metrics(e, f->dim[0], f->dim[1], &sig, &probe, false, launch);
	if (!ok)
		return cfg_error(ctx, path, f->text, f->len, ckey, NULL, GPUPROJ_E_SCHEMA,
				 "configuration '%s' is outside what the %s model of "
				 "src/import-kerneltuner.c describes", ckey, kname);
	if (!import_launch_ok(launch, launch + 3, why, sizeof(why)))
		return cfg_error(ctx, path, f->text, f->len, ckey, NULL, GPUPROJ_E_SCHEMA,
				 "configuration '%s': its launch, grid (%.0f, %.0f, %.0f) "
				 "and block (%.0f, %.0f, %.0f), is beyond CUDA's limits (%s)",
				 ckey, launch[0], launch[1], launch[2], launch[3], launch[4],
				 launch[5], why);
	flop = probe_flop(&probe);
	if (flop / (t_ns * 1e-9) > f->bound)
		return cfg_error(ctx, path, f->text, f->len, ckey, "time", GPUPROJ_E_SCHEMA,
				 "configuration '%s': %.17g FLOP in %g ms is %.4g FLOP/s, "
				 "beyond any GPU's FP32 rate (above %g x the fastest in "
				 "targets.yaml, %s's %.4g FLOP/s)", ckey, flop, t_ms,
				 flop / (t_ns * 1e-9), IMPORT_RATE_MARGIN,
				 f->fastest ? f->fastest : "?", f->peak);
	before = gpuproj_profile_count(f->g->profile);
	if (gpuproj_profile_kernel(f->g->profile, &sig, &k))
		return error_set(ctx->err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
	if (k->launches != 0)
		return GPUPROJ_OK; /* the same configuration twice: keep the first */
	if (f->kind == KT_XGEMM)
		xgemm_metrics(e, f->dim[0], f->dim[1], f->K, &sig, k, true, launch);
	else
		conv_metrics(e, f->dim[0], f->dim[1], &sig, k, true, launch);
	import_put(k, GPUPROJ_M_INST_FP16_FMA, 0);
	import_put(k, GPUPROJ_M_INST_FP16_ADD, 0);
	import_put(k, GPUPROJ_M_INST_FP16_MUL, 0);
	import_put(k, GPUPROJ_M_INST_FP64_FMA, 0);
	import_put(k, GPUPROJ_M_INST_FP64_ADD, 0);
	import_put(k, GPUPROJ_M_INST_FP64_MUL, 0);
	import_put(k, GPUPROJ_M_INST_FP16, 0);
	import_put(k, GPUPROJ_M_INST_FP64, 0);
	gpuproj_kernel_add_duration(k, t_ns);
	k->profiled++;
	*ret_counted = true;
	if (gpuproj_profile_count(f->g->profile) != before) {
		snprintf(key, sizeof(key), "%s\037%s", kname, tag);
		if (import_strmap_put(&f->g->by_key, key, before))
			return error_set(ctx->err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
	}
	return GPUPROJ_OK;
}

static int
import_file(struct kt_ctx *ctx, const char *path)
{
	struct kt_file f = { .path = path };
	json_error_t jerr;
	json_t *root = NULL, *e;
	const char *device, *ckey;
	char *text = NULL;
	size_t len = 0, n_ok = 0;
	bool counted;
	int st;

	/* The one reader of inputs (its size limit and checks), then the text for positions. */
	st = file_read_all(path, &text, &len, ctx->err);
	if (st)
		return st;
	f.text = text;
	f.len = len;
	root = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
	if (!root) {
		st = error_set(ctx->err, GPUPROJ_E_PARSE, path, jerr.line, jerr.column, "%s",
			       jerr.text);
		goto out;
	}
	if ((st = kt_header(ctx, root, &f, &device)))
		goto out;
	st = import_gpus_find_or_add(&ctx->gpus, ctx->targets, &gpu_source, device, ctx->files,
				     path, 0, 0, &f.g, ctx->err);
	if (st)
		goto out;
	/* Both kernels are FP32 on the CUDA cores (file comment). */
	f.bound = import_rate_bound(ctx->targets, GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, &f.fastest,
				    &f.peak);
	json_object_foreach(f.cache, ckey, e) {
		if ((st = kt_config(ctx, &f, ckey, e, &counted)))
			goto out;
		n_ok += counted;
	}
	if (n_ok == 0)
		st = error_set(ctx->err, GPUPROJ_E_PARSE, path, 0, 0,
			       "no configuration with a time: nothing to import");
out:
	json_decref(root);
	free(text);
	return st;
}

/* Reference times (import_gpus_set_references()): the same configuration (the key). */
static const struct gpuproj_kernel *
counterpart(const struct import_gpu *other, const struct gpuproj_kernel *k, void *userdata)
{
	char key[600];
	size_t j;

	(void)userdata;
	snprintf(key, sizeof(key), "%s\037%s", k->name, k->tag ? k->tag : "");
	return import_strmap_get(&other->by_key, key, &j) ? gpuproj_profile_at(other->profile, j)
							    : NULL;
}

int
gpuproj_import_kerneltuner(const char *const *paths, size_t n_paths,
			   const struct gpuproj_targets *targets,
			   struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			   struct gpuproj_error *reterr)
{
	struct kt_ctx ctx = { 0 };
	struct gpuproj_profile **out = NULL;
	size_t i;
	int st = GPUPROJ_OK;

	if (!paths || n_paths == 0 || !targets || !ret_profiles || !ret_n)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "Kernel Tuner import: no files or no targets given");
	ctx.targets = targets;
	ctx.err = reterr;
	ctx.files = import_join_paths(paths, n_paths);
	if (!ctx.files)
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	for (i = 0; i < n_paths && st == GPUPROJ_OK; i++)
		st = import_file(&ctx, paths[i]);
	if (st == GPUPROJ_OK)
		st = import_gpus_set_references(&ctx.gpus, counterpart, NULL, ctx.err);
	if (st == GPUPROJ_OK)
		st = import_gpus_take(&ctx.gpus, &out, reterr);
	if (st == GPUPROJ_OK) {
		*ret_profiles = out;
		*ret_n = ctx.gpus.n;
	}
	import_gpus_clear(&ctx.gpus);
	free(ctx.files);
	return st;
}
