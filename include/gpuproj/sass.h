/* SPDX-License-Identifier: MIT */
/**
 * @file sass.h
 * SASS comparison of special functions across architectures ([VanLanker2024]
 * §4.2): the target/source FLOP ratio of each kernel that hroof uses for
 * the target's operational intensity.
 *
 * The PTX of a kernel is the same for every GPU, but ptxas expands the PTX
 * instructions that implement special functions — division, reciprocal and
 * square root (div.rn, rcp.rn, sqrt.rn, f32 and f64), rsqrt, ex2, lg2,
 * sin, cos, tanh — into different SASS sequences per architecture: a MUFU
 * (multi-function unit) approximation refined by FFMA/DFMA Newton steps,
 * range checks (FCHK), and slow-path subroutines for operands the fast path
 * cannot handle. The MUFU instruction itself is not a FLOP for the hroof
 * FLOP metric (ncu counts FADD, FMUL, FFMA and their FP64/FP16 forms), but
 * the refinement around it is, so FLOP per kernel differ between GPUs.
 *
 * What is analysed: for every kernel and every architecture requested, the
 * SASS of that architecture — taken from the binary when it carries it
 * (exactly, or for a binary-compatible architecture of the same major
 * version, as the driver would pick it), else compiled from the binary's
 * PTX (the highest virtual architecture not above the target, as the
 * driver's JIT would) with libnvJitLink, or ptxas when libnvJitLink is
 * absent — disassembled with nvdisasm, split into basic blocks, and
 * counted by instruction kind.
 *
 * Blocks, per kernel and architecture (docs/sass.md has examples):
 * - special blocks: blocks that contain a MUFU or FCHK instruction, and
 *   every block inside the innermost BSSY…BSYNC region around a call to a
 *   slow-path subroutine (the fast path and its fix-ups);
 * - slow-path blocks: the blocks of the subroutines nvcc emits for special
 *   functions (`$__internal_N_$__cuda_smXX_…`, e.g.
 *   `__cuda_sm3x_div_rn_noftz_f32_slowpath`, `__cuda_sm20_div_rn_f64_full`,
 *   `__cuda_sm20_dsqrt_rn_f64_mediumpath_v1`);
 * - all blocks: the kernel and every subroutine in its code section except
 *   the slow paths.
 *
 * FLOP per static pass = Σ over the instructions of a set of blocks of the
 * FLOP of each (gpuproj_sass_op_flop(): FMA-type 2, ADD/MUL-type 1, per
 * thread instruction as the hroof metric counts them; MUFU, compares,
 * conversions 0), each block counted once.
 *
 * FLOP ratio of a kernel from source architecture s to target t:
 *
 *     F_x = all_x + w·slow_x          S_x = special_x + w·slow_x
 *     ratio(s → t) = (F_s − S_s + S_t) / F_s
 *
 * where all, special and slow are the FLOP per static pass of those block
 * sets and w the slow-path weight (gpuproj_sass_options.slow_path_weight,
 * default 0). Assumptions, as in the paper where stated:
 * 1. the code outside special blocks is the same on both architectures
 *    (same PTX) and executes the same number of times: its FLOP cancel;
 * 2. each special block executes as often as its equivalent on the other
 *    architecture (same number of active threads; the paper takes these
 *    counts from SASS traces on the source);
 * 3. without a trace, every block executes equally often (once per static
 *    pass): the special share of the kernel's FLOP is S_s / F_s — loops
 *    around or away from special functions make this an estimate;
 * 4. slow paths run w times per fast path (0: operands are normal numbers;
 *    1: every call takes the slow path).
 * With a measured FLOP count and the number of times the special blocks
 * executed, gpuproj_sass_flop_ratio_measured() applies the difference to
 * the measured FLOP instead of the static share (assumptions 1, 2, 4).
 *
 * libdevice functions without a PTX special instruction (accurate sinf,
 * cosf, logf, exp's polynomial around ex2) are ordinary FFMA code in the
 * PTX; they are not special blocks, and compile to the same FLOP wherever
 * the PTX is the same.
 *
 * Tools: nvdisasm is required ($GPUPROJ_NVDISASM, PATH, $CUDA_HOME/bin,
 * /usr/local/cuda/bin, then NVIDIA's PyPI wheel nvidia-cuda-nvdisasm found
 * through `python3`). libnvJitLink is loaded at run time (dlopen; no
 * link-time CUDA dependency), ptxas run as a subprocess, both only when
 * PTX has to be compiled.
 *
 * sm_70 and sm_72 (Volta), which CUDA 13's tools dropped: an architecture
 * the nvdisasm found first does not list (its --help) is disassembled with
 * a legacy one: $GPUPROJ_NVDISASM_LEGACY, else the first CUDA 11/12
 * nvdisasm of ${XDG_CACHE_HOME:-$HOME/.cache}/gpuproj/legacy-cuda/bin
 * (scripts/setup-deps.sh unpacks nvdisasm and ptxas 11.8 there), PATH and
 * the CUDA homes. PTX for sm_70/sm_72 that neither libnvJitLink nor the
 * ptxas found first can compile goes to a legacy ptxas:
 * $GPUPROJ_PTXAS_LEGACY, else python3's nvidia/cuda_nvcc/bin/ptxas
 * (CUDA 12, `pip install nvidia-cuda-nvcc-cu12`), the legacy directory,
 * PATH. Without one, that architecture alone fails with GPUPROJ_E_MISSING
 * and a message saying what was searched and what to install
 * (docs/sass.md §1).
 *
 * Thread safety: an analysis runs worker threads internally; a finished
 * result is immutable and may be read from any number of threads.
 */
