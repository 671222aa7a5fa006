/* SPDX-License-Identifier: MIT */
/*
 * The HTML writer of the procurement report (gpuproj_report_doc_html(),
 * include/gpuproj/report.h): one self-contained page with inline CSS
 * and the SVG charts drawn by report-charts.c (PLplot) from the data the
 * document holds. It only formats the document report-doc.c built; the
 * Markdown writer (report-md.c) is its sibling.
 *
 * Thread safety: reentrant; charts fork (see report-charts.h).
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/report.h>

#include "report-charts.h"
#include "util-escape.h"
#include "report-doc-private.h"
#include "project-wholerun.h"
#include "util.h"

/* Kernels with a column in the "every target" matrix. */
#define MATRIX_KERNELS 6

/* ------------------------------------------------------------------ */
/* HTML                                                                */
/* ------------------------------------------------------------------ */

struct html {
	struct strbuf sb;
	const struct gpuproj_report_doc *doc;
	size_t chart_done, chart_total;
	int status;                  /* first chart failure */
	struct gpuproj_error *err;
};

static void
out(struct html *h, const char *s)
{
	strbuf_append(&h->sb, s);
}

static void outf(struct html *h, const char *fmt, ...) GPUPROJ_PRINTF(2, 3);

static void
outf(struct html *h, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		h->sb.oom = true;
		return;
	}
	strbuf_append(&h->sb, s);
	free(s);
}

static void
oute(struct html *h, const char *s)
{
	html_escape(&h->sb, s);
}

/* A time cell: human text, exact value in data-ns. */
static void
td_ns(struct html *h, double ns)
{
	char b[32];

	if (isnan(ns)) {
		out(h, "<td class=\"num\">–</td>");
		return;
	}
	outf(h, "<td class=\"num\" data-ns=\"%.17g\">%s</td>", ns, format_ns(ns, b, sizeof(b)));
}

static const char css[] =
	":root{--fg:#1b1b1b;--muted:#5a5a5a;--rule:#c9ced6;--head:#eef2f7;--src:#fbf8e3;"
	"--accent:#0b4f8a}\n"
	"*{box-sizing:border-box}\n"
	"body{font:15px/1.45 \"DejaVu Sans\",\"Segoe UI\",system-ui,sans-serif;color:var(--fg);"
	"background:#fff;margin:0 auto;max-width:1280px;padding:1.2rem 1.5rem 3rem}\n"
	"h1{font-size:1.55rem;margin:.2rem 0 .3rem}\n"
	"h2{font-size:1.25rem;border-bottom:2px solid var(--rule);padding-bottom:.2rem;"
	"margin-top:2.2rem}\n"
	"h3{font-size:1.08rem;margin-top:1.6rem}\n"
	"h4{font-size:1rem;margin:1.2rem 0 .3rem}\n"
	"p.meta{color:var(--muted);margin:0 0 1rem}\n"
	"nav ol{columns:2;margin:.3rem 0 1rem;padding-left:1.4rem}\n"
	"a{color:var(--accent)}\n"
	"table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.88rem}\n"
	"caption{caption-side:top;text-align:left;font-weight:600;padding:.2rem 0}\n"
	"th,td{border:1px solid var(--rule);padding:.22rem .45rem;vertical-align:top;"
	"text-align:left}\n"
	"thead th{background:var(--head)}\n"
	"thead th.num{white-space:normal}\n"
	"th[scope=row]{font-weight:600;background:#f7f9fb;white-space:nowrap}\n"
	".num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"tr.source td,tr.source th{background:var(--src)}\n"
	".table-wrap{overflow-x:auto}\n"
	"code{font-family:\"DejaVu Sans Mono\",monospace;font-size:.86em}\n"
	"code.kernel{overflow-wrap:anywhere}\n"
	"td.kname{min-width:14em;max-width:36em}\n"
	"table.disagree td.kname{min-width:10em;max-width:22em}\n"
	"td.nofit{font-weight:600;color:#a33}\n"
	"ul.summary li{margin:.2rem 0}ul.why{margin:0;padding-left:1.1rem}\n"
	".small{font-size:.85em;color:var(--muted)}\n"
	".note{color:var(--muted);font-size:.9rem}\n"
	".warn{background:#fff4e5;border-left:4px solid #e69f00;padding:.4rem .7rem}\n"
	"figure.chart{margin:1.2rem 0;break-inside:avoid}\n"
	"figure.chart svg{display:block;width:100%;height:auto;max-width:980px}\n"
	"figcaption{font-size:.86rem;color:var(--muted);margin-top:.3rem;max-width:980px}\n"
	"dl.refs dt{font-weight:600}dl.refs dd{margin:0 0 .4rem 1.2rem}\n"
	"ul.assume li{margin:.25rem 0}\n"
	"@page{size:A4;margin:14mm}\n"
	"@media print{body{max-width:none;padding:0;font-size:10pt}"
	"nav{display:none}h2,h3,h4{break-after:avoid}"
	"table{font-size:7.5pt}th,td{padding:.15em .3em}tr,figure{break-inside:avoid}"
	"thead{display:table-header-group}"
	".table-wrap{overflow:visible}a{color:inherit;text-decoration:none}"
	"figure.chart svg{max-width:100%}}\n";

static const char *
html_time_heading(const struct gpuproj_report_doc *doc)
{
	if (doc->weighted)
		return "Facility time vs. source";
	return doc->by_wall ? "Projected whole run" : "Projected kernel time";
}

/* A relative time (weighted) or a time, as the ranking shows it. */
static char *
rank_value(const struct gpuproj_report_doc *doc, double rel, double ns, char *buf, size_t size)
{
	return doc->weighted ? doc_fmt_pct(rel, buf, size) : format_ns(ns, buf, size);
}

static void
html_ranking(struct html *h, const struct gpuproj_report_rank *rows, size_t n, const char *id,
	     const char *caption, const double *tensor_mix)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t i, unseen = 0;
	char a[32], b[32], c[48], paths[256], note[1024];

	outf(h, "<div class=\"table-wrap\"><table class=\"ranking\" id=\"%s\">\n<caption>", id);
	oute(h, caption);
	outf(h, "</caption>\n<thead><tr><th class=\"num\">#</th><th>Target GPU</th>"
	    "<th class=\"num\">%s</th><th class=\"num\">Interval</th>"
	    "<th class=\"num\">Speedup</th><th>Bound by</th><th>Memory</th>%s</tr></thead>\n"
	    "<tbody>\n", html_time_heading(doc), tensor_mix ? "<th>Tensor work runs on</th>" : "");
	for (i = 0; i < n; i++) {
		const struct gpuproj_report_rank *r = &rows[i];
		double ns = doc_rank_ns(doc, r);

		if (!r->complete)
			continue;
		outf(h, "<tr%s data-target=\"", r->is_source ? " class=\"source\"" : "");
		oute(h, r->target->name);
		outf(h, "\" data-point-ns=\"%.17g\" data-lo-ns=\"%.17g\" data-hi-ns=\"%.17g\" "
		     "data-source-ns=\"%.17g\" data-rel=\"%.17g\"><td class=\"num\">%zu</td>"
		     "<th scope=\"row\">", r->point_ns, r->lo_ns, r->hi_ns, r->source_ns, r->rel,
		     i + 1);
		oute(h, r->target->name);
		if (r->is_source)
			out(h, " <span class=\"small\">(source)</span>");
		out(h, "</th>");
		if (!doc_ranked(doc, r)) {
			/* Never the measured source time dressed up as a projection. */
			outf(h, "<td class=\"num\">not projected</td><td class=\"num\">–</td>"
			     "<td class=\"num\">–</td><td>–</td><td>%s</td>%s</tr>\n",
			     doc_fit_name(r->memory_fit), tensor_mix ? "<td>–</td>" : "");
			continue;
		}
		if (doc->weighted)
			outf(h, "<td class=\"num\">%s</td>", doc_fmt_pct(r->rel, a, sizeof(a)));
		else
			td_ns(h, ns);
		outf(h, "<td class=\"num\">%s – %s%s%s</td>",
		     rank_value(doc, r->rel_lo, doc->by_wall ? r->whole.lo_ns : r->lo_ns, a,
				sizeof(a)),
		     rank_value(doc, r->rel_hi, doc->by_wall ? r->whole.hi_ns : r->hi_ns, b,
				sizeof(b)), r->n_interval_unseen ? " *" : "",
		     r->n_assumed ? " †" : "");
		unseen += r->n_interval_unseen > 0;
		outf(h, "<td class=\"num\">%s</td>", doc_fmt_speedup(r->speedup, c, sizeof(c)));
		outf(h, "<td>%s", gpuproj_bound_name(r->binding));
		if (r->n_coarse)
			outf(h, " <span class=\"small\">%zu by sol (coarser)</span>", r->n_coarse);
		outf(h, "</td><td%s>%s</td>", r->memory_fit == GPUPROJ_REPORT_FIT_NO ?
		     " class=\"nofit\"" : "", doc_fit_name(r->memory_fit));
		if (tensor_mix) {
			out(h, "<td>");
			oute(h, doc_tensor_paths(tensor_mix, r->target, paths, sizeof(paths)));
			out(h, "</td>");
		}
		out(h, "</tr>\n");
	}
	out(h, "</tbody></table></div>\n");
	if (unseen)
		out(h, "<p class=\"small\">* " REPORT_UNSEEN_NOTE "</p>\n");
	if (doc_assumed_note(rows, n, note, sizeof(note))) {
		out(h, "<p class=\"small\">† ");
		oute(h, note);
		out(h, "</p>\n");
	}
}

