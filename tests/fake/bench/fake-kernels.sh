#!/bin/sh
# SPDX-License-Identifier: MIT
# Stands in for gpuproj-bench-kernels in the `gpuproj bench` CLI tests (no
# GPU): --query and --plan both answer with the recorded run $FAKE_BENCH_RAW;
# --plan first checks the plan's first line and keeps a copy in
# $FAKE_BENCH_PLAN_COPY. FAKE_BENCH_NOGPU=1 answers as the real program does
# without a GPU (an "error" and exit status 3); FAKE_BENCH_STATUS=N makes --plan
# exit with N after writing (a run that stopped part-way); FAKE_BENCH_NOIMAGE=1
# makes --plan fail as a program without code for the GPU does (a V100 and a
# CUDA 13 build).
mode='' out=- plan=''
while [ $# -gt 0 ]; do
	case $1 in
	--query) mode=query ;;
	--plan) mode=plan; plan=$2; shift ;;
	--output) out=$2; shift ;;
	--device | --progress) shift ;;
	*) echo "fake-kernels: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
if [ -n "${FAKE_BENCH_NOGPU:-}" ]; then
	printf '{"schema": "gpuproj-bench-raw/1", "error": "%s"}\n' \
		"no CUDA-capable device is detected (cudaErrorNoDevice)" >"$out"
	exit 3
fi
if [ "$mode" = plan ] && [ -n "${FAKE_BENCH_NOIMAGE:-}" ]; then
	printf '{"schema": "gpuproj-bench-raw/1", "error": "%s", "benchmarks": []}\n' \
		"warm-up: no kernel image is available for execution on the device (cudaErrorNoKernelImageForDevice)" >"$out"
	exit 1
fi
if [ "$mode" = plan ]; then
	if [ "$(head -n 1 "$plan")" != "gpuproj-bench-plan/1" ]; then
		echo "fake-kernels: bad plan" >&2
		exit 2
	fi
	[ -n "${FAKE_BENCH_PLAN_COPY:-}" ] && cp "$plan" "$FAKE_BENCH_PLAN_COPY"
fi
cp "$FAKE_BENCH_RAW" "$out"
[ "$mode" = plan ] && exit "${FAKE_BENCH_STATUS:-0}"
exit 0
