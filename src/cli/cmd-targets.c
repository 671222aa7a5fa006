/* SPDX-License-Identifier: MIT */
/*
 * gpuproj targets list|show NAME|check [--one-basis] FILE|derive PROFILE
 */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "cli.h"
#include "util.h"

/* The verbs with their argument, in the order help and messages list them. */
static const char *const verbs[] = { "list", "show NAME", "check FILE", "derive PROFILE" };

const char *
cli_targets_verb(size_t i)
{
	return i < sizeof(verbs) / sizeof(verbs[0]) ? verbs[i] : NULL;
}

/* "list, show NAME, check FILE or derive PROFILE" */
static const char *
verb_list(void)
{
	static char buf[128];
	size_t i, len;

	for (i = 0, buf[0] = '\0'; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		len = strlen(buf);
		snprintf(buf + len, sizeof(buf) - len, "%s%s", i == 0 ? "" :
			 i + 1 == sizeof(verbs) / sizeof(verbs[0]) ? " or " : ", ", verbs[i]);
	}
	return buf;
}

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj targets [--targets FILE] list [--format FMT] [-o FILE]\n"
		"       gpuproj targets [--targets FILE] show NAME [-o FILE]\n"
		"       gpuproj targets check [--one-basis] FILE\n"
		"       gpuproj targets [--targets FILE] derive PROFILE [-o FILE]\n\n"
		"list   one line per GPU: name, arch, SMs, sustained clock, FP64/FP32 FMA GFLOP/s\n"
		"       and DRAM, L2, L1, shared GB/s as the models use them ('*' = measured value)\n"
		"show   every number of one GPU with its basis and source\n"
		"check  validate a targets file (schema gpuproj-targets/1); prints the first\n"
		"       problem as FILE:LINE:COLUMN: message and exits 2\n"
		"derive print a provisional entry (YAML) for the GPU a profile was taken on,\n"
		"       from the driver's device attributes libproj.so recorded and the per-SM\n"
		"       figures of a GPU of the same architecture in the targets file: what\n"
		"       gpuproj projects from when the GPU is not listed; refine it with\n"
		"       measurements (`gpuproj bench`) and add it to your targets file\n\n"
		"Options:\n"
		"  --targets FILE   GPU descriptions (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  --one-basis      check: also every GPU must follow the one-basis rules of\n"
		"                   docs/targets-schema.md that the built-in file follows\n"
		"                   (bw_gbs.dram = stream_gbs.triad, sustained clock, lanes,\n"
		"                   peaks at the boost clock, L2 and DRAM latency)\n"
		"  --format FMT     list: table (default), json (an array, one object per GPU:\n"
		"                   the table's columns, the unit in each key, and 'measured')\n"
		"                   or csv (a header, then a row per GPU: the same columns)\n"
		"  -o, --output FILE  list, show, derive: write to FILE (\"-\" = standard\n"
		"                   output), atomically\n"
		"  -q, --quiet      no note on standard error (derive: the GPU is listed)\n"
		"  -h, --help       show this help\n\n");
	cli_print_exit_status(f, "targets");
}

struct render_args {
	const struct gpuproj_targets *ts;
	const struct gpuproj_target *t;
	const char *origin;
};

enum format { FMT_TABLE, FMT_JSON, FMT_CSV };
static const char *const format_names[] = { "table", "json", "csv" };

static int
render_list(FILE *f, void *userdata)
{
	const struct render_args *a = userdata;

	return gpuproj_targets_write_list(f, a->ts, a->origin);
}

static int
render_list_json(FILE *f, void *userdata)
{
	const struct render_args *a = userdata;

	return gpuproj_targets_write_list_json(f, a->ts);
}

static int
render_list_csv(FILE *f, void *userdata)
{
	const struct render_args *a = userdata;

	return gpuproj_targets_write_list_csv(f, a->ts);
}

/* The options of every verb. */
struct targets_args {
	const char *path, *output;
	bool one_basis, quiet;
	int fmt;
};

static int
render_text(FILE *f, void *userdata)
{
	return fputs(userdata, f) < 0 ? GPUPROJ_E_IO : GPUPROJ_OK;
}

/* `derive PROFILE`: the provisional entry as YAML on standard output or -o FILE. */
static int
derive(const struct targets_args *o, const char *profile_path)
{
	const char *targets_path = o->path;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *known;
	const char *origin = NULL, *name;
	char *yaml = NULL;
	int ret;

	if (cli_load_targets(targets_path, &ts, &origin))
		return EXIT_FAIL;
	if (gpuproj_profile_load(profile_path, &p, &err)) {
		gpuproj_targets_free(ts);
		return cli_fail_error(&err);
	}
	name = gpuproj_profile_device(p)->name;
	known = name ? gpuproj_targets_match(ts, name) : NULL;
	if (known && !o->quiet)
		fprintf(stderr, "gpuproj targets: note: '%s' is already in targets.yaml as %s; "
			"this is what gpuproj would derive without it\n", cli_shown(name),
			known->name);
	if (gpuproj_target_derive_yaml(gpuproj_profile_device(p), ts, &yaml, &err))
		ret = cli_fail("targets: no entry for %s: %s", profile_path, err.message);
	else
		ret = cli_write_output(o->output, render_text, yaml);
	free(yaml);
	gpuproj_profile_free(p);
	gpuproj_targets_free(ts);
	return ret;
}

