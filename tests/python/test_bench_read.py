"""`pqfast bench read`'s pieces that decide what it prints: the codec floor's
pages (columns and threads chosen), the summary's fastest peer and ratios,
the thread settings. (Nothing here is timed.)"""

from __future__ import annotations

import json
import os
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq

import pqfast
from pqfast import _pqfast
from pqfast.benches import read as bench


def _file(tmp_path):
    t = pa.table({"a": pa.array(range(20000)), "s": pa.array([f"v{i % 97}" for i in range(20000)]),
                  "b": pa.array([i * 0.5 for i in range(20000)])})
    p = tmp_path / "f.parquet"
    pq.write_table(t, p, compression="zstd", row_group_size=7000, data_page_size=4096)
    return p


def _compressed_pages(path, leaves):
    n = 0
    with pqfast.ParquetFile(path) as f:
        for rg in range(f.num_row_groups):
            for leaf in leaves:
                n += len(f.page_headers(rg, leaf))
    return n


def test_codec_floor_counts_the_chosen_columns_pages(tmp_path):
    p = _file(tmp_path)
    every = _pqfast._bench_codec_floor(str(p), 1)
    assert every["pages"] == _compressed_pages(p, [0, 1, 2])
    for threads in (1, 3):
        one = _pqfast._bench_codec_floor(str(p), 1, [1], threads)
        assert one["pages"] == _compressed_pages(p, [1])
        assert 0 < one["uncompressed_bytes"] < every["uncompressed_bytes"]
        assert one["seconds"] > 0


def test_summary_picks_the_fastest_peer():
    rows = [{"file": "tpchgen", "columns": "all 16", "threads": 1, "contender": c, "ms": ms}
            for c, ms in [("pqfast", 100.0), ("pqfast view", 80.0), ("pyarrow", 300.0), ("polars", 120.0),
                          ("duckdb", 150.0), ("datafusion", 130.0), ("codec floor", 40.0)]]
    (s,) = bench.summary(rows)
    assert (s["peer"], s["peer_ms"], s["floor_ms"]) == ("polars", 120.0, 40.0)
    assert abs(s["ratio"] - 1.2) < 1e-9 and abs(s["view_ratio"] - 1.5) < 1e-9


def test_thread_settings():
    n = os.cpu_count() or 1
    assert bench._thread_counts("1,2,all") == list(dict.fromkeys([1, 2, n]))
    assert bench._thread_counts("all,all") == [n]


def test_bench_read_runs_end_to_end(tmp_path):
    """Files written by each writer asked for, every cell and floor measured;
    the files hold the same rows and pqfast reads them as pyarrow does."""
    import json

    from conftest import run_cli
    from test_read import same_column

    proc = run_cli("bench", "read", "--scale", "0.01", "--runs", "1", "--json", "--threads", "1",
                   "--files", "tpchgen,pyarrow,polars", "--contenders", "pqfast,pqfast view,pyarrow",
                   "--data", str(tmp_path))
    rows = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert {(r["file"], r["columns"], r["contender"]) for r in rows} == {
        (f, cs, c) for f in ("tpchgen", "pyarrow", "polars") for cs in ("all 16", "Q12's 5")
        for c in ("pqfast", "pqfast view", "pyarrow", "codec floor")}
    assert all(r["threads"] == 1 and r["ms"] > 0 for r in rows)
    files = sorted(tmp_path.rglob("lineitem*.parquet"))
    assert len(files) == 3
    rows_in = {pq.ParquetFile(f).metadata.num_rows for f in files}
    assert len(rows_in) == 1
    for f in files:
        got, exp = pqfast.read_table(f), pq.read_table(f)
        for c in exp.column_names:
            same_column(got.column(c), exp.column(c))


