/* SPDX-License-Identifier: MIT */
/*
 * Nsight Compute CSV import (gpuproj_import_ncu(), include/gpuproj/import.h).
 *
 * Two layouts, told apart by the header, columns found by name:
 * - long (`ncu --csv`): one row per metric of a launch, "ID","Process ID",
 *   "Process Name","Host Name",["Kernel Time",]"Kernel Name","Context",
 *   "Stream",["Block Size","Grid Size","Device","CC",]"Section Name",
 *   "Metric Name","Metric Unit","Metric Value"[,"Rule …","Estimated Speedup…"];
 *   the rows of one launch share (Process ID, ID, Kernel Name);
 * - raw (`ncu --csv --page raw`): one row per launch, metric names as
 *   column headers (a metric column's name contains "__") and a second
 *   header row with the units.
 * Metric names map to logical metrics through `sources` and resolve();
 * the table of docs/cli/gpuproj-import.md "gpuproj import ncu" is this mapping. Every other numeric
 * metric is kept in extra_metrics, in the base unit of its family where the
 * unit is known (so launches that ncu printed in different auto-scaled units
 * average correctly), else verbatim.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/tensor.h>
#include <gpuproj/profile.h>

#include "import-common.h"
#include "profile-private.h"
#include "util.h"

#define WARP_SIZE 32.0

/* Units a mapped metric must have; values are scaled to the base unit. */
enum kind {
	K_TIME,   /* → ns */
	K_BYTES,  /* → bytes */
	K_FREQ,   /* → Hz */
	K_COUNT,  /* no unit or a count ("inst", "Kinst", "register/thread") */
	K_PCT,    /* "%" (or no unit), kept in percent */
	K_BW,     /* → bytes/second */
};

/* Every NVIDIA metric (or section label) the importer maps. */
enum src {
	SRC_DURATION, SRC_DURATION_L,
	SRC_HFMA, SRC_HADD, SRC_HMUL, SRC_FFMA, SRC_FADD, SRC_FMUL, SRC_DFMA, SRC_DADD, SRC_DMUL,
	SRC_HFMA_SM, SRC_HADD_SM, SRC_HMUL_SM, SRC_FFMA_SM, SRC_FADD_SM, SRC_FMUL_SM,
	SRC_DFMA_SM, SRC_DADD_SM, SRC_DMUL_SM,
	SRC_FP16, SRC_FP32, SRC_FP64, SRC_INT, SRC_MEM,
	SRC_FP16_SM, SRC_FP32_SM, SRC_FP64_SM, SRC_INT_SM, SRC_MEM_SM,
	SRC_INST, SRC_INST_SM, SRC_INST_L, SRC_TINST, SRC_TINST_SM,
	SRC_WE_AVG, SRC_WE_RATIO, SRC_WE_PCT, SRC_WE_L,
	SRC_L1_BYTES, SRC_L2_BYTES, SRC_DRAM_BYTES, SRC_DRAM_RD, SRC_DRAM_WR,
	SRC_DRAM_OP_RD, SRC_DRAM_OP_WR,
	SRC_SH_WF, SRC_SH_WF_LD, SRC_SH_WF_ST, SRC_SH_BC, SRC_SH_BC_LD, SRC_SH_BC_ST,
	SRC_SH_BYTES, SRC_SH_BYTES_SMSP,
	SRC_L1_SECT, SRC_L2_SECT, SRC_L2_SECT_TEX, SRC_DRAM_SECT, SRC_DRAM_SECT_RD, SRC_DRAM_SECT_WR,
	SRC_OCC, SRC_OCC_L, SRC_ACTIVE, SRC_ACTIVE_L, SRC_CLOCK, SRC_CLOCK_L,
	SRC_REGS, SRC_REGS_L, SRC_SMEM_DYN, SRC_SMEM_DYN_L, SRC_SMEM_ST, SRC_SMEM_ST_L,
	SRC_GRID, SRC_GRID_L, SRC_GRID_X, SRC_GRID_Y, SRC_GRID_Z,
	SRC_BLOCK, SRC_BLOCK_L, SRC_BLOCK_X, SRC_BLOCK_Y, SRC_BLOCK_Z,
	SRC_SMS, SRC_SMS_L, SRC_CC_MAJOR, SRC_CC_MINOR,
	/* Duration from elapsed cycles and their rate (the roofline recipes). */
	SRC_CYC_SM, SRC_CYC_SMSP, SRC_CLOCK_SMSP,
	/* Default-section quantities of the sol model (model.h, GPUPROJ_SOL_*). */
	SRC_SOL_DRAM, SRC_SOL_DRAM_OLD, SRC_SOL_DRAM_L, SRC_SOL_DRAM_L20,
	SRC_SOL_L2, SRC_SOL_L2_L, SRC_SOL_L2_L20,
	SRC_SOL_L1, SRC_SOL_L1_L, SRC_SOL_L1_L20, SRC_SOL_L1_TEX20,
	SRC_SOL_SM, SRC_SOL_SM_L, SRC_SOL_SM_L20,
	SRC_DRAM_BPS, SRC_DRAM_BPS_L,
	SRC_COUNT
};

/*
 * Section names of the labels: ncu 2019.5–2020 call the speed-of-light
 * section "GPU Speed Of Light", later versions "GPU Speed Of Light
 * Throughput"; the identifier (`--section SpeedOfLight`) is the same.
 */
#define SOL "GPU Speed Of Light Throughput|GPU Speed Of Light|SpeedOfLight"
#define LAUNCH "Launch Statistics|LaunchStats"
#define MWA "Memory Workload Analysis|MemoryWorkloadAnalysis"
#define SASS(x) "smsp__sass_thread_inst_executed_op_" x "_pred_on.sum"
#define SASS_SM(x) "sm__sass_thread_inst_executed_op_" x "_pred_on.sum"

/*
 * name: the metric name, or a section label (the default
 * `--print-metric-name label` output); section: NULL for metric names,
 * else the "|"-separated section names (display name and identifier) the
 * label belongs to, "*" for any.
 */
