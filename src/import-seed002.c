/* SPDX-License-Identifier: MIT */
/*
 * Importer of seed 002's own data set (include/gpuproj/import.h):
 * Srivastava, Naha, Gupta, Rao, "Cross-GPU Performance Prediction Using
 * Analytical Models and Machine Learning" (course project report;
 * docs/references.md [Srivastava-nd]); repository Debdeep23/test1 @
 * f808e854be31a5c7963855a04b207420be4b9684, files
 * predict-kernel-perf/data/runs_{2080ti,4070,titanv,titanx}_final.csv. No
 * licence is stated: measured figures, cited in every profile's
 * "citation" attribute.
 *
 * Input: CSV files whose header starts `kernel,regs,shmem,` (the four
 * files order their other columns differently; columns are found by
 * name). One row = one configuration of one of 16 CUDA kernels timed on
 * one GPU: `mean_ms` is the CUDA-event time of one launch, averaged over
 * 50–100 launches after 10–20 warm-ups, over 10 trials (report §6.4);
 * the launches repeat over the same buffers.
 *
 * Output: one profile per `gpu_device_name` (matched to targets.yaml by
 * its `match` lists), in order of first appearance; attributes origin =
 * "seed002", metrics = "analytic", citation, license, import.files. A
 * signature is name = `kernel`, tag = the configuration's sizes,
 * "N=…,rows=…,cols=…,iters=…" (an empty field and an absent `iters`
 * column are 0: the 2080 Ti file spells empty rows/cols where the others
 * write 0, the 4070 file has no iters), block = (`block`, 1, 1), grid =
 * (`grid_blocks`, 1, 1) (the GPU's own launch). Configurations are joined
 * across GPUs on kernel, tag and block — the key of the seed's own
 * evaluation (its config_id: kernel, N, rows, cols, block, iters), which
 * reproduces its Table 3 exactly (135 comparisons, TITAN V as the target;
 * docs/validation.md "Seed 002's experiments"). The data set's README
 * suggests joining on FLOPs and BYTES as well; that leaves out the 12
 * 2080 Ti configurations of dot_product, histogram, reduce_sum and
 * strided_copy_8 whose static counts come from another version of the
 * authors' counting script (the launch and the kernel are the same), so
 * the seed's figures could not be compared on the same pairs. Each
 * signature carries, for every other GPU that measured the same
 * configuration, its mean as a reference time. A configuration listed
 * twice for one GPU is an error.
 *
 * Time: duration_ns = mean_ms × 10⁶, one launch (n = 1, the published
 * mean). It includes the GPU's launch overhead as CUDA events measure it
 * (the smallest configurations take 4–10 µs).
 *
 * The data set has no hardware counters; every metric is ANALYTIC, from
 * the authors' static counts (`FLOPs`: an FMA is 2 FLOP; `BYTES`: the
 * nominal traffic of the algorithm) and the launch columns:
 * - inst.fp32.fma = FLOPs / 2 for saxpy, dot_product, conv2d_3x3,
 *   conv2d_7x7, matmul_naive, matmul_tiled: their inner operation is a
 *   multiply-add (y = a·x + y, acc += A·B, the stencil and GEMM sums;
 *   gpu-perf/kernels/<kernel>.cuh of the repository);
 * - inst.fp32.add = FLOPs for vector_add, vector_add_divergent,
 *   reduce_sum: one FADD per counted FLOP (the divergent kernel's 128-step
 *   loop on even threads is not in the authors' count, nor here);
 * - inst.fp32 = fma + add; mul and every FP16/FP64 count 0: FP32 only;
 * - warp_efficiency = 1: the counted instructions run on full warps;
 * - bytes.l1, bytes.l2 = BYTES: nominal traffic; no reuse in L1 is counted;
 * - bytes.dram = BYTES · (1 − h(W / C)): what DRAM moves in the steady
 *   state of repeated launches, h = gpuproj_l2_hit_share()
 *   (src/model-private.h) of the working set W = `working_set_bytes` in
 *   the GPU's L2 of C = limits.l2_mib bytes; bytes.dram_read/_write are
 *   not set;
 * - shared.wavefronts = 0: the static counts have no shared-memory traffic;
 * - inst.ldst = BYTES / 4: one 4-byte load or store per nominal word
 *   (every array is float or int);
 * - inst.warp = (inst.fp32 + inst.ldst) / 32: a LOWER bound (integer,
 *   address and control instructions are not counted);
 * - regs_per_thread = `regs` (ptxas);
 * - smem_static = `shmem`: the shared memory of one block (static or
 *   dynamic: the data set does not say which).
 * Other kernels are imported when their FLOPs are 0 (no FP instruction);
 * one with FLOPs > 0 that is not in the table is an error naming the row
 * (its FP operation is unknown). `working_set_bytes` is also kept in
 * extra_metrics; `std_ms` too, when present.
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
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "import-common.h"
#include "model-private.h"
#include "util.h"

enum col {
	C_KERNEL = 0,
	C_REGS,
	C_SHMEM,
	C_BLOCK,
	C_GRID,
	C_MEAN,
	C_N,
	C_ROWS,
	C_COLS,
	C_FLOPS,
	C_BYTES,
	C_WSET,
	C_DEVICE,
	C_ITERS, /* optional from here */
	C_STD,
	C_COUNT
};

