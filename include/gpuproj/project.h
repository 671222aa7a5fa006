/* SPDX-License-Identifier: MIT */
/**
 * @file project.h
 * Writers for projections: the human table, CSV and JSON (profile plus
 * projections). All times are ns in machine-readable output; the table
 * prints human units.
 *
 * Thread safety: reentrant; writers only read their inputs.
 */
#ifndef GPUPROJ_PROJECT_H
#define GPUPROJ_PROJECT_H

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

/** Targets up to which the short table still has a row per target per kernel. */
#define GPUPROJ_TABLE_SHORT_TARGETS 8

/** What to show. Zero-initialise for defaults. */
struct gpuproj_project_write_options {
	size_t top_kernels;      /**< kernels detailed per target in the table; 0 = default (5) */
	bool all_kernels;        /**< detail every kernel (overrides top_kernels) */
	/**
	 * Table: the long form. Without it (a 16-kernel profile on 58
	 * targets used to print 500 lines) the model's notes per target are left
	 * out, and a detailed kernel gets one row per target only when there
	 * are at most GPUPROJ_TABLE_SHORT_TARGETS targets, else two summary
	 * lines (the speedup range with its GPUs, the bindings counted, the
	 * targets it was not projected onto).
	 */
	bool verbose;
	const char *profile_label; /**< how to name the profile in headers (file name), or NULL */
	/**
	 * JSON (gpuproj_project_json_ex()): add to each projected kernel a
	 * "details" object with every number gpuproj_model_details() gives
	 * (large: about 40 numbers per kernel, target and model).
	 */
	bool details;
	/** Side-by-side table: disagreement factor; ≤ 1 = GPUPROJ_MODEL_DISAGREEMENT_FACTOR. */
	double disagreement_factor;
	/**
	 * The table whose order groups give the order of the leading targets
	 * (gpuproj_intervals_order(), interval.h); NULL: the built-in one.
	 */
	const struct gpuproj_intervals *intervals;
};

/** Leading targets whose order the table and the JSON give (adjacent pairs of them). */
#define GPUPROJ_PROJECT_ORDER_LEADING 4

/**
 * Print the projection table: run header, whole-run totals per target
 * (projected time with interval, speedup over the source, measured time
 * and error where the profile carries reference times), then per-kernel
 * detail for the top kernels by source time.
 *
 * @param out stream to write
 * @param p the profile (kernels in the order `runs[*].kernels` refer to)
 * @param src the source GPU
 * @param runs projections, one per target, all of the same model, each of
 *        gpuproj_profile_count(p) kernels (gpuproj_project_run() of `p`)
 * @param n_runs number of runs
 * @param opt options or NULL
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (a run that does not cover the
 *         profile's kernels), GPUPROJ_E_NOMEM, or GPUPROJ_E_IO when the
 *         stream reports an error
 */
int gpuproj_project_table(FILE *out, const struct gpuproj_profile *p,
			  const struct gpuproj_target *src,
			  const struct gpuproj_run_projection *runs, size_t n_runs,
			  const struct gpuproj_project_write_options *opt);

/**
 * A run provider for the streaming writers: run `i` (0, 1, … in order, each
 * once) of a profile's projections, valid until the next call; the
 * provider may compute it on demand and release it at the next call, so a
 * writer holds one run at a time (100,000 kernels onto 44 GPUs: 2.3 GB of
 * projections at once, about 50 MB one by one). NULL on failure, with
 * *ret_status the reason (GPUPROJ_E_NOMEM, …).
 */
typedef const struct gpuproj_run_projection *(*gpuproj_project_provider_fn)(void *userdata,
									    size_t i,
									    int *ret_status);

/**
 * gpuproj_project_table() with the runs from a provider: the table keeps of
 * each run only its totals and the projections of the kernels it details.
 *
 * @param n_runs runs the provider gives (0 prints nothing)
 * @param get,userdata the provider
 * @return as gpuproj_project_table(); a provider's failure status
 */
int gpuproj_project_table_stream(FILE *out, const struct gpuproj_profile *p,
				 const struct gpuproj_target *src, size_t n_runs,
				 gpuproj_project_provider_fn get, void *userdata,
				 const struct gpuproj_project_write_options *opt);

/**
 * The whole run per target (timeline.h), printed by
 * gpuproj_project_table() after the kernel totals when the profile has a
 * timeline: projected wall time with its interval and speedup, its parts
 * (kernel, copy, host, overlap, carried), the measured wall, the share the
 * replay explains and the identity check. Nothing when no run has a
 * whole-run projection.
 *
 * @param runs as for gpuproj_project_table()
 * @return GPUPROJ_OK or GPUPROJ_E_IO (stream error)
 */
int gpuproj_project_whole_run_table(FILE *out, const struct gpuproj_profile *p,
				    const struct gpuproj_run_projection *runs, size_t n_runs);

/**
 * The note of the runs' assumptions (gpuproj_run_projection.n_assumed,
 * n_assumption): one line "note: [WHO ]projected with assumptions for
 * inputs the profile lacks: WORD (N of M kernel(s)[ on every target]), …
 * (up to N of M kernel(s), on T of U targets) …; their intervals are
 * widened …", nothing when no kernel of any run needed one. Printed by the
 * tables of project and `--model all`.
 *
 * @param runs runs[0], runs[stride], … runs[(n_runs − 1) · stride] are read
 * @param who a model name, or NULL
 */
void gpuproj_project_assumed_note(FILE *out, const struct gpuproj_run_projection *runs,
				  size_t n_runs, size_t stride, const char *who);

