/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the price quotes of `gpuproj report --prices`
 * (gpuproj_report_prices_load_buffer(), src/report-prices.c), the same
 * bytes read as CSV and as YAML, names resolved in the built-in
 * targets.yaml.
 *
 * Oracle: every accepted quote names a GPU of the set, no GPU twice; each
 * price is unknown (NaN) or in (0, 10⁹) USD, one at least known; its
 * origin is "NAME:LINE" with LINE ≥ 1. The quotes written back as CSV (a
 * writer here: names quoted with doubled quotes, prices with 17 digits)
 * load as the same quotes, in the same order.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/report.h>
#include <gpuproj/target.h>

#include "fuzz-common.h"
#include "util.h"

static struct gpuproj_targets *targets;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (gpuproj_targets_load_builtin(&targets, NULL))
		fuzz_fail("the built-in targets.yaml does not load");
	return 0;
}

static void
check_price(double v, const char *what, const char *name)
{
	if (!isnan(v) && !(v > 0 && v < 1e9))
		fuzz_fail("%s of '%s' is %.17g, outside (0, 1e9)", what, name, v);
}

/* The quotes as CSV text (malloc'd). */
static char *
to_csv(const struct gpuproj_report_price *q, size_t n)
{
	struct strbuf sb;
	size_t i;
	const char *c;

	strbuf_init(&sb);
	strbuf_append(&sb, "name,purchase_usd,hourly_usd\n");
	for (i = 0; i < n; i++) {
		strbuf_append(&sb, "\"");
		for (c = q[i].name; *c; c++)
			strbuf_appendn(&sb, *c == '"' ? "\"\"" : c, *c == '"' ? 2 : 1);
		strbuf_append(&sb, "\",");
		if (!isnan(q[i].purchase_usd))
			strbuf_printf(&sb, "%.17g", q[i].purchase_usd);
		strbuf_append(&sb, ",");
		if (!isnan(q[i].hourly_usd))
			strbuf_printf(&sb, "%.17g", q[i].hourly_usd);
		strbuf_append(&sb, "\n");
	}
	if (sb.oom)
		fuzz_fail("out of memory writing the quotes back");
	return strbuf_steal(&sb);
}

static void
check(const struct gpuproj_report_prices *p, const char *name)
{
	const struct gpuproj_report_price *q = gpuproj_report_prices_get(p, NULL), *b;
	struct gpuproj_report_prices *back = NULL;
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target **seen;
	size_t n = 0, nb = 0, i, j;
	char *csv;

	gpuproj_report_prices_get(p, &n);
	seen = calloc(n + 1, sizeof(*seen));
	if (!seen)
		fuzz_fail("out of memory");
	for (i = 0; i < n; i++) {
		const struct gpuproj_target *t = NULL;
		size_t len = strlen(name);

		if (gpuproj_targets_lookup(targets, q[i].name, NULL, &t, NULL) || !t)
			fuzz_fail("accepted quote '%s' names no GPU of the set", q[i].name);
		for (j = 0; j < i; j++) {
			if (seen[j] == t)
				fuzz_fail("%s is quoted twice", t->name);
		}
		seen[i] = t;
		check_price(q[i].purchase_usd, "purchase_usd", q[i].name);
		check_price(q[i].hourly_usd, "hourly_usd", q[i].name);
		if (isnan(q[i].purchase_usd) && isnan(q[i].hourly_usd))
			fuzz_fail("the quote of '%s' has no price", q[i].name);
		if (strncmp(q[i].origin, name, len) != 0 || q[i].origin[len] != ':' ||
		    atoi(q[i].origin + len + 1) < 1)
			fuzz_fail("origin '%s' is not %s:LINE", q[i].origin, name);
	}
	free(seen);
	csv = to_csv(q, n);
	if (gpuproj_report_prices_load_buffer(csv, strlen(csv), "back.csv", false, targets, &back,
					      &err))
		fuzz_fail("the quotes written back do not load: %s:%d:%d: %s\n%s", err.file,
			  err.line, err.column, err.message, csv);
	b = gpuproj_report_prices_get(back, &nb);
	if (nb != n)
		fuzz_fail("%zu quotes read back as %zu", n, nb);
	for (i = 0; i < n; i++) {
		if (strcmp(b[i].name, q[i].name) != 0 ||
		    !fuzz_same_num(b[i].purchase_usd, q[i].purchase_usd) ||
		    !fuzz_same_num(b[i].hourly_usd, q[i].hourly_usd))
			fuzz_fail("quote %zu '%s' reads back as '%s'", i, q[i].name, b[i].name);
	}
	gpuproj_report_prices_free(back);
	free(csv);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpuproj_report_prices *p = NULL;
	int yaml;

	for (yaml = 0; yaml < 2; yaml++) {
		const char *name = yaml ? "q.yaml" : "q.csv";

		if (gpuproj_report_prices_load_buffer((const char *)data, size, name, yaml, targets,
						      &p, NULL))
			continue;
		check(p, name);
		p = gpuproj_report_prices_free(p);
	}
	return 0;
}
