/* SPDX-License-Identifier: MIT */
/**
 * @file trace.h
 * The whole run as a timeline to look at: Chrome trace-event JSON (the
 * "JSON Object Format" of Google's Trace Event Format document, which
 * Perfetto UI and chrome://tracing open), written by `gpuproj project
 * --format trace`.
 *
 * One process per GPU: the source as recorded (the patterns replayed at
 * their measured mean times, gpuproj_timeline_replay_spans() with no
 * durations changed) and each target as projected (each GPU operation's
 * duration replaced as gpuproj_timeline_project() replaces it). Per
 * application thread one track of its patterns, one of its host calls and
 * one per stream slot (timeline.h: slots are numbered per epoch, first
 * used = 0). Every pattern is one complete event on the patterns track
 * as long as its epochs together (count × the replayed epoch), and its
 * first `expand` epochs are drawn call by call inside it: host calls,
 * kernels, copies and sets as complete events, each with its projected
 * interval and binding in `args`. Time carried unchanged (epochs not in
 * patterns, time outside any epoch: gpuproj_whole_run.carried_ns) is one
 * event after the longest thread. A single-threaded source process
 * therefore ends at the recorded span replayed (the identity check of
 * timeline.h); threads that ran at once are drawn side by side.
 *
 * Bounded: at most GPUPROJ_TRACE_MAX_EVENTS events, counted before
 * anything is written.
 *
 * Thread safety: reentrant; the writer only reads its inputs.
 */
#ifndef GPUPROJ_TRACE_H
#define GPUPROJ_TRACE_H

#include <stddef.h>

#include <gpuproj/error.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Epochs drawn per pattern unless told otherwise: one, standing for its count. */
#define GPUPROJ_TRACE_EXPAND_DEFAULT 1
/** The most epochs drawn per pattern (`--expand N`). */
#define GPUPROJ_TRACE_EXPAND_MAX 100000
/** The most events one trace holds (metadata included); a larger one is refused. */
#define GPUPROJ_TRACE_MAX_EVENTS 2000000

/** Options of gpuproj_trace_json(). Zero-initialise. */
struct gpuproj_trace_options {
	/** Epochs drawn per pattern, 1 … GPUPROJ_TRACE_EXPAND_MAX; 0 = the default. */
	size_t expand;
	/** How to name the profile in the trace's otherData (its file name), or NULL. */
	const char *profile_label;
};

/**
 * Run `i` of the targets (0, 1, … in order, each once), valid until the
 * next call; NULL on failure with *ret_status the reason. The same shape as
 * report.h's run providers, so the command passes the one it has.
 */
typedef const struct gpuproj_run_projection *(*gpuproj_trace_run_fn)(void *userdata, size_t i,
								 int *ret_status);

/**
 * Write the trace of a profile's whole run (see the file comment)
 * atomically to `path` ("-" = standard output).
 *
 * @param p the profile; it must have a timeline with patterns
 * @param src the source GPU (its process comes first)
 * @param n_runs targets, each a run of gpuproj_project_run() of `p` (0: the
 *        source alone)
 * @param get,userdata the runs
 * @param opt options, or NULL
 * @param[out] reterr optional
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL arguments, `expand` above
 *         GPUPROJ_TRACE_EXPAND_MAX, a run that does not cover the profile);
 *         GPUPROJ_E_UNSUPPORTED (the profile has no timeline, or one without
 *         patterns: "…: no whole-run timeline to draw …");
 *         GPUPROJ_E_LIMIT (more than GPUPROJ_TRACE_MAX_EVENTS events, with
 *         the count and what to lower); GPUPROJ_E_IO; GPUPROJ_E_NOMEM; a
 *         provider's status
 */
int gpuproj_trace_json(const char *path, const struct gpuproj_profile *p,
		       const struct gpuproj_target *src, size_t n_runs, gpuproj_trace_run_fn get,
		       void *userdata, const struct gpuproj_trace_options *opt,
		       struct gpuproj_error *reterr);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_TRACE_H */
