/* SPDX-License-Identifier: MIT */
/*
 * Importer of XLA's matmul performance table (include/gpuproj/import.h):
 * the default table of XLA's GPU cost model,
 * xla/service/gpu/model/matmul_interpolator_data.h (Apache-2.0), as
 * scripts/xla-matmul-csv.py converts it: tensor-core GEMMs of one shape
 * grid timed on several GPUs (tests/data/xla-matmul/README.md names the
 * repository, commit and GPUs). Every profile made here carries that
 * citation in its "citation" attribute.
 *
 * Input: CSV files with the header
 *   xla_table,gpu,dtype,b,m,n,k,flop_per_s
 * one row per (GPU, shape, data type): a batched GEMM, b batches of an
 * (m × k) by (k × n) product, of XLA data type `dtype`
 * ("<lhs>x<rhs>-><out>"), that ran at flop_per_s = 2·b·m·n·k / t on the GPU
 * `gpu` (a targets.yaml entry or `match` name), t the median kernel time of
 * 10 traced runs after one warm-up (XLA's matmul_perf_table_gen: kernel
 * times from its kernel tracer, operands alternated between two random
 * sets). `xla_table` is XLA's key of the GPU (kept as the profile's
 * attribute xla_table).
 *
 * The table has no hardware counters and no launch: every metric below is
 * ANALYTIC, from the shape and data type; the grid and block are
 * ESTIMATES. Each profile has attributes origin = "xla-matmul", metrics =
 * "analytic", citation, license = "Apache-2.0", import.files.
 *
 * Data types (element sizes e_a, e_b of the operands and e_c of the
 * output, bytes) and the tensor precision their FLOP count as:
 * | dtype | precision | e_a, e_b, e_c |
 * |---|---|---|
 * | bf16xbf16->bf16 | flop.tensor.bf16 | 2, 2, 2 |
 * | bf16xbf16->f32 | flop.tensor.bf16 | 2, 2, 4 |
 * | f8e4m3fnxf8e4m3fn->bf16, f8e4m3fnuzxf8e4m3fnuz->bf16 | flop.tensor.fp8 | 1, 1, 2 |
 * | f8e4m3fnxf8e5m2->bf16, f8e5m2xf8e4m3fn->bf16 | flop.tensor.fp8 | 1, 1, 2 |
 * Any other type is an error naming the row. The FNUZ variant of E4M3
 * (MI300's FP8: no negative zero, another NaN and exponent bias) does the
 * same work as E4M3FN, so both are written "e4m3" in the signature and a
 * GEMM on an MI300X is compared with the same GEMM on an MI355X or H100.
 *
 * Output: one profile per `gpu`, in order of first appearance. One row =
 * one kernel signature: name "matmul", tag "<a>x<b>-><c>,b=…,m=…,n=…,k=…"
 * (a, b, c: bf16, f32, e4m3, e5m2); rows with the same signature are merged,
 * their times averaged. Each signature carries, for every other GPU that
 * has it, a reference time (targets.yaml name, ns).
 *
 * Time: duration_ns = 2·b·m·n·k / flop_per_s · 10⁹ (the table's FLOP/s
 * come from integer nanoseconds, so this restores them within 1 ns).
 * A row is refused, naming its file, line and column, when its rate is
 * beyond any GPU's (above IMPORT_RATE_MARGIN × the fastest rate of its
 * precision in targets.yaml, import_rate_bound()), when the time it
 * implies is outside [IMPORT_MIN_DURATION_NS, IMPORT_MAX_DURATION_NS], or
 * when the estimated grid is beyond CUDA's limits (import_launch_ok()):
 * nothing of it is kept.
 *
 * Metrics, with F = 2·b·m·n·k and an estimated output tile of T = 128 ×
 * 128 elements per thread block (cuBLAS, CUTLASS and hipBLASLt tile sizes
 * of 128–256; the real tile differs per GPU and shape and is not in the
 * table), g_n = ⌈n/T⌉, g_m = ⌈m/T⌉:
 * | metric | value | why |
 * |---|---|---|
 * | flop.tensor.<p> | F | 2 FLOP per multiply-add, all on the tensor pipe |
 * | bytes.dram_read | b·(m·k·e_a + k·n·e_b) | compulsory: each operand read once (a LOWER bound when the operands do not fit in L2) |
 * | bytes.dram_write | b·m·n·e_c | the output written once |
 * | bytes.dram | read + write | |
 * | bytes.l2 | b·(m·k·e_a·g_n + k·n·e_b·g_m) + b·m·n·e_c | each block reads a T-row panel of A and a T-column panel of B through L2, and writes its tile |
 * | bytes.l1 | bytes.l2 | operands go to shared memory (TMA, async copies), not reused from L1 |
 * | shared.wavefronts | (L2 read bytes) / 128 | each staged byte read once by the MMAs, in conflict-free 128-B wavefronts (ESTIMATE) |
 * | grid | (g_n, g_m, b) | ESTIMATE, with the tile above |
 * | block | (256, 1, 1) | ESTIMATE: two warpgroups (NVIDIA), four wavefronts (AMD) |
 * No CUDA-core FP or instruction counts: the models that need them
 * (quant, irm, occupancy) say so; regs_per_thread is 0 (unknown).
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "import-common.h"
#include "profile-private.h"
#include "util.h"

/* The output tile edge of the estimated grid (file comment). */
#define TILE 128.0
/* Threads per block of the estimated launch. */
#define BLOCK_THREADS 256u

