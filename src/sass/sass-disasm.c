/* SPDX-License-Identifier: MIT */
/*
 * From cubin code sections to per-kernel instruction counts: run nvdisasm
 * on raw instruction streams, parse its text, split the code into basic
 * blocks, classify the blocks (special / slow path / other) and count FP
 * instructions by kind (include/gpuproj/sass.h has the definitions).
 *
 * Why raw streams: nvdisasm costs about 0.25 s to start, more than it takes
 * to disassemble a typical cubin, so the code sections of many cubins of
 * one architecture are concatenated and disassembled in one run
 * (`nvdisasm -b SM90 -ndf stream.bin`). In that mode nvdisasm prints no
 * labels or symbols, only `/ *ADDR* /  [@P] OPCODE operands ;` lines with
 * branch targets as stream addresses; function names and boundaries come
 * from the cubin's symbols (sass-fatbin.c) and blocks are found here:
 *
 * - leaders: the first instruction of each function, every target of a
 *   relative branch, call or BSSY (a reconvergence point), and every
 *   instruction after a branch, call, return or exit (predicated or not);
 * - a basic block runs from a leader to the next leader or function end.
 *
 * Block classes:
 * - slow path: every block of a function whose name contains "__cuda_sm"
 *   (nvcc's `$__internal_N_$__cuda_smXX_<what>` subroutines);
 * - special: a block with a MUFU or FCHK instruction; and for each call to
 *   a slow path, the blocks of the innermost BSSY region [BSSY, its
 *   target) around the call (ptxas wraps the fast path, the call and the
 *   fix-ups in one), or the calling block when there is none;
 * - every other block counts in "all" only.
 * A kernel's totals are those of every function in its code section plus
 * every function they call in other sections (CALL.ABS through a
 * relocation: -rdc code and libnvJitLink output keep slow paths in sections
 * of their own), transitively, each function once.
 *
 * Thread safety: reentrant; sass_disasm_chunk() runs a child process.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sass-private.h"
#include "util.h"

enum ctl {
	CTL_NONE = 0,
	CTL_BRANCH,   /* BRA, BRX, JMP, JMX: ends the block */
	CTL_CALL,     /* CALL: ends the block */
	CTL_END,      /* RET, EXIT, KILL, BPT, RTT: ends the block */
	CTL_BSSY,     /* convergence-region start; its target is a leader */
};

struct insn {
	uint64_t off;      /* offset in its section, bytes */
	uint64_t target;   /* section offset of the branch/call/BSSY target, or UINT64_MAX */
	int16_t op;        /* enum gpuproj_sass_op, or -1 */
	uint8_t ctl;       /* enum ctl */
	uint8_t mma;       /* enum gpuproj_tensor_op of a tensor MMA instruction, or 0 */
	double mma_flop;   /* its FLOP per warp instruction (NaN: shape not static) */
};

struct insn_vec {
	struct insn *v;
	size_t n, cap;
};

static const char *const op_names[GPUPROJ_SASS_OP_COUNT] = {
	[GPUPROJ_SASS_FFMA] = "FFMA", [GPUPROJ_SASS_FADD] = "FADD",
	[GPUPROJ_SASS_FMUL] = "FMUL", [GPUPROJ_SASS_DFMA] = "DFMA",
	[GPUPROJ_SASS_DADD] = "DADD", [GPUPROJ_SASS_DMUL] = "DMUL",
	[GPUPROJ_SASS_HFMA2] = "HFMA2", [GPUPROJ_SASS_HADD2] = "HADD2",
	[GPUPROJ_SASS_HMUL2] = "HMUL2", [GPUPROJ_SASS_FFMA2] = "FFMA2",
	[GPUPROJ_SASS_FADD2] = "FADD2", [GPUPROJ_SASS_FMUL2] = "FMUL2",
	[GPUPROJ_SASS_MUFU_RCP] = "MUFU.RCP", [GPUPROJ_SASS_MUFU_RSQ] = "MUFU.RSQ",
	[GPUPROJ_SASS_MUFU_SQRT] = "MUFU.SQRT", [GPUPROJ_SASS_MUFU_EX2] = "MUFU.EX2",
	[GPUPROJ_SASS_MUFU_LG2] = "MUFU.LG2", [GPUPROJ_SASS_MUFU_SIN] = "MUFU.SIN",
	[GPUPROJ_SASS_MUFU_COS] = "MUFU.COS", [GPUPROJ_SASS_MUFU_TANH] = "MUFU.TANH",
	[GPUPROJ_SASS_MUFU_RCP64H] = "MUFU.RCP64H", [GPUPROJ_SASS_MUFU_RSQ64H] = "MUFU.RSQ64H",
	[GPUPROJ_SASS_MUFU_OTHER] = "MUFU (other)", [GPUPROJ_SASS_FCHK] = "FCHK",
	[GPUPROJ_SASS_HMOV] = "HFMA2 (move)", [GPUPROJ_SASS_FP_OTHER] = "FP other",
};

