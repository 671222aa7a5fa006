/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI test double: a libcupti.so.13 with the real SONAME and the
 * symbols libproj.so uses, compiled against the real CUPTI headers, plus
 * the fake_* control interface of fake.h ([CUPTI-TEST]).
 *
 * What it models: one subscriber and its enabled callbacks; contexts and
 * devices; activity buffers (requested from and completed to the client,
 * CUpti_ActivityKernel10 records walked by cuptiActivityGetNextRecord,
 * dropped records); the range profiler and the legacy profiler with
 * counter-data images holding scripted metric values; the profiler host
 * API with per-chip metric availability (GB202 spells DRAM directions
 * _op_read/_op_write, GV100 has no uniform datapath, the tensor counters
 * exactly as the host API lists them per chip...).
 *
 * What it enforces (each breach fails the call AND is a violation in the
 * report): structSize == its STRUCT_SIZE (0 in particular), pPriv NULL,
 * call order (profiler initialised before use, Enable before
 * GetCounterDataSize, SetConfig before Start, Stop before DecodeData,
 * decoded images before GetCounterDataInfo/evaluation, sessions closed in
 * order), live objects and contexts, buffers handed back only once and
 * walked only while being delivered, flushes from allowed places only,
 * no CUPTI call in a forked child, nothing left enabled at exit.
 *
 * Thread safety: one mutex guards the state; subscriber callbacks and
 * buffer callbacks are made without it.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <gpuproj/tensor.h>

#include "fake.h"
#include "fake-records.h"

#define API FAKE_EXPORT CUptiResult CUPTIAPI
#define MAX_DEVICES 8
#define MAX_VIOLATIONS 64
#define MAX_FUNCS 128
/*
 * The version the double reports (cuptiGetVersion) and the kernel record
 * it writes for it: that release's CUpti_ActivityKernelN, size and member
 * offsets from NVIDIA's headers (fake-records.h, which cites them).
 */
static uint32_t fake_version = CUPTI_API_VERSION;

_Static_assert(FAKE_KERNEL10_SHARED == offsetof(CUpti_ActivityKernel10, isDeviceLaunched) + 1,
	       "fake-records.h: Kernel10's shared bytes");
_Static_assert(sizeof(CUpti_ActivityKernel10) == 216, "fake-records.h: Kernel10's size");

static const struct fake_kernel_record *
rec_layout(void)
{
	const struct fake_kernel_record *l = fake_kernel_record_for(fake_version);
	size_t n = sizeof(fake_kernel_records) / sizeof(fake_kernel_records[0]);

	if (l)
		return l;
	return fake_version < fake_kernel_records[0].api_min ? &fake_kernel_records[0]
							    : &fake_kernel_records[n - 1];
}

#define REC_SIZE (rec_layout()->size)

static pthread_mutex_t L = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local bool in_launch_cb, in_buffer_cb, in_resource_cb;
static bool in_child;
static pid_t main_pid;

/* ---- violations and call counts ---- */

static char *violations[MAX_VIOLATIONS];
static _Thread_local bool app_thread; /* fake_app_thread(), below */

/*
 * ---- $FAKE_ALARM_AT ----
 *
 * The application's SIGALRM handler calls exit(); the double raises
 * SIGALRM on an application thread at a chosen point, so that the exit
 * path runs in a frame frozen there:
 *   api-record:N   the Nth API activity record, written while the double
 *                  holds L: the signal found CUPTI inside its lock while it
 *                  recorded the application's CUDA call (what locks real
 *                  CUPTI holds, and when, is not documented: [GPU?]; the
 *                  model is the worst case, one lock for everything, as
 *                  cupti_activity.h's rule that buffer callbacks call no
 *                  CUPTI function (7660-7665) suggests a lock held then);
 *   next-record:N  the Nth cuptiActivityGetNextRecord on an application
 *                  thread: inside the client's buffer callback, where it
 *                  holds its own locks (gpuproj: the recorder's).
 */
enum { ALARM_NONE = 0, ALARM_API_RECORD, ALARM_NEXT_RECORD };
static int alarm_at = -1;
static long alarm_left;

static void
fake_alarm_point(int where)
{
	if (alarm_at < 0) {
		const char *v = getenv("FAKE_ALARM_AT");
		char w[32];
		long n;

		alarm_at = ALARM_NONE;
		if (v && sscanf(v, "%31[^:]:%ld", w, &n) == 2 && n > 0) {
			alarm_at = strcmp(w, "api-record") == 0    ? ALARM_API_RECORD
				   : strcmp(w, "next-record") == 0 ? ALARM_NEXT_RECORD
								   : ALARM_NONE;
			alarm_left = n;
		}
	}
	if (alarm_at != where || !app_thread || alarm_left <= 0)
		return;
	if (--alarm_left == 0)
		raise(SIGALRM);
}

/* The process is exiting (fake_report()): L is taken with a bound (exit_lock()). */
static bool exiting;
/* L was not free at exit: a frame exit() interrupted holds it. */
static bool exit_lock_held;

/*
 * L, waited for 2 s at most once the process exits: the application may
 * call exit() from a signal handler that interrupted the double inside L
 * (real CUPTI's internal locks can be held the same way
 * [GPU?]). false: not taken (the caller goes on without it; counted).
 */
static bool
exit_lock(void)
{
	struct timespec until;

	if (!exiting) {
		pthread_mutex_lock(&L);
		return true;
	}
	/* Once found held, it stays held (its frame never returns): do not wait again. */
	if (exit_lock_held)
		return pthread_mutex_trylock(&L) == 0;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	if (pthread_mutex_timedlock(&L, &until) == 0)
		return true;
	exit_lock_held = true;
	return false;
}
static int n_violations;
static struct {
	char *name;		/* a copy: callers in dlclose()d libraries go away */
	unsigned long n;
} calls[MAX_FUNCS];
static size_t n_calls;
static struct {
	char func[96];
	int code, count;	/* count 0 = forever */
} failures[16];
static size_t n_failures;

