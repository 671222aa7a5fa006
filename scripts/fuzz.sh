#!/usr/bin/env bash
# Run the libFuzzer harnesses of tests/fuzz longer than CI does
# (docs/internals/fuzzing.md): configure build-fuzz with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer (once), build, then run each harness in turn
# for SECONDS (default 600), one at a time. Work corpora persist in
# build-fuzz/tests/fuzz/fuzz-work/NAME between runs; a crash stops that
# harness and names its reproducer (add it to tests/fuzz/regressions/NAME
# with a fix and a test).
#
#   bash scripts/fuzz.sh [SECONDS] [targets|profile|ncu|gpuperfpredict|xla-matmul|kerneltuner|fatbin|env ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
builddir=${GPUPROJ_FUZZ_BUILDDIR:-build-fuzz}
if [ ! -f "$builddir/build.ninja" ]; then
	CC=clang meson setup "$builddir" -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dtests=disabled
fi
meson compile -C "$builddir"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(targets profile ncu gpuperfpredict xla-matmul kerneltuner fatbin env
				   prices)
status=0
for n in "${names[@]}"; do
	GPUPROJ_FUZZ_SECONDS=$seconds meson test -C "$builddir" --suite fuzz "fuzz-$n" \
		--print-errorlogs || status=1
	grep -h "^fuzz-$n: " "$builddir/meson-logs/testlog.txt" | tail -n 1
done
exit $status
