/* SPDX-License-Identifier: MIT */
/*
 * The SASS comparison as the `gpuproj sass` table and as JSON (schema
 * gpuproj-sass/1; include/gpuproj/sass.h: gpuproj_sass_write_table(),
 * gpuproj_sass_json()); the analysis itself is sass.c.
 *
 * Thread safety: reentrant; the analysis is only read.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpuproj/sass.h>
#include <gpuproj/tensor.h>

#include "util-escape.h"
#include "util.h"

/* Column sums of a counts record. */
struct cols {
	unsigned long v[12];
};

static const char *const col_names[] = {
	"FFMA", "FADD", "FMUL", "DFMA", "DADD", "DMUL", "HFMA2", "HADD2", "HMUL2", "F32x2",
	"MUFU", "other",
};

static void
columns(const struct gpuproj_sass_counts *c, struct cols *out)
{
	int op;

	memset(out, 0, sizeof(*out));
	for (op = 0; op < GPUPROJ_SASS_OP_COUNT; op++) {
		unsigned long n = c->n[op];

		if (op <= GPUPROJ_SASS_HMUL2)
			out->v[op] += n;
		else if (op <= GPUPROJ_SASS_FMUL2)
			out->v[9] += n;
		else if (op <= GPUPROJ_SASS_MUFU_OTHER)
			out->v[10] += n;
		else
			out->v[11] += n;
	}
}

/* MMA instructions of a counts record: shaped and tcgen05 (shape at run time), count. */
static unsigned long
mma_total(const struct gpuproj_sass_counts *c)
{
	unsigned long n = 0;
	int op;

	for (op = 1; op < GPUPROJ_TOP_COUNT; op++)
		n += (unsigned long)c->mma[op] + c->mma_unshaped[op];
	return n;
}

/* The families' names in the table and JSON, by enum gpuproj_tensor_op. */
static const char *const mma_names[GPUPROJ_TOP_COUNT] = {
	[GPUPROJ_TOP_HMMA] = "float", [GPUPROJ_TOP_IMMA] = "int", [GPUPROJ_TOP_DMMA] = "fp64",
};

/*
 * The tensor line of kernel k on its architecture: MMA instructions per
 * family (each basic block once, like the other counts), their FLOP where
 * the opcode gives the shape, and the MMA instruction ratio target/source
 * (the tensor instruction ratio of the SASS comparison, [VanLanker2024]
 * §4.2 applied to the tensor pipe).
 */
static void
print_mma_row(FILE *f, const struct gpuproj_sass_kernel *k, const struct gpuproj_sass_kernel *src)
{
	unsigned long n = mma_total(&k->all), ns = src ? mma_total(&src->all) : 0;
	double flop = 0;
	int op;

	if (!n && !ns)
		return;
	fprintf(f, "  %-7s %-9s MMA", "", "tensor");
	for (op = 1; op < GPUPROJ_TOP_COUNT; op++) {
		fprintf(f, " %s %u", mma_names[op], k->all.mma[op]);
		if (k->all.mma_unshaped[op])
			fprintf(f, " (+%u tcgen05)", k->all.mma_unshaped[op]);
		flop += k->all.mma_flop[op];
	}
	fprintf(f, "; %.0f FLOP", flop);
	if (src == k)
		fprintf(f, "; ratio 1 (source)\n");
	else if (ns)
		fprintf(f, "; ratio %.4f\n", (double)n / (double)ns);
	else
		fprintf(f, "; ratio - (no MMA on the source)\n");
}

static void
print_counts_row(FILE *f, const char *arch, const char *set,
		 const struct gpuproj_sass_counts *c, const char *ratio)
{
	struct cols k;
	size_t i;

	columns(c, &k);
	fprintf(f, "  %-7s %-9s %6u", arch, set, c->blocks);
	for (i = 0; i < sizeof(col_names) / sizeof(col_names[0]); i++)
		fprintf(f, " %5lu", k.v[i]);
	fprintf(f, " %8.0f  %s\n", c->flop, ratio);
}

static void
special_list(const struct gpuproj_sass_kernel *k, char *buf, size_t size)
{
	size_t len = 0, i;
	int op;

	buf[0] = '\0';
	for (op = 0; op < GPUPROJ_SASS_OP_COUNT; op++) {
		if (k->special_ops & (1u << op))
			len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
						len ? " " : "", gpuproj_sass_op_name(op));
		if (len >= size)
			return;
	}
	for (i = 0; i < k->n_slow_paths && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "; slow paths: ",
					k->slow_paths[i]);
}

