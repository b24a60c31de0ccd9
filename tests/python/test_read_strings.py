"""strings="view" / "large": string and binary columns read as string_view /
binary_view or large_string / large_binary, with the values pyarrow gives
(cast to that type), for every writer's files, every SIMD level, filters,
nested leaves, nulls and empty strings."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _read, _strings
from test_read import same_column
from test_read_writers import DUCK_SELECT, _columns, _write

VIEW = {pa.string(): pa.string_view(), pa.large_string(): pa.string_view(), pa.string_view(): pa.string_view(),
        pa.binary(): pa.binary_view(), pa.large_binary(): pa.binary_view(), pa.binary_view(): pa.binary_view()}
LARGE = {pa.string(): pa.large_string(), pa.large_string(): pa.large_string(), pa.string_view(): pa.large_string(),
         pa.binary(): pa.large_binary(), pa.large_binary(): pa.large_binary(), pa.binary_view(): pa.large_binary()}


def _expected_type(t, strings):
    """The type a flat column of pyarrow type `t` must have with `strings`."""
    return (VIEW if strings == "view" else LARGE).get(t, t)


def _pyarrow_rows(path, filters=None):
    """pyarrow's table of the file, the rows `filters` keeps (pyarrow filters
    no string views: it filters a copy without them), and pyarrow's types."""
    exp = pq.read_table(path)
    types = {f.name: f.type for f in exp.schema}
    if filters is not None:
        plain = pa.schema([f.with_type(_PLAIN.get(f.type, f.type)) for f in exp.schema])
        exp = exp.cast(plain).filter(pq.filters_to_expression(filters))
    return exp, types


_PLAIN = {pa.string_view(): pa.string(), pa.binary_view(): pa.binary()}


def _check_flat(path, strings, filters=None):
    """pqfast's read with `strings` against pyarrow's (same rows), column by column, every SIMD level."""
    exp, types = _pyarrow_rows(path, filters)
    kw = {} if filters is None else {"filters": filters}
    saved = pqfast.simd_level()
    try:
        for level in pqfast.available_simd_levels():
            pqfast.set_simd_level(level)
            got = pqfast.read_table(path, strings=strings, **kw)
            assert got.column_names == exp.column_names
            for c in exp.column_names:
                want = _expected_type(types[c], strings)
                assert got.column(c).type.equals(want), f"{level} {c}: {got.column(c).type} != {want}"
                try:
                    same_column(got.column(c), exp.column(c).cast(want))
                except AssertionError as e:
                    raise AssertionError(f"{path.name} {level} column {c}: {e}") from None
    finally:
        pqfast.set_simd_level(saved)


STRINGS = ["view", "large"]


def _string_table(nulls: bool) -> pa.Table:
    cols = _columns(nulls)
    t = {k: cols[k] for k in ["string", "large_string", "string_view", "binary", "int32"]}
    # Empty strings, inlined (<= 12 bytes) and out-of-line views side by side.
    n = len(cols["int32"])
    edge = [("" if i % 5 == 0 else ("short" if i % 5 == 1 else "a much longer value than twelve " + str(i)))
            for i in range(n)]
    t["edge"] = pa.array(edge, mask=[nulls and i % 7 == 3 for i in range(n)])
    return pa.table(t)


@pytest.mark.parametrize("strings", STRINGS)
@pytest.mark.parametrize("codec", ["none", "snappy", "zstd"])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("encoding", ["plain", "dictionary", "delta"])
@pytest.mark.parametrize("nulls", [False, True])
def test_pyarrow_writes(tmp_path, strings, codec, version, encoding, nulls):
    table = _string_table(nulls)
    kw = dict(compression=codec, data_page_version=version)
    if encoding == "plain":
        kw["use_dictionary"] = False
    elif encoding == "dictionary":
        # A small dictionary page limit makes chunks fall back to PLAIN mid-chunk.
        kw.update(use_dictionary=True, dictionary_pagesize_limit=4096)
    else:
        enc = {c: "DELTA_BYTE_ARRAY" for c in ["string", "large_string", "edge"]}
        enc.update({"string_view": "DELTA_LENGTH_BYTE_ARRAY", "binary": "DELTA_LENGTH_BYTE_ARRAY"})
        kw.update(use_dictionary=False, column_encoding=enc)
    path = _write(tmp_path, f"{encoding}-{codec}-{version}-{nulls}", table, **kw)
    _check_flat(path, strings)
    # Filtered by the scan engine: the rows pyarrow.dataset keeps, in the layout asked for.
    _check_flat(path, strings, filters=[("int32", ">", 0)])
    _check_flat(path, strings, filters=[("string", "in", ["w3-xxx", "w7-", "nope"])])


