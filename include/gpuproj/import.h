/* SPDX-License-Identifier: MIT */
/**
 * @file import.h
 * Importers: measurements made by other tools turned into gpuproj profiles.
 *
 * - Nsight Compute CSV (`ncu --csv`, long format, and `ncu --csv --page raw`,
 *   wide format), one launch per kernel row, aggregated by signature.
 * - nvprof CSV (`--metrics`, `--events`, `--print-gpu-trace`, the summary),
 *   joined by kernel name.
 * - gpuproj_ncu_metrics(): what to collect with ncu for the default model.
 * - The gpuperfpredict data set (Amaris et al., nvprof metrics of Rodinia
 *   kernels on 9 GPUs; CC BY 4.0), one profile per GPU.
 * - The NeuSight training set (Lee et al.: PyTorch FP32 linear and add
 *   latencies on five GPUs; MIT), one profile per GPU, analytic metrics.
 * - Data sets for validation: profiles, gpuperfpredict and NeuSight files,
 *   told apart by content.
 *
 * Thread safety: reentrant.
 */
#ifndef GPUPROJ_IMPORT_H
#define GPUPROJ_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/error.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>
#include <gpuproj/tensor.h>
#include <gpuproj/timeline.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The citation every report of results on the gpuperfpredict data set must
 * carry (CC BY 4.0). The importer stores it in each profile's "citation"
 * attribute (and "CC BY 4.0" in "license"); validation reports repeat the
 * citations of their profiles.
 */
#define GPUPROJ_CITATION_GPUPERFPREDICT                                                           \
	"Amaris, Camargo, Cordeiro, Goldman, Trystram, A comparison of GPU execution time "        \
	"prediction using machine learning and analytical modeling (NCA 2016); data set "          \
	"marcosamaris/gpuperfpredict"

/**
 * The citation every report of results on the NeuSight training set must
 * carry (MIT licence). The importer stores it in each profile's "citation"
 * attribute (and "MIT" in "license").
 */
#define GPUPROJ_CITATION_NEUSIGHT                                                                 \
	"Lee et al., Forecasting GPU Performance for Deep Learning Training and Inference "        \
	"(NeuSight, ASPLOS 2025); data set sitar-lab/NeuSight@6945927d, "                           \
	"scripts/asplos/data/dataset/train/collect/{linear,add}"

/**
 * The citation of results on XLA's matmul performance table (Apache-2.0):
 * the profiles of gpuproj_import_xla_matmul() carry it in their "citation"
 * attribute (and "Apache-2.0" in "license").
 */
#define GPUPROJ_CITATION_XLA_MATMUL                                                               \
	"OpenXLA, default GPU matmul performance table (matmul_perf_table_gen); "                  \
	"ROCm/xla@ea2c45f2, xla/service/gpu/model/matmul_interpolator_data.h"

/**
 * The citation of every profile made from seed 002's own data set
 * (gpuproj_import_seed002(); no licence stated by its authors).
 */
#define GPUPROJ_CITATION_SEED002                                                                  \
	"Srivastava, Naha, Gupta, Rao, Cross-GPU Performance Prediction Using Analytical Models "  \
	"and Machine Learning (course project report); data set Debdeep23/test1@f808e854, "       \
	"predict-kernel-perf/data/runs_*_final.csv"

/** What an import found. Zero-initialise; release with gpuproj_import_summary_clear(). */
struct gpuproj_import_summary {
	size_t rows;            /**< data rows read (CSV records after headers/units) */
	size_t launches;        /**< kernel launches imported */
	size_t kernels;         /**< distinct kernel signatures */
	size_t kept_metrics;    /**< distinct tool metrics kept unmapped in extra_metrics */
	char **missing;         /**< inputs the default model needs that some kernel lacks
				     (gpuproj_model_missing_in_profile(), one name each) */
	size_t n_missing;
	size_t kernels_missing; /**< kernel signatures lacking at least one of them */
	char **warnings;        /**< one line each: skipped rows, odd units, … */
	size_t n_warnings;
};

