#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the documentation's links: every relative link names a file of the
tree, and every #anchor a heading of the page it points to.

Usage: scripts/check-doc-links.py [REPO_ROOT]

1. Every Markdown link [text](target) of README.md, CONTRIBUTING.md and
   docs/**/*.md that is not a URL must name a file or directory that
   exists (relative to the page), and its #anchor, if any, a heading of
   that page as GitHub names it (lower case, punctuation dropped, spaces
   to hyphens, "-1", "-2"... for repeats).
2. Every path docs/<page>.md written out in those pages, in the sources
   (src/, inject/, include/, tests/, scripts/) and in the build files
   must exist, so that a citation such as `docs/models.md "Intervals"`
   does not outlive a move.

Links inside fenced code blocks and code spans are not links. Prints one
line per broken link, FILE:LINE: problem, and exits 1 when there is one.
"""

import os
import re
import sys
import unicodedata

LINK = re.compile(r'(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^()\s]+)(?:\s+"[^"]*")?\)')
DOC_PATH = re.compile(r'(?<![\w/.-])docs/[\w./-]*?\.md\b')


def strip_code(line, in_fence):
    """The line without code spans, and whether a fence is open after it."""
    if line.lstrip().startswith('```'):
        return '', not in_fence
    if in_fence:
        return '', in_fence
    return re.sub(r'(`+)(?:(?!\1).)*?\1', '', line), in_fence


def anchor(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # links: their text
    text = text.strip().lower()
    out = []
    for ch in text:
        if ch in ' -_':
            out.append('-' if ch == ' ' else ch)
        elif unicodedata.category(ch)[0] in 'LN':
            out.append(ch)
    return ''.join(out)


def anchors(path, cache={}):
    if path not in cache:
        seen, names = {}, set()
        in_fence = False
        with open(path, encoding='utf-8') as f:
            for line in f:
                if line.lstrip().startswith('```'):
                    in_fence = not in_fence
                    continue
                m = None if in_fence else re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
                if m:
                    a = anchor(m.group(1))
                    n = seen.get(a, 0)
                    seen[a] = n + 1
                    names.add(a if n == 0 else '%s-%d' % (a, n))
        cache[path] = names
    return cache[path]


def pages(root):
    out = [os.path.join(root, n) for n in ('README.md', 'CONTRIBUTING.md')]
    for d, _, files in os.walk(os.path.join(root, 'docs')):
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith('.md')]
    return [p for p in out if os.path.isfile(p)]


def sources(root):
    out = [os.path.join(root, n) for n in ('meson.build', 'meson_options.txt', '.ci/run')]
    for top in ('src', 'inject', 'include', 'tests', 'scripts'):
        for d, _, files in os.walk(os.path.join(root, top)):
            if '/data' in d[len(root):] or '/regressions' in d[len(root):]:
                continue
            out += [os.path.join(d, f) for f in sorted(files)
                    if os.path.splitext(f)[1] in ('.c', '.h', '.cpp', '.cu', '.py', '.sh', '')
                    or f == 'meson.build']
    return [p for p in out if os.path.isfile(p)]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), '..'))
    bad = 0
    n_links = n_paths = 0
    for page in pages(root):
        rel = os.path.relpath(page, root)
        in_fence = False
        with open(page, encoding='utf-8') as f:
            for no, raw in enumerate(f, 1):
                line, in_fence = strip_code(raw, in_fence)
                for m in LINK.finditer(line):
                    target = m.group(2)
                    if re.match(r'[a-z][a-z0-9+.-]*:', target):
                        continue
                    n_links += 1
                    path, _, frag = target.partition('#')
                    dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) \
                        if path else page
                    if not os.path.exists(dest):
                        print('%s:%d: link to %s: no such file' % (rel, no, target))
                        bad += 1
                    elif frag and (not dest.endswith('.md') or frag not in anchors(dest)):
                        print('%s:%d: link to %s: no heading #%s in %s'
                              % (rel, no, target, frag, os.path.relpath(dest, root)))
                        bad += 1
    for src in pages(root) + sources(root):
        rel = os.path.relpath(src, root)
        try:
            text = open(src, encoding='utf-8').read()
        except (UnicodeDecodeError, OSError):
            continue
        for no, line in enumerate(text.split('\n'), 1):
            for m in DOC_PATH.finditer(line):
                n_paths += 1
                if not os.path.exists(os.path.join(root, m.group(0))):
                    print('%s:%d: %s: no such file' % (rel, no, m.group(0)))
                    bad += 1
    print('%d links, %d docs/ paths checked, %d broken' % (n_links, n_paths, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
