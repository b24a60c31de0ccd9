"""DELTA_BINARY_PACKED: pqfast.delta against pyarrow 26, DuckDB 2.0 and the
parquet-testing expectations, on every SIMD implementation."""

from __future__ import annotations

import csv
import io
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import delta


# ---- TEST-ONLY page walker ---------------------------------------------------
from thrift_compact import Reader, plain  # noqa: E402


def dbp_page_streams(path, column: int, row_group: int = 0, encoding: int | None = 5) -> list[bytes]:
    """The value bytes of every data page of one column chunk, checked to be of
    `encoding` (5: DELTA_BINARY_PACKED; None: any)."""
    f = pq.ParquetFile(path)
    cc = f.metadata.row_group(row_group).column(column)
    max_def = f.schema.column(column).max_definition_level
    max_rep = f.schema.column(column).max_repetition_level
    codec = None if cc.compression == "UNCOMPRESSED" else pa.Codec(cc.compression.lower())
    buf = open(path, "rb").read()
    start = cc.dictionary_page_offset if cc.dictionary_page_offset is not None else cc.data_page_offset
    end = start + cc.total_compressed_size
    pos, streams = start, []
    while pos < end:
        r = Reader(buf, pos)
        hdr = plain(r.struct())
        body = buf[r.p:r.p + hdr[3]]
        pos = r.p + hdr[3]
        if hdr[1] == 0 and 5 in hdr:  # DATA_PAGE (v1): levels and values compressed together
            data = codec.decompress(body, hdr[2]).to_pybytes() if codec else body
            for present in (max_rep > 0, max_def > 0):  # RLE levels with a 4-byte length
                if present:
                    (n,) = struct.unpack_from("<i", data, 0)
                    data = data[4 + n:]
            assert encoding is None or hdr[5][2] == encoding, "unexpected encoding"
            streams.append(bytes(data))
        elif hdr[1] == 3:  # DATA_PAGE_V2: levels first, uncompressed
            v2 = hdr[8]
            skip = v2[5] + v2[6]
            values = body[skip:]
            if codec and v2.get(7, True):
                values = codec.decompress(values, hdr[2] - skip).to_pybytes()
            assert encoding is None or v2[4] == encoding, "unexpected encoding"
            streams.append(bytes(values))
    return streams


def decode_column(path, column: int, int32: bool) -> np.ndarray:
    dec = delta.decode_int32 if int32 else delta.decode_int64
    parts = [dec(s) for s in dbp_page_streams(path, column)]
    return np.concatenate(parts) if parts else np.array([], dtype=np.int32 if int32 else np.int64)


@pytest.fixture
def levels(each_simd_level):
    return each_simd_level


# ---- round trips ---------------------------------------------------------------

@pytest.mark.parametrize("geometry", [(128, 4), (256, 4), (2048, 8), (128, 1), (1024, 32)])
def test_round_trip_every_level(levels, geometry):
    rng = np.random.default_rng(1)
    for n in (0, 1, 2, 33, 129, 5000):
        cases64 = [np.cumsum(rng.integers(-5, 100, n)), rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64),
                   np.arange(n, dtype=np.int64) * -7]
        cases32 = [c.astype(np.int32) for c in cases64]  # wraps: deltas overflow int32
        for level in levels:
            pqfast.set_simd_level(level)
            for v in cases64:
                got = delta.decode_int64(delta.encode_int64(v, *geometry))
                assert got.dtype == np.int64 and np.array_equal(got, v), level
            for v in cases32:
                got = delta.decode_int32(delta.encode_int32(v, *geometry))
                assert got.dtype == np.int32 and np.array_equal(got, v), level


def test_errors_raise_format_error():
    with pytest.raises(pqfast.FormatError, match="truncated"):
        delta.decode_int64(b"\x80\x01\x04")
    with pytest.raises(pqfast.FormatError, match="forged"):
        delta.decode_int64(b"\x80\x01\x04\xff\xff\xff\xff\x0f\x00")
    with pytest.raises(pqfast.FormatError, match="multiple of 32"):
        delta.decode_int32(b"\x80\x01\x05\x01\x00")
    with pytest.raises(pqfast.FormatError, match="multiple of 128"):
        delta.encode_int64([1, 2, 3], block_size=100)
    stream = bytearray(delta.encode_int64(np.arange(100) ** 2))
    stream[6] = 70  # first miniblock's width
    with pytest.raises(pqfast.FormatError, match="bit width 70"):
        delta.decode_int64(bytes(stream))
    assert isinstance(pqfast.FormatError("x"), ValueError)


