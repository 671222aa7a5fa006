/* SPDX-License-Identifier: MIT */
/*
 * Importer of the gpuperfpredict data set (include/gpuproj/import.h):
 * Amaris, Camargo, Cordeiro, Goldman, Trystram, "A comparison of GPU
 * execution time prediction using machine learning and analytical
 * modeling" (NCA 2016); data set marcosamaris/gpuperfpredict, CC BY 4.0.
 * Every profile made here carries that citation in its "citation"
 * attribute; anything that reports results on it must repeat it.
 *
 * Input: CSV files with one row per (GPU, kernel, input size, launch
 * configuration); numeric columns are means over the `launches` launches of
 * that configuration, measured with nvprof. Column names are nvprof's
 * metric *display* names, mangled by R ("Floating Point Operation(Single
 * Precision Mul)" → `floating_point_operation.single_precision_mul.`, the
 * missing "s" is nvprof's own spelling). Units (data-set README): duration
 * s, *_transactions 32-byte transactions, *_throughput GB/s (10^9 B/s),
 * achieved_occupancy 0..1, FLOP columns operation counts.
 *
 * Output: one profile per GPU label, in order of first appearance. Each row
 * becomes one kernel signature: name = `kernel`, tag = "input=<input.size.1>x
 * <input.size.2>" (so configurations with equal launch geometry but different
 * input sizes stay apart), grid = (grid.x, grid.y, 1), block = (block.x,
 * block.y, 1), dynamic shared memory 0, device 0; regs_per_thread =
 * `registers.per.thread`, smem_static = `static.smem` in bytes. Caveat: that
 * column is in bytes for seven GPUs but in KiB for GTX-980 and Tesla-P100
 * (heartwall 11872 vs 11.59375, hotspot 3072 vs 3): a GPU's column is read
 * as KiB when one of its values is fractional or equals another GPU's value
 * for the same kernel divided by 1024 (detect_smem_units()). Two rows with
 * the same signature (the same file given twice) are merged launch-weighted.
 *
 * ## Mapping (docs/cli/gpuproj-import.md "gpuproj import gpuperfpredict" points here)
 *
 * It is implemented once, for both nvprof importers, by nvp_inputs[] and
 * nvp_logical_metrics() (import-nvprof.h): this file finds each metric's
 * column by its gpuperfpredict name there, the nvprof importer by its
 * nvprof name. Beyond the data set's columns, the shared mapping also reads
 * dram_write_transactions, warp_execution_efficiency, flop_count_hp_* and
 * inst_fp_16 where an nvprof export has them (see import-nvprof.c).
 *
 * nvprof definitions are quoted from the nvprof metrics reference (CUDA
 * Profiler User's Guide, "Metrics Reference"). "thread-level" = counted per
 * non-predicated thread; "warp-level" = counted once per warp instruction.
 * The per-launch value of every metric is the row's mean; it is recorded as
 * measured on all `launches` launches (metric_n = profiled = launches).
 *
 * t_prof: nvprof computes each *_throughput as bytes / the kernel time of
 * its own replay pass, not the published `duration` (a separate trace run).
 * Bytes from a throughput are therefore throughput × t_prof, where
 * t_prof = 32 × l2_read_transactions / (l2_throughput_.reads. × 1e9) is the
 * time recovered from the row's own L2 read count and rate (the published
 * duration when the row has no L2 reads). Checked on the whole data set:
 * with t_prof, dram_read_throughput and l2_write_throughput reproduce their
 * transaction counts to 0.1 % for every kernel under 1 ms (within 5 % above,
 * where means over 20–100 launches are averaged); with `duration` they come
 * out 5–10 % low, and 33 % low (median) for kernels under 10 µs.
 *
 * | logical metric | from column(s) | nvprof metric and definition | caveats |
 * |---|---|---|---|
 * | duration (ns) | duration × 1e9 | kernel time, s (mean over `launches`) | the row gives only the mean: duration_ns has n = launches, mean = min = max = that mean, m2 = 0 (the spread is not published); 1 µs resolution, so times of a few µs are dominated by launch overhead and quantisation |
 * | launches | launches | number of launches averaged | also `profiled` (nvprof measured every launch) |
 * | inst.fp32.fma | floating_point_operations.single_precision_fma. | flop_count_sp_fma: "Number of single-precision floating-point multiply-accumulate operations executed by non-predicated threads. Each multiply-accumulate operation contributes 1 to the count" | = thread-level FFMA instructions |
 * | inst.fp32.add | floating_point_operations.single_precision_add. | flop_count_sp_add: "Number of single-precision floating-point add operations executed by non-predicated threads" | |
 * | inst.fp32.mul | floating_point_operation.single_precision_mul. (sic: nvprof's display name "Floating Point Operation(Single Precision Mul)") | flop_count_sp_mul: "Number of single-precision floating-point multiply operations executed by non-predicated threads" | |
 * | inst.fp64.add, inst.fp64.mul | floating_point_operations.double_precision_add., _mul. | flop_count_dp_add, flop_count_dp_mul, the same in double precision | |
 * | inst.fp64.fma | (floating_point_operations.double_precision. − _add. − _mul.) / 2 | flop_count_dp: "Number of double-precision floating-point operations executed by non-predicated threads (add, multiply, and multiply-accumulate). Each multiply-accumulate operation contributes 2 to the count" | derived: the data set has no flop_count_dp_fma column; exact by nvprof's definition (the same identity holds to the unit in the single-precision columns); a result below −1 (inconsistent counters) gives no value, −1..0 gives 0. A floating_point_operations.double_precision_fma. column is used directly when present |
 * | inst.fp16.* | — | — | not in the data set (Kepler and Maxwell have no FP16 arithmetic; flop_count_hp_* was not collected on the P100): never set |
 * | inst.fp32 | fp_instructions.single. | inst_fp_32: "Number of single-precision floating-point instructions executed by non-predicated threads (arithmetic, compare, etc.)" | |
 * | inst.fp64 | fp_instructions.double. | inst_fp_64: the same in double precision | |
 * | inst.int | integer_instructions | inst_integer: "Number of integer instructions executed by non-predicated threads" | |
 * | inst.ldst | load.store_instructions | inst_compute_ld_st: "Number of compute load/store instructions executed by non-predicated threads" | |
 * | inst.other | control.flow_instructions + misc_instructions | inst_control: "Number of control-flow instructions executed by non-predicated threads (jump, branch, etc.)" + inst_misc: "Number of miscellaneous instructions executed by non-predicated threads" | inst_bit_convert and inst_inter_thread_communication are not in the data set |
 * | inst.warp | inst_executed | inst_executed: "The number of instructions executed" (warp-level) | |
 * | inst.thread | Σ of the six thread-level classes above (fp32, fp64, int, ldst, control, misc) | — | derived lower bound: bit-convert and inter-thread-communication instructions are missing from the data set, and predicated-off threads are not counted |
 * | warp_efficiency | inst.thread / (warp_size × inst_executed) | stands in for warp_execution_efficiency ("Ratio of the average active threads per warp to the maximum number of threads per warp supported on a multiprocessor"), which the data set lacks | derived and approximate, a lower bound of the hroof input (eq. 3): missing instruction classes, and non-predicated rather than active threads (closer to warp_nonpred_execution_efficiency). On the data set: 0.58–0.86. No value when inst_executed is 0 or absent, when a class is absent, or when the ratio exceeds 1 (inconsistent counters) |
 * | bytes.l1 | (global_load_throughput + global_store_throughput) × 1e9 × t_prof | gld_throughput / gst_throughput: "Global memory load/store throughput" (bytes moved at the L1 level) | the transaction counts cannot be used: global_load_transactions are not 32-byte units before Pascal (the data give ≈ 60 B per gld transaction on Kepler, ≈ 15 B on Maxwell, 32 B on the P100). Kepler (CC 3.x) and Maxwell (CC 5.2) do not cache global loads in L1 by default (L2 only; L1 holds local memory, LDG/texture is a separate path) and the data agree: bytes.l1 ≈ 0.9–1.0 × bytes.l2, no L1 hits. The P100 (GP100) caches global loads in L1 by default: bytes.l1 = 1.3–19 × bytes.l2. Local-memory traffic is not included |
 * | bytes.l2 | 32 × (l2_read_transactions + l2_write_transactions) | l2_read_transactions / l2_write_transactions: "Memory read/write transactions seen at L2 cache for all read/write requests" | 32-B transactions |
 * | bytes.dram_read | 32 × device_memory_read_transactions | dram_read_transactions: "Device memory read transactions" | 32-B. In ~2 % of the rows (hotspot and backprop inputs that stay in L2, averaged over many launches) the mean throughput implies far more than the mean count: the count, the direct event, is used |
 * | bytes.dram_write | device_memory_write_throughput × 1e9 × t_prof | dram_write_throughput: "Device memory write throughput" | derived: the data set has no dram_write_transactions column |
 * | bytes.dram | bytes.dram_read + bytes.dram_write | | |
 * | shared.wavefronts | (shared_load_transactions + shared_store_transactions) × w / 128 B; w = 256 B on CC 3.x, 128 B on CC ≥ 5.0 | shared_load_transactions / shared_store_transactions: "Number of shared memory load/store transactions" | counted in the 128-B units of hroof eq. 5 (N_shM = wavefronts × 128 B): a Kepler transaction is one cycle of its 32 banks × 8 B = 256 B/clk pipe (CUDA C++ Programming Guide, CC 3.x shared memory), i.e. two units; a Maxwell/Pascal transaction one cycle of the 128 B/clk pipe, one unit. With targets.yaml's shared bandwidth (256 B/clk/SM on Kepler, 128 later) each transaction then costs one SM clock. The data agree: shared throughput × t_prof / transactions ≈ 240 B on Kepler, ≈ 120 B on Maxwell and Pascal. The CC is the `arch` of the GPU's targets.yaml entry |
 * | shared.bytes | (shared_memory_load_throughput + shared_memory_store_throughput) × 1e9 × t_prof | shared_load_throughput / shared_store_throughput: "Shared memory load/store throughput" | nvprof counts whole transactions (up to 256 B on Kepler), not the bytes threads asked for |
 * | shared.bank_conflicts | max(shared_load_transactions − shared_load, 0) + max(shared_store_transactions − shared_store, 0) | shared_load / shared_store events: shared load/store instructions executed, per warp | derived: transactions beyond one per instruction; also counts the extra transactions 64/128-bit accesses need without any conflict, so an upper bound |
 * | sectors.l1 | bytes.l1 / 32 | | derived 32-byte equivalents (see bytes.l1 for why the gld/gst transaction counts are not used) |
 * | sectors.l2 | l2_read_transactions + l2_write_transactions | | 32-B transactions |
 * | sectors.dram | device_memory_read_transactions + bytes.dram_write / 32 | | the write part is derived |
 * | occupancy.achieved | achieved_occupancy | achieved_occupancy: "Ratio of the average active warps per active cycle to the maximum number of warps supported on a multiprocessor" | |
 * | cycles.sm_active | active_cycles / SMs | active_cycles event: "Number of cycles a multiprocessor has at least one active warp", summed over the SMs | SMs from targets.yaml |
 * | clock.sm | — | — | not set: elapsed_cycles_sm / (SMs × time) is not a usable clock here, because the event, the throughputs and `duration` come from different runs (e.g. Tesla-K20 heartwall gives 627 MHz with t_prof, Tesla-K40 hotspot 64x256 1.29 GHz with `duration`, against fixed clocks of 706 and 745 MHz); elapsed_cycles_sm stays in extra_metrics |
 *
 * Every other numeric column (and the raw ones used above) is kept in the
 * kernel's extra_metrics under its data-set column name, unit "GB/s" for
 * throughputs, "%" for efficiencies, "" otherwise. Absent values ("" or "NA"
 * or "n/a") leave a metric unset; a value that is not a finite number, or a
 * negative count, is an error.
 *
 * Each profile: device name = the data-set label ("Tesla-K40"), device
 * target = the targets.yaml entry matched by gpuproj_targets_match() (its
 * chip, compute capability, SMs and clock are copied), attributes
 * origin = "gpuperfpredict", citation (above), license = "CC BY 4.0",
 * import.files = the CSV paths joined by ", ". Every signature carries,
 * for each other GPU that measured the same configuration, a reference
 * (targets.yaml name, mean ns, launches). Two labels that match the same
 * targets.yaml entry would share one reference slot (the later wins).
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "import-common.h"
#include "import-nvprof.h"
#include "util.h"

#define GPP_CITATION GPUPROJ_CITATION_GPUPERFPREDICT

/*
 * Columns the importer reads by name: the signature and timing columns
 * (all required); the metric columns are nvprof's, found through the
 * mapping both nvprof importers share (import-nvprof.h: nvp_inputs[].
 * gpp_column).
 */
