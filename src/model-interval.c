/* SPDX-License-Identifier: MIT */
/*
 * Calibrated projection intervals (include/gpuproj/interval.h): fitting by
 * split-conformal shortest windows of measured/projected ratios, the
 * gpuproj-intervals/1 JSON, the built-in table and lookups. The method and
 * its sources are in the header.
 *
 * A loaded table resolves every (model, binding, class) of the models
 * gpuproj knows to its factors once, with the fallback of the header, so a
 * lookup is an array access (gpuproj_model_project() does one per
 * projection).
 *
 * Thread safety: tables are immutable after loading; the built-in one is
 * parsed under pthread_once.
 */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuproj/interval.h>

#include "model-private.h"
#include "util-escape.h"
#include "util.h"

#define N_BOUND (GPUPROJ_BOUND_LATENCY + 1)
#define ANY (-1)

/* One stored group: binding and class, or ANY for pooled. */
struct ivgroup {
	char *model;
	int binding;   /* enum gpuproj_bound or ANY */
	int cls;       /* 0 short, 1 long, ANY */
	size_t n;
	double lo, hi;
};

/*
 * A model's fitted GPUs, resolved once (finish()): the names of its
 * provenance's "gpus", sorted for bsearch(), borrowed from the provenance;
 * has = false when there is no such list.
 */
struct ivgpus {
	bool has;
	size_t n;
	const char **names;
};

/* A resolved lookup. */
struct ivfactor {
	bool has;
	size_t n;
	double lo, hi;
};

/* One stored order group (interval.h "Order of two targets"). */
struct ivorder {
	char *model;
	int same;      /* 1 same binding, 0 different, ANY */
	int cls;       /* 0 short, 1 long, ANY */
	size_t n;
	double sigma;
};

/* A resolved order lookup. */
struct ivsigma {
	bool has;
	size_t n;
	double sigma;
};

struct gpuproj_intervals {
	double coverage;
	size_t min_group;
	double short_ns;
	json_t *provenance;      /* object, owned */
	char *origin;
	struct ivgroup *groups;
	size_t n_groups;
	struct ivorder *orders;
	size_t n_orders;
	json_t *order_provenance; /* the "order" object's own "provenance", or NULL; owned */
	/* [model_index][same: 0, 1; 2 = pooled][class] */
	struct ivsigma (*order_resolved)[3][2];
	/* [model_index][binding][class] */
	struct ivfactor (*resolved)[N_BOUND][2];
	/* [model_index]: the "gpus" of the provenance describing its groups */
	struct ivgpus *gpus;
	size_t n_models;
};

/* The built-in table once parsed (gpuproj_intervals_builtin()). */
static struct gpuproj_intervals *builtin;

static const char *
class_name(int c)
{
	return c == 0 ? "short" : c == 1 ? "long" : "*";
}

struct gpuproj_intervals *
gpuproj_intervals_free(struct gpuproj_intervals *iv)
{
	size_t i;

	if (!iv || iv == builtin)
		return NULL;
	for (i = 0; i < iv->n_groups; i++)
		free(iv->groups[i].model);
	free(iv->groups);
	for (i = 0; i < iv->n_orders; i++)
		free(iv->orders[i].model);
	free(iv->orders);
	free(iv->order_resolved);
	json_decref(iv->order_provenance);
	for (i = 0; iv->gpus && i < iv->n_models; i++)
		free(iv->gpus[i].names);
	free(iv->gpus);
	free(iv->resolved);
	free(iv->origin);
	json_decref(iv->provenance);
	free(iv);
	return NULL;
}

static const struct ivgroup *
find_group(const struct gpuproj_intervals *iv, const char *model, int binding, int cls)
{
	size_t i;

	for (i = 0; i < iv->n_groups; i++) {
		const struct ivgroup *g = &iv->groups[i];

		if (g->binding == binding && g->cls == cls && strcmp(g->model, model) == 0)
			return g;
	}
	return NULL;
}

static const struct ivorder *
find_order(const struct gpuproj_intervals *iv, const char *model, int same, int cls)
{
	size_t i;

	for (i = 0; i < iv->n_orders; i++) {
		const struct ivorder *o = &iv->orders[i];

		if (o->same == same && o->cls == cls && strcmp(o->model, model) == 0)
			return o;
	}
	return NULL;
}

/*
 * Append the merged parts of the provenance to the origin line:
 * "; sol merged from a fit of DATE on INPUTS".
 */
static int
origin_merged(struct gpuproj_intervals *iv)
{
	json_t *merged = iv->provenance ? json_object_get(iv->provenance, "merged") : NULL;
	size_t i, j;

	for (i = 0; json_is_array(merged) && i < json_array_size(merged); i++) {
		json_t *e = json_array_get(merged, i), *models = json_object_get(e, "models");
		const char *created = json_string_value(json_object_get(e, "created"));
		const char *inputs = json_string_value(json_object_get(e, "inputs"));
		char *names = xstrdup(""), *next;

		for (j = 0; names && json_is_array(models) && j < json_array_size(models); j++) {
			const char *m = json_string_value(json_array_get(models, j));

			next = xasprintf("%s%s%s", names, j ? ", " : "", m ? m : "?");
			free(names);
			names = next;
		}
		next = names ? xasprintf("%s; %s merged from a fit of %s%s%s", iv->origin, names,
					 created ? created : "(no date)", inputs ? " on " : "",
					 inputs ? inputs : "")
			     : NULL;
		free(names);
		if (!next)
			return GPUPROJ_E_NOMEM;
		free(iv->origin);
		iv->origin = next;
	}
	return GPUPROJ_OK;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The provenance object describing a model's groups: its "merged" entry, else the top level. */
static json_t *
provenance_of(const struct gpuproj_intervals *iv, const char *model)
{
	json_t *merged = json_object_get(iv->provenance, "merged");
	size_t i, j;

	for (i = 0; json_is_array(merged) && i < json_array_size(merged); i++) {
		json_t *e = json_array_get(merged, i), *models = json_object_get(e, "models");

		for (j = 0; json_is_array(models) && j < json_array_size(models); j++) {
			const char *name = json_string_value(json_array_get(models, j));

			if (name && strcmp(name, model) == 0)
				return e;
		}
	}
	return iv->provenance;
}

/* Resolve a model's fitted GPUs (struct ivgpus); GPUPROJ_E_NOMEM or OK. */
static int
resolve_gpus(const struct gpuproj_intervals *iv, const char *model, struct ivgpus *out)
{
	json_t *gpus = iv->provenance
			       ? json_object_get(provenance_of(iv, model), "gpus")
			       : NULL;
	size_t i;

	if (!json_is_array(gpus))
		return GPUPROJ_OK;
	out->names = calloc(json_array_size(gpus) + 1, sizeof(*out->names));
	if (!out->names)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < json_array_size(gpus); i++) {
		const char *name = json_string_value(json_array_get(gpus, i));

		if (name) /* parse() refuses other entries; a fit writes only names */
			out->names[out->n++] = name;
	}
	qsort(out->names, out->n, sizeof(*out->names), cmp_str);
	out->has = true;
	return GPUPROJ_OK;
}

