#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/style-check.py on a scratch repository: a base commit with a
long line, then a commit that moves it to another file (kept: its text is
unchanged) and adds one of each problem. The exact report is checked, and
that --all reports the kept line too.

Usage: test-style-check.py SOURCE_ROOT; exit 77 (skipped) without git.
"""
import os
import shutil
import subprocess
import sys
import tempfile

LONG = "\tint x; /* " + "y" * 79 + " */"          # 8 + 10 + 79 + 3 = 100 columns: fits
LONGER = "\tint z; /* " + "w" * 80 + " */"        # 101 columns
SUBJECT = "area: a subject of seventy-three characters, one more than the limit, xyz"


def git(repo, *args):
    subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t",
                    "-c", "commit.gpgsign=false"] + list(args), check=True,
                   capture_output=True)


def write(repo, path, text):
    with open(os.path.join(repo, path), "w", encoding="utf-8", newline="") as f:
        f.write(text)


def main():
    script = os.path.join(sys.argv[1], "scripts", "style-check.py")
    if not shutil.which("git"):
        print("SKIP: no git")
        return 77
    assert len(SUBJECT) == 73
    repo = tempfile.mkdtemp(prefix="style-check-")
    try:
        git(repo, "init", "-q")
        write(repo, "old.c", "int a;\n%s\n" % LONGER)
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", "base")
        base = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
        os.remove(os.path.join(repo, "old.c"))
        write(repo, "moved.c", "%s\n%s\n" % (LONGER, LONG))
        write(repo, "new.c", "int b; \n%s;\n\t \tint c;\n\t        int d;\n        int e;\n"
              "\t       int f; /* 7 spaces align */\n  * comment\nint g;"
              % LONGER.replace("z", "q"))
        write(repo, "notes.md", "text  \nmore\n")
        write(repo, "data.bin", "a\0b  \n")
        os.makedirs(os.path.join(repo, "tests", "data"))
        write(repo, "tests/data/export.csv", "a, \n")
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", SUBJECT)
        r = subprocess.run([sys.executable, script, "--root", repo, "--base", base],
                           capture_output=True, text=True)
        sha = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], check=True,
                             capture_output=True, text=True).stdout.strip()
        want = [
            "new.c:1:7: trailing whitespace",
            "new.c:2:101: 102 columns (tab 8), over 100",
            "new.c:3:1: indentation: a space before a tab (tabs indent, spaces only align)",
            "new.c:4:1: indentation: 8 spaces (tabs indent, at most 7 spaces align)",
            "new.c:5:1: indentation: 8 spaces (tabs indent, at most 7 spaces align)",
            "new.c:8:7: no newline at the end of the file",
            "notes.md:1:5: trailing whitespace",
            "commit %s: subject of 73 characters, over 72: %s" % (sha, SUBJECT),
            "style-check: 8 problems (4 files, 1 commits after %s; 1 lines over 100 columns "
            "kept from %s)" % (base, base),
        ]
        got = r.stdout.split("\n")[:-1]
        ok = r.returncode == 1 and got == want
        if not ok:
            print("status %d, got:\n%s\nwant:\n%s" % (r.returncode, r.stdout, "\n".join(want)))
        r2 = subprocess.run([sys.executable, script, "--root", repo, "--base", base, "--all"],
                            capture_output=True, text=True)
        kept = "moved.c:1:101: 101 columns (tab 8), over 100"
        if kept not in r2.stdout.split("\n") or "style-check: 9 problems" not in r2.stdout:
            print("--all: got:\n%s" % r2.stdout)
            ok = False
        plain = tempfile.mkdtemp(prefix="style-check-plain-")
        r3 = subprocess.run([sys.executable, script, "--root", plain], capture_output=True,
                            text=True)
        os.rmdir(plain)
        if r3.returncode != 77 or "is not a git checkout: nothing to check" not in r3.stdout:
            print("outside git: status %d: %s" % (r3.returncode, r3.stdout))
            ok = False
        print("ok" if ok else "FAIL")
        return 0 if ok else 1
    finally:
        shutil.rmtree(repo)


if __name__ == "__main__":
    sys.exit(main())
