#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Would an efficiency transfer learned across GPUs help?
A study, not a model option: the table "Efficiency transfer learned across
GPUs: a study" of docs/validation.md.

Usage:
  scripts/transfer-study.py TARGETS_YAML NAME=DETAILS.json... [--kt NAME] [--loco]
                            [--families-only] [--kernels-split]

Each DETAILS.json is `gpuproj validate --model hroof-occ --format json
--details` on one corpus (NAME labels it). The corpus named with --kt is
held out entirely (it chose nothing); the others are split as
`validate --holdout gpu` splits targets (sorted by name: even positions
choose, odd positions are held out), as in scripts/accuracy-split.py.

The correction: the ratio model keeps a kernel's share of the roof from
source to target; the study learns by how much that share moves, as the
median of log(measured / projected) over the long launches (>= 50 us) of
the CHOOSING pairs of every corpus pooled, per key, and multiplies each
held-out projection by exp(that median). Keys, tried in order until one
was learned from at least MIN_N comparisons:
  1. (source architecture family, target family, binding resource)
  2. (source family, target family)
  3. (binding resource)
  4. none: no correction.
--kernels-split also splits each corpus's kernel names (sorted; even
positions fit, odd positions are evaluated), so that the figures are on
kernels and GPUs the fit never saw. --families-only drops level 3 (a pair of families never seen gets none).
With --loco (leave one corpus out) each corpus is corrected with what was
learned from the other corpora only, so its kernels are unseen as well as
its held-out GPUs. It reports, per corpus, MAPE and median APE of the uncorrected and the
corrected projections on the held-out pairs (both GPUs held out) and on
the pairs whose target is held out, and which key level served them.
"""
import json
import math
import re
import statistics
import sys

LONG_NS = 50000.0
MIN_N = 200
FAMILY = [("sm_3", "Kepler"), ("sm_5", "Maxwell"), ("sm_6", "Pascal"), ("sm_70", "Volta"),
          ("sm_72", "Volta"), ("sm_75", "Turing"), ("sm_80", "GA100"), ("sm_86", "GA10x"),
          ("sm_87", "GA10x"), ("sm_89", "Ada"), ("sm_90", "Hopper"), ("sm_10", "Blackwell"),
          ("sm_12", "Blackwell-RTX"), ("gfx", "AMD")]


def families(path):
    fam, name = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"  - name: (\S+)", line)
            if m:
                name = m.group(1)
                continue
            m = re.match(r"    arch: (\S+)", line)
            if m and name:
                arch = m.group(1)
                fam[name] = next((f for p, f in FAMILY if arch.startswith(p)), arch)
                name = None
    return fam


def load(path):
    with open(path) as f:
        d = json.load(f)
    return [c for c in d["comparisons"]
            if c["status"] == "ok" and c["measured_ns"] >= LONG_NS and c["point_ns"] > 0]


def split(cmp, all_held):
    gpus = sorted({c["target"] for c in cmp})
    if all_held:
        return set(), set(gpus)
    return set(gpus[0::2]), set(gpus[1::2])


def keys(c, fam):
    fs, ft = fam.get(c["source"], "?"), fam.get(c["target"], "?")
    return [(fs, ft, c["binding"]), (fs, ft), (c["binding"],)]


def ape(point, measured):
    return 100.0 * abs(point - measured) / measured


def stats(v):
    return "%.1f / %.1f" % (sum(v) / len(v), statistics.median(v)) if v else "–"


def main():
    argv = sys.argv[1:]
    kt = None
    loco = "--loco" in argv
    if loco:
        argv.remove("--loco")
    ksplit = "--kernels-split" in argv
    if ksplit:
        argv.remove("--kernels-split")
    fam_only = "--families-only" in argv
    if fam_only:
        argv.remove("--families-only")
    if "--kt" in argv:
        i = argv.index("--kt")
        kt = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    fam = families(argv[0])
    corpora = []
    for arg in argv[1:]:
        name, _, path = arg.partition("=")
        cmp = load(path)
        choose, held = split(cmp, name == kt)
        names = sorted({c["kernel"] for c in cmp})
        for c in cmp:
            c["fit_kernel"] = not ksplit or names.index(c["kernel"]) % 2 == 0
        corpora.append((name, cmp, choose, held))
    tables = {}
    for name, _, _, _ in corpora:
        key = name if loco else None
        if key in tables:
            continue
        logs = {}
        for other, cmp, choose, held in corpora:
            if loco and other == name:
                continue
            for c in cmp:
                if c["source"] in choose and c["target"] in choose and c["fit_kernel"]:
                    r = math.log(c["measured_ns"] / c["point_ns"])
                    for k in keys(c, fam):
                        logs.setdefault(k, []).append(r)
        tables[key] = {k: statistics.median(v) for k, v in logs.items() if len(v) >= MIN_N}
        print("learned%s (>= %d comparisons): %d keys" % (
            " without " + name if loco else "", MIN_N, len(tables[key])))
        for k in sorted(tables[key], key=str):
            print("  %-40s x%.3f (n %d)" % (" / ".join(k), math.exp(tables[key][k]), len(logs[k])))
    print()
    print("| corpus | pairs | n | uncorrected MAPE / median | corrected MAPE / median | served by key level 1 / 2 / 3 / none |")
    print("|---|---|---:|---:|---:|---|")
    for name, cmp, choose, held in corpora:
        table = tables[name if loco else None]
        for label, sel in (("held-out pairs", lambda c: c["source"] in held and c["target"] in held),
                           ("target held out", lambda c: c["target"] in held)):
            raw, cor, lvl = [], [], [0, 0, 0, 0]
            for c in cmp:
                if not sel(c) or (ksplit and c["fit_kernel"]):
                    continue
                f, used = 1.0, 3
                for i, k in enumerate(keys(c, fam)):
                    if k in table and not (fam_only and i == 2):
                        f, used = math.exp(table[k]), i
                        break
                lvl[used] += 1
                raw.append(ape(c["point_ns"], c["measured_ns"]))
                cor.append(ape(c["point_ns"] * f, c["measured_ns"]))
            print("| %s | %s | %d | %s | %s | %s |" % (name, label, len(raw), stats(raw), stats(cor),
                                                       " / ".join(str(x) for x in lvl)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
