#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/apt-nonfree.py on sample apt sources in both formats.

The stanza setup-deps.sh installs to reach Debian's non-free component must
use the URIs of the machine's own apt sources (any mirror), never a fixed
host. Checked here on made-up mirrors (example.org and friends):
- one-line sources.list and sources.list.d/*.list: options in brackets,
  signed-by kept, deb-src, comments, cdrom, other suites and duplicates
  left out;
- deb822 *.sources: several URIs, comments inside a stanza, Enabled: no,
  an inline Signed-By key over several lines, the file setup-deps.sh writes
  itself ignored;
- nothing usable: exit 1 naming what was read.
Where apt-get exists, apt itself parses each result (`apt-get update
--print-uris` with the result as its only source: prints the index URIs
it would fetch, fetches nothing) and must want non-free from every URI.

Usage: test-apt-nonfree.py SOURCE_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

ONE_LINE = """\
# a comment
deb http://mirror.example.org/debian bookworm main
deb-src http://mirror.example.org/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] https://proxy.example.net/debian/ bookworm main contrib
deb http://mirror.example.org/debian-security bookworm-security main
deb http://mirror.example.org/debian bookworm-updates main
# deb http://disabled.example.org/debian bookworm main
deb cdrom:[Debian GNU/Linux 12]/ bookworm main
deb [ signed-by=/etc/apt/keyrings/local.gpg ] http://local.example.org/debian bookworm main
"""

EXTRA_LIST = "deb http://mirror.example.org/debian/ bookworm main non-free-firmware\n"

DEB822 = """\
Types: deb
# a comment inside the stanza
URIs: http://mirror.example.org/debian http://backup.example.com/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: http://off.example.org/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb
URIs: http://inline.example.org/debian
Suites: bookworm
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGNvdGFrZXk
 -----END PGP PUBLIC KEY BLOCK-----

Types: deb
URIs: http://mirror.example.org/debian-security
Suites: bookworm-security
Components: main
"""

OWN = """\
Types: deb
URIs: http://stale.example.org/debian
Suites: bookworm
Components: contrib non-free
"""

WANT_ONE_LINE = """\
Types: deb
URIs: http://mirror.example.org/debian
Suites: bookworm
Components: contrib non-free

Types: deb
URIs: https://proxy.example.net/debian/
Suites: bookworm
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://local.example.org/debian
Suites: bookworm
Components: contrib non-free
Signed-By: /etc/apt/keyrings/local.gpg
"""

WANT_DEB822 = """\
Types: deb
URIs: http://mirror.example.org/debian
Suites: bookworm
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://backup.example.com/debian
Suites: bookworm
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://inline.example.org/debian
Suites: bookworm
Components: contrib non-free
Signed-By:\x20
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGNvdGFrZXk
 -----END PGP PUBLIC KEY BLOCK-----
"""

failures = 0


def check(cond, what):
    global failures
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures += 1


def make_root(files):
    root = tempfile.mkdtemp(prefix="apt-nonfree.")
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return root


def run(script, root, codename="bookworm"):
    return subprocess.run([sys.executable, script, "--root", root, codename],
                          capture_output=True, text=True)


def apt_parses(stanzas, n_uris):
    """apt-get reads the stanzas and wants non-free from each URI."""
    if not shutil.which("apt-get"):
        print("skip: no apt-get to parse the result")
        return True
    tmp = tempfile.mkdtemp(prefix="apt-parts.")
    try:
        os.makedirs(os.path.join(tmp, "parts"))
        os.makedirs(os.path.join(tmp, "lists", "partial"))
        with open(os.path.join(tmp, "parts", "gpuproj-nonfree.sources"), "w") as f:
            f.write(stanzas)
        r = subprocess.run(["apt-get", "-o", "Dir::Etc::SourceList=/dev/null",
                            "-o", "Dir::Etc::SourceParts=" + os.path.join(tmp, "parts"),
                            "-o", "Dir::State::Lists=" + os.path.join(tmp, "lists"),
                            "-o", "Debug::NoLocking=1", "update", "--print-uris"],
                           capture_output=True, text=True, timeout=60)
        wanted = {line.split("'")[1].split("/dists/")[0] for line in r.stdout.splitlines()
                  if "/dists/bookworm/non-free/binary-" in line}
        if r.returncode != 0 or len(wanted) != n_uris:
            print(r.stdout + r.stderr)
        return r.returncode == 0 and len(wanted) == n_uris
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    script = os.path.join(sys.argv[1], "scripts", "apt-nonfree.py")

    root = make_root({"etc/apt/sources.list": ONE_LINE,
                      "etc/apt/sources.list.d/extra.list": EXTRA_LIST})
    r = run(script, root)
    check(r.returncode == 0 and r.stdout == WANT_ONE_LINE,
          "one-line format: the release suite's URIs, options and duplicates handled")
    if r.stdout != WANT_ONE_LINE:
        print(r.stdout + r.stderr)
    check(apt_parses(r.stdout, 3), "apt reads the one-line result (3 URIs)")
    shutil.rmtree(root)

    root = make_root({"etc/apt/sources.list.d/debian.sources": DEB822,
                      "etc/apt/sources.list.d/gpuproj-nonfree.sources": OWN})
    r = run(script, root)
    check(r.returncode == 0 and r.stdout == WANT_DEB822,
          "deb822 format: several URIs, Enabled: no, inline key, own file ignored")
    if r.stdout != WANT_DEB822:
        print(r.stdout + r.stderr)
    check(apt_parses(r.stdout, 3), "apt reads the deb822 result (3 URIs)")
    r = run(script, root, "trixie")
    check(r.returncode == 1 and "no enabled 'deb' entry for suite trixie in" in r.stderr
          and "debian.sources" in r.stderr and r.stdout == "",
          "another release: exit 1 naming the files read")
    shutil.rmtree(root)

    root = make_root({})
    r = run(script, root)
    check(r.returncode == 1 and "no sources file" in r.stderr, "no sources: exit 1")
    shutil.rmtree(root)

    r = subprocess.run([sys.executable, script], capture_output=True, text=True)
    check(r.returncode == 2 and "usage:" in r.stderr, "no codename: exit 2")

    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
