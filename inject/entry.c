/* SPDX-License-Identifier: MIT */
/*
 * Entry points of libproj.so and its process-level plumbing.
 *
 * - InitializeInjection(): called by the CUDA driver inside cuInit when
 *   CUDA_INJECTION64_PATH names this library; always returns 1.
 * - The LD_PRELOAD constructor: when CUDA_INJECTION64_PATH is unset it
 *   sets it to this library, so the driver calls InitializeInjection at
 *   cuInit in CUDA processes only (nothing happens in processes that never
 *   use CUDA). GPUPROJ_PRELOAD=1 initialises from the constructor instead.
 * - One start-up behind pthread_once; atexit writes the report; a forked
 *   child stops acting and writes nothing (fork waits for the worker to be
 *   between flushes); a worker thread flushes
 *   activity buffers every 100 ms and refreshes the live projection;
 *   GPUPROJ_SIGNALS=1 writes the report on SIGTERM/SIGINT and then dies
 *   of the signal as it would have.
 *
 * The only exported symbol is InitializeInjection (visibility + version
 * script; tests/inject checks the dynamic symbol table).
 *
 * Thread safety: start-up under pthread_once; the report is written once
 * (atomic flag), by atexit or by the worker thread on a handled signal.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "collector.h"
#include "env.h"
#include "log.h"
#include "output.h"
#include "util.h"

#define EXPORT __attribute__((visibility("default")))
#define FLUSH_PERIOD_MS 100

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct inj_config g_cfg;
static const struct inj_backend_ops *g_backend = &inj_backend_cupti;
static struct inj_collector *g_col;
static struct inj_output *g_out;
static pid_t g_pid;
static atomic_bool g_active;		/* started and not a forked child */
static atomic_bool g_reported;

/* Worker thread. */
static pthread_t g_worker;
static bool g_worker_started;
static int g_wake[2] = { -1, -1 };	/* self-pipe: exit and signals wake the worker */
static atomic_bool g_stop;
static atomic_int g_signal;		/* a handled signal waiting for the report */
/*
 * Held by the worker while it flushes and writes the live snapshot, and by
 * fork() (pthread_atfork prepare to parent/child): a child is never forked
 * while the worker is inside CUPTI or the allocator, so it inherits no lock
 * or half-built buffer of that thread. glibc's malloc is fork-safe by
 * itself; sanitizer allocators without fork handlers (GCC 12's libasan) are
 * not, and a child that exits there deadlocked in the leak check. A fork
 * waits for at most one flush. For the same reason start() returns only
 * once the worker runs: the thread library's (and a sanitizer's) start-up
 * of that thread is over before the application can fork.
 */
static pthread_mutex_t g_work_lock = PTHREAD_MUTEX_INITIALIZER;
/* The worker has started (under g_work_lock): start() waits for it, see wait_worker_ready(). */
static pthread_cond_t g_worker_ready_cond = PTHREAD_COND_INITIALIZER;
static bool g_worker_ready;

int InitializeInjection(void) EXPORT;

static void
wake_worker(void)
{
	char c = 1;
	ssize_t w;

	if (g_wake[1] >= 0) {
		do
			w = write(g_wake[1], &c, 1);
		while (w < 0 && errno == EINTR);
	}
}

/*
 * libproj.so parses and prints numbers in the C locale, whatever the
 * application set: an application that called setlocale(LC_ALL, "") in a
 * comma-decimal locale (de_DE, fr_FR) would otherwise make targets.yaml
 * unreadable and the JSON and the table print "1,5". uselocale() is per
 * thread: the application's threads keep their locale outside our code.
 */
static locale_t
c_locale_enter(void)
{
	locale_t c = c_locale();

	return c ? uselocale(c) : (locale_t)0;
}

static void
c_locale_leave(locale_t old)
{
	if (old)
		uselocale(old);
}

