#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libproj.so builds on NVIDIA's installer layout of the CUDA toolkit.

NVIDIA's runfile and .deb installers put the CUPTI and NVPW headers and
libraries under <cuda>/extras/CUPTI/{include,lib64}, not beside cuda.h;
meson's own CUDA dependency does not look there (meson issue #13241). This
test makes such a toolkit from the installed one with symlinks (every
cupti*/nvperf*/generated_* header and libcupti/libnvperf/libpcsamplingutil
moved under extras/CUPTI/), configures the source tree against it with
CUDA_HOME and -Dcupti=enabled, builds libproj.so and checks its RUNPATH
names extras/CUPTI/lib64. Then: a toolkit without the CUPTI headers and
-Dcupti=enabled must fail at setup, naming what is missing; with
-Dcupti=auto it configures without libproj.so.

Usage: test-cuda-layout.py MESON SOURCE_ROOT
Skips (77) when the installed toolkit has no CUPTI headers to lay out.
"""
import os
import shutil
import subprocess
import sys
import tempfile

CUPTI_PREFIXES = ("cupti", "nvperf", "generated_")
CUPTI_LIBS = ("libcupti", "libnvperf", "libpcsamplingutil", "libcheckpoint")


def installed_toolkit():
    """(cuda include, cupti include, libcupti dir) of the installed toolkit, found
    here rather than by the build's own finder, which is what is under test."""
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    roots.append("/usr/local/cuda")
    for root in filter(None, roots):
        def first(subs, name):
            for s in subs:
                if os.path.exists(os.path.join(root, s, name)):
                    return os.path.realpath(os.path.join(root, s))
            return None
        cuda_inc = first(("include",), "cuda.h")
        cupti_inc = first(("include", "extras/CUPTI/include"), "cupti_profiler_host.h")
        lib = first(("lib64", "extras/CUPTI/lib64", "lib"), "libcupti.so.13")
        if cuda_inc and cupti_inc:
            return cuda_inc, cupti_inc, lib
    return None, None, None


def link_tree(src, dst, keep):
    """Symlink every entry of src for which keep(name) into dst."""
    os.makedirs(dst, exist_ok=True)
    for name in os.listdir(src):
        if keep(name):
            os.symlink(os.path.join(src, name), os.path.join(dst, name))


def make_toolkit(root, cuda_inc, cupti_inc, libdir, with_cupti=True):
    """A runfile-layout toolkit at root from the installed one (symlinks)."""
    real_root = os.path.dirname(cuda_inc)
    os.makedirs(root)
    os.symlink(os.path.join(real_root, "bin"), os.path.join(root, "bin"))
    is_cupti = lambda n: n.startswith(CUPTI_PREFIXES)
    is_cupti_lib = lambda n: n.startswith(CUPTI_LIBS)
    link_tree(cuda_inc, os.path.join(root, "include"), lambda n: not is_cupti(n))
    if cupti_inc != cuda_inc:
        link_tree(cupti_inc, os.path.join(root, "include"), lambda n: False)
    link_tree(libdir, os.path.join(root, "lib64"), lambda n: not is_cupti_lib(n))
    if with_cupti:
        link_tree(cupti_inc, os.path.join(root, "extras", "CUPTI", "include"), is_cupti)
        link_tree(libdir, os.path.join(root, "extras", "CUPTI", "lib64"), is_cupti_lib)


def setup(meson, src, build, toolkit, option):
    env = dict(os.environ)
    env["CUDA_HOME"] = toolkit
    env.pop("CUDA_PATH", None)
    return subprocess.run([meson, "setup", build, src, "-Dcupti=" + option, "-Dtests=disabled"],
                          capture_output=True, text=True, env=env)


def main():
    meson, src = sys.argv[1], sys.argv[2]
    found = installed_toolkit()
    if not found[0]:
        print("SKIP: no installed CUDA toolkit with the CUPTI headers to lay out")
        return 77
    cuda_inc, cupti_inc, libdir = found
    if not libdir:
        print("SKIP: no libcupti.so.13 in the installed toolkit")
        return 77
    failures = 0
    with tempfile.TemporaryDirectory(prefix="gpuproj-layout-") as tmp:
        # 1. NVIDIA's installer layout: libproj.so is built, RUNPATH extras/CUPTI/lib64.
        tk = os.path.join(tmp, "cuda-runfile")
        make_toolkit(tk, cuda_inc, cupti_inc, libdir)
        assert not os.path.exists(os.path.join(tk, "include", "cupti.h"))
        build = os.path.join(tmp, "build")
        r = setup(meson, src, build, tk, "enabled")
        if r.returncode != 0:
            print("FAIL: setup against %s with -Dcupti=enabled failed:\n%s%s" % (tk, r.stdout[-3000:],
                                                                                r.stderr[-2000:]))
            return 1
        want = os.path.join(tk, "extras", "CUPTI", "include")
        if want not in r.stdout:
            print("FAIL: the setup did not take the CUPTI headers from %s:\n%s" % (want, r.stdout[-2000:]))
            failures += 1
        r = subprocess.run([meson, "compile", "-C", build, "proj"], capture_output=True, text=True)
        lib = os.path.join(build, "inject", "libproj.so")
        if r.returncode != 0 or not os.path.exists(lib):
            print("FAIL: libproj.so was not built:\n%s%s" % (r.stdout[-3000:], r.stderr[-2000:]))
            return 1
        dyn = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True).stdout
        runpath = [l for l in dyn.splitlines() if "RUNPATH" in l]
        want_lib = os.path.join(tk, "extras", "CUPTI", "lib64")
        if not runpath or want_lib not in runpath[0]:
            print("FAIL: libproj.so's RUNPATH does not name %s: %s" % (want_lib, runpath))
            failures += 1
        else:
            print("ok: libproj.so built on the extras/CUPTI layout, %s" % runpath[0].strip())

        # 2. A toolkit without the CUPTI headers: -Dcupti=enabled is an error at setup.
        bare = os.path.join(tmp, "cuda-bare")
        make_toolkit(bare, cuda_inc, cupti_inc, libdir, with_cupti=False)
        r = setup(meson, src, os.path.join(tmp, "build-bare"), bare, "enabled")
        out = r.stdout + r.stderr
        if r.returncode == 0 or "-Dcupti=enabled" not in out or "cupti.h" not in out:
            print("FAIL: -Dcupti=enabled without CUPTI headers must fail at setup naming them "
                  "(exit %d):\n%s" % (r.returncode, out[-2000:]))
            failures += 1
        else:
            line = next(l for l in out.splitlines() if "-Dcupti=enabled" in l)
            print("ok: setup refused: %s" % line.strip())
        # 3. ... and -Dcupti=auto configures without libproj.so, saying why.
        r = setup(meson, src, os.path.join(tmp, "build-auto"), bare, "auto")
        if r.returncode != 0 or "libproj.so not built" not in r.stdout:
            print("FAIL: -Dcupti=auto without CUPTI headers must configure without libproj.so "
                  "(exit %d):\n%s" % (r.returncode, (r.stdout + r.stderr)[-2000:]))
            failures += 1
        else:
            print("ok: -Dcupti=auto configures without libproj.so")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
