/* SPDX-License-Identifier: MIT */
/*
 * Importer of the NeuSight training set (include/gpuproj/import.h): Lee et
 * al., "Forecasting GPU Performance for Deep Learning Training and
 * Inference" (NeuSight, ASPLOS 2025); repository sitar-lab/NeuSight, files
 * scripts/asplos/data/dataset/train/collect/{linear,add}/p2.1.0/<GPU>.csv,
 * MIT licence. Every profile made here carries that citation in its
 * "citation" attribute.
 *
 * Input: CSV files with the header
 *   OPName,Latency,Device,Torch Version,CUDNN Version,Kernel Name,
 *   Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,Block x,Block y,Block z,
 *   CUDA Version[,Kernels],<shape columns>
 * one row per (operator, shape) measured on one GPU: `linear` (shape B, M,
 * N, K: torch.nn.Linear(N, K, bias=True) on a (B, M, N) FP32 input; cuBLAS
 * FP32 SIMT SGEMM, TF32 off) and `add` (shape B, H: torch.add of two FP32
 * (B, H) tensors; PyTorch's vectorized_elementwise_kernel<4>). `Latency` is
 * in milliseconds: the mean of the 5 fastest of 25 timed calls of the whole
 * operator (CUDA events around the call), so it includes every kernel the
 * operator launched and the gaps between them (data-set README).
 *
 * The data set has no hardware counters: every metric below is ANALYTIC,
 * derived from the shape, the kernel name and the launch columns. Each
 * profile has attributes origin = "neusight", metrics = "analytic",
 * citation, license = "MIT", import.files.
 *
 * Output: one profile per `Device` (matched to targets.yaml through its
 * `match` lists), in order of first appearance. One row = one kernel
 * signature: name = OPName ("linear", "add"), tag = the operator shape
 * ("B=1,M=58,N=13,K=141" or "B=127,H=168") — the shape is the signature
 * across GPUs, because cuBLAS picks another kernel (tile, grid) on each
 * GPU; grid and block = the GPU's own launch of the operator's main kernel
 * (columns Grid/Block x/y/z); demangled = the kernels that ran (`Kernels`
 * without its leading ';', else `Kernel Name`). Rows with the same
 * signature (a shape listed twice) are merged, their latencies averaged.
 * Each signature carries, for every other GPU that measured the same
 * (operator, shape), a reference time (targets.yaml name, mean ns).
 *
 * Time: duration_ns = Latency × 10^6 − O_g (one launch: n = 1, the
 * published mean), an estimate of the kernel time, which is what every
 * model projects and what CUPTI measures. A call timed with CUDA events
 * around a PyTorch operator is, on an idle stream, a + max(K + g, c): a,
 * the host time from recording the start event to submitting the kernel;
 * K, the kernel; g, the GPU's launch latency; c, the rest of the host call
 * before the end event is recorded. Tiny shapes measure the floor a + c
 * (25–45 µs on these GPUs); a long call carries only O_g = a + g, which no
 * kernel-time model transfers between GPUs (with it left in, `add` calls
 * of 50–100 µs projected 43 % off, docs/validation.md "The accuracy
 * goals"). O_g is estimated
 * per GPU from its `add` rows, whose kernel time is linear in the bytes
 * moved: the intercept of an ordinary least-squares line of Latency on
 * bytes.dram over the larger half (by bytes) of the GPU's add shapes,
 * using only the shapes of the calibration half (profile_shape_hash()
 * even, the half `validate --holdout shape` fits on), so figures on the
 * other half are out of sample for it too. On the published files:
 * A100-PCIe-40GB 13.7 µs, P100 23.5, P4 13.6, T4 14.2, V100 17.4 µs —
 * about half of each GPU's floor, as a + g against a + c predicts. A
 * `linear` import uses the add rows of the same GPU (same host and
 * harness): imported with it, or else read from the sibling file
 * <dir>/add/<name>.csv of <dir>/linear/<name>.csv (the data set's
 * layout). For SGEMM it is a lower bound (cuBLAS's host path is longer
 * than an element-wise kernel's). O_g is at most 0.9 × the GPU's shortest
 * call, so every duration stays positive. With fewer than 20 add shapes
 * in the calibration half, O_g = 0 and the durations stay call latencies.
 * Each profile records O_g and how it was found in the attributes
 * call_overhead_ns and call_overhead_basis, and durations = "kernel time
 * estimate: …" when O_g > 0. Short rows (< 50 µs) remain dominated by the
 * host: their kernel-time estimate is (c − g) + K.
 *
 * ## linear: Y = X·Wᵀ + b, X (P×N), W (K×N), Y (P×K), P = B·M
 * cuBLAS computes it column-major as C (m×n) = op(A)·op(B) with m = K,
 * n = P, k = N. The kernel name <arch>_sgemm_<TM>x<TN>[_sliced1x<S>]_<ab>
 * gives the block tile: TM along m (K), TN along n (P); every row of the
 * data set has grid.x = ⌈K/TM⌉, grid.y = ⌈P/TN⌉, grid.z = the split-K
 * factor Z (Z > 1 launches a splitkreduce_kernel too). A name that does not
 * parse is an error naming the row.
 * | metric | value | why |
 * |---|---|---|
 * | inst.fp32.fma | P·N·K | one FFMA per multiply-add (2·P·N·K FLOP, README) |
 * | inst.fp32.add | P·K·Z | the bias (one FADD per output) and, when Z > 1, the Z−1 partial sums of the split-K reduction |
 * | inst.fp32.mul, inst.fp{16,64}.*, inst.fp16, inst.fp64 | 0 | FP32 only, TF32 off |
 * | inst.fp32 | fma + add | |
 * | warp_efficiency | 1 | the SGEMM main loop runs full warps; edge tiles predicate off whole rows, not counted by thread-level counters |
 * | bytes.dram | 4·(P·N + N·K + P·K + K) | compulsory traffic (README): X, W, bias read once, Y written once; bytes.dram_read = 4·(P·N + N·K + K), bytes.dram_write = 4·P·K |
 * | bytes.l2 | 4·N·(P·grid.x + K·grid.y) + 4·K·grid.y + 4·P·K·(Z > 1 ? 2Z + 1 : 1) | each block reads a TM×N panel of W and an N×TN panel of X from L2 (so X is read once per tile column, W once per tile row), plus the bias per tile row; writes Y once, or Z partial tiles that the reduction reads back and sums into Y |
 * | bytes.l1 | bytes.l2 | global loads pass L1/TEX once and are reused from shared memory, not from L1: no L1 hits |
 * | shared.wavefronts | (S_st + S_ld) / 128 B | S_st = the tile bytes staged into shared memory = the global read bytes above; S_ld = S_st · √(w/s): every staged element is read back by the warps of one row or column of a √(w/s)×√(w/s) warp grid (w warps per block, s = S for sliced kernels, whose warp groups split k, else 1); conflict-free 128-B wavefronts |
 * | inst.ldst | (global read B)/16 + S_st/16 + S_ld/16 + P·K·Z | 16-B vector loads (LDG.128, STS.128, LDS.128) per thread, one 4-B store per output (and partial) |
 * | inst.warp | (inst.fp32 + inst.ldst) / 32 | a LOWER bound: integer and control instructions are not counted |
 * | regs_per_thread | min(255, a + 58), a = TM·TN·s / T accumulators per thread (T threads per block) | ESTIMATE: fitted to the one public register count found, ampere_sgemm_128x64_tn on CC 8.6, 122 registers for a = 64 (an Nsight Systems kernel summary; full-text index id 14117394902, repository not reported) |
 * | smem_static | 2·(TM + TN)·BK·4 B + 512 B, BK = 8·s | ESTIMATE: two stages of a BK-deep tile of A and B; the same source gives 12,800 B for 128x64 (= 12,288 + 512) |
 * inst.int is not set (unknown), so models that need it (quant) say so.
 *
 * ## add: C = A + B, n = B·H FP32 elements
 * | metric | value | why |
 * |---|---|---|
 * | inst.fp32.add, inst.fp32 | n | one FADD per element |
 * | inst.fp32.fma/mul, inst.fp{16,64}.*, inst.fp16, inst.fp64 | 0 | |
 * | warp_efficiency | 1 | vectorised path, full warps |
 * | bytes.dram = bytes.l2 = bytes.l1 | 12·n (read 8·n, write 4·n) | streaming, no reuse (README) |
 * | shared.wavefronts | 0 | no shared memory |
 * | inst.ldst | 3·n / 4 | float4 loads of A and B and a float4 store per 4 elements |
 * | inst.warp | (inst.fp32 + inst.ldst) / 32 | lower bound, as above |
 * | regs_per_thread | 0 (unknown) | no register limit is applied; a 128-thread block of this kernel fits the thread and block limits of every GPU of the set |
 *
 * "Warps per SM" and "Blocks per SM" (the grid's warps and blocks divided
 * by SMs, not residency) are not used; they are kept in extra_metrics.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "import-common.h"
#include "profile-private.h"
#include "util.h"

enum col {
	C_OP = 0,
	C_LATENCY,
	C_DEVICE,
	C_KERNEL,
	C_GX,
	C_GY,
	C_GZ,
	C_BX,
	C_BY,
	C_BZ,
	C_WARPS,
	C_BLOCKS,
	C_KERNELS, /* optional (linear only) */
	C_B,
	C_M,
	C_N,
	C_K,
	C_H,
	C_COUNT
};

