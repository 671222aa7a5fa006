/* SPDX-License-Identifier: MIT */
/**
 * @file interval.h
 * Calibrated projection intervals: how wrong each model usually is, from
 * its validation residuals, as an interval around its point estimate that
 * held the measured time in a chosen share (the coverage: 85 % for the
 * built-in table) of the validation cases (docs/validation.md "Intervals").
 *
 * **Method** (split-conformal prediction with the shortest interval; Vovk,
 * Gammerman, Shafer, *Algorithmic Learning in a Random World*, 2005;
 * Lei, G'Sell, Rinaldo, Tibshirani, Wasserman, "Distribution-free
 * predictive inference for regression", JASA 113, 2018, §2.2). For every
 * comparison i of a calibration set (a kernel projected from one GPU onto
 * another that measured it, gpuproj_validate()) the residual is the ratio
 * ρ_i = measured_i / point_i. Comparisons are grouped by model, binding
 * resource on the target (enum gpuproj_bound) and class ("short": point
 * < 50 µs, else "long"). In a group of n residuals sorted ascending, with
 * k = ⌈(n + 1)·c⌉ (c = the coverage, 0.85; k ≤ n), the interval is the
 * window [ρ_j, ρ_(j+k−1)] of k consecutive residuals whose width
 * ρ_(j+k−1) − ρ_j is smallest: the narrowest interval, in % of the point,
 * that holds k of the n calibration cases. A projection's interval is then
 * [point · lo, point · hi] with (lo, hi) the factors of its group. Under
 * exchangeability of calibration and new cases the finite-sample guarantee
 * is coverage ≥ c; across corpora, GPUs and kernels it is not guaranteed,
 * which is why validate reports coverage on held-out halves.
 *
 * **Groups and fallback.** A group is stored when it has at least
 * `min_group` residuals (30); a lookup uses (model, binding, class), else
 * (model, "*", class), else (model, "*", "*"), else nothing: the model's
 * own interval (hroof: [min, max over levels]) stays.
 *
 * **Data.** A table is JSON, schema "gpuproj-intervals/1", with its
 * provenance (corpora, split, date, tool version, targets, n, and where
 * recorded the inputs and the command); the built-in one is
 * src/data/intervals.json, compiled into the core, made by
 * `gpuproj validate … --holdout shape --fit-intervals FILE` on the
 * corpora's counters, with sol's groups merged in from a run on the
 * default sections derived from them (gpuproj_intervals_merge();
 * docs/models.md "Intervals" gives both commands, the provenance records them).
 *
 * **GPUs.** A fit records in its provenance, as "gpus", the sorted
 * targets.yaml names of every GPU its calibration cases were measured on
 * or projected onto. The guarantee above is for new kernels on those GPUs:
 * refitted on half of each corpus's target GPUs, the built-in method held
 * the measured time in 38–79 % of the long launches on the other half, not
 * 85 % (docs/validation.md "Intervals"), since a model's error depends mostly on how
 * well targets.yaml describes the pair. gpuproj_intervals_gpu_fitted() says
 * whether a GPU is among them, so that project, report and gate can say
 * when an interval is used outside the GPUs it was fitted on.
 *
 * **Order of two targets** (docs/validation.md "Order of two
 * targets"). A procurement decision needs the order of two targets more
 * than either time, and the part of the error two targets projected from
 * one source share (the source's own measurement, the kernel's efficiency
 * carried by the ratio method) cancels in their ratio. For one kernel
 * projected from one source onto targets A and B with points p_A, p_B and
 * measured times m_A, m_B, the residual of the projected ratio is
 *   d = log((m_A / m_B) / (p_A / p_B)) = log(m_A / p_A) − log(m_B / p_B).
 * A fit pools, per model, the d of every pair of calibration cases with the
 * same `set` and source (each unordered target pair once), in groups by
 * whether A and B have the same binding resource ("same", "different")
 * and class ("short" when either point is under short_ns, else "long"),
 * and stores σ = √(Σ d² / n), the root mean square about 0 (a shared bias
 * the projection does not correct counts as spread), for every group of at
 * least min_group pairs and pooled ("*", "*"). Taking d as normal with
 * that σ (a model, not a guarantee: docs/validation.md gives its
 * reliability on GPUs held out of the fit), the probability that the
 * target projected faster is the faster one is
 *   P = Φ(|log(p_A / p_B)| / σ),
 * Φ the standard normal distribution function. Tables fitted before the
 * order was recorded, and models without pairs, have no order groups.
 * In the JSON the groups are the optional object "order": {"method",
 * optionally "provenance" (an object, kept as it is: where the order was
 * fitted when not by the fit the top-level provenance describes),
 * "groups": [{"model", "bindings": "same"|"different"|"*", "class":
 * "short"|"long"|"*", "n", "sigma"}]}; a merge keeps base's order groups
 * but those of the models add has groups of either kind for (their
 * provenance is add's: a model add fitted without pairs is left without
 * order groups, not with base's), then add's.
 *
 * Thread safety: a loaded table is immutable and may be shared between
 * threads; gpuproj_intervals_builtin() is thread-safe.
 */