enum col { C_TABLE = 0, C_GPU, C_DTYPE, C_B, C_M, C_N, C_K, C_FLOPS, C_COUNT };

static const char *const col_names[C_COUNT] = {
	[C_TABLE] = "xla_table", [C_GPU] = "gpu", [C_DTYPE] = "dtype", [C_B] = "b",
	[C_M] = "m",            [C_N] = "n",     [C_K] = "k",         [C_FLOPS] = "flop_per_s",
};

/* The data types of the file comment. */
static const struct dtype {
	const char *xla;  /* XLA's name */
	const char *tag;  /* in the signature */
	enum gpuproj_metric metric;
	enum gpuproj_tensor_prec prec; /* its rate in targets.yaml (import_rate_bound()) */
	double ea, eb, ec;
} dtypes[] = {
	{ "bf16xbf16->bf16", "bf16xbf16->bf16", GPUPROJ_M_FLOP_TENSOR_BF16, GPUPROJ_TPREC_BF16,
	  2, 2, 2 },
	{ "bf16xbf16->f32", "bf16xbf16->f32", GPUPROJ_M_FLOP_TENSOR_BF16, GPUPROJ_TPREC_BF16,
	  2, 2, 4 },
	{ "f8e4m3fnxf8e4m3fn->bf16", "e4m3xe4m3->bf16", GPUPROJ_M_FLOP_TENSOR_FP8,
	  GPUPROJ_TPREC_FP8, 1, 1, 2 },
	{ "f8e4m3fnuzxf8e4m3fnuz->bf16", "e4m3xe4m3->bf16", GPUPROJ_M_FLOP_TENSOR_FP8,
	  GPUPROJ_TPREC_FP8, 1, 1, 2 },
	{ "f8e4m3fnxf8e5m2->bf16", "e4m3xe5m2->bf16", GPUPROJ_M_FLOP_TENSOR_FP8,
	  GPUPROJ_TPREC_FP8, 1, 1, 2 },
	{ "f8e5m2xf8e4m3fn->bf16", "e5m2xe4m3->bf16", GPUPROJ_M_FLOP_TENSOR_FP8,
	  GPUPROJ_TPREC_FP8, 1, 1, 2 },
};

struct xm_ctx {
	const struct gpuproj_targets *targets;
	struct import_gpus gpus; /* by_key: tag → kernel index */
	char *files;
	struct gpuproj_error *err;
};

struct xm_file {
	const char *path;
	struct import_csv csv;
	long idx[C_COUNT];
};

static const struct import_gpu_source gpu_source = {
	.lookup = { .what = "GPU", .where = "of the XLA matmul table",
		    .hint = "give a targets.yaml entry's name in the gpu column" },
	.labels = "GPUs", .where = "",
	.attrs = (const char *const[]){ "origin", "xla-matmul", "metrics", "analytic", "citation",
					GPUPROJ_CITATION_XLA_MATMUL, "license", "Apache-2.0",
					"durations",
					"kernel time: 2*b*m*n*k / flop_per_s, the median of 10 "
					"traced runs (XLA matmul_perf_table_gen)",
					NULL },
};

