/* SPDX-License-Identifier: MIT */
/*
 * Which CUDA calls produce which records, by name (timeline.h
 * gpuproj_tl_api_expects()): the one rule libproj.so's recorder and the
 * Nsight Systems importer share to tell a complete epoch from one whose
 * records are missing; and which copies block (gpuproj_tl_copy_blocks()).
 * The names are CUPTI's callback names
 * (cupti_callbacks.h, cuptiGetCallbackName) and Nsight Systems' API names,
 * which add a "_vNNNN" suffix ("cudaLaunchKernel_v7000"); the substrings
 * below match both. Thread safety: reentrant.
 */
#include "config.h"

#include <string.h>

#include <gpuproj/timeline.h>

unsigned
gpuproj_tl_api_expects(const char *name)
{
	if (!name)
		return 0;
	if (strstr(name, "Graph") && !strstr(name, "GraphLaunch"))
		return 0;
	if (strstr(name, "Memcpy") || strstr(name, "Memset") || strstr(name, "LaunchKernel") ||
	    strstr(name, "LaunchCooperativeKernel") || strstr(name, "GraphLaunch"))
		return GPUPROJ_TL_EXPECT_OP;
	if (strstr(name, "Synchronize") || strstr(name, "StreamWaitEvent"))
		return GPUPROJ_TL_EXPECT_SYNC;
	return 0;
}

bool
gpuproj_tl_copy_blocks(bool async, uint64_t op_end, uint64_t call_end)
{
	return !async && op_end <= call_end;
}
