/* SPDX-License-Identifier: MIT */
/*
 * Projection writers: the human table, CSV, and JSON (profile +
 * projections). Thread safety: reentrant.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/interval.h>
#include <gpuproj/project.h>

#include "profile-json.h"
#include "profile-private.h"
#include "util-escape.h"
#include "project-wholerun.h"
#include "util.h"

double
gpuproj_project_measured_total_ns(const struct gpuproj_profile *p, const char *gpu)
{
	double total = 0;
	size_t i;
	bool any = false;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		const struct gpuproj_reference *r;

		if (isnan(gpuproj_kernel_total_ns(k)))
			continue;
		r = gpuproj_kernel_reference(k, gpu);
		if (!r)
			return NAN;
		total += r->mean_ns * (double)(k->launches ? k->launches : 1);
		any = true;
	}
	return any ? total : NAN;
}

/*
 * A kernel's name for a terminal: escaped (util.h term_text(): a name is
 * whatever the profiled program or an imported file says, ESC and all),
 * the start kept (the function name) and the cut marked "...", never
 * inside an escape or a UTF-8 sequence.
 */
static const char *
short_name(const struct gpuproj_kernel *k, char *buf, size_t size)
{
	return term_text_buf(k->demangled ? k->demangled : k->name, buf, size);
}

static void
signature_line(FILE *out, const struct gpuproj_kernel *k)
{
	char name[72], tag[160];

	fprintf(out, "%s  grid(%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") block(%" PRIu32 ",%" PRIu32
		",%" PRIu32 ")", short_name(k, name, sizeof(name)), k->grid.x, k->grid.y, k->grid.z,
		k->block.x, k->block.y, k->block.z);
	if (k->smem_dynamic)
		fprintf(out, " smem %" PRIu32 " B", k->smem_dynamic);
	if (k->tag && *k->tag)
		fprintf(out, " [%s]", term_text_buf(k->tag, tag, sizeof(tag)));
}

