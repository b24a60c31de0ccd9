"""Nested columns (issue 20) read by pqfast equal to pyarrow 26: the fixed
shapes of nested_cases.py under four write settings on every SIMD level,
column selection (whole nested columns and dotted leaf paths, as pyarrow's
read_table gives them), row groups, filters projecting nested columns,
parquet-testing's nested files, the files of six real writers' nested
settings (tests/data/writers/nested), a differential test over random
nested schemas (60 by default, 1000 with PQFAST_LONG_TESTS=1) and
`pqfast head` on a nested file.

Equality is the deep comparison of nested_cases.diff_tables: types with
every field name and nullability, validity at every level, list offsets,
values, a full validate(); Array.equals after combine_chunks on top where
every slot is defined."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast

import nested_cases as nc
from conftest import DATA, REPO, run_cli

LONG = os.environ.get("PQFAST_LONG_TESTS") == "1"
CASES = nc.cases()
WRITERS_NESTED = REPO / "tests" / "data" / "writers" / "nested"


@pytest.fixture(scope="module")
def case_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("nested-cases")
    for c in CASES:
        c.write(d)
    return d


def _check(path, where: str, **kw) -> pa.Table:
    """pqfast.read_table(path, **kw) equal to pyarrow's; returns pyarrow's."""
    exp = pq.read_table(path, **kw)
    got = pqfast.read_table(path, **kw)
    nc.assert_same_table(got, exp, where)
    return exp


# ---- the fixed shapes ------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_reads_as_pyarrow_on_every_level(case_dir, case, each_simd_level):
    path = case_dir / f"{case.name}.parquet"
    exp = pq.read_table(path)
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        got = pqfast.read_table(path)
        nc.assert_same_table(got, exp, f"{case.name} on {level}")


def test_cases_hold_what_they_say(case_dir):
    """The generator's promises (checked on pyarrow's reading): nulls where
    asked, none where not, several row groups and pages in the small settings."""
    for c in CASES:
        path = case_dir / f"{c.name}.parquet"
        t = pq.read_table(path)
        col = t.column("c").combine_chunks()
        if c.nulls and t.schema.field("c").nullable:
            assert col.null_count > 0, c.name
        if not c.nulls:
            assert col.null_count == 0, c.name
        md = pq.ParquetFile(path).metadata
        if "small" in c.setting.name:
            assert md.num_row_groups > 1 or md.num_rows <= c.setting.kwargs["row_group_size"], c.name
            assert len(nc.pages(path, 0, 1)) > 1, c.name


@pytest.mark.parametrize("page_levels", [1, 2, 3, 7, 37, 1000])
@pytest.mark.parametrize("shape", [nc.Shape(0.0, 0.0, 5), nc.Shape(0.2, 0.2, 5), nc.Shape(0.05, 0.05, 300)],
                         ids=["nonulls", "nulls", "long"])
def test_records_spanning_v1_pages(tmp_path, page_levels, shape, each_simd_level):
    """v1 pages cut inside records (the format allows it; pyarrow never writes it)."""
    rows = nc.split_record_rows(400, page_levels, shape)
    path = nc.write_split_records(tmp_path / "split.parquet", rows, page_levels)
    exp = pq.read_table(path)
    assert exp.column("c").to_pylist() == rows
    pages = nc.pages(path, 0, 0)
    if page_levels < 1000:
        assert any(p["starts_mid_record"] for p in pages)
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        nc.assert_same_table(pqfast.read_table(path), exp, f"{page_levels} levels a page on {level}")


_FSL_CHECK = """
import sys
sys.path.insert(0, {here!r})
import pyarrow.parquet as pq, pqfast, nested_cases as nc
for path in sys.argv[1:]:
    nc.assert_same_table(pqfast.read_table(path), pq.read_table(path), path)
