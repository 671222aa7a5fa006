/* SPDX-License-Identifier: MIT */
/*
 * fake-app: a scripted "CUDA application" for the injection tests.
 *
 * It plays the CUDA driver and runtime on top of the CUPTI test double:
 * `init` makes the first runtime call: the fake libcudart loads the fake
 * libcuda.so.1 RTLD_LOCAL (as the real runtime does) and its cuInit loads
 * CUDA_INJECTION64_PATH and calls InitializeInjection; launches emit the
 * callbacks a real launch emits (runtime __cudaLaunchKernel with a nested
 * driver cuLaunchKernel, driver only, Ex, cooperative, graphs), the "GPU"
 * runs the kernel (profiler ranges, activity records). This program links
 * the fake libcudart and libcupti, never libcuda, and exports no driver
 * symbol. Each argument is one command:
 *
 *   init                          cuInit (loads the injection library)
 *   device ORD NAME CHIP MAJ.MIN SMS CLOCK_KHZ [KEY=VALUE...]
 *                                 driver attributes (fake.h: mem_khz, bus, l2,
 *                                 mem_mib, ..., power_w; -1 = not answered)
 *   ctx ORD                       create a context (numbered 1, 2, ...)
 *   destroy CTX                   cuCtxDestroy of context CTX (driver callbacks + destroy)
 *   reset CTX                     cudaDeviceReset: runtime callback + destroy
 *   sync CTX                      cudaDeviceSynchronize (runtime + nested cuCtxSynchronize)
 *   stream-sync CTX S             cudaStreamSynchronize of stream S
 *   wait-value CTX S F            cuStreamWaitValue32: later work on stream S waits for flag F
 *   host-write F                  the host sets flag F (mapped memory kernels poll)
 *   module CTX ID SIZE            load a module (cubin of SIZE pattern bytes)
 *   launch VIA CTX NAME GX,GY,GZ BX,BY,BZ SMEM DUR_NS [noexec] [ctxnull]
 *          [destroy-mid] [regs=N] [static=N] [stream=S] [waits=F] [sets=F]
 *          [inflight] [cluster=X,Y,Z] [hold=MS]
 *       stream=S: stream S (0, the default, is the legacy default stream);
 *       waits=F: the kernel spins until flag F is set; sets=F: it sets flag F
 *       when it finishes; inflight: a long kernel, finished only when
 *       something synchronises with it (see "the GPU" in fake-cupti.c);
 *       hold=MS: the launch call returns MS ms after the kernel ran
 *       VIA: rt (__cudaLaunchKernel + nested cuLaunchKernel), rt-only (no
 *       nested driver callback), rt-legacy (cudaLaunchKernel + nested),
 *       rt-ex (cudaLaunchKernelExC + nested cuLaunchKernelEx), rt-coop,
 *       drv (cuLaunchKernel), drv-ptsz, ex (cuLaunchKernelEx), coop
 *   graph CTX NAME GX,GY,GZ BX,BY,BZ SMEM DUR_NS COUNT   cudaGraphLaunch of COUNT kernels
 *   capture-begin [S] | capture-end [S]  stream capture of stream S in global mode
 *                                 (runtime + nested driver) on context 1
 *   stream-destroy CTX S          cudaStreamDestroy (abandons a capture on S)
 *   host NS                       the host works NS ns (the double's virtual clock, fake.h "Time")
 *   api-ns NS                     every CUDA call takes NS ns of host time from now on
 *   memcpy CTX h2d|d2h|d2d BYTES DUR_NS [stream=S] [async] [pageable]
 *                                 cudaMemcpy (or cudaMemcpyAsync with async) + the nested
 *                                 driver copy; pinned host memory unless pageable; without
 *                                 async the call returns when the copy ran
 *   alloc CTX SLOT BYTES [drv|async|pitch|fail]  cudaMalloc + the nested cuMemAlloc_v2 of
 *                                 BYTES (drv: cuMemAlloc_v2 alone; async: cudaMallocAsync +
 *                                 cuMemAllocAsync; pitch: cudaMallocPitch of BYTES x 4 rows,
 *                                 pitch BYTES rounded up to 512; fail: both fail, out of
 *                                 memory); the address is kept in SLOT (0..63)
 *   free CTX SLOT [drv|async]     cudaFree (cuMemFree_v2; cudaFreeAsync) of SLOT's address
 *   memset CTX BYTES DUR_NS [stream=S] [async]   cudaMemset(Async) + cuMemsetD8(Async)
 *   event-record CTX E S          cudaEventRecord of event E (1..63) on stream S
 *   wait-event CTX S E            cudaStreamWaitEvent: stream S waits for event E
 *   event-sync CTX E              cudaEventSynchronize of event E
 *   do A ; B ; ...                the commands in order (for repeat)
 *   repeat N COMMAND...           run COMMAND N times
 *   threads T N COMMAND...        T threads (up to 128) run COMMAND N times each, at once
 *                                 (%t in COMMAND becomes the thread index, %i
 *                                 the iteration)
 *   par A1 ; A2 | B1 ; B2 ...     one thread per |-separated branch, at once, each
 *                                 running its ;-separated commands in order
 *   flush                         deliver buffered activity records
 *   metric NAME VALUE | fail FUNC CODE [COUNT] | ranges N | drop N
 *   dropped-ranges N              the next N windows' ranges are reported dropped
 *   counters-busy                 another client (DCGM) holds the counters
 *   cupti-version N               cuptiGetVersion reports N; records in its layout
 *                                 ($FAKE_CUPTI_VERSION: N from the start, for
 *                                 GPUPROJ_PRELOAD=1, which calls it before main)
 *   kineto-start | kineto-stop    a second CUPTI client (PyTorch's Kineto) registers
 *                                 its own activity callbacks / flushes and disables
 *                                 kernel tracing, printing "kineto records N"
 *   replay-records on|off         one record per replay pass (default on)
 *   fatal MESSAGE                 CUPTI fatal error
 *   fork                          child: one launch, exit 0; parent waits
 *   fork-exit                     child: _exit(0) at once (touches no lock, so
 *                                 other threads may fork at the same time
 *                                 under sanitizers); parent waits
 *   fork-signal TERM|INT          child: raise the signal, which must kill it
 *                                 (exit 5 when it survives); parent waits
 *   load-cxx                      dlopen libstdc++.so.6 RTLD_LOCAL (as a Python
 *                                 extension module's dependency is loaded): the
 *                                 C++ runtime is in the process, not in its
 *                                 global scope
 *   setlocale NAME                setlocale(LC_ALL, NAME), as applications do before
 *                                 CUDA (exit 3 when the locale is missing); prints
 *                                 "locale NAME: 1.5" formatted in it
 *   chdir DIR | mkdir DIR | rmdir DIR | mkfifo PATH | symlink TARGET PATH | write PATH TEXT
 *                                 the application changes its directory or
 *                                 creates things (as someone else would plant
 *                                 them, or another process write them)
 *   stdout TEXT                   print TEXT on standard output
 *   stderr-broken                 stderr becomes a pipe nobody reads (writes raise SIGPIPE)
 *   sleep MS | signal TERM|INT | exit CODE
 *   alarm-exit US CODE            SIGALRM after US microseconds (0: when the double raises
 *                                 it, $FAKE_ALARM_AT) runs a handler that calls exit(CODE)
 *                                 (from whatever the thread was doing)
 *   bench LAUNCHES SIGS [SYNC_EVERY]  timing loop for tests/bench/bench-inject (with
 *                                 SYNC_EVERY: a cudaDeviceSynchronize after every
 *                                 SYNC_EVERY launches, so the run repeats one epoch)
 *   soak THREADS LAUNCHES SIGS TERM_PCT [MIN_MS]   the soak (see soak())
 *   selftest                      misuse the CUPTI API on purpose: every call must
 *                                 fail and count as a violation (exit 6 if one passes)
 *
 * Default device 0: "Fake A100" (GA100, CC 8.0, 100 SMs, 1410 MHz): targets-inject.yaml's FakeA100.
 * Exit status: 0, the `exit` code, 2 for a bad script, 4 when
 * InitializeInjection did not return 1, 5 when a forked child failed.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>

#include "fake.h"

#define MAX_CTX 64

static CUcontext ctxs[MAX_CTX + 1];
static int n_ctx;

static int run_command(const char *cmd);

/*
 * `alarm-exit`: a SIGALRM handler that calls exit(), as applications do
 * (a watchdog, a time limit). exit() is not async-signal-safe (POSIX
 * signal-safety(7)), but the application is not gpuproj's to fix: its
 * atexit handlers run on the interrupted thread, in whatever frame the
 * signal found it.
 */
