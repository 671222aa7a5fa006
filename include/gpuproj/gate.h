/* SPDX-License-Identifier: MIT */
/**
 * @file gate.h
 * The CI performance gate (`gpuproj gate`, docs/gate-merge.md): compare a
 * current profile with a baseline, on the source GPU (measured times) and
 * on target GPUs (projected times), for the whole run and per kernel.
 *
 * **Columns.** Column 0 is the source GPU: measured times, compared
 * directly (whole run: Σ mean × launches; per kernel: mean per launch).
 * Columns 1… are the target GPUs: both profiles are projected with the same
 * targets.yaml and model (projections stored in the files are never used);
 * per kernel the projected point per launch, for the whole run the
 * projected total of gpuproj_project_run() (kernels a model cannot project
 * carried at their source time).
 *
 * **Matching.** Kernels match on (mangled name, tag, grid, block, dynamic
 * shared memory). The device ordinal is ignored: records of one signature
 * on several devices of a profile are folded into one first
 * (gpuproj_kernel_merge()), because a rerun may land on another ordinal
 * (CUDA_VISIBLE_DEVICES, rank-to-GPU mapping) without the code changing.
 * Kernels only in the current profile are *new*, only in the baseline
 * *vanished*: both are listed and never fail a kernel test, but their time
 * is part of the whole-run totals, so a large new kernel fails the
 * whole-run test.
 *
 * **Regression rule.** With b and c the baseline and current values of a
 * cell (ns per launch for kernels, ns for the whole run), a cell regresses
 * when both hold:
 *
 *     c − b > threshold × b          (threshold: kernel_max_regression or
 *                                     max_regression for the whole run)
 *     c − b > noise_k × σ            (the noise band)
 *
 * with σ the combined standard error of the two means (Welch):
 *
 *     kernel:     σ² = (r_b·s_b)² / n_b + (r_c·s_c)² / n_c
 *     whole run:  σ² = Σ_kernels L² · (r·s)² / n   over both profiles
 *
 * s = sample standard deviation of the launch durations, n = timed
 * launches, L = launches, r = 1 on the source and point / mean (the
 * projection's time ratio) on a target: projections are linear in the
 * measured time, so the launch spread scales with them. A kernel with fewer
 * than two timed launches contributes s = 0 (no spread is known). The
 * standard error, not the launch spread itself, is used because the gate
 * asks whether the *mean* moved: a kernel with 20 % launch-to-launch jitter
 * but 10,000 launches has a precisely known mean, and one with 3 launches
 * does not. The threshold carries the practical significance (clock and
 * thermal drift between CI runs); the band keeps kernels with few, widely
 * spread launches from failing on chance.
 *
 * Cells beyond the threshold but inside the band are GPUPROJ_GATE_NOISE;
 * symmetric speed-ups are GPUPROJ_GATE_IMPROVED (informational). A kernel
 * cell whose total time in that column (per launch × launches) is below
 * the column's minimum time on both sides cannot fail: it is
 * GPUPROJ_GATE_SMALL when it would have, and listed.
 *
 * **Source GPUs.** The baseline and current source GPUs (resolved through
 * targets.yaml, and device.name when both profiles carry one; with the
 * `source` override only that GPU, the caller vouching for both) must agree:
 * measured times of different GPUs are not comparable. Otherwise
 * gpuproj_gate_compare() fails with GPUPROJ_E_MISMATCH unless
 * allow_gpu_change is set; then column 0 is GPUPROJ_GATE_NOT_COMPARABLE
 * throughout and only projected columns gate, and a warning says so.
 * A different tool version (attribute "tool_version") is a warning.
 *
 * Thread safety: reentrant; the functions only read their inputs.
 */