/*
 * ---- The exit reporter ----
 *
 * exit() may be called from a signal handler (a watchdog, a time limit)
 * that interrupted the application's thread anywhere: inside CUPTI
 * holding its lock, inside malloc, inside gpuproj. The atexit handler then
 * runs in that frame, and before, libproj.so's exit path blocked for good
 * on a lock that frame holds (its own recorder's lock, or CUPTI's in
 * cuptiGetTimestamp once the bounded wait for the GPU gave up): the
 * application hung in about half of such exits on the double, and no
 * profile was written. exit() there is not async-signal-safe (POSIX
 * signal-safety(7)) but the application is not ours to fix, so:
 *
 * - the report is written by a thread started with the worker (it
 *   allocates in its own malloc arena and holds none of the interrupted
 *   frame's locks), and the exiting thread waits for it with a bound per
 *   step (EXIT_STEP_S beyond the step's own bounded waits: GPUPROJ_WAIT,
 *   twice for the backend's; writing, EXIT_WRITE_S), then returns: the
 *   application exits either way;
 * - every wait of the exit path is bounded: the worker's join, the locks
 *   (inj_collector_exit_by(): the report goes without the timeline, or is
 *   not written, when one is not free by then), CUPTI (the backend stops
 *   calling it when its bounded probe at exit finds it stuck, backend.h);
 * - gpuproj's own stretches that hold its locks on application threads
 *   (records delivered in a CUDA call, a context's creation) run with the
 *   asynchronous signals blocked (inj_signals_block()), so the handler
 *   never runs inside them. (A thread-local flag telling the exit path
 *   which of our locks its thread holds was considered: reading a
 *   dlopen()ed library's thread-local variable may allocate on a thread's
 *   first access, in a frame that may be interrupted inside malloc.)
 */
#define EXIT_STEP_S 5.0
#define EXIT_WRITE_S 60.0

enum rep_state { REP_IDLE = 0, REP_ASKED, REP_DONE };
static pthread_t g_reporter;
static bool g_reporter_started;
static pthread_mutex_t g_rep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_rep_cond = PTHREAD_COND_INITIALIZER;
static int g_rep_state;			/* enum rep_state, under g_rep_lock */
static atomic_int g_rep_step;		/* how far the report is: each step has its bound */

/* Write the report once (exit or a handled signal). */
static void
report(const char *why, bool vendor_ok)
{
	struct timespec by;
	locale_t old;

	if (atomic_exchange(&g_reported, true))
		return;
	old = c_locale_enter();
	atomic_store(&g_rep_step, 2);
	g_backend->shutdown(vendor_ok);
	/* From here the locks are waited for GPUPROJ_WAIT at most (a frozen frame may hold one). */
	atomic_store(&g_rep_step, 3);
	deadline_after(g_cfg.wait_s, &by);
	inj_collector_exit_by(g_col, &by);
	if (!inj_collector_close(g_col))
		inj_debug("exit: the collector's lock was not free by GPUPROJ_WAIT");
	atomic_store(&g_rep_step, 4);
	inj_output_final(g_out, g_col, why);
	c_locale_leave(old);
}

static void
handle_signal(int sig)
{
	char name[32];
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	snprintf(name, sizeof(name), "signal %s", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	report(name, true);
	/* Die of the signal as the application would have. */
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	kill(getpid(), sig);
}

static void *
worker_main(void *arg)
{
	double next_live = 0, now;
	sigset_t all;

	(void)arg;
	/* Signals are for the application's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	/* Our own thread: the C locale for good (c_locale_enter()). */
	(void)c_locale_enter();
	/* Running (the thread library's own start-up done): start() may return. */
	pthread_mutex_lock(&g_work_lock);
	g_worker_ready = true;
	pthread_cond_signal(&g_worker_ready_cond);
	pthread_mutex_unlock(&g_work_lock);
	if (g_cfg.live_s > 0)
		next_live = inj_now_ns() + g_cfg.live_s * 1e9;
	while (!atomic_load(&g_stop)) {
		struct pollfd pfd = { .fd = g_wake[0], .events = POLLIN };
		int timeout = FLUSH_PERIOD_MS, sig;
		char drain[64];

		if (g_cfg.live_s > 0) {
			double left_ms = (next_live - inj_now_ns()) / 1e6;

			if (left_ms < timeout)
				timeout = left_ms < 0 ? 0 : (int)left_ms + 1;
		}
		if (poll(&pfd, 1, timeout) > 0 && read(g_wake[0], drain, sizeof(drain)) < 0 &&
		    errno != EAGAIN && errno != EINTR)
			break;
		if (atomic_load(&g_stop))
			break;
		pthread_mutex_lock(&g_work_lock);
		sig = atomic_exchange(&g_signal, 0);
		if (sig) {
			handle_signal(sig); /* the report, then death by the signal */
			pthread_mutex_unlock(&g_work_lock);
			break;
		}
		g_backend->flush(false);
		now = inj_now_ns();
		if (g_cfg.live_s > 0 && now >= next_live) {
			inj_output_live(g_out, g_col);
			next_live = now + g_cfg.live_s * 1e9;
		}
		pthread_mutex_unlock(&g_work_lock);
	}
	return NULL;
}

static void
on_signal(int sig)
{
	int saved = errno;

	/*
	 * Async-signal-safe: record and wake the worker, which writes the
	 * report. In a forked child (it inherits this handler but has no
	 * worker), or once exit has stopped the worker, nobody would: die of
	 * the signal as the application would have.
	 */
	if (getpid() != g_pid || atomic_load(&g_stop)) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
		raise(sig); /* delivered when this handler returns */
	} else {
		atomic_store(&g_signal, sig);
		wake_worker();
	}
	errno = saved;
}

