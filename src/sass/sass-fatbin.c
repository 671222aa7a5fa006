/* SPDX-License-Identifier: MIT */
/*
 * CUDA device-code containers, parsed from untrusted bytes (sass-fatbin.h).
 *
 * Layouts we rely on (all little-endian). NVIDIA documents none of the
 * fatbin layout; it is described by the reverse-engineering write-ups of
 * n-eiling/cuda-fatbin-decompression (fatbin-decompress.h: fat_elf_header,
 * fat_text_header, FATBIN_FLAG_*), GrigoryEvko/nvopen-tools
 * (fatbin/FORMAT_SPECIFICATION.md) and the CUDA header fatbinary_section.h
 * (section names), and we checked every field below against nvcc 13.0.88
 * output (`nvcc -fatbin` with --no-compress, the default, -compress-all and
 * -compress-mode=speed|size|balance, and executables, objects and -rdc):
 *
 * Host ELF (executable, shared library, object): ELF64 section headers; the
 * device code is in sections ".nv_fatbin" (whole-program code, and code
 * linked by nvlink) and "__nv_relfatbin" (relocatable code of -rdc
 * objects; compressed cubins there too). Each section holds fatbin
 * containers one after the other, possibly separated by zero padding.
 *
 * Fatbin container:
 *   0  u32 magic 0xBA55ED50
 *   4  u16 version (1)
 *   6  u16 header size (16: offset of the first entry)
 *   8  u64 size of the entries that follow the header, bytes
 * Entry (repeated until the container's end; no terminator):
 *   0  u16 kind: 1 PTX, 2 ELF (cubin), 4 LTO-IR (skipped)
 *   2  u16 unknown (0x0101)
 *   4  u32 entry header size = offset of the payload (64; 80 or 96 for PTX
 *      of newer toolkits, 112 for some sm_100+ ELF)
 *   8  u64 payload size, including padding to 8 bytes: the next entry
 *      starts at entry + header size + payload size
 *  16  u32 compressed size (0 when stored as is)
 *  20  u32 unknown (64 for PTX: address size)
 *  24  u16 minor, 26 u16 major: version of the image format
 *  28  u32 architecture: 75 = sm_75 (ELF) or compute_75 (PTX)
 *  32  u32 object-name offset, 36 u32 object-name length (0 = none)
 *  40  u64 flags: 0x1 64-bit, 0x2 debug, 0x10 Linux, 0x2000 LZ4-compressed,
 *      0x8000 Zstandard-compressed
 *  48  u64 reserved (0)
 *  56  u64 uncompressed size (0 when stored as is)
 * Compression, as nvcc 13.0 writes it: by default only PTX entries are
 * compressed, with Zstandard (flag 0x8000, frame magic 28 b5 2f fd);
 * `-Xfatbin -compress-all` compresses cubins too; `-Xfatbin
 * -compress-mode=speed` uses LZ4 (flag 0x2000: one LZ4 *block*, no frame
 * header, decompressing to exactly the uncompressed size); size and balance
 * use Zstandard; `--no-compress` stores everything. PTX decompresses to a
 * NUL-terminated text.
 *
 * Cubin: ELF64, e_machine EM_CUDA (190). The real architecture is in
 * e_flags: bits 8–15 when e_ident[EI_ABIVERSION] >= 8 (CUDA 13 for every
 * arch, CUDA 12.8+ for sm_100+: 0x6005a04 = sm_90), else bits 0–7 (older
 * toolkits: 0x5a055a = sm_90). Code is in ".text.<function>" sections;
 * function symbols (STT_FUNC) give names, offsets and sizes, and st_other
 * bit 0x10 (STO_CUDA_ENTRY) marks kernels. Relocatable cubins (-rdc) and
 * the output of libnvJitLink keep the slow-path subroutines of special
 * functions in sections of their own, called with CALL.ABS through a
 * relocation: SHT_REL (16-byte entries) or SHT_RELA (24-byte) sections
 * whose sh_info is the patched section, r_info >> 32 the symbol.
 *
 * Thread safety: reentrant; no global state.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#ifdef GPUPROJ_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef GPUPROJ_HAVE_LZ4
#include <lz4.h>
#endif

#include "sass-fatbin.h"
#include "util.h"

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_ENTRY_MIN 64u
#define FATBIN_FLAG_LZ4 0x2000u
#define FATBIN_FLAG_ZSTD 0x8000u
/* Largest image we agree to decompress (a corrupt header must not make us allocate GiBs). */
#define FATBIN_MAX_RAW ((uint64_t)512 << 20)
/*
 * Largest ratio of all decompressed sizes to the input's size (nvcc's
 * cubins compress 3–5×, PTX about 10×).
 */