static volatile sig_atomic_t alarm_exit_code;

static void
alarm_exit(int sig)
{
	(void)sig;
	exit(alarm_exit_code);
}

/* ---- helpers ---- */

static int
usage(const char *cmd)
{
	fprintf(stderr, "fake-app: bad command '%s'\n", cmd);
	exit(2);
}

static CUcontext
ctx_arg(const char *cmd, int id)
{
	if (id < 1 || id > n_ctx)
		usage(cmd);
	return ctxs[id];
}

static bool
dims(const char *s, uint32_t d[3])
{
	return sscanf(s, "%u,%u,%u", &d[0], &d[1], &d[2]) == 3;
}

/* ---- launches ---- */

struct launch {
	const char *via;
	CUcontext ctx;
	const char *name;
	uint32_t grid[3], block[3];
	uint32_t smem, smem_static, regs;
	uint64_t dur;
	bool noexec, ctxnull, destroy_mid, inflight;
	int hold_ms;			/* stay inside the launch call this long after the kernel */
	int ctx_id;
	uint32_t stream;		/* 0 = legacy default stream */
	uint32_t cluster[3];
	int waits, sets;		/* flags */
};

/* The stream handle the application passes: NULL for the legacy default stream. */
static CUstream
stream_handle(uint32_t n)
{
	return n ? (CUstream)(uintptr_t)(0x5000 + 0x10 * n) : NULL;
}

/* cuCtxDestroy: the driver API call with its callbacks around the destruction. */
static void
destroy_ctx(CUcontext c)
{
	cuCtxDestroy_v2_params p = { .ctx = c };
	uint32_t corr = fake_next_correlation();
	CUresult ok = CUDA_SUCCESS;

	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
		 CUPTI_API_ENTER, "cuCtxDestroy_v2", &p, NULL, c, corr, NULL);
	fake_ctx_destroy(c);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
		 CUPTI_API_EXIT, "cuCtxDestroy_v2", &p, NULL, c, corr, &ok);
}

static void *
destroy_thread(void *arg)
{
	fake_app_thread();
	destroy_ctx((CUcontext)arg);
	return NULL;
}

static void
gpu_run(const struct launch *l, uint32_t corr)
{
	struct fake_kernel k = {
		.name = l->name,
		.smem_dynamic = l->smem,
		.smem_static = l->smem_static,
		.regs = l->regs,
		.duration_ns = l->dur,
		.correlation = corr,
		.stream = l->stream,
		.waits = l->waits,
		.sets = l->sets,
		.inflight = l->inflight,
	};

	memcpy(k.grid, l->grid, sizeof(k.grid));
	memcpy(k.cluster, l->cluster, sizeof(k.cluster));
	memcpy(k.block, l->block, sizeof(k.block));
	if (l->noexec)
		return;
	fake_kernel_run(l->ctx, &k);
	if (l->hold_ms) {
		/* The launch call takes a while (e.g. kernel replay): others act meanwhile. */
		struct timespec ts = { l->hold_ms / 1000, (long)(l->hold_ms % 1000) * 1000000 };

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	if (l->destroy_mid) {
		/* Another thread tears the context down while the launch is still open. */
		pthread_t t;

		pthread_create(&t, NULL, destroy_thread, l->ctx);
		pthread_join(t, NULL);
	}
}

static void
driver_launch(const struct launch *l, CUpti_CallbackId cbid, const char *fn, uint32_t *ret_corr)
{
	cuLaunchKernel_params kp = {
		.gridDimX = l->grid[0], .gridDimY = l->grid[1], .gridDimZ = l->grid[2],
		.blockDimX = l->block[0], .blockDimY = l->block[1], .blockDimZ = l->block[2],
		.sharedMemBytes = l->smem, .hStream = stream_handle(l->stream),
	};
	cuLaunchCooperativeKernel_params cp = {
		.gridDimX = l->grid[0], .gridDimY = l->grid[1], .gridDimZ = l->grid[2],
		.blockDimX = l->block[0], .blockDimY = l->block[1], .blockDimZ = l->block[2],
		.sharedMemBytes = l->smem, .hStream = stream_handle(l->stream),
	};
	CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
				   .value.clusterDim = { l->cluster[0], l->cluster[1], l->cluster[2] } };
	CUlaunchConfig cfg = {
		.gridDimX = l->grid[0], .gridDimY = l->grid[1], .gridDimZ = l->grid[2],
		.blockDimX = l->block[0], .blockDimY = l->block[1], .blockDimZ = l->block[2],
		.sharedMemBytes = l->smem, .hStream = stream_handle(l->stream),
		.attrs = l->cluster[0] ? &attr : NULL, .numAttrs = l->cluster[0] ? 1 : 0,
	};
	cuLaunchKernelEx_params ep = { .config = &cfg };
	const void *params = &kp;
	uint32_t corr = fake_next_correlation();
	CUresult ok = CUDA_SUCCESS;

	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx)
		params = &ep;
	else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel)
		params = &cp;
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, cbid, CUPTI_API_ENTER, fn, params, l->name, l->ctx,
		 corr, NULL);
	if (ret_corr)
		*ret_corr = corr;
	else
		gpu_run(l, corr);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, cbid, CUPTI_API_EXIT, fn, params, l->name, l->ctx,
		 corr, &ok);
}

static void
runtime_launch(const struct launch *l, CUpti_CallbackId cbid, const char *fn, const void *params,
	       CUpti_CallbackId drv_cbid, const char *drv_fn)
{
	uint32_t corr = fake_next_correlation();
	cudaError_t ok = cudaSuccess;

	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, CUPTI_API_ENTER, fn, params, l->name,
		 l->ctxnull ? NULL : l->ctx, corr, NULL);
	if (drv_cbid) {
		/*
		 * The nested driver call launches the kernel; its record carries the
		 * driver call's correlation id (the harder case for the join).
		 */
		cuLaunchKernel_params kp = {
			.gridDimX = l->grid[0], .gridDimY = l->grid[1], .gridDimZ = l->grid[2],
			.blockDimX = l->block[0], .blockDimY = l->block[1],
			.blockDimZ = l->block[2], .sharedMemBytes = l->smem,
			.hStream = stream_handle(l->stream),
		};
		CUlaunchAttribute attr = {
			.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
			.value.clusterDim = { l->cluster[0], l->cluster[1], l->cluster[2] } };
		CUlaunchConfig cfg = {
			.gridDimX = l->grid[0], .gridDimY = l->grid[1], .gridDimZ = l->grid[2],
			.blockDimX = l->block[0], .blockDimY = l->block[1],
			.blockDimZ = l->block[2], .sharedMemBytes = l->smem,
			.hStream = stream_handle(l->stream),
			.attrs = l->cluster[0] ? &attr : NULL, .numAttrs = l->cluster[0] ? 1 : 0,
		};
		cuLaunchKernelEx_params ep = { .config = &cfg };
		uint32_t dcorr = fake_next_correlation();
		CUresult dok = CUDA_SUCCESS;
		const void *dp = drv_cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ? (const void *)&ep
										     : &kp;

		fake_api(CUPTI_CB_DOMAIN_DRIVER_API, drv_cbid, CUPTI_API_ENTER, drv_fn, dp, l->name,
			 l->ctx, dcorr, NULL);
		gpu_run(l, dcorr);
		fake_api(CUPTI_CB_DOMAIN_DRIVER_API, drv_cbid, CUPTI_API_EXIT, drv_fn, dp, l->name,
			 l->ctx, dcorr, &dok);
	} else {
		gpu_run(l, corr);
	}
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, CUPTI_API_EXIT, fn, params, l->name, l->ctx,
		 corr, &ok);
}

