"""Nested columns with dictionary leaves (list<dictionary<string>>, a struct
with a dictionary field, a map whose values are dictionary<int8>) and nested
columns the read retypes (large lists, list views, a struct field
reference), filtered or not: the last reads that took the engine's own call
(``_scan_local`` and Python assembly) or the dataset's row-group units. Now
the one streaming scanner reads them: a dictionary leaf comes out of C++ as
a dictionary array (its chunk's dictionary page, then the values of pages
not dictionary-encoded, as pyarrow builds it), the rows a filter keeps taken
in C++; a retyped column is finished batch by batch.

Differential against pyarrow.dataset (random filters, batch_size 1, 7 and
large, a small memory_limit, hive partitions; local, ``filesystem=`` and S3
on SeaweedFS), the route proven by the scanner's own stats (``StreamInfo``)
and by the ``routes`` fixture for read_table."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast._stream_io import StreamInfo

from scanner_routes import routes  # noqa: F401

from s3_fixtures import opts, proxy, s3  # noqa: F401

F = pads.field


def _table(n: int, seed: int) -> pa.Table:
    """Random rows: nullable flat `v`, a list of dictionary strings (null
    lists, null elements), a struct of a dictionary string and an int, a map
    of dictionary<int8> values, a large list and a list view."""
    rng = np.random.default_rng(seed)
    base = seed * 100_000
    words = [f"w{k}" * (1 + k % 3) for k in range(23)]

    def word():
        return None if rng.random() < 0.1 else words[int(rng.integers(0, len(words)))]

    v, ld, sd, md, big, lv = [], [], [], [], [], []
    for i in range(n):
        v.append(None if rng.random() < 0.2 else int(rng.integers(0, 1000)))
        ld.append(None if rng.random() < 0.1 else [word() for _ in range(int(rng.integers(0, 4)))])
        sd.append(None if rng.random() < 0.1 else {"d": word(), "i": int(rng.integers(-5, 5))})
        md.append(None if rng.random() < 0.1 else [(f"k{j}", word()) for j in range(int(rng.integers(0, 3)))])
        big.append(None if rng.random() < 0.1 else [int(x) for x in rng.integers(0, 50, int(rng.integers(0, 3)))])
        lv.append(None if rng.random() < 0.1 else [int(x) for x in rng.integers(0, 9, int(rng.integers(0, 3)))])
    return pa.table({
        "id": pa.array(np.arange(base, base + n, dtype=np.int64)),
        "v": pa.array(v, pa.int64()),
        "ld": pa.array(ld, pa.list_(pa.dictionary(pa.int32(), pa.string()))),
        "sd": pa.array(sd, pa.struct([("d", pa.dictionary(pa.int32(), pa.string())), ("i", pa.int32())])),
        "md": pa.array(md, pa.map_(pa.string(), pa.dictionary(pa.int8(), pa.string()))),
        "big": pa.array(big, pa.large_list(pa.int64())),
        "lv": pa.array(lv, pa.list_view(pa.int32())),
    })


def _write(t: pa.Table, p: str, k: int) -> None:
    # Dictionary pages, a writer's fallback to plain pages (a small
    # dictionary page limit), data pages v2 and several codecs.
    pq.write_table(t, p, row_group_size=120, data_page_size=1024 if k % 2 else 1 << 20,
                   dictionary_pagesize_limit=64 if k == 2 else 1 << 20, compression=["snappy", "zstd", "none"][k % 3],
                   data_page_version="2.0" if k == 1 else "1.0")


def _lake(root: Path, files: int = 3, rows: int = 400) -> list[str]:
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(files):
        p = str(root / f"part-{k}.parquet")
        _write(_table(rows + 31 * k, k + 1), p, k)
        paths.append(p)
    return paths


def _hive(root: Path) -> None:
    for k in range(3):
        d = root / f"g={k}"
        d.mkdir(parents=True)
        _write(_table(300 + 17 * k, k + 5), str(d / "part.parquet"), k)


def _filters(seed: int, ids: np.ndarray, keys: bool = False) -> list:
    """IN lists, ranges, null tests and ORs on the flat columns (and on
    the hive key `g`), none and all."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(4):
        pick = [int(x) for x in rng.choice(ids, 5)]
        a, b = sorted(int(x) for x in rng.choice(ids, 2))
        lo = int(rng.integers(0, 900))
        out += [F("id").isin(pick), (F("id") >= a) & (F("id") < b),
                (F("v") >= lo) & (F("v") < lo + int(rng.integers(1, 150))),
                F("v").is_null() | (F("id") == pick[0])]
        if keys:
            out += [(F("g") == int(rng.integers(0, 3))) & (F("v") < lo), (F("g") != 1) | F("v").is_null()]
    return out + [F("id") < 0, F("id") >= 0]


