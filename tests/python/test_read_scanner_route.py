"""read_table without filters on local paths reads through the streaming
scanner (``pqfast._read_scan``) when it takes the projection: the same
values, types and schema metadata as pyarrow.parquet.read_table and as the
column reader (``PQFAST_READ_ROUTE=reader``, the escape hatch) on the writers' files, random
files, lists, globs, directories with hive keys, ``row_groups=``,
``columns=``, threads and ``strings=``; a memory limit too small raises
MemoryLimitError; nested columns go through it too (a struct field
reference keeps the column reader). Which route ran is
seen by counting calls of the scanner's helper, never by message text."""

from __future__ import annotations

import datetime
import decimal
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _read_scan, _scan_whole

from scanner_routes import routed  # noqa: F401

WRITERS = Path(__file__).resolve().parents[2] / "tests" / "data" / "writers"


@pytest.fixture(params=["calling thread", "scanner threads"])
def threaded(request, monkeypatch):
    """Each read once as small reads go (on the calling thread) and once on
    the scanner's threads (row groups and the columns of one in parallel)."""
    if request.param == "scanner threads":
        monkeypatch.setattr(_read_scan, "SMALL_READ_BYTES", 0)
        monkeypatch.setattr(_scan_whole, "SMALL_READ_BYTES", 0)
    return request.param


def _old(monkeypatch, *a, **k) -> pa.Table:
    monkeypatch.setenv(_read_scan.ROUTE_ENV, "reader")
    try:
        return pqfast.read_table(*a, **k)
    finally:
        monkeypatch.setenv(_read_scan.ROUTE_ENV, "scanner")


def _plain(t: pa.DataType) -> bool:
    return not isinstance(t, pa.ExtensionType) and (
        pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t) or pa.types.is_string(t)
        or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_date(t) or pa.types.is_time(t)
        or pa.types.is_timestamp(t) or pa.types.is_decimal(t))


def _flat_writer_files() -> list[Path]:
    return sorted(p for p in WRITERS.glob("*.parquet"))


@pytest.mark.parametrize("path", _flat_writer_files(), ids=lambda p: p.name)
def test_writers_files_equal_pyarrow(path, routed, threaded, monkeypatch):
    got = pqfast.read_table(str(path), threads=2)
    old = _old(monkeypatch, str(path), threads=2)
    assert got.schema.equals(old.schema, check_metadata=True)
    assert got.equals(old)
    # Dictionary and extension columns (UUID, JSON: typed after the read)
    # keep the column reader; numbers, booleans, strings, binaries, dates,
    # times, timestamps (INT96 included) and decimals are the scanner's.
    # (pyarrow 26 cannot read DataFusion's DELTA_BYTE_ARRAY dictionary
    # column: test_real_writers compares those columns its own way.)
    plain = [f.name for f in got.schema if _plain(f.type)]
    if len(plain) == len(got.schema):
        assert routed, f"{path.name} did not go through the scanner"
    routed.clear()
    got = pqfast.read_table(str(path), columns=plain, threads=2)
    assert routed, f"{path.name}'s plain columns did not go through the scanner"
    want = pq.read_table(str(path), columns=plain)
    assert got.equals(want) and got.schema.equals(want.schema, check_metadata=True)


def _random_table(rng: np.random.Generator, n: int) -> pa.Table:
    def mask():
        return rng.random(n) < rng.choice([0.0, 0.1, 0.6])

    ints = rng.integers(-(2 ** 40), 2 ** 40, n)
    cols = {
        "i8": pa.array(rng.integers(-128, 127, n).astype(np.int8), mask=mask()),
        "u16": pa.array(rng.integers(0, 65535, n).astype(np.uint16), mask=mask()),
        "i32": pa.array(rng.integers(-1000, 1000, n).astype(np.int32), mask=mask()),
        "i64": pa.array(ints, mask=mask()),
        "f32": pa.array(rng.random(n).astype(np.float32), mask=mask()),
        "f64": pa.array(rng.standard_normal(n), mask=mask()),
        "b": pa.array(rng.random(n) < 0.5, mask=mask()),
        "s": pa.array([f"v{x}" * int(x % 4) for x in rng.integers(0, 50, n)], mask=mask()),
        "bin": pa.array([bytes([x % 256]) * int(x % 9) for x in rng.integers(0, 1000, n)], type=pa.binary(),
                        mask=mask()),
        "d": pa.array([datetime.date(2000, 1, 1) + datetime.timedelta(days=int(x)) for x in rng.integers(0, 9000, n)],
                      mask=mask()),
        "ts": pa.array(ints, type=pa.timestamp("us", tz="UTC"), mask=mask()),
        "dec": pa.array([decimal.Decimal(int(x)).scaleb(-2) for x in rng.integers(-10 ** 6, 10 ** 6, n)],
                        type=pa.decimal128(12, 2), mask=mask()),
        "fsb": pa.array([int(x).to_bytes(4, "little") for x in rng.integers(0, 2 ** 31, n)], type=pa.binary(4),
                        mask=mask()),
        "ls": pa.array([f"{x}" for x in rng.integers(0, 10 ** 6, n)], type=pa.large_string(), mask=mask()),
    }
    return pa.table(cols)