const char *
gpuproj_sass_op_name(enum gpuproj_sass_op op)
{
	if ((unsigned)op >= GPUPROJ_SASS_OP_COUNT)
		return NULL;
	return op_names[op];
}

int
gpuproj_sass_op_flop(enum gpuproj_sass_op op)
{
	switch (op) {
	case GPUPROJ_SASS_FFMA:
	case GPUPROJ_SASS_DFMA:
	case GPUPROJ_SASS_HFMA2:
	case GPUPROJ_SASS_FFMA2:
		return 2;
	case GPUPROJ_SASS_FADD:
	case GPUPROJ_SASS_FMUL:
	case GPUPROJ_SASS_DADD:
	case GPUPROJ_SASS_DMUL:
	case GPUPROJ_SASS_HADD2:
	case GPUPROJ_SASS_HMUL2:
	case GPUPROJ_SASS_FADD2:
	case GPUPROJ_SASS_FMUL2:
		return 1;
	case GPUPROJ_SASS_MUFU_RCP:
	case GPUPROJ_SASS_MUFU_RSQ:
	case GPUPROJ_SASS_MUFU_SQRT:
	case GPUPROJ_SASS_MUFU_EX2:
	case GPUPROJ_SASS_MUFU_LG2:
	case GPUPROJ_SASS_MUFU_SIN:
	case GPUPROJ_SASS_MUFU_COS:
	case GPUPROJ_SASS_MUFU_TANH:
	case GPUPROJ_SASS_MUFU_RCP64H:
	case GPUPROJ_SASS_MUFU_RSQ64H:
	case GPUPROJ_SASS_MUFU_OTHER:
	case GPUPROJ_SASS_FCHK:
	case GPUPROJ_SASS_HMOV:
	case GPUPROJ_SASS_FP_OTHER:
	case GPUPROJ_SASS_OP_COUNT:
		return 0;
	}
	return 0;
}

void
sass_kernel_out_clear(struct sass_kernel_out *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->n_slow_paths; i++)
		free(k->slow_paths[i]);
	free(k->slow_paths);
	memset(k, 0, sizeof(*k));
}

bool
sass_parse_arch(const char *s, int *ret)
{
	char *end;
	long v;

	if (!s)
		return false;
	if ((s[0] == 's' || s[0] == 'S') && (s[1] == 'm' || s[1] == 'M'))
		s += s[2] == '_' ? 3 : 2;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || v < 10 || v > 999)
		return false;
	if (*end == 'a' || *end == 'f')
		end++;
	if (*end)
		return false;
	*ret = (int)v;
	return true;
}

/* ---- instruction text ---- */

static bool
word_eq(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

/* Operands start with the destination then `-RZ, RZ,`: a move idiom. */
static bool
operands_move_idiom(const char *ops, size_t n)
{
	const char *comma = memchr(ops, ',', n);
	size_t rest;

	if (!comma)
		return false;
	comma++;
	rest = n - (size_t)(comma - ops);
	while (rest && *comma == ' ') {
		comma++;
		rest--;
	}
	return rest >= 8 && memcmp(comma, "-RZ, RZ,", 8) == 0;
}

/* A source operand is -RZ (HADD2.F32 Rd, -RZ, Rx.H0_H0 or Rx.H1_H1, -RZ.H0_H0: a conversion). */
static bool
operands_have_neg_zero_source(const char *ops, size_t n)
{
	const char *comma = memchr(ops, ',', n);
	size_t i;

	if (!comma)
		return false;
	for (i = (size_t)(comma - ops) + 1; i + 3 <= n; i++) {
		if (memcmp(ops + i, "-RZ", 3) == 0 && (i + 3 == n || ops[i + 3] == ',' ||
						       ops[i + 3] == '.' || ops[i + 3] == ' '))
			return true;
	}
	return false;
}

static int
mufu_kind(const char *fn, size_t n)
{
	static const struct {
		const char *name;
		int op;
	} kinds[] = {
		{ "RCP", GPUPROJ_SASS_MUFU_RCP }, { "RSQ", GPUPROJ_SASS_MUFU_RSQ },
		{ "SQRT", GPUPROJ_SASS_MUFU_SQRT }, { "EX2", GPUPROJ_SASS_MUFU_EX2 },
		{ "LG2", GPUPROJ_SASS_MUFU_LG2 }, { "SIN", GPUPROJ_SASS_MUFU_SIN },
		{ "COS", GPUPROJ_SASS_MUFU_COS }, { "TANH", GPUPROJ_SASS_MUFU_TANH },
		{ "RCP64H", GPUPROJ_SASS_MUFU_RCP64H }, { "RSQ64H", GPUPROJ_SASS_MUFU_RSQ64H },
	};
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(kinds); i++) {
		if (word_eq(fn, n, kinds[i].name))
			return kinds[i].op;
	}
	return GPUPROJ_SASS_MUFU_OTHER;
}

