"""One path from a source to a table: read_table(filters=) and read_pruned on
every kind of source go through the scan engine (local paths natively;
s3:// URLs and filesystem objects through the streaming scanner) and give the rows
pyarrow.dataset gives. Sources: pyarrow's LocalFileSystem, fsspec's local
filesystem, the SeaweedFS server (127.0.0.1, behind the latency proxy)
through pyarrow's S3FileSystem, s3fs and obstore (s3:// URLs). Lakes: Bloom
filters and page indexes with many pages per chunk, neither, and one with
nested columns; lookups, ranges, ORs, expressions with nulls and NaN, and
filters that match nothing."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import pqfast

from s3_fixtures import opts, proxy, s3  # noqa: F401
from test_filters import same_table

F = pc.field
N_FILES = 4
ROWS = 6000  # per file: 3 row groups of 2,000 (files past the first tail read: 64 KiB)
LAKES = ("bloom_pi", "plain", "nested")


def _table(i: int, nested: bool) -> pa.Table:
    rng = np.random.default_rng([11, i])
    ids = i * 100_000 + rng.permutation(ROWS).astype(np.int64) * 3  # disjoint per file: min/max prune files
    v = rng.random(ROWS)
    v[::97] = np.nan
    cols = {"id": pa.array(ids),
            "key": pa.array([f"k{x % 500}" for x in ids]),  # repeats: dictionary-encoded
            "v": pa.array(v, mask=np.arange(ROWS) % 89 == 0)}
    if nested:
        cols["tags"] = pa.array([[f"t{x % 5}"] * int(x % 3) if x % 7 else None for x in ids], pa.list_(pa.string()))
        cols["s"] = pa.array([{"a": int(x), "b": f"b{x % 4}"} for x in ids])
    return pa.table(cols)


def _write(d: str, lake: str) -> list[str]:
    os.makedirs(d, exist_ok=True)
    opts_ = {"row_group_size": ROWS // 3}
    if lake in ("bloom_pi", "nested"):
        opts_.update(bloom_filter_options={"id": {"fpp": 0.01}, "key": {"fpp": 0.01}}, write_page_index=True,
                     data_page_size=512)  # many pages per chunk
    else:
        opts_.update(write_page_index=False, write_statistics=["id"])  # no Bloom, no page index
    paths = []
    for i in range(N_FILES):
        p = os.path.join(d, f"part-{i}.parquet")
        pq.write_table(_table(i, lake == "nested"), p, **opts_)
        paths.append(p)
    return paths


@pytest.fixture(scope="module")
def lakes(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("fs_lakes")
    return {lake: _write(str(root / lake), lake) for lake in LAKES}


@pytest.fixture(scope="module")
def uploaded(lakes, s3):  # noqa: F811
    """The lakes on SeaweedFS under fs/<lake>/ (once per module)."""
    from pqfast import _testlake

    for lake, paths in lakes.items():
        _testlake.upload(s3.store(), paths, f"fs/{lake}")
    return s3.bucket


WHERE = ("pyarrow-local", "fsspec-local", "pyarrow-s3", "s3fs", "obstore")


@pytest.fixture(params=WHERE)
def where(request, lakes):
    """lake name -> (source, keyword arguments that name its store)."""
    kind = request.param
    if kind == "pyarrow-local":
        import pyarrow.fs as pafs

        fs = pafs.LocalFileSystem()
        return lambda lake: (os.path.join(os.path.dirname(lakes[lake][0]), "*.parquet"), {"filesystem": fs})
    if kind == "fsspec-local":
        fsspec = pytest.importorskip("fsspec")
        fs = fsspec.filesystem("file")
        return lambda lake: (os.path.dirname(lakes[lake][0]), {"filesystem": fs})  # a directory
    s3_ = request.getfixturevalue("s3")
    proxy_ = request.getfixturevalue("proxy")
    bucket = request.getfixturevalue("uploaded")
    proxy_.reset()
    proxy_.set_delay(0)
    if kind == "pyarrow-s3":
        import pyarrow.fs as pafs

        fs = pafs.S3FileSystem(access_key=s3_.access_key, secret_key=s3_.secret_key, scheme="http",
                               endpoint_override=proxy_.endpoint.split("://")[1], region="us-east-1")
        return lambda lake: (f"{bucket}/fs/{lake}/*.parquet", {"filesystem": fs})
    if kind == "s3fs":
        s3fs = pytest.importorskip("s3fs")
        fs = s3fs.S3FileSystem(key=s3_.access_key, secret=s3_.secret_key, endpoint_url=proxy_.endpoint,
                               client_kwargs={"region_name": "us-east-1"}, skip_instance_cache=True)
        return lambda lake: (f"{bucket}/fs/{lake}/*.parquet", {"filesystem": fs})
    so = s3_.storage_options(endpoint=proxy_.endpoint)
    return lambda lake: (f"s3://{bucket}/fs/{lake}/*.parquet", {"storage_options": so})


def _ids(lakes, lake):
    """Ids in files 1 and 3, and ids in no file."""
    t1, t3 = (pq.read_table(lakes[lake][i], columns=["id"])["id"].to_pylist() for i in (1, 3))
    return [t1[5], t1[1200], t3[700]], [-3, 250_001]


def _want(lakes, lake, columns, filters):
    expr = filters if isinstance(filters, pc.Expression) else pq.filters_to_expression(filters)
    return ds.dataset(lakes[lake], format="parquet").to_table(columns=columns, filter=expr)


FILTERS = {
    "in": lambda ids, none: [("id", "in", ids)],
    "eq-string": lambda ids, none: [("key", "=", f"k{ids[0] % 500}")],
    "or": lambda ids, none: [[("id", "=", ids[1])], [("key", "=", "k7"), ("v", ">", 0.5)]],
    "range": lambda ids, none: [("id", ">=", ids[2] - 30), ("id", "<", ids[2] + 30)],  # no Bloom atom
    "nulls": lambda ids, none: (F("id") < 100_000) & (~F("v").is_valid() | (F("v") > 0.99)),
    "nan": lambda ids, none: [("id", "<", 1000), ("v", "!=", 0.5)],  # NaN != 0.5 holds, null rows drop
    "nothing": lambda ids, none: [("id", "in", none)],
}


@pytest.mark.parametrize("lake", LAKES)
@pytest.mark.parametrize("filt", list(FILTERS))
def test_read_table_filters_equal_dataset(lakes, where, lake, filt):
    source, kw = where(lake)
    filters = FILTERS[filt](*_ids(lakes, lake))
    same_table(pqfast.read_table(source, filters=filters, **kw), _want(lakes, lake, None, filters))
    cols = ["tags", "id", "s"] if lake == "nested" else ["key", "id"]
    same_table(pqfast.read_table(source, columns=cols, filters=filters, **kw), _want(lakes, lake, cols, filters))


@pytest.mark.parametrize("lake", LAKES)
def test_read_pruned_equals_dataset(lakes, where, lake):
    source, kw = where(lake)
    ids, none = _ids(lakes, lake)
    for vals in (ids, none, ids[:1] + none):
        want = _want(lakes, lake, None, [("id", "in", vals)])
        same_table(pqfast.read_pruned(source, "id", vals, **kw), want)
        same_table(pqfast.read_pruned(source, "id", vals, columns=["v"], **kw), want.select(["v"]))
    keys = [f"k{ids[0] % 500}", "k-none"]
    same_table(pqfast.read_pruned(source, "key", keys, **kw), _want(lakes, lake, None, [("key", "in", keys)]))


def _kept_row_groups_by_pyarrow(lakes, lake, column, vals, columns=None) -> pa.Table:
    """The row groups the local pruner keeps, read whole by pyarrow."""
    kept = pqfast.parquet.kept_row_groups(pqfast.prune(lakes[lake], column, vals))
    pieces = [pq.ParquetFile(p).read_row_groups(rgs, columns=columns) for p, rgs in kept.items()]
    if not pieces:
        return pq.read_schema(lakes[lake][0]).empty_table().select(columns or pq.read_schema(lakes[lake][0]).names)
    return pa.concat_tables(pieces)


@pytest.mark.parametrize("lake", LAKES)
def test_read_pruned_without_row_filter_reads_kept_row_groups(lakes, where, lake):
    source, kw = where(lake)
    ids, none = _ids(lakes, lake)
    for vals in (ids, none):
        got = pqfast.read_pruned(source, "id", vals, filter_rows=False, **kw)
        want = _kept_row_groups_by_pyarrow(lakes, lake, "id", vals)
        same_table(got, want)
        assert (got.num_rows == 0) == (vals is none)  # the ids absent lie outside every file's min/max
    got = pqfast.read_pruned(source, "id", ids, filter_rows=False, columns=["key"], **kw)
    same_table(got, _kept_row_groups_by_pyarrow(lakes, lake, "id", ids, ["key"]))


def test_pyarrow_s3_opens_each_object_once(lakes, uploaded, s3, proxy):  # noqa: F811
    """A read keeps a pyarrow file open from its footer to its pages: one
    HEAD per object read (pyarrow's open), not one per ranged read."""
    import pyarrow.fs as pafs

    fs = pafs.S3FileSystem(access_key=s3.access_key, secret_key=s3.secret_key, scheme="http",
                           endpoint_override=proxy.endpoint.split("://")[1], region="us-east-1")
    ids, _ = _ids(lakes, "bloom_pi")
    proxy.reset()
    got, st = pqfast.read_table(f"{uploaded}/fs/bloom_pi/*.parquet", filters=[("id", "in", ids)], filesystem=fs,
                                stats=True)
    assert got.num_rows == 3
    methods = proxy.stats()["methods"]
    assert methods.get("HEAD") == N_FILES, methods
    assert st["requests"] > 1 + N_FILES  # the listing, tails, then Bloom blocks and pages of files 1 and 3
    assert st["files"] == N_FILES
    # Explicit paths: no listing; the open that finds a file's size serves its later reads too.
    keys = [f"{uploaded}/fs/bloom_pi/{os.path.basename(p)}" for p in lakes["bloom_pi"]]
    proxy.reset()
    again = pqfast.read_table(keys, filters=[("id", "in", ids)], filesystem=fs)
    same_table(again, got)
    methods = proxy.stats()["methods"]
    assert methods.get("HEAD") == N_FILES and methods["GET"] == st["requests"] - 1, (methods, st["round_detail"])


@pytest.mark.skipif(importlib.util.find_spec("s3fs") is None, reason="s3fs not installed")
def test_s3fs_reads_without_head(lakes, uploaded, s3, proxy):  # noqa: F811
    """s3fs: sizes from the listing, ranged GETs on its event loop, no HEAD."""
    import s3fs

    fs = s3fs.S3FileSystem(key=s3.access_key, secret=s3.secret_key, endpoint_url=proxy.endpoint,
                           client_kwargs={"region_name": "us-east-1"}, skip_instance_cache=True)
    ids, _ = _ids(lakes, "bloom_pi")
    proxy.reset()
    _, st = pqfast.read_table(f"{uploaded}/fs/bloom_pi/*.parquet", filters=[("id", "in", ids)], filesystem=fs,
                              stats=True)
    methods = proxy.stats()["methods"]
    assert "HEAD" not in methods, methods
    assert methods["GET"] == st["requests"], (methods, st["round_detail"])  # the listing counted in both
    assert st["requests"] > 1 + N_FILES  # past the tails: Bloom blocks and pages


def test_missing_file_on_a_filesystem_is_a_clear_error(lakes, tmp_path):
    import pyarrow.fs as pafs

    missing = str(tmp_path / "gone.parquet")
    with pytest.raises(pqfast.FormatError, match="gone.parquet: not found"):
        pqfast.read_table([lakes["plain"][0], missing], filters=[("id", "<", 10**9)],
                          filesystem=pafs.LocalFileSystem())


@pytest.mark.parametrize("lake", LAKES)
@pytest.mark.parametrize("filt", list(FILTERS))
def test_file_objects_read_through_the_scanner(lakes, lake, filt):
    """A binary file object (an open file, a BytesIO, a pyarrow NativeFile)
    with filters or stats=True: a fed source of the streaming scanner, its
    reads the scanner's needs; the rows pyarrow.dataset gives, the file left
    open for its owner."""
    import io

    import pyarrow.fs as pafs

    path = lakes[lake][1]
    ids, none = _ids(lakes, lake)
    filters = FILTERS[filt](ids, none)
    expr = filters if isinstance(filters, pc.Expression) else pq.filters_to_expression(filters)
    cols = ["id", "v"] if lake != "nested" else None
    want = ds.dataset([path], format="parquet").to_table(columns=cols, filter=expr)
    data = open(path, "rb").read()
    for make in (lambda: open(path, "rb"), lambda: io.BytesIO(data), lambda: pa.BufferReader(data)):
        fh = make()
        got = pqfast.read_table(fh, columns=cols, filters=filters)
        same_table(got, want, f"{filt} {type(fh).__name__}")
        t, st = pqfast.read_table(fh, columns=cols, filters=filters, stats=True)
        assert t.equals(got) and st["route"] == "scanner" and st["rows"] == want.num_rows, st
        assert not fh.closed
        fh.close()
    # (A filesystem= beside a file object names nothing: the file object is read.)
    with open(path, "rb") as fh:
        got = pqfast.read_table(fh, columns=cols, filters=filters, filesystem=pafs.LocalFileSystem())
        same_table(got, want, filt)