@pytest.mark.parametrize("seed", range(8))
def test_random_files_equal_pyarrow(tmp_path, seed, routed, threaded, monkeypatch):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 5000))
    t = _random_table(rng, n)
    p = str(tmp_path / "r.parquet")
    pq.write_table(t, p, row_group_size=int(rng.integers(1, 3000)),
                   compression=str(rng.choice(["snappy", "zstd", "gzip", "lz4", "none"])),
                   use_dictionary=bool(rng.integers(0, 2)), data_page_version=str(rng.choice(["1.0", "2.0"])),
                   data_page_size=int(rng.choice([256, 1 << 20])))
    want = pq.read_table(p)
    threads = int(rng.choice([1, 2, 4]))
    got = pqfast.read_table(p, threads=threads)
    assert got.equals(want) and got.schema.equals(want.schema, check_metadata=True)
    cols = sorted(rng.choice(t.column_names, size=int(rng.integers(1, 6)), replace=False).tolist())
    got = pqfast.read_table(p, columns=cols, use_threads=bool(seed % 2))
    assert got.equals(pq.read_table(p, columns=cols))
    nrg = pq.ParquetFile(p).metadata.num_row_groups
    if nrg:
        rgs = sorted({int(g) for g in rng.integers(0, nrg, 3)})
        got = pqfast.read_table(p, columns=cols, row_groups=rgs)
        assert got.equals(pq.ParquetFile(p).read_row_groups(rgs, columns=cols))
        assert got.equals(_old(monkeypatch, p, columns=cols, row_groups=rgs))
    for strings in ("view", "large"):
        assert pqfast.read_table(p, strings=strings).equals(_old(monkeypatch, p, strings=strings))
    if n:
        assert routed


def _lake(root: Path, hive: bool) -> list[str]:
    rng = np.random.default_rng(7)
    paths, start = [], 0
    for i in range(5):
        n = int(rng.integers(1, 900))
        t = pa.table({"id": pa.array(np.arange(start, start + n, dtype=np.int64)),
                      "s": pa.array([f"s{x % 11}" for x in range(n)]),
                      "v": pa.array(rng.random(n), mask=rng.random(n) < 0.2)})
        start += n
        d = root / (f"year={2020 + i % 2}" if hive else "") / (f"cat={'ab'[i % 2]}" if hive else "")
        d.mkdir(parents=True, exist_ok=True)
        p = d / f"part-{i}.parquet"
        pq.write_table(t, p, row_group_size=int(rng.integers(10, 400)))
        paths.append(str(p))
    return sorted(paths)


def test_list_glob_and_directory(tmp_path, routed, threaded, monkeypatch):
    paths = _lake(tmp_path, hive=False)
    want = pa.concat_tables([pq.read_table(p) for p in paths])
    assert pqfast.read_table(paths).equals(want)
    assert pqfast.read_table(str(tmp_path)).equals(want)
    # A glob, without filters (the column reader refused it).
    assert pqfast.read_table(str(tmp_path / "*.parquet")).equals(want)
    assert pqfast.read_table(str(tmp_path / "part-[13].parquet"), columns=["v"]).equals(
        pa.concat_tables([pq.read_table(p, columns=["v"]) for p in paths if p.endswith(("1.parquet", "3.parquet"))]))
    # row_groups= applies to every file, negative ones from the end.
    got = pqfast.read_table(paths, row_groups=[0, -1], columns=["id"])
    want_rg = pa.concat_tables([pq.ParquetFile(p).read_row_groups(
        [0, pq.ParquetFile(p).metadata.num_row_groups - 1], columns=["id"]) for p in paths])
    assert got.equals(want_rg)
    assert len(routed) == 5
    with pytest.raises(IndexError):
        pqfast.read_table(paths, row_groups=[10_000])
    assert pqfast.read_table(paths, columns=[]).num_rows == want.num_rows


