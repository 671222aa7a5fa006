/* SPDX-License-Identifier: MIT */
/*
 * The activity API side of the CUPTI backend: CONCURRENT_KERNEL records →
 * struct inj_kernel_record (cupti-notes §3). Buffers: 1 MiB, 8-byte
 * aligned (cupti_common.h ACTIVITY_RECORD_ALIGNMENT), a pool of 4.
 *
 * Thread safety: buffers complete on CUPTI's thread or on the thread that
 * flushes; the pool has its own lock.
 */
#include "config.h"

#include <stdlib.h>

#include "backend-cupti-private.h"
#include "util.h"

#define BUF_SIZE (1u << 20)
#define POOL_MAX 4

static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *g_pool[POOL_MAX];
static size_t g_n_pool;

void CUPTIAPI
cupti_buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;

	pthread_mutex_lock(&g_pool_lock);
	if (g_n_pool)
		b = g_pool[--g_n_pool];
	pthread_mutex_unlock(&g_pool_lock);
	if (!b)
		b = aligned_alloc(8, BUF_SIZE);
	*buf = b;
	*size = b ? BUF_SIZE : 0; /* 0: CUPTI drops the records and counts them */
	*max_records = 0;
}

static void
buffer_release(uint8_t *buf)
{
	pthread_mutex_lock(&g_pool_lock);
	if (g_n_pool < POOL_MAX) {
		g_pool[g_n_pool++] = buf;
		buf = NULL;
	}
	pthread_mutex_unlock(&g_pool_lock);
	free(buf);
}

void
cupti_buffers_release(void)
{
	pthread_mutex_lock(&g_pool_lock);
	while (g_n_pool)
		free(g_pool[--g_n_pool]);
	pthread_mutex_unlock(&g_pool_lock);
}

static void
translate(const CUpti_ActivityKernel10 *k, struct inj_kernel_record *r)
{
	r->name = k->name;
	r->grid.x = (uint32_t)k->gridX;
	r->grid.y = (uint32_t)k->gridY;
	r->grid.z = (uint32_t)k->gridZ;
	r->block.x = (uint32_t)k->blockX;
	r->block.y = (uint32_t)k->blockY;
	r->block.z = (uint32_t)k->blockZ;
	r->smem_dynamic = (uint32_t)k->dynamicSharedMemory;
	r->smem_static = (uint32_t)k->staticSharedMemory;
	r->regs_per_thread = k->registersPerThread;
	r->local_bytes_per_thread = k->localMemoryPerThread;
	r->device = (int)k->deviceId;
	r->correlation = k->correlationId;
	r->start_ns = k->start;
	r->end_ns = k->end;
	r->graph_id = k->graphId;
	r->cluster.x = k->clusterX;
	r->cluster.y = k->clusterY;
	r->cluster.z = k->clusterZ;
}

void CUPTIAPI
cupti_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
	struct inj_kernel_record batch[128];
	CUpti_Activity *rec = NULL;
	size_t n = 0, dropped = 0;
	int st = atomic_load(&g_state);
	CUptiResult r;

	(void)ctx;
	(void)stream;
	(void)size;
	if (!buf)
		return;
	if (st == ST_CHILD || !g_col)
		goto out;
	while ((r = g_api.cuptiActivityGetNextRecord(buf, valid, &rec)) == CUPTI_SUCCESS) {
		if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
		    rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
			continue;
		translate((const CUpti_ActivityKernel10 *)rec, &batch[n++]);
		if (n == ARRAY_LENGTH(batch)) {
			inj_collector_records(g_col, batch, n);
			n = 0;
		}
	}
	if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
		cupti_logged(r, "cuptiActivityGetNextRecord");
	if (n)
		inj_collector_records(g_col, batch, n);
	if (CUPTI_TRY(cuptiActivityGetNumDroppedRecords, NULL, 0, &dropped) == CUPTI_SUCCESS &&
	    dropped)
		inj_collector_dropped(g_col, dropped);
out:
	buffer_release(buf);
}
