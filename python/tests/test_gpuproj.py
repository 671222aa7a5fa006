# SPDX-License-Identifier: MIT
"""The gpuproj Python package (python/gpuproj) against the gpuproj command.

Run from .ci/run in a virtual environment it creates (the package
installed with pip), or by `meson test -C build python-package` from the
source tree. The command is $GPUPROJ_EXE (the build's src/cli/gpuproj);
the fixtures are the repository's tests/data. Tests of DataFrames skip
without pandas; the lists of dicts are tested either way.
"""
import json
import os
import re
import sqlite3
import subprocess

import pytest

import gpuproj

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")
EXE = os.environ.get("GPUPROJ_EXE")

needs_exe = pytest.mark.skipif(not EXE or not os.access(EXE, os.X_OK),
                               reason="GPUPROJ_EXE (the built gpuproj command) is not set")


def meson_version():
    with open(os.path.join(ROOT, "meson.build"), encoding="utf-8") as f:
        return re.search(r"project\(\s*'gpuproj'.*?version\s*:\s*'([^']+)'", f.read(),
                         re.S).group(1)


def test_version_is_the_c_tools():
    assert gpuproj.__version__ == meson_version()


@needs_exe
def test_version_matches_the_command():
    out = subprocess.run([EXE, "--version"], stdout=subprocess.PIPE, check=True).stdout.decode()
    assert gpuproj.__version__ in out


def test_read_profile_rows():
    # tests/data/profile-test.json: what its kernels say, row by row.
    with open(os.path.join(DATA, "profile-test.json"), encoding="utf-8") as f:
        doc = json.load(f)
    rows = gpuproj.read_profile(os.path.join(DATA, "profile-test.json"), as_frame=False)
    assert len(rows) == len(doc["kernels"])
    for row, k in zip(rows, doc["kernels"]):
        assert row["name"] == k["name"]
        assert row["launches"] == k["launches"]
        assert row["grid"] == "x".join(str(v) for v in k["grid"])
        assert row["mean_ns"] == k["duration_ns"]["mean"]
        assert row["total_ns"] == k["duration_ns"]["mean"] * k["launches"]
        for m, v in k.get("metrics", {}).items():
            assert row[m] == (v["value"] if isinstance(v, dict) else v)


def test_bad_files_raise_one_error(tmp_path):
    with pytest.raises(gpuproj.GpuprojError) as e:
        gpuproj.read_profile(tmp_path / "absent.json")
    assert "No such file or directory" in e.value.message
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(gpuproj.GpuprojError) as e:
        gpuproj.read_profile(bad)
    assert e.value.message.startswith("%s: not JSON: " % bad)
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something/1"}')
    with pytest.raises(gpuproj.GpuprojError) as e:
        gpuproj.read_profile(other)
    assert e.value.message == "%s: not a gpuproj profile (schema is not gpuproj-profile/1)" % other
    with pytest.raises(gpuproj.GpuprojError) as e:
        gpuproj.read_projections(os.path.join(DATA, "profile-test.json"))
    assert "a profile without projections" in e.value.message


@needs_exe
def test_project_matches_the_command():
    # The same numbers as `gpuproj project --format json`, one row per (kernel, target).
    prof = os.path.join(DATA, "profile-test.json")
    tfile = os.path.join(DATA, "targets-test.yaml")
    targets = ["TgtGPU", "SrcGPU"]
    rows = gpuproj.project(prof, targets=targets, targets_file=tfile, gpuproj=EXE,
                           as_frame=False)
    out = subprocess.run([EXE, "project", prof, "--format", "json", "--targets", tfile,
                          "--target", targets[0], "--target", targets[1]],
                         stdout=subprocess.PIPE, check=True).stdout
    doc = json.loads(out)
    want = [(r["target"], p) for r in doc["projections"] for p in r["kernels"]]
    assert len(rows) == len(want) == 4
    for row, (target, p) in zip(rows, want):
        assert row["target"] == target
        assert row["status"] == p["status"]
        if p["status"] == "ok":
            assert row["point_ns"] == p["point_ns"]
            assert row["lo_ns"] == p["lo_ns"] and row["hi_ns"] == p["hi_ns"]
            assert row["binding"] == p["binding"]
            assert row["speedup"] == pytest.approx(row["source_ns"] / p["point_ns"], rel=1e-12)


