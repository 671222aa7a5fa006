#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown tables for docs/validation.md from `gpuproj validate` JSON.

Usage:
  gpuproj validate --model all --format json --details DATA... > all.json
  scripts/validation-md.py all.json [--section overall|kernels|targets|matrix|pairs]...

Reads the "overall", "pairs" and "comparisons" arrays of a
gpuproj-validation/1 document (include/gpuproj/validate.h) and prints:
  overall  per model: n, MAPE, median APE, coverage, bias, for all, short, long
  kernels  per model and kernel: MAPE / median APE / bias
  targets  per model and target GPU: MAPE / median APE / bias
  matrix   per model: source x target MAPE matrix
  pairs    per model: every (source, target) pair, all columns (in <details>)
The statistics are recomputed from "comparisons" only for the per-kernel
and per-target tables (same definitions as the header's).
"""
import json
import statistics
import sys
from collections import defaultdict

SHORT = {"GTX-680": "680", "Tesla-K20": "K20", "Tesla-K40": "K40", "GTX-Titan": "Titan",
         "Quadro-K5200": "K5200", "GTX-Titan-X": "TitanX", "GTX-970": "970",
         "GTX-980": "980", "Tesla-P100-PCIe-16GB": "P100"}
KERNELS = {"kernel": "heartwall", "calculate_temp": "hotspot",
           "bpnn_layerforward_CUDA": "backprop layerforward",
           "bpnn_adjust_weights_cuda": "backprop adjust_weights"}


def f(v, nd=1):
    return "–" if v is None else f"{v:.{nd}f}"


def stats(errs):
    a = [abs(e) for e in errs]
    if not a:
        return None, None, None
    return sum(a) / len(a), statistics.median(a), sum(errs) / len(errs)


def overall(doc):
    print("| model | n | MAPE % | median APE % | coverage % | bias % | short n | short MAPE / median |"
          " long n | long MAPE / median |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|---|")
    for g in doc["overall"]:
        a, s, l = g["all"], g["short"], g["long"]
        print(f"| {g['model']} | {a['n']} | {f(a['mape_pct'])} | {f(a['median_ape_pct'])} | "
              f"{f(a['coverage_pct'])} | {f(a['bias_pct'])} | {s['n']} | "
              f"{f(s['mape_pct'])} / {f(s['median_ape_pct'])} | {l['n']} | "
              f"{f(l['mape_pct'])} / {f(l['median_ape_pct'])} |")


def grouped(doc, key, names):
    models = doc["models"]
    groups = defaultdict(list)
    for c in doc["comparisons"]:
        if c["status"] == "ok":
            groups[(c["model"], c[key])].append(c["error_pct"])
    cols = sorted({k[1] for k in groups}, key=lambda x: list(names).index(x) if x in names else 99)
    print("| model | " + " | ".join(names.get(c, c) for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for m in models:
        cells = []
        for c in cols:
            mape, med, bias = stats(groups.get((m, c), []))
            cells.append(f"{f(mape)} / {f(med)} / {f(bias, 0)}")
        print(f"| {m} | " + " | ".join(cells) + " |")


def matrix(doc):
    order = list(SHORT)
    for m in doc["models"]:
        cell = {}
        for g in doc["pairs"]:
            if g["model"] == m:
                cell[(g["source"], g["target"])] = g["all"]
        print(f"\n**{m}**: MAPE % (median APE %), rows = source, columns = target\n")
        print("| source \\ target | " + " | ".join(SHORT[t] for t in order) + " |")
        print("|---|" + "---:|" * len(order))
        for s in order:
            row = []
            for t in order:
                st = cell.get((s, t))
                row.append("" if st is None else f"{f(st['mape_pct'], 0)} ({f(st['median_ape_pct'], 0)})")
            print(f"| {SHORT[s]} | " + " | ".join(row) + " |")


def pairs(doc):
    for m in doc["models"]:
        print(f"\n<details><summary>{m}: every pair</summary>\n")
        print("| source | target | n | MAPE | median | cover | bias | short n | short MAPE | short median |"
              " long n | long MAPE | long median |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for g in doc["pairs"]:
            if g["model"] != m:
                continue
            a, s, l = g["all"], g["short"], g["long"]
            print(f"| {g['source']} | {g['target']} | {a['n']} | {f(a['mape_pct'])} | "
                  f"{f(a['median_ape_pct'])} | {f(a['coverage_pct'])} | {f(a['bias_pct'])} | "
                  f"{s['n']} | {f(s['mape_pct'])} | {f(s['median_ape_pct'])} | {l['n']} | "
                  f"{f(l['mape_pct'])} | {f(l['median_ape_pct'])} |")
        print("\n</details>")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    doc = json.load(open(argv[1]))
    sections = [a for a in argv[2:] if not a.startswith("--")] or \
        ["overall", "kernels", "targets", "matrix", "pairs"]
    for s in sections:
        if s == "overall":
            overall(doc)
        elif s == "kernels":
            grouped(doc, "kernel", KERNELS)
        elif s == "targets":
            grouped(doc, "target", SHORT)
        elif s == "matrix":
            matrix(doc)
        elif s == "pairs":
            pairs(doc)
        print()


if __name__ == "__main__":
    main(sys.argv)
