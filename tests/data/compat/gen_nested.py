"""Generators of tests/data/compat's legacy nested files (issue 34, part B):
the list and map forms older parquet-mr, parquet-thrift, parquet-protobuf,
parquet-avro, Hive and Drill wrote, which the Parquet LogicalTypes spec keeps
readable under its backward-compatibility rules.

Each file is written by pyarrow with the same definition and repetition
levels as the legacy form, then its footer's schema is rewritten into that
form (names, annotations, one group level fewer where the form has two
levels) with tests/python/thrift_compact.py: the pages stay pyarrow's, so
the values are known, and only the schema says how to read them. No
ARROW:schema is stored, so the Parquet schema alone decides the types.
Also: a file without row groups, a form every reader refuses, and small
chunks of files whose created_by is a bare "parquet-mr" (read with the
PARQUET-816 padding, which reaches into the next chunk).

Run through make_compat.py: `python tests/data/compat/make_compat.py [names]`.
"""

from __future__ import annotations

import io
import struct
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))

from thrift_compact import T_BINARY, T_I32, T_I64, T_LIST, T_STRUCT, Reader, encode_struct  # noqa: E402

REQ, OPT, REP = 0, 1, 2
UTF8, MAP, MAP_KEY_VALUE, LIST = 0, 1, 2, 3
CREATED_BY = "parquet-mr version 1.6.0 (build 6aa21f8776625b5fa6b18059cfebe7549f2e00cb)"


# ---- schema trees ----------------------------------------------------------------------

def group(name: str, rep: int, children: list, converted: int | None = None, logical: str | None = None):
    """A group element: `converted` a ConvertedType, `logical` "list" or "map"."""
    return ("group", name, rep, children, converted, logical)


def leaf(name: str, rep: int):
    """The next leaf of the file pyarrow wrote, renamed and with this repetition."""
    return ("leaf", name, rep)


def _flatten(node, leaves: list, out: list, path: list, paths: list) -> None:
    if node[0] == "leaf":
        _, name, rep = node
        e = dict(leaves.pop(0))
        e[3] = (T_I32, rep)
        e[4] = (T_BINARY, name.encode())
        out.append(e)
        paths.append(path + [name])
        return
    _, name, rep, children, converted, logical = node
    e = {3: (T_I32, rep), 4: (T_BINARY, name.encode()), 5: (T_I32, len(children))}
    if converted is not None:
        e[6] = (T_I32, converted)
    if logical == "list":
        e[10] = (T_STRUCT, {3: (T_STRUCT, {})})
    elif logical == "map":
        e[10] = (T_STRUCT, {2: (T_STRUCT, {})})
    out.append(e)
    for c in children:
        _flatten(c, leaves, out, path + [name], paths)


def _write(table: pa.Table, path: Path, tree: list, *, created_by: str = CREATED_BY, row_groups: bool = True,
           **write_kw) -> None:
    """`table` written by pyarrow after a first column "id" (the row
    number), its schema then replaced by `tree` (the root's children) after
    "id", whose leaves take the written leaves in order;
    `row_groups` False: the footer lists none (and the file holds no page)."""
    # A flat first column (the row number) for the tests' filters.
    table = table.add_column(0, pa.field("id", pa.int64(), nullable=False),
                             pa.array(range(table.num_rows), pa.int64()))
    tree = [leaf("id", REQ)] + tree
    buf = io.BytesIO()
    write_kw.setdefault("data_page_version", "1.0")
    pq.write_table(table, buf, store_schema=False, **write_kw)
    data = buf.getvalue()
    (n,) = struct.unpack("<I", data[-8:-4])
    head = data[:-8 - n]
    meta = Reader(data[-8 - n:-8]).struct()
    old = meta[2][1][1]
    leaves = [e for e in old if 1 in e]  # (elements with a physical type)
    elems, paths = [{4: (T_BINARY, b"schema"), 5: (T_I32, len(tree))}], []
    for node in tree:
        _flatten(node, leaves, elems, [], paths)
    assert not leaves, "the tree takes fewer leaves than the file has"
    meta[2] = (T_LIST, (T_STRUCT, elems))
    for rg in meta[4][1][1]:
        for chunk, p in zip(rg[1][1][1], paths):
            chunk[3][1][3] = (T_LIST, (T_BINARY, [s.encode() for s in p]))
            chunk[3][1].pop(16, None)  # size_statistics: old writers wrote none
            for k in (4, 5, 6, 7):  # the page index: nor that
                chunk.pop(k, None)
    meta.pop(5, None)  # key_value_metadata
    meta[6] = (T_BINARY, created_by.encode())
    if not row_groups:
        head = b"PAR1"
        meta[3] = (T_I64, 0)  # num_rows
        meta[4] = (T_LIST, (T_STRUCT, []))
    f = encode_struct(meta)
    path.write_bytes(head + f + struct.pack("<I", len(f)) + b"PAR1")


