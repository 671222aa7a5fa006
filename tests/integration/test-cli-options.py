#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every command's options are spelled three times: its getopt table
(src/cli/cmd-<command>.c), its --help text and its page docs/cli/
gpuproj-<command>.md. This test ties them: each long option of a
command's getopt tables appears in its --help (the command's and its
subcommands', `gpuproj import ncu --help`, …) and on its page; each option
the help lists, or the page's and the help's usage lines for the command
give, is in its getopt tables. A failure names the command and the option.

`--help` itself is on every command's help and getopt table; the pages
leave it to docs/cli/gpuproj.md ("`gpuproj <command> --help` describes
each command"), which this test checks says so. `--max-input-size` is the
option of gpuproj itself (main.c), before the command.

The short options too: each letter of a command's getopt_long optstring
(but -h) is in its --help and on its page, and a help line "-X, --NAME"
names an entry of its getopt table whose value is 'X'. And the one table
of docs/cli/gpuproj.md, command x {-o, --format, -q, --progress}: a row
per command, saying "yes" (or naming the formats) exactly where the
command's getopt tables have output, format, quiet and progress, the
formats those of its format_names[].

Usage: test-cli-options.py GPUPROJ SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

GLOBAL = {"max-input-size"}
OPTION = re.compile(r"--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")
TABLE = re.compile(r"struct option\s+\w+\s*\[\]\s*=\s*\{(.*?)\};", re.S)
ENTRY = re.compile(r"\{\s*\"([a-z0-9-]+)\"\s*,\s*(?:no|required|optional)_argument")
# An option line of a help text: indented, an optional short option, the long one.
HELP_LINE = re.compile(r"^ {1,8}(?:-\w, +)?--([a-z][a-z0-9-]*)")


def run(gpuproj, *args):
    r = subprocess.run([gpuproj] + list(args), capture_output=True, text=True,
                       env=dict(os.environ, GPUPROJ_TARGETS=""))
    return r.returncode, r.stdout


def commands(gpuproj):
    """The commands `gpuproj --help` lists."""
    status, out = run(gpuproj, "--help")
    assert status == 0, "gpuproj --help: status %d" % status
    names, inside = [], False
    for line in out.split("\n"):
        if line.startswith("Commands:"):
            inside = True
        elif inside and not line.strip():
            break
        elif inside and re.match(r"^  \S", line):  # deeper lines: its verbs, sources
            names.append(line.split()[0])
    assert names, "gpuproj --help lists no command"
    return names


def helps(gpuproj, cmd):
    """The help of a command, then of each subcommand with a help of its own."""
    status, out = run(gpuproj, cmd, "--help")
    assert status == 0, "gpuproj %s --help: status %d" % (cmd, status)
    texts = [out]
    for line in out.split("\n"):
        m = re.match(r"\s*(?:Usage:)?\s*gpuproj %s ([a-z][a-z0-9-]*)\b" % re.escape(cmd), line)
        if not m:
            continue
        status, sub = run(gpuproj, cmd, m.group(1), "--help")
        if status == 0 and sub != out and sub not in texts:
            texts.append(sub)
    return texts


def usage_options(text, cmd):
    """The options on lines that run the command: `gpuproj CMD ...` (usage, examples)."""
    found = set()
    for line in text.split("\n"):
        m = re.match(r"\s*(?:Usage:|\$)?\s*gpuproj (?:--max-input-size \S+ )?%s\b(.*)"
                     % re.escape(cmd), line)
        if m:
            found.update(OPTION.findall(m.group(1).split("#")[0]))
    return found


OPTSTRING = re.compile(r'getopt_long\(argc, argv, "([^"]*)"')
SHORT_ENTRY = re.compile(r"\{\s*\"([a-z0-9-]+)\"\s*,\s*(?:no|required|optional)_argument\s*,"
                         r"\s*NULL\s*,\s*'(.)'")
SHORT_HELP = re.compile(r"^ {1,8}-(\w), +--([a-z][a-z0-9-]*)")
MATRIX_HEAD = "| command | `-o FILE` | `--format` | `-q` | `--progress` |"


def short_problems(cmd, text, shared_src, texts, page, page_path):
    """The short options of a command: optstring, --help and page agree."""
    problems = []
    letters = set()
    for optstring in OPTSTRING.findall(text):
        letters |= {ch for ch in optstring if ch.isalnum()}
    entries = dict(SHORT_ENTRY.findall(text))
    if "cli_options(" in text or "cli_quiet_options(" in text:
        entries.update(SHORT_ENTRY.findall(shared_src))
    helptext = "\n".join(texts)
    for ch in sorted(letters - {"h"}):
        if not re.search(r"(?<![\w-])-%s\b" % ch, helptext):
            problems.append("%s: -%s is in its optstring but not in its --help" % (cmd, ch))
        if not re.search(r"(?<![\w-])-%s\b" % ch, page):
            problems.append("%s: -%s is in its optstring but not on %s" % (cmd, ch, page_path))
    for t in texts:
        for line in t.split("\n"):
            m = SHORT_HELP.match(line)
            if not m or m.group(1) == "h":
                continue
            ch, name = m.group(1), m.group(2)
            if entries.get(name) != ch or ch not in letters:
                problems.append("%s: its --help says -%s, --%s; its getopt tables and "
                                "optstring do not" % (cmd, ch, name))
    return problems


def matrix_problems(root, options_of, formats_of):
    """docs/cli/gpuproj.md's table of command x {-o, --format, -q, --progress}."""
    path = os.path.join("docs", "cli", "gpuproj.md")
    with open(os.path.join(root, path), encoding="utf-8") as f:
        text = f.read()
    if MATRIX_HEAD not in text:
        return ["%s: no table '%s'" % (path, MATRIX_HEAD)]
    rows = {}
    for line in text.split(MATRIX_HEAD, 1)[1].split("\n")[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.match(r"`([a-z0-9-]+)`$", cells[0])
        if m and len(cells) >= 5:
            rows[m.group(1)] = cells[1:5]
    problems = []
    for cmd in sorted(set(options_of) - set(rows)):
        problems.append("%s: no row for %s in its option table" % (path, cmd))
    for cmd in sorted(set(rows) - set(options_of)):
        problems.append("%s: a row for %s, which is no command" % (path, cmd))
    for cmd in sorted(set(rows) & set(options_of)):
        for cell, name in zip(rows[cmd], ["output", "format", "quiet", "progress"]):
            says = not cell.startswith("no")
            if says != (name in options_of[cmd]):
                problems.append("%s: %s's --%s cell says '%s'; its getopt table %s it"
                                % (path, cmd, name, cell,
                                   "has" if name in options_of[cmd] else "has not"))
        listed = re.findall(r"`([a-z0-9-]+)`", rows[cmd][1].split("(")[0])
        if formats_of.get(cmd) and listed != formats_of[cmd]:
            problems.append("%s: %s's formats are %s there, %s in its format_names[]"
                            % (path, cmd, listed, formats_of[cmd]))
    return problems


def listing_problems(gpuproj, root):
    """`gpuproj --help` lists every command (a src/cli/cmd-NAME.c each), every
    source of `gpuproj import` (its sources[] table in cmd-import.c) and every verb of
    `gpuproj targets` (its verbs[] table)."""
    problems = []
    status, out = run(gpuproj, "--help")
    listed = commands(gpuproj)
    for name in sorted(os.listdir(os.path.join(root, "src", "cli"))):
        m = re.match(r"cmd-([a-z0-9-]+)\.c$", name)
        if m and m.group(1) not in listed:
            problems.append("gpuproj --help does not list the command %s (src/cli/%s)"
                            % (m.group(1), name))
    with open(os.path.join(root, "src", "cli", "cmd-import.c"), encoding="utf-8") as f:
        src = f.read()
    table = re.search(r"\} sources\[\] = \{(.*?)\n\};", src, re.S)
    sources = re.findall(r'\{ "([a-z0-9-]+)", TOOL_', table.group(1)) if table else []
    if not sources:
        problems.append("src/cli/cmd-import.c: no sources[] table found")
    with open(os.path.join(root, "src", "cli", "cmd-targets.c"), encoding="utf-8") as f:
        verbs = re.findall(r'"([a-z]+)(?: [A-Z]+)?"', re.search(
            r"verbs\[\] = \{([^}]*)\}", f.read()).group(1))
    block = out.split("Commands:", 1)[1].split("\n\n", 1)[0]
    words = set(re.findall(r"[a-z0-9-]+", block))
    for name in sources + verbs:
        if name not in words:
            problems.append("gpuproj --help does not list '%s' (import sources, targets verbs)"
                            % name)
    if len(sources) < 8 or "derive" not in verbs:
        problems.append("expected the 8 import sources and targets derive; found %s, %s"
                        % (sources, verbs))
    return problems


def main():
    gpuproj, root = sys.argv[1], sys.argv[2]
    problems, checked = [], 0
    with open(os.path.join(root, "docs", "cli", "gpuproj.md"), encoding="utf-8") as f:
        if "`gpuproj <command> --help` describes each command" not in f.read():
            problems.append("docs/cli/gpuproj.md: does not say that `gpuproj <command> "
                            "--help` describes each command")
    with open(os.path.join(root, "src", "cli", "cli-common.c"), encoding="utf-8") as f:
        shared_src = f.read()
    options_of, formats_of = {}, {}
    for cmd in commands(gpuproj):
        src = os.path.join(root, "src", "cli", "cmd-%s.c" % cmd)
        page_path = os.path.join("docs", "cli", "gpuproj-%s.md" % cmd)
        with open(src, encoding="utf-8") as f:
            text = f.read()
        tables = TABLE.findall(text)
        getopt = {name for t in tables for name in ENTRY.findall(t)}
        # cli_options(own) adds the shared table of cli-common.c; cli_quiet_options(own)
        # its first entry, -q/--quiet.
        shared = [name for t in TABLE.findall(shared_src) for name in ENTRY.findall(t)]
        if "cli_options(" in text:
            getopt |= set(shared)
        if "cli_quiet_options(" in text:
            getopt |= set(shared[:1])
        if not getopt:
            problems.append("%s: no getopt table in %s" % (cmd, src))
            continue
        options_of[cmd] = getopt
        names = re.search(r"format_names\[\] = \{([^}]*)\}", text)
        if names:
            formats_of[cmd] = re.findall(r'"([a-z0-9-]+)"', names.group(1))
        texts = helps(gpuproj, cmd)
        in_help = {o for t in texts for o in OPTION.findall(t)}
        listed = {m.group(1) for t in texts for line in t.split("\n")
                  for m in [HELP_LINE.match(line)] if m}
        with open(os.path.join(root, page_path), encoding="utf-8") as f:
            page = f.read()
        on_page = set(OPTION.findall(page))
        for o in sorted(getopt):
            checked += 1
            if o not in in_help:
                problems.append("%s: --%s is in its getopt table but not in its --help"
                                % (cmd, o))
            if o != "help" and o not in on_page:
                problems.append("%s: --%s is in its getopt table but not on %s"
                                % (cmd, o, page_path))
        for o in sorted(listed - getopt - GLOBAL):
            problems.append("%s: --%s is an option its --help lists, not in its getopt table"
                            % (cmd, o))
        problems += short_problems(cmd, text, shared_src, texts, page, page_path)
        for where, usage in [("--help", "\n".join(texts)), (page_path, page)]:
            for o in sorted(usage_options(usage, cmd) - getopt - GLOBAL):
                problems.append("%s: --%s is on a `gpuproj %s` line of %s, not in its getopt "
                                "table" % (cmd, o, cmd, where))
    problems += matrix_problems(root, options_of, formats_of)
    problems += listing_problems(gpuproj, root)
    for p in problems:
        print(p)
    print("%d commands, %d options checked, %d problems" % (len(commands(gpuproj)), checked,
                                                          len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
