#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draw a `gpuproj project --format trace` file as a static HTML page.

Usage: trace-html.py TRACE.json -o PAGE.html [--window FROM_US:TO_US] [--title TEXT]

A small viewer of gpuproj's own, for a look without Perfetto UI (which is
the place to explore a trace: open ui.perfetto.dev and drop the file on it,
docs/formats/trace.md): one lane per track, tracks grouped by process (the
source GPU first, then each target), every complete event a rectangle
coloured by its category (pattern, host, call, kernel, copy, memset,
carried_work, carried), on one time axis in microseconds. --window draws only what
overlaps [FROM, TO] µs (the patterns' first epochs are where the detail
is). The page is SVG and CSS only: no script, no network.

Python's standard library only.
"""
import argparse
import html
import json
import sys

COLOURS = {
    "pattern": "#c8ccd4", "host": "#9ecae1", "call": "#3182bd", "kernel": "#31a354",
    "copy": "#fd8d3c", "memset": "#9e9ac8", "carried_work": "#a1d99b", "carried": "#de2d26",
}
LANE_H = 18
LABEL_W = 330
PLOT_W = 1100
TOP = 46


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        sys.exit("%s: not a trace-event JSON object (no traceEvents array)" % path)
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--window", help="FROM_US:TO_US, the time range to draw")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    doc = load(a.trace)
    events = doc["traceEvents"]
    pnames, tnames, tsort = {}, {}, {}
    for e in events:
        if e.get("ph") != "M":
            continue
        key = (e["pid"], e.get("tid", 0))
        if e["name"] == "process_name":
            pnames[e["pid"]] = e["args"]["name"]
        elif e["name"] == "thread_name":
            tnames[key] = e["args"]["name"]
        elif e["name"] == "thread_sort_index":
            tsort[key] = e["args"]["sort_index"]
    xs = [e for e in events if e.get("ph") == "X"]
    if not xs:
        sys.exit("%s: no complete events" % a.trace)
    lo, hi = 0.0, max(e["ts"] + e["dur"] for e in xs)
    if a.window:
        try:
            f, t = (float(v) for v in a.window.split(":"))
        except ValueError:
            sys.exit("--window must be FROM_US:TO_US, not %r" % a.window)
        if not t > f:
            sys.exit("--window: TO must be after FROM")
        lo, hi = f, t
        xs = [e for e in xs if e["ts"] < hi and e["ts"] + e["dur"] > lo]
    lanes = sorted({(e["pid"], e["tid"]) for e in xs},
                   key=lambda k: (k[0], tsort.get(k, k[1])))
    # One header row per process, then its lanes.
    row, n = {}, 0
    for k in lanes:
        if k[0] not in row:
            row[k[0]] = n
            n += 1
        row[k] = n
        n += 1
    height = TOP + LANE_H * n + 30
    scale = PLOT_W / (hi - lo)
    out = []
    title = a.title or "gpuproj trace: %s" % doc.get("otherData", {}).get("profile", a.trace)
    out.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<title>%s</title><style>body{font:12px sans-serif;margin:12px}"
               "text{font:11px sans-serif}.p{font-weight:bold}</style></head><body>"
               % html.escape(title))
    out.append("<h3 style=\"margin:0 0 4px\">%s</h3>" % html.escape(title))
    out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">"
               % (LABEL_W + PLOT_W + 20, height))
    # Legend and axis.
    x = LABEL_W
    for cat, col in COLOURS.items():
        out.append("<rect x=\"%d\" y=\"4\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"14\">%s</text>" % (x, col, x + 16, cat))
        x += 90
    for i in range(6):
        tx = LABEL_W + PLOT_W * i / 5
        out.append("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%.6g us</text>"
                   % (tx, TOP - 6, tx, height - 24, tx, TOP - 10,
                      "end" if i == 5 else "start" if i == 0 else "middle",
                      lo + (hi - lo) * i / 5))
    last_pid = None
    for k in lanes:
        if k[0] != last_pid:
            y = TOP + row[k[0]] * LANE_H
            out.append("<line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>"
                       "<text class=\"p\" x=\"2\" y=\"%d\">%s</text>"
                       % (y, LABEL_W + PLOT_W, y, y + 13,
                          html.escape(pnames.get(k[0], "pid %d" % k[0]))))
            last_pid = k[0]
        y = TOP + row[k] * LANE_H
        out.append("<text x=\"14\" y=\"%d\">%s</text>"
                   % (y + 12, html.escape(tnames.get(k, "tid %d" % k[1]))[:52]))
    for e in xs:
        y = TOP + row[(e["pid"], e["tid"])] * LANE_H + 2
        x0 = LABEL_W + max(e["ts"] - lo, 0) * scale
        x1 = LABEL_W + min(e["ts"] + e["dur"] - lo, hi - lo) * scale
        w = max(x1 - x0, 0.6)
        out.append("<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
                   "<title>%s</title></rect>"
                   % (x0, y, w, LANE_H - 4, COLOURS.get(e.get("cat"), "#999"),
                      html.escape("%s: %.3f us at %.3f us" % (e["name"], e["dur"], e["ts"]))))
    out.append("</svg><p>%d events drawn of %d; drawn by scripts/trace-html.py (open the file "
               "in ui.perfetto.dev to explore it).</p></body></html>" % (len(xs), len(events)))
    with open(a.output, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
