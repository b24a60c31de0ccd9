"""Writes the seeds of fuzz/nested_chunk_fuzz.cc: nested columns written by
pyarrow (shapes 0-3 of the target), each leaf's chunk cut out of the file.
Run: .venv/bin/python fuzz/make_nested_seeds.py"""

from __future__ import annotations

import io
import random
import struct
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

OUT = Path(__file__).parent / "corpus" / "nested_chunk_fuzz"
CODECS = {"none": 0, "snappy": 1}  # index into the target's codec table


def chunks(data: bytes) -> list[bytes]:
    meta = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0)
    out = []
    for i in range(meta.num_columns):
        c = meta.column(i)
        start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
        out.append(data[start:start + c.total_compressed_size])
    return out


def seed(shape: int, table: pa.Table, codec: str, **kw) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, compression=codec, **kw)
    rows = table.num_rows
    out = bytes([shape, CODECS[codec], rows & 0xFF, rows >> 8])
    for c in chunks(buf.getvalue()):
        out += struct.pack("<H", len(c)) + c
    return out


def main() -> None:
    rng = random.Random(7)
    n = 60

    def maybe(v, p=0.15):
        return None if rng.random() < p else v

    tables = {
        0: pa.table({"l": pa.array([maybe([maybe(rng.randrange(99)) for _ in range(rng.randrange(4))])
                                    for _ in range(n)], pa.list_(pa.int64()))}),
        1: pa.table({"l": pa.array([maybe([maybe([maybe(rng.randrange(9)) for _ in range(rng.randrange(3))])
                                           for _ in range(rng.randrange(3))]) for _ in range(n)],
                                   pa.list_(pa.list_(pa.int32())))}),
        2: pa.table({"s": pa.array([maybe({"a": maybe(rng.randrange(9)),
                                           "b": maybe([maybe(b"x" * rng.randrange(3)) for _ in range(rng.randrange(3))])})
                                    for _ in range(n)],
                                   pa.struct([("a", pa.int32()), ("b", pa.list_(pa.binary()))]))}),
        3: pa.table({"m": pa.array([maybe([(b"k%d" % j, maybe(j)) for j in range(rng.randrange(3))]) for _ in range(n)],
                                   pa.map_(pa.binary(), pa.int64()))}),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    k = 0
    for shape, t in tables.items():
        for codec in CODECS:
            for kw in ({}, {"data_page_version": "2.0", "data_page_size": 64, "write_batch_size": 8},
                       {"use_dictionary": False, "data_page_size": 128, "write_batch_size": 16}):
                (OUT / f"seed{k:03d}").write_bytes(seed(shape, t, codec, **kw))
                k += 1
    print(f"{k} seeds in {OUT}")


if __name__ == "__main__":
    main()
