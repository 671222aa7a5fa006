/* SPDX-License-Identifier: MIT */
/*
 * Nsight Compute CSV import (gpuproj_import_ncu(), include/gpuproj/import.h).
 *
 * Two layouts, told apart by the header, columns found by name:
 * - long (`ncu --csv`): one row per metric of a launch, "ID","Process ID",
 *   "Process Name","Host Name",["Kernel Time",]"Kernel Name","Context",
 *   "Stream",["Block Size","Grid Size","Device","CC",]"Section Name",
 *   "Metric Name","Metric Unit","Metric Value"[,"Rule …","Estimated Speedup…"];
 *   the rows of one launch share (Process ID, ID, Kernel Name);
 * - raw (`ncu --csv --page raw`): one row per launch, metric names as
 *   column headers (a metric column's name contains "__") and a second
 *   header row with the units.
 * Metric names map to logical metrics through `sources` and resolve();
 * the table of docs/cli/gpuproj-import.md "gpuproj import ncu" is this mapping. Every other numeric
 * metric is kept in extra_metrics, in the base unit of its family where the
 * unit is known (so launches that ncu printed in different auto-scaled units
 * average correctly), else verbatim.
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuproj/import.h>
#include <gpuproj/model.h>
#include <gpuproj/tensor.h>
#include <gpuproj/profile.h>

#include "import-common.h"
#include "profile-private.h"
#include "util.h"


#include "import-ncu-private.h"



#define DISPLAY_NAME "device__attribute_display_name"


/* ---- small helpers ---- */

static void
launch_free(struct launch *L)
{
	if (!L)
		return;
	free(L->kernel);
	free(L->id);
	free(L->device);
	free(L->process);
	free(L->host);
	free(L->extras);
	free(L);
}

static bool
is_integer(const char *s, int64_t *ret)
{
	int64_t v;

	if (!parse_int64(s, &v) || v < 0)
		return false;
	if (ret)
		*ret = v;
	return true;
}

/* "9.0" → 9, 0: MAJOR.MINOR, each 0..99, nothing else (blanks around allowed). */
static bool
parse_cc(const char *s, int *major, int *minor)
{
	const char *dot = strchr(s, '.');
	char buf[8];
	int64_t a, b;

	if (!dot || (size_t)(dot - s) >= sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)(dot - s));
	buf[dot - s] = '\0';
	/* The profile's range (gpuproj_profile_validate()): 1.0 to 99.9. */
	if (!parse_int64(buf, &a) || !parse_int64(dot + 1, &b) || a < 1 || a > 99 || b < 0 ||
	    b > 9)
		return false;
	*major = (int)a;
	*minor = (int)b;
	return true;
}

/* Does a row's section belong to a label's list ("a|b", "*" = any)? */
static bool
section_matches(const char *list, const char *section)
{
	size_t n = strlen(section);

	if (strcmp(list, "*") == 0)
		return true;
	while (*list) {
		const char *bar = strchr(list, '|');
		size_t l = bar ? (size_t)(bar - list) : strlen(list);

		if (l == n && strncmp(list, section, n) == 0)
			return true;
		list += l + (bar ? 1 : 0);
	}
	return false;
}

static const char *
kind_expect(enum kind k)
{
	switch (k) {
	case K_TIME: return "a time (nsecond, usecond, msecond, second, ns, us, ms, s)";
	case K_BYTES: return "a size (byte, Kbyte, Mbyte, Gbyte, Tbyte)";
	case K_FREQ:
		return "a frequency (hz, Mhz, Ghz, cycle/nsecond, cycle/usecond, cycle/second)";
	case K_COUNT: return "a count (inst, sector, cycle, warp, … or none)";
	case K_PCT: return "a percentage (%)";
	case K_BW: return "a bandwidth (byte/second, Gbyte/second, …)";
	case K_SIZE: return "a size (byte, Kbyte, … or none)";
	}
	return "";
}

static bool
kind_accepts(enum kind k, enum import_unit_family f)
{
	switch (k) {
	case K_TIME: return f == IMPORT_UNIT_TIME;
	case K_BYTES: return f == IMPORT_UNIT_BYTES;
	case K_FREQ: return f == IMPORT_UNIT_FREQUENCY;
	case K_COUNT: return f == IMPORT_UNIT_NONE || f == IMPORT_UNIT_COUNT;
	case K_PCT: return f == IMPORT_UNIT_PERCENT || f == IMPORT_UNIT_NONE;
	case K_BW: return f == IMPORT_UNIT_BANDWIDTH;
	case K_SIZE: return f == IMPORT_UNIT_NONE || f == IMPORT_UNIT_BYTES;
	}
	return false;
}

/* ---- reading values ---- */

static bool
is_duration_source(size_t s)
{
	return s == SRC_DURATION || s == SRC_DURATION_L;
}

