/* SPDX-License-Identifier: MIT */
/*
 * libnvidia-ml.so.1 of the test double: the four NVML calls libproj.so
 * makes for a board's power limit (inject/cupti/cupti-device.c). Signatures and
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
