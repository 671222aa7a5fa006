#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compile-only and SASS check of the `gpuproj bench` kernels (src/bench/kernels).

For one architecture: compile every kernel family (compute, dram, cache,
shared; one translation unit) with `nvcc -cubin -arch=sm_XY`, disassemble
with nvdisasm, find each
benchmark kernel's hot loop (the largest loop closed by a backward branch)
and assert that it executes what the benchmark's name says, in the number
the host code counts (src/bench/kernels/bench-kernels.h):

  fp64_fma  64 DFMA and no other FP instruction     fp32_add  64 FADD ...
  fp16_*    64 half2 instructions of the right kind (HFMA2, HADD2, HMUL2;
            ptxas may issue part of them as HFMA2[.MMA] x*1+y or x*y-0,
            which is classified by its operands)
  int32_add 64 IADD3 (not counting the loop counter), no IMAD.IADD
  int32_mad 64 IMAD     gips  32 IMAD + 32 LOP3, 67 instructions in all
            (68 on sm_70/sm_72: Volta's loop head adds a never-true
            `@!PT SHFL.IDX PT, RZ, RZ, RZ, RZ`, issued all the same; the host
            counts 68 there too)
  l2_read   8 LDG.128 without .CONSTANT (ld.global.cg: L2 only)
  l1_read   8 LDG.128.CONSTANT      shared_read 16 LDS.32, nothing else
  shared_ldst 8 LDS + 8 STS         dram_*  the loads, stores and FP ops of
            init/read/copy/scale/triad, four elements per trip
  latency_chase 16 plain LDG.E.64 (no .CONSTANT, no .STRONG: ordinary
            cached loads) and nothing else in memory, forming one dependent
            chain: each load's address register is the destination of the
            load before, and the first one's the last one's (the chain runs
            on across trips), so no two loads can be in flight at once
and that no kernel spills (LDL/STL). A folded chain, a changed opcode or a
changed unroll fails here instead of silently measuring something else.

--self-test compiles kernels that are wrong on purpose (a folded chain, an
unfused FMA, a fully unrolled trip loop, a pointer chase whose loads are
independent) and passes only if the check rejects every one of them.

