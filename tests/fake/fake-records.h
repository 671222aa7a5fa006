/* SPDX-License-Identifier: MIT */
/*
 * The kernel activity record the double writes for the CUPTI version it
 * reports (cuptiGetVersion): CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL's
 * record of that release, byte for byte in size and in where its members
 * are. Read from the headers of NVIDIA's nvidia-cuda-cupti wheels
 * (nvidia/cu13/include/cupti_activity.h of the wheel named), independent
 * of gpuproj's own table (inject/cupti/cupti-records.h) so that the two can be
 * held against each other and against the headers:
 * tests/inject/check-cupti-records.py compiles this file against every
 * release's header it has and fails if a size or an offset differs.
 *
 * Every record starts with CUpti_ActivityKernel10's members through
 * isDeviceLaunched and padding3[7] (216 bytes, 13.0.48 :2909-3212); the
 * double copies those from a Kernel10 and appends:
 *
 *   Kernel11 (13.1, 13.2): int32_t priority; uint32_t padding4;
 *     13.1.115 :3243-3244, 13.2.86 :3904-3905            → 224 bytes
 *   Kernel12 (13.3): + uint32_t executionModel; uint32_t padding5;
 *     13.3.75 :3920 (priority), :3927-3928                → 232 bytes
 *   Kernel13 (13.4, 13.5): + uint32_t sourceGraphId; uint32_t padding6;
 *     uint64_t sourceGraphNodeId;
 *     13.4.92 :3990, :3997, :4004, :4009, :4015;
 *     13.5.25 :3998, :4005, :4012, :4017, :4023           → 248 bytes
 *
 * (PACKED_ALIGNMENT: 8-byte aligned, cupti_activity.h START_PACKED_ALIGNMENT;
 * every member above falls on its natural alignment, so no hidden padding.)
 */
#ifndef FAKE_RECORDS_H
#define FAKE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes every record shares with CUpti_ActivityKernel10: kind through isDeviceLaunched. */
#define FAKE_KERNEL10_SHARED 209

struct fake_kernel_record {
	uint32_t api_min, api_max; /* cuptiGetVersion */
	const char *record;
	size_t size;
	/* Offsets of the members appended after Kernel10's padding3; -1: not in this record. */
	int priority, execution_model, source_graph_id, source_graph_node_id;
};

static const struct fake_kernel_record fake_kernel_records[] = {
	/* 13.0.48, 13.0.85: cupti_activity.h:2909-3212 */
	{ 130000, 130099, "CUpti_ActivityKernel10", 216, -1, -1, -1, -1 },
	/* 13.1.115 :2936-3245, 13.2.86 :3596-3906 */
	{ 130100, 130299, "CUpti_ActivityKernel11", 224, 216, -1, -1, -1 },
	/* 13.3.75 :3612-3930 */
	{ 130300, 130399, "CUpti_ActivityKernel12", 232, 216, 224, -1, -1 },
	/* 13.4.92 :3682-4017, 13.5.25 :3689-4025 */
	{ 130400, 130599, "CUpti_ActivityKernel13", 248, 216, 224, 232, 240 },
};

/*
 * The row for version v, or NULL. The double reports versions outside the
 * table too (a future CUPTI, for gpuproj to refuse); it writes those the
 * newest record it knows — a guess, and gpuproj must not read it.
 */
static inline const struct fake_kernel_record *
fake_kernel_record_for(uint32_t v)
{
	size_t i;

	for (i = 0; i < sizeof(fake_kernel_records) / sizeof(fake_kernel_records[0]); i++) {
		if (v >= fake_kernel_records[i].api_min && v <= fake_kernel_records[i].api_max)
			return &fake_kernel_records[i];
	}
	return NULL;
}

