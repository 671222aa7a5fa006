#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The checks of scripts/gpu-acceptance.sh (scripts/gpu_acceptance.py), on
the host, against a profile the real libproj.so wrote on the CUPTI test
double and ncu CSVs in the layout of `ncu --csv --print-units base
--print-kernel-base mangled` (the details page: one row per launch and
metric; the layout of tests/data/ncu-long.csv, which a real ncu wrote):

  * composite metrics reach ncu as their terms (inst.other is six names
    joined by a bare '+', not one unknown name);
  * each kernel is compared with its own template instance and grid, when
    ncu lists fma_chain<double> before fma_chain<float>;
  * ncu replays like libproj.so did: --cache-control from the profile's
    metrics.<CHIP>.cache_control, --clock-control none, base units,
    mangled names;
  * the copy kernel's L2 bytes in both forms against 8 N;
  * the kernel still running at exit is checked as a launch that was not
    profiled (timed once), and a profiled one fails the check;
  * a step that timed out fails, one the budget left out is named, and the
    summary file holds what stdout held.

Usage: test-gpu-acceptance.py SOURCE_ROOT LIBPROJ FAKE_APP FAKE_LIBDIR TARGETS
"""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout

FLOAT = "_Z9fma_chainIfEvPT_i"
DOUBLE = "_Z9fma_chainIdEvPT_i"
COPY = "_Z4copyPKfPfl"
N = 1 << 26
THREADS = 1024 * 256  # the double scales a scripted .sum metric by the launch's threads
failures = []


def expect(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def double_profile(tmp, root, libproj, fake_app, fake_libdir, targets):
    """A profile written by libproj.so on the test double: the two fma_chain
    instances (100 FFMA and 200 DFMA per thread) and a copy kernel whose
    SMs move 8 N bytes through the L2."""
    out = os.path.join(tmp, "micro.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPROJ_")}
    env.update(LD_LIBRARY_PATH=fake_libdir, CUDA_INJECTION64_PATH=libproj, GPUPROJ_OUTPUT=out,
               GPUPROJ_TARGETS=targets, FAKE_REPORT=os.path.join(tmp, "fake.txt"))
    sass = "smsp__sass_thread_inst_executed_op_%s_pred_on.sum"
    cmds = ["init", "ctx 0",
            "metric smsp__average_thread_inst_executed_per_inst_executed.ratio 32",
            "metric %s 100" % (sass % "ffma"), "metric %s 0" % (sass % "dfma"),
            "launch rt 1 %s 1024,1,1 256,1,1 0 1000" % FLOAT,
            "metric %s 0" % (sass % "ffma"), "metric %s 200" % (sass % "dfma"),
            "launch rt 1 %s 1024,1,1 256,1,1 0 2000" % DOUBLE,
            "metric %s 0" % (sass % "dfma"),
            "metric lts__t_sectors_srcunit_tex.sum %d" % (8 * N // 32 // THREADS),
            "launch rt 1 %s 1024,1,1 256,1,1 0 3000" % COPY]
    r = subprocess.run([fake_app] + cmds, env=env, cwd=tmp, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(out):
        print(r.stderr)
        raise SystemExit("FAIL: fake-app under libproj.so wrote no profile")
    with open(out) as f:
        return json.load(f)


def double_timing_profile(tmp, libproj, fake_app, fake_libdir, targets):
    """A GPUPROJ_MODE=timing profile of the double with a whole-run timeline:
    10 epochs of host work, an H2D copy, a kernel, a D2H copy (blocking)."""
    out = os.path.join(tmp, "timing.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUPROJ_")}
    env.update(LD_LIBRARY_PATH=fake_libdir, CUDA_INJECTION64_PATH=libproj, GPUPROJ_OUTPUT=out,
               GPUPROJ_TARGETS=targets, GPUPROJ_MODE="timing",
               FAKE_REPORT=os.path.join(tmp, "fake-timing.txt"))
    cmds = ["init", "ctx 0",
            "repeat 10 do host 5000 ; memcpy 1 h2d 1000000 42000 async ; "
            "launch rt 1 %s 1024,1,1 256,1,1 0 10000 ; memcpy 1 d2h 1000000 42000" % COPY]
    r = subprocess.run([fake_app] + cmds, env=env, cwd=tmp, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(out):
        print(r.stderr)
        raise SystemExit("FAIL: fake-app in timing mode wrote no profile")
    with open(out) as f:
        return json.load(f)


NCU_HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
            '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
            '"Metric Value"\n')


def ncu_row(lid, kernel, metric, unit, value, grid="(1024, 1, 1)"):
    return ('"%d","4242","micro","gpu1","%s","1","7","(256, 1, 1)","%s","0","9.0",'
            '"Command line profiler metrics","%s","%s","%s"\n' % (lid, kernel, grid, metric, unit,
                                                                  value))


def ncu_csv(profile_names, l2_all):
    """ncu's rows: fma_chain<double> first (ncu's order need not be the profile's), its
    launch at another grid, then fma_chain<float> and the copy, every NVPW name."""
    sass = "smsp__sass_thread_inst_executed_op_%s_pred_on.sum"
    per = {DOUBLE: {sass % "dfma": "{:,}".format(200 * THREADS)},
           FLOAT: {sass % "ffma": "{:,}".format(100 * THREADS)},
           COPY: {"lts__t_sectors_srcunit_tex.sum": "{:,}".format(8 * N // 32),
                  "lts__t_bytes.sum": "{:,}".format(int(l2_all))}}
    text = ("==PROF== Connected to process 4242 (/tmp/micro)\n"
            '==PROF== Profiling "fma_chain" - 0: 0%....50%....100% - 3 passes\n' + NCU_HEAD)
    launches = [(0, DOUBLE, "(1024, 1, 1)"), (1, DOUBLE, "(2048, 1, 1)"),
                (2, FLOAT, "(1024, 1, 1)"), (3, COPY, "(1024, 1, 1)")]
    for lid, k, grid in launches:
        for name in profile_names:
            v = per[k].get(name, "0")
            if grid != "(1024, 1, 1)":
                v = "999999"  # another grid: never compared with the profile's record
            if name.endswith(".ratio"):
                v = "32"
            text += ncu_row(lid, k, name, "", v, grid)
    return text


def main():
    root, libproj, fake_app, fake_libdir, targets = sys.argv[1:6]
    sys.path.insert(0, os.path.join(root, "scripts"))
    import gpu_acceptance as ga

    tmp = tempfile.mkdtemp(prefix="gpuproj-acceptance-test-")
    try:
        prof = double_profile(tmp, root, libproj, fake_app, fake_libdir, targets)

        # 1. Composite metrics: the terms, each alone.
        names = ga.ncu_metric_names(prof)
        other = prof["attributes"]["metrics.GA100.inst.other"]
        expect("+" in other and " + " not in other,
               "libproj.so joins inst.other's terms with a bare '+' (%d terms)" % (other.count("+") + 1))
        expect(not any("+" in n or " " in n for n in names),
               "ncu-metrics: no name holds '+' or a space (%d names)" % len(names))
        expect(all(t in names for t in other.split("+")),
               "ncu-metrics: every term of inst.other is asked for alone")
        expect(ga.parse_expr("a+b+c * 0.03125") == (["a", "b", "c"], 0.03125) and
               ga.parse_expr("a + b") == (["a", "b"], 1.0) and
               ga.parse_weighted("a.sum+-0.5*b.sum * 4096 (assumed: FLOP per instruction "
                                 "of HMMA.16816)") == ([(1.0, "a.sum"), (-0.5, "b.sum")], 4096.0),
               "parse_expr splits on '+' and strips spaces; parse_weighted keeps the weights")
        expect(all(f in names for f in ga.L2_FORMS), "ncu-metrics: both L2 forms")

        # 2. ncu replays like libproj.so did.
        args = ga.ncu_args(prof)
        expect(args == ["--cache-control", "none", "--clock-control", "none", "--print-units",
                        "base", "--print-kernel-base", "mangled"],
               "ncu-args under CUPTI < 13.4: %s" % " ".join(args))
        p134 = json.loads(json.dumps(prof))
        p134["attributes"]["metrics.GA100.cache_control"] = "all (the L2 reset before every pass)"
        expect(ga.ncu_args(p134)[:2] == ["--cache-control", "all"],
               "ncu-args under CUPTI >= 13.4: --cache-control all")

        # 3. Each instance compared with its own; the other grid never.
        csv_text = ncu_csv(names, 1.3 * 8 * N)
        rep_out = io.StringIO()
        rep = ga.Report()
        with redirect_stdout(rep_out):
            ga.compare_ncu(rep, "micro", csv_text, prof)
        text = rep_out.getvalue()
        expect(rep.failed == 0 and rep.passed > 0,
               "compare_ncu: %d PASS, %d FAIL with fma_chain<double> listed first" % (
                   rep.passed, rep.failed))
        expect("999999" not in text, "compare_ncu: the launch at another grid is not compared")
        fp32 = [l for l in text.splitlines()
                if l.startswith(" ") and DOUBLE in l and "inst.fp64.fma" in l]
        expect(len(fp32) == 1 and fp32[0].split()[-3:-1] == ["5.24288e+07"] * 2,
               "fma_chain<double>'s inst.fp64.fma against its own launch (200 x %d)" % THREADS)
        # Held against the old matching (base names, first instance), it fails.
        wrong = csv_text.replace(FLOAT, "SWAP").replace(DOUBLE, FLOAT).replace("SWAP", DOUBLE)
        rep2 = ga.Report()
        with redirect_stdout(io.StringIO()):
            ga.compare_ncu(rep2, "micro", wrong, prof)
        expect(rep2.failed > 0, "compare_ncu fails when ncu's values belong to the other instance")

        # 4. The copy kernel's L2 forms against 8 N.
        rep3 = ga.Report()
        buf = io.StringIO()
        with redirect_stdout(buf):
            ga.l2_forms(rep3, csv_text, 8.0 * N)
        expect(rep3.passed == 1 and rep3.failed == 0 and "1.300x" in buf.getvalue(),
               "L2 forms: the SMs' sectors pass at 8 N, lts__t_bytes reported at 1.300x")
        rep4 = ga.Report()
        with redirect_stdout(io.StringIO()):
            ga.l2_forms(rep4, csv_text.replace("{:,}".format(8 * N // 32), "{:,}".format(N // 2)),
                        8.0 * N)
        expect(rep4.failed == 1, "L2 forms: sectors at half of 8 N fail")

        # 5. A whole report over a work directory: the kernel in flight at exit,
        #    a timed-out step, a skipped one, the summary file.
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        misc = json.loads(json.dumps(prof))
        misc["kernels"] = [{"name": "_Z12long_runningxPf", "grid": [1, 1, 1], "block": [32, 1, 1],
                            "launches": 1, "profiled_launches": 0,
                            "duration_ns": {"n": 1, "mean": 2e8}}]
        with open(os.path.join(work, "misc.json"), "w") as f:
            json.dump(misc, f)
        for name, code in (("misc", 0), ("misc-bare", 0)):
            with open(os.path.join(work, name + ".rc"), "w") as f:
                f.write("%d\n" % code)
        with open(os.path.join(work, "steps.txt"), "w") as f:
            f.write("micro 124 90.000 90\nbench 125 0 150\n")
        with open(os.path.join(work, "vars.txt"), "w") as f:
            f.write("lulesh=missing\nncu=missing\nhang_timeout=30\n")
        summary = os.path.join(tmp, "summary.txt")
        buf = io.StringIO()
        with redirect_stdout(buf):
            code = ga.run_report(work, summary)
        out = buf.getvalue()
        with open(summary) as f:
            expect(f.read() == out, "the summary file holds what stdout held")
        expect(code == 1 and "FAIL  step micro finished within its 90 s  [timed out]" in out,
               "a step that timed out fails, naming its limit")
        expect("NOTE  step bench: skipped, the 9-minute budget was spent" in out,
               "a step the budget left out is named")
        lr = [l for l in out.splitlines() if "still running when main() returns" in l]
        expect(len(lr) == 1 and lr[0].startswith("PASS"),
               "long_running: counted and timed, not profiled: PASS")
        misc["kernels"][0].update(profiled_launches=1, duration_ns={"n": 0})
        with open(os.path.join(work, "misc.json"), "w") as f:
            json.dump(misc, f)
        buf = io.StringIO()
        with redirect_stdout(buf):
            ga.run_report(work, None)
        lr = [l for l in buf.getvalue().splitlines() if "still running when main() returns" in l]
        expect(len(lr) == 1 and lr[0].startswith("FAIL"),
               "long_running profiled (its launch returned after the replay): FAIL")
        # The pageable copies of misc.cu: found in the timeline and counted; absent, FAIL.
        pg = [l for l in buf.getvalue().splitlines() if "pageable host-to-device" in l]
        expect(len(pg) == 1 and pg[0].startswith("FAIL"),
               "pageable copies: a misc profile without them fails")
        copy = {"op": "copy", "kind": "h2d", "pinned": False, "bytes": 64 << 20, "stream": 0}
        misc["timeline"] = {"patterns": [{"nodes": [dict(copy, blocking=True), copy,
                                                    dict(copy, pinned=True)]}]}
        with open(os.path.join(work, "misc.json"), "w") as f:
            json.dump(misc, f)
        buf = io.StringIO()
        with redirect_stdout(buf):
            ga.run_report(work, None)
        pg = [l for l in buf.getvalue().splitlines() if "pageable" in l]
        expect(len(pg) == 2 and pg[0].startswith("PASS") and "[2 such nodes]" in pg[0] and
               "1 of 2 node(s) recorded blocking" in pg[1],
               "pageable copies: 2 pageable h2d nodes found (the pinned one not), 1 blocking: %s"
               % pg)

        # 6. The whole run (step 9): the identity check passes on the double, and fails
        #    when the replay onto the source no longer gives the measured wall back.
        tprof = double_timing_profile(tmp, libproj, fake_app, fake_libdir, targets)
        rep5 = ga.Report()
        buf = io.StringIO()
        with redirect_stdout(buf):
            ga.whole_run(rep5, "double", tprof, 0.5)
        text = buf.getvalue()
        expect(rep5.failed == 0 and rep5.passed == 2 and "identity error +0.00%" in text,
               "whole run: timeline present and the identity check passes on the double")
        expect("the record explains" in text and "of the process's 0.50 s" in text,
               "whole run: the explained share and the traced part of the process reported")
        bad = json.loads(json.dumps(tprof))
        for p in bad["projections"]:
            if p.get("target") == bad.get("source_target"):
                p["whole_run"]["identity_error"] = 0.05
        rep6 = ga.Report()
        with redirect_stdout(io.StringIO()):
            ga.whole_run(rep6, "double", bad)
        expect(rep6.failed == 1, "whole run: a 5 % identity error fails")
        del bad["timeline"]
        rep7 = ga.Report()
        with redirect_stdout(io.StringIO()):
            ga.whole_run(rep7, "double", bad)
        expect(rep7.failed == 1, "whole run: a profile without a timeline fails")

        # 7. The shell script: syntax, and it hands its checks to this module.
        sh = os.path.join(root, "scripts", "gpu-acceptance.sh")
        r = subprocess.run(["bash", "-n", sh], capture_output=True, text=True)
        expect(r.returncode == 0, "gpu-acceptance.sh parses (bash -n)")
        with open(sh) as f:
            src = f.read()
        expect("gpu_acceptance.py ncu-args" in src and "gpu_acceptance.py ncu-metrics" in src and
               "GPUPROJ_KERNEL_EXCLUDE=long_running" in src and "/usr/local/cuda/bin/ncu" in src,
               "gpu-acceptance.sh: ncu's names and options from the profile, long_running "
               "excluded, ncu found in /usr/local/cuda/bin")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
