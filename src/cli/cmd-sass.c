/* SPDX-License-Identifier: MIT */
/*
 * gpuproj sass: count FP instructions per kernel in the SASS of several
 * architectures, find the special-function blocks, and print the
 * target/source FLOP ratio hroof uses (include/gpuproj/sass.h, docs/sass.md).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/sass.h>

#include "cli.h"

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj sass [options] FILE|DIR...\n\n"
		"Compare the SASS of each kernel across GPU architectures (Van Lanker et al.\n"
		"2024, §4.2): FP instructions by kind in all code and in the basic blocks that\n"
		"implement special functions (division, square root, reciprocal, exp/log,\n"
		"sin/cos: MUFU-based sequences and their slow paths), FLOP per static pass,\n"
		"and the target/source FLOP ratio the hroof model applies.\n\n"
		"FILE: an executable, shared library or object (.nv_fatbin, __nv_relfatbin),\n"
		"a fatbin or a cubin; DIR: every *.cubin and *.fatbin in it. Architectures\n"
		"without SASS in the binary are compiled from its PTX (libnvJitLink or ptxas).\n\n"
		"Options:\n"
		"  --arch sm_XY          analyse this architecture; repeat for several\n"
		"                        (default: every architecture with SASS in the input)\n"
		"  --source-arch sm_XY   the source of the ratios (default: the first --arch,\n"
		"                        else the lowest architecture)\n"
		"  --format FMT          table (default) or json\n"
		"  -o, --output FILE     write to FILE instead of standard output\n"
		"  --kernel TEXT         only kernels whose name contains TEXT\n"
		"  --jobs N              parallel nvdisasm / compiler processes (default: CPUs)\n"
		"  --slow-path-weight W  slow-path executions per special-function execution,\n"
		"                        0..1 (default 0: operands are normal numbers)\n"
		"  -q, --quiet           no progress on standard error\n"
		"  -h, --help            show this help\n\n"
		"ratio = (F_s - S_s + S_t) / F_s, F = FLOP of the kernel, S = FLOP of its\n"
		"special blocks, per static pass (each block once); see docs/sass.md.\n"
		"Needs nvdisasm: the CUDA toolkit's, or `pip install nvidia-cuda-nvdisasm`.\n"
		"sm_70/sm_72 (dropped by CUDA 13) need a CUDA 11/12 nvdisasm (and ptxas for\n"
		"PTX): $GPUPROJ_NVDISASM_LEGACY, ~/.cache/gpuproj/legacy-cuda/bin or PATH.\n\n"
		"Exit status: 0 success, 1 failure (also when an architecture could not be\n"
		"analysed; the others are still printed), 2 bad usage.\n");
}

enum format { FMT_TABLE, FMT_JSON };

static void
progress(void *userdata, const char *phase, size_t done, size_t total, const char *what)
{
	(void)userdata;
	fprintf(stderr, "\rgpuproj sass: %s %zu/%zu %s...\033[K", phase, done, total, what);
	if (done == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

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

static int
print_table(FILE *f, const struct gpuproj_sass *s, const char *source, const char *filter,
	    double w)
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

		fprintf(f, "# %s: %s%s\n", gpuproj_sass_arch_at(s, a), st ? "not analysed: " : "",
			note);
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
			special_list(k, specials, sizeof(specials));
			fprintf(f, "\n%s%s%s\n", k->name, specials[0] ? "  special: " : "  no special "
				"functions", specials);
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
		if (k->origin != GPUPROJ_SASS_FROM_SASS)
			fprintf(f, "  %-7s (from %s %s%d)\n", "", k->origin == GPUPROJ_SASS_FROM_PTX
				? "PTX" : "SASS", k->origin == GPUPROJ_SASS_FROM_PTX ? "compute_"
				: "sm_", k->image_arch);
	}
	return ferror(f) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

static json_t *
counts_json(const struct gpuproj_sass_counts *c)
{
	json_t *o = json_object();
	int op;

	for (op = 0; op < GPUPROJ_SASS_OP_COUNT; op++) {
		if (c->n[op])
			json_object_set_new(o, gpuproj_sass_op_name(op), json_integer(c->n[op]));
	}
	json_object_set_new(o, "blocks", json_integer(c->blocks));
	json_object_set_new(o, "flop", json_real(c->flop));
	return o;
}

static char *
json_text(const struct gpuproj_sass *s, const char *source, const char *filter, double w)
{
	json_t *root = json_object(), *archs = json_array(), *kernels = json_array();
	json_t *jk = NULL, *jarchs = NULL;
	const char *prev = NULL;
	char *text;
	size_t i, a;

	json_object_set_new(root, "schema", json_string("gpuproj-sass/1"));
	json_object_set_new(root, "source_arch", json_string(source));
	json_object_set_new(root, "slow_path_weight", json_real(w));
	json_object_set_new(root, "formula", json_string("ratio = (F_s - S_s + S_t) / F_s, "
				"F = all.flop + w*slow.flop, S = special.flop + w*slow.flop"));
	for (a = 0; a < gpuproj_sass_arch_count(s); a++) {
		json_t *ja = json_object();
		const char *note;
		int st = gpuproj_sass_arch_status(s, a, &note);

		json_object_set_new(ja, "arch", json_string(gpuproj_sass_arch_at(s, a)));
		json_object_set_new(ja, "status", json_string(st ? gpuproj_strerror(st) : "ok"));
		json_object_set_new(ja, "note", json_string(note));
		json_array_append_new(archs, ja);
	}
	json_object_set_new(root, "archs", archs);
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
			json_object_set_new(jk, "name", json_string(k->name));
			json_object_set_new(jk, "archs", jarchs);
			json_array_append_new(kernels, jk);
		}
		prev = k->name;
		json_object_set_new(e, "origin", json_string(
			k->origin == GPUPROJ_SASS_FROM_SASS ? "sass" :
			k->origin == GPUPROJ_SASS_FROM_COMPATIBLE ? "compatible-sass" : "ptx"));
		json_object_set_new(e, "image_arch", json_integer(k->image_arch));
		json_object_set_new(e, "file", json_string(k->file));
		json_object_set_new(e, "all", counts_json(&k->all));
		json_object_set_new(e, "special", counts_json(&k->special));
		json_object_set_new(e, "slow", counts_json(&k->slow));
		for (op = 0; op < GPUPROJ_SASS_OP_COUNT; op++) {
			if (k->special_ops & (1u << op))
				json_array_append_new(ops, json_string(gpuproj_sass_op_name(op)));
		}
		for (j = 0; j < k->n_slow_paths; j++)
			json_array_append_new(slow, json_string(k->slow_paths[j]));
		json_object_set_new(e, "special_functions", ops);
		json_object_set_new(e, "slow_paths", slow);
		if (gpuproj_sass_flop_ratio(s, k->name, source, k->arch, &r) == GPUPROJ_OK)
			json_object_set_new(e, "flop_ratio", json_real(r));
		else
			json_object_set_new(e, "flop_ratio", json_null());
		json_object_set_new(jarchs, k->arch, e);
	}
	json_object_set_new(root, "kernels", kernels);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return text;
}

/* What the table and JSON writers need (cli_write_output's render callback). */
struct sass_out {
	bool json;
	const struct gpuproj_sass *s;
	const char *source, *filter;
	double weight;
};

