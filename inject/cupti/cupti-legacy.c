/* SPDX-License-Identifier: MIT */
/*
 * The legacy profiler (cupti_profiler_target.h + NVPW, [CUPTI-LEG]),
 * the only one CC 7.0 (GV100) has: metrics resolved and configured with
 * the NVPW metrics evaluator (nvpw.c), one session per profiled
 * launch: counter-data image (re)initialised → BeginSession (auto range,
 * kernel replay) → SetConfig → EnableProfiling at the launch's ENTER;
 * DisableProfiling → FlushCounterData → UnsetConfig → EndSession → NVPW
 * evaluation at its EXIT. FlushCounterData decodes the submitted passes
 * into the image (cupti_profiler_target.h; NVIDIA's kernel-replay samples,
 * e.g. autorange_profiling, call it after DisableProfiling): without it
 * the image may hold no range ([GPU?] what EndSession alone
 * keeps).
 *
 * Thread safety: called with the context's lock held (window functions) or
 * st->ctx_lock (chip set-up).
 */
#include "config.h"

#include <stdlib.h>

#include "cupti-private.h"
#include "nvpw.h"

static bool
valid_nvpw(void *ud, const char *name)
{
	return inj_nvpw_metric_valid(ud, name);
}

static int
legacy_chip_setup(struct cupti_state *st, struct chipinfo *c, struct devinfo *d,
		  const uint8_t *avail)
{
	const char *why = NULL;
	int r;

	if (st->legacy_missing) {
		cupti_device_off(st, d,
				 "this libcupti.so.13 lacks %s of the legacy profiler API, which CC "
				 "%d.%d needs (deprecated since CUDA 13.0; a CUDA 13.0-13.5 CUPTI "
				 "has it)", st->legacy_missing, d->info.cc_major,
				 d->info.cc_minor);
		return -1;
	}
	if (inj_nvpw_load(&why) != 0) {
		cupti_device_off(st, d, "%s", why);
		return -1;
	}
	r = inj_nvpw_new(c->chip, avail, &c->nvpw);
	if (r != 0) {
		cupti_device_off(st, d, "the NVPW metrics evaluator does not accept chip %s (%s)",
				 c->chip, inj_nvpw_status_name(r));
		return -1;
	}
	if (inj_metrics_resolve(c->chip, st->cfg->tensor, valid_nvpw, c->nvpw, &c->set) != 0) {
		cupti_device_off(st, d, "out of memory resolving metrics");
		return -1;
	}
	r = inj_nvpw_config(c->nvpw, c->set->names, c->set->n_names, &c->passes);
	if (r != 0) {
		cupti_device_off(st, d, "cannot build the NVPW config image for %s (%s)", c->chip,
				 inj_nvpw_status_name(r));
		return -1;
	}
	return 0;
}

static void
legacy_chip_release(struct cupti_state *st, struct chipinfo *c)
{
	inj_nvpw_free(c->nvpw);
	c->nvpw = NULL;
}

static void
legacy_teardown(struct cupti_state *st, struct ctxinfo *ci)
{
	CUpti_Profiler_DisableProfiling_Params dp = {
		.structSize = CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE, .ctx = ci->ctx };
	CUpti_Profiler_UnsetConfig_Params up = {
		.structSize = CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE, .ctx = ci->ctx };
	CUpti_Profiler_EndSession_Params ep = {
		.structSize = CUpti_Profiler_EndSession_Params_STRUCT_SIZE, .ctx = ci->ctx };

	if (!ci->legacy_session)
		return;
	if (ci->win_open) {
		CUPTI_TRY(st, cuptiProfilerDisableProfiling, &dp);
		CUPTI_TRY(st, cuptiProfilerUnsetConfig, &up);
	}
	CUPTI_TRY(st, cuptiProfilerEndSession, &ep);
	ci->legacy_session = false;
}