#define FATBIN_MAX_INFLATE 64u

#define EM_CUDA 190
#define ELF_SHDR_SIZE 64u
#define ELF_SYM_SIZE 24u
#define SHT_PROGBITS 1u
#define SHT_SYMTAB 2u
#define SHT_RELA 4u
#define SHT_NOBITS 8u
#define SHT_REL 9u
#define SHF_EXECINSTR 0x4u
#define STT_FUNC 2u
#define STO_CUDA_ENTRY 0x10u
#define SHN_XINDEX 0xffffu

static uint16_t
rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static int
parse_error(struct gpuproj_error *err, const char *name, size_t offset, const char *what)
{
	return error_set(err, GPUPROJ_E_PARSE, name, 0, 0, "offset 0x%zx: %s", offset, what);
}

bool
fatbin_codec_supported(enum fatbin_codec codec)
{
	switch (codec) {
	case FATBIN_RAW: return true;
	case FATBIN_LZ4:
#ifdef GPUPROJ_HAVE_LZ4
		return true;
#else
		return false;
#endif
	case FATBIN_ZSTD:
#ifdef GPUPROJ_HAVE_ZSTD
		return true;
#else
		return false;
#endif
	}
	return false;
}

const char *
fatbin_codec_name(enum fatbin_codec codec)
{
	switch (codec) {
	case FATBIN_RAW: return "raw";
	case FATBIN_LZ4: return "lz4";
	case FATBIN_ZSTD: return "zstd";
	}
	return "?";
}

/* ---- a growable image list ---- */

struct image_vec {
	struct fatbin_image *v;
	size_t n, cap;
	/*
	 * Bytes the compressed images claim once decompressed, and the most a
	 * file of this size may claim (FATBIN_MAX_INFLATE × its size, at least
	 * FATBIN_MAX_RAW): a small file cannot make gpuproj decompress TiBs.
	 */
	uint64_t inflated, inflate_budget;
};

static int
image_push(struct image_vec *iv, const struct fatbin_image *im)
{
	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? iv->cap * 2 : 16;
		struct fatbin_image *v = realloc(iv->v, cap * sizeof(*v));

		if (!v)
			return GPUPROJ_E_NOMEM;
		iv->v = v;
		iv->cap = cap;
	}
	iv->v[iv->n++] = *im;
	return GPUPROJ_OK;
}

/* ---- fatbin containers ---- */

