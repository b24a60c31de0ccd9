"""Regenerates the files of tests/data/writers: every flat type each of six
Parquet writers supports, with nulls, in several codecs and page settings,
and (in nested/) the lists, structs and maps each of them writes.

Run with an interpreter that has the writers (see README.md for versions),
never the test venv:

    python3 -m venv /work/genvenv
    /work/genvenv/bin/pip install fastparquet==2026.9.0 chdb==4.4.0 pyspark==4.3.0 \
        polars==2.1.0 duckdb==2.0.0 datafusion==55.0.0 pyarrow==26.0.1
    apt-get install -y openjdk-17-jre-headless      # for Spark
    /work/genvenv/bin/python tests/data/writers/generate.py [writer ...]

Files are named <writer>-<setting>.parquet; `generate.py <writer>-nested`
writes that writer's lists, structs and maps into nested/ (issue 20).
Values come from numpy's seeded generator and the writers' SQL over row
numbers, so a regenerated file
differs only where a writer embeds its own version or a timestamp, and in
chDB's UUID columns (generateUUIDv4 is random). The tests compare pqfast with
pyarrow on whatever the files hold: regenerated files need no test change.
"""

from __future__ import annotations

import datetime as dt
import decimal
import glob
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N = 600
RNG = np.random.default_rng(19)


def _nulls(n: int, every: int) -> np.ndarray:
    """A validity mask with a null at every `every`-th row (plus a few random ones)."""
    m = np.zeros(n, dtype=bool)
    m[::every] = True
    m |= RNG.random(n) < 0.03
    return m


def _words(n: int) -> list[str]:
    # Non-ASCII code points too, so byte order and UTF-8 handling are exercised.
    alphabet = ["a", "b", "z", "é", "ß", "日", "😀", "Z", "0"]
    out = []
    for i in range(n):
        k = int(RNG.integers(0, 12))
        out.append(f"w{i % 97}-" + "".join(alphabet[int(j)] for j in RNG.integers(0, len(alphabet), k)))
    return out


# ---- polars 2.1 (its own Rust writer) ----------------------------------------------------


def polars_files():
    import polars as pl

    n = N
    mask = _nulls(n, 7)
    ints = RNG.integers(-(2**62), 2**62, n)
    words = _words(n)

    def nul(values, dtype=None):
        values = values.tolist() if isinstance(values, np.ndarray) else list(values)
        return pl.Series([None if m else v for m, v in zip(mask, values)], dtype=dtype)

    colours = ["red", "green", "blue", "cyan", "ünï"]
    df = pl.DataFrame({
        "i8": nul((ints % 120).astype(np.int8)),
        "i16": nul((ints % 30000).astype(np.int16)),
        "i32": nul((ints % 2**31).astype(np.int32)),
        "i64": nul(ints),
        "u8": nul((np.abs(ints) % 250).astype(np.uint8)),
        "u16": nul((np.abs(ints) % 65000).astype(np.uint16)),
        "u32": nul((np.abs(ints) % 2**32).astype(np.uint32)),
        "u64": nul(np.abs(ints).astype(np.uint64) * 2),
        "f32": nul(RNG.standard_normal(n).astype(np.float32)),
        "f64": nul(RNG.standard_normal(n)),
        "bool": nul(RNG.random(n) < 0.4),
        "str": nul(words),
        "bin": nul([w.encode() for w in words], pl.Binary),
        "date": nul([dt.date(2000, 1, 1) + dt.timedelta(days=int(x)) for x in ints % 10000]),
        "dt_ms": nul(ints % 10**12, pl.Int64).cast(pl.Datetime("ms")),
        "dt_us_tz": nul(ints % 10**15, pl.Int64).cast(pl.Datetime("us", "Europe/Paris")),
        "dt_ns": nul(ints, pl.Int64).cast(pl.Datetime("ns")),
        "time": nul(np.abs(ints) % 86_400_000_000_000, pl.Int64).cast(pl.Time),
        "dur": nul(ints % 10**12, pl.Int64).cast(pl.Duration("us")),
        "dec": nul([decimal.Decimal(int(x) % 10**9) / 100 for x in ints], pl.Decimal(12, 2)),
        "enum": nul([colours[int(x) % 5] for x in ints], pl.Enum(colours)),
        "cat": nul([f"c{int(x) % 13}" for x in ints], pl.Categorical),
        "null": pl.Series([None] * n, dtype=pl.Null),
    })
    for codec, kw in [("zstd", dict(data_page_size=1024, row_group_size=700)),
                      ("snappy", {}), ("uncompressed", dict(data_page_size=4096)),
                      ("lz4", dict(row_group_size=1000)), ("gzip", dict(statistics="full"))]:
        df.write_parquet(HERE / f"polars-{codec}.parquet", compression=codec, **kw)


