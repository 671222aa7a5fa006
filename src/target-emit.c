/* SPDX-License-Identifier: MIT */
/*
 * The one writer of targets.yaml entries (target-emit.h): the YAML
 * spelling of keys from the field table (target-fields.c), numbers,
 * quoted text, flow mappings of a group's members and the sources. The
 * layout is the one targets.yaml uses: two spaces before `- name:`, four
 * before each key, six before each source path.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target-chips.h"
#include "target-emit.h"

#define PLAIN "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/*
 * A YAML double-quoted scalar (YAML 1.2 §5.7, escaped characters): '"' and
 * '\' escaped, and what a terminal acts on (the entries are printed on
 * standard output) as YAML escapes that load back to the same text: C0
 * controls and DEL as \xNN, C1 controls (U+0080 to U+009F) as \xNN, the
 * bidirectional controls as \uNNNN.
 */
void
target_emit_quoted(struct strbuf *sb, const char *s)
{
	const unsigned char *u;
	uint32_t cp;
	size_t n;

	strbuf_append(sb, "\"");
	while (s && *s) {
		u = (const unsigned char *)s;
		n = 1;
		if (*s == '"' || *s == '\\')
			strbuf_printf(sb, "\\%c", *s);
		else if (u[0] < 0x20 || u[0] == 0x7f)
			strbuf_printf(sb, "\\x%02x", u[0]);
		else if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] < 0xa0) {
			strbuf_printf(sb, "\\x%02x", u[1]);
			n = 2;
		} else if ((n = text_bidi_len(s, &cp)) != 0)
			strbuf_printf(sb, "\\u%04x", (unsigned)cp);
		else
			strbuf_appendn(sb, s, n = 1);
		s += n;
	}
	strbuf_append(sb, "\"");
}

/*
 * A word as it is (GA102, sm_86; an entry name may also hold '+'), or
 * quoted when it holds anything else.
 */
static void
plain_or_quoted(struct strbuf *sb, const char *s, const char *plain)
{
	size_t n = strspn(s, plain);

	if (*s && !s[n] && s[0] != '-' && s[0] != '.')
		strbuf_append(sb, s);
	else
		target_emit_quoted(sb, s);
}

static void
number(struct strbuf *sb, double v, enum target_emit_format f)
{
	switch (f) {
	case TARGET_EMIT_SHORT:
		if (v == floor(v) && fabs(v) < 1e15)
			strbuf_printf(sb, "%.0f", v);
		else if (fabs(v) >= 100)
			strbuf_printf(sb, "%.1f", v);
		else
			strbuf_printf(sb, "%.4g", v);
		return;
	case TARGET_EMIT_F0: strbuf_printf(sb, "%.0f", v); return;
	case TARGET_EMIT_F1: strbuf_printf(sb, "%.1f", v); return;
	case TARGET_EMIT_F3: strbuf_printf(sb, "%.3f", v); return;
	case TARGET_EMIT_G: strbuf_printf(sb, "%g", v); return;
	}
	strbuf_printf(sb, "%g", v);
}

void
target_emit_schema(struct strbuf *sb)
{
	strbuf_append(sb, "schema: " GPUPROJ_TARGETS_SCHEMA "\n");
}

void
target_emit_references(struct strbuf *sb)
{
	strbuf_append(sb, "references:\n");
}

void
target_emit_reference(struct strbuf *sb, const char *key, const char *text)
{
	strbuf_printf(sb, "  %s: ", key);
	target_emit_quoted(sb, text);
	strbuf_append(sb, "\n");
}

void
target_emit_gpus(struct strbuf *sb)
{
	strbuf_append(sb, "gpus:\n");
}

/* Close the open group's flow mapping. */
static void
close_group(struct target_emit *w)
{
	if (!w->group)
		return;
	strbuf_append(w->sb, "}\n");
	w->group = NULL;
	w->members = 0;
	w->wrap = 0;
}

static void
refuse(struct target_emit *w, const char *path)
{
	if (!w->bad)
		w->bad = path;
}

/*
 * The row of `path` if it may be written now as one of `types` (a string
 * of enum target_field_type values), else NULL (refused). A key of the
 * entry closes the open group and must follow the last key in table
 * order; a member opens its group's flow mapping when it is not open.
 */
static const struct target_field *
take(struct target_emit *w, const char *path, const char *types)
{
	const struct target_field *f = target_field_find(path), *all, *g = NULL;
	const char *dot = strchr(path, '.');
	size_t n, i;

	if (!w->sb || !f || !strchr(types, (char)('0' + f->type))) {
		refuse(w, path);
		return NULL;
	}
	all = target_fields(&n);
	i = (size_t)(f - all);
	if (dot) {
		char group[64];

		snprintf(group, sizeof(group), "%.*s", (int)(dot - path), path);
		g = target_field_find(group);
	}
	if (w->seen[i] || (!g && w->last && f <= w->last) || (g && w->last && g < w->last)) {
		refuse(w, path);
		return NULL;
	}
	w->seen[i] = true;
	if (!g) {
		close_group(w);
		w->last = f;
		/* sources: a block mapping, the value on the lines below */
		strbuf_printf(w->sb, "    %s:%s", f->path, f->type == TF_SOURCES ? "" : " ");
		return f;
	}
	if (w->group != g) {
		close_group(w);
		w->seen[g - all] = true;
		w->last = g;
		w->group = g;
		strbuf_printf(w->sb, "    %s: {", g->path);
	} else if (w->wrap) {
		strbuf_printf(w->sb, ",\n%*s", (int)(4 + strlen(g->path) + 3 + w->wrap - 1), "");
	} else {
		strbuf_append(w->sb, ", ");
	}
	w->wrap = 0;
	w->members++;
	strbuf_printf(w->sb, "%s: ", target_field_key(f));
	return f;
}

