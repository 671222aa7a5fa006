/* SPDX-License-Identifier: MIT */
/*
 * Loading data sets (gpuproj_import_datasets(), include/gpuproj/import.h):
 * each file's kind is told by its content, gpuproj profiles are loaded,
 * gpuperfpredict CSV files are imported together, NeuSight, XLA matmul and
 * seed 002 CSV files too.
 * The validation (validate.c) gets the profiles and knows nothing of the
 * importers.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/import.h>
#include <gpuproj/profile.h>

#include "util.h"

enum dataset_kind { KIND_JSON, KIND_CSV, KIND_NEUSIGHT, KIND_XLA, KIND_KERNELTUNER, KIND_SEED002 };

/*
 * A profile of the gpuperfpredict data set must carry its citation (CC BY
 * 4.0); one exported without it (an edited file) gets it back on load, so
 * reports of results on it cite the data set. Returns GPUPROJ_OK or
 * GPUPROJ_E_NOMEM.
 */
static int
cite_gpuperfpredict(struct gpuproj_profile *p)
{
	const char *origin = gpuproj_profile_attr(p, "origin");

	if (gpuproj_profile_attr(p, "citation") || !origin || strcmp(origin, "gpuperfpredict") != 0)
		return GPUPROJ_OK;
	if (gpuproj_profile_set_attr(p, "citation", GPUPROJ_CITATION_GPUPERFPREDICT) ||
	    gpuproj_profile_set_attr(p, "license", "CC BY 4.0"))
		return GPUPROJ_E_NOMEM;
	return GPUPROJ_OK;
}

/* Decide a file's kind from its first bytes. */
static int
sniff(const char *path, enum dataset_kind *ret, struct gpuproj_error *err)
{
	char buf[4096];
	const char *p;
	size_t n;
	FILE *f;

	f = fopen(path, "rb");
	if (!f)
		return error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		return error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot read: %s", strerror(e));
	}
	fclose(f);
	buf[n] = '\0';
	p = buf;
	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (*p && isspace((unsigned char)*p))
		p++;
	if (*p == '{') {
		/* A Kernel Tuner cache file opens with its device and kernel names. */
		*ret = strstr(p, "\"device_name\"") && strstr(p, "\"kernel_name\"") ? KIND_KERNELTUNER
											: KIND_JSON;
		return GPUPROJ_OK;
	}
	if (str_startswith(p, "gpu,kernel,") || str_startswith(p, "\"gpu\",\"kernel\",")) {
		*ret = KIND_CSV;
		return GPUPROJ_OK;
	}
	if (str_startswith(p, "OPName,Latency,Device,")) {
		*ret = KIND_NEUSIGHT;
		return GPUPROJ_OK;
	}
	if (str_startswith(p, "xla_table,gpu,dtype,")) {
		*ret = KIND_XLA;
		return GPUPROJ_OK;
	}
	if (str_startswith(p, "kernel,regs,shmem,")) {
		*ret = KIND_SEED002;
		return GPUPROJ_OK;
	}
	return error_set(err, GPUPROJ_E_PARSE, path, 0, 0,
			 "not a data set: expected a gpuproj profile JSON (starting with '{'), a "
			 "gpuperfpredict CSV (first line 'gpu,kernel,...'), a NeuSight CSV "
			 "(first line 'OPName,Latency,Device,...'), an XLA matmul CSV (first line "
			 "'xla_table,gpu,dtype,...') or a seed 002 CSV (first line "
			 "'kernel,regs,shmem,...')");
}

static int
push_profile(struct gpuproj_profile ***arr, size_t *n, size_t *cap, struct gpuproj_profile *p)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct gpuproj_profile **na = realloc(*arr, nc * sizeof(*na));

		if (!na)
			return GPUPROJ_E_NOMEM;
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = p;
	return GPUPROJ_OK;
}

/* Import the CSV files of one kind together and append their profiles. */
static int
import_group(enum dataset_kind kind, const char **files, size_t n_files,
	     const struct gpuproj_targets *targets, struct gpuproj_profile ***arr, size_t *n,
	     size_t *cap, struct gpuproj_error *reterr)
{
	struct gpuproj_profile **ps = NULL;
	size_t np = 0, j;
	int st;

	st = kind == KIND_CSV ? gpuproj_import_gpuperfpredict(files, n_files, targets, &ps, &np,
							       reterr)
	     : kind == KIND_XLA ? gpuproj_import_xla_matmul(files, n_files, targets, &ps, &np, reterr)
	     : kind == KIND_KERNELTUNER
		     ? gpuproj_import_kerneltuner(files, n_files, targets, &ps, &np, reterr)
	     : kind == KIND_SEED002
		     ? gpuproj_import_seed002(files, n_files, targets, &ps, &np, reterr)
		     : gpuproj_import_neusight(files, n_files, targets, &ps, &np, reterr);
	if (st)
		return st;
	for (j = 0; j < np; j++) {
		if (push_profile(arr, n, cap, ps[j])) {
			for (; j < np; j++)
				gpuproj_profile_free(ps[j]);
			free(ps);
			return error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
		}
	}
	free(ps);
	return GPUPROJ_OK;
}

