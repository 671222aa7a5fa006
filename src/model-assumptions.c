/* SPDX-License-Identifier: MIT */
/*
 * What the models assume in place of inputs a profile lacks
 * (include/gpuproj/model.h enum gpuproj_assumption, docs/models.md
 * "Missing inputs"): the one table of assumptions (word, the input whose
 * absence makes it, what it means, the metrics that input is), the kernel
 * a model sees with inputs taken away (gpuproj_model_options.drop_inputs,
 * `gpuproj validate --drop`), and the built-in table of how much each
 * assumption widens a model's calibrated interval (src/data/assumptions.json,
 * schema "gpuproj-assumptions/1", written by `gpuproj validate
 * --fit-assumptions`: validate.h). Thread safety: constant data; the
 * built-in table is parsed once (pthread_once).
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

/* The metrics of one input, as --drop takes them away (GPUPROJ_M_COUNT ends a list). */
#define END GPUPROJ_M_COUNT

static const struct {
	struct gpuproj_assumption_info info;
	enum gpuproj_metric metrics[16];
} table[GPUPROJ_ASSUME_COUNT] = {
	[GPUPROJ_ASSUME_SHARED] = {
		{ "shared unbounded", "shared",
		  "no shared.wavefronts: the shared-memory level is no constraint (a lower bound "
		  "there)" },
		{ GPUPROJ_M_SHARED_WAVEFRONTS, GPUPROJ_M_SHARED_BYTES,
		  GPUPROJ_M_SHARED_BANK_CONFLICTS, END } },
	[GPUPROJ_ASSUME_WARPS] = {
		{ "full warps", "warp-efficiency",
		  "no warp_efficiency: every lane of a warp active (1)" },
		{ GPUPROJ_M_WARP_EFFICIENCY, END } },
	[GPUPROJ_ASSUME_L1] = {
		{ "l1 unmeasured", "l1", "no bytes.l1: no L1 level, no L1 hits counted" },
		{ GPUPROJ_M_BYTES_L1, GPUPROJ_M_SECTORS_L1, END } },
	[GPUPROJ_ASSUME_L2] = {
		{ "l2 unmeasured", "l2",
		  "no bytes.l2: no L2 level, the bytes above DRAM counted at L1 (a lower bound)" },
		{ GPUPROJ_M_BYTES_L2, GPUPROJ_M_SECTORS_L2, END } },
	[GPUPROJ_ASSUME_DRAM] = {
		{ "dram unmeasured", "dram",
		  "no bytes.dram: no DRAM level, L2 serves every byte below L1 (a lower bound)" },
		{ GPUPROJ_M_BYTES_DRAM, GPUPROJ_M_BYTES_DRAM_READ, GPUPROJ_M_BYTES_DRAM_WRITE,
		  GPUPROJ_M_SECTORS_DRAM, END } },
	[GPUPROJ_ASSUME_FLOP] = {
		{ "compute unbounded", "flop",
		  "no FP instruction counts: only the memory levels bound (a lower bound)" },
		{ GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL,
		  GPUPROJ_M_INST_FP32_FMA, GPUPROJ_M_INST_FP32_ADD, GPUPROJ_M_INST_FP32_MUL,
		  GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL,
		  GPUPROJ_M_INST_FP16, GPUPROJ_M_INST_FP32, GPUPROJ_M_INST_FP64, END } },
	[GPUPROJ_ASSUME_MIX] = {
		{ "issue lower bound", "mix",
		  "no instruction mix (inst.int, inst.ldst, inst.warp): the instructions counted "
		  "stand for all (a lower bound on issue)" },
		{ GPUPROJ_M_INST_INT, GPUPROJ_M_INST_LDST, GPUPROJ_M_INST_OTHER,
		  GPUPROJ_M_INST_WARP, GPUPROJ_M_INST_THREAD, END } },
	[GPUPROJ_ASSUME_GEOMETRY] = {
		{ "occupancy unknown", "geometry",
		  "no launch geometry: no occupancy or wave term" },
		{ END } },
	[GPUPROJ_ASSUME_REGISTERS] = {
		{ "registers unknown", "registers",
		  "no regs_per_thread: no register limit on occupancy" },
		{ END } },
	[GPUPROJ_ASSUME_REGS_CAPPED] = {
		{ "registers capped", NULL,
		  "more registers than the target allows: fitted into its limit (spills not "
		  "modelled)" },
		{ END } },
	[GPUPROJ_ASSUME_PERCENTAGES] = {
		{ "percentages derived", NULL,
		  "sol on counters: speed-of-light percentages derived from them against the "
		  "source's ceilings" },
		{ END } },
	[GPUPROJ_ASSUME_TENSOR_SHAPE] = {
		{ "tensor shape assumed", NULL,
		  "tensor FLOP from instruction counts x the default MMA shape of the compute "
		  "capability" },
		{ END } },
	[GPUPROJ_ASSUME_BINDING] = {
		{ "binding unknown", NULL,
		  "no counter at all: the envelope of the FP32 and DRAM ratios, the interval "
		  "spanning both" },
		{ END } },
};

const struct gpuproj_assumption_info *
gpuproj_assumption_info(enum gpuproj_assumption a)
{
	return (unsigned)a < GPUPROJ_ASSUME_COUNT ? &table[a].info : NULL;
}