#ifndef GPUPROJ_INTERVAL_H
#define GPUPROJ_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/error.h>
#include <gpuproj/model.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Schema string of a table. */
#define GPUPROJ_INTERVALS_SCHEMA "gpuproj-intervals/1"
/**
 * Coverage a fit is made for unless told otherwise: the built-in table's
 * (src/data/intervals.json "coverage", 85 %), so that one nominal coverage
 * holds everywhere. What the reports print comes from the table itself
 * (gpuproj_intervals_coverage()); tests check the two agree.
 */
#define GPUPROJ_INTERVALS_DEFAULT_COVERAGE 0.85
/** Fewest residuals a stored group has. */
#define GPUPROJ_INTERVALS_MIN_GROUP 30
/** Short/long class boundary on the projected point, ns (50 µs). */
#define GPUPROJ_INTERVALS_SHORT_NS 50000.0

/** A table of calibrated intervals (opaque). */
struct gpuproj_intervals;

/** One calibration case: a projection and what the target measured. */
struct gpuproj_interval_sample {
	const struct gpuproj_model *model;
	enum gpuproj_bound binding;  /**< the projection's binding resource */
	double point_ns;             /**< projected point, ns (> 0) */
	double measured_ns;          /**< measured on the target, ns (> 0) */
	/**
	 * targets.yaml names of the GPUs the kernel was measured on (source)
	 * and projected onto (target); NULL: not known. The fit records every
	 * name it met in the provenance's "gpus" (gpuproj_intervals_gpu_fitted()).
	 */
	const char *source_gpu, *target_gpu;
	/**
	 * What was projected (e.g. the source profile's kernel); NULL: not
	 * known. Cases of one model with the same non-NULL `set` and the same
	 * source_gpu are one kernel projected from one source onto several
	 * targets: the fit pairs them (but two of the same target_gpu) for the
	 * order of two targets ("Order" above, gpuproj_intervals_order()).
	 */
	const void *set;
};

/** Where a fitted table comes from (copied into it). Strings may be NULL. */
struct gpuproj_intervals_provenance {
	const char *const *corpora;  /**< citations of the data sets */
	size_t n_corpora;
	const char *split;           /**< which comparisons were fitted, in words */
	const char *targets;         /**< targets.yaml used ("built-in", a path) */
	const char *created;         /**< UTC date and time, ISO 8601; NULL: now */
	/**
	 * What the projections were made from, in words (e.g. the data sets'
	 * own metrics, or the default sections derived from them); NULL: not
	 * recorded.
	 */
	const char *inputs;
	/** The command that fitted the table, as run; NULL: not recorded. */
	const char *command;
};

/**
 * Fit a table from calibration cases (method in the file comment).
 *
 * @param s cases; those with a non-positive or non-finite time are skipped
 * @param n number of cases
 * @param coverage c in (0, 1); ≤ 0 or NaN: GPUPROJ_INTERVALS_DEFAULT_COVERAGE
 * @param prov provenance to record (may be NULL)
 * @param[out] ret new table; free with gpuproj_intervals_free()
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL ret, coverage ≥ 1);
 *         GPUPROJ_E_UNSUPPORTED (no usable case); GPUPROJ_E_NOMEM
 */
int gpuproj_intervals_fit(const struct gpuproj_interval_sample *s, size_t n, double coverage,
			  const struct gpuproj_intervals_provenance *prov,
			  struct gpuproj_intervals **ret, struct gpuproj_error *reterr);

/**
 * Load a table from a file.
 * @return GPUPROJ_OK; GPUPROJ_E_IO; GPUPROJ_E_PARSE (not JSON, with line
 *         and column); GPUPROJ_E_SCHEMA (another schema, a missing or
 *         mistyped field, a factor ≤ 0 or lo > hi, an unknown binding or
 *         class, coverage outside (0, 1); the message names the field,
 *         and line and column point at it when the table holds it);
 *         GPUPROJ_E_NOMEM. Groups of models gpuproj does not know are kept
 *         and ignored by lookups.
 */
int gpuproj_intervals_load(const char *path, struct gpuproj_intervals **ret,
			   struct gpuproj_error *reterr);
/** As gpuproj_intervals_load() from memory; `name` is used in messages. */
int gpuproj_intervals_load_buffer(const char *text, size_t len, const char *name,
				  struct gpuproj_intervals **ret, struct gpuproj_error *reterr);
/**
 * The built-in table (src/data/intervals.json), parsed once.
 * @return the table, never to be freed; NULL only if the compiled-in data
 *         were broken (a test guards that)
 */