static const char *const col_names[C_COUNT] = {
	[C_KERNEL] = "kernel", [C_REGS] = "regs", [C_SHMEM] = "shmem", [C_BLOCK] = "block",
	[C_GRID] = "grid_blocks", [C_MEAN] = "mean_ms", [C_N] = "N", [C_ROWS] = "rows",
	[C_COLS] = "cols", [C_FLOPS] = "FLOPs", [C_BYTES] = "BYTES",
	[C_WSET] = "working_set_bytes", [C_DEVICE] = "gpu_device_name", [C_ITERS] = "iters",
	[C_STD] = "std_ms",
};

/* The FP operation behind a kernel's FLOPs (file comment). */
enum fp_op { OP_FMA, OP_ADD };

static const struct {
	const char *kernel;
	enum fp_op op;
} fp_ops[] = {
	{ "saxpy", OP_FMA },        { "dot_product", OP_FMA },   { "conv2d_3x3", OP_FMA },
	{ "conv2d_7x7", OP_FMA },   { "matmul_naive", OP_FMA },  { "matmul_tiled", OP_FMA },
	{ "vector_add", OP_ADD },   { "vector_add_divergent", OP_ADD },
	{ "reduce_sum", OP_ADD },
};

struct s2_ctx {
	const struct gpuproj_targets *targets;
	struct import_gpus gpus; /* by_key: "kernel\037tag\037block" → kernel index */
	char *files;
	struct gpuproj_error *err;
};

struct s2_file {
	const char *path;
	struct import_csv csv;
	long idx[C_COUNT];
};

static const struct import_gpu_source gpu_source = {
	.lookup = { .what = "GPU", .where = "of the seed 002 data set",
		    .hint = "add its name to an entry's `match` list" },
	.labels = "devices", .where = "",
	.attrs = (const char *const[]){ "origin", "seed002", "metrics", "analytic", "citation",
					GPUPROJ_CITATION_SEED002, "license",
					"none stated (measured figures)", NULL },
};

/*
 * A non-negative number of column c; an empty field is 0 where `empty_zero`
 * (the 2080 Ti's rows/cols), else an error.
 */
static int
row_number(const struct s2_ctx *ctx, const struct s2_file *f, const struct import_csv_row *r,
	   enum col c, bool empty_zero, double *ret)
{
	const char *s;

	if (f->idx[c] < 0) {
		*ret = 0;
		return GPUPROJ_OK;
	}
	s = import_csv_field(r, (size_t)f->idx[c]);
	if (import_value_absent(s)) {
		if (empty_zero) {
			*ret = 0;
			return GPUPROJ_OK;
		}
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[c]), "column '%s' has no value",
				 col_names[c]);
	}
	if (!parse_double(s, ret) || !isfinite(*ret) || *ret < 0)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[c]),
				 "column '%s': '%s' is not a non-negative number", col_names[c], s);
	return GPUPROJ_OK;
}

