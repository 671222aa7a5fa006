/* SPDX-License-Identifier: MIT */
/**
 * @file merge.h
 * Merging the per-rank (or per-process) profiles of one job into one job
 * profile (`gpuproj merge`, docs/gate-merge.md).
 *
 * What a merge computes, per kernel signature:
 * - launches, profiled launches and duration statistics summed over the
 *   ranks (gpuproj_stats_merge(): n, sum, min, max and mean exact; m2 by
 *   the parallel Welford formula);
 * - metrics as launch-weighted means: metric_sum and metric_n add up, so the
 *   merged per-launch mean is Σ sum / Σ n over the profiled launches of
 *   every rank; extra metrics likewise; reference times on other GPUs as
 *   launch-weighted means;
 * - per-rank statistics of the signature's total time on each rank (mean ×
 *   launches), one sample per merged rank, ranks without the signature
 *   counting 0 ns (struct gpuproj_rank_stats in gpuproj_kernel.ranks), and
 *   from them the imbalance max / mean − 1 (gpuproj_merge_imbalance());
 * - the same per-rank statistics for the Σ kernel time of each rank
 *   (gpuproj_run_info.ranks).
 *
 * Signatures are matched on name, tag, grid, block and dynamic shared
 * memory; the device ordinal is not part of the match (it is local to a
 * node and a process: rank 5 on device 1 runs the same kernel as rank 4 on
 * device 0), and merged records carry device 0.
 *
 * The merged profile has process.rank = -1, process.pid = -1, the host when
 * every rank agrees on it (else none), argv and attributes of the first
 * rank plus the attribute "merged_ranks" = the number of ranks, the device
 * of the first rank, run.wall_ns = the longest rank's wall time, run.gpu_ns
 * = Σ over ranks (NaN when any rank lacks it), dropped records summed.
 * Already merged profiles can be merged again (hierarchical merges): their
 * rank statistics fold in as the ranks they summarise.
 *
 * Memory: the merge keeps only the merged records; gpuproj_merge_files()
 * loads, folds and frees one rank at a time (or a small window of ranks
 * when parsing in parallel), so peak memory is about one rank profile per
 * loader thread plus the result.
 *
 * Thread safety: a struct gpuproj_merge is used by one thread at a time;
 * distinct merges are independent. gpuproj_merge_files() may start its own
 * loader threads (options.threads) and joins them before returning.
 */
#ifndef GPUPROJ_MERGE_H
#define GPUPROJ_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/error.h>
#include <gpuproj/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Options of a merge. Zero-initialise, then set what you need. */
struct gpuproj_merge_options {
	/**
	 * Merge ranks whose application or GPU differ, or that repeat a rank
	 * number, instead of failing with GPUPROJ_E_MISMATCH; each difference
	 * is reported once through `warn`.
	 */
	bool force;
	/**
	 * Optional: called with one line (no trailing newline) per difference
	 * accepted because of `force`. The string is valid during the call.
	 */
	void (*warn)(void *userdata, const char *message);
	void *warn_userdata;
	/**
	 * Optional, for gpuproj_merge_files(): called after each file with the
	 * number of files merged so far and the number of files (the last
	 * call has done == total).
	 */
	void (*progress)(void *userdata, size_t done, size_t total);
	void *progress_userdata;
	/**
	 * gpuproj_merge_files(): threads that parse files ahead of the merge
	 * (JSON parsing is nearly all of a merge's time). 0 = one per online
	 * CPU, at most 8; 1 = parse in the calling thread. Files are still
	 * folded one at a time in the order given, so the result does not
	 * depend on this; at most 2 × threads parsed profiles wait in memory.
	 * Callbacks are only ever called from the calling thread.
	 */
	unsigned threads;
};

/** A merge in progress (opaque). */
struct gpuproj_merge;

/**
 * Start a merge.
 *
 * @param opt options, copied; NULL for defaults
 * @param[out] ret the merge, released with gpuproj_merge_free()
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (ret NULL), GPUPROJ_E_NOMEM
 */
int gpuproj_merge_new(const struct gpuproj_merge_options *opt, struct gpuproj_merge **ret);

