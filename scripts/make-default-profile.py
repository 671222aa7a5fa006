#!/usr/bin/env python3
"""Build src/data/default-profile.json, the profile `gpuproj project --builtin`
projects on machines without a GPU (the README's main job).

It is a subset of published measurements on a current GPU (so that the
first table a new user sees compares projections with measurements on GPUs
people use now): the training split of the NeuSight data set (Lee et al.,
Forecasting GPU Performance for Deep Learning Training and Inference,
ASPLOS 2025; repository sitar-lab/NeuSight @ 6945927d, MIT licence; its test
split is held back and never used), converted by `gpuproj import neusight`.
Source GPU: the A100-PCIe-40GB (Ampere). For each operator (FP32 `linear`,
a cuBLAS SGEMM, and element-wise `add`), among the shapes that all four
other GPUs (V100, T4, P100, P4) timed too and that run 50 us or more on the
A100, the configurations at the 10th, 50th, 90th and 100th percentile of
the A100 kernel time are kept. Each keeps the times the other GPUs
measured for it (reference_ns), so the main job shows the projection error
against real measurements. extra_metrics are dropped to keep the file small.

usage: make-default-profile.py GPUPROJ_EXE NEUSIGHT_TRAIN_DIR OUTPUT.json
  (NEUSIGHT_TRAIN_DIR: ../shared/validation/neusight-train, holding
  linear/*.csv and add/*.csv)
"""
import json
import os
import subprocess
import sys
import tempfile

SOURCE = "A100-PCIe-40GB"
PERCENTILES = (0.1, 0.5, 0.9, 1.0)
MIN_NS = 50000.0
OTHERS = 4


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    exe, dataset, out = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([exe, "import", "neusight", dataset, "-o", tmp], check=True,
                       stderr=subprocess.DEVNULL)
        with open(os.path.join(tmp, SOURCE + ".json")) as f:
            prof = json.load(f)
    by_name = {}
    for k in prof["kernels"]:
        if len(k.get("reference_ns", {})) == OTHERS and k["duration_ns"]["mean"] >= MIN_NS:
            by_name.setdefault(k["name"], []).append(k)
    kept = []
    for name in sorted(by_name):
        ks = sorted(by_name[name], key=lambda k: (k["duration_ns"]["mean"], k.get("tag", "")))
        picks = []
        for q in PERCENTILES:
            k = ks[min(len(ks) - 1, int(round(q * (len(ks) - 1))))]
            if k not in picks:
                picks.append(k)
        for k in picks:
            k.pop("extra_metrics", None)
            kept.append(k)
    attrs = prof["attributes"]
    attrs["import.files"] = ", ".join(
        os.path.join(os.path.basename(os.path.dirname(p.strip())), os.path.basename(p.strip()))
        for p in attrs.get("import.files", "").split(","))
    for key in ("call_overhead_basis",):
        if key in attrs:
            attrs[key] = attrs[key].replace(os.path.abspath(dataset) + os.sep, "neusight-train/")
    attrs["selection"] = ("per operator, among the shapes that all five GPUs timed and that run "
                          "50 us or more on the A100, the configurations at the 10th, 50th, 90th "
                          "and 100th percentile of the A100 kernel time "
                          "(scripts/make-default-profile.py)")
    prof["kernels"] = kept
    # The import's run total covers every shape; the subset's is its own sum.
    if isinstance(prof.get("run"), dict):
        prof["run"]["kernel_ns"] = sum(k["duration_ns"]["sum"] for k in kept)
    prof["process"] = {"application": "PyTorch FP32 linear (cuBLAS SGEMM) and add (NeuSight)",
                       "host": None, "pid": None, "rank": None, "argv": None}
    with open(out, "w") as f:
        json.dump(prof, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
