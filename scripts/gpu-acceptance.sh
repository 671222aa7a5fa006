#!/usr/bin/env bash
# GPU acceptance of libproj.so (docs/injection.md "What only a GPU can tell").
#
# On a machine with an NVIDIA GPU: builds tests/gpu/micro.cu (kernels with
# analytic metric values) and tests/gpu/heat2d.cu (the example application)
# with nvcc for this GPU, runs them under libproj.so, and checks
#   1. every collected metric of the micro-kernels against its analytic
#      value, with the tolerance written next to it in micro.cu;
#   2. the first-GPU-run checklist of cupti-notes §8 as far as a run can
#      tell (nested driver callbacks, names at __cudaLaunchKernel, profiler
#      calls inside launch callbacks, tracing and profiling together,
#      records of replayed launches);
#   3. heat2d end to end: identical output and exit status with and without
#      the injection (CUDA_INJECTION64_PATH, LD_PRELOAD, gpuproj run), every
#      launch counted, one profiled launch per signature, projections;
#   4. optionally (when ncu is on PATH) our values against
#      ncu --clock-control none for the same kernels;
#   5. `gpuproj bench --quick` against the GPU's targets.yaml entry
#      (scripts/gpu-bench-check.sh, tolerances stated there).
# Prints PASS/FAIL per check with the figures; exits 1 on any FAIL.
# Without a GPU it prints why it skips and exits 0 (CI).
#
# Environment: GPUPROJ_BUILDDIR (default build), NVCC, KEEP=1 keeps the
# work directory.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	echo "gpu-acceptance: SKIP: no GPU here (nvidia-smi -L lists none); this script needs one"
	exit 0
fi
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

arch=-arch=native
"$nvcc" $arch -O3 -o "$work/micro" tests/gpu/micro.cu 2>"$work/nvcc.err" ||
	{ cat "$work/nvcc.err"; echo "gpu-acceptance: FAIL: nvcc micro.cu"; exit 1; }
"$nvcc" $arch -O3 -o "$work/heat2d" tests/gpu/heat2d.cu 2>"$work/nvcc.err" ||
	{ cat "$work/nvcc.err"; echo "gpu-acceptance: FAIL: nvcc heat2d.cu"; exit 1; }

# ---- 1 + 2: micro-kernels under the injection ----
CUDA_INJECTION64_PATH=$lib GPUPROJ_OUTPUT=$work/micro.json GPUPROJ_LOG=debug \
	"$work/micro" "$work/expect.txt" >"$work/micro.out" 2>"$work/micro.err"
micro_rc=$?

# ---- 3: heat2d with and without the injection ----
t0=$(date +%s.%N)
"$work/heat2d" >"$work/plain.out" 2>"$work/plain.err"
plain_rc=$?
t1=$(date +%s.%N)
CUDA_INJECTION64_PATH=$lib GPUPROJ_OUTPUT=$work/heat2d.json \
	"$work/heat2d" >"$work/inj.out" 2>"$work/inj.err"
inj_rc=$?
t2=$(date +%s.%N)
(cd "$work" && LD_PRELOAD=$lib GPUPROJ_OUTPUT=$work/preload.json \
	"$work/heat2d" >"$work/preload.out" 2>"$work/preload.err")
preload_rc=$?
"$gpuproj" run --output "$work/run.json" -- "$work/heat2d" >"$work/run.out" 2>"$work/run.err"
run_rc=$?

# ---- 4: ncu, when present ----
ncu_csv=
if command -v ncu >/dev/null 2>&1; then
	metrics=smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,dram__bytes.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
	if ncu --clock-control none --launch-count 7 --metrics "$metrics" --csv \
		"$work/micro" "$work/expect-ncu.txt" >"$work/ncu.csv" 2>"$work/ncu.err"; then
		ncu_csv=$work/ncu.csv
	else
		echo "note: ncu failed (see $work/ncu.err); the ncu comparison is skipped"
	fi
fi

python3 - "$work" "$micro_rc" "$plain_rc" "$inj_rc" "$preload_rc" "$run_rc" "$t0" "$t1" "$t2" \
	"$ncu_csv" <<'PY'
import csv, json, math, os, sys

work = sys.argv[1]
micro_rc, plain_rc, inj_rc, preload_rc, run_rc = map(int, sys.argv[2:7])
t0, t1, t2 = map(float, sys.argv[7:10])
ncu_csv = sys.argv[10]
passed = failed = 0

def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print("%s  %s%s" % ("PASS" if ok else "FAIL", what, ("  [" + detail + "]") if detail else ""))

def note(what):
    print("note  " + what)

