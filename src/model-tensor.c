/* SPDX-License-Identifier: MIT */
/*
 * FLOP and where it runs (model-private.h, model.h): a kernel's CUDA-core
 * FLOP and Perf^mix ([VanLanker2024] eq. 2), the tensor work of
 * flop.tensor.* on a GPU's tensor paths or CUDA cores, the FLOP mix of a
 * kernel or profile and its text.
 * Thread safety: reentrant; constant data only.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gpuproj/model.h>

#include "model-private.h"
#include "util.h"

const enum gpuproj_metric model_fp_metrics[GPUPROJ_PREC_COUNT][3] = {
	{ GPUPROJ_M_INST_FP16_FMA, GPUPROJ_M_INST_FP16_ADD, GPUPROJ_M_INST_FP16_MUL },
	{ GPUPROJ_M_INST_FP32_FMA, GPUPROJ_M_INST_FP32_ADD, GPUPROJ_M_INST_FP32_MUL },
	{ GPUPROJ_M_INST_FP64_FMA, GPUPROJ_M_INST_FP64_ADD, GPUPROJ_M_INST_FP64_MUL },
};

double
model_flop(const struct gpuproj_kernel *k, bool *ret_any)
{
	double flop = 0;
	bool any = false;
	int p, j;

	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (j = 0; j < 3; j++) {
			if (!gpuproj_kernel_has(k, model_fp_metrics[p][j]))
				continue;
			any = true;
			flop += (j == 0 ? 2.0 : 1.0) * gpuproj_kernel_metric(k, model_fp_metrics[p][j]);
		}
	}
	if (ret_any)
		*ret_any = any;
	return flop;
}

int
model_flop_mix(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
	       double *ret_flop, double *ret_mix, char *why, size_t whylen)
{
	double flop = 0, n_inst = 0, weighted = 0;
	bool any = false;
	int p, j;

	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		for (j = 0; j < 3; j++) {
			enum gpuproj_opkind kind = j == 0 ? GPUPROJ_OP_FMA : GPUPROJ_OP_ADD_MUL;
			double n;

			if (!gpuproj_kernel_has(k, model_fp_metrics[p][j]))
				continue;
			any = true;
			n = gpuproj_kernel_metric(k, model_fp_metrics[p][j]);
			if (n < 0) {
				if (why)
					snprintf(why, whylen, "metric %s is negative",
						 gpuproj_metric_name(model_fp_metrics[p][j]));
				return GPUPROJ_E_INVAL;
			}
			flop += (j == 0 ? 2.0 : 1.0) * n;
			n_inst += n;
			weighted += n * gpuproj_target_gflops(gpu, (enum gpuproj_prec)p, kind, NULL) *
				    1e9;
		}
	}
	if (!any)
		return GPUPROJ_E_MISSING;
	*ret_flop = flop;
	*ret_mix = n_inst > 0 ? weighted / n_inst : 0;
	return GPUPROJ_OK;
}

/* flop.tensor.* by enum gpuproj_tensor_prec. */
static const enum gpuproj_metric tensor_metrics[GPUPROJ_TPREC_COUNT] = {
	GPUPROJ_M_FLOP_TENSOR_FP16, GPUPROJ_M_FLOP_TENSOR_FP16_ACC16, GPUPROJ_M_FLOP_TENSOR_BF16,
	GPUPROJ_M_FLOP_TENSOR_TF32, GPUPROJ_M_FLOP_TENSOR_FP8, GPUPROJ_M_FLOP_TENSOR_FP4,
	GPUPROJ_M_FLOP_TENSOR_INT8, GPUPROJ_M_FLOP_TENSOR_FP64,
};

enum gpuproj_metric
gpuproj_tensor_metric(enum gpuproj_tensor_prec p)
{
	return (unsigned)p < GPUPROJ_TPREC_COUNT ? tensor_metrics[p] : GPUPROJ_M_COUNT;
}

int
model_tensor_work(const struct gpuproj_kernel *k, const struct gpuproj_target *gpu,
		  struct model_tensor *out, char *why, size_t whylen)
{
	int p;

	memset(out, 0, sizeof(*out));
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		enum gpuproj_metric m = tensor_metrics[p];
		struct gpuproj_tensor_path path;
		double f;

		if (!gpuproj_kernel_has(k, m))
			continue;
		f = gpuproj_kernel_metric(k, m);
		if (f < 0) {
			if (why)
				snprintf(why, whylen, "metric %s is negative", gpuproj_metric_name(m));
			return GPUPROJ_E_INVAL;
		}
		if (f == 0 || gpuproj_tensor_path(gpu, (enum gpuproj_tensor_prec)p, &path) ||
		    !(path.gflops > 0))
			continue;
		out->flop += f;
		if (path.tensor == GPUPROJ_TPREC_COUNT)
			out->t_cuda += f / (path.gflops * 1e9);
		else
			out->t_tensor += f / (path.gflops * 1e9);
		if (path.fallback)
			out->fallback |= 1u << p;
		if (path.unknown)
			out->unknown |= 1u << p;
	}
	return GPUPROJ_OK;
}