#ifndef GPUPROJ_GATE_H
#define GPUPROJ_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <gpuproj/error.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Default whole-run threshold, fraction (+5 %). */
#define GPUPROJ_GATE_DEFAULT_MAX_REGRESSION 0.05
/** Default per-kernel threshold, fraction (+10 %). */
#define GPUPROJ_GATE_DEFAULT_KERNEL_MAX_REGRESSION 0.10
/** Default width of the noise band, in combined standard errors. */
#define GPUPROJ_GATE_DEFAULT_NOISE_K 3.0
/** Default minimum kernel time, fraction of the column's baseline whole run (1 %). */
#define GPUPROJ_GATE_DEFAULT_MIN_TIME_FRACTION 0.01

/**
 * What the whole-run cell compares (struct gpuproj_gate_options.metric).
 * KERNEL: the kernel time (Σ over kernels, measured or projected; the
 * default). WALL: the whole run's wall time (timeline.h: measured on the
 * source, gpuproj_whole_run.wall_ns on a target), with a noise band from
 * the spread of the epochs' wall times (σ² = Σ over patterns of count ×
 * s², scaled by projected / measured on a target); a profile without a
 * timeline makes the cell GPUPROJ_GATE_NOT_COMPARABLE (why). Kernel cells
 * are gated the same in both.
 */
enum gpuproj_gate_metric {
	GPUPROJ_GATE_METRIC_KERNEL = 0,
	GPUPROJ_GATE_METRIC_WALL = 1,
};

/**
 * The words of enum gpuproj_gate_metric ("kernel", "wall"; model.h struct
 * gpuproj_word), in the order messages list them.
 * @param[out] ret_n the number of words
 * @return the table (static)
 */
const struct gpuproj_word *gpuproj_gate_metric_words(size_t *ret_n);

/** Options of the gate. Fill with gpuproj_gate_options_init(), then adjust. */
struct gpuproj_gate_options {
	double max_regression;        /**< whole-run threshold, fraction ≥ 0 (0.05 = +5 %) */
	double kernel_max_regression; /**< per-kernel threshold, fraction ≥ 0 */
	double noise_k;               /**< noise band in combined standard errors, ≥ 0 */
	/**
	 * Minimum kernel time, ns (total over the launches, on either side) for
	 * a kernel to be able to fail; NaN = use min_time_fraction.
	 */
	double min_time_ns;
	/** Minimum kernel time as a fraction of the column's baseline whole run (when min_time_ns is NaN). */
	double min_time_fraction;
	bool allow_gpu_change;        /**< gate on projections when the source GPUs differ */
	const char *source;           /**< override of both profiles' source GPU (device names are then not compared), or NULL */
	const struct gpuproj_model *model;           /**< NULL = gpuproj_model_default() */
	const struct gpuproj_model_options *model_options; /**< NULL = defaults */
	enum gpuproj_gate_metric metric; /**< what the whole-run cell compares (default KERNEL) */
	const char *baseline_label;   /**< how reports name the baseline (file name), or NULL */
	const char *current_label;    /**< how reports name the current profile, or NULL */
};

/** Fill `opt` with the defaults above (allow_gpu_change false, NULL pointers). */
void gpuproj_gate_options_init(struct gpuproj_gate_options *opt);

/** What happened to one cell (kernel × column, or whole run × column). */
enum gpuproj_gate_status {
	GPUPROJ_GATE_OK = 0,          /**< compared; within the threshold */
	GPUPROJ_GATE_REGRESSED = 1,   /**< beyond the threshold and the noise band: fails */
	GPUPROJ_GATE_NOISE = 2,       /**< beyond the threshold, inside the noise band: passes */
	GPUPROJ_GATE_IMPROVED = 3,    /**< faster beyond the threshold and the band */
	GPUPROJ_GATE_SMALL = 4,       /**< would regress, but below the minimum time: passes */
	GPUPROJ_GATE_NEW = 5,         /**< kernel only in the current profile */
	GPUPROJ_GATE_VANISHED = 6,    /**< kernel only in the baseline */
	GPUPROJ_GATE_UNPROJECTED = 7, /**< the model could not project it in one or both (why) */
	GPUPROJ_GATE_NOT_COMPARABLE = 8, /**< no timed launch on a side, or source GPU changed (why) */
};

