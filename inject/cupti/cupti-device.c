/* SPDX-License-Identifier: MIT */
/*
 * Devices, chips and contexts of the CUPTI backend.
 *
 * A device is described and checked once, at the first context made on it
 * (driver calls, through functions taken from libcuda.so.1 itself, are
 * allowed in the context-created callback; never in a launch callback): name, compute capability, SMs, clock, chip; profiler
 * support and counter permission; the chip's metric set and configuration
 * (once per chip, through the chip's profiler API: struct cupti_prof_ops).
 *
 * Thread safety: st->ctx_lock guards the tables; each context's profiler
 * calls are serialised by its own lock, so a context destroyed on another
 * thread can tear a window down safely.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti-private.h"
#include "util.h"

/* ---- contexts ---- */

static struct ctxinfo *
ctx_find_locked(struct cupti_state *st, CUcontext ctx)
{
	size_t i;

	for (i = st->n_ctxs; i-- > 0;) {
		if (st->ctxs[i]->ctx == ctx && !st->ctxs[i]->dead)
			return st->ctxs[i];
	}
	return NULL;
}

struct ctxinfo *
cupti_ctx_find(struct cupti_state *st, struct cupti_tls *t, CUcontext ctx)
{
	struct ctxinfo *ci;
	unsigned gen = atomic_load(&st->ctx_gen);

	if (!ctx)
		return NULL;
	if (t->last_ctx == ctx && t->last_gen == gen)
		return t->last_ci;
	pthread_mutex_lock(&st->ctx_lock);
	ci = ctx_find_locked(st, ctx);
	pthread_mutex_unlock(&st->ctx_lock);
	t->last_ctx = ctx;
	t->last_ci = ci;
	t->last_gen = gen;
	return ci;
}

/* ---- chips: metric resolution and configuration (host side, no GPU) ---- */

/* Find or set up the chip's metric set and configuration (st->ctx_lock held). */
static struct chipinfo *
chip_get(struct cupti_state *st, struct devinfo *d, const uint8_t *avail)
{
	struct chipinfo *c;
	size_t i;

	for (i = 0; i < st->n_chips; i++) {
		if (strcmp(st->chips[i].chip, d->info.chip) != 0)
			continue;
		if (!st->chips[i].ok)
			cupti_device_off(st, d,
					 "the metric set-up for %s failed on an earlier device",
					 d->info.chip);
		return &st->chips[i];
	}
	if (st->n_chips == MAX_CHIPS)
		return NULL;
	c = &st->chips[st->n_chips++];
	/* Both are NUL-terminated char[32] (snprintf() in device_describe()). */
	_Static_assert(sizeof(c->chip) == sizeof(d->info.chip), "chip name sizes differ");
	memcpy(c->chip, d->info.chip, sizeof(c->chip));
	pthread_mutex_init(&c->eval_lock, NULL);
	/* The one place that chooses the profiler API: CC 7.0 has the legacy one only. */
	c->prof = d->info.cc_major == 7 && d->info.cc_minor == 0 ? cupti_legacy_profiler()
								  : cupti_range_profiler();
	if (c->prof->chip_setup(st, c, d, avail) != 0)
		return c;
	c->ok = true;
	if (c->set->n_unavailable) {
		char tensor[512] = "";
		size_t len = 0;

		for (i = 0; i < GPUPROJ_M_COUNT; i++) {
			enum gpuproj_metric m = (enum gpuproj_metric)i;
			size_t n = inj_metrics_candidate_count(st->cfg->tensor, m);
			const char *note = c->set->map[i].note;

			/* A metric without candidates is not collected by libproj.so at all. */
			if (c->set->map[i].expr || n == 0)
				continue;
			/* The precisions a chip's tensor cores lack: one line for all. */
			if (gpuproj_tensor_candidates(st->cfg->tensor, m, NULL) && !note[0]) {
				if (len < sizeof(tensor))
					len += (size_t)snprintf(tensor + len, sizeof(tensor) - len,
								"%s%s", len ? ", " : "",
								gpuproj_metric_name(m));
				continue;
			}
			inj_info("%s: metric %s is not available on this chip (tried %zu "
				 "candidate(s)%s%s); models that need it will say so", c->chip,
				 gpuproj_metric_name(m), n, note[0] ? "; " : "", note);
		}
		if (len)
			inj_debug("%s: no tensor counter for %s (GPUPROJ_TENSOR=%s)", c->chip,
				  tensor, gpuproj_tensor_mode_name(st->cfg->tensor));
	}
	return c;
}