/* The order of the leading targets: interval overlap, distinct ranks. */
static void
html_order(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	char cov[32], groups[256], a[32];
	size_t i;

	if (doc->n_leading < 2)
		return;
	doc_fmt_coverage(doc, cov, sizeof(cov));
	doc_distinct_groups(doc, groups, sizeof(groups));
	out(h, "<h3>Order of the leading targets</h3>\n<p>Groups of consecutive ranks whose "
	    "intervals overlap (the order within a group is not distinct at the intervals' "
	    "nominal ");
	oute(h, cov);
	out(h, "): <strong>");
	oute(h, groups[0] ? groups : "–");
	outf(h, "</strong>.</p>\n<div class=\"table-wrap\"><table class=\"order\" id=\"order\">"
	     "<thead><tr><th>Faster</th><th>Slower</th><th class=\"num\">Interval overlap</th>"
	     "<th>Distinct at %s</th><th class=\"num\">P(order holds)</th>"
	     "<th class=\"num\">P(order holds), calibrated</th></tr></thead>\n<tbody>\n",
	     cov);
	for (i = 0; i < doc->n_pairs; i++) {
		const struct doc_pair *pr = &doc->pairs[i];

		outf(h, "<tr><td>%zu ", pr->a + 1);
		oute(h, doc->combined[pr->a].target->name);
		outf(h, "</td><td>%zu ", pr->b + 1);
		oute(h, doc->combined[pr->b].target->name);
		outf(h, "</td><td class=\"num\">%s</td><td>%s</td>",
		     doc_fmt_pct(pr->o.overlap, a, sizeof(a)), pr->o.distinct ? "yes" : "no");
		if (isnan(pr->o.p_holds))
			outf(h, "<td class=\"num\">unknown (%s)</td>", pr->o.distinct ?
			     "interval not fitted on these GPUs" : "overlapping");
		else
			outf(h, "<td class=\"num\">≥ %.0f %%</td>", 100 * pr->o.p_holds);
		if (isnan(pr->o.p_calibrated))
			out(h, "<td class=\"num\">unknown</td></tr>\n");
		else
			outf(h, "<td class=\"num\">%.2f</td></tr>\n", pr->o.p_calibrated);
	}
	out(h, "</tbody></table></div>\n");
}

/* The targets that cannot run every kernel: apart, with what and why. */
static void
html_incomplete(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t i, p, n_counted = 0;
	char a[32], b[32];

	if (doc->n_complete == doc->n_targets)
		return;
	for (p = 0; p < doc->n_profiles; p++)
		n_counted += doc->profiles[p].n_counted;
	outf(h, "<h3>Targets that cannot run every kernel (not ranked)</h3>\n<p>%zu target%s "
	     "cannot run some kernel that other targets run, so %s totals would not be the same "
	     "work: not ranked.</p>\n<div class=\"table-wrap\"><table "
	     "class=\"incomplete\" id=\"incomplete\"><thead><tr><th>Target GPU</th><th "
	     "class=\"num\">Cannot run</th><th class=\"num\">Projected time of what it runs</th>"
	     "<th class=\"num\">Measured on the source</th><th>What cannot run, and why</th></tr>"
	     "</thead>\n<tbody>\n", doc->n_targets - doc->n_complete,
	     doc->n_targets - doc->n_complete == 1 ? "" : "s",
	     doc->n_targets - doc->n_complete == 1 ? "its" : "their");
	for (i = doc->n_complete; i < doc->n_targets; i++) {
		const struct gpuproj_report_rank *r = &doc->combined[i];
		size_t t = doc_target_index(doc, r->target);

		out(h, "<tr data-target=\"");
		oute(h, r->target->name);
		out(h, "\"><th scope=\"row\">");
		oute(h, r->target->name);
		outf(h, "</th><td class=\"num\">%zu of %zu kernels</td><td class=\"num\">%s</td>"
		     "<td class=\"num\">%s</td><td><ul class=\"why\">", r->n_cannot, n_counted,
		     r->n_projected ? format_ns(r->point_ns, a, sizeof(a)) : "–",
		     format_ns(r->source_ns, b, sizeof(b)));
		for (p = 0; p < doc->n_profiles; p++) {
			const struct doc_profile *dp = &doc->profiles[p];
			size_t o;

			for (o = 0; o < dp->n_kernels; o++) {
				size_t k = dp->order[o];
				const struct doc_kproj *kp = doc_kp(doc, dp, t, k);
				char name[200];

				if (!dp->counted[k] || kp->status == GPUPROJ_OK)
					continue;
				doc_short_name(gpuproj_profile_at(dp->profile, k), 60, name,
					       sizeof(name));
				outf(h, "<li>#%zu <code class=\"kernel\">", o + 1);
				oute(h, name);
				out(h, "</code>: ");
				oute(h, kp->why ? kp->why : "not projected");
				out(h, "</li>");
			}
		}
		out(h, "</ul></td></tr>\n");
	}
	out(h, "</tbody></table></div>\n");
}