static void
do_launch(const struct launch *l)
{
	cudaLaunchKernel_v7000_params rp = {
		.gridDim = { l->grid[0], l->grid[1], l->grid[2] },
		.blockDim = { l->block[0], l->block[1], l->block[2] },
		.sharedMem = l->smem, .stream = (cudaStream_t)stream_handle(l->stream),
	};
	cudaLaunchCooperativeKernel_v9000_params cp = {
		.gridDim = { l->grid[0], l->grid[1], l->grid[2] },
		.blockDim = { l->block[0], l->block[1], l->block[2] },
		.sharedMem = l->smem, .stream = (cudaStream_t)stream_handle(l->stream),
	};
	cudaLaunchAttribute rattr = {
		.id = cudaLaunchAttributeClusterDimension,
		.val.clusterDim = { l->cluster[0], l->cluster[1], l->cluster[2] } };
	cudaLaunchConfig_t cfg = {
		.gridDim = { l->grid[0], l->grid[1], l->grid[2] },
		.blockDim = { l->block[0], l->block[1], l->block[2] },
		.dynamicSmemBytes = l->smem, .stream = (cudaStream_t)stream_handle(l->stream),
		.attrs = l->cluster[0] ? &rattr : NULL, .numAttrs = l->cluster[0] ? 1 : 0,
	};
	cudaLaunchKernelExC_v11060_params ep = { .config = &cfg };

	if (strcmp(l->via, "rt") == 0)
		runtime_launch(l, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
			       "__cudaLaunchKernel", NULL, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
			       "cuLaunchKernel");
	else if (strcmp(l->via, "rt-only") == 0)
		runtime_launch(l, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
			       "__cudaLaunchKernel", NULL, 0, NULL);
	else if (strcmp(l->via, "rt-legacy") == 0)
		runtime_launch(l, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
			       "cudaLaunchKernel", &rp, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
			       "cuLaunchKernel");
	else if (strcmp(l->via, "rt-ex") == 0)
		runtime_launch(l, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
			       "cudaLaunchKernelExC", &ep, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
			       "cuLaunchKernelEx");
	else if (strcmp(l->via, "rt-coop") == 0)
		runtime_launch(l, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
			       "cudaLaunchCooperativeKernel", &cp,
			       CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel");
	else if (strcmp(l->via, "drv") == 0)
		driver_launch(l, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", NULL);
	else if (strcmp(l->via, "drv-ptsz") == 0)
		driver_launch(l, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, "cuLaunchKernel_ptsz",
			      NULL);
	else if (strcmp(l->via, "ex") == 0)
		driver_launch(l, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx", NULL);
	else if (strcmp(l->via, "coop") == 0)
		driver_launch(l, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
			      "cuLaunchCooperativeKernel", NULL);
	else
		usage(l->via);
}

/* "launch VIA CTX NAME G B SMEM DUR opts..." (cmd after "launch ") */
static void
parse_launch(const char *cmd, const char *rest, struct launch *l, char *buf, size_t size)
{
	char via[32], name[512], g[64], b[64], opts[512] = "";
	unsigned long long dur;
	unsigned smem;
	int ctx, n;
	char *tok, *save;

	memset(l, 0, sizeof(*l));
	n = sscanf(rest, "%31s %d %511s %63s %63s %u %llu %511[^\n]", via, &ctx, name, g, b, &smem,
		   &dur, opts);
	if (n < 7 || !dims(g, l->grid) || !dims(b, l->block))
		usage(cmd);
	snprintf(buf, size, "%s", via);
	l->via = buf;
	l->name = buf + strlen(buf) + 1;
	snprintf(buf + strlen(buf) + 1, size - strlen(buf) - 1, "%s", name);
	l->ctx_id = ctx;
	l->ctx = ctx_arg(cmd, ctx);
	l->smem = smem;
	l->dur = dur;
	l->regs = 32;
	for (tok = strtok_r(opts, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (strcmp(tok, "noexec") == 0)
			l->noexec = true;
		else if (strcmp(tok, "ctxnull") == 0)
			l->ctxnull = true;
		else if (strcmp(tok, "destroy-mid") == 0)
			l->destroy_mid = true;
		else if (strcmp(tok, "inflight") == 0)
			l->inflight = true;
		else if (strncmp(tok, "hold=", 5) == 0)
			l->hold_ms = atoi(tok + 5);
		else if (strncmp(tok, "stream=", 7) == 0)
			l->stream = (uint32_t)atoi(tok + 7);
		else if (strncmp(tok, "waits=", 6) == 0)
			l->waits = atoi(tok + 6);
		else if (strncmp(tok, "sets=", 5) == 0)
			l->sets = atoi(tok + 5);
		else if (strncmp(tok, "cluster=", 8) == 0 && dims(tok + 8, l->cluster))
			;
		else if (strncmp(tok, "regs=", 5) == 0)
			l->regs = (uint32_t)atoi(tok + 5);
		else if (strncmp(tok, "static=", 7) == 0)
			l->smem_static = (uint32_t)atoi(tok + 7);
		else
			usage(cmd);
	}
}

static void
graph_launch(const char *cmd, const char *rest)
{
	char name[512], g[64], b[64];
	unsigned long long dur;
	unsigned smem, count, i;
	int ctx;
	struct fake_kernel k = { 0 };
	uint32_t corr, dcorr;
	cudaError_t ok = cudaSuccess;
	CUresult dok = CUDA_SUCCESS;
	cuGraphLaunch_params gp = { 0 };
	cudaGraphLaunch_v10000_params rp = { 0 };
	CUcontext c;

	if (sscanf(rest, "%d %511s %63s %63s %u %llu %u", &ctx, name, g, b, &smem, &dur, &count) != 7 ||
	    !dims(g, k.grid) || !dims(b, k.block))
		usage(cmd);
	c = ctx_arg(cmd, ctx);
	k.name = name;
	k.smem_dynamic = smem;
	k.duration_ns = dur;
	k.regs = 32;
	k.graph_id = 42;
	corr = fake_next_correlation();
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
		 CUPTI_API_ENTER, "cudaGraphLaunch", &rp, NULL, c, corr, NULL);
	dcorr = fake_next_correlation();
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_API_ENTER,
		 "cuGraphLaunch", &gp, NULL, c, dcorr, NULL);
	for (i = 0; i < count; i++) {
		k.correlation = dcorr;
		fake_kernel_run(c, &k);
	}
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_API_EXIT,
		 "cuGraphLaunch", &gp, NULL, c, dcorr, &dok);
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
		 CUPTI_API_EXIT, "cudaGraphLaunch", &rp, NULL, c, corr, &ok);
}

/*
 * cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) or
 * cudaStreamEndCapture, with the nested driver call's callbacks; the
 * double's GPU knows a global-mode capture is in progress on the context.
 */
static void
capture(bool begin, uint32_t st)
{
	uint32_t corr = fake_next_correlation(), dcorr = fake_next_correlation();
	CUpti_CallbackId rc = begin ? CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000
				    : CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000;
	CUpti_CallbackId dc = begin ? CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2
				    : CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture;
	cudaStreamBeginCapture_v10000_params rp = { .stream = (cudaStream_t)stream_handle(st),
						    .mode = cudaStreamCaptureModeGlobal };
	cuStreamBeginCapture_v2_params dp = { .hStream = stream_handle(st),
					      .mode = CU_STREAM_CAPTURE_MODE_GLOBAL };
	cudaError_t ok = cudaSuccess;
	CUresult dok = CUDA_SUCCESS;
	CUcontext c = n_ctx ? ctxs[1] : NULL;

	/* Begin and end params both start with the stream. */
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, rc, CUPTI_API_ENTER, "cudaStreamCapture", &rp, NULL,
		 c, corr, NULL);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, dc, CUPTI_API_ENTER, "cuStreamCapture", &dp, NULL, c,
		 dcorr, NULL);
	if (c)
		fake_capture(c, begin, true);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, dc, CUPTI_API_EXIT, "cuStreamCapture", &dp, NULL, c,
		 dcorr, &dok);
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, rc, CUPTI_API_EXIT, "cudaStreamCapture", &rp, NULL, c,
		 corr, &ok);
}

/*
 * cudaStreamDestroy (cuda_runtime_api.h:2190) with the nested
 * cuStreamDestroy_v2 (cuda.h:15825); a capture on it is abandoned (what
 * the real driver does with it is [GPU?]).
 */
static void
stream_destroy(CUcontext c, uint32_t st)
{
	cudaStreamDestroy_v5050_params rp = { .stream = (cudaStream_t)stream_handle(st) };
	cuStreamDestroy_v2_params dp = { .hStream = stream_handle(st) };
	uint32_t corr = fake_next_correlation(), dcorr = fake_next_correlation();
	cudaError_t ok = cudaSuccess;
	CUresult dok = CUDA_SUCCESS;

	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050,
		 CUPTI_API_ENTER, "cudaStreamDestroy", &rp, NULL, c, corr, NULL);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2,
		 CUPTI_API_ENTER, "cuStreamDestroy_v2", &dp, NULL, c, dcorr, NULL);
	fake_capture(c, false, true);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2,
		 CUPTI_API_EXIT, "cuStreamDestroy_v2", &dp, NULL, c, dcorr, &dok);
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050,
		 CUPTI_API_EXIT, "cudaStreamDestroy", &rp, NULL, c, corr, &ok);
}

