/* SPDX-License-Identifier: MIT */
/*
 * The one table of a targets.yaml GPU entry's fields (target-fields.h):
 * the entry's keys in the order the loader knows them (its "did you mean"
 * guesses take the first of equally close keys), each group followed by
 * its members in the order of the enumeration that indexes them. The
 * limits are docs/targets-schema.md "Limits": no real GPU comes near them;
 * they keep every count an int, every product a model forms (SMs ×
 * schedulers × IPC × clock, …) finite, and a typo such as
 * `clock_mhz: 1e308` from becoming an infinite peak. A new field is one
 * new row (and its line in the schema's documentation).
 *
 * Thread safety: constant data; reentrant.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "target-fields.h"
#include "util.h"

#define ROW(path, type, req, zero, max, unit, off) { path, type, req, zero, max, unit, off }
#define TEXT(path, req) ROW(path, TF_TEXT, req, false, 0, "", 0)
#define GROUP(path, req) ROW(path, TF_GROUP, req, false, 0, "", 0)
/*
 * A number of the entry itself, stored at its member of struct
 * gpuproj_target: an int for TF_INT, else a double (a member of another
 * size does not compile: an array of size -1).
 */
#define MEMBER_SIZE(key) sizeof(((struct gpuproj_target *)0)->key)
#define TOP(key, type, req, max, unit) \
	ROW(#key, type, req, false, max, unit, offsetof(struct gpuproj_target, key) + \
	    0 * sizeof(char[MEMBER_SIZE(key) == ((type) == TF_INT ? sizeof(int) : sizeof(double)) \
			     ? 1 : -1]))
#define NUM(path, req, max, unit) ROW(path, TF_NUMBER, req, false, max, unit, 0)
#define INT(path, max, unit) ROW(path, TF_INT, true, false, max, unit, 0)

#define GFLOPS_UNIT "GFLOP/s (1 EFLOP/s)"
#define GBS_UNIT "GB/s (10 PB/s)"

/*
 * Key lists two groups share, each in the order of its enumeration; a
 * group that uses one gives its members' type, requirement and limit.
 */
/* [prec][kind]: enum gpuproj_prec × enum gpuproj_opkind (FMA, ADD/MUL). */
#define GFLOPS_ROWS(g, fma_req) \
	NUM(g ".fp16_fma", fma_req, 1e9, GFLOPS_UNIT), \
	NUM(g ".fp16_add_mul", false, 1e9, GFLOPS_UNIT), \
	NUM(g ".fp32_fma", fma_req, 1e9, GFLOPS_UNIT), \
	NUM(g ".fp32_add_mul", false, 1e9, GFLOPS_UNIT), \
	NUM(g ".fp64_fma", fma_req, 1e9, GFLOPS_UNIT), \
	NUM(g ".fp64_add_mul", false, 1e9, GFLOPS_UNIT)
/* enum gpuproj_level */
#define LEVEL_ROWS(g, req, max, unit) \
	NUM(g ".l1", req, max, unit), \
	NUM(g ".l2", req, max, unit), \
	NUM(g ".dram", req, max, unit), \
	NUM(g ".shared", req, max, unit)
/* enum gpuproj_tensor_prec */
#define TENSOR_ROWS(g, type) \
	ROW(g ".fp16_gflops", type, false, false, 1e9, GFLOPS_UNIT, 0), \
	ROW(g ".fp16_acc16_gflops", type, false, false, 1e9, GFLOPS_UNIT, 0), \
	ROW(g ".bf16_gflops", type, false, false, 1e9, GFLOPS_UNIT, 0), \
	ROW(g ".tf32_gflops", type, false, false, 1e9, GFLOPS_UNIT, 0), \
	ROW(g ".fp8_gflops", type, false, false, 1e9, GFLOPS_UNIT, 0), \
	ROW(g ".fp4_gflops", type, false, false, 1e9, GFLOPS_UNIT, 0), \
	ROW(g ".int8_gops", type, false, false, 1e9, GFLOPS_UNIT, 0), \
	ROW(g ".fp64_gflops", type, false, false, 1e9, GFLOPS_UNIT, 0)

