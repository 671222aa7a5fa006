/* SPDX-License-Identifier: MIT */
/*
 * CUPTI kernel activity records: the prefix gpuproj reads, which libcupti
 * version writes which record, and the CUDA 13.0 GA test. Private to the
 * CUPTI backend (cupti-activity.c, cupti.c); header-only so
 * that tests/inject/check-cupti-records.py can compile it against the
 * cupti_activity.h of every CUPTI release (it needs <cupti_activity.h> and
 * <stdbool.h>, <stddef.h>, <stdint.h> first).
 *
 * CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (and _KERNEL) records, per the
 * headers of NVIDIA's nvidia-cuda-cupti wheels (nvidia/cu13/include/
 * cupti_activity.h; the comment on CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
 * names "the corresponding activity record structure"):
 *
 *   wheel     CUPTI_API_VERSION         record                 sizeof  struct
 *             (cupti_version.h:line)                                   (cupti_activity.h)
 *   13.0.48   130000 :125 (GA)          CUpti_ActivityKernel10  216     :2909-3212
 *   13.0.85   130001 :126 (Update 1)    CUpti_ActivityKernel10  216     :2909-3212
 *   13.1.75   130100 :127               CUpti_ActivityKernel11  224     :2936-3245
 *   13.1.115  130101 :128               CUpti_ActivityKernel11  224     :2936-3245
 *   13.2.23   130200 :129               CUpti_ActivityKernel11  224     :3596-3906
 *   13.2.86   130202 :131               CUpti_ActivityKernel11  224     :3596-3906
 *   13.3.35   130300 :131               CUpti_ActivityKernel12  232     :3612-3930
 *   13.3.75   130301 :132               CUpti_ActivityKernel12  232     :3612-3930
 *   13.4.58   130400 :133               CUpti_ActivityKernel13  248     :3680-4015
 *   13.4.92   130401 :134               CUpti_ActivityKernel13  248     :3682-4017
 *   13.5.25   130500 :134               CUpti_ActivityKernel13  248     :3689-4025
 *
 * Every one has Kernel10's members, in Kernel10's order, through
 * isDeviceLaunched and padding3[7]; the later ones only append (priority,
 * executionModel, sourceGraphId, sourceGraphNodeId, see
 * tests/fake/fake-records.h). 13.5 writes the very record 13.4 does (same
 * struct, same 248 bytes). So one prefix serves them all; the version
 * decides only which record it is, not where gpuproj's members are.
 * Checked against the installed header at build time
 * (cupti-activity.c) and against each release's header by
 * tests/inject/check-cupti-records.py.
 */
#ifndef INJ_CUPTI_RECORDS_H
#define INJ_CUPTI_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cupti_activity.h>
#include <cupti_range_profiler.h>

/* CUpti_ActivityKernel10..13, from kind through clusterZ (the members before clusterSchedulingPolicy). */
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

/*
 * X(ours, theirs): every member of struct kernel_prefix with its name in
 * CUpti_ActivityKernelN. KERNEL_PREFIX_READ: the ones gpuproj reads
 * (translate() in cupti-activity.c, and the record kind).
 */
#define KERNEL_PREFIX_READ(X)                                                                      \
	X(kind, kind)                                                                              \
	X(registers_per_thread, registersPerThread)                                                \
	X(start, start)                                                                            \
	X(end, end)                                                                                \
	X(device_id, deviceId)                                                                     \
	X(grid_x, gridX)                                                                           \
	X(grid_y, gridY)                                                                           \
	X(grid_z, gridZ)                                                                           \
	X(block_x, blockX)                                                                         \
	X(block_y, blockY)                                                                         \
	X(block_z, blockZ)                                                                         \
	X(static_shared_memory, staticSharedMemory)                                                \
	X(dynamic_shared_memory, dynamicSharedMemory)                                              \
	X(local_memory_per_thread, localMemoryPerThread)                                           \
	X(correlation_id, correlationId)                                                           \
	X(context_id, contextId)                                                                   \
	X(stream_id, streamId)                                                                     \
	X(name, name)                                                                              \
	X(graph_id, graphId)                                                                       \
	X(cluster_x, clusterX)                                                                     \
	X(cluster_y, clusterY)                                                                     \
	X(cluster_z, clusterZ)