def _list(t: pa.DataType, nullable: bool = False) -> pa.DataType:
    return pa.list_(pa.field("element", t, nullable=nullable))


def _struct(*fields) -> pa.DataType:
    return pa.struct([pa.field(n, t, nullable=nb) for n, t, nb in fields])


INTS = [[1, 2], [], None, [3], [4, 5, 6], None, [7]]
STRUCTS = [[{"s": "a", "n": 1}, {"s": "b", "n": None}], [], None, [{"s": "c", "n": 3}], None,
           [{"s": "d", "n": 4}, {"s": "e", "n": 5}, {"s": "f", "n": None}]]


# ---- the files -------------------------------------------------------------------------

def make_legacy_list_primitive(d: Path) -> None:
    """2-level list of a repeated primitive (parquet-avro before 1.8, Hive):
    optional group a (LIST) { repeated int32 element; }."""
    t = pa.table({"a": pa.array(INTS, _list(pa.int32()))})
    _write(t, d / "legacy_list_primitive.parquet",
           [group("a", OPT, [leaf("element", REP)], converted=LIST)])


def make_legacy_list_avro_array(d: Path) -> None:
    """parquet-avro's 2-level list of records: the repeated group is named
    "array" (one field, so only its name says it is the element), plus a
    required list of strings and a list of lists, each level named array."""
    st = _struct(("x", pa.int32(), False))
    one = [[{"x": 1}, {"x": 2}], [], None, [{"x": 3}], None, [{"x": 4}]]
    strs = [["a", "b"], [], ["c"], ["d", "e", "f"], [], ["g"]]
    lol = [[[1, 2], [3]], [], None, [[], [4]], [[5]], None]
    t = pa.table({
        "a": pa.array(one, _list(st)),
        "s": pa.array(strs, pa.list_(pa.field("element", pa.string(), nullable=False))),
        "ll": pa.array(lol, _list(_list(pa.int32()))),
    }, schema=pa.schema([
        pa.field("a", _list(st)),
        pa.field("s", pa.list_(pa.field("element", pa.string(), nullable=False)), nullable=False),
        pa.field("ll", _list(_list(pa.int32()))),
    ]))
    _write(t, d / "legacy_list_avro_array.parquet", [
        group("a", OPT, [group("array", REP, [leaf("x", REQ)])], converted=LIST),
        group("s", REQ, [leaf("array", REP)], converted=LIST),
        group("ll", OPT, [group("array", REP, [leaf("array", REP)], converted=LIST)], converted=LIST),
    ], created_by="parquet-mr version 1.7.0 (build 2a3e1ac0e4bcb1be4e8e2b3b2f4dca7f6e7d9a3a)")


