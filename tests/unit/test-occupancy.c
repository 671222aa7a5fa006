/* SPDX-License-Identifier: MIT */
/*
 * The occupancy calculator (include/gpuproj/occupancy.h) against the CUDA
 * occupancy rules, on the built-in targets.yaml entries of six compute
 * capabilities: V100-PCIe-16GB (7.0), T4 (7.5), A100-SXM4-40GB (8.0), A10
 * (8.6), L4 (8.9), H100-PCIe-80GB (9.0).
 *
 * Every case is worked out by hand in its comment, with the rules of
 * cuda_occupancy.h (cudaOccMaxBlocksPerSMWarpsLimit, ...RegsLimit,
 * ...SmemLimit, cudaOccMaxBlocksPerMultiprocessor), in this notation:
 *   w   = warps per block = ⌈T/32⌉, M = max warps per SM = threads_per_sm/32
 *   B_t = ⌊M/w⌋ (threads)
 *   r_w = ⌈R·32/256⌉·256 registers per warp; B_r = ⌊⌊16384/r_w⌋·4/w⌋
 *         (65536 registers split over 4 sub-partitions)
 *   s   = ⌈(S + reserved)/unit⌉·unit shared bytes per block; B_s = ⌊smem_SM/s⌋
 *   B_b = blocks_per_sm;  B = min;  O = B·w/M
 * When the toolkit's cuda_occupancy.h is available (meson defines
 * GPUPROJ_HAVE_CUDA_OCCUPANCY), each case, and a sweep of 28,000 launch
 * configurations on every NVIDIA GPU of targets.yaml, are also checked
 * against its cudaOccMaxActiveBlocksPerMultiprocessor() as an oracle.
 */
#include "config.h"

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/occupancy.h>
#include <gpuproj/target.h>

#include "common.h"

#ifdef GPUPROJ_HAVE_CUDA_OCCUPANCY
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wswitch-enum"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <cuda_occupancy.h>
#pragma GCC diagnostic pop
#endif

#define THR GPUPROJ_OCC_LIMIT_THREADS
#define REG GPUPROJ_OCC_LIMIT_REGISTERS
#define SHM GPUPROJ_OCC_LIMIT_SHARED
#define BLK GPUPROJ_OCC_LIMIT_BLOCKS

struct occ_case {
	const char *gpu;      /* built-in targets.yaml name */
	int threads, regs;
	long smem;            /* static + dynamic shared memory per block, B */
	int blocks;           /* expected B (0: does not fit) */
	unsigned limiting;    /* expected limiting bits */
	double occupancy;     /* expected O */
};

