/* SPDX-License-Identifier: MIT */
/*
 * The callback API side of the CUPTI backend: launches in the driver and
 * runtime domains (CUDA 13's `__cudaLaunchKernel`, Ex, cooperative,
 * graph), nested runtime→driver callbacks counted once (thread-local
 * depth), stream capture begin/end, cudaDeviceReset, contexts, modules,
 * CUPTI fatal errors. Every launch is decided once, at its outermost
 * level, where its dimensions are known (docs/internals/injection.md "A launch").
 *
 * Thread safety: launch callbacks run concurrently on application threads;
 * the per-thread state (struct cupti_tls) lives here and is passed down to
 * the window functions. Nothing in a launch callback calls the driver.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cupti-private.h"
#include "output.h"
#include "util.h"

static _Thread_local struct cupti_tls tls;

/*
 * Launches seen, for cupti_activity_watch(): one counter per cache line
 * (st->launches), a thread picks one at its first launch, so threads
 * rarely share a line.
 */
static _Thread_local unsigned tls_stripe = UINT32_MAX;

static void
count_launch(struct cupti_state *st)
{
	if (tls_stripe == UINT32_MAX)
		tls_stripe = atomic_fetch_add(&st->next_stripe, 1) % LAUNCH_STRIPES;
	atomic_fetch_add_explicit(&st->launches[tls_stripe].n, 1, memory_order_relaxed);
}

/*
 * ---- Device allocations: the run's peak device memory (collector.h) ----
 *
 * The allocation and free calls of the runtime and the driver, at the
 * outermost level: a runtime call's nested driver call (cudaMalloc →
 * cuMemAlloc_v2, [GPU?] which driver function each runtime one calls) is
 * skipped while tls.mem_depth > 0. The size is in the parameters at ENTER
 * and EXIT; the address only at EXIT, and only when the call succeeded
 * (the parameter structs of generated_cuda_runtime_api_meta.h:508-541,
 * 2372-2388 and generated_cuda_meta.h:481-496, 530-534, 3825-3841: `void
 * **devPtr` / `CUdeviceptr *dptr` is the function's output). A pitched
 * allocation is *pitch × height bytes (cuda_runtime_api.h cudaMallocPitch,
 * cuda.h cuMemAllocPitch: the pitch is returned). Managed memory counts
 * as device memory allocated (it may be paged out [GPU?]). Nothing here
 * calls the driver.
 */
enum mem_kind { M_NONE = 0, M_ALLOC, M_PITCH, M_FREE };

static enum mem_kind
runtime_mem(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
		return M_ALLOC;
	case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020:
		return M_ALLOC;
	case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020:
		return M_PITCH;
	case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
		return M_FREE;
	default:
		return M_NONE;
	}
}

static enum mem_kind
driver_mem(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
		return M_ALLOC;
	case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2:
		return M_PITCH;
	case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
		return M_FREE;
	default:
		return M_NONE;
	}
}

/*
 * The address and size of a finished allocation, or the address freed:
 * every params struct of runtime_mem()/driver_mem() begins with the output
 * pointer (alloc) or the address (free); the size follows, except for a
 * pitched one (its pitch pointer, width, height).
 */
static void
mem_params(CUpti_CallbackDomain dom, enum mem_kind k, const void *params, uint64_t *ptr,
	   uint64_t *bytes)
{
	*ptr = *bytes = 0;
	if (!params)
		return;
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
		if (k == M_FREE) {
			*ptr = (uintptr_t)((const cudaFree_v3020_params *)params)->devPtr;
		} else if (k == M_PITCH) {
			const cudaMallocPitch_v3020_params *p = params;

			*ptr = p->devPtr ? (uintptr_t)*p->devPtr : 0;
			*bytes = p->pitch ? (uint64_t)*p->pitch * p->height : 0;
		} else {
			const cudaMalloc_v3020_params *p = params;

			*ptr = p->devPtr ? (uintptr_t)*p->devPtr : 0;
			*bytes = p->size;
		}
		return;
	}
	if (k == M_FREE) {
		*ptr = ((const cuMemFree_v2_params *)params)->dptr;
	} else if (k == M_PITCH) {
		const cuMemAllocPitch_v2_params *p = params;

		*ptr = p->dptr ? *p->dptr : 0;
		*bytes = p->pPitch ? (uint64_t)*p->pPitch * p->Height : 0;
	} else {
		const cuMemAlloc_v2_params *p = params;

		*ptr = p->dptr ? *p->dptr : 0;
		*bytes = p->bytesize;
	}
}

static bool call_succeeded(CUpti_CallbackDomain dom, const CUpti_CallbackData *cd);

