/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the targets.yaml loader (gpuproj_targets_load_buffer(),
 * src/target.c: the YAML guard, libyaml, the schema walk).
 *
 * Oracle: a file the loader accepts is written back as YAML by a small
 * emitter below (every value it holds, strings double-quoted with escapes,
 * numbers with 17 significant digits), that text loads, and the two sets
 * are equal field by field; every number lies within the schema's limits
 * (docs/targets-schema.md "Limits"), a host_link has all five numbers and
 * its pageable rates do not exceed its pinned ones; every GPU is found by
 * its name and by each of its match strings.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuproj/target.h>

#include "fuzz-common.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- emitter ---- */

/* A YAML double-quoted scalar: ASCII printable as is, everything else escaped. */
static void
quoted(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_append(sb, "\"");
	while (*p) {
		uint32_t cp;
		size_t n, i;

		if (*p < 0x80) {
			if (*p == '"' || *p == '\\')
				strbuf_printf(sb, "\\%c", *p);
			else if (*p < 0x20 || *p == 0x7f)
				strbuf_printf(sb, "\\x%02x", *p);
			else
				strbuf_appendn(sb, (const char *)p, 1);
			p++;
			continue;
		}
		/* libyaml hands out valid UTF-8 only. */
		n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
		cp = *p & (0xff >> (n + 1));
		for (i = 1; i < n; i++)
			cp = cp << 6 | (p[i] & 0x3f);
		strbuf_printf(sb, "\\U%08x", (unsigned)cp);
		p += n;
	}
	strbuf_append(sb, "\"");
}

static void
num(struct strbuf *sb, const char *indent, const char *key, double v)
{
	if (isnan(v))
		strbuf_printf(sb, "%s%s: null\n", indent, key);
	else
		strbuf_printf(sb, "%s%s: %.17g\n", indent, key, v);
}

static const char *const prec_keys[GPUPROJ_PREC_COUNT][2] = {
	{ "fp16_fma", "fp16_add_mul" }, { "fp32_fma", "fp32_add_mul" }, { "fp64_fma", "fp64_add_mul" },
};

static void
gflops(struct strbuf *sb, const char *group, const double v[GPUPROJ_PREC_COUNT][2],
       const bool *add_mul_given)
{
	bool any = false;
	int p;

	for (p = 0; p < GPUPROJ_PREC_COUNT; p++)
		any |= !isnan(v[p][0]) || add_mul_given[p];
	if (!any)
		return;
	strbuf_printf(sb, "    %s:\n", group);
	for (p = 0; p < GPUPROJ_PREC_COUNT; p++) {
		if (!isnan(v[p][0]))
			num(sb, "      ", prec_keys[p][0], v[p][0]);
		if (add_mul_given[p])
			num(sb, "      ", prec_keys[p][1], v[p][1]);
	}
}

static const char *
lane_key(int i)
{
	return gpuproj_lane_name((enum gpuproj_lane)i);
}

static const char *
stream_key(int i)
{
	return gpuproj_stream_name((enum gpuproj_stream)i);
}

static const char *
tensor_key(int i)
{
	return gpuproj_tensor_prec_key((enum gpuproj_tensor_prec)i);
}

static const char *
level_key(int i)
{
	return gpuproj_level_name((enum gpuproj_level)i);
}

/* A group of optional numbers keyed by `key_of(index)`, written when any is present. */
static void
group(struct strbuf *sb, const char *name, const double *v, int n, const char *(*key_of)(int))
{
	bool any = false;
	int i;

	for (i = 0; i < n; i++)
		any |= !isnan(v[i]);
	if (!any)
		return;
	strbuf_printf(sb, "    %s:\n", name);
	for (i = 0; i < n; i++) {
		if (!isnan(v[i]))
			num(sb, "      ", key_of(i), v[i]);
	}
}

