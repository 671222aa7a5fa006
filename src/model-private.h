/* SPDX-License-Identifier: MIT */
/*
 * Internal model entry points: one per model file, registered in model.c.
 * Each fills `out` (status, interval, point, binding, why) and returns
 * out->status. Not installed.
 */
#ifndef GPUPROJ_MODEL_PRIVATE_H
#define GPUPROJ_MODEL_PRIVATE_H

#include <gpuproj/model.h>

/* seed 000, eqs. 1–10 (model-hroof.c) */
int hroof_project(const struct gpuproj_kernel *k, const struct gpuproj_target *src,
		  const struct gpuproj_target *tgt, double flop_ratio,
		  struct gpuproj_projection *out);

#endif