/** Free the arrays of a summary; accepts a zeroed struct. */
void gpuproj_import_summary_clear(struct gpuproj_import_summary *s);

/**
 * Import an Nsight Compute CSV export.
 *
 * Accepts the default long format (`ncu --csv`: one row per metric with
 * "ID","Kernel Name",…,"Section Name","Metric Name","Metric Unit",
 * "Metric Value"; ncu 2023+ metric rows may end after "Metric Value") and
 * the raw wide format (`ncu --csv --page raw`: one row per launch, a units
 * row under the header), quoted as ncu writes them or saved again by
 * another tool (unquoted, CRLF). Handles unit scaling
 * (byte/Kbyte/Mbyte/Gbyte, nsecond/usecond/msecond/second, %, …),
 * thousands separators, "==PROF=="/"==WARNING=="/"==ERROR==" lines, the
 * application's output and "n/a" values. Known NVIDIA metric names and the
 * section labels of ncu 2019.5–2025 map to logical metrics
 * (docs/cli/gpuproj-import.md "gpuproj import ncu"; the duration also
 * from elapsed cycles / their rate); the speed-of-light percentages go to
 * extra_metrics under model.h's GPUPROJ_SOL_* names; every other number is
 * kept in extra_metrics, never dropped. Launches without a launch geometry fold by name into a
 * signature tagged GPUPROJ_TAG_NO_GEOMETRY (profile.h).
 *
 * Every stored value is finite and in its documented range: a percentage
 * above 100 by at most 1 (rounding) and a logical ratio above 1 by at most
 * 1 % are clamped with a warning naming file:line:column; anything else out
 * of range is an error. Warnings (summary): a column that appears twice, a
 * raw-layout launch ID of a process seen before (the row is skipped, not
 * counted twice), lines that are not CSV, text-valued settings, launches
 * without geometry, ERR_NVGPUCTRPERM beside data.
 *
 * @param path CSV file ("-" = standard input)
 * @param[out] ret new profile owned by the caller; untouched on failure
 * @param[out] summary optional, zero-initialised by the caller; filled on
 *             success (missing metrics named), untouched on failure
 * @param[out] reterr optional; file:line[:column] for malformed input
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL path or ret); GPUPROJ_E_IO;
 *         GPUPROJ_E_PARSE (empty, not CSV, UTF-16, a NUL byte, malformed
 *         quoting, no header ncu writes, an nvprof export, only ncu's
 *         messages — ERR_NVGPUCTRPERM named with its fix, otherwise ncu's
 *         first error quoted —, a raw export without its units row, a row
 *         that ends before its last needed column or has non-empty fields
 *         beyond the header, a file cut inside its last row, no data rows);
 *         GPUPROJ_E_SCHEMA (a value that is not a number, not finite after
 *         scaling, negative, a percentage above 101, a duration outside (0,
 *         IMPORT_MAX_DURATION_NS = 10^15 ns], a logical value outside its
 *         range, a sum over launches that is not finite, an unknown unit or
 *         one of another kind on a mapped metric, an "ID" that is not a
 *         launch number, unreadable "Grid Size"/"Block Size"/"CC", a
 *         register count or shared-memory size that is not a whole number);
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_import_ncu(const char *path, struct gpuproj_profile **ret,
		       struct gpuproj_import_summary *summary, struct gpuproj_error *reterr);

/**
 * The Nsight Compute metrics whose export gives every input of the default
 * model on a chip (gpuproj ncu-metrics prints the ncu command line): the
 * duration, the nine FP instruction counts, warp efficiency, L1/L2/DRAM
 * bytes (DRAM as read + write), shared-memory wavefronts, the launch
 * geometry, registers and shared memory of the occupancy term, and
 * device__attribute_display_name. The names are those libproj.so resolves
 * on that chip (include/gpuproj/nvmetrics.h); they differ on GB202 … GB207
 * (dram__bytes_op_read.sum / _op_write.sum).
 *
 * @param chip "GH100", "GB202", … (case-insensitive); NULL or unknown: the
 *        names of every other chip
 * @param[out] names up to `max` static strings, or NULL
 * @return the number of metrics (even beyond max)
 */
