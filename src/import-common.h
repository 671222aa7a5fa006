/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the importers (import-ncu.c, import-gpuperfpredict.c):
 * reading a CSV file into rows of fields with their line and column, number
 * parsing with thousands separators, unit scaling, launch dimensions, a
 * string-to-index map, the GPUs of a cross-GPU data set and the import
 * summary. Not installed.
 *
 * Thread safety: every function is reentrant; no global state.
 */
#ifndef GPUPROJ_IMPORT_COMMON_H
#define GPUPROJ_IMPORT_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/error.h>
#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "util.h"

/* ---- CSV files (on libcsv) ---- */

/* One CSV record. */
struct import_csv_row {
	char **fields;   /* n fields, NUL-terminated, quotes removed; owned by the table */
	int *columns;    /* 1-based byte column where each field starts on its line */
	size_t n;
	int line;        /* 1-based line of the record's first character */
	int end_column;  /* 1-based column just after the record's last byte, on its last line */
};

/* A whole CSV file. Zero-initialise; release with import_csv_clear(). */
struct import_csv {
	struct import_csv_row *rows;
	size_t n_rows;
	int n_lines;             /* physical lines in the file */
	size_t n_skipped;        /* lines the skip_line hook dropped */
	/*
	 * The line of the last record when the file ends inside it, without
	 * a line break (a file cut while it was written, or saved without a
	 * final newline); 0 when the file ends with a line break.
	 */
	int unterminated_line;
	/* The last line of the file when it has no line break (parsed or dropped), else 0. */
	int last_line_open;
};

/* How to read. A NULL options pointer means all defaults. */
struct import_csv_options {
	unsigned char delim;     /* field separator; 0 = ',' */
	/*
	 * Optional: called for every physical line that starts outside a
	 * quoted field (so never in the middle of a record), without its line
	 * terminator; return true to drop the line before CSV parsing (e.g.
	 * "==PROF==" messages). Blank lines are always dropped and not passed.
	 */
	bool (*skip_line)(void *userdata, const char *line, size_t len, int lineno);
	void *userdata;
};

/*
 * Read a CSV file ("-" = standard input) in strict mode (RFC 4180 quoting:
 * a quote inside an unquoted field or text after a closing quote is an
 * error). Line endings LF or CRLF; fields quoted or not. Each record keeps
 * its line and the column of every field, for error messages.
 *
 * Text only: a NUL byte in a line that is parsed (not dropped by
 * skip_line) is an error naming its line and column, so a field is never
 * cut short silently; a UTF-16 file (a byte-order mark FF FE / FE FF, or a
 * NUL as second byte: PowerShell's `>` writes UTF-16) is refused with how
 * to convert it.
 *
 * @param[out] ret filled on success; untouched on failure
 * @return GPUPROJ_OK; GPUPROJ_E_IO (cannot open or read: the message names
 *         the errno text); GPUPROJ_E_PARSE (malformed quoting, with
 *         file:line:column; an unterminated quoted field, with the line where
 *         it starts; a NUL byte, with line and column; UTF-16 text);
 *         GPUPROJ_E_NOMEM
 */
int import_csv_read_file(const char *path, const struct import_csv_options *opt,
			 struct import_csv *ret, struct gpuproj_error *err);
/* As import_csv_read_file() on a buffer; `name` is used in error messages. */
int import_csv_read_buffer(const char *text, size_t len, const char *name,
			   const struct import_csv_options *opt, struct import_csv *ret,
			   struct gpuproj_error *err);
/*
 * As import_csv_read_file(), streaming: the file is read in pieces and
 * each record is handed to on_row() as soon as it is complete, then freed
 * (memory stays that of one record; a row the caller needs later, such as
 * a header, it copies with import_csv_row_copy()). on_row() also gets the
 * table's facts so far (`info`: n_rows counts this row; unterminated_line
 * is set when this row is the file's last and has no line break). A
 * non-zero return of on_row() stops the read and is returned (the callback
 * fills err). The input limit and every check of import_csv_read_file()
 * apply.
 *
 * @param[out] ret_info optional: the table's counts and line facts (n_rows,
 *             n_lines, n_skipped, unterminated_line, last_line_open; no rows)
 */