/* Prices, cost per job, performance per dollar and per watt, energy. */
static void
html_costs(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t i;
	char a[48], b[48], c[48], d[48];

	outf(h, "<h3>Cost, power and energy</h3>\n<p>Cost per %s = hourly price × %s; "
	     "performance per dollar = speedup ÷ purchase price (per 1,000 USD); per watt = "
	     "speedup ÷ TDP (per kW); energy = projected time × TDP (an upper bound: board power "
	     "at full load). \"unknown\" where no price or TDP is known: quote prices with "
	     "<code>--price NAME=USD</code> or <code>--prices FILE</code>.</p>\n"
	     "<div class=\"table-wrap\"><table class=\"costs\" id=\"costs\"><thead><tr><th "
	     "class=\"num\">#</th><th>Target GPU</th><th class=\"num\">Purchase</th><th "
	     "class=\"num\">Hourly</th><th class=\"num\">Cost per %s</th><th class=\"num\">Speedup "
	     "per 1,000 USD</th><th class=\"num\">TDP</th><th class=\"num\">Speedup per kW</th>"
	     "<th class=\"num\">Energy (upper bound)</th><th>Price from</th></tr></thead>\n"
	     "<tbody>\n", doc->weighted ? "hour of today's work" : "job",
	     doc->weighted ? "the share of the hour the target needs" : "projected time",
	     doc->weighted ? "hour of today's work" : "job");
	for (i = 0; i < doc->n_complete; i++) {
		const struct gpuproj_report_rank *r = &doc->combined[i];

		outf(h, "<tr%s data-target=\"", r->is_source ? " class=\"source\"" : "");
		oute(h, r->target->name);
		outf(h, "\" data-purchase-usd=\"%.17g\" data-hourly-usd=\"%.17g\" "
		     "data-cost-per-job-usd=\"%.17g\" data-perf-per-kusd=\"%.17g\" "
		     "data-perf-per-kw=\"%.17g\" data-j=\"%.17g\"><td class=\"num\">%zu</td>"
		     "<th scope=\"row\">", r->purchase_usd, r->hourly_usd, r->cost_per_job_usd,
		     r->perf_per_kusd, r->perf_per_kw, r->energy_j, i + 1);
		oute(h, r->target->name);
		outf(h, "</th><td class=\"num\">%s</td><td class=\"num\">%s</td>"
		     "<td class=\"num\">%s</td>", doc_fmt_usd(r->purchase_usd, a, sizeof(a)),
		     doc_fmt_usd(r->hourly_usd, b, sizeof(b)),
		     doc_fmt_usd(r->cost_per_job_usd, c, sizeof(c)));
		if (isnan(r->perf_per_kusd))
			out(h, "<td class=\"num\">unknown</td>");
		else
			outf(h, "<td class=\"num\">%.3g</td>", r->perf_per_kusd);
		if (isnan(r->target->tdp_w))
			out(h, "<td class=\"num\">unknown</td><td class=\"num\">unknown</td>");
		else
			outf(h, "<td class=\"num\">%.0f W</td><td class=\"num\">%.3g</td>",
			     r->target->tdp_w, r->perf_per_kw);
		outf(h, "<td class=\"num\">%s</td><td class=\"small\">",
		     doc_fmt_energy(r->energy_j, d, sizeof(d)));
		oute(h, r->price_origin ? r->price_origin : "–");
		out(h, "</td></tr>\n");
	}
	out(h, "</tbody></table></div>\n");
}

static void
html_kernel_cell(struct html *h, const struct gpuproj_kernel *k, bool full)
{
	char buf[400];

	out(h, "<code class=\"kernel\" title=\"");
	oute(h, k->name);
	out(h, "\">");
	if (full) {
		oute(h, doc_kernel_name(k));
	} else {
		doc_short_name(k, 120, buf, sizeof(buf));
		oute(h, buf);
	}
	out(h, "</code>");
	outf(h, "<br><span class=\"small\">grid&nbsp;(%" PRIu32 ",%" PRIu32 ",%" PRIu32
	     ") block&nbsp;(%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")", k->grid.x, k->grid.y,
	     k->grid.z, k->block.x, k->block.y, k->block.z);
	if (k->tag && *k->tag) {
		out(h, " [");
		oute(h, k->tag);
		out(h, "]");
	}
	out(h, "</span>");
}

static void
html_run_details(struct html *h, const struct doc_profile *dp)
{
	const struct gpuproj_profile *p = dp->profile;
	const struct gpuproj_device_info *dev = gpuproj_profile_device(p);
	const struct gpuproj_process_info *pi = gpuproj_profile_process(p);
	const struct gpuproj_run_info *run = gpuproj_profile_run_info(p);
	const char *v;
	char a[32], b[32];
	size_t i;
	size_t n_metrics = dp->n_kernels - dp->n_timed_only - dp->n_untimed;

	out(h, "<table class=\"run\"><tbody>\n<tr><th scope=\"row\">Application</th><td>");
	oute(h, doc_application(p));
	out(h, "</td></tr>\n");
	if (pi->argv && pi->argv[0]) {
		out(h, "<tr><th scope=\"row\">Command line</th><td><code>");
		for (i = 0; pi->argv[i]; i++) {
			if (i)
				out(h, " ");
			oute(h, pi->argv[i]);
		}
		out(h, "</code></td></tr>\n");
	}
	if (pi->host || pi->pid >= 0 || pi->rank >= 0) {
		out(h, "<tr><th scope=\"row\">Process</th><td>");
		if (pi->host) {
			out(h, "host ");
			oute(h, pi->host);
		}
		if (pi->pid >= 0)
			outf(h, "%spid %" PRId64, pi->host ? ", " : "", pi->pid);
		if (pi->rank >= 0)
			outf(h, "%sMPI rank %" PRId64, pi->host || pi->pid >= 0 ? ", " : "",
			     pi->rank);
		out(h, "</td></tr>\n");
	}
	out(h, "<tr><th scope=\"row\">Source GPU</th><td>");
	oute(h, dp->src->name);
	outf(h, " (%s", dev->name ? "" : "device name not recorded");
	oute(h, dev->name);
	out(h, "; ");
	oute(h, dp->src->arch);
	outf(h, ", %d SMs at %.0f MHz)</td></tr>\n", dp->src->sms, dp->src->clock_mhz);
	{
		double cuda, tensor[GPUPROJ_TPREC_COUNT];
		char mix[256];

		if (gpuproj_profile_flop_mix(p, &cuda, tensor)) {
			out(h, "<tr><th scope=\"row\">FLOP mix</th><td>");
			oute(h, gpuproj_flop_mix_text(cuda, tensor, mix, sizeof(mix)));
			out(h, " (tensor work runs on each GPU's tensor ceilings)</td></tr>\n");
		}
	}
	if (dp->src->provisional) {
		outf(h, "<tr><th scope=\"row\">Source GPU basis</th><td>%s: not in targets.yaml; "
		     "a provisional entry derived from the driver's device attributes and the "
		     "per-SM figures of ", dp->src->provisional);
		oute(h, dp->src->derived_from);
		out(h, " (<code>gpuproj targets derive</code> prints it)</td></tr>\n");
	}
	if ((v = gpuproj_profile_attr(p, "created"))) {
		out(h, "<tr><th scope=\"row\">Measured</th><td>");
		oute(h, v);
		out(h, "</td></tr>\n");
	}
	out(h, "<tr><th scope=\"row\">Measured with</th><td>");
	if ((v = gpuproj_profile_attr(p, "origin"))) {
		oute(h, v);
		out(h, ", ");
	}
	v = gpuproj_profile_attr(p, "tool_version");
	out(h, "gpuproj ");
	oute(h, v ? v : "version not recorded");
	out(h, "</td></tr>\n");
	if ((v = gpuproj_profile_attr(p, "citation"))) {
		out(h, "<tr><th scope=\"row\">Data</th><td>");
		oute(h, v);
		out(h, "</td></tr>\n");
	}
	if ((v = gpuproj_profile_attr(p, "merged_ranks"))) {
		out(h, "<tr><th scope=\"row\">Merged ranks</th><td>");
		oute(h, v);
		out(h, "</td></tr>\n");
	}
	/* What `gpuproj merge --force` let through (merge.h): the counts may be off. */
	if ((v = gpuproj_profile_attr(p, "merge_forced"))) {
		out(h, "<tr><th scope=\"row\">Merged with --force</th><td><strong>Warning:</strong> ");
		oute(h, v);
		out(h, "</td></tr>\n");
	}
	outf(h, "<tr><th scope=\"row\">Times</th><td>GPU kernel time %s",
	     format_ns(dp->kernel_ns, a, sizeof(a)));
	if (!isnan(run->wall_ns))
		outf(h, "; wall time %s", format_ns(run->wall_ns, b, sizeof(b)));
	if (run->dropped_records)
		outf(h, "; <strong>%" PRIu64 " activity records dropped</strong> (times are low)",
		     run->dropped_records);
	out(h, "</td></tr>\n<tr><th scope=\"row\">Peak device memory</th><td>");
	if (isnan(dp->peak_bytes))
		out(h, "unknown (not recorded: imports and older profiles do not have it; memory "
		    "fit unknown)");
	else
		outf(h, "%s (%.0f bytes allocated at once, as libproj.so recorded it)",
		     doc_fmt_gib(dp->peak_bytes, a, sizeof(a)), dp->peak_bytes);
	out(h, "</td></tr>\n");
	outf(h, "<tr><th scope=\"row\">Profiled and timed</th><td>%zu kernel signatures, %"
	     PRIu64 " launches. %" PRIu64 " launches were profiled (metrics collected, under "
	     "replay); every launch was timed. %zu signatures have metrics; %zu were only timed "
	     "(no profiled launch: no metrics)", dp->n_kernels, dp->launches,
	     dp->profiled, n_metrics, dp->n_timed_only);
	if (dp->n_untimed)
		outf(h, "; %zu have no timed launch and count for nothing", dp->n_untimed);
	out(h, ".</td></tr>\n</tbody></table>\n");
}

