"""DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY pages: pqfast.delta against the
parquet-testing expectations, pages written by pyarrow 26 (v1 and v2) and
DuckDB 2.0, and pyarrow's own page bytes for the encoders; on every SIMD
implementation."""

from __future__ import annotations

import csv

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import delta
from test_delta import dbp_page_streams  # the test-only page walker

DLBA, DBA = 6, 7  # Parquet Encoding enum values


@pytest.fixture
def levels(each_simd_level):
    return each_simd_level


def _decode_column(path, column, encoding):
    dec = delta.decode_length_byte_array if encoding == DLBA else delta.decode_byte_array
    chunks = [dec(s) for s in dbp_page_streams(path, column, encoding=encoding)]
    return pa.concat_arrays(chunks) if chunks else pa.array([], pa.binary())


def _expect(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return [h.strip().rstrip(":") for h in rows[0]], rows[1:]


# ---- parquet-testing -----------------------------------------------------------------

def test_parquet_testing_delta_length_byte_array(data_dir, levels):
    path = data_dir / "delta_length_byte_array.parquet"
    want = pq.read_table(path).column("FRUIT").combine_chunks().cast(pa.binary())
    for level in levels:
        pqfast.set_simd_level(level)
        got = _decode_column(path, 0, DLBA)
        assert got.equals(want.drop_null()), level
    assert len(want) == 1000


@pytest.mark.parametrize("name", ["delta_byte_array", "delta_encoding_required_column",
                                  "delta_encoding_optional_column"])
def test_parquet_testing_delta_byte_array(data_dir, levels, name):
    path = data_dir / f"{name}.parquet"
    header, rows = _expect(data_dir / f"{name}_expect.csv")
    f = pq.ParquetFile(path)
    table = pq.read_table(path)
    checked = 0
    for level in levels:
        pqfast.set_simd_level(level)
        for i in range(f.metadata.num_columns):
            if "DELTA_BYTE_ARRAY" not in f.metadata.row_group(0).column(i).encodings:
                continue
            key = f.schema.column(i).name.strip().rstrip(":")
            j = header.index(key)
            got = _decode_column(path, i, DBA).to_pylist()
            want_csv = [r[j].encode() for r in rows if r[j] != ""]  # the CSV writes nulls as empty
            assert [v for v in got if v != b""] == want_csv, (level, key)
            assert got == table.column(i).drop_null().cast(pa.binary()).to_pylist(), (level, key)
            checked += 1
    assert checked >= 8


# ---- pyarrow 26 pages ----------------------------------------------------------------------

def _datasets(n=20_000):
    rng = np.random.default_rng(8)
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789 ", dtype=np.uint8)

    def text(lo, hi):
        return [bytes(alphabet[rng.integers(0, len(alphabet), rng.integers(lo, hi + 1))]).decode() for _ in range(n)]

    urls = sorted(f"https://www.example.com/catalog/{rng.integers(0, 50)}/item/{rng.integers(0, 10**9):09d}"
                  for _ in range(n))
    import uuid

    uuids = sorted(str(uuid.UUID(bytes=rng.bytes(16))) for _ in range(n))
    edge = (["", "a", "", "ab", "abc" * 100, "abc" * 100 + "d", "", "é", "é" * 50] * n)[:n]
    return {"short": text(8, 16), "urls": urls, "comment": text(10, 43), "uuid": uuids, "edge": edge}


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("encoding", ["DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"])
@pytest.mark.parametrize("nulls", [False, True])
def test_pyarrow_pages_decode(tmp_path, levels, version, encoding, nulls):
    cols = _datasets(6000)
    rng = np.random.default_rng(1)
    arrays = {}
    for k, v in cols.items():
        mask = rng.random(len(v)) < 0.2 if nulls else None
        arrays[k] = pa.array(v, pa.string(), mask=mask)
    table = pa.table(arrays)
    path = tmp_path / "s.parquet"
    pq.write_table(table, path, use_dictionary=False, compression="NONE", data_page_version=version,
                   column_encoding={k: encoding for k in cols}, data_page_size=16 * 1024)
    enc = DLBA if encoding == "DELTA_LENGTH_BYTE_ARRAY" else DBA
    for level in levels:
        pqfast.set_simd_level(level)
        for i, k in enumerate(cols):
            got = _decode_column(path, i, enc)
            assert got.to_pylist() == table.column(k).drop_null().cast(pa.binary()).to_pylist(), (level, k)


def test_encoders_write_pyarrows_page_bytes(tmp_path):
    for name, values in _datasets(3000).items():
        for encoding, enc, code in (("DELTA_LENGTH_BYTE_ARRAY", delta.encode_length_byte_array, DLBA),
                                    ("DELTA_BYTE_ARRAY", delta.encode_byte_array, DBA)):
            path = tmp_path / f"{name}.parquet"
            pq.write_table(pa.table({"c": pa.array(values, pa.string())}), path, use_dictionary=False,
                           compression="NONE", column_encoding={"c": encoding}, data_page_size=1 << 30)
            (page,) = dbp_page_streams(path, 0, encoding=code)
            assert enc(values) == page, (name, encoding)
            assert enc(pa.array(values)) == page  # from pyarrow, zero-copy in
            assert enc([v.encode() for v in values]) == page


def test_round_trips_and_stream_info(levels):
    values = [b"", b"x", b"xyz", b"xy", bytes(range(256)), b""] * 300
    for level in levels:
        pqfast.set_simd_level(level)
        for enc, dec in ((delta.encode_length_byte_array, delta.decode_length_byte_array),
                         (delta.encode_byte_array, delta.decode_byte_array)):
            got = dec(enc(values))
            assert isinstance(got, pa.BinaryArray)
            assert got.to_pylist() == values
            assert dec(enc([])).to_pylist() == []
    page = delta.encode_byte_array(values)
    info = delta.stream_info(page, "DELTA_BYTE_ARRAY")
    assert info["total_values"] == len(values)
    assert info["data_offset"] == info["prefix_stream_bytes"] + info["suffix_stream_bytes"]
    info = delta.stream_info(delta.encode_length_byte_array(values), "DELTA_LENGTH_BYTE_ARRAY")
    assert info["data_bytes"] == sum(map(len, values))


# ---- DuckDB 2.0 -------------------------------------------------------------------------------

def test_duckdb_v2_pages(tmp_path, levels):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "duck.parquet"
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT 'key-' || lpad((i * 7919 % 100000)::VARCHAR, 8, '0') AS k,
                                 CASE WHEN i % 7 = 0 THEN NULL ELSE repeat('ab', (i % 23)::INTEGER) END AS s
                          FROM range(50000) t(i))
                    TO '{path}' (FORMAT parquet, PARQUET_VERSION V2, COMPRESSION uncompressed)""")
    f = pq.ParquetFile(path)
    table = pq.read_table(path)
    seen = set()
    for i in range(2):
        encs = f.metadata.row_group(0).column(i).encodings
        enc = DLBA if "DELTA_LENGTH_BYTE_ARRAY" in encs else DBA if "DELTA_BYTE_ARRAY" in encs else None
        if enc is None:
            continue  # DuckDB chose a dictionary for this column
        seen.add(enc)
        want = table.column(i).drop_null().cast(pa.binary()).to_pylist()
        for level in levels:
            pqfast.set_simd_level(level)
            got = []
            for rg in range(f.metadata.num_row_groups):
                got += [x for s in dbp_page_streams(path, i, rg, encoding=enc)
                        for x in (delta.decode_length_byte_array if enc == DLBA else delta.decode_byte_array)(s)
                        .to_pylist()]
            assert got == want, (level, i)
    assert seen, "DuckDB wrote no DELTA string page"


# ---- errors ------------------------------------------------------------------------------------

def test_malformed_pages_raise_format_error():
    ok = delta.encode_byte_array([b"abc", b"abd", b"x"])
    for cut in range(len(ok)):
        with pytest.raises(pqfast.FormatError):
            delta.decode_byte_array(ok[:cut])
    lengths = delta.encode_int32(np.array([3, -2], dtype=np.int32))
    with pytest.raises(pqfast.FormatError, match="negative length -2"):
        delta.decode_length_byte_array(lengths + b"abcdef")
    with pytest.raises(pqfast.FormatError, match="pass the end"):
        delta.decode_length_byte_array(delta.encode_length_byte_array([b"abcd"])[:-1])
    prefixes = delta.encode_int32(np.array([0, 9], dtype=np.int32))
    suffixes = delta.encode_int32(np.array([2, 1], dtype=np.int32))
    with pytest.raises(pqfast.FormatError, match="value 1 has prefix length 9"):
        delta.decode_byte_array(prefixes + suffixes + b"abc")
    with pytest.raises(pqfast.FormatError, match="2 prefix lengths but 1 suffix lengths"):
        delta.decode_byte_array(prefixes + delta.encode_int32(np.array([2], dtype=np.int32)) + b"ab")