/* An allocation or free callback: true when it was one (nothing else to do). */
static bool
on_memory(struct cupti_state *st, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
	  const CUpti_CallbackData *cd)
{
	enum mem_kind k = dom == CUPTI_CB_DOMAIN_RUNTIME_API ? runtime_mem(cbid) : driver_mem(cbid);
	struct ctxinfo *ci;
	uint64_t ptr, bytes;

	if (k == M_NONE)
		return false;
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && cd->callbackSite == CUPTI_API_ENTER) {
		tls.mem_depth++;
		return true;
	}
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && tls.mem_depth > 0)
		tls.mem_depth--;
	/* The driver call of a runtime allocation, or any ENTER: counted at the outer EXIT. */
	if (cd->callbackSite != CUPTI_API_EXIT || tls.mem_depth > 0 || !call_succeeded(dom, cd))
		return true;
	mem_params(dom, k, cd->functionParams, &ptr, &bytes);
	if (k == M_FREE) {
		inj_collector_mem_free(st->col, ptr);
		return true;
	}
	ci = cupti_ctx_find(st, &tls, cd->context);
	inj_collector_mem_alloc(st->col, ci ? ci->device : 0, ptr, bytes);
	return true;
}

/* ---- launch callbacks ---- */

enum kind {
	K_NONE = 0,
	K_LAUNCH,		/* a kernel launch with its parameters */
	K_LAUNCH_NOPARAMS,	/* __cudaLaunchKernel: name and context only */
	K_GRAPH,		/* graph launch: never profiled */
	K_CAPTURE_BEGIN,
	K_CAPTURE_END,
	K_RESET,		/* cudaDeviceReset, cuCtxDestroy, cuDevicePrimaryCtxReset */
	K_SYNC_CTX,		/* cudaDeviceSynchronize, cuCtxSynchronize */
	K_SYNC_STREAM,		/* cudaStreamSynchronize, cuStreamSynchronize */
	K_STREAM_WAIT,		/* stream waits for an event or a memory value */
	K_STREAM_DESTROY,	/* cudaStreamDestroy, cuStreamDestroy */
};

static enum kind
runtime_kind(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000:
		return K_LAUNCH;
	case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
	case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
		return K_LAUNCH_NOPARAMS;
	case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
		return K_GRAPH;
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030:
		return K_CAPTURE_BEGIN;
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000:
		return K_CAPTURE_END;
	case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020:
		return K_RESET;
	case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
		return K_SYNC_CTX;
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
		return K_SYNC_STREAM;
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
		return K_STREAM_WAIT;
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v3020:
	case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050:
		return K_STREAM_DESTROY;
	default:
		return K_NONE;
	}
}

static enum kind
driver_kind(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice:
		return K_LAUNCH;
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
	case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
		return K_GRAPH;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
		return K_CAPTURE_BEGIN;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
		return K_CAPTURE_END;
	case CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2:
		return K_RESET;
	case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
		return K_SYNC_CTX;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
		return K_SYNC_STREAM;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_v2_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2_ptsz:
		return K_STREAM_WAIT;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2:
		return K_STREAM_DESTROY;
	default:
		return K_NONE;
	}
}

/* The _ptsz variants: a NULL stream there is the per-thread default stream. */
static bool
is_ptsz(CUpti_CallbackDomain dom, CUpti_CallbackId cbid)
{
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
		return cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000;
	return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_v2_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2_ptsz;
}

/*
 * A stream as the pending-work bookkeeping knows it: 0 for the legacy
 * default stream (NULL, CU_STREAM_LEGACY), which is ordered with every
 * other blocking stream of the context (CUDA Runtime API, "Stream
 * synchronization behavior"); the handle otherwise (CU_STREAM_PER_THREAD,
 * or NULL under a _ptsz call, is the per-thread stream, an ordinary one).
 */
static uintptr_t
stream_id(CUstream s, bool ptsz)
{
	uintptr_t v = (uintptr_t)s;

	if (v == (uintptr_t)CU_STREAM_LEGACY || (v == 0 && !ptsz))
		return 0;
	if (v == 0)
		return (uintptr_t)CU_STREAM_PER_THREAD;
	return v;
}

/* What the launch callbacks know about one launch. */
struct launch {
	struct inj_launch_key key;
	uintptr_t stream;		/* stream_id() */
	bool stream_known;
	bool coop;			/* cooperative or multi-device: never profiled */
};

static void
set_dims(struct launch *l, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
	 unsigned bz, size_t smem)
{
	struct inj_launch_key *k = &l->key;

	k->grid.x = gx;
	k->grid.y = gy;
	k->grid.z = gz;
	k->block.x = bx;
	k->block.y = by;
	k->block.z = bz;
	k->smem_dynamic = (uint32_t)smem;
	k->dims_known = true;
}

/* The runtime's parameter structs: gridDim and blockDim as dim3. */
#define RT_DIMS(l, p, smem)                                                                   \
	set_dims(l, (p)->gridDim.x, (p)->gridDim.y, (p)->gridDim.z, (p)->blockDim.x,            \
		 (p)->blockDim.y, (p)->blockDim.z, smem)
