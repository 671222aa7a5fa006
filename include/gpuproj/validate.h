/* SPDX-License-Identifier: MIT */
/**
 * @file validate.h
 * Validation of projection models against times measured on other GPUs
 * (`gpuproj validate`, docs/internals/DESIGN.md §7).
 *
 * Inputs are data sets: gpuproj profiles (JSON, from the injection library
 * or `gpuproj import`) and gpuperfpredict CSV files. For every model, every
 * (source GPU, target GPU) pair and every kernel signature measured on the
 * source that also has a measured time on the target, the kernel is
 * projected from source to target (gpuproj_model_project()) and the point
 * estimate is compared with the measured time.
 *
 * Where the measured time on a target comes from, for kernel k of a profile
 * measured on GPU s, target t:
 * 1. k's reference time for t (reference_ns, keyed by t's targets.yaml
 *    name, or by a string that gpuproj_targets_match() maps to t) — the
 *    gpuperfpredict importer records these for every other GPU;
 * 2. else, in another input profile measured on t, the kernel with the same
 *    signature ignoring the device ordinal (name, tag, grid, block, dynamic
 *    shared memory): its mean duration.
 * Kernels with neither are not part of the pair (nothing to compare); pairs
 * with nothing to compare are not reported; s = t is never a pair.
 *
 * ## Statistics (struct gpuproj_validation_stats)
 *
 * Per comparison i: measured m_i (ns, per launch, on the target), projected
 * point p_i and interval [lo_i, hi_i] (ns), signed error
 * e_i = (p_i − m_i) / m_i × 100 and absolute percentage error
 * APE_i = |e_i|. Over the n comparisons of a group:
 * - MAPE = (1/n) Σ APE_i, %;
 * - median APE = the middle APE_i after sorting (mean of the two middle
 *   values when n is even), %;
 * - coverage = 100 × #{i : lo_i ≤ m_i ≤ hi_i} / n, %;
 * - bias (mean signed error) = (1/n) Σ e_i, %: positive = projections too
 *   slow (longer than measured), negative = too fast;
 * - width = (1/n) Σ (hi_i − lo_i) / p_i × 100, %: how wide the intervals
 *   behind the coverage are.
 * [lo, hi] is the calibrated interval (interval.h; the built-in table, the
 * options' one, or one fitted here) or, without a table entry or with
 * level_interval, the model's own.
 *
 * ## Held-out halves (holdout)
 *
 * Anything fitted must be reported on data it was not fitted to: with
 * holdout = shape or gpu the comparisons are split deterministically
 * (enum gpuproj_holdout), intervals are fitted on the calibration half
 * only (fit_intervals), and every statistic is computed on the evaluation
 * half only; n_calibration says how many were set aside.
 * Each is NaN when n = 0. n_failed counts kernels with a measured time that
 * the model could not project (status ≠ GPUPROJ_OK); they are in no
 * statistic but listed with their reason — never dropped silently.
 *
 * Every group is reported three times: all configurations; "short" ones,
 * whose measured time on the target is below the threshold (default 50 µs);
 * and "long" ones (≥ threshold). The split uses the target's measured time
 * because that is the quantity the error is relative to: where it is a few
 * µs, launch overhead and timer resolution (gpuperfpredict publishes 1 µs
 * steps) dominate it and no model of throughput can match it. Being
 * independent of the model, the split is the same for all models.
 *
 * Groups: one per (model, source, target) pair, one "overall" per model
 * pooling the comparisons of all its pairs (not an average of pair MAPEs),
 * and per model two pooling the pairs of GPUs of the same architecture
 * generation and of different generations (gpuproj_target_generation(),
 * target.h; a pair with a GPU of unknown generation is in neither).
 *
 * Thread safety: reentrant; the result only reads the input profiles.
 */
#ifndef GPUPROJ_VALIDATE_H
#define GPUPROJ_VALIDATE_H

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

/** Schema string of the JSON written by gpuproj_validation_write_json(). */
#define GPUPROJ_VALIDATION_SCHEMA "gpuproj-validation/1"

/** Default threshold between short and long configurations, ns (50 µs). */
#define GPUPROJ_VALIDATE_DEFAULT_THRESHOLD_NS 50000.0