enum col {
	C_GPU = 0,
	C_KERNEL,
	C_LAUNCHES,
	C_IN1,
	C_IN2,
	C_GX,
	C_GY,
	C_BX,
	C_BY,
	C_REGS,
	C_SMEM,
	C_DURATION,
	C_COUNT
};

static const char *const col_names[C_COUNT] = {
	[C_GPU] = "gpu",
	[C_KERNEL] = "kernel",
	[C_LAUNCHES] = "launches",
	[C_IN1] = "input.size.1",
	[C_IN2] = "input.size.2",
	[C_GX] = "grid.x",
	[C_GY] = "grid.y",
	[C_BX] = "block.x",
	[C_BY] = "block.y",
	[C_REGS] = "registers.per.thread",
	[C_SMEM] = "static.smem",
	[C_DURATION] = "duration",
};

struct gpp_ctx {
	const struct gpuproj_targets *targets;
	struct import_gpus gpus;
	char *files;            /* "a.csv, b.csv" */
	char **smem_kib;        /* labels whose static.smem column is in KiB */
	size_t n_smem_kib;
	struct gpuproj_error *err;
};

/* One file read: its rows and header positions. */
struct gpp_file {
	const char *path;
	struct import_csv csv;
	long idx[C_COUNT];      /* field index of each signature column, -1 if absent */
	long nvp_idx[NVP_COUNT]; /* field index of each nvprof metric column, -1 if absent */
	bool *is_sig;           /* per header field: a required (signature/timing) column */
	size_t n_header;
	const struct import_csv_row *header;
};

