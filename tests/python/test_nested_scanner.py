"""Nested columns (lists, structs, maps) through the streaming scanner: the
scanner assembles each nested field per row group in C++ (the column
reader's assembly) and slices it by top-level rows. Dataset scans, filesystem=
scans, S3 scans, read_table and ParquetFile.read of nested lakes give the
rows of pyarrow.dataset and of the column reader (``PQFAST_READ_ROUTE=reader``);
batches never split, repeat or drop a row at batch_size 7 or large; strings=
"view" reaches the leaves; memory stays within the limit; the route taken
is the scanner's, seen by its stats (``StreamInfo``) and by counting calls of
its helper, never by message text. Filtered scans take the scanner too: the
engine selects rows on the flat filter columns and the scanner takes those
rows of each nested field; their rows equal pyarrow.dataset's and the column
reader's rows filtered by pyarrow.compute (random filters: IN, ranges, null
tests, ORs; hive partitions; filesystem= fed scans; S3)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _errors, _read_scan
from pqfast._stream_io import StreamInfo

from scanner_routes import routed, routes  # noqa: F401

from s3_fixtures import opts, proxy, s3  # noqa: F401

COMPAT = Path(__file__).resolve().parents[2] / "tests" / "data" / "compat"
SCANNER = Path(__file__).resolve().parents[2] / "tests" / "data" / "scanner"


def _nested_table(n: int, seed: int) -> pa.Table:
    """Random rows: lists of strings (null and empty lists, null elements),
    a struct with nulls at both levels, a map, and a list of structs of
    lists and structs (deep nesting)."""
    rng = np.random.default_rng(seed)
    base = seed * 1_000_000

    def maybe(p):
        return rng.random() < p

    ls, st, m, deep, v = [], [], [], [], []
    for i in range(n):
        v.append(None if maybe(0.2) else int(rng.integers(0, 1000)))
        ls.append(None if maybe(0.1) else [None if maybe(0.1) else f"s{base + i}-{j}" * int(rng.integers(1, 4))
                                           for j in range(int(rng.integers(0, 5)))])
        st.append(None if maybe(0.15) else {"a": None if maybe(0.2) else int(rng.integers(-9, 9)),
                                            "b": None if maybe(0.2) else f"b{int(rng.integers(0, 40))}"})
        m.append(None if maybe(0.1) else [(f"k{j}", None if maybe(0.1) else int(base + i + j))
                                          for j in range(int(rng.integers(0, 4)))])
        deep.append(None if maybe(0.1) else [
            None if maybe(0.1) else {"x": None if maybe(0.2) else [int(v) for v in rng.integers(0, 99, int(rng.integers(0, 3)))],
                                     "y": None if maybe(0.2) else {"z": f"z{int(rng.integers(0, 9))}"}}
            for _ in range(int(rng.integers(0, 3)))])
    return pa.table({
        "id": pa.array(np.arange(base, base + n, dtype=np.int64)),
        "v": pa.array(v, pa.int64()),
        "ls": pa.array(ls, pa.list_(pa.string())),
        "st": pa.array(st, pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "m": pa.array(m, pa.map_(pa.string(), pa.int64())),
        "deep": pa.array(deep, pa.list_(pa.struct([("x", pa.list_(pa.int64())),
                                                   ("y", pa.struct([("z", pa.string())]))]))),
    })


def _lake(root: Path, files: int = 3, rows: int = 900, row_group: int = 250) -> list[str]:
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(files):
        p = str(root / f"part-{k}.parquet")
        pq.write_table(_nested_table(rows + 37 * k, k + 1), p, row_group_size=row_group,
                       data_page_size=2048 if k % 2 else 1 << 20, compression=["snappy", "zstd", "none"][k % 3],
                       data_page_version="2.0" if k == 1 else "1.0")
        paths.append(p)
    return paths


def _by_reader(monkeypatch, paths: list[str], **kw) -> pa.Table:
    """The files read by the column reader, one after the other."""
    monkeypatch.setenv(_read_scan.ROUTE_ENV, "reader")
    try:
        return pa.concat_tables([pqfast.read_table(p, **kw) for p in paths])
    finally:
        monkeypatch.delenv(_read_scan.ROUTE_ENV)


def _scanned(sc, batch_size: int) -> pa.Table:
    batches = list(sc.to_batches())
    assert all(0 < b.num_rows <= batch_size for b in batches)
    # The route: the C++ scanner (its stats), which decoded every unit.
    info = sc.last_readahead
    assert isinstance(info, StreamInfo)
    assert info.stats["units_decoded"] > 0
    return pa.Table.from_batches(batches, schema=sc.projected_schema)


@pytest.mark.parametrize("batch_size", [7, 1000, 1 << 20])
@pytest.mark.parametrize("columns", [None, ["deep", "id"], ["m"], ["st", "ls"]])
def test_dataset_scan_equals_pyarrow_and_the_column_reader(tmp_path, monkeypatch, batch_size, columns):
    paths = _lake(tmp_path / "lake")
    sc = pqfast.dataset(str(tmp_path / "lake")).scanner(columns=columns, batch_size=batch_size)
    got = _scanned(sc, batch_size)
    want = _by_reader(monkeypatch, paths, columns=columns)
    assert got.equals(want)
    assert got.schema.equals(want.schema)
    pa_want = pads.dataset(str(tmp_path / "lake")).to_table(columns=columns)
    assert got.to_pylist() == pa_want.to_pylist()
    if columns is None or "id" in columns:
        ids = got.column("id").to_numpy()
        assert len(np.unique(ids)) == len(ids) == sum(pq.ParquetFile(p).metadata.num_rows for p in paths)


def test_batches_cut_inside_row_groups_keep_every_list_whole(tmp_path, monkeypatch):
    # Batch boundaries fall inside row groups (250 rows, batches of 7 and
    # 64): each batch's lists are its own rows' (their offsets sliced), so
    # the concatenated batches hold every element once, in order.
    paths = _lake(tmp_path / "lake", files=2)
    want = _by_reader(monkeypatch, paths, columns=["ls", "deep"])
    for bs in (7, 64):
        sc = pqfast.dataset(str(tmp_path / "lake")).scanner(columns=["ls", "deep"], batch_size=bs)
        rows = []
        for b in sc.to_batches():
            assert b.num_rows <= bs
            rows.extend(b.to_pylist())
        assert rows == want.to_pylist()
        flat = pa.concat_arrays([b.column(0).flatten() for b in
                                 pqfast.dataset(str(tmp_path / "lake")).scanner(columns=["ls"], batch_size=bs)
                                 .to_batches()])
        assert flat.equals(want.column("ls").combine_chunks().flatten())


def test_strings_view_reaches_the_leaves(tmp_path, monkeypatch):
    paths = _lake(tmp_path / "lake", files=2)
    sc = pqfast.dataset(str(tmp_path / "lake"), strings="view").scanner(batch_size=100)
    got = _scanned(sc, 100)
    assert got.schema.field("ls").type == pa.list_(pa.string_view())
    assert got.schema.field("m").type.key_type == pa.string_view()
    want = _by_reader(monkeypatch, paths, strings="view")
    assert got.equals(want)


def test_read_table_and_parquet_file_read_go_through_the_scanner(tmp_path, monkeypatch, routed):
    paths = _lake(tmp_path / "lake", files=2)
    want = _by_reader(monkeypatch, paths)
    one = pqfast.read_table(paths[0])
    assert len(routed) == 1
    assert one.equals(_by_reader(monkeypatch, paths[:1]))
    assert one.schema.equals(pq.read_table(paths[0]).schema)
    whole = pqfast.read_table(str(tmp_path / "lake"))
    assert len(routed) == 2
    assert whole.equals(want)
    with pqfast.ParquetFile(paths[1]) as f:
        got = f.read(columns=["m", "id"], row_groups=[2, 0])
        assert len(routed) == 3
        ref = pq.ParquetFile(paths[1]).read_row_groups([2, 0], columns=["m", "id"])
        assert got.to_pylist() == ref.to_pylist()
        assert got.schema.equals(ref.schema)
        assert f.read(row_groups=[]).schema.equals(one.schema)
    for threads in (1, 2):
        assert pqfast.read_table(paths[0], threads=threads).equals(one)
    assert len(routed) == 5


def test_what_the_scanner_does_not_take_keeps_the_column_reader(tmp_path, routed):
    p = str(tmp_path / "n.parquet")
    t = pa.table({"id": [1, 2, 3], "l": [[1], None, [2, 3]], "st": [{"a": 1}, None, {"a": 3}],
                  "big": pa.array([[1], [2, 3], None], pa.large_list(pa.int64()))})
    pq.write_table(t, p)
    # A struct field reference ("st.a") and a large list (a retyping after the
    # read): the column reader.
    assert pqfast.read_table(p, columns=["st.a"]).column(0).to_pylist() == [1, None, 3]
    assert pqfast.read_table(p, columns=["big"]).equals(pq.read_table(p, columns=["big"]))
    assert not routed
    assert pqfast.read_table(p, columns=["l", "st", "id"]).equals(pq.read_table(p, columns=["l", "st", "id"]))
    assert len(routed) == 1


@pytest.mark.parametrize("name", sorted(p.name for p in COMPAT.glob("legacy_*.parquet")))
def test_legacy_two_level_lists_equal_the_column_reader(name, monkeypatch, routed):
    # parquet-java's, Spark's, Hive's and Thrift's 2-level lists and maps
    # (tests/data/compat): read through the scanner as the column reader reads them.
    path = str(COMPAT / name)
    monkeypatch.setenv(_read_scan.ROUTE_ENV, "reader")
    try:
        want = pqfast.read_table(path)
    except pqfast.FormatError as e:
        monkeypatch.delenv(_read_scan.ROUTE_ENV)
        with pytest.raises(pqfast.FormatError) as got:
            pqfast.read_table(path)
        assert got.value.code == e.code
        return
    monkeypatch.delenv(_read_scan.ROUTE_ENV)
    got = pqfast.read_table(path)
    assert len(routed) == 1  # (every legacy form the column reader reads, the scanner reads)
    assert got.equals(want)
    assert got.schema.equals(want.schema)
    sc = pqfast.dataset(path).scanner(batch_size=1)
    batches = list(sc.to_batches())
    if isinstance(sc.last_readahead, StreamInfo):
        assert pa.Table.from_batches(batches, schema=sc.projected_schema).equals(want)


def test_head_and_memory_limit(tmp_path, monkeypatch):
    paths = _lake(tmp_path / "lake", files=3, rows=2000, row_group=500)
    d = pqfast.dataset(str(tmp_path / "lake"))
    want = _by_reader(monkeypatch, paths)
    assert d.head(10).equals(want.slice(0, 10))
    limit = 1 << 20
    sc = d.scanner(batch_size=333, memory_limit=limit)
    got = _scanned(sc, 333)
    assert got.equals(want)
    assert 0 < sc.last_readahead.peak_held <= limit
    with pytest.raises(pqfast.MemoryLimitError):
        list(d.scanner(memory_limit=4096).to_batches())


def test_filesystem_scans_feed_the_nested_leaves(tmp_path, monkeypatch):
    import fsspec
    import pyarrow.fs as pafs

    paths = _lake(tmp_path / "lake", files=2)
    want = _by_reader(monkeypatch, paths)
    for fs in (pafs.LocalFileSystem(), fsspec.filesystem("file")):
        sc = pqfast.dataset(str(tmp_path / "lake"), filesystem=fs).scanner(batch_size=77, memory_limit=1 << 20)
        assert _scanned(sc, 77).equals(want), type(fs)
        assert sc.last_readahead.peak_held <= 1 << 20


def test_s3_scans_feed_the_nested_leaves(s3, opts, tmp_path, monkeypatch):  # noqa: F811
    import obstore

    paths = _lake(tmp_path / "lake", files=2)
    store = s3.store()
    for p in paths:
        obstore.put(store, "nested/" + os.path.basename(p), open(p, "rb").read())
    want = _by_reader(monkeypatch, paths)
    remote = pqfast.dataset(f"s3://{s3.bucket}/nested/", storage_options=opts)
    for bs in (7, 1000):
        sc = remote.scanner(batch_size=bs, memory_limit=1 << 20)
        assert _scanned(sc, bs).equals(want), bs


def test_a_corrupt_nested_chunk_is_a_format_error(tmp_path):
    # Garbage over a nested leaf's levels: a FormatError naming the file, no crash.
    src = SCANNER / "nested_rg.parquet"
    meta = pq.ParquetFile(src).metadata
    leaf = [meta.schema.column(i).path for i in range(meta.num_columns)].index("ls.list.element")
    at = meta.row_group(1).column(leaf).data_page_offset
    data = bytearray(src.read_bytes())
    hit = 0
    for skip in (0, 24):
        bad = bytearray(data)
        for k in range(at + skip, at + skip + 40):
            bad[k] = 0xA5 ^ (k & 0xFF)
        p = tmp_path / f"bad{skip}.parquet"
        p.write_bytes(bytes(bad))
        try:
            t = pqfast.read_table(str(p), columns=["id", "ls"])
        except pqfast.FormatError as e:
            assert str(p) in str(e) and "row group 1" in str(e)
            hit += 1
        else:
            assert t.num_rows == 500
        # Under a filter every row passes: the engine's selection taken of the
        # corrupt field, read from the file and fed (filesystem=) alike.
        for read in (lambda: pqfast.read_table(str(p), columns=["id", "ls"], filters=[("id", ">", -(1 << 62))]),
                     lambda: pqfast.dataset(str(p), filesystem=pafs.LocalFileSystem()).scanner(
                         columns=["id", "ls"], filter=pads.field("id") > -(1 << 62)).to_table()):
            try:
                t = read()
            except pqfast.FormatError as e:
                assert "row group 1" in str(e)
                hit += 1
            else:
                assert t.num_rows == 500
    assert hit >= 3


def _random_filters(seed: int, ids: np.ndarray) -> list:
    """Filters on the flat columns (``id``: every row's own; ``v``: values
    0..999 with nulls): IN lists, ranges, null tests, ORs, none and all."""
    rng = np.random.default_rng(seed)
    f, out = pads.field, []
    for _ in range(6):
        pick = [int(x) for x in rng.choice(ids, 5)]
        lo = int(rng.integers(0, 900))
        a, b = sorted(int(x) for x in rng.choice(ids, 2))
        out += [
            f("id").isin(pick),
            (f("id") >= a) & (f("id") < b),
            (f("v") >= lo) & (f("v") < lo + int(rng.integers(1, 120))),
            f("v").is_null() | (f("id") == pick[0]),
            ~f("v").is_null() & (f("v") < lo),
        ]
    return out + [f("id") < 0, f("id") >= 0]


def _filtered_by_reader(want: pa.Table, expr) -> pa.Table:
    """The column reader's rows a filter keeps, by pyarrow.compute."""
    return want.filter(expr)


