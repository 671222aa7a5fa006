/* SPDX-License-Identifier: MIT */
/*
 * Profiling windows: one profiled launch, from its ENTER callback to its
 * EXIT callback, on whatever profiler API the chip uses (struct
 * cupti_prof_ops, chosen once per chip).
 *
 * Thread safety: each context has a writer-preferring rwlock (ci->win_lock)
 * held for writing by the one thread whose launch is profiled there, from
 * its ENTER to its EXIT callback; every other launch ENTER on the context
 * takes it for reading for an instant, so no launch starts inside a window
 * (a launch that raced past still shows up as a second range and the
 * window is discarded). Launches on other contexts and devices never wait
 * (a kernel may wait for a peer GPU's). Every wait is bounded by
 * GPUPROJ_WAIT: the profiled kernel may be waiting for the very launch that
 * waits for its window; rather than hang, metrics stop on the device, with
 * one line. The profiler calls on a context are serialised by its lock
 * (ci->lock), so a context destroyed on another thread can tear a window
 * down safely.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "cupti-private.h"
#include "util.h"

/* A bounded wait for another thread's window ran out. */
static void
wait_expired(struct cupti_state *st, struct ctxinfo *ci)
{
	cupti_device_off(st, &st->devs[ci->device],
			 "a launch waited %g s (GPUPROJ_WAIT) for another thread's profiled launch, "
			 "which may be waiting for it", st->cfg->wait_s);
	cupti_device_stop(st, ci->device);
}

bool
cupti_window_wrlock(struct cupti_state *st, struct ctxinfo *ci)
{
	struct timespec until;

	if (pthread_rwlock_trywrlock(&ci->win_lock) == 0)
		return true;
	deadline_after(st->cfg->wait_s, &until);
	if (pthread_rwlock_timedwrlock(&ci->win_lock, &until) == 0)
		return true;
	wait_expired(st, ci);
	return false;
}

void
cupti_pending_clear(struct ctxinfo *ci)
{
	atomic_store(&ci->pend_wait, false);
	atomic_store(&ci->pend_multi, false);
	atomic_store(&ci->pend_stream, 0);
}

void
cupti_window_teardown(struct cupti_state *st, struct ctxinfo *ci)
{
	if (ci->prof)
		ci->prof->teardown(st, ci);
}

static void
tls_clear(struct cupti_tls *t)
{
	t->win_level = 0;
	t->win_ctx = NULL;
	t->win_pl = NULL;
	t->win_gate = NULL;
	t->win_name_level = false;
}

bool
cupti_window_open(struct cupti_state *st, struct cupti_tls *t, struct ctxinfo *ci,
		  struct inj_gate *g, uint32_t corr, uint32_t corr2, int level, bool name_level)
{
	struct chipinfo *chip = st->devs[ci->device].chip;
	struct cupti_err err = { 0 };
	struct inj_prof_launch *pl;

	pthread_mutex_lock(&ci->lock);
	if (ci->dead || !atomic_load(&ci->ready) || !chip || !chip->ok ||
	    !atomic_load(&st->metrics)) {
		pthread_mutex_unlock(&ci->lock);
		inj_collector_gate_give_back(st->col, g);
		return false;
	}
	if (!chip->prof->open(st, ci, chip, &err)) {
		cupti_profiler_failed(st, ci, &err);
		pthread_mutex_unlock(&ci->lock);
		inj_collector_gate_give_back(st->col, g);
		return false;
	}
	ci->win_open = true;
	ci->win_aborted = false;
	pthread_mutex_unlock(&ci->lock);

	pl = inj_collector_prof_begin(st->col, g);
	if (!pl) {
		pthread_mutex_lock(&ci->lock);
		cupti_window_teardown(st, ci);
		ci->win_open = false;
		pthread_mutex_unlock(&ci->lock);
		return false;
	}
	inj_collector_prof_add_corr(st->col, pl, corr);
	if (corr2)
		inj_collector_prof_add_corr(st->col, pl, corr2);
	t->win_level = level;
	t->win_ctx = ci;
	t->win_pl = pl;
	t->win_gate = g;
	t->win_name_level = name_level;
	return true;
}