/* Column name i (import_csv_read_file() already dropped a UTF-8 byte-order mark). */
static const char *
header_name(const struct gpp_file *f, size_t i)
{
	return import_csv_field(f->header, i);
}

static bool
value_absent(const char *s)
{
	const char *p = s;
	size_t l;

	if (import_value_absent(s))
		return true;
	while (*p == ' ' || *p == '\t')
		p++;
	l = strlen(p);
	while (l > 0 && (p[l - 1] == ' ' || p[l - 1] == '\t'))
		l--;
	return l == 2 && strncmp(p, "NA", 2) == 0; /* R's missing value */
}

/* Unit of a column kept in extra_metrics. */
static const char *
extra_unit(const char *col)
{
	if (strstr(col, "throughput"))
		return "GB/s";
	if (strstr(col, "efficiency"))
		return "%";
	return "";
}

/*
 * Parse field `c` of a row into *ret. Returns GPUPROJ_OK, or
 * GPUPROJ_E_SCHEMA when the field is required and absent, or present and not
 * a finite number. Absent optional fields give NaN.
 */
static int
row_number(const struct gpp_ctx *ctx, const struct gpp_file *f, const struct import_csv_row *r,
	   enum col c, double *ret)
{
	const char *s;

	*ret = NAN;
	if (f->idx[c] < 0)
		return GPUPROJ_OK;
	s = import_csv_field(r, (size_t)f->idx[c]);
	if (value_absent(s))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[c]),
				 "column '%s' has no value", col_names[c]);
	if (!parse_double(s, ret))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[c]),
				 "column '%s': '%s' is not a number", col_names[c], s);
	return GPUPROJ_OK;
}