# ---- DataFusion 55 (arrow-rs) ------------------------------------------------------------


def _arrow_table(n: int, every: int):
    """A pyarrow table of every flat type arrow-rs writes, handed to DataFusion."""
    import pyarrow as pa

    mask = _nulls(n, every)
    ints = RNG.integers(-(2**62), 2**62, n)
    words = _words(n)

    def arr(values, t):
        return pa.array(values, type=t, mask=mask)

    return pa.table({
        "i8": arr(ints % 120, pa.int8()), "i16": arr(ints % 30000, pa.int16()),
        "i32": arr(ints % 2**31, pa.int32()), "i64": arr(ints, pa.int64()),
        "u8": arr(np.abs(ints) % 250, pa.uint8()), "u16": arr(np.abs(ints) % 65000, pa.uint16()),
        "u32": arr(np.abs(ints) % 2**32, pa.uint32()), "u64": arr(np.abs(ints).astype(np.uint64), pa.uint64()),
        "f16": arr(RNG.standard_normal(n).astype(np.float16), pa.float16()),
        "f32": arr(RNG.standard_normal(n).astype(np.float32), pa.float32()),
        "f64": arr(RNG.standard_normal(n), pa.float64()),
        "bool": arr(RNG.random(n) < 0.5, pa.bool_()),
        "str": arr(words, pa.string()), "lstr": arr(words, pa.large_string()),
        "vstr": arr(words, pa.string_view()),
        "bin": arr([w.encode() for w in words], pa.binary()),
        "fsb": arr([int(x).to_bytes(8, "little", signed=True) for x in ints], pa.binary(8)),
        "d32": arr(ints % 20000, pa.int32()).cast(pa.date32()),
        "t32": arr(np.abs(ints) % 86_400_000, pa.int32()).cast(pa.time32("ms")),
        "t64": arr(np.abs(ints) % 86_400_000_000, pa.int64()).cast(pa.time64("us")),
        "ts_s": arr(ints % 10**9, pa.int64()).cast(pa.timestamp("s")),
        "ts_ms_tz": arr(ints % 10**12, pa.int64()).cast(pa.timestamp("ms", "Asia/Tokyo")),
        "ts_ns": arr(ints, pa.int64()).cast(pa.timestamp("ns", "UTC")),
        "dur": arr(ints % 10**12, pa.int64()).cast(pa.duration("ms")),
        "dec9": arr([decimal.Decimal(int(x) % 10**9) / 100 for x in ints], pa.decimal128(9, 2)),
        "dec18": arr([decimal.Decimal(int(x) % 10**18) / 1000 for x in ints], pa.decimal128(18, 3)),
        "dec38": arr([decimal.Decimal(int(x)) * 10**15 for x in ints], pa.decimal128(38, 4)),
        "dict": arr([f"d{int(x) % 17}" for x in ints], pa.string()).dictionary_encode(),
    })


def datafusion_files():
    import datafusion

    ctx = datafusion.SessionContext()
    ctx.register_record_batches("t", [_arrow_table(N, 5).to_batches(max_chunksize=500)])
    settings = {
        "zstd-v2-pages": "'format.compression' 'zstd(3)', 'format.writer_version' '2.0', "
                         "'format.data_pagesize_limit' 1024, 'format.max_row_group_size' 800",
        "snappy-v1-bloom": "'format.compression' 'snappy', 'format.writer_version' '1.0', "
                           "'format.bloom_filter_on_write' true, 'format.dictionary_enabled' false",
        "lz4-raw": "'format.compression' 'lz4_raw', 'format.statistics_enabled' 'page'",
        "uncompressed-v2": "'format.compression' 'uncompressed', 'format.writer_version' '2.0', "
                           "'format.dictionary_enabled' false",
    }
    for name, opts in settings.items():
        out = HERE / f"datafusion-{name}.parquet"
        if out.exists():
            out.unlink()
        ctx.sql(f"COPY (SELECT * FROM t) TO '{out}' STORED AS PARQUET OPTIONS ({opts})").collect()


# ---- Spark 4.3 (parquet-java) -----------------------------------------------------------


def _spark_write_one(df, opts: dict, dest: Path, tmp: str) -> None:
    """Writes `df` with `opts` as one part file into `tmp`, copied to `dest`."""
    w = df.write.mode("overwrite")
    for k, v in opts.items():
        w = w.option(k, v)
    w.parquet(tmp + "/out")
    parts = sorted(glob.glob(tmp + "/out/part-*.parquet"))
    assert len(parts) == 1, parts
    shutil.copy(parts[0], dest)
    shutil.rmtree(tmp)


