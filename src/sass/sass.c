/* SPDX-License-Identifier: MIT */
/*
 * SASS comparison of special functions (include/gpuproj/sass.h, [VanLanker2024]
 * §4.2): choose the code of each architecture per module, compile PTX
 * where needed, disassemble in parallel, collect per-kernel counts, and
 * derive target/source FLOP ratios.
 *
 * Pipeline: inputs → fatbin_scan() (images per container = module) →
 * units (one cubin per container and architecture: the binary's SASS,
 * binary-compatible SASS, or PTX to compile) → phase A in worker threads
 * (decompress, compile PTX, parse the cubin) → identical cubins dropped →
 * phase B in worker threads (code sections batched into raw streams,
 * sass_disasm_chunk()) → results sorted by kernel and architecture.
 *
 * Thread safety: gpuproj_sass_analyze() may be called from several
 * threads; it runs its own workers (pthreads) and joins them before
 * returning. A result is immutable.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpuproj/sass.h>

#include "sass-private.h"
#include "util.h"

/* Raw-stream sizes for one nvdisasm run (it starts in ~0.25 s, then ~1 MB/s). */
#define CHUNK_MIN ((uint64_t)256 << 10)
#define CHUNK_MAX ((uint64_t)3 << 20)

struct arch_state {
	int arch;               /* 90 */
	char name[16];          /* "sm_90" */
	int status;             /* GPUPROJ_OK or why nothing is reported */
	char *note;             /* reason, or where the SASS came from */
	size_t n_units[3];      /* containers served per enum gpuproj_sass_origin */
	int image_arch[3];      /* an example image architecture per origin */
	const char *tool;       /* tool that compiled PTX (static) */
	/* The legacy nvdisasm that disassembled it, or NULL (valid during the analysis) */
	const char *legacy_nvdisasm;
	struct gpuproj_error err; /* first compile / disassembly failure */
	bool failed;
};

struct gpuproj_sass {
	struct arch_state *archs;
	size_t n_archs;
	struct gpuproj_sass_kernel *k;
	size_t n;
	char **files;
	size_t n_files;
	double slow_path_weight;
};

struct input {
	char *path;                 /* owned */
	unsigned char *buf;         /* owned unless borrowed */
	size_t len;
	bool borrowed;
	struct fatbin_image *images;
	size_t n_images;
};

struct unit {
	size_t arch;                 /* index into archs */
	size_t input;
	const struct fatbin_image *image;
	enum gpuproj_sass_origin origin;
	unsigned char *owned;        /* decompressed or compiled cubin */
	const unsigned char *cubin;
	size_t cubin_len;
	struct cubin parsed;
	bool usable;                 /* parsed, not a duplicate */
	int status;
	struct gpuproj_error err;
	const char *tool;
};

struct chunk {
	size_t arch;
	int disasm_arch;
	const char *nvdisasm;        /* owned by the run; NULL: status says why */
	struct sass_section *sections;
	size_t n_sections;
	uint64_t bytes;
	int status;
	struct gpuproj_error err;
};

struct run {
	const struct gpuproj_sass_options *opt;
	struct gpuproj_sass *s;
	struct input *inputs;
	size_t n_inputs;
	struct unit *units;
	size_t n_units;
	struct chunk *chunks;
	size_t n_chunks;
	const char *nvdisasm;
	/* Tools for architectures the ones found first lack (sass_find_legacy_tool()). */
	struct legacy {
		enum sass_tool kind;
		int arch;
		char *path;              /* NULL: status, err say why */
		int status;
		struct gpuproj_error err;
	} *legacy;
	size_t n_legacy;
	/* pool state */
	pthread_mutex_t lock;
	size_t next, done, total;
	const char *phase;
	void (*fn)(struct run *r, size_t i);
	const char *(*label)(struct run *r, size_t i);
	size_t *order;               /* optional item order of the pool */
};

/* ---- worker pool ---- */

static void *
pool_worker(void *arg)
{
	struct run *r = arg;

	for (;;) {
		size_t i, item;

		pthread_mutex_lock(&r->lock);
		i = r->next++;
		pthread_mutex_unlock(&r->lock);
		if (i >= r->total)
			return NULL;
		item = r->order ? r->order[i] : i;
		r->fn(r, item);
		pthread_mutex_lock(&r->lock);
		r->done++;
		if (r->phase && r->opt && r->opt->progress)
			r->opt->progress(r->opt->progress_userdata, r->phase, r->done, r->total,
					 r->label ? r->label(r, item) : "");
		pthread_mutex_unlock(&r->lock);
	}
}

/*
 * Run fn on items 0..total-1 (or order[0..total-1]) in worker threads.
 * phase: progress phase name, or NULL for no progress.
 */
static void
pool_run(struct run *r, const char *phase, size_t total, void (*fn)(struct run *, size_t),
	 const char *(*label)(struct run *, size_t), size_t *order)
{
	unsigned jobs = r->opt && r->opt->jobs ? r->opt->jobs : 0;
	pthread_t *th;
	size_t i, started = 0;

	if (total == 0)
		return;
	if (jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = n > 0 ? (unsigned)n : 1;
	}
	if (jobs > total)
		jobs = (unsigned)total;
	r->next = r->done = 0;
	r->total = total;
	r->phase = phase;
	r->fn = fn;
	r->label = label;
	r->order = order;
	th = calloc(jobs, sizeof(*th));
	for (i = 0; th && i < jobs; i++) {
		if (pthread_create(&th[i], NULL, pool_worker, r))
			break;
		started++;
	}
	if (started == 0)
		pool_worker(r);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

/* ---- inputs ---- */

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

/* Append path (or the *.cubin / *.fatbin files of a directory) to *list. */
static int
expand_path(const char *path, char ***list, size_t *n, struct gpuproj_error *err)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char **names = NULL, **v;
	size_t nn = 0, i;
	int r = GPUPROJ_OK;

	if (stat(path, &st) != 0)
		return error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		v = realloc(*list, (*n + 1) * sizeof(*v));
		if (!v || !(v[*n] = xstrdup(path))) {
			if (v)
				*list = v;
			return error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
		}
		*list = v;
		(*n)++;
		return GPUPROJ_OK;
	}
	d = opendir(path);
	if (!d)
		return error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
	while ((de = readdir(d))) {
		char *full;

		if (!has_suffix(de->d_name, ".cubin") && !has_suffix(de->d_name, ".fatbin"))
			continue;
		full = xasprintf("%s/%s", path, de->d_name);
		v = full ? realloc(names, (nn + 1) * sizeof(*v)) : NULL;
		if (!v) {
			free(full);
			r = error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
			goto out;
		}
		names = v;
		names[nn++] = full;
	}
	if (nn == 0) {
		r = error_set(err, GPUPROJ_E_NOTFOUND, path, 0, 0,
			      "no *.cubin or *.fatbin files in this directory");
		goto out;
	}
	qsort(names, nn, sizeof(*names), name_cmp);
	v = realloc(*list, (*n + nn) * sizeof(*v));
	if (!v) {
		r = error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
		goto out;
	}
	*list = v;
	for (i = 0; i < nn; i++)
		v[(*n)++] = names[i];
	nn = 0;
