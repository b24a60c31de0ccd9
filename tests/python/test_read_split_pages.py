"""read_table with a chunk's pages cut into ranges that threads decode apart
(PQFAST_SPLIT_BYTES small cuts every chunk of several pages): the same table
as pyarrow's, for every string layout, encodings, nulls and codecs; corrupt
pages are still FormatErrors. (The C++ tests check every parquet-testing
chunk cut; this checks the read_table routes that schedule the ranges: the
column reader's jobs and the scanner's units.)"""

from __future__ import annotations

import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _scan_whole


@pytest.fixture(autouse=True, params=["reader", "scanner"])
def route(request, monkeypatch):
    """Both routes of a local file cut chunks into page ranges. The scanner
    reads a file this small on the calling thread alone (SMALL_READ_BYTES):
    not here, so that its threads share the ranges."""
    monkeypatch.setenv(_scan_whole.ROUTE_ENV, request.param)
    monkeypatch.setattr(_scan_whole, "SMALL_READ_BYTES", 0)
    return request.param


def _table(n=30000):
    rng = random.Random(5)
    return pa.table({
        "i64": pa.array(range(n), pa.int64()),
        "f64": pa.array([None if i % 13 == 0 else i * 0.25 for i in range(n)]),
        "i32n": pa.array([None if rng.random() < 0.3 else rng.randrange(1000) for _ in range(n)], pa.int32()),
        "b": pa.array([None if i % 11 == 0 else i % 3 == 0 for i in range(n)]),
        "s_dict": pa.array([None if i % 17 == 0 else f"mode{i % 7}" for i in range(n)]),
        "s_plain": pa.array([f"comment number {i} " + "x" * (i % 23) for i in range(n)]),
        "d": pa.array([i % 2500 for i in range(n)], pa.date32()),
    })


@pytest.fixture(params=[("snappy", "1.0", True), ("zstd", "2.0", False), ("none", "1.0", True)])
def many_pages(request, tmp_path):
    codec, version, dictionary = request.param
    p = tmp_path / f"f-{codec}-{version}.parquet"
    pq.write_table(_table(), p, compression=codec, data_page_version=version, use_dictionary=dictionary,
                   data_page_size=2048, row_group_size=20000)
    return p


@pytest.mark.parametrize("threads", [2, 3, 8])
@pytest.mark.parametrize("strings", [None, "large", "view"])
def test_split_pages_read_as_pyarrow(many_pages, threads, strings, monkeypatch):
    monkeypatch.setenv("PQFAST_SPLIT_BYTES", "4096")
    kw = {} if strings is None else {"strings": strings}
    got = pqfast.read_table(str(many_pages), threads=threads, **kw)
    monkeypatch.setenv("PQFAST_SPLIT_BYTES", "0")
    whole = pqfast.read_table(str(many_pages), threads=threads, **kw)
    assert got.equals(whole)
    exp = pq.read_table(many_pages)
    assert got.num_rows == exp.num_rows
    for name in exp.column_names:
        assert got.column(name).to_pylist() == exp.column(name).to_pylist(), name


def test_corrupt_page_in_a_cut_chunk_is_a_format_error(tmp_path, monkeypatch):
    p = tmp_path / "f.parquet"
    pq.write_table(pa.table({"a": pa.array(range(40000), pa.int64())}), p, compression="snappy",
                   use_dictionary=False, data_page_size=4096)
    meta = pq.ParquetFile(p).metadata.row_group(0).column(0)
    raw = bytearray(p.read_bytes())
    # Garbage over the middle of the chunk's pages (headers and bodies).
    mid = meta.data_page_offset + meta.total_compressed_size // 2
    raw[mid:mid + 64] = bytes(range(64))
    p.write_bytes(bytes(raw))
    monkeypatch.setenv("PQFAST_SPLIT_BYTES", "4096")
    with pytest.raises(pqfast.FormatError):
        pqfast.read_table(str(p), threads=4)


def test_few_chunks_cut_over_threads_read_as_pyarrow(tmp_path, monkeypatch):
    """Fewer chunks than threads (one or two columns of one row group): the
    threads share the chunks' page ranges, on either route; the row groups
    asked come back in the order asked."""
    monkeypatch.setenv("PQFAST_SPLIT_BYTES", "8192")
    p = tmp_path / "one.parquet"
    t = _table(60000)
    pq.write_table(t, p, compression="snappy", data_page_size=4096, row_group_size=30000)
    exp = pq.read_table(p)
    for cols in (["s_plain"], ["i64", "s_dict"], None):
        got = pqfast.read_table(str(p), columns=cols, threads=4)
        assert got.equals(exp.select(cols) if cols else exp), cols
    f = pq.ParquetFile(p)
    for rgs in ([1], [1, 0]):
        got = pqfast.ParquetFile(str(p)).read_row_groups(rgs, columns=["s_plain", "i64"], threads=3)
        assert got.equals(f.read_row_groups(rgs, columns=["s_plain", "i64"])), rgs