/** How gpuproj_validate() splits comparisons into calibration and evaluation halves. */
enum gpuproj_holdout {
	GPUPROJ_HOLDOUT_NONE = 0,  /**< no split: every comparison is evaluated */
	/**
	 * By kernel shape: a comparison is calibration when the FNV-1a hash of
	 * its kernel's name and tag (the operator shape or input size, the same
	 * on every GPU) is even, else evaluation.
	 */
	GPUPROJ_HOLDOUT_SHAPE = 1,
	/**
	 * By target GPU: the targets that appear, sorted by name; those at even
	 * positions are calibration, the others evaluation.
	 */
	GPUPROJ_HOLDOUT_GPU = 2,
};

/** @return "none", "shape", "gpu" (or "?"), from gpuproj_holdout_words() */
const char *gpuproj_holdout_name(enum gpuproj_holdout h);
/**
 * The words of enum gpuproj_holdout ("shape", "gpu", "none"; model.h
 * struct gpuproj_word), in the order messages list them.
 * @param[out] ret_n the number of words
 * @return the table (static)
 */
const struct gpuproj_word *gpuproj_holdout_words(size_t *ret_n);

struct gpuproj_intervals;

/** What to validate. Zero-initialise, then set what you need. */
struct gpuproj_validate_options {
	/** Models to run, in report order; n_models = 0: the default model. */
	const struct gpuproj_model *const *models;
	size_t n_models;
	/** Short/long threshold on the measured target time, ns; ≤ 0 or NaN: 50 µs. */
	double threshold_ns;
	/**
	 * Source GPUs to use (targets.yaml names or match strings); n_sources =
	 * 0: every input profile is a source.
	 */
	const char *const *sources;
	size_t n_sources;
	/**
	 * Target GPUs to compare on (names or match strings), in report order;
	 * n_targets = 0: every GPU of the targets set, in file order.
	 */
	const char *const *targets;
	size_t n_targets;
	/** Passed to gpuproj_model_project(); NULL for defaults. */
	const struct gpuproj_model_options *model_options;
	/** Where the targets came from ("targets.yaml", "built-in"), for reports; may be NULL. */
	const char *targets_origin;
	/**
	 * Optional progress callback, called after each (kernel, target)
	 * considered: `done` of `total` (an upper bound known at the start).
	 */
	void (*progress)(void *userdata, size_t done, size_t total);
	void *progress_userdata;
	/**
	 * Split comparisons (enum gpuproj_holdout): statistics are then computed
	 * on the evaluation half only, and a fitted table (fit_intervals) on the
	 * calibration half only.
	 */
	enum gpuproj_holdout holdout;
	/**
	 * Fit calibrated intervals (interval.h) on the calibration comparisons
	 * (all of them without holdout) and use them for the statistics; the
	 * table is returned in gpuproj_validation.fitted. Otherwise the
	 * intervals of model_options (NULL: built-in; level_interval: none).
	 */
	bool fit_intervals;
	/** Coverage to fit for, in (0, 1); ≤ 0 or NaN: GPUPROJ_INTERVALS_DEFAULT_COVERAGE. */
	double fit_coverage;
	/**
	 * Validate on what an export of Nsight Compute's default sections would
	 * hold: every input profile is first reduced by
	 * gpuproj_profile_default_sections() (model.h) against its source GPU's
	 * ceilings, and the comparisons, statistics and any fit are made on the
	 * reduced profiles (owned by the result). Only "sol" projects them; the
	 * other models fail, naming what they lack.
	 */
	bool default_sections;
	/** Recorded as "command" in a fitted table's provenance; may be NULL. */
	const char *fit_command;
	/**
	 * Recorded as "created" in a fitted table's provenance (UTC, ISO 8601,
	 * e.g. "2026-11-25T00:00:00Z"); NULL: the time of the fit.
	 */
	const char *fit_created;
};