int import_csv_stream_file(const char *path, const struct import_csv_options *opt,
			   int (*on_row)(void *userdata, const struct import_csv_row *row,
				     const struct import_csv *info),
			   void *userdata, struct import_csv *ret_info, struct gpuproj_error *err);
/* A deep copy of a row (fields and columns); NULL on ENOMEM. Free with import_csv_row_free(). */
struct import_csv_row *import_csv_row_copy(const struct import_csv_row *r);
/* Free a row from import_csv_row_copy(); accepts NULL. */
void import_csv_row_free(struct import_csv_row *r);
/* Free everything in a table and zero it; accepts a zeroed table. */
void import_csv_clear(struct import_csv *t);

/* Field i of a row, or "" when the row is shorter. Never NULL. */
const char *import_csv_field(const struct import_csv_row *r, size_t i);
/*
 * 1-based column of field i, or (for a missing field) the column just after
 * the row's end (past a closing quote, before the line break); 0 when
 * unknown.
 */
int import_csv_column(const struct import_csv_row *r, size_t i);
/*
 * Index of the field equal to `name` (case-sensitive, blanks around the
 * field ignored), or -1.
 */
long import_csv_find(const struct import_csv_row *header, const char *name);
/*
 * Duplicated column names of a header (blanks around names ignored; empty
 * names are not compared): on each call, the next field j whose name equals
 * an earlier field i's. Start with *j = 0. Returns false when there is none
 * left. Linear in the header's size over all calls (a string map).
 */
bool import_csv_next_duplicate(const struct import_csv_row *header, size_t *i, size_t *j);

/* ---- numbers ---- */

/*
 * Parse a decimal number as tools print it: optional sign, digits with
 * optional thousands separators ("1,234,567.5": groups of exactly three
 * digits after the first), optional fraction and exponent; blanks around
 * are allowed. Rejects empty strings, "n/a", non-finite values and badly
 * grouped numbers ("1,23"). Returns false on any error.
 */
bool import_parse_number(const char *s, double *ret);
/*
 * As import_parse_number(), then multiplied by `scale` in long double, so
 * that e.g. "4.19" × 1e6 gives 4190000 exactly.
 */
bool import_parse_scaled(const char *s, double scale, double *ret);
/* True for values that mean "not measured": "" (after trimming) and "n/a" (any case). */
bool import_value_absent(const char *s);
/*
 * True for a value that is a word, not a number: a setting printed as its
 * enumerator (Nsight Compute: "cudaFuncCachePreferNone", "CachePreferNone",
 * "PolicySpread") or as "all". It has a letter and no digit at all.
 */
bool import_is_text_label(const char *v);
/*
 * Parse launch dimensions: "(256, 1, 1)", "(256,1,1)", "256, 1, 1" or a
 * single "256" (y = z = 1). Every component must be an integer in
 * 1..UINT32_MAX. Returns false on any error.
 */
bool import_parse_dim3(const char *s, struct gpuproj_dim3 *ret);

/* ---- units ---- */

/* What a unit string measures. */
enum import_unit_family {
	IMPORT_UNIT_NONE = 0,   /* "": dimensionless or unknown */
	IMPORT_UNIT_PERCENT,    /* "%" */
	IMPORT_UNIT_TIME,       /* scaled to ns */
	IMPORT_UNIT_BYTES,      /* scaled to bytes (also "<bytes>/block") */
	IMPORT_UNIT_FREQUENCY,  /* scaled to Hz ("Ghz", "cycle/nsecond", …) */
	IMPORT_UNIT_BANDWIDTH,  /* scaled to bytes/second */
	IMPORT_UNIT_COUNT,      /* a count or a ratio of counts ("inst", "Minst", "cycle",
				   "register/thread", "inst/cycle"), scaled to the
				   unprefixed unit */
	IMPORT_UNIT_OTHER,      /* any other string: unknown, scale 1 */
};

