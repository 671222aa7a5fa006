/* SPDX-License-Identifier: MIT */
/*
 * gpuproj-bench-kernels: the CUDA micro-benchmarks behind `gpuproj bench`
 * (docs/bench.md). One .cu file per family: compute.cu (FP64/FP32/FP16
 * FMA, ADD, MUL; integer add and multiply-add; warp-instruction rate),
 * dram.cu (STREAM-like), cache.cu (L2 footprint sweep, L1), shared.cu
 * (bank conflicts, load/store instruction rate), latency.cu (single-thread
 * pointer chase: L1, L2 and DRAM latency); main.cu is the host
 * program that runs a plan and writes the raw JSON.
 *
 * The constants below fix how much work one loop iteration does; the host
 * multiplies them out to FLOP, bytes or instructions per launch, and
 * tests/bench-build/sass-check.py asserts them against the SASS of every
 * architecture (so a change here without a change there fails the test).
 *
 * Every compute kernel: BENCH_CHAINS independent dependency chains per
 * thread, each advanced BENCH_STEPS times per loop iteration (fully
 * unrolled), inside a `#pragma unroll 1` loop whose trip count is a kernel
 * argument; the chains are folded into one value that is stored only when
 * it equals a runtime sentinel, so the compiler can neither fold the
 * chains nor drop them.
 */
#ifndef GPUPROJ_BENCH_KERNELS_H
#define GPUPROJ_BENCH_KERNELS_H

/*
 * NVRTC (__CUDACC_RTC__: tests/bench-build/sass-check.py compiles the
 * kernels for sm_70 with NVRTC 12, CUDA 13's nvcc no longer can) sees the
 * constants and the kernels only, not the host interface below.
 */
#ifndef __CUDACC_RTC__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>
#endif

/* Independent dependency chains per thread (instruction-level parallelism). */
#define BENCH_CHAINS 8
/* Steps of every chain per loop iteration. */
#define BENCH_STEPS 8
/* Arithmetic thread instructions per loop iteration of a compute kernel. */
#define BENCH_OPS_PER_ITER (BENCH_CHAINS * BENCH_STEPS)
/*
 * Warp instructions per loop iteration of the GIPS kernel: 32 IMAD + 32
 * LOP3 + 3 of loop control (counter, compare, branch). The SASS check
 * asserts the loop has exactly this many instructions on every arch.
 */
#define BENCH_GIPS_INSTR_PER_ITER 67
/*
 * The same on sm_70/sm_72 (Volta): ptxas puts a never-true
 * `@!PT SHFL.IDX PT, RZ, RZ, RZ, RZ` at the head of every loop, which is
 * issued like any instruction, so a trip is 68 warp instructions there.
 */
#define BENCH_GIPS_INSTR_PER_ITER_VOLTA 68
/* Loads per loop iteration of the L1 and L2 kernels (16 B each). */
#define BENCH_CACHE_LOADS_PER_ITER 8
/* 32-bit shared loads per loop iteration of the bank-conflict kernel. */
#define BENCH_SHARED_LOADS_PER_ITER 16
/* Shared loads and stores (each) per loop iteration of the ld/st kernel. */
#define BENCH_LDST_PAIRS_PER_ITER 8
/* Words of shared memory used by the shared-memory kernels (16 KiB). */
#define BENCH_SHARED_WORDS 4096
/* Dependent 64-bit loads per loop iteration of the pointer chase (latency.cu). */
#define BENCH_CHASE_STEPS 16
/* Bytes between two elements of the pointer chase: one per 128-byte cache line. */
#define BENCH_CHASE_SPACING_B 128

enum bench_prec { BENCH_FP16 = 0, BENCH_FP32 = 1, BENCH_FP64 = 2 };
enum bench_fop { BENCH_FMA = 0, BENCH_ADD = 1, BENCH_MUL = 2 };
enum bench_iop { BENCH_IADD = 0, BENCH_IMAD = 1 };
enum bench_latency { BENCH_LAT_L1 = 0, BENCH_LAT_L2 = 1, BENCH_LAT_DRAM = 2 };
enum bench_dram {
	BENCH_INIT = 0,
	BENCH_READ = 1,
	BENCH_COPY = 2,
	BENCH_SCALE = 3,
	BENCH_TRIAD = 4
};

#ifndef __CUDACC_RTC__
/* Everything a launch needs; unused fields are ignored. */
struct bench_launch {
	unsigned blocks;
	unsigned threads;
	size_t smem;          /* dynamic shared memory, bytes */
	int iters;            /* loop trip count (runtime: not constant-foldable) */
	size_t n;             /* elements of the buffer(s) */
	unsigned stride;      /* shared-memory word stride (bank conflicts) */
	void *a, *b, *c;      /* device buffers */
	void *sink;           /* device buffer written only on a sentinel match */
	cudaStream_t stream;
};

cudaError_t bench_fp_launch(enum bench_prec prec, enum bench_fop op, const struct bench_launch *l);
cudaError_t bench_int_launch(enum bench_iop op, const struct bench_launch *l);
cudaError_t bench_gips_launch(const struct bench_launch *l);
cudaError_t bench_dram_launch(enum bench_dram kind, const struct bench_launch *l);
cudaError_t bench_l2_launch(const struct bench_launch *l);
cudaError_t bench_l1_launch(const struct bench_launch *l);
cudaError_t bench_shared_launch(const struct bench_launch *l);
cudaError_t bench_ldst_launch(const struct bench_launch *l);
/*
 * Pointer chase: write the chain into `buf` (n elements, a power of two, one
 * per BENCH_CHASE_SPACING_B bytes) and point the device cell `cursor` at its
 * first element; then every bench_latency_launch (l->c = cursor, l->iters
 * trips of BENCH_CHASE_STEPS loads) goes on from where the last one stopped.
 */
cudaError_t bench_latency_prepare(void *buf, size_t n, void *cursor, cudaStream_t s);
cudaError_t bench_latency_launch(const struct bench_launch *l);
/* Keep the GPU busy (FP32 FMA) to bring clocks up before measuring. */
cudaError_t bench_spin_launch(const struct bench_launch *l);

/*
 * Resident blocks per SM of the kernel the matching launch function starts,
 * with `threads` per block (cudaOccupancyMaxActiveBlocksPerMultiprocessor):
 * the host caps the grid at SMs x this, so that every block of a launch
 * runs in one wave (registers can limit residency below the plan's guess).
 * compute: what 0 = FP (sub1 precision, sub2 op), 1 = integer (sub1 op), 2 = GIPS.
 */
cudaError_t bench_compute_occupancy(int what, int sub1, int sub2, unsigned threads, int *ret);
cudaError_t bench_dram_occupancy(enum bench_dram kind, unsigned threads, int *ret);
cudaError_t bench_cache_occupancy(bool l1, unsigned threads, int *ret);
cudaError_t bench_shared_occupancy(bool ldst, unsigned threads, int *ret);

#endif /* __CUDACC_RTC__ */

#endif
