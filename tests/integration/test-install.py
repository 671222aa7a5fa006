#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What `meson install` puts in place (meson introspect --installed).

The gpuproj command is installed, and libproj.so and gpuproj-bench-kernels
in <libdir>/gpuproj when they are built. Nothing of the core library is: no
header under include/, no libgpuproj-core archive, no pkg-config file. The
core's API (include/gpuproj/) is the project's own; docs/internals/DESIGN.md §2 says
why it is not offered for linking.

Usage: test-install.py MESON BUILD_ROOT
"""
import json
import os
import subprocess
import sys


def main():
    meson, build = sys.argv[1], sys.argv[2]
    out = subprocess.run([meson, "introspect", "--installed", build], check=True,
                         capture_output=True, text=True).stdout
    installed = json.loads(out)
    dests = sorted(installed.values())
    for d in dests:
        print("installed:", d)
    bad = [d for d in dests
           if "/include/" in d or d.endswith((".h", ".pc", ".a")) or "gpuproj-core" in d]
    if bad:
        print("FAIL: the core library must not be installed:", ", ".join(bad))
        return 1
    if not any(os.path.basename(d) == "gpuproj" and "/bin/" in d for d in dests):
        print("FAIL: the gpuproj command is not installed")
        return 1
    for src, dest in installed.items():
        name = os.path.basename(src)
        if name in ("libproj.so", "gpuproj-bench-kernels") and \
                os.path.basename(os.path.dirname(dest)) != "gpuproj":
            print("FAIL: %s goes to %s, not <libdir>/gpuproj/" % (name, dest))
            return 1
    print("ok: %d files, the command and its helpers only" % len(dests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
