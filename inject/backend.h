/* SPDX-License-Identifier: MIT */
/*
 * The boundary between the vendor layer and the rest of libproj.so.
 *
 * A backend (today only CUPTI, cupti/) sits behind a const ops
 * table and turns vendor callbacks and records into the neutral structs
 * below, which it hands to the collector (collector.h). Nothing outside
 * cupti/ sees a CUPTI type. The test double does not replace
 * this table: it replaces libcupti itself (tests/fake/), so the real
 * backend code runs in every test.
 *
 * Thread safety: ops are called by entry.c only: init once, flush from the
 * worker thread, shutdown once at exit. entry.c checks `version` (and that
 * every op is set) before it calls anything.
 */
#ifndef INJ_BACKEND_H
#define INJ_BACKEND_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <dlfcn.h>

#include <gpuproj/profile.h>

/** Device ordinals the backend and the collector keep state for. */
#define INJ_MAX_DEVICES 64

/**
 * dlsym() `name` in `lib` into the function pointer at `fnptr` (POSIX
 * guarantees the representations match). @return whether it was found
 */
static inline bool
inj_dlsym(void *lib, const char *name, void *fnptr)
{
	void *p = dlsym(lib, name);

	memcpy(fnptr, &p, sizeof(p));
	return p != NULL;
}

/*
 * Block the asynchronous signals on this thread for a stretch
 * of gpuproj's own code that holds its locks on an application thread
 * (records delivered inside an application's CUDA call, a context's
 * creation): an application whose signal handler calls exit() would
 * otherwise run gpuproj's exit path in a frame that holds them. Signals
 * that report a fault of this very code (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT, SIGTRAP) stay open. The signal is delivered when the stretch
 * ends. Two system calls: not for every launch.
 */
static inline void
inj_signals_block(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGABRT);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

static inline void
inj_signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

struct inj_collector;
struct inj_config;

/** Version of struct inj_backend_ops; bump when ops are added or change. */
#define INJ_BACKEND_VERSION 2

/** One GPU as the application sees it. */
struct inj_device_info {
	int ordinal;		/* CUDA device ordinal */
	char name[256];		/* cuDeviceGetName, "" when unknown */
	char chip[32];		/* "GA100", "" when unknown */
	int cc_major, cc_minor;	/* compute capability, 0.0 when unknown */
	int sms;		/* multiprocessors, 0 when unknown */
	double clock_hz;	/* SM clock, Hz, NaN when unknown */
	/* by enum gpuproj_driver_attr (profile.h), in its units; NaN when not reported */
	double driver[GPUPROJ_DRV_COUNT];
};

/**
 * What a launch is known by when it is launched (for first-N gating).
 * CUDA 13's `__cudaLaunchKernel` carries no parameters in its callback, so
 * the dimensions may be unknown there (dims_known = false).
 */
struct inj_launch_key {
	const char *name;	/* mangled kernel name (borrowed) */
	struct gpuproj_dim3 grid, block;
	struct gpuproj_dim3 cluster; /* thread block cluster, 0,0,0 = none (as 1,1,1) */
	uint32_t smem_dynamic;	/* bytes */
	int device;		/* ordinal */
	bool dims_known;
};

/** One executed kernel, from an activity record. */
struct inj_kernel_record {
	const char *name;	/* mangled (borrowed for the call) */
	struct gpuproj_dim3 grid, block;
	struct gpuproj_dim3 cluster; /* 0,0,0 or 1,1,1 = no cluster */
	uint32_t smem_dynamic, smem_static; /* bytes per block */
	uint32_t regs_per_thread;
	uint32_t local_bytes_per_thread;
	int device;
	uint32_t correlation;	/* = the launching API call's correlation id */
	uint64_t start_ns, end_ns; /* both 0 when the record carries no timing */
	uint32_t graph_id;	/* != 0 for kernels of a graph launch */
	uint32_t context_id, stream_id; /* the vendor's ids (the whole-run timeline) */
};

/*
 * ---- The whole run (inject/timeline-rec.h) ----
 *
 * What the backend hands the timeline recorder besides kernel records:
 * the application's API calls (with what they will produce), copies and
 * sets, synchronisations, event records and streams. Times are the
 * vendor's clock (CUPTI's: one clock for host and device records).
 */