def test_hive_directory(tmp_path, routed, threaded, monkeypatch):
    _lake(tmp_path, hive=True)
    got = pqfast.read_table(str(tmp_path))
    assert routed
    old = _old(monkeypatch, str(tmp_path))
    assert got.equals(old) and got.schema.equals(old.schema, check_metadata=True)
    want = pq.read_table(str(tmp_path))
    assert got.column_names == want.column_names
    for name in want.column_names:
        assert got.column(name).to_pylist() == want.column(name).to_pylist(), name
    sub = pqfast.read_table(str(tmp_path), columns=["v", "year"])
    assert sub.column_names == ["v", "year"]
    assert sub.column("year").to_pylist() == want.column("year").to_pylist()
    assert pqfast.read_table(str(tmp_path), partitioning=None).column_names == ["id", "s", "v"]


def test_memory_limit_too_small_is_typed(tmp_path, routed, threaded):
    p = str(tmp_path / "big.parquet")
    pq.write_table(pa.table({"x": np.arange(400_000, dtype=np.int64), "y": np.ones(400_000)}), p,
                   row_group_size=100_000)
    for limit in (4096, 1 << 20):
        with pytest.raises(pqfast.MemoryLimitError) as e:
            pqfast.read_table(p, memory_limit=limit)
        assert e.value.code == "memory limit"
    assert pqfast.read_table(p, memory_limit=64 << 20).num_rows == 400_000
    assert routed


def test_nested_columns_go_through_the_scanner(tmp_path, routed):
    p = str(tmp_path / "n.parquet")
    t = pa.table({"id": [1, 2, 3], "l": [[1], None, [2, 3]], "st": [{"a": 1}, None, {"a": 3}]})
    pq.write_table(t, p)
    assert pqfast.read_table(p).equals(pq.read_table(p))
    assert len(routed) == 1
    # A struct field reference keeps the column reader.
    assert pqfast.read_table(p, columns=["st.a"]).column(0).to_pylist() == [1, None, 3]
    assert len(routed) == 1
    assert pqfast.read_table(p, columns=["id"]).equals(pq.read_table(p, columns=["id"]))
    assert len(routed) == 2
    # A glob of nested files: the scanner too.
    got = pqfast.read_table(str(tmp_path / "*.parquet"))
    assert got.equals(pq.read_table(p))
    assert len(routed) == 3


def test_route_env_keeps_the_column_reader(tmp_path, routed, monkeypatch):
    p = str(tmp_path / "a.parquet")
    pq.write_table(pa.table({"a": [1, 2]}), p)
    assert _old(monkeypatch, p).equals(pq.read_table(p))
    assert not routed
    assert pqfast.read_table(p).equals(pq.read_table(p))
    assert routed


def test_default_route_is_the_scanner_for_lakes_and_one_file(tmp_path, routed, monkeypatch):
    # Unset, whole reads of local files, a lake (a glob, a list, a
    # directory) or one file, go through the scanner; PQFAST_READ_ROUTE=reader
    # keeps the column reader.
    monkeypatch.delenv(_read_scan.ROUTE_ENV)
    for i in range(2):
        pq.write_table(pa.table({"a": [i, i + 1]}), tmp_path / f"p{i}.parquet")
    got = pqfast.read_table(str(tmp_path / "p*.parquet"))
    assert got.column("a").to_pylist() == [0, 1, 1, 2]
    assert len(routed) == 1
    assert pqfast.read_table([str(tmp_path / "p1.parquet"), str(tmp_path / "p0.parquet")]) \
        .column("a").to_pylist() == [1, 2, 0, 1]
    assert len(routed) == 2
    one = str(tmp_path / "p0.parquet")
    assert pqfast.read_table(one).column("a").to_pylist() == [0, 1]
    assert len(routed) == 3
    with pqfast.ParquetFile(one) as f:
        assert f.read().column("a").to_pylist() == [0, 1]
        assert f.read_row_groups([0]).column("a").to_pylist() == [0, 1]
    assert len(routed) == 5
    monkeypatch.setenv(_read_scan.ROUTE_ENV, "reader")
    assert pqfast.read_table(one).column("a").to_pylist() == [0, 1]
    with pqfast.ParquetFile(one) as f:
        assert f.read().column("a").to_pylist() == [0, 1]
    assert len(routed) == 5


