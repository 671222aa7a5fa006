#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Intervals conditioned on what predicts the error, narrow enough to rank: a
study, the table "Conditioned intervals: a study" of docs/validation.md.

Usage:
  scripts/interval-study.py TARGETS_YAML NAME=DETAILS.json... [--kt NAME] [--coverage P]

Each DETAILS.json is `gpuproj validate --model hroof-occ --format json
--details` on one corpus. GPUs are split as in scripts/accuracy-split.py
(sorted by name, even positions choose, odd positions held out; the corpus
named with --kt is held out entirely). An interval is
[point · exp(q_lo), point · exp(q_hi)], q_lo and q_hi the (1 − P)/2 and
(1 + P)/2 quantiles (P = 0.8 by default) of log(measured / projected) over
the long launches (>= 50 us) of the CHOOSING pairs of every corpus pooled
that share the comparison's key; the first key of the conditioning that
was learned from at least MIN_N comparisons serves, else the pooled one.
Conditionings (each a list of keys, most specific first):
  pooled        one interval for all
  binding       the binding resource (what the built-in intervals use)
  binding+fam   (binding, source family, target family), then binding
  binding+basis (binding, basis of the target's binding ceiling: measured,
                derived or estimate in targets.yaml), then binding
  binding+len   (binding, decade of the source time), then binding
  all           (binding, families, basis, length), then each of the above
  binding+floor (binding, share of the projected point that the target's
                stream launch floor is: < 2 %, 2-10 %, 10-50 %, >= 50 %;
                targets.yaml launch_floor_us), then binding
                (docs/validation.md "Conditioned intervals: a study")
  binding+floor+fam  (binding, floor share, families), then binding+floor,
                then binding
