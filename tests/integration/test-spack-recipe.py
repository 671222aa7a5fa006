#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""spack/packages/gpuproj/package.py against meson.build and meson_options.txt.

Without Spack: the recipe is read with Python's ast. Every library a
meson.build asks for (dependency(), find_library()) must be a
depends_on() of the recipe under the name the table below gives, with the
same minimum version and, for an optional one, the variant whose meson
option its `required:` names; every depends_on() but the build tools must
be one of them (none stale); each variant must be a feature option of
meson_options.txt that meson_args() passes. CUDA is found by
inject/find-cupti.py, not dependency(): it is the cupti variant's.

Usage: test-spack-recipe.py SOURCE_ROOT
"""
import ast
import os
import re
import sys

ROOT = sys.argv[1]
RECIPE = os.path.join(ROOT, "spack", "packages", "gpuproj", "package.py")

# meson's name → (Spack's, the meson option that turns it on or off, else
# None); a name mapped to None is the C library's or the toolchain's.
SPACK_NAME = {
    "yaml-0.1": ("libyaml", None), "jansson": ("jansson", None), "libcsv": ("libcsv", None),
    "csv": ("libcsv", None), "sqlite3": ("sqlite", "nsys"), "plplot": ("plplot", "charts"),
    "check": ("check", None), "libzstd": ("zstd", None), "liblz4": ("lz4", None),
    "threads": None, "m": None, "dl": None, "": None,
}
BUILD_TOOLS = {"c", "cxx", "meson", "ninja", "pkgconfig", "python"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def meson_deps():
    """{spack name: (min version or None, meson option or None)} over every meson.build."""
    found = {}
    for d, _, files in os.walk(ROOT):
        if "meson.build" not in files or "/build" in d[len(ROOT):] or "/.git" in d:
            continue
        path = os.path.join(d, "meson.build")
        # Comments dropped (they name calls, e.g. meson's own cuda dependency).
        text = "\n".join(line.split("#", 1)[0] for line in open(path, encoding="utf-8"))
        calls = [(m.group(1), m.group(2), text[m.end():].split("\n", 1)[0])
                 for m in re.finditer(r"(dependency|find_library)\(\s*'([^']*)'", text)]
        # A foreach over [['libzstd', …], …] feeding dependency(spec[0]).
        for m in re.finditer(r"foreach\s+\w+\s*:\s*\[(\[.*?\])\]\s*\n", text):
            calls += [("dependency", n, "") for n in re.findall(r"\[\s*'([^']+)'", m.group(1))]
        for kind, name, rest in calls:
            check(name in SPACK_NAME, "%s: %s('%s') is not in this test's table"
                  % (path, kind, name))
            entry = SPACK_NAME.get(name)
            if not entry:
                continue
            spack, opt = entry
            v = re.search(r"version\s*:\s*'>=\s*([0-9.]+)'", rest)
            if opt:
                check("get_option('%s')" % opt in text, "%s: %s is turned on and off by -D%s, "
                      "which this file never reads" % (path, name, opt))
            prev = found.get(spack, (None, None))
            found[spack] = (v.group(1) if v else prev[0], opt)
    return found


def recipe():
    tree = ast.parse(open(RECIPE, encoding="utf-8").read())
    deps, variants = {}, []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        args = [a.value for a in node.args if isinstance(a, ast.Constant)]
        kw = {k.arg: k.value.value for k in node.keywords if isinstance(k.value, ast.Constant)}
        if node.func.id == "depends_on":
            spec = args[0]
            name, _, ver = spec.partition("@")
            deps[name] = (ver.rstrip(":") or None, kw.get("when"), kw.get("type"))
        elif node.func.id == "variant":
            variants.append(args[0])
    return deps, variants


meson = meson_deps()
deps, variants = recipe()
options = open(os.path.join(ROOT, "meson_options.txt"), encoding="utf-8").read()
text = open(RECIPE, encoding="utf-8").read()

for name, (ver, opt) in sorted(meson.items()):
    check(name in deps, "meson.build needs %s; the recipe has no depends_on('%s')" % (name, name))
    if name not in deps:
        continue
    rver, when, dtype = deps[name]
    check(rver == ver, "%s: meson.build wants >= %s, the recipe @%s:" % (name, ver, rver))
    if name == "check":
        check(dtype == "test", "check is a test dependency (type='test'), not %r" % dtype)
        continue
    if opt:
        check(when == "+" + opt, "%s: meson.build's is required by -D%s; the recipe's when=%r"
              % (name, opt, when))
    else:
        check(when is None, "%s: always needed by meson.build; the recipe's when=%r"
              % (name, when))
for name in sorted(deps):
    if name in BUILD_TOOLS or name == "cuda":
        continue
    check(name in meson, "the recipe depends on %s, which no meson.build asks for" % name)
check(deps.get("cuda", (None, None, None))[1] == "+cupti", "cuda: the recipe's must be when='+cupti'")
for v in variants:
    check(re.search(r"option\('%s', type: 'feature'" % v, options) is not None,
          "variant %s: no feature option '%s' in meson_options.txt" % (v, v))
    check('feature("%s")' % v in text, "variant %s: meson_args() does not pass -D%s" % (v, v))
check(sorted(variants) == ["charts", "cupti", "nsys"], "variants: %s" % variants)
check("class Gpuproj(MesonPackage)" in text, "the recipe is no MesonPackage")

if failures:
    sys.exit(1)
print("spack recipe: %d libraries of meson.build, %d variants: OK" % (len(meson), len(variants)))