@pytest.mark.parametrize("strings", STRINGS)
def test_without_arrow_schema_and_row_groups(tmp_path, strings):
    path = _write(tmp_path, "noschema", _string_table(True), store_schema=False, row_group_size=700)
    _check_flat(path, strings)
    with pqfast.ParquetFile(path) as f:
        exp = pq.ParquetFile(path).read_row_group(2)
        got = f.read_row_group(2, strings=strings)
        for c in exp.column_names:
            same_column(got.column(c), exp.column(c).cast(_expected_type(exp.column(c).type, strings)))
        got = f.read_row_groups([0, 3], columns=["edge"], strings=strings)
        exp = pq.ParquetFile(path).read_row_groups([0, 3], columns=["edge"])
        same_column(got.column("edge"), exp.column("edge").cast(_expected_type(pa.string(), strings)))


def test_the_reader_asks_for_the_layout(tmp_path):
    """The layout is the C++ reader's, not a cast after it: the plans name it."""
    path = _write(tmp_path, "plans", _string_table(False))
    with pqfast.ParquetFile(path) as f:
        meta = f._meta
    for strings, layout in (("view", "binary_view"), ("large", "large_binary")):
        plans = _read._plans(meta, str(path), ["string", "binary", "edge"], strings)
        assert [p.layout for p in plans] == [layout] * 3
        assert all(p.read_type.equals(p.final_type) for p in plans)


@pytest.mark.parametrize("strings", STRINGS)
def test_nested_leaves(tmp_path, strings):
    n = 2000
    words = [None if i % 11 == 0 else ("" if i % 13 == 0 else f"v{i % 37}" + "z" * (i % 17)) for i in range(n)]
    t = pa.table({
        "l": pa.array([[w, None, "x" * (i % 15)] if i % 9 else None for i, w in enumerate(words)]),
        "s": pa.array([{"a": w, "b": i, "c": (w or "").encode()} for i, w in enumerate(words)]),
        "m": pa.array([[("k" + str(i % 3), w)] for i, w in enumerate(words)], pa.map_(pa.string(), pa.string())),
        "ll": pa.array([[[w], [w, w]] for w in words], pa.large_list(pa.list_(pa.string()))),
        "i": pa.array(range(n)),
    })
    for dictionary in (True, False):
        path = _write(tmp_path, f"nested-{dictionary}", t, use_dictionary=dictionary)
        exp = pq.read_table(path)
        saved = pqfast.simd_level()
        try:
            for level in pqfast.available_simd_levels():
                pqfast.set_simd_level(level)
                for filters in (None, [("i", ">=", 500)]):
                    got = pqfast.read_table(path, strings=strings, filters=filters)
                    want_rows = exp if filters is None else exp.filter(pq.filters_to_expression(filters))
                    for c in want_rows.column_names:
                        want = _strings.strings_type(want_rows.column(c).type, strings)
                        same_column(got.column(c), want_rows.column(c).cast(want))
                    s = "string_view" if strings == "view" else "large_string"
                    assert str(got.schema.field("l").type) == f"list<element: {s}>"
                    assert str(got.schema.field("m").type) == f"map<{s}, {s}>"
        finally:
            pqfast.set_simd_level(saved)


