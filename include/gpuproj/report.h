/* SPDX-License-Identifier: MIT */
/**
 * @file report.h
 * The procurement report (`gpuproj report`): one or more profiles projected
 * onto target GPUs, written as one self-contained HTML file (inline SVG
 * charts drawn with PLplot, no scripts, no external resources) and as
 * GitHub-flavoured Markdown for merge-request comments.
 *
 * The document is built once (gpuproj_report_doc_new(), src/report-doc.c)
 * and then formatted by two sibling writers that only read it:
 * gpuproj_report_doc_html() (src/report-html.c) and
 * gpuproj_report_doc_markdown() (src/report-md.c); gpuproj_report_doc_write()
 * (src/report-write.c) renders both and writes the files.
 *
 * A struct gpuproj_report_doc holds everything the two writers show:
 *
 * - per profile, every kernel projected with the chosen model (default
 *   gpuproj_model_default()) onto every target: the numbers are those of
 *   gpuproj_project_run(), unchanged;
 * - per profile and combined over all profiles, a ranking of the targets
 *   by projected whole-run GPU kernel time (Σ point × launches, plus the
 *   source time of kernels the model cannot project, carried unchanged),
 *   with interval, speedup over the source, time × price and energy where
 *   targets.yaml has price_usd and tdp_w; when every profile has a
 *   whole-run timeline (timeline.h), the ranking is by the projected
 *   whole-run wall time instead, and both writers add a "Whole run"
 *   section: per target the wall time, its parts (kernel, copy, host,
 *   carried) as a stacked bar, the explained share and the identity check;
 * - every registered model's projection, and the kernels on which the
 *   models disagree (gpuproj_models_disagree() of model.h, factor
 *   GPUPROJ_MODEL_DISAGREEMENT_FACTOR);
 * - the sources of every number of every target shown.
 *
 * - the data of the HTML report's charts, per charted profile: the
 *   hierarchical roofline of the top kernels on the source and the best
 *   target ([VanLanker2024], Fig. 2), the quadrant-split chart of all targets with
 *   the kernels' operational-intensity rays ([Konstantinidis2017] §2.1) and the
 *   instruction roofline ([Leinhauser2022]). The HTML writer draws them; the
 *   Markdown report has no charts.
 *
 * Units: times in ns, energy in J, time × price in USD·s, rates as in
 * targets.yaml.
 *
 * Ownership: a document borrows its profiles and targets; they must stay
 * alive and unchanged until gpuproj_report_doc_free().
 *
 * Thread safety: building and writing a document is reentrant, but the
 * HTML writer draws each chart in a forked child process (PLplot keeps
 * global state and exits the process on fatal errors; the child isolates
 * both), so a multi-threaded caller must accept fork()'s rules.
 *
 * @since 0.1
 */
#ifndef GPUPROJ_REPORT_H
#define GPUPROJ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/error.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One profile to report on. All pointers are borrowed. */
struct gpuproj_report_input {
	const struct gpuproj_profile *profile; /**< required */
	const char *label;  /**< how the report names it (a file name), or NULL for "profile N" */
	/**
	 * The GPU the profile was measured on (a targets.yaml name or match
	 * string), or NULL to take it from the profile (gpuproj_resolve_source()).
	 */
	const char *source;
};

/**
 * Progress of a long operation: `stage` ("projecting", "charts"), `done`
 * of `total` steps (the last call of a stage has done == total). The
 * string is static.
 */
typedef void (*gpuproj_report_progress_fn)(void *userdata, const char *stage, size_t done,
					   size_t total);

