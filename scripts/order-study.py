#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The order of two targets projected from one source:
the fit of the "order" part of src/data/intervals.json and its reliability
table, "Order of two targets" in docs/validation.md.

Usage:
  scripts/order-study.py [--fit] NAME=DEFAULT.json[:NAIVE.json]...

Each DEFAULT.json (NAIVE.json) is `gpuproj validate --model hroof-occ
(naive) --format json --details` on one corpus. For every kernel (name,
tag, grid, block) measured on a source S and projected onto two targets
A, B (A, B, S distinct, all three measured), the projected ratio is
r^ = p_A / p_B and the measured one r = m_A / m_B; the residual is
d = log(r / r^) = log(m_A / p_A) - log(m_B / p_B): what the two
projections' errors do not share.

GPUs are split per corpus as `gpuproj validate --holdout gpu` splits
targets (sorted by targets.yaml name, even positions calibration, odd
positions held out). sigma is fitted on the triples whose S, A and B are
all calibration GPUs, every corpus pooled, per group: (whether A and B
have the same binding resource, whether either point is short, < 50 us),
falling back to the pooled sigma under MIN_N triples, as
gpuproj_intervals_fit() fits the "order" groups (include/gpuproj/interval.h):
  sigma = sqrt(mean(d^2))     (root mean square about 0: a bias the
                               projection shares with no other target
                               counts as spread)
The probability that the projected order holds is
  P = Phi(|log r^| / sigma)