/* Resolve every known model's lookups and the origin line. */
static int
finish(struct gpuproj_intervals *iv)
{
	size_t m, b, c, n = model_index_count(), total = 0;
	const char *created = NULL, *split = NULL;
	json_t *corpora;

	iv->n_models = n;
	iv->resolved = calloc(n ? n : 1, sizeof(*iv->resolved));
	iv->order_resolved = calloc(n ? n : 1, sizeof(*iv->order_resolved));
	iv->gpus = calloc(n ? n : 1, sizeof(*iv->gpus));
	if (!iv->resolved || !iv->order_resolved || !iv->gpus)
		return GPUPROJ_E_NOMEM;
	for (m = 0; m < n; m++) {
		const char *name = gpuproj_model_name(model_at_index(m));

		if (resolve_gpus(iv, name, &iv->gpus[m]))
			return GPUPROJ_E_NOMEM;

		for (b = 0; b < N_BOUND; b++) {
			for (c = 0; c < 2; c++) {
				const struct ivgroup *g = find_group(iv, name, (int)b, (int)c);

				if (!g)
					g = find_group(iv, name, ANY, (int)c);
				if (!g)
					g = find_group(iv, name, ANY, ANY);
				if (!g)
					continue;
				iv->resolved[m][b][c] = (struct ivfactor){ true, g->n, g->lo, g->hi };
			}
		}
		for (b = 0; b < 3; b++) {
			for (c = 0; c < 2; c++) {
				const struct ivorder *o =
					b < 2 ? find_order(iv, name, (int)b, (int)c) : NULL;

				if (!o)
					o = find_order(iv, name, ANY, ANY);
				if (o)
					iv->order_resolved[m][b][c] =
						(struct ivsigma){ true, o->n, o->sigma };
			}
		}
	}
	for (m = 0; m < iv->n_groups; m++) {
		if (iv->groups[m].binding == ANY && iv->groups[m].cls == ANY)
			total += iv->groups[m].n;
	}
	if (iv->provenance) {
		created = json_string_value(json_object_get(iv->provenance, "created"));
		split = json_string_value(json_object_get(iv->provenance, "split"));
	}
	corpora = iv->provenance ? json_object_get(iv->provenance, "corpora") : NULL;
	iv->origin = xasprintf("%.0f %% intervals fitted %s on %s%s (%zu data set%s), %zu cases",
			       iv->coverage * 100, created ? created : "(no date)",
			       split ? split : "(no split given)", "",
			       json_is_array(corpora) ? json_array_size(corpora) : 0,
			       json_is_array(corpora) && json_array_size(corpora) == 1 ? "" : "s",
			       total);
	return iv->origin ? origin_merged(iv) : GPUPROJ_E_NOMEM;
}

bool
gpuproj_intervals_lookup(const struct gpuproj_intervals *iv, const struct gpuproj_model *m,
			 enum gpuproj_bound binding, double point_ns, double *ret_lo,
			 double *ret_hi, size_t *ret_n)
{
	const struct ivfactor *f;
	size_t mi;

	if (!iv || !m || (unsigned)binding >= N_BOUND)
		return false;
	mi = model_index(m);
	if (mi >= iv->n_models)
		return false;
	f = &iv->resolved[mi][binding][point_ns < iv->short_ns ? 0 : 1];
	if (!f->has)
		return false;
	if (ret_lo)
		*ret_lo = f->lo;
	if (ret_hi)
		*ret_hi = f->hi;
	if (ret_n)
		*ret_n = f->n;
	return true;
}

int
gpuproj_intervals_order(const struct gpuproj_intervals *iv, const struct gpuproj_model *m,
			double a_ns, enum gpuproj_bound a_binding, double b_ns,
			enum gpuproj_bound b_binding, struct gpuproj_order *ret,
			struct gpuproj_error *reterr)
{
	const struct ivsigma *f;
	size_t mi, same;

