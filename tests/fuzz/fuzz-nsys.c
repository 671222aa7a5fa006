/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the Nsight Systems SQLite importer
 * (gpuproj_import_nsys(), src/import-nsys.c on libsqlite3).
 *
 * Oracle: every profile an accepted export gives is one gpuproj writes,
 * that loads back and means the same, its whole-run timeline included
 * (fuzz_check_profile()); a refused one leaves no profile.
 */
#include "config.h"

#include <stdlib.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpuproj_import_summary summary = { 0 };
	struct gpuproj_profile **ps = NULL;
	size_t n = 0, i;

	if (gpuproj_import_nsys(fuzz_file(data, size), NULL, &ps, &n, &summary, NULL, NULL)) {
		if (ps)
			fuzz_fail("a refused Nsight Systems export left %zu profiles", n);
		return 0;
	}
	for (i = 0; i < n; i++)
		fuzz_check_profile(ps[i], "nsys export");
	for (i = 0; i < n; i++)
		gpuproj_profile_free(ps[i]);
	free(ps);
	gpuproj_import_summary_clear(&summary);
	return 0;
}