/* Parse the entries of one container, [start, end) of buf. */
static int
scan_entries(const unsigned char *buf, size_t start, size_t end, size_t container,
	     const char *where, const char *name, struct image_vec *iv, struct gpuproj_error *err)
{
	size_t q = start;

	while (q < end) {
		struct fatbin_image im = { 0 };
		uint16_t kind;
		uint32_t hsz, csz, arch;
		uint64_t psz, flags, usz;

		if (end - q < FATBIN_ENTRY_MIN)
			return parse_error(err, name, q, "fatbin entry header runs past the end "
					   "of its container");
		kind = rd16(buf + q);
		hsz = rd32(buf + q + 4);
		psz = rd64(buf + q + 8);
		csz = rd32(buf + q + 16);
		arch = rd32(buf + q + 28);
		flags = rd64(buf + q + 40);
		usz = rd64(buf + q + 56);
		if (hsz < FATBIN_ENTRY_MIN || hsz > end - q)
			return parse_error(err, name, q + 4, "bad fatbin entry header size");
		if (psz > end - q - hsz)
			return parse_error(err, name, q + 8, "fatbin entry payload runs past the "
					   "end of its container");
		if (kind == FATBIN_PTX || kind == FATBIN_ELF) {
			im.kind = (enum fatbin_kind)kind;
			im.arch = (int)arch;
			im.container = container;
			im.where = where;
			im.offset = q + hsz;
			im.data = buf + q + hsz;
			if (arch < 10 || arch > 999)
				return parse_error(err, name, q + 28, "bad architecture in fatbin "
						   "entry");
			if ((flags & FATBIN_FLAG_LZ4) && (flags & FATBIN_FLAG_ZSTD))
				return parse_error(err, name, q + 40, "fatbin entry flags both LZ4 "
						   "and Zstandard compression");
			if (flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD)) {
				im.codec = (flags & FATBIN_FLAG_LZ4) ? FATBIN_LZ4 : FATBIN_ZSTD;
				if (csz == 0 || csz > psz)
					return parse_error(err, name, q + 16, "bad compressed size "
							   "in fatbin entry");
				if (usz == 0 || usz > FATBIN_MAX_RAW)
					return parse_error(err, name, q + 56, "bad uncompressed "
							   "size in fatbin entry");
				im.size = csz;
				im.raw_size = usz;
				iv->inflated += usz;
				if (iv->inflated > iv->inflate_budget)
					return parse_error(err, name, q + 56, "the compressed fatbin "
							   "entries claim more than 64 times the "
							   "file's size once decompressed");
			} else {
				im.codec = FATBIN_RAW;
				im.size = (size_t)psz;
				im.raw_size = psz;
			}
			if (image_push(iv, &im))
				return error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
		}
		q += hsz + (size_t)psz;
	}
	return GPUPROJ_OK;
}

/*
 * Containers in [start, end) of buf, separated by zero padding; anything
 * else is an error.
 */
static int
scan_containers(const unsigned char *buf, size_t start, size_t end, size_t *container,
		const char *where, const char *name, struct image_vec *iv,
		struct gpuproj_error *err)
{
	size_t p = start;
	int r;

	while (p < end) {
		uint16_t hs;
		uint64_t size;

		if (buf[p] == 0) {
			p++;
			continue;
		}
		if (end - p < 16 || rd32(buf + p) != FATBIN_MAGIC)
			return parse_error(err, name, p, "expected a fatbin container (magic "
					   "0xba55ed50)");
		hs = rd16(buf + p + 6);
		size = rd64(buf + p + 8);
		if (rd16(buf + p + 4) != 1)
			return parse_error(err, name, p + 4, "unknown fatbin version");
		if (hs < 16 || hs > end - p)
			return parse_error(err, name, p + 6, "bad fatbin header size");
		if (size > end - p - hs)
			return parse_error(err, name, p + 8, "fatbin container runs past the end "
					   "of its data");
		r = scan_entries(buf, p + hs, p + hs + (size_t)size, *container, where, name, iv,
				 err);
		if (r)
			return r;
		(*container)++;
		p += hs + (size_t)size;
	}
	return GPUPROJ_OK;
}

/* ---- ELF ---- */

struct elf {
	const unsigned char *buf;
	size_t len;
	const char *name;
	uint64_t shoff;
	size_t shnum;
	const unsigned char *shstr;
	size_t shstr_len;
};

struct shdr {
	uint32_t name, type, link;
	uint64_t flags, offset, size, entsize;
};

static bool
is_elf(const unsigned char *buf, size_t len)
{
	return len >= 4 && memcmp(buf, "\177ELF", 4) == 0;
}

bool
cubin_is_cubin(const unsigned char *buf, size_t len)
{
	return is_elf(buf, len) && len >= 64 && buf[4] == 2 && buf[5] == 1 &&
	       rd16(buf + 18) == EM_CUDA;
}

