"""Files written by pyarrow 26 (every flat type x encoding x codec x data page
v1/v2 x with and without nulls) and by DuckDB 2.0, read by pqfast and
compared with what their writers' readers give."""

from __future__ import annotations

import datetime as dt
import decimal

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast
from test_read import same_column

N = 3000
RNG = np.random.default_rng(7)


def _with_nulls(arr: pa.Array, nulls: bool) -> pa.Array:
    if not nulls:
        return arr
    mask = RNG.random(len(arr)) < 0.2
    return pa.array(arr.to_pylist(), type=arr.type, mask=mask) if not pa.types.is_null(arr.type) else arr


def _columns(nulls: bool) -> dict[str, pa.Array]:
    ints = RNG.integers(-1000, 1000, N)
    wide = RNG.integers(-(2**62), 2**62, N)
    words = [f"w{int(x) % 50}-{'x' * (int(x) % 20)}" for x in RNG.integers(0, 10_000, N)]
    cols = {
        "bool": pa.array(RNG.random(N) < 0.3),
        "int8": pa.array(ints % 100, pa.int8()),
        "int16": pa.array(ints, pa.int16()),
        "int32": pa.array(ints * 1000, pa.int32()),
        "int64": pa.array(wide, pa.int64()),
        "int64_sorted": pa.array(np.cumsum(RNG.integers(0, 50, N)), pa.int64()),
        "uint8": pa.array(np.abs(ints) % 200, pa.uint8()),
        "uint16": pa.array(np.abs(ints) * 30, pa.uint16()),
        "uint32": pa.array(np.abs(wide) % (2**32), pa.uint32()),
        "uint64": pa.array(np.abs(wide).astype(np.uint64) * 2, pa.uint64()),
        "float16": pa.array((RNG.random(N) * 100).astype(np.float16), pa.float16()),
        "float32": pa.array(RNG.random(N).astype(np.float32)),
        "float64": pa.array(RNG.standard_normal(N)),
        "string": pa.array(words),
        "large_string": pa.array(words, pa.large_string()),
        "string_view": pa.array(words, pa.string_view()),
        "binary": pa.array([w.encode() * 2 for w in words], pa.binary()),
        "fsb": pa.array([int(x).to_bytes(5, "little", signed=True) for x in ints], pa.binary(5)),
        "dec_9_2": pa.array([decimal.Decimal(int(x)) / 100 for x in ints], pa.decimal128(9, 2)),
        "dec_18_4": pa.array([decimal.Decimal(int(x)) / 10000 for x in wide % 10**17], pa.decimal128(18, 4)),
        "dec_38_0": pa.array([decimal.Decimal(int(x)) * 10**19 for x in wide], pa.decimal128(38, 0)),
        "dec256": pa.array([decimal.Decimal(int(x)) * 10**30 for x in wide], pa.decimal256(60, 3)),
        "date32": pa.array(ints + 18000, pa.int32()).cast(pa.date32()),
        "date64": pa.array((ints + 18000) * 86_400_000, pa.int64()).cast(pa.date64()),
        "time32": pa.array(np.abs(ints) * 1000, pa.int32()).cast(pa.time32("ms")),
        "time64": pa.array(np.abs(wide) % 86_400_000_000, pa.int64()).cast(pa.time64("us")),
        "ts_s": pa.array(wide % 10**9, pa.int64()).cast(pa.timestamp("s")),
        "ts_ms_tz": pa.array(wide % 10**12, pa.int64()).cast(pa.timestamp("ms", "America/New_York")),
        "ts_us_utc": pa.array(wide % 10**15, pa.int64()).cast(pa.timestamp("us", "UTC")),
        "ts_ns": pa.array(wide, pa.int64()).cast(pa.timestamp("ns")),
        "duration": pa.array(wide % 10**12, pa.int64()).cast(pa.duration("us")),
        "dict_string": pa.array(words).dictionary_encode(),
        "null": pa.nulls(N),
    }
    return {k: _with_nulls(v, nulls) for k, v in cols.items()}