static const struct source {
	const char *name;
	const char *section;
	enum kind kind;
} sources[SRC_COUNT] = {
	[SRC_DURATION] = { "gpu__time_duration.sum", NULL, K_TIME },
	[SRC_DURATION_L] = { "Duration", SOL, K_TIME },
	[SRC_HFMA] = { SASS("hfma"), NULL, K_COUNT },
	[SRC_HADD] = { SASS("hadd"), NULL, K_COUNT },
	[SRC_HMUL] = { SASS("hmul"), NULL, K_COUNT },
	[SRC_FFMA] = { SASS("ffma"), NULL, K_COUNT },
	[SRC_FADD] = { SASS("fadd"), NULL, K_COUNT },
	[SRC_FMUL] = { SASS("fmul"), NULL, K_COUNT },
	[SRC_DFMA] = { SASS("dfma"), NULL, K_COUNT },
	[SRC_DADD] = { SASS("dadd"), NULL, K_COUNT },
	[SRC_DMUL] = { SASS("dmul"), NULL, K_COUNT },
	[SRC_HFMA_SM] = { SASS_SM("hfma"), NULL, K_COUNT },
	[SRC_HADD_SM] = { SASS_SM("hadd"), NULL, K_COUNT },
	[SRC_HMUL_SM] = { SASS_SM("hmul"), NULL, K_COUNT },
	[SRC_FFMA_SM] = { SASS_SM("ffma"), NULL, K_COUNT },
	[SRC_FADD_SM] = { SASS_SM("fadd"), NULL, K_COUNT },
	[SRC_FMUL_SM] = { SASS_SM("fmul"), NULL, K_COUNT },
	[SRC_DFMA_SM] = { SASS_SM("dfma"), NULL, K_COUNT },
	[SRC_DADD_SM] = { SASS_SM("dadd"), NULL, K_COUNT },
	[SRC_DMUL_SM] = { SASS_SM("dmul"), NULL, K_COUNT },
	[SRC_FP16] = { SASS("fp16"), NULL, K_COUNT },
	[SRC_FP32] = { SASS("fp32"), NULL, K_COUNT },
	[SRC_FP64] = { SASS("fp64"), NULL, K_COUNT },
	[SRC_INT] = { SASS("integer"), NULL, K_COUNT },
	[SRC_MEM] = { SASS("memory"), NULL, K_COUNT },
	[SRC_FP16_SM] = { SASS_SM("fp16"), NULL, K_COUNT },
	[SRC_FP32_SM] = { SASS_SM("fp32"), NULL, K_COUNT },
	[SRC_FP64_SM] = { SASS_SM("fp64"), NULL, K_COUNT },
	[SRC_INT_SM] = { SASS_SM("integer"), NULL, K_COUNT },
	[SRC_MEM_SM] = { SASS_SM("memory"), NULL, K_COUNT },
	[SRC_INST] = { "smsp__inst_executed.sum", NULL, K_COUNT },
	[SRC_INST_SM] = { "sm__inst_executed.sum", NULL, K_COUNT },
	[SRC_INST_L] = { "Executed Instructions", "Instruction Statistics|InstructionStats",
			 K_COUNT },
	[SRC_TINST] = { "smsp__thread_inst_executed.sum", NULL, K_COUNT },
	[SRC_TINST_SM] = { "sm__thread_inst_executed.sum", NULL, K_COUNT },
	[SRC_WE_AVG] = { "smsp__average_thread_inst_executed_per_inst_executed.ratio", NULL,
			 K_COUNT },
	[SRC_WE_RATIO] = { "smsp__thread_inst_executed_per_inst_executed.ratio", NULL, K_COUNT },
	[SRC_WE_PCT] = { "smsp__thread_inst_executed_per_inst_executed.pct", NULL, K_PCT },
	[SRC_WE_L] = { "Avg. Active Threads Per Warp", "*", K_COUNT },
	[SRC_L1_BYTES] = { "l1tex__t_bytes.sum", NULL, K_BYTES },
	[SRC_L2_BYTES] = { "lts__t_bytes.sum", NULL, K_BYTES },
	/* SM <-> L2 only (what libproj.so collects; inject/metrics-nvpw.c says why). */
	[SRC_L2_SECT_TEX] = { "lts__t_sectors_srcunit_tex.sum", NULL, K_COUNT },
	[SRC_DRAM_BYTES] = { "dram__bytes.sum", NULL, K_BYTES },
	[SRC_DRAM_RD] = { "dram__bytes_read.sum", NULL, K_BYTES },
	[SRC_DRAM_WR] = { "dram__bytes_write.sum", NULL, K_BYTES },
	[SRC_DRAM_OP_RD] = { "dram__bytes_op_read.sum", NULL, K_BYTES },
	[SRC_DRAM_OP_WR] = { "dram__bytes_op_write.sum", NULL, K_BYTES },
	[SRC_SH_WF] = { "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", NULL, K_COUNT },
	[SRC_SH_WF_LD] = { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", NULL, K_COUNT },
	[SRC_SH_WF_ST] = { "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", NULL, K_COUNT },
	[SRC_SH_BC] = { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", NULL, K_COUNT },
	[SRC_SH_BC_LD] = { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", NULL,
			   K_COUNT },
	[SRC_SH_BC_ST] = { "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", NULL,
			   K_COUNT },
	[SRC_SH_BYTES] = { "sm__sass_data_bytes_mem_shared.sum", NULL, K_BYTES },
	[SRC_SH_BYTES_SMSP] = { "smsp__sass_data_bytes_mem_shared.sum", NULL, K_BYTES },
	[SRC_L1_SECT] = { "l1tex__t_sectors.sum", NULL, K_COUNT },
	[SRC_L2_SECT] = { "lts__t_sectors.sum", NULL, K_COUNT },
	[SRC_DRAM_SECT] = { "dram__sectors.sum", NULL, K_COUNT },
	[SRC_DRAM_SECT_RD] = { "dram__sectors_read.sum", NULL, K_COUNT },
	[SRC_DRAM_SECT_WR] = { "dram__sectors_write.sum", NULL, K_COUNT },
	[SRC_OCC] = { "sm__warps_active.avg.pct_of_peak_sustained_active", NULL, K_PCT },
	[SRC_OCC_L] = { "Achieved Occupancy", "Occupancy", K_PCT },
	[SRC_ACTIVE] = { "sm__cycles_active.avg", NULL, K_COUNT },
	[SRC_ACTIVE_L] = { "SM Active Cycles", SOL, K_COUNT },
	[SRC_CLOCK] = { "sm__cycles_elapsed.avg.per_second", NULL, K_FREQ },
	[SRC_CLOCK_L] = { "SM Frequency", SOL, K_FREQ },
	[SRC_REGS] = { "launch__registers_per_thread", NULL, K_COUNT },
	[SRC_REGS_L] = { "Registers Per Thread", LAUNCH, K_COUNT },
	[SRC_SMEM_DYN] = { "launch__shared_mem_per_block_dynamic", NULL, K_BYTES },
	[SRC_SMEM_DYN_L] = { "Dynamic Shared Memory Per Block", LAUNCH, K_BYTES },
	[SRC_SMEM_ST] = { "launch__shared_mem_per_block_static", NULL, K_BYTES },
	[SRC_SMEM_ST_L] = { "Static Shared Memory Per Block", LAUNCH, K_BYTES },
	[SRC_GRID] = { "launch__grid_size", NULL, K_COUNT },
	[SRC_GRID_L] = { "Grid Size", LAUNCH, K_COUNT },
	[SRC_GRID_X] = { "launch__grid_dim_x", NULL, K_COUNT },
	[SRC_GRID_Y] = { "launch__grid_dim_y", NULL, K_COUNT },
	[SRC_GRID_Z] = { "launch__grid_dim_z", NULL, K_COUNT },
	[SRC_BLOCK] = { "launch__block_size", NULL, K_COUNT },
	[SRC_BLOCK_L] = { "Block Size", LAUNCH, K_COUNT },
	[SRC_BLOCK_X] = { "launch__block_dim_x", NULL, K_COUNT },
	[SRC_BLOCK_Y] = { "launch__block_dim_y", NULL, K_COUNT },
	[SRC_BLOCK_Z] = { "launch__block_dim_z", NULL, K_COUNT },
	[SRC_SMS] = { "device__attribute_multiprocessor_count", NULL, K_COUNT },
	[SRC_SMS_L] = { "# SMs", LAUNCH, K_COUNT },
	[SRC_CC_MAJOR] = { "device__attribute_compute_capability_major", NULL, K_COUNT },
	[SRC_CC_MINOR] = { "device__attribute_compute_capability_minor", NULL, K_COUNT },
	[SRC_CYC_SM] = { "sm__cycles_elapsed.avg", NULL, K_COUNT },
	[SRC_CYC_SMSP] = { "smsp__cycles_elapsed.avg", NULL, K_COUNT },
	[SRC_CLOCK_SMSP] = { "smsp__cycles_elapsed.avg.per_second", NULL, K_FREQ },
	/*
	 * The speed-of-light percentages, by metric name and by the labels of
	 * the section's versions (2019.5–2020: "SOL FB", "SOL L2", "SOL L1/TEX
	 * Cache" or "SOL TEX", "SM [%]"; 2021+: "DRAM Throughput", "L2 Cache
	 * Throughput", "L1/TEX Cache Throughput", "Compute (SM) Throughput").
	 */
	[SRC_SOL_DRAM] = { GPUPROJ_SOL_DRAM_PCT, NULL, K_PCT },
	[SRC_SOL_DRAM_OLD] = { "dram__throughput.avg.pct_of_peak_sustained_elapsed", NULL, K_PCT },
	[SRC_SOL_DRAM_L] = { "DRAM Throughput", SOL, K_PCT },
	[SRC_SOL_DRAM_L20] = { "SOL FB", SOL, K_PCT },
	[SRC_SOL_L2] = { GPUPROJ_SOL_L2_PCT, NULL, K_PCT },
	[SRC_SOL_L2_L] = { "L2 Cache Throughput", SOL, K_PCT },
	[SRC_SOL_L2_L20] = { "SOL L2", SOL, K_PCT },
	[SRC_SOL_L1] = { GPUPROJ_SOL_L1_PCT, NULL, K_PCT },
	[SRC_SOL_L1_L] = { "L1/TEX Cache Throughput", SOL, K_PCT },
	[SRC_SOL_L1_L20] = { "SOL L1/TEX Cache", SOL, K_PCT },
	[SRC_SOL_L1_TEX20] = { "SOL TEX", SOL, K_PCT },
	[SRC_SOL_SM] = { GPUPROJ_SOL_SM_PCT, NULL, K_PCT },
	[SRC_SOL_SM_L] = { "Compute (SM) Throughput", SOL, K_PCT },
	[SRC_SOL_SM_L20] = { "SM [%]", SOL, K_PCT },
	/* Memory Workload Analysis "Memory Throughput" is the DRAM byte rate. */
	[SRC_DRAM_BPS] = { "dram__bytes.sum.per_second", NULL, K_BW },
	[SRC_DRAM_BPS_L] = { "Memory Throughput", MWA, K_BW },
};

#define DISPLAY_NAME "device__attribute_display_name"

/* FP instruction sources by [precision][fma, add, mul] and the metrics they feed. */
static const enum src fp_src[3][3] = {
	{ SRC_HFMA, SRC_HADD, SRC_HMUL }, { SRC_FFMA, SRC_FADD, SRC_FMUL },
	{ SRC_DFMA, SRC_DADD, SRC_DMUL },
};
static const enum src fp_src_sm[3][3] = {
	{ SRC_HFMA_SM, SRC_HADD_SM, SRC_HMUL_SM }, { SRC_FFMA_SM, SRC_FADD_SM, SRC_FMUL_SM },
	{ SRC_DFMA_SM, SRC_DADD_SM, SRC_DMUL_SM },
};
static const enum gpuproj_metric fp_metric[3][3] = {
	{ GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL },
	{ GPUPROJ_M_INST_FP32_FMA, GPUPROJ_M_INST_FP32_ADD, GPUPROJ_M_INST_FP32_MUL },
	{ GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL },
};

/* An unmapped value of a launch. */
struct extra {
	size_t name;     /* interned */
	size_t unit;     /* interned, after scaling */
	size_t seq;      /* arrival order, for a stable sort */
	double value;
};

/* One kernel launch (one "ID"), filled row by row, folded in at the end. */
struct launch {
	char *kernel;
	char *id;
	int line;                  /* first row, for messages */
	struct gpuproj_dim3 grid, block;
	bool have_grid, have_block;
	char *device;              /* device name */
	bool device_from_attr;     /* from device__attribute_display_name */
	int cc_major, cc_minor;
	int64_t pid;
	char *process, *host;
	double val[SRC_COUNT];
	bool have[SRC_COUNT], used[SRC_COUNT];
	size_t unit[SRC_COUNT];    /* interned unit of val[] (base unit) */
	int vline[SRC_COUNT], vcol[SRC_COUNT]; /* where val[] was read, for messages */
	struct extra *extras;
	size_t n_extras, cap_extras;
};

/* Interned strings. */
struct names {
	struct import_strmap map;
	char **v;
	size_t n, cap;
};

/* Column indices of the header, -1 when absent. */
struct columns {
	long id, pid, process, host, kernel, block, grid, device, cc;
	long section, mname, munit, mvalue;
};

struct importer {
	const char *path;
	struct gpuproj_error *err;
	struct gpuproj_import_summary sum;
	struct import_strmap source_map;   /* metric name or label → enum src */
	struct names names;
	struct launch **launches;
	size_t n_launches, cap_launches;
	struct import_strmap launch_map;   /* long format: key → index */
	bool raw;
	struct columns col;
	const struct import_csv_row *header, *units;
	size_t *first_unit;                /* per interned extra name: its unit, SIZE_MAX unset */
	size_t *hint;                      /* per interned name: its index in the last
					      kernel's extra array (they line up) */
	bool *warned;                      /* per interned name: a warning was given */
	size_t cap_flags;
	size_t seq;
	struct import_strmap raw_ids;      /* raw layout: "pid\x1fid" → line of the row */
	/* text-valued metrics ("CachePreferNone"): how many names, and the first */
	struct import_strmap text_names;
	size_t n_text;
	char *first_text;
	/* line filter */
	size_t n_prof, n_junk;
	int first_junk;
	bool header_seen, header_quoted;   /* the first header line, and its quoting */
	char *first_msg;                   /* the first ==ERROR== (else ==WARNING==) line */
	int first_msg_line;
	bool first_msg_error;
	int ctrperm_line;                  /* a line naming ERR_NVGPUCTRPERM, or 0 */
	int nvprof_line;                   /* a line of nvprof's ("==1234== NVPROF …"), or 0 */
	int unterminated_line;             /* import_csv.unterminated_line */
	/*
	 * Streaming: rows come one at a time (import_csv_stream_file());
	 * the header and units rows are copies; raw-layout launches, one per row,
	 * are committed to the profile at once and freed, so memory is the
	 * profile's, not the file's. What set_context() needs of them is kept:
	 * the first launch, the first that names its device, and whether
	 * others differ.
	 */
	struct gpuproj_profile *p;
	bool no_dims;
	size_t n_rows_seen;                /* rows handed to the importer, header included */
	struct import_csv_row *header_copy, *units_copy;
	struct launch *ctx_first, *ctx_dev;
	bool several_devices, several_pids;
	size_t n_committed;                /* raw launches committed as they came */
	/* tensor metrics: the expression each was taken from first, and its shape if assumed */
	const char *tensor_expr[GPUPROJ_M_COUNT];
	char tensor_shape[GPUPROJ_M_COUNT][40];
	double tensor_flop[GPUPROJ_M_COUNT];
	bool tensor_mixed[GPUPROJ_M_COUNT];   /* a later launch used another candidate */
};

/* ---- small helpers ---- */

static int
oom(struct importer *im, int line)
{
	return error_set(im->err, GPUPROJ_E_NOMEM, im->path, line, 0, "out of memory");
}

static int
names_intern(struct importer *im, const char *s, size_t *ret)
{
	struct names *n = &im->names;
	size_t i;

	if (import_strmap_get(&n->map, s, ret))
		return GPUPROJ_OK;
	if (n->n == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 256;
		char **nv = realloc(n->v, cap * sizeof(*nv));

		if (!nv)
			return GPUPROJ_E_NOMEM;
		n->v = nv;
		n->cap = cap;
	}
	if (n->n >= im->cap_flags) {
		size_t cap = im->cap_flags ? im->cap_flags * 2 : 256;
		size_t *fu = realloc(im->first_unit, cap * sizeof(*fu)), *h;
		bool *w;

		if (!fu)
			return GPUPROJ_E_NOMEM;
		im->first_unit = fu;
		h = realloc(im->hint, cap * sizeof(*h));
		if (!h)
			return GPUPROJ_E_NOMEM;
		im->hint = h;
		w = realloc(im->warned, cap * sizeof(*w));
		if (!w)
			return GPUPROJ_E_NOMEM;
		im->warned = w;
		for (i = im->cap_flags; i < cap; i++) {
			fu[i] = SIZE_MAX;
			h[i] = 0;
			w[i] = false;
		}
		im->cap_flags = cap;
	}
	n->v[n->n] = strdup(s);
	if (!n->v[n->n])
		return GPUPROJ_E_NOMEM;
	if (import_strmap_put(&n->map, s, n->n)) {
		free(n->v[n->n]);
		return GPUPROJ_E_NOMEM;
	}
	*ret = n->n++;
	return GPUPROJ_OK;
}

/* Warn once per interned name. */
static bool
warn_once(struct importer *im, const char *name)
{
	size_t id;

	if (names_intern(im, name, &id))
		return false;
	if (im->warned[id])
		return false;
	im->warned[id] = true;
	return true;
}

static void
launch_free(struct launch *L)
{
	if (!L)
		return;
	free(L->kernel);
	free(L->id);
	free(L->device);
	free(L->process);
	free(L->host);
	free(L->extras);
	free(L);
}

static bool
is_integer(const char *s, int64_t *ret)
{
	int64_t v;

	if (!parse_int64(s, &v) || v < 0)
		return false;
	if (ret)
		*ret = v;
	return true;
}

/* "9.0" → 9, 0: MAJOR.MINOR, each 0..99, nothing else (blanks around allowed). */
static bool
parse_cc(const char *s, int *major, int *minor)
{
	const char *dot = strchr(s, '.');
	char buf[8];
	int64_t a, b;

	if (!dot || (size_t)(dot - s) >= sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)(dot - s));
	buf[dot - s] = '\0';
	/* The profile's range (gpuproj_profile_validate()): 1.0 to 99.9. */
	if (!parse_int64(buf, &a) || !parse_int64(dot + 1, &b) || a < 1 || a > 99 || b < 0 ||
	    b > 9)
		return false;
	*major = (int)a;
	*minor = (int)b;
	return true;
}

/* Does a row's section belong to a label's list ("a|b", "*" = any)? */
static bool
section_matches(const char *list, const char *section)
{
	size_t n = strlen(section);

	if (strcmp(list, "*") == 0)
		return true;
	while (*list) {
		const char *bar = strchr(list, '|');
		size_t l = bar ? (size_t)(bar - list) : strlen(list);

		if (l == n && strncmp(list, section, n) == 0)
			return true;
		list += l + (bar ? 1 : 0);
	}
	return false;
}

static const char *
kind_expect(enum kind k)
{
	switch (k) {
	case K_TIME: return "a time (nsecond, usecond, msecond, second, ns, us, ms, s)";
	case K_BYTES: return "a size (byte, Kbyte, Mbyte, Gbyte, Tbyte)";
	case K_FREQ:
		return "a frequency (hz, Mhz, Ghz, cycle/nsecond, cycle/usecond, cycle/second)";
	case K_COUNT: return "a count (inst, sector, cycle, warp, … or none)";
	case K_PCT: return "a percentage (%)";
	case K_BW: return "a bandwidth (byte/second, Gbyte/second, …)";
	}
	return "";
}

static bool
kind_accepts(enum kind k, enum import_unit_family f)
{
	switch (k) {
	case K_TIME: return f == IMPORT_UNIT_TIME;
	case K_BYTES: return f == IMPORT_UNIT_BYTES;
	case K_FREQ: return f == IMPORT_UNIT_FREQUENCY;
	case K_COUNT: return f == IMPORT_UNIT_NONE || f == IMPORT_UNIT_COUNT;
	case K_PCT: return f == IMPORT_UNIT_PERCENT || f == IMPORT_UNIT_NONE;
	case K_BW: return f == IMPORT_UNIT_BANDWIDTH;
	}
	return false;
}

/* ---- reading values ---- */

static bool
is_duration_source(size_t s)
{
	return s == SRC_DURATION || s == SRC_DURATION_L;
}

/*
 * The range of a mapped value in its base unit: percentages 0–100 (a
 * rounding overshoot of at most 1 point is clamped with a warning),
 * everything else ≥ 0, and a duration in (0, IMPORT_MAX_DURATION_NS].
 * Refused values are errors at the value's line and column.
 */
static int
check_source_range(struct importer *im, size_t s, const char *name, const char *value,
		   const char *unit, int line, int column, double *v)
{
	if (is_duration_source(s) && !(*v > 0 && *v <= IMPORT_MAX_DURATION_NS))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, column,
				 "%s: %s %s is not a kernel duration (> 0 and at most %.3g s)", name,
				 value, unit, IMPORT_MAX_DURATION_NS / 1e9);
	if (*v < 0)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, column,
				 "%s: negative value %s%s%s", name, value, *unit ? " " : "", unit);
	if (sources[s].kind == K_PCT && *v > 100) {
		if (*v > 101)
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, column,
					 "%s: %s %% is not a percentage (0 to 100)", name, value);
		*v = 100;
		if (warn_once(im, name) &&
		    import_summary_warn(&im->sum, "%s:%d:%d: %s = %s %% is above 100 %%: clamped "
					"to 100 (rounding in the tool's output)", im->path, line,
					column, name, value))
			return oom(im, line);
	}
	return GPUPROJ_OK;
}

