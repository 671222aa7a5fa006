/* SPDX-License-Identifier: MIT */
/*
 * gpuproj-bench-kernels: run the micro-benchmarks of a plan on one GPU and
 * write the raw measurements as JSON (schema gpuproj-bench-raw/1). It
 * decides nothing: `gpuproj bench` (src/cli/cmd-bench.c) queries the device
 * with --query, chooses sizes and repetitions (src/bench/bench-plan.c), runs
 * this program with --plan and computes every statistic from its output.
 *
 *   gpuproj-bench-kernels --query [--device N] [--output FILE]
 *   gpuproj-bench-kernels --plan FILE [--device N] [--output FILE]
 *                         [--progress tty|lines|none]
 *
 * Plan (text, one benchmark per line; docs/bench.md):
 *   gpuproj-bench-plan/1
 *   warm_ms 500
 *   bench NAME blocks=B threads=T iters=I size=BYTES stride=S reps=R warmup=W target_ms=MS
 *
 * Timing: CUDA events around each launch; while the launch runs, NVML (if
 * libnvidia-ml.so.1 loads) samples the SM and memory clocks and the board
 * power. Compute, cache, shared and latency kernels first scale their trip
 * count so that one launch takes about target_ms. The latency benchmarks
 * (latency_l1, latency_l2, latency_dram: one thread chasing pointers over
 * a footprint of size= bytes, latency.cu) report loads per launch as their
 * work; gpuproj turns time per load into nanoseconds.
 *
 * Exit status: 0 success; 1 a benchmark failed (the JSON holds what was
 * measured and the error); 2 bad usage or plan; 3 no usable CUDA GPU (the
 * driver's reason on stderr, and in the JSON's "error").
 *
 * Thread safety: single-threaded program.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench-kernels.h"

#define PROG "gpuproj-bench-kernels"
#define PLAN_SCHEMA "gpuproj-bench-plan/1"
#define RAW_SCHEMA "gpuproj-bench-raw/1"
#define MAX_BENCH 256
#define MAX_REPS 1000
#define MAX_ITERS (1 << 30)

#ifndef GPUPROJ_VERSION
#define GPUPROJ_VERSION "unknown"
#endif

#define EXIT_BENCH_FAIL 1
#define EXIT_BENCH_USAGE 2
#define EXIT_BENCH_NOGPU 3

/* ---- NVML, loaded at run time (no link dependency, no header needed) ---- */

typedef struct nvml_device *nvml_device_t;
enum { NVML_OK = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

static struct {
	void *lib;
	bool ok;
	nvml_device_t dev;
	int (*init)(void);
	int (*shutdown)(void);
	int (*by_pci)(const char *, nvml_device_t *);
	int (*clock)(nvml_device_t, int, unsigned *);
	int (*max_clock)(nvml_device_t, int, unsigned *);
	int (*driver)(char *, unsigned);
	int (*power)(nvml_device_t, unsigned *);
	int (*power_limit)(nvml_device_t, unsigned *);
	int (*reasons)(nvml_device_t, unsigned long long *);
	int (*temperature)(nvml_device_t, int, unsigned *);
	char why[256];
} nvml;

static void
nvml_open(const char *pci_bus_id)
{
	const char *path = getenv("GPUPROJ_NVML");

	nvml.lib = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!nvml.lib) {
		snprintf(nvml.why, sizeof(nvml.why), "%s", dlerror());
		return;
	}
	*(void **)&nvml.init = dlsym(nvml.lib, "nvmlInit_v2");
	*(void **)&nvml.shutdown = dlsym(nvml.lib, "nvmlShutdown");
	*(void **)&nvml.by_pci = dlsym(nvml.lib, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&nvml.clock = dlsym(nvml.lib, "nvmlDeviceGetClockInfo");
	*(void **)&nvml.max_clock = dlsym(nvml.lib, "nvmlDeviceGetMaxClockInfo");
	*(void **)&nvml.driver = dlsym(nvml.lib, "nvmlSystemGetDriverVersion");
	*(void **)&nvml.power = dlsym(nvml.lib, "nvmlDeviceGetPowerUsage");
	*(void **)&nvml.power_limit = dlsym(nvml.lib, "nvmlDeviceGetPowerManagementDefaultLimit");
	*(void **)&nvml.reasons = dlsym(nvml.lib, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!nvml.reasons)
		*(void **)&nvml.reasons =
			dlsym(nvml.lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	*(void **)&nvml.temperature = dlsym(nvml.lib, "nvmlDeviceGetTemperature");
	if (!nvml.init || !nvml.by_pci || !nvml.clock) {
		snprintf(nvml.why, sizeof(nvml.why), "libnvidia-ml.so.1 lacks nvmlInit_v2, "
			 "nvmlDeviceGetHandleByPciBusId_v2 or nvmlDeviceGetClockInfo");
		return;
	}
	if (nvml.init() != NVML_OK) {
		snprintf(nvml.why, sizeof(nvml.why), "nvmlInit_v2 failed");
		return;
	}
	if (nvml.by_pci(pci_bus_id, &nvml.dev) != NVML_OK) {
		snprintf(nvml.why, sizeof(nvml.why), "no NVML device at PCI %s", pci_bus_id);
		return;
	}
	nvml.ok = true;
}

static double
nvml_clock(int which)
{
	unsigned v;

	return nvml.ok && nvml.clock(nvml.dev, which, &v) == NVML_OK ? (double)v : NAN;
}

static double
nvml_power_w(void)
{
	unsigned mw;

	return nvml.ok && nvml.power && nvml.power(nvml.dev, &mw) == NVML_OK ? mw / 1000.0 : NAN;
}

/* ---- small helpers ---- */

static void
die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_BENCH_USAGE);
}

