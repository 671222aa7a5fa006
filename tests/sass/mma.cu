/* SPDX-License-Identifier: MIT */
/*
 * One tensor MMA for the SASS tensor tests (tests/sass/test-sass.c,
 * fixture_mma_rescale): mma.sync m16n8k8 with FP16 inputs and FP32
 * accumulate, which ptxas 13.0 turns into one HMMA.1688.F32 on sm_80
 * (2 x 16 x 8 x 8 = 2,048 FLOP per warp instruction, half of HMMA.16816,
 * the CC 8.x default of include/gpuproj/tensor.h).
 */
extern "C" __global__ void
mma_1688(const unsigned *a, const unsigned *b, float *d)
{
	unsigned a0 = a[threadIdx.x * 2], a1 = a[threadIdx.x * 2 + 1], b0 = b[threadIdx.x];
	float c0 = 0, c1 = 0, c2 = 0, c3 = 0;

	asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, "
		     "{%6}, {%0,%1,%2,%3};"
		     : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
		     : "r"(a0), "r"(a1), "r"(b0));
	d[threadIdx.x * 4 + 0] = c0;
	d[threadIdx.x * 4 + 1] = c1;
	d[threadIdx.x * 4 + 2] = c2;
	d[threadIdx.x * 4 + 3] = c3;
}
