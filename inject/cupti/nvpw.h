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
 * @return NVPA_Status
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

/** The config image built by inj_nvpw_config() (owned by n). */
const uint8_t *inj_nvpw_config_image(const struct inj_nvpw *n, size_t *ret_size);
/** The counter-data prefix built by inj_nvpw_config() (owned by n). */
const uint8_t *inj_nvpw_prefix(const struct inj_nvpw *n, size_t *ret_size);

/** Number of ranges in a counter-data image. @return NVPA_Status */
int inj_nvpw_num_ranges(const uint8_t *image, size_t *ret);

/**
 * Evaluate the configured metrics for one range.
 * @param values out, `count` of inj_nvpw_config() entries
 * @return NVPA_Status
 */
int inj_nvpw_evaluate(struct inj_nvpw *n, const uint8_t *image, size_t size, size_t range,
		      double *values);

/** "NVPA_STATUS_..." text of a status. */
const char *inj_nvpw_status_name(int status);

#endif
