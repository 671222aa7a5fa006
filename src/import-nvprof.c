/* SPDX-License-Identifier: MIT */
/*
 * nvprof exports (gpuproj_import_nvprof(), include/gpuproj/import.h) and
 * the nvprof-metric mapping both nvprof importers share (import-nvprof.h).
 *
 * Layouts, told apart by their header rows (a file may hold several tables,
 * e.g. `--events … --metrics …` prints an "Event result" and a "Metric
 * result" table); the shapes follow the CUDA Profiler User's Guide
 * ("nvprof": summary, GPU-trace and event/metric modes, `--csv`) and
 * exports people committed to public repositories:
 * - metrics, `nvprof --csv --metrics a,b …`: "Device","Kernel",
 *   "Invocations","Metric Name","Metric Description","Min","Max","Avg"; one
 *   row per kernel name and metric, values with their unit attached
 *   ("12.5GB/s", "99.8%");
 * - events, `--events`: "Device","Kernel","Invocations","Event Name","Min",
 *   "Max","Avg","Total";
 * - GPU trace, `nvprof --csv --print-gpu-trace`: "Start","Duration",
 *   "Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z","Registers Per
 *   Thread","Static SMem","Dynamic SMem","Size","Throughput",["SrcMemType",
 *   "DstMemType",]"Device","Context","Stream","Name"[,"Correlation_ID"],
 *   then a units row ("us,us,,,,,,,,KB,B,MB,GB/s,…"); one row per kernel
 *   launch or memory copy; older versions append " [123]" (the correlation
 *   ID) to the name;
 * - metric trace, `--print-gpu-trace --metrics …`: "Device","Context",
 *   "Stream","Kernel", then one column per metric, one row per launch;
 * - summary, `nvprof --csv`: "Type","Time(%)","Time","Calls","Avg","Min",
 *   "Max","Name", a units row, "GPU activities" rows per kernel name.
 * Lines nvprof writes itself ("==1234== Profiling result:", "======== …")
 * are dropped; ERR_NVGPUCTRPERM and "No kernels were profiled" are reported
 * as such.
 *
 * A kernel is joined across files by its name (the trace's name without the
 * " [N]" suffix). Launch configurations come from the GPU trace; metrics,
 * which nvprof averages over all invocations of a name, apply to each of
 * that name's configurations (a warning says so when there are several).
 * Without a trace, the summary gives durations (count, mean, min, max) and
 * the signature is tagged GPUPROJ_TAG_NO_GEOMETRY; without either, the
 * kernel has metrics but no duration (the summary says what to add).
 *
 * Units: trace durations by the units row; sizes in the trace ("KB", "MB")
 * are binary (public traces show a memset as "1.003906" KB = 1,028 B and a
 * copy as "0.125000" KB = 128 B: whole bytes only with 1 KB = 1024 B);
 * throughputs are decimal GB/s (10^9 B/s, as the gpuperfpredict README
 * states for the same metrics).
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "import-common.h"
#include "import-nvprof.h"
#include "profile-private.h"
#include "util.h"

/* ---- the mapping ---- */

const struct nvp_input nvp_inputs[NVP_COUNT] = {
	[NVP_SP_FMA] = { "flop_count_sp_fma", "Floating Point Operations(Single Precision FMA)",
			 "floating_point_operations.single_precision_fma.", NVP_K_COUNT, false },
	[NVP_SP_ADD] = { "flop_count_sp_add", "Floating Point Operations(Single Precision Add)",
			 "floating_point_operations.single_precision_add.", NVP_K_COUNT, false },
	/* "Operation", not "Operations": nvprof's own spelling. */
	[NVP_SP_MUL] = { "flop_count_sp_mul", "Floating Point Operation(Single Precision Mul)",
			 "floating_point_operation.single_precision_mul.", NVP_K_COUNT, false },
	[NVP_DP] = { "flop_count_dp", "Floating Point Operations(Double Precision)",
		     "floating_point_operations.double_precision.", NVP_K_COUNT, false },
	[NVP_DP_FMA] = { "flop_count_dp_fma", "Floating Point Operations(Double Precision FMA)",
			 "floating_point_operations.double_precision_fma.", NVP_K_COUNT, false },
	[NVP_DP_ADD] = { "flop_count_dp_add", "Floating Point Operations(Double Precision Add)",
			 "floating_point_operations.double_precision_add.", NVP_K_COUNT, false },
	[NVP_DP_MUL] = { "flop_count_dp_mul", "Floating Point Operations(Double Precision Mul)",
			 "floating_point_operations.double_precision_mul.", NVP_K_COUNT, false },
	[NVP_HP_FMA] = { "flop_count_hp_fma", "Floating Point Operations(Half Precision FMA)",
			 NULL, NVP_K_COUNT, false },
	[NVP_HP_ADD] = { "flop_count_hp_add", "Floating Point Operations(Half Precision Add)",
			 NULL, NVP_K_COUNT, false },
	[NVP_HP_MUL] = { "flop_count_hp_mul", "Floating Point Operation(Half Precision Mul)",
			 NULL, NVP_K_COUNT, false },
	[NVP_INST_FP16] = { "inst_fp_16", "FP Instructions(Half)", NULL, NVP_K_COUNT, false },
	[NVP_INST_FP32] = { "inst_fp_32", "FP Instructions(Single)", "fp_instructions.single.",
			    NVP_K_COUNT, false },
	[NVP_INST_FP64] = { "inst_fp_64", "FP Instructions(Double)", "fp_instructions.double.",
			    NVP_K_COUNT, false },
	[NVP_INST_INT] = { "inst_integer", "Integer Instructions", "integer_instructions",
			   NVP_K_COUNT, false },
	[NVP_INST_LDST] = { "inst_compute_ld_st", "Load/Store Instructions",
			    "load.store_instructions", NVP_K_COUNT, false },
	[NVP_INST_CONTROL] = { "inst_control", "Control-Flow Instructions",
			       "control.flow_instructions", NVP_K_COUNT, false },
	[NVP_INST_MISC] = { "inst_misc", "Misc Instructions", "misc_instructions", NVP_K_COUNT,
			    false },
	[NVP_INST_BITCONV] = { "inst_bit_convert", "Bit-Convert Instructions", NULL, NVP_K_COUNT,
			       false },
	[NVP_INST_ITC] = { "inst_inter_thread_communication", "Inter-Thread Instructions", NULL,
			   NVP_K_COUNT, false },
	[NVP_INST_EXECUTED] = { "inst_executed", "Instructions Executed", "inst_executed",
				NVP_K_COUNT, false },
	[NVP_WARP_EXEC_EFF] = { "warp_execution_efficiency", "Warp Execution Efficiency", NULL,
				NVP_K_PCT, false },
	[NVP_GLD_TP] = { "gld_throughput", "Global Load Throughput", "global_load_throughput",
			 NVP_K_GBS, false },
	[NVP_GST_TP] = { "gst_throughput", "Global Store Throughput", "global_store_throughput",
			 NVP_K_GBS, false },
	[NVP_L2_RD_TR] = { "l2_read_transactions", "L2 Read Transactions", "l2_read_transactions",
			   NVP_K_COUNT, false },
	[NVP_L2_WR_TR] = { "l2_write_transactions", "L2 Write Transactions",
			   "l2_write_transactions", NVP_K_COUNT, false },
	[NVP_L2_RD_TP] = { "l2_read_throughput", "L2 Throughput (Reads)", "l2_throughput_.reads.",
			   NVP_K_GBS, false },
	[NVP_DRAM_RD_TR] = { "dram_read_transactions", "Device Memory Read Transactions",
			     "device_memory_read_transactions", NVP_K_COUNT, false },
	[NVP_DRAM_WR_TR] = { "dram_write_transactions", "Device Memory Write Transactions", NULL,
			     NVP_K_COUNT, false },
	[NVP_DRAM_RD_TP] = { "dram_read_throughput", "Device Memory Read Throughput",
			     "device_memory_read_throughput", NVP_K_GBS, false },
	[NVP_DRAM_WR_TP] = { "dram_write_throughput", "Device Memory Write Throughput",
			     "device_memory_write_throughput", NVP_K_GBS, false },
	[NVP_SH_LD_TR] = { "shared_load_transactions", "Shared Load Transactions",
			   "shared_load_transactions", NVP_K_COUNT, false },
	[NVP_SH_ST_TR] = { "shared_store_transactions", "Shared Store Transactions",
			   "shared_store_transactions", NVP_K_COUNT, false },
	[NVP_SH_LD] = { "shared_load", NULL, "shared_load", NVP_K_COUNT, true },
	[NVP_SH_ST] = { "shared_store", NULL, "shared_store", NVP_K_COUNT, true },
	[NVP_SH_LD_TP] = { "shared_load_throughput", "Shared Memory Load Throughput",
			   "shared_memory_load_throughput", NVP_K_GBS, false },
	[NVP_SH_ST_TP] = { "shared_store_throughput", "Shared Memory Store Throughput",
			   "shared_memory_store_throughput", NVP_K_GBS, false },
	/*
	 * CC 7.x utilisation levels of the tensor units (FP16 and INT8 MMAs),
	 * "on a scale of 0 to 10" (nvprof's metrics reference). The
	 * description nvprof prints beside them is not known here [GPU?]; the
	 * name is what is matched.
	 */
	[NVP_TENSOR_FP_UTIL] = { "tensor_precision_fu_utilization", NULL, NULL, NVP_K_LEVEL,
				 false },
	[NVP_TENSOR_INT_UTIL] = { "tensor_int_fu_utilization", NULL, NULL, NVP_K_LEVEL, false },
	[NVP_OCC] = { "achieved_occupancy", "Achieved Occupancy", "achieved_occupancy", NVP_K_RATIO,
		      false },
	[NVP_ACTIVE_CYCLES] = { "active_cycles", NULL, "active_cycles", NVP_K_COUNT, true },
};

