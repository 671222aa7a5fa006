#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Render `gpuproj report` HTML in headless Chromium and check it.

Usage: test-report-chromium.py GPUPROJ_EXE SOURCE_ROOT BUILD_ROOT

Writes the reports of REPORTS — two synthetic LULESH-shaped profiles
(tests/data/report-rank{0,1}.json) with the built-in profile of published
measurements, a profile with tensor work (tests/data/profile-tensor.json),
and where ../shared/validation is beside the checkout a real Nsight
Systems export (CloverLeaf on an A100, imported with `gpuproj import
nsys`) — against the built-in targets (every GPU), opens each in headless
Chromium with the network off at WIDTHS (1,400 and 1,920 CSS px), and
checks through the DevTools protocol (--remote-debugging-pipe, standard
library only):

- the page loads, with no console message of level error/warning, no
  uncaught exception, no <script>, and no request other than the file
  itself (offline flags, and every request is recorded);
- every section is there; the complete targets' ranking and the
  incomplete ones' table hold every target once;
- every chart is an inline <svg> with drawn content: more than
  MIN_ELEMENTS drawing elements, a non-empty bounding box, and non-white
  pixels in its screenshot (decoded here, zlib only); no text of a chart
  runs past its <svg> (a cut legend name or label);
- no table is wider than the page's column (nothing clipped behind a
  scroll bar, the tensor column included);
- the quadrant chart labels H100-SXM5-80GB, H200-SXM-141GB and
  B200-180GB (TEXTS_QUADRANT), and the ranking chart is there;
- the real export gets no empty chart: where its kernels have no counters
  the roofline's place holds the chart of their measured and projected
  times, and no chart is drawn of the GPUs' ceilings alone;
- each chart's screenshot is kept, per report and width, under
  BUILD_ROOT/meson-logs/report-charts/ (the paths are printed), and the
  full page of the first report as BUILD_ROOT/meson-logs/report-
  screenshot.png.

