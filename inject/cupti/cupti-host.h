/* SPDX-License-Identifier: MIT */
/*
 * C interface to the CUPTI Profiler Host API (cupti_profiler_host.h), which
 * only compiles as C++ (it includes <string>). The implementation is the one
 * C++ translation unit of libproj.so, cupti-host.cpp; nothing else includes
 * cupti_profiler_host.h. This header is plain C and C++.
 *
 * The host API needs no GPU: it validates metric names for a chip, builds
 * config images, counts passes and evaluates counter-data images.
 * Status values are CUptiResult codes (0 = CUPTI_SUCCESS); the caller turns
 * them into text with cuptiGetResultString().
 *
 * Thread safety: inj_host_load() once, before anything else; a struct
 * inj_host is used by one thread at a time (callers serialise).
 */
#ifndef INJ_CUPTI_HOST_H
#define INJ_CUPTI_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A profiler host object for one chip (opaque). */
struct inj_host;

/**
 * Resolve the host API from a dlopen() handle of libcupti.
 * @return 0, or -1 when a symbol is missing (the name is in *ret_missing)
 */
int inj_host_load(void *libcupti, const char **ret_missing);

/** True once inj_host_load() succeeded. */
bool inj_host_loaded(void);

/**
 * Create a range-profiler host object.
 * @param chip chip name as cuptiDeviceGetChipName returns it ("GA100")
 * @param avail counter-availability image or NULL
 * @param[out] ret the object (free with inj_host_free())
 * @return CUptiResult (46 = unknown chip)
 */
int inj_host_new(const char *chip, const uint8_t *avail, struct inj_host **ret);

/** Deinitialise and free; accepts NULL. */
void inj_host_free(struct inj_host *h);

/**
 * Whether a metric name is accepted for a chip: added alone to a scratch
 * host object (a rejected name would otherwise poison the real one).
 * @param[out] ret_status optional: the CUptiResult of the attempt
 */
bool inj_host_metric_valid(const char *chip, const uint8_t *avail, const char *name,
			   int *ret_status);

/**
 * Add metrics to `h` and build its config image.
 * @param[out] ret_image malloc'd image (caller frees), 8-byte aligned
 * @param[out] ret_size its size, bytes
 * @param[out] ret_passes passes needed under replay
 * @return CUptiResult
 */
int inj_host_config(struct inj_host *h, const char *const *names, size_t n, uint8_t **ret_image,
		    size_t *ret_size, size_t *ret_passes);

/**
 * Evaluate metrics of one range of a decoded counter-data image.
 * @param values out, n entries
 * @return CUptiResult
 */
int inj_host_evaluate(struct inj_host *h, const uint8_t *image, size_t size, size_t range,
		      const char *const *names, size_t n, double *values);

/**
 * Number of passes of a config image (cuptiProfilerHostGetNumOfPasses).
 * @return CUptiResult
 */
int inj_host_passes(uint8_t *image, size_t size, size_t *ret_passes);

#ifdef __cplusplus
}
#endif

#endif
