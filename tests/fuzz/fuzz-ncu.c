/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the Nsight Compute CSV importer (gpuproj_import_ncu(),
 * src/import-ncu.c on src/import-common.c), long and raw layouts.
 *
 * Oracle: a CSV the importer accepts gives a profile that gpuproj writes,
 * that loads back and means the same (fuzz_check_profile()).
 */
#include "config.h"

#include <gpuproj/import.h>
#include <gpuproj/profile.h>

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpuproj_import_summary summary = { 0 };
	struct gpuproj_profile *p = NULL;

	if (gpuproj_import_ncu(fuzz_file(data, size), &p, &summary, NULL))
		return 0;
	fuzz_check_profile(p, "ncu CSV");
	gpuproj_import_summary_clear(&summary);
	gpuproj_profile_free(p);
	return 0;
}
