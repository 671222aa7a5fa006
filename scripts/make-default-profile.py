#!/usr/bin/env python3
"""Build src/data/default-profile.json, the profile `gpuproj project --builtin`
projects on machines without a GPU (the README's main job).

It is a subset of published measurements: the gpuperfpredict data set
(Amaris, Camargo, Cordeiro, Goldman, Trystram, NCA 2016; repository
marcosamaris/gpuperfpredict; CC BY 4.0), converted by `gpuproj import
gpuperfpredict`. Source GPU: the Tesla P100 (the newest GPU of the set).
For each of the four Rodinia kernels, three configurations are kept: those at
the 50th, 90th and 100th percentile of the P100 duration. Each keeps the
times the other eight GPUs measured for it (reference_ns), so the main job
shows the projection error against real measurements. Raw nvprof columns
(extra_metrics) are dropped to keep the file small.

usage: make-default-profile.py GPUPROJ_EXE DATASET_DIR OUTPUT.json
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

SOURCE = "Tesla-P100-PCIe-16GB"
PERCENTILES = (0.5, 0.9, 1.0)


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    exe, dataset, out = sys.argv[1:]
    csvs = sorted(glob.glob(os.path.join(dataset, "*.csv")))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([exe, "import", "gpuperfpredict", *csvs, "-o", tmp], check=True,
                       stderr=subprocess.DEVNULL)
        with open(os.path.join(tmp, SOURCE + ".json")) as f:
            prof = json.load(f)
    by_name = {}
    for k in prof["kernels"]:
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
    attrs["import.files"] = ", ".join(os.path.basename(c) for c in csvs)
    attrs["selection"] = ("per kernel, the configurations at the 50th, 90th and 100th "
                          "percentile of the Tesla P100 duration (scripts/make-default-profile.py)")
    prof["kernels"] = kept
    prof["process"] = {"application": "Rodinia (backprop, heartwall, hotspot)", "host": None,
                       "pid": None, "rank": None, "argv": None}
    with open(out, "w") as f:
        json.dump(prof, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