@pytest.mark.parametrize("batch_size", [7, 1 << 20])
@pytest.mark.parametrize("columns", [None, ["deep", "id"], ["m", "v"], ["st", "ls"]])
def test_filtered_dataset_scans_of_nested_columns_take_the_scanner(tmp_path, monkeypatch, batch_size, columns):
    paths = _lake(tmp_path / "lake", files=3, rows=600, row_group=150)
    d = pqfast.dataset(str(tmp_path / "lake"))
    whole = _by_reader(monkeypatch, paths)
    pa_d = pads.dataset(str(tmp_path / "lake"))
    for expr in _random_filters(batch_size + len(columns or ()), whole.column("id").to_numpy()):
        sc = d.scanner(columns=columns, filter=expr, batch_size=batch_size)
        batches = list(sc.to_batches())
        assert all(0 < b.num_rows <= batch_size for b in batches)
        info = sc.last_readahead
        assert isinstance(info, StreamInfo)  # (the route: the C++ scanner, whose engine ran the filter)
        assert info.stats["engine"]["row_groups"] > 0
        got = pa.Table.from_batches(batches, schema=sc.projected_schema)
        want = _filtered_by_reader(whole, expr)
        if columns is not None:
            want = want.select(columns)
        assert got.equals(want), expr
        assert got.to_pylist() == pa_d.to_table(columns=columns, filter=expr).to_pylist(), expr


