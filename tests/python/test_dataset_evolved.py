"""Dataset scans of lakes whose files are unlike the first (columns added,
dropped, reordered, widened; timestamps of several units), of categoricals
(dictionary types in the ARROW:schema), extension types, narrowed decimals,
durations and ``read_dictionary=``, all through the C++ streaming scanner:
the batches, concatenated, equal pyarrow.dataset and the column reader (each
file read alone and conformed to the first file's schema); batch boundaries
exact; the route asserted by the scan's own record (StreamInfo: one scanner
per run of files read alike), never by timing; the engine-unit route
(``Scanner._units``) no longer exists."""

from __future__ import annotations

import decimal
import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _dataset_scan
from pqfast._stream_io import StreamInfo

from s3_fixtures import opts, proxy, s3  # noqa: F401


@pytest.fixture(autouse=True)
def no_unit_route():
    """The engine-unit route (``Scanner._units``, the engine's own call per
    unit) is gone: the streaming scanner is every scan's route (each test
    checks its StreamInfo)."""
    assert not hasattr(_dataset_scan.Scanner, "_units")


# ---- random evolved lakes -------------------------------------------------------------------------------

_UNITS = ("ms", "us", "ns")


def _file_table(rng, i: int, n: int, start: int) -> pa.Table:
    """File i of an evolved lake: ``id`` always; ``i32`` int32 in even files,
    int64 in odd ones; ``s`` missing from file 1; ``late`` from file 2 on
    (not in the dataset: the first file's schema is); ``ts`` in a unit of
    its own per file; ``cat`` a categorical (dictionary<int8>) except in
    file 2 (plain strings); ``u`` a UUID extension column; ``d`` a duration;
    ``dec`` a decimal32; the columns shuffled after the first file."""
    ids = np.arange(start, start + n, dtype=np.int64)
    unit = _UNITS[i % 3]
    secs = rng.integers(0, 10_000, n) * 1000  # (whole ms: every unit casts to the first's exactly)
    ts = pa.array(secs * {"ms": 1, "us": 1000, "ns": 1_000_000}[unit], pa.timestamp(unit, tz="UTC"))
    cats = [None if x == 0 else f"c{x}" for x in rng.integers(0, 6, n)]
    cat = pa.array(cats).dictionary_encode()
    cat = pa.DictionaryArray.from_arrays(cat.indices.cast(pa.int8()), cat.dictionary) if i != 2 else pa.array(cats)
    cols = {
        "id": pa.array(ids),
        "i32": pa.array(rng.integers(-50, 50, n).astype(np.int32 if i % 2 == 0 else np.int64)),
        "s": pa.array([None if x % 11 == 0 else f"s{x % 7}" for x in rng.integers(0, 1000, n)]),
        "ts": ts,
        "cat": cat,
        "u": pa.ExtensionArray.from_storage(pa.uuid(), pa.array(
            [bytes(rng.integers(0, 256, 16).astype(np.uint8)) for _ in range(n)], pa.binary(16))),
        "d": pa.array(rng.integers(0, 10**6, n), pa.duration("ms")),
        "dec": pa.array([None if x % 5 == 0 else decimal.Decimal(int(x)).scaleb(-2)
                         for x in rng.integers(0, 10**5, n)], pa.decimal128(7, 2)).cast(pa.decimal32(7, 2)),
    }
    if i == 1:
        del cols["s"]
    if i >= 2:
        cols["late"] = pa.array(rng.integers(0, 9, n).astype(np.int16))
    names = list(cols)
    if i:
        rng.shuffle(names)
    return pa.table({k: cols[k] for k in names})


