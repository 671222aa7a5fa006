#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measure the layout of the source tree: lines per file, cycles between
files, function lengths, duplicated blocks.

    scripts/house-metrics.py [--json] [ROOT]

- Lines per file: every .c, .cpp and .h under src/ and inject/ (and tests/
  for the total only); the longest files and how many .c files exceed
  1,500 lines.
- Cycles: a file A depends on a file B when A names a function that B
  defines with external linkage (a call, or the function's address in a
  table; `struct NAME` is a type, not a reference). The strongly connected
  components of that graph with more than one file are cycles: two files
  that reach each other.
- Function lengths: every function of a .c or .cpp file under src/ and
  inject/ written in the house style (docs/internals/coding-style.md: its
  name at column 0, its body from a `{` to a `}` at column 0), in lines
  from the name to the closing brace. Reported: the longest; every
  function over FUNCTION_MAX (150) lines that is not one of the option
  parsers and linear writers named in LONG_ALLOWED (each with why it may
  be long), which are listed apart; and every function of a command file
  (src/cli/cmd-*.c) over COMMAND_MAX (120) lines.
- Duplicated blocks: lizard's duplicate detector (`lizard -Eduplicate`, a
  PyPI package, run when installed), blocks per 1,000 lines of code.

Exit status 0; the figures go to standard output.
"""

import json
import os
import re
import shutil
import subprocess
import sys

DEF_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.M)
IDENT_RE = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING_RE = re.compile(r'"(?:\\.|[^"\\\n])*"')
TAG_RE = re.compile(r"\b(?:struct|enum|union)\s+[A-Za-z_][A-Za-z0-9_]*")


def sources(root, dirs, exts):
    out = []
    for d in dirs:
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if f.endswith(exts):
                    out.append(os.path.relpath(os.path.join(base, f), root))
    return sorted(out)


def external_defs(text):
    """Functions defined at column 0 whose return type line is not static."""
    lines = text.split("\n")
    defs = set()
    for i, line in enumerate(lines):
        m = DEF_RE.match(line)
        if not m or m.group(1) in ("if", "for", "while", "switch", "return", "sizeof",
                                   "__attribute__", "_Static_assert", "static_assert"):
            continue
        prev = lines[i - 1] if i else ""
        if line.rstrip().endswith(";"):
            continue  # a prototype or macro call
        if "static" in prev or prev.strip().startswith("#") or prev.strip() == "":
            if "static" in prev or prev.strip().startswith("#"):
                continue
        defs.add(m.group(1))
    return defs


def tarjan(graph):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def cycles(root):
    files = sources(root, ["src", "inject"], (".c", ".cpp"))
    text = {}
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text[f] = fh.read()
    owner = {}
    for f in files:
        for d in external_defs(text[f]):
            owner.setdefault(d, set()).add(f)
    graph = {f: set() for f in files}
    for f in files:
        # a struct, enum or union tag is a type, not a call of a function of that name
        body = TAG_RE.sub(" ", STRING_RE.sub('""', COMMENT_RE.sub(" ", text[f])))
        for ident in set(IDENT_RE.findall(body)):
            for g in owner.get(ident, ()):
                if g != f:
                    graph[f].add(g)
    return [c for c in tarjan(graph) if len(c) > 1]


FUNCTION_MAX = 150
COMMAND_MAX = 120

# Functions allowed over FUNCTION_MAX lines: option parsers (a getopt loop
# and its usage errors) and linear writers (output written part after part,
# in the order it is read, with no logic to split out). Each with its kind
# and what it writes or parses.
LONG_ALLOWED = {
    ("src/target-derive.c", "gpuproj_target_derive_yaml"):
        "linear writer: the provisional targets.yaml entry, key after key, with "
        "the source of each",
    ("src/gate-write.c", "gpuproj_gate_markdown"):
        "linear writer: the gate's Markdown report, section after section",
    ("src/bench/bench-yaml.c", "emit_sources"):
        "linear writer: the sources of a measured targets.yaml entry, key after key",
    ("src/bench/bench-write.c", "bench_write_table"):
        "linear writer: `gpuproj bench`'s table, row after row",
}

FUNC_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_:~]*)\s*\(")


def functions(text):
    """(name, first line, lines) of each function in the house style."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = FUNC_RE.match(lines[i])
        if m and m.group(1) not in ("if", "for", "while", "switch", "return", "sizeof") \
                and not lines[i].rstrip().endswith(";"):
            j = i
            while j < len(lines) and lines[j] != "{" and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and lines[j] == "{":
                k = j
                while k < len(lines) and lines[k] != "}":
                    k += 1
                out.append((m.group(1), i + 1, k - i + 1))
                i = k + 1
                continue
        i += 1
    return out