#define ROWS(...) ARRAY_LENGTH(((const struct target_field[]){ __VA_ARGS__ }))
_Static_assert(ROWS(GFLOPS_ROWS("g", false)) == 2 * GPUPROJ_PREC_COUNT,
	       "an FMA and an ADD/MUL key per precision");
_Static_assert(ROWS(LEVEL_ROWS("g", false, 1, "")) == GPUPROJ_LEVEL_COUNT, "one key per level");
_Static_assert(ROWS(TENSOR_ROWS("g", TF_NUMBER)) == GPUPROJ_TPREC_COUNT,
	       "one key per tensor precision");
_Static_assert(GPUPROJ_LAUNCH_MODE_COUNT == 2, "launch_floor_us: a stream and a graph key");

static const struct target_field fields[] = {
	TEXT("name", true),
	TEXT("description", false),
	ROW("match", TF_LIST, true, false, 0, "", 0),
	ROW("vendor", TF_WORD, true, false, 0, "", 0),
	TEXT("arch", true),
	TEXT("chip", true),
	TOP(sms, TF_INT, true, 4096, ""), /* GPUPROJ_MAX_SMS */
	TOP(warp_size, TF_INT, true, 128, ""),
	TOP(clock_mhz, TF_NUMBER, true, 10000, "MHz (10 GHz)"),
	TOP(boost_clock_mhz, TF_NUMBER, false, 10000, "MHz (10 GHz)"),
	TOP(boost_hold_us, TF_NUMBER, false, 1e9, "us (1000 s)"),
	TOP(schedulers_per_sm, TF_INT, true, 64, ""),
	TOP(ipc_per_scheduler, TF_NUMBER, false, 64, ""),
	TOP(memory_gib, TF_NUMBER, false, 65536, "GiB"),
	/* struct gpuproj_target_limits order; the reserved shared memory may be 0. */
	GROUP("limits", true),
	INT("limits.threads_per_sm", 65536, ""),
	INT("limits.threads_per_block", 65536, ""),
	INT("limits.blocks_per_sm", 4096, ""),
	INT("limits.regs_per_sm", 16777216, ""),
	INT("limits.regs_per_block", 16777216, ""),
	INT("limits.regs_per_thread", GPUPROJ_MAX_REGS_PER_THREAD, ""),
	INT("limits.reg_alloc_unit", 65536, ""),
	INT("limits.smem_per_sm_kib", 1048576, "KiB (1 GiB)"),
	INT("limits.smem_per_block_kib", 1048576, "KiB (1 GiB)"),
	INT("limits.smem_alloc_unit_b", 1073741824, "B (1 GiB)"),
	ROW("limits.smem_reserved_per_block_b", TF_INT, true, true, 1073741824, "B (1 GiB)", 0),
	NUM("limits.l2_mib", true, 1048576, "MiB (1 TiB)"),
	/* The FMA rate of every precision is required; ADD/MUL defaults to FMA / 2. */
	GROUP("peak_gflops", true),
	GFLOPS_ROWS("peak_gflops", true),
	GROUP("max_gflops", false),
	GFLOPS_ROWS("max_gflops", false),
	/* One-basis rules (target-basis.c) require both; the schema does not. */
	TOP(fp32_dense_gflops, TF_NUMBER, false, 1e9, GFLOPS_UNIT),
	TOP(sustained_clock_mhz, TF_NUMBER, false, 10000, "MHz (10 GHz)"),
	GROUP("peak_giops", false),
	NUM("peak_giops.int32_add", false, 1e9, "GIOP/s"),
	NUM("peak_giops.int32_mad", false, 1e9, "GIOP/s"),
	TOP(ldst_shared_gops, TF_NUMBER, false, 1e9, ""),
	GROUP("peak_bw_gbs", false),
	NUM("peak_bw_gbs.dram", false, 1e7, GBS_UNIT),
	GROUP("bw_gbs", true),
	LEVEL_ROWS("bw_gbs", true, 1e7, GBS_UNIT),
	/* enum gpuproj_lane: all five once the group is there; the shared lanes may be 0. */
	GROUP("lanes_per_sm", false),
	NUM("lanes_per_sm.fp16", true, 4096, ""),
	NUM("lanes_per_sm.fp32", true, 4096, ""),
	NUM("lanes_per_sm.fp64", true, 4096, ""),
	NUM("lanes_per_sm.int32", true, 4096, ""),
	ROW("lanes_per_sm.fp32_int32_shared", TF_NUMBER, true, true, 4096, "", 0),
	/* enum gpuproj_stream */
	GROUP("stream_gbs", false),
	NUM("stream_gbs.read", false, 1e7, GBS_UNIT),
	NUM("stream_gbs.copy", false, 1e7, GBS_UNIT),
	NUM("stream_gbs.triad", false, 1e7, GBS_UNIT),
	GROUP("latency_ns", false),
	LEVEL_ROWS("latency_ns", false, 1e6, "ns (1 ms)"),
	/* enum gpuproj_launch_mode: both once the group is there. */
	GROUP("launch_floor_us", false),
	NUM("launch_floor_us.stream", true, 1e6, "us (1 s)"),
	NUM("launch_floor_us.graph", true, 1e6, "us (1 s)"),
	/* A null peak is a claim: the GPU has no such tensor path. */
	GROUP("peak_tensor", false),
	TENSOR_ROWS("peak_tensor", TF_NULLABLE),
	GROUP("max_tensor", false),
	TENSOR_ROWS("max_tensor", TF_NUMBER),
	/* Required, null when unknown. */
	TOP(price_usd, TF_NULLABLE, true, 1e9, "USD"),
	TOP(tdp_w, TF_NULLABLE, true, 1e6, "W"),
	ROW("sources", TF_SOURCES, true, false, 0, "", 0),
	/* The whole-run replay's host link: struct gpuproj_host_link order, all once there. */
	GROUP("host_link", false),
	ROW("host_link.interface", TF_WORD, true, false, 0, "", 0),
	NUM("host_link.h2d_pinned_gbs", true, 1e7, GBS_UNIT),
	NUM("host_link.d2h_pinned_gbs", true, 1e7, GBS_UNIT),
	NUM("host_link.h2d_pageable_gbs", true, 1e7, GBS_UNIT),
	NUM("host_link.d2h_pageable_gbs", true, 1e7, GBS_UNIT),
	NUM("host_link.latency_us", true, 1e6, "us (1 s)"),
};
_Static_assert(ARRAY_LENGTH(fields) <= TARGET_FIELDS_MAX, "TARGET_FIELDS_MAX bounds the table");