#define KERNEL_PREFIX_UNREAD(X)                                                                    \
	X(cache_config, cacheConfig)                                                               \
	X(shared_memory_config, sharedMemoryConfig)                                                \
	X(partitioned_requested_executed, partitionedGlobalCacheRequested)                         \
	X(completed, completed)                                                                    \
	X(local_memory_total, localMemoryTotal)                                                    \
	X(grid_id, gridId)                                                                         \
	X(reserved0, reserved0)                                                                    \
	X(queued, queued)                                                                          \
	X(submitted, submitted)                                                                    \
	X(launch_type, launchType)                                                                 \
	X(carveout_requested, isSharedMemoryCarveoutRequested)                                     \
	X(carveout, sharedMemoryCarveoutRequested)                                                 \
	X(padding, padding)                                                                        \
	X(shared_memory_executed, sharedMemoryExecuted)                                            \
	X(graph_node_id, graphNodeId)                                                              \
	X(shmem_limit_config, shmemLimitConfig)                                                    \
	X(access_policy_window, pAccessPolicyWindow)                                               \
	X(channel_id, channelID)                                                                   \
	X(channel_type, channelType)
/* Where the prefix ends (before its 8-byte tail padding), and the record's member there. */
#define KERNEL_PREFIX_END                                                                          \
	(offsetof(struct kernel_prefix, cluster_z) + sizeof(((struct kernel_prefix *)0)->cluster_z))
#define KERNEL_PREFIX_NEXT clusterSchedulingPolicy

/*
 * ---- The whole run's records ----
 *
 * Read through the installed 13.0 header's structs, whose members every
 * later release keeps at the same offsets and only appends to (per
 * CUpti_ActivityKind's comments, the record each kind writes):
 *
 *   kind            13.0-13.3                 13.4             13.5
 *   MEMCPY          CUpti_ActivityMemcpy6     Memcpy7          Memcpy7
 *   MEMSET          CUpti_ActivityMemset4     Memset5          Memset5
 *   CUDA_EVENT      CUpti_ActivityCudaEvent2  CudaEvent2       CudaEvent3
 *   RUNTIME/DRIVER  CUpti_ActivityAPI (all)
 *   SYNCHRONIZATION CUpti_ActivitySynchronization2 (all)
 *   STREAM          CUpti_ActivityStream (all)
 *
 * (13.0.48 cupti_activity.h:2135-2266, :2409-2514, :4980-5045, :3463-3515,
 * :5092-5173, :5054-5083; 13.4.92 :2215-2363 Memcpy7, :2793-2915 Memset5;
 * 13.5.25 :6967-7059 CudaEvent3.) X(record, member): what gpuproj reads;
 * tests/inject/check-cupti-records.py checks each against the record of
 * each release it has.
 */
#define TIMELINE_MEMCPY_READ(X)                                                                    \
	X(CUpti_ActivityMemcpy6, kind)                                                             \
	X(CUpti_ActivityMemcpy6, copyKind)                                                         \
	X(CUpti_ActivityMemcpy6, srcKind)                                                          \
	X(CUpti_ActivityMemcpy6, dstKind)                                                          \
	X(CUpti_ActivityMemcpy6, flags)                                                            \
	X(CUpti_ActivityMemcpy6, bytes)                                                            \
	X(CUpti_ActivityMemcpy6, start)                                                            \
	X(CUpti_ActivityMemcpy6, end)                                                              \
	X(CUpti_ActivityMemcpy6, contextId)                                                        \
	X(CUpti_ActivityMemcpy6, streamId)                                                         \
	X(CUpti_ActivityMemcpy6, correlationId)                                                    \
	X(CUpti_ActivityMemcpy6, runtimeCorrelationId)                                             \
	X(CUpti_ActivityMemcpy6, graphId)
#define TIMELINE_MEMSET_READ(X)                                                                    \
	X(CUpti_ActivityMemset4, kind)                                                             \
	X(CUpti_ActivityMemset4, bytes)                                                            \
	X(CUpti_ActivityMemset4, start)                                                            \
	X(CUpti_ActivityMemset4, end)                                                              \
	X(CUpti_ActivityMemset4, contextId)                                                        \
	X(CUpti_ActivityMemset4, streamId)                                                         \
	X(CUpti_ActivityMemset4, correlationId)                                                    \
	X(CUpti_ActivityMemset4, flags)                                                            \
	X(CUpti_ActivityMemset4, graphId)
#define TIMELINE_EVENT_READ(X)                                                                     \
	X(CUpti_ActivityCudaEvent2, kind)                                                          \
	X(CUpti_ActivityCudaEvent2, correlationId)                                                 \
	X(CUpti_ActivityCudaEvent2, contextId)                                                     \
	X(CUpti_ActivityCudaEvent2, streamId)                                                      \
	X(CUpti_ActivityCudaEvent2, cudaEventSyncId)
#define TIMELINE_API_READ(X)                                                                       \
	X(CUpti_ActivityAPI, kind)                                                                 \
	X(CUpti_ActivityAPI, cbid)                                                                 \
	X(CUpti_ActivityAPI, start)                                                                \
	X(CUpti_ActivityAPI, end)                                                                  \
	X(CUpti_ActivityAPI, threadId)                                                             \
	X(CUpti_ActivityAPI, correlationId)                                                        \
	X(CUpti_ActivityAPI, returnValue)
