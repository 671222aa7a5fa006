#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes report-rank0.json and report-rank1.json (this directory by default):
# synthetic profiles shaped like LULESH -s 80 on a V100-PCIe-16GB (rates from
# its targets.yaml entry: DRAM 846, L2 2460, L1 13963 GB/s, FP64 6890 GFLOP/s,
# 441.6 warp GIPS), for the report tests. Rank 1 runs 7 % slower. Not a
# measurement: the profiles say so in their "citation" attribute.
# Usage: report-fixtures.py [DIR]
import json
import os
import sys
BW = {"dram": 846e9, "l2": 2460e9, "l1": 13963e9}
FP64 = 6890e9
GIPS = 441.6e9   # 80 SMs x 4 x 1 x 1.38 GHz
def kernel(name, demangled, grid, block, launches, mean_ns, u_dram, l2x, l1x, flop_frac, fma_share,
           we=0.95, gips_frac=0.3, shared_frac=0.0, profiled=1, prec="fp64", rank_scale=1.0, refs=None):
    t = mean_ns * rank_scale * 1e-9
    k = {"name": name, "grid": grid, "block": block, "launches": launches, "profiled_launches": profiled,
         "duration_ns": {"n": launches, "mean": round(mean_ns * rank_scale, 1),
                         "min": round(mean_ns * rank_scale * 0.97, 1), "max": round(mean_ns * rank_scale * 1.05, 1)},
         "regs_per_thread": 64, "smem_static_bytes": 0, "smem_dynamic_bytes": 0, "device": 0}
    if demangled:
        k["demangled"] = demangled
    if profiled:
        dram = t * BW["dram"] * u_dram
        l2 = dram * l2x
        l1 = l2 * l1x
        flop = t * FP64 * flop_frac
        fma = flop * fma_share / 2.0
        addmul = flop * (1 - fma_share)
        m = {}
        for p in ("fp16", "fp32", "fp64"):
            for op in ("fma", "add", "mul"):
                m["inst.%s.%s" % (p, op)] = 0
        if flop > 0:
            m["inst.%s.fma" % prec] = round(fma)
            m["inst.%s.add" % prec] = round(addmul * 0.6)
            m["inst.%s.mul" % prec] = round(addmul * 0.4)
        m["warp_efficiency"] = we
        m["bytes.l1"] = round(l1); m["bytes.l2"] = round(l2); m["bytes.dram"] = round(dram)
        m["sectors.l1"] = round(l1 / 32); m["sectors.l2"] = round(l2 / 32); m["sectors.dram"] = round(dram / 32)
        m["shared.wavefronts"] = round(t * 14131.2e9 * shared_frac / 128)
        inst_warp = t * GIPS * gips_frac
        m["inst.warp"] = round(inst_warp)
        m["inst.thread"] = round(inst_warp * 32 * we)
        fpi = fma + addmul
        m["inst.%s" % prec] = round(fpi)
        m["inst.int"] = round(inst_warp * 32 * we * 0.25)
        m["inst.ldst"] = round(inst_warp * 32 * we * 0.2)
        m["inst.other"] = round(max(inst_warp * 32 * we * 0.55 - fpi, 0))
        m["occupancy.achieved"] = 0.55
        m["clock.sm"] = 1.38e9
        k["metrics"] = m
    if refs:
        k["reference_ns"] = refs
    return k

