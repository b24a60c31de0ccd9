"""Legacy nested forms (issue 34, part B) read by pqfast as pyarrow 26 reads
them: the 2-level lists, repeated fields and old maps of parquet-mr,
parquet-thrift, parquet-protobuf, parquet-avro, Hive and Drill
(tests/data/compat, written by gen_nested.py), whole, column by column,
row group by row group and filtered on their flat column, on every SIMD
level; a file without row groups; and parquet-mr files whose created_by has
no version, whose small nested chunks are read with the PARQUET-816
padding (the walk used to run into the next chunk's pages: "page begins N
records, past the row group's N rows", "page body runs past the end of the
column chunk", levels above the maximum or past the page).

Equality is nested_cases' deep comparison (types with field names and
nullability, validity at every level, offsets, values)."""

from __future__ import annotations

import io
import struct
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast

import nested_cases as nc
from conftest import REPO

COMPAT = REPO / "tests" / "data" / "compat"
sys.path.insert(0, str(COMPAT))

import gen_nested  # noqa: E402

ALL = sorted(k[len("make_"):] for k in dir(gen_nested) if k.startswith("make_"))
REFUSED = ["legacy_list_refused"]  # forms pyarrow refuses too
NAMES = [n for n in ALL if n not in REFUSED]
FILTERS = ([("id", ">=", 2)], [("id", "in", [0, 3, 17, 33])], [[("id", "<", 1)], [("id", "=", 5)]], [("id", "<", 0)])


def _path(name):
    return COMPAT / f"{name}.parquet"


def test_every_generator_has_its_file():
    assert len(NAMES) >= 10 and set(REFUSED) <= set(ALL)
    missing = [n for n in ALL if not _path(n).exists()]
    assert not missing, f"run tests/data/compat/make_compat.py {' '.join(missing)}"


@pytest.mark.parametrize("name", ALL)
def test_generator_writes_the_committed_file(tmp_path, name):
    """The script regenerates what is committed (same schema, same values;
    the same bytes for a file no reader reads)."""
    getattr(gen_nested, f"make_{name}")(tmp_path)
    if name in REFUSED:
        assert (tmp_path / f"{name}.parquet").read_bytes() == _path(name).read_bytes()
        return
    got, exp = pq.read_table(tmp_path / f"{name}.parquet"), pq.read_table(_path(name))
    assert got.schema.equals(exp.schema) and got.equals(exp)


@pytest.mark.parametrize("name", REFUSED)
def test_forms_pyarrow_refuses_are_format_errors(name):
    path = _path(name)
    with pytest.raises(pa.ArrowInvalid):
        pq.read_table(path)
    for kw in ({}, {"columns": ["a"]}, {"filters": [("id", "=", 1)]}):
        with pytest.raises(pqfast.FormatError) as e:
            pqfast.read_table(path, **kw)
        assert str(path) in str(e.value) and "'a'" in str(e.value) and "single child" in str(e.value)


@pytest.mark.parametrize("name", NAMES)
def test_legacy_nested_file_reads_as_pyarrow(name, each_simd_level):
    path = _path(name)
    exp = pq.read_table(path)
    assert any(pa.types.is_nested(t) for t in exp.schema.types)
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        nc.assert_same_table(pqfast.read_table(path), exp, f"{name} on {level}")
        for filters in FILTERS:
            nc.assert_same_table(pqfast.read_table(path, filters=filters), pq.read_table(path, filters=filters),
                                 f"{name} filters={filters} on {level}")


@pytest.mark.parametrize("name", NAMES)
def test_legacy_nested_columns_and_row_groups(name):
    path = _path(name)
    exp = pq.read_table(path)
    for col in exp.column_names:
        nc.assert_same_table(pqfast.read_table(path, columns=[col]), pq.read_table(path, columns=[col]),
                             f"{name} columns=[{col!r}]")
        nc.assert_same_table(pqfast.read_table(path, columns=[col], filters=[("id", ">", 1)]),
                             pq.read_table(path, columns=[col], filters=[("id", ">", 1)]),
                             f"{name} columns=[{col!r}] filtered")
    ref = pq.ParquetFile(path)
    with pqfast.ParquetFile(path) as f:
        assert f.num_row_groups == ref.num_row_groups
        for i in range(ref.num_row_groups):
            nc.assert_same_table(f.read_row_group(i), ref.read_row_group(i), f"{name} row group {i}")


