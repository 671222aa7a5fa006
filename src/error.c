/* SPDX-License-Identifier: MIT */
/*
 * Status strings and the error detail channel (include/gpuproj/error.h).
 * Thread safety: reentrant; no global state.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "util.h"


const char *
gpuproj_strerror(int status)
{
	switch ((enum gpuproj_status)status) {
	case GPUPROJ_OK: return "success";
	case GPUPROJ_E_INVAL: return "invalid argument";
	case GPUPROJ_E_NOMEM: return "out of memory";
	case GPUPROJ_E_IO: return "input/output error";
	case GPUPROJ_E_PARSE: return "syntax error";
	case GPUPROJ_E_SCHEMA: return "schema violation";
	case GPUPROJ_E_NOTFOUND: return "not found";
	case GPUPROJ_E_MISSING: return "missing input";
	case GPUPROJ_E_UNSUPPORTED: return "not supported";
	case GPUPROJ_E_BACKEND: return "CUPTI/driver failure";
	case GPUPROJ_E_MISMATCH: return "inputs do not match";
	case GPUPROJ_E_LIMIT: return "input exceeds a limit";
	}
	return "unknown status";
}

char *
gpuproj_error_format(const struct gpuproj_error *err, char *buf, size_t size)
{
	if (size == 0)
		return buf;
	if (!err) {
		snprintf(buf, size, "(no error)");
		return buf;
	}
	if (err->file[0] && err->line > 0 && err->column > 0)
		snprintf(buf, size, "%s:%d:%d: %s", err->file, err->line, err->column, err->message);
	else if (err->file[0] && err->line > 0)
		snprintf(buf, size, "%s:%d: %s", err->file, err->line, err->message);
	else if (err->file[0])
		snprintf(buf, size, "%s: %s", err->file, err->message);
	else
		snprintf(buf, size, "%s", err->message);
	return buf;
}

int
error_setv(struct gpuproj_error *err, int status, const char *file, int line, int column,
	   const char *fmt, va_list ap)
{
	if (!err)
		return status;
	err->status = status;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	err->line = line;
	err->column = column;
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	return status;
}

int
error_set(struct gpuproj_error *err, int status, const char *file, int line, int column,
	  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(err, status, file, line, column, fmt, ap);
	va_end(ap);
	return status;
}

int
error_locate(struct gpuproj_error *err, int status, const char *file, int line, int column)
{
	if (!err)
		return status;
	err->status = status;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	err->line = line;
	err->column = column;
	return status;
}