void
cupti_window_close(struct cupti_state *st, struct cupti_tls *t)
{
	struct ctxinfo *ci = t->win_ctx;
	struct inj_prof_launch *pl = t->win_pl;
	struct devinfo *d = &st->devs[ci->device];
	struct chipinfo *chip = d->chip;
	double *raw = NULL, values[GPUPROJ_M_COUNT];
	struct cupti_err err = { 0 };
	long ranges = -1;
	bool aborted;

	pthread_mutex_lock(&ci->lock);
	aborted = ci->win_aborted;
	if (!aborted) {
		raw = calloc(chip->set->n_names ? chip->set->n_names : 1, sizeof(*raw));
		if (!raw)
			cupti_window_teardown(st, ci);
		else
			ranges = chip->prof->close(st, ci, chip, raw, &err);
		if (err.call)
			cupti_profiler_failed(st, ci, &err);
		else
			d->fails = 0;
	}
	ci->win_open = false;
	ci->win_aborted = false;
	pthread_mutex_unlock(&ci->lock);

	if (ranges == 1) {
		double gpu_ns = NAN;

		inj_metrics_values(chip->set, raw, values);
		if (chip->set->duration_index != SIZE_MAX)
			gpu_ns = raw[chip->set->duration_index];
		inj_collector_prof_done(st->col, pl, values, gpu_ns);
	} else if (ranges == 0) {
		/* No range: the kernel did not run (e.g. captured); profile a later launch. */
		inj_debug("a profiled launch produced no range (not executed); a later launch of "
			  "the same signature is profiled instead");
		inj_collector_prof_failed(st->col, pl, false);
	} else {
		if (aborted)
			inj_debug("the context was destroyed while a launch was profiled; its metrics "
				  "are discarded");
		else if (ranges > 1)
			inj_debug("%ld ranges in one window (another launch ran inside it); metrics "
				  "discarded, a later launch is profiled instead", ranges);
		inj_collector_prof_failed(st->col, pl, true);
	}
	free(raw);
	tls_clear(t);
	/* DecodeData (range) and FlushCounterData (legacy) synchronised the context. */
	if (ranges >= 0)
		cupti_pending_clear(ci);
	pthread_rwlock_unlock(&ci->win_lock);
}

void
cupti_window_cancel(struct cupti_state *st, struct cupti_tls *t)
{
	struct ctxinfo *ci = t->win_ctx;

	pthread_mutex_lock(&ci->lock);
	if (!ci->win_aborted)
		cupti_window_teardown(st, ci);
	ci->win_open = false;
	ci->win_aborted = false;
	pthread_mutex_unlock(&ci->lock);
	inj_collector_prof_cancel(st->col, t->win_pl);
	tls_clear(t);
	pthread_rwlock_unlock(&ci->win_lock);
}

void
cupti_window_launch(struct cupti_state *st, struct cupti_tls *t, struct ctxinfo *ci, int level,
		    uint32_t corr)
{
	struct timespec until;

	if (!ci || t->rd_ctx || !atomic_load_explicit(&st->metrics, memory_order_relaxed))
		return;
	if (pthread_rwlock_tryrdlock(&ci->win_lock) != 0) {
		deadline_after(st->cfg->wait_s, &until);
		if (pthread_rwlock_timedrdlock(&ci->win_lock, &until) != 0) {
			wait_expired(st, ci);
			inj_collector_untimed_launch(st->col, corr);
			return;
		}
	}
	t->rd_ctx = ci;
	t->rd_level = level;
}

void
cupti_window_launch_done(struct cupti_tls *t, int level)
{
	if (!t->rd_ctx || t->rd_level != level)
		return;
	pthread_rwlock_unlock(&t->rd_ctx->win_lock);
	t->rd_ctx = NULL;
	t->rd_level = 0;
}
