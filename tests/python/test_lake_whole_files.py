"""A lake's small files are read whole with their footers
(``_read_footers_local``'s whole_max / keep_max, ``_read_scan.WHOLE_FILE_BYTES``)
and the scan takes their ranges from those bytes: the same values as
pyarrow under, over and across the threshold and the cap; a file so read is
not opened again (removing it after the footers are read does not change
the result, while a file over the threshold is missed); truncated files and
footers that claim bytes the file lacks raise FormatError, never a read
past the file's end.

Lakes read whole without row_groups= go file by file
(``_read_whole_files``): each small file in one read (its footer parsed
from those bytes), larger ones chunk by chunk, only footers with no column,
files typed unlike the first one handed back (None) to the route above."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _pqfast, _read_scan, _scan_whole


def _lake(root: Path, sizes=(50, 200, 3000, 10)) -> list[str]:
    """Files of `sizes` rows each (of different byte sizes), in name order."""
    root.mkdir(parents=True, exist_ok=True)
    paths, at = [], 0
    for i, n in enumerate(sizes):
        t = pa.table({"k": pa.array(range(at, at + n), pa.int64()),
                      "s": pa.array([f"value {j % 37} of {j}" for j in range(at, at + n)]),
                      "d": pa.array([j * 0.5 if j % 7 else None for j in range(at, at + n)], pa.float64())})
        p = root / f"part-{i:02d}.parquet"
        pq.write_table(t, p)
        paths.append(str(p))
        at += n
    return paths


def _expected(root: Path) -> pa.Table:
    return ds.dataset(str(root), format="parquet").to_table()


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("threshold", ["none", "some", "all"])
def test_values_under_and_over_the_threshold(tmp_path, monkeypatch, threads, threshold):
    paths = _lake(tmp_path / "lake")
    sizes = sorted(os.path.getsize(p) for p in paths)
    cut = {"none": 0, "some": sizes[1], "all": sizes[-1]}[threshold]
    monkeypatch.setattr(_read_scan, "WHOLE_FILE_BYTES", cut)
    got = pqfast.read_table(str(tmp_path / "lake"), threads=threads)
    assert got.equals(_expected(tmp_path / "lake"))
    got = pqfast.read_table(str(tmp_path / "lake"), columns=["s"], threads=threads)
    assert got.equals(_expected(tmp_path / "lake").select(["s"]))


def test_the_cap_keeps_some_files_whole(tmp_path, monkeypatch):
    paths = _lake(tmp_path / "lake")
    monkeypatch.setattr(_read_scan, "KEPT_WHOLE_BYTES", os.path.getsize(paths[0]) + 1)
    assert pqfast.read_table(str(tmp_path / "lake")).equals(_expected(tmp_path / "lake"))


def _scan(paths, metas, sizes) -> pa.Table:
    files = [(p, int(n), None) for p, n in zip(paths, sizes)]
    specs, schema = _scan_whole.file_plan(metas[0], paths[0], None, None)
    stream, _ = _scan_whole.read_whole(files, metas, specs, schema, 1 << 16, 2, 0)
    return pa.RecordBatchReader._import_from_c_capsule(stream).read_all()


def test_files_read_whole_are_not_opened_again(tmp_path):
    paths = _lake(tmp_path / "lake")
    expected = _expected(tmp_path / "lake")
    metas, sizes = _pqfast._read_footers_local(paths, 2, 1 << 20, 1 << 30)
    for p in paths:
        os.remove(p)  # the scan has their bytes already
    assert _scan(paths, metas, sizes).equals(expected)


def test_files_over_the_threshold_are_read_from_disk(tmp_path):
    paths = _lake(tmp_path / "lake")
    metas, sizes = _pqfast._read_footers_local(paths, 2, 0, 1 << 30)  # none read whole
    os.remove(paths[2])
    with pytest.raises((OSError, pqfast.FormatError)):
        _scan(paths, metas, sizes)


def test_the_bytes_go_to_one_scan_only(tmp_path):
    """A footer hands its file's bytes to the first scan given it; a second
    scan with the same footers reads the files (here: the same values)."""
    paths = _lake(tmp_path / "lake")
    expected = _expected(tmp_path / "lake")
    metas, sizes = _pqfast._read_footers_local(paths, 1, 1 << 20, 1 << 30)
    assert _scan(paths, metas, sizes).equals(expected)
    assert _scan(paths, metas, sizes).equals(expected)


def test_truncated_file_is_a_format_error(tmp_path, monkeypatch):
    paths = _lake(tmp_path / "lake")
    data = Path(paths[1]).read_bytes()
    Path(paths[1]).write_bytes(data[: len(data) // 2])
    for cut in (0, 1 << 20):
        monkeypatch.setattr(_read_scan, "WHOLE_FILE_BYTES", cut)
        with pytest.raises(pqfast.FormatError):
            pqfast.read_table(str(tmp_path / "lake"))


def test_footer_length_past_the_file_is_a_format_error(tmp_path):
    paths = _lake(tmp_path / "lake")
    data = bytearray(Path(paths[1]).read_bytes())
    data[-8:-4] = (len(data) + 100).to_bytes(4, "little")  # a footer longer than the file
    Path(paths[1]).write_bytes(bytes(data))
    with pytest.raises(pqfast.FormatError):
        _pqfast._read_footers_local(paths, 2, 1 << 20, 1 << 30)
    with pytest.raises(pqfast.FormatError):
        pqfast.read_table(str(tmp_path / "lake"))


@pytest.mark.parametrize("whole", [0, 1 << 20])
def test_chunks_past_the_end_are_a_format_error(tmp_path, whole):
    """A file cut short before its footer (the footer kept whole): its
    column chunks lie past the file's end. Reading them fails typed, whether
    the file was read whole (the scan's ranges checked against its bytes) or
    is read from disk."""
    paths = _lake(tmp_path / "lake")
    data = Path(paths[2]).read_bytes()
    footer_len = int.from_bytes(data[-8:-4], "little")
    tail = data[-8 - footer_len:]
    Path(paths[2]).write_bytes(data[:200] + tail)  # chunks now point past the end
    metas, sizes = _pqfast._read_footers_local(paths, 2, whole, 1 << 30)
    with pytest.raises(pqfast.FormatError):
        _scan(paths, metas, sizes)


# -- file by file (_read_whole_files: LocalScan::read_whole_files) -----------------------


def _reference(path):
    with pqfast.ParquetFile(path) as f:
        return f._meta


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_each_small_file_is_one_read(tmp_path, threads):
    paths = _lake(tmp_path / "lake")
    meta = _reference(paths[0])
    specs, schema = _scan_whole.file_plan(meta, paths[0], None, None)
    stream, files, stats = _scan_whole.read_files_whole(paths, specs, meta, schema, threads, 0, 1 << 20, True)
    got = pa.RecordBatchReader._import_from_c_capsule(stream).read_all()
    assert got.equals(_expected(tmp_path / "lake"))
    assert files == [0, 1, 2, 3]  # a batch per file (one row group each), in order
    assert stats["files_whole"] == 4 and stats["reads"] == 4
    assert stats["bytes_read"] == sum(os.path.getsize(p) for p in paths)
    assert stats["rows"] == got.num_rows


def test_files_over_whole_max_are_read_chunk_by_chunk(tmp_path):
    paths = _lake(tmp_path / "lake")
    meta = _reference(paths[0])
    specs, schema = _scan_whole.file_plan(meta, paths[0], ["k", "d"], None)
    stream, _, stats = _scan_whole.read_files_whole(paths, specs, meta, schema, 2, 0, 0, False)
    got = pa.RecordBatchReader._import_from_c_capsule(stream).read_all()
    assert got.equals(_expected(tmp_path / "lake").select(["k", "d"]))
    assert stats["files_whole"] == 0
    # Per file its footer (one or two reads of its tail) and its two chunks.
    assert 4 * 3 <= stats["reads"] <= 4 * 4
    assert stats["bytes_read"] < sum(os.path.getsize(p) for p in paths)


@pytest.mark.parametrize("threads", [1, 2])
def test_no_column_reads_only_the_footers(tmp_path, threads):
    paths = _lake(tmp_path / "lake", sizes=(3000, 4000, 5000))
    meta = _reference(paths[0])
    stream, _, stats = _scan_whole.read_files_whole(paths, [], meta, pa.schema([]), threads, 0, 1 << 20, False)
    pa.RecordBatchReader._import_from_c_capsule(stream).close()
    assert stats["rows"] == 12000 and stats["files_whole"] == 0
    footers = sum(pq.ParquetFile(p).metadata.serialized_size + 8 for p in paths)
    assert footers <= stats["bytes_read"] < sum(os.path.getsize(p) for p in paths) // 2
    got = pqfast.read_table(str(tmp_path / "lake"), columns=[], threads=threads)
    assert got.num_rows == 12000 and got.num_columns == 0


def test_files_whose_columns_differ_are_not_read_file_by_file(tmp_path):
    """A file typed unlike the first: None (the caller plans from footers,
    which casts it); read_table still gives pyarrow's dataset values."""
    paths = _lake(tmp_path / "lake")
    t = pq.read_table(paths[2])
    pq.write_table(t.set_column(0, "k", t.column("k").cast(pa.int32())), paths[2])
    meta = _reference(paths[0])
    specs, schema = _scan_whole.file_plan(meta, paths[0], None, None)
    assert _scan_whole.read_files_whole(paths, specs, meta, schema, 2, 0, 1 << 20, False) is None
    got = pqfast.read_table(str(tmp_path / "lake"))
    assert got.num_rows == 3260 and got.column("k").to_pylist() == list(range(3260))


@pytest.mark.parametrize("whole", [0, 1 << 20])
def test_chunks_past_the_end_fail_typed_file_by_file(tmp_path, monkeypatch, whole):
    paths = _lake(tmp_path / "lake")
    data = Path(paths[2]).read_bytes()
    footer_len = int.from_bytes(data[-8:-4], "little")
    Path(paths[2]).write_bytes(data[:200] + data[-8 - footer_len:])
    monkeypatch.setattr(_read_scan, "WHOLE_FILE_BYTES", whole)
    for threads in (1, 2):
        with pytest.raises(pqfast.FormatError) as e:
            pqfast.read_table(str(tmp_path / "lake"), threads=threads)
        assert "part-02.parquet" in str(e.value)


@pytest.mark.parametrize("whole", [0, 1 << 20])
def test_file_bytes_past_the_memory_limit_are_refused(tmp_path, whole):
    paths = _lake(tmp_path / "lake")
    meta = _reference(paths[0])
    specs, schema = _scan_whole.file_plan(meta, paths[0], None, None)
    with pytest.raises(pqfast.MemoryLimitError):
        _scan_whole.read_files_whole(paths, specs, meta, schema, 2, 1024, whole, False)