static char *
emit(const struct gpuproj_targets *s)
{
	static const char *const limit_keys[] = {
		"threads_per_sm", "threads_per_block", "blocks_per_sm", "regs_per_sm",
		"regs_per_block", "regs_per_thread", "reg_alloc_unit", "smem_per_sm_kib",
		"smem_per_block_kib", "smem_alloc_unit_b", "smem_reserved_per_block_b",
	};
	static const char *const bw_keys[] = { "l1", "l2", "dram", "shared" };
	struct strbuf sb;
	const char *key, *text;
	size_t i, j;

	strbuf_init(&sb);
	strbuf_append(&sb, "schema: " GPUPROJ_TARGETS_SCHEMA "\nreferences:\n");
	for (i = 0; (key = gpuproj_targets_reference_at(s, i, &text)) != NULL; i++) {
		strbuf_append(&sb, "  ");
		quoted(&sb, key);
		strbuf_append(&sb, ": ");
		quoted(&sb, text);
		strbuf_append(&sb, "\n");
	}
	if (i == 0)
		strbuf_append(&sb, "  {}\n");
	strbuf_append(&sb, "gpus:\n");
	for (i = 0; i < gpuproj_targets_count(s); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(s, i);
		const int *lim = &t->limits.threads_per_sm;

		strbuf_append(&sb, "  - name: ");
		quoted(&sb, t->name);
		if (t->description) {
			strbuf_append(&sb, "\n    description: ");
			quoted(&sb, t->description);
		}
		strbuf_append(&sb, "\n    match: [");
		for (j = 0; j < t->n_match; j++) {
			strbuf_append(&sb, j ? ", " : "");
			quoted(&sb, t->match[j]);
		}
		strbuf_printf(&sb, "]\n    vendor: %s\n    arch: ",
			      t->vendor == GPUPROJ_VENDOR_NVIDIA ? "nvidia" : "amd");
		quoted(&sb, t->arch);
		strbuf_append(&sb, "\n    chip: ");
		quoted(&sb, t->chip);
		strbuf_append(&sb, "\n");
		num(&sb, "    ", "sms", t->sms);
		num(&sb, "    ", "warp_size", t->warp_size);
		num(&sb, "    ", "clock_mhz", t->clock_mhz);
		if (!isnan(t->boost_clock_mhz))
			num(&sb, "    ", "boost_clock_mhz", t->boost_clock_mhz);
		if (!isnan(t->boost_hold_us))
			num(&sb, "    ", "boost_hold_us", t->boost_hold_us);
		num(&sb, "    ", "schedulers_per_sm", t->schedulers_per_sm);
		/* Optional numbers are present exactly when they have a source. */
		if (gpuproj_target_source(t, "ipc_per_scheduler"))
			num(&sb, "    ", "ipc_per_scheduler", t->ipc_per_scheduler);
		if (!isnan(t->memory_gib))
			num(&sb, "    ", "memory_gib", t->memory_gib);
		if (!isnan(t->ldst_shared_gops))
			num(&sb, "    ", "ldst_shared_gops", t->ldst_shared_gops);
		strbuf_append(&sb, "    limits:\n");
		for (j = 0; j < ARRAY_LENGTH(limit_keys); j++)
			num(&sb, "      ", limit_keys[j], lim[j]);
		num(&sb, "      ", "l2_mib", t->limits.l2_mib);
		gflops(&sb, "peak_gflops", t->peak_gflops, t->peak_add_mul_given);
		gflops(&sb, "max_gflops", t->max_gflops, t->max_add_mul_given);
		if (!isnan(t->int32_add_giops) || !isnan(t->int32_mad_giops)) {
			strbuf_append(&sb, "    peak_giops:\n");
			if (!isnan(t->int32_add_giops))
				num(&sb, "      ", "int32_add", t->int32_add_giops);
			if (!isnan(t->int32_mad_giops))
				num(&sb, "      ", "int32_mad", t->int32_mad_giops);
		}
		if (!isnan(t->peak_dram_gbs)) {
			strbuf_append(&sb, "    peak_bw_gbs:\n");
			num(&sb, "      ", "dram", t->peak_dram_gbs);
		}
		strbuf_append(&sb, "    bw_gbs:\n");
		for (j = 0; j < GPUPROJ_LEVEL_COUNT; j++)
			num(&sb, "      ", bw_keys[j], t->bw_gbs[j]);
		/* The one-basis groups (docs/targets-schema.md): each key only when present. */
		group(&sb, "lanes_per_sm", t->lanes_per_sm, GPUPROJ_LANE_COUNT, lane_key);
		group(&sb, "stream_gbs", t->stream_gbs, GPUPROJ_STREAM_COUNT, stream_key);
		group(&sb, "latency_ns", t->latency_ns, GPUPROJ_LEVEL_COUNT, level_key);
		/* peak_tensor: 0 is a null in the file (no such tensor path). */
		{
			bool any = false;

			for (j = 0; j < GPUPROJ_TPREC_COUNT; j++)
				any |= !isnan(t->peak_tensor[j]);
			if (any)
				strbuf_append(&sb, "    peak_tensor:\n");
			for (j = 0; j < GPUPROJ_TPREC_COUNT; j++) {
				if (t->peak_tensor[j] == 0)
					strbuf_printf(&sb, "      %s: null\n", tensor_key((int)j));
				else if (!isnan(t->peak_tensor[j]))
					num(&sb, "      ", tensor_key((int)j), t->peak_tensor[j]);
			}
		}
		group(&sb, "max_tensor", t->max_tensor, GPUPROJ_TPREC_COUNT, tensor_key);
		if (t->host_link.interface) {
			const struct gpuproj_host_link *l = &t->host_link;

			strbuf_printf(&sb, "    host_link:\n      interface: %s\n", l->interface);
			num(&sb, "      ", "h2d_pinned_gbs", l->h2d_pinned_gbs);
			num(&sb, "      ", "d2h_pinned_gbs", l->d2h_pinned_gbs);
			num(&sb, "      ", "h2d_pageable_gbs", l->h2d_pageable_gbs);
			num(&sb, "      ", "d2h_pageable_gbs", l->d2h_pageable_gbs);
			num(&sb, "      ", "latency_us", l->latency_us);
		}
		num(&sb, "    ", "price_usd", t->price_usd);
		num(&sb, "    ", "tdp_w", t->tdp_w);
		strbuf_append(&sb, "    sources:\n");
		for (j = 0; j < t->n_sources; j++) {
			strbuf_append(&sb, "      ");
			quoted(&sb, t->sources[j].path);
			strbuf_append(&sb, ": ");
			quoted(&sb, t->sources[j].text);
			strbuf_append(&sb, "\n");
		}
	}
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_steal(&sb);
}