void
fake_violation(const char *fmt, ...)
{
	static char kept[MAX_VIOLATIONS][512];
	char buf[512], line[560];
	bool locked;
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/*
	 * write(2) and static storage: at exit this may run in a frame that
	 * exit() interrupted from a signal handler inside stdio or malloc,
	 * and L may be held by it (exit_lock()).
	 */
	n = snprintf(line, sizeof(line), "[fake-cupti] VIOLATION: %s\n", buf);
	if (n > 0 && write(2, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		n = 0;
	locked = exit_lock();
	if (n_violations < MAX_VIOLATIONS) {
		snprintf(kept[n_violations], sizeof(kept[0]), "%s", buf);
		violations[n_violations] = kept[n_violations];
	}
	n_violations++;
	if (locked)
		pthread_mutex_unlock(&L);
}

int
fake_violations(void)
{
	int n;

	pthread_mutex_lock(&L);
	n = n_violations;
	pthread_mutex_unlock(&L);
	return n;
}

static void
count_locked(const char *func)
{
	size_t i;

	for (i = 0; i < n_calls; i++) {
		if (strcmp(calls[i].name, func) == 0) {
			calls[i].n++;
			return;
		}
	}
	if (n_calls < MAX_FUNCS) {
		calls[n_calls].name = strdup(func);
		calls[n_calls++].n = 1;
	}
}

void
fake_count(const char *func)
{
	bool child;

	pthread_mutex_lock(&L);
	count_locked(func);
	child = in_child;
	pthread_mutex_unlock(&L);
	if (child)
		fake_violation("%s called in a forked child (the child must not touch CUPTI)", func);
}

unsigned long
fake_calls(const char *func)
{
	unsigned long n = 0;
	size_t i;

	pthread_mutex_lock(&L);
	for (i = 0; i < n_calls; i++) {
		if (strcmp(calls[i].name, func) == 0)
			n = calls[i].n;
	}
	pthread_mutex_unlock(&L);
	return n;
}

void
fake_fail(const char *func, int code, int count)
{
	pthread_mutex_lock(&L);
	if (n_failures < 16) {
		snprintf(failures[n_failures].func, sizeof(failures[0].func), "%s", func);
		failures[n_failures].code = code;
		failures[n_failures++].count = count;
	}
	pthread_mutex_unlock(&L);
}

int
fake_scripted_failure(const char *func)
{
	int code = 0;
	size_t i;

	pthread_mutex_lock(&L);
	for (i = 0; i < n_failures; i++) {
		if (failures[i].code && strcmp(failures[i].func, func) == 0) {
			code = failures[i].code;
			if (failures[i].count > 0 && --failures[i].count == 0)
				failures[i].code = 0;
			break;
		}
	}
	pthread_mutex_unlock(&L);
	return code;
}

static bool fake_finalized(void);

/* A precondition broke: record it and fail the call like the real one would. */
static CUptiResult
bad(const char *func, const char *what)
{
	fake_violation("%s: %s", func, what);
	return CUPTI_ERROR_INVALID_PARAMETER;
}

/* Common entry checks of every params-struct call. */
#define ENTER_PARAMS(p, T) \
	do { \
		int f_; \
		fake_count(__func__); \
		if (fake_finalized()) \
			return CUPTI_ERROR_NOT_INITIALIZED; \
		if (!(p)) \
			return bad(__func__, "NULL params"); \
		if ((p)->structSize == 0) \
			return bad(__func__, "structSize is 0"); \
		if ((p)->structSize != T##_STRUCT_SIZE) \
			return bad(__func__, "structSize is not " #T "_STRUCT_SIZE"); \
		if ((p)->pPriv) \
			return bad(__func__, "pPriv is not NULL"); \
		if ((f_ = fake_scripted_failure(__func__)) != 0) \
			return (CUptiResult)f_; \
	} while (0)

#define ENTER_PLAIN() \
	do { \
		int f_; \
		fake_count(__func__); \
		if (fake_finalized()) \
			return CUPTI_ERROR_NOT_INITIALIZED; \
		if ((f_ = fake_scripted_failure(__func__)) != 0) \
			return (CUptiResult)f_; \
	} while (0)

/* ---- devices, chips, metrics ---- */

static struct fake_device devices[MAX_DEVICES];

void
fake_set_device(int ordinal, const char *name, const char *chip, int cc_major, int cc_minor,
		int sms, int clock_khz)
{
	struct fake_device *d;

	if (ordinal < 0 || ordinal >= MAX_DEVICES)
		return;
	d = &devices[ordinal];
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->chip, sizeof(d->chip), "%s", chip);
	d->cc_major = cc_major;
	d->cc_minor = cc_minor;
	d->sms = sms;
	d->clock_khz = clock_khz;
	d->defined = true;
	{
		int cc = cc_major * 10 + cc_minor;
		/* CUDA Programming Guide, Technical Specifications per Compute Capability. */
		long long threads_sm = cc == 75 ? 1024 : (cc == 86 || cc == 89 || cc >= 120) ? 1536 : 2048;
		long long blocks_sm = (cc == 75 || cc == 86 || cc >= 120) ? 16 : cc == 89 ? 24 : 32;
		long long smem_kib = cc == 75 ? 64 : cc == 80 || cc == 87 ? 164 : cc >= 90 && cc < 120
			? 228 : cc == 70 ? 96 : 100;

		d->attr[FAKE_DEV_MEM_KHZ] = 1215000;
		d->attr[FAKE_DEV_BUS_BITS] = 5120;
		d->attr[FAKE_DEV_L2_BYTES] = 40LL << 20;
		d->attr[FAKE_DEV_MEM_MIB] = 40LL << 10;
		d->attr[FAKE_DEV_THREADS_SM] = threads_sm;
		d->attr[FAKE_DEV_THREADS_BLOCK] = 1024;
		d->attr[FAKE_DEV_BLOCKS_SM] = blocks_sm;
		d->attr[FAKE_DEV_REGS_SM] = 65536;
		d->attr[FAKE_DEV_REGS_BLOCK] = 65536;
		d->attr[FAKE_DEV_SMEM_SM] = smem_kib << 10;
		d->attr[FAKE_DEV_SMEM_OPTIN] = (smem_kib - (cc >= 80 ? 1 : 0)) << 10;
		d->attr[FAKE_DEV_SMEM_RESERVED] = cc >= 80 ? 1024 : 0;
		d->attr[FAKE_DEV_WARP] = 32;
		d->attr[FAKE_DEV_POWER_W] = 400;
		/* No clock samples unless a scenario asks for them. */
		d->attr[FAKE_DEV_NVML_SM_MHZ] = -1;
		d->attr[FAKE_DEV_NVML_REASONS] = -1;
	}
}

bool
fake_set_device_attr(int ordinal, const char *key, long long value)
{
	static const char *const keys[FAKE_DEV_ATTR_COUNT] = {
		"mem_khz", "bus", "l2", "mem_mib", "threads_sm", "threads_block", "blocks_sm",
		"regs_sm", "regs_block", "smem_sm", "optin", "reserved", "warp", "power_w",
		"nvml_sm_mhz", "nvml_reasons",
	};
	size_t i;

	if (ordinal < 0 || ordinal >= MAX_DEVICES || !devices[ordinal].defined)
		return false;
	for (i = 0; i < FAKE_DEV_ATTR_COUNT; i++) {
		if (strcmp(key, keys[i]) == 0) {
			devices[ordinal].attr[i] = value;
			return true;
		}
	}
	return false;
}

const struct fake_device *
fake_get_device(int ordinal)
{
	if (ordinal < 0 || ordinal >= MAX_DEVICES || !devices[ordinal].defined)
		return NULL;
	return &devices[ordinal];
}

static const char *const known_chips[] = {
	"GV100", "TU102", "TU104", "TU116", "GA100", "GA102", "GH100", "AD102", "AD104", "GB100",
	"GB202",
};

bool
fake_chip_known(const char *chip)
{
	size_t i;

	for (i = 0; chip && i < sizeof(known_chips) / sizeof(known_chips[0]); i++) {
		if (strcmp(chip, known_chips[i]) == 0)
			return true;
	}
	return false;
}

/*
 * The tensor counter families: their names are answered by the core's
 * table (src/tensor.c), which was generated from the CUPTI 13.0 host API's
 * enumeration per chip (cuptiProfilerHostGetBaseMetrics and
 * cuptiProfilerHostConfigAddMetrics of every name, API 130001) and which
 * tests/inject/test-cupti-host.c (tensor_table_matches_host) compares with
 * the real host API, both ways, on 29 chips. A name of these families that
 * the table lacks is refused, as the real host API refuses a name a chip
 * lacks ("sm__ops_path_tensor_src_bf16_dst_fp32.sum" on GV100).
 */
static bool
tensor_family(const char *name)
{
	static const char *const prefixes[] = {
		"sm__ops_path_tensor_", "sm__inst_executed_pipe_tensor", "sm__pipe_tensor_",
		"sm__inst_executed_pipe_tc", "sm__inst_executed_pipe_fp64_op_dmma",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	}
	return false;
}

/*
 * Per-chip availability, after what the real host API says ([CUPTI-MET]):
 * GB202 has dram__bytes_op_read/_op_write instead of dram__bytes_read/_write,
 * GV100 no uniform datapath, the tensor counters per chip as above;
 * anything with "bogus" in it is unknown.
 */
bool
fake_metric_valid(const char *chip, const char *name)
{
	bool gb202 = strcmp(chip, "GB202") == 0;

	if (!name || !*name || !strstr(name, "__") || strstr(name, "bogus"))
		return false;
	if (tensor_family(name))
		return gpuproj_tensor_counter_exists(chip, name);
	if (strncmp(name, "raw:", 4) == 0)
		return false;
	if (gb202 && (strcmp(name, "dram__bytes_read.sum") == 0 ||
		      strcmp(name, "dram__bytes_write.sum") == 0))
		return false;
	if (!gb202 && strstr(name, "dram__bytes_op_"))
		return false;
	if (strcmp(chip, "GV100") == 0 && strstr(name, "_op_uniform_"))
		return false;
	return true;
}

size_t
fake_passes(size_t n)
{
	return 1 + n / 16;
}

/* Scripted metric values. */
static struct {
	char *name;
	double value;
} metrics[128];
static size_t n_metrics;

void
fake_set_metric(const char *name, double value)
{
	size_t i;

	pthread_mutex_lock(&L);
	for (i = 0; i < n_metrics; i++) {
		if (strcmp(metrics[i].name, name) == 0) {
			metrics[i].value = value;
			goto out;
		}
	}
	if (n_metrics < 128) {
		metrics[n_metrics].name = strdup(name);
		metrics[n_metrics++].value = value;
	}
out:
	pthread_mutex_unlock(&L);
}

/* L held. */
static double
metric_value_locked(const char *name, const struct fake_kernel *k)
{
	double threads = (double)k->grid[0] * k->grid[1] * k->grid[2] * k->block[0] *
			 k->block[1] * k->block[2];
	size_t len, i;

	if (strncmp(name, "raw:", 4) == 0)
		name += 4;
	len = strlen(name);
	for (i = 0; i < n_metrics; i++) {
		if (strcmp(metrics[i].name, name) == 0) {
			if (len > 4 && strcmp(name + len - 4, ".sum") == 0 &&
			    strcmp(name, "gpu__time_duration.sum") != 0)
				return metrics[i].value * threads;
			return metrics[i].value;
		}
	}
	if (strcmp(name, "gpu__time_duration.sum") == 0)
		return (double)k->duration_ns;
	return 0;
}

double
fake_metric_value(const char *name, const struct fake_kernel *k)
{
	double v;

	pthread_mutex_lock(&L);
	v = metric_value_locked(name, k);
	pthread_mutex_unlock(&L);
	return v;
}

/* ---- counter-data images ---- */

#define CD_MAGIC 0x44434b46u /* "FKCD" */

struct cd_header {
	uint32_t magic;
	uint32_t n;		/* metrics */
	uint32_t max_ranges;
	uint32_t ranges;	/* recorded (and, for the legacy profiler, decoded) */
	uint32_t dropped;
	uint32_t decoded;
	uint32_t names_len;
	uint32_t undecoded;	/* legacy profiler: ranges of passes not decoded yet */
};

size_t
fake_cd_size(size_t n, size_t names_len, size_t ranges)
{
	return sizeof(struct cd_header) + (names_len + 7) / 8 * 8 + n * ranges * sizeof(double);
}

bool
fake_cd_init(uint8_t *image, size_t size, const char *names, size_t n, size_t names_len,
	     size_t ranges)
{
	struct cd_header h = { CD_MAGIC, (uint32_t)n, (uint32_t)ranges, 0, 0, 0,
			       (uint32_t)names_len, 0 };

	if (!image || size < fake_cd_size(n, names_len, ranges))
		return false;
	memset(image, 0, fake_cd_size(n, names_len, ranges));
	memcpy(image, &h, sizeof(h));
	memcpy(image + sizeof(h), names, names_len);
	return true;
}

static struct cd_header *
cd_header(const uint8_t *image)
{
	struct cd_header *h = (struct cd_header *)(uintptr_t)image;

	return image && h->magic == CD_MAGIC ? h : NULL;
}

static double *
cd_values(const uint8_t *image)
{
	const struct cd_header *h = cd_header(image);

	return (double *)(uintptr_t)(image + sizeof(*h) + (h->names_len + 7) / 8 * 8);
}

long
fake_cd_ranges(const uint8_t *image)
{
	const struct cd_header *h = cd_header(image);

	return h ? (long)h->ranges : -1;
}

/* Index of a name in an image's name list, -1 when absent. */
static long
cd_index(const uint8_t *image, const char *name)
{
	const struct cd_header *h = cd_header(image);
	const char *p = (const char *)(image + sizeof(*h));
	uint32_t i;

	for (i = 0; h && i < h->n; i++) {
		if (strcmp(p, name) == 0)
			return (long)i;
		p += strlen(p) + 1;
	}
	return -1;
}

bool
fake_cd_value(const uint8_t *image, size_t r, const char *name, double *ret)
{
	const struct cd_header *h = cd_header(image);
	long i = cd_index(image, name);

	if (!h || i < 0 || r >= h->ranges || r >= h->max_ranges)
		return false;
	*ret = cd_values(image)[r * h->n + (size_t)i];
	return true;
}

/*
 * Record one range of kernel k into an image (L held). The legacy
 * profiler's passes are only decoded into the image by
 * cuptiProfilerFlushCounterData ("Flush Counter data API to ensure every
 * pass is decoded into the counterDataImage passed at beginSession",
 * cupti_profiler_target.h:498-503, cuptiProfilerFlushCounterData; NVIDIA's
 * kernel-replay samples call it after DisableProfiling): `undecoded`.
 */
static void
cd_record_as(uint8_t *image, const struct fake_kernel *k, bool undecoded)
{
	struct cd_header *h = cd_header(image);
	const char *p;
	uint32_t i, at;

	if (!h)
		return;
	at = h->ranges + h->undecoded;
	if (at >= h->max_ranges) {
		h->dropped++;
		return;
	}
	p = (const char *)(image + sizeof(*h));
	for (i = 0; i < h->n; i++) {
		cd_values(image)[at * h->n + i] = metric_value_locked(p, k);
		p += strlen(p) + 1;
	}
	if (undecoded)
		h->undecoded++;
	else
		h->ranges++;
}

static void
cd_record(uint8_t *image, const struct fake_kernel *k)
{
	cd_record_as(image, k, false);
}

/* Name-list blobs: config images and counter-data prefixes. */
#define BLOB_CONFIG 0x47464346u /* "FCFG" range profiler config image */

struct blob {
	uint32_t magic, n, names_len, pad;
	char chip[32];
};

static uint8_t *
blob_make(uint32_t magic, const char *chip, const char *names, size_t n, size_t names_len,
	  size_t *ret_size)
{
	struct blob b = { magic, (uint32_t)n, (uint32_t)names_len, 0, { 0 } };
	uint8_t *buf;

	snprintf(b.chip, sizeof(b.chip), "%s", chip);
	*ret_size = sizeof(b) + names_len;
	buf = malloc(*ret_size);
	if (!buf)
		return NULL;
	memcpy(buf, &b, sizeof(b));
	memcpy(buf + sizeof(b), names, names_len);
	return buf;
}

static bool
blob_parse(const uint8_t *buf, size_t size, uint32_t magic, const char **names, size_t *n,
	   size_t *names_len)
{
	struct blob b;

	if (!buf || size < sizeof(b))
		return false;
	memcpy(&b, buf, sizeof(b));
	if (b.magic != magic || size < sizeof(b) + b.names_len)
		return false;
	*names = (const char *)(buf + sizeof(b));
	*n = b.n;
	*names_len = b.names_len;
	return true;
}

/* ---- contexts ---- */

struct rp;

struct fake_ctx {
	uint32_t magic;
	int id, device;
	bool alive;
	/* the GPU (see "the GPU" below) */
	int syncing;			/* threads waiting for this context to drain */
	bool replaying;			/* a kernel runs under kernel replay: nothing else runs */
	struct devrec *uncollected;	/* finished operations' records still on the device */
	size_t n_uncollected, cap_uncollected;
	struct rp *rp;			/* enabled range profiler object */
	/* legacy profiler */
	bool session, configured, enabled;
	uint8_t *legacy_image;
	char *legacy_names;		/* from the NVPW config image */
	size_t legacy_n, legacy_names_len, legacy_passes;
	/* virtual time (fake.h "Time"): when each stream's last op ended, streams mod 64 */
	uint64_t stream_end[64];
	uint64_t all_end;		/* the last op of any stream */
	uint64_t legacy_end;		/* the last op of the legacy default stream */
	bool stream_seen[64];		/* its STREAM record was written */
	struct fake_ctx *next;
};
#define CTX_MAGIC 0x58544346u

static struct fake_ctx *ctxs;
static int n_ctxs;

static struct fake_ctx *
ctx_of(CUcontext c)
{
	struct fake_ctx *x;

	for (x = ctxs; x; x = x->next) {
		if ((CUcontext)x == c)
			return x;
	}
	return NULL;
}

/* ---- stream capture ---- */

/*
 * A capture in cudaStreamCaptureModeGlobal makes "potentially unsafe API
 * calls" an error for the whole process while it lasts, synchronisation in
 * particular (cuda_runtime_api.h:2435-2468 cudaStreamBeginCapture;
 * driver_types.h:1016 cudaErrorStreamCaptureUnsupported, :1052
 * cudaErrorStreamCaptureImplicit):
 * the capture is invalidated. The double records a violation when a
 * context is synchronised (DecodeData, cuCtxSynchronize, kernel replay)
 * during one.
 */
static bool capture_global;
static struct fake_ctx *capture_ctx;

/* ---- activity state (used by the API records of fake_api() too) ---- */

static CUpti_BuffersCallbackRequestFunc buf_req;
static CUpti_BuffersCallbackCompleteFunc buf_done;
static bool kernel_activity;
static bool replay_records = true;
static uint64_t drop_next, dropped_pending;
/*
 * The other activity kinds the double writes (fake-records.h), enabled by
 * the client whose buffer callbacks were registered then (`kind_owner`).
 */
#define KIND_MAX 64
static bool kind_on[KIND_MAX];
static CUpti_BuffersCallbackCompleteFunc kind_owner[KIND_MAX];
/* The virtual clock (fake.h "Time"), ns; the per-call host cost of API calls. */
static uint64_t vclock = 1000000;
static uint64_t api_ns;

/* A finished GPU operation's record, still "on the device" (struct fake_ctx.uncollected). */
struct devrec {
	uint32_t kind;	/* CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, _MEMCPY or _MEMSET */
	union {
		CUpti_ActivityKernel10 k;
		CUpti_ActivityMemcpy6 m;
		CUpti_ActivityMemset4 s;
	} u;
};

struct buffer;
static void deliver_list(struct buffer *list);
static struct buffer *append_other(uint32_t kind, const void *prefix, size_t prefix_size);

/* ---- subscriber ---- */

static CUpti_CallbackFunc sub_fn;
static void *sub_ud;
static bool subscribed;
static struct CUpti_Subscriber_st {
	int dummy;
} the_sub;
static uint8_t enabled_cb[8][1024];

static bool
cb_enabled(CUpti_CallbackDomain dom, CUpti_CallbackId cbid)
{
	return subscribed && (unsigned)dom < 8 && cbid < 1024 && enabled_cb[dom][cbid];
}

static void
emit(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
	CUpti_CallbackFunc fn;
	void *ud;

	pthread_mutex_lock(&L);
	fn = cb_enabled(dom, cbid) ? sub_fn : NULL;
	ud = sub_ud;
	pthread_mutex_unlock(&L);
	if (fn)
		fn(ud, dom, cbid, data);
}

static uint32_t next_corr = 1;

uint32_t
fake_next_correlation(void)
{
	uint32_t c;

	pthread_mutex_lock(&L);
	c = next_corr++;
	pthread_mutex_unlock(&L);
	return c;
}

static bool
is_launch(CUpti_CallbackDomain dom, CUpti_CallbackId cbid)
{
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
		return cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000;
	return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch;
}

/*
 * API calls on this thread still open (their ENTER seen): when each began,
 * for the RUNTIME and DRIVER activity records written at its EXIT.
 */
#define API_DEPTH 16
static _Thread_local uint64_t api_start[API_DEPTH];
static _Thread_local int api_depth;

/* The API record of one call (CUpti_ActivityAPI), written at its EXIT (L held). */
static struct buffer *
api_record(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, uint32_t corr, uint64_t start,
	   uint64_t end, uint32_t ret)
{
	CUpti_ActivityKind kind = dom == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_ACTIVITY_KIND_RUNTIME
								    : CUPTI_ACTIVITY_KIND_DRIVER;
	CUpti_ActivityAPI r;

	if (!kind_on[kind] || !buf_req)
		return NULL;
	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.cbid = cbid;
	r.start = start;
	r.end = end;
	r.processId = (uint32_t)getpid();
	r.threadId = (uint32_t)syscall(SYS_gettid);
	r.correlationId = corr;
	r.returnValue = ret;
	return append_other(kind, &r, sizeof(r));
}

void
fake_api(CUpti_CallbackDomain dom, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
	 const char *func, const void *params, const char *symbol, CUcontext ctx, uint32_t corr,
	 void *ret)
{
	static _Thread_local uint64_t corr_data;
	CUpti_CallbackData cd = {
		.callbackSite = site,
		.functionName = func,
		.functionParams = params,
		.functionReturnValue = site == CUPTI_API_EXIT ? ret : NULL,
		.symbolName = symbol,
		.context = ctx,
		.contextUid = 0,
		.correlationData = &corr_data,
		.correlationId = corr,
	};
	bool launch = is_launch(dom, cbid), outer = !in_launch_cb;
	struct buffer *full = NULL;
	struct fake_ctx *c;

	pthread_mutex_lock(&L);
	c = ctx ? ctx_of(ctx) : NULL;
	if (c)
		cd.contextUid = (uint32_t)c->id;
	if (site == CUPTI_API_ENTER && api_depth++ < API_DEPTH)
		api_start[api_depth - 1] = vclock;
	pthread_mutex_unlock(&L);
	if (launch)
		in_launch_cb = true;
	emit(dom, cbid, &cd);
	if (launch && outer)
		in_launch_cb = false;
	if (site == CUPTI_API_EXIT && api_depth > 0) {
		uint64_t start;

		pthread_mutex_lock(&L);
		start = --api_depth < API_DEPTH ? api_start[api_depth] : vclock;
		/* The outermost call's own host time (fake.h "Time"). */
		if (api_depth == 0)
			vclock += api_ns;
		full = api_record(dom, cbid, corr, start, vclock, ret ? *(const uint32_t *)ret : 0);
		if (full || kind_on[dom == CUPTI_CB_DOMAIN_RUNTIME_API
					    ? CUPTI_ACTIVITY_KIND_RUNTIME
					    : CUPTI_ACTIVITY_KIND_DRIVER])
			fake_alarm_point(ALARM_API_RECORD); /* L held */
		pthread_mutex_unlock(&L);
		deliver_list(full);
	}
}

bool
fake_in_launch_callback(void)
{
	return in_launch_cb;
}

static void finalize_self(void);

void
fake_fatal_error(const char *message)
{
	CUpti_StateData sd;

	memset(&sd, 0, sizeof(sd));
	sd.notification.result = CUPTI_ERROR_UNKNOWN;
	sd.notification.message = message;
	emit(CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR, &sd);
	/* After a fatal error CUPTI finalises itself ([CUPTI-CB]). */
	finalize_self();
}

CUcontext
fake_ctx_create(int device)
{
	struct fake_ctx *c = calloc(1, sizeof(*c));
	CUpti_ResourceData rd = { 0 };

	if (!c)
		abort();
	pthread_mutex_lock(&L);
	c->magic = CTX_MAGIC;
	c->id = ++n_ctxs;
	c->device = device;
	c->alive = true;
	c->next = ctxs;
	ctxs = c;
	pthread_mutex_unlock(&L);
	rd.context = (CUcontext)c;
	in_resource_cb = true;
	emit(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &rd);
	in_resource_cb = false;
	return (CUcontext)c;
}

bool
fake_ctx_alive(CUcontext ctx)
{
	struct fake_ctx *c;
	bool alive;

	pthread_mutex_lock(&L);
	c = ctx_of(ctx);
	alive = c && c->alive;
	pthread_mutex_unlock(&L);
	return alive;
}


void
fake_module_load(CUcontext ctx, uint32_t id, const void *cubin, size_t size)
{
	char *copy = malloc(size);
	CUpti_ModuleResourceData m = { .moduleId = id, .cubinSize = size, .pCubin = copy };
	CUpti_ResourceData rd = { .context = ctx, .resourceDescriptor = &m };

	if (!copy)
		abort();
	memcpy(copy, cubin, size);
	in_resource_cb = true;
	emit(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED, &rd);
	in_resource_cb = false;
	/* After the callback the bytes are not the client's to read any more ([T]). */
	memset(copy, 0xdd, size);
	free(copy);
}

/* ---- activity ---- */


struct buffer {
	uint8_t *buf;
	size_t size, valid;
	bool delivering;
	uint64_t seq;		/* order in which deliveries began (deliver_seq) */
	struct buffer *next;
};
static struct buffer *cur_buf;		/* being filled */
static struct buffer *full_bufs;	/* waiting for delivery */
static struct buffer *delivering;	/* handed to the client right now */
static uint64_t deliver_seq;		/* deliveries begun so far */
static pthread_cond_t deliver_cv = PTHREAD_COND_INITIALIZER; /* one ended */

static void collect_all(struct buffer **full);
static void deliver_list(struct buffer *list);

/* Interned kernel names (records point at them, like CUPTI's shared names). */
static char *kernel_names[4096];
static size_t n_kernel_names;

static const char *
intern(const char *s)
{
	/* The application passes stable name pointers: a pointer-keyed cache first. */
	static struct {
		const char *from, *to;
	} cache[4096];
	size_t i, slot = ((uintptr_t)s >> 3) % 4096;

	if (cache[slot].from == s && strcmp(cache[slot].to, s) == 0)
		return cache[slot].to;
	cache[slot].from = s;
	for (i = 0; i < n_kernel_names; i++) {
		if (strcmp(kernel_names[i], s) == 0)
			return cache[slot].to = kernel_names[i];
	}
	if (n_kernel_names == 4096)
		return cache[slot].to = "(too many names)";
	kernel_names[n_kernel_names] = strdup(s);
	return cache[slot].to = kernel_names[n_kernel_names++];
}

void
fake_set_replay_records(bool on)
{
	pthread_mutex_lock(&L);
	replay_records = on;
	pthread_mutex_unlock(&L);
}

void
fake_drop_records(uint64_t n)
{
	pthread_mutex_lock(&L);
	drop_next += n;
	pthread_mutex_unlock(&L);
}

/*
 * Append one record's bytes (L held): a buffer that cannot hold it is full
 * (returned, to be delivered) and the next one is requested. Returns a full
 * buffer to deliver, or NULL.
 */
static struct buffer *
append_raw(const void *bytes, size_t size)
{
	static long cap = -1;
	struct buffer *full = NULL;

	/*
	 * $FAKE_BUFFER_BYTES: a buffer counts as full past that many bytes, so
	 * that buffers complete inside the application's calls, on its thread,
	 * after a few records (as CUPTI's do when the client's buffers are
	 * small or the records many). Unset: the client's size.
	 */
	if (cap < 0)
		cap = getenv("FAKE_BUFFER_BYTES") ? atol(getenv("FAKE_BUFFER_BYTES")) : 0;
	if (cur_buf && (cur_buf->valid + size > cur_buf->size ||
			(cap > 0 && cur_buf->valid + size > (size_t)cap))) {
		full = cur_buf;
		cur_buf = NULL;
	}
	if (!cur_buf) {
		uint8_t *b = NULL;
		size_t bsize = 0, max = 0;

		buf_req(&b, &bsize, &max);
		if (!b || bsize < size) {
			dropped_pending++;
			return full;
		}
		if ((uintptr_t)b % 8 != 0) {
			fake_violation("bufferRequested returned a buffer not aligned to 8 bytes");
			free(b);
			dropped_pending++;
			return full;
		}
		cur_buf = calloc(1, sizeof(*cur_buf));
		if (!cur_buf)
			abort();
		cur_buf->buf = b;
		cur_buf->size = bsize;
	}
	memcpy(cur_buf->buf + cur_buf->valid, bytes, size);
	cur_buf->valid += size;
	return full;
}

/* A kernel record in the loaded version's layout (L held). */
static struct buffer *
append_record(const CUpti_ActivityKernel10 *rec)
{
	/*
	 * The loaded version's record: Kernel10's bytes through
	 * isDeviceLaunched, zero padding, then what the release appends
	 * (fake-records.h). priority 0: the default stream priority
	 * (cudaDeviceGetStreamPriorityRange); executionModel
	 * CUPTI_FUNC_EXECUTION_MODEL_SIMT (1; 13.4.92 cupti_activity.h:3665),
	 * what a CUDA C++ kernel is; sourceGraphId/NodeId: the graph's own
	 * (no graph was updated or cloned), 0 outside graphs (13.4.92
	 * cupti_activity.h:4000-4015).
	 */
	const struct fake_kernel_record *l = rec_layout();
	uint8_t dst[512];
	int32_t priority = 0;
	uint32_t model = 1, src_graph = rec->graphId;
	uint64_t src_node = rec->graphNodeId;

	memset(dst, 0, l->size);
	memcpy(dst, rec, FAKE_KERNEL10_SHARED);
	if (l->priority >= 0)
		memcpy(dst + l->priority, &priority, sizeof(priority));
	if (l->execution_model >= 0)
		memcpy(dst + l->execution_model, &model, sizeof(model));
	if (l->source_graph_id >= 0)
		memcpy(dst + l->source_graph_id, &src_graph, sizeof(src_graph));
	if (l->source_graph_node_id >= 0)
		memcpy(dst + l->source_graph_node_id, &src_node, sizeof(src_node));
	return append_raw(dst, l->size);
}

/*
 * Another kind's record (fake-records.h): `prefix` is the oldest record's
 * bytes, the version's record appends zeros (L held).
 */
static struct buffer *
append_other(uint32_t kind, const void *prefix, size_t prefix_size)
{
	const struct fake_other_record *o = fake_other_record_for(kind, fake_version);
	uint8_t dst[256];

	if (!o || o->size > sizeof(dst) || prefix_size > o->size)
		abort();
	memset(dst, 0, o->size);
	memcpy(dst, prefix, prefix_size);
	return append_raw(dst, o->size);
}

/* The size of the record at p, by its kind and the version (fake-records.h). */
static size_t
record_size_at(const uint8_t *p)
{
	uint32_t kind;
	const struct fake_other_record *o;

	memcpy(&kind, p, sizeof(kind));
	if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL)
		return REC_SIZE;
	o = fake_other_record_for(kind, fake_version);
	return o ? o->size : REC_SIZE;
}

/* Queue a full buffer returned by an append for delivery (L held). */
static void
keep_full(struct buffer *f, struct buffer **full)
{
	if (f) {
		f->next = *full;
		*full = f;
	}
}

/*
 * $FAKE_DELIVER_HOLD_MS (tests only, 0 to 10 s): a delivery on a thread
 * that is not the application's (CUPTI's worker, gpuproj's) takes this
 * long before the client's callback runs, as when that thread is
 * preempted on a loaded machine; it widens the window in which another
 * thread's cuptiActivityFlushAll must wait for it (wait_deliveries()).
 */
/* app_thread: declared at the top (the signal points, fake_alarm_point()). */

/* Sleep for $var milliseconds (0 to 10 s; unset or out of range: none). */
static void
env_hold(const char *var)
{
	const char *e = getenv(var);
	long v = e ? atol(e) : 0;

	if (v > 0 && v <= 10000) {
		struct timespec ts = { v / 1000, (v % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
}

static void
deliver_hold(void)
{
	if (!app_thread)
		env_hold("FAKE_DELIVER_HOLD_MS");
}

static void
deliver_list(struct buffer *list)
{
	while (list) {
		struct buffer *b = list;

		list = b->next;
		pthread_mutex_lock(&L);
		b->delivering = true;
		b->seq = ++deliver_seq;
		b->next = delivering;
		delivering = b;
		pthread_mutex_unlock(&L);
		deliver_hold();
		in_buffer_cb = true;
		buf_done(NULL, 0, b->buf, b->size, b->valid);
		in_buffer_cb = false;
		pthread_mutex_lock(&L);
		{
			struct buffer **pp;

			for (pp = &delivering; *pp; pp = &(*pp)->next) {
				if (*pp == b) {
					*pp = b->next;
					break;
				}
			}
		}
		pthread_cond_broadcast(&deliver_cv);
		pthread_mutex_unlock(&L);
		free(b);
	}
}

/* Take every buffered record for delivery (L held). */
static struct buffer *
take_all(void)
{
	struct buffer *list = full_bufs;	/* newest first */

	full_bufs = NULL;
	if (cur_buf && cur_buf->valid) {
		cur_buf->next = list;
		list = cur_buf;
		cur_buf = NULL;
	}
	/* Oldest first. */
	{
		struct buffer *rev = NULL;

		while (list) {
			struct buffer *n = list->next;

			list->next = rev;
			rev = list;
			list = n;
		}
		list = rev;
	}
	return list;
}

void
fake_flush(void)
{
	struct buffer *list;

	pthread_mutex_lock(&L);
	list = NULL;
	if (buf_done) {
		/* Collect the records still on the device, then hand every buffer back. */
		collect_all(&full_bufs);
		list = take_all();
	}
	pthread_mutex_unlock(&L);
	deliver_list(list);
}

/* ---- range profiler objects ---- */

#define RP_MAGIC 0x4f504652u

struct rp {
	uint32_t magic;
	struct fake_ctx *ctx;
	size_t cd_size;			/* from GetCounterDataSize */
	uint8_t *image;
	size_t image_size;
	bool image_init;
	const uint8_t *config;
	size_t config_size, passes;
	bool configured, started, stopped, decoded;
	struct rp *next;
};
static struct rp *rps;
static int forced_ranges = -1;
static int dropped_windows;
/*
 * Another client (DCGM, dcgm-exporter) holds the counters: starting a
 * profiling session fails with CUPTI_ERROR_HARDWARE_BUSY ("The performance
 * monitoring hardware is in use by other client", cupti_result.h:191-193; DCGM and
 * CUPTI "lock the same primitive in the driver ... a system-wide lock",
 * NVIDIA/DCGM issue 56). Which call reports it first is [GPU?]; the double
 * fails the start of a window (cuptiRangeProfilerStart,
 * cupti_range_profiler.h:204; cuptiProfilerBeginSession,
 * cupti_profiler_target.h:306).
 */
static bool counters_busy;

void
fake_counters_busy(bool busy)
{
	pthread_mutex_lock(&L);
	counters_busy = busy;
	pthread_mutex_unlock(&L);
}

static bool
busy_now(void)
{
	bool b;

	pthread_mutex_lock(&L);
	b = counters_busy;
	pthread_mutex_unlock(&L);
	return b;
}

static struct rp *
rp_of(CUpti_RangeProfiler_Object *o)
{
	struct rp *r;

	for (r = rps; r; r = r->next) {
		if ((CUpti_RangeProfiler_Object *)r == o)
			return r;
	}
	return NULL;
}

void
fake_set_ranges(int n)
{
	pthread_mutex_lock(&L);
	forced_ranges = n;
	pthread_mutex_unlock(&L);
}

void
fake_set_dropped_ranges(int n)
{
	pthread_mutex_lock(&L);
	dropped_windows = n;
	pthread_mutex_unlock(&L);
}

/* ---- the GPU: per-stream queues, flags, completion ---- */

/*
 * Launches enter per-stream queues and complete later (CUDA Programming
 * Guide, "Asynchronous Concurrent Execution": kernel launches return before
 * the kernel completes; work on one stream runs in order, streams are
 * unordered except for the legacy default stream, which waits for all
 * earlier work of the context and is waited for by all later work —
 * CUDA Runtime API, "Stream synchronization behavior"; the handles:
 * cuda.h:440 CU_STREAM_LEGACY, :450 CU_STREAM_PER_THREAD). A kernel may wait
 * for a flag (a host-written value, or one set by another kernel when it
 * completes), so it can depend on a launch made after it; one marked
 * `inflight` finishes only when something synchronises with it (a long
 * kernel still running).
 *
 * A kernel launched while a profiler window is open on its context runs
 * under kernel replay: the context is drained first and the launch returns
 * only after every pass, nothing else runs on the context meanwhile
 * ([CUPTI-RP]: auto range + kernel replay serialises and synchronises;
 * the draining order is [GPU?]). If that can never finish — the kernel
 * waits for work not yet launched, or pending work waits for it — the real
 * application hangs; the double says so (violation "HANG: ...") and ends
 * the process with status 124 after FAKE_HANG_MS (default 5000) of no
 * progress on an application thread.
 *
 * Finished kernels' records stay "on the device" until CUPTI collects them
 * (any cuptiActivityFlushAll, cupti_activity.h:7747, or 64 of them; when
 * the real one collects is [GPU?]): a context destroyed before
 * that loses them ([GPU?]; NVIDIA's samples flush at cudaDeviceReset for
 * this reason, helper_cupti_activity.h), and kernels still queued at exit
 * never produce one.
 */
#define MAX_FLAGS 64
#define COLLECT_AT 64

struct op {
	struct op *next;
	uint64_t seq;
	struct fake_ctx *ctx;
	struct fake_kernel k;		/* k.name interned */
	bool is_wait;			/* a stream wait (cuStreamWaitValue32) for k.waits */
};
static struct op *ops;			/* pending, in launch order */
static uint64_t op_seq;
static bool gpu_flags[MAX_FLAGS];
/* Virtual time of flags and events (fake.h "Time"). */
static uint64_t flag_time[MAX_FLAGS];
#define MAX_EVENTS 64
static struct {
	uint64_t time;		/* when its latest executed record ran */
	uint64_t rec_seq;	/* the op of its latest record enqueued */
	uint64_t done_seq;	/* the op of its latest record executed */
	uint64_t sync_id;	/* cudaEventSyncId of its latest record */
} events[MAX_EVENTS];
static uint64_t next_sync_id;
/* The end of recently executed blocking copies, by op seq (their callers wait for it). */
static struct {
	uint64_t seq, end;
} blocking_end[64];
static pthread_cond_t gpu_cv = PTHREAD_COND_INITIALIZER;
static uint64_t records_lost;		/* with destroyed contexts */

void
fake_app_thread(void)
{
	app_thread = true;
}

static void hang(const char *what, ...) __attribute__((format(printf, 1, 2), noreturn));

static long
hang_ms(void)
{
	const char *v = getenv("FAKE_HANG_MS");

	return v && atol(v) > 0 ? atol(v) : 5000;
}

/* Whether op may start now (L held). */
static bool
runnable(const struct op *o)
{
	const struct op *e;

	if (o->ctx->replaying)
		return false;
	if (o->k.waits && !gpu_flags[o->k.waits % MAX_FLAGS])
		return false;
	if (o->k.op == FAKE_OP_EVENT_WAIT && events[o->k.event % MAX_EVENTS].done_seq < o->k.ev_seq)
		return false;
	if (o->k.inflight && !o->ctx->syncing)
		return false;
	for (e = ops; e != o; e = e->next) {
		if (e->ctx != o->ctx)
			continue;
		/* In order on a stream; the legacy default stream (0) orders everything. */
		if (e->k.stream == o->k.stream || e->k.stream == 0 || o->k.stream == 0)
			return false;
	}
	return true;
}

/* The activity record of one execution of k (L held). */
static void
make_record(CUpti_ActivityKernel10 *rec, const struct fake_ctx *c, const struct fake_kernel *k,
	    uint64_t start, uint64_t duration)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	rec->registersPerThread = (uint16_t)k->regs;
	rec->deviceId = (uint32_t)c->device;
	rec->contextId = (uint32_t)c->id;
	rec->streamId = k->stream;
	rec->gridX = (int32_t)k->grid[0];
	rec->gridY = (int32_t)k->grid[1];
	rec->gridZ = (int32_t)k->grid[2];
	rec->blockX = (int32_t)k->block[0];
	rec->blockY = (int32_t)k->block[1];
	rec->blockZ = (int32_t)k->block[2];
	rec->staticSharedMemory = (int32_t)k->smem_static;
	rec->dynamicSharedMemory = (int32_t)k->smem_dynamic;
	rec->correlationId = k->correlation;
	rec->name = k->name;
	rec->graphId = k->graph_id;
	rec->graphNodeId = k->graph_id ? 1 : 0;
	rec->clusterX = k->cluster[0];
	rec->clusterY = k->cluster[1];
	rec->clusterZ = k->cluster[2];
	rec->start = start;
	rec->end = start + duration;
}

static void
uncollected_add(struct fake_ctx *c, const struct devrec *rec)
{
	if (drop_next) {
		/* CUPTI out of buffer space when the record is made: dropped and counted. */
		drop_next--;
		dropped_pending++;
		return;
	}
	if (c->n_uncollected == c->cap_uncollected) {
		c->cap_uncollected = c->cap_uncollected ? 2 * c->cap_uncollected : 16;
		c->uncollected = realloc(c->uncollected, c->cap_uncollected * sizeof(*rec));
		if (!c->uncollected)
			abort();
	}
	c->uncollected[c->n_uncollected++] = *rec;
}

/* Move a context's finished records into the client's buffers (L held); full ones to *full. */
static void
collect_ctx(struct fake_ctx *c, struct buffer **full)
{
	size_t i;

	for (i = 0; i < c->n_uncollected; i++) {
		const struct devrec *d = &c->uncollected[i];

		if (d->kind == CUPTI_ACTIVITY_KIND_MEMCPY)
			keep_full(append_other(d->kind, &d->u.m, sizeof(d->u.m)), full);
		else if (d->kind == CUPTI_ACTIVITY_KIND_MEMSET)
			keep_full(append_other(d->kind, &d->u.s, sizeof(d->u.s)), full);
		else
			keep_full(append_record(&d->u.k), full);
	}
	c->n_uncollected = 0;
}

static void
collect_all(struct buffer **full)
{
	struct fake_ctx *c;

	for (c = ctxs; c; c = c->next)
		collect_ctx(c, full);
}

/*
 * Execute k on c: a range in the active profiler window when it was
 * launched inside it (`profiled`), and the activity record(s) when kernel
 * tracing is on (one per replay pass, each 3x the duration, for a profiled
 * launch: what the join must survive). A kernel launched before the
 * window and run during it (queued behind other work) is not profiled:
 * auto range covers launches made while profiling is started. L held.
 */
/*
 * When op k can start on c (L held; fake.h "Time"): not before its launch
 * call began, after its stream's last op (the legacy default stream: after
 * every stream's; any other stream: after the legacy stream's too), after
 * the flag or the event it waits for.
 */
static uint64_t
op_start(const struct fake_ctx *c, const struct fake_kernel *k)
{
	uint64_t t = k->issue_ns;
	unsigned st = k->stream % 64;

	if (k->stream == 0)
		t = t > c->all_end ? t : c->all_end;
	else {
		uint64_t p = c->stream_end[st] > c->legacy_end ? c->stream_end[st] : c->legacy_end;

		t = t > p ? t : p;
	}
	if (k->waits && flag_time[k->waits % MAX_FLAGS] > t)
		t = flag_time[k->waits % MAX_FLAGS];
	if (k->op == FAKE_OP_EVENT_WAIT && events[k->event % MAX_EVENTS].time > t)
		t = events[k->event % MAX_EVENTS].time;
	return t;
}

/* Op k ran on c until `end` (L held). */
static void
op_done(struct fake_ctx *c, const struct fake_kernel *k, uint64_t seq, uint64_t end)
{
	unsigned st = k->stream % 64;

	if (end > c->stream_end[st])
		c->stream_end[st] = end;
	if (end > c->all_end)
		c->all_end = end;
	if (k->stream == 0 && end > c->legacy_end)
		c->legacy_end = end;
	if (k->sets) {
		gpu_flags[k->sets % MAX_FLAGS] = true;
		flag_time[k->sets % MAX_FLAGS] = end;
	}
	if (k->op == FAKE_OP_EVENT_RECORD) {
		events[k->event % MAX_EVENTS].time = end;
		events[k->event % MAX_EVENTS].done_seq = k->ev_seq;
	}
	if ((k->op == FAKE_OP_COPY || k->op == FAKE_OP_MEMSET) && !k->async) {
		blocking_end[seq % 64].seq = seq;
		blocking_end[seq % 64].end = end;
		/*
		 * A cudaMemcpy from pageable memory to the device "will return
		 * once the pageable buffer has been copied to the staging memory
		 * for DMA transfer to device memory, but the DMA to final
		 * destination may not have completed" (CUDA Runtime API, "API
		 * synchronization behavior"); its record still lacks
		 * CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC. The double stages the first
		 * half: the call returns halfway through the copy ([GPU?] the
		 * share; CloverLeaf's nsys export shows ends 2.2-43.3 us after
		 * the return).
		 */
		if (k->op == FAKE_OP_COPY && k->copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD &&
		    k->src_kind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE)
			blocking_end[seq % 64].end = end - k->duration_ns / 2;
	}
}

/* The record of a copy or a set that ran [start, end] (L held). */
static void
copy_record(struct fake_ctx *c, const struct fake_kernel *k, uint64_t start, uint64_t end)
{
	struct devrec d;

	memset(&d, 0, sizeof(d));
	if (k->op == FAKE_OP_COPY) {
		CUpti_ActivityMemcpy6 *m = &d.u.m;

		d.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
		m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
		m->copyKind = k->copy_kind;
		m->srcKind = k->src_kind;
		m->dstKind = k->dst_kind;
		/* cupti_activity.h CUpti_ActivityFlag: CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC. */
		m->flags = k->async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
		m->bytes = k->bytes;
		m->start = start;
		m->end = end;
		m->deviceId = (uint32_t)c->device;
		m->contextId = (uint32_t)c->id;
		m->streamId = k->stream;
		m->correlationId = k->correlation;
		m->runtimeCorrelationId = k->rt_correlation;
		m->copyCount = 1; /* not a batch (CUpti_ActivityMemcpy6.copyCount) */
	} else {
		CUpti_ActivityMemset4 *m = &d.u.s;

		d.kind = CUPTI_ACTIVITY_KIND_MEMSET;
		m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
		m->bytes = k->bytes;
		m->start = start;
		m->end = end;
		m->deviceId = (uint32_t)c->device;
		m->contextId = (uint32_t)c->id;
		m->streamId = k->stream;
		m->correlationId = k->correlation;
		m->flags = k->async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : 0;
		m->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	}
	uncollected_add(c, &d);
}

/*
 * Execute op k on c: a kernel's range in the active profiler window when it
 * was launched inside it (`profiled`), and the activity record(s) when
 * tracing is on (one per replay pass, each 3x the duration, for a profiled
 * launch: what the join must survive). A kernel launched before the
 * window and run during it (queued behind other work) is not profiled:
 * auto range covers launches made while profiling is started. Returns the
 * virtual time the op ended. L held.
 */
static uint64_t
execute(struct fake_ctx *c, const struct fake_kernel *k, uint64_t seq, bool profiled,
	struct buffer **full)
{
	size_t passes = 0, i, n_rec;
	CUpti_ActivityKernel10 rec;
	uint64_t start = op_start(c, k), dur, end;

	if (k->op != FAKE_OP_KERNEL) {
		end = start + (k->op == FAKE_OP_COPY || k->op == FAKE_OP_MEMSET ? k->duration_ns : 0);
		op_done(c, k, seq, end);
		if ((k->op == FAKE_OP_COPY && kind_on[CUPTI_ACTIVITY_KIND_MEMCPY]) ||
		    (k->op == FAKE_OP_MEMSET && kind_on[CUPTI_ACTIVITY_KIND_MEMSET]))
			copy_record(c, k, start, end);
		if (c->n_uncollected >= COLLECT_AT)
			collect_ctx(c, full);
		return end;
	}
	/* Only a kernel launched while profiling was started is profiled (auto range). */
	if (profiled && c->rp && c->rp->started) {
		cd_record(c->rp->image, k);
		passes = c->rp->passes;
	} else if (profiled && c->enabled && c->legacy_image) {
		cd_record_as(c->legacy_image, k, true);
		passes = c->legacy_passes;
	} else {
		profiled = false;
	}
	dur = k->duration_ns * (profiled ? 3 : 1);
	/* Under replay the GPU runs the kernel once per pass. */
	end = start + dur * (profiled && passes ? passes : 1);
	op_done(c, k, seq, end);
	if (!kernel_activity || !buf_req)
		return end;
	n_rec = profiled ? (replay_records ? (passes ? passes : 1) : 1) : 1;
	for (i = 0; i < n_rec; i++) {
		struct devrec d;

		make_record(&rec, c, k, start + i * dur, dur);
		d.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		d.u.k = rec;
		uncollected_add(c, &d);
	}
	if (c->n_uncollected >= COLLECT_AT)
		collect_ctx(c, full);
	return end;
}

/* Run every op that can run (L held); true if any did. */
static bool
progress(struct buffer **full)
{
	bool any = false;
	struct op **pp;

restart:
	for (pp = &ops; *pp; pp = &(*pp)->next) {
		struct op *o = *pp;

		if (!runnable(o))
			continue;
		*pp = o->next;
		if (!o->is_wait)
			execute(o->ctx, &o->k, o->seq, false, full);
		else
			op_done(o->ctx, &o->k, o->seq, op_start(o->ctx, &o->k));
		free(o);
		any = true;
		goto restart;
	}
	if (any)
		pthread_cond_broadcast(&gpu_cv);
	return any;
}

static bool
ctx_idle(const struct fake_ctx *c, uint32_t stream, bool any_stream)
{
	const struct op *o;

	for (o = ops; o; o = o->next) {
		if (o->ctx == c && (any_stream || o->k.stream == stream))
			return false;
	}
	return true;
}

/*
 * Wait (L held, released while waiting) until `done(c, arg)`; meanwhile
 * the context's in-flight kernels may finish. An application thread that
 * waits FAKE_HANG_MS without any progress is a hang.
 */
static void
wait_until(struct fake_ctx *c, bool (*done)(struct fake_ctx *, const void *), const void *arg,
	   const char *what, struct buffer **full)
{
	long idle_ms = 0;

	c->syncing++;
	for (;;) {
		struct timespec ts;

		if (progress(full))
			idle_ms = 0;
		if (done(c, arg))
			break;
		if (*full) {
			/* Deliver without the lock: the client may call back into CUPTI. */
			struct buffer *f = *full;

			*full = NULL;
			pthread_mutex_unlock(&L);
			deliver_list(f);
			pthread_mutex_lock(&L);
			continue;
		}
		if (app_thread && idle_ms >= hang_ms()) {
			pthread_mutex_unlock(&L);
			hang("%s on context %d: queued work can never finish (a kernel waits for "
			     "work that is not launched, or for a flag nobody sets)", what, c->id);
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&gpu_cv, &L, &ts);
		idle_ms += 20;
	}
	c->syncing--;
}

static bool
done_ctx(struct fake_ctx *c, const void *arg)
{
	(void)arg;
	return ctx_idle(c, 0, true);
}

static bool
done_stream(struct fake_ctx *c, const void *arg)
{
	return ctx_idle(c, *(const uint32_t *)arg, false);
}

static bool
done_flag(struct fake_ctx *c, const void *arg)
{
	(void)c;
	return gpu_flags[*(const int *)arg % MAX_FLAGS];
}

/*
 * The first op on a stream of c: its STREAM record (CUpti_ActivityStream,
 * flag NULL for the legacy default stream, DEFAULT otherwise; when the
 * real CUPTI writes the NULL stream's is [GPU?]). L held.
 */
static void
stream_first_use(struct fake_ctx *c, uint32_t stream, struct buffer **full)
{
	CUpti_ActivityStream r;

	if (c->stream_seen[stream % 64])
		return;
	c->stream_seen[stream % 64] = true;
	if (!kind_on[CUPTI_ACTIVITY_KIND_STREAM] || !buf_req)
		return;
	memset(&r, 0, sizeof(r));
	r.kind = CUPTI_ACTIVITY_KIND_STREAM;
	r.contextId = (uint32_t)c->id;
	r.streamId = stream;
	r.flag = stream == 0 ? CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL
			     : CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT;
	keep_full(append_other(CUPTI_ACTIVITY_KIND_STREAM, &r, sizeof(r)), full);
}

/* Queue an op (L held); returns its sequence number. */
static uint64_t
enqueue(struct fake_ctx *c, const struct fake_kernel *k, bool is_wait)
{
	struct op *o = calloc(1, sizeof(*o)), **pp;

	if (!o)
		abort();
	o->ctx = c;
	o->k = *k;			/* the name is interned already (or NULL for a wait) */
	o->k.issue_ns = vclock;
	o->is_wait = is_wait;
	o->seq = ++op_seq;
	if (k->op == FAKE_OP_EVENT_RECORD) {
		o->k.ev_seq = o->seq;
		events[k->event % MAX_EVENTS].rec_seq = o->seq;
	} else if (k->op == FAKE_OP_EVENT_WAIT) {
		o->k.ev_seq = events[k->event % MAX_EVENTS].rec_seq;
	}
	for (pp = &ops; *pp; pp = &(*pp)->next)
		;
	*pp = o;
	return o->seq;
}

void
fake_kernel_run(CUcontext ctx, const struct fake_kernel *k)
{
	struct buffer *full = NULL;
	struct fake_ctx *c;
	struct fake_kernel kk = *k;

	pthread_mutex_lock(&L);
	c = ctx_of(ctx);
	if (!c || !c->alive) {
		pthread_mutex_unlock(&L);
		fprintf(stderr, "[fake-cupti] kernel launched on a dead context\n");
		abort();
	}
	kk.name = intern(k->name);
	kk.issue_ns = vclock;
	stream_first_use(c, kk.stream, &full);
	if ((c->rp && c->rp->started) || (c->enabled && c->legacy_image)) {
		if (capture_global && capture_ctx == c) {
			pthread_mutex_unlock(&L);
			fake_violation("kernel replay (a context synchronisation) during a global-mode "
				       "stream capture on context %d: the capture is invalidated", c->id);
			pthread_mutex_lock(&L);
		}
		/* Kernel replay: drain the context, wait for the kernel's inputs, run every pass. */
		wait_until(c, done_ctx, NULL, "kernel replay of a profiled launch (draining)", &full);
		if (kk.waits)
			wait_until(c, done_flag, &kk.waits, "kernel replay of a profiled launch", &full);
		c->replaying = true;
		{
			/* The launch returns after every replay pass: the host waits. */
			uint64_t end = execute(c, &kk, 0, true, &full);

			if (end > vclock)
				vclock = end;
		}
		c->replaying = false;
	} else {
		enqueue(c, &kk, false);
	}
	progress(&full);
	pthread_cond_broadcast(&gpu_cv);
	pthread_mutex_unlock(&L);
	/* Full buffers go back at once, like CUPTI's own thread would send them. */
	deliver_list(full);
}

void
fake_stream_wait(CUcontext ctx, uint32_t stream, int flag)
{
	struct fake_kernel k = { .stream = stream, .waits = flag };
	struct buffer *full = NULL;
	struct fake_ctx *c;

	pthread_mutex_lock(&L);
	c = ctx_of(ctx);
	if (c && c->alive) {
		enqueue(c, &k, true);
		progress(&full);
	}
	pthread_mutex_unlock(&L);
	deliver_list(full);
}

void
fake_host_write(int flag)
{
	struct buffer *full = NULL;

	pthread_mutex_lock(&L);
	gpu_flags[flag % MAX_FLAGS] = true;
	progress(&full);
	pthread_cond_broadcast(&gpu_cv);
	pthread_mutex_unlock(&L);
	deliver_list(full);
}

static void
sync_ctx(CUcontext ctx, bool one_stream, uint32_t stream, const char *what)
{
	struct buffer *full = NULL;
	struct fake_ctx *c;

	pthread_mutex_lock(&L);
	c = ctx_of(ctx);
	if (c && c->alive) {
		if (capture_global && capture_ctx == c) {
			pthread_mutex_unlock(&L);
			fake_violation("%s during a global-mode stream capture on context %d: the "
				       "capture is invalidated (cudaErrorStreamCaptureUnsupported, "
				       "driver_types.h)", what, c->id);
			pthread_mutex_lock(&L);
		}
		if (one_stream)
			wait_until(c, done_stream, &stream, what, &full);
		else
			wait_until(c, done_ctx, NULL, what, &full);
		/* The call returns when what it waited for ended (fake.h "Time"). */
		{
			uint64_t end = one_stream ? c->stream_end[stream % 64] : c->all_end;

			if (end > vclock)
				vclock = end;
		}
	}
	pthread_mutex_unlock(&L);
	deliver_list(full);
}

void
fake_ctx_sync(CUcontext ctx)
{
	sync_ctx(ctx, false, 0, "cuCtxSynchronize");
}

void
fake_ctx_destroy(CUcontext ctx)
{
	CUpti_ResourceData rd = { .context = ctx };
	struct buffer *full = NULL;
	struct fake_ctx *c;
	bool rp = false, session = false;
	int id = 0;

	in_resource_cb = true;
	emit(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, &rd);
	in_resource_cb = false;
	pthread_mutex_lock(&L);
	c = ctx_of(ctx);
	if (c) {
		/* The context's work finishes first ([GPU?]); records not yet collected are lost. */
		wait_until(c, done_ctx, NULL, "context destruction", &full);
		records_lost += c->n_uncollected;
		c->n_uncollected = 0;
		c->alive = false;
		rp = c->rp != NULL;
		session = c->session;
		id = c->id;
		if (capture_ctx == c) {
			capture_ctx = NULL;
			capture_global = false;
		}
	}
	pthread_mutex_unlock(&L);
	deliver_list(full);
	if (rp)
		fake_violation("context %d destroyed with a range profiler object still enabled "
			       "(disable it at CONTEXT_DESTROY_STARTING)", id);
	if (session)
		fake_violation("context %d destroyed inside a legacy profiler session", id);
}

void
fake_capture(CUcontext ctx, bool begin, bool global)
{
	pthread_mutex_lock(&L);
	if (begin) {
		capture_ctx = ctx_of(ctx);
		capture_global = global;
	} else {
		capture_ctx = NULL;
		capture_global = false;
	}
	pthread_mutex_unlock(&L);
}

void
fake_stream_sync(CUcontext ctx, uint32_t stream)
{
	sync_ctx(ctx, true, stream, "cuStreamSynchronize");
}

/* ---- time and the whole run's operations (fake.h) ---- */

uint64_t
fake_now(void)
{
	uint64_t t;

	pthread_mutex_lock(&L);
	t = vclock;
	pthread_mutex_unlock(&L);
	return t;
}

void
fake_host_work(uint64_t ns)
{
	pthread_mutex_lock(&L);
	vclock += ns;
	pthread_mutex_unlock(&L);
}

void
fake_set_api_ns(uint64_t ns)
{
	pthread_mutex_lock(&L);
	api_ns = ns;
	pthread_mutex_unlock(&L);
}

static bool
done_seq(struct fake_ctx *c, const void *arg)
{
	uint64_t seq = *(const uint64_t *)arg;
	const struct op *o;

	(void)c;
	for (o = ops; o; o = o->next) {
		if (o->seq == seq)
			return false;
	}
	return true;
}

void
fake_op_run(CUcontext ctx, const struct fake_kernel *op)
{
	struct buffer *full = NULL;
	struct fake_ctx *c;
	uint64_t seq;

	pthread_mutex_lock(&L);
	c = ctx_of(ctx);
	if (!c || !c->alive) {
		pthread_mutex_unlock(&L);
		fprintf(stderr, "[fake-cupti] operation on a dead context\n");
		abort();
	}
	stream_first_use(c, op->stream, &full);
	if (op->op == FAKE_OP_EVENT_RECORD && kind_on[CUPTI_ACTIVITY_KIND_CUDA_EVENT] && buf_req) {
		/* The record of the call, written now (host side; [GPU?] when the real one is). */
		CUpti_ActivityCudaEvent2 r;

		memset(&r, 0, sizeof(r));
		r.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
		r.correlationId = op->correlation;
		r.contextId = (uint32_t)c->id;
		r.streamId = op->stream;
		r.eventId = (uint32_t)op->event;
		r.deviceId = (uint32_t)c->device;
		r.cudaEventSyncId = ++next_sync_id;
		events[op->event % MAX_EVENTS].sync_id = r.cudaEventSyncId;
		keep_full(append_other(CUPTI_ACTIVITY_KIND_CUDA_EVENT, &r, sizeof(r)), &full);
	}
	seq = enqueue(c, op, false);
	progress(&full);
	pthread_cond_broadcast(&gpu_cv);
	if ((op->op == FAKE_OP_COPY || op->op == FAKE_OP_MEMSET) && !op->async) {
		/* A synchronous copy or set returns when it ran. */
		wait_until(c, done_seq, &seq, op->op == FAKE_OP_COPY ? "cudaMemcpy" : "cudaMemset",
			   &full);
		if (blocking_end[seq % 64].seq == seq && blocking_end[seq % 64].end > vclock)
			vclock = blocking_end[seq % 64].end;
	}
	pthread_mutex_unlock(&L);
	deliver_list(full);
}

static bool
done_event(struct fake_ctx *c, const void *arg)
{
	int e = *(const int *)arg % MAX_EVENTS;

	(void)c;
	return events[e].done_seq >= events[e].rec_seq;
}

void
fake_event_sync(CUcontext ctx, int event)
{
	struct buffer *full = NULL;
	struct fake_ctx *c;

	pthread_mutex_lock(&L);
	c = ctx_of(ctx);
	if (c && c->alive) {
		wait_until(c, done_event, &event, "cuEventSynchronize", &full);
		if (events[event % MAX_EVENTS].time > vclock)
			vclock = events[event % MAX_EVENTS].time;
	}
	pthread_mutex_unlock(&L);
	deliver_list(full);
}

void
fake_sync_record(CUcontext ctx, int type, uint32_t stream, int event, uint32_t corr,
		 uint64_t start, uint64_t end)
{
	struct buffer *full = NULL;
	CUpti_ActivitySynchronization2 r;
	struct fake_ctx *c;

	pthread_mutex_lock(&L);
	c = ctx_of(ctx);
	if (c && kind_on[CUPTI_ACTIVITY_KIND_SYNCHRONIZATION] && buf_req) {
		memset(&r, 0, sizeof(r));
		r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
		r.type = (CUpti_ActivitySynchronizationType)type;
		r.start = start;
		r.end = end;
		r.correlationId = corr;
		r.contextId = (uint32_t)c->id;
		/* cupti_activity.h CUpti_ActivitySynchronization2: INVALID_VALUE where not applicable. */
		r.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
		r.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
		r.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
		if (type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE ||
		    type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
			r.streamId = stream;
		if (type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE ||
		    type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT) {
			r.cudaEventId = (uint32_t)event;
			r.cudaEventSyncId = events[event % MAX_EVENTS].sync_id;
		}
		keep_full(append_other(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, &r, sizeof(r)), &full);
	}
	pthread_mutex_unlock(&L);
	deliver_list(full);
}

/*
 * CUPTI after a fatal error: no subscriber, no tracing, no profiler; later
 * calls fail with CUPTI_ERROR_NOT_INITIALIZED (not a client mistake).
 */
static bool finalized;

static bool
fake_finalized(void)
{
	bool f;

	pthread_mutex_lock(&L);
	f = finalized;
	pthread_mutex_unlock(&L);
	return f;
}

static void
finalize_self(void)
{
	struct rp *r;

	pthread_mutex_lock(&L);
	finalized = true;
	subscribed = false;
	sub_fn = NULL;
	kernel_activity = false;
	memset(kind_on, 0, sizeof(kind_on));
	while (rps) {
		r = rps->next;
		if (rps->ctx->rp == rps)
			rps->ctx->rp = NULL;
		free((void *)rps->config);
		free(rps);
		rps = r;
	}
	pthread_mutex_unlock(&L);
}

/* ---- version, errors ---- */

static bool version_set;

/* $FAKE_CUPTI_VERSION: the version from the start (before the app's `cupti-version`). */
static void
version_from_env(void)
{
	const char *v = getenv("FAKE_CUPTI_VERSION");

	if (!version_set && v && *v)
		fake_version = (uint32_t)strtoul(v, NULL, 10);
	version_set = true;
}

/*
 * CUPTI 13.2 and later load the driver inside their first call,
 * cuptiGetVersion included (dlopen of libcuda.so.1, then dlsym of
 * cuDeviceGet, cuGetExportTable, cuDriverGetVersion, cuDeviceGetPCIBusId,
 * cuDeviceGetAttribute and a call of cuGetExportTable). Where it cannot be
 * loaded, 13.3.35-13.5.25 return CUPTI_ERROR_UNKNOWN and 13.2.23/13.2.86
 * recurse inside libcupti (gdb: over 116,000 frames under cuptiGetVersion,
 * retrying the driver load) until the stack overflows, SIGSEGV; a
 * libcuda.so.1 whose cuGetExportTable fails loops the same way; 13.0 and
 * 13.1 answer without it. Observed on this machine
 * (no driver) with the wheels' libcupti.so.13 (strace, gdb); not a
 * documented behaviour. What the real ones do with a driver that loads but
 * fails (no GPU, a driver too old) is [GPU?].
 */
static bool
driver_loadable(void)
{
	static void *libcuda;

	if (!libcuda)
		libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!libcuda)
		libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	return libcuda != NULL;
}

API
cuptiGetVersion(uint32_t *version)
{
	ENTER_PLAIN();
	if (!version)
		return bad(__func__, "NULL version");
	version_from_env();
	if (fake_version >= 130200 && !driver_loadable()) {
		if (fake_version < 130300)
			fake_violation("cuptiGetVersion: no libcuda.so.1 can be loaded: CUPTI 13.2 "
				       "overflows its stack here (the process crashes)");
		return CUPTI_ERROR_UNKNOWN;
	}
	*version = fake_version;
	return CUPTI_SUCCESS;
}

void
fake_set_version(uint32_t v)
{
	fake_version = v;
	version_set = true;
}

API
cuptiGetResultString(CUptiResult result, const char **str)
{
	static const struct {
		int code;
		const char *name;
	} names_tab[] = {
		{ CUPTI_SUCCESS, "CUPTI_SUCCESS" },
		{ CUPTI_ERROR_INVALID_PARAMETER, "CUPTI_ERROR_INVALID_PARAMETER" },
		{ CUPTI_ERROR_INVALID_DEVICE, "CUPTI_ERROR_INVALID_DEVICE" },
		{ CUPTI_ERROR_INVALID_CONTEXT, "CUPTI_ERROR_INVALID_CONTEXT" },
		{ CUPTI_ERROR_INVALID_OPERATION, "CUPTI_ERROR_INVALID_OPERATION" },
		{ CUPTI_ERROR_OUT_OF_MEMORY, "CUPTI_ERROR_OUT_OF_MEMORY" },
		{ CUPTI_ERROR_HARDWARE, "CUPTI_ERROR_HARDWARE" },
		{ CUPTI_ERROR_HARDWARE_BUSY, "CUPTI_ERROR_HARDWARE_BUSY" },
		{ CUPTI_ERROR_MAX_LIMIT_REACHED, "CUPTI_ERROR_MAX_LIMIT_REACHED" },
		{ CUPTI_ERROR_NOT_INITIALIZED, "CUPTI_ERROR_NOT_INITIALIZED" },
		{ CUPTI_ERROR_INVALID_KIND, "CUPTI_ERROR_INVALID_KIND" },
		{ CUPTI_ERROR_NOT_SUPPORTED, "CUPTI_ERROR_NOT_SUPPORTED" },
		{ CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" },
		{ CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
		  "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" },
		{ CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
		  "CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED" },
		{ CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, "CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED" },
		{ CUPTI_ERROR_INVALID_CHIP_NAME, "CUPTI_ERROR_INVALID_CHIP_NAME" },
		{ CUPTI_ERROR_UNKNOWN, "CUPTI_ERROR_UNKNOWN" },
	};
	size_t i;

	/* Not counted: the client calls it to format errors. */
	if (!str)
		return bad(__func__, "NULL str");
	for (i = 0; i < sizeof(names_tab) / sizeof(names_tab[0]); i++) {
		if (names_tab[i].code == (int)result) {
			*str = names_tab[i].name;
			return CUPTI_SUCCESS;
		}
	}
	*str = "CUPTI_ERROR_(fake: unnamed)";
	return CUPTI_SUCCESS;
}

API
cuptiGetLastError(void)
{
	fake_count(__func__);
	return CUPTI_SUCCESS;
}

API
cuptiGetTimestamp(uint64_t *timestamp)
{
	ENTER_PLAIN();
	pthread_mutex_lock(&L);
	*timestamp = vclock;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

/* ---- callbacks ---- */

API
cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata)
{
	ENTER_PLAIN();
	if (!subscriber || !callback)
		return bad(__func__, "NULL subscriber or callback");
	pthread_mutex_lock(&L);
	if (subscribed) {
		pthread_mutex_unlock(&L);
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	subscribed = true;
	sub_fn = callback;
	sub_ud = userdata;
	memset(enabled_cb, 0, sizeof(enabled_cb));
	*subscriber = &the_sub;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
	ENTER_PLAIN();
	pthread_mutex_lock(&L);
	if (!subscribed || subscriber != &the_sub) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "not subscribed with this handle");
	}
	subscribed = false;
	sub_fn = NULL;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
		    CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	ENTER_PLAIN();
	pthread_mutex_lock(&L);
	if (!subscribed || subscriber != &the_sub) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "subscriber handle not from cuptiSubscribe");
	}
	if ((unsigned)domain >= 8 || cbid >= 1024 || domain == CUPTI_CB_DOMAIN_INVALID) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "bad domain or callback id");
	}
	enabled_cb[domain][cbid] = enable ? 1 : 0;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain)
{
	ENTER_PLAIN();
	pthread_mutex_lock(&L);
	if (!subscribed || subscriber != &the_sub || (unsigned)domain >= 8) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "bad subscriber or domain");
	}
	memset(enabled_cb[domain], enable ? 1 : 0, sizeof(enabled_cb[domain]));
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiGetDeviceId(CUcontext context, uint32_t *deviceId)
{
	struct fake_ctx *c;

	ENTER_PLAIN();
	pthread_mutex_lock(&L);
	c = ctx_of(context);
	if (!c || !c->alive || !deviceId) {
		pthread_mutex_unlock(&L);
		fake_violation("cuptiGetDeviceId on an unknown or destroyed context");
		return CUPTI_ERROR_INVALID_CONTEXT;
	}
	*deviceId = (uint32_t)c->device;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
	ENTER_PARAMS(p, CUpti_Device_GetChipName_Params);
	if (p->deviceIndex >= MAX_DEVICES || !devices[p->deviceIndex].defined)
		return bad(__func__, "unknown deviceIndex");
	p->pChipName = devices[p->deviceIndex].chip;
	return CUPTI_SUCCESS;
}