static void
install_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGINT };
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(sigs); i++) {
		struct sigaction old, sa = { .sa_handler = on_signal };

		if (sigaction(sigs[i], NULL, &old) != 0)
			continue;
		/* Never take over a handler the application installed. */
		if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) {
			inj_info("GPUPROJ_SIGNALS: the application handles %s itself; gpuproj leaves "
				 "it alone", sigs[i] == SIGTERM ? "SIGTERM" : "SIGINT");
			continue;
		}
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sigaction(sigs[i], &sa, NULL);
	}
}

/*
 * Stop the worker; wait GPUPROJ_WAIT for it at most. false: it did not
 * stop (stuck in a flush: inside CUPTI, whose lock a frozen frame may hold).
 */
static bool
stop_worker(void)
{
	struct timespec until;
	bool stopped = true;

	if (!g_worker_started)
		return true;
	atomic_store(&g_stop, true);
	wake_worker();
	if (!pthread_equal(pthread_self(), g_worker)) {
		deadline_after(g_cfg.wait_s, &until);
		stopped = pthread_timedjoin_np(g_worker, NULL, &until) == 0;
		if (!stopped)
			pthread_detach(g_worker);
	}
	g_worker_started = false;
	return stopped;
}

/* The report at exit, on the thread that runs it: the exit reporter, else at_exit()'s. */
static void
exit_report(void)
{
	int sig;
	bool vendor_ok;

	atomic_store(&g_rep_step, 1);
	vendor_ok = stop_worker();
	/* A signal that came just before exit, which the worker had no time to handle. */
	sig = atomic_exchange(&g_signal, 0);
	if (sig) {
		handle_signal(sig); /* the report, then death by the signal */
		return;
	}
	report("exit", vendor_ok);
	atomic_store(&g_active, false);
}

static void *
reporter_main(void *arg)
{
	(void)arg;
	(void)c_locale_enter();
	pthread_mutex_lock(&g_rep_lock);
	while (g_rep_state != REP_ASKED)
		pthread_cond_wait(&g_rep_cond, &g_rep_lock);
	pthread_mutex_unlock(&g_rep_lock);
	exit_report();
	pthread_mutex_lock(&g_rep_lock);
	g_rep_state = REP_DONE;
	pthread_cond_broadcast(&g_rep_cond);
	pthread_mutex_unlock(&g_rep_lock);
	return NULL;
}

/*
 * At exit: have the reporter write the report, waiting for each step at
 * most its bound (see above). false when it could not be asked (not
 * started, or this is it), true when it was (done or given up on).
 */
static bool
exit_by_reporter(void)
{
	struct timespec until, now;
	int step = -1;

	if (!g_reporter_started || pthread_equal(pthread_self(), g_reporter))
		return false;
	deadline_after(EXIT_STEP_S, &until);
	if (pthread_mutex_timedlock(&g_rep_lock, &until) != 0)
		return true;
	g_rep_state = REP_ASKED;
	pthread_cond_broadcast(&g_rep_cond);
	while (g_rep_state != REP_DONE) {
		struct timespec slice;

		if (atomic_load(&g_rep_step) != step) {
			/* A new step: its own bound. */
			step = atomic_load(&g_rep_step);
			/* The backend's step waits GPUPROJ_WAIT twice (cupti_shutdown()). */
			deadline_after(step >= 4   ? EXIT_WRITE_S
				       : step == 2 ? 2 * g_cfg.wait_s + EXIT_STEP_S
						   : g_cfg.wait_s + EXIT_STEP_S,
				       &until);
		}
		clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec > until.tv_sec ||
		    (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec))
			break;
		/* A slice at a time, to see the steps go by. */
		deadline_after(0.1, &slice);
		pthread_cond_timedwait(&g_rep_cond, &g_rep_lock, &slice);
	}
	if (g_rep_state != REP_DONE)
		inj_error("the report could not be finished at exit (step %d did not end within "
			  "its bound: a lock held by a frame that exit() interrupted, from a "
			  "signal handler?): the application exits without it", step);
	pthread_mutex_unlock(&g_rep_lock);
	return true;
}

