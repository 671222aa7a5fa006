/* SPDX-License-Identifier: MIT */
/*
 * What timeline.c shares with timeline-profile.c, and timeline-profile.c
 * with the trace writer (project-trace.c). Not installed.
 */
#ifndef GPUPROJ_TIMELINE_PRIVATE_H
#define GPUPROJ_TIMELINE_PRIVATE_H

#include <stdint.h>

#include <gpuproj/model.h>
#include <gpuproj/target.h>
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

/*
 * The GPU durations of a profile's timeline nodes on one target, by the
 * rules of timeline.h: one place for gpuproj_timeline_project() and the
 * trace writer, so the trace draws what the whole-run projection sums. A
 * kernel's duration × its projected point (lo, hi) over its source mean;
 * a graph's kernels so, the rest of its span kept; copies and sets by
 * gpuproj_copy_project_ns() (sets as device copies); carried work
 * (GPUPROJ_TL_CARRY) × its thread's ratio of target to source GPU time
 * over its cut epochs (timeline_durations_carry()); on the source itself
 * (src, tgt NULL, the same, or of one name) every time as measured.
 * `p`, `run`, `src` and `tgt` are borrowed and must outlive it.
 * Returns GPUPROJ_OK or GPUPROJ_E_NOMEM (*ret NULL).
 */
struct timeline_durations;

int timeline_durations_new(struct timeline_durations **ret, const struct gpuproj_profile *p,
			   const struct gpuproj_run_projection *run,
			   const struct gpuproj_target *src, const struct gpuproj_target *tgt);
/* The thread's ratio for carried work, r[3] (point, lo, hi; 1 without cut epochs). */
void timeline_durations_carry(const struct timeline_durations *td, uint32_t thread, double r[3]);
/*
 * Node n's duration d[3] (point, lo, hi), ns; its thread's `carry`
 * (timeline_durations_carry()). The counters, when not NULL, are
 * incremented by the kernels kept at their source time (not projected) and
 * by a copy or set kept (no host link, peer and host copies).
 */
void timeline_durations_node(const struct timeline_durations *td, const struct gpuproj_tl_node *n,
			     const double carry[3], double d[3], size_t *kernels_kept,
			     size_t *copies_kept);
/* Accepts NULL. */
void timeline_durations_free(struct timeline_durations *td);

#endif
