/* SPDX-License-Identifier: MIT */
/*
 * Charts of the HTML report (see report-charts.h): PLplot's "svg" driver draws
 * log axes, tick labels, titles, lines, fills and legends; this file only
 * chooses what to draw. Each chart is drawn in a forked child so PLplot's
 * global state and exit()-on-error cannot touch the caller.
 *
 * Thread safety: see charts.h (fork per chart).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gpuproj/error.h>

#include "report-charts.h"
#include "util.h"

#ifdef GPUPROJ_HAVE_PLPLOT
#ifdef GPUPROJ_PLPLOT_SUBDIR_HEADER
#include <plplot/plplot.h>
#else
#include <plplot.h>
#endif
#endif

#ifndef GPUPROJ_PLPLOT_DRV_DIR
#define GPUPROJ_PLPLOT_DRV_DIR "PLplot's compiled-in driver directory"
#endif

bool
charts_built(void)
{
#ifdef GPUPROJ_HAVE_PLPLOT
	return true;
#else
	return false;
#endif
}

/* Child exit statuses (PLplot's own plexit() exits with 1). */
#define CHILD_OK 0
#define CHILD_NO_DRIVER 3
#define CHILD_WRITE_ERROR 4
#define CHILD_PLEXIT 5

/* Prefix of the lines the quadrant child reports label placement with. */
#define LABEL_TAG "gpuproj-label "

static bool
positive(double v)
{
	return isfinite(v) && v > 0;
}

#ifdef GPUPROJ_HAVE_PLPLOT

/* ---- colours and legends the parent lays out too ---- */

enum color {
	C_BG = 0, C_FG, C_PEAK, C_L1, C_L2, C_DRAM, C_CEIL, C_BAND, C_GRID, C_DIM, C_LABEL,
	C_FEATURED, C_TENSOR,
	C_KERNEL0,
};
#define N_KERNEL_COLORS 8

enum { LG_LINE, LG_SYMBOL, LG_BOX, LG_TEXT };

/* Number of characters (UTF-8 code points) of a string. */
static size_t
u8len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/*
 * A legend laid out in rows below a chart (the quadrant split, the
 * instruction roofline, the interval charts): entries left to right,
 * wrapped at the page's width by an estimate of each text's width, so
 * that no text runs past the page (PLplot's pllegend() sizes its box by
 * its own font metrics, narrower than the SVG's rendered text). The parent
 * lays it out to size the page, the child to draw: the same function on
 * the same entries.
 */
#define FLOW_MAX 24
#define FLOW_CHARS 84              /* longest text, code points ('…' marks a cut) */
#define FLOW_CHAR_PT 14.37         /* PLplot's default character height, 5.07 mm (plgchr()) */
#define FLOW_SCALE 0.85            /* the legends' character scale */
/*
 * Advance of a character in character heights: PLplot's svg driver writes
 * font-size = 1.31 × the character height and DejaVu Sans averages about
 * 0.6 em (capitals and digits 0.64-0.7), so 0.84 errs wide.
 */
#define FLOW_ADV 0.84
#define FLOW_SAMPLE_PT 26.0
#define FLOW_GAP_PT 6.0
#define FLOW_SEP_PT 18.0
#define FLOW_PAD_PT 10.0
#define FLOW_ROW_PT (1.9 * FLOW_CHAR_PT * FLOW_SCALE)

struct flow {
	size_t n;
	int kind[FLOW_MAX], color[FLOW_MAX], lsty[FLOW_MAX];
	bool markup[FLOW_MAX];             /* text is PLplot markup (#u, #d), not user text */
	double width[FLOW_MAX];
	const char *glyph[FLOW_MAX];
	char text[FLOW_MAX][FLOW_CHARS * 4 + 8];
};

static void
flow_add(struct flow *f, int kind, const char *text, int color, int lsty, double width,
	 const char *glyph)
{
	size_t i = f->n, cp = 0, w = 0;
	const char *p;

	if (i >= FLOW_MAX)
		return;
	for (p = text ? text : ""; *p && w + 5 < sizeof(f->text[i]); p++) {
		if (((unsigned char)*p & 0xC0) != 0x80 && cp++ == FLOW_CHARS - 1 &&
		    u8len(p) > 1) {
			memcpy(f->text[i] + w, "…", 3);
			w += 3;
			break;
		}
		f->text[i][w++] = *p;
	}
	f->text[i][w] = '\0';
	f->kind[i] = kind;
	f->color[i] = color;
	f->lsty[i] = lsty;
	f->width[i] = width;
	f->glyph[i] = glyph;
	f->n++;
}

/* Code points a text shows: PLplot's #u / #d (up, down) escapes take no room. */
static size_t
shown_len(const char *s, bool markup)
{
	size_t n = 0;

	for (; *s; s++) {
		if (markup && s[0] == '#' && (s[1] == 'u' || s[1] == 'd')) {
			s++;
			continue;
		}
		n += ((unsigned char)*s & 0xC0) != 0x80;
	}
	return n;
}

/* A markup entry (PLplot's escapes kept: the text is ours, not user text). */
static void
flow_add_markup(struct flow *f, int kind, const char *text, int color, int lsty, double width,
		const char *glyph)
{
	size_t i = f->n;

	flow_add(f, kind, text, color, lsty, width, glyph);
	if (i < f->n)
		f->markup[i] = true;
}

/* Rows of the legend on a page `page_w` pt wide; x[i] and row[i] of every entry (optional). */
static size_t
flow_layout(const struct flow *f, double page_w, double *x, size_t *row)
{
	double ht = FLOW_CHAR_PT * FLOW_SCALE, at = FLOW_PAD_PT, right = page_w - FLOW_PAD_PT;
	size_t i, r = 0;

	for (i = 0; i < f->n; i++) {
		double w = FLOW_SAMPLE_PT + FLOW_GAP_PT +
			   (double)shown_len(f->text[i], f->markup[i]) * FLOW_ADV * ht;

		if (at > FLOW_PAD_PT && at + w > right) {
			r++;
			at = FLOW_PAD_PT;
		}
		if (x)
			x[i] = at;
		if (row)
			row[i] = r;
		at += w + FLOW_SEP_PT;
	}
	return f->n ? r + 1 : 0;
}

/* Height of the legend, pt (0 when empty). */
static double
flow_height(const struct flow *f, double page_w)
{
	size_t rows = flow_layout(f, page_w, NULL, NULL);

	return rows ? (double)rows * FLOW_ROW_PT + 8 : 0;
}

/* Page sizes of the one-panel charts, pt: the plot, the axis title below it, margins. */
#define PAGE_W 960.0
#define PLOT_H 470.0
#define AXIS_PT 66.0
#define TOP_PT 26.0

struct axes {
	double xlo, xhi, ylo, yhi; /* log10 of the data range */
};

/* Log range [min, max] as is, widened to one decade around its middle if narrower. */
static void
tight_range(double min, double max, double *lo, double *hi)
{
	double l = log10(min), h = log10(max);

	if (h - l < 1) {
		double m = (l + h) / 2;

		l = m - 0.5;
		h = m + 0.5;
	}
	*lo = l;
	*hi = h;
}

static const char *const flow_level_name[3] = { "L1", "L2", "DRAM" };
static const char *const flow_level_glyph[3] = { "●", "■", "▲" };

