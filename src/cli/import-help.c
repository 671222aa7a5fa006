/* SPDX-License-Identifier: MIT */
/*
 * The help texts of `gpuproj import` and of each of its sources
 * (cmd-import.c's options; docs/cli/gpuproj-import.md).
 */
#include "config.h"

#include <stdio.h>

#include "cli.h"
#include "import-help.h"

void
import_help(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import ncu [options] FILE.csv|FILE.ncu-rep -o OUT.json\n"
		"       gpuproj import nvprof [options] FILE.csv... -o OUT.json\n"
		"       gpuproj import nsys [--ncu FILE.csv]... FILE.sqlite -o OUT.json|DIR/\n"
		"       gpuproj import gpuperfpredict [--targets FILE] FILE.csv... -o DIR\n"
		"       gpuproj import neusight [--targets FILE] DIR|FILE.csv... -o DIR\n"
		"       gpuproj import xla-matmul [--targets FILE] FILE.csv... -o DIR\n"
		"       gpuproj import kerneltuner [--targets FILE] FILE.json... -o DIR\n"
		"       gpuproj import seed002 [--targets FILE] DIR|FILE.csv... -o DIR\n\n"
		"Convert measurements made by other tools into gpuproj profiles\n"
		"(gpuproj-profile/1 JSON) for `gpuproj project`.\n\n"
		"ncu             an Nsight Compute export: `ncu --csv` (one row per metric),\n"
		"                `ncu --csv --page raw` (one row per launch), or a .ncu-rep\n"
		"                report (exported with ncu when ncu is on PATH)\n"
		"nvprof          nvprof CSV exports: `--metrics`, `--events`, `--print-gpu-trace`,\n"
		"                the summary; several files of one run are joined by kernel name\n"
		"nsys            an Nsight Systems report exported to SQLite (or a .nsys-rep):\n"
		"                kernels and the whole-run timeline, one profile per GPU and\n"
		"                process; --ncu joins an Nsight Compute export's counters\n"
		"gpuperfpredict  CSV files of the gpuperfpredict data set: one profile per GPU\n"
		"neusight        the NeuSight training set (FP32 linear and add latencies): one\n"
		"                profile per GPU, metrics derived analytically from the shapes\n"
		"xla-matmul      XLA's matmul performance table as CSV (tensor-core GEMMs, BF16\n"
		"                and FP8, on several GPUs): one profile per GPU, analytic metrics\n"
		"kerneltuner     Kernel Tuner brute-force cache files (benchmark_hub: Xgemm,\n"
		"                convolution_kernel): one profile per GPU, analytic metrics\n"
		"seed002         seed 002's own data set (16 CUDA kernels, CUDA-event times on\n"
		"                four GPUs): one profile per GPU, metrics from its static "
		"counts\n\n"
		"Every source takes -q, --quiet (no summary, no progress; warnings stay) and\n"
		"--progress auto|always|never (progress while the profiles are written).\n\n"
		"`gpuproj import ncu --help` (nvprof, nsys, gpuperfpredict, neusight,\n"
		"xla-matmul, kerneltuner, seed002) tells more; `gpuproj ncu-metrics` prints the\n"
		"ncu command that "
		"collects what the default model needs.\n");
	cli_print_exit_status(f, "import");
}