/* The driver's (cuLaunchKernel_params, CUlaunchConfig): gridDimX ... blockDimZ. */
#define DRV_DIMS(l, p, smem)                                                                  \
	set_dims(l, (p)->gridDimX, (p)->gridDimY, (p)->gridDimZ, (p)->blockDimX,                \
		 (p)->blockDimY, (p)->blockDimZ, smem)

static void
set_cluster(struct launch *l, unsigned x, unsigned y, unsigned z)
{
	l->key.cluster.x = x;
	l->key.cluster.y = y;
	l->key.cluster.z = z;
}

static void
set_stream(struct launch *l, CUstream s, bool ptsz)
{
	l->stream = stream_id(s, ptsz);
	l->stream_known = true;
}

/*
 * One launch attribute: `coop`, a nonzero cooperative attribute, marks the
 * launch cooperative; `cluster`, a cluster dimension, sets its cluster. cuda.h
 * CU_LAUNCH_ATTRIBUTE_COOPERATIVE ("nonzero indicates a cooperative
 * kernel") and CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (value.clusterDim),
 * both in CUlaunchAttributeValue; the runtime's cudaLaunchAttribute has
 * the same two (val.cooperative, val.clusterDim).
 */
static void
set_attr(struct launch *l, bool coop, bool cluster, unsigned x, unsigned y, unsigned z)
{
	if (coop)
		l->coop = true;
	else if (cluster)
		set_cluster(l, x, y, z);
}

/*
 * Every attribute of a launch configuration: cudaLaunchConfig_t (union
 * member `val`, ids cudaLaunchAttribute*) or CUlaunchConfig (`value`,
 * CU_LAUNCH_ATTRIBUTE_*).
 */
#define SET_ATTRS(l, cfg, val, coop_id, cluster_id)                                           \
	do {                                                                                  \
		for (size_t i_ = 0; (cfg)->attrs && i_ < (cfg)->numAttrs; i_++)               \
			set_attr(l, (cfg)->attrs[i_].id == (coop_id) &&                       \
					    (cfg)->attrs[i_].val.cooperative,                 \
				 (cfg)->attrs[i_].id == (cluster_id),                         \
				 (cfg)->attrs[i_].val.clusterDim.x,                           \
				 (cfg)->attrs[i_].val.clusterDim.y,                           \
				 (cfg)->attrs[i_].val.clusterDim.z);                          \
	} while (0)

static void
runtime_launch(CUpti_CallbackId cbid, const void *params, struct launch *l)
{
	bool ptsz = is_ptsz(CUPTI_CB_DOMAIN_RUNTIME_API, cbid);

	switch (cbid) {
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
		const cudaLaunchKernel_v7000_params *p = params;

		RT_DIMS(l, p, p->sharedMem);
		set_stream(l, (CUstream)p->stream, ptsz);
		break;
	}
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000: {
		const cudaLaunchCooperativeKernel_v9000_params *p = params;

		RT_DIMS(l, p, p->sharedMem);
		set_stream(l, (CUstream)p->stream, ptsz);
		l->coop = true;
		break;
	}
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000:
		l->coop = true;
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
		const cudaLaunchKernelExC_v11060_params *p = params;

		if (!p->config)
			break;
		RT_DIMS(l, p->config, p->config->dynamicSmemBytes);
		set_stream(l, (CUstream)p->config->stream, ptsz);
		SET_ATTRS(l, p->config, val, cudaLaunchAttributeCooperative,
			  cudaLaunchAttributeClusterDimension);
		break;
	}
	default:
		break;
	}
}

static void
driver_launch(CUpti_CallbackId cbid, const void *params, struct launch *l)
{
	bool ptsz = is_ptsz(CUPTI_CB_DOMAIN_DRIVER_API, cbid);

	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
		const cuLaunchKernel_params *p = params;

		DRV_DIMS(l, p, p->sharedMemBytes);
		set_stream(l, p->hStream, ptsz);
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
		const cuLaunchCooperativeKernel_params *p = params;

		DRV_DIMS(l, p, p->sharedMemBytes);
		set_stream(l, p->hStream, ptsz);
		l->coop = true;
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice:
		l->coop = true;
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		const cuLaunchKernelEx_params *p = params;

		if (!p->config)
			break;
		DRV_DIMS(l, p->config, p->config->sharedMemBytes);
		set_stream(l, p->config->hStream, ptsz);
		SET_ATTRS(l, p->config, value, CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
			  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
		break;
	}
	default:
		break;
	}
}

