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

/*
 * The profile reader, for the parts of the format that live in their own
 * files (timeline-json.c): a schema error at a JSON path ("timeline.
 * patterns[2]"), positioned at the value (or, when the message starts with
 * a quoted member name, that member's value) when the text holds it, and
 * the out-of-memory error. Both return the status to return.
 */
struct profile_reader;
int profile_reader_bad(struct profile_reader *rd, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int profile_reader_nomem(struct profile_reader *rd);

/* timeline-json.c: the "timeline" member (docs/formats/profile.md); NULL on ENOMEM. */
json_t *timeline_to_json(const struct gpuproj_profile *p);
/* Read the "timeline" member `v` into p (its kernels already read). */
int timeline_from_json(struct profile_reader *rd, json_t *v, struct gpuproj_profile *p);

#endif
