/* SPDX-License-Identifier: MIT */
/*
 * Between target.c (the loader, which owns struct gpuproj_targets) and
 * target-derive.c (provisional entries); not part of the API.
 */
#ifndef GPUPROJ_TARGET_PRIVATE_H
#define GPUPROJ_TARGET_PRIVATE_H

#include <gpuproj/target.h>

/*
 * Mark the one GPU of a set gpuproj_targets_derive() just loaded as
 * provisional (GPUPROJ_BASIS_DEVICE), derived from `derived_from`'s per-SM
 * figures (copied). @return GPUPROJ_OK, GPUPROJ_E_NOMEM
 */
int target_mark_provisional(struct gpuproj_targets *s, const char *derived_from);

/* A loaded set (include/gpuproj/target.h): the GPUs and the references. */
struct gpuproj_targets {
	struct gpuproj_target *gpus;
	size_t n;
	char **ref_keys;
	char **ref_texts;
	size_t n_refs;
};

#endif