/* As row_number(), a whole number at most `max` (counts, sizes). */
static int
row_count(const struct s2_ctx *ctx, const struct s2_file *f, const struct import_csv_row *r,
	  enum col c, bool empty_zero, double max, double *ret)
{
	int st = row_number(ctx, f, r, c, empty_zero, ret);

	if (st)
		return st;
	if (*ret != floor(*ret) || *ret > max)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[c]),
				 "column '%s': '%s' is not a whole number in [0, %.0f]",
				 col_names[c],
				 import_csv_field(r, (size_t)f->idx[c]), max);
	return GPUPROJ_OK;
}

/* The analytic metrics of one row (file comment). */
static void
put_metrics(struct gpuproj_kernel *k, enum fp_op op, double flops, double bytes, double dram)
{
	static const enum gpuproj_metric zero[] = {
		GPUPROJ_M_INST_FP32_MUL, GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD,
		GPUPROJ_M_INST_FP16_MUL, GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD,
		GPUPROJ_M_INST_FP64_MUL, GPUPROJ_M_INST_FP16, GPUPROJ_M_INST_FP64,
		GPUPROJ_M_SHARED_WAVEFRONTS,
	};
	double fma = op == OP_FMA ? flops / 2.0 : 0, add = op == OP_ADD ? flops : 0;
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(zero); i++)
		import_put(k, zero[i], 0);
	import_put(k, GPUPROJ_M_INST_FP32_FMA, fma);
	import_put(k, GPUPROJ_M_INST_FP32_ADD, add);
	import_put(k, GPUPROJ_M_INST_FP32, fma + add);
	import_put(k, GPUPROJ_M_WARP_EFFICIENCY, 1.0);
	import_put(k, GPUPROJ_M_BYTES_L1, bytes);
	import_put(k, GPUPROJ_M_BYTES_L2, bytes);
	import_put(k, GPUPROJ_M_BYTES_DRAM, dram);
	import_put(k, GPUPROJ_M_INST_LDST, bytes / 4.0);
	import_put(k, GPUPROJ_M_INST_WARP, (fma + add + bytes / 4.0) / 32.0);
}

