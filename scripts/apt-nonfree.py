#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print an apt sources stanza that adds Debian's contrib and non-free
components from the archives this machine already uses.

scripts/setup-deps.sh needs non-free (nvidia-cuda-toolkit, for the sm_70
nvdisasm) on machines whose apt sources list only main. Instead of naming
an archive host, it takes the URIs from the machine's own apt sources, so
it works behind any mirror or proxy the machine is configured for:

- /etc/apt/sources.list and /etc/apt/sources.list.d/*.list, one-line
  format: `deb [opt=value ...] URI SUITE [COMPONENT ...]` (sources.list(5));
- /etc/apt/sources.list.d/*.sources, deb822 stanzas with Types, URIs,
  Suites, Components, Signed-By, Enabled (sources.list(5), "DEB822-STYLE
  FORMAT"); a Signed-By may be a file or an inline key over several lines.

An entry counts when it is enabled, of type `deb` (not deb-src) and serves
the release's own suite (CODENAME exactly: not CODENAME-security, -updates
or -backports, which are other archives or lack the package). Each URI
gets one deb822 stanza with Suites: CODENAME and Components: contrib
non-free; Signed-By is kept as its first entry had it (an entry without
one relies on apt's trusted keys, and so does the stanza).
The file setup-deps.sh writes (gpuproj-nonfree.sources) is not read.

Usage: apt-nonfree.py [--root DIR] CODENAME
  --root DIR  read DIR/etc/apt/... instead of /etc/apt/... (tests)
Exit status: 0 with the stanzas on standard output; 1 when no entry serves
CODENAME (the message says what was read); 2 bad usage.
"""
import glob
import os
import sys

OWN_FILE = "gpuproj-nonfree.sources"


def one_line_entries(path, text):
    """(type, uris, suites, signed_by) of each one-line entry."""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        typ, rest = words[0], words[1:]
        options = {}
        if rest and rest[0].startswith("["):
            # "[a=b c=d]" may be written with blanks inside the brackets.
            opts = []
            while rest:
                w = rest.pop(0)
                opts.append(w)
                if w.endswith("]"):
                    break
            for o in " ".join(opts).strip("[] ").split():
                if "=" in o:
                    k, v = o.split("=", 1)
                    options[k.lower()] = v
        if len(rest) < 2:
            continue
        yield typ, [rest[0]], [rest[1]], options.get("signed-by"), True


def deb822_entries(path, text):
    """(types, uris, suites, signed_by, enabled) of each deb822 stanza."""
    stanzas, fields, key = [], {}, None
    for raw in text.splitlines() + [""]:
        if raw.startswith("#"):
            continue
        if not raw.strip():
            if fields:
                stanzas.append(fields)
            fields, key = {}, None
            continue
        if raw[0] in " \t" and key:
            fields[key] += "\n" + raw
            continue
        if ":" not in raw:
            continue
        key, value = raw.split(":", 1)
        key = key.strip().lower()
        fields[key] = value.strip()
    for f in stanzas:
        enabled = f.get("enabled", "yes").strip().lower() not in ("no", "false", "0")
        signed = f.get("signed-by")
        for typ in f.get("types", "").split():
            yield typ, f.get("uris", "").split(), f.get("suites", "").split(), signed, enabled


def read_sources(root):
    base = os.path.join(root, "etc", "apt")
    files = [os.path.join(base, "sources.list")]
    files += sorted(glob.glob(os.path.join(base, "sources.list.d", "*.list")))
    files += sorted(glob.glob(os.path.join(base, "sources.list.d", "*.sources")))
    read = []
    for path in files:
        if os.path.basename(path) == OWN_FILE or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        read.append(path)
        parse = deb822_entries if path.endswith(".sources") else one_line_entries
        for entry in parse(path, text):
            yield path, entry
    read_sources.files = read


def stanzas(root, codename):
    seen, out = set(), []
    for _path, (typ, uris, suites, signed, enabled) in read_sources(root):
        if not enabled or typ != "deb" or codename not in suites:
            continue
        for uri in uris:
            if uri.startswith("cdrom:"):
                continue
            # One stanza per URI: apt rejects one source with two Signed-By.
            key = uri.rstrip("/")
            if key in seen:
                continue
            seen.add(key)
            lines = ["Types: deb", "URIs: " + uri, "Suites: " + codename,
                     "Components: contrib non-free"]
            if signed:
                lines.append("Signed-By: " + signed)
            out.append("\n".join(lines) + "\n")
    return out


def main(argv):
    root = "/"
    args = argv[1:]
    if len(args) == 3 and args[0] == "--root":
        root, args = args[1], args[2:]
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: apt-nonfree.py [--root DIR] CODENAME", file=sys.stderr)
        return 2
    codename = args[0]
    found = stanzas(root, codename)
    if not found:
        files = getattr(read_sources, "files", []) or ["no sources file"]
        print("no enabled 'deb' entry for suite %s in %s" % (codename, ", ".join(files)),
              file=sys.stderr)
        return 1
    sys.stdout.write("\n".join(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