size_t gpuproj_ncu_metrics(const char *chip, const char **names, size_t max);

/**
 * gpuproj_ncu_metrics() plus the tensor counters libproj.so collects on
 * the chip in `mode` (gpuproj_tensor_metric_names(), include/gpuproj/tensor.h;
 * the same candidates libproj.so resolves with the host API). The tensor
 * counters differ per chip: with `chip` NULL or not in the tensor table,
 * none are added.
 * @param mode GPUPROJ_TENSOR_OPS, _INST or _OFF
 * @param[out] names up to `max` static strings, or NULL
 * @return the number of metrics (even beyond max)
 */
size_t gpuproj_ncu_metrics_tensor(const char *chip, enum gpuproj_tensor_mode mode,
				  const char **names, size_t max);

/**
 * The commands that collect what the default model needs, for the tool and
 * GPU an imported profile came from (attribute "origin" ncu-import or
 * nvprof-import; its device's chip and compute capability, else its
 * targets.yaml entry's): for an Nsight Compute export the ncu line of
 * gpuproj_ncu_metrics() for its chip ("ncu --csv --page raw --metrics …
 * --log-file run.csv ./app   (`gpuproj ncu-metrics --chip GB100` prints
 * it)"); for an nvprof export the trace and metrics lines of nvprof with the
 * metrics its GPU has (the half-precision FLOP counts from CC 5.3) and the
 * import; for a GPU outside the tool's range (nvprof: CC 7.2 and later;
 * ncu: before 7.0) one line saying so, then the other tool's command.
 * Sources: src/import-collect.c.
 *
 * @param ts targets (may be NULL) for a device the profile records no
 *        chip or compute capability of
 * @return malloc'd text, lines separated by '\n' (no final one), owned by
 *         the caller; NULL for a profile of another origin (libproj.so's, a
 *         data set) or out of memory
 */
char *gpuproj_import_collection(const struct gpuproj_profile *p, const struct gpuproj_targets *ts);

/** @return true for a chip gpuproj_ncu_metrics() knows (GV100 … GB207) */
bool gpuproj_ncu_chip_known(const char *chip);

/**
 * Import nvprof CSV exports (`nvprof --csv --metrics …`, `--events …`,
 * `--print-gpu-trace`, the default summary, and the metric trace of
 * `--print-gpu-trace --metrics …`), one or several files of the same run,
 * joined by kernel name: launch configurations and per-launch durations
 * from the GPU trace (else count, mean, min and max from the summary, the
 * geometry unknown: GPUPROJ_TAG_NO_GEOMETRY), metrics (nvprof's averages
 * over a kernel name's invocations) applied to each of the name's
 * configurations. nvprof metric names map to logical metrics by the same
 * table as the gpuperfpredict importer's (src/import-nvprof.h;
 * docs/cli/gpuproj-import.md "gpuproj import nvprof"); others are kept in extra_metrics.
 *
 * @param paths CSV files ("-" = standard input, at most once)
 * @param n_paths number of files (≥ 1)
 * @param targets optional: the GPU's entry (found from device_name, else the
 *        export's "Device" column) gives warp size, compute capability (a
 *        Kepler shared-memory transaction is 256 B) and SM count, and its
 *        name is recorded as device.target; NULL: 32, CC unknown (128-B
 *        transactions, said in a warning), SMs unknown
 * @param device_name optional: the GPU measured on (replaces the export's)
 * @param[out] ret new profile owned by the caller; untouched on failure
 * @param[out] summary optional, zero-initialised; filled on success
 * @param[out] reterr optional; file:line[:column] for malformed input
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (no paths, NULL ret); GPUPROJ_E_IO;
 *         GPUPROJ_E_PARSE (empty, no nvprof header, nvprof's messages only —
 *         ERR_NVGPUCTRPERM named with its fix —, a table without its units
 *         row, a row shorter than its header or with extra fields, no kernel);
 *         GPUPROJ_E_SCHEMA (a value that is not a number of its kind, negative,
 *         outside its range, a duration outside (0, 10^15 ns], unreadable
 *         launch dimensions or sizes); GPUPROJ_E_NOMEM
 */
