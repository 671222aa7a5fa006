// SPDX-License-Identifier: MIT
//
// Shared by the CUDA programs of scripts/gpu-acceptance.sh: CHECK() ends the
// program with the failing call and the runtime's message, and
// expectations() opens the file a program writes its analytic figures to.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t e_ = (call);                                                   \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));        \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

// argv[1], opened for writing; usage (exit 2) or the error (exit 1) otherwise.
static inline FILE *
expectations(int argc, char **argv, const char *prog)
{
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s EXPECTATIONS-FILE\n", prog);
		exit(2);
	}
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		exit(1);
	}
	return f;
}