int
gpuproj_assumption_from_input(const char *input, enum gpuproj_assumption *ret)
{
	int a;

	if (!input || !ret)
		return GPUPROJ_E_INVAL;
	for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
		if (table[a].info.input && strcasecmp(table[a].info.input, input) == 0) {
			*ret = (enum gpuproj_assumption)a;
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

char *
gpuproj_assumption_words(unsigned bits, char *buf, size_t size)
{
	size_t len = 0;
	int a;

	if (!buf || !size)
		return buf;
	buf[0] = '\0';
	for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
		if (!(bits & (1u << a)))
			continue;
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", len ? ", " : "", table[a].info.word);
	}
	return buf;
}

/* The static tag of a kernel whose geometry is taken away (profile.h). */
static char no_geometry_tag[] = GPUPROJ_TAG_NO_GEOMETRY;

const struct gpuproj_kernel *
model_drop_inputs(const struct gpuproj_kernel *k, unsigned drop, struct gpuproj_kernel *buf)
{
	int a, i;

	if (!drop || !k)
		return k;
	*buf = *k;
	for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
		if (!(drop & (1u << a)))
			continue;
		for (i = 0; table[a].metrics[i] != END; i++) {
			buf->metric_sum[table[a].metrics[i]] = 0;
			buf->metric_n[table[a].metrics[i]] = 0;
		}
	}
	if (drop & (1u << GPUPROJ_ASSUME_REGISTERS))
		buf->regs_per_thread = 0;
	if (drop & (1u << GPUPROJ_ASSUME_GEOMETRY))
		buf->tag = no_geometry_tag; /* a view: the profile's signature is untouched */
	return buf;
}

/* ---- the built-in widening table ---- */

extern const char gpuproj_builtin_assumptions[];
extern const size_t gpuproj_builtin_assumptions_len;

struct widening {
	double lo, hi;
	bool set;
};

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
/* [model index (model_index())][assumption] */
static struct widening *widen;
static char *origin;

/* Read the table; a broken one leaves every factor at 1 (a test guards the file). */
static void
load_builtin(void)
{
	json_error_t jerr;
	json_t *root = json_loadb(gpuproj_builtin_assumptions, gpuproj_builtin_assumptions_len, 0,
				  &jerr);
	json_t *factors, *f, *prov;
	size_t i, nm = model_index_count();

	widen = calloc(nm * GPUPROJ_ASSUME_COUNT, sizeof(*widen));
	if (!root || !widen)
		goto out;
	prov = json_object_get(root, "provenance");
	if (json_is_object(prov)) {
		const char *created = json_string_value(json_object_get(prov, "created"));
		const char *split = json_string_value(json_object_get(prov, "split"));
		size_t nc = json_array_size(json_object_get(prov, "corpora"));

		origin = xasprintf("widening measured %s by dropping each input from %zu data "
				   "set%s (%s)", created ? created : "(undated)", nc,
				   nc == 1 ? "" : "s", split ? split : "all comparisons");
	}
	factors = json_object_get(root, "factors");
	json_array_foreach(factors, i, f) {
		const char *word = json_string_value(json_object_get(f, "assumption"));
		const struct gpuproj_model *m =
			gpuproj_model_find(json_string_value(json_object_get(f, "model")));
		double lo = json_number_value(json_object_get(f, "lo"));
		double hi = json_number_value(json_object_get(f, "hi"));
		int a;

		if (!word || !m || !(lo > 0 && lo <= 1) || !(hi >= 1 && isfinite(hi)))
			continue;
		for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
			struct widening *w = &widen[model_index(m) * GPUPROJ_ASSUME_COUNT + a];

			if (strcmp(table[a].info.word, word) != 0)
				continue;
			w->lo = lo;
			w->hi = hi;
			w->set = true;
		}
	}
out:
	json_decref(root);
}

bool
gpuproj_assumption_widening(const struct gpuproj_model *m, enum gpuproj_assumption a,
			    double *ret_lo, double *ret_hi)
{
	size_t mi = model_index(m);
	const struct widening *w;

	if (ret_lo)
		*ret_lo = 1;
	if (ret_hi)
		*ret_hi = 1;
	pthread_once(&builtin_once, load_builtin);
	if (!widen || mi >= model_index_count() || (unsigned)a >= GPUPROJ_ASSUME_COUNT)
		return false;
	w = &widen[mi * GPUPROJ_ASSUME_COUNT + a];
	if (!w->set)
		return false;
	if (ret_lo)
		*ret_lo = w->lo;
	if (ret_hi)
		*ret_hi = w->hi;
	return true;
}

const char *
gpuproj_assumptions_origin(void)
{
	pthread_once(&builtin_once, load_builtin);
	return origin ? origin : "widening not measured";
}

void
model_widen(const struct gpuproj_model *m, unsigned assumed, double *lo, double *hi)
{
	int a;

	for (a = 0; a < GPUPROJ_ASSUME_COUNT; a++) {
		double wl, wh;

		if (!(assumed & (1u << a)))
			continue;
		gpuproj_assumption_widening(m, (enum gpuproj_assumption)a, &wl, &wh);
		*lo *= wl;
		*hi *= wh;
	}
}
