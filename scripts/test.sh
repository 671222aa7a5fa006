#!/usr/bin/env bash
# The README's test command: install missing dependencies, configure
# build/ (if needed), build, and run every test suite that needs no GPU.
# Extra arguments go to `meson test` (e.g. a suite or test name).
set -euo pipefail
cd "$(dirname "$0")/.."
# .ci/run has just installed them; a user running this by hand has not.
[ "${GPUPROJ_DEPS_DONE:-0}" = 1 ] || bash scripts/setup-deps.sh
builddir=${GPUPROJ_BUILDDIR:-build}
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir"
fi
meson compile -C "$builddir"
exec meson test -C "$builddir" --no-suite gpu --print-errorlogs "$@"