/* Where a value and its unit are in the file. */
struct pos {
	const struct import_csv_row *row;   /* the value's row */
	long vcol;                          /* the value's field */
	const struct import_csv_row *urow;  /* the unit's row (raw: the units row) */
	long ucol;                          /* the unit's field, -1 when none */
};

static int
add_extra(struct importer *im, struct launch *L, const char *name, const char *unit,
	  double value)
{
	struct extra *e;
	size_t nid, uid;

	if (names_intern(im, name, &nid) || names_intern(im, unit, &uid))
		return GPUPROJ_E_NOMEM;
	if (L->n_extras == L->cap_extras) {
		size_t cap = L->cap_extras ? L->cap_extras * 2 : 16;

		e = realloc(L->extras, cap * sizeof(*e));
		if (!e)
			return GPUPROJ_E_NOMEM;
		L->extras = e;
		L->cap_extras = cap;
	}
	e = &L->extras[L->n_extras++];
	e->name = nid;
	e->unit = uid;
	e->seq = im->seq++;
	e->value = value;
	return GPUPROJ_OK;
}

/*
 * One metric value of a launch: `name` is a metric name or a label of
 * `section`. Mapped metrics are checked (unit, number) and scaled; others
 * are kept as extras.
 */
static int
ingest(struct importer *im, struct launch *L, const char *name, const char *section,
       const char *unit, const char *value, const struct pos *at)
{
	const int line = at->row->line;
	const int vcolumn = import_csv_column(at->row, (size_t)at->vcol);
	struct import_unit u;
	const char *kept_unit = u.base;
	char *qualified = NULL;
	size_t s;
	double v;
	int r = GPUPROJ_OK;

	if (strcmp(name, DISPLAY_NAME) == 0) {
		/* Preferred over a name in the "Device" column. */
		if (!L->device_from_attr && !import_value_absent(value)) {
			free(L->device);
			L->device = strdup(value);
			if (!L->device)
				return oom(im, line);
			L->device_from_attr = true;
		}
		return GPUPROJ_OK;
	}
	if (import_value_absent(value))
		return GPUPROJ_OK;
	import_unit_parse(unit, &u);
	if (import_strmap_get(&im->source_map, name, &s) &&
	    (!sources[s].section || section_matches(sources[s].section, section))) {
		const struct source *src = &sources[s];
		int ucol = at->ucol >= 0 ? import_csv_column(at->urow, (size_t)at->ucol) : 0;

		if (!kind_accepts(src->kind, u.family))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, at->urow->line, ucol,
					 u.family == IMPORT_UNIT_NONE ? "%s: no unit%s; expected %s"
								       : "%s: unit '%s' is not %s",
					 name, u.family == IMPORT_UNIT_NONE ? "" : unit,
					 kind_expect(src->kind));
		if (!import_parse_scaled(value, u.scale, &v)) {
			double raw;

			if (import_parse_number(value, &raw))
				return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, vcolumn,
						 "%s: %s %s is out of range (not finite in %s)",
						 name, value, unit, u.base);
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, vcolumn,
					 "%s: '%s' is not a number", name, value);
		}
		if ((r = check_source_range(im, s, name, value, unit, line, vcolumn, &v)))
			return r;
		if (L->have[s]) {
			if (v != L->val[s] && warn_once(im, name) &&
			    import_summary_warn(&im->sum, "%s:%d: %s appears twice for launch %s "
						"with different values (%g, %g); kept the first",
						im->path, line, name, L->id, L->val[s], v))
				return oom(im, line);
			return GPUPROJ_OK;
		}
		if (names_intern(im, u.base, &L->unit[s]))
			return oom(im, line);
		L->have[s] = true;
		L->val[s] = v;
		L->vline[s] = line;
		L->vcol[s] = vcolumn;
		return GPUPROJ_OK;
	}

	/* Unmapped. A section label is qualified: labels repeat with other meanings. */
	if (!strstr(name, "__") && *section) {
		qualified = xasprintf("%s: %s", section, name);
		if (!qualified)
			return oom(im, line);
		name = qualified;
	}
	/* Known families in their base unit, so auto-scaled values average right. */
	if (u.family == IMPORT_UNIT_OTHER || u.family == IMPORT_UNIT_NONE) {
		kept_unit = u.family == IMPORT_UNIT_NONE ? "" : unit;
		u.scale = 1.0;
	}
	if (!import_parse_scaled(value, u.scale, &v)) {
		if (import_is_text_label(value)) {
			/* A setting, not a measurement ("CachePreferNone", "all"): counted once. */
			if (!import_strmap_get(&im->text_names, name, NULL)) {
				if (import_strmap_put(&im->text_names, name, 0))
					r = oom(im, line);
				else if (im->n_text++ == 0 &&
					 !(im->first_text = xasprintf("%s = %s", name, value)))
					r = oom(im, line);
			}
		} else if (warn_once(im, name) &&
			   import_summary_warn(&im->sum, "%s:%d: kept no value for \"%s\": '%s' is "
					       "not a number", im->path, line, name, value)) {
			r = oom(im, line);
		}
	} else if (fabs(v) > GPUPROJ_MAX_EXTRA) {
		/* The profile's range for a kept metric (docs/formats/profile.md). */
		if (warn_once(im, name) &&
		    import_summary_warn(&im->sum, "%s:%d: kept no value for \"%s\": '%s' is beyond "
					"±%g", im->path, line, name, value, GPUPROJ_MAX_EXTRA))
			r = oom(im, line);
	} else if (add_extra(im, L, name, kept_unit, v)) {
		r = oom(im, line);
	}
	free(qualified);
	return r;
}

/* ---- launches ---- */

/* Set a launch's identity from its first row. */
static int
launch_identity(struct importer *im, struct launch *L, const struct import_csv_row *row)
{
	const struct columns *c = &im->col;
	const char *f;

	L->line = row->line;
	L->pid = -1;
	L->kernel = strdup(import_csv_field(row, (size_t)c->kernel));
	L->id = strdup(import_csv_field(row, (size_t)c->id));
	if (!L->kernel || !L->id)
		return oom(im, row->line);
	if (!*L->kernel)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
				 import_csv_column(row, (size_t)c->kernel),
				 "empty \"Kernel Name\" for launch %s", L->id);
	/* Empty for ranges (--replay-mode range): fall back to the launch__ metrics. */
	if (c->block >= 0 && *(f = import_csv_field(row, (size_t)c->block))) {
		if (!import_parse_dim3(f, &L->block))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
					 import_csv_column(row, (size_t)c->block),
					 "\"Block Size\" '%s' is not launch dimensions such as "
					 "\"(256, 1, 1)\"", f);
		L->have_block = true;
	}
	if (c->grid >= 0 && *(f = import_csv_field(row, (size_t)c->grid))) {
		if (!import_parse_dim3(f, &L->grid))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
					 import_csv_column(row, (size_t)c->grid),
					 "\"Grid Size\" '%s' is not launch dimensions such as "
					 "\"(1024, 1, 1)\"", f);
		L->have_grid = true;
	}
	if (c->device >= 0) {
		f = import_csv_field(row, (size_t)c->device);
		/* ncu writes the device ordinal here; a name is taken as a name. */
		if (*f && !is_integer(f, NULL) && !(L->device = strdup(f)))
			return oom(im, row->line);
	}
	if (c->cc >= 0) {
		f = import_csv_field(row, (size_t)c->cc);
		if (*f && !parse_cc(f, &L->cc_major, &L->cc_minor))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
					 import_csv_column(row, (size_t)c->cc),
					 "\"CC\" '%s' is not a compute capability such as \"9.0\"",
					 f);
	}
	if (c->pid >= 0)
		is_integer(import_csv_field(row, (size_t)c->pid), &L->pid);
	if (c->process >= 0 && *import_csv_field(row, (size_t)c->process) &&
	    !(L->process = strdup(import_csv_field(row, (size_t)c->process))))
		return oom(im, row->line);
	if (c->host >= 0 && *import_csv_field(row, (size_t)c->host) &&
	    !(L->host = strdup(import_csv_field(row, (size_t)c->host))))
		return oom(im, row->line);
	return GPUPROJ_OK;
}