static void
fmt_speedup(double src, double tgt, char *buf, size_t size)
{
	if (isnan(src) || isnan(tgt) || tgt <= 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.2fx", src / tgt);
}

static void
fmt_error(double proj, double meas, char *buf, size_t size)
{
	if (isnan(meas) || isnan(proj) || meas <= 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%+.1f%%", 100.0 * (proj - meas) / meas);
}

/* The binding resource of most of a run's projected time. */
static enum gpuproj_bound
dominant_bound(const struct gpuproj_profile *p, const struct gpuproj_run_projection *r)
{
	double by[GPUPROJ_BOUND_UNKNOWN + 1] = { 0 };
	size_t i;
	int b, best = GPUPROJ_BOUND_NONE;

	for (i = 0; i < r->n; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (r->kernels[i].status == GPUPROJ_OK)
			by[r->kernels[i].binding] += r->kernels[i].point_ns *
						     (double)(k->launches ? k->launches : 1);
	}
	for (b = 1; b <= GPUPROJ_BOUND_UNKNOWN; b++) {
		if (by[b] > by[best])
			best = b;
	}
	return (enum gpuproj_bound)best;
}

/* One target's totals, for the order of the leading targets. */
struct order_run {
	const struct gpuproj_target *target;
	double point_ns;
	enum gpuproj_bound binding;
};

/* Two leading targets, the faster first, and how likely that order is. */
struct order_pair {
	const struct gpuproj_target *faster, *slower;
	struct gpuproj_order o;
};

/* A run's totals if the order may use them: every kernel projected, not the source. */
static bool
order_run_take(const struct gpuproj_profile *p, const struct gpuproj_run_projection *run,
	       const struct gpuproj_target *src, struct order_run *out)
{
	if (run->target == src || !run->n_projected || run->n_unprojected ||
	    !(run->point_ns > 0) || !isfinite(run->point_ns))
		return false;
	*out = (struct order_run){ run->target, run->point_ns, dominant_bound(p, run) };
	return true;
}

static int
cmp_order_run(const void *pa, const void *pb)
{
	const struct order_run *a = pa, *b = pb;

	if (a->point_ns != b->point_ns)
		return a->point_ns < b->point_ns ? -1 : 1;
	return strcmp(a->target->name, b->target->name);
}

/*
 * The order of the leading targets (docs/models.md "Order of two
 * targets"): the runs sorted by projected whole-run time (ties by name),
 * and for each adjacent pair of the first GPUPROJ_PROJECT_ORDER_LEADING
 * the probability that the faster stays faster (gpuproj_intervals_order()
 * on the two totals, with the binding of most of each run's time).
 * `runs` is sorted in place; returns the pairs written to out (at most
 * GPUPROJ_PROJECT_ORDER_LEADING − 1), 0 when the table has no order for
 * the model.
 */
static size_t
leading_order(struct order_run *runs, size_t n, const struct gpuproj_model *m,
	      const struct gpuproj_project_write_options *opt, struct order_pair *out)
{
	const struct gpuproj_intervals *iv = opt && opt->intervals ? opt->intervals
								   : gpuproj_intervals_builtin();
	size_t i, k = 0;

	qsort(runs, n, sizeof(*runs), cmp_order_run);
	for (i = 0; i + 1 < n && i + 1 < GPUPROJ_PROJECT_ORDER_LEADING; i++) {
		out[k] = (struct order_pair){ .faster = runs[i].target,
					      .slower = runs[i + 1].target };
		if (gpuproj_intervals_order(iv, m, runs[i].point_ns, runs[i].binding,
					    runs[i + 1].point_ns, runs[i + 1].binding, &out[k].o,
					    NULL))
			return 0;
		k++;
	}
	return k;
}

/* Every run covers exactly the profile's kernels (runs[r].kernels[i] is kernel i). */
static bool
runs_match(const struct gpuproj_profile *p, const struct gpuproj_run_projection *runs,
	   size_t n_runs)
{
	size_t r;

	for (r = 0; r < n_runs; r++) {
		if (runs[r].n != gpuproj_profile_count(p) || (runs[r].n && !runs[r].kernels) ||
		    !runs[r].target)
			return false;
	}
	return true;
}

/* The lines both tables start with: profile label and origin, data citation, source GPU. */
static void
profile_header(FILE *out, const struct gpuproj_profile *p, const struct gpuproj_target *src,
	       const struct gpuproj_project_write_options *opt)
{
	const struct gpuproj_device_info *dev = gpuproj_profile_device(p);
	/* What the profile says is the profile's to say: escaped for the terminal. */
	char *origin = term_strdup(gpuproj_profile_attr(p, "origin"));
	char *citation = term_strdup(gpuproj_profile_attr(p, "citation"));
	char *label = term_strdup(opt ? opt->profile_label : NULL);
	char *dname = term_strdup(dev->name);

	if (label)
		fprintf(out, "profile: %s%s%s%s\n", label, origin ? " (origin: " : "",
			origin ? origin : "", origin ? ")" : "");
	if (citation)
		fprintf(out, "data: %s\n", citation);
	fprintf(out, "source GPU: %s (%s, %s, %d SMs at %.0f MHz)\n", src->name,
		dname ? dname : "device name not recorded", src->arch, src->sms, src->clock_mhz);
	if (src->provisional)
		fprintf(out, "  provisional (basis %s): not in targets.yaml; derived from the "
			"driver's device attributes and the per-SM figures of %s (`gpuproj targets "
			"derive` prints the entry)\n", src->provisional, src->derived_from);
	if (dev->sm_clock.samples > 0) {
		const struct gpuproj_sm_clock *c = &dev->sm_clock;
		unsigned long long bit;
		const char *sep = " (";

		fprintf(out, "  SM clock while kernels ran (NVML): mean %.0f MHz, %.0f to %.0f, "
			"%" PRIu64 " samples, %" PRIu64 " with a power or thermal cap",
			c->mean_mhz, c->min_mhz, c->max_mhz, c->samples, c->capped_samples);
		for (bit = 1; bit && bit <= c->reasons; bit <<= 1) {
			if (c->reasons & bit) {
				fprintf(out, "%s%s", sep, gpuproj_clock_reason_name(bit));
				sep = ", ";
			}
		}
		fprintf(out, "%s; --clock auto carries the regime to the targets\n",
			*sep == ',' ? ")" : "");
	}
	free(origin);
	free(citation);
	free(label);
	free(dname);
}

/* Kernels detailed in the per-kernel part of a table (of n). */
static size_t
top_count(const struct gpuproj_project_write_options *opt, size_t n)
{
	size_t top = opt && opt->all_kernels ? n : (opt && opt->top_kernels ? opt->top_kernels : 5);

	return top < n ? top : n;
}

/* Whether every run has the same coverage counts (one note line covers all). */
static bool
same_coverage(const struct gpuproj_run_projection *runs, size_t n_runs)
{
	size_t r;

	for (r = 1; r < n_runs; r++) {
		if (runs[r].n_unprojected != runs[0].n_unprojected ||
		    runs[r].n_fallback != runs[0].n_fallback ||
		    runs[r].n_fallback_sol != runs[0].n_fallback_sol ||
		    runs[r].n_assumed != runs[0].n_assumed ||
		    runs[r].n_assumption[GPUPROJ_ASSUME_BINDING] !=
			    runs[0].n_assumption[GPUPROJ_ASSUME_BINDING] ||
		    runs[r].unprojected_source_ns != runs[0].unprojected_source_ns)
			return false;
	}
	return true;
}

/* One run's coverage: kernels not projected, and those projected by a fallback. */
static void
coverage_note(FILE *out, const struct gpuproj_run_projection *run, const char *where, size_t n)
{
	char a[32];

	if (run->n_unprojected && run->n_projected)
		fprintf(out, "note: %s, %zu of %zu kernel(s) could not be projected; their source "
			"time (%s) is carried unchanged in the totals (see the per-kernel table)\n",
			where, run->n_unprojected, n,
			format_ns(run->unprojected_source_ns, a, sizeof(a)));
	else if (run->n_unprojected)
		fprintf(out, "note: %s, none of the %zu kernel(s) could be projected (see the "
			"per-kernel table for why)\n", where, n);
	if (run->n_fallback_sol)
		fprintf(out, "note: %s, %zu kernel(s) projected by sol, coarser (from Nsight "
			"Compute's throughput percentages: %s lacks their inputs)\n", where,
			run->n_fallback_sol, gpuproj_model_name(run->model));
	if (run->n_assumption[GPUPROJ_ASSUME_BINDING])
		fprintf(out, "note: %s, %zu kernel(s) without counters projected by the envelope "
			"of the target's FP32 and DRAM ceilings (assumed: binding unknown; the "
			"interval spans compute- and memory-bound)\n", where,
			run->n_assumption[GPUPROJ_ASSUME_BINDING]);
}

void
gpuproj_project_assumed_note(FILE *out, const struct gpuproj_run_projection *runs, size_t n_runs,
			     size_t stride, const char *who)
{
	size_t r, total = 0, n = n_runs ? runs[0].n : 0;
	int a, listed = 0;

	for (r = 0; r < n_runs; r++)
		total += runs[r * stride].n_assumed;
	if (!total)
		return;
	fprintf(out, "note: %s%sprojected with assumptions for inputs the profile lacks:",
		who ? who : "", who ? " " : "");
	for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
		size_t lo = SIZE_MAX, hi = 0, on = 0;

		for (r = 0; r < n_runs; r++) {
			size_t k = runs[r * stride].n_assumption[a];

			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
			on += k > 0;
		}
		if (!hi)
			continue;
		fprintf(out, "%s %s (", listed++ ? "," : "",
			gpuproj_assumption_info((enum gpuproj_assumption)a)->word);
		if (lo == hi)
			fprintf(out, "%zu of %zu kernel(s)%s)", hi, n,
				n_runs > 1 ? " on every target" : "");
		else
			fprintf(out, "up to %zu of %zu kernel(s), on %zu of %zu targets)", hi, n,
				on, n_runs);
	}
	fprintf(out, "; their intervals are widened by what each cost on validation "
		"(docs/models.md \"Missing inputs\")\n");
}

/* Every target's coverage note, or one line covering all when they are the same. */
static void
coverage_notes(FILE *out, const struct gpuproj_run_projection *runs, size_t n_runs, size_t n)
{
	char where[96];
	size_t r;

	if (!n_runs)
		return;
	if (n_runs > 1 && same_coverage(runs, n_runs)) {
		coverage_note(out, &runs[0], "on every target", n);
		return;
	}
	for (r = 0; r < n_runs; r++) {
		snprintf(where, sizeof(where), "on %s", runs[r].target->name);
		coverage_note(out, &runs[r], where, n);
	}
}

/*
 * What the table shows of one run, kept while the runs go by one at a time
 * (gpuproj_project_table_stream(): projecting 100,000 kernels onto 44 GPUs
 * held 2.3 GB of projections; the table needs the totals and a few
 * kernels): the run's totals (`s`, its kernels array left out), the
 * binding resource of most of its time, and the projections of the
 * kernels the table details (`sel`, in the order of the selection) and of
 * the longest kernel (`longest`, for the notes).
 */
struct tab_run {
	struct gpuproj_run_projection s;
	const char *dominant;
	struct order_run ord;
	bool has_ord;
	struct gpuproj_projection *sel;
	struct gpuproj_projection longest;
	bool has_longest;
};

/* The table's selection: the top kernels by source time, and the longest one. */
struct tab_sel {
	size_t *order;       /* every kernel by time, longest first */
	size_t top;          /* the first `top` of order are detailed */
	size_t longest;      /* the kernel with the largest total time, or n */
};

static int
tab_sel_make(const struct gpuproj_profile *p, const struct gpuproj_project_write_options *opt,
	     struct tab_sel *ts)
{
	size_t n = gpuproj_profile_count(p), i;
	double best = -1;

	ts->order = profile_order_by_time(p);
	if (!ts->order)
		return GPUPROJ_E_NOMEM;
	ts->top = top_count(opt, n);
	ts->longest = n;
	for (i = 0; i < n; i++) {
		double tt = gpuproj_kernel_total_ns(gpuproj_profile_at(p, i));

		if (!isnan(tt) && tt > best) {
			best = tt;
			ts->longest = i;
		}
	}
	return GPUPROJ_OK;
}

/* Keep what the table shows of `run` (whose kernels cover p's) in `tr`. */
static int
tab_run_take(struct tab_run *tr, const struct gpuproj_profile *p, const struct tab_sel *ts,
	     const struct gpuproj_run_projection *run, const struct gpuproj_target *src)
{
	size_t i;

	memset(tr, 0, sizeof(*tr));
	tr->s = *run;
	tr->s.kernels = NULL;
	tr->dominant = gpuproj_bound_name(dominant_bound(p, run));
	tr->has_ord = order_run_take(p, run, src, &tr->ord);
	tr->sel = calloc(ts->top ? ts->top : 1, sizeof(*tr->sel));
	if (!tr->sel)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < ts->top; i++)
		tr->sel[i] = run->kernels[ts->order[i]];
	if (ts->longest < run->n) {
		tr->longest = run->kernels[ts->longest];
		tr->has_longest = true;
	}
	return GPUPROJ_OK;
}