/* cudaDeviceSynchronize / cudaStreamSynchronize with their callbacks (driver call nested). */
static void
sync_cmd(CUcontext c, bool stream, uint32_t st)
{
	cudaStreamSynchronize_v3020_params sp = { .stream = (cudaStream_t)stream_handle(st) };
	cuStreamSynchronize_params dsp = { .hStream = stream_handle(st) };
	CUpti_CallbackId rc = stream ? CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020
				     : CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020;
	CUpti_CallbackId dc = stream ? CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize
				     : CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize;
	const char *rf = stream ? "cudaStreamSynchronize" : "cudaDeviceSynchronize";
	const char *df = stream ? "cuStreamSynchronize" : "cuCtxSynchronize";
	uint32_t corr = fake_next_correlation(), dcorr = fake_next_correlation();
	cudaError_t ok = cudaSuccess;
	CUresult dok = CUDA_SUCCESS;
	uint64_t t0 = fake_now();

	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, rc, CUPTI_API_ENTER, rf, stream ? &sp : NULL, NULL, c,
		 corr, NULL);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, dc, CUPTI_API_ENTER, df, stream ? &dsp : NULL, NULL, c,
		 dcorr, NULL);
	if (stream)
		fake_stream_sync(c, st);
	else
		fake_ctx_sync(c);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, dc, CUPTI_API_EXIT, df, stream ? &dsp : NULL, NULL, c,
		 dcorr, &dok);
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, rc, CUPTI_API_EXIT, rf, stream ? &sp : NULL, NULL, c,
		 corr, &ok);
	/* Its SYNCHRONIZATION record carries the runtime call's id ([GPU?] which one). */
	fake_sync_record(c, stream ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE
				   : CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE,
			 st, 0, corr, t0, fake_now());
}

/*
 * cuStreamWaitValue32(stream, flag address, 1, CU_STREAM_WAIT_VALUE_GEQ)
 * (cuda.h:16936) with its callbacks.
 */
static void
wait_value(CUcontext c, uint32_t st, int flag)
{
	cuStreamWaitValue32_v2_params p = { .stream = stream_handle(st), .value = 1,
					    .flags = CU_STREAM_WAIT_VALUE_GEQ };
	uint32_t corr = fake_next_correlation();
	CUresult ok = CUDA_SUCCESS;

	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2,
		 CUPTI_API_ENTER, "cuStreamWaitValue32_v2", &p, NULL, c, corr, NULL);
	fake_stream_wait(c, st, flag);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2,
		 CUPTI_API_EXIT, "cuStreamWaitValue32_v2", &p, NULL, c, corr, &ok);
}

/* ---- the whole run: copies, sets, events ---- */

/*
 * One runtime call with its nested driver call around `inner` (both with
 * NULL parameters unless given): the shape of every call below.
 */
struct call2 {
	CUpti_CallbackId rt, drv;
	const char *rt_name, *drv_name;
	const void *rt_params, *drv_params;
	uint32_t corr, dcorr;
	uint64_t t0;
};

static void
call2_enter(CUcontext c, struct call2 *k)
{
	cudaError_t ok = cudaSuccess;

	(void)ok;
	k->corr = fake_next_correlation();
	k->dcorr = fake_next_correlation();
	k->t0 = fake_now();
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, k->rt, CUPTI_API_ENTER, k->rt_name, k->rt_params, NULL,
		 c, k->corr, NULL);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, k->drv, CUPTI_API_ENTER, k->drv_name, k->drv_params,
		 NULL, c, k->dcorr, NULL);
}

static void
call2_exit(CUcontext c, struct call2 *k)
{
	cudaError_t ok = cudaSuccess;
	CUresult dok = CUDA_SUCCESS;

	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, k->drv, CUPTI_API_EXIT, k->drv_name, k->drv_params,
		 NULL, c, k->dcorr, &dok);
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, k->rt, CUPTI_API_EXIT, k->rt_name, k->rt_params, NULL,
		 c, k->corr, &ok);
}

/* Options of memcpy and memset: stream=S, async, pageable. */
static void
copy_opts(const char *cmd, char *opts, struct fake_kernel *op, bool *pageable)
{
	char *tok, *save;

	*pageable = false;
	for (tok = strtok_r(opts, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (strncmp(tok, "stream=", 7) == 0)
			op->stream = (uint32_t)atoi(tok + 7);
		else if (strcmp(tok, "async") == 0)
			op->async = true;
		else if (strcmp(tok, "pageable") == 0)
			*pageable = true;
		else
			usage(cmd);
	}
}

/*
 * memcpy CTX KIND BYTES DUR [opts]: cudaMemcpy(Async) (cuda_runtime_api.h)
 * with the nested cuMemcpy{HtoD,DtoH,DtoD}(Async)_v2 (cuda.h); the record's
 * correlationId is the driver call's, runtimeCorrelationId the runtime
 * call's (cupti_activity.h CUpti_ActivityMemcpy6).
 */
static void
memcpy_cmd(const char *cmd, const char *rest)
{
	char kind[8], opts[256] = "";
	unsigned long long bytes, dur;
	struct fake_kernel op = { .op = FAKE_OP_COPY };
	struct call2 k = { 0 };
	bool pageable;
	int ctx;
	CUcontext c;
	uint8_t host_kind;

	if (sscanf(rest, "%d %7s %llu %llu %255[^\n]", &ctx, kind, &bytes, &dur, opts) < 4)
		usage(cmd);
	c = ctx_arg(cmd, ctx);
	copy_opts(cmd, opts, &op, &pageable);
	host_kind = pageable ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE : CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	op.bytes = bytes;
	op.duration_ns = dur;
	k.rt = op.async ? CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020
			: CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020;
	k.rt_name = op.async ? "cudaMemcpyAsync" : "cudaMemcpy";
	if (strcmp(kind, "h2d") == 0) {
		op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
		op.src_kind = host_kind;
		op.dst_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		k.drv = op.async ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2
				 : CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2;
	} else if (strcmp(kind, "d2h") == 0) {
		op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
		op.src_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		op.dst_kind = host_kind;
		k.drv = op.async ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2
				 : CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2;
	} else if (strcmp(kind, "d2d") == 0) {
		op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
		op.src_kind = op.dst_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
		k.drv = op.async ? CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2
				 : CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2;
	} else {
		usage(cmd);
	}
	k.drv_name = "cuMemcpy";
	call2_enter(c, &k);
	op.correlation = k.dcorr;
	op.rt_correlation = k.corr;
	fake_op_run(c, &op);
	call2_exit(c, &k);
}

/*
 * ---- Device allocations (the peak device memory of libproj.so) ----
 *
 * alloc/free with the callbacks a real call makes, runtime outside, the
 * driver call nested. The output pointer of an allocation holds garbage
 * until the call returns (the params structs of
 * generated_cuda_runtime_api_meta.h:514-541 and generated_cuda_meta.h:
 * 481-496 point at the caller's variable, which the function writes):
 * a library that reads it at ENTER reads 0xdeadbeef..., and a failed call
 * leaves it so. Addresses are 512-byte aligned, from 0x7f0000000000 up.
 */
#define ALLOC_SLOTS 64
#define GARBAGE_PTR 0xdeadbeefdeadbeefULL

static uint64_t slot_ptr[ALLOC_SLOTS];
static uint64_t next_va = 0x7f0000000000ULL;

static void
alloc_cmd(const char *cmd, const char *rest)
{
	char how[16] = "";
	unsigned long long bytes;
	int ctx, slot;
	CUcontext c;
	bool fail, drv_only, async, pitch;
	void *rt_ptr = (void *)(uintptr_t)GARBAGE_PTR;
	CUdeviceptr d_ptr = (CUdeviceptr)GARBAGE_PTR;
	size_t rt_pitch = (size_t)GARBAGE_PTR, d_pitch = (size_t)GARBAGE_PTR, rows = 4;
	cudaMalloc_v3020_params rp = { .devPtr = &rt_ptr };
	cudaMallocAsync_v11020_params rap = { .devPtr = &rt_ptr };
	cudaMallocPitch_v3020_params rpp = { .devPtr = &rt_ptr, .pitch = &rt_pitch, .height = 4 };
	cuMemAlloc_v2_params dp = { .dptr = &d_ptr };
	cuMemAllocAsync_params dap = { .dptr = &d_ptr };
	cuMemAllocPitch_v2_params dpp = { .dptr = &d_ptr, .pPitch = &d_pitch, .Height = 4,
					  .ElementSizeBytes = 4 };
	struct call2 k = { 0 };
	cudaError_t rok;
	CUresult dok;
	uint64_t va, size;

	if (sscanf(rest, "%d %d %llu %15s", &ctx, &slot, &bytes, how) < 3 || slot < 0 ||
	    slot >= ALLOC_SLOTS)
		usage(cmd);
	c = ctx_arg(cmd, ctx);
	fail = strcmp(how, "fail") == 0;
	drv_only = strcmp(how, "drv") == 0;
	async = strcmp(how, "async") == 0;
	pitch = strcmp(how, "pitch") == 0;
	if (how[0] && !fail && !drv_only && !async && !pitch)
		usage(cmd);
	rp.size = rap.size = dp.bytesize = dap.bytesize = bytes;
	rpp.width = dpp.WidthInBytes = bytes;
	size = pitch ? ((bytes + 511) / 512 * 512) * rows : bytes;
	va = next_va;
	rok = fail ? cudaErrorMemoryAllocation : cudaSuccess;
	dok = fail ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
	k.rt = async ? CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020 :
	       pitch ? CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020 :
		       CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020;
	k.rt_name = async ? "cudaMallocAsync" : pitch ? "cudaMallocPitch" : "cudaMalloc";
	k.rt_params = async ? (const void *)&rap : pitch ? (const void *)&rpp : (const void *)&rp;
	k.drv = async ? CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync :
		pitch ? CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2 :
			CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2;
	k.drv_name = async ? "cuMemAllocAsync" : pitch ? "cuMemAllocPitch_v2" : "cuMemAlloc_v2";
	k.drv_params = async ? (const void *)&dap : pitch ? (const void *)&dpp : (const void *)&dp;
	k.corr = fake_next_correlation();
	k.dcorr = fake_next_correlation();
	if (!drv_only)
		fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, k.rt, CUPTI_API_ENTER, k.rt_name, k.rt_params,
			 NULL, c, k.corr, NULL);
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, k.drv, CUPTI_API_ENTER, k.drv_name, k.drv_params, NULL,
		 c, k.dcorr, NULL);
	if (!fail) {
		d_ptr = (CUdeviceptr)va;
		d_pitch = (size_t)(size / rows);
		next_va += (size + 511) / 512 * 512 + 512;
	}
	fake_api(CUPTI_CB_DOMAIN_DRIVER_API, k.drv, CUPTI_API_EXIT, k.drv_name, k.drv_params, NULL,
		 c, k.dcorr, &dok);
	if (!fail) {
		rt_ptr = (void *)(uintptr_t)va;
		rt_pitch = d_pitch;
		slot_ptr[slot] = va;
	}
	if (!drv_only)
		fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, k.rt, CUPTI_API_EXIT, k.rt_name, k.rt_params,
			 NULL, c, k.corr, &rok);
}