/**
 * CSV, one row per (kernel, target) and one "(total)" row per target.
 * Columns: kernel, tag, grid, block, launches, source_ns, target, model,
 * status, lo_ns, hi_ns, point_ns, speedup, binding, measured_ns, error_pct,
 * why, interval_gpus, source_basis. Times per launch for kernels, whole-run
 * for totals. With a timeline, each target's "(total)" row is followed by
 * its whole-run rows: "(whole run)" (projected wall time, interval, measured
 * wall in source_ns, explained share and identity error in why) and one
 * row per part, "(whole run: kernel)", copy, host, overlap, carried (value
 * in point_ns). RFC 4180 quoting. source_basis: "targets.yaml", or
 * "device-attributes" when `src` is a provisional entry
 * (gpuproj_targets_derive()); `src` may be NULL (then "targets.yaml");
 * `runs` as for gpuproj_project_table().
 *
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (a run that does not cover the
 *         profile's kernels) or GPUPROJ_E_IO
 */
int gpuproj_project_csv(FILE *out, const struct gpuproj_profile *p,
			const struct gpuproj_target *src,
			const struct gpuproj_run_projection *runs, size_t n_runs);

/**
 * gpuproj_project_csv() with the runs from a provider (see
 * gpuproj_project_table_stream()): each run's rows are written as it comes.
 *
 * @param src the source GPU (its basis fills the source_basis column), or NULL
 * @return as gpuproj_project_csv(); a provider's failure status
 */
int gpuproj_project_csv_stream(FILE *out, const struct gpuproj_profile *p,
			       const struct gpuproj_target *src, size_t n_runs,
			       gpuproj_project_provider_fn get, void *userdata);

/**
 * Write the profile plus a "projections" array (schema gpuproj-profile/1,
 * docs/formats/profile.md) atomically to `path` ("-" = standard output).
 *
 * @param src the source GPU (its name is written as "source_target"), or NULL
 * @param runs as for gpuproj_project_table()
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (NULL profile, a run that does not
 *         cover the profile's kernels), GPUPROJ_E_IO (reterr names the file),
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_project_json(const char *path, const struct gpuproj_profile *p,
			 const struct gpuproj_target *src,
			 const struct gpuproj_run_projection *runs, size_t n_runs,
			 struct gpuproj_error *reterr);

/**
 * As gpuproj_project_json(), with options: `opt->details` adds each
 * projection's model details. Every projected kernel also carries its
 * model's "note" when non-empty (both functions).
 *
 * @param opt options or NULL (no details)
 */
int gpuproj_project_json_ex(const char *path, const struct gpuproj_profile *p,
			    const struct gpuproj_target *src,
			    const struct gpuproj_run_projection *runs, size_t n_runs,
			    const struct gpuproj_project_write_options *opt,
			    struct gpuproj_error *reterr);

/**
 * gpuproj_project_json_ex() with the runs from a provider (see
 * gpuproj_project_table_stream()): written one kernel and one run at a time
 * straight into the temporary file beside `path` ("-": standard output),
 * so memory is the profile's and one run's, whatever the output's size.
 *
 * @return as gpuproj_project_json_ex(); a provider's failure status
 */
int gpuproj_project_json_stream(const char *path, const struct gpuproj_profile *p,
				const struct gpuproj_target *src, size_t n_runs,
				gpuproj_project_provider_fn get, void *userdata,
				const struct gpuproj_project_write_options *opt,
				struct gpuproj_error *reterr);

/**
 * The JSON of gpuproj_project_json_ex() as text instead of a file, so a
 * caller holding a lock can render under it and write after releasing it.
 *
 * @param[out] ret_text malloc'd, NUL-terminated JSON ending in a newline;
 *             the caller frees it; untouched on failure
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (NULL profile, or a projection that
 *         does not cover the profile's kernels), GPUPROJ_E_NOMEM
 */
int gpuproj_project_json_text(const struct gpuproj_profile *p, const struct gpuproj_target *src,
			      const struct gpuproj_run_projection *runs, size_t n_runs,
			      const struct gpuproj_project_write_options *opt, char **ret_text,
			      struct gpuproj_error *reterr);

/**
 * Print several models side by side (`gpuproj project --model all`): the
 * run header, whole-run projected time per target with one column per
 * model, then, for the top kernels by source time, per target one column
 * per model (per-launch point estimates), the measured time where the
 * profile has one, and a "!" where the models disagree by more than
 * `opt->disagreement_factor` (gpuproj_models_disagree()); reasons for
 * kernels a model could not project are listed under the kernel.
 *
 * @param runs n_targets × n_models projections, target-major:
 *        runs[t·n_models + m] is model m on target t; every target's models
 *        in the same order
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (n_models = 0 or inconsistent runs),
 *         GPUPROJ_E_NOMEM, GPUPROJ_E_IO (stream error)
 */
int gpuproj_project_table_models(FILE *out, const struct gpuproj_profile *p,
				 const struct gpuproj_target *src,
				 const struct gpuproj_run_projection *runs, size_t n_targets,
				 size_t n_models, const struct gpuproj_project_write_options *opt);

/**
 * Measured whole-run time of a profile on another GPU: Σ reference mean ×
 * launches, when every timed kernel carries a reference for that GPU.
 *
 * @param gpu targets.yaml name
 * @return ns, or NaN when any timed kernel lacks a reference
 */
double gpuproj_project_measured_total_ns(const struct gpuproj_profile *p, const char *gpu);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_PROJECT_H */