(Phi the standard normal distribution function). Reported: the
reliability on held-out triples (A and B both held-out GPUs, S any):
predicted probability bins against the observed share of triples whose
measured order is the projected one, per corpus, and the same on the
calibration triples (in sample); beside it naive (its own sigma, fitted
the same way) and the "independent" probability that ignores the shared
error, Phi(|log r^| / sqrt(s_A^2 + s_B^2)) with s the root mean square of
log(m / p) of single projections on the same calibration GPUs.
--fit prints the groups as the "order" object of intervals.json.
--table FILE: sigma from FILE's "order" groups (hroof-occ, naive: e.g.
src/data/intervals.json) instead of a fit, and the reliability over every
triple of each corpus (no split): out of sample for a corpus the table
was not fitted on.
"""
import json
import math
import sys

SHORT_NS = 50000.0
MIN_N = 30  # GPUPROJ_INTERVALS_MIN_GROUP
BINS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0001]


def phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def load(path):
    with open(path) as f:
        cmp = json.load(f)["comparisons"]
    by = {}
    for c in cmp:
        if c["status"] != "ok" or not (c["point_ns"] > 0) or not (c["measured_ns"] > 0):
            continue
        key = (c["kernel"], c.get("tag"), tuple(c["grid"]), tuple(c["block"]), c["source"])
        by.setdefault(key, []).append(c)
    return by


def triples(by):
    """(S, A, B, p_A, m_A, bind_A, p_B, m_B, bind_B) for every unordered target pair."""
    out = []
    for key, cs in by.items():
        cs = sorted(cs, key=lambda c: c["target"])
        for i in range(len(cs)):
            for j in range(i + 1, len(cs)):
                a, b = cs[i], cs[j]
                out.append((key[4], a["target"], b["target"], a["point_ns"], a["measured_ns"],
                            a["binding"], b["point_ns"], b["measured_ns"], b["binding"]))
    return out


def group(t):
    same = "same" if t[5] == t[8] else "different"
    cls = "short" if min(t[3], t[6]) < SHORT_NS else "long"
    return (same, cls)


def resid(t):
    return math.log(t[4] / t[3]) - math.log(t[7] / t[6])


def fit(corpora, idx):
    """sigma per group and pooled, from the calibration triples of every corpus pooled."""
    acc = {}
    for c in corpora:
        tr = c["tr"][idx]
        sel = [t for t in tr if t[0] in c["cal"] and t[1] in c["cal"] and t[2] in c["cal"]]
        per = {}
        for t in sel:
            d2 = resid(t) ** 2
            for g in (group(t), ("*", "*")):
                s = per.setdefault(g, [0.0, 0])
                s[0] += d2
                s[1] += 1
        for g, (s, n) in per.items():
            a = acc.setdefault(g, [0.0, 0])
            a[0] += s
            a[1] += n
    sig = {}
    for g, (s, n) in acc.items():
        if n >= MIN_N or g == ("*", "*"):
            sig[g] = (math.sqrt(s / n), n)
    return sig


def single_rms(corpora, idx):
    acc, k = 0.0, 0
    for c in corpora:
        s, n = 0.0, 0
        for key, cs in c["by"][idx].items():
            for x in cs:
                if x["source"] in c["cal"] and x["target"] in c["cal"]:
                    s += math.log(x["measured_ns"] / x["point_ns"]) ** 2
                    n += 1
        if n:
            acc += s / n
            k += 1
    return math.sqrt(acc / k)


def prob(t, sig):
    s = sig.get(group(t), sig[("*", "*")])[0]
    return phi(abs(math.log(t[3] / t[6])) / s)


def holds(t):
    # projected faster = smaller point; holds when the measured order agrees
    return (t[3] < t[6]) == (t[4] < t[7])


def reliability(tr, pf):
    rows = [[0, 0, 0.0] for _ in BINS[:-1]]
    for t in tr:
        if t[3] == t[6] or t[4] == t[7]:
            continue
        p = pf(t)
        for i in range(len(BINS) - 1):
            if BINS[i] <= p < BINS[i + 1]:
                rows[i][0] += 1
                rows[i][1] += holds(t)
                rows[i][2] += p
                break
    return rows


def summary(tr, pf):
    """n, mean predicted, observed share, Brier score."""
    n, sp, so, br = 0, 0.0, 0, 0.0
    for t in tr:
        if t[3] == t[6] or t[4] == t[7]:
            continue
        p, h = pf(t), holds(t)
        n += 1
        sp += p
        so += h
        br += (p - h) ** 2
    return n, sp / n if n else float("nan"), so / n if n else float("nan"), br / n if n else 0


def from_table(corpora, path):
    with open(path) as f:
        groups = json.load(f)["order"]["groups"]

    def sigmas(model):
        return {(g["bindings"], g["class"]): (g["sigma"], g["n"]) for g in groups
                if g["model"] == model}

    sd, sn = sigmas("hroof-occ"), sigmas("naive")
    print("| corpus | model | n | mean P | observed | Brier | " +
          " | ".join("%.2f–%.2f" % (BINS[i], min(BINS[i + 1], 1)) for i in range(len(BINS) - 1)) +
          " |")
    for c in corpora:
        for lab, idx, sg in (("default", 0, sd), ("naive", 1, sn)):
            if idx >= len(c["tr"]):
                continue
            tr = c["tr"][idx]
            n, mp, ob, br = summary(tr, lambda t: prob(t, sg))
            rel = reliability(tr, lambda t: prob(t, sg))
            cells = ["%d: %.2f / %.2f" % (r[0], r[2] / r[0], r[1] / r[0]) if r[0] else "–"
                     for r in rel]
            print("| %s | %s | %d | %.3f | %.3f | %.3f | %s |" % (c["name"], lab, n, mp, ob, br,
                                                                  " | ".join(cells)))
    return 0


def main():
    argv = sys.argv[1:]
    do_fit = "--fit" in argv
    argv = [a for a in argv if a != "--fit"]
    table = None
    if "--table" in argv:
        i = argv.index("--table")
        table = argv[i + 1]
        del argv[i:i + 2]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    corpora = []
    for arg in argv:
        name, _, paths = arg.partition("=")
        files = paths.split(":")
        c = {"name": name, "by": [load(p) for p in files]}
        c["tr"] = [triples(b) for b in c["by"]]
        gpus = sorted({x["target"] for cs in c["by"][0].values() for x in cs} |
                      {k[4] for k in c["by"][0]})
        c["cal"], c["held"] = set(gpus[0::2]), set(gpus[1::2])
        corpora.append(c)
    if table:
        return from_table(corpora, table)
    sig = fit(corpora, 0)
    if do_fit:
        groups = [{"bindings": g[0], "class": g[1], "n": n, "sigma": round(s, 4)}
                  for g, (s, n) in sorted(sig.items())]
        print(json.dumps(groups, indent=1))
        return 0
    print("sigma (default):", {"/".join(g): "%.3f (n %d)" % v for g, v in sorted(sig.items())})
    have_naive = all(len(c["by"]) > 1 for c in corpora)
    signaive = fit(corpora, 1) if have_naive else None
    if signaive:
        print("sigma (naive):",
              {"/".join(g): "%.3f (n %d)" % v for g, v in sorted(signaive.items())})
    s1 = single_rms(corpora, 0)
    print("single-projection rms log error (calibration): %.3f" % s1)

    def pind(t):
        return phi(abs(math.log(t[3] / t[6])) / (math.sqrt(2) * s1))

    allc = {"name": "all corpora pooled", "cal": set(), "held": set(), "tr": [[], []]}
    for c in corpora:
        for i in range(len(c["tr"])):
            allc["tr"][i] += [t for t in c["tr"][i]
                              if (t[1] in c["held"] and t[2] in c["held"]) or
                              (t[0] in c["cal"] and t[1] in c["cal"] and t[2] in c["cal"])]
        allc["cal"] |= c["cal"]
        allc["held"] |= c["held"]
    for c in corpora + [allc]:
        print("\n## %s: calibration %s; held out %s" % (c["name"], ", ".join(sorted(c["cal"])),
                                                        ", ".join(sorted(c["held"]))))
        for label, sel in (("held out (A, B held out)", lambda t: t[1] in c["held"] and
                            t[2] in c["held"]),
                           ("in sample (S, A, B calibration)", lambda t: t[0] in c["cal"] and
                            t[1] in c["cal"] and t[2] in c["cal"])):
            tr = [t for t in c["tr"][0] if sel(t)]
            rows = [("default", tr, lambda t: prob(t, sig)), ("default, independent", tr, pind)]
            if signaive:
                trn = [t for t in c["tr"][1] if sel(t)]
                rows.append(("naive", trn, lambda t: prob(t, signaive)))
            print("\n%s" % label)
            print("| model | n | mean P | observed | Brier | " +
                  " | ".join("%.2f–%.2f" % (BINS[i], min(BINS[i + 1], 1))
                             for i in range(len(BINS) - 1)) + " |")
            for lab, trx, pf in rows:
                n, mp, ob, br = summary(trx, pf)
                rel = reliability(trx, pf)
                cells = ["%d: %.2f / %.2f" % (r[0], r[2] / r[0], r[1] / r[0]) if r[0] else "–"
                         for r in rel]
                print("| %s | %d | %.3f | %.3f | %.3f | %s |" % (lab, n, mp, ob, br,
                                                                 " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