def test_the_files_hold_the_legacy_forms():
    """What each file is for is in its schema: 2-level lists, repeated
    fields without annotation, MAP_KEY_VALUE, several row groups and pages."""
    def elements(name):
        return {e.name: e for e in _schema_elements(_path(name))}

    prim = elements("legacy_list_primitive")
    assert prim["element"].repetition == 2 and prim["element"].num_children == 0
    avro = elements("legacy_list_avro_array")
    assert avro["array"].repetition == 2
    thrift = elements("legacy_list_thrift_tuple")
    assert "t_tuple" in thrift and "ll_tuple_tuple" in thrift
    rep = elements("repeated_unannotated")
    assert rep["ids"].repetition == 2 and rep["ids"].converted is None
    kv = _schema_elements(_path("legacy_map_key_value"))
    assert [e.name for e in kv if e.converted == 2] == ["map", "m2"]  # MAP_KEY_VALUE
    pages = pq.ParquetFile(_path("legacy_nested_pages"))
    assert pages.num_row_groups >= 3
    assert pq.ParquetFile(_path("legacy_nested_empty")).num_row_groups == 0


class _Elem:
    def __init__(self, d):
        self.name = d[4][1].decode()
        self.repetition = d.get(3, (0, None))[1]
        self.num_children = d.get(5, (0, 0))[1]
        self.converted = d.get(6, (0, None))[1]


def _schema_elements(path):
    from thrift_compact import Reader

    data = path.read_bytes()
    (n,) = struct.unpack("<I", data[-8:-4])
    return [_Elem(e) for e in Reader(data[-8 - n:-8]).struct()[2][1][1]]


def test_unversioned_parquet_mr_chunks_are_padded():
    """The file exercises the padding: created_by "parquet-mr" (no version)
    and nested chunks under 100 bytes followed by other chunks."""
    md = pq.ParquetFile(_path("legacy_nested_unversioned")).metadata
    assert md.created_by == "parquet-mr"
    rg = md.row_group(0)
    small = [rg.column(i) for i in range(rg.num_columns - 1)
             if rg.column(i).total_compressed_size < 100 and "." in rg.column(i).path_in_schema]
    assert small


def test_no_row_groups_types_nested_columns_as_pyarrow():
    path = _path("legacy_nested_empty")
    exp = pq.read_table(path)
    got = pqfast.read_table(path)
    assert got.num_rows == 0
    assert got.schema.equals(exp.schema), (got.schema, exp.schema)
    for col in exp.column_names:
        assert pqfast.read_table(path, columns=[col]).schema.equals(pq.read_table(path, columns=[col]).schema)
    with pqfast.ParquetFile(path) as f:
        assert f.read().schema.equals(exp.schema)
    filtered = pqfast.read_table(path, filters=[("id", "=", 1)])
    assert filtered.num_rows == 0 and filtered.schema.equals(pq.read_table(path, filters=[("id", "=", 1)]).schema)


@pytest.mark.parametrize("name,column", [("repeated_unannotated", "holder.r"), ("legacy_nested_unversioned", "user.c"),
                                         ("legacy_nested_unversioned_dict", "user.dev")])
def test_dotted_field_below_a_legacy_form(name, column):
    path = _path(name)
    for filters in (None, [("id", ">", 1)]):
        nc.assert_same_table(pqfast.read_table(path, columns=[column], filters=filters),
                             pq.read_table(path, columns=[column], filters=filters), f"{name} {column} {filters}")


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("legacy_nested_unversioned")])
def test_padded_chunks_from_a_file_object(name):
    """The same bound where the file is read through read_at (file objects, object storage)."""
    path = _path(name)
    nc.assert_same_table(pqfast.read_table(io.BytesIO(path.read_bytes())), pq.read_table(path), name)