/*
 * ---- Work that may not finish under kernel replay ----
 *
 * A profiled kernel is replayed with the context serialised: it must
 * finish on its own. Whatever it (or work it is ordered after) waits for
 * has to be done already. gpuproj cannot see a kernel's spin loop, so it
 * keeps, per context, what could be such a dependency since the last
 * synchronisation: the first non-legacy stream with launches, whether a
 * second one had launches too, and whether a stream waits for an event or
 * a memory value. A launch on a non-legacy stream while another
 * non-legacy stream has pending work, or any launch while a stream wait
 * is pending, is not profiled (docs/internals/injection.md "Kernels never
 * profiled"). Legacy-stream work is ordered with everything, so it is no
 * hazard of its own.
 */
static bool
pending_hazard(struct ctxinfo *ci, const struct launch *l)
{
	uintptr_t cur;

	if (atomic_load_explicit(&ci->pend_wait, memory_order_relaxed))
		return true;
	cur = atomic_load_explicit(&ci->pend_stream, memory_order_relaxed);
	if (!cur)
		return false;
	if (!l->stream_known)
		return true;
	if (l->stream == 0)
		return false;
	return cur != l->stream || atomic_load_explicit(&ci->pend_multi, memory_order_relaxed);
}

static void
pending_add(struct ctxinfo *ci, const struct launch *l)
{
	uintptr_t cur;

	if (!l->stream_known || l->stream == 0)
		return;
	/* Read first: the common case (the same stream again) writes nothing. */
	cur = atomic_load_explicit(&ci->pend_stream, memory_order_relaxed);
	if (cur == l->stream)
		return;
	if (!cur && (atomic_compare_exchange_strong(&ci->pend_stream, &cur, l->stream) ||
		     cur == l->stream))
		return;
	if (!atomic_load_explicit(&ci->pend_multi, memory_order_relaxed))
		atomic_store(&ci->pend_multi, true);
}

static void
pending_wait(struct ctxinfo *ci)
{
	if (!atomic_load_explicit(&ci->pend_wait, memory_order_relaxed))
		atomic_store(&ci->pend_wait, true);
}

/* A launch that is not profiled: no window opens on its context while it is submitted. */
static void
not_profiled(struct cupti_state *st, struct ctxinfo *ci, const struct launch *l, int level,
	     uint32_t corr)
{
	if (!ci)
		return;
	pending_add(ci, l);
	cupti_window_launch(st, &tls, ci, level, corr);
}

/*
 * Decide at a launch's ENTER whether it is profiled; open its window if so.
 * Every launch comes through here once (at its outermost level).
 */
static void
decide(struct cupti_state *st, const CUpti_CallbackData *cd, struct launch *l, uint32_t corr2,
       int level)
{
	struct inj_gate *g;
	struct ctxinfo *ci;

	count_launch(st);
	if (!atomic_load_explicit(&st->metrics, memory_order_relaxed))
		return;
	ci = cupti_ctx_find(st, &tls, cd->context);
	if (!ci || !atomic_load(&ci->ready) || !cd->symbolName || l->coop ||
	    atomic_load(&st->captures) > 0 || pending_hazard(ci, l)) {
		not_profiled(st, ci, l, level, cd->correlationId);
		return;
	}
	l->key.name = cd->symbolName;
	l->key.device = ci->device;
	if (!inj_collector_gate_take(st->col, &l->key, &g)) {
		not_profiled(st, ci, l, level, cd->correlationId);
		return;
	}
	pending_add(ci, l);
	if (!cupti_window_wrlock(st, ci)) {
		/* Waited too long for another window: this launch may run inside it. */
		inj_collector_gate_give_back(st->col, g);
		inj_collector_untimed_launch(st->col, cd->correlationId);
		return;
	}
	if (atomic_load(&st->captures) > 0) {
		/* A capture began while this thread waited for the lock. */
		pthread_rwlock_unlock(&ci->win_lock);
		inj_collector_gate_give_back(st->col, g);
		return;
	}
	if (!cupti_window_open(st, &tls, ci, g, cd->correlationId, corr2, level,
			       !l->key.dims_known))
		pthread_rwlock_unlock(&ci->win_lock);
}

static bool
call_succeeded(CUpti_CallbackDomain dom, const CUpti_CallbackData *cd)
{
	if (!cd->functionReturnValue)
		return false;
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
		return *(const cudaError_t *)cd->functionReturnValue == cudaSuccess;
	return *(const CUresult *)cd->functionReturnValue == CUDA_SUCCESS;
}

/*
 * ---- Stream capture ----
 *
 * A window synchronises its context (DecodeData); a synchronisation while
 * a stream is captured in global mode invalidates the capture
 * (cuda_runtime_api.h cudaStreamBeginCapture; driver_types.h
 * cudaErrorStreamCaptureUnsupported), whatever thread makes it. So: no
 * window opens while a capture is in progress or beginning anywhere in the
 * process (st->captures; every mode is treated as global), and a capture
 * begins only once no window is open (its ENTER callback waits, bounded).
 * Captures are kept by stream, so one that is abandoned — its stream or
 * its context destroyed without cudaStreamEndCapture — no longer keeps
 * profiling off.
 */

