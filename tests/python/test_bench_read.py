"""`pqfast bench read`'s pieces that decide what it prints: the codec floor's
pages (columns and threads chosen), the summary's fastest peer and ratios,
the thread settings. (Nothing here is timed.)"""

from __future__ import annotations

import os

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