static void
shdr_read(const struct elf *e, size_t i, struct shdr *sh)
{
	const unsigned char *p = e->buf + e->shoff + i * ELF_SHDR_SIZE;

	sh->name = rd32(p);
	sh->type = rd32(p + 4);
	sh->flags = rd64(p + 8);
	sh->offset = rd64(p + 24);
	sh->size = rd64(p + 32);
	sh->link = rd32(p + 40);
	sh->entsize = rd64(p + 56);
}

/* Section i, with its data range checked against the buffer (unless NOBITS). */
static int
elf_section(const struct elf *e, size_t i, struct shdr *sh, struct gpuproj_error *err)
{
	size_t at = (size_t)e->shoff + i * ELF_SHDR_SIZE;

	shdr_read(e, i, sh);
	if (sh->type != SHT_NOBITS && (sh->offset > e->len || sh->size > e->len - sh->offset))
		return parse_error(err, e->name, at + 24, "ELF section data lies outside the "
				   "file");
	return GPUPROJ_OK;
}

/* A NUL-terminated string at off in tab, or NULL. */
static const char *
elf_str(const unsigned char *tab, size_t len, uint64_t off)
{
	if (!tab || off >= len || !memchr(tab + off, '\0', len - (size_t)off))
		return NULL;
	return (const char *)tab + off;
}

static int
elf_open(struct elf *e, const unsigned char *buf, size_t len, const char *name,
	 struct gpuproj_error *err)
{
	uint16_t shentsize;
	size_t shstrndx;
	struct shdr sh;
	int r;

	memset(e, 0, sizeof(*e));
	e->buf = buf;
	e->len = len;
	e->name = name;
	if (len < 64)
		return parse_error(err, name, 0, "ELF header truncated");
	if (buf[4] != 2)
		return error_set(err, GPUPROJ_E_UNSUPPORTED, name, 0, 0,
				 "32-bit ELF files hold no CUDA device code we can read");
	if (buf[5] != 1)
		return error_set(err, GPUPROJ_E_UNSUPPORTED, name, 0, 0,
				 "big-endian ELF files are not supported");
	e->shoff = rd64(buf + 40);
	shentsize = rd16(buf + 58);
	e->shnum = rd16(buf + 60);
	shstrndx = rd16(buf + 62);
	if (e->shoff == 0) {
		e->shnum = 0; /* no sections, whatever e_shnum says */
		return GPUPROJ_OK;
	}
	if (shentsize != ELF_SHDR_SIZE)
		return parse_error(err, name, 58, "bad ELF section header size");
	if (e->shoff > len || len - e->shoff < ELF_SHDR_SIZE)
		return parse_error(err, name, 40, "ELF section headers lie outside the file");
	if (e->shnum == 0 || shstrndx == SHN_XINDEX) {
		shdr_read(e, 0, &sh);
		if (e->shnum == 0)
			e->shnum = sh.size > SIZE_MAX ? SIZE_MAX : (size_t)sh.size;
		if (shstrndx == SHN_XINDEX)
			shstrndx = sh.link;
	}
	if (e->shnum > (len - e->shoff) / ELF_SHDR_SIZE)
		return parse_error(err, name, 60, "ELF section headers run past the end of "
				   "the file");
	if (shstrndx >= e->shnum)
		return parse_error(err, name, 62, "bad ELF section-name table index");
	r = elf_section(e, shstrndx, &sh, err);
	if (r)
		return r;
	if (sh.type != SHT_NOBITS) {
		e->shstr = buf + sh.offset;
		e->shstr_len = (size_t)sh.size;
	}
	return GPUPROJ_OK;
}

/*
 * Byte ranges of sections, some of which may overlap in a malformed (or
 * hostile) file: real ELF files never have two sections with the same
 * bytes, but a 590 KB file whose 9,000 section headers all name one range
 * made the scan build 16.7 million images. Only ranges that overlap no
 * range kept before them (by offset, then by the caller's order) are kept,
 * so every byte is scanned at most once: work and memory stay linear in
 * the file size.
 */
struct sec_range {
	uint64_t start, end;	/* [start, end) */
	size_t order;		/* the caller's order (priority) */
	size_t section;		/* ELF section index */
	const char *where;	/* the section's name (static) */
	bool keep;
};

