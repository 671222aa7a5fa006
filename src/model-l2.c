/* SPDX-License-Identifier: MIT */
/*
 * Two effects of repeated launches (src/model-private.h):
 * the L2 residency of a kernel's working set from one launch to the next
 * (gpuproj_l2_hit_share(), gpuproj_l2_capacity_dram(); the ramp and its
 * fit are documented at GPUPROJ_L2_RESIDENT_RATIO), and the launch floor
 * of back-to-back launches (gpuproj_launch_floor_ns()).
 *
 * Thread safety: stateless and reentrant.
 */
#include "config.h"

#include <math.h>

#include <gpuproj/model.h>

#include "model-private.h"

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
	return (GPUPROJ_L2_THRASH_RATIO - r) /
	       (GPUPROJ_L2_THRASH_RATIO - GPUPROJ_L2_RESIDENT_RATIO);
}

/*
 * The source's footprint F from its DRAM bytes D_s and L2 of C_s bytes
 * (model.h, gpuproj_l2_capacity_dram()): D_s = F · (1 − h(F / C_s)) with
 * h the ramp of gpuproj_l2_hit_share(), r0 = GPUPROJ_L2_RESIDENT_RATIO,
 * r1 = GPUPROJ_L2_THRASH_RATIO:
 *   D_s = 0:               F = r0 · C_s (the most the L2 kept entirely)
 *   0 < D_s < r1 · C_s:    F · (F / C_s − r0) / (r1 − r0) = D_s, so
 *                          F = (r0 · C_s + √(r0² · C_s² + 4 · (r1 − r0) · C_s · D_s)) / 2
 *   D_s ≥ r1 · C_s:        F = D_s (nothing stayed)
 */
static double
footprint(double ds, double cs)
{
	const double r0 = GPUPROJ_L2_RESIDENT_RATIO, r1 = GPUPROJ_L2_THRASH_RATIO;

	if (ds <= 0)
		return r0 * cs;
	if (ds >= r1 * cs)
		return ds;
	return (r0 * cs + sqrt(r0 * r0 * cs * cs + 4.0 * (r1 - r0) * cs * ds)) / 2.0;
}

int
gpuproj_l2_capacity_dram(const struct gpuproj_kernel *k, const struct gpuproj_target *src,
			 const struct gpuproj_target *tgt, double *ret_dram, double *ret_footprint)
{
	double ds, b2, cs, ct, f;

	if (!k || !src || !tgt || !ret_dram)
		return GPUPROJ_E_INVAL;
	if (!gpuproj_kernel_has(k, GPUPROJ_M_BYTES_DRAM) || !gpuproj_kernel_has(k, GPUPROJ_M_BYTES_L2))
		return GPUPROJ_E_MISSING;
	if (!(src->limits.l2_mib > 0) || !(tgt->limits.l2_mib > 0))
		return GPUPROJ_E_UNSUPPORTED;
	ds = gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM);
	b2 = gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_L2);
	if (ds < 0 || b2 < 0)
		return GPUPROJ_E_INVAL;
	cs = src->limits.l2_mib * 1048576.0;
	ct = tgt->limits.l2_mib * 1048576.0;
	/* Every byte of the footprint passes L2 at least once: F ≤ B_L2. */
	f = fmin(footprint(ds, cs), b2);
	if (ret_footprint)
		*ret_footprint = f;
	*ret_dram = fmin(f * (1.0 - gpuproj_l2_hit_share(f, ct)), b2);
	/* The same L2 size keeps what it kept (D_s may exceed F: passes that missed twice). */
	if (ct == cs)
		*ret_dram = ds;
	return GPUPROJ_OK;
}

double
gpuproj_launch_floor_ns(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
			double *ret_graph_share)
{
	double fs, fg, g = 0;

	if (ret_graph_share)
		*ret_graph_share = NAN;
	if (!k || !gpu)
		return NAN;
	fs = gpu->launch_floor_us[GPUPROJ_LAUNCH_STREAM];
	fg = gpu->launch_floor_us[GPUPROJ_LAUNCH_GRAPH];
	if (!(fs > 0) || !(fg > 0))
		return NAN;
	if (k->launch_mode_known) {
		g = k->launches ? (double)k->graph_launches / (double)k->launches : 0;
		if (ret_graph_share)
			*ret_graph_share = g;
	}
	return ((1 - g) * fs + g * fg) * 1e3;
}