/* What an API call produces, so the recorder waits for it (inj_api_record.expect). */
#define INJ_EXPECT_OP 1u	/* a GPU operation: kernel, copy, set, graph */
#define INJ_EXPECT_SYNC 2u	/* a synchronisation record */

/** One host API call (runtime or driver), from its activity record. */
struct inj_api_record {
	uint64_t start, end;	/* the call on the host */
	uint32_t tid;		/* the thread that made it */
	uint32_t corr;		/* its correlation id */
	uint8_t expect;		/* INJ_EXPECT_* */
	bool runtime;		/* runtime API (else driver) */
};

enum inj_op_kind { INJ_OP_KERNEL = 0, INJ_OP_COPY, INJ_OP_MEMSET };

/** One GPU operation: a kernel (with its record of the profile), a copy or a set. */
struct inj_op_record {
	enum inj_op_kind kind;
	uint32_t corr;		/* the launching call's correlation id (driver or runtime) */
	uint32_t rt_corr;	/* copies: the runtime call's id (0: none) */
	uint32_t ctx, stream;	/* context and stream ids (the vendor's) */
	uint64_t start, end;
	uint64_t bytes;		/* copies, sets */
	int copy_kind;		/* copies: enum gpuproj_copy_kind */
	bool pinned;		/* copies: the host side is pinned */
	bool async;		/* copies, sets: asynchronous call */
	uint32_t graph_id;	/* != 0 inside a graph launch */
	const struct gpuproj_kernel *k; /* kernels: the profile's record */
	bool perturbed;		/* a profiled (replayed) or untimed launch */
};

enum inj_sync_kind { INJ_SYNC_DEVICE = 0, INJ_SYNC_STREAM, INJ_SYNC_EVENT, INJ_SYNC_WAIT_EVENT };

/** A synchronisation or a stream's wait for an event, from its record. */
struct inj_sync_record {
	enum inj_sync_kind kind;
	uint32_t corr, ctx, stream;
	uint64_t event;		/* the event record's unique id (cudaEventSyncId), 0 unknown */
};

/** An event recorded on a stream. */
struct inj_event_record {
	uint32_t corr, ctx, stream;
	uint64_t event;		/* unique id of this record (cudaEventSyncId) */
};

/** Why the backend degraded (for the one stderr line and the profile). */
enum inj_degrade {
	INJ_DEGRADE_NONE = 0,
	INJ_DEGRADE_TIMING,	/* metrics off, timing goes on */
	INJ_DEGRADE_OFF,	/* nothing is collected any more */
};

/** A backend. All ops are mandatory. */
struct inj_backend_ops {
	uint32_t version;	/* INJ_BACKEND_VERSION */
	const char *name;	/* "cupti" */
	/*
	 * Start collecting: load the vendor library, subscribe to callbacks,
	 * enable activity records. Never calls the driver. Returns 0, or -1
	 * after printing why (the library then stays off).
	 */
	int (*init)(const struct inj_config *cfg, struct inj_collector *col);
	/* Deliver completed records (forced: also the partial buffers). */
	void (*flush)(bool forced);
	/*
	 * At exit: close any open window, flush everything, unsubscribe.
	 * Records arriving later are dropped. Idempotent. Every wait is
	 * bounded (GPUPROJ_WAIT). `vendor_ok` false: the vendor library may be
	 * blocked for good (a thread stuck inside it; exit() from a signal
	 * handler that interrupted it): call none of its
	 * functions, leave it as it is. The backend also stops calling it
	 * when one of its bounded waits at exit finds it unresponsive.
	 * Version 2 of the ops table added the argument.
	 */
	void (*shutdown)(bool vendor_ok);
	/* Description of the library version for the profile ("CUPTI 13.0 (API 130001)"). */
	const char *(*version_string)(void);
	/*
	 * Explain the collection in profile attributes: library version,
	 * whether metrics were collected (and why not), and per chip the
	 * NVPW expression behind each logical metric and the pass count.
	 * Called at exit with the collector locked.
	 */
	void (*describe)(struct gpuproj_profile *p);
	/* Forked child: stop acting, call nothing (async-signal-safe). */
	void (*child)(void);
};

/** The CUPTI backend (cupti/cupti.c). */
extern const struct inj_backend_ops inj_backend_cupti;

#endif