#ifndef GPUPROJ_SASS_H
#define GPUPROJ_SASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuproj/error.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>
#include <gpuproj/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Floating-point SASS instruction kinds counted. Only ever append. */
enum gpuproj_sass_op {
	GPUPROJ_SASS_FFMA = 0,     /**< FFMA, FFMA32I: 2 FLOP */
	GPUPROJ_SASS_FADD,         /**< FADD, FADD32I: 1 FLOP */
	GPUPROJ_SASS_FMUL,         /**< FMUL, FMUL32I: 1 FLOP */
	GPUPROJ_SASS_DFMA,         /**< 2 FLOP */
	GPUPROJ_SASS_DADD,         /**< 1 FLOP */
	GPUPROJ_SASS_DMUL,         /**< 1 FLOP */
	/** HFMA2 (packed half): 2 FLOP per instruction, as ncu's op_hfma counts it */
	GPUPROJ_SASS_HFMA2,
	GPUPROJ_SASS_HADD2,        /**< 1 FLOP per instruction */
	GPUPROJ_SASS_HMUL2,        /**< 1 FLOP per instruction */
	GPUPROJ_SASS_FFMA2,        /**< packed FP32x2 FMA (sm_100): 2 FLOP per instruction */
	GPUPROJ_SASS_FADD2,        /**< packed FP32x2 add: 1 FLOP per instruction */
	GPUPROJ_SASS_FMUL2,        /**< packed FP32x2 multiply: 1 FLOP per instruction */
	GPUPROJ_SASS_MUFU_RCP,     /**< MUFU.RCP: reciprocal approximation, 0 FLOP */
	GPUPROJ_SASS_MUFU_RSQ,     /**< MUFU.RSQ: reciprocal square root */
	GPUPROJ_SASS_MUFU_SQRT,    /**< MUFU.SQRT */
	GPUPROJ_SASS_MUFU_EX2,     /**< MUFU.EX2: 2^x */
	GPUPROJ_SASS_MUFU_LG2,     /**< MUFU.LG2: log2 */
	GPUPROJ_SASS_MUFU_SIN,     /**< MUFU.SIN */
	GPUPROJ_SASS_MUFU_COS,     /**< MUFU.COS */
	GPUPROJ_SASS_MUFU_TANH,    /**< MUFU.TANH */
	GPUPROJ_SASS_MUFU_RCP64H,  /**< MUFU.RCP64H: seed of FP64 division / reciprocal */
	GPUPROJ_SASS_MUFU_RSQ64H,  /**< MUFU.RSQ64H: seed of FP64 square root */
	GPUPROJ_SASS_MUFU_OTHER,   /**< any other MUFU function */
	GPUPROJ_SASS_FCHK,         /**< FCHK: FP32 division range check, 0 FLOP */
	GPUPROJ_SASS_HMOV,         /**< HFMA2 used as a move (`HFMA2 Rd, -RZ, RZ, a, b`), 0 FLOP */
	/** FP compare, select, min/max, conversion (FSETP, FSEL, FMNMX, DSETP, F2F, I2F, …): 0 FLOP */
	GPUPROJ_SASS_FP_OTHER,
	GPUPROJ_SASS_OP_COUNT
};

/** @return the instruction name ("FFMA", "MUFU.RCP", "FP other"), or NULL out of range */
const char *gpuproj_sass_op_name(enum gpuproj_sass_op op);
/** @return FLOP per thread instruction of a kind, as the hroof FLOP metric counts them: 0, 1, 2 */
int gpuproj_sass_op_flop(enum gpuproj_sass_op op);