"""


@pytest.mark.parametrize("value_type", [pa.string(), pa.int64(), pa.binary(), pa.bool_()], ids=str)
@pytest.mark.parametrize("rows", [[None], [None, None, [1, 0]], [[1, 0], None], [None] * 100],
                         ids=["one-null", "nulls-first", "null-last", "all-null"])
def test_fixed_size_list_null_slots(tmp_path, value_type, rows):
    """Below a null fixed-size-list slot the child is null, as pyarrow makes it
    (never the value before, never uninitialized offsets or bytes). Read in a
    process of its own, 20 times: garbage offsets there crashed the reader."""
    import subprocess
    import sys

    conv = {pa.string(): lambda v: f"s{v}", pa.binary(): lambda v: b"b%d" % v, pa.bool_(): bool}.get(value_type, int)
    arr = pa.array([None if r is None else [conv(v) for v in r] for r in rows], pa.list_(value_type, 2))
    paths = []
    for j, kw in enumerate(({}, {"use_dictionary": False}, {"data_page_version": "2.0"})):
        paths.append(tmp_path / f"fsl{j}.parquet")
        pq.write_table(pa.table({"f": arr}), paths[-1], **kw)
    code = _FSL_CHECK.format(here=str(Path(__file__).parent))
    proc = subprocess.run([sys.executable, "-c", code] + [str(p) for p in paths] * 20, capture_output=True,
                          text=True, env=dict(os.environ))
    assert proc.returncode == 0, f"returncode {proc.returncode}: {proc.stderr[-1500:]}"


def test_arrow_schema_types_below_lists_and_structs(tmp_path):
    """What pyarrow restores from the embedded Arrow schema below lists, structs
    and maps: dictionary-encoded leaves (each row group's dictionary is its
    dictionary page, as pyarrow builds it), list views, narrow decimals,
    string views; read whole, by row group, and filtered on a flat column."""
    import decimal

    n = 240
    strs = [None if i % 7 == 0 else f"v{(i * 5) % 4}" for i in range(n)]
    t = pa.table({
        "ld": pa.array([[s, "w"] if i % 5 else None for i, s in enumerate(strs)],
                       pa.list_(pa.dictionary(pa.int32(), pa.string()))),
        "sd": pa.StructArray.from_arrays([pa.array(strs).dictionary_encode(), pa.array(range(n), pa.int64())],
                                         ["d", "i"]),
        "md": pa.array([[("k", s)] if i % 3 else [] for i, s in enumerate(strs)],
                       pa.map_(pa.string(), pa.dictionary(pa.int8(), pa.string()))),
        "lv": pa.array([[i, i + 1][: i % 3] if i % 4 else None for i in range(n)], pa.list_view(pa.int32())),
        "llv": pa.array([[str(i)] * (i % 3) for i in range(n)], pa.large_list_view(pa.string())),
        "l32": pa.array([[decimal.Decimal(i) / 10] if i % 6 else None for i in range(n)], pa.list_(pa.decimal32(6, 1))),
        "lsv": pa.array([[s] if s else [] for s in strs], pa.list_(pa.string_view())),
        "k": pa.array(range(n), pa.int64()),
    })
    for j, kw in enumerate(({}, {"use_dictionary": False, "data_page_version": "2.0", "data_page_size": 128})):
        p = tmp_path / f"types{j}.parquet"
        pq.write_table(t, p, row_group_size=70, **kw)
        exp = _check(p, "whole")
        whole = pqfast.read_table(p)
        for name in exp.column_names:  # chunk by chunk: each row group's dictionaries too
            assert whole.column(name).num_chunks == exp.column(name).num_chunks
            for a, b in zip(whole.column(name).chunks, exp.column(name).chunks):
                assert a.equals(b), name
        assert pqfast.ParquetFile(str(p)).read_row_group(2).equals(pq.ParquetFile(p).read_row_group(2))
        got = pqfast.read_table(p, filters=[("k", "in", [3, 100, 239])])
        # (pyarrow filters no string views: the reference filters the others, then reads row by row.)
        mask = pa.compute.is_in(exp.column("k"), pa.array([3, 100, 239]))
        assert got.drop_columns(["lsv"]).equals(exp.drop_columns(["lsv"]).filter(mask)), kw
        assert got.schema == exp.schema
        assert got.column("lsv").to_pylist() == [exp.column("lsv")[i].as_py() for i in (3, 100, 239)]


SELECT = [("struct5", ["c.i64"]), ("struct5", ["c.i64", "c.s"]), ("struct5", ["id", "c.b"]),
          ("struct5", ["c"]), ("struct_required", ["c.req"]), ("struct_required", ["c.opt", "id"]),
          ("struct_of_lists", ["c.l"]), ("struct_of_lists", ["c.m", "c.l"]), ("deep3", ["c"]),
          ("list_struct", ["c", "id"]), ("map_of_lists", ["c"]), ("list_int64", ["id"])]


@pytest.mark.parametrize("shape,columns", SELECT, ids=[f"{s}-{'+'.join(c)}" for s, c in SELECT])
@pytest.mark.parametrize("nulls", [True, False], ids=["nulls", "nonulls"])
def test_columns_select_whole_nested_columns_and_dotted_leaves(case_dir, shape, columns, nulls):
    for s in nc.SETTINGS[:3]:
        c = nc.Case(f"{shape}-{'nulls' if nulls else 'nonulls'}-{s.name}", shape, nulls, s)
        _check(case_dir / f"{c.name}.parquet", f"{c.name} columns={columns}", columns=columns)


def test_missing_nested_path_is_a_key_error(case_dir):
    p = case_dir / "struct5-nulls-v1-dict-snappy.parquet"
    with pytest.raises(pa.ArrowInvalid):
        pq.read_table(p, columns=["c.nope"])
    with pytest.raises((KeyError, pqfast.FormatError)):
        pqfast.read_table(p, columns=["c.nope"])


@pytest.mark.parametrize("case", [c for c in CASES if "small" in c.setting.name],
                         ids=[c.name for c in CASES if "small" in c.setting.name])
def test_read_row_group_and_row_groups(case_dir, case):
    path = case_dir / f"{case.name}.parquet"
    ref = pq.ParquetFile(path)
    with pqfast.ParquetFile(path) as f:
        assert f.num_row_groups == ref.num_row_groups
        for i in range(f.num_row_groups):
            nc.assert_same_table(f.read_row_group(i), ref.read_row_group(i), f"{case.name} row group {i}")
    rgs = [ref.num_row_groups - 1, 0]
    nc.assert_same_table(pqfast.read_table(path, row_groups=rgs), ref.read_row_groups(rgs),
                         f"{case.name} row_groups={rgs}")


@pytest.mark.parametrize("shape", ["list_int64", "deep3", "map_of_lists", "struct5"])
def test_one_thread_and_file_objects(case_dir, shape):
    path = case_dir / f"{shape}-nulls-v2-plain-zstd-small.parquet"
    exp = pq.read_table(path)
    nc.assert_same_table(pqfast.read_table(path, use_threads=False), exp, "use_threads=False")
    nc.assert_same_table(pqfast.read_table(io.BytesIO(path.read_bytes())), exp, "BytesIO")


@pytest.mark.parametrize("shape", ["list_int64", "list_struct", "deep3", "map_string_int64", "struct5"])
def test_filters_project_nested_columns(case_dir, shape):
    """Filtering on a flat column returns whole nested rows, as pyarrow.dataset does."""
    path = case_dir / f"{shape}-nulls-v2-dict-snappy-small.parquet"
    for filters in ([("id", "<", 100)], [("id", "in", [3, 700, 1499])], [[("id", ">=", 950)], [("id", "=", 7)]]):
        exp = pq.read_table(path, filters=filters)
        got = pqfast.read_table(str(path), filters=filters)
        nc.assert_same_table(got, exp, f"{shape} filters={filters}")
    # Filtering on the nested column itself: said plainly, not "no such column".
    with pytest.raises(NotImplementedError, match="'c': a nested column"):
        pqfast.read_table(str(path), filters=pa.compute.field("c").is_null())


# ---- parquet-testing -----------------------------------------------------------------

PARQUET_TESTING = ["nested_lists.snappy", "nested_maps.snappy", "nested_structs.rust", "list_columns", "null_list",
                   "old_list_structure", "repeated_no_annotation", "repeated_primitive_no_list",
                   "nonnullable.impala", "nullable.impala", "map_no_value", "incorrect_map_schema",
                   "datapage_v2.snappy", "nulls.snappy"]


def _nested_testing_files() -> list[str]:
    """The named files and any other parquet-testing file with a nested column."""
    names = {f"{n}.parquet" for n in PARQUET_TESTING}
    for p in sorted(DATA.glob("*.parquet")) if DATA.exists() else []:
        try:
            if any(pa.types.is_nested(f.type) for f in pq.read_schema(p)):
                names.add(p.name)
        except Exception:  # noqa: BLE001 - unreadable schema: kept only if named above
            pass
    return sorted(names - {"large_string_map.brotli.parquet"})


@pytest.mark.parametrize("name", _nested_testing_files())
def test_parquet_testing_nested_file(data_dir, name, each_simd_level):
    path = data_dir / name
    if not path.exists():
        pytest.skip(f"{name} not in this copy of parquet-testing")
    try:
        exp = pq.read_table(path)
    except Exception:  # noqa: BLE001 - pyarrow refuses it: so must we, cleanly
        for level in each_simd_level:
            pqfast.set_simd_level(level)
            with pytest.raises(pqfast.FormatError):
                pqfast.read_table(path)
        return
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        nc.assert_same_table(pqfast.read_table(path), exp, f"{name} on {level}")
    for col in exp.column_names:
        _check(path, f"{name} columns=[{col!r}]", columns=[col])
    ref = pq.ParquetFile(path)
    with pqfast.ParquetFile(path) as f:
        for i in range(ref.num_row_groups):
            nc.assert_same_table(f.read_row_group(i), ref.read_row_group(i), f"{name} row group {i}")


def test_large_string_map_refused_like_pyarrow_or_read_whole(data_dir):
    """Two map keys of 1 GiB each: pyarrow's read_table refuses the 2 GiB string
    column ("Nested data conversions not implemented for chunked array
    outputs"). pqfast refuses it too (FormatError, or MemoryLimitError under a
    memory limit), or reads it whole: the same keys and values as pyarrow's
    row-by-row batches."""
    path = data_dir / "large_string_map.brotli.parquet"
    if not path.exists():
        pytest.skip("large_string_map.brotli.parquet not in this copy of parquet-testing")
    with pytest.raises(Exception):  # noqa: B017 - pyarrow's own refusal, whatever its class
        pq.read_table(path)
    with pytest.raises((pqfast.FormatError, MemoryError)):
        pqfast.read_table(path, memory_limit=256 << 20)


# ---- real writers' nested files ------------------------------------------------------

WRITER_FILES = sorted(p.name for p in WRITERS_NESTED.glob("*.parquet")) if WRITERS_NESTED.exists() else []


def test_every_writer_wrote_nested_files():
    prefixes = {n.split("-")[0] for n in WRITER_FILES}
    assert prefixes == {"polars", "datafusion", "spark", "fastparquet", "chdb", "duckdb"}, prefixes
    assert any(n.startswith("spark-legacy") for n in WRITER_FILES)


@pytest.mark.parametrize("name", WRITER_FILES)
def test_writer_nested_file_reads_as_pyarrow(name, each_simd_level):
    path = WRITERS_NESTED / name
    exp = pq.read_table(path)
    if not name.startswith("fastparquet"):  # fastparquet writes lists and dicts as JSON strings
        assert any(pa.types.is_nested(f.type) for f in exp.schema), f"{name} holds no nested column"
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        nc.assert_same_table(pqfast.read_table(path), exp, f"{name} on {level}")
    ref = pq.ParquetFile(path)
    with pqfast.ParquetFile(path) as f:
        for i in range(ref.num_row_groups):
            nc.assert_same_table(f.read_row_group(i), ref.read_row_group(i), f"{name} row group {i}")
    for col in exp.column_names:
        if pa.types.is_nested(exp.schema.field(col).type):
            _check(path, f"{name} columns=[{col!r}]", columns=[col])


# ---- random nested schemas ---------------------------------------------------------

SEEDS = range(1000) if LONG else range(60)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_nested_schema(tmp_path, seed, each_simd_level):
    rc = nc.random_case(seed)
    path = rc.write(tmp_path / f"r{seed}.parquet")
    exp = pq.read_table(path)
    level = each_simd_level[seed % len(each_simd_level)]
    pqfast.set_simd_level(level)
    where = f"{rc.describe()} on {level}"
    nc.assert_same_table(pqfast.read_table(path), exp, where)
    # One nested column alone, and the last row group alone.
    col = rc.schema.names[1 + seed % (len(rc.schema) - 1)]
    nc.assert_same_table(pqfast.read_table(path, columns=[col]), pq.read_table(path, columns=[col]),
                         f"columns=[{col!r}] {where}")
    ref = pq.ParquetFile(path)
    last = ref.num_row_groups - 1
    with pqfast.ParquetFile(path) as f:
        nc.assert_same_table(f.read_row_group(last), ref.read_row_group(last), f"row group {last} {where}")


def test_random_generator_covers_the_space():
    """Over the default seeds: every kind of nesting, depth 4, all nullability
    kinds, v1 and v2, dictionary on and off, every codec."""
    kinds, depths, pages, dicts, codecs, required = set(), set(), set(), set(), set(), False

    def walk(t):
        nonlocal required
        if pa.types.is_struct(t):
            kinds.add("struct")
            for f in t:
                required |= not f.nullable
                walk(f.type)
        elif pa.types.is_map(t):
            kinds.add("map")
            walk(t.item_type)
        elif pa.types.is_large_list(t):
            kinds.add("large_list")
            walk(t.value_type)
        elif pa.types.is_fixed_size_list(t):
            kinds.add("fixed_size_list")
            walk(t.value_type)
        elif pa.types.is_list(t):
            kinds.add("list")
            required |= not t.value_field.nullable
            walk(t.value_type)

    for s in SEEDS:
        rc = nc.random_case(s)
        for f in rc.schema:
            walk(f.type)
            depths.add(nc.nesting_depth(f.type))
        pages.add(rc.write_kwargs["data_page_version"])
        dicts.add(rc.write_kwargs["use_dictionary"])
        codecs.add(rc.write_kwargs["compression"])
    assert kinds == {"struct", "map", "large_list", "fixed_size_list", "list"}
    assert 4 in depths and 1 in depths
    assert pages == {"1.0", "2.0"} and dicts == {True, False} and codecs == {"none", "snappy", "zstd"}
    assert required


# ---- the CLI -----------------------------------------------------------------------


def _nested_head_file(tmp_path) -> tuple[Path, pa.Table]:
    t = pa.table({
        "id": pa.array(range(20), pa.int64()),
        "l": pa.array([[i, i + 1] if i % 3 else ([] if i % 2 else None) for i in range(20)], pa.list_(pa.int64())),
        "s": pa.array([{"a": i, "b": f"x{i}"} if i % 4 else None for i in range(20)],
                      pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "m": pa.array([[(f"k{i}", i)] if i % 5 else None for i in range(20)], pa.map_(pa.string(), pa.int64())),
    })
    p = tmp_path / "head.parquet"
    pq.write_table(t, p, row_group_size=6)
    return p, t


def test_head_cli_prints_nested_values(tmp_path):
    p, t = _nested_head_file(tmp_path)
    out = run_cli("head", str(p), "-n", "8").stdout.splitlines()
    assert out[0].split() == ["id", "l", "s", "m"]
    rows = out[2:]
    assert len(rows) == 8
    ref = pq.read_table(p).slice(0, 8).to_pylist()
    for line, r in zip(rows, ref):
        assert line.split()[0] == str(r["id"])
        if r["l"]:
            assert f"[{r['l'][0]}, {r['l'][1]}]" in line, line
        if r["s"] is not None:
            assert f"x{r['id']}" in line, line
        if r["m"] is not None:
            assert f"k{r['id']}" in line, line
    assert "null" in rows[0]


def _plain(v):
    """JSON's view of a value: tuples as lists (a map is a list of pairs or an object)."""
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def test_head_cli_json_nested_values(tmp_path):
    p, t = _nested_head_file(tmp_path)
    rows = [json.loads(ln) for ln in run_cli("head", str(p), "-n", "7", "--json").stdout.splitlines()]
    ref = pq.read_table(p).slice(0, 7).to_pylist()
    assert len(rows) == 7
    for got, exp in zip(rows, ref):
        assert got["id"] == exp["id"]
        assert got["l"] == exp["l"]
        assert got["s"] == exp["s"]
        m = got["m"]
        if isinstance(m, dict):  # a map as an object
            assert exp["m"] is not None and m == dict(exp["m"])
        else:
            assert m == _plain(exp["m"])