/* A launch dimension or count: a positive integer that fits in uint32. */
static int
row_dim(const struct gpp_ctx *ctx, const struct gpp_file *f, const struct import_csv_row *r,
	enum col c, bool allow_zero, uint32_t *ret)
{
	double v;
	int st = row_number(ctx, f, r, c, &v);

	if (st)
		return st;
	if (!(v == floor(v)) || v < (allow_zero ? 0 : 1) || v > 4294967295.0)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[c]),
				 "column '%s': '%s' is not a%s integer", col_names[c],
				 import_csv_field(r, (size_t)f->idx[c]),
				 allow_zero ? " non-negative" : " positive");
	*ret = (uint32_t)v;
	return GPUPROJ_OK;
}

/* "8192" for integral values, else the shortest %g form. */
static void
format_size(double v, char *buf, size_t size)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.17g", v);
}

static const struct import_gpu_source gpu_source = {
	.lookup = { .what = "GPU", .where = "of the data set",
		    .hint = "add its label to an entry's `match` list" },
	.labels = "GPU labels", .where = " of the data set",
	.attrs = (const char *const[]){ "origin", "gpuperfpredict", "citation", GPP_CITATION,
					"license", "CC BY 4.0", NULL },
};

/* Add `value` per launch over `launches` launches to an extra metric. */
static int
add_extra(struct gpuproj_kernel *k, const char *name, double value, uint64_t launches)
{
	size_t i;
	int st = gpuproj_kernel_add_extra(k, name, extra_unit(name), value * (double)launches);

	if (st)
		return st;
	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, name) == 0) {
			k->extra[i].n += launches - 1; /* add_extra counted one */
			break;
		}
	}
	return GPUPROJ_OK;
}

