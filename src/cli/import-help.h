/* SPDX-License-Identifier: MIT */
/*
 * The help texts of `gpuproj import` (import-help.c): each writes its text,
 * ending with the shared options and the exit statuses, to `f`.
 */
#ifndef GPUPROJ_CLI_IMPORT_HELP_H
#define GPUPROJ_CLI_IMPORT_HELP_H

#include <stdio.h>

/* `gpuproj import --help`: every source, one line each. */
void import_help(FILE *f);
/* `gpuproj import ncu --help` (nvprof, nsys, gpuperfpredict, neusight, xla-matmul,
 * kerneltuner, seed002): the source's input, options and summary. */
void import_help_ncu(FILE *f);
void import_help_nvprof(FILE *f);
void import_help_nsys(FILE *f);
void import_help_gpp(FILE *f);
void import_help_neu(FILE *f);
void import_help_xla(FILE *f);
void import_help_kt(FILE *f);
void import_help_s2(FILE *f);

#endif
