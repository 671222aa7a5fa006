/* SPDX-License-Identifier: MIT */
/*
 * SASS analysis (include/gpuproj/sass.h, src/sass*.c).
 *
 * Part 1, no CUDA tools needed: fatbin / host-ELF / cubin parsing of
 * synthetic inputs built here byte by byte, truncated and corrupted inputs
 * (GPUPROJ_E_PARSE with an offset, never a crash), block analysis of
 * hand-written nvdisasm text, and the message when nvdisasm is missing.
 *
 * Part 2, on fixtures that meson compiles from tests/sass/kernels.cu with
 * nvcc (GPUPROJ_SASS_FIXTURES; skipped with a message when nvcc or nvdisasm
 * is missing): the parser finds every kernel × architecture in cubins, a
 * fatbin, an executable, an -rdc object and LZ4/Zstandard-compressed
 * fatbins; PTX-only input is compiled with nvJitLink (or ptxas); the counts
 * per kernel and architecture are the ones read by hand from the SASS; the
 * plain FMA kernel has ratio exactly 1; k_h2div's ratio is 12/11.
 *
 * CUDA 13 (nvcc 13.0) no longer compiles for sm_70, so the nvcc fixtures
 * are sm_75, sm_80 and sm_90.
 *
 * Part 3, sm_70 (V100, the seed paper's source GPU): kernels.cu compiled by
 * NVRTC 12.9 (the CUDA 12 compiler front end, from NVIDIA's wheel: "with
 * nvcc" is not possible for sm_70 with CUDA 13) for sm_70, sm_80 and sm_90
 * (GPUPROJ_SASS_RTC_FIXTURES), the sm_70 code disassembled with a legacy
 * nvdisasm (11.8): counts read by hand, sm_70 → sm_80 / sm_90 ratios,
 * compute_70 PTX through a legacy ptxas, and the message when no nvdisasm
 * can disassemble sm_70. Skipped with the reason when NVRTC 12 or the
 * legacy nvdisasm is missing; a different NVRTC version fails.
 */
#include "config.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuproj/sass.h>

#include "common.h"
#include "sass/sass-fatbin.h"
#include "sass/sass-private.h"
#include "util.h"

#define HOWTO "install the CUDA toolkit's nvdisasm or `pip install nvidia-cuda-nvdisasm`"

/* ---- building binaries byte by byte ---- */

struct bytes {
	unsigned char *p;
	size_t len, cap;
};

