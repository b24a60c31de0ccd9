"""Generators of the issue-34 part A test files (silent wrong values and
types): each `make_<name>(out_dir)` writes tests/data/compat/<name>.parquet.

The files are written byte by byte with our Thrift compact writer
(tests/python/thrift_compact.py) so that they hold exactly the legacy shape
a test needs: BIT_PACKED level streams as Impala wrote them, data page v2 as
parquet-cpp 1.5 wrote them, INT96 values at any Julian day, empty groups,
duplicate names, null-typed columns. Run through make_compat.py.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from thrift_compact import T_BINARY as BIN, T_I32 as I32, T_I64 as I64  # noqa: E402
from thrift_compact import T_LIST as LIST, T_STRUCT as STRUCT, T_TRUE as BOOL  # noqa: E402
from thrift_compact import encode_struct  # noqa: E402

# Parquet enums.
BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FLBA = range(8)
REQUIRED, OPTIONAL, REPEATED = range(3)
PLAIN, RLE, BIT_PACKED = 0, 3, 4
UNCOMPRESSED, SNAPPY = 0, 1
DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 2, 3


# ---- the pieces of a file ----------------------------------------------------------------

def leaf(name, ptype, rep=OPTIONAL, converted=None, logical=None, type_length=None) -> list:
    f = [(1, I32, ptype), (3, I32, rep), (4, BIN, name)]
    if type_length is not None:
        f.append((2, I32, type_length))
    if converted is not None:
        f.append((6, I32, converted))
    if logical is not None:
        f.append((10, STRUCT, logical))
    return f


def group(name, children: int, rep=OPTIONAL, converted=None) -> list:
    f = [(4, BIN, name), (5, I32, children)]
    if rep is not None:
        f.append((3, I32, rep))
    if converted is not None:
        f.append((6, I32, converted))
    return f


def bit_pack_lsb(values, width: int) -> bytes:
    """Values packed from the least significant bit of each byte on (the
    hybrid's bit-packed runs; Arrow's reading of BIT_PACKED)."""
    acc = nbits = 0
    out = bytearray()
    for v in values:
        acc |= v << nbits
        nbits += width
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8
    if nbits:
        out.append(acc & 0xFF)
    return bytes(out)


def bit_pack_msb(values, width: int) -> bytes:
    """Values packed from the most significant bit of each byte on (the
    spec's description of the deprecated BIT_PACKED encoding)."""
    bits = "".join(format(v, f"0{width}b") for v in values)
    bits += "0" * (-len(bits) % 8)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))