/* The type strings of take(). */
#define T(t) ((char)('0' + (t)))
static const char t_text[] = { T(TF_TEXT), 0 };
static const char t_word[] = { T(TF_WORD), T(TF_TEXT), 0 };
static const char t_list[] = { T(TF_LIST), 0 };
static const char t_number[] = { T(TF_INT), T(TF_NUMBER), T(TF_NULLABLE), 0 };
static const char t_null[] = { T(TF_NULLABLE), 0 };
static const char t_sources[] = { T(TF_SOURCES), 0 };

void
target_emit_entry(struct target_emit *w, struct strbuf *sb, const char *name)
{
	size_t n;
	const struct target_field *all = target_fields(&n);

	memset(w, 0, sizeof(*w));
	w->sb = sb;
	w->last = target_field_find("name");
	w->seen[w->last - all] = true;
	strbuf_printf(sb, "  - %s: ", w->last->path);
	plain_or_quoted(sb, name ? name : "", PLAIN "+");
	strbuf_append(sb, "\n");
}

void
target_emit_text(struct target_emit *w, const char *key, const char *text)
{
	if (!take(w, key, t_text))
		return;
	target_emit_quoted(w->sb, text);
	strbuf_append(w->sb, "\n");
}

void
target_emit_word(struct target_emit *w, const char *key, const char *word)
{
	if (!take(w, key, t_word))
		return;
	plain_or_quoted(w->sb, word ? word : "", PLAIN);
	strbuf_append(w->sb, "\n");
}

void
target_emit_list(struct target_emit *w, const char *key, const char *const *items, size_t n)
{
	size_t i;

	if (!take(w, key, t_list))
		return;
	strbuf_append(w->sb, "[");
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_append(w->sb, ", ");
		target_emit_quoted(w->sb, items[i]);
	}
	strbuf_append(w->sb, "]\n");
}

void
target_emit_vendor(struct target_emit *w, enum gpuproj_vendor v)
{
	target_emit_word(w, "vendor", target_vendor_word(v));
}

void
target_emit_number(struct target_emit *w, const char *path, double v,
		   enum target_emit_format f)
{
	if (!take(w, path, t_number))
		return;
	number(w->sb, v, f);
	if (!strchr(path, '.'))
		strbuf_append(w->sb, "\n");
}

void
target_emit_member(struct target_emit *w, const char *group, size_t i, double v,
		   enum target_emit_format f)
{
	size_t n;
	const struct target_field *m = target_field_members(group, &n);

	if (!m || i >= n) {
		refuse(w, group);
		return;
	}
	target_emit_number(w, m[i].path, v, f);
}

void
target_emit_null(struct target_emit *w, const char *key, const char *comment)
{
	if (!take(w, key, t_null))
		return;
	strbuf_append(w->sb, "null");
	if (comment)
		strbuf_printf(w->sb, "    # %s", comment);
	strbuf_append(w->sb, "\n");
}

void
target_emit_wrap(struct target_emit *w, size_t extra)
{
	if (w->group && w->members)
		w->wrap = extra + 1;
}

void
target_emit_limits(struct target_emit *w, const struct gpuproj_target_limits *lim,
		   enum target_emit_format l2, size_t extra)
{
	/* struct gpuproj_target_limits order, the order of the table's members */
	const int ints[] = {
		lim->threads_per_sm, lim->threads_per_block, lim->blocks_per_sm,
		lim->regs_per_sm, lim->regs_per_block, lim->regs_per_thread,
		lim->reg_alloc_unit, lim->smem_per_sm_kib, lim->smem_per_block_kib,
		lim->smem_alloc_unit_b, lim->smem_reserved_per_block_b,
	};
	size_t i, n;
	const struct target_field *m = target_field_members("limits", &n);

	if (n != ARRAY_LENGTH(ints) + 1) {
		refuse(w, "limits");
		return;
	}
	for (i = 0; i < n; i++) {
		if (i && i % 4 == 0)
			target_emit_wrap(w, extra);
		if (i < ARRAY_LENGTH(ints))
			target_emit_number(w, m[i].path, ints[i], TARGET_EMIT_F0);
		else
			target_emit_number(w, m[i].path, lim->l2_mib, l2);
	}
}

void
target_emit_sources(struct target_emit *w)
{
	if (!take(w, "sources", t_sources))
		return;
	strbuf_append(w->sb, "\n");
}

void
target_emit_vsource(struct target_emit *w, const char *path, const char *fmt, va_list ap)
{
	char *text = NULL;

	if (!w->sb || !w->last || strcmp(w->last->path, "sources") != 0 ||
	    !target_field_find(path)) {
		refuse(w, path);
		return;
	}
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	if (!text) {
		w->sb->oom = true;
		return;
	}
	strbuf_printf(w->sb, "      %s: ", path);
	target_emit_quoted(w->sb, text);
	strbuf_append(w->sb, "\n");
	free(text);
}

void
target_emit_source(struct target_emit *w, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	target_emit_vsource(w, path, fmt, ap);
	va_end(ap);
}

int
target_emit_end(struct target_emit *w, struct gpuproj_error *err)
{
	if (w->sb)
		close_group(w);
	if (w->bad)
		return error_set(err, GPUPROJ_E_INVAL, NULL, 0, 0, "the targets.yaml writer was "
				 "given '%s': not a key of the field table of that type, or "
				 "written twice or out of order", w->bad);
	if (!w->sb || w->sb->oom)
		return error_set(err, GPUPROJ_E_NOMEM, NULL, 0, 0, "out of memory");
	return GPUPROJ_OK;
}