def function_lengths(root):
    res = []
    for f in sources(root, ["src", "inject"], (".c", ".cpp")):
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for name, line, n in functions(fh.read()):
                res.append({"file": f, "function": name, "line": line, "lines": n})
    res.sort(key=lambda r: (-r["lines"], r["file"], r["function"]))
    over = [r for r in res if r["lines"] > FUNCTION_MAX]
    allowed = [dict(r, why=LONG_ALLOWED[(r["file"], r["function"])]) for r in over
               if (r["file"], r["function"]) in LONG_ALLOWED]
    return {
        "functions": len(res),
        "longest": res[:10],
        "over_max": [r for r in over if (r["file"], r["function"]) not in LONG_ALLOWED],
        "over_max_allowed": allowed,
        "commands_over_max": [r for r in res if r["lines"] > COMMAND_MAX and
                              re.match(r"src/cli/cmd-[^/]*\.c$", r["file"])],
    }


def line_counts(root):
    out = {}
    for f in sources(root, ["src", "inject"], (".c", ".cpp", ".h")):
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            out[f] = sum(1 for _ in fh)
    return out


def duplicates(root):
    exe = shutil.which("lizard")
    if not exe:
        return None
    r = subprocess.run([exe, "-Eduplicate", "src", "inject"], cwd=root,
                       capture_output=True, text=True, check=False)
    blocks = r.stdout.count("Duplicate block:")
    m = re.search(r"Total duplicate rate:\s*([0-9.]+)%", r.stdout)
    nloc = 0
    for line in r.stdout.split("\n"):
        m2 = re.match(r"^\s*(\d+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+$", line)
        if m2:
            nloc = int(m2.group(1))
    return {"blocks": blocks, "rate_percent": float(m.group(1)) if m else None,
            "nloc": nloc,
            "blocks_per_kloc": round(blocks * 1000.0 / nloc, 2) if nloc else None}


def main(argv):
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    lc = line_counts(root)
    c_files = {f: n for f, n in lc.items() if f.endswith((".c", ".cpp"))}
    res = {
        "files": len(lc),
        "lines": sum(lc.values()),
        "longest": sorted(lc.items(), key=lambda kv: -kv[1])[:10],
        "c_over_1500": sorted(f for f, n in c_files.items() if n > 1500),
        "cycles": cycles(root),
        "function_lengths": function_lengths(root),
        "duplicates": duplicates(root),
    }
    if as_json:
        json.dump(res, sys.stdout, indent=1)
        print()
        return 0
    print(f"files {res['files']}, lines {res['lines']}")
    print("longest:")
    for f, n in res["longest"]:
        print(f"  {n:6d} {f}")
    print(f".c files over 1,500 lines: {len(res['c_over_1500'])} {res['c_over_1500']}")
    print(f"cycles between files: {len(res['cycles'])}")
    for c in res["cycles"]:
        print("  " + " <-> ".join(c))
    fl = res["function_lengths"]
    print(f"functions: {fl['functions']}; longest:")
    for r in fl["longest"]:
        print(f"  {r['lines']:6d} {r['file']}:{r['line']} {r['function']}")
    print(f"functions over {FUNCTION_MAX} lines: {len(fl['over_max'])}, besides "
          f"{len(fl['over_max_allowed'])} option parsers and linear writers named in "
          f"LONG_ALLOWED")
    for r in fl["over_max"]:
        print(f"  {r['lines']:6d} {r['file']}:{r['line']} {r['function']}")
    for r in fl["over_max_allowed"]:
        print(f"  {r['lines']:6d} {r['file']}:{r['line']} {r['function']} (allowed: {r['why']})")
    print(f"command functions (src/cli/cmd-*.c) over {COMMAND_MAX} lines: "
          f"{len(fl['commands_over_max'])}")
    for r in fl["commands_over_max"]:
        print(f"  {r['lines']:6d} {r['file']}:{r['line']} {r['function']}")
    d = res["duplicates"]
    if d is None:
        print("duplicated blocks: lizard not installed")
    else:
        print(f"duplicated blocks: {d['blocks']} in {d['nloc']} lines of code "
              f"({d['blocks_per_kloc']} per 1,000; lizard's duplicate rate {d['rate_percent']}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