/** What to build and show. Zero-initialise, then set what you need. */
struct gpuproj_report_doc_options {
	/** Model of the rankings, tables and charts; NULL = gpuproj_model_default(). */
	const struct gpuproj_model *model;
	/**
	 * Report on these targets only (names or match strings); NULL or 0 =
	 * every target of the set. The source GPU of each profile is always
	 * included, marked as such. Given targets become the featured ones.
	 */
	const char *const *target_names;
	size_t n_target_names;
	/** Where the targets came from, shown in the report ("built-in", a path), or NULL. */
	const char *targets_origin;
	/** Kernels per profile with a hierarchical-roofline chart; 0 = 3. */
	size_t top_kernels;
	/** Targets with a column in the per-kernel tables (the best ranked); 0 = 4. */
	size_t featured_targets;
	/** Profiles whose charts are drawn (the first ones); 0 = 4. */
	size_t chart_profiles;
	/** Leave the charts out of the HTML (it says so where they would be). */
	bool no_charts;
	/**
	 * The report date shown, verbatim; NULL = $SOURCE_DATE_EPOCH (seconds
	 * since 1970, shown as UTC) when set, else the current time (UTC).
	 * Tests set it so the output is reproducible.
	 */
	const char *date;
	/** Optional progress callback (see gpuproj_report_progress_fn). */
	gpuproj_report_progress_fn progress;
	void *progress_userdata;
};

/** One target's row of a ranking. */
struct gpuproj_report_rank {
	const struct gpuproj_target *target; /**< owned by the targets set */
	double source_ns;   /**< Σ measured kernel time on the source GPU(s), ns */
	/** projected whole-run kernel time (gpuproj_run_projection.point_ns, summed), ns */
	double point_ns;
	double lo_ns;       /**< lower end of the interval, ns */
	double hi_ns;       /**< upper end of the interval, ns */
	double speedup;     /**< source_ns / point_ns, NaN when point_ns is 0 */
	/**
	 * point_ns · 10⁻⁹ s × tdp_w: an upper-bound estimate (board power at
	 * full load for the whole time), J; NaN when targets.yaml has no tdp_w.
	 */
	double energy_j;
	/** point_ns · 10⁻⁹ s × price_usd, USD·s; NaN when targets.yaml has no price_usd. */
	double cost_usd_s;
	size_t n_unprojected;           /**< kernels carried at their source time (Σ over profiles) */
	double unprojected_source_ns;   /**< their source time, ns */
	enum gpuproj_bound binding;     /**< resource bounding most of the projected time */
	bool is_source;                 /**< the source GPU of (one of) the profiles */
	/**
	 * Kernels projected (Σ over profiles); 0: the times above are only the
	 * carried source time, and writers print "not projected".
	 */
	size_t n_projected;
	/** Of n_projected, those by the coarser "sol" model (fallback or chosen). */
	size_t n_coarse;
	/**
	 * Of n_projected, those whose calibrated interval was fitted without
	 * the source or this target GPU (gpuproj_run_projection.n_interval_unseen):
	 * writers mark the interval and say why.
	 */
	size_t n_interval_unseen;
	/**
	 * Of n_projected, those a model projected with assumptions for inputs
	 * the profile lacks (gpuproj_run_projection.n_assumed), and per
	 * assumption how many: writers mark the interval and name them.
	 */
	size_t n_assumed;
	size_t n_assumption[GPUPROJ_ASSUME_COUNT]; /**< per enum gpuproj_assumption */
	/**
	 * The whole run (timeline.h; summed over profiles), valid when every
	 * profile has a timeline: then the rankings order by whole.wall_ns
	 * (a procurement question is how long the job runs), else by point_ns.
	 */
	struct gpuproj_whole_run whole;
};

/** Profile index of the combined ranking in gpuproj_report_doc_ranking(). */
#define GPUPROJ_REPORT_COMBINED ((size_t)-1)

/** A report ready to write (opaque). */
struct gpuproj_report_doc;

/**
 * Build a report: resolve each profile's source GPU and the targets,
 * project every kernel of every profile onto every target with every
 * registered model, rank the targets, find the kernels the models disagree
 * on and, unless opt->no_charts, compute the data of the charts (nothing is
 * drawn yet: the HTML writer draws).
 *
 * @param inputs the profiles (borrowed until the document is freed)
 * @param n_inputs number of profiles, ≥ 1
 * @param targets the GPU descriptions (borrowed likewise)
 * @param opt options or NULL for defaults
 * @param[out] ret on success the document, owned by the caller (free with
 *             gpuproj_report_doc_free()); untouched on failure
 * @param[out] reterr optional; on failure the reason
 * @return GPUPROJ_OK;
 *         GPUPROJ_E_INVAL (no input, a NULL profile or targets, an empty
 *         target set, $SOURCE_DATE_EPOCH not a non-negative integer);
 *         GPUPROJ_E_NOTFOUND (a profile's source GPU or a named target is
 *         not in the set; the message lists close names);
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_report_doc_new(const struct gpuproj_report_input *inputs, size_t n_inputs,
			   const struct gpuproj_targets *targets,
			   const struct gpuproj_report_doc_options *opt,
			   struct gpuproj_report_doc **ret, struct gpuproj_error *reterr);

/**
 * Free a document. Accepts NULL.
 * @return NULL, so callers can write `d = gpuproj_report_doc_free(d);`
 */