@needs_exe
def test_command_errors_raise_with_its_message():
    tfile = os.path.join(DATA, "targets-test.yaml")
    with pytest.raises(gpuproj.GpuprojError) as e:
        gpuproj.project(os.path.join(DATA, "profile-test.json"), targets="NoSuchGPU",
                        targets_file=tfile, gpuproj=EXE)
    assert e.value.returncode == 2
    assert e.value.message.startswith("gpuproj: target GPU 'NoSuchGPU' is not in targets.yaml")
    with pytest.raises(gpuproj.GpuprojError) as e:
        gpuproj.project(os.path.join(DATA, "profile-test.json"), model="nosuchmodel",
                        gpuproj=EXE)
    assert e.value.returncode == 2
    assert e.value.message == ("gpuproj: project: unknown model 'nosuchmodel' "
                               "(`--model list` lists them)")
    with pytest.raises(gpuproj.GpuprojError) as e:
        gpuproj.project("x.json", gpuproj="/nonexistent/gpuproj")
    assert e.value.message.startswith("cannot run /nonexistent/gpuproj: ")


def nsys_profile(tmp_path):
    """tests/data/nsys/basic.sql imported with `gpuproj import nsys` (None without SQLite)."""
    db = tmp_path / "basic.sqlite"
    con = sqlite3.connect(db)
    with open(os.path.join(DATA, "nsys", "basic.sql"), encoding="utf-8") as f:
        con.executescript(f.read())
    con.close()
    out = tmp_path / "basic.json"
    r = subprocess.run([EXE, "import", "nsys", str(db), "-o", str(out)], stderr=subprocess.PIPE)
    if r.returncode != 0 and b"built without SQLite" in r.stderr:
        return None
    assert r.returncode == 0, r.stderr
    return out


@needs_exe
def test_envelope_rows_say_assumed(tmp_path):
    # Kernels without counters: projected by the envelope, stated per row.
    prof = nsys_profile(tmp_path)
    if prof is None:
        pytest.skip("gpuproj built without SQLite")
    rows = gpuproj.project(prof, targets="H100-PCIe-80GB", gpuproj=EXE, as_frame=False)
    assert len(rows) == 3
    for row in rows:
        assert row["model"] == "envelope"
        assert row["run_model"] == "hroof-occ"
        assert row["assumed"] == ("binding unknown",)
        assert row["binding"] == "unknown"
        assert row["lo_ns"] <= row["point_ns"] <= row["hi_ns"]
    out = tmp_path / "p.json"
    subprocess.run([EXE, "project", str(prof), "--target", "A100-SXM4-40GB", "--format", "json",
                    "-o", str(out)], check=True)
    whole = gpuproj.read_whole_runs(out, as_frame=False)
    assert len(whole) == 1
    # Onto its own GPU the replay gives the recorded 20300 ns back (identity 0).
    assert whole[0]["wall_ns"] == pytest.approx(20300, rel=1e-12)
    assert whole[0]["identity_error"] == pytest.approx(0, abs=1e-12)
    # The floor: the main thread's stream, 9800 + 2 * (1000 + 2000) + 2000 + 100 ns of GPU
    # work; no spread, so no bound.
    assert whole[0]["floor_ns"] == pytest.approx(17900, rel=1e-12)
    assert whole[0]["floored"] is False
    assert whole[0]["bound_ns"] == 0


def test_data_frames():
    pandas = pytest.importorskip("pandas")
    df = gpuproj.read_profile(os.path.join(DATA, "profile-test.json"))
    assert isinstance(df, pandas.DataFrame)
    assert list(df.columns[:len(gpuproj.KERNEL_COLUMNS)]) == gpuproj.KERNEL_COLUMNS
    rows = gpuproj.read_profile(os.path.join(DATA, "profile-test.json"), as_frame=False)
    assert len(df) == len(rows)
    assert df["launches"].sum() == sum(r["launches"] for r in rows)


def test_lists_without_pandas(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas":
            raise ImportError("no pandas here")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    rows = gpuproj.read_profile(os.path.join(DATA, "profile-test.json"))
    assert isinstance(rows, list) and isinstance(rows[0], dict)
    with pytest.raises(gpuproj.GpuprojError) as e:
        gpuproj.read_profile(os.path.join(DATA, "profile-test.json"), as_frame=True)
    assert e.value.message.startswith("as_frame=True needs pandas")