static const struct occ_case cases[] = {
	/* ---- CC 7.0, V100-PCIe-16GB: M = 64, 32 blocks, 96 KiB/SM, 256-B unit, no reserve ---- */
	/* Registers: T=256 → w=8; R=64 → r_w=2048, ⌊16384/2048⌋=8 warps/sub-partition → 32
	 * warps → B_r=4. B_t=8, B_s=∞ (s=0), B_b=32. B=4, O=32/64=0.5. */
	{ "V100-PCIe-16GB", 256, 64, 0, 4, REG, 0.5 },
	/* Shared with granularity: T=128 → w=4, R=32 → r_w=1024 → 16·4/4 = B_r=16; B_t=16;
	 * S=14000 → s=⌈14000/256⌉·256=55·256=14080 → B_s=⌊98304/14080⌋=6 (without the
	 * granularity ⌊98304/14000⌋ would be 7). B=6, O=24/64=0.375. */
	{ "V100-PCIe-16GB", 128, 32, 14000, 6, SHM, 0.375 },
	/* Threads: T=1024 → w=32, B_t=⌊64/32⌋=2; R=16 → r_w=512 → 32·4/32 = B_r=4. B=2, O=1. */
	{ "V100-PCIe-16GB", 1024, 16, 0, 2, THR, 1.0 },
	/* Blocks: T=32 → w=1, B_t=64; R=16 → B_r=128; B_b=32. B=32, O=32/64=0.5. */
	{ "V100-PCIe-16GB", 32, 16, 0, 32, BLK, 0.5 },
	/* Does not fit: T=1024 → w=32, R=128 → r_w=4096; 32 warps need 131072 > 65536
	 * registers per block → B_r=0. */
	{ "V100-PCIe-16GB", 1024, 128, 0, 0, REG, 0.0 },

	/* ---- CC 7.5, T4: M = 32 (1024 threads/SM), 16 blocks, 64 KiB/SM, 256-B unit ---- */
	/* Registers per sub-partition: T=32 → w=1, R=200 → r_w=6400, ⌊16384/6400⌋=2 warps per
	 * sub-partition → 8 warps → B_r=8 (a whole-SM ⌊65536/6400⌋=10 would be wrong).
	 * B_t=32, B_b=16. B=8, O=8/32=0.25. */
	{ "T4", 32, 200, 0, 8, REG, 0.25 },
	/* Registers: T=256 → w=8, R=72 → r_w=2304 → ⌊16384/2304⌋=7 → 28 warps → B_r=3;
	 * B_t=⌊32/8⌋=4. B=3, O=24/32=0.75. */
	{ "T4", 256, 72, 0, 3, REG, 0.75 },
	/* Shared with granularity: T=64 → w=2, R=32 → B_r=32, B_t=16; S=21800 →
	 * s=86·256=22016 → B_s=⌊65536/22016⌋=2 (⌊65536/21800⌋ would be 3). B=2, O=4/32. */
	{ "T4", 64, 32, 21800, 2, SHM, 0.125 },
	/* Threads: T=512 → w=16, B_t=⌊32/16⌋=2; R=32 → 64/16 → B_r=4. B=2, O=1. */
	{ "T4", 512, 32, 0, 2, THR, 1.0 },
	/* Blocks: T=32, R=32 → B_t=32, B_r=64, B_b=16. B=16, O=16/32=0.5. */
	{ "T4", 32, 32, 0, 16, BLK, 0.5 },

	/* ---- CC 8.0, A100-SXM4-40GB: M = 64, 32 blocks, 164 KiB/SM, 128-B unit, 1 KiB reserved ---- */
	/* Registers: T=256 → w=8, R=40 → r_w=1280 → ⌊16384/1280⌋=12 → 48 warps → B_r=6; B_t=8;
	 * s=⌈(0+1024)/128⌉·128=1024 → B_s=164. B=6, O=48/64=0.75. */
	{ "A100-SXM4-40GB", 256, 40, 0, 6, REG, 0.75 },
	/* Shared, the 1 KiB reservation: T=128 → w=4, R=32 → B_r=16, B_t=16; S=32768 →
	 * s=33792 → B_s=⌊167936/33792⌋=4 (without the reserve ⌊167936/32768⌋=5). B=4, O=0.25. */
	{ "A100-SXM4-40GB", 128, 32, 32768, 4, SHM, 0.25 },
	/* Shared, the 128-B granularity: S=32540 → S+1024=33564 (⌊167936/33564⌋ would be 5)
	 * → s=⌈33564/128⌉·128=263·128=33664 → B_s=⌊167936/33664⌋=4. B=4, O=0.25. */
	{ "A100-SXM4-40GB", 128, 32, 32540, 4, SHM, 0.25 },
	/* Threads: T=1024 → w=32, B_t=2; R=16 → B_r=4; B_s=164. B=2, O=1. */
	{ "A100-SXM4-40GB", 1024, 16, 0, 2, THR, 1.0 },
	/* Blocks: T=32, R=16 → B_t=64, B_r=128, B_s=164, B_b=32. B=32, O=0.5. */
	{ "A100-SXM4-40GB", 32, 16, 0, 32, BLK, 0.5 },
	/* Does not fit: S=163 KiB+1 B > the 163 KiB opt-in maximum per block. */
	{ "A100-SXM4-40GB", 128, 32, 163 * 1024 + 1, 0, SHM, 0.0 },

	/* ---- CC 8.6, A10: M = 48 (1536 threads/SM), 16 blocks, 100 KiB/SM, 128-B unit, 1 KiB ---- */
	/* Registers: T=256 → w=8, R=48 → r_w=1536 → ⌊16384/1536⌋=10 → 40 warps → B_r=5;
	 * B_t=⌊48/8⌋=6. B=5, O=40/48. */
	{ "A10", 256, 48, 0, 5, REG, 40.0 / 48 },
	/* Shared + reserve: T=128 → w=4, R=32 → B_r=16, B_t=12; S=20000 → 21024 →
	 * s=165·128=21120 → B_s=⌊102400/21120⌋=4 (⌊102400/20000⌋ would be 5). B=4, O=16/48. */
	{ "A10", 128, 32, 20000, 4, SHM, 16.0 / 48 },
	/* Threads, 1536 per SM: T=1024 → w=32, B_t=⌊48/32⌋=1; R=32 → B_r=2. B=1, O=32/48. */
	{ "A10", 1024, 32, 0, 1, THR, 32.0 / 48 },
	/* Blocks: T=64 → w=2, B_t=24; R=16 → B_r=64; B_s=100; B_b=16. B=16, O=32/48. */
	{ "A10", 64, 16, 0, 16, BLK, 32.0 / 48 },

	/* ---- CC 8.9, L4: M = 48, 24 blocks, 100 KiB/SM, 128-B unit, 1 KiB reserved ---- */
	/* Registers: T=128 → w=4, R=128 → r_w=4096 → 4 per sub-partition → 16 warps → B_r=4;
	 * B_t=12. B=4, O=16/48. */
	{ "L4", 128, 128, 0, 4, REG, 16.0 / 48 },
	/* Shared + reserve: T=256 → w=8, R=32 → B_r=8, B_t=6; S=16384 → s=17408 →
	 * B_s=⌊102400/17408⌋=5 (⌊102400/16384⌋ would be 6). B=5, O=40/48. */
	{ "L4", 256, 32, 16384, 5, SHM, 40.0 / 48 },
	/* Threads: T=768 → w=24, B_t=⌊48/24⌋=2; R=16 → ⌊128/24⌋ = B_r=5. B=2, O=1. */
	{ "L4", 768, 16, 0, 2, THR, 1.0 },
	/* Blocks, 24 on CC 8.9: T=32 → B_t=48; R=16 → B_r=128; B_s=100. B=24, O=24/48. */
	{ "L4", 32, 16, 0, 24, BLK, 0.5 },

	/* ---- CC 9.0, H100-PCIe-80GB: M = 64, 32 blocks, 228 KiB/SM, 128-B unit, 1 KiB ---- */
	/* Registers: T=384 → w=12, R=80 → r_w=2560 → ⌊16384/2560⌋=6 → 24 warps → B_r=2;
	 * B_t=⌊64/12⌋=5. B=2, O=24/64. */
	{ "H100-PCIe-80GB", 384, 80, 0, 2, REG, 0.375 },
	/* Shared + reserve + granularity: T=128 → w=4, R=32 → B_r=16; S=100000 → 101024 →
	 * s=790·128=101120 → B_s=⌊233472/101120⌋=2. B=2, O=8/64. */
	{ "H100-PCIe-80GB", 128, 32, 100000, 2, SHM, 0.125 },
	/* Shared, the opt-in maximum: S=227 KiB=232448 → s=233472 → B_s=1. O=4/64. */
	{ "H100-PCIe-80GB", 128, 32, 232448, 1, SHM, 4.0 / 64 },
	/* Threads: T=1024 → B_t=2; R=16 → B_r=4. B=2, O=1. */
	{ "H100-PCIe-80GB", 1024, 16, 0, 2, THR, 1.0 },
	/* Blocks: T=32 → B_t=64; R=16 → B_r=128; B_s=228. B=32, O=0.5. */
	{ "H100-PCIe-80GB", 32, 16, 0, 32, BLK, 0.5 },
	/* Does not fit: T=2048 > 1024 threads per block → B_t=0. */
	{ "H100-PCIe-80GB", 2048, 16, 0, 0, THR, 0.0 },
};

