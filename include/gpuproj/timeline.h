/* SPDX-License-Identifier: MIT */
/**
 * @file timeline.h
 * The whole run: what an application did besides its kernels (memory
 * copies and sets, synchronisations, event waits between streams, graph
 * launches, host time between its CUDA calls), recorded as a bounded set of
 * repeating patterns, and its replay onto another GPU.
 *
 * The replay follows the dependency-graph simulation of Zhu, Pekhimenko et
 * al., "Daydream: Accurately Estimating the Efficacy of Optimizations for
 * DNN Training", USENIX ATC 2020 (host and device tasks with their
 * dependencies, each task's duration replaced by its what-if duration, the
 * graph replayed in order), and the per-operation scaling of Yu, Gao,
 * Golikov, Pekhimenko, "Habitat: A Runtime-Based Computational Performance
 * Predictor for Deep Neural Network Training", USENIX ATC 2021 (each
 * measured operation's time replaced by its projection onto the target,
 * everything else kept). Unlike both it records any CUDA application, not
 * one DNN training step, and aggregates the run into patterns so that
 * memory stays bounded (docs/internals/DESIGN.md §8).
 *
 * **Epochs.** One application thread's CUDA calls are cut into epochs at
 * the points where the host waited for the GPU and nothing it had issued
 * was still running (a synchronisation, a blocking copy, an event
 * synchronise after which every stream of the epoch is idle). An epoch
 * longer than GPUPROJ_TL_MAX_NODES calls is cut there ("cut"); the next
 * epoch of the thread then begins with one "carried" node per stream whose
 * work was still running at the cut (its stream slot, kept, and how long
 * after the epoch's start that stream stays busy), so that work is
 * waited for where it was (without the carried nodes, a run that
 * synchronised only at its end would lose it, and the wait would appear as
 * GPU latency kept at the source's time on every target). An epoch's
 * structure — every call in host order: what it did (kernel signature,
 * copy kind and size, which stream and event, relative to the epoch), and
 * whether it blocked — is its pattern; epochs of one structure on one
 * thread fold into one struct gpuproj_tl_pattern with a count and, per
 * call, statistics of its times (struct gpuproj_stats): the host time
 * before it (gap), its own host time, the GPU's latency to start it and
 * its GPU duration. A profile keeps at most GPUPROJ_TL_MAX_PATTERNS
 * patterns of at most GPUPROJ_TL_MAX_NODES nodes, GPUPROJ_TL_MAX_TOTAL_NODES
 * in all; epochs that do not fit, whose records were incomplete, or that
 * ran on a thread beyond GPUPROJ_TL_MAX_THREADS are counted with their
 * measured time as "unexplained" (struct gpuproj_tl_unexplained) and
 * carried unchanged into every projection.
 *
 * **Reconstructed epochs.** A profiled launch runs under kernel replay: the
 * launch returns only after every pass, so the host blocks and the epoch
 * around it is distorted. libproj.so reconstructs such an epoch instead of
 * carrying it (an application that synchronises once has no other epoch):
 * folded as measured, each profiled launch then takes the host time of an
 * ordinary launch call (the mean of the run's unprofiled ones), no launch
 * latency, and its kernel's one-pass duration (the mean of its timed
 * launches, or the range profiler's duration of one pass for a kernel that
 * only ran profiled); the epoch's wall time is the replay of that onto the
 * source, and what replay added (the measured minus it) is left out of the
 * timeline's wall_ns and span_ns (struct gpuproj_tl_reconstructed). Every
 * other time of the epoch is as measured. An epoch whose profiled launch
 * was not a kernel launch of a known kernel, or that does not fit the
 * bounds, stays "profiled" (unexplained).
 *
 * **Replay** (gpuproj_timeline_replay()): per pattern, with the mean
 * times, in host order: host clock h += gap; a GPU operation on stream s
 * starts at max(h, s ready, the legacy default stream's work) + latency
 * and ends after its duration on the target; a carried node keeps its
 * stream busy for its duration, scaled by the thread's cut epochs' ratio
 * of target to source GPU time (the work it carries is theirs); a
 * blocking call sets
 * h = max(h, what it waits for) + its own time; an event record marks
 * its stream's ready time; a stream waiting for an event waits for that
 * time. Host segments are kept unchanged (the same host is assumed);
 * each kernel's duration is scaled by its projection (point / source
 * mean), each host copy by the ratio of the target's host link to the
 * source's (target.h struct gpuproj_host_link), device copies and sets by
 * the ratio of the DRAM bandwidths, peer copies are kept.
 *
 * **Error bound.** Replaying a pattern at its mean times instead of every
 * epoch at its own: the makespan of a fixed dependency structure is a
 * maximum of sums of durations, hence 1-Lipschitz in the L1 norm, so the
 * mean over epochs of |replay(epoch) − replay(means)| ≤ Σ over the
 * pattern's times of their mean absolute deviation ≤ Σ of their standard
 * deviations (gpuproj_timeline_bound_ns()). Cut epochs of profiles written
 * before the carried nodes add the GPU work still running at the cut
 * (spill_ns). A projection widens its interval by this bound onto the
 * target (gpuproj_whole_run.bound_ns), and is never below the GPU time
 * of any one stream of one thread (gpuproj_whole_run.floor_ns): a thread
 * whose last epochs end before its GPU work does (one that never
 * synchronises) is otherwise replayed at its host time. The identity check — the replay
 * onto the source GPU against the measured time of the explained epochs —
 * is exact for epochs whose times did not vary and is reported in every
 * output (gpuproj_whole_run.identity_error).
 *
 * Thread safety: a timeline is not locked; it is owned by its profile
 * (gpuproj_profile_timeline()) and follows the profile's rules.
 */
