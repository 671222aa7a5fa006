/* SPDX-License-Identifier: MIT */
/*
 * What timeline.c shares with timeline-profile.c. Not installed.
 */
#ifndef GPUPROJ_TIMELINE_PRIVATE_H
#define GPUPROJ_TIMELINE_PRIVATE_H

#include <gpuproj/timeline.h>

/*
 * Deep-copy `src` into `dst` (its nodes and their graph-kernel lists).
 * GPUPROJ_OK, or GPUPROJ_E_NOMEM with `dst` holding what was copied
 * (free it with gpuproj_tl_pattern_clear()).
 */
int timeline_pattern_copy(struct gpuproj_tl_pattern *dst, const struct gpuproj_tl_pattern *src);

#endif