/*
 * The collector, output and configuration are never freed: an application
 * thread may still be inside a callback while the process exits, and the
 * memory goes with the process anyway (it stays reachable: no leak report).
 */
static void
at_exit(void)
{
	/* A forked child inherits this handler: the parent writes the report. */
	if (getpid() != g_pid || !atomic_load(&g_active))
		return;
	if (!exit_by_reporter())
		exit_report();
}

/*
 * Before fork(): wait until the worker is between flushes (see
 * g_work_lock). Taken on every fork, worker or not, and released by the
 * same fork's parent and child handlers: nothing to remember between them,
 * so two threads forking at once each release what they took (no flag
 * shared by the threads, and no thread-local one: a first access to a
 * dlopen'ed library's TLS allocates, here inside fork).
 */
static void
at_fork_prepare(void)
{
	pthread_mutex_lock(&g_work_lock);
}

static void
at_fork_parent(void)
{
	pthread_mutex_unlock(&g_work_lock);
}

static void
at_fork_child(void)
{
	/*
	 * Nothing here may lock: another thread may have held any lock at fork.
	 * g_work_lock is this thread's own (at_fork_prepare): released.
	 */
	pthread_mutex_unlock(&g_work_lock);
	atomic_store(&g_active, false);
	g_worker_started = false;
	/* The wake pipe is the parent's worker's: close the child's copies. */
	if (g_wake[0] >= 0)
		close(g_wake[0]);
	if (g_wake[1] >= 0)
		close(g_wake[1]);
	g_wake[0] = g_wake[1] = -1;
	g_reporter_started = false;
	g_backend->child();
	inj_log_set_level(INJ_LOG_NONE);
}

