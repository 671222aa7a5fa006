/* SPDX-License-Identifier: MIT */
/*
 * Writing the procurement report's files (gpuproj_report_doc_write(),
 * include/gpuproj/report.h): both documents are rendered by their
 * writers (report-html.c, report-md.c) before either file is touched, then
 * each is written atomically. The layer above the document and its two
 * writers: neither writer calls the other.
 *
 * Thread safety: reentrant (the HTML writer forks per chart).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/report.h>

#include "util.h"

int
gpuproj_report_doc_write(const struct gpuproj_report_doc *doc, const char *html_path,
			 const char *md_path, struct gpuproj_error *reterr)
{
	char *html = NULL, *md = NULL;
	size_t html_len = 0, md_len = 0;
	int r;

	if (!doc || (!html_path && !md_path))
		return error_set(reterr, GPUPROJ_E_INVAL, NULL, 0, 0,
				 "no output file named (HTML or Markdown)");
	/* Neither file is written when the other would replace an input. */
	if ((html_path && (r = file_check_output(html_path, reterr))) ||
	    (md_path && (r = file_check_output(md_path, reterr))))
		return r;
	if (html_path && (r = gpuproj_report_doc_html(doc, &html, &html_len, reterr)))
		goto out;
	if (md_path && (r = gpuproj_report_doc_markdown(doc, &md, &md_len, reterr)))
		goto out;
	if (html_path && (r = file_write_atomic(html_path, html, html_len, reterr)))
		goto out;
	if (md_path && (r = file_write_atomic(md_path, md, md_len, reterr))) {
		if (html_path && reterr) {
			size_t len = strlen(reterr->message);

			snprintf(reterr->message + len, sizeof(reterr->message) - len,
				 " (the HTML report %s was written)", html_path);
		}
		goto out;
	}
	r = GPUPROJ_OK;
out:
	free(html);
	free(md);
	return r;
}