int
gpuproj_sass_write_table(FILE *f, const struct gpuproj_sass *s, const char *source,
			 const char *filter, double w)
{
	size_t i, a, nk = 0;
	const char *prev = NULL;

	for (i = 0; i < gpuproj_sass_count(s); i++) {
		const struct gpuproj_sass_kernel *k = gpuproj_sass_at(s, i);

		if ((!filter || strstr(k->name, filter)) && (!prev || strcmp(prev, k->name)))
			nk++;
		if (!filter || strstr(k->name, filter))
			prev = k->name;
	}
	fprintf(f, "# gpuproj sass: %zu kernel%s, %zu architecture%s; source %s; slow-path "
		"weight %g\n", nk, nk == 1 ? "" : "s", gpuproj_sass_arch_count(s),
		gpuproj_sass_arch_count(s) == 1 ? "" : "s", source, w);
	for (a = 0; a < gpuproj_sass_arch_count(s); a++) {
		const char *note;
		int st = gpuproj_sass_arch_status(s, a, &note);

		char *shown = term_strdup(note);

		fprintf(f, "# %s: %s%s\n", gpuproj_sass_arch_at(s, a), st ? "not analysed: " : "",
			shown ? shown : "");
		free(shown);
	}
	fprintf(f, "# counts: static instructions, each basic block once; FLOP: FMA-type 2, "
		"ADD/MUL-type 1 per instruction;\n"
		"# ratio = (F_s - S_s + S_t) / F_s with F = all + w*slow, S = special + w*slow "
		"(docs/sass.md)\n");
	prev = NULL;
	for (i = 0; i < gpuproj_sass_count(s); i++) {
		const struct gpuproj_sass_kernel *k = gpuproj_sass_at(s, i);
		char specials[1024], ratio[64];
		double r;
		int rc;
		size_t c;

		if (filter && !strstr(k->name, filter))
			continue;
		if (!prev || strcmp(prev, k->name) != 0) {
			/* A name read from a cubin: escaped for the terminal (util.h term_text()). */
			char *name = term_strdup(k->name);

			special_list(k, specials, sizeof(specials));
			fprintf(f, "\n%s%s%s\n", name ? name : "", specials[0] ? "  special: "
				: "  no special functions", specials);
			free(name);
			fprintf(f, "  %-7s %-9s %6s", "arch", "code", "blocks");
			for (c = 0; c < sizeof(col_names) / sizeof(col_names[0]); c++)
				fprintf(f, " %5s", col_names[c]);
			fprintf(f, " %8s  %s\n", "FLOP", "ratio");
		}
		prev = k->name;
		if (strcmp(k->arch, source) == 0) {
			snprintf(ratio, sizeof(ratio), "1 (source)");
		} else {
			rc = gpuproj_sass_flop_ratio(s, k->name, source, k->arch, &r);
			if (rc == GPUPROJ_OK)
				snprintf(ratio, sizeof(ratio), "%.4f", r);
			else
				snprintf(ratio, sizeof(ratio), "- (%s)", rc == GPUPROJ_E_NOTFOUND
					 ? "not on the source" : gpuproj_strerror(rc));
		}
		print_counts_row(f, k->arch, "all", &k->all, ratio);
		print_counts_row(f, "", "special", &k->special, "");
		print_counts_row(f, "", "slow path", &k->slow, "");
		print_mma_row(f, k, gpuproj_sass_find(s, k->name, source));
		if (k->origin != GPUPROJ_SASS_FROM_SASS)
			fprintf(f, "  %-7s (from %s %s%d)\n", "", k->origin == GPUPROJ_SASS_FROM_PTX
				? "PTX" : "SASS", k->origin == GPUPROJ_SASS_FROM_PTX ? "compute_"
				: "sm_", k->image_arch);
	}
	return ferror(f) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

/*
 * "mma": {"float": n, "int": n, "fp64": n} (shaped MMA instructions),
 * "mma_tcgen05" the same for tcgen05 MMAs, "mma_flop" (FLOP of the shaped
 * ones), "mma_ratio" (all MMAs, target/source; null without MMAs on the
 * source). Nonzero on ENOMEM.
 */
static int
mma_json(json_t *e, const struct gpuproj_sass_kernel *k, const struct gpuproj_sass_kernel *src)
{
	json_t *m = json_object(), *u = json_object();
	unsigned long ns = src ? mma_total(&src->all) : 0;
	double flop = 0;
	int op, bad = !m || !u;

	for (op = 1; op < GPUPROJ_TOP_COUNT && !bad; op++) {
		bad |= json_object_set_new(m, mma_names[op], json_integer(k->all.mma[op]));
		bad |= json_object_set_new(u, mma_names[op], json_integer(k->all.mma_unshaped[op]));
		flop += k->all.mma_flop[op];
	}
	bad |= json_object_set_new(e, "mma", m);
	bad |= json_object_set_new(e, "mma_tcgen05", u);
	bad |= json_object_set_new(e, "mma_flop", json_num(flop));
	bad |= json_object_set_new(e, "mma_ratio", ns ? json_num((double)mma_total(&k->all) /
								 (double)ns)
						    : json_null());
	return bad;
}

static json_t *
counts_json(const struct gpuproj_sass_counts *c)
{
	json_t *o = json_object();
	int op, bad = 0;

	for (op = 0; op < GPUPROJ_SASS_OP_COUNT; op++) {
		if (c->n[op])
			bad |= json_object_set_new(o, gpuproj_sass_op_name(op),
						   json_integer(c->n[op]));
	}
	bad |= json_object_set_new(o, "blocks", json_integer(c->blocks));
	bad |= json_object_set_new(o, "flop", json_num(c->flop));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
gpuproj_sass_json(const struct gpuproj_sass *s, const char *source, const char *filter, double w,
		  char **ret_text)
{
	json_t *root = json_object(), *archs = json_array(), *kernels = json_array();
	json_t *jk = NULL, *jarchs = NULL;
	const char *prev = NULL;
	char *text;
	size_t i, a;
	int bad = 0;

	bad |= json_object_set_new(root, "schema", json_string("gpuproj-sass/1"));
	bad |= json_object_set_new(root, "source_arch", json_string_lossy(source));
	bad |= json_object_set_new(root, "slow_path_weight", json_num(w));
	bad |= json_object_set_new(root, "formula",
				   json_string("ratio = (F_s - S_s + S_t) / F_s, F = all.flop + "
					       "w*slow.flop, S = special.flop + w*slow.flop"));
	for (a = 0; a < gpuproj_sass_arch_count(s); a++) {
		json_t *ja = json_object();
		const char *note;
		int st = gpuproj_sass_arch_status(s, a, &note);

		bad |= json_object_set_new(ja, "arch", json_string(gpuproj_sass_arch_at(s, a)));
		bad |= json_object_set_new(ja, "status",
					   json_string(st ? gpuproj_strerror(st) : "ok"));
		bad |= json_object_set_new(ja, "note", json_string_lossy(note));
		bad |= json_array_append_new(archs, ja);
	}
	bad |= json_object_set_new(root, "archs", archs);
	for (i = 0; i < gpuproj_sass_count(s); i++) {
		const struct gpuproj_sass_kernel *k = gpuproj_sass_at(s, i);
		json_t *e = json_object(), *ops = json_array(), *slow = json_array();
		double r;
		size_t j;
		int op;

		if (filter && !strstr(k->name, filter)) {
			json_decref(e);
			json_decref(ops);
			json_decref(slow);
			continue;
		}
		if (!prev || strcmp(prev, k->name) != 0) {
			jk = json_object();
			jarchs = json_object();
			bad |= json_object_set_new(jk, "name", json_string_lossy(k->name));
			bad |= json_object_set_new(jk, "archs", jarchs);
			bad |= json_array_append_new(kernels, jk);
		}
		prev = k->name;
		bad |= json_object_set_new(e, "origin", json_string_lossy(
			k->origin == GPUPROJ_SASS_FROM_SASS ? "sass" :
			k->origin == GPUPROJ_SASS_FROM_COMPATIBLE ? "compatible-sass" : "ptx"));
		bad |= json_object_set_new(e, "image_arch", json_integer(k->image_arch));
		bad |= json_object_set_new(e, "file", json_string_lossy(k->file));
		bad |= json_object_set_new(e, "all", counts_json(&k->all));
		bad |= json_object_set_new(e, "special", counts_json(&k->special));
		bad |= json_object_set_new(e, "slow", counts_json(&k->slow));
		for (op = 0; op < GPUPROJ_SASS_OP_COUNT; op++) {
			if (k->special_ops & (1u << op))
				bad |= json_array_append_new(ops,
							     json_string(gpuproj_sass_op_name(op)));
		}
		for (j = 0; j < k->n_slow_paths; j++)
			bad |= json_array_append_new(slow, json_string_lossy(k->slow_paths[j]));
		bad |= json_object_set_new(e, "special_functions", ops);
		bad |= json_object_set_new(e, "slow_paths", slow);
		if (gpuproj_sass_flop_ratio(s, k->name, source, k->arch, &r) == GPUPROJ_OK)
			bad |= json_object_set_new(e, "flop_ratio", json_num(r));
		else
			bad |= json_object_set_new(e, "flop_ratio", json_null());
		bad |= mma_json(e, k, gpuproj_sass_find(s, k->name, source));
		bad |= json_object_set_new(jarchs, k->arch, e);
	}
	bad |= json_object_set_new(root, "kernels", kernels);
	/* Every member is checked: a failure is ENOMEM, never a silently missing field. */
	text = bad ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	*ret_text = text ? xasprintf("%s\n", text) : NULL;
	free(text);
	return *ret_text ? GPUPROJ_OK : GPUPROJ_E_NOMEM;
}

