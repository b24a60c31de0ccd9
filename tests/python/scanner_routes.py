"""What the route tests share: which route read_table takes for a filter,
fixtures that count reads through the scanner (filtered: ``routes``, with
reads by the engine's own call for comparison; whole: ``routed``)."""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _filtered_scan, _read_scan, _scan_whole, scan


def engine_keeps(root: str, filters) -> bool:
    """read_table keeps the engine's own call for a lookup (an ``=``/``in``
    column in every conjunction) on a column the lake's first file (in
    path order) has no Bloom filter for (see scan._lookup_without_bloom)."""
    key = pqfast.filters.lookup_key(filters)
    if key is None:
        return False
    first = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".parquet"))[0]
    md = pq.ParquetFile(first).metadata
    names = [md.schema.column(i).path for i in range(md.num_columns)]
    return md.num_row_groups > 0 and key[0] in names and \
        md.row_group(0).column(names.index(key[0])).bloom_filter_offset is None


@pytest.fixture
def routes(monkeypatch):
    """(calls, engine): ``calls`` counts reads through the scanner
    (_filtered_scan.read_filtered); ``engine(...)`` is read_table by the
    engine's own call (the scanner declines every projection)."""
    calls = []
    real = _filtered_scan.read_filtered

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(scan, "read_filtered", counting)

    def engine(*a, **k):
        with monkeypatch.context() as m:
            m.setattr(scan, "scanner_schema", lambda plans, meta: None)
            return pqfast.read_table(*a, **k)

    return calls, engine


@pytest.fixture
def routed(monkeypatch):
    """Counts whole reads through the scanner (calls of its helpers: a lake
    read file by file counts once, as one read_whole did)."""
    calls = []

    def counter(real):
        def counting(*a, **k):
            calls.append(1)
            got = real(*a, **k)
            if got is None:  # (files that differ: read by read_whole next)
                calls.pop()
            return got
        return counting

    for name in ("read_whole", "read_files"):
        wrapped = counter(getattr(_scan_whole, name))
        monkeypatch.setattr(_scan_whole, name, wrapped)
        monkeypatch.setattr(_read_scan, name, wrapped)
    monkeypatch.setenv(_read_scan.ROUTE_ENV, "scanner")
    return calls