/* The order of the leading targets, after the whole-run table (none: nothing). */
static void
order_lines(FILE *out, const struct tab_run *tr, size_t n_runs,
	    const struct gpuproj_project_write_options *opt)
{
	struct order_pair pairs[GPUPROJ_PROJECT_ORDER_LEADING];
	struct order_run *runs = calloc(n_runs ? n_runs : 1, sizeof(*runs));
	size_t r, n = 0, k;

	if (!runs)
		return;
	for (r = 0; r < n_runs; r++) {
		if (tr[r].has_ord)
			runs[n++] = tr[r].ord;
	}
	k = leading_order(runs, n, tr[0].s.model, opt, pairs);
	if (k)
		fprintf(out, "order of the leading targets (probability that the projected order "
			"holds, from the errors two targets projected from one source do not "
			"share: docs/models.md \"Order of two targets\"):\n");
	for (r = 0; r < k; r++)
		fprintf(out, "  %s faster than %s: %.2f\n", pairs[r].faster->name,
			pairs[r].slower->name, pairs[r].o.p_holds);
	free(runs);
}

/* The model's notes (gpuproj_model_options.notes) for the longest kernel, per target. */
static void
longest_notes(FILE *out, const struct gpuproj_profile *p, const struct tab_run *tr,
	      size_t n_runs, const struct tab_sel *ts)
{
	size_t hdr = 0, r, n = gpuproj_profile_count(p);
	char a[32];

	for (r = 0; ts->longest < n && r < n_runs; r++) {
		const struct gpuproj_projection *pr = &tr[r].longest;

		if (!tr[r].has_longest || pr->status != GPUPROJ_OK || !pr->note[0])
			continue;
		if (!hdr++)
			fprintf(out, "notes of %s on the longest kernel (%s):\n",
				gpuproj_model_name(tr[0].s.model),
				short_name(gpuproj_profile_at(p, ts->longest), a, sizeof(a)));
		/* A fallback's note says whose it is. */
		fprintf(out, "  %-20s %s%s%s%s\n", tr[r].s.target->name,
			pr->fallback ? "by " : "",
			pr->fallback ? gpuproj_model_name(pr->fallback) : "",
			pr->fallback ? ": " : "", pr->note);
	}
}

/*
 * The short table's lines for detailed kernel `i` (more targets than
 * GPUPROJ_TABLE_SHORT_TARGETS, no --verbose): the speedup range with its
 * GPUs, the bindings counted (most first), and the targets it could not
 * be projected onto with the first reason.
 */
static void
kernel_summary(FILE *out, const struct gpuproj_kernel *k, const struct tab_run *tr,
	       size_t n_runs, size_t i)
{
	size_t by[GPUPROJ_BOUND_UNKNOWN + 1] = { 0 }, r, ok = 0, bad = 0, lo = 0, hi = 0, b, shown;
	double mean = gpuproj_kernel_mean_ns(k), slo = INFINITY, shi = -INFINITY;
	const char *why = NULL, *first_bad = NULL;
	char a[32], c[32];

	for (r = 0; r < n_runs; r++) {
		const struct gpuproj_projection *pr = &tr[r].sel[i];
		double sp = pr->point_ns > 0 ? mean / pr->point_ns : NAN;

		if (pr->status != GPUPROJ_OK) {
			if (!bad++) {
				why = pr->why;
				first_bad = tr[r].s.target->name;
			}
			continue;
		}
		ok++;
		by[pr->binding <= GPUPROJ_BOUND_UNKNOWN ? pr->binding : GPUPROJ_BOUND_NONE]++;
		if (sp < slo) {
			slo = sp;
			lo = r;
		}
		if (sp > shi) {
			shi = sp;
			hi = r;
		}
	}
	if (ok) {
		fmt_speedup(mean, tr[lo].sel[i].point_ns, a, sizeof(a));
		fmt_speedup(mean, tr[hi].sel[i].point_ns, c, sizeof(c));
		fprintf(out, "   %zu of %zu targets: speedup %s (%s) to %s (%s); binding", ok,
			n_runs, a, tr[lo].s.target->name, c, tr[hi].s.target->name);
		/* The bindings, most targets first (ties in the enum's order). */
		for (shown = 0; shown < ok;) {
			size_t best = 0, most = 0;

			for (b = 0; b <= GPUPROJ_BOUND_UNKNOWN; b++) {
				if (by[b] > most) {
					most = by[b];
					best = b;
				}
			}
			fprintf(out, "%s %s %zu", shown ? "," : "",
				gpuproj_bound_name((enum gpuproj_bound)best), most);
			shown += most;
			by[best] = 0;
		}
		fputc('\n', out);
	}
	if (bad == 1)
		fprintf(out, "   not projected on %s: %s\n", first_bad, why);
	else if (bad)
		fprintf(out, "   not projected on %zu targets, %s first: %s\n", bad, first_bad,
			why);
}