static int
launch_new(struct importer *im, const struct import_csv_row *row, struct launch **ret)
{
	struct launch *L;
	const char *id = import_csv_field(row, (size_t)im->col.id);
	int r;

	if (!is_integer(id, NULL))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
				 import_csv_column(row, (size_t)im->col.id),
				 "\"ID\" '%s' is not a launch number", id);
	if (im->n_launches == im->cap_launches) {
		size_t cap = im->cap_launches ? im->cap_launches * 2 : 64;
		struct launch **nl = realloc(im->launches, cap * sizeof(*nl));

		if (!nl)
			return oom(im, row->line);
		im->launches = nl;
		im->cap_launches = cap;
	}
	L = calloc(1, sizeof(*L));
	if (!L)
		return oom(im, row->line);
	im->launches[im->n_launches++] = L;
	r = launch_identity(im, L, row);
	if (r)
		return r;
	*ret = L;
	return GPUPROJ_OK;
}

/* ---- resolution: NVIDIA metrics → logical metrics ---- */

static bool
take(struct launch *L, enum src s, double *v)
{
	if (!L->have[s])
		return false;
	L->used[s] = true;
	*v = L->val[s];
	return true;
}

/* a + b, only when both were measured. */
static bool
take2(struct launch *L, enum src a, enum src b, double *v)
{
	if (!L->have[a] || !L->have[b])
		return false;
	L->used[a] = L->used[b] = true;
	*v = L->val[a] + L->val[b];
	return true;
}

/* The first measured source of a list (SRC_COUNT-terminated). */
static bool
take_first(struct launch *L, const enum src *list, double *v)
{
	for (; *list != SRC_COUNT; list++) {
		if (take(L, *list, v))
			return true;
	}
	return false;
}

/* A value that must be a small non-negative integer (registers, bytes per block). */
static bool
as_u32(double v, uint32_t *ret)
{
	double r = nearbyint(v);

	if (!(r >= 0 && r <= (double)UINT32_MAX) || fabs(v - r) > 1e-6 * fmax(1.0, r))
		return false;
	*ret = (uint32_t)r;
	return true;
}

/* Launch dimensions from x/y/z metrics or a total ("Grid Size" = blocks). */
static bool
dims_from_metrics(struct launch *L, enum src x, enum src y, enum src z, enum src total,
		  enum src label, struct gpuproj_dim3 *d)
{
	double v;
	uint32_t u[3] = { 1, 1, 1 };

	if (take(L, x, &v) && as_u32(v, &u[0]) && u[0] > 0) {
		if (take(L, y, &v) && (!as_u32(v, &u[1]) || u[1] == 0))
			return false;
		if (take(L, z, &v) && (!as_u32(v, &u[2]) || u[2] == 0))
			return false;
	} else if (!((take(L, total, &v) || take(L, label, &v)) && as_u32(v, &u[0]) && u[0] > 0)) {
		return false;
	}
	d->x = u[0];
	d->y = u[1];
	d->z = u[2];
	return true;
}

/* The position of the source a logical value came from (the launch's first row if none). */
static void
source_pos(const struct launch *L, int s, int *line, int *col)
{
	*line = s >= 0 && L->vline[s] ? L->vline[s] : L->line;
	*col = s >= 0 && L->vline[s] ? L->vcol[s] : 0;
}

/* The first source of a list that the launch has, or -1. */
static int
first_have(const struct launch *L, const enum src *list)
{
	for (; *list != SRC_COUNT; list++) {
		if (L->have[*list])
			return (int)*list;
	}
	return -1;
}

/*
 * Add one logical value: checked against the metric's documented range
 * (import_metric_check(): a rounding overshoot clamped with a warning,
 * anything else refused at the value's position) and the kernel's sum kept
 * finite. `s` is the source it came from (-1: derived from several).
 */
static int
add_metric(struct importer *im, const struct launch *L, struct gpuproj_kernel *k,
	   enum gpuproj_metric m, double v, int s)
{
	double orig = v;
	int line, col;

	source_pos(L, s, &line, &col);
	switch (import_metric_check(m, &v)) {
	case IMPORT_RANGE_OK:
		break;
	case IMPORT_RANGE_CLAMPED:
		if (warn_once(im, gpuproj_metric_name(m)) &&
		    import_summary_warn(&im->sum, "%s:%d: %s = %.17g is outside its range; clamped "
					"to %g (rounding in the tool's output)", im->path, line,
					gpuproj_metric_name(m), orig, v))
			return oom(im, line);
		break;
	case IMPORT_RANGE_BAD: {
		double lo, hi;
		bool open;

		import_metric_range(m, &lo, &hi, &open);
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, col,
				 "launch %s: %s = %.17g is outside its range (%s %g to %g%s)",
				 L->id, gpuproj_metric_name(m), orig, open ? "above" : "from", lo,
				 hi, m == GPUPROJ_M_CLOCK_SM ? " Hz" : "");
	}
	}
	gpuproj_kernel_add_metric(k, m, v);
	if (!isfinite(k->metric_sum[m]))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, col,
				 "launch %s: %s: the sum over the launches of '%s' is not finite "
				 "(values too large)", L->id, gpuproj_metric_name(m), L->kernel);
	return GPUPROJ_OK;
}

/* Take the first source of `list` that the launch has, and add it as `m` (scaled). */
static int
add_first(struct importer *im, struct launch *L, struct gpuproj_kernel *k,
	  enum gpuproj_metric m, const enum src *list, double scale)
{
	int s = first_have(L, list);
	double v = NAN;

	if (s < 0)
		return GPUPROJ_OK;
	take(L, (enum src)s, &v);
	return add_metric(im, L, k, m, v * scale, s);
}

/* A default-section percentage into extra_metrics under its metric name (model.h). */
static int
add_sol(struct importer *im, struct launch *L, const char *name, const enum src *list)
{
	int s = first_have(L, list);
	double v = NAN;

	if (s < 0)
		return GPUPROJ_OK;
	take(L, (enum src)s, &v);
	return add_extra(im, L, name, "%", v) ? oom(im, L->line) : GPUPROJ_OK;
}

/*
 * The launch's duration, ns, and where it came from: gpu__time_duration.sum
 * (or the section's "Duration"), else elapsed SM cycles / their rate
 * (`sm__cycles_elapsed.avg` with `sm__cycles_elapsed.avg.per_second`, or the
 * `smsp__` pair, which the common roofline recipes collect instead).
 */
static int
launch_duration(struct importer *im, struct launch *L, double *ns, bool *have)
{
	static const enum src dur[] = { SRC_DURATION, SRC_DURATION_L, SRC_COUNT };
	static const enum src pairs[][2] = { { SRC_CYC_SM, SRC_CLOCK }, { SRC_CYC_SMSP, SRC_CLOCK_SMSP } };
	size_t i;

	*have = false;
	if (take_first(L, dur, ns)) {
		*have = true;
		return GPUPROJ_OK;
	}
	for (i = 0; i < ARRAY_LENGTH(pairs); i++) {
		enum src c = pairs[i][0], r = pairs[i][1];

		if (!L->have[c] || !L->have[r])
			continue;
		L->used[c] = true;
		if (!(L->val[r] > 0))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->vline[r], L->vcol[r],
					 "launch %s: %s is 0: no duration from %s", L->id,
					 sources[r].name, sources[c].name);
		*ns = L->val[c] / L->val[r] * 1e9;
		if (!(*ns > 0 && *ns <= IMPORT_MAX_DURATION_NS))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->vline[c], L->vcol[c],
					 "launch %s: %s / %s = %g ns is not a kernel duration",
					 L->id, sources[c].name, sources[r].name, *ns);
		*have = true;
		return GPUPROJ_OK;
	}
	return GPUPROJ_OK;
}

/*
 * The tensor metrics (flop.tensor.*, inst.tensor, tensor.utilization) from
 * the counters of the export, with the candidates libproj.so uses
 * (gpuproj_tensor_candidates(), GPUPROJ_TENSOR_OPS: include/gpuproj/tensor.h,
 * one table of names): the first candidate all of whose terms the launch
 * has wins. The counters are not mapped sources: they arrive as extras and
 * stay there. An instruction count is multiplied by the default FLOP per
 * instruction of the launch's compute capability (unknown: 8.0) and the
 * metric is marked assumed; the NERSC roofline recipe's export
 * [Yang2020], with only sm__inst_executed_pipe_tensor.sum,
 * is that case.
 */
/* One summary line: a launch's tensor metric came from other counters than the first's. */
static int
tensor_differs(struct importer *im, const struct launch *L, enum gpuproj_metric m,
	       const char *expr)
{
	const char *name = gpuproj_metric_name(m);

	if (import_summary_warn(&im->sum, "%s:%d: %s of launch %s comes from %s, not from what "
				"the first launch used (import.tensor.%s)", im->path, L->line, name,
				L->id, expr, name))
		return GPUPROJ_E_NOMEM;
	return GPUPROJ_OK;
}

static int
commit_tensor(struct importer *im, struct launch *L, struct gpuproj_kernel *k)
{
	const struct extra *found[64];
	size_t n_found = 0, i, m;
	bool ops = false;
	int r, major = L->cc_major, minor = L->cc_minor;

	/* The "CC" column, else the device attributes (as set_context()). */
	if (major == 0 && L->have[SRC_CC_MAJOR] && L->val[SRC_CC_MAJOR] >= 1 &&
	    L->val[SRC_CC_MAJOR] <= 99) {
		major = (int)L->val[SRC_CC_MAJOR];
		minor = L->have[SRC_CC_MINOR] ? (int)L->val[SRC_CC_MINOR] : 0;
	}
	/* The launch's tensor counters (a raw page has ~1000 extras: look once). */
	for (i = 0; i < L->n_extras && n_found < ARRAY_LENGTH(found); i++) {
		const char *name = im->names.v[L->extras[i].name];

		if (strncmp(name, "sm__", 4) == 0 &&
		    (strstr(name, "tensor") || strstr(name, "mma"))) {
			found[n_found++] = &L->extras[i];
			ops = ops || strncmp(name, "sm__ops_path_tensor_", 20) == 0;
		}
	}
	for (m = 0; n_found && m < GPUPROJ_M_COUNT; m++) {
		const struct gpuproj_tensor_candidate *c;
		enum gpuproj_metric lm = (enum gpuproj_metric)m;
		size_t nc = gpuproj_tensor_candidates(GPUPROJ_TENSOR_OPS, lm, &c);

		for (i = 0; i < nc; i++) {
			struct gpuproj_tensor_shape shape = { .flop_per_inst = 1 };
			const char *p = c[i].expr;
			double sum = 0;
			bool all = true;

			/*
			 * HMMA counts hold BF16, TF32, FP8 too: with any operation
			 * counter exported they would count its work twice.
			 */
			if (c[i].op == GPUPROJ_TOP_HMMA && ops)
				continue;
			if (c[i].op != GPUPROJ_TOP_NONE &&
			    (gpuproj_tensor_shape_default(major, minor, c[i].op, &shape) ||
			     !(shape.flop_per_inst > 0)))
				continue;
			while (all && *p) {
				size_t len = strcspn(p, "+"), j;
				const char *star = memchr(p, '*', len), *t = star ? star + 1 : p;
				size_t tlen = len - (size_t)(t - p);
				double f = star ? strtod_c(p, NULL) : 1.0;

				all = false;
				for (j = 0; j < n_found && !all; j++) {
					const char *name = im->names.v[found[j]->name];

					if (strlen(name) == tlen && strncmp(name, t, tlen) == 0) {
						sum += f * found[j]->value;
						all = true;
					}
				}
				p += len + (p[len] == '+');
			}
			if (!all)
				continue;
			sum *= c[i].scale * (c[i].op != GPUPROJ_TOP_NONE ? shape.flop_per_inst : 1);
			if ((r = add_metric(im, L, k, lm, sum, -1)))
				return r;
			if (!im->tensor_expr[m]) {
				im->tensor_expr[m] = c[i].expr;
				im->tensor_flop[m] = c[i].scale;
				if (c[i].op != GPUPROJ_TOP_NONE) {
					im->tensor_flop[m] = shape.flop_per_inst;
					snprintf(im->tensor_shape[m], sizeof(im->tensor_shape[m]),
						 "%.20s%s", shape.shape,
						 major ? "" : ", CC unknown: 8.0");
				}
			} else if (!im->tensor_mixed[m] &&
				   (im->tensor_expr[m] != c[i].expr ||
				    im->tensor_flop[m] != c[i].scale * shape.flop_per_inst)) {
				/* The attribute is the first launch's: say when one differs. */
				im->tensor_mixed[m] = true;
				if ((r = tensor_differs(im, L, lm, c[i].expr)))
					return r;
			}
			break;
		}
	}
	return GPUPROJ_OK;
}

