/* SPDX-License-Identifier: MIT */
/*
 * What libproj.so writes: the report at exit (a table on stderr, the
 * profile + projections as JSON) and the live projection (a status line on
 * stderr and a snapshot JSON, both refreshed every GPUPROJ_LIVE seconds).
 *
 * Thread safety: inj_output_live() runs on the worker thread only;
 * inj_output_final() once, at exit or on a handled signal. The live refresh
 * works on a copy of the profile (inj_collector_snapshot()); the exit report
 * locks the collector while it reads it.
 */
#ifndef INJ_OUTPUT_H
#define INJ_OUTPUT_H

#include <stdbool.h>

#include <gpuproj/target.h>

#include "backend.h"
#include "collector.h"
#include "env.h"

struct inj_output;

/**
 * Prepare output: expand GPUPROJ_OUTPUT, load the targets.
 * @param start_ns CLOCK_MONOTONIC at start-up, for the wall time
 * @return the output state, or NULL on ENOMEM (a message was printed)
 */
struct inj_output *inj_output_new(const struct inj_config *cfg,
				  const struct inj_backend_ops *backend, double start_ns);
/** Free; accepts NULL. */
void inj_output_free(struct inj_output *o);

/** The expanded report path, absolute (a relative one is resolved at start-up). */
const char *inj_output_path(const struct inj_output *o);
/** The expanded report path as given (relative when GPUPROJ_OUTPUT is), for messages. */
const char *inj_output_name(const struct inj_output *o);

/**
 * Write the report: finish the collector, describe the run, project onto
 * every target with the default model, print the table, write the JSON.
 * Nothing is written when no CUDA context was ever seen.
 * @param why "exit" or the name of a handled signal
 */
void inj_output_final(struct inj_output *o, struct inj_collector *c, const char *why);

/** Refresh the live status line and snapshot (worker thread). */
void inj_output_live(struct inj_output *o, struct inj_collector *c);

/** End the live status line (a newline after the last refresh on a terminal). */
void inj_output_live_end(struct inj_output *o);

/**
 * Keep `size` bytes as a new regular file `name` in directory `dir`
 * (GPUPROJ_KEEP_CUBINS), created if missing. Only a directory that is not a
 * symbolic link is written into, and only a new file is created (O_EXCL,
 * O_NOFOLLOW, O_NONBLOCK: nothing planted there is followed, opened or
 * blocks); a regular file of that name already there is taken to hold the
 * same bytes (names are content hashes). Anything else there, or a failure,
 * is one warning line (the first only). Any thread; no driver call.
 * @return true when the file is there
 */
bool inj_keep_file(const char *dir, const char *name, const void *data, size_t size);

/** CLOCK_MONOTONIC now, ns. */
double inj_now_ns(void);

#endif
