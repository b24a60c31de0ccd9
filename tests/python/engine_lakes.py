"""Small lakes for the engine adapters' equality tests (test_engine_*.py):
the lookup benchmark's three variants (bloom: pyarrow with Bloom filters and
a page index; polars: written by polars; sorted: by id) at 4 files x 3,000
rows, and a hive-partitioned lake with nulls (region=<str>/year=<int>),
all generated deterministically under a temporary directory (pqfast's own
generators: a fresh clone needs nothing else).

``queries(lake)`` gives each lake's queries as (name, SQL WHERE clause or
None, projected columns or None): point, range, IN, null tests, projections;
the engines' test modules add aggregates, a join, LIMIT and ORDER BY.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

FILES, ROWS, GROUPS = 4, 3000, 3
HIVE_ROWS = 1200


def build(base: Path) -> dict[str, Path]:
    """{"bloom"|"polars"|"sorted"|"hive": directory}."""
    from pqfast.benches import lookup

    root = lookup.ensure_lakes(base / "lookup", FILES, ROWS, GROUPS)
    out = {v: root / v for v in ("bloom", "polars", "sorted") if (root / v).exists()}
    out["hive"] = _hive(base / "hive")
    return out


def hive_table() -> pa.Table:
    rng = np.random.default_rng(31)
    n = HIVE_ROWS
    ids = np.arange(n, dtype=np.int64) * 7 + 3
    score = rng.integers(0, 100, n).astype(np.int32)
    score_mask = rng.random(n) < 0.15
    label = np.array([f"l{int(x):03d}" for x in rng.integers(0, 200, n)], dtype=object)
    label_mask = rng.random(n) < 0.1
    return pa.table({
        "id": pa.array(ids),
        "score": pa.array(score, mask=score_mask),
        "label": pa.array(label, mask=label_mask),
        "weight": pa.array(rng.random(n)),
        "region": pa.array(np.array(["east", "north", "west"])[np.arange(n) % 3]),
        "year": pa.array(2020 + (np.arange(n) // 3) % 4, pa.int32()),
    })


def _hive(d: Path) -> Path:
    stamp = d.parent / "hive.DONE"  # beside the lake: its directory holds Parquet files only
    if stamp.exists():
        return d
    import pyarrow.dataset as ds

    t = hive_table()
    ds.write_dataset(t, str(d), format="parquet", partitioning=["region", "year"], partitioning_flavor="hive",
                     basename_template="part-{i}.parquet", existing_data_behavior="overwrite_or_ignore",
                     max_rows_per_group=100)
    stamp.write_text("1")
    return d


def lookup_ids(d: Path) -> dict:
    """Ids and keys the queries ask for, read from the lake itself."""
    t = pq.read_table(str(d), columns=["id", "key", "quantity"])
    ids = t.column("id").to_pylist()
    keys = t.column("key").to_pylist()
    s = sorted(ids)
    return {"one": ids[ROWS + 17], "ten": [ids[i] for i in range(5, FILES * ROWS, FILES * ROWS // 10)][:10],
            "key": keys[2 * ROWS + 5], "lo": s[len(s) // 3], "hi": s[len(s) // 3 + 500], "missing": 12345}


def lookup_queries(d: Path) -> list[tuple[str, str | None, list | None]]:
    v = lookup_ids(d)
    ten = ", ".join(str(x) for x in v["ten"])
    return [
        ("point", f"id = {v['one']}", None),
        ("point projected", f"id = {v['one']}", ["key", "amount"]),
        ("missing id", f"id = {v['missing']}", None),
        ("ten ids", f"id IN ({ten})", ["id", "quantity"]),
        ("string key", f"key = '{v['key']}'", ["id", "key"]),
        ("range", f"id >= {v['lo']} AND id < {v['hi']}", ["id", "ts"]),
        ("range or point", f"(id >= {v['lo']} AND id < {v['hi']}) OR id = {v['one']}", ["id"]),
        ("not equal and range", f"quantity <> 5 AND id < {v['lo']}", ["id", "quantity"]),
        ("category", "category = 'category-03' AND quantity < 20", ["id", "category", "quantity"]),
        ("flag", "flag AND quantity = 7", ["id", "flag"]),
        ("not in", "quantity NOT IN (1, 2, 3) AND quantity < 10", ["id", "quantity"]),
        ("is not null", f"note IS NOT NULL AND id = {v['one']}", ["id", "note"]),
        ("function (not pushed)", "quantity + 1 = 8 AND amount < 0.5", ["id", "quantity"]),
        ("all columns", None, None),
        ("projection", None, ["id", "amount"]),
    ]


def hive_queries() -> list[tuple[str, str | None, list | None]]:
    return [
        ("key string", "region = 'east'", ["id", "region", "year"]),
        ("key int", "year = 2021", ["id", "year"]),
        ("keys and column", "region = 'west' AND year >= 2022 AND score < 30", ["id", "score", "region", "year"]),
        ("is null", "score IS NULL", ["id", "score"]),
        ("is not null", "label IS NOT NULL AND score > 90", ["id", "label", "score"]),
        ("null-aware not", "NOT (score > 50)", ["id", "score"]),
        ("in strings", "label IN ('l001', 'l002', 'l150')", ["id", "label"]),
        ("or across", "region = 'north' OR score = 3", ["id", "region", "score"]),
        ("all", None, None),
    ]


def plain(t: pa.Table) -> pa.Table:
    """Values only: dictionaries, views and large types as their plain types,
    so engines that type the same values differently compare equal."""
    cols = []
    for c in t.columns:
        ty = c.type
        if pa.types.is_dictionary(ty):
            c, ty = c.cast(ty.value_type), ty.value_type
        if pa.types.is_string_view(ty) or pa.types.is_large_string(ty):
            c = c.cast(pa.string())
        elif pa.types.is_binary_view(ty) or pa.types.is_large_binary(ty):
            c = c.cast(pa.binary())
        elif pa.types.is_integer(ty) and ty != pa.int64():
            c = c.cast(pa.int64())
        cols.append(c)
    return pa.table(cols, names=t.column_names)


def rows(t: pa.Table, ordered: bool = False) -> list[tuple]:
    """The rows as tuples (sorted unless ``ordered``); NaN-free data assumed."""
    out = [tuple(r.values()) for r in plain(t).to_pylist()]
    return out if ordered else sorted(out, key=lambda r: tuple((x is None, x if x is not None else 0) for x in r))


def assert_same(got: pa.Table, want: pa.Table, ordered: bool = False, what: str = "") -> None:
    assert got.column_names == want.column_names, f"{what}: columns {got.column_names} != {want.column_names}"
    assert got.num_rows == want.num_rows, f"{what}: {got.num_rows} rows, the engine's reader {want.num_rows}"
    assert rows(got, ordered) == rows(want, ordered), f"{what}: rows differ"


def sql_queries(lakes: dict, table) -> list[tuple[str, str, bool]]:
    """(name, SQL, ordered?) for the SQL engines: ``table(lake)`` names the
    table over that lake (the engine's own reader or the pqfast dataset).
    About 30 queries: every lake's WHERE clauses, then aggregates, a join,
    LIMIT and ORDER BY."""
    out = []
    for lake in ("bloom", "polars", "sorted"):
        if lake not in lakes:
            continue
        for name, where, cols in lookup_queries(lakes["bloom"]):
            if lake != "bloom" and name in ("all columns", "projection", "flag", "not in", "is not null"):
                continue  # once is enough for the scans that do not depend on the writer
            sel = ", ".join(cols) if cols else "*"
            out.append((f"{lake}: {name}", f"SELECT {sel} FROM {table(lake)}" + (f" WHERE {where}" if where else ""),
                        False))
    for name, where, cols in hive_queries():
        sel = ", ".join(cols) if cols else "*"
        out.append((f"hive: {name}", f"SELECT {sel} FROM {table('hive')}" + (f" WHERE {where}" if where else ""),
                    False))
    v = lookup_ids(lakes["bloom"])
    b, h = table("bloom"), table("hive")
    out += [
        ("count", f"SELECT count(*) AS n FROM {b}", False),
        ("filtered count", f"SELECT count(*) AS n FROM {b} WHERE quantity < 100", False),
        ("group by", f"SELECT category, count(*) AS n, round(sum(amount), 6) AS s, max(quantity) AS m FROM {b} "
                     f"GROUP BY category", False),
        ("hive group by", f"SELECT region, year, count(*) AS n, count(score) AS scored, min(label) AS l FROM {h} "
                          f"GROUP BY region, year", False),
        ("join", f"SELECT a.id, c.id AS other FROM {b} a JOIN {table('sorted')} c ON a.quantity = c.quantity "
                 f"WHERE a.id = {v['one']} AND c.id < {v['lo']}", False),
        ("order by limit", f"SELECT id, quantity FROM {b} WHERE quantity < 50 ORDER BY id DESC LIMIT 10", True),
        ("order by", f"SELECT id, label FROM {h} WHERE year = 2023 AND score < 20 ORDER BY id", True),
        ("limit count", f"SELECT count(*) AS n FROM (SELECT id FROM {b} LIMIT 25) q", False),
        ("distinct", f"SELECT DISTINCT category FROM {b} WHERE id > {v['lo']}", False),
    ]
    return out