int gpuproj_import_nvprof(const char *const *paths, size_t n_paths,
			  const struct gpuproj_targets *targets, const char *device_name,
			  struct gpuproj_profile **ret, struct gpuproj_import_summary *summary,
			  struct gpuproj_error *reterr);

/**
 * Import gpuperfpredict CSV files (one per kernel, rows for every GPU of the
 * data set) into one profile per GPU. Each (kernel, input size, launch
 * configuration) becomes a signature whose tag holds the input size; every
 * profile also carries, per signature, the times measured on the other GPUs
 * (reference_ns), so projections can be checked against them. The metric
 * mapping and its caveats are documented at the top of
 * src/import-gpuperfpredict.c (docs/cli/gpuproj-import.md points there).
 *
 * @param paths CSV files
 * @param n_paths number of files
 * @param targets GPU descriptions; every GPU label of the data set must
 *        match an entry (its `match` list), else GPUPROJ_E_NOTFOUND
 * @param[out] ret_profiles new array of new profiles, one per GPU in order
 *        of first appearance; the caller frees each profile and the array;
 *        untouched on failure
 * @param[out] ret_n number of profiles (≥ 1); untouched on failure
 * @param[out] reterr optional; file:line[:column] of the first bad row
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (no paths, n_paths 0, NULL targets or
 *         outputs); GPUPROJ_E_IO; GPUPROJ_E_PARSE (empty file, no
 *         gpu/kernel header, a row with another number of fields, no data
 *         rows); GPUPROJ_E_SCHEMA (a required column missing or empty, a
 *         non-numeric, negative or non-integral value where a count is
 *         needed); GPUPROJ_E_NOTFOUND (a GPU label not in targets);
 *         GPUPROJ_E_NOMEM
 */
int gpuproj_import_gpuperfpredict(const char *const *paths, size_t n_paths,
				  const struct gpuproj_targets *targets,
				  struct gpuproj_profile ***ret_profiles, size_t *ret_n,
				  struct gpuproj_error *reterr);

/**
 * Import the NeuSight training set (Lee et al., ASPLOS 2025: PyTorch FP32
 * `linear` and `add` latencies on several GPUs; MIT licence) into one
 * profile per GPU. No hardware counters exist in the data: every metric is
 * derived analytically from the operator shape, the cuBLAS kernel's tile
 * (from its name) and the launch columns, as documented at the top of
 * src/import-neusight.c; the profiles carry attributes origin "neusight"
 * and metrics "analytic". A signature is (operator, shape): name "linear"
 * or "add", tag "B=…,M=…,N=…,K=…" or "B=…,H=…", with the GPU's own grid and
 * block; every profile carries the times the other GPUs measured for the
 * same (operator, shape) as reference_ns.
 *
 * Durations and reference times are kernel-time estimates, ns: the
 * published call latency minus the GPU's per-call host overhead O_g (CUDA
 * events around a whole PyTorch call), estimated from the GPU's `add` rows
 * as the intercept of a least-squares line of latency on bytes over the
 * larger half of its add shapes in the calibration half of
 * `validate --holdout shape`; for a linear-only import the add rows come
 * from the sibling file <dir>/add/<name>.csv when it exists (read only
 * for this). Derivation and figures: src/import-neusight.c, "Time".
 * Attributes call_overhead_ns (O_g, "0" when not estimated) and
 * call_overhead_basis say what was subtracted and from which data.
 *
 * @param paths CSV files, or directories holding them (a directory's *.csv
 *        files and those of its subdirectories, one level deep, in name
 *        order, e.g. neusight-train/ with linear/ and add/)
 * @param n_paths number of paths
 * @param targets GPU descriptions; every `Device` must match an entry
 * @param[out] ret_profiles new array of new profiles, one per GPU in order
 *        of first appearance; the caller frees each and the array;
 *        untouched on failure
 * @param[out] ret_n number of profiles; untouched on failure
 * @param[out] reterr optional; file:line[:column] of the first bad row
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (no paths, NULL targets or outputs);
 *         GPUPROJ_E_IO; GPUPROJ_E_PARSE (empty file, no OPName/Latency/Device
 *         header, no data rows, a row with another number of fields);
 *         GPUPROJ_E_SCHEMA (a required column missing or empty, a value that
 *         is not a number or not a positive integer where one is needed, an
 *         operator other than linear/add, a linear kernel name whose tile
 *         cannot be read); GPUPROJ_E_NOTFOUND (a device not in targets, or
 *         no CSV file under the paths); GPUPROJ_E_NOMEM. A sibling add/
 *         file read for the overhead fails with the same errors, naming it.
 */
