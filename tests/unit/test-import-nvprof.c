/* SPDX-License-Identifier: MIT */
/*
 * nvprof import (gpuproj_import_nvprof(), src/import-nvprof.c) and its
 * one metric mapping, shared with the gpuperfpredict importer.
 *
 * Fixtures (tests/data/nvprof-*.csv, numbers made up) follow the layouts
 * of the CUDA Profiler User's Guide ("nvprof", `--csv`) as exports
 * committed to public repositories show them:
 * - nvprof-metrics.csv: `nvprof --csv --metrics …` ("Metric result:"
 *   table: "Device","Kernel","Invocations","Metric Name","Metric
 *   Description","Min","Max","Avg", values with their unit attached —
 *   "61.775GB/s", "96.875000%" —, ==PID== lines and the application's
 *   output around it);
 * - nvprof-trace.csv: `nvprof --csv --print-gpu-trace` of CUDA 8–9 (no
 *   SrcMemType or Correlation_ID columns, " [118]" after each kernel name,
 *   the units row "ms,us,,,,,,,,KB,B,MB,GB/s,,,,", memory copies);
 * - nvprof-summary.csv: the default `nvprof --csv` ("GPU activities" and
 *   "API calls" in one table, the units row ",%,us,,us,us,us,").
 * Inline inputs: `--events` ("Event Name", "Total"), the metric trace of
 * `--print-gpu-trace --metrics`, ERR_NVGPUCTRPERM, bad input.
 */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/profile.h>
#include <gpuproj/target.h>

#include "common.h"
#include "import-nvprof.h"

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))
#define assert_near(actual, expected)                                                    \
	do {                                                                             \
		double a_ = (actual), e_ = (expected);                                   \
		ck_assert_msg(fabs(a_ - e_) <= 1e-9 * fmax(1.0, fabs(e_)),               \
			      "%s = %.17g, expected %.17g", #actual, a_, e_);            \
	} while (0)

static char *dir;
static struct gpuproj_targets *targets;

static void
setup(void)
{
	struct gpuproj_error err = { 0 };

	dir = test_tmpdir();
	ck_assert_int_eq(gpuproj_targets_load_builtin(&targets, &err), 0);
}

static void
teardown(void)
{
	test_rmtree(dir);
	free(dir);
	dir = NULL;
	targets = gpuproj_targets_free(targets);
}

static struct gpuproj_profile *
import_ok(const char *const *paths, size_t n, struct gpuproj_import_summary *sum)
{
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };
	char buf[2048];

	ck_assert_msg(gpuproj_import_nvprof(paths, n, targets, NULL, &p, sum, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	return p;
}

static struct gpuproj_kernel *
kernel(const struct gpuproj_profile *p, const char *name, uint32_t gx, uint32_t gy)
{
	size_t i;

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (strcmp(k->name, name) == 0 && k->grid.x == gx && k->grid.y == gy)
			return k;
	}
	ck_abort_msg("no kernel %s with grid (%u, %u)", name, gx, gy);
	return NULL;
}

static const struct gpuproj_extra_metric *
extra(const struct gpuproj_kernel *k, const char *name)
{
	size_t i;

	for (i = 0; i < k->n_extra; i++) {
		if (strcmp(k->extra[i].name, name) == 0)
			return &k->extra[i];
	}
	ck_abort_msg("no extra metric %s", name);
	return NULL;
}

static bool
warned(const struct gpuproj_import_summary *sum, const char *needle)
{
	size_t i;

	for (i = 0; i < sum->n_warnings; i++) {
		if (strstr(sum->warnings[i], needle))
			return true;
	}
	return false;
}

#define STENCIL "stencil5(float const *, float*, int)"

/*
 * stencil5's metrics: t_prof = 32 B × 65568 L2 reads / 40.98 GB/s; L1 bytes
 * = (61.775 + 12.350) GB/s × t_prof; DRAM = 32 × (32900 + 32768).
 */
static void
assert_stencil_metrics(const struct gpuproj_kernel *k)
{
	double t_prof = 32.0 * 65568 / 40.98e9;

	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_INST_FP32_FMA), 1310720);
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_INST_FP32_ADD), 524288);
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_INST_FP32_MUL), 262144);
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_WARP_EFFICIENCY), 0.96875);
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_L1), (61.775 + 12.350) * 1e9 * t_prof);
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_L2), 32.0 * (65568 + 32768));
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM_READ), 32.0 * 32900);
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM_WRITE), 32.0 * 32768);
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_BYTES_DRAM), 32.0 * (32900 + 32768));
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS), 0);
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_OCCUPANCY_ACHIEVED), 0.872889);
	/* Unmapped metrics keep nvprof's name and unit. */
	assert_near(extra(k, "stall_memory_dependency")->sum / extra(k, "stall_memory_dependency")->n,
		    23.197216);
	ck_assert_str_eq(extra(k, "stall_memory_dependency")->unit, "%");
	ck_assert_str_eq(extra(k, "issued_ipc")->unit, "");
}

