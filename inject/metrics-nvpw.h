/* SPDX-License-Identifier: MIT */
/*
 * Logical metrics (docs/internals/DESIGN.md §3, enum gpuproj_metric) → NVPW metric names.
 *
 * Every logical metric has an ordered list of candidates ([CUPTI-MET]; the
 * core's table, include/gpuproj/nvmetrics.h);
 * a candidate is one NVPW name or a sum "a+b+c" of several, each term
 * optionally weighted ("a.sum+-0.5*b.sum"), with a scale factor (e.g. 1/32
 * for warp efficiency from a per-warp ratio). The tensor metrics' lists are
 * the core's (include/gpuproj/tensor.h), per GPUPROJ_TENSOR mode. At start-up
 * the list is resolved for the chip at hand by asking a validator (the host
 * API) about each name, first valid candidate wins; nothing is hard-coded
 * per chip. The profiler then collects the union of the chosen names plus
 * gpu__time_duration.sum, and inj_metrics_values() turns the raw values of
 * one range back into logical values.
 *
 * Thread safety: the candidate table is constant; a resolved set is
 * immutable and may be read from any thread.
 */
#ifndef INJ_METRICS_NVPW_H
#define INJ_METRICS_NVPW_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/nvmetrics.h>
#include <gpuproj/profile.h>
#include <gpuproj/tensor.h>

/** The NVPW metric giving a profiled launch's duration, ns. */
#define INJ_DURATION_METRIC GPUPROJ_NV_DURATION

/** Maximum NVPW names in one candidate sum. */
#define INJ_MAX_TERMS 8

/** How one logical metric is obtained on a chip. */
struct inj_metric_map {
	const char *expr;	/* the chosen candidate as written in the table, NULL = unavailable */
	double scale;		/* value = scale × Σ factor·term */
	size_t n_terms;
	size_t term[INJ_MAX_TERMS]; /* indices into inj_metric_set.names */
	double factor[INJ_MAX_TERMS]; /* weight of each term (1 unless written "f*name") */
	bool assumed;		/* FLOP from instruction counts × an assumed shape */
	char shape[40];		/* that shape ("HMMA.16816"), when assumed */
	char note[96];		/* why a tensor metric is unavailable ("tcgen05 …"), or "" */
};

/** A resolved metric set for one chip. */
struct inj_metric_set {
	char chip[32];
	const char **names;	/* NVPW names to collect (owned array of static strings) */
	size_t n_names;
	size_t duration_index;	/* index of INJ_DURATION_METRIC, or SIZE_MAX when unavailable */
	struct inj_metric_map map[GPUPROJ_M_COUNT];
	size_t n_unavailable;	/* logical metrics without a valid candidate */
	enum gpuproj_tensor_mode tensor; /* the mode the tensor metrics were resolved in */
};

/**
 * Validator: whether NVPW metric `name` is accepted on the chip.
 * @param ud caller data
 */
typedef bool (*inj_metric_valid_fn)(void *ud, const char *name);

/**
 * Resolve every logical metric for a chip.
 * @param chip chip name, copied into the set
 * @param mode which tensor metrics (GPUPROJ_TENSOR); in GPUPROJ_TENSOR_INST the
 *        FLOP come from instruction counts × gpuproj_tensor_shape_default()
 *        of the chip's architecture (map.assumed), none where the chip's
 *        shapes are not static (tcgen05)
 * @param valid validator (called once per distinct name tried)
 * @param[out] ret new set (free with inj_metrics_free())
 * @return 0, or -1 when out of memory
 */
int inj_metrics_resolve(const char *chip, enum gpuproj_tensor_mode mode, inj_metric_valid_fn valid,
			void *ud, struct inj_metric_set **ret);

/** Free a set; accepts NULL. */
void inj_metrics_free(struct inj_metric_set *s);

/**
 * Logical values of one range from its raw values (parallel to s->names).
 * @param out GPUPROJ_M_COUNT values, NaN where the metric is unavailable
 *            or a term is not finite
 */
void inj_metrics_values(const struct inj_metric_set *s, const double *raw, double *out);

/** Number of candidates of a logical metric in a tensor mode (for tests and docs). */
size_t inj_metrics_candidate_count(enum gpuproj_tensor_mode mode, enum gpuproj_metric m);
/** The i-th candidate expression of a logical metric, or NULL. */
const char *inj_metrics_candidate(enum gpuproj_tensor_mode mode, enum gpuproj_metric m, size_t i);

#endif