def load(name):
    try:
        with open(os.path.join(work, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return None

def metric(k, name):
    v = k.get("metrics", {}).get(name)
    if isinstance(v, dict):
        v = v.get("value")
    return v

# ---- micro-kernels ----
check(micro_rc == 0, "micro-kernels ran under libproj.so", "exit %d" % micro_rc)
prof = load("micro.json")
check(prof is not None, "micro.json written")
if prof and micro_rc == 0:
    attrs = prof.get("attributes", {})
    dev = prof.get("device", {})
    note("device %s (%s, CC %s), %s" % (dev.get("name"), dev.get("chip"), dev.get("cc"),
                                        attrs.get("metrics")))
    kernels = prof.get("kernels", [])
    def find(sub):
        ks = [k for k in kernels if sub in k["name"]]
        return ks[0] if len(ks) == 1 else None
    for line in open(os.path.join(work, "expect.txt")):
        _, sub, m, value, tol = line.split()
        value, tol = float(value), float(tol)
        k = find(sub)
        if k is None:
            check(False, "%s %s" % (sub, m), "kernel not found exactly once")
            continue
        got = metric(k, m)
        if got is None:
            check(False, "%s %s" % (sub, m), "not collected")
            continue
        if value == 0:
            ok = abs(got) <= tol
            detail = "got %.6g, want 0 (+-%g)" % (got, tol)
        else:
            ok = abs(got - value) <= tol * abs(value)
            detail = "got %.6g, want %.6g (+-%.1f%%, off %+.3f%%)" % (
                got, value, 100 * tol, 100 * (got - value) / value)
        check(ok, "%s %s" % (sub, m), detail)
    # Launch accounting: 3 launches, the first profiled, 2 timed.
    for k in kernels:
        n = k["name"]
        d = k.get("duration_ns", {})
        check(k["launches"] == 3 and k["profiled_launches"] == 1 and d.get("n") == 2,
              "%s: 3 launches, 1 profiled, 2 timed" % n,
              "launches %d, profiled %d, timed %s" % (k["launches"], k["profiled_launches"],
                                                      d.get("n")))
        g = k.get("extra_metrics", {}).get("gpu__time_duration.sum", {}).get("value")
        if g and d.get("mean"):
            note("%s: timed mean %.0f ns, profiler gpu__time_duration %.0f ns (%+.0f%%)" % (
                n, d["mean"], g, 100 * (g - d["mean"]) / d["mean"]))
    # Checklist (cupti-notes §8).
    note("checklist 1: driver launch callbacks under __cudaLaunchKernel: %s"
         % attrs.get("nested_driver_callbacks"))
    check(all(k["name"].startswith("_Z") for k in kernels),
          "checklist 2: kernel names at __cudaLaunchKernel / records are the mangled names")
    check(all(k["profiled_launches"] == 1 for k in kernels),
          "checklist 3: range profiler Start/Stop/Decode inside launch callbacks")
    check(all(k.get("duration_ns", {}).get("n") == 2 for k in kernels),
          "checklist 4: kernel tracing and the range profiler together")
    note("checklist 5: activity records of replayed launches ignored: %s; profiled launches "
         "without a record: %s" % (attrs.get("replay_records_ignored", "0"),
                                   attrs.get("profiled_launches_without_record", "0")))
    note("checklist 6 (host evaluation of a saved image): not exercised by this script")

# ---- heat2d ----
plain = open(os.path.join(work, "plain.out")).read()
check(plain_rc == 0 and "checksum" in plain, "heat2d runs without the injection",
      "exit %d" % plain_rc)
for label, rc, out in (("CUDA_INJECTION64_PATH", inj_rc, "inj.out"),
                       ("LD_PRELOAD", preload_rc, "preload.out"),
                       ("gpuproj run", run_rc, "run.out")):
    same = open(os.path.join(work, out)).read() == plain
    check(rc == plain_rc and same, "heat2d under %s: same output and exit status" % label,
          "exit %d" % rc)
note("heat2d wall time: %.2f s plain, %.2f s under libproj.so" % (t1 - t0, t2 - t1))
steps, checks = 400, 400 // 50
want = {"init": 2, "jacobi": steps, "residual_partial": checks + 2, "residual_final": checks + 1}
for name in ("heat2d.json", "preload.json", "run.json"):
    p = load(name)
    check(p is not None, "%s written" % name)
    if p is None:
        continue
    for sub, n in want.items():
        ks = [k for k in p["kernels"] if sub in k["name"]]
        launches = sum(k["launches"] for k in ks)
        profiled = [k["profiled_launches"] for k in ks]
        check(launches == n and all(x == 1 for x in profiled),
              "%s: %s launches %d (want %d), profiled %s per signature" % (name, sub, launches,
                                                                          n, profiled))
    if p.get("source_target"):
        proj = p.get("projections", [])
        check(len(proj) > 0, "%s: projections onto %d targets (source %s)" % (
            name, len(proj), p["source_target"]))
    else:
        note("%s: this GPU (%s) is not in targets.yaml: no projections (add an entry with "
             "`gpuproj bench`)" % (name, p.get("device", {}).get("name")))

# ---- ncu ----
if ncu_csv and prof:
    rows = list(csv.reader(open(ncu_csv)))
    head = next((i for i, r in enumerate(rows) if "Metric Name" in r), None)
    if head is not None:
        h = rows[head]
        ki, mi, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
        ours = {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "inst.fp32.fma",
                "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": "inst.fp64.fma",
                "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": "inst.fp32.add",
                "dram__bytes.sum": "bytes.dram",
                "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": "shared.wavefronts",
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum": "shared.bank_conflicts"}
        for r in rows[head + 1:]:
            if len(r) <= max(ki, mi, vi) or r[mi] not in ours:
                continue
            try:
                theirs = float(r[vi].replace(",", ""))
            except ValueError:
                continue
            base = r[ki].split("(")[0].split("<")[0].strip()
            ks = [k for k in prof["kernels"] if base and base in (k.get("demangled") or k["name"])]
            if not ks:
                continue
            got = metric(ks[0], ours[r[mi]])
            if got is None:
                continue
            ok = abs(got - theirs) <= 0.02 * max(abs(theirs), 1)
            check(ok, "ncu %s %s" % (base, r[mi]), "ours %.6g, ncu %.6g" % (got, theirs))

print("gpu-acceptance: %d PASS, %d FAIL" % (passed, failed))
sys.exit(1 if failed else 0)
PY
accept_rc=$?

# ---- 5: gpuproj bench --quick against this GPU's targets.yaml entry ----
bash scripts/gpu-bench-check.sh "$builddir"
bench_rc=$?
if [ "$accept_rc" -ne 0 ] || [ "$bench_rc" -ne 0 ]; then
	exit 1
fi
exit 0
