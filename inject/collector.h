/* SPDX-License-Identifier: MIT */
/*
 * The collector: turns neutral launch and record events into a
 * gpuproj_profile (one record per kernel signature), decides which
 * launches are profiled (first N per signature, GPUPROJ_KERNEL_REGEX),
 * joins profiled launches to their activity records by correlation id,
 * and keeps the running totals the live projection shows.
 *
 * Memory is bounded by distinct signatures: the gate table has one entry
 * per launch key, the profile one record per signature, and profiled
 * launches are at most N per key.
 *
 * Thread safety: every function may be called from any thread. Two locks:
 * the gate lock (launch ENTER on application threads) and the data lock
 * (records, profiled launches, totals, the profile). They are never held
 * together.
 */
#ifndef INJ_COLLECTOR_H
#define INJ_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/profile.h>

#include "backend.h"

struct inj_config;
struct inj_collector;
/** A launch key's gate entry (stable pointer, owned by the collector). */
struct inj_gate;
/** One profiled launch (owned by the collector). */
struct inj_prof_launch;

/** Running totals (live status line). */
struct inj_totals {
	uint64_t launches;	/* launches seen in records (timed + profiled) */
	uint64_t timed;		/* launches with a duration in the statistics */
	uint64_t profiled;	/* launches with metrics */
	uint64_t kernels;	/* distinct signatures */
	uint64_t dropped;	/* activity records CUPTI dropped */
	double gpu_ns;		/* Σ durations of timed launches, ns */
};

/** New collector; NULL on ENOMEM. `cfg` must outlive it. */
struct inj_collector *inj_collector_new(const struct inj_config *cfg);
/** Free everything; accepts NULL. No other thread may use it any more. */
void inj_collector_free(struct inj_collector *c);

/**
 * ---- Peak device memory (the profile's run.peak_device_memory_bytes) ----
 *
 * The backend reports every device allocation that succeeded and every
 * free, at the outermost API level (a runtime call and the driver call
 * nested in it count once): the collector keeps the live allocations by
 * address (bounded: INJ_MEM_MAX_LIVE) and, per device, the bytes live and
 * their maximum. The profile gets the largest maximum over the devices; it
 * stays unknown when the backend could not track allocations
 * (inj_collector_mem_tracking(false), the default) or more than
 * INJ_MEM_MAX_LIVE allocations were live at once. Frees of addresses never
 * seen (allocated before libproj.so started, NULL) change nothing.
 * Thread safety: any thread; a lock of its own.
 */
#define INJ_MEM_MAX_LIVE (1u << 20)

/** Whether the backend reports allocations (its callbacks are enabled). */
void inj_collector_mem_tracking(struct inj_collector *c, bool on);
/** `bytes` allocated at `ptr` on device ordinal `device`. */
void inj_collector_mem_alloc(struct inj_collector *c, int device, uint64_t ptr, uint64_t bytes);
/** The allocation at `ptr` freed. */
void inj_collector_mem_free(struct inj_collector *c, uint64_t ptr);
/**
 * The peak so far: the largest over devices of the bytes live at once;
 * NaN when unknown (see above) or, after inj_collector_exit_by(), when its
 * lock was still held at the deadline.
 */
double inj_collector_mem_peak(struct inj_collector *c);

/**
 * A field the driver gave outside the profile's ranges
 * (gpuproj_device_cc_ok() and its siblings: -5 or 5,000 SMs, a 20 GHz
 * clock, compute capability 100.0, a driver attribute beyond its limit)
 * is set unknown (0, 0.0 or NaN) with one line each, so that the profile
 * is still written at exit with everything else. Called by the backend as
 * soon as it has read a device, before it uses or records it.
 */
void inj_device_sanitize(struct inj_device_info *d);
/** Record a device (first one seen per ordinal wins; a later one replaces it). */
void inj_collector_device(struct inj_collector *c, const struct inj_device_info *d);

/**
 * Should this launch be profiled? True means a credit was taken: the caller
 * must end it with inj_collector_prof_begin() or give it back.
 * Never true for kernels GPUPROJ_KERNEL_REGEX excludes, or when N is 0.
 * Lock-free unless the key is new.
 * @param[out] ret_gate the key's entry (valid when true)
 */
bool inj_collector_gate_take(struct inj_collector *c, const struct inj_launch_key *key,
			     struct inj_gate **ret_gate);
/** Return a credit (the launch was not profiled after all). */
void inj_collector_gate_give_back(struct inj_collector *c, struct inj_gate *g);
/**
 * Move a credit from a key with unknown dimensions to the full key, once a
 * nested driver callback revealed them. Returns the full key's entry;
 * `from` when the move was impossible (ENOMEM); NULL when the full key has
 * had its N profiled launches already (the caller cancels the window; the
 * credit stays with `from` until cancelled).
 */
struct inj_gate *inj_collector_gate_move(struct inj_collector *c, struct inj_gate *from,
					 const struct inj_launch_key *to);

/**
 * Start a profiled launch (after a credit was taken).
 * @return the launch, or NULL on ENOMEM (the credit is given back)
 */
struct inj_prof_launch *inj_collector_prof_begin(struct inj_collector *c, struct inj_gate *g);
/** The gate a profiled launch holds a credit of (changes after a move). */
void inj_collector_prof_set_gate(struct inj_collector *c, struct inj_prof_launch *pl,
				 struct inj_gate *g);