/* JSON string (the device name and error texts are the only free text). */
static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A finite number or null. */
static void
json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

static void
json_array(FILE *f, const double *v, int n)
{
	int i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		json_num(f, v[i]);
	}
	fputc(']', f);
}

/* ---- the device ---- */

struct device {
	int index;
	cudaDeviceProp prop;
	char pci[32];
	int attr_clock_khz, attr_mem_clock_khz, bus_bits, ecc, sms, warp, threads_per_sm,
		threads_per_block, blocks_per_sm, regs_per_sm, regs_per_block, smem_per_sm,
		smem_per_block_optin, smem_reserved, l2, cc_major, cc_minor;
	int driver_version, runtime_version;
	size_t free_mem, total_mem;
};

static int
attr(enum cudaDeviceAttr a, int dev)
{
	int v = 0;

	if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess)
		return -1;
	return v;
}

/* Open device `index`; on failure print the driver's reason and return false. */
static bool
device_open(int index, struct device *d, char *why, size_t whylen)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	memset(d, 0, sizeof(*d));
	if (e == cudaErrorInsufficientDriver) {
		/* The static runtime says this too when there is no driver at all. */
		void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

		if (!lib) {
			snprintf(why, whylen, "the CUDA driver is not installed (%s)", dlerror());
			return false;
		}
		dlclose(lib);
	}
	if (e != cudaSuccess) {
		snprintf(why, whylen, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
		return false;
	}
	if (count == 0) {
		snprintf(why, whylen, "the driver reports no CUDA device");
		return false;
	}
	if (index < 0 || index >= count) {
		snprintf(why, whylen, "device %d does not exist (%d device%s)", index, count,
			 count == 1 ? "" : "s");
		return false;
	}
	e = cudaSetDevice(index);
	if (e == cudaSuccess)
		e = cudaFree(NULL); /* create the context now: errors show here */
	if (e == cudaSuccess)
		e = cudaGetDeviceProperties(&d->prop, index);
	if (e == cudaSuccess)
		e = cudaDeviceGetPCIBusId(d->pci, (int)sizeof(d->pci), index);
	if (e == cudaSuccess)
		e = cudaMemGetInfo(&d->free_mem, &d->total_mem);
	if (e != cudaSuccess) {
		snprintf(why, whylen, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
		return false;
	}
	d->index = index;
	d->attr_clock_khz = attr(cudaDevAttrClockRate, index);
	d->attr_mem_clock_khz = attr(cudaDevAttrMemoryClockRate, index);
	d->bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth, index);
	d->ecc = attr(cudaDevAttrEccEnabled, index);
	d->sms = attr(cudaDevAttrMultiProcessorCount, index);
	d->warp = attr(cudaDevAttrWarpSize, index);
	d->threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor, index);
	d->threads_per_block = attr(cudaDevAttrMaxThreadsPerBlock, index);
	d->blocks_per_sm = attr(cudaDevAttrMaxBlocksPerMultiprocessor, index);
	d->regs_per_sm = attr(cudaDevAttrMaxRegistersPerMultiprocessor, index);
	d->regs_per_block = attr(cudaDevAttrMaxRegistersPerBlock, index);
	d->smem_per_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, index);
	d->smem_per_block_optin = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, index);
	d->smem_reserved = attr(cudaDevAttrReservedSharedMemoryPerBlock, index);
	d->l2 = attr(cudaDevAttrL2CacheSize, index);
	d->cc_major = attr(cudaDevAttrComputeCapabilityMajor, index);
	d->cc_minor = attr(cudaDevAttrComputeCapabilityMinor, index);
	cudaDriverGetVersion(&d->driver_version);
	cudaRuntimeGetVersion(&d->runtime_version);
	return true;
}

