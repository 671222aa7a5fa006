/* SPDX-License-Identifier: MIT */
/*
 * The command that collects what the default model needs, for the tool and
 * GPU an imported profile came from (gpuproj_import_collection(),
 * include/gpuproj/import.h): an Nsight Compute export gets the ncu line of
 * its chip (gpuproj_ncu_metrics(), the list `gpuproj ncu-metrics --chip`
 * prints), an nvprof export the nvprof metrics its GPU has — a Kepler user
 * is not sent to ncu, which does not support that GPU — and a GPU of the
 * other tool's range the other tool. Which tool supports which GPU: the
 * Profiler User's Guide (CUDA 12.3: "The NVIDIA Volta platform is the last
 * architecture on which these tools [nvprof, Visual Profiler] are fully
 * supported"; nvprof: "not supported on devices with compute capability 8.0
 * and higher"); the Nsight Compute release notes (2020.1: "Removed support
 * for the Pascal SM 6.x GPU architecture"; 2024.1's GPU support table:
 * Kepler, Maxwell, Pascal "No", Volta GV100 onwards "Yes"). nvprof's
 * half-precision FLOP counts exist from compute capability 5.3 (Profiler
 * User's Guide, Metrics Reference: flop_count_hp_* is listed for 5.3, 6.x
 * and 7.x, not 3.x or 5.0–5.2). Thread safety: reentrant.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "import-nvprof.h"
#include "util.h"

/* The nvprof metrics of the default model's inputs (nvp_inputs[] names them), in this order. */
static const enum nvp nvprof_base[] = {
	NVP_SP_FMA, NVP_SP_ADD, NVP_SP_MUL, NVP_DP_FMA, NVP_DP_ADD, NVP_DP_MUL,
	NVP_WARP_EXEC_EFF, NVP_GLD_TP, NVP_GST_TP, NVP_L2_RD_TR, NVP_L2_WR_TR, NVP_L2_RD_TP,
	NVP_DRAM_RD_TR, NVP_DRAM_WR_TR, NVP_SH_LD_TR, NVP_SH_ST_TR,
};
/* Half precision: compute capability 5.3 and later (file comment). */
static const enum nvp nvprof_half[] = { NVP_HP_FMA, NVP_HP_ADD, NVP_HP_MUL };

/* CC as one number, 75 for 7.5; 0 when unknown. */
static int
cc_of(const struct gpuproj_device_info *d, const struct gpuproj_target *t)
{
	if (d->cc_major > 0)
		return d->cc_major * 10 + d->cc_minor;
	if (t && t->vendor == GPUPROJ_VENDOR_NVIDIA && t->cc_major > 0)
		return t->cc_major * 10 + t->cc_minor;
	return 0;
}

static void
nvprof_lines(struct strbuf *sb, int cc)
{
	size_t i;

	strbuf_append(sb, "nvprof --csv --print-gpu-trace --log-file trace.csv ./app\n"
		      "nvprof --csv --metrics ");
	for (i = 0; i < ARRAY_LENGTH(nvprof_base); i++)
		strbuf_printf(sb, "%s%s", i ? "," : "", nvp_inputs[nvprof_base[i]].name);
	for (i = 0; cc >= 53 && i < ARRAY_LENGTH(nvprof_half); i++)
		strbuf_printf(sb, ",%s", nvp_inputs[nvprof_half[i]].name);
	strbuf_append(sb, " --log-file metrics.csv ./app\n"
		      "gpuproj import nvprof trace.csv metrics.csv -o run.json");
}

static void
ncu_line(struct strbuf *sb, const char *chip)
{
	const char *m[64];
	size_t n = gpuproj_ncu_metrics(chip, m, ARRAY_LENGTH(m)), i;

	strbuf_append(sb, "ncu --csv --page raw --metrics ");
	for (i = 0; i < n && i < ARRAY_LENGTH(m); i++)
		strbuf_printf(sb, "%s%s", i ? "," : "", m[i]);
	strbuf_printf(sb, " --log-file run.csv ./app   (`gpuproj ncu-metrics%s%s` prints it)",
		      chip ? " --chip " : "", chip ? chip : "");
}

char *
gpuproj_import_collection(const struct gpuproj_profile *p, const struct gpuproj_targets *ts)
{
	const char *origin = p ? gpuproj_profile_attr(p, "origin") : NULL;
	const struct gpuproj_device_info *d;
	const struct gpuproj_target *t = NULL;
	const char *chip;
	struct strbuf sb;
	bool nvprof;
	int cc;

	if (!origin || (strcmp(origin, "ncu-import") != 0 && strcmp(origin, "nvprof-import") != 0 &&
			strcmp(origin, "nsys-import") != 0))
		return NULL;
	nvprof = strcmp(origin, "nvprof-import") == 0;
	d = gpuproj_profile_device(p);
	if (ts && d->target)
		t = gpuproj_targets_find(ts, d->target);
	if (ts && !t && d->name)
		t = gpuproj_targets_match(ts, d->name);
	chip = d->chip ? d->chip : t ? t->chip : NULL;
	if (chip && !gpuproj_ncu_chip_known(chip))
		chip = NULL;
	cc = cc_of(d, t);
	strbuf_init(&sb);
	if (nvprof && cc >= 72) {
		/* Volta is nvprof's last fully supported architecture. */
		strbuf_printf(&sb, "nvprof does not collect metrics on compute capability %d.%d "
			      "(Profiler User's Guide); Nsight Compute does:\n", cc / 10, cc % 10);
		ncu_line(&sb, chip);
	} else if (nvprof) {
		nvprof_lines(&sb, cc);
	} else if (cc > 0 && cc < 70) {
		strbuf_printf(&sb, "Nsight Compute 2020.1 and later do not support compute "
			      "capability %d.%d (its release notes); nvprof does:\n", cc / 10,
			      cc % 10);
		nvprof_lines(&sb, cc);
	} else {
		ncu_line(&sb, chip);
	}
	return strbuf_steal(&sb);
}
