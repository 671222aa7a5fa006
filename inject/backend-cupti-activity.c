/* SPDX-License-Identifier: MIT */
/*
 * The activity API side of the CUPTI backend: CONCURRENT_KERNEL records →
 * struct inj_kernel_record (cupti-notes §3), in the layout of the loaded
 * libcupti's version. Buffers: 1 MiB, 8-byte
 * aligned (cupti_common.h ACTIVITY_RECORD_ALIGNMENT), a pool of 4.
 *
 * Thread safety: buffers complete on CUPTI's thread or on the thread that
 * flushes; the pool has its own lock.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "backend-cupti-private.h"
#include "util.h"

#define BUF_SIZE (1u << 20)
#define POOL_MAX 4

static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *g_pool[POOL_MAX];
static size_t g_n_pool;

/*
 * ---- Another CUPTI client taking the activity API ----
 *
 * CUPTI 13.0 keeps one pair of buffer callbacks per process
 * (cuptiActivityRegisterCallbacks, cupti_activity.h:7668; "Only a single
 * subscriber can be registered at a time", cupti_callbacks.h:779 — a
 * multi-subscriber mode with per-subscriber activity APIs came in later
 * CUPTI releases: the 13.3 Update 1 notes fix a crash "in multi-subscriber
 * mode", CUPTI Python 13.5 binds it; how it routes records is [GPU?]).
 * A framework profiler in the process (PyTorch's
 * Kineto) registers its own when it starts: kernel records go to it from
 * then on. gpuproj yields: it notices (launches go on through its
 * callbacks, none of its buffers comes back for 2 s), says so once, keeps
 * what it has, and neither takes the callbacks back (that would steal the
 * framework's records) nor disables kernel tracing at exit (it is the
 * framework's now). Noticed with launch callbacks only, i.e. in full mode.
 */
#define TAKEOVER_S 2.0
#define TAKEOVER_LAUNCHES 64

static _Atomic uint64_t g_ours_ns;		/* our buffer callbacks last ran, CLOCK_MONOTONIC */
static _Atomic uint64_t g_ours_launches;	/* cupti_launches_seen() then */
static atomic_bool g_taken_over;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
ours_ran(void)
{
	atomic_store_explicit(&g_ours_ns, now_ns(), memory_order_relaxed);
	atomic_store_explicit(&g_ours_launches, cupti_launches_seen(), memory_order_relaxed);
}

void
cupti_activity_watch(void)
{
	uint64_t launches = cupti_launches_seen(), t = now_ns();

	if (atomic_load(&g_taken_over))
		return;
	if (!atomic_load_explicit(&g_ours_ns, memory_order_relaxed)) {
		ours_ran(); /* the clock starts with the first tick */
		return;
	}
	if (launches - atomic_load(&g_ours_launches) < TAKEOVER_LAUNCHES ||
	    (double)(t - atomic_load(&g_ours_ns)) < TAKEOVER_S * 1e9)
		return;
	if (atomic_exchange(&g_taken_over, true))
		return;
	inj_warn("another CUPTI client in this process (a framework's profiler, PyTorch's for one) "
		 "took over the kernel records: %llu launches since have none for gpuproj, which "
		 "keeps what it has and leaves kernel tracing to that client",
		 (unsigned long long)(launches - atomic_load(&g_ours_launches)));
}

bool
cupti_activity_taken_over(void)
{
	return atomic_load(&g_taken_over);
}

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
	ours_ran();
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

/*
 * ---- Kernel record layouts, by the libcupti that is loaded ----
 *
 * CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL records are CUpti_ActivityKernel10
 * in CUPTI 13.0 (cupti_activity.h:2909-3212), CUpti_ActivityKernel11 from
 * 13.1 ("Added a new parameter priority in the kernel record ... replaced
 * by the new CUpti_ActivityKernel11", CUPTI release notes, Updates in CUDA
 * 13.1), CUpti_ActivityKernel12 from 13.3 (adds the execution model;
 * CUPTI Python 13.3.1 notes: ActivityKernel11 dropped in 13.3.0) and
 * CUpti_ActivityKernel13 from 13.4 (sourceGraphId, sourceGraphNodeId;
 * release notes, Updates in CUDA 13.4; the 13.5.0 API pages still
 * document it). Each version appends fields after isDeviceLaunched: the
 * members gpuproj reads keep their order and, in the packed 8-byte-aligned
 * records, their offsets (the struct pages of docs.nvidia.com/cupti list
 * the same members in the same order; the 13.1+ headers themselves are
 * [GPU?] here, only 13.0's is installed). So one prefix serves them all,
 * checked against the 13.0 header below, and a libcupti whose version is
 * not in the table is refused: its records could be anything.
 */