static void
put(struct bytes *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	if (data)
		memcpy(b->p + b->len, data, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static void
put_le(struct bytes *b, uint64_t v, size_t n)
{
	unsigned char le[8];

	for (size_t i = 0; i < n; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	put(b, le, n);
}

static void
set_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void
align(struct bytes *b, size_t a)
{
	while (b->len % a)
		put(b, NULL, 1);
}

/* One fatbin entry: 64-byte header + payload padded to 8. */
static void
fatbin_entry(struct bytes *b, int kind, int arch, uint64_t flags, const void *payload,
	     size_t n, size_t raw_size)
{
	size_t padded = (n + 7) & ~(size_t)7;
	bool compressed = flags & 0xa000;

	put_le(b, (uint64_t)kind, 2);
	put_le(b, 0x0101, 2);
	put_le(b, 64, 4);
	put_le(b, padded, 8);
	put_le(b, compressed ? n : 0, 4);
	put_le(b, kind == FATBIN_PTX ? 64 : 0, 4);
	put_le(b, kind == FATBIN_PTX ? 0 : 8, 2);
	put_le(b, kind == FATBIN_PTX ? 9 : 1, 2);
	put_le(b, (uint64_t)arch, 4);
	put_le(b, 0, 4);
	put_le(b, 0, 4);
	put_le(b, flags, 8);
	put_le(b, 0, 8);
	put_le(b, compressed ? raw_size : 0, 8);
	put(b, payload, n);
	put(b, NULL, padded - n);
}

/* A container wrapping entries already in `e`. */
static void
fatbin_container(struct bytes *b, const struct bytes *e)
{
	put_le(b, 0xBA55ED50u, 4);
	put_le(b, 1, 2);
	put_le(b, 16, 2);
	put_le(b, e->len, 8);
	put(b, e->p, e->len);
}

static const char ptx_text[] = "//\n.version 9.0\n.target sm_80\n.address_size 64\n";

/*
 * Two containers: [ELF sm_80, PTX compute_80] and [ELF sm_90]. The ELF
 * payloads are the synthetic cubin when given, else 24 bytes of filler.
 */
static struct bytes
synthetic_fatbin(const struct bytes *cubin)
{
	static const unsigned char filler[24] = { 0x7f, 'E', 'L', 'F' };
	struct bytes e1 = { 0 }, e2 = { 0 }, out = { 0 };
	const void *elf = cubin ? cubin->p : filler;
	size_t elf_len = cubin ? cubin->len : sizeof(filler);

	fatbin_entry(&e1, FATBIN_ELF, 80, 0x11, elf, elf_len, 0);
	fatbin_entry(&e1, FATBIN_PTX, 80, 0x11, ptx_text, sizeof(ptx_text), 0);
	fatbin_entry(&e2, FATBIN_ELF, 90, 0x11, elf, elf_len, 0);
	fatbin_container(&out, &e1);
	fatbin_container(&out, &e2);
	free(e1.p);
	free(e2.p);
	return out;
}

/* ELF64 section header. */
static void
shdr(struct bytes *b, uint32_t name, uint32_t type, uint64_t flags, uint64_t off, uint64_t size,
     uint32_t link, uint32_t info, uint64_t entsize)
{
	put_le(b, name, 4);
	put_le(b, type, 4);
	put_le(b, flags, 8);
	put_le(b, 0, 8);
	put_le(b, off, 8);
	put_le(b, size, 8);
	put_le(b, link, 4);
	put_le(b, info, 4);
	put_le(b, 8, 8);
	put_le(b, entsize, 8);
}

static void
elf_header(struct bytes *b, uint16_t type, uint16_t machine, uint32_t flags, unsigned abiver)
{
	static const unsigned char ident[8] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0x41 };

	put(b, ident, 8);
	put_le(b, abiver, 1);
	put(b, NULL, 7);
	put_le(b, type, 2);
	put_le(b, machine, 2);
	put_le(b, 1, 4);
	put_le(b, 0, 8);
	put_le(b, 0, 8);
	put_le(b, 0, 8);  /* e_shoff, patched */
	put_le(b, flags, 4);
	put_le(b, 64, 2);
	put_le(b, 0, 2);
	put_le(b, 0, 2);
	put_le(b, 64, 2);
	put_le(b, 0, 2);  /* e_shnum, patched */
	put_le(b, 1, 2);  /* e_shstrndx */
}

/* A host ELF with one .nv_fatbin section holding `fb`. */
static struct bytes
synthetic_host_elf(const struct bytes *fb)
{
	static const char names[] = "\0.shstrtab\0.nv_fatbin\0.text\0";
	struct bytes b = { 0 };
	size_t names_off, fb_off, sh_off;

	elf_header(&b, 3, 62, 0, 0);
	names_off = b.len;
	put(&b, names, sizeof(names));
	align(&b, 8);
	fb_off = b.len;
	put(&b, fb->p, fb->len);
	align(&b, 8);
	sh_off = b.len;
	shdr(&b, 0, 0, 0, 0, 0, 0, 0, 0);
	shdr(&b, 1, 3, 0, names_off, sizeof(names), 0, 0, 0);
	shdr(&b, 11, 1, 2, fb_off, fb->len, 0, 0, 0);
	shdr(&b, 22, 1, 6, 0, 0, 0, 0, 0);
	set_le(b.p + 40, sh_off, 8);
	set_le(b.p + 60, 4, 2);
	return b;
}

#define K_TEXT_SIZE 0x140
#define K2_TEXT_SIZE 0x40
#define SLOW_NAME "$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath"

/*
 * A cubin (sm_80, CUDA 13 e_flags) with two code sections: .text.k (kernel
 * k at 0, slow path at 0x100) and .text.k2 (kernel k2). The code bytes are
 * zeros: sass_analyze_text() gets the disassembly from the test.
 */
static struct bytes
synthetic_cubin(void)
{
	static const char names[] = "\0.shstrtab\0.strtab\0.symtab\0.text.k\0.text.k2\0";
	static const char strtab[] = "\0k\0k2\0" SLOW_NAME "\0";
	struct bytes b = { 0 };
	size_t names_off, str_off, sym_off, text_off, text2_off, sh_off;

	elf_header(&b, 2, 190, 0x6005004, 8);
	names_off = b.len;
	put(&b, names, sizeof(names));
	str_off = b.len;
	put(&b, strtab, sizeof(strtab));
	align(&b, 8);
	sym_off = b.len;
	put(&b, NULL, 24);                         /* null symbol */
	put_le(&b, 1, 4);                          /* k */
	put_le(&b, 0x12, 1);                       /* GLOBAL FUNC */
	put_le(&b, 0x10, 1);                       /* STO_CUDA_ENTRY */
	put_le(&b, 4, 2);
	put_le(&b, 0, 8);
	put_le(&b, 0x100, 8);
	put_le(&b, 3, 4);                          /* k2 */
	put_le(&b, 0x12, 1);
	put_le(&b, 0x10, 1);
	put_le(&b, 5, 2);
	put_le(&b, 0, 8);
	put_le(&b, K2_TEXT_SIZE, 8);
	put_le(&b, 6, 4);                          /* slow path */
	put_le(&b, 0x22, 1);                       /* WEAK FUNC */
	put_le(&b, 0, 1);
	put_le(&b, 4, 2);
	put_le(&b, 0x100, 8);
	put_le(&b, 0x40, 8);
	align(&b, 128);
	text_off = b.len;
	put(&b, NULL, K_TEXT_SIZE);
	text2_off = b.len;
	put(&b, NULL, K2_TEXT_SIZE);
	sh_off = b.len;
	shdr(&b, 0, 0, 0, 0, 0, 0, 0, 0);
	shdr(&b, 1, 3, 0, names_off, sizeof(names), 0, 0, 0);
	shdr(&b, 11, 3, 0, str_off, sizeof(strtab), 0, 0, 0);
	shdr(&b, 19, 2, 0, sym_off, 4 * 24, 2, 1, 24);
	shdr(&b, 27, 1, 6, text_off, K_TEXT_SIZE, 0, 0, 0);
	shdr(&b, 35, 1, 6, text2_off, K2_TEXT_SIZE, 0, 0, 0);
	set_le(b.p + 40, sh_off, 8);
	set_le(b.p + 60, 6, 2);
	return b;
}

/* ---- part 1: no tools ---- */

START_TEST(op_table)
{
	ck_assert_str_eq(gpuproj_sass_op_name(GPUPROJ_SASS_FFMA), "FFMA");
	ck_assert_str_eq(gpuproj_sass_op_name(GPUPROJ_SASS_MUFU_RCP64H), "MUFU.RCP64H");
	ck_assert_ptr_null(gpuproj_sass_op_name(GPUPROJ_SASS_OP_COUNT));
	ck_assert_int_eq(gpuproj_sass_op_flop(GPUPROJ_SASS_FFMA), 2);
	ck_assert_int_eq(gpuproj_sass_op_flop(GPUPROJ_SASS_DFMA), 2);
	ck_assert_int_eq(gpuproj_sass_op_flop(GPUPROJ_SASS_HFMA2), 2);
	ck_assert_int_eq(gpuproj_sass_op_flop(GPUPROJ_SASS_FADD), 1);
	ck_assert_int_eq(gpuproj_sass_op_flop(GPUPROJ_SASS_DMUL), 1);
	ck_assert_int_eq(gpuproj_sass_op_flop(GPUPROJ_SASS_MUFU_RCP), 0);
	ck_assert_int_eq(gpuproj_sass_op_flop(GPUPROJ_SASS_HMOV), 0);
	ck_assert_int_eq(gpuproj_sass_op_flop(GPUPROJ_SASS_FCHK), 0);
}
END_TEST

START_TEST(arch_names)
{
	int v = 0;

	ck_assert(sass_parse_arch("sm_90", &v) && v == 90);
	ck_assert(sass_parse_arch("sm_90a", &v) && v == 90);
	ck_assert(sass_parse_arch("SM100", &v) && v == 100);
	ck_assert(sass_parse_arch("75", &v) && v == 75);
	ck_assert(!sass_parse_arch("sm_", &v));
	ck_assert(!sass_parse_arch("gfx942", &v));
	ck_assert(!sass_parse_arch("sm_9x", &v));
	ck_assert(!sass_parse_arch(NULL, &v));
}
END_TEST

START_TEST(synthetic_fatbin_and_elf)
{
	struct bytes fb = synthetic_fatbin(NULL), elf = synthetic_host_elf(&fb);
	struct fatbin_image *im = NULL;
	struct gpuproj_error err = { 0 };
	unsigned char *out;
	size_t n = 0, next = 0, len;

	ck_assert_int_eq(fatbin_scan(fb.p, fb.len, "t.fatbin", 3, &im, &n, &next, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(next, 5);
	ck_assert_int_eq(im[0].kind, FATBIN_ELF);
	ck_assert_int_eq(im[0].arch, 80);
	ck_assert_uint_eq(im[0].container, 3);
	ck_assert_int_eq(im[1].kind, FATBIN_PTX);
	ck_assert_int_eq(im[1].codec, FATBIN_RAW);
	ck_assert_int_eq(im[2].arch, 90);
	ck_assert_uint_eq(im[2].container, 4);
	ck_assert_str_eq(im[2].where, "fatbin");
	ck_assert_int_eq(fatbin_extract(&im[1], "t", &out, &len, &err), 0);
	ck_assert_str_eq((char *)out, ptx_text);
	free(out);
	free(im);

	ck_assert_int_eq(fatbin_scan(elf.p, elf.len, "t.elf", 0, &im, &n, &next, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(im[0].where, ".nv_fatbin");
	ck_assert_int_eq(im[2].arch, 90);
	free(im);

	/* Not a CUDA binary at all. */
	ck_assert_int_eq(fatbin_scan((const unsigned char *)"hello, world", 12, "t.txt", 0,
				     &im, &n, &next, &err), GPUPROJ_E_UNSUPPORTED);
	free(fb.p);
	free(elf.p);
}
END_TEST

START_TEST(synthetic_cubin_parse)
{
	struct bytes cb = synthetic_cubin();
	struct cubin c;
	struct gpuproj_error err = { 0 };
	struct fatbin_image *im = NULL;
	size_t n = 0, next = 0;

	ck_assert_int_eq(cubin_parse(cb.p, cb.len, "t.cubin", &c, &err), 0);
	ck_assert_int_eq(c.arch, 80);
	ck_assert(!c.relocatable);
	ck_assert_uint_eq(c.n_texts, 2);
	ck_assert_str_eq(c.texts[0].name, ".text.k");
	ck_assert_uint_eq(c.texts[0].size, K_TEXT_SIZE);
	ck_assert_uint_eq(c.n_funcs, 3);
	ck_assert_str_eq(c.funcs[0].name, "k");
	ck_assert(c.funcs[0].entry);
	ck_assert_str_eq(c.funcs[1].name, SLOW_NAME);
	ck_assert(!c.funcs[1].entry);
	ck_assert_uint_eq(c.funcs[1].offset, 0x100);
	ck_assert_str_eq(c.funcs[2].name, "k2");
	ck_assert_uint_eq(c.funcs[2].text, 1);
	cubin_clear(&c);
	/* A bare cubin is one image; arch from e_flags bits 8-15 (ABI version 8). */
	ck_assert_int_eq(fatbin_scan(cb.p, cb.len, "t.cubin", 0, &im, &n, &next, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(im[0].arch, 80);
	ck_assert_str_eq(im[0].where, "cubin");
	free(im);
	/* Older toolkits: ABI version 7, arch in bits 0-7 (0x500550 = sm_80). */
	cb.p[8] = 7;
	set_le(cb.p + 48, 0x500550, 4);
	ck_assert_int_eq(cubin_parse(cb.p, cb.len, "t.cubin", &c, &err), 0);
	ck_assert_int_eq(c.arch, 80);
	cubin_clear(&c);
	free(cb.p);

	/*
	 * e_shoff 0 ("no section headers") with a large e_shnum: no section is
	 * read (a 64-byte buffer has none; reading them would overrun it).
	 */
	{
		struct bytes h = { 0 };
		unsigned char *exact;

		elf_header(&h, 2, 190, 0x6005004, 8);
		set_le(h.p + 60, 1000, 2);
		ck_assert_uint_eq(h.len, 64);
		exact = malloc(h.len); /* exactly 64 bytes, so an overrun is caught */
		ck_assert_ptr_nonnull(exact);
		memcpy(exact, h.p, h.len);
		ck_assert_int_eq(cubin_parse(exact, h.len, "t.cubin", &c, &err), 0);
		ck_assert_uint_eq(c.n_texts, 0);
		cubin_clear(&c);
		set_le(exact + 18, 62, 2); /* a host ELF (x86-64) */
		ck_assert_int_eq(fatbin_scan(exact, h.len, "t.o", 0, &im, &n, &next, &err), 0);
		ck_assert_uint_eq(n, 0);
		free(im);
		free(exact);
		free(h.p);
	}
}
END_TEST

/* Status of scanning (and extracting, and parsing cubins in) one input. */
static int
scan_everything(const unsigned char *p, size_t n, struct gpuproj_error *err)
{
	struct fatbin_image *im = NULL;
	size_t ni = 0, next = 0, i;
	int r = fatbin_scan(p, n, "x", 0, &im, &ni, &next, err);

	for (i = 0; r == GPUPROJ_OK && i < ni; i++) {
		unsigned char *out = NULL;
		size_t len = 0;
		struct cubin c;

		r = fatbin_extract(&im[i], "x", &out, &len, err);
		if (r == GPUPROJ_OK && im[i].kind == FATBIN_ELF && cubin_is_cubin(out, len)) {
			r = cubin_parse(out, len, "x", &c, err);
			cubin_clear(&c);
		}
		free(out);
	}
	free(im);
	return r;
}

/* Every truncation and many byte changes: OK, PARSE or UNSUPPORTED, never a crash. */
static void
fuzz(const unsigned char *p, size_t n, size_t step, bool truncation_is_error)
{
	unsigned char *copy = malloc(n);
	static const unsigned char vals[] = { 0x00, 0xff, 0x7f, 0x80, 0x01, 0x40 };
	struct gpuproj_error err;
	size_t cut, i, v;
	int r;

	ck_assert_ptr_nonnull(copy);
	for (cut = 0; cut < n; cut += cut < 512 ? 1 : step) {
		memcpy(copy, p, cut);
		memset(&err, 0, sizeof(err));
		r = scan_everything(copy, cut, &err);
		ck_assert_msg(r == GPUPROJ_OK || r == GPUPROJ_E_PARSE || r == GPUPROJ_E_UNSUPPORTED,
			      "truncated at %zu: status %d", cut, r);
		if (truncation_is_error && cut >= 16 && r != GPUPROJ_E_UNSUPPORTED) {
			ck_assert_msg(r == GPUPROJ_E_PARSE, "truncated at %zu: status %d", cut, r);
			ck_assert_msg(strstr(err.message, "offset 0x"), "%s", err.message);
		}
	}
	for (i = 0; i < n; i += i < 4096 ? 1 : step) {
		for (v = 0; v < sizeof(vals); v++) {
			memcpy(copy, p, n);
			copy[i] ^= vals[v] ? vals[v] : copy[i];
			memset(&err, 0, sizeof(err));
			r = scan_everything(copy, n, &err);
			ck_assert_msg(r == GPUPROJ_OK || r == GPUPROJ_E_PARSE ||
				      r == GPUPROJ_E_UNSUPPORTED || r == GPUPROJ_E_NOMEM,
				      "byte %zu ^ %#x: status %d", i, vals[v], r);
			if (r == GPUPROJ_E_PARSE)
				ck_assert_msg(strstr(err.message, "offset 0x"), "%s", err.message);
		}
	}
	free(copy);
}

START_TEST(synthetic_truncated_and_corrupted)
{
	struct bytes cb = synthetic_cubin(), fb = synthetic_fatbin(&cb), elf = synthetic_host_elf(&fb);
	struct gpuproj_error err = { 0 };
	unsigned char *p;

	fuzz(fb.p, fb.len, 7, true);
	fuzz(elf.p, elf.len, 7, false);
	fuzz(cb.p, cb.len, 3, false);

	/* Precise offsets: entry header size of the first entry (at 16 + 4). */
	p = malloc(fb.len);
	memcpy(p, fb.p, fb.len);
	set_le(p + 20, 8, 4);
	ck_assert_int_eq(scan_everything(p, fb.len, &err), GPUPROJ_E_PARSE);
	ck_assert_str_eq(err.message, "offset 0x14: bad fatbin entry header size");
	/* A container claiming more bytes than the file has. */
	memcpy(p, fb.p, fb.len);
	set_le(p + 8, fb.len, 8);
	ck_assert_int_eq(scan_everything(p, fb.len, &err), GPUPROJ_E_PARSE);
	ck_assert_str_eq(err.message, "offset 0x8: fatbin container runs past the end of its data");
	/* Both compression flags. */
	memcpy(p, fb.p, fb.len);
	set_le(p + 16 + 40, 0xa011, 8);
	ck_assert_int_eq(scan_everything(p, fb.len, &err), GPUPROJ_E_PARSE);
	ck_assert_str_eq(err.message, "offset 0x38: fatbin entry flags both LZ4 and Zstandard "
			 "compression");
	/* A Zstandard entry whose data is not Zstandard. */
	memcpy(p, fb.p, fb.len);
	set_le(p + 16 + 40, 0x8011, 8);
	set_le(p + 16 + 16, 24, 4);
	set_le(p + 16 + 56, 4096, 8);
	ck_assert_int_eq(scan_everything(p, fb.len, &err),
			 fatbin_codec_supported(FATBIN_ZSTD) ? GPUPROJ_E_PARSE
							     : GPUPROJ_E_UNSUPPORTED);
	free(p);
	free(cb.p);
	free(fb.p);
	free(elf.p);
}
END_TEST

/*
 * nvdisasm -b SM80 text for the synthetic cubin: .text.k at 0 (a division
 * with its BSSY region and a call to the slow path at 0x100), .text.k2 at
 * 0x140 (one FFMA).
 */
static const char disasm_text[] =
	"\t.headerflags\t@\"EF_CUDA_SM80\"\n"
	"        /*0000*/                   LDG.E R4, [R4.64] ;\n"
	"        /*0010*/                   BSSY B0, 0xa0 ;\n"
	"        /*0020*/                   MUFU.RCP R9, R4 ;\n"
	"        /*0030*/                   FCHK P0, R7, R4 ;\n"
	"        /*0040*/                   FFMA R0, -R4, R9, 1 ;\n"
	"        /*0050*/                   FFMA R9, R7, R0, RZ ;\n"
	"        /*0060*/              @!P0 BRA 0x90 ;\n"
	"        /*0070*/                   MOV R0, 0x90 ;\n"
	"        /*0080*/                   CALL.REL.NOINC 0x100 ;\n"
	"        /*0090*/                   BSYNC B0 ;\n"
	"        /*00a0*/                   FADD R1, R2, R3 ;\n"
	"        /*00b0*/                   HFMA2.MMA R3, -RZ, RZ, 0, 2.384185791015625e-07 ;\n"
	"        /*00c0*/                   DMUL R4, R4, R6 ;\n"
	"        /*00d0*/                   EXIT ;\n"
	"        /*00e0*/                   BRA 0xe0;\n"
	"        /*00f0*/                   NOP;\n"
	"        /*0100*/                   FFMA R5, R0, 2, RZ ;\n"
	"        /*0110*/                   FADD.FTZ R7, -R9, -RZ ;\n"
	"        /*0120*/                   MUFU.RCP R4, R9 ;\n"
	"        /*0130*/                   RET.REL.NODEC R4 0x0 ;\n"
	"        /*0140*/                   FFMA R1, R2, R3, R4 ;\n"
	"        /*0150*/                   HADD2.F32 R8, R0.H1_H1, -RZ.H0_H0 ;\n"
	"        /*0160*/                   HFMA2 R2, R4, R5, R6 ;\n"
	"        /*0170*/                   EXIT ;\n";

START_TEST(blocks_from_text)
{
	struct bytes cb = synthetic_cubin();
	struct cubin c;
	struct sass_section sec[2] = { 0 };
	struct gpuproj_error err = { 0 };
	const struct sass_func_out *by_func[3] = { NULL };
	struct sass_kernel_out ko;
	const struct sass_kernel_out *k = &ko;
	size_t i, j;

	ck_assert_int_eq(cubin_parse(cb.p, cb.len, "t.cubin", &c, &err), 0);
	sec[0].cubin = &c;
	sec[0].text = 0;
	sec[0].base = 0;
	sec[1].cubin = &c;
	sec[1].text = 1;
	sec[1].base = K_TEXT_SIZE;
	ck_assert_int_eq(sass_analyze_text(disasm_text, strlen(disasm_text), sec, 2, &err), 0);
	/* Per function: k and the slow path in .text.k, k2 in .text.k2. */
	ck_assert_uint_eq(sec[0].n_funcs, 2);
	ck_assert_uint_eq(sec[1].n_funcs, 1);
	ck_assert(!sec[0].funcs[0].slow);
	ck_assert(sec[0].funcs[1].slow);
	ck_assert_uint_eq(sec[0].funcs[0].n_calls, 1);
	ck_assert_uint_eq(sec[0].funcs[0].calls[0], 1);   /* cubin function 1: the slow path */
	for (i = 0; i < 2; i++) {
		for (j = 0; j < sec[i].n_funcs; j++)
			by_func[sec[i].funcs[j].func] = &sec[i].funcs[j];
	}
	ck_assert_int_eq(sass_kernel_totals(&c, by_func, 0, &ko), 0);
	ck_assert_str_eq(k->name, "k");
	/*
	 * Blocks of k: [0x00-0x60] (MUFU: special), [0x70-0x80] and [0x90] (in
	 * the BSSY region around the slow-path call: special), [0xa0-0xd0],
	 * [0xe0], [0xf0]; the slow path [0x100-0x130].
	 */
	ck_assert_uint_eq(k->all.blocks, 6);
	ck_assert_uint_eq(k->special.blocks, 3);
	ck_assert_uint_eq(k->slow.blocks, 1);
	ck_assert_uint_eq(k->all.n[GPUPROJ_SASS_FFMA], 2);
	ck_assert_uint_eq(k->all.n[GPUPROJ_SASS_FADD], 1);
	ck_assert_uint_eq(k->all.n[GPUPROJ_SASS_DMUL], 1);
	ck_assert_uint_eq(k->all.n[GPUPROJ_SASS_HMOV], 1);
	ck_assert_uint_eq(k->all.n[GPUPROJ_SASS_HFMA2], 0);
	ck_assert_double_eq(k->all.flop, 6);       /* 2 FFMA + FADD + DMUL */
	ck_assert_uint_eq(k->special.n[GPUPROJ_SASS_FFMA], 2);
	ck_assert_uint_eq(k->special.n[GPUPROJ_SASS_MUFU_RCP], 1);
	ck_assert_uint_eq(k->special.n[GPUPROJ_SASS_FCHK], 1);
	ck_assert_double_eq(k->special.flop, 4);
	ck_assert_double_eq(k->slow.flop, 3);      /* FFMA + FADD */
	ck_assert_uint_eq(k->special_ops, (1u << GPUPROJ_SASS_MUFU_RCP) | (1u << GPUPROJ_SASS_FCHK));
	ck_assert_uint_eq(k->n_slow_paths, 1);
	ck_assert_str_eq(k->slow_paths[0], "div_rn_noftz_f32_slowpath");
	sass_kernel_out_clear(&ko);

	ck_assert_int_eq(sass_kernel_totals(&c, by_func, 2, &ko), 0);
	ck_assert_str_eq(k->name, "k2");
	/* HADD2.F32 with -RZ is a half-to-float conversion, not a FLOP. */
	ck_assert_uint_eq(k->all.n[GPUPROJ_SASS_HADD2], 0);
	ck_assert_uint_eq(k->all.n[GPUPROJ_SASS_FP_OTHER], 1);
	ck_assert_uint_eq(k->all.n[GPUPROJ_SASS_HFMA2], 1);
	ck_assert_double_eq(k->all.flop, 4);
	ck_assert_uint_eq(k->special.blocks, 0);
	sass_kernel_out_clear(&ko);
	for (i = 0; i < 2; i++)
		sass_section_clear(&sec[i]);

	/* Addresses that go backwards are nvdisasm output we do not understand. */
	ck_assert_int_eq(sass_analyze_text("  /*0010*/ FFMA R1, R2, R3, R4 ;\n"
					   "  /*0000*/ EXIT ;\n", 52, sec, 2, &err),
			 GPUPROJ_E_BACKEND);
	ck_assert_ptr_nonnull(strstr(err.message, "backwards"));
	/* An address beyond 64 bits, after an instruction was collected: nothing leaks. */
	{
		static const char big[] = "  /*0000*/ FFMA R1, R2, R3, R4 ;\n"
					  "  /*12345678901234567*/ EXIT ;\n";

		ck_assert_int_eq(sass_analyze_text(big, strlen(big), sec, 2, &err),
				 GPUPROJ_E_BACKEND);
		ck_assert_str_eq(err.message, "address out of range");
		ck_assert_int_eq(err.line, 2);
		ck_assert_uint_eq(sec[0].n_funcs, 0);
	}
	ck_assert_int_eq(sass_analyze_text("nothing\n", 8, sec, 2, &err), GPUPROJ_E_BACKEND);
	cubin_clear(&c);
	free(cb.p);
}
END_TEST

/* Run gpuproj with arguments, after an environment prefix ("" or "VAR=x env -u Y …"). */
#define run(out, err, env, ...) test_cli_at(NULL, env, out, err, __VA_ARGS__)

/*
 * sass_tool_supports() caches the --help of the last 8 tool paths in a ring:
 * after more than 8 distinct paths, lookups stay inside the ring. A path
 * that cannot run lists nothing, so every architecture is "supported".
 */
START_TEST(tool_caps_cache)
{
	char path[64];
	int i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 12; i++) {
			snprintf(path, sizeof(path), "/nonexistent/tool-%d", i);
			ck_assert(sass_tool_supports(path, SASS_NVDISASM, 70));
		}
	}
}
END_TEST

START_TEST(nvdisasm_missing)
{
	struct bytes fb = synthetic_fatbin(NULL);
	char *dir = test_tmpdir(), *path, *out, *err, *p = NULL;
	struct gpuproj_error e = { 0 };
	const char *saved = getenv("GPUPROJ_NVDISASM");
	char *saved_copy = saved ? strdup(saved) : NULL;
	FILE *f;

	ck_assert_int_gt(asprintf(&path, "%s/t.fatbin", dir), 0);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(fb.p, 1, fb.len, f), fb.len);
	fclose(f);

	setenv("GPUPROJ_NVDISASM", "/nonexistent", 1);
	ck_assert_int_eq(gpuproj_sass_find_nvdisasm(&p, &e), GPUPROJ_E_MISSING);
	ck_assert_str_eq(e.message, "GPUPROJ_NVDISASM=/nonexistent is not an executable file: "
			 HOWTO ", or unset GPUPROJ_NVDISASM");
	if (saved_copy)
		setenv("GPUPROJ_NVDISASM", saved_copy, 1);
	else
		unsetenv("GPUPROJ_NVDISASM");

	ck_assert_int_eq(run(&out, &err, "GPUPROJ_NVDISASM=/nonexistent PATH=/nonexistent",
			     "sass '%s'", path), 2);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(err, "gpuproj: GPUPROJ_NVDISASM=/nonexistent is not an executable file: "
			 HOWTO ", or unset GPUPROJ_NVDISASM\n");
	free(out);
	free(err);
	/* Nothing anywhere: PATH without it (nor python3), no CUDA_HOME. */
	if (access("/usr/local/cuda/bin/nvdisasm", X_OK) == 0) {
		test_skip("/usr/local/cuda/bin/nvdisasm exists: cannot hide it");
	} else {
		ck_assert_int_eq(run(&out, &err, "env -u GPUPROJ_NVDISASM PATH=/nonexistent "
				     "CUDA_HOME=/nonexistent CUDA_PATH=", "sass '%s'", path), 2);
		ck_assert_str_eq(err, "gpuproj: nvdisasm not found (searched $GPUPROJ_NVDISASM, "
				 "PATH, $CUDA_HOME/bin, /usr/local/cuda/bin and python3's nvidia "
				 "package): " HOWTO "\n");
		free(out);
		free(err);
	}
	free(saved_copy);
	free(path);
	free(fb.p);
	test_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(cli_usage)
{
	char *out, *err;

	ck_assert_int_eq(run(&out, &err, "", "sass --help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: gpuproj sass"));
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "", "sass"), 2);
	ck_assert_ptr_nonnull(strstr(err, "missing FILE"));
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "", "sass --arch 90 x"), 2);
	ck_assert_ptr_nonnull(strstr(err, "--arch needs sm_XY"));
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "", "sass --slow-path-weight 2 x"), 2);
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "", "sass /nonexistent.cubin"), 2);
	ck_assert_str_eq(err, "gpuproj: /nonexistent.cubin: cannot open: No such file or directory\n");
	free(out);
	free(err);
}
END_TEST