def make_legacy_list_thrift_tuple(d: Path) -> None:
    """parquet-thrift's 2-level lists: the repeated group or primitive is
    named "<list>_tuple" (a struct element of one field, strings, a list of
    lists whose inner list is "<list>_tuple_tuple")."""
    st = _struct(("x", pa.int64(), False))
    one = [[{"x": 1}], [], None, [{"x": 2}, {"x": 3}], None]
    strs = [["a"], [], None, ["b", "c"], ["d"]]
    lol = [[[1], [2, 3]], [], None, [[]], [[4]]]
    t = pa.table({
        "t": pa.array(one, _list(st)),
        "names": pa.array(strs, _list(pa.string())),
        "ll": pa.array(lol, _list(_list(pa.int32()))),
    })
    _write(t, d / "legacy_list_thrift_tuple.parquet", [
        group("t", OPT, [group("t_tuple", REP, [leaf("x", REQ)])], converted=LIST),
        group("names", OPT, [leaf("names_tuple", REP)], converted=LIST),
        group("ll", OPT, [group("ll_tuple", REP, [leaf("ll_tuple_tuple", REP)], converted=LIST)], converted=LIST),
    ], created_by="parquet-mr version 1.5.0-cdh5.4.0 (build ${buildNumber})")


def make_legacy_list_multi_field(d: Path) -> None:
    """A LIST whose repeated group has two fields (any name): the group is
    the element, a struct (parquet-mr's 2-level list of records)."""
    st = _struct(("s", pa.string(), False), ("n", pa.int32(), True))
    t = pa.table({"a": pa.array(STRUCTS, _list(st))})
    _write(t, d / "legacy_list_multi_field.parquet",
           [group("a", OPT, [group("element", REP, [leaf("s", REQ), leaf("n", OPT)])], converted=LIST)])


def make_legacy_list_logical(d: Path) -> None:
    """The 2-level forms annotated with the LogicalType LIST as well as the
    ConvertedType (writers that set both), and with the LogicalType alone."""
    st = _struct(("s", pa.string(), False), ("n", pa.int32(), True))
    t = pa.table({"a": pa.array(INTS, _list(pa.int32())), "b": pa.array(STRUCTS[:len(INTS) - 1] + [None], _list(st))})
    _write(t, d / "legacy_list_logical.parquet", [
        group("a", OPT, [leaf("a_tuple", REP)], converted=LIST, logical="list"),
        group("b", OPT, [group("array", REP, [leaf("s", REQ), leaf("n", OPT)])], logical="list"),
    ])


def make_repeated_unannotated(d: Path) -> None:
    """parquet-protobuf's repeated fields (no annotation): a repeated
    primitive, a repeated group of two fields, a repeated group holding a
    repeated field, and a repeated field inside an optional struct: each a
    required list of required elements."""
    ints = [[1, 2], [], [3], [4, 5, 6], []]
    msg = _struct(("k", pa.string(), False), ("v", pa.int64(), True))
    msgs = [[{"k": "a", "v": 1}], [], [{"k": "b", "v": None}, {"k": "c", "v": 3}], [], [{"k": "d", "v": 4}]]
    tags = pa.list_(pa.field("element", pa.string(), nullable=False))
    inner = _struct(("id", pa.int32(), True), ("tags", tags, False))
    deep = [[{"id": 1, "tags": ["x", "y"]}], [], [{"id": None, "tags": []}, {"id": 3, "tags": ["z"]}], [], []]
    holder = _struct(("r", pa.list_(pa.field("element", pa.int32(), nullable=False)), False))
    held = [{"r": [1]}, None, {"r": []}, {"r": [2, 3]}, None]
    schema = pa.schema([
        pa.field("ids", pa.list_(pa.field("element", pa.int32(), nullable=False)), nullable=False),
        pa.field("msgs", pa.list_(pa.field("element", msg, nullable=False)), nullable=False),
        pa.field("deep", pa.list_(pa.field("element", inner, nullable=False)), nullable=False),
        pa.field("holder", holder),
    ])
    t = pa.table([pa.array(ints, schema.field(0).type), pa.array(msgs, schema.field(1).type),
                  pa.array(deep, schema.field(2).type), pa.array(held, holder)], schema=schema)
    _write(t, d / "repeated_unannotated.parquet", [
        leaf("ids", REP),
        group("msgs", REP, [leaf("k", REQ), leaf("v", OPT)]),
        group("deep", REP, [leaf("id", OPT), leaf("tags", REP)]),
        group("holder", OPT, [leaf("r", REP)]),
    ], created_by="parquet-mr version 1.8.1 (build 4aba4dae7bb0d4edbcf7923ae1339f28fd3f7fcf)")