/*
 * Classify an opcode (with modifiers, e.g. "FFMA.FTZ", "MUFU.RCP64H") and
 * its operand text: the FP kind or -1, and the control-flow class.
 */
static void
classify(const char *opc, size_t n, const char *ops, size_t nops, int *ret_op, int *ret_ctl,
	 bool *ret_target)
{
	static const struct {
		const char *name;
		int op;
	} fp[] = {
		{ "FFMA", GPUPROJ_SASS_FFMA }, { "FFMA32I", GPUPROJ_SASS_FFMA },
		{ "FADD", GPUPROJ_SASS_FADD }, { "FADD32I", GPUPROJ_SASS_FADD },
		{ "FMUL", GPUPROJ_SASS_FMUL }, { "FMUL32I", GPUPROJ_SASS_FMUL },
		{ "DFMA", GPUPROJ_SASS_DFMA }, { "DADD", GPUPROJ_SASS_DADD },
		{ "DMUL", GPUPROJ_SASS_DMUL }, { "HFMA2", GPUPROJ_SASS_HFMA2 },
		{ "HFMA2_32I", GPUPROJ_SASS_HFMA2 }, { "HADD2", GPUPROJ_SASS_HADD2 },
		{ "HADD2_32I", GPUPROJ_SASS_HADD2 }, { "HMUL2", GPUPROJ_SASS_HMUL2 },
		{ "HMUL2_32I", GPUPROJ_SASS_HMUL2 }, { "FFMA2", GPUPROJ_SASS_FFMA2 },
		{ "FADD2", GPUPROJ_SASS_FADD2 }, { "FMUL2", GPUPROJ_SASS_FMUL2 },
		{ "FCHK", GPUPROJ_SASS_FCHK },
		{ "FSETP", GPUPROJ_SASS_FP_OTHER }, { "FSET", GPUPROJ_SASS_FP_OTHER },
		{ "FSEL", GPUPROJ_SASS_FP_OTHER }, { "FMNMX", GPUPROJ_SASS_FP_OTHER },
		{ "FMNMX3", GPUPROJ_SASS_FP_OTHER }, { "FSWZADD", GPUPROJ_SASS_FP_OTHER },
		{ "FRND", GPUPROJ_SASS_FP_OTHER }, { "FCMP", GPUPROJ_SASS_FP_OTHER },
		{ "F2F", GPUPROJ_SASS_FP_OTHER }, { "F2I", GPUPROJ_SASS_FP_OTHER },
		{ "F2FP", GPUPROJ_SASS_FP_OTHER }, { "F2IP", GPUPROJ_SASS_FP_OTHER },
		{ "I2F", GPUPROJ_SASS_FP_OTHER }, { "I2FP", GPUPROJ_SASS_FP_OTHER },
		{ "DSETP", GPUPROJ_SASS_FP_OTHER }, { "DSET", GPUPROJ_SASS_FP_OTHER },
		{ "DMNMX", GPUPROJ_SASS_FP_OTHER }, { "HSETP2", GPUPROJ_SASS_FP_OTHER },
		{ "HSET2", GPUPROJ_SASS_FP_OTHER }, { "HMNMX2", GPUPROJ_SASS_FP_OTHER },
	};
	const char *dot = memchr(opc, '.', n);
	size_t base = dot ? (size_t)(dot - opc) : n, i;

	*ret_op = -1;
	*ret_ctl = CTL_NONE;
	*ret_target = false;
	if (word_eq(opc, base, "MUFU")) {
		const char *fn = dot ? dot + 1 : opc + n, *d2;
		size_t fl;

		d2 = memchr(fn, '.', (size_t)(opc + n - fn));
		fl = d2 ? (size_t)(d2 - fn) : (size_t)(opc + n - fn);
		*ret_op = mufu_kind(fn, fl);
		return;
	}
	for (i = 0; i < ARRAY_LENGTH(fp); i++) {
		if (word_eq(opc, base, fp[i].name)) {
			*ret_op = fp[i].op;
			if (*ret_op == GPUPROJ_SASS_HFMA2 && operands_move_idiom(ops, nops))
				*ret_op = GPUPROJ_SASS_HMOV;
			else if (*ret_op == GPUPROJ_SASS_HADD2 && dot && opc + n - dot >= 4 &&
				 memcmp(dot, ".F32", 4) == 0 &&
				 operands_have_neg_zero_source(ops, nops))
				*ret_op = GPUPROJ_SASS_FP_OTHER;
			return;
		}
	}
	/* Targets: BRA and CALL.REL are PC-relative (printed as stream addresses). */
	if (word_eq(opc, base, "BRA")) {
		*ret_ctl = CTL_BRANCH;
		*ret_target = true;
	} else if (word_eq(opc, base, "BRX") || word_eq(opc, base, "BRXU") ||
		   word_eq(opc, base, "JMP") || word_eq(opc, base, "JMX") ||
		   word_eq(opc, base, "JMXU")) {
		*ret_ctl = CTL_BRANCH;
	} else if (word_eq(opc, base, "CALL")) {
		*ret_ctl = CTL_CALL;
		*ret_target = n >= 8 && memmem(opc, n, ".REL", 4) != NULL;
	} else if (word_eq(opc, base, "RET") || word_eq(opc, base, "EXIT") ||
		 word_eq(opc, base, "KILL") || word_eq(opc, base, "BPT") ||
		 word_eq(opc, base, "RTT"))
		*ret_ctl = CTL_END;
	else if (word_eq(opc, base, "BSSY")) {
		*ret_ctl = CTL_BSSY;
		*ret_target = true;
	}
}

