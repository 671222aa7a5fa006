/* SPDX-License-Identifier: MIT */
/*
 * The procurement report's document (include/gpuproj/report.h): the
 * layout of struct gpuproj_report_doc, built once by report-doc.c, and the
 * helpers the two writers share. The writers (report-html.c, report-md.c)
 * only read the document and format it; neither calls the other, and
 * report-doc.c calls neither (report-write.c renders both and writes the
 * files). Internal to the core library.
 */
#ifndef GPUPROJ_REPORT_DOC_PRIVATE_H
#define GPUPROJ_REPORT_DOC_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/report.h>

#include "report-charts.h"
#include "util.h"

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
};

/* Seed 003 §2.1: the targets as points, the longest kernels as rays. */
struct doc_quadrant {
	struct chart_quadrant chart;   /* points into the arrays below */
	struct chart_device *dev;      /* [doc->n_targets], in doc->targets order */
	struct chart_ray rays[DOC_CHART_KERNELS];
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
};

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
char *doc_fmt_cost(double usd_s, char *buf, size_t size);
/*
 * The ranking's footnote on assumptions: "projected with assumptions for
 * inputs the profile lacks: shared unbounded (up to 2 kernel(s) per GPU),
 * …; their intervals are widened …" in buf; NULL when no row has any.
 */
char *doc_assumed_note(const struct gpuproj_report_rank *rows, size_t n, char *buf, size_t size);
char *doc_fmt_pct(double frac, char *buf, size_t size);

/* Fixed texts both writers show. */
extern const char *const doc_assumptions[];
extern const size_t doc_n_assumptions;
/* What the models assume about memory traffic on the target (depends on the L2 default). */
const char *doc_traffic_assumption(void);

#endif