START_TEST(metrics_alone)
{
	const char *files[] = { test_data("nvprof-metrics.csv") };
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(files, 1, &sum);
	struct gpuproj_kernel *k = kernel(p, STENCIL, 1, 1);

	/* Without a trace: no geometry (tagged), no duration, the invocations as launches. */
	ck_assert_str_eq(k->tag, GPUPROJ_TAG_NO_GEOMETRY);
	ck_assert_uint_eq(k->launches, 4);
	ck_assert_uint_eq(k->duration_ns.n, 0);
	assert_stencil_metrics(k);
	/* The GPU from the "Device" column, its targets.yaml entry found. */
	ck_assert_str_eq(gpuproj_profile_device(p)->name, "Tesla K40c");
	ck_assert_str_eq(gpuproj_profile_device(p)->target, "Tesla-K40");
	ck_assert_int_eq(gpuproj_profile_device(p)->cc_major, 3);
	ck_assert_str_eq(gpuproj_profile_attr(p, "origin"), "nvprof-import");
	ck_assert(warned(&sum, "no GPU trace (nvprof --csv --print-gpu-trace)"));
	ck_assert_str_eq(sum.missing[0], "duration");
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

/*
 * The tensor units' utilisation levels of a CC 7.0 export ("Mid (6)", as
 * nvprof prints every *_utilization metric) give tensor.utilization: the
 * busier unit's level / 10; other levels stay unmapped text. A level that
 * is not one is an error naming the metric.
 */
START_TEST(tensor_levels)
{
#define V100_ROW "\"Tesla V100-SXM2-16GB (0)\",\"volta_h884gemm\",2,"
	static const char text[] =
		"==1== Metric result:\n"
		"\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\","
		"\"Min\",\"Max\",\"Avg\"\n"
		V100_ROW "\"tensor_precision_fu_utilization\",\"\",\"Mid (5)\",\"High (7)\","
		"\"Mid (6)\"\n"
		V100_ROW "\"tensor_int_fu_utilization\",\"\",\"Idle (0)\",\"Idle (0)\","
		"\"Idle (0)\"\n"
		V100_ROW "\"shared_utilization\",\"Shared Memory Utilization\",\"Low (1)\","
		"\"Low (1)\",\"Low (1)\"\n";
	static const char bad[] =
		"==1== Metric result:\n"
		"\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\","
		"\"Min\",\"Max\",\"Avg\"\n"
		V100_ROW "\"tensor_int_fu_utilization\",\"\",\"Idle (0)\",\"Idle (0)\","
		"\"Mid (x)\"\n";
#undef V100_ROW
	char *path = test_write_file(dir, "tensor.csv", text);
	const char *files[] = { path };
	struct gpuproj_profile *p = import_ok(files, 1, NULL);
	struct gpuproj_kernel *k = kernel(p, "volta_h884gemm", 1, 1);
	struct gpuproj_error err = { 0 };

	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_TENSOR_UTILIZATION), 0.6);
	ck_assert_uint_eq(k->metric_n[GPUPROJ_M_FLOP_TENSOR_FP16], 0); /* no FLOP from nvprof */
	ck_assert_uint_eq(k->n_extra, 0); /* shared_utilization: a level, not kept */
	gpuproj_profile_free(p);
	free(path);
	path = test_write_file(dir, "tensor-bad.csv", bad);
	files[0] = path;
	p = NULL;
	ck_assert_int_eq(gpuproj_import_nvprof(files, 1, targets, NULL, &p, NULL, &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_msg(strstr(err.message, "tensor_int_fu_utilization: 'Mid (x)' is not a level "
			     "(\"Low (2)\", 0 to 10)") != NULL, "%s", err.message);
	ck_assert_int_eq(err.line, 3);
	free(path);
}
END_TEST

START_TEST(trace_and_metrics)
{
	const char *files[] = { test_data("nvprof-trace.csv"), test_data("nvprof-metrics.csv") };
	struct gpuproj_import_summary sum = { 0 };
	struct gpuproj_profile *p = import_ok(files, 2, &sum);
	struct gpuproj_kernel *a = kernel(p, STENCIL, 32, 32), *b = kernel(p, STENCIL, 16, 32);
	struct gpuproj_kernel *init = kernel(p, "init(float*, int)", 512, 1);

	/* One record per launch configuration; " [118]" is not part of the name. */
	ck_assert_uint_eq(gpuproj_profile_count(p), 3);
	ck_assert_uint_eq(a->launches, 3);
	ck_assert_uint_eq(b->launches, 1);
	ck_assert_uint_eq(a->block.x, 16);
	ck_assert_uint_eq(b->block.x, 32);
	assert_near(a->duration_ns.min, 52192);          /* "us" in the units row */
	assert_near(a->duration_ns.max, 52576);
	assert_near(gpuproj_kernel_mean_ns(a), 52384);
	ck_assert_uint_eq(a->smem_static, 1152);           /* 1.125 KB, binary */
	ck_assert_uint_eq(a->regs_per_thread, 24);
	ck_assert_str_eq(a->tag, "");
	assert_stencil_metrics(a);
	assert_stencil_metrics(b);
	assert_near(gpuproj_kernel_mean_ns(init), 8448);
	/* The metrics, averaged over all four invocations, go to both configurations. */
	ck_assert(warned(&sum, "the metrics of '" STENCIL "', which nvprof averages over all its 4 "
			 "invocations, are applied to each of its 2 launch configurations"));
	/* The memory copies are not kernels. */
	ck_assert_uint_eq(sum.launches, 5);
	ck_assert_uint_eq(gpuproj_model_missing_names(gpuproj_model_default(), a, NULL, 0), 0);
	gpuproj_import_summary_clear(&sum);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(summary_gives_durations)
{
	const char *files[] = { test_data("nvprof-summary.csv"), test_data("nvprof-metrics.csv") };
	struct gpuproj_profile *p = import_ok(files, 2, NULL);
	struct gpuproj_kernel *k = kernel(p, STENCIL, 1, 1);

	/* Calls 4, Avg 45.904 us, Min 26.464, Max 52.576: count, mean and range, no spread. */
	ck_assert_uint_eq(k->launches, 4);
	ck_assert_uint_eq(k->duration_ns.n, 4);
	assert_near(k->duration_ns.mean, 45904);
	assert_near(k->duration_ns.min, 26464);
	assert_near(k->duration_ns.max, 52576);
	ck_assert_str_eq(k->tag, GPUPROJ_TAG_NO_GEOMETRY);
	/* Only the geometry is missing for hroof-occ: hroof stands in (model.h). */
	ck_assert_uint_eq(gpuproj_model_missing_names(gpuproj_model_find("hroof"), k, NULL, 0), 0);
	gpuproj_profile_free(p);
}
END_TEST

START_TEST(events_and_metric_trace)
{
	static const char events[] =
		"==4711== Event result:\n"
		"\"Device\",\"Kernel\",\"Invocations\",\"Event Name\",\"Min\",\"Max\",\"Avg\",\"Total\"\n"
		"\"GeForce GTX 980 (0)\",\"hist(int*)\",2,\"shared_load\",1000,1000,1000,2000\n"
		"\"GeForce GTX 980 (0)\",\"hist(int*)\",2,\"shared_store\",500,500,500,1000\n"
		"\"GeForce GTX 980 (0)\",\"hist(int*)\",2,\"active_cycles\",32000,32000,32000,64000\n";
	static const char mtrace[] =
		"==4712== Profiling result:\n"
		"\"Device\",\"Context\",\"Stream\",\"Kernel\",\"shared_load_transactions\","
		"\"shared_store_transactions\",\"achieved_occupancy\"\n"
		"\"GeForce GTX 980 (0)\",\"1\",\"7\",\"hist(int*)\",1200,700,0.500000\n"
		"\"GeForce GTX 980 (0)\",\"1\",\"7\",\"hist(int*)\",1400,700,0.700000\n";
	char *e = test_write_file(dir, "events.csv", events);
	char *m = test_write_file(dir, "mtrace.csv", mtrace);
	const char *files[] = { e, m };
	struct gpuproj_profile *p = import_ok(files, 2, NULL);
	struct gpuproj_kernel *k = kernel(p, "hist(int*)", 1, 1);

	/* Per-launch rows averaged; wavefronts in 128-B units on Maxwell (CC 5.2). */
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_SHARED_WAVEFRONTS), 1300 + 700);
	/* Bank conflicts: transactions beyond one per instruction. */
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_SHARED_BANK_CONFLICTS), 300 + 200);
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_OCCUPANCY_ACHIEVED), 0.6);
	/* active_cycles is summed over the GTX 980's 16 SMs. */
	assert_near(gpuproj_kernel_metric(k, GPUPROJ_M_CYCLES_SM_ACTIVE), 32000.0 / 16);
	free(e);
	free(m);
	gpuproj_profile_free(p);
}
END_TEST