int gpuproj_import_neusight(const char *const *paths, size_t n_paths,
			    const struct gpuproj_targets *targets,
			    struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			    struct gpuproj_error *reterr);

/**
 * The citation of every profile made from Kernel Tuner cache files of the
 * FAIR Benchmark Hub (gpuproj_import_kerneltuner()).
 */
#define GPUPROJ_CITATION_KERNELTUNER \
	"AutoTuningAssociation/benchmark_hub (FAIR Benchmark Hub for Auto-Tuning, MIT): Kernel " \
	"Tuner brute-force cache files, every configuration of a kernel's search space timed " \
	"on one GPU"

/**
 * Import Kernel Tuner brute-force cache files (the decompressed JSON of
 * AutoTuningAssociation/benchmark_hub's cachefiles: every configuration of
 * a tunable kernel timed on one GPU; MIT licence) into one profile per
 * GPU. The files hold times only: every metric is derived analytically
 * from the problem size, the configuration and the kernel's source, for
 * CLBlast's Xgemm and the 2D convolution_kernel (src/import-kerneltuner.c
 * documents each metric); the profiles carry attributes origin
 * "kerneltuner" and metrics "analytic". A signature is (kernel,
 * configuration): name = kernel_name, tag = "P1=v1,…" over the tune
 * parameters; every profile carries the times the other GPUs measured for
 * the same configuration as reference_ns. Configurations without a time
 * (failed to compile or run) are skipped.
 *
 * @param paths JSON files (one GPU and kernel each)
 * @param[out] ret_profiles new array of new profiles, one per GPU in order
 *        of first appearance; untouched on failure
 * @param[out] ret_n number of profiles
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (no paths, NULL targets or outputs);
 *         GPUPROJ_E_PARSE (not JSON, not a cache file, no timed
 *         configuration); GPUPROJ_E_SCHEMA (another kernel, a bad
 *         problem_size or parameter, a configuration the kernel's model
 *         does not describe, an Xgemm file whose K cannot be recovered);
 *         GPUPROJ_E_NOTFOUND (a device not in targets); GPUPROJ_E_NOMEM
 */
int gpuproj_import_kerneltuner(const char *const *paths, size_t n_paths,
			       const struct gpuproj_targets *targets,
			       struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			       struct gpuproj_error *reterr);

