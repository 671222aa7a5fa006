/* SPDX-License-Identifier: MIT */
/*
 * The range profiler (CUDA 12.6u2+, CC >= 7.5; [CUPTI-RP]): metrics
 * resolved and configured with the Profiler Host API (cupti-host.cpp), one
 * window per profiled launch: Enable → GetCounterDataSize →
 * CounterDataImageInitialize → SetConfig (auto range, kernel replay, one
 * range) → Start at the launch's ENTER; Stop → DecodeData →
 * GetCounterDataInfo → host evaluation → Disable at its EXIT.
 *
 * Thread safety: called with the context's lock held (window functions) or
 * st->ctx_lock (chip set-up).
 */
#include "config.h"

#include <stdlib.h>

#include "cupti-private.h"
#include "cupti-host.h"
#include "cupti-records.h"

struct validator {
	const char *chip;
	const uint8_t *avail;
};

static bool
valid_host(void *ud, const char *name)
{
	const struct validator *v = ud;

	return inj_host_metric_valid(v->chip, v->avail, name, NULL);
}

static int
range_chip_setup(struct cupti_state *st, struct chipinfo *c, struct devinfo *d,
		 const uint8_t *avail)
{
	struct validator v = { .chip = c->chip, .avail = avail };
	int r;

	r = inj_host_new(c->chip, avail, &c->host);
	if (r != CUPTI_SUCCESS) {
		cupti_device_off(st, d, "the CUPTI host API does not know chip %s (%s)", c->chip,
				 cupti_result_name(st, (CUptiResult)r));
		return -1;
	}
	if (inj_metrics_resolve(c->chip, st->cfg->tensor, valid_host, &v, &c->set) != 0) {
		cupti_device_off(st, d, "out of memory resolving metrics");
		return -1;
	}
	r = inj_host_config(c->host, c->set->names, c->set->n_names, &c->config, &c->config_size,
			    &c->passes);
	if (r != CUPTI_SUCCESS) {
		cupti_device_off(st, d, "cannot build the config image for %s (%s)", c->chip,
				 cupti_result_name(st, (CUptiResult)r));
		return -1;
	}
	return 0;
}

static void
range_chip_release(struct cupti_state *st, struct chipinfo *c)
{
	inj_host_free(c->host);
	c->host = NULL;
	free(c->config);
	c->config = NULL;
}

static void
range_teardown(struct cupti_state *st, struct ctxinfo *ci)
{
	CUpti_RangeProfiler_Stop_Params stop = {
		.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ci->rp,
	};
	CUpti_RangeProfiler_Disable_Params dp = {
		.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ci->rp,
	};

	if (!ci->rp)
		return;
	if (ci->win_open)
		CUPTI_TRY(st, cuptiRangeProfilerStop, &stop);
	CUPTI_TRY(st, cuptiRangeProfilerDisable, &dp);
	ci->rp = NULL;
}

/*
 * ENTER side ([CUPTI-RP] steps 3–6). [GPU?] Enable per window mirrors
 * NVIDIA's samples; once confirmed on a GPU, Enable + SetConfig could stay
 * per context with only Start/Stop per launch.
 */