/*
 * The range of a mapped value in its base unit: percentages 0–100 (a
 * rounding overshoot of at most 1 point is clamped with a warning),
 * everything else ≥ 0, and a duration in (0, IMPORT_MAX_DURATION_NS].
 * Refused values are errors at the value's line and column.
 */
static int
check_source_range(struct importer *im, size_t s, const char *name, const char *value,
		   const char *unit, int line, int column, double *v)
{
	if (is_duration_source(s) && !(*v > 0 && *v <= IMPORT_MAX_DURATION_NS))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, column,
				 "%s: %s %s is not a kernel duration (> 0 and at most %.3g s)", name,
				 value, unit, IMPORT_MAX_DURATION_NS / 1e9);
	if (*v < 0)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, column,
				 "%s: negative value %s%s%s", name, value, *unit ? " " : "", unit);
	if (ncu_sources[s].kind == K_PCT && *v > 100) {
		if (*v > 101)
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, column,
					 "%s: %s %% is not a percentage (0 to 100)", name, value);
		*v = 100;
		if (ncu_warn_once(im, name) &&
		    import_summary_warn(&im->sum, "%s:%d:%d: %s = %s %% is above 100 %%: clamped "
					"to 100 (rounding in the tool's output)", im->path, line,
					column, name, value))
			return ncu_oom(im, line);
	}
	return GPUPROJ_OK;
}

/* Where a value and its unit are in the file. */
struct pos {
	const struct import_csv_row *row;   /* the value's row */
	long vcol;                          /* the value's field */
	const struct import_csv_row *urow;  /* the unit's row (raw: the units row) */
	long ucol;                          /* the unit's field, -1 when none */
};

/*
 * One metric value of a launch: `name` is a metric name or a label of
 * `section`. Mapped metrics are checked (unit, number) and scaled; others
 * are kept as extras.
 */
static int
ingest(struct importer *im, struct launch *L, const char *name, const char *section,
       const char *unit, const char *value, const struct pos *at)
{
	const int line = at->row->line;
	const int vcolumn = import_csv_column(at->row, (size_t)at->vcol);
	struct import_unit u;
	const char *kept_unit = u.base;
	char *qualified = NULL;
	size_t s;
	double v;
	int r = GPUPROJ_OK;

	if (strcmp(name, DISPLAY_NAME) == 0) {
		/* Preferred over a name in the "Device" column. */
		if (!L->device_from_attr && !import_value_absent(value)) {
			free(L->device);
			L->device = strdup(value);
			if (!L->device)
				return ncu_oom(im, line);
			L->device_from_attr = true;
		}
		return GPUPROJ_OK;
	}
	if (import_value_absent(value))
		return GPUPROJ_OK;
	import_unit_parse(unit, &u);
	if (import_strmap_get(&im->source_map, name, &s) &&
	    (!ncu_sources[s].section || section_matches(ncu_sources[s].section, section))) {
		const struct ncu_source *src = &ncu_sources[s];
		int ucol = at->ucol >= 0 ? import_csv_column(at->urow, (size_t)at->ucol) : 0;

		if (!kind_accepts(src->kind, u.family))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, at->urow->line, ucol,
					 u.family == IMPORT_UNIT_NONE ? "%s: no unit%s; expected %s"
								       : "%s: unit '%s' is not %s",
					 name, u.family == IMPORT_UNIT_NONE ? "" : unit,
					 kind_expect(src->kind));
		if (!import_parse_scaled(value, u.scale, &v)) {
			double raw;

			if (import_parse_number(value, &raw))
				return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, vcolumn,
						 "%s: %s %s is out of range (not finite in %s)",
						 name, value, unit, u.base);
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, line, vcolumn,
					 "%s: '%s' is not a number", name, value);
		}
		if ((r = check_source_range(im, s, name, value, unit, line, vcolumn, &v)))
			return r;
		if (L->have[s]) {
			if (v != L->val[s] && ncu_warn_once(im, name) &&
			    import_summary_warn(&im->sum, "%s:%d: %s appears twice for launch %s "
						"with different values (%g, %g); kept the first",
						im->path, line, name, L->id, L->val[s], v))
				return ncu_oom(im, line);
			return GPUPROJ_OK;
		}
		if (ncu_names_intern(im, u.base, &L->unit[s]))
			return ncu_oom(im, line);
		L->have[s] = true;
		L->val[s] = v;
		L->vline[s] = line;
		L->vcol[s] = vcolumn;
		return GPUPROJ_OK;
	}

	/* Unmapped. A section label is qualified: labels repeat with other meanings. */
	if (!strstr(name, "__") && *section) {
		qualified = xasprintf("%s: %s", section, name);
		if (!qualified)
			return ncu_oom(im, line);
		name = qualified;
	}
	/* Known families in their base unit, so auto-scaled values average right. */
	if (u.family == IMPORT_UNIT_OTHER || u.family == IMPORT_UNIT_NONE) {
		kept_unit = u.family == IMPORT_UNIT_NONE ? "" : unit;
		u.scale = 1.0;
	}
	if (!import_parse_scaled(value, u.scale, &v)) {
		if (import_is_text_label(value)) {
			/* A setting, not a measurement ("CachePreferNone", "all"): counted once. */
			if (!import_strmap_get(&im->text_names, name, NULL)) {
				if (import_strmap_put(&im->text_names, name, 0))
					r = ncu_oom(im, line);
				else if (im->n_text++ == 0 &&
					 !(im->first_text = xasprintf("%s = %s", name, value)))
					r = ncu_oom(im, line);
			}
		} else if (ncu_warn_once(im, name) &&
			   import_summary_warn(&im->sum, "%s:%d: kept no value for \"%s\": '%s' is "
					       "not a number", im->path, line, name, value)) {
			r = ncu_oom(im, line);
		}
	} else if (fabs(v) > GPUPROJ_MAX_EXTRA) {
		/* The profile's range for a kept metric (docs/formats/profile.md). */
		if (ncu_warn_once(im, name) &&
		    import_summary_warn(&im->sum, "%s:%d: kept no value for \"%s\": '%s' is beyond "
					"±%g", im->path, line, name, value, GPUPROJ_MAX_EXTRA))
			r = ncu_oom(im, line);
	} else if (ncu_add_extra(im, L, name, kept_unit, v, line, vcolumn)) {
		r = ncu_oom(im, line);
	}
	free(qualified);
	return r;
}

