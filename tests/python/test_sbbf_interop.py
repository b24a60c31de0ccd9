"""Filters written by pyarrow 26 and DuckDB 2.0 answer the same in pqfast as in
Arrow C++ 26 (libparquet from the pyarrow wheel, via the arrow_sbbf_probe peer
driver), and the bitset pqfast builds for the same values, size and folding is
byte-identical to pyarrow's. Filters are located with pyarrow's metadata."""

import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import pqfast

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

TYPES = {  # column -> (physical type, type_length)
    "i32": ("INT32", 0),
    "i64": ("INT64", 0),
    "f32": ("FLOAT", 0),
    "dbl": ("DOUBLE", 0),
    "s": ("BYTE_ARRAY", 0),
    "flba": ("FIXED_LEN_BYTE_ARRAY", 16),
    "u": ("FIXED_LEN_BYTE_ARRAY", 16),
}


def arrow_probe_tool() -> Path:
    build = os.environ.get("PQFAST_BUILD_DIR")
    tool = Path(build) / "peers" / "arrow_sbbf_probe" if build else None
    if tool is None or not tool.exists():
        pytest.skip("arrow_sbbf_probe not built (configure with -DPQFAST_PEERS=ON; scripts/test.sh does)")
    return tool


def plain_encode(values, physical_type: str) -> bytes:
    if physical_type == "INT32":
        return np.asarray(values, dtype="<i4").tobytes()
    if physical_type == "INT64":
        return np.asarray(values, dtype="<i8").tobytes()
    if physical_type == "FLOAT":
        return np.asarray(values, dtype="<f4").tobytes()
    if physical_type == "DOUBLE":
        return np.asarray(values, dtype="<f8").tobytes()
    if physical_type == "BYTE_ARRAY":
        out = bytearray()
        for v in values:
            b = v.encode() if isinstance(v, str) else bytes(v)
            out += struct.pack("<I", len(b)) + b
        return bytes(out)
    return b"".join(bytes(v) for v in values)


def arrow_answers(tool, path, offset, length, physical_type, type_length, values):
    proc = subprocess.run(
        [str(tool), str(path), str(offset), str(length if length is not None else -1), physical_type, str(type_length)],
        input=plain_encode(values, physical_type), capture_output=True, check=True,
    )
    lines = proc.stdout.decode().split()
    hashes = np.array([int(h, 16) for h in lines[0::2]], dtype=np.uint64)
    verdicts = np.array([v == "1" for v in lines[1::2]])
    return hashes, verdicts


def column_values(table, name):
    arr = table.column(name).combine_chunks()
    if isinstance(arr, pa.ExtensionArray):
        arr = arr.storage
    return arr.to_pylist()


def absent_values(physical_type, present, n=300, seed=0):
    rng = np.random.default_rng(seed)
    if physical_type == "INT32":
        return [int(x) for x in rng.integers(10**8, 2**31 - 1, n)]
    if physical_type == "INT64":
        return [int(x) for x in rng.integers(2**50, 2**62, n)]
    if physical_type in ("FLOAT", "DOUBLE"):
        return [float(x) for x in rng.standard_normal(n) * 1e9 + 0.5]
    if physical_type == "BYTE_ARRAY":
        return [f"absent-{i}" for i in range(n)]
    return [rng.integers(0, 256, 16, dtype=np.uint8).tobytes() for _ in range(n)]


def chunks_with_filters(path: Path):
    """(row group, column index, column chunk metadata, the chunk's values) per filtered chunk."""
    md = pq.read_metadata(path)
    table = pq.read_table(path)
    start = 0
    for rg in range(md.num_row_groups):
        rows = md.row_group(rg).num_rows
        for c in range(md.num_columns):
            cc = md.row_group(rg).column(c)
            if cc.bloom_filter_offset is not None:
                yield rg, c, cc, column_values(table, cc.path_in_schema)[start : start + rows]
        start += rows


def check_file(path: Path, columns, each_level=True):
    """For every row group and column with a filter: equal hashes and verdicts."""
    tool = arrow_probe_tool()
    data = path.read_bytes()
    checked = 0
    for rg, c, cc, values in chunks_with_filters(path):
        name = cc.path_in_schema
        if name not in columns:
            continue
        physical_type, type_length = TYPES[name]
        present = [v for v in values if v is not None]
        queries = present + absent_values(physical_type, present, seed=rg * 31 + c)
        length = cc.bloom_filter_length
        blob = data[cc.bloom_filter_offset : cc.bloom_filter_offset + (length or len(data))]
        f = pqfast.Sbbf.parse(blob)
        a_hashes, a_verdicts = arrow_answers(tool, path, cc.bloom_filter_offset, length, physical_type, type_length, queries)
        ours = pqfast.hash_values(queries, physical_type, type_length or None)
        assert np.array_equal(ours, a_hashes), f"{path.name} rg{rg} {name}: hashes differ"
        levels = pqfast.available_simd_levels() if each_level else [pqfast.simd_level()]
        saved = pqfast.simd_level()
        try:
            for level in levels:
                pqfast.set_simd_level(level)
                got = f.check(queries, physical_type, type_length or None)
                assert np.array_equal(got, a_verdicts), f"{path.name} rg{rg} {name} [{level}]: verdicts differ"
        finally:
            pqfast.set_simd_level(saved)
        assert a_verdicts[: len(present)].all(), "an inserted value must never be absent"
        assert not a_verdicts[len(present) :].all(), "absent values should mostly be excluded"
        checked += 1
    return checked


