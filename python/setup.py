# SPDX-License-Identifier: MIT
"""The package's version is the C tool's: meson.build's project(version: …).

Build from the repository (`pip install ./python`): the one place the
version is written is ../meson.build, read here.
"""
import os
import re

from setuptools import setup


def meson_version():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "meson.build")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        raise SystemExit("gpuproj's Python package builds from the gpuproj repository: "
                         "%s (which holds the version) is missing" % path)
    m = re.search(r"project\(\s*'gpuproj'.*?version\s*:\s*'([^']+)'", text, re.S)
    if not m:
        raise SystemExit("%s: no project('gpuproj', version: '…')" % path)
    return m.group(1)


setup(version=meson_version())