def test_one_file_by_default_keeps_orders_and_types(tmp_path, routed, threaded, monkeypatch):
    # One file through the scanner with the route unset: row_groups= in the
    # order given (repeats and negatives as the column reader takes them),
    # columns= in the order given, the schema's metadata, equal to the
    # column reader's table.
    monkeypatch.delenv(_read_scan.ROUTE_ENV)
    p = str(tmp_path / "o.parquet")
    n = 30_000
    t = pa.table({"id": np.arange(n, dtype=np.int64), "s": [f"k{i % 13}" for i in range(n)],
                  "d": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 400) for i in range(n)]),
                  "x": pa.array([None if i % 7 == 0 else i * 0.5 for i in range(n)])})
    pq.write_table(t, p, row_group_size=4_000)
    for kw in ({}, {"columns": ["x", "id"]}, {"columns": ["s"]}, {"row_groups": [6, 0, 3]},
               {"row_groups": [-1, 2], "columns": ["d", "s", "id"]}, {"threads": 2}, {"use_threads": False}):
        got = pqfast.read_table(p, **kw)
        calls = len(routed)
        want = _old(monkeypatch, p, **kw)
        monkeypatch.delenv(_read_scan.ROUTE_ENV)
        assert got.equals(want), kw
        assert got.schema.equals(want.schema, check_metadata=True), kw
        assert calls == len(routed)  # (the column reader's read did not count)
    assert got.column_names == list(t.column_names)
    with pqfast.ParquetFile(p) as f:
        g = f.read_row_groups([5, 1], columns=["id"])
        assert g.column("id").to_pylist()[:2] == [20_000, 20_001]
        assert g.column("id").to_pylist()[4_000:4_002] == [4_000, 4_001]
        assert f.read(columns=["x", "d"]).column_names == ["x", "d"]
    assert len(routed) == 7 + 2


def test_one_file_memory_limit_by_default_is_typed(tmp_path, routed, threaded, monkeypatch):
    monkeypatch.delenv(_read_scan.ROUTE_ENV)
    p = str(tmp_path / "big.parquet")
    pq.write_table(pa.table({"x": np.arange(400_000, dtype=np.int64)}), p, row_group_size=100_000)
    with pytest.raises(pqfast.MemoryLimitError) as e:
        pqfast.read_table(p, memory_limit=64 << 10)
    assert e.value.code == "memory limit"
    with pqfast.ParquetFile(p) as f, pytest.raises(pqfast.MemoryLimitError):
        f.read(memory_limit=64 << 10)
    assert len(routed) == 2
    assert pqfast.read_table(p, memory_limit=64 << 20).num_rows == 400_000


def test_one_file_the_scanner_does_not_take_keeps_the_column_reader(tmp_path, routed, monkeypatch):
    # Decided before the read from the footer and the projection: a large
    # list (retyped after the read), read_dictionary= and extension columns
    # go to the column reader.
    monkeypatch.delenv(_read_scan.ROUTE_ENV)
    p = str(tmp_path / "n.parquet")
    t = pa.table({"id": [1, 2, 3], "l": pa.array([[1], None, [2, 3]], pa.large_list(pa.int64())),
                  "s": ["a", "b", "a"]})
    pq.write_table(t, p)
    assert pqfast.read_table(p).equals(pq.read_table(p))
    assert pqfast.read_table(p, columns=["s"], read_dictionary=["s"]).equals(
        pq.read_table(p, columns=["s"], read_dictionary=["s"]))
    assert not routed
    assert pqfast.read_table(p, columns=["id", "s"]).equals(pq.read_table(p, columns=["id", "s"]))
    assert len(routed) == 1


