/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA metric names for the logical metrics (include/gpuproj/nvmetrics.h):
 * the candidate table libproj.so resolves per chip with the CUPTI host API
 * ([CUPTI-MET]) and the chip restrictions `gpuproj ncu-metrics` decides
 * from; which chips the table knows comes from the chip table
 * (target-chips.c).
 *
 * Thread safety: constant data and pure functions.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/nvmetrics.h>

#include "target-chips.h"
#include "util.h"

#define SASS_T GPUPROJ_NV_SASS_THREAD
/*
 * The GB20x chips spell the DRAM directions _op_read/_op_write (CUPTI 13.0
 * host API; tests/inject/test-cupti-host.c nv_table_matches_host).
 */
#define DRAM_OP_CHIPS "GB202 GB203 GB205 GB206 GB207"

/* Up to four candidates per logical metric, best first. */
static const struct gpuproj_nv_candidate table[GPUPROJ_M_COUNT][4] = {
	[GPUPROJ_M_INST_FP16_FMA] = { { SASS_T("hfma"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP16_ADD] = { { SASS_T("hadd"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP16_MUL] = { { SASS_T("hmul"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP32_FMA] = { { SASS_T("ffma"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP32_ADD] = { { SASS_T("fadd"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP32_MUL] = { { SASS_T("fmul"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP64_FMA] = { { SASS_T("dfma"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP64_ADD] = { { SASS_T("dadd"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP64_MUL] = { { SASS_T("dmul"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP16] = { { SASS_T("fp16"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP32] = { { SASS_T("fp32"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_FP64] = { { SASS_T("fp64"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_INT] = { { SASS_T("integer"), 1, NULL, NULL } },
	[GPUPROJ_M_INST_LDST] = { { SASS_T("memory"), 1, NULL, NULL } },
	/*
	 * Everything that is neither FP, integer nor memory (the quant model's
	 * "other"); GV100 has no uniform datapath, so no "_uniform" counter.
	 */
	[GPUPROJ_M_INST_OTHER] = {
		{ SASS_T("bit") "+" SASS_T("control") "+" SASS_T("conversion") "+" SASS_T("misc")
		  "+" SASS_T("inter_thread_communication") "+" SASS_T("uniform"), 1, NULL, "GV100" },
		{ SASS_T("bit") "+" SASS_T("control") "+" SASS_T("conversion") "+" SASS_T("misc")
		  "+" SASS_T("inter_thread_communication"), 1, NULL, NULL },
	},
	[GPUPROJ_M_INST_WARP] = { { GPUPROJ_NV_INST_WARP, 1, NULL, NULL } },
	[GPUPROJ_M_INST_THREAD] = { { GPUPROJ_NV_INST_THREAD, 1, NULL, NULL } },
	/* Threads per executed warp instruction, over the warp size of 32. */
	[GPUPROJ_M_WARP_EFFICIENCY] = {
		{ GPUPROJ_NV_WARP_EFF_AVG, 1.0 / 32, NULL, NULL },
		{ GPUPROJ_NV_WARP_EFF_RATIO, 1.0 / 32, NULL, NULL },
	},
	[GPUPROJ_M_BYTES_L1] = { { GPUPROJ_NV_L1_BYTES, 1, NULL, NULL } },
	/*
	 * SM <-> L2 traffic: the lookups whose source unit is the SMs' L1TEX.
	 * lts__t_bytes.sum counts lookups from every source, including the
	 * fabric between the two L2 partitions of GA100/GH100/GB100
	 * (lts__t_sectors_srcunit_ltcfabric), so on those chips it can exceed
	 * the SMs' traffic [GPU?: scripts/gpu-acceptance.sh compares both with a
	 * copy kernel's 8·N bytes]. The srcunit_tex form has no _bytes rollup:
	 * sectors × 32 B. Valid on GV100 ... GB202 (host API, CUDA 13.0).
	 */
	[GPUPROJ_M_BYTES_L2] = { { GPUPROJ_NV_L2_SECTORS_TEX, 32, NULL, NULL },
				 { GPUPROJ_NV_L2_BYTES, 1, NULL, NULL } },
	[GPUPROJ_M_BYTES_DRAM] = { { GPUPROJ_NV_DRAM_BYTES, 1, NULL, NULL } },
	[GPUPROJ_M_BYTES_DRAM_READ] = { { GPUPROJ_NV_DRAM_READ, 1, NULL, DRAM_OP_CHIPS },
					{ GPUPROJ_NV_DRAM_OP_READ, 1, DRAM_OP_CHIPS, NULL } },
	[GPUPROJ_M_BYTES_DRAM_WRITE] = { { GPUPROJ_NV_DRAM_WRITE, 1, NULL, DRAM_OP_CHIPS },
					 { GPUPROJ_NV_DRAM_OP_WRITE, 1, DRAM_OP_CHIPS, NULL } },
	[GPUPROJ_M_SHARED_BYTES] = { { GPUPROJ_NV_SHARED_BYTES, 1, NULL, NULL } },
	[GPUPROJ_M_SHARED_WAVEFRONTS] = { { GPUPROJ_NV_SHARED_WAVEFRONTS, 1, NULL, NULL } },
	[GPUPROJ_M_SHARED_BANK_CONFLICTS] = {
		{ GPUPROJ_NV_SHARED_BANK_CONFLICTS, 1, NULL, NULL },
		{ GPUPROJ_NV_SHARED_BANK_CONFLICTS_LD "+" GPUPROJ_NV_SHARED_BANK_CONFLICTS_ST, 1,
		  NULL, NULL },
	},
	[GPUPROJ_M_SECTORS_L1] = { { GPUPROJ_NV_L1_SECTORS, 1, NULL, NULL } },
	[GPUPROJ_M_SECTORS_L2] = {
		{ GPUPROJ_NV_L2_SECTORS_TEX, 1, NULL, NULL },
		{ GPUPROJ_NV_L2_SECTORS, 1, NULL, NULL },
		{ GPUPROJ_NV_L2_SECTORS_READ "+" GPUPROJ_NV_L2_SECTORS_WRITE, 1, NULL, NULL },
	},
	[GPUPROJ_M_SECTORS_DRAM] = {
		{ GPUPROJ_NV_DRAM_SECTORS, 1, NULL, NULL },
		{ GPUPROJ_NV_DRAM_SECTORS_READ "+" GPUPROJ_NV_DRAM_SECTORS_WRITE, 1, NULL, NULL },
		{ GPUPROJ_NV_DRAM_SECTORS_OP_READ "+" GPUPROJ_NV_DRAM_SECTORS_OP_WRITE, 1, NULL,
		  NULL },
	},
	/* Percent of the peak sustained warps per active cycle → 0..1. */
	[GPUPROJ_M_OCCUPANCY_ACHIEVED] = { { GPUPROJ_NV_OCCUPANCY, 0.01, NULL, NULL } },
	[GPUPROJ_M_CYCLES_SM_ACTIVE] = { { GPUPROJ_NV_SM_ACTIVE_CYCLES, 1, NULL, NULL } },
	[GPUPROJ_M_CLOCK_SM] = { { GPUPROJ_NV_SM_CLOCK, 1, NULL, NULL } },
};

size_t
gpuproj_nv_candidates(enum gpuproj_metric m, const struct gpuproj_nv_candidate **ret)
{
	size_t n;

	if (ret)
		*ret = NULL;
	if ((unsigned)m >= GPUPROJ_M_COUNT)
		return 0;
	for (n = 0; n < ARRAY_LENGTH(table[m]) && table[m][n].expr; n++)
		;
	if (ret && n)
		*ret = table[m];
	return n;
}

int
gpuproj_nv_expr_term(const char **pos, const char **ret_name, size_t *ret_len,
		     double *ret_factor)
{
	const char *p = *pos, *star;
	size_t len;
	double f = 1;

	if (!*p)
		return 0;
	len = strcspn(p, "+");
	star = memchr(p, '*', len);
	if (star) {
		char *end;

		f = strtod_c(p, &end); /* the application may run in a comma locale */
		if (end != star)
			return -1;
		len -= (size_t)(star + 1 - p);
		p = star + 1;
	}
	if (!len)
		return -1;
	*ret_name = p;
	*ret_len = len;
	*ret_factor = f;
	*pos = p + len + (p[len] == '+');
	return 1;
}

/* Is `chip` one of the space-separated words of `list`? */
static bool
in_list(const char *list, const char *chip)
{
	size_t len = strlen(chip);

	while (*list) {
		size_t w = strcspn(list, " ");

		if (w == len && strncasecmp(list, chip, len) == 0)
			return true;
		list += w;
		list += strspn(list, " ");
	}
	return false;
}

const struct gpuproj_nv_candidate *
gpuproj_nv_candidate_on_chip(enum gpuproj_metric m, const char *chip)
{
	const struct gpuproj_nv_candidate *c;
	size_t i, n = gpuproj_nv_candidates(m, &c);

	for (i = 0; i < n; i++) {
		if (c[i].only_on && !(chip && in_list(c[i].only_on, chip)))
			continue;
		if (c[i].not_on && chip && in_list(c[i].not_on, chip))
			continue;
		return &c[i];
	}
	return NULL;
}

bool
gpuproj_nv_chip_known(const char *chip)
{
	/* The chips of the table (target-chips.c): those the host API resolves, and GH200. */
	const struct target_chip *c = target_chip_find(chip);

	return c && (c->cupti == TARGET_CHIP_CUPTI_FULL || c->cupti == TARGET_CHIP_CUPTI_NCU_NAME);
}