#ifndef GPUPROJ_TIMELINE_H
#define GPUPROJ_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/error.h>
#include <gpuproj/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpuproj_target;
struct gpuproj_run_projection;

/** Version of the profile's "timeline" section this library reads and writes. */
#define GPUPROJ_TIMELINE_VERSION 1
/** Patterns a recording keeps (libproj.so); a merge keeps up to GPUPROJ_TL_MAX_MERGED. */
#define GPUPROJ_TL_MAX_PATTERNS 64
/** Patterns a merged profile keeps (many ranks with few shared patterns). */
#define GPUPROJ_TL_MAX_MERGED 4096
/** Calls (nodes) of one epoch; a longer epoch is cut. */
#define GPUPROJ_TL_MAX_NODES 512
/** Nodes of all patterns of a recording together (memory bound: about 1 MiB). */
#define GPUPROJ_TL_MAX_TOTAL_NODES 4096
/** Application threads a recording follows; epochs of later threads are unexplained. */
#define GPUPROJ_TL_MAX_THREADS 64
/** Distinct kernels kept per graph launch node; the rest is kept unscaled. */
#define GPUPROJ_TL_MAX_GRAPH_KERNELS 16
/** Stream or event slot: none (an event recorded in an earlier epoch, a call without stream). */
#define GPUPROJ_TL_NONE 0xffffu
/** Largest stream or event slot of an epoch. */
#define GPUPROJ_TL_MAX_SLOT 0xfffeu
/** Largest byte count of a copy or set (2^62). */
#define GPUPROJ_TL_MAX_BYTES 4.611686018427388e18
/**
 * The identity check's tolerance: the replay onto the source GPU is within
 * this relative distance of the measured time of the explained epochs
 * unless the epochs' times varied (see "Error bound"); writers flag a
 * larger error.
 */
#define GPUPROJ_TL_IDENTITY_TOLERANCE 0.02

/** What one call of an epoch did. Only ever append (the JSON uses the names). */
enum gpuproj_tl_op {
	GPUPROJ_TL_CALL = 0,       /**< "call": a CUDA call without GPU work (host time only) */
	GPUPROJ_TL_KERNEL,         /**< "kernel": a kernel launch */
	GPUPROJ_TL_COPY,           /**< "copy": a memory copy */
	GPUPROJ_TL_MEMSET,         /**< "memset": a memory set */
	GPUPROJ_TL_GRAPH,          /**< "graph": a graph launch (its kernels in `graph`) */
	GPUPROJ_TL_EVENT_RECORD,   /**< "event_record": an event recorded on a stream */
	GPUPROJ_TL_EVENT_WAIT,     /**< "event_wait": a stream waits for an event */
	GPUPROJ_TL_SYNC_DEVICE,    /**< "sync_device": device (context) synchronise */
	GPUPROJ_TL_SYNC_STREAM,    /**< "sync_stream": stream synchronise */
	GPUPROJ_TL_SYNC_EVENT,     /**< "sync_event": event synchronise */
	/**
	 * "carried": work of the thread's previous (cut) epoch still running on
	 * a stream when this one began; dur_ns is how long after the epoch's
	 * start the stream stays busy (lat_ns 0), on the source
	 */
	GPUPROJ_TL_CARRY,
	GPUPROJ_TL_OP_COUNT
};