static void
device_json(FILE *f, const struct device *d)
{
	char drv[96] = "";
	unsigned v;

	if (nvml.ok && nvml.driver)
		nvml.driver(drv, sizeof(drv));
	fprintf(f, "  \"device\": {\n    \"index\": %d,\n    \"name\": ", d->index);
	json_str(f, d->prop.name);
	fprintf(f, ",\n    \"pci_bus_id\": ");
	json_str(f, d->pci);
	fprintf(f, ",\n    \"cc_major\": %d, \"cc_minor\": %d,\n", d->cc_major, d->cc_minor);
	fprintf(f, "    \"sms\": %d, \"warp_size\": %d,\n", d->sms, d->warp);
	fprintf(f,
		"    \"threads_per_sm\": %d, \"threads_per_block\": %d, \"blocks_per_sm\": %d,\n",
		d->threads_per_sm, d->threads_per_block, d->blocks_per_sm);
	fprintf(f, "    \"regs_per_sm\": %d, \"regs_per_block\": %d,\n", d->regs_per_sm,
		d->regs_per_block);
	fprintf(f, "    \"smem_per_sm_b\": %d, \"smem_per_block_optin_b\": %d, "
		"\"smem_reserved_per_block_b\": %d,\n", d->smem_per_sm, d->smem_per_block_optin,
		d->smem_reserved);
	fprintf(f, "    \"l2_b\": %d, \"total_mem_b\": %zu, \"free_mem_b\": %zu,\n", d->l2,
		d->total_mem, d->free_mem);
	fprintf(f, "    \"max_clock_mhz\": ");
	json_num(f, d->attr_clock_khz > 0 ? d->attr_clock_khz / 1000.0 : NAN);
	fprintf(f, ", \"mem_clock_mhz\": ");
	json_num(f, d->attr_mem_clock_khz > 0 ? d->attr_mem_clock_khz / 1000.0 : NAN);
	fprintf(f, ", \"mem_bus_bits\": %d,\n", d->bus_bits);
	fprintf(f, "    \"ecc\": %s,\n", d->ecc > 0 ? "true" : "false");
	fprintf(f,
		"    \"driver_api_version\": %d, \"runtime_version\": %d, "
		"\"toolkit_version\": %d,\n",
		d->driver_version, d->runtime_version, CUDART_VERSION);
	fprintf(f, "    \"nvml\": ");
	if (!nvml.ok) {
		fprintf(f, "{\"available\": false, \"reason\": ");
		json_str(f, nvml.why);
		fprintf(f, "}\n  },\n");
		return;
	}
	fprintf(f, "{\"available\": true, \"driver_version\": ");
	json_str(f, drv);
	fprintf(f, ", \"max_sm_clock_mhz\": ");
	json_num(f, nvml.max_clock && nvml.max_clock(nvml.dev, NVML_CLOCK_SM, &v) == NVML_OK ?
			    (double)v : NAN);
	fprintf(f, ", \"max_mem_clock_mhz\": ");
	json_num(f, nvml.max_clock && nvml.max_clock(nvml.dev, NVML_CLOCK_MEM, &v) == NVML_OK ?
			    (double)v : NAN);
	fprintf(f, ", \"default_power_limit_w\": ");
	json_num(f, nvml.power_limit && nvml.power_limit(nvml.dev, &v) == NVML_OK ? v / 1000.0 :
										   NAN);
	fprintf(f, ", \"idle_sm_clock_mhz\": ");
	json_num(f, nvml_clock(NVML_CLOCK_SM));
	fprintf(f, ", \"temperature_c\": ");
	json_num(f, nvml.temperature && nvml.temperature(nvml.dev, NVML_TEMPERATURE_GPU, &v) ==
			    NVML_OK ? (double)v : NAN);
	fprintf(f, "}\n  },\n");
}

/* ---- the plan ---- */

enum kind {
	K_FP, K_INT, K_GIPS, K_DRAM, K_L2, K_L1, K_SHARED, K_LDST, K_LAT,
};

struct bench {
	char name[32];
	enum kind kind;
	int sub1, sub2;           /* precision and op, int op, DRAM kind */
	const char *family, *unit;
	unsigned blocks, threads, stride;
	long long iters;
	size_t size;
	int reps, warmup;
	double target_ms;
	/* results */
	double work;              /* FLOP, ops, bytes or instructions per launch */
	double times_ns[MAX_REPS], sm_mhz[MAX_REPS], mem_mhz[MAX_REPS], power_w[MAX_REPS];
	int n;
	unsigned long long reasons;
	char error[256];
};