def test_lake_is_cut_in_order_and_made_once(tmp_path):
    """The lake: `files` files of `rows` rows cut in order from the source
    (again from its start when it runs out), kept and reused."""
    src = tmp_path / "src.parquet"
    pq.write_table(pa.table({"a": pa.array(range(25))}), src)
    d = bench.lake(str(tmp_path / "lakes"), 4, 10, src, 1.0, log=lambda s: None)
    assert d.name == "lake-4x10-v1" and (d / "_DONE").exists()
    parts = sorted(d.glob("*.parquet"))
    assert [pq.read_table(p).column("a").to_pylist() for p in parts] == [
        list(range(0, 10)), list(range(10, 20)), list(range(0, 10)), list(range(10, 20))]
    mtimes = [p.stat().st_mtime_ns for p in parts]
    assert bench.lake(str(tmp_path / "lakes"), 4, 10, src, 1.0, log=lambda s: None) == d
    assert [p.stat().st_mtime_ns for p in parts] == mtimes
    assert bench.lake(str(tmp_path / "lakes"), 4, 10, src, 0.1, log=lambda s: None).name == "lake-4x10-sf0.1-v1"


def test_every_contender_reads_the_lake_whole(tmp_path):
    """Each contender's lake read (a directory) holds every file's rows."""
    src = tmp_path / "src.parquet"
    pq.write_table(pa.table({"l_orderkey": pa.array(range(300), pa.int64()),
                             "l_shipmode": pa.array([f"m{i % 7}" for i in range(300)])}), src)
    d = bench.lake(str(tmp_path / "lakes"), 6, 50, src, 1.0, log=lambda s: None)
    readers = bench._readers(bench.CONTENDERS, 2)
    assert {"pqfast", "pqfast view", "pyarrow"} <= set(readers)
    for name, read in readers.items():
        t = read(str(d), None)
        n = t.num_rows if hasattr(t, "num_rows") else t.height
        assert n == 300, name
        keys = t.column("l_orderkey").to_pylist() if hasattr(t, "num_rows") else t["l_orderkey"].to_list()
        assert sorted(keys) == list(range(300)), name


def test_bench_read_times_the_lake(tmp_path):
    """--files lake: every contender's cells for the lake, no floor for it."""
    import json

    from conftest import run_cli

    proc = run_cli("bench", "read", "--scale", "0.01", "--runs", "1", "--json", "--threads", "1",
                   "--files", "lake", "--lake-files", "5", "--lake-rows", "100", "--lake-dir", str(tmp_path / "lakes"),
                   "--contenders", "pqfast,pyarrow", "--data", str(tmp_path))
    rows = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert {(r["file"], r["columns"], r["contender"]) for r in rows} == {
        ("lake", cs, c) for cs in ("all 16", "Q12's 5") for c in ("pqfast", "pyarrow")}
    assert len(list((tmp_path / "lakes").rglob("part-*.parquet"))) == 5


def test_a_setting_whose_process_dies_keeps_the_others_rows(tmp_path, monkeypatch):
    """A worker killed by a signal is named with the cell it was in, and the
    other thread settings' rows still come back (the run then fails)."""

    def fake_run(cmd, env, capture_output, text):
        spec = json.loads(cmd[-1])
        if spec["threads"] == 2:
            return subprocess.CompletedProcess(cmd, -11, "", "round 1: pqfast on lake, all 16\n")
        row = {"file": "tpchgen", "columns": "all 16", "threads": spec["threads"], "contender": "pqfast", "ms": 1.0}
        return subprocess.CompletedProcess(cmd, 0, json.dumps([row]) + "\n", "")

    monkeypatch.setattr(bench, "ensure_files", lambda *a, **k: {"tpchgen": tmp_path / "x.parquet"})
    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    logged, failures = [], []
    rows = bench.measure(1.0, 1, tmp_path, [1, 2], ["tpchgen"], ["pqfast"], log=logged.append, failures=failures)
    assert [r["threads"] for r in rows] == [1] and failures == [2]
    assert "killed by SIGSEGV" in logged[-1] and "pqfast on lake, all 16" in logged[-1]
