"""`pqfast bench nested` on tiny files: every shape, nulls or not, writer,
reader and thread count has its row, every contender's table equal to
pyarrow's, and the printed table has its columns and goal lines (shapes
and equality only; timings are never asserted)."""

import importlib.util
import json

from conftest import run_cli

SHAPES = {"list_int64", "list_string", "struct5", "list_struct", "map_string_int64", "deep3"}


def _installed(m: str) -> bool:
    return importlib.util.find_spec(m) is not None


def test_json_rows(tmp_path):
    proc = run_cli("bench", "nested", "--quick", "--rows", "2000", "--runs", "1", "--json", "--data", str(tmp_path))
    rows = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.strip()]
    assert "!!!" not in proc.stderr, proc.stderr
    readers = {"pqfast", "pyarrow"} | {m for m in ("polars", "duckdb") if _installed(m)}
    writers = {"pyarrow"} | ({"polars"} if _installed("polars") else set())
    assert {r["reader"] for r in rows} == readers
    assert {r["threads"] for r in rows} == {1, 2}
    assert {r["shape"] for r in rows} == SHAPES | {"flat_int64"}
    for r in rows:
        assert {"shape", "nulls", "writer", "reader", "threads", "rows", "leaf_values", "cpu_s", "wall_s",
                "mvalues_per_cpu_s", "same_as_pyarrow", "file_bytes"} <= r.keys(), r
        assert r["same_as_pyarrow"] is True, r
        assert r["rows"] == 2000 and r["leaf_values"] > 0 and r["cpu_s"] >= 0
    cells = {(r["shape"], r["nulls"], r["writer"], r["reader"], r["threads"]) for r in rows}
    for shape in SHAPES:
        for nulls in (False, True):
            for w in writers:
                if w == "polars" and shape == "map_string_int64":
                    continue  # polars has no map type
                for rd in readers:
                    for t in (1, 2):
                        assert (shape, nulls, w, rd, t) in cells, (shape, nulls, w, rd, t)
    flat = [r for r in rows if r["shape"] == "flat_int64"]
    assert {r["reader"] for r in flat} == {"pqfast"} and {r["nulls"] for r in flat} == {False, True}
    # The flat reference holds list_int64's leaf values.
    lists = {r["nulls"]: r["leaf_values"] for r in rows if r["shape"] == "list_int64" and r["writer"] == "pyarrow"}
    assert {r["nulls"]: r["leaf_values"] for r in flat} == lists
    # Nulls make fewer values (null lists hold none) or as many; never more.
    assert lists[True] <= lists[False] * 1.2


def test_table(tmp_path):
    proc = run_cli("bench", "nested", "--rows", "1500", "--runs", "1", "--threads", "1", "--shapes",
                   "list_int64,map_string_int64", "--data", str(tmp_path))
    out = proc.stdout.splitlines()
    head = next(i for i, ln in enumerate(out) if ln.startswith("threads"))
    assert out[head].split()[:4] == ["threads", "shape", "nulls", "written"]
    assert "pqfast" in out[head] and "pyarrow/pqfast" in out[head]
    body = []
    for ln in out[head + 2:]:
        if not ln.strip() or not ln.split()[0].isdigit():
            break
        body.append(ln)
    polars = _installed("polars")
    # list_int64 x 2 nulls x (pyarrow, polars) + map x 2 + flat x 2
    assert len(body) == (4 if polars else 2) + 2 + 2, body
    assert sum("flat int64" in ln for ln in body) == 2
    goals = [ln for ln in out if ln.startswith("  list_int64") or ln.startswith("  map_string_int64")]
    assert len(goals) == (4 if polars else 2) + 2
    assert all("x pyarrow" in g for g in goals)
    assert sum("the flat read" in g for g in goals) == 2
