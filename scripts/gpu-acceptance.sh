#!/usr/bin/env bash
# GPU acceptance of libproj.so (docs/injection.md §6, issue 10 "Acceptance
# on a GPU"). One command, under 10 minutes on one GPU; PASS/FAIL per check
# with its figures, NOTE for figures without a pass mark; exit 1 on any FAIL.
# Without a GPU it says why it skips and exits 0 (CI).
#
#   0. environment: GPU, driver, CUPTI, profiling permission
#      (RmProfilingAdminOnly), MIG, DCGM and MPS;
#   1. the device named right under CUDA_INJECTION64_PATH for an
#      nvcc-default build (no -lcuda: libcudart loads the driver RTLD_LOCAL)
#      and under LD_PRELOAD;
#   2. the micro-kernels' metrics against their analytic values
#      (tests/gpu/micro.cu), and DRAM bytes of an 8 MiB and a 1 GiB working
#      set (tests/gpu/dram.cu: what kernel replay does to the caches);
#   3. every [GPU?] assumption of the code, each checked and reported
#      (nested callbacks, names, profiler calls in callbacks, tracing with
#      the profiler, replay records, record layout, printf under replay,
#      clusters, graphs, kernels in flight at exit, busy counters);
#   4. the hang scenarios (tests/gpu/hang.cu) under a time-out;
#   5. heat2d with and without the injection (CUDA_INJECTION64_PATH,
#      LD_PRELOAD, gpuproj run): same output, every launch counted;
#   6. where ncu is installed: every logical metric of the micro-kernels
#      and of three LULESH kernels against ncu's value for the same launch
#      (counts within 1 %, bytes within 5 %), as a table;
#   7. LULESH (../shared/apps/lulesh-cuda, built with nvcc, -s 45 -i 100)
#      bare, with GPUPROJ_MODE=timing and in full mode: the same "Final
#      Origin Energy", every signature profiled and projected by the default
#      model, the projection onto this GPU within 10 % of the time measured
#      in timing mode, and the wall-time ratios (goals: timing <= 1.05x,
#      full <= 1.5x of bare; figures, not pass marks);
#   8. `gpuproj bench --quick` against this GPU's targets.yaml entry
#      (scripts/gpu-bench-check.sh; SKIP_BENCH=1 leaves it out).
#
# Environment: GPUPROJ_BUILDDIR (default build), NVCC, LULESH_SRC (default
# ../shared/apps/lulesh-cuda), HANG_TIMEOUT (s, default 60), KEEP=1 keeps
# the work directory.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	echo "gpu-acceptance: SKIP: no GPU here (nvidia-smi -L lists none); this script needs one"
	exit 0
fi
started=$(date +%s)
nvidia-smi -L | head -1

builddir=${GPUPROJ_BUILDDIR:-build}
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" >/dev/null || exit 1
fi
meson compile -C "$builddir" >/dev/null || { echo "gpu-acceptance: build failed"; exit 1; }
lib=$root/$builddir/inject/libproj.so
gpuproj=$root/$builddir/src/cli/gpuproj
if [ ! -f "$lib" ]; then
	echo "gpu-acceptance: FAIL: $lib was not built (is the CUDA toolkit found by meson?)"
	exit 1
fi
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuproj-acceptance.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
echo "gpu-acceptance: work directory $work"
hang_timeout=${HANG_TIMEOUT:-60}
lulesh_src=${LULESH_SRC:-$root/../shared/apps/lulesh-cuda}

# ---- 0: environment (figures for the python part) ----
{
	nvidia-smi --query-gpu=name,driver_version,compute_cap,mig.mode.current \
		--format=csv,noheader 2>/dev/null | head -1 | sed 's/^/gpu=/'
	echo "profiling_admin_only=$(grep -h RmProfilingAdminOnly /proc/driver/nvidia/params \
		2>/dev/null | awk '{print $2}')"
	echo "uid=$(id -u)"
	if pgrep -x nv-hostengine >/dev/null 2>&1 || pgrep -f dcgm-exporter >/dev/null 2>&1; then
		echo "dcgm=running"
	else
		echo "dcgm=no"
	fi
	if pgrep -x nvidia-cuda-mps-control >/dev/null 2>&1 ||
	   [ -e "${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}/control" ]; then
		echo "mps=running"
	else
		echo "mps=no"
	fi
	echo "ncu=$(command -v ncu || true)"
} >"$work/env.txt"

