/* SPDX-License-Identifier: MIT */
/*
 * The profile reader's errors (profile-json.h): a schema error at a JSON
 * path with the line and column of the value it is about, and the
 * out-of-memory error. Below profile-json.c and timeline-json.c, which
 * both report through it. Thread safety: reentrant.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "profile-json.h"
#include "util.h"

int
profile_reader_nomem(struct profile_reader *rd)
{
	return error_set(rd->err, GPUPROJ_E_NOMEM, rd->file, 0, 0, "out of memory");
}

int
profile_reader_bad(struct profile_reader *rd, const char *path, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = profile_reader_badv(rd, path, fmt, ap);
	va_end(ap);
	return r;
}

/*
 * A schema error at PATH, with the line and column of what it is about
 * (json_locate): the value at PATH, or, when the message begins with a
 * quoted member name ("'cc' must be ..."), that member's value.
 */
int
profile_reader_badv(struct profile_reader *rd, const char *path, const char *fmt, va_list ap)
{
	char msg[GPUPROJ_ERROR_MSG_SIZE], member[128] = "";
	int line = 0, col = 0;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (rd->text) {
		const char *end = msg[0] == '\'' ? strchr(msg + 1, '\'') : NULL;

		if (end && (size_t)(end - msg - 1) < sizeof(member))
			snprintf(member, sizeof(member), "%.*s", (int)(end - msg - 1), msg + 1);
		json_locate(rd->text, rd->len, strcmp(path, "(top level)") == 0 ? "" : path,
			    member[0] ? member : NULL, &line, &col);
	}
	return error_set(rd->err, GPUPROJ_E_SCHEMA, rd->file, line, col, "%s: %s", path, msg);
}