/** Static instruction counts of a set of blocks. */
struct gpuproj_sass_counts {
	/** Instructions of each kind, each block counted once, count */
	uint32_t n[GPUPROJ_SASS_OP_COUNT];
	uint32_t blocks;                   /**< basic blocks in the set, count */
	double flop;                       /**< FLOP of one pass over the set, FLOP */
	/**
	 * Tensor MMA instructions per family (enum gpuproj_tensor_op, index 0
	 * unused) whose shape is in the opcode (gpuproj_tensor_sass_op(),
	 * include/gpuproj/tensor.h), count; not part of `n` or `flop`
	 */
	uint32_t mma[GPUPROJ_TOP_COUNT];
	/** Σ FLOP per warp(group) instruction of those, FLOP (per warp instruction) */
	double mma_flop[GPUPROJ_TOP_COUNT];
	/** tcgen05 MMAs (UTC*MMA): shape in a runtime descriptor, count */
	uint32_t mma_unshaped[GPUPROJ_TOP_COUNT];
};

/** Where the SASS of one architecture came from. */
enum gpuproj_sass_origin {
	GPUPROJ_SASS_FROM_SASS = 0,       /**< the binary's SASS for exactly this architecture */
	/** The binary's SASS of a lower minor of the same major (what the driver runs) */
	GPUPROJ_SASS_FROM_COMPATIBLE = 1,
	GPUPROJ_SASS_FROM_PTX = 2,        /**< compiled by gpuproj from the binary's PTX */
};

/** One kernel on one architecture. Owned by its struct gpuproj_sass. */
struct gpuproj_sass_kernel {
	const char *name;          /**< function name as in the binary (mangled) */
	const char *arch;          /**< architecture analysed, "sm_90" */
	enum gpuproj_sass_origin origin;
	/** Architecture of the image used: 80 for sm_80 SASS, or XY of the PTX's compute_XY */
	int image_arch;
	const char *file;          /**< input file it came from */
	struct gpuproj_sass_counts all;     /**< kernel code except slow paths */
	struct gpuproj_sass_counts special; /**< special blocks (a subset of all) */
	struct gpuproj_sass_counts slow;    /**< slow-path subroutines */
	/** Markers in the special blocks: bit i set when kind i (a MUFU kind or FCHK) occurs. */
	uint32_t special_ops;
	/**
	 * Slow-path subroutines called, without the `$__internal_N_$__cuda_smXX_`
	 * prefix ("div_rn_noftz_f32_slowpath").
	 */
	const char *const *slow_paths;
	size_t n_slow_paths;
	/** Other images with a kernel of this name for this architecture (ignored) */
	size_t duplicates;
};

/** Progress of an analysis: `done` of `total` steps of `phase` ("compiling", "disassembling"). */
typedef void (*gpuproj_sass_progress_fn)(void *userdata, const char *phase, size_t done,
					 size_t total, const char *what);

/** Options of gpuproj_sass_analyze(). Zero-initialise, then set what you need. */
struct gpuproj_sass_options {
	/** Architectures to analyse ("sm_90"); NULL/0: every one with SASS in the inputs. */
	const char *const *archs;
	size_t n_archs;
	/** Parallel tool processes; 0: the number of online CPUs. */
	unsigned jobs;
	/** w of the ratio: slow-path executions per special-function execution, 0..1 (default 0) */
	double slow_path_weight;
	/** Optional progress callback, called from worker threads one at a time. */
	gpuproj_sass_progress_fn progress;
	void *progress_userdata;
};

/** A finished analysis (opaque, immutable). */
struct gpuproj_sass;

/**
 * Analyse the device code of files: executables, shared libraries and
 * objects (their .nv_fatbin and __nv_relfatbin sections), fatbins and
 * cubins. A directory stands for every *.cubin and *.fatbin file in it
 * (sorted by name; the injection library keeps module images so with
 * GPUPROJ_KEEP_CUBINS).
 *
 * An architecture for which an input has neither usable SASS nor PTX, or
 * whose compilation or disassembly fails, is recorded with its reason
 * (gpuproj_sass_arch_status()) and the others are still analysed.
 *
 * @param paths files or directories
 * @param n_paths number of paths (≥ 1)
 * @param opt options or NULL
 * @param[out] ret the analysis, owned by the caller (gpuproj_sass_free())
 * @param[out] reterr optional; the file and the reason on failure
 * @return GPUPROJ_OK;
 *         GPUPROJ_E_INVAL (no paths, bad architecture name, weight outside 0..1);
 *         GPUPROJ_E_IO (a file cannot be read);
 *         GPUPROJ_E_PARSE (malformed container; the message gives the byte offset);
 *         GPUPROJ_E_UNSUPPORTED (not a CUDA binary, or an entry compressed with a codec
 *         this build lacks);
 *         GPUPROJ_E_NOTFOUND (no device code in the inputs; only PTX and no
 *         architecture named; a directory without *.cubin or *.fatbin);
 *         GPUPROJ_E_MISSING (nvdisasm not found: the message says how to get it);
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_sass_analyze(const char *const *paths, size_t n_paths,
			 const struct gpuproj_sass_options *opt, struct gpuproj_sass **ret,
			 struct gpuproj_error *reterr);

/**
 * Same as gpuproj_sass_analyze() on one image in memory (a host ELF,
 * fatbin or cubin). The buffer is not kept.
 * @param name name for messages and gpuproj_sass_kernel.file
 */