struct import_unit {
	enum import_unit_family family;
	double scale;           /* multiply a value by this to get the base unit */
	char base[32];          /* the unit after scaling ("nsecond", "byte", "hz",
				   "byte/second", "inst", "inst/cycle"); "" for NONE and
				   OTHER, "%" for PERCENT */
};

/*
 * Classify a unit string as Nsight Compute prints it (long and short
 * spellings: "nsecond"/"ns", "usecond"/"us", "Kbyte", "Gbyte/second",
 * "byte/s", "cycle/nsecond", "Ghz", "%", "inst", "Kinst", …). Prefixes K,
 * M, G, T, P are decimal (×1000, ncu's convention, also on bytes); KiB,
 * MiB, GiB, TiB are binary. Count units are inst, sector, request, warp,
 * wavefront, cycle, thread, block, register, transaction, SM, cluster and
 * op (the tensor operation counters'), optionally prefixed, alone or as a
 * ratio ("register/thread"). Never fails: unknown
 * strings are IMPORT_UNIT_OTHER with scale 1.
 */
void import_unit_parse(const char *unit, struct import_unit *ret);
/* "time", "size", "frequency", … for messages. */
const char *import_unit_family_name(enum import_unit_family f);

/* ---- ranges of logical metrics ---- */

/*
 * The documented range of a logical metric (docs/formats/profile.md, enum
 * gpuproj_metric), as gpuproj_metric_range() gives it to the profile
 * writer: counts, bytes and cycles in [0, GPUPROJ_MAX_METRIC]; ratios
 * (warp_efficiency, occupancy.achieved) in [0, 1]; clock.sm in
 * (0, GPUPROJ_MAX_CLOCK_HZ]. *lo_open is true where the lower bound itself
 * is refused. Every value an importer puts into a profile goes through
 * import_metric_check().
 */
void import_metric_range(enum gpuproj_metric m, double *lo, double *hi, bool *lo_open);

/* What import_metric_check() decided. */
enum import_range {
	IMPORT_RANGE_OK = 0,     /* finite and inside the range */
	IMPORT_RANGE_CLAMPED,    /* a ratio outside [0, 1] by at most 0.01 (rounding
				    in the tool's output); *v set to the bound */
	IMPORT_RANGE_BAD,        /* not finite, or further outside: refuse */
};

/*
 * Check a value against the metric's range; clamp rounding overshoots
 * (e.g. 100.004 % occupancy printed by a tool). *v is changed only when
 * IMPORT_RANGE_CLAMPED is returned.
 */
enum import_range import_metric_check(enum gpuproj_metric m, double *v);

/*
 * Durations an importer accepts, ns: (0, IMPORT_MAX_DURATION_NS]. 10^15 ns
 * is 11.6 days, beyond any kernel; the bound keeps sums over 2^64 launches
 * (and the Welford m2 of their spread) finite.
 */
#define IMPORT_MAX_DURATION_NS 1e15

/*
 * The shortest kernel time the analytic importers (xla-matmul, kerneltuner)
 * accept, ns: 1 ns, the resolution of the timestamps every source of
 * kernel times has (CUPTI's records, the integer nanoseconds XLA's table
 * restores, CUDA events' microseconds are coarser still). A shorter time is
 * no measurement, and it projects to "0 ns".
 */
#define IMPORT_MIN_DURATION_NS 1.0

/*
 * What import_rate_bound() multiplies the fastest rate of targets.yaml by:
 * a datasheet peak is the most a GPU does (the dense figure; vendors quote
 * sparsity as 2x it, which is the margin), so a rate above 2x the fastest
 * GPU's is no GPU's.
 */
#define IMPORT_RATE_MARGIN 2.0