sm_70 (and any architecture this nvcc no longer lists: CUDA 13 dropped
Volta): the device code is compiled with NVRTC 12 instead (tests/sass/
nvrtc12.py: NVIDIA's nvidia-cuda-nvrtc-cu12 wheel, the compiler of nvcc
12.x as a library; host code is behind `#ifndef __CUDACC_RTC__`) and
disassembled with an nvdisasm that lists the architecture: a CUDA 11/12
one from $GPUPROJ_NVDISASM_LEGACY, ${XDG_CACHE_HOME:-~/.cache}/gpuproj/
legacy-cuda/bin (scripts/setup-deps.sh unpacks 11.8's there) or PATH. Any
NVRTC warning fails, as -Werror all-warnings does with nvcc.

Exit status: 0 all passed, 1 a check failed, 77 skipped (no compiler or no
nvdisasm for the architecture), with the reason printed. Usage:
sass-check.py --arch sm_80 [--src DIR] [--nvcc NVCC] [--keep DIR] [--verbose]
| --self-test [--arch sm_XY] (the self-test uses nvcc)
"""

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
FAMILIES = ["compute", "dram", "cache", "shared", "latency"]

# Constants of src/bench/kernels/bench-kernels.h the host code multiplies out.
OPS_PER_ITER = 64
GIPS_INSTR_PER_ITER = 67
GIPS_INSTR_PER_ITER_VOLTA = 68    # sm_70/sm_72: plus the loop head's @!PT SHFL.IDX
CACHE_LOADS = 8
SHARED_LOADS = 16
LDST_PAIRS = 8
DRAM_UNROLL = 4
CHASE_STEPS = 16

INSN = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^(\.L_x_\d+):")
FUNC = re.compile(r"^\.text\.(\S+):")
BRANCH = re.compile(r"\bBRA(\.\S+)?\s.*?\((\.L_x_\d+)\)")

FP64 = {"DFMA", "DADD", "DMUL"}
FP32 = {"FFMA", "FADD", "FMUL", "FFMA32I", "FADD32I", "FMUL32I", "FMNMX"}
FP16 = {"HFMA2", "HADD2", "HMUL2", "HFMA2.MMA", "HADD2.F32", "HMNMX2"}
# The chase's loads: plain (weak) 64-bit global loads; Turing and Volta print .SYS.
CHASE_OPS = {"LDG.E.64", "LDG.E.64.SYS"}
# "Rd, [Ra]" / "Rd, [Ra.64]" / "Rd, desc[URx][Ra.64]": destination and address registers.
CHASE_LDG = re.compile(r"\s(R\d+),\s*(?:desc\[UR\d+\])?\[(R\d+)(?:\.64)?(\+0x[0-9a-f]+)?\]$")


def find_nvdisasm():
    """$GPUPROJ_NVDISASM, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, the PyPI wheel."""
    env = os.environ.get("GPUPROJ_NVDISASM")
    if env:
        return env if os.access(env, os.X_OK) else None
    p = shutil.which("nvdisasm")
    if p:
        return p
    for d in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if d and os.access(os.path.join(d, "bin", "nvdisasm"), os.X_OK):
            return os.path.join(d, "bin", "nvdisasm")
    try:
        import nvidia  # the nvidia-cuda-nvdisasm wheel's namespace package

        for base in nvidia.__path__:
            for sub in ("cu13", "cu12", "cuda_nvdisasm"):
                p = os.path.join(base, sub, "bin", "nvdisasm")
                if os.access(p, os.X_OK):
                    return p
    except ImportError:
        pass
    return None


def nvdisasm_lists(nvdisasm, arch):
    """Whether `nvdisasm --help` lists SM<XY> for --binary (True when it lists nothing)."""
    r = subprocess.run([nvdisasm, "--help"], capture_output=True, text=True)
    m = re.search(r"\n--binary .*?Allowed values for this option:(.*?)'\.", r.stdout, re.S)
    if not m:
        return True
    return ("'SM%s'" % arch[3:]) in m.group(1)


def legacy_dir():
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not base.startswith("/"):  # as gpuproj (src/sass/sass-tools.c): only an absolute one
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "gpuproj", "legacy-cuda", "bin")


def find_nvdisasm_for(arch):
    """(nvdisasm that lists arch, None) or (None, why): the usual one, else a CUDA 11/12 one."""
    first = find_nvdisasm()
    if first and nvdisasm_lists(first, arch):
        return first, None
    env = os.environ.get("GPUPROJ_NVDISASM_LEGACY")
    if env:
        if os.access(env, os.X_OK) and nvdisasm_lists(env, arch):
            return env, None
        return None, "GPUPROJ_NVDISASM_LEGACY=%s cannot disassemble %s" % (env, arch)
    cands = [os.path.join(legacy_dir(), "nvdisasm")]
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if d:
            cands.append(os.path.join(d, "nvdisasm"))
    for c in cands:
        if os.access(c, os.X_OK) and nvdisasm_lists(c, arch):
            return c, None
    if not first:
        return None, ("nvdisasm was not found ($GPUPROJ_NVDISASM, PATH, $CUDA_HOME/bin, "
                      "/usr/local/cuda/bin, or `pip install nvidia-cuda-nvdisasm`)")
    return None, ("%s cannot disassemble %s (CUDA 13 dropped sm_70 and sm_72) and no "
                  "nvdisasm that can was found ($GPUPROJ_NVDISASM_LEGACY, %s, PATH): "
                  "scripts/setup-deps.sh unpacks CUDA 11.8's there" % (first, arch, legacy_dir()))


def load_nvrtc12():
    """The NVRTC 12 helper of the SASS tests (tests/sass/nvrtc12.py), or (None, why)."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "sass"))
    try:
        import nvrtc12
    finally:
        sys.path.pop(0)
    try:
        nv = nvrtc12.Nvrtc()
    except nvrtc12.Unavailable as e:
        return None, None, str(e)
    inc = nvrtc12.find_include()
    if inc is None:
        return None, None, ("no CUDA headers for NVRTC (`pip install nvidia-cuda-runtime-cu12`, "
                            "or CUDA_HOME)")
    return nv, inc, None


def find_nvcc(arg):
    if arg:
        return arg if os.access(arg, os.X_OK) else None
    p = shutil.which("nvcc")
    if p:
        return p
    for d in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if d and os.access(os.path.join(d, "bin", "nvcc"), os.X_OK):
            return os.path.join(d, "bin", "nvcc")
    return None


def parse(text):
    """{function: (instructions [(addr, text)], labels {label: addr})}"""
    funcs = {}
    cur = None
    pending = []
    for line in text.splitlines():
        m = FUNC.match(line)
        if m:
            cur = ([], {})
            funcs[m.group(1)] = cur
            pending = []
            continue
        if cur is None:
            continue
        m = LABEL.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = INSN.match(line)
        if m:
            addr = int(m.group(1), 16)
            for lab in pending:
                cur[1][lab] = addr
            pending = []
            cur[0].append((addr, m.group(2)))
    return funcs


def opcode(ins):
    toks = ins.split()
    if toks and toks[0].startswith("@"):
        toks = toks[1:]
    return toks[0] if toks else ""


def loops(func):
    """Bodies of the loops closed by a backward branch, largest first."""
    insns, labels = func
    out = []
    for addr, ins in insns:
        m = BRANCH.search(ins)
        if m and labels.get(m.group(2), addr + 1) < addr:
            # (a branch to itself is the end-of-function trap, not a loop)
            start = labels[m.group(2)]
            out.append([i for a, i in insns if start <= a <= addr])
    return sorted(out, key=len, reverse=True)


def fp16_kind(ins):
    """fma, add or mul: what a half2 instruction computes."""
    op = opcode(ins)
    if op.startswith("HADD2"):
        return "add"
    if op.startswith("HMUL2"):
        return "mul"
    operands = ins.split(None, 1 if not ins.startswith("@") else 2)[-1]
    # HFMA2 d, a, b, c: as an add, b is the immediate "1, 1"; as a multiply, c is -RZ/RZ.
    if re.search(r",\s*1,\s*1,", operands):
        return "add"
    if re.search(r",\s*-?RZ$", operands.strip()):
        return "mul"
    return "fma"


def is_loop_counter(ins):
    """The trip counter: IADD3 Rx, Rx, 0x1, RZ (or a uniform-datapath UIADD3)."""
    op = opcode(ins)
    return op == "UIADD3" or (op == "IADD3" and re.search(r",\s*0x1,\s*RZ", ins) is not None)


def mem_ops(body):
    return [i for i in body if re.match(r"(LDG|STG|LDS|STS|LDL|STL|LD|ST|ATOM|RED)\b",
                                        opcode(i).split(".")[0])]


class Check:
    def __init__(self, arch, verbose):
        self.arch = arch
        self.verbose = verbose
        self.failures = []
        self.lines = []

    def report(self, kernel, ok, what):
        self.lines.append("%-4s %-20s %s" % ("ok" if ok else "FAIL", kernel, what))
        if not ok:
            self.failures.append("%s %s: %s" % (self.arch, kernel, what))

    def hot_loop(self, funcs, kernel):
        if kernel not in funcs:
            self.report(kernel, False, "kernel not found in the cubin")
            return None
        ls = loops(funcs[kernel])
        if not ls:
            self.report(kernel, False, "no loop: the trip loop was removed or fully unrolled")
            return None
        spills = [i for _, i in funcs[kernel][0] if opcode(i).split(".")[0] in ("LDL", "STL")]
        if spills:
            self.report(kernel, False, "register spills: %s" % spills[0])
            return None
        return ls[0]

    def fp(self, funcs, prec, kind):
        kernel = "bench_%s_%s" % (prec, kind)
        body = self.hot_loop(funcs, kernel)
        if body is None:
            return
        cls = {"fp64": FP64, "fp32": FP32, "fp16": FP16}[prec]
        allfp = FP64 | FP32 | FP16
        fp_ins = [i for i in body if opcode(i) in allfp]
        foreign = [i for i in fp_ins if opcode(i) not in cls]
        if prec == "fp16":
            kinds = collections.Counter(fp16_kind(i) for i in fp_ins if opcode(i) in cls)
            ops = collections.Counter(opcode(i) for i in fp_ins)
            good = kinds.get(kind, 0)
            detail = ", ".join("%d %s" % (n, o) for o, n in sorted(ops.items()))
        else:
            want = {"fp64": "D", "fp32": "F"}[prec] + {"fma": "FMA", "add": "ADD",
                                                         "mul": "MUL"}[kind]
            good = sum(1 for i in fp_ins if opcode(i) == want)
            kinds = collections.Counter(opcode(i) for i in fp_ins)
            detail = ", ".join("%d %s" % (n, o) for o, n in sorted(kinds.items()))
        ok = not foreign and good == OPS_PER_ITER and len(fp_ins) == OPS_PER_ITER
        self.report(kernel, ok, "%d %s %s per trip (want %d): %s; loop %d instructions"
                    % (good, prec, kind, OPS_PER_ITER, detail or "no FP instructions",
                       len(body)))

    def int_add(self, funcs):
        kernel = "bench_int32_add"
        body = self.hot_loop(funcs, kernel)
        if body is None:
            return
        adds = [i for i in body if opcode(i) == "IADD3" and not is_loop_counter(i)]
        other = [i for i in body if opcode(i).startswith("IMAD") or opcode(i) in FP64 | FP32 | FP16]
        ok = len(adds) == OPS_PER_ITER and not other
        self.report(kernel, ok, "%d IADD3 per trip (want %d)%s; loop %d instructions"
                    % (len(adds), OPS_PER_ITER,
                       ", plus %s" % opcode(other[0]) if other else "", len(body)))

    def int_mad(self, funcs):
        kernel = "bench_int32_mad"
        body = self.hot_loop(funcs, kernel)
        if body is None:
            return
        mads = [i for i in body if opcode(i) == "IMAD"]
        other = [i for i in body if opcode(i) in FP64 | FP32 | FP16 or
                 (opcode(i) == "IADD3" and not is_loop_counter(i))]
        ok = len(mads) == OPS_PER_ITER and not other
        self.report(kernel, ok, "%d IMAD per trip (want %d); loop %d instructions"
                    % (len(mads), OPS_PER_ITER, len(body)))

    def gips(self, funcs):
        kernel = "bench_gips"
        body = self.hot_loop(funcs, kernel)
        if body is None:
            return
        c = collections.Counter(opcode(i) for i in body)
        volta = self.arch in ("sm_70", "sm_72")
        want = GIPS_INSTR_PER_ITER_VOLTA if volta else GIPS_INSTR_PER_ITER
        nops = sum(1 for i in body if re.match(r"@!PT\s+SHFL\.IDX\s+PT,\s*RZ,\s*RZ,\s*RZ,\s*RZ$",
                                              i))
        ok = (len(body) == want and c["IMAD"] == OPS_PER_ITER // 2 and
              c["LOP3.LUT"] == OPS_PER_ITER // 2 and nops == (1 if volta else 0))
        self.report(kernel, ok, "%d instructions per trip (want %d): %d IMAD, %d LOP3, %d loop "
                    "control%s" % (len(body), want, c["IMAD"], c["LOP3.LUT"],
                                   len(body) - c["IMAD"] - c["LOP3.LUT"] - nops,
                                   ", %d never-true @!PT SHFL.IDX (Volta's loop head)" % nops
                                   if volta or nops else ""))

    def memory(self, funcs, kernel, want, fp=None):
        """want: {regex on the opcode: count} for every memory instruction of the loop."""
        body = self.hot_loop(funcs, kernel)
        if body is None:
            return
        mem = mem_ops(body)
        got = collections.Counter()
        unmatched = []
        for i in mem:
            for pat in want:
                if re.fullmatch(pat, opcode(i)):
                    got[pat] += 1
                    break
            else:
                unmatched.append(opcode(i))
        ok = not unmatched and all(got[p] == n for p, n in want.items())
        detail = ", ".join("%d %s" % (n, o) for o, n in
                           sorted(collections.Counter(opcode(i) for i in mem).items()))
        if fp:
            op, n = fp
            nfp = sum(1 for i in body if opcode(i) == op)
            ok = ok and nfp == n
            detail += ", %d %s (want %d)" % (nfp, op, n)
        self.report(kernel, ok, "%s; loop %d instructions" % (detail or "no memory access",
                                                               len(body)))

    def chase(self, funcs):
        """The pointer chase: CHASE_STEPS plain 64-bit loads, one dependent chain."""
        kernel = "bench_latency_chase"
        body = self.hot_loop(funcs, kernel)
        if body is None:
            return
        mem = mem_ops(body)
        loads = []    # (destination, address) registers, the address "R4+0x80" with an offset
        for i in mem:
            if opcode(i) in CHASE_OPS:
                m = CHASE_LDG.search(i)
                loads.append((m.group(1), m.group(2) + (m.group(3) or "")) if m else ("?", i))
        other = [opcode(i) for i in mem if opcode(i) not in CHASE_OPS]
        broken = [k for k in range(len(loads)) if loads[k][1] != loads[k - 1][0]]
        ok = len(loads) == CHASE_STEPS and not other and not broken
        what = "%d LDG.E.64 per trip (want %d)" % (len(loads), CHASE_STEPS)
        if other:
            what += ", plus %s" % ", ".join(sorted(set(other)))
        if broken:
            k = broken[0]
            what += ("; load %d reads [%s], not the register load %d wrote (%s): not a "
                     "dependent chain" % (k, loads[k][1], (k - 1) % len(loads),
                                          loads[k - 1][0]))
        elif loads:
            what += ", one dependent chain"
        self.report(kernel, ok, "%s; loop %d instructions" % (what, len(body)))

    def run(self, sass):
        funcs = {}
        for text in sass.values():
            funcs.update(parse(text))
        for prec in ("fp64", "fp32", "fp16"):
            for kind in ("fma", "add", "mul"):
                self.fp(funcs, prec, kind)
        self.int_add(funcs)
        self.int_mad(funcs)
        self.gips(funcs)
        ld64 = r"LDG\.E\.64(\.CONSTANT)?(\.SYS)?"
        st64 = r"STG\.E\.64(\.SYS)?"
        u = DRAM_UNROLL
        self.memory(funcs, "bench_dram_init", {st64: u})
        self.memory(funcs, "bench_dram_read", {ld64: u}, ("DADD", u))
        self.memory(funcs, "bench_dram_copy", {ld64: u, st64: u})
        self.memory(funcs, "bench_dram_scale", {ld64: u, st64: u}, ("DMUL", u))
        self.memory(funcs, "bench_dram_triad", {ld64: 2 * u, st64: u}, ("DFMA", u))
        # ld.global.cg: .STRONG.GPU (or plain) but never .CONSTANT (the L1/texture path).
        self.memory(funcs, "bench_l2_read", {r"LDG\.E\.128(\.STRONG\.GPU)?(\.SYS)?": CACHE_LOADS})
        self.memory(funcs, "bench_l1_read", {r"LDG\.E\.128\.CONSTANT(\.SYS)?": CACHE_LOADS})
        self.memory(funcs, "bench_shared_read", {r"LDS(\.U)?(\.32)?": SHARED_LOADS})
        self.memory(funcs, "bench_shared_ldst", {r"LDS(\.U)?(\.32)?": LDST_PAIRS,
                                                 r"STS(\.32)?": LDST_PAIRS})
        self.chase(funcs)


# Kernels the check must reject: a chain the compiler folds (x += c eight times
# becomes x += 8c), an FMA written as multiply then add with contraction off,
# a trip loop with a compile-time count (fully unrolled: no loop left), and a
# pointer chase whose 16 loads per trip are independent (all from one base:
# 16 in flight at once, which measures a sixteenth of the latency).
BROKEN = r"""
extern "C" __global__ void bench_int32_add(unsigned c, int iters, unsigned s, unsigned *out)
{
    unsigned x[8];
    for (int j = 0; j < 8; j++) x[j] = threadIdx.x + j;
#pragma unroll 1
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int k = 0; k < 64; k++) x[k % 8] += c;
    unsigned v = 0;
    for (int j = 0; j < 8; j++) v ^= x[j];
    if (v == s) out[threadIdx.x] = v;
}
extern "C" __global__ void bench_fp64_fma(double a, double b, int iters, double s, double *out)
{
    double x[8];
    for (int j = 0; j < 8; j++) x[j] = threadIdx.x + j;
#pragma unroll 1
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int k = 0; k < 64; k++) x[k % 8] = __dadd_rn(__dmul_rn(x[k % 8], a), b);
    double v = 0;
    for (int j = 0; j < 8; j++) v += x[j];
    if (v == s) out[threadIdx.x] = v;
}
extern "C" __global__ void bench_fp32_add(float a, float b, int iters, float s, float *out)
{
    float x[8];
    for (int j = 0; j < 8; j++) x[j] = threadIdx.x + j;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int k = 0; k < 64; k++) x[k % 8] += b;
    float v = 0;
    for (int j = 0; j < 8; j++) v += x[j];
    if (v == s) out[threadIdx.x] = v;
}
extern "C" __global__ void bench_latency_chase(unsigned long long *cursor, int iters)
{
    unsigned long long p = *cursor, acc = 0;
#pragma unroll 1
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 16; k++) {
            unsigned long long v;
            asm("ld.global.u64 %0, [%1];" : "=l"(v) : "l"(p + 128 * k));
            acc += v;
        }
        p = acc;
    }
    *cursor = p;
}
"""


def self_test(nvcc, nvdisasm, arch):
    """The check must reject each kernel of BROKEN."""
    work = tempfile.mkdtemp(prefix="gpuproj-sass-selftest-")
    try:
        src = os.path.join(work, "broken.cu")
        cubin = os.path.join(work, "broken.cubin")
        with open(src, "w") as f:
            f.write(BROKEN)
        r = subprocess.run([nvcc, "-cubin", "-arch=" + arch, "-O3", "-o", cubin, src],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL: self-test: compiling the broken kernels: %s" % r.stderr)
            return 1
        r = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True)
        funcs = parse(r.stdout)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    check = Check(arch, True)
    check.int_add(funcs)
    check.fp(funcs, "fp64", "fma")
    check.fp(funcs, "fp32", "add")
    check.chase(funcs)
    bad = 0
    for line in check.lines:
        caught = line.startswith("FAIL")
        print("%s (%s)" % (line, "rejected, as it must be" if caught else "NOT REJECTED"))
        bad += not caught
    if bad or len(check.lines) != 4:
        print("self-test: %d broken kernel(s) passed the check" % bad)
        return 1
    print("self-test: all 4 broken kernels rejected on %s" % arch)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", help="sm_XY (required unless --self-test)")
    ap.add_argument("--self-test", action="store_true",
                    help="check that folded, unfused and unrolled kernels are rejected")
    ap.add_argument("--src", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "..", "src", "bench", "kernels"))
    ap.add_argument("--nvcc")
    ap.add_argument("--keep", help="keep the cubins and SASS in this directory")
    ap.add_argument("--verbose", action="store_true", help="print every check, not only failures")
    args = ap.parse_args()

    if args.self_test:
        nvcc = find_nvcc(args.nvcc)
        nvdisasm = find_nvdisasm()
        if not nvcc or not nvdisasm:
            print("SKIP: self-test needs nvcc and nvdisasm (%s missing)"
                  % ("nvcc" if not nvcc else "nvdisasm"))
            return SKIP
        return self_test(nvcc, nvdisasm, args.arch or "sm_80")
    if not args.arch or not re.fullmatch(r"sm_\d+[a-z]?", args.arch):
        print("sass-check: --arch must be sm_XY, got %s" % args.arch, file=sys.stderr)
        return 2
    nvcc = find_nvcc(args.nvcc)
    nvrtc = None
    if nvcc:
        arches = subprocess.run([nvcc, "--list-gpu-arch"], capture_output=True, text=True)
        compute = "compute_" + args.arch[3:]
        if arches.returncode == 0 and compute not in arches.stdout.split():
            # CUDA 13 dropped Volta: NVRTC 12 compiles the device code instead.
            version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
            rel = re.search(r"release (\S+),", version)
            nvcc_why = "nvcc %s cannot compile %s (it lists %s)" % (
                rel.group(1) if rel else "?", args.arch,
                " ".join(arches.stdout.split()) or "nothing")
            nvcc = None
    else:
        nvcc_why = "nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)"
    if not nvcc:
        nvrtc, nvrtc_inc, why = load_nvrtc12()
        if not nvrtc:
            print("SKIP: %s: %s, and NVRTC 12 is not usable: %s" % (args.arch, nvcc_why, why))
            return SKIP
    nvdisasm, nvdisasm_why = find_nvdisasm_for(args.arch)

    work = args.keep or tempfile.mkdtemp(prefix="gpuproj-sass-")
    os.makedirs(work, exist_ok=True)
    sass = {}
    try:
        # One translation unit including every family: one nvcc run per architecture
        # (2-3x faster than one per file; the real build compiles them one by one).
        unit = os.path.join(work, "all-families.cu")
        with open(unit, "w") as f:
            for fam in FAMILIES:
                f.write('#include "%s"\n' % os.path.abspath(os.path.join(args.src, fam + ".cu")))
        cubin = os.path.join(work, "bench-%s.cubin" % args.arch)
        families = ", ".join(f + ".cu" for f in FAMILIES)
        if nvcc:
            cmd = [nvcc, "-cubin", "-arch=" + args.arch, "-O3", "-std=c++17", "-I", args.src,
                   "-Werror", "all-warnings", "-o", cubin, unit]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL: %s: compiling %s failed:\n%s%s" % (args.arch, families, r.stdout,
                                                                r.stderr))
                return 1
            print("compiled %s for %s" % (families, args.arch))
        else:
            with open(unit, "rb") as f:
                src = f.read()
            try:
                code, log = nvrtc.compile(src, unit, args.arch,
                                          ["-std=c++17", "-I" + os.path.abspath(args.src),
                                           "-I" + nvrtc_inc])
            except RuntimeError as e:
                print("FAIL: %s: compiling %s with NVRTC failed:\n%s" % (args.arch, families, e))
                return 1
            if log:
                print("FAIL: %s: NVRTC %s warns on %s (warnings are errors):\n%s"
                      % (args.arch, nvrtc.version, families, log))
                return 1
            with open(cubin, "wb") as f:
                f.write(code)
            print("compiled %s for %s with NVRTC %s (%s; %s cannot)" % (
                families, args.arch, nvrtc.version, nvrtc.path, nvcc_why.split(" cannot")[0]))
        if nvdisasm:
            r = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL: %s: nvdisasm %s: %s" % (args.arch, cubin, r.stderr.strip()))
                return 1
            sass["all"] = r.stdout
            if args.keep:
                with open(cubin[:-6] + ".sass", "w") as f:
                    f.write(r.stdout)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    if not nvdisasm:
        print("SKIP: %s: the kernels compile, but %s: the SASS was not checked"
              % (args.arch, nvdisasm_why))
        return SKIP
    check = Check(args.arch, args.verbose)
    check.run(sass)
    for line in check.lines:
        if args.verbose or line.startswith("FAIL"):
            print(line)
    if check.failures:
        print("%s: %d of %d SASS checks failed" % (args.arch, len(check.failures),
                                                   len(check.lines)))
        return 1
    print("%s: all %d SASS checks passed" % (args.arch, len(check.lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