int
nvp_find(const char *name)
{
	int i;

	for (i = 0; name && i < NVP_COUNT; i++) {
		if (strcmp(nvp_inputs[i].name, name) == 0)
			return i;
	}
	return -1;
}

int
nvp_find_gpp_column(const char *column)
{
	int i;

	for (i = 0; column && i < NVP_COUNT; i++) {
		if (nvp_inputs[i].gpp_column && strcmp(nvp_inputs[i].gpp_column, column) == 0)
			return i;
	}
	return -1;
}

/* Σ of the terms that were measured; NaN when none was. */
static double
sum_present(const double *v, const enum nvp *which, size_t n)
{
	double s = 0;
	bool any = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isnan(v[which[i]])) {
			s += v[which[i]];
			any = true;
		}
	}
	return any ? s : NAN;
}

void
nvp_logical_metrics(const double v[NVP_COUNT], const struct nvp_gpu *gpu, double dur_s,
		    double m[GPUPROJ_M_COUNT])
{
	static const enum nvp opt_other[] = { NVP_INST_BITCONV, NVP_INST_ITC };
	double thread, write_b, read_b, w, t_prof = dur_s, extra;
	int warp = gpu && gpu->warp_size > 0 ? gpu->warp_size : 32;
	int i;

	/* The duration nvprof divided its throughputs by (import-gpuperfpredict.c: t_prof). */
	if (v[NVP_L2_RD_TR] > 0 && v[NVP_L2_RD_TP] > 0)
		t_prof = 32.0 * v[NVP_L2_RD_TR] / (v[NVP_L2_RD_TP] * 1e9);

	for (i = 0; i < GPUPROJ_M_COUNT; i++)
		m[i] = NAN;

	m[GPUPROJ_M_INST_FP32_FMA] = v[NVP_SP_FMA];
	m[GPUPROJ_M_INST_FP32_ADD] = v[NVP_SP_ADD];
	m[GPUPROJ_M_INST_FP32_MUL] = v[NVP_SP_MUL];
	m[GPUPROJ_M_INST_FP16_FMA] = v[NVP_HP_FMA];
	m[GPUPROJ_M_INST_FP16_ADD] = v[NVP_HP_ADD];
	m[GPUPROJ_M_INST_FP16_MUL] = v[NVP_HP_MUL];
	m[GPUPROJ_M_INST_FP64_ADD] = v[NVP_DP_ADD];
	m[GPUPROJ_M_INST_FP64_MUL] = v[NVP_DP_MUL];
	if (!isnan(v[NVP_DP_FMA])) {
		m[GPUPROJ_M_INST_FP64_FMA] = v[NVP_DP_FMA];
	} else {
		/* flop_count_dp = add + mul + 2 × fma (nvprof's definition). */
		double fma = (v[NVP_DP] - v[NVP_DP_ADD] - v[NVP_DP_MUL]) / 2;

		if (fma >= -1.0) /* NaN compares false: no value */
			m[GPUPROJ_M_INST_FP64_FMA] = fma > 0 ? fma : 0.0;
	}

	m[GPUPROJ_M_INST_FP16] = v[NVP_INST_FP16];
	m[GPUPROJ_M_INST_FP32] = v[NVP_INST_FP32];
	m[GPUPROJ_M_INST_FP64] = v[NVP_INST_FP64];
	m[GPUPROJ_M_INST_INT] = v[NVP_INST_INT];
	m[GPUPROJ_M_INST_LDST] = v[NVP_INST_LDST];
	/* inst_bit_convert and inst_inter_thread_communication count when measured. */
	extra = sum_present(v, opt_other, ARRAY_LENGTH(opt_other));
	if (isnan(extra))
		extra = 0;
	m[GPUPROJ_M_INST_OTHER] = v[NVP_INST_CONTROL] + v[NVP_INST_MISC] + extra;
	m[GPUPROJ_M_INST_WARP] = v[NVP_INST_EXECUTED];
	thread = v[NVP_INST_FP32] + v[NVP_INST_FP64] + v[NVP_INST_INT] + v[NVP_INST_LDST] +
		 v[NVP_INST_CONTROL] + v[NVP_INST_MISC] + extra;
	m[GPUPROJ_M_INST_THREAD] = thread;
	if (!isnan(v[NVP_WARP_EXEC_EFF])) {
		/* "Ratio of the average active threads per warp to the maximum …", in %. */
		m[GPUPROJ_M_WARP_EFFICIENCY] = v[NVP_WARP_EXEC_EFF] / 100.0;
	} else if (v[NVP_INST_EXECUTED] > 0) {
		double we = thread / ((double)warp * v[NVP_INST_EXECUTED]);

		if (we >= 0 && we <= 1.0)
			m[GPUPROJ_M_WARP_EFFICIENCY] = we;
	}

	m[GPUPROJ_M_BYTES_L1] = (v[NVP_GLD_TP] + v[NVP_GST_TP]) * 1e9 * t_prof;
	m[GPUPROJ_M_SECTORS_L1] = m[GPUPROJ_M_BYTES_L1] / 32.0;
	m[GPUPROJ_M_SECTORS_L2] = v[NVP_L2_RD_TR] + v[NVP_L2_WR_TR];
	m[GPUPROJ_M_BYTES_L2] = 32.0 * m[GPUPROJ_M_SECTORS_L2];
	read_b = !isnan(v[NVP_DRAM_RD_TR]) ? 32.0 * v[NVP_DRAM_RD_TR]
					    : v[NVP_DRAM_RD_TP] * 1e9 * t_prof;
	write_b = !isnan(v[NVP_DRAM_WR_TR]) ? 32.0 * v[NVP_DRAM_WR_TR]
					     : v[NVP_DRAM_WR_TP] * 1e9 * t_prof;
	m[GPUPROJ_M_BYTES_DRAM_READ] = read_b;
	m[GPUPROJ_M_BYTES_DRAM_WRITE] = write_b;
	m[GPUPROJ_M_BYTES_DRAM] = read_b + write_b;
	m[GPUPROJ_M_SECTORS_DRAM] = read_b / 32.0 + write_b / 32.0;

	/* 128-byte wavefront units: a CC 3.x transaction is a 256 B/clk pipe cycle. */
	w = gpu && gpu->cc_major == 3 ? 256.0 : 128.0;
	m[GPUPROJ_M_SHARED_WAVEFRONTS] = (v[NVP_SH_LD_TR] + v[NVP_SH_ST_TR]) * w / 128.0;
	m[GPUPROJ_M_SHARED_BYTES] = (v[NVP_SH_LD_TP] + v[NVP_SH_ST_TP]) * 1e9 * t_prof;
	m[GPUPROJ_M_SHARED_BANK_CONFLICTS] = fmax(v[NVP_SH_LD_TR] - v[NVP_SH_LD], 0.0) +
					     fmax(v[NVP_SH_ST_TR] - v[NVP_SH_ST], 0.0);
	/* fmax() ignores a NaN operand: require all four inputs. */
	if (isnan(v[NVP_SH_LD_TR] + v[NVP_SH_LD] + v[NVP_SH_ST_TR] + v[NVP_SH_ST]))
		m[GPUPROJ_M_SHARED_BANK_CONFLICTS] = NAN;

	m[GPUPROJ_M_OCCUPANCY_ACHIEVED] = v[NVP_OCC];
	/* The busier tensor unit; fmax() ignores one NaN operand (one metric collected). */
	m[GPUPROJ_M_TENSOR_UTILIZATION] =
		fmax(v[NVP_TENSOR_FP_UTIL], v[NVP_TENSOR_INT_UTIL]) / 10.0;
	if (gpu && gpu->sms > 0)
		m[GPUPROJ_M_CYCLES_SM_ACTIVE] = v[NVP_ACTIVE_CYCLES] / gpu->sms;
}