/*
 * The fastest FLOP/s any GPU of `t` has for one precision: the largest of
 * its peak_tensor and max_tensor rates for tensor precision `tp` (enum
 * gpuproj_tensor_prec), or with tp = GPUPROJ_TPREC_COUNT of its
 * peak_gflops and max_gflops for CUDA-core precision `cp` (FMA: 2 FLOP),
 * x IMPORT_RATE_MARGIN. *ret_gpu (optional) names that GPU and *ret_peak
 * (optional) its rate, FLOP/s. When no GPU of `t` has a rate for the
 * precision, every precision's counts. +inf for an empty `t`.
 */
double import_rate_bound(const struct gpuproj_targets *t, int tp, enum gpuproj_prec cp,
			 const char **ret_gpu, double *ret_peak);

/*
 * CUDA's launch limits (CUDA C++ Programming Guide, "Technical
 * Specifications per Compute Capability", every CC from 3.0 on): a grid
 * of at most 2^31 - 1 blocks in x and 65535 in y and z; a block of at
 * most 1024 threads in x and y, 64 in z and 1024 in all.
 */
#define IMPORT_GRID_MAX_X 2147483647.0
#define IMPORT_GRID_MAX_YZ 65535.0
#define IMPORT_BLOCK_MAX_XY 1024.0
#define IMPORT_BLOCK_MAX_Z 64.0
#define IMPORT_BLOCK_MAX_THREADS 1024.0

/*
 * Whether a launch of grid g and block b (positive integers, as doubles so
 * that a value past 2^32 is seen before it is cast) is inside CUDA's
 * limits. On false, `why` (size `size`) says which, e.g. "grid.x
 * 4294967301 is above CUDA's 2147483647".
 */
bool import_launch_ok(const double g[3], const double b[3], char *why, size_t size);

/* ---- a string → index map ---- */

/* Open addressing, keys copied. Zero-initialise; release with import_strmap_clear(). */
struct import_strmap {
	char **keys;
	size_t *values;
	size_t n, cap;        /* cap: 0 or a power of two */
};

/* Look a key up; true and *ret set when present. */
bool import_strmap_get(const struct import_strmap *m, const char *key, size_t *ret);
/* Insert or replace. GPUPROJ_OK or GPUPROJ_E_NOMEM. */
int import_strmap_put(struct import_strmap *m, const char *key, size_t value);
void import_strmap_clear(struct import_strmap *m);

/* ---- the GPUs of a cross-GPU data set ---- */

/* One GPU of a data set (NeuSight, gpuperfpredict) and the profile built for it. */
struct import_gpu {
	char *label;                         /* the data set's name for it; owned */
	const struct gpuproj_target *target; /* its targets.yaml entry; borrowed */
	struct gpuproj_profile *profile;     /* owned; NULL once import_gpus_take() moved it */
	/*
	 * Optional index the importer fills: a key → the index of a kernel of
	 * `profile` (NeuSight: the operator shape, whose signature differs
	 * between GPUs). Empty unless used; cleared by import_gpus_clear().
	 */
	struct import_strmap by_key;
};

/* The GPUs, in order of first appearance. Zero-initialise; release with import_gpus_clear(). */
struct import_gpus {
	struct import_gpu *v;
	size_t n, cap;
};

/* A data set as its importer describes it: its GPUs' names in errors, its profiles' attributes. */
struct import_gpu_source {
	struct gpuproj_lookup_words lookup; /* an unknown label (gpuproj_targets_lookup()) */
	/*
	 * Two labels of one targets.yaml entry: "<labels> 'a' and 'b'<where>
	 * both match targets.yaml entry 'e'; give each its own entry", e.g.
	 * labels = "devices", where = "" (never NULL).
	 */
	const char *labels;
	const char *where;
	const char *const *attrs; /* every profile's attributes: key, value, …, NULL */
};