/** Copy direction (CUPTI's copyKind, folded). */
enum gpuproj_copy_kind {
	GPUPROJ_COPY_H2D = 0,  /**< "h2d": host to device (also host to array) */
	GPUPROJ_COPY_D2H,      /**< "d2h": device to host (also array to host) */
	GPUPROJ_COPY_D2D,      /**< "d2d": within one device (device, array) */
	/** "p2p": between two devices (kept unchanged: NVLink between GPUs is not modelled) */
	GPUPROJ_COPY_P2P,
	GPUPROJ_COPY_H2H,      /**< "h2h": host to host (kept unchanged) */
	GPUPROJ_COPY_KIND_COUNT
};

/** Why epochs were not folded into patterns (struct gpuproj_tl_unexplained). */
enum gpuproj_tl_why {
	/** "profiled": a launch ran under kernel replay in it, and it could not be reconstructed */
	GPUPROJ_TL_WHY_PROFILED = 0,
	GPUPROJ_TL_WHY_INCOMPLETE,   /**< "incomplete": a record it needed never came */
	GPUPROJ_TL_WHY_OVERFLOW,     /**< "overflow": no room (patterns or nodes full) */
	GPUPROJ_TL_WHY_THREADS,      /**< "threads": a thread beyond GPUPROJ_TL_MAX_THREADS */
	GPUPROJ_TL_WHY_COUNT
};

/** Epochs not in patterns, by reason: their measured wall time is carried unchanged. */
struct gpuproj_tl_unexplained {
	uint64_t epochs;  /**< how many */
	double ns;        /**< Σ of their measured wall time, ns */
};

/**
 * Epochs with a profiled launch, reconstructed (libproj.so, "Reconstructed
 * epochs" in the file comment) and folded into patterns like any other.
 */
struct gpuproj_tl_reconstructed {
	uint64_t epochs;  /**< how many */
	/** Σ of their reconstructed wall time (the replay onto the source), ns */
	double ns;
	/**
	 * Σ of what kernel replay added to their measured wall time (the
	 * host's blocking while the profiled launches replayed, and their
	 * passes beyond one), ns: left out of the timeline's wall_ns and
	 * span_ns
	 */
	double blocking_ns;
};

/** The kernels of one graph launch node: one entry per signature. */
struct gpuproj_tl_graph_kernel {
	const struct gpuproj_kernel *kernel; /**< a kernel of the profile (never NULL) */
	uint32_t launches;                   /**< its launches per graph launch */
	struct gpuproj_stats ns;             /**< Σ of their durations per graph launch, ns */
};

/**
 * One call of a pattern. Times are per epoch, ns, with one sample per epoch
 * the pattern folded (n = the pattern's count); a time that does not apply
 * to the op has n = 0.
 */
struct gpuproj_tl_node {
	enum gpuproj_tl_op op;
	/** Stream slot in the epoch (first used = 0), or GPUPROJ_TL_NONE (call, syncs). */
	uint16_t stream;
	/** Event slot (event ops), or GPUPROJ_TL_NONE: recorded before the epoch. */
	uint16_t event;
	/** The stream is the legacy default stream (ordered with every blocking stream) [GPU?]. */
	bool legacy;
	/** COPY, MEMSET: the host waited for it to finish (not an asynchronous call). */
	bool blocking;
	/** COPY: direction. */
	enum gpuproj_copy_kind copy;
	/** COPY H2D/D2H: the host memory is pinned (page-locked); false: pageable. */
	bool pinned;
	/** COPY, MEMSET: bytes. */
	uint64_t bytes;
	/** KERNEL: the kernel, a record of the owning profile. */
	const struct gpuproj_kernel *kernel;
	/** GRAPH: its kernels, [n_graph] (owned), at most GPUPROJ_TL_MAX_GRAPH_KERNELS. */
	struct gpuproj_tl_graph_kernel *graph;
	size_t n_graph;
	/** Host time before the call: since the previous call of the epoch ended (or the epoch began). */
	struct gpuproj_stats gap_ns;
	/**
	 * The call's own host time: end − start for a call that does not wait;
	 * for one that waits (a synchronisation, a blocking copy), the time
	 * after what it waited for was done: end − max(start, done).
	 */
	struct gpuproj_stats call_ns;
	/** GPU ops: start − max(call start, what it waited for on the GPU). */
	struct gpuproj_stats lat_ns;
	/** GPU ops: duration (a graph: from its first node's start to its last node's end). */
	struct gpuproj_stats dur_ns;
};