@pytest.mark.parametrize("strings", STRINGS)
def test_duckdb_writes(tmp_path, strings):
    duckdb = pytest.importorskip("duckdb")
    p = tmp_path / "duck.parquet"
    con = duckdb.connect()
    con.execute(f"COPY ({DUCK_SELECT}) TO '{p}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 8000)")
    _check_flat(p, strings)
    _check_flat(p, strings, filters=[("s", "=", "str-7")])


@pytest.mark.parametrize("strings", STRINGS)
def test_polars_writes(tmp_path, strings):
    pl = pytest.importorskip("polars")
    n = 5000
    df = pl.DataFrame({"s": [None if i % 6 == 0 else f"p{i % 40}" * (i % 5) for i in range(n)],
                       "b": [f"{i}".encode() * (i % 7) for i in range(n)], "i": list(range(n))})
    p = tmp_path / "polars.parquet"
    df.write_parquet(p, row_group_size=1500)
    _check_flat(p, strings)
    _check_flat(p, strings, filters=[("i", "<", 1234)])


@pytest.mark.parametrize("strings", STRINGS)
def test_tpchgen_files(tmp_path, strings):
    """tpchgen-cli embeds string_view: "large" makes them large_string, "view" keeps them."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    exe = shutil.which("tpchgen-cli") or str(Path(sys.executable).parent / "tpchgen-cli")
    if not Path(exe).exists():
        pytest.skip("tpchgen-cli not installed")
    subprocess.run([exe, "parquet", "-s", "0.01", "--tables=lineitem", f"--output-dir={tmp_path}"],
                   check=True, capture_output=True)
    _check_flat(tmp_path / "lineitem.parquet", strings)
    _check_flat(tmp_path / "lineitem.parquet", strings, filters=[("l_shipmode", "in", ["MAIL", "SHIP"])])


def test_dictionary_columns_and_lakes(tmp_path):
    """A column the Arrow schema says is a dictionary stays one; a directory
    is read in the layout asked for, its partition keys as pyarrow gives them."""
    cols = _columns(True)
    t = pa.table({"dict_string": cols["dict_string"], "string": cols["string"]})
    (tmp_path / "k=1").mkdir()
    (tmp_path / "k=2").mkdir()
    pq.write_table(t.slice(0, 1000), tmp_path / "k=1" / "a.parquet")
    pq.write_table(t.slice(1000), tmp_path / "k=2" / "b.parquet")
    got = pqfast.read_table(tmp_path, strings="view")
    exp = pq.read_table(tmp_path)
    assert got.schema.field("dict_string").type.equals(exp.schema.field("dict_string").type)
    assert got.schema.field("string").type.equals(pa.string_view())
    same_column(got.column("string"), exp.column("string").cast(pa.string_view()))
    same_column(got.column("dict_string"), exp.column("dict_string"))
    same_column(got.column("k"), exp.column("k"))
    got = pqfast.read_table(tmp_path, strings="large", filters=[("k", "=", 2), ("string", "!=", "w1-x")])
    exp = pq.read_table(tmp_path, filters=[("k", "=", 2), ("string", "!=", "w1-x")])
    same_column(got.column("string"), exp.column("string").cast(pa.large_string()))


def test_bad_argument(tmp_path):
    path = _write(tmp_path, "bad", _string_table(False))
    for bad in ("views", "", 1):
        with pytest.raises(pqfast.FormatError, match="strings must be"):
            pqfast.read_table(path, strings=bad)
        with pytest.raises(pqfast.FormatError, match="strings must be"):
            pqfast.read_table(path, strings=bad, filters=[("int32", ">", 0)])


@pytest.mark.parametrize("strings", STRINGS)
def test_staged_scan_on_a_filesystem(tmp_path, strings):
    """A filesystem= source goes through the staged scan: its plans take the layout too."""
    from pyarrow import fs

    path = _write(tmp_path, "staged", _string_table(True), row_group_size=1000)
    filters = [("int32", "<", 100000)]
    exp, types = _pyarrow_rows(path, filters)
    for source in (str(path), str(tmp_path)):
        got = pqfast.read_table(source, filesystem=fs.LocalFileSystem(), filters=filters, strings=strings)
        for c in exp.column_names:
            want = _expected_type(types[c], strings)
            assert got.column(c).type.equals(want), c
            same_column(got.column(c), exp.column(c).cast(want))


@pytest.mark.parametrize("strings", [None, "view", "large"])
def test_dictionary_entry_lengths_around_the_fixed_moves(tmp_path, strings):
    """Dictionary strings are gathered by fixed 16- and 32-byte moves when the
    dictionary's longest entry allows (dictionary.cc): entries of every length
    0..40 (the longest 16, 32, 33: each gather path), a dictionary of empty
    strings only, nulls, long repeated runs, and a chunk whose dictionary
    falls back to PLAIN pages part way."""
    import random

    rnd = random.Random(7)
    cols = {}
    for longest in (0, 1, 16, 17, 32, 33, 40):
        entries = ["".join(chr(97 + (i + j) % 26) for j in range(rnd.randint(0, longest))) for i in range(50)]
        entries[0] = "x" * longest
        values = [rnd.choice(entries) for _ in range(3000)]
        values[100:900] = [entries[0]] * 800  # a repeated run
        cols[f"s{longest}"] = pa.array(values, pa.string())
        cols[f"n{longest}"] = pa.array([None if i % 7 == 0 else v for i, v in enumerate(values)], pa.string())
    cols["fallback"] = pa.array([f"{i:08d}" * (1 + i % 5) for i in range(3000)], pa.string())
    path = _write(tmp_path, "dict-lengths", pa.table(cols), dictionary_pagesize_limit=4096)
    assert "RLE_DICTIONARY" in pq.ParquetFile(path).metadata.row_group(0).column(0).encodings
    if strings is not None:
        _check_flat(path, strings)
        return
    exp = pq.read_table(path)  # pyarrow's types (string): compared as they are
    saved = pqfast.simd_level()
    try:
        for level in pqfast.available_simd_levels():
            pqfast.set_simd_level(level)
            got = pqfast.read_table(path)
            for c in exp.column_names:
                assert got.column(c).type == pa.string(), (level, c)
                same_column(got.column(c), exp.column(c))
    finally:
        pqfast.set_simd_level(saved)


@pytest.mark.parametrize("strings", [None, "large", "view"])
@pytest.mark.parametrize("nulls", [False, True])
def test_dictionary_entries_of_one_length(tmp_path, strings, nulls):
    """Dictionaries whose entries are all 1, 2, 4 or 8 bytes long (gathered
    as fixed-width values, their offsets i * L) beside one of mixed lengths,
    in bit-packed and repeated runs, with nulls, on every SIMD level."""
    n = 5000
    cols = {}
    for width in (1, 2, 4, 8, 3):
        words = ["".join(chr(ord("a") + (k + j) % 26) for j in range(width)) for k in range(5)]
        # Bit-packed runs (values changing every row), then a long repeated run.
        vals = [words[(i * 7) % 5] if i < n // 2 else words[1] for i in range(n)]
        cols[f"w{width}"] = pa.array(vals, mask=[nulls and i % 11 == 4 for i in range(n)])
    cols["mixed"] = pa.array([["x", "yy", "zzzz"][i % 3] for i in range(n)])
    path = tmp_path / f"same-length-{nulls}.parquet"
    pq.write_table(pa.table(cols), path, use_dictionary=True, row_group_size=2000)
    exp = pq.read_table(path)
    saved = pqfast.simd_level()
    try:
        for level in pqfast.available_simd_levels():
            pqfast.set_simd_level(level)
            kw = {} if strings is None else {"strings": strings}
            got = pqfast.read_table(path, **kw)
            for c in exp.column_names:
                want = exp.column(c).type if strings is None else _expected_type(exp.column(c).type, strings)
                assert got.column(c).type.equals(want), f"{level} {c}"
                same_column(got.column(c), exp.column(c).cast(want))
    finally:
        pqfast.set_simd_level(saved)
