#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run python/tests with pytest from the source tree (meson test python-package).

Usage: run-pytest.py SOURCE_ROOT

The package is imported from SOURCE_ROOT/python (not installed); the
command is $GPUPROJ_EXE. Exits 77 (meson's "skipped") with a message when
this Python has no pytest: `.ci/run` runs the same tests in a virtual
environment it creates, with the package installed by pip.
"""
import os
import sys

root = sys.argv[1]
try:
    import pytest
except ImportError:
    print("SKIP: no pytest for %s (`.ci/run` runs python/tests in a venv of its own)"
          % sys.executable)
    sys.exit(77)
sys.path.insert(0, os.path.join(root, "python"))
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", os.path.join(root, "python", "tests")]))
