#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Convert XLA's default matmul performance table to gpuproj's GEMM CSV.

Input: xla/service/gpu/model/matmul_interpolator_data.h of an XLA tree (the
textproto between BEGIN_DEFAULT_PERF_TABLE and END_DEFAULT_PERF_TABLE):
per GPU key ("sm_90", "sm_100_B200", "gfx942", "gfx950") and GEMM shape
(b, m, n, k), the FLOP/s XLA's matmul_perf_table_gen measured per data type
("bf16xbf16->bf16", ...). Output (standard output), one row per (GPU,
shape, data type) of a tensor precision gpuproj models:

    xla_table,gpu,dtype,b,m,n,k,flop_per_s

gpu is the targets.yaml entry the key is taken for (KEYS below, an
assumption documented in tests/data/xla-matmul/README.md); flop_per_s is
the table's value unchanged. f32xf32->f32 rows are left out: XLA runs them
as TF32 on NVIDIA GPUs and as FP32 MFMA on AMD ones, a precision
targets.yaml has no tensor ceiling for.

Usage: scripts/xla-matmul-csv.py matmul_interpolator_data.h > out.csv
"""
import re
import sys

KEYS = {
    "sm_90": "H100-SXM5-80GB",
    "sm_100_B200": "B200-180GB",
    "gfx942": "MI300X",
    "gfx950": "MI355X",
}
DTYPES = (
    "bf16xbf16->bf16",
    "bf16xbf16->f32",
    "f8e4m3fnxf8e4m3fn->bf16",
    "f8e4m3fnxf8e5m2->bf16",
    "f8e5m2xf8e4m3fn->bf16",
    "f8e4m3fnuzxf8e4m3fnuz->bf16",
)
TOKEN = re.compile(r'[A-Za-z_]\w*|"[^"]*"|[-\d.]+|[{}:]')


def parse(text):
    """The textproto as nested lists of (name, value) pairs."""
    toks = TOKEN.findall(text)
    pos = 0

    def block():
        nonlocal pos
        items = []
        while pos < len(toks) and toks[pos] != "}":
            name = toks[pos]
            pos += 1
            if toks[pos] == ":":
                pos += 1
                val = toks[pos]
                pos += 1
                items.append((name, val.strip('"') if val.startswith('"') else val))
            elif toks[pos] == "{":
                pos += 1
                items.append((name, block()))
                pos += 1  # '}'
            else:
                raise SystemExit(f"unexpected token {toks[pos]!r} after {name!r}")
        return items

    return block()


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    src = open(sys.argv[1], encoding="utf-8").read()
    m = re.search(r'BEGIN_DEFAULT_PERF_TABLE.*?R"pb\((.*)\)pb".*END_DEFAULT_PERF_TABLE', src, re.S)
    if not m:
        raise SystemExit(f"{sys.argv[1]}: no DEFAULT_PERF_TABLE textproto")
    out = sys.stdout
    out.write("xla_table,gpu,dtype,b,m,n,k,flop_per_s\n")
    for name, entry in parse(m.group(1)):
        if name != "entries":
            continue
        key = dict((n, v) for n, v in entry if n == "key")["key"]
        value = dict((n, v) for n, v in entry if n == "value")["value"]
        if key not in KEYS:
            raise SystemExit(f"GPU key {key!r} has no targets.yaml entry in KEYS")
        for n, shape in value:
            if n != "entries":
                continue
            dims = {d: int(v) for d, v in shape if d in ("b", "m", "n", "k")}
            for f, flops in shape:
                if f != "flops":
                    continue
                kv = dict(flops)
                if kv["key"] in DTYPES:
                    out.write(f"{key},{KEYS[key]},{kv['key']},{dims.get('b', 1)},{dims['m']},"
                              f"{dims['n']},{dims['k']},{kv['value']}\n")


if __name__ == "__main__":
    main()
