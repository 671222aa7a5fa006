/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: CUDA device-code containers (src/sass/sass-fatbin.c):
 * fatbin_scan() on host ELF files, fatbin files and cubins,
 * fatbin_extract() (raw, LZ4, Zstandard) and cubin_parse().
 *
 * Oracle: every image lies inside the input; a raw image extracts to its
 * own bytes; the images found, written into a fresh fatbin container by
 * the small writer below, scan back as the same list (kind, architecture,
 * codec, sizes, bytes); a cubin's functions and relocations lie inside its
 * code sections, sorted as documented; and the number of images stays
 * below one per 64 input bytes (linear in the input).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "sass/sass-fatbin.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Extract and parse only images this small: the fuzzer's time goes to parsing. */
#define EXTRACT_MAX ((uint64_t)1 << 20)

static void
put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void
put32(unsigned char *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void
put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* One fatbin container holding the images (the layout sass-fatbin.c documents). */
static unsigned char *
write_fatbin(const struct fatbin_image *im, size_t n, size_t *ret_len)
{
	size_t len = 16, i, at;
	unsigned char *out;

	for (i = 0; i < n; i++)
		len += 64 + im[i].size;
	out = calloc(1, len);
	if (!out)
		return NULL;
	put32(out, 0xBA55ED50u);
	put16(out + 4, 1);
	put16(out + 6, 16);
	put64(out + 8, len - 16);
	for (i = 0, at = 16; i < n; i++) {
		unsigned char *e = out + at;
		uint64_t flags = 0x11;

		if (im[i].codec == FATBIN_LZ4)
			flags |= 0x2000;
		else if (im[i].codec == FATBIN_ZSTD)
			flags |= 0x8000;
		put16(e, (uint16_t)im[i].kind);
		put16(e + 2, 0x0101);
		put32(e + 4, 64);
		put64(e + 8, im[i].size);
		put32(e + 16, im[i].codec == FATBIN_RAW ? 0 : (uint32_t)im[i].size);
		put32(e + 28, (uint32_t)im[i].arch);
		put64(e + 40, flags);
		put64(e + 56, im[i].codec == FATBIN_RAW ? 0 : im[i].raw_size);
		memcpy(e + 64, im[i].data, im[i].size);
		at += 64 + im[i].size;
	}
	*ret_len = len;
	return out;
}

static void
check_cubin(const unsigned char *buf, size_t len)
{
	struct cubin c = { 0 };
	size_t i;

	if (!cubin_is_cubin(buf, len) || cubin_parse(buf, len, "cubin", &c, NULL)) {
		cubin_clear(&c);
		return;
	}
	for (i = 0; i < c.n_texts; i++) {
		if (c.texts[i].data < buf || c.texts[i].size > len ||
		    (size_t)(c.texts[i].data - buf) > len - c.texts[i].size)
			fuzz_fail("cubin: code section %zu lies outside the input", i);
	}
	for (i = 0; i < c.n_funcs; i++) {
		const struct cubin_func *f = &c.funcs[i];

		if (f->text >= c.n_texts || f->offset >= c.texts[f->text].size ||
		    f->size > c.texts[f->text].size - f->offset)
			fuzz_fail("cubin: function %zu lies outside its code section", i);
		if (i && (c.funcs[i - 1].text > f->text ||
			  (c.funcs[i - 1].text == f->text && c.funcs[i - 1].offset > f->offset)))
			fuzz_fail("cubin: functions are not sorted by (section, offset)");
	}
	for (i = 0; i < c.n_relocs; i++) {
		if (c.relocs[i].text >= c.n_texts || c.relocs[i].func >= c.n_funcs)
			fuzz_fail("cubin: relocation %zu names no code section or function", i);
		if (i && (c.relocs[i - 1].text > c.relocs[i].text ||
			  (c.relocs[i - 1].text == c.relocs[i].text &&
			   c.relocs[i - 1].offset > c.relocs[i].offset)))
			fuzz_fail("cubin: relocations are not sorted");
	}
	cubin_clear(&c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fatbin_image *im = NULL, *im2 = NULL;
	size_t n = 0, n2 = 0, containers, i, len = 0;
	unsigned char *again;

	check_cubin(data, size);
	if (fatbin_scan(data, size, "fuzz", 0, &im, &n, &containers, NULL))
		return 0;
	if (n > size / 64 + 1)
		fuzz_fail("%zu images in %zu bytes: more than one per 64 bytes", n, size);
	for (i = 0; i < n; i++) {
		unsigned char *raw = NULL;
		size_t raw_len = 0;

		if (im[i].data < data || im[i].size > size ||
		    (size_t)(im[i].data - data) > size - im[i].size ||
		    (size_t)(im[i].data - data) != im[i].offset)
			fuzz_fail("image %zu lies outside the input", i);
		if (im[i].container >= containers)
			fuzz_fail("image %zu: container %zu of %zu", i, im[i].container, containers);
		if (im[i].raw_size > EXTRACT_MAX ||
		    fatbin_extract(&im[i], "fuzz", &raw, &raw_len, NULL))
			continue;
		if (raw_len != im[i].raw_size ||
		    (im[i].codec == FATBIN_RAW && memcmp(raw, im[i].data, raw_len) != 0))
			fuzz_fail("image %zu extracts to other bytes", i);
		if (im[i].kind == FATBIN_ELF)
			check_cubin(raw, raw_len);
		free(raw);
	}
	/* The images, written into one container, scan back as themselves. */
	again = n ? write_fatbin(im, n, &len) : NULL;
	if (again) {
		if (fatbin_scan(again, len, "rewritten", 0, &im2, &n2, &containers, NULL))
			fuzz_fail("the images found, written as a fatbin, do not scan");
		if (n2 != n)
			fuzz_fail("%zu images written, %zu found", n, n2);
		for (i = 0; i < n; i++) {
			if (im2[i].kind != im[i].kind || im2[i].arch != im[i].arch ||
			    im2[i].codec != im[i].codec || im2[i].size != im[i].size ||
			    im2[i].raw_size != im[i].raw_size ||
			    memcmp(im2[i].data, im[i].data, im[i].size) != 0)
				fuzz_fail("image %zu differs once written and scanned again", i);
		}
	}
	free(again);
	free(im);
	free(im2);
	return 0;
}