/** Attach a correlation id (runtime and nested driver ids may both be added). */
void inj_collector_prof_add_corr(struct inj_collector *c, struct inj_prof_launch *pl,
				 uint32_t corr);
/**
 * The metrics of a profiled launch.
 * @param values GPUPROJ_M_COUNT logical values, NaN = not collected
 * @param gpu_ns the profiler's duration of the launch (NaN when unknown)
 */
void inj_collector_prof_done(struct inj_collector *c, struct inj_prof_launch *pl,
			     const double *values, double gpu_ns);
/**
 * The launch could not be profiled. Its credit is given back, so a later
 * launch of the key is profiled instead (after the first 7 failed or
 * cancelled windows of a key, no more: memory stays bounded). `executed`:
 * the kernel ran under the profiler, so its record (if any) counts as a
 * launch but not as a timing; false: it did not run (no range, e.g. during
 * stream capture).
 */
void inj_collector_prof_failed(struct inj_collector *c, struct inj_prof_launch *pl,
			       bool executed);

/**
 * The window closed before the kernel ran (it must not be profiled after
 * all): its records count as ordinary timed launches; the credit is given
 * back (within the same bound as inj_collector_prof_failed()).
 */
void inj_collector_prof_cancel(struct inj_collector *c, struct inj_prof_launch *pl);

/**
 * A launch that may have run inside another launch's profiling window (it
 * went ahead after a bounded wait ran out): its record counts as a launch,
 * never as a timing (it may have been replayed), like a failed window's.
 */
void inj_collector_untimed_launch(struct inj_collector *c, uint32_t corr);

/**
 * Add activity records (any thread; usually CUPTI's buffer thread). While
 * the collector's timeline recorder records (inj_timeline_recording() of
 * inj_collector_timeline()), each record also goes to it as an op record
 * (inj_timeline_op()) with the kernel record it counted in and whether it
 * ran profiled or may have (perturbed); the backend then calls this
 * between the recorder's inj_timeline_batch_begin() and _end().
 */
void inj_collector_records(struct inj_collector *c, const struct inj_kernel_record *r, size_t n);

/** The collector's timeline recorder (inject/timeline-rec.h), NULL when it has none. */
struct inj_timeline *inj_collector_timeline(struct inj_collector *c);
/** Count records the vendor library dropped. */
void inj_collector_dropped(struct inj_collector *c, uint64_t n);

/** The ordinal of the profile's source device (the first with a context), or -1. */
int inj_collector_source_device(struct inj_collector *c);
/**
 * One NVML sample of the source device's SM clock, MHz, taken while it was
 * not idle, and its clocks event reasons (enum gpuproj_clock_reason bits
 * only): folded into the profile's device.sm_clock (count, mean, min, max,
 * reasons seen, samples with a power or thermal cap). Ignored after close
 * and for a clock outside (0, 10^4] MHz.
 */
void inj_collector_sm_clock(struct inj_collector *c, double mhz, unsigned long long reasons);

/**
 * A consistent copy of the running totals. false (and zeros) when the exit
 * deadline passed before the data lock could be taken.
 */
bool inj_collector_totals(struct inj_collector *c, struct inj_totals *ret);

/**
 * A copy of the profile as it is now (device, process, attributes, run
 * info, every kernel record), taken under the data lock: the caller can
 * project and render it without holding the lock.
 * @return a new profile (free with gpuproj_profile_free()), NULL on ENOMEM
 */
struct gpuproj_profile *inj_collector_snapshot(struct inj_collector *c);

/**
 * Lock the data and return the profile for reading (exit report).
 * Release with inj_collector_unlock(). NULL when the exit deadline passed
 * first (inj_collector_exit_by()).
 */
struct gpuproj_profile *inj_collector_lock(struct inj_collector *c);
void inj_collector_unlock(struct inj_collector *c);

/**
 * Last step before writing (call with the data unlocked): profiled
 * launches whose record never arrived are counted from their launch key
 * when it is complete; signatures with profiled launches only get the
 * profiler's durations as samples (listed in the profile attribute
 * "duration_from_profiler"). Sets run info (gpu_ns, dropped records) and
 * the device of the profile, and gives the profile the recorder's
 * timeline (inj_timeline_finish()). Idempotent.
 * @return INJ_FINISH_OK; INJ_FINISH_NO_TIMELINE (the recorder's lock was
 *         not free by the exit deadline: the profile has no timeline);
 *         INJ_FINISH_NO_DATA (the data lock was not: nothing finished, and
 *         the profile must not be read)
 */
enum { INJ_FINISH_OK = 0, INJ_FINISH_NO_TIMELINE, INJ_FINISH_NO_DATA };
int inj_collector_finish(struct inj_collector *c);

/**
 * Stop accepting records and launches (exit has begun, or a fork child).
 * Later calls are counted as ignored, nothing else. false when the exit
 * deadline passed before the data lock could be taken.
 */
bool inj_collector_close(struct inj_collector *c);

/**
 * From now on the exit path (inj_collector_close(),
 * _finish(), _totals(), _lock() and the recorder's inj_timeline_finish())
 * waits for the locks until `by` (CLOCK_REALTIME) at most: exit() from a
 * signal handler may have frozen a frame that holds one. Set once, by the
 * thread that writes the report.
 */
void inj_collector_exit_by(struct inj_collector *c, const struct timespec *by);

#endif