/* Wait (at most 2 s: never hang the application) until the worker runs. */
static void
wait_worker_ready(void)
{
	struct timespec until;

	deadline_after(2, &until);
	pthread_mutex_lock(&g_work_lock);
	while (!g_worker_ready) {
		if (pthread_cond_timedwait(&g_worker_ready_cond, &g_work_lock, &until) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&g_work_lock);
}

static void
cleanup_failed_start(void)
{
	inj_collector_free(g_col);
	g_col = NULL;
	inj_output_free(g_out);
	g_out = NULL;
}

/*
 * The backend's ops table has the layout this library was built for, and
 * every op is there (backend.h: all ops are mandatory).
 */
static bool
backend_usable(const struct inj_backend_ops *b)
{
	if (b->version != INJ_BACKEND_VERSION) {
		inj_error("backend '%s' has ops table version %u, this libproj.so expects %u: "
			  "gpuproj is off, the application runs unchanged",
			  b->name ? b->name : "?", b->version, INJ_BACKEND_VERSION);
		return false;
	}
	if (!b->init || !b->flush || !b->shutdown || !b->version_string || !b->describe ||
	    !b->child) {
		inj_error("backend '%s' lacks a mandatory op: gpuproj is off, the application runs "
			  "unchanged", b->name ? b->name : "?");
		return false;
	}
	return true;
}

static void
start(void)
{
	double t0 = inj_now_ns();
	sigset_t all, old;
	int r;

	g_pid = getpid();
	/* Inside someone else's process: read regular files only (util.h). */
	file_inputs_regular_only(true);
	if (inj_config_load(&g_cfg) != 0)
		inj_warn("out of memory reading GPUPROJ_* variables; defaults are used");
	if (g_cfg.mode == INJ_MODE_OFF) {
		inj_info("GPUPROJ_MODE=off: gpuproj does nothing in this process");
		return;
	}
	if (!backend_usable(g_backend))
		return;
	g_out = inj_output_new(&g_cfg, g_backend, t0);
	if (!g_out)
		return;
	if (g_cfg.keep_cubins && !g_cfg.keep_cubins[0]) {
		/* GPUPROJ_KEEP_CUBINS=1: beside the report, <report>.cubins/ */
		const char *path = inj_output_path(g_out);
		size_t len = strlen(path);
		char *dir;

		if (len > 5 && strcmp(path + len - 5, ".json") == 0)
			len -= 5;
		dir = xasprintf("%.*s.cubins", (int)len, path);
		if (dir) {
			free(g_cfg.keep_cubins);
			g_cfg.keep_cubins = dir;
		}
	} else if (g_cfg.keep_cubins && g_cfg.keep_cubins[0] != '/') {
		/* Relative: in the working directory of start-up, as the report. */
		char cwd[4096], *dir;

		if (getcwd(cwd, sizeof(cwd)) && (dir = xasprintf("%s/%s", cwd, g_cfg.keep_cubins))) {
			free(g_cfg.keep_cubins);
			g_cfg.keep_cubins = dir;
		}
	}
	g_col = inj_collector_new(&g_cfg);
	if (!g_col) {
		inj_error("out of memory at start-up: gpuproj is off");
		cleanup_failed_start();
		return;
	}
	if (g_backend->init(&g_cfg, g_col) != 0) {
		cleanup_failed_start();
		return;
	}
	atomic_store(&g_active, true);
	pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
	atexit(at_exit);
	if (pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) == 0) {
		/* The worker must not take the application's signals. */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		r = pthread_create(&g_worker, NULL, worker_main, NULL);
		/* The exit reporter: without it, the exiting thread reports. */
		g_reporter_started = r == 0 &&
				     pthread_create(&g_reporter, NULL, reporter_main, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		g_worker_started = r == 0;
		if (r == 0)
			wait_worker_ready();
		if (r != 0)
			inj_warn("cannot start the flush thread (%s): records arrive when CUPTI's "
				 "buffers fill, and at exit", strerror(r));
	}
	if (g_cfg.signals && g_worker_started)
		install_signals();
	if (g_cfg.mode == INJ_MODE_FULL && g_cfg.profile_launches > 0)
		inj_info("gpuproj %s (%s): timing every kernel launch, profiling the first %u "
			 "launch%s of each kernel signature%s%s; report at exit: %s",
			 GPUPROJ_VERSION, g_backend->version_string(), g_cfg.profile_launches,
			 g_cfg.profile_launches == 1 ? "" : "es",
			 g_cfg.kernel_regex ? " matching " : "",
			 g_cfg.kernel_regex ? g_cfg.kernel_regex : "", inj_output_name(g_out));
	else
		inj_info("gpuproj %s (%s): timing every kernel launch, no metrics (%s); report at "
			 "exit: %s", GPUPROJ_VERSION, g_backend->version_string(),
			 g_cfg.mode == INJ_MODE_TIMING ? "GPUPROJ_MODE=timing"
						       : "GPUPROJ_PROFILE_LAUNCHES=0",
			 inj_output_name(g_out));
}

/*
 * `gpuproj run`'s handshake (src/cli/cmd-run.c): GPUPROJ_RUN_MARK names a
 * file in a directory of its own that says "the CUDA driver loaded
 * libproj.so in this run". Created empty, once; a failure is silent (the
 * command then says nothing was profiled, which the report contradicts).
 */
static void
mark_run(void)
{
	const char *path = getenv("GPUPROJ_RUN_MARK");
	int fd;

	if (!path || path[0] != '/')
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		close(fd);
}

EXPORT int
InitializeInjection(void)
{
	locale_t old = c_locale_enter();

	mark_run();
	pthread_once(&g_once, start);
	c_locale_leave(old);
	return 1;
}

/* Path of this library (for CUDA_INJECTION64_PATH under LD_PRELOAD). */
static const char *
self_path(void)
{
	static char path[4096];
	Dl_info info;

	/* Any object of this library identifies it; a function address is not portable. */
	if (!dladdr(&g_once, &info) || !info.dli_fname || !realpath(info.dli_fname, path))
		return NULL;
	return path;
}

__attribute__((constructor)) static void
preload_ctor(void)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH");
	const char *pre = getenv("GPUPROJ_PRELOAD");
	const char *self;

	if (pre && inj_parse_bool(pre) == 1) {
		/* Opt-in: start now, before the application's first CUDA call. */
		InitializeInjection();
		return;
	}
	if (inj && *inj)
		return; /* the driver calls InitializeInjection (us, or another tool) */
	/*
	 * Under LD_PRELOAD: let the driver call InitializeInjection at cuInit,
	 * so processes that never use CUDA pay nothing. [GPU?] relies on the
	 * driver reading CUDA_INJECTION64_PATH at cuInit (it is documented as
	 * read "at initialization").
	 */
	self = self_path();
	if (self)
		setenv("CUDA_INJECTION64_PATH", self, 0);
}