/*
 * cuptiGetCallbackName (cupti_callbacks.h:930-945): the names of the
 * runtime and driver functions fake-app calls (and a few more), as their
 * CUPTI_*_TRACE_CBID_ constant spells them ("cudaMemcpy_v3020"); whether
 * the real one appends the version suffix is [GPU?] (libproj.so matches
 * by substring either way). Another valid ID gets
 * CUPTI_ERROR_INVALID_PARAMETER here, where the real one names it.
 */
#define RT(id) { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##id, #id }
#define DRV(id) { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##id, #id }
static const struct {
	CUpti_CallbackDomain dom;
	CUpti_CallbackId cbid;
	const char *name;
} cb_names[] = {
	RT(__cudaLaunchKernel_v13000), RT(__cudaLaunchKernel_ptsz_v13000),
	RT(cudaLaunchKernel_v7000), RT(cudaLaunchKernel_ptsz_v7000), RT(cudaLaunchKernelExC_v11060),
	RT(cudaLaunchCooperativeKernel_v9000), RT(cudaGraphLaunch_v10000),
	RT(cudaDeviceSynchronize_v3020), RT(cudaStreamSynchronize_v3020),
	RT(cudaEventSynchronize_v3020), RT(cudaEventRecord_v3020), RT(cudaStreamWaitEvent_v3020),
	RT(cudaMemcpy_v3020), RT(cudaMemcpyAsync_v3020), RT(cudaMemset_v3020),
	RT(cudaMemsetAsync_v3020), RT(cudaStreamBeginCapture_v10000),
	RT(cudaStreamEndCapture_v10000), RT(cudaStreamDestroy_v5050), RT(cudaDeviceReset_v3020),
	RT(cudaFree_v3020), RT(cudaMalloc_v3020), RT(cudaLaunchHostFunc_v10000),
	RT(cudaMallocPitch_v3020), RT(cudaMallocAsync_v11020), RT(cudaFreeAsync_v11020),
	RT(cudaGraphAddMemcpyNode_v10000),
	DRV(cuLaunchKernel), DRV(cuLaunchKernel_ptsz), DRV(cuLaunchKernelEx),
	DRV(cuLaunchCooperativeKernel), DRV(cuGraphLaunch), DRV(cuCtxSynchronize),
	DRV(cuStreamSynchronize), DRV(cuEventSynchronize), DRV(cuEventRecord),
	DRV(cuStreamWaitEvent), DRV(cuStreamWaitValue32_v2), DRV(cuMemcpyHtoD_v2),
	DRV(cuMemcpyDtoH_v2), DRV(cuMemcpyDtoD_v2), DRV(cuMemcpyHtoDAsync_v2),
	DRV(cuMemcpyDtoHAsync_v2), DRV(cuMemcpyDtoDAsync_v2), DRV(cuMemsetD8_v2),
	DRV(cuMemsetD8Async), DRV(cuCtxDestroy_v2), DRV(cuDevicePrimaryCtxReset_v2),
	DRV(cuStreamBeginCapture_v2), DRV(cuStreamEndCapture), DRV(cuStreamDestroy_v2),
	DRV(cuMemAlloc_v2), DRV(cuMemAllocPitch_v2), DRV(cuMemFree_v2), DRV(cuMemAllocAsync),
	DRV(cuMemFreeAsync),
};
#undef RT
#undef DRV

