"""pqfast's column reader against pyarrow 26's read_table: every parquet-testing
file column by column, bad files, and arrays equal across SIMD implementations."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast

from conftest import DATA

BAD = DATA.parent / "bad_data"


def same_column(got, exp) -> None:
    """Equal type, validity and values; floats compared bit for bit (NaN == NaN)."""
    assert got.type.equals(exp.type), f"type {got.type} != {exp.type}"
    assert len(got) == len(exp)
    g = got.combine_chunks() if isinstance(got, pa.ChunkedArray) else got
    e = exp.combine_chunks() if isinstance(exp, pa.ChunkedArray) else exp
    assert g.null_count == e.null_count
    if pa.types.is_floating(g.type):
        view = {16: pa.uint16(), 32: pa.uint32(), 64: pa.uint64()}[g.type.bit_width]
        assert g.is_valid().equals(e.is_valid())
        # Null slots may hold anything: compare valid values only.
        gv = g.filter(g.is_valid()).view(view)
        ev = e.filter(e.is_valid()).view(view)
        assert gv.equals(ev)
        return
    if pa.types.is_dictionary(g.type):
        g = g.cast(g.type.value_type)
        e = e.cast(e.type.value_type)
    assert g.equals(e)


def _files(d: Path):
    return sorted(p.name for p in d.glob("*.parquet")) if d.exists() else []


@pytest.mark.parametrize("name", _files(DATA))
def test_parquet_testing_file_reads_as_pyarrow(data_dir, name):
    path = data_dir / name
    try:
        exp = pq.read_table(path)
    except Exception:  # noqa: BLE001 - pyarrow cannot read it: we must refuse it cleanly
        with pytest.raises(pqfast.FormatError):
            pqfast.read_table(path)
        return
    for col in exp.column_names:
        got = pqfast.read_table(path, columns=[col])
        assert got.column_names == [col]
        same_column(got.column(0), exp.column(col))
    t = pqfast.read_table(path)
    t.validate(full=True)
    assert t.column_names == exp.column_names
    assert t.num_rows == exp.num_rows


@pytest.mark.parametrize("name", _files(BAD))
def test_bad_data_raises_format_error_or_reads_as_pyarrow(name):
    path = BAD / name
    try:
        exp = pq.read_table(path)
    except Exception:  # noqa: BLE001
        exp = None
    if exp is None:
        with pytest.raises(pqfast.FormatError):
            pqfast.read_table(path)
        return
    # pyarrow reads it (a file that once broke a reader): so must we, equally.
    got = pqfast.read_table(path)
    for col in exp.column_names:
        same_column(got.column(col), exp.column(col))


def test_row_groups_and_read_row_group(tmp_path):
    t = pa.table({"a": pa.array(range(10_000), pa.int64()), "s": [f"v{i % 37}" for i in range(10_000)]})
    p = tmp_path / "rg.parquet"
    pq.write_table(t, p, row_group_size=3000)
    f = pqfast.ParquetFile(p)
    assert f.num_row_groups == 4
    for i in range(4):
        same_column(f.read_row_group(i).column("a"), pq.ParquetFile(p).read_row_group(i).column("a"))
    got = pqfast.read_table(p, row_groups=[3, 1], columns=["s"])
    exp = pq.ParquetFile(p).read_row_groups([3, 1], columns=["s"])
    same_column(got.column("s"), exp.column("s"))
    assert pqfast.read_table(p, use_threads=False).equals(pq.read_table(p))


def test_file_objects_and_filesystems(tmp_path):
    import pyarrow.fs as pafs

    t = pa.table({"x": pa.array([1.5, None, 3.25] * 1000), "y": pa.array(["a", "bb", None] * 1000)})
    p = tmp_path / "f.parquet"
    pq.write_table(t, p, compression="zstd")
    with open(p, "rb") as fh:
        assert pqfast.read_table(fh).equals(t)
    assert pqfast.read_table(str(p), filesystem=pafs.LocalFileSystem()).equals(t)
    assert pqfast.read_table(io.BytesIO(p.read_bytes())).equals(t)


def test_result_carries_the_c_stream_interface(tmp_path):
    t = pa.table({"x": [1, 2, 3]})
    p = tmp_path / "c.parquet"
    pq.write_table(t, p)
    got = pqfast.read_table(p)
    assert hasattr(got, "__arrow_c_stream__")
    assert pa.table(got).equals(t)
    duckdb = pytest.importorskip("duckdb")
    assert duckdb.sql("SELECT sum(x) AS s FROM got").fetchall() == [(6,)]


def test_missing_column_is_a_key_error(tmp_path):
    p = tmp_path / "m.parquet"
    pq.write_table(pa.table({"x": [1]}), p)
    with pytest.raises(KeyError):
        pqfast.read_table(p, columns=["nope"])


SIMD_FILES = ["delta_binary_packed.parquet", "delta_byte_array.parquet", "delta_length_byte_array.parquet",
              "alltypes_dictionary.parquet", "byte_stream_split_extended.gzip.parquet",
              "delta_encoding_optional_column.parquet", "datapage_v2.snappy.parquet"]


@pytest.mark.parametrize("name", SIMD_FILES)
def test_every_simd_level_reads_the_same_arrays(data_dir, each_simd_level, name):
    path = data_dir / name
    if not path.exists():
        pytest.skip(f"{name} not in this copy of parquet-testing")
    flat = [f.name for f in pq.read_schema(path) if not pa.types.is_nested(f.type)]
    pqfast.set_simd_level("scalar")
    ref = pqfast.read_table(path, columns=flat)
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        got = pqfast.read_table(path, columns=flat)
        for col in ref.column_names:
            same_column(got.column(col), ref.column(col))


def test_head_cli(tmp_path):
    import json

    from conftest import run_cli

    t = pa.table({"a": list(range(50)), "s": [f"x{i}" for i in range(50)], "z": [None] * 50})
    p = tmp_path / "h.parquet"
    pq.write_table(t, p, row_group_size=7)
    out = run_cli("head", str(p), "-n", "9", "--columns", "a,s").stdout.splitlines()
    assert out[0].split() == ["a", "s"]
    assert [ln.split()[0] for ln in out[2:]] == [str(i) for i in range(9)]
    rows = [json.loads(ln) for ln in run_cli("head", str(p), "-n", "3", "--json").stdout.splitlines()]
    assert rows == [{"a": i, "s": f"x{i}", "z": None} for i in range(3)]
    # Nested values print as pyarrow gives them in Python.
    rows = [json.loads(ln) for ln in run_cli("head", str(DATA / "nested_lists.snappy.parquet"), "-n", "2",
                                              "--json").stdout.splitlines()]
    assert rows == pq.read_table(DATA / "nested_lists.snappy.parquet").slice(0, 2).to_pylist()


def test_read_pruned_reads_kept_row_groups_with_pqfast(tmp_path):
    t = pa.table({"id": pa.array(range(20_000), pa.int64()), "s": [f"k{i}" for i in range(20_000)]})
    p = tmp_path / "pr.parquet"
    pq.write_table(t, p, row_group_size=2000, bloom_filter_options={"id": {"fpp": 0.01}})
    got = pqfast.read_pruned(str(p), "id", [5, 12_345])
    assert got.column("id").to_pylist() == [5, 12_345]
    assert got.column("s").to_pylist() == ["k5", "k12345"]


def test_bench_read_encodings_runs_on_a_small_scale(tmp_path):
    """The command works end to end (files written, every cell measured); no timing is checked."""
    import json

    from conftest import run_cli

    proc = run_cli("bench", "read-encodings", "--scale", "0.01", "--runs", "1", "--json", "--threads", "1",
                   "--data", str(tmp_path))
    rows = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert {(r["reader"], r["encoding"], r["codec"]) for r in rows} == {
        (rd, e, c) for rd in ("pqfast", "pyarrow", "duckdb") for e in ("plain", "dictionary", "delta")
        for c in ("none", "zstd")}
    assert all(r["rows"] == rows[0]["rows"] > 0 and r["cpu_s"] >= 0 for r in rows)
    # The six files hold the same rows, and pqfast reads them as pyarrow does.
    files = sorted(tmp_path.rglob("lineitem-*.parquet"))
    assert len(files) == 6
    cols = ["l_orderkey", "l_shipmode", "l_commitdate", "l_receiptdate", "l_shipdate"]
    for f in files:
        got, exp = pqfast.read_table(f, columns=cols), pq.read_table(f, columns=cols)
        for c in cols:
            same_column(got.column(c), exp.column(c))


def test_file_object_with_many_row_groups(tmp_path):
    # A Python file object is read with seek + read: one chunk at a time.
    t = pa.table({"a": pa.array(range(40_000), pa.int64()), "s": [f"s{i % 91}" for i in range(40_000)]})
    p = tmp_path / "many.parquet"
    pq.write_table(t, p, row_group_size=2000, compression="snappy")
    with open(p, "rb") as fh:
        assert pqfast.read_table(fh, use_threads=True).equals(t)


def test_no_columns_and_no_rows(tmp_path):
    p = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), p, row_group_size=2)
    assert pqfast.read_table(p, columns=[]).num_rows == pq.read_table(p, columns=[]).num_rows == 3
    e = tmp_path / "e.parquet"
    pq.write_table(pa.table({"a": pa.array([], pa.int64()), "s": pa.array([], pa.string())}), e)
    assert pqfast.read_table(e).equals(pq.read_table(e))