void
import_help_ncu(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import ncu [--device-name NAME [--force]] [--targets FILE]\n"
		"                          FILE.csv|FILE.ncu-rep -o OUT.json\n\n"
		"Read an Nsight Compute export and write a gpuproj profile.\n"
		"FILE.csv is what `ncu --csv … > FILE.csv` or `ncu -i REPORT.ncu-rep --csv\n"
		"[--page raw]` prints (\"-\" reads standard input); ==PROF== lines and output\n"
		"of the application are skipped; a file saved again by another tool (fields\n"
		"unquoted, CRLF) is read too. A FILE.ncu-rep is exported with\n"
		"`ncu --import FILE.ncu-rep --csv --page raw` when ncu is on PATH. Every launch\n"
		"of one kernel with the same grid, block and dynamic shared memory folds into\n"
		"one record. Known NVIDIA metrics and section labels become gpuproj's logical\n"
		"metrics (docs/cli/gpuproj-import.md); every other number is kept under\n"
		"extra_metrics.\n\n"
		"Collect everything the default model needs with the command that\n"
		"`gpuproj ncu-metrics [--chip NAME]` prints. An export of the default\n"
		"sections only (SpeedOfLight, LaunchStats, Occupancy) is projected by the\n"
		"coarser sol model; the summary says which kernels.\n\n"
		"Options:\n"
		"  --device-name NAME  the GPU the file was measured on, when the file does not\n"
		"                      name it (no device__attribute_display_name metric and\n"
		"                      no attributes that identify it); an error when it\n"
		"                      contradicts the export's own device, unless --force\n"
		"  --force             use --device-name even against the export's device\n"
		"  --targets FILE      GPU descriptions to check the GPU against (default:\n"
		"                      $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output FILE   the profile to write (\"-\" = standard output); written\n"
		"                      atomically, and not at all when the import fails\n"
		"  -h, --help          show this help\n\n"
		"A summary goes to standard error: rows, launches, kernel signatures, metrics\n"
		"kept unmapped, the GPU and whether targets.yaml knows it, warnings, the inputs\n"
		"of the default model no launch had, and the kernels a fallback will project.\n\n");
	cli_print_shared_help(f);
	cli_print_exit_status(f, "import");
}

void
import_help_nvprof(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import nvprof [--device-name NAME [--force]] [--targets FILE]\n"
		"                             FILE.csv... -o OUT.json\n\n"
		"Read nvprof CSV exports of one run and write a gpuproj profile:\n"
		"  nvprof --csv --print-gpu-trace --log-file trace.csv ./app   launches, durations\n"
		"  nvprof --csv --metrics LIST --log-file metrics.csv ./app    metrics per kernel\n"
		"and also `--events`, the default summary (`nvprof --csv`) and per-launch metrics\n"
		"(`--print-gpu-trace --metrics`). Files are joined by kernel name; a kernel's\n"
		"metrics (nvprof's averages over its invocations) apply to each of its launch\n"
		"configurations. nvprof metric names map to logical metrics by the table the\n"
		"gpuperfpredict importer uses (docs/cli/gpuproj-import.md).\n\n"
		"Options:\n"
		"  --device-name NAME  the GPU measured on (default: the export's \"Device\"); an\n"
		"                      error when it contradicts that, unless --force\n"
		"  --force             use --device-name even against the export's \"Device\"\n"
		"  --targets FILE      GPU descriptions: the GPU's entry gives its compute\n"
		"                      capability (Kepler shared-memory transactions are 256 B)\n"
		"                      and SM count (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output FILE   the profile to write (\"-\" = standard output)\n"
		"  -h, --help          show this help\n\n");
	cli_print_shared_help(f);
	cli_print_exit_status(f, "import");
}

void
import_help_gpp(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import gpuperfpredict [--targets FILE] FILE.csv... -o DIR\n\n"
		"Read CSV files of the gpuperfpredict data set (Amaris et al.: nvprof metrics\n"
		"of Rodinia kernels on 9 GPUs; CC BY 4.0) and write one profile per GPU to\n"
		"DIR/<GPU name>.json. Each profile also carries the times measured on the\n"
		"other GPUs, so `gpuproj validate` can check projections against them.\n\n"
		"Options:\n"
		"  --targets FILE      GPU descriptions; every GPU of the data set must match an\n"
		"                      entry (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output DIR    directory for the profiles (created when missing)\n"
		"  -h, --help          show this help\n\n");
	cli_print_shared_help(f);
	cli_print_exit_status(f, "import");
}

