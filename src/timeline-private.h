/* SPDX-License-Identifier: MIT */
/*
 * What timeline.c shares with timeline-profile.c. Not installed.
 */
#ifndef GPUPROJ_TIMELINE_PRIVATE_H
#define GPUPROJ_TIMELINE_PRIVATE_H

#include <stdint.h>

#include <gpuproj/timeline.h>

/*
 * One step of the timeline's hashes: h ^= v, times 2^64 over the golden
 * ratio, folded (pattern hashes in timeline.c, the kernel-pointer map in
 * timeline-profile.c).
 */
static inline uint64_t
timeline_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9E3779B97F4A7C15ULL;
	return h ^ (h >> 29);
}

/*
 * Deep-copy `src` into `dst` (its nodes and their graph-kernel lists).
 * GPUPROJ_OK, or GPUPROJ_E_NOMEM with `dst` holding what was copied
 * (free it with gpuproj_tl_pattern_clear()).
 */
int timeline_pattern_copy(struct gpuproj_tl_pattern *dst, const struct gpuproj_tl_pattern *src);

/*
 * Whether the host waits for the GPU anywhere in the pattern (a
 * synchronisation, a blocking copy or set). Where it does not, the
 * replay's wall is the host's time alone: the GPU times' spreads do not
 * enter the error bound (their Lipschitz constant is 0), e.g. an epoch cut
 * in a run of asynchronous launches.
 */
bool timeline_pattern_waits(const struct gpuproj_tl_pattern *p);

#endif
