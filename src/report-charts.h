/* SPDX-License-Identifier: MIT */
/*
 * Charts of the HTML report, drawn with PLplot's "svg" driver (log axes,
 * labels and legends come from PLplot; nothing here writes SVG by hand).
 * Internal to the core library.
 *
 * Each chart is drawn in a child process (fork): PLplot keeps global state
 * and calls exit() on fatal errors (plexit), so the child isolates the
 * caller from both, and its messages are captured for a clear error
 * instead of being printed. The SVG comes back ready to inline into HTML:
 * no XML prolog, no fixed width/height (the viewBox scales), and every id
 * prefixed with the chart's id so several charts can share one page.
 *
 * Run-time needs: PLplot's svg driver (Debian: libplplot17, found in
 * $PLPLOT_DRV_DIR or PLplot's compiled-in driver directory) and its font
 * files (Debian: libplplot-data, $PLPLOT_LIB). A missing piece is reported
 * as GPUPROJ_E_BACKEND with a message naming it.
 *
 * All numbers are in the units named by the fields; NaN marks an absent
 * value (that element is not drawn).
 *
 * Thread safety: each call forks; callers in multi-threaded programs must
 * accept fork()'s rules (the child only draws and calls _exit()).
 */
#ifndef GPUPROJ_REPORT_CHARTS_H
#define GPUPROJ_REPORT_CHARTS_H

#include <stdbool.h>
#include <stddef.h>

/* Memory levels drawn, in enum gpuproj_hlevel order: L1, L2, DRAM. */
#define CHART_LEVELS 3

/* One GPU's hierarchical roofline for one kernel ([VanLanker2024], Fig. 2). */
#define CHART_TENSOR_ROOFS 4

struct chart_roofline_panel {
	const char *title;                  /* e.g. "Source: V100-PCIe-16GB (measured)" */
	double peak_gflops;                 /* GPU FLOP/s for the kernel's mix (Perf^mix), GFLOP/s */
	double peak_bw_gbs[CHART_LEVELS];   /* the GPU's bandwidths (targets.yaml bw_gbs), GB/s */
	double perf_ceil_gflops;            /* Perf^ceil, GFLOP/s */
	double bw_ceil_gbs[CHART_LEVELS];   /* BW^ceil per level, GB/s (NaN: no traffic) */
	double oi[CHART_LEVELS];            /* operational intensity per level, FLOP/B (NaN) */
	double perf_gflops[CHART_LEVELS];   /* kernel at each OI, measured or projected, GFLOP/s */
	/*
	 * Tensor-pipe roofs: the rate of the path each tensor
	 * precision of the kernel runs on here (gpuproj_tensor_path()), drawn
	 * as horizontal lines with their label; n_tensor 0: none.
	 */
	size_t n_tensor;
	double tensor_gflops[CHART_TENSOR_ROOFS]; /* GFLOP/s (INT8: GOP/s) */
	const char *tensor_label[CHART_TENSOR_ROOFS]; /* e.g. "tensor bf16" */
	bool has_interval;                  /* draw the projection interval band */
	double interval_lo_gflops;          /* lower end of the projected performance, GFLOP/s */
	double interval_hi_gflops;          /* upper end, GFLOP/s */
};

/* Source and (optionally) target panels side by side, sharing axes. */
struct chart_roofline {
	struct chart_roofline_panel panel[2];
	size_t n_panels;                    /* 1 or 2 */
};

/* A device in the quadrant-split chart ([Konstantinidis2017] §2.1). */
struct chart_device {
	const char *name;
	double bw_gbs;                      /* x: memory bandwidth, GB/s */
	double gflops;                      /* y: compute throughput, GFLOP/s */
	int style;                          /* CHART_DEVICE_* */
	int label_rank;                     /* names are placed in increasing order of this */
};

enum {
	CHART_DEVICE_OTHER = 0,
	CHART_DEVICE_SOURCE = 1,            /* the GPU the profile was measured on */
	CHART_DEVICE_FEATURED = 2,          /* a highlighted target */
};

/* A kernel as a ray through the origin, slope = its operational intensity. */
struct chart_ray {
	const char *label;
	double oi;                          /* FLOP/B */
};

struct chart_quadrant {
	const char *y_label;                /* e.g. "FP64 FMA throughput (GFLOP/s)" */
	const struct chart_device *devices;
	size_t n_devices;
	const struct chart_ray *rays;
	size_t n_rays;
};

/* One GPU's instruction-roofline ceilings ([Leinhauser2022]). */
struct chart_irm_gpu {
	const char *name;
	double peak_gips;                   /* SMs × schedulers × IPC × GHz, warp G instructions/s */
	double gtxn[CHART_LEVELS];          /* bandwidth / 32 B, G transactions/s */
};

/* One kernel's achieved point per level. */
struct chart_irm_kernel {
	const char *label;
	double gips;                        /* achieved warp G instructions/s */
	double intensity[CHART_LEVELS];     /* warp instructions per 32 B transaction (NaN: absent) */
};

struct chart_irm {
	struct chart_irm_gpu gpu[2];        /* [0] solid (source), [1] dashed (comparison) */
	size_t n_gpus;                      /* 1 or 2 */
	const struct chart_irm_kernel *kernels;
	size_t n_kernels;
};

/*
 * Rows of points with intervals on a logarithmic x axis (a dot-and-whisker
 * chart): the ranking with its error bars, a kernel's measured and
 * projected times. Rows are drawn top to bottom in array order.
 */
enum {
	CHART_ROW_OTHER = 0,
	CHART_ROW_SOURCE = 1,               /* measured: a square, no interval */
	CHART_ROW_FEATURED = 2,             /* highlighted */
};

struct chart_interval_row {
	const char *label;                  /* the row's name, at the left */
	double point, lo, hi;               /* x values (NaN: not drawn) */
	int style;                          /* CHART_ROW_* */
};

struct chart_intervals {
	const char *x_label;                /* e.g. "Projected GPU kernel time (ms)" */
	double x_scale;                     /* the axis shows x / x_scale (1e6: ns as ms) */
	const struct chart_interval_row *rows;
	size_t n_rows;
	const char *interval_label;         /* legend text of the whiskers */
	const char *point_label;            /* legend text of the points */
	const char *source_label;           /* legend text of the source's square, or NULL */
};

/*
 * Draw a chart. `id` (letters, digits, '-') becomes the prefix of every id
 * in the SVG. On success *ret_svg is a malloc'd NUL-terminated <svg>
 * element (caller frees). Quadrant: `labelled` (optional, n_devices
 * entries) receives, per device, whether its name was written beside its
 * point (names that would overlap another name or point are left out).
 * Returns GPUPROJ_OK; GPUPROJ_E_BACKEND (PLplot missing a driver or font, or
 * failing; `why` says which and where it looked); GPUPROJ_E_UNSUPPORTED
 * (built without PLplot); GPUPROJ_E_IO (no temporary file);
 * GPUPROJ_E_NOMEM; GPUPROJ_E_INVAL (nothing drawable).
 */
int chart_roofline(const struct chart_roofline *c, const char *id, char **ret_svg, char *why,
		   size_t whylen);
int chart_quadrant(const struct chart_quadrant *c, const char *id, char **ret_svg,
		   bool *labelled, char *why, size_t whylen);
int chart_irm(const struct chart_irm *c, const char *id, char **ret_svg, char *why, size_t whylen);
int chart_intervals(const struct chart_intervals *c, const char *id, char **ret_svg, char *why,
		    size_t whylen);

/* True when the library was built with PLplot. */
bool charts_built(void);

#endif