API
cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid, const char **name)
{
	size_t i;

	ENTER_PLAIN();
	if (!name)
		return bad(__func__, "NULL name");
	*name = NULL;
	for (i = 0; i < sizeof(cb_names) / sizeof(cb_names[0]); i++) {
		if (cb_names[i].dom == domain && cb_names[i].cbid == cbid) {
			*name = cb_names[i].name;
			return CUPTI_SUCCESS;
		}
	}
	return CUPTI_ERROR_INVALID_PARAMETER;
}

/* ---- activity API ---- */

API
cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
			       CUpti_BuffersCallbackCompleteFunc done)
{
	ENTER_PLAIN();
	if (!req || !done)
		return bad(__func__, "NULL callback");
	pthread_mutex_lock(&L);
	buf_req = req;
	buf_done = done;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiActivityEnable(CUpti_ActivityKind kind)
{
	ENTER_PLAIN();
	/* The kinds the double writes (fake-records.h); others are not modelled. */
	if (kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && kind != CUPTI_ACTIVITY_KIND_KERNEL &&
	    !fake_other_record_for((uint32_t)kind, fake_version))
		return CUPTI_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&L);
	if (!buf_req) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "cuptiActivityRegisterCallbacks must come first");
	}
	if (kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && kind != CUPTI_ACTIVITY_KIND_KERNEL) {
		kind_on[kind] = true;
		kind_owner[kind] = buf_done;
		pthread_mutex_unlock(&L);
		return CUPTI_SUCCESS;
	}
	kernel_activity = true;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiActivityDisable(CUpti_ActivityKind kind)
{
	ENTER_PLAIN();
	/*
	 * CUPTI 13.0 GA (API 130000): "Fixed a potential deadlock that could
	 * occur while disabling the activity kind CUPTI_ACTIVITY_KIND_CONCURRENT_-
	 * KERNEL using the API cuptiActivityDisable" (release notes, Updates in
	 * CUDA 13.0 Update 1; GA is CUPTI_API_VERSION 130000 in the 13.0.48
	 * wheel's cupti_version.h:125, Update 1 130001 in 13.0.85's :126). The double cannot deadlock at random: calling it
	 * at all on 13.0 GA is the violation.
	 */
	if (fake_version == 130000 && kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
		return bad(__func__, "CONCURRENT_KERNEL on CUPTI 13.0 GA, which can deadlock there");
	pthread_mutex_lock(&L);
	if (kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && kind != CUPTI_ACTIVITY_KIND_KERNEL) {
		if ((unsigned)kind >= KIND_MAX || !kind_on[kind]) {
			pthread_mutex_unlock(&L);
			return bad(__func__, "kind was not enabled");
		}
		kind_on[kind] = false;
		pthread_mutex_unlock(&L);
		return CUPTI_SUCCESS;
	}
	if (!kernel_activity) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "kind was not enabled");
	}
	kernel_activity = false;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