# ---- pyarrow 26 ------------------------------------------------------------------

def _write(tmp_path, table, version="1.0", **kw):
    path = tmp_path / f"t_{version}.parquet"
    pq.write_table(table, path, use_dictionary=False, compression="NONE",
                   column_encoding={name: "DELTA_BINARY_PACKED" for name in table.column_names},
                   data_page_version=version, **kw)
    return path


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_pyarrow_pages_decode(tmp_path, levels, version):
    rng = np.random.default_rng(2)
    n = 300_000
    cols = {
        "i64_sorted": np.cumsum(rng.integers(0, 1000, n)),
        "i64_random": rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64),
        "i32_random": rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32),
        "i32_small": rng.integers(-3, 3, n).astype(np.int32),
        "i64_const": np.full(n, 42, dtype=np.int64),
    }
    path = _write(tmp_path, pa.table(cols), version, data_page_size=64 * 1024)
    for level in levels:
        pqfast.set_simd_level(level)
        for i, (name, v) in enumerate(cols.items()):
            got = decode_column(path, i, v.dtype == np.int32)
            assert np.array_equal(got, v), (level, name)


def test_encoder_output_matches_pyarrow_bytes(tmp_path):
    """Our encoder writes the bytes pyarrow writes (so pyarrow reads ours identically)."""
    rng = np.random.default_rng(3)
    for dtype, enc in ((np.int64, delta.encode_int64), (np.int32, delta.encode_int32)):
        for v in (np.cumsum(rng.integers(-50, 1000, 5000)).astype(dtype),
                  rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, 3000, dtype=dtype),
                  np.arange(777, dtype=dtype)):
            path = _write(tmp_path, pa.table({"c": v}), data_page_size=1 << 30)
            (page,) = dbp_page_streams(path, 0)
            ours = enc(v)
            assert ours == page, dtype


def test_pyarrow_reads_streams_we_write(tmp_path):
    """Splice our stream into a pyarrow-written file (same length) and read it with pyarrow."""
    v = np.cumsum(np.random.default_rng(4).integers(0, 100, 1000)).astype(np.int64)
    path = _write(tmp_path, pa.table({"c": v}), data_page_size=1 << 30)
    (page,) = dbp_page_streams(path, 0)
    buf = open(path, "rb").read()
    ours = delta.encode_int64(v)
    at = buf.index(page)
    spliced = buf[:at] + ours + buf[at + len(page):]
    assert len(spliced) == len(buf)
    assert np.array_equal(pq.read_table(pa.BufferReader(spliced)).column(0).to_numpy(), v)


# ---- parquet-testing --------------------------------------------------------------