/* The per-kernel table: every kernel, projected time on the featured targets. */
static void
html_kernels(struct html *h, const struct doc_profile *dp, size_t pi)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t o, f;
	char a[32], b[32];

	outf(h, "<div class=\"table-wrap\"><table class=\"kernels\" id=\"p%zu-kernels\">\n"
	     "<caption>Kernels by measured time on %s; projected time per launch with %s "
	     "(binding resource below)</caption>\n<thead><tr><th class=\"num\">#</th>"
	     "<th>Kernel</th><th class=\"num\">Share</th>"
	     "<th class=\"num\">Launches (profiled)</th><th class=\"num\">Source per launch</th>"
	     "<th>Bound on source</th>", pi, dp->src->name, gpuproj_model_name(doc->model));
	for (f = 0; f < doc->n_featured; f++) {
		out(h, "<th class=\"num\">");
		oute(h, doc->featured[f]->name);
		out(h, "</th>");
	}
	out(h, "</tr></thead>\n<tbody>\n");
	for (o = 0; o < dp->n_kernels; o++) {
		size_t k = dp->order[o];
		const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);
		double tot = gpuproj_kernel_total_ns(kr);
		const struct doc_kproj *ks = doc_kp(doc, dp, dp->src_index, k);

		outf(h, "<tr><td class=\"num\">%zu</td><td class=\"kname\">", o + 1);
		html_kernel_cell(h, kr, false);
		out(h, "</td>");
		outf(h, "<td class=\"num\">%s</td>",
		     doc_fmt_pct(dp->kernel_ns > 0 && !isnan(tot) ? tot / dp->kernel_ns : NAN, a,
				 sizeof(a)));
		outf(h, "<td class=\"num\" data-launches=\"%" PRIu64 "\" data-profiled=\"%" PRIu64
		     "\">%" PRIu64 " (%" PRIu64 ")</td>", kr->launches, kr->profiled, kr->launches,
		     kr->profiled);
		td_ns(h, gpuproj_kernel_mean_ns(kr));
		if (ks->status == GPUPROJ_OK) {
			outf(h, "<td>%s</td>", gpuproj_bound_name(ks->binding));
		} else {
			outf(h, "<td colspan=\"%zu\" class=\"note\">not projected: ",
			     doc->n_featured + 1);
			oute(h, dp->why[k] ? dp->why[k] : "unknown reason");
			out(h, kr->profiled ? "" : " (only timed: no profiled launch)");
			out(h, "; in no total</td></tr>\n");
			continue;
		}
		for (f = 0; f < doc->n_featured; f++) {
			size_t t = doc_target_index(doc, doc->featured[f]);
			const struct doc_kproj *kp = doc_kp(doc, dp, t, k);

			if (kp->status != GPUPROJ_OK) {
				out(h, "<td class=\"num\">–</td>");
				continue;
			}
			outf(h, "<td class=\"num\" data-ns=\"%.17g\">%s<br><span class=\"small\">%s%s"
			     "</span></td>", kp->point_ns, format_ns(kp->point_ns, b, sizeof(b)),
			     gpuproj_bound_name(kp->binding), kp->coarse ? ", sol (coarser)" : "");
		}
		out(h, "</tr>\n");
	}
	out(h, "</tbody></table></div>\n");
}

/* Projected total time of the top kernels on every target. */
static void
html_matrix(struct html *h, const struct doc_profile *dp, size_t pi)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t n = dp->n_kernels < MATRIX_KERNELS ? dp->n_kernels : MATRIX_KERNELS, i, o;
	char a[32];

	if (!n)
		return;
	outf(h, "<div class=\"table-wrap\"><table class=\"matrix\" id=\"p%zu-matrix\">\n"
	     "<caption>Projected total time (all launches) of the %zu longest kernels on every "
	     "target, with the binding resource</caption>\n<thead><tr><th>Target GPU</th>", pi, n);
	for (o = 0; o < n; o++)
		outf(h, "<th class=\"num\">#%zu</th>", o + 1);
	out(h, "<th class=\"num\">All kernels</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < doc->n_targets; i++) {
		const struct gpuproj_report_rank *r = &dp->ranking[i];
		size_t t = doc_target_index(doc, r->target);

		outf(h, "<tr%s><th scope=\"row\">", r->is_source ? " class=\"source\"" : "");
		oute(h, r->target->name);
		out(h, "</th>");
		for (o = 0; o < n; o++) {
			size_t k = dp->order[o];
			const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile, k);
			const struct doc_kproj *kp = doc_kp(doc, dp, t, k);
			double tot;

			if (kp->status != GPUPROJ_OK) {
				out(h, "<td class=\"num\">not projected</td>");
				continue;
			}
			tot = kp->point_ns * (double)(kr->launches ? kr->launches : 1);
			outf(h, "<td class=\"num\" data-ns=\"%.17g\">%s <span class=\"small\">%s%s"
			     "</span></td>", tot, format_ns(tot, a, sizeof(a)),
			     gpuproj_bound_name(kp->binding), kp->coarse ? ", sol (coarser)" : "");
		}
		td_ns(h, r->point_ns);
		out(h, "</tr>\n");
	}
	out(h, "</tbody></table></div>\n<p class=\"note\">Columns: ");
	for (o = 0; o < n; o++) {
		char buf[200];

		doc_short_name(gpuproj_profile_at(dp->profile, dp->order[o]), 60, buf, sizeof(buf));
		outf(h, "%s#%zu <code class=\"kernel\">", o ? "; " : "", o + 1);
		oute(h, buf);
		out(h, "</code>");
	}
	out(h, ".</p>\n");
}

/* Draw one chart into the page (or a note where it cannot be drawn). */
static void
html_chart(struct html *h, int r, char *svg, const char *why, const char *id,
	   const char *caption_html)
{
	h->chart_done++;
	doc_progress(h->doc, "charts", h->chart_done, h->chart_total);
	if (r == GPUPROJ_E_INVAL) {
		/* Nothing drawable: not an error, the page says why. */
		outf(h, "<p class=\"note\">No chart: %s.</p>\n", why);
		return;
	}
	if (r) {
		if (!h->status) {
			h->status = r;
			error_set(h->err, r, NULL, 0, 0, "cannot draw chart %s: %s", id, why);
		}
		return;
	}
	outf(h, "<figure class=\"chart\" id=\"fig-%s\">\n", id);
	out(h, svg);
	outf(h, "\n<figcaption id=\"%s-caption\">%s</figcaption>\n</figure>\n", id, caption_html);
}

/*
 * A kernel without a roofline: the chart of what was measured (its time on
 * the source) and projected (the featured targets, with intervals).
 */