/** Epochs of one structure on one thread, folded. */
struct gpuproj_tl_pattern {
	uint32_t thread;            /**< application thread, numbered by first CUDA call (0 first) */
	bool cut;                   /**< the epochs were cut at GPUPROJ_TL_MAX_NODES, not at a wait */
	/**
	 * Its epochs were reconstructed ("Reconstructed epochs"): never folded
	 * with measured epochs of the same structure (part of the structure)
	 */
	bool reconstructed;
	/** gpuproj_tl_pattern_hash() of the structure, kept by gpuproj_timeline_add() (0 = not yet). */
	uint64_t key;
	struct gpuproj_stats wall_ns; /**< measured epoch wall time, ns; n = epochs folded */
	struct gpuproj_tl_node *nodes; /**< [n_nodes], owned */
	size_t n_nodes;
};

/** A profile's whole-run record. */
struct gpuproj_timeline {
	/** Processes merged into it (1 for one process; `gpuproj merge` adds). */
	uint32_t ranks;
	/** Threads seen (Σ over ranks). */
	uint32_t threads;
	/**
	 * Σ over processes of the traced wall time, ns: from the first to the
	 * last timestamp libproj.so took (CUPTI's clock, the clock of every
	 * record). NaN: unknown (the profile's run.wall_ns is used).
	 */
	double wall_ns;
	/**
	 * Σ over processes of the union over threads of their epochs' spans,
	 * ns. With one thread it equals Σ explained + Σ unexplained epoch time;
	 * less when threads overlapped.
	 */
	double span_ns;
	/**
	 * GPU work still running where epochs were cut and not carried into the
	 * next epoch (a bound on the error it adds), ns; 0 from libproj.so since
	 * it carries that work (GPUPROJ_TL_CARRY).
	 */
	double spill_ns;
	/** Epochs not in patterns, by enum gpuproj_tl_why. */
	struct gpuproj_tl_unexplained unexplained[GPUPROJ_TL_WHY_COUNT];
	/** Epochs with a profiled launch that were reconstructed (and are in patterns). */
	struct gpuproj_tl_reconstructed reconstructed;
	struct gpuproj_tl_pattern *patterns; /**< [n_patterns], owned */
	size_t n_patterns;
	/**
	 * Bookkeeping of gpuproj_timeline_add() (not written): the structures of
	 * the last GPUPROJ_TL_GHOSTS epochs refused for lack of room, so that a
	 * recurring one is admitted and a one-off is not (no churn).
	 */
	uint64_t ghost[64];
	unsigned n_ghost;
};

/** Refused structures remembered (struct gpuproj_timeline.ghost). */
#define GPUPROJ_TL_GHOSTS 64

/** @return the JSON name of an op ("kernel"), or NULL when out of range */
const char *gpuproj_tl_op_name(enum gpuproj_tl_op op);
/** @return the JSON name of a copy kind ("h2d"), or NULL when out of range */
const char *gpuproj_copy_kind_name(enum gpuproj_copy_kind k);
/** @return the JSON name of a reason ("profiled"), or NULL when out of range */
const char *gpuproj_tl_why_name(enum gpuproj_tl_why w);
/**
 * @return whether the op has GPU times (lat_ns, dur_ns): kernel, copy,
 *         memset, graph, and carried work
 */
bool gpuproj_tl_op_gpu(enum gpuproj_tl_op op);

/**
 * A new, empty timeline (ranks 1, wall NaN).
 * @return it (free with gpuproj_timeline_free()), or NULL on ENOMEM
 */
struct gpuproj_timeline *gpuproj_timeline_new(void);
/** Free a timeline and its patterns; accepts NULL; returns NULL. */
struct gpuproj_timeline *gpuproj_timeline_free(struct gpuproj_timeline *tl);
/** Free what a pattern owns (nodes, graph kernels) and zero it; accepts NULL. */
void gpuproj_tl_pattern_clear(struct gpuproj_tl_pattern *pat);