static struct gpuproj_targets *targets;

static void
setup(void)
{
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_targets_load_builtin(&targets, &err), GPUPROJ_OK);
}

static void
teardown(void)
{
	targets = gpuproj_targets_free(targets);
}

static const struct gpuproj_target *
gpu(const char *name)
{
	const struct gpuproj_target *t = gpuproj_targets_find(targets, name);

	ck_assert_msg(t != NULL, "%s is not in the built-in targets.yaml", name);
	return t;
}

#ifdef GPUPROJ_HAVE_CUDA_OCCUPANCY
/* The CUDA occupancy calculator's answer for a targets.yaml GPU. */
static int
oracle(const struct gpuproj_target *t, int threads, int regs, long smem)
{
	cudaOccDeviceProp p;
	cudaOccFuncAttributes a;
	cudaOccDeviceState st;
	cudaOccResult r;

	memset(&p, 0, sizeof(p));
	memset(&a, 0, sizeof(a));
	memset(&st, 0, sizeof(st));
	memset(&r, 0, sizeof(r));
	st.cacheConfig = CACHE_PREFER_NONE;
	st.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
	p.computeMajor = t->cc_major;
	p.computeMinor = t->cc_minor;
	p.maxThreadsPerBlock = t->limits.threads_per_block;
	p.maxThreadsPerMultiprocessor = t->limits.threads_per_sm;
	p.regsPerBlock = t->limits.regs_per_block;
	p.regsPerMultiprocessor = t->limits.regs_per_sm;
	p.warpSize = t->warp_size;
	p.sharedMemPerBlock = 48 * 1024;
	p.sharedMemPerBlockOptin = (size_t)t->limits.smem_per_block_kib * 1024;
	p.sharedMemPerMultiprocessor = (size_t)t->limits.smem_per_sm_kib * 1024;
	p.numSms = t->sms;
	p.reservedSharedMemPerBlock = (size_t)t->limits.smem_reserved_per_block_b;
	a.maxThreadsPerBlock = 1024;
	a.numRegs = regs;
	a.sharedSizeBytes = (size_t)smem;
	/* The launch opted in to the per-block maximum (it ran on the source). */
	a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
	a.maxDynamicSharedSizeBytes = p.sharedMemPerBlockOptin;
	a.partitionedGCConfig = PARTITIONED_GC_OFF;
	a.numBlockBarriers = 1;
	if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &st, threads, 0) != CUDA_OCC_SUCCESS)
		return -1;
	return r.activeBlocksPerMultiprocessor;
}
#endif