int gpuproj_sass_analyze_buffer(const void *data, size_t len, const char *name,
				const struct gpuproj_sass_options *opt, struct gpuproj_sass **ret,
				struct gpuproj_error *reterr);

/** Free an analysis. Accepts NULL. @return NULL */
struct gpuproj_sass *gpuproj_sass_free(struct gpuproj_sass *s);

/** @return the number of architectures analysed or requested */
size_t gpuproj_sass_arch_count(const struct gpuproj_sass *s);
/** @return the i-th architecture ("sm_80"), in request order (else ascending), or NULL */
const char *gpuproj_sass_arch_at(const struct gpuproj_sass *s, size_t i);
/**
 * How an architecture fared.
 * @param[out] ret_note optional: the reason when not GPUPROJ_OK, else a
 *             summary of where its SASS came from ("SASS (1 module)", "PTX
 *             compute_90 compiled with nvJitLink (2 modules)", "…; disassembled
 *             with the CUDA 11.8 nvdisasm" for a legacy one); owned by s
 * @return GPUPROJ_OK; GPUPROJ_E_NOTFOUND (no SASS or PTX for it);
 *         GPUPROJ_E_MISSING (no tool for it: no PTX compiler, or no nvdisasm that
 *         handles sm_70/sm_72; the note says what to install);
 *         GPUPROJ_E_BACKEND (compilation or nvdisasm failed); GPUPROJ_E_INVAL (i out of range)
 */
int gpuproj_sass_arch_status(const struct gpuproj_sass *s, size_t i, const char **ret_note);

/** @return the number of (kernel, architecture) results */
size_t gpuproj_sass_count(const struct gpuproj_sass *s);
/** @return the i-th result, sorted by kernel name then architecture order, or NULL */
const struct gpuproj_sass_kernel *gpuproj_sass_at(const struct gpuproj_sass *s, size_t i);
/**
 * @param arch "sm_90" (a trailing feature letter as in "sm_90a" is ignored)
 * @return the result for a kernel on an architecture, or NULL
 */
const struct gpuproj_sass_kernel *gpuproj_sass_find(const struct gpuproj_sass *s,
						    const char *kernel, const char *arch);

/**
 * Target/source FLOP ratio of a kernel from static counts (formula above).
 *
 * @param kernel function name (mangled, as in profiles)
 * @param src_arch, tgt_arch "sm_XY"
 * @param[out] ret_ratio the ratio (1 when neither has special-function FLOP)
 * @return GPUPROJ_OK; GPUPROJ_E_NOTFOUND (the kernel was not analysed on one of
 *         the architectures); GPUPROJ_E_UNSUPPORTED (the source has no FLOP but the
 *         target's special blocks have some: no ratio exists); GPUPROJ_E_INVAL
 */
int gpuproj_sass_flop_ratio(const struct gpuproj_sass *s, const char *kernel,
			    const char *src_arch, const char *tgt_arch, double *ret_ratio);

/**
 * Target/source FLOP ratio applied to measured FLOP:
 * ratio = 1 + special_passes × (S_t − S_s) / flop_measured.
 *
 * @param flop_measured FLOP per launch measured on the source (> 0)
 * @param special_passes thread-level executions of the special blocks per
 *        launch (e.g. from a SASS trace: thread executions of the MUFU
 *        instructions divided by their static count), ≥ 0
 * @return as gpuproj_sass_flop_ratio(); GPUPROJ_E_INVAL for bad numbers and
 *         when the ratio would not be positive
 */
int gpuproj_sass_flop_ratio_measured(const struct gpuproj_sass *s, const char *kernel,
				     const char *src_arch, const char *tgt_arch,
				     double flop_measured, double special_passes,
				     double *ret_ratio);