def test_filtered_scans_of_nested_columns_stay_within_memory(tmp_path, monkeypatch):
    paths = _lake(tmp_path / "lake", files=3, rows=2000, row_group=500)
    whole = _by_reader(monkeypatch, paths)
    expr = pads.field("v") < 500
    limit = 1 << 20
    sc = pqfast.dataset(str(tmp_path / "lake")).scanner(filter=expr, batch_size=333, memory_limit=limit)
    got = _scanned(sc, 333)
    assert got.equals(whole.filter(expr))
    assert 0 < sc.last_readahead.peak_held <= limit
    with pytest.raises(pqfast.MemoryLimitError):
        list(pqfast.dataset(str(tmp_path / "lake")).scanner(filter=expr, memory_limit=4096).to_batches())


def test_filtered_read_table_of_nested_columns_takes_the_scanner(tmp_path, monkeypatch, routes):  # noqa: F811
    calls, _ = routes
    paths = _lake(tmp_path / "lake", files=3, rows=600, row_group=150)
    whole = _by_reader(monkeypatch, paths)
    entries = pq.read_table(paths[0]).schema.field("m").type.field(0).name
    base = 1_000_000
    filters = [[("id", "in", [base + 3, base + 599, 2_000_100, 3_000_000])],
               [("v", ">=", 100), ("v", "<", 300)],
               [("id", "<", base + 40)],
               [("id", ">", 3_000_500)]]
    for k, flt in enumerate(filters):
        for columns in (None, ["ls", "id"], ["m"], ["deep", "st"]):
            got = pqfast.read_table(str(tmp_path / "lake"), columns=columns, filters=flt)
            want = whole.filter(pq.filters_to_expression(flt))
            if columns is not None:
                want = want.select(columns)
            assert got.equals(want), (flt, columns)
            assert got.schema.equals(want.schema)
            # Map entries keep pyarrow's name, not the C import's "entries".
            if "m" in got.column_names:
                assert got.schema.field("m").type.field(0).name == entries != "entries"
                assert all(c.type.field(0).name == entries for c in got.column("m").chunks)
    assert len(calls) == 16  # (every read through the scanner)