/*
 * A client's flush in progress, and forks that came during one. POSIX
 * (fork(): "a replica of the calling thread ... possibly including the
 * states of mutexes") gives the child whatever another thread held inside
 * CUPTI at that instant; the inject tests expect the client to fork only
 * between its flushes. FAKE_FLUSH_DELAY_MS widens the window (tests only).
 */
static atomic_int flushes_in_progress;
static unsigned long forks_during_flush;

static void
flush_delay(void)
{
	env_hold("FAKE_FLUSH_DELAY_MS");
}

API
cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record)
{
	struct buffer *b;
	uint8_t *next;

	/* Not counted: called once per record. */
	if (!record)
		return bad(__func__, "NULL record");
	pthread_mutex_lock(&L);
	for (b = delivering; b; b = b->next) {
		if (b->buf == buffer)
			break;
	}
	pthread_mutex_unlock(&L);
	if (!b)
		return bad(__func__, "buffer is not one being completed right now");
	if (valid > b->valid)
		return bad(__func__, "validSize larger than what CUPTI wrote");
	fake_alarm_point(ALARM_NEXT_RECORD);
	next = *record ? (uint8_t *)*record + record_size_at((const uint8_t *)*record) : buffer;
	if (next < buffer || next + sizeof(uint32_t) > buffer + valid ||
	    next + record_size_at(next) > buffer + valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*record = (CUpti_Activity *)(void *)next;
	return CUPTI_SUCCESS;
}

/*
 * "This function returns the activity records associated with all
 * contexts/streams ... This is a blocking call" (cupti_activity.h:7709-7715):
 * when it returns, every record collected so far has been handed to the
 * client, including those in buffers another thread's flush (CUPTI's
 * worker, a periodic FlushAll) took and is still delivering. Whether the
 * real one waits for those is [GPU?]; a client that prints its count
 * after the flush (Kineto at stop) relies on it. Only the deliveries
 * begun by the time this flush has handed over its own are waited for:
 * later ones hold records collected after it. Bounded: a delivery that
 * never ends is a violation, not a hang.
 */
static void
wait_deliveries(void)
{
	long limit = hang_ms();
	struct timespec deadline;
	uint64_t upto;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += limit / 1000;
	deadline.tv_nsec += (limit % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&L);
	upto = deliver_seq;
	for (;;) {
		const struct buffer *b;

		for (b = delivering; b && b->seq > upto; b = b->next)
			;
		if (!b)
			break;
		if (pthread_cond_timedwait(&deliver_cv, &L, &deadline) == ETIMEDOUT) {
			pthread_mutex_unlock(&L);
			fake_violation("cuptiActivityFlushAll: another thread's buffer delivery did "
				       "not end in %ld ms", limit);
			return;
		}
	}
	pthread_mutex_unlock(&L);
}

API
cuptiActivityFlushAll(uint32_t flag)
{
	ENTER_PLAIN();
	if (in_buffer_cb)
		return bad(__func__, "called from a buffer-completed callback");
	if (in_resource_cb)
		return bad(__func__, "called from a resource callback");
	atomic_fetch_add(&flushes_in_progress, 1);
	flush_delay();
	fake_flush();
	wait_deliveries();
	atomic_fetch_sub(&flushes_in_progress, 1);
	return CUPTI_SUCCESS;
}

/*
 * cuptiActivityFlushPeriod (cupti_activity.h:8058-8084: "Sets the flush
 * period for the worker thread"): CUPTI's own worker delivers completed buffers every
 * `time` ms, on its thread.
 */
static uint32_t flush_period_ms;
static bool flush_thread_started;
static volatile bool flush_thread_stop;

static void *
flush_thread(void *arg)
{
	(void)arg;
	while (!flush_thread_stop) {
		struct timespec ts;
		uint32_t ms;

		pthread_mutex_lock(&L);
		ms = flush_period_ms;
		pthread_mutex_unlock(&L);
		if (!ms)
			ms = 100;
		ts.tv_sec = ms / 1000;
		ts.tv_nsec = (long)(ms % 1000) * 1000000;
		nanosleep(&ts, NULL);
		if (!flush_thread_stop && !fake_finalized() && !in_child)
			fake_flush();
	}
	return NULL;
}

API
cuptiActivityFlushPeriod(uint32_t time)
{
	pthread_t t;

	ENTER_PLAIN();
	pthread_mutex_lock(&L);
	flush_period_ms = time;
	if (time && !flush_thread_started) {
		flush_thread_started = true;
		if (pthread_create(&t, NULL, flush_thread, NULL) == 0)
			pthread_detach(t);
	}
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId, size_t *dropped)
{
	ENTER_PLAIN();
	if (!dropped)
		return bad(__func__, "NULL dropped");
	pthread_mutex_lock(&L);
	*dropped = (size_t)dropped_pending;
	dropped_pending = 0;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

/* ---- profiler: common ---- */

static bool prof_initialized;

API
cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
	ENTER_PARAMS(p, CUpti_Profiler_Initialize_Params);
	prof_initialized = true;
	return CUPTI_SUCCESS;
}

API
cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p)
{
	ENTER_PARAMS(p, CUpti_Profiler_DeInitialize_Params);
	if (!prof_initialized)
		return bad(__func__, "not initialised");
	prof_initialized = false;
	return CUPTI_SUCCESS;
}