/*
 * Profile attributes and one summary line per tensor metric taken from
 * instruction counts: how each tensor metric was obtained
 * ("import.tensor.flop.tensor.fp16" = "EXPR * 4096 (assumed: FLOP per
 * instruction of HMMA.16816)", as libproj.so writes metrics.<CHIP>.*).
 */
static int
tensor_attributes(struct importer *im, struct gpuproj_profile *p)
{
	size_t m;

	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		const char *name = gpuproj_metric_name((enum gpuproj_metric)m);
		char key[96], *v;
		bool assumed = im->tensor_shape[m][0] != '\0';

		if (!im->tensor_expr[m])
			continue;
		snprintf(key, sizeof(key), "import.tensor.%s", name);
		if (assumed)
			v = xasprintf("%s * %g (assumed: FLOP per instruction of %s)",
				      im->tensor_expr[m], im->tensor_flop[m], im->tensor_shape[m]);
		else if (im->tensor_flop[m] != 1)
			v = xasprintf("%s * %g", im->tensor_expr[m], im->tensor_flop[m]);
		else
			v = xasprintf("%s", im->tensor_expr[m]);
		if (!v || gpuproj_profile_set_attr(p, key, v)) {
			free(v);
			return GPUPROJ_E_NOMEM;
		}
		free(v);
		if (assumed &&
		    import_summary_warn(&im->sum, "%s: %s assumed: %s x %g FLOP per instruction "
					"(%s); the counters split by instruction family, not by "
					"shape", im->path, name, im->tensor_expr[m],
					im->tensor_flop[m], im->tensor_shape[m]))
			return GPUPROJ_E_NOMEM;
	}
	return GPUPROJ_OK;
}

static int
commit_metrics(struct importer *im, struct launch *L, struct gpuproj_kernel *k)
{
	static const enum src inst[] = { SRC_INST, SRC_INST_SM, SRC_INST_L, SRC_COUNT };
	static const enum src tinst[] = { SRC_TINST, SRC_TINST_SM, SRC_COUNT };
	static const enum src shb[] = { SRC_SH_BYTES, SRC_SH_BYTES_SMSP, SRC_COUNT };
	static const enum src occ[] = { SRC_OCC, SRC_OCC_L, SRC_COUNT };
	static const enum src act[] = { SRC_ACTIVE, SRC_ACTIVE_L, SRC_COUNT };
	static const enum src clk[] = { SRC_CLOCK, SRC_CLOCK_SMSP, SRC_CLOCK_L, SRC_COUNT };
	static const enum src we_ratio[] = { SRC_WE_AVG, SRC_WE_RATIO, SRC_WE_L, SRC_COUNT };
	static const enum src we_pct[] = { SRC_WE_PCT, SRC_COUNT };
	static const enum src l1b[] = { SRC_L1_BYTES, SRC_COUNT };
	static const enum src l2b[] = { SRC_L2_BYTES, SRC_COUNT };
	static const enum src l2tex[] = { SRC_L2_SECT_TEX, SRC_COUNT };
	static const enum src rd[] = { SRC_DRAM_RD, SRC_DRAM_OP_RD, SRC_COUNT };
	static const enum src wr[] = { SRC_DRAM_WR, SRC_DRAM_OP_WR, SRC_COUNT };
	static const enum src l1s[] = { SRC_L1_SECT, SRC_COUNT };
	static const enum src l2s[] = { SRC_L2_SECT_TEX, SRC_L2_SECT, SRC_COUNT };
	static const enum src sol_dram[] = { SRC_SOL_DRAM, SRC_SOL_DRAM_OLD, SRC_SOL_DRAM_L,
					     SRC_SOL_DRAM_L20, SRC_COUNT };
	static const enum src sol_l2[] = { SRC_SOL_L2, SRC_SOL_L2_L, SRC_SOL_L2_L20, SRC_COUNT };
	static const enum src sol_l1[] = { SRC_SOL_L1, SRC_SOL_L1_L, SRC_SOL_L1_L20,
					   SRC_SOL_L1_TEX20, SRC_COUNT };
	static const enum src sol_sm[] = { SRC_SOL_SM, SRC_SOL_SM_L, SRC_SOL_SM_L20, SRC_COUNT };
	static const enum src bps[] = { SRC_DRAM_BPS, SRC_DRAM_BPS_L, SRC_COUNT };
	static const struct {
		enum src smsp, sm;
		enum gpuproj_metric m;
	} mix[] = {
		{ SRC_FP16, SRC_FP16_SM, GPUPROJ_M_INST_FP16 },
		{ SRC_FP32, SRC_FP32_SM, GPUPROJ_M_INST_FP32 },
		{ SRC_FP64, SRC_FP64_SM, GPUPROJ_M_INST_FP64 },
		{ SRC_INT, SRC_INT_SM, GPUPROJ_M_INST_INT },
		{ SRC_MEM, SRC_MEM_SM, GPUPROJ_M_INST_LDST },
	};
	double v = NAN, ni = NAN, nt = NAN, dur = NAN;
	bool timed;
	size_t i, j;
	int r = GPUPROJ_OK, s;

	if ((r = launch_duration(im, L, &dur, &timed)))
		return r;
	if (timed) {
		int line, col;

		gpuproj_kernel_add_duration(k, dur);
		source_pos(L, first_have(L, (const enum src[]){ SRC_DURATION, SRC_DURATION_L,
								SRC_CYC_SM, SRC_CYC_SMSP, SRC_COUNT }),
			   &line, &col);
		if (!isfinite(k->duration_ns.sum) || !isfinite(k->duration_ns.m2))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, col,
					 "launch %s: the total duration of '%s' is not finite", L->id,
					 L->kernel);
	} else {
		k->launches++;
	}
	k->profiled++;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++) {
			const enum src list[] = { fp_src[i][j], fp_src_sm[i][j], SRC_COUNT };

			if ((r = add_first(im, L, k, fp_metric[i][j], list, 1.0)))
				return r;
		}
	}
	for (i = 0; i < ARRAY_LENGTH(mix); i++) {
		const enum src list[] = { mix[i].smsp, mix[i].sm, SRC_COUNT };

		if ((r = add_first(im, L, k, mix[i].m, list, 1.0)))
			return r;
	}
	if ((s = first_have(L, inst)) >= 0) {
		take(L, (enum src)s, &ni);
		if ((r = add_metric(im, L, k, GPUPROJ_M_INST_WARP, ni, s)))
			return r;
	}
	if ((s = first_have(L, tinst)) >= 0) {
		take(L, (enum src)s, &nt);
		if ((r = add_metric(im, L, k, GPUPROJ_M_INST_THREAD, nt, s)))
			return r;
	}
	/* Warp efficiency: active threads per warp instruction / 32. */
	if (first_have(L, we_ratio) >= 0)
		r = add_first(im, L, k, GPUPROJ_M_WARP_EFFICIENCY, we_ratio, 1.0 / WARP_SIZE);
	else if (first_have(L, we_pct) >= 0)
		r = add_first(im, L, k, GPUPROJ_M_WARP_EFFICIENCY, we_pct, 1.0 / 100.0);
	else if (isfinite(ni) && isfinite(nt) && ni > 0)
		r = add_metric(im, L, k, GPUPROJ_M_WARP_EFFICIENCY, nt / (WARP_SIZE * ni),
			       first_have(L, tinst));
	if (r)
		return r;

	/* L2 bytes: the SMs' sectors x 32 B where exported (libproj.so's choice), else all. */
	if ((r = add_first(im, L, k, GPUPROJ_M_BYTES_L1, l1b, 1.0)) ||
	    (r = first_have(L, l2tex) >= 0 ? add_first(im, L, k, GPUPROJ_M_BYTES_L2, l2tex, 32.0)
					   : add_first(im, L, k, GPUPROJ_M_BYTES_L2, l2b, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_BYTES_DRAM_READ, rd, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_BYTES_DRAM_WRITE, wr, 1.0)))
		return r;
	if (take(L, SRC_DRAM_BYTES, &v) || take2(L, SRC_DRAM_RD, SRC_DRAM_WR, &v) ||
	    take2(L, SRC_DRAM_OP_RD, SRC_DRAM_OP_WR, &v)) {
		r = add_metric(im, L, k, GPUPROJ_M_BYTES_DRAM, v,
			       L->have[SRC_DRAM_BYTES] ? SRC_DRAM_BYTES : -1);
	} else if ((s = first_have(L, bps)) >= 0 && timed) {
		/* Memory Workload Analysis: DRAM bytes = their rate × the duration. */
		take(L, (enum src)s, &v);
		r = add_metric(im, L, k, GPUPROJ_M_BYTES_DRAM, v * dur * 1e-9, s);
	}
	if (r)
		return r;
	if (take(L, SRC_SH_WF, &v) || take2(L, SRC_SH_WF_LD, SRC_SH_WF_ST, &v))
		r = add_metric(im, L, k, GPUPROJ_M_SHARED_WAVEFRONTS, v,
			       L->have[SRC_SH_WF] ? SRC_SH_WF : -1);
	if (!r && (take(L, SRC_SH_BC, &v) || take2(L, SRC_SH_BC_LD, SRC_SH_BC_ST, &v)))
		r = add_metric(im, L, k, GPUPROJ_M_SHARED_BANK_CONFLICTS, v,
			       L->have[SRC_SH_BC] ? SRC_SH_BC : -1);
	if (r)
		return r;
	if ((r = add_first(im, L, k, GPUPROJ_M_SHARED_BYTES, shb, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_SECTORS_L1, l1s, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_SECTORS_L2, l2s, 1.0)))
		return r;
	if (take(L, SRC_DRAM_SECT, &v) || take2(L, SRC_DRAM_SECT_RD, SRC_DRAM_SECT_WR, &v))
		r = add_metric(im, L, k, GPUPROJ_M_SECTORS_DRAM, v,
			       L->have[SRC_DRAM_SECT] ? SRC_DRAM_SECT : -1);
	if (r || (r = add_first(im, L, k, GPUPROJ_M_OCCUPANCY_ACHIEVED, occ, 0.01)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_CYCLES_SM_ACTIVE, act, 1.0)) ||
	    (r = add_first(im, L, k, GPUPROJ_M_CLOCK_SM, clk, 1.0)))
		return r;
	/* The default sections' percentages, for the sol model. */
	if ((r = add_sol(im, L, GPUPROJ_SOL_DRAM_PCT, sol_dram)) ||
	    (r = add_sol(im, L, GPUPROJ_SOL_L2_PCT, sol_l2)) ||
	    (r = add_sol(im, L, GPUPROJ_SOL_L1_PCT, sol_l1)) ||
	    (r = add_sol(im, L, GPUPROJ_SOL_SM_PCT, sol_sm)))
		return r;
	return commit_tensor(im, L, k);
}

/*
 * gpuproj_kernel_add_extra() searches the kernel's extras linearly; with
 * the ~1000 metrics of a raw page that is quadratic per launch. Every
 * kernel gets its extras in the same order, so the index a name had last
 * time is almost always right: try it first, update in place like
 * gpuproj_kernel_add_extra() does.
 */