static const struct {
	const char *name;
	enum kind kind;
	int sub1, sub2;
	const char *family, *unit;
} known[] = {
	{ "fp64_fma", K_FP, BENCH_FP64, BENCH_FMA, "compute", "flop" },
	{ "fp64_add", K_FP, BENCH_FP64, BENCH_ADD, "compute", "flop" },
	{ "fp64_mul", K_FP, BENCH_FP64, BENCH_MUL, "compute", "flop" },
	{ "fp32_fma", K_FP, BENCH_FP32, BENCH_FMA, "compute", "flop" },
	{ "fp32_add", K_FP, BENCH_FP32, BENCH_ADD, "compute", "flop" },
	{ "fp32_mul", K_FP, BENCH_FP32, BENCH_MUL, "compute", "flop" },
	{ "fp16_fma", K_FP, BENCH_FP16, BENCH_FMA, "compute", "flop" },
	{ "fp16_add", K_FP, BENCH_FP16, BENCH_ADD, "compute", "flop" },
	{ "fp16_mul", K_FP, BENCH_FP16, BENCH_MUL, "compute", "flop" },
	{ "int32_add", K_INT, BENCH_IADD, 0, "compute", "iop" },
	{ "int32_mad", K_INT, BENCH_IMAD, 0, "compute", "iop" },
	{ "gips", K_GIPS, 0, 0, "compute", "warp_inst" },
	{ "dram_init", K_DRAM, BENCH_INIT, 0, "dram", "byte" },
	{ "dram_read", K_DRAM, BENCH_READ, 0, "dram", "byte" },
	{ "dram_copy", K_DRAM, BENCH_COPY, 0, "dram", "byte" },
	{ "dram_scale", K_DRAM, BENCH_SCALE, 0, "dram", "byte" },
	{ "dram_triad", K_DRAM, BENCH_TRIAD, 0, "dram", "byte" },
	{ "l2_read", K_L2, 0, 0, "l2", "byte" },
	{ "l1_read", K_L1, 0, 0, "l1", "byte" },
	{ "shared_read", K_SHARED, 0, 0, "shared", "byte" },
	{ "shared_ldst", K_LDST, 0, 0, "shared", "inst" },
	{ "latency_l1", K_LAT, BENCH_LAT_L1, 0, "latency", "load" },
	{ "latency_l2", K_LAT, BENCH_LAT_L2, 0, "latency", "load" },
	{ "latency_dram", K_LAT, BENCH_LAT_DRAM, 0, "latency", "load" },
};

static struct bench benches[MAX_BENCH];
static int n_benches;
static double warm_ms;

static void
plan_read(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char line[512];
	int lineno = 0;

	if (!f)
		die_usage("cannot read the plan %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save = NULL;
		struct bench *b;
		size_t i;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (lineno == 1) {
			if (strcmp(line, PLAN_SCHEMA) != 0)
				die_usage("%s:1: expected '%s'", path, PLAN_SCHEMA);
			continue;
		}
		tok = strtok_r(line, " \t", &save);
		if (!tok || *tok == '#')
			continue;
		if (strcmp(tok, "warm_ms") == 0) {
			tok = strtok_r(NULL, " \t", &save);
			warm_ms = tok ? atof(tok) : 0;
			continue;
		}
		if (strcmp(tok, "bench") != 0)
			die_usage("%s:%d: unknown directive '%s'", path, lineno, tok);
		if (n_benches == MAX_BENCH)
			die_usage("%s:%d: more than %d benchmarks", path, lineno, MAX_BENCH);
		b = &benches[n_benches];
		memset(b, 0, sizeof(*b));
		tok = strtok_r(NULL, " \t", &save);
		for (i = 0; tok && i < sizeof(known) / sizeof(known[0]); i++) {
			if (strcmp(tok, known[i].name) == 0)
				break;
		}
		if (!tok || i == sizeof(known) / sizeof(known[0]))
			die_usage("%s:%d: unknown benchmark '%s'", path, lineno, tok ? tok : "");
		snprintf(b->name, sizeof(b->name), "%s", known[i].name);
		b->kind = known[i].kind;
		b->sub1 = known[i].sub1;
		b->sub2 = known[i].sub2;
		b->family = known[i].family;
		b->unit = known[i].unit;
		b->reps = 5;
		b->warmup = 1;
		b->target_ms = 5;
		b->threads = 256;
		b->iters = 1;
		b->stride = 1;
		while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
			char *eq = strchr(tok, '=');
			double v;

			if (!eq)
				die_usage("%s:%d: expected key=value, got '%s'", path, lineno, tok);
			*eq = '\0';
			v = atof(eq + 1);
			if (!(v >= 0))
				die_usage("%s:%d: bad value for %s", path, lineno, tok);
			if (strcmp(tok, "blocks") == 0)
				b->blocks = (unsigned)v;
			else if (strcmp(tok, "threads") == 0)
				b->threads = (unsigned)v;
			else if (strcmp(tok, "iters") == 0)
				b->iters = (long long)v;
			else if (strcmp(tok, "size") == 0)
				b->size = (size_t)v;
			else if (strcmp(tok, "stride") == 0)
				b->stride = (unsigned)v;
			else if (strcmp(tok, "reps") == 0)
				b->reps = (int)v;
			else if (strcmp(tok, "warmup") == 0)
				b->warmup = (int)v;
			else if (strcmp(tok, "target_ms") == 0)
				b->target_ms = v;
			else
				die_usage("%s:%d: unknown key '%s'", path, lineno, tok);
		}
		if (b->blocks == 0 || b->threads == 0 || b->threads > 1024 || b->reps < 1 ||
		    b->reps > MAX_REPS || b->iters < 1 || b->iters > MAX_ITERS)
			die_usage(
				"%s:%d: blocks, threads (<= 1024), reps (1..%d) and iters must be "
				"positive",
				path, lineno, MAX_REPS);
		if ((b->kind == K_DRAM || b->kind == K_L2 || b->kind == K_L1 || b->kind == K_LAT) &&
		    b->size < 4096)
			die_usage("%s:%d: %s needs size= (bytes)", path, lineno, b->name);
		if (b->kind == K_LAT && ((b->size & (b->size - 1)) || b->blocks != 1 ||
					 b->threads != 1))
			die_usage("%s:%d: %s needs a power-of-two size, blocks=1 and threads=1", path,
				  lineno, b->name);
		if (b->kind == K_L1 && (b->size & (b->size - 1)))
			die_usage("%s:%d: l1_read size must be a power of two", path, lineno);
		if (b->kind == K_SHARED && (b->stride == 0 || b->stride > 32 ||
					    (b->stride & (b->stride - 1))))
			die_usage("%s:%d: shared_read stride must be 1, 2, 4, 8, 16 or 32", path,
				  lineno);
		n_benches++;
	}
	if (f != stdin)
		fclose(f);
	if (lineno == 0)
		die_usage("%s: empty plan", path);
}

