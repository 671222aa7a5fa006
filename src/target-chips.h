/* SPDX-License-Identifier: MIT */
/*
 * The one table of GPU chips and architectures (target-chips.c): each chip
 * with its vendor, compute capability (NVIDIA) or gfx target (AMD), whether
 * it has tensor cores and what the CUPTI 13 profiler host API makes of it;
 * each architecture with its generation, the name of its die family where
 * several dies share it, its FMA lanes per SM and L1 bytes per clock.
 *
 * The per-chip tables take their chip list from here: the NVIDIA metric
 * names (nvmetrics.c, gpuproj_nv_chip_known()) know the chips the host API
 * resolves plus the names ncu reports apart; the tensor counters
 * (tensor.c, gpuproj_tensor_chip_known()) every chip the host API lists.
 * The generation of a targets.yaml entry (gpuproj_target_generation()),
 * the lanes `gpuproj bench` plans with and the die it writes come from
 * here too. tests/unit/test-chips.c ties the table to those tables and to
 * the built-in targets.yaml: a chip added in one place and missed in
 * another fails it.
 *
 * No dependency but the C library and the public headers' enums: the
 * CUPTI test double (tests/fake) compiles it with tensor.c. Not installed.
 * Thread safety: constant data; every function is reentrant.
 */
#ifndef GPUPROJ_TARGET_CHIPS_H
#define GPUPROJ_TARGET_CHIPS_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/target.h>

/* What the CUPTI 13.0 profiler host API (API 130001) makes of a chip name. */
enum target_chip_cupti {
	/* not a chip of the CUPTI 13 profiler: NVIDIA before Volta, AMD */
	TARGET_CHIP_CUPTI_NONE = 0,
	/* listed, initialised, and every name of the NVIDIA name table's chosen candidates valid */
	TARGET_CHIP_CUPTI_FULL,
	/* listed and initialised, but without DRAM counters (the integrated GA10B, GB10B, GB20B) */
	TARGET_CHIP_CUPTI_NO_DRAM,
	/* listed, but cuptiProfilerHostInitialize returns CUPTI_ERROR_NOT_SUPPORTED (GV11B) */
	TARGET_CHIP_CUPTI_REFUSED,
	/* not listed: a name ncu reports apart (GH200, whose GPU is a GH100) */
	TARGET_CHIP_CUPTI_NCU_NAME,
};

struct target_chip {
	const char *name;	/* "GA102": as CUPTI, ncu and targets.yaml's `chip` spell it */
	enum gpuproj_vendor vendor;
	int cc_major, cc_minor;	/* NVIDIA: the compute capability */
	const char *gfx;	/* AMD: the gfx target ("gfx90a"); NULL for NVIDIA */
	bool tensor_cores;	/* NVIDIA: has tensor cores (not the GTX 16xx TU116, TU117) */
	/*
	 * The die `gpuproj bench` writes for a device of this compute
	 * capability, which the CUDA runtime does not name (at most one per
	 * CC, none where the architecture has a die family).
	 */
	bool bench_die;
	enum target_chip_cupti cupti;
};

/* Every minor revision of cc_major that has no row of its own. */
#define TARGET_CHIP_ANY_MINOR (-1)

struct target_arch {
	enum gpuproj_vendor vendor;
	int cc_major, cc_minor;	/* NVIDIA; cc_minor may be TARGET_CHIP_ANY_MINOR */
	const char *gfx;	/* AMD: the gfx target; NULL for NVIDIA */
	const char *generation;	/* "Volta", "CDNA3" */
	/*
	 * NVIDIA: the name of the dies sharing this compute capability, where
	 * a device may be any of several ("TU10X"), or NULL.
	 */
	const char *family;
	/* FMA results per clock per SM [PG], by enum gpuproj_prec; 0: not in the table */
	int fma_lanes[GPUPROJ_PREC_COUNT];
	/* L1 bytes per clock per SM where it is not measured (gpuproj bench); 0: not in it */
	int l1_bytes_per_clk;
};

/* The number of chips of the table; rows 0 … n-1 by target_chip_at(). */
size_t target_chip_count(void);

/* Row `i` of the chip table, or NULL past the end. */
const struct target_chip *target_chip_at(size_t i);

/* The chip called `name` (case-insensitive), or NULL (also for NULL). */
const struct target_chip *target_chip_find(const char *name);

/*
 * The architecture row of an NVIDIA compute capability: its own row, else
 * the TARGET_CHIP_ANY_MINOR row of its major; NULL when neither exists.
 */
const struct target_arch *target_arch_of_cc(int cc_major, int cc_minor);

/*
 * The architecture row of an `arch` as targets.yaml writes it: "sm_XY"
 * (compute capability X.Y, digits only, as the loader accepts it) or an AMD
 * gfx target ("gfx90a", exact); NULL for anything else or NULL.
 */
const struct target_arch *target_arch_of(const char *arch);

/* The architecture row of a chip (by its compute capability or gfx target), or NULL. */
const struct target_arch *target_chip_arch(const struct target_chip *c);

/*
 * FMA results per clock per SM of a compute capability's own row for
 * precision `p` (fp16 without tensor cores, fp32, fp64), or 0 when the table
 * has none (or `p` is out of the enum).
 */
int target_chip_fma_lanes(int cc_major, int cc_minor, enum gpuproj_prec p);

/*
 * The die of a compute capability as `gpuproj bench` writes it: the
 * family's name (*ret_exact = false) where the architecture has one, else
 * the chip with bench_die (*ret_exact = true); NULL (*ret_exact = false)
 * when the table has neither.
 */
const char *target_chip_die_for_cc(int cc_major, int cc_minor, bool *ret_exact);

/*
 * L1 bytes per clock per SM of a compute capability's own row, or 64 (the
 * SMs that are not GV100/GA100/GH100/GB100 class) when it has none.
 */
int target_chip_l1_bytes_per_clk(int cc_major, int cc_minor);

/* The word targets.yaml's `vendor` spells a vendor with ("nvidia", "amd"), or NULL. */
const char *target_vendor_word(enum gpuproj_vendor v);

#endif