/*
 * The GPU of a data-set label: the one added before with that label, else
 * a new one appended to `gpus`, its targets.yaml entry found by
 * gpuproj_targets_lookup() (`match` lists), with a new profile whose device
 * is that entry (gpuproj_profile_set_device(): name = label, clock in Hz),
 * with the attributes src->attrs, then import.files = `files`.
 *
 * @param files the files read ("a.csv, b.csv")
 * @param path, line, column where the label was read, for errors
 * @param[out] ret the GPU, valid until the next call (the array may move)
 * @return GPUPROJ_OK; the lookup's status for an unknown label (its
 *         message, located at path:line:column); GPUPROJ_E_SCHEMA when
 *         another label already has the same entry (one profile per entry);
 *         GPUPROJ_E_NOMEM (at path:line, column 0). On an error after the
 *         GPU was appended it stays in `gpus`, to be released with it.
 */
int import_gpus_find_or_add(struct import_gpus *gpus, const struct gpuproj_targets *targets,
			    const struct import_gpu_source *src, const char *label,
			    const char *files, const char *path, int line, int column,
			    struct import_gpu **ret, struct gpuproj_error *err);
/*
 * Add one profiled launch's value v of a metric the importer derives
 * analytically (from a shape, not a counter) to k: metric_sum += v,
 * metric_n += 1. Unchecked here, row by row; import_gpus_take() checks
 * every profile against the writer's ranges before handing it out.
 */
void import_put(struct gpuproj_kernel *k, enum gpuproj_metric m, double v);

/*
 * Move the profiles out: *ret = a new array of gpus->n profiles (the
 * caller frees it and them), each GPU's profile set to NULL. Each profile
 * is first checked as the writer will (gpuproj_profile_validate()), so a
 * value derived from a data set that no profile can hold (a count over
 * GPUPROJ_MAX_METRIC from a huge shape) is refused here, naming the GPU,
 * not when its file is written. GPUPROJ_OK; GPUPROJ_E_SCHEMA ("GPU
 * 'LABEL': kernels[i]… is outside …") or GPUPROJ_E_NOMEM in *err, with
 * nothing moved.
 */
int import_gpus_take(struct import_gpus *gpus, struct gpuproj_profile ***ret,
		     struct gpuproj_error *err);

/*
 * The kernel of `other`'s profile that is `k`'s counterpart (the same
 * signature, or the same shape under the data set's key), or NULL.
 */
typedef const struct gpuproj_kernel *(*import_counterpart_fn)(const struct import_gpu *other,
							      const struct gpuproj_kernel *k,
							      void *userdata);
/*
 * Reference times: every kernel of every GPU's profile gets, per other GPU
 * whose counterpart (`find`) has timed launches, that GPU's mean and launch
 * count (gpuproj_kernel_set_reference(), what `gpuproj validate` compares
 * projections with). GPUPROJ_OK, or GPUPROJ_E_NOMEM ("out of memory", no
 * file) with the references set so far kept.
 */
int import_gpus_set_references(struct import_gpus *gpus, import_counterpart_fn find,
			       void *userdata, struct gpuproj_error *err);
/* Free labels, profiles, indexes and the array, and zero `gpus`; accepts a zeroed one. */
void import_gpus_clear(struct import_gpus *gpus);

/*
 * The files an import read, as errors and the import.files attribute name
 * them: "a.csv, b.csv" (n = 0: ""). malloc'd; NULL on ENOMEM.
 */
char *import_join_paths(const char *const *paths, size_t n);

/* ---- the import summary ---- */

/*
 * Append a printf-formatted warning to s (NULL s is allowed and ignored).
 * After 100 warnings one last line says that more were suppressed.
 * GPUPROJ_OK or GPUPROJ_E_NOMEM.
 */
int import_summary_warn(struct gpuproj_import_summary *s, const char *fmt, ...)
	GPUPROJ_PRINTF(2, 3);
/*
 * Fill the fields that follow from the finished profile: kernels (distinct
 * signatures), kept_metrics (distinct extra-metric names over all kernels)
 * and missing: the inputs of the default model that some kernel lacks, as
 * the model registry lists them (gpuproj_model_missing_in_profile()). rows
 * and launches are the importer's. GPUPROJ_OK or GPUPROJ_E_NOMEM.
 */
int import_summary_finish(struct gpuproj_import_summary *s, const struct gpuproj_profile *p);

#endif