/* ---- launches ---- */

/* Set a launch's identity from its first row. */
static int
launch_identity(struct importer *im, struct launch *L, const struct import_csv_row *row)
{
	const struct columns *c = &im->col;
	const char *f;

	L->line = row->line;
	L->pid = -1;
	L->kernel = strdup(import_csv_field(row, (size_t)c->kernel));
	L->id = strdup(import_csv_field(row, (size_t)c->id));
	if (!L->kernel || !L->id)
		return ncu_oom(im, row->line);
	if (!*L->kernel)
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
				 import_csv_column(row, (size_t)c->kernel),
				 "empty \"Kernel Name\" for launch %s", L->id);
	/* Empty for ranges (--replay-mode range): fall back to the launch__ metrics. */
	if (c->block >= 0 && *(f = import_csv_field(row, (size_t)c->block))) {
		if (!import_parse_dim3(f, &L->block))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
					 import_csv_column(row, (size_t)c->block),
					 "\"Block Size\" '%s' is not launch dimensions such as "
					 "\"(256, 1, 1)\"", f);
		L->have_block = true;
	}
	if (c->grid >= 0 && *(f = import_csv_field(row, (size_t)c->grid))) {
		if (!import_parse_dim3(f, &L->grid))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
					 import_csv_column(row, (size_t)c->grid),
					 "\"Grid Size\" '%s' is not launch dimensions such as "
					 "\"(1024, 1, 1)\"", f);
		L->have_grid = true;
	}
	if (c->device >= 0) {
		f = import_csv_field(row, (size_t)c->device);
		/* ncu writes the device ordinal here; a name is taken as a name. */
		if (*f && !is_integer(f, NULL) && !(L->device = strdup(f)))
			return ncu_oom(im, row->line);
	}
	if (c->cc >= 0) {
		f = import_csv_field(row, (size_t)c->cc);
		if (*f && !parse_cc(f, &L->cc_major, &L->cc_minor))
			return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
					 import_csv_column(row, (size_t)c->cc),
					 "\"CC\" '%s' is not a compute capability such as \"9.0\"",
					 f);
	}
	if (c->pid >= 0)
		is_integer(import_csv_field(row, (size_t)c->pid), &L->pid);
	if (c->process >= 0 && *import_csv_field(row, (size_t)c->process) &&
	    !(L->process = strdup(import_csv_field(row, (size_t)c->process))))
		return ncu_oom(im, row->line);
	if (c->host >= 0 && *import_csv_field(row, (size_t)c->host) &&
	    !(L->host = strdup(import_csv_field(row, (size_t)c->host))))
		return ncu_oom(im, row->line);
	return GPUPROJ_OK;
}

static int
launch_new(struct importer *im, const struct import_csv_row *row, struct launch **ret)
{
	struct launch *L;
	const char *id = import_csv_field(row, (size_t)im->col.id);
	int r;

	if (!is_integer(id, NULL))
		return error_set(im->err, GPUPROJ_E_SCHEMA, im->path, row->line,
				 import_csv_column(row, (size_t)im->col.id),
				 "\"ID\" '%s' is not a launch number", id);
	if (im->n_launches == im->cap_launches) {
		size_t cap = im->cap_launches ? im->cap_launches * 2 : 64;
		struct launch **nl = realloc(im->launches, cap * sizeof(*nl));

		if (!nl)
			return ncu_oom(im, row->line);
		im->launches = nl;
		im->cap_launches = cap;
	}
	L = calloc(1, sizeof(*L));
	if (!L)
		return ncu_oom(im, row->line);
	im->launches[im->n_launches++] = L;
	r = launch_identity(im, L, row);
	if (r)
		return r;
	*ret = L;
	return GPUPROJ_OK;
}

