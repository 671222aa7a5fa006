/* SPDX-License-Identifier: MIT */
/*
 * Bundled kernels for the SASS analysis tests (tests/sass/test-sass.c,
 * docs/sass.md). Each kernel applies one special function to its input, so
 * the special-function blocks the analysis finds are the ones of that
 * function. extern "C" keeps the SASS function names readable.
 *
 * ptxas expands these PTX instructions differently per architecture:
 * div.rn.f32 (k_fdiv), sqrt.rn.f32 (k_fsqrt), rsqrt.approx.f32 (k_frsqrt),
 * ex2.approx (k_fexp, inside expf), div.full.f32 (k_fdividef), div.rn.f64
 * (k_ddiv), sqrt.rn.f64 (k_dsqrt), sin/cos/lg2/ex2.approx (k_fintrin),
 * rcp.approx.f32 on half operands (k_h2div). logf, sinf and cosf are
 * polynomials in the PTX already (libdevice), with the same FLOP wherever
 * the PTX is the same. k_ffma has no special function: its ratio is
 * exactly 1.
 *
 * With -DGPUPROJ_SASS_MAIN the file has a host main(), so that nvcc can
 * link it into an executable whose .nv_fatbin section holds the kernels.
 */

#include <cuda_fp16.h>

extern "C" __global__ void
k_ffma(float *a, const float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = a[i] * b[i] + 1.0f;
}

extern "C" __global__ void
k_fdiv(float *a, const float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = a[i] / b[i];
}

extern "C" __global__ void
k_fsqrt(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = sqrtf(a[i]);
}

extern "C" __global__ void
k_frsqrt(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = rsqrtf(a[i]);
}

extern "C" __global__ void
k_fexp(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = expf(a[i]);
}

extern "C" __global__ void
k_flog(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = logf(a[i]);
}

extern "C" __global__ void
k_fsincos(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = sinf(a[i]) + cosf(a[i]);
}

extern "C" __global__ void
k_fdividef(float *a, const float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = __fdividef(a[i], b[i]);
}

extern "C" __global__ void
k_fintrin(float *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = __sinf(a[i]) + __cosf(a[i]) + __expf(a[i]) + __logf(a[i]);
}

extern "C" __global__ void
k_ddiv(double *a, const double *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = a[i] / b[i];
}

extern "C" __global__ void
k_dsqrt(double *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = sqrt(a[i]);
}

/*
 * Half-precision division: both halves converted to float, MUFU.RCP, FMUL,
 * and an FFMA fix-up pair under a range check. The x + x that feeds it is
 * an HADD2 on sm_75 and sm_80 but an HFMA2 (x * 1 + x) on sm_90, in the
 * same basic block.
 */
extern "C" __global__ void
k_h2div(__half2 *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = __h2div(a[i], __hadd2(a[i], a[i]));
}

#ifdef GPUPROJ_SASS_MAIN
#include <cstdio>

int
main(void)
{
	/* Nothing runs on a GPU: the executable only carries the kernels. */
	printf("%p\n", (void *)k_ffma);
	return 0;
}
#endif