/* The stream a capture or stream call names (the first member of every such params struct). */
static uintptr_t
params_stream(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	CUstream s = cd->functionParams ? *(const CUstream *)cd->functionParams : NULL;

	return stream_id(s, is_ptsz(dom, cbid));
}

/* Remove matching captures (stream = UINTPTR_MAX: every one of ctx); how many. */
static int
captures_remove(struct cupti_state *st, CUcontext ctx, uintptr_t stream)
{
	size_t i;
	int n = 0;

	pthread_mutex_lock(&st->cap_lock);
	for (i = 0; i < st->n_caps;) {
		if (st->caps[i].ctx == ctx &&
		    (stream == UINTPTR_MAX || st->caps[i].stream == stream)) {
			st->caps[i] = st->caps[--st->n_caps];
			n++;
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&st->cap_lock);
	if (n)
		atomic_fetch_sub(&st->captures, n);
	return n;
}

/* Forget the captures of a context that is destroyed (abandoned with it). */
static void
captures_forget(struct cupti_state *st, CUcontext ctx)
{
	if (captures_remove(st, ctx, UINTPTR_MAX))
		inj_debug("a stream capture ended with its context; windows may open again");
}

static void
on_capture(struct cupti_state *st, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
	   enum kind k, const CUpti_CallbackData *cd)
{
	uintptr_t s = params_stream(dom, cbid, cd);

	if (k == K_CAPTURE_BEGIN && cd->callbackSite == CUPTI_API_ENTER) {
		/* Counted before waiting: no window opens from now on. */
		atomic_fetch_add(&st->captures, 1);
		cupti_windows_wait_all(st);
	} else if (k == K_CAPTURE_BEGIN) {
		bool kept = false;

		if (call_succeeded(dom, cd)) {
			pthread_mutex_lock(&st->cap_lock);
			if (st->n_caps < MAX_CAPTURES) {
				st->caps[st->n_caps].ctx = cd->context;
				st->caps[st->n_caps++].stream = s;
				kept = true;
			}
			pthread_mutex_unlock(&st->cap_lock);
		}
		if (!kept)
			atomic_fetch_sub(&st->captures, 1);
	} else if (k == K_CAPTURE_END && cd->callbackSite == CUPTI_API_EXIT) {
		/* Ended, successfully or not: the stream is not capturing any more. */
		captures_remove(st, cd->context, s);
	} else if (k == K_STREAM_DESTROY && cd->callbackSite == CUPTI_API_ENTER) {
		if (captures_remove(st, cd->context, s))
			inj_debug("a stream was destroyed while capturing (capture abandoned); windows "
				  "may open again");
	}
}

/*
 * A context is about to be destroyed (cudaDeviceReset, cuCtxDestroy,
 * cuDevicePrimaryCtxReset): its kernels finish and their records are
 * delivered now, while the context exists — records CUPTI has not collected
 * when it goes are lost, and flushing is not allowed in the resource
 * callback that follows ([CUPTI-INJ]; [S] helper_cupti_activity.h
 * flushes at cudaDeviceReset; cupti_activity.h: the flush does not
 * synchronise, the client must).
 */
static void
before_context_goes(struct cupti_state *st, CUcontext ctx)
{
	cupti_ctx_sync(st, ctx);
	CUPTI_TRY(st, cuptiActivityFlushAll, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/* Synchronisation and stream waits: the pending-work bookkeeping (see pending_hazard()). */
static void
on_sync_or_wait(struct cupti_state *st, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
		enum kind k, const CUpti_CallbackData *cd)
{
	struct ctxinfo *ci = cupti_ctx_find(st, &tls, cd->context);
	/* Every stream-wait and stream-sync params struct starts with the stream. */
	uintptr_t id = params_stream(dom, cbid, cd);

	if (!ci)
		return;
	if (k == K_STREAM_WAIT && cd->callbackSite == CUPTI_API_ENTER) {
		pending_wait(ci);
	} else if (k == K_SYNC_CTX && cd->callbackSite == CUPTI_API_EXIT &&
		   call_succeeded(dom, cd)) {
		cupti_pending_clear(ci);
	} else if (k == K_SYNC_STREAM && cd->callbackSite == CUPTI_API_EXIT &&
		   call_succeeded(dom, cd) && id &&
		   atomic_load(&ci->pend_stream) == id && !atomic_load(&ci->pend_multi) &&
		   !atomic_load(&ci->pend_wait)) {
		atomic_store(&ci->pend_stream, 0);
	}
}

static void
on_runtime(struct cupti_state *st, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	enum kind k = runtime_kind(cbid);
	struct launch l = { 0 };

	if (k == K_NONE) {
		on_memory(st, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, cd);
		return;
	}
	if (k == K_SYNC_CTX || k == K_SYNC_STREAM || k == K_STREAM_WAIT) {
		on_sync_or_wait(st, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, k, cd);
		return;
	}
	if (k == K_STREAM_DESTROY) {
		on_capture(st, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, k, cd);
		return;
	}
	if (cd->callbackSite == CUPTI_API_ENTER) {
		if (k == K_CAPTURE_BEGIN && tls.depth == 0)
			on_capture(st, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, k, cd);
		if (k == K_RESET) {
			before_context_goes(st, cd->context);
			return;
		}
		tls.depth++;
		switch (k) {
		case K_LAUNCH:
			if (tls.depth == 1) {
				runtime_launch(cbid, cd->functionParams, &l);
				decide(st, cd, &l, 0, LEVEL_RT);
			}
			break;
		case K_LAUNCH_NOPARAMS:
			if (tls.depth != 1)
				break;
			if (atomic_load_explicit(&st->nested_seen, memory_order_relaxed)) {
				/*
				 * The nested driver callback will know the dimensions
				 * and the stream (and waits for another thread's window
				 * there).
				 */
				tls.pending = true;
				tls.pending_corr = cd->correlationId;
			} else {
				decide(st, cd, &l, 0, LEVEL_RT);
			}
			break;
		case K_GRAPH:
			if (tls.depth == 1) {
				const cudaGraphLaunch_v10000_params *p = cd->functionParams;

				if (p)
					set_stream(&l, (CUstream)p->stream,
						   is_ptsz(CUPTI_CB_DOMAIN_RUNTIME_API, cbid));
				not_profiled(st, cupti_ctx_find(st, &tls, cd->context), &l,
					     LEVEL_RT, cd->correlationId);
			}
			break;
		case K_NONE:
		case K_CAPTURE_BEGIN:
		case K_CAPTURE_END:
		case K_RESET:
		case K_SYNC_CTX:
		case K_SYNC_STREAM:
		case K_STREAM_WAIT:
		case K_STREAM_DESTROY:
			break;
		}
		return;
	}
	/* EXIT */
	if (k == K_RESET)
		return;
	if (tls.depth == 1) {
		if (tls.win_level == LEVEL_RT)
			cupti_window_close(st, &tls);
		cupti_window_launch_done(&tls, LEVEL_RT);
		if (tls.pending) {
			/*
			 * No nested driver callback came: launches like this one are
			 * decided at the runtime level again (by name) from now on.
			 */
			atomic_store(&st->nested_seen, false);
			tls.pending = false;
		}
		if (k == K_CAPTURE_BEGIN || k == K_CAPTURE_END)
			on_capture(st, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, k, cd);
	}
	if (tls.depth > 0)
		tls.depth--;
}

static void
on_driver(struct cupti_state *st, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	enum kind k = driver_kind(cbid);
	bool nested = tls.depth > 0;
	struct launch l = { 0 };

	if (k == K_NONE) {
		on_memory(st, CUPTI_CB_DOMAIN_DRIVER_API, cbid, cd);
		return;
	}
	if (k == K_SYNC_CTX || k == K_SYNC_STREAM || k == K_STREAM_WAIT) {
		on_sync_or_wait(st, CUPTI_CB_DOMAIN_DRIVER_API, cbid, k, cd);
		return;
	}
	if (k == K_STREAM_DESTROY) {
		if (!nested)
			on_capture(st, CUPTI_CB_DOMAIN_DRIVER_API, cbid, k, cd);
		return;
	}
	if (cd->callbackSite == CUPTI_API_ENTER) {
		switch (k) {
		case K_RESET:
			if (cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2 && cd->functionParams)
				before_context_goes(st, ((const cuCtxDestroy_v2_params *)
						     cd->functionParams)->ctx);
			else
				before_context_goes(st, cd->context);
			break;
		case K_LAUNCH:
			if (!nested) {
				driver_launch(cbid, cd->functionParams, &l);
				decide(st, cd, &l, 0, LEVEL_DRV);
				break;
			}
			if (!atomic_load_explicit(&st->nested_seen, memory_order_relaxed))
				atomic_store(&st->nested_seen, true);
			if (tls.win_level == LEVEL_RT) {
				/*
				 * The runtime level profiles this launch; the record may carry
				 * this call's correlation id instead of the runtime's [GPU?].
				 */
				if (tls.win_name_level) {
					struct inj_gate *g;

					driver_launch(cbid, cd->functionParams, &l);
					l.key.name = cd->symbolName;
					l.key.device = tls.win_ctx->device;
					if (l.key.name && l.key.dims_known) {
						g = inj_collector_gate_move(st->col, tls.win_gate,
									    &l.key);
						if (!g) {
							/* That signature had its N: not this one. */
							cupti_window_cancel(st, &tls);
							break;
						}
						tls.win_gate = g;
						inj_collector_prof_set_gate(st->col, tls.win_pl, g);
						tls.win_name_level = false;
					}
				}
				inj_collector_prof_add_corr(st->col, tls.win_pl, cd->correlationId);
			} else if (tls.pending) {
				tls.pending = false;
				driver_launch(cbid, cd->functionParams, &l);
				decide(st, cd, &l, tls.pending_corr, LEVEL_DRV);
			}
			break;
		case K_GRAPH:
			if (!nested) {
				const cuGraphLaunch_params *p = cd->functionParams;

				if (p)
					set_stream(&l, p->hStream,
						   is_ptsz(CUPTI_CB_DOMAIN_DRIVER_API, cbid));
				not_profiled(st, cupti_ctx_find(st, &tls, cd->context), &l,
					     LEVEL_DRV, cd->correlationId);
			}
			break;
		case K_CAPTURE_BEGIN:
			if (!nested)
				on_capture(st, CUPTI_CB_DOMAIN_DRIVER_API, cbid, k, cd);
			break;
		case K_NONE:
		case K_LAUNCH_NOPARAMS:
		case K_CAPTURE_END:
		case K_SYNC_CTX:
		case K_SYNC_STREAM:
		case K_STREAM_WAIT:
		case K_STREAM_DESTROY:
			break;
		}
		return;
	}
	/* EXIT */
	if (k == K_LAUNCH && tls.win_level == LEVEL_DRV)
		cupti_window_close(st, &tls);
	if (k == K_LAUNCH || k == K_GRAPH)
		cupti_window_launch_done(&tls, LEVEL_DRV);
	if (!nested && (k == K_CAPTURE_BEGIN || k == K_CAPTURE_END))
		on_capture(st, CUPTI_CB_DOMAIN_DRIVER_API, cbid, k, cd);
}

/* ---- resources ---- */

/* GPUPROJ_KEEP_CUBINS: write each loaded module's cubin, named by its content hash. */
static void
keep_cubin(struct cupti_state *st, const CUpti_ModuleResourceData *m)
{
	char name[64];
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	if (!m || !m->pCubin || !m->cubinSize || !st->cfg->keep_cubins || !st->cfg->keep_cubins[0])
		return;
	for (i = 0; i < m->cubinSize; i++) {
		h ^= (unsigned char)m->pCubin[i];
		h *= 0x100000001b3ULL;
	}
	snprintf(name, sizeof(name), "module-%016llx.cubin", (unsigned long long)h);
	/* Copy now: after an unload the bytes behind pCubin change ([T]). */
	if (inj_keep_file(st->cfg->keep_cubins, name, m->pCubin, m->cubinSize))
		inj_debug("kept module %u (%zu bytes) as %s/%s", m->moduleId, m->cubinSize,
			  st->cfg->keep_cubins, name);
}

static void
on_resource(struct cupti_state *st, CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
	switch (cbid) {
	case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
		cupti_on_context_created(st, rd->context);
		break;
	case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
		captures_forget(st, rd->context);
		cupti_on_context_destroy(st, rd->context);
		break;
	case CUPTI_CBID_RESOURCE_MODULE_LOADED:
		keep_cubin(st, rd->resourceDescriptor);
		break;
	default:
		break;
	}
}

static void
on_state(struct cupti_state *st, CUpti_CallbackId cbid, const CUpti_StateData *sd)
{
	if (cbid == CUPTI_CBID_STATE_FATAL_ERROR)
		cupti_fatal(st, sd->notification.result, sd->notification.message);
}

/*
 * Without metrics from the start (GPUPROJ_MODE=timing, PROFILE_LAUNCHES=0)
 * launch callbacks only count launches, once each (the outermost level):
 * a second CUPTI client taking the kernel records is noticed from the
 * launches that have none (cupti-activity.c). Nothing else is
 * done in them.
 */

static bool
count_only(struct cupti_state *st, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
	   const CUpti_CallbackData *cd)
{
	enum kind k;

	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
		k = runtime_kind(cbid);
		if (k != K_LAUNCH && k != K_LAUNCH_NOPARAMS && k != K_GRAPH)
			return false;
		if (cd->callbackSite == CUPTI_API_ENTER) {
			if (tls.depth++ == 0)
				count_launch(st);
		} else if (tls.depth > 0) {
			tls.depth--;
		}
		return true;
	}
	if (dom != CUPTI_CB_DOMAIN_DRIVER_API)
		return false;
	k = driver_kind(cbid);
	if (k != K_LAUNCH && k != K_GRAPH)
		return false;
	if (cd->callbackSite == CUPTI_API_ENTER && tls.depth == 0)
		count_launch(st);
	return true;
}

void CUPTIAPI
cupti_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
	struct cupti_state *st = ud;	/* cuptiSubscribe's userdata (cupti_init()) */
	int run = atomic_load_explicit(&st->run, memory_order_relaxed);

	if (atomic_load_explicit(&st->count_only, memory_order_relaxed) && run == ST_RUNNING &&
	    count_only(st, dom, cbid, data))
		return;

	/*
	 * Only a running library acts; but a launch already inside its window
	 * when exit began must still close it at its EXIT (shutdown waits
	 * for that), and one holding a window lock for reading must release
	 * it, so those callbacks pass while exiting.
	 */
	if (run != ST_RUNNING && !(run == ST_EXITING && (tls.win_level || tls.rd_ctx) &&
				   cbid != 0 && (dom == CUPTI_CB_DOMAIN_RUNTIME_API ||
						 dom == CUPTI_CB_DOMAIN_DRIVER_API)))
		return;
	switch ((int)dom) {
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		on_runtime(st, cbid, data);
		break;
	case CUPTI_CB_DOMAIN_DRIVER_API:
		on_driver(st, cbid, data);
		break;
	case CUPTI_CB_DOMAIN_RESOURCE: {
		/* A context's creation holds st->ctx_lock and the collector's (backend.h). */
		sigset_t old;

		inj_signals_block(&old);
		on_resource(st, cbid, data);
		inj_signals_restore(&old);
		break;
	}
	case CUPTI_CB_DOMAIN_STATE:
		on_state(st, cbid, data);
		break;
	default:
		break;
	}
}


/* Callbacks to enable; all of these when metrics may be collected, else the launches. */
static const CUpti_CallbackId runtime_cbids[] = {
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050,
};
static const CUpti_CallbackId driver_cbids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
	CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice,
	CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
	CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
	CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue32_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_v2,
	CUPTI_DRIVER_TRACE_CBID_cuStreamWaitValue64_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2,
	CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy,
	CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2,
};