def spark_files():
    from pyspark.sql import SparkSession
    from pyspark.sql import types as T

    spark = (SparkSession.builder.master("local[1]").appName("pqfast-writers")
             .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.memory", "1g").getOrCreate())
    n = N
    ints = RNG.integers(-(2**62), 2**62, n)
    words = _words(n)
    mask = _nulls(n, 6)
    base = dt.datetime(2001, 2, 3, 4, 5, 6)
    rows = []
    for i in range(n):
        x = int(ints[i])
        r = (x % 120, x % 30000, x % 2**31, x, float(np.float32(x % 1000 / 7)), x / 3e12,
             words[i], words[i].encode(), x % 3 == 0, dt.date(1990, 1, 1) + dt.timedelta(days=x % 15000),
             base + dt.timedelta(microseconds=x % 10**15), base + dt.timedelta(seconds=x % 10**8),
             decimal.Decimal(x % 10**9) / 100, decimal.Decimal(x % 10**18) / 1000,
             decimal.Decimal(x) * 10**10 / 10**5)
        rows.append(tuple(None if mask[i] and j > 0 else v for j, v in enumerate(r)))
    schema = T.StructType([
        T.StructField("byte", T.ByteType()), T.StructField("short", T.ShortType()),
        T.StructField("int", T.IntegerType()), T.StructField("long", T.LongType()),
        T.StructField("float", T.FloatType()), T.StructField("double", T.DoubleType()),
        T.StructField("str", T.StringType()), T.StructField("bin", T.BinaryType()),
        T.StructField("bool", T.BooleanType()), T.StructField("date", T.DateType()),
        T.StructField("ts", T.TimestampType()), T.StructField("ts_ntz", T.TimestampNTZType()),
        T.StructField("dec9", T.DecimalType(9, 2)), T.StructField("dec18", T.DecimalType(18, 3)),
        T.StructField("dec38", T.DecimalType(38, 5)),
    ])
    df = spark.createDataFrame(rows, schema).coalesce(1)
    settings = {
        # Spark's defaults: INT96 timestamps, v1 pages, snappy.
        "v1-snappy-bloom": {"compression": "snappy", "parquet.writer.version": "PARQUET_1_0",
                            "parquet.bloom.filter.enabled": "true", "parquet.enable.dictionary": "false"},
        "v2-zstd-bloom": {"compression": "zstd", "parquet.writer.version": "PARQUET_2_0",
                          "parquet.bloom.filter.enabled": "true", "parquet.enable.dictionary": "false",
                          "parquet.page.size": "4096", "parquet.block.size": "65536"},
        "v2-gzip-dict": {"compression": "gzip", "parquet.writer.version": "PARQUET_2_0",
                         "parquet.page.size": "2048"},
        "v1-uncompressed-micros": {"compression": "none", "parquet.enable.dictionary": "false",
                                   "parquet.bloom.filter.enabled": "true"},
    }
    for name, opts in settings.items():
        if opts.get("parquet.bloom.filter.enabled") == "true":
            # parquet-java sizes an unconfigured filter at its 1 MiB maximum: keep them small.
            opts = {**opts, "parquet.bloom.filter.max.bytes": "4096"}
        tmp = tempfile.mkdtemp()
        if name.endswith("micros"):
            spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
        else:
            spark.conf.set("spark.sql.parquet.outputTimestampType", "INT96")
        _spark_write_one(df, opts, HERE / f"spark-{name}.parquet", tmp)
    spark.stop()


# ---- fastparquet 2026.9 -----------------------------------------------------------------


def fastparquet_files():
    import fastparquet
    import pandas as pd

    n = N
    ints = RNG.integers(-(2**62), 2**62, n)
    words = _words(n)
    mask = _nulls(n, 5)

    def nullable(values, dtype):
        s = pd.Series(values).astype(dtype)
        s[mask] = pd.NA
        return s

    words_null = [None if m else w for m, w in zip(mask, words)]
    df = pd.DataFrame({
        "i8": (ints % 120).astype(np.int8), "i16": (ints % 30000).astype(np.int16),
        "i32": (ints % 2**31).astype(np.int32), "i64": ints,
        "u8": (np.abs(ints) % 250).astype(np.uint8), "u16": (np.abs(ints) % 65000).astype(np.uint16),
        "u32": (np.abs(ints) % 2**32).astype(np.uint32), "u64": np.abs(ints).astype(np.uint64),
        "I32n": nullable(ints % 2**31, "Int32"), "I64n": nullable(ints, "Int64"),
        "U16n": nullable(np.abs(ints) % 65000, "UInt16"),
        "f32": RNG.standard_normal(n).astype(np.float32), "f64": np.where(mask, np.nan, RNG.standard_normal(n)),
        "bool": RNG.random(n) < 0.5, "booln": nullable(RNG.random(n) < 0.5, "boolean"),
        "str": pd.Series(words_null, dtype=object),
        "bytes": pd.Series([None if m else w.encode() for m, w in zip(mask, words)], dtype=object),
        "ts": pd.Series((ints % 10**18).astype("datetime64[ns]")).where(~mask),
        "ts_tz": pd.Series((ints % 10**17).astype("datetime64[ns]")).dt.tz_localize("UTC"),
        "td": pd.Series((ints % 10**15).astype("timedelta64[ns]")),
        "cat": pd.Categorical([None if m else f"k{int(x) % 11}" for m, x in zip(mask, ints)]),
    })
    for name, kw in [
        ("snappy", dict(compression="SNAPPY")),
        ("int96-gzip", dict(compression="GZIP", times="int96")),
        ("zstd-rowgroups", dict(compression="ZSTD", row_group_offsets=600)),
        ("uncompressed-nostats", dict(compression=None, stats=False)),
        ("int96-plain", dict(compression="LZ4", times="int96", object_encoding={"str": "utf8", "bytes": "bytes"})),
    ]:
        fastparquet.write(str(HERE / f"fastparquet-{name}.parquet"), df, **kw)


# ---- chDB 4.4 (ClickHouse's writer) ------------------------------------------------------


CH_SELECT = """
SELECT
  toInt8(number % 120 - 60) AS i8, toInt16(number * 7 % 30000) AS i16,
  toInt32(number * 2654435761 % 2147483647) AS i32, toInt64(number * 2654435761) AS i64,
  toUInt8(number % 250) AS u8, toUInt16(number * 31 % 65000) AS u16,
  toUInt32(number * 2654435761 % 4294967295) AS u32, toUInt64(number * 11400714819323198485) AS u64,
  toFloat32(number / 7) AS f32, toFloat64(number / 3) - 300 AS f64,
  if(number % 5 = 0, NULL, toInt32(number)) AS i32_null,
  if(number % 4 = 0, NULL, concat('s', toString(number % 321), 'é')) AS s_null,
  concat('str-', toString(number % 97)) AS s,
  toFixedString(concat('f', leftPad(toString(number % 1000), 4, '0')), 5) AS fs,
  toDate('2020-01-01') + number % 1000 AS d, toDate32('1950-01-01') + number % 40000 AS d32,
  toDateTime('2020-01-01 00:00:00', 'UTC') + number * 37 AS dtm,
  toDateTime64('2020-01-01 00:00:00', 3, 'UTC') + number * 37 AS dt64,
  toDecimal32(number / 8, 2) AS dec9, toDecimal64(number / 9, 4) AS dec18,
  toDecimal128(number / 11, 6) AS dec38,
  number % 3 = 0 AS b,
  generateUUIDv4(number) AS uuid,
  if(number % 6 = 0, NULL, generateUUIDv4(number + 1)) AS uuid_null,
  CAST(['a', 'b', 'c'][number % 3 + 1], 'Enum8(\\'a\\' = 1, \\'b\\' = 2, \\'c\\' = 3)') AS e8,
  CAST(['x', 'y'][number % 2 + 1], 'Enum16(\\'x\\' = 1000, \\'y\\' = 2000)') AS e16,
  toIPv4(number * 1000003) AS ip4
FROM numbers({n})
"""


def chdb_files():
    import chdb

    for name, settings in {
        "zstd": "output_format_parquet_compression_method='zstd', output_format_parquet_row_group_size=700",
        "snappy-v1": "output_format_parquet_compression_method='snappy', output_format_parquet_version='1.0'",
        "lz4-pages": "output_format_parquet_compression_method='lz4', output_format_parquet_data_page_size=1024",
        "none-strings": "output_format_parquet_compression_method='none', output_format_parquet_string_as_string=0",
    }.items():
        res = chdb.query(CH_SELECT.format(n=N) + f" SETTINGS {settings}", "Parquet")
        (HERE / f"chdb-{name}.parquet").write_bytes(res.bytes())


# ---- DuckDB 2.0 ---------------------------------------------------------------------------


DUCK_SELECT = """
SELECT (i % 100)::TINYINT AS i8, (i * 7 % 30000)::SMALLINT AS i16, (i * 2654435761 % 2147483647)::INTEGER AS i32,
       (i * 2654435761)::BIGINT AS i64, (i % 250)::UTINYINT AS u8, (i * 31 % 65000)::USMALLINT AS u16,
       (i * 2654435761 % 4294967295)::UINTEGER AS u32, (i * 2654435761)::UBIGINT AS u64,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i::INTEGER END AS i32_null,
       (i / 7.0)::FLOAT AS flt, i / 3.0 - 300 AS dbl,
       'str-' || (i % 321)::VARCHAR AS s,
       CASE WHEN i % 5 = 0 THEN NULL ELSE repeat('é', i % 7) || i::VARCHAR END AS s_null,
       ('x' || i::VARCHAR)::BLOB AS blob,
       i % 3 = 0 AS b,
       DATE '2020-01-01' + (i % 1000)::INTEGER AS d,
       TIME '00:00:00' + INTERVAL (i * 13) SECOND AS t,
       TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND AS ts,
       TIMESTAMPTZ '2020-01-01 00:00:00+00' + INTERVAL (i * 61) SECOND AS tstz,
       (TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND)::TIMESTAMP_MS AS ts_ms,
       (TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND)::TIMESTAMP_NS AS ts_ns,
       (i * 1.25)::DECIMAL(9, 2) AS dec9, (i * 1.5)::DECIMAL(18, 3) AS dec18,
       (i * 2.5)::DECIMAL(30, 5) AS dec30, (i * 1000003)::HUGEINT AS huge,
       md5(i::VARCHAR)::UUID AS uuid,
       CASE WHEN i % 4 = 0 THEN NULL ELSE md5((i + 1)::VARCHAR)::UUID END AS uuid_null,
       (['lo', 'mid', 'hi'])[i % 3 + 1]::ENUM('lo', 'mid', 'hi') AS enm,
       CASE WHEN i % 9 = 0 THEN NULL ELSE ('{{"k": ' || i::VARCHAR || '}}')::JSON END AS js,
       INTERVAL (i % 40) DAY + INTERVAL (i % 7) MONTH AS iv
FROM range({n}) t(i)
"""


def duckdb_files():
    import duckdb

    con = duckdb.connect()
    for name, opts in {
        "v1-snappy": "COMPRESSION snappy, PARQUET_VERSION V1",
        "v2-zstd": "COMPRESSION zstd, PARQUET_VERSION V2, ROW_GROUP_SIZE 700",
        "v1-uncompressed-small-pages": "COMPRESSION uncompressed, PARQUET_VERSION V1, ROW_GROUP_SIZE 1000, "
                                       "DICTIONARY_COMPRESSION_RATIO_THRESHOLD 0",
        "v2-gzip": "COMPRESSION gzip, PARQUET_VERSION V2",
    }.items():
        out = HERE / f"duckdb-{name}.parquet"
        con.execute(f"COPY ({DUCK_SELECT.format(n=N)}) TO '{out}' (FORMAT parquet, {opts})")


# ---- nested columns (issue 20): every writer's lists, structs and maps ------------------
#
# Written into nested/ (the flat tests glob this directory's *.parquet only).
# Each writer gets its own seeded generator, so adding or regenerating these
# leaves the flat files above unchanged.

NESTED = HERE / "nested"
NN = 300


def _nested_rows(seed: int, n: int = NN) -> dict:
    """Python values for the nested columns: lists with nulls, empty and null
    lists; structs with null fields and null rows; maps with null values."""
    rng = np.random.default_rng(seed)
    words = ["a", "bb", "ccc", "é", "日本", "", "zz-top", "😀"]

    def maybe(v, p=0.12):
        return None if rng.random() < p else v

    def ints(k, p=0.1):
        return [maybe(int(x), p) for x in rng.integers(-(2**40), 2**40, k)]

    def strs(k, p=0.1):
        return [maybe(words[int(x)] + str(int(y)), p) for x, y in zip(rng.integers(0, len(words), k),
                                                                      rng.integers(0, 50, k))]

    def length():
        return int(rng.choice([0, 1, 2, 3, 5, 8]))

    cols = {k: [] for k in ("li", "ls", "st", "lst", "m", "ll", "ml", "fixed", "req")}
    for i in range(n):
        cols["li"].append(maybe(ints(length())))
        cols["ls"].append(maybe(strs(length())))
        cols["st"].append(maybe({"i32": maybe(int(rng.integers(-1000, 1000))), "i64": maybe(int(rng.integers(0, 2**50))),
                                 "f64": maybe(float(np.round(rng.standard_normal(), 4))),
                                 "s": maybe(words[i % len(words)]), "b": maybe(bool(i % 3 == 0))}))
        cols["lst"].append(maybe([maybe({"a": maybe(int(x)), "b": maybe(words[int(x) % 8])})
                                  for x in rng.integers(0, 1000, length())]))
        cols["m"].append(maybe({f"k{j}": maybe(int(x)) for j, x in enumerate(rng.integers(0, 100, length()))}))
        cols["ll"].append(maybe([maybe(ints(length())) for _ in range(length())]))
        cols["ml"].append(maybe({f"k{j}": maybe(ints(length())) for j in range(length())}))
        cols["fixed"].append(maybe([int(x) for x in rng.integers(0, 100, 3)]))
        cols["req"].append({"id": i, "tag": maybe(words[i % 8])})
    return cols


def _nested_arrow_table(seed: int, n: int = NN):
    import pyarrow as pa

    c = _nested_rows(seed, n)
    st = pa.struct([("i32", pa.int32()), ("i64", pa.int64()), ("f64", pa.float64()), ("s", pa.string()),
                    ("b", pa.bool_())])
    ab = pa.struct([("a", pa.int64()), ("b", pa.string())])

    def as_map(v):
        return None if v is None else list(v.items())

    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "li": pa.array(c["li"], pa.list_(pa.int64())),
        "ls": pa.array(c["ls"], pa.list_(pa.string())),
        "st": pa.array(c["st"], st),
        "lst": pa.array(c["lst"], pa.list_(ab)),
        "m": pa.array([as_map(v) for v in c["m"]], pa.map_(pa.string(), pa.int64())),
        "ll": pa.array(c["ll"], pa.list_(pa.list_(pa.int64()))),
        "ml": pa.array([as_map(v) for v in c["ml"]], pa.map_(pa.string(), pa.list_(pa.int64()))),
        "lli": pa.array(c["li"], pa.large_list(pa.int64())),
        "fixed": pa.array(c["fixed"], pa.list_(pa.int64(), 3)),
        "req": pa.array(c["req"], pa.struct([pa.field("id", pa.int64(), nullable=False), ("tag", pa.string())])),
    })