bool
nvp_parse_value(const char *s, enum nvp_kind kind, double *ret)
{
	static const struct {
		const char *suffix;
		double gbs;
	} tp[] = {
		{ "TB/s", 1e3 }, { "GB/s", 1 }, { "MB/s", 1e-3 }, { "KB/s", 1e-6 }, { "kB/s", 1e-6 },
		{ "B/s", 1e-9 },
	};
	char buf[96];
	size_t l, i;
	double scale = 1;

	while (s && isspace((unsigned char)*s))
		s++;
	if (!s || (l = strlen(s)) == 0 || l >= sizeof(buf))
		return false;
	memcpy(buf, s, l + 1);
	while (l > 0 && isspace((unsigned char)buf[l - 1]))
		buf[--l] = '\0';
	if (kind == NVP_K_LEVEL && l > 0 && buf[l - 1] == ')') {
		char *open = strrchr(buf, '(');

		if (!open)
			return false;
		buf[--l] = '\0';
		memmove(buf, open + 1, strlen(open + 1) + 1);
		if (!import_parse_scaled(buf, 1, ret))
			return false;
		return *ret == floor(*ret) && *ret >= 0 && *ret <= 10;
	}
	if (l > 0 && buf[l - 1] == '%') {
		if (kind != NVP_K_PCT)
			return false;
		buf[--l] = '\0';
	} else if (kind == NVP_K_GBS) {
		for (i = 0; i < ARRAY_LENGTH(tp); i++) {
			size_t sl = strlen(tp[i].suffix);

			if (l > sl && strcmp(buf + l - sl, tp[i].suffix) == 0) {
				buf[l - sl] = '\0';
				scale = tp[i].gbs;
				break;
			}
		}
	}
	return import_parse_scaled(buf, scale, ret);
}

/* ---- the importer ---- */

/* A table's layout. */
enum layout { T_NONE, T_METRICS, T_EVENTS, T_TRACE, T_MTRACE, T_SUMMARY };

/* An unmapped metric of a kernel. */
struct nv_extra {
	char *name, *unit;
	double value;
};

/* One launch of the GPU trace. */
struct nv_launch {
	struct gpuproj_dim3 grid, block;
	uint32_t smem_dyn, smem_st, regs;
	double ns;          /* NaN when the trace has no duration */
	int line;
	const char *file;
};

/* Everything about one kernel name. */
struct nv_kernel {
	char *name;
	double v[NVP_COUNT];
	int vline[NVP_COUNT];
	const char *vfile[NVP_COUNT];
	uint64_t invocations;      /* of the metrics/events tables */
	struct nv_extra *extras;
	size_t n_extras;
	struct nv_launch *launches;
	size_t n_launches;
	uint64_t n_mtrace;         /* rows of the metric trace (their values are averaged) */
	/* the summary's durations */
	bool have_summary;
	uint64_t calls;
	double avg_ns, min_ns, max_ns;
	int line;                  /* first row naming it */
	const char *file;
};

struct nvimp {
	struct gpuproj_error *err;
	struct gpuproj_import_summary sum;
	struct nv_kernel *k;
	size_t n_k, cap_k;
	struct import_strmap kmap;    /* name → index in k */
	char *device;
	int device_line;
	const char *device_file;
	bool several_devices;
	/* line filter of the file being read */
	const char *path;
	int ctrperm_line;
	char *no_data_msg;
	int no_data_line;
	size_t n_msgs, n_junk, n_junk_after;  /* dropped lines; after a header */
	int first_junk_after, last_junk;
	bool header_seen, header_quoted;
	size_t header_commas;         /* separators in the last header line */
	/* what the files held */
	size_t n_tables[T_SUMMARY + 1];
	size_t n_text;
	char *first_text;
	size_t n_memcpy;
};

static int
nv_oom(struct nvimp *im, int line)
{
	return error_set(im->err, GPUPROJ_E_NOMEM, im->path, line, 0, "out of memory");
}

/* The kernel record of a name (created). */
static int
nv_kernel_of(struct nvimp *im, const char *name, int line, struct nv_kernel **ret)
{
	struct nv_kernel *k;
	size_t idx;
	int i;

	if (import_strmap_get(&im->kmap, name, &idx)) {
		*ret = &im->k[idx];
		return GPUPROJ_OK;
	}
	if (im->n_k == im->cap_k) {
		size_t cap = im->cap_k ? im->cap_k * 2 : 32;
		struct nv_kernel *nk = realloc(im->k, cap * sizeof(*nk));

		if (!nk)
			return nv_oom(im, line);
		im->k = nk;
		im->cap_k = cap;
	}
	k = &im->k[im->n_k];
	memset(k, 0, sizeof(*k));
	for (i = 0; i < NVP_COUNT; i++)
		k->v[i] = NAN;
	k->name = strdup(name);
	k->line = line;
	k->file = im->path;
	if (!k->name || import_strmap_put(&im->kmap, name, im->n_k)) {
		free(k->name);
		return nv_oom(im, line);
	}
	im->n_k++;
	*ret = k;
	return GPUPROJ_OK;
}

/* "Tesla K40c (0)" → "Tesla K40c": the device, checked for being the same everywhere. */
static int
nv_device(struct nvimp *im, const char *field, int line)
{
	char *d;
	size_t l;

	if (!field || !*field)
		return GPUPROJ_OK;
	d = strdup(field);
	if (!d)
		return nv_oom(im, line);
	l = strlen(d);
	if (l > 3 && d[l - 1] == ')') {
		char *open = strrchr(d, '(');

		if (open && open > d && open[-1] == ' ') {
			bool digits = open[1] != ')';
			char *q;

			for (q = open + 1; q < d + l - 1; q++)
				digits = digits && isdigit((unsigned char)*q);
			if (digits)
				open[-1] = '\0';
		}
	}
	if (!im->device) {
		im->device = d;
		im->device_line = line;
		im->device_file = im->path;
		return GPUPROJ_OK;
	}
	if (strcmp(im->device, d) != 0)
		im->several_devices = true;
	free(d);
	return GPUPROJ_OK;
}