#define NEED_INIT() \
	do { \
		if (!prof_initialized) \
			return bad(__func__, "cuptiProfilerInitialize must come first"); \
	} while (0)

API
cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params *p)
{
	const struct fake_device *d;

	ENTER_PARAMS(p, CUpti_Profiler_DeviceSupported_Params);
	NEED_INIT();
	d = fake_get_device(p->cuDevice);
	if (!d)
		return bad(__func__, "unknown device");
	p->architecture = d->cc_major * 10 + d->cc_minor >= 70 ?
				  CUPTI_PROFILER_CONFIGURATION_SUPPORTED :
				  CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
	p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl =
		CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
	if (strstr(d->name, "vGPU"))
		p->vGpu = CUPTI_PROFILER_CONFIGURATION_DISABLED;
	p->isSupported = p->architecture == CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
				 p->vGpu == CUPTI_PROFILER_CONFIGURATION_SUPPORTED ?
			 CUPTI_PROFILER_CONFIGURATION_SUPPORTED :
			 CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED;
	return CUPTI_SUCCESS;
}

API
cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
	struct fake_ctx *c;

	ENTER_PARAMS(p, CUpti_Profiler_GetCounterAvailability_Params);
	NEED_INIT();
	pthread_mutex_lock(&L);
	c = ctx_of(p->ctx);
	pthread_mutex_unlock(&L);
	if (!c || !c->alive)
		return bad(__func__, "unknown or destroyed context");
	if (!p->pCounterAvailabilityImage) {
		p->counterAvailabilityImageSize = 64;
		return CUPTI_SUCCESS;
	}
	if (p->counterAvailabilityImageSize < 64)
		return bad(__func__, "image smaller than the size returned");
	memset(p->pCounterAvailabilityImage, 0xa5, 64);
	return CUPTI_SUCCESS;
}

/* ---- range profiler ---- */

#define RP_GET(o, r) \
	do { \
		pthread_mutex_lock(&L); \
		(r) = rp_of(o); \
		pthread_mutex_unlock(&L); \
		if (!(r)) \
			return bad(__func__, "not a range profiler object from cuptiRangeProfilerEnable"); \
		if (!(r)->ctx->alive) \
			return bad(__func__, "the object's context was destroyed"); \
	} while (0)