/*
 * The other records the double writes (the whole-run timeline),
 * by activity kind and release, from the same headers. Each later record
 * keeps its predecessor's members and appends (the double writes the
 * predecessor's bytes from the installed 13.0 header's struct and zeros
 * for the appended members: 0 = not in a graph, and for CudaEvent3 no
 * graph node):
 *
 *   kind               13.0-13.3 record (bytes)       13.4 record          13.5 record
 *   MEMCPY (1)         Memcpy6 (96)  13.0.48 :2135-2266  Memcpy7 (112)      Memcpy7 (112)
 *                      13.4.92 :2215-2363, 13.5.25 :2218-2367 (+ sourceGraphId, pad3,
 *                      sourceGraphNodeId at 96, 100, 104)
 *   MEMSET (2)         Memset4 (88)  13.0.48 :2409-2514  Memset5 (104)      Memset5 (104)
 *                      13.4.92 :2793-2915, 13.5.25 :2798-2921 (+ sourceGraphId, pad3,
 *                      sourceGraphNodeId at 88, 92, 96)
 *   CUDA_EVENT (36)    CudaEvent2 (56) 13.0.48 :4980-5045  CudaEvent2 (56)  CudaEvent3 (80)
 *                      13.5.25 :6967-7059 (+ graphNodeId, graphId, sourceGraphId,
 *                      sourceGraphNodeId at 56, 64, 68, 72)
 *   RUNTIME (5), DRIVER (4)  CUpti_ActivityAPI (40): 13.0.48 :3463-3515, 13.5.25 :4607-4659
 *   SYNCHRONIZATION (38)     CUpti_ActivitySynchronization2 (56): :5092-5173, :7259-7340
 *   STREAM (37)              CUpti_ActivityStream (24): :5054-5083, :7172-7201
 *
 * The kind → record names are the comments on CUpti_ActivityKind in each
 * header ("The corresponding activity record structure is ...").
 */
struct fake_other_record {
	uint32_t kind;            /* CUpti_ActivityKind value */
	uint32_t api_min;         /* from this cuptiGetVersion on */
	const char *record;
	size_t size;
};

static const struct fake_other_record fake_other_records[] = {
	{ 1, 130000, "CUpti_ActivityMemcpy6", 96 },
	{ 1, 130400, "CUpti_ActivityMemcpy7", 112 },
	{ 2, 130000, "CUpti_ActivityMemset4", 88 },
	{ 2, 130400, "CUpti_ActivityMemset5", 104 },
	{ 36, 130000, "CUpti_ActivityCudaEvent2", 56 },
	{ 36, 130500, "CUpti_ActivityCudaEvent3", 80 },
	{ 4, 130000, "CUpti_ActivityAPI", 40 },
	{ 5, 130000, "CUpti_ActivityAPI", 40 },
	{ 38, 130000, "CUpti_ActivitySynchronization2", 56 },
	{ 37, 130000, "CUpti_ActivityStream", 24 },
};

/* The record of `kind` that version v writes, or NULL for a kind not in the table. */
static inline const struct fake_other_record *
fake_other_record_for(uint32_t kind, uint32_t v)
{
	const struct fake_other_record *best = NULL;
	size_t i;

	for (i = 0; i < sizeof(fake_other_records) / sizeof(fake_other_records[0]); i++) {
		if (fake_other_records[i].kind == kind &&
		    (v >= fake_other_records[i].api_min || !best))
			best = &fake_other_records[i];
	}
	return best;
}

/*
 * CUpti_RangeProfiler_Enable_Params from CUPTI 13.4 (cupti_range_profiler.h
 * of 13.4.92 and 13.5.25, :159-173): structSize, pPriv, ctx,
 * pRangeProfilerObject, then the new int-sized enum cacheControlMode;
 * _STRUCT_SIZE = offsetof(cacheControlMode) + 4 = 36 on LP64 (13.0-13.3:
 * 32, ending at pRangeProfilerObject). Modes: NONE 0, ALL 1, L2 2 (:138-154).
 */
#define FAKE_CACHE_CONTROL_API 130400u
#define FAKE_RP_ENABLE_134_STRUCT_SIZE 36u
#define FAKE_RP_ENABLE_CACHE_MODE_OFFSET 32u

#endif