/* A trace name without the " [123]" correlation suffix of older nvprof versions. */
static void
strip_correlation(char *name)
{
	size_t l = strlen(name);
	char *open;

	if (l < 4 || name[l - 1] != ']')
		return;
	open = strrchr(name, '[');
	if (!open || open == name || open[-1] != ' ')
		return;
	for (char *q = open + 1; q < name + l - 1; q++) {
		if (!isdigit((unsigned char)*q))
			return;
	}
	open[-1] = '\0';
}

/* Keep an unmapped value (the last of one name wins: nvprof prints each once). */
static int
nv_extra(struct nvimp *im, struct nv_kernel *k, const char *name, const char *value, int line)
{
	struct nv_extra *e;
	const char *unit = "";
	double v;

	if (nvp_parse_value(value, NVP_K_COUNT, &v)) {
		unit = "";
	} else if (nvp_parse_value(value, NVP_K_PCT, &v)) {
		unit = "%";
	} else if (nvp_parse_value(value, NVP_K_GBS, &v)) {
		unit = "GB/s";
	} else {
		if (import_is_text_label(value)) {
			if (im->n_text++ == 0 && !(im->first_text = xasprintf("%s = %s", name, value)))
				return nv_oom(im, line);
			return GPUPROJ_OK;
		}
		return import_summary_warn(&im->sum, "%s:%d: kept no value for \"%s\": '%s' is not a "
					   "number", im->path, line, name, value)
			       ? nv_oom(im, line) : GPUPROJ_OK;
	}
	e = realloc(k->extras, (k->n_extras + 1) * sizeof(*e));
	if (!e)
		return nv_oom(im, line);
	k->extras = e;
	e = &k->extras[k->n_extras];
	e->name = strdup(name);
	e->unit = strdup(unit);
	e->value = v;
	if (!e->name || !e->unit) {
		free(e->name);
		free(e->unit);
		return nv_oom(im, line);
	}
	k->n_extras++;
	return GPUPROJ_OK;
}

/* A value of a mapped input: parsed for its kind, range-checked, kept with its position. */
static int
nv_input(struct nvimp *im, struct nv_kernel *k, int idx, const char *value,
	 const struct import_csv_row *row, size_t field)
{
	const struct nvp_input *in = &nvp_inputs[idx];
	int col = import_csv_column(row, field);
	double v;

	if (import_value_absent(value))
		return GPUPROJ_OK;
	if (!nvp_parse_value(value, in->kind, &v))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line, col,
				 "%s: '%s' is not %s", in->name, value,
				 in->kind == NVP_K_GBS ? "a throughput (GB/s, MB/s, …)"
				 : in->kind == NVP_K_PCT ? "a percentage"
				 : in->kind == NVP_K_LEVEL ? "a level (\"Low (2)\", 0 to 10)"
							   : "a number");
	if (v < 0)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line, col,
				 "%s: negative value %s", in->name, value);
	if ((in->kind == NVP_K_RATIO && v > 1) || (in->kind == NVP_K_PCT && v > 100) ||
	    (in->kind == NVP_K_LEVEL && v > 10)) {
		double hi = in->kind == NVP_K_RATIO ? 1 : in->kind == NVP_K_LEVEL ? 10 : 100;

		if (v > hi * 1.01)
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line, col,
					 "%s: %s is outside its range (0 to %g)", in->name, value,
					 hi);
		v = hi;
		if (import_summary_warn(&im->sum, "%s:%d:%d: %s = %s is above %g: clamped "
					"(rounding in nvprof's output)", im->path, row->line, col,
					in->name, value, hi))
			return nv_oom(im, row->line);
	}
	k->v[idx] = v;
	k->vline[idx] = row->line;
	k->vfile[idx] = im->path;
	return GPUPROJ_OK;
}

/* Column indices of a table's header, -1 when absent. */
struct nv_cols {
	enum layout layout;
	const struct import_csv_row *header, *units;
	long device, kernel, inv, mname, avg, ename;
	long start, duration, gx, gy, gz, bx, by, bz, regs, ssmem, dsmem, name;
	long type, calls, min, max;
	bool *metric;          /* T_MTRACE: per field, a metric column */
};

static enum layout
classify(const struct import_csv_row *h)
{
	if (import_csv_find(h, "Metric Name") >= 0 && import_csv_find(h, "Avg") >= 0)
		return T_METRICS;
	if (import_csv_find(h, "Event Name") >= 0 && import_csv_find(h, "Avg") >= 0)
		return T_EVENTS;
	if (import_csv_find(h, "Start") >= 0 && import_csv_find(h, "Duration") >= 0 &&
	    import_csv_find(h, "Name") >= 0)
		return T_TRACE;
	if (import_csv_find(h, "Type") == 0 && import_csv_find(h, "Calls") >= 0 &&
	    import_csv_find(h, "Name") >= 0)
		return T_SUMMARY;
	if (import_csv_find(h, "Device") >= 0 && import_csv_find(h, "Kernel") >= 0 &&
	    import_csv_find(h, "Invocations") < 0)
		return T_MTRACE;
	return T_NONE;
}

static int
set_header(struct nvimp *im, struct nv_cols *c, const struct import_csv_row *h)
{
	size_t i = 0, j = 0;

	free(c->metric);
	memset(c, 0, sizeof(*c));
	c->layout = classify(h);
	c->header = h;
	c->device = import_csv_find(h, "Device");
	c->kernel = import_csv_find(h, "Kernel");
	c->inv = import_csv_find(h, "Invocations");
	c->mname = import_csv_find(h, "Metric Name");
	c->ename = import_csv_find(h, "Event Name");
	c->avg = import_csv_find(h, "Avg");
	c->start = import_csv_find(h, "Start");
	c->duration = import_csv_find(h, "Duration");
	c->gx = import_csv_find(h, "Grid X");
	c->gy = import_csv_find(h, "Grid Y");
	c->gz = import_csv_find(h, "Grid Z");
	c->bx = import_csv_find(h, "Block X");
	c->by = import_csv_find(h, "Block Y");
	c->bz = import_csv_find(h, "Block Z");
	c->regs = import_csv_find(h, "Registers Per Thread");
	c->ssmem = import_csv_find(h, "Static SMem");
	c->dsmem = import_csv_find(h, "Dynamic SMem");
	c->name = import_csv_find(h, "Name");
	c->type = import_csv_find(h, "Type");
	c->calls = import_csv_find(h, "Calls");
	c->min = import_csv_find(h, "Min");
	c->max = import_csv_find(h, "Max");
	if (c->layout == T_NONE)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, h->line, 1,
				 "not an nvprof CSV header: expected \"Device\",\"Kernel\","
				 "\"Invocations\",\"Metric Name\",… (--metrics), \"Start\","
				 "\"Duration\",… (--print-gpu-trace) or \"Type\",\"Time(%%)\",… "
				 "(the summary), written by nvprof --csv");
	while (import_csv_next_duplicate(h, &i, &j)) {
		if (import_summary_warn(&im->sum, "%s:%d:%d: column \"%s\" appears twice (fields "
					"%zu and %zu); the first is read", im->path, h->line,
					import_csv_column(h, j - 1), h->fields[j - 1], i + 1, j))
			return nv_oom(im, h->line);
	}
	if (c->layout == T_MTRACE) {
		static const char *const identity[] = { "Device", "Context", "Stream", "Kernel",
							"Correlation_ID", "Start", "Duration" };

		c->metric = calloc(h->n ? h->n : 1, sizeof(*c->metric));
		if (!c->metric)
			return nv_oom(im, h->line);
		for (i = 0; i < h->n; i++) {
			c->metric[i] = true;
			for (j = 0; j < ARRAY_LENGTH(identity); j++)
				c->metric[i] = c->metric[i] && strcmp(h->fields[i], identity[j]) != 0;
		}
	}
	im->n_tables[c->layout]++;
	return GPUPROJ_OK;
}