	if (!iv || !m || !ret || !(a_ns > 0) || !(b_ns > 0) || !isfinite(a_ns) ||
	    !isfinite(b_ns) || (unsigned)a_binding > GPUPROJ_BOUND_UNKNOWN ||
	    (unsigned)b_binding > GPUPROJ_BOUND_UNKNOWN)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	mi = model_index(m);
	/* A binding not known (none, unknown): the pooled group. */
	if (a_binding == GPUPROJ_BOUND_NONE || b_binding == GPUPROJ_BOUND_NONE ||
	    a_binding == GPUPROJ_BOUND_UNKNOWN || b_binding == GPUPROJ_BOUND_UNKNOWN)
		same = 2;
	else
		same = a_binding == b_binding;
	f = mi < iv->n_models
		    ? &iv->order_resolved[mi][same][fmin(a_ns, b_ns) < iv->short_ns ? 0 : 1]
		    : NULL;
	if (!f || !f->has)
		return error_set(reterr, GPUPROJ_E_UNSUPPORTED, NULL, 0, 0,
				 "the intervals have no order of two targets for model %s",
				 gpuproj_model_name(m));
	ret->sigma = f->sigma;
	ret->n = f->n;
	ret->faster = a_ns < b_ns ? 0 : b_ns < a_ns ? 1 : -1;
	/* Φ(x) = erfc(−x/√2)/2 */
	ret->p_holds = 0.5 * erfc(-fabs(log(a_ns / b_ns)) / f->sigma / sqrt(2.0));
	return GPUPROJ_OK;
}

double
gpuproj_intervals_coverage(const struct gpuproj_intervals *iv)
{
	return iv ? iv->coverage : NAN;
}

const char *
gpuproj_intervals_origin(const struct gpuproj_intervals *iv)
{
	return iv ? iv->origin : NULL;
}

int
gpuproj_intervals_gpu_fitted(const struct gpuproj_intervals *iv, const struct gpuproj_model *m,
			     const char *gpu)
{
	const struct ivgpus *g;
	size_t mi;

	if (!iv || !m || !gpu)
		return -1;
	mi = model_index(m);
	if (mi >= iv->n_models || !iv->gpus[mi].has)
		return -1;
	g = &iv->gpus[mi];
	return bsearch(&gpu, g->names, g->n, sizeof(*g->names), cmp_str) ? 1 : 0;
}

/* ---- fitting ---- */

/* The shortest window of k = ⌈(n+1)c⌉ sorted ratios (model-private.h). */
void
interval_shortest_window(double *r, size_t n, double c, double *lo, double *hi)
{
	size_t k, j, best = 0;
	double w = INFINITY;

	qsort(r, n, sizeof(*r), cmp_double);
	k = (size_t)ceil((double)(n + 1) * c - 1e-9);
	if (k > n)
		k = n;
	if (k < 1)
		k = 1;
	for (j = 0; j + k <= n; j++) {
		if (r[j + k - 1] - r[j] < w) {
			w = r[j + k - 1] - r[j];
			best = j;
		}
	}
	*lo = r[best];
	*hi = r[best + k - 1];
}

static int
add_group(struct gpuproj_intervals *iv, const char *model, int binding, int cls, double *r,
	  size_t n)
{
	struct ivgroup *g;
	void *a;

	if (n == 0)
		return GPUPROJ_OK;
	a = realloc(iv->groups, (iv->n_groups + 1) * sizeof(*iv->groups));
	if (!a)
		return GPUPROJ_E_NOMEM;
	iv->groups = a;
	g = &iv->groups[iv->n_groups];
	g->model = xstrdup(model);
	if (!g->model)
		return GPUPROJ_E_NOMEM;
	g->binding = binding;
	g->cls = cls;
	g->n = n;
	interval_shortest_window(r, n, iv->coverage, &g->lo, &g->hi);
	iv->n_groups++;
	return GPUPROJ_OK;
}

/*
 * The sorted, distinct source and target GPU names of the cases with a
 * usable time (as the fit uses them), as a JSON array; NULL: out of memory.
 */
