/* SPDX-License-Identifier: MIT */
/*
 * The profile as jansson JSON, for the writers that extend it (project-write.c's
 * projections). The JSON helpers are in util-escape.h. Not installed;
 * the public API never exposes jansson types.
 */
#ifndef GPUPROJ_PROFILE_JSON_H
#define GPUPROJ_PROFILE_JSON_H

#include <stdarg.h>

#include <jansson.h>

#include <gpuproj/profile.h>

/*
 * The profile as a new JSON object (caller decrefs). NULL, with reterr
 * filled, when a value is out of range (gpuproj_profile_validate()) or on
 * ENOMEM.
 */
json_t *profile_to_json(const struct gpuproj_profile *p, struct gpuproj_error *reterr);
/*
 * As profile_to_json(), with json_stream_placeholder() (util-escape.h)
 * for "kernels": the kernels are written one at a time with
 * profile_kernel_json() (a new reference: kernel i as JSON).
 */
json_t *profile_to_json_head(const struct gpuproj_profile *p, struct gpuproj_error *reterr);
json_t *profile_kernel_json(const struct gpuproj_profile *p, size_t i);
/* A json_stream_array writer of the kernels of the profile `userdata`. */
int profile_kernel_write(FILE *f, void *userdata, size_t i, size_t indent);
/*
 * gpuproj_profile_load_buffer() parsing the text whole (one jansson tree),
 * as it did before it loaded large profiles in pieces: the fuzzer's
 * reference for the piecewise loader (same result, same error).
 */
int profile_load_buffer_whole(const char *text, size_t len, const char *name,
			      struct gpuproj_profile **ret, struct gpuproj_error *reterr);
/*
 * Write `root` (from profile_to_json_head(), maybe extended) with p's
 * kernels streamed in, atomically to `path` ("-" = standard output).
 */
int profile_stream_save(json_t *root, const struct gpuproj_profile *p, const char *path,
			struct gpuproj_error *reterr);

/*
 * The profile reader, for the parts of the format that live in their own
 * files (timeline-json.c), in profile-json-reader.c: a schema error at a JSON path ("timeline.
 * patterns[2]"), positioned at the value (or, when the message starts with
 * a quoted member name, that member's value) when the text holds it, and
 * the out-of-memory error. Both return the status to return.
 */
struct profile_reader {
	const char *file;
	const char *text;	/* the JSON text, for the position of a schema error */
	size_t len;
	struct gpuproj_error *err;
	char **scratch;		/* strings decoded from *_hex members, freed after the load */
	size_t n_scratch, cap_scratch;
};
int profile_reader_bad(struct profile_reader *rd, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* profile_reader_bad() with a va_list. */
int profile_reader_badv(struct profile_reader *rd, const char *path, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int profile_reader_nomem(struct profile_reader *rd);

/* timeline-json.c: the "timeline" member (docs/formats/profile.md); NULL on ENOMEM. */
json_t *timeline_to_json(const struct gpuproj_profile *p);
/* Read the "timeline" member `v` into p (its kernels already read). */
int timeline_from_json(struct profile_reader *rd, json_t *v, struct gpuproj_profile *p);

#endif
