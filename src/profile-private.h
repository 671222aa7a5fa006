/* SPDX-License-Identifier: MIT */
/*
 * Internal profile helpers shared by the JSON reader, importers and the
 * injection collector. Not installed.
 */
#ifndef GPUPROJ_PROFILE_PRIVATE_H
#define GPUPROJ_PROFILE_PRIVATE_H

#include <gpuproj/profile.h>

/*
 * The kernel indices of p in the order gpuproj_profile_sort_by_time() would
 * put them (longest total time first, never-timed last, ties by signature),
 * without reordering p. malloc'd array of gpuproj_profile_count(p) entries;
 * NULL on ENOMEM.
 */
size_t *profile_order_by_time(const struct gpuproj_profile *p);

/*
 * Set (copy) the demangled name of a record; one equal to the record's name
 * shares it (k->demangled == k->name: free the name only). GPUPROJ_E_NOMEM
 * on failure.
 */
int profile_kernel_set_demangled(struct gpuproj_kernel *k, const char *demangled);

/*
 * FNV-1a (64 bit) of a kernel's name, a NUL, and its tag: the "shape" of a
 * signature across GPUs. Even = the calibration half of `validate
 * --holdout shape` (validate.c), which anything fitted to a corpus by shape
 * (the NeuSight importer's per-call overhead) also uses, so that the
 * evaluation half stays out of the fit.
 */
uint64_t profile_shape_hash(const struct gpuproj_kernel *k);


/*
 * A profile (include/gpuproj/profile.h), opaque outside profile.c and
 * profile-validate.c.
 */
struct attr {
	char *key, *value;
};

struct gpuproj_profile {
	struct gpuproj_kernel **kernels;
	size_t n, cap;
	size_t *slots;      /* hash slots: index + 1, 0 = empty */
	size_t nslots;      /* power of two */
	struct gpuproj_device_info device;
	struct gpuproj_process_info process;
	struct gpuproj_run_info run;
	struct attr *attrs;
	size_t n_attrs;
	struct gpuproj_timeline *timeline; /* the whole run (timeline.h), or NULL */
};

/* Whether v is a valid value of driver attribute a (NaN: not reported). */
bool profile_driver_attr_ok(enum gpuproj_driver_attr a, double v);
/* Whether driver attribute a takes integer values only. */
bool profile_driver_attr_integer(enum gpuproj_driver_attr a);

#endif
