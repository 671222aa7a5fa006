#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fuzz-nsys seed: tests/data/nsys/basic.sql as an SQLite file of 512-byte pages.

Usage: gen-nsys-seed.py BASIC.sql OUT.sqlite (built, never committed: the
fuzzer mutates the bytes of a real database; small pages keep it small).
"""
import os
import sqlite3
import sys

sql, out = sys.argv[1], sys.argv[2]
if os.path.exists(out):
    os.remove(out)
con = sqlite3.connect(out)
con.execute("PRAGMA page_size = 512")
with open(sql, encoding="utf-8") as f:
    con.executescript(f.read())
con.execute("VACUUM")
con.close()