def profile(rank, scale):
    ks = [
        kernel("_Z35CalcFBHourglassForceForElems_kernelIdLb1EEvRK6DomainPdi",
               "void CalcFBHourglassForceForElems_kernel<double, true>(Domain const&, double*, int)",
               [4000, 1, 1], [128, 1, 1], 932, 1850e3, 0.55, 2.2, 1.6, 0.26, 0.7, we=0.97, gips_frac=0.42, rank_scale=scale),
        kernel("_Z30IntegrateStressForElems_kerneliPKdS0_S0_PdS1_S1_S1_", "IntegrateStressForElems_kernel(int, double const*, double const*, double const*, double*, double*, double*, double*)",
               [4000, 1, 1], [128, 1, 1], 932, 980e3, 0.72, 1.8, 1.4, 0.09, 0.6, we=0.99, gips_frac=0.33, rank_scale=scale),
        kernel("_Z42CalcKinematicsAndMonotonicQGradient_kernelPK6Domaind", "CalcKinematicsAndMonotonicQGradient_kernel(Domain const*, double)",
               [4000, 1, 1], [128, 1, 1], 932, 760e3, 0.62, 2.0, 1.5, 0.18, 0.65, we=0.98, gips_frac=0.38, rank_scale=scale),
        kernel("_Z45ApplyMaterialPropertiesAndUpdateVolume_kernelPK6Domain", "ApplyMaterialPropertiesAndUpdateVolume_kernel(Domain const*)",
               [4000, 1, 1], [128, 1, 1], 932, 540e3, 0.48, 1.6, 1.3, 0.05, 0.5, we=0.81, gips_frac=0.27, rank_scale=scale),
        kernel("_Z31CalcTimeConstraintsForElems_kernelILi128EEviPKdS1_Pd", "void CalcTimeConstraintsForElems_kernel<128>(int, double const*, double const*, double*)",
               [4000, 1, 1], [128, 1, 1], 932, 210e3, 0.40, 2.6, 2.0, 0.02, 0.4, we=0.74, gips_frac=0.22, shared_frac=0.08, rank_scale=scale),
        kernel("_Z29AddNodeForcesFromElems_kernel6Domain", "AddNodeForcesFromElems_kernel(Domain)",
               [4000, 1, 1], [128, 1, 1], 932, 330e3, 0.66, 1.4, 2.5, 0.03, 0.3, we=0.93, gips_frac=0.25, rank_scale=scale),
        kernel("_Z31CalcAccelerationForNodes_kernelidPd", "CalcAccelerationForNodes_kernel(int, double, double*)",
               [4000, 1, 1], [128, 1, 1], 932, 120e3, 0.80, 1.2, 1.1, 0.01, 0.0, we=1.0, gips_frac=0.12, rank_scale=scale),
        kernel("_ZN3cub11EmptyKernelIvEEvv", "void thrust::cuda_cub::core::_kernel_agent<thrust::cuda_cub::__fill::functor<double*, double>, unsigned long>(thrust::cuda_cub::__fill::functor<double*, double>, unsigned long)",
               [2000, 1, 1], [256, 1, 1], 1864, 95e3, 0.85, 1.0, 1.0, 0.0, 0.0, we=1.0, gips_frac=0.05, rank_scale=scale),
        kernel("_Z19ComputeEOS_kernel<&eos_table>", "ComputeEOS_kernel<&eos_table, \"ideal\">(double*)",
               [256, 1, 1], [64, 1, 1], 932, 60e3, 0.1, 3.0, 2.0, 0.15, 0.8, we=0.5, gips_frac=0.1, rank_scale=scale),
        kernel("_Z20CommSendPack_kernelPdPKii", "CommSendPack_kernel(double*, int const*, int)",
               [64, 1, 1], [256, 1, 1], 466, 35e3, 0, 0, 0, 0, 0, profiled=0, rank_scale=scale),
    ]
    return {
        "schema": "gpuproj-profile/1",
        "tool": {"name": "gpuproj", "version": "0.1.0"},
        "attributes": {"origin": "test fixture", "created": "2025-06-0%dT10:00:00Z" % (rank + 1),
                       "citation": "synthetic numbers shaped like LULESH -s 80 on a V100 PCIe; not a measurement"},
        "device": {"name": "Tesla V100-PCIE-16GB", "chip": "GV100", "cc": "7.0", "sms": 80, "clock_hz": 1.38e9},
        "process": {"application": "lulesh2.0", "host": "node0%d" % (rank + 1), "pid": 4242 + rank, "rank": rank,
                    "argv": ["./lulesh2.0", "-s", "80", "-i", "932"]},
        "run": {"wall_ns": 9.8e9 * scale, "gpu_ns": None, "dropped_records": 0},
        "kernels": ks,
    }

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
for r, s in ((0, 1.0), (1, 1.07)):
    with open(OUT + "/report-rank%d.json" % r, "w") as f:
        json.dump(profile(r, s), f, indent=1)
        f.write("\n")
