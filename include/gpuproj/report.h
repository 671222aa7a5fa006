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
 *   by projected GPU kernel time over the kernels every complete target
 *   projects (Σ point × launches; the share of the measured kernel time
 *   they make up is stated, nothing is carried into a total), with
 *   interval, speedup over the source, the order of the leading targets
 *   (gpuproj_report_order_overlap()), whether the run's peak device memory
 *   fits, cost per job (hourly price × projected time), performance per
 *   dollar and per watt (tdp_w) and energy; when every profile has a
 *   whole-run timeline (timeline.h), the ranking is by the projected
 *   whole-run wall time instead, and both writers add a "Whole run"
 *   section: per target the wall time, its parts (kernel, copy, host,
 *   carried) as a stacked bar, the explained share and the identity check;
 *   with weights (gpuproj_report_input.weight, a workload mix) the combined
 *   ranking is by the weighted sum of each profile's time relative to its
 *   source instead of the plain sum;
 * - the targets that cannot run some kernel another target runs (a block
 *   that does not fit): listed apart with what cannot run and why, never
 *   ranked;
 * - a five-line summary: the leading GPUs under the given prices and
 *   constraints, the source GPU, what was assumed, the incomplete targets
 *   and what the ranking ranks;
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
 * Units: times in ns, energy in J, prices in USD (hourly prices in USD per
 * hour), memory in bytes, rates as in targets.yaml.
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
	/**
	 * Share of facility time this profile's application takes (a workload
	 * mix, `--weight PROFILE=W`), > 0; 0 = not weighted. Either every input
	 * has a weight or none: the weights are then normalised to sum to 1 and
	 * the combined ranking is by Σ weight × (projected ÷ measured time).
	 */
	double weight;
};

/**
 * A price quote for one GPU (`--price NAME=USD`, `--prices FILE`): it
 * replaces targets.yaml's price_usd in the report. All pointers are
 * borrowed.
 */
struct gpuproj_report_price {
	const char *name;     /**< a targets.yaml name or match string */
	double purchase_usd;  /**< purchase price, USD, > 0; NaN: not given */
	double hourly_usd;    /**< price per hour of use (cloud, internal), USD, > 0; NaN: none */
	/** Where the quote comes from, shown in the report ("--price", "prices.csv:3"). */
	const char *origin;
};

/** A set of price quotes read from a file (opaque; gpuproj_report_prices_load()). */
struct gpuproj_report_prices;

/**
 * Read price quotes from a CSV or YAML file (by its extension: .csv, else
 * .yaml or .yml). CSV: a header naming the columns `name`,
 * `purchase_usd` and optionally `hourly_usd`, in any order, then one row
 * per GPU; an empty cell is "not given". YAML: a mapping of GPU names to
 * mappings with the keys `purchase_usd` and `hourly_usd` (each optional,
 * one at least), or to a number (the purchase price). CSV through libcsv
 * (import-common.h), YAML through libyaml with targets.yaml's guards.
 *
 * Every name must be in `targets` (a name or a match string), once; every
 * price a number > 0 and below 10⁹ USD.
 *
 * @param path the file (within the input limit, file_read_all())
 * @param targets the GPU descriptions the names must be in
 * @param[out] ret on success the quotes, owned by the caller (free with
 *             gpuproj_report_prices_free()); untouched on failure
 * @param[out] reterr optional; on failure the reason with file:line:column
 * @return GPUPROJ_OK; GPUPROJ_E_IO (cannot read); GPUPROJ_E_PARSE (CSV or
 *         YAML syntax); GPUPROJ_E_SCHEMA (a missing column or key, an
 *         unknown key, a value that is not a positive number, a name given
 *         twice); GPUPROJ_E_NOTFOUND (a name not in targets; the message
 *         lists close names); GPUPROJ_E_LIMIT (a price of 10⁹ USD or more,
 *         a file over the input limit, YAML nested over 64 levels);
 *         GPUPROJ_E_INVAL (an unknown extension); GPUPROJ_E_NOMEM
 */
int gpuproj_report_prices_load(const char *path, const struct gpuproj_targets *targets,
			       struct gpuproj_report_prices **ret, struct gpuproj_error *reterr);