/** Statistics of one set of comparisons; percentages as defined in the file comment. */
struct gpuproj_validation_stats {
	size_t n;              /**< comparisons (projected kernels with a measured time) */
	size_t n_failed;       /**< kernels with a measured time that were not projected */
	double mape_pct;       /**< mean absolute percentage error, %, NaN when n = 0 */
	double median_ape_pct; /**< median absolute percentage error, %, NaN when n = 0 */
	double coverage_pct;   /**< measured times inside [lo, hi], % of n, NaN when n = 0 */
	double bias_pct;       /**< mean signed percentage error, %, NaN when n = 0 */
	/** mean interval width (hi − lo) / point × 100, %, NaN when n = 0 */
	double width_pct;
};

/** Subsets every group is reported for. */
enum gpuproj_validation_subset {
	GPUPROJ_VSUBSET_ALL = 0,   /**< every comparison */
	GPUPROJ_VSUBSET_SHORT = 1, /**< measured time on the target < threshold */
	GPUPROJ_VSUBSET_LONG = 2,  /**< measured time on the target ≥ threshold */
	GPUPROJ_VSUBSET_COUNT = 3,
};

/** @return "all", "short" or "long" */
const char *gpuproj_validation_subset_name(enum gpuproj_validation_subset s);

/** Why kernels were not projected: one distinct reason and how often. */
struct gpuproj_validation_reason {
	char *why;             /**< the projection's `why` (or the status text when empty); owned */
	size_t count;          /**< kernels that failed with it */
};

/** Which pairs a group pools by generation (struct gpuproj_validation_group). */
enum gpuproj_generation_split {
	GPUPROJ_GEN_ANY = 0,  /**< a pair group, or overall */
	GPUPROJ_GEN_SAME,     /**< source and target of the same generation */
	GPUPROJ_GEN_CROSS,    /**< of different generations */
};

/**
 * Results of one model on one pair, of one model overall, or of one model
 * over its same- or cross-generation pairs.
 */
struct gpuproj_validation_group {
	const struct gpuproj_model *model;
	const struct gpuproj_target *source;  /**< NULL in an overall or generation group */
	const struct gpuproj_target *target;  /**< NULL in an overall or generation group */
	enum gpuproj_generation_split generation; /**< GPUPROJ_GEN_ANY but in generations[] */
	/** Statistics, indexed by enum gpuproj_validation_subset. */
	struct gpuproj_validation_stats stats[GPUPROJ_VSUBSET_COUNT];
	/** Why kernels were not projected: most frequent first (ties: first seen); owned. */
	struct gpuproj_validation_reason *reasons;
	size_t n_reasons;
};

/** One kernel projected onto one target and compared (successful or failed). */
struct gpuproj_validation_comparison {
	const struct gpuproj_model *model;
	const struct gpuproj_target *source;
	const struct gpuproj_target *target;
	const struct gpuproj_kernel *kernel;  /**< borrowed from the input profile */
	size_t group;          /**< index into pairs[] */
	double source_ns;      /**< mean per-launch time on the source, ns */
	double measured_ns;    /**< mean per-launch time measured on the target, ns */
	int status;            /**< the projection's status (GPUPROJ_OK when projected) */
	double lo_ns, hi_ns, point_ns; /**< the projection, ns; NaN when not projected */
	enum gpuproj_bound binding;    /**< binding resource on the target; only when projected */
	double error_pct;      /**< (point − measured)/measured × 100; NaN when not projected */
	bool covered;          /**< lo ≤ measured ≤ hi */
	/** Reason when not projected (points into the pair group's reasons), else NULL. */
	const char *why;
	double level_lo_ns, level_hi_ns; /**< the model's own interval, ns; NaN when not projected */
	bool calibrated;       /**< lo/hi are a calibrated interval (interval.h) */
	/**
	 * What the projection assumed (gpuproj_projection.assumed); a
	 * calibrated interval is widened by each assumption's factors
	 * (gpuproj_assumption_widening()), as gpuproj_model_project() does
	 */
	unsigned assumed;
};