def make_legacy_map_key_value(d: Path) -> None:
    """parquet-mr's old maps: MAP on the outer group, MAP_KEY_VALUE on the
    repeated group named "map"; a map whose only annotation is
    MAP_KEY_VALUE on its outer group (which the spec reads as MAP); and a
    map whose repeated group and fields have other names."""
    mt = pa.map_(pa.string(), pa.int32())
    vals = [[("a", 1), ("b", None)], [], None, [("c", 3)], None, [("d", 4), ("e", 5)]]
    t = pa.table({"m1": pa.array(vals, mt), "m2": pa.array(vals, mt), "m3": pa.array(vals, mt)})
    _write(t, d / "legacy_map_key_value.parquet", [
        group("m1", OPT, [group("map", REP, [leaf("key", REQ), leaf("value", OPT)], converted=MAP_KEY_VALUE)],
              converted=MAP),
        group("m2", OPT, [group("map", REP, [leaf("key", REQ), leaf("value", OPT)])], converted=MAP_KEY_VALUE),
        group("m3", OPT, [group("entries", REP, [leaf("k", REQ), leaf("v", OPT)])], converted=MAP, logical="map"),
    ], created_by="parquet-mr version 1.2.9 (build 9ba0f2f1a0a6ac0e1fd1c4b5ca8f9f0d8a7d5a3e)")


def make_legacy_map_of_lists(d: Path) -> None:
    """Hive/parquet-mr: a map whose values are 2-level lists (repeated group
    "bag" of one field, as Hive writes, and "array"), inside a list."""
    mt = pa.map_(pa.string(), _list(pa.int32(), nullable=True))
    vals = [[("a", [1, None]), ("b", None)], [], None, [("c", [])], [("d", [3])]]
    lt = _list(pa.map_(pa.string(), pa.int32()), nullable=True)
    lvals = [[[("x", 1)], []], [], None, [None, [("y", 2), ("z", None)]], [[]]]
    t = pa.table({"m": pa.array(vals, mt), "lm": pa.array(lvals, lt)})
    _write(t, d / "legacy_map_of_lists.parquet", [
        group("m", OPT, [group("map", REP, [
            leaf("key", REQ),
            group("value", OPT, [group("bag", REP, [leaf("array_element", OPT)])], converted=LIST),
        ], converted=MAP_KEY_VALUE)], converted=MAP),
        group("lm", OPT, [group("bag", REP, [
            group("array_element", OPT, [group("map", REP, [leaf("key", REQ), leaf("value", OPT)],
                                               converted=MAP_KEY_VALUE)], converted=MAP),
        ])], converted=LIST),
    ], created_by="parquet-mr version 1.6.0 (build 6aa21f8776625b5fa6b18059cfebe7549f2e00cb)")


def make_legacy_nested_empty(d: Path) -> None:
    """No row groups: each legacy form's column (2-level list, repeated
    field, MAP_KEY_VALUE map, avro "array" list of records) is an empty
    column of the type pyarrow derives from the schema."""
    st = _struct(("x", pa.int32(), False))
    schema = pa.schema([
        pa.field("a", _list(pa.int32())),
        pa.field("ids", pa.list_(pa.field("element", pa.int32(), nullable=False)), nullable=False),
        pa.field("m", pa.map_(pa.string(), pa.int32())),
        pa.field("r", _list(st)),
    ])
    _write(schema.empty_table(), d / "legacy_nested_empty.parquet", [
        group("a", OPT, [leaf("element", REP)], converted=LIST),
        leaf("ids", REP),
        group("m", OPT, [group("map", REP, [leaf("key", REQ), leaf("value", OPT)], converted=MAP_KEY_VALUE)],
              converted=MAP),
        group("r", OPT, [group("array", REP, [leaf("x", REQ)])], converted=LIST),
    ], row_groups=False)