def test_parquet_file_reads_go_through_the_scanner(tmp_path, routed, threaded, monkeypatch):
    p = str(tmp_path / "rg.parquet")
    t = pa.table({"id": np.arange(50_000, dtype=np.int64), "s": [f"v{i % 97}" for i in range(50_000)],
                  "f": np.linspace(0, 1, 50_000)})
    pq.write_table(t, p, row_group_size=8_000)
    want = pq.ParquetFile(p)
    with pqfast.ParquetFile(p) as f:
        assert f.read().equals(want.read())
        assert f.read(columns=["s", "id"]).equals(want.read(columns=["s", "id"]))
        # Given row groups, in the order given, negative ones from the end.
        got = f.read_row_groups([5, 0, -1], columns=["id", "f"])
        assert got.equals(want.read_row_groups([5, 0, 6], columns=["id", "f"]))
        assert f.read_row_group(3).equals(want.read_row_group(3))
        assert f.read_row_groups([]).num_rows == 0
        assert f.read_row_groups([]).schema.equals(want.schema_arrow, check_metadata=False)
        with pytest.raises(IndexError):
            f.read_row_groups([7])
    assert len(routed) == 4  # (no row group: the schema alone, no scan)
    # The escape hatch: the same reads by the column reader.
    with pqfast.ParquetFile(p) as f:
        assert _old(monkeypatch, p).equals(f.read())
    monkeypatch.setenv(_read_scan.ROUTE_ENV, "reader")
    with pqfast.ParquetFile(p) as f:
        assert f.read_row_groups([1, 2]).equals(want.read_row_groups([1, 2]))
    assert len(routed) == 5


def test_memory_limit_through_parquet_file_is_typed(tmp_path, routed, threaded):
    p = str(tmp_path / "big.parquet")
    pq.write_table(pa.table({"x": np.arange(400_000, dtype=np.int64)}), p, row_group_size=100_000)
    with pqfast.ParquetFile(p) as f:
        with pytest.raises(pqfast.MemoryLimitError) as e:
            f.read_row_groups([1, 2], memory_limit=64 << 10)
        assert e.value.code == "memory limit"
        assert f.read_row_groups([1, 2], memory_limit=64 << 20).num_rows == 200_000
    assert routed


def test_many_files_keep_their_order(tmp_path, routed, threaded):
    # Files of one row group each (the per-file path: footers read at once,
    # one scanner for all), read in path order, row for row.
    paths = []
    for i in range(300):
        p = tmp_path / f"part-{i:04d}.parquet"
        pq.write_table(pa.table({"file": pa.array([i] * (i % 7 + 1), pa.int32()),
                                 "row": pa.array(range(i % 7 + 1), pa.int64())}), p)
        paths.append(str(p))
    want = pa.concat_tables([pq.read_table(p) for p in paths])
    for source in (str(tmp_path), str(tmp_path / "*.parquet"), paths):
        got = pqfast.read_table(source, threads=2)
        assert got.equals(want)
        assert got.column("file").num_chunks == 300
    assert len(routed) == 3


def test_a_file_unlike_the_first_is_read_on_its_own(tmp_path, routed):
    # Decided from the footers before the read (Lake.read_local_footers): a
    # file whose column is typed otherwise is no part of one scan of the
    # lake; each file is read alone (a scan each) and cast to the first's schema.
    pq.write_table(pa.table({"a": pa.array([1, 2], pa.int64())}), tmp_path / "p0.parquet")
    pq.write_table(pa.table({"a": pa.array([3], pa.int32())}), tmp_path / "p1.parquet")
    got = pqfast.read_table(str(tmp_path))
    assert got.column("a").to_pylist() == [1, 2, 3]
    assert got.schema.field("a").type == pa.int64()
    assert len(routed) == 2


def test_file_objects_and_missing_files(tmp_path, routed):
    p = tmp_path / "a.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), p)
    with open(p, "rb") as fh:
        assert pqfast.read_table(fh).equals(pq.read_table(p))
    assert not routed
    with pytest.raises((OSError, pqfast.FormatError)):
        pqfast.read_table(str(tmp_path / "missing.parquet"))
    with pytest.raises(pqfast.FormatError):
        pqfast.read_table(str(tmp_path / "none-*.parquet"))


def test_read_dictionary_columns_keep_the_column_reader(tmp_path, routed):
    p = str(tmp_path / "d.parquet")
    pq.write_table(pa.table({"id": [1, 2, 3], "s": ["a", None, "a"]}), p)
    got = pqfast.read_table(p, read_dictionary=["s"])
    assert got.equals(pq.read_table(p, read_dictionary=["s"]))
    assert not routed
    # A projection without the dictionary column is the scanner's.
    assert pqfast.read_table(p, columns=["id"], read_dictionary=["s"]).equals(pq.read_table(p, columns=["id"]))
    assert routed


