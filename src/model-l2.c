/* SPDX-License-Identifier: MIT */
/*
 * L2 residency of repeated launches (include/gpuproj/model.h,
 * gpuproj_l2_hit_share()): how much of a kernel's working set stays in L2
 * from one launch to the next. The ramp and its fit are documented at
 * GPUPROJ_L2_RESIDENT_RATIO in model.h.
 *
 * Thread safety: stateless and reentrant.
 */
#include "config.h"

#include <math.h>

#include <gpuproj/model.h>

double
gpuproj_l2_hit_share(double footprint_b, double l2_b)
{
	double r;

	if (!(l2_b > 0) || !isfinite(l2_b) || !(footprint_b >= 0) || !isfinite(footprint_b))
		return 0;
	r = footprint_b / l2_b;
	if (r <= GPUPROJ_L2_RESIDENT_RATIO)
		return 1;
	if (r >= GPUPROJ_L2_THRASH_RATIO)
		return 0;
	return (GPUPROJ_L2_THRASH_RATIO - r) / (GPUPROJ_L2_THRASH_RATIO - GPUPROJ_L2_RESIDENT_RATIO);
}