/* ---- running ---- */

struct buffers {
	void *sink;
	size_t sink_bytes;
	double *a, *b, *c;   /* DRAM arrays */
	size_t dram_bytes;
	void *cache;         /* L2 / L1 buffer, pointer chase */
	size_t cache_bytes;
	void *cursor;        /* pointer chase: where the next launch goes on */
	size_t cursor_bytes;
};

static struct buffers bufs;

static cudaError_t
ensure(void **p, size_t *have, size_t want)
{
	cudaError_t e;

	if (*have >= want)
		return cudaSuccess;
	if (*p)
		cudaFree(*p);
	*p = NULL;
	*have = 0;
	e = cudaMalloc(p, want);
	if (e != cudaSuccess)
		return e;
	*have = want;
	/* Defined contents (the values are irrelevant; NaN-free). */
	return cudaMemset(*p, 0x11, want);
}

static cudaError_t
prepare(struct bench *b)
{
	size_t sink = (size_t)b->blocks * b->threads * 8;
	cudaError_t e = ensure(&bufs.sink, &bufs.sink_bytes, sink);

	if (e != cudaSuccess)
		return e;
	if (b->kind == K_DRAM && bufs.dram_bytes < b->size) {
		size_t have = bufs.dram_bytes;

		e = ensure((void **)&bufs.a, &have, b->size);
		if (e == cudaSuccess) {
			have = bufs.dram_bytes;
			e = ensure((void **)&bufs.b, &have, b->size);
		}
		if (e == cudaSuccess) {
			have = bufs.dram_bytes;
			e = ensure((void **)&bufs.c, &have, b->size);
		}
		if (e == cudaSuccess)
			bufs.dram_bytes = b->size;
		return e;
	}
	if (b->kind == K_L2)
		return ensure(&bufs.cache, &bufs.cache_bytes, b->size);
	if (b->kind == K_L1)
		return ensure(&bufs.cache, &bufs.cache_bytes, b->size * b->blocks);
	if (b->kind == K_LAT) {
		e = ensure(&bufs.cache, &bufs.cache_bytes, b->size);
		if (e == cudaSuccess)
			e = ensure(&bufs.cursor, &bufs.cursor_bytes, 64);
		if (e == cudaSuccess)
			e = bench_latency_prepare(bufs.cache, b->size / BENCH_CHASE_SPACING_B,
						  bufs.cursor, 0);
		return e;
	}
	return cudaSuccess;
}

static cudaError_t
launch(const struct bench *b, cudaStream_t s)
{
	struct bench_launch l;

	memset(&l, 0, sizeof(l));
	l.blocks = b->blocks;
	l.threads = b->threads;
	l.iters = (int)b->iters;
	l.stride = b->stride;
	l.sink = bufs.sink;
	l.stream = s;
	switch (b->kind) {
	case K_FP: return bench_fp_launch((enum bench_prec)b->sub1, (enum bench_fop)b->sub2, &l);
	case K_INT: return bench_int_launch((enum bench_iop)b->sub1, &l);
	case K_GIPS: return bench_gips_launch(&l);
	case K_DRAM:
		l.a = bufs.a;
		l.b = bufs.b;
		l.c = bufs.c;
		l.n = b->size / sizeof(double);
		return bench_dram_launch((enum bench_dram)b->sub1, &l);
	case K_L2:
		l.a = bufs.cache;
		l.n = b->size / 16;
		return bench_l2_launch(&l);
	case K_L1:
		l.a = bufs.cache;
		l.n = b->size / 16;
		return bench_l1_launch(&l);
	case K_SHARED: return bench_shared_launch(&l);
	case K_LDST: return bench_ldst_launch(&l);
	case K_LAT:
		l.c = bufs.cursor;
		return bench_latency_launch(&l);
	}
	return cudaErrorInvalidValue;
}