/**
 * As gpuproj_report_prices_load() on text in memory: `yaml` chooses the
 * format (else CSV), `name` is the file name messages give (and the
 * quotes' origins). The input limit does not apply (the caller read it).
 * @return as gpuproj_report_prices_load(), but for the extension
 */
int gpuproj_report_prices_load_buffer(const char *text, size_t len, const char *name, bool yaml,
				      const struct gpuproj_targets *targets,
				      struct gpuproj_report_prices **ret,
				      struct gpuproj_error *reterr);

/**
 * The quotes of a set, in file order.
 * @param[out] ret_n their number
 * @return the quotes, owned by the set (their strings too)
 */
const struct gpuproj_report_price *gpuproj_report_prices_get(const struct gpuproj_report_prices *p,
							     size_t *ret_n);

/** Free a set of quotes. Accepts NULL. @return NULL */
struct gpuproj_report_prices *gpuproj_report_prices_free(struct gpuproj_report_prices *p);

/**
 * Progress of a long operation: `stage` ("projecting", "charts"), `done`
 * of `total` steps (the last call of a stage has done == total). The
 * string is static.
 */
typedef void (*gpuproj_report_progress_fn)(void *userdata, const char *stage, size_t done,
					   size_t total);

struct gpuproj_report_rank;
struct gpuproj_report_order;

/**
 * The order of two ranked targets (gpuproj_report_order_overlap() is the
 * default): `faster` comes before `slower` in the ranking; `coverage` is
 * the intervals' nominal coverage (0..1); fills *ret.
 */
typedef void (*gpuproj_report_order_fn)(const struct gpuproj_report_rank *faster,
					const struct gpuproj_report_rank *slower, double coverage,
					struct gpuproj_report_order *ret);

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
	/**
	 * Price quotes that replace targets.yaml's price_usd (later quotes of
	 * one GPU replace earlier ones); the names are looked up in the set.
	 */
	const struct gpuproj_report_price *prices;
	size_t n_prices;
	/**
	 * The Markdown report in full (every kernel, every source); false: at
	 * most md_limit bytes, the longest parts shortened first (each says
	 * what was left out and where to find it).
	 */
	bool md_full;
	/** Most bytes of the Markdown report; 0 = GPUPROJ_REPORT_MD_LIMIT. */
	size_t md_limit;
	/**
	 * How likely the order of two ranked targets is; NULL =
	 * gpuproj_report_order_overlap(). The accuracy work replaces it with
	 * a calibrated probability.
	 */
	gpuproj_report_order_fn order_fn;
	/** One sentence the report prints about order_fn (NULL with the default). */
	const char *order_method;
};

/**
 * GitHub's limit on the text of an issue or pull-request comment
 * (65,536 characters): the Markdown report's default bound, in bytes (a
 * character is at least one byte, so the bound also holds in characters).
 */
#define GPUPROJ_REPORT_MD_LIMIT 65536

/** Whether the run fits in a target's device memory (gpuproj_report_rank.memory_fit). */
enum gpuproj_report_fit {
	GPUPROJ_REPORT_FIT_UNKNOWN = 0, /**< the profile or targets.yaml lacks the numbers */
	GPUPROJ_REPORT_FIT_YES,         /**< memory_gib × 2³⁰ ≥ the run's peak */
	GPUPROJ_REPORT_FIT_NO,          /**< "does not fit" */
};

/**
 * The order of two ranked targets, as gpuproj_report_order_fn says it.
 */
struct gpuproj_report_order {
	/**
	 * Overlap of the two intervals: |A ∩ B| ÷ |A ∪ B| (intersection over
	 * union, on the ranking's times), 0 when they are disjoint.
	 */
	double overlap;
	/** The order is distinct at the intervals' coverage (they are disjoint). */
	bool distinct;
	/**
	 * A lower bound on the probability that the faster target is faster,
	 * or NaN when the method cannot give one (overlapping intervals, or
	 * intervals not calibrated on these GPUs).
	 */
	double p_holds;
	/**
	 * The calibrated probability that the faster target is faster, filled
	 * by the report whatever the order function: gpuproj_intervals_order()
	 * of the built-in table on the two ranks' relative times (rel), with
	 * the bindings unknown, so the model's pooled σ (fitted on single
	 * kernels; a run's total is taken as one kernel, which errs towards a
	 * lower probability when its kernels' errors do not all go one way).
	 * An estimate, not a bound: docs/validation.md "Order of two targets"
	 * gives its reliability on GPUs held out of the fit. NaN when the
	 * table has no order group for the model.
	 */
	double p_calibrated;
};