static void
html_kernel_times(struct html *h, const struct doc_profile *dp, const char *id,
		  const struct doc_roofline *d)
{
	char why[512] = "", *svg = NULL, t0[40];
	struct strbuf cap;
	int r;

	if (!d->times.n_rows) {
		h->chart_done++;
		doc_progress(h->doc, "charts", h->chart_done, h->chart_total);
		out(h, "<p class=\"note\">No roofline: ");
		oute(h, d->note);
		out(h, ".</p>\n");
		return;
	}
	r = chart_intervals(&d->times, id, &svg, why, sizeof(why));
	strbuf_init(&cap);
	strbuf_append(&cap, "No roofline: ");
	html_escape(&cap, d->note);
	strbuf_append(&cap, ". What was measured instead: the kernel's time per launch on ");
	html_escape(&cap, dp->src->name);
	strbuf_printf(&cap, " (%s, the square) and its projection onto the featured targets with "
		      "%s (diamonds; the whiskers are the calibrated intervals). Logarithmic axis.",
		      format_ns(d->mean_ns, t0, sizeof(t0)), gpuproj_model_name(h->doc->model));
	html_chart(h, r, svg, why, id, cap.buf ? cap.buf : "");
	free(svg);
	strbuf_free(&cap);
}

/* Seed 000 Fig. 2: source and target hierarchical rooflines of one kernel. */
static void
html_roofline(struct html *h, const struct doc_profile *dp, size_t pi,
	      const struct doc_roofline *d)
{
	const struct gpuproj_report_doc *doc = h->doc;
	char why[512] = "", id[64], t0[40], t1[40], sp[40], *svg = NULL;
	struct strbuf cap;
	int r;

	snprintf(id, sizeof(id), "p%zu-roofline-%zu", pi, d->rank + 1);
	outf(h, "<h4>#%zu <code class=\"kernel\">", d->rank + 1);
	oute(h, d->name);
	out(h, "</code></h4>\n");
	if (d->note) {
		html_kernel_times(h, dp, id, d);
		return;
	}
	r = chart_roofline(&d->chart, id, &svg, why, sizeof(why));
	strbuf_init(&cap);
	strbuf_printf(&cap, "Hierarchical roofline with the kernel's ceilings (Van Lanker et al. "
		      "2024, Fig. 2): Perf<sup>ceil</sup> (eq. 3) and BW<sup>ceil</sup> of L1, L2 and DRAM "
		      "(eqs. 6–8) on ");
	html_escape(&cap, dp->src->name);
	strbuf_printf(&cap, ", where the kernel was measured at %s per launch (its operational "
		      "intensities, eq. 10, are the three markers)",
		      format_ns(d->mean_ns, t0, sizeof(t0)));
	if (d->chart.n_panels == 2) {
		strbuf_append(&cap, ", and on ");
		html_escape(&cap, d->tgt->name);
		strbuf_printf(&cap, ", where hroof projects each level with eq. 9: the blue band "
			      "is the interval %s – %s per launch (%s speedup at the midpoint)",
			      format_ns(d->lo_ns, t0, sizeof(t0)),
			      format_ns(d->hi_ns, t1, sizeof(t1)),
			      doc_fmt_speedup(d->mean_ns / d->point_ns, sp, sizeof(sp)));
	}
	strbuf_append(&cap, ". Dashed grey: the GPUs' rooflines at peak FLOP/s (for this kernel's "
		      "instruction mix) and bandwidths.");
	for (size_t pn = 0; pn < d->chart.n_panels; pn++) {
		const struct chart_roofline_panel *q = &d->chart.panel[pn];

		for (size_t i = 0; i < q->n_tensor; i++) {
			strbuf_append(&cap, i == 0 ? (pn == 0 ? " Purple: the tensor-pipe ceilings "
							     "of the kernel's tensor work (max_tensor, "
							     "else peak_tensor), on "
							   : "; on ")
						   : ", ");
			if (i == 0) {
				html_escape(&cap, pn == 0 ? dp->src->name : d->tgt->name);
				strbuf_append(&cap, " ");
			}
			html_escape(&cap, q->tensor_label[i]);
			strbuf_printf(&cap, " %.4g TFLOP/s", q->tensor_gflops[i] / 1e3);
		}
		if (pn + 1 == d->chart.n_panels && (q->n_tensor || d->chart.panel[0].n_tensor))
			strbuf_append(&cap, ".");
	}
	strbuf_append(&cap, " Both axes logarithmic.");
	if (doc->model != gpuproj_model_find("hroof"))
		strbuf_append(&cap, " (The report's model is not hroof; this chart shows hroof's "
			      "view of the kernel.)");
	html_chart(h, r, svg, why, id, cap.buf ? cap.buf : "");
	free(svg);
	strbuf_free(&cap);
}

/* Seed 003 §2.1: devices as points, kernels as rays of slope OI. */
static void
html_quadrant(struct html *h, const struct doc_profile *dp, size_t pi)
{
	const struct gpuproj_report_doc *doc = h->doc;
	const struct doc_quadrant *q = &dp->charts->quad;
	bool *labelled = calloc(doc->n_targets + 1, sizeof(*labelled));
	char id[48], why[512] = "", *svg = NULL;
	size_t t, n_unlab = 0;
	struct strbuf cap;
	int r;

	snprintf(id, sizeof(id), "p%zu-quadrant", pi);
	if (!labelled) {
		h->sb.oom = true;
		return;
	}
	if (!q->chart.n_rays) {
		/* The GPUs alone say nothing about this workload: no chart of targets.yaml only. */
		h->chart_done++;
		doc_progress(doc, "charts", h->chart_done, h->chart_total);
		out(h, "<p class=\"note\">No quadrant chart: no kernel of this profile has both "
		    "floating-point and DRAM counts (an Nsight Systems export times kernels only; "
		    "libproj.so or Nsight Compute measure them), so no kernel can be placed among "
		    "the GPUs.</p>\n");
		free(labelled);
		return;
	}
	r = chart_quadrant(&q->chart, id, &svg, labelled, why, sizeof(why));
	strbuf_init(&cap);
	strbuf_printf(&cap, "Quadrant split (Konstantinidis and Cotronis 2017, §2.1): each GPU is "
		      "a point (DRAM bandwidth of targets.yaml, %s FMA throughput, measured where available: the "
		      "precision with the most FLOP in this profile); each kernel is a ray through "
		      "the origin whose slope is its DRAM operational intensity (FLOP/byte, after "
		      "each kernel's number in the legend). GPUs above a kernel's ray are "
		      "memory-bound for it, "
		      "GPUs below compute-bound. Rays: the %zu longest kernels with floating-point "
		      "work and DRAM traffic:", doc_prec_label(dp->prec), q->chart.n_rays);
	for (t = 0; t < q->chart.n_rays; t++) {
		const struct gpuproj_kernel *kr = gpuproj_profile_at(dp->profile,
								      dp->order[q->ray_rank[t]]);

		strbuf_printf(&cap, "%s #%zu <code class=\"kernel\">", t ? ";" : "",
			      q->ray_rank[t] + 1);
		html_escape(&cap, doc_kernel_name(kr));
		strbuf_append(&cap, "</code>");
		if (kr->tag && *kr->tag) {
			strbuf_append(&cap, " [");
			html_escape(&cap, kr->tag);
			strbuf_append(&cap, "]");
		}
	}
	strbuf_append(&cap, ".");
	for (t = 0; t < doc->n_targets; t++)
		n_unlab += !labelled[t];
	if (r == GPUPROJ_OK && n_unlab) {
		bool first = true;

		strbuf_printf(&cap, " Not labelled (their names would overlap): ");
		for (t = 0; t < doc->n_targets; t++) {
			if (labelled[t])
				continue;
			strbuf_append(&cap, first ? "" : ", ");
			html_escape(&cap, q->dev[t].name);
			first = false;
		}
		strbuf_append(&cap, ".");
	}
	html_chart(h, r, svg, why, id, cap.buf ? cap.buf : "");
	strbuf_free(&cap);
	free(svg);
	free(labelled);
}