/* A positive number of column c; integral and < 2^32 when `count`. */
static int
row_number(const struct xm_ctx *ctx, const struct xm_file *f, const struct import_csv_row *r,
	   enum col c, bool count, double *ret)
{
	const char *s = import_csv_field(r, (size_t)f->idx[c]);
	int col = import_csv_column(r, (size_t)f->idx[c]);

	if (import_value_absent(s))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line, col,
				 "column '%s' has no value", col_names[c]);
	if (!parse_double(s, ret) || !isfinite(*ret) || !(*ret > 0))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line, col,
				 "column '%s': '%s' is not a positive number", col_names[c], s);
	if (count && (*ret != floor(*ret) || *ret > 4294967295.0))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line, col,
				 "column '%s': '%s' is not a positive integer", col_names[c], s);
	return GPUPROJ_OK;
}


static int
import_row(struct xm_ctx *ctx, const struct xm_file *f, const struct import_csv_row *r)
{
	const struct dtype *dt = NULL;
	const char *gpu, *dtype, *table;
	double b, m, n, k, flops, F, gn, gm, rd, wr, l2rd, bound, peak, t_ns;
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *kern;
	struct import_gpu *g = NULL;
	const char *fastest;
	char tag[160], why[96];
	size_t i, before;
	int st;

	if (r->n != f->csv.rows[0].n)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, r->line, 0,
				 "the row has %zu fields, the header %zu", r->n, f->csv.rows[0].n);
	gpu = import_csv_field(r, (size_t)f->idx[C_GPU]);
	dtype = import_csv_field(r, (size_t)f->idx[C_DTYPE]);
	table = import_csv_field(r, (size_t)f->idx[C_TABLE]);
	if (import_value_absent(gpu))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_GPU]), "column 'gpu' is empty");
	for (i = 0; i < ARRAY_LENGTH(dtypes); i++) {
		if (strcmp(dtype, dtypes[i].xla) == 0)
			dt = &dtypes[i];
	}
	if (!dt)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_DTYPE]),
				 "data type '%s' is not one this importer derives metrics for "
				 "(bf16xbf16->bf16, bf16xbf16->f32, FP8 E4M3/E5M2 -> bf16)", dtype);
	if ((st = row_number(ctx, f, r, C_B, true, &b)) ||
	    (st = row_number(ctx, f, r, C_M, true, &m)) ||
	    (st = row_number(ctx, f, r, C_N, true, &n)) ||
	    (st = row_number(ctx, f, r, C_K, true, &k)) ||
	    (st = row_number(ctx, f, r, C_FLOPS, false, &flops)))
		return st;
	/* A rate no GPU reaches, and the time it implies: refused, naming the row. */
	bound = import_rate_bound(ctx->targets, (int)dt->prec, GPUPROJ_FP32, &fastest, &peak);
	if (flops > bound)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_FLOPS]),
				 "column 'flop_per_s': %s is beyond any GPU's %s rate (above %g x "
				 "the fastest in targets.yaml, %s's %.4g FLOP/s)",
				 import_csv_field(r, (size_t)f->idx[C_FLOPS]),
				 gpuproj_tensor_prec_name(dt->prec), IMPORT_RATE_MARGIN,
				 fastest ? fastest : "?", peak);
	F = 2.0 * b * m * n * k;
	t_ns = F / flops * 1e9;
	if (!(t_ns >= IMPORT_MIN_DURATION_NS && t_ns <= IMPORT_MAX_DURATION_NS))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_FLOPS]),
				 "column 'flop_per_s': %s implies a kernel time of %.4g ns for "
				 "2*b*m*n*k = %.17g FLOP, not one from %g ns to %g s",
				 import_csv_field(r, (size_t)f->idx[C_FLOPS]), t_ns, F,
				 IMPORT_MIN_DURATION_NS, IMPORT_MAX_DURATION_NS / 1e9);
	st = import_gpus_find_or_add(&ctx->gpus, ctx->targets, &gpu_source, gpu, ctx->files,
				     f->path, r->line, import_csv_column(r, (size_t)f->idx[C_GPU]),
				     &g, ctx->err);
	if (st)
		return st;
	if (!import_value_absent(table) && !gpuproj_profile_attr(g->profile, "xla_table") &&
	    gpuproj_profile_set_attr(g->profile, "xla_table", table))
		goto nomem;

	gn = ceil(n / TILE);
	gm = ceil(m / TILE);
	if (!import_launch_ok((const double[]){ gn, gm, b },
			      (const double[]){ BLOCK_THREADS, 1, 1 }, why, sizeof(why)))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line, 0,
				 "shape b=%.0f, m=%.0f, n=%.0f is beyond a CUDA grid of %g-element "
				 "tiles (%s)", b, m, n, TILE, why);
	snprintf(tag, sizeof(tag), "%s,b=%.0f,m=%.0f,n=%.0f,k=%.0f", dt->tag, b, m, n, k);
	sig.name = "matmul";
	sig.tag = tag;
	sig.grid = (struct gpuproj_dim3){ (uint32_t)gn, (uint32_t)gm, (uint32_t)b };
	sig.block = (struct gpuproj_dim3){ BLOCK_THREADS, 1, 1 };
	before = gpuproj_profile_count(g->profile);
	if (gpuproj_profile_kernel(g->profile, &sig, &kern))
		goto nomem;

	rd = b * (m * k * dt->ea + k * n * dt->eb);
	wr = b * m * n * dt->ec;
	l2rd = b * (m * k * dt->ea * gn + k * n * dt->eb * gm);
	import_put(kern, dt->metric, F);
	import_put(kern, GPUPROJ_M_BYTES_DRAM_READ, rd);
	import_put(kern, GPUPROJ_M_BYTES_DRAM_WRITE, wr);
	import_put(kern, GPUPROJ_M_BYTES_DRAM, rd + wr);
	import_put(kern, GPUPROJ_M_BYTES_L2, l2rd + wr);
	import_put(kern, GPUPROJ_M_BYTES_L1, l2rd + wr);
	import_put(kern, GPUPROJ_M_SHARED_WAVEFRONTS, l2rd / 128.0);
	gpuproj_kernel_add_duration(kern, t_ns);
	kern->profiled++;
	if (gpuproj_profile_count(g->profile) != before &&
	    import_strmap_put(&g->by_key, tag, before))
		goto nomem;
	return GPUPROJ_OK;