def polars_nested_files():
    import polars as pl

    NESTED.mkdir(exist_ok=True)
    c = _nested_rows(101)
    # polars has no map type: lists, structs, lists of structs and of lists, Array (fixed size).
    df = pl.DataFrame({
        "id": pl.Series(range(NN), dtype=pl.Int64),
        "li": pl.Series(c["li"], dtype=pl.List(pl.Int64)),
        "ls": pl.Series(c["ls"], dtype=pl.List(pl.String)),
        "st": pl.Series(c["st"], dtype=pl.Struct({"i32": pl.Int32, "i64": pl.Int64, "f64": pl.Float64,
                                                  "s": pl.String, "b": pl.Boolean})),
        "lst": pl.Series(c["lst"], dtype=pl.List(pl.Struct({"a": pl.Int64, "b": pl.String}))),
        "ll": pl.Series(c["ll"], dtype=pl.List(pl.List(pl.Int64))),
        "arr": pl.Series(c["fixed"], dtype=pl.Array(pl.Int64, 3)),
        "sl": pl.Series([None if v is None else {"l": v, "n": len(v)} for v in c["li"]],
                        dtype=pl.Struct({"l": pl.List(pl.Int64), "n": pl.Int64})),
    })
    for name, kw in [("zstd", {}), ("snappy-pages", dict(compression="snappy", data_page_size=2048,
                                                         row_group_size=120)),
                     ("uncompressed-stats", dict(compression="uncompressed", statistics="full"))]:
        kw = dict(kw)
        kw.setdefault("compression", "zstd")
        df.write_parquet(NESTED / f"polars-nested-{name}.parquet", **kw)