static void
free_cmd(const char *cmd, const char *rest)
{
	char how[16] = "";
	int ctx, slot;
	CUcontext c;
	cudaFree_v3020_params rp = { 0 };
	cudaFreeAsync_v11020_params rap = { 0 };
	cuMemFree_v2_params dp = { 0 };
	cuMemFreeAsync_params dap = { 0 };
	struct call2 k = { 0 };
	bool drv_only, async;

	if (sscanf(rest, "%d %d %15s", &ctx, &slot, how) < 2 || slot < 0 || slot >= ALLOC_SLOTS)
		usage(cmd);
	c = ctx_arg(cmd, ctx);
	drv_only = strcmp(how, "drv") == 0;
	async = strcmp(how, "async") == 0;
	if (how[0] && !drv_only && !async)
		usage(cmd);
	rp.devPtr = rap.devPtr = (void *)(uintptr_t)slot_ptr[slot];
	dp.dptr = dap.dptr = (CUdeviceptr)slot_ptr[slot];
	k.rt = async ? CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020
		     : CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020;
	k.rt_name = async ? "cudaFreeAsync" : "cudaFree";
	k.rt_params = async ? (const void *)&rap : (const void *)&rp;
	k.drv = async ? CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync
		      : CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2;
	k.drv_name = async ? "cuMemFreeAsync" : "cuMemFree_v2";
	k.drv_params = async ? (const void *)&dap : (const void *)&dp;
	if (drv_only) {
		CUresult dok = CUDA_SUCCESS;
		uint32_t corr = fake_next_correlation();

		fake_api(CUPTI_CB_DOMAIN_DRIVER_API, k.drv, CUPTI_API_ENTER, k.drv_name,
			 k.drv_params, NULL, c, corr, NULL);
		fake_api(CUPTI_CB_DOMAIN_DRIVER_API, k.drv, CUPTI_API_EXIT, k.drv_name,
			 k.drv_params, NULL, c, corr, &dok);
	} else {
		call2_enter(c, &k);
		call2_exit(c, &k);
	}
	slot_ptr[slot] = 0;
}

/* memset CTX BYTES DUR [opts]: cudaMemset(Async) + cuMemsetD8(Async)_v2 (record: driver id). */
static void
memset_cmd(const char *cmd, const char *rest)
{
	char opts[256] = "";
	unsigned long long bytes, dur;
	struct fake_kernel op = { .op = FAKE_OP_MEMSET };
	struct call2 k = { 0 };
	bool pageable;
	int ctx;
	CUcontext c;

	if (sscanf(rest, "%d %llu %llu %255[^\n]", &ctx, &bytes, &dur, opts) < 3)
		usage(cmd);
	c = ctx_arg(cmd, ctx);
	copy_opts(cmd, opts, &op, &pageable);
	op.bytes = bytes;
	op.duration_ns = dur;
	k.rt = op.async ? CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020
			: CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020;
	k.drv = op.async ? CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async
			 : CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2;
	k.rt_name = "cudaMemset";
	k.drv_name = "cuMemsetD8";
	call2_enter(c, &k);
	op.correlation = k.dcorr;
	fake_op_run(c, &op);
	call2_exit(c, &k);
}

/*
 * event-record CTX E S, wait-event CTX S E, event-sync CTX E: cudaEventRecord,
 * cudaStreamWaitEvent, cudaEventSynchronize (cuda_runtime_api.h) with their
 * nested cuEventRecord, cuStreamWaitEvent, cuEventSynchronize (cuda.h). The
 * CUDA_EVENT and SYNCHRONIZATION records carry the runtime call's id
 * ([GPU?] which of the two the real CUPTI puts there).
 */
static void
event_cmd(const char *cmd, const char *word, const char *rest)
{
	int ctx, e;
	unsigned st = 0;
	CUcontext c;
	struct fake_kernel op = { 0 };
	struct call2 k = { 0 };
	cudaStreamWaitEvent_v3020_params wp = { 0 };
	cuStreamWaitEvent_params dwp = { 0 };

	if (strcmp(word, "event-record") == 0) {
		if (sscanf(rest, "%d %d %u", &ctx, &e, &st) != 3)
			usage(cmd);
		k.rt = CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020;
		k.drv = CUPTI_DRIVER_TRACE_CBID_cuEventRecord;
		k.rt_name = "cudaEventRecord";
		k.drv_name = "cuEventRecord";
	} else if (strcmp(word, "wait-event") == 0) {
		if (sscanf(rest, "%d %u %d", &ctx, &st, &e) != 3)
			usage(cmd);
		k.rt = CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020;
		k.drv = CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent;
		k.rt_name = "cudaStreamWaitEvent";
		k.drv_name = "cuStreamWaitEvent";
		/* gpuproj reads the stream, the first member of both (see its callbacks). */
		wp.stream = (cudaStream_t)stream_handle(st);
		dwp.hStream = stream_handle(st);
		k.rt_params = &wp;
		k.drv_params = &dwp;
	} else {
		if (sscanf(rest, "%d %d", &ctx, &e) != 2)
			usage(cmd);
		k.rt = CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020;
		k.drv = CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize;
		k.rt_name = "cudaEventSynchronize";
		k.drv_name = "cuEventSynchronize";
	}
	if (e < 1 || e > 63)
		usage(cmd);
	c = ctx_arg(cmd, ctx);
	call2_enter(c, &k);
	op.stream = st;
	op.event = e;
	op.correlation = k.corr;
	if (strcmp(word, "event-record") == 0) {
		op.op = FAKE_OP_EVENT_RECORD;
		fake_op_run(c, &op);
	} else if (strcmp(word, "wait-event") == 0) {
		op.op = FAKE_OP_EVENT_WAIT;
		fake_op_run(c, &op);
	} else {
		fake_event_sync(c, e);
	}
	call2_exit(c, &k);
	if (strcmp(word, "wait-event") == 0)
		fake_sync_record(c, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, st, e,
				 k.corr, k.t0, fake_now());
	else if (strcmp(word, "event-sync") == 0)
		fake_sync_record(c, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 0, e,
				 k.corr, k.t0, fake_now());
}