nomem:
	return error_set(ctx->err, GPUPROJ_E_NOMEM, f->path, r->line, 0, "out of memory");
}

static int
read_file(struct xm_ctx *ctx, struct xm_file *f)
{
	const struct import_csv_row *h;
	int c, st;

	st = import_csv_read_file(f->path, NULL, &f->csv, ctx->err);
	if (st)
		return st;
	if (f->csv.n_rows == 0)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, 0, 0,
				 "empty file: expected the header "
				 "xla_table,gpu,dtype,b,m,n,k,flop_per_s");
	h = &f->csv.rows[0];
	for (c = 0; c < C_COUNT; c++) {
		f->idx[c] = import_csv_find(h, col_names[c]);
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

/* Reference times (import_gpus_set_references()): the same GEMM shape (the tag). */
static const struct gpuproj_kernel *
counterpart(const struct import_gpu *other, const struct gpuproj_kernel *k, void *userdata)
{
	size_t j;

	(void)userdata;
	return import_strmap_get(&other->by_key, k->tag ? k->tag : "", &j)
		       ? gpuproj_profile_at(other->profile, j)
		       : NULL;
}

int
gpuproj_import_xla_matmul(const char *const *paths, size_t n_paths,
			  const struct gpuproj_targets *targets,
			  struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			  struct gpuproj_error *reterr)
{
	struct xm_ctx ctx = { 0 };
	struct gpuproj_profile **out = NULL;
	struct xm_file f;
	size_t i, j;
	int st = GPUPROJ_OK;

	if (!paths || n_paths == 0 || !targets || !ret_profiles || !ret_n)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "XLA matmul import: no files or no targets given");
	ctx.targets = targets;
	ctx.err = reterr;
	ctx.files = import_join_paths(paths, n_paths);
	if (!ctx.files)
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	for (i = 0; i < n_paths && st == GPUPROJ_OK; i++) {
		memset(&f, 0, sizeof(f));
		f.path = paths[i];
		st = read_file(&ctx, &f);
		for (j = 1; st == GPUPROJ_OK && j < f.csv.n_rows; j++)
			st = import_row(&ctx, &f, &f.csv.rows[j]);
		import_csv_clear(&f.csv);
	}
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
