/* SPDX-License-Identifier: MIT */
/*
 * Internals of the SASS analysis (sass.c, sass-tools.c, sass-disasm.c):
 * NVIDIA tools (nvdisasm, ptxas, libnvJitLink) and the disassembly →
 * basic blocks → counts step. Not installed.
 */
#ifndef GPUPROJ_SASS_PRIVATE_H
#define GPUPROJ_SASS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/sass.h>

#include "sass-fatbin.h"

/* ---- sass-tools.c ---- */

/* Output of a finished child process. */
struct proc_result {
	char *out;        /* stdout, NUL-terminated (malloc'd) */
	size_t out_len;
	char *err;        /* stderr, NUL-terminated (malloc'd) */
	size_t err_len;
	int status;       /* exit status 0–255, or 128 + signal */
};

/*
 * Run argv[0] (a path) with argv, capturing stdout and stderr.
 * Returns GPUPROJ_OK when the child ran to completion (whatever its
 * status), GPUPROJ_E_BACKEND when it could not be started (message in
 * err), GPUPROJ_E_NOMEM.
 */
int proc_run(const char *const *argv, struct proc_result *res, struct gpuproj_error *err);
void proc_result_clear(struct proc_result *res);

/* ptxas as a malloc'd path, or NULL when absent. */
char *sass_find_ptxas(void);

enum sass_tool { SASS_NVDISASM, SASS_PTXAS };

/*
 * Whether a tool handles sm_<arch>: listed among the allowed values of
 * nvdisasm --binary ('SM70') or ptxas --gpu-name ('sm_70') in its --help
 * (cached per path). True when the help lists none (let the tool try).
 */
bool sass_tool_supports(const char *path, enum sass_tool kind, int arch);

/* "13.0" from `tool --version` ("… release 13.0, V13.0.88"), or "?". */
void sass_tool_release(const char *path, char *buf, size_t size);

/*
 * Directory of the legacy tools, malloc'd:
 * ${XDG_CACHE_HOME:-$HOME/.cache}/gpuproj/legacy-cuda/bin.
 */
char *sass_legacy_dir(void);

/*
 * A tool for sm_<arch> when `primary` (the one found first, may be NULL)
 * lacks it (CUDA 13 dropped sm_70 and sm_72): $GPUPROJ_NVDISASM_LEGACY or
 * $GPUPROJ_PTXAS_LEGACY when set (it must support arch), else the first
 * that supports arch of: (ptxas) python3's nvidia/cuda_nvcc/bin/ptxas
 * (wheel nvidia-cuda-nvcc-cu12), sass_legacy_dir(), every one in PATH,
 * $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin. ret: malloc'd path.
 * Errors: GPUPROJ_E_MISSING (the message names what was searched and how
 * to get one), GPUPROJ_E_NOMEM.
 */
int sass_find_legacy_tool(enum sass_tool kind, int arch, const char *primary, char **ret,
			  struct gpuproj_error *err);

/*
 * Whether PTX for sm_<arch> needs a legacy ptxas: arch < 75 and neither
 * libnvJitLink (13+ lacks sm_7x below 75) nor the ptxas found first
 * supports it.
 */
bool sass_ptx_needs_legacy(int arch);

/*
 * Compile PTX (NUL-terminated) for sm_<arch> into a malloc'd cubin: with
 * legacy_ptxas only when given (sass_find_legacy_tool()), else with
 * libnvJitLink (dlopen), else ptxas. ret_tool: static name of the tool
 * that succeeded ("nvJitLink", "ptxas", "legacy ptxas"). Errors:
 * GPUPROJ_E_MISSING (no tool: says what to install), GPUPROJ_E_BACKEND
 * (compile errors: the first lines of the log), GPUPROJ_E_NOMEM.
 */
int sass_compile_ptx(const char *ptx, size_t len, int arch, const char *name,
		     const char *legacy_ptxas, unsigned char **ret, size_t *ret_len,
		     const char **ret_tool, struct gpuproj_error *err);

/* ---- sass-disasm.c ---- */

/* What one function contributes (from its own blocks only). */
struct sass_func_out {
	size_t func;                          /* index into cubin->funcs */
	bool slow;                            /* a slow-path subroutine */
	struct gpuproj_sass_counts all;       /* every block of the function */
	struct gpuproj_sass_counts special;   /* its special blocks (none for slow paths) */
	uint32_t special_ops;                 /* MUFU kinds / FCHK in its special blocks */
	size_t *calls;                        /* functions it calls, cubin->funcs indices */
	size_t n_calls;
};

/* One code section of one cubin, placed in a raw instruction stream. */
struct sass_section {
	const struct cubin *cubin;   /* owns the functions */
	size_t text;                 /* index into cubin->texts */
	uint64_t base;               /* offset of its first byte in the stream */
	size_t owner;                /* the caller's tag (sass.c: index of its unit) */
	int arch;                    /* sm_<arch> of the code (HMMA.884's FLOP), 0 unknown */
	/* Filled by sass_disasm_chunk(): one per function of the section. */
	struct sass_func_out *funcs;
	size_t n_funcs;
};

/* A kernel's totals (the public struct's payload). */
struct sass_kernel_out {
	const char *name;            /* points into the cubin */
	struct gpuproj_sass_counts all, special, slow;
	uint32_t special_ops;
	char **slow_paths;           /* malloc'd names */
	size_t n_slow_paths;
};

void sass_kernel_out_clear(struct sass_kernel_out *k);
void sass_section_clear(struct sass_section *sec);

/*
 * Totals of kernel `entry` (a cubin->funcs index): every function of its
 * code section, and every function they call in other sections,
 * transitively, each once. by_func[i] holds the analysis of cubin function
 * i, or NULL when its section was not analysed (then it is skipped).
 * Returns GPUPROJ_OK or GPUPROJ_E_NOMEM.
 */
int sass_kernel_totals(const struct cubin *c, const struct sass_func_out *const *by_func,
		       size_t entry, struct sass_kernel_out *ret);

/*
 * Disassemble a chunk: the sections' code concatenated into one raw
 * stream, `nvdisasm -b SM<arch> -ndf` on it, parse, split into basic
 * blocks per function and count. Fills each section's funcs.
 * Errors: GPUPROJ_E_BACKEND (nvdisasm failed or printed what we cannot
 * parse: the message quotes it), GPUPROJ_E_IO (temporary file),
 * GPUPROJ_E_NOMEM.
 */
int sass_disasm_chunk(const char *nvdisasm, int arch, struct sass_section *sections,
		      size_t n_sections, struct gpuproj_error *err);

/*
 * The analysis of one section from nvdisasm's text (exposed for tests):
 * `text` is nvdisasm output for the section's bytes placed at base.
 */
int sass_analyze_text(const char *text, size_t len, struct sass_section *sections,
		      size_t n_sections, struct gpuproj_error *err);

/* Parse "sm_90", "sm_90a", "SM90", "90" → 90; false when malformed. */
bool sass_parse_arch(const char *s, int *ret);

#endif