/* The allocation callbacks: in every mode (they count bytes, nothing else). */
static const CUpti_CallbackId mem_runtime_cbids[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020,
	CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020,
	CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020,
};
static const CUpti_CallbackId mem_driver_cbids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
};

/* Enable the allocation callbacks; tell the collector whether the peak can be known. */
static void
mem_callbacks_enable(struct cupti_state *st)
{
	struct cupti_err err = { 0 };
	bool ok = true;
	size_t i;

	for (i = 0; ok && i < ARRAY_LENGTH(mem_runtime_cbids); i++)
		ok = CUPTI_CALL(st, &err, cuptiEnableCallback, 1, st->sub,
				CUPTI_CB_DOMAIN_RUNTIME_API, mem_runtime_cbids[i]);
	for (i = 0; ok && i < ARRAY_LENGTH(mem_driver_cbids); i++)
		ok = CUPTI_CALL(st, &err, cuptiEnableCallback, 1, st->sub,
				CUPTI_CB_DOMAIN_DRIVER_API, mem_driver_cbids[i]);
	if (!ok)
		inj_debug("allocation callbacks unavailable: the peak device memory is unknown");
	inj_collector_mem_tracking(st->col, ok);
}

CUptiResult
cupti_callbacks_enable(struct cupti_state *st, bool launches)
{
	CUpti_SubscriberHandle sub = st->sub;
	struct cupti_err err = { 0 };
	size_t i;

	/* Without metrics: the launch callbacks only, to count launches (count_only()). */
	atomic_store(&st->count_only, !launches);
	for (i = 0; i < ARRAY_LENGTH(runtime_cbids); i++) {
		enum kind k = runtime_kind(runtime_cbids[i]);

		if (launches || k == K_LAUNCH || k == K_LAUNCH_NOPARAMS || k == K_GRAPH)
			CUPTI_TRY(st, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
				  runtime_cbids[i]);
	}
	for (i = 0; i < ARRAY_LENGTH(driver_cbids); i++) {
		enum kind k = driver_kind(driver_cbids[i]);

		if (launches || k == K_LAUNCH || k == K_GRAPH)
			CUPTI_TRY(st, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_DRIVER_API,
				  driver_cbids[i]);
	}
	CUPTI_TRY(st, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
		  CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
	CUPTI_TRY(st, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_DRIVER_API,
		  CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2);
	CUPTI_TRY(st, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_DRIVER_API,
		  CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2);
	if (!CUPTI_CALL(st, &err, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_RESOURCE,
			CUPTI_CBID_RESOURCE_CONTEXT_CREATED) ||
	    !CUPTI_CALL(st, &err, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_RESOURCE,
			CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING))
		return err.r;
	if (st->cfg->keep_cubins)
		CUPTI_TRY(st, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_RESOURCE,
			  CUPTI_CBID_RESOURCE_MODULE_LOADED);
	CUPTI_TRY(st, cuptiEnableCallback, 1, sub, CUPTI_CB_DOMAIN_STATE,
		  CUPTI_CBID_STATE_FATAL_ERROR);
	mem_callbacks_enable(st);
	return CUPTI_SUCCESS;
}
