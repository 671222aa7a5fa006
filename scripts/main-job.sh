#!/usr/bin/env bash
# The README's main job. Without a GPU: project the bundled profile of
# published, cited measurements onto every GPU in targets.yaml and print
# the table (with the error against the times those GPUs really measured).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
builddir=${GPUPROJ_BUILDDIR:-build}
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" >/dev/null
fi
meson compile -C "$builddir" >/dev/null
exec "$builddir/src/cli/gpuproj" project --builtin "$@"
