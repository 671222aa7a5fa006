/* SPDX-License-Identifier: MIT */
/*
 * The NVPW host side of the legacy profiler path, for CC 7.0 (GV100), where
 * the range profiler is not available ([CUPTI-LEG]): metric validation
 * and evaluation with the MetricsEvaluator, the config image from
 * RawMetricsConfig, the counter-data prefix from CounterDataBuilder.
 * libnvperf_host.so and libnvperf_target.so are dlopen()ed on first use
 * (the test double provides both).
 *
 * Status values are NVPA_Status codes (0 = success).
 *
 * Thread safety: inj_nvpw_load() once (callers serialise); a struct
 * inj_nvpw is used by one thread at a time.
 */
#ifndef INJ_NVPW_H
#define INJ_NVPW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** One chip's evaluator, config image and counter-data prefix (opaque). */
struct inj_nvpw;

/**
 * Load the NVPW libraries and initialise the host side.
 * @param[out] ret_why on failure, a static description
 * @return 0 or -1
 */
int inj_nvpw_load(const char **ret_why);
/** Unload (at exit); safe when never loaded. */
void inj_nvpw_unload(void);

/**
 * A metrics evaluator for a chip.
 * @param chip chip name ("GV100"), as the profiler reports it
 * @param avail the counter-availability image of the device
 *        (cuptiProfilerGetCounterAvailability), or NULL; borrowed, read
 *        during this call only
 * @param[out] ret new evaluator, freed with inj_nvpw_free(); NULL on failure
 * @return NVPA_Status: 0; NVPA_STATUS_NOT_LOADED before inj_nvpw_load();
 *         NVPA_STATUS_OUT_OF_MEMORY; or what NVPW returned
 */
int inj_nvpw_new(const char *chip, const uint8_t *avail, struct inj_nvpw **ret);
/** Free; accepts NULL. */
void inj_nvpw_free(struct inj_nvpw *n);

/** Whether the evaluator knows a metric name. */
bool inj_nvpw_metric_valid(struct inj_nvpw *n, const char *name);

/**
 * Build the config image and counter-data prefix for `names` (kept in `n`
 * for evaluation, in the same order).
 * @param[out] ret_passes passes under replay
 * @return NVPA_Status
 */
int inj_nvpw_config(struct inj_nvpw *n, const char *const *names, size_t count,
		    size_t *ret_passes);

/**
 * The config image built by inj_nvpw_config() (owned by n; valid until
 * the next inj_nvpw_config() or inj_nvpw_free()); *ret_size in bytes.
 */
const uint8_t *inj_nvpw_config_image(const struct inj_nvpw *n, size_t *ret_size);
/** The counter-data prefix built by inj_nvpw_config() (the same ownership and units). */
const uint8_t *inj_nvpw_prefix(const struct inj_nvpw *n, size_t *ret_size);

/** Number of ranges in a counter-data image. @return NVPA_Status */
int inj_nvpw_num_ranges(const uint8_t *image, size_t *ret);

/**
 * Evaluate the configured metrics for one range.
 * @param image, size a decoded counter-data image and its size in bytes
 * @param range 0-based range index, below inj_nvpw_num_ranges()
 * @param values out, `count` of inj_nvpw_config() entries, in the metrics'
 *        own units (NVPW's base units: bytes, counts, ns, Hz)
 * @return NVPA_Status
 */
int inj_nvpw_evaluate(struct inj_nvpw *n, const uint8_t *image, size_t size, size_t range,
		      double *values);

/** "NVPA_STATUS_..." text of a status. */
const char *inj_nvpw_status_name(int status);

#endif
