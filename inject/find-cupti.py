#!/usr/bin/env python3
"""Print the directory holding libcupti.so.13 (empty when none is found).

Used by inject/meson.build for libproj.so's RUNPATH. Looks in $CUDA_HOME,
$CUDA_PATH, the toolkit of the nvcc on PATH, then /usr/local/cuda.
With --include: the directories holding cuda.h and cupti_activity.h, one
per line, instead (for tests/inject/check-cupti-records.py).
"""
import os
import shutil
import sys

roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
nvcc = shutil.which("nvcc")
if nvcc:
    roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
roots.append("/usr/local/cuda")


def find(subs, name):
    for root in roots:
        for sub in subs if root else ():
            d = os.path.join(root, sub)
            if os.path.exists(os.path.join(d, name)):
                return os.path.realpath(d)
    return None


if sys.argv[1:] == ["--include"]:
    incs = ("include", "extras/CUPTI/include", "targets/x86_64-linux/include")
    cuda, cupti = find(incs, "cuda.h"), find(incs, "cupti_activity.h")
    if cuda and cupti:
        print(cuda + "\n" + cupti)
else:
    d = find(("lib64", "extras/CUPTI/lib64", "lib", "targets/x86_64-linux/lib"), "libcupti.so.13")
    if d:
        print(d)
