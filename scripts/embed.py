#!/usr/bin/env python3
"""Turn a data file into a C source defining a NUL-terminated byte array.

usage: embed.py INPUT OUTPUT SYMBOL

Defines `const char SYMBOL[]` (the bytes plus a terminating NUL, as a string
literal with octal escapes) and
`const size_t SYMBOL_len` (the byte count without the NUL). Used by meson to
compile targets.yaml and the default profile into the core library.
"""
import sys


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    src, dst, sym = sys.argv[1:]
    with open(src, "rb") as f:
        data = f.read()
    # A string literal with octal escapes: no sign-conversion warnings, and
    # the compiler adds the terminating NUL.
    out, line = [], []
    width = 0
    for b in data:
        c = chr(b)
        if c in '"\\?':
            piece = "\\" + c
        elif 32 <= b < 127:
            piece = c
        else:
            piece = "\\%03o" % b
        line.append(piece)
        width += len(piece)
        if b == 10 or width > 100:
            out.append('\t"' + "".join(line) + '"')
            line, width = [], 0
    if line:
        out.append('\t"' + "".join(line) + '"')
    if not out:
        out.append('\t""')
    with open(dst, "w") as f:
        f.write("/* Generated from %s by scripts/embed.py; do not edit. */\n" % src)
        f.write("#include <stddef.h>\n")
        # One long literal is intended; gcc and clang accept any length.
        f.write("#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n")
        f.write("extern const char %s[];\nextern const size_t %s_len;\n" % (sym, sym))
        f.write("const char %s[] =\n%s;\n" % (sym, "\n".join(out)))
        f.write("const size_t %s_len = %d;\n" % (sym, len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