START_TEST(hand_cases)
{
	const struct occ_case *c = &cases[_i];
	const struct gpuproj_target *t = gpu(c->gpu);
	struct gpuproj_occupancy o;
	int r = gpuproj_occupancy_compute(t, c->threads, c->regs, c->smem, &o);

	ck_assert_int_eq(r, c->blocks ? GPUPROJ_OK : GPUPROJ_E_UNSUPPORTED);
	ck_assert_int_eq(o.blocks_per_sm, c->blocks);
	ck_assert_uint_eq(o.limiting, c->limiting);
	ck_assert_msg(fabs(o.occupancy - c->occupancy) < 1e-12, "%s T=%d R=%d S=%ld: O = %.6f, "
		      "expected %.6f", c->gpu, c->threads, c->regs, c->smem, o.occupancy,
		      c->occupancy);
	ck_assert_int_eq(o.active_warps_per_sm, o.blocks_per_sm * o.warps_per_block);
#ifdef GPUPROJ_HAVE_CUDA_OCCUPANCY
	ck_assert_int_eq(oracle(t, c->threads, c->regs, c->smem), c->blocks);
#endif
}
END_TEST

/* The compute capabilities the cases cover (all six named by the issue). */
START_TEST(every_cc_has_three_cases)
{
	static const char *const gpus[] = { "V100-PCIe-16GB", "T4", "A100-SXM4-40GB", "A10", "L4",
					    "H100-PCIe-80GB" };
	static const int cc[] = { 70, 75, 80, 86, 89, 90 };
	size_t g, i;

	for (g = 0; g < sizeof(gpus) / sizeof(gpus[0]); g++) {
		const struct gpuproj_target *t = gpu(gpus[g]);
		unsigned seen = 0;
		int n = 0;

		ck_assert_int_eq(t->cc_major * 10 + t->cc_minor, cc[g]);
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			if (strcmp(cases[i].gpu, gpus[g]) == 0 && cases[i].blocks) {
				n++;
				seen |= cases[i].limiting;
			}
		}
		ck_assert_int_ge(n, 3);
		ck_assert_uint_eq(seen & (REG | SHM | THR), REG | SHM | THR);
	}
}
END_TEST

