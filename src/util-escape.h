/* SPDX-License-Identifier: MIT */
/*
 * What every writer of the core shares (the report-*.c files, the profile
 * JSON writer): the one set of escapers for HTML, XML and Markdown, and
 * the JSON helpers (numbers, launch dimensions, text with full double
 * precision, atomic files). Internal to the core library; jansson types
 * never reach the public headers.
 *
 * Thread safety: every function is reentrant.
 */
#ifndef GPUPROJ_REPORT_COMMON_H
#define GPUPROJ_REPORT_COMMON_H

#include <stdbool.h>

#include <jansson.h>

#include <gpuproj/error.h>
#include <gpuproj/profile.h>

#include "util.h"

/*
 * ---- escapers: append `s` (NULL appends nothing) to `sb` ----
 *
 * All of them show a bidirectional control (U+061C, U+200E, U+200F,
 * U+202A to U+202E, U+2066 to U+2069) as the visible text "\u202e": a
 * name with one would show people something other than what it is.
 */

/*
 * HTML text, safe in element content and in quoted attribute values:
 * & < > " ' become &amp; &lt; &gt; &quot; &#39;; everything else verbatim.
 */
void html_escape(struct strbuf *sb, const char *s);

/*
 * XML 1.0 text, safe in element content and in quoted attribute values
 * (JUnit): & < > " ' become &amp; &lt; &gt; &quot; &apos;; tab, line
 * feed and carriage return become character references (so attribute
 * normalisation keeps them); what XML 1.0 forbids (the other characters
 * below 0x20, and the non-characters U+FFFE and U+FFFF) becomes U+FFFD, so
 * every parser accepts the file.
 */
void xml_escape(struct strbuf *sb, const char *s);

/*
 * Markdown (CommonMark / GitHub-flavoured) plain text, safe in a paragraph
 * and in a table cell: & < > become &amp; &lt; &gt; (no raw HTML, no
 * entity), the punctuation Markdown gives meaning inline or in a table
 * (| \ ` * _ [ ] # ~) is backslash-escaped (CommonMark §2.4: any ASCII
 * punctuation may be), and control characters (line breaks included)
 * become a space, so the text stays on its line.
 */
void md_text(struct strbuf *sb, const char *s);

/*
 * A Markdown code span showing `s` verbatim (CommonMark §6.1): the fence is
 * one backtick longer than the longest run of backticks in `s`, and a
 * space pads both sides when `s` starts or ends with a backtick, or both
 * starts and ends with a space (a renderer strips one space from each side
 * of such content). Backticks are kept, never replaced. Control characters
 * become a space. In a table cell (`in_table`) a '|' is written "\|": GFM
 * splits cells before inline parsing, including inside code spans (GFM
 * spec 0.29 §4.10, "Tables (extension)"), and shows the '|'; outside a
 * table the backslash would show, so '|' is written as is. "" gives "` `".
 */
void md_code(struct strbuf *sb, const char *s, bool in_table);

/* ---- JSON (jansson) ---- */

/* A real for a finite value, null for NaN and infinities (JSON has neither). */
json_t *json_num(double v);
/* [x, y, z] of launch dimensions. */
json_t *json_dim3(struct gpuproj_dim3 d);
/* A string, or null for NULL; bytes that are not UTF-8 become U+FFFD. */
json_t *json_str_or_null(const char *s);
/*
 * `s` as a JSON string, each byte that is not part of valid UTF-8 replaced
 * by U+FFFD (jansson refuses such strings); NULL for NULL or on ENOMEM.
 * For writers whose output gpuproj does not read back.
 */
json_t *json_string_lossy(const char *s);
/*
 * Lossless text (docs/formats/profile.md "Text that is not UTF-8"): set
 * `key` to `s` (null for NULL); when `s` is not valid UTF-8, `key` holds
 * it with U+FFFD for each bad byte and `<key>_hex` its exact bytes in
 * lowercase hex. `key` is at most 120 bytes. 0, or -1 on ENOMEM.
 */
int json_set_text(json_t *obj, const char *key, const char *s);
/*
 * Add `value` (an object; the reference is stolen, also on failure) to
 * `map`, whose keys are names: under `name` itself when it is valid UTF-8
 * and not yet a key; otherwise under its U+FFFD text, made unique with
 * " #2", " #3"…, and then `value` gets `hex_member` with the name's exact
 * bytes in hex. 0, or -1 on ENOMEM.
 */
int json_set_named(json_t *map, const char *name, json_t *value, const char *hex_member);
/*
 * `root` as text with full double precision (a round trip is exact),
 * ASCII only, one final newline; malloc'd, NULL on ENOMEM.
 */
char *json_text(json_t *root);
/* json_text() of `root` written atomically to `path` ("-" = standard output). */
int json_save_atomic(json_t *root, const char *path, struct gpuproj_error *reterr);
/*
 * Streaming JSON (memory stays that of one element, not of the
 * whole tree). `root` holds json_stream_placeholder(k) where array k goes
 * (k = 0, 1, … in the order they appear in the text). json_stream() writes
 * what json_text() would write for `root` with the arrays in place, byte
 * for byte but the final newline, every line after the first indented by
 * `indent` more spaces (for a value nested in another stream): element i
 * of array k is written by arrays[k].write_elem(f, userdata, i, indent),
 * positioned at its first character, with `indent` the spaces its other
 * lines need (json_stream_value() of one value does that).
 * Each returns GPUPROJ_OK, GPUPROJ_E_NOMEM, GPUPROJ_E_IO (the stream's
 * error) or GPUPROJ_E_INVAL (a placeholder missing).
 */
struct json_stream_array {
	size_t n;
	int (*write_elem)(FILE *f, void *userdata, size_t i, size_t indent);
	void *userdata;
	/*
	 * Optional: the number of elements (n is then ignored), asked when the
	 * array is reached, after the arrays before it were written (an array
	 * that sums up the ones before).
	 */
	size_t (*count)(void *userdata);
};
json_t *json_stream_placeholder(unsigned k);
int json_stream(FILE *f, json_t *root, size_t indent, const struct json_stream_array *arrays,
		size_t n_arrays);
int json_stream_value(FILE *f, json_t *v, size_t indent);

/*
 * The footnote of an interval marked "*": fitted without the source or the
 * target GPU (gpuproj_report_rank.n_interval_unseen; interval.h "GPUs").
 */
#define REPORT_UNSEEN_NOTE                                                                 \
	"The interval was fitted on validation data without this target or the source GPU: " \
	"its coverage there is unmeasured, and on GPUs held out of a fit it fell below the "  \
	"fitted coverage (docs/models.md \"Intervals\")."

#endif