static const char *const col_names[C_COUNT] = {
	[C_OP] = "OPName", [C_LATENCY] = "Latency", [C_DEVICE] = "Device",
	[C_KERNEL] = "Kernel Name", [C_GX] = "Grid x", [C_GY] = "Grid y", [C_GZ] = "Grid z",
	[C_BX] = "Block x", [C_BY] = "Block y", [C_BZ] = "Block z",
	[C_WARPS] = "Warps per SM", [C_BLOCKS] = "Blocks per SM", [C_KERNELS] = "Kernels",
	[C_B] = "B", [C_M] = "M", [C_N] = "N", [C_K] = "K", [C_H] = "H",
};

struct ns_ctx {
	const struct gpuproj_targets *targets;
	struct import_gpus gpus; /* by_key: "op\037tag" → kernel index */
	char *files;
	struct gpuproj_error *err;
	char **add_path; /* per GPU index: the first file with its add rows (owned), or NULL */
	size_t n_add_path;
};

/* Free ctx's add_path list. */
static void
clear_add_paths(struct ns_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->n_add_path; i++)
		free(ctx->add_path[i]);
	free(ctx->add_path);
	ctx->add_path = NULL;
	ctx->n_add_path = 0;
}

/* Remember `path` as the file of GPU g's add rows when it has none yet. */
static int
note_add_path(struct ns_ctx *ctx, size_t g, const char *path)
{
	if (g >= ctx->n_add_path) {
		char **v = realloc(ctx->add_path, (g + 1) * sizeof(*v));

		if (!v)
			return GPUPROJ_E_NOMEM;
		memset(v + ctx->n_add_path, 0, (g + 1 - ctx->n_add_path) * sizeof(*v));
		ctx->add_path = v;
		ctx->n_add_path = g + 1;
	}
	if (!ctx->add_path[g] && !(ctx->add_path[g] = strdup(path)))
		return GPUPROJ_E_NOMEM;
	return GPUPROJ_OK;
}