START_TEST(details_and_errors)
{
	const struct gpuproj_target *a100 = gpu("A100-SXM4-40GB");
	struct gpuproj_occupancy o;
	char buf[64];

	/* R = 0 (unknown) applies no register limit: T=1024 → B_t = 2. */
	ck_assert_int_eq(gpuproj_occupancy_compute(a100, 1024, 0, 0, &o), GPUPROJ_OK);
	ck_assert_int_eq(o.limit_regs, INT_MAX);
	ck_assert_int_eq(o.blocks_per_sm, 2);
	/* Allocation details of the reservation case: s = 33792, r_w = 1024. */
	ck_assert_int_eq(gpuproj_occupancy_compute(a100, 128, 32, 32768, &o), GPUPROJ_OK);
	ck_assert_int_eq(o.smem_per_block, 33792);
	ck_assert_int_eq(o.regs_per_warp, 1024);
	ck_assert_int_eq(o.warps_per_block, 4);
	ck_assert_int_eq(o.max_warps_per_sm, 64);
	ck_assert_str_eq(gpuproj_occupancy_limit_names(o.limiting, buf, sizeof(buf)), "shared");
	ck_assert_str_eq(gpuproj_occupancy_limit_names(THR | BLK, buf, sizeof(buf)),
			 "threads+blocks");
	ck_assert_str_eq(gpuproj_occupancy_limit_names(0, buf, sizeof(buf)), "none");
	/* Bad arguments. */
	ck_assert_int_eq(gpuproj_occupancy_compute(a100, 0, 32, 0, &o), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_occupancy_compute(a100, 32, -1, 0, &o), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_occupancy_compute(a100, 32, 32, -1, &o), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_occupancy_compute(NULL, 32, 32, 0, &o), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_occupancy_compute(a100, 32, 32, 0, NULL), GPUPROJ_E_INVAL);
}
END_TEST

#ifdef GPUPROJ_HAVE_CUDA_OCCUPANCY
/*
 * Every NVIDIA GPU of the built-in targets.yaml (CC 3.0 to 10.0; the oracle
 * knows their rules) against cuda_occupancy.h over a grid of block sizes,
 * register counts and shared-memory sizes: 32 × 25 × 35 = 28,000 launches per
 * GPU (fewer on CC 3.0, whose 63-register limit the oracle does not know).
 */
START_TEST(oracle_sweep)
{
	static const int regs[] = { 0, 8, 16, 20, 24, 28, 32, 36, 40, 48, 56, 63, 64, 72, 80, 96,
				    112, 128, 144, 168, 192, 200, 232, 248, 255 };
	static const long smem[] = { 0, 1, 100, 255, 256, 257, 1000, 1024, 2048, 3072, 4096, 6000,
				     8192, 10000, 11872, 12288, 14000, 16384, 20000, 21800, 24576,
				     32540, 32768, 40000, 48 * 1024, 48 * 1024 + 1, 65536, 80000,
				     98304, 100000, 101376, 131072, 166912, 200000, 232448 };
	size_t g, ri, si, checked = 0;
	int thr;

	for (g = 0; g < gpuproj_targets_count(targets); g++) {
		const struct gpuproj_target *t = gpuproj_targets_get(targets, g);

		if (t->vendor != GPUPROJ_VENDOR_NVIDIA || t->cc_major < 3 || t->cc_major > 12)
			continue;
		for (thr = 32; thr <= 1024; thr += 32) {
			for (ri = 0; ri < sizeof(regs) / sizeof(regs[0]); ri++) {
				for (si = 0; si < sizeof(smem) / sizeof(smem[0]); si++) {
					struct gpuproj_occupancy o;
					int want;

					/*
					 * cuda_occupancy.h accepts 255 registers per thread on
					 * every CC (256 from 7.0); the hardware limit of
					 * targets.yaml (63 on CC 3.0) is stricter.
					 */
					if (regs[ri] > t->limits.regs_per_thread)
						continue;
					want = oracle(t, thr, regs[ri], smem[si]);

					gpuproj_occupancy_compute(t, thr, regs[ri], smem[si], &o);
					ck_assert_msg(o.blocks_per_sm == want,
						      "%s (CC %d.%d) T=%d R=%d S=%ld: %d blocks, "
						      "cuda_occupancy.h says %d", t->name, t->cc_major,
						      t->cc_minor, thr, regs[ri], smem[si],
						      o.blocks_per_sm, want);
					checked++;
				}
			}
		}
	}
	ck_assert_uint_gt(checked, 20 * 28000);
}
END_TEST
#endif

static Suite *
occupancy_suite(void)
{
	Suite *s = suite_create("occupancy");
	TCase *tc = tcase_create("occupancy");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, hand_cases, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, every_cc_has_three_cases);
	tcase_add_test(tc, details_and_errors);
#ifdef GPUPROJ_HAVE_CUDA_OCCUPANCY
	tcase_add_test(tc, oracle_sweep);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(occupancy_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