/* do A ; B ; C: each command in order. */
static void
do_cmd(const char *rest)
{
	char *copy = strdup(rest), *save = NULL, *c;

	if (!copy)
		exit(1);
	for (c = strtok_r(copy, ";", &save); c; c = strtok_r(NULL, ";", &save)) {
		while (*c == ' ')
			c++;
		if (*c)
			run_command(c);
	}
	free(copy);
}

static void
device_reset(const char *cmd, int id)
{
	CUcontext c = ctx_arg(cmd, id);
	uint32_t corr = fake_next_correlation();
	cudaError_t ok = cudaSuccess;

	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020,
		 CUPTI_API_ENTER, "cudaDeviceReset", NULL, NULL, c, corr, NULL);
	fake_ctx_destroy(c);
	fake_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020,
		 CUPTI_API_EXIT, "cudaDeviceReset", NULL, NULL, c, corr, &ok);
}

/* ---- threads ---- */

struct thread_job {
	char cmd[1024];
	long n;
};

static void *
thread_main(void *arg)
{
	struct thread_job *j = arg;
	char cmd[1100];
	long i;

	fake_app_thread();
	for (i = 0; i < j->n; i++) {
		const char *p = j->cmd;
		char *w = cmd;

		/* %i → iteration */
		while (*p && w < cmd + sizeof(cmd) - 24) {
			if (p[0] == '%' && p[1] == 'i') {
				w += sprintf(w, "%ld", i);
				p += 2;
			} else {
				*w++ = *p++;
			}
		}
		*w = '\0';
		run_command(cmd);
	}
	return NULL;
}

static void
threads(const char *cmd, const char *rest)
{
	/* Up to 128: more than the recorder follows (GPUPROJ_TL_MAX_THREADS, 64). */
	static struct thread_job jobs[128];
	pthread_t tid[128];
	int t, n_threads, off = 0;
	long n;

	if (sscanf(rest, "%d %ld %n", &n_threads, &n, &off) < 2 || n_threads < 1 ||
	    n_threads > 128 || !off)
		usage(cmd);
	for (t = 0; t < n_threads; t++) {
		const char *p = rest + off;
		char *w = jobs[t].cmd;

		/* %t → thread index */
		while (*p && w < jobs[t].cmd + sizeof(jobs[t].cmd) - 8) {
			if (p[0] == '%' && p[1] == 't') {
				w += sprintf(w, "%d", t);
				p += 2;
			} else {
				*w++ = *p++;
			}
		}
		*w = '\0';
		jobs[t].n = n;
	}
	for (t = 0; t < n_threads; t++)
		pthread_create(&tid[t], NULL, thread_main, &jobs[t]);
	for (t = 0; t < n_threads; t++)
		pthread_join(tid[t], NULL);
}

/* One branch of `par`: its ;-separated commands in order. */
static void *
branch_main(void *arg)
{
	char *save = NULL, *c;

	fake_app_thread();
	for (c = strtok_r(arg, ";", &save); c; c = strtok_r(NULL, ";", &save)) {
		while (*c == ' ')
			c++;
		if (*c)
			run_command(c);
	}
	return NULL;
}

static void
par(const char *cmd, const char *rest)
{
	char *copy = strdup(rest), *save = NULL, *b, *branches[8];
	pthread_t tid[8];
	int n = 0, i;

	if (!copy)
		exit(1);
	for (b = strtok_r(copy, "|", &save); b && n < 8; b = strtok_r(NULL, "|", &save))
		branches[n++] = b;
	if (n < 1)
		usage(cmd);
	for (i = 0; i < n; i++)
		pthread_create(&tid[i], NULL, branch_main, branches[i]);
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	free(copy);
}

/* ---- a second CUPTI client in the process (a framework profiler) ---- */

/*
 * What PyTorch's Kineto does when its profiler starts (CuptiActivityApi:
 * enableCuptiActivities): subscribe for callbacks (refused while another
 * subscriber exists, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
 * cupti_result.h:282, cuptiSubscribe cupti_callbacks.h:722; Kineto goes on
 * with the activity API only), register its own buffer callbacks
 * (cuptiActivityRegisterCallbacks, cupti_activity.h:7668, keeps one pair
 * per process in CUPTI 13.0: "Only a single subscriber can be registered
 * at a time", cupti_callbacks.h:779; the later multi-subscriber mode is
 * not modelled) and enable kernel tracing (cupti_activity.h:7424);
 * when it stops: flush, disable kernel tracing.
 */
static unsigned long kineto_records;

static void CUPTIAPI
kineto_req(uint8_t **buf, size_t *size, size_t *max)
{
	*buf = aligned_alloc(8, 1u << 20);
	*size = *buf ? 1u << 20 : 0;
	*max = 0;
}

static void CUPTIAPI
kineto_done(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;

	(void)ctx;
	(void)stream;
	(void)size;
	/* Its own kind only: the kinds gpuproj enabled come to whoever holds the buffers. */
	while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
			__atomic_add_fetch(&kineto_records, 1, __ATOMIC_RELAXED);
	}
	free(buf);
}

static void CUPTIAPI
kineto_cb(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
	(void)ud;
	(void)dom;
	(void)cbid;
	(void)data;
}

static void
kineto(bool start)
{
	static CUpti_SubscriberHandle sub;

	if (start) {
		(void)cuptiSubscribe(&sub, kineto_cb, NULL);
		cuptiActivityRegisterCallbacks(kineto_req, kineto_done);
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	} else {
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
		printf("kineto records %lu\n", __atomic_load_n(&kineto_records, __ATOMIC_RELAXED));
		fflush(stdout);
	}
}

/* ---- benchmark ---- */

static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long
rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/*
 * LAUNCHES launches round-robin over SIGS signatures (one kernel name each,
 * grid varying), runtime launch with nested driver callback, a flush every
 * 65536 launches. Prints CPU seconds and RSS at 10% and at the end.
 */
static void
bench(const char *cmd, const char *rest)
{
	long launches, sigs, i, sync_every = 0;
	char (*names)[48];
	struct launch l = { .via = "rt", .block = { 256, 1, 1 }, .dur = 1000, .regs = 32 };
	double t0, t1;
	long rss_early = 0;

	if (sscanf(rest, "%ld %ld %ld", &launches, &sigs, &sync_every) < 2 || sigs < 1 ||
	    launches < 1 || sync_every < 0)
		usage(cmd);
	l.ctx = ctx_arg(cmd, 1);
	names = calloc((size_t)sigs, sizeof(*names));
	if (!names)
		exit(1);
	for (i = 0; i < sigs; i++)
		snprintf(names[i], sizeof(names[i]), "_Z11bench_kernelILi%ldEEvPf", i);
	t0 = cpu_s();
	for (i = 0; i < launches; i++) {
		l.name = names[i % sigs];
		l.grid[0] = (uint32_t)(1 + (i % sigs) % 7); /* one grid per signature */
		l.grid[1] = l.grid[2] = 1;
		runtime_launch(&l, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
			       "__cudaLaunchKernel", NULL, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
			       "cuLaunchKernel");
		if (sync_every && (i + 1) % sync_every == 0)
			sync_cmd(l.ctx, false, 0);
		if ((i & 65535) == 65535)
			fake_flush();
		if (i == launches / 10)
			rss_early = rss_kb();
	}
	fake_flush();
	t1 = cpu_s();
	printf("bench launches=%ld sigs=%ld cpu_s=%.6f rss_kb_10pct=%ld rss_kb_end=%ld\n",
	       launches, sigs, t1 - t0, rss_early, rss_kb());
	fflush(stdout);
	free(names);
}