static int
add_extra_hinted(struct gpuproj_kernel *k, const char *name, const char *unit, double value,
		 size_t *hint)
{
	size_t i, n = k->n_extra;

	if (*hint < n && strcmp(k->extra[*hint].name, name) == 0) {
		k->extra[*hint].sum += value;
		k->extra[*hint].n++;
		return GPUPROJ_OK;
	}
	if (gpuproj_kernel_add_extra(k, name, unit, value))
		return GPUPROJ_E_NOMEM;
	if (k->n_extra > n) {
		*hint = n;
		return GPUPROJ_OK;
	}
	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, name) == 0) {
			*hint = i;
			break;
		}
	}
	return GPUPROJ_OK;
}

static int
extra_cmp(const void *a, const void *b)
{
	const struct extra *x = a, *y = b;

	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Unused mapped values and the launch's extras into the kernel's extra_metrics. */
static int
commit_extras(struct importer *im, struct launch *L, struct gpuproj_kernel *k)
{
	size_t i;

	for (i = 0; i < SRC_COUNT; i++) {
		const struct source *s = &sources[i];
		char *name;
		int r;

		if (!L->have[i] || L->used[i])
			continue;
		if (!s->section) {
			r = add_extra(im, L, s->name, im->names.v[L->unit[i]], L->val[i]);
		} else {
			/* The label's canonical section: the first of its list. */
			size_t l = strcspn(s->section, "|");

			name = xasprintf("%.*s: %s", (int)l, s->section, s->name);
			if (!name)
				return GPUPROJ_E_NOMEM;
			r = add_extra(im, L, name, im->names.v[L->unit[i]], L->val[i]);
			free(name);
		}
		if (r)
			return r;
	}
	if (L->n_extras > 1)
		qsort(L->extras, L->n_extras, sizeof(*L->extras), extra_cmp);
	for (i = 0; i < L->n_extras; i++) {
		const struct extra *e = &L->extras[i], *prev = i > 0 ? e - 1 : NULL;
		const char *name = im->names.v[e->name];
		size_t first = im->first_unit[e->name];

		if (i > 0 && e->name == prev->name) {
			/* The same metric twice in one launch (two sections list it). */
			if ((e->value != prev->value || e->unit != prev->unit) &&
			    !im->warned[e->name]) {
				im->warned[e->name] = true;
				if (import_summary_warn(&im->sum, "%s:%d: %s appears twice for "
							"launch %s with different values; kept "
							"the first", im->path, L->line, name,
							L->id))
					return GPUPROJ_E_NOMEM;
			}
			continue;
		}
		if (first == SIZE_MAX) {
			im->first_unit[e->name] = e->unit;
		} else if (first != e->unit) {
			const char *had = im->names.v[first];

			if (!im->warned[e->name]) {
				im->warned[e->name] = true;
				if (import_summary_warn(&im->sum, "%s:%d: %s is in '%s' here but "
							"in '%s' before; kept only the values "
							"in '%s'", im->path, L->line, name,
							im->names.v[e->unit], had, had))
					return GPUPROJ_E_NOMEM;
			}
			continue;
		}
		if (add_extra_hinted(k, name, im->names.v[e->unit], e->value, &im->hint[e->name]))
			return GPUPROJ_E_NOMEM;
		if (!isfinite(k->extra[im->hint[e->name]].sum))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->line, 0,
					 "launch %s: %s: the sum over the launches of '%s' is not "
					 "finite (values too large)", L->id, name, L->kernel);
	}
	return GPUPROJ_OK;
}

/* Fold one launch into the profile. */
static int
commit(struct importer *im, struct gpuproj_profile *p, struct launch *L, bool *no_dims)
{
	struct gpuproj_signature sig = { 0 };
	struct gpuproj_kernel *k;
	uint32_t smem_dyn = 0, smem_st = 0, regs = 0;
	double v;
	int r;

	if (!L->have_grid)
		L->have_grid = dims_from_metrics(L, SRC_GRID_X, SRC_GRID_Y, SRC_GRID_Z, SRC_GRID,
						 SRC_GRID_L, &L->grid);
	if (!L->have_block)
		L->have_block = dims_from_metrics(L, SRC_BLOCK_X, SRC_BLOCK_Y, SRC_BLOCK_Z,
						  SRC_BLOCK, SRC_BLOCK_L, &L->block);
	if (!L->have_grid || !L->have_block) {
		/*
		 * Placeholders, marked by the signature's tag so that no model
		 * reads them as a launch of one thread (model.h: the occupancy
		 * models report the geometry missing).
		 */
		*no_dims = true;
		L->grid = (struct gpuproj_dim3){ 1, 1, 1 };
		L->block = (struct gpuproj_dim3){ 1, 1, 1 };
	}
	if ((take(L, SRC_SMEM_DYN, &v) || take(L, SRC_SMEM_DYN_L, &v)) && !as_u32(v, &smem_dyn))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->line, 0,
				 "launch %s: dynamic shared memory %g B is not a byte count", L->id,
				 v);
	if ((take(L, SRC_SMEM_ST, &v) || take(L, SRC_SMEM_ST_L, &v)) && !as_u32(v, &smem_st))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->line, 0,
				 "launch %s: static shared memory %g B is not a byte count", L->id,
				 v);
	if ((take(L, SRC_REGS, &v) || take(L, SRC_REGS_L, &v)) && (!as_u32(v, &regs) ||
								   regs > 65536))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, L->line, 0,
				 "launch %s: %g registers per thread is not a register count",
				 L->id, v);

	sig.name = L->kernel;
	sig.tag = L->have_grid && L->have_block ? "" : GPUPROJ_TAG_NO_GEOMETRY;
	sig.grid = L->grid;
	sig.block = L->block;
	sig.smem_dynamic = smem_dyn;
	sig.device = 0;
	if (gpuproj_profile_kernel(p, &sig, &k))
		return oom(im, L->line);
	/* A demangled name ("void f<float>(int, float*)"): also the display name. */
	if (!k->demangled && strchr(L->kernel, '(') && !str_startswith(L->kernel, "_Z") &&
	    profile_kernel_set_demangled(k, L->kernel))
		return oom(im, L->line);
	if (smem_st)
		k->smem_static = smem_st;
	if (regs)
		k->regs_per_thread = regs;
	/* Device attributes are not kernel metrics: mark them used. */
	L->used[SRC_SMS] = L->used[SRC_SMS_L] = true;
	L->used[SRC_CC_MAJOR] = L->used[SRC_CC_MINOR] = true;
	if ((r = commit_metrics(im, L, k)) || (r = commit_extras(im, L, k)))
		return r == GPUPROJ_E_NOMEM ? oom(im, L->line) : r;
	return GPUPROJ_OK;
}

/* The profile's device and process: from the first launch that names them. */
static int
set_context(struct importer *im, struct gpuproj_profile *p)
{
	const struct launch *dev = im->ctx_dev, *first = im->ctx_first;
	int cc_major = 0, cc_minor = 0, sms = 0;
	size_t i;
	bool several = im->several_devices, several_pids = im->several_pids;

	/* Launches still held (the long layout): the first ones, and what differs. */
	if (!first && im->n_launches)
		first = im->launches[0];
	for (i = 0; i < im->n_launches; i++) {
		const struct launch *L = im->launches[i];

		if (L->pid != first->pid)
			several_pids = true;
		if (!L->device)
			continue;
		if (!dev)
			dev = L;
		else if (strcmp(dev->device, L->device) != 0)
			several = true;
	}
	if (several && import_summary_warn(&im->sum, "%s: launches from several GPUs; the "
					   "profile describes the first, %s", im->path,
					   dev->device))
		return oom(im, 0);
	if (!dev)
		dev = first;
	cc_major = dev->cc_major;
	cc_minor = dev->cc_minor;
	if (cc_major == 0 && dev->have[SRC_CC_MAJOR] && dev->val[SRC_CC_MAJOR] >= 1 &&
	    dev->val[SRC_CC_MAJOR] < 100) {
		cc_major = (int)dev->val[SRC_CC_MAJOR];
		if (dev->have[SRC_CC_MINOR] && dev->val[SRC_CC_MINOR] >= 0 &&
		    dev->val[SRC_CC_MINOR] < 10)
			cc_minor = (int)dev->val[SRC_CC_MINOR];
	}
	/* A count no GPU has (a shifted column) is left unknown, and said so. */
	if (dev->have[SRC_SMS] && dev->val[SRC_SMS] >= 1 && dev->val[SRC_SMS] <= GPUPROJ_MAX_SMS)
		sms = (int)dev->val[SRC_SMS];
	else if (dev->have[SRC_SMS_L] && dev->val[SRC_SMS_L] >= 1 &&
		 dev->val[SRC_SMS_L] <= GPUPROJ_MAX_SMS)
		sms = (int)dev->val[SRC_SMS_L]; /* Launch Statistics "# SMs" */
	else if ((dev->have[SRC_SMS] || dev->have[SRC_SMS_L]) &&
		 import_summary_warn(&im->sum, "%s: SM count %.17g is not a GPU's (1 to %d); "
				     "left unknown", im->path,
				     dev->have[SRC_SMS] ? dev->val[SRC_SMS] : dev->val[SRC_SMS_L],
				     GPUPROJ_MAX_SMS))
		return oom(im, 0);
	if (gpuproj_profile_set_device(p, dev->device, NULL, NULL, cc_major, cc_minor, sms, NAN) ||
	    gpuproj_profile_set_process(p, first->process, first->host, first->pid, -1, NULL))
		return oom(im, 0);
	if (several_pids && import_summary_warn(&im->sum, "%s: launches from several processes; "
						"the profile names the first, pid %" PRId64,
						im->path, first->pid))
		return oom(im, 0);
	return GPUPROJ_OK;
}

/* ---- header and rows ---- */

/* Does the line start with `word` followed by a field separator (quoted or not)? */
static bool
starts_with_field(const char *line, size_t len, const char *word)
{
	size_t n = strlen(word);

	if (len > n + 2 && line[0] == '"' && strncmp(line + 1, word, n) == 0 && line[n + 1] == '"')
		return line[n + 2] == ',';
	return len > n && strncmp(line, word, n) == 0 && line[n] == ',';
}

/* Keep a copy of a message line (at most 400 bytes). */
static void
keep_message(struct importer *im, const char *line, size_t len, int lineno, bool error)
{
	if (im->first_msg && (im->first_msg_error || !error))
		return;
	free(im->first_msg);
	im->first_msg = strndup(line, len > 400 ? 400 : len);
	im->first_msg_line = lineno;
	im->first_msg_error = error;
}

/*
 * The line filter (import_csv_options.skip_line). Dropped:
 * - ncu's own messages ("==PROF==", "==WARNING==", "==ERROR==": the first
 *   error or warning is kept for the message when no data follows, and
 *   ERR_NVGPUCTRPERM is noted wherever it appears);
 * - nvprof's ("==1234== …", "======== …"): noted, so that the error can
 *   point to `gpuproj import nvprof`;
 * - before the header, every line that is not the header (the
 *   application's output on the same stdout);
 * - after a quoted header, lines that do not start with a quote: ncu quotes
 *   every field, so these are the application's output between the results
 *   of several processes. A file saved again by another tool (a
 *   spreadsheet, pandas) has an unquoted header; then every line is data.
 */