/* ---- part 2: fixtures compiled by nvcc ---- */

static const char *
fixture(const char *name)
{
	static char buf[8][1024];
	static int slot;
	const char *dir = getenv("GPUPROJ_SASS_FIXTURES");
	char *p = buf[slot++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir ? dir : ".", name);
	return p;
}

/* Fixtures and nvdisasm present? Otherwise say why and skip. */
static bool
have_fixtures(void)
{
	const char *dir = getenv("GPUPROJ_SASS_FIXTURES");
	char *nvd = NULL;

	if (!dir || !*dir) {
		test_skip("nvcc not found at configure time: no SASS fixtures");
		return false;
	}
	if (gpuproj_sass_find_nvdisasm(&nvd, NULL) != GPUPROJ_OK) {
		test_skip("nvdisasm not found: " HOWTO);
		return false;
	}
	free(nvd);
	return true;
}

/* Whether this build decompresses what a fixture needs; says so when not. */
static bool
have_codec(enum fatbin_codec codec, const char *what)
{
	char msg[256];

	if (fatbin_codec_supported(codec))
		return true;
	snprintf(msg, sizeof(msg), "%s: gpuproj built without %s (install %s)", what,
		 codec == FATBIN_ZSTD ? "libzstd" : "liblz4",
		 codec == FATBIN_ZSTD ? "libzstd-dev" : "liblz4-dev");
	test_skip(msg);
	return false;
}

static const char *const kernel_names[] = {
	"k_ddiv", "k_dsqrt", "k_fdiv", "k_fdividef", "k_fexp", "k_ffma", "k_fintrin", "k_flog",
	"k_frsqrt", "k_fsincos", "k_fsqrt", "k_h2div",
};

START_TEST(fixture_images)
{
	static const struct {
		const char *file;
		const char *images;   /* "kind arch codec" per image, in order */
	} cases[] = {
		{ "kernels-sm75.cubin", "elf75raw" },
		{ "kernels.fatbin", "elf75raw elf80raw elf90raw ptx90zstd" },
		{ "kernels-ptx.fatbin", "ptx75zstd" },
		{ "kernels-lz4.fatbin", "elf80lz4 ptx80lz4" },
		{ "kernels-zstd.fatbin", "elf80zstd ptx80zstd" },
		{ "kernels-rdc.o", "elf80zstd ptx80zstd" },
	};
	size_t i;

	if (!have_fixtures())
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *buf = NULL, desc[512] = "";
		size_t len = 0, n = 0, next = 0, j, k, len_d = 0;
		struct fatbin_image *im = NULL;
		struct gpuproj_error err = { 0 };

		if ((strstr(cases[i].images, "zstd") && !have_codec(FATBIN_ZSTD, cases[i].file)) ||
		    (strstr(cases[i].images, "lz4") && !have_codec(FATBIN_LZ4, cases[i].file)))
			continue;
		ck_assert_msg(file_read_all(fixture(cases[i].file), &buf, &len, &err) == 0, "%s",
			      err.message);
		ck_assert_msg(fatbin_scan((unsigned char *)buf, len, cases[i].file, 0, &im, &n,
					  &next, &err) == 0, "%s: %s", cases[i].file, err.message);
		for (j = 0; j < n; j++) {
			unsigned char *out = NULL;
			size_t olen = 0;
			struct cubin c;

			len_d += (size_t)snprintf(desc + len_d, sizeof(desc) - len_d, "%s%s%d%s",
						  j ? " " : "", im[j].kind == FATBIN_ELF ? "elf" : "ptx",
						  im[j].arch, fatbin_codec_name(im[j].codec));
			ck_assert_msg(fatbin_extract(&im[j], cases[i].file, &out, &olen, &err) == 0,
				      "%s", err.message);
			if (im[j].kind == FATBIN_PTX) {
				ck_assert_ptr_nonnull(strstr((char *)out, ".target sm_"));
			} else {
				ck_assert_int_eq(cubin_parse(out, olen, cases[i].file, &c, &err), 0);
				ck_assert_int_eq(c.arch, im[j].arch);
				/* Every kernel is there, as a CUDA entry. */
				for (k = 0; k < sizeof(kernel_names) / sizeof(kernel_names[0]); k++) {
					size_t f;
					bool found = false;

					for (f = 0; f < c.n_funcs; f++)
						found |= c.funcs[f].entry &&
							 strcmp(c.funcs[f].name, kernel_names[k]) == 0;
					ck_assert_msg(found, "%s sm_%d: no %s", cases[i].file,
						      im[j].arch, kernel_names[k]);
				}
				cubin_clear(&c);
			}
			free(out);
		}
		ck_assert_msg(strcmp(desc, cases[i].images) == 0, "%s: images '%s', expected '%s'",
			      cases[i].file, desc, cases[i].images);
		free(im);
		free(buf);
	}
}
END_TEST