/* The hierarchical roofline's legend: the lines and markers of both panels. */
static void
roofline_flow(const struct chart_roofline *c, struct flow *f)
{
	static const int level_col[3] = { C_L1, C_L2, C_DRAM };
	bool any_interval = false, any_tensor = false;
	char t[96];
	size_t i, k;
	int l;

	for (i = 0; i < c->n_panels && i < 2; i++) {
		const struct chart_roofline_panel *p = &c->panel[i];

		any_interval |= p->has_interval && positive(p->interval_lo_gflops);
		for (k = 0; k < p->n_tensor && k < CHART_TENSOR_ROOFS; k++)
			any_tensor |= positive(p->tensor_gflops[k]);
	}
	flow_add(f, LG_LINE, "GPU peak rooflines", C_PEAK, 3, 1.0, NULL);
	flow_add_markup(f, LG_LINE, "Perf#uceil#d (eq. 3)", C_CEIL, 1, 2.5, NULL);
	for (l = 0; l < 3; l++) {
		snprintf(t, sizeof(t), "%s: BW#uceil#d × OI", flow_level_name[l]);
		flow_add_markup(f, LG_LINE, t, level_col[l], 1, 2.0, NULL);
	}
	for (l = 0; l < 3; l++) {
		snprintf(t, sizeof(t), "kernel at OI#d%s#u", flow_level_name[l]);
		flow_add_markup(f, LG_SYMBOL, t, level_col[l], 1, 1, flow_level_glyph[l]);
	}
	if (any_interval)
		flow_add(f, LG_BOX, "projection interval", C_BAND, 1, 1, NULL);
	if (any_tensor)
		flow_add(f, LG_LINE, "tensor-pipe ceilings of the kernel's precisions", C_TENSOR, 2,
			 1.5, NULL);
}

/* The roofline's panels, pt (their titles above, the axis titles below). */
#define ROOF_PANEL_H 300.0
#define ROOF_TOP_PT 40.0

/* The quadrant chart's axes: the GPUs' points with a margin (log10 ranges). */
static void
quadrant_axes(const struct chart_quadrant *c, struct axes *a)
{
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	size_t i;

	for (i = 0; i < c->n_devices; i++) {
		if (!positive(c->devices[i].bw_gbs) || !positive(c->devices[i].gflops))
			continue;
		xmin = fmin(xmin, c->devices[i].bw_gbs);
		xmax = fmax(xmax, c->devices[i].bw_gbs);
		ymin = fmin(ymin, c->devices[i].gflops);
		ymax = fmax(ymax, c->devices[i].gflops);
	}
	tight_range(xmin / 1.6, xmax * 2.2, &a->xlo, &a->xhi);
	tight_range(ymin / 1.6, ymax * 2.2, &a->ylo, &a->yhi);
}

/* The quadrant chart's legend: the rays, then the kinds of points drawn. */
static void
quadrant_flow(const struct chart_quadrant *c, struct flow *f)
{
	bool any[3] = { false, false, false };
	struct axes a;
	size_t i;

	quadrant_axes(c, &a);
	for (i = 0; i < c->n_rays; i++) {
		double l = positive(c->rays[i].oi) ? log10(c->rays[i].oi) : NAN;
		char t[FLOW_CHARS * 4 + 8];

		if (isnan(l))
			continue;
		/* A ray y = OI·x misses the axes when it passes below (above) both corners. */
		snprintf(t, sizeof(t), "%s%s", a.xhi + l < a.ylo ? "below the axes: " :
			 a.xlo + l > a.yhi ? "above the axes: " : "", c->rays[i].label);
		flow_add(f, LG_LINE, t, C_KERNEL0 + (int)(i % N_KERNEL_COLORS), 1, 2.0, NULL);
	}
	for (i = 0; i < c->n_devices; i++) {
		if (positive(c->devices[i].bw_gbs) && positive(c->devices[i].gflops) &&
		    c->devices[i].style >= 0 && c->devices[i].style < 3)
			any[c->devices[i].style] = true;
	}
	if (any[CHART_DEVICE_SOURCE])
		flow_add(f, LG_SYMBOL, "source GPU (measured)", C_FG, 1, 1, "■");
	if (any[CHART_DEVICE_FEATURED])
		flow_add(f, LG_SYMBOL, "top-ranked targets", C_FEATURED, 1, 1, "◆");
	if (any[CHART_DEVICE_OTHER])
		flow_add(f, LG_SYMBOL, "other targets", C_DIM, 1, 1, "●");
}


static void
irm_flow(const struct chart_irm *c, struct flow *f)
{
	static const int level_col[3] = { C_L1, C_L2, C_DRAM };
	char t[200];
	size_t g, i;
	int l;

	for (g = 0; g < c->n_gpus; g++) {
		snprintf(t, sizeof(t), "%s%s", c->gpu[g].name, g == 0 ? " (solid)" : " (dashed)");
		flow_add(f, LG_LINE, t, C_FG, g == 0 ? 1 : 2, g == 0 ? 2.0 : 1.5, NULL);
	}
	flow_add(f, LG_TEXT, "black: peak GIPS", C_FG, 1, 1, NULL);
	for (l = 0; l < 3; l++) {
		snprintf(t, sizeof(t), "%s ceiling (GTXN/s)", flow_level_name[l]);
		flow_add(f, LG_LINE, t, level_col[l], 1, 2.0, NULL);
	}
	for (l = 0; l < 3; l++) {
		snprintf(t, sizeof(t), "at %s intensity", flow_level_name[l]);
		flow_add(f, LG_SYMBOL, t, C_FG, 1, 1, flow_level_glyph[l]);
	}
	for (i = 0; i < c->n_kernels; i++) {
		if (positive(c->kernels[i].gips))
			flow_add(f, LG_SYMBOL, c->kernels[i].label,
				 C_KERNEL0 + (int)(i % N_KERNEL_COLORS), 1, 1, "●");
	}
}

static void
intervals_flow(const struct chart_intervals *c, struct flow *f)
{
	bool any_source = false, any_interval = false;
	size_t i;

	for (i = 0; i < c->n_rows; i++) {
		any_source |= c->rows[i].style == CHART_ROW_SOURCE;
		any_interval |= positive(c->rows[i].lo) && positive(c->rows[i].hi);
	}
	flow_add(f, LG_SYMBOL, c->point_label ? c->point_label : "point", C_FEATURED, 1, 1, "◆");
	if (any_interval)
		flow_add(f, LG_LINE, c->interval_label ? c->interval_label : "interval", C_FEATURED,
			 1, 1.6, NULL);
	if (any_source && c->source_label)
		flow_add(f, LG_SYMBOL, c->source_label, C_FG, 1, 1, "■");
}

/* Height of a row of an interval chart, pt. */
#define ROW_PT 17.0

static double
intervals_plot_h(size_t n_rows)
{
	return ROW_PT * (double)(n_rows ? n_rows : 1);
}

/* The page height of a one-panel chart whose plot is `plot_h` pt tall, pt. */
static double
page_height(double plot_h, const struct flow *f)
{
	return TOP_PT + plot_h + AXIS_PT + flow_height(f, PAGE_W);
}


/*
 * PLplot's fatal errors call exit(), which in the chart child would run the
 * parent's atexit handlers (an application's, or libproj.so's report) a
 * second time: leave with _exit() instead, the message on the child's stderr.
 */
static int
child_plexit(PLCHAR_VECTOR message)
{
	fprintf(stderr, "%s\n", message ? message : "");
	fflush(stderr);
	_exit(CHILD_PLEXIT);
}

/*
 * Turn PLplot's SVG document into an inline <svg> element: drop what
 * precedes "<svg", the fixed width/height of the root (the viewBox stays),
 * and prefix every id and reference with `id`.
 */