/* ---- header and rows ---- */

/* Does the line start with `word` followed by a field separator (quoted or not)? */
static bool
starts_with_field(const char *line, size_t len, const char *word)
{
	size_t n = strlen(word);

	if (len > n + 2 && line[0] == '"' && strncmp(line + 1, word, n) == 0 && line[n + 1] == '"')
		return line[n + 2] == ',';
	return len > n && strncmp(line, word, n) == 0 && line[n] == ',';
}

/* Keep a copy of a message line (at most 400 bytes). */
static void
keep_message(struct importer *im, const char *line, size_t len, int lineno, bool error)
{
	if (im->first_msg && (im->first_msg_error || !error))
		return;
	free(im->first_msg);
	im->first_msg = strndup(line, len > 400 ? 400 : len);
	im->first_msg_line = lineno;
	im->first_msg_error = error;
}

/*
 * The line filter (import_csv_options.skip_line). Dropped:
 * - ncu's own messages ("==PROF==", "==WARNING==", "==ERROR==": the first
 *   error or warning is kept for the message when no data follows, and
 *   ERR_NVGPUCTRPERM is noted wherever it appears);
 * - nvprof's ("==1234== …", "======== …"): noted, so that the error can
 *   point to `gpuproj import nvprof`;
 * - before the header, every line that is not the header (the
 *   application's output on the same stdout);
 * - after a quoted header, lines that do not start with a quote: ncu quotes
 *   every field, so these are the application's output between the results
 *   of several processes. A file saved again by another tool (a
 *   spreadsheet, pandas) has an unquoted header; then every line is data.
 */
static bool
skip_line(void *userdata, const char *line, size_t len, int lineno)
{
	struct importer *im = userdata;
	size_t i = 2;

	if (len >= 4 && line[0] == '=' && line[1] == '=') {
		if (memmem(line, len, "ERR_NVGPUCTRPERM", 16) && !im->ctrperm_line)
			im->ctrperm_line = lineno;
		while (i < len && isupper((unsigned char)line[i]))
			i++;
		if (i > 2 && i + 1 < len && line[i] == '=' && line[i + 1] == '=') {
			im->n_prof++;
			if (strncmp(line, "==ERROR==", 9) == 0)
				keep_message(im, line, len, lineno, true);
			else if (strncmp(line, "==WARNING==", 11) == 0)
				keep_message(im, line, len, lineno, false);
			return true;
		}
		/* nvprof: "==<pid>== " or "======== ". */
		for (i = 2; i < len && (isdigit((unsigned char)line[i]) || line[i] == '='); i++)
			;
		if (i > 2 && i < len && line[i] == ' ' && line[i - 1] == '=' && line[i - 2] == '=') {
			if (!im->nvprof_line)
				im->nvprof_line = lineno;
			return true;
		}
	}
	if (!im->header_seen) {
		if (starts_with_field(line, len, "ID")) {
			im->header_seen = true;
			im->header_quoted = line[0] == '"';
			return false;
		}
		/* nvprof's CSV headers. */
		if (starts_with_field(line, len, "Device") || starts_with_field(line, len, "Start") ||
		    starts_with_field(line, len, "Type")) {
			if (!im->nvprof_line)
				im->nvprof_line = lineno;
		}
		/* Another header (--print-summary, another tool's): for its message. */
		if (line[0] == '"')
			return false;
	} else if (line[0] == '"' || !im->header_quoted) {
		return false;
	}
	if (im->n_junk++ == 0)
		im->first_junk = lineno;
	return true;
}

