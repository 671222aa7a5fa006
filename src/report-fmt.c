/* SPDX-License-Identifier: MIT */
/*
 * The procurement report's numbers as both writers and the rankings print
 * them (speedup, energy, percentages, USD, GiB) and the index of a target
 * in the document: leaf helpers of report-doc.c and report-rank.c, which
 * call each other through nothing else (report-doc-private.h declares
 * them).
 *
 * Thread safety: reentrant.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "report-doc-private.h"

size_t
doc_target_index(const struct gpuproj_report_doc *doc, const struct gpuproj_target *t)
{
	size_t i;

	for (i = 0; i < doc->n_targets; i++) {
		if (doc->targets[i] == t)
			return i;
	}
	return doc->n_targets;
}

char *
doc_fmt_speedup(double speedup, char *buf, size_t size)
{
	if (!isfinite(speedup))
		snprintf(buf, size, "–");
	else
		snprintf(buf, size, "%.2f×", speedup);
	return buf;
}

char *
doc_fmt_energy(double j, char *buf, size_t size)
{
	if (isnan(j))
		snprintf(buf, size, "unknown");
	else if (j < 1e3)
		snprintf(buf, size, "%.3g J", j);
	else if (j < 1e6)
		snprintf(buf, size, "%.3g kJ", j / 1e3);
	else
		snprintf(buf, size, "%.3g MJ", j / 1e6);
	return buf;
}

char *
doc_fmt_pct(double frac, char *buf, size_t size)
{
	if (!isfinite(frac))
		snprintf(buf, size, "–");
	else
		snprintf(buf, size, "%.1f %%", 100.0 * frac);
	return buf;
}

char *
doc_fmt_usd(double usd, char *buf, size_t size)
{
	if (isnan(usd))
		snprintf(buf, size, "unknown");
	else if (usd >= 100)
		snprintf(buf, size, "%.0f USD", usd);
	else if (usd >= 1)
		snprintf(buf, size, "%.2f USD", usd);
	else if (usd > 0)
		/* Three significant digits without an exponent: 0.0000965 USD. */
		snprintf(buf, size, "%.*f USD", 2 - (int)floor(log10(usd)), usd);
	else
		snprintf(buf, size, "0 USD");
	return buf;
}

char *
doc_fmt_gib(double bytes, char *buf, size_t size)
{
	if (isnan(bytes))
		snprintf(buf, size, "unknown");
	else
		snprintf(buf, size, "%.3g GiB", bytes / BYTES_PER_GIB);
	return buf;
}
