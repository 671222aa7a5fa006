/* SPDX-License-Identifier: MIT */
/*
 * The one table of a targets.yaml GPU entry's fields (target-fields.c):
 * every key of an entry and of its groups, with its type, whether it is
 * required, and for a number its limit and the limit's unit. The loader's
 * known keys and their order, its range checks, and the paths `sources`
 * may name all come from it (docs/targets-schema.md). Not installed.
 *
 * Thread safety: the table is constant; every function is reentrant.
 */
#ifndef GPUPROJ_TARGET_FIELDS_H
#define GPUPROJ_TARGET_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

enum target_field_type {
	TF_TEXT,	/* a non-empty string (name, description, arch, chip) */
	TF_LIST,	/* a list of strings (match) */
	TF_WORD,	/* one word of a fixed set (vendor, host_link.interface) */
	TF_SOURCES,	/* the mapping of field paths to sources */
	TF_GROUP,	/* a mapping of the fields that follow it: "limits" */
	TF_INT,		/* an integer */
	TF_NUMBER,	/* a number */
	TF_NULLABLE,	/* a number, or null */
};

struct target_field {
	/*
	 * A key of the entry ("sms", "limits") or of a group
	 * ("limits.l2_mib"). A group's members follow its row, in the order
	 * of the enumeration that indexes them (enum gpuproj_level for
	 * bw_gbs, …) or of the struct they fill.
	 */
	const char *path;
	enum target_field_type type;
	/*
	 * For a key of the entry: it must be there. For a member: it must
	 * be there whenever its group is.
	 */
	bool required;
	bool zero_ok;		/* a number that may be 0 (otherwise it must be > 0) */
	double max;		/* a number: the largest accepted (targets-schema.md "Limits") */
	const char *unit;	/* a number: the unit of `max`, for the error message */
	/* A number of the entry itself: where it goes in struct gpuproj_target (int or double). */
	size_t offset;
};

/* Whether a field holds a number (TF_INT, TF_NUMBER or TF_NULLABLE). */
static inline bool
target_field_is_number(const struct target_field *f)
{
	return f->type == TF_INT || f->type == TF_NUMBER || f->type == TF_NULLABLE;
}

/*
 * At least the number of rows of the table (a compile-time bound: the
 * loader sizes its per-entry arrays of numbers with it; target-fields.c
 * checks it).
 */
#define TARGET_FIELDS_MAX 112

/* The table, in the order of an entry's keys; `*n` rows. */
const struct target_field *target_fields(size_t *n);

/* The row of `path` ("sms", "limits", "limits.l2_mib"), or NULL. */
const struct target_field *target_field_find(const char *path);

/*
 * The members of `group` ("bw_gbs"), in order: `*n` rows from the one
 * returned; NULL (and *n = 0) when `group` is not a group.
 */
const struct target_field *target_field_members(const char *group, size_t *n);

/* The last part of a row's path: "l2_mib" for "limits.l2_mib". */
const char *target_field_key(const struct target_field *f);

/*
 * The keys of the entry (group NULL) or of a group, in table order, into
 * keys[] (room for `cap`); returns how many there are.
 */
size_t target_field_keys(const char *group, const char **keys, size_t cap);

#endif