static int
setup_header(struct importer *im, const struct import_csv_row *h)
{
	struct columns *c = &im->col;
	const char *missing = NULL;

	c->id = import_csv_find(h, "ID");
	c->pid = import_csv_find(h, "Process ID");
	c->process = import_csv_find(h, "Process Name");
	c->host = import_csv_find(h, "Host Name");
	c->kernel = import_csv_find(h, "Kernel Name");
	c->block = import_csv_find(h, "Block Size");
	c->grid = import_csv_find(h, "Grid Size");
	c->device = import_csv_find(h, "Device");
	c->cc = import_csv_find(h, "CC");
	c->section = import_csv_find(h, "Section Name");
	c->mname = import_csv_find(h, "Metric Name");
	c->munit = import_csv_find(h, "Metric Unit");
	c->mvalue = import_csv_find(h, "Metric Value");
	if (c->id < 0 && c->kernel < 0)
		missing = "\"ID\" and \"Kernel Name\" columns";
	else if (c->id < 0)
		missing = "\"ID\" column";
	else if (c->kernel < 0)
		missing = "\"Kernel Name\" column";
	if (import_csv_find(h, "Invocations") >= 0 && c->kernel >= 0)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, h->line, 1,
				 "a per-kernel summary (ncu --print-summary): export every launch "
				 "instead (ncu --csv without --print-summary)");
	if (missing)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, h->line, 1,
				 "not an Nsight Compute CSV header: no %s (ncu --csv writes "
				 "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\","
				 "\"Kernel Name\",…)", missing);
	im->raw = c->mname < 0;
	if (!im->raw && c->mvalue < 0)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, h->line, 1,
				 "Nsight Compute CSV header with \"Metric Name\" but no \"Metric "
				 "Value\" column");
	im->header = h;
	im->units = NULL;
	/* A column twice: the first is read; say so, the second may differ. */
	{
		size_t i = 0, j = 0;

		while (import_csv_next_duplicate(h, &i, &j)) {
			if (import_summary_warn(&im->sum, "%s:%d:%d: column \"%s\" appears twice "
						"(fields %zu and %zu)%s", im->path, h->line,
						import_csv_column(h, j - 1), h->fields[j - 1], i + 1,
						j, im->raw && strstr(h->fields[i], "__")
						? "; a launch whose two values differ is reported"
						: "; the first is read"))
				return ncu_oom(im, h->line);
		}
	}
	return GPUPROJ_OK;
}

/*
 * A row must reach the last column gpuproj reads: the header's last for the
 * raw layout, "Metric Value" for the long one (ncu 2023+ writes the rule
 * columns after it only on rule rows, and ends metric rows with an empty
 * field). Fields beyond the header must be empty (a trailing comma).
 */
static int
check_row_length(struct importer *im, const struct import_csv_row *row)
{
	const struct import_csv_row *h = im->header;
	size_t need = im->raw ? h->n : (size_t)im->col.mvalue + 1, i;

	if (row->n < need) {
		if (row->line == im->unterminated_line)
			return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line,
					 import_csv_column(row, row->n), "the file ends inside this "
					 "row (%zu of %zu fields): it was cut while it was written",
					 row->n, need);
		return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line,
				 import_csv_column(row, row->n), "the row ends after %zu field%s, but "
				 "the header (line %d) has %zu: a truncated or damaged row",
				 row->n, row->n == 1 ? "" : "s", h->line, h->n);
	}
	for (i = h->n; i < row->n; i++) {
		if (*row->fields[i])
			return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line,
					 import_csv_column(row, i), "%zu fields, but the header "
					 "(line %d) has %zu", row->n, h->line, h->n);
	}
	return GPUPROJ_OK;
}

/* Is this row a repeat of a header (files of several runs appended)? */
static bool
is_header_row(const struct importer *im, const struct import_csv_row *r)
{
	return strcmp(import_csv_field(r, (size_t)im->col.id), "ID") == 0;
}

static int
long_row(struct importer *im, const struct import_csv_row *row)
{
	const struct columns *c = &im->col;
	struct launch *L;
	struct strbuf key;
	struct pos at;
	size_t idx;
	const char *name;
	int r;

	if ((r = check_row_length(im, row)))
		return r;
	strbuf_init(&key);
	strbuf_printf(&key, "%s\x1f%s\x1f%s", import_csv_field(row, (size_t)c->pid),
		      import_csv_field(row, (size_t)c->id),
		      import_csv_field(row, (size_t)c->kernel));
	if (key.oom) {
		strbuf_free(&key);
		return ncu_oom(im, row->line);
	}
	if (import_strmap_get(&im->launch_map, key.buf, &idx)) {
		L = im->launches[idx];
	} else {
		r = launch_new(im, row, &L);

		if (!r && import_strmap_put(&im->launch_map, key.buf, im->n_launches - 1))
			r = ncu_oom(im, row->line);
		if (r) {
			strbuf_free(&key);
			return r;
		}
	}
	strbuf_free(&key);
	name = import_csv_field(row, (size_t)c->mname);
	if (!*name)
		return GPUPROJ_OK; /* a rule result ("Rule Name", "Rule Description") */
	at.row = row;
	at.vcol = c->mvalue;
	at.urow = row;
	at.ucol = c->munit;
	return ingest(im, L, name, c->section >= 0 ? import_csv_field(row, (size_t)c->section) : "",
		      c->munit >= 0 ? import_csv_field(row, (size_t)c->munit) : "",
		      import_csv_field(row, (size_t)c->mvalue), &at);
}