/** @return Σ over patterns of count × mean wall: the measured time the patterns explain, ns */
double gpuproj_timeline_explained_ns(const struct gpuproj_timeline *tl);
/** @return Σ of the unexplained epochs' measured time, ns */
double gpuproj_timeline_unexplained_ns(const struct gpuproj_timeline *tl);
/**
 * The error bound of replaying at mean times (see the file comment): Σ over
 * patterns of count × Σ over its nodes of the standard deviations of gap,
 * call, latency and duration (latency and duration only in patterns where
 * the host waits for the GPU: elsewhere the wall is the host's time and
 * does not depend on them), plus spill_ns.
 * @return ns
 */
double gpuproj_timeline_bound_ns(const struct gpuproj_timeline *tl);

/**
 * One call of an epoch as measured, for gpuproj_tl_epoch_fold(): absolute
 * timestamps (ns, any common origin).
 */
struct gpuproj_tl_raw {
	enum gpuproj_tl_op op;
	uint16_t stream, event;     /**< slots, as in struct gpuproj_tl_node */
	bool legacy, blocking, pinned;
	enum gpuproj_copy_kind copy;
	uint64_t bytes;
	const struct gpuproj_kernel *kernel;
	const struct gpuproj_tl_graph_kernel *graph; /**< borrowed; ns: one sample (n = 1) */
	size_t n_graph;
	uint64_t call_start, call_end;  /**< the host call */
	uint64_t op_start, op_end;      /**< GPU ops: the GPU's work */
};

/**
 * Turn one measured epoch into a pattern of count 1: per call the host gap
 * before it, its own time, the GPU's latency and duration, derived so that
 * gpuproj_timeline_replay() with the source's times gives back
 * `end − start` (negative differences, which the replay's rules do not
 * produce — clocks that disagree, dependencies it does not see — are taken
 * as 0, and then the replay differs by that much).
 *
 * @param raw the calls in host order, [n] (1 ≤ n ≤ GPUPROJ_TL_MAX_NODES)
 * @param start the epoch's start (the end of the previous epoch's last call,
 *        or the first call's start), ns
 * @param end the epoch's end (its last call's end), ns
 * @param[out] out the pattern (thread 0, not cut); free with
 *        gpuproj_tl_pattern_clear()
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (n out of range, end < start),
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_tl_epoch_fold(const struct gpuproj_tl_raw *raw, size_t n, uint64_t start,
			  uint64_t end, struct gpuproj_tl_pattern *out);

/**
 * gpuproj_tl_epoch_fold() without allocating (for a recorder that folds
 * many epochs): the pattern's nodes are `nodes` ([n], the caller's) and
 * its graph arrays are raw's. Such a pattern is only read (e.g. passed to
 * gpuproj_timeline_add(), which copies it), never cleared.
 * @return as gpuproj_tl_epoch_fold(); GPUPROJ_E_INVAL also for NULL `nodes`
 */
int gpuproj_tl_epoch_fold_into(const struct gpuproj_tl_raw *raw, size_t n, uint64_t start,
			       uint64_t end, struct gpuproj_tl_node *nodes,
			       struct gpuproj_tl_pattern *out);

/**
 * Whether two patterns have the same structure (thread, cut, and every
 * node's op, slots, flags, copy kind, bytes, kernel signature, graph
 * kernels and launches): the condition for folding them.
 */
bool gpuproj_tl_pattern_same(const struct gpuproj_tl_pattern *a,
			     const struct gpuproj_tl_pattern *b);
/**
 * A hash of the structure gpuproj_tl_pattern_same() compares. Kernels count
 * by record (pointer): every kernel of one timeline is a record of its
 * profile, so equal records mean equal signatures.
 */
uint64_t gpuproj_tl_pattern_hash(const struct gpuproj_tl_pattern *pat);