static int
table_print(FILE *out, const struct gpuproj_profile *p, const struct gpuproj_target *src,
	    const struct tab_run *tr, size_t n_runs, const struct tab_sel *ts,
	    const struct gpuproj_project_write_options *opt)
{
	size_t n = gpuproj_profile_count(p), top = ts->top, i, r;
	uint64_t launches = 0;
	double src_total = gpuproj_profile_kernel_time_ns(p);
	char a[32], b[32], c[32], d[32], e[32];
	size_t unseen = 0;
	struct gpuproj_run_projection *cov;
	bool whole;
	bool long_form = opt && opt->verbose;
	bool rows = long_form || n_runs <= GPUPROJ_TABLE_SHORT_TARGETS;

	/* The runs' totals (their kernels left out): coverage notes, the whole run. */
	cov = calloc(n_runs, sizeof(*cov));
	if (!cov)
		return GPUPROJ_E_NOMEM;
	for (r = 0; r < n_runs; r++)
		cov[r] = tr[r].s;
	whole = whole_run_any(cov, n_runs);
	for (i = 0; i < n; i++)
		launches += gpuproj_profile_at(p, i)->launches;

	fprintf(out, "gpuproj %s, model %s: %s\n", GPUPROJ_VERSION,
		gpuproj_model_name(tr[0].s.model), gpuproj_model_summary(tr[0].s.model));
	profile_header(out, p, src, opt);
	fprintf(out, "kernels: %zu signatures, %" PRIu64 " launches, %s of kernel time on the "
		"source\n", n, launches, format_ns(src_total, a, sizeof(a)));
	{
		double cuda, tensor[GPUPROJ_TPREC_COUNT];
		char mix[256];

		if (gpuproj_profile_flop_mix(p, &cuda, tensor))
			fprintf(out, "FLOP mix of the run: %s\n",
				gpuproj_flop_mix_text(cuda, tensor, mix, sizeof(mix)));
	}
	fputc('\n', out);

	fprintf(out, "Whole run: projected GPU kernel time per target (sum over kernels of point x "
		"launches; interval calibrated on each model's validation residuals, summed "
		"over kernels: docs/validation.md)\n");
	fprintf(out, "%-20s %13s %25s %9s %11s %8s  %-8s%s\n", "target", "projected", "interval",
		"speedup", "measured", "error", "binding", whole ? "   whole run" : "");
	for (r = 0; r < n_runs; r++) {
		const struct gpuproj_run_projection *run = &tr[r].s;
		double meas = gpuproj_project_measured_total_ns(p, run->target->name);
		char interval[40];

		if (!run->n_projected) {
			/* Never the carried source time dressed up as a projection. */
			fprintf(out, "%-20s %13s %25s %9s %11s %8s  %-8s%s\n", run->target->name,
				"not projected", "-", "-",
				isnan(meas) ? "-" : format_ns(meas, b, sizeof(b)), "-", "-",
				run->target == src ? "  (source)" : "");
			continue;
		}
		snprintf(interval, sizeof(interval), "[%s, %s]%s",
			 format_ns(run->lo_ns, a, sizeof(a)), format_ns(run->hi_ns, b, sizeof(b)),
			 run->n_interval_unseen ? "*" : "");
		unseen += run->n_interval_unseen > 0;
		fmt_speedup(run->source_ns, run->point_ns, c, sizeof(c));
		fmt_error(run->point_ns, meas, d, sizeof(d));
		fprintf(out, "%-20s %13s %25s %9s %11s %8s  %-8s%s%s%s\n", run->target->name,
			format_ns(run->point_ns, e, sizeof(e)), interval, c,
			isnan(meas) ? "-" : format_ns(meas, b, sizeof(b)), d,
			tr[r].dominant, whole ? " " : "", whole ? whole_run_cell(run, a, sizeof(a)) : "",
			run->target == src ? "  (source)" : "");
	}
	coverage_notes(out, cov, n_runs, n);
	gpuproj_project_assumed_note(out, cov, n_runs, 1, NULL);
	gpuproj_project_whole_run_table(out, p, cov, n_runs);
	if (unseen)
		fprintf(out, "note: * = interval fitted on validation data without this target or "
			"the source GPU (%s): its coverage there is unmeasured, and on GPUs held "
			"out of a fit it fell below the table's (docs/models.md \"Intervals\")\n",
			src->name);
	order_lines(out, tr, n_runs, opt);
	if (long_form)
		longest_notes(out, p, tr, n_runs, ts);

	/* Per-kernel detail, longest kernels first. */
	fprintf(out, "\nPer kernel (top %zu of %zu by source time; per-launch times)\n", top, n);
	for (i = 0; i < top; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, ts->order[i]);
		double tot = gpuproj_kernel_total_ns(k);

		fprintf(out, "\n#%zu ", i + 1);
		signature_line(out, k);
		fprintf(out, "\n   %" PRIu64 " launches (%" PRIu64 " profiled), %s per launch on %s, "
			"%.1f%% of source kernel time\n", k->launches, k->profiled,
			format_ns(gpuproj_kernel_mean_ns(k), a, sizeof(a)), src->name,
			src_total > 0 && !isnan(tot) ? 100.0 * tot / src_total : 0.0);
		{
			double cuda, tensor[GPUPROJ_TPREC_COUNT];
			char mix[256];

			if (gpuproj_kernel_flop_mix(k, &cuda, tensor))
				fprintf(out, "   FLOP mix: %s\n",
					gpuproj_flop_mix_text(cuda, tensor, mix, sizeof(mix)));
		}
		if (!rows) {
			kernel_summary(out, k, tr, n_runs, i);
			continue;
		}
		fprintf(out, "   %-20s %11s %25s %9s %-8s %11s %8s\n", "target", "projected",
			"interval", "speedup", "binding", "measured", "error");
		for (r = 0; r < n_runs; r++) {
			const struct gpuproj_projection *pr = &tr[r].sel[i];
			const struct gpuproj_target *tg = tr[r].s.target;
			const struct gpuproj_reference *ref = gpuproj_kernel_reference(k, tg->name);
			char interval[40], words[256];

			if (pr->status != GPUPROJ_OK) {
				fprintf(out, "   %-20s not projected: %s\n", tg->name, pr->why);
				continue;
			}
			snprintf(interval, sizeof(interval), "[%s, %s]%s",
				 format_ns(pr->lo_ns, a, sizeof(a)),
				 format_ns(pr->hi_ns, b, sizeof(b)),
				 pr->interval_gpus == GPUPROJ_INTERVAL_GPUS_UNSEEN ? "*" : "");
			fmt_speedup(gpuproj_kernel_mean_ns(k), pr->point_ns, c, sizeof(c));
			fmt_error(pr->point_ns, ref ? ref->mean_ns : NAN, d, sizeof(d));
			fprintf(out, "   %-20s %11s %25s %9s %-8s %11s %8s%s%s%s%s%s%s\n",
				tg->name, format_ns(pr->point_ns, e, sizeof(e)), interval,
				c, gpuproj_bound_name(pr->binding),
				ref ? format_ns(ref->mean_ns, b, sizeof(b)) : "-", d,
				pr->fallback ? "  [by " : "",
				pr->fallback ? gpuproj_model_name(pr->fallback) : "",
				pr->fallback ? (gpuproj_model_is_coarse(pr->fallback) ? ", coarser]"
										       : "]")
					     : "",
				pr->assumed ? "  [assumed: " : "",
				pr->assumed ? gpuproj_assumption_words(pr->assumed, words,
								       sizeof(words))
					    : "",
				pr->assumed ? "]" : "");
		}
	}
	/* Say what the short form left out, if anything. */
	for (r = 0, i = 0; !long_form && ts->longest < n && r < n_runs; r++)
		i += tr[r].has_longest && tr[r].longest.status == GPUPROJ_OK &&
		     tr[r].longest.note[0];
	if (!long_form && (i || !rows))
		fprintf(out, "\n(--verbose: %s%s%s)\n", rows ? "" : "every target's row per kernel",
			!rows && i ? " and " : "", i ? "the model's notes per target" : "");
	free(cov);
	fflush(out);
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

int
gpuproj_project_table_stream(FILE *out, const struct gpuproj_profile *p,
			     const struct gpuproj_target *src, size_t n_runs,
			     gpuproj_project_provider_fn get, void *userdata,
			     const struct gpuproj_project_write_options *opt)
{
	struct tab_sel ts = { 0 };
	struct tab_run *tr = NULL;
	size_t r, taken = 0;
	int st;

	if (!n_runs)
		return GPUPROJ_OK;
	if (!p || !src || !get)
		return GPUPROJ_E_INVAL;
	if ((st = tab_sel_make(p, opt, &ts)))
		return st;
	tr = calloc(n_runs, sizeof(*tr));
	if (!tr) {
		st = GPUPROJ_E_NOMEM;
		goto out;
	}
	for (r = 0; r < n_runs; r++) {
		const struct gpuproj_run_projection *run = get(userdata, r, &st);

		if (!run) {
			if (!st)
				st = GPUPROJ_E_NOMEM;
			goto out;
		}
		if (!runs_match(p, run, 1)) {
			st = GPUPROJ_E_INVAL;
			goto out;
		}
		if ((st = tab_run_take(&tr[r], p, &ts, run, src)))
			goto out;
		taken++;
	}
	st = table_print(out, p, src, tr, n_runs, &ts, opt);
out:
	for (r = 0; r < taken; r++)
		free(tr[r].sel);
	free(tr);
	free(ts.order);
	return st;
}

/* The run provider of the array-taking writers: the caller's runs, as they are. */
struct run_array {
	const struct gpuproj_run_projection *runs;
};

static const struct gpuproj_run_projection *
run_array_get(void *userdata, size_t i, int *ret_status)
{
	*ret_status = GPUPROJ_OK;
	return &((const struct run_array *)userdata)->runs[i];
}