void
import_help_xla(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import xla-matmul [--targets FILE] FILE.csv... -o DIR\n\n"
		"Read XLA's default GPU matmul performance table, converted to CSV by\n"
		"scripts/xla-matmul-csv.py (header xla_table,gpu,dtype,b,m,n,k,flop_per_s;\n"
		"tests/data/xla-matmul holds it for H100, B200, MI300X and MI355X; OpenXLA,\n"
		"Apache-2.0), and write one profile per GPU to DIR/<GPU name>.json. The table\n"
		"has no counters and no launch: the tensor FLOP (flop.tensor.bf16 or .fp8,\n"
		"2*b*m*n*k), the bytes per level and an estimated grid (128x128 output tiles)\n"
		"are derived from the shape and data type (src/import-xla-matmul.c says how);\n"
		"the profiles are labelled analytic. Each profile carries the times the other\n"
		"GPUs measured for the same GEMM, so `gpuproj validate` can check projections\n"
		"against them.\n\n"
		"Options:\n"
		"  --targets FILE      GPU descriptions; every `gpu` of the table must name or\n"
		"                      match an entry (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output DIR    directory for the profiles (created when missing)\n"
		"  -h, --help          show this help\n\n");
	cli_print_shared_help(f);
	cli_print_exit_status(f, "import");
}

void
import_help_neu(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import neusight [--targets FILE] DIR|FILE.csv... -o DIR\n\n"
		"Read the NeuSight training set (Lee et al., ASPLOS 2025: PyTorch FP32\n"
		"`linear` and `add` latencies on several GPUs; MIT) and write one profile per\n"
		"GPU to DIR/<GPU name>.json. A directory argument reads its *.csv files and\n"
		"those of its subdirectories (neusight-train/linear, neusight-train/add). The\n"
		"data set has no hardware counters: FLOP, bytes per level, shared-memory\n"
		"wavefronts, instruction counts and the launch resources are derived from the\n"
		"operator shape and the cuBLAS kernel's tile (src/import-neusight.c says how),\n"
		"and the profiles are labelled analytic (attribute metrics = analytic). A\n"
		"kernel signature is the operator and its shape (cuBLAS picks another kernel\n"
		"on each GPU); each profile carries the times the other GPUs measured, so\n"
		"`gpuproj validate` can check projections against them. Durations are kernel\n"
		"times: each call latency minus the GPU's per-call host overhead, estimated\n"
		"from its `add` rows (with a linear-only import, from the sibling\n"
		"add/<name>.csv); the summary and the attributes call_overhead_ns and\n"
		"call_overhead_basis say how much and from what.\n\n"
		"Options:\n"
		"  --targets FILE      GPU descriptions; every `Device` of the data set must\n"
		"                      match an entry (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output DIR    directory for the profiles (created when missing)\n"
		"  -h, --help          show this help\n\n");
	cli_print_shared_help(f);
	cli_print_exit_status(f, "import");
}

void
import_help_kt(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import kerneltuner [--targets FILE] FILE.json... -o DIR\n\n"
		"Read Kernel Tuner brute-force cache files (AutoTuningAssociation/benchmark_hub,\n"
		"MIT: every configuration of a kernel's search space timed on one GPU;\n"
		"decompress the repository's .json.gz first) and write one profile per GPU to\n"
		"DIR/<GPU name>.json. One configuration is one kernel signature (tag = its\n"
		"tune parameters); each profile carries the times the other GPUs measured for\n"
		"it. The files hold times only: FLOP, bytes per level, shared-memory\n"
		"wavefronts, instruction counts and the launch are derived from the problem\n"
		"size, the configuration and the kernel's source for CLBlast's Xgemm and the\n"
		"2D convolution_kernel (src/import-kerneltuner.c says how); other kernels are\n"
		"refused. The profiles are labelled analytic.\n\n"
		"Options:\n"
		"  --targets FILE      GPU descriptions; every device_name must match an entry\n"
		"                      (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output DIR    directory for the profiles (created when missing)\n"
		"  -h, --help          show this help\n\n");
	cli_print_shared_help(f);
	cli_print_exit_status(f, "import");
}