/* static.smem in bytes, honouring the label's unit (detect_smem_units()). */
static int
row_smem(const struct gpp_ctx *ctx, const struct gpp_file *f, const struct import_csv_row *r,
	 const char *label, double v, uint32_t *ret)
{
	bool kib = false;
	size_t i;

	for (i = 0; i < ctx->n_smem_kib; i++)
		kib = kib || strcmp(ctx->smem_kib[i], label) == 0;
	if (kib)
		v *= 1024.0;
	if (!(v == floor(v)) || v < 0 || v > 4294967295.0)
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_SMEM]),
				 "column 'static.smem': '%s' is not a whole number of %s",
				 import_csv_field(r, (size_t)f->idx[C_SMEM]),
				 kib ? "KiB/1024" : "bytes");
	*ret = (uint32_t)v;
	return GPUPROJ_OK;
}

/*
 * The nvprof metric columns of a row (NaN where absent): finite numbers,
 * not negative (every one is a count, a throughput or a ratio).
 */
static int
row_nvprof(const struct gpp_ctx *ctx, const struct gpp_file *f, const struct import_csv_row *r,
	   double v[NVP_COUNT])
{
	int i;

	for (i = 0; i < NVP_COUNT; i++) {
		const char *cell;

		v[i] = NAN;
		if (f->nvp_idx[i] < 0)
			continue;
		cell = import_csv_field(r, (size_t)f->nvp_idx[i]);
		if (value_absent(cell))
			continue;
		if (!parse_double(cell, &v[i]))
			return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
					 import_csv_column(r, (size_t)f->nvp_idx[i]),
					 "column '%s': '%s' is not a number",
					 nvp_inputs[i].gpp_column, cell);
		if (v[i] < 0)
			return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
					 import_csv_column(r, (size_t)f->nvp_idx[i]),
					 "column '%s': negative value %s", nvp_inputs[i].gpp_column,
					 cell);
	}
	return GPUPROJ_OK;
}

/* The column a logical metric comes from, for messages (-1: derived from several). */
static long
metric_column(const struct gpp_file *f, enum gpuproj_metric m)
{
	if (m == GPUPROJ_M_OCCUPANCY_ACHIEVED)
		return f->nvp_idx[NVP_OCC];
	return -1;
}