static char *
inline_svg(const char *doc, const char *id)
{
	const char *s = strstr(doc, "<svg"), *end, *p;
	struct strbuf sb;

	if (!s)
		return NULL;
	end = strchr(s, '>');
	if (!end)
		return NULL;
	strbuf_init(&sb);
	strbuf_printf(&sb, "<svg id=\"%s\" class=\"chart-svg\" role=\"img\" "
		      "aria-labelledby=\"%s-caption\"", id, id);
	/* Copy the root's attributes except width and height. */
	p = s + 4;
	while (p < end) {
		const char *a = p, *q;

		while (a < end && (*a == ' ' || *a == '\n' || *a == '\t' || *a == '\r'))
			a++;
		if (a >= end)
			break;
		q = strchr(a, '"');
		if (!q || q > end)
			break;
		q = strchr(q + 1, '"');
		if (!q || q > end)
			break;
		q++;
		if (strncmp(a, "width=", 6) != 0 && strncmp(a, "height=", 7) != 0) {
			strbuf_append(&sb, " ");
			strbuf_appendn(&sb, a, (size_t)(q - a));
		}
		p = q;
	}
	strbuf_append(&sb, ">");
	/* The body, with ids and references prefixed. */
	for (p = end + 1; *p;) {
		if (strncmp(p, "id=\"", 4) == 0) {
			strbuf_printf(&sb, "id=\"%s-", id);
			p += 4;
		} else if (strncmp(p, "url(#", 5) == 0) {
			strbuf_printf(&sb, "url(#%s-", id);
			p += 5;
		} else if (strncmp(p, "href=\"#", 7) == 0) {
			strbuf_printf(&sb, "href=\"#%s-", id);
			p += 7;
		} else {
			const char *n = p + 1;

			while (*n && *n != 'i' && *n != 'u' && *n != 'h')
				n++;
			strbuf_appendn(&sb, p, (size_t)(n - p));
			p = n;
		}
	}
	/* Drop trailing blank lines after </svg>. */
	while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == ' '))
		sb.buf[--sb.len] = '\0';
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_steal(&sb);
}

static char *
read_stream(FILE *f, size_t *ret_len)
{
	struct strbuf sb;
	char buf[8192];
	size_t n;

	strbuf_init(&sb);
	strbuf_append(&sb, "");
	if (fseek(f, 0, SEEK_SET) != 0) {
		strbuf_free(&sb);
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_appendn(&sb, buf, n);
	if (sb.oom || ferror(f)) {
		strbuf_free(&sb);
		return NULL;
	}
	if (ret_len)
		*ret_len = sb.len;
	return strbuf_steal(&sb);
}

/*
 * The messages a failed child left, without PLplot's banner lines and our
 * label reports, joined into one line.
 */
static void
summarise_messages(const char *msg, char *out, size_t outlen)
{
	struct strbuf sb;
	const char *line = msg;

	strbuf_init(&sb);
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (len && strncmp(line, LABEL_TAG, strlen(LABEL_TAG)) != 0 &&
		    strncmp(line, "***", 3) != 0 && strncmp(line, "Program aborted", 15) != 0) {
			if (sb.len)
				strbuf_append(&sb, "; ");
			strbuf_appendn(&sb, line, len);
		}
		line = nl ? nl + 1 : NULL;
	}
	snprintf(out, outlen, "%s", sb.len ? sb.buf : "no message");
	strbuf_free(&sb);
}

/* ---- drawing helpers (run in the child only) ---- */


static const struct {
	int r, g, b;
	double a;
} palette[] = {
	[C_BG] = { 255, 255, 255, 1 },
	[C_FG] = { 0, 0, 0, 1 },
	[C_PEAK] = { 140, 140, 140, 1 },
	[C_L1] = { 0, 114, 178, 1 },      /* Okabe–Ito blue */
	[C_L2] = { 0, 158, 115, 1 },      /* bluish green */
	[C_DRAM] = { 213, 94, 0, 1 },     /* vermillion */
	[C_CEIL] = { 230, 159, 0, 1 },    /* orange: Perf^ceil (yellow in the paper) */
	[C_BAND] = { 86, 180, 233, 0.35 },/* sky blue, translucent: projection interval */
	[C_GRID] = { 225, 225, 225, 1 },
	[C_DIM] = { 150, 150, 150, 1 },
	[C_LABEL] = { 90, 90, 90, 1 },
	[C_FEATURED] = { 0, 90, 160, 1 },
	[C_TENSOR] = { 204, 121, 167, 1 },/* Okabe–Ito reddish purple: tensor-pipe roofs */
	/* kernels (tab10) */
	[C_KERNEL0 + 0] = { 31, 119, 180, 1 },
	[C_KERNEL0 + 1] = { 255, 127, 14, 1 },
	[C_KERNEL0 + 2] = { 44, 160, 44, 1 },
	[C_KERNEL0 + 3] = { 214, 39, 40, 1 },
	[C_KERNEL0 + 4] = { 148, 103, 189, 1 },
	[C_KERNEL0 + 5] = { 140, 86, 75, 1 },
	[C_KERNEL0 + 6] = { 227, 119, 194, 1 },
	[C_KERNEL0 + 7] = { 188, 189, 34, 1 },
};

static const int level_color[CHART_LEVELS] = { C_L1, C_L2, C_DRAM };
/* Marker glyphs (drawn as text by the svg driver, so they stay round). */

/* Base character scale (plschr); legends use FLOW_SCALE. */
#define TEXT_SCALE 1.0
#define MARKER_SCALE 1.1

/*
 * PLplot treats '#' as its escape character: double it. Truncates to fit
 * `size` without splitting a UTF-8 sequence.
 */
static const char *
pl_text(char *buf, size_t size, const char *s)
{
	size_t w = 0;

	for (; s && *s && w + 4 < size; s++) {
		if ((unsigned char)*s >= 0xC0) {
			/* Start of a multi-byte sequence: copy it whole or stop. */
			size_t len = 1;

			while ((s[len] & 0xC0) == 0x80)
				len++;
			if (w + len + 1 >= size)
				break;
			memcpy(buf + w, s, len);
			w += len;
			s += len - 1;
			continue;
		}
		if (*s == '#')
			buf[w++] = '#';
		buf[w++] = *s;
	}
	buf[w] = '\0';
	return buf;
}


/* Decade-aligned log range covering [min, max], at least `decades` wide. */
static void
log_range(double min, double max, int decades, double *lo, double *hi)
{
	double l = floor(log10(min)), h = ceil(log10(max));

	if (!(h > l))
		h = l + 1;
	while (h - l < decades) {
		l -= 1;
		if (h - l < decades)
			h += 1;
	}
	*lo = l;
	*hi = h;
}

static void
setup_page(double width_pt, double height_pt)
{
	size_t i;

	plsdev("svg");
	plspage(0, 0, (PLINT)width_pt, (PLINT)height_pt, 0, 0);
	plscmap0n(32);
	for (i = 0; i < ARRAY_LENGTH(palette); i++)
		plscol0a((PLINT)i, palette[i].r, palette[i].g, palette[i].b, palette[i].a);
	plspause(0);
	plinit();
	plsfont(PL_FCI_SANS, PL_FCI_UPRIGHT, PL_FCI_MEDIUM);
	pladv(0);
	plschr(0, TEXT_SCALE);
}

/* Frame, grid, log tick labels and axis titles of the current viewport. */
static void
draw_frame(const struct axes *a, const char *xlabel, const char *ylabel, const char *title)
{
	char buf[256];

	plwind(a->xlo, a->xhi, a->ylo, a->yhi);
	plcol0(C_GRID);
	plwidth(0.6);
	plbox("g", 0, 0, "g", 0, 0);
	plcol0(C_FG);
	plwidth(1);
	plbox("bcnlst", 0, 0, "bcnlstv", 0, 0);
	plmtex("b", 2.8, 0.5, 0.5, pl_text(buf, sizeof(buf), xlabel));
	plmtex("l", 3.6, 0.5, 0.5, pl_text(buf, sizeof(buf), ylabel));
	if (title)
		plmtex("t", 1.9, 0.5, 0.5, pl_text(buf, sizeof(buf), title));
}

static void
line2(double x0, double y0, double x1, double y1)
{
	PLFLT x[2] = { x0, x1 }, y[2] = { y0, y1 };

	plline(2, x, y);
}

static void
style(int color, int lsty, double width)
{
	plcol0(color);
	pllsty(lsty);
	plwidth(width);
}