static int
import_row(struct s2_ctx *ctx, const struct s2_file *f, const struct import_csv_row *r)
{
	const char *kernel, *device;
	double v[C_COUNT] = { 0 };
	enum fp_op op = OP_FMA;
	bool known = false;
	char tag[160], key[256];
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *k;
	struct import_gpu *g = NULL;
	size_t i, before, existing;
	double l2, dram;
	int st;

	if (r->n != f->csv.rows[0].n)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, r->line, 0,
				 "the row has %zu fields, the header %zu", r->n, f->csv.rows[0].n);
	kernel = import_csv_field(r, (size_t)f->idx[C_KERNEL]);
	device = import_csv_field(r, (size_t)f->idx[C_DEVICE]);
	if (import_value_absent(kernel))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_KERNEL]),
				 "column 'kernel' is empty");
	if (import_value_absent(device))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_DEVICE]),
				 "column 'gpu_device_name' is empty");
	if ((st = row_count(ctx, f, r, C_REGS, false, 255, &v[C_REGS])) ||
	    (st = row_count(ctx, f, r, C_SHMEM, false, 4294967295.0, &v[C_SHMEM])) ||
	    (st = row_count(ctx, f, r, C_BLOCK, false, 4294967295.0, &v[C_BLOCK])) ||
	    (st = row_count(ctx, f, r, C_GRID, false, 4294967295.0, &v[C_GRID])) ||
	    (st = row_number(ctx, f, r, C_MEAN, false, &v[C_MEAN])) ||
	    (st = row_count(ctx, f, r, C_N, true, 1e15, &v[C_N])) ||
	    (st = row_count(ctx, f, r, C_ROWS, true, 1e15, &v[C_ROWS])) ||
	    (st = row_count(ctx, f, r, C_COLS, true, 1e15, &v[C_COLS])) ||
	    (st = row_count(ctx, f, r, C_ITERS, true, 1e15, &v[C_ITERS])) ||
	    (st = row_number(ctx, f, r, C_FLOPS, false, &v[C_FLOPS])) ||
	    (st = row_number(ctx, f, r, C_BYTES, false, &v[C_BYTES])) ||
	    (st = row_number(ctx, f, r, C_WSET, false, &v[C_WSET])))
		return st;
	if (f->idx[C_STD] >= 0 && (st = row_number(ctx, f, r, C_STD, true, &v[C_STD])))
		return st;
	if (!(v[C_BLOCK] >= 1) || !(v[C_GRID] >= 1))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[v[C_BLOCK] >= 1 ? C_GRID
										     : C_BLOCK]),
				 "column '%s': a launch needs at least one %s",
				 col_names[v[C_BLOCK] >= 1 ? C_GRID : C_BLOCK],
				 v[C_BLOCK] >= 1 ? "block" : "thread per block");
	if (!(v[C_MEAN] > 0) || v[C_MEAN] * 1e6 > IMPORT_MAX_DURATION_NS)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_MEAN]),
				 "column 'mean_ms': %s is not a time in (0, %.0f] milliseconds",
				 import_csv_field(r, (size_t)f->idx[C_MEAN]),
				 IMPORT_MAX_DURATION_NS / 1e6);
	for (i = 0; i < ARRAY_LENGTH(fp_ops); i++) {
		if (strcmp(fp_ops[i].kernel, kernel) == 0) {
			op = fp_ops[i].op;
			known = true;
		}
	}
	if (!known && v[C_FLOPS] > 0)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_FLOPS]),
				 "kernel '%s' has %s FLOPs but is not one whose FP operation this "
				 "importer knows (saxpy, dot_product, conv2d_3x3, conv2d_7x7, "
				 "matmul_naive, matmul_tiled: multiply-add; vector_add, "
				 "vector_add_divergent, reduce_sum: add)",
				 kernel, import_csv_field(r, (size_t)f->idx[C_FLOPS]));
	st = import_gpus_find_or_add(&ctx->gpus, ctx->targets, &gpu_source, device, ctx->files,
				     f->path, r->line,
				     import_csv_column(r, (size_t)f->idx[C_DEVICE]), &g, ctx->err);
	if (st)
		return st;

	snprintf(tag, sizeof(tag), "N=%.0f,rows=%.0f,cols=%.0f,iters=%.0f", v[C_N], v[C_ROWS],
		 v[C_COLS], v[C_ITERS]);
	snprintf(key, sizeof(key), "%s\037%s\037%.0f", kernel, tag, v[C_BLOCK]);
	if (import_strmap_get(&g->by_key, key, &existing))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line, 0,
				 "configuration %s %s, block %.0f, is listed twice for '%s'",
				 kernel, tag, v[C_BLOCK], device);
	sig.name = kernel;
	sig.tag = tag;
	sig.grid = (struct gpuproj_dim3){ (uint32_t)v[C_GRID], 1, 1 };
	sig.block = (struct gpuproj_dim3){ (uint32_t)v[C_BLOCK], 1, 1 };
	before = gpuproj_profile_count(g->profile);
	if (gpuproj_profile_kernel(g->profile, &sig, &k))
		goto nomem;
	k->regs_per_thread = (uint32_t)v[C_REGS];
	k->smem_static = (uint32_t)v[C_SHMEM];
	l2 = g->target->limits.l2_mib * 1048576.0;
	dram = v[C_BYTES] * (1.0 - gpuproj_l2_hit_share(v[C_WSET], l2));
	put_metrics(k, op, v[C_FLOPS], v[C_BYTES], dram);
	gpuproj_kernel_add_duration(k, v[C_MEAN] * 1e6);
	k->profiled++;
	if (gpuproj_kernel_add_extra(k, "working_set_bytes", "byte", v[C_WSET]))
		goto nomem;
	if (f->idx[C_STD] >= 0 &&
	    gpuproj_kernel_add_extra(k, "std_ms", "msecond", v[C_STD]))
		goto nomem;
	if (gpuproj_profile_count(g->profile) != before &&
	    import_strmap_put(&g->by_key, key, before))
		goto nomem;
	return GPUPROJ_OK;
nomem:
	return error_set(ctx->err, GPUPROJ_E_NOMEM, f->path, r->line, 0, "out of memory");
}