static int
import_row(struct gpp_ctx *ctx, const struct gpp_file *f, const struct import_csv_row *r)
{
	double v[C_COUNT], vn[NVP_COUNT], m[GPUPROJ_M_COUNT], launches_d, dur_s;
	const char *label, *kname;
	char s1[64], s2[64], tag[160];
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_stats st = { 0 };
	struct gpuproj_kernel *k;
	struct import_gpu *g = NULL;
	uint32_t regs = 0, smem = 0, launches32 = 0;
	uint64_t launches;
	size_t i;
	int c, s;

	if (r->n != f->n_header)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, r->line, 0,
				 "the row has %zu fields, the header %zu", r->n, f->n_header);
	label = import_csv_field(r, (size_t)f->idx[C_GPU]);
	kname = import_csv_field(r, (size_t)f->idx[C_KERNEL]);
	if (value_absent(label))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_GPU]),
				 "column 'gpu' is empty");
	if (value_absent(kname))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_KERNEL]),
				 "column 'kernel' is empty");

	/* Every known numeric column, then the signature. */
	for (c = C_LAUNCHES; c < C_COUNT; c++) {
		s = row_number(ctx, f, r, (enum col)c, &v[c]);
		if (s)
			return s;
	}
	if ((s = row_nvprof(ctx, f, r, vn)))
		return s;
	if ((s = row_dim(ctx, f, r, C_LAUNCHES, false, &launches32)) ||
	    (s = row_dim(ctx, f, r, C_GX, false, &sig.grid.x)) ||
	    (s = row_dim(ctx, f, r, C_GY, false, &sig.grid.y)) ||
	    (s = row_dim(ctx, f, r, C_BX, false, &sig.block.x)) ||
	    (s = row_dim(ctx, f, r, C_BY, false, &sig.block.y)) ||
	    (s = row_dim(ctx, f, r, C_REGS, true, &regs)))
		return s;
	s = row_smem(ctx, f, r, label, v[C_SMEM], &smem);
	if (s)
		return s;
	launches = launches32;
	launches_d = (double)launches;
	dur_s = v[C_DURATION];
	if (!(dur_s > 0 && dur_s * 1e9 <= IMPORT_MAX_DURATION_NS))
		return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
				 import_csv_column(r, (size_t)f->idx[C_DURATION]),
				 "column 'duration': %s is not a kernel duration in seconds (> 0 "
				 "and at most %.3g)", import_csv_field(r, (size_t)f->idx[C_DURATION]),
				 IMPORT_MAX_DURATION_NS / 1e9);
	sig.grid.z = sig.block.z = 1;

	s = import_gpus_find_or_add(&ctx->gpus, ctx->targets, &gpu_source, label, ctx->files,
				    f->path, r->line, import_csv_column(r, (size_t)f->idx[C_GPU]),
				    &g, ctx->err);
	if (s)
		return s;
	format_size(v[C_IN1], s1, sizeof(s1));
	format_size(v[C_IN2], s2, sizeof(s2));
	snprintf(tag, sizeof(tag), "input=%sx%s", s1, s2);
	sig.name = kname;
	sig.tag = tag;
	sig.smem_dynamic = 0;
	sig.device = 0;
	if (gpuproj_profile_kernel(g->profile, &sig, &k))
		goto nomem;
	if (k->launches == 0) {
		k->regs_per_thread = regs;
		k->smem_static = smem;
	}

	/* Durations: only the mean is published (n = launches, min = max = mean). */
	st.n = launches;
	st.mean = st.min = st.max = dur_s * 1e9;
	st.sum = st.mean * launches_d;
	st.m2 = 0;
	gpuproj_stats_merge(&k->duration_ns, &st);
	k->launches += launches;
	k->profiled += launches;

	/* Every counter column as published, under its own name; checked
	 * before the logical metrics derived from them, so a column that is
	 * out of bounds is named as such. */
	for (i = 0; i < f->n_header; i++) {
		const char *cell = import_csv_field(r, i);
		double x;

		if (f->is_sig[i] || value_absent(cell))
			continue;
		if (!parse_double(cell, &x))
			return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
					 import_csv_column(r, i),
					 "column '%s': '%s' is not a number", header_name(f, i),
					 cell);
		if (fabs(x) > GPUPROJ_MAX_EXTRA)
			return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
					 import_csv_column(r, i), "column '%s': %s is beyond ±%g",
					 header_name(f, i), cell, GPUPROJ_MAX_EXTRA);
		if (add_extra(k, header_name(f, i), x, launches))
			goto nomem;
	}

	{
		struct nvp_gpu gpu = { g->target->warp_size, g->target->cc_major, g->target->sms };

		nvp_logical_metrics(vn, &gpu, dur_s, m);
	}
	for (i = 0; i < GPUPROJ_M_COUNT; i++) {
		if (!isfinite(m[i]))
			continue;
		/* Documented ranges (achieved_occupancy 0..1, …): refused with the position. */
		if (import_metric_check((enum gpuproj_metric)i, &m[i]) != IMPORT_RANGE_OK) {
			long col = metric_column(f, (enum gpuproj_metric)i);

			return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
					 col >= 0 ? import_csv_column(r, (size_t)col) : 0,
					 "%s = %.17g is outside its range%s%s%s",
					 gpuproj_metric_name((enum gpuproj_metric)i), m[i],
					 col >= 0 ? " (column '" : "",
					 col >= 0 ? import_csv_field(f->header, (size_t)col) : "",
					 col >= 0 ? "')" : "");
		}
		/* metric_n is 32 bits: more launches would wrap it and change the mean. */
		if (k->metric_n[i] > UINT32_MAX - launches32)
			return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line,
					 import_csv_column(r, (size_t)f->idx[C_LAUNCHES]),
					 "more than 4294967295 launches of one signature");
		k->metric_sum[i] += m[i] * launches_d;
		k->metric_n[i] += launches32;
		if (!isfinite(k->metric_sum[i]))
			return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, r->line, 0,
					 "%s: the sum over the launches is not finite",
					 gpuproj_metric_name((enum gpuproj_metric)i));
	}
	return GPUPROJ_OK;
