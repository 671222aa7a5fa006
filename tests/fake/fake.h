/* SPDX-License-Identifier: MIT */
/*
 * Control interface of the CUPTI/driver test double ([CUPTI-TEST]).
 *
 * libcupti.so.13 (fake-cupti.c) and libnvperf_{host,target}.so
 * (fake-nvperf.c) have the real SONAMEs and symbols, are compiled against
 * the real headers, and stand in for NVIDIA's libraries through
 * LD_LIBRARY_PATH. They enforce the preconditions of the real API (struct
 * sizes, pPriv, call order, object state) by failing the call AND
 * recording a violation; at exit they write $FAKE_REPORT ("violations N",
 * one "violation: ..." line each, "calls FUNC N" for every function
 * called), so a scenario fails loudly on any misuse.
 *
 * The scripted application (fake-app.c) drives them through the fake_*
 * functions below: it plays the CUDA driver and runtime (emitting the
 * callbacks a real launch would) and the GPU (running kernels, filling
 * activity buffers and profiler ranges with scripted metric values).
 *
 * Thread safety: every function may be called from any thread; callbacks
 * into the subscriber are made without the fake's lock held.
 */
#ifndef GPUPROJ_FAKE_H
#define GPUPROJ_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

/** A fake GPU. */
/*
 * The driver attributes the double answers besides CC, SMs and clock
 * (fake-libcuda.c): set by `device ... key=value` (fake-app), else the
 * defaults of fake_set_device(): the per-SM and per-block limits of the
 * device's CC from the CUDA Programming Guide's "Technical Specifications
 * per Compute Capability" table, and the memory, L2 and power of an
 * A100-SXM4-40GB (1215 MHz x 5120-bit HBM2, 40 MiB L2, 40 GiB, 400 W).
 */
enum fake_dev_attr {
	FAKE_DEV_MEM_KHZ, FAKE_DEV_BUS_BITS, FAKE_DEV_L2_BYTES, FAKE_DEV_MEM_MIB,
	FAKE_DEV_THREADS_SM, FAKE_DEV_THREADS_BLOCK, FAKE_DEV_BLOCKS_SM, FAKE_DEV_REGS_SM,
	FAKE_DEV_REGS_BLOCK, FAKE_DEV_SMEM_SM, FAKE_DEV_SMEM_OPTIN, FAKE_DEV_SMEM_RESERVED,
	FAKE_DEV_WARP, FAKE_DEV_POWER_W,
	/*
	 * NVML's current SM clock, MHz, and clocks event reasons (fake-nvml.c);
	 * -1: not supported
	 */
	FAKE_DEV_NVML_SM_MHZ, FAKE_DEV_NVML_REASONS, FAKE_DEV_ATTR_COUNT
};

struct fake_device {
	char name[128];
	char chip[32];
	int cc_major, cc_minor;
	int sms;
	int clock_khz;
	long long attr[FAKE_DEV_ATTR_COUNT]; /* enum fake_dev_attr; -1: not answered */
	bool defined;
};

/* ---- set-up ---- */
FAKE_EXPORT void fake_set_device(int ordinal, const char *name, const char *chip, int cc_major,
				 int cc_minor, int sms, int clock_khz);
FAKE_EXPORT const struct fake_device *fake_get_device(int ordinal);
/**
 * Set one driver attribute of a defined device by its fake-app key
 * ("mem_khz", "bus", "l2", "mem_mib", "threads_sm", "threads_block",
 * "blocks_sm", "regs_sm", "regs_block", "smem_sm", "optin", "reserved",
 * "warp", "power_w", "nvml_sm_mhz", "nvml_reasons"); -1: the driver (NVML) does
 * not answer it.
 * @return false for an unknown key or device
 */
FAKE_EXPORT bool fake_set_device_attr(int ordinal, const char *key, long long value);

/* ---- driver side ---- */
/** Create a context on a device; emits CONTEXT_CREATED. */
FAKE_EXPORT CUcontext fake_ctx_create(int device);
/** Whether ctx is a context of the double that was not destroyed. */
FAKE_EXPORT bool fake_ctx_alive(CUcontext ctx);
/** Wait until every queued operation of ctx is done (cuCtxSynchronize). */
FAKE_EXPORT void fake_ctx_sync(CUcontext ctx);
/** Emit CONTEXT_DESTROY_STARTING, then mark the context destroyed. */
FAKE_EXPORT void fake_ctx_destroy(CUcontext ctx);
/** Emit MODULE_LOADED with a copy of `cubin`, then scribble over that copy. */
FAKE_EXPORT void fake_module_load(CUcontext ctx, uint32_t id, const void *cubin, size_t size);
/** A fresh correlation id (as CUPTI assigns one per API call). */
FAKE_EXPORT uint32_t fake_next_correlation(void);
/**
 * Emit an API callback (runtime or driver domain) if the subscriber enabled
 * it. `ret` is the function's return value (EXIT only; may be NULL).
 */