/* ---- comparison and invariants ---- */


static void
compare(const struct gpuproj_targets *a, const struct gpuproj_targets *b, const char *yaml)
{
	const char *ka, *kb, *ta, *tb;
	size_t i, j;

	for (i = 0; (ka = gpuproj_targets_reference_at(a, i, &ta)) != NULL; i++) {
		kb = gpuproj_targets_reference_at(b, i, &tb);
		if (!fuzz_same_str(ka, kb) || !fuzz_same_str(ta, tb))
			fuzz_fail("references[%zu] differ after a round trip:\n%s", i, yaml);
	}
	if (gpuproj_targets_reference_at(b, i, &tb) ||
	    gpuproj_targets_count(a) != gpuproj_targets_count(b))
		fuzz_fail("counts differ after a round trip:\n%s", yaml);
	for (i = 0; i < gpuproj_targets_count(a); i++) {
		const struct gpuproj_target *x = gpuproj_targets_get(a, i);
		const struct gpuproj_target *y = gpuproj_targets_get(b, i);
		const int *lx = &x->limits.threads_per_sm, *ly = &y->limits.threads_per_sm;
		bool ok = fuzz_same_str(x->name, y->name) && fuzz_same_str(x->description, y->description) &&
			  x->n_match == y->n_match && x->vendor == y->vendor &&
			  fuzz_same_str(x->arch, y->arch) && x->cc_major == y->cc_major &&
			  x->cc_minor == y->cc_minor && fuzz_same_str(x->chip, y->chip) &&
			  x->sms == y->sms && x->warp_size == y->warp_size &&
			  fuzz_same_num(x->clock_mhz, y->clock_mhz) &&
			  fuzz_same_num(x->boost_clock_mhz, y->boost_clock_mhz) &&
			  fuzz_same_num(x->boost_hold_us, y->boost_hold_us) &&
			  x->schedulers_per_sm == y->schedulers_per_sm &&
			  fuzz_same_num(x->ipc_per_scheduler, y->ipc_per_scheduler) &&
			  fuzz_same_num(x->memory_gib, y->memory_gib) &&
			  fuzz_same_num(x->limits.l2_mib, y->limits.l2_mib) &&
			  fuzz_same_num(x->int32_add_giops, y->int32_add_giops) &&
			  fuzz_same_num(x->int32_mad_giops, y->int32_mad_giops) &&
			  fuzz_same_num(x->ldst_shared_gops, y->ldst_shared_gops) &&
			  fuzz_same_num(x->peak_dram_gbs, y->peak_dram_gbs) &&
			  fuzz_same_num(x->price_usd, y->price_usd) && fuzz_same_num(x->tdp_w, y->tdp_w) &&
			  x->n_sources == y->n_sources &&
			  fuzz_same_str(x->host_link.interface, y->host_link.interface) &&
			  fuzz_same_num(x->host_link.h2d_pinned_gbs, y->host_link.h2d_pinned_gbs) &&
			  fuzz_same_num(x->host_link.d2h_pinned_gbs, y->host_link.d2h_pinned_gbs) &&
			  fuzz_same_num(x->host_link.h2d_pageable_gbs, y->host_link.h2d_pageable_gbs) &&
			  fuzz_same_num(x->host_link.d2h_pageable_gbs, y->host_link.d2h_pageable_gbs) &&
			  fuzz_same_num(x->host_link.latency_us, y->host_link.latency_us);

		for (j = 0; ok && j < 11; j++)
			ok = lx[j] == ly[j];
		for (j = 0; ok && j < x->n_match; j++)
			ok = fuzz_same_str(x->match[j], y->match[j]);
		for (j = 0; ok && j < GPUPROJ_PREC_COUNT; j++)
			ok = fuzz_same_num(x->peak_gflops[j][0], y->peak_gflops[j][0]) &&
			     fuzz_same_num(x->peak_gflops[j][1], y->peak_gflops[j][1]) &&
			     fuzz_same_num(x->max_gflops[j][0], y->max_gflops[j][0]) &&
			     fuzz_same_num(x->max_gflops[j][1], y->max_gflops[j][1]) &&
			     x->peak_add_mul_given[j] == y->peak_add_mul_given[j] &&
			     x->max_add_mul_given[j] == y->max_add_mul_given[j];
		for (j = 0; ok && j < GPUPROJ_LEVEL_COUNT; j++)
			ok = fuzz_same_num(x->bw_gbs[j], y->bw_gbs[j]) &&
			     fuzz_same_num(x->latency_ns[j], y->latency_ns[j]);
		for (j = 0; ok && j < GPUPROJ_LANE_COUNT; j++)
			ok = fuzz_same_num(x->lanes_per_sm[j], y->lanes_per_sm[j]);
		for (j = 0; ok && j < GPUPROJ_STREAM_COUNT; j++)
			ok = fuzz_same_num(x->stream_gbs[j], y->stream_gbs[j]);
		for (j = 0; ok && j < GPUPROJ_TPREC_COUNT; j++)
			ok = fuzz_same_num(x->peak_tensor[j], y->peak_tensor[j]) &&
			     fuzz_same_num(x->max_tensor[j], y->max_tensor[j]);
		for (j = 0; ok && j < x->n_sources; j++)
			ok = fuzz_same_str(x->sources[j].path, y->sources[j].path) &&
			     fuzz_same_str(x->sources[j].text, y->sources[j].text) &&
			     x->sources[j].basis == y->sources[j].basis;
		if (!ok)
			fuzz_fail("GPU '%s' differs after a round trip:\n%s", x->name, yaml);
	}
}

