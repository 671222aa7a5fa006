/* SPDX-License-Identifier: MIT */
/*
 * gpuproj ncu-metrics: the ncu command line that collects everything the
 * default model needs on a chip (gpuproj_ncu_metrics(), import.h).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/target.h>
#include <gpuproj/tensor.h>

#include "cli.h"

static void
help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj ncu-metrics [--chip NAME] [--tensor MODE] [--list]\n"
		"                           [--targets FILE] [-o FILE] [-q]\n\n"
		"Print the Nsight Compute command line that collects every input of the\n"
		"default model (%s) on a chip, for `gpuproj import ncu`:\n"
		"  ncu --csv --page raw --metrics LIST --log-file run.csv ./app\n"
		"LIST: the duration, the nine FP instruction counts, warp efficiency, L1/L2/DRAM\n"
		"bytes, shared-memory wavefronts, the launch geometry, registers and shared\n"
		"memory (the occupancy term) and the GPU's name: the metric names libproj.so\n"
		"resolves on that chip. They differ on GB202 … GB207 (dram__bytes_op_read/\n"
		"_op_write). With --chip, the tensor counters libproj.so collects there\n"
		"(GPUPROJ_TENSOR) are added. Run it as root or with profiling allowed for users\n"
		"(ERR_NVGPUCTRPERM otherwise); add ncu's filters (-k, -c) as usual.\n\n"
		"Options:\n"
		"  --chip NAME     the chip (GV100, TU102, GA100, GA102, GH100, AD102, GB100,\n"
		"                  GB202, …) or a targets.yaml GPU name (default: every chip\n"
		"                  but GB202 … GB207, which a line on standard error names)\n"
		"  --tensor MODE   tensor counters: ops (per-precision operation counters,\n"
		"                  the default), inst (instruction counts: fewer replay\n"
		"                  passes, FLOP assumed from a shape) or off\n"
		"  --list          print only the comma-separated metric list\n"
		"  --targets FILE  GPU descriptions for --chip GPU-NAME (default:\n"
		"                  $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output FILE  write the command line (or the --list) to FILE instead\n"
		"                  of standard output, atomically\n"
		"  -q, --quiet     no note on standard error (the GB202 … GB207 line)\n"
		"  -h, --help      show this help\n\n",
		gpuproj_model_name(gpuproj_model_default()));
	cli_print_exit_status(f, "ncu-metrics");
}

/* --tensor VALUE is no mode: the usage error, the modes named by tensor.c's table. */
static int
tensor_error(const char *value)
{
	char list[64] = "";
	size_t i, len;

	for (i = 0; i < GPUPROJ_TENSOR_MODE_COUNT; i++) {
		len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "",
			 gpuproj_tensor_mode_name((enum gpuproj_tensor_mode)i));
	}
	return cli_usage_error("ncu-metrics", "--tensor '%s' is not one of %s", value, list);
}

/* What is printed: the metric names, alone (--list) or in the command line. */
struct ncu_out {
	const char *const *names;
	size_t n;
	bool list;
};

static int
render(FILE *f, void *userdata)
{
	const struct ncu_out *o = userdata;
	size_t i;

	if (!o->list)
		fputs("ncu --csv --page raw --metrics ", f);
	for (i = 0; i < o->n; i++)
		fprintf(f, "%s%s", i ? "," : "", o->names[i]);
	if (!o->list)
		fputs(" --log-file run.csv ./app", f);
	fputc('\n', f);
	return ferror(f) ? GPUPROJ_E_IO : GPUPROJ_OK;
}

int
cmd_ncu_metrics(int argc, char **argv)
{
	enum { O_CHIP = 256, O_LIST, O_TARGETS, O_TENSOR };
	static const struct option opts[] = {
		{ "chip", required_argument, NULL, O_CHIP },
		{ "list", no_argument, NULL, O_LIST },
		{ "targets", required_argument, NULL, O_TARGETS },
		{ "tensor", required_argument, NULL, O_TENSOR },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *chip = NULL, *targets_path = NULL, *output = NULL, *names[64];
	struct gpuproj_targets *ts = NULL;
	enum gpuproj_tensor_mode tensor = GPUPROJ_TENSOR_OPS;
	bool list = false, quiet = false;
	struct ncu_out o;
	size_t n;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", cli_quiet_options(opts), NULL)) != -1) {
		switch (c) {
		case 'h': help(stdout); return EXIT_OK;
		case 'o': output = optarg; break;
		case 'q': quiet = true; break;
		case O_CHIP: chip = optarg; break;
		case O_LIST: list = true; break;
		case O_TARGETS: targets_path = optarg; break;
		case O_TENSOR:
			if (gpuproj_tensor_mode_from_name(optarg, &tensor) != GPUPROJ_OK)
				return tensor_error(optarg);
			break;
		default: /* ':' missing value, '?' unknown option */
			return cli_option_error("ncu-metrics", c, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("ncu-metrics", "unexpected argument '%s'", argv[optind]);
	if (chip && !gpuproj_ncu_chip_known(chip)) {
		/* A GPU name of targets.yaml: its chip. */
		const struct gpuproj_target *t;

		if (cli_load_targets(targets_path, &ts, NULL))
			return EXIT_FAIL;
		t = gpuproj_targets_match(ts, chip);
		if (!t || t->vendor != GPUPROJ_VENDOR_NVIDIA || !t->chip ||
		    !gpuproj_ncu_chip_known(t->chip)) {
			cli_fail("ncu-metrics: '%s' is neither an NVIDIA chip gpuproj knows (GV100, "
				 "TU102, GA100, GA102, GH100, AD102, GB100, GB202, …) nor an NVIDIA "
				 "GPU of targets.yaml with one", chip);
			gpuproj_targets_free(ts);
			return EXIT_FAIL;
		}
		chip = t->chip;
	}
	n = gpuproj_ncu_metrics_tensor(chip, tensor, names, 64);
	o = (struct ncu_out){ names, n < 64 ? n : 64, list };
	ret = cli_write_output(output, render, &o);
	if (!ret && !chip && !list && !quiet)
		fprintf(stderr, "gpuproj: on GB202 … GB207: gpuproj ncu-metrics --chip GB202; "
			"tensor counters differ per chip: add --chip\n");
	gpuproj_targets_free(ts);
	return ret;
}