/** @return "ok", "REGRESSED", "noise", "improved", "small", "new", "vanished", "not projected", "not comparable" */
const char *gpuproj_gate_status_name(enum gpuproj_gate_status s);

/** One comparison. Times in ns; NaN where a side has no value. */
struct gpuproj_gate_cell {
	enum gpuproj_gate_status status;
	double base_ns;        /**< baseline: per launch (kernel) or total (whole run) */
	double cur_ns;         /**< current: per launch (kernel) or total (whole run) */
	double base_total_ns;  /**< baseline total of the kernel (per launch × launches); whole run: = base_ns */
	double cur_total_ns;   /**< current total, likewise */
	double change;         /**< (cur − base) / base; NaN when not compared */
	double noise_ns;       /**< noise band noise_k × σ on the cur − base difference, ns; NaN when not compared */
	char *why;             /**< UNPROJECTED / NOT_COMPARABLE: the reason, owned by the result; else NULL */
	/**
	 * A target cell where either side was projected by the coarser "sol"
	 * model (gpuproj_projection.fallback, or sol chosen as the model): the
	 * writers label it "coarser".
	 */
	bool coarse;
	/**
	 * Target columns: the projection interval of the current value, ns
	 * (per launch or whole run; the calibrated interval of interval.h, the
	 * range the measured time fell in for the table's coverage, 85 % for the
	 * built-in one, of the validation cases);
	 * NaN on the source column and where not projected. The gate compares
	 * points: baseline and current share the model, so its error mostly
	 * cancels in the change; the interval says how far the projected time
	 * itself may be off.
	 */
	double cur_lo_ns, cur_hi_ns;
	/**
	 * Target columns: that interval was fitted without the source or this
	 * target GPU (gpuproj_projection.interval_gpus UNSEEN; for the whole
	 * run, any kernel's): its coverage there is unmeasured. Writers mark it.
	 */
	bool cur_interval_unseen;
	/**
	 * Target columns: the binding resource of the current projection
	 * (model.h; GPUPROJ_BOUND_NONE on the source column and where not
	 * projected). Findings group the targets by it.
	 */
	enum gpuproj_bound binding;
};

/**
 * A counter's per-launch mean "changed" between the profiles when it moved
 * by more than this fraction of the baseline's (1 %). Chosen, not
 * measured: instruction and FLOP counts of one kernel and input repeat
 * exactly from run to run, while byte counts (DRAM above all) move with
 * cache state; [GPU?] how far DRAM bytes of one kernel move between CI runs
 * is unmeasured, and a spread above 1 % would name them as changed.
 */
#define GPUPROJ_GATE_COUNTER_TOLERANCE 0.01

/** Counter changes a finding keeps (the largest; n_changed counts all). */
#define GPUPROJ_GATE_FINDING_COUNTERS 8

/** Why a kernel regressed, as far as the profiles tell (struct gpuproj_gate_finding). */
enum gpuproj_gate_cause {
	/**
	 * Every counter the kernel has in both profiles is within
	 * GPUPROJ_GATE_COUNTER_TOLERANCE: only the measured time moved, and
	 * every projection follows it (a projection is linear in the measured
	 * time when the counters are the same).
	 */
	GPUPROJ_GATE_CAUSE_TIME = 0,
	/** Counters changed (the finding's changes[]): the targets move by their binding. */
	GPUPROJ_GATE_CAUSE_COUNTERS = 1,
	/** No counter in both profiles (a time-only profile): the cause is not known. */
	GPUPROJ_GATE_CAUSE_UNKNOWN = 2,
	/** The whole run's finding (its kernels' findings give the causes). */
	GPUPROJ_GATE_CAUSE_RUN = 3,
};

/** @return "time", "counters", "unknown" or "run" */
const char *gpuproj_gate_cause_name(enum gpuproj_gate_cause c);

/** One counter of a kernel that changed between the profiles. */
struct gpuproj_gate_counter_change {
	enum gpuproj_metric metric; /**< the counter (profile.h) */
	double base;                /**< baseline per-launch mean, in the metric's unit */
	double cur;                 /**< current per-launch mean */
	double change;              /**< (cur − base) / base; +inf when base is 0 */
};