FAKE_EXPORT void fake_api(CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
			  CUpti_ApiCallbackSite site, const char *func, const void *params,
			  const char *symbol, CUcontext ctx, uint32_t corr, void *ret);
/** True while a launch callback runs on this thread (driver calls are forbidden there). */
FAKE_EXPORT bool fake_in_launch_callback(void);
/** Emit a CUPTI fatal error (STATE domain). */
FAKE_EXPORT void fake_fatal_error(const char *message);

/* ---- the GPU ---- */
/* What an operation on a stream is (struct fake_kernel.op). */
enum fake_op {
	FAKE_OP_KERNEL = 0,	/* a kernel (the default) */
	FAKE_OP_COPY,		/* a memory copy: copy_kind, src_kind, dst_kind, bytes */
	FAKE_OP_MEMSET,		/* a memory set: bytes */
	FAKE_OP_EVENT_RECORD,	/* an event recorded on the stream: event */
	FAKE_OP_EVENT_WAIT,	/* the stream waits for the event's latest record: event */
};

struct fake_kernel {
	const char *name;
	uint32_t grid[3], block[3];
	uint32_t cluster[3];		/* 0,0,0 = no cluster */
	uint32_t smem_dynamic, smem_static, regs;
	uint64_t duration_ns;
	uint32_t correlation;
	uint32_t graph_id;
	uint32_t stream;		/* 0 = the legacy default stream */
	int waits, sets;		/* flags 1..63: wait for one before starting, set one when done */
	bool inflight;			/* finishes only when something synchronises with it */
	/* The whole run: other operations on a stream. */
	int op;				/* enum fake_op */
	uint8_t copy_kind, src_kind, dst_kind; /* CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind */
	bool async;			/* COPY, MEMSET: the call returns before it ran */
	uint64_t bytes;			/* COPY, MEMSET */
	uint32_t rt_correlation;	/* COPY: the runtime call's correlation id (0: none) */
	int event;			/* EVENT_*: event 1..63 */
	/* Set by the double: */
	uint64_t issue_ns;		/* the virtual clock when it was launched */
	uint64_t ev_seq;		/* EVENT_WAIT: the record it waits for */
};
/**
 * Launch a kernel on a context (see "the GPU" in fake-cupti.c): it enters
 * its stream's queue and runs when it can; under an open profiler window
 * it runs at once under kernel replay (a range per window, one record per
 * replay pass, each 3x the duration: what the join must survive).
 */
FAKE_EXPORT void fake_kernel_run(CUcontext ctx, const struct fake_kernel *k);
/** cuStreamWaitValue32 on a stream: later work on it waits for `flag`. */
FAKE_EXPORT void fake_stream_wait(CUcontext ctx, uint32_t stream, int flag);
/** The host writes `flag` (mapped memory a kernel polls). */
FAKE_EXPORT void fake_host_write(int flag);
/** cuStreamSynchronize. */
FAKE_EXPORT void fake_stream_sync(CUcontext ctx, uint32_t stream);
/*
 * ---- Time ----
 *
 * The double keeps one virtual clock, ns, the timebase of every record and
 * of cuptiGetTimestamp (CUPTI's timestamps are one clock, host and device
 * records alike: cupti_activity.h, cuptiGetTimestamp "normalized to
 * correspond with activity timestamps"). It advances only by the script:
 * host work, the per-call cost of API calls (at the outermost call's
 * EXIT), and waits for the GPU (a synchronisation returns when what it
 * waits for ended). A GPU operation starts when its stream (and the
 * legacy default stream's order, a flag, an event) lets it, no earlier
 * than its launch call began; streams run concurrently without limit.
 */
/** The virtual clock, ns. */
FAKE_EXPORT uint64_t fake_now(void);
/** The host works `ns` ns (the clock advances). */
FAKE_EXPORT void fake_host_work(uint64_t ns);
/** Every API call (outermost) takes `ns` ns of host time from now on (default 0). */
FAKE_EXPORT void fake_set_api_ns(uint64_t ns);
/**
 * A copy, set, event record or event wait on a stream (op->op): queued like
 * a kernel; a copy or set that is not async returns only when it ran (the
 * clock then at least its end). An event record also writes its
 * CUDA_EVENT record (op->correlation), now.
 */
