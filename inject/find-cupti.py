#!/usr/bin/env python3
"""Print the directory holding libcupti.so.13 (empty when none is found).

Used by inject/meson.build for libproj.so's RUNPATH. Looks in $CUDA_HOME,
$CUDA_PATH, the toolkit of the nvcc on PATH, then /usr/local/cuda.
"""
import os
import shutil

roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
nvcc = shutil.which("nvcc")
if nvcc:
    roots.append(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
roots.append("/usr/local/cuda")
for root in roots:
    if not root:
        continue
    for sub in ("lib64", "extras/CUPTI/lib64", "lib", "targets/x86_64-linux/lib"):
        d = os.path.join(root, sub)
        if os.path.exists(os.path.join(d, "libcupti.so.13")):
            print(os.path.realpath(d))
            raise SystemExit(0)