/**
 * One finding: a cause of the gate's failure, however many cells (columns)
 * it fails. One per kernel with a REGRESSED cell in any column, then one
 * for the whole run when a whole-run cell regressed.
 */
struct gpuproj_gate_finding {
	size_t kernel;               /**< index in the result's kernels; SIZE_MAX: the whole run */
	enum gpuproj_gate_cause cause;
	size_t n_compared;           /**< counters the kernel has in both profiles */
	size_t n_changed;            /**< of them, beyond GPUPROJ_GATE_COUNTER_TOLERANCE */
	/** Largest |change| first: min(n_changed, GPUPROJ_GATE_FINDING_COUNTERS) of them */
	struct gpuproj_gate_counter_change changes[GPUPROJ_GATE_FINDING_COUNTERS];
	size_t n_regressed;          /**< REGRESSED cells of the kernel (or run), all columns */
	size_t n_targets_compared;   /**< target columns with a change (both sides projected) */
	size_t n_targets_regressed;  /**< target columns REGRESSED */
	/**
	 * The finding in one line, owned by the result: "kernel K: +30.0%
	 * measured on SrcGPU, counters unchanged; every target follows (+30.0%
	 * on TgtGPU)", or with changed counters "…; counters changed: bytes.dram
	 * +40.0%; the dram-bound targets regress most (dram-bound: +40.0% on A;
	 * compute-bound: +0.0% on B)"; for the whole run "whole run: +5.6%
	 * measured on SrcGPU (10.71 ms -> 11.31 ms); +5.4% on TgtGPU; largest
	 * changes: stream +600 us". Names are as in the profiles (unescaped).
	 */
	char *text;
};

/** One column: the source GPU (index 0) or a target GPU. */
struct gpuproj_gate_column {
	char label[160];       /**< "SrcGPU (measured)" or the target name */
	const struct gpuproj_target *target; /**< NULL for the source column */
	struct gpuproj_gate_cell run;        /**< the whole run */
	double min_time_ns;    /**< the minimum kernel time used in this column, ns */
	size_t n_regressed;    /**< kernel cells REGRESSED (the whole run not counted) */
	size_t n_unprojected;  /**< kernel cells UNPROJECTED */
	size_t n_coarse;       /**< kernel cells projected by the coarser "sol" model (coarse) */
};

/** One kernel signature of either profile. */
struct gpuproj_gate_kernel {
	const struct gpuproj_kernel *base; /**< folded baseline record, NULL when new; owned by the result */
	const struct gpuproj_kernel *cur;  /**< folded current record, NULL when vanished */
	struct gpuproj_gate_cell *cells;   /**< [n_columns], owned by the result */
};

/** The gate's verdict and everything behind it. Release with gpuproj_gate_result_clear(). */
struct gpuproj_gate_result {
	bool regression;        /**< any REGRESSED cell (kernel or whole run): exit status 1 */
	size_t n_columns;
	struct gpuproj_gate_column *columns;  /**< [n_columns]; [0] is the source GPU */
	size_t n_kernels;
	struct gpuproj_gate_kernel *kernels;  /**< [n_kernels], by max(baseline, current) source time, longest first */
	size_t n_regressed;     /**< REGRESSED cells over all columns, whole-run cells included */
	size_t n_new, n_vanished;
	size_t n_unprojected;   /**< UNPROJECTED kernel cells over all columns */
	bool gpu_changed;       /**< the source GPUs differ (allow_gpu_change was set) */
	bool version_changed;   /**< the tool versions differ */
	/** One line each: GPU change, tool version, a profile merged with --force (merge.h). */
	char warnings[4][GPUPROJ_ERROR_MSG_SIZE];
	size_t n_warnings;
	struct gpuproj_gate_options options;  /**< the options used (labels point into the caller's strings) */
	const struct gpuproj_target *base_source; /**< the baseline's source GPU */
	const struct gpuproj_target *cur_source;  /**< the current profile's source GPU */
	/**
	 * Owned provisional sources (gpuproj_targets_derive()) for a GPU not
	 * in `targets`, else NULL; one set serves both profiles of one GPU.
	 */
	struct gpuproj_targets *derived[2];
	struct gpuproj_profile *base, *cur;   /**< the folded profiles; owned */
	/** The findings, one per cause (struct gpuproj_gate_finding); owned. */
	struct gpuproj_gate_finding *findings;
	size_t n_findings;
};