/* Rows must reach the header's last column; extra fields must be empty. */
static int
check_length(struct nvimp *im, const struct nv_cols *c, const struct import_csv_row *row,
	     int unterminated_line)
{
	size_t i, n = c->header->n;

	if (row->n < n)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line,
				 import_csv_column(row, row->n), row->line == unterminated_line
				 ? "the file ends inside this row (%zu of %zu fields): it was cut "
				   "while it was written"
				 : "the row ends after %zu of the header's %zu fields: a truncated or "
				   "damaged row", row->n, n);
	for (i = n; i < row->n; i++) {
		if (*row->fields[i])
			return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line,
					 import_csv_column(row, i), "%zu fields, but the header "
					 "(line %d) has %zu", row->n, c->header->line, n);
	}
	return GPUPROJ_OK;
}

static const char *
field(const struct import_csv_row *r, long i)
{
	return i >= 0 ? import_csv_field(r, (size_t)i) : "";
}

/* A count column: a whole number ≥ 0 (≥ 1 when `positive`). */
static int
nv_count(struct nvimp *im, const struct import_csv_row *r, long col, const char *what,
	 bool positive, uint64_t *ret)
{
	const char *f = field(r, col);
	int64_t v;

	if (!parse_int64(f, &v) || v < (positive ? 1 : 0))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, r->line,
				 import_csv_column(r, (size_t)col), "\"%s\" '%s' is not a%s whole "
				 "number", what, f, positive ? " positive" : " non-negative");
	*ret = (uint64_t)v;
	return GPUPROJ_OK;
}

static int
row_metrics(struct nvimp *im, const struct nv_cols *c, const struct import_csv_row *r)
{
	const char *kname = field(r, c->kernel);
	const char *mname = field(r, c->layout == T_METRICS ? c->mname : c->ename);
	struct nv_kernel *k;
	uint64_t inv;
	int idx, st;

	if (!*kname)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, r->line,
				 import_csv_column(r, (size_t)c->kernel), "empty \"Kernel\"");
	if ((st = nv_device(im, field(r, c->device), r->line)) ||
	    (st = nv_kernel_of(im, kname, r->line, &k)))
		return st;
	if (c->inv >= 0) {
		if ((st = nv_count(im, r, c->inv, "Invocations", true, &inv)))
			return st;
		if (inv > k->invocations)
			k->invocations = inv;
	}
	idx = nvp_find(mname);
	if (idx >= 0 && nvp_inputs[idx].event == (c->layout == T_EVENTS))
		return nv_input(im, k, idx, field(r, c->avg), r, (size_t)c->avg);
	if (import_value_absent(field(r, c->avg)))
		return GPUPROJ_OK;
	return nv_extra(im, k, mname, field(r, c->avg), r->line);
}

static int
row_summary(struct nvimp *im, const struct nv_cols *c, const struct import_csv_row *r)
{
	const char *name = field(r, c->name);
	struct import_unit u[3];
	const long cols[3] = { c->avg, c->min, c->max };
	double t[3];
	struct nv_kernel *k;
	uint64_t calls;
	int i, st;

	if (strcmp(field(r, c->type), "GPU activities") != 0)
		return GPUPROJ_OK; /* API calls */
	if (name[0] == '[') {
		im->n_memcpy++;
		return GPUPROJ_OK; /* [CUDA memcpy HtoD], [CUDA memset] */
	}
	if ((st = nv_count(im, r, c->calls, "Calls", true, &calls)))
		return st;
	for (i = 0; i < 3; i++) {
		import_unit_parse(field(c->units, cols[i]), &u[i]);
		if (u[i].family != IMPORT_UNIT_TIME)
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, c->units->line,
					 import_csv_column(c->units, (size_t)cols[i]),
					 "the units row gives '%s' for a time column (us, ms, ns, s)",
					 field(c->units, cols[i]));
		if (!import_parse_scaled(field(r, cols[i]), u[i].scale, &t[i]) ||
		    !(t[i] > 0 && t[i] <= IMPORT_MAX_DURATION_NS))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, r->line,
					 import_csv_column(r, (size_t)cols[i]), "'%s' is not a kernel "
					 "duration (> 0 and at most %.3g s)", field(r, cols[i]),
					 IMPORT_MAX_DURATION_NS / 1e9);
	}
	if ((st = nv_kernel_of(im, name, r->line, &k)))
		return st;
	k->have_summary = true;
	k->calls = calls;
	k->avg_ns = t[0];
	k->min_ns = t[1];
	k->max_ns = t[2];
	return GPUPROJ_OK;
}

/* A size column of the trace in bytes (units row: "B", "KB", "MB": binary). */
static int
trace_size(struct nvimp *im, const struct nv_cols *c, const struct import_csv_row *r, long col,
	   uint32_t *ret)
{
	const char *u = field(c->units, col), *f = field(r, col);
	double scale = 1, v;

	*ret = 0;
	if (col < 0 || import_value_absent(f))
		return GPUPROJ_OK;
	if (strcmp(u, "KB") == 0)
		scale = 1024;
	else if (strcmp(u, "MB") == 0)
		scale = 1048576;
	else if (*u && strcmp(u, "B") != 0)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, c->units->line,
				 import_csv_column(c->units, (size_t)col),
				 "unit '%s' of \"%s\" is not a size (B, KB, MB)", u,
				 field(c->header, col));
	if (!import_parse_scaled(f, scale, &v) || v < 0 || v > 4294967295.0 ||
	    fabs(v - nearbyint(v)) > 1e-6 * fmax(1, v))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, r->line,
				 import_csv_column(r, (size_t)col), "\"%s\" '%s %s' is not a byte count",
				 field(c->header, col), f, u);
	*ret = (uint32_t)nearbyint(v);
	return GPUPROJ_OK;
}

static int
trace_dim(struct nvimp *im, const struct import_csv_row *r, long col, const char *what,
	  uint32_t *ret)
{
	uint64_t v;
	int st;

	if (col < 0) {
		*ret = 1;
		return GPUPROJ_OK;
	}
	if ((st = nv_count(im, r, col, what, true, &v)))
		return st;
	if (v > UINT32_MAX)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, r->line,
				 import_csv_column(r, (size_t)col), "\"%s\" %" PRIu64 " is too large",
				 what, v);
	*ret = (uint32_t)v;
	return GPUPROJ_OK;
}

static int
row_trace(struct nvimp *im, const struct nv_cols *c, const struct import_csv_row *r)
{
	struct nv_launch L = { 0 };
	struct nv_kernel *k;
	struct nv_launch *nl;
	struct import_unit u;
	char *name;
	uint64_t regs = 0;
	int st;

	if (!*field(r, c->gx)) {
		im->n_memcpy++;
		return GPUPROJ_OK; /* a memory copy or set: no grid */
	}
	if ((st = trace_dim(im, r, c->gx, "Grid X", &L.grid.x)) ||
	    (st = trace_dim(im, r, c->gy, "Grid Y", &L.grid.y)) ||
	    (st = trace_dim(im, r, c->gz, "Grid Z", &L.grid.z)) ||
	    (st = trace_dim(im, r, c->bx, "Block X", &L.block.x)) ||
	    (st = trace_dim(im, r, c->by, "Block Y", &L.block.y)) ||
	    (st = trace_dim(im, r, c->bz, "Block Z", &L.block.z)) ||
	    (st = trace_size(im, c, r, c->ssmem, &L.smem_st)) ||
	    (st = trace_size(im, c, r, c->dsmem, &L.smem_dyn)))
		return st;
	if (c->regs >= 0 && (st = nv_count(im, r, c->regs, "Registers Per Thread", false, &regs)))
		return st;
	if (regs > GPUPROJ_MAX_REGS_PER_THREAD)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, r->line,
				 import_csv_column(r, (size_t)c->regs),
				 "%" PRIu64 " registers per thread is not a register count", regs);
	L.regs = (uint32_t)regs;
	L.ns = NAN;
	if (c->duration >= 0) {
		import_unit_parse(field(c->units, c->duration), &u);
		if (u.family != IMPORT_UNIT_TIME)
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, c->units->line,
					 import_csv_column(c->units, (size_t)c->duration),
					 "the units row gives '%s' for \"Duration\" (us, ms, ns, s)",
					 field(c->units, c->duration));
		if (!import_parse_scaled(field(r, c->duration), u.scale, &L.ns) ||
		    !(L.ns > 0 && L.ns <= IMPORT_MAX_DURATION_NS))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, r->line,
					 import_csv_column(r, (size_t)c->duration), "\"Duration\" "
					 "'%s %s' is not a kernel duration (> 0 and at most %.3g s)",
					 field(r, c->duration), field(c->units, c->duration),
					 IMPORT_MAX_DURATION_NS / 1e9);
	}
	name = strdup(field(r, c->name));
	if (!name)
		return nv_oom(im, r->line);
	strip_correlation(name);
	if (!*name) {
		free(name);
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, r->line,
				 import_csv_column(r, (size_t)c->name), "empty kernel \"Name\"");
	}
	st = nv_device(im, field(r, c->device), r->line);
	if (!st)
		st = nv_kernel_of(im, name, r->line, &k);
	free(name);
	if (st)
		return st;
	nl = realloc(k->launches, (k->n_launches + 1) * sizeof(*nl));
	if (!nl)
		return nv_oom(im, r->line);
	k->launches = nl;
	L.line = r->line;
	L.file = im->path;
	k->launches[k->n_launches++] = L;
	return GPUPROJ_OK;
}