INT_COLS = ["int8", "int16", "int32", "int64", "int64_sorted", "uint8", "uint16", "uint32", "uint64",
            "date32", "date64", "time32", "time64", "ts_s", "ts_ms_tz", "ts_us_utc", "ts_ns", "duration"]
STR_COLS = ["string", "large_string", "string_view", "binary"]
BSS_COLS = ["float16", "float32", "float64", "fsb", "int32", "int64", "dec_9_2", "dec_38_0"]


def _write(tmp_path, name, table, **kw):
    p = tmp_path / f"{name}.parquet"
    pq.write_table(table, p, data_page_size=2048, write_batch_size=512, **kw)
    return p


def _check(path, columns=None):
    exp = pq.read_table(path, columns=columns)
    got = pqfast.read_table(path, columns=columns)
    assert got.column_names == exp.column_names
    for c in exp.column_names:
        try:
            same_column(got.column(c), exp.column(c))
        except AssertionError as e:
            raise AssertionError(f"{path.name} column {c}: {e}") from None
    return got


CODECS = ["none", "snappy", "gzip", "zstd", "lz4", "brotli"]


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("nulls", [False, True])
@pytest.mark.parametrize("encoding", ["plain", "dictionary", "delta", "byte_stream_split", "int_in_decimal"])
def test_pyarrow_writes(tmp_path, codec, version, nulls, encoding):
    cols = _columns(nulls)
    kw = dict(compression=codec, data_page_version=version)
    if encoding == "plain":
        table = pa.table(cols)
        kw.update(use_dictionary=False)
    elif encoding == "dictionary":
        table = pa.table(cols)
        # A small dictionary page limit makes the wide columns fall back to PLAIN mid-chunk.
        kw.update(use_dictionary=True, dictionary_pagesize_limit=4096)
    elif encoding == "delta":
        names = INT_COLS + STR_COLS + ["fsb", "dec_9_2", "dec_38_0"]
        table = pa.table({k: cols[k] for k in names})
        enc = {k: "DELTA_BINARY_PACKED" for k in INT_COLS}
        enc.update({k: ("DELTA_LENGTH_BYTE_ARRAY" if k in ("string", "binary") else "DELTA_BYTE_ARRAY")
                    for k in STR_COLS})
        enc.update({"fsb": "DELTA_BYTE_ARRAY", "dec_9_2": "DELTA_BYTE_ARRAY", "dec_38_0": "DELTA_BYTE_ARRAY"})
        kw.update(use_dictionary=False, column_encoding=enc)
    elif encoding == "byte_stream_split":
        table = pa.table({k: cols[k] for k in BSS_COLS})
        kw.update(use_dictionary=False, column_encoding={k: "BYTE_STREAM_SPLIT" for k in BSS_COLS})
    else:  # decimals stored as INT32 / INT64, booleans RLE (v2)
        table = pa.table({k: cols[k] for k in ["dec_9_2", "dec_18_4", "bool"]})
        kw.update(use_dictionary=False, store_decimal_as_integer=True)
        if version == "2.0":
            kw["column_encoding"] = {"bool": "RLE", "dec_9_2": "DELTA_BINARY_PACKED"}
    path = _write(tmp_path, f"{encoding}-{codec}-{version}-{nulls}", table, **kw)
    _check(path)


def test_int96_and_coerced_timestamps(tmp_path):
    cols = _columns(True)
    t = pa.table({k: cols[k] for k in ["ts_s", "ts_ns", "ts_us_utc", "ts_ms_tz"]})
    _check(_write(tmp_path, "int96", t, use_deprecated_int96_timestamps=True))
    _check(_write(tmp_path, "coerce", t, coerce_timestamps="ms", allow_truncated_timestamps=True))


def test_without_arrow_schema(tmp_path):
    cols = _columns(True)
    t = pa.table({k: v for k, v in cols.items() if k != "null"})
    _check(_write(tmp_path, "noschema", t, store_schema=False))


