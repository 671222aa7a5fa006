/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the gpuperfpredict CSV importer
 * (gpuproj_import_gpuperfpredict(), src/import-gpuperfpredict.c), with the
 * built-in targets.yaml resolving the data set's GPU labels.
 *
 * Oracle: every profile of an accepted file is written, loads back and
 * means the same (fuzz_check_profile()).
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
	fuzz_import_file(gpuproj_import_gpuperfpredict, data, size, targets, false,
			 "gpuperfpredict CSV");
	return 0;
}