struct ns_file {
	const char *path;
	struct import_csv csv;
	long idx[C_COUNT];
};

static const struct import_gpu_source gpu_source = {
	.lookup = { .what = "GPU", .where = "of the NeuSight data set",
		    .hint = "add its name to an entry's `match` list" },
	.labels = "devices", .where = "",
	.attrs = (const char *const[]){ "origin", "neusight", "metrics", "analytic", "citation",
					GPUPROJ_CITATION_NEUSIGHT, "license", "MIT", NULL },
};

/* A required non-negative number of column c. */
static int
row_number(const struct ns_ctx *ctx, const struct ns_file *f, const struct import_csv_row *r,
	   enum col c, double *ret)
{
	const char *s = import_csv_field(r, (size_t)f->idx[c]);

	if (import_value_absent(s))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[c]), "column '%s' has no value",
				 col_names[c]);
	if (!parse_double(s, ret) || !isfinite(*ret) || *ret < 0)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[c]),
				 "column '%s': '%s' is not a non-negative number", col_names[c], s);
	return GPUPROJ_OK;
}

/* A positive integer of column c that fits in uint32 (dimensions, shapes). */
static int
row_count(const struct ns_ctx *ctx, const struct ns_file *f, const struct import_csv_row *r,
	  enum col c, double *ret)
{
	int st = row_number(ctx, f, r, c, ret);

	if (st)
		return st;
	if (!(*ret >= 1) || *ret != floor(*ret) || *ret > 4294967295.0)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[c]),
				 "column '%s': '%s' is not a positive integer", col_names[c],
				 import_csv_field(r, (size_t)f->idx[c]));
	return GPUPROJ_OK;
}

/*
 * The block tile of a cuBLAS SGEMM kernel name: "<arch>_sgemm_<TM>x<TN>
 * [_sliced1x<S>]_<ab>" (e.g. ampere_sgemm_128x32_sliced1x4_tn). false when
 * it does not parse.
 */
static bool
sgemm_tile(const char *name, unsigned *tm, unsigned *tn, unsigned *sliced)
{
	const char *p = strstr(name, "sgemm_");
	char *end;
	unsigned long a, b, s = 1;

	if (!p)
		return false;
	p += 6;
	a = strtoul(p, &end, 10);
	if (end == p || *end != 'x')
		return false;
	p = end + 1;
	b = strtoul(p, &end, 10);
	if (end == p || *end != '_')
		return false;
	p = end;
	if (str_startswith(p, "_sliced1x")) {
		p += 9;
		s = strtoul(p, &end, 10);
		if (end == p || *end != '_')
			return false;
		p = end;
	}
	if (!(p[0] == '_' && (p[1] == 't' || p[1] == 'n') && (p[2] == 't' || p[2] == 'n')))
		return false;
	if (a < 1 || a > 1024 || b < 1 || b > 1024 || s < 1 || s > 32)
		return false;
	*tm = (unsigned)a;
	*tn = (unsigned)b;
	*sliced = (unsigned)s;
	return true;
}