def write_evolved(root: str, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    os.makedirs(root, exist_ok=True)
    paths, start = [], 0
    for i in range(int(rng.integers(3, 7))):
        n = int(rng.integers(1, 2000))
        t = _file_table(rng, i, n, start)
        start += n
        p = os.path.join(root, f"part-{i:03d}.parquet")
        pq.write_table(t, p, row_group_size=int(rng.integers(40, 900)),
                       dictionary_pagesize_limit=int(rng.choice([64, 1 << 20])))
        paths.append(p)
    return paths


def _conformed(t: pa.Table, schema: pa.Schema) -> pa.Table:
    """`t` in `schema`: a column it lacks null, one it types otherwise cast (as pyarrow.dataset does)."""
    cols = [t.column(f.name).cast(f.type) if f.name in t.column_names else pa.nulls(t.num_rows, f.type)
            for f in schema]
    return pa.Table.from_arrays(cols, schema=schema)


def _column_reader(paths, schema, columns, read_dictionary=None) -> pa.Table:
    """Each file read alone by the column reader (ParquetFile.read), conformed to `schema`."""
    out = []
    for p in paths:
        f = pqfast.ParquetFile(p)
        try:
            have = f.read(row_groups=[]).schema.names
            t = f.read(columns=[c for c in (columns if columns is not None else schema.names) if c in have],
                       read_dictionary=read_dictionary)
        finally:
            f.close()
        out.append(_conformed(t, schema))
    return pa.concat_tables(out)


def _same(got: pa.Table, want: pa.Table) -> bool:
    """Equal schemas and values; dictionary columns compared by value (a
    file's plain strings are encoded batch by batch, the reference's chunk by chunk)."""
    if got.schema != want.schema:
        return False
    for a, b in zip(got.columns, want.columns):
        if pa.types.is_dictionary(a.type):
            a, b = a.cast(a.type.value_type), b.cast(b.type.value_type)
        if not a.equals(b):
            return False
    return True


def _batches(ds, columns=None, filter=None, batch_size=131072):
    sc = ds.scanner(columns=columns, filter=filter, batch_size=batch_size)
    batches = list(sc.to_batches())
    info = sc.last_readahead
    assert isinstance(info, StreamInfo) and info._closed, "the C++ scanner did not run the scan"
    assert all(0 < b.num_rows <= batch_size for b in batches)
    assert all(b.schema == sc.projected_schema for b in batches)
    return batches, sc, info


def _expected_sizes(paths, batch_size: int) -> list:
    """The batch sizes of an unfiltered scan: each row group cut into batch_size rows."""
    out = []
    for p in paths:
        md = pq.read_metadata(p)
        for g in range(md.num_row_groups):
            n = md.row_group(g).num_rows
            out += [batch_size] * (n // batch_size) + ([n % batch_size] if n % batch_size else [])
    return out


FILTERS = [
    None,
    pc.field("id") > 700,
    pc.field("s") == "s3",
    pc.field("s").is_null(),
    (pc.field("i32") > 10) | (pc.field("s") == "s1"),
    pc.field("cat") == "c2",
    [("id", "in", [0, 5, 999, 1500, 2600])],
    ~(pc.field("s") == "s2") & (pc.field("id") < 3000),
]


@pytest.mark.parametrize("seed", range(5))
def test_evolved_lakes_equal_pyarrow_dataset_and_the_column_reader(tmp_path, seed):
    root = str(tmp_path / "ev")
    paths = write_evolved(root, seed)
    ds = pqfast.dataset(root)
    schema = ds.schema
    first = pq.read_schema(paths[0])
    assert schema.names == first.names and "late" not in schema.names
    assert schema.field("cat").type == pa.dictionary(pa.int8(), pa.string())
    assert schema.field("u").type == pa.uuid() and schema.field("dec").type == pa.decimal32(7, 2)
    ref_ds = pads.dataset(root, schema=first)
    rng = np.random.default_rng(seed)
    for columns in (None, ["id", "s"], ["ts", "cat", "i32"], ["u", "dec", "d", "id"], []):
        bs = int(rng.choice([1, 7, 100, 1000, 131072])) if columns else 64
        if bs == 1 and columns is None:
            bs = 7
        batches, sc, info = _batches(ds, columns, None, bs)
        got = pa.Table.from_batches(batches, schema=sc.projected_schema)
        # Batch boundaries: each row group cut at batch_size, in file then row order.
        assert [b.num_rows for b in batches] == _expected_sizes(paths, bs), (seed, columns, bs)
        if columns is None:
            # Every file is unlike the one before (units, types, order): a scanner each.
            assert info.scanners == len(paths)
        if columns == []:
            assert got.num_rows == sum(pq.read_metadata(p).num_rows for p in paths)
            continue
        want = _column_reader(paths, sc.projected_schema, columns)
        assert _same(got, want), (seed, columns)
        ref = ref_ds.to_table(columns=columns)
        assert got.to_pylist() == ref.to_pylist(), (seed, columns)
    for f in FILTERS[1:]:
        for columns in (None, ["id", "cat"]):
            batches, sc, info = _batches(ds, columns, f, 333)
            got = pa.Table.from_batches(batches, schema=sc.projected_schema)
            expr = f if isinstance(f, pc.Expression) else pq.filters_to_expression(f)
            ref = ref_ds.to_table(columns=columns, filter=expr)
            assert got.to_pylist() == ref.to_pylist(), (seed, f, columns)


def test_runs_are_one_scanner_each_and_merge_when_read_alike(tmp_path):
    root = str(tmp_path / "runs")
    paths = write_evolved(root, 3)
    ds = pqfast.dataset(root)
    sc = ds.scanner()
    sc.to_table()
    # Every file after the first differs in its columns: one scanner per file.
    assert sc.last_readahead.scanners == len(paths)
    # ``id`` alone is read alike in every file: one scanner for the lake.
    sc = ds.scanner(columns=["id"])
    assert sc.to_table().column("id").to_pylist() == list(range(sc.to_table().num_rows))
    assert sc.last_readahead.scanners == 1


def test_filter_on_a_column_some_files_lack_skips_them(tmp_path):
    """``s == 'x'`` cannot match a file without ``s``: that file is not read."""
    root = str(tmp_path / "skip")
    paths = write_evolved(root, 4)
    ds = pqfast.dataset(root)
    sc = ds.scanner(columns=["id"], filter=pc.field("s") == "s3")
    got = sc.to_table()
    ref = pads.dataset(root, schema=pq.read_schema(paths[0])).to_table(columns=["id"], filter=pc.field("s") == "s3")
    assert got.to_pylist() == ref.to_pylist()
    assert sc.last_readahead.scanners == len(paths) - 1
    # `s is null` is every row of the file without it.
    n1 = pq.read_metadata(paths[1]).num_rows
    n0 = pq.read_metadata(paths[0]).num_rows
    t = ds.to_table(columns=["id"], filter=pc.field("s").is_null())
    assert set(range(n0, n0 + n1)) <= set(t.column("id").to_pylist())


def test_files_that_do_not_cast_fail_typed(tmp_path):
    root = str(tmp_path / "bad")
    os.makedirs(root)
    pq.write_table(pa.table({"a": pa.array([1, 2], pa.int64())}), os.path.join(root, "a.parquet"))
    pq.write_table(pa.table({"a": pa.array(["x", "y"])}), os.path.join(root, "b.parquet"))
    with pytest.raises(pqfast.FormatError, match="does not cast"):
        pqfast.dataset(root).to_table()


# ---- dictionaries -----------------------------------------------------------------------------------------


@pytest.fixture()
def cat_lake(tmp_path):
    d = tmp_path / "cats"
    d.mkdir()
    for i in range(3):
        n = 4000
        cat = [None if j % 97 == 0 else f"c{(j * (i + 3)) % 11}" for j in range(n)]
        t = pa.table({"id": pa.array(range(i * n, (i + 1) * n), pa.int64()), "cat": cat,
                      "amount": pa.array([float(j % 13) for j in range(n)]),
                      "name": [f"name-{(j * 7) % 1500}-{i}" for j in range(n)]})
        # File 1: a small dictionary page limit, so the writer falls back to plain pages mid-chunk.
        pq.write_table(t, d / f"part-{i}.parquet", row_group_size=1500,
                       dictionary_pagesize_limit=64 if i == 1 else 1 << 20)
    return d


def _pyarrow_dictionaries(d, columns, dictionary):
    fmt = pads.ParquetFileFormat(read_options={"dictionary_columns": list(dictionary)})
    return pads.dataset(str(d), format=fmt).to_table(columns=columns)


@pytest.mark.parametrize("column", ["cat", "name"])
def test_read_dictionary_batches_are_pyarrows_dictionaries(cat_lake, column):
    """Batch by batch (one a row group), the same dictionary and indices as
    pyarrow's read_dictionary gives the row group, fallback pages included."""
    ds = pqfast.dataset(str(cat_lake), read_dictionary=[column])
    batches, sc, info = _batches(ds, [column, "id"], None, 1 << 20)
    ref = _pyarrow_dictionaries(cat_lake, [column, "id"], [column]).column(column)
    assert len(batches) == ref.num_chunks == 9
    for b, want in zip(batches, ref.chunks):
        got = b.column(0)
        assert got.type == pa.dictionary(pa.int32(), pa.string())
        assert got.dictionary.equals(want.dictionary)
        assert got.indices.equals(want.indices)


def test_dictionary_shared_by_the_batches_of_a_row_group(cat_lake):
    ds = pqfast.dataset(str(cat_lake), read_dictionary=["cat"])
    batches, sc, info = _batches(ds, ["cat"], None, 100)
    assert [b.num_rows for b in batches] == _expected_sizes(sorted(str(p) for p in cat_lake.iterdir()), 100)
    per_group = 15  # 1,500-row groups in 100-row batches
    first = batches[0].column(0).dictionary.buffers()[2].address
    assert all(b.column(0).dictionary.buffers()[2].address == first for b in batches[:per_group])
    assert batches[per_group].column(0).dictionary.buffers()[2].address != first
    got = pa.Table.from_batches(batches)
    assert got.column("cat").to_pylist() == _pyarrow_dictionaries(cat_lake, ["cat"], []).column("cat").to_pylist()


def test_batches_with_different_dictionaries_to_engines(cat_lake):
    """Batches of one column carry different dictionaries: a reader, a
    table, DuckDB and polars take them."""
    ds = pqfast.dataset(str(cat_lake), read_dictionary=["cat"])
    want = _pyarrow_dictionaries(cat_lake, ["cat", "amount"], [])
    r = ds.scanner(columns=["cat", "amount"], batch_size=700).to_reader()
    t = r.read_all()
    assert t.column("cat").to_pylist() == want.column("cat").to_pylist()
    assert t.column("cat").unify_dictionaries().to_pylist() == want.column("cat").to_pylist()
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("t", ds)
    sql = "SELECT cat, count(*) AS n, sum(amount) AS s FROM {} GROUP BY cat ORDER BY cat NULLS FIRST"
    assert con.sql(sql.format("t")).fetchall() == con.sql(sql.format(f"read_parquet('{cat_lake}/*.parquet')")).fetchall()
    pl = pytest.importorskip("polars")
    df = pl.from_arrow(ds.to_table(columns=["cat"]))
    assert df["cat"].cast(pl.String).to_list() == want.column("cat").to_pylist()


def test_read_dictionary_filtered(cat_lake):
    ds = pqfast.dataset(str(cat_lake), read_dictionary=["cat"])
    flt = (pc.field("amount") > 6) & (pc.field("cat") == "c4")
    batches, sc, info = _batches(ds, ["cat", "id"], flt, 500)
    got = pa.Table.from_batches(batches, schema=sc.projected_schema)
    assert ds.scan_stats["route"] == "scanner"
    ref = pads.dataset(str(cat_lake)).to_table(columns=["cat", "id"], filter=flt)
    assert got.schema.field("cat").type == pa.dictionary(pa.int32(), pa.string())
    assert got.to_pylist() == ref.to_pylist()


def test_categorical_index_types_and_ordered(tmp_path):
    """An embedded dictionary<uint8, ordered> (polars' Enum) and dictionary<int16>
    come out with their index types, as pyarrow gives them."""
    p = str(tmp_path / "c.parquet")
    vals = ["a", "b", None, "c"] * 300
    enc = pa.array(vals).dictionary_encode()
    t = pa.table({"e": pa.DictionaryArray.from_arrays(enc.indices.cast(pa.uint8()), enc.dictionary, ordered=True),
                  "k": pa.DictionaryArray.from_arrays(enc.indices.cast(pa.int16()), enc.dictionary)})
    pq.write_table(t, p, row_group_size=500)
    ds = pqfast.dataset(p)
    batches, sc, info = _batches(ds, None, None, 128)
    got = pa.Table.from_batches(batches, schema=sc.projected_schema)
    ref = pq.read_table(p)
    assert got.schema.field("e").type == ref.schema.field("e").type
    assert got.schema.field("k").type == ref.schema.field("k").type
    assert got.to_pylist() == ref.to_pylist()


def test_extension_and_json_columns(tmp_path):
    p = str(tmp_path / "x.parquet")
    t = pa.table({"u": pa.ExtensionArray.from_storage(pa.uuid(), pa.array([bytes([i]) * 16 for i in range(50)],
                                                                           pa.binary(16))),
                  "j": pa.array(['{"a": %d}' % i for i in range(50)], pa.json_(pa.string())),
                  "id": pa.array(range(50))})
    pq.write_table(t, p, row_group_size=20)
    ds = pqfast.dataset(p)
    batches, sc, info = _batches(ds, None, None, 7)
    got = pa.Table.from_batches(batches, schema=sc.projected_schema)
    ref = pq.read_table(p)
    assert got.schema.field("u").type == ref.schema.field("u").type
    assert got.schema.field("j").type == ref.schema.field("j").type
    assert got.equals(pqfast.ParquetFile(p).read())
    assert got.to_pylist() == ref.to_pylist()


def test_untyped_filter_evaluated_on_the_batches(data_dir, tmp_path):
    """A filter on a BYTE_ARRAY DECIMAL column (which the engine cannot type)
    is applied to the scanner's batches by pyarrow.compute."""
    src = data_dir / "byte_array_decimal.parquet"
    ds = pqfast.dataset(str(src))
    name = ds.schema.names[0]
    flt = pc.field(name) > decimal.Decimal("10.00")
    batches, sc, info = _batches(ds, None, flt, 5)
    got = pa.Table.from_batches(batches, schema=sc.projected_schema)
    ref = pads.dataset(str(src)).to_table(filter=flt)
    assert got.num_rows and got.to_pylist() == ref.to_pylist()


def test_s3_evolved_lake_through_the_scanner(s3, opts, tmp_path):  # noqa: F811
    import obstore

    root = str(tmp_path / "s3ev")
    paths = write_evolved(root, 7)
    store = s3.store()
    for p in paths:
        obstore.put(store, "evolved/" + os.path.basename(p), open(p, "rb").read())
    local = pqfast.dataset(root)
    remote = pqfast.dataset(f"s3://{s3.bucket}/evolved/", storage_options=opts)
    for columns, flt in ((None, None), (["id", "s", "ts"], None), (["id", "cat"], pc.field("s") == "s3")):
        batches, sc, info = _batches(remote, columns, flt, 250)
        got = pa.Table.from_batches(batches, schema=sc.projected_schema)
        want = local.to_table(columns=columns, filter=flt)
        assert _same(got, want), columns
    assert info.scanners >= 2


def test_read_table_of_an_evolved_lake_reads_runs(tmp_path, monkeypatch):
    """read_table of several local files takes the same runs: one scan each, conformed."""
    from pqfast import _read_scan

    root = str(tmp_path / "rt")
    paths = write_evolved(root, 11)
    calls = []
    # (the first run in file tasks when the files are small: read_files; the rest by read_whole)
    for name in ("read_whole", "read_files"):
        real = getattr(_read_scan, name)
        monkeypatch.setattr(_read_scan, name, lambda *a, _real=real, **k: calls.append(1) or _real(*a, **k))
    monkeypatch.setenv(_read_scan.ROUTE_ENV, "scanner")
    for columns in (None, ["id", "cat", "ts"]):
        calls.clear()
        got = pqfast.read_table(root, columns=columns)
        want = pqfast.dataset(root).to_table(columns=columns)
        assert _same(got, want), columns
        assert len(calls) == len(paths)  # (every file unlike the one before)


def test_runs_stay_within_the_memory_limit_and_stop_with_the_consumer(tmp_path):
    root = str(tmp_path / "mem")
    paths = write_evolved(root, 12)
    ds = pqfast.dataset(root)
    sc = ds.scanner(batch_size=100, memory_limit=1 << 20)
    got = sc.to_table()
    assert _same(got, ds.to_table())
    info = sc.last_readahead
    assert info.scanners == len(paths) and 0 < info.peak_held <= 1 << 20
    # A reader closed after its first batch: the first run's scanner is
    # cancelled, no later run starts.
    sc = ds.scanner(batch_size=10, batch_readahead=1)
    r = sc.to_reader()
    assert r.read_next_batch().num_rows == 10
    r.close()
    assert sc.last_readahead._closed and sc.last_readahead.scanners == 1
