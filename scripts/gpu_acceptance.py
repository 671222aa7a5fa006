#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The checks of scripts/gpu-acceptance.sh (docs/internals/injection.md §3), apart
from the shell that runs the programs, so that the host tests
(tests/integration/test-gpu-acceptance.py) can hold them to fixtures.

Usage:
  gpu_acceptance.py ncu-metrics PROFILE
      the NVPW names behind the profile's logical metrics (its attributes
      metrics.<CHIP>.<metric>, "a+b * scale"), comma-separated, for
      `ncu --metrics`; plus both L2 forms (lts__t_bytes.sum,
      lts__t_sectors_srcunit_tex.sum), which the copy kernel is held to
  gpu_acceptance.py ncu-args PROFILE
      ncu's options that replay like libproj.so did, one per line:
      --cache-control as the profile's metrics.<CHIP>.cache_control says,
      --clock-control none, --print-units base, --print-kernel-base mangled
  gpu_acceptance.py report WORK [SUMMARY]
      every check over the files the shell left in WORK (vars.txt,
      steps.txt, the profiles, program outputs, ncu CSVs); PASS/FAIL/NOTE
      lines on stdout and in SUMMARY; exit 1 on any FAIL
"""
import csv
import json
import os
import re
import sys

# The second form is what libproj.so collects (inject/metrics-nvpw.c says why).
L2_FORMS = ("lts__t_bytes.sum", "lts__t_sectors_srcunit_tex.sum")


# ---- the profile's metric expressions ----

def parse_weighted(expr):
    """'a+-0.5*b * 4096 (assumed: …)' -> ([(1, a), (-0.5, b)], 4096.0).

    Terms are joined by a bare '+', each optionally weighted "f*name"
    (inject/metrics-nvpw.c); inject/cupti/cupti.c appends " * scale" and, for
    tensor FLOP from instruction counts, " (assumed: …)". Spaces around a
    term are not part of its name.
    """
    expr = re.sub(r" \(assumed: [^)]*\)$", "", expr)
    terms, scale = expr, 1.0
    if " * " in expr:
        terms, s = expr.rsplit(" * ", 1)
        scale = float(s)
    out = []
    for t in terms.split("+"):
        t, f = t.strip(), 1.0
        if "*" in t:
            fs, t = t.split("*", 1)
            f, t = float(fs), t.strip()
        if t:
            out.append((f, t))
    return out, scale


def parse_expr(expr):
    """'a+b+c * 0.03125' -> ([a, b, c], 0.03125): the names of parse_weighted()."""
    terms, scale = parse_weighted(expr)
    return [t for _, t in terms], scale


def profile_exprs(prof):
    """{logical metric: expression} of the profile's chip, without "unavailable"."""
    attrs = (prof or {}).get("attributes", {})
    chip = (prof or {}).get("device", {}).get("chip", "")
    out = {}
    for k, v in attrs.items():
        m = re.match(r"metrics\.%s\.(.+)$" % re.escape(chip), k)
        if (m and m.group(1) not in ("api", "passes", "cache_control", "tensor") and
                not v.startswith("unavailable")):
            out[m.group(1)] = v
    return out


def ncu_metric_names(prof):
    names = set(L2_FORMS)
    for expr in profile_exprs(prof).values():
        names.update(parse_expr(expr)[0])
    return sorted(names)


def cache_control(prof):
    """'all' or 'none': how libproj.so's replay treated the L2 (profile attribute)."""
    attrs = (prof or {}).get("attributes", {})
    chip = (prof or {}).get("device", {}).get("chip", "")
    v = attrs.get("metrics.%s.cache_control" % chip, "")
    return "all" if v.startswith("all") else "none"


def ncu_args(prof):
    return ["--cache-control", cache_control(prof), "--clock-control", "none",
            "--print-units", "base", "--print-kernel-base", "mangled"]


# ---- ncu's CSV (--csv, page details: one row per launch and metric) ----

def dims(text):
    """'(1024, 1, 1)' -> (1024, 1, 1); None when not three integers."""
    nums = re.findall(r"\d+", text or "")
    return tuple(int(x) for x in nums) if len(nums) == 3 else None