/* The analytic metrics of a linear row (file comment). */
static int
linear_metrics(const struct ns_ctx *ctx, const struct ns_file *f, const struct import_csv_row *r,
	       const double *shape, const struct gpuproj_signature *sig, struct gpuproj_kernel *k,
	       bool first)
{
	double P = shape[0] * shape[1], N = shape[2], K = shape[3];
	double gx = sig->grid.x, gy = sig->grid.y, Z = sig->grid.z;
	double T = (double)sig->block.x * sig->block.y * sig->block.z, w = ceil(T / 32.0);
	double l2_read, l2, st, ld, acc, s_fac;
	unsigned tm, tn, sl;
	const char *kname = import_csv_field(r, (size_t)f->idx[C_KERNEL]);

	if (!sgemm_tile(kname, &tm, &tn, &sl))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_KERNEL]),
				 "kernel '%s' is not a cuBLAS SGEMM name "
				 "(<arch>_sgemm_<TM>x<TN>[_sliced1x<S>]_<ab>): its tile is unknown",
				 kname);
	import_put(k, GPUPROJ_M_INST_FP32_FMA, P * N * K);
	import_put(k, GPUPROJ_M_INST_FP32_ADD, P * K * Z);
	import_put(k, GPUPROJ_M_INST_FP32_MUL, 0);
	import_put(k, GPUPROJ_M_INST_FP32, P * N * K + P * K * Z);
	import_put(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	import_put(k, GPUPROJ_M_BYTES_DRAM_READ, 4.0 * (P * N + N * K + K));
	import_put(k, GPUPROJ_M_BYTES_DRAM_WRITE, 4.0 * P * K);
	import_put(k, GPUPROJ_M_BYTES_DRAM, 4.0 * (P * N + N * K + P * K + K));
	l2_read = 4.0 * N * (P * gx + K * gy) + 4.0 * K * gy;
	l2 = l2_read + 4.0 * P * K * (Z > 1 ? 2 * Z + 1 : 1);
	import_put(k, GPUPROJ_M_BYTES_L2, l2);
	import_put(k, GPUPROJ_M_BYTES_L1, l2);
	st = 4.0 * N * (P * gx + K * gy);
	s_fac = sqrt(fmax(w / sl, 1.0));
	ld = st * s_fac;
	import_put(k, GPUPROJ_M_SHARED_WAVEFRONTS, (st + ld) / 128.0);
	import_put(k, GPUPROJ_M_INST_LDST, l2_read / 16.0 + st / 16.0 + ld / 16.0 + P * K * Z);
	import_put(k, GPUPROJ_M_INST_WARP,
	    (P * N * K + P * K * Z + l2_read / 16.0 + st / 16.0 + ld / 16.0 + P * K * Z) / 32.0);
	if (first) {
		acc = (double)tm * tn * sl / T;
		k->regs_per_thread = (uint32_t)fmin(255.0, ceil(acc) + 58.0);
		k->smem_static = 2u * (tm + tn) * 8u * sl * 4u + 512u;
	}
	return GPUPROJ_OK;
}