static bool
range_open(struct cupti_state *st, struct ctxinfo *ci, struct chipinfo *chip, struct cupti_err *err)
{
	/*
	 * CUPTI 13.4+ resets the L2 before every replay pass when asked
	 * (cacheControlMode ALL, what ncu does by default): every pass then
	 * starts from the same cold cache, so metrics collected in different
	 * passes describe the same execution. Older CUPTIs have no cache
	 * control: passes see what earlier passes left in the L2
	 * (range_cache_control() names the mode for the profile).
	 */
	struct rp_enable_134 ep = {
		.structSize = st->api_version >= RP_ENABLE_CACHE_API
				      ? RP_ENABLE_134_STRUCT_SIZE
				      : CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE,
		.ctx = ci->ctx,
		.cacheControlMode = RP_CACHE_CONTROL_ALL,
	};
	CUpti_RangeProfiler_GetCounterDataSize_Params gp = {
		.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE,
		.pMetricNames = chip->set->names,
		.numMetrics = chip->set->n_names,
		.maxNumOfRanges = 1,
		.maxNumRangeTreeNodes = 1,
	};
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
		.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_SetConfig_Params sp = {
		.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE,
		.configSize = chip->config_size,
		.pConfig = chip->config,
		.range = CUPTI_AutoRange,
		.replayMode = CUPTI_KernelReplay,
		.maxRangesPerPass = 1,
		.numNestingLevels = 1,
		.minNestingLevel = 1,
		.passIndex = 0,
		.targetNestingLevel = 1,
	};
	CUpti_RangeProfiler_Start_Params stp = {
		.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE };

	if (!CUPTI_CALL(st, err, cuptiRangeProfilerEnable,
			(CUpti_RangeProfiler_Enable_Params *)&ep))
		goto fail;
	ci->rp = ep.pRangeProfilerObject;
	/* Per object: the image belongs to the metrics the object was told about. */
	gp.pRangeProfilerObject = ci->rp;
	if (!CUPTI_CALL(st, err, cuptiRangeProfilerGetCounterDataSize, &gp))
		goto fail;
	if (!ci->cd || ci->cd_size != gp.counterDataSize) {
		free(ci->cd);
		ci->cd = aligned_alloc(8, (gp.counterDataSize + 7) / 8 * 8 + 8);
		ci->cd_size = ci->cd ? gp.counterDataSize : 0;
		if (!ci->cd) {
			cupti_failed(st, err, CUPTI_ERROR_OUT_OF_MEMORY,
				     "cuptiRangeProfilerGetCounterDataSize");
			goto fail;
		}
	}
	ip.pRangeProfilerObject = ci->rp;
	ip.counterDataSize = ci->cd_size;
	ip.pCounterData = ci->cd;
	if (!CUPTI_CALL(st, err, cuptiRangeProfilerCounterDataImageInitialize, &ip))
		goto fail;
	sp.pRangeProfilerObject = ci->rp;
	sp.counterDataImageSize = ci->cd_size;
	sp.pCounterDataImage = ci->cd;
	if (!CUPTI_CALL(st, err, cuptiRangeProfilerSetConfig, &sp))
		goto fail;
	stp.pRangeProfilerObject = ci->rp;
	if (!CUPTI_CALL(st, err, cuptiRangeProfilerStart, &stp))
		goto fail;
	return true;
fail:
	range_teardown(st, ci);
	return false;
}

/* EXIT side (§4a steps 6–8). Returns ranges seen, -1 on error. */
static long
range_close(struct cupti_state *st, struct ctxinfo *ci, struct chipinfo *chip, double *raw,
	    struct cupti_err *err)
{
	CUpti_RangeProfiler_Stop_Params stp = {
		.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ci->rp,
	};
	CUpti_RangeProfiler_DecodeData_Params dp = {
		.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ci->rp,
	};
	CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {
		.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE,
		.pCounterDataImage = ci->cd,
		.counterDataImageSize = ci->cd_size,
	};
	CUpti_RangeProfiler_Disable_Params dis = {
		.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
		.pRangeProfilerObject = ci->rp,
	};
	long ranges = -1;

	if (!CUPTI_CALL(st, err, cuptiRangeProfilerStop, &stp) ||
	    !CUPTI_CALL(st, err, cuptiRangeProfilerDecodeData, &dp) ||
	    !CUPTI_CALL(st, err, cuptiRangeProfilerGetCounterDataInfo, &ip))
		goto out;
	ranges = (long)ip.numTotalRanges;
	if (dp.numOfRangeDropped) {
		/*
		 * Only one range and none dropped is usable ([CUPTI-RP]);
		 * 0 + 1 dropped must not pass as one: the kernel ran, but its
		 * range is not in the image. Discard it like 2+ ranges.
		 */
		inj_debug("%zu range(s) dropped", dp.numOfRangeDropped);
		ranges += (long)dp.numOfRangeDropped;
		if (ranges < 2)
			ranges = 2;
	}
	if (ranges == 1) {
		int r;

		/* One host object per chip, shared by its contexts: one evaluation at a time. */
		pthread_mutex_lock(&chip->eval_lock);
		r = inj_host_evaluate(chip->host, ci->cd, ci->cd_size, 0, chip->set->names,
				      chip->set->n_names, raw);
		pthread_mutex_unlock(&chip->eval_lock);
		if (cupti_failed(st, err, (CUptiResult)r, "cuptiProfilerHostEvaluateToGpuValues"))
			ranges = -1;
	}
out:
	if (ci->rp) {
		(void)CUPTI_CALL(st, err, cuptiRangeProfilerDisable, &dis);
		ci->rp = NULL;
	}
	return ranges;
}

static const char *
range_cache_control(const struct cupti_state *st)
{
	return st->api_version >= RP_ENABLE_CACHE_API
		       ? "all (the L2 reset before every replay pass: CUPTI >= 13.4)"
		       : "none (CUPTI < 13.4 has no cache control: replay passes see the L2 earlier "
			 "passes left)";
}

static const struct cupti_prof_ops range_ops = {
	.api = "range profiler + host API",
	.chip_setup = range_chip_setup,
	.chip_release = range_chip_release,
	.open = range_open,
	.close = range_close,
	.teardown = range_teardown,
	.cache_control = range_cache_control,
};

const struct cupti_prof_ops *
cupti_range_profiler(void)
{
	return &range_ops;
}