def test_filtered_scans_of_a_hive_lake_with_nested_columns(tmp_path, monkeypatch):
    root = tmp_path / "hive"
    paths = []
    for k in range(3):
        d = root / f"k={k}"
        d.mkdir(parents=True)
        p = str(d / "part.parquet")
        pq.write_table(_nested_table(300 + k, k + 1), p, row_group_size=80)
        paths.append(p)
    f = pads.field
    pa_d = pads.dataset(str(root), partitioning="hive")
    d = pqfast.dataset(str(root))
    for expr in [(f("k") == 1) & (f("v") < 300), (f("k") != 0) | f("v").is_null(), f("id").isin([1_000_005, 3_000_017])]:
        for columns in (None, ["ls", "k"], ["m", "deep"]):
            sc = d.scanner(columns=columns, filter=expr, batch_size=64)
            got = pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema)
            assert isinstance(sc.last_readahead, StreamInfo)
            want = pa_d.to_table(columns=columns, filter=expr)
            assert got.to_pylist() == want.to_pylist(), (expr, columns)
        got = pqfast.read_table(str(root), filters=expr)
        assert got.to_pylist() == pa_d.to_table(filter=expr).to_pylist(), expr


def test_filtered_fed_scans_of_nested_columns(tmp_path, monkeypatch):
    # filesystem= scans feed the scanner (the engine's runs over the bytes
    # fed, then each matching unit's nested chunks asked for).
    import fsspec
    import pyarrow.fs as pafs

    # Files past the footer tail the scanner asks first: the early row
    # groups' nested chunks are asked for after the engine's run (kept).
    paths = _lake(tmp_path / "lake", files=2, rows=6000, row_group=1000)
    whole = _by_reader(monkeypatch, paths)
    for fs in (pafs.LocalFileSystem(), fsspec.filesystem("file")):
        d = pqfast.dataset(str(tmp_path / "lake"), filesystem=fs)
        rounds = 0
        for expr in _random_filters(3, whole.column("id").to_numpy())[:8]:
            sc = d.scanner(filter=expr, batch_size=50, memory_limit=4 << 20)
            got = pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema)
            assert all(0 < b.num_rows <= 50 for b in got.to_batches())
            assert isinstance(sc.last_readahead, StreamInfo)
            assert got.equals(_filtered_by_reader(whole, expr)), (type(fs), expr)
            assert sc.last_readahead.peak_held <= 4 << 20
            rounds += sc.last_readahead.stats["nested_rounds"]
        assert rounds > 0