/**
 * Compare `cur` with `base`.
 *
 * @param base the baseline profile (read only)
 * @param cur the current profile (read only)
 * @param targets the GPU descriptions; a source GPU not in it is projected
 *        from a provisional entry (gpuproj_resolve_source_or_derive())
 * @param gate_targets the target GPUs of columns 1…, in order (entries of
 *        `targets`); NULL with n_gate_targets == 0 = the source column only
 * @param n_gate_targets number of target columns
 * @param opt options (see gpuproj_gate_options_init()); NULL = defaults
 * @param[out] out the result; zeroed first; release with
 *             gpuproj_gate_result_clear() (also after a failure)
 * @param[out] reterr optional
 * @return GPUPROJ_OK (whatever the verdict: see out->regression);
 *         GPUPROJ_E_INVAL (NULL profiles/targets/out, negative or
 *         non-finite thresholds);
 *         GPUPROJ_E_UNSUPPORTED (a profile has no kernel with a timed
 *         launch: nothing to compare, no verdict; the message names the
 *         profile and says why that happens; with --metric wall also a
 *         profile whose timeline fails gpuproj_timeline_check_identity():
 *         the message names the pattern and both times);
 *         GPUPROJ_E_NOTFOUND (a profile's GPU is not in targets.yaml and no
 *         provisional entry could be derived for it; the
 *         message names the profile and the GPU);
 *         GPUPROJ_E_MISMATCH (the source GPUs differ and allow_gpu_change
 *         is not set; the message names both);
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_gate_compare(const struct gpuproj_profile *base, const struct gpuproj_profile *cur,
			 const struct gpuproj_targets *targets,
			 const struct gpuproj_target *const *gate_targets, size_t n_gate_targets,
			 const struct gpuproj_gate_options *opt, struct gpuproj_gate_result *out,
			 struct gpuproj_error *reterr);

/** Free what gpuproj_gate_compare() allocated; accepts a zeroed struct; zeroes it. */
void gpuproj_gate_result_clear(struct gpuproj_gate_result *r);

/**
 * A display name for a kernel of the gate: "NAME (GXxGYxGZ,BXxBYxBZ)",
 * with ", smem N B" inside the parentheses when dynamic shared memory is
 * used and " [TAG]" after them when tagged; NAME is the demangled name when
 * known, else the mangled one.
 *
 * @param k a kernel record
 * @param buf output buffer, always NUL-terminated when size > 0
 * @param size size of buf, bytes
 * @return buf
 */
char *gpuproj_gate_kernel_label(const struct gpuproj_kernel *k, char *buf, size_t size);

/**
 * Render the result as JUnit XML: one test case per cause, not per cell
 * (one kernel 30 % slower with unchanged counters used to give 116
 * failures on 58 columns). `<testsuites name="gpuproj gate">` holds one
 * `<testsuite name="gpuproj gate">` whose properties are the labels, the
 * model, the thresholds, each column's minimum time ("min_time_ns: LABEL")
 * and the warnings; in it one `<testcase classname="gpuproj gate"
 * name="(whole run)">`, then one `<testcase classname="gpuproj gate"
 * name="KERNEL (grid,block)">` per kernel (gpuproj_gate_kernel_label()),
 * longest first. A case with a finding is a `<failure type="regression"
 * message="FINDING">` (struct gpuproj_gate_finding.text); a case no column
 * compared (new, vanished, not projected anywhere) is `<skipped
 * message="…"/>`. The failure's text or the case's `<system-out>` has one
 * line per column, "LABEL: numbers" (measured on the source, projected on
 * each target). Text is XML-escaped; characters XML 1.0 forbids (controls
 * other than tab and line breaks, U+FFFE, U+FFFF) become U+FFFD.
 *
 * @param r a result filled by a successful gpuproj_gate_compare()
 * @param[out] ret NUL-terminated UTF-8 text, malloc'd, owned by the caller;
 *             untouched on failure
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (r or ret NULL, or r without
 *         columns); GPUPROJ_E_NOMEM
 */
