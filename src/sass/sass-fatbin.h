/* SPDX-License-Identifier: MIT */
/*
 * CUDA device-code containers, parsed from untrusted bytes without any
 * NVIDIA tool: host ELF files (.nv_fatbin, __nv_relfatbin), fatbin
 * containers, compressed fatbin entries (LZ4, Zstandard) and cubins (ELF,
 * EM_CUDA). The byte layouts and where they come from are documented at
 * the top of sass-fatbin.c.
 *
 * Every length is checked against its buffer; malformed input returns
 * GPUPROJ_E_PARSE with the byte offset of the problem in the message.
 *
 * Thread safety: every function is reentrant; results reference the
 * caller's input buffer, which must outlive them.
 */
#ifndef GPUPROJ_SASS_FATBIN_H
#define GPUPROJ_SASS_FATBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuproj/error.h>

/* Kinds of fatbin entries we use (others, e.g. LTO-IR = 4, are skipped). */
enum fatbin_kind {
	FATBIN_PTX = 1,   /* PTX text (a virtual architecture compute_XY) */
	FATBIN_ELF = 2,   /* cubin: SASS for a real architecture sm_XY */
};

enum fatbin_codec {
	FATBIN_RAW = 0,   /* stored as is */
	FATBIN_LZ4 = 1,   /* LZ4 block format (flag 0x2000; `-compress-mode=speed`) */
	FATBIN_ZSTD = 2,  /* Zstandard frame (flag 0x8000; CUDA 12.8+ default for PTX) */
};

/* One device image found in an input. */
struct fatbin_image {
	enum fatbin_kind kind;
	int arch;                   /* 75 for sm_75 / compute_75 */
	size_t container;           /* index of its container (one module / translation unit) */
	const char *where;          /* ".nv_fatbin", "__nv_relfatbin", "fatbin" or "cubin" (static) */
	size_t offset;              /* offset of the payload in the input, bytes */
	const unsigned char *data;  /* payload as stored (compressed or not) */
	size_t size;                /* bytes at data */
	enum fatbin_codec codec;
	uint64_t raw_size;          /* size once decompressed, bytes (= size when RAW) */
};

/*
 * List the device images of an input: a host ELF (executable, shared
 * library or object), a fatbin file (one or more containers) or a bare
 * cubin. Container indices start at `first_container`.
 *
 * ret: malloc'd array (free()), NULL with *ret_n == 0 when the input holds
 * no device code (that is not an error here). ret_containers: the next
 * free container index.
 * Errors: GPUPROJ_E_PARSE (malformed, with the offset), GPUPROJ_E_UNSUPPORTED
 * (not ELF/fatbin, big-endian or 32-bit ELF, unknown codec), GPUPROJ_E_NOMEM.
 */
int fatbin_scan(const unsigned char *buf, size_t len, const char *name, size_t first_container,
		struct fatbin_image **ret, size_t *ret_n, size_t *ret_containers,
		struct gpuproj_error *err);

/*
 * The payload of an image, decompressed: a malloc'd copy of raw_size bytes
 * plus a NUL (so PTX is a C string). Errors: GPUPROJ_E_PARSE (corrupt
 * stream or size mismatch), GPUPROJ_E_UNSUPPORTED (codec not built in),
 * GPUPROJ_E_NOMEM.
 */
int fatbin_extract(const struct fatbin_image *im, const char *name, unsigned char **ret,
		   size_t *ret_len, struct gpuproj_error *err);

/* Whether this build can decompress a codec (libzstd / liblz4 found at build time). */
bool fatbin_codec_supported(enum fatbin_codec codec);
/* "raw", "lz4", "zstd" */
const char *fatbin_codec_name(enum fatbin_codec codec);

/* A function symbol of a cubin. */
struct cubin_func {
	const char *name;     /* points into the cubin's string table */
	size_t text;          /* index into cubin.texts */
	uint64_t offset;      /* offset in its section, bytes */
	uint64_t size;        /* bytes (0 = up to the next function or section end) */
	bool entry;           /* STO_CUDA_ENTRY: a kernel */
	size_t sym;           /* index in the ELF symbol table */
};

/* An executable section (.text.<function>) of a cubin. */
struct cubin_text {
	const char *name;            /* section name */
	const unsigned char *data;   /* instructions */
	uint64_t size;               /* bytes */
};

/* A relocation in a code section that names a function (calls across sections). */
struct cubin_reloc {
	size_t text;          /* index into cubin.texts of the patched section */
	uint64_t offset;      /* offset of the patched bytes in it */
	size_t func;          /* index into cubin.funcs of the function named */
};

struct cubin {
	int arch;                 /* 90 for sm_90, from e_flags */
	bool relocatable;         /* ET_REL */
	struct cubin_text *texts; /* malloc'd */
	size_t n_texts;
	struct cubin_func *funcs; /* malloc'd, sorted by (text, offset) */
	size_t n_funcs;
	struct cubin_reloc *relocs; /* malloc'd, sorted by (text, offset) */
	size_t n_relocs;
};

/* True when buf starts like a cubin (ELF, EM_CUDA). */
bool cubin_is_cubin(const unsigned char *buf, size_t len);

/*
 * Parse a cubin's sections and function symbols. The result points into
 * buf. Errors: GPUPROJ_E_PARSE (with offset), GPUPROJ_E_UNSUPPORTED,
 * GPUPROJ_E_NOMEM. Clear with cubin_clear() (also after failure).
 */
int cubin_parse(const unsigned char *buf, size_t len, const char *name, struct cubin *ret,
		struct gpuproj_error *err);
void cubin_clear(struct cubin *c);

#endif