/**
 * Fold a pattern into the timeline: into the pattern of the same structure
 * (its statistics merged, parallel Welford), or as a new one while there is
 * room (`max_patterns` patterns, `max_nodes` nodes). When there is none, a
 * structure seen before among the last GPUPROJ_TL_GHOSTS refused (one that
 * recurs) evicts a pattern seen once (whose time becomes unexplained,
 * GPUPROJ_TL_WHY_OVERFLOW); otherwise `pat` itself is counted there and
 * its structure remembered. So a run whose epochs never repeat does not
 * churn the table, and one whose steady state starts late still gets in.
 *
 * @param pat the pattern; its kernel pointers must be records of the
 *        timeline's profile; copied (the caller keeps it)
 * @param max_patterns,max_nodes the bounds (GPUPROJ_TL_MAX_PATTERNS and
 *        GPUPROJ_TL_MAX_TOTAL_NODES when recording)
 * @param[out] ret_folded optional: true when folded or added, false when
 *        counted as unexplained
 * @return GPUPROJ_OK or GPUPROJ_E_NOMEM (the timeline unchanged)
 */
int gpuproj_timeline_add(struct gpuproj_timeline *tl, const struct gpuproj_tl_pattern *pat,
			 size_t max_patterns, size_t max_nodes, bool *ret_folded);

/**
 * Merge the timeline of profile `src` into `dst`'s (created when `dst` has
 * none), mapping every kernel of `src`'s patterns to the record of the same
 * signature in `dst` (which must exist: merge the kernels first). Ranks,
 * threads, times and unexplained epochs add; patterns of the same structure
 * fold (threads are renumbered after `dst`'s, since they are other
 * processes' threads, unless `same_process`). Bounded by
 * GPUPROJ_TL_MAX_MERGED patterns.
 *
 * @param same_process true to copy a timeline (a snapshot of one
 *        process: threads and ranks as they are), false to merge another rank's
 * @return GPUPROJ_OK (also when `src` has no timeline), GPUPROJ_E_NOTFOUND
 *         (a kernel of `src`'s patterns has no record in `dst`),
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_timeline_merge(struct gpuproj_profile *dst, const struct gpuproj_profile *src,
			   bool same_process);

/**
 * Check a timeline against its ranges (docs/formats/profile.md "timeline"):
 * times 0 to GPUPROJ_MAX_NS per sample and GPUPROJ_MAX_TOTAL_NS in total,
 * counts below 2^63, slots up to GPUPROJ_TL_MAX_SLOT, bytes up to
 * GPUPROJ_TL_MAX_BYTES, ops and kinds in their enums, every kernel a record
 * of `p`, the fields each op needs, at most GPUPROJ_TL_MAX_MERGED patterns
 * of 1 to 65,536 nodes, ranks ≥ 1.
 *
 * @param p the owning profile (for the kernels)
 * @param name file name for the error, or NULL
 * @param[out] reterr the JSON path of the first bad value ("timeline.patterns[2].nodes[5].bytes")
 * @return GPUPROJ_OK or GPUPROJ_E_SCHEMA
 */
int gpuproj_timeline_validate(const struct gpuproj_timeline *tl, const struct gpuproj_profile *p,
			      const char *name, struct gpuproj_error *reterr);

/**
 * Whether a copy or a set blocked its host thread to its end: it has no
 * async flag (CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC / _MEMSET_ASYNC, or no
 * "Async" in an Nsight Systems export's call name) *and* it ended by its
 * call's return. A cudaMemcpy from pageable memory to the device returns
 * once the data is staged, "the DMA to final destination may not have
 * completed" (CUDA Runtime API, "API synchronization behavior"), though it
 * is not asynchronous: such a copy does not block (CloverLeaf's Nsight
 * Systems export: 254 of 279 copies ended 2.2-43.3 us after their call).
 * libproj.so's recorder and `gpuproj import nsys` share this rule.
 * @param async the record's (or call's) async flag
 * @param op_end the copy's or set's end, ns
 * @param call_end its call's return, ns (the same clock)
 */
bool gpuproj_tl_copy_blocks(bool async, uint64_t op_end, uint64_t call_end);

/** gpuproj_tl_api_expects(): the call puts work on the GPU (kernel, copy, set, graph). */
#define GPUPROJ_TL_EXPECT_OP 1u
/** gpuproj_tl_api_expects(): the call waits (a synchronisation record). */
#define GPUPROJ_TL_EXPECT_SYNC 2u