def make_table(n=20000, seed=1):
    rng = np.random.default_rng(seed)
    ids = rng.permutation(n * 10)[:n]
    return pa.table({
        "i32": pa.array(ids.astype(np.int32)),
        "i64": pa.array(ids.astype(np.int64) * 1_000_003),
        "f32": pa.array((ids / 7).astype(np.float32)),
        "dbl": pa.array(ids / 3.0),
        "s": pa.array([f"key-{i}" for i in ids]),
        "flba": pa.array([int(i).to_bytes(16, "little") for i in ids], type=pa.binary(16)),
    })


@pytest.mark.parametrize("fpp", [0.01, 0.1])
def test_pyarrow_files_answer_like_arrow_cpp_and_bitsets_are_identical(tmp_path, fpp):
    table = make_table()
    ndv = 15000
    path = tmp_path / "pa.parquet"
    opts = {name: {"ndv": ndv, "fpp": fpp} for name in ["i32", "i64", "f32", "dbl", "s", "flba"]}
    pq.write_table(table, path, bloom_filter_options=opts, row_group_size=8000)
    assert check_file(path, TYPES) == 3 * 6

    # Byte-identical: same values, Arrow's size for (ndv, fpp), then Arrow's fold.
    data = path.read_bytes()
    for rg, _, cc, values in chunks_with_filters(path):
        physical_type, type_length = TYPES[cc.path_in_schema]
        ours = pqfast.Sbbf.for_ndv(ndv, fpp)
        ours.insert(values, physical_type, type_length or None)
        ours.fold(fpp)
        blob = data[cc.bloom_filter_offset : cc.bloom_filter_offset + cc.bloom_filter_length]
        assert ours.serialize() == blob, f"rg{rg} {cc.path_in_schema}: bitset differs from pyarrow's"


def test_duckdb_files_answer_like_arrow_cpp(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "dd.parquet"
    duckdb.sql(f"""COPY (SELECT (range % 700)::INTEGER AS i32, (range % 700)::BIGINT * 1000003 AS i64,
                   ((range % 700)::DOUBLE / 3)::FLOAT AS f32, (range % 700)::DOUBLE / 3 AS dbl,
                   'k' || (range % 700)::VARCHAR AS s, md5_number((range % 700)::VARCHAR)::UUID AS u
                   FROM range(30000)) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 10000)""")
    assert check_file(path, TYPES) == 3 * 6
    # DuckDB's own probe agrees with pqfast's verdicts on a sample.
    con = duckdb.connect()
    md = pq.read_metadata(path)
    data = path.read_bytes()
    cc = md.row_group(0).column(1)
    f = pqfast.Sbbf.parse(data[cc.bloom_filter_offset : cc.bloom_filter_offset + cc.bloom_filter_length])
    for v in [0, 1000003, 699 * 1000003, 5, 123456789]:
        excluded = con.execute(
            f"SELECT bloom_filter_excludes FROM parquet_bloom_probe('{path}', 'i64', {v}) WHERE row_group_id = 0"
        ).fetchone()[0]
        assert excluded == (not f.check([v], "INT64")[0]), v


def test_parquet_testing_bloom_files(data_dir):
    """parquet-mr 1.13 (no bloom_filter_length) and parquet-rs files from parquet-testing."""
    present = ["Hello", "This is", "a", "test", "How", "are you", "doing ", "today", "the quick",
               "brown fox", "jumps", "over", "the lazy", "dog"]
    absent = ["NOT_EXISTS", "Hello_Not_Exists", "doing"]
    tool = arrow_probe_tool()
    for name, offset, length in [("data_index_bloom_encoding_stats.parquet", 192, None),
                                 ("data_index_bloom_encoding_with_length.parquet", 253, 2064)]:
        path = data_dir / name
        cc = pq.read_metadata(path).row_group(0).column(0)
        assert cc.bloom_filter_offset == offset and cc.bloom_filter_length == length
        data = path.read_bytes()
        f = pqfast.Sbbf.parse(data[offset:])
        ours = f.check(present + absent, "BYTE_ARRAY")
        _, theirs = arrow_answers(tool, path, offset, length, "BYTE_ARRAY", 0, present + absent)
        assert ours.tolist() == theirs.tolist() == [True] * len(present) + [False] * len(absent)