static json_t *
fitted_gpus(const struct gpuproj_interval_sample *s, size_t n)
{
	const char **names = calloc(2 * n + 1, sizeof(*names));
	json_t *arr = json_array();
	size_t i, k = 0;
	int bad = !names || !arr;

	for (i = 0; !bad && i < n; i++) {
		if (!(s[i].point_ns > 0) || !(s[i].measured_ns > 0) || !isfinite(s[i].point_ns) ||
		    !isfinite(s[i].measured_ns))
			continue;
		if (s[i].source_gpu)
			names[k++] = s[i].source_gpu;
		if (s[i].target_gpu)
			names[k++] = s[i].target_gpu;
	}
	if (!bad)
		qsort(names, k, sizeof(*names), cmp_str);
	for (i = 0; !bad && i < k; i++) {
		if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
			bad |= json_array_append_new(arr, json_string_lossy(names[i]));
	}
	free(names);
	if (bad) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

static bool
usable(const struct gpuproj_interval_sample *x)
{
	return x->point_ns > 0 && x->measured_ns > 0 && isfinite(x->point_ns) &&
	       isfinite(x->measured_ns);
}

/* A case's key for pairing: cases of one model, set and source sort together. */
struct setkey {
	size_t model;
	uintptr_t set;
	const char *source; /* "" when not known */
	const struct gpuproj_interval_sample *x;
};

static int
cmp_set(const void *pa, const void *pb)
{
	const struct setkey *a = pa, *b = pb;
	int c;

	if (a->model != b->model)
		return a->model < b->model ? -1 : 1;
	if (a->set != b->set)
		return a->set < b->set ? -1 : 1;
	c = strcmp(a->source, b->source);
	if (c)
		return c;
	return a->x < b->x ? -1 : a->x > b->x;
}

static bool
same_set(const struct setkey *a, const struct setkey *b)
{
	return a->model == b->model && a->set == b->set && strcmp(a->source, b->source) == 0;
}

static int
add_order(struct gpuproj_intervals *iv, const char *model, int same, int cls, double sum,
	  size_t n)
{
	struct ivorder *o;
	void *a = realloc(iv->orders, (iv->n_orders + 1) * sizeof(*iv->orders));

	if (!a)
		return GPUPROJ_E_NOMEM;
	iv->orders = a;
	o = &iv->orders[iv->n_orders];
	o->model = xstrdup(model);
	if (!o->model)
		return GPUPROJ_E_NOMEM;
	o->same = same;
	o->cls = cls;
	o->n = n;
	o->sigma = sqrt(sum / (double)n);
	iv->n_orders++;
	return GPUPROJ_OK;
}

/*
 * The order groups (interval.h "Order of two targets"): every pair of
 * usable cases of one model, set and source, each unordered pair once.
 * Per model (model-index order) the pooled group, then (same, class)
 * groups of at least min_group pairs. A group whose d are all 0 would
 * have σ = 0, which the lookup divides by: it is left out.
 */
static int
fit_orders(struct gpuproj_intervals *iv, const struct gpuproj_interval_sample *s, size_t n)
{
	size_t nm = model_index_count(), k = 0, i, j, a, e, m;
	struct setkey *idx;
	double (*sum)[3][3];
	size_t (*cnt)[3][3];
	int st = GPUPROJ_OK, b, c;

	idx = calloc(n ? n : 1, sizeof(*idx));
	sum = calloc(nm ? nm : 1, sizeof(*sum));
	cnt = calloc(nm ? nm : 1, sizeof(*cnt));
	if (!idx || !sum || !cnt) {
		st = GPUPROJ_E_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (s[i].set && s[i].model && usable(&s[i]) && model_index(s[i].model) < nm)
			idx[k++] = (struct setkey){ model_index(s[i].model), (uintptr_t)s[i].set,
						    s[i].source_gpu ? s[i].source_gpu : "", &s[i] };
	}
	qsort(idx, k, sizeof(*idx), cmp_set);
	for (i = 0; i < k; i = e) {
		for (e = i + 1; e < k && same_set(&idx[i], &idx[e]); e++)
			;
		m = idx[i].model;
		for (a = i; a < e; a++) {
			for (j = a + 1; j < e; j++) {
				const struct gpuproj_interval_sample *p = idx[a].x, *q = idx[j].x;
				double d = log(p->measured_ns / p->point_ns) -
					   log(q->measured_ns / q->point_ns);
				int same = p->binding == q->binding;
				int cl = fmin(p->point_ns, q->point_ns) < iv->short_ns ? 0 : 1;

				/* Two cases of one target are not two targets. */
				if (p->target_gpu && q->target_gpu &&
				    strcmp(p->target_gpu, q->target_gpu) == 0)
					continue;
				sum[m][same][cl] += d * d;
				cnt[m][same][cl]++;
				sum[m][2][2] += d * d;
				cnt[m][2][2]++;
			}
		}
	}
	for (m = 0; m < nm && !st; m++) {
		const char *name = gpuproj_model_name(model_at_index(m));

		if (cnt[m][2][2] && sum[m][2][2] > 0)
			st = add_order(iv, name, ANY, ANY, sum[m][2][2], cnt[m][2][2]);
		for (b = 1; b >= 0 && !st; b--) {
			for (c = 0; c < 2 && !st; c++) {
				if (cnt[m][b][c] >= iv->min_group && sum[m][b][c] > 0)
					st = add_order(iv, name, b, c, sum[m][b][c], cnt[m][b][c]);
			}
		}
	}
out:
	free(idx);
	free(sum);
	free(cnt);
	return st;
}

static void
now_utc(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int
gpuproj_intervals_fit(const struct gpuproj_interval_sample *s, size_t n, double coverage,
		      const struct gpuproj_intervals_provenance *prov,
		      struct gpuproj_intervals **ret, struct gpuproj_error *reterr)
{
	struct gpuproj_intervals *iv = NULL;
	double *r = NULL;
	size_t nm = model_index_count(), m, i, cnt, used = 0;
	int b, c, st = GPUPROJ_E_NOMEM;
	char when[32];

	if (!ret || coverage >= 1 || (n && !s))
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	if (!(coverage > 0))
		coverage = GPUPROJ_INTERVALS_DEFAULT_COVERAGE;
	iv = calloc(1, sizeof(*iv));
	r = calloc(n ? n : 1, sizeof(*r));
	if (!iv || !r)
		goto fail;
	iv->coverage = coverage;
	iv->min_group = GPUPROJ_INTERVALS_MIN_GROUP;
	iv->short_ns = GPUPROJ_INTERVALS_SHORT_NS;
	for (m = 0; m < nm; m++) {
		const struct gpuproj_model *model = model_at_index(m);

		/* Per binding and class, then pooled over bindings, then over all. */
		for (b = ANY; b < N_BOUND; b++) {
			for (c = ANY; c < 2; c++) {
				if (b != ANY && c == ANY)
					continue;
				for (i = 0, cnt = 0; i < n; i++) {
					const struct gpuproj_interval_sample *x = &s[i];

					if (x->model != model || !(x->point_ns > 0) ||
					    !(x->measured_ns > 0) || !isfinite(x->point_ns) ||
					    !isfinite(x->measured_ns))
						continue;
					if (b != ANY && (int)x->binding != b)
						continue;
					if (c != ANY &&
					    (x->point_ns < iv->short_ns ? 0 : 1) != c)
						continue;
					r[cnt++] = x->measured_ns / x->point_ns;
				}
				if (b == ANY && c == ANY)
					used += cnt;
				if (cnt < iv->min_group && !(b == ANY && c == ANY))
					continue;
				if (add_group(iv, gpuproj_model_name(model), b, c, r, cnt))
					goto fail;
			}
		}
	}
	if (used == 0) {
		st = error_set(reterr, GPUPROJ_E_UNSUPPORTED, NULL, 0, 0,
			       "no comparison to fit intervals on");
		goto fail_set;
	}
	if (fit_orders(iv, s, n))
		goto fail;
	iv->provenance = json_object();
	if (!iv->provenance)
		goto fail;
	if (prov && prov->created)
		snprintf(when, sizeof(when), "%s", prov->created);
	else
		now_utc(when, sizeof(when));
	{
		json_t *corp = json_array();
		int bad = !corp;

		for (i = 0; prov && i < prov->n_corpora; i++)
			bad |= json_array_append_new(corp, json_string_lossy(prov->corpora[i]));
		bad |= json_object_set_new(iv->provenance, "corpora", corp);
		bad |= json_object_set_new(iv->provenance, "split",
					   json_string_lossy(prov && prov->split ? prov->split
										 : "all comparisons"));
		if (prov && prov->inputs)
			bad |= json_object_set_new(iv->provenance, "inputs",
						   json_string_lossy(prov->inputs));
		bad |= json_object_set_new(iv->provenance, "targets",
					   json_str_or_null(prov ? prov->targets : NULL));
		bad |= json_object_set_new(iv->provenance, "created", json_string_lossy(when));
		bad |= json_object_set_new(iv->provenance, "tool",
					   json_string("gpuproj " GPUPROJ_VERSION));
		bad |= json_object_set_new(iv->provenance, "n", json_integer((json_int_t)used));
		bad |= json_object_set_new(iv->provenance, "gpus", fitted_gpus(s, n));
		if (prov && prov->command)
			bad |= json_object_set_new(iv->provenance, "command",
						   json_string_lossy(prov->command));
		if (bad)
			goto fail;
	}
	if (finish(iv))
		goto fail;
	free(r);
	*ret = iv;
	return GPUPROJ_OK;
fail:
	st = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
fail_set:
	free(r);
	gpuproj_intervals_free(iv);
	return st;
}

/* ---- merging ---- */

static bool
has_model(const struct gpuproj_intervals *iv, const char *model)
{
	size_t i;

	for (i = 0; i < iv->n_groups; i++) {
		if (strcmp(iv->groups[i].model, model) == 0)
			return true;
	}
	return false;
}

static bool
has_order_model(const struct gpuproj_intervals *iv, const char *model)
{
	size_t i;

	for (i = 0; i < iv->n_orders; i++) {
		if (strcmp(iv->orders[i].model, model) == 0)
			return true;
	}
	return false;
}

static int
copy_order(struct gpuproj_intervals *iv, const struct ivorder *o)
{
	struct ivorder *d = &iv->orders[iv->n_orders];

	*d = *o;
	d->model = xstrdup(o->model);
	if (!d->model)
		return GPUPROJ_E_NOMEM;
	iv->n_orders++;
	return GPUPROJ_OK;
}

static int
copy_group(struct gpuproj_intervals *iv, const struct ivgroup *g)
{
	struct ivgroup *d = &iv->groups[iv->n_groups];

	*d = *g;
	d->model = xstrdup(g->model);
	if (!d->model)
		return GPUPROJ_E_NOMEM;
	iv->n_groups++;
	return GPUPROJ_OK;
}

/* The provenance of a merge (interval.h): base's, its "merged" less add's models, then add's. */
static json_t *
merged_provenance(const struct gpuproj_intervals *base, const struct gpuproj_intervals *add)
{
	json_t *prov = base->provenance ? json_deep_copy(base->provenance) : json_object();
	json_t *old, *merged = json_array(), *entry = json_object(), *models = json_array();
	const char *key;
	json_t *value;
	size_t i, j;

	if (!prov || !merged || !entry || !models)
		goto fail;
	old = json_object_get(prov, "merged");
	for (i = 0; json_is_array(old) && i < json_array_size(old); i++) {
		json_t *e = json_deep_copy(json_array_get(old, i));
		json_t *ms = json_object_get(e, "models");

		if (!e)
			goto fail;
		for (j = json_is_array(ms) ? json_array_size(ms) : 0; j-- > 0;) {
			const char *m = json_string_value(json_array_get(ms, j));

			if (m && has_model(add, m))
				json_array_remove(ms, j);
		}
		if (json_is_array(ms) && json_array_size(ms) == 0)
			json_decref(e);
		else if (json_array_append_new(merged, e))
			goto fail;
	}
	for (i = 0; i < add->n_groups; i++) {
		const char *m = add->groups[i].model;

		for (j = 0; j < i && strcmp(add->groups[j].model, m) != 0; j++)
			;
		if (j == i && json_array_append_new(models, json_string_lossy(m)))
			goto fail;
	}
	if (json_object_set(entry, "models", models))
		goto fail;
	if (add->provenance) {
		json_object_foreach(add->provenance, key, value)
		{
			if (strcmp(key, "models") != 0 && strcmp(key, "merged") != 0)
				if (json_object_set(entry, key, value))
					goto fail;
		}
	}
	if (json_array_append(merged, entry) || json_object_set(prov, "merged", merged))
		goto fail;
	json_decref(entry);
	json_decref(models);
	json_decref(merged);
	return prov;
fail:
	json_decref(prov);
	json_decref(merged);
	json_decref(entry);
	json_decref(models);
	return NULL;
}

int
gpuproj_intervals_merge(const struct gpuproj_intervals *base, const struct gpuproj_intervals *add,
			struct gpuproj_intervals **ret, struct gpuproj_error *reterr)
{
	struct gpuproj_intervals *iv;
	size_t i;

	if (!base || !add || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	if (base->coverage != add->coverage)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "cannot merge intervals fitted for %g coverage into a table "
				 "fitted for %g", add->coverage, base->coverage);
	if (base->min_group != add->min_group || base->short_ns != add->short_ns)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "cannot merge: the tables differ in %s (%g and %g)",
				 base->min_group != add->min_group ? "min_group" : "short_ns",
				 base->min_group != add->min_group ? (double)base->min_group
								   : base->short_ns,
				 base->min_group != add->min_group ? (double)add->min_group
								   : add->short_ns);
	iv = calloc(1, sizeof(*iv));
	if (!iv)
		goto nomem;
	iv->coverage = base->coverage;
	iv->min_group = base->min_group;
	iv->short_ns = base->short_ns;
	iv->groups = calloc(base->n_groups + add->n_groups + 1, sizeof(*iv->groups));
	if (!iv->groups)
		goto nomem;
	for (i = 0; i < base->n_groups; i++) {
		if (!has_model(add, base->groups[i].model) && copy_group(iv, &base->groups[i]))
			goto nomem;
	}
	for (i = 0; i < add->n_groups; i++) {
		if (copy_group(iv, &add->groups[i]))
			goto nomem;
	}
	iv->orders = calloc(base->n_orders + add->n_orders + 1, sizeof(*iv->orders));
	if (!iv->orders)
		goto nomem;
	for (i = 0; i < base->n_orders; i++) {
		/* A model add has groups of any kind for is add's alone (its provenance). */
		if (!has_order_model(add, base->orders[i].model) &&
		    !has_model(add, base->orders[i].model) && copy_order(iv, &base->orders[i]))
			goto nomem;
	}
	for (i = 0; i < add->n_orders; i++) {
		if (copy_order(iv, &add->orders[i]))
			goto nomem;
	}
	/* The order's own provenance: base's (add's groups are in add's "merged" entry). */
	if (base->order_provenance &&
	    !(iv->order_provenance = json_deep_copy(base->order_provenance)))
		goto nomem;
	iv->provenance = merged_provenance(base, add);
	if (!iv->provenance || finish(iv))
		goto nomem;
	*ret = iv;
	return GPUPROJ_OK;
nomem:
	gpuproj_intervals_free(iv);
	return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
}

/* ---- JSON ---- */

static const char *const bound_names[N_BOUND] = {
	[GPUPROJ_BOUND_NONE] = "none", [GPUPROJ_BOUND_L1] = "l1", [GPUPROJ_BOUND_L2] = "l2",
	[GPUPROJ_BOUND_DRAM] = "dram", [GPUPROJ_BOUND_COMPUTE] = "compute",
	[GPUPROJ_BOUND_SHARED] = "shared", [GPUPROJ_BOUND_INSTRUCTION] = "instruction",
	[GPUPROJ_BOUND_OCCUPANCY] = "occupancy", [GPUPROJ_BOUND_LATENCY] = "latency",
};

static json_t *
to_json(const struct gpuproj_intervals *iv)
{
	json_t *root = json_object(), *groups = json_array();
	size_t i;
	int bad = 0;

	if (!root || !groups) {
		json_decref(root);
		json_decref(groups);
		return NULL;
	}
	bad |= json_object_set_new(root, "schema", json_string(GPUPROJ_INTERVALS_SCHEMA));
	bad |= json_object_set_new(
		root, "method",
		json_string("split-conformal: per model, binding resource and class "
			    "(projected point < short_ns: short), the shortest window of "
			    "k = ceil((n+1)*coverage) sorted ratios measured/projected; "
			    "interval = [point*lo, point*hi]; groups with fewer than "
			    "min_group cases fall back to the model's pooled ones "
			    "(binding '*', then class '*')"));
	bad |= json_object_set_new(root, "coverage", json_real(iv->coverage));
	bad |= json_object_set_new(root, "min_group", json_integer((json_int_t)iv->min_group));
	bad |= json_object_set_new(root, "short_ns", json_real(iv->short_ns));
	bad |= json_object_set_new(root, "provenance",
				   iv->provenance ? json_deep_copy(iv->provenance) : json_object());
	for (i = 0; i < iv->n_groups; i++) {
		const struct ivgroup *g = &iv->groups[i];
		json_t *o = json_object();

		bad |= !o;
		bad |= json_object_set_new(o, "model", json_string_lossy(g->model));
		bad |= json_object_set_new(o, "binding",
					   json_string(g->binding == ANY ? "*" : bound_names[g->binding]));
		bad |= json_object_set_new(o, "class", json_string(class_name(g->cls)));
		bad |= json_object_set_new(o, "n", json_integer((json_int_t)g->n));
		bad |= json_object_set_new(o, "lo", json_real(g->lo));
		bad |= json_object_set_new(o, "hi", json_real(g->hi));
		bad |= json_array_append_new(groups, o);
	}
	if (bad) {
		json_decref(root);
		json_decref(groups);
		return NULL;
	}
	if (json_object_set_new(root, "groups", groups)) {
		json_decref(root);
		return NULL;
	}
	if (iv->n_orders) {
		json_t *order = json_object(), *og = json_array();

		bad |= !order || !og;
		bad |= json_object_set_new(
			order, "method",
			json_string("per model, the root mean square sigma of "
				    "d = log(measured_A/point_A) - log(measured_B/point_B) over "
				    "every pair of targets A, B of one kernel projected from one "
				    "source, by whether A and B have the same binding and class "
				    "(either point < short_ns: short); groups under min_group "
				    "pairs "
				    "fall back to the model's pooled one; P(projected order holds) "
				    "= Phi(|log(point_A/point_B)|/sigma)"));
		for (i = 0; !bad && i < iv->n_orders; i++) {
			const struct ivorder *o = &iv->orders[i];
			json_t *e = json_object();

			bad |= !e;
			bad |= json_object_set_new(e, "model", json_string_lossy(o->model));
			bad |= json_object_set_new(e, "bindings",
						   json_string(o->same == ANY ? "*"
							       : o->same ? "same" : "different"));
			bad |= json_object_set_new(e, "class", json_string(class_name(o->cls)));
			bad |= json_object_set_new(e, "n", json_integer((json_int_t)o->n));
			bad |= json_object_set_new(e, "sigma", json_real(o->sigma));
			bad |= json_array_append_new(og, e);
		}
		if (iv->order_provenance)
			bad |= json_object_set_new(order, "provenance",
						   json_deep_copy(iv->order_provenance));
		bad |= json_object_set_new(order, "groups", og);
		bad |= json_object_set_new(root, "order", order);
		if (bad) {
			json_decref(root);
			return NULL;
		}
	}
	return root;
}

int
gpuproj_intervals_save(const struct gpuproj_intervals *iv, const char *path,
		       struct gpuproj_error *reterr)
{
	json_t *root;
	int st;

	if (!iv || !path)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	root = to_json(iv);
	if (!root)
		return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	st = json_save_atomic(root, path, reterr);
	json_decref(root);
	return st;
}

/* "'FIELD' WHAT" naming the field: "coverage" or "groups[3].lo" (index ≥ 0). */
static int
schema_error(struct gpuproj_error *err, const char *name, const char *what, const char *field,
	     long index)
{
	char where[96];

	if (index < 0)
		snprintf(where, sizeof(where), "%s", field);
	else
		snprintf(where, sizeof(where), "groups[%ld]%s%s", index, *field ? "." : "", field);
	return error_set(err, GPUPROJ_E_SCHEMA, name, 0, 0, "'%s' %s", where, what);
}

/* A provenance object's optional "gpus": an array of strings. */
static int
check_gpus(json_t *prov, const char *name, const char *field, struct gpuproj_error *err)
{
	json_t *gpus = json_object_get(prov, "gpus");
	size_t i;

	if (!gpus)
		return GPUPROJ_OK;
	for (i = 0; json_is_array(gpus) && i < json_array_size(gpus); i++) {
		if (!json_is_string(json_array_get(gpus, i)))
			break;
	}
	if (!json_is_array(gpus) || i < json_array_size(gpus))
		return schema_error(err, name, "must be an array of GPU names (strings)", field, -1);
	return GPUPROJ_OK;
}

/* "'order.groups[I].FIELD' WHAT" (I ≥ 0), else "'order.FIELD' WHAT". */
static int
order_error(struct gpuproj_error *err, const char *name, const char *what, const char *field,
	    long index)
{
	char where[96];

	if (index < 0)
		snprintf(where, sizeof(where), "order%s%s", *field ? "." : "", field);
	else
		snprintf(where, sizeof(where), "order.groups[%ld]%s%s", index, *field ? "." : "",
			 field);
	return error_set(err, GPUPROJ_E_SCHEMA, name, 0, 0, "'%s' %s", where, what);
}

/* The optional "order" object (interval.h "Order of two targets"). */
static int
parse_order(json_t *order, const char *name, struct gpuproj_intervals *iv,
	    struct gpuproj_error *err)
{
	json_t *groups, *v;
	size_t i;

	if (!order)
		return GPUPROJ_OK;
	if (!json_is_object(order))
		return order_error(err, name, "must be an object", "", -1);
	v = json_object_get(order, "provenance");
	if (v && !json_is_object(v))
		return order_error(err, name, "must be an object", "provenance", -1);
	if (v && !(iv->order_provenance = json_deep_copy(v)))
		return error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
	groups = json_object_get(order, "groups");
	if (!json_is_array(groups))
		return order_error(err, name, "must be an array", "groups", -1);
	iv->orders = calloc(json_array_size(groups) + 1, sizeof(*iv->orders));
	if (!iv->orders)
		return error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
	for (i = 0; i < json_array_size(groups); i++) {
		json_t *o = json_array_get(groups, i);
		struct ivorder *g = &iv->orders[i];
		const char *s;

		if (!json_is_object(o))
			return order_error(err, name, "must be an object", "", (long)i);
		s = json_string_value(json_object_get(o, "model"));
		if (!s || !*s)
			return order_error(err, name, "must be a model name", "model", (long)i);
		g->model = xstrdup(s);
		if (!g->model)
			return error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
		iv->n_orders++;
		s = json_string_value(json_object_get(o, "bindings"));
		g->same = !s ? -2 : strcmp(s, "same") == 0 ? 1 : strcmp(s, "different") == 0 ? 0
						  : strcmp(s, "*") == 0 ? ANY : -2;
		if (g->same == -2)
			return order_error(err, name, "must be \"same\", \"different\" or \"*\"",
					   "bindings", (long)i);
		s = json_string_value(json_object_get(o, "class"));
		g->cls = !s ? -2 : strcmp(s, "short") == 0 ? 0 : strcmp(s, "long") == 0 ? 1
						      : strcmp(s, "*") == 0 ? ANY : -2;
		if (g->cls == -2)
			return order_error(err, name, "must be \"short\", \"long\" or \"*\"",
					   "class", (long)i);
		if ((g->same == ANY) != (g->cls == ANY))
			return order_error(err, name, "must be \"*\" exactly when 'bindings' is",
					   "class", (long)i);
		v = json_object_get(o, "n");
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			return order_error(err, name, "must be a positive integer", "n", (long)i);
		g->n = (size_t)json_integer_value(v);
		v = json_object_get(o, "sigma");
		g->sigma = json_number_value(v);
		if (!json_is_number(v) || !(g->sigma > 0) || !isfinite(g->sigma))
			return order_error(err, name, "must be a positive number", "sigma",
					   (long)i);
	}
	return GPUPROJ_OK;
}

static int
parse(json_t *root, const char *name, struct gpuproj_intervals **ret, struct gpuproj_error *err)
{
	struct gpuproj_intervals *iv;
	json_t *v, *groups;
	size_t i;
	int st;

	if (!json_is_object(root))
		return error_set(err, GPUPROJ_E_SCHEMA, name, 0, 0, "not a JSON object");
	v = json_object_get(root, "schema");
	if (!json_is_string(v) || strcmp(json_string_value(v), GPUPROJ_INTERVALS_SCHEMA) != 0)
		return error_set(err, GPUPROJ_E_SCHEMA, name, 0, 0,
				 "'schema' must be \"%s\"", GPUPROJ_INTERVALS_SCHEMA);
	iv = calloc(1, sizeof(*iv));
	if (!iv)
		return error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
	iv->coverage = json_number_value(json_object_get(root, "coverage"));
	if (!json_is_number(json_object_get(root, "coverage")) || !(iv->coverage > 0) ||
	    !(iv->coverage < 1)) {
		st = schema_error(err, name, "must be a number in (0, 1)", "coverage", -1);
		goto fail;
	}
	v = json_object_get(root, "min_group");
	iv->min_group = json_is_integer(v) && json_integer_value(v) > 0
				? (size_t)json_integer_value(v)
				: GPUPROJ_INTERVALS_MIN_GROUP;
	v = json_object_get(root, "short_ns");
	iv->short_ns = json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v)
								      : GPUPROJ_INTERVALS_SHORT_NS;
	v = json_object_get(root, "provenance");
	if (!json_is_object(v)) {
		st = schema_error(err, name, "must be an object", "provenance", -1);
		goto fail;
	}
	if ((st = check_gpus(v, name, "provenance.gpus", err)))
		goto fail;
	{
		json_t *merged = json_object_get(v, "merged");
		char field[64];

		for (i = 0; json_is_array(merged) && i < json_array_size(merged); i++) {
			snprintf(field, sizeof(field), "provenance.merged[%zu].gpus", i);
			if ((st = check_gpus(json_array_get(merged, i), name, field, err)))
				goto fail;
		}
	}
	iv->provenance = json_deep_copy(v);
	groups = json_object_get(root, "groups");
	if (!json_is_array(groups)) {
		st = schema_error(err, name, "must be an array", "groups", -1);
		goto fail;
	}
	iv->groups = calloc(json_array_size(groups) + 1, sizeof(*iv->groups));
	if (!iv->groups || !iv->provenance)
		goto nomem;
	for (i = 0; i < json_array_size(groups); i++) {
		json_t *o = json_array_get(groups, i);
		struct ivgroup *g = &iv->groups[i];
		const char *s;
		int b;

		if (!json_is_object(o)) {
			st = schema_error(err, name, "must be an object", "", (long)i);
			goto fail;
		}
		s = json_string_value(json_object_get(o, "model"));
		if (!s || !*s) {
			st = schema_error(err, name, "must be a model name", "model", (long)i);
			goto fail;
		}
		g->model = xstrdup(s);
		if (!g->model)
			goto nomem;
		iv->n_groups++;
		s = json_string_value(json_object_get(o, "binding"));
		g->binding = -2;
		if (s && strcmp(s, "*") == 0)
			g->binding = ANY;
		for (b = 0; s && b < N_BOUND; b++) {
			if (strcmp(s, bound_names[b]) == 0)
				g->binding = b;
		}
		if (g->binding == -2) {
			st = schema_error(err, name, "must be a binding resource or \"*\"",
					  "binding", (long)i);
			goto fail;
		}
		s = json_string_value(json_object_get(o, "class"));
		g->cls = !s ? -2 : strcmp(s, "short") == 0 ? 0 : strcmp(s, "long") == 0 ? 1
						      : strcmp(s, "*") == 0 ? ANY : -2;
		if (g->cls == -2) {
			st = schema_error(err, name, "must be \"short\", \"long\" or \"*\"",
					  "class", (long)i);
			goto fail;
		}
		v = json_object_get(o, "n");
		if (!json_is_integer(v) || json_integer_value(v) < 1) {
			st = schema_error(err, name, "must be a positive integer", "n", (long)i);
			goto fail;
		}
		g->n = (size_t)json_integer_value(v);
		g->lo = json_number_value(json_object_get(o, "lo"));
		g->hi = json_number_value(json_object_get(o, "hi"));
		if (!json_is_number(json_object_get(o, "lo")) || !(g->lo > 0) || !isfinite(g->lo)) {
			st = schema_error(err, name, "must be a positive number", "lo", (long)i);
			goto fail;
		}
		if (!json_is_number(json_object_get(o, "hi")) || !(g->hi >= g->lo) ||
		    !isfinite(g->hi)) {
			st = schema_error(err, name, "must be a number at least 'lo'", "hi", (long)i);
			goto fail;
		}
	}
	if ((st = parse_order(json_object_get(root, "order"), name, iv, err)))
		goto fail;
	if (finish(iv))
		goto nomem;
	*ret = iv;
	return GPUPROJ_OK;
nomem:
	st = error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
fail:
	gpuproj_intervals_free(iv);
	return st;
}