Exits 77 (meson's "skipped") with a message when chromium is absent.
"""
import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

SKIP = 77
MIN_ELEMENTS = 20          # drawing elements per chart (lines, polygons, text)
MIN_INK = 0.01             # fraction of non-white pixels per chart screenshot
WIDTHS = (1400, 1920)      # CSS px of the page viewport
TIMEOUT = 600              # seconds for the whole browser session (174 s seen under load)
SECTIONS = ["summary", "run", "ranking", "profile-1", "disagreement", "assumptions", "sources"]
N_TARGETS = 58             # GPUs in the built-in targets.yaml
# GPUs the quadrant chart must name (it once dropped their labels).
TEXTS_QUADRANT = ("H100-SXM5-80GB", "H200-SXM-141GB", "B200-180GB")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """Chromium driven over --remote-debugging-pipe (fd 3 in, fd 4 out)."""

    def __init__(self, exe, profile_dir):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Move the child's ends above 9 so dup2 onto 3 and 4 cannot clobber them.
        hi_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
        os.close(to_chrome_r)
        os.close(from_chrome_w)

        def child():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-pipe", "--user-data-dir=" + profile_dir,
                # Offline: no proxy lookups, every host unresolvable, no background traffic.
                "--no-proxy-server", "--host-resolver-rules=MAP * ~NOTFOUND",
                "--disable-background-networking", "--disable-component-update",
                "--disable-domain-reliability", "--disable-sync", "--no-first-run",
                "--disable-default-apps", "--disable-extensions", "--mute-audio",
                "--disable-features=Translate,MediaRouter,OptimizationHints",
                "--hide-scrollbars", "about:blank"]
        self.proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=child,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        os.close(hi_r)
        os.close(hi_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.deadline = time.monotonic() + TIMEOUT

    def _read_message(self):
        while b"\0" not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                fail("Chromium did not answer within %d s" % TIMEOUT)
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                err = self.proc.stderr.read().decode(errors="replace")[-2000:]
                fail("Chromium closed the DevTools pipe; its stderr ends with:\n" + err)
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read_message()
            if m.get("id") == self.next_id:
                if "error" in m:
                    fail("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method):
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            m = self._read_message()
            if m.get("method") == method:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.call("Browser.close")
        except SystemExit:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def png_ink(data):
    """Fraction of pixels of a PNG (8-bit RGB/RGBA, non-interlaced) that are not near-white."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("screenshot is not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail("unexpected PNG format (depth %d, colour type %d)" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    ink = total = 0
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        for x in range(0, stride, bpp):
            total += 1
            if min(line[x], line[x + 1], line[x + 2]) < 200:
                ink += 1
        prev = line
    return ink / total if total else 0.0


CHECK_JS = r"""
(() => {
  const charts = [...document.querySelectorAll('figure.chart')].map(f => {
    const svg = f.querySelector('svg');
    const sr = svg ? svg.getBoundingClientRect() : null;
    // Texts that run past the chart (more than 1 px): a cut legend name or label.
    const outside = svg ? [...svg.querySelectorAll('text')].filter(t => {
      const b = t.getBoundingClientRect();
      return b.width > 0 && (b.left < sr.left - 1 || b.right > sr.right + 1 ||
                             b.top < sr.top - 1 || b.bottom > sr.bottom + 1);
    }).map(t => t.textContent) : [];
    return {
      id: f.id,
      svg: !!svg,
      elements: svg ? svg.querySelectorAll('polyline,polygon,path,line,rect,circle,text').length : 0,
      texts: svg ? svg.querySelectorAll('text').length : 0,
      words: svg ? [...svg.querySelectorAll('text')].map(t => t.textContent).join('\n') : '',
      outside: outside,
      caption: (f.querySelector('figcaption') || {}).textContent || '',
      x: sr ? sr.left + window.scrollX : 0, y: sr ? sr.top + window.scrollY : 0,
      width: sr ? sr.width : 0, height: sr ? sr.height : 0,
      bbox: svg ? (() => { const b = svg.getBBox(); return b.width * b.height; })() : 0,
    };
  });
  const wide = [...document.querySelectorAll('.table-wrap')].filter(w =>
    w.scrollWidth > w.clientWidth + 1).map(w => {
      const t = w.querySelector('table');
      return (t && (t.id || t.className)) + ' ' + w.scrollWidth + '>' + w.clientWidth;
    });
  return JSON.stringify({
    title: document.title,
    scripts: document.querySelectorAll('script').length,
    external: [...document.querySelectorAll('[src],link[href]')].map(e => e.src || e.href),
    sections: [...document.querySelectorAll('section[id]')].map(s => s.id),
    rankingRows: document.querySelectorAll('#ranking-combined tbody tr').length,
    incompleteRows: document.querySelectorAll('#incomplete tbody tr').length,
    notes: [...document.querySelectorAll('p.note')].map(p => p.textContent),
    wide: wide,
    charts: charts,
    height: document.documentElement.scrollHeight,
  });
})()
"""


def write_reports(exe, src, work):
    """The reports to render: (name, html path, expected profile sections, real export)."""
    data = os.path.join(src, "tests", "data")
    env = dict(os.environ, GPUPROJ_TARGETS="")
    reports = []
    lulesh = os.path.join(work, "lulesh.html")
    cmd = [exe, "report", os.path.join(data, "report-rank0.json"),
           os.path.join(data, "report-rank1.json"), "--html", lulesh, "--date", "2025-06-01"]
    builtin_ok = subprocess.run([exe, "project", "--builtin"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL).returncode == 0
    if builtin_ok:
        cmd.insert(2, "--builtin")
    runs = [("lulesh", cmd, 3 if builtin_ok else 2, False)]
    tensor = os.path.join(work, "tensor.html")
    runs.append(("tensor", [exe, "report", os.path.join(data, "profile-tensor.json"),
                            "--source", "A100-SXM4-40GB", "--html", tensor,
                            "--date", "2025-06-01"], 1, False))
    validation = os.environ.get("GPUPROJ_VALIDATION_DIR") or os.path.join(
        os.path.dirname(src.rstrip("/")), "shared", "validation")
    sqlite = os.path.join(validation, "nsys", "cloverleaf-a100-nsys2024.5.sqlite")
    if os.path.exists(sqlite):
        prof = os.path.join(work, "cloverleaf.json")
        r = subprocess.run([exe, "import", "nsys", sqlite, "-o", prof], env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail("gpuproj import nsys %s exited %d: %s" % (sqlite, r.returncode, r.stderr))
        runs.append(("cloverleaf", [exe, "report", prof, "--html",
                                    os.path.join(work, "cloverleaf.html"), "--date",
                                    "2025-06-01"], 1, True))
    else:
        print("note: %s is absent: the real Nsight Systems export is not rendered" % sqlite)
    for name, cmd, n_profiles, real in runs:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            if "svg" in r.stderr and "PLplot" in r.stderr:
                print("SKIP: PLplot cannot draw here: " + r.stderr.strip(), file=sys.stderr)
                sys.exit(SKIP)
            if "built without PLplot" in r.stderr:
                print("SKIP: gpuproj was built without PLplot", file=sys.stderr)
                sys.exit(SKIP)
            fail("gpuproj report (%s) exited %d: %s" % (name, r.returncode, r.stderr))
        reports.append((name, cmd[cmd.index("--html") + 1], n_profiles, real))
    return reports


def render(browser, session, html, width, shots, name):
    """Load html at `width`, check nothing, return the page's facts and events."""
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                 session=session)
    url = "file://" + html
    nav = browser.call("Page.navigate", {"url": url}, session=session)
    if nav.get("errorText"):
        fail("navigation failed: " + nav["errorText"])
    browser.wait_event("Page.loadEventFired")
    res = browser.call("Runtime.evaluate", {"expression": CHECK_JS, "returnByValue": True},
                       session=session)
    page = json.loads(res["result"]["value"])
    os.makedirs(shots, exist_ok=True)
    for c in page["charts"]:
        shot = browser.call("Page.captureScreenshot",
                            {"format": "png", "captureBeyondViewport": True,
                             "clip": {"x": c["x"], "y": c["y"], "width": c["width"],
                                      "height": c["height"], "scale": 1}},
                            session=session)
        png = base64.b64decode(shot["data"])
        path = os.path.join(shots, "%s-%s-%d.png" % (name, c["id"], width))
        with open(path, "wb") as f:
            f.write(png)
        c["png"] = path
        small = browser.call("Page.captureScreenshot",
                             {"format": "png", "captureBeyondViewport": True,
                              "clip": {"x": c["x"], "y": c["y"], "width": c["width"],
                                       "height": c["height"], "scale": 0.25}},
                             session=session)
        c["ink"] = png_ink(base64.b64decode(small["data"]))
    return page, url


def check_page(page, name, width, n_profiles, real, problems):
    where = "%s at %d px" % (name, width)
    if page["scripts"]:
        problems.append("%s: the page has %d <script> elements" % (where, page["scripts"]))
    if page["external"]:
        problems.append("%s: external references: %s" % (where, page["external"]))
    if not page["title"].startswith("Projected GPU time"):
        problems.append("%s: unexpected title %r" % (where, page["title"]))
    for s in SECTIONS + ["profile-%d" % (i + 1) for i in range(n_profiles)]:
        if s not in page["sections"]:
            problems.append("%s: section #%s missing (have %s)" % (where, s, page["sections"]))
    if page["rankingRows"] + page["incompleteRows"] != N_TARGETS:
        problems.append("%s: %d ranked and %d incomplete targets, expected %d in all"
                        % (where, page["rankingRows"], page["incompleteRows"], N_TARGETS))
    for w in page["wide"]:
        problems.append("%s: table wider than the page, clipped: %s" % (where, w))
    ids = [c["id"] for c in page["charts"]]
    if "fig-ranking-chart" not in ids:
        problems.append("%s: no ranking chart (have %s)" % (where, ids))
    for c in page["charts"]:
        print("%-10s %4d px %-24s %4d elements %3d texts %4.0fx%-4.0f ink %.3f  %s"
              % (name, width, c["id"], c["elements"], c["texts"], c["width"], c["height"],
                 c["ink"], c["png"]))
        if not c["svg"]:
            problems.append("%s: %s has no inline <svg>" % (where, c["id"]))
        if c["elements"] <= MIN_ELEMENTS or c["texts"] < 5:
            problems.append("%s: %s: too few drawing elements (%d, %d texts)"
                            % (where, c["id"], c["elements"], c["texts"]))
        if c["width"] < 300 or c["height"] < 100 or c["bbox"] <= 0:
            problems.append("%s: %s: empty or tiny (%gx%g)"
                            % (where, c["id"], c["width"], c["height"]))
        if c["ink"] < MIN_INK:
            problems.append("%s: %s: blank screenshot (%.4f of pixels drawn)"
                            % (where, c["id"], c["ink"]))
        if c["outside"]:
            problems.append("%s: %s: text runs past the chart: %s"
                            % (where, c["id"], c["outside"]))
        if c["id"].endswith("-quadrant") and name == "lulesh":
            for gpu in TEXTS_QUADRANT:
                if gpu not in c["words"]:
                    problems.append("%s: %s does not label %s" % (where, c["id"], gpu))
        if "only the ceilings are drawn" in c["caption"] or "no ray is drawn" in c["caption"]:
            problems.append("%s: %s shows nothing measured: %s"
                            % (where, c["id"], c["caption"][:200]))
    if real:
        # No counters in an Nsight Systems export: the measured times are drawn instead.
        if not any(c["id"].startswith("fig-p1-roofline") and "What was measured instead" in
                   c["caption"] for c in page["charts"]):
            problems.append("%s: no chart of the kernels' measured times" % where)
        if any(n.startswith("No roofline") for n in page["notes"]):
            problems.append("%s: a roofline slot is a note, not a chart" % where)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    exe, src, build = (os.path.abspath(a) for a in sys.argv[1:4])
    chromium = find_chromium()
    if not chromium:
        print("SKIP: chromium is not installed (Debian: apt-get install chromium); "
              "the HTML report is not rendered", file=sys.stderr)
        return SKIP

    work = tempfile.mkdtemp(prefix="gpuproj-chromium-")
    reports = write_reports(exe, src, work)
    logs = os.path.join(build, "meson-logs")
    shots = os.path.join(logs, "report-charts")
    problems, urls = [], []

    browser = Browser(chromium, os.path.join(work, "chrome-profile"))
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget",
                               {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.call(domain + ".enable", session=session)
        browser.call("Network.emulateNetworkConditions",
                     {"offline": True, "latency": 0, "downloadThroughput": -1,
                      "uploadThroughput": -1}, session=session)
        first = None
        for name, html, n_profiles, real in reports:
            for width in WIDTHS:
                page, url = render(browser, session, html, width, shots, name)
                urls.append(url)
                check_page(page, name, width, n_profiles, real, problems)
                if first is None:
                    first = (page, html, width)
        # The full page of the first report, kept as the test's artifact.
        page, html, width = first
        browser.call("Page.navigate", {"url": "file://" + html}, session=session)
        browser.wait_event("Page.loadEventFired")
        # An explicit clip: without one, Chromium refused "Page is too large" at
        # 132,684 px tall (it took 125,403; the sources of 58 GPUs make the page that long).
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": int(page["height"]), "deviceScaleFactor": 1,
                      "mobile": False}, session=session)
        shot = browser.call("Page.captureScreenshot",
                            {"format": "png", "captureBeyondViewport": True,
                             "clip": {"x": 0, "y": 0, "width": width,
                                      "height": int(page["height"]), "scale": 1}},
                            session=session)
        os.makedirs(logs, exist_ok=True)
        png = os.path.join(logs, "report-screenshot.png")
        with open(png, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        shutil.copy(html, os.path.join(logs, "report-screenshot.html"))
        print("screenshot: " + png)
        events = list(browser.events)
    finally:
        browser.close()

    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            problems.append("uncaught exception: %s" % p.get("exceptionDetails", {}).get("text"))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            problems.append("console %s: %s" % (p.get("type"), p.get("args")))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
            problems.append("log %s: %s" % (p["entry"]["level"], p["entry"].get("text")))
        elif m == "Network.requestWillBeSent":
            u = p.get("request", {}).get("url", "")
            if u not in urls and not u.startswith("data:") and u != "about:blank":
                problems.append("request left the page: " + u)
        elif m == "Network.loadingFailed":
            problems.append("loading failed: %s" % p.get("errorText"))
    shutil.rmtree(work, ignore_errors=True)
    if problems:
        fail("\n  ".join([""] + problems))
    print("ok: %d reports at %s px, no console errors, no network requests"
          % (len(reports), " and ".join(str(w) for w in WIDTHS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