/* Seed 004: instruction roofline of the source (and the best target). */
static void
html_irm(struct html *h, const struct doc_profile *dp, size_t pi)
{
	const struct doc_irm *d = &dp->charts->irm;
	char id[48], why[512] = "", *svg = NULL;
	struct strbuf cap;
	int r;

	snprintf(id, sizeof(id), "p%zu-irm", pi);
	if (!d->chart.n_kernels) {
		h->chart_done++;
		doc_progress(h->doc, "charts", h->chart_done, h->chart_total);
		out(h, "<p class=\"note\">No instruction roofline: no kernel of this profile has "
		    "the executed warp instruction count (inst.warp) with memory traffic, so there "
		    "is nothing measured to draw against the GPUs' ceilings.</p>\n");
		return;
	}
	r = chart_irm(&d->chart, id, &svg, why, sizeof(why));
	strbuf_init(&cap);
	strbuf_printf(&cap, "Instruction roofline (Leinhauser et al. 2022, after Ding and Williams): warp "
		      "instructions per second against warp instructions per 32-byte transaction "
		      "at L1, L2 and DRAM. Peak GIPS = SMs × schedulers per SM × IPC × clock (");
	html_escape(&cap, dp->src->name);
	strbuf_printf(&cap, ": %.4g GIPS", d->chart.gpu[0].peak_gips);
	if (d->chart.n_gpus == 2) {
		strbuf_append(&cap, "; ");
		html_escape(&cap, d->tgt->name);
		strbuf_printf(&cap, ": %.4g GIPS, dashed", d->chart.gpu[1].peak_gips);
	}
	strbuf_append(&cap, "); memory ceilings = bandwidth / 32 B. Points: the longest kernels as "
		      "measured on the source.");
	if (d->derived)
		strbuf_append(&cap, " Where a profile has no sector counts, transactions are "
			      "derived as bytes / 32.");
	if (d->n_no_inst)
		strbuf_printf(&cap, " %zu other kernels lack inst.warp and are not drawn.",
			      d->n_no_inst);
	html_chart(h, r, svg, why, id, cap.buf ? cap.buf : "");
	strbuf_free(&cap);
	free(svg);
}

static void
html_disagreement(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t p, i, m, t;
	char a[32];

	out(h, "<section id=\"disagreement\">\n<h2>Where models disagree</h2>\n");
	if (doc->n_models < 2) {
		out(h, "<p>Only one projection model (");
		oute(h, gpuproj_model_name(doc->model));
		outf(h, ") is registered in this build of gpuproj, so there is nothing to compare. "
		     "With several models, this section lists the kernels whose point estimates "
		     "differ by more than a factor of %.0f between models on some target: models "
		     "with published errors of 10–20 %% cannot both be right there, so such a "
		     "kernel deserves a measurement before a decision rests on it.</p>\n",
		     GPUPROJ_MODEL_DISAGREEMENT_FACTOR);
		out(h, "</section>\n");
		return;
	}
	out(h, "<p>Every registered model projected every kernel onto every target: ");
	for (m = 0; m < doc->n_models; m++) {
		outf(h, "%s<strong>", m ? ", " : "");
		oute(h, gpuproj_model_name(doc->models[m]));
		out(h, "</strong> (");
		oute(h, gpuproj_model_summary(doc->models[m]));
		out(h, ")");
	}
	outf(h, ". A kernel is flagged where the slowest point estimate is more than %.0f× the "
	     "fastest on some target: with published errors of 10–20 %% the models cannot both "
	     "be right there, and on gpuproj's validation data the default model's large "
	     "errors are much more frequent on flagged kernels than on the others. Measure "
	     "them before a decision rests on them.</p>\n", GPUPROJ_MODEL_DISAGREEMENT_FACTOR);
	if (!doc->n_disagreements)
		out(h, "<p><strong>No kernel is flagged</strong>: the models agree within the "
		    "factor on every kernel and target.</p>\n");
	for (p = 0; p < doc->n_profiles; p++) {
		const struct doc_profile *dp = &doc->profiles[p];

		if (!dp->n_dis)
			continue;
		out(h, "<div class=\"table-wrap\"><table class=\"disagree\"><caption>");
		oute(h, dp->label);
		outf(h, ": %zu kernels flagged; each model's time per launch on the target of "
		     "the largest disagreement</caption>\n<thead><tr><th>Kernel</th>"
		     "<th class=\"num\">Targets flagged</th><th>Largest on</th>"
		     "<th class=\"num\">Factor</th>", dp->n_dis);
		for (m = 0; m < doc->n_models; m++) {
			out(h, "<th class=\"num\">");
			oute(h, gpuproj_model_name(doc->models[m]));
			out(h, "</th>");
		}
		out(h, "</tr></thead>\n<tbody>\n");
		for (i = 0; i < dp->n_dis; i++) {
			const struct doc_disagreement *d = &dp->dis[i];

			out(h, "<tr><td class=\"kname\">");
			html_kernel_cell(h, gpuproj_profile_at(dp->profile, d->kernel), false);
			outf(h, "</td><td class=\"num\">%zu of %zu</td><td>", d->n_flagged,
			     doc->n_targets);
			oute(h, doc->targets[d->worst_target]->name);
			outf(h, "</td><td class=\"num\">%.2f×</td>", d->worst_factor);
			for (m = 0; m < doc->n_models; m++)
				td_ns(h, d->point_ns[m]);
			out(h, "</tr>\n");
		}
		out(h, "</tbody></table></div>\n");
	}
	/* Whole-run totals per model, combined over the profiles. */
	out(h, "<div class=\"table-wrap\"><table class=\"per-model\"><caption>Projected GPU "
	    "kernel time per model (sum over profiles of the kernels each model projects; how "
	    "many it cannot project in brackets, in no total)</caption>\n<thead><tr><th>Target "
	    "GPU</th>");
	for (m = 0; m < doc->n_models; m++) {
		out(h, "<th class=\"num\">");
		oute(h, gpuproj_model_name(doc->models[m]));
		out(h, "</th>");
	}
	out(h, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < doc->n_targets; i++) {
		const struct gpuproj_target *tg = doc->combined[i].target;

		t = doc_target_index(doc, tg);
		out(h, "<tr><th scope=\"row\">");
		oute(h, tg->name);
		out(h, "</th>");
		for (m = 0; m < doc->n_models; m++) {
			double sum = 0;
			size_t unp = 0, all = 0;

			for (p = 0; p < doc->n_profiles; p++) {
				sum += doc->profiles[p].model_point_ns[m * doc->n_targets + t];
				unp += doc->profiles[p].model_unprojected[m * doc->n_targets + t];
				all += gpuproj_profile_count(doc->profiles[p].profile);
			}
			if (unp == all) {
				out(h, "<td class=\"num\">not projected</td>");
				continue;
			}
			outf(h, "<td class=\"num\" data-ns=\"%.17g\">%s", sum,
			     format_ns(sum, a, sizeof(a)));
			if (unp)
				outf(h, " <span class=\"small\">(%zu not projected)</span>", unp);
			out(h, "</td>");
		}
		out(h, "</tr>\n");
	}
	out(h, "</tbody></table></div>\n</section>\n");
}

static void
html_assumptions(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	char **list = NULL;
	size_t i, n = 0;

	out(h, "<section id=\"assumptions\">\n<h2>Assumptions and limits</h2>\n"
	    "<ul class=\"assume\">\n");
	for (i = 0; i < doc->n_models; i++) {
		out(h, "<li>Model <strong>");
		oute(h, gpuproj_model_name(doc->models[i]));
		out(h, "</strong>: ");
		oute(h, gpuproj_model_summary(doc->models[i]));
		out(h, i == 0 ? " (used for the rankings, tables and charts).</li>\n" : ".</li>\n");
	}
	out(h, "<li>");
	oute(h, doc_traffic_assumption());
	out(h, "</li>\n");
	if (doc_assumption_list(doc, &list, &n)) {
		h->sb.oom = true;
		return;
	}
	for (i = 0; i < n; i++) {
		out(h, "<li>");
		oute(h, list[i]);
		out(h, "</li>\n");
	}
	doc_assumption_list_free(list, n);
	if (doc->mixed_sources)
		out(h, "<li>The profiles were measured on different GPUs; the combined speedup "
		    "compares the sum of their measured times with the sum of the "
		    "projections.</li>\n");
	out(h, "</ul>\n</section>\n");
}

