#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seed 002's experiments reproduced (docs/validation.md "Seed 002's
experiments"): every gpuproj model and naive on the comparisons of the
seed's Table 3 and Table 5, with the seed's statistics.

Usage:
  scripts/seed002-md.py GPUPROJ SEED002_DIR [VALIDATE_OPTION...]

SEED002_DIR holds runs_{2080ti,4070,titanv,titanx}_final.csv
(../shared/validation/seed002). Options after it go to every
`gpuproj validate` run (e.g. --l2-capacity on).

The comparisons, as the seed's own script (Debdeep23/test1 @ f808e854,
predict-kernel-perf/scripts/analytical_model_occupancy.py) selects them:
- Table 3 (Experiment 1, "same kernel, same config, new GPU"): the TITAN V
  as target from every other GPU of the set that measured the same
  configuration (kernel, N, rows, cols, block, iters) — the RTX 2080 Ti,
  the RTX 4070 and the GTX TITAN X: 135 comparisons the seed's model
  projects (two more, shared_bank_conflict, have neither FLOPs nor BYTES).
- Table 5 (Experiment 3a, "new but related kernels"): for matmul_tiled,
  shared_transpose, atomic_hotspot and vector_add_divergent, the
  configuration with the smallest working set over all four GPUs
  ("baseline"), every ordered pair of the GPUs that measured it. Only
  shared_transpose 512x512 was measured on more than one GPU (the others'
  smallest configurations are the TITAN X's 65536 and 128x128 and the
  4070's atomic_hotspot without iters), so these are its 12 ordered
  pairs.
Statistics per model, as the seed's: n, MAPE = mean |pred - true| / true,
the median of pred / true, and the share of projections within 10, 25 and
50 % of the measured time (all in %).
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

MODELS = ["hroof-occ", "hroof", "occupancy", "irm", "quant", "sol", "naive"]
EXP3_KERNELS = {"matmul_tiled", "shared_transpose", "atomic_hotspot", "vector_add_divergent"}
# The seed's own figures (report, Tables 3 and 5; the data set's README).
SEED_T3 = "135 | 86.62 | 1.03 | 16.30 | 30.37 | 51.11"
SEED_T5 = "12 | 9.8 | – | – | – | –"


def comparisons(exe, model, opts, paths):
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        cmd = [exe, "validate", "--model", model, "--format", "json", "--details", "-o",
               tmp.name] + opts + paths
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(tmp.name) as f:
            return json.load(f)["comparisons"]


def stats(cmp):
    ok = [c for c in cmp if c["status"] == "ok"]
    if not ok:
        why = {c.get("why") or "not projected" for c in cmp}
        return "0 | not projected: %s | | | |" % "; ".join(sorted(why))
    ape = [abs(c["error_pct"]) for c in ok]
    ratio = [c["point_ns"] / c["measured_ns"] for c in ok]

    def within(p):
        return 100.0 * sum(1 for a in ape if a <= p) / len(ape)

    return "%d | %.2f | %.3f | %.2f | %.2f | %.2f" % (
        len(ok), statistics.mean(ape), statistics.median(ratio), within(10), within(25),
        within(50))


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, sdir, opts = sys.argv[1], sys.argv[2], sys.argv[3:]
    paths = sorted(glob.glob(os.path.join(sdir, "runs_*_final.csv")))
    head = ("| model | n | MAPE | median pred/true | within 10 % | within 25 % | within 50 % |\n"
            "|---|---:|---:|---:|---:|---:|---:|")
    t3, t5 = [], []
    for m in MODELS:
        c3 = comparisons(exe, m, opts + ["--target", "TITAN-V"], paths)
        t3.append("| %s | %s |" % (m, stats(c3)))
        c5 = comparisons(exe, m, opts, paths)
        c5 = [c for c in c5 if c["kernel"] == "shared_transpose" and
              c["tag"] == "N=0,rows=512,cols=512,iters=0"]
        t5.append("| %s | %s |" % (m, stats(c5)))
    print("Table 3: TITAN V as target from the RTX 2080 Ti, RTX 4070 and GTX TITAN X, "
          "every configuration\n")
    print(head)
    print("| seed 002's analytical model (report) | %s |" % SEED_T3)
    print("\n".join(t3))
    print("\nTable 5: the four held-out kernels' smallest configuration, every ordered pair "
          "that measured it (shared_transpose 512x512)\n")
    print(head)
    print("| seed 002's analytical model (report) | %s |" % SEED_T5)
    print("\n".join(t5))
    return 0


if __name__ == "__main__":
    sys.exit(main())