/** A validation run. Zero-initialise; release with gpuproj_validation_clear(). */
struct gpuproj_validation {
	double threshold_ns;   /**< the short/long threshold used, ns */
	const struct gpuproj_model **models; /**< [n_models], in report order; owned array */
	size_t n_models;
	/** One group per pair: by model, then source (input order), then target; owned. */
	struct gpuproj_validation_group *pairs;
	size_t n_pairs;
	struct gpuproj_validation_group *overall; /**< [n_models], parallel to models; owned */
	/**
	 * [2 · n_models]: for model i, [2i] pools its same-generation pairs and
	 * [2i + 1] its cross-generation pairs (enum gpuproj_generation_split);
	 * owned.
	 */
	struct gpuproj_validation_group *generations;
	/** Every comparison (projected or failed), in pair order; owned. */
	struct gpuproj_validation_comparison *comparisons;
	size_t n_comparisons;
	char **citations;      /**< distinct "citation" attributes of the inputs (the
				    gpuperfpredict one for profiles of that origin); owned */
	size_t n_citations;
	char *targets_origin;  /**< copy of the option, or NULL; owned */
	enum gpuproj_holdout holdout; /**< the split used */
	size_t n_calibration;  /**< comparisons in the calibration half (not in the statistics) */
	/** The table fitted with fit_intervals, else NULL; owned (gpuproj_intervals_free()). */
	struct gpuproj_intervals *fitted;
	/** Where the intervals of the statistics come from: "fitted: …", "built-in: …", "levels". */
	char *intervals_origin;
	/** The inputs were reduced to the default sections (option default_sections). */
	bool default_sections;
	/**
	 * With default_sections: the reduced profiles, parallel to the inputs;
	 * the comparisons' kernels point into them. Owned.
	 */
	struct gpuproj_profile **derived;
	size_t n_derived;
};

/**
 * Run the validation.
 *
 * The source GPU of each profile is found with gpuproj_resolve_source()
 * (device.target, else device.name through `match`). The result borrows
 * the profiles' kernels (with default_sections: its own reduced copies) and
 * the targets' GPUs: both must outlive it.
 *
 * @param profiles input profiles (e.g. from gpuproj_import_datasets(), import.h)
 * @param n_profiles number of profiles
 * @param targets GPU descriptions
 * @param opt options, or NULL for defaults
 * @param[out] out filled on success (an empty run — no comparison at all —
 *             is a success: check n_comparisons); zeroed first
 * @param[out] reterr optional
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL arguments); GPUPROJ_E_NOTFOUND
 *         (a profile's GPU, or a --source/--target name, not in targets;
 *         a source that no profile was measured on); GPUPROJ_E_NOMEM
 */
int gpuproj_validate(const struct gpuproj_profile *const *profiles, size_t n_profiles,
		     const struct gpuproj_targets *targets,
		     const struct gpuproj_validate_options *opt, struct gpuproj_validation *out,
		     struct gpuproj_error *reterr);

/** Free what gpuproj_validate() allocated and zero it; accepts a zeroed struct. */
void gpuproj_validation_clear(struct gpuproj_validation *v);

/**
 * The human table: citation lines ("Data: …"), a header naming the models,
 * threshold, targets, intervals, held-out split and (with default_sections)
 * the inputs, then one row per pair, one "(all)" row per model, and per
 * model a "(same gen)" and a "(cross gen)" row (each only when it has
 * comparisons) with n, failed, MAPE, median APE,
 * coverage, interval width and bias (%, "-" when n = 0) for all, short and
 * long configurations, then the reasons kernels were not projected and a
 * legend.
 *
 * @param out the stream (flushed, not closed)
 * @param v a run filled by gpuproj_validate()
 * @return GPUPROJ_OK or GPUPROJ_E_IO when the stream reports an error
 */
int gpuproj_validation_write_table(FILE *out, const struct gpuproj_validation *v);

/**
 * CSV (RFC 4180 quoting): first one comment line "# Data: CITATION" per
 * citation (and, with default_sections, one "# Inputs: …" line), then the
 * header `model,source,target,subset,threshold_ns,n,
 * n_failed,mape_pct,median_ape_pct,coverage_pct,bias_pct,width_pct` (one
 * line) and
 * three rows (subset all, short, long) per pair, then per model three
 * rows with source and target "(all)", then per model three with source
 * "(same gen)" and three with "(cross gen)", target "(all)" (each only
 * when it has comparisons). Empty fields = NaN (no comparison).
 *
 * @param out the stream (flushed, not closed)
 * @param v a run filled by gpuproj_validate()
 * @return GPUPROJ_OK or GPUPROJ_E_IO when the stream reports an error
 */