/**
 * What a CUDA runtime or driver call produces, from its name (a CUPTI
 * callback name, "cudaMemcpyAsync", or an Nsight Systems export's,
 * "cudaMemcpyAsync_v3020"): a name with "Memcpy", "Memset", "LaunchKernel",
 * "LaunchCooperativeKernel" or "GraphLaunch" (and no other "Graph", which
 * names graph construction) GPUPROJ_TL_EXPECT_OP; one with "Synchronize"
 * or "StreamWaitEvent" GPUPROJ_TL_EXPECT_SYNC; anything else (NULL
 * included) 0. libproj.so (inject/cupti/cupti-timeline.c) and `gpuproj
 * import nsys` decide with it whether a call's records are complete.
 * @return a mask of GPUPROJ_TL_EXPECT_*
 */
unsigned gpuproj_tl_api_expects(const char *name);

/**
 * Whether each pattern describes what was measured: replayed
 * onto its source at its mean times (gpuproj_timeline_replay() without
 * durations) it gives its mean measured wall time within
 * GPUPROJ_TL_IDENTITY_TOLERANCE of it plus what the spread of its times
 * allows (their error bound per epoch, as in gpuproj_timeline_bound_ns(),
 * and 1 ns of rounding). libproj.so's patterns pass exactly when their
 * times did not vary; a pattern whose wall is ten times its nodes' sum, or
 * a tenth of it, does not, whatever its count. gpuproj_timeline_project()'s
 * identity_error is the same comparison over all patterns together.
 *
 * @param name file name for the error, or NULL
 * @param[out] reterr the first pattern that fails, with both times
 * @return GPUPROJ_OK (also for NULL), GPUPROJ_E_SCHEMA (one fails),
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_timeline_check_identity(const struct gpuproj_timeline *tl, const char *name,
				    struct gpuproj_error *reterr);

/** A profile's timeline, or NULL when it has none. */
const struct gpuproj_timeline *gpuproj_profile_timeline(const struct gpuproj_profile *p);
/** The same, for modification. */
struct gpuproj_timeline *gpuproj_profile_timeline_mut(struct gpuproj_profile *p);
/**
 * Give a profile its timeline (the profile takes ownership and frees the
 * one it had; NULL removes it). Its kernel pointers must be `p`'s records.
 */
void gpuproj_profile_set_timeline(struct gpuproj_profile *p, struct gpuproj_timeline *tl);

/**
 * Durations of one replay: per node of a pattern, the target's GPU time
 * (ns), and what to count as what.
 */
struct gpuproj_tl_parts {
	double wall_ns;     /**< the replayed epoch's wall time */
	double kernel_ns;   /**< Σ kernel and graph durations */
	double copy_ns;     /**< Σ copy and set durations */
	double host_ns;     /**< Σ host time: gaps and the calls' own times */
	double idle_ns;     /**< time when neither the host nor the GPU was busy (latencies) */
	double overlap_ns;  /**< kernel + copy + host + idle − wall: time hidden by concurrency */
	double excl_kernel_ns; /**< time some kernel ran */
	double excl_copy_ns;   /**< time a copy or set ran and no kernel */
	double excl_host_ns;   /**< the rest: wall − excl_kernel − excl_copy */
};

/**
 * Replay one pattern with its mean times, each GPU op's duration replaced
 * by `dur[i]` (ns; NULL: the measured means), see the file comment.
 * @param[out] out the parts
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (NULL arguments), GPUPROJ_E_NOMEM
 */
int gpuproj_timeline_replay(const struct gpuproj_tl_pattern *pat, const double *dur,
			    struct gpuproj_tl_parts *out);

/** Where one node of a replayed pattern ran (gpuproj_timeline_replay_spans()). */
struct gpuproj_tl_span {
	/** The call on the host, ns from the epoch's start: after its gap, to its return. */
	double call_start, call_end;
	/**
	 * GPU ops (kernel, copy, memset, graph): their run on the GPU, ns; carried
	 * work: the time its stream stays busy with it; NaN for the others.
	 */
	double op_start, op_end;
};

/**
 * gpuproj_timeline_replay(), also giving where each node ran: one replay,
 * so the spans and the parts cannot disagree (the trace writer draws them,
 * include/gpuproj/trace.h).
 * @param[out] spans [pat->n_nodes], or NULL (then it is gpuproj_timeline_replay())
 * @return as gpuproj_timeline_replay()
 */
int gpuproj_timeline_replay_spans(const struct gpuproj_tl_pattern *pat, const double *dur,
				  struct gpuproj_tl_parts *out, struct gpuproj_tl_span *spans);

