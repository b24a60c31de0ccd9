"""A lake's small files are read whole with their footers
(``_read_footers_local``'s whole_max / keep_max, ``_read_scan.WHOLE_FILE_BYTES``)
and the scan takes their ranges from those bytes: the same values as
pyarrow under, over and across the threshold and the cap; a file so read is
not opened again (removing it after the footers are read does not change
the result, while a file over the threshold is missed); truncated files and
footers that claim bytes the file lacks raise FormatError, never a read
past the file's end.

Lakes of small files without a filter go through the scanner's file tasks
(LocalScan, ScannerOptions::file_tasks: ``read_table`` without row_groups=,
``pqfast.dataset(...)`` streams): each small file in one read (its footer
parsed from those bytes), larger ones chunk by chunk, only footers with no
column; planned from the first file's footer alone, the scan ends before a
file typed unlike the first, where a run of its own begins (file tasks
again, planned from its footer: a lake whose tail evolved keeps them). Streams and
read_table equal pyarrow.dataset (order, batch_size), stay within a small
memory_limit and refuse one a file cannot fit, stop reading when the consumer
stops, and name the hostile file they fail on."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _pqfast, _read_scan, _scan_whole, _stream_io


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


# -- file tasks (LocalScan, ScannerOptions::file_tasks) -------------------------------------


def _reference(path):
    with pqfast.ParquetFile(path) as f:
        return f._meta


def _specs(paths, columns=None):
    meta = _reference(paths[0])
    specs, schema = _scan_whole.file_plan(meta, paths[0], columns, None)
    return meta, specs, schema


def _tasks(paths, specs, meta, **kw):
    kw.setdefault("threads", 2)
    return _pqfast._LocalScanner([(p, 0, None) for p in paths], specs, None, footers=[meta] + [None] * (len(paths) - 1),
                                 file_tasks=True, stop_at_unlike=True, **kw)


@pytest.mark.parametrize("threads", [-1, 1, 2, 3])
def test_each_small_file_is_one_read(tmp_path, threads):
    paths = _lake(tmp_path / "lake")
    meta, specs, schema = _specs(paths)
    sc = _tasks(paths, specs, meta, threads=threads)
    assert sc.file_tasks
    stream, files = sc.read_all(schema.__arrow_c_schema__())
    got = pa.RecordBatchReader._import_from_c_capsule(stream).read_all()
    assert got.equals(_expected(tmp_path / "lake"))
    assert files == [0, 1, 2, 3]  # a batch per file (one row group each, at most 131,072 rows), in order
    st = sc.stats
    assert st["files_whole"] == 4 and st["bytes_fed"] == sum(os.path.getsize(p) for p in paths)
    assert st["rows"] == got.num_rows and st["units_decoded"] == 4
    assert sc.stopped_at is None


def test_files_over_whole_file_bytes_are_read_chunk_by_chunk(tmp_path):
    paths = _lake(tmp_path / "lake")
    meta, specs, schema = _specs(paths, ["k", "d"])
    sc = _tasks(paths, specs, meta, whole_file_bytes=0)
    stream, _ = sc.read_all(schema.__arrow_c_schema__())
    got = pa.RecordBatchReader._import_from_c_capsule(stream).read_all()
    assert got.equals(_expected(tmp_path / "lake").select(["k", "d"]))
    assert sc.stats["files_whole"] == 0 and sc.stats["bytes_fed"] == 0


@pytest.mark.parametrize("threads", [1, 2])
def test_no_column_reads_only_the_footers(tmp_path, threads):
    paths = _lake(tmp_path / "lake", sizes=(3000, 4000, 5000))
    meta = _reference(paths[0])
    sc = _tasks(paths, [], meta, threads=threads)
    rows = sum(b.num_rows for b in iter(sc.next_batch, None))
    assert rows == 12000 and sc.stats["files_whole"] == 0
    got = pqfast.read_table(str(tmp_path / "lake"), columns=[], threads=threads)
    assert got.num_rows == 12000 and got.num_columns == 0


def test_a_file_unlike_the_first_ends_the_scan_before_it(tmp_path):
    """A file typed unlike the first: the scan ends before it (stopped_at),
    and read_table and dataset streams read the rest by the route that
    plans every footer (casting it, as pyarrow.dataset does)."""
    paths = _lake(tmp_path / "lake", sizes=(50, 200, 3000, 10, 20))
    t = pq.read_table(paths[2])
    pq.write_table(t.set_column(0, "k", t.column("k").cast(pa.int32())), paths[2])
    meta, specs, schema = _specs(paths)
    sc = _tasks(paths, specs, meta)
    stream, files = sc.read_all(schema.__arrow_c_schema__())
    assert pa.RecordBatchReader._import_from_c_capsule(stream).read_all().num_rows == 250
    assert files == [0, 1] and sc.stopped_at == 2
    expected = _expected(tmp_path / "lake")
    for threads in (1, 2):
        got = pqfast.read_table(str(tmp_path / "lake"), threads=threads)
        assert got.num_rows == 3280 and got.column("k").to_pylist() == list(range(3280))
        assert pqfast.dataset(str(tmp_path / "lake")).to_table(threads=threads).equals(expected)


def _big_lake(root: Path, files: int = 40, rows: int = 500) -> list[str]:
    """`files` files of `rows` rows, hive-partitioned by a key every 10 files."""
    paths = []
    for i in range(files):
        d = root / f"part={i // 10}"
        d.mkdir(parents=True, exist_ok=True)
        at = i * rows
        t = pa.table({"k": pa.array(range(at, at + rows), pa.int64()),
                      "s": pa.array([f"v{j % 13}" for j in range(at, at + rows)]),
                      "d": pa.array([j * 0.25 if j % 5 else None for j in range(at, at + rows)])})
        p = d / f"f-{i:03d}.parquet"
        pq.write_table(t, p)
        paths.append(str(p))
    return paths


def _same(got: pa.Table, want: pa.Table) -> bool:
    """Equal values (the hive key is a dictionary here, int32 in pyarrow.dataset's default)."""
    return got.cast(want.schema).equals(want)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("batch_size", [64, 500, 1 << 17])
def test_streams_equal_pyarrow_dataset_in_order_and_batch_size(tmp_path, threads, batch_size):
    _big_lake(tmp_path / "lake")
    expected = ds.dataset(str(tmp_path / "lake"), format="parquet", partitioning="hive").to_table()
    dset = pqfast.dataset(str(tmp_path / "lake"))
    for columns in (None, ["d", "k"], ["part", "s"]):
        want = expected if columns is None else expected.select(columns)
        sc = dset.scanner(columns=columns, batch_size=batch_size, threads=threads)
        batches = list(sc.to_batches())
        assert all(0 < b.num_rows <= batch_size for b in batches)
        assert _same(pa.Table.from_batches(batches, schema=sc.projected_schema), want)
        st = sc.last_readahead.stats
        assert st["files_whole"] == 40  # (file tasks: every file in one read)
        with dset.scanner(columns=columns, batch_size=batch_size, threads=threads).to_reader() as r:
            assert _same(r.read_all(), want)
    assert _same(pqfast.read_table(str(tmp_path / "lake"), threads=threads), expected)


def test_strings_view_and_dictionaries_in_file_tasks(tmp_path):
    _big_lake(tmp_path / "lake")
    expected = ds.dataset(str(tmp_path / "lake"), format="parquet", partitioning="hive").to_table()
    got = pqfast.read_table(str(tmp_path / "lake"), strings="view")
    assert got.column("s").type == pa.string_view()
    assert got.column("s").cast(pa.string()).equals(expected.column("s"))
    got = pqfast.read_table(str(tmp_path / "lake"), read_dictionary=["s"])
    assert got.column("s").type == pa.dictionary(pa.int32(), pa.string())
    assert got.column("s").cast(pa.string()).equals(expected.column("s"))


def test_a_small_memory_limit_bounds_the_stream(tmp_path):
    paths = _big_lake(tmp_path / "lake")
    limit = 4 * max(os.path.getsize(p) for p in paths) + (256 << 10)
    sc = pqfast.dataset(str(tmp_path / "lake")).scanner(threads=2, memory_limit=limit)
    rows = sum(b.num_rows for b in sc.to_batches())
    assert rows == 20000
    assert 0 < sc.last_readahead.peak_held <= limit


@pytest.mark.parametrize("threads", [1, 2])
def test_a_file_that_cannot_fit_is_refused_naming_it(tmp_path, threads):
    paths = _lake(tmp_path / "lake")
    meta, specs, schema = _specs(paths)
    with pytest.raises(pqfast.MemoryLimitError) as e:
        _tasks(paths, specs, meta, threads=threads, memory_limit=1024).read_all(schema.__arrow_c_schema__())
    assert "part-00.parquet" in str(e.value)
    with pytest.raises(pqfast.MemoryLimitError):
        list(pqfast.dataset(str(tmp_path / "lake")).scanner(memory_limit=1024, threads=threads).to_batches())


def test_a_consumer_that_stops_cancels_the_rest(tmp_path):
    paths = _big_lake(tmp_path / "lake")
    meta, specs, _ = _specs(paths)
    sc = _tasks(paths, specs, meta, threads=1, max_units_ahead=2)
    assert sc.next_batch().num_rows == 500
    sc.cancel()
    # Files taken at most: the next one and its window (4 per thread, 2 threads) beyond it.
    assert sc.stats["units_decoded"] <= 10 < len(paths)
    with pytest.raises(pqfast.FormatError):
        sc.next_batch()
    stream = pqfast.dataset(str(tmp_path / "lake")).to_batches(threads=2)
    assert next(stream).num_rows == 500
    stream.close()


_HOSTILE = {
    "truncated": lambda b: b[: len(b) // 2],
    "garbage": lambda b: bytes(range(256)) * 4,
    "footer past the file": lambda b: b[:-8] + (len(b) + 100).to_bytes(4, "little") + b"PAR1",
    "chunks past the end": lambda b: b[:200] + b[-8 - int.from_bytes(b[-8:-4], "little"):],
    "pages garbled": lambda b: b[:4] + bytes(x ^ 0x5A for x in b[4:300]) + b[300:],
}


def _both_routes_fail_naming(lake, name: str, threads: int) -> None:
    """read_table and a dataset stream of ``lake`` both raise FormatError naming the file ``name``."""
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.read_table(str(lake), threads=threads)
    assert name in str(e.value)
    with pytest.raises(pqfast.FormatError) as e:
        list(pqfast.dataset(str(lake)).to_batches(threads=threads))
    assert name in str(e.value)


@pytest.mark.parametrize("how", sorted(_HOSTILE))
@pytest.mark.parametrize("threads", [1, 2])
def test_hostile_small_files_fail_naming_the_file(tmp_path, how, threads):
    paths = _lake(tmp_path / "lake", sizes=(50, 200, 3000, 10, 40))
    data = Path(paths[3]).read_bytes()
    Path(paths[3]).write_bytes(_HOSTILE[how](data))
    _both_routes_fail_naming(tmp_path / "lake", "part-03.parquet", threads)


# -- runs of files alike, each in file tasks (a lake whose tail evolved) ------------------


def _evolved_lake(root: Path, tail: str, files: int = 12, rows: int = 300) -> list[str]:
    """`files` files of `rows` rows; from the middle on, the tail `tail`:
    "retyped" (k int32, a column e added), "lacking" (no d), or "mixed"
    (the two alternating in runs of two)."""
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(files):
        at = i * rows
        k = pa.array(range(at, at + rows), pa.int64())
        cols = {"k": k, "s": pa.array([f"v{j % 11}" for j in range(at, at + rows)]),
                "d": pa.array([j * 0.5 if j % 3 else None for j in range(at, at + rows)], pa.float64())}
        kind = None if i < files // 2 else (tail if tail != "mixed" else ("retyped", "lacking")[(i // 2) % 2])
        if kind == "retyped":
            cols["k"] = k.cast(pa.int32())
            cols["e"] = pa.array([j % 5 for j in range(rows)], pa.int16())
        elif kind == "lacking":
            del cols["d"]
        p = root / f"part-{i:03d}.parquet"
        pq.write_table(pa.table(cols), p)
        paths.append(str(p))
    return paths


def _counting(monkeypatch):
    """Counts _read_scan's file-task scans (read_files) and footer-planned reads."""
    calls = {"tasks": 0, "footers": 0}
    tasks, footers = _read_scan.read_files, _read_scan._read_by_footers

    def read_files(*a, **kw):
        calls["tasks"] += 1
        return tasks(*a, **kw)

    def by_footers(*a, **kw):
        calls["footers"] += 1
        return footers(*a, **kw)

    monkeypatch.setattr(_read_scan, "read_files", read_files)
    monkeypatch.setattr(_read_scan, "_read_by_footers", by_footers)
    return calls


@pytest.mark.parametrize("tail", ["retyped", "lacking", "mixed"])
@pytest.mark.parametrize("threads", [1, 2])
def test_an_evolved_tail_keeps_file_tasks(tmp_path, monkeypatch, tail, threads):
    """Files unlike the first start a run of their own, read in file tasks
    again (planned from the run's first footer), not the rest of the lake
    by footers: read_table and streams equal pyarrow.dataset (the first
    file's schema: a column the run lacks is null, one typed otherwise is
    cast, one the first file lacks is left out), in order, batch_size kept."""
    _evolved_lake(tmp_path / "lake", tail)
    expected = ds.dataset(str(tmp_path / "lake"), format="parquet").to_table()
    calls = _counting(monkeypatch)
    for columns in (None, ["d", "k"], ["s"]):
        want = expected if columns is None else expected.select(columns)
        calls.update(tasks=0, footers=0)
        got = pqfast.read_table(str(tmp_path / "lake"), columns=columns, threads=threads)
        assert got.equals(want), columns
        runs = {"retyped": 2, "lacking": 2, "mixed": 4}[tail]
        if columns == ["s"]:
            runs = 1  # (every file holds s alike: one run)
        elif columns == ["d", "k"] and tail == "retyped":
            runs = 2
        # The last run of one file (mixed) has no second file to plan file tasks for.
        assert calls["footers"] == 0 and calls["tasks"] == runs, (columns, calls)
        sc = pqfast.dataset(str(tmp_path / "lake")).scanner(columns=columns, batch_size=250, threads=threads)
        batches = list(sc.to_batches())
        assert all(0 < b.num_rows <= 250 for b in batches)
        assert pa.Table.from_batches(batches, schema=sc.projected_schema).equals(want)
        assert sc.last_readahead.scanners == runs


@pytest.mark.parametrize("threads", [1, 2])
def test_a_hostile_file_in_a_later_run_fails_naming_it(tmp_path, threads):
    paths = _evolved_lake(tmp_path / "lake", "retyped")
    Path(paths[9]).write_bytes(_HOSTILE["pages garbled"](Path(paths[9]).read_bytes()))
    _both_routes_fail_naming(tmp_path / "lake", "part-009.parquet", threads)


def test_an_evolved_lake_refuses_a_memory_limit_clearly(tmp_path):
    _evolved_lake(tmp_path / "lake", "lacking")
    with pytest.raises(pqfast.MemoryLimitError) as e:
        pqfast.read_table(str(tmp_path / "lake"), memory_limit=1024, threads=2)
    assert "part-000.parquet" in str(e.value)