/* The analytic metrics of an add row (file comment). */
static void
add_metrics(const double *shape, struct gpuproj_kernel *k)
{
	double n = shape[0] * shape[1];

	import_put(k, GPUPROJ_M_INST_FP32_FMA, 0);
	import_put(k, GPUPROJ_M_INST_FP32_ADD, n);
	import_put(k, GPUPROJ_M_INST_FP32_MUL, 0);
	import_put(k, GPUPROJ_M_INST_FP32, n);
	import_put(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	import_put(k, GPUPROJ_M_BYTES_DRAM_READ, 8.0 * n);
	import_put(k, GPUPROJ_M_BYTES_DRAM_WRITE, 4.0 * n);
	import_put(k, GPUPROJ_M_BYTES_DRAM, 12.0 * n);
	import_put(k, GPUPROJ_M_BYTES_L2, 12.0 * n);
	import_put(k, GPUPROJ_M_BYTES_L1, 12.0 * n);
	import_put(k, GPUPROJ_M_SHARED_WAVEFRONTS, 0);
	import_put(k, GPUPROJ_M_INST_LDST, 0.75 * n);
	import_put(k, GPUPROJ_M_INST_WARP, 1.75 * n / 32.0);
}

static int
import_row(struct ns_ctx *ctx, const struct ns_file *f, const struct import_csv_row *r)
{
	static const enum gpuproj_metric fp_zero[] = {
		GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL,
		GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL,
	};
	const char *op, *device, *kernels;
	double lat, dims[6], shape[4], extra[2];
	bool linear, first;
	char tag[160], key[200];
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *k;
	struct import_gpu *g = NULL;
	size_t i, before;
	int st;

	if (r->n != f->csv.rows[0].n)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, r->line, 0,
				 "the row has %zu fields, the header %zu", r->n, f->csv.rows[0].n);
	op = import_csv_field(r, (size_t)f->idx[C_OP]);
	device = import_csv_field(r, (size_t)f->idx[C_DEVICE]);
	linear = strcmp(op, "linear") == 0;
	if (!linear && strcmp(op, "add") != 0)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_OP]),
				 "operator '%s' is not one this importer derives metrics for "
				 "(linear, add)", op);
	if (linear && (f->idx[C_M] < 0 || f->idx[C_N] < 0 || f->idx[C_K] < 0))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line, 0,
				 "a linear row needs the shape columns B, M, N, K");
	if (!linear && f->idx[C_H] < 0)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line, 0,
				 "an add row needs the shape columns B, H");
	if (import_value_absent(device))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_DEVICE]),
				 "column 'Device' is empty");
	if ((st = row_number(ctx, f, r, C_LATENCY, &lat)))
		return st;
	if (!(lat > 0))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_LATENCY]),
				 "column 'Latency': %s is not a positive time in milliseconds",
				 import_csv_field(r, (size_t)f->idx[C_LATENCY]));
	for (i = 0; i < 6; i++) {
		if ((st = row_count(ctx, f, r, (enum col)(C_GX + i), &dims[i])))
			return st;
	}
	for (i = 0; i < 2; i++) {
		if ((st = row_number(ctx, f, r, (enum col)(C_WARPS + i), &extra[i])))
			return st;
	}
	if ((st = row_count(ctx, f, r, C_B, &shape[0])))
		return st;
	if (linear) {
		if ((st = row_count(ctx, f, r, C_M, &shape[1])) ||
		    (st = row_count(ctx, f, r, C_N, &shape[2])) ||
		    (st = row_count(ctx, f, r, C_K, &shape[3])))
			return st;
		snprintf(tag, sizeof(tag), "B=%.0f,M=%.0f,N=%.0f,K=%.0f", shape[0], shape[1],
			 shape[2], shape[3]);
	} else {
		if ((st = row_count(ctx, f, r, C_H, &shape[1])))
			return st;
		snprintf(tag, sizeof(tag), "B=%.0f,H=%.0f", shape[0], shape[1]);
	}
	st = import_gpus_find_or_add(&ctx->gpus, ctx->targets, &gpu_source, device, ctx->files,
				     f->path, r->line,
				     import_csv_column(r, (size_t)f->idx[C_DEVICE]), &g, ctx->err);
	if (st)
		return st;

	sig.name = op;
	sig.tag = tag;
	sig.grid = (struct gpuproj_dim3){ (uint32_t)dims[0], (uint32_t)dims[1], (uint32_t)dims[2] };
	sig.block = (struct gpuproj_dim3){ (uint32_t)dims[3], (uint32_t)dims[4], (uint32_t)dims[5] };
	before = gpuproj_profile_count(g->profile);
	if (gpuproj_profile_kernel(g->profile, &sig, &k))
		goto nomem;
	first = k->launches == 0;
	if (first) {
		kernels = f->idx[C_KERNELS] >= 0 ? import_csv_field(r, (size_t)f->idx[C_KERNELS])
						 : "";
		while (*kernels == ';')
			kernels++;
		if (!*kernels)
			kernels = import_csv_field(r, (size_t)f->idx[C_KERNEL]);
		if (profile_kernel_set_demangled(k, kernels))
			goto nomem;
	}
	if (linear) {
		if ((st = linear_metrics(ctx, f, r, shape, &sig, k, first)))
			return st;
	} else {
		add_metrics(shape, k);
		if (note_add_path(ctx, (size_t)(g - ctx->gpus.v), f->path))
			goto nomem;
	}
	for (i = 0; i < ARRAY_LENGTH(fp_zero); i++)
		import_put(k, fp_zero[i], 0);
	import_put(k, GPUPROJ_M_INST_FP64, 0);
	import_put(k, GPUPROJ_M_INST_FP16, 0);
	gpuproj_kernel_add_duration(k, lat * 1e6);
	k->profiled++;
	if (gpuproj_kernel_add_extra(k, "Warps per SM", "", extra[0]) ||
	    gpuproj_kernel_add_extra(k, "Blocks per SM", "", extra[1]))
		goto nomem;
	if (gpuproj_profile_count(g->profile) != before) {
		snprintf(key, sizeof(key), "%s\037%s", op, tag);
		if (import_strmap_put(&g->by_key, key, before))
			goto nomem;
	}
	return GPUPROJ_OK;