/**
 * Import XLA's matmul performance table, converted to CSV by
 * scripts/xla-matmul-csv.py (header `xla_table,gpu,dtype,b,m,n,k,flop_per_s`:
 * tensor-core GEMMs of one shape grid, BF16 and FP8, timed by XLA on
 * several GPUs; tests/data/xla-matmul/README.md), into one profile per GPU.
 * No hardware counters and no launch exist in the data: the FLOP
 * (flop.tensor.bf16 or .fp8, 2·b·m·n·k) and bytes are derived from the
 * shape and data type, the grid is an estimate (128×128 output tiles), as
 * src/import-xla-matmul.c documents; the profiles carry attributes origin
 * "xla-matmul", metrics "analytic", citation GPUPROJ_CITATION_XLA_MATMUL.
 * A signature is name "matmul", tag "<a>x<b>-><c>,b=…,m=…,n=…,k=…"; every
 * profile carries the times the other GPUs measured for it as
 * reference_ns. Durations, ns: 2·b·m·n·k / flop_per_s · 10⁹ (XLA's median
 * kernel time).
 *
 * @param paths CSV files
 * @param n_paths number of paths (≥ 1)
 * @param targets GPU descriptions; every `gpu` must name or match an entry
 * @param[out] ret_profiles new array of new profiles, one per GPU in order
 *        of first appearance; the caller frees each and the array;
 *        untouched on failure
 * @param[out] ret_n number of profiles; untouched on failure
 * @param[out] reterr optional; file:line[:column] of the first bad row
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (no paths, NULL targets or outputs);
 *         GPUPROJ_E_IO; GPUPROJ_E_PARSE (empty file, no data rows, a row
 *         with another number of fields); GPUPROJ_E_SCHEMA (a column of
 *         the header missing, an empty gpu, a value that is not a positive
 *         number or, for b, m, n, k, not a positive integer, a data type
 *         other than those of the file comment); GPUPROJ_E_NOTFOUND (a GPU
 *         not in targets); GPUPROJ_E_NOMEM
 */
int gpuproj_import_xla_matmul(const char *const *paths, size_t n_paths,
			      const struct gpuproj_targets *targets,
			      struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			      struct gpuproj_error *reterr);

/**
 * Import seed 002's own data set (Srivastava, Naha, Gupta, Rao: 16 CUDA
 * kernels at up to four sizes, CUDA-event times on the RTX 2080 Ti, RTX
 * 4070, TITAN V and GTX TITAN X; Debdeep23/test1, no licence stated) into
 * one profile per GPU. No hardware counters exist in the data: every
 * metric is derived from the authors' static counts (FLOPs, an FMA
 * counting 2; nominal BYTES), the working set and the launch columns, as
 * src/import-seed002.c documents (DRAM bytes: the nominal traffic times
 * the share of the working set the GPU's L2 cannot keep between launches,
 * gpuproj_l2_hit_share(), model.h); the profiles carry attributes origin
 * "seed002", metrics "analytic" and citation GPUPROJ_CITATION_SEED002. A
 * signature is name = kernel, tag "N=…,rows=…,cols=…,iters=…" (empty and
 * absent fields 0), block = the file's block, grid = the GPU's own;
 * configurations are joined across GPUs on kernel, tag and block (the key
 * of the seed's evaluation), and every profile carries the times the
 * other GPUs measured as reference_ns. Durations, ns: mean_ms × 10⁶.
 *
 * @param paths CSV files (header starting `kernel,regs,shmem,`), or
 *        directories whose *.csv files are read in name order
 * @param n_paths number of paths (≥ 1)
 * @param targets GPU descriptions; every `gpu_device_name` must match an entry
 * @param[out] ret_profiles new array of new profiles, one per GPU in order
 *        of first appearance; the caller frees each and the array;
 *        untouched on failure
 * @param[out] ret_n number of profiles; untouched on failure
 * @param[out] reterr optional; file:line[:column] of the first bad row
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (no paths, NULL targets or outputs);
 *         GPUPROJ_E_IO; GPUPROJ_E_PARSE (empty file, no kernel/mean_ms/
 *         gpu_device_name header, no data rows, a row with another number
 *         of fields); GPUPROJ_E_SCHEMA (a required column missing, an
 *         empty kernel or device, a value that is not a non-negative
 *         number or, for counts and sizes, not a whole number, a block or
 *         grid of 0, a mean outside (0, 10⁹] ms, FLOPs > 0 for a kernel
 *         whose FP operation is unknown, a configuration listed twice for
 *         one GPU); GPUPROJ_E_NOTFOUND (a device not in targets, no CSV
 *         file in a directory); GPUPROJ_E_NOMEM
 */
