"""Builders of hostile Parquet files: small inputs that announce huge outputs,
bombs, footers of a million columns, bad decimals and names.

Each builder writes one file and returns its path. The files are written
byte by byte (thrift_compact.py), so they can say things no real writer says.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pqfast

from thrift_compact import T_BINARY as BINARY, T_I32 as I32, T_I64 as I64, T_LIST as LIST, T_STRUCT as STRUCT
from thrift_compact import _varint
from thrift_compact import encode_struct as struct_bytes


# Parquet enums.
INT32_T, INT64_T, BYTE_ARRAY_T, FLBA_T = 1, 2, 6, 7
REQUIRED = 0
PLAIN, RLE, DELTA_BYTE_ARRAY, RLE_DICTIONARY = 0, 3, 7, 8
UNCOMPRESSED, ZSTD = 0, 6


def page(kind: int, body: bytes, num_values: int, encoding: int, usize: int | None = None) -> bytes:
    """A page header + body. kind: 0 data page v1, 2 dictionary page."""
    usize = len(body) if usize is None else usize
    fields = [(1, I32, kind), (2, I32, usize), (3, I32, len(body))]
    if kind == 0:
        fields.append((5, STRUCT, [(1, I32, num_values), (2, I32, encoding), (3, I32, RLE), (4, I32, RLE)]))
    else:
        fields.append((7, STRUCT, [(1, I32, num_values), (2, I32, encoding)]))
    return struct_bytes(fields) + body


def schema_element(name, ptype=None, type_length=None, children=None, converted=None, scale=None,
                   precision=None) -> list:
    f = []
    if ptype is not None:
        f.append((1, I32, ptype))
    if type_length is not None:
        f.append((2, I32, type_length))
    if children is None:
        f.append((3, I32, REQUIRED))
    f.append((4, BINARY, name))
    if children is not None:
        f.append((5, I32, children))
    if converted is not None:
        f.append((6, I32, converted))
    if scale is not None:
        f.append((7, I32, scale))
    if precision is not None:
        f.append((8, I32, precision))
    return f


def write_file(path: Path, columns, num_rows: int, schema=None) -> Path:
    """columns: [(schema element fields, ptype, codec, [page bytes], has_dictionary)]."""
    body = bytearray(b"PAR1")
    chunks = []
    for elem, ptype, codec, pages, has_dict in columns:
        start = len(body)
        for p in pages:
            body += p
        name = dict((fid, v) for fid, _, v in elem)[4]
        meta = [(1, I32, ptype), (2, LIST, (I32, [PLAIN, RLE, RLE_DICTIONARY])), (3, LIST, (BINARY, [name])),
                (4, I32, codec), (5, I64, num_rows), (6, I64, len(body) - start), (7, I64, len(body) - start),
                (9, I64, start)]
        if has_dict:
            meta.append((11, I64, start))
        chunks.append([(2, I64, start), (3, STRUCT, meta)])
    if schema is None:
        schema = [schema_element("schema", children=len(columns))] + [c[0] for c in columns]
    rg = [(1, LIST, (STRUCT, chunks)), (2, I64, len(body)), (3, I64, num_rows)]
    footer = struct_bytes([(1, I32, 1), (2, LIST, (STRUCT, schema)), (3, I64, num_rows),
                           (4, LIST, (STRUCT, [rg] if columns else [])), (6, BINARY, "hostile_files.py")])
    body += footer + struct.pack("<I", len(footer)) + b"PAR1"
    path.write_bytes(bytes(body))
    return path


def zstd_zero_frame(size: int, head: bytes = b"") -> bytes:
    """A zstd frame of `head` (a raw block) then `size` zero bytes made of
    RLE blocks: 4 bytes per 128 KiB."""
    out = bytearray(struct.pack("<I", 0xFD2FB528))
    out.append(0x00)  # no content size, not single segment: a window descriptor follows
    out.append(0x38)  # window 2^(10+7) = 128 KiB
    if head:
        out += struct.pack("<I", (len(head) << 3))[:3] + head  # raw block, not last
    left = size
    while True:
        n = min(left, 128 * 1024)
        left -= n
        last = 1 if left == 0 else 0
        header = last | (1 << 1) | (n << 3)  # block type 1 = RLE
        out += struct.pack("<I", header)[:3] + b"\x00"
        if last:
            return bytes(out)


def zstd_raw_frame(data: bytes) -> bytes:
    """`data` as one raw (stored) zstd block: a valid zstd page body."""
    return struct.pack("<I", 0xFD2FB528) + b"\x00\x38" + struct.pack("<I", 1 | (len(data) << 3))[:3] + data


def _dict_indices_run(n: int) -> bytes:
    """RLE_DICTIONARY indices: bit width 0, one run of n copies of index 0."""
    return b"\x00" + _varint(n << 1)


def rle_run_bomb(path: Path, pages: int = 100, run: int = 1 << 24) -> Path:
    """Two dictionary-encoded INT64 columns, each `pages` pages of one
    `run`-long RLE run: a few KB announcing 2 x 13 GiB of int64."""
    cols = []
    for name in ("a", "b"):
        dict_page = page(2, struct.pack("<q", 42), 1, PLAIN)
        data = [page(0, _dict_indices_run(run), run, RLE_DICTIONARY) for _ in range(pages)]
        cols.append((schema_element(name, INT64_T), INT64_T, UNCOMPRESSED, [dict_page] + data, True))
    return write_file(path, cols, pages * run)


def wide_fixed_bomb(path: Path, width: int = 16 << 20, rows: int = 400) -> Path:
    """FIXED_LEN_BYTE_ARRAY of width 16 MiB, one dictionary entry (zstd), 400
    rows: under a KB announcing 6.5 GiB."""
    dict_page = page(2, zstd_zero_frame(width), 1, PLAIN, usize=width)
    data = page(0, zstd_raw_frame(_dict_indices_run(rows)), rows, RLE_DICTIONARY, usize=len(_dict_indices_run(rows)))
    col = (schema_element("w", FLBA_T, type_length=width), FLBA_T, ZSTD, [dict_page, data], True)
    return write_file(path, [col], rows)


def delta_prefix_stream(n: int = 90_000, suffix: int = 1) -> bytes:
    """A DELTA_BYTE_ARRAY stream whose every value is the whole value before
    plus `suffix` bytes: n values of total size ~ suffix * n^2 / 2."""
    import numpy as np
    prefixes = pqfast.delta.encode_int32(np.arange(n, dtype=np.int32) * suffix)
    lengths = pqfast.delta.encode_int32(np.full(n, suffix, dtype=np.int32))
    return prefixes + lengths + b"x" * (n * suffix)


def delta_prefix_bomb(path: Path, n: int = 90_000) -> Path:
    """A DELTA_BYTE_ARRAY page whose values double as prefixes: ~4 GiB out."""
    stream = delta_prefix_stream(n)
    col = (schema_element("s", BYTE_ARRAY_T), BYTE_ARRAY_T, UNCOMPRESSED,
           [page(0, stream, n, DELTA_BYTE_ARRAY)], False)
    return write_file(path, [col], n)


def zstd_page_bomb(path: Path, pages: int = 6, size: int = (1 << 30) - 64) -> Path:
    """BYTE_ARRAY pages of one value each, 1 GiB of zeros uncompressed (zstd
    RLE blocks): a 200 KB file that decodes to `pages` GiB."""
    body = zstd_zero_frame(size, head=struct.pack("<I", size))
    data = [page(0, body, 1, PLAIN, usize=size + 4) for _ in range(pages)]
    col = (schema_element("z", BYTE_ARRAY_T), BYTE_ARRAY_T, ZSTD, data, False)
    return write_file(path, [col], pages)


def empty_page_bomb(path: Path, pages: int = 40, size: int = 256 << 20) -> Path:
    """INT32 data pages of one value whose bodies inflate to 256 MiB each."""
    body = zstd_zero_frame(size)
    data = [page(0, body, 1, PLAIN, usize=size) for _ in range(pages)]
    col = (schema_element("e", INT32_T), INT32_T, ZSTD, data, False)
    return write_file(path, [col], pages)


def many_columns_footer(path: Path, n: int = 1_000_000) -> Path:
    """A footer whose schema lists n INT32 columns (and no row group)."""
    schema = [schema_element("schema", children=n)] + [schema_element(f"c{i}", INT32_T) for i in range(n)]
    return write_file(path, [], 0, schema=schema)


def bad_decimal(path: Path, precision: int) -> Path:
    """An INT64 DECIMAL column (converted type 5) of the given precision."""
    elem = schema_element("d", INT64_T, converted=5, scale=2, precision=precision)
    col = (elem, INT64_T, UNCOMPRESSED, [page(0, struct.pack("<3q", 1, 2, 3), 3, PLAIN)], False)
    return write_file(path, [col], 3)


def non_utf8_name(path: Path) -> Path:
    """An INT32 column named b'caf\\xe9' (Latin-1, not UTF-8)."""
    elem = schema_element(b"caf\xe9", INT32_T)
    col = (elem, INT32_T, UNCOMPRESSED, [page(0, struct.pack("<3i", 1, 2, 3), 3, PLAIN)], False)
    return write_file(path, [col], 3)


def wide_binary_bomb(path: Path, width: int = 16 << 20, rows: int = 400) -> Path:
    """BYTE_ARRAY: one 16 MiB dictionary entry (zstd), 400 rows: 6.25 GiB out."""
    dict_page = page(2, zstd_zero_frame(width, head=struct.pack("<I", width)), 1, PLAIN, usize=width + 4)
    data = page(0, zstd_raw_frame(_dict_indices_run(rows)), rows, RLE_DICTIONARY, usize=len(_dict_indices_run(rows)))
    col = (schema_element("b", BYTE_ARRAY_T), BYTE_ARRAY_T, ZSTD, [dict_page, data], True)
    return write_file(path, [col], rows)