API
cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params *p)
{
	struct fake_ctx *c;
	struct rp *r;
	char what[96];
	int32_t mode;
	int f;

	/*
	 * From 13.4 the struct has cacheControlMode after pRangeProfilerObject
	 * and its STRUCT_SIZE grew (tests/fake/fake-records.h, read from
	 * the 13.4 header): the double, built against 13.0's header, takes the
	 * 13.4 size when it plays 13.4 or later, and the older size anywhere
	 * (CUPTI's structSize versioning); a 13.4 size to an older CUPTI is
	 * misuse. The mode is counted as a call, "cacheControlMode=N".
	 */
	fake_count(__func__);
	if (fake_finalized())
		return CUPTI_ERROR_NOT_INITIALIZED;
	if (!p)
		return bad(__func__, "NULL params");
	if (p->structSize != CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE &&
	    !(fake_version >= FAKE_CACHE_CONTROL_API &&
	      p->structSize == FAKE_RP_ENABLE_134_STRUCT_SIZE))
		return bad(__func__, fake_version >= FAKE_CACHE_CONTROL_API
					     ? "structSize is neither 13.0's nor 13.4's STRUCT_SIZE"
					     : "structSize is not CUpti_RangeProfiler_Enable_Params_"
					       "STRUCT_SIZE (cacheControlMode needs CUPTI 13.4)");
	if (p->pPriv)
		return bad(__func__, "pPriv is not NULL");
	if ((f = fake_scripted_failure(__func__)) != 0)
		return (CUptiResult)f;
	mode = 0;
	if (p->structSize == FAKE_RP_ENABLE_134_STRUCT_SIZE)
		memcpy(&mode, (const char *)p + FAKE_RP_ENABLE_CACHE_MODE_OFFSET, sizeof(mode));
	snprintf(what, sizeof(what), "cacheControlMode=%d", (int)mode);
	fake_count(what);
	NEED_INIT();
	pthread_mutex_lock(&L);
	c = ctx_of(p->ctx);
	if (!c || !c->alive) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "unknown or destroyed context");
	}
	if (devices[c->device].cc_major * 10 + devices[c->device].cc_minor < 75) {
		pthread_mutex_unlock(&L);
		fake_violation("cuptiRangeProfilerEnable on CC %d.%d (needs >= 7.5)",
			       devices[c->device].cc_major, devices[c->device].cc_minor);
		return CUPTI_ERROR_NOT_SUPPORTED;
	}
	if (c->rp) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "a range profiler is already enabled on this context");
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	r->magic = RP_MAGIC;
	r->ctx = c;
	r->next = rps;
	rps = r;
	c->rp = r;
	p->pRangeProfilerObject = (CUpti_RangeProfiler_Object *)r;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params *p)
{
	struct rp *r, **pp;

	ENTER_PARAMS(p, CUpti_RangeProfiler_Disable_Params);
	pthread_mutex_lock(&L);
	r = rp_of(p->pRangeProfilerObject);
	if (!r) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "not an enabled range profiler object");
	}
	if (r->started) {
		pthread_mutex_unlock(&L);
		return bad(__func__, "still started: cuptiRangeProfilerStop first");
	}
	for (pp = &rps; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	if (r->ctx->rp == r)
		r->ctx->rp = NULL;
	free((void *)r->config);
	free(r);
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

/* Concatenate metric names (NUL-separated); malloc'd. */
static char *
join_names(const char **names, size_t n, size_t *ret_len)
{
	size_t len = 0, i;
	char *buf, *p;

	for (i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	buf = malloc(len ? len : 1);
	if (!buf)
		abort();
	for (p = buf, i = 0; i < n; i++) {
		size_t l = strlen(names[i]) + 1;

		memcpy(p, names[i], l);
		p += l;
	}
	*ret_len = len;
	return buf;
}

API
cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p)
{
	struct rp *r;
	size_t len, i;
	char *joined;

	ENTER_PARAMS(p, CUpti_RangeProfiler_GetCounterDataSize_Params);
	RP_GET(p->pRangeProfilerObject, r);
	if (!p->pMetricNames || !p->numMetrics || !p->maxNumOfRanges)
		return bad(__func__, "no metrics or no ranges");
	if (p->maxNumRangeTreeNodes < p->maxNumOfRanges)
		return bad(__func__, "maxNumRangeTreeNodes < maxNumOfRanges");
	for (i = 0; i < p->numMetrics; i++) {
		if (!fake_metric_valid(devices[r->ctx->device].chip, p->pMetricNames[i]))
			return bad(__func__, "a metric name the chip does not have");
	}
	joined = join_names(p->pMetricNames, p->numMetrics, &len);
	free(joined);
	p->counterDataSize = fake_cd_size(p->numMetrics, len, p->maxNumOfRanges);
	r->cd_size = p->counterDataSize;
	return CUPTI_SUCCESS;
}

API
cuptiRangeProfilerCounterDataImageInitialize(
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p)
{
	struct rp *r;

	ENTER_PARAMS(p, CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
	RP_GET(p->pRangeProfilerObject, r);
	if (!r->cd_size)
		return bad(__func__, "cuptiRangeProfilerGetCounterDataSize must come first");
	if (p->counterDataSize != r->cd_size || !p->pCounterData)
		return bad(__func__, "image size differs from cuptiRangeProfilerGetCounterDataSize");
	if ((uintptr_t)p->pCounterData % 8)
		return bad(__func__, "image not 8-byte aligned");
	pthread_mutex_lock(&L);
	r->image = p->pCounterData;
	r->image_size = p->counterDataSize;
	/* The names are laid out at SetConfig, when the config is known. */
	memset(r->image, 0, r->image_size);
	r->image_init = true;
	r->decoded = false;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params *p)
{
	const char *cnames;
	size_t n, len;
	struct rp *r;
	uint8_t *copy;

	ENTER_PARAMS(p, CUpti_RangeProfiler_SetConfig_Params);
	RP_GET(p->pRangeProfilerObject, r);
	if (!r->image_init || p->pCounterDataImage != r->image ||
	    p->counterDataImageSize != r->image_size)
		return bad(__func__, "counter-data image not initialised with this object");
	if (!blob_parse(p->pConfig, p->configSize, BLOB_CONFIG, &cnames, &n, &len))
		return bad(__func__, "config is not a config image from the host API");
	if (p->replayMode == CUPTI_KernelReplay && p->range != CUPTI_AutoRange)
		return bad(__func__, "kernel replay needs auto range");
	if (!p->maxRangesPerPass || !p->numNestingLevels || !p->minNestingLevel ||
	    !p->targetNestingLevel)
		return bad(__func__, "zero ranges per pass or nesting levels");
	if (r->started)
		return bad(__func__, "called while started");
	if (fake_cd_size(n, len, 1) > r->image_size)
		return bad(__func__, "image too small for the configured metrics");
	copy = malloc(p->configSize);
	if (!copy)
		abort();
	memcpy(copy, p->pConfig, p->configSize);
	pthread_mutex_lock(&L);
	free((void *)r->config);
	r->config = copy;
	r->config_size = p->configSize;
	r->passes = fake_passes(n);
	fake_cd_init(r->image, r->image_size, cnames, n, len,
		     (r->image_size - sizeof(struct cd_header) - (len + 7) / 8 * 8) /
			     (n * sizeof(double)));
	r->configured = true;
	r->stopped = r->decoded = false;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params *p)
{
	struct rp *r;

	ENTER_PARAMS(p, CUpti_RangeProfiler_Start_Params);
	RP_GET(p->pRangeProfilerObject, r);
	if (!r->configured)
		return bad(__func__, "cuptiRangeProfilerSetConfig must come first");
	if (busy_now())
		return CUPTI_ERROR_HARDWARE_BUSY;
	if (r->started)
		return bad(__func__, "already started");
	pthread_mutex_lock(&L);
	r->started = true;
	r->stopped = false;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params *p)
{
	struct rp *r;

	ENTER_PARAMS(p, CUpti_RangeProfiler_Stop_Params);
	RP_GET(p->pRangeProfilerObject, r);
	if (!r->started)
		return bad(__func__, "not started");
	pthread_mutex_lock(&L);
	r->started = false;
	r->stopped = true;
	p->isAllPassSubmitted = 1;
	p->passIndex = 0;
	p->targetNestingLevel = 1;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params *p)
{
	struct cd_header *h;
	struct rp *r;

	ENTER_PARAMS(p, CUpti_RangeProfiler_DecodeData_Params);
	RP_GET(p->pRangeProfilerObject, r);
	if (!r->stopped)
		return bad(__func__, "cuptiRangeProfilerStop must come first");
	/* DecodeData synchronises the context ([CUPTI-RP] step 7). */
	sync_ctx((CUcontext)r->ctx, false, 0, "cuptiRangeProfilerDecodeData");
	pthread_mutex_lock(&L);
	h = cd_header(r->image);
	if (h) {
		if (forced_ranges >= 0) {
			uint32_t i, want = (uint32_t)forced_ranges;

			if (want > h->max_ranges) {
				h->dropped += want - h->max_ranges;
				want = h->max_ranges;
			}
			for (i = h->ranges; i < want && h->ranges > 0; i++)
				memcpy(cd_values(r->image) + i * h->n, cd_values(r->image),
				       h->n * sizeof(double));
			h->ranges = want;
			forced_ranges = -1;
		}
		if (dropped_windows > 0) {
			h->dropped += h->ranges;
			h->ranges = 0;
			dropped_windows--;
		}
		h->decoded = 1;
		p->numOfRangeDropped = h->dropped;
	}
	r->decoded = true;
	r->stopped = false;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p)
{
	const struct cd_header *h;

	ENTER_PARAMS(p, CUpti_RangeProfiler_GetCounterDataInfo_Params);
	h = cd_header(p->pCounterDataImage);
	if (!h)
		return bad(__func__, "not a counter-data image");
	if (!h->decoded)
		return bad(__func__, "image not decoded: cuptiRangeProfilerDecodeData first");
	p->numTotalRanges = h->ranges;
	return CUPTI_SUCCESS;
}

API
cuptiRangeProfilerCounterDataGetRangeInfo(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params *p)
{
	static char buf[32];
	const struct cd_header *h;

	ENTER_PARAMS(p, CUpti_RangeProfiler_CounterData_GetRangeInfo_Params);
	h = cd_header(p->pCounterDataImage);
	if (!h || !h->decoded || p->rangeIndex >= h->ranges)
		return bad(__func__, "bad image or range index");
	snprintf(buf, sizeof(buf), "%zu", p->rangeIndex);
	p->rangeName = buf;
	return CUPTI_SUCCESS;
}

/* ---- legacy profiler (CC 7.0) ---- */

#define BLOB_PREFIX 0x58465046u  /* "FPFX" NVPW counter-data prefix */
#define BLOB_NVCONFIG 0x46434e46u /* "FNCF" NVPW config image */

FAKE_EXPORT uint8_t *fake_blob_make(uint32_t magic, const char *chip, const char *names_, size_t n,
				    size_t names_len, size_t *ret_size);
FAKE_EXPORT bool fake_blob_parse(const uint8_t *buf, size_t size, uint32_t magic,
				 const char **names_, size_t *n, size_t *names_len);

uint8_t *
fake_blob_make(uint32_t magic, const char *chip, const char *names_, size_t n, size_t names_len,
	       size_t *ret_size)
{
	return blob_make(magic, chip, names_, n, names_len, ret_size);
}

bool
fake_blob_parse(const uint8_t *buf, size_t size, uint32_t magic, const char **names_, size_t *n,
		size_t *names_len)
{
	return blob_parse(buf, size, magic, names_, n, names_len);
}

static __attribute__((unused)) struct fake_ctx *
live_ctx(CUcontext ctx)
{
	struct fake_ctx *c;

	pthread_mutex_lock(&L);
	c = ctx_of(ctx);
	pthread_mutex_unlock(&L);
	return c && c->alive ? c : NULL;
}

/*
 * The legacy profiler API (cupti_profiler_target.h): "deprecated as of CUDA
 * 13.0 and will be removed in the future". -DFAKE_NO_LEGACY_PROFILER builds
 * a libcupti.so.13 without these symbols (tests/fake/no-legacy/), as a
 * future CUPTI that removed them.
 */
#ifndef FAKE_NO_LEGACY_PROFILER
API
cuptiProfilerCounterDataImageCalculateSize(CUpti_Profiler_CounterDataImage_CalculateSize_Params *p)
{
	const char *cnames;
	size_t n, len;

	ENTER_PARAMS(p, CUpti_Profiler_CounterDataImage_CalculateSize_Params);
	NEED_INIT();
	if (p->sizeofCounterDataImageOptions != CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE ||
	    !p->pOptions || p->pOptions->structSize != CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE)
		return bad(__func__, "options size");
	if (!blob_parse(p->pOptions->pCounterDataPrefix, p->pOptions->counterDataPrefixSize,
			BLOB_PREFIX, &cnames, &n, &len))
		return bad(__func__, "prefix is not from NVPW_CounterDataBuilder_GetCounterDataPrefix");
	if (!p->pOptions->maxNumRanges || p->pOptions->maxNumRangeTreeNodes < p->pOptions->maxNumRanges)
		return bad(__func__, "bad range counts");
	p->counterDataImageSize = fake_cd_size(n, len, p->pOptions->maxNumRanges);
	return CUPTI_SUCCESS;
}

API
cuptiProfilerCounterDataImageInitialize(CUpti_Profiler_CounterDataImage_Initialize_Params *p)
{
	const char *cnames;
	size_t n, len;

	ENTER_PARAMS(p, CUpti_Profiler_CounterDataImage_Initialize_Params);
	NEED_INIT();
	if (!p->pOptions || !blob_parse(p->pOptions->pCounterDataPrefix,
					p->pOptions->counterDataPrefixSize, BLOB_PREFIX, &cnames,
					&n, &len))
		return bad(__func__, "prefix is not from NVPW");
	if (p->counterDataImageSize != fake_cd_size(n, len, p->pOptions->maxNumRanges))
		return bad(__func__, "size differs from cuptiProfilerCounterDataImageCalculateSize");
	if (!fake_cd_init(p->pCounterDataImage, p->counterDataImageSize, cnames, n, len,
			  p->pOptions->maxNumRanges))
		return bad(__func__, "cannot initialise the image");
	return CUPTI_SUCCESS;
}

API
cuptiProfilerCounterDataImageCalculateScratchBufferSize(
	CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params *p)
{
	ENTER_PARAMS(p, CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params);
	if (!cd_header(p->pCounterDataImage))
		return bad(__func__, "image not initialised");
	p->counterDataScratchBufferSize = 256;
	return CUPTI_SUCCESS;
}

API
cuptiProfilerCounterDataImageInitializeScratchBuffer(
	CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params *p)
{
	ENTER_PARAMS(p, CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params);
	if (!cd_header(p->pCounterDataImage) || p->counterDataScratchBufferSize < 256 ||
	    !p->pCounterDataScratchBuffer)
		return bad(__func__, "image or scratch buffer not as calculated");
	memset(p->pCounterDataScratchBuffer, 0, 256);
	return CUPTI_SUCCESS;
}

API
cuptiProfilerBeginSession(CUpti_Profiler_BeginSession_Params *p)
{
	struct fake_ctx *c;

	ENTER_PARAMS(p, CUpti_Profiler_BeginSession_Params);
	NEED_INIT();
	if (busy_now())
		return CUPTI_ERROR_HARDWARE_BUSY;
	c = live_ctx(p->ctx);
	if (!c)
		return bad(__func__, "unknown or destroyed context");
	if (c->session)
		return bad(__func__, "a session is already open");
	if (!cd_header(p->pCounterDataImage) || !p->pCounterDataScratchBuffer)
		return bad(__func__, "image/scratch not initialised");
	if (p->replayMode == CUPTI_KernelReplay && p->range != CUPTI_AutoRange)
		return bad(__func__, "kernel replay needs auto range");
	if (p->maxLaunchesPerPass < p->maxRangesPerPass || !p->maxRangesPerPass)
		return bad(__func__, "maxLaunchesPerPass < maxRangesPerPass");
	pthread_mutex_lock(&L);
	c->session = true;
	c->legacy_image = p->pCounterDataImage;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiProfilerSetConfig(CUpti_Profiler_SetConfig_Params *p)
{
	const char *cnames;
	size_t n, len;
	struct fake_ctx *c;

	ENTER_PARAMS(p, CUpti_Profiler_SetConfig_Params);
	c = live_ctx(p->ctx);
	if (!c || !c->session)
		return bad(__func__, "no session: cuptiProfilerBeginSession first");
	if (c->configured)
		return bad(__func__, "already configured");
	if (!blob_parse(p->pConfig, p->configSize, BLOB_NVCONFIG, &cnames, &n, &len))
		return bad(__func__, "config is not from NVPW_RawMetricsConfig_GetConfigImage");
	if (!p->minNestingLevel || !p->numNestingLevels || !p->targetNestingLevel)
		return bad(__func__, "zero nesting levels");
	pthread_mutex_lock(&L);
	c->configured = true;
	c->legacy_passes = fake_passes(n);
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiProfilerUnsetConfig(CUpti_Profiler_UnsetConfig_Params *p)
{
	struct fake_ctx *c;

	ENTER_PARAMS(p, CUpti_Profiler_UnsetConfig_Params);
	c = live_ctx(p->ctx);
	if (!c || !c->configured)
		return bad(__func__, "not configured");
	if (c->enabled)
		return bad(__func__, "profiling still enabled: cuptiProfilerDisableProfiling first");
	c->configured = false;
	return CUPTI_SUCCESS;
}

API
cuptiProfilerEnableProfiling(CUpti_Profiler_EnableProfiling_Params *p)
{
	struct fake_ctx *c;

	ENTER_PARAMS(p, CUpti_Profiler_EnableProfiling_Params);
	c = live_ctx(p->ctx);
	if (!c || !c->configured)
		return bad(__func__, "cuptiProfilerSetConfig must come first");
	if (c->enabled)
		return bad(__func__, "already enabled");
	pthread_mutex_lock(&L);
	c->enabled = true;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiProfilerDisableProfiling(CUpti_Profiler_DisableProfiling_Params *p)
{
	struct fake_ctx *c;

	ENTER_PARAMS(p, CUpti_Profiler_DisableProfiling_Params);
	c = live_ctx(p->ctx);
	if (!c || !c->enabled)
		return bad(__func__, "not enabled");
	pthread_mutex_lock(&L);
	c->enabled = false;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}

API
cuptiProfilerFlushCounterData(CUpti_Profiler_FlushCounterData_Params *p)
{
	struct fake_ctx *c;
	struct cd_header *h;

	ENTER_PARAMS(p, CUpti_Profiler_FlushCounterData_Params);
	c = live_ctx(p->ctx);
	if (!c || !c->session)
		return bad(__func__, "no session: cuptiProfilerBeginSession first");
	if (c->enabled)
		return bad(__func__, "profiling still enabled: cuptiProfilerDisableProfiling first");
	/* "This will cause the CPU/GPU sync to collect all the undecoded pass." */
	sync_ctx(p->ctx, false, 0, "cuptiProfilerFlushCounterData");
	pthread_mutex_lock(&L);
	h = cd_header(c->legacy_image);
	if (h) {
		h->ranges += h->undecoded;
		h->undecoded = 0;
	}
	pthread_mutex_unlock(&L);
	p->numRangesDropped = h ? h->dropped : 0;
	p->numTraceBytesDropped = 0;
	return CUPTI_SUCCESS;
}

API
cuptiProfilerEndSession(CUpti_Profiler_EndSession_Params *p)
{
	struct fake_ctx *c;
	struct cd_header *h;

	ENTER_PARAMS(p, CUpti_Profiler_EndSession_Params);
	c = live_ctx(p->ctx);
	if (!c || !c->session)
		return bad(__func__, "no session");
	if (c->configured)
		return bad(__func__, "still configured: cuptiProfilerUnsetConfig first");
	pthread_mutex_lock(&L);
	h = cd_header(c->legacy_image);
	if (h) {
		/* Passes never flushed are not in the image ([GPU?]: what the real one keeps). */
		h->undecoded = 0;
		if (forced_ranges >= 0) {
			h->ranges = (uint32_t)forced_ranges < h->max_ranges ? (uint32_t)forced_ranges
									    : h->max_ranges;
			forced_ranges = -1;
		}
		h->decoded = 1;
	}
	c->session = false;
	c->legacy_image = NULL;
	pthread_mutex_unlock(&L);
	return CUPTI_SUCCESS;
}
#endif /* FAKE_NO_LEGACY_PROFILER */

/* ---- profiler host API ---- */

#define HOST_MAGIC 0x54534f48u

struct CUpti_Profiler_Host_Object {
	uint32_t magic;
	char chip[32];
	char **names;
	size_t n, cap;
	atomic_int evaluating;	/* threads inside EvaluateToGpuValues on this object */
	struct CUpti_Profiler_Host_Object *next;
};
static struct CUpti_Profiler_Host_Object *hosts;

static CUpti_Profiler_Host_Object *
host_of(CUpti_Profiler_Host_Object *h)
{
	CUpti_Profiler_Host_Object *x;

	pthread_mutex_lock(&L);
	for (x = hosts; x; x = x->next) {
		if (x == h)
			break;
	}
	pthread_mutex_unlock(&L);
	return x;
}

API
cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
	CUpti_Profiler_Host_Object *h;

	ENTER_PARAMS(p, CUpti_Profiler_Host_Initialize_Params);
	if (p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER)
		return bad(__func__, "only the range profiler is modelled");
	if (!fake_chip_known(p->pChipName))
		return CUPTI_ERROR_INVALID_CHIP_NAME;
	h = calloc(1, sizeof(*h));
	if (!h)
		abort();
	h->magic = HOST_MAGIC;
	snprintf(h->chip, sizeof(h->chip), "%s", p->pChipName);
	pthread_mutex_lock(&L);
	h->next = hosts;
	hosts = h;
	pthread_mutex_unlock(&L);
	p->pHostObject = h;
	return CUPTI_SUCCESS;
}

API
cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
	CUpti_Profiler_Host_Object *h, **pp;
	size_t i;

	ENTER_PARAMS(p, CUpti_Profiler_Host_Deinitialize_Params);
	h = host_of(p->pHostObject);
	if (!h)
		return bad(__func__, "not a live host object");
	pthread_mutex_lock(&L);
	for (pp = &hosts; *pp; pp = &(*pp)->next) {
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	}
	pthread_mutex_unlock(&L);
	for (i = 0; i < h->n; i++)
		free(h->names[i]);
	free(h->names);
	free(h);
	return CUPTI_SUCCESS;
}

API
cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
	CUpti_Profiler_Host_Object *h;
	size_t i;

	ENTER_PARAMS(p, CUpti_Profiler_Host_ConfigAddMetrics_Params);
	h = host_of(p->pHostObject);
	if (!h)
		return bad(__func__, "not a live host object");
	if (!p->ppMetricNames || !p->numMetrics)
		return bad(__func__, "no metrics");
	for (i = 0; i < p->numMetrics; i++) {
		/* Like the real one: earlier names stay, the bad one fails the call. */
		if (!fake_metric_valid(h->chip, p->ppMetricNames[i]))
			return CUPTI_ERROR_INVALID_PARAMETER;
		if (h->n == h->cap) {
			h->cap = h->cap ? 2 * h->cap : 16;
			h->names = realloc(h->names, h->cap * sizeof(*h->names));
			if (!h->names)
				abort();
		}
		h->names[h->n++] = strdup(p->ppMetricNames[i]);
	}
	return CUPTI_SUCCESS;
}

static uint8_t *
host_image(CUpti_Profiler_Host_Object *h, size_t *size)
{
	size_t len;
	char *joined = join_names((const char **)h->names, h->n, &len);
	uint8_t *img = blob_make(BLOB_CONFIG, h->chip, joined, h->n, len, size);

	free(joined);
	return img;
}

API
cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
	CUpti_Profiler_Host_Object *h;
	uint8_t *img;

	ENTER_PARAMS(p, CUpti_Profiler_Host_GetConfigImageSize_Params);
	h = host_of(p->pHostObject);
	if (!h || !h->n)
		return bad(__func__, "no host object or no metrics added");
	img = host_image(h, &p->configImageSize);
	free(img);
	return CUPTI_SUCCESS;
}

API
cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
	CUpti_Profiler_Host_Object *h;
	uint8_t *img;
	size_t size;

	ENTER_PARAMS(p, CUpti_Profiler_Host_GetConfigImage_Params);
	h = host_of(p->pHostObject);
	if (!h || !h->n)
		return bad(__func__, "no host object or no metrics added");
	img = host_image(h, &size);
	if (p->configImageSize != size || !p->pConfigImage) {
		free(img);
		return bad(__func__, "size differs from cuptiProfilerHostGetConfigImageSize");
	}
	memcpy(p->pConfigImage, img, size);
	free(img);
	return CUPTI_SUCCESS;
}