/* The metric trace: one launch per row, metrics as columns (no geometry). */
static int
row_mtrace(struct nvimp *im, const struct nv_cols *c, const struct import_csv_row *r)
{
	const char *kname = field(r, c->kernel);
	struct nv_kernel *k;
	size_t i;
	int st;

	if (!*field(r, c->device) && !*kname)
		return GPUPROJ_OK; /* a units row */
	if (!*kname)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, r->line,
				 import_csv_column(r, (size_t)c->kernel), "empty \"Kernel\"");
	if ((st = nv_device(im, field(r, c->device), r->line)) ||
	    (st = nv_kernel_of(im, kname, r->line, &k)))
		return st;
	k->n_mtrace++;
	if (k->n_mtrace > k->invocations)
		k->invocations = k->n_mtrace;
	for (i = 0; i < c->header->n; i++) {
		const char *h = c->header->fields[i];
		int idx;

		if (!c->metric[i] || import_value_absent(import_csv_field(r, i)))
			continue;
		idx = nvp_find(h);
		/*
		 * Per launch: the mean over the launches read so far, as the metrics
		 * table's "Avg" is over all invocations.
		 */
		if (idx >= 0) {
			double prev = k->v[idx], n = (double)k->n_mtrace;

			if ((st = nv_input(im, k, idx, import_csv_field(r, i), r, i)))
				return st;
			if (!isnan(prev) && n > 1)
				k->v[idx] = prev + (k->v[idx] - prev) / n;
		} else if ((st = nv_extra(im, k, h, import_csv_field(r, i), r->line))) {
			return st;
		}
	}
	return GPUPROJ_OK;
}

/* Commas outside quotes. */
static size_t
count_separators(const char *line, size_t len)
{
	size_t i, n = 0;
	bool q = false;

	for (i = 0; i < len; i++) {
		if (line[i] == '"')
			q = !q;
		else if (line[i] == ',' && !q)
			n++;
	}
	return n;
}

/*
 * nvprof's own lines: "==1234== …" and "======== …"; noted when they say
 * why there is no data. Before the first header, every line that does not
 * start one is dropped (the application's output); after a quoted header,
 * lines that do not start with a quote too (nvprof quotes its fields).
 */
static bool
nv_skip_line(void *userdata, const char *line, size_t len, int lineno)
{
	struct nvimp *im = userdata;
	size_t i;

	if (len >= 4 && line[0] == '=' && line[1] == '=') {
		for (i = 2; i < len && (isdigit((unsigned char)line[i]) || line[i] == '='); i++)
			;
		if (i > 3 && line[i - 1] == '=' && line[i - 2] == '=') {
			im->n_msgs++;
			if (memmem(line, len, "ERR_NVGPUCTRPERM", 16) && !im->ctrperm_line)
				im->ctrperm_line = lineno;
			if (!im->no_data_msg &&
			    (memmem(line, len, "No kernels were profiled", 24) ||
			     memmem(line, len, "No profile data", 15) ||
			     memmem(line, len, "No CUDA application was profiled", 32) ||
			     memmem(line, len, "is not supported on devices", 27) ||
			     memmem(line, len, "Error:", 6))) {
				im->no_data_msg = strndup(line, len > 400 ? 400 : len);
				im->no_data_line = lineno;
			}
			return true;
		}
		/* "==PROF==": an Nsight Compute export given to the nvprof importer. */
	}
	{
		static const char *const firsts[] = { "Device", "Start", "Type", "Invocations" };
		size_t j;

		for (j = 0; j < ARRAY_LENGTH(firsts); j++) {
			size_t n = strlen(firsts[j]);

			if ((len > n + 2 && line[0] == '"' && strncmp(line + 1, firsts[j], n) == 0 &&
			     line[n + 1] == '"' && line[n + 2] == ',') ||
			    (len > n && strncmp(line, firsts[j], n) == 0 && line[n] == ',')) {
				im->header_seen = true;
				im->header_quoted = line[0] == '"';
				im->header_commas = count_separators(line, len);
				return false;
			}
		}
	}
	if (!im->header_seen) {
		im->n_junk++;
		return true;
	}
	/*
	 * nvprof quotes text but not numbers (trace rows start with the start
	 * time), so a row is a line with at least the header's separators; the
	 * application's output on the same stream has fewer.
	 */
	if (!im->header_quoted || line[0] == '"' || count_separators(line, len) >= im->header_commas)
		return false;
	im->n_junk++;
	if (im->n_junk_after++ == 0)
		im->first_junk_after = lineno;
	im->last_junk = lineno;
	return true;
}

