#!/usr/bin/env bash
# Install what gpuproj needs to build and test: Debian/Ubuntu packages with
# apt-get, or RHEL/Rocky/Alma packages with dnf (EPEL and CRB enabled for
# the few only they carry), then NVIDIA's wheels from PyPI. Idempotent:
# installs only what is missing. Needs root (or sudo) when something is
# missing; otherwise prints the command to run.
#
# Usage: setup-deps.sh [--print]
#   --print  print the commands it would run, one per line, and run none
#            (nothing is installed, downloaded or written)
# GPUPROJ_PKG_MANAGER=apt|dnf chooses the package manager instead of
# looking for apt-get (with dpkg-query) first, then dnf (with rpm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

print=0
case "${1:-}" in
"") ;;
--print | -n) print=1 ;;
-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "setup-deps: unknown option '$1' (--print shows what it would do)" >&2; exit 2 ;;
esac

# Run a command, or with --print show it.
run() {
	if [ "$print" = 1 ]; then
		printf '%s\n' "$*"
	else
		"$@"
	fi
}

# What gpuproj needs: per line the Debian package and the RHEL/Rocky one
# ("-": none needed there). clang and its runtime (libclang-rt-dev,
# compiler-rt: libFuzzer, the sanitizers) build the fuzzers of tests/fuzz
# (docs/internals/fuzzing.md); RHEL's python3 has venv built in. On RHEL 9
# and its rebuilds libcsv-devel, plplot-devel and chromium come from EPEL,
# meson, ninja-build and check-devel from CRB (docs/install.md).
DEPS="
meson              meson
ninja-build        ninja-build
pkg-config         pkgconf-pkg-config
gcc                gcc
g++                gcc-c++
python3            python3
python3-pip        python3-pip
python3-venv       -
libyaml-dev        libyaml-devel
libjansson-dev     jansson-devel
libcsv-dev         libcsv-devel
libsqlite3-dev     sqlite-devel
check              check-devel
valgrind           valgrind
libplplot-dev      plplot-devel
chromium           chromium
libzstd-dev        libzstd-devel
liblz4-dev         lz4-devel
clang              clang
libclang-rt-dev    compiler-rt
"

manager=${GPUPROJ_PKG_MANAGER:-}
if [ -z "$manager" ]; then
	if command -v apt-get >/dev/null 2>&1 && command -v dpkg-query >/dev/null 2>&1; then
		manager=apt
	elif command -v dnf >/dev/null 2>&1 && command -v rpm >/dev/null 2>&1; then
		manager=dnf
	fi
fi
case "$manager" in
apt) column=1 ;;
dnf) column=2 ;;
*)
	echo "setup-deps: neither apt-get nor dnf here: install by hand the equivalents of" \
		"these Debian packages:" $(echo "$DEPS" | awk 'NF {print $1}') >&2
	exit 1
	;;
esac
packages=()
while read -r deb rpm; do
	[ -n "$deb" ] || continue
	name=$deb
	[ "$column" = 2 ] && name=$rpm
	[ "$name" = - ] || packages+=("$name")
done <<< "$DEPS"

installed() {
	if [ "$manager" = apt ]; then
		dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"
	else
		rpm -q "$1" >/dev/null 2>&1
	fi
}
missing=()
for p in "${packages[@]}"; do
	installed "$p" || missing+=("$p")
done