void
cupti_chips_release(struct cupti_state *st)
{
	size_t i;

	for (i = 0; i < st->n_chips; i++) {
		if (st->chips[i].prof)
			st->chips[i].prof->chip_release(st, &st->chips[i]);
	}
}

/* ---- device set-up at context creation (driver calls allowed here) ---- */

/*
 * The driver's functions come from libcuda.so.1 itself: libcudart (shared
 * and static) loads it with dlopen(RTLD_NOW), i.e. RTLD_LOCAL, so its
 * symbols are in the global scope only when the application links -lcuda
 * ([CUPTI-BUILD]). RTLD_NOLOAD: the driver is already mapped (CUDA called
 * InitializeInjection from cuInit), never load another one.
 */
static void
resolve_driver(struct cupti_state *st)
{
	if (!st->drv.lib)
		st->drv.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!st->drv.lib) {
		inj_debug("libcuda.so.1 is not loaded (%s): device names and attributes unknown",
			  dlerror());
		return;
	}
	if (!st->drv.cuDeviceGet)
		inj_dlsym(st->drv.lib, "cuDeviceGet", &st->drv.cuDeviceGet);
	if (!st->drv.cuDeviceGetName)
		inj_dlsym(st->drv.lib, "cuDeviceGetName", &st->drv.cuDeviceGetName);
	if (!st->drv.cuDeviceGetAttribute)
		inj_dlsym(st->drv.lib, "cuDeviceGetAttribute", &st->drv.cuDeviceGetAttribute);
	if (!st->drv.cuDeviceTotalMem_v2)
		inj_dlsym(st->drv.lib, "cuDeviceTotalMem_v2", &st->drv.cuDeviceTotalMem_v2);
	if (!st->drv.cuDeviceGetPCIBusId)
		inj_dlsym(st->drv.lib, "cuDeviceGetPCIBusId", &st->drv.cuDeviceGetPCIBusId);
	if (!st->drv.cuCtxSynchronize) {
		inj_dlsym(st->drv.lib, "cuCtxPushCurrent_v2", &st->drv.cuCtxPushCurrent_v2);
		inj_dlsym(st->drv.lib, "cuCtxPopCurrent_v2", &st->drv.cuCtxPopCurrent_v2);
		inj_dlsym(st->drv.lib, "cuCtxSynchronize", &st->drv.cuCtxSynchronize);
	}
}

/*
 * NVML, for the board's power limit: dlopen()ed, never linked (a machine
 * without it just has no power figure). The few declarations gpuproj needs,
 * from the NVML API reference (nvml.h is not in the CUDA toolkit): every
 * call returns nvmlReturn_t, 0 = NVML_SUCCESS; nvmlDevice_t is an opaque
 * pointer; nvmlDeviceGetEnforcedPowerLimit() gives milliwatts. The device
 * is found by its PCI bus id (cuDeviceGetPCIBusId), since NVML's indices
 * need not follow CUDA's ordinals (CUDA_VISIBLE_DEVICES,
 * CUDA_DEVICE_ORDER).
 */
typedef struct nvml_device *nvml_device_t;

/*
 * The device's power limit, W (NaN when NVML cannot say); keeps its NVML
 * handle for cupti_nvml_sample().
 */
static double
nvml_power_limit_w(struct cupti_state *st, const char *pci_bus_id, int ordinal)
{
	int (*get_handle)(const char *, nvml_device_t *);
	int (*get_limit)(nvml_device_t, unsigned int *);
	nvml_device_t dev;
	unsigned int mw = 0;

	if (!st->nvml.tried) {
		int (*init)(void);

		st->nvml.tried = true;
		st->nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
		if (st->nvml.lib && inj_dlsym(st->nvml.lib, "nvmlInit_v2", &init))
			st->nvml.initialised = init() == 0;
		if (!st->nvml.initialised)
			inj_debug("NVML not available: the power limit stays unknown");
	}
	if (!st->nvml.initialised ||
	    !inj_dlsym(st->nvml.lib, "nvmlDeviceGetHandleByPciBusId_v2", &get_handle) ||
	    get_handle(pci_bus_id, &dev) != 0)
		return NAN;
	if (ordinal >= 0 && ordinal < INJ_MAX_DEVICES) {
		st->nvml.dev[ordinal] = dev;
		st->nvml.have_dev[ordinal] = true;
	}
	if (!inj_dlsym(st->nvml.lib, "nvmlDeviceGetEnforcedPowerLimit", &get_limit) ||
	    get_limit(dev, &mw) != 0 || mw == 0)
		return NAN;
	return mw / 1000.0;
}

