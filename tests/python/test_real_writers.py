"""Files of six real writers (tests/data/writers: polars 2.1, DataFusion 55,
Spark 4.3 / parquet-java 1.17, fastparquet 2026.9, chDB 4.4 / ClickHouse,
DuckDB 2.0) read as pyarrow 26 reads them: values, nulls, types (extension
types included), metadata and statistics; prune without false negatives,
read_pruned, read_table(filters=) with INT96 values, the CLI. Plus crafted
footers for the legacy-statistics rules (by created_by)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

import pqfast
from conftest import REPO
from test_read import same_column

import footer_edit

# PQFAST_WRITERS_DIR runs the same checks on other files of these writers.
WRITERS = Path(os.environ.get("PQFAST_WRITERS_DIR", REPO / "tests" / "data" / "writers"))
FILES = sorted(p.name for p in WRITERS.glob("*.parquet"))


@pytest.mark.skipif("PQFAST_WRITERS_DIR" in os.environ, reason="the repository's files only")
def test_every_writer_is_there():
    prefixes = {n.split("-")[0] for n in FILES}
    assert prefixes == {"polars", "datafusion", "spark", "fastparquet", "chdb", "duckdb"}, prefixes


def _reference_column(path: Path, name: str):
    """One column as pyarrow reads it; for the one column pyarrow 26 cannot
    read (DataFusion's DELTA_BYTE_ARRAY dictionary column), as DataFusion does."""
    try:
        return pq.read_table(path, columns=[name]).column(0)
    except (pa.ArrowNotImplementedError, OSError):
        datafusion = pytest.importorskip("datafusion")
        ctx = datafusion.SessionContext()
        return ctx.read_parquet(str(path)).select(name).to_arrow_table().column(0)


def _reference(path: Path) -> dict:
    try:
        t = pq.read_table(path)
        return {c: t.column(c) for c in t.column_names}
    except (pa.ArrowNotImplementedError, OSError):
        names = pq.ParquetFile(path).schema_arrow.names
        return {c: _reference_column(path, c) for c in names}


def _same(got, exp, where: str):
    if not got.type.equals(exp.type) and pa.types.is_dictionary(got.type) and not pa.types.is_dictionary(exp.type):
        # The column pyarrow cannot read, compared with DataFusion's dense reading.
        got = got.cast(got.type.value_type)
        exp = exp.cast(got.type)
    try:
        same_column(got, exp)
    except AssertionError as e:
        raise AssertionError(f"{where}: {e}") from None


@pytest.mark.parametrize("name", FILES)
def test_reads_as_pyarrow_on_every_level(name, each_simd_level):
    path = WRITERS / name
    exp = _reference(path)
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        got = pqfast.read_table(path)
        assert got.column_names == list(exp), (level, got.column_names)
        for c, e in exp.items():
            _same(got.column(c), e, f"{name} {level} column {c}")
            if pa.types.is_dictionary(e.type):
                # The same dictionary (the dictionary page, in page order) and indices.
                assert got.column(c).equals(e), f"{name} {level} column {c}: dictionary differs"
    # One row group at a time and one thread: the same values.
    f = pq.ParquetFile(path)
    if f.num_row_groups > 1:
        g = pqfast.read_table(path, row_groups=[f.num_row_groups - 1], use_threads=False)
        for c in g.column_names:
            e = _reference_column(path, c) if c == "dict" else None
            if e is None:
                e = f.read_row_group(f.num_row_groups - 1, columns=[c]).column(0)
                _same(g.column(c), e, f"{name} last row group column {c}")


def _stat_equal(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", FILES)
def test_metadata_as_pyarrow(name):
    path = WRITERS / name
    w = pq.ParquetFile(path).metadata
    g = pqfast.ParquetFile(path)
    assert (g.num_rows, g.num_row_groups, g.num_columns) == (w.num_rows, w.num_row_groups, w.num_columns)
    assert g.created_by == w.created_by
    checked_bounds = 0
    for i in range(w.num_row_groups):
        assert g.row_group(i).num_rows == w.row_group(i).num_rows
        for j in range(w.num_columns):
            wc, gc = w.row_group(i).column(j), g.row_group(i).column(j)
            where = f"{name} rg {i} {wc.path_in_schema}"
            assert gc.path_in_schema == wc.path_in_schema, where
            assert gc.physical_type == wc.physical_type, where
            assert gc.num_values == wc.num_values, where
            assert gc.encodings == wc.encodings, where
            assert {"LZ4_RAW": "LZ4", "LZ4": "UNKNOWN"}.get(gc.compression, gc.compression) == wc.compression, where
            assert (gc.data_page_offset, gc.total_compressed_size, gc.total_uncompressed_size) == \
                (wc.data_page_offset, wc.total_compressed_size, wc.total_uncompressed_size), where
            assert (gc.bloom_filter_offset, gc.bloom_filter_length) == (wc.bloom_filter_offset, wc.bloom_filter_length), where
            ws, gs = wc.statistics, gc.statistics
            assert (gs is None) == (ws is None), f"{where}: statistics {gs} vs pyarrow {ws}"
            if ws is None:
                continue
            assert gs.has_min_max == ws.has_min_max, where
            if ws.has_null_count:
                assert gs.null_count == ws.null_count, where
            if ws.has_min_max:
                checked_bounds += 1
                assert _stat_equal(gs.min, ws.min), f"{where} min {gs.min!r} vs {ws.min!r}"
                assert _stat_equal(gs.max, ws.max), f"{where} max {gs.max!r} vs {ws.max!r}"
    assert checked_bounds > 0 or "nostats" in name or "statisticsFalse" in name


def _round_trips(v, scalar) -> bool:
    """Whether the Python value stands for the stored one: time64[ns] values
    lose their nanoseconds in datetime.time, and fastparquet's timedeltas
    (TIME_MICROS past 24 h) wrap: such values cannot be probed from Python."""
    t = scalar.type
    if pa.types.is_dictionary(t) or isinstance(t, pa.BaseExtensionType):
        return True
    try:
        return pa.array([v], t)[0].equals(scalar)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
        return False


def _sample(col, k: int = 3) -> list:
    """Up to k distinct non-null values (no NaN: it equals nothing in a set)."""
    out = []
    for i, v in enumerate(col.to_pylist()):
        if v is None or (isinstance(v, float) and math.isnan(v)) or v in out or not _round_trips(v, col[i]):
            continue
        out.append(v)
        if len(out) == k:
            break
    return out


@pytest.mark.parametrize("name", FILES)
def test_prune_never_drops_a_present_value(name):
    path = WRITERS / name
    f = pq.ParquetFile(path)
    probed = 0
    for c in f.schema_arrow.names:
        if pa.types.is_boolean(f.schema_arrow.field(c).type) or pa.types.is_null(f.schema_arrow.field(c).type):
            continue  # Parquet has no Bloom filter for booleans; nulls have no value
        for g in range(f.num_row_groups):
            try:
                col = f.read_row_group(g, columns=[c]).column(0)
            except (pa.ArrowNotImplementedError, OSError):  # the column pyarrow cannot read
                col = pqfast.read_table(path, columns=[c], row_groups=[g]).column(0)
            vals = _sample(col)
            if not vals:
                continue
            t = pqfast.prune(path, c, vals)
            verdicts = dict(zip(t["row_group"].to_pylist(), t["verdict"].to_pylist()))
            assert verdicts[g] != "absent", f"{name} column {c} rg {g}: {vals!r} pruned ({t.to_pylist()})"
            probed += 1
    assert probed > 0


def _expected_rows(exp: dict, column: str, vals: list) -> dict:
    """{column: list of values} of the rows whose `column` is in `vals`, in
    Python. Temporal columns compare their stored integers (datetime.time
    drops nanoseconds: two rows may print alike and differ)."""
    col = exp[column]
    t = col.type
    if pa.types.is_temporal(t) and not pa.types.is_dictionary(t):
        storage = pa.int32() if t.bit_width == 32 else pa.int64()
        keys = col.cast(storage).to_pylist()
        vals = pa.array(vals, t).cast(storage).to_pylist()
    else:
        keys = col.to_pylist()
    keep = [k is not None and k in vals for k in keys]
    return {c: [v for v, m in zip(a.to_pylist(), keep) if m] for c, a in exp.items()}


def _pyvals_equal(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)) or x == y
        for x, y in zip(a, b))