static int
read_file(struct s2_ctx *ctx, struct s2_file *f)
{
	const struct import_csv_row *h;
	int c, st;

	st = import_csv_read_file(f->path, NULL, &f->csv, ctx->err);
	if (st)
		return st;
	if (f->csv.n_rows == 0)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, 0, 0,
				 "empty file: expected a seed 002 CSV header "
				 "(kernel,regs,shmem,...)");
	h = &f->csv.rows[0];
	for (c = 0; c < C_COUNT; c++)
		f->idx[c] = import_csv_find(h, col_names[c]);
	if (f->idx[C_KERNEL] < 0 || f->idx[C_MEAN] < 0 || f->idx[C_DEVICE] < 0)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, h->line, 0,
				 "not a seed 002 CSV: the header has no 'kernel', 'mean_ms' and "
				 "'gpu_device_name' columns");
	for (c = 0; c < C_ITERS; c++) {
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

/* Reference times: the same kernel, sizes and block (the file comment's key). */
static const struct gpuproj_kernel *
counterpart(const struct import_gpu *other, const struct gpuproj_kernel *k, void *userdata)
{
	char key[256];
	size_t j;

	(void)userdata;
	snprintf(key, sizeof(key), "%s\037%s\037%u", k->name, k->tag ? k->tag : "", k->block.x);
	return import_strmap_get(&other->by_key, key, &j) ? gpuproj_profile_at(other->profile, j)
							    : NULL;
}

static int
push_path(char ***list, size_t *n, char *path, struct gpuproj_error *err)
{
	char **nl;

	if (!path)
		return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	nl = realloc(*list, (*n + 1) * sizeof(*nl));
	if (!nl) {
		free(path);
		return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	*list = nl;
	(*list)[(*n)++] = path;
	return GPUPROJ_OK;
}

/* A path as given, or a directory's *.csv files in name order. */
static int
expand_path(const char *path, char ***list, size_t *n, struct gpuproj_error *err)
{
	struct dirent **ents = NULL;
	struct stat st;
	int k, m, r = GPUPROJ_OK;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return push_path(list, n, strdup(path), err);
	m = scandir(path, &ents, NULL, alphasort);
	if (m < 0)
		return error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot read the directory");
	for (k = 0; k < m; k++) {
		size_t len = strlen(ents[k]->d_name);

		if (r == GPUPROJ_OK && ents[k]->d_name[0] != '.' && len > 4 &&
		    strcmp(ents[k]->d_name + len - 4, ".csv") == 0)
			r = push_path(list, n, xasprintf("%s/%s", path, ents[k]->d_name), err);
		free(ents[k]);
	}
	free(ents);
	return r;
}

int
gpuproj_import_seed002(const char *const *paths, size_t n_paths,
		       const struct gpuproj_targets *targets,
		       struct gpuproj_profile ***ret_profiles, size_t *ret_n,
		       struct gpuproj_error *reterr)
{
	struct s2_ctx ctx = { 0 };
	struct gpuproj_profile **out = NULL;
	char **list = NULL;
	size_t n_list = 0, i, j;
	int st = GPUPROJ_OK;

	if (!paths || n_paths == 0 || !targets || !ret_profiles || !ret_n)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "seed 002 import: no files or no targets given");
	ctx.targets = targets;
	ctx.err = reterr;
	for (i = 0; i < n_paths && st == GPUPROJ_OK; i++)
		st = expand_path(paths[i], &list, &n_list, reterr);
	if (st)
		goto out;
	if (n_list == 0) {
		st = error_set(reterr, GPUPROJ_E_NOTFOUND, paths[0], 0, 0, "no *.csv file found");
		goto out;
	}
	ctx.files = import_join_paths((const char *const *)list, n_list);
	if (!ctx.files) {
		st = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n_list && st == GPUPROJ_OK; i++) {
		struct s2_file f;

		memset(&f, 0, sizeof(f));
		f.path = list[i];
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
out:
	import_gpus_clear(&ctx.gpus);
	free(ctx.files);
	for (i = 0; i < n_list; i++)
		free(list[i]);
	free(list);
	return st;
}
