/* SPDX-License-Identifier: MIT */
/*
 * The model registry (include/gpuproj/model.h): every model with its
 * projection, details and the inputs it needs, the baselines, and
 * lookups by name and index. Thread safety: constant data.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/interval.h>
#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

static const struct gpuproj_model models[] = {
	{ "hroof",
	  "hierarchical roofline with kernel-specific ceilings: Van Lanker et al., Euro-Par 2024, "
	  "eqs. 1-10 (interval over L1, L2, DRAM; point = midpoint)",
	  hroof_project, hroof_details, hroof_needs, false, NULL, hroof_assumes },
	{ "occupancy",
	  "roofline ratio x occupancy ratio: Srivastava et al., Algorithm 1, eqs. 4-12, with the CUDA "
	  "occupancy rules per GPU and wave quantisation (point; interval to the plain roofline "
	  "ratio)",
	  occupancy_project, occupancy_details, occupancy_needs, false,
	  "its roofline ratio has CUDA-core FLOP only", occupancy_assumes },
	{ "quant",
	  "quantitative roofline: Konstantinidis & Cotronis, JPDC 2017, formulas 2-19 (absolute "
	  "time from instruction mix and target throughputs; interval = overlapped .. serial "
	  "compute and memory)",
	  quant_project, quant_details, quant_needs, false,
	  "quant's instruction mix has CUDA-core FLOP only", quant_assumes },
	{ "irm",
	  "instruction roofline: Ding & Williams 2019 / Leinhauser et al., TOPC 2022, eqs. 1-4, "
	  "projected with the hroof ratio on warp instructions and 32-B transactions (interval "
	  "over L1, L2, DRAM)",
	  irm_project, irm_details, irm_needs, false, NULL, irm_assumes },
	{ "hroof-occ",
	  "hroof with occupancy as latency hiding: Van Lanker et al. eqs. 1-10, each level at "
	  "least the time Little's law allows the target's resident warps (Volkov 2016; CUDA "
	  "occupancy rules, latency_ns), per-SM waves; the default",
	  hroofocc_project, hroofocc_details, hroof_needs, false, NULL, hroofocc_assumes },
	{ "sol",
	  "coarser: hroof's ratio method (Van Lanker et al. eq. 9) on the busy time of each resource "
	  "from Nsight Compute's speed-of-light percentages, plain ceilings, x Srivastava et al.'s "
	  "occupancy ratio (eq. 4); for default-section exports (no byte or FLOP counts)",
	  sol_project, sol_details, sol_needs, true,
	  "sol scales ncu's SM busy % (tensor pipe included) by FP32 ceilings", sol_assumes },
};

/* Baselines: found by name, not listed by gpuproj_model_at() ("--model all"). */
static const struct gpuproj_model baselines[] = {
	{ "naive",
	  "baseline: the ratio of the datasheet rooflines of source and target (peak FP32 FMA, "
	  "dense tensor peaks for tensor work, and peak DRAM bandwidth only)",
	  naive_project, naive_details, naive_needs, false, NULL, naive_assumes },
	{ "envelope",
	  "kernels without counters: the time scaled by the FP32 ceilings and by the DRAM "
	  "bandwidths, the interval spanning both, point = their geometric mean (assumed: "
	  "binding unknown)",
	  envelope_project, envelope_details, envelope_needs, false, NULL, NULL },
};

/* The default model, chosen on the gpuperfpredict validation (docs/validation.md). */
#define DEFAULT_MODEL 4

const struct gpuproj_model *
gpuproj_model_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < ARRAY_LENGTH(models); i++) {
		if (strcasecmp(models[i].name, name) == 0)
			return &models[i];
	}
	for (i = 0; i < ARRAY_LENGTH(baselines); i++) {
		if (strcasecmp(baselines[i].name, name) == 0)
			return &baselines[i];
	}
	return NULL;
}

size_t
model_index_count(void)
{
	return ARRAY_LENGTH(models) + ARRAY_LENGTH(baselines);
}

size_t
model_index(const struct gpuproj_model *m)
{
	if (m >= models && m < models + ARRAY_LENGTH(models))
		return (size_t)(m - models);
	if (m >= baselines && m < baselines + ARRAY_LENGTH(baselines))
		return ARRAY_LENGTH(models) + (size_t)(m - baselines);
	return model_index_count();
}

const struct gpuproj_model *
model_at_index(size_t i)
{
	if (i < ARRAY_LENGTH(models))
		return &models[i];
	i -= ARRAY_LENGTH(models);
	return i < ARRAY_LENGTH(baselines) ? &baselines[i] : NULL;
}

const struct gpuproj_model *
gpuproj_model_default(void)
{
	return &models[DEFAULT_MODEL];
}

size_t
gpuproj_model_count(void)
{
	return ARRAY_LENGTH(models);
}

const struct gpuproj_model *
gpuproj_model_at(size_t i)
{
	return i < ARRAY_LENGTH(models) ? &models[i] : NULL;
}

const char *
gpuproj_model_name(const struct gpuproj_model *m)
{
	return m ? m->name : NULL;
}

const char *
gpuproj_model_summary(const struct gpuproj_model *m)
{
	return m ? m->summary : NULL;
}

bool
gpuproj_model_is_coarse(const struct gpuproj_model *m)
{
	return m && m->coarse;
}

size_t
gpuproj_model_fallbacks(const struct gpuproj_model *m, const struct gpuproj_model **out,
			size_t max)
{
	/* hroof-occ runs without the launch geometry itself (ASSUME_GEOMETRY): no hroof. */
	const struct gpuproj_model *list[2] = { gpuproj_model_find("sol"),
						 gpuproj_model_find("envelope") };
	size_t i;

	if (m != gpuproj_model_default())
		return 0;
	for (i = 0; out && i < max && i < ARRAY_LENGTH(list); i++)
		out[i] = list[i];
	return ARRAY_LENGTH(list);
}