/* min(bw·x, peak) over the window, in log space (a roofline). */
static void
roof(const struct axes *a, double bw, double peak)
{
	double lb = log10(bw), lp = isfinite(peak) ? log10(peak) : INFINITY, ridge = lp - lb;
	PLFLT x[3], y[3];
	PLINT n = 0;

	x[n] = a->xlo;
	y[n] = fmin(lb + a->xlo, lp);
	n++;
	if (ridge > a->xlo && ridge < a->xhi) {
		x[n] = ridge;
		y[n] = lp;
		n++;
	}
	x[n] = a->xhi;
	y[n] = fmin(lb + a->xhi, lp);
	n++;
	plline(n, x, y);
}

/* The sloped part of a roofline only: bw·x up to where it meets `cap`. */
static void
slope(const struct axes *a, double bw, double cap)
{
	double lb = log10(bw), ridge = log10(cap) - lb;
	double xe = fmin(ridge, a->xhi);

	if (xe > a->xlo)
		line2(a->xlo, lb + a->xlo, xe, lb + xe);
}

static void
marker(double lx, double ly, const char *glyph, int color, double scale)
{
	PLFLT x = lx, y = ly;

	plschr(0, scale);
	plcol0(color);
	plstring(1, &x, &y, glyph);
	plschr(0, TEXT_SCALE);
}

/* The flow legend at the bottom of the page (the same layout as flow_height()). */
static void
flow_draw(const struct flow *f)
{
	PLFLT sx0, sx1, sy0, sy1;
	double w, h, x[FLOW_MAX], top;
	size_t row[FLOW_MAX], rows, i;
	char buf[FLOW_CHARS * 4 + 16];

	if (!f->n)
		return;
	plgspa(&sx0, &sx1, &sy0, &sy1);
	w = (sx1 - sx0) * 72.0 / 25.4;
	h = (sy1 - sy0) * 72.0 / 25.4;
	rows = flow_layout(f, w, x, row);
	top = flow_height(f, w);
	plvpor(0, 1, 0, 1);
	plwind(0, w, 0, h);
	/* The box. */
	style(C_DIM, 1, 0.8);
	{
		PLFLT bx[5] = { 2, w - 2, w - 2, 2, 2 }, by[5] = { 2, 2, top, top, 2 };

		plline(5, bx, by);
	}
	for (i = 0; i < f->n; i++) {
		double y = top - 4 - ((double)row[i] + 0.5) * FLOW_ROW_PT;
		double sx = x[i] + FLOW_SAMPLE_PT / 2;

		switch (f->kind[i]) {
		case LG_LINE:
			style(f->color[i], f->lsty[i], f->width[i]);
			line2(x[i], y, x[i] + FLOW_SAMPLE_PT, y);
			break;
		case LG_SYMBOL:
			marker(sx, y, f->glyph[i] ? f->glyph[i] : "●", f->color[i], MARKER_SCALE);
			break;
		case LG_BOX: {
			PLFLT bx[4] = { x[i], x[i] + FLOW_SAMPLE_PT, x[i] + FLOW_SAMPLE_PT, x[i] };
			PLFLT by[4] = { y - 5, y - 5, y + 5, y + 5 };

			plcol0(f->color[i]);
			plpsty(0);
			plfill(4, bx, by);
			break;
		}
		default:
			break;
		}
		pllsty(1);
		plwidth(1);
		plcol0(C_FG);
		plschr(0, FLOW_SCALE);
		if (f->markup[i])
			snprintf(buf, sizeof(buf), "%s", f->text[i]);
		else
			pl_text(buf, sizeof(buf), f->text[i]);
		plptex(x[i] + FLOW_SAMPLE_PT + FLOW_GAP_PT, y, 1, 0, 0, buf);
		plschr(0, TEXT_SCALE);
	}
	(void)rows;
}

/* The plot area of a one-panel chart above its legend: x0..x1 of the page, normalised. */
static void
plot_viewport(double x0, double x1, const struct flow *f)
{
	PLFLT sx0, sx1, sy0, sy1;
	double w, h, bottom;

	plgspa(&sx0, &sx1, &sy0, &sy1);
	w = (sx1 - sx0) * 72.0 / 25.4;
	h = (sy1 - sy0) * 72.0 / 25.4;
	bottom = flow_height(f, w) + AXIS_PT;
	plvpor(x0, x1, bottom / h, 1 - TOP_PT / h);
}

/* ---- hierarchical roofline ([VanLanker2024] Fig. 2) ---- */

static void
roofline_panel(const struct chart_roofline_panel *p, const struct axes *a)
{
	size_t i;
	int l;

	draw_frame(a, "Operational intensity (FLOP/byte)", "Performance (GFLOP/s)", p->title);
	/* The GPU's rooflines per level at its peak FLOP/s for the kernel's mix. */
	for (l = 0; l < CHART_LEVELS; l++) {
		if (!positive(p->peak_bw_gbs[l]))
			continue;
		style(C_PEAK, 3, 1.0);
		roof(a, p->peak_bw_gbs[l], positive(p->peak_gflops) ? p->peak_gflops : INFINITY);
	}
	/* The projection interval (blue area of Fig. 2b). */
	if (p->has_interval && positive(p->interval_lo_gflops) && positive(p->interval_hi_gflops)) {
		double xmin = INFINITY, xmax = -INFINITY, ylo, yhi;
		PLFLT x[4], y[4];

		for (l = 0; l < CHART_LEVELS; l++) {
			if (positive(p->oi[l])) {
				xmin = fmin(xmin, log10(p->oi[l]));
				xmax = fmax(xmax, log10(p->oi[l]));
			}
		}
		if (isfinite(xmin)) {
			xmin = fmax(xmin - 0.35, a->xlo);
			xmax = fmin(xmax + 0.35, a->xhi);
			ylo = log10(p->interval_lo_gflops);
			yhi = log10(p->interval_hi_gflops);
			if (yhi - ylo < 0.02) {
				ylo -= 0.01;
				yhi += 0.01;
			}
			x[0] = xmin; y[0] = ylo;
			x[1] = xmax; y[1] = ylo;
			x[2] = xmax; y[2] = yhi;
			x[3] = xmin; y[3] = yhi;
			plcol0(C_BAND);
			plpsty(0);
			plfill(4, x, y);
		}
	}
	/* Kernel-specific ceilings: BW^ceil_x · OI up to Perf^ceil, and Perf^ceil. */
	for (l = 0; l < CHART_LEVELS; l++) {
		if (!positive(p->bw_ceil_gbs[l]))
			continue;
		style(level_color[l], 1, 2.0);
		slope(a, p->bw_ceil_gbs[l], positive(p->perf_ceil_gflops) ? p->perf_ceil_gflops
									 : 1e300);
	}
	/* Tensor-pipe roofs: one horizontal line per path, labelled at the right. */
	for (i = 0; i < p->n_tensor && i < CHART_TENSOR_ROOFS; i++) {
		char buf[160];
		double y;

		if (!positive(p->tensor_gflops[i]))
			continue;
		y = log10(p->tensor_gflops[i]);
		if (y < a->ylo || y > a->yhi)
			continue;
		style(C_TENSOR, 2, 1.5);
		line2(a->xlo, y, a->xhi, y);
		if (p->tensor_label[i]) {
			plcol0(C_TENSOR);
			plschr(0, FLOW_SCALE);
			plptex(a->xhi - 0.05 * (a->xhi - a->xlo), y + 0.03 * (a->yhi - a->ylo), 1, 0,
			       1.0, pl_text(buf, sizeof(buf), p->tensor_label[i]));
			plschr(0, TEXT_SCALE);
		}
	}
	if (positive(p->perf_ceil_gflops)) {
		style(C_CEIL, 1, 2.5);
		line2(a->xlo, log10(p->perf_ceil_gflops), a->xhi, log10(p->perf_ceil_gflops));
	}
	pllsty(1);
	plwidth(1);
	/* The kernel at its three operational intensities. */
	for (l = 0; l < CHART_LEVELS; l++) {
		if (positive(p->oi[l]) && positive(p->perf_gflops[l]))
			marker(log10(p->oi[l]), log10(p->perf_gflops[l]), flow_level_glyph[l],
			       level_color[l], MARKER_SCALE);
	}
}