int gpuproj_gate_junit(const struct gpuproj_gate_result *r, char **ret);

/** The "schema" of gpuproj_gate_json()'s document (docs/formats/gate.md). */
#define GPUPROJ_GATE_JSON_SCHEMA "gpuproj-gate/1"

/**
 * Render the result as JSON (docs/formats/gate.md, schema
 * GPUPROJ_GATE_JSON_SCHEMA): the verdict ("pass" or "fail"), the options,
 * warnings and counts, the findings (cause, text, the changed counters),
 * one entry per GPU column (column 0 measured on the source) with its
 * whole-run cell, and one per kernel with a cell per column. Times in ns,
 * changes as fractions; NaN (no value) is null. Names that are not UTF-8
 * have U+FFFD for each bad byte.
 *
 * @param r a result filled by a successful gpuproj_gate_compare()
 * @param[out] ret NUL-terminated ASCII text (one final newline), malloc'd,
 *             owned by the caller; untouched on failure
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (r or ret NULL, or r without
 *         columns); GPUPROJ_E_NOMEM
 */
int gpuproj_gate_json(const struct gpuproj_gate_result *r, char **ret);

/**
 * Largest Markdown gpuproj_gate_markdown() writes, bytes: a GitHub Actions
 * job summary holds 1 MiB, a GitLab merge-request note 1,000,000
 * characters.
 */
#define GPUPROJ_GATE_MD_MAX ((size_t)1000000)

/**
 * Findings the Markdown lists (the first, in the result's order; a line
 * says how many more): 100 lines of at most a kernel label (1 KiB) and
 * its numbers keep the list far under GPUPROJ_GATE_MD_MAX, so the
 * whole-run table always follows it.
 */
#define GPUPROJ_GATE_MD_FINDINGS 100

/**
 * Render the result as GitHub/GitLab Markdown (for a merge-request
 * comment or $GITHUB_STEP_SUMMARY): verdict heading, warnings, the
 * findings (one line per cause, the first GPUPROJ_GATE_MD_FINDINGS),
 * whole-run table per column, regressions table, new and vanished
 * kernels, kernels not projected, kernels within noise or below the
 * minimum time. At most
 * GPUPROJ_GATE_MD_MAX bytes: beyond that, table rows are left out (the
 * headings with their counts stay) and a note before the first table says
 * how many and that the JUnit report and the text output have them all.
 *
 * @param r a result filled by a successful gpuproj_gate_compare()
 * @param[out] ret NUL-terminated UTF-8 text, malloc'd, owned by the caller;
 *             untouched on failure
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (r or ret NULL, or r without
 *         columns); GPUPROJ_E_NOMEM
 */
int gpuproj_gate_markdown(const struct gpuproj_gate_result *r, char **ret);

/**
 * Print the human summary (verdict line, the findings, whole run per
 * column, then the regressions, new, vanished and not-projected kernels)
 * to `out`.
 *
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL, GPUPROJ_E_IO (the stream reported an error)
 */
int gpuproj_gate_print(FILE *out, const struct gpuproj_gate_result *r);

/**
 * Write `text` to `path` atomically (temporary file beside it, then
 * rename): readers never see half a file, and a failure leaves `path`
 * untouched. "-" writes standard output.
 *
 * @return GPUPROJ_OK, GPUPROJ_E_IO (reterr names the file and the errno
 *         text), GPUPROJ_E_NOMEM, GPUPROJ_E_INVAL (path or text NULL)
 */
int gpuproj_gate_write(const char *path, const char *text, struct gpuproj_error *reterr);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_GATE_H */