/*
 * One mapping: a gpuperfpredict row and an nvprof export of the same
 * counters (same GPU, same duration) give the same logical metrics.
 */
START_TEST(one_mapping_with_gpuperfpredict)
{
	static const char gpp[] =
		"gpu,kernel,launches,input.size.1,input.size.2,grid.x,grid.y,block.x,block.y,"
		"registers.per.thread,static.smem,duration,inst_executed,shared_load,shared_store,"
		"active_cycles,achieved_occupancy,device_memory_write_throughput,"
		"global_store_throughput,global_load_throughput,shared_load_transactions,"
		"shared_store_transactions,device_memory_read_transactions,l2_read_transactions,"
		"l2_write_transactions,shared_memory_load_throughput,shared_memory_store_throughput,"
		"l2_throughput_.reads.,floating_point_operations.single_precision_add.,"
		"floating_point_operation.single_precision_mul.,"
		"floating_point_operations.single_precision_fma.,"
		"floating_point_operations.double_precision.,"
		"floating_point_operations.double_precision_add.,"
		"floating_point_operations.double_precision_mul.,fp_instructions.single.,"
		"fp_instructions.double.,integer_instructions,control.flow_instructions,"
		"load.store_instructions,misc_instructions\n"
		"Tesla-K40,k,1,64,64,8,8,16,16,20,1024,5e-05,40000,2000,1000,150000,0.5,10.5,"
		"20.25,40.5,3000,1500,20000,30000,10000,30.5,15.25,19.2,1000,2000,30000,64000,1000,"
		"1000,33000,31000,200000,10000,80000,5000\n";
	static const char nvp_metrics[] =
		"==1== Metric result:\n"
		"\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\","
		"\"Min\",\"Max\",\"Avg\"\n"
		"\"Tesla K40c (0)\",\"k\",1,\"inst_executed\",\"Instructions Executed\",40000,40000,40000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"achieved_occupancy\",\"Achieved Occupancy\",0.5,0.5,0.5\n"
		"\"Tesla K40c (0)\",\"k\",1,\"dram_write_throughput\",\"Device Memory Write Throughput\","
		"10.5GB/s,10.5GB/s,10.5GB/s\n"
		"\"Tesla K40c (0)\",\"k\",1,\"gst_throughput\",\"Global Store Throughput\",20.25GB/s,"
		"20.25GB/s,20.25GB/s\n"
		"\"Tesla K40c (0)\",\"k\",1,\"gld_throughput\",\"Global Load Throughput\",40.5GB/s,"
		"40.5GB/s,40.5GB/s\n"
		"\"Tesla K40c (0)\",\"k\",1,\"shared_load_transactions\",\"Shared Load Transactions\","
		"3000,3000,3000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"shared_store_transactions\",\"Shared Store Transactions\","
		"1500,1500,1500\n"
		"\"Tesla K40c (0)\",\"k\",1,\"dram_read_transactions\",\"Device Memory Read "
		"Transactions\",20000,20000,20000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"l2_read_transactions\",\"L2 Read Transactions\",30000,"
		"30000,30000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"l2_write_transactions\",\"L2 Write Transactions\",10000,"
		"10000,10000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"shared_load_throughput\",\"Shared Memory Load "
		"Throughput\",30.5GB/s,30.5GB/s,30.5GB/s\n"
		"\"Tesla K40c (0)\",\"k\",1,\"shared_store_throughput\",\"Shared Memory Store "
		"Throughput\",15.25GB/s,15.25GB/s,15.25GB/s\n"
		"\"Tesla K40c (0)\",\"k\",1,\"l2_read_throughput\",\"L2 Throughput (Reads)\",19.2GB/s,"
		"19.2GB/s,19.2GB/s\n"
		"\"Tesla K40c (0)\",\"k\",1,\"flop_count_sp_add\",\"\",1000,1000,1000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"flop_count_sp_mul\",\"\",2000,2000,2000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"flop_count_sp_fma\",\"\",30000,30000,30000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"flop_count_dp\",\"\",64000,64000,64000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"flop_count_dp_add\",\"\",1000,1000,1000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"flop_count_dp_mul\",\"\",1000,1000,1000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"inst_fp_32\",\"\",33000,33000,33000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"inst_fp_64\",\"\",31000,31000,31000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"inst_integer\",\"\",200000,200000,200000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"inst_control\",\"\",10000,10000,10000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"inst_compute_ld_st\",\"\",80000,80000,80000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"inst_misc\",\"\",5000,5000,5000\n"
		"==1== Event result:\n"
		"\"Device\",\"Kernel\",\"Invocations\",\"Event Name\",\"Min\",\"Max\",\"Avg\",\"Total\"\n"
		"\"Tesla K40c (0)\",\"k\",1,\"shared_load\",2000,2000,2000,2000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"shared_store\",1000,1000,1000,1000\n"
		"\"Tesla K40c (0)\",\"k\",1,\"active_cycles\",150000,150000,150000,150000\n";
	static const char nvp_trace[] =
		"\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\","
		"\"Block Z\",\"Registers Per Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\","
		"\"Throughput\",\"Device\",\"Context\",\"Stream\",\"Name\"\n"
		"ms,us,,,,,,,,B,B,MB,GB/s,,,,\n"
		"1.0,50.0,8,8,1,16,16,1,20,1024,0,,,\"Tesla K40c (0)\",\"1\",\"7\",\"k [5]\"\n";
	char *gp = test_write_file(dir, "k.csv", gpp);
	char *nm = test_write_file(dir, "m.csv", nvp_metrics);
	char *nt = test_write_file(dir, "t.csv", nvp_trace);
	const char *gpp_files[] = { gp }, *nv_files[] = { nt, nm };
	struct gpuproj_profile **gp_profiles = NULL, *nv;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_kernel *a, *b;
	size_t n = 0, m, compared = 0;

	ck_assert_int_eq(gpuproj_import_gpuperfpredict(gpp_files, 1, targets, &gp_profiles, &n,
						       &err), 0);
	nv = import_ok(nv_files, 2, NULL);
	a = gpuproj_profile_at(gp_profiles[0], 0);
	b = gpuproj_profile_at(nv, 0);
	for (m = 0; m < GPUPROJ_M_COUNT; m++) {
		ck_assert_msg(a->metric_n[m] == b->metric_n[m], "%s: in one but not the other",
			      gpuproj_metric_name((enum gpuproj_metric)m));
		if (!a->metric_n[m])
			continue;
		assert_near(gpuproj_kernel_metric(b, (enum gpuproj_metric)m),
			    gpuproj_kernel_metric(a, (enum gpuproj_metric)m));
		compared++;
	}
	ck_assert_uint_ge(compared, 25);
	/* Kepler: a shared transaction is two 128-B wavefronts. */
	assert_near(gpuproj_kernel_metric(b, GPUPROJ_M_SHARED_WAVEFRONTS), 2 * 4500);
	gpuproj_profile_free(gp_profiles[0]);
	free(gp_profiles);
	gpuproj_profile_free(nv);
	free(gp);
	free(nm);
	free(nt);
}
END_TEST