/* The limits of docs/targets-schema.md, checked on what the loader let through. */
static void
check_limits(const struct gpuproj_targets *s)
{
	size_t i, j;

	for (i = 0; i < gpuproj_targets_count(s); i++) {
		const struct gpuproj_target *t = gpuproj_targets_get(s, i);
		double rates[] = { t->clock_mhz, t->bw_gbs[0], t->bw_gbs[1], t->bw_gbs[2],
				   t->bw_gbs[3], t->peak_gflops[0][0], t->peak_gflops[1][0],
				   t->peak_gflops[2][0], t->limits.l2_mib };

		if (t->sms < 1 || t->sms > 4096 || t->warp_size < 1 || t->warp_size > 128 ||
		    t->schedulers_per_sm < 1 || t->schedulers_per_sm > 64 ||
		    !(t->clock_mhz > 0 && t->clock_mhz <= 10000) ||
		    t->limits.threads_per_sm > 65536 || t->limits.regs_per_sm > 16777216 ||
		    t->limits.smem_per_sm_kib > 1048576)
			fuzz_fail("GPU '%s' has a count or clock beyond the schema's limits", t->name);
		for (j = 0; j < GPUPROJ_TPREC_COUNT; j++) {
			if ((!isnan(t->peak_tensor[j]) &&
			     !(t->peak_tensor[j] >= 0 && t->peak_tensor[j] <= 1e9)) ||
			    (!isnan(t->max_tensor[j]) &&
			     !(t->max_tensor[j] > 0 && t->max_tensor[j] <= 1e9)))
				fuzz_fail("GPU '%s': tensor rate %zu outside the schema's limits",
					  t->name, j);
		}
		if (!isnan(t->boost_hold_us) && !(t->boost_hold_us > 0 && t->boost_hold_us <= 1e9))
			fuzz_fail("GPU '%s': boost_hold_us %g is outside (0, 1e9]", t->name,
				  t->boost_hold_us);
		for (j = 0; j < ARRAY_LENGTH(rates); j++) {
			if (!isfinite(rates[j]) || rates[j] <= 0 || rates[j] > 1e9)
				fuzz_fail("GPU '%s': rate %zu is %g", t->name, j, rates[j]);
		}
		if (t->host_link.interface) {
			const struct gpuproj_host_link *l = &t->host_link;
			double link[] = { l->h2d_pinned_gbs, l->d2h_pinned_gbs, l->h2d_pageable_gbs,
					  l->d2h_pageable_gbs };

			for (j = 0; j < ARRAY_LENGTH(link); j++) {
				if (!isfinite(link[j]) || link[j] <= 0 || link[j] > 1e7)
					fuzz_fail("GPU '%s': host_link rate %zu is %g", t->name, j,
						  link[j]);
			}
			if (!(l->latency_us > 0 && l->latency_us <= 1e6) || link[2] > link[0] ||
			    link[3] > link[1])
				fuzz_fail("GPU '%s': host_link latency %g us, pageable %g/%g over "
					  "pinned %g/%g", t->name, l->latency_us, link[2], link[3],
					  link[0], link[1]);
		}
		if (gpuproj_targets_find(s, t->name) != t)
			fuzz_fail("GPU '%s' is not found by its name", t->name);
		for (j = 0; j < t->n_match; j++) {
			const struct gpuproj_target *m = gpuproj_targets_match(s, t->match[j]);

			if (m != t)
				fuzz_fail("match string '%s' of '%s' finds '%s'", t->match[j], t->name,
					  m ? m->name : "nothing");
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpuproj_targets *a = NULL, *b = NULL;
	struct gpuproj_error err = { 0 };
	char *yaml;
	int r;

	if (gpuproj_targets_load_buffer((const char *)data, size, "fuzz.yaml", &a, NULL))
		return 0;
	check_limits(a);
	yaml = emit(a);
	if (yaml) {
		r = gpuproj_targets_load_buffer(yaml, strlen(yaml), "emitted.yaml", &b, &err);
		if (r && r != GPUPROJ_E_NOMEM)
			fuzz_fail("an accepted file, written back, does not load: %d:%d: %s\n%s",
				  err.line, err.column, err.message, yaml);
		if (b)
			compare(a, b, yaml);
	}
	free(yaml);
	gpuproj_targets_free(a);
	gpuproj_targets_free(b);
	return 0;
}
