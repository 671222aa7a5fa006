/* SPDX-License-Identifier: MIT */
/*
 * The profile as jansson JSON, for the writers that extend it (report.c's
 * projections). The JSON helpers are in report-common.h. Not installed;
 * the public API never exposes jansson types.
 */
#ifndef GPUPROJ_PROFILE_JSON_H
#define GPUPROJ_PROFILE_JSON_H

#include <jansson.h>

#include <gpuproj/profile.h>

/*
 * The profile as a new JSON object (caller decrefs). NULL, with reterr
 * filled, when a value is out of range (gpuproj_profile_validate()) or on
 * ENOMEM.
 */
json_t *profile_to_json(const struct gpuproj_profile *p, struct gpuproj_error *reterr);

#endif
