"""The C++ streaming scanner from Python: the push protocol (_Scanner:
needs/feed/next_batch) fed in random order and pieces equals read_table;
_LocalScanner's C stream (pyarrow.RecordBatchReader.from_stream) with a
requested schema; dataset scans that go through it (local, hive keys,
strings=, S3 on SeaweedFS) equal read_table and pyarrow.dataset; a reader's
close() cancels the scan; a streamed scan's peak RSS stays bounded."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _pqfast
from pqfast._stream_io import StreamInfo

from s3_fixtures import opts, proxy, s3  # noqa: F401

SPECS = [("id", "int64", "l"), ("s", "binary", "u"), ("v", "float64", "g")]


def _flat_lake(root: str, seed: int, hive: bool = False) -> list[str]:
    rng = np.random.default_rng(seed)
    paths, start = [], 0
    for i in range(int(rng.integers(2, 6))):
        n = int(rng.integers(1, 3000))
        t = pa.table({
            "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
            "s": pa.array([None if x % 17 == 0 else f"s{x % 13}" for x in rng.integers(0, 1000, n)]),
            "v": pa.array(rng.random(n), mask=rng.random(n) < 0.1),
        })
        start += n
        d = os.path.join(root, f"k={i % 3}") if hive else root
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, f"part-{i:03d}.parquet")
        pq.write_table(t, p, row_group_size=int(rng.integers(50, 1200)),
                       compression=["snappy", "zstd", "none"][i % 3])
        paths.append(p)
    return sorted(paths)


def _pushed(paths, specs, seed: int, batch_size: int) -> tuple[pa.Table, dict]:
    data = [open(p, "rb").read() for p in paths]
    sc = _pqfast._Scanner([(p, len(d), None) for p, d in zip(paths, data)], specs, None, batch_size=batch_size)
    rng = random.Random(seed)
    batches = []
    while True:
        b = sc.next_batch()
        if b is None:
            break
        if b is False:
            needs = sc.needs()
            assert needs, "the scanner waits for bytes it does not ask for"
            rng.shuffle(needs)
            for f, off, n, _ in needs:
                cuts = sorted({off, off + n, *(off + rng.randrange(n) for _ in range(rng.randrange(3)))})
                pieces = list(zip(cuts, cuts[1:]))
                rng.shuffle(pieces)
                for a, z in pieces:
                    sc.feed(f, a, memoryview(data[f])[a:z])
            continue
        assert 0 < b.num_rows <= batch_size
        batches.append(b)
    assert sc.budget_used == 0  # every byte fed and decoded given back
    return pa.Table.from_batches(batches), sc.stats


@pytest.mark.parametrize("seed", range(4))
def test_push_protocol_equals_read_table(tmp_path, seed):
    paths = _flat_lake(str(tmp_path / "p"), seed)
    want = pa.concat_tables([pq.read_table(p) for p in paths])
    got, stats = _pushed(paths, SPECS, seed, [1, 7, 1000, 1 << 20][seed])
    assert got.num_rows == want.num_rows
    for name in ("id", "s", "v"):
        assert got.column(name).to_pylist() == want.column(name).to_pylist(), name
    assert stats["rows"] == want.num_rows


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview of bytearray"])
def test_fed_buffers_held_or_copied_as_their_mutability_says(tmp_path, kind):
    """bytes are held by the scanner (no copy), writable buffers copied: a
    writable buffer overwritten right after its feed changes no row, and
    every held view is let go (the buffers' exports released: a bytearray
    fed and then resized would raise BufferError if a view were left)."""
    paths = _flat_lake(str(tmp_path / "m"), 3)
    want = pq.read_table(paths).select([s[0] for s in SPECS])
    data = [open(p, "rb").read() for p in paths]
    sc = _pqfast._Scanner([(p, len(d), None) for p, d in zip(paths, data)], SPECS, None, batch_size=500)
    fed, got = [], []
    while (b := sc.next_batch()) is not None:
        if b is False:
            for f, off, n, _ in sc.needs():
                piece = data[f][off:off + n]
                buf = piece if kind == "bytes" else bytearray(piece)
                sc.feed(f, off, memoryview(buf) if kind.startswith("memoryview") else buf)
                if kind != "bytes":
                    buf[:] = b"\xff" * len(buf)  # the owner changes it: the scanner has its copy
                fed.append(buf)
            continue
        got.append(b)
    t = pa.Table.from_batches(got)
    assert t.rename_columns(want.column_names).equals(want)
    del sc, piece, buf
    import sys

    for buf in fed:
        if kind == "bytes":
            # fed, buf, the call's argument (and `data` for a whole file's slice): no view of it left
            assert sys.getrefcount(buf) == 3 + any(buf is d for d in data)
        else:
            buf.extend(b"x")  # (BufferError while a view of it were held)


def test_push_protocol_refuses_hostile_feeds(tmp_path):
    paths = _flat_lake(str(tmp_path / "h"), 1)
    size = os.path.getsize(paths[0])
    sc = _pqfast._Scanner([(p, os.path.getsize(p), None) for p in paths], SPECS)
    with pytest.raises(pqfast.FormatError, match="pass the end"):
        sc.feed(0, size - 2, b"abcd")
    with pytest.raises(pqfast.FormatError, match="not asked for"):
        sc.feed(0, 0, b"PAR1")
    assert sc.next_batch() is False
    f, off, n, _ = sc.needs()[0]
    # Garbage where the footer should be: an error naming the file, no crash.
    with pytest.raises(pqfast.FormatError, match=os.path.basename(paths[f])):
        sc.feed(f, off, b"\x07" * n)


def test_local_scanner_c_stream_and_requested_schema(tmp_path):
    paths = _flat_lake(str(tmp_path / "c"), 2)
    want = pa.concat_tables([pq.read_table(p) for p in paths])
    ls = _pqfast._LocalScanner([(p, 0, None) for p in paths], SPECS, None, batch_size=500, threads=2)
    r = pa.RecordBatchReader.from_stream(ls)
    got = r.read_all()
    assert got.column("id").equals(want.column("id").cast(pa.int64()))
    assert got.column("v").to_pylist() == want.column("v").to_pylist()
    # A requested schema of the same Arrow types (other names, metadata) is the stream's.
    asked = pa.schema([("a", pa.int64()), ("b", pa.string()), ("c", pa.float64())], metadata={"x": "y"})
    ls = _pqfast._LocalScanner([(p, 0, None) for p in paths], SPECS, None, threads=1)
    r = pa.RecordBatchReader.from_stream(ls, schema=asked)
    assert r.schema == asked
    assert r.read_all().num_rows == want.num_rows
    ls = _pqfast._LocalScanner([(p, 0, None) for p in paths], SPECS, None, threads=1)
    with pytest.raises(pqfast.FormatError, match="not of the scan's Arrow types"):
        ls.__arrow_c_stream__(pa.schema([("a", pa.int32()), ("b", pa.string()), ("c", pa.float64())])
                              .__arrow_c_schema__())


@pytest.mark.parametrize("seed", range(5))
def test_dataset_scans_through_the_scanner_equal_read_table_and_pyarrow(tmp_path, seed):
    root = str(tmp_path / "d")
    _flat_lake(root, 10 + seed, hive=seed % 2 == 1)
    ds = pqfast.dataset(root)
    want_ds = pads.dataset(root, partitioning="hive" if seed % 2 else None)
    rng = np.random.default_rng(seed)
    for cols in (None, ["v", "id"], ["s"], []) + ((["k", "id"],) if seed % 2 else ()):
        for strings in (None, "view", "large"):
            bs = int(rng.choice([1, 7, 333, 131072])) if cols != [] or seed else 7
            if bs == 1 and cols is None:
                bs = 7
            sc = ds.scanner(columns=cols, batch_size=bs, strings=strings)
            batches = list(sc.to_batches())
            assert isinstance(sc.last_readahead, StreamInfo), (cols, strings)  # the C++ scanner ran it
            assert all(0 < b.num_rows <= bs for b in batches)
            got = pa.Table.from_batches(batches, schema=sc.projected_schema)
            plain = ds.to_table(columns=cols)
            if strings is None:
                assert got.equals(plain)
                assert got.equals(pqfast.read_table(root, columns=cols) if not seed % 2 else plain)
                w = want_ds.to_table(columns=cols)
                assert got.num_rows == w.num_rows
                for name in got.column_names:
                    assert got.column(name).to_pylist() == w.column(name).to_pylist(), name
            else:
                assert got.num_rows == plain.num_rows
                for name in got.column_names:
                    assert got.column(name).to_pylist() == plain.column(name).to_pylist(), name
                    if name == "s":
                        assert got.schema.field(name).type == (pa.string_view() if strings == "view"
                                                               else pa.large_string())
    assert ds.head(5, strings="view").column("s").type == pa.string_view()


def test_reader_close_cancels_the_scan(tmp_path):
    root = str(tmp_path / "r")
    for i in range(8):
        pq.write_table(pa.table({"id": np.arange(i * 50000, (i + 1) * 50000)}), f"{root}-{i}.parquet",
                       row_group_size=5000)
    paths = sorted(str(tmp_path / f"r-{i}.parquet") for i in range(8))
    ds = pqfast.dataset(paths)
    sc = ds.scanner(batch_size=100, batch_readahead=2)
    r = sc.to_reader()
    assert r.read_next_batch().column(0).to_pylist() == list(range(100))
    r.close()
    info = sc.last_readahead
    assert isinstance(info, StreamInfo) and info._closed and info.started <= 3  # of 80 row groups
    # The Python route too (a filter pyarrow.compute evaluates).
    sc = ds.scanner(filter=pa.compute.multiply(pa.compute.field("id"), 2) > 10, batch_size=100, batch_readahead=2)
    r = sc.to_reader()
    r.read_next_batch()
    r.close()
    assert sc.last_readahead._closed


def test_errors_keep_their_kind_through_the_reader(tmp_path):
    paths = _flat_lake(str(tmp_path / "e"), 3)
    with pytest.raises(MemoryError):
        pqfast.dataset(paths).scanner(memory_limit=1000).to_reader().read_all()
    with pytest.raises(pqfast.MemoryLimitError):
        pqfast.dataset(paths).scanner(memory_limit=1000).to_table()


def test_s3_scans_through_the_scanner(s3, opts, tmp_path):  # noqa: F811
    import obstore

    root = str(tmp_path / "s3flat")
    paths = _flat_lake(root, 21, hive=True)
    store = s3.store()
    for p in paths:
        obstore.put(store, "flat/" + os.path.relpath(p, root), open(p, "rb").read())
    local = pqfast.dataset(root)
    remote = pqfast.dataset(f"s3://{s3.bucket}/flat/", storage_options=opts)
    for cols in (None, ["id"], ["k", "s"]):
        for bs in (7, 1000):
            sc = remote.scanner(columns=cols, batch_size=bs, memory_limit=1 << 20)
            got = pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema)
            assert isinstance(sc.last_readahead, StreamInfo)
            assert got.equals(local.to_table(columns=cols)), (cols, bs)
            assert sc.last_readahead.peak_held <= 1 << 20
    assert remote.head(3).equals(local.head(3))


_RSS_CHILD = r"""
import sys
import pqfast
from pqfast._stream_io import StreamInfo
ds = pqfast.dataset(sys.argv[1])
ds.count_rows()
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
n = 0
sc = ds.scanner(batch_size=8192, memory_limit=8 << 20)
for b in sc.to_batches():
    n += b.num_rows