/* What one launch does on device d, in the benchmark's unit (bench-kernels.h). */
static double
work_per_launch(const struct bench *b, const struct device *d)
{
	/* Volta's loop head has one more (never-true) instruction: sass-check.py. */
	double gips_instr = d->cc_major == 7 && d->cc_minor < 5 ? BENCH_GIPS_INSTR_PER_ITER_VOLTA
								  : BENCH_GIPS_INSTR_PER_ITER;

	double threads = (double)b->blocks * b->threads, it = (double)b->iters;
	double warps = (double)b->blocks * ((b->threads + 31) / 32);

	switch (b->kind) {
	case K_FP: {
		double flop = b->sub2 == BENCH_FMA ? 2 : 1;

		if (b->sub1 == BENCH_FP16)
			flop *= 2; /* half2: two lanes per instruction */
		return threads * it * BENCH_OPS_PER_ITER * flop;
	}
	case K_INT: return threads * it * BENCH_OPS_PER_ITER * (b->sub1 == BENCH_IMAD ? 2 : 1);
	case K_GIPS: return warps * it * gips_instr;
	case K_DRAM: {
		static const double arrays[] = { 1, 1, 2, 2, 3 };

		return (double)(b->size / sizeof(double)) * sizeof(double) * arrays[b->sub1];
	}
	case K_L2:
	case K_L1: return threads * it * BENCH_CACHE_LOADS_PER_ITER * 16;
	case K_SHARED: return threads * it * BENCH_SHARED_LOADS_PER_ITER * 4;
	case K_LDST: return threads * it * BENCH_LDST_PAIRS_PER_ITER * 2;
	case K_LAT: return it * BENCH_CHASE_STEPS; /* dependent loads of the one thread */
	}
	return 0;
}

/* One timed launch; samples clocks and power while it runs. */
static cudaError_t
timed(const struct bench *b, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, double *ret_ns,
      double *ret_sm, double *ret_mem, double *ret_w, unsigned long long *ret_reasons)
{
	float ms = 0;
	cudaError_t e;

	cudaEventRecord(e0, s);
	e = launch(b, s);
	if (e != cudaSuccess)
		return e;
	cudaEventRecord(e1, s);
	if (ret_sm) {
		/* The launch is in flight: these are clocks under load. */
		*ret_sm = nvml_clock(NVML_CLOCK_SM);
		*ret_mem = nvml_clock(NVML_CLOCK_MEM);
		*ret_w = nvml_power_w();
		if (ret_reasons && nvml.ok && nvml.reasons)
			nvml.reasons(nvml.dev, ret_reasons);
	}
	e = cudaEventSynchronize(e1);
	if (e != cudaSuccess)
		return e;
	e = cudaEventElapsedTime(&ms, e0, e1);
	*ret_ns = ms * 1e6;
	return e;
}

/* Resident blocks per SM of b's kernel (occupancy API). */
static cudaError_t
resident_per_sm(const struct bench *b, int *ret)
{
	switch (b->kind) {
	case K_FP: return bench_compute_occupancy(0, b->sub1, b->sub2, b->threads, ret);
	case K_INT: return bench_compute_occupancy(1, b->sub1, 0, b->threads, ret);
	case K_GIPS: return bench_compute_occupancy(2, 0, 0, b->threads, ret);
	case K_DRAM: return bench_dram_occupancy((enum bench_dram)b->sub1, b->threads, ret);
	case K_L2: return bench_cache_occupancy(false, b->threads, ret);
	case K_L1: return bench_cache_occupancy(true, b->threads, ret);
	case K_SHARED: return bench_shared_occupancy(false, b->threads, ret);
	case K_LDST: return bench_shared_occupancy(true, b->threads, ret);
	case K_LAT: *ret = 1; return cudaSuccess; /* one thread */
	}
	return cudaErrorInvalidValue;
}

