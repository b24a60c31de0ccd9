"""Remote lakes of small files (``s3://`` on SeaweedFS, ``filesystem=``)
scanned without a filter go through file tasks
(``_stream_io.remote_small_files``): each object fetched whole in one GET,
window after window, its footer parsed from those bytes and the file decoded
by ``_LocalScanner`` file tasks from them; ``read_table`` of such an
``s3://`` lake likewise (the listing's sizes decide, no footer read first).
Scans equal pyarrow.dataset of the
same files read locally (order, batch_size, hive keys, a tail typed unlike
the first file starting a run of its own, at a window's edge or inside one),
ask one GET per file (the plain route asked two: footer, then pages), refuse
a memory_limit a file cannot fit, name a hostile object, and stop their I/O
when the consumer stops."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _stream_io

from s3_fixtures import opts, proxy, s3  # noqa: F401


def _lake(root: str, files: int = 14, rows: int = 400, retyped_from: int | None = None) -> list[str]:
    """`files` small files under two hive directories; from `retyped_from`
    on, k is int32 and a column e is added."""
    paths = []
    for i in range(files):
        d = os.path.join(root, f"part={i % 2}")
        os.makedirs(d, exist_ok=True)
        at = i * rows
        cols = {"k": pa.array(range(at, at + rows), pa.int64()),
                "s": pa.array([f"v{j % 13}" for j in range(at, at + rows)]),
                "d": pa.array([j * 0.25 if j % 4 else None for j in range(at, at + rows)], pa.float64())}
        if retyped_from is not None and i >= retyped_from:
            cols["k"] = cols["k"].cast(pa.int32())
            cols["e"] = pa.array([j % 3 for j in range(rows)], pa.int8())
        p = os.path.join(d, f"f-{i:03d}.parquet")
        pq.write_table(pa.table(cols), p)
        paths.append(p)
    return paths


def _upload(s3, root: str, prefix: str) -> str:  # noqa: F811
    import obstore

    store = s3.store()
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            obstore.put(store, f"{prefix}/" + os.path.relpath(p, root), open(p, "rb").read())
    return f"s3://{s3.bucket}/{prefix}/"


def _expected(root: str) -> pa.Table:
    return pads.dataset(root, format="parquet", partitioning="hive").to_table()


def _same(got: pa.Table, want: pa.Table) -> bool:
    """Equal values (the hive key is a dictionary here, int32 in pyarrow.dataset's default)."""
    return got.cast(want.schema).equals(want)


@pytest.fixture
def small_windows(monkeypatch):
    monkeypatch.setattr(_stream_io, "REMOTE_WINDOW_FILES", 3)


@pytest.mark.parametrize("threads", [1, 2])
def test_s3_small_files_equal_pyarrow_one_get_each(s3, opts, proxy, tmp_path, small_windows, threads):  # noqa: F811
    root = str(tmp_path / "lake")
    _lake(root)
    url = _upload(s3, root, f"small-{threads}")
    expected = _expected(root)
    for columns in (None, ["d", "k"], ["part", "s"]):
        want = expected if columns is None else expected.select(columns)
        proxy.reset()
        sc = pqfast.dataset(url, storage_options=opts).scanner(columns=columns, batch_size=150, threads=threads)
        batches = list(sc.to_batches())
        assert all(0 < b.num_rows <= 150 for b in batches)
        assert _same(pa.Table.from_batches(batches, schema=sc.projected_schema), want), columns
        got = proxy.stats()
        # A listing (one page), the first file's footer, one GET per file.
        assert got["requests"] <= 14 + 2, got
        assert sc.last_readahead.stats["files_whole"] == 14  # (the windows' scans summed)
    assert _same(pqfast.dataset(url, storage_options=opts).to_table(threads=threads), expected)
    # No file column (the hive key alone): not in file tasks (footers say the rows).
    sc = pqfast.dataset(url, storage_options=opts).scanner(columns=["part"], threads=threads)
    assert _same(sc.to_table(), expected.select(["part"]))
    assert sc.last_readahead.stats.get("files_whole", 0) == 0
    # read_table too: no footer read first (the listing's sizes decide), one GET per file.
    proxy.reset()
    got, st = pqfast.read_table(url, storage_options=opts, threads=threads, stats=True)
    assert _same(got, expected)
    assert proxy.stats()["requests"] <= 14 + 2 and st["requests"] == proxy.stats()["requests"], (st, proxy.stats())
    assert st["scanner"]["files_whole"] == 14 and st["row_groups"] == 14
    assert _same(pqfast.read_table(url, storage_options=opts, columns=["part", "k"], threads=threads),
                 expected.select(["part", "k"]))


@pytest.mark.parametrize("retyped_from", [6, 7])  # a window's first file (windows of 3), or inside one
def test_s3_an_evolved_tail_starts_a_run_in_file_tasks(s3, opts, tmp_path, small_windows, retyped_from):  # noqa: F811
    root = str(tmp_path / "lake")
    _lake(root, retyped_from=retyped_from)
    url = _upload(s3, root, f"evolved-{retyped_from}")
    # pyarrow.dataset takes the schema of the first file it lists (part=0's).
    expected = _expected(root)
    for columns in (None, ["k", "part"]):
        want = expected if columns is None else expected.select(columns)
        sc = pqfast.dataset(url, storage_options=opts).scanner(columns=columns, batch_size=500)
        assert _same(sc.to_table(), want), columns
        assert _same(pqfast.read_table(url, storage_options=opts, columns=columns), want), columns
        assert _same(pqfast.read_table(url, storage_options=opts, columns=columns), want), columns


def test_s3_a_hostile_object_is_named(s3, opts, tmp_path):  # noqa: F811
    root = str(tmp_path / "lake")
    paths = _lake(root, files=6)
    data = open(paths[3], "rb").read()
    with open(paths[3], "wb") as f:
        f.write(data[:4] + bytes(x ^ 0x5A for x in data[4:300]) + data[300:])
    url = _upload(s3, root, "hostile")
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.dataset(url, storage_options=opts).to_table()
    assert os.path.basename(paths[3]) in str(e.value)
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.read_table(url, storage_options=opts)
    assert os.path.basename(paths[3]) in str(e.value)
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.read_table(url, storage_options=opts)
    assert os.path.basename(paths[3]) in str(e.value)


def test_s3_a_file_that_cannot_fit_is_refused(s3, opts, tmp_path):  # noqa: F811
    root = str(tmp_path / "lake")
    _lake(root, files=4)
    url = _upload(s3, root, "limit")
    with pytest.raises(pqfast.MemoryLimitError):
        pqfast.dataset(url, storage_options=opts).scanner(memory_limit=1024).to_table()
    with pytest.raises(pqfast.MemoryLimitError):
        pqfast.read_table(url, storage_options=opts, memory_limit=1024)
    with pytest.raises(pqfast.MemoryLimitError):
        pqfast.read_table(url, storage_options=opts, memory_limit=1024)


def test_s3_a_consumer_that_stops_stops_the_fetches(s3, opts, proxy, tmp_path, small_windows):  # noqa: F811
    root = str(tmp_path / "lake")
    _lake(root, files=14)
    url = _upload(s3, root, "stop")
    dset = pqfast.dataset(url, storage_options=opts)
    proxy.reset()
    stream = dset.to_batches(batch_size=100)
    assert next(stream).num_rows == 100
    stream.close()
    # The listing, a footer, the first window and at most the REMOTE_WINDOWS_AHEAD
    # windows fetched beside it (3 files each; whether the last had started when
    # the stream closed depends on timing): not the lake's 14 files.
    assert proxy.stats()["requests"] <= 2 + 3 * (1 + _stream_io.REMOTE_WINDOWS_AHEAD) < 2 + 14, proxy.stats()


def test_filesystem_small_files_equal_local(tmp_path, small_windows):
    import pyarrow.fs as pafs

    root = str(tmp_path / "lake")
    _lake(root, retyped_from=9)
    expected = _expected(root)
    fs = pafs.LocalFileSystem()
    for columns in (None, ["s", "part"]):
        want = expected if columns is None else expected.select(columns)
        sc = pqfast.dataset(root, filesystem=fs).scanner(columns=columns, batch_size=333)
        assert _same(pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema), want)
        assert sc.last_readahead.stats["files_whole"] > 0


def test_filesystem_read_table_reads_each_small_file_once(tmp_path, small_windows):
    """read_table(filesystem=) of a lake of small files takes the s3:// route:
    the listing's sizes decide, no footer is read first but the first file's,
    and each file is one read (the footers-first route asked two per file)."""
    import pyarrow.fs as pafs

    root = str(tmp_path / "lake")
    _lake(root)
    expected = _expected(root)
    fs = pafs.LocalFileSystem()
    for threads in (1, 2):
        got, st = pqfast.read_table(root, filesystem=fs, threads=threads, stats=True)
        assert _same(got, expected)
        assert st["scanner"]["files_whole"] == 14 and st["row_groups"] == 14, st
        # A listing, the first file's footer, then one read per file.
        assert st["requests"] == 1 + 1 + 14, st["round_detail"]
    got = pqfast.read_table(root, filesystem=fs, columns=["part", "k"])
    assert _same(got, expected.select(["part", "k"]))
    # With a filter: footers first (statistics prune), the same rows as locally.
    flt = [("k", "<", 500)]
    assert pqfast.read_table(root, filesystem=fs, filters=flt).equals(pqfast.read_table(root, filters=flt))