/*
 * Expected counts, read from `nvdisasm -c` of kernels-sm{75,80,90}.cubin
 * built by nvcc 13.0 (V13.0.88); another nvcc may change them, and then
 * this test fails naming both versions: re-derive them from the SASS.
 *
 * blocks, flop: { all, special, slow path }; ops: FP instructions of the
 * special blocks ("" = none); slow: slow-path subroutines.
 *
 * How the numbers come from the SASS (sm_80 shown; sm_75 and sm_90 agree
 * where the table says so):
 * - k_fdiv special block: MUFU.RCP R9, R4; FCHK P0, R7, R4; FFMA R0, -R4,
 *   R9, 1; FFMA R0, R9, R0, R9; FFMA R9, R7, R0, RZ; FFMA R6, -R4, R9, R7;
 *   FFMA R9, R0, R6, R9 → 5 FFMA = 10 FLOP; the BSSY region adds the call
 *   block (MOV R0, 0x170; CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_
 *   rn_noftz_f32_slowpath)) and the BSYNC block: 3 special blocks (sm_75
 *   and sm_90 split one more). Slow path: 12 FFMA (incl. FFMA.RZ/.RM/.RP)
 *   + 2 FADD.FTZ = 26 FLOP.
 * - k_fsqrt: MUFU.RSQ R5, R0 in the BSSY block; fast path FMUL.FTZ R7, R0,
 *   R5; FMUL.FTZ R5, R5, 0.5; FFMA R0, -R7, R7, R0; FFMA R5, R0, R5, R7 in
 *   a block of its own inside the region → 6 FLOP. Slow path
 *   sqrt_rn_f32_slowpath: 3 FFMA, 3 FMUL.FTZ, 2 FADD.FTZ = 11 FLOP.
 * - k_ddiv: MUFU.RCP64H R3, R7; DFMA ×7 (Newton: -R6·R2+1, R10·R10+R10,
 *   R2·R10+R2, -R6·R10+1, R10·R2+R10, -R6·R10+R8, R2·R12+R10), DMUL R10,
 *   R8, R2; FFMA R0, RZ, R7, R3 (range check) → 17 FLOP; slow path
 *   div_rn_f64_full = 24 FLOP.
 * - k_dsqrt: MUFU.RSQ64H, 5 DFMA, 3 DMUL → 13 FLOP; slow path
 *   dsqrt_rn_f64_mediumpath_v1 = 19 FLOP.
 * - k_frsqrt: MUFU.RSQ plus 2 FMUL (the ±2^24 scaling of denormals).
 * - k_fdividef (__fdividef): MUFU.RCP, 3 FMUL (two scale by 0.25 under a
 *   range check) → 3 FLOP.
 * - k_fexp (expf): FFMA.SAT, FFMA.RM, FADD, FFMA, FFMA, MUFU.EX2, FMUL in
 *   one block → 10 FLOP (the polynomial around ex2 shares the block).
 * - k_fintrin: MUFU.SIN, MUFU.COS, MUFU.EX2, MUFU.LG2 with their FMUL
 *   range scalings and the three FADDs of the sum.
 * - k_h2div: HADD2 R4, R0, R0 (the x + x), four HADD2.F32 conversions
 *   (not FLOP), 2 MUFU.RCP, 2 FMUL, 4 FFMA fix-ups → 11 FLOP; on sm_90 the
 *   x + x is HFMA2.MMA R4, R0, 1, 1, R0 (2 FLOP) → 12.
 * - k_ffma: one FFMA; k_flog, k_fsincos: libdevice polynomials, no MUFU,
 *   no special block (ordinary FFMA code in the PTX).
 */
static const struct expect {
	const char *kernel;
	int arch;
	unsigned blocks[3];
	double flop[3];
	const char *ops;
	const char *slow;
} expected[] = {
	{ "k_ddiv", 75, { 6, 4, 13 }, { 17, 17, 24 }, "FFMA=1 DFMA=7 DMUL=1 MUFU.RCP64H=1",
	  "div_rn_f64_full" },
	{ "k_ddiv", 80, { 6, 4, 14 }, { 17, 17, 24 }, "FFMA=1 DFMA=7 DMUL=1 MUFU.RCP64H=1",
	  "div_rn_f64_full" },
	{ "k_ddiv", 90, { 6, 4, 14 }, { 17, 17, 24 }, "FFMA=1 DFMA=7 DMUL=1 MUFU.RCP64H=1",
	  "div_rn_f64_full" },
	{ "k_dsqrt", 75, { 5, 3, 11 }, { 13, 13, 19 }, "DFMA=5 DMUL=3 MUFU.RSQ64H=1",
	  "dsqrt_rn_f64_mediumpath_v1" },
	{ "k_dsqrt", 80, { 5, 3, 11 }, { 13, 13, 19 }, "DFMA=5 DMUL=3 MUFU.RSQ64H=1",
	  "dsqrt_rn_f64_mediumpath_v1" },
	{ "k_dsqrt", 90, { 5, 3, 11 }, { 13, 13, 19 }, "DFMA=5 DMUL=3 MUFU.RSQ64H=1",
	  "dsqrt_rn_f64_mediumpath_v1" },
	{ "k_fdiv", 75, { 6, 4, 24 }, { 10, 10, 26 }, "FFMA=5 MUFU.RCP=1 FCHK=1",
	  "div_rn_noftz_f32_slowpath" },
	{ "k_fdiv", 80, { 5, 3, 24 }, { 10, 10, 26 }, "FFMA=5 MUFU.RCP=1 FCHK=1",
	  "div_rn_noftz_f32_slowpath" },
	{ "k_fdiv", 90, { 6, 4, 24 }, { 10, 10, 26 }, "FFMA=5 MUFU.RCP=1 FCHK=1",
	  "div_rn_noftz_f32_slowpath" },
	{ "k_fdividef", 75, { 4, 1, 0 }, { 3, 3, 0 }, "FMUL=3 MUFU.RCP=1", "" },
	{ "k_fdividef", 80, { 4, 1, 0 }, { 3, 3, 0 }, "FMUL=3 MUFU.RCP=1", "" },
	{ "k_fdividef", 90, { 4, 1, 0 }, { 3, 3, 0 }, "FMUL=3 MUFU.RCP=1", "" },
	{ "k_fexp", 75, { 4, 1, 0 }, { 10, 10, 0 }, "FFMA=4 FADD=1 FMUL=1 MUFU.EX2=1", "" },
	{ "k_fexp", 80, { 4, 1, 0 }, { 10, 10, 0 }, "FFMA=4 FADD=1 FMUL=1 MUFU.EX2=1", "" },
	{ "k_fexp", 90, { 4, 1, 0 }, { 10, 10, 0 }, "FFMA=4 FADD=1 FMUL=1 MUFU.EX2=1", "" },
	{ "k_ffma", 75, { 4, 0, 0 }, { 2, 0, 0 }, "", "" },
	{ "k_ffma", 80, { 4, 0, 0 }, { 2, 0, 0 }, "", "" },
	{ "k_ffma", 90, { 4, 0, 0 }, { 2, 0, 0 }, "", "" },
	{ "k_fintrin", 75, { 4, 1, 0 }, { 10, 10, 0 },
	  "FFMA=1 FADD=3 FMUL=5 MUFU.EX2=1 MUFU.LG2=1 MUFU.SIN=1 MUFU.COS=1", "" },
	{ "k_fintrin", 80, { 4, 1, 0 }, { 10, 10, 0 },
	  "FFMA=1 FADD=3 FMUL=5 MUFU.EX2=1 MUFU.LG2=1 MUFU.SIN=1 MUFU.COS=1", "" },
	{ "k_fintrin", 90, { 4, 1, 0 }, { 10, 10, 0 },
	  "FFMA=1 FADD=3 FMUL=5 MUFU.EX2=1 MUFU.LG2=1 MUFU.SIN=1 MUFU.COS=1", "" },
	{ "k_flog", 75, { 4, 0, 0 }, { 27, 0, 0 }, "", "" },
	{ "k_flog", 80, { 4, 0, 0 }, { 27, 0, 0 }, "", "" },
	{ "k_flog", 90, { 4, 0, 0 }, { 27, 0, 0 }, "", "" },
	{ "k_frsqrt", 75, { 3, 1, 0 }, { 2, 2, 0 }, "FMUL=2 MUFU.RSQ=1", "" },
	{ "k_frsqrt", 80, { 4, 1, 0 }, { 2, 2, 0 }, "FMUL=2 MUFU.RSQ=1", "" },
	{ "k_frsqrt", 90, { 4, 1, 0 }, { 2, 2, 0 }, "FMUL=2 MUFU.RSQ=1", "" },
	{ "k_fsincos", 75, { 18, 0, 0 }, { 38, 0, 0 }, "", "" },
	{ "k_fsincos", 80, { 18, 0, 0 }, { 38, 0, 0 }, "", "" },
	{ "k_fsincos", 90, { 18, 0, 0 }, { 38, 0, 0 }, "", "" },
	{ "k_fsqrt", 75, { 7, 5, 7 }, { 6, 6, 11 }, "FFMA=2 FMUL=2 MUFU.RSQ=1",
	  "sqrt_rn_f32_slowpath" },
	{ "k_fsqrt", 80, { 7, 5, 7 }, { 6, 6, 11 }, "FFMA=2 FMUL=2 MUFU.RSQ=1",
	  "sqrt_rn_f32_slowpath" },
	{ "k_fsqrt", 90, { 7, 5, 7 }, { 6, 6, 11 }, "FFMA=2 FMUL=2 MUFU.RSQ=1",
	  "sqrt_rn_f32_slowpath" },
	{ "k_h2div", 75, { 4, 1, 0 }, { 11, 11, 0 }, "FFMA=4 FMUL=2 HADD2=1 MUFU.RCP=2", "" },
	{ "k_h2div", 80, { 4, 1, 0 }, { 11, 11, 0 }, "FFMA=4 FMUL=2 HADD2=1 MUFU.RCP=2", "" },
	{ "k_h2div", 90, { 4, 1, 0 }, { 12, 12, 0 }, "FFMA=4 FMUL=2 HFMA2=1 MUFU.RCP=2", "" },
};

/* The special blocks' FP instructions as "FFMA=5 MUFU.RCP=1 FCHK=1". */
static void
ops_string(const struct gpuproj_sass_counts *c, char *buf, size_t size)
{
	static const int order[] = {
		GPUPROJ_SASS_FFMA, GPUPROJ_SASS_FADD, GPUPROJ_SASS_FMUL, GPUPROJ_SASS_DFMA,
		GPUPROJ_SASS_DADD, GPUPROJ_SASS_DMUL, GPUPROJ_SASS_HFMA2, GPUPROJ_SASS_HADD2,
		GPUPROJ_SASS_HMUL2, GPUPROJ_SASS_MUFU_RCP, GPUPROJ_SASS_MUFU_RSQ,
		GPUPROJ_SASS_MUFU_SQRT, GPUPROJ_SASS_MUFU_EX2, GPUPROJ_SASS_MUFU_LG2,
		GPUPROJ_SASS_MUFU_SIN, GPUPROJ_SASS_MUFU_COS, GPUPROJ_SASS_MUFU_RCP64H,
		GPUPROJ_SASS_MUFU_RSQ64H, GPUPROJ_SASS_FCHK,
	};
	size_t len = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (c->n[order[i]])
			len += (size_t)snprintf(buf + len, size - len, "%s%s=%u", len ? " " : "",
						gpuproj_sass_op_name(order[i]), c->n[order[i]]);
	}
}

static const char *
nvcc_version(void)
{
	const char *v = getenv("GPUPROJ_SASS_NVCC_VERSION");

	return v && *v ? v : "(unknown)";
}