def _scan(d, batch_size: int, **kw) -> pa.Table:
    sc = d.scanner(batch_size=batch_size, **kw)
    batches = list(sc.to_batches())
    assert all(0 < b.num_rows <= batch_size for b in batches)
    info = sc.last_readahead
    assert isinstance(info, StreamInfo)  # (the route: the C++ scanner, which started a unit per row)
    assert info._closed and (info.started > 0 or not batches)
    return pa.Table.from_batches(batches, schema=sc.projected_schema)


def _same(got: pa.Table, want: pa.Table, what) -> None:
    assert got.to_pylist() == want.to_pylist(), what
    assert got.schema.equals(want.schema), (what, got.schema, want.schema)


COLUMNS = [None, ["ld", "id"], ["sd", "v"], ["md"], ["big", "lv", "ld"]]


@pytest.mark.parametrize("batch_size", [1, 7, 1 << 20])
@pytest.mark.parametrize("columns", COLUMNS)
def test_filtered_dataset_scans_equal_pyarrow(tmp_path, batch_size, columns):
    _lake(tmp_path / "lake", rows=150 if batch_size == 1 else 400)
    d, ref = pqfast.dataset(str(tmp_path / "lake")), pads.dataset(str(tmp_path / "lake"))
    ids = ref.to_table(columns=["id"]).column("id").to_numpy()
    for expr in _filters(batch_size + len(columns or ()), ids)[:(6 if batch_size == 1 else 18)]:
        got = _scan(d, batch_size, columns=columns, filter=expr)
        _same(got, ref.to_table(columns=columns, filter=expr), (expr, columns))


@pytest.mark.parametrize("columns", COLUMNS)
def test_unfiltered_dataset_scans_equal_pyarrow(tmp_path, columns):
    _lake(tmp_path / "lake")
    d, ref = pqfast.dataset(str(tmp_path / "lake")), pads.dataset(str(tmp_path / "lake"))
    for bs in (7, 1 << 20):
        _same(_scan(d, bs, columns=columns), ref.to_table(columns=columns), (bs, columns))
    assert d.head(5, columns=columns).to_pylist() == ref.head(5, columns=columns).to_pylist()
    assert d.count_rows(filter=F("v") < 300) == ref.count_rows(filter=F("v") < 300)


def test_dictionaries_are_each_row_groups_dictionary_page(tmp_path):
    # The dictionary of every batch is pyarrow's for its row group (the
    # page's values in page order): equal chunk by chunk, not only by value.
    p = str(tmp_path / "one.parquet")
    _write(_table(500, 3), p, 0)
    got = pqfast.read_table(p, columns=["ld", "sd", "id"], filters=[("id", ">=", 0)])
    want = pq.read_table(p, columns=["ld", "sd", "id"], filters=[("id", ">=", 0)])
    for name in ("ld", "sd"):
        a, b = got.column(name).combine_chunks(), want.column(name).combine_chunks()
        assert a.equals(b), name


def test_filtered_read_table_takes_the_scanner(tmp_path, routes):  # noqa: F811
    calls, other = routes
    paths = _lake(tmp_path / "lake")
    ids = pq.read_table(paths[0], columns=["id"]).column("id").to_numpy()
    base = int(ids[0])
    cases = [[("id", "in", [base + 3, base + 250, 200_100, 300_000])], [("v", ">=", 100), ("v", "<", 400)],
             [("id", ">", 10 ** 9)]]
    for flt in cases:
        for columns in (None, ["ld", "id"], ["sd"], ["md", "v"], ["sd.d", "id"]):
            before = len(calls)
            got = pqfast.read_table(str(tmp_path / "lake"), columns=columns, filters=flt)
            assert len(calls) == before + 1, (flt, columns)  # (the scanner's lean route)
            want = pads.dataset(str(tmp_path / "lake")).to_table(columns=columns,
                                                                  filter=pq.filters_to_expression(flt))
            assert got.to_pylist() == want.to_pylist(), (flt, columns)
            if columns != ["sd.d", "id"]:
                assert got.schema.equals(want.schema), (flt, columns)
            old = other(str(tmp_path / "lake"), columns=columns, filters=flt)  # (the dataset scan)
            assert got.equals(old), (flt, columns)
            _, st = pqfast.read_table(str(tmp_path / "lake"), columns=columns, filters=flt, stats=True)
            assert st["row_groups"] > 0