def test_s3_filtered_scans_of_nested_columns(s3, opts, tmp_path, monkeypatch):  # noqa: F811
    import obstore

    paths = _lake(tmp_path / "lake", files=2)
    store = s3.store()
    for p in paths:
        obstore.put(store, "nestedf/" + os.path.basename(p), open(p, "rb").read())
    whole = _by_reader(monkeypatch, paths)
    remote = pqfast.dataset(f"s3://{s3.bucket}/nestedf/", storage_options=opts)
    for expr in _random_filters(5, whole.column("id").to_numpy())[:5]:
        sc = remote.scanner(filter=expr, batch_size=7, memory_limit=1 << 20)
        got = pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema)
        assert isinstance(sc.last_readahead, StreamInfo)
        assert got.equals(_filtered_by_reader(whole, expr)), expr


def test_streamed_map_batches_keep_the_files_entry_names(tmp_path):
    # Streams (local and filesystem= fed), filtered or not, name the map
    # entries as the file and pyarrow do, batch by batch (slices included).
    import pyarrow.fs as pafs

    paths = _lake(tmp_path / "lake", files=2)
    want = pq.read_table(paths[0]).schema.field("m").type.field(0).name
    assert want != "entries"
    for fs in (None, pafs.LocalFileSystem()):
        d = pqfast.dataset(str(tmp_path / "lake"), filesystem=fs)
        for flt in (None, pads.field("v") < 500):
            for b in d.scanner(columns=["id", "m"], filter=flt, batch_size=7).to_batches():
                assert b.schema.field("m").type.field(0).name == want
                assert b.column(1).type.field(0).name == want