nomem:
	return error_set(ctx->err, GPUPROJ_E_NOMEM, f->path, r->line, 0, "out of memory");
}

/* Read one file and locate its columns. */
static int
read_file(struct gpp_ctx *ctx, struct gpp_file *f)
{
	size_t i;
	int c, st;

	st = import_csv_read_file(f->path, NULL, &f->csv, ctx->err);
	if (st)
		return st;
	if (f->csv.n_rows == 0)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, 0, 0,
				 "empty file: expected a gpuperfpredict CSV header "
				 "(gpu,kernel,...)");
	f->header = &f->csv.rows[0];
	f->n_header = f->header->n;
	{
		size_t a = 0, b = 0;

		/* The data set never repeats a column: a second one would be ignored. */
		if (import_csv_next_duplicate(f->header, &a, &b))
			return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, f->header->line,
					 import_csv_column(f->header, b - 1),
					 "column '%s' appears twice (fields %zu and %zu)",
					 header_name(f, b - 1), a + 1, b);
	}
	for (c = 0; c < C_COUNT; c++) {
		f->idx[c] = -1;
		for (i = 0; i < f->n_header; i++) {
			if (strcmp(header_name(f, i), col_names[c]) == 0) {
				f->idx[c] = (long)i;
				break;
			}
		}
	}
	for (c = 0; c < NVP_COUNT; c++) {
		f->nvp_idx[c] = -1;
		for (i = 0; nvp_inputs[c].gpp_column && i < f->n_header; i++) {
			if (strcmp(header_name(f, i), nvp_inputs[c].gpp_column) == 0) {
				f->nvp_idx[c] = (long)i;
				break;
			}
		}
	}
	if (f->idx[C_GPU] < 0 || f->idx[C_KERNEL] < 0)
		return error_set(ctx->err, GPUPROJ_E_PARSE, f->path, f->header->line, 0,
				 "not a gpuperfpredict CSV: the header has no 'gpu' and 'kernel' "
				 "columns");
	for (c = 0; c < C_COUNT; c++) {
		if (f->idx[c] < 0)
			return error_set(ctx->err, GPUPROJ_E_SCHEMA, f->path, f->header->line, 0,
					 "required column '%s' is missing from the header",
					 col_names[c]);
	}
	f->is_sig = calloc(f->n_header ? f->n_header : 1, sizeof(*f->is_sig));
	if (!f->is_sig)
		return error_set(ctx->err, GPUPROJ_E_NOMEM, f->path, 0, 0, "out of memory");
	for (c = 0; c < C_COUNT; c++)
		f->is_sig[f->idx[c]] = true;
	return GPUPROJ_OK;
}

/*
 * The unit of `static.smem` differs between GPUs of the data set: bytes for
 * most, KiB for GTX-980 and Tesla-P100 (nvprof versions print "11.594KB"),
 * e.g. heartwall 11872 vs 11.59375, hotspot 3072 vs 3. A label's column is
 * taken as KiB when any of its values is fractional, or when one of its
 * values × 1024 equals another GPU's value for the same kernel name
 * (static shared memory is fixed by the kernel's source). Files read
 * together decide together.
 */
