/* SPDX-License-Identifier: MIT */
/*
 * The projection options of model.h: the names of each option's values
 * and its default (chosen on the validation, docs/validation.md).
 * Thread safety: reentrant; constant data only.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <strings.h>

#include <gpuproj/model.h>

#include "util.h"

/*
 * The L2-capacity adjustment's default, decided on the gpuperfpredict
 * validation (docs/validation.md).
 */
static const bool l2_capacity_default_on = false;
static const enum gpuproj_waves waves_default = GPUPROJ_WAVES_SM;
static const enum gpuproj_occupancy_term occupancy_term_default = GPUPROJ_OCC_TERM_LITTLE;
/*
 * Sustained by default: targets.yaml's max_gflops is the rate of an
 * application's steady state; burst is for data timed in short bursts from
 * idle (model.h, enum gpuproj_clock).
 */
static const enum gpuproj_clock clock_default = GPUPROJ_CLOCK_SUSTAINED;
/*
 * The paper's FP roof: the issue roof did not win on the pairs the choice
 * was made on (docs/validation.md "Compute roofs: choosing and held-out
 * pairs").
 */
static const enum gpuproj_compute compute_default = GPUPROJ_COMPUTE_FP;
/* The one-basis sustained rates (docs/validation.md "Sustained rates"). */
static const enum gpuproj_rates rates_default = GPUPROJ_RATES_SUSTAINED;

const char *
gpuproj_waves_name(enum gpuproj_waves w)
{
	switch (w) {
	case GPUPROJ_WAVES_DEFAULT: return "default";
	case GPUPROJ_WAVES_OFF: return "off";
	case GPUPROJ_WAVES_SM: return "sm";
	case GPUPROJ_WAVES_RESIDENT: return "resident";
	}
	return "?";
}

int
gpuproj_waves_from_name(const char *name, enum gpuproj_waves *ret)
{
	static const enum gpuproj_waves all[] = {
		GPUPROJ_WAVES_DEFAULT, GPUPROJ_WAVES_OFF, GPUPROJ_WAVES_SM, GPUPROJ_WAVES_RESIDENT,
	};
	size_t i;

	for (i = 0; name && ret && i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_waves_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_waves
gpuproj_waves_default(void)
{
	return waves_default;
}

const char *
gpuproj_occupancy_term_name(enum gpuproj_occupancy_term t)
{
	switch (t) {
	case GPUPROJ_OCC_TERM_DEFAULT: return "default";
	case GPUPROJ_OCC_TERM_LITTLE: return "little";
	case GPUPROJ_OCC_TERM_LINEAR: return "linear";
	case GPUPROJ_OCC_TERM_LITTLE_SOURCE: return "little-source";
	}
	return "?";
}

int
gpuproj_occupancy_term_from_name(const char *name, enum gpuproj_occupancy_term *ret)
{
	static const enum gpuproj_occupancy_term all[] = {
		GPUPROJ_OCC_TERM_DEFAULT, GPUPROJ_OCC_TERM_LITTLE, GPUPROJ_OCC_TERM_LINEAR,
		GPUPROJ_OCC_TERM_LITTLE_SOURCE,
	};
	size_t i;

	for (i = 0; name && ret && i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_occupancy_term_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_occupancy_term
gpuproj_occupancy_term_default(void)
{
	return occupancy_term_default;
}

const char *
gpuproj_clock_name(enum gpuproj_clock c)
{
	switch (c) {
	case GPUPROJ_CLOCK_DEFAULT: return "default";
	case GPUPROJ_CLOCK_SUSTAINED: return "sustained";
	case GPUPROJ_CLOCK_BURST: return "burst";
	}
	return "?";
}

int
gpuproj_clock_from_name(const char *name, enum gpuproj_clock *ret)
{
	static const enum gpuproj_clock all[] = {
		GPUPROJ_CLOCK_DEFAULT, GPUPROJ_CLOCK_SUSTAINED, GPUPROJ_CLOCK_BURST,
	};
	size_t i;

	for (i = 0; name && ret && i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_clock_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_clock
gpuproj_clock_default(void)
{
	return clock_default;
}

const char *
gpuproj_rates_name(enum gpuproj_rates r)
{
	switch (r) {
	case GPUPROJ_RATES_DEFAULT: return "default";
	case GPUPROJ_RATES_SUSTAINED: return "sustained";
	case GPUPROJ_RATES_DATASHEET: return "datasheet";
	}
	return "?";
}

int
gpuproj_rates_from_name(const char *name, enum gpuproj_rates *ret)
{
	static const enum gpuproj_rates all[] = {
		GPUPROJ_RATES_DEFAULT, GPUPROJ_RATES_SUSTAINED, GPUPROJ_RATES_DATASHEET,
	};
	size_t i;

	for (i = 0; name && ret && i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_rates_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_rates
gpuproj_rates_default(void)
{
	return rates_default;
}

const char *
gpuproj_compute_name(enum gpuproj_compute c)
{
	switch (c) {
	case GPUPROJ_COMPUTE_FP: return "fp";
	case GPUPROJ_COMPUTE_ISSUE: return "issue";
	case GPUPROJ_COMPUTE_DEFAULT: break;
	}
	return "default";
}

int
gpuproj_compute_from_name(const char *name, enum gpuproj_compute *ret)
{
	static const enum gpuproj_compute all[] = {
		GPUPROJ_COMPUTE_DEFAULT, GPUPROJ_COMPUTE_FP, GPUPROJ_COMPUTE_ISSUE,
	};
	size_t i;

	if (!name || !ret)
		return GPUPROJ_E_INVAL;
	for (i = 0; i < ARRAY_LENGTH(all); i++) {
		if (strcasecmp(name, gpuproj_compute_name(all[i])) == 0) {
			*ret = all[i];
			return GPUPROJ_OK;
		}
	}
	return GPUPROJ_E_INVAL;
}

enum gpuproj_compute
gpuproj_compute_default(void)
{
	return compute_default;
}

bool
gpuproj_l2_capacity_default(void)
{
	return l2_capacity_default_on;
}