/*
 * NVML's clock calls (nvml.h): nvmlDeviceGetClockInfo(device, type, *MHz)
 * with type NVML_CLOCK_SM = 1 (nvmlClockType_t: GRAPHICS 0, SM 1, MEM 2,
 * VIDEO 3), and nvmlDeviceGetCurrentClocksEventReasons(device, *bits) —
 * called nvmlDeviceGetCurrentClocksThrottleReasons before r535, which keeps
 * it as a deprecated alias —, bits of nvmlClocksEventReason* (enum
 * gpuproj_clock_reason); 0 = NVML_SUCCESS. A sample is taken only when the
 * reasons are known and do not include GpuIdle: an idle GPU's clock says
 * nothing about the run [GPU?: that NVML clears GpuIdle while kernels of
 * this process run, and how fast its SM clock follows the load].
 */
#define NVML_CLOCK_SM 1

void
cupti_nvml_sample(struct cupti_state *st)
{
	int (*clock_info)(nvml_device_t, int, unsigned int *) = NULL;
	int (*reasons_of)(nvml_device_t, unsigned long long *) = NULL;
	struct inj_totals tot;
	unsigned long long why = 0;
	unsigned int mhz = 0;
	int d;

	if (!st->nvml.initialised || !st->col)
		return;
	d = inj_collector_source_device(st->col);
	if (d < 0 || d >= INJ_MAX_DEVICES || !st->nvml.have_dev[d])
		return;
	inj_collector_totals(st->col, &tot);
	if (tot.launches == st->nvml.sampled_launches)
		return; /* no kernel completed since the last sample */
	st->nvml.sampled_launches = tot.launches;
	if (!inj_dlsym(st->nvml.lib, "nvmlDeviceGetClockInfo", &clock_info) ||
	    (!inj_dlsym(st->nvml.lib, "nvmlDeviceGetCurrentClocksEventReasons", &reasons_of) &&
	     !inj_dlsym(st->nvml.lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &reasons_of)))
		return;
	if (reasons_of(st->nvml.dev[d], &why) != 0 || (why & GPUPROJ_CLK_GPU_IDLE) ||
	    clock_info(st->nvml.dev[d], NVML_CLOCK_SM, &mhz) != 0 || mhz == 0)
		return;
	/* The bits gpuproj names (profile.h); a newer NVML's other bits are left out. */
	inj_collector_sm_clock(st->col, (double)mhz, why & GPUPROJ_CLK_KNOWN);
}

/* The driver's attributes behind a GPU that targets.yaml does not list (profile.h). */
static void
device_driver_attrs(struct cupti_state *st, struct devinfo *d, CUdevice dev)
{
	static const struct {
		enum gpuproj_driver_attr a;
		CUdevice_attribute cu;
		double scale;
	} attrs[] = {
		{ GPUPROJ_DRV_MEMORY_CLOCK_KHZ, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 1 },
		{ GPUPROJ_DRV_MEMORY_BUS_BITS, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 1 },
		{ GPUPROJ_DRV_L2_BYTES, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 1 },
		{ GPUPROJ_DRV_THREADS_PER_SM, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 1 },
		{ GPUPROJ_DRV_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1 },
		{ GPUPROJ_DRV_BLOCKS_PER_SM, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 1 },
		{ GPUPROJ_DRV_REGS_PER_SM, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 1 },
		{ GPUPROJ_DRV_REGS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 1 },
		{ GPUPROJ_DRV_SMEM_PER_SM_BYTES, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
		  1 },
		{ GPUPROJ_DRV_SMEM_PER_BLOCK_OPTIN_BYTES,
		  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 1 },
		{ GPUPROJ_DRV_SMEM_RESERVED_PER_BLOCK_BYTES,
		  CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1 },
		{ GPUPROJ_DRV_WARP_SIZE, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1 },
	};
	char bus[32];
	size_t i, bytes;
	int v;

	for (i = 0; i < GPUPROJ_DRV_COUNT; i++)
		d->info.driver[i] = NAN;
	for (i = 0; st->drv.cuDeviceGetAttribute && i < ARRAY_LENGTH(attrs); i++) {
		/* 0 is "none" for the reserved shared memory of CC < 8.0: not a limit to keep. */
		if (st->drv.cuDeviceGetAttribute(&v, attrs[i].cu, dev) == CUDA_SUCCESS && v > 0)
			d->info.driver[attrs[i].a] = v * attrs[i].scale;
	}
	if (st->drv.cuDeviceTotalMem_v2 &&
	    st->drv.cuDeviceTotalMem_v2(&bytes, dev) == CUDA_SUCCESS && bytes > 0)
		d->info.driver[GPUPROJ_DRV_MEMORY_BYTES] = (double)bytes;
	if (st->drv.cuDeviceGetPCIBusId &&
	    st->drv.cuDeviceGetPCIBusId(bus, (int)sizeof(bus), dev) == CUDA_SUCCESS)
		d->info.driver[GPUPROJ_DRV_POWER_LIMIT_W] = nvml_power_limit_w(st, bus,
										 d->info.ordinal);
}

