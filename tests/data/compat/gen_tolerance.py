"""Generators of the issue-34 part C test files (tolerance): each
`make_<name>(out_dir)` writes tests/data/compat/<name>.parquet. Run through
make_compat.py.

The files are written byte by byte with our Thrift compact writer
(tests/python/thrift_compact.py), so each holds exactly the shape other
writers produced: Thrift fields of an unexpected wire type (fastparquet 0.8's
integer key-value metadata), page indexes that contradict their pages
(parquetjs, Impala, parquet-go), a page announcing more values than it holds,
an INTERVAL dictionary column.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from thrift_compact import T_BINARY as BIN, T_I32 as I32, T_I64 as I64  # noqa: E402
from thrift_compact import T_LIST as LIST, T_STRUCT as STRUCT, T_TRUE as BOOL  # noqa: E402
from thrift_compact import Reader, encode_struct  # noqa: E402

# Parquet enums.
INT32, FLBA = 1, 7
REQUIRED, OPTIONAL = 0, 1
PLAIN, PLAIN_DICTIONARY, RLE = 0, 2, 3
DATA_PAGE, DICTIONARY_PAGE = 0, 2
INTERVAL = 21


# ---- the pieces of a file ----------------------------------------------------------------

def int32_leaf(name: str, rep: int = REQUIRED) -> list:
    return [(1, I32, INT32), (3, I32, rep), (4, BIN, name)]


def rle_levels(levels: list[int]) -> bytes:
    """Definition levels (bit width 1) as one bit-packed run, 4-byte length first."""
    groups = (len(levels) + 7) // 8
    body = bytearray([(groups << 1) | 1])
    for g in range(groups):
        byte = 0
        for k, v in enumerate(levels[g * 8:g * 8 + 8]):
            byte |= v << k
        body.append(byte)
    return struct.pack("<I", len(body)) + bytes(body)


def data_page(values: list, num_values: int | None = None, nulls_at=(), extra_header=(), extra_data_header=(),
              encoding: int = PLAIN, body: bytes | None = None) -> bytes:
    """A DATA_PAGE (v1) of INT32 values (None: a null, the column then optional)."""
    if body is None:
        present = [v for v in values if v is not None]
        body = b"".join(struct.pack("<i", v) for v in present)
        if nulls_at or any(v is None for v in values):
            body = rle_levels([0 if v is None else 1 for v in values]) + body
    n = len(values) if num_values is None else num_values
    dph = [(1, I32, n), (2, I32, encoding), (3, I32, RLE), (4, I32, RLE), *extra_data_header]
    header = [(1, I32, DATA_PAGE), (2, I32, len(body)), (3, I32, len(body)), (5, STRUCT, dph), *extra_header]
    return encode_struct(header) + body


def write(path: Path, schema: list, columns: list[list[bytes]], num_rows: int, kv=None,
          indexes=None, chunk_values=None) -> Path:
    """A file of one row group: columns[i] is the list of page bytes of leaf
    i. indexes[i] (optional): (offset_index, column_index) builders, each
    f(page_offsets, page_lengths, page_header_lengths) -> struct fields or
    None; they are written after the pages."""
    out = bytearray(b"PAR1")
    chunks, page_info = [], []
    for i, pages in enumerate(columns):
        start = len(out)
        offs, lens = [], []
        for p in pages:
            offs.append(len(out))
            lens.append(len(p))
            out += p
        page_info.append((offs, lens))
        values = chunk_values[i] if chunk_values else num_rows
        elem = [e for e in schema if any(k == 1 for k, _, _ in e)][i]  # leaf i
        name = [v for k, _, v in elem if k == 4][0]
        ptype = [v for k, _, v in elem if k == 1][0]
        has_dict = Reader(pages[0]).struct()[1][1] == DICTIONARY_PAGE
        cmd = [(1, I32, ptype), (2, LIST, (I32, [PLAIN, RLE])), (3, LIST, (BIN, [name])), (4, I32, 0),
               (5, I64, values), (6, I64, len(out) - start), (7, I64, len(out) - start),
               (9, I64, offs[1] if has_dict else start)]
        if has_dict:
            cmd.append((11, I64, start))
        chunks.append([(2, I64, start), (3, STRUCT, cmd)])
    for i, spec in enumerate(indexes or []):
        if spec is None:
            continue
        offs, lens = page_info[i]
        oi, ci = spec
        for fid, builder in ((4, oi), (6, ci)):
            if builder is None:
                continue
            b = encode_struct(builder(offs, lens))
            chunks[i] += [(fid, I64, len(out)), (fid + 1, I32, len(b))]
            out += b
    rg = [(1, LIST, (STRUCT, chunks)), (2, I64, len(out) - 4), (3, I64, num_rows)]
    meta = [(1, I32, 1), (2, LIST, (STRUCT, schema)), (3, I64, num_rows), (4, LIST, (STRUCT, [rg])),
            (6, BIN, "pqfast gen_tolerance")]
    if kv is not None:
        meta.append((5, LIST, (STRUCT, kv)))
    footer = encode_struct(meta)
    out += footer + struct.pack("<I", len(footer)) + b"PAR1"
    path.write_bytes(bytes(out))
    return path


def root(n: int) -> list:
    return [(4, BIN, "schema"), (5, I32, n)]


def offset_index(first_rows, offsets=None, sizes=None):
    """An OffsetIndex builder: the pages where they are unless told otherwise."""
    def build(offs, lens):
        o = offs if offsets is None else offsets
        s = lens if sizes is None else sizes(lens)
        return [(1, LIST, (STRUCT, [[(1, I64, a), (2, I32, b), (3, I64, r)] for a, b, r in zip(o, s, first_rows)]))]
    return build


def column_index(mins, maxs, boundary_order: int | None = 0):
    def build(offs, lens):
        f = [(1, LIST, (BOOL, [False] * len(mins))),
             (2, LIST, (BIN, [struct.pack("<i", v) for v in mins])),
             (3, LIST, (BIN, [struct.pack("<i", v) for v in maxs]))]
        if boundary_order is not None:
            f.append((4, I32, boundary_order))
        return f
    return build


PAGES = [list(range(0, 10)), list(range(10, 20)), list(range(20, 30))]


# ---- the files -----------------------------------------------------------------------------

def make_kv_int_value(out: Path) -> Path:
    """fastparquet 0.8 wrote non-string key-value metadata values as Thrift
    integers: KeyValue.value of wire type i64 (skipped by Thrift readers:
    pyarrow keeps the key with an empty value); also an unknown field 9 of
    KeyValue and of FileMetaData... typed as a list."""
    kv = [[(1, BIN, "fastparquet.version"), (2, I64, 8)],
          [(1, BIN, "writer"), (2, BIN, "fastparquet 0.8"), (9, LIST, (I32, [1, 2]))]]
    pages = [[data_page([1, 2, 3, 4, 5])]]
    return write(out / "kv_int_value.parquet", [root(1), int32_leaf("a")], pages, 5, kv=kv)


def make_page_header_mistyped(out: Path) -> Path:
    """Page headers whose optional fields arrive with another wire type (crc
    as a binary, DataPageHeader.statistics as an i32) and an unknown field:
    skipped, as Thrift readers skip them."""
    pages = [[data_page([1, 2, 3], extra_header=[(4, BIN, b"crc?"), (12, I64, 7)],
                       extra_data_header=[(5, I32, 99)]),
             data_page([4, 5], extra_header=[(4, LIST, (I32, [1]))])]]
    return write(out / "page_header_mistyped.parquet", [root(1), int32_leaf("a")], pages, 5)


def make_index_parquetjs(out: Path) -> Path:
    """parquetjs's page index: every page's first_row_index 0 (column a), a
    ColumnIndex without boundary_order (column b). Ignored, never an error."""
    a = [data_page(v) for v in PAGES]
    b = [data_page([x * 2 for x in v]) for v in PAGES]
    idx = [(offset_index([0, 0, 0]), column_index([0, 10, 20], [9, 19, 29])),
           (offset_index([0, 10, 20]), column_index([0, 20, 40], [18, 38, 58], boundary_order=None))]
    return write(out / "index_parquetjs.parquet", [root(2), int32_leaf("a"), int32_leaf("b")], [a, b], 30,
                 indexes=idx)


def make_index_impala(out: Path) -> Path:
    """Impala's page index of an empty/invalid page: a location at byte -1
    of 0 bytes. Ignored."""
    a = [data_page(v) for v in PAGES]

    def oi(offs, lens):
        return offset_index([0, 10, 20, 30])(offs + [-1], lens + [0])
    idx = [(oi, column_index([0, 10, 20, 0], [9, 19, 29, 0]))]
    return write(out / "index_impala.parquet", [root(1), int32_leaf("a")], [a], 30, indexes=idx)


def make_index_parquetgo(out: Path) -> Path:
    """An OffsetIndex whose compressed_page_size leaves out the page header
    (the page runs past the length the index gives it), with a ColumnIndex
    that prunes: a filtered read falls back to the whole chunk."""
    a = [data_page(v) for v in PAGES]
    idx = [(offset_index([0, 10, 20], sizes=lambda lens: [n - 20 for n in lens]),
            column_index([0, 10, 20], [9, 19, 29]))]
    return write(out / "index_parquetgo.parquet", [root(1), int32_leaf("a")], [a], 30, indexes=idx)


def make_page_count_exceeds(out: Path) -> Path:
    """A required column's page announcing more values (8) than its body holds
    (5) and the row group has (5)."""
    pages = [[data_page([1, 2, 3, 4, 5], num_values=8)]]
    return write(out / "page_count_exceeds.parquet", [root(1), int32_leaf("a")], pages, 5)


def make_interval_dictionary(out: Path) -> Path:
    """An INTERVAL column (FIXED_LEN_BYTE_ARRAY(12), converted type INTERVAL)
    dictionary-encoded, as parquet-mr writes it."""
    vals = [struct.pack("<III", m, d, ms) for m, d, ms in ((1, 2, 3), (0, 30, 0), (12, 0, 500))]
    dict_body = b"".join(vals)
    dpage = encode_struct([(1, I32, DICTIONARY_PAGE), (2, I32, len(dict_body)), (3, I32, len(dict_body)),
                           (7, STRUCT, [(1, I32, 3), (2, I32, PLAIN_DICTIONARY)])]) + dict_body
    ids = [0, 1, 2, 1, 0]
    # bit width 2, one bit-packed run of 8 ids (5 used)
    packed = 0
    for k, v in enumerate(ids):
        packed |= v << (2 * k)
    body = bytes([2, (1 << 1) | 1]) + packed.to_bytes(2, "little")
    leaf = [(1, I32, FLBA), (2, I32, 12), (3, I32, OPTIONAL), (4, BIN, "iv"), (6, I32, INTERVAL)]
    body = rle_levels([1] * 5) + body
    dp = encode_struct([(1, I32, DATA_PAGE), (2, I32, len(body)), (3, I32, len(body)),
                        (5, STRUCT, [(1, I32, 5), (2, I32, PLAIN_DICTIONARY), (3, I32, RLE), (4, I32, RLE)])]) + body
    return write(out / "interval_dictionary.parquet", [root(1), leaf], [[dpage, dp]], 5)


def make_unknown_required(out: Path) -> Path:
    """A REQUIRED column of logical type UNKNOWN over INTERVAL-typed
    dictionary pages (pyarrow: a non-nullable null column; pqfast raised a
    bare ValueError making that field)."""
    vals = [struct.pack("<III", m, d, ms) for m, d, ms in ((1, 2, 3), (0, 30, 0), (12, 0, 500))]
    dict_body = b"".join(vals)
    dpage = encode_struct([(1, I32, DICTIONARY_PAGE), (2, I32, len(dict_body)), (3, I32, len(dict_body)),
                           (7, STRUCT, [(1, I32, 3), (2, I32, PLAIN_DICTIONARY)])]) + dict_body
    packed = 0
    for k, v in enumerate([0, 1, 2, 1, 0]):
        packed |= v << (2 * k)
    body = bytes([2, (1 << 1) | 1]) + packed.to_bytes(2, "little")
    dp = encode_struct([(1, I32, DATA_PAGE), (2, I32, len(body)), (3, I32, len(body)),
                        (5, STRUCT, [(1, I32, 5), (2, I32, PLAIN_DICTIONARY), (3, I32, RLE), (4, I32, RLE)])]) + body
    leaf = [(1, I32, FLBA), (2, I32, 12), (3, I32, REQUIRED), (4, BIN, "iv"), (6, I32, INTERVAL),
            (10, STRUCT, [(11, STRUCT, [])])]
    return write(out / "unknown_required.parquet", [root(2), leaf, int32_leaf("a")],
                 [[dpage, dp], [data_page([1, 2, 3, 4, 5])]], 5)