static void
html_sources(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t i, j;
	const char *key, *text;

	out(h, "<section id=\"sources\">\n<h2>Sources of the target numbers</h2>\n<p>Every "
	    "number of every target shown comes from targets.yaml");
	if (doc->opt.targets_origin) {
		out(h, " (");
		oute(h, doc->opt.targets_origin);
		out(h, ")");
	}
	out(h, ", where each carries a source and its basis: <em>measured</em> (a benchmark "
	    "result), <em>datasheet</em> (vendor documents), <em>derived</em> (computed from "
	    "other cited numbers) or <em>estimate</em> (an assumption, no measurement found). "
	    "A source named for a group (e.g. <code>bw_gbs</code>) covers every key in it "
	    "unless a key has its own.</p>\n");
	for (i = 0; i < doc->n_targets; i++) {
		const struct gpuproj_target *t = doc->combined[i].target;

		out(h, "<div class=\"table-wrap\"><table class=\"sources\"><caption>");
		oute(h, t->name);
		if (t->description) {
			out(h, " — ");
			oute(h, t->description);
		}
		out(h, "</caption>\n<thead><tr><th>Number</th><th>Basis</th><th>Source</th></tr>"
		    "</thead>\n<tbody>\n");
		for (j = 0; j < t->n_sources; j++) {
			out(h, "<tr><td><code>");
			oute(h, t->sources[j].path);
			outf(h, "</code></td><td>%s</td><td>",
			     gpuproj_basis_name(t->sources[j].basis));
			oute(h, t->sources[j].text);
			out(h, "</td></tr>\n");
		}
		if (!t->n_sources)
			out(h, "<tr><td colspan=\"3\">no sources given</td></tr>\n");
		out(h, "</tbody></table></div>\n");
	}
	out(h, "<h3>References</h3>\n<dl class=\"refs\">\n");
	for (i = 0; (key = gpuproj_targets_reference_at(doc->set, i, &text)); i++) {
		out(h, "<dt>[");
		oute(h, key);
		out(h, "]</dt><dd>");
		oute(h, text);
		out(h, "</dd>\n");
	}
	out(h, "</dl>\n</section>\n");
}

static void
html_profile(struct html *h, size_t pi)
{
	const struct gpuproj_report_doc *doc = h->doc;
	const struct doc_profile *dp = &doc->profiles[pi];
	size_t i;

	outf(h, "<section class=\"profile\" id=\"profile-%zu\">\n<h2>", pi + 1);
	if (doc->n_profiles > 1)
		outf(h, "Profile %zu: ", pi + 1);
	else
		out(h, "Kernels of ");
	oute(h, dp->label);
	out(h, "</h2>\n");
	if (doc->n_profiles > 1) {
		out(h, "<h3>The run</h3>\n");
		html_run_details(h, dp);
		char id[48], *cap = xasprintf("%s: %s", dp->label, doc->by_wall ?
					      "projected whole-run time" :
					      "projected GPU kernel time");

		snprintf(id, sizeof(id), "ranking-p%zu", pi + 1);
		out(h, "<h3>Ranking for this profile</h3>\n");
		double mix[GPUPROJ_TPREC_COUNT];

		html_ranking(h, dp->ranking, doc->n_targets, id, cap ? cap : "",
			     doc_tensor_mix(doc, dp, mix) ? mix : NULL);
		free(cap);
	}
	if (!dp->n_kernels) {
		out(h, "<p class=\"warn\">This profile has no kernels.</p>\n</section>\n");
		return;
	}
	out(h, "<h3>Per kernel</h3>\n");
	html_kernels(h, dp, pi + 1);
	html_matrix(h, dp, pi + 1);

	if (doc->opt.no_charts) {
		out(h, "<p class=\"note\">Charts were left out of this report (--no-charts).</p>\n");
	} else if (pi >= doc->opt.chart_profiles) {
		outf(h, "<p class=\"note\">Charts are drawn for the first %zu profiles only.</p>\n",
		     doc->opt.chart_profiles);
	} else {
		outf(h, "<h3>Hierarchical roofline of the %zu longest kernels</h3>\n",
		     dp->charts->n_roof);
		for (i = 0; i < dp->charts->n_roof; i++)
			html_roofline(h, dp, pi + 1, &dp->charts->roof[i]);
		out(h, "<h3>Quadrant split of the targets</h3>\n");
		html_quadrant(h, dp, pi + 1);
		out(h, "<h3>Instruction roofline</h3>\n");
		html_irm(h, dp, pi + 1);
	}
	out(h, "</section>\n");
}

static void
html_summed(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	char by[1200];

	out(h, "<p>");
	if (doc->n_profiles > 1 && !doc->weighted)
		outf(h, "Each of the %zu profiles was projected separately onto every target with "
		     "<strong>%s</strong>. This ranking <strong>sums over the profiles</strong>, "
		     "per target: the projected times, the interval ends and the measured times on "
		     "the source GPU%s. ", doc->n_profiles, gpuproj_model_name(doc->model),
		     doc->mixed_sources ? "s" : "");
	else
		outf(h, "The profile%s projected onto every target with <strong>%s</strong>. ",
		     doc->n_profiles > 1 ? "s were" : " was", gpuproj_model_name(doc->model));
	out(h, "<strong>Ranked by</strong> ");
	oute(h, doc_ranked_by(doc, by, sizeof(by)));
	out(h, ". Speedup = measured time on the source ÷ projected time. Memory: whether the "
	    "run's peak device memory fits in the target's (\"does not fit\": it does not). "
	    "Prices, cost per job and energy are in the table after the order of the leading "
	    "targets.</p>\n");
}

/* The five lines on top. */
static void
html_summary(struct html *h)
{
	char *lines[5] = { NULL };
	int i;

	if (doc_summary(h->doc, lines)) {
		h->sb.oom = true;
		return;
	}
	out(h, "<section id=\"summary\">\n<h2>Summary</h2>\n<ul class=\"summary\">\n");
	for (i = 0; i < 5; i++) {
		out(h, "<li>");
		oute(h, lines[i]);
		out(h, "</li>\n");
		free(lines[i]);
	}
	out(h, "</ul>\n</section>\n");
}

/* The ranking chart: the leading targets' times with their intervals (error bars). */
static void
html_rank_chart(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	char why[512] = "", *svg = NULL, cov[32];
	struct strbuf cap;
	int r;

	if (!doc->rank_chart || !doc->rank_chart->n_rows)
		return;
	r = chart_intervals(doc->rank_chart, "ranking-chart", &svg, why, sizeof(why));
	strbuf_init(&cap);
	strbuf_printf(&cap, "The %zu best-ranked complete targets and the source: projected %s "
		      "(diamonds) with the interval that held the measured time in %s of the "
		      "validation cases (whiskers: the sum of the kernels' interval ends), the "
		      "source's measured time as a square. Logarithmic axis.",
		      doc->rank_chart->n_rows - (doc->rank_chart->n_rows > 1),
		      doc->weighted ? "facility time relative to the source" :
		      doc->by_wall ? "whole-run time" : "GPU kernel time",
		      doc_fmt_coverage(doc, cov, sizeof(cov)));
	html_chart(h, r, svg, why, "ranking-chart", cap.buf ? cap.buf : "");
	free(svg);
	strbuf_free(&cap);
}

