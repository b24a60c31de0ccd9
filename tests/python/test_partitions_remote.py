"""Hive-partitioned lakes on S3 (SeaweedFS on 127.0.0.1) and through
``filesystem=``: ``read_table`` of an ``s3://bucket/prefix/`` or of a
directory on a pyarrow / fsspec filesystem equals ``pyarrow.parquet.read_table``
of the same directory (pyarrow given an S3FileSystem on the same server):
key columns, their dictionary types, row order; a filter on a key skips
objects unfetched."""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast._dataset_scan import read_row_groups

from s3_fixtures import opts, proxy, s3  # noqa: F401
from test_partitions import _table

FILTERS = [
    None,
    [("n", "=", 2)],                                        # a key
    [("n", "in", [1, 3]), ("id", "<", 1500)],               # a key and a column
    [[("region", "=", "us")], [("n", "=", 4)]],             # OR across keys
    [[("region", "=", "eu"), ("v", "=", "v10")], [("id", "=", 7)]],  # OR: a key and a column, a column
    [("day", ">", "2024-01-01"), ("n", "!=", 0)],
    [("n", "=", 99)],                                       # nothing matches
]
COLUMNS = [None, [], ["n"], ["region", "id", "n"]]


def _upload(store, local_root: str, prefix: str) -> None:
    """Every file under local_root, put at prefix/<its relative path>."""
    import obstore

    for d, _, names in os.walk(local_root):
        for name in names:
            path = os.path.join(d, name)
            with open(path, "rb") as f:
                obstore.put(store, f"{prefix}/{os.path.relpath(path, local_root)}", f.read())


@pytest.fixture(scope="module")
def lakes(s3, tmp_path_factory):  # noqa: F811
    """{name: (local directory, key prefix)} of partitioned lakes that pyarrow
    and DuckDB wrote, uploaded; the prefixes' names sort apart."""
    out = {}
    root = tmp_path_factory.mktemp("hive")
    pa_root = str(root / "pa")
    pq.write_to_dataset(_table(), pa_root, partition_cols=["n", "region"])
    out["pa"] = pa_root
    try:
        import duckdb
    except ImportError:
        duckdb = None
    if duckdb is not None:
        dk_root = str(root / "duck")
        con = duckdb.connect()
        con.register("t", _table())
        con.execute(f"COPY t TO '{dk_root}' (FORMAT parquet, PARTITION_BY (day, n))")
        out["duck"] = dk_root
    store = s3.store()
    for name, local in out.items():
        _upload(store, local, f"hive/{name}")
    return {name: (local, f"hive/{name}") for name, local in out.items()}


@pytest.fixture(scope="module")
def pa_s3(s3):  # noqa: F811
    pafs = pytest.importorskip("pyarrow.fs")
    return pafs.S3FileSystem(access_key=s3.access_key, secret_key=s3.secret_key,
                             endpoint_override=s3.endpoint.split("://")[1], scheme="http", region="us-east-1")


def _same(got, want, *why):
    assert got.schema == want.schema, (why, got.schema, want.schema)
    assert got.equals(want), why


@pytest.mark.parametrize("name", ["pa", "duck"])
def test_s3_prefix_equals_pyarrow(lakes, pa_s3, s3, opts, name):  # noqa: F811
    if name not in lakes:
        pytest.skip("duckdb not installed")
    _, prefix = lakes[name]
    for f in FILTERS:
        if name == "duck" and f is not None and "region" in str(f):
            continue  # DuckDB's lake is by day and n: region is a column there, covered below
        for c in COLUMNS:
            if name == "duck" and c is not None and "region" in c:
                c = ["day", "id", "n"]
            want = pq.read_table(f"{s3.bucket}/{prefix}", filesystem=pa_s3, filters=f, columns=c)
            got = pqfast.read_table(f"s3://{s3.bucket}/{prefix}/", filters=f, columns=c, storage_options=opts)
            _same(got, want, name, f, c)
    if name == "duck":  # a filter on a column that is not a key in this lake
        f = [[("region", "=", "us"), ("day", "=", "2024-01-02")], [("n", "=", 1)]]
        want = pq.read_table(f"{s3.bucket}/{prefix}", filesystem=pa_s3, filters=f)
        _same(pqfast.read_table(f"s3://{s3.bucket}/{prefix}/", filters=f, storage_options=opts), want, f)