# ---- build the test programs for this GPU, nvcc's defaults (no -lcuda) ----
arch=-arch=native
for p in micro heat2d dram hang misc; do
	"$nvcc" $arch -O3 -o "$work/$p" "tests/gpu/$p.cu" 2>"$work/nvcc-$p.err" ||
		{ cat "$work/nvcc-$p.err"; echo "gpu-acceptance: FAIL: nvcc $p.cu"; exit 1; }
done
readelf -d "$work/micro" | grep NEEDED >"$work/micro.needed" || true

inject() { # inject NAME [VAR=VALUE...] -- PROGRAM ARGS...: CUDA_INJECTION64_PATH run
	local name=$1
	shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env CUDA_INJECTION64_PATH="$lib" GPUPROJ_OUTPUT="$work/$name.json" "${envs[@]}" \
		"$@" >"$work/$name.out" 2>"$work/$name.err"
	echo $? >"$work/$name.rc"
}

# ---- 1 + 2 + 3: micro-kernels, DRAM working sets, launch paths ----
inject micro GPUPROJ_LOG=debug -- "$work/micro" "$work/expect.txt"
(cd "$work" && env LD_PRELOAD="$lib" GPUPROJ_OUTPUT="$work/micro-preload.json" \
	"$work/micro" "$work/expect-preload.txt" >"$work/micro-preload.out" \
	2>"$work/micro-preload.err"; echo $? >"$work/micro-preload.rc")
inject dram -- "$work/dram" "$work/expect-dram.txt"
"$work/misc" >"$work/misc-bare.out" 2>"$work/misc-bare.err"
echo $? >"$work/misc-bare.rc"
inject misc -- "$work/misc"

# ---- 4: hang scenarios, each under a time-out ----
for c in later exclude coop waitvalue threads peer; do
	"$work/hang" "$c" >"$work/hang-$c-bare.out" 2>&1
	echo $? >"$work/hang-$c-bare.rc"
	extra=()
	[ "$c" = exclude ] && extra=(GPUPROJ_KERNEL_EXCLUDE=consumer_wait)
	[ "$c" = threads ] && extra=(GPUPROJ_WAIT=2)
	inject "hang-$c" "${extra[@]}" -- timeout -k 5 "$hang_timeout" "$work/hang" "$c"
done

# ---- 5: heat2d with and without the injection ----
t0=$(date +%s.%N)
"$work/heat2d" >"$work/plain.out" 2>"$work/plain.err"
plain_rc=$?
t1=$(date +%s.%N)
inject heat2d -- "$work/heat2d"
t2=$(date +%s.%N)
(cd "$work" && LD_PRELOAD=$lib GPUPROJ_OUTPUT=$work/preload.json \
	"$work/heat2d" >"$work/preload.out" 2>"$work/preload.err")
preload_rc=$?
"$gpuproj" run --output "$work/run.json" -- "$work/heat2d" >"$work/run.out" 2>"$work/run.err"
run_rc=$?