def test_many_row_groups_and_threads(tmp_path):
    cols = _columns(True)
    t = pa.table({k: cols[k] for k in ["int64", "string", "float64", "dict_string"]})
    p = tmp_path / "rgs.parquet"
    pq.write_table(t, p, row_group_size=250, compression="zstd")
    a = pqfast.read_table(p, use_threads=True)
    b = pqfast.read_table(p, use_threads=False)
    exp = pq.read_table(p)
    for c in exp.column_names:
        same_column(a.column(c), exp.column(c))
        same_column(b.column(c), exp.column(c))


# ---- DuckDB 2.0 ------------------------------------------------------------------------

DUCK_SELECT = """
SELECT i::INTEGER AS i32,
       (i * 2654435761)::BIGINT AS i64,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i::INTEGER END AS i32_nulls,
       -- deltas wider than 32 bits between neighbours: DuckDB writes 33..64-bit INT32 miniblocks
       CASE WHEN i % 2 = 0 THEN 2147483647 - i ELSE -2147483648 + i END::INTEGER AS i32_wide,
       (i % 100)::TINYINT AS i8, (i % 1000)::SMALLINT AS i16,
       (i % 250)::UTINYINT AS u8, i::UINTEGER AS u32, i::UBIGINT AS u64,
       i / 3.0 AS dbl, (i / 7.0)::FLOAT AS flt,
       'str-' || (i % 321)::VARCHAR AS s,
       CASE WHEN i % 5 = 0 THEN NULL ELSE repeat('x', i % 30) || i::VARCHAR END AS s_nulls,
       DATE '2020-01-01' + (i % 1000)::INTEGER AS d,
       TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND AS ts,
       (i * 1.25)::DECIMAL(9, 2) AS dec9, (i * 1.5)::DECIMAL(18, 3) AS dec18,
       (i * 2.5)::DECIMAL(30, 5) AS dec30,
       i % 3 = 0 AS b,
       ('x' || i::VARCHAR)::BLOB AS blob
FROM range(20000) t(i)
"""


@pytest.mark.parametrize("version", ["V1", "V2"])
@pytest.mark.parametrize("codec", ["uncompressed", "snappy", "zstd", "gzip", "lz4", "brotli"])
def test_duckdb_writes(tmp_path, version, codec):
    duckdb = pytest.importorskip("duckdb")
    p = tmp_path / f"duck-{version}-{codec}.parquet"
    con = duckdb.connect()
    con.execute(f"COPY ({DUCK_SELECT}) TO '{p}' (FORMAT parquet, COMPRESSION {codec}, "
                f"PARQUET_VERSION {version}, ROW_GROUP_SIZE 8000)")
    got = pqfast.read_table(p)
    # DuckDB's own reading of the file is the reference (pyarrow cannot read
    # DuckDB's 33..64-bit INT32 DELTA miniblocks).
    exp = con.sql(f"SELECT * FROM '{p}'").to_arrow_table()
    for c in exp.column_names:
        g, e = got.column(c), exp.column(c)
        if not g.type.equals(e.type):
            e = e.cast(g.type)
        same_column(g, e)
    # Where pyarrow reads it too, the types are pyarrow's.
    try:
        ref = pq.read_table(p)
    except Exception:  # noqa: BLE001
        ref = None
    if ref is not None:
        for c in ref.column_names:
            same_column(got.column(c), ref.column(c))


def test_tpchgen_files(tmp_path):
    """tpchgen-cli's own lineitem and orders (scale 0.01): string_view from the embedded schema, SNAPPY."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    exe = shutil.which("tpchgen-cli") or str(Path(sys.executable).parent / "tpchgen-cli")
    if not Path(exe).exists():
        pytest.skip("tpchgen-cli not installed")
    subprocess.run([exe, "parquet", "-s", "0.01", "--tables=lineitem,orders", f"--output-dir={tmp_path}"],
                   check=True, capture_output=True)
    for name in ("lineitem", "orders"):
        _check(tmp_path / f"{name}.parquet")
