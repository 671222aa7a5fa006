#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Accuracy of the compute roofs (sustained rates, issue-limited compute) on
pairs used for choosing and on held-out pairs: the table "Compute roofs: choosing and held-out pairs" of
docs/validation.md.

Usage:
  scripts/accuracy-split.py GPUPROJ VALIDATION_DIR [KERNELTUNER_DIR [KT_MILO_DIR]]
                            [--set compute|rates|issue30]

VALIDATION_DIR holds gpuperfpredict/*.csv and neusight-train/{linear,add}/*.csv
(../shared/validation beside the checkout); KERNELTUNER_DIR the profiles of
`gpuproj import kerneltuner` (docs/validation.md says which files). The
set of runs: compute (default; naive, hroof-occ --compute fp and --compute
issue: the table "Compute roofs: choosing and held-out pairs") or rates
(naive, hroof-occ --rates sustained and --rates datasheet: "Sustained
against datasheet rates").

For each corpus, the GPUs are split as `gpuproj validate --holdout gpu`
splits targets: sorted by targets.yaml name, even positions are the
CHOOSING GPUs, odd positions the HELD-OUT GPUs. A decision between model
options is taken on the pairs whose source and target are both choosing
GPUs; figures on the pairs whose source and target are both held out, and
on the pairs whose target is held out (validate's convention), are reported
only. The Kernel Tuner corpus was used for nothing: all its pairs are
held-out (its split is printed for symmetry). Long launches only (measured
on the target >= 50 us). MAPE and median APE in %, per launch.

--set issue30 (docs/validation.md "Achievable FP32 rate and clock regime"):
naive, the default, --fp32 dense, --compute issue, both, and --clock auto,
on every pair (in-sample), on the pairs whose target is held out (the
evaluation half of `gpuproj validate --holdout gpu`: odd positions by name)
and on the pairs with both GPUs held out; KT_MILO_DIR holds the profiles
of `gpuproj import kerneltuner` of benchmark_hub's cachefiles/
convolution_milo/{A100,A6000}.json (the use_shmem = 1 configurations, the
use_shmem and use_cmem keys removed: the layout of the other caches), and
the XLA matmul table of tests/data is added.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

CORPORA = [
    ("gpuperfpredict", ["gpuperfpredict/heartwall.csv", "gpuperfpredict/hotspot.csv",
                        "gpuperfpredict/backprop_layerforward.csv",
                        "gpuperfpredict/backprop_adjust_weights.csv"]),
    ("NeuSight linear", ["neusight-train/linear"]),
    ("NeuSight add", ["neusight-train/add"]),
]
# (label, model, extra options) per set
CONFIGS = {
    "compute": [
        ("naive", "naive", []),
        ("hroof-occ --compute fp", "hroof-occ", ["--compute", "fp"]),
        ("hroof-occ --compute issue", "hroof-occ", ["--compute", "issue"]),
    ],
    "rates": [
        ("naive", "naive", []),
        ("hroof-occ --rates sustained", "hroof-occ", ["--rates", "sustained"]),
        ("hroof-occ --rates datasheet", "hroof-occ", ["--rates", "datasheet"]),
    ],
    "issue30": [
        ("naive", "naive", []),
        ("hroof-occ (default)", "hroof-occ", []),
        ("hroof-occ --fp32 dense", "hroof-occ", ["--fp32", "dense"]),
        ("hroof-occ --compute issue", "hroof-occ", ["--compute", "issue"]),
        ("hroof-occ --fp32 dense --compute issue", "hroof-occ",
         ["--fp32", "dense", "--compute", "issue"]),
        ("hroof-occ --clock auto", "hroof-occ", ["--clock", "auto"]),
    ],
}
XLA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "xla-matmul", "xla-matmul.csv")
ADA = {"L4", "L40S", "L40", "RTX-4090", "RTX-4080", "RTX-6000-Ada"}
LONG_NS = 50000.0


def files(vdir, parts, ext):
    out = []
    for p in parts:
        full = os.path.join(vdir, p)
        if os.path.isdir(full):
            out += sorted(os.path.join(full, f) for f in os.listdir(full) if f.endswith(ext))
        else:
            out.append(full)
    return out


def comparisons(exe, model, opts, paths):
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        cmd = [exe, "validate", "--model", model, "--clock", "sustained", "--format", "json",
               "--details", "-o", tmp.name] + opts + paths
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(tmp.name) as f:
            d = json.load(f)
    return [(c["source"], c["target"], abs(c["error_pct"])) for c in d["comparisons"]
            if c["status"] == "ok" and c["measured_ns"] >= LONG_NS]


def stats(errs):
    if not errs:
        return "0 | – | –"
    return "%d | %.1f | %.1f" % (len(errs), sum(errs) / len(errs), statistics.median(errs))


def main():
    argv = sys.argv[1:]
    which = "compute"
    if "--set" in argv:
        i = argv.index("--set")
        which = argv[i + 1]
        del argv[i:i + 2]
    if which not in CONFIGS:
        print("accuracy-split.py: --set must be compute, rates or issue30", file=sys.stderr)
        return 2
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    exe, vdir = argv[0], argv[1]
    corpora = [(n, files(vdir, p, ".csv")) for n, p in CORPORA]
    if len(argv) > 2:
        corpora.append(("Kernel Tuner", files(argv[2], ["."], ".json")))
    if which == "issue30":
        if len(argv) > 3:
            corpora.append(("Kernel Tuner milo", files(argv[3], ["."], ".json")))
        corpora.append(("XLA matmul", [XLA]))
        return issue30(exe, corpora)
    print("| corpus | model | choosing GPUs | choosing pairs n | MAPE | median "
          "| held-out GPUs | held-out pairs n | MAPE | median "
          "| target held out n | MAPE | median | Ada targets |")
    print("|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for name, paths in corpora:
        for label, model, opts in CONFIGS[which]:
            cmp = comparisons(exe, model, opts, paths)
            gpus = sorted({t for _, t, _ in cmp})
            choose = set(gpus[0::2])
            held = set(gpus[1::2])
            if name == "Kernel Tuner":
                choose, held = set(), set(gpus)
            ch = [e for s, t, e in cmp if s in choose and t in choose]
            ho = [e for s, t, e in cmp if s in held and t in held]
            th = [e for s, t, e in cmp if t in held]
            ada = [e for s, t, e in cmp if t in ADA]
            print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, label, ", ".join(sorted(choose)) or "none", stats(ch),
                ", ".join(sorted(held)), stats(ho), stats(th),
                stats(ada) if ada else "none in the corpus"))
            sys.stdout.flush()
    return 0


def issue30(exe, corpora):
    print("| corpus | model | all pairs n | MAPE | median | target held out n | MAPE | median "
          "| both held out n | MAPE | median | held-out GPUs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, paths in corpora:
        for label, model, opts in CONFIGS["issue30"]:
            cmp = comparisons(exe, model, opts, paths)
            held = set(sorted({t for _, t, _ in cmp})[1::2])
            print("| %s | %s | %s | %s | %s | %s |" % (
                name, label, stats([e for _, _, e in cmp]),
                stats([e for _, t, e in cmp if t in held]),
                stats([e for s, t, e in cmp if s in held and t in held]),
                ", ".join(sorted(held))))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
