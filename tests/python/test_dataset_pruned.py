"""Filtered dataset scans of local lakes, pruned in C++ by the streaming
scanner (issue 30), on random local lakes (files of random sizes, row
groups and pages; ids shuffled so that statistics rarely decide and Bloom
filters do; some files with Bloom filters, page indexes, dictionary or
plain encoding, nulls) and random ``=`` / ``in`` / range filters (and ORs):

- a ``pqfast.dataset`` scan and ``read_table(filters=)`` (both through
  the scanner) equal ``read_table`` through the dataset scan's route
  (``_read_local`` declining the lean route) and
  ``pyarrow.dataset``, row for row in order;
- every filter, lookups included, goes through the scanner, and with warm
  caches both routes read the same: the same row groups pruned
  (statistics, Bloom, dictionary, page index), pages and bytes.

Lakes are written under tmp_path by the test itself (a few thousand rows)."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqfast

from scanner_routes import routes  # noqa: F401

N_SEEDS = 40 if os.environ.get("PQFAST_LONG_TESTS") == "1" else 8

# What the scanner and the engine call must count alike.
COUNTS = ("row_groups", "row_groups_pruned_by_statistics", "row_groups_pruned_by_bloom",
          "row_groups_pruned_by_dictionary", "row_groups_pruned_by_page_index", "row_groups_read",
          "row_groups_matched", "pages_read", "bytes_read", "rows")


def _table(rng, n: int, ids: np.ndarray) -> pa.Table:
    return pa.table({
        "id": pa.array(ids),
        "g": pa.array(rng.integers(0, 50, n).astype(np.int32), mask=rng.random(n) < 0.05),
        "v": pa.array(rng.standard_normal(n), mask=rng.random(n) < 0.1),
        "key": pa.array([f"k{x}" for x in ids]),
    })


def write_lake(root: str, rng) -> np.ndarray:
    """2-7 files; ids a random permutation cut into files (so min/max
    statistics span most ids); returns every id written."""
    os.makedirs(root, exist_ok=True)
    sizes = [int(rng.integers(1, 2500)) for _ in range(int(rng.integers(2, 8)))]
    ids = rng.permutation(sum(sizes) * 3)[: sum(sizes)].astype(np.int64)
    at = 0
    for i, n in enumerate(sizes):
        t = _table(rng, n, ids[at:at + n])
        at += n
        kw = {}
        if rng.random() < 0.6:
            kw["bloom_filter_options"] = {"id": {"ndv": n, "fpp": 0.01}, "key": {"ndv": n, "fpp": 0.01}}
        pq.write_table(t, os.path.join(root, f"part-{i:03d}.parquet"), row_group_size=int(rng.integers(50, 1200)),
                       data_page_size=int(rng.choice([512, 4096, 1 << 20])), write_batch_size=64,
                       write_page_index=bool(rng.random() < 0.6), use_dictionary=bool(rng.random() < 0.5), **kw)
    return ids


def random_filter(rng, ids: np.ndarray):
    """A DNF: one id, a few ids (some absent), a string key, a range, or an OR of them."""
    def pick(k):
        got = [int(x) for x in rng.choice(ids, size=k, replace=False)]
        if rng.random() < 0.5:
            got.append(int(ids.max()) + 1 + int(rng.integers(1000)))  # absent
        return got

    kind = int(rng.integers(5))
    if kind == 0:
        return [("id", "=", pick(1)[0])]
    if kind == 1:
        return [("id", "in", pick(int(rng.integers(1, 12))))]
    if kind == 2:
        return [("key", "in", [f"k{x}" for x in pick(int(rng.integers(1, 4)))])]
    if kind == 3:
        lo = int(rng.integers(0, int(ids.max()) + 1))
        return [("id", ">=", lo), ("id", "<", lo + int(rng.integers(1, 200)))]
    return [[("id", "=", pick(1)[0])], [("id", "in", pick(3))], [("g", "<", 2), ("id", "<", 500)]]


def _arrow_filter(filters):
    conj = filters if isinstance(filters[0], list) else [filters]
    ops = {"=": lambda f, v: f == v, "<": lambda f, v: f < v, ">=": lambda f, v: f >= v,
           "in": lambda f, v: f.isin(v)}
    expr = None
    for c in conj:
        e = None
        for col, op, v in c:
            a = ops[op](pc.field(col), v)
            e = a if e is None else e & a
        expr = e if expr is None else expr | e
    return expr


def _rows(t: pa.Table) -> list:
    return t.select(["id", "g", "v", "key"]).to_pylist()


@pytest.mark.parametrize("seed", range(N_SEEDS))
def test_dataset_scan_equals_engine_call_and_pyarrow(tmp_path, seed, routes):
    calls, engine = routes
    rng = np.random.default_rng(1000 + seed)
    root = str(tmp_path / "lake")
    ids = write_lake(root, rng)
    ds = pqfast.dataset(root)
    for _ in range(6):
        filters = random_filter(rng, ids)
        expr = _arrow_filter(filters)
        want = pads.dataset(root).to_table(filter=expr)
        threads = int(rng.choice([1, 2, 4]))
        # Every route once first: footers and lean footers are then cached for all.
        engine(root, filters=filters, threads=threads)
        pqfast.read_table(root, filters=filters, threads=threads)
        ds.to_table(filter=expr, threads=threads)
        old, old_st = engine(root, filters=filters, threads=threads, stats=True)
        before = len(calls)
        new, new_st = pqfast.read_table(root, filters=filters, threads=threads, stats=True)
        assert len(calls) == before + 1, filters  # (the route taken: lookups without Bloom filters too)
        ds.reset_scan_stats()
        got = ds.to_table(filter=expr, threads=threads)
        st = ds.scan_stats
        assert _rows(got) == _rows(new) == _rows(old) == _rows(want), filters
        assert got.schema == new.schema == old.schema
        assert st.get("route") == "scanner", (filters, st)
        for k in COUNTS:
            assert st[k] == new_st[k] == old_st[k], (k, filters, st, new_st, old_st)


def test_bloom_filters_prune_through_the_scanner(tmp_path):
    """One id (OR a range no row matches: not a lookup) over files whose
    statistics span every id: Bloom filters rule the other files' row groups
    out in the scanner's C++ pruning, as the engine's call counts them."""
    rng = np.random.default_rng(5)
    root = str(tmp_path / "lake")
    os.makedirs(root)
    ids = rng.permutation(8000).astype(np.int64)
    for i in range(4):
        part = ids[i * 2000:(i + 1) * 2000]
        pq.write_table(_table(rng, 2000, part), os.path.join(root, f"p{i}.parquet"), row_group_size=500,
                       write_page_index=True, bloom_filter_options={"id": {"ndv": 2000, "fpp": 0.001}})
    one = int(ids[4321])
    filters = [[("id", "=", one)], [("id", "<", -5)]]
    expr = (pc.field("id") == one) | (pc.field("id") < -5)
    ds = pqfast.dataset(root)
    pqfast.read_table(root, filters=filters)
    ds.to_table(filter=expr)
    ds.reset_scan_stats()
    got = ds.to_table(filter=expr)
    st = ds.scan_stats
    _, old_st = pqfast.read_table(root, filters=filters, stats=True)
    assert got.column("id").to_pylist() == [one]
    assert st["route"] == "scanner"
    assert st["row_groups"] == 16 and st["row_groups_pruned_by_bloom"] >= 14
    assert st["row_groups_matched"] == 1
    for k in COUNTS:
        assert st[k] == old_st[k], (k, st, old_st)