struct gpuproj_report_doc *gpuproj_report_doc_free(struct gpuproj_report_doc *doc);

/** @return the number of profiles in the document */
size_t gpuproj_report_doc_profile_count(const struct gpuproj_report_doc *doc);

/**
 * A ranking, fastest projected target first (by whole-run wall time when
 * the profiles have timelines, else by kernel time; ties by name).
 *
 * @param profile index of a profile (input order), or
 *        GPUPROJ_REPORT_COMBINED for the sum over all profiles
 * @param[out] ret_n number of rows (the number of targets reported on)
 * @return the rows, owned by the document; NULL (and *ret_n = 0) when
 *         `profile` is out of range
 */
const struct gpuproj_report_rank *gpuproj_report_doc_ranking(const struct gpuproj_report_doc *doc,
							     size_t profile, size_t *ret_n);

/**
 * The number of (profile, kernel) pairs that gpuproj_models_disagree()
 * flags on at least one target (point estimates of the registered models
 * more than GPUPROJ_MODEL_DISAGREEMENT_FACTOR apart). 0 when only one model
 * is registered.
 */
size_t gpuproj_report_doc_disagreements(const struct gpuproj_report_doc *doc);

/**
 * Render the HTML report: one self-contained document (inline CSS and
 * SVG, no scripts, no external references), user strings escaped.
 * Draws the charts unless the options said no_charts (slow: one child
 * process per chart; progress is reported as stage "charts").
 *
 * @param[out] ret_text on success a malloc'd NUL-terminated document
 *             (caller frees); untouched on failure
 * @param[out] ret_len optional, its length in bytes
 * @param[out] reterr optional; on failure the reason
 * @return GPUPROJ_OK;
 *         GPUPROJ_E_BACKEND (PLplot failed or lacks its svg driver or
 *         fonts: the message says which and where it looked);
 *         GPUPROJ_E_UNSUPPORTED (built without PLplot: use no_charts);
 *         GPUPROJ_E_IO (no temporary file for a chart);
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_report_doc_html(const struct gpuproj_report_doc *doc, char **ret_text,
			    size_t *ret_len, struct gpuproj_error *reterr);

/**
 * Render the Markdown report (GitHub-flavoured: tables, <details>), the
 * HTML report's text and tables without charts or images, nothing
 * external linked.
 *
 * @param[out] ret_text,ret_len,reterr as for gpuproj_report_doc_html()
 * @return GPUPROJ_OK or GPUPROJ_E_NOMEM
 */
int gpuproj_report_doc_markdown(const struct gpuproj_report_doc *doc, char **ret_text,
				size_t *ret_len, struct gpuproj_error *reterr);

/**
 * Render and write the reports. Both documents are rendered before either
 * file is touched, and each is written atomically (temporary file in the
 * same directory, then rename), so a failure to render leaves both paths
 * untouched; a failure writing the Markdown file after the HTML one was
 * written leaves the new HTML file in place (the message says so).
 *
 * @param html_path HTML destination, or NULL for none ("-" = standard output)
 * @param md_path Markdown destination, or NULL for none ("-" = standard output)
 * @param[out] reterr optional; on failure the reason, naming the file
 * @return as for gpuproj_report_doc_html(), plus GPUPROJ_E_IO when a file
 *         cannot be written; GPUPROJ_E_INVAL when both paths are NULL
 */
int gpuproj_report_doc_write(const struct gpuproj_report_doc *doc, const char *html_path,
			     const char *md_path, struct gpuproj_error *reterr);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_REPORT_H */