def make_legacy_nested_pages(d: Path) -> None:
    """The legacy forms over several row groups, v1 pages of a few records
    (records span pages), dictionary pages, snappy."""
    rows = 40
    ints = [None if i % 7 == 3 else list(range(i % 5)) for i in range(rows)]
    strs = [[f"s{i}-{k}" for k in range(i % 4)] for i in range(rows)]
    mt = pa.map_(pa.string(), pa.int32())
    maps = [None if i % 9 == 4 else [(f"k{k}", None if k == 1 else i * k) for k in range(i % 3)] for i in range(rows)]
    t = pa.table({
        "a": pa.array(ints, _list(pa.int32())),
        "names": pa.array(strs, pa.list_(pa.field("element", pa.string(), nullable=False))),
        "m": pa.array(maps, mt),
    }, schema=pa.schema([
        pa.field("a", _list(pa.int32())),
        pa.field("names", pa.list_(pa.field("element", pa.string(), nullable=False)), nullable=False),
        pa.field("m", mt),
    ]))
    _write(t, d / "legacy_nested_pages.parquet", [
        group("a", OPT, [leaf("a_tuple", REP)], converted=LIST),
        leaf("names", REP),
        group("m", OPT, [group("map", REP, [leaf("key", REQ), leaf("value", OPT)], converted=MAP_KEY_VALUE)],
              converted=MAP),
    ], row_group_size=15, data_page_size=40, write_batch_size=4, compression="snappy")


def _unversioned(d: Path, name: str, order: list, dictionary: bool = False) -> None:
    """parquet-mr files whose created_by has no version ("parquet-mr", as
    Drill and early parquet-mr wrote it): readers pad each column chunk by
    up to 100 bytes (PARQUET-816, dictionary page headers left out of
    total_compressed_size by parquet-mr <= 1.2.8), so a small nested chunk's
    bytes run into the next chunk's pages, which are no pages of it. Chunks
    of a few dozen bytes, nested columns of several level maxima side by
    side, in the order `order`."""
    st = _struct(("c", pa.int64(), True), ("dev", pa.string(), True))
    cols = {
        "user": (pa.field("user", st), [{"c": 1, "dev": "a"}, {"c": None, "dev": "b"}, None, {"c": 4, "dev": None}],
                 group("user", OPT, [leaf("c", OPT), leaf("dev", OPT)])),
        "kw": (pa.field("kw", _list(pa.string(), nullable=True)), [["go", "to"], [], None, ["x"]],
               group("kw", OPT, [group("bag", REP, [leaf("array_element", OPT)])], converted=LIST)),
        "ids": (pa.field("ids", pa.list_(pa.field("element", pa.int64(), nullable=False)), nullable=False),
                [[1], [2, 3], [], [4, 5, 6]], leaf("ids", REP)),
        "flag": (pa.field("flag", pa.string()), ["t", None, "f", "t"], leaf("flag", OPT)),
    }
    schema = pa.schema([cols[c][0] for c in order])
    t = pa.table([pa.array(cols[c][1], cols[c][0].type) for c in order], schema=schema)
    _write(t, d / f"{name}.parquet", [cols[c][2] for c in order], created_by="parquet-mr", use_dictionary=dictionary)


def make_legacy_nested_unversioned(d: Path) -> None:
    """A struct's leaf read with the padding took the next leaf's page as
    its own ("page begins 4 records, past the row group's 4 rows")."""
    _unversioned(d, "legacy_nested_unversioned", ["user", "kw", "ids", "flag"])


def make_legacy_nested_unversioned_list(d: Path) -> None:
    """A list's leaf read with the padding found the next chunk's page
    header there ("page body runs past the end of the column chunk")."""
    _unversioned(d, "legacy_nested_unversioned_list", ["kw", "ids", "user", "flag"])


