#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The figures that decide a default: a model option against the current default
and naive on every visible corpus, in-sample and with half the GPUs held
out (docs/validation.md "L2 residency of repeated launches" and "Launch
floor").

Usage:
  scripts/accuracy-issue30.py GPUPROJ VALIDATION_DIR [--set l2|floor] [--corpus NAME]

VALIDATION_DIR holds gpuperfpredict/*.csv, neusight-train/{linear,add}/*.csv
and seed002/runs_*_final.csv (../shared/validation beside the checkout).
--set chooses the configurations compared (default l2); --corpus limits
the run to one corpus (repeat).

For each corpus and configuration, `gpuproj validate --format json
--details` runs once; from its comparisons:
- all pairs: every comparison (the in-sample figure: the configurations'
  parameters were chosen or fitted on GPUs of these corpora);
- held out: the comparisons whose target GPU is in the half that
  `validate --holdout gpu` evaluates (targets sorted by name, odd
  positions), the rule's held-out figure.
Each as MAPE over long launches (measured on the target >= 50 us) and over
all launches, with n. The decision rule: an option becomes the
default only when, held out, it beats both the current default and naive.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

CORPORA = {
    "gpuperfpredict": ["gpuperfpredict/heartwall.csv", "gpuperfpredict/hotspot.csv",
                       "gpuperfpredict/backprop_layerforward.csv",
                       "gpuperfpredict/backprop_adjust_weights.csv"],
    "NeuSight linear": ["neusight-train/linear/*.csv"],
    "NeuSight add": ["neusight-train/add/*.csv"],
    "seed 002": ["seed002/runs_*_final.csv"],
}
SETS = {
    "l2": [
        ("naive", "naive", []),
        ("hroof-occ (--l2-capacity off)", "hroof-occ", ["--l2-capacity", "off"]),
        ("hroof-occ --l2-capacity on", "hroof-occ", ["--l2-capacity", "on"]),
    ],
    "floor": [
        ("naive", "naive", []),
        ("hroof-occ --launch-floor off", "hroof-occ", ["--launch-floor", "off"]),
        ("hroof-occ --launch-floor on", "hroof-occ", ["--launch-floor", "on"]),
    ],
}
LONG_NS = 50000.0


def comparisons(exe, model, opts, paths):
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        cmd = [exe, "validate", "--model", model, "--clock", "sustained", "--format", "json",
               "--details", "-o", tmp.name] + opts + paths
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(tmp.name) as f:
            return json.load(f)["comparisons"]


def mape(errs):
    return "%d | %.1f" % (len(errs), statistics.mean(errs)) if errs else "0 | –"


def main():
    argv = sys.argv[1:]
    which, only = "l2", []
    while "--set" in argv or "--corpus" in argv:
        for flag in ("--set", "--corpus"):
            if flag in argv:
                i = argv.index(flag)
                if flag == "--set":
                    which = argv[i + 1]
                else:
                    only.append(argv[i + 1])
                del argv[i:i + 2]
    if len(argv) < 2 or which not in SETS:
        print(__doc__, file=sys.stderr)
        return 2
    exe, vdir = argv[0], argv[1]
    print("| corpus | configuration | held-out GPUs | all pairs, long n | MAPE | all pairs, "
          "all n | MAPE | held out, long n | MAPE | held out, all n | MAPE |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, pats in CORPORA.items():
        if only and name not in only:
            continue
        paths = []
        for p in pats:
            paths += sorted(glob.glob(os.path.join(vdir, p)))
        if not paths:
            continue
        for label, model, opts in SETS[which]:
            cmp = [c for c in comparisons(exe, model, opts, paths) if c["status"] == "ok"]
            gpus = sorted({c["target"] for c in cmp})
            held = set(gpus[1::2])
            al = [abs(c["error_pct"]) for c in cmp]
            lo = [abs(c["error_pct"]) for c in cmp if c["measured_ns"] >= LONG_NS]
            hal = [abs(c["error_pct"]) for c in cmp if c["target"] in held]
            hlo = [abs(c["error_pct"]) for c in cmp
                   if c["target"] in held and c["measured_ns"] >= LONG_NS]
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                name, label, ", ".join(sorted(held)), mape(lo), mape(al), mape(hlo), mape(hal)))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
