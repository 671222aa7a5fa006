/* SPDX-License-Identifier: MIT */
/*
 * Internal profile helpers shared by the JSON reader, importers and the
 * injection collector. Not installed.
 */
#ifndef GPUPROJ_PROFILE_PRIVATE_H
#define GPUPROJ_PROFILE_PRIVATE_H

#include <gpuproj/profile.h>

/* Set (copy) the demangled name of a record. GPUPROJ_E_NOMEM on failure. */
int profile_kernel_set_demangled(struct gpuproj_kernel *k, const char *demangled);

#endif
