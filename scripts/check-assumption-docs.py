#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that the docs' tables of what each assumption costs are the
built-in table's figures (src/data/assumptions.json).

Usage: scripts/check-assumption-docs.py [REPO_ROOT]

src/data/assumptions.json (written by `gpuproj validate --fit-assumptions`)
is the one source of the figures. Two pages print them:
  docs/models.md, "Missing inputs": one row per measured factor,
    | assumption | model | n | lo, hi | MAPE with → without | naive | plain → widened |
  docs/cli/gpuproj-import.md, "Missing inputs and what collects them": one
    row per factor of the default model (hroof-occ),
    | assumption | stand-in | MAPE with → without | naive | plain → widened |
Every factor must have its row, every row a factor, and each row the
factor's figures as the fit prints them (one decimal; lo, hi three;
n with thousands separators). Prints FILE:LINE: problem per mismatch and
exits 1 when there is one.
"""

import json
import os
import re
import sys

DEFAULT_MODEL = "hroof-occ"
ARROW = re.compile(r"([\d.]+) → ([\d.]+) %")


def pct(v):
    return "–" if v is None else f"{v:.1f}"


def rows(path, heading):
    """Table rows (line number, cells) under `heading` up to the next heading."""
    out, inside = [], False
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if line.startswith("#"):
                inside = line.strip("# \n").startswith(heading)
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if inside and line.startswith("|") and "→" in line and cells[0] != "assumption":
                out.append((no, cells))
    return out


def check_row(where, cells, f, with_model):
    errs = []
    arrows = [m.groups() for c in cells for m in [ARROW.search(c)] if m]
    want_mape = (pct(f["mape_pct"][0]), pct(f["mape_pct"][1]))
    want_cov = (pct(f["coverage_pct"][0]), pct(f["coverage_pct"][1]))
    if len(arrows) != 2 or arrows[0] != want_mape or arrows[1] != want_cov:
        errs.append(f"{where}: {f['assumption']} / {f['model']}: want MAPE "
                    f"{want_mape[0]} → {want_mape[1]} %, coverage {want_cov[0]} → "
                    f"{want_cov[1]} %; the row has {arrows}")
    naive = pct(f.get("naive_mape_pct"))
    if f"{naive} %" not in cells and not (naive == "–" and "–" in cells):
        errs.append(f"{where}: {f['assumption']} / {f['model']}: naive {naive} % missing")
    if with_model:
        if f"{f['n']:,}" not in cells:
            errs.append(f"{where}: {f['assumption']} / {f['model']}: n {f['n']:,} missing")
        if f"{f['lo']:.3f}, {f['hi']:.3f}" not in cells:
            errs.append(f"{where}: {f['assumption']} / {f['model']}: widening "
                        f"{f['lo']:.3f}, {f['hi']:.3f} missing")
    return errs


def check_page(root, page, heading, factors, with_model):
    path = os.path.join(root, page)
    errs, seen = [], set()
    for no, cells in rows(path, heading):
        model = cells[1] if with_model else DEFAULT_MODEL
        key = (cells[0], model)
        where = f"{page}:{no}"
        if key not in factors:
            errs.append(f"{where}: {key[0]} / {key[1]} is no factor of "
                        "src/data/assumptions.json")
            continue
        seen.add(key)
        errs += check_row(where, cells, factors[key], with_model)
    for key in factors:
        if key not in seen and (with_model or key[1] == DEFAULT_MODEL):
            errs.append(f"{page}: no row for {key[0]} / {key[1]}")
    return errs


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    with open(os.path.join(root, "src/data/assumptions.json"), encoding="utf-8") as f:
        table = json.load(f)
    factors = {(f["assumption"], f["model"]): f for f in table["factors"]}
    errs = check_page(root, "docs/models.md", "Missing inputs", factors, True)
    errs += check_page(root, "docs/cli/gpuproj-import.md", "Missing inputs", factors, False)
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
