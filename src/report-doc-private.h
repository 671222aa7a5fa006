/* SPDX-License-Identifier: MIT */
/*
 * The procurement report's document (include/gpuproj/report.h): the
 * layout of struct gpuproj_report_doc, built once by report-doc.c, and the
 * helpers the two writers share. The writers (report-html.c, report-md.c)
 * only read the document and format it; neither calls the other, and
 * report-doc.c calls neither (report-write.c renders both and writes the
 * files). The numbers as printed and doc_target_index() are in
 * report-fmt.c. Internal to the core library.
 */
#ifndef GPUPROJ_REPORT_DOC_PRIVATE_H
#define GPUPROJ_REPORT_DOC_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/report.h>

#include "report-charts.h"
#include "util.h"

/* Bytes in a GiB (targets.yaml's memory_gib; doc_fmt_gib()). */
#define BYTES_PER_GIB 1073741824.0

/* Kernels drawn in the quadrant and instruction-roofline charts. */
#define DOC_CHART_KERNELS 6

/*
 * Kernels on which the models disagree are flagged with model.h's
 * gpuproj_models_disagree() at GPUPROJ_MODEL_DISAGREEMENT_FACTOR, the one
 * place that defines the threshold (the models' published errors are
 * 10-20 % MAPE, hroof 10.3-17.0 % in [VanLanker2024] §5, so two models that far
 * apart cannot both be right).
 */

/* One kernel projected onto one target with the report's model (compact). */
struct doc_kproj {
	double lo_ns, hi_ns, point_ns; /* per launch, ns (NaN when not projected) */
	int status;                    /* GPUPROJ_OK or why not */
	enum gpuproj_bound binding;
	bool coarse;                   /* projected by the coarser "sol" model */
	bool assumed;                  /* projected with a stated assumption (the envelope) */
	/* Not projected: why (dp->why[k] when the same text, else owned). */
	char *why;
};

/* A kernel on which the models disagree on at least one target. */
struct doc_disagreement {
	size_t kernel;        /* index in the profile */
	size_t n_flagged;     /* targets with a disagreement */
	size_t worst_target;  /* index in doc->targets of the largest factor */
	double worst_factor;  /* max / min point estimate there */
	double *point_ns;     /* [doc->n_models] per-launch points there, NaN when a model failed */
};

/*
 * Seed 000 Fig. 2 for one kernel: the chart's data (report-charts.h) and the
 * numbers its caption cites, or the note shown instead of the chart.
 */
struct doc_roofline {
	size_t rank;                   /* position in doc_profile.order */
	char name[400];                /* the kernel's short name (the heading) */
	const char *note;              /* non-NULL: no chart, this says why (plain text) */
	char note_buf[512];
	struct chart_roofline chart;   /* panel titles point into title[] */
	char title[2][200];
	char tensor_label[2][CHART_TENSOR_ROOFS][64]; /* the panels' tensor roof labels */
	double mean_ns;                /* measured time per launch on the source, ns */
	/* With a second panel (chart.n_panels == 2): hroof's projection there. */
	const struct gpuproj_target *tgt;
	double lo_ns, hi_ns, point_ns; /* per launch, ns */
	/*
	 * With a note (no roofline): what is measured instead, the kernel's
	 * time per launch on the source and its projections onto the featured
	 * targets with their intervals (times.n_rows 0: none).
	 */
	struct chart_intervals times;
	struct chart_interval_row *trows;
	char src_label[160];
};

/* Seed 003 §2.1: the targets as points, the longest kernels as rays. */
struct doc_quadrant {
	struct chart_quadrant chart;   /* points into the arrays below */
	struct chart_device *dev;      /* [doc->n_targets], in doc->targets order */
	struct chart_ray rays[DOC_CHART_KERNELS];
	size_t ray_rank[DOC_CHART_KERNELS];   /* position of each ray's kernel in dp->order */
	char labels[DOC_CHART_KERNELS][200];
	char y_label[96];
};

/* Seed 004: instruction roofline of the source (and the chart target). */
struct doc_irm {
	struct chart_irm chart;        /* points into the arrays below */
	struct chart_irm_kernel ks[DOC_CHART_KERNELS];
	char labels[DOC_CHART_KERNELS][160];
	const struct gpuproj_target *tgt; /* the dashed GPU, or NULL */
	bool derived;                  /* transactions derived as bytes / 32 somewhere */
	size_t n_no_inst;              /* launched kernels without inst.warp, not drawn */
};

/* The data of one profile's charts. */
struct doc_charts {
	const struct gpuproj_target *tgt; /* beside the source: the best featured target, or NULL */
	struct doc_roofline *roof;     /* [n_roof], the longest kernels first */
	size_t n_roof;
	struct doc_quadrant quad;
	struct doc_irm irm;
};