/**
 * The whole run projected onto one target (gpuproj_run_projection.whole,
 * filled by gpuproj_project_run() when the profile has a timeline). Times
 * are ns for the whole run (one process; for a merged profile, the
 * slowest rank's measured wall scaled by the job's projected/measured
 * ratio).
 */
struct gpuproj_whole_run {
	bool valid;            /**< the profile has a timeline with at least one pattern */
	double wall_ns;        /**< projected whole-run wall time */
	double lo_ns, hi_ns;   /**< the same with every kernel at its interval's ends */
	double source_ns;      /**< the measured whole-run wall time */
	/**
	 * The whole run replayed onto the source (its wall_ns): source_ns, or
	 * the source's floor_ns where the measured wall ended before its GPU
	 * work did (a thread that never waits); 0 where nothing was measured.
	 */
	double source_wall_ns;
	/** source_wall_ns / wall_ns; NaN where either is 0 (no measured whole run) */
	double speedup;
	double replayed_ns;    /**< of wall_ns, the replayed (explained) part */
	/** Of wall_ns, what is carried unchanged: unexplained epochs, time outside any epoch. */
	double carried_ns;
	/** Parts of the replayed part (gpuproj_tl_parts, summed over patterns × count). */
	double kernel_ns, copy_ns, host_ns, idle_ns, overlap_ns;
	/** A stacked bar that sums to wall_ns: kernel, copy, host (with idle), carried. */
	double bar_kernel_ns, bar_copy_ns, bar_host_ns;
	/** Share of the measured whole run that the replayed patterns explain, 0..1. */
	double explained;
	/**
	 * Of it, the share of reconstructed epochs (struct
	 * gpuproj_tl_reconstructed.ns / the measured whole run), 0..1
	 */
	double reconstructed;
	/**
	 * The identity check: (replay onto the source − measured) / measured,
	 * over the explained epochs; |value| ≤ GPUPROJ_TL_IDENTITY_TOLERANCE
	 * unless their times varied.
	 */
	double identity_error;
	/** The error bound of replaying at mean times, relative to the measured explained time. */
	double bound;
	/**
	 * The same bound onto this target, ns (its GPU times' spreads scaled by
	 * their projections): lo_ns and hi_ns are widened by it.
	 */
	double bound_ns;
	/**
	 * The largest projected GPU time of one stream of one thread (Σ over its
	 * epochs), ns: wall_ns (and lo_ns, hi_ns with their kernel ends) is never
	 * below it.
	 */
	double floor_ns;
	/**
	 * wall_ns is floor_ns: the replay of the epochs gave less (their GPU
	 * work outlasts them).
	 */
	bool floored;
	/** Copy nodes kept at their source time (a GPU without `host_link`, peer and host copies). */
	size_t copies_kept;
	/** Kernel nodes kept at their source time (not projected). */
	size_t kernels_kept;
};

/**
 * Project a profile's timeline onto a target: replay every pattern with the
 * run's kernel projections (`run`, gpuproj_project_run() of `p`) and the
 * copy rules of the file comment. Onto the source itself every ratio is 1.
 *
 * @param src,tgt the source and target GPUs (tgt == src, or the same name:
 *        identity)
 * @param[out] out the result; valid = false (and GPUPROJ_OK) when the profile
 *        has no timeline or no pattern
 * @return GPUPROJ_OK, GPUPROJ_E_INVAL (NULL arguments, a run that does not
 *         cover the profile), GPUPROJ_E_NOMEM
 */
int gpuproj_timeline_project(const struct gpuproj_profile *p,
			     const struct gpuproj_run_projection *run,
			     const struct gpuproj_target *src, const struct gpuproj_target *tgt,
			     struct gpuproj_whole_run *out);

/**
 * The time of one copy on a target from its time on the source (ns): host
 * copies by the ratio (latency + bytes / bandwidth) of the two GPUs' host
 * links, for the direction and the pinned or pageable rate; the target's
 * model alone when the source has no `host_link`; device copies by the
 * ratio of the DRAM bandwidths (bw_gbs.dram). Peer and host-to-host copies,
 * and host copies onto a target without `host_link`, keep their time
 * (*ret_kept true).
 * @return the target's ns
 */
double gpuproj_copy_project_ns(double source_ns, enum gpuproj_copy_kind kind, bool pinned,
			       uint64_t bytes, const struct gpuproj_target *src,
			       const struct gpuproj_target *tgt, bool *ret_kept);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_TIMELINE_H */