/* The run: the report's facts, then the one profile's details or a table of the profiles. */
static void
html_run(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	size_t i;

	out(h, "<section id=\"run\">\n<h2>The run</h2>\n<table class=\"report-meta\"><tbody>\n");
	outf(h, "<tr><th scope=\"row\">Report</th><td>gpuproj %s, ", GPUPROJ_VERSION);
	oute(h, doc->date);
	out(h, "</td></tr>\n<tr><th scope=\"row\">Model</th><td><strong>");
	oute(h, gpuproj_model_name(doc->model));
	out(h, "</strong>: ");
	oute(h, gpuproj_model_summary(doc->model));
	outf(h, "</td></tr>\n<tr><th scope=\"row\">Targets</th><td>%zu GPUs", doc->n_targets);
	if (doc->opt.targets_origin) {
		out(h, " from ");
		oute(h, doc->opt.targets_origin);
	}
	outf(h, "</td></tr>\n<tr><th scope=\"row\">Profiles</th><td>%zu</td></tr>\n"
	     "</tbody></table>\n", doc->n_profiles);
	if (doc->n_profiles == 1) {
		out(h, "<h3>");
		oute(h, doc->profiles[0].label);
		out(h, "</h3>\n");
		html_run_details(h, &doc->profiles[0]);
	} else {
		out(h, "<div class=\"table-wrap\"><table class=\"profiles\"><caption>The profiles"
		    "</caption>\n<thead><tr><th class=\"num\">#</th><th>Profile</th>"
		    "<th>Application</th><th class=\"num\">Rank</th><th>Host</th><th>Source GPU</th>"
		    "<th class=\"num\">Kernels</th><th class=\"num\">Launches</th>"
		    "<th class=\"num\">Profiled launches</th><th class=\"num\">Timed only</th>"
		    "<th class=\"num\">Kernel time</th></tr></thead>\n<tbody>\n");
		for (i = 0; i < doc->n_profiles; i++) {
			const struct doc_profile *dp = &doc->profiles[i];
			const struct gpuproj_process_info *pi = gpuproj_profile_process(dp->profile);

			outf(h, "<tr><td class=\"num\">%zu</td><td><a href=\"#profile-%zu\">",
			     i + 1, i + 1);
			oute(h, dp->label);
			out(h, "</a></td><td>");
			oute(h, doc_application(dp->profile));
			if (pi->rank >= 0)
				outf(h, "</td><td class=\"num\">%" PRId64 "</td><td>", pi->rank);
			else
				out(h, "</td><td class=\"num\">–</td><td>");
			oute(h, pi->host ? pi->host : "–");
			out(h, "</td><td>");
			oute(h, dp->src->name);
			outf(h, "</td><td class=\"num\">%zu</td><td class=\"num\">%" PRIu64 "</td>"
			     "<td class=\"num\">%" PRIu64 "</td><td class=\"num\">%zu</td>",
			     dp->n_kernels, dp->launches, dp->profiled, dp->n_timed_only);
			td_ns(h, dp->kernel_ns);
			out(h, "</tr>\n");
		}
		out(h, "</tbody></table></div>\n");
	}
	out(h, "</section>\n");
}

/* The combined ranking and what goes with it: the order, the targets apart, the costs. */
static void
html_combined(struct html *h)
{
	const struct gpuproj_report_doc *doc = h->doc;
	double tensor_mix[GPUPROJ_TPREC_COUNT];
	const char *caption;
	char a[32];

	out(h, "<section id=\"ranking\">\n<h2>Ranking of target GPUs</h2>\n");
	html_summed(h);
	if (doc->weighted)
		caption = "The workload mix: facility time relative to the source";
	else if (doc->n_profiles > 1)
		caption = doc->by_wall ? "All profiles: projected whole-run time, summed"
				       : "All profiles: projected GPU kernel time, summed";
	else
		caption = doc->by_wall ? "Projected whole-run time" : "Projected GPU kernel time";
	html_ranking(h, doc->combined, doc->n_targets, "ranking-combined", caption,
		     doc_tensor_mix(doc, NULL, tensor_mix) ? tensor_mix : NULL);
	if (doc->n_complete && doc_ranked(doc, &doc->combined[0])) {
		outf(h, "<p class=\"note\">Fastest: <strong>");
		oute(h, doc->combined[0].target->name);
		if (doc->weighted)
			outf(h, "</strong>, %s of the source's facility time",
			     doc_fmt_pct(doc->combined[0].rel, a, sizeof(a)));
		else
			outf(h, "</strong>, %s projected %s",
			     format_ns(doc_rank_ns(doc, &doc->combined[0]), a, sizeof(a)),
			     doc->by_wall ? "whole-run time" : "GPU kernel time");
		if (isfinite(doc->combined[0].speedup))
			outf(h, ", %.2f× the source", doc->combined[0].speedup);
		out(h, ".</p>\n");
	}
	html_rank_chart(h);
	html_order(h);
	html_incomplete(h);
	html_costs(h);
	out(h, "</section>\n");
	whole_run_html(&h->sb, doc->combined, doc->n_targets);
}

int
gpuproj_report_doc_html(const struct gpuproj_report_doc *doc, char **ret_text, size_t *ret_len,
			struct gpuproj_error *reterr)
{
	struct html h = { 0 };
	char app[256];
	size_t i;

	if (!doc || !ret_text)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	strbuf_init(&h.sb);
	h.doc = doc;
	h.err = reterr;
	for (i = 0; i < doc->n_profiles; i++) {
		if (doc->profiles[i].charts)
			h.chart_total += doc->profiles[i].charts->n_roof + 2;
	}
	h.chart_total += doc->rank_chart != NULL;
	doc_applications(doc, app, sizeof(app));

	out(&h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
	outf(&h, "<meta name=\"generator\" content=\"gpuproj %s\">\n<title>Projected GPU time: ",
	     GPUPROJ_VERSION);
	oute(&h, app);
	out(&h, "</title>\n<style>\n");
	out(&h, css);
	out(&h, "</style>\n</head>\n<body>\n<header>\n<h1>Projected GPU time of ");
	oute(&h, app);
	if (doc->n_profiles > 1)
		outf(&h, " (%zu profiles)", doc->n_profiles);
	out(&h, "</h1>\n<p class=\"meta\">");
	outf(&h, "gpuproj %s · report of ", GPUPROJ_VERSION);
	oute(&h, doc->date);
	out(&h, " · model ");
	oute(&h, gpuproj_model_name(doc->model));
	outf(&h, " · %zu target GPUs</p>\n</header>\n", doc->n_targets);
	out(&h, "<nav aria-label=\"Contents\"><ol>\n<li><a href=\"#summary\">Summary</a></li>\n"
	    "<li><a href=\"#run\">The run</a></li>\n"
	    "<li><a href=\"#ranking\">Ranking of target GPUs</a></li>\n");
	for (i = 0; i < doc->n_profiles; i++) {
		outf(&h, "<li><a href=\"#profile-%zu\">%s", i + 1,
		     doc->n_profiles > 1 ? "Profile: " : "Kernels of ");
		oute(&h, doc->profiles[i].label);
		out(&h, "</a></li>\n");
	}
	out(&h, "<li><a href=\"#disagreement\">Where models disagree</a></li>\n"
	    "<li><a href=\"#assumptions\">Assumptions and limits</a></li>\n"
	    "<li><a href=\"#sources\">Sources of the target numbers</a></li>\n</ol></nav>\n<main>\n");

	html_summary(&h);
	html_run(&h);
	html_combined(&h);

	for (i = 0; i < doc->n_profiles; i++)
		html_profile(&h, i);
	html_disagreement(&h);
	html_assumptions(&h);
	html_sources(&h);
	out(&h, "</main>\n<footer><p class=\"note\">Written by gpuproj ");
	out(&h, GPUPROJ_VERSION);
	out(&h, ". Self-contained: no scripts, no external resources.</p></footer>\n"
	    "</body>\n</html>\n");
	doc_progress(doc, "charts", h.chart_total, h.chart_total);

	if (h.status) {
		strbuf_free(&h.sb);
		return h.status;
	}
	if (h.sb.oom) {
		strbuf_free(&h.sb);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	}
	if (ret_len)
		*ret_len = h.sb.len;
	*ret_text = strbuf_steal(&h.sb);
	return GPUPROJ_OK;
}