/*
 * Compare every expected row (of the architectures asked for) with an
 * analysis. Separately compiled code (-rdc objects, libnvJitLink output)
 * calls the slow paths through the ABI, which adds blocks around the call
 * (inside the special region and in the slow path) but no FP instructions:
 * there block numbers are not compared, FLOP and instructions are.
 */
static void
check_expected(const struct gpuproj_sass *s, const char *what, bool a75, bool a80, bool a90,
	       bool whole_program)
{
	size_t i;

	for (i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct expect *e = &expected[i];
		const struct gpuproj_sass_kernel *k;
		char arch[16], ops[512], slow[512] = "";
		size_t j, len = 0;

		if ((e->arch == 75 && !a75) || (e->arch == 80 && !a80) || (e->arch == 90 && !a90))
			continue;
		snprintf(arch, sizeof(arch), "sm_%d", e->arch);
		k = gpuproj_sass_find(s, e->kernel, arch);
		ck_assert_msg(k != NULL, "%s: %s on %s not found", what, e->kernel, arch);
		ops_string(&k->special, ops, sizeof(ops));
		for (j = 0; j < k->n_slow_paths; j++)
			len += (size_t)snprintf(slow + len, sizeof(slow) - len, "%s%s", j ? "," : "",
						k->slow_paths[j]);
		ck_assert_msg((!whole_program || (k->all.blocks == e->blocks[0] &&
						  k->special.blocks == e->blocks[1] &&
						  k->slow.blocks == e->blocks[2])) &&
			      k->all.flop == e->flop[0] &&
			      k->special.flop == e->flop[1] && k->slow.flop == e->flop[2] &&
			      strcmp(ops, e->ops) == 0 && strcmp(slow, e->slow) == 0,
			      "%s: %s %s: blocks %u/%u/%u flop %g/%g/%g special '%s' slow '%s'; "
			      "expected blocks %u/%u/%u flop %g/%g/%g special '%s' slow '%s'. "
			      "The table was read from nvcc 13.0 (V13.0.88) SASS; this nvcc is "
			      "%s: if it differs, re-derive the table from `nvdisasm -c` of the "
			      "fixtures", what, e->kernel, arch, k->all.blocks, k->special.blocks,
			      k->slow.blocks, k->all.flop, k->special.flop, k->slow.flop, ops, slow,
			      e->blocks[0], e->blocks[1], e->blocks[2], e->flop[0], e->flop[1],
			      e->flop[2], e->ops, e->slow, nvcc_version());
	}
}

static struct gpuproj_sass *
analyze(const char *const *files, size_t n, const char *const *archs, size_t n_archs)
{
	struct gpuproj_sass_options opt = { .archs = archs, .n_archs = n_archs };
	struct gpuproj_sass *s = NULL;
	struct gpuproj_error err = { 0 };
	char buf[2048];

	ck_assert_msg(gpuproj_sass_analyze(files, n, &opt, &s, &err) == 0, "%s",
		      gpuproj_error_format(&err, buf, sizeof(buf)));
	return s;
}

START_TEST(fixture_counts_cubins)
{
	const char *files[3];
	struct gpuproj_sass *s;
	const char *note;

	if (!have_fixtures())
		return;
	files[0] = fixture("kernels-sm75.cubin");
	files[1] = fixture("kernels-sm80.cubin");
	files[2] = fixture("kernels-sm90.cubin");
	s = analyze(files, 3, NULL, 0);
	ck_assert_uint_eq(gpuproj_sass_arch_count(s), 3);
	ck_assert_str_eq(gpuproj_sass_arch_at(s, 0), "sm_75");
	ck_assert_str_eq(gpuproj_sass_arch_at(s, 2), "sm_90");
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 1, &note), 0);
	ck_assert_str_eq(note, "SASS (1 module)");
	ck_assert_uint_eq(gpuproj_sass_count(s), 3 * sizeof(kernel_names) / sizeof(kernel_names[0]));
	check_expected(s, "cubins", true, true, true, true);
	gpuproj_sass_free(s);
}
END_TEST

/*
 * The tensor line of the SASS comparison: mma.cu's one HMMA.1688 on sm_80
 * (2,048 FLOP), in the table and the JSON; kernels without MMAs get none.
 */
START_TEST(fixture_mma_table)
{
	const char *files[2];
	struct gpuproj_sass *s;
	char *buf = NULL, *json = NULL;
	size_t len = 0;
	FILE *f;

	if (!have_fixtures())
		return;
	files[0] = fixture("mma-sm80.cubin");
	files[1] = fixture("kernels-sm80.cubin");
	s = analyze(files, 2, NULL, 0);
	ck_assert_ptr_nonnull(f = open_memstream(&buf, &len));
	ck_assert_int_eq(gpuproj_sass_write_table(f, s, "sm_80", NULL, 1.0), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "tensor    MMA float 1 int 0 fp64 0; 2048 FLOP; "
				     "ratio 1 (source)\n"));
	/* One tensor line in all: the other kernels have no MMA. */
	ck_assert_ptr_null(strstr(strstr(buf, "tensor    MMA") + 1, "tensor    MMA"));
	ck_assert_int_eq(gpuproj_sass_json(s, "sm_80", "mma_1688", 1.0, &json), 0);
	ck_assert_ptr_nonnull(strstr(json, "\"mma\": {\n"));
	ck_assert_ptr_nonnull(strstr(json, "\"float\": 1,"));
	ck_assert_ptr_nonnull(strstr(json, "\"mma_flop\": 2048"));
	ck_assert_ptr_nonnull(strstr(json, "\"mma_ratio\": 1"));
	free(json);
	free(buf);
	gpuproj_sass_free(s);
}
END_TEST

/*
 * Tensor MMAs: mma.cu's one HMMA.1688.F32 on sm_80 gives 2,048
 * FLOP per instruction; a profile whose flop.tensor.fp16 was instruction
 * counts × 4,096 (HMMA.16816, assumed) is halved for that kernel, the
 * other kernel (no SASS) keeps it, and an attribute says so.
 */
START_TEST(fixture_mma_rescale)
{
	const char *files[1];
	struct gpuproj_sass *s;
	struct gpuproj_profile *p;
	struct gpuproj_kernel *k, *other;
	struct gpuproj_signature sig = { .name = "mma_1688" };
	double f = 0;
	size_t n = 0;

	if (!have_fixtures())
		return;
	files[0] = fixture("mma-sm80.cubin");
	s = analyze(files, 1, NULL, 0);
	ck_assert_int_eq(gpuproj_sass_mma_flop_per_inst(s, "mma_1688", "sm_80", GPUPROJ_TOP_HMMA,
							&f), 0);
	ck_assert_double_eq(f, 2048);
	ck_assert_int_eq(gpuproj_sass_mma_flop_per_inst(s, "mma_1688", "sm_80", GPUPROJ_TOP_IMMA,
							&f), GPUPROJ_E_NOTFOUND);
	ck_assert_int_eq(gpuproj_sass_mma_flop_per_inst(s, "mma_1688", "sm_90", GPUPROJ_TOP_HMMA,
							&f), GPUPROJ_E_NOTFOUND);
	ck_assert_ptr_nonnull(p = gpuproj_profile_new());
	ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &k), 0);
	sig.name = "other";
	ck_assert_int_eq(gpuproj_profile_kernel(p, &sig, &other), 0);
	gpuproj_kernel_add_metric(k, GPUPROJ_M_FLOP_TENSOR_FP16, 10 * 4096.0);
	gpuproj_kernel_add_metric(other, GPUPROJ_M_FLOP_TENSOR_FP16, 10 * 4096.0);
	ck_assert_int_eq(gpuproj_profile_set_attr(p, "metrics.GA100.flop.tensor.fp16",
						  "sm__inst_executed_pipe_tensor_op_hmma.sum+-1*"
						  "sm__inst_executed_pipe_tensor_op_hmma_type_"
						  "hfma2.sum * 4096 (assumed: FLOP per instruction "
						  "of HMMA.16816)"), 0);
	ck_assert_int_eq(gpuproj_sass_tensor_rescale(p, s, "sm_80", &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_double_eq(k->metric_sum[GPUPROJ_M_FLOP_TENSOR_FP16], 10 * 2048.0);
	ck_assert_double_eq(other->metric_sum[GPUPROJ_M_FLOP_TENSOR_FP16], 10 * 4096.0);
	ck_assert_str_eq(gpuproj_profile_attr(p, "metrics.GA100.flop.tensor.fp16.sass"),
			 "FLOP per instruction from the sm_80 SASS of 1 of 2 kernel(s), instead "
			 "of 4096");
	/* Measured FLOP (no "assumed") are never touched. */
	ck_assert_int_eq(gpuproj_profile_set_attr(p, "metrics.GA100.flop.tensor.fp16",
						  "sm__ops_path_tensor_src_fp16_dst_fp32.sum"), 0);
	ck_assert_int_eq(gpuproj_sass_tensor_rescale(p, s, "sm_80", &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_double_eq(k->metric_sum[GPUPROJ_M_FLOP_TENSOR_FP16], 10 * 2048.0);
	gpuproj_profile_free(p);
	gpuproj_sass_free(s);
}
END_TEST

START_TEST(fixture_counts_everywhere)
{
	static const struct {
		const char *file;
		bool a75, a80, a90;
		enum fatbin_codec codec;    /* needed to read its cubins */
	} cases[] = {
		{ "kernels.fatbin", true, true, true, FATBIN_RAW },
		{ "kernels-exe", true, true, true, FATBIN_RAW },
		{ "kernels-lz4.fatbin", false, true, false, FATBIN_LZ4 },
		{ "kernels-zstd.fatbin", false, true, false, FATBIN_ZSTD },
		{ "kernels-rdc.o", false, true, false, FATBIN_ZSTD },
	};
	size_t i;

	if (!have_fixtures())
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *file = fixture(cases[i].file);
		struct gpuproj_sass *s;
		const struct gpuproj_sass_kernel *k;

		if (!have_codec(cases[i].codec, cases[i].file))
			continue;
		s = analyze(&file, 1, NULL, 0);
		k = gpuproj_sass_find(s, "k_ffma", "sm_80");

		ck_assert_ptr_nonnull(k);
		ck_assert_int_eq(k->origin, GPUPROJ_SASS_FROM_SASS);
		ck_assert_str_eq(k->file, file);
		check_expected(s, cases[i].file, cases[i].a75, cases[i].a80, cases[i].a90,
			       strcmp(cases[i].file, "kernels-rdc.o") != 0);
		gpuproj_sass_free(s);
	}
}
END_TEST

START_TEST(fixture_ptx_compiled)
{
	static const char *const archs[] = { "sm_80", "sm_90", "sm_70" };
	const char *file;
	struct gpuproj_sass *s;
	const struct gpuproj_sass_kernel *k;
	const char *note;

	if (!have_fixtures() || !have_codec(FATBIN_ZSTD, "kernels-ptx.fatbin"))
		return;
	/* compute_75 PTX only: sm_80 and sm_90 compiled here; nothing for sm_70. */
	file = fixture("kernels-ptx.fatbin");
	s = analyze(&file, 1, archs, 3);
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 0, &note), 0);
	ck_assert_msg(strstr(note, "PTX compute_75 compiled with nvJitLink (1 module)") ||
		      strstr(note, "PTX compute_75 compiled with ptxas (1 module)"), "%s", note);
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 2, &note), GPUPROJ_E_NOTFOUND);
	ck_assert_str_eq(note, "no sm_70 SASS, no binary-compatible SASS and no PTX for "
			 "compute_70 or lower in the input");
	k = gpuproj_sass_find(s, "k_fdiv", "sm_90");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->origin, GPUPROJ_SASS_FROM_PTX);
	ck_assert_int_eq(k->image_arch, 75);
	/* Same PTX, same ptxas: the same counts as nvcc's own sm_80 / sm_90 code. */
	check_expected(s, "PTX compute_75", false, true, true, false);
	gpuproj_sass_free(s);

	/* sm_86 runs the sm_80 SASS of kernels.fatbin (binary-compatible). */
	{
		static const char *const a86[] = { "sm_86" };

		file = fixture("kernels.fatbin");
		s = analyze(&file, 1, a86, 1);
		k = gpuproj_sass_find(s, "k_fsqrt", "sm_86");
		ck_assert_ptr_nonnull(k);
		ck_assert_int_eq(k->origin, GPUPROJ_SASS_FROM_COMPATIBLE);
		ck_assert_int_eq(k->image_arch, 80);
		ck_assert_double_eq(k->special.flop, 6);
		gpuproj_sass_free(s);
	}
}
END_TEST