--in-sample reports on the choosing pairs instead (the pairs fitted on).
--all-lengths takes short launches (< 50 us measured) too, where the
launch floor's share is large (the floor conditionings only differ there).
The clock regime and assumed inputs, the other conditions worth trying,
split nothing on these corpora: every regime is unknown (no importer of
them has a clock) and every kernel has its counters.
The first row is the built-in intervals of the details (nominal 85 %,
fitted on half of the shapes of gpuperfpredict and NeuSight over all their
GPUs: in-sample for those GPUs). Reported on the held-out pairs (both GPUs
held out): coverage (% of
measured times inside) and mean half-width ((hi − lo) / 2 / point, %).
"""
import json
import math
import re
import sys

LONG_NS = 50000.0
MIN_N = 200
FAMILY = [("sm_3", "Kepler"), ("sm_5", "Maxwell"), ("sm_6", "Pascal"), ("sm_70", "Volta"),
          ("sm_72", "Volta"), ("sm_75", "Turing"), ("sm_80", "GA100"), ("sm_86", "GA10x"),
          ("sm_87", "GA10x"), ("sm_89", "Ada"), ("sm_90", "Hopper"), ("sm_10", "Blackwell"),
          ("sm_12", "Blackwell-RTX"), ("gfx", "AMD")]
CEILING = {"dram": ["bw_gbs.dram", "stream_gbs.triad"], "l2": ["bw_gbs.l2"], "l1": ["bw_gbs.l1"],
           "shared": ["bw_gbs.shared"], "compute": ["max_gflops.fp32_fma", "clock_mhz"]}


def read_targets(path):
    fam, src, name = {}, {}, None
    read_targets.floor = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"  - name: (\S+)", line)
            if m:
                name = m.group(1)
                src[name] = {}
                continue
            if not name:
                continue
            m = re.match(r"    launch_floor_us: \{stream: ([0-9.]+)", line)
            if m:
                read_targets.floor[name] = float(m.group(1)) * 1000.0
            m = re.match(r"    arch: (\S+)", line)
            if m:
                fam[name] = next((f for p, f in FAMILY if m.group(1).startswith(p)), m.group(1))
            m = re.match(r'      ([a-z0-9_.]+): "(measured|derived|estimate|datasheet)', line)
            if m:
                src[name][m.group(1)] = m.group(2)
    return fam, src


def basis(src, gpu, binding):
    for key in CEILING.get(binding, []):
        if key in src.get(gpu, {}):
            return src[gpu][key]
        group = key.split(".")[0]
        if group in src.get(gpu, {}):
            return src[gpu][group]
    return "other"


def quantile(v, q):
    v = sorted(v)
    i = q * (len(v) - 1)
    lo = int(math.floor(i))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def main():
    argv = sys.argv[1:]
    kt, cov = None, 0.8
    long_ns = LONG_NS
    in_sample = "--in-sample" in argv
    if in_sample:
        argv.remove("--in-sample")
    if "--all-lengths" in argv:
        argv.remove("--all-lengths")
        long_ns = 0.0
    if "--kt" in argv:
        i = argv.index("--kt")
        kt = argv[i + 1]
        del argv[i:i + 2]
    if "--coverage" in argv:
        i = argv.index("--coverage")
        cov = float(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    fam, src = read_targets(argv[0])
    corpora = []
    for arg in argv[1:]:
        name, _, path = arg.partition("=")
        with open(path) as f:
            cmp = [c for c in json.load(f)["comparisons"]
                   if c["status"] == "ok" and c["measured_ns"] >= long_ns and c["point_ns"] > 0]
        gpus = sorted({c["target"] for c in cmp})
        choose, held = (set(), set(gpus)) if name == kt else (set(gpus[0::2]), set(gpus[1::2]))
        corpora.append((name, cmp, choose, choose if in_sample else held))

    def floor_bin(c):
        share = read_targets.floor.get(c["target"], 0.0) / c["point_ns"]
        return 0 if share < 0.02 else 1 if share < 0.1 else 2 if share < 0.5 else 3

    def feats(c):
        b = c["binding"]
        return {"b": b, "fam": (fam.get(c["source"], "?"), fam.get(c["target"], "?")),
                "floor": floor_bin(c),
                "basis": basis(src, c["target"], b),
                "len": int(math.floor(math.log10(c["source_ns"]))) if c["source_ns"] > 0 else 0}

    conds = {
        "pooled": [lambda f: ("all",)],
        "binding": [lambda f: (f["b"],), lambda f: ("all",)],
        "binding+fam": [lambda f: (f["b"],) + f["fam"], lambda f: (f["b"],), lambda f: ("all",)],
        "binding+basis": [lambda f: (f["b"], f["basis"]), lambda f: (f["b"],), lambda f: ("all",)],
        "binding+len": [lambda f: (f["b"], f["len"]), lambda f: (f["b"],), lambda f: ("all",)],
        "all": [lambda f: (f["b"],) + f["fam"] + (f["basis"], f["len"]),
                lambda f: (f["b"],) + f["fam"], lambda f: (f["b"], f["basis"]),
                lambda f: (f["b"], f["len"]), lambda f: (f["b"],), lambda f: ("all",)],
        "binding+floor": [lambda f: (f["b"], f["floor"]), lambda f: (f["b"],),
                          lambda f: ("all",)],
        "binding+floor+fam": [lambda f: (f["b"], f["floor"]) + f["fam"],
                              lambda f: (f["b"], f["floor"]), lambda f: (f["b"],),
                              lambda f: ("all",)],
    }
    print("| conditioning | " + " | ".join("%s cover / half-width" % n for n, _, _, _ in corpora) + " |")
    print("|---|" + "---:|" * len(corpora))
    cells = []
    for name, cmp, choose, held in corpora:
        sel = [c for c in cmp if c["source"] in held and c["target"] in held
               and c["lo_ns"] is not None and c["hi_ns"] is not None]
        n = len(sel)
        inside = sum(c["lo_ns"] <= c["measured_ns"] <= c["hi_ns"] for c in sel)
        hw = sum((c["hi_ns"] - c["lo_ns"]) / 2 / c["point_ns"] for c in sel)
        cells.append("%.1f / %.1f" % (100.0 * inside / n, 100.0 * hw / n) if n else "–")
    print("| built-in intervals (85 %%, fitted on the shape half) | %s |" % " | ".join(cells))
    for cname, keyfns in conds.items():
        logs = {}
        for name, cmp, choose, held in corpora:
            for c in cmp:
                if c["source"] in choose and c["target"] in choose:
                    f = feats(c)
                    r = math.log(c["measured_ns"] / c["point_ns"])
                    for i, kf in enumerate(keyfns):
                        logs.setdefault((i, kf(f)), []).append(r)
        qs = {k: (quantile(v, (1 - cov) / 2), quantile(v, (1 + cov) / 2))
              for k, v in logs.items() if len(v) >= MIN_N}
        cells = []
        for name, cmp, choose, held in corpora:
            n = inside = 0
            hw = 0.0
            for c in cmp:
                if not (c["source"] in held and c["target"] in held):
                    continue
                f = feats(c)
                q = next((qs[(i, kf(f))] for i, kf in enumerate(keyfns) if (i, kf(f)) in qs), None)
                if q is None:
                    continue
                lo, hi = math.exp(q[0]), math.exp(q[1])
                r = c["measured_ns"] / c["point_ns"]
                n += 1
                inside += lo <= r <= hi
                hw += (hi - lo) / 2
            cells.append("%.1f / %.1f" % (100.0 * inside / n, 100.0 * hw / n) if n else "–")
        print("| %s | %s |" % (cname, " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
