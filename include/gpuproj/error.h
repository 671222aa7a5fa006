/* SPDX-License-Identifier: MIT */
/**
 * @file error.h
 * Status codes and the error detail channel shared by every gpuproj API.
 *
 * Every fallible function returns an `int` that is a value of
 * enum gpuproj_status (0 on success) and, where it parses or validates
 * input, fills an optional caller-owned struct gpuproj_error with the file,
 * line and column of the problem and a one-line message. Nothing in the
 * library prints; callers decide what to show (see gpuproj_error_format()).
 */
#ifndef GPUPROJ_ERROR_H
#define GPUPROJ_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Status codes. Values are stable: only ever append.
 */
enum gpuproj_status {
	GPUPROJ_OK = 0,             /**< success */
	GPUPROJ_E_INVAL = 1,        /**< invalid argument (a caller bug or bad option value) */
	GPUPROJ_E_NOMEM = 2,        /**< out of memory */
	GPUPROJ_E_IO = 3,           /**< a file could not be opened, read, written or renamed */
	GPUPROJ_E_PARSE = 4,        /**< syntax error in YAML, JSON or CSV input */
	GPUPROJ_E_SCHEMA = 5,       /**< well-formed input that breaks its schema */
	GPUPROJ_E_NOTFOUND = 6,     /**< a named GPU, kernel or model does not exist */
	GPUPROJ_E_MISSING = 7,      /**< an input a model needs is missing (named in the message) */
	GPUPROJ_E_UNSUPPORTED = 8,  /**< the operation does not apply (e.g. nothing to project from) */
	GPUPROJ_E_BACKEND = 9,      /**< the CUPTI or driver layer failed */
	GPUPROJ_E_MISMATCH = 10,    /**< inputs that must agree do not (GPUs, applications, versions) */
	GPUPROJ_E_LIMIT = 11,       /**< an input exceeds a documented limit (size, nesting depth, count) */
};

/** Size of struct gpuproj_error's message buffer, bytes. */
#define GPUPROJ_ERROR_MSG_SIZE 1024
/** Size of struct gpuproj_error's file-name buffer, bytes. */
#define GPUPROJ_ERROR_FILE_SIZE 512

/**
 * Where and why an operation failed. Caller-allocated; functions that take
 * a `struct gpuproj_error *reterr` fill it on failure only and accept NULL.
 */
struct gpuproj_error {
	int status;                                 /**< enum gpuproj_status of the failure */
	char file[GPUPROJ_ERROR_FILE_SIZE];         /**< input file name, "" when none */
	int line;                                   /**< 1-based line, 0 when unknown */
	int column;                                 /**< 1-based column, 0 when unknown */
	char message[GPUPROJ_ERROR_MSG_SIZE];       /**< one line, no trailing newline */
};

/**
 * A short English description of a status code.
 *
 * @param status a value of enum gpuproj_status
 * @return a static string; "unknown status" for values outside the enum
 */
const char *gpuproj_strerror(int status);

/**
 * Format an error as `file:line:column: message` (omitting the parts that
 * are unknown), the form compilers use, so editors can jump to it.
 *
 * @param err the error (NULL formats as "(no error)")
 * @param buf output buffer, always NUL-terminated when size > 0
 * @param size size of buf in bytes
 * @return buf
 */
char *gpuproj_error_format(const struct gpuproj_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_ERROR_H */