int
gpuproj_intervals_load_buffer(const char *text, size_t len, const char *name,
			      struct gpuproj_intervals **ret, struct gpuproj_error *reterr)
{
	json_error_t je;
	json_t *root;
	int st;

	if (!text || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, name, 0, 0, "invalid argument");
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return error_set(reterr, GPUPROJ_E_PARSE, name, je.line, je.column, "%s", je.text);
	st = parse(root, name, ret, reterr);
	json_decref(root);
	/* "'groups[3].lo' must be ...": the line and column of that value, when it is there. */
	if (st == GPUPROJ_E_SCHEMA && reterr && reterr->message[0] == '\'') {
		const char *end = strchr(reterr->message + 1, '\'');

		if (end)
			json_locate_error(text, len, reterr->message + 1,
					  (size_t)(end - reterr->message - 1), reterr);
	}
	return st;
}

int
gpuproj_intervals_load(const char *path, struct gpuproj_intervals **ret,
		       struct gpuproj_error *reterr)
{
	char *text = NULL;
	size_t len = 0;
	int st;

	if (!path || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "invalid argument");
	st = file_read_all(path, &text, &len, reterr);
	if (st)
		return st;
	st = gpuproj_intervals_load_buffer(text, len, path, ret, reterr);
	free(text);
	return st;
}

/* ---- built-in ---- */

extern const char gpuproj_builtin_intervals[];
extern const size_t gpuproj_builtin_intervals_len;

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void
load_builtin(void)
{
	if (gpuproj_intervals_load_buffer(gpuproj_builtin_intervals, gpuproj_builtin_intervals_len,
					  "built-in intervals", &builtin, NULL))
		builtin = NULL;
}

const struct gpuproj_intervals *
gpuproj_intervals_builtin(void)
{
	pthread_once(&builtin_once, load_builtin);
	return builtin;
}