/*
 * The soak: THREADS threads share LAUNCHES runtime
 * launches (with nested driver callbacks) round-robin over SIGS signatures;
 * RSS is printed before and at every 10 % of the launches, and at
 * TERM_PCT % the process sends itself SIGTERM while the threads go on
 * (TERM_PCT > 100: never). With MIN_MS, no launch after the first 10 %
 * starts before MIN_MS after the first (each thread waits there), so that a
 * periodic writer (the live snapshot) runs during the soak whatever the
 * machine's speed. Lines: "soak rss_kb AT KB", "soak sigterm at N rss_kb
 * KB", "soak done N".
 */
static atomic_long soak_next;
static long soak_launches, soak_sigs;
static int soak_term_pct;
static long soak_min_ms;
static struct timespec soak_start;
static char (*soak_names)[48];
static pthread_mutex_t soak_out = PTHREAD_MUTEX_INITIALIZER;

static void soak_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
soak_say(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&soak_out);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	pthread_mutex_unlock(&soak_out);
}

static void *
soak_thread(void *arg)
{
	struct launch l = { .via = "rt", .block = { 128, 1, 1 }, .dur = 1000, .regs = 32 };
	long n;

	l.ctx = arg;
	fake_app_thread();
	while ((n = atomic_fetch_add(&soak_next, 1)) < soak_launches) {
		long sig = n % soak_sigs;

		if (soak_launches >= 10 && n % (soak_launches / 10) == 0 && n > 0)
			soak_say("soak rss_kb %ld%% %ld\n", n * 100 / soak_launches, rss_kb());
		if (soak_min_ms > 0 && n >= soak_launches / 10) {
			struct timespec until = soak_start;

			until.tv_sec += soak_min_ms / 1000;
			until.tv_nsec += (soak_min_ms % 1000) * 1000000;
			if (until.tv_nsec >= 1000000000) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000;
			}
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
				;
		}
		if (soak_term_pct <= 100 && n == soak_launches * soak_term_pct / 100) {
			soak_say("soak sigterm at %ld rss_kb %ld\n", n, rss_kb());
			kill(getpid(), SIGTERM);
		}
		l.name = soak_names[sig];
		l.grid[0] = (uint32_t)(1 + sig % 7);
		l.grid[1] = l.grid[2] = 1;
		runtime_launch(&l, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
			       "__cudaLaunchKernel", NULL, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
			       "cuLaunchKernel");
	}
	return NULL;
}

