/* SPDX-License-Identifier: MIT */
/*
 * The whole run in the projection writers (project-wholerun.c), for
 * project-write.c. Not installed.
 */
#ifndef GPUPROJ_REPORT_WHOLERUN_H
#define GPUPROJ_REPORT_WHOLERUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include <gpuproj/model.h>

/* Whether any run carries a whole-run projection (the profile has a timeline). */
bool whole_run_any(const struct gpuproj_run_projection *runs, size_t n);
/* The table's "whole run" cell: the projected wall time, or "-". */
const char *whole_run_cell(const struct gpuproj_run_projection *run, char *buf, size_t size);
/* The run's "whole_run" JSON member; NULL when not valid or on ENOMEM. */
json_t *whole_run_json(const struct gpuproj_whole_run *w);
/*
 * The CSV rows of the whole run after a target's "(total)" row: "(whole
 * run)" (wall time in point_ns, interval, measured wall in source_ns,
 * explained share and identity error in why), then one row per part
 * ("(whole run: kernel)", copy, host, overlap, carried; value in point_ns).
 */
void whole_run_csv(FILE *out, const struct gpuproj_run_projection *run, const char *basis);

struct strbuf;
struct gpuproj_report_rank;

/*
 * Sum b into a (the combined ranking of several profiles): times add,
 * shares and the identity error are weighted by the measured wall; valid
 * only when both are (`first`: a is empty, copy b).
 */
void whole_run_add(struct gpuproj_whole_run *a, const struct gpuproj_whole_run *b, bool first);
/*
 * The report's "Whole run" section (HTML; Markdown): per ranked target (the
 * complete ones: gpuproj_report_rank.complete; the others are listed apart) the
 * projected wall time, interval, speedup, its parts and a stacked bar
 * (kernel / copy / host / carried), the measured wall, the explained share
 * and the identity check. Nothing when no row is valid.
 */
void whole_run_html(struct strbuf *sb, const struct gpuproj_report_rank *rows, size_t n);
void whole_run_md(struct strbuf *sb, const struct gpuproj_report_rank *rows, size_t n);

#endif