START_TEST(fixture_ratios)
{
	static const char *const archs[] = { "sm_75", "sm_80", "sm_90" };
	const char *file;
	struct gpuproj_sass *s;
	struct gpuproj_sass_options opt = { .archs = archs, .n_archs = 3,
					    .slow_path_weight = 1.0 };
	struct gpuproj_error err = { 0 };
	struct gpuproj_target t75 = { .name = "T4", .arch = "sm_75" };
	struct gpuproj_target t90 = { .name = "H100", .arch = "sm_90" };
	struct gpuproj_target amd = { .name = "MI300X", .arch = "gfx942",
				      .vendor = GPUPROJ_VENDOR_AMD };
	struct gpuproj_kernel kh = { .name = "k_h2div" }, kx = { .name = "nope" };
	double r;
	size_t i, j, n;

	if (!have_fixtures())
		return;
	file = fixture("kernels.fatbin");
	s = analyze(&file, 1, archs, 3);
	/* The plain FMA kernel: exactly 1 across every pair. */
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++) {
			ck_assert_int_eq(gpuproj_sass_flop_ratio(s, "k_ffma", archs[i], archs[j], &r), 0);
			ck_assert(r == 1.0);
		}
	}
	/* nvcc 13.0 expands f32/f64 division, sqrt, exp… identically on sm_75/80/90. */
	n = sizeof(kernel_names) / sizeof(kernel_names[0]);
	for (i = 0; i < n; i++) {
		if (strcmp(kernel_names[i], "k_h2div") == 0)
			continue;
		ck_assert_int_eq(gpuproj_sass_flop_ratio(s, kernel_names[i], "sm_75", "sm_90", &r), 0);
		ck_assert_msg(r == 1.0, "%s: %g", kernel_names[i], r);
	}
	/*
	 * k_h2div: F = S = 11 on sm_75, S = 12 on sm_90 (the HFMA2):
	 * (11 - 11 + 12) / 11 and back (12 - 12 + 11) / 12.
	 */
	ck_assert_int_eq(gpuproj_sass_flop_ratio(s, "k_h2div", "sm_75", "sm_90", &r), 0);
	ck_assert_double_eq_tol(r, 12.0 / 11.0, 1e-12);
	ck_assert_int_eq(gpuproj_sass_flop_ratio(s, "k_h2div", "sm_90", "sm_80", &r), 0);
	ck_assert_double_eq_tol(r, 11.0 / 12.0, 1e-12);
	/* Measured: 1000 FLOP per launch, the special blocks ran 10 times: 1 + 10 (12 - 11) / 1000. */
	ck_assert_int_eq(gpuproj_sass_flop_ratio_measured(s, "k_h2div", "sm_75", "sm_90", 1000, 10,
							  &r), 0);
	ck_assert_double_eq_tol(r, 1.01, 1e-12);
	ck_assert_int_eq(gpuproj_sass_flop_ratio_measured(s, "k_h2div", "sm_75", "sm_90", 0, 10,
							  &r), GPUPROJ_E_INVAL);
	ck_assert_int_eq(gpuproj_sass_flop_ratio(s, "nope", "sm_75", "sm_90", &r),
			 GPUPROJ_E_NOTFOUND);
	ck_assert_int_eq(gpuproj_sass_flop_ratio(s, "k_ffma", "sm_75", "sm_70", &r),
			 GPUPROJ_E_NOTFOUND);
	/* The model callback: the ratio, or 1 where nothing applies. */
	ck_assert_double_eq_tol(gpuproj_sass_flop_ratio_cb(s, &kh, &t75, &t90), 12.0 / 11.0, 1e-12);
	ck_assert(gpuproj_sass_flop_ratio_cb(s, &kx, &t75, &t90) == 1.0);
	ck_assert(gpuproj_sass_flop_ratio_cb(s, &kh, &t75, &amd) == 1.0);
	ck_assert(gpuproj_sass_flop_ratio_cb(NULL, &kh, &t75, &t90) == 1.0);
	gpuproj_sass_free(s);

	/* Slow paths counted (w = 1): k_fdiv's are the same on all three, so 1. */
	ck_assert_int_eq(gpuproj_sass_analyze(&file, 1, &opt, &s, &err), 0);
	ck_assert_int_eq(gpuproj_sass_flop_ratio(s, "k_fdiv", "sm_75", "sm_90", &r), 0);
	ck_assert(r == 1.0);
	gpuproj_sass_free(s);
	opt.slow_path_weight = 1.5;
	ck_assert_int_eq(gpuproj_sass_analyze(&file, 1, &opt, &s, &err), GPUPROJ_E_INVAL);
}
END_TEST

START_TEST(fixture_corrupted)
{
	char *buf = NULL;
	size_t len = 0;
	struct gpuproj_error err = { 0 };

	if (!have_fixtures())
		return;
	ck_assert_int_eq(file_read_all(fixture("kernels.fatbin"), &buf, &len, &err), 0);
	fuzz((unsigned char *)buf, len, 61, true);
	free(buf);
	ck_assert_int_eq(file_read_all(fixture("kernels-zstd.fatbin"), &buf, &len, &err), 0);
	fuzz((unsigned char *)buf, len, 97, true);
	free(buf);
	ck_assert_int_eq(file_read_all(fixture("kernels-lz4.fatbin"), &buf, &len, &err), 0);
	fuzz((unsigned char *)buf, len, 97, true);
	free(buf);
}
END_TEST

START_TEST(fixture_cli)
{
	char *out, *err, *dir, *link;
	json_t *root, *k;
	json_error_t je;

	if (!have_fixtures())
		return;
	ck_assert_int_eq(run(&out, &err, "", "sass --arch sm_75 --arch sm_90 '%s'",
			     fixture("kernels.fatbin")), 0);
	ck_assert_str_eq(err, "");
	ck_assert_ptr_nonnull(strstr(out, "# sm_75: SASS (1 module)\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nk_h2div  special: MUFU.RCP\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nk_fdiv  special: MUFU.RCP FCHK; slow paths: "
				     "div_rn_noftz_f32_slowpath\n"));
	ck_assert_ptr_nonnull(strstr(out, "1.0909\n"));
	free(out);
	free(err);

	ck_assert_int_eq(run(&out, &err, "", "sass --format json --kernel k_h2div "
			     "--source-arch sm_90 '%s'", fixture("kernels.fatbin")), 0);
	root = json_loads(out, 0, &je);
	ck_assert_msg(root != NULL, "%s", je.text);
	ck_assert_str_eq(json_string_value(json_object_get(root, "source_arch")), "sm_90");
	ck_assert_uint_eq(json_array_size(json_object_get(root, "kernels")), 1);
	k = json_object_get(json_object_get(json_array_get(json_object_get(root, "kernels"), 0),
					    "archs"), "sm_75");
	ck_assert_double_eq_tol(json_number_value(json_object_get(k, "flop_ratio")), 11.0 / 12.0,
				1e-9);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(k, "special"),
							    "MUFU.RCP")), 2);
	json_decref(root);
	free(out);
	free(err);

	/* An architecture without code: printed, and exit 1. */
	ck_assert_int_eq(run(&out, &err, "", "sass --arch sm_80 --arch sm_70 '%s'",
			     fixture("kernels-sm80.cubin")), 2);
	ck_assert_ptr_nonnull(strstr(err, "gpuproj: sass: sm_70: no sm_70 SASS"));
	ck_assert_ptr_nonnull(strstr(out, "\nk_ffma  no special functions\n"));
	free(out);
	free(err);

	/* project --cubins DIR: a directory of kept module images. */
	dir = test_tmpdir();
	ck_assert_int_gt(asprintf(&link, "%s/1234.cubin", dir), 0);
	ck_assert_int_eq(symlink(fixture("kernels-sm80.cubin"), link), 0);
	ck_assert_int_eq(run(&out, &err, "", "project --builtin --target A100-SXM4-40GB "
			     "--cubins '%s'", dir), 0);
	ck_assert_ptr_nonnull(strstr(out, "FLOP ratio per kernel and target from the SASS of "));
	free(out);
	free(err);
	ck_assert_int_eq(run(&out, &err, "", "project --builtin --target A100-SXM4-40GB"), 0);
	ck_assert_ptr_nonnull(strstr(out, "FLOP ratio 1 on every target: no SASS analysis"));
	free(out);
	free(err);
	/* A profile of k_h2div measured on a T4 (sm_75), projected onto an H100 (sm_90). */
	{
		char *src = test_read_file(test_data("profile-test.json")), *p, *prof;

		ck_assert_ptr_nonnull(src);
		p = strstr(src, "\"stream\"");
		ck_assert_ptr_nonnull(p);
		ck_assert_int_gt(asprintf(&prof, "%.*s\"k_h2div\"%s", (int)(p - src), src,
					  p + strlen("\"stream\"")), 0);
		free(src);
		src = test_write_file(dir, "h2div.json", prof);
		ck_assert_int_eq(run(&out, &err, "", "project --model hroof --source T4 --target "
				     "H100-SXM5-80GB --format json --cubins '%s' '%s'",
				     fixture("kernels.fatbin"), src), 0);
		ck_assert_msg(strstr(out, "\"flop_ratio\": 1.0909090909090") != NULL, "%s", out);
		free(out);
		free(err);
		free(src);
		free(prof);
	}
	/* Tensor FLOP assumed from instruction counts: the SASS's HMMA.1688 instead. */
	{
		static const char prof[] =
			"{\"schema\": \"gpuproj-profile/1\", \"attributes\": "
			"{\"metrics.GA100.flop.tensor.fp16\": \"sm__inst_executed_pipe_tensor_op_"
			"hmma.sum * 4096 (assumed: FLOP per instruction of HMMA.16816)\"}, "
			"\"device\": {\"name\": \"A100-SXM4-40GB\"}, \"kernels\": [{\"name\": "
			"\"mma_1688\", \"grid\": [1024, 1, 1], \"block\": [128, 1, 1], "
			"\"launches\": 1, \"profiled_launches\": 1, \"duration_ns\": {\"n\": 1, "
			"\"mean\": 100000}, \"metrics\": {\"flop.tensor.fp16\": 4096000000, "
			"\"bytes.l1\": 1e6, \"bytes.l2\": 1e6, \"bytes.dram\": 1e6, "
			"\"shared.wavefronts\": 0, \"warp_efficiency\": 1}}]}";
		char *src = test_write_file(dir, "mma.json", prof);

		ck_assert_int_eq(run(&out, &err, "", "project --source A100-SXM4-40GB --target "
				     "H100-SXM5-80GB --cubins '%s' '%s'",
				     fixture("mma-sm80.cubin"), src), 0);
		ck_assert_msg(strstr(err, "gpuproj: tensor FLOP of 1 kernel metric(s): FLOP per "
				     "MMA instruction from their sm_80 SASS instead of the "
				     "assumed default\n") != NULL, "%s", err);
		free(out);
		free(err);
		free(src);
	}
	free(link);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * ---- part 3: sm_70 (V100) with NVRTC 12 and a legacy nvdisasm ----
 *
 * CUDA 13's nvcc, ptxas, nvJitLink and nvdisasm dropped sm_70, so these
 * fixtures (kernels-rtc-*, built by tests/sass/nvrtc12.py) come from the
 * CUDA 12 compiler front end NVRTC (nvidia-cuda-nvrtc-cu12: the NVVM and
 * ptxas of nvcc 12.9, as a library) for sm_70, sm_80 and sm_90, and the
 * sm_70 code is disassembled with nvdisasm 11.8 (Debian's
 * nvidia-cuda-toolkit, unpacked by scripts/setup-deps.sh into
 * ~/.cache/gpuproj/legacy-cuda). Skipped with the reason when either is
 * missing.
 */

#define RTC_VERSION "nvrtc 12.9"

static const char *
rtc_fixture(const char *name)
{
	static char buf[8][1024];
	static int slot;
	const char *dir = getenv("GPUPROJ_SASS_RTC_FIXTURES");
	char *p = buf[slot++ % 8];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir ? dir : ".", name);
	return p;
}

/*
 * NVRTC fixtures and an nvdisasm for sm_70 present? Otherwise say why and
 * skip. A different NVRTC than the tables were read from fails loudly.
 */