# As root, or through sudo; without either, say what to run and stop.
as_root_cmd=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		as_root_cmd=(sudo)
	elif [ ${#missing[@]} -ne 0 ] && [ "$print" = 0 ]; then
		if [ "$manager" = apt ]; then
			echo "setup-deps: run as root: apt-get install -y ${missing[*]}" >&2
		else
			echo "setup-deps: run as root: dnf install -y ${missing[*]}" >&2
		fi
		exit 1
	fi
fi

# System packages first: the wheels below need python3 and pip.
if [ ${#missing[@]} -ne 0 ]; then
	[ "$print" = 1 ] || echo "setup-deps: installing ${missing[*]}" >&2
	if [ "$manager" = apt ]; then
		# sudo resets the environment: pass DEBIAN_FRONTEND through env(1).
		apt_get=("${as_root_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
		run "${apt_get[@]}" update -qq
		if [ "$print" = 1 ]; then
			run "${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}"
		else
			"${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
		fi
	else
		# EPEL and CRB (RHEL 9 rebuilds) for what only they carry.
		if ! installed epel-release; then
			run "${as_root_cmd[@]}" dnf install -y -q epel-release
		fi
		if ! installed dnf-plugins-core; then
			run "${as_root_cmd[@]}" dnf install -y -q dnf-plugins-core
		fi
		run "${as_root_cmd[@]}" dnf config-manager --set-enabled crb
		run "${as_root_cmd[@]}" dnf install -y -q "${missing[@]}"
	fi
fi

# Debian's python3 is "externally managed" (PEP 668): pip refuses to install
# the NVIDIA wheels below without this (older pip ignores it).
export PIP_BREAK_SYSTEM_PACKAGES=1

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
	if [ "$print" = 1 ]; then
		run python3 -m pip install -q "$NVDISASM_WHEEL"
	else
		echo "setup-deps: installing nvdisasm from PyPI ($NVDISASM_WHEEL)" >&2
		python3 -m pip install -q "$NVDISASM_WHEEL" >&2 ||
			echo "setup-deps: could not install $NVDISASM_WHEEL; SASS tests will skip" >&2
	fi
fi

# ---- CUDA 12/11 tools for sm_70 (optional; GPUPROJ_LEGACY_CUDA=0 skips it) ----
# CUDA 13 (nvcc, ptxas, nvJitLink, nvdisasm 13.x) dropped sm_70/sm_72 (Volta).
# The sm_70 tests compile with NVIDIA's CUDA 12 NVRTC wheel (90 MB, plus the
# CUDA 12 headers of the runtime wheel, 3.5 MB) and disassemble with nvdisasm
# 11.8 from Debian's non-free nvidia-cuda-toolkit package (84 MB), unpacked,
# not installed (only bin/nvdisasm and bin/ptxas, 68 MB), into
# LEGACY_CUDA_DIR, where gpuproj and the tests look without configuration
# (docs/sass.md). Enables contrib/non-free for Debian if apt cannot see the
# package, on the archives the machine's apt sources already name
# (scripts/apt-nonfree.py). About 15 s the first time, then nothing.
# Failure prints one line and continues: the sm_70 tests then skip saying
# what is missing.
NVRTC12_WHEELS=("nvidia-cuda-nvrtc-cu12==12.9.86" "nvidia-cuda-runtime-cu12==12.9.79")
LEGACY_CUDA_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/gpuproj/legacy-cuda"
have_nvrtc12() {
	python3 -c 'import importlib.util,os,sys; s=importlib.util.find_spec("nvidia"); \
sys.exit(0 if s and any(os.path.exists(os.path.join(p,"cuda_nvrtc","lib","libnvrtc.so.12")) \
and os.path.exists(os.path.join(p,"cuda_runtime","include","cuda_fp16.h")) \
for p in s.submodule_search_locations) else 1)' 2>/dev/null
}
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
		echo "needs root for: $*"; return 1; fi
}
# Prints why on failure (errexit does not apply here: every step is checked).
fetch_legacy_cuda() (
	tmp=$(mktemp -d) || return 1
	trap 'rm -rf "$tmp"' EXIT
	cd "$tmp" || return 1
	candidate() { apt-cache policy nvidia-cuda-toolkit 2>/dev/null | awk '/Candidate:/ {print $2}'; }
	case "$(candidate)" in
	"" | "(none)")
		codename=$(. /etc/os-release && [ "${ID:-}" = debian ] && echo "${VERSION_CODENAME:-}")
		[ -n "$codename" ] || { echo "apt has no nvidia-cuda-toolkit and this is not Debian"; return 1; }
		# contrib and non-free from the archives the machine's apt sources
		# already use (any mirror or proxy), never a hard-coded host.
		python3 "$here/apt-nonfree.py" "$codename" > nonfree.sources 2> why.txt ||
			{ cat why.txt; return 1; }
		as_root install -m 644 nonfree.sources /etc/apt/sources.list.d/gpuproj-nonfree.sources ||
			return 1
		as_root apt-get update -qq >/dev/null 2>&1 || { echo "apt-get update failed"; return 1; }
		;;
	esac
	apt-get download -qq nvidia-cuda-toolkit >/dev/null 2>&1 ||
		{ echo "apt-get download nvidia-cuda-toolkit failed"; return 1; }
	mkdir -p x && dpkg-deb --fsys-tarfile nvidia-cuda-toolkit_*.deb |
		tar -x -C x ./usr/bin/nvdisasm ./usr/bin/ptxas 2>&1 || { echo "unpacking failed"; return 1; }
	x/usr/bin/nvdisasm --help 2>/dev/null | grep -q "'SM70'" ||
		{ echo "its nvdisasm lacks sm_70"; return 1; }
	rm -rf "$LEGACY_CUDA_DIR.new" && mkdir -p "$LEGACY_CUDA_DIR.new" &&
		mv x/usr/bin "$LEGACY_CUDA_DIR.new/bin" &&
		dpkg-deb -f nvidia-cuda-toolkit_*.deb Version > "$LEGACY_CUDA_DIR.new/VERSION" &&
		rm -rf "$LEGACY_CUDA_DIR" && mv "$LEGACY_CUDA_DIR.new" "$LEGACY_CUDA_DIR" ||
		{ echo "cannot write $LEGACY_CUDA_DIR"; return 1; }
)
if [ "${GPUPROJ_LEGACY_CUDA:-1}" != 0 ] && [ "$print" = 1 ]; then
	have_nvrtc12 || run python3 -m pip install -q "${NVRTC12_WHEELS[@]}"
	if [ "$manager" = apt ] && { [ ! -x "$LEGACY_CUDA_DIR/bin/nvdisasm" ] ||
	   [ ! -x "$LEGACY_CUDA_DIR/bin/ptxas" ]; }; then
		run apt-get download nvidia-cuda-toolkit
		echo "# unpack its usr/bin/nvdisasm and usr/bin/ptxas into $LEGACY_CUDA_DIR/bin"
	fi
elif [ "${GPUPROJ_LEGACY_CUDA:-1}" != 0 ] && [ "$manager" = dnf ]; then
	# nvdisasm 11.8 comes from Debian's non-free archive: not on dnf systems.
	have_nvrtc12 || python3 -m pip install -q "${NVRTC12_WHEELS[@]}" >/dev/null 2>&1 ||
		echo "setup-deps: could not install ${NVRTC12_WHEELS[*]}; the sm_70 SASS tests will skip" >&2
	[ -x "$LEGACY_CUDA_DIR/bin/nvdisasm" ] ||
		echo "setup-deps: no nvdisasm 11.8 for sm_70 on a dnf system (it comes from Debian's non-free archive); the sm_70 SASS tests will skip" >&2
elif [ "${GPUPROJ_LEGACY_CUDA:-1}" != 0 ]; then
	if ! have_nvrtc12 || [ ! -x "$LEGACY_CUDA_DIR/bin/nvdisasm" ]; then
		echo "setup-deps: fetching the sm_70 tools (NVRTC 12 wheels, nvdisasm 11.8 from a .deb; up to ~180 MB)" >&2
	fi
	if ! have_nvrtc12; then
		python3 -m pip install -q "${NVRTC12_WHEELS[@]}" >/dev/null 2>&1 ||
			echo "setup-deps: could not install ${NVRTC12_WHEELS[*]}; the sm_70 SASS tests will skip" >&2
	fi
	if [ ! -x "$LEGACY_CUDA_DIR/bin/nvdisasm" ] || [ ! -x "$LEGACY_CUDA_DIR/bin/ptxas" ]; then
		why=$(fetch_legacy_cuda 2>&1 | tail -n 1) && [ -x "$LEGACY_CUDA_DIR/bin/nvdisasm" ] ||
			echo "setup-deps: no nvdisasm for sm_70 in $LEGACY_CUDA_DIR (${why:-failed}); the sm_70 SASS tests will skip" >&2
	fi
fi

# ---- CUPTI headers of each CUDA 13 release (optional; GPUPROJ_CUPTI_HEADERS=0 skips it) ----
# tests/inject/check-cupti-records.py holds gpuproj's kernel record layouts,
# and the test double's, to the cupti_activity.h and cupti_version.h of each
# CUPTI release: one per record layout (Kernel10 to Kernel13, 13.2 and 13.5
# too) and 13.0 GA (the toolkit here is 13.0 Update 1). From NVIDIA's
# nvidia-cuda-cupti wheels (pip download, ~12 MB each), of which only
# include/ is kept (1.4 MB each), in CUPTI_HEADERS_DIR/<version>/include.
# About 70 MB the first time, then nothing. Failure prints one line and
# continues: that test then skips saying what is missing.
CUPTI_HEADER_VERSIONS=(13.0.48 13.1.115 13.2.86 13.3.75 13.4.92 13.5.25)
CUPTI_HEADERS_DIR="${GPUPROJ_CUPTI_HEADERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gpuproj/cupti-headers}"
# Prints why on failure.
fetch_cupti_headers() (
	v=$1
	tmp=$(mktemp -d) || return 1
	trap 'rm -rf "$tmp"' EXIT
	python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "nvidia-cuda-cupti==$v" \
		>/dev/null 2>&1 || { echo "pip download nvidia-cuda-cupti==$v failed"; return 1; }
	rm -rf "$CUPTI_HEADERS_DIR/$v.new" && mkdir -p "$CUPTI_HEADERS_DIR/$v.new" ||
		{ echo "cannot write $CUPTI_HEADERS_DIR"; return 1; }
	python3 - "$tmp" "$CUPTI_HEADERS_DIR/$v.new/include" <<'PY' ||
import glob, os, sys, zipfile
wheels = glob.glob(os.path.join(sys.argv[1], "nvidia_cuda_cupti-*.whl"))
if len(wheels) != 1:
    sys.exit("no nvidia-cuda-cupti wheel downloaded")
prefix, dest = "nvidia/cu13/include/", sys.argv[2]
with zipfile.ZipFile(wheels[0]) as z:
    for m in z.infolist():
        rel = m.filename[len(prefix):]
        if not m.filename.startswith(prefix) or m.is_dir() or ".." in rel.split("/"):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        with z.open(m) as src, open(os.path.join(dest, rel), "wb") as out:
            out.write(src.read())
if not all(os.path.exists(os.path.join(dest, h)) for h in ("cupti_activity.h", "cupti_version.h")):
    sys.exit("the wheel has no " + prefix + "cupti_activity.h")
PY
		{ rm -rf "$CUPTI_HEADERS_DIR/$v.new"; return 1; }
	rm -rf "${CUPTI_HEADERS_DIR:?}/$v" && mv "$CUPTI_HEADERS_DIR/$v.new" "$CUPTI_HEADERS_DIR/$v" ||
		{ echo "cannot write $CUPTI_HEADERS_DIR/$v"; return 1; }
)
if [ "${GPUPROJ_CUPTI_HEADERS:-1}" != 0 ]; then
	for v in "${CUPTI_HEADER_VERSIONS[@]}"; do
		[ -f "$CUPTI_HEADERS_DIR/$v/include/cupti_activity.h" ] && continue
		if [ "$print" = 1 ]; then
			run python3 -m pip download -q --no-deps --only-binary=:all: "nvidia-cuda-cupti==$v"
			continue
		fi
		echo "setup-deps: fetching the CUPTI $v headers (nvidia-cuda-cupti wheel, ~12 MB; include/ kept)" >&2
		why=$(fetch_cupti_headers "$v" 2>&1 | tail -n 1) &&
			[ -f "$CUPTI_HEADERS_DIR/$v/include/cupti_activity.h" ] ||
			echo "setup-deps: no CUPTI $v headers in $CUPTI_HEADERS_DIR (${why:-failed}); check-cupti-records checks the others or skips" >&2
	done
fi