/* The gpuperfpredict importer's ranges and columns, on the same mapping. */
START_TEST(gpuperfpredict_ranges_and_columns)
{
	static const char occ[] =
		"gpu,kernel,launches,input.size.1,input.size.2,grid.x,grid.y,block.x,block.y,"
		"registers.per.thread,static.smem,duration,achieved_occupancy\n"
		"Tesla-K40,k,1,64,64,8,8,16,16,20,1024,5e-05,0.5\n"
		"Tesla-K40,k,1,64,128,8,8,16,16,20,1024,5e-05,57\n";
	static const char dup[] =
		"gpu,kernel,launches,input.size.1,input.size.2,grid.x,grid.y,block.x,block.y,"
		"registers.per.thread,static.smem,duration,achieved_occupancy,achieved_occupancy\n"
		"Tesla-K40,k,1,64,64,8,8,16,16,20,1024,5e-05,0.5,0.6\n";
	static const char dur[] =
		"gpu,kernel,launches,input.size.1,input.size.2,grid.x,grid.y,block.x,block.y,"
		"registers.per.thread,static.smem,duration\n"
		"Tesla-K40,k,1,64,64,8,8,16,16,20,1024,2e6\n";
	char *a = test_write_file(dir, "occ.csv", occ), *b = test_write_file(dir, "dup.csv", dup);
	char *c = test_write_file(dir, "dur.csv", dur);
	const char *pa[] = { a }, *pb[] = { b }, *pc[] = { c };
	struct gpuproj_profile **ps = NULL;
	struct gpuproj_error err = { 0 };
	size_t n = 0;

	/* An occupancy of 57 (range 0–1): refused at its line and column. */
	ck_assert_int_eq(gpuproj_import_gpuperfpredict(pa, 1, targets, &ps, &n, &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_int_eq(err.line, 3);
	ck_assert_int_eq(err.column, 46);
	ck_assert_str_eq(err.message, "occupancy.achieved = 57 is outside its range (column "
			 "'achieved_occupancy')");
	/* A column twice: the first would win silently; refused. */
	ck_assert_int_eq(gpuproj_import_gpuperfpredict(pb, 1, targets, &ps, &n, &err),
			 GPUPROJ_E_PARSE);
	ck_assert_int_eq(err.line, 1);
	ck_assert_str_eq(err.message, "column 'achieved_occupancy' appears twice (fields 13 and 14)");
	/* 2 × 10^6 s is not a kernel duration. */
	ck_assert_int_eq(gpuproj_import_gpuperfpredict(pc, 1, targets, &ps, &n, &err),
			 GPUPROJ_E_SCHEMA);
	ck_assert_int_eq(err.line, 2);
	ck_assert_ptr_nonnull(strstr(err.message, "is not a kernel duration in seconds"));
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(table_of_names)
{
	/* Every gpuperfpredict metric column maps back to its nvprof metric. */
	ck_assert_int_eq(nvp_find_gpp_column("floating_point_operation.single_precision_mul."),
			 NVP_SP_MUL);
	ck_assert_int_eq(nvp_find("flop_count_sp_mul"), NVP_SP_MUL);
	ck_assert_int_eq(nvp_find_gpp_column("l2_throughput_.reads."), NVP_L2_RD_TP);
	ck_assert_int_eq(nvp_find("bogus"), -1);
}
END_TEST

/* ---- bad input ---- */

static void
expect_error(const char *name, const char *text, int status, int line, int column,
	     const char *message)
{
	char *path = test_write_file(dir, name, text), *out, *errout;
	const char *files[] = { path };
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };

	ck_assert_int_eq(gpuproj_import_nvprof(files, 1, targets, NULL, &p, NULL, &err), status);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err.file, path);
	ck_assert_int_eq(err.line, line);
	ck_assert_int_eq(err.column, column);
	ck_assert_str_eq(err.message, message);
	/* The command: exit 1, one line, nothing written. */
	ck_assert_int_eq(test_cli(&out, &errout, "import nvprof '%s' -o '%s/out.json'", path, dir),
			 2);
	ck_assert_ptr_nonnull(strstr(errout, message));
	ck_assert_ptr_eq(strchr(errout, '\n'), errout + strlen(errout) - 1); /* one line */
	ck_assert_int_eq(test_count_dir(dir), 1);
	free(out);
	free(errout);
	free(path);
}

START_TEST(error_counter_permission)
{
	expect_error("perm.csv", "==2047== NVPROF is profiling process 2047, command: ./app\n"
		     "==2047== Warning: ERR_NVGPUCTRPERM - The user does not have permission to "
		     "profile on the target device. See the following link for instructions to "
		     "enable permissions and get more information: "
		     "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
		     "==2047== Profiling application: ./app\n", GPUPROJ_E_PARSE, 2, 0,
		     "nvprof could not read the GPU's performance counters (ERR_NVGPUCTRPERM: "
		     "profiling is restricted to administrators), so no kernel was measured: run "
		     "nvprof with sudo, or allow all users (`options nvidia "
		     "NVreg_RestrictProfilingToAdminUsers=0` in a file under /etc/modprobe.d/, then "
		     "reboot; https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
}
END_TEST

START_TEST(error_no_data)
{
	expect_error("none.csv", "==2048== NVPROF is profiling process 2048, command: ./app\n"
		     "==2048== Warning: No profile data collected.\n", GPUPROJ_E_PARSE, 2, 0,
		     "no kernel data; nvprof said: ==2048== Warning: No profile data collected.");
}
END_TEST

START_TEST(error_not_csv)
{
	/* nvprof without --csv prints aligned columns. */
	expect_error("text.log", "==9== Profiling result:\n"
		     "            Type  Time(%)      Time     Calls       Avg       Min       Max  "
		     "Name\n GPU activities:   52.41%  361.31us         2  180.66us  180.35us  "
		     "180.96us  [CUDA memcpy HtoD]\n", GPUPROJ_E_PARSE, 1, 0,
		     "not an nvprof CSV export: no line starts with a header nvprof --csv writes "
		     "(\"Device\",\"Kernel\",… or \"Start\",\"Duration\",… or \"Type\",\"Time(%)\",…)");
}
END_TEST

START_TEST(error_occupancy_out_of_range)
{
	expect_error("occ.csv", "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\","
		     "\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n"
		     "\"Tesla K40c (0)\",\"k\",1,\"achieved_occupancy\",\"Achieved Occupancy\",57,57,"
		     "57\n", GPUPROJ_E_SCHEMA, 2, 72,
		     "achieved_occupancy: 57 is outside its range (0 to 1)");
}
END_TEST

START_TEST(error_negative_throughput)
{
	expect_error("neg.csv", "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\","
		     "\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n"
		     "\"Tesla K40c (0)\",\"k\",1,\"gld_throughput\",\"Global Load Throughput\",1GB/s,"
		     "1GB/s,-1GB/s\n", GPUPROJ_E_SCHEMA, 2, 78,
		     "gld_throughput: negative value -1GB/s");
}
END_TEST

START_TEST(error_trace_without_units_row)
{
	expect_error("nounits.csv", "\"Start\",\"Duration\",\"Grid X\",\"Name\"\n"
		     "1.0,5.0,4,\"k [1]\"\n", GPUPROJ_E_PARSE, 2, 1,
		     "expected the units row under the header (\"us,us,,,…\"), which nvprof --csv "
		     "writes");
}
END_TEST

START_TEST(error_truncated_row)
{
	expect_error("cut.csv", "\"Start\",\"Duration\",\"Grid X\",\"Name\"\nms,us,,\n"
		     "1.0,5.0,4,\"k [1]\"\n2.0,5.", GPUPROJ_E_PARSE, 4, 0,
		     "the file ends inside a row (fewer fields than its header, no final line "
		     "break): it was cut while it was written");
}
END_TEST

START_TEST(error_only_memory_copies)
{
	expect_error("copies.csv", "\"Start\",\"Duration\",\"Grid X\",\"Name\"\nms,us,,\n"
		     "1.0,5.0,,\"[CUDA memcpy HtoD]\"\n", GPUPROJ_E_PARSE, 0, 0,
		     "no kernel in the export (only memory copies)");
}
END_TEST

START_TEST(cli_import_nvprof)
{
	char *out, *errout, *json;
	struct gpuproj_profile *p = NULL;
	struct gpuproj_error err = { 0 };

	if (asprintf(&json, "%s/run.json", dir) < 0)
		abort();
	ck_assert_int_eq(test_cli(&out, &errout, "import nvprof '%s' '%s' -o '%s'",
				  test_data("nvprof-trace.csv"), test_data("nvprof-metrics.csv"),
				  json), 0);
	ck_assert_msg(strstr(errout, "gpuproj: imported ") != NULL, "%s", errout);
	ck_assert_ptr_nonnull(strstr(errout, "nvprof-trace.csv, "));
	ck_assert_ptr_nonnull(strstr(errout, "  device: Tesla K40c, CC 3.5, 15 SMs = targets.yaml "
				     "Tesla-K40\n"));
	ck_assert_ptr_nonnull(strstr(errout, "\n    gpuproj import nvprof trace.csv metrics.csv "
				     "-o run.json\n"));
	ck_assert_int_eq(gpuproj_profile_load(json, &p, &err), 0);
	ck_assert_uint_eq(gpuproj_profile_count(p), 3);
	gpuproj_profile_free(p);
	free(out);
	free(errout);
	free(json);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("import-nvprof");
	TCase *tc = tcase_create("nvprof");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, metrics_alone);
	tcase_add_test(tc, tensor_levels);
	tcase_add_test(tc, trace_and_metrics);
	tcase_add_test(tc, summary_gives_durations);
	tcase_add_test(tc, events_and_metric_trace);
	tcase_add_test(tc, one_mapping_with_gpuperfpredict);
	tcase_add_test(tc, table_of_names);
	tcase_add_test(tc, gpuperfpredict_ranges_and_columns);
	tcase_add_test(tc, error_counter_permission);
	tcase_add_test(tc, error_no_data);
	tcase_add_test(tc, error_not_csv);
	tcase_add_test(tc, error_occupancy_out_of_range);
	tcase_add_test(tc, error_negative_throughput);
	tcase_add_test(tc, error_trace_without_units_row);
	tcase_add_test(tc, error_truncated_row);
	tcase_add_test(tc, error_only_memory_copies);
	tcase_add_test(tc, cli_import_nvprof);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