int
gpuproj_project_table(FILE *out, const struct gpuproj_profile *p, const struct gpuproj_target *src,
		      const struct gpuproj_run_projection *runs, size_t n_runs,
		      const struct gpuproj_project_write_options *opt)
{
	struct run_array ra = { runs };

	if (!n_runs)
		return GPUPROJ_OK;
	if (!runs_match(p, runs, n_runs))
		return GPUPROJ_E_INVAL;
	return gpuproj_project_table_stream(out, p, src, n_runs, run_array_get, &ra, opt);
}

/*
 * Kernel k of the side-by-side table: each model's distinct reason for not
 * projecting it, once, and its assumptions for it, once (its widest set).
 */
static void
kernel_model_notes(FILE *out, const struct gpuproj_run_projection *runs, size_t n_targets,
		   size_t n_models, size_t k)
{
	size_t t, m;

	for (m = 0; m < n_models; m++) {
		for (t = 0; t < n_targets; t++) {
			const struct gpuproj_projection *pr = &runs[t * n_models + m].kernels[k];

			if (pr->status != GPUPROJ_OK) {
				fprintf(out, "   n/p %s (e.g. %s): %s\n",
					gpuproj_model_name(runs[m].model),
					runs[t * n_models].target->name, pr->why);
				break;
			}
		}
	}
	for (m = 0; m < n_models; m++) {
		unsigned all = 0;
		char words[256];

		for (t = 0; t < n_targets; t++) {
			const struct gpuproj_projection *pr = &runs[t * n_models + m].kernels[k];

			if (pr->status == GPUPROJ_OK)
				all |= pr->assumed;
		}
		if (all)
			fprintf(out, "   assumed by %s: %s\n", gpuproj_model_name(runs[m].model),
				gpuproj_assumption_words(all, words, sizeof(words)));
	}
}

int
gpuproj_project_table_models(FILE *out, const struct gpuproj_profile *p,
			     const struct gpuproj_target *src,
			     const struct gpuproj_run_projection *runs, size_t n_targets,
			     size_t n_models, const struct gpuproj_project_write_options *opt)
{
	const struct gpuproj_model *def = gpuproj_model_default();
	size_t n = gpuproj_profile_count(p), top, i, t, m, flagged_total = 0;
	double factor = opt && opt->disagreement_factor > 1 ? opt->disagreement_factor
							    : GPUPROJ_MODEL_DISAGREEMENT_FACTOR;
	struct gpuproj_projection *cell;
	char a[32], b[32];
	size_t *order;

	if (!n_models || !n_targets)
		return n_models ? GPUPROJ_OK : GPUPROJ_E_INVAL;
	for (t = 0; t < n_targets; t++) {
		for (m = 0; m < n_models; m++) {
			if (runs[t * n_models + m].target != runs[t * n_models].target ||
			    runs[t * n_models + m].model != runs[m].model ||
			    runs[t * n_models + m].n != n)
				return GPUPROJ_E_INVAL;
		}
	}
	order = profile_order_by_time(p);
	cell = calloc(n_models, sizeof(*cell));
	if (!order || !cell) {
		free(order);
		free(cell);
		return GPUPROJ_E_NOMEM;
	}

	fprintf(out, "gpuproj %s, %zu models side by side (default: %s)\n", GPUPROJ_VERSION,
		n_models, gpuproj_model_name(def));
	for (m = 0; m < n_models; m++)
		fprintf(out, "  %-10s %s\n", gpuproj_model_name(runs[m].model),
			gpuproj_model_summary(runs[m].model));
	profile_header(out, p, src, opt);
	fprintf(out, "kernels: %zu signatures, %s of kernel time on the source\n\n", n,
		format_ns(gpuproj_profile_kernel_time_ns(p), a, sizeof(a)));

	/* Whole run: one column per model, plus how many kernels the models disagree on. */
	fprintf(out, "Whole run: projected GPU kernel time per target (sum over kernels of point x "
		"launches)\n%-20s", "target");
	for (m = 0; m < n_models; m++)
		fprintf(out, " %13s", gpuproj_model_name(runs[m].model));
	fprintf(out, " %11s %9s\n", "measured", "disagree");
	for (t = 0; t < n_targets; t++) {
		const struct gpuproj_run_projection *row = &runs[t * n_models];
		double meas = gpuproj_project_measured_total_ns(p, row->target->name);
		size_t flagged = 0;

		for (i = 0; i < n; i++) {
			for (m = 0; m < n_models; m++)
				cell[m] = row[m].kernels[i];
			flagged += gpuproj_models_disagree(cell, n_models, factor);
		}
		flagged_total += flagged;
		fprintf(out, "%-20s", row->target->name);
		for (m = 0; m < n_models; m++)
			fprintf(out, " %13s", row[m].n_projected
				? format_ns(row[m].point_ns, a, sizeof(a)) : "not projected");
		fprintf(out, " %11s %9zu%s\n", isnan(meas) ? "-" : format_ns(meas, b, sizeof(b)),
			flagged, row->target == src ? "  (source)" : "");
	}
	fprintf(out, "disagree = kernels whose per-launch projections differ by more than %gx "
		"between models (%zu kernel x target in all)\n", factor, flagged_total);
	/* Per model, what its column covers (the same on every target, or per target). */
	for (m = 0; m < n_models; m++) {
		bool same = true;

		for (t = 1; t < n_targets; t++)
			same = same && runs[t * n_models + m].n_unprojected == runs[m].n_unprojected;
		if (!runs[m].n_unprojected && same)
			continue;
		if (same)
			fprintf(out, "%s: %zu of %zu kernel(s) not projected on every target%s%s\n",
				gpuproj_model_name(runs[m].model), runs[m].n_unprojected, n,
				runs[m].n_projected ? "; their source time is carried in its column"
						    : "", gpuproj_model_is_coarse(runs[m].model)
				? " (coarser model)" : "");
		else
			for (t = 0; t < n_targets; t++)
				fprintf(out, "%s on %s: %zu of %zu kernel(s) not projected\n",
					gpuproj_model_name(runs[m].model),
					runs[t * n_models].target->name,
					runs[t * n_models + m].n_unprojected, n);
	}
	/* Per model, what it assumed. */
	for (m = 0; m < n_models; m++)
		gpuproj_project_assumed_note(out, &runs[m], n_targets, n_models,
					     gpuproj_model_name(runs[m].model));

	top = top_count(opt, n);
	fprintf(out, "\nPer kernel (top %zu of %zu by source time; per-launch points; '!' = models "
		"disagree by more than %gx)\n", top, n, factor);
	for (i = 0; i < top; i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, order[i]);

		fprintf(out, "\n#%zu ", i + 1);
		signature_line(out, k);
		fprintf(out, "\n   %" PRIu64 " launches, %s per launch on %s\n   %-20s", k->launches,
			format_ns(gpuproj_kernel_mean_ns(k), a, sizeof(a)), src->name, "target");
		for (m = 0; m < n_models; m++)
			fprintf(out, " %13s", gpuproj_model_name(runs[m].model));
		fprintf(out, " %11s\n", "measured");
		for (t = 0; t < n_targets; t++) {
			const struct gpuproj_run_projection *row = &runs[t * n_models];
			const struct gpuproj_reference *ref =
				gpuproj_kernel_reference(k, row->target->name);

			for (m = 0; m < n_models; m++)
				cell[m] = row[m].kernels[order[i]];
			fprintf(out, "   %-20s", row->target->name);
			for (m = 0; m < n_models; m++)
				fprintf(out, " %13s", cell[m].status == GPUPROJ_OK
					? format_ns(cell[m].point_ns, a, sizeof(a)) : "n/p");
			fprintf(out, " %11s%s\n", ref ? format_ns(ref->mean_ns, b, sizeof(b)) : "-",
				gpuproj_models_disagree(cell, n_models, factor) ? "  !" : "");
		}
		kernel_model_notes(out, runs, n_targets, n_models, order[i]);
	}
	free(order);
	free(cell);
	fflush(out);
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