struct kernel_prefix {
	CUpti_ActivityKind kind;
	uint8_t cache_config;
	uint8_t shared_memory_config;
	uint16_t registers_per_thread;
	uint8_t partitioned_requested_executed[8];
	uint64_t start, end, completed;
	uint32_t device_id, context_id, stream_id;
	int32_t grid_x, grid_y, grid_z, block_x, block_y, block_z;
	int32_t static_shared_memory, dynamic_shared_memory;
	uint32_t local_memory_per_thread, local_memory_total;
	uint32_t correlation_id;
	int64_t grid_id;
	const char *name;
	void *reserved0;
	uint64_t queued, submitted;
	uint8_t launch_type, carveout_requested, carveout, padding;
	uint32_t shared_memory_executed;
	uint64_t graph_node_id;
	uint32_t shmem_limit_config;
	uint32_t graph_id;
	void *access_policy_window;
	uint32_t channel_id;
	uint32_t channel_type;
	uint32_t cluster_x, cluster_y, cluster_z;
} __attribute__((packed, aligned(8)));

#define SAME_OFFSET(ours, theirs) \
	_Static_assert(offsetof(struct kernel_prefix, ours) == \
		       offsetof(CUpti_ActivityKernel10, theirs), #ours " moved")
SAME_OFFSET(registers_per_thread, registersPerThread);
SAME_OFFSET(start, start);
SAME_OFFSET(end, end);
SAME_OFFSET(device_id, deviceId);
SAME_OFFSET(grid_x, gridX);
SAME_OFFSET(block_z, blockZ);
SAME_OFFSET(static_shared_memory, staticSharedMemory);
SAME_OFFSET(dynamic_shared_memory, dynamicSharedMemory);
SAME_OFFSET(local_memory_per_thread, localMemoryPerThread);
SAME_OFFSET(correlation_id, correlationId);
SAME_OFFSET(name, name);
SAME_OFFSET(graph_id, graphId);
SAME_OFFSET(cluster_x, clusterX);
SAME_OFFSET(cluster_z, clusterZ);

static const struct {
	uint32_t api_min, api_max;	/* cuptiGetVersion() */
	const char *record;
} layouts[] = {
	{ 130000, 130099, "CUpti_ActivityKernel10" },
	{ 130100, 130299, "CUpti_ActivityKernel11" },
	{ 130300, 130399, "CUpti_ActivityKernel12" },
	{ 130400, 130599, "CUpti_ActivityKernel13" },
};

const char *
cupti_record_layout(uint32_t api)
{
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(layouts); i++) {
		if (api >= layouts[i].api_min && api <= layouts[i].api_max)
			return layouts[i].record;
	}
	return NULL;
}

static void
translate(const struct kernel_prefix *k, struct inj_kernel_record *r)
{
	r->name = k->name;
	r->grid.x = (uint32_t)k->grid_x;
	r->grid.y = (uint32_t)k->grid_y;
	r->grid.z = (uint32_t)k->grid_z;
	r->block.x = (uint32_t)k->block_x;
	r->block.y = (uint32_t)k->block_y;
	r->block.z = (uint32_t)k->block_z;
	r->smem_dynamic = (uint32_t)k->dynamic_shared_memory;
	r->smem_static = (uint32_t)k->static_shared_memory;
	r->regs_per_thread = k->registers_per_thread;
	r->local_bytes_per_thread = k->local_memory_per_thread;
	r->device = (int)k->device_id;
	r->correlation = k->correlation_id;
	r->start_ns = k->start;
	r->end_ns = k->end;
	r->graph_id = k->graph_id;
	r->cluster.x = k->cluster_x;
	r->cluster.y = k->cluster_y;
	r->cluster.z = k->cluster_z;
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
	ours_ran();
	if (st == ST_CHILD || !g_col)
		goto out;
	while ((r = g_api.cuptiActivityGetNextRecord(buf, valid, &rec)) == CUPTI_SUCCESS) {
		if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
		    rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
			continue;
		translate((const struct kernel_prefix *)(const void *)rec, &batch[n++]);
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
