# SPDX-License-Identifier: MIT
# A Spack recipe for gpuproj (docs/install.md): `spack repo add ./spack`,
# then build this checkout with `spack dev-build gpuproj@main` in it (or
# `spack develop` in an environment). tests/integration/test-spack-recipe.py
# holds its dependencies to meson.build's and its variants to
# meson_options.txt.

from spack.package import *


class Gpuproj(MesonPackage):
    """Project CUDA kernel times measured on one GPU onto other GPUs: a CUPTI
    injection profiler (libproj.so) and the gpuproj command (projections,
    whole-run timelines, Nsight Compute and Nsight Systems imports,
    procurement reports, CI performance gates)."""

    # No release is published yet: build a checkout (see the top).
    version("main")

    license("MIT")

    variant("cupti", default=True,
            description="libproj.so, the CUPTI injection profiler (needs the CUDA toolkit)")
    variant("charts", default=True, description="charts of `gpuproj report` (PLplot)")
    variant("nsys", default=True,
            description="`gpuproj import nsys`: Nsight Systems SQLite exports (SQLite)")

    depends_on("c", type="build")
    depends_on("cxx", type="build", when="+cupti")
    depends_on("meson@1.0:", type="build")
    depends_on("ninja", type="build")
    depends_on("pkgconfig", type="build")
    # scripts/embed.py compiles targets.yaml and the data files in.
    depends_on("python@3:", type="build")

    depends_on("libyaml")
    depends_on("jansson@2.12:")
    depends_on("libcsv")
    depends_on("zstd")
    depends_on("lz4")
    depends_on("check@0.13:", type="test")
    depends_on("plplot", when="+charts")
    depends_on("cuda", when="+cupti")
    depends_on("sqlite@3.36:", when="+nsys")

    def setup_build_environment(self, env):
        # inject/find-cupti.py looks for the CUPTI headers under $CUDA_HOME.
        if self.spec.satisfies("+cupti"):
            env.set("CUDA_HOME", self.spec["cuda"].prefix)

    def meson_args(self):
        def feature(name):
            return "-D%s=%s" % (name, "enabled" if self.spec.satisfies("+" + name)
                                else "disabled")

        return [
            feature("cupti"),
            feature("charts"),
            feature("nsys"),
            "-Dtests=%s" % ("enabled" if self.run_tests else "disabled"),
        ]