static void
device_describe(struct cupti_state *st, struct devinfo *d, int ordinal)
{
	CUpti_Device_GetChipName_Params cp = {
		.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE,
		.deviceIndex = (size_t)ordinal,
	};
	CUdevice dev = ordinal;
	int v;

	d->info.ordinal = ordinal;
	d->info.clock_hz = NAN;
	resolve_driver(st);
	if (st->drv.cuDeviceGet && st->drv.cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS)
		dev = ordinal;
	if (st->drv.cuDeviceGetName &&
	    st->drv.cuDeviceGetName(d->info.name, (int)sizeof(d->info.name), dev) != CUDA_SUCCESS)
		d->info.name[0] = '\0';
	if (st->drv.cuDeviceGetAttribute) {
		if (st->drv.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
					       dev) == CUDA_SUCCESS)
			d->info.cc_major = v;
		if (st->drv.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
					       dev) == CUDA_SUCCESS)
			d->info.cc_minor = v;
		if (st->drv.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
						 dev) == CUDA_SUCCESS)
			d->info.sms = v;
		if (st->drv.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) ==
			    CUDA_SUCCESS && v > 0)
			d->info.clock_hz = (double)v * 1e3;
	}
	device_driver_attrs(st, d, dev);
	if (CUPTI_TRY(st, cuptiDeviceGetChipName, &cp) == CUPTI_SUCCESS)
		snprintf(d->info.chip, sizeof(d->info.chip), "%s", cp.pChipName ? cp.pChipName : "");
}

