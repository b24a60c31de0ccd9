"""``read_table(filters=)`` of local files through the streaming scanner
(``pqfast._filtered_scan``, the lean route) against the dataset scan's
route (``_read_local``'s other route, taken here by declining the lean
one; it replaced the scan engine's own call) and
``pyarrow.dataset``, on random lakes written here: files of random sizes,
row groups and pages, some with Bloom filters, page indexes, dictionaries,
nulls; hive partitions; files whose schema differs from the first's; and
random ``=`` / ``in`` / range / null filters and ORs of them. The rows (in
order), the schema and what ``stats=True`` counts (pages, bytes, row groups
pruned) are the other route's; which route ran is seen by counting calls of
the scanner's helper."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _read_local, scan

from scanner_routes import routes  # noqa: F401

N_SEEDS = 30 if os.environ.get("PQFAST_LONG_TESTS") == "1" else 6

COUNTS = ("files", "files_read", "row_groups", "row_groups_pruned_by_statistics", "row_groups_pruned_by_bloom",
          "row_groups_pruned_by_dictionary", "row_groups_pruned_by_page_index", "row_groups_read",
          "row_groups_matched", "pages_read", "pages_skipped", "bytes_read", "reads", "rows")


def _table(rng, ids: np.ndarray) -> pa.Table:
    n = len(ids)
    return pa.table({
        "id": pa.array(ids),
        "g": pa.array(rng.integers(0, 20, n).astype(np.int32), mask=rng.random(n) < 0.1),
        "v": pa.array(rng.standard_normal(n), mask=rng.random(n) < 0.1),
        "s": pa.array([f"s{x % 97}" for x in ids]),
    })


def _write(rng, t: pa.Table, path: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    kw = {}
    if rng.random() < 0.6:
        kw["bloom_filter_options"] = {"id": {"ndv": max(1, t.num_rows), "fpp": 0.01}}
    pq.write_table(t, path, row_group_size=int(rng.integers(40, 900)), write_batch_size=64,
                   data_page_size=int(rng.choice([512, 4096, 1 << 20])), write_page_index=bool(rng.random() < 0.6),
                   use_dictionary=bool(rng.random() < 0.5), **kw)


def write_lake(root: str, rng, hive: bool, evolve: bool) -> np.ndarray:
    """2-6 files of shuffled ids (statistics rarely decide), under k=0/k=1
    directories with `hive`; with `evolve` a later file lacks column v and
    has a column the first lacks."""
    sizes = [int(rng.integers(1, 1500)) for _ in range(int(rng.integers(2, 7)))]
    ids = rng.permutation(sum(sizes) * 2)[: sum(sizes)].astype(np.int64)
    at = 0
    for i, n in enumerate(sizes):
        t = _table(rng, ids[at:at + n])
        at += n
        if evolve and i == len(sizes) - 1:
            t = t.drop_columns(["v"]).append_column("extra", pa.array(np.arange(n, dtype=np.int16)))
        sub = f"k={i % 2}" if hive else ""
        _write(rng, t, os.path.join(root, sub, f"part-{i:03d}.parquet"))
    return ids


def random_filter(rng, ids: np.ndarray):
    def pick(k):
        got = [int(x) for x in rng.choice(ids, size=min(k, len(ids)), replace=False)]
        if rng.random() < 0.5:
            got.append(int(ids.max()) + 1 + int(rng.integers(100)))  # absent
        return got

    kind = int(rng.integers(6))
    if kind == 0:
        return [("id", "=", pick(1)[0])]
    if kind == 1:
        return [("id", "in", pick(int(rng.integers(1, 10))))]
    if kind == 2:
        lo = int(rng.integers(0, int(ids.max()) + 1))
        return [("id", ">=", lo), ("id", "<", lo + int(rng.integers(1, 300)))]
    if kind == 3:
        return (pc.field("g").is_null() & (pc.field("id") < int(ids.max()) // 3)) | (pc.field("id") == pick(1)[0])
    if kind == 4:
        return [[("id", "in", pick(3))], [("g", "<", 2), ("s", "=", "s5")]]
    return [("s", "in", ["s1", "s7"]), ("v", ">", 0.5)]


def _pyarrow_expr(filters):
    if isinstance(filters, pc.Expression):
        return filters
    conj = filters if isinstance(filters[0], list) else [filters]
    ops = {"=": lambda f, v: f == v, "<": lambda f, v: f < v, ">=": lambda f, v: f >= v, ">": lambda f, v: f > v,
           "in": lambda f, v: f.isin(v)}
    expr = None
    for c in conj:
        e = None
        for col, op, v in c:
            a = ops[op](pc.field(col), v)
            e = a if e is None else e & a
        expr = e if expr is None else expr | e
    return expr


def _plain(t: pa.Table) -> pa.Table:
    """Dictionary columns (hive keys) as their values, for comparing with pyarrow."""
    return pa.table({n: (c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c)
                     for n, c in zip(t.column_names, t.columns)})


@pytest.mark.parametrize("seed", range(N_SEEDS))
@pytest.mark.parametrize("shape", ["flat", "hive", "evolved"])
def test_scanner_route_equals_engine_call_and_pyarrow(tmp_path, seed, shape, routes):
    calls, engine = routes
    rng = np.random.default_rng(7000 + seed + 100 * ["flat", "hive", "evolved"].index(shape))
    root = str(tmp_path / "lake")
    ids = write_lake(root, rng, hive=shape == "hive", evolve=shape == "evolved")
    part = "hive" if shape == "hive" else None
    for _ in range(5):
        filters = random_filter(rng, ids)
        keyed = shape == "hive" and rng.random() < 0.5
        if keyed:
            key = pc.field("k") == int(rng.integers(2))
            filters = _pyarrow_expr(filters) & key
        threads = int(rng.choice([1, 2, 4]))
        columns = None if rng.random() < 0.5 else ["s", "id"]
        kw = dict(filters=filters, threads=threads, columns=columns)
        for _ in range(2):  # footers cached and Bloom layouts learned: both timed calls warm
            engine(root, **kw)
        old, old_st = engine(root, stats=True, **kw)
        before = len(calls)
        new, new_st = pqfast.read_table(root, stats=True, **kw)
        if shape == "flat":  # (hive lakes and files unlike the first go through the dataset scan)
            assert len(calls) > before, filters  # (the lean route taken: lookups without Bloom filters too)
        assert new.schema == old.schema, filters
        assert new.equals(old), filters
        want = pads.dataset(root, partitioning=part).to_table(filter=_pyarrow_expr(filters), columns=columns)
        assert _plain(new).to_pylist() == _plain(want).to_pylist(), filters
        for k in COUNTS:
            assert new_st.get(k) == old_st.get(k), (k, filters, new_st, old_st)


def test_row_groups_chosen_and_file_rows(tmp_path, routes):
    """scan_table(row_groups=) (read_pruned's call) through the scanner:
    only the row groups given, files without any not read, the same rows as
    the dataset scan's (the lean route declined), and each file's rows
    counted (``lean_scan``'s file_rows) as pyarrow counts them."""
    calls, engine = routes
    rng = np.random.default_rng(11)
    root = str(tmp_path / "lake")
    ids = write_lake(root, rng, hive=False, evolve=False)
    paths = sorted(os.path.join(root, p) for p in os.listdir(root))
    chosen = {p: [g for g in range(pq.ParquetFile(p).num_row_groups) if g % 2 == 0] for p in paths[::2]}
    filters = [("id", "<", int(np.median(ids)))]
    got = _read_local.scan_table(paths, filters=filters, row_groups=chosen)
    assert calls
    with pytest.MonkeyPatch.context() as m:
        m.setattr(scan, "scanner_schema", lambda plans, meta: None)
        want = _read_local.scan_table(paths, filters=filters, row_groups=chosen)
    assert got.equals(want)
    expr = pq.filters_to_expression(filters)
    want_rows = [pq.ParquetFile(p).read_row_groups(chosen[p]).filter(expr).num_rows if p in chosen else 0
                 for p in paths]
    got_rows: list = []
    scan.lean_scan(paths, None, filters, None, True, (True,) * 4, None, chosen, got_rows, None, None, 0.0)
    assert got_rows == want_rows and sum(want_rows) == got.num_rows


def test_memory_limit_too_small_raises(tmp_path, routes):
    calls, _ = routes
    rng = np.random.default_rng(3)
    root = str(tmp_path / "lake")
    os.makedirs(root)
    n = 200_000
    t = _table(rng, np.arange(n, dtype=np.int64))
    pq.write_table(t, os.path.join(root, "a.parquet"))
    pq.write_table(t, os.path.join(root, "b.parquet"))
    with pytest.raises(pqfast.MemoryLimitError):
        pqfast.read_table(root, filters=[("id", ">=", 0)], memory_limit=64 << 10)
    assert calls