def test_s3_prefix_through_filesystems(lakes, pa_s3, s3):  # noqa: F811
    """filesystem= a pyarrow S3FileSystem, and s3fs (async) when installed:
    the same lake, the same table."""
    _, prefix = lakes["pa"]
    systems = [(pa_s3, f"{s3.bucket}/{prefix}")]
    try:
        import s3fs
    except ImportError:
        s3fs = None
    if s3fs is not None:
        fs = s3fs.S3FileSystem(key=s3.access_key, secret=s3.secret_key, endpoint_url=s3.endpoint,
                               client_kwargs={"region_name": "us-east-1"}, skip_instance_cache=True)
        systems.append((fs, f"s3://{s3.bucket}/{prefix}/"))
    for fs, path in systems:
        for f in FILTERS[:4]:
            for c in (None, ["n", "id"]):
                want = pq.read_table(f"{s3.bucket}/{prefix}", filesystem=pa_s3, filters=f, columns=c)
                _same(pqfast.read_table(path, filters=f, columns=c, filesystem=fs), want, type(fs), f, c)


def test_a_pruned_prefix_is_not_fetched(s3, opts, pa_s3, tmp_path):  # noqa: F811
    """A corrupt object in a partition the filter rules out is never read:
    the scan of the lake with it fails, the filtered scans do not, and
    equal pyarrow's (which does not open it either)."""
    local = str(tmp_path / "lake")
    pq.write_to_dataset(_table(), local, partition_cols=["n"])
    os.mkdir(os.path.join(local, "n=9"))
    with open(os.path.join(local, "n=9", "broken.parquet"), "wb") as f:
        f.write(b"PAR1 not a parquet file PAR1")
    _upload(s3.store(), local, "hive/broken")
    url, key = f"s3://{s3.bucket}/hive/broken/", f"{s3.bucket}/hive/broken"
    for f, c in (([("n", "in", [1, 2]), ("id", ">", 10)], None), ([("n", "=", 99)], ["id", "n"]),
                 ([[("n", "=", 0)], [("n", "=", 3), ("v", "=", "v8")]], ["v"])):
        got, st = pqfast.read_table(url, filters=f, columns=c, storage_options=opts, stats=True)
        _same(got, pq.read_table(key, filesystem=pa_s3, filters=f, columns=c), f, c)
        assert st["files"] == 6
    with pytest.raises(pqfast.FormatError, match="broken"):
        pqfast.read_table(url, storage_options=opts)
    with pytest.raises(pqfast.FormatError, match="broken"):
        pqfast.read_table(url, filters=[("n", "=", 9)], storage_options=opts)


def test_partitioning_none_and_a_prefix_listed_before(lakes, s3, opts, pa_s3):  # noqa: F811
    """partitioning=None reads the files alone; a prefix read with it, then
    with keys, is listed again before any file is read (the listing kept of
    the first read has keys: not started on)."""
    _, prefix = lakes["pa"]
    url = f"s3://{s3.bucket}/{prefix}/"
    got = pqfast.read_table(url, storage_options=opts, partitioning=None, filters=[("id", "<", 30)])
    assert "n" not in got.column_names and got.num_rows == 30
    want = pq.read_table(f"{s3.bucket}/{prefix}", filesystem=pa_s3, filters=[("n", "=", 3)])
    _same(pqfast.read_table(url, storage_options=opts, filters=[("n", "=", 3)]), want)
    with pytest.raises(pqfast.FormatError, match="partitioning"):
        pqfast.read_table(url, storage_options=opts, partitioning="directory")
    # No row group chosen (read_pruned's call when none is kept): the lake's schema, no row.
    empty = read_row_groups(url, {}, None, threads=None, partitioning="hive", storage_options=opts)
    assert empty.num_rows == 0 and empty.schema == want.schema