/* The context's counter-data image and scratch buffer, allocated once (ci->lock held). */
static bool
legacy_images(struct cupti_state *st, struct ctxinfo *ci,
	      const CUpti_Profiler_CounterDataImageOptions *opt, struct cupti_err *err)
{
	CUpti_Profiler_CounterDataImage_CalculateSize_Params cp = {
		.structSize = CUpti_Profiler_CounterDataImage_CalculateSize_Params_STRUCT_SIZE,
		.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE,
		.pOptions = opt,
	};
	CUpti_Profiler_CounterDataImage_Initialize_Params ip = {
		.structSize = CUpti_Profiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
		.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE,
		.pOptions = opt,
	};
	CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params sp = {
		.structSize = CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params_STRUCT_SIZE,
	};

	if (ci->cd)
		return true;
	if (!CUPTI_CALL(st, err, cuptiProfilerCounterDataImageCalculateSize, &cp))
		return false;
	ci->cd = aligned_alloc(8, (cp.counterDataImageSize + 7) / 8 * 8 + 8);
	if (!ci->cd) {
		cupti_failed(st, err, CUPTI_ERROR_OUT_OF_MEMORY,
			     "cuptiProfilerCounterDataImageCalculateSize");
		return false;
	}
	ci->cd_size = cp.counterDataImageSize;
	ip.counterDataImageSize = ci->cd_size;
	ip.pCounterDataImage = ci->cd;
	sp.counterDataImageSize = ci->cd_size;
	sp.pCounterDataImage = ci->cd;
	if (!CUPTI_CALL(st, err, cuptiProfilerCounterDataImageInitialize, &ip) ||
	    !CUPTI_CALL(st, err, cuptiProfilerCounterDataImageCalculateScratchBufferSize, &sp))
		return false;
	ci->scratch = aligned_alloc(8, (sp.counterDataScratchBufferSize + 7) / 8 * 8 + 8);
	if (!ci->scratch) {
		cupti_failed(st, err, CUPTI_ERROR_OUT_OF_MEMORY,
			     "cuptiProfilerCounterDataImageCalculateScratchBufferSize");
		return false;
	}
	ci->scratch_size = sp.counterDataScratchBufferSize;
	return true;
}

/* ENTER side ([CUPTI-LEG]). */
static bool
legacy_open(struct cupti_state *st, struct ctxinfo *ci, struct chipinfo *chip,
	    struct cupti_err *err)
{
	CUpti_Profiler_CounterDataImageOptions opt = {
		.structSize = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE,
		.maxNumRanges = 1,
		.maxNumRangeTreeNodes = 1,
		.maxRangeNameLength = 64,
	};
	CUpti_Profiler_CounterDataImage_Initialize_Params ip = {
		.structSize = CUpti_Profiler_CounterDataImage_Initialize_Params_STRUCT_SIZE,
		.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE,
		.pOptions = &opt,
	};
	CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params isp = {
		.structSize = CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params_STRUCT_SIZE,
	};
	CUpti_Profiler_BeginSession_Params bp = {
		.structSize = CUpti_Profiler_BeginSession_Params_STRUCT_SIZE,
		.ctx = ci->ctx,
		.range = CUPTI_AutoRange,
		.replayMode = CUPTI_KernelReplay,
		.maxRangesPerPass = 1,
		.maxLaunchesPerPass = 1,
	};
	CUpti_Profiler_SetConfig_Params sp = {
		.structSize = CUpti_Profiler_SetConfig_Params_STRUCT_SIZE,
		.ctx = ci->ctx,
		.minNestingLevel = 1,
		.numNestingLevels = 1,
		.passIndex = 0,
		.targetNestingLevel = 1,
	};
	CUpti_Profiler_EnableProfiling_Params enp = {
		.structSize = CUpti_Profiler_EnableProfiling_Params_STRUCT_SIZE, .ctx = ci->ctx };
	CUpti_Profiler_UnsetConfig_Params up = {
		.structSize = CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE, .ctx = ci->ctx };
	size_t prefix_size;

