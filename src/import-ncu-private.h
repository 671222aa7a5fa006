/* SPDX-License-Identifier: MIT */
/*
 * What the Nsight Compute importer's two files share: import-ncu.c (the
 * CSV layouts, rows, launches, values) and import-ncu-resolve.c (a
 * launch's NVIDIA metrics folded into logical metrics). Not installed.
 */
#ifndef GPUPROJ_IMPORT_NCU_PRIVATE_H
#define GPUPROJ_IMPORT_NCU_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>

#include "import-common.h"

/* Units a mapped metric must have; values are scaled to the base unit. */
enum kind {
	K_TIME,   /* → ns */
	K_BYTES,  /* → bytes */
	K_FREQ,   /* → Hz */
	K_COUNT,  /* no unit or a count ("inst", "Kinst", "register/thread") */
	K_PCT,    /* "%" (or no unit), kept in percent */
	K_BW,     /* → bytes/second */
	K_SIZE,   /* a device attribute's size: no unit (bytes, as the raw page has it), bytes */
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
	/*
	 * The device's other attributes (cuDeviceGetAttribute's, as the raw page
	 * exports them): what identifies the GPU, or derives a provisional entry.
	 */
	SRC_DEV_CLOCK, SRC_DEV_MEMCLK, SRC_DEV_BUS, SRC_DEV_MEM, SRC_DEV_L2,
	SRC_DEV_THR_SM, SRC_DEV_THR_BLK, SRC_DEV_BLK_SM, SRC_DEV_REG_SM, SRC_DEV_REG_BLK,
	SRC_DEV_SMEM_SM, SRC_DEV_SMEM_OPTIN, SRC_DEV_SMEM_RES, SRC_DEV_WARP,
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

/* How an NVIDIA metric (or section label) is found in an export and read. */
struct ncu_source {
	const char *name;    /* the metric name, or a section label */
	const char *section; /* NULL for metric names, else the "|"-separated sections, "*" any */
	enum kind kind;      /* the units it must have */
};

/* Every metric and label the importer maps, by enum src (import-ncu-names.c). */
extern const struct ncu_source ncu_sources[SRC_COUNT];

/* An unmapped value of a launch. */
struct extra {
	size_t name;     /* interned */
	size_t unit;     /* interned, after scaling */
	size_t seq;      /* arrival order, for a stable sort */
	double value;
	int line, col;   /* where the value is (0: not from one cell) */
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

/*
 * The index of string s among the importer's interned names into *ret,
 * added when new. GPUPROJ_OK or GPUPROJ_E_NOMEM.
 */
int ncu_names_intern(struct importer *im, const char *s, size_t *ret);
/* GPUPROJ_E_NOMEM at the file's line `line`; returns it. */
int ncu_oom(struct importer *im, int line);
/* Whether `name` is seen for the first time (interned): warn about it once. */
bool ncu_warn_once(struct importer *im, const char *name);
/*
 * Keep an unmapped metric of launch L (interned name and unit, after
 * scaling to its family's base unit) found at line:col (0:0 when it is
 * not one cell's). GPUPROJ_OK or GPUPROJ_E_NOMEM.
 */
int ncu_add_extra(struct importer *im, struct launch *L, const char *name, const char *unit,
		  double value, int line, int col);

/*
 * Fold launch L into profile p: its signature, duration, logical metrics
 * (through ncu_sources[] and the tensor candidates) and extra metrics.
 * *no_dims is set when the launch has no grid or block. GPUPROJ_OK, or the
 * error (positioned at the launch's rows) filled into im->err.
 */
int ncu_commit(struct importer *im, struct gpuproj_profile *p, struct launch *L, bool *no_dims);
/* The profile's device and process, from the first launch that names them. */
int ncu_set_context(struct importer *im, struct gpuproj_profile *p);
/*
 * Profile attributes and one summary line per tensor metric taken from
 * instruction counts ("import.tensor.<metric>" = the expression, and the
 * assumed shape when there is one). GPUPROJ_OK or GPUPROJ_E_NOMEM.
 */
int ncu_tensor_attributes(struct importer *im, struct gpuproj_profile *p);

#endif