int gpuproj_validation_write_csv(FILE *out, const struct gpuproj_validation *v);

/**
 * JSON, written atomically to `path` ("-" = standard output):
 * @code
 * { "schema": "gpuproj-validation/1",
 *   "citations": ["…"], "targets": "targets.yaml" | null,
 *   "threshold_ns": 50000, "intervals": "built-in: …" | null,
 *   "holdout": "none" | "shape" | "gpu", "n_calibration": 0,
 *   "inputs": "profiles" | "default-sections", "models": ["hroof"],
 *   "pairs": [ { "model": "hroof", "source": "GTX-680", "target": "GTX-970",
 *                "all": STATS, "short": STATS, "long": STATS,
 *                "failures": [ { "why": "…", "count": 3 } ] } ],
 *   "overall": [ { "model": "hroof", "all": STATS, "short": STATS, "long": STATS,
 *                  "failures": [ … ] } ],
 *   "generations": [ { "model": "hroof", "generation": "same" | "cross",
 *                      "all": STATS, "short": STATS, "long": STATS,
 *                      "failures": [ … ] } ],
 *   "comparisons": [ { "model", "source", "target", "kernel", "tag", "grid": [x,y,z],
 *                      "block": [x,y,z], "source_ns", "measured_ns", "status": "ok" | text,
 *                      "lo_ns", "hi_ns", "point_ns", "level_lo_ns", "level_hi_ns",
 *                      "calibrated", "binding", "error_pct", "covered", "why" } ] }
 *                                                  (only when details is true)
 * @endcode
 * STATS = { "n", "n_failed", "mape_pct", "median_ape_pct", "coverage_pct",
 * "bias_pct", "width_pct" }, null for NaN. Times in ns, percentages in %.
 *
 * @param details include the per-kernel "comparisons" array
 * @return GPUPROJ_OK; GPUPROJ_E_IO (reterr names the file); GPUPROJ_E_NOMEM
 */
int gpuproj_validation_write_json(const char *path, const struct gpuproj_validation *v,
				  bool details, struct gpuproj_error *reterr);

/**
 * What one assumption (model.h enum gpuproj_assumption) costs one model,
 * measured by taking its input away from the validation profiles
 * (gpuproj_model_options.drop_inputs) and validating again
 * (gpuproj_validate_assumptions()). The cases are the comparisons whose
 * kernel had the input (the run with it made no such assumption) and that
 * were projected with and without it; the calibration half (by shape:
 * FNV-1a of kernel name and tag even, as `--holdout shape`) fits, the
 * evaluation half (odd) reports.
 */
struct gpuproj_assumption_cost {
	const struct gpuproj_model *model;
	enum gpuproj_assumption assumption;
	size_t n;              /**< calibration cases */
	/**
	 * Projections without the input that stated the assumption, both
	 * halves; 0: the model does not read the input (with these options).
	 */
	size_t n_assumed;
	/**
	 * The shortest window of the ratios measured / projected holding the
	 * coverage's share of them (interval.h's method), pooled over bindings
	 * and classes: with the input, and without it.
	 */
	double base_lo, base_hi, drop_lo, drop_hi;
	/**
	 * The widening: lo = min(1, drop_lo / base_lo), hi = max(1, drop_hi /
	 * base_hi); both 1 when n < GPUPROJ_INTERVALS_MIN_GROUP (not measured)
	 */
	double lo, hi;
	bool measured;         /**< n ≥ GPUPROJ_INTERVALS_MIN_GROUP */
	size_t n_eval;         /**< evaluation cases */
	/** MAPE of the evaluation cases with and without the input, %. */
	double mape_base_pct, mape_drop_pct;
	/**
	 * Coverage on the evaluation cases without the input, %: of the
	 * calibrated interval of the built-in table (interval.h), and of that
	 * interval widened by lo, hi.
	 */
	double cover_plain_pct, cover_widened_pct;
	/**
	 * Coverage on the same cases with the built-in widening
	 * (gpuproj_assumption_widening(), src/data/assumptions.json), %: on
	 * corpora the built-in table was not measured on, a held-out check.
	 */
	double cover_builtin_pct;
	/**
	 * naive (the datasheet ratio, every input present) on the same
	 * evaluation cases (its comparison of the same source, target and
	 * kernel in the run with every input): MAPE, %, and the number of
	 * cases; NaN and 0 when naive was not among the models or did not
	 * project every one of them
	 */
	double naive_mape_pct;
	size_t n_naive;
};