/* The last "0x…" number in the operands, or UINT64_MAX. */
static uint64_t
last_hex(const char *ops, size_t n)
{
	uint64_t v = UINT64_MAX;
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if (ops[i] == '0' && ops[i + 1] == 'x' && (i == 0 || ops[i - 1] == ' ' ||
							   ops[i - 1] == ',')) {
			uint64_t x = 0;
			size_t j = i + 2, digits = 0;

			for (; j < n; j++, digits++) {
				char c = ops[j];
				int d;

				if (c >= '0' && c <= '9')
					d = c - '0';
				else if (c >= 'a' && c <= 'f')
					d = c - 'a' + 10;
				else if (c >= 'A' && c <= 'F')
					d = c - 'A' + 10;
				else
					break;
				if (digits >= 16)
					return UINT64_MAX;
				x = x << 4 | (uint64_t)d;
			}
			if (digits > 0)
				v = x;
			i = j;
		}
	}
	return v;
}

static bool
insn_push(struct insn_vec *iv, const struct insn *in)
{
	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? iv->cap * 2 : 1024;
		struct insn *v = realloc(iv->v, cap * sizeof(*v));

		if (!v)
			return false;
		iv->v = v;
		iv->cap = cap;
	}
	iv->v[iv->n++] = *in;
	return true;
}

/* ---- blocks ---- */

enum block_class { BLOCK_OTHER = 0, BLOCK_SPECIAL, BLOCK_SLOW };

struct func_range {
	size_t func;          /* index into cubin->funcs */
	size_t first, end;    /* instruction indices [first, end) */
	bool slow;
};