static int
raw_row(struct importer *im, const struct import_csv_row *row)
{
	const struct import_csv_row *h = im->header;
	struct launch *L;
	struct strbuf key;
	size_t i, first;
	int r;

	if ((r = check_row_length(im, row)))
		return r;
	/*
	 * One row per launch: a launch ID of a process seen before is the same
	 * export appended twice (or a damaged file), not another launch.
	 */
	strbuf_init(&key);
	strbuf_printf(&key, "%s\x1f%s",
		      im->col.pid >= 0 ? import_csv_field(row, (size_t)im->col.pid) : "",
		      import_csv_field(row, (size_t)im->col.id));
	if (key.oom) {
		strbuf_free(&key);
		return ncu_oom(im, row->line);
	}
	if (import_strmap_get(&im->raw_ids, key.buf, &first)) {
		strbuf_free(&key);
		im->sum.rows--;
		if (import_summary_warn(&im->sum, "%s:%d: launch ID %s%s%s is already on line %zu; "
					"row skipped, not counted twice (the same export appended "
					"twice?)", im->path, row->line,
					import_csv_field(row, (size_t)im->col.id),
					im->col.pid >= 0 ? " of process " : "",
					im->col.pid >= 0 ? import_csv_field(row, (size_t)im->col.pid)
							 : "", first))
			return ncu_oom(im, row->line);
		return GPUPROJ_OK;
	}
	r = import_strmap_put(&im->raw_ids, key.buf, (size_t)row->line);
	strbuf_free(&key);
	if (r)
		return ncu_oom(im, row->line);
	if ((r = launch_new(im, row, &L)))
		return r;
	for (i = 0; i < h->n; i++) {
		struct pos at = { row, (long)i, im->units, (long)i };

		if (!strstr(h->fields[i], "__"))
			continue; /* identity or NVTX column */
		r = ingest(im, L, h->fields[i], "", import_csv_field(im->units, i),
			   import_csv_field(row, i), &at);
		if (r)
			return r;
	}
	return GPUPROJ_OK;
}


/* Remember what ncu_set_context() needs of a launch about to be freed (or kept). */
static void
note_context(struct importer *im, struct launch *L, bool *keep)
{
	*keep = false;
	if (!im->ctx_first) {
		im->ctx_first = L;
		*keep = true;
	} else if (L->pid != im->ctx_first->pid) {
		im->several_pids = true;
	}
	if (L->device) {
		if (!im->ctx_dev) {
			im->ctx_dev = L;
			*keep = true;
		} else if (strcmp(im->ctx_dev->device, L->device) != 0) {
			im->several_devices = true;
		}
	}
}

/*
 * A raw-layout launch is complete with its row: commit it now and free it
 * (unless ncu_set_context() still needs it), so no launch waits in memory.
 */
static int
commit_raw_launch(struct importer *im)
{
	struct launch *L = im->launches[im->n_launches - 1];
	bool keep;
	int r;

	note_context(im, L, &keep);
	r = ncu_commit(im, im->p, L, &im->no_dims);
	/*
	 * Out of launches[] whether or not the commit failed: a launch kept
	 * as ctx_first/ctx_dev is freed once, by importer_clear() through
	 * those (left in launches[] on a failed commit, it was freed twice).
	 */
	im->n_launches--;
	if (!keep)
		launch_free(L);
	if (r)
		return r;
	im->n_committed++;
	return GPUPROJ_OK;
}

static int
on_row(void *userdata, const struct import_csv_row *row, const struct import_csv *info)
{
	struct importer *im = userdata;
	size_t before;
	int r;

	im->unterminated_line = info->unterminated_line;
	if (im->n_rows_seen++ == 0) {
		/* As when the file was read whole: an nvprof export is said before its header. */
		if (im->nvprof_line && !im->header_seen)
			return error_set(im->err, GPUPROJ_E_PARSE, im->path, im->nvprof_line, 0,
					 "an nvprof export, not Nsight Compute's: import it with "
					 "`gpuproj import nvprof %s -o OUT.json`", im->path);
		goto header;
	}
	if (is_header_row(im, row))
		goto header;
	if (im->raw && !im->units) {
		if (*import_csv_field(row, (size_t)im->col.id))
			return error_set(im->err, GPUPROJ_E_PARSE, im->path, row->line, 1,
					 "expected the units row under the header "
					 "(\"\",\"\",…,\"nsecond\",…), which ncu "
					 "--page raw writes");
		import_csv_row_free(im->units_copy);
		if (!(im->units_copy = import_csv_row_copy(row)))
			return ncu_oom(im, row->line);
		im->units = im->units_copy;
		return GPUPROJ_OK;
	}
	im->sum.rows++;
	before = im->n_launches;
	r = im->raw ? raw_row(im, row) : long_row(im, row);
	if (!r && im->raw && im->n_launches > before)
		r = commit_raw_launch(im);
	return r;
header:
	{
		struct import_csv_row *copy = import_csv_row_copy(row);

		if (!copy)
			return ncu_oom(im, row->line);
		r = setup_header(im, copy);
		/* The header in use stays; a refused one goes. */
		if (im->header == copy) {
			import_csv_row_free(im->header_copy);
			im->header_copy = copy;
		} else {
			import_csv_row_free(copy);
		}
		return r;
	}
}