int gpuproj_import_seed002(const char *const *paths, size_t n_paths,
			   const struct gpuproj_targets *targets,
			   struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			   struct gpuproj_error *reterr);

/**
 * Patterns an Nsight Systems import keeps per profile (the whole export is
 * at hand, so the bound is a merged profile's, not a recording's).
 */
#define GPUPROJ_NSYS_MAX_PATTERNS GPUPROJ_TL_MAX_MERGED
/** Nodes of all patterns of one imported profile: 16 recordings' worth. */
#define GPUPROJ_NSYS_MAX_NODES (16 * GPUPROJ_TL_MAX_TOTAL_NODES)
/** Nsight Systems export schema majors the importer knows (EXPORT_SCHEMA_VERSION). */
#define GPUPROJ_NSYS_SCHEMA_MIN 2
/** The newest known major; a newer export is refused (its tables may mean otherwise). */
#define GPUPROJ_NSYS_SCHEMA_MAX 3

/** How the counters of Nsight Compute exports joined an Nsight Systems import. */
struct gpuproj_nsys_join {
	size_t kernels;        /**< kernel signatures of the imported profiles */
	size_t joined;         /**< of them, those that got counters */
	size_t by_launch_order; /**< of joined, decided by launch order (ambiguous by name) */
	size_t unjoined_ncu;   /**< Nsight Compute kernels that joined no signature */
};

/** Options of gpuproj_import_nsys(). Zero-initialise. */
struct gpuproj_nsys_options {
	/**
	 * Profiles of Nsight Compute exports of the same application
	 * (gpuproj_import_ncu()), borrowed: their metrics and extra metrics join
	 * each imported signature (see gpuproj_import_nsys()).
	 */
	const struct gpuproj_profile *const *counters;
	size_t n_counters;
};

/**
 * Import an Nsight Systems SQLite export (`nsys export --type sqlite
 * REPORT.nsys-rep`): one profile per (GPU, process) that ran kernels, in
 * order of their first kernel, each with its kernels (mangled and demangled
 * name, grid, block, registers, static and dynamic shared memory, every
 * launch's duration) and its whole-run timeline (timeline.h: the runtime
 * and driver calls of each thread, copies, sets, synchronisations, event
 * records and waits, streams; the same form libproj.so records, bounded by
 * GPUPROJ_NSYS_MAX_PATTERNS and GPUPROJ_NSYS_MAX_NODES), so that `project`,
 * `report`, `gate` and `merge` read it as they read libproj.so's. Columns
 * are read by name (PRAGMA table_info), so every export schema of major
 * GPUPROJ_NSYS_SCHEMA_MIN to _MAX reads; tables an export lacks because
 * nothing of their kind was recorded are empty, not errors. The rules
 * (which call is which op, which records join which call, which thread's
 * calls go to which GPU) are in src/import-nsys.c's file comment.
 *
 * An Nsight Systems report times kernels and calls and counts nothing:
 * kernels carry no metrics unless `opt->counters` joins them, by kernel
 * name (mangled, demangled or Nsight Systems' short name, against the Nsight
 * Compute export's "Kernel Name"), grid, block and dynamic shared memory,
 * then name, grid and block, then name alone for a counter kernel without
 * geometry; a counter kernel that matches several signatures that way joins
 * the one launched first (launch order: Nsight Compute profiles launches
 * from the first), the others stay without (counted in `join`).
 *
 * The file is read whole (the input size limit applies; "-" reads standard
 * input) and opened in memory, read-only.
 *
 * @param path the .sqlite file ("-" = standard input)
 * @param opt options, or NULL
 * @param[out] ret_profiles a new array of new profiles (the caller frees
 *        each and the array); untouched on failure
 * @param[out] ret_n how many (≥ 1)
 * @param[out] summary optional, zero-initialised: rows read (kernel,
 *        API, copy, set, synchronisation and event records), launches,
 *        signatures (over every profile), warnings (GPU records no call
 *        claimed, a thread whose calls went to several GPUs, no runtime
 *        table: no timeline); filled on success
 * @param[out] join optional: what the counters joined; filled on success
 * @param[out] reterr optional; names the file and, for a bad value, its
 *        table, row (rowid) and column
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (NULL path or outputs);
 *         GPUPROJ_E_IO, GPUPROJ_E_LIMIT (larger than the input limit);
 *         GPUPROJ_E_PARSE (not an SQLite database; SQLite cannot read it);
 *         GPUPROJ_E_SCHEMA (an SQLite database that is no Nsight Systems
 *         export, an export schema newer than GPUPROJ_NSYS_SCHEMA_MAX or
 *         older than _MIN, a table without a column it needs, a value out
 *         of its range: a time below 0 or an end before its start, a
 *         dimension or size that is not a 32-bit count, a string id
 *         StringIds lacks); GPUPROJ_E_NOTFOUND (no kernel record: the
 *         report was taken without CUDA tracing); GPUPROJ_E_UNSUPPORTED
 *         (this gpuproj was built without SQLite); GPUPROJ_E_NOMEM
 */