static void
soak(const char *cmd, const char *rest)
{
	pthread_t tid[64];
	int threads, t;
	long i;

	int got = sscanf(rest, "%d %ld %ld %d %ld", &threads, &soak_launches, &soak_sigs,
			 &soak_term_pct, &soak_min_ms);

	if (got < 4 || threads < 1 || threads > 64 || soak_launches < 1 || soak_sigs < 1)
		usage(cmd);
	soak_names = calloc((size_t)soak_sigs, sizeof(*soak_names));
	if (!soak_names)
		exit(1);
	for (i = 0; i < soak_sigs; i++)
		snprintf(soak_names[i], sizeof(soak_names[i]), "_Z4soakILi%ldEEvPf", i);
	soak_say("soak rss_kb start %ld\n", rss_kb());
	clock_gettime(CLOCK_MONOTONIC, &soak_start);
	for (t = 0; t < threads; t++)
		pthread_create(&tid[t], NULL, soak_thread, ctx_arg(cmd, 1));
	for (t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	soak_say("soak done %ld\n", soak_launches);
}

/*
 * The test double must catch misuse: each call below breaks one rule of
 * the real API and must fail (and be recorded as a violation).
 */
static void
selftest(void)
{
	CUpti_Profiler_Initialize_Params zero = { .structSize = 0 };
	CUpti_Profiler_Initialize_Params init = {
		.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_Enable_Params en = {
		.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, .ctx = ctxs[1] };
	CUpti_RangeProfiler_Start_Params st = {
		.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_DecodeData_Params dec = {
		.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_Disable_Params dis = {
		.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_GetCounterDataSize_Params gs = {
		.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE };
	CUpti_Profiler_DeInitialize_Params de = {
		.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE };
	int passed = 0;

	/* 1: structSize 0 */
	passed += cuptiProfilerInitialize(&zero) == CUPTI_SUCCESS;
	/* 2: GetCounterDataSize on no object (Enable first) */
	passed += cuptiRangeProfilerGetCounterDataSize(&gs) == CUPTI_SUCCESS;
	passed += cuptiProfilerInitialize(&init) != CUPTI_SUCCESS;
	passed += cuptiRangeProfilerEnable(&en) != CUPTI_SUCCESS;
	st.pRangeProfilerObject = en.pRangeProfilerObject;
	dec.pRangeProfilerObject = en.pRangeProfilerObject;
	dis.pRangeProfilerObject = en.pRangeProfilerObject;
	/* 3: Start before SetConfig */
	passed += cuptiRangeProfilerStart(&st) == CUPTI_SUCCESS;
	/* 4: DecodeData before Stop */
	passed += cuptiRangeProfilerDecodeData(&dec) == CUPTI_SUCCESS;
	passed += cuptiRangeProfilerDisable(&dis) != CUPTI_SUCCESS;
	passed += cuptiProfilerDeInitialize(&de) != CUPTI_SUCCESS;
	if (passed) {
		fprintf(stderr, "fake-app: selftest: %d call(s) behaved unexpectedly\n", passed);
		exit(6);
	}
}

/* ---- commands ---- */

static int
run_command(const char *cmd)
{
	char word[64], arg1[512], arg2[512];
	const char *rest;
	int off = 0;

	if (sscanf(cmd, "%63s %n", word, &off) < 1)
		return usage(cmd);
	rest = cmd + off;
	if (strcmp(word, "init") == 0) {
		cudaFree(NULL); /* the runtime loads the driver, whose cuInit loads the injection */
	} else if (strcmp(word, "device") == 0) {
		char name[256], chip[32];
		int ord, maj, min, sms, clk;

		int used = 0;
		const char *p;

		if (sscanf(rest, "%d \"%255[^\"]\" %31s %d.%d %d %d%n", &ord, name, chip, &maj, &min,
			   &sms, &clk, &used) != 7 &&
		    sscanf(rest, "%d %255s %31s %d.%d %d %d%n", &ord, name, chip, &maj, &min, &sms,
			   &clk, &used) != 7)
			return usage(cmd);
		fake_set_device(ord, name, chip, maj, min, sms, clk);
		/* KEY=VALUE driver attributes after the seven fields (fake.h). */
		for (p = rest + used; *p;) {
			char key[32];
			long long v;
			int n = 0;

			while (*p == ' ')
				p++;
			if (!*p)
				break;
			if (sscanf(p, "%31[^=]=%lld%n", key, &v, &n) != 2 ||
			    !fake_set_device_attr(ord, key, v))
				return usage(cmd);
			p += n;
		}
	} else if (strcmp(word, "ctx") == 0) {
		int ord = atoi(rest);

		if (n_ctx == MAX_CTX || !fake_get_device(ord))
			return usage(cmd);
		ctxs[++n_ctx] = fake_ctx_create(ord);
	} else if (strcmp(word, "destroy") == 0) {
		destroy_ctx(ctx_arg(cmd, atoi(rest)));
	} else if (strcmp(word, "sync") == 0) {
		sync_cmd(ctx_arg(cmd, atoi(rest)), false, 0);
	} else if (strcmp(word, "stream-sync") == 0) {
		int c;
		unsigned st;

		if (sscanf(rest, "%d %u", &c, &st) != 2)
			return usage(cmd);
		sync_cmd(ctx_arg(cmd, c), true, st);
	} else if (strcmp(word, "wait-value") == 0) {
		int c, f;
		unsigned st;

		if (sscanf(rest, "%d %u %d", &c, &st, &f) != 3 || f < 1 || f > 63)
			return usage(cmd);
		wait_value(ctx_arg(cmd, c), st, f);
	} else if (strcmp(word, "host-write") == 0) {
		if (atoi(rest) < 1 || atoi(rest) > 63)
			return usage(cmd);
		fake_host_write(atoi(rest));
	} else if (strcmp(word, "reset") == 0) {
		device_reset(cmd, atoi(rest));
	} else if (strcmp(word, "module") == 0) {
		int ctx;
		unsigned id;
		size_t size, i;
		unsigned char *cubin;

		if (sscanf(rest, "%d %u %zu", &ctx, &id, &size) != 3 || !size)
			return usage(cmd);
		cubin = malloc(size);
		if (!cubin)
			exit(1);
		for (i = 0; i < size; i++)
			cubin[i] = (unsigned char)(i * 7 + id);
		fake_module_load(ctx_arg(cmd, ctx), id, cubin, size);
		free(cubin);
	} else if (strcmp(word, "launch") == 0) {
		struct launch l;
		char buf[1024];

		parse_launch(cmd, rest, &l, buf, sizeof(buf));
		do_launch(&l);
	} else if (strcmp(word, "graph") == 0) {
		graph_launch(cmd, rest);
	} else if (strcmp(word, "capture-begin") == 0) {
		capture(true, (uint32_t)atoi(rest));
	} else if (strcmp(word, "capture-end") == 0) {
		capture(false, (uint32_t)atoi(rest));
	} else if (strcmp(word, "stream-destroy") == 0) {
		int c;
		unsigned st;

		if (sscanf(rest, "%d %u", &c, &st) != 2)
			return usage(cmd);
		stream_destroy(ctx_arg(cmd, c), st);
	} else if (strcmp(word, "host") == 0) {
		fake_host_work(strtoull(rest, NULL, 10));
	} else if (strcmp(word, "api-ns") == 0) {
		fake_set_api_ns(strtoull(rest, NULL, 10));
	} else if (strcmp(word, "memcpy") == 0) {
		memcpy_cmd(cmd, rest);
	} else if (strcmp(word, "memset") == 0) {
		memset_cmd(cmd, rest);
	} else if (strcmp(word, "alloc") == 0) {
		alloc_cmd(cmd, rest);
	} else if (strcmp(word, "free") == 0) {
		free_cmd(cmd, rest);
	} else if (strcmp(word, "event-record") == 0 || strcmp(word, "wait-event") == 0 ||
		   strcmp(word, "event-sync") == 0) {
		event_cmd(cmd, word, rest);
	} else if (strcmp(word, "do") == 0) {
		do_cmd(rest);
	} else if (strcmp(word, "repeat") == 0) {
		long n, i;
		int o = 0;

		if (sscanf(rest, "%ld %n", &n, &o) < 1 || !o)
			return usage(cmd);
		for (i = 0; i < n; i++)
			run_command(rest + o);
	} else if (strcmp(word, "threads") == 0) {
		threads(cmd, rest);
	} else if (strcmp(word, "par") == 0) {
		par(cmd, rest);
	} else if (strcmp(word, "flush") == 0) {
		fake_flush();
	} else if (strcmp(word, "metric") == 0) {
		double v;

		if (sscanf(rest, "%511s %lf", arg1, &v) != 2)
			return usage(cmd);
		fake_set_metric(arg1, v);
	} else if (strcmp(word, "fail") == 0) {
		int code, count = 1;

		if (sscanf(rest, "%511s %d %d", arg1, &code, &count) < 2)
			return usage(cmd);
		fake_fail(arg1, code, count);
	} else if (strcmp(word, "ranges") == 0) {
		fake_set_ranges(atoi(rest));
	} else if (strcmp(word, "kineto-start") == 0) {
		kineto(true);
	} else if (strcmp(word, "kineto-stop") == 0) {
		kineto(false);
	} else if (strcmp(word, "cupti-version") == 0) {
		fake_set_version((uint32_t)strtoul(rest, NULL, 10));
	} else if (strcmp(word, "counters-busy") == 0) {
		fake_counters_busy(true);
	} else if (strcmp(word, "dropped-ranges") == 0) {
		fake_set_dropped_ranges(atoi(rest));
	} else if (strcmp(word, "drop") == 0) {
		fake_drop_records((uint64_t)atoll(rest));
	} else if (strcmp(word, "replay-records") == 0) {
		fake_set_replay_records(strcmp(rest, "on") == 0);
	} else if (strcmp(word, "fatal") == 0) {
		fake_fatal_error(rest);
	} else if (strcmp(word, "fork") == 0 || strcmp(word, "fork-exit") == 0) {
		bool bare = strcmp(word, "fork-exit") == 0;
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			/* fork-exit: nothing at all; fork: one launch (nothing may happen), exit 0. */
			if (bare)
				_exit(0);
			if (n_ctx)
				run_command("launch rt 1 _Z10child_kernPf 1,1,1 32,1,1 0 100");
			exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			exit(5);
	} else if (strcmp(word, "fork-signal") == 0) {
		int sig = strcmp(rest, "INT") == 0 ? SIGINT : SIGTERM;
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			raise(sig);
			_exit(0); /* the signal was swallowed */
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status) ||
		    WTERMSIG(status) != sig)
			exit(5);
	} else if (strcmp(word, "stderr-broken") == 0) {
		int fds[2];

		if (pipe(fds) != 0 || dup2(fds[1], 2) < 0)
			exit(1);
		close(fds[0]);
		close(fds[1]);
	} else if (strcmp(word, "load-cxx") == 0) {
		if (!dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL)) {
			fprintf(stderr, "fake-app: cannot load libstdc++.so.6: %s\n", dlerror());
			exit(1);
		}
	} else if (strcmp(word, "setlocale") == 0) {
		/* As applications do before their first CUDA call: the process locale. */
		if (!setlocale(LC_ALL, rest)) {
			fprintf(stderr, "fake-app: setlocale(LC_ALL, \"%s\") failed\n", rest);
			exit(3);
		}
		printf("locale %s: %.1f\n", rest, 1.5);
		fflush(stdout);
	} else if (strcmp(word, "chdir") == 0) {
		if (chdir(rest) != 0)
			exit(1);
	} else if (strcmp(word, "mkdir") == 0) {
		if (mkdir(rest, 0777) != 0)
			exit(1);
	} else if (strcmp(word, "rmdir") == 0) {
		if (rmdir(rest) != 0)
			exit(1);
	} else if (strcmp(word, "mkfifo") == 0) {
		if (mkfifo(rest, 0666) != 0)
			exit(1);
	} else if (sscanf(cmd, "write %511s %n", arg1, &off) == 1 && off > 0) {
		FILE *f = fopen(arg1, "w");

		if (!f || fputs(cmd + off, f) < 0 || fclose(f) != 0)
			exit(1);
	} else if (sscanf(cmd, "symlink %511s %511s", arg1, arg2) == 2) {
		if (symlink(arg1, arg2) != 0)
			exit(1);
	} else if (strcmp(word, "stdout") == 0) {
		printf("%s\n", rest);
		fflush(stdout);
	} else if (strcmp(word, "sleep") == 0) {
		struct timespec ts = { atoi(rest) / 1000, (long)(atoi(rest) % 1000) * 1000000 };

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	} else if (strcmp(word, "alarm-exit") == 0) {
		long us;
		int code;
		struct sigaction sa = { .sa_handler = alarm_exit };
		struct itimerval it = { { 0, 0 }, { 0, 0 } };

		if (sscanf(rest, "%ld %d", &us, &code) != 2 || us < 0)
			return usage(cmd);
		alarm_exit_code = code;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		/* 0: no timer; the double raises it ($FAKE_ALARM_AT, fake-cupti.c). */
		it.it_value.tv_sec = us / 1000000;
		it.it_value.tv_usec = us % 1000000;
		if (us)
			setitimer(ITIMER_REAL, &it, NULL);
	} else if (strcmp(word, "signal") == 0) {
		raise(strcmp(rest, "INT") == 0 ? SIGINT : SIGTERM);
		/* With gpuproj's handler the report is written, then the signal kills us. */
		for (;;)
			pause();
	} else if (strcmp(word, "exit") == 0) {
		exit(atoi(rest));
	} else if (strcmp(word, "bench") == 0) {
		bench(cmd, rest);
	} else if (strcmp(word, "soak") == 0) {
		soak(cmd, rest);
	} else if (strcmp(word, "selftest") == 0) {
		selftest();
	} else {
		(void)arg2;
		return usage(cmd);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int i;

	fake_app_thread();
	fake_set_device(0, "Fake A100", "GA100", 8, 0, 100, 1410000);
	for (i = 1; i < argc; i++)
		run_command(argv[i]);
	return 0;
}
