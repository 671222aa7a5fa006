#!/usr/bin/env bash
# The README's main job. With a GPU (nvidia-smi -L lists one): build the
# bundled example application (tests/gpu/heat2d.cu) for it and run it under
# libproj.so (`gpuproj run`): its kernels are profiled and projected onto
# every GPU in targets.yaml at exit (table on stderr, gpuproj-heat2d.json).
# Without a GPU: project the bundled profile of published, cited
# measurements onto every GPU in targets.yaml and print the table (with the
# error against the times those GPUs really measured).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
builddir=${GPUPROJ_BUILDDIR:-build}
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" >/dev/null
fi
meson compile -C "$builddir" >/dev/null
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' &&
   [ -f "$builddir/inject/libproj.so" ]; then
	nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
	"$nvcc" -O3 -arch=native -o "$builddir/heat2d" tests/gpu/heat2d.cu
	exec "$builddir/src/cli/gpuproj" run --output gpuproj-heat2d.json -- "$builddir/heat2d"
fi
exec "$builddir/src/cli/gpuproj" project --builtin "$@"