static int
detect_smem_units(struct gpp_ctx *ctx, struct gpp_file *files, size_t n_files)
{
	struct obs {
		const char *label, *kernel;
		double v;
	} *o = NULL;
	size_t n = 0, cap = 0, a, b, fi, i;
	int st = GPUPROJ_OK;

	for (fi = 0; fi < n_files; fi++) {
		const struct gpp_file *f = &files[fi];

		for (i = 1; i < f->csv.n_rows; i++) {
			const struct import_csv_row *r = &f->csv.rows[i];
			double v;

			if (!parse_double(import_csv_field(r, (size_t)f->idx[C_SMEM]), &v) || v < 0)
				continue; /* reported with its line when the row is imported */
			if (n == cap) {
				struct obs *no;

				cap = cap ? cap * 2 : 256;
				no = realloc(o, cap * sizeof(*o));
				if (!no) {
					st = error_set(ctx->err, GPUPROJ_E_NOMEM, NULL, 0, 0,
						       "out of memory");
					goto out;
				}
				o = no;
			}
			o[n].label = import_csv_field(r, (size_t)f->idx[C_GPU]);
			o[n].kernel = import_csv_field(r, (size_t)f->idx[C_KERNEL]);
			o[n].v = v;
			n++;
		}
	}
	for (a = 0; a < n; a++) {
		bool kib = o[a].v != floor(o[a].v);

		for (b = 0; !kib && b < n; b++)
			kib = o[a].v > 0 && strcmp(o[b].label, o[a].label) != 0 &&
			      strcmp(o[b].kernel, o[a].kernel) == 0 && o[b].v == o[a].v * 1024.0;
		if (!kib)
			continue;
		for (i = 0; i < ctx->n_smem_kib; i++) {
			if (strcmp(ctx->smem_kib[i], o[a].label) == 0)
				break;
		}
		if (i < ctx->n_smem_kib)
			continue;
		{
			char **nl = realloc(ctx->smem_kib, (ctx->n_smem_kib + 1) * sizeof(*nl));

			if (!nl) {
				st = error_set(ctx->err, GPUPROJ_E_NOMEM, NULL, 0, 0,
					       "out of memory");
				goto out;
			}
			ctx->smem_kib = nl;
			nl[ctx->n_smem_kib] = strdup(o[a].label);
			if (!nl[ctx->n_smem_kib]) {
				st = error_set(ctx->err, GPUPROJ_E_NOMEM, NULL, 0, 0,
					       "out of memory");
				goto out;
			}
			ctx->n_smem_kib++;
		}
	}
out:
	free(o);
	return st;
}

/* Reference times (import_gpus_set_references()): the same signature on the other GPU. */
static const struct gpuproj_kernel *
counterpart(const struct import_gpu *other, const struct gpuproj_kernel *k, void *userdata)
{
	struct gpuproj_signature sig = {
		.name = k->name, .tag = k->tag, .grid = k->grid, .block = k->block,
		.smem_dynamic = k->smem_dynamic, .device = k->device,
	};

	(void)userdata;
	return gpuproj_profile_find(other->profile, &sig);
}

int
gpuproj_import_gpuperfpredict(const char *const *paths, size_t n_paths,
			      const struct gpuproj_targets *targets,
			      struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			      struct gpuproj_error *reterr)
{
	struct gpp_ctx ctx = { 0 };
	struct gpuproj_profile **out = NULL;
	struct gpp_file *files = NULL;
	size_t i;
	int st;

	if (!paths || n_paths == 0 || !targets || !ret_profiles || !ret_n)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "gpuperfpredict import: no files or no targets given");
	ctx.targets = targets;
	ctx.err = reterr;
	ctx.files = import_join_paths(paths, n_paths);
	if (!ctx.files)
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");

	files = calloc(n_paths, sizeof(*files));
	if (!files) {
		st = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n_paths; i++) {
		files[i].path = paths[i];
		st = read_file(&ctx, &files[i]);
		if (st)
			goto out;
	}
	st = detect_smem_units(&ctx, files, n_paths);
	if (st)
		goto out;
	for (i = 0; i < n_paths; i++) {
		size_t j;

		for (j = 1; j < files[i].csv.n_rows; j++) {
			st = import_row(&ctx, &files[i], &files[i].csv.rows[j]);
			if (st)
				goto out;
		}
	}
	if (ctx.gpus.n == 0) {
		st = error_set(reterr, GPUPROJ_E_PARSE, paths[0], 0, 0,
			       "no data rows: nothing to import");
		goto out;
	}
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
	free(ctx.files);
	for (i = 0; i < ctx.n_smem_kib; i++)
		free(ctx.smem_kib[i]);
	free(ctx.smem_kib);
	for (i = 0; files && i < n_paths; i++) {
		free(files[i].is_sig);
		import_csv_clear(&files[i].csv);
	}
	free(files);
	return st;
}