def _expect_columns(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = [h.strip() for h in rows[0]]
    return header, rows[1:]


def test_parquet_testing_delta_binary_packed(data_dir, levels):
    path = data_dir / "delta_binary_packed.parquet"
    header, rows = _expect_columns(data_dir / "delta_binary_packed_expect.csv")
    f = pq.ParquetFile(path)
    assert f.metadata.num_columns == 66
    for level in levels:
        pqfast.set_simd_level(level)
        for i in range(f.metadata.num_columns):
            name = f.schema.column(i).name
            int32 = f.schema.column(i).physical_type == "INT32"
            want = np.array([int(r[header.index(name)]) for r in rows], dtype=np.int32 if int32 else np.int64)
            got = decode_column(path, i, int32)
            assert np.array_equal(got, want), (level, name)


@pytest.mark.parametrize("name", ["delta_encoding_required_column", "delta_encoding_optional_column"])
def test_parquet_testing_delta_columns(data_dir, levels, name):
    path = data_dir / f"{name}.parquet"
    header, rows = _expect_columns(data_dir / f"{name}_expect.csv")
    f = pq.ParquetFile(path)
    checked = 0
    for level in levels:
        pqfast.set_simd_level(level)
        for i in range(f.metadata.num_columns):
            if "DELTA_BINARY_PACKED" not in f.metadata.row_group(0).column(i).encodings:
                continue
            col = f.schema.column(i)
            key = col.name.rstrip(":").strip()
            j = header.index(key)
            int32 = col.physical_type == "INT32"
            want = np.array([int(r[j]) for r in rows if r[j] != ""], dtype=np.int32 if int32 else np.int64)
            got = decode_column(path, i, int32)
            assert np.array_equal(got, want), (level, key)
            checked += 1
    assert checked >= 9


def test_parquet_testing_datapage_v2(data_dir, levels):
    path = data_dir / "datapage_v2.snappy.parquet"
    want = pq.read_table(path).column("b").drop_null().to_numpy()
    for level in levels:
        pqfast.set_simd_level(level)
        assert np.array_equal(decode_column(path, 1, True), want), level


# ---- DuckDB 2.0: INT32 miniblocks 33..64 bits wide ---------------------------------------

def test_duckdb_wide_int32_miniblocks(tmp_path, levels):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "duck.parquet"
    con = duckdb.connect()
    # Alternating extremes with many distinct values (no dictionary): the
    # int32 deltas need 33 bits in DuckDB's 64-bit arithmetic.
    con.execute(f"""COPY (SELECT (CASE WHEN i % 2 = 0 THEN 2147483647 - (hash(i) % 100000000)::BIGINT
                                       ELSE -2147483648 + (hash(i) % 100000000)::BIGINT END)::INTEGER AS v,
                                 i::BIGINT * 3 AS w
                          FROM range(100000) t(i))
                    TO '{path}' (FORMAT parquet, PARQUET_VERSION V2, COMPRESSION uncompressed)""")
    want = con.execute(f"SELECT v FROM '{path}'").fetchnumpy()["v"]
    want_w = con.execute(f"SELECT w FROM '{path}'").fetchnumpy()["w"]
    f = pq.ParquetFile(path)
    assert "DELTA_BINARY_PACKED" in f.metadata.row_group(0).column(0).encodings
    streams = dbp_page_streams(path, 0)
    widths = set()
    for s in streams:
        info = delta.stream_info(s)
        assert (info["block_size"], info["miniblocks_per_block"]) == (2048, 8)
        widths.update(_widths(s))
    assert max(widths) > 32, widths  # what this test is about
    for level in levels:
        pqfast.set_simd_level(level)
        assert np.array_equal(decode_column(path, 0, True), want), level
        assert np.array_equal(decode_column(path, 1, False), want_w), level


def _widths(stream: bytes) -> list[int]:
    """Bit widths of the used miniblocks (test helper walking a stream)."""
    r = Reader(stream, 0)
    block, mbs, total = r.varint(), r.varint(), r.varint()
    r.varint()
    vpm, left, out = block // mbs, max(total - 1, 0), []
    while left > 0:
        r.varint()
        ws = list(stream[r.p:r.p + mbs])
        r.p += mbs
        used = -(-min(left, block) // vpm)
        for w in ws[:used]:
            out.append(w)
            r.p += vpm * w // 8
        left -= min(left, block)
    return out


# ---- tpchgen-cli (arrow-rs writer) ------------------------------------------------------

def _tpchgen() -> str | None:
    import os
    import shutil
    import sys
    from pathlib import Path

    for c in (os.environ.get("PQFAST_TPCHGEN_CLI"), shutil.which("tpchgen-cli"),
              str(Path(sys.executable).parent / "tpchgen-cli")):
        if c and Path(c).is_file():
            return c
    return None


def test_tpchgen_cli_pages(tmp_path, levels):
    import subprocess

    exe = _tpchgen()
    if exe is None:
        pytest.skip("tpchgen-cli not installed (pip install tpchgen-cli, or set PQFAST_TPCHGEN_CLI)")
    cols = ["l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_shipdate"]
    subprocess.run([exe, "parquet", "-s", "0.01", "-T", "lineitem", "-c", "UNCOMPRESSED", "-o", str(tmp_path),
                    "--column-encoding", ",".join(f"{c}=DELTA_BINARY_PACKED" for c in cols)],
                   check=True, capture_output=True, timeout=300)
    path = tmp_path / "lineitem.parquet"
    f = pq.ParquetFile(path)
    table = pq.read_table(path, columns=cols)
    names = [f.schema.column(i).name for i in range(f.metadata.num_columns)]
    for level in levels:
        pqfast.set_simd_level(level)
        for c in cols:
            i = names.index(c)
            assert "DELTA_BINARY_PACKED" in f.metadata.row_group(0).column(i).encodings
            int32 = f.schema.column(i).physical_type == "INT32"
            want = table.column(c).cast(pa.int32() if int32 else pa.int64()).to_numpy()
            got = np.concatenate([decode_column_rg(path, i, rg, int32) for rg in range(f.metadata.num_row_groups)])
            assert np.array_equal(got, want), (level, c)


def decode_column_rg(path, column: int, row_group: int, int32: bool) -> np.ndarray:
    dec = delta.decode_int32 if int32 else delta.decode_int64
    return np.concatenate([dec(s) for s in dbp_page_streams(path, column, row_group)])


def test_stream_bytes_finds_delta_length_byte_array_data(data_dir, levels):
    """DELTA_LENGTH_BYTE_ARRAY = a DBP stream of lengths, then the bytes: bytes consumed must land on them."""
    path = data_dir / "delta_length_byte_array.parquet"
    f = pq.ParquetFile(path)
    want = [f"apple_banana_mango{i * i}".encode() for i in range(f.metadata.num_rows)]
    for level in levels:
        pqfast.set_simd_level(level)
        got = []
        for page in _pages(path, 0):
            info = delta.stream_info(page)
            lengths = delta.decode_int32(page)
            data = page[info["stream_bytes"]:]
            assert int(lengths.sum()) == len(data), level
            offsets = np.concatenate([[0], np.cumsum(lengths)])
            got += [data[offsets[i]:offsets[i + 1]] for i in range(len(lengths))]
        assert got == want, level


def _pages(path, column):
    """Value bytes of each data page, whatever the encoding (test helper)."""
    return dbp_page_streams(path, column, encoding=None)


# ---- the CLI ----------------------------------------------------------------------------

def test_bench_delta_json_rows():
    import json

    from conftest import run_cli
    from pqfast.benches.delta import find_peer

    proc = run_cli("bench", "delta", "--quick", "--json")
    every = [json.loads(line) for line in proc.stdout.splitlines()]
    rows = [r for r in every if "type" in r]
    strings = [r for r in every if "encoding" in r]
    assert len(rows) + len(strings) == len(every)
    skeys = {"encoding", "dataset", "implementation", "gbytes_per_s", "mvalues_per_s", "vs_arrow"}
    assert strings and all(skeys <= r.keys() for r in strings)
    sgot = {(r["encoding"], r["dataset"], r["implementation"]) for r in strings}
    for e in ("DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"):
        for d in ("short", "urls", "comment", "uuid"):
            for impl in ("scalar", "memcpy", "encode", "scalar views"):
                assert (e, d, impl) in sgot, (e, d, impl)
    keys = {"type", "width_class", "implementation", "gvalues_per_s", "ns_per_value"}
    assert rows and all(keys <= r.keys() for r in rows)
    got = {(r["type"], r["width_class"], r["implementation"]) for r in rows}
    for t in ("INT32", "INT64"):
        for c in ("0", "1-8", "9-16", "17-32", "33-64"):
            assert (t, c, "scalar") in got and (t, c, "memcpy") in got
            assert (t, c, pqfast.simd_level()) in got or pqfast.simd_level() == "sse4"
    if find_peer() is not None:
        assert ("INT64", "1-8", "arrow") in got
        assert all(r["vs_arrow"] for r in rows if (r["type"], r["width_class"]) != ("INT32", "33-64"))
        assert ("DELTA_BYTE_ARRAY", "urls", "arrow") in sgot
        assert all(r["vs_arrow"] for r in strings if not r["implementation"].startswith("arrow")
                   and r["implementation"] != "memcpy")