def test_read_pruned_whole_row_groups_keep_the_keys(lakes, s3, opts, pa_s3, tmp_path):  # noqa: F811
    """read_pruned(filter_rows=False) on an s3:// prefix and on directories
    through filesystem=: the same table as on the local directory (kept row
    groups whole, key columns); a key as the column: filter_rows=True's rows."""
    import pyarrow.fs as pafs

    local, prefix = lakes["pa"]
    ids = [17, 2500]
    want = pqfast.read_pruned(local, "id", ids, filter_rows=False)
    assert "n" in want.column_names and want.num_rows > 2
    by_key = pqfast.read_pruned(local, "n", [1, 3], filter_rows=False, columns=["id", "n", "region"])
    sources = [(f"s3://{s3.bucket}/{prefix}/", dict(storage_options=opts)),
               (f"{s3.bucket}/{prefix}", dict(filesystem=pa_s3)),
               (local, dict(filesystem=pafs.LocalFileSystem()))]
    for src, kw in sources:
        _same(pqfast.read_pruned(src, "id", ids, filter_rows=False, **kw), want, src)
        _same(pqfast.read_pruned(src, "n", [1, 3], filter_rows=False, columns=["id", "n", "region"], **kw),
              by_key, src)


def test_a_prefix_that_gains_keys(s3, opts, pa_s3, tmp_path):  # noqa: F811
    """A prefix without key=value levels is scanned as it was (its next scan
    starting on the files of its last listing while listing it again); once
    it has keys, it is read as pyarrow reads it."""
    import pyarrow as pa

    store = s3.store()
    t = pa.table({"id": pa.array([1, 2, 3], pa.int64())})
    local = tmp_path / "a.parquet"
    pq.write_table(t, local)
    _upload(store, str(tmp_path), "hive/flat")
    url, key = f"s3://{s3.bucket}/hive/flat/", f"{s3.bucket}/hive/flat"
    for _ in range(2):
        got, st = pqfast.read_table(url, filters=[("id", ">", 1)], storage_options=opts, stats=True)
        _same(got, pq.read_table(key, filesystem=pa_s3, filters=[("id", ">", 1)]))
    assert st["listing_overlapped"]
    (tmp_path / "k=7").mkdir()
    pq.write_table(t, tmp_path / "k=7" / "b.parquet")
    _upload(store, str(tmp_path), "hive/flat")
    for f in ([("id", ">", 1)], [("k", "=", 7)], None):
        _same(pqfast.read_table(url, filters=f, storage_options=opts), pq.read_table(key, filesystem=pa_s3, filters=f),
              f)


def test_local_directory_through_filesystems(tmp_path):
    """filesystem= pyarrow's LocalFileSystem and fsspec's local filesystem on
    a partitioned directory: pyarrow's table, with and without filters."""
    fsspec = pytest.importorskip("fsspec")
    import pyarrow.fs as pafs

    root = str(tmp_path / "lake")
    pq.write_to_dataset(_table(), root, partition_cols=["n", "region"])
    with open(os.path.join(root, "n=1", "_SUCCESS.parquet"), "wb") as f:  # a hidden name: not read
        f.write(b"done")
    for fs in (pafs.LocalFileSystem(), fsspec.filesystem("file")):
        for f in FILTERS:
            for c in (None, ["region", "id"]):
                want = pq.read_table(root, filters=f, columns=c)
                _same(pqfast.read_table(root, filters=f, columns=c, filesystem=fs), want, type(fs), f, c)