const struct gpuproj_intervals *gpuproj_intervals_builtin(void);
/**
 * Merge the groups of two tables fitted for the same coverage: the result
 * holds, in order, every group of `base` except those of the models that
 * `add` has groups for, then every group of `add` — each copied unchanged,
 * so a saved result repeats base's remaining groups byte for byte. Used to
 * add a model fitted on other inputs (sol on the default sections) to a
 * table fitted on full counters (`gpuproj validate --merge-intervals`).
 *
 * Provenance: base's, with a "merged" array: base's own "merged" entries
 * (less the models `add` replaces; an entry left without models is
 * dropped), then one entry for `add`: {"models": [names], …add's
 * provenance}. The top-level provenance then describes the groups of every
 * model not named in an entry. gpuproj_intervals_origin() names the
 * merged models.
 *
 * @param base the table to merge into (may be the built-in one)
 * @param add the groups to add or replace (a model's groups replace all of
 *        that model's groups in base)
 * @param[out] ret new table; free with gpuproj_intervals_free()
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (a NULL argument; the tables differ in
 *         coverage, min_group or short_ns: the message says which, as
 *         their groups would not mean the same); GPUPROJ_E_NOMEM
 */
int gpuproj_intervals_merge(const struct gpuproj_intervals *base,
			    const struct gpuproj_intervals *add, struct gpuproj_intervals **ret,
			    struct gpuproj_error *reterr);
/** Write a table as JSON, atomically ("-" = standard output). */
int gpuproj_intervals_save(const struct gpuproj_intervals *iv, const char *path,
			   struct gpuproj_error *reterr);
/** Free a table (not the built-in one); NULL is allowed. Returns NULL. */
struct gpuproj_intervals *gpuproj_intervals_free(struct gpuproj_intervals *iv);

/**
 * The interval factors for one projection (fallback in the file comment).
 *
 * @param point_ns the projected point, ns (sets the class)
 * @param[out] ret_lo, ret_hi factors: interval = [point·lo, point·hi]
 * @param[out] ret_n optional: calibration cases behind them
 * @return true when the table has a group for the model
 */
bool gpuproj_intervals_lookup(const struct gpuproj_intervals *iv, const struct gpuproj_model *m,
			      enum gpuproj_bound binding, double point_ns, double *ret_lo,
			      double *ret_hi, size_t *ret_n);

/**
 * Whether a GPU took part in the fit of model m's groups: it is in the
 * "gpus" list of the provenance that describes them (the "merged" entry
 * naming m, else the top level; see "GPUs" above). Names compare exactly
 * (targets.yaml names).
 *
 * @param iv table (NULL: -1)
 * @param m model (NULL: -1)
 * @param gpu targets.yaml name of the GPU (NULL: -1)
 * @return 1: fitted on it; 0: not; -1: the table does not say (no "gpus"
 *         list: tables fitted before it was recorded, or written by hand)
 */
int gpuproj_intervals_gpu_fitted(const struct gpuproj_intervals *iv,
				 const struct gpuproj_model *m, const char *gpu);

/** The order of two projected targets (gpuproj_intervals_order()). */
struct gpuproj_order {
	/**
	 * Probability that the target projected faster is faster when both
	 * run the kernel, in [0.5, 1): Φ(|log(a_ns / b_ns)| / σ) ("Order of
	 * two targets" above); 0.5 when the points are equal.
	 */
	double p_holds;
	/** σ of the group used (natural log of the ratio, dimensionless). */
	double sigma;
	/** Calibration pairs behind σ. */
	size_t n;
	/** 0: a is projected faster; 1: b is; -1: equal points. */
	int faster;
};

/**
 * The probability that the projected order of two targets holds, from the
 * table's order groups: the group of the two bindings (same or different)
 * and the class (short when either point is under short_ns), else, and
 * when either binding is GPUPROJ_BOUND_NONE or GPUPROJ_BOUND_UNKNOWN, the
 * model's pooled one. The two projections are of the same
 * work from the same source by model m (a kernel, or a run's totals with
 * the binding of most of its time); the function does not see the targets,
 * so it can back any caller's order (project's table, the procurement
 * report's gpuproj_report_order_fn through a thin adapter).
 *
 * @param iv table (gpuproj_intervals_builtin() for the built-in one)
 * @param m model that made both projections
 * @param a_ns, b_ns projected points on targets A and B, ns (> 0, finite)
 * @param a_binding, b_binding their binding resources
 * @param[out] ret filled on success
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (a NULL argument, a time ≤ 0 or not
 *         finite, a binding above GPUPROJ_BOUND_UNKNOWN); GPUPROJ_E_UNSUPPORTED
 *         (the table has no order group for the model: the message names it)
 */
int gpuproj_intervals_order(const struct gpuproj_intervals *iv, const struct gpuproj_model *m,
			    double a_ns, enum gpuproj_bound a_binding, double b_ns,
			    enum gpuproj_bound b_binding, struct gpuproj_order *ret,
			    struct gpuproj_error *reterr);

/** The coverage the table was fitted for, 0..1. */
double gpuproj_intervals_coverage(const struct gpuproj_intervals *iv);
/**
 * A one-line description of where the table comes from ("fitted 2026-…
 * on …, n = …"), for reports; owned by the table.
 */
const char *gpuproj_intervals_origin(const struct gpuproj_intervals *iv);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_INTERVAL_H */
