#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compile CUDA C++ device code with NVRTC 12 (for sm_70).

CUDA 13's nvcc, ptxas and nvJitLink no longer target sm_70/sm_72 (Volta),
so the sm_70 tests use the CUDA 12 compiler front end NVRTC (the same NVVM
and ptxas as nvcc 12, as a library) from NVIDIA's wheel
nvidia-cuda-nvrtc-cu12, with the CUDA 12 headers of nvidia-cuda-runtime-cu12
(scripts/setup-deps.sh installs both). NVRTC compiles device code only:
host code must be kept out with `#ifndef __CUDACC_RTC__`.

Found as: $GPUPROJ_NVRTC (a libnvrtc.so path), python3's nvidia/cuda_nvrtc
(the wheel), then libnvrtc.so.12 on the loader path. Headers: the wheel's
nvidia/cuda_runtime/include, else $CUDA_HOME/include, /usr/local/cuda/include.

Command line (tests/sass/meson.build, tests/bench-build/sass-check.py):

  nvrtc12.py [--status FILE] [-I DIR]... [--opt OPT]... SRC OUT:TARGET...

compiles SRC once per OUT:TARGET, TARGET being sm_XY (writes a cubin) or
compute_XY (writes PTX). Without a usable NVRTC it exits 77 printing
"SKIP: why" -- or, with --status, writes an empty OUT for each target,
writes "SKIP: why" to FILE and exits 0, so that a build step does not fail
(the tests read FILE and skip with that message). On success FILE gets
"nvrtc MAJOR.MINOR". Compile errors exit 1 with NVRTC's log.
"""

import ctypes
import os
import sys

SKIP = 77


class Unavailable(Exception):
    """No usable NVRTC 12 (the message says why)."""


def _python_nvidia_dirs():
    try:
        import nvidia  # namespace package of NVIDIA's wheels
    except ImportError:
        return []
    return list(getattr(nvidia, "__path__", []))


def find_library():
    env = os.environ.get("GPUPROJ_NVRTC")
    if env:
        if not os.path.isfile(env):
            raise Unavailable("GPUPROJ_NVRTC=%s is not a file" % env)
        return env
    for base in _python_nvidia_dirs():
        p = os.path.join(base, "cuda_nvrtc", "lib", "libnvrtc.so.12")
        if os.path.isfile(p):
            return p
    return "libnvrtc.so.12"


def find_include():
    for base in _python_nvidia_dirs():
        p = os.path.join(base, "cuda_runtime", "include")
        if os.path.isfile(os.path.join(p, "cuda_fp16.h")):
            return p
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and os.path.isfile(os.path.join(home, "include", "cuda_fp16.h")):
            return os.path.join(home, "include")
    return None


class Nvrtc:
    def __init__(self):
        path = find_library()
        try:
            self.lib = ctypes.CDLL(path)
        except OSError as e:
            raise Unavailable("NVRTC 12 not found (%s): `pip install nvidia-cuda-nvrtc-cu12` "
                              "(scripts/setup-deps.sh does) or set GPUPROJ_NVRTC" % e)
        major, minor = ctypes.c_int(), ctypes.c_int()
        if self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) != 0:
            raise Unavailable("%s: nvrtcVersion failed" % path)
        self.version = "%d.%d" % (major.value, minor.value)
        self.path = path
        if major.value >= 13 or major.value < 11:
            raise Unavailable("%s is NVRTC %s: sm_70 needs NVRTC 11 or 12" % (path, self.version))
        self.lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    def compile(self, src, name, target, opts):
        """bytes of the cubin (sm_XY) or PTX (compute_XY); raises RuntimeError with the log."""
        lib = self.lib
        prog = ctypes.c_void_p()
        r = lib.nvrtcCreateProgram(ctypes.byref(prog), src, name.encode(), 0, None, None)
        if r:
            raise RuntimeError("nvrtcCreateProgram: %s" % lib.nvrtcGetErrorString(r).decode())
        try:
            args = [b"--gpu-architecture=" + target.encode(), b"-default-device"]
            args += [o.encode() for o in opts]
            arr = (ctypes.c_char_p * len(args))(*args)
            r = lib.nvrtcCompileProgram(prog, len(args), arr)
            n = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
            log = ctypes.create_string_buffer(n.value + 1)
            lib.nvrtcGetProgramLog(prog, log)
            # NVRTC warns that sm_70 is deprecated: not an error of the source.
            log = "\n".join(line for line in log.value.decode(errors="replace").splitlines()
                            if "are deprecated" not in line and line.strip())
            if r:
                raise RuntimeError("NVRTC %s could not compile %s for %s: %s\n%s" % (
                    self.version, name, target,
                    lib.nvrtcGetErrorString(r).decode(), log))
            if target.startswith("sm_"):
                get_size, get = lib.nvrtcGetCUBINSize, lib.nvrtcGetCUBIN
            else:
                get_size, get = lib.nvrtcGetPTXSize, lib.nvrtcGetPTX
            get_size(prog, ctypes.byref(n))
            buf = ctypes.create_string_buffer(n.value)
            if get(prog, buf):
                raise RuntimeError("NVRTC returned no code for %s" % target)
            data = buf.raw
            if target.startswith("compute_"):
                data = data.rstrip(b"\0")
            return data, log
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--status", help="write 'nvrtc X.Y' or 'SKIP: why' here; never exit 77")
    ap.add_argument("-I", dest="incs", action="append", default=[], help="include directory")
    ap.add_argument("--opt", action="append", default=[], help="NVRTC option (--opt=-DX)")
    ap.add_argument("src")
    ap.add_argument("outs", nargs="+", metavar="OUT:TARGET")
    args = ap.parse_args(argv)
    if any(":" not in t for t in args.outs):
        ap.error("outputs are OUT:TARGET")
    status = args.status
    src_path = args.src
    incs = args.incs
    opts = args.opt
    outs = [t.rsplit(":", 1) for t in args.outs]

    def write_status(text):
        if status:
            with open(status, "w") as f:
                f.write(text + "\n")

    try:
        nv = Nvrtc()
        inc = find_include()
        if inc is None:
            raise Unavailable("no CUDA headers (cuda_fp16.h) for NVRTC: `pip install "
                              "nvidia-cuda-runtime-cu12` or set CUDA_HOME")
    except Unavailable as e:
        msg = "SKIP: %s" % e
        if status:
            # The build step does not run again by itself once NVRTC is installed.
            msg += "; then delete %s and rebuild" % os.path.abspath(status)
        print(msg)
        if not status:
            return SKIP
        for out, _ in outs:
            open(out, "wb").close()
        write_status(msg)
        return 0
    with open(src_path, "rb") as f:
        src = f.read()
    args = ["-I" + d for d in incs + [inc]] + opts
    for out, target in outs:
        try:
            data, log = nv.compile(src, os.path.basename(src_path), target, args)
        except RuntimeError as e:
            print("%s" % e, file=sys.stderr)
            return 1
        if log:
            print(log, file=sys.stderr)
        with open(out, "wb") as f:
            f.write(data)
    write_status("nvrtc %s" % nv.version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