static bool
skip_line(void *userdata, const char *line, size_t len, int lineno)
{
	struct importer *im = userdata;
	size_t i = 2;

	if (len >= 4 && line[0] == '=' && line[1] == '=') {
		if (memmem(line, len, "ERR_NVGPUCTRPERM", 16) && !im->ctrperm_line)
			im->ctrperm_line = lineno;
		while (i < len && isupper((unsigned char)line[i]))
			i++;
		if (i > 2 && i + 1 < len && line[i] == '=' && line[i + 1] == '=') {
			im->n_prof++;
			if (strncmp(line, "==ERROR==", 9) == 0)
				keep_message(im, line, len, lineno, true);
			else if (strncmp(line, "==WARNING==", 11) == 0)
				keep_message(im, line, len, lineno, false);
			return true;
		}
		/* nvprof: "==<pid>== " or "======== ". */
		for (i = 2; i < len && (isdigit((unsigned char)line[i]) || line[i] == '='); i++)
			;
		if (i > 2 && i < len && line[i] == ' ' && line[i - 1] == '=' && line[i - 2] == '=') {
			if (!im->nvprof_line)
				im->nvprof_line = lineno;
			return true;
		}
	}
	if (!im->header_seen) {
		if (starts_with_field(line, len, "ID")) {
			im->header_seen = true;
			im->header_quoted = line[0] == '"';
			return false;
		}
		/* nvprof's CSV headers. */
		if (starts_with_field(line, len, "Device") || starts_with_field(line, len, "Start") ||
		    starts_with_field(line, len, "Type")) {
			if (!im->nvprof_line)
				im->nvprof_line = lineno;
		}
		/* Another header (--print-summary, another tool's): for its message. */
		if (line[0] == '"')
			return false;
	} else if (line[0] == '"' || !im->header_quoted) {
		return false;
	}
	if (im->n_junk++ == 0)
		im->first_junk = lineno;
	return true;
}

static int
setup_header(struct importer *im, const struct import_csv_row *h)
{
	struct columns *c = &im->col;
	const char *missing = NULL;

	c->id = import_csv_find(h, "ID");
	c->pid = import_csv_find(h, "Process ID");
	c->process = import_csv_find(h, "Process Name");
	c->host = import_csv_find(h, "Host Name");
	c->kernel = import_csv_find(h, "Kernel Name");
	c->block = import_csv_find(h, "Block Size");
	c->grid = import_csv_find(h, "Grid Size");
	c->device = import_csv_find(h, "Device");
	c->cc = import_csv_find(h, "CC");
	c->section = import_csv_find(h, "Section Name");
	c->mname = import_csv_find(h, "Metric Name");
	c->munit = import_csv_find(h, "Metric Unit");
	c->mvalue = import_csv_find(h, "Metric Value");
	if (c->id < 0 && c->kernel < 0)
		missing = "\"ID\" and \"Kernel Name\" columns";
	else if (c->id < 0)
		missing = "\"ID\" column";
	else if (c->kernel < 0)
		missing = "\"Kernel Name\" column";
	if (import_csv_find(h, "Invocations") >= 0 && c->kernel >= 0)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, h->line, 1,
				 "a per-kernel summary (ncu --print-summary): export every launch "
				 "instead (ncu --csv without --print-summary)");
	if (missing)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, h->line, 1,
				 "not an Nsight Compute CSV header: no %s (ncu --csv writes "
				 "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\","
				 "\"Kernel Name\",…)", missing);
	im->raw = c->mname < 0;
	if (!im->raw && c->mvalue < 0)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, h->line, 1,
				 "Nsight Compute CSV header with \"Metric Name\" but no \"Metric "
				 "Value\" column");
	im->header = h;
	im->units = NULL;
	/* A column twice: the first is read; say so, the second may differ. */
	{
		size_t i = 0, j = 0;

		while (import_csv_next_duplicate(h, &i, &j)) {
			if (import_summary_warn(&im->sum, "%s:%d:%d: column \"%s\" appears twice "
						"(fields %zu and %zu)%s", im->path, h->line,
						import_csv_column(h, j - 1), h->fields[j - 1], i + 1,
						j, im->raw && strstr(h->fields[i], "__")
						? "; a launch whose two values differ is reported"
						: "; the first is read"))
				return oom(im, h->line);
		}
	}
	return GPUPROJ_OK;
}

/*
 * A row must reach the last column gpuproj reads: the header's last for the
 * raw layout, "Metric Value" for the long one (ncu 2023+ writes the rule
 * columns after it only on rule rows, and ends metric rows with an empty
 * field). Fields beyond the header must be empty (a trailing comma).
 */
static int
check_row_length(struct importer *im, const struct import_csv_row *row)
{
	const struct import_csv_row *h = im->header;
	size_t need = im->raw ? h->n : (size_t)im->col.mvalue + 1, i;

	if (row->n < need) {
		if (row->line == im->unterminated_line)
			return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line,
					 import_csv_column(row, row->n), "the file ends inside this "
					 "row (%zu of %zu fields): it was cut while it was written",
					 row->n, need);
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line,
				 import_csv_column(row, row->n), "the row ends after %zu field%s, but "
				 "the header (line %d) has %zu: a truncated or damaged row",
				 row->n, row->n == 1 ? "" : "s", h->line, h->n);
	}
	for (i = h->n; i < row->n; i++) {
		if (*row->fields[i])
			return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line,
					 import_csv_column(row, i), "%zu fields, but the header "
					 "(line %d) has %zu", row->n, h->line, h->n);
	}
	return GPUPROJ_OK;
}

/* Is this row a repeat of a header (files of several runs appended)? */
static bool
is_header_row(const struct importer *im, const struct import_csv_row *r)
{
	return strcmp(import_csv_field(r, (size_t)im->col.id), "ID") == 0;
}

static int
long_row(struct importer *im, const struct import_csv_row *row)
{
	const struct columns *c = &im->col;
	struct launch *L;
	struct strbuf key;
	struct pos at;
	size_t idx;
	const char *name;
	int r;

	if ((r = check_row_length(im, row)))
		return r;
	strbuf_init(&key);
	strbuf_printf(&key, "%s\x1f%s\x1f%s", import_csv_field(row, (size_t)c->pid),
		      import_csv_field(row, (size_t)c->id),
		      import_csv_field(row, (size_t)c->kernel));
	if (key.oom) {
		strbuf_free(&key);
		return oom(im, row->line);
	}
	if (import_strmap_get(&im->launch_map, key.buf, &idx)) {
		L = im->launches[idx];
	} else {
		r = launch_new(im, row, &L);

		if (!r && import_strmap_put(&im->launch_map, key.buf, im->n_launches - 1))
			r = oom(im, row->line);
		if (r) {
			strbuf_free(&key);
			return r;
		}
	}
	strbuf_free(&key);
	name = import_csv_field(row, (size_t)c->mname);
	if (!*name)
		return GPUPROJ_OK; /* a rule result ("Rule Name", "Rule Description") */
	at.row = row;
	at.vcol = c->mvalue;
	at.urow = row;
	at.ucol = c->munit;
	return ingest(im, L, name, c->section >= 0 ? import_csv_field(row, (size_t)c->section) : "",
		      c->munit >= 0 ? import_csv_field(row, (size_t)c->munit) : "",
		      import_csv_field(row, (size_t)c->mvalue), &at);
}

static int
raw_row(struct importer *im, const struct import_csv_row *row)
{
	const struct import_csv_row *h = im->header;
	struct launch *L;
	struct strbuf key;
	size_t i, first;
	int r;

	if ((r = check_row_length(im, row)))
		return r;
	/*
	 * One row per launch: a launch ID of a process seen before is the same
	 * export appended twice (or a damaged file), not another launch.
	 */
	strbuf_init(&key);
	strbuf_printf(&key, "%s\x1f%s",
		      im->col.pid >= 0 ? import_csv_field(row, (size_t)im->col.pid) : "",
		      import_csv_field(row, (size_t)im->col.id));
	if (key.oom) {
		strbuf_free(&key);
		return oom(im, row->line);
	}
	if (import_strmap_get(&im->raw_ids, key.buf, &first)) {
		strbuf_free(&key);
		im->sum.rows--;
		if (import_summary_warn(&im->sum, "%s:%d: launch ID %s%s%s is already on line %zu; "
					"row skipped, not counted twice (the same export appended "
					"twice?)", im->path, row->line,
					import_csv_field(row, (size_t)im->col.id),
					im->col.pid >= 0 ? " of process " : "",
					im->col.pid >= 0 ? import_csv_field(row, (size_t)im->col.pid)
							 : "", first))
			return oom(im, row->line);
		return GPUPROJ_OK;
	}
	r = import_strmap_put(&im->raw_ids, key.buf, (size_t)row->line);
	strbuf_free(&key);
	if (r)
		return oom(im, row->line);
	if ((r = launch_new(im, row, &L)))
		return r;
	for (i = 0; i < h->n; i++) {
		struct pos at = { row, (long)i, im->units, (long)i };

		if (!strstr(h->fields[i], "__"))
			continue; /* identity or NVTX column */
		r = ingest(im, L, h->fields[i], "", import_csv_field(im->units, i),
			   import_csv_field(row, i), &at);
		if (r)
			return r;
	}
	return GPUPROJ_OK;
}

static int commit(struct importer *im, struct gpuproj_profile *p, struct launch *L, bool *no_dims);

/* Remember what set_context() needs of a launch about to be freed (or kept). */
static void
note_context(struct importer *im, struct launch *L, bool *keep)
{
	*keep = false;
	if (!im->ctx_first) {
		im->ctx_first = L;
		*keep = true;
	} else if (L->pid != im->ctx_first->pid) {
		im->several_pids = true;
	}
	if (L->device) {
		if (!im->ctx_dev) {
			im->ctx_dev = L;
			*keep = true;
		} else if (strcmp(im->ctx_dev->device, L->device) != 0) {
			im->several_devices = true;
		}
	}
}

/*
 * A raw-layout launch is complete with its row: commit it now and free it
 * (unless set_context() still needs it), so no launch waits in memory.
 */
static int
commit_raw_launch(struct importer *im)
{
	struct launch *L = im->launches[im->n_launches - 1];
	bool keep;
	int r;

	note_context(im, L, &keep);
	r = commit(im, im->p, L, &im->no_dims);
	if (r)
		return r;
	im->n_committed++;
	im->n_launches--;
	if (!keep)
		launch_free(L);
	return GPUPROJ_OK;
}

static int
on_row(void *userdata, const struct import_csv_row *row, const struct import_csv *info)
{
	struct importer *im = userdata;
	size_t before;
	int r;

	im->unterminated_line = info->unterminated_line;
	if (im->n_rows_seen++ == 0) {
		/* As when the file was read whole: an nvprof export is said before its header. */
		if (im->nvprof_line && !im->header_seen)
			return error_set(im->err, GPUPROJ_E_PARSE, im->path, im->nvprof_line, 0,
					 "an nvprof export, not Nsight Compute's: import it with "
					 "`gpuproj import nvprof %s -o OUT.json`", im->path);
		goto header;
	}
	if (is_header_row(im, row))
		goto header;
	if (im->raw && !im->units) {
		if (*import_csv_field(row, (size_t)im->col.id))
			return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line, 1,
					 "expected the units row under the header "
					 "(\"\",\"\",…,\"nsecond\",…), which ncu "
					 "--page raw writes");
		import_csv_row_free(im->units_copy);
		if (!(im->units_copy = import_csv_row_copy(row)))
			return oom(im, row->line);
		im->units = im->units_copy;
		return GPUPROJ_OK;
	}
	im->sum.rows++;
	before = im->n_launches;
	r = im->raw ? raw_row(im, row) : long_row(im, row);
	if (!r && im->raw && im->n_launches > before)
		r = commit_raw_launch(im);
	return r;
header:
	{
		struct import_csv_row *copy = import_csv_row_copy(row);

		if (!copy)
			return oom(im, row->line);
		r = setup_header(im, copy);
		/* The header in use stays; a refused one goes. */
		if (im->header == copy) {
			import_csv_row_free(im->header_copy);
			im->header_copy = copy;
		} else {
			import_csv_row_free(copy);
		}
		return r;
	}
}

/* After the last row: a file without any launch row. */
static int
check_rows(struct importer *im)
{
	if (im->sum.rows == 0)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path,
				 (im->units ? im->units : im->header)->line, 0,
				 "no kernel launches: the file ends after the %s%s%s",
				 im->raw ? "header and units rows" : "header",
				 im->first_msg ? "; ncu said: " : "",
				 im->first_msg ? im->first_msg : "");
	return GPUPROJ_OK;
}