static bool
have_rtc_fixtures(void)
{
	const char *dir = getenv("GPUPROJ_SASS_RTC_FIXTURES");
	struct gpuproj_error e = { 0 };
	char *status, *nvd = NULL, *legacy = NULL;

	if (!dir || !*dir) {
		test_skip("GPUPROJ_SASS_RTC_FIXTURES not set: run through meson test");
		return false;
	}
	status = test_read_file(rtc_fixture("kernels-rtc.status"));
	ck_assert_ptr_nonnull(status);
	status[strcspn(status, "\n")] = '\0';
	if (strncmp(status, "SKIP: ", 6) == 0) {
		test_skip(status + 6);
		free(status);
		return false;
	}
	ck_assert_msg(strcmp(status, RTC_VERSION) == 0,
		      "the sm_70 tables were read from " RTC_VERSION " (12.9.86) SASS; this is "
		      "%s: re-derive them from `nvdisasm -c` of kernels-rtc-sm*.cubin", status);
	free(status);
	if (gpuproj_sass_find_nvdisasm(&nvd, NULL) != GPUPROJ_OK) {
		test_skip("nvdisasm not found: " HOWTO);
		return false;
	}
	if (!sass_tool_supports(nvd, SASS_NVDISASM, 70) &&
	    sass_find_legacy_tool(SASS_NVDISASM, 70, nvd, &legacy, &e) != GPUPROJ_OK) {
		test_skip(e.message);
		free(nvd);
		return false;
	}
	free(legacy);
	free(nvd);
	return true;
}

/*
 * sm_70 counts, read from `nvdisasm -c` (nvdisasm 11.8.86) of
 * kernels-rtc-sm70.cubin built by NVRTC 12.9 (12.9.86). The sm_80 and
 * sm_90 code NVRTC 12.9 makes has the counts of the nvcc 13.0 table above
 * (checked below with it). Same columns as `expected`.
 *
 * Volta's SASS (Volta has BSSY/BSYNC, IADD3, HADD2.F32 and CALL.REL.NOINC
 * like its successors) keeps the FP instructions of sm_80 for every
 * kernel; what differs is outside the FLOP (fewer FP-other instructions:
 * sm_80 has an extra FSETP/F2F here and there) and k_ffma's block count
 * (3: no NOP padding after its trap loop). The special blocks:
 * - k_fdiv: BMOV.32.CLEAR RZ, B0; BSSY B0; MUFU.RCP R9, R4; FCHK P0, R7,
 *   R4; FFMA R0, -R4, R9, 1; FFMA R0, R9, R0, R9; FFMA R9, R7, R0, RZ;
 *   FFMA R6, -R4, R9, R7; FFMA R9, R0, R6, R9 (5 FFMA = 10 FLOP); @!P0
 *   BRA; MOV R0, 0x180; CALL.REL.NOINC div_rn_noftz_f32_slowpath; BSYNC B0
 *   → 3 special blocks. Slow path: 12 FFMA + 2 FADD = 26 FLOP, 24 blocks.
 * - k_fsqrt: BSSY B0; IADD3; MUFU.RSQ R5, R0; @!P0 BRA; CALL sqrt_rn_f32_
 *   slowpath; MOV; BRA; FMUL.FTZ R7, R0, R5; FMUL.FTZ R5, R5, 0.5; FFMA R0,
 *   -R7, R7, R0; FFMA R5, R0, R5, R7; BSYNC → 5 blocks, 6 FLOP. Slow path:
 *   FADD.FTZ, FFMA, FMUL.FTZ ×2, FADD.FTZ, FFMA ×2, FMUL.FTZ = 11 FLOP.
 * - k_ddiv: MUFU.RCP64H R5, R7; DFMA ×5, DMUL R10, R8, R4, DFMA ×2; FFMA
 *   R0, RZ, R7, R5 → 17 FLOP; div_rn_f64_full: 10 DFMA + 4 DMUL = 24.
 * - k_dsqrt: MUFU.RSQ64H R7, R5; DMUL, DFMA, DFMA, DMUL, DFMA, DMUL, DFMA,
 *   DFMA → 13 FLOP; dsqrt_rn_f64_mediumpath_v1 = 19 FLOP.
 * - k_h2div: HADD2 R4, R0, R0 (the x + x, 1 FLOP); HADD2.F32 ×4
 *   (conversions); MUFU.RCP R7, R5; MUFU.RCP R11, R9; FMUL R0, R4, R7;
 *   F2F.F16.F32; FMUL R10, R8, R11; HSETP2 ×4; @!P2 FFMA ×2; @!P0 FFMA ×2
 *   → 11 FLOP in one block (sm_90: HFMA2 for the x + x → 12).
 * - k_fdividef: FSETP; @!P0 FMUL ×2 (×2^24); MUFU.RCP; FMUL → 3 FLOP.
 * - k_frsqrt: FSETP; @!P0 FMUL R0, R0, 16777216; MUFU.RSQ; @!P0 FMUL R5,
 *   R5, 4096 → 2 FLOP.
 * - k_fexp: FFMA.SAT, FFMA.RM, FADD, FFMA, FFMA, MUFU.EX2, FMUL → 10 FLOP.
 * - k_fintrin: FMUL, FMUL.RZ, MUFU.SIN, MUFU.COS, @!P1 FMUL, @!P0 FMUL,
 *   MUFU.EX2, MUFU.LG2, FADD, @!P0 FMUL, FADD, @!P1 FADD, FFMA → 10 FLOP.
 * - k_ffma: FFMA R7, R4, R7, 1; k_flog, k_fsincos: no MUFU.
 */
static const struct expect expected70[] = {
	{ "k_ddiv", 70, { 6, 4, 14 }, { 17, 17, 24 }, "FFMA=1 DFMA=7 DMUL=1 MUFU.RCP64H=1",
	  "div_rn_f64_full" },
	{ "k_dsqrt", 70, { 5, 3, 11 }, { 13, 13, 19 }, "DFMA=5 DMUL=3 MUFU.RSQ64H=1",
	  "dsqrt_rn_f64_mediumpath_v1" },
	{ "k_fdiv", 70, { 5, 3, 24 }, { 10, 10, 26 }, "FFMA=5 MUFU.RCP=1 FCHK=1",
	  "div_rn_noftz_f32_slowpath" },
	{ "k_fdividef", 70, { 4, 1, 0 }, { 3, 3, 0 }, "FMUL=3 MUFU.RCP=1", "" },
	{ "k_fexp", 70, { 4, 1, 0 }, { 10, 10, 0 }, "FFMA=4 FADD=1 FMUL=1 MUFU.EX2=1", "" },
	{ "k_ffma", 70, { 3, 0, 0 }, { 2, 0, 0 }, "", "" },
	{ "k_fintrin", 70, { 4, 1, 0 }, { 10, 10, 0 },
	  "FFMA=1 FADD=3 FMUL=5 MUFU.EX2=1 MUFU.LG2=1 MUFU.SIN=1 MUFU.COS=1", "" },
	{ "k_flog", 70, { 4, 0, 0 }, { 27, 0, 0 }, "", "" },
	{ "k_frsqrt", 70, { 4, 1, 0 }, { 2, 2, 0 }, "FMUL=2 MUFU.RSQ=1", "" },
	{ "k_fsincos", 70, { 18, 0, 0 }, { 38, 0, 0 }, "", "" },
	{ "k_fsqrt", 70, { 7, 5, 7 }, { 6, 6, 11 }, "FFMA=2 FMUL=2 MUFU.RSQ=1",
	  "sqrt_rn_f32_slowpath" },
	{ "k_h2div", 70, { 4, 1, 0 }, { 11, 11, 0 }, "FFMA=4 FMUL=2 HADD2=1 MUFU.RCP=2", "" },
};

/* One row against an analysis; skip: a kernel not to compare (NULL: none). */
static void
check_expected70(const struct gpuproj_sass *s, const char *what, const char *skip,
		 const char *derived)
{
	size_t i;

	for (i = 0; i < sizeof(expected70) / sizeof(expected70[0]); i++) {
		const struct expect *e = &expected70[i];
		const struct gpuproj_sass_kernel *k;
		char ops[512], slow[512] = "";
		size_t j, len = 0;

		if (skip && strcmp(e->kernel, skip) == 0)
			continue;
		k = gpuproj_sass_find(s, e->kernel, "sm_70");
		ck_assert_msg(k != NULL, "%s: %s on sm_70 not found", what, e->kernel);
		ops_string(&k->special, ops, sizeof(ops));
		for (j = 0; j < k->n_slow_paths; j++)
			len += (size_t)snprintf(slow + len, sizeof(slow) - len, "%s%s", j ? "," : "",
						k->slow_paths[j]);
		ck_assert_msg(k->all.blocks == e->blocks[0] && k->special.blocks == e->blocks[1] &&
			      k->slow.blocks == e->blocks[2] && k->all.flop == e->flop[0] &&
			      k->special.flop == e->flop[1] && k->slow.flop == e->flop[2] &&
			      strcmp(ops, e->ops) == 0 && strcmp(slow, e->slow) == 0,
			      "%s: %s sm_70: blocks %u/%u/%u flop %g/%g/%g special '%s' slow '%s'; "
			      "expected blocks %u/%u/%u flop %g/%g/%g special '%s' slow '%s' (read "
			      "from %s SASS: re-derive the table if the compiler changed)", what,
			      e->kernel, k->all.blocks, k->special.blocks, k->slow.blocks,
			      k->all.flop, k->special.flop, k->slow.flop, ops, slow, e->blocks[0],
			      e->blocks[1], e->blocks[2], e->flop[0], e->flop[1], e->flop[2], e->ops,
			      e->slow, derived);
	}
}

static struct gpuproj_sass *
analyze_rtc_cubins(void)
{
	const char *files[3];

	files[0] = rtc_fixture("kernels-rtc-sm70.cubin");
	files[1] = rtc_fixture("kernels-rtc-sm80.cubin");
	files[2] = rtc_fixture("kernels-rtc-sm90.cubin");
	return analyze(files, 3, NULL, 0);
}

START_TEST(sm70_counts)
{
	struct gpuproj_sass *s;
	const char *note;
	const struct gpuproj_sass_kernel *k;

	if (!have_rtc_fixtures())
		return;
	s = analyze_rtc_cubins();
	ck_assert_uint_eq(gpuproj_sass_arch_count(s), 3);
	ck_assert_str_eq(gpuproj_sass_arch_at(s, 0), "sm_70");
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 0, &note), 0);
	/* A CUDA ≤ 12 nvdisasm (11.8 from the legacy directory, or one in PATH). */
	ck_assert_msg(strncmp(note, "SASS (1 module)", 15) == 0, "%s", note);
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 1, &note), 0);
	ck_assert_str_eq(note, "SASS (1 module)");
	k = gpuproj_sass_find(s, "k_fdiv", "sm_70");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->origin, GPUPROJ_SASS_FROM_SASS);
	ck_assert_int_eq(k->image_arch, 70);
	check_expected70(s, "NVRTC 12.9 sm_70 cubin", NULL, "NVRTC 12.9");
	/* NVRTC 12.9's sm_80 and sm_90 code counts as nvcc 13.0's. */
	check_expected(s, "NVRTC 12.9 sm_80/sm_90 cubins", false, true, true, true);
	gpuproj_sass_free(s);
}
END_TEST

START_TEST(sm70_ratios)
{
	static const char *const tgts[] = { "sm_80", "sm_90" };
	struct gpuproj_sass *s;
	struct gpuproj_target v100 = { .name = "V100-SXM2-32GB", .arch = "sm_70" };
	struct gpuproj_target a100 = { .name = "A100-SXM4-40GB", .arch = "sm_80" };
	struct gpuproj_target h100 = { .name = "H100-SXM5-80GB", .arch = "sm_90" };
	struct gpuproj_kernel kh = { .name = "k_h2div" }, kd = { .name = "k_fdiv" };
	size_t i, t, n = sizeof(kernel_names) / sizeof(kernel_names[0]);
	double r;

	if (!have_rtc_fixtures())
		return;
	s = analyze_rtc_cubins();
	/*
	 * The paper's direction, V100 → A100 / H100. Volta expands every special
	 * function of these kernels into the FP instructions of sm_80 (the
	 * table above), so sm_70 → sm_80 is exactly 1 for all of them, and so is
	 * sm_70 → sm_90 except k_h2div, whose x + x is an HFMA2 (2 FLOP) on sm_90
	 * but an HADD2 (1 FLOP) on sm_70: (11 - 11 + 12) / 11 and back 11 / 12.
	 */
	for (i = 0; i < n; i++) {
		for (t = 0; t < 2; t++) {
			double want = strcmp(kernel_names[i], "k_h2div") == 0 && t == 1 ? 12.0 / 11.0
											 : 1.0;

			ck_assert_int_eq(gpuproj_sass_flop_ratio(s, kernel_names[i], "sm_70", tgts[t],
								 &r), 0);
			ck_assert_msg(fabs(r - want) < 1e-12, "%s sm_70 → %s: %.17g, expected %.17g",
				      kernel_names[i], tgts[t], r, want);
		}
	}
	ck_assert_int_eq(gpuproj_sass_flop_ratio(s, "k_h2div", "sm_90", "sm_70", &r), 0);
	ck_assert_double_eq_tol(r, 11.0 / 12.0, 1e-12);
	/* Measured on a V100: 1000 FLOP per launch, special blocks ran 10 times. */
	ck_assert_int_eq(gpuproj_sass_flop_ratio_measured(s, "k_h2div", "sm_70", "sm_90", 1000,
							  10, &r), 0);
	ck_assert_double_eq_tol(r, 1.01, 1e-12);
	/* The model callback with a V100 source. */
	ck_assert_double_eq_tol(gpuproj_sass_flop_ratio_cb(s, &kh, &v100, &h100), 12.0 / 11.0,
				1e-12);
	ck_assert(gpuproj_sass_flop_ratio_cb(s, &kh, &v100, &a100) == 1.0);
	ck_assert(gpuproj_sass_flop_ratio_cb(s, &kd, &v100, &h100) == 1.0);
	gpuproj_sass_free(s);
}
END_TEST