static int
read_file(struct nvimp *im, const char *path)
{
	struct import_csv_options opt = { 0 };
	struct import_csv t = { 0 };
	struct nv_cols c = { 0 };
	size_t i;
	int st;

	im->path = path;
	im->header_seen = im->header_quoted = false;
	im->n_junk = im->n_junk_after = 0;
	im->last_junk = 0;
	opt.skip_line = nv_skip_line;
	opt.userdata = im;
	if ((st = import_csv_read_file(path, &opt, &t, im->err)))
		return st;
	if (t.n_rows == 0) {
		if (im->ctrperm_line)
			st = error_set(im->err, GPUPROJ_E_PARSE, path, im->ctrperm_line, 0,
				       "nvprof could not read the GPU's performance counters "
				       "(ERR_NVGPUCTRPERM: profiling is restricted to "
				       "administrators), so no kernel was measured: run nvprof with "
				       "sudo, or allow all users (`options nvidia "
				       "NVreg_RestrictProfilingToAdminUsers=0` in a file under "
				       "/etc/modprobe.d/, then reboot; "
				       "https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
		else if (im->no_data_msg)
			st = error_set(im->err, GPUPROJ_E_PARSE, path, im->no_data_line, 0,
				       "no kernel data; nvprof said: %s", im->no_data_msg);
		else if (im->n_junk)
			st = error_set(im->err, GPUPROJ_E_PARSE, path, 1, 0,
				       "not an nvprof CSV export: no line starts with a header "
				       "nvprof --csv writes (\"Device\",\"Kernel\",… or "
				       "\"Start\",\"Duration\",… or \"Type\",\"Time(%%)\",…)");
		else if (im->n_msgs)
			st = error_set(im->err, GPUPROJ_E_PARSE, path, t.n_lines, 0,
				       "no CSV data, only nvprof's messages (==PID== …): was it "
				       "run with --csv, and did it profile any kernel?");
		else
			st = error_set(im->err, GPUPROJ_E_PARSE, path, 1, 0,
				       "empty file: expected an nvprof CSV export (nvprof --csv)");
		goto out;
	}
	/* A last line cut short looks like output that is not CSV: it is a truncated row. */
	if (t.last_line_open && t.last_line_open == im->last_junk) {
		st = error_set(im->err, GPUPROJ_E_PARSE, path, t.last_line_open, 0,
			       "the file ends inside a row (fewer fields than its header, no "
			       "final line break): it was cut while it was written");
		goto out;
	}
	for (i = 0; i < t.n_rows; i++) {
		const struct import_csv_row *r = &t.rows[i];

		if (!c.header || classify(r) != T_NONE) {
			/* A (new) table: its header, and for some layouts a units row. */
			if ((st = set_header(im, &c, r)))
				goto out;
			if ((c.layout == T_TRACE || c.layout == T_SUMMARY) && i + 1 < t.n_rows) {
				struct import_unit u;

				c.units = &t.rows[++i];
				import_unit_parse(field(c.units, c.layout == T_TRACE ? c.duration
										      : c.avg), &u);
				if (u.family != IMPORT_UNIT_TIME) {
					st = error_set(im->err, GPUPROJ_E_PARSE, path, c.units->line, 1,
						       "expected the units row under the header "
						       "(%s), which nvprof --csv writes",
						       c.layout == T_TRACE ? "\"us,us,,,…\""
									   : "\",%%,us,,us,us,us,\"");
					goto out;
				}
				if (*import_csv_field(c.units, 0) && c.layout == T_SUMMARY) {
					st = error_set(im->err, GPUPROJ_E_PARSE, path, c.units->line, 1,
						       "expected the units row under the header "
						       "(\",%%,us,,us,us,us,\"), which nvprof --csv "
						       "writes");
					goto out;
				}
			}
			continue;
		}
		if ((st = check_length(im, &c, r, t.unterminated_line)))
			goto out;
		im->sum.rows++;
		switch (c.layout) {
		case T_METRICS:
		case T_EVENTS: st = row_metrics(im, &c, r); break;
		case T_SUMMARY: st = row_summary(im, &c, r); break;
		case T_TRACE: st = row_trace(im, &c, r); break;
		case T_MTRACE: st = row_mtrace(im, &c, r); break;
		case T_NONE: break;
		}
		if (st)
			goto out;
	}
	if (im->sum.rows == 0 && im->n_k == 0) {
		st = error_set(im->err, GPUPROJ_E_PARSE, path, c.units ? c.units->line
						: c.header->line, 0,
			       "no kernel: the file ends after the header%s%s",
			       im->no_data_msg ? "; nvprof said: " : "",
			       im->no_data_msg ? im->no_data_msg : "");
		goto out;
	}
	if (im->ctrperm_line &&
	    import_summary_warn(&im->sum, "%s:%d: nvprof could not read the performance counters "
				"of some kernels (ERR_NVGPUCTRPERM)", path, im->ctrperm_line))
		st = nv_oom(im, 0);
	if (!st && im->n_junk_after &&
	    import_summary_warn(&im->sum, "%s:%d: skipped %zu line%s between the rows that %s not "
				"CSV (application output?)", path, im->first_junk_after,
				im->n_junk_after, im->n_junk_after == 1 ? "" : "s",
				im->n_junk_after == 1 ? "is" : "are"))
		st = nv_oom(im, 0);
out:
	free(c.metric);
	/* Tables reference rows of this file only while it is read: nothing kept. */
	import_csv_clear(&t);
	return st;
}

/* ---- the profile ---- */

static bool
same_geometry(const struct nv_launch *a, const struct nv_launch *b)
{
	return memcmp(&a->grid, &b->grid, sizeof(a->grid)) == 0 &&
	       memcmp(&a->block, &b->block, sizeof(a->block)) == 0 && a->smem_dyn == b->smem_dyn;
}

/* Record metrics (per launch) and extras on `launches` launches of kernel record kr. */
static int
apply_metrics(struct nvimp *im, const struct nv_kernel *k, const double *m,
	      struct gpuproj_kernel *kr, uint64_t launches)
{
	size_t i;

	for (i = 0; i < GPUPROJ_M_COUNT; i++) {
		double v = m[i];
		enum import_range rr;

		if (isnan(v))
			continue;
		rr = import_metric_check((enum gpuproj_metric)i, &v);
		if (rr == IMPORT_RANGE_BAD)
			return error_set(im->err, GPUPROJ_E_SCHEMA, k->file, k->line, 0,
					 "kernel '%s': %s = %.17g is outside its range", k->name,
					 gpuproj_metric_name((enum gpuproj_metric)i), m[i]);
		if (rr == IMPORT_RANGE_CLAMPED &&
		    import_summary_warn(&im->sum, "%s:%d: kernel '%s': %s = %.17g clamped to %g",
					k->file, k->line, k->name,
					gpuproj_metric_name((enum gpuproj_metric)i), m[i], v))
			return nv_oom(im, k->line);
		kr->metric_sum[i] += v * (double)launches;
		kr->metric_n[i] += (uint32_t)(launches > UINT32_MAX ? UINT32_MAX : launches);
		if (!isfinite(kr->metric_sum[i]))
			return error_set(im->err, GPUPROJ_E_SCHEMA, k->file, k->line, 0,
					 "kernel '%s': the sum of %s over its launches is not finite",
					 k->name, gpuproj_metric_name((enum gpuproj_metric)i));
	}
	for (i = 0; i < k->n_extras; i++) {
		size_t j;

		if (gpuproj_kernel_add_extra(kr, k->extras[i].name, k->extras[i].unit,
					     k->extras[i].value * (double)launches))
			return nv_oom(im, k->line);
		for (j = 0; j < kr->n_extra; j++) {
			if (strcmp(kr->extra[j].name, k->extras[i].name) != 0)
				continue;
			kr->extra[j].n += launches - 1; /* add_extra counted one */
			if (!isfinite(kr->extra[j].sum))
				return error_set(im->err, GPUPROJ_E_SCHEMA, k->file, k->line, 0,
						 "kernel '%s': the sum of %s over its launches is "
						 "not finite", k->name, k->extras[i].name);
			break;
		}
	}
	kr->profiled += launches;
	return GPUPROJ_OK;
}

static bool
has_metrics(const struct nv_kernel *k)
{
	int i;

	for (i = 0; i < NVP_COUNT; i++) {
		if (!isnan(k->v[i]))
			return true;
	}
	return k->n_extras > 0;
}

static int
build_kernel(struct nvimp *im, struct gpuproj_profile *p, const struct nv_kernel *k,
	     const struct nvp_gpu *gpu, bool *no_geometry)
{
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *kr;
	double m[GPUPROJ_M_COUNT], dur_s = NAN, total = 0;
	size_t i, j, n_timed = 0, n_sigs = 0;
	bool metrics = has_metrics(k);

	sig.name = k->name;
	sig.tag = "";
	/* The mean duration, for the throughput → bytes conversion when t_prof is unknown. */
	for (i = 0; i < k->n_launches; i++) {
		if (!isnan(k->launches[i].ns)) {
			total += k->launches[i].ns;
			n_timed++;
		}
	}
	if (n_timed)
		dur_s = total / (double)n_timed * 1e-9;
	else if (k->have_summary)
		dur_s = k->avg_ns * 1e-9;
	nvp_logical_metrics(k->v, gpu, dur_s, m);

	if (k->n_launches) {
		/* One signature per launch configuration, in order of first launch. */
		for (i = 0; i < k->n_launches; i++) {
			const struct nv_launch *L = &k->launches[i];
			uint64_t n_same = 0;
			bool seen = false;

			for (j = 0; j < i && !seen; j++)
				seen = same_geometry(&k->launches[j], L);
			if (seen)
				continue;
			n_sigs++;
			sig.grid = L->grid;
			sig.block = L->block;
			sig.smem_dynamic = L->smem_dyn;
			if (gpuproj_profile_kernel(p, &sig, &kr))
				return nv_oom(im, L->line);
			if (!kr->demangled && strchr(k->name, '(') && !str_startswith(k->name, "_Z") &&
			    profile_kernel_set_demangled(kr, k->name))
				return nv_oom(im, L->line);
			kr->regs_per_thread = L->regs;
			kr->smem_static = L->smem_st;
			for (j = i; j < k->n_launches; j++) {
				const struct nv_launch *M = &k->launches[j];

				if (!same_geometry(M, L))
					continue;
				n_same++;
				if (isnan(M->ns)) {
					kr->launches++;
					continue;
				}
				gpuproj_kernel_add_duration(kr, M->ns);
				if (!isfinite(kr->duration_ns.sum) || !isfinite(kr->duration_ns.m2))
					return error_set(im->err, GPUPROJ_E_SCHEMA, M->file, M->line, 0,
							 "the total duration of '%s' is not "
							 "finite", k->name);
			}
			if (metrics) {
				int st = apply_metrics(im, k, m, kr, n_same);

				if (st)
					return st;
			}
		}
		if (metrics && n_sigs > 1 &&
		    import_summary_warn(&im->sum, "%s:%d: the metrics of '%s', which nvprof "
					"averages over all its %" PRIu64 " invocations, are applied to "
					"each of its %zu launch configurations", k->file, k->line,
					k->name, k->invocations, n_sigs))
			return nv_oom(im, k->line);
		return GPUPROJ_OK;
	}
	/* No trace: the launch geometry is unknown. */
	*no_geometry = true;
	sig.grid = sig.block = (struct gpuproj_dim3){ 1, 1, 1 };
	sig.tag = GPUPROJ_TAG_NO_GEOMETRY;
	if (gpuproj_profile_kernel(p, &sig, &kr))
		return nv_oom(im, k->line);
	if (!kr->demangled && strchr(k->name, '(') && !str_startswith(k->name, "_Z") &&
	    profile_kernel_set_demangled(kr, k->name))
		return nv_oom(im, k->line);
	if (k->have_summary) {
		struct gpuproj_stats st = { 0 };

		/* The summary gives count, mean, min and max; the spread is not published. */
		st.n = k->calls;
		st.mean = k->avg_ns;
		st.min = k->min_ns;
		st.max = k->max_ns;
		st.sum = k->avg_ns * (double)k->calls;
		gpuproj_stats_merge(&kr->duration_ns, &st);
		kr->launches += k->calls;
	} else {
		kr->launches += k->invocations ? k->invocations : 1;
	}
	if (metrics)
		return apply_metrics(im, k, m, kr, kr->launches);
	return GPUPROJ_OK;
}

static void
nvimp_clear(struct nvimp *im)
{
	size_t i, j;

	for (i = 0; i < im->n_k; i++) {
		struct nv_kernel *k = &im->k[i];

		free(k->name);
		for (j = 0; j < k->n_extras; j++) {
			free(k->extras[j].name);
			free(k->extras[j].unit);
		}
		free(k->extras);
		free(k->launches);
	}
	free(im->k);
	import_strmap_clear(&im->kmap);
	free(im->device);
	free(im->no_data_msg);
	free(im->first_text);
	gpuproj_import_summary_clear(&im->sum);
}

int
gpuproj_import_nvprof(const char *const *paths, size_t n_paths,
		      const struct gpuproj_targets *targets, const char *device_name,
		      struct gpuproj_profile **ret, struct gpuproj_import_summary *summary,
		      struct gpuproj_error *reterr)
{
	struct nvimp im = { 0 };
	struct gpuproj_profile *p = NULL;
	const struct gpuproj_target *t = NULL;
	struct nvp_gpu gpu = { 32, 0, 0 };
	char *files = NULL;
	bool no_geometry = false;
	size_t i;
	int st = GPUPROJ_OK;

	if (!paths || n_paths == 0 || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	im.err = reterr;
	for (i = 0; i < n_paths && !st; i++)
		st = read_file(&im, paths[i]);
	if (st)
		goto out;
	if (im.n_k == 0) {
		st = error_set(reterr, GPUPROJ_E_PARSE, paths[n_paths - 1], 0, 0,
			       "no kernel in the export%s", im.n_memcpy ? " (only memory copies)"
									  : "");
		goto out;
	}
	/* The GPU: --device-name, else the export's "Device" column. */
	if (targets && (device_name || im.device))
		t = gpuproj_targets_match(targets, device_name ? device_name : im.device);
	if (t) {
		gpu.warp_size = t->warp_size;
		gpu.cc_major = t->cc_major;
		gpu.sms = t->sms;
	}
	p = gpuproj_profile_new();
	if (!p) {
		st = nv_oom(&im, 0);
		goto out;
	}
	for (i = 0; i < im.n_k && !st; i++)
		st = build_kernel(&im, p, &im.k[i], &gpu, &no_geometry);
	if (st)
		goto out;
	im.sum.launches = 0;
	for (i = 0; i < gpuproj_profile_count(p); i++)
		im.sum.launches += gpuproj_profile_at(p, i)->launches;
	if (gpuproj_profile_set_device(p, device_name ? device_name : im.device,
				       t ? t->name : NULL, t ? t->chip : NULL, t ? t->cc_major : 0,
				       t ? t->cc_minor : 0, t ? t->sms : 0, NAN)) {
		st = nv_oom(&im, 0);
		goto out;
	}
	/* The export's own "Device" under --device-name: `import` checks one against the other. */
	if (device_name && im.device &&
	    gpuproj_profile_set_attr(p, "import.device_column", im.device)) {
		st = nv_oom(&im, 0);
		goto out;
	}
	if (im.several_devices &&
	    import_summary_warn(&im.sum, "%s:%d: kernels from several GPUs; the profile describes "
				"the first, %s", im.device_file, im.device_line, im.device)) {
		st = nv_oom(&im, 0);
		goto out;
	}
	if (!t) {
		bool shared = false;

		for (i = 0; i < im.n_k; i++)
			shared = shared || !isnan(im.k[i].v[NVP_SH_LD_TR]) ||
				 !isnan(im.k[i].v[NVP_SH_ST_TR]);
		if (shared &&
		    import_summary_warn(&im.sum, "shared.wavefronts counts 128-byte shared-memory "
					"transactions (Maxwell and later); on Kepler (CC 3.x) they "
					"are 256 B: name the GPU (--device-name) so that its "
					"targets.yaml entry decides")) {
			st = nv_oom(&im, 0);
			goto out;
		}
	}
	if (no_geometry &&
	    import_summary_warn(&im.sum, "no GPU trace (nvprof --csv --print-gpu-trace): the "
				"kernels have no launch geometry and are tagged \"%s\"; the models "
				"project them without occupancy or wave term (assumed: occupancy "
				"unknown), and without a time not at all",
				GPUPROJ_TAG_NO_GEOMETRY)) {
		st = nv_oom(&im, 0);
		goto out;
	}
	if (im.n_text &&
	    import_summary_warn(&im.sum, "%zu text value%s not kept (e.g. %s)", im.n_text,
				im.n_text == 1 ? "" : "s", im.first_text)) {
		st = nv_oom(&im, 0);
		goto out;
	}
	files = import_join_paths(paths, n_paths);
	if (!files || gpuproj_profile_set_attr(p, "origin", "nvprof-import") ||
	    gpuproj_profile_set_attr(p, "import.file", files) ||
	    gpuproj_profile_set_attr(p, "import.format", "nvprof --csv") ||
	    gpuproj_profile_set_attr(p, "tool_version", GPUPROJ_VERSION) ||
	    import_summary_finish(&im.sum, p)) {
		free(files);
		st = nv_oom(&im, 0);
		goto out;
	}
	free(files);
	if (summary) {
		*summary = im.sum;
		memset(&im.sum, 0, sizeof(im.sum));
	}
	*ret = p;
	p = NULL;
out:
	gpuproj_profile_free(p);
	nvimp_clear(&im);
	return st;
}