static int
build_source_map(struct importer *im)
{
	size_t i;

	for (i = 0; i < SRC_COUNT; i++) {
		if (import_strmap_put(&im->source_map, sources[i].name, i))
			return oom(im, 0);
	}
	return GPUPROJ_OK;
}

static void
importer_clear(struct importer *im)
{
	size_t i;

	for (i = 0; i < im->n_launches; i++)
		launch_free(im->launches[i]);
	free(im->launches);
	/* Kept for set_context() after their commit (never in launches[] then). */
	if (im->ctx_dev && im->ctx_dev != im->ctx_first)
		launch_free(im->ctx_dev);
	launch_free(im->ctx_first);
	import_csv_row_free(im->header_copy);
	import_csv_row_free(im->units_copy);
	gpuproj_profile_free(im->p);
	import_strmap_clear(&im->launch_map);
	import_strmap_clear(&im->source_map);
	for (i = 0; i < im->names.n; i++)
		free(im->names.v[i]);
	free(im->names.v);
	import_strmap_clear(&im->names.map);
	free(im->first_unit);
	free(im->hint);
	free(im->warned);
	import_strmap_clear(&im->raw_ids);
	import_strmap_clear(&im->text_names);
	free(im->first_text);
	free(im->first_msg);
	gpuproj_import_summary_clear(&im->sum);
}

/*
 * Launches without a launch geometry fold by kernel name: say how many,
 * what that means, and how to collect the geometry.
 */
static int
warn_no_geometry(struct importer *im, const struct gpuproj_profile *p)
{
	const struct gpuproj_kernel *widest = NULL;
	uint64_t launches = 0;
	size_t i, kernels = 0;
	char spread[320] = "";

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (gpuproj_kernel_geometry_known(k))
			continue;
		kernels++;
		launches += k->launches;
		if (k->duration_ns.n > 1 && k->duration_ns.min > 0 &&
		    (!widest || k->duration_ns.max / k->duration_ns.min >
				widest->duration_ns.max / widest->duration_ns.min))
			widest = k;
	}
	/* Launches of very different lengths averaged together: show the widest. */
	if (widest && widest->duration_ns.max > 1.5 * widest->duration_ns.min)
		snprintf(spread, sizeof(spread), " (their times averaged: %.60s from %.4g us to "
			 "%.4g us)", widest->name, widest->duration_ns.min / 1e3,
			 widest->duration_ns.max / 1e3);
	if (import_summary_warn(&im->sum, "%s: %" PRIu64 " launch%s of %zu kernel%s without a "
				"launch geometry (no \"Grid Size\"/\"Block Size\" columns, no "
				"LaunchStats section, no launch__grid_size/launch__block_size "
				"or launch__grid_dim_*/launch__block_dim_*): each kernel's launches "
				"fold into one record tagged \"%s\"%s, and the models that need "
				"the geometry (hroof-occ, occupancy) cannot project it; collect it "
				"with --section LaunchStats or `gpuproj ncu-metrics`", im->path,
				launches, launches == 1 ? "" : "es", kernels, kernels == 1 ? "" : "s",
				GPUPROJ_TAG_NO_GEOMETRY, spread))
		return oom(im, 0);
	return GPUPROJ_OK;
}

int
gpuproj_import_ncu(const char *path, struct gpuproj_profile **ret,
		   struct gpuproj_import_summary *summary, struct gpuproj_error *reterr)
{
	struct importer im = { 0 };
	struct import_csv_options opt = { 0 };
	struct import_csv t = { 0 };
	struct gpuproj_profile *p = NULL;
	bool no_dims = false;
	size_t i;
	int r;

	if (!path || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	im.path = path;
	im.err = reterr;
	if ((r = build_source_map(&im)))
		goto out;
	im.p = gpuproj_profile_new();
	if (!im.p) {
		r = oom(&im, 0);
		goto out;
	}
	opt.skip_line = skip_line;
	opt.userdata = &im;
	/* Row by row: memory is the profile's, not the file's. */
	r = import_csv_stream_file(path, &opt, on_row, &im, &t, reterr);
	/* What the file as a whole says (counters not readable, nvprof's) comes first. */
	if (r && !(im.ctrperm_line && im.n_rows_seen <= 1) && !(im.nvprof_line && !im.header_seen))
		goto out;
	t.n_rows = im.n_rows_seen;
	if (im.ctrperm_line && t.n_rows <= 1 && im.n_rows_seen <= 1) {
		r = error_set(reterr, GPUPROJ_E_PARSE, path, im.ctrperm_line, 0,
			      "ncu could not read the GPU's performance counters "
			      "(ERR_NVGPUCTRPERM: profiling is restricted to administrators), so "
			      "no kernel was measured: run ncu with sudo, or allow all users "
			      "(`options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file "
			      "under /etc/modprobe.d/, then reboot; "
			      "https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
		goto out;
	}
	if (im.nvprof_line && !im.header_seen) {
		r = error_set(reterr, GPUPROJ_E_PARSE, path, im.nvprof_line, 0,
			      "an nvprof export, not Nsight Compute's: import it with `gpuproj "
			      "import nvprof %s -o OUT.json`", path);
		goto out;
	}
	if (t.n_rows == 0) {
		if (im.first_msg)
			r = error_set(reterr, GPUPROJ_E_PARSE, path, im.first_msg_line, 0,
				      "no kernel data, only Nsight Compute messages; ncu said: %s",
				      im.first_msg);
		else if (im.n_prof > 0)
			r = error_set(reterr, GPUPROJ_E_PARSE, path, t.n_lines, 0,
				      "no CSV data, only Nsight Compute messages (==PROF== …): "
				      "did ncu profile any kernel?");
		else if (im.n_junk > 0)
			r = error_set(reterr, GPUPROJ_E_PARSE, path, 1, 0,
				      "not an Nsight Compute CSV export: no line starts with the "
				      "header ncu --csv writes (\"ID\",\"Process ID\",…)");
		else
			r = error_set(reterr, GPUPROJ_E_PARSE, path, 1, 0, "empty file: expected "
				      "an Nsight Compute CSV export (ncu --csv)");
		goto out;
	}
	if ((r = check_rows(&im)))
		goto out;
	p = im.p;
	im.p = NULL;
	no_dims = im.no_dims;
	for (i = 0; i < im.n_launches; i++) {
		if ((r = commit(&im, p, im.launches[i], &no_dims)))
			goto out;
	}
	im.sum.launches = im.n_launches + im.n_committed;
	if ((r = set_context(&im, p)))
		goto out;
	if (no_dims && (r = warn_no_geometry(&im, p)))
		goto out;
	if (im.n_text > 0 &&
	    import_summary_warn(&im.sum, "%s: %zu text value%s not kept (settings, not "
				"measurements; e.g. %s)", path, im.n_text, im.n_text == 1 ? "" : "s",
				im.first_text)) {
		r = oom(&im, 0);
		goto out;
	}
	if (im.ctrperm_line &&
	    import_summary_warn(&im.sum, "%s:%d: ncu could not read the performance counters "
				"of some launches (ERR_NVGPUCTRPERM): only what it printed is "
				"imported", path, im.ctrperm_line)) {
		r = oom(&im, 0);
		goto out;
	}
	if (im.n_junk > 0 &&
	    import_summary_warn(&im.sum, "%s:%d: skipped %zu line%s that %s not CSV "
				"(application output?)", path, im.first_junk, im.n_junk,
				im.n_junk == 1 ? "" : "s", im.n_junk == 1 ? "is" : "are")) {
		r = oom(&im, 0);
		goto out;
	}
	if (tensor_attributes(&im, p) ||
	    gpuproj_profile_set_attr(p, "origin", "ncu-import") ||
	    gpuproj_profile_set_attr(p, "import.file", path) ||
	    gpuproj_profile_set_attr(p, "import.format", im.raw ? "ncu --csv --page raw"
								 : "ncu --csv") ||
	    gpuproj_profile_set_attr(p, "tool_version", GPUPROJ_VERSION) ||
	    import_summary_finish(&im.sum, p)) {
		r = oom(&im, 0);
		goto out;
	}
	if (summary) {
		*summary = im.sum;
		memset(&im.sum, 0, sizeof(im.sum));
	}
	*ret = p;
	p = NULL;
	r = GPUPROJ_OK;
out:
	gpuproj_profile_free(p);
	import_csv_clear(&t);
	importer_clear(&im);
	return r;
}

/* ---- the collection command (gpuproj ncu-metrics) ---- */

/*
 * The metrics that give every input of the default model (model.h:
 * hroof-occ needs bytes.l1, bytes.l2, bytes.dram, shared.wavefronts, the FP
 * instruction counts and warp_efficiency; its occupancy term the launch
 * geometry, registers and shared memory), plus the GPU's name. The names
 * are those libproj.so resolves on each chip (inject/metrics-nvpw.c, the
 * first valid candidate per logical metric; tests/inject/test-ncu-metrics.c
 * checks every name with the real host API on GV100 … GB202). DRAM bytes
 * are collected as read + write: the same counters as dram__bytes.sum,
 * and the split feeds bytes.dram_read/_write; GB202 and GB203 spell them
 * dram__bytes_op_read/_op_write.
 */
static const char *const ncu_common[] = {
	"gpu__time_duration.sum",
	SASS("hfma"), SASS("hadd"), SASS("hmul"),
	SASS("ffma"), SASS("fadd"), SASS("fmul"),
	SASS("dfma"), SASS("dadd"), SASS("dmul"),
	"smsp__average_thread_inst_executed_per_inst_executed.ratio",
	"l1tex__t_bytes.sum",
	"lts__t_sectors_srcunit_tex.sum",
	NULL, NULL, /* the DRAM pair, per chip */
	"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
	"launch__grid_dim_x", "launch__grid_dim_y", "launch__grid_dim_z",
	"launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z",
	"launch__registers_per_thread",
	"launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic",
	"device__attribute_display_name",
};

/* Chips that name the DRAM directions _op_read/_op_write (inject/metrics-nvpw.c). */
static bool
dram_op_names(const char *chip)
{
	return chip && (strcasecmp(chip, "GB202") == 0 || strcasecmp(chip, "GB203") == 0);
}

size_t
gpuproj_ncu_metrics(const char *chip, const char **names, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < ARRAY_LENGTH(ncu_common); i++) {
		const char *m = ncu_common[i];

		if (!m) {
			bool op = dram_op_names(chip);

			m = (i > 0 && !ncu_common[i - 1]) ? (op ? "dram__bytes_op_write.sum"
								: "dram__bytes_write.sum")
							  : (op ? "dram__bytes_op_read.sum"
								: "dram__bytes_read.sum");
		}
		if (names && n < max)
			names[n] = m;
		n++;
	}
	return n;
}

size_t
gpuproj_ncu_metrics_tensor(const char *chip, enum gpuproj_tensor_mode mode, const char **names,
			   size_t max)
{
	size_t n = gpuproj_ncu_metrics(chip, names, max);
	const char *scratch[64];

	/* The tensor names: into the caller's room after the common ones, or counted. */
	if (names && n < max)
		return n + gpuproj_tensor_metric_names(chip, mode, names + n, max - n);
	return n + gpuproj_tensor_metric_names(chip, mode, scratch, ARRAY_LENGTH(scratch));
}

bool
gpuproj_ncu_chip_known(const char *chip)
{
	static const char *const chips[] = { "GV100", "TU102", "TU104", "TU106", "TU116",
					     "TU117", "GA100", "GA102", "GA103", "GA104",
					     "GA106", "GA107", "GH100", "GH200", "AD102", "AD103",
					     "AD104", "AD106", "AD107", "GB100", "GB102", "GB110",
					     "GB202", "GB203", "GB205", "GB206", "GB207" };
	size_t i;

	for (i = 0; chip && i < ARRAY_LENGTH(chips); i++) {
		if (strcasecmp(chips[i], chip) == 0)
			return true;
	}
	return false;
}