def datafusion_nested_files():
    import datafusion

    NESTED.mkdir(exist_ok=True)
    ctx = datafusion.SessionContext()
    ctx.register_record_batches("nt", [_nested_arrow_table(102).to_batches(max_chunksize=100)])
    for name, opts in {
        "snappy-v1": "'format.compression' 'snappy', 'format.writer_version' '1.0'",
        "zstd-v2-pages": "'format.compression' 'zstd(3)', 'format.writer_version' '2.0', "
                         "'format.data_pagesize_limit' 512, 'format.max_row_group_size' 120, "
                         "'format.dictionary_enabled' false",
    }.items():
        out = NESTED / f"datafusion-nested-{name}.parquet"
        if out.exists():
            out.unlink()
        ctx.sql(f"COPY (SELECT * FROM nt) TO '{out}' STORED AS PARQUET OPTIONS ({opts})").collect()


def spark_nested_files():
    from pyspark.sql import SparkSession
    from pyspark.sql import types as T

    NESTED.mkdir(exist_ok=True)
    spark = (SparkSession.builder.master("local[1]").appName("pqfast-writers-nested")
             .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.memory", "1g").getOrCreate())
    c = _nested_rows(103)
    st = T.StructType([T.StructField("i32", T.IntegerType()), T.StructField("i64", T.LongType()),
                       T.StructField("f64", T.DoubleType()), T.StructField("s", T.StringType()),
                       T.StructField("b", T.BooleanType())])
    ab = T.StructType([T.StructField("a", T.LongType()), T.StructField("b", T.StringType())])
    schema = T.StructType([
        T.StructField("id", T.LongType(), False),
        T.StructField("li", T.ArrayType(T.LongType())),
        T.StructField("ls", T.ArrayType(T.StringType())),
        T.StructField("st", st),
        T.StructField("lst", T.ArrayType(ab)),
        T.StructField("m", T.MapType(T.StringType(), T.LongType())),
        T.StructField("ll", T.ArrayType(T.ArrayType(T.LongType()))),
        T.StructField("ml", T.MapType(T.StringType(), T.ArrayType(T.LongType()))),
        T.StructField("fixed", T.ArrayType(T.LongType(), containsNull=False)),
        T.StructField("req", T.StructType([T.StructField("id", T.LongType(), False),
                                           T.StructField("tag", T.StringType())]), False),
    ])
    rows = []
    for i in range(NN):
        s = c["st"][i]
        rows.append((i, c["li"][i], c["ls"][i], None if s is None else tuple(s.values()),
                     None if c["lst"][i] is None else [None if e is None else (e["a"], e["b"]) for e in c["lst"][i]],
                     c["m"][i], c["ll"][i], c["ml"][i], c["fixed"][i], (c["req"][i]["id"], c["req"][i]["tag"])))
    df = spark.createDataFrame(rows, schema).coalesce(1)
    settings = {
        # Spark's defaults: 3-level lists (list / element), maps as key_value.
        "nested-v1-snappy": (False, {"compression": "snappy"}),
        "nested-v2-zstd-pages": (False, {"compression": "zstd", "parquet.writer.version": "PARQUET_2_0",
                                         "parquet.page.size": "1024", "parquet.enable.dictionary": "false"}),
        # spark.sql.parquet.writeLegacyFormat=true: Hive's 2-level lists (bag / array) and maps (map).
        "legacy-nested-v1-snappy": (True, {"compression": "snappy"}),
        "legacy-nested-v1-gzip-pages": (True, {"compression": "gzip", "parquet.page.size": "1024",
                                               "parquet.block.size": "16384"}),
    }
    for name, (legacy, opts) in settings.items():
        spark.conf.set("spark.sql.parquet.writeLegacyFormat", "true" if legacy else "false")
        _spark_write_one(df, opts, NESTED / f"spark-{name}.parquet", tempfile.mkdtemp())
    spark.conf.set("spark.sql.parquet.writeLegacyFormat", "false")
    spark.stop()


def fastparquet_nested_files():
    """fastparquet writes no nested Parquet types: lists and dicts go into flat
    BYTE_ARRAY columns as JSON (object_encoding='json'). Written so that its
    nearest form is read as pyarrow reads it."""
    import fastparquet
    import pandas as pd

    NESTED.mkdir(exist_ok=True)
    c = _nested_rows(104)
    df = pd.DataFrame({"id": np.arange(NN, dtype=np.int64),
                       "li": pd.Series(c["li"], dtype=object), "st": pd.Series(c["st"], dtype=object),
                       "m": pd.Series(c["m"], dtype=object)})
    fastparquet.write(str(NESTED / "fastparquet-nested-json.parquet"), df, compression="SNAPPY",
                      object_encoding={"li": "json", "st": "json", "m": "json"})


CH_NESTED = """
SELECT
  toInt64(number) AS id,
  arrayMap(x -> toInt64(x * 1000003 - 500), range(number % 6)) AS li,
  arrayMap(x -> if((number + x) % 5 = 0, NULL, toInt64(x)), range(number % 4)) AS li_null,
  arrayMap(x -> concat('s', toString(number), 'é', toString(x)), range(number % 5)) AS ls,
  CAST((toInt32(number % 1000), toInt64(number * 7), number / 3, toString(number % 37), number % 2 = 0),
       'Tuple(i32 Int32, i64 Int64, f64 Float64, s String, b Bool)') AS st,
  arrayMap(x -> CAST((toInt64(x), concat('b', toString(x))), 'Tuple(a Int64, b String)'), range(number % 4)) AS lst,
  CAST(mapFromArrays(arrayMap(x -> concat('k', toString(x)), range(number % 4)),
                     arrayMap(x -> toInt64(x * number), range(number % 4))), 'Map(String, Int64)') AS m,
  arrayMap(x -> arrayMap(y -> toInt64(y + x), range(x % 3)), range(number % 4)) AS ll,
  CAST(mapFromArrays(arrayMap(x -> concat('k', toString(x)), range(number % 3)),
                     arrayMap(x -> arrayMap(y -> toInt32(y), range(x)), range(number % 3))),
       'Map(String, Array(Int32))') AS ml,
  CAST(if(number % 7 = 0, NULL, concat('t', toString(number))), 'Nullable(String)') AS tag
FROM numbers({n})
"""


def chdb_nested_files():
    import chdb

    NESTED.mkdir(exist_ok=True)
    for name, settings in {
        "zstd": "output_format_parquet_compression_method='zstd'",
        "lz4-pages": "output_format_parquet_compression_method='lz4', output_format_parquet_data_page_size=512, "
                     "output_format_parquet_row_group_size=100",
        "snappy-v1": "output_format_parquet_compression_method='snappy', output_format_parquet_version='1.0'",
    }.items():
        res = chdb.query(CH_NESTED.format(n=NN) + f" SETTINGS {settings}", "Parquet")
        (NESTED / f"chdb-nested-{name}.parquet").write_bytes(res.bytes())


DUCK_NESTED = """
SELECT i::BIGINT AS id,
       CASE WHEN i % 9 = 0 THEN NULL ELSE
         list_transform(range(i % 6), lambda x: CASE WHEN (x + i) % 5 = 0 THEN NULL ELSE x * 1000003 - 7 END) END AS li,
       CASE WHEN i % 11 = 0 THEN NULL ELSE list_transform(range(i % 4), lambda x: 's' || x::VARCHAR || 'é') END AS ls,
       CASE WHEN i % 8 = 0 THEN NULL ELSE
         {{'i32': (i % 1000)::INTEGER, 'i64': i * 7, 'f64': i / 3.0,
           's': CASE WHEN i % 4 = 0 THEN NULL ELSE 'v' || i::VARCHAR END, 'b': i % 2 = 0}} END AS st,
       list_transform(range(i % 4), lambda x: {{'a': x, 'b': CASE WHEN x = 2 THEN NULL ELSE 'b' || x::VARCHAR END}}) AS lst,
       CASE WHEN i % 10 = 0 THEN NULL ELSE
         map_from_entries(list_transform(range(i % 4), lambda x: {{'k': 'k' || x::VARCHAR,
                                                              'v': CASE WHEN x = 1 THEN NULL ELSE x * i END}})) END AS m,
       list_transform(range(i % 4), lambda x: CASE WHEN x = 3 THEN NULL ELSE range(x) END) AS ll,
       map_from_entries(list_transform(range(i % 3), lambda x: {{'k': 'k' || x::VARCHAR, 'v': range(x)}})) AS ml,
       [i, i + 1, i + 2]::BIGINT[3] AS fixed,
       {{'deep': list_transform(range(i % 3), lambda x: {{'x': range(x), 'y': {{'z': 'z' || x::VARCHAR}}}})}} AS deep
FROM range({n}) t(i)
"""


def duckdb_nested_files():
    import duckdb

    NESTED.mkdir(exist_ok=True)
    con = duckdb.connect()
    for name, opts in {
        "v1-snappy": "COMPRESSION snappy, PARQUET_VERSION V1",
        "v2-zstd-rowgroups": "COMPRESSION zstd, PARQUET_VERSION V2, ROW_GROUP_SIZE 100",
        "v1-uncompressed-nodict": "COMPRESSION uncompressed, PARQUET_VERSION V1, "
                                  "DICTIONARY_COMPRESSION_RATIO_THRESHOLD 0",
    }.items():
        out = NESTED / f"duckdb-nested-{name}.parquet"
        con.execute(f"COPY ({DUCK_NESTED.format(n=NN)}) TO '{out}' (FORMAT parquet, {opts})")


WRITERS = {"polars": polars_files, "datafusion": datafusion_files, "spark": spark_files,
           "fastparquet": fastparquet_files, "chdb": chdb_files, "duckdb": duckdb_files,
           "polars-nested": polars_nested_files, "datafusion-nested": datafusion_nested_files,
           "spark-nested": spark_nested_files, "fastparquet-nested": fastparquet_nested_files,
           "chdb-nested": chdb_nested_files, "duckdb-nested": duckdb_nested_files}


def main(argv: list[str]) -> int:
    names = argv or list(WRITERS)
    failed = []
    for name in names:
        try:
            WRITERS[name]()
            print(f"{name}: ok")
        except Exception as e:  # noqa: BLE001 - one writer missing must not stop the others
            print(f"{name}: FAILED {type(e).__name__}: {e}", file=sys.stderr)
            failed.append(name)
    for d in (HERE, NESTED):
        files = list(d.glob("*.parquet"))
        print(f"{d.name}: {len(files)} files, {sum(p.stat().st_size for p in files) / 1e6:.2f} MB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
