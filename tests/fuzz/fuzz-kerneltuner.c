/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the Kernel Tuner cache file importer
 * (gpuproj_import_kerneltuner(), src/import-kerneltuner.c), with the built-in targets.yaml
 * resolving the GPUs.
 *
 * Oracle: every profile of an accepted file is written, loads back and
 * means the same (fuzz_check_profile()), and holds only what a GPU can
 * have measured: every launch timed, every time from 1 ns to 10^6 s, every
 * launch inside CUDA's limits, no rate beyond 2 x the fastest GPU's
 * (fuzz_check_analytic()).
 */
#include "config.h"

#include <stdlib.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "fuzz-common.h"

static struct gpuproj_targets *targets;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (gpuproj_targets_load_builtin(&targets, NULL))
		fuzz_fail("the built-in targets.yaml does not load");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import_file(gpuproj_import_kerneltuner, data, size, targets, true,
			 "Kernel Tuner cache file");
	return 0;
}
