#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/setup-deps.sh --print on made-up machines: apt, dnf, neither.

Each case runs the script with PATH holding only a few real tools and
fakes of the package tools (dpkg-query, apt-get, rpm, dnf, sudo, id: a
user who is not root and has sudo), so the result does not depend on
this machine. --print must show exactly the commands it would run and
run none (the fake apt-get and dnf record any call; none may come).
The wheel and header steps are off (GPUPROJ_LEGACY_CUDA=0,
GPUPROJ_CUPTI_HEADERS=0; a fake nvdisasm is on PATH).

Usage: test-setup-deps.py SOURCE_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
SCRIPT = os.path.join(ROOT, "scripts", "setup-deps.sh")
REAL = ["bash", "sh", "env", "grep", "awk", "sed", "dirname", "cat", "tail", "head", "python3",
        "tr", "mktemp", "rm"]
DEB = ("meson ninja-build pkg-config gcc g++ python3 python3-pip python3-venv libyaml-dev "
       "libjansson-dev libcsv-dev libsqlite3-dev check valgrind libplplot-dev chromium "
       "libzstd-dev liblz4-dev clang libclang-rt-dev")
# gcc and python3 are installed on the dnf machine; python3-venv has no RPM of its own.
RPM_MISSING = ("meson ninja-build pkgconf-pkg-config gcc-c++ python3-pip libyaml-devel "
               "jansson-devel libcsv-devel sqlite-devel check-devel valgrind plplot-devel "
               "chromium libzstd-devel lz4-devel clang compiler-rt")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def machine(tools):
    """A bin directory: the real tools of REAL plus fakes {name: shell body}."""
    d = tempfile.mkdtemp(prefix="gpuproj-setup-deps-")
    bindir = os.path.join(d, "bin")
    os.mkdir(bindir)
    for name in REAL:
        path = shutil.which(name)
        if path:
            os.symlink(path, os.path.join(bindir, name))
    fakes = {"id": 'echo 1000', "sudo": 'exec "$@"', "nvdisasm": "exit 0"}
    fakes.update(tools)
    for name, body in fakes.items():
        with open(os.path.join(bindir, name), "w") as f:
            f.write("#!/bin/sh\n%s\n" % body)
        os.chmod(os.path.join(bindir, name), 0o755)
    return d, bindir


def run(bindir, *args, env=None):
    e = {"PATH": bindir, "HOME": os.path.dirname(bindir), "GPUPROJ_LEGACY_CUDA": "0",
         "GPUPROJ_CUPTI_HEADERS": "0"}
    e.update(env or {})
    p = subprocess.run([shutil.which("bash"), SCRIPT] + list(args), env=e,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def ran(d):
    return os.path.exists(os.path.join(d, "ran"))


# A package tool that must not run under --print records its call.
RECORD = 'echo "$0 $*" >> "$HOME/ran"; exit 1'

# Debian, nothing installed.
d, b = machine({"dpkg-query": "exit 1", "apt-get": RECORD})
rc, out, err = run(b, "--print")
check(rc == 0, "apt --print: exit %d: %s" % (rc, err))
want = ("sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq\n"
        "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
        "--no-install-recommends " + DEB + "\n")
check(out == want, "apt --print printed:\n%s\nwanted:\n%s" % (out, want))
check(not ran(d), "apt --print ran a package tool")
shutil.rmtree(d)

# Debian, everything installed: nothing to do, nothing printed.
d, b = machine({"dpkg-query": "echo 'install ok installed'", "apt-get": RECORD})
rc, out, err = run(b, "--print")
check(rc == 0 and out == "", "apt, all installed: exit %d, printed %r" % (rc, out))
shutil.rmtree(d)

# RHEL/Rocky: gcc, python3 and dnf-plugins-core installed, EPEL not yet.
RPM = ('case "$2" in gcc|python3|dnf-plugins-core) exit 0;; *) exit 1;; esac')
d, b = machine({"rpm": RPM, "dnf": RECORD})
rc, out, err = run(b, "--print")
check(rc == 0, "dnf --print: exit %d: %s" % (rc, err))
want = ("sudo dnf install -y -q epel-release\n"
        "sudo dnf config-manager --set-enabled crb\n"
        "sudo dnf install -y -q " + RPM_MISSING + "\n")
check(out == want, "dnf --print printed:\n%s\nwanted:\n%s" % (out, want))
check(not ran(d), "dnf --print ran a package tool")
# The same machine named with GPUPROJ_PKG_MANAGER, and apt tools present too.
with open(os.path.join(b, "apt-get"), "w") as f:
    f.write("#!/bin/sh\n%s\n" % RECORD)
os.chmod(os.path.join(b, "apt-get"), 0o755)
with open(os.path.join(b, "dpkg-query"), "w") as f:
    f.write("#!/bin/sh\nexit 1\n")
os.chmod(os.path.join(b, "dpkg-query"), 0o755)
rc, out2, err = run(b, "--print", env={"GPUPROJ_PKG_MANAGER": "dnf"})
check(rc == 0 and out2 == want, "GPUPROJ_PKG_MANAGER=dnf printed:\n%s" % out2)
shutil.rmtree(d)

# Neither: exit 1 and what to install by hand.
d, b = machine({})
rc, out, err = run(b, "--print")
check(rc == 1, "no manager: exit %d" % rc)
check(err == "setup-deps: neither apt-get nor dnf here: install by hand the equivalents of "
      "these Debian packages: " + DEB + "\n", "no manager: %r" % err)
shutil.rmtree(d)

# A wrong option: exit 2.
d, b = machine({"dpkg-query": "exit 1", "apt-get": RECORD})
rc, out, err = run(b, "--bogus")
check(rc == 2 and err == "setup-deps: unknown option '--bogus' (--print shows what it would "
      "do)\n", "bad option: exit %d, %r" % (rc, err))
check(not ran(d), "a bad option ran a package tool")
shutil.rmtree(d)

if failures:
    sys.exit(1)
print("setup-deps.sh --print: apt, dnf, all installed, neither, bad option: OK")