/**
 * FLOP per tensor instruction of a kernel's SASS on an architecture: the
 * mean, over its static MMA instructions of one family (each counted once,
 * the `all` blocks), of the FLOP its opcode's shape gives
 * (gpuproj_tensor_sass_op(): HMMA.1688 2,048, HMMA.16816 4,096, …). Each
 * instruction is taken to execute equally often (as assumption 3 above).
 * @param op GPUPROJ_TOP_HMMA, _IMMA or _DMMA
 * @param[out] ret FLOP per warp instruction (per warpgroup one for GMMA)
 * @return GPUPROJ_OK; GPUPROJ_E_NOTFOUND (kernel or architecture not
 *         analysed, or no MMA of the family); GPUPROJ_E_UNSUPPORTED (some
 *         are tcgen05 MMAs, whose shape is a runtime value);
 *         GPUPROJ_E_INVAL (NULL or op out of range)
 */
int gpuproj_sass_mma_flop_per_inst(const struct gpuproj_sass *s, const char *kernel,
				   const char *arch, enum gpuproj_tensor_op op, double *ret);

/**
 * Replace the assumed FLOP per tensor instruction of a profile by the
 * kernels' own SASS: a tensor metric whose attribute says
 * "EXPR * D (assumed: FLOP per instruction of SHAPE)" (libproj.so's
 * metrics.<CHIP>.<metric>, gpuproj import ncu's import.tensor.<metric>)
 * was instructions × D; for each kernel with MMAs of that family in its
 * SASS for `arch`, the metric is scaled by
 * gpuproj_sass_mma_flop_per_inst() / D. The attribute "<key>.sass" then
 * says for how many kernels. Kernels without SASS keep D.
 * @param arch the source GPU's architecture ("sm_80")
 * @param[out] ret_kernels optional: kernel metrics rescaled, count
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL p or arch); GPUPROJ_E_NOMEM
 */
int gpuproj_sass_tensor_rescale(struct gpuproj_profile *p, const struct gpuproj_sass *s,
				const char *arch, size_t *ret_kernels);

/**
 * A gpuproj_model_options.flop_ratio callback: set `flop_ratio_userdata`
 * to a `struct gpuproj_sass *` (which must outlive the projection). Looks
 * the kernel up by k->name on src->arch and tgt->arch.
 * @return the static ratio, or 1 when the kernel, an architecture or a
 *         vendor is not covered, or when the ratio is 0 (every FLOP of the
 *         kernel is in special blocks that have none on the target)
 */
double gpuproj_sass_flop_ratio_cb(void *userdata, const struct gpuproj_kernel *k,
				  const struct gpuproj_target *src,
				  const struct gpuproj_target *tgt);

/**
 * Write an analysis as the `gpuproj sass` table (docs/sass.md): a header
 * naming the source architecture, the weight and each architecture's
 * status, then per kernel one row per architecture of FP instruction
 * counts by kind for all code, the special-function blocks and their slow
 * paths, the FLOP and the target/source FLOP ratio.
 *
 * @param out stream to write
 * @param source the source architecture of the ratios ("sm_70")
 * @param filter only kernels whose name contains this, or NULL for all
 * @param slow_path_weight w of the ratio formula, 0..1
 * @return GPUPROJ_OK or GPUPROJ_E_IO (the stream reports an error)
 */
int gpuproj_sass_write_table(FILE *out, const struct gpuproj_sass *s, const char *source,
			     const char *filter, double slow_path_weight);

/**
 * The same as JSON, schema "gpuproj-sass/1": source_arch,
 * slow_path_weight, formula, archs [{arch, status, note}], kernels [{name,
 * archs: {ARCH: {origin, image_arch, file, all, special, slow (counts by
 * op name, blocks, flop), special_functions, slow_paths, flop_ratio (null
 * when there is none)}}}].
 *
 * @param source,filter,slow_path_weight as for gpuproj_sass_write_table()
 * @param[out] ret_text malloc'd NUL-terminated text ending in a newline
 *             (caller frees); NULL on failure
 * @return GPUPROJ_OK or GPUPROJ_E_NOMEM
 */
int gpuproj_sass_json(const struct gpuproj_sass *s, const char *source, const char *filter,
		      double slow_path_weight, char **ret_text);

/**
 * Find nvdisasm as gpuproj_sass_analyze() does.
 * @param[out] ret malloc'd path (caller frees)
 * @param[out] reterr when missing: "nvdisasm not found … install the CUDA
 *             toolkit's nvdisasm or `pip install nvidia-cuda-nvdisasm`"
 * @return GPUPROJ_OK, GPUPROJ_E_MISSING, GPUPROJ_E_NOMEM
 */
int gpuproj_sass_find_nvdisasm(char **ret, struct gpuproj_error *reterr);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_SASS_H */