const struct target_field *
target_fields(size_t *n)
{
	*n = ARRAY_LENGTH(fields);
	return fields;
}

const struct target_field *
target_field_find(const char *path)
{
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(fields); i++) {
		if (strcmp(fields[i].path, path) == 0)
			return &fields[i];
	}
	return NULL;
}

/* Whether `path` is a member of `group` ("group.key"). */
static bool
in_group(const char *path, const char *group, size_t lg)
{
	return strncmp(path, group, lg) == 0 && path[lg] == '.';
}

const struct target_field *
target_field_members(const char *group, size_t *n)
{
	const struct target_field *g = target_field_find(group);
	size_t lg = strlen(group), i;

	*n = 0;
	if (!g || g->type != TF_GROUP)
		return NULL;
	for (i = (size_t)(g - fields) + 1; i < ARRAY_LENGTH(fields) && in_group(fields[i].path,
										group, lg); i++)
		(*n)++;
	return g + 1;
}

const char *
target_field_key(const struct target_field *f)
{
	const char *dot = strrchr(f->path, '.');

	return dot ? dot + 1 : f->path;
}

size_t
target_field_keys(const char *group, const char **keys, size_t cap)
{
	const struct target_field *m;
	size_t n = 0, i;

	if (group) {
		m = target_field_members(group, &n);
		for (i = 0; i < n && i < cap; i++)
			keys[i] = target_field_key(&m[i]);
		return n;
	}
	for (i = 0; i < ARRAY_LENGTH(fields); i++) {
		if (strchr(fields[i].path, '.'))
			continue;
		if (n < cap)
			keys[n] = fields[i].path;
		n++;
	}
	return n;
}
