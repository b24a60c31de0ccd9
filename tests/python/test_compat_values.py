"""Issue 34, part A: legacy shapes that read silently wrong before, each
file of tests/data/compat/ (made by make_compat.py, gen_values.py) read by
pqfast and by pyarrow 26, values and types, whole and with a filter, at
every SIMD level: BIT_PACKED level streams, data pages v2 of parquet-cpp
1.5, INT96 at any Julian day, empty groups, duplicate names, null-typed
columns."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import pqfast

COMPAT = Path(__file__).resolve().parents[1] / "data" / "compat"


def _each_level():
    saved = pqfast.simd_level()
    try:
        for level in pqfast.available_simd_levels():
            pqfast.set_simd_level(level)
            yield level
    finally:
        pqfast.set_simd_level(saved)


def _same(got: pa.Table, want: pa.Table, what: str) -> None:
    assert got.schema.equals(want.schema), f"{what}: schema\n{got.schema}\n!=\n{want.schema}"
    assert got.num_rows == want.num_rows, f"{what}: {got.num_rows} rows != {want.num_rows}"
    for i, (g, w) in enumerate(zip(got.columns, want.columns)):
        assert g.combine_chunks().equals(w.combine_chunks()), \
            f"{what}: column {i} ({got.schema.field(i).name})\n{g.to_pylist()}\n!=\n{w.to_pylist()}"


def _check(name: str, filters: list, columns: list | None = None) -> None:
    """The file whole, per column, and under each filter, at every SIMD level."""
    path = str(COMPAT / name)
    want = pq.read_table(path)
    cols = columns if columns is not None else want.column_names
    for level in _each_level():
        _same(pqfast.read_table(path), want, f"{name} at {level}")
        for c in cols:
            _same(pqfast.read_table(path, columns=[c]), pq.read_table(path, columns=[c]), f"{name}[{c}] at {level}")
        for f in filters:
            expect = pq.read_table(path, filters=f)
            assert expect.num_rows > 0, f"{name}: filter {f} keeps no row in pyarrow (a weak test)"
            _same(pqfast.read_table(path, filters=f), expect, f"{name} filtered by {f} at {level}")


# ---- 1. BIT_PACKED definition / repetition levels ----------------------------------------

def test_bit_packed_definition_levels():
    _check("bit_packed_levels.parquet",
           [pc.field("a") > 20, pc.field("a").is_null(), pc.field("a") == 6, pc.field("b") < 10])


def test_bit_packed_levels_of_a_list():
    _check("bit_packed_nested.parquet", [])


def test_bit_packed_levels_are_read_lsb_first():
    # The file's first byte of levels: rows 0..7 are 1,0,1,0,0,1,1,0 from bit 0 on.
    t = pqfast.read_table(str(COMPAT / "bit_packed_levels.parquet"), columns=["a"])
    assert t.column("a").to_pylist()[:8] == [1, None, 3, None, None, 6, 7, None]


# ---- 2. data page v2 of parquet-cpp 1.5 --------------------------------------------------

def test_v2_pages_of_parquet_cpp_151_are_decompressed():
    _check("v2_parquet_cpp_151.parquet", [pc.field("x") > 2, pc.field("y") == 30, pc.field("y").is_null()])
    assert pq.read_table(str(COMPAT / "v2_parquet_cpp_151.parquet")).column("l").to_pylist() == \
        [[1, 2], None, [], [3], [4, 5, 6]]
    # The case of the issue: one column alone gave [20, 0, 0, 0, 0] (a snappy length varint).
    t = pqfast.read_table(str(COMPAT / "v2_parquet_cpp_151.parquet"), columns=["x"])
    assert t.column("x").to_pylist() == [1, 2, 3, 4, 5]


def test_v2_flag_is_trusted_for_other_writers():
    _check("v2_parquet_cpp_arrow_2.parquet", [pc.field("x") >= 4])


def test_v2_pages_through_the_pruned_reader():
    path = str(COMPAT / "v2_parquet_cpp_151.parquet")
    got = pqfast.read_pruned(path, "x", [3, 5])
    assert sorted(got.column("x").to_pylist()) == [3, 5]
    assert sorted(got.column("y").to_pylist(), key=lambda v: (v is None, v)) == [30, None]


# ---- 3. INT96 at any Julian day ----------------------------------------------------------

def _ts(nanos: int):
    return pa.scalar(nanos, pa.timestamp("ns"))


def test_int96_at_every_julian_day():
    _check("int96_days.parquet", [pc.field("t") == _ts(0), pc.field("o") == _ts(0), pc.field("t") < _ts(0),
                                  pc.field("o") > _ts(10**18), pc.field("o").is_null()])


def test_int96_julian_day_zero_is_the_epoch():
    t = pqfast.read_table(str(COMPAT / "int96_days.parquet"))
    # Julian day 0 with 0, 5 and -1 nanoseconds: 1970-01-01 each, as pyarrow 26 gives.
    assert t.column("t").cast(pa.int64()).to_pylist()[:3] == [0, 0, 0]
    assert t.column("t")[7].as_py() == dt.datetime(1970, 1, 1)


def test_int96_inside_a_list():
    _check("int96_days_list.parquet", [])


# ---- 4. empty groups ---------------------------------------------------------------------

def test_empty_groups_are_struct_columns_of_nulls():
    _check("empty_group.parquet", [pc.field("b") > 7, pc.field("a") == 2])
    t = pqfast.read_table(str(COMPAT / "empty_group.parquet"))
    assert t.column_names == ["a", "e", "r", "b", "l"]
    assert t.schema.field("e").type == pa.struct([])


def test_empty_group_selected_with_a_filter():
    path = str(COMPAT / "empty_group.parquet")
    for level in _each_level():
        got = pqfast.read_table(path, columns=["e", "b"], filters=pc.field("b") >= 9)
        _same(got, pq.read_table(path, columns=["e", "b"], filters=pc.field("b") >= 9), f"e, b at {level}")


# ---- 5. two columns of one name ----------------------------------------------------------

def test_duplicate_names_give_every_column():
    # pyarrow.parquet.read_table refuses the file ("Multiple matches"); its
    # ParquetFile.read gives all three columns, and both "a" for columns=["a"].
    path = str(COMPAT / "duplicate_names.parquet")
    for level in _each_level():
        _same(pqfast.read_table(path), pq.ParquetFile(path).read(), f"whole at {level}")
        _same(pqfast.read_table(path, columns=["a"]), pq.ParquetFile(path).read(columns=["a"]), f"a at {level}")
        got = pqfast.read_table(path, filters=pc.field("b") > 7)
        assert got.column_names == ["a", "a", "b"]
        assert [c.to_pylist() for c in got.columns] == [[2, 3, 4], [None, 60, 70], [8, 9, 10]]


def test_filter_on_a_duplicate_name_is_refused():
    with pytest.raises(pqfast.FormatError, match="several columns"):
        pqfast.read_table(str(COMPAT / "duplicate_names.parquet"), filters=pc.field("a") > 1)


# ---- 6. null-typed columns ---------------------------------------------------------------

def test_null_typed_columns():
    _check("null_columns.parquet", [pc.field("i") > 2, pc.field("i") == 4])
    t = pqfast.read_table(str(COMPAT / "null_columns.parquet"))
    assert [f.type for f in t.schema][:4] == [pa.null()] * 4
    assert not t.schema.field("na_req").nullable


def test_filters_on_null_typed_columns():
    path = str(COMPAT / "null_columns.parquet")
    for f in [pc.field("na").is_null(), pc.field("na_req").is_null(),
              pc.field("unknown_req").is_null() & (pc.field("i") > 1),
              pc.field("na_dict").is_valid() | (pc.field("i") == 5), ~pc.field("na_req").is_valid()]:
        _same(pqfast.read_table(path, filters=f), pq.read_table(path, filters=f), f"filtered by {f}")


def test_null_leaves_of_nested_columns():
    _check("null_nested.parquet", [pc.field("i") > 1])
