#!/usr/bin/env bash
# Install what gpuproj needs to build and test, from Debian's packages.
# Idempotent: installs only what is missing. Needs root (or sudo) when
# something is missing; otherwise prints the command to run.
set -euo pipefail

packages=(meson ninja-build pkg-config gcc g++ python3 libyaml-dev libjansson-dev
	libcsv-dev check valgrind libplplot-dev chromium libzstd-dev liblz4-dev)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing+=("$p")
	fi
done

# nvdisasm (SASS analysis, benchmark checks): the CUDA toolkit's, or NVIDIA's
# PyPI wheel where the toolkit lacks it.
NVDISASM_WHEEL="nvidia-cuda-nvdisasm==13.5.37"
have_nvdisasm() {
	command -v nvdisasm >/dev/null 2>&1 && return 0
	[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvdisasm" ] && return 0
	python3 -c 'import importlib.util,os,sys; s=importlib.util.find_spec("nvidia"); \
sys.exit(0 if s and any(os.path.exists(os.path.join(p,"cu13","bin","nvdisasm")) \
for p in s.submodule_search_locations) else 1)' 2>/dev/null
}
if ! have_nvdisasm; then
	echo "setup-deps: installing nvdisasm from PyPI ($NVDISASM_WHEEL)" >&2
	python3 -m pip install -q "$NVDISASM_WHEEL" >&2 ||
		echo "setup-deps: could not install $NVDISASM_WHEEL; SASS tests will skip" >&2
fi

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

echo "setup-deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
	apt_get=(apt-get)
elif command -v sudo >/dev/null 2>&1; then
	apt_get=(sudo apt-get)
else
	echo "setup-deps: run as root: apt-get install -y ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${apt_get[@]}" update -qq
"${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
