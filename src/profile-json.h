/* SPDX-License-Identifier: MIT */
/*
 * Internal JSON helpers shared by profile I/O and the report writers.
 * Not installed; the public API never exposes jansson types.
 */
#ifndef GPUPROJ_PROFILE_JSON_H
#define GPUPROJ_PROFILE_JSON_H

#include <jansson.h>

#include <gpuproj/profile.h>

/* The profile as a new JSON object (caller decrefs); NULL on ENOMEM. */
json_t *profile_to_json(const struct gpuproj_profile *p);

/* `root` as text with full double precision and a final newline; malloc'd, NULL on ENOMEM. */
char *json_text(json_t *root);

/* Dump `root` with full double precision and write it atomically. */
int json_save_atomic(json_t *root, const char *path, struct gpuproj_error *reterr);

#endif