static cudaError_t
run_one(struct bench *b, const struct device *d, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1)
{
	double ns = 0;
	cudaError_t e = prepare(b);
	int i, per_sm = 0;

	if (e != cudaSuccess)
		return e;
	/* One wave: no block may wait for another to finish (L1 keeps one per SM). */
	e = resident_per_sm(b, &per_sm);
	if (e != cudaSuccess)
		return e;
	if (per_sm < 1)
		return cudaErrorInvalidConfiguration;
	if (b->kind != K_L1 && b->blocks > (unsigned)(per_sm * d->sms))
		b->blocks = (unsigned)(per_sm * d->sms);
	/*
	 * Pointer chase in L1 or L2: one pass over the whole chain first, so that
	 * the first timed loads do not miss to the level below (in DRAM they
	 * miss anyway, and a pass would take seconds).
	 */
	if (b->kind == K_LAT && b->sub1 != BENCH_LAT_DRAM) {
		long long planned = b->iters;
		size_t n = b->size / BENCH_CHASE_SPACING_B;

		b->iters = (long long)((n + BENCH_CHASE_STEPS - 1) / BENCH_CHASE_STEPS);
		e = timed(b, s, e0, e1, &ns, NULL, NULL, NULL, NULL);
		b->iters = planned;
		if (e != cudaSuccess)
			return e;
	}
	/* Scale the trip count so one launch takes about target_ms (not DRAM: one pass). */
	if (b->kind != K_DRAM) {
		for (i = 0; i < 6; i++) {
			double target = b->target_ms * 1e6, scale;

			e = timed(b, s, e0, e1, &ns, NULL, NULL, NULL, NULL);
			if (e != cudaSuccess)
				return e;
			if (ns > 0.7 * target && ns < 1.4 * target)
				break;
			scale = ns > 0 ? target / ns : 16;
			if (scale > 16)
				scale = 16; /* launch overhead dominates short runs */
			b->iters = (long long)ceil((double)b->iters * scale);
			if (b->iters < 1)
				b->iters = 1;
			if (b->iters > MAX_ITERS) {
				b->iters = MAX_ITERS;
				break;
			}
		}
	}
	for (i = 0; i < b->warmup; i++) {
		e = timed(b, s, e0, e1, &ns, NULL, NULL, NULL, NULL);
		if (e != cudaSuccess)
			return e;
	}
	b->work = work_per_launch(b, d);
	for (i = 0; i < b->reps; i++) {
		e = timed(b, s, e0, e1, &b->times_ns[i], &b->sm_mhz[i], &b->mem_mhz[i],
			  &b->power_w[i], &b->reasons);
		if (e != cudaSuccess)
			return e;
		b->n = i + 1;
	}
	return cudaSuccess;
}

/* Spin the GPU for about `ms` so that clocks leave their idle state. */
static cudaError_t
warm_up(const struct device *d, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, double ms)
{
	struct bench b;
	double spent = 0, ns = 0;
	cudaError_t e;

	memset(&b, 0, sizeof(b));
	b.kind = K_FP;
	b.sub1 = BENCH_FP32;
	b.sub2 = BENCH_FMA;
	b.threads = 256;
	b.blocks = (unsigned)(d->sms * (d->threads_per_sm / 256));
	b.iters = 64;
	e = ensure(&bufs.sink, &bufs.sink_bytes, (size_t)b.blocks * b.threads * 8);
	if (e != cudaSuccess)
		return e;
	while (spent < ms) {
		e = timed(&b, s, e0, e1, &ns, NULL, NULL, NULL, NULL);
		if (e != cudaSuccess)
			return e;
		spent += ns / 1e6;
		if (ns < 20e6 && b.iters < MAX_ITERS / 2)
			b.iters *= 2;
	}
	return cudaSuccess;
}

static void
bench_json(FILE *f, const struct bench *b, bool last)
{
	fprintf(f, "    {\"name\": \"%s\", \"family\": \"%s\", \"unit\": \"%s\",\n", b->name,
		b->family, b->unit);
	fprintf(f, "     \"blocks\": %u, \"threads\": %u, \"iters\": %lld, \"size_b\": %zu, "
		"\"stride\": %u,\n", b->blocks, b->threads, b->iters, b->size, b->stride);
	fprintf(f, "     \"work\": %.17g,\n     \"times_ns\": ", b->work);
	json_array(f, b->times_ns, b->n);
	fprintf(f, ",\n     \"sm_clock_mhz\": ");
	json_array(f, b->sm_mhz, nvml.ok ? b->n : 0);
	fprintf(f, ",\n     \"mem_clock_mhz\": ");
	json_array(f, b->mem_mhz, nvml.ok ? b->n : 0);
	fprintf(f, ",\n     \"power_w\": ");
	json_array(f, b->power_w, nvml.ok ? b->n : 0);
	fprintf(f, ",\n     \"clock_event_reasons\": \"0x%llx\"", b->reasons);
	if (b->error[0]) {
		fprintf(f, ",\n     \"error\": ");
		json_str(f, b->error);
	}
	fprintf(f, "}%s\n", last ? "" : ",");
}

static FILE *
open_output(const char *path)
{
	FILE *f = !path || strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (!f)
		die_usage("cannot write %s: %s", path, strerror(errno));
	return f;
}

static void
help(void)
{
	printf("Usage: " PROG " --query [--device N] [--output FILE]\n"
	       "       " PROG " --plan FILE [--device N] [--output FILE] "
	       "[--progress tty|lines|none]\n\n"
	       "Runs the CUDA micro-benchmarks of `gpuproj bench` (docs/bench.md) and writes\n"
	       "raw JSON (" RAW_SCHEMA "). Normally started by `gpuproj bench`.\n"
	       "Exit status: 0 ok, 1 a benchmark failed, 2 bad usage, 3 no usable CUDA GPU.\n");
}

