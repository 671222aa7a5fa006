/* SPDX-License-Identifier: MIT */
/*
 * The one table of GPU chips and architectures (target-chips.h).
 *
 * Sources: the chips the CUPTI 13.0 profiler host API lists (API 130001;
 * the enumeration tensor.c was generated from, checked against the real
 * host API by tests/inject/test-cupti-host.c) and what it makes of each;
 * the compute capabilities and generations of the CUDA C++ Programming
 * Guide's "Compute Capabilities" [PG] and NVIDIA's architecture
 * whitepapers; the FMA results per clock per SM of the Programming Guide's
 * "Arithmetic Instructions" table [PG] (the figures targets.yaml's
 * lanes_per_sm cite; test-chips.c compares them); L1 bytes per clock: 128
 * on GV100, GA100, GH100 and GB100 class SMs, 64 on the others, as public
 * gpu-cache measurements show (gpuproj bench's estimate of an unmeasured
 * bw_gbs.l1, docs/bench.md); AMD's gfx targets of the
 * CDNA generations from the LLVM AMDGPU processor table. A new chip is
 * one row of `chips` (and its architecture's row when the architecture is
 * new); test-chips.c says what else it needs.
 *
 * Thread safety: constant data; reentrant.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "target-chips.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

#define NV GPUPROJ_VENDOR_NVIDIA
#define AMD GPUPROJ_VENDOR_AMD
/* An NVIDIA chip: name, compute capability, tensor cores, bench's die, CUPTI. */
#define NVC(name, major, minor, tc, die, cupti) \
	{ name, NV, major, minor, NULL, tc, die, TARGET_CHIP_CUPTI_##cupti }
/* An NVIDIA chip before Volta: no tensor cores, not a chip of the CUPTI 13 profiler. */
#define OLD(name, major, minor) NVC(name, major, minor, false, false, NONE)
#define AMDC(name, gfx) { name, AMD, 0, 0, gfx, false, false, TARGET_CHIP_CUPTI_NONE }

static const struct target_chip chips[] = {
	/* Kepler, Maxwell, Pascal: the chips of targets.yaml's entries */
	OLD("GK104", 3, 0), OLD("GK110", 3, 5), OLD("GK110B", 3, 5),
	OLD("GM200", 5, 2), OLD("GM204", 5, 2),
	OLD("GP100", 6, 0), OLD("GP102", 6, 1), OLD("GP104", 6, 1),
	/* Volta; GV11B (Xavier) is listed by the host API but refused at initialisation */
	NVC("GV100", 7, 0, true, true, FULL),
	NVC("GV11B", 7, 2, true, false, REFUSED),
	/* Turing; the GTX 16xx dies have no tensor cores (their pipe counters exist) */
	NVC("TU102", 7, 5, true, false, FULL),
	NVC("TU104", 7, 5, true, false, FULL),
	NVC("TU106", 7, 5, true, false, FULL),
	NVC("TU116", 7, 5, false, false, FULL),
	NVC("TU117", 7, 5, false, false, FULL),
	/* Ampere; GA10B (Orin) integrated */
	NVC("GA100", 8, 0, true, true, FULL),
	NVC("GA102", 8, 6, true, false, FULL),
	NVC("GA103", 8, 6, true, false, FULL),
	NVC("GA104", 8, 6, true, false, FULL),
	NVC("GA106", 8, 6, true, false, FULL),
	NVC("GA107", 8, 6, true, false, FULL),
	NVC("GA10B", 8, 7, true, false, NO_DRAM),
	/* Ada */
	NVC("AD102", 8, 9, true, false, FULL),
	NVC("AD103", 8, 9, true, false, FULL),
	NVC("AD104", 8, 9, true, false, FULL),
	NVC("AD106", 8, 9, true, false, FULL),
	NVC("AD107", 8, 9, true, false, FULL),
	/* Hopper; ncu names the Grace Hopper superchip's GPU GH200 */
	NVC("GH100", 9, 0, true, true, FULL),
	NVC("GH200", 9, 0, true, false, NCU_NAME),
	/* Blackwell; GB10B (Thor) and GB20B (GB10, DGX Spark) integrated */
	NVC("GB100", 10, 0, true, true, FULL),
	NVC("GB102", 10, 0, true, false, FULL),
	NVC("GB110", 10, 3, true, false, FULL),
	NVC("GB10B", 11, 0, true, false, NO_DRAM),
	NVC("GB202", 12, 0, true, false, FULL),
	NVC("GB203", 12, 0, true, false, FULL),
	NVC("GB205", 12, 0, true, false, FULL),
	NVC("GB206", 12, 0, true, false, FULL),
	NVC("GB207", 12, 0, true, false, FULL),
	NVC("GB20B", 12, 1, true, false, NO_DRAM),
	/* AMD: targets.yaml names the CDNA generations' dies by generation */
	AMDC("CDNA1", "gfx908"), AMDC("CDNA2", "gfx90a"), AMDC("CDNA3", "gfx942"),
	AMDC("CDNA4", "gfx950"),
};

#define ANY TARGET_CHIP_ANY_MINOR
/* NVIDIA: CC, generation, family, FMA lanes {fp16, fp32, fp64}, L1 B/clk/SM */
#define NVA(major, minor, gen, fam, f16, f32, f64, l1) \
	{ NV, major, minor, NULL, gen, fam, { f16, f32, f64 }, l1 }
#define AMDA(gfx, gen) { AMD, 0, 0, gfx, gen, NULL, { 0, 0, 0 }, 0 }

static const struct target_arch archs[] = {
	NVA(3, ANY, "Kepler", NULL, 0, 0, 0, 0),
	NVA(5, ANY, "Maxwell", NULL, 0, 0, 0, 0),
	NVA(6, ANY, "Pascal", NULL, 0, 0, 0, 0),
	NVA(7, 0, "Volta", NULL, 128, 64, 32, 128),
	NVA(7, 2, "Volta", NULL, 0, 0, 0, 0),
	NVA(7, 5, "Turing", "TU10X", 128, 64, 2, 64),
	NVA(8, 0, "Ampere", NULL, 256, 64, 32, 128),
	NVA(8, 6, "Ampere", "GA10X", 128, 128, 2, 64),
	NVA(8, 7, "Ampere", NULL, 0, 0, 0, 0),
	NVA(8, 9, "Ada", "AD10X", 128, 128, 2, 64),
	NVA(9, 0, "Hopper", NULL, 256, 128, 64, 128),
	NVA(10, 0, "Blackwell", NULL, 256, 128, 64, 128),
	/* data-centre GB100/GB110 and GB20x alike, as NVIDIA names them */
	NVA(10, ANY, "Blackwell", NULL, 0, 0, 0, 0),
	NVA(11, ANY, "Blackwell", NULL, 0, 0, 0, 0),
	NVA(12, 0, "Blackwell", "GB20X", 0, 0, 0, 0),
	NVA(12, ANY, "Blackwell", NULL, 0, 0, 0, 0),
	AMDA("gfx908", "CDNA1"),
	AMDA("gfx90a", "CDNA2"),
	AMDA("gfx940", "CDNA3"),
	AMDA("gfx941", "CDNA3"),
	AMDA("gfx942", "CDNA3"),
	AMDA("gfx950", "CDNA4"),
};

size_t
target_chip_count(void)
{
	return N_OF(chips);
}

const struct target_chip *
target_chip_at(size_t i)
{
	return i < N_OF(chips) ? &chips[i] : NULL;
}

const struct target_chip *
target_chip_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < N_OF(chips); i++) {
		if (strcasecmp(chips[i].name, name) == 0)
			return &chips[i];
	}
	return NULL;
}