/* After the last row: a file without any launch row. */
static int
check_rows(struct importer *im)
{
	if (im->sum.rows == 0)
		return error_set(im->err, GPUPROJ_E_PARSE, im->path,
				 (im->units ? im->units : im->header)->line, 0,
				 "no kernel launches: the file ends after the %s%s%s",
				 im->raw ? "header and units rows" : "header",
				 im->first_msg ? "; ncu said: " : "",
				 im->first_msg ? im->first_msg : "");
	return GPUPROJ_OK;
}

static int
build_source_map(struct importer *im)
{
	size_t i;

	for (i = 0; i < SRC_COUNT; i++) {
		if (import_strmap_put(&im->source_map, ncu_sources[i].name, i))
			return ncu_oom(im, 0);
	}
	return GPUPROJ_OK;
}

static void
importer_clear(struct importer *im)
{
	size_t i;

	for (i = 0; i < im->n_launches; i++)
		launch_free(im->launches[i]);
	free(im->launches);
	/* Kept for ncu_set_context() after their commit (never in launches[] then). */
	if (im->ctx_dev && im->ctx_dev != im->ctx_first)
		launch_free(im->ctx_dev);
	launch_free(im->ctx_first);
	import_csv_row_free(im->header_copy);
	import_csv_row_free(im->units_copy);
	gpuproj_profile_free(im->p);
	import_strmap_clear(&im->launch_map);
	import_strmap_clear(&im->source_map);
	for (i = 0; i < im->names.n; i++)
		free(im->names.v[i]);
	free(im->names.v);
	import_strmap_clear(&im->names.map);
	free(im->first_unit);
	free(im->hint);
	free(im->warned);
	import_strmap_clear(&im->raw_ids);
	import_strmap_clear(&im->text_names);
	free(im->first_text);
	free(im->first_msg);
	gpuproj_import_summary_clear(&im->sum);
}

/*
 * Launches without a launch geometry fold by kernel name: say how many,
 * what that means, and how to collect the geometry.
 */
static int
warn_no_geometry(struct importer *im, const struct gpuproj_profile *p)
{
	const struct gpuproj_kernel *widest = NULL;
	uint64_t launches = 0;
	size_t i, kernels = 0;
	char spread[320] = "";

	for (i = 0; i < gpuproj_profile_count(p); i++) {
		const struct gpuproj_kernel *k = gpuproj_profile_at(p, i);

		if (gpuproj_kernel_geometry_known(k))
			continue;
		kernels++;
		launches += k->launches;
		if (k->duration_ns.n > 1 && k->duration_ns.min > 0 &&
		    (!widest || k->duration_ns.max / k->duration_ns.min >
				widest->duration_ns.max / widest->duration_ns.min))
			widest = k;
	}
	/* Launches of very different lengths averaged together: show the widest. */
	if (widest && widest->duration_ns.max > 1.5 * widest->duration_ns.min)
		snprintf(spread, sizeof(spread), " (their times averaged: %.60s from %.4g us to "
			 "%.4g us)", widest->name, widest->duration_ns.min / 1e3,
			 widest->duration_ns.max / 1e3);
	if (import_summary_warn(&im->sum, "%s: %" PRIu64 " launch%s of %zu kernel%s without a "
				"launch geometry (no \"Grid Size\"/\"Block Size\" columns, no "
				"LaunchStats section, no launch__grid_size/launch__block_size "
				"or launch__grid_dim_*/launch__block_dim_*): each kernel's launches "
				"fold into one record tagged \"%s\"%s, and the models project it "
				"without occupancy or wave term (assumed: occupancy unknown); "
				"collect it with --section LaunchStats or `gpuproj ncu-metrics`",
				im->path,
				launches, launches == 1 ? "" : "es", kernels, kernels == 1 ? "" : "s",
				GPUPROJ_TAG_NO_GEOMETRY, spread))
		return ncu_oom(im, 0);
	return GPUPROJ_OK;
}

int
gpuproj_import_ncu(const char *path, struct gpuproj_profile **ret,
		   struct gpuproj_import_summary *summary, struct gpuproj_error *reterr)
{
	struct importer im = { 0 };
	struct import_csv_options opt = { 0 };
	struct import_csv t = { 0 };
	struct gpuproj_profile *p = NULL;
	bool no_dims = false;
	size_t i;
	int r;