void
import_help_s2(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import seed002 [--targets FILE] DIR|FILE.csv... -o DIR\n\n"
		"Read seed 002's own data set (Srivastava, Naha, Gupta, Rao, Cross-GPU\n"
		"Performance Prediction Using Analytical Models and Machine Learning;\n"
		"Debdeep23/test1 predict-kernel-perf/data/runs_*_final.csv: 16 CUDA kernels at\n"
		"up to four sizes, CUDA-event times on the RTX 2080 Ti, RTX 4070, TITAN V and\n"
		"GTX TITAN X) and write one profile per GPU to DIR/<GPU name>.json. A\n"
		"directory argument reads its *.csv files. The data set has no hardware\n"
		"counters: FP instructions, bytes per level and instruction counts come from the\n"
		"authors' static counts (an FMA is 2 FLOP; BYTES nominal), DRAM bytes from the\n"
		"share of the working set the GPU's L2 cannot keep between the repeated\n"
		"launches (src/import-seed002.c says how), and the profiles are labelled\n"
		"analytic. A kernel signature is the kernel, its sizes (N, rows, cols, iters)\n"
		"and its block, as the seed's own evaluation joins them; each profile carries\n"
		"the times the other GPUs measured, for `gpuproj validate`.\n\n"
		"Options:\n"
		"  --targets FILE      GPU descriptions; every gpu_device_name must match an\n"
		"                      entry (default: $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output DIR    directory for the profiles (created when missing)\n"
		"  -h, --help          show this help\n\n");
	cli_print_shared_help(f);
	cli_print_exit_status(f, "import");
}

void
import_help_nsys(FILE *f)
{
	fprintf(f,
		"Usage: gpuproj import nsys [--ncu FILE.csv|FILE.ncu-rep]... [--targets FILE]\n"
		"                           FILE.sqlite|FILE.nsys-rep -o OUT.json|DIR\n\n"
		"Read an Nsight Systems report exported to SQLite (`nsys export --type sqlite\n"
		"REPORT.nsys-rep`; a .nsys-rep is exported with nsys when nsys is on PATH) and\n"
		"write one gpuproj profile per GPU and process that ran kernels: the kernels\n"
		"(name, grid, block, registers, shared memory, every launch's duration) and\n"
		"the whole-run timeline (CUDA calls per thread, copies, sets,\n"
		"synchronisations, events, streams), as libproj.so records them, for\n"
		"`gpuproj project`, `report`, `gate --metric wall` and `merge`.\n\n"
		"Nsight Systems counts nothing: without --ncu every kernel is projected by the\n"
		"envelope of the target's FP32 and DRAM ceilings (assumed: binding unknown).\n"
		"--ncu joins the counters of an Nsight Compute export of the same application\n"
		"(`gpuproj ncu-metrics` prints the command) by kernel name, grid, block and\n"
		"dynamic shared memory, then name, grid and block, then name; where that is\n"
		"ambiguous, by launch order.\n\n"
		"Options:\n"
		"  --ncu FILE          an Nsight Compute export (as `gpuproj import ncu` reads\n"
		"                      it); repeatable\n"
		"  --targets FILE      GPU descriptions to check the GPU against (default:\n"
		"                      $GPUPROJ_TARGETS, else built-in)\n"
		"  -o, --output PATH   the profile to write; a directory (existing, or PATH\n"
		"                      ending in '/') gets one "
		"DIR/<application>-<pid>-gpu<N>.json\n"
		"                      per GPU and process, and is needed when the report holds\n"
		"                      several. Written atomically, nothing when the import fails\n"
		"  -h, --help          show this help\n\n");
	cli_print_shared_help(f);
	cli_print_exit_status(f, "import");
}