nomem:
	return error_set(ctx->err, GPUPROJ_E_NOMEM, f->path, r->line, 0, "out of memory");
}

static int
read_file(struct ns_ctx *ctx, struct ns_file *f)
{
	const struct import_csv_row *h;
	int c, st;

	st = import_csv_read_file(f->path, NULL, &f->csv, ctx->err);
	if (st)
		return st;
	if (f->csv.n_rows == 0)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, 0, 0,
				 "empty file: expected a NeuSight CSV header (OPName,Latency,"
				 "Device,...)");
	h = &f->csv.rows[0];
	for (c = 0; c < C_COUNT; c++)
		f->idx[c] = import_csv_find(h, col_names[c]);
	if (f->idx[C_OP] < 0 || f->idx[C_LATENCY] < 0 || f->idx[C_DEVICE] < 0)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, h->line, 0,
				 "not a NeuSight CSV: the header has no 'OPName', 'Latency' and "
				 "'Device' columns");
	for (c = 0; c < C_COUNT; c++) {
		if (c == C_KERNELS || c >= C_M)
			continue; /* optional, or needed by one operator only */
		if (f->idx[c] < 0)
			return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, h->line, 0,
					 "required column '%s' is missing from the header",
					 col_names[c]);
	}
	if (f->csv.n_rows == 1)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, 0, 0,
				 "no data rows: nothing to import");
	return GPUPROJ_OK;
}

/* Read the CSV files list[] and import their rows into ctx's GPUs. */
static int
import_files(struct ns_ctx *ctx, char *const *list, size_t n_list)
{
	struct ns_file f;
	size_t i, j;
	int st = GPUPROJ_OK;

	for (i = 0; i < n_list && st == GPUPROJ_OK; i++) {
		memset(&f, 0, sizeof(f));
		f.path = list[i];
		st = read_file(ctx, &f);
		for (j = 1; st == GPUPROJ_OK && j < f.csv.n_rows; j++)
			st = import_row(ctx, &f, &f.csv.rows[j]);
		import_csv_clear(&f.csv);
	}
	return st;
}

/* ---- per-call overhead (file comment "Time") ---- */

/* Fewest add shapes (calibration half) an overhead estimate is made from. */
#define OVERHEAD_MIN_SHAPES 20
/* The estimate is at most this share of the GPU's shortest call. */
#define OVERHEAD_MAX_SHARE 0.9

struct ovh_point {
	double bytes, ns;
};

static int
cmp_ovh_point(const void *a, const void *b)
{
	const struct ovh_point *x = a, *y = b;

	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/*
 * The intercept of an ordinary least-squares line of latency (ns) on DRAM
 * bytes over the larger half (by bytes) of p's `add` shapes in the
 * calibration half (profile_shape_hash() even). *ret_n = the add shapes of
 * the calibration half. GPUPROJ_OK, GPUPROJ_E_NOTFOUND (fewer than
 * OVERHEAD_MIN_SHAPES, or all of the same size) or GPUPROJ_E_NOMEM.
 */
static int
add_intercept(const struct gpuproj_profile *p, double *ret, size_t *ret_n)
{
	size_t n = 0, i, h, m;
	struct ovh_point *v = calloc(gpuproj_profile_count(p) + 1, sizeof(*v));
	double mx = 0, my = 0, sxy = 0, sxx = 0;

	if (!v)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (strcmp(k->name, "add") != 0 || !k->duration_ns.n ||
		    !gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM) || profile_shape_hash(k) % 2)
			continue;
		v[n].bytes = gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM);
		v[n].ns = gpuproj_kernel_mean_ns(k);
		n++;
	}
	*ret_n = n;
	if (n < OVERHEAD_MIN_SHAPES) {
		free(v);
		return GPUPROJ_E_NOTFOUND;
	}
	qsort(v, n, sizeof(*v), cmp_ovh_point);
	h = n / 2;
	m = n - h;
	for (i = h; i < n; i++) {
		mx += v[i].bytes / (double)m;
		my += v[i].ns / (double)m;
	}
	for (i = h; i < n; i++) {
		sxy += (v[i].bytes - mx) * (v[i].ns - my);
		sxx += (v[i].bytes - mx) * (v[i].bytes - mx);
	}
	free(v);
	if (!(sxx > 0))
		return GPUPROJ_E_NOTFOUND;
	*ret = my - sxy / sxx * mx;
	return GPUPROJ_OK;
}

/*
 * "<dir>/add/<name>.csv" for "<dir>/<op>/<name>.csv" with <op> not "add"
 * (the data set's layout), when that file exists and is not in list[];
 * else NULL. malloc'd.
 */