int
main(int argc, char **argv)
{
	const char *plan = NULL, *out = NULL, *progress = "none";
	bool query = false;
	int device = 0, i, status = 0;
	struct device d;
	char why[512];
	cudaStream_t s;
	cudaEvent_t e0, e1;
	cudaError_t e = cudaSuccess;
	FILE *f;
	struct timespec t0, t1;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--query") == 0)
			query = true;
		else if (strcmp(argv[i], "--plan") == 0 && i + 1 < argc)
			plan = argv[++i];
		else if (strcmp(argv[i], "--output") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
			device = atoi(argv[++i]);
		else if (strcmp(argv[i], "--progress") == 0 && i + 1 < argc)
			progress = argv[++i];
		else if (strcmp(argv[i], "--version") == 0) {
			printf(PROG " %s (CUDA %d.%d)\n", GPUPROJ_VERSION, CUDART_VERSION / 1000,
			       CUDART_VERSION % 1000 / 10);
			return 0;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			help();
			return 0;
		} else {
			die_usage("unknown or incomplete option '%s' (try --help)", argv[i]);
		}
	}
	if (query == (plan != NULL))
		die_usage("give exactly one of --query and --plan FILE (try --help)");
	if (plan)
		plan_read(plan);

	if (!device_open(device, &d, why, sizeof(why))) {
		fprintf(stderr, PROG ": no CUDA GPU found: %s\n", why);
		f = open_output(out);
		fprintf(f, "{\n  \"schema\": \"" RAW_SCHEMA "\",\n  \"error\": ");
		json_str(f, why);
		fprintf(f, "\n}\n");
		if (f != stdout)
			fclose(f);
		return EXIT_BENCH_NOGPU;
	}
	nvml_open(d.pci);

	f = open_output(out);
	fprintf(f, "{\n  \"schema\": \"" RAW_SCHEMA "\",\n  \"kernels_version\": \"%s\",\n",
		GPUPROJ_VERSION);
	{
		char host[256] = "", date[32] = "";
		time_t now = time(NULL);
		struct tm tm;

		if (gethostname(host, sizeof(host) - 1) != 0)
			snprintf(host, sizeof(host), "unknown");
		if (gmtime_r(&now, &tm))
			strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(f, "  \"host\": ");
		json_str(f, host);
		fprintf(f, ",\n  \"date_utc\": \"%s\",\n", date);
	}
	device_json(f, &d);
	fprintf(f, "  \"clock_source\": \"%s\",\n", nvml.ok ? "nvml" : "attribute");
	if (query) {
		fprintf(f, "  \"benchmarks\": []\n}\n");
		goto out;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	cudaStreamCreate(&s);
	cudaEventCreate(&e0);
	cudaEventCreate(&e1);
	if (warm_ms > 0)
		e = warm_up(&d, s, e0, e1, warm_ms);
	if (e != cudaSuccess)
		snprintf(why, sizeof(why), "warm-up: %s (%s)", cudaGetErrorString(e),
			 cudaGetErrorName(e));
	for (i = 0; i < n_benches && e == cudaSuccess; i++) {
		struct bench *b = &benches[i];

		if (strcmp(progress, "tty") == 0)
			fprintf(stderr, "\r\033[K  [%2d/%d] %-12s", i + 1, n_benches, b->name);
		else if (strcmp(progress, "lines") == 0)
			fprintf(stderr, "  [%2d/%d] %s\n", i + 1, n_benches, b->name);
		e = run_one(b, &d, s, e0, e1);
		if (e == cudaSuccess)
			continue;
		snprintf(b->error, sizeof(b->error), "%s (%s)", cudaGetErrorString(e),
			 cudaGetErrorName(e));
		fprintf(stderr, "%s" PROG ": %s: %s\n", strcmp(progress, "tty") == 0 ? "\n" : "",
			b->name, b->error);
		status = EXIT_BENCH_FAIL;
		if (e == cudaErrorMemoryAllocation) {
			/* Not sticky: the next benchmarks can still run. */
			cudaGetLastError();
			e = cudaSuccess;
			continue;
		}
		snprintf(why, sizeof(why), "%.31s: %.255s", b->name, b->error);
		i++;
		break;
	}
	if (strcmp(progress, "tty") == 0)
		fprintf(stderr, "\r\033[K");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(f, "  \"elapsed_s\": %.3f,\n", (double)(t1.tv_sec - t0.tv_sec) +
		(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (e != cudaSuccess) {
		/* A sticky error: the context is unusable, the rest was not run. */
		fprintf(f, "  \"error\": ");
		json_str(f, why);
		fprintf(f, ",\n");
	}
	fprintf(f, "  \"benchmarks\": [\n");
	{
		int n = i;

		for (i = 0; i < n; i++)
			bench_json(f, &benches[i], i == n - 1);
	}
	fprintf(f, "  ]\n}\n");
out:
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, PROG ": writing %s: %s\n", out, strerror(errno));
		status = EXIT_BENCH_FAIL;
	}
	if (nvml.ok && nvml.shutdown)
		nvml.shutdown();
	return status;
}