@pytest.mark.parametrize("name", FILES)
def test_read_pruned_answers_on_every_column(name):
    path = WRITERS / name
    exp = _reference(path)
    local_fs = pafs.LocalFileSystem()
    for c, col in exp.items():
        if pa.types.is_boolean(col.type) or pa.types.is_null(col.type):
            continue
        vals = _sample(col, 4)
        if not vals:
            continue
        want = _expected_rows(exp, c, vals)
        # The scan engine natively (local paths) and in stages over a filesystem object (filesystem=).
        for kw in ({}, {"filesystem": local_fs}):
            got = pqfast.read_pruned(str(path), c, vals, **kw)
            assert got.column_names == list(exp), (name, c, kw)
            for k in got.column_names:
                assert got.column(k).type.equals(exp[k].type) or k == "dict", (name, c, k, got.column(k).type)
                assert _pyvals_equal(got.column(k).to_pylist(), want[k]), f"{name} read_pruned({c}) {kw} column {k}"


def _has_int96(name: str) -> bool:
    s = pq.ParquetFile(WRITERS / name).schema
    return any(s.column(j).physical_type == "INT96" for j in range(len(s)))


@pytest.mark.parametrize("name", FILES)
def test_filters_compare_every_column_as_pyarrow(name):
    """read_table(filters=) with =, !=, <, >= on every column (booleans and
    unordered binary such as INTERVAL included), against pyarrow.dataset
    given the same literal exactly typed."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    path = WRITERS / name
    exp = _reference(path)
    dataset = ds.dataset(path)
    compared = 0
    for c, col in exp.items():
        vals = _sample(col, 1)
        if not vals or pa.types.is_dictionary(col.type) or isinstance(col.type, pa.BaseExtensionType):
            continue
        lit = pa.scalar(vals[0], col.type)
        for op, fn in (("=", lambda f: f == lit), ("!=", lambda f: f != lit), ("<", lambda f: f < lit),
                       (">=", lambda f: f >= lit)):
            try:
                want = dataset.to_table(columns=[c], filter=fn(pc.field(c))).column(0)
            except (pa.ArrowNotImplementedError, pa.ArrowInvalid, OSError):
                continue  # pyarrow cannot evaluate it (or read the column)
            got = pqfast.read_table(path, columns=[c], filters=[(c, op, vals[0])]).column(0)
            _same(got, want, f"{name} {c} {op} {vals[0]!r}")  # NaN rows compare by their bits
            compared += 1
    assert compared > 0


INT96_FILES = [n for n in FILES if _has_int96(n)]


@pytest.mark.parametrize("name", INT96_FILES)
def test_int96_columns_are_probed_with_read_table_values(name):
    path = WRITERS / name
    f = pq.ParquetFile(path)
    int96 = [f.schema.column(j).name for j in range(f.metadata.num_columns)
             if f.schema.column(j).physical_type == "INT96"]
    assert int96, name
    exp = pq.read_table(path)
    for c in int96:
        vals = _sample(exp.column(c), 4)
        got = pqfast.read_table(path, filters=[(c, "in", vals)])
        want = _expected_rows({k: exp.column(k) for k in exp.column_names}, c, vals)
        assert got.num_rows == len(want[c]) > 0
        assert _pyvals_equal(got.column(c).to_pylist(), want[c])
        assert pqfast.read_table(path, filters=[(c, "=", vals[0])]).num_rows == want[c].count(vals[0])
        verdicts = pqfast.prune(path, c, vals)["verdict"].to_pylist()
        assert "absent" not in verdicts or f.num_row_groups > 1
        if f.metadata.row_group(0).column(exp.column_names.index(c)).bloom_filter_offset is not None:
            # The Bloom filter hashed the 12-byte INT96 encoding: a value that
            # is not there is excluded by it, one that is there is not.
            import datetime as dt

            absent = pqfast.prune(path, c, [dt.datetime(1901, 2, 3, 4, 5, 6, 7)])
            assert absent["verdict"].to_pylist() == ["absent"] * f.num_row_groups
            assert set(absent["reason"].to_pylist()) == {"bloom filter"}


def _need(*names):
    missing = [n for n in names if not (WRITERS / n).exists()]
    if missing:
        pytest.skip(f"not in {WRITERS}: {missing}")


def test_uuid_enum_and_dictionary_types():
    _need("chdb-zstd.parquet", "polars-zstd.parquet", "duckdb-v2-zstd.parquet")
    chdb = pq.read_table(WRITERS / "chdb-zstd.parquet")
    got = pqfast.read_table(WRITERS / "chdb-zstd.parquet")
    assert got.schema.field("uuid").type == pa.uuid()
    assert got.schema.field("e8").type == pa.binary()
    assert got.column("uuid").equals(chdb.column("uuid"))
    st = pqfast.ParquetFile(WRITERS / "chdb-zstd.parquet").row_group(0).column(chdb.column_names.index("e8")).statistics
    assert isinstance(st.min, bytes) and st.min == b"a"
    pol = pqfast.read_table(WRITERS / "polars-zstd.parquet", columns=["enum", "cat"])
    assert pol.schema.field("enum").type == pa.dictionary(pa.uint8(), pa.string(), ordered=True)
    assert pol.schema.field("cat").type == pa.dictionary(pa.uint32(), pa.string())
    duck = pqfast.read_table(WRITERS / "duckdb-v2-zstd.parquet", columns=["uuid", "uuid_null", "js", "iv"])
    assert duck.schema.field("uuid").type == pa.uuid()
    assert duck.schema.field("js").type == pa.json_(pa.string())  # JSON: arrow.json, as pyarrow 26
    assert duck.schema.field("iv").type == pa.binary(12)  # INTERVAL: its 12 bytes
    iv_meta = pqfast.ParquetFile(WRITERS / "duckdb-v2-zstd.parquet").row_group(0).column(
        pq.ParquetFile(WRITERS / "duckdb-v2-zstd.parquet").schema_arrow.get_field_index("iv"))
    assert iv_meta.statistics is None  # INTERVAL has no order: pyarrow reports no statistics either
    # A UUID probed as uuid.UUID or as its string.
    u = duck.column("uuid")[5].as_py()
    assert pqfast.read_pruned(str(WRITERS / "duckdb-v2-zstd.parquet"), "uuid", [u]).num_rows == 1
    assert pqfast.read_pruned(str(WRITERS / "duckdb-v2-zstd.parquet"), "uuid", [str(u)]).num_rows == 1


def _non_utf8_file(tmp_path) -> Path:
    src = tmp_path / "bin.parquet"
    t = pa.table({"s": pa.array([b"ok", b"\xff\xfe", None, b"caf\xc3\xa9", b"\x80"] * 3, pa.binary()),
                  "i": pa.array(range(15))})
    pq.write_table(t, src)
    dst = tmp_path / "nonutf8.parquet"
    footer_edit.mark_utf8(src, dst, "s")
    return dst


def test_non_utf8_string_column(tmp_path):
    path = _non_utf8_file(tmp_path)
    assert pq.ParquetFile(path).schema.column(0).logical_type.type == "STRING"
    exp = pq.read_table(path)
    got = pqfast.read_table(path)
    same_column(got.column("s"), exp.column("s"))
    for kw in ({}, {"filesystem": pafs.LocalFileSystem()}):
        r = pqfast.read_pruned(str(path), "s", [b"\xff\xfe", b"\x80"], **kw)
        assert r.column("i").to_pylist() == [1, 4, 6, 9, 11, 14], kw
        assert r.column("s").cast(pa.binary()).to_pylist() == [b"\xff\xfe", b"\x80"] * 3
    assert pqfast.prune(str(path), "s", [b"\xff\xfe"])["verdict"].to_pylist() != ["absent"]


def test_cli_inspect_and_head_on_every_file(capsys):
    from pqfast import cli

    for name in FILES:
        for argv in (["inspect", str(WRITERS / name)], ["head", str(WRITERS / name), "-n", "3"],
                     ["head", "--json", str(WRITERS / name), "-n", "2"]):
            assert cli.main(argv) == 0, (name, argv, capsys.readouterr().err)
            out = capsys.readouterr()
            assert out.out.strip(), (name, argv)


def test_cli_head_escapes_non_utf8(tmp_path):
    from conftest import run_cli

    path = _non_utf8_file(tmp_path)
    p = run_cli("head", str(path))
    assert "Traceback" not in p.stderr and "\\xff\\xfe" in p.stdout, p.stdout + p.stderr
    p = run_cli("head", "--json", str(path))
    assert "base64:" in p.stdout and "Traceback" not in p.stderr


# ---- legacy statistics by created_by, on crafted footers -----------------------------------

CREATED_BY = ["parquet-cpp-arrow version 26.0.1", "parquet-mr version 1.9.0 (build abc)", "parquet-mr version 1.10.0",
              "parquet-mr version 1.7.0", "parquet-mr version 1.8.0-SNAPSHOT", "parquet-mr", "parquet-mr version 1.10",
              "parquet-cpp version 1.2.0", "parquet-cpp version 1.3.0", None, "impala version 4.0.0-RELEASE"]


def _crafted_source(tmp_path) -> list[Path]:
    import numpy as np

    t = pa.table({"i32": pa.array([1, -5, 7], pa.int32()), "u32": pa.array([1, 5, 4_000_000_000], pa.uint32()),
                  "s": pa.array(["a", "é", "b"]), "b": pa.array([b"a", b"\xff", b"c"]),
                  "fsb": pa.array([b"ab", b"\xffz", b"cd"], pa.binary(2)), "f": pa.array([1.5, -2.0, 3.0]),
                  "d": pa.array([1, 2, 3], pa.decimal128(20, 2)), "same": pa.array(["x", "x", "x"]),
                  "f16": pa.array(np.array([1, 2, 3], np.float16))})
    a = tmp_path / "a.parquet"
    pq.write_table(t, a)
    return [a, WRITERS / "spark-v1-snappy-bloom.parquet", WRITERS / "fastparquet-snappy.parquet"]


def _state(s) -> str:
    return "none" if s is None else ("min_max" if s.has_min_max else "counts")


def test_legacy_statistics_follow_pyarrow_by_created_by(tmp_path):
    """Every crafted footer (created_by x legacy pair x ColumnOrders): pqfast
    reports statistics exactly where pyarrow does, and prune never drops a
    value that is there."""
    _need("spark-v1-snappy-bloom.parquet", "fastparquet-snappy.parquet")
    checked = 0
    for src in _crafted_source(tmp_path):
        values = pq.read_table(src)
        for cb in CREATED_BY:
            for legacy in (False, True):
                for drop_orders in (False, True):
                    dst = tmp_path / "x.parquet"
                    footer_edit.edit(src, dst, created_by=cb, drop_column_orders=drop_orders, legacy_stats=legacy)
                    w = pq.ParquetFile(dst).metadata
                    g = pqfast.ParquetFile(dst)
                    for j in range(w.num_columns):
                        where = (src.name, cb, legacy, drop_orders, w.schema.column(j).name)
                        ws, gs = w.row_group(0).column(j).statistics, g.row_group(0).column(j).statistics
                        assert _state(gs) == _state(ws), where
                        if ws is not None and ws.has_min_max:
                            assert _stat_equal(gs.min, ws.min) and _stat_equal(gs.max, ws.max), where
                        checked += 1
                    # Bounds written in signed order for a byte column must never prune a value there.
                    name = "s" if "s" in values.column_names else "str"
                    present = _sample(values.column(name), 3)
                    assert "absent" not in pqfast.prune(str(dst), name, present)["verdict"].to_pylist(), (src.name, cb)
    assert checked > 500


def test_old_parquet_mr_signed_string_bounds_do_not_prune(tmp_path):
    """parquet-mr before 1.10 ordered strings as signed bytes: a file whose
    bounds say ["a", "b"] while "é" (0xC3...) is there must not prune "é"."""
    src = tmp_path / "s.parquet"
    pq.write_table(pa.table({"s": pa.array(["a", "é", "b"])}), src, use_dictionary=False)
    head, meta = footer_edit.read_footer(src)
    st = meta[4][1][1][0][1][1][1][0][3][1][12][1]  # row group 0, column 0, statistics
    for new, old, v in ((6, 2, b"\xc3\xa9"), (5, 1, b"b")):  # signed order: 0xC3 < 'a' < 'b'
        st.pop(new, None)
        st[old] = (footer_edit.T_BINARY, v)
    meta.pop(7, None)
    meta[6] = (footer_edit.T_BINARY, b"parquet-mr version 1.6.0 (build x)")
    dst = tmp_path / "old.parquet"
    footer_edit.write_footer(dst, head, meta)
    assert pq.ParquetFile(dst).metadata.row_group(0).column(0).statistics is None
    assert pqfast.ParquetFile(dst).row_group(0).column(0).statistics is None
    for v in ("a", "é", "b"):
        assert pqfast.prune(str(dst), "s", [v])["verdict"].to_pylist() == ["no_filter"], v
        assert pqfast.read_table(dst, filters=[("s", "=", v)]).num_rows == 1, v


def test_int96_encoding_of_values():
    """The 12 bytes a datetime becomes: nanoseconds of the day, then the Julian day."""
    import datetime as dt

    import numpy as np

    from pqfast._time_values import epoch_nanos, int96_bytes

    assert int96_bytes(epoch_nanos(dt.datetime(2000, 1, 1))) == (0).to_bytes(8, "little") + (2451545).to_bytes(4, "little")
    one = epoch_nanos(dt.datetime(1969, 12, 31, 23, 59, 59, 999999))  # before the epoch: the day before, late
    assert int96_bytes(one) == (86_399_999_999_000).to_bytes(8, "little") + (2440587).to_bytes(4, "little")
    assert epoch_nanos(np.datetime64("1970-01-01T00:00:00.000000007")) == 7
    assert epoch_nanos(dt.datetime(1970, 1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=1)))) == 0
    with pytest.raises(OverflowError):
        int96_bytes(-(10**30))  # before the Julian epoch


def test_polars_int128_refused_as_pyarrow_refuses(tmp_path):
    """polars writes Int128 as FIXED_LEN_BYTE_ARRAY(16) with an Arrow schema
    of a 128-bit integer, which Arrow does not implement: pyarrow refuses the
    file, pqfast's reader too (a clean FormatError); pruning another column
    needs no Arrow type and still answers."""
    pl = pytest.importorskip("polars")
    path = tmp_path / "i128.parquet"
    pl.DataFrame({"a": pl.Series([1, 2, None], dtype=pl.Int128), "b": [1, 2, 3]}).write_parquet(path)
    with pytest.raises(pa.ArrowNotImplementedError):
        pq.read_table(path)
    with pytest.raises(pqfast.FormatError, match="ARROW:schema"):
        pqfast.read_table(path)
    assert pqfast.prune(str(path), "b", [2])["verdict"].to_pylist() == ["no_filter"]


def test_cli_probe_int96_with_iso_datetimes(capsys):
    """`pqfast probe` takes a Spark INT96 column's values as ISO date-times."""
    _need("spark-v1-snappy-bloom.parquet")
    from pqfast import cli

    path = WRITERS / "spark-v1-snappy-bloom.parquet"
    present = _sample(pq.read_table(path, columns=["ts"]).column(0), 1)[0]
    argv = ["probe", "-c", "ts", str(path), "-v", present.isoformat(), "-v", "1901-01-01T00:00:00", "--by-value",
            "--json"]
    assert cli.main(argv) == 0
    import json

    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [r["verdict"] for r in rows] == ["maybe", "absent"], rows
