#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The style check of .ci/run and the 'style' meson test.

Rules (docs/internals/coding-style.md "Layout", .editorconfig):

  * C, C++ and CUDA files (.c .h .cpp .cu): at most 100 columns, a tab
    counting to the next multiple of 8; indentation is tabs, then at most
    7 spaces of alignment (never a space before a tab);
  * every text file the repository tracks: no trailing whitespace, a final
    newline;
  * every commit after BASE: a subject of at most 72 characters.

BASE is the commit the rules started at. The 1,147 lines of C over 100
columns it already had (in 150 files) are kept while their text is
unchanged (found by text, so a line moved to another file stays kept); a
line that is new or edited must fit. `--all` reports those lines too: what a reformatting pass
would wrap. Fixtures (tests/data, the fuzz seeds, regressions and
dictionaries) are other tools' bytes and are not checked.

Prints `FILE:LINE:COLUMN: message` per problem and a summary line; exit
status 0 when there is none, 1 otherwise, 2 on bad usage, 77 (meson's
"skipped") when ROOT is not a git checkout. Without BASE in the clone (a
shallow one) the kept lines cannot be told, so every long line is
reported, and the commit subjects are not checked: it says so.
"""
import argparse
import os
import subprocess
import sys

BASE = "090af3e"
COLUMNS = 100
TAB = 8
SUBJECT = 72
C_LIKE = (".c", ".h", ".cpp", ".cu")
NOT_CHECKED = ("tests/data/", "tests/fuzz/seeds/", "tests/fuzz/regressions/",
               "tests/fuzz/dict/")


def git(root, *args, data=None):
    """Output of a git command in root (bytes), or None when it fails."""
    try:
        r = subprocess.run(["git", "-C", root] + list(args), input=data,
                           capture_output=True, check=False)
    except OSError:
        return None
    return r.stdout if r.returncode == 0 else None


def width(line):
    """Columns of a line: a tab to the next multiple of TAB."""
    col = 0
    for ch in line:
        col = (col // TAB + 1) * TAB if ch == "\t" else col + 1
    return col


def checked(path):
    return not path.startswith(NOT_CHECKED)


def base_long_lines(root, base):
    """The text of every C-like line over COLUMNS at base, or None."""
    names = git(root, "ls-tree", "-r", "--name-only", base)
    if names is None:
        return None
    paths = [p for p in names.decode().split("\n") if p.endswith(C_LIKE) and checked(p)]
    out = git(root, "cat-file", "--batch",
              data="".join("%s:%s\n" % (base, p) for p in paths).encode())
    if out is None:
        return None
    kept, pos = set(), 0
    while pos < len(out):
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if len(header) < 3 or header[1] != b"blob":
            continue
        size = int(header[2])
        for line in out[pos:pos + size].decode("utf-8", "replace").split("\n"):
            if width(line) > COLUMNS:
                kept.add(line)
        pos += size + 1
    return kept


def check_file(root, path, kept, all_lines, problems):
    """Append the problems of one file; return how many long lines were kept."""
    try:
        with open(os.path.join(root, path), "rb") as f:
            data = f.read()
    except OSError as e:
        problems.append("%s:0:0: cannot read: %s" % (path, e.strerror))
        return 0
    if b"\0" in data:
        return 0
    text = data.decode("utf-8", "replace")
    c_like = path.endswith(C_LIKE)
    n_kept = 0
    lines = text.split("\n")
    for no, line in enumerate(lines[:-1] if text.endswith("\n") else lines, 1):
        stripped = line.rstrip(" \t\r\f\v")
        if stripped != line:
            problems.append("%s:%d:%d: trailing whitespace" % (path, no, len(stripped) + 1))
        if not c_like:
            continue
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        spaces = len(indent) - len(indent.rstrip(" "))
        if " \t" in indent:
            problems.append("%s:%d:1: indentation: a space before a tab (tabs indent, "
                            "spaces only align)" % (path, no))
        elif spaces >= TAB and line.strip():
            problems.append("%s:%d:1: indentation: %d spaces (tabs indent, at most %d "
                            "spaces align)" % (path, no, spaces, TAB - 1))
        w = width(line)
        if w > COLUMNS:
            if not all_lines and kept is not None and line in kept:
                n_kept += 1
                continue
            problems.append("%s:%d:%d: %d columns (tab %d), over %d"
                            % (path, no, COLUMNS + 1, w, TAB, COLUMNS))
    if text and not text.endswith("\n"):
        problems.append("%s:%d:%d: no newline at the end of the file"
                        % (path, len(lines), len(lines[-1]) + 1))
    return n_kept


def check_subjects(root, base, problems):
    """Append the commits after base whose subject is too long; return their count."""
    out = git(root, "log", "--format=%h%x09%s", "%s..HEAD" % base)
    if out is None:
        return None
    commits = [c for c in out.decode("utf-8", "replace").split("\n") if c]
    for c in commits:
        sha, _, subject = c.partition("\t")
        if len(subject) > SUBJECT:
            problems.append("commit %s: subject of %d characters, over %d: %s"
                            % (sha, len(subject), SUBJECT, subject))
    return len(commits)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   ".."), help="the checkout (default: ..)")
    ap.add_argument("--base", default=BASE, help="the commit the rules start at (%s)" % BASE)
    ap.add_argument("--all", action="store_true",
                    help="also the lines over %d columns that BASE already had" % COLUMNS)
    ap.add_argument("files", nargs="*", help="only these files (default: all tracked)")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    problems, notes = [], []

    listed = git(root, "ls-files", "-z")
    if args.files:
        files = args.files
    elif listed is not None:
        files = [p for p in listed.decode().split("\0") if p]
    else:
        print("style-check: %s is not a git checkout: nothing to check" % root)
        return 77
    files = [p for p in files if checked(p) and os.path.isfile(os.path.join(root, p))]
    have_base = git(root, "rev-parse", "--verify", "--quiet", args.base + "^{commit}")
    kept = None
    if not args.all:
        kept = base_long_lines(root, args.base) if have_base else None
        if kept is None:
            notes.append("base %s is not in this clone: every line over %d columns is "
                         "reported" % (args.base, COLUMNS))
    n_kept = sum(check_file(root, p, kept, args.all, problems) for p in files)
    n_commits = check_subjects(root, args.base, problems) if have_base else None
    if n_commits is None:
        notes.append("base %s is not in this clone: commit subjects not checked" % args.base)
    for p in problems:
        print(p)
    for n in notes:
        print("style-check: note: " + n)
    summary = "%d files, %s commits after %s" % (
        len(files), "?" if n_commits is None else n_commits, args.base)
    if n_kept:
        summary += "; %d lines over %d columns kept from %s" % (n_kept, COLUMNS, args.base)
    if problems:
        print("style-check: %d problems (%s)" % (len(problems), summary))
        return 1
    print("style-check: ok (%s)" % summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