struct doc_profile {
	const struct gpuproj_profile *profile;
	char *label;
	const struct gpuproj_target *src;
	struct gpuproj_targets *derived; /* src's set when provisional (gpuproj_targets_derive()) */
	size_t src_index;              /* index of src in doc->targets */
	size_t n_kernels;
	struct doc_kproj *kp;          /* [n_targets × n_kernels], target-major */
	char **why;                    /* [n_kernels] why the model could not project it, or NULL */
	size_t *order;                 /* [n_kernels] kernel indices, longest source time first */
	struct gpuproj_report_rank *totals;  /* [n_targets] in doc->targets order */
	struct gpuproj_report_rank *ranking; /* [n_targets] sorted */
	double *model_point_ns;        /* [n_models × n_targets] whole-run point per model */
	size_t *model_unprojected;     /* [n_models × n_targets] kernels a model could not project */
	struct doc_disagreement *dis;  /* flagged kernels, longest source time first */
	size_t n_dis;
	enum gpuproj_prec prec;        /* precision with the most FLOP (quadrant chart) */
	double kernel_ns;              /* Σ source kernel time, ns */
	uint64_t launches, profiled;   /* Σ over kernels */
	size_t n_timed_only;           /* kernels with launches but no profiled launch */
	size_t n_untimed;              /* kernels with no timed launch */
	/*
	 * Kernels in the totals: timed and projected on at least one target
	 * reported on (report-rank.c); a target that does not project one of
	 * them is incomplete.
	 */
	bool *counted;                 /* [n_kernels] */
	size_t n_counted;
	double counted_ns;             /* their measured time, ns */
	size_t n_assumed;              /* counted kernels some target projects by the envelope */
	double weight;                 /* share of facility time, normalised; 0 without weights */
	double peak_bytes;             /* the run's peak device memory, bytes; NaN unknown */
	/*
	 * The charts' data; NULL when this profile gets no charts (no_charts,
	 * no kernels, or not among the first opt.chart_profiles).
	 */
	struct doc_charts *charts;
};

struct gpuproj_report_doc {
	struct gpuproj_report_doc_options opt; /* copied; strings borrowed */
	const struct gpuproj_targets *set;
	const struct gpuproj_target **targets; /* reported on, file order */
	size_t n_targets;
	const struct gpuproj_model *model;
	const struct gpuproj_model **models;   /* every registered model; [0] = model */
	size_t n_models;
	struct doc_profile *profiles;
	size_t n_profiles;
	struct gpuproj_report_rank *combined;  /* [n_targets] sorted */
	const struct gpuproj_target **featured;
	size_t n_featured;
	bool featured_given;                   /* from opt.target_names */
	bool mixed_sources;                    /* profiles measured on different GPUs */
	char date[96];
	size_t n_disagreements;
	/* report-rank.c */
	bool by_wall;                          /* every profile has a timeline: wall time ranks */
	bool weighted;                         /* a workload mix (every input has a weight) */
	double coverage;                       /* the intervals' nominal coverage, 0..1 */
	size_t n_complete;                     /* complete rows at the head of doc->combined */
	struct doc_price *price;               /* [n_targets] in doc->targets order */
	struct doc_pair *pairs;                /* the leading targets' pairs, in rank order */
	size_t n_pairs, n_leading;
	bool any_unseen;                       /* an interval of the leading targets is unseen */
	/* The ranking chart (the leading targets with their intervals); NULL with no_charts. */
	struct chart_intervals *rank_chart;
	struct chart_interval_row *rank_rows;
	char (*rank_labels)[96];               /* "3 B300", per row */
	char rank_x_label[96], rank_iv_label[96];
};

/* A target's prices as the report uses them (report-rank.c). */
struct doc_price {
	double purchase_usd, hourly_usd;       /* NaN unknown */
	char origin[200];                      /* "" unknown */
};

/* The order of two leading targets (indices into doc->combined). */
struct doc_pair {
	size_t a, b;
	struct gpuproj_report_order o;
};

/* Leading targets whose pairwise order the report states. */
#define DOC_LEADING 5

/*
 * report-rank.c: the rows of every ranking from the projections, prices,
 * memory fit, the workload mix, the order of the leading targets. Called
 * by gpuproj_report_doc_new() after every profile is projected; returns
 * GPUPROJ_OK, GPUPROJ_E_NOTFOUND (a quote names no target: reterr) or
 * GPUPROJ_E_NOMEM.
 */
int doc_rank(struct gpuproj_report_doc *doc, struct gpuproj_error *reterr);
/* The ranking chart's data (after the featured targets are known). */
int doc_rank_chart(struct gpuproj_report_doc *doc);
/* Rows of the ranking chart. */
#define DOC_RANK_CHART_ROWS 20
/* The counted kernels of a profile (after projecting it). */
int doc_count_kernels(const struct gpuproj_report_doc *doc, struct doc_profile *dp);
/* Sort a ranking: complete rows by rank key, then the others by name. */
void doc_sort_ranking(struct gpuproj_report_rank *rows, size_t n);
/* "H100-SXM5-80GB" → its doc_price. */
const struct doc_price *doc_price_of(const struct gpuproj_report_doc *doc,
				     const struct gpuproj_target *t);
