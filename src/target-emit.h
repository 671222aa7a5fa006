/* SPDX-License-Identifier: MIT */
/*
 * The one writer of targets.yaml entries as YAML text (target-emit.c),
 * used by the provisional entries of `gpuproj targets derive`
 * (target-derive.c) and by `gpuproj bench` (bench/bench-yaml.c). Every
 * key it writes is a row of the field table (target-fields.c): a number
 * by its path ("sms", "limits.l2_mib") or as member `i` of its group in
 * the group's order (bw_gbs by enum gpuproj_level, …), checked against the
 * row's type; a group's members go on one flow-mapping line, which the
 * caller may wrap. The entry's keys must come in table order, each once.
 * Text is written as a YAML double-quoted scalar that loads back to the
 * same bytes and holds no terminal control (YAML 1.2 §5.7 escapes).
 *
 * The caller chooses the numbers, their format and the comments; the
 * writer only spells the YAML. A key that is not in the table, of another
 * type, twice or out of order makes target_emit_end() fail: a defect of
 * the caller, which its tests find. Not installed.
 *
 * Thread safety: a writer is used by one thread; reentrant.
 */
#ifndef GPUPROJ_TARGET_EMIT_H
#define GPUPROJ_TARGET_EMIT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <gpuproj/error.h>
#include <gpuproj/target.h>

#include "target-fields.h"
#include "util.h"

/* How a number is printed. */
enum target_emit_format {
	/*
	 * As targets.yaml writes one: an integer without decimals (below
	 * 10^15), else one decimal from 100 on, else 4 significant digits.
	 */
	TARGET_EMIT_SHORT,
	TARGET_EMIT_F0,	/* no decimals ("%.0f"): counts, and watts as NVML gives them */
	TARGET_EMIT_F1,	/* one decimal ("%.1f") */
	TARGET_EMIT_F3,	/* three decimals ("%.3f") */
	TARGET_EMIT_G,	/* six significant digits, shortest form ("%g") */
};

struct target_emit {
	struct strbuf *sb;
	const struct target_field *group; /* the group whose flow mapping is open, or NULL */
	size_t members;                   /* members written in it */
	size_t wrap;                      /* 0, or 1 + the extra indent of the next member */
	const struct target_field *last;  /* the last key of the entry written, or NULL */
	bool seen[TARGET_FIELDS_MAX];     /* rows written in this entry */
	const char *bad;                  /* the first key refused, or NULL */
};

/* Text as a YAML double-quoted scalar (with its quotes). */
void target_emit_quoted(struct strbuf *sb, const char *text);

/* `schema: gpuproj-targets/1`, `references:`, `  KEY: "text"`, `gpus:`, one line each. */
void target_emit_schema(struct strbuf *sb);
void target_emit_references(struct strbuf *sb);
void target_emit_reference(struct strbuf *sb, const char *key, const char *text);
void target_emit_gpus(struct strbuf *sb);

/*
 * Start an entry of `gpus:` into sb: `  - name: NAME`, quoted unless NAME
 * is letters, digits, '.', '_', '+' and '-', starting with neither '-' nor
 * '.' (the names both writers make).
 */
void target_emit_entry(struct target_emit *w, struct strbuf *sb, const char *name);

/* `    key: "text"` for a TF_TEXT key (description). */
void target_emit_text(struct target_emit *w, const char *key, const char *text);

/*
 * `    key: word` for a TF_WORD or TF_TEXT key (vendor, arch, chip): plain
 * when the word is letters, digits, '.', '_' and '-' and starts with
 * neither '-' nor '.', else quoted.
 */
void target_emit_word(struct target_emit *w, const char *key, const char *word);

/* `    key: ["a", "b"]` for a TF_LIST key (match); n items. */
void target_emit_list(struct target_emit *w, const char *key, const char *const *items, size_t n);

/* The vendor: `    vendor: nvidia` (the word of target_vendor_word()). */
void target_emit_vendor(struct target_emit *w, enum gpuproj_vendor v);

/* A number at `path`: a key of the entry or "group.key". */
void target_emit_number(struct target_emit *w, const char *path, double v,
			enum target_emit_format f);

/* Member `i` of `group` (in the table's order of its members). */
void target_emit_member(struct target_emit *w, const char *group, size_t i, double v,
			enum target_emit_format f);

/* `    key: null` for a TF_NULLABLE key, with `    # comment` after it unless NULL. */
void target_emit_null(struct target_emit *w, const char *key, const char *comment);

/*
 * The next member of the open group starts a line of its own, indented
 * under the group's first member plus `extra` columns.
 */
void target_emit_wrap(struct target_emit *w, size_t extra);

/*
 * `limits`: every member in table order from *lim, four to a line (the
 * continuation lines indented `extra` columns past the first member);
 * the counts as integers, l2_mib in format `l2`.
 */
void target_emit_limits(struct target_emit *w, const struct gpuproj_target_limits *lim,
			enum target_emit_format l2, size_t extra);

/* `    sources:`, then each `      path: "text"` (a path of the table, group or member). */
void target_emit_sources(struct target_emit *w);
void target_emit_source(struct target_emit *w, const char *path, const char *fmt, ...)
	GPUPROJ_PRINTF(3, 4);
void target_emit_vsource(struct target_emit *w, const char *path, const char *fmt, va_list ap)
	GPUPROJ_PRINTF(3, 0);

/*
 * Close what is open. @return GPUPROJ_OK; GPUPROJ_E_NOMEM when the buffer
 * could not grow; GPUPROJ_E_INVAL naming the first key refused (not in the
 * field table, of another type, twice, or out of table order).
 */
int target_emit_end(struct target_emit *w, struct gpuproj_error *err);

#endif