# ---- 7: LULESH bare, timing, full ----
lulesh_state=missing
if [ -f "$lulesh_src/lulesh.cu" ]; then
	mkdir -p "$work/lulesh"
	cp "$lulesh_src"/*.cu "$lulesh_src"/*.h "$lulesh_src"/*.inl "$work/lulesh/" 2>/dev/null
	(
		cd "$work/lulesh" || exit 1
		for f in allocator lulesh lulesh-comms lulesh-comms-gpu; do
			"$nvcc" -O3 -DNDEBUG $arch -I. -c $f.cu -o $f.o &
		done
		wait
		"$nvcc" $arch allocator.o lulesh.o lulesh-comms.o lulesh-comms-gpu.o -o lulesh
	) >"$work/lulesh-build.log" 2>&1
	if [ -x "$work/lulesh/lulesh" ]; then
		lulesh_state=built
		lul=("$work/lulesh/lulesh" -s 45 -i 100)
		tb0=$(date +%s.%N)
		"${lul[@]}" >"$work/lulesh-bare.out" 2>"$work/lulesh-bare.err"
		echo $? >"$work/lulesh-bare.rc"
		tb1=$(date +%s.%N)
		inject lulesh-timing GPUPROJ_MODE=timing -- "${lul[@]}"
		tb2=$(date +%s.%N)
		inject lulesh-full -- "${lul[@]}"
		tb3=$(date +%s.%N)
		echo "$tb0 $tb1 $tb2 $tb3" >"$work/lulesh-times.txt"
	else
		lulesh_state=build-failed
	fi
fi

# ---- 6: ncu, when present: micro-kernels and three LULESH kernels ----
ncu_state=missing
if command -v ncu >/dev/null 2>&1 && [ -f "$work/micro.json" ]; then
	ncu_state=ran
	# The NVPW names behind every logical metric, as libproj.so resolved them for this chip.
	python3 - "$work/micro.json" >"$work/ncu-metrics.txt" <<'PY'
import json, re, sys
p = json.load(open(sys.argv[1]))
names = set()
for k, v in p.get("attributes", {}).items():
    if re.match(r"metrics\.[A-Z0-9]+\.", k) and not k.endswith((".api", ".passes")) and v != "unavailable":
        for term in v.split(" * ")[0].split(" + "):
            names.add(term.strip())
print(",".join(sorted(names)))
PY
	m=$(cat "$work/ncu-metrics.txt")
	ncu --clock-control none --launch-count 7 --metrics "$m" --csv \
		"$work/micro" "$work/expect-ncu.txt" >"$work/ncu-micro.csv" 2>"$work/ncu-micro.err" ||
		echo "note: ncu failed on micro (see $work/ncu-micro.err)"
	if [ "$lulesh_state" = built ]; then
		# The first launch of each of three kernels: the launch libproj.so profiles.
			for k in CalcKinematicsAndMonotonicQGradient_kernel \
			 ApplyMaterialPropertiesAndUpdateVolume_kernel CalcMonotonicQRegionForElems_kernel; do
			ncu --clock-control none --metrics "$m" --csv --launch-count 1 -k "regex:$k" \
				"$work/lulesh/lulesh" -s 45 -i 2 >"$work/ncu-lulesh-$k.csv" \
				2>"$work/ncu-lulesh-$k.err" ||
				echo "note: ncu failed on LULESH's $k (see $work/ncu-lulesh-$k.err)"
		done
		inject lulesh-ncu-ref -- "$work/lulesh/lulesh" -s 45 -i 2
	fi
fi

python3 - "$work" "$plain_rc" "$preload_rc" "$run_rc" "$t0" "$t1" "$t2" "$lulesh_state" \
	"$ncu_state" <<'PY'
import csv, json, os, re, sys

work = sys.argv[1]
plain_rc, preload_rc, run_rc = map(int, sys.argv[2:5])
t0, t1, t2 = map(float, sys.argv[5:8])
lulesh_state, ncu_state = sys.argv[8:10]
passed = failed = 0

def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print("%s  %s%s" % ("PASS" if ok else "FAIL", what, ("  [" + detail + "]") if detail else ""))

def note(what):
    print("NOTE  " + what)

def read(name, default=""):
    try:
        with open(os.path.join(work, name), errors="replace") as f:
            return f.read()
    except OSError:
        return default

def rc(name):
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

def metric(k, name):
    v = k.get("metrics", {}).get(name)
    if isinstance(v, dict):
        v = v.get("value")
    return v

def kernels_named(p, sub):
    return [k for k in (p or {}).get("kernels", []) if sub in k["name"]]

# ---- 0: environment ----
env = dict(l.split("=", 1) for l in read("env.txt").splitlines() if "=" in l)
gpu = [s.strip() for s in env.get("gpu", "").split(",")]
gpu_name = gpu[0] if gpu else "?"
note("GPU %s, driver %s, CC %s, MIG %s" % tuple((gpu + ["?"] * 4)[:4]))
micro = load("micro.json")
cupti = (micro or {}).get("attributes", {}).get("cupti", "?")
note("CUPTI: %s" % cupti)
admin_only = env.get("profiling_admin_only", "")
check(admin_only in ("0", "") or env.get("uid") == "0",
      "environment: GPU performance counters readable by this user",
      "RmProfilingAdminOnly=%s, uid %s" % (admin_only or "?", env.get("uid")))
check(len(gpu) < 4 or gpu[3] in ("Disabled", "[N/A]", "N/A"),
      "environment: MIG off (CUPTI cannot profile MIG instances)", "mig.mode.current %s" % (gpu[3] if len(gpu) > 3 else "?"))
note("environment: DCGM %s, MPS %s, ncu %s" % (env.get("dcgm"), env.get("mps"), env.get("ncu") or "absent"))

# ---- 1: device naming ----
needed = read("micro.needed")
check("libcuda" not in needed, "the test programs are nvcc-default builds (no libcuda in DT_NEEDED)",
      ", ".join(re.findall(r"\[(.*?)\]", needed)))
for label, name in (("CUDA_INJECTION64_PATH", "micro.json"), ("LD_PRELOAD", "micro-preload.json")):
    p = load(name)
    dev = (p or {}).get("device", {})
    check(p is not None and dev.get("name") == gpu_name and dev.get("cc") and dev.get("sms", 0) > 0,
          "device named under %s (driver functions from libcuda.so.1, not the global scope)" % label,
          "name %r, CC %s, %s SMs; nvidia-smi %r" % (dev.get("name"), dev.get("cc"), dev.get("sms"), gpu_name))

# ---- 2: micro-kernels against their analytic values ----
def expectations(fname, prof, label):
    for line in read(fname).splitlines():
        parts = line.split()
        if len(parts) != 5 or parts[0] != "expect":
            continue
        _, sub, m, value, tol = parts
        value, tol = float(value), float(tol)
        ks = kernels_named(prof, sub)
        if len(ks) != 1:
            check(False, "%s %s %s" % (label, sub, m), "kernel found %d times" % len(ks))
            continue
        got = metric(ks[0], m)
        if got is None:
            check(False, "%s %s %s" % (label, sub, m), "not collected")
            continue
        if tol < 0:
            note("%s %s %s: %.6g, analytic %.6g (ratio %.3f)" % (label, sub, m, got, value,
                                                               got / value if value else float("nan")))
        elif value == 0:
            check(abs(got) <= tol, "%s %s %s" % (label, sub, m), "got %.6g, want 0 (+-%g)" % (got, tol))
        else:
            check(abs(got - value) <= tol * abs(value), "%s %s %s" % (label, sub, m),
                  "got %.6g, want %.6g (+-%.1f%%, off %+.3f%%)" % (got, value, 100 * tol,
                                                                 100 * (got - value) / value))

check(rc("micro") == 0 and micro is not None, "micro-kernels ran under libproj.so", "exit %d" % rc("micro"))
if micro:
    attrs = micro.get("attributes", {})
    note("metrics: %s" % attrs.get("metrics"))
    expectations("expect.txt", micro, "micro")
    for k in micro.get("kernels", []):
        d = k.get("duration_ns", {})
        check(k["launches"] == 3 and k["profiled_launches"] == 1 and d.get("n") == 2,
              "%s: 3 launches, 1 profiled, 2 timed" % k["name"],
              "launches %d, profiled %d, timed %s" % (k["launches"], k["profiled_launches"], d.get("n")))
        g = k.get("extra_metrics", {}).get("gpu__time_duration.sum", {}).get("value")
        if g and d.get("mean"):
            note("%s: timed mean %.0f ns, profiler gpu__time_duration %.0f ns (%+.0f%%)" % (
                k["name"], d["mean"], g, 100 * (g - d["mean"]) / d["mean"]))
dram = load("dram.json")
check(rc("dram") == 0 and dram is not None, "DRAM working sets ran under libproj.so", "exit %d" % rc("dram"))
if dram:
    expectations("expect-dram.txt", dram, "dram")

# ---- 3: the [GPU?] assumptions, one by one ----
if micro:
    ks = micro.get("kernels", [])
    attrs = micro.get("attributes", {})
    note("[GPU?] driver launch callbacks under __cudaLaunchKernel: %s" % attrs.get("nested_driver_callbacks"))
    check(all(k["name"].startswith("_Z") for k in ks),
          "[GPU?] kernel names at __cudaLaunchKernel and in records are the mangled names")
    check(all(k["profiled_launches"] == 1 for k in ks),
          "[GPU?] range profiler Start/Stop/Decode inside launch callbacks")
    check(all(k.get("duration_ns", {}).get("n") == 2 for k in ks),
          "[GPU?] kernel tracing and the range profiler together")
    check(all(k["grid"][0] == 1024 and k["block"][0] == 256 for k in ks),
          "[GPU?] kernel record layout of %s (grid and block read right)" % cupti,
          ", ".join("%s %s/%s" % (k["name"][:24], k["grid"], k["block"]) for k in ks[:2]))
    note("[GPU?] activity records of replayed launches ignored: %s; profiled launches without a record: %s"
         % (attrs.get("replay_records_ignored", "0"), attrs.get("profiled_launches_without_record", "0")))
    note("[GPU?] host evaluation of a saved counter-data image: not exercised (no image is saved)")
    busy = "HARDWARE_BUSY" in read("micro.err")
    if env.get("dcgm") == "running":
        check(busy or attrs.get("metrics", "").startswith("first"),
              "[GPU?] DCGM running: either counters busy said in one line, or metrics collected",
              "busy line" if busy else attrs.get("metrics", ""))
    else:
        note("[GPU?] CUPTI_ERROR_HARDWARE_BUSY: not exercised (no DCGM here); which call reports it stays open")
    if env.get("mps") == "running":
        check("CUDA MPS is active" in read("micro.err"), "[GPU?] MPS detected: timing only, one line")
    else:
        note("[GPU?] MPS detection: not exercised (no MPS here)")
    if "API 130000" in cupti:
        check("13.0 GA" in read("micro.err"), "[GPU?] CUPTI 13.0 GA recognised, one line")
misc = load("misc.json")
bare = read("misc-bare.out")
out = read("misc.out")
check(rc("misc") == 0 and rc("misc-bare") == 0 and misc is not None,
      "launch paths program ran with and without libproj.so", "exit %d / %d" % (rc("misc"), rc("misc-bare")))
check(sorted(out.splitlines()) == sorted(bare.splitlines()),
      "[GPU?] a kernel calling printf: its output is not repeated under kernel replay",
      "%d lines bare, %d under libproj.so" % (len(bare.splitlines()), len(out.splitlines())))
if misc:
    cl = [k for k in misc["kernels"] if "clustered" in k["name"]]
    if cl:
        check(len(cl) == 1 and cl[0].get("tag") == "cluster=2x1x1" and cl[0]["profiled_launches"] == 1,
              "[GPU?] cluster launch: the record's cluster dimensions make the signature",
              "tag %s" % (cl[0].get("tag") if cl else None))
    else:
        note("cluster launch: not run (CC < 9.0)")
    gk = kernels_named(misc, "graph_node")
    check(sum(k["launches"] for k in gk) == 4 and all(k["profiled_launches"] == 0 for k in gk),
          "[GPU?] graph captured and launched twice: 4 kernel launches timed, none profiled",
          "launches %s" % [k["launches"] for k in gk])
    lr = kernels_named(misc, "long_running")
    check(len(lr) == 1 and lr[0]["launches"] == 1,
          "[GPU?] a kernel still running when main() returns is counted (contexts synchronised at exit)",
          "launches %s" % [k["launches"] for k in lr])

# ---- 4: hangs ----
for c in ("later", "exclude", "coop", "waitvalue", "threads", "peer"):
    brc = rc("hang-%s-bare" % c)
    if brc == 77:
        note("hang %s: skipped (%s)" % (c, read("hang-%s-bare.out" % c).strip()))
        continue
    if brc != 0:
        check(False, "hang %s runs without the injection" % c, "exit %d" % brc)
        continue
    r = rc("hang-" + c)
    check(r == 0 and ("ok " + c) in read("hang-%s.out" % c),
          "hang %s: finishes under libproj.so (time-out %ss)" % (c, os.environ.get("HANG_TIMEOUT", "60")),
          "exit %d%s" % (r, " (timed out)" if r in (124, 137) else ""))

# ---- 5: heat2d ----
plain = read("plain.out")
check(plain_rc == 0 and "checksum" in plain, "heat2d runs without the injection", "exit %d" % plain_rc)
for label, r, out in (("CUDA_INJECTION64_PATH", rc("heat2d"), "heat2d.out"),
                      ("LD_PRELOAD", preload_rc, "preload.out"),
                      ("gpuproj run", run_rc, "run.out")):
    check(r == plain_rc and read(out) == plain, "heat2d under %s: same output and exit status" % label,
          "exit %d" % r)
note("heat2d wall time: %.2f s plain, %.2f s under libproj.so" % (t1 - t0, t2 - t1))
steps, checks = 400, 400 // 50
want = {"init": 2, "jacobi": steps, "residual_partial": checks + 2, "residual_final": checks + 1}
for name in ("heat2d.json", "preload.json", "run.json"):
    p = load(name)
    check(p is not None, "%s written" % name)
    if p is None:
        continue
    for sub, n in want.items():
        ks = kernels_named(p, sub)
        launches = sum(k["launches"] for k in ks)
        profiled = [k["profiled_launches"] for k in ks]
        check(launches == n and all(x == 1 for x in profiled),
              "%s: %s launches %d (want %d), profiled %s per signature" % (name, sub, launches, n, profiled))
    if p.get("source_target"):
        check(len(p.get("projections", [])) > 0, "%s: projections (source %s)" % (name, p["source_target"]))
    else:
        note("%s: this GPU (%s) is not in targets.yaml: no projections (add an entry with `gpuproj bench`)"
             % (name, p.get("device", {}).get("name")))

# ---- 7: LULESH ----
def energy(name):
    m = re.search(r"Final Origin Energy\s*=?\s*(\S+)", read(name))
    return m.group(1) if m else None

if lulesh_state == "missing":
    note("LULESH: not found (set LULESH_SRC); skipped")
elif lulesh_state == "build-failed":
    check(False, "LULESH builds with nvcc", read("lulesh-build.log")[-300:])
else:
    e = [energy(n) for n in ("lulesh-bare.out", "lulesh-timing.out", "lulesh-full.out")]
    check(rc("lulesh-bare") == 0 and rc("lulesh-timing") == 0 and rc("lulesh-full") == 0,
          "LULESH -s 45 -i 100 runs bare, timing-only and full", "exit %d %d %d" % (
              rc("lulesh-bare"), rc("lulesh-timing"), rc("lulesh-full")))
    check(e[0] is not None and e[0] == e[1] == e[2], "LULESH: Final Origin Energy identical in the three runs",
          " / ".join(str(x) for x in e))
    full, timing = load("lulesh-full.json"), load("lulesh-timing.json")
    if full:
        ks = full.get("kernels", [])
        unprof = [k["name"] for k in ks if k["profiled_launches"] < 1]
        check(ks and not unprof, "LULESH: every kernel signature profiled",
              "%d signatures, not profiled: %s" % (len(ks), ", ".join(unprof[:4]) or "none"))
        src = full.get("source_target")
        self_p = [p for p in full.get("projections", []) if p.get("target") == src]
        if not src or not self_p:
            note("LULESH: this GPU is not in targets.yaml: projection onto itself not checked")
        else:
            sp = self_p[0]
            check(sp.get("unprojected_kernels", 0) == 0,
                  "LULESH: every signature projected by the default model (all its metrics collected)",
                  "unprojected %s" % sp.get("unprojected_kernels"))
            measured = (timing or {}).get("run", {}).get("gpu_ns")
            if measured:
                ratio = sp["point_ns"] / measured
                check(abs(ratio - 1) <= 0.10,
                      "LULESH: projection onto %s itself within 10%% of the kernel time measured "
                      "in timing mode" % src, "%.4g ms projected, %.4g ms measured, %+.1f%%" % (
                          sp["point_ns"] / 1e6, measured / 1e6, 100 * (ratio - 1)))
    try:
        tb = [float(x) for x in read("lulesh-times.txt").split()]
        bare_s, tim_s, full_s = tb[1] - tb[0], tb[2] - tb[1], tb[3] - tb[2]
        note("LULESH wall time: bare %.2f s, timing %.2f s (%.3fx, goal <= 1.05x), full %.2f s "
             "(%.3fx, goal <= 1.5x)" % (bare_s, tim_s, tim_s / bare_s, full_s, full_s / bare_s))
    except (ValueError, IndexError, ZeroDivisionError):
        note("LULESH wall time: not measured")

# ---- 6: ncu ----
def ncu_rows(name):
    rows = list(csv.reader(read(name).splitlines()))
    head = next((i for i, r in enumerate(rows) if "Metric Name" in r), None)
    if head is None:
        return []
    h = rows[head]
    ki, mi, vi, ui = (h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"),
                      h.index("Metric Unit") if "Metric Unit" in h else None)
    ids = h.index("ID") if "ID" in h else None
    out = []
    for r in rows[head + 1:]:
        if len(r) <= max(ki, mi, vi):
            continue
        try:
            v = float(r[vi].replace(",", ""))
        except ValueError:
            continue
        out.append((r[ids] if ids is not None else r[ki], r[ki], r[mi], v))
    return out

def compare_ncu(label, csv_name, prof):
    rows = ncu_rows(csv_name)
    if not rows or not prof:
        note("ncu %s: no rows to compare" % label)
        return
    attrs = prof.get("attributes", {})
    chip = prof.get("device", {}).get("chip", "")
    exprs = {}
    for k, v in attrs.items():
        m = re.match(r"metrics\.%s\.(.+)$" % re.escape(chip), k)
        if m and m.group(1) not in ("api", "passes") and v != "unavailable":
            exprs[m.group(1)] = v
    by_launch = {}
    for lid, kname, mname, v in rows:
        by_launch.setdefault((lid, kname), {})[mname] = v
    print("ncu %s: logical metric, gpuproj, ncu, difference" % label)
    seen = set()
    for (lid, kname), vals in by_launch.items():
        base = kname.split("(")[0].split("<")[0].strip().split()[-1]
        if base in seen:
            continue
        seen.add(base)
        ks = [k for k in prof["kernels"] if base and base in (k.get("demangled") or k["name"])]
        if not ks:
            continue
        for logical, expr in sorted(exprs.items()):
            terms, scale = expr, 1.0
            if " * " in expr:
                terms, s = expr.split(" * ", 1)
                scale = float(s)
            theirs = 0.0
            try:
                for t in terms.split(" + "):
                    theirs += vals[t.strip()]
            except KeyError:
                continue
            theirs *= scale
            got = metric(ks[0], logical)
            if got is None:
                continue
            bytes_like = logical.startswith(("bytes", "sectors", "shared.bytes"))
            tol = 0.05 if bytes_like else 0.01
            ok = abs(got - theirs) <= tol * max(abs(theirs), 1)
            print("      %-34s %-22s %14.6g %14.6g %+8.2f%%" % (base[:34], logical, got, theirs,
                  100 * (got - theirs) / theirs if theirs else 0.0))
            check(ok, "ncu %s %s %s within %d%%" % (label, base[:40], logical, int(tol * 100)))

if ncu_state == "missing":
    note("ncu: not installed; the comparison with Nsight Compute is skipped")
else:
    compare_ncu("micro", "ncu-micro.csv", micro)
    if lulesh_state == "built":
        ref = load("lulesh-ncu-ref.json")
        for k in ("CalcKinematicsAndMonotonicQGradient_kernel",
                  "ApplyMaterialPropertiesAndUpdateVolume_kernel", "CalcMonotonicQRegionForElems_kernel"):
            compare_ncu("LULESH", "ncu-lulesh-%s.csv" % k, ref)

print("gpu-acceptance: %d PASS, %d FAIL" % (passed, failed))
sys.exit(1 if failed else 0)
PY
accept_rc=$?

# ---- 8: gpuproj bench --quick against this GPU's targets.yaml entry ----
bench_rc=0
if [ "${SKIP_BENCH:-0}" != 1 ]; then
	bash scripts/gpu-bench-check.sh "$builddir"
	bench_rc=$?
fi
echo "gpu-acceptance: $(( $(date +%s) - started )) s in all"
if [ "$accept_rc" -ne 0 ] || [ "$bench_rc" -ne 0 ]; then
	exit 1
fi
exit 0
