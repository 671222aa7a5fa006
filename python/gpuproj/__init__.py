# SPDX-License-Identifier: MIT
"""gpuproj from Python: read its JSON, run its projections.

- ``read_profile(path)``: one row per kernel signature of a profile
  (``gpuproj-profile/1``, docs/formats/profile.md): kernel, name, tag,
  grid, block, device, launches, profiled_launches, mean_ns, min_ns,
  max_ns, stddev_ns, total_ns, then one column per logical metric
  (per-launch means, e.g. ``bytes.dram``).
- ``read_projections(path)``: one row per (kernel, target) of a profile
  written with its projections (``gpuproj project --format json``):
  kernel, name, tag, grid, block, launches, source_ns, target, model
  (the model that projected the row: the run's or its fallback's),
  run_model, status, point_ns, lo_ns, hi_ns, speedup, binding, assumed
  (a tuple of the stated assumptions, () when none), interval,
  interval_gpus, measured_ns, error_pct, why.
- ``read_whole_runs(path)``: one row per target of the same file's
  whole-run projections (``whole_run``; none without a timeline).
- ``project(profile, targets=…, model=…)``: runs ``gpuproj project
  --format json`` and returns ``read_projections()`` of its output.

Every function returns a pandas DataFrame when pandas is importable and
``as_frame`` is not False, else a list of dicts (``as_frame=True``
without pandas is an error). Anything that goes wrong — a file that
cannot be read, JSON that is no gpuproj profile, the command failing —
raises ``GpuprojError`` with the message (the command's own, for its
failures).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

__all__ = ["GpuprojError", "read_profile", "read_projections", "read_whole_runs", "project",
           "__version__"]

PROFILE_SCHEMA = "gpuproj-profile/1"


def _version():
    """The C tool's version: meson.build's beside a source checkout, else the installed one."""
    here = os.path.dirname(os.path.abspath(__file__))
    meson = os.path.join(here, "..", "..", "meson.build")
    try:
        with open(meson, encoding="utf-8") as f:
            m = re.search(r"project\(\s*'gpuproj'.*?version\s*:\s*'([^']+)'", f.read(), re.S)
        if m:
            return m.group(1)
    except OSError:
        pass
    try:
        from importlib.metadata import version
        return version("gpuproj")
    except Exception:  # noqa: BLE001 - no metadata: not installed, no checkout
        return "unknown"


__version__ = _version()


class GpuprojError(Exception):
    """What went wrong, in one line; for a failed command also its exit status and arguments."""

    def __init__(self, message, returncode=None, command=None):
        super().__init__(message)
        self.message = message
        self.returncode = returncode
        self.command = command


def _frame(rows, columns, as_frame):
    if as_frame is False:
        return rows
    try:
        import pandas
    except ImportError:
        if as_frame:
            raise GpuprojError("as_frame=True needs pandas (pip install pandas), "
                               "or pass as_frame=False for lists of dicts")
        return rows
    return pandas.DataFrame(rows, columns=columns)


def _load(path):
    try:
        with open(os.fspath(path), encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise GpuprojError("%s: %s" % (path, e.strerror or e)) from None
    except ValueError as e:
        raise GpuprojError("%s: not JSON: %s" % (path, e)) from None
    if not isinstance(doc, dict) or doc.get("schema") != PROFILE_SCHEMA:
        raise GpuprojError("%s: not a gpuproj profile (schema is not %s)" % (path, PROFILE_SCHEMA))
    kernels = doc.get("kernels")
    if not isinstance(kernels, list):
        raise GpuprojError("%s: a profile without a kernels array" % path)
    return doc


def _dims(v):
    return "x".join(str(int(d)) for d in v) if isinstance(v, list) else None


def _metric(v):
    return v.get("value") if isinstance(v, dict) else v


def _kernel_row(k):
    d = k.get("duration_ns") or {}
    mean = d.get("mean") if d.get("n") else None
    launches = k.get("launches", 0)
    return {
        "kernel": k.get("demangled") or k.get("name"),
        "name": k.get("name"),
        "tag": k.get("tag", ""),
        "grid": _dims(k.get("grid")),
        "block": _dims(k.get("block")),
        "device": k.get("device"),
        "launches": launches,
        "profiled_launches": k.get("profiled_launches", 0),
        "mean_ns": mean,
        "min_ns": d.get("min") if d.get("n") else None,
        "max_ns": d.get("max") if d.get("n") else None,
        "stddev_ns": d.get("stddev") if d.get("n") else None,
        "total_ns": mean * launches if mean is not None else None,
    }


KERNEL_COLUMNS = ["kernel", "name", "tag", "grid", "block", "device", "launches",
                  "profiled_launches", "mean_ns", "min_ns", "max_ns", "stddev_ns", "total_ns"]


def read_profile(path, as_frame=None):
    """One row per kernel signature of the profile at ``path`` (see the module doc)."""
    doc = _load(path)
    rows, metrics = [], []
    for k in doc["kernels"]:
        row = _kernel_row(k)
        for m, v in (k.get("metrics") or {}).items():
            if m not in metrics:
                metrics.append(m)
            row[m] = _metric(v)
        rows.append(row)
    for row in rows:
        for m in metrics:
            row.setdefault(m, None)
    return _frame(rows, KERNEL_COLUMNS + metrics, as_frame)


PROJECTION_COLUMNS = ["kernel", "name", "tag", "grid", "block", "launches", "source_ns",
                      "target", "model", "run_model", "status", "point_ns", "lo_ns", "hi_ns",
                      "speedup", "binding", "assumed", "interval", "interval_gpus",
                      "measured_ns", "error_pct", "why"]


def _projections(doc, path):
    runs = doc.get("projections")
    if not isinstance(runs, list):
        raise GpuprojError("%s: a profile without projections (write it with `gpuproj project "
                           "--format json`)" % path)
    return runs


def _assumed(p):
    """The projection's stated assumptions as a tuple (JSON "assumed": a
    list; () when it states none)."""
    a = p.get("assumed")
    if a is None:
        return ()
    return (a,) if isinstance(a, str) else tuple(a)


def read_projections(path, as_frame=None):
    """One row per (kernel, target) of a profile with projections (see the module doc)."""
    doc = _load(path)
    kernels = doc["kernels"]
    rows = []
    for run in _projections(doc, path):
        target = run.get("target")
        for p in run.get("kernels") or []:
            i = p.get("kernel")
            if not isinstance(i, int) or not 0 <= i < len(kernels):
                raise GpuprojError("%s: a projection names kernel %r, which the profile does "
                                   "not have" % (path, i))
            k = _kernel_row(kernels[i])
            ok = p.get("status") == "ok"
            ref = (kernels[i].get("reference_ns") or {}).get(target) or {}
            measured = ref.get("mean")
            point = p.get("point_ns") if ok else None
            rows.append({
                "kernel": k["kernel"], "name": k["name"], "tag": k["tag"], "grid": k["grid"],
                "block": k["block"], "launches": k["launches"], "source_ns": k["mean_ns"],
                "target": target, "model": p.get("model", run.get("model")),
                "run_model": run.get("model"), "status": p.get("status"),
                "point_ns": point, "lo_ns": p.get("lo_ns") if ok else None,
                "hi_ns": p.get("hi_ns") if ok else None,
                "speedup": k["mean_ns"] / point if point and k["mean_ns"] is not None else None,
                "binding": p.get("binding") if ok else None, "assumed": _assumed(p),
                "interval": p.get("interval"), "interval_gpus": p.get("interval_gpus"),
                "measured_ns": measured,
                "error_pct": (100.0 * (point - measured) / measured
                              if point is not None and measured else None),
                "why": p.get("why_fallback") if ok else p.get("why"),
            })
    return _frame(rows, PROJECTION_COLUMNS, as_frame)


WHOLE_RUN_COLUMNS = ["target", "model", "wall_ns", "lo_ns", "hi_ns", "source_ns", "speedup",
                     "replayed_ns", "carried_ns", "kernel_ns", "copy_ns", "host_ns", "idle_ns",
                     "overlap_ns", "explained", "identity_error", "bound", "bound_ns",
                     "floor_ns", "floored"]


def read_whole_runs(path, as_frame=None):
    """One row per target of the whole-run projections (profiles with a timeline)."""
    doc = _load(path)
    rows = []
    for run in _projections(doc, path):
        w = run.get("whole_run")
        if not isinstance(w, dict):
            continue
        row = {c: w.get(c) for c in WHOLE_RUN_COLUMNS}
        row["target"] = run.get("target")
        row["model"] = run.get("model")
        rows.append(row)
    return _frame(rows, WHOLE_RUN_COLUMNS, as_frame)


def _executable(gpuproj):
    exe = gpuproj or os.environ.get("GPUPROJ_EXE") or shutil.which("gpuproj")
    if not exe:
        raise GpuprojError("the gpuproj command is not on PATH: pass gpuproj=PATH or set "
                           "GPUPROJ_EXE")
    return os.fspath(exe)


def project(profile, targets=None, model=None, *, targets_file=None, source=None,
            gpuproj=None, extra_args=(), as_frame=None):
    """Run ``gpuproj project PROFILE --format json`` and read its projections.

    ``targets``: a GPU name or a list of them (None: every GPU targets.yaml
    lists); ``model``: a model name (None: the default, with its
    fallbacks); ``targets_file``: a targets.yaml (``--targets``);
    ``source``: the source GPU (``--source``); ``gpuproj``: the command
    (else $GPUPROJ_EXE, else PATH); ``extra_args``: more options. Raises
    GpuprojError with the command's message when it fails.
    """
    cmd = [_executable(gpuproj), "project", os.fspath(profile), "--format", "json"]
    if isinstance(targets, str):
        targets = [targets]
    for t in targets or []:
        cmd += ["--target", t]
    if model:
        cmd += ["--model", model]
    if targets_file:
        cmd += ["--targets", os.fspath(targets_file)]
    if source:
        cmd += ["--source", source]
    cmd += list(extra_args)
    with tempfile.TemporaryDirectory(prefix="gpuproj-py-") as tmp:
        out = os.path.join(tmp, "projections.json")
        try:
            r = subprocess.run(cmd + ["-o", out], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        except OSError as e:
            raise GpuprojError("cannot run %s: %s" % (cmd[0], e.strerror or e),
                               command=cmd) from None
        if r.returncode != 0:
            msg = r.stderr.decode("utf-8", "replace").strip().splitlines()
            raise GpuprojError(msg[0] if msg else "gpuproj project failed (exit status %d)"
                               % r.returncode, returncode=r.returncode, command=cmd)
        return read_projections(out, as_frame=as_frame)