/** A measurement of every assumption's cost (gpuproj_validate_assumptions()). */
struct gpuproj_assumption_study {
	struct gpuproj_assumption_cost *costs; /**< by model, then assumption; owned */
	size_t n_costs;
	char **citations;      /**< the corpora, as gpuproj_validation.citations; owned */
	size_t n_citations;
	double coverage;       /**< the windows' coverage, 0..1 */
};

/**
 * Measure what each assumption with an input (gpuproj_assumption_info().input
 * not NULL) costs each model of `opt`: one gpuproj_validate() run with
 * every input, then one per assumption with its input taken away
 * (model_options.drop_inputs), paired comparison by comparison
 * (struct gpuproj_assumption_cost says how). opt->holdout, fit_intervals
 * and default_sections are ignored (the split is by shape); opt->
 * fit_coverage is the windows' coverage (≤ 0 or NaN: 0.85, the built-in
 * intervals'). Progress: opt->progress over all runs.
 *
 * @param[out] out filled; release with gpuproj_assumption_study_clear()
 * @return as gpuproj_validate()
 */
int gpuproj_validate_assumptions(const struct gpuproj_profile *const *profiles,
				 size_t n_profiles, const struct gpuproj_targets *targets,
				 const struct gpuproj_validate_options *opt,
				 struct gpuproj_assumption_study *out,
				 struct gpuproj_error *reterr);

/** Free what gpuproj_validate_assumptions() allocated; accepts a zeroed struct. */
void gpuproj_assumption_study_clear(struct gpuproj_assumption_study *s);

/**
 * Write a study as the widening table that gpuproj_assumption_widening()
 * reads (src/data/assumptions.json), schema "gpuproj-assumptions/1",
 * atomically ("-" = standard output):
 * @code
 * { "schema": "gpuproj-assumptions/1", "method": "…", "coverage": 0.85,
 *   "provenance": { "corpora": ["…"], "split": "…", "created": "…",
 *                   "tool": "gpuproj …", "command": "…" },
 *   "factors": [ { "assumption": "full warps", "input": "warp-efficiency",
 *                  "model": "hroof-occ", "lo": 0.97, "hi": 1.21, "n": 1234,
 *                  "base": [lo, hi], "dropped": [lo, hi], "n_eval": 1200,
 *                  "mape_pct": [with, without], "coverage_pct": [plain, widened],
 *                  "coverage_builtin_pct": 85.0, "naive_mape_pct": 58.3 } ],
 *   "unmeasured": [ { "assumption": "registers capped", "model": "…" | null,
 *                     "why": "…" } ] }
 * @endcode
 * Only measured costs are factors; the others are listed as unmeasured,
 * with why. "naive_mape_pct" is null where naive was not measured on the
 * same cases (gpuproj_assumption_cost.naive_mape_pct).
 *
 * @param created UTC date (ISO 8601) to record, NULL: now
 * @param command the command to record, or NULL
 * @return GPUPROJ_OK; GPUPROJ_E_IO; GPUPROJ_E_NOMEM
 */
int gpuproj_assumption_study_save(const struct gpuproj_assumption_study *s, const char *path,
				  const char *created, const char *command,
				  struct gpuproj_error *reterr);

/**
 * The study as a table: per model and assumption, n, the widening, MAPE
 * with and without the input, the coverage of the plain and widened
 * intervals on the evaluation half, and naive's MAPE on the same cases.
 * @return GPUPROJ_OK or GPUPROJ_E_IO
 */
int gpuproj_assumption_study_write_table(FILE *out, const struct gpuproj_assumption_study *s);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_VALIDATE_H */