static int
render_show(FILE *f, void *userdata)
{
	const struct render_args *a = userdata;

	return gpuproj_target_write_show(f, a->ts, a->t);
}

/* The options; returns -1 to go on, else the exit status. */
static int
parse_args(int argc, char **argv, struct targets_args *o)
{
	enum { O_FORMAT = 256 };
	static const struct option opts[] = {
		{ "targets", required_argument, NULL, 't' },
		{ "one-basis", no_argument, NULL, 'b' },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	o->fmt = -1;
	while ((c = getopt_long(argc, argv, ":ho:q", cli_quiet_options(opts), NULL)) != -1) {
		switch (c) {
		case 'h': help(stdout); return EXIT_OK;
		case 't': o->path = optarg; break;
		case 'b': o->one_basis = true; break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = true; break;
		case O_FORMAT:
			if (!cli_parse_format("targets", optarg, format_names,
					      ARRAY_LENGTH(format_names), &o->fmt))
				return EXIT_USAGE;
			break;
		default: return cli_option_error("targets", c, argv); /* ':' or '?' */
		}
	}
	if (optind >= argc)
		return cli_usage_error("targets", "missing verb: %s", verb_list());
	if (o->fmt >= 0 && strcmp(argv[optind], "list") != 0)
		return cli_usage_error("targets", "--format goes with list only");
	if (o->output && strcmp(argv[optind], "check") == 0)
		return cli_usage_error("targets", "-o goes with list, show or derive");
	return -1;
}

/* `check [--one-basis] FILE`. */
static int
check(const struct targets_args *o, const char *file)
{
	struct gpuproj_targets *ts = NULL;
	struct gpuproj_error err = { 0 };

	if (gpuproj_targets_load(file, &ts, &err))
		return cli_fail_error(&err);
	for (size_t i = 0; o->one_basis && i < gpuproj_targets_count(ts); i++) {
		if (gpuproj_target_check_one_basis(gpuproj_targets_get(ts, i), file, &err)) {
			gpuproj_targets_free(ts);
			return cli_fail_error(&err);
		}
	}
	printf("%s: OK, %zu GPUs, schema %s%s\n", file, gpuproj_targets_count(ts),
	       GPUPROJ_TARGETS_SCHEMA, o->one_basis ? ", one basis" : "");
	gpuproj_targets_free(ts);
	return EXIT_OK;
}

int
cmd_targets(int argc, char **argv)
{
	static int (*const list_render[])(FILE *, void *) = {
		render_list, render_list_json, render_list_csv,
	};
	struct targets_args o = { 0 };
	const char *origin = NULL, *verb;
	struct gpuproj_targets *ts = NULL;
	int ret = parse_args(argc, argv, &o);

	if (ret >= 0)
		return ret;
	verb = argv[optind++];
	if (strcmp(verb, "check") == 0) {
		if (optind != argc - 1)
			return cli_usage_error("targets", "check needs exactly one FILE");
		return check(&o, argv[optind]);
	}
	if (o.one_basis)
		return cli_usage_error("targets", "--one-basis goes with check only");
	if (strcmp(verb, "derive") == 0) {
		if (optind != argc - 1)
			return cli_usage_error("targets", "derive needs exactly one PROFILE");
		return derive(&o, argv[optind]);
	}
	if (strcmp(verb, "list") == 0) {
		if (optind != argc)
			return cli_usage_error("targets", "list takes no argument");
	} else if (strcmp(verb, "show") == 0) {
		if (optind != argc - 1)
			return cli_usage_error("targets", "show needs exactly one NAME");
	} else {
		return cli_usage_error("targets", "unknown verb '%s': %s", verb, verb_list());
	}
	if (cli_load_targets(o.path, &ts, &origin))
		return EXIT_FAIL;
	if (strcmp(verb, "list") == 0) {
		struct render_args a = { ts, NULL, origin };

		ret = cli_write_output(o.output, list_render[o.fmt < 0 ? FMT_TABLE : o.fmt], &a);
	} else {
		static const struct gpuproj_lookup_words words = { .hint = "" };
		struct gpuproj_error err = { 0 };
		struct render_args a = { ts, NULL, NULL };

		if (gpuproj_targets_lookup(ts, argv[optind], &words, &a.t, &err))
			ret = cli_fail_error(&err);
		else
			ret = cli_write_output(o.output, render_show, &a);
	}
	gpuproj_targets_free(ts);
	return ret;
}