out:
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return r;
}

/* ---- units ---- */

static const struct fatbin_image *
choose_image(const struct input *in, size_t container, int arch,
	     enum gpuproj_sass_origin *ret_origin)
{
	const struct fatbin_image *exact = NULL, *compat = NULL, *ptx = NULL;
	size_t i;

	for (i = 0; i < in->n_images; i++) {
		const struct fatbin_image *im = &in->images[i];

		if (im->container != container)
			continue;
		if (im->kind == FATBIN_ELF) {
			if (im->arch == arch && !exact)
				exact = im;
			else if (im->arch / 10 == arch / 10 && im->arch < arch &&
				 (!compat || im->arch > compat->arch))
				compat = im;
		} else if (im->arch <= arch && (!ptx || im->arch > ptx->arch)) {
			ptx = im;
		}
	}
	if (exact) {
		*ret_origin = GPUPROJ_SASS_FROM_SASS;
		return exact;
	}
	if (compat) {
		*ret_origin = GPUPROJ_SASS_FROM_COMPATIBLE;
		return compat;
	}
	*ret_origin = GPUPROJ_SASS_FROM_PTX;
	return ptx;
}

/* The legacy tool resolved for (kind, arch), or NULL when none is needed. */
static const struct legacy *
legacy_find(const struct run *r, enum sass_tool kind, int arch)
{
	for (size_t i = 0; i < r->n_legacy; i++) {
		if (r->legacy[i].kind == kind && r->legacy[i].arch == arch)
			return &r->legacy[i];
	}
	return NULL;
}

/*
 * Resolve the legacy tool of (kind, arch) once per analysis, in the main
 * thread (the search may run python3). primary: the tool found first.
 */
