/* SPDX-License-Identifier: MIT */
/*
 * libnvidia-ml.so.1 of the test double: the NVML calls libproj.so makes for
 * a board's power limit and its SM clock samples (inject/cupti/cupti-device.c).
 * Signatures and
 * behaviour after the NVML API reference (nvml.h is not in the CUDA
 * toolkit): nvmlReturn_t values NVML_SUCCESS 0, NVML_ERROR_UNINITIALIZED 1,
 * NVML_ERROR_INVALID_ARGUMENT 2, NVML_ERROR_NOT_SUPPORTED 3,
 * NVML_ERROR_NOT_FOUND 6; nvmlDeviceGetHandleByPciBusId_v2 takes
 * "domain:bus:device.function" (hexadecimal); the enforced power limit is in
 * milliwatts. A call before nvmlInit_v2 fails UNINITIALIZED. The devices are
 * the double's (fake.h); bus = ordinal + 1, as fake-libcuda.c's
 * cuDeviceGetPCIBusId gives it.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdio.h>

#include "fake.h"

#define NVML_EXPORT __attribute__((visibility("default")))

typedef struct nvml_device *nvml_device_t;

static atomic_int inits;

NVML_EXPORT int nvmlInit_v2(void);
NVML_EXPORT int nvmlShutdown(void);
NVML_EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *pci_bus_id, nvml_device_t *dev);
NVML_EXPORT int nvmlDeviceGetEnforcedPowerLimit(nvml_device_t dev, unsigned int *limit);
NVML_EXPORT int nvmlDeviceGetClockInfo(nvml_device_t dev, int type, unsigned int *clock);
NVML_EXPORT int nvmlDeviceGetCurrentClocksEventReasons(nvml_device_t dev,
						       unsigned long long *reasons);

int
nvmlInit_v2(void)
{
	fake_count(__func__);
	atomic_fetch_add(&inits, 1);
	return 0;
}

int
nvmlShutdown(void)
{
	fake_count(__func__);
	if (atomic_load(&inits) == 0)
		return 1;
	atomic_fetch_sub(&inits, 1);
	return 0;
}

int
nvmlDeviceGetHandleByPciBusId_v2(const char *pci_bus_id, nvml_device_t *dev)
{
	unsigned domain, bus, device, function;

	fake_count(__func__);
	if (atomic_load(&inits) == 0)
		return 1;
	if (!pci_bus_id || !dev ||
	    sscanf(pci_bus_id, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4)
		return 2;
	if (domain != 0 || device != 0 || function != 0 || bus == 0 ||
	    !fake_get_device((int)bus - 1))
		return 6;
	*dev = (nvml_device_t)(uintptr_t)bus;
	return 0;
}

int
nvmlDeviceGetEnforcedPowerLimit(nvml_device_t dev, unsigned int *limit)
{
	const struct fake_device *d = fake_get_device((int)(uintptr_t)dev - 1);

	fake_count(__func__);
	if (atomic_load(&inits) == 0)
		return 1;
	if (!d || !limit)
		return 2;
	if (d->attr[FAKE_DEV_POWER_W] < 0)
		return 3;
	*limit = (unsigned int)(d->attr[FAKE_DEV_POWER_W] * 1000);
	return 0;
}

/*
 * nvml.h: "nvmlReturn_t DECLDIR nvmlDeviceGetClockInfo(nvmlDevice_t device,
 * nvmlClockType_t type, unsigned int *clock)", the clock in MHz;
 * NVML_ERROR_INVALID_ARGUMENT "if device is invalid or clock is NULL",
 * NVML_ERROR_NOT_SUPPORTED "if the device cannot report the specified
 * clock". nvmlClockType_t: GRAPHICS 0, SM 1, MEM 2, VIDEO 3 (any other is
 * invalid). The double answers the SM clock only (the device's
 * nvml_sm_mhz), which is all libproj.so asks for.
 */
int
nvmlDeviceGetClockInfo(nvml_device_t dev, int type, unsigned int *clock)
{
	const struct fake_device *d = fake_get_device((int)(uintptr_t)dev - 1);

	fake_count(__func__);
	if (atomic_load(&inits) == 0)
		return 1;
	if (!d || !clock || type < 0 || type > 3)
		return 2;
	if (type != 1 || d->attr[FAKE_DEV_NVML_SM_MHZ] < 0)
		return 3;
	*clock = (unsigned int)d->attr[FAKE_DEV_NVML_SM_MHZ];
	return 0;
}

/*
 * nvml.h: "nvmlReturn_t DECLDIR nvmlDeviceGetCurrentClocksEventReasons(
 * nvmlDevice_t device, unsigned long long *clocksEventReasons)";
 * INVALID_ARGUMENT "if device is invalid or clocksEventReasons is NULL",
 * NOT_SUPPORTED "if the device does not support this feature". The
 * device's nvml_reasons.
 */
int
nvmlDeviceGetCurrentClocksEventReasons(nvml_device_t dev, unsigned long long *reasons)
{
	const struct fake_device *d = fake_get_device((int)(uintptr_t)dev - 1);

	fake_count(__func__);
	if (atomic_load(&inits) == 0)
		return 1;
	if (!d || !reasons)
		return 2;
	if (d->attr[FAKE_DEV_NVML_REASONS] < 0)
		return 3;
	*reasons = (unsigned long long)d->attr[FAKE_DEV_NVML_REASONS];
	return 0;
}