	opt.pCounterDataPrefix = inj_nvpw_prefix(chip->nvpw, &prefix_size);
	opt.counterDataPrefixSize = prefix_size;
	if (!legacy_images(st, ci, &opt, err))
		return false;
	/* Re-initialise every window, else the previous range stays in the image. */
	ip.counterDataImageSize = ci->cd_size;
	ip.pCounterDataImage = ci->cd;
	isp.counterDataImageSize = ci->cd_size;
	isp.pCounterDataImage = ci->cd;
	isp.counterDataScratchBufferSize = ci->scratch_size;
	isp.pCounterDataScratchBuffer = ci->scratch;
	if (!CUPTI_CALL(st, err, cuptiProfilerCounterDataImageInitialize, &ip) ||
	    !CUPTI_CALL(st, err, cuptiProfilerCounterDataImageInitializeScratchBuffer, &isp))
		return false;
	bp.counterDataImageSize = ci->cd_size;
	bp.pCounterDataImage = ci->cd;
	bp.counterDataScratchBufferSize = ci->scratch_size;
	bp.pCounterDataScratchBuffer = ci->scratch;
	if (!CUPTI_CALL(st, err, cuptiProfilerBeginSession, &bp))
		return false;
	ci->legacy_session = true;
	sp.pConfig = inj_nvpw_config_image(chip->nvpw, &sp.configSize);
	if (!CUPTI_CALL(st, err, cuptiProfilerSetConfig, &sp))
		goto fail_session;
	if (!CUPTI_CALL(st, err, cuptiProfilerEnableProfiling, &enp)) {
		CUPTI_TRY(st, cuptiProfilerUnsetConfig, &up);
		goto fail_session;
	}
	return true;
fail_session:
	legacy_teardown(st, ci);
	return false;
}

/* EXIT side: ranges seen, -1 on error. */
static long
legacy_close(struct cupti_state *st, struct ctxinfo *ci, struct chipinfo *chip, double *raw,
	     struct cupti_err *err)
{
	CUpti_Profiler_DisableProfiling_Params dp = {
		.structSize = CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE, .ctx = ci->ctx };
	CUpti_Profiler_FlushCounterData_Params fp = {
		.structSize = CUpti_Profiler_FlushCounterData_Params_STRUCT_SIZE, .ctx = ci->ctx };
	CUpti_Profiler_UnsetConfig_Params up = {
		.structSize = CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE, .ctx = ci->ctx };
	CUpti_Profiler_EndSession_Params ep = {
		.structSize = CUpti_Profiler_EndSession_Params_STRUCT_SIZE, .ctx = ci->ctx };
	size_t n = 0;

	if (!CUPTI_CALL(st, err, cuptiProfilerDisableProfiling, &dp)) {
		CUPTI_TRY(st, cuptiProfilerEndSession, &ep);
		ci->legacy_session = false;
		return -1;
	}
	if (!CUPTI_CALL(st, err, cuptiProfilerFlushCounterData, &fp) ||
	    !CUPTI_CALL(st, err, cuptiProfilerUnsetConfig, &up)) {
		CUPTI_TRY(st, cuptiProfilerUnsetConfig, &up);
		CUPTI_TRY(st, cuptiProfilerEndSession, &ep);
		ci->legacy_session = false;
		return -1;
	}
	ci->legacy_session = false;
	if (!CUPTI_CALL(st, err, cuptiProfilerEndSession, &ep))
		return -1;
	if (inj_nvpw_num_ranges(ci->cd, &n) != 0) {
		cupti_failed(st, err, CUPTI_ERROR_UNKNOWN, "NVPW_CounterData_GetNumRanges");
		return -1;
	}
	if (n == 1) {
		int r;

		/* One evaluator per chip, shared by its contexts: one evaluation at a time. */
		pthread_mutex_lock(&chip->eval_lock);
		r = inj_nvpw_evaluate(chip->nvpw, ci->cd, ci->cd_size, 0, raw);
		pthread_mutex_unlock(&chip->eval_lock);
		if (r != 0) {
			cupti_failed(st, err, CUPTI_ERROR_UNKNOWN,
				     "NVPW_MetricsEvaluator_EvaluateToGpuValues");
			return -1;
		}
	}
	return (long)n;
}

static const char *
legacy_cache_control(const struct cupti_state *st)
{
	return "none (the legacy profiler has no cache control: replay passes see the L2 earlier "
	       "passes left)";
}

static const struct cupti_prof_ops legacy_ops = {
	.api = "legacy profiler + NVPW (CC 7.0)",
	.chip_setup = legacy_chip_setup,
	.chip_release = legacy_chip_release,
	.open = legacy_open,
	.close = legacy_close,
	.teardown = legacy_teardown,
	.cache_control = legacy_cache_control,
};

const struct cupti_prof_ops *
cupti_legacy_profiler(void)
{
	return &legacy_ops;
}