def make_legacy_nested_unversioned_dict(d: Path) -> None:
    """Dictionary-encoded chunks read with the padding met the next chunk's
    dictionary page ("a second dictionary page in the column chunk")."""
    _unversioned(d, "legacy_nested_unversioned_dict", ["user", "kw", "ids", "flag"], dictionary=True)


def make_legacy_nested_unversioned_levels(d: Path) -> None:
    """A repeated field's leaf read with the padding decoded the next
    chunk's page as its levels ("RLE run ... lacks its value")."""
    _unversioned(d, "legacy_nested_unversioned_levels", ["ids", "flag", "kw", "user"])


def make_legacy_list_of_repeated(d: Path) -> None:
    """A LIST whose repeated group holds one field that is itself repeated
    (a primitive, a group): the repeated group is the element, a struct of
    that field (a list of required elements), as Arrow reads it."""
    inner = pa.list_(pa.field("element", pa.int32(), nullable=False))
    st = _struct(("x", pa.int32(), False))
    inner_st = pa.list_(pa.field("element", st, nullable=False))
    t = pa.table({
        "a": pa.array([[[1], [2, 3]], [], None, [[]], [[4]]], _list(inner)),
        "b": pa.array([[[{"x": 1}]], None, [], [[], [{"x": 2}, {"x": 3}]], [[{"x": 4}]]], _list(inner_st)),
    })
    _write(t, d / "legacy_list_of_repeated.parquet", [
        group("a", OPT, [group("list", REP, [leaf("element", REP)])], converted=LIST),
        group("b", OPT, [group("list", REP, [group("element", REP, [leaf("x", REQ)])])], logical="list"),
    ])


def make_legacy_thrift_map_of_lists(d: Path) -> None:
    """parquet-thrift's map<i32, list<struct>> (as in Spark's
    parquet-thrift-compat file): a required MAP, its MAP_KEY_VALUE group
    "map", the value a 2-level LIST whose repeated group is "value_tuple"
    (one field), and a required list of strings "<name>_tuple"."""
    st = _struct(("n", pa.int32(), False))
    mt = pa.map_(pa.int32(), _list(st))
    vals = [[(1, [{"n": 1}, {"n": 2}]), (2, None)], [], [(3, [])], [(4, [{"n": 5}])]]
    strs = pa.list_(pa.field("element", pa.string(), nullable=False))
    schema = pa.schema([pa.field("complexColumn", mt, nullable=False), pa.field("stringsColumn", strs, nullable=False)])
    t = pa.table([pa.array(vals, mt), pa.array([["a", "b"], [], ["c"], ["d", "e"]], strs)], schema=schema)
    _write(t, d / "legacy_thrift_map_of_lists.parquet", [
        group("complexColumn", REQ, [group("map", REP, [
            leaf("key", REQ),
            group("value", OPT, [group("value_tuple", REP, [leaf("n", REQ)])], converted=LIST),
        ], converted=MAP_KEY_VALUE)], converted=MAP),
        group("stringsColumn", REQ, [leaf("stringsColumn_tuple", REP)], converted=LIST),
    ], created_by="parquet-mr version 1.6.0rc3 (build d4d5a07ec9bd262ca1e93c309f1d7d4a74ebda4c)")


def make_legacy_list_refused(d: Path) -> None:
    """A LIST group with two repeated children: no rule reads it (pyarrow:
    "LIST-annotated groups must have a single child"); refused, naming the
    file and the column."""
    ints = pa.list_(pa.field("element", pa.int32(), nullable=False))
    st = pa.struct([pa.field("x", ints, nullable=False), pa.field("y", ints, nullable=False)])
    t = pa.table({"a": pa.array([{"x": [1], "y": [2]}, None, {"x": [], "y": [3, 4]}], st)})
    _write(t, d / "legacy_list_refused.parquet",
           [group("a", OPT, [leaf("x", REP), leaf("y", REP)], converted=LIST)])
