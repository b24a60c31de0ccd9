"""`pqfast bench lookup`: the --json rows on a tiny lake (3 files x 20,000 rows):
every query, both thread counts, warm and fresh-process rows, and every
contender's rows equal to pqfast's (shapes and equality only; timings are
never asserted)."""

import inspect
import json

import pytest

from conftest import run_cli


def _has_filters() -> bool:
    import pqfast

    return "filters" in inspect.signature(pqfast.read_table).parameters


needs_engine = pytest.mark.skipif(not _has_filters(),
                                  reason="pqfast.read_table has no filters= parameter yet (issue 17's scan engine)")


def test_lake_variants_hold_the_same_rows(tmp_path):
    """The three lakes are one set of rows: unique ids, the sorted one in id order."""
    import importlib.util

    import pyarrow.dataset as ds

    from pqfast.benches import lookup

    has_polars = importlib.util.find_spec("polars") is not None  # the polars-written lake needs it
    root = lookup.ensure_lakes(tmp_path, 2, 3000, 3)
    variants = ["bloom", "sorted"] + (["polars"] if has_polars else [])
    tables = {v: ds.dataset(str(root / v), format="parquet").to_table() for v in variants}
    ref = lookup.normalized(tables["bloom"], tables["bloom"].column_names)
    assert len({r["id"] for r in ref}) == 6000
    for v in variants[1:]:
        assert lookup.normalized(tables[v], tables["bloom"].column_names) == ref
    ids = tables["sorted"].column("id").to_pylist()
    assert ids == sorted(ids)
    qs = lookup.queries(root, 2, 3000)
    assert [q["expect"] for q in qs] == [1, 10, 0, 1] + ([1] if has_polars else []) + [1000]
    for q in qs:
        got = ds.dataset(str(root / q["lake"]), format="parquet").to_table(filter=lookup.arrow_expr(q["filters"]))
        assert got.num_rows == q["expect"], q["name"]


@needs_engine
def test_json_rows_and_equal_answers(tmp_path):
    proc = run_cli("bench", "lookup", "--quick", "--json", "--files", "3", "--rows", "20000", "--dir", str(tmp_path))
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert "ROWS DIFFER" not in proc.stderr
    warm = [r for r in rows if r["timing"] == "warm"]
    fresh = [r for r in rows if r["timing"] == "fresh process"]
    assert {r["threads"] for r in warm} == {1, 2} and {r["threads"] for r in fresh} == {1, 2}
    queries = {r["query"] for r in warm}
    assert {"1 id", "10 ids in 3 files", "1 missing id", "1 string key", "1,000-id range"} <= queries
    assert len(warm) == 2 * len(queries)
    for r in rows:
        assert {"query", "lake", "threads", "timing", "contenders", "pqfast_read", "lake_bytes", "files",
                "rows_per_file", "pqfast_api"} <= r.keys()
        assert r["pqfast_api"] == "pqfast.read_table(filters=)"
        assert r["files"] == 3 and r["rows_per_file"] == 20000
        assert "pqfast" in r["contenders"]
        for name, c in r["contenders"].items():
            assert c.get("ms") is not None and c["ms"] > 0, (r["query"], name, c)
            assert c.get("same_rows") is not False, (r["query"], name, c.get("detail"))
        peers = set(r["contenders"]) - {"pqfast", "prune"}
        assert {"duckdb", "datafusion", "pyarrow"} <= peers
    for r in warm:
        assert all(c["same_rows"] is True for n, c in r["contenders"].items() if n != "prune")
        assert r["contenders"]["pqfast"]["rows"] == {"1 id": 1, "1 missing id": 0, "1 string key": 1,
                                                     "1 id, no Bloom": 1}.get(r["query"], r["contenders"]["pqfast"]["rows"])
        read = r["pqfast_read"]
        if "bytes_read" in read:
            assert 0 <= read["bytes_pct_of_lake"] <= 100
    missing = [r for r in warm if r["query"] == "1 missing id"]
    assert all("prune" in r["contenders"] for r in missing)
    assert {r["contenders"]["pqfast"]["rows"] for r in warm if r["query"].endswith("-id range")} == {1000}