#define TIMELINE_SYNC_READ(X)                                                                      \
	X(CUpti_ActivitySynchronization2, kind)                                                    \
	X(CUpti_ActivitySynchronization2, type)                                                    \
	X(CUpti_ActivitySynchronization2, correlationId)                                           \
	X(CUpti_ActivitySynchronization2, contextId)                                               \
	X(CUpti_ActivitySynchronization2, streamId)                                                \
	X(CUpti_ActivitySynchronization2, cudaEventSyncId)
#define TIMELINE_STREAM_READ(X)                                                                    \
	X(CUpti_ActivityStream, kind)                                                              \
	X(CUpti_ActivityStream, contextId)                                                         \
	X(CUpti_ActivityStream, streamId)                                                          \
	X(CUpti_ActivityStream, flag)
#define TIMELINE_READ(X)                                                                           \
	TIMELINE_MEMCPY_READ(X) TIMELINE_MEMSET_READ(X) TIMELINE_EVENT_READ(X) TIMELINE_API_READ(X) \
	TIMELINE_SYNC_READ(X) TIMELINE_STREAM_READ(X)

/*
 * Which record a libcupti of API version api_min..api_max (cuptiGetVersion)
 * writes. One row per CUDA minor release: no update within a release
 * changed the record (13.0.48/13.0.85, 13.1.75/13.1.115, 13.2.23/13.2.86,
 * 13.3.35/13.3.75, 13.4.58/13.4.92 each have the same struct, table
 * above), so a later update of 13.5 (API 130501...) is taken to write
 * 13.5.25's; that one is an inference, the rest is read from the headers.
 * A version outside the table is refused: its records could be anything.
 */
static const struct cupti_record_version {
	uint32_t api_min, api_max;
	const char *record;
} cupti_record_versions[] = {
	{ 130000, 130099, "CUpti_ActivityKernel10" },
	{ 130100, 130199, "CUpti_ActivityKernel11" },
	{ 130200, 130299, "CUpti_ActivityKernel11" },
	{ 130300, 130399, "CUpti_ActivityKernel12" },
	{ 130400, 130499, "CUpti_ActivityKernel13" },
	{ 130500, 130599, "CUpti_ActivityKernel13" },
};

#define CUPTI_RECORD_VERSIONS (sizeof(cupti_record_versions) / sizeof(cupti_record_versions[0]))

/** The record type API version `api` writes, e.g. "CUpti_ActivityKernel11"; NULL if unknown. */
static inline const char *
cupti_record_for(uint32_t api)
{
	size_t i;

	for (i = 0; i < CUPTI_RECORD_VERSIONS; i++) {
		if (api >= cupti_record_versions[i].api_min && api <= cupti_record_versions[i].api_max)
			return cupti_record_versions[i].record;
	}
	return NULL;
}

/*
 * CUDA 13.0 GA's libcupti (wheel 13.0.48, cupti_version.h:125
 * "#define CUPTI_API_VERSION 130000"); Update 1 (13.0.85) is 130001
 * (cupti_version.h:126), as is the toolkit installed here. The GA one has the cuptiActivityDisable deadlock
 * and the cuptiActivityFlushAll crash (cupti.c).
 */
static inline bool
cupti_is_13_0_ga(uint32_t api)
{
	return api == 130000;
}

/*
 * CUpti_RangeProfiler_Enable_Params of CUPTI 13.4 and later
 * (cupti_range_profiler.h of the 13.4.92 and 13.5.25 wheels, lines
 * 159-173): 13.0's members and, after them, cacheControlMode, "Defaults to
 * CUPTI_CACHE_CONTROL_MODE_NONE for zero-initialized structs", with
 * CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE grown to include it. gpuproj
 * builds against older headers, so it declares the 13.4 layout itself and
 * passes it only to a libcupti whose cuptiGetVersion is at least
 * RP_ENABLE_CACHE_API (checked against the headers by the cupti-records
 * test). Modes (CUpti_CacheControl_Mode, lines 138-154): NONE 0 ("Replay
 * passes may observe cache state from earlier passes"), ALL 1 ("Reset all
 * cache state supported ... before each pass", currently the L2), L2 2.
 */
struct rp_enable_134 {
	size_t structSize;
	void *pPriv;
	CUcontext ctx;
	CUpti_RangeProfiler_Object *pRangeProfilerObject;
	int32_t cacheControlMode;
};
#define RP_ENABLE_134_STRUCT_SIZE                                                                  \
	(offsetof(struct rp_enable_134, cacheControlMode) + sizeof(int32_t))
#define RP_ENABLE_CACHE_API 130400u
#define RP_CACHE_CONTROL_NONE 0
#define RP_CACHE_CONTROL_ALL 1

#endif