/** One target's row of a ranking. */
struct gpuproj_report_rank {
	const struct gpuproj_target *target; /**< owned by the targets set */
	/**
	 * Σ measured time on the source GPU(s) of the kernels counted (those
	 * every complete target projects; for an incomplete target, those it
	 * projects), ns
	 */
	double source_ns;
	/** Σ point × launches over the kernels counted (no carried time), ns */
	double point_ns;
	double lo_ns;       /**< Σ lo × launches over them, ns */
	double hi_ns;       /**< Σ hi × launches over them, ns */
	/**
	 * What the ranking orders by: the projected time relative to the
	 * source's (rank_ns ÷ source time, or with weights Σ weight ×
	 * (projected ÷ measured) over profiles); rel_lo, rel_hi its interval.
	 * 1 / rel is the speedup.
	 */
	double rel, rel_lo, rel_hi;
	double speedup;     /**< 1 / rel, NaN when rel is 0 or NaN */
	/**
	 * rank time · 10⁻⁹ s × tdp_w (rank time = whole.wall_ns or point_ns):
	 * an upper-bound estimate (board power at full load for the whole
	 * time), J; NaN when targets.yaml has no tdp_w.
	 */
	double energy_j;
	double purchase_usd;    /**< purchase price (a quote, else price_usd), USD; NaN unknown */
	double hourly_usd;      /**< hourly price (a quote only), USD/h; NaN unknown */
	const char *price_origin; /**< "targets.yaml" or the quote's origin; NULL when unknown */
	/**
	 * hourly_usd × rank time (h): the cost of one run of the job(s); with
	 * weights, of the work that takes the source one hour (hourly × rel).
	 * USD; NaN without an hourly price.
	 */
	double cost_per_job_usd;
	double perf_per_kusd;   /**< speedup ÷ (purchase_usd / 1000); NaN unknown */
	double perf_per_kw;     /**< speedup ÷ (tdp_w / 1000); NaN unknown */
	/**
	 * The target cannot run some kernel that another target runs
	 * (n_cannot of them; a block that does not fit, typically): it is
	 * listed apart and never ranked. Complete rows come first in a
	 * ranking, ordered; incomplete ones after, by name.
	 */
	bool complete;
	size_t n_cannot;
	/**
	 * Share of the measured kernel time (of every timed kernel) the
	 * totals above cover, 0..1.
	 */
	double share;
	/** Whether the run's peak device memory fits in memory_gib. */
	enum gpuproj_report_fit memory_fit;
	size_t n_unprojected;           /**< kernels it does not project (Σ over profiles) */
	double unprojected_source_ns;   /**< their measured time, ns (in no total above) */
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
 * The order of two ranked targets from their intervals, until the
 * intervals' own calibration says more (the default
 * gpuproj_report_doc_options.order.fn): the intersection over union of
 * [rel_lo, rel_hi]; distinct when disjoint; then, when both intervals
 * were fitted on both GPUs (n_interval_unseen 0), the order holds whenever
 * both times fall inside their intervals, which by the union bound
 * happens with probability at least 2·coverage − 1 (no independence
 * assumed); otherwise p_holds is NaN.
 *
 * @param faster,slower two rows, the faster first
 * @param coverage the intervals' nominal coverage, 0..1
 *        (gpuproj_intervals_coverage() of the table used)
 * @param[out] ret the order
 */
void gpuproj_report_order_overlap(const struct gpuproj_report_rank *faster,
				  const struct gpuproj_report_rank *slower, double coverage,
				  struct gpuproj_report_order *ret);

/**
 * A ranking: the complete targets, fastest projected first (by whole-run
 * wall time when the profiles have timelines, else by kernel time; with
 * weights by the weighted relative time; ties by name), then the
 * incomplete ones by name.
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
 * external linked. Unless opt.md_full, at most opt.md_limit bytes
 * (GPUPROJ_REPORT_MD_LIMIT): when the whole report is longer, the
 * sources of the target numbers are left out first, then kernel and
 * disagreement rows, per-profile sections and ranking rows beyond the
 * first, each replaced by a line saying what was left out; a report still
 * too long is cut at a line with a last line saying so.
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