def ncu_launches(text):
    """[(id, mangled name, grid, block, {metric: value})] in ncu's launch order."""
    rows = list(csv.reader(text.splitlines()))
    head = next((i for i, r in enumerate(rows) if "Metric Name" in r and "Kernel Name" in r), None)
    if head is None:
        return []
    h = rows[head]
    col = {name: h.index(name) for name in h}
    ki, mi, vi = col["Kernel Name"], col["Metric Name"], col["Metric Value"]
    launches = {}
    for r in rows[head + 1:]:
        if len(r) <= max(ki, mi, vi):
            continue
        try:
            v = float(r[vi].replace(",", ""))
        except ValueError:
            continue
        lid = r[col["ID"]] if "ID" in col else r[ki]
        if lid not in launches:
            launches[lid] = (lid, r[ki],
                             dims(r[col["Grid Size"]]) if "Grid Size" in col else None,
                             dims(r[col["Block Size"]]) if "Block Size" in col else None, {})
        launches[lid][4][r[mi]] = v
    order = sorted(launches, key=lambda x: (0, int(x)) if x.isdigit() else (1, x))
    return [launches[k] for k in order]


# ---- the report ----

class Report:
    def __init__(self, summary=None):
        self.passed = self.failed = 0
        self.out = open(summary, "w") if summary else None

    def line(self, text):
        print(text)
        if self.out:
            self.out.write(text + "\n")

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        self.line("%s  %s%s" % ("PASS" if ok else "FAIL", what, ("  [" + detail + "]") if detail else ""))

    def note(self, what):
        self.line("NOTE  " + what)

    def close(self):
        self.line("gpu-acceptance: %d PASS, %d FAIL" % (self.passed, self.failed))
        if self.out:
            self.out.close()


def whole_run(rep, label, prof, process_s=None):
    """Step 9: the profile's whole-run timeline replayed onto its own GPU.

    The identity projection (JSON projections[].whole_run of the source
    target) against the traced wall time: within its stated tolerance is
    the check, as it tells how far the replay reproduces what was measured.
    The share of the run the record explains, the carried time and the
    traced part of the process's wall time are figures (NOTE), and so are
    the whole-run speedups onto the three fastest other targets next to
    their kernel-only speedups.
    """
    tl = (prof or {}).get("timeline")
    rep.check(tl is not None, "[GPU?] %s: the profile has a whole-run timeline" % label,
              "" if tl else "no 'timeline' member")
    if not tl:
        return
    src = prof.get("source_target")
    runs = [p for p in prof.get("projections", []) if p.get("whole_run")]
    own = [p for p in runs if p.get("target") == src]
    if not own:
        rep.check(False, "%s: the whole run projected onto its own GPU" % label, "source %s" % src)
        return
    w = own[0]["whole_run"]
    tol = w.get("identity_tolerance", 0.02)
    err = w.get("identity_error", float("nan"))
    rep.check(abs(err) <= tol,
              "[GPU?] %s: the replay onto %s itself reproduces the measured wall time of the "
              "recorded part within %.0f%% (identity check)" % (label, src, 100 * tol),
              "identity error %+.2f%%; projected whole run %.4g ms, measured %.4g ms" % (
                  100 * err, w["wall_ns"] / 1e6, w["source_ns"] / 1e6))
    share = "%s: the record explains %.1f%% of the traced wall time (%.4g ms); carried " \
            "unchanged %.4g ms (epochs not replayed: profiled %d, incomplete %d, overflow %d; " \
            "time outside epochs); error bound %.2f%%" % (
                label, 100 * w.get("explained", 0), w["source_ns"] / 1e6,
                w.get("carried_ns", 0) / 1e6,
                tl.get("unexplained", {}).get("profiled", {}).get("epochs", 0),
                tl.get("unexplained", {}).get("incomplete", {}).get("epochs", 0),
                tl.get("unexplained", {}).get("overflow", {}).get("epochs", 0),
                100 * w.get("bound", 0))
    if process_s and process_s > 0:  # NaN: not measured
        share += "; the traced wall is %.1f%% of the process's %.2f s (start-up, CUDA " \
                 "initialisation and teardown are outside it)" % (
                     100 * w["source_ns"] / 1e9 / process_s, process_s)
    rep.note(share)
    others = sorted((p for p in runs if p.get("target") != src),
                    key=lambda p: p["whole_run"]["wall_ns"])[:3]
    for p in others:
        ww = p["whole_run"]
        rep.note("%s onto %s: whole run %.4g ms (%.2fx; kernel %.4g, copy %.4g, host %.4g ms) "
                 "against a kernel-only speedup of %s" % (
                     label, p["target"], ww["wall_ns"] / 1e6, ww.get("speedup") or 0,
                     ww.get("kernel_ns", 0) / 1e6, ww.get("copy_ns", 0) / 1e6,
                     ww.get("host_ns", 0) / 1e6,
                     "%.2fx" % p["speedup"] if p.get("speedup") else "n/a"))


