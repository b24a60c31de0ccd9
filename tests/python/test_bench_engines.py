"""`pqfast bench engines`: the --json rows on tiny lakes (2 files x 3,000 rows;
Dask: 6 files): a row per engine and query, every pqfast route's result
equal to the engine's own reader, and the aggregate over the columns in memory
equal too (shapes and equality only; timings are never asserted)."""

import importlib.util
import json

import pytest

from conftest import run_cli

ENGINES = [e for e in ("duckdb", "polars", "datafusion", "dask") if importlib.util.find_spec(e) is not None]


@pytest.mark.skipif(not ENGINES, reason="no engine installed")
def test_bench_engines_json(tmp_path):
    proc = run_cli("bench", "engines", "--json", "--files", "2", "--rows", "3000", "--row-groups", "2",
                   "--dask-files", "6", "--repeat", "1", "--dir", str(tmp_path), "--engines", ",".join(ENGINES))
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    seen = {(r["engine"], r["query"]) for r in rows}
    labels = {"duckdb": "DuckDB", "polars": "polars", "datafusion": "DataFusion", "dask": "Dask"}
    for e in ENGINES:
        queries = ["1 id"] if e == "dask" else ["1 id", "filter", "aggregate"]
        for q in queries:
            assert (labels[e], q) in seen
    if "duckdb" in ENGINES:
        assert ("DuckDB", "aggregate, pqfast.duckdb.dataset") in seen
    if "datafusion" in ENGINES:
        assert ("DataFusion", "aggregate, pqfast.datafusion.dataset") in seen
    for r in rows:
        assert r["same"], r
        assert r["pqfast_ms"] > 0 and r["own_ms"] > 0
        if r["query"] == "1 id":
            assert r["rows"] == 1
        # every aggregate row times the engine over the same columns in memory
        # (its result checked equal with the rest: r["same"])
        assert (r["in_memory_ms"] is not None) == r["query"].startswith("aggregate")
        if r["engine"] in ("DuckDB", "DataFusion") and r["query"] == "1 id":
            assert r["pages_read"] > 0  # read through pqfast's scan, its pages counted


@pytest.mark.skipif(not [e for e in ENGINES if e != "dask"], reason="no SQL or polars engine installed")
def test_bench_engines_hidden_queries(tmp_path):
    """--hidden adds a row per query of HIDDEN_SQL for each engine, its
    result equal to the engine's own reader's."""
    from pqfast.benches.engines import HIDDEN_SQL

    engines = [e for e in ENGINES if e != "dask"]
    proc = run_cli("bench", "engines", "--json", "--hidden", "--files", "2", "--rows", "3000", "--row-groups", "2",
                   "--repeat", "1", "--dir", str(tmp_path), "--engines", ",".join(engines))
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    hidden = [r for r in rows if r["query"].startswith("hidden: ")]
    assert len(hidden) == len(HIDDEN_SQL) * len(engines), [r["query"] for r in rows]
    for r in hidden:
        assert r["same"], r
    top = [r for r in hidden if r["query"] == "hidden: top 5"]
    assert all(r["rows"] == 5 for r in top)