static const struct legacy *
legacy_resolve(struct run *r, enum sass_tool kind, int arch, const char *primary)
{
	const struct legacy *found = legacy_find(r, kind, arch);
	struct legacy *v, *l;

	if (found)
		return found;
	v = realloc(r->legacy, (r->n_legacy + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->legacy = v;
	l = &v[r->n_legacy++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->arch = arch;
	l->status = sass_find_legacy_tool(kind, arch, primary, &l->path, &l->err);
	return l;
}

/* Phase A: decompress, compile, parse one unit. */
static void
unit_prepare(struct run *r, size_t i)
{
	struct unit *u = &r->units[i];
	const struct input *in = &r->inputs[u->input];
	unsigned char *raw = NULL;
	size_t raw_len = 0;

	if (u->image->codec == FATBIN_RAW && u->image->kind == FATBIN_ELF) {
		u->cubin = u->image->data;
		u->cubin_len = u->image->size;
	} else {
		u->status = fatbin_extract(u->image, in->path, &raw, &raw_len, &u->err);
		if (u->status)
			return;
		if (u->image->kind == FATBIN_ELF) {
			u->owned = raw;
			u->cubin = raw;
			u->cubin_len = raw_len;
		} else {
			int arch = r->s->archs[u->arch].arch;
			const struct legacy *lt = legacy_find(r, SASS_PTXAS, arch);

			if (lt && !lt->path) {
				u->status = lt->status;
				u->err = lt->err;
				free(raw);
				return;
			}
			u->status = sass_compile_ptx((const char *)raw, strnlen((char *)raw, raw_len),
						     arch, in->path, lt ? lt->path : NULL, &u->owned,
						     &u->cubin_len, &u->tool, &u->err);
			free(raw);
			if (u->status)
				return;
			u->cubin = u->owned;
		}
	}
	u->status = cubin_parse(u->cubin, u->cubin_len, in->path, &u->parsed, &u->err);
	if (u->status == GPUPROJ_OK)
		u->usable = true;
}

static uint64_t
fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

/* Drop units whose cubin is byte-identical to an earlier one of the same architecture. */
static int
drop_duplicates(struct run *r)
{
	uint64_t *h = calloc(r->n_units + 1, sizeof(*h));
	size_t i, j;

	if (!h)
		return GPUPROJ_E_NOMEM;
	for (i = 0; i < r->n_units; i++) {
		struct unit *u = &r->units[i];

		if (!u->usable)
			continue;
		h[i] = fnv1a(u->cubin, u->cubin_len);
		for (j = 0; j < i; j++) {
			const struct unit *w = &r->units[j];

			if (w->usable && w->arch == u->arch && h[j] == h[i] &&
			    w->cubin_len == u->cubin_len &&
			    memcmp(w->cubin, u->cubin, u->cubin_len) == 0) {
				u->usable = false;
				break;
			}
		}
	}
	free(h);
	return GPUPROJ_OK;
}

static const char *
unit_label(struct run *r, size_t i)
{
	return r->s->archs[r->units[i].arch].name;
}

static const char *
chunk_label(struct run *r, size_t i)
{
	return r->s->archs[r->chunks[i].arch].name;
}

/* Phase B: one nvdisasm run. */
static void
chunk_run(struct run *r, size_t i)
{
	struct chunk *c = &r->chunks[i];

	if (!c->nvdisasm)
		return; /* no nvdisasm for this architecture: status and err are set */
	c->status = sass_disasm_chunk(c->nvdisasm, c->disasm_arch, c->sections, c->n_sections,
				      &c->err);
}

static int
unit_disasm_arch(const struct run *r, const struct unit *u)
{
	return u->origin == GPUPROJ_SASS_FROM_PTX ? r->s->archs[u->arch].arch : u->image->arch;
}

/* Sections of usable units, batched per (arch, disassembly arch) into chunks. */
static int
build_chunks(struct run *r)
{
	uint64_t total = 0, target;
	size_t i, t, a, cap = 0;
	unsigned jobs = r->opt && r->opt->jobs ? r->opt->jobs : 0;

	if (jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = n > 0 ? (unsigned)n : 1;
	}
	for (i = 0; i < r->n_units; i++) {
		const struct unit *u = &r->units[i];

		for (t = 0; u->usable && t < u->parsed.n_texts; t++)
			total += u->parsed.texts[t].size;
	}
	target = total / ((uint64_t)jobs * 6);
	target = target < CHUNK_MIN ? CHUNK_MIN : target > CHUNK_MAX ? CHUNK_MAX : target;
	for (a = 0; a < r->s->n_archs; a++) {
		/* Disassembly architectures used by this arch's units, in first-use order. */
		for (i = 0; i < r->n_units; i++) {
			const struct unit *u = &r->units[i];
			struct chunk *c = NULL;
			int da;
			size_t j;
			bool seen = false;

			if (!u->usable || u->arch != a)
				continue;
			da = unit_disasm_arch(r, u);
			for (j = 0; j < i; j++) {
				if (r->units[j].usable && r->units[j].arch == a &&
				    unit_disasm_arch(r, &r->units[j]) == da)
					seen = true;
			}
			if (seen)
				continue;
			for (j = i; j < r->n_units; j++) {
				const struct unit *w = &r->units[j];

				if (!w->usable || w->arch != a || unit_disasm_arch(r, w) != da)
					continue;
				for (t = 0; t < w->parsed.n_texts; t++) {
					struct sass_section *s;

					if (w->parsed.texts[t].size == 0)
						continue;
					if (!c || c->bytes >= target) {
						if (r->n_chunks == cap) {
							size_t nc = cap ? cap * 2 : 16;
							struct chunk *v = realloc(r->chunks,
										  nc * sizeof(*v));

							if (!v)
								return GPUPROJ_E_NOMEM;
							r->chunks = v;
							cap = nc;
						}
						c = &r->chunks[r->n_chunks++];
						memset(c, 0, sizeof(*c));
						c->arch = a;
						c->disasm_arch = da;
					}
					s = realloc(c->sections, (c->n_sections + 1) * sizeof(*s));
					if (!s)
						return GPUPROJ_E_NOMEM;
					c->sections = s;
					memset(&s[c->n_sections], 0, sizeof(*s));
					s[c->n_sections].cubin = &w->parsed;
					s[c->n_sections].text = t;
					s[c->n_sections].owner = j;
					c->n_sections++;
					c->bytes += w->parsed.texts[t].size;
				}
			}
		}
	}
	return GPUPROJ_OK;
}

/* ---- results ---- */

static void
kernel_free_fields(struct gpuproj_sass_kernel *k)
{
	size_t i;

	free((char *)k->name);
	for (i = 0; i < k->n_slow_paths; i++)
		free((char *)k->slow_paths[i]);
	free((void *)k->slow_paths);
}

struct gpuproj_sass *
gpuproj_sass_free(struct gpuproj_sass *s)
{
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < s->n; i++)
		kernel_free_fields(&s->k[i]);
	free(s->k);
	for (i = 0; i < s->n_archs; i++)
		free(s->archs[i].note);
	free(s->archs);
	for (i = 0; i < s->n_files; i++)
		free(s->files[i]);
	free(s->files);
	free(s);
	return NULL;
}

/* A result being collected: kept in collection order until sorted. */
struct kentry {
	struct gpuproj_sass_kernel k;
	size_t arch;     /* index into archs */
	size_t seq;      /* collection order: the first of equal names wins */
};

struct kvec {
	struct kentry *v;
	size_t n, cap;
};

static int
kentry_cmp(const void *a, const void *b)
{
	const struct kentry *x = a, *y = b;
	int c = strcmp(x->k.name, y->k.name);

	if (c)
		return c;
	if (x->arch != y->arch)
		return x->arch < y->arch ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The kernels of one unit, from the per-function results of its sections. */
static int
collect_unit(struct run *r, size_t ui, const struct sass_func_out *const *by_func,
	     struct kvec *kv)
{
	const struct unit *u = &r->units[ui];
	const struct cubin *c = &u->parsed;
	size_t f;

	for (f = 0; f < c->n_funcs; f++) {
		struct sass_kernel_out ko;
		struct kentry *e;

		if (!c->funcs[f].entry || !by_func[f])
			continue;
		if (f > 0 && c->funcs[f - 1].text == c->funcs[f].text &&
		    c->funcs[f - 1].offset == c->funcs[f].offset)
			continue; /* alias */
		if (sass_kernel_totals(c, by_func, f, &ko))
			return GPUPROJ_E_NOMEM;
		if (kv->n == kv->cap) {
			size_t nc = kv->cap ? kv->cap * 2 : 64;
			struct kentry *v = realloc(kv->v, nc * sizeof(*v));

			if (!v) {
				sass_kernel_out_clear(&ko);
				return GPUPROJ_E_NOMEM;
			}
			kv->v = v;
			kv->cap = nc;
		}
		e = &kv->v[kv->n];
		memset(e, 0, sizeof(*e));
		e->k.name = xstrdup(ko.name);
		if (!e->k.name) {
			sass_kernel_out_clear(&ko);
			return GPUPROJ_E_NOMEM;
		}
		e->arch = u->arch;
		e->seq = kv->n;
		kv->n++;
		e->k.arch = r->s->archs[u->arch].name;
		e->k.origin = u->origin;
		e->k.image_arch = u->image->arch;
		e->k.file = r->s->files[u->input];
		e->k.all = ko.all;
		e->k.special = ko.special;
		e->k.slow = ko.slow;
		e->k.special_ops = ko.special_ops;
		e->k.slow_paths = (const char *const *)ko.slow_paths;
		e->k.n_slow_paths = ko.n_slow_paths;
		ko.slow_paths = NULL;
		ko.n_slow_paths = 0;
		sass_kernel_out_clear(&ko);
	}
	return GPUPROJ_OK;
}

/*
 * Every kernel of the architectures that did not fail, sorted by name and
 * architecture; of equal (name, architecture) the first collected is kept
 * and the others counted as duplicates.
 */
static int
collect(struct run *r)
{
	struct gpuproj_sass *s = r->s;
	const struct sass_func_out ***by_unit = calloc(r->n_units + 1, sizeof(*by_unit));
	struct kvec kv = { 0 };
	size_t i, k, j;
	int ret = GPUPROJ_E_NOMEM;

	if (!by_unit)
		return ret;
	for (i = 0; i < r->n_units; i++) {
		if (r->units[i].usable && !s->archs[r->units[i].arch].failed) {
			by_unit[i] = calloc(r->units[i].parsed.n_funcs + 1, sizeof(**by_unit));
			if (!by_unit[i])
				goto out;
		}
	}
	for (i = 0; i < r->n_chunks; i++) {
		for (k = 0; k < r->chunks[i].n_sections; k++) {
			const struct sass_section *sec = &r->chunks[i].sections[k];

			if (!by_unit[sec->owner])
				continue;
			for (j = 0; j < sec->n_funcs; j++)
				by_unit[sec->owner][sec->funcs[j].func] = &sec->funcs[j];
		}
	}
	for (i = 0; i < r->n_units; i++) {
		if (by_unit[i] && collect_unit(r, i, by_unit[i], &kv))
			goto out;
	}
	if (kv.n > 1)
		qsort(kv.v, kv.n, sizeof(*kv.v), kentry_cmp);
	s->k = calloc(kv.n + 1, sizeof(*s->k));
	if (!s->k)
		goto out;
	for (i = 0; i < kv.n; i++) {
		if (s->n > 0 && kv.v[i].arch == kv.v[i - 1].arch &&
		    strcmp(kv.v[i].k.name, s->k[s->n - 1].name) == 0) {
			s->k[s->n - 1].duplicates++;
			kernel_free_fields(&kv.v[i].k);
			continue;
		}
		s->k[s->n++] = kv.v[i].k;
	}
	kv.n = 0;
	ret = GPUPROJ_OK;
out:
	for (i = 0; i < kv.n; i++)
		kernel_free_fields(&kv.v[i].k);
	free(kv.v);
	for (i = 0; i < r->n_units; i++)
		free(by_unit[i]);
	free(by_unit);
	return ret;
}

static char *
arch_note(const struct arch_state *a)
{
	struct strbuf sb;

	strbuf_init(&sb);
	if (a->n_units[GPUPROJ_SASS_FROM_SASS])
		strbuf_printf(&sb, "SASS (%zu module%s)", a->n_units[GPUPROJ_SASS_FROM_SASS],
			      a->n_units[GPUPROJ_SASS_FROM_SASS] == 1 ? "" : "s");
	if (a->n_units[GPUPROJ_SASS_FROM_COMPATIBLE])
		strbuf_printf(&sb, "%ssm_%d SASS, binary-compatible (%zu module%s)",
			      sb.len ? ", " : "", a->image_arch[GPUPROJ_SASS_FROM_COMPATIBLE],
			      a->n_units[GPUPROJ_SASS_FROM_COMPATIBLE],
			      a->n_units[GPUPROJ_SASS_FROM_COMPATIBLE] == 1 ? "" : "s");
	if (a->n_units[GPUPROJ_SASS_FROM_PTX])
		strbuf_printf(&sb, "%sPTX compute_%d compiled with %s (%zu module%s)",
			      sb.len ? ", " : "", a->image_arch[GPUPROJ_SASS_FROM_PTX],
			      a->tool ? a->tool : "?", a->n_units[GPUPROJ_SASS_FROM_PTX],
			      a->n_units[GPUPROJ_SASS_FROM_PTX] == 1 ? "" : "s");
	if (a->legacy_nvdisasm) {
		char rel[32];

		sass_tool_release(a->legacy_nvdisasm, rel, sizeof(rel));
		strbuf_printf(&sb, "; disassembled with the CUDA %s nvdisasm", rel);
	}
	return strbuf_steal(&sb);
}

static int
sass_nomem(struct gpuproj_error *err)
{
	return error_set(err, GPUPROJ_E_NOMEM, "", 0, 0, "out of memory");
}

/* Step 1: the images of every input; *ret_containers counts their containers. */
static int
scan_images(struct run *r, size_t *ret_containers, struct gpuproj_error *err)
{
	size_t i, containers = 0, n_images = 0;
	int ret;

	for (i = 0; i < r->n_inputs; i++) {
		struct input *in = &r->inputs[i];

		ret = fatbin_scan(in->buf, in->len, in->path, containers, &in->images,
				  &in->n_images, &containers, err);
		if (ret)
			return ret;
		n_images += in->n_images;
	}
	if (n_images == 0)
		return error_set(err, GPUPROJ_E_NOTFOUND, r->n_inputs == 1 ? r->inputs[0].path : "",
				 0, 0, "no CUDA device code (cubin or PTX) in %s",
				 r->n_inputs == 1 ? "this file" : "these files");
	*ret_containers = containers;
	return GPUPROJ_OK;
}

/* Every SASS architecture of the images, ascending (no option names any). */
static int
present_archs(struct run *r, struct gpuproj_error *err)
{
	struct gpuproj_sass *s = r->s;
	size_t i, a, n_images = 0;

	for (i = 0; i < r->n_inputs; i++)
		n_images += r->inputs[i].n_images;
	s->archs = calloc(n_images, sizeof(*s->archs));
	if (!s->archs)
		return sass_nomem(err);
	for (i = 0; i < r->n_inputs; i++) {
		for (size_t k = 0; k < r->inputs[i].n_images; k++) {
			const struct fatbin_image *im = &r->inputs[i].images[k];

			if (im->kind != FATBIN_ELF)
				continue;
			for (a = 0; a < s->n_archs && s->archs[a].arch != im->arch; a++)
				;
			if (a < s->n_archs)
				continue;
			/* Insert sorted. */
			for (a = s->n_archs; a > 0 && s->archs[a - 1].arch > im->arch; a--)
				s->archs[a] = s->archs[a - 1];
			memset(&s->archs[a], 0, sizeof(s->archs[a]));
			s->archs[a].arch = im->arch;
			s->n_archs++;
		}
	}
	if (s->n_archs == 0)
		return error_set(err, GPUPROJ_E_NOTFOUND,
				 r->n_inputs == 1 ? r->inputs[0].path : "", 0, 0,
				 "only PTX in the input: name the architectures to "
				 "compile it for (--arch sm_XY)");
	return GPUPROJ_OK;
}

/* Step 2: the architectures: as requested, else every SASS architecture present. */
static int
choose_archs(struct run *r, struct gpuproj_error *err)
{
	struct gpuproj_sass *s = r->s;
	const struct gpuproj_sass_options *opt = r->opt;
	size_t i, a;
	int ret;

	if (opt && opt->n_archs) {
		s->archs = calloc(opt->n_archs, sizeof(*s->archs));
		if (!s->archs)
			return sass_nomem(err);
		for (i = 0; i < opt->n_archs; i++) {
			int v;

			if (!sass_parse_arch(opt->archs[i], &v))
				return error_set(err, GPUPROJ_E_INVAL, "", 0, 0,
						 "bad architecture '%s' (expected sm_XY, e.g. sm_90)",
						 opt->archs[i] ? opt->archs[i] : "(null)");
			for (a = 0; a < s->n_archs && s->archs[a].arch != v; a++)
				;
			if (a == s->n_archs)
				s->archs[s->n_archs++].arch = v;
		}
	} else if ((ret = present_archs(r, err))) {
		return ret;
	}
	for (a = 0; a < s->n_archs; a++)
		snprintf(s->archs[a].name, sizeof(s->archs[a].name), "sm_%d", s->archs[a].arch);
	return GPUPROJ_OK;
}

/*
 * Step 3: the units, one image per (architecture, container); the PTX
 * ones' indices in ptx_order[*ret_n_ptx].
 */
static int
make_units(struct run *r, size_t containers, size_t **ret_ptx_order, size_t *ret_n_ptx,
	   struct gpuproj_error *err)
{
	struct gpuproj_sass *s = r->s;
	size_t a, c, *ptx_order, n_ptx = 0;

	r->units = calloc(s->n_archs * containers + 1, sizeof(*r->units));
	ptx_order = calloc(s->n_archs * containers + 1, sizeof(*ptx_order));
	*ret_ptx_order = ptx_order;
	if (!r->units || !ptx_order)
		return sass_nomem(err);
	for (a = 0; a < s->n_archs; a++) {
		size_t in_idx = 0;

		for (c = 0; c < containers; c++) {
			const struct fatbin_image *im;
			enum gpuproj_sass_origin origin;
			struct unit *u;

			/* The input holding container c (containers are numbered in input order). */
			while (in_idx < r->n_inputs) {
				const struct input *in = &r->inputs[in_idx];

				if (in->n_images && in->images[in->n_images - 1].container >= c)
					break;
				in_idx++;
			}
			if (in_idx == r->n_inputs)
				break;
			im = choose_image(&r->inputs[in_idx], c, s->archs[a].arch, &origin);
			if (!im)
				continue;
			u = &r->units[r->n_units++];
			u->arch = a;
			u->input = in_idx;
			u->image = im;
			u->origin = origin;
			s->archs[a].n_units[origin]++;
			s->archs[a].image_arch[origin] = im->arch;
			if (origin == GPUPROJ_SASS_FROM_PTX)
				ptx_order[n_ptx++] = r->n_units - 1;
		}
	}
	*ret_n_ptx = n_ptx;
	return GPUPROJ_OK;
}

/* Step 4 (phase A): SASS images first (fast, no progress), then PTX compilations. */
static int
prepare_units(struct run *r, size_t *ptx_order, size_t n_ptx_units,
	      struct gpuproj_error *err)
{
	struct gpuproj_sass *s = r->s;
	size_t *sass_order = calloc(r->n_units + 1, sizeof(*sass_order)), i, n_sass = 0;

	if (!sass_order)
		return sass_nomem(err);
	for (i = 0; i < r->n_units; i++) {
		if (r->units[i].origin != GPUPROJ_SASS_FROM_PTX)
			sass_order[n_sass++] = i;
	}
	pool_run(r, NULL, n_sass, unit_prepare, NULL, sass_order);
	free(sass_order);
	/* PTX for an architecture CUDA 13 dropped (sm_70, sm_72): a CUDA 11/12 ptxas. */
	for (i = 0; i < n_ptx_units; i++) {
		int arch = s->archs[r->units[ptx_order[i]].arch].arch;

		if (!legacy_find(r, SASS_PTXAS, arch) && sass_ptx_needs_legacy(arch)) {
			char *primary = sass_find_ptxas();
			const struct legacy *l = legacy_resolve(r, SASS_PTXAS, arch, primary);

			free(primary);
			if (!l)
				return sass_nomem(err);
		}
	}
	pool_run(r, "compiling PTX", n_ptx_units, unit_prepare, unit_label, ptx_order);
	for (i = 0; i < r->n_units; i++) {
		struct unit *u = &r->units[i];
		struct arch_state *as = &s->archs[u->arch];

		if (u->status == GPUPROJ_E_PARSE || u->status == GPUPROJ_E_UNSUPPORTED ||
		    u->status == GPUPROJ_E_NOMEM) {
			/* A corrupt input or an unsupported codec fails the analysis. */
			if (err)
				*err = u->err;
			return u->status;
		}
		if (u->status && !as->failed) {
			as->failed = true;
			as->err = u->err;
		}
		if (u->status == GPUPROJ_OK && u->tool)
			as->tool = u->tool;
	}
	return drop_duplicates(r) ? sass_nomem(err) : GPUPROJ_OK;
}

/*
 * Step 5 (phase B): the chunks disassembled, with nvdisasm per
 * disassembly architecture (a legacy one where the first lacks it).
 */
static int
disassemble(struct run *r, struct gpuproj_error *err)
{
	struct gpuproj_sass *s = r->s;
	size_t i;

	if (build_chunks(r))
		return sass_nomem(err);
	for (i = 0; i < r->n_chunks; i++) {
		struct chunk *ch = &r->chunks[i];
		const struct legacy *l;

		ch->nvdisasm = r->nvdisasm;
		if (ch->disasm_arch >= 75 ||
		    sass_tool_supports(r->nvdisasm, SASS_NVDISASM, ch->disasm_arch))
			continue;
		l = legacy_resolve(r, SASS_NVDISASM, ch->disasm_arch, r->nvdisasm);
		if (!l)
			return sass_nomem(err);
		ch->nvdisasm = l->path;
		if (l->path) {
			s->archs[ch->arch].legacy_nvdisasm = l->path;
		} else {
			ch->status = l->status;
			ch->err = l->err;
		}
	}
	pool_run(r, "disassembling", r->n_chunks, chunk_run, chunk_label, NULL);
	for (i = 0; i < r->n_chunks; i++) {
		struct chunk *ch = &r->chunks[i];
		struct arch_state *as = &s->archs[ch->arch];

		if (ch->status == GPUPROJ_E_NOMEM) {
			if (err)
				*err = ch->err;
			return ch->status;
		}
		if (ch->status && !as->failed) {
			as->failed = true;
			as->err = ch->err;
		}
	}
	return GPUPROJ_OK;
}

/* Step 6: the results, failed architectures dropped, and each architecture's note. */
static int
arch_results(struct run *r, struct gpuproj_error *err)
{
	struct gpuproj_sass *s = r->s;
	size_t a;

	if (collect(r))
		return sass_nomem(err);
	for (a = 0; a < s->n_archs; a++) {
		struct arch_state *as = &s->archs[a];
		char buf[GPUPROJ_ERROR_MSG_SIZE + GPUPROJ_ERROR_FILE_SIZE + 8];
		size_t units = as->n_units[0] + as->n_units[1] + as->n_units[2];

		if (as->failed) {
			as->status = as->err.status == GPUPROJ_E_MISSING ? GPUPROJ_E_MISSING
									  : GPUPROJ_E_BACKEND;
			as->note = xstrdup(gpuproj_error_format(&as->err, buf, sizeof(buf)));
		} else if (units == 0) {
			as->status = GPUPROJ_E_NOTFOUND;
			as->note = xasprintf("no sm_%d SASS, no binary-compatible SASS and no PTX "
					     "for compute_%d or lower in the input", as->arch,
					     as->arch);
		} else {
			as->status = GPUPROJ_OK;
			as->note = arch_note(as);
		}
		if (!as->note)
			return sass_nomem(err);
	}
	return GPUPROJ_OK;
}

static int
analyze_inputs(struct run *r, struct gpuproj_error *err)
{
	size_t containers = 0, n_ptx_units = 0, *ptx_order = NULL;
	char *nvd = NULL;
	int ret;

	ret = scan_images(r, &containers, err);
	if (ret == GPUPROJ_OK)
		ret = choose_archs(r, err);
	if (ret == GPUPROJ_OK)
		ret = gpuproj_sass_find_nvdisasm(&nvd, err);
	if (ret)
		return ret;
	r->nvdisasm = nvd;
	ret = make_units(r, containers, &ptx_order, &n_ptx_units, err);
	if (ret == GPUPROJ_OK)
		ret = prepare_units(r, ptx_order, n_ptx_units, err);
	if (ret == GPUPROJ_OK)
		ret = disassemble(r, err);
	if (ret == GPUPROJ_OK)
		ret = arch_results(r, err);
	free(ptx_order);
	return ret;
}

static void
run_clear(struct run *r)
{
	size_t i, k;

	for (i = 0; i < r->n_chunks; i++) {
		for (k = 0; k < r->chunks[i].n_sections; k++) {
			sass_section_clear(&r->chunks[i].sections[k]);
		}
		free(r->chunks[i].sections);
	}
	free(r->chunks);
	for (i = 0; i < r->n_units; i++) {
		cubin_clear(&r->units[i].parsed);
		free(r->units[i].owned);
	}
	free(r->units);
	for (i = 0; i < r->n_inputs; i++) {
		if (!r->inputs[i].borrowed)
			free(r->inputs[i].buf);
		free(r->inputs[i].path);
		free(r->inputs[i].images);
	}
	free(r->inputs);
	free((char *)r->nvdisasm);
	for (i = 0; i < r->n_legacy; i++)
		free(r->legacy[i].path);
	free(r->legacy);
	pthread_mutex_destroy(&r->lock);
}

static int
check_options(const struct gpuproj_sass_options *opt, struct gpuproj_error *err)
{
	if (opt && (!(opt->slow_path_weight >= 0.0) || opt->slow_path_weight > 1.0))
		return error_set(err, GPUPROJ_E_INVAL, "", 0, 0,
				 "the slow-path weight must be between 0 and 1");
	if (opt && opt->n_archs && !opt->archs)
		return error_set(err, GPUPROJ_E_INVAL, "", 0, 0, "n_archs without archs");
	return GPUPROJ_OK;
}

static int
finish(struct run *r, int ret, struct gpuproj_sass **out)
{
	if (ret == GPUPROJ_OK) {
		*out = r->s;
		r->s = NULL;
	}
	run_clear(r);
	gpuproj_sass_free(r->s);
	return ret;
}

static int
run_init(struct run *r, const struct gpuproj_sass_options *opt, size_t n_inputs)
{
	memset(r, 0, sizeof(*r));
	r->opt = opt;
	pthread_mutex_init(&r->lock, NULL);
	r->s = calloc(1, sizeof(*r->s));
	r->inputs = calloc(n_inputs + 1, sizeof(*r->inputs));
	if (!r->s || !r->inputs)
		return GPUPROJ_E_NOMEM;
	r->s->slow_path_weight = opt ? opt->slow_path_weight : 0.0;
	r->s->files = calloc(n_inputs + 1, sizeof(char *));
	return r->s->files ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
}

/* Register input i (path copied twice: the run's and the result's). */
static int
add_input(struct run *r, const char *path)
{
	struct input *in = &r->inputs[r->n_inputs];

	in->path = xstrdup(path);
	r->s->files[r->n_inputs] = xstrdup(path);
	if (!in->path || !r->s->files[r->n_inputs]) {
		free(in->path);
		in->path = NULL;
		return GPUPROJ_E_NOMEM;
	}
	r->n_inputs++;
	r->s->n_files = r->n_inputs;
	return GPUPROJ_OK;
}

int
gpuproj_sass_analyze(const char *const *paths, size_t n_paths,
		     const struct gpuproj_sass_options *opt, struct gpuproj_sass **ret,
		     struct gpuproj_error *reterr)
{
	char **files = NULL;
	size_t n_files = 0, i;
	struct run r;
	int st;

	if (!ret || !paths || n_paths == 0)
		return error_set(reterr, GPUPROJ_E_INVAL, "", 0, 0, "no input files");
	*ret = NULL;
	st = check_options(opt, reterr);
	if (st)
		return st;
	for (i = 0; i < n_paths && st == GPUPROJ_OK; i++)
		st = expand_path(paths[i], &files, &n_files, reterr);
	if (st != GPUPROJ_OK) {
		for (i = 0; i < n_files; i++)
			free(files[i]);
		free(files);
		return st;
	}
	if (run_init(&r, opt, n_files))
		st = error_set(reterr, GPUPROJ_E_NOMEM, "", 0, 0, "out of memory");
	for (i = 0; st == GPUPROJ_OK && i < n_files; i++) {
		char *buf;

		if (add_input(&r, files[i])) {
			st = error_set(reterr, GPUPROJ_E_NOMEM, "", 0, 0, "out of memory");
			break;
		}
		st = file_read_all(files[i], &buf, &r.inputs[i].len, reterr);
		if (st == GPUPROJ_OK)
			r.inputs[i].buf = (unsigned char *)buf;
	}
	for (i = 0; i < n_files; i++)
		free(files[i]);
	free(files);
	if (st == GPUPROJ_OK)
		st = analyze_inputs(&r, reterr);
	return finish(&r, st, ret);
}

int
gpuproj_sass_analyze_buffer(const void *data, size_t len, const char *name,
			    const struct gpuproj_sass_options *opt, struct gpuproj_sass **ret,
			    struct gpuproj_error *reterr)
{
	struct run r;
	int st;

	if (!ret || (!data && len))
		return error_set(reterr, GPUPROJ_E_INVAL, "", 0, 0, "no input");
	*ret = NULL;
	st = check_options(opt, reterr);
	if (st)
		return st;
	if (run_init(&r, opt, 1) || add_input(&r, name ? name : "<buffer>")) {
		st = error_set(reterr, GPUPROJ_E_NOMEM, "", 0, 0, "out of memory");
		return finish(&r, st, ret);
	}
	r.inputs[0].buf = (unsigned char *)data;
	r.inputs[0].len = len;
	r.inputs[0].borrowed = true;
	st = analyze_inputs(&r, reterr);
	return finish(&r, st, ret);
}

/* ---- queries ---- */

size_t
gpuproj_sass_arch_count(const struct gpuproj_sass *s)
{
	return s ? s->n_archs : 0;
}

const char *
gpuproj_sass_arch_at(const struct gpuproj_sass *s, size_t i)
{
	return s && i < s->n_archs ? s->archs[i].name : NULL;
}

int
gpuproj_sass_arch_status(const struct gpuproj_sass *s, size_t i, const char **ret_note)
{
	if (!s || i >= s->n_archs)
		return GPUPROJ_E_INVAL;
	if (ret_note)
		*ret_note = s->archs[i].note;
	return s->archs[i].status;
}

size_t
gpuproj_sass_count(const struct gpuproj_sass *s)
{
	return s ? s->n : 0;
}

const struct gpuproj_sass_kernel *
gpuproj_sass_at(const struct gpuproj_sass *s, size_t i)
{
	return s && i < s->n ? &s->k[i] : NULL;
}

const struct gpuproj_sass_kernel *
gpuproj_sass_find(const struct gpuproj_sass *s, const char *kernel, const char *arch)
{
	size_t lo = 0, hi, i;
	int v;

	if (!s || !kernel || !sass_parse_arch(arch, &v))
		return NULL;
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->k[mid].name, kernel) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < s->n && strcmp(s->k[i].name, kernel) == 0; i++) {
		int ka;

		if (sass_parse_arch(s->k[i].arch, &ka) && ka == v)
			return &s->k[i];
	}
	return NULL;
}

static int
lookup_pair(const struct gpuproj_sass *s, const char *kernel, const char *src_arch,
	    const char *tgt_arch, const struct gpuproj_sass_kernel **ks,
	    const struct gpuproj_sass_kernel **kt)
{
	int a;

	if (!s || !kernel || !sass_parse_arch(src_arch, &a) || !sass_parse_arch(tgt_arch, &a))
		return GPUPROJ_E_INVAL;
	*ks = gpuproj_sass_find(s, kernel, src_arch);
	*kt = gpuproj_sass_find(s, kernel, tgt_arch);
	return *ks && *kt ? GPUPROJ_OK : GPUPROJ_E_NOTFOUND;
}

int
gpuproj_sass_flop_ratio(const struct gpuproj_sass *s, const char *kernel,
			const char *src_arch, const char *tgt_arch, double *ret_ratio)
{
	const struct gpuproj_sass_kernel *ks, *kt;
	double w, fs, ss, st;
	int r;

	if (!ret_ratio)
		return GPUPROJ_E_INVAL;
	r = lookup_pair(s, kernel, src_arch, tgt_arch, &ks, &kt);
	if (r)
		return r;
	w = s->slow_path_weight;
	fs = ks->all.flop + w * ks->slow.flop;
	ss = ks->special.flop + w * ks->slow.flop;
	st = kt->special.flop + w * kt->slow.flop;
	if (fs <= 0) {
		if (st != ss)
			return GPUPROJ_E_UNSUPPORTED;
		*ret_ratio = 1.0;
		return GPUPROJ_OK;
	}
	*ret_ratio = (fs - ss + st) / fs;
	return GPUPROJ_OK;
}

int
gpuproj_sass_flop_ratio_measured(const struct gpuproj_sass *s, const char *kernel,
				 const char *src_arch, const char *tgt_arch,
				 double flop_measured, double special_passes, double *ret_ratio)
{
	const struct gpuproj_sass_kernel *ks, *kt;
	double w, ss, st, ratio;
	int r;

	if (!ret_ratio || !(flop_measured > 0) || !(special_passes >= 0) ||
	    !isfinite(flop_measured) || !isfinite(special_passes))
		return GPUPROJ_E_INVAL;
	r = lookup_pair(s, kernel, src_arch, tgt_arch, &ks, &kt);
	if (r)
		return r;
	w = s->slow_path_weight;
	ss = ks->special.flop + w * ks->slow.flop;
	st = kt->special.flop + w * kt->slow.flop;
	ratio = 1.0 + special_passes * (st - ss) / flop_measured;
	if (!(ratio > 0))
		return GPUPROJ_E_INVAL;
	*ret_ratio = ratio;
	return GPUPROJ_OK;
}

double
gpuproj_sass_flop_ratio_cb(void *userdata, const struct gpuproj_kernel *k,
			   const struct gpuproj_target *src, const struct gpuproj_target *tgt)
{
	const struct gpuproj_sass *s = userdata;
	double ratio;

	if (!s || !k || !k->name || !src || !tgt || src->vendor != GPUPROJ_VENDOR_NVIDIA ||
	    tgt->vendor != GPUPROJ_VENDOR_NVIDIA || !src->arch || !tgt->arch)
		return 1.0;
	/* A target without any FLOP left cannot be scaled from FLOP: no ratio then. */
	if (gpuproj_sass_flop_ratio(s, k->name, src->arch, tgt->arch, &ratio) != GPUPROJ_OK ||
	    !(ratio > 0))
		return 1.0;
	return ratio;
}

int
gpuproj_sass_mma_flop_per_inst(const struct gpuproj_sass *s, const char *kernel,
			       const char *arch, enum gpuproj_tensor_op op, double *ret)
{
	const struct gpuproj_sass_kernel *k;

	if (!s || !kernel || !arch || !ret || op <= GPUPROJ_TOP_NONE || op >= GPUPROJ_TOP_COUNT)
		return GPUPROJ_E_INVAL;
	k = gpuproj_sass_find(s, kernel, arch);
	if (!k || (!k->all.mma[op] && !k->all.mma_unshaped[op]))
		return GPUPROJ_E_NOTFOUND;
	if (k->all.mma_unshaped[op])
		return GPUPROJ_E_UNSUPPORTED;
	*ret = k->all.mma_flop[op] / k->all.mma[op];
	return GPUPROJ_OK;
}

/* The family of a tensor FLOP metric whose instruction counts carry one. */
static enum gpuproj_tensor_op
metric_family(enum gpuproj_metric m)
{
	return m == GPUPROJ_M_FLOP_TENSOR_FP16   ? GPUPROJ_TOP_HMMA
	       : m == GPUPROJ_M_FLOP_TENSOR_INT8 ? GPUPROJ_TOP_IMMA
	       : m == GPUPROJ_M_FLOP_TENSOR_FP64 ? GPUPROJ_TOP_DMMA
						 : GPUPROJ_TOP_NONE;
}

/*
 * "metrics.GA100.flop.tensor.fp16" or "import.tensor.flop.tensor.fp16" with
 * "EXPR * D (assumed: …)": the metric and D.
 */
static bool
assumed_attr(const char *key, const char *value, enum gpuproj_metric *m, double *d)
{
	static const char mark[] = " (assumed: FLOP per instruction of ";
	const char *name = NULL, *at = value ? strstr(value, mark) : NULL, *star;
	char *end;

	if (!at || !key)
		return false;
	if (strncmp(key, "import.tensor.", 14) == 0)
		name = key + 14;
	else if (strncmp(key, "metrics.", 8) == 0 && (name = strchr(key + 8, '.')))
		name++;
	if (!name || gpuproj_metric_from_name(name, m) != GPUPROJ_OK)
		return false;
	for (star = at; star > value && strncmp(star, " * ", 3) != 0; star--)
		;
	if (star == value)
		return false;
	*d = strtod_c(star + 3, &end);
	return end == at && *d > 0 && isfinite(*d);
}

int
gpuproj_sass_tensor_rescale(struct gpuproj_profile *p, const struct gpuproj_sass *s,
			    const char *arch, size_t *ret_kernels)
{
	size_t a, i, total = 0;
	const char *key, *value;

	if (ret_kernels)
		*ret_kernels = 0;
	if (!p || !arch)
		return GPUPROJ_E_INVAL;
	/* Insertion order: the ".sass" attributes this adds come after, and never match. */
	for (a = 0; (key = gpuproj_profile_attr_at(p, a, &value)); a++) {
		enum gpuproj_metric m;
		enum gpuproj_tensor_op op;
		size_t n = 0, with = 0;
		double d;
		char k2[160], note[160];

		if (!assumed_attr(key, value, &m, &d) ||
		    (op = metric_family(m)) == GPUPROJ_TOP_NONE)
			continue;
		for (i = 0; i < gpuproj_profile_count(p); i++) {
			struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
			double f;

			if (!k->metric_n[m])
				continue;
			with++;
			if (gpuproj_sass_mma_flop_per_inst(s, k->name, arch, op, &f) != GPUPROJ_OK)
				continue;
			k->metric_sum[m] *= f / d;
			n++;
		}
		if (!n)
			continue;
		total += n;
		snprintf(k2, sizeof(k2), "%s.sass", key);
		snprintf(note, sizeof(note), "FLOP per instruction from the %s SASS of %zu of %zu "
			 "kernel(s), instead of %g", arch, n, with, d);
		if (gpuproj_profile_set_attr(p, k2, note))
			return GPUPROJ_E_NOMEM;
	}
	if (ret_kernels)
		*ret_kernels = total;
	return GPUPROJ_OK;
}