static void
draw_roofline(const void *arg)
{
	const struct chart_roofline *c = arg;
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	struct axes a;
	struct flow fl = { 0 };
	PLFLT sx0, sx1, sy0, sy1;
	double h, bottom;
	size_t i;
	int l;

	for (i = 0; i < c->n_panels; i++) {
		const struct chart_roofline_panel *p = &c->panel[i];

		for (l = 0; l < CHART_LEVELS; l++) {
			if (positive(p->oi[l])) {
				xmin = fmin(xmin, p->oi[l]);
				xmax = fmax(xmax, p->oi[l]);
			}
			if (positive(p->perf_gflops[l])) {
				ymin = fmin(ymin, p->perf_gflops[l]);
				ymax = fmax(ymax, p->perf_gflops[l]);
			}
			if (positive(p->bw_ceil_gbs[l]) && positive(p->perf_ceil_gflops)) {
				double ridge = p->perf_ceil_gflops / p->bw_ceil_gbs[l];

				xmin = fmin(xmin, ridge);
				xmax = fmax(xmax, ridge);
			}
		}
		if (positive(p->peak_gflops))
			ymax = fmax(ymax, p->peak_gflops);
		for (size_t k = 0; k < p->n_tensor && k < CHART_TENSOR_ROOFS; k++) {
			if (positive(p->tensor_gflops[k]))
				ymax = fmax(ymax, p->tensor_gflops[k]);
		}
		if (positive(p->perf_ceil_gflops)) {
			ymax = fmax(ymax, p->perf_ceil_gflops);
			ymin = fmin(ymin, p->perf_ceil_gflops);
		}
		if (p->has_interval && positive(p->interval_lo_gflops))
			ymin = fmin(ymin, p->interval_lo_gflops);
	}
	log_range(xmin / 3, xmax * 3, 4, &a.xlo, &a.xhi);
	log_range(ymin / 3, ymax * 2, 3, &a.ylo, &a.yhi);

	roofline_flow(c, &fl);
	plgspa(&sx0, &sx1, &sy0, &sy1);
	h = (sy1 - sy0) * 72.0 / 25.4;
	bottom = (flow_height(&fl, PAGE_W) + AXIS_PT) / h;
	for (i = 0; i < c->n_panels; i++) {
		if (c->n_panels == 2)
			plvpor(i == 0 ? 0.075 : 0.575, i == 0 ? 0.465 : 0.955, bottom,
			       1 - ROOF_TOP_PT / h);
		else
			plvpor(0.11, 0.955, bottom, 1 - ROOF_TOP_PT / h);
		roofline_panel(&c->panel[i], &a);
	}
	flow_draw(&fl);
}

/* ---- quadrant split ([Konstantinidis2017] §2.1) ---- */

struct rect {
	double x0, y0, x1, y1; /* mm */
};

/* A candidate place of a label: offset (label heights), justification, leader line. */
struct spot {
	double dx, dy, just;
	bool leader;
};

/*
 * Beyond the fixed spots: rings of 16 spots at growing distances, each
 * with a leader line, justified away from the point (for crowded clusters
 * such as the Hopper and CDNA3 GPUs around 3-5 TB/s and 60 TFLOP/s).
 */
#define RING_SPOTS 16
#define N_RING (4 * RING_SPOTS)

static struct spot
spot_at(const struct spot *fixed, size_t n_fixed, size_t i)
{
	static const double radius[4] = { 5.0, 6.5, 8.5, 11.0 };
	struct spot sp;
	double ang;

	if (i < n_fixed)
		return fixed[i];
	i -= n_fixed;
	ang = 2 * M_PI * (double)(i % RING_SPOTS) / RING_SPOTS;
	sp.dx = radius[i / RING_SPOTS] * cos(ang) * 1.6;
	sp.dy = radius[i / RING_SPOTS] * sin(ang);
	sp.just = cos(ang) > 0.3 ? 0 : cos(ang) < -0.3 ? 1 : 0.5;
	sp.leader = true;
	return sp;
}

/* Points closer than this in both log10 coordinates (0.4 %) are one point for labels. */
#define COINCIDE 0.0017