FAKE_EXPORT void fake_op_run(CUcontext ctx, const struct fake_kernel *op);
/** cuEventSynchronize: wait until the event's latest record ran. */
FAKE_EXPORT void fake_event_sync(CUcontext ctx, int event);
/**
 * The SYNCHRONIZATION record of one call (CUpti_ActivitySynchronizationType
 * `type`; stream and event where they apply, else ignored), written now
 * with the call's start and end.
 */
FAKE_EXPORT void fake_sync_record(CUcontext ctx, int type, uint32_t stream, int event,
				  uint32_t corr, uint64_t start, uint64_t end);
/** Stream capture begins/ends on ctx (global mode: synchronising the context breaks it). */
FAKE_EXPORT void fake_capture(CUcontext ctx, bool begin, bool global);
/** The calling thread is the application's (a wait there can hang the application). */
FAKE_EXPORT void fake_app_thread(void);

/* ---- scripting ---- */
/**
 * Metric value: names ending in ".sum" get value x threads (per-thread
 * value), others value as is. gpu__time_duration.sum is the kernel's
 * duration unless scripted. Unscripted metrics are 0.
 */
FAKE_EXPORT void fake_set_metric(const char *name, double value);
/** The next `count` calls of `func` return `code` (count 0 = always). */
FAKE_EXPORT void fake_fail(const char *func, int code, int count);
/** The next decoded window reports `n` ranges instead of what ran. */
FAKE_EXPORT void fake_set_ranges(int n);
/** The next `n` decoded windows (range profiler) lose their ranges: reported as dropped. */
FAKE_EXPORT void fake_set_dropped_ranges(int n);
/** The version cuptiGetVersion reports (and the kernel record layout that goes with it). */
FAKE_EXPORT void fake_set_version(uint32_t v);
/** Another client holds the counters: windows fail with CUPTI_ERROR_HARDWARE_BUSY. */
FAKE_EXPORT void fake_counters_busy(bool busy);
/** Drop the next `n` activity records (reported by GetNumDroppedRecords). */
FAKE_EXPORT void fake_drop_records(uint64_t n);
/** Deliver every buffered activity record now (as a flush would). */
FAKE_EXPORT void fake_flush(void);
/** Emit one record per replay pass for profiled launches (default true). */
FAKE_EXPORT void fake_set_replay_records(bool on);

/* ---- checks ---- */
/** Record a violation (also used by the fake driver functions of fake-app.c). */
FAKE_EXPORT void fake_violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
FAKE_EXPORT int fake_violations(void);
/** Times a function of the fake was called. */
FAKE_EXPORT unsigned long fake_calls(const char *func);
/** Count a call (fake-nvperf.c). */
FAKE_EXPORT void fake_count(const char *func);
/** Whether `code` was scripted for `func` (consumes one); 0 when not. */
FAKE_EXPORT int fake_scripted_failure(const char *func);
/** Whether a metric name is valid on a chip (shared by the host API and NVPW fakes). */
FAKE_EXPORT bool fake_metric_valid(const char *chip, const char *name);
/** Whether a chip name is known. */
FAKE_EXPORT bool fake_chip_known(const char *chip);
/** Passes the fake scheduler needs for n metrics. */
FAKE_EXPORT size_t fake_passes(size_t n);

/* ---- counter-data images shared by both profiler paths ---- */
/** Bytes of an image for `n` metric names of total length `names_len` and `ranges` ranges. */
FAKE_EXPORT size_t fake_cd_size(size_t n, size_t names_len, size_t ranges);
/** Lay out an image (names NUL-separated in `names`). */
FAKE_EXPORT bool fake_cd_init(uint8_t *image, size_t size, const char *names, size_t n,
			      size_t names_len, size_t ranges);
/** Ranges recorded in an image, -1 when it is not one. */
FAKE_EXPORT long fake_cd_ranges(const uint8_t *image);
/** Value of `name` in range `r` of an image; false when absent. */
FAKE_EXPORT bool fake_cd_value(const uint8_t *image, size_t r, const char *name, double *ret);
/** Current metric value for a kernel (see fake_set_metric). */
FAKE_EXPORT double fake_metric_value(const char *name, const struct fake_kernel *k);

#endif