static char *
sibling_add(const char *path, char *const *list, size_t n_list)
{
	const char *base = strrchr(path, '/'), *op;
	char *dir, *out;
	struct stat st;
	size_t i;

	if (!base || base == path)
		return NULL;
	for (op = base - 1; op > path && op[-1] != '/'; op--)
		;
	if ((size_t)(base - op) == 3 && strncmp(op, "add", 3) == 0)
		return NULL;
	dir = strndup(path, (size_t)(op - path));
	if (!dir)
		return NULL;
	out = xasprintf("%sadd%s", dir, base);
	free(dir);
	if (!out || stat(out, &st) != 0 || !S_ISREG(st.st_mode)) {
		free(out);
		return NULL;
	}
	for (i = 0; i < n_list; i++) {
		if (strcmp(list[i], out) == 0) {
			free(out);
			return NULL;
		}
	}
	return out;
}

/*
 * The `add` rows of the GPUs' sibling files (sibling_add()) imported into
 * `scratch` (its own GPU set, same targets; scratch->files = their names):
 * where a linear-only import finds its GPUs' per-call overhead.
 */
static int
import_siblings(struct ns_ctx *ctx, char *const *list, size_t n_list, struct ns_ctx *scratch)
{
	char **sib = calloc(n_list + 1, sizeof(*sib));
	size_t n = 0, i, j;
	int st;

	if (!sib)
		return error_set(ctx->err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	for (i = 0; i < n_list; i++) {
		char *s = sibling_add(list[i], list, n_list);

		for (j = 0; s && j < n; j++) {
			if (strcmp(sib[j], s) == 0) {
				free(s);
				s = NULL;
			}
		}
		if (s)
			sib[n++] = s;
	}
	scratch->targets = ctx->targets;
	scratch->err = ctx->err;
	scratch->files = import_join_paths((const char *const *)sib, n);
	st = n == 0 ? GPUPROJ_OK
	     : !scratch->files ? error_set(ctx->err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory")
			       : import_files(scratch, sib, n);
	for (i = 0; i < n; i++)
		free(sib[i]);
	free(sib);
	return st;
}

/*
 * Estimate every GPU's per-call overhead, subtract it from its durations
 * and record it (attributes call_overhead_ns, call_overhead_basis,
 * durations). Before the references are set, so they are kernel times too.
 */
static int
subtract_overheads(struct ns_ctx *ctx, char *const *list, size_t n_list)
{
	struct ns_ctx scratch = { 0 };
	bool scratch_done = false;
	size_t a, i, n_add;
	int st = GPUPROJ_OK;

	for (a = 0; a < ctx->gpus.n && st == GPUPROJ_OK; a++) {
		struct gpuproj_profile *p = ctx->gpus.v[a].profile;
		const char *files = a < ctx->n_add_path ? ctx->add_path[a] : NULL;
		double oh = 0, floor_ns = INFINITY, cap;
		char num[64], *basis = NULL;
		int e;

		e = add_intercept(p, &oh, &n_add);
		if (e == GPUPROJ_E_NOTFOUND && n_add == 0) {
			if (!scratch_done) {
				st = import_siblings(ctx, list, n_list, &scratch);
				scratch_done = true;
				if (st)
					break;
			}
			for (i = 0; i < scratch.gpus.n; i++) {
				if (scratch.gpus.v[i].target == ctx->gpus.v[a].target) {
					files = i < scratch.n_add_path ? scratch.add_path[i] : NULL;
					e = add_intercept(scratch.gpus.v[i].profile, &oh, &n_add);
					break;
				}
			}
		}
		if (e == GPUPROJ_E_NOMEM)
			goto nomem;
		for (i = 0; i < gpuproj_profile_count(p); i++) {
			const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

			if (k->duration_ns.n && k->duration_ns.min < floor_ns)
				floor_ns = k->duration_ns.min;
		}
		cap = OVERHEAD_MAX_SHARE * floor_ns;
		if (e == GPUPROJ_OK) {
			bool capped = oh > cap;

			oh = fmax(0.0, fmin(oh, cap));
			basis = xasprintf(
				"intercept of an ordinary least-squares line of add latency on "
				"its DRAM bytes over the larger half (by bytes) of the %zu add "
				"shapes of the calibration half (FNV-1a of operator and shape "
				"even) in %s%s",
				n_add, files ? files : "(unknown file)",
				capped ? "; capped at 0.9 x the shortest call of this GPU" : "");
		} else {
			oh = 0;
			basis = xasprintf("not estimated: %zu add shapes of this GPU in the "
					  "calibration half (%d needed), in %s and its sibling "
					  "add/ file; durations are call latencies",
					  n_add, OVERHEAD_MIN_SHAPES, ctx->files);
		}
		snprintf(num, sizeof(num), "%.0f", oh);
		e = !basis || gpuproj_profile_set_attr(p, "call_overhead_ns", num) ||
		    gpuproj_profile_set_attr(p, "call_overhead_basis", basis);
		free(basis);
		if (e)
			goto nomem;
		if (!(oh > 0))
			continue;
		if (gpuproj_profile_set_attr(p, "durations",
					     "kernel time estimate: call latency minus "
					     "call_overhead_ns"))
			goto nomem;
		for (i = 0; i < gpuproj_profile_count(p); i++) {
			struct gpuproj_stats *d = &gpuproj_profile_at(p, i)->duration_ns;

			if (!d->n)
				continue;
			d->sum -= oh * (double)d->n;
			d->mean -= oh;
			d->min -= oh;
			d->max -= oh;
		}
	}
out:
	import_gpus_clear(&scratch.gpus);
	clear_add_paths(&scratch);
	free(scratch.files);
	return st;
nomem:
	st = error_set(ctx->err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	goto out;
}

/* Reference times (import_gpus_set_references()): the same operator and shape. */
static const struct gpuproj_kernel *
counterpart(const struct import_gpu *other, const struct gpuproj_kernel *k, void *userdata)
{
	char key[200];
	size_t j;

	(void)userdata;
	snprintf(key, sizeof(key), "%s\037%s", k->name, k->tag ? k->tag : "");
	return import_strmap_get(&other->by_key, key, &j) ? gpuproj_profile_at(other->profile, j)
							    : NULL;
}

static int
push_path(char ***list, size_t *n, size_t *cap, char *path, struct gpuproj_error *err)
{
	if (!path)
		return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		char **nl = realloc(*list, c * sizeof(*nl));

		if (!nl) {
			free(path);
			return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
		}
		*list = nl;
		*cap = c;
	}
	(*list)[(*n)++] = path;
	return GPUPROJ_OK;
}

/*
 * The CSV files of `path`: the path itself when it is not a directory (as
 * given, depth 0); for a directory, its *.csv files and those of its
 * subdirectories (one level: <op>/<GPU>.csv), in name order.
 */
static int
expand_path(const char *path, int depth, char ***list, size_t *n, size_t *cap,
	    struct gpuproj_error *err)
{
	struct dirent **ents = NULL;
	struct stat st;
	int k, m, r = GPUPROJ_OK;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		size_t len = strlen(path);

		if (depth > 0 && !(len > 4 && strcmp(path + len - 4, ".csv") == 0))
			return GPUPROJ_OK;
		return push_path(list, n, cap, strdup(path), err);
	}
	if (depth > 1)
		return GPUPROJ_OK;
	m = scandir(path, &ents, NULL, alphasort);
	if (m < 0)
		return error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot read the directory");
	for (k = 0; k < m; k++) {
		if (r == GPUPROJ_OK && ents[k]->d_name[0] != '.') {
			char *full = xasprintf("%s/%s", path, ents[k]->d_name);

			r = full ? expand_path(full, depth + 1, list, n, cap, err)
				 : error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
			free(full);
		}
		free(ents[k]);
	}
	free(ents);
	return r;
}

int
gpuproj_import_neusight(const char *const *paths, size_t n_paths,
			const struct gpuproj_targets *targets,
			struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			struct gpuproj_error *reterr)
{
	struct ns_ctx ctx = { 0 };
	struct gpuproj_profile **out = NULL;
	char **list = NULL;
	size_t n_list = 0, cap = 0, i;
	int st;

	if (!paths || n_paths == 0 || !targets || !ret_profiles || !ret_n)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "NeuSight import: no files or no targets given");
	ctx.targets = targets;
	ctx.err = reterr;
	for (i = 0; i < n_paths; i++) {
		st = expand_path(paths[i], 0, &list, &n_list, &cap, reterr);
		if (st)
			goto out;
	}
	if (n_list == 0) {
		st = error_set(reterr, GPUPROJ_E_NOTFOUND, paths[0], 0, 0,
			       "no *.csv file found");
		goto out;
	}
	ctx.files = import_join_paths((const char *const *)list, n_list);
	if (!ctx.files) {
		st = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	st = import_files(&ctx, list, n_list);
	if (st)
		goto out;
	st = subtract_overheads(&ctx, list, n_list);
	if (st)
		goto out;
	st = import_gpus_set_references(&ctx.gpus, counterpart, NULL, ctx.err);
	if (st)
		goto out;
	st = import_gpus_take(&ctx.gpus, &out, reterr);
	if (st)
		goto out;
	*ret_profiles = out;
	*ret_n = ctx.gpus.n;
	st = GPUPROJ_OK;
out:
	import_gpus_clear(&ctx.gpus);
	clear_add_paths(&ctx);
	free(ctx.files);
	for (i = 0; i < n_list; i++)
		free(list[i]);
	free(list);
	return st;
}