def metric(k, name):
    v = k.get("metrics", {}).get(name)
    if isinstance(v, dict):
        v = v.get("value")
    return v


def compare_ncu(rep, label, text, prof):
    """Every logical metric of each kernel signature against ncu's first launch of it.

    Kernels are matched by exact mangled name, grid and block (ncu run with
    --print-kernel-base mangled): two template instances, or two grid
    sizes of one kernel, are never compared with each other.
    """
    launches = ncu_launches(text)
    if not launches or not prof:
        rep.note("ncu %s: no rows to compare" % label)
        return
    exprs = profile_exprs(prof)
    first = {}
    for lid, name, grid, block, vals in launches:
        first.setdefault((name, grid, block), vals)
    rep.line("ncu %s: kernel, logical metric, gpuproj, ncu, difference" % label)
    for (name, grid, block), vals in first.items():
        ks = [k for k in prof.get("kernels", []) if k["name"] == name and
              (grid is None or tuple(k.get("grid", ())) == grid) and
              (block is None or tuple(k.get("block", ())) == block)]
        if len(ks) != 1:
            if not any(k["name"] == name for k in prof.get("kernels", [])):
                continue  # a kernel ncu saw that the profile never had (e.g. other grids)
            rep.note("ncu %s: %s %s/%s matches %d kernel records" % (label, name[:40], grid, block,
                                                                   len(ks)))
            continue
        for logical, expr in sorted(exprs.items()):
            weighted, scale = parse_weighted(expr)
            terms = [t for _, t in weighted]
            if not all(t in vals for t in terms):
                missing = [t for t in terms if t not in vals]
                rep.note("ncu %s %s %s: ncu gave no %s" % (label, name[:40], logical,
                                                          ", ".join(missing)))
                continue
            theirs = sum(f * vals[t] for f, t in weighted) * scale
            got = metric(ks[0], logical)
            if got is None:
                continue
            bytes_like = logical.startswith(("bytes", "sectors", "shared.bytes"))
            tol = 0.05 if bytes_like else 0.01
            ok = abs(got - theirs) <= tol * max(abs(theirs), 1)
            rep.line("      %-34s %-22s %14.6g %14.6g %+8.2f%%" % (
                name[:34], logical, got, theirs, 100 * (got - theirs) / theirs if theirs else 0.0))
            rep.check(ok, "ncu %s %s %s within %d%%" % (label, name[:40], logical, int(tol * 100)))


def l2_forms(rep, text, expect_bytes):
    """The copy kernel's L2 bytes in both forms against 8 N (micro.cu's expectation)."""
    copies = [l for l in ncu_launches(text) if "copy" in l[1]]
    if not copies or not expect_bytes:
        rep.note("L2 forms: no copy kernel in ncu's rows")
        return
    vals = copies[0][4]
    tex = vals.get(L2_FORMS[1])
    all_ = vals.get(L2_FORMS[0])
    if tex is None or all_ is None:
        rep.note("L2 forms: ncu gave %s" % ", ".join(n for n in L2_FORMS if n in vals))
        return
    tex *= 32
    rep.note("[GPU?] L2 bytes of the copy kernel (8 N = %.6g): lts__t_sectors_srcunit_tex x 32 "
             "%.6g (%.3fx), lts__t_bytes %.6g (%.3fx)" % (expect_bytes, tex, tex / expect_bytes,
                                                         all_, all_ / expect_bytes))
    rep.check(abs(tex / expect_bytes - 1) <= 0.05,
              "L2: the SMs' sectors (what libproj.so collects) are the copy's 8 N bytes within 5%",
              "%.3fx" % (tex / expect_bytes))