def test_filters_on_a_nested_leaf(tmp_path):
    # read_table refuses a filter on a nested leaf (pyarrow's read_table does
    # too), typed; a dataset scan leaves it to pyarrow.compute on each batch
    # (as pyarrow.dataset evaluates it), the rest through the scanner.
    _lake(tmp_path / "lake", files=1)
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.read_table(str(tmp_path / "lake"), filters=[("st.a", "=", 1)])
    assert e.value.code == _errors.UNSUPPORTED and "st.a" in str(e.value)
    expr = (pads.field("st", "a") == 1) & (pads.field("v") < 700)
    sc = pqfast.dataset(str(tmp_path / "lake")).scanner(filter=expr, batch_size=9)
    got = pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema)
    assert isinstance(sc.last_readahead, StreamInfo)
    want = pads.dataset(str(tmp_path / "lake")).to_table(filter=expr)
    assert want.num_rows and got.to_pylist() == want.to_pylist()


@pytest.mark.parametrize("name", sorted(p.name for p in COMPAT.glob("legacy_*.parquet")))
def test_filtered_legacy_two_level_lists_equal_the_column_reader(name, monkeypatch, routes):  # noqa: F811
    # parquet-java's, Spark's, Hive's and Thrift's 2-level lists and maps
    # under a filter on their flat `id`: the scanner's rows are the column
    # reader's rows the filter keeps (pyarrow.compute), at batch size 1 too.
    calls, _ = routes
    path = str(COMPAT / name)
    monkeypatch.setenv(_read_scan.ROUTE_ENV, "reader")
    try:
        whole = pqfast.read_table(path)
    except pqfast.FormatError:
        return  # (a schema the column reader refuses: test_legacy_two_level_lists_equal_the_column_reader)
    finally:
        monkeypatch.delenv(_read_scan.ROUTE_ENV)
    ids = sorted(x for x in whole.column("id").to_pylist() if x is not None)
    if not ids:
        return
    for flt in ([("id", "in", ids[::2])], [("id", ">=", ids[len(ids) // 2])]):
        expr = pq.filters_to_expression(flt)
        got = pqfast.read_table(path, filters=flt)
        want = whole.filter(expr)
        assert got.equals(want), flt
        sc = pqfast.dataset(path).scanner(filter=expr, batch_size=1)
        streamed = pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema)
        assert isinstance(sc.last_readahead, StreamInfo)
        assert streamed.to_pylist() == want.to_pylist(), flt
    assert len(calls) == 2  # (each read_table through the scanner)


def test_filtered_reads_of_nested_columns_retyped_after_the_read(tmp_path, monkeypatch, routes):  # noqa: F811
    # Columns the embedded schema retypes (large, fixed-size lists, a time
    # zone inside a struct) and a struct field reference ("st.a"): read by
    # the scanner as assembled, each row group finished as the column
    # reader finishes it; the rows are pyarrow's and the other route's.
    calls, other = routes
    n = 700
    rng = np.random.default_rng(7)
    t = pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "big": pa.array([None if i % 9 == 0 else list(range(i % 4)) for i in range(n)], pa.large_list(pa.int64())),
        "fix": pa.array([None if i % 7 == 0 else [i, i + 1] for i in range(n)], pa.list_(pa.int32(), 2)),
        "st": pa.array([None if i % 5 == 0 else {"a": int(rng.integers(0, 9)), "ts": i * 1000} for i in range(n)],
                       pa.struct([("a", pa.int32()), ("ts", pa.timestamp("ms", tz="UTC"))])),
        "m": pa.array([[(f"k{i % 3}", [i])] for i in range(n)], pa.map_(pa.string(), pa.large_list(pa.int64()))),
    })
    p = str(tmp_path / "r.parquet")
    pq.write_table(t, p, row_group_size=128)
    for flt in ([("id", "<", 200)], [("id", "in", [3, 128, 699])], [("id", ">", 10_000)]):
        for columns in (None, ["big", "id"], ["fix"], ["st.a", "id"], ["m"]):
            before = len(calls)
            got = pqfast.read_table(p, columns=columns, filters=flt)
            assert len(calls) == before + 1  # (through the scanner's lean route)
            want = pq.read_table(p, columns=columns, filters=flt)
            assert got.to_pylist() == want.to_pylist(), (flt, columns)
            assert got.schema.equals(want.schema), (got.schema, want.schema)
            old = other(p, columns=columns, filters=flt)
            assert got.equals(old) and got.schema.equals(old.schema), (flt, columns)