int
gpuproj_import_datasets(const char *const *paths, size_t n_paths,
			const struct gpuproj_targets *targets,
			struct gpuproj_profile ***ret_profiles, size_t *ret_n,
			struct gpuproj_error *reterr)
{
	enum dataset_kind *kinds = NULL;
	const char **csv = NULL, **neu = NULL, **xla = NULL, **ktf = NULL, **s2f = NULL;
	struct gpuproj_profile **arr = NULL;
	size_t n = 0, cap = 0, n_csv = 0, n_neu = 0, n_xla = 0, n_kt = 0, n_s2 = 0, i;
	bool csv_done = false, neu_done = false, xla_done = false, kt_done = false, s2_done = false;
	int st;

	if (!paths || n_paths == 0 || !targets || !ret_profiles || !ret_n)
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0, "no data set given");
	kinds = calloc(n_paths, sizeof(*kinds));
	csv = calloc(n_paths, sizeof(*csv));
	neu = calloc(n_paths, sizeof(*neu));
	xla = calloc(n_paths, sizeof(*xla));
	ktf = calloc(n_paths, sizeof(*ktf));
	s2f = calloc(n_paths, sizeof(*s2f));
	if (!kinds || !csv || !neu || !xla || !ktf || !s2f) {
		st = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n_paths; i++) {
		if (strcmp(paths[i], "-") == 0) {
			st = error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				       "data sets cannot be read from standard input; give files");
			goto out;
		}
		st = sniff(paths[i], &kinds[i], reterr);
		if (st)
			goto out;
		if (kinds[i] == KIND_CSV)
			csv[n_csv++] = paths[i];
		else if (kinds[i] == KIND_NEUSIGHT)
			neu[n_neu++] = paths[i];
		else if (kinds[i] == KIND_XLA)
			xla[n_xla++] = paths[i];
		else if (kinds[i] == KIND_KERNELTUNER)
			ktf[n_kt++] = paths[i];
		else if (kinds[i] == KIND_SEED002)
			s2f[n_s2++] = paths[i];
	}
	for (i = 0; i < n_paths; i++) {
		if (kinds[i] == KIND_JSON) {
			struct gpuproj_profile *p = NULL;

			st = gpuproj_profile_load(paths[i], &p, reterr);
			if (st)
				goto out;
			if (cite_gpuperfpredict(p) || push_profile(&arr, &n, &cap, p)) {
				gpuproj_profile_free(p);
				st = error_set(reterr, GPUPROJ_E_NOMEM, NULL, 0, 0,
					       "out of memory");
				goto out;
			}
		} else if (kinds[i] == KIND_CSV && !csv_done) {
			csv_done = true;
			st = import_group(KIND_CSV, csv, n_csv, targets, &arr, &n, &cap, reterr);
			if (st)
				goto out;
		} else if (kinds[i] == KIND_NEUSIGHT && !neu_done) {
			neu_done = true;
			st = import_group(KIND_NEUSIGHT, neu, n_neu, targets, &arr, &n, &cap,
					  reterr);
			if (st)
				goto out;
		} else if (kinds[i] == KIND_XLA && !xla_done) {
			xla_done = true;
			st = import_group(KIND_XLA, xla, n_xla, targets, &arr, &n, &cap, reterr);
			if (st)
				goto out;
		} else if (kinds[i] == KIND_KERNELTUNER && !kt_done) {
			kt_done = true;
			st = import_group(KIND_KERNELTUNER, ktf, n_kt, targets, &arr, &n, &cap, reterr);
			if (st)
				goto out;
		} else if (kinds[i] == KIND_SEED002 && !s2_done) {
			s2_done = true;
			st = import_group(KIND_SEED002, s2f, n_s2, targets, &arr, &n, &cap, reterr);
			if (st)
				goto out;
		}
	}
	*ret_profiles = arr;
	*ret_n = n;
	arr = NULL;
	n = 0;
	st = GPUPROJ_OK;
out:
	for (i = 0; i < n; i++)
		gpuproj_profile_free(arr[i]);
	free(arr);
	free(kinds);
	free(csv);
	free(neu);
	free(xla);
	free(ktf);
	free(s2f);
	return st;
}