def run_report(work, summary=None):
    rep = Report(summary)

    def read(name, default=""):
        try:
            with open(os.path.join(work, name), errors="replace") as f:
                return f.read()
        except OSError:
            return default

    skipped = {l.split()[0] for l in read("steps.txt").splitlines()
               if len(l.split()) >= 3 and l.split()[1] == "125" and float(l.split()[2]) == 0}

    def rc(name):
        """The step's exit status; -1 when it did not run (the budget, or never started)."""
        if name in skipped:
            return -1
        try:
            return int(read(name + ".rc", "-1").strip())
        except ValueError:
            return -1

    def load(name):
        try:
            with open(os.path.join(work, name)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def kernels_named(p, sub):
        return [k for k in (p or {}).get("kernels", []) if sub in k["name"]]

    var = dict(l.split("=", 1) for l in read("vars.txt").splitlines() if "=" in l)
    fnum = lambda k: float(var.get(k, "nan"))

    # ---- steps: time-outs and what the budget left out ----
    for l in read("steps.txt").splitlines():
        parts = l.split()
        if len(parts) < 4:
            continue
        name, code, secs, limit = parts[0], int(parts[1]), float(parts[2]), parts[3]
        if code == 125 and secs == 0:
            rep.note("step %s: skipped, the 9-minute budget was spent" % name)
        elif code in (124, 137) and name.startswith("hang-"):
            pass  # reported with the hang checks
        elif code in (124, 137):
            rep.check(False, "step %s finished within its %s s" % (name, limit), "timed out")
    # ---- 0: environment ----
    env = dict(l.split("=", 1) for l in read("env.txt").splitlines() if "=" in l)
    gpu = [s.strip() for s in env.get("gpu", "").split(",")]
    gpu_name = gpu[0] if gpu else "?"
    rep.note("GPU %s, driver %s, CC %s, MIG %s" % tuple((gpu + ["?"] * 4)[:4]))
    micro = load("micro.json")
    cupti = (micro or {}).get("attributes", {}).get("cupti", "?")
    rep.note("CUPTI: %s" % cupti)
    admin_only = env.get("profiling_admin_only", "")
    rep.check(admin_only in ("0", "") or env.get("uid") == "0",
              "environment: GPU performance counters readable by this user",
              "RmProfilingAdminOnly=%s, uid %s" % (admin_only or "?", env.get("uid")))
    rep.check(len(gpu) < 4 or gpu[3] in ("Disabled", "[N/A]", "N/A"),
              "environment: MIG off (CUPTI cannot profile MIG instances)",
              "mig.mode.current %s" % (gpu[3] if len(gpu) > 3 else "?"))
    rep.note("environment: DCGM %s, MPS %s, ncu %s" % (env.get("dcgm"), env.get("mps"),
                                                      env.get("ncu") or "absent"))

    # ---- 1: device naming ----
    needed = read("micro.needed")
    rep.check("libcuda" not in needed, "the test programs are nvcc-default builds (no libcuda in "
              "DT_NEEDED)", ", ".join(re.findall(r"\[(.*?)\]", needed)))
    for label, name in (("CUDA_INJECTION64_PATH", "micro.json"), ("LD_PRELOAD", "micro-preload.json")):
        p = load(name)
        dev = (p or {}).get("device", {})
        rep.check(p is not None and dev.get("name") == gpu_name and dev.get("cc") and
                  dev.get("sms", 0) > 0,
                  "device named under %s (driver functions from libcuda.so.1, not the global "
                  "scope)" % label, "name %r, CC %s, %s SMs; nvidia-smi %r" % (
                      dev.get("name"), dev.get("cc"), dev.get("sms"), gpu_name))

    # ---- 2: micro-kernels against their analytic values ----
    def expectations(fname, prof, label):
        for line in read(fname).splitlines():
            parts = line.split()
            if len(parts) != 5 or parts[0] != "expect":
                continue
            _, sub, m, value, tol = parts
            value, tol = float(value), float(tol)
            ks = kernels_named(prof, sub)
            what = "%s %s %s" % (label, sub, m)
            if len(ks) != 1:
                rep.check(False, what, "kernel found %d times" % len(ks))
                continue
            got = metric(ks[0], m)
            if got is None:
                rep.check(False, what, "not collected")
                continue
            if tol < 0:
                rep.note("%s: %.6g, analytic %.6g (ratio %.3f)" % (
                    what, got, value, got / value if value else float("nan")))
            elif value == 0:
                rep.check(abs(got) <= tol, what, "got %.6g, want 0 (+-%g)" % (got, tol))
            else:
                rep.check(abs(got - value) <= tol * abs(value), what,
                          "got %.6g, want %.6g (+-%.1f%%, off %+.3f%%)" % (
                              got, value, 100 * tol, 100 * (got - value) / value))

    rep.check(rc("micro") == 0 and micro is not None, "micro-kernels ran under libproj.so",
              "exit %d" % rc("micro"))
    if micro:
        attrs = micro.get("attributes", {})
        chip = micro.get("device", {}).get("chip", "")
        rep.note("metrics: %s; replay cache control: %s" % (
            attrs.get("metrics"), attrs.get("metrics.%s.cache_control" % chip, "?")))
        expectations("expect.txt", micro, "micro")
        for k in micro.get("kernels", []):
            d = k.get("duration_ns", {})
            rep.check(k["launches"] == 3 and k["profiled_launches"] == 1 and d.get("n") == 2,
                      "%s: 3 launches, 1 profiled, 2 timed" % k["name"],
                      "launches %d, profiled %d, timed %s" % (k["launches"], k["profiled_launches"],
                                                             d.get("n")))
            g = k.get("extra_metrics", {}).get("gpu__time_duration.sum", {}).get("value")
            if g and d.get("mean"):
                rep.note("%s: timed mean %.0f ns, profiler gpu__time_duration %.0f ns (%+.0f%%)" % (
                    k["name"], d["mean"], g, 100 * (g - d["mean"]) / d["mean"]))
    dram = load("dram.json")
    rep.check(rc("dram") == 0 and dram is not None, "DRAM working sets ran under libproj.so",
              "exit %d" % rc("dram"))
    if dram:
        expectations("expect-dram.txt", dram, "dram")

    # ---- 3: the [GPU?] assumptions, one by one ----
    if micro:
        ks = micro.get("kernels", [])
        attrs = micro.get("attributes", {})
        rep.note("[GPU?] driver launch callbacks under __cudaLaunchKernel: %s" %
                 attrs.get("nested_driver_callbacks"))
        rep.check(all(k["name"].startswith("_Z") for k in ks),
                  "[GPU?] kernel names at __cudaLaunchKernel and in records are the mangled names")
        rep.check(all(k["profiled_launches"] == 1 for k in ks),
                  "[GPU?] range profiler Start/Stop/Decode inside launch callbacks")
        rep.check(all(k.get("duration_ns", {}).get("n") == 2 for k in ks),
                  "[GPU?] kernel tracing and the range profiler together")
        rep.check(all(k["grid"][0] == 1024 and k["block"][0] == 256 for k in ks),
                  "[GPU?] kernel record layout of %s (grid and block read right)" % cupti,
                  ", ".join("%s %s/%s" % (k["name"][:24], k["grid"], k["block"]) for k in ks[:2]))
        rep.note("[GPU?] activity records of replayed launches ignored: %s; profiled launches "
                 "without a record: %s" % (attrs.get("replay_records_ignored", "0"),
                                           attrs.get("profiled_launches_without_record", "0")))
        rep.note("[GPU?] host evaluation of a saved counter-data image: not exercised (no image "
                 "is saved)")
        busy = "HARDWARE_BUSY" in read("micro.err")
        if env.get("dcgm") == "running":
            rep.check(busy or attrs.get("metrics", "").startswith("first"),
                      "[GPU?] DCGM running: either counters busy said in one line, or metrics "
                      "collected", "busy line" if busy else attrs.get("metrics", ""))
        else:
            rep.note("[GPU?] CUPTI_ERROR_HARDWARE_BUSY: not exercised (no DCGM here); which call "
                     "reports it stays open")
        if env.get("mps") == "running":
            rep.check("CUDA MPS is active" in read("micro.err"),
                      "[GPU?] MPS detected: timing only, one line")
        else:
            rep.note("[GPU?] MPS detection: not exercised (no MPS here)")
        if "API 130000" in cupti:
            rep.check("13.0 GA" in read("micro.err"), "[GPU?] CUPTI 13.0 GA recognised, one line")
    misc = load("misc.json")
    bare, out = read("misc-bare.out"), read("misc.out")
    rep.check(rc("misc") == 0 and rc("misc-bare") == 0 and misc is not None,
              "launch paths program ran with and without libproj.so",
              "exit %d / %d" % (rc("misc"), rc("misc-bare")))
    rep.check(sorted(out.splitlines()) == sorted(bare.splitlines()),
              "[GPU?] a kernel calling printf: its output is not repeated under kernel replay",
              "%d lines bare, %d under libproj.so" % (len(bare.splitlines()), len(out.splitlines())))
    if misc:
        cl = [k for k in misc["kernels"] if "clustered" in k["name"]]
        if cl:
            rep.check(len(cl) == 1 and cl[0].get("tag") == "cluster=2x1x1" and
                      cl[0]["profiled_launches"] == 1,
                      "[GPU?] cluster launch: the record's cluster dimensions make the signature",
                      "tag %s" % cl[0].get("tag"))
        else:
            rep.note("cluster launch: not run (CC < 9.0)")
        gk = kernels_named(misc, "graph_node")
        rep.check(sum(k["launches"] for k in gk) == 4 and all(k["profiled_launches"] == 0 for k in gk),
                  "[GPU?] graph captured and launched twice: 4 kernel launches timed, none profiled",
                  "launches %s" % [k["launches"] for k in gk])
        # Pageable H2D copies of 64 MiB (misc.cu): how libproj.so recorded them.
        nodes = [n for pat in (misc.get("timeline") or {}).get("patterns", [])
                 for n in pat.get("nodes", []) if n.get("op") == "copy" and
                 n.get("kind") == "h2d" and n.get("pinned") is False and
                 n.get("bytes") == 64 << 20]
        rep.check(len(nodes) > 0,
                  "[GPU?] pageable host-to-device cudaMemcpy: recorded in the timeline as a "
                  "pageable h2d copy", "%d such nodes" % len(nodes))
        if nodes:
            rep.note("pageable h2d copies of 64 MiB: %d of %d node(s) recorded blocking (the "
                     "copy ended by its call's return), the rest returned while staged "
                     "(inject/timeline-rec.c)" % (sum(1 for n in nodes if n.get("blocking")),
                                                   len(nodes)))
        # Excluded from profiling (GPUPROJ_KERNEL_EXCLUDE): a profiled launch returns only
        # after its replay passes, so it would never still be running at exit.
        lr = kernels_named(misc, "long_running")
        rep.check(len(lr) == 1 and lr[0]["launches"] == 1 and lr[0]["profiled_launches"] == 0 and
                  lr[0].get("duration_ns", {}).get("n") == 1,
                  "[GPU?] a kernel still running when main() returns is counted and timed "
                  "(contexts synchronised at exit)",
                  "launches %s, profiled %s, timed %s" % (
                      [k["launches"] for k in lr], [k["profiled_launches"] for k in lr],
                      [k.get("duration_ns", {}).get("n") for k in lr]))

    # ---- 4: hangs ----
    for c in ("later", "exclude", "coop", "waitvalue", "threads", "peer"):
        brc = rc("hang-%s-bare" % c)
        if brc == -1:
            continue  # not run (budget)
        if brc == 77:
            rep.note("hang %s: skipped (%s)" % (c, read("hang-%s-bare.out" % c).strip()))
            continue
        if brc != 0:
            rep.check(False, "hang %s runs without the injection" % c, "exit %d" % brc)
            continue
        r = rc("hang-" + c)
        rep.check(r == 0 and ("ok " + c) in read("hang-%s.out" % c),
                  "hang %s: finishes under libproj.so (time-out %s s)" % (c, var.get("hang_timeout")),
                  "exit %d%s" % (r, " (timed out)" if r in (124, 137) else ""))

    # ---- 5: heat2d ----
    plain_rc = rc("plain")
    plain = read("plain.out")
    if plain_rc != -1:
        rep.check(plain_rc == 0 and "checksum" in plain, "heat2d runs without the injection",
                  "exit %d" % plain_rc)
        for label, name in (("CUDA_INJECTION64_PATH", "heat2d"), ("LD_PRELOAD", "preload"),
                            ("gpuproj run", "run")):
            r = rc(name)
            rep.check(r == plain_rc and read(name + ".out") == plain,
                      "heat2d under %s: same output and exit status" % label, "exit %d" % r)
        rep.note("heat2d wall time: %.2f s plain, %.2f s under libproj.so" % (
            fnum("heat2d_plain_s"), fnum("heat2d_inject_s")))
        steps, checks = 400, 400 // 50
        want = {"init": 2, "jacobi": steps, "residual_partial": checks + 2,
                "residual_final": checks + 1}
        for name in ("heat2d.json", "preload.json", "run.json"):
            p = load(name)
            rep.check(p is not None, "%s written" % name)
            if p is None:
                continue
            for sub, n in want.items():
                ks = kernels_named(p, sub)
                launches = sum(k["launches"] for k in ks)
                profiled = [k["profiled_launches"] for k in ks]
                rep.check(launches == n and all(x == 1 for x in profiled),
                          "%s: %s launches %d (want %d), profiled %s per signature" % (
                              name, sub, launches, n, profiled))
            # [GPU?] of docs/libproj.md "Peak device memory": every cudaMalloc counted
            # once (its nested driver call skipped), none freed before the last:
            # 2 x 2048^2 x 4 B + 512 x 4 B + 8 B = 33556488 B.
            peak = (p.get("run") or {}).get("peak_device_memory_bytes")
            rep.check(peak == 33556488, "%s: peak device memory %s B (want 33556488)" % (
                name, peak))
            src = p.get("source_target")
            basis = (p.get("source_basis") or "")
            if src and p.get("projections"):
                rep.check(True, "%s: projections (source %s%s)" % (
                    name, src, ", basis " + basis if basis else ""))
            else:
                rep.check(False, "%s: projections onto the targets" % name,
                          "source %s, device %s" % (src, p.get("device", {}).get("name")))

    # ---- 7: LULESH ----
    def energy(name):
        m = re.search(r"Final Origin Energy\s*=?\s*(\S+)", read(name))
        return m.group(1) if m else None

    lulesh_state = var.get("lulesh", "missing")
    if lulesh_state == "missing":
        rep.note("LULESH: not found (set LULESH_SRC; ../shared does not travel to a lent GPU "
                 "machine); skipped")
    elif lulesh_state == "skipped":
        rep.note("LULESH: not built, the 9-minute budget was spent")
    elif lulesh_state == "build-failed":
        rep.check(False, "LULESH builds with nvcc", read("lulesh-build.log")[-300:])
    elif lulesh_state == "built":
        e = [energy(n) for n in ("lulesh-bare.out", "lulesh-timing.out", "lulesh-full.out")]
        rep.check(rc("lulesh-bare") == 0 and rc("lulesh-timing") == 0 and rc("lulesh-full") == 0,
                  "LULESH -s 45 -i 100 runs bare, timing-only and full", "exit %d %d %d" % (
                      rc("lulesh-bare"), rc("lulesh-timing"), rc("lulesh-full")))
        rep.check(e[0] is not None and e[0] == e[1] == e[2],
                  "LULESH: Final Origin Energy identical in the three runs",
                  " / ".join(str(x) for x in e))
        full, timing = load("lulesh-full.json"), load("lulesh-timing.json")
        if full:
            ks = full.get("kernels", [])
            unprof = [k["name"] for k in ks if k["profiled_launches"] < 1]
            rep.check(bool(ks) and not unprof, "LULESH: every kernel signature profiled",
                      "%d signatures, not profiled: %s" % (len(ks), ", ".join(unprof[:4]) or "none"))
            src = full.get("source_target")
            self_p = [p for p in full.get("projections", []) if p.get("target") == src]
            if not src or not self_p:
                rep.check(False, "LULESH: projected onto its own GPU", "source %s" % src)
            else:
                sp = self_p[0]
                rep.check(sp.get("unprojected_kernels", 0) == 0,
                          "LULESH: every signature projected by the default model (all its "
                          "metrics collected)", "unprojected %s" % sp.get("unprojected_kernels"))
                measured = (timing or {}).get("run", {}).get("gpu_ns")
                if measured:
                    ratio = sp["point_ns"] / measured
                    rep.check(abs(ratio - 1) <= 0.10,
                              "LULESH: projection onto %s itself within 10%% of the kernel time "
                              "measured in timing mode" % src, "%.4g ms projected, %.4g ms "
                              "measured, %+.1f%%" % (sp["point_ns"] / 1e6, measured / 1e6,
                                                     100 * (ratio - 1)))
        # ---- 9: the whole run, from the timing-mode profile: nothing profiled ----
        if timing:
            whole_run(rep, "LULESH (timing mode)", timing, fnum("lulesh_timing_s"))
        try:
            bare_s, tim_s, full_s = fnum("lulesh_bare_s"), fnum("lulesh_timing_s"), fnum("lulesh_full_s")
            rep.note("overhead: LULESH wall time bare %.2f s, timing %.2f s (%.3fx, goal <= 1.05x), "
                     "full %.2f s (%.3fx, goal <= 1.5x)" % (bare_s, tim_s, tim_s / bare_s, full_s,
                                                             full_s / bare_s))
        except ZeroDivisionError:
            rep.note("LULESH wall time: not measured")

    # ---- 6: ncu ----
    ncu_state = var.get("ncu", "missing")
    if ncu_state == "missing":
        rep.note("ncu: not installed; the comparison with Nsight Compute is skipped")
    else:
        rep.note("ncu: %s %s" % (var.get("ncu_path", "?"), var.get("ncu_args", "")))
        compare_ncu(rep, "micro", read("ncu-micro.csv"), micro)
        copy_expect = next((float(l.split()[3]) for l in read("expect.txt").splitlines()
                            if l.startswith("expect copy bytes.l2 ")), None)
        l2_forms(rep, read("ncu-micro.csv"), copy_expect)
        if lulesh_state == "built":
            ref = load("lulesh-ncu-ref.json")
            for k in ("CalcKinematicsAndMonotonicQGradient_kernel",
                      "ApplyMaterialPropertiesAndUpdateVolume_kernel",
                      "CalcMonotonicQRegionForElems_kernel"):
                compare_ncu(rep, "LULESH", read("ncu-lulesh-%s.csv" % k), ref)
    rep.close()
    return 1 if rep.failed else 0


def main(argv):
    if len(argv) == 2 and argv[0] in ("ncu-metrics", "ncu-args"):
        with open(argv[1]) as f:
            prof = json.load(f)
        if argv[0] == "ncu-metrics":
            print(",".join(ncu_metric_names(prof)))
        else:
            print("\n".join(ncu_args(prof)))
        return 0
    if len(argv) in (2, 3) and argv[0] == "report":
        return run_report(argv[1], argv[2] if len(argv) == 3 else None)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