bool
gpuproj_kernel_flop_mix(const struct gpuproj_kernel *k, double *ret_cuda,
			double ret_tensor[GPUPROJ_TPREC_COUNT])
{
	bool any = false;
	int p;

	*ret_cuda = model_flop(k, NULL);
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++) {
		double v = gpuproj_kernel_metric(k, tensor_metrics[p]);

		ret_tensor[p] = gpuproj_kernel_has(k, tensor_metrics[p]) && v > 0 ? v : 0;
		any |= ret_tensor[p] > 0;
	}
	return any;
}

bool
gpuproj_profile_flop_mix(const struct gpuproj_profile *prof, double *ret_cuda,
			 double ret_tensor[GPUPROJ_TPREC_COUNT])
{
	bool any = false;
	size_t i;
	int p;

	*ret_cuda = 0;
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		ret_tensor[p] = 0;
	for (i = 0; i < gpuproj_profile_count(prof); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(prof, i);
		double c, t[GPUPROJ_TPREC_COUNT];

		any |= gpuproj_kernel_flop_mix(k, &c, t);
		*ret_cuda += c * (double)k->launches;
		for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
			ret_tensor[p] += t[p] * (double)k->launches;
	}
	return any;
}

char *
gpuproj_flop_mix_text(double cuda, const double tensor[GPUPROJ_TPREC_COUNT], char *buf,
		      size_t size)
{
	double share[GPUPROJ_TPREC_COUNT + 1], total = cuda;
	bool done[GPUPROJ_TPREC_COUNT + 1] = { false };
	size_t len = 0;
	int p, n;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		total += tensor[p];
	if (!(total > 0))
		return buf;
	for (p = 0; p < GPUPROJ_TPREC_COUNT; p++)
		share[p] = tensor[p] / total;
	share[GPUPROJ_TPREC_COUNT] = cuda / total;
	for (n = 0; n <= GPUPROJ_TPREC_COUNT; n++) {
		int best = -1;

		for (p = 0; p <= GPUPROJ_TPREC_COUNT; p++) {
			if (!done[p] && (best < 0 || share[p] > share[best]))
				best = p;
		}
		done[best] = true;
		if (share[best] < 0.0005 || len + 1 >= size)
			break;
		if (best == GPUPROJ_TPREC_COUNT)
			len += (size_t)snprintf(buf + len, size - len, "%sCUDA cores %.1f%%",
						len ? ", " : "", 100 * share[best]);
		else
			len += (size_t)snprintf(buf + len, size - len, "%stensor %s %.1f%%",
						len ? ", " : "", gpuproj_tensor_prec_name(best),
						100 * share[best]);
		if (len >= size)
			len = size - 1;
	}
	return buf;
}

int
gpuproj_tensor_path(const struct gpuproj_target *t, enum gpuproj_tensor_prec p,
		    struct gpuproj_tensor_path *out)
{
	/* Where a precision goes without its own path: a tensor precision, or CUDA cores. */
	static const struct {
		enum gpuproj_tensor_prec next; /* GPUPROJ_TPREC_COUNT: CUDA cores */
		enum gpuproj_prec cuda;
		double factor;                 /* operations per CUDA-core FLOP */
	} fallback[GPUPROJ_TPREC_COUNT] = {
		[GPUPROJ_TPREC_FP16] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_FP16_ACC16] = { GPUPROJ_TPREC_FP16, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_BF16] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_TF32] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_FP8] = { GPUPROJ_TPREC_BF16, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_FP4] = { GPUPROJ_TPREC_FP8, GPUPROJ_FP32, 1 },
		[GPUPROJ_TPREC_INT8] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP32, 4 },
		[GPUPROJ_TPREC_FP64] = { GPUPROJ_TPREC_COUNT, GPUPROJ_FP64, 1 },
	};
	enum gpuproj_tensor_prec q = p;
	int hops;

	if (!t || !out || (unsigned)p >= GPUPROJ_TPREC_COUNT)
		return GPUPROJ_E_INVAL;
	memset(out, 0, sizeof(*out));
	out->unknown = isnan(gpuproj_target_tensor_gflops(t, p, NULL));
	/* The table has no cycle: at most GPUPROJ_TPREC_COUNT hops. */
	for (hops = 0; hops <= GPUPROJ_TPREC_COUNT; hops++) {
		double r = gpuproj_target_tensor_gflops(t, q, NULL);

		if (r > 0) {
			out->tensor = q;
			out->gflops = r;
			out->fallback = q != p;
			return GPUPROJ_OK;
		}
		if (fallback[q].next == GPUPROJ_TPREC_COUNT) {
			out->tensor = GPUPROJ_TPREC_COUNT;
			out->cuda = fallback[q].cuda;
			out->gflops = fallback[q].factor *
				      gpuproj_target_gflops(t, fallback[q].cuda, GPUPROJ_OP_FMA, NULL);
			out->fallback = true;
			return GPUPROJ_OK;
		}
		q = fallback[q].next;
	}
	return GPUPROJ_E_INVAL;
}