/* Why the profiler API says no, in words; NULL when supported. */
static const char *
unsupported_reason(const CUpti_Profiler_DeviceSupported_Params *p)
{
	if (p->isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return NULL;
	if (p->architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "the GPU architecture has no profiler support (needs compute capability >= 7.0)";
	if (p->vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
		return "a vGPU with profiling disabled by the hypervisor";
	if (p->vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "an unsupported vGPU configuration";
	if (p->sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "SLI is enabled";
	if (p->confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "confidential computing is enabled";
	if (p->cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "a CMP (crypto mining) GPU";
	if (p->wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return "WSL without profiler support";
	return "the device or configuration is not supported";
}

/* CC 7.0 is supported by the legacy API only: the range API's "no" is only the architecture. */
static bool
legacy_only(const struct devinfo *d, const CUpti_Profiler_DeviceSupported_Params *sp)
{
	return d->info.cc_major == 7 && d->info.cc_minor == 0 &&
	       sp->architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
	       sp->vGpu == CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
	       sp->sli == CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
	       sp->confidentialCompute == CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
	       sp->cmp == CUPTI_PROFILER_CONFIGURATION_SUPPORTED &&
	       sp->wsl == CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
}

/* Check the device once: support, permission, chip, metrics (st->ctx_lock held). */
static void
device_setup(struct cupti_state *st, struct devinfo *d, CUcontext ctx)
{
	CUpti_Profiler_Initialize_Params ip = { .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
	CUpti_Profiler_DeviceSupported_Params sp = {
		.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE,
		.cuDevice = d->info.ordinal,
		.api = CUPTI_PROFILER_RANGE_PROFILING,
	};
	CUpti_Profiler_GetCounterAvailability_Params ap = {
		.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE,
		.ctx = ctx,
	};
	uint8_t *avail = NULL;
	const char *why;
	CUptiResult r;

	d->metrics = true;
	if (!atomic_load(&st->metrics)) {
		d->metrics = false;
		return;
	}
	if (d->info.cc_major > 0 && d->info.cc_major < 7) {
		cupti_device_off(st, d,
				 "compute capability %d.%d has no CUPTI profiler (needs >= 7.0)",
				 d->info.cc_major, d->info.cc_minor);
		return;
	}
	if (!d->info.chip[0]) {
		cupti_device_off(st, d, "cuptiDeviceGetChipName gave no chip name");
		return;
	}
	if (!atomic_load(&st->profiler_initialized)) {
		r = CUPTI_TRY(st, cuptiProfilerInitialize, &ip);
		if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
			cupti_no_permission(st, "cuptiProfilerInitialize", r);
			d->metrics = false;
			return;
		}
		if (r == CUPTI_ERROR_HARDWARE_BUSY) {
			cupti_counters_busy(st, "cuptiProfilerInitialize");
			d->metrics = false;
			return;
		}
		if (r != CUPTI_SUCCESS) {
			cupti_metrics_off(st, "cuptiProfilerInitialize failed (%s)",
					  cupti_result_name(st, r));
			d->metrics = false;
			return;
		}
		atomic_store(&st->profiler_initialized, true);
	}
	r = CUPTI_TRY(st, cuptiProfilerDeviceSupported, &sp);
	if (r == CUPTI_SUCCESS && (why = unsupported_reason(&sp)) != NULL && !legacy_only(d, &sp)) {
		cupti_device_off(st, d, "performance counters are not available: %s", why);
		return;
	}
	/* Counter availability: where missing permission shows up ([T], [CUPTI-INJ]). */
	r = CUPTI_TRY(st, cuptiProfilerGetCounterAvailability, &ap);
	if (r == CUPTI_SUCCESS && ap.counterAvailabilityImageSize > 0) {
		avail = malloc(ap.counterAvailabilityImageSize);
		if (avail) {
			ap.pCounterAvailabilityImage = avail;
			r = CUPTI_TRY(st, cuptiProfilerGetCounterAvailability, &ap);
		}
	}
	if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
	    r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES) {
		cupti_no_permission(st, "cuptiProfilerGetCounterAvailability", r);
		d->metrics = false;
		goto out;
	}
	if (r == CUPTI_ERROR_HARDWARE_BUSY) {
		cupti_counters_busy(st, "cuptiProfilerGetCounterAvailability");
		d->metrics = false;
		goto out;
	}
	if (r != CUPTI_SUCCESS) {
		cupti_device_off(st, d, "cuptiProfilerGetCounterAvailability returned %s",
				 cupti_result_name(st, r));
		goto out;
	}
	d->chip = chip_get(st, d, avail);
	if (!d->chip || !d->chip->ok) {
		d->metrics = false;
		goto out;
	}
	inj_info("device %d: %s (%s, CC %d.%d, %d SMs): %zu metrics in %zu pass%s; the first %u "
		 "launch%s of each kernel signature run%s %zu time%s under kernel replay",
		 d->info.ordinal, d->info.name, d->info.chip, d->info.cc_major, d->info.cc_minor,
		 d->info.sms, d->chip->set->n_names, d->chip->passes,
		 d->chip->passes == 1 ? "" : "es", st->cfg->profile_launches,
		 st->cfg->profile_launches == 1 ? "" : "es",
		 st->cfg->profile_launches == 1 ? "s" : "", d->chip->passes,
		 d->chip->passes == 1 ? "" : "s");
out:
	free(avail);
}

void
cupti_on_context_created(struct cupti_state *st, CUcontext ctx)
{
	struct ctxinfo *ci;
	uint32_t ordinal = 0;
	struct devinfo *d;

	if (CUPTI_TRY(st, cuptiGetDeviceId, ctx, &ordinal) != CUPTI_SUCCESS) {
		inj_debug("context %p: device unknown; its launches are timed only", (void *)ctx);
		return;
	}
	if (ordinal >= INJ_MAX_DEVICES) {
		inj_warn("device ordinal %u is beyond the %d gpuproj supports; its kernels are "
			 "not profiled", ordinal, INJ_MAX_DEVICES);
		return;
	}
	ci = calloc(1, sizeof(*ci));
	if (!ci)
		return;
	ci->ctx = ctx;
	ci->device = (int)ordinal;
	pthread_mutex_init(&ci->lock, NULL);
	{
		pthread_rwlockattr_t a;

		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&ci->win_lock, &a);
		pthread_rwlockattr_destroy(&a);
	}

	pthread_mutex_lock(&st->ctx_lock);
	if (atomic_load(&st->run) != ST_RUNNING) {
		/*
		 * Exit began (cupti_shutdown() passed st->ctx_lock since): the
		 * report holds the collector lock and then takes st->ctx_lock,
		 * so this must not take the collector lock below.
		 */
		pthread_mutex_unlock(&st->ctx_lock);
		pthread_mutex_destroy(&ci->lock);
		pthread_rwlock_destroy(&ci->win_lock);
		free(ci);
		return;
	}
	d = &st->devs[ordinal];
	if (!d->checked) {
		device_describe(st, d, (int)ordinal);
		inj_device_sanitize(&d->info);
		inj_collector_device(st->col, &d->info);
		if (atomic_load(&st->metrics))
			device_setup(st, d, ctx);
		d->checked = true;
	}
	if (st->n_ctxs == st->cap_ctxs) {
		size_t cap = st->cap_ctxs ? 2 * st->cap_ctxs : 8;
		struct ctxinfo **n = realloc(st->ctxs, cap * sizeof(*n));

		if (!n) {
			pthread_mutex_unlock(&st->ctx_lock);
			pthread_mutex_destroy(&ci->lock);
			pthread_rwlock_destroy(&ci->win_lock);
			free(ci);
			return;
		}
		st->ctxs = n;
		st->cap_ctxs = cap;
	}
	st->ctxs[st->n_ctxs++] = ci;
	ci->prof = d->chip && d->chip->ok ? d->chip->prof : NULL;
	atomic_store(&ci->ready, d->metrics && ci->prof && atomic_load(&st->metrics));
	atomic_fetch_add(&st->ctx_gen, 1);
	pthread_mutex_unlock(&st->ctx_lock);
}

/* Release a context's images (ci->lock held). */
static void
ctx_free_images(struct ctxinfo *ci)
{
	free(ci->cd);
	ci->cd = NULL;
	free(ci->scratch);
	ci->scratch = NULL;
}

void
cupti_on_context_destroy(struct cupti_state *st, CUcontext ctx)
{
	struct ctxinfo *ci;

	pthread_mutex_lock(&st->ctx_lock);
	ci = ctx_find_locked(st, ctx);
	if (ci)
		ci->dead = true;
	atomic_fetch_add(&st->ctx_gen, 1);
	pthread_mutex_unlock(&st->ctx_lock);
	if (!ci)
		return;
	pthread_mutex_lock(&ci->lock);
	atomic_store(&ci->ready, false);
	/* A window open on another thread is torn down now; its EXIT discards it. */
	if (ci->win_open)
		ci->win_aborted = true;
	cupti_window_teardown(st, ci);
	ctx_free_images(ci);
	pthread_mutex_unlock(&ci->lock);
}

/* The contexts known now (ctxinfo is never freed); malloc'd, NULL when none. */
static struct ctxinfo **
contexts_copy(struct cupti_state *st, size_t *ret_n)
{
	struct ctxinfo **v;

	pthread_mutex_lock(&st->ctx_lock);
	*ret_n = st->n_ctxs;
	v = st->n_ctxs ? malloc(st->n_ctxs * sizeof(*v)) : NULL;
	if (v)
		memcpy(v, st->ctxs, st->n_ctxs * sizeof(*v));
	else
		*ret_n = 0;
	pthread_mutex_unlock(&st->ctx_lock);
	return v;
}

bool
cupti_windows_quiesce(struct cupti_state *st, double s)
{
	struct timespec until;
	struct ctxinfo **v;
	size_t n, i;
	bool all = true;

	v = contexts_copy(st, &n);
	deadline_after(s, &until);
	for (i = 0; i < n; i++) {
		int r = s > 0 ? pthread_rwlock_timedwrlock(&v[i]->win_lock, &until)
			      : pthread_rwlock_trywrlock(&v[i]->win_lock);

		v[i]->exit_locked = r == 0;
		all = all && r == 0;
	}
	free(v);
	return all;
}

void
cupti_windows_wait_all(struct cupti_state *st)
{
	struct ctxinfo **v;
	size_t n, i;

	v = contexts_copy(st, &n);
	for (i = 0; i < n; i++) {
		struct timespec until;

		if (v[i]->dead)
			continue;
		deadline_after(st->cfg->wait_s, &until);
		if (pthread_rwlock_timedrdlock(&v[i]->win_lock, &until) == 0)
			pthread_rwlock_unlock(&v[i]->win_lock);
		else
			inj_debug("a profiling window stayed open longer than GPUPROJ_WAIT while a "
				  "stream capture began");
	}
	free(v);
}

void
cupti_windows_release(struct cupti_state *st)
{
	struct ctxinfo **v;
	size_t n, i;

	v = contexts_copy(st, &n);
	for (i = 0; i < n; i++) {
		if (v[i]->exit_locked)
			pthread_rwlock_unlock(&v[i]->win_lock);
		v[i]->exit_locked = false;
	}
	free(v);
}

void
cupti_contexts_release(struct cupti_state *st, bool call_cupti)
{
	size_t i;

	pthread_mutex_lock(&st->ctx_lock);
	for (i = 0; i < st->n_ctxs; i++) {
		struct ctxinfo *ci = st->ctxs[i];

		pthread_mutex_lock(&ci->lock);
		if (!ci->dead && call_cupti)
			cupti_window_teardown(st, ci);
		ctx_free_images(ci);
		pthread_mutex_unlock(&ci->lock);
	}
	pthread_mutex_unlock(&st->ctx_lock);
}

bool
cupti_ctx_sync(struct cupti_state *st, CUcontext ctx)
{
	CUcontext popped;

	if (!ctx || !st->drv.cuCtxSynchronize || !st->drv.cuCtxPushCurrent_v2 ||
	    !st->drv.cuCtxPopCurrent_v2)
		return false;
	if (st->drv.cuCtxPushCurrent_v2(ctx) != CUDA_SUCCESS)
		return false;
	if (st->drv.cuCtxSynchronize() != CUDA_SUCCESS)
		inj_debug("cuCtxSynchronize failed on context %p", (void *)ctx);
	st->drv.cuCtxPopCurrent_v2(&popped);
	return true;
}

struct sync_job {
	struct cupti_state *st;
	CUcontext *ctxs;
	size_t n;
	atomic_bool probed;	/* cuptiGetTimestamp returned */
	atomic_bool done;
};

static void *
sync_main(void *arg)
{
	struct sync_job *j = arg;
	uint64_t ts;
	size_t i;

	/* CUPTI answers (its lock is free), then the GPU. */
	if (j->st->api.cuptiGetTimestamp)
		(void)j->st->api.cuptiGetTimestamp(&ts);
	atomic_store(&j->probed, true);
	for (i = 0; i < j->n; i++)
		cupti_ctx_sync(j->st, j->ctxs[i]);
	atomic_store(&j->done, true);
	return NULL;
}

enum cupti_sync
cupti_contexts_sync(struct cupti_state *st, double wait_s)
{
	struct sync_job *j = calloc(1, sizeof(*j));
	struct timespec until;
	pthread_t t;
	size_t i;
	int r;

	if (!j)
		return CUPTI_SYNC_OK;
	j->st = st;
	deadline_after(wait_s, &until);
	/* Bounded: a frame frozen in a context's creation may hold it (exit() from a signal). */
	if (pthread_mutex_timedlock(&st->ctx_lock, &until) != 0) {
		free(j);
		return CUPTI_SYNC_STUCK;
	}
	j->ctxs = calloc(st->n_ctxs ? st->n_ctxs : 1, sizeof(*j->ctxs));
	for (i = 0; j->ctxs && i < st->n_ctxs; i++) {
		if (!st->ctxs[i]->dead)
			j->ctxs[j->n++] = st->ctxs[i]->ctx;
	}
	pthread_mutex_unlock(&st->ctx_lock);
	if (!j->ctxs || pthread_create(&t, NULL, sync_main, j) != 0) {
		free(j->ctxs);
		free(j);
		return CUPTI_SYNC_OK;
	}
	r = pthread_timedjoin_np(t, NULL, &until);
	if (r == 0) {
		free(j->ctxs);
		free(j);
		return CUPTI_SYNC_OK;
	}
	/* Still waiting: leave the thread (and its job) behind; the process ends. */
	pthread_detach(t);
	return atomic_load(&j->probed) ? CUPTI_SYNC_GPU : CUPTI_SYNC_STUCK;
}
