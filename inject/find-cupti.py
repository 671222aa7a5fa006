#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Find the CUDA toolkit's CUPTI headers and libcupti, in either layout.

NVIDIA's runfile and .deb installers put the CUPTI and NVPW headers and
libraries under <cuda>/extras/CUPTI/include and <cuda>/extras/CUPTI/lib64;
the pip wheels and conda put them beside cuda.h in <cuda>/include and
<cuda>/lib64. meson's dependency('cuda', modules: ['cupti']) looks only in
the second place (meson's dependencies/cuda.py; meson issue #13241), so the
build asks this script instead. libproj.so dlopen()s libcupti: the build
needs the headers only, and the library's directory for the RUNPATH.

The toolkit roots tried: $CUDA_HOME and $CUDA_PATH when either is set
(then only those: the user named the toolkit), else the toolkit of the nvcc
on PATH, then /usr/local/cuda.

Usage:
  find-cupti.py             the directory holding libcupti.so.13 (empty
                            when none is found), for libproj.so's RUNPATH
  find-cupti.py --include   the directories holding cuda.h and
                            cupti_activity.h, one per line (both or nothing)
  find-cupti.py --headers   the directory holding the CUDA headers and the
                            one holding every CUPTI/NVPW header inject/
                            includes, one per line; nothing, and why on
                            stderr, when a header is missing (exit 1)
"""
import os
import shutil
import sys

# What inject/ and its tests include from the toolkit (grep '#include <' inject/).
CUDA_HEADERS = ("cuda.h", "cuda_runtime_api.h")
CUPTI_HEADERS = ("cupti.h", "cupti_activity.h", "cupti_callbacks.h", "cupti_profiler_target.h",
                 "cupti_profiler_host.h", "cupti_range_profiler.h", "cupti_target.h",
                 "cupti_version.h", "nvperf_host.h", "nvperf_cuda_host.h", "nvperf_target.h")
INCLUDE_SUBS = ("include", "extras/CUPTI/include", "targets/x86_64-linux/include")
LIB_SUBS = ("lib64", "extras/CUPTI/lib64", "lib", "targets/x86_64-linux/lib")


def roots():
    out = [r for r in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")) if r]
    if out:
        return out
    nvcc = shutil.which("nvcc")
    if nvcc:
        out.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    out.append("/usr/local/cuda")
    return out


def find(subs, names, root_list=None):
    """The first <root>/<sub> holding every one of names (real path), else None."""
    for root in root_list if root_list is not None else roots():
        for sub in subs:
            d = os.path.join(root, sub)
            if all(os.path.exists(os.path.join(d, n)) for n in names):
                return os.path.realpath(d)
    return None


def headers():
    """(cuda include dir, cupti include dir) from one toolkit root, or an error text."""
    tried = []
    for root in roots():
        cuda = find(INCLUDE_SUBS, CUDA_HEADERS, [root])
        cupti = find(INCLUDE_SUBS, CUPTI_HEADERS, [root])
        if cuda and cupti:
            return cuda, cupti, None
        if not os.path.isdir(root):
            continue
        missing = [n for n in CUDA_HEADERS if not find(INCLUDE_SUBS, (n,), [root])]
        missing += [n for n in CUPTI_HEADERS if not find(INCLUDE_SUBS, (n,), [root])]
        tried.append("%s (lacks %s)" % (root, ", ".join(missing[:4]) +
                                        (", ..." if len(missing) > 4 else "")))
    why = ("no CUDA toolkit with the CUPTI headers found in " +
           ("; ".join(tried) if tried else "$CUDA_HOME, $CUDA_PATH, nvcc's toolkit or /usr/local/cuda") +
           "; looked in " + ", ".join("<cuda>/" + s for s in INCLUDE_SUBS))
    return None, None, why


def main(argv):
    if argv == ["--include"]:
        cuda, cupti = find(INCLUDE_SUBS, ("cuda.h",)), find(INCLUDE_SUBS, ("cupti_activity.h",))
        if cuda and cupti:
            print(cuda + "\n" + cupti)
        return 0
    if argv == ["--headers"]:
        cuda, cupti, why = headers()
        if why:
            print(why, file=sys.stderr)
            return 1
        print(cuda + "\n" + cupti)
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    d = find(LIB_SUBS, ("libcupti.so.13",))
    if d:
        print(d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