	if (!path || !ret)
		return error_set(reterr, GPUPROJ_E_INVAL, path, 0, 0, "invalid argument");
	im.path = path;
	im.err = reterr;
	if ((r = build_source_map(&im)))
		goto out;
	im.p = gpuproj_profile_new();
	if (!im.p) {
		r = ncu_oom(&im, 0);
		goto out;
	}
	opt.skip_line = skip_line;
	opt.userdata = &im;
	/* Row by row: memory is the profile's, not the file's. */
	r = import_csv_stream_file(path, &opt, on_row, &im, &t, reterr);
	/* What the file as a whole says (counters not readable, nvprof's) comes first. */
	if (r && !(im.ctrperm_line && im.n_rows_seen <= 1) && !(im.nvprof_line && !im.header_seen))
		goto out;
	t.n_rows = im.n_rows_seen;
	if (im.ctrperm_line && t.n_rows <= 1 && im.n_rows_seen <= 1) {
		r = error_set(reterr, GPUPROJ_E_PARSE, path, im.ctrperm_line, 0,
			      "ncu could not read the GPU's performance counters "
			      "(ERR_NVGPUCTRPERM: profiling is restricted to administrators), so "
			      "no kernel was measured: run ncu with sudo, or allow all users "
			      "(`options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file "
			      "under /etc/modprobe.d/, then reboot; "
			      "https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
		goto out;
	}
	if (im.nvprof_line && !im.header_seen) {
		r = error_set(reterr, GPUPROJ_E_PARSE, path, im.nvprof_line, 0,
			      "an nvprof export, not Nsight Compute's: import it with `gpuproj "
			      "import nvprof %s -o OUT.json`", path);
		goto out;
	}
	if (t.n_rows == 0) {
		if (im.first_msg)
			r = error_set(reterr, GPUPROJ_E_PARSE, path, im.first_msg_line, 0,
				      "no kernel data, only Nsight Compute messages; ncu said: %s",
				      im.first_msg);
		else if (im.n_prof > 0)
			r = error_set(reterr, GPUPROJ_E_PARSE, path, t.n_lines, 0,
				      "no CSV data, only Nsight Compute messages (==PROF== …): "
				      "did ncu profile any kernel?");
		else if (im.n_junk > 0)
			r = error_set(reterr, GPUPROJ_E_PARSE, path, 1, 0,
				      "not an Nsight Compute CSV export: no line starts with the "
				      "header ncu --csv writes (\"ID\",\"Process ID\",…)");
		else
			r = error_set(reterr, GPUPROJ_E_PARSE, path, 1, 0, "empty file: expected "
				      "an Nsight Compute CSV export (ncu --csv)");
		goto out;
	}
	if ((r = check_rows(&im)))
		goto out;
	p = im.p;
	im.p = NULL;
	no_dims = im.no_dims;
	for (i = 0; i < im.n_launches; i++) {
		if ((r = ncu_commit(&im, p, im.launches[i], &no_dims)))
			goto out;
	}
	im.sum.launches = im.n_launches + im.n_committed;
	if ((r = ncu_set_context(&im, p)))
		goto out;
	if (no_dims && (r = warn_no_geometry(&im, p)))
		goto out;
	if (im.n_text > 0 &&
	    import_summary_warn(&im.sum, "%s: %zu text value%s not kept (settings, not "
				"measurements; e.g. %s)", path, im.n_text, im.n_text == 1 ? "" : "s",
				im.first_text)) {
		r = ncu_oom(&im, 0);
		goto out;
	}
	if (im.ctrperm_line &&
	    import_summary_warn(&im.sum, "%s:%d: ncu could not read the performance counters "
				"of some launches (ERR_NVGPUCTRPERM): only what it printed is "
				"imported", path, im.ctrperm_line)) {
		r = ncu_oom(&im, 0);
		goto out;
	}
	if (im.n_junk > 0 &&
	    import_summary_warn(&im.sum, "%s:%d: skipped %zu line%s that %s not CSV "
				"(application output?)", path, im.first_junk, im.n_junk,
				im.n_junk == 1 ? "" : "s", im.n_junk == 1 ? "is" : "are")) {
		r = ncu_oom(&im, 0);
		goto out;
	}
	if (ncu_tensor_attributes(&im, p) ||
	    gpuproj_profile_set_attr(p, "origin", "ncu-import") ||
	    gpuproj_profile_set_attr(p, "import.file", path) ||
	    gpuproj_profile_set_attr(p, "import.format", im.raw ? "ncu --csv --page raw"
								 : "ncu --csv") ||
	    gpuproj_profile_set_attr(p, "tool_version", GPUPROJ_VERSION) ||
	    import_summary_finish(&im.sum, p)) {
		r = ncu_oom(&im, 0);
		goto out;
	}
	if (summary) {
		*summary = im.sum;
		memset(&im.sum, 0, sizeof(im.sum));
	}
	*ret = p;
	p = NULL;
	r = GPUPROJ_OK;
out:
	gpuproj_profile_free(p);
	import_csv_clear(&t);
	importer_clear(&im);
	return r;
}