def hybrid(values, width: int) -> bytes:
    """The RLE / bit-packed hybrid as one bit-packed run (no length prefix)."""
    padded = list(values) + [0] * (-len(values) % 8)
    return bytes([((len(padded) // 8) << 1) | 1]) + bit_pack_lsb(padded, width)


def page_v1(values: bytes, num_values: int, defs=None, max_def=1, def_encoding=RLE, encoding=PLAIN) -> bytes:
    """An uncompressed data page v1 (header and body)."""
    body = b""
    if defs is not None:
        width = max_def.bit_length()
        if def_encoding == RLE:
            stream = hybrid(defs, width)
            body += struct.pack("<I", len(stream)) + stream
        elif def_encoding == BIT_PACKED:
            body += bit_pack_lsb(defs, width)
        else:  # the spec's MSB-first order, labelled BIT_PACKED
            body += bit_pack_msb(defs, width)
            def_encoding = BIT_PACKED
    body += values
    head = [(1, I32, DATA_PAGE), (2, I32, len(body)), (3, I32, len(body)),
            (5, STRUCT, [(1, I32, num_values), (2, I32, encoding), (3, I32, def_encoding), (4, I32, RLE)])]
    return encode_struct(head) + body


def page_v2(values: bytes, num_values: int, usize: int, defs=None, max_def=1, is_compressed=None, reps=None,
            num_rows=None) -> bytes:
    """A data page v2: `values` as stored (compressed or not), `usize` their
    uncompressed size; levels uncompressed as the format has them."""
    rl = hybrid(reps, 1) if reps is not None else b""
    dl = hybrid(defs, max_def.bit_length()) if defs is not None else b""
    levels = rl + dl
    nulls = sum(1 for d in defs if d < max_def) if defs is not None else 0
    rows = num_values if num_rows is None else num_rows
    v2 = [(1, I32, num_values), (2, I32, nulls), (3, I32, rows), (4, I32, PLAIN), (5, I32, len(dl)),
          (6, I32, len(rl))]
    if is_compressed is not None:
        v2.append((7, BOOL, is_compressed))
    head = [(1, I32, DATA_PAGE_V2), (2, I32, len(levels) + usize), (3, I32, len(levels) + len(values)),
            (8, STRUCT, v2)]
    return encode_struct(head) + levels + values


def chunk(path: list[str], ptype: int, pages: list[bytes], num_values: int, codec=UNCOMPRESSED, dictionary=False):
    """A column chunk of these pages (`dictionary`: the first is its dictionary page)."""
    return {"path": path, "type": ptype, "pages": pages, "num_values": num_values, "codec": codec,
            "dictionary": dictionary}


def write(out: Path, schema: list, row_groups: list, created_by: str = "gen_values.py", kv=None) -> Path:
    """schema: schema elements, root first; row_groups: [(num_rows, [chunk])]."""
    body = bytearray(b"PAR1")
    rgs, total = [], 0
    for num_rows, chunks in row_groups:
        cols = []
        rg_start = len(body)
        for c in chunks:
            start = len(body)
            for p in c["pages"]:
                body += p
            size = len(body) - start
            meta = [(1, I32, c["type"]), (2, LIST, (I32, [PLAIN, RLE])), (3, LIST, (BIN, c["path"])),
                    (4, I32, c["codec"]), (5, I64, c["num_values"]), (6, I64, size), (7, I64, size),
                    (9, I64, start + (len(c["pages"][0]) if c["dictionary"] else 0))]
            if c["dictionary"]:
                meta.append((11, I64, start))
            cols.append([(2, I64, start), (3, STRUCT, meta)])
        rgs.append([(1, LIST, (STRUCT, cols)), (2, I64, len(body) - rg_start), (3, I64, num_rows)])
        total += num_rows
    foot = [(1, I32, 1), (2, LIST, (STRUCT, schema)), (3, I64, total), (4, LIST, (STRUCT, rgs)),
            (6, BIN, created_by)]
    if kv:
        foot.append((5, LIST, (STRUCT, [[(1, BIN, k), (2, BIN, v)] for k, v in kv.items()])))
    footer = encode_struct(foot)
    body += footer + struct.pack("<I", len(footer)) + b"PAR1"
    out.write_bytes(bytes(body))
    return out


def plain_i32(values) -> bytes:
    return b"".join(struct.pack("<i", v) for v in values)


def _snappy(b: bytes) -> bytes:
    import pyarrow as pa  # (the writer side only: the tests never need it to read)
    return pa.compress(b, codec="snappy", asbytes=True)


def _optional_i32_page(values, def_encoding) -> bytes:
    defs = [0 if v is None else 1 for v in values]
    return page_v1(plain_i32([v for v in values if v is not None]), len(values), defs, def_encoding=def_encoding)


# ---- 1. BIT_PACKED definition levels -----------------------------------------------------

# Nulls at irregular places so that a byte read in the wrong bit order puts them elsewhere.
BIT_PACKED_VALUES = [1, None, 3, None, None, 6, 7, None, 9, 10, None, 12, 13, 14, 15, None, None, None, 19, 20,
                     21, None, 23, 24, 25, 26, 27, None, 29]


def make_bit_packed_levels(out_dir: Path) -> Path:
    """Impala's shape: flat optional columns whose definition levels are
    BIT_PACKED (no length prefix, ceil(n / 8) bytes), two pages per chunk and
    two row groups; one column keeps RLE levels for contrast."""
    v = BIT_PACKED_VALUES
    half = len(v) // 2
    schema = [group("schema", 2, rep=None), leaf("a", INT32), leaf("b", INT32)]
    rgs = []
    for rows in (v[:half], v[half:]):
        cut = len(rows) // 2 + 1
        pages = [_optional_i32_page(rows[:cut], BIT_PACKED), _optional_i32_page(rows[cut:], BIT_PACKED)]
        a = chunk(["a"], INT32, pages, len(rows))
        b = chunk(["b"], INT32, [_optional_i32_page(rows[::-1], RLE)], len(rows))
        rgs.append((len(rows), [a, b]))
    return write(out_dir / "bit_packed_levels.parquet", schema, rgs, created_by="impala version 1.2.4")


def make_bit_packed_nested(out_dir: Path) -> Path:
    """BIT_PACKED repetition and definition levels of a list<int32> (widths 1
    and 2), enough levels per page (over 8) that whole groups of eight go
    through the SIMD unpackers; two pages."""
    # Rows cycle through: [k, k+1], null, [], [null, k], [k].
    shapes = [([3, 3], [0, 1]), ([0], [0]), ([1], [0]), ([2, 3], [0, 1]), ([3], [0])]
    pages, rows = [], 0
    for first in (0, 13):
        reps, defs, vals = [], [], []
        for r in range(first, first + 13):
            d, rp = shapes[r % len(shapes)]
            defs += d
            reps += rp
            vals += [r * 10 + k for k, x in enumerate(d) if x == 3]
        body = bit_pack_lsb(reps, 1) + bit_pack_lsb(defs, 2) + plain_i32(vals)
        head = [(1, I32, DATA_PAGE), (2, I32, len(body)), (3, I32, len(body)),
                (5, STRUCT, [(1, I32, len(reps)), (2, I32, PLAIN), (3, I32, BIT_PACKED), (4, I32, BIT_PACKED)])]
        pages.append(encode_struct(head) + body)
        rows += 13
    schema = [group("schema", 1, rep=None), group("l", 1, rep=OPTIONAL, converted=3),
              group("list", 1, rep=REPEATED), leaf("element", INT32, rep=OPTIONAL)]
    levels = sum(len(shapes[r % len(shapes)][0]) for r in range(rows))
    rgs = [(rows, [chunk(["l", "list", "element"], INT32, pages, levels)])]
    return write(out_dir / "bit_packed_nested.parquet", schema, rgs, created_by="impala version 1.2.4")


# ---- 2. data page v2 of parquet-cpp 1.5 --------------------------------------------------

def _v2_file(out: Path, created_by: str, is_compressed) -> Path:
    schema = [group("schema", 3, rep=None), leaf("x", INT64, rep=REQUIRED), leaf("y", INT32),
              group("l", 1, rep=OPTIONAL, converted=3), group("list", 1, rep=REPEATED),
              leaf("element", INT32, rep=REQUIRED)]
    x = b"".join(struct.pack("<q", k) for k in range(1, 6))
    yv = [10, None, 30, 40, None]
    y = plain_i32([k for k in yv if k is not None])
    px = page_v2(_snappy(x), 5, len(x), is_compressed=is_compressed)
    py = page_v2(_snappy(y), 5, len(y), defs=[0 if k is None else 1 for k in yv], is_compressed=is_compressed)
    # l: [1, 2], None, [], [3], [4, 5, 6]
    lreps, ldefs = [0, 1, 0, 0, 0, 0, 1, 1], [2, 2, 0, 1, 2, 2, 2, 2]
    lv = plain_i32([1, 2, 3, 4, 5, 6])
    pl = page_v2(_snappy(lv), len(lreps), len(lv), defs=ldefs, max_def=2, is_compressed=is_compressed, reps=lreps,
                 num_rows=5)
    rgs = [(5, [chunk(["x"], INT64, [px], 5, SNAPPY), chunk(["y"], INT32, [py], 5, SNAPPY),
                chunk(["l", "list", "element"], INT32, [pl], len(lreps), SNAPPY)])]
    return write(out, schema, rgs, created_by=created_by)


def make_v2_parquet_cpp_151(out_dir: Path) -> Path:
    """parquet-cpp 1.5.1: snappy data pages v2 marked is_compressed=false
    (ARROW-10353); readers decompress them by the writer's version."""
    return _v2_file(out_dir / "v2_parquet_cpp_151.parquet", "parquet-cpp version 1.5.1-SNAPSHOT", False)


def make_v2_parquet_cpp_arrow_2(out_dir: Path) -> Path:
    """The same pages from "parquet-cpp-arrow version 2.0.0": pyarrow 26
    trusts the flag there (its rule names the application "parquet-cpp"
    only), so the flag is honoured and the values are stored uncompressed."""
    schema = [group("schema", 1, rep=None), leaf("x", INT64, rep=REQUIRED)]
    x = b"".join(struct.pack("<q", k) for k in range(1, 6))
    rgs = [(5, [chunk(["x"], INT64, [page_v2(x, 5, len(x), is_compressed=False)], 5, SNAPPY)])]
    return write(out_dir / "v2_parquet_cpp_arrow_2.parquet", schema, rgs, created_by="parquet-cpp-arrow version 2.0.0")


# ---- 3. INT96 at any Julian day ----------------------------------------------------------

# (Julian day, nanoseconds of the day): day 0 (Velox, Drill), small days, the
# epoch, negative nanoseconds, days whose product wraps, the largest days.
INT96_CASES = [(0, 0), (0, 5), (0, -1), (1, 0), (1, 5), (2, 0), (100, 7), (2440588, 0), (2440588, -1),
               (2440588, 86400 * 10**9), (2440589, -(2**63)), (2440588, 2**63 - 1), (2451545, 43200 * 10**9),
               (2547340, 0), (2333836, 0), (5373484, 0), (2**31 - 1, 0), (2**31, 0), (2**32 - 1, 123)]


def _int96(day: int, nanos: int) -> bytes:
    return struct.pack("<qI", nanos, day)


def _dictionary_page(values: bytes, count: int) -> bytes:
    return encode_struct([(1, I32, DICTIONARY_PAGE), (2, I32, len(values)), (3, I32, len(values)),
                          (7, STRUCT, [(1, I32, count), (2, I32, PLAIN)])]) + values


def _dictionary_indices_page(indices, defs) -> bytes:
    """An RLE_DICTIONARY data page v1 of an optional column."""
    width = max(1, max(indices, default=0).bit_length())
    levels = hybrid(defs, 1)
    body = struct.pack("<I", len(levels)) + levels + bytes([width]) + hybrid(indices, width)
    return encode_struct([(1, I32, DATA_PAGE), (2, I32, len(body)), (3, I32, len(body)),
                          (5, STRUCT, [(1, I32, len(defs)), (2, I32, 8), (3, I32, RLE), (4, I32, RLE)])]) + body


def make_int96_days(out_dir: Path) -> Path:
    """INT96 timestamps at every kind of Julian day: a required column (PLAIN)
    and an optional one (dictionary-encoded, every fourth row null)."""
    n = len(INT96_CASES)
    raw = b"".join(_int96(d, ns) for d, ns in INT96_CASES)
    defs = [0 if i % 4 == 3 else 1 for i in range(n)]
    idx = [i for i in range(n) if defs[i]]
    o_pages = [_dictionary_page(raw, n), _dictionary_indices_page(idx, defs)]
    schema = [group("schema", 2, rep=None), leaf("t", INT96, rep=REQUIRED), leaf("o", INT96)]
    rgs = [(n, [chunk(["t"], INT96, [page_v1(raw, n)], n), chunk(["o"], INT96, o_pages, n, dictionary=True)])]
    return write(out_dir / "int96_days.parquet", schema, rgs, created_by="parquet-mr version 1.10.1")


def make_int96_days_list(out_dir: Path) -> Path:
    """The same INT96 values inside a list<timestamp> (three to a row), with a
    null list and an empty one."""
    rows = [INT96_CASES[i:i + 3] for i in range(0, len(INT96_CASES), 3)] + [None, []]
    reps, defs, vals = [], [], []
    for r in rows:
        if not r:
            reps.append(0)
            defs.append(0 if r is None else 1)
            continue
        for k, c in enumerate(r):
            reps.append(0 if k == 0 else 1)
            defs.append(3)
            vals.append(c)
    rl, dl = hybrid(reps, 1), hybrid(defs, 2)
    body = (struct.pack("<I", len(rl)) + rl + struct.pack("<I", len(dl)) + dl + b"".join(_int96(*c) for c in vals))
    page = encode_struct([(1, I32, DATA_PAGE), (2, I32, len(body)), (3, I32, len(body)),
                          (5, STRUCT, [(1, I32, len(reps)), (2, I32, PLAIN), (3, I32, RLE), (4, I32, RLE)])]) + body
    schema = [group("schema", 1, rep=None), group("l", 1, rep=OPTIONAL, converted=3), group("list", 1, rep=REPEATED),
              leaf("element", INT96, rep=OPTIONAL)]
    return write(out_dir / "int96_days_list.parquet", schema,
                 [(len(rows), [chunk(["l", "list", "element"], INT96, [page], len(reps))])],
                 created_by="parquet-mr version 1.10.1")


# ---- 4. empty groups ---------------------------------------------------------------------

def _required_i32(path: list[str], values) -> dict:
    return chunk(path, INT32, [page_v1(plain_i32(values), len(values))], len(values))


def make_empty_group(out_dir: Path) -> Path:
    """Groups with no leaves (struct<>) between leaf columns: optional,
    required and repeated, over two row groups."""
    schema = [group("schema", 5, rep=None), leaf("a", INT32, rep=REQUIRED), group("e", 0, rep=OPTIONAL),
              group("r", 0, rep=REQUIRED), leaf("b", INT32, rep=REQUIRED), group("l", 0, rep=REPEATED)]
    rgs = [(3, [_required_i32(["a"], [1, 2, 3]), _required_i32(["b"], [7, 8, 9])]),
           (2, [_required_i32(["a"], [4, 5]), _required_i32(["b"], [10, 11])])]
    return write(out_dir / "empty_group.parquet", schema, rgs)


# ---- 5. two columns of one name ----------------------------------------------------------

def make_duplicate_names(out_dir: Path) -> Path:
    """Three columns, two of them named "a" (distinct values, one optional)."""
    schema = [group("schema", 3, rep=None), leaf("a", INT32, rep=REQUIRED), leaf("a", INT32),
              leaf("b", INT32, rep=REQUIRED)]
    a2 = [40, None, 60, 70]
    rgs = [(4, [_required_i32(["a"], [1, 2, 3, 4]), chunk(["a"], INT32, [_optional_i32_page(a2, RLE)], 4),
                _required_i32(["b"], [7, 8, 9, 10])])]
    return write(out_dir / "duplicate_names.parquet", schema, rgs)


# ---- 6. null-typed columns ---------------------------------------------------------------

ARROW_NA = 24  # the converted type id old parquet-cpp wrote for null columns (Arrow's ConvertedType::NA)
UNKNOWN_TYPE = [(11, STRUCT, [])]  # LogicalType.UNKNOWN: the null type


def make_null_columns(out_dir: Path) -> Path:
    """Columns pyarrow reads as the null type: INT32 annotated NA (old
    parquet-cpp), optional and required; a required UNKNOWN column holding
    values; a FIXED_LEN_BYTE_ARRAY(12) annotated NA with a dictionary page; an
    int32 neighbour. Two row groups."""
    schema = [group("schema", 5, rep=None), leaf("na", INT32, converted=ARROW_NA),
              leaf("na_req", INT32, rep=REQUIRED, converted=ARROW_NA),
              leaf("unknown_req", INT32, rep=REQUIRED, logical=UNKNOWN_TYPE),
              leaf("na_dict", FLBA, rep=REQUIRED, converted=ARROW_NA, type_length=12), leaf("i", INT32, rep=REQUIRED)]
    rgs = []
    for rows in ([1, 2, 3], [4, 5]):
        n = len(rows)
        dict_body = bytes(range(24))
        idx = [k % 2 for k in range(n)]
        width = 1
        body = bytes([width]) + hybrid(idx, width)
        dpage = encode_struct([(1, I32, DATA_PAGE), (2, I32, len(body)), (3, I32, len(body)),
                               (5, STRUCT, [(1, I32, n), (2, I32, 8), (3, I32, RLE), (4, I32, RLE)])]) + body
        rgs.append((n, [chunk(["na"], INT32, [page_v1(b"", n, [0] * n)], n),
                        _required_i32(["na_req"], rows),
                        _required_i32(["unknown_req"], [r * 10 for r in rows]),
                        chunk(["na_dict"], FLBA, [_dictionary_page(dict_body, 2), dpage], n, dictionary=True),
                        _required_i32(["i"], rows)]))
    return write(out_dir / "null_columns.parquet", schema, rgs, created_by="parquet-cpp version 1.4.1-SNAPSHOT")


def make_null_nested(out_dir: Path) -> Path:
    """list<null> and struct<n: null> as pyarrow writes them (null leaves of
    nested columns, with a dictionary page)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.table({"l": pa.array([[None, None], None, [], [None]], pa.list_(pa.null())),
                  "s": pa.array([{"n": None}, None, {"n": None}, {"n": None}], pa.struct([("n", pa.null())])),
                  "i": pa.array([1, 2, 3, 4], pa.int32())})
    out = out_dir / "null_nested.parquet"
    pq.write_table(t, out, store_schema=False)
    return out