assert isinstance(sc.last_readahead, StreamInfo)
status = open("/proc/self/status").read()
print(n, status.split("VmHWM:")[1].split()[0])
"""


def test_peak_rss_of_a_scan_through_the_scanner(tmp_path):
    root = str(tmp_path / "rss")
    os.makedirs(root)
    for i in range(10):
        t = pa.table({"id": np.arange(i * 500000, (i + 1) * 500000, dtype=np.int64),
                      "x": np.random.default_rng(i).random(500000)})
        pq.write_table(t, os.path.join(root, f"f{i}.parquet"), row_group_size=100000)
    out = subprocess.run([sys.executable, "-c", _RSS_CHILD, root], capture_output=True, text=True, check=True)
    n, hwm = out.stdout.split()
    assert int(n) == 5_000_000  # 80 MB decoded
    # Peak RSS after the imports' own: the 8 MiB budget plus the consumer's batch and allocator slack.
    base = int(subprocess.run([sys.executable, "-c", _RSS_CHILD.replace("for b in sc.to_batches()", "for b in []")
                               .replace("assert isinstance(sc.last_readahead, StreamInfo)", ""), root],
                              capture_output=True, text=True, check=True).stdout.split()[1])
    assert (int(hwm) - base) * 1024 < 48 << 20, (base >> 10, int(hwm) >> 10)


def test_filtered_scans_through_the_scanner_equal_read_table(tmp_path):
    """The scanner's filtered units (the scan engine run over the bytes fed,
    its missing ranges asked as needs) give read_table(filters=)'s rows, by
    the local driver and by the push protocol."""
    from pqfast.filters import normalize
    from pqfast.scan import _descs_with_units, _encode_filter

    paths = _flat_lake(str(tmp_path / "f"), 5)
    meta = pqfast.ParquetFile(paths[0])._meta
    for filters in ([("id", ">", 1200)], [("s", "=", "s3")], [("id", "in", [3, 77, 1500])], [("id", "<", -1)],
                    [[("s", "=", "s1"), ("id", "<", 900)], [("v", ">=", 0.9)]]):
        dnf = _encode_filter(normalize(filters), _descs_with_units(meta), paths[0])
        want = pqfast.read_table(paths, filters=filters)
        ls = _pqfast._LocalScanner([(p, 0, None) for p in paths], SPECS, dnf, batch_size=97, threads=2)
        got = pa.RecordBatchReader.from_stream(ls).read_all()
        assert got.num_rows == want.num_rows, filters
        for name in ("id", "s", "v"):
            assert got.column(name).to_pylist() == want.column(name).to_pylist(), (filters, name)
        data = [open(p, "rb").read() for p in paths]
        sc = _pqfast._Scanner([(p, len(d), None) for p, d in zip(paths, data)], SPECS, dnf, batch_size=50,
                              footer_tail=4096)
        rows = 0
        while (b := sc.next_batch()) is not None:
            if b is False:
                for f, off, n, _ in sc.needs():
                    sc.feed(f, off, data[f][off:off + n])
                continue
            rows += b.num_rows
        assert rows == want.num_rows
        if not rows:
            # Statistics decided: the files' tails (footers) alone were fetched.
            assert sc.stats["bytes_fed"] == sum(min(len(d), 16384) for d in data)


def test_head_reads_one_footer_and_one_row_group(tmp_path):
    """head(n) reads file by file with no readahead: on a 20-file lake the
    first file's footer and one of its row groups, nothing of the others."""
    root = str(tmp_path / "hd")
    os.makedirs(root)
    for i in range(20):
        pq.write_table(pa.table({"id": np.arange(i * 1000, (i + 1) * 1000)}), os.path.join(root, f"f{i:02d}.parquet"),
                       row_group_size=250)
    ds = pqfast.dataset(root)
    sc = ds.scanner(columns=["id"])
    assert sc.head(10).column("id").to_pylist() == list(range(10))
    assert sc.last_readahead.started == 1
    assert len(ds._lake._metas) == 1  # the footers of files 1..19 were not read
    sc = ds.scanner()
    assert sc.head(1100).column("id").to_pylist() == list(range(1100))
    assert sc.last_readahead.started == 5  # four row groups of file 0, one of file 1
    assert len(ds._lake._metas) == 2


def test_filesystem_scans_through_the_scanner(tmp_path):
    """filesystem= (pyarrow's and fsspec's) feeds the scanner from the same
    I/O loop as S3: the rows of the local route."""
    import fsspec
    import pyarrow.fs as pafs

    root = str(tmp_path / "fs")
    _flat_lake(root, 31)
    want = pqfast.dataset(root).to_table()
    for fs in (pafs.LocalFileSystem(), fsspec.filesystem("file")):
        sc = pqfast.dataset(root, filesystem=fs).scanner(batch_size=77, memory_limit=1 << 20)
        got = pa.Table.from_batches(list(sc.to_batches()), schema=sc.projected_schema)
        assert isinstance(sc.last_readahead, StreamInfo), type(fs)
        assert got.equals(want), type(fs)
