#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The accuracy table of docs/validation.md ("Summary: both corpora, every
model"; the README summarises it): every model on both validation corpora.

Usage:
  scripts/accuracy-md.py GPUPROJ VALIDATION_DIR [--models M,M,...]

VALIDATION_DIR holds gpuperfpredict/*.csv and neusight-train/{linear,add}/*.csv
(../shared/validation beside the checkout). For each corpus (gpuperfpredict,
NeuSight `linear`, NeuSight `add`) it runs `gpuproj validate` three ways and
prints Markdown:
  1. every comparison, built-in intervals: MAPE, median APE and bias (no
     model parameter is fitted to these data; the T4 and P4 FP32 clocks of
     targets.yaml are, and the NeuSight importer's per-call overhead is
     fitted on the calibration half of the shapes, see docs/validation.md);
  2. --holdout shape with the built-in intervals: coverage and width on the
     half of the kernel shapes the built-in intervals were not fitted to;
  3. --holdout gpu --fit-intervals: intervals refitted on half of the
     corpus's target GPUs, coverage and width on the other half (GPUs the
     intervals never saw).
Long = measured on the target >= 50 us, short = below.

A model written NAME:TERM runs with --occupancy TERM; NAME+burst runs with
--clock burst (the FP ceilings of GPUs with boost_hold_us in the burst
regime: include/gpuproj/model.h, enum gpuproj_clock); NAME@sections runs
with --default-sections (every profile reduced to what an export of
Nsight Compute's default sections would hold: the input of `sol`).
The default list ends with sol on the default sections.
"""
import json
import subprocess
import sys
import tempfile
import os

CORPORA = [
    ("gpuperfpredict", ["gpuperfpredict/heartwall.csv", "gpuperfpredict/hotspot.csv",
                        "gpuperfpredict/backprop_layerforward.csv",
                        "gpuperfpredict/backprop_adjust_weights.csv"]),
    ("NeuSight linear", ["neusight-train/linear"]),
    ("NeuSight add", ["neusight-train/add"]),
]
MODELS = ["hroof-occ", "hroof-occ+burst", "hroof-occ:linear", "hroof", "occupancy", "irm", "quant", "naive",
          "sol@sections"]


def files(vdir, parts):
    out = []
    for p in parts:
        full = os.path.join(vdir, p)
        if os.path.isdir(full):
            out += sorted(os.path.join(full, f) for f in os.listdir(full) if f.endswith(".csv"))
        else:
            out.append(full)
    return out


def run(exe, model, args, paths):
    model, _, inputs = model.partition("@")
    model, _, clock = model.partition("+")
    name, _, term = model.partition(":")
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        cmd = [exe, "validate", "--model", name, "--format", "json", "-o", tmp.name] + args
        if term:
            cmd += ["--occupancy", term]
        # Always explicit: the default (sustained) would also print validate's
        # note on NeuSight's burst timing once per run.
        cmd += ["--clock", clock or "sustained"]
        if inputs == "sections":
            cmd += ["--default-sections"]
        subprocess.run(cmd + paths, check=True, stdout=subprocess.DEVNULL)
        with open(tmp.name) as f:
            return json.load(f)["overall"][0]


def fmt(v):
    return "–" if v is None else f"{v:.1f}"


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    exe, vdir = sys.argv[1], sys.argv[2]
    models = MODELS
    if len(sys.argv) > 4 and sys.argv[3] == "--models":
        models = sys.argv[4].split(",")
    print("| corpus | model | long n | long MAPE | long median | long bias | long cover "
          "(shape / GPU held out) | long width | short n | short MAPE | short median | "
          "short bias | short cover (shape / GPU) | short width |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for corpus, parts in CORPORA:
        paths = files(vdir, parts)
        for m in models:
            try:
                a = run(exe, m, [], paths)
            except subprocess.CalledProcessError:
                a = None
            if a is None or not a["all"]["n"]:
                why = a["failures"][0]["why"] if a and a["failures"] else "nothing projected"
                label = m.replace("@sections", " (default sections)")
                print(f"| {corpus} | {label} | not projected: {why} |" + " |" * 11)
                continue
            s = run(exe, m, ["--holdout", "shape"], paths)
            with tempfile.NamedTemporaryFile(suffix=".json") as fit:
                g = run(exe, m, ["--holdout", "gpu", "--coverage", "0.85",
                                 "--fit-intervals", fit.name], paths)
            row = [corpus, m.replace(":", " --occupancy ").replace("+", " --clock ")
                   .replace("@sections", " (default sections)")]
            for sub in ("long", "short"):
                x, y, z = a[sub], s[sub], g[sub]
                if not x["n"]:
                    row += [str(x["n"])] + ["–"] * 5
                    continue
                row += [str(x["n"]), fmt(x["mape_pct"]), fmt(x["median_ape_pct"]),
                        fmt(x["bias_pct"]),
                        f"{fmt(y['coverage_pct'])} / {fmt(z['coverage_pct'])}",
                        fmt(y["width_pct"])]
            print("| " + " | ".join(row) + " |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