/* The NVIDIA row of exactly (major, minor), minor possibly ANY. */
static const struct target_arch *
nv_row(int major, int minor)
{
	size_t i;

	for (i = 0; i < N_OF(archs); i++) {
		if (archs[i].vendor == NV && archs[i].cc_major == major &&
		    archs[i].cc_minor == minor)
			return &archs[i];
	}
	return NULL;
}

const struct target_arch *
target_arch_of_cc(int cc_major, int cc_minor)
{
	const struct target_arch *a;

	if (cc_minor < 0)
		return NULL;
	a = nv_row(cc_major, cc_minor);
	return a ? a : nv_row(cc_major, ANY);
}

const struct target_arch *
target_arch_of(const char *arch)
{
	size_t i, n;
	int v = 0;

	if (!arch)
		return NULL;
	if (strncmp(arch, "sm_", 3) == 0) {
		n = strspn(arch + 3, "0123456789");
		/* sm_XY to sm_XXXY: compute capability X.Y, as the loader reads it */
		if (n < 2 || n > 4 || arch[3 + n])
			return NULL;
		for (i = 3; i < 3 + n; i++)
			v = 10 * v + (arch[i] - '0');
		return target_arch_of_cc(v / 10, v % 10);
	}
	for (i = 0; i < N_OF(archs); i++) {
		if (archs[i].gfx && strcmp(archs[i].gfx, arch) == 0)
			return &archs[i];
	}
	return NULL;
}

const struct target_arch *
target_chip_arch(const struct target_chip *c)
{
	size_t i;

	if (!c)
		return NULL;
	if (c->vendor == NV)
		return target_arch_of_cc(c->cc_major, c->cc_minor);
	for (i = 0; c->gfx && i < N_OF(archs); i++) {
		if (archs[i].gfx && strcmp(archs[i].gfx, c->gfx) == 0)
			return &archs[i];
	}
	return NULL;
}

int
target_chip_fma_lanes(int cc_major, int cc_minor, enum gpuproj_prec p)
{
	const struct target_arch *a = cc_minor >= 0 ? nv_row(cc_major, cc_minor) : NULL;

	return a && (unsigned)p < GPUPROJ_PREC_COUNT ? a->fma_lanes[p] : 0;
}

const char *
target_chip_die_for_cc(int cc_major, int cc_minor, bool *ret_exact)
{
	const struct target_arch *a = cc_minor >= 0 ? nv_row(cc_major, cc_minor) : NULL;
	size_t i;

	*ret_exact = false;
	if (a && a->family)
		return a->family;
	for (i = 0; i < N_OF(chips); i++) {
		if (chips[i].bench_die && chips[i].vendor == NV && chips[i].cc_major == cc_major &&
		    chips[i].cc_minor == cc_minor) {
			*ret_exact = true;
			return chips[i].name;
		}
	}
	return NULL;
}

int
target_chip_l1_bytes_per_clk(int cc_major, int cc_minor)
{
	const struct target_arch *a = cc_minor >= 0 ? nv_row(cc_major, cc_minor) : NULL;

	return a && a->l1_bytes_per_clk ? a->l1_bytes_per_clk : 64;
}

const char *
target_vendor_word(enum gpuproj_vendor v)
{
	switch (v) {
	case GPUPROJ_VENDOR_NVIDIA: return "nvidia";
	case GPUPROJ_VENDOR_AMD: return "amd";
	}
	return NULL;
}