/* Index of the first instruction at offset >= off (insns sorted by off). */
static size_t
insn_lower_bound(const struct insn *v, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool
is_slow_name(const char *name)
{
	return strstr(name, "__cuda_sm") != NULL;
}

/* "$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath" → "div_rn_noftz_f32_slowpath" */
static const char *
slow_short_name(const char *name)
{
	const char *p = strstr(name, "__cuda_sm");

	if (!p)
		return name;
	p += strlen("__cuda_sm");
	while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z'))
		p++;
	if (*p == '_')
		p++;
	return *p ? p : name;
}

static void
counts_add(struct gpuproj_sass_counts *c, const struct insn *v, size_t first, size_t end)
{
	size_t i;

	c->blocks++;
	for (i = first; i < end; i++) {
		if (v[i].op >= 0) {
			c->n[v[i].op]++;
			c->flop += gpuproj_sass_op_flop((enum gpuproj_sass_op)v[i].op);
		}
		if (v[i].mma && isfinite(v[i].mma_flop)) {
			c->mma[v[i].mma]++;
			c->mma_flop[v[i].mma] += v[i].mma_flop;
		} else if (v[i].mma) {
			c->mma_unshaped[v[i].mma]++;
		}
	}
}

static void
counts_merge(struct gpuproj_sass_counts *to, const struct gpuproj_sass_counts *from)
{
	int op;

	for (op = 0; op < GPUPROJ_SASS_OP_COUNT; op++)
		to->n[op] += from->n[op];
	to->blocks += from->blocks;
	to->flop += from->flop;
	for (op = 0; op < GPUPROJ_TOP_COUNT; op++) {
		to->mma[op] += from->mma[op];
		to->mma_flop[op] += from->mma_flop[op];
		to->mma_unshaped[op] += from->mma_unshaped[op];
	}
}

static bool
is_special_marker(int op)
{
	return (op >= GPUPROJ_SASS_MUFU_RCP && op <= GPUPROJ_SASS_MUFU_OTHER) ||
	       op == GPUPROJ_SASS_FCHK;
}

void
sass_section_clear(struct sass_section *sec)
{
	size_t i;

	for (i = 0; i < sec->n_funcs; i++)
		free(sec->funcs[i].calls);
	free(sec->funcs);
	sec->funcs = NULL;
	sec->n_funcs = 0;
}

/* Function ranges of a section, in address order (aliases dropped). */
static struct func_range *
section_functions(const struct sass_section *sec, const struct insn *v, size_t n, size_t *ret_n)
{
	const struct cubin *c = sec->cubin;
	struct func_range *fr;
	size_t i, k = 0;

	*ret_n = 0;
	fr = calloc(c->n_funcs + 1, sizeof(*fr));
	if (!fr)
		return NULL;
	for (i = 0; i < c->n_funcs; i++) {
		const struct cubin_func *f = &c->funcs[i];

		if (f->text != sec->text)
			continue;
		if (k > 0 && c->funcs[fr[k - 1].func].offset == f->offset)
			continue; /* alias of the previous symbol */
		fr[k].func = i;
		fr[k].first = insn_lower_bound(v, n, f->offset);
		fr[k].slow = is_slow_name(f->name);
		k++;
	}
	for (i = 0; i < k; i++)
		fr[i].end = i + 1 < k ? fr[i + 1].first : n;
	*ret_n = k;
	return fr;
}

/* The function called by the CALL at v[i]: local target, else a relocation; SIZE_MAX if unknown. */
static size_t
callee(const struct sass_section *sec, const struct func_range *fr, size_t nf,
       const struct insn *v, size_t n, size_t i)
{
	const struct cubin *c = sec->cubin;
	size_t lo = 0, hi = c->n_relocs, f;

	if (v[i].target != UINT64_MAX) {
		size_t t = insn_lower_bound(v, n, v[i].target);

		for (f = 0; f < nf; f++) {
			if (t >= fr[f].first && t < fr[f].end)
				return fr[f].func;
		}
		return SIZE_MAX;
	}
	/* First relocation at or after (text, off). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cubin_reloc *r = &c->relocs[mid];

		if (r->text < sec->text || (r->text == sec->text && r->offset < v[i].off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->n_relocs && c->relocs[lo].text == sec->text &&
	    c->relocs[lo].offset < v[i].off + 16)
		return c->relocs[lo].func;
	return SIZE_MAX;
}

static int
add_call(struct sass_func_out *fo, size_t func)
{
	size_t *v;
	size_t i;

	for (i = 0; i < fo->n_calls; i++) {
		if (fo->calls[i] == func)
			return GPUPROJ_OK;
	}
	v = realloc(fo->calls, (fo->n_calls + 1) * sizeof(*v));
	if (!v)
		return GPUPROJ_E_NOMEM;
	fo->calls = v;
	v[fo->n_calls++] = func;
	return GPUPROJ_OK;
}

/* Analyse one section's instructions: fills sec->funcs, one per function. */
static int
analyze_section(struct sass_section *sec, const struct insn *v, size_t n)
{
	const struct cubin *c = sec->cubin;
	struct func_range *fr = NULL;
	size_t nf = 0, i, j, f, nb = 0;
	size_t *block_first = NULL, *block_of = NULL, *func_of_block = NULL;
	unsigned char *leader = NULL, *cls = NULL;
	int r = GPUPROJ_E_NOMEM;

	sec->funcs = NULL;
	sec->n_funcs = 0;
	fr = section_functions(sec, v, n, &nf);
	if (!fr)
		goto out;
	if (n == 0 || nf == 0) {
		r = GPUPROJ_OK;
		goto out;
	}
	sec->funcs = calloc(nf, sizeof(*sec->funcs));
	leader = calloc(n + 1, 1);
	block_of = malloc(n * sizeof(*block_of));
	block_first = malloc((n + 1) * sizeof(*block_first));
	func_of_block = malloc((n + 1) * sizeof(*func_of_block));
	if (!sec->funcs || !leader || !block_of || !block_first || !func_of_block)
		goto out;
	sec->n_funcs = nf;
	leader[0] = 1;
	for (f = 0; f < nf; f++) {
		sec->funcs[f].func = fr[f].func;
		sec->funcs[f].slow = fr[f].slow;
		if (fr[f].first < n)
			leader[fr[f].first] = 1;
	}
	for (i = 0; i < n; i++) {
		if (v[i].ctl == CTL_BRANCH || v[i].ctl == CTL_CALL || v[i].ctl == CTL_END)
			leader[i + 1] = 1;
		if (v[i].target != UINT64_MAX) {
			j = insn_lower_bound(v, n, v[i].target);
			if (j < n && v[j].off == v[i].target)
				leader[j] = 1;
		}
	}
	/* Blocks, and the function each belongs to (code before the first function: none). */
	f = SIZE_MAX;
	for (i = 0, j = 0; i < n; i++) {
		while (j < nf && i >= fr[j].first)
			f = j++;
		if (leader[i]) {
			block_first[nb] = i;
			func_of_block[nb] = f;
			nb++;
		}
		block_of[i] = nb - 1;
	}
	block_first[nb] = n;
	cls = calloc(nb, 1);
	if (!cls)
		goto out;
	for (j = 0; j < nb; j++) {
		if (func_of_block[j] != SIZE_MAX && fr[func_of_block[j]].slow)
			cls[j] = BLOCK_SLOW;
	}
	for (i = 0; i < n; i++) {
		if (cls[block_of[i]] != BLOCK_SLOW && is_special_marker(v[i].op))
			cls[block_of[i]] = BLOCK_SPECIAL;
	}
	/* Calls: record them; around calls to slow paths, the BSSY region is special. */
	for (i = 0; i < n; i++) {
		size_t fb = func_of_block[block_of[i]], to, best = SIZE_MAX, fstart, fend;

		if (v[i].ctl != CTL_CALL || fb == SIZE_MAX)
			continue;
		to = callee(sec, fr, nf, v, n, i);
		if (to == SIZE_MAX)
			continue;
		if (add_call(&sec->funcs[fb], to))
			goto out;
		if (!is_slow_name(c->funcs[to].name) || cls[block_of[i]] == BLOCK_SLOW)
			continue;
		fstart = fr[fb].first;
		fend = fr[fb].end;
		for (j = fstart; j < i; j++) {
			if (v[j].ctl == CTL_BSSY && v[j].target != UINT64_MAX &&
			    v[j].target > v[i].off && (best == SIZE_MAX || v[j].off > v[best].off))
				best = j;
		}
		if (best == SIZE_MAX) {
			cls[block_of[i]] = BLOCK_SPECIAL;
			continue;
		}
		for (j = best; j < fend && v[j].off < v[best].target; j++)
			cls[block_of[j]] = BLOCK_SPECIAL;
	}
	/* Counts: every block once, into its function. */
	for (j = 0; j < nb; j++) {
		size_t first = block_first[j], end = block_first[j + 1];
		struct sass_func_out *fo;

		if (func_of_block[j] == SIZE_MAX)
			continue;
		fo = &sec->funcs[func_of_block[j]];
		counts_add(&fo->all, v, first, end);
		if (cls[j] != BLOCK_SPECIAL)
			continue;
		counts_add(&fo->special, v, first, end);
		for (i = first; i < end; i++) {
			if (is_special_marker(v[i].op))
				fo->special_ops |= 1u << v[i].op;
		}
	}
	r = GPUPROJ_OK;
out:
	if (r)
		sass_section_clear(sec);
	free(fr);
	free(leader);
	free(block_of);
	free(block_first);
	free(func_of_block);
	free(cls);
	return r;
}

static int
add_slow_path(struct sass_kernel_out *k, const char *name)
{
	const char *s = slow_short_name(name);
	char **v;
	size_t i;

	for (i = 0; i < k->n_slow_paths; i++) {
		if (strcmp(k->slow_paths[i], s) == 0)
			return GPUPROJ_OK;
	}
	v = realloc(k->slow_paths, (k->n_slow_paths + 1) * sizeof(*v));
	if (!v)
		return GPUPROJ_E_NOMEM;
	k->slow_paths = v;
	if (!(v[k->n_slow_paths] = xstrdup(s)))
		return GPUPROJ_E_NOMEM;
	k->n_slow_paths++;
	return GPUPROJ_OK;
}

int
sass_kernel_totals(const struct cubin *c, const struct sass_func_out *const *by_func,
		   size_t entry, struct sass_kernel_out *ret)
{
	size_t *stack = NULL, top = 0, i;
	unsigned char *seen = NULL;
	int r = GPUPROJ_E_NOMEM;

	memset(ret, 0, sizeof(*ret));
	ret->name = c->funcs[entry].name;
	stack = malloc((c->n_funcs + 1) * sizeof(*stack));
	seen = calloc(c->n_funcs + 1, 1);
	if (!stack || !seen)
		goto out;
	/* The kernel's section, then what it calls. */
	for (i = 0; i < c->n_funcs; i++) {
		if (c->funcs[i].text == c->funcs[entry].text) {
			seen[i] = 1;
			stack[top++] = i;
		}
	}
	while (top > 0) {
		size_t fi = stack[--top];
		const struct sass_func_out *fo = by_func[fi];

		if (!fo)
			continue;
		if (fo->slow) {
			counts_merge(&ret->slow, &fo->all);
			if (add_slow_path(ret, c->funcs[fi].name))
				goto out;
		} else {
			counts_merge(&ret->all, &fo->all);
			counts_merge(&ret->special, &fo->special);
			ret->special_ops |= fo->special_ops;
		}
		for (i = 0; i < fo->n_calls; i++) {
			if (fo->calls[i] < c->n_funcs && !seen[fo->calls[i]]) {
				seen[fo->calls[i]] = 1;
				stack[top++] = fo->calls[i];
			}
		}
	}
	r = GPUPROJ_OK;
out:
	if (r)
		sass_kernel_out_clear(ret);
	free(stack);
	free(seen);
	return r;
}

/* ---- nvdisasm text ---- */

static bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int
sass_analyze_text(const char *text, size_t len, struct sass_section *sections,
		  size_t n_sections, struct gpuproj_error *err)
{
	struct insn_vec iv = { 0 };
	const char *p = text, *end = text + len;
	size_t s = 0, lineno = 0;
	uint64_t last = 0;
	bool any = false;
	int r = GPUPROJ_OK;

	for (size_t i = 0; i < n_sections; i++) {
		sections[i].funcs = NULL;
		sections[i].n_funcs = 0;
	}
	while (p < end && s < n_sections) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q, *opc, *ops;
		const struct sass_section *sec;
		size_t nopc, nops;
		uint64_t addr = 0;
		struct insn in;
		int op, ctl;
		bool want_target;

		if (!eol)
			eol = end;
		lineno++;
		q = p;
		p = eol + 1;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (eol - q < 4 || q[0] != '/' || q[1] != '*')
			continue;
		q += 2;
		if (q >= eol || !is_hex(*q))
			continue;
		for (; q < eol && is_hex(*q); q++) {
			if (addr >> 60) {
				r = error_set(err, GPUPROJ_E_BACKEND, "nvdisasm", (int)lineno, 0,
					      "address out of range");
				goto out;
			}
			addr = addr << 4 | (uint64_t)(*q <= '9' ? *q - '0' : (*q | 0x20) - 'a' + 10);
		}
		if (eol - q < 2 || q[0] != '*' || q[1] != '/')
			continue;
		q += 2;
		while (q < eol && (*q == ' ' || *q == '\t' || *q == '{'))
			q++;
		if (q < eol && *q == '@') {
			while (q < eol && *q != ' ')
				q++;
			while (q < eol && *q == ' ')
				q++;
		}
		opc = q;
		while (q < eol && ((*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
				   *q == '.' || *q == '_'))
			q++;
		nopc = (size_t)(q - opc);
		if (nopc == 0)
			continue;
		while (q < eol && *q == ' ')
			q++;
		ops = q;
		while (q < eol && *q != ';')
			q++;
		nops = (size_t)(q - ops);
		if (any && addr <= last) {
			r = error_set(err, GPUPROJ_E_BACKEND, "nvdisasm", (int)lineno, 0,
				      "addresses go backwards (0x%llx after 0x%llx)",
				      (unsigned long long)addr, (unsigned long long)last);
			goto out;
		}
		any = true;
		last = addr;
		/* Sections are placed in order; finish those we have passed. */
		while (s < n_sections &&
		       addr >= sections[s].base + sections[s].cubin->texts[sections[s].text].size) {
			r = analyze_section(&sections[s], iv.v, iv.n);
			if (r)
				goto out;
			iv.n = 0;
			s++;
		}
		if (s == n_sections)
			break;
		sec = &sections[s];
		if (addr < sec->base)
			continue; /* padding between sections */
		classify(opc, nopc, ops, nops, &op, &ctl, &want_target);
		in.off = addr - sec->base;
		in.op = (int16_t)op;
		in.ctl = (uint8_t)ctl;
		in.mma = 0;
		in.mma_flop = 0;
		/*
		 * Tensor MMAs: the FLOP of the opcode's shape (src/tensor.c's
		 * table); the whole token, as warpgroup shapes have a lower-case
		 * x ("HGMMA.64x128x16.F32").
		 */
		if (memmem(opc, nopc, "MMA", 3)) {
			struct gpuproj_tensor_shape shape;
			size_t ntok = 0;
			char opcode[64];

			while (opc + ntok < eol && opc[ntok] != ' ' && opc[ntok] != ';')
				ntok++;
			snprintf(opcode, sizeof(opcode), "%.*s", (int)ntok, opc);
			if (gpuproj_tensor_sass_op(opcode, sec->arch, &shape)) {
				in.mma = (uint8_t)shape.op;
				in.mma_flop = shape.flop_per_inst;
			}
		}
		in.target = UINT64_MAX;
		if (want_target) {
			uint64_t t = last_hex(ops, nops);

			if (t != UINT64_MAX && t >= sec->base &&
			    t < sec->base + sec->cubin->texts[sec->text].size)
				in.target = t - sec->base;
		}
		if (!insn_push(&iv, &in)) {
			r = error_set(err, GPUPROJ_E_NOMEM, "", 0, 0, "out of memory");
			goto out;
		}
	}
	for (; s < n_sections; s++) {
		r = analyze_section(&sections[s], iv.v, iv.n);
		if (r)
			goto out;
		iv.n = 0;
	}
	if (!any && n_sections > 0) {
		r = error_set(err, GPUPROJ_E_BACKEND, "nvdisasm", 0, 0,
			      "nvdisasm printed no instructions");
		goto out;
	}
out:
	if (r == GPUPROJ_E_NOMEM && err && !err->message[0])
		error_set(err, r, "", 0, 0, "out of memory");
	if (r) {
		for (size_t i = 0; i < n_sections; i++)
			sass_section_clear(&sections[i]);
	}
	free(iv.v);
	return r;
}

int
sass_disasm_chunk(const char *nvdisasm, int arch, struct sass_section *sections,
		  size_t n_sections, struct gpuproj_error *err)
{
	const char *dir = getenv("TMPDIR");
	char *path = NULL, archopt[16], line[300];
	const char *argv[6];
	struct proc_result res = { 0 };
	uint64_t pos = 0;
	size_t i;
	int fd = -1, r;

	path = xasprintf("%s/gpuproj-sass-XXXXXX", dir && *dir ? dir : "/tmp");
	if (!path)
		return error_set(err, GPUPROJ_E_NOMEM, "", 0, 0, "out of memory");
	fd = mkstemp(path);
	if (fd < 0) {
		r = error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot create: %s", strerror(errno));
		free(path);
		return r;
	}
	for (i = 0; i < n_sections; i++) {
		const struct cubin_text *t = &sections[i].cubin->texts[sections[i].text];
		const unsigned char *d = t->data;
		size_t left = (size_t)t->size;

		sections[i].base = pos;
		while (left > 0) {
			ssize_t w = write(fd, d, left);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				r = error_set(err, GPUPROJ_E_IO, path, 0, 0, "write: %s",
					      strerror(errno));
				goto out;
			}
			d += w;
			left -= (size_t)w;
		}
		pos += t->size;
		/* Keep every section on an instruction boundary (they are, in practice). */
		while (pos % 16) {
			static const unsigned char zero;

			if (write(fd, &zero, 1) != 1) {
				r = error_set(err, GPUPROJ_E_IO, path, 0, 0, "write: %s",
					      strerror(errno));
				goto out;
			}
			pos++;
		}
	}
	if (close(fd)) {
		fd = -1;
		r = error_set(err, GPUPROJ_E_IO, path, 0, 0, "write: %s", strerror(errno));
		goto out;
	}
	fd = -1;
	snprintf(archopt, sizeof(archopt), "SM%d", arch);
	argv[0] = nvdisasm;
	argv[1] = "-b";
	argv[2] = archopt;
	argv[3] = "-ndf";
	argv[4] = path;
	argv[5] = NULL;
	r = proc_run(argv, &res, err);
	if (r)
		goto out;
	if (res.status != 0) {
		const char *e = res.err;

		while (*e == '\n' || *e == ' ')
			e++;
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(e, "\n"), e);
		r = error_set(err, GPUPROJ_E_BACKEND, "nvdisasm", 0, 0,
			      "nvdisasm failed on sm_%d code (exit %d): %s", arch, res.status,
			      line[0] ? line : "no message");
		goto out;
	}
	for (i = 0; i < n_sections; i++)
		sections[i].arch = arch;
	r = sass_analyze_text(res.out, res.out_len, sections, n_sections, err);
out:
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(path);
	proc_result_clear(&res);
	return r;
}