static int
cmp_range_start(const void *a, const void *b)
{
	const struct sec_range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int
cmp_range_order(const void *a, const void *b)
{
	const struct sec_range *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* Mark keep on r[0..n) and leave it in the caller's order. */
static void
keep_disjoint(struct sec_range *r, size_t n)
{
	uint64_t end = 0;
	size_t i;

	qsort(r, n, sizeof(*r), cmp_range_start);
	for (i = 0; i < n; i++) {
		r[i].keep = r[i].start >= end;
		if (r[i].keep && r[i].end > end)
			end = r[i].end;
	}
	qsort(r, n, sizeof(*r), cmp_range_order);
}

static int
scan_host_elf(const unsigned char *buf, size_t len, const char *name, size_t *container,
	      struct image_vec *iv, struct gpuproj_error *err)
{
	static const char *const wanted[] = { ".nv_fatbin", "__nv_relfatbin" };
	struct sec_range *ranges;
	size_t n = 0, w, i;
	struct elf e;
	int r;

	r = elf_open(&e, buf, len, name, err);
	if (r)
		return r;
	ranges = malloc((e.shnum ? e.shnum : 1) * sizeof(*ranges));
	if (!ranges)
		return error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
	/* .nv_fatbin first: where a kernel is in both, the linked code wins. */
	for (w = 0; w < ARRAY_LENGTH(wanted); w++) {
		for (i = 0; i < e.shnum; i++) {
			struct shdr sh;
			const char *sname;

			r = elf_section(&e, i, &sh, err);
			if (r)
				goto out;
			sname = elf_str(e.shstr, e.shstr_len, sh.name);
			if (!sname || strcmp(sname, wanted[w]) != 0 || sh.type == SHT_NOBITS ||
			    sh.size == 0)
				continue;
			ranges[n] = (struct sec_range){ sh.offset, sh.offset + sh.size, n, i,
							wanted[w], false };
			n++;
		}
	}
	/* Duplicate and overlapping ranges are scanned once (above). */
	keep_disjoint(ranges, n);
	for (i = 0; i < n; i++) {
		if (!ranges[i].keep)
			continue;
		r = scan_containers(buf, (size_t)ranges[i].start, (size_t)ranges[i].end, container,
				    ranges[i].where, name, iv, err);
		if (r)
			goto out;
	}
	r = GPUPROJ_OK;
out:
	free(ranges);
	return r;
}

static int
cubin_arch(const unsigned char *buf)
{
	uint32_t flags = rd32(buf + 48);

	if (buf[8] >= 8)
		return (int)((flags >> 8) & 0xff);
	return (int)(flags & 0xff);
}

int
fatbin_scan(const unsigned char *buf, size_t len, const char *name, size_t first_container,
	    struct fatbin_image **ret, size_t *ret_n, size_t *ret_containers,
	    struct gpuproj_error *err)
{
	struct image_vec iv = { 0 };
	size_t container = first_container;
	int r;

	iv.inflate_budget = len > FATBIN_MAX_RAW / FATBIN_MAX_INFLATE ?
			    (uint64_t)len * FATBIN_MAX_INFLATE : FATBIN_MAX_RAW;
	*ret = NULL;
	*ret_n = 0;
	*ret_containers = first_container;
	if (len >= 4 && rd32(buf) == FATBIN_MAGIC) {
		r = scan_containers(buf, 0, len, &container, "fatbin", name, &iv, err);
	} else if (cubin_is_cubin(buf, len)) {
		struct fatbin_image im = {
			.kind = FATBIN_ELF, .arch = cubin_arch(buf), .container = container++,
			.where = "cubin", .offset = 0, .data = buf, .size = len,
			.codec = FATBIN_RAW, .raw_size = len,
		};

		if (im.arch < 10)
			r = parse_error(err, name, 48, "cubin e_flags name no architecture");
		else
			r = image_push(&iv, &im) ? error_set(err, GPUPROJ_E_NOMEM, name, 0, 0,
							     "out of memory") : GPUPROJ_OK;
	} else if (is_elf(buf, len)) {
		r = scan_host_elf(buf, len, name, &container, &iv, err);
	} else {
		r = error_set(err, GPUPROJ_E_UNSUPPORTED, name, 0, 0,
			      "not a cubin, fatbin or ELF file with CUDA device code");
	}
	if (r) {
		free(iv.v);
		return r;
	}
	*ret = iv.v;
	*ret_n = iv.n;
	*ret_containers = container;
	return GPUPROJ_OK;
}

int
fatbin_extract(const struct fatbin_image *im, const char *name, unsigned char **ret,
	       size_t *ret_len, struct gpuproj_error *err)
{
	unsigned char *out;
	size_t n = (size_t)im->raw_size;

	*ret = NULL;
	*ret_len = 0;
	if (!fatbin_codec_supported(im->codec))
		return error_set(err, GPUPROJ_E_UNSUPPORTED, name, 0, 0,
				 "offset 0x%zx: %s-compressed fatbin entry, but gpuproj was built "
				 "without %s (install %s and rebuild)", im->offset,
				 fatbin_codec_name(im->codec),
				 im->codec == FATBIN_ZSTD ? "libzstd" : "liblz4",
				 im->codec == FATBIN_ZSTD ? "libzstd-dev" : "liblz4-dev");
	if (im->codec == FATBIN_LZ4 && im->raw_size > (uint64_t)im->size * 255 + 16)
		return parse_error(err, name, im->offset, "LZ4 entry claims an impossible "
				   "uncompressed size");
	out = malloc(n + 1);
	if (!out)
		return error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
	switch (im->codec) {
	case FATBIN_RAW:
		memcpy(out, im->data, n);
		break;
	case FATBIN_LZ4:
#ifdef GPUPROJ_HAVE_LZ4
		if (im->size > INT32_MAX || n > INT32_MAX ||
		    LZ4_decompress_safe((const char *)im->data, (char *)out, (int)im->size,
					(int)n) != (int)n) {
			free(out);
			return parse_error(err, name, im->offset, "corrupt LZ4 data in fatbin "
					   "entry");
		}
#endif
		break;
	case FATBIN_ZSTD:
#ifdef GPUPROJ_HAVE_ZSTD
	{
		unsigned long long fcs = ZSTD_getFrameContentSize(im->data, im->size);
		size_t got;

		if (fcs == ZSTD_CONTENTSIZE_ERROR ||
		    (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != n)) {
			free(out);
			return parse_error(err, name, im->offset, "corrupt Zstandard frame "
					   "header in fatbin entry");
		}
		got = ZSTD_decompress(out, n, im->data, im->size);
		if (ZSTD_isError(got) || got != n) {
			free(out);
			return parse_error(err, name, im->offset, "corrupt Zstandard data in "
					   "fatbin entry");
		}
	}
#endif
		break;
	}
	out[n] = '\0';
	*ret = out;
	*ret_len = n;
	return GPUPROJ_OK;
}

/* ---- cubins ---- */

void
cubin_clear(struct cubin *c)
{
	if (!c)
		return;
	free(c->texts);
	free(c->funcs);
	free(c->relocs);
	memset(c, 0, sizeof(*c));
}

static int
func_cmp(const void *a, const void *b)
{
	const struct cubin_func *x = a, *y = b;

	if (x->text != y->text)
		return x->text < y->text ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	/* Kernels before aliases at the same address. */
	return (int)y->entry - (int)x->entry;
}

static int
reloc_cmp(const void *a, const void *b)
{
	const struct cubin_reloc *x = a, *y = b;

	if (x->text != y->text)
		return x->text < y->text ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Relocations of code sections that name functions. */
static int
cubin_relocs(const struct elf *e, struct cubin *ret, const size_t *text_of, size_t symtab,
	     const struct shdr *st, struct gpuproj_error *err)
{
	const unsigned char *buf = e->buf;
	size_t i, j, k, cap = 0, nsyms = (size_t)(st->size / ELF_SYM_SIZE), n_ranges = 0;
	size_t *sym_func = calloc(nsyms + 1, sizeof(*sym_func));
	struct sec_range *ranges = NULL;
	int r = GPUPROJ_OK;

	if (!sym_func)
		return error_set(err, GPUPROJ_E_NOMEM, e->name, 0, 0, "out of memory");
	for (j = 0; j < nsyms; j++)
		sym_func[j] = SIZE_MAX;
	for (j = 0; j < ret->n_funcs; j++) {
		if (ret->funcs[j].sym < nsyms)
			sym_func[ret->funcs[j].sym] = j;
	}
	ranges = malloc((e->shnum ? e->shnum : 1) * sizeof(*ranges));
	if (!ranges) {
		r = error_set(err, GPUPROJ_E_NOMEM, e->name, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < e->shnum; i++) {
		struct shdr rs;
		size_t ent, target;

		shdr_read(e, i, &rs);
		if ((rs.type != SHT_REL && rs.type != SHT_RELA) || rs.link != symtab)
			continue;
		r = elf_section(e, i, &rs, err);
		if (r)
			goto out;
		ent = rs.type == SHT_REL ? 16 : 24;
		if (rs.entsize != ent) {
			r = parse_error(err, e->name, (size_t)e->shoff + i * ELF_SHDR_SIZE + 56,
					"bad ELF relocation size");
			goto out;
		}
		target = rd32(e->buf + e->shoff + i * ELF_SHDR_SIZE + 44);
		if (target >= e->shnum || text_of[target] == SIZE_MAX)
			continue;
		ranges[n_ranges] = (struct sec_range){ rs.offset, rs.offset + rs.size, n_ranges, i,
						       NULL, false };
		n_ranges++;
	}
	/* Relocation sections sharing bytes with an earlier one are left out: linear work. */
	keep_disjoint(ranges, n_ranges);
	for (k = 0; k < n_ranges; k++) {
		struct shdr rs;
		size_t ent, target, n;

		if (!ranges[k].keep)
			continue;
		i = ranges[k].section;
		shdr_read(e, i, &rs);
		ent = rs.type == SHT_REL ? 16 : 24;
		target = rd32(e->buf + e->shoff + i * ELF_SHDR_SIZE + 44);
		n = (size_t)(rs.size / ent);
		for (j = 0; j < n; j++) {
			const unsigned char *p = buf + rs.offset + j * ent;
			uint64_t sym = rd64(p + 8) >> 32;
			struct cubin_reloc *v;

			if (sym >= nsyms || sym_func[sym] == SIZE_MAX)
				continue;
			if (ret->n_relocs == cap) {
				cap = cap ? cap * 2 : 16;
				v = realloc(ret->relocs, cap * sizeof(*v));
				if (!v) {
					r = error_set(err, GPUPROJ_E_NOMEM, e->name, 0, 0,
						      "out of memory");
					goto out;
				}
				ret->relocs = v;
			}
			ret->relocs[ret->n_relocs].text = text_of[target];
			ret->relocs[ret->n_relocs].offset = rd64(p);
			ret->relocs[ret->n_relocs].func = sym_func[sym];
			ret->n_relocs++;
		}
	}
	if (ret->n_relocs > 1)
		qsort(ret->relocs, ret->n_relocs, sizeof(*ret->relocs), reloc_cmp);
out:
	free(ranges);
	free(sym_func);
	return r;
}

int
cubin_parse(const unsigned char *buf, size_t len, const char *name, struct cubin *ret,
	    struct gpuproj_error *err)
{
	struct elf e;
	size_t *text_of = NULL, i, symtab = SIZE_MAX, n_ranges = 0;
	struct sec_range *ranges = NULL;
	struct shdr sh, st, ss;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!cubin_is_cubin(buf, len))
		return parse_error(err, name, 0, "not a cubin (ELF for EM_CUDA)");
	r = elf_open(&e, buf, len, name, err);
	if (r)
		return r;
	ret->arch = cubin_arch(buf);
	ret->relocatable = rd16(buf + 16) == 1;
	if (e.shnum == 0)
		return GPUPROJ_OK;
	text_of = malloc(e.shnum * sizeof(*text_of));
	ret->texts = calloc(e.shnum, sizeof(*ret->texts));
	if (!text_of || !ret->texts) {
		r = error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	ranges = malloc(e.shnum * sizeof(*ranges));
	if (!ranges) {
		r = error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < e.shnum; i++) {
		const char *sname;

		text_of[i] = SIZE_MAX;
		r = elf_section(&e, i, &sh, err);
		if (r)
			goto out;
		if (sh.type == SHT_SYMTAB && symtab == SIZE_MAX)
			symtab = i;
		sname = elf_str(e.shstr, e.shstr_len, sh.name);
		if (sh.type != SHT_PROGBITS || !(sh.flags & SHF_EXECINSTR) || !sname ||
		    !str_startswith(sname, ".text."))
			continue;
		ranges[n_ranges] = (struct sec_range){ sh.offset, sh.offset + sh.size, n_ranges, i,
						       sname, false };
		n_ranges++;
	}
	/* Code sections sharing bytes with an earlier one are left out (keep_disjoint()). */
	keep_disjoint(ranges, n_ranges);
	for (i = 0; i < n_ranges; i++) {
		if (!ranges[i].keep)
			continue;
		text_of[ranges[i].section] = ret->n_texts;
		ret->texts[ret->n_texts].name = ranges[i].where;
		ret->texts[ret->n_texts].data = buf + ranges[i].start;
		ret->texts[ret->n_texts].size = ranges[i].end - ranges[i].start;
		ret->n_texts++;
	}
	if (symtab == SIZE_MAX || ret->n_texts == 0) {
		r = GPUPROJ_OK;
		goto out;
	}
	shdr_read(&e, symtab, &st);
	if (st.entsize != ELF_SYM_SIZE) {
		r = parse_error(err, name, (size_t)e.shoff + symtab * ELF_SHDR_SIZE + 56,
				"bad ELF symbol size");
		goto out;
	}
	if (st.link >= e.shnum) {
		r = parse_error(err, name, (size_t)e.shoff + symtab * ELF_SHDR_SIZE + 40,
				"bad ELF string-table index");
		goto out;
	}
	r = elf_section(&e, st.link, &ss, err);
	if (r)
		goto out;
	if (ss.type == SHT_NOBITS) {
		r = parse_error(err, name, (size_t)e.shoff + st.link * ELF_SHDR_SIZE + 4,
				"ELF string table has no data");
		goto out;
	}
	ret->funcs = calloc((size_t)(st.size / ELF_SYM_SIZE) + 1, sizeof(*ret->funcs));
	if (!ret->funcs) {
		r = error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < st.size / ELF_SYM_SIZE; i++) {
		const unsigned char *p = buf + st.offset + i * ELF_SYM_SIZE;
		uint16_t shndx = rd16(p + 6);
		uint64_t value = rd64(p + 8), size = rd64(p + 16);
		const char *sym;
		struct cubin_func *f;
		size_t t;

		if ((p[4] & 0xf) != STT_FUNC || shndx >= e.shnum || text_of[shndx] == SIZE_MAX)
			continue;
		t = text_of[shndx];
		sym = elf_str(buf + ss.offset, (size_t)ss.size, rd32(p));
		if (!sym || !*sym) {
			r = parse_error(err, name, (size_t)(st.offset + i * ELF_SYM_SIZE),
					"function symbol without a name");
			goto out;
		}
		if (value >= ret->texts[t].size)
			continue; /* empty function at the section end */
		f = &ret->funcs[ret->n_funcs++];
		f->name = sym;
		f->text = t;
		f->offset = value;
		f->size = size > ret->texts[t].size - value ? ret->texts[t].size - value : size;
		f->entry = (p[5] & STO_CUDA_ENTRY) != 0;
		f->sym = i;
	}
	if (ret->n_funcs > 1)
		qsort(ret->funcs, ret->n_funcs, sizeof(*ret->funcs), func_cmp);
	r = cubin_relocs(&e, ret, text_of, symtab, &st, err);
out:
	free(ranges);
	free(text_of);
	return r;
}
