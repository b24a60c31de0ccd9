"""`pqfast bench stream`: the --json rows on a tiny TPC-H lake (SF 0.01 in 2
files): every contender's row count and checksums equal DuckDB's, pqfast's
peak RSS and first-batch time reported (shapes and equality only; timings
are never asserted)."""

import json
import shutil
import sys
from pathlib import Path

import pytest

from conftest import run_cli


def _tpchgen() -> bool:
    return bool(shutil.which("tpchgen-cli") or (Path(sys.executable).parent / "tpchgen-cli").exists())


@pytest.mark.skipif(not _tpchgen(), reason="tpchgen-cli not installed (pip install tpchgen-cli)")
def test_stream_bench_rows_agree_with_duckdb(tmp_path):
    pytest.importorskip("duckdb")
    pytest.importorskip("polars")
    out = run_cli("bench", "stream", "--scale", "0.01", "--files", "2", "--memory-limit", "16",
                  "--batch-size", "5000", "--data", str(tmp_path), "--json").stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    by = {r["contender"]: r for r in rows}
    assert set(by) >= {"duckdb", "pqfast-dataset", "pqfast-read_table", "pyarrow-dataset", "polars-streaming",
                       "pqfast one row group alone"}
    n = by["duckdb"]["rows"]
    assert n > 50_000
    for name in ("pqfast-dataset", "pqfast-read_table", "pyarrow-dataset", "polars-streaming"):
        assert by[name]["status"] == "ok" and by[name]["rows"] == n, by[name]
    assert by["pqfast-dataset"]["peak_rss_mib"] > 0 and by["pqfast-dataset"]["first_batch_s"] > 0
    assert by["pqfast-dataset"]["memory_limit_mib"] == 16