int
gpuproj_project_csv(FILE *out, const struct gpuproj_profile *p, const struct gpuproj_target *src,
		    const struct gpuproj_run_projection *runs, size_t n_runs)
{
	struct run_array ra = { runs };

	if (!runs_match(p, runs, n_runs))
		return GPUPROJ_E_INVAL;
	return gpuproj_project_csv_stream(out, p, src, n_runs, run_array_get, &ra);
}

int
gpuproj_project_csv_stream(FILE *out, const struct gpuproj_profile *p,
			   const struct gpuproj_target *src, size_t n_runs,
			   gpuproj_project_provider_fn get, void *userdata)
{
	/* Where the source GPU's figures come from: its file, or its device (provisional). */
	const char *basis = src && src->provisional ? src->provisional : "targets.yaml";
	size_t r, i;
	char buf[64];

	if (!p || (n_runs && !get))
		return GPUPROJ_E_INVAL;
	fputs("kernel,tag,grid,block,launches,source_ns,target,model,status,lo_ns,hi_ns,point_ns,"
	      "speedup,binding,measured_ns,error_pct,why,interval_gpus,source_basis\n", out);
	for (r = 0; r < n_runs; r++) {
		int st = GPUPROJ_OK;
		const struct gpuproj_run_projection *run = get(userdata, r, &st);
		double meas;

		if (!run)
			return st ? st : GPUPROJ_E_NOMEM;
		if (!runs_match(p, run, 1))
			return GPUPROJ_E_INVAL;
		meas = gpuproj_project_measured_total_ns(p, run->target->name);

		for (i = 0; i < run->n; i++) {
			const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
			const struct gpuproj_projection *pr = &run->kernels[i];
			const struct gpuproj_reference *ref =
				gpuproj_kernel_reference(k, run->target->name);
			double ts = gpuproj_kernel_mean_ns(k);
			bool ok = pr->status == GPUPROJ_OK;

			csv_write_field(out, k->name);
			fputc(',', out);
			csv_write_field(out, k->tag ? k->tag : "");
			snprintf(buf, sizeof(buf), ",%" PRIu32 "x%" PRIu32 "x%" PRIu32 ",%" PRIu32 "x%"
				 PRIu32 "x%" PRIu32 ",%" PRIu64 ",", k->grid.x, k->grid.y, k->grid.z,
				 k->block.x, k->block.y, k->block.z, k->launches);
			fputs(buf, out);
			csv_write_num(out, ts);
			fputc(',', out);
			csv_write_field(out, run->target->name);
			fputc(',', out);
			/* The model that projected the row: a fallback is named. */
			csv_write_field(out, gpuproj_model_name(ok && pr->fallback ? pr->fallback
										 : run->model));
			fprintf(out, ",%s,", !ok ? gpuproj_strerror(pr->status)
					     : pr->assumed & (1u << GPUPROJ_ASSUME_BINDING)
						   ? "ok (assumed: binding unknown)"
					     : pr->fallback && gpuproj_model_is_coarse(pr->fallback)
						   ? "ok (coarser)" : "ok");
			csv_write_num(out, ok ? pr->lo_ns : NAN);
			fputc(',', out);
			csv_write_num(out, ok ? pr->hi_ns : NAN);
			fputc(',', out);
			csv_write_num(out, ok ? pr->point_ns : NAN);
			fputc(',', out);
			csv_write_num(out, ok && pr->point_ns > 0 ? ts / pr->point_ns : NAN);
			fprintf(out, ",%s,", ok ? gpuproj_bound_name(pr->binding) : "");
			csv_write_num(out, ref ? ref->mean_ns : NAN);
			fputc(',', out);
			csv_write_num(out, ref && ok ? 100.0 * (pr->point_ns - ref->mean_ns) / ref->mean_ns
					       : NAN);
			fputc(',', out);
			/* Failed: why; by a fallback: why the run's model could not. */
			csv_write_field(out, !ok || pr->fallback ? pr->why : "");
			fprintf(out, ",%s,%s\n", ok && pr->calibrated
							? gpuproj_interval_gpus_name(pr->interval_gpus)
							: "", basis);
		}
		fputs("(total),,,,", out);
		{
			uint64_t launches = 0;

			for (i = 0; i < run->n; i++)
				launches += gpuproj_profile_at(p, i)->launches;
			fprintf(out, "%" PRIu64 ",", launches);
		}
		csv_write_num(out, run->source_ns);
		fputc(',', out);
		csv_write_field(out, run->target->name);
		fputc(',', out);
		csv_write_field(out, gpuproj_model_name(run->model));
		{
			bool any = run->n_projected > 0;
			char why[96];

			fputs(any ? ",ok," : ",not projected,", out);
			csv_write_num(out, any ? run->lo_ns : NAN);
			fputc(',', out);
			csv_write_num(out, any ? run->hi_ns : NAN);
			fputc(',', out);
			csv_write_num(out, any ? run->point_ns : NAN);
			fputc(',', out);
			csv_write_num(out, any && run->point_ns > 0 ? run->source_ns / run->point_ns
								   : NAN);
			fputs(",,", out);
			csv_write_num(out, meas);
			fputc(',', out);
			csv_write_num(out, isnan(meas) || !any ? NAN
				      : 100.0 * (run->point_ns - meas) / meas);
			fputc(',', out);
			why[0] = '\0';
			if (run->n_unprojected || run->n_fallback)
				snprintf(why, sizeof(why), "%zu of %zu kernels not projected, %zu by "
					 "a fallback (%zu coarser)", run->n_unprojected, run->n,
					 run->n_fallback, run->n_fallback_sol);
			csv_write_field(out, why);
			/* The total: "unseen" when any kernel's interval was. */
			fprintf(out, ",%s,%s\n", run->n_interval_unseen ? "unseen" : "", basis);
		}
		whole_run_csv(out, run, basis);
	}
	fflush(out);
	return ferror(out) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

/* "details": {name: value} and "inputs": {name: {"key", "basis"}} of one projection. */
/* The model's intermediate values of one kernel ("details", "inputs"); 0 or -1 on ENOMEM. */
static int
json_details(json_t *jk, const struct gpuproj_run_projection *run, const struct gpuproj_model *m,
	     const struct gpuproj_kernel *k, const struct gpuproj_target *src)
{
	struct gpuproj_model_details d;
	json_t *jd, *ji = NULL;
	size_t i;
	int bad = 0;

	if (!src || gpuproj_model_details(m, k, src, run->target, &run->options, &d) ||
	    !d.n)
		return 0;
	jd = json_object();
	for (i = 0; i < d.n; i++) {
		bad |= json_object_set_new(jd, d.items[i].name, json_num(d.items[i].value));
		if (!d.items[i].key)
			continue;
		if (!ji)
			ji = json_object();
		bad |= json_object_set_new(ji, d.items[i].name,
					   json_pack("{s:s,s:s,s:s}", "key", d.items[i].key, "unit",
						     d.items[i].unit, "basis",
						     gpuproj_basis_name(d.items[i].basis)));
	}
	bad |= json_object_set_new(jk, "details", jd);
	if (ji)
		bad |= json_object_set_new(jk, "inputs", ji);
	return bad;
}

int
gpuproj_project_json(const char *path, const struct gpuproj_profile *p,
		     const struct gpuproj_target *src, const struct gpuproj_run_projection *runs,
		     size_t n_runs, struct gpuproj_error *reterr)
{
	return gpuproj_project_json_ex(path, p, src, runs, n_runs, NULL, reterr);
}

/* One run's JSON without its kernels (json_stream_placeholder(0) in their place). */
static json_t *
run_head_json(const struct gpuproj_profile *p, const struct gpuproj_run_projection *run)
{
	double meas = gpuproj_project_measured_total_ns(p, run->target->name);
	json_t *jr = json_object();
	bool any = run->n_projected > 0;
	int bad = !jr;

	if (bad)
		return NULL;
	bad |= json_object_set_new(jr, "model", json_string(gpuproj_model_name(run->model)));
	if (gpuproj_model_is_coarse(run->model))
		bad |= json_object_set_new(jr, "coarse", json_true());
	bad |= json_object_set_new(jr, "target", json_string(run->target->name));
	bad |= json_object_set_new(jr, "source_ns", json_num(run->source_ns));
	/* Nothing projected: null, never the carried source time. */
	bad |= json_object_set_new(jr, "lo_ns", json_num(any ? run->lo_ns : NAN));
	bad |= json_object_set_new(jr, "hi_ns", json_num(any ? run->hi_ns : NAN));
	bad |= json_object_set_new(jr, "point_ns", json_num(any ? run->point_ns : NAN));
	bad |= json_object_set_new(jr, "speedup", json_num(any && run->point_ns > 0 ?
						run->source_ns / run->point_ns : NAN));
	bad |= json_object_set_new(jr, "measured_ns", json_num(meas));
	bad |= json_object_set_new(jr, "projected_kernels",
				   json_integer((json_int_t)run->n_projected));
	bad |= json_object_set_new(jr, "unprojected_kernels",
				   json_integer((json_int_t)run->n_unprojected));
	bad |= json_object_set_new(jr, "unprojected_source_ns", json_num(run->unprojected_source_ns));
	bad |= json_object_set_new(jr, "interval_unseen_kernels",
				   json_integer((json_int_t)run->n_interval_unseen));
	bad |= json_object_set_new(jr, "fallback_kernels",
				   json_integer((json_int_t)run->n_fallback));
	bad |= json_object_set_new(jr, "assumed_kernels",
				   json_integer((json_int_t)run->n_assumed));
	bad |= json_object_set_new(jr, "coarse_kernels",
			    json_integer((json_int_t)(gpuproj_model_is_coarse(run->model)
						      ? run->n_projected
						      : run->n_fallback_sol)));
	bad |= json_object_set_new(jr, "kernels", json_stream_placeholder(0));
	if (run->whole.valid)
		bad |= json_object_set_new(jr, "whole_run", whole_run_json(&run->whole));
	if (bad) {
		json_decref(jr);
		return NULL;
	}
	return jr;
}

/* The words of a projection's assumptions (model.h enum gpuproj_assumption), as a JSON array. */
static json_t *
assumed_json(unsigned bits)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < GPUPROJ_ASSUME_COUNT; i++) {
		if ((bits & (1u << i)) &&
		    json_array_append_new(a, json_string(gpuproj_assumption_info(
						     (enum gpuproj_assumption)i)->word))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Kernel i of a run, as JSON. */
static json_t *
projection_json(const struct gpuproj_profile *p, const struct gpuproj_run_projection *run,
		size_t i, const struct gpuproj_target *src,
		const struct gpuproj_project_write_options *opt)
{
	static const char *const lv[GPUPROJ_HL_COUNT] = { "l1", "l2", "dram" };
	const struct gpuproj_projection *pr = &run->kernels[i];
	json_t *jk = json_object();
	int bad = !jk;

	if (bad)
		return NULL;
	bad |= json_object_set_new(jk, "kernel", json_integer((json_int_t)i));
	bad |= json_object_set_new(jk, "status",
				   json_string(pr->status == GPUPROJ_OK ? "ok" :
					       gpuproj_strerror(pr->status)));
	if (pr->status == GPUPROJ_OK) {
		json_t *lvl = json_object();
		int l;

		bad |= json_object_set_new(jk, "lo_ns", json_num(pr->lo_ns));
		bad |= json_object_set_new(jk, "hi_ns", json_num(pr->hi_ns));
		bad |= json_object_set_new(jk, "point_ns", json_num(pr->point_ns));
		bad |= json_object_set_new(jk, "level_lo_ns", json_num(pr->level_lo_ns));
		bad |= json_object_set_new(jk, "level_hi_ns", json_num(pr->level_hi_ns));
		bad |= json_object_set_new(jk, "interval", json_string(pr->calibrated
								? "calibrated" : "model"));
		if (pr->calibrated)
			bad |= json_object_set_new(jk, "interval_gpus", json_string(
				gpuproj_interval_gpus_name(pr->interval_gpus)));
		bad |= json_object_set_new(jk, "binding",
					   json_string(gpuproj_bound_name(pr->binding)));
		for (l = 0; l < GPUPROJ_HL_COUNT; l++)
			bad |= json_object_set_new(lvl, lv[l], json_num(pr->level_ns[l]));
		bad |= json_object_set_new(jk, "level_ns", lvl);
		bad |= json_object_set_new(jk, "flop_ratio", json_num(pr->flop_ratio));
		if (pr->note[0])
			bad |= json_object_set_new(jk, "note", json_string_lossy(pr->note));
		if (pr->assumed)
			bad |= json_object_set_new(jk, "assumed", assumed_json(pr->assumed));
		if (pr->fallback) {
			/* Projected in place of the run's model, which could not. */
			bad |= json_object_set_new(jk, "model", json_string(
				gpuproj_model_name(pr->fallback)));
			bad |= json_object_set_new(jk, "coarse", json_boolean(
				gpuproj_model_is_coarse(pr->fallback)));
			bad |= json_object_set_new(jk, "why_fallback", json_string_lossy(pr->why));
		}
		if (opt && opt->details)
			bad |= json_details(jk, run, pr->fallback ? pr->fallback : run->model,
					    gpuproj_profile_at(p, i), src);
	} else {
		bad |= json_object_set_new(jk, "why", json_string_lossy(pr->why));
	}
	if (bad) {
		json_decref(jk);
		return NULL;
	}
	return jk;
}

/* What the streamed report JSON's writers share. */
struct json_report {
	const struct gpuproj_profile *p;
	const struct gpuproj_target *src;
	const struct gpuproj_project_write_options *opt;
	gpuproj_project_provider_fn get;
	void *userdata;
	const struct gpuproj_run_projection *run; /* the run being written */
	bool mismatch;
	/* The runs' totals as they go by, then the order of the leading targets. */
	struct order_run *ord;
	size_t n_ord, n_pairs;
	const struct gpuproj_model *model;
	struct order_pair pairs[GPUPROJ_PROJECT_ORDER_LEADING];
};

/* The "order" array's length, once every run was written (json_stream_array.count). */
static size_t
order_count(void *userdata)
{
	struct json_report *jr = userdata;

	jr->n_pairs = jr->n_ord ? leading_order(jr->ord, jr->n_ord, jr->model, jr->opt, jr->pairs)
				: 0;
	return jr->n_pairs;
}

static int
order_write(FILE *f, void *userdata, size_t i, size_t indent)
{
	struct json_report *jr = userdata;
	const struct order_pair *op = &jr->pairs[i];
	json_t *v = json_object();
	int bad = !v, r;

	bad |= json_object_set_new(v, "faster", json_string(op->faster->name));
	bad |= json_object_set_new(v, "slower", json_string(op->slower->name));
	bad |= json_object_set_new(v, "p_holds", json_num(op->o.p_holds));
	bad |= json_object_set_new(v, "sigma", json_num(op->o.sigma));
	bad |= json_object_set_new(v, "n", json_integer((json_int_t)op->o.n));
	if (bad) {
		json_decref(v);
		return GPUPROJ_E_NOMEM;
	}
	r = json_stream_value(f, v, indent);
	json_decref(v);
	return r;
}

static int
projection_write(FILE *f, void *userdata, size_t i, size_t indent)
{
	struct json_report *jr = userdata;
	json_t *v = projection_json(jr->p, jr->run, i, jr->src, jr->opt);
	int r;

	if (!v)
		return GPUPROJ_E_NOMEM;
	r = json_stream_value(f, v, indent);
	json_decref(v);
	return r;
}

static int
run_write(FILE *f, void *userdata, size_t i, size_t indent)
{
	struct json_report *jr = userdata;
	struct json_stream_array ks;
	json_t *head;
	int st = GPUPROJ_OK;

	jr->run = jr->get(jr->userdata, i, &st);
	if (!jr->run)
		return st ? st : GPUPROJ_E_NOMEM;
	if (!runs_match(jr->p, jr->run, 1)) {
		jr->mismatch = true;
		return GPUPROJ_E_INVAL;
	}
	head = run_head_json(jr->p, jr->run);
	if (!head)
		return GPUPROJ_E_NOMEM;
	ks = (struct json_stream_array){ jr->run->n, projection_write, jr, NULL };
	jr->model = jr->run->model;
	if (jr->ord && order_run_take(jr->p, jr->run, jr->src, &jr->ord[jr->n_ord]))
		jr->n_ord++;
	st = json_stream(f, head, indent, &ks, 1);
	json_decref(head);
	return st;
}

/*
 * The profile and its projections as JSON into `f`, one kernel and one
 * run at a time (what json_text() of the whole tree would write).
 */
static int
json_report_write(FILE *f, const struct gpuproj_profile *p, const struct gpuproj_target *src,
		  size_t n_runs, gpuproj_project_provider_fn get, void *userdata,
		  const struct gpuproj_project_write_options *opt, struct gpuproj_error *reterr)
{
	struct gpuproj_error local = { 0 };
	struct json_report jr = { .p = p, .src = src, .opt = opt, .get = get,
				  .userdata = userdata };
	struct json_stream_array arrays[3];
	json_t *root;
	int r, bad = 0;

	jr.ord = calloc(n_runs ? n_runs : 1, sizeof(*jr.ord));
	if (!jr.ord)
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	root = profile_to_json_head(p, reterr ? reterr : &local);
	if (!root) {
		free(jr.ord);
		return reterr ? reterr->status : local.status;
	}
	bad |= json_object_set_new(root, "source_target",
				   src ? json_string(src->name) : json_null());
	/* Tensor work: the run's FLOP by where it runs (absent without tensor work). */
	{
		double cuda, tensor[GPUPROJ_TPREC_COUNT];

		if (gpuproj_profile_flop_mix(p, &cuda, tensor)) {
			json_t *mix = json_object(), *jt = json_object();
			int tp;

			bad |= json_object_set_new(mix, "cuda_flop", json_num(cuda));
			for (tp = 0; tp < GPUPROJ_TPREC_COUNT; tp++) {
				if (tensor[tp] > 0)
					bad |= json_object_set_new(jt, gpuproj_tensor_prec_name(tp),
								   json_num(tensor[tp]));
			}
			bad |= json_object_set_new(mix, "tensor_flop", jt);
			bad |= json_object_set_new(root, "flop_mix", mix);
		}
	}
	/* A provisional source (gpuproj_targets_derive()): say so, and from which sibling. */
	if (src && src->provisional) {
		bad |= json_object_set_new(root, "source_basis", json_string(src->provisional));
		bad |= json_object_set_new(root, "source_derived_from",
					   json_string(src->derived_from));
	}
	bad |= json_object_set_new(root, "projections", json_stream_placeholder(1));
	bad |= json_object_set_new(root, "order", json_stream_placeholder(2));
	if (bad) {
		json_decref(root);
		free(jr.ord);
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory encoding JSON");
	}
	arrays[0] = (struct json_stream_array){ gpuproj_profile_count(p), profile_kernel_write,
						(void *)p, NULL };
	arrays[1] = (struct json_stream_array){ n_runs, run_write, &jr, NULL };
	arrays[2] = (struct json_stream_array){ 0, order_write, &jr, order_count };
	r = json_stream(f, root, 0, arrays, 3);
	json_decref(root);
	free(jr.ord);
	if (!r && fputc('\n', f) == EOF)
		r = GPUPROJ_E_IO;
	if (r == GPUPROJ_E_INVAL && jr.mismatch)
		return error_set(reterr, r, NULL, 0, 0, "invalid argument: a projection does not "
				 "cover the profile's kernels");
	if (r == GPUPROJ_E_NOMEM)
		return error_set(reterr, r, NULL, 0, 0, "out of memory encoding JSON");
	if (r == GPUPROJ_E_IO)
		return error_set(reterr, r, NULL, 0, 0, "write error: %s", strerror(errno));
	if (r)
		return error_set(reterr, r, NULL, 0, 0, "%s", gpuproj_strerror(r));
	return GPUPROJ_OK;
}

int
gpuproj_project_json_stream(const char *path, const struct gpuproj_profile *p,
			    const struct gpuproj_target *src, size_t n_runs,
			    gpuproj_project_provider_fn get, void *userdata,
			    const struct gpuproj_project_write_options *opt,
			    struct gpuproj_error *reterr)
{
	struct file_tmp t;
	FILE *f;
	int r;

	if (!p || !path || (n_runs && !get))
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	if ((r = file_tmp_open(&t, path, 0, reterr)))
		return r;
	f = file_tmp_stream(&t);
	if (!f) {
		file_tmp_abort(&t);
		return error_set(reterr, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
	}
	r = json_report_write(f, p, src, n_runs, get, userdata, opt, reterr);
	if (r) {
		file_tmp_abort(&t);
		if (reterr && !reterr->file[0])
			snprintf(reterr->file, sizeof(reterr->file), "%s", path);
		return r;
	}
	return file_tmp_commit(&t, NULL, reterr);
}

int
gpuproj_project_json_ex(const char *path, const struct gpuproj_profile *p,
			const struct gpuproj_target *src, const struct gpuproj_run_projection *runs,
			size_t n_runs, const struct gpuproj_project_write_options *opt,
			struct gpuproj_error *reterr)
{
	struct run_array ra = { runs };

	if (!p || !runs_match(p, runs, n_runs))
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument: a "
				 "projection does not cover the profile's kernels");
	return gpuproj_project_json_stream(path, p, src, n_runs, run_array_get, &ra, opt, reterr);
}

int
gpuproj_project_json_text(const struct gpuproj_profile *p, const struct gpuproj_target *src,
			  const struct gpuproj_run_projection *runs, size_t n_runs,
			  const struct gpuproj_project_write_options *opt, char **ret_text,
			  struct gpuproj_error *reterr)
{
	struct run_array ra = { runs };
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!p || !runs_match(p, runs, n_runs))
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument: a "
				 "projection does not cover the profile's kernels");
	f = open_memstream(&text, &len);
	if (!f)
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory encoding JSON");
	r = json_report_write(f, p, src, n_runs, run_array_get, &ra, opt, reterr);
	if (fclose(f) != 0 && !r)
		r = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory encoding JSON");
	if (r) {
		free(text);
		return r;
	}
	*ret_text = text;
	return GPUPROJ_OK;
}