/* A fatbin holding one PTX entry for compute_70. */
static char *
write_ptx70_fatbin(const char *dir, const char *name, const char *ptx)
{
	struct bytes e = { 0 }, fb = { 0 };
	char *path;
	FILE *f;

	fatbin_entry(&e, FATBIN_PTX, 70, 0x11, ptx, strlen(ptx) + 1, 0);
	fatbin_container(&fb, &e);
	ck_assert_int_gt(asprintf(&path, "%s/%s", dir, name), 0);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(fb.p, 1, fb.len, f), fb.len);
	fclose(f);
	free(e.p);
	free(fb.p);
	return path;
}

/*
 * PTX → sm_70 with a legacy ptxas: the PTX of a binary built with CUDA 12
 * (compute_70, ISA 8.8 here) needs a CUDA 12 ptxas; ptxas 11.8 (the legacy
 * directory's) reads ISA ≤ 7.8 and says what to use instead. The same PTX
 * marked 7.8 (these kernels use nothing newer) compiles with it.
 */
START_TEST(sm70_ptx_legacy_ptxas)
{
	static const char *const a70[] = { "sm_70" };
	char *ptx, *v, *dir, *old_path, *new_path, *ptxas, *legacy_dir;
	struct gpuproj_sass *s;
	const struct gpuproj_sass_kernel *k;
	const char *file, *note;
	char rel[32];

	if (!have_rtc_fixtures())
		return;
	legacy_dir = sass_legacy_dir();
	ck_assert_int_gt(asprintf(&ptxas, "%s/ptxas", legacy_dir), 0);
	free(legacy_dir);
	if (access(ptxas, X_OK) != 0) {
		char msg[1200];

		snprintf(msg, sizeof(msg), "%s missing: scripts/setup-deps.sh unpacks CUDA 11.8's",
			 ptxas);
		test_skip(msg);
		free(ptxas);
		return;
	}
	sass_tool_release(ptxas, rel, sizeof(rel));
	if (strcmp(rel, "11.8") != 0) {
		char msg[1200];

		snprintf(msg, sizeof(msg), "%s is CUDA %s, this test expects 11.8's", ptxas, rel);
		test_skip(msg);
		free(ptxas);
		return;
	}
	setenv("GPUPROJ_PTXAS_LEGACY", ptxas, 1);
	ptx = test_read_file(rtc_fixture("kernels-rtc-compute70.ptx"));
	ck_assert_ptr_nonnull(ptx);
	v = strstr(ptx, "\n.version 8.8\n");
	ck_assert_msg(v != NULL, "NVRTC 12.9 writes PTX ISA 8.8");
	dir = test_tmpdir();
	old_path = write_ptx70_fatbin(dir, "ptx88.fatbin", ptx);
	memcpy(v + 1, ".version 7.8", 12);
	new_path = write_ptx70_fatbin(dir, "ptx78.fatbin", ptx);

	file = old_path;
	s = analyze(&file, 1, a70, 1);
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 0, &note), GPUPROJ_E_BACKEND);
	ck_assert_msg(strstr(note, "ptxas could not compile the PTX for sm_70 (exit 255): fatal"
			     "   : Unsupported .version 8.8; current version is '7.8' (the PTX "
			     "is newer than this ptxas reads: use the ptxas of the CUDA release "
			     "that built it, e.g. CUDA 12's from `pip install "
			     "nvidia-cuda-nvcc-cu12`, or GPUPROJ_PTXAS_LEGACY)") != NULL, "%s", note);
	gpuproj_sass_free(s);

	file = new_path;
	s = analyze(&file, 1, a70, 1);
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 0, &note), 0);
	ck_assert_msg(strncmp(note, "PTX compute_70 compiled with legacy ptxas (1 module); "
			      "disassembled with the CUDA ", 81) == 0 ||
		      strcmp(note, "PTX compute_70 compiled with legacy ptxas (1 module)") == 0,
		      "%s", note);
	k = gpuproj_sass_find(s, "k_h2div", "sm_70");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->origin, GPUPROJ_SASS_FROM_PTX);
	ck_assert_int_eq(k->image_arch, 70);
	/*
	 * ptxas 11.8 expands everything as NVRTC 12.9's ptxas does but FP64
	 * division: its slow path is $k_ddiv$__cuda_sm20_div_f64_slowpath_v2
	 * (13 DFMA + 11 DMUL = 37 FLOP, 10 blocks) and its fast path has no
	 * register moves after the call (5 blocks, 3 special; same 17 FLOP).
	 */
	check_expected70(s, "compute_70 PTX via ptxas 11.8", "k_ddiv", "NVRTC 12.9 / ptxas 11.8");
	k = gpuproj_sass_find(s, "k_ddiv", "sm_70");
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(k->n_slow_paths, 1);
	ck_assert_str_eq(k->slow_paths[0], "div_f64_slowpath_v2");
	ck_assert_uint_eq(k->all.blocks, 5);
	ck_assert_uint_eq(k->special.blocks, 3);
	ck_assert_double_eq(k->special.flop, 17);
	ck_assert_double_eq(k->slow.flop, 37);
	gpuproj_sass_free(s);

	unsetenv("GPUPROJ_PTXAS_LEGACY");
	free(old_path);
	free(new_path);
	free(ptx);
	free(ptxas);
	test_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * No nvdisasm for sm_70: the architecture is reported with an exact,
 * actionable message (the rest is still analysed), by the library and the
 * command. Needs a first nvdisasm without sm_70 (CUDA 13's).
 */
START_TEST(sm70_legacy_missing)
{
	static const char *const archs[] = { "sm_70", "sm_80" };
	struct gpuproj_sass *s;
	char *nvd = NULL, *dir, *want, *out, *err, rel[32], *env, *p;
	const char *files[2], *note;

	if (!have_rtc_fixtures())
		return;
	ck_assert_int_eq(gpuproj_sass_find_nvdisasm(&nvd, NULL), 0);
	if (sass_tool_supports(nvd, SASS_NVDISASM, 70)) {
		test_skip("the nvdisasm found first disassembles sm_70 itself: no legacy one needed");
		free(nvd);
		return;
	}
	sass_tool_release(nvd, rel, sizeof(rel));
	dir = test_tmpdir();
	/* Hide the legacy tools: another cache directory, PATH without nvdisasm. */
	setenv("GPUPROJ_NVDISASM", nvd, 1);
	unsetenv("GPUPROJ_NVDISASM_LEGACY");
	setenv("XDG_CACHE_HOME", dir, 1);
	setenv("PATH", "/nonexistent", 1);
	setenv("CUDA_HOME", "/nonexistent", 1);
	unsetenv("CUDA_PATH");
	if (access("/usr/local/cuda/bin/nvdisasm", X_OK) == 0) {
		test_skip("/usr/local/cuda/bin/nvdisasm exists: cannot hide it");
		goto out;
	}
	ck_assert_int_gt(asprintf(&want, "nvdisasm %s (CUDA %s) cannot disassemble sm_70 code "
				  "(CUDA 13 dropped sm_70 and sm_72), and no nvdisasm that can "
				  "was found ($GPUPROJ_NVDISASM_LEGACY, %s/gpuproj/legacy-cuda/bin, "
				  "PATH, $CUDA_HOME/bin): set GPUPROJ_NVDISASM_LEGACY to the "
				  "nvdisasm of a CUDA 11 or 12 toolkit, or unpack one into "
				  "%s/gpuproj/legacy-cuda/bin (scripts/setup-deps.sh does; "
				  "docs/sass.md)", nvd, rel, dir, dir), 0);
	files[0] = rtc_fixture("kernels-rtc-sm70.cubin");
	files[1] = rtc_fixture("kernels-rtc-sm80.cubin");
	s = analyze(files, 2, archs, 2);
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 0, &note), GPUPROJ_E_MISSING);
	ck_assert_str_eq(note, want);
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 1, &note), 0);
	ck_assert_ptr_nonnull(gpuproj_sass_find(s, "k_h2div", "sm_80"));
	ck_assert_ptr_null(gpuproj_sass_find(s, "k_h2div", "sm_70"));
	gpuproj_sass_free(s);

	/* The command: the same line on stderr, exit 1, sm_80 still printed. */
	ck_assert_int_gt(asprintf(&env, "GPUPROJ_NVDISASM='%s' XDG_CACHE_HOME='%s' PATH=/nonexistent"
				  " CUDA_HOME=/nonexistent", nvd, dir), 0);
	ck_assert_int_eq(run(&out, &err, env, "sass --arch sm_70 --arch sm_80 '%s' '%s'",
			     files[0], files[1]), 2);
	ck_assert_int_gt(asprintf(&p, "gpuproj: sass: sm_70: %s\n", want), 0);
	ck_assert_str_eq(err, p);
	ck_assert_ptr_nonnull(strstr(out, "\nk_ffma  no special functions\n"));
	free(p);
	free(out);
	free(err);
	free(env);

	/* A legacy nvdisasm named but not there. */
	setenv("GPUPROJ_NVDISASM_LEGACY", "/nonexistent/nvdisasm", 1);
	s = analyze(files, 2, archs, 2);
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 0, &note), GPUPROJ_E_MISSING);
	ck_assert_str_eq(note, "GPUPROJ_NVDISASM_LEGACY=/nonexistent/nvdisasm is not an "
			 "executable file: name the nvdisasm of a CUDA 11 or 12 toolkit, or unset "
			 "GPUPROJ_NVDISASM_LEGACY");
	gpuproj_sass_free(s);
	/* ... and one that cannot either (the CUDA 13 one itself). */
	setenv("GPUPROJ_NVDISASM_LEGACY", nvd, 1);
	s = analyze(files, 2, archs, 2);
	ck_assert_int_eq(gpuproj_sass_arch_status(s, 0, &note), GPUPROJ_E_MISSING);
	ck_assert_ptr_nonnull(strstr(note, "cannot disassemble sm_70 code either: name the "
				     "nvdisasm of a CUDA 11 or 12 toolkit"));
	gpuproj_sass_free(s);
	free(want);
out:
	free(nvd);
	test_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *
sass_suite(void)
{
	Suite *s = suite_create("sass");
	TCase *tc = tcase_create("parse");
	TCase *tf = tcase_create("fixtures");
	TCase *t70 = tcase_create("sm_70");

	tcase_add_test(tc, op_table);
	tcase_add_test(tc, arch_names);
	tcase_add_test(tc, synthetic_fatbin_and_elf);
	tcase_add_test(tc, synthetic_cubin_parse);
	tcase_add_test(tc, synthetic_truncated_and_corrupted);
	tcase_add_test(tc, blocks_from_text);
	tcase_add_test(tc, nvdisasm_missing);
	tcase_add_test(tc, tool_caps_cache);
	tcase_add_test(tc, cli_usage);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tf, 600);
	tcase_add_test(tf, fixture_images);
	tcase_add_test(tf, fixture_counts_cubins);
	tcase_add_test(tf, fixture_mma_rescale);
	tcase_add_test(tf, fixture_mma_table);
	tcase_add_test(tf, fixture_counts_everywhere);
	tcase_add_test(tf, fixture_ptx_compiled);
	tcase_add_test(tf, fixture_ratios);
	tcase_add_test(tf, fixture_corrupted);
	tcase_add_test(tf, fixture_cli);
	suite_add_tcase(s, tf);
	tcase_set_timeout(t70, 600);
	tcase_add_test(t70, sm70_counts);
	tcase_add_test(t70, sm70_ratios);
	tcase_add_test(t70, sm70_ptx_legacy_ptxas);
	tcase_add_test(t70, sm70_legacy_missing);
	suite_add_tcase(s, t70);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(sass_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