static int
render_sass(FILE *f, void *userdata)
{
	const struct sass_out *o = userdata;
	char *text;
	int r;

	if (!o->json)
		return print_table(f, o->s, o->source, o->filter, o->weight);
	text = json_text(o->s, o->source, o->filter, o->weight);
	r = text && fprintf(f, "%s\n", text) >= 0 ? GPUPROJ_OK : GPUPROJ_E_IO;
	if (!text)
		r = GPUPROJ_E_NOMEM;
	free(text);
	return r;
}

int
cmd_sass(int argc, char **argv)
{
	enum { O_ARCH = 256, O_SOURCE, O_FORMAT, O_KERNEL, O_JOBS, O_WEIGHT };
	static const struct option opts[] = {
		{ "arch", required_argument, NULL, O_ARCH },
		{ "source-arch", required_argument, NULL, O_SOURCE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "kernel", required_argument, NULL, O_KERNEL },
		{ "jobs", required_argument, NULL, O_JOBS },
		{ "slow-path-weight", required_argument, NULL, O_WEIGHT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gpuproj_sass_options sopt = { 0 };
	struct gpuproj_sass *s = NULL;
	struct gpuproj_error err = { 0 };
	const char **archs = NULL, *source = NULL, *output = NULL, *filter = NULL;
	size_t n_archs = 0, jobs = 0, a;
	enum format fmt = FMT_TABLE;
	bool quiet = false, all_ok = true;
	char *end;
	int c, ret = EXIT_FAIL;

	optind = 1;
	opterr = 0;
	archs = calloc((size_t)argc + 2, sizeof(*archs));
	if (!archs)
		return fail("out of memory");
	while ((c = getopt_long(argc, argv, ":ho:q", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help(stdout);
			ret = EXIT_OK;
			goto out;
		case O_ARCH: archs[n_archs++] = optarg; break;
		case O_SOURCE: source = optarg; break;
		case 'o': output = optarg; break;
		case O_KERNEL: filter = optarg; break;
		case 'q': quiet = true; break;
		case O_JOBS:
			if (!cli_parse_size("sass", "--jobs", optarg, &jobs)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case O_WEIGHT:
			errno = 0;
			sopt.slow_path_weight = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(sopt.slow_path_weight >= 0) ||
			    sopt.slow_path_weight > 1) {
				ret = usage_error("sass", "--slow-path-weight needs a number between "
						  "0 and 1, got '%s'", optarg);
				goto out;
			}
			break;
		case O_FORMAT:
			if (strcmp(optarg, "table") == 0) {
				fmt = FMT_TABLE;
			} else if (strcmp(optarg, "json") == 0) {
				fmt = FMT_JSON;
			} else {
				ret = usage_error("sass", "--format must be table or json, not '%s'",
						  optarg);
				goto out;
			}
			break;
		default: /* ':' missing value, '?' unknown option */
			ret = cli_option_error("sass", c, argv);
			goto out;
		}
	}
	if (optind >= argc) {
		ret = usage_error("sass", "missing FILE (an executable, fatbin, cubin or a "
				  "directory of them)");
		goto out;
	}
	for (a = 0; a < n_archs; a++) {
		if (strncmp(archs[a], "sm_", 3) != 0 || archs[a][3] < '1' || archs[a][3] > '9') {
			ret = usage_error("sass", "--arch needs sm_XY (e.g. sm_90), got '%s'",
					  archs[a]);
			goto out;
		}
	}
	if (source) {
		if (strncmp(source, "sm_", 3) != 0 || source[3] < '1' || source[3] > '9') {
			ret = usage_error("sass", "--source-arch needs sm_XY (e.g. sm_70), got '%s'",
					  source);
			goto out;
		}
		/* The source is analysed too, first. */
		for (a = 0; a < n_archs && strcmp(archs[a], source) != 0; a++)
			;
		if (n_archs && a == n_archs) {
			memmove(archs + 1, archs, n_archs * sizeof(*archs));
			archs[0] = source;
			n_archs++;
		}
	}
	sopt.archs = archs;
	sopt.n_archs = n_archs;
	sopt.jobs = (unsigned)jobs;
	if (!quiet && cli_stderr_is_tty())
		sopt.progress = progress;
	if (gpuproj_sass_analyze((const char *const *)argv + optind, (size_t)(argc - optind),
				 &sopt, &s, &err)) {
		fail_error(&err);
		goto out;
	}
	if (!source)
		source = gpuproj_sass_arch_at(s, 0);
	for (a = 0; a < gpuproj_sass_arch_count(s); a++) {
		const char *note;

		if (gpuproj_sass_arch_status(s, a, &note) != GPUPROJ_OK) {
			fprintf(stderr, "gpuproj: sass: %s: %s\n", gpuproj_sass_arch_at(s, a), note);
			all_ok = false;
		}
	}
	{
		struct sass_out o = { .json = fmt == FMT_JSON, .s = s, .source = source,
				      .filter = filter, .weight = sopt.slow_path_weight };

		if (cli_write_output(output, render_sass, &o))
			goto out;
	}
	ret = all_ok ? EXIT_OK : EXIT_FAIL;
out:
	gpuproj_sass_free(s);
	free(archs);
	return ret;
}