def test_hive_lakes(tmp_path):
    _hive(tmp_path / "hive")
    d, ref = pqfast.dataset(str(tmp_path / "hive")), pads.dataset(str(tmp_path / "hive"), partitioning="hive")
    ids = ref.to_table(columns=["id"]).column("id").to_numpy()
    for expr in _filters(11, ids, keys=True)[:14]:
        for columns in (None, ["ld", "g"], ["md", "sd"]):
            got = _scan(d, 64, columns=columns, filter=expr)
            assert got.to_pylist() == ref.to_table(columns=columns, filter=expr).to_pylist(), (expr, columns)
        assert pqfast.read_table(str(tmp_path / "hive"), filters=expr).to_pylist() == \
            ref.to_table(filter=expr).to_pylist(), expr


def test_memory_limit_and_head(tmp_path):
    _lake(tmp_path / "lake", files=3, rows=1500)
    d, ref = pqfast.dataset(str(tmp_path / "lake")), pads.dataset(str(tmp_path / "lake"))
    limit = 1 << 20
    expr = F("v") < 500
    sc = d.scanner(columns=["ld", "sd", "md", "id"], filter=expr, batch_size=333, memory_limit=limit)
    got = pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema)
    assert isinstance(sc.last_readahead, StreamInfo)
    assert 0 < sc.last_readahead.peak_held <= limit
    assert got.to_pylist() == ref.to_table(columns=["ld", "sd", "md", "id"], filter=expr).to_pylist()
    assert d.head(3, filter=expr).to_pylist() == ref.head(3, filter=expr).to_pylist()
    with pytest.raises(pqfast.MemoryLimitError):
        list(d.scanner(filter=expr, memory_limit=4096).to_batches())


def test_filesystem_fed_scans(tmp_path):
    import fsspec
    import pyarrow.fs as pafs

    _lake(tmp_path / "lake")
    ref = pads.dataset(str(tmp_path / "lake"))
    ids = ref.to_table(columns=["id"]).column("id").to_numpy()
    for fs in (pafs.LocalFileSystem(), fsspec.filesystem("file")):
        d = pqfast.dataset(str(tmp_path / "lake"), filesystem=fs)
        for expr in _filters(4, ids)[:6] + [None]:
            for columns in (None, ["ld", "id"], ["big", "sd"]):
                got = _scan(d, 50, columns=columns, filter=expr, memory_limit=4 << 20)
                want = ref.to_table(columns=columns, filter=expr)
                assert got.to_pylist() == want.to_pylist(), (type(fs), expr, columns)


def test_s3_scans(s3, opts, tmp_path):  # noqa: F811
    import obstore

    paths = _lake(tmp_path / "lake", files=2)
    store = s3.store()
    for p in paths:
        obstore.put(store, "nesteddict/" + os.path.basename(p), open(p, "rb").read())
    ref = pads.dataset(str(tmp_path / "lake"))
    ids = ref.to_table(columns=["id"]).column("id").to_numpy()
    remote = pqfast.dataset(f"s3://{s3.bucket}/nesteddict/", storage_options=opts)
    for expr in _filters(5, ids)[:5] + [None]:
        got = _scan(remote, 7, filter=expr, memory_limit=1 << 20)
        _same(got, ref.to_table(filter=expr), expr)
    flt = [("v", "<", 200)]
    got = pqfast.read_table(f"s3://{s3.bucket}/nesteddict/", filters=flt, columns=["ld", "md", "id"],
                            storage_options=opts)
    assert got.to_pylist() == ref.to_table(columns=["ld", "md", "id"],
                                           filter=pq.filters_to_expression(flt)).to_pylist()