API
cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p)
{
	const char *cnames;
	size_t n, len;

	ENTER_PARAMS(p, CUpti_Profiler_Host_GetNumOfPasses_Params);
	if (!blob_parse(p->pConfigImage, p->configImageSize, BLOB_CONFIG, &cnames, &n, &len))
		return bad(__func__, "not a config image");
	p->numOfPasses = fake_passes(n);
	return CUPTI_SUCCESS;
}

/* $FAKE_EVAL_HOLD_MS: how long an evaluation takes (0 to 10 s; default 0). */
static void
eval_hold(void)
{
	env_hold("FAKE_EVAL_HOLD_MS");
}

API
cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
	const struct cd_header *h;
	CUpti_Profiler_Host_Object *ho;
	size_t i;

	ENTER_PARAMS(p, CUpti_Profiler_Host_EvaluateToGpuValues_Params);
	ho = host_of(p->pHostObject);
	if (!ho)
		return bad(__func__, "not a live host object");
	h = cd_header(p->pCounterDataImage);
	if (!h || !h->decoded)
		return bad(__func__, "image not decoded");
	if (p->rangeIndex >= h->ranges)
		return bad(__func__, "rangeIndex beyond numTotalRanges");
	if (!p->pMetricValues || !p->ppMetricNames)
		return bad(__func__, "NULL arrays");
	/*
	 * A host object keeps evaluation state (the NVPW evaluator behind it):
	 * NVIDIA's samples use one per thread, and nothing in
	 * cupti_profiler_host.h makes it safe to share, so a second thread
	 * inside this call on the same object is misuse. $FAKE_EVAL_HOLD_MS
	 * keeps each evaluation in here that long, so that two unserialised
	 * evaluations overlap and are caught.
	 */
	if (atomic_fetch_add(&ho->evaluating, 1) != 0) {
		atomic_fetch_sub(&ho->evaluating, 1);
		return bad(__func__, "a host object evaluated by two threads at once (callers "
			   "serialise)");
	}
	eval_hold();
	for (i = 0; i < p->numMetrics; i++) {
		if (!fake_cd_value(p->pCounterDataImage, p->rangeIndex, p->ppMetricNames[i],
				   &p->pMetricValues[i])) {
			atomic_fetch_sub(&ho->evaluating, 1);
			return bad(__func__, "a metric that is not in the config");
		}
	}
	atomic_fetch_sub(&ho->evaluating, 1);
	return CUPTI_SUCCESS;
}

/* ---- fork and exit ---- */

/* Hold the state lock across fork(), so the child never inherits it held. */
static void
before_fork(void)
{
	pthread_mutex_lock(&L);
	if (atomic_load(&flushes_in_progress) > 0)
		forks_during_flush++;
}

static void
parent_after_fork(void)
{
	pthread_mutex_unlock(&L);
}

static void
child_after_fork(void)
{
	pthread_mutex_unlock(&L);
	in_child = true;
}

__attribute__((constructor)) static void
fake_init(void)
{
	main_pid = getpid();
	pthread_atfork(before_fork, parent_after_fork, child_after_fork);
}

static void write_report(void);

/* The application would never finish: say so, write the report, end like a timeout. */
static void
hang(const char *what, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, what);
	vsnprintf(buf, sizeof(buf), what, ap);
	va_end(ap);
	fake_violation("HANG: %s", buf);
	write_report();
	fflush(NULL);
	_exit(124);
}

__attribute__((destructor)) static void
fake_report(void)
{
	struct CUpti_Profiler_Host_Object *h;
	struct fake_ctx *c;

	flush_thread_stop = true;
	exiting = true;
	if (!in_child && !finalized) {
		/* Everything the client set up must be torn down by now. */
		for (h = hosts; h; h = h->next)
			fake_violation("host object for %s never deinitialised", h->chip);
		if (rps)
			fake_violation("range profiler object still enabled at exit");
		for (c = ctxs; c; c = c->next) {
			if (c->session)
				fake_violation("legacy profiler session open at exit");
		}
		if (subscribed)
			fake_violation("still subscribed at exit (cuptiUnsubscribe missing)");
		/* 13.0 GA: left on, since disabling it can deadlock (see cuptiActivityDisable). */
		if (kernel_activity && fake_version != 130000)
			fake_violation("kernel activity still enabled at exit");
		/* Kinds left on by the client that still holds the activity API. */
		for (int k = 0; k < KIND_MAX; k++) {
			if (kind_on[k] && kind_owner[k] == buf_done)
				fake_violation("activity kind %d still enabled at exit", k);
		}
		if (prof_initialized)
			fake_violation("profiler still initialised at exit");
	}
	write_report();
}

/* $FAKE_REPORT: violations, call counts, what the GPU left behind. */
static void
report_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line of the report: open(2)/write(2), no stdio or malloc (see fake_violation()). */
static void
report_line(int fd, const char *fmt, ...)
{
	char buf[640];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && write(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0)
		return;
}

static void
write_report(void)
{
	const char *path = getenv("FAKE_REPORT");
	char child_path[4096];
	const struct op *o;
	size_t i, pending = 0;
	int fd, v;

	if (!path)
		return;
	if (in_child) {
		snprintf(child_path, sizeof(child_path), "%s.child", path);
		path = child_path;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	v = n_violations;
	report_line(fd, "violations %d\n", v);
	for (i = 0; i < (size_t)v && i < MAX_VIOLATIONS; i++)
		report_line(fd, "violation: %s\n", violations[i]);
	for (i = 0; i < n_calls; i++)
		report_line(fd, "calls %s %lu\n", calls[i].name, calls[i].n);
	for (o = ops; o; o = o->next)
		pending++;
	report_line(fd, "gpu pending_at_exit %zu records_lost_with_context %llu\n", pending,
		    (unsigned long long)records_lost);
	report_line(fd, "forks_during_flush %lu\n", forks_during_flush);
	report_line(fd, "exit_lock_held %d\n", exit_lock_held ? 1 : 0);
	close(fd);
}