static bool
overlaps(const struct rect *a, const struct rect *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Where the plot sits on the page, in mm: to place labels clear of each other. */
struct page_geom {
	double ox, oy;   /* the plot's lower left corner */
	double mmx, mmy; /* mm per decade */
	double ht;       /* the character height, mm */
};

/* A point's place on the page, mm. */
static void
page_point(const struct page_geom *g, const struct axes *a, const struct chart_device *d,
	   double *px, double *py)
{
	*px = g->ox + (log10(d->bw_gbs) - a->xlo) * g->mmx;
	*py = g->oy + (log10(d->gflops) - a->ylo) * g->mmy;
}

/*
 * The devices' points: each an obstacle for the labels (used[*n_used]);
 * drawn other targets first, then featured ones, then the source on top.
 */
static void
quadrant_points(const struct chart_quadrant *c, const struct axes *a, const struct page_geom *g,
		struct rect *used, size_t *n_used)
{
	size_t i;

	for (i = 0; i < c->n_devices; i++) {
		const struct chart_device *d = &c->devices[i];
		double px, py, r = g->ht * 0.55;

		if (!positive(d->bw_gbs) || !positive(d->gflops))
			continue;
		page_point(g, a, d, &px, &py);
		used[(*n_used)++] = (struct rect){ px - r, py - r, px + r, py + r };
	}
	for (size_t pass = 0; pass < 3; pass++) {
		static const int pass_order[] = { CHART_DEVICE_OTHER, CHART_DEVICE_FEATURED,
						  CHART_DEVICE_SOURCE };
		int st = pass_order[pass];

		for (i = 0; i < c->n_devices; i++) {
			const struct chart_device *d = &c->devices[i];

			if (d->style != st || !positive(d->bw_gbs) || !positive(d->gflops))
				continue;
			marker(log10(d->bw_gbs), log10(d->gflops),
			       st == CHART_DEVICE_SOURCE ? "■" : st == CHART_DEVICE_FEATURED ? "◆" : "●",
			       st == CHART_DEVICE_SOURCE ? C_FG : st == CHART_DEVICE_FEATURED ?
			       C_FEATURED : C_DIM, st == CHART_DEVICE_OTHER ? 0.9 : MARKER_SCALE);
		}
	}
}

/*
 * GPUs at one point (the same datasheet figures: H100-SXM5 and H800-SXM5)
 * share one label, the first in label order (order[order_n]) naming them
 * all: head[i] is the device whose label names device i (i itself for the
 * first).
 */
static void
label_heads(const struct chart_quadrant *c, const size_t *order, size_t order_n, size_t *head)
{
	for (size_t o = 0; o < order_n; o++) {
		const struct chart_device *d = &c->devices[order[o]];

		head[order[o]] = order[o];
		for (size_t q = 0; q < o && positive(d->bw_gbs) && positive(d->gflops); q++) {
			const struct chart_device *e = &c->devices[order[q]];

			if (head[order[q]] == order[q] && positive(e->bw_gbs) &&
			    positive(e->gflops) && fabs(log10(d->bw_gbs / e->bw_gbs)) < COINCIDE &&
			    fabs(log10(d->gflops / e->gflops)) < COINCIDE) {
				head[order[o]] = order[q];
				break;
			}
		}
	}
}

/*
 * The label `names` of the point of `d` at the first free spot: beside the
 * point first, then farther away with a leader line to the point (the
 * fixed spots, then spot_at()'s rings). Whether it was placed.
 */
static bool
place_label(const struct chart_device *d, const char *names, const struct axes *a,
	    const struct page_geom *g, double lht, struct rect *used, size_t *n_used)
{
	/* Offsets (in label heights) and justification of the fixed candidate spots. */
	static const struct spot spots[] = {
		{ 0.9, 0, 0, false }, { -0.9, 0, 1, false },
		{ 0, 1.45, 0.5, false }, { 0, -1.45, 0.5, false },
		{ 0.7, 0.9, 0, false }, { 0.7, -0.9, 0, false },
		{ -0.7, 0.9, 1, false }, { -0.7, -0.9, 1, false },
		{ 0, 2.4, 0.5, false }, { 0, -2.4, 0.5, false },
		{ 0.7, 1.9, 0, false }, { 0.7, -1.9, 0, false },
		{ -0.7, 1.9, 1, false }, { -0.7, -1.9, 1, false },
		{ 0, -3.6, 0.5, true }, { 0, 3.6, 0.5, true },
		{ -3.2, 0, 1, true }, { 3.2, 0, 0, true },
		{ -2.6, -2.6, 1, true }, { 2.6, -2.6, 0, true },
		{ -2.6, 2.6, 1, true }, { 2.6, 2.6, 0, true },
		{ 0, -5.2, 0.5, true }, { 0, 5.2, 0.5, true },
		{ -3.8, -3.8, 1, true }, { 3.8, -3.8, 0, true },
		{ -3.8, 3.8, 1, true }, { 3.8, 3.8, 0, true },
	};
	double ox = g->ox, oy = g->oy, mmx = g->mmx, mmy = g->mmy, px, py, w;
	char t[400];

	pl_text(t, sizeof(t), names);
	page_point(g, a, d, &px, &py);
	/* Sans-serif glyphs average about 0.62 of the character height here. */
	w = (double)u8len(names) * 0.62 * lht * 1.35;
	for (size_t s = 0; s < ARRAY_LENGTH(spots) + N_RING; s++) {
		struct spot sp = spot_at(spots, ARRAY_LENGTH(spots), s);
		double lx = px + sp.dx * lht, ly = py + sp.dy * lht;
		struct rect r = { lx - sp.just * w, ly - 0.65 * lht,
				  lx + (1 - sp.just) * w, ly + 0.65 * lht };
		size_t u;

		if (r.x0 < ox || r.x1 > ox + mmx * (a->xhi - a->xlo) || r.y0 < oy ||
		    r.y1 > oy + mmy * (a->yhi - a->ylo))
			continue;
		for (u = 0; u < *n_used; u++) {
			if (overlaps(&r, &used[u]))
				break;
		}
		if (u < *n_used)
			continue;
		used[(*n_used)++] = r;
		if (sp.leader) {
			/* From the marker's edge to the label's near edge. */
			double ax = sp.just == 0.5 ? lx : lx + (sp.just == 0 ? -0.2 : 0.2) * lht;
			double ay = sp.just == 0.5 ? ly + (sp.dy > 0 ? -0.6 : 0.6) * lht : ly;
			double len = hypot(ax - px, ay - py), rr = 0.45 * g->ht;

			style(C_LABEL, 1, 0.9);
			line2(a->xlo + (px + (ax - px) * rr / len - ox) / mmx,
			      a->ylo + (py + (ay - py) * rr / len - oy) / mmy,
			      a->xlo + (ax - ox) / mmx, a->ylo + (ay - oy) / mmy);
			plwidth(1);
		}
		plcol0(d->style == CHART_DEVICE_OTHER ? C_LABEL : C_FG);
		plptex(a->xlo + (lx - ox) / mmx, a->ylo + (ly - oy) / mmy, 1, 0, sp.just, t);
		return true;
	}
	return false;
}

/*
 * The labels in order[order_n], one per point (label_heads()), each
 * printed as LABEL_TAG with whether it was placed; devices without a point
 * are not placed.
 */
static void
quadrant_labels(const struct chart_quadrant *c, const size_t *order, size_t order_n,
		const size_t *head, const struct axes *a, const struct page_geom *g,
		struct rect *used, size_t *n_used)
{
	double lscale = 0.8;

	plschr(0, lscale);
	for (size_t o = 0; o < order_n; o++) {
		const struct chart_device *d = &c->devices[order[o]];
		char names[200];
		size_t w_names = 0;
		bool placed;

		if (!positive(d->bw_gbs) || !positive(d->gflops) || head[order[o]] != order[o])
			continue;
		names[0] = '\0';
		for (size_t q = o; q < order_n && w_names < sizeof(names); q++) {
			if (head[order[q]] != order[o])
				continue;
			w_names += (size_t)snprintf(names + w_names, sizeof(names) - w_names,
						    "%s%s", q == o ? "" : " / ",
						    c->devices[order[q]].name);
		}
		placed = place_label(d, names, a, g, g->ht * lscale, used, n_used);
		for (size_t q = o; q < order_n; q++) {
			if (head[order[q]] == order[o])
				printf(LABEL_TAG "%zu %d\n", order[q], placed ? 1 : 0);
		}
	}
	for (size_t o = 0; o < order_n; o++) {
		const struct chart_device *d = &c->devices[order[o]];

		if (!positive(d->bw_gbs) || !positive(d->gflops))
			printf(LABEL_TAG "%zu 0\n", order[o]);
	}
	plschr(0, TEXT_SCALE);
}

static void
draw_quadrant(const void *arg)
{
	const struct chart_quadrant *c = arg;
	double sx0, sx1, sy0, sy1, vx0, vx1, vy0, vy1, def_ht;
	struct page_geom g;
	struct rect *used;
	size_t n_used = 0, i, order_n = 0;
	size_t *order, *head;
	struct axes a;
	struct flow fl = { 0 };

	quadrant_axes(c, &a);
	quadrant_flow(c, &fl);
	plot_viewport(0.085, 0.955, &fl);
	draw_frame(&a, "Memory bandwidth, DRAM (GB/s)", c->y_label, NULL);

	/* Kernels: rays y = OI·x through the origin (straight lines of slope 1 in log–log). */
	for (i = 0; i < c->n_rays; i++) {
		int col = C_KERNEL0 + (int)(i % N_KERNEL_COLORS);

		if (!positive(c->rays[i].oi))
			continue;
		style(col, 1, 2.0);
		line2(a.xlo, a.xlo + log10(c->rays[i].oi), a.xhi, a.xhi + log10(c->rays[i].oi));
	}
	pllsty(1);
	plwidth(1);

	/* Geometry for label placement, in mm of the page. */
	plgspa(&sx0, &sx1, &sy0, &sy1);
	plgvpd(&vx0, &vx1, &vy0, &vy1);
	plgchr(&def_ht, &g.ht);
	g.mmx = (sx1 - sx0) * (vx1 - vx0) / (a.xhi - a.xlo);
	g.mmy = (sy1 - sy0) * (vy1 - vy0) / (a.yhi - a.ylo);
	g.ox = (sx1 - sx0) * vx0;
	g.oy = (sy1 - sy0) * vy0;
	used = calloc(2 * c->n_devices + 1, sizeof(*used));
	order = calloc(c->n_devices + 1, sizeof(*order));
	head = calloc(c->n_devices + 1, sizeof(*head));
	if (!used || !order || !head) {
		free(used);
		free(order);
		free(head);
		_exit(CHILD_WRITE_ERROR);
	}
	quadrant_points(c, &a, &g, used, &n_used);
	/* Labels in label_rank order (stable), each at the first free spot. */
	for (i = 0; i < c->n_devices; i++) {
		size_t j = order_n++;

		while (j > 0 && c->devices[order[j - 1]].label_rank > c->devices[i].label_rank) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	label_heads(c, order, order_n, head);
	quadrant_labels(c, order, order_n, head, &a, &g, used, &n_used);
	free(used);
	free(order);
	free(head);

	flow_draw(&fl);
	fflush(stdout);
}

/* ---- instruction roofline ([Leinhauser2022]) ---- */

static void
draw_irm(const void *arg)
{
	const struct chart_irm *c = arg;
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	struct axes a;
	struct flow fl = { 0 };
	size_t g, i;
	int l;

	for (g = 0; g < c->n_gpus; g++) {
		const struct chart_irm_gpu *gp = &c->gpu[g];

		if (positive(gp->peak_gips)) {
			ymax = fmax(ymax, gp->peak_gips);
			ymin = fmin(ymin, gp->peak_gips);
		}
		for (l = 0; l < CHART_LEVELS; l++) {
			if (positive(gp->gtxn[l]) && positive(gp->peak_gips)) {
				xmin = fmin(xmin, gp->peak_gips / gp->gtxn[l]);
				xmax = fmax(xmax, gp->peak_gips / gp->gtxn[l]);
			}
		}
	}
	for (i = 0; i < c->n_kernels; i++) {
		const struct chart_irm_kernel *k = &c->kernels[i];

		if (!positive(k->gips))
			continue;
		ymin = fmin(ymin, k->gips);
		ymax = fmax(ymax, k->gips);
		for (l = 0; l < CHART_LEVELS; l++) {
			if (positive(k->intensity[l])) {
				xmin = fmin(xmin, k->intensity[l]);
				xmax = fmax(xmax, k->intensity[l]);
			}
		}
	}
	log_range(xmin / 3, xmax * 3, 4, &a.xlo, &a.xhi);
	log_range(ymin / 3, ymax * 2, 3, &a.ylo, &a.yhi);

	irm_flow(c, &fl);
	plot_viewport(0.085, 0.955, &fl);
	draw_frame(&a, "Instruction intensity (warp instructions per 32 B transaction)",
		   "Performance (warp GIPS)", NULL);
	for (g = 0; g < c->n_gpus; g++) {
		const struct chart_irm_gpu *gp = &c->gpu[g];
		int sty = g == 0 ? 1 : 2;

		for (l = 0; l < CHART_LEVELS; l++) {
			if (!positive(gp->gtxn[l]))
				continue;
			style(level_color[l], sty, g == 0 ? 2.0 : 1.5);
			slope(&a, gp->gtxn[l], positive(gp->peak_gips) ? gp->peak_gips : 1e300);
		}
		if (positive(gp->peak_gips)) {
			style(C_FG, sty, g == 0 ? 2.0 : 1.5);
			line2(a.xlo, log10(gp->peak_gips), a.xhi, log10(gp->peak_gips));
		}
	}
	pllsty(1);
	plwidth(1);
	for (i = 0; i < c->n_kernels; i++) {
		const struct chart_irm_kernel *k = &c->kernels[i];
		int col = C_KERNEL0 + (int)(i % N_KERNEL_COLORS);

		if (!positive(k->gips))
			continue;
		for (l = 0; l < CHART_LEVELS; l++) {
			if (positive(k->intensity[l]))
				marker(log10(k->intensity[l]), log10(k->gips),
				       flow_level_glyph[l], col, MARKER_SCALE);
		}
	}

	flow_draw(&fl);
}

/* ---- points with intervals (the ranking's error bars, a kernel's times) ---- */

static void
draw_intervals(const void *arg)
{
	const struct chart_intervals *c = arg;
	double xmin = INFINITY, xmax = 0, sc, n = (double)c->n_rows;
	struct axes a;
	struct flow fl = { 0 };
	size_t i;

	sc = c->x_scale > 0 ? c->x_scale : 1;
	for (i = 0; i < c->n_rows; i++) {
		const struct chart_interval_row *r = &c->rows[i];
		double v[3] = { r->point, r->lo, r->hi };

		for (int j = 0; j < 3; j++) {
			if (positive(v[j])) {
				xmin = fmin(xmin, v[j] / sc);
				xmax = fmax(xmax, v[j] / sc);
			}
		}
	}
	/* At least a decade, so that the log axis has labelled ticks. */
	tight_range(xmin / 1.25, xmax * 1.25, &a.xlo, &a.xhi);
	a.xlo = floor(a.xlo * 2) / 2;
	a.xhi = ceil(a.xhi * 2) / 2;
	a.ylo = 0;
	a.yhi = n;
	intervals_flow(c, &fl);
	plot_viewport(0.30, 0.975, &fl);
	plwind(a.xlo, a.xhi, a.ylo, a.yhi);
	plcol0(C_GRID);
	plwidth(0.6);
	plbox("g", 0, 0, "", 0, 0);
	plcol0(C_FG);
	plwidth(1);
	plbox("bcnlst", 0, 0, "bc", 0, 0);
	{
		char buf[256];

		plmtex("b", 2.6, 0.5, 0.5, pl_text(buf, sizeof(buf), c->x_label));
	}
	plschr(0, FLOW_SCALE);
	for (i = 0; i < c->n_rows; i++) {
		const struct chart_interval_row *r = &c->rows[i];
		double y = n - (double)i - 0.5;
		int col = r->style == CHART_ROW_SOURCE ? C_FG :
			  r->style == CHART_ROW_FEATURED ? C_FEATURED : C_DIM;
		char buf[160];

		plcol0(r->style == CHART_ROW_OTHER ? C_LABEL : C_FG);
		plmtex("lv", 0.6, y / n, 1.0, pl_text(buf, sizeof(buf), r->label));
		if (positive(r->lo) && positive(r->hi)) {
			double l = log10(r->lo / sc), u = log10(r->hi / sc);

			style(col, 1, 1.6);
			line2(l, y, u, y);
			line2(l, y - 0.28, l, y + 0.28);
			line2(u, y - 0.28, u, y + 0.28);
		}
		if (positive(r->point)) {
			marker(log10(r->point / sc), y,
			       r->style == CHART_ROW_SOURCE ? "■" : "◆", col, MARKER_SCALE);
			plschr(0, FLOW_SCALE);
		}
	}
	plschr(0, TEXT_SCALE);
	pllsty(1);
	plwidth(1);
	flow_draw(&fl);
}

/* ---- the child process ---- */

static bool
svg_driver_present(void)
{
	const char *menus[128], *names[128];
	const char **pm = menus, **pn = names;
	int n = (int)ARRAY_LENGTH(names), i;

	/* plgDevs() fills caller arrays of *n entries (PLplot's API takes their address). */
	plgDevs(&pm, &pn, &n);
	for (i = 0; i < n; i++) {
		if (names[i] && strcmp(names[i], "svg") == 0)
			return true;
	}
	return false;
}

typedef void (*draw_fn)(const void *arg);

static int
render(draw_fn draw, const void *arg, double width_pt, double height_pt, const char *id,
       char **ret_svg, char **ret_messages, char *why, size_t whylen)
{
	FILE *svg = NULL, *msg = NULL;
	char *doc = NULL, *messages = NULL;
	pid_t pid;
	int status = 0, r = GPUPROJ_OK;

	*ret_svg = NULL;
	svg = tmpfile();
	msg = tmpfile();
	if (!svg || !msg) {
		snprintf(why, whylen, "cannot create a temporary file for the chart: %s",
			 strerror(errno));
		r = GPUPROJ_E_IO;
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot start the chart process: %s", strerror(errno));
		r = GPUPROJ_E_BACKEND;
		goto out;
	}
	if (pid == 0) {
		/* Child: PLplot may print, prompt or exit(); none of it reaches the caller. */
		int devnull = open("/dev/null", O_RDONLY);

		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(fileno(msg), STDOUT_FILENO);
		dup2(fileno(msg), STDERR_FILENO);
		if (!svg_driver_present()) {
			fflush(stdout);
			_exit(CHILD_NO_DRIVER);
		}
		plsexit(child_plexit);
		plsfile(svg);
		setup_page(width_pt, height_pt);
		draw(arg);
		/* plend() closes (and so flushes) the SVG stream; the parent checks it is whole. */
		plend();
		fflush(stdout);
		_exit(CHILD_OK);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(why, whylen, "cannot wait for the chart process: %s",
				 strerror(errno));
			r = GPUPROJ_E_BACKEND;
			goto out;
		}
	}
	messages = read_stream(msg, NULL);
	if (!messages) {
		r = GPUPROJ_E_NOMEM;
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	if (WIFSIGNALED(status)) {
		snprintf(why, whylen, "PLplot's chart process was killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
		r = GPUPROJ_E_BACKEND;
		goto out;
	}
	if (WEXITSTATUS(status) == CHILD_NO_DRIVER) {
		const char *env = getenv("PLPLOT_DRV_DIR");

		snprintf(why, whylen, "PLplot has no 'svg' driver in %s (%s); install the package "
			 "that ships svg.driver_info and svg.so (Debian: libplplot17) or point "
			 "PLPLOT_DRV_DIR at PLplot's driver directory",
			 env && *env ? env : GPUPROJ_PLPLOT_DRV_DIR,
			 env && *env ? "from PLPLOT_DRV_DIR"
				     : "PLplot's default; PLPLOT_DRV_DIR is unset");
		r = GPUPROJ_E_BACKEND;
		goto out;
	}
	if (WEXITSTATUS(status) != CHILD_OK) {
		char summary[512];

		summarise_messages(messages, summary, sizeof(summary));
		snprintf(why, whylen, "PLplot failed to draw the chart (exit status %d): %s. PLplot "
			 "reads drivers from PLPLOT_DRV_DIR (default %s) and fonts from PLPLOT_LIB "
			 "(Debian: libplplot-data)", WEXITSTATUS(status), summary,
			 GPUPROJ_PLPLOT_DRV_DIR);
		r = GPUPROJ_E_BACKEND;
		goto out;
	}
	doc = read_stream(svg, NULL);
	if (!doc) {
		snprintf(why, whylen, "out of memory");
		r = GPUPROJ_E_NOMEM;
		goto out;
	}
	*ret_svg = strstr(doc, "</svg>") ? inline_svg(doc, id) : NULL;
	if (!*ret_svg) {
		snprintf(why, whylen, "PLplot wrote no complete SVG document for the chart "
			 "(disk full?)");
		r = GPUPROJ_E_BACKEND;
		goto out;
	}
	if (ret_messages) {
		*ret_messages = messages;
		messages = NULL;
	}
out:
	free(doc);
	free(messages);
	if (svg)
		fclose(svg);
	if (msg)
		fclose(msg);
	return r;
}

#endif /* GPUPROJ_HAVE_PLPLOT */

#ifndef GPUPROJ_HAVE_PLPLOT
static int
not_built(char **ret_svg, char *why, size_t whylen)
{
	*ret_svg = NULL;
	snprintf(why, whylen, "gpuproj was built without PLplot, so it cannot draw charts "
		 "(install PLplot's development files, Debian: libplplot-dev, and rebuild)");
	return GPUPROJ_E_UNSUPPORTED;
}
#endif

int
chart_roofline(const struct chart_roofline *c, const char *id, char **ret_svg, char *why,
	       size_t whylen)
{
	bool any = false;
	size_t i;
	int l;

	if (!c || !id || !ret_svg || c->n_panels < 1 || c->n_panels > 2)
		return GPUPROJ_E_INVAL;
	for (i = 0; i < c->n_panels; i++) {
		for (l = 0; l < CHART_LEVELS; l++)
			any |= positive(c->panel[i].oi[l]) && positive(c->panel[i].perf_gflops[l]);
	}
	if (!any) {
		*ret_svg = NULL;
		snprintf(why, whylen,
			 "no level with both an operational intensity and a performance");
		return GPUPROJ_E_INVAL;
	}
#ifdef GPUPROJ_HAVE_PLPLOT
	{
		struct flow fl = { 0 };

		roofline_flow(c, &fl);
		return render(draw_roofline, c, PAGE_W,
			      ROOF_TOP_PT + ROOF_PANEL_H + AXIS_PT + flow_height(&fl, PAGE_W), id,
			      ret_svg, NULL, why, whylen);
	}
#else
	return not_built(ret_svg, why, whylen);
#endif
}

int
chart_quadrant(const struct chart_quadrant *c, const char *id, char **ret_svg, bool *labelled,
	       char *why, size_t whylen)
{
	size_t i, n = 0;

	if (!c || !id || !ret_svg)
		return GPUPROJ_E_INVAL;
	for (i = 0; i < c->n_devices; i++) {
		n += positive(c->devices[i].bw_gbs) && positive(c->devices[i].gflops);
		if (labelled)
			labelled[i] = false;
	}
	if (!n) {
		*ret_svg = NULL;
		snprintf(why, whylen, "no device with both a bandwidth and a throughput");
		return GPUPROJ_E_INVAL;
	}
#ifdef GPUPROJ_HAVE_PLPLOT
	{
		char *messages = NULL;
		const char *line;
		struct flow fl = { 0 };
		int r;

		quadrant_flow(c, &fl);
		r = render(draw_quadrant, c, PAGE_W, page_height(PLOT_H, &fl), id, ret_svg,
			   &messages, why, whylen);
		line = messages;

		while (r == GPUPROJ_OK && line && *line) {
			size_t idx;
			int ok;

			if (sscanf(line, LABEL_TAG "%zu %d", &idx, &ok) == 2 && labelled &&
			    idx < c->n_devices)
				labelled[idx] = ok != 0;
			line = strchr(line, '\n');
			if (line)
				line++;
		}
		free(messages);
		return r;
	}
#else
	return not_built(ret_svg, why, whylen);
#endif
}

int
chart_intervals(const struct chart_intervals *c, const char *id, char **ret_svg, char *why,
		size_t whylen)
{
	size_t i, n = 0;

	if (!c || !id || !ret_svg)
		return GPUPROJ_E_INVAL;
	for (i = 0; i < c->n_rows; i++)
		n += positive(c->rows[i].point) || (positive(c->rows[i].lo) &&
						    positive(c->rows[i].hi));
	if (!n) {
		*ret_svg = NULL;
		snprintf(why, whylen, "no row with a time");
		return GPUPROJ_E_INVAL;
	}
#ifdef GPUPROJ_HAVE_PLPLOT
	{
		struct flow fl = { 0 };

		intervals_flow(c, &fl);
		return render(draw_intervals, c, PAGE_W,
			      page_height(intervals_plot_h(c->n_rows), &fl), id, ret_svg, NULL, why,
			      whylen);
	}
#else
	return not_built(ret_svg, why, whylen);
#endif
}

int
chart_irm(const struct chart_irm *c, const char *id, char **ret_svg, char *why, size_t whylen)
{
	bool any = false;
	size_t g;

	if (!c || !id || !ret_svg || c->n_gpus < 1 || c->n_gpus > 2)
		return GPUPROJ_E_INVAL;
	for (g = 0; g < c->n_gpus; g++)
		any |= positive(c->gpu[g].peak_gips);
	if (!any) {
		*ret_svg = NULL;
		snprintf(why, whylen, "no GPU with a peak instruction rate");
		return GPUPROJ_E_INVAL;
	}
#ifdef GPUPROJ_HAVE_PLPLOT
	{
		struct flow fl = { 0 };

		irm_flow(c, &fl);
		return render(draw_irm, c, PAGE_W, page_height(PLOT_H, &fl), id, ret_svg, NULL, why,
			      whylen);
	}
#else
	return not_built(ret_svg, why, whylen);
#endif
}