/* The summary's five lines (plain text, for both writers); lines[i] owned by the caller. */
int doc_summary(const struct gpuproj_report_doc *doc, char *lines[5]);
/* What the ranking ranks, one sentence ("projected GPU kernel time over ..."). */
char *doc_ranked_by(const struct gpuproj_report_doc *doc, char *buf, size_t size);
/* The intervals' nominal coverage as printed: "85 %". */
char *doc_fmt_coverage(const struct gpuproj_report_doc *doc, char *buf, size_t size);
/* "distinct ranks" text: groups of consecutive leading ranks whose intervals overlap. */
char *doc_distinct_groups(const struct gpuproj_report_doc *doc, char *buf, size_t size);
/* Numbers as printed: USD, memory, relative time. */
char *doc_fmt_usd(double usd, char *buf, size_t size);
char *doc_fmt_gib(double bytes, char *buf, size_t size);
const char *doc_fit_name(enum gpuproj_report_fit f);
/* The ranking's time of a row: whole.wall_ns when ranked by wall time, else point_ns. */
double doc_rank_ns(const struct gpuproj_report_doc *doc, const struct gpuproj_report_rank *r);
/* Whether a row has a time to rank by (whole run valid, or a kernel projected). */
bool doc_ranked(const struct gpuproj_report_doc *doc, const struct gpuproj_report_rank *r);
/* The kernels a target cannot run in profile dp (counted, not projected there). */
size_t doc_cannot(const struct gpuproj_report_doc *doc, const struct doc_profile *dp, size_t t);

/* The kernel projection of profile `dp` on target index `t`. */
static inline const struct doc_kproj *
doc_kp(const struct gpuproj_report_doc *doc, const struct doc_profile *dp, size_t t, size_t k)
{
	(void)doc;
	return &dp->kp[t * dp->n_kernels + k];
}

/* Index of a target in doc->targets, or doc->n_targets when absent. */
size_t doc_target_index(const struct gpuproj_report_doc *doc, const struct gpuproj_target *t);

/* The name shown for a kernel: demangled when known, else mangled. */
const char *doc_kernel_name(const struct gpuproj_kernel *k);
/* At most `max` code points of a kernel's name, '…' marking a cut. */
void doc_short_name(const struct gpuproj_kernel *k, size_t max, char *buf, size_t size);
/* Application name of a profile (process.application, argv[0], or "unknown"). */
const char *doc_application(const struct gpuproj_profile *p);
/* The distinct applications of the document's profiles, comma-separated (at most 3). */
void doc_applications(const struct gpuproj_report_doc *doc, char *buf, size_t size);
/* "#rank name [tag]" (no "#rank" when rank is 0), the name cut at `max` code points. */
void doc_chart_label(const struct gpuproj_kernel *k, size_t rank, size_t max, char *buf,
		     size_t size);

/* "FP16", "FP32", "FP64". */
const char *doc_prec_label(enum gpuproj_prec p);

/* Call the document's progress callback, if any ("projecting", "charts"). */
void doc_progress(const struct gpuproj_report_doc *doc, const char *stage, size_t done,
		  size_t total);

/* Numbers as the reports print them. */
char *doc_fmt_speedup(double speedup, char *buf, size_t size);
char *doc_fmt_energy(double joules, char *buf, size_t size);

/*
 * The tensor FLOP per input precision (gpuproj_profile_flop_mix()) of one
 * profile, or with dp NULL summed over every profile of the report.
 * Returns whether there is any tensor work.
 */
bool doc_tensor_mix(const struct gpuproj_report_doc *doc, const struct doc_profile *dp,
		    double mix[GPUPROJ_TPREC_COUNT]);

/*
 * Where the tensor work of `mix` runs on `t` (gpuproj_tensor_path()), for
 * the ranking: "own tensor paths" when every precision has its own, else
 * the fallbacks, "fp8 on tensor bf16; tf32 on CUDA-core fp32", and
 * "(rate unknown)" after a precision whose own rate targets.yaml lacks.
 */
char *doc_tensor_paths(const double mix[GPUPROJ_TPREC_COUNT], const struct gpuproj_target *t,
		       char *buf, size_t size);
/*
 * The ranking's footnote on assumptions: "projected with assumptions for
 * inputs the profile lacks: shared unbounded (up to 2 kernel(s) per GPU),
 * …; their intervals are widened …" in buf; NULL when no row has any.
 */
char *doc_assumed_note(const struct gpuproj_report_rank *rows, size_t n, char *buf, size_t size);
char *doc_fmt_pct(double frac, char *buf, size_t size);

/*
 * The assumptions both writers list (after the models' and the traffic
 * assumption): malloc'd strings; free with doc_assumption_list_free().
 */
int doc_assumption_list(const struct gpuproj_report_doc *doc, char ***ret, size_t *ret_n);
void doc_assumption_list_free(char **list, size_t n);
/* What the models assume about memory traffic on the target (depends on the L2 default). */
const char *doc_traffic_assumption(void);

#endif