def test_a_lake_of_more_files_than_descriptors(tmp_path):
    # The scanner closes files it has read: 300 files under a limit of 96
    # descriptors (in a child process: the limit is the process's).
    for i in range(300):
        pq.write_table(pa.table({"i": [i]}), tmp_path / f"part-{i:04d}.parquet")
    code = (
        "import resource, sys, pqfast\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (96, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))\n"
        "for th in (1, 2):\n"
        "    t = pqfast.read_table(sys.argv[1], threads=th)\n"
        "    assert t.column('i').to_pylist() == list(range(300)), th\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=os.environ)
    assert r.returncode == 0, r.stderr[-2000:]


def test_cli_head_reads_through_the_scanner(tmp_path, routed, monkeypatch):
    # `pqfast head` reads the row groups that hold its rows by ParquetFile.read.
    from pqfast.commands.head import head
    monkeypatch.delenv(_read_scan.ROUTE_ENV)
    p = str(tmp_path / "h.parquet")
    t = pa.table({"id": np.arange(30_000, dtype=np.int64), "s": [f"v{i % 13}" for i in range(30_000)]})
    pq.write_table(t, p, row_group_size=10_000)
    assert head(p, 12_000, ["s", "id"]).equals(t.select(["s", "id"]).slice(0, 12_000))
    assert len(routed) == 1


def test_threads_for_one_chunk_cut_into_page_ranges(tmp_path, monkeypatch):
    # Fewer chunks than threads: the scanner keeps as many threads as there
    # are pieces of 4 MiB decoded (PQFAST_SPLIT_BYTES sets the piece), and
    # no more; as many chunks as threads keep them all.
    monkeypatch.delenv(_scan_whole.SPLIT_ENV, raising=False)
    p = str(tmp_path / "one.parquet")
    pq.write_table(pa.table({"x": np.arange(3_000_000, dtype=np.int64), "y": np.zeros(3_000_000, np.int8)}), p,
                   row_group_size=3_000_000, use_dictionary=False, data_page_size=1 << 16)
    meta = pqfast.ParquetFile(p)._meta
    rg = pq.ParquetFile(p).metadata.row_group(0)
    size_x, size_y = rg.column(0).total_uncompressed_size, rg.column(1).total_uncompressed_size
    assert size_x > 20 << 20 and size_y > 8 << 20  # (int8 is stored as INT32)
    x, y = [("x", "", "")], [("y", "", "")]
    assert _scan_whole.useful_threads(meta, None, x, 8) == -(-size_x // (4 << 20))
    assert _scan_whole.useful_threads(meta, None, x, 3) == 3
    assert _scan_whole.useful_threads(meta, None, x + y, 2) == 2
    monkeypatch.setenv(_scan_whole.SPLIT_ENV, "0")  # no chunk is cut: a thread per chunk
    assert _scan_whole.useful_threads(meta, None, x, 8) == 1
    assert _scan_whole.useful_threads(meta, None, x + y, 8) == 2
    monkeypatch.setenv(_scan_whole.SPLIT_ENV, str(size_y))
    assert _scan_whole.useful_threads(meta, [0], y, 8) == 1


def test_one_row_group_cut_over_threads_equals_pyarrow_and_is_bounded(tmp_path, routed, monkeypatch):
    # One row group, fewer chunks than threads: its chunks' pages are cut over
    # the scanner's threads; values as pyarrow's; a memory limit too small is
    # still a typed MemoryLimitError on that route.
    monkeypatch.delenv(_read_scan.ROUTE_ENV)
    monkeypatch.setenv(_scan_whole.SPLIT_ENV, str(64 << 10))
    p = str(tmp_path / "one.parquet")
    n = 400_000
    t = pa.table({"x": np.arange(n, dtype=np.int64), "s": [f"comment {i} " + "x" * (i % 17) for i in range(n)],
                  "f": pa.array([None if i % 7 == 0 else i * 0.5 for i in range(n)])})
    pq.write_table(t, p, row_group_size=n, data_page_size=1 << 14)
    for cols in (["s"], ["x", "f"], None):
        for th in (2, 4):
            got = pqfast.read_table(p, columns=cols, threads=th)
            assert got.equals(pq.read_table(p, columns=cols)), (cols, th)
    calls = len(routed)
    assert calls == 6
    # A limit the chunk's bytes fit (the unit is read) but its decoded ranges
    # do not: refused while the ranges decode.
    packed = pq.ParquetFile(p).metadata.row_group(0).column(1).total_compressed_size
    with pytest.raises(pqfast.MemoryLimitError) as e:
        pqfast.read_table(p, columns=["s"], threads=4, memory_limit=2 * packed)
    assert e.value.code == "memory limit"
    assert len(routed) == calls + 1