/** Free a merge and its partial result; accepts NULL; returns NULL. */
struct gpuproj_merge *gpuproj_merge_free(struct gpuproj_merge *m);

/**
 * Fold one rank's profile into the merge. The first rank that names its
 * application fixes the application the others must match; likewise for
 * the GPU.
 *
 * Application: basename of process.application, else of argv[0]; GPU:
 * device.target when both profiles carry it, else device.name (compared
 * case-insensitively, blanks trimmed). A rank that does not say is not
 * compared.
 *
 * @param m the merge
 * @param rank the rank's profile (read only; the caller keeps ownership
 *        and may free it as soon as this returns)
 * @param label how to name the rank in messages (its file name), or NULL
 * @param[out] reterr optional; on failure the message names both files
 *             and what differs
 * @return GPUPROJ_OK;
 *         GPUPROJ_E_MISMATCH without `force` when the application or the
 *         GPU differs from the first rank's, or when the rank number
 *         (process.rank ≥ 0) was merged already; the merge is unchanged;
 *         GPUPROJ_E_SCHEMA for a merged input whose kernels' rank
 *         statistics disagree with its run.ranks (the merge is unchanged);
 *         GPUPROJ_E_INVAL for NULL arguments or a merge that already
 *         failed with GPUPROJ_E_NOMEM;
 *         GPUPROJ_E_NOMEM (the merge is then unusable: free it)
 */
int gpuproj_merge_add(struct gpuproj_merge *m, const struct gpuproj_profile *rank,
		      const char *label, struct gpuproj_error *reterr);

/** @return the number of ranks merged so far (a merged input counts its ranks) */
size_t gpuproj_merge_ranks(const struct gpuproj_merge *m);

/**
 * Finish the merge: fill the rank statistics of signatures some ranks did
 * not launch with zeros, set the job-level fields and hand the profile over.
 * Records are sorted by total time, longest first.
 *
 * @param m the merge; afterwards only gpuproj_merge_free() may be called
 * @param[out] ret the job profile, owned by the caller
 * @param[out] reterr optional
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL when no rank was added ("no rank
 *         profiles to merge") or the merge was finished already;
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_merge_finish(struct gpuproj_merge *m, struct gpuproj_profile **ret,
			 struct gpuproj_error *reterr);

/**
 * Merge profile files in the order given: load one, fold it, free it
 * (with opt->threads, files are parsed ahead by worker threads; the fold
 * order and the result stay the same).
 *
 * @param paths profile files (gpuproj-profile/1 JSON); "-" reads stdin
 * @param n number of paths
 * @param opt options or NULL
 * @param[out] ret the job profile, owned by the caller; untouched on failure
 * @param[out] reterr optional; names the file at fault
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (n == 0: "no rank profiles to
 *         merge"); the errors of gpuproj_profile_load() (GPUPROJ_E_IO,
 *         GPUPROJ_E_PARSE, GPUPROJ_E_SCHEMA, GPUPROJ_E_NOMEM) for the first
 *         file that fails to load; those of gpuproj_merge_add()
 */
int gpuproj_merge_files(const char *const *paths, size_t n,
			const struct gpuproj_merge_options *opt, struct gpuproj_profile **ret,
			struct gpuproj_error *reterr);

/**
 * Fold one kernel record into another (launches, profiled launches,
 * duration statistics, metrics, extra metrics, reference times; static
 * shared memory and registers per thread take the larger value, the
 * demangled name the first known). The signature fields and the rank
 * statistics of `dst` are left alone. Used by the merge and by the gate
 * (include/gpuproj/gate.h) to fold device ordinals.
 *
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL arguments); GPUPROJ_E_NOMEM
 *         (dst may then hold part of src's extra metrics or references)
 */
int gpuproj_kernel_merge(struct gpuproj_kernel *dst, const struct gpuproj_kernel *src);

/**
 * Load imbalance of a signature over the ranks of a merged profile: max /
 * mean − 1 of the per-rank total time (0 = perfectly balanced; 1 = the
 * slowest rank spends twice the average).
 *
 * @return the imbalance, or NaN when the record has no rank statistics or
 *         its mean per-rank time is 0
 */
double gpuproj_merge_imbalance(const struct gpuproj_rank_stats *r);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_MERGE_H */
