#!/usr/bin/env python3
"""Run one libFuzzer harness of tests/fuzz for a fixed time (docs/internals/fuzzing.md).

Seeds (files, or directories of files) are copied into WORK/seeds; the
growing corpus is WORK/corpus, crash reproducers WORK/crash-*. The time is
$GPUPROJ_FUZZ_SECONDS, else --seconds (default 20); $GPUPROJ_FUZZ_ARGS
adds libFuzzer options. Prints the figures
libFuzzer reports (executions, coverage, features, corpus) and exits 1 on
a crash, a leak, a sanitizer report, an oracle failure or a timeout of one
input, naming the reproducer and how to replay it.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

# The data set's CSV files are large: their first rows make good seeds.
HEAD_LINES = 8
MAX_SEED = 256 * 1024


def copy_seed(src, dst_dir, n):
    base = "%03d-%s" % (n, os.path.basename(src))
    dst = os.path.join(dst_dir, base)
    with open(src, "rb") as f:
        data = f.read()
    if len(data) > MAX_SEED and src.endswith(".csv"):
        data = b"".join(data.splitlines(True)[:HEAD_LINES])
    with open(dst, "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("harness")
    ap.add_argument("--name", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--dict")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--seed", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    seconds = int(os.environ.get("GPUPROJ_FUZZ_SECONDS", a.seconds))

    seeds = os.path.join(a.work, "seeds")
    corpus = os.path.join(a.work, "corpus")
    shutil.rmtree(seeds, ignore_errors=True)
    os.makedirs(seeds)
    os.makedirs(corpus, exist_ok=True)
    n = 0
    for s in a.seed:
        if os.path.isdir(s):
            for f in sorted(os.listdir(s)):
                p = os.path.join(s, f)
                if os.path.isfile(p) and not f.endswith(".md"):
                    copy_seed(p, seeds, n)
                    n += 1
        elif os.path.isfile(s):
            copy_seed(s, seeds, n)
            n += 1
        elif "/regressions/" not in s:
            print("fuzz-%s: seed %s is absent, skipped" % (a.name, s))
    cmd = [a.harness, "-max_total_time=%d" % seconds, "-timeout=20", "-rss_limit_mb=2048",
           "-malloc_limit_mb=2048", "-print_final_stats=1", "-max_len=262144",
           "-artifact_prefix=" + a.work + "/"]
    if a.dict:
        cmd.append("-dict=" + a.dict)
    # More libFuzzer options, e.g. GPUPROJ_FUZZ_ARGS="-use_value_profile=1 -jobs=2".
    cmd += os.environ.get("GPUPROJ_FUZZ_ARGS", "").split()
    cmd += [corpus, seeds]
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:allocator_may_return_null=1")
    env.setdefault("UBSAN_OPTIONS", "halt_on_error=1:abort_on_error=1:print_stacktrace=1")
    print("fuzz-%s: %d s, %d seeds: %s" % (a.name, seconds, n, " ".join(cmd)), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                       timeout=seconds + 120)
    out = p.stdout.decode("utf-8", "replace")
    execs = re.findall(r"stat::number_of_executed_units:\s+(\d+)", out)
    rss = re.findall(r"stat::peak_rss_mb:\s+(\d+)", out)
    progress = re.findall(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)", out)
    if p.returncode != 0:
        print(out[-20000:])
        crashes = [f for f in os.listdir(a.work) if f.startswith("crash-") or
                   f.startswith("leak-") or f.startswith("timeout-") or f.startswith("oom-")]
        print("fuzz-%s: FAILED (exit %d); reproducer(s): %s" %
              (a.name, p.returncode, ", ".join(os.path.join(a.work, c) for c in crashes)))
        print("replay: %s %s/<file>" % (a.harness, a.work))
        return 1
    if progress:
        last = progress[-1]
        print("fuzz-%s: %s executions in %d s, coverage %s edges, %s features, corpus %s inputs "
              "(%s), peak RSS %s MB" % (a.name, execs[0] if execs else last[0], seconds, last[1],
                                        last[2], last[3], last[4], rss[0] if rss else "?"))
    else:
        print(out[-4000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