int gpuproj_import_nsys(const char *path, const struct gpuproj_nsys_options *opt,
			struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			struct gpuproj_import_summary *summary, struct gpuproj_nsys_join *join,
			struct gpuproj_error *reterr);

/**
 * Load data sets (for validation, include/gpuproj/validate.h), detecting
 * each file's kind by content: a gpuproj profile JSON starts with '{'
 * (after blanks and a UTF-8 BOM); a gpuperfpredict CSV has a first line
 * starting with `gpu,kernel,` (fields optionally quoted); a NeuSight CSV
 * has a first line starting with `OPName,Latency,Device,`; an XLA matmul
 * CSV with `xla_table,gpu,dtype,`; a seed 002 CSV with `kernel,regs,shmem,`.
 * All CSV files of one kind are imported together with
 * gpuproj_import_gpuperfpredict(), gpuproj_import_neusight(),
 * gpuproj_import_xla_matmul() or gpuproj_import_seed002() (one profile per
 * GPU, with references between
 * them); their profiles take the place of the first CSV of that kind in the
 * order of `paths`. A profile JSON of origin
 * "gpuperfpredict" without a "citation" attribute gets
 * GPUPROJ_CITATION_GPUPERFPREDICT and license "CC BY 4.0".
 *
 * @param paths files (standard input is not accepted)
 * @param n_paths number of files (≥ 1)
 * @param targets GPU descriptions (for the CSV import)
 * @param[out] ret_profiles new array of new profiles; the caller frees each
 *             profile and the array; untouched on failure
 * @param[out] ret_n number of profiles
 * @param[out] reterr optional; names the file (and line) at fault
 * @return GPUPROJ_OK; GPUPROJ_E_INVAL (no paths, "-"); GPUPROJ_E_IO (a file
 *         cannot be read); GPUPROJ_E_PARSE ("FILE: not a data set: …" for a
 *         file of neither kind, and the syntax errors of the loaders);
 *         GPUPROJ_E_SCHEMA, GPUPROJ_E_NOTFOUND (a data-set GPU label not in
 *         targets), GPUPROJ_E_NOMEM as from gpuproj_profile_load() and
 *         gpuproj_import_gpuperfpredict()
 */
int gpuproj_import_datasets(const char *const *paths, size_t n_paths,
			    const struct gpuproj_targets *targets,
			    struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			    struct gpuproj_error *reterr);

#ifdef __cplusplus
}
#endif

#endif /* GPUPROJ_IMPORT_H */
