"""Nested Parquet files written by pyarrow, for the nested reader's tests and
benchmark (issue 20): fixed shapes (lists, structs, maps, large and
fixed-size lists, required fields, lists of lists, maps of lists, a 3-deep
nesting) with and without nulls at every level, under several write settings
(row groups, small pages so records span pages, data page v1 and v2,
dictionary on and off, snappy / zstd / none); a seeded generator of random
nested schemas and data; and a deep comparison that says where two arrays
differ (path, row, validity, offsets, values).

Everything is deterministic: the same seed writes the same values.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

# ---- values ----------------------------------------------------------------------------

_ALPHABET = np.array(list("abcdefghijklmnopqrstuvwxyzé日ß😀 -"), dtype=object)


@dataclasses.dataclass
class Shape:
    """How values are drawn: null probability per level (0: no nulls), the
    share of empty lists, and list lengths (0..max_len)."""

    null_prob: float = 0.1
    empty_prob: float = 0.1
    max_len: int = 5


def _mask(rng: np.random.Generator, n: int, p: float, nullable: bool):
    if not nullable or p <= 0 or n == 0:
        return None
    m = rng.random(n) < p
    return pa.array(m, pa.bool_()) if m.any() else None


def _strings(rng: np.random.Generator, n: int, distinct: int | None = None) -> list[str]:
    """Short strings (UTF-8 beyond ASCII too); `distinct` draws from a small pool
    so dictionary pages stay in use."""
    if distinct:
        pool = _strings(rng, distinct)
        return [pool[i] for i in rng.integers(0, distinct, n)]
    lens = rng.integers(0, 9, n)
    chars = rng.integers(0, len(_ALPHABET), int(lens.sum()))
    out, k = [], 0
    for ln in lens:
        out.append("".join(_ALPHABET[chars[k:k + ln]]))
        k += ln
    return out


def _leaf(t: pa.DataType, n: int, rng: np.random.Generator, mask) -> pa.Array:
    """n random values of a flat type; `mask` (pyarrow bool array or None) marks nulls."""
    if pa.types.is_boolean(t):
        vals = rng.random(n) < 0.5
    elif pa.types.is_integer(t):
        info = np.iinfo(t.to_pandas_dtype())
        # Small values half of the time (dictionary and bit packing), the full range otherwise.
        wide = rng.integers(info.min, info.max, n, dtype=t.to_pandas_dtype(), endpoint=True)
        small = rng.integers(0, min(100, int(info.max)), n).astype(t.to_pandas_dtype())
        vals = np.where(rng.random() < 0.5, small, wide)
    elif pa.types.is_floating(t):
        vals = np.round(rng.standard_normal(n) * 1000, 3).astype(t.to_pandas_dtype())
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        return pa.array(_strings(rng, n, 20 if rng.random() < 0.5 else None), t, mask=_np_mask(mask))
    elif pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pa.array([s.encode() for s in _strings(rng, n)], t, mask=_np_mask(mask))
    elif pa.types.is_fixed_size_binary(t):
        return pa.array([rng.bytes(t.byte_width) for _ in range(n)], t, mask=_np_mask(mask))
    elif pa.types.is_date32(t):
        vals = rng.integers(-20000, 40000, n).astype(np.int32)
        return pa.array(vals, pa.int32(), mask=_np_mask(mask)).cast(t)
    elif pa.types.is_timestamp(t):
        vals = rng.integers(-(2**50), 2**50, n)
        return pa.array(vals, pa.int64(), mask=_np_mask(mask)).cast(t)
    elif pa.types.is_decimal(t):
        import decimal

        digits = t.precision
        vals = [decimal.Decimal(int(x) % 10 ** min(digits, 18)).scaleb(-t.scale) for x in rng.integers(0, 2**62, n)]
        return pa.array(vals, t, mask=_np_mask(mask))
    else:
        raise TypeError(f"no generator for {t}")
    return pa.array(vals, t, mask=_np_mask(mask))


def _np_mask(mask):
    return None if mask is None else mask.to_numpy(zero_copy_only=False)


def _lengths(rng: np.random.Generator, n: int, shape: Shape, nulls) -> np.ndarray:
    lens = rng.integers(1, shape.max_len + 1, n) if shape.max_len > 0 else np.zeros(n, np.int64)
    lens[rng.random(n) < shape.empty_prob] = 0
    if nulls is not None:
        lens[_np_mask(nulls)] = 0  # a null list holds no values (as Parquet stores it)
    return lens


def random_array(t: pa.DataType, n: int, rng: np.random.Generator, shape: Shape,
                 nullable: bool = True) -> pa.Array:
    """n random values of any (nested) Arrow type; nulls only where a field is
    nullable, at every nullable level with probability shape.null_prob."""
    mask = _mask(rng, n, shape.null_prob, nullable)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        lens = _lengths(rng, n, shape, mask)
        off_t = np.int64 if pa.types.is_large_list(t) else np.int32
        offsets = np.concatenate([[0], np.cumsum(lens)]).astype(off_t)
        child = random_array(t.value_type, int(offsets[-1]), rng, shape, t.value_field.nullable)
        cls = pa.LargeListArray if pa.types.is_large_list(t) else pa.ListArray
        return cls.from_arrays(pa.array(offsets), child, type=t, mask=mask)
    if pa.types.is_fixed_size_list(t):
        child = random_array(t.value_type, n * t.list_size, rng, shape, t.value_field.nullable)
        return pa.FixedSizeListArray.from_arrays(child, type=t, mask=mask)
    if pa.types.is_map(t):
        lens = _lengths(rng, n, shape, mask)
        offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        total = int(offsets[-1])
        keys = random_array(t.key_type, total, rng, shape, False)
        items = random_array(t.item_type, total, rng, shape, t.item_field.nullable)
        return pa.MapArray.from_arrays(pa.array(offsets), keys, items, type=t, mask=mask)
    if pa.types.is_struct(t):
        children = [random_array(f.type, n, rng, shape, f.nullable) for f in t]
        return pa.StructArray.from_arrays(children, fields=list(t), mask=mask)
    return _leaf(t, n, rng, mask)


def random_table(schema: pa.Schema, n: int, seed: int, shape: Shape) -> pa.Table:
    rng = np.random.default_rng(seed)
    cols = [random_array(f.type, n, rng, shape, f.nullable) for f in schema]
    return pa.Table.from_arrays(cols, schema=schema)


# ---- the fixed shapes ---------------------------------------------------------------------

AB = pa.struct([("a", pa.int64()), ("b", pa.string())])
FLAT5 = pa.struct([("i32", pa.int32()), ("i64", pa.int64()), ("f64", pa.float64()), ("s", pa.string()),
                   ("b", pa.bool_())])
DEEP = pa.list_(pa.struct([("x", pa.list_(pa.int64())), ("y", pa.struct([("z", pa.string())]))]))

# name -> (column type, column nullable, rows). Every table also has a flat int64 "id".
SHAPES: dict[str, tuple[pa.DataType, bool, int]] = {
    "list_int64": (pa.list_(pa.int64()), True, 2000),
    "list_string": (pa.list_(pa.string()), True, 1500),
    "struct5": (FLAT5, True, 2000),
    "list_struct": (pa.list_(AB), True, 1500),
    "map_string_int64": (pa.map_(pa.string(), pa.int64()), True, 1500),
    "deep3": (DEEP, True, 800),
    "large_list": (pa.large_list(pa.int64()), True, 1500),
    "fixed_size_list": (pa.list_(pa.int64(), 3), True, 1500),
    "struct_required": (pa.struct([pa.field("req", pa.int64(), nullable=False), ("opt", pa.string()),
                                   ("optf", pa.float64())]), True, 1500),
    "struct_required_top": (pa.struct([pa.field("req", pa.int32(), nullable=False), ("opt", pa.string())]),
                            False, 1000),
    "list_required_elements": (pa.list_(pa.field("item", pa.int64(), nullable=False)), True, 1500),
    "map_of_lists": (pa.map_(pa.string(), pa.list_(pa.int64())), True, 1000),
    "list_of_lists": (pa.list_(pa.list_(pa.int64())), True, 1000),
    "struct_of_lists": (pa.struct([("l", pa.list_(pa.int32())), ("m", pa.list_(pa.string()))]), True, 1000),
    # Lists of up to 400 values over 256-byte pages: a page per record or two
    # (pyarrow starts every page at a record boundary; write_split_records
    # cuts records across v1 pages).
    "long_lists": (pa.list_(pa.int64()), True, 300),
}


@dataclasses.dataclass(frozen=True)
class Setting:
    name: str
    kwargs: dict

    def __hash__(self):
        return hash(self.name)


# Four write settings that between them cover v1/v2, dictionary on/off, the
# three codecs, several row groups and pages small enough that lists span them.
SETTINGS = [
    Setting("v1-dict-snappy", dict(data_page_version="1.0", use_dictionary=True, compression="snappy")),
    Setting("v2-plain-zstd-small", dict(data_page_version="2.0", use_dictionary=False, compression="zstd",
                                        data_page_size=512, write_batch_size=16, row_group_size=700)),
    Setting("v1-plain-none-small", dict(data_page_version="1.0", use_dictionary=False, compression="none",
                                        data_page_size=256, write_batch_size=8, row_group_size=500)),
    Setting("v2-dict-snappy-small", dict(data_page_version="2.0", use_dictionary=True, compression="snappy",
                                         data_page_size=1024, write_batch_size=32, dictionary_pagesize_limit=4096,
                                         row_group_size=900)),
]


@dataclasses.dataclass(frozen=True)
class Case:
    name: str       # <shape>-<nulls|nonulls>-<setting>
    shape: str
    nulls: bool
    setting: Setting

    def table(self) -> pa.Table:
        t, nullable, n = SHAPES[self.shape]
        seed = sum(map(ord, self.shape)) * 2 + self.nulls
        if self.shape == "long_lists":
            shape = Shape(null_prob=0.1 if self.nulls else 0.0, empty_prob=0.1, max_len=400)
        else:
            shape = Shape(null_prob=0.15 if self.nulls else 0.0, empty_prob=0.15 if self.nulls else 0.0,
                          max_len=6)
        schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("c", t, nullable=nullable)])
        tab = random_table(pa.schema([schema.field("c")]), n, seed, shape)
        return pa.Table.from_arrays([pa.array(np.arange(n, dtype=np.int64)), tab.column(0)], schema=schema)

    def write(self, directory: Path) -> Path:
        p = Path(directory) / f"{self.name}.parquet"
        if not p.exists():
            kw = dict(self.setting.kwargs)
            if self.shape == "long_lists":  # records larger than pages
                kw.update(data_page_size=256, write_batch_size=8)
            tmp = p.with_suffix(".tmp")
            pq.write_table(self.table(), tmp, **kw)
            tmp.replace(p)
        return p


def cases() -> list[Case]:
    out = []
    for shape in SHAPES:
        for nulls in (True, False):
            for s in SETTINGS:
                out.append(Case(f"{shape}-{'nulls' if nulls else 'nonulls'}-{s.name}", shape, nulls, s))
    return out


# ---- random schemas ---------------------------------------------------------------------

LEAF_TYPES = [pa.int32(), pa.int64(), pa.float64(), pa.string(), pa.bool_(), pa.binary(), pa.date32(),
              pa.timestamp("us"), pa.float32(), pa.int16(), pa.decimal128(12, 2), pa.binary(4), pa.uint32()]


def random_type(rng: np.random.Generator, depth: int, max_depth: int = 4) -> pa.DataType:
    """A random type with at most max_depth nested levels below this one."""
    if depth >= max_depth or rng.random() < 0.25 + 0.1 * depth:
        return LEAF_TYPES[int(rng.integers(0, len(LEAF_TYPES)))]
    kinds = ["list", "list", "struct", "struct", "map", "large_list"]
    if depth == 0:
        # pyarrow 26 fails on a fixed-size list below a null list or struct
        # ("Expected all lists to be of size=N but index i had size=0"): top level only.
        kinds.append("fixed_size_list")
    kind = rng.choice(kinds)
    nullable = bool(rng.random() < 0.7)
    if kind in ("list", "large_list", "fixed_size_list"):
        # pyarrow's writer names the element "element" only with use_compliant_nested_type (default on)
        # pyarrow 26 reads fixed-size lists back only over flat elements: keep those flat.
        inner = (LEAF_TYPES[int(rng.integers(0, len(LEAF_TYPES)))] if kind == "fixed_size_list"
                 else random_type(rng, depth + 1, max_depth))
        child = pa.field("element" if kind != "fixed_size_list" else "item", inner, nullable=nullable)
        if kind == "list":
            return pa.list_(child)
        if kind == "large_list":
            return pa.large_list(child)
        return pa.list_(child, int(rng.integers(1, 4)))
    if kind == "map":
        key = [pa.string(), pa.int32(), pa.int64()][int(rng.integers(0, 3))]
        return pa.map_(key, pa.field("value", random_type(rng, depth + 1, max_depth), nullable=nullable))
    k = int(rng.integers(1, 4))
    return pa.struct([pa.field(f"f{j}", random_type(rng, depth + 1, max_depth), nullable=bool(rng.random() < 0.7))
                      for j in range(k)])


def nesting_depth(t: pa.DataType) -> int:
    if pa.types.is_struct(t):
        return 1 + max((nesting_depth(f.type) for f in t), default=0)
    if pa.types.is_map(t):
        return 1 + max(nesting_depth(t.key_type), nesting_depth(t.item_type))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return 1 + nesting_depth(t.value_type)
    return 0


@dataclasses.dataclass
class RandomCase:
    seed: int
    schema: pa.Schema
    rows: int
    shape: Shape
    write_kwargs: dict

    def describe(self) -> str:
        cols = ", ".join(f"{f.name}: {f.type}{'' if f.nullable else ' not null'}" for f in self.schema)
        return (f"seed {self.seed}: {self.rows} rows, nulls {self.shape.null_prob:.2f}, empty "
                f"{self.shape.empty_prob:.2f}, max_len {self.shape.max_len}, {self.write_kwargs}; {cols}")

    def table(self) -> pa.Table:
        return random_table(self.schema, self.rows, self.seed * 7919 + 1, self.shape)

    def write(self, path: Path) -> Path:
        pq.write_table(self.table(), path, **self.write_kwargs)
        return path


def random_case(seed: int) -> RandomCase:
    """A random schema (1-3 nested columns of depth 1..4 plus a flat one), random
    data shape and random write settings, all from the seed."""
    rng = np.random.default_rng(seed)
    fields = [pa.field("id", pa.int64(), nullable=bool(rng.random() < 0.5))]
    for j in range(int(rng.integers(1, 4))):
        t = random_type(rng, 0)
        while nesting_depth(t) == 0:
            t = random_type(rng, 0)
        fields.append(pa.field(f"c{j}", t, nullable=bool(rng.random() < 0.8)))
    shape = Shape(null_prob=float(rng.choice([0.0, 0.05, 0.2, 0.5])),
                  empty_prob=float(rng.choice([0.0, 0.1, 0.4])),
                  max_len=int(rng.choice([1, 3, 6, 20])))
    rows = int(rng.choice([1, 7, 100, 600, 1500]))
    kw = dict(data_page_version=str(rng.choice(["1.0", "2.0"])),
              use_dictionary=bool(rng.random() < 0.5),
              compression=str(rng.choice(["none", "snappy", "zstd"])),
              data_page_size=int(rng.choice([64, 256, 1024, 1 << 20])),
              write_batch_size=int(rng.choice([1, 7, 64, 1024])),
              row_group_size=int(rng.choice([50, 333, 1 << 20])))
    if kw["data_page_version"] == "2.0" and kw["data_page_size"] < 256:
        # pyarrow 26 writes v2 pages of 64 bytes that its own reader then refuses
        # ("expected length 1 but got length 0"): not a reference to compare with.
        kw["data_page_size"] = 256
    if rng.random() < 0.1:
        kw["use_compliant_nested_type"] = False  # the element named "item", as old pyarrow wrote it
    return RandomCase(seed, pa.schema(fields), rows, shape, kw)


# ---- pages ------------------------------------------------------------------------------


def pages(path, row_group: int, column: int) -> list[dict]:
    """The data pages of one column chunk: type, num_values, (v2) num_rows, and
    for uncompressed v1 pages of a column with repetition levels whether the
    page starts inside a record (its first repetition level is not 0)."""
    from thrift_compact import Reader

    md = pq.ParquetFile(path).metadata
    cc = md.row_group(row_group).column(column)
    max_rep = md.schema.column(column).max_repetition_level
    start = cc.dictionary_page_offset if cc.has_dictionary_page else cc.data_page_offset
    data = Path(path).read_bytes()[start:start + cc.total_compressed_size]
    pos, out = 0, []
    while pos < len(data):
        r = Reader(data, pos)
        h = r.struct()
        body = r.p
        ptype, size = h[1][1], h[3][1]
        if ptype in (0, 3):  # DATA_PAGE, DATA_PAGE_V2
            info = {"type": "v1" if ptype == 0 else "v2"}
            if ptype == 0:
                info["num_values"] = h[5][1][1][1]
                if max_rep and cc.compression == "UNCOMPRESSED":
                    info["starts_mid_record"] = _first_rle_value(data, body + 4, max_rep.bit_length()) != 0
            else:
                dp = h[8][1]
                info.update(num_values=dp[1][1], num_rows=dp[3][1])
            out.append(info)
        pos = body + size
    return out


def _first_rle_value(b: bytes, pos: int, bit_width: int) -> int:
    """The first value of an RLE / bit-packed hybrid run starting at b[pos]."""
    r = _Varint(b, pos)
    header = r.read()
    if header & 1:  # bit-packed: values from the low bits of the first byte on
        return b[r.pos] & ((1 << bit_width) - 1)
    return int.from_bytes(b[r.pos:r.pos + (bit_width + 7) // 8], "little")


class _Varint:
    def __init__(self, b: bytes, pos: int):
        self.b, self.pos = b, pos

    def read(self) -> int:
        v = s = 0
        while True:
            x = self.b[self.pos]
            self.pos += 1
            v |= (x & 0x7F) << s
            s += 7
            if x < 0x80:
                return v


# ---- records that span v1 pages ------------------------------------------------------------
#
# pyarrow 26 starts every data page at a record boundary (v1 too), but the
# format lets a v1 page end inside a record (parquet-java before 1.11 and
# other writers do). This writes such files itself: one column
# `c: list<int64>` (3-level LIST, optional list, optional element), PLAIN
# values, RLE levels, uncompressed v1 pages cut every `page_levels` levels
# wherever that falls.


def _rle(levels: list[int], bit_width: int) -> bytes:
    from thrift_compact import _varint

    out, i = bytearray(), 0
    nbytes = (bit_width + 7) // 8
    while i < len(levels):
        j = i
        while j < len(levels) and levels[j] == levels[i]:
            j += 1
        out += _varint((j - i) << 1) + levels[i].to_bytes(nbytes, "little")
        i = j
    return bytes(out)


def list_levels(rows: list) -> tuple[list[int], list[int], list[int]]:
    """(repetition levels, definition levels, non-null values) of list<int64> rows."""
    rep, dfn, vals = [], [], []
    for r in rows:
        if r is None:
            rep.append(0), dfn.append(0)
        elif len(r) == 0:
            rep.append(0), dfn.append(1)
        else:
            for k, v in enumerate(r):
                rep.append(0 if k == 0 else 1)
                dfn.append(2 if v is None else 3)
                if v is not None:
                    vals.append(v)
    return rep, dfn, vals


def write_split_records(path, rows: list, page_levels: int, created_by: str = "pqfast tests split-record writer"):
    """A Parquet file of `rows` (list<int64>, Python lists or None) whose v1
    pages hold `page_levels` levels each, records cut wherever that falls."""
    import struct as _struct

    from thrift_compact import T_BINARY, T_I32, T_I64, T_LIST, T_STRUCT, encode_struct

    rep, dfn, _ = list_levels(rows)
    body = bytearray(b"PAR1")
    first_page = len(body)
    flat = [v for r in rows if r for v in r]
    vi = 0  # index into flat (every element, null or not)
    for start in range(0, len(rep), page_levels):
        pr, pd = rep[start:start + page_levels], dfn[start:start + page_levels]
        n_elems = sum(1 for d in pd if d >= 2)
        page_vals = [v for v in flat[vi:vi + n_elems] if v is not None]
        vi += n_elems
        r_bytes, d_bytes = _rle(pr, 1), _rle(pd, 2)
        data = (_struct.pack("<i", len(r_bytes)) + r_bytes + _struct.pack("<i", len(d_bytes)) + d_bytes
                + b"".join(_struct.pack("<q", v) for v in page_vals))
        header = encode_struct([(1, T_I32, 0), (2, T_I32, len(data)), (3, T_I32, len(data)),
                                (5, T_STRUCT, [(1, T_I32, len(pr)), (2, T_I32, 0), (3, T_I32, 3), (4, T_I32, 3)])])
        body += header + data
    chunk_size = len(body) - first_page
    schema = [
        [(4, T_BINARY, "schema"), (5, T_I32, 1)],
        [(3, T_I32, 1), (4, T_BINARY, "c"), (5, T_I32, 1), (6, T_I32, 3), (10, T_STRUCT, [(3, T_STRUCT, [])])],
        [(3, T_I32, 2), (4, T_BINARY, "list"), (5, T_I32, 1)],
        [(1, T_I32, 2), (3, T_I32, 1), (4, T_BINARY, "element")],
    ]
    col_meta = [(1, T_I32, 2), (2, T_LIST, (T_I32, [0, 3])), (3, T_LIST, (T_BINARY, ["c", "list", "element"])),
                (4, T_I32, 0), (5, T_I64, len(rep)), (6, T_I64, chunk_size), (7, T_I64, chunk_size),
                (9, T_I64, first_page)]
    row_group = [(1, T_LIST, (T_STRUCT, [[(2, T_I64, first_page), (3, T_STRUCT, col_meta)]])),
                 (2, T_I64, chunk_size), (3, T_I64, len(rows))]
    meta = encode_struct([(1, T_I32, 1), (2, T_LIST, (T_STRUCT, schema)), (3, T_I64, len(rows)),
                          (4, T_LIST, (T_STRUCT, [row_group])), (6, T_BINARY, created_by)])
    body += meta + _struct.pack("<i", len(meta)) + b"PAR1"
    Path(path).write_bytes(bytes(body))
    return Path(path)


def split_record_rows(n: int, seed: int, shape: Shape) -> list:
    rng = np.random.default_rng(seed)
    a = random_array(pa.list_(pa.int64()), n, rng, shape)
    return a.to_pylist()


# ---- comparison ----------------------------------------------------------------------------


def _combine(a):
    return a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a


def _first_diff(g: list, e: list) -> int:
    for i, (x, y) in enumerate(zip(g, e)):
        if not _same_value(x, y):
            return i
    return min(len(g), len(e))


def _same_value(x, y) -> bool:
    if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
        return True
    return x == y


def type_signature(t: pa.DataType) -> str:
    """The type with every child field's name and nullability (DataType.equals
    ignores a list's element name; str() leaves out a map's field names)."""
    def fld(f: pa.Field) -> str:
        return f"{f.name}{'' if f.nullable else ' not null'}: {type_signature(f.type)}"
    if pa.types.is_map(t):
        entries = t.field(0)
        return (f"map<{entries.name}{'' if entries.nullable else ' not null'}: {fld(t.key_field)}, "
                f"{fld(t.item_field)}{', keys_sorted' if t.keys_sorted else ''}>")
    if pa.types.is_fixed_size_list(t):
        return f"fixed_size_list<{fld(t.value_field)}>[{t.list_size}]"
    if pa.types.is_large_list(t):
        return f"large_list<{fld(t.value_field)}>"
    if pa.types.is_list(t):
        return f"list<{fld(t.value_field)}>"
    if pa.types.is_struct(t):
        return "struct<" + ", ".join(fld(f) for f in t) + ">"
    return str(t)


def _list_offsets(a) -> np.ndarray:
    off = a.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    return off - off[0] if len(off) else off


def _row(a, i: int):
    try:
        return a[i].as_py()
    except Exception as e:  # noqa: BLE001 - a broken array: say so instead of failing here
        return f"<{type(e).__name__}: {e}>"


def diff_arrays(got, exp, path: str = "", care: np.ndarray | None = None, nullable: bool = True) -> str | None:
    """None when equal as Arrow arrays (type with field names and nullability,
    validity at every level, list offsets, values), else where they first differ.

    `care` marks the slots that hold data (None: all). Below a null struct or
    fixed-size-list slot a child holds no data: a nullable child must be null
    there (both readers push nulls down), a required child's value is
    unspecified (pyarrow leaves whatever its decoder had) and is not compared."""
    got, exp = _combine(got), _combine(exp)
    where = path or "<column>"
    if not got.type.equals(exp.type) or type_signature(got.type) != type_signature(exp.type):
        return f"{where}: type {type_signature(got.type)} != {type_signature(exp.type)}"
    if len(got) != len(exp):
        return f"{where}: length {len(got)} != {len(exp)}"
    n = len(got)
    gv = got.is_valid().to_numpy(zero_copy_only=False).astype(bool) if n else np.zeros(0, bool)
    ev = exp.is_valid().to_numpy(zero_copy_only=False).astype(bool) if n else np.zeros(0, bool)
    check = np.ones(n, bool) if (care is None or nullable) else care
    bad = (gv != ev) & check
    if bad.any():
        i = int(np.nonzero(bad)[0][0])
        return (f"{where}: nulls differ ({got.null_count} vs {exp.null_count} nulls); first at row {i}: "
                f"{'valid' if gv[i] else 'null'} vs {'valid' if ev[i] else 'null'} "
                f"({_row(got, i)!r} vs {_row(exp, i)!r})")
    live = ev if care is None else (ev & care)
    t = got.type
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t):
        go, eo = _list_offsets(got), _list_offsets(exp)
        if not np.array_equal(go, eo):
            i = int(np.nonzero(go != eo)[0][0])
            r = max(i - 1, 0)
            return (f"{where}: offsets differ first at {i}: {go[max(0, i - 2):i + 3].tolist()} vs "
                    f"{eo[max(0, i - 2):i + 3].tolist()} (row {r}: {_row(got, r)!r} vs {_row(exp, r)!r})")
        gs, es = int(got.offsets[0].as_py()), int(exp.offsets[0].as_py())
        total = int(go[-1]) if len(go) else 0
        child_care = np.repeat(live, np.diff(go)) if total else np.zeros(0, bool)
        if pa.types.is_map(t):
            parts = (("key", got.keys, exp.keys, False), ("value", got.items, exp.items, t.item_field.nullable))
        else:
            parts = ((t.value_field.name, got.values, exp.values, t.value_field.nullable),)
        for name, gc, ec, nl in parts:
            d = diff_arrays(gc.slice(gs, total), ec.slice(es, total), f"{where}.{name}", child_care, nl)
            if d:
                return d
        return None
    if pa.types.is_fixed_size_list(t):
        k = t.list_size
        return diff_arrays(got.values.slice(got.offset * k, n * k), exp.values.slice(exp.offset * k, n * k),
                           f"{where}.{t.value_field.name}", np.repeat(live, k), t.value_field.nullable)
    if pa.types.is_struct(t):
        for j, f in enumerate(t):
            d = diff_arrays(got.field(j), exp.field(j), f"{where}.{f.name}", live, f.nullable)
            if d:
                return d
        return None
    if pa.types.is_dictionary(t):
        got, exp = got.cast(t.value_type), exp.cast(t.value_type)
    idx = np.nonzero(live)[0]
    if len(idx) == n and got.equals(exp):
        return None
    g, e = got.take(pa.array(idx, pa.int64())), exp.take(pa.array(idx, pa.int64()))
    if g.equals(e):
        return None
    gl, el = g.to_pylist(), e.to_pylist()
    i = _first_diff(gl, el)
    if i < len(gl):
        return f"{where}: values differ first at row {int(idx[i])}: {gl[i]!r} vs {el[i]!r}"
    return None  # equal but for NaNs in the same places


def has_unspecified_slots(t: pa.DataType, may_be_null: bool) -> bool:
    """Whether a column of this type (null or not by `may_be_null`) can hold
    required values below a null struct or fixed-size-list slot: values no
    reader defines, where Array.equals may differ between two correct readers."""
    if pa.types.is_struct(t) or pa.types.is_fixed_size_list(t):
        fields = list(t) if pa.types.is_struct(t) else [t.value_field]
        return any((may_be_null and not f.nullable) or has_unspecified_slots(f.type, may_be_null or f.nullable)
                   for f in fields)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return has_unspecified_slots(t.value_type, t.value_field.nullable)
    if pa.types.is_map(t):
        return has_unspecified_slots(t.item_type, t.item_field.nullable)
    return False


def diff_tables(got: pa.Table, exp: pa.Table) -> str | None:
    """None when the tables are equal column by column (schema with field names
    and nullability, validity, offsets, values) and got validates in full."""
    if got.column_names != exp.column_names:
        return f"column names {got.column_names} != {exp.column_names}"
    if got.num_rows != exp.num_rows:
        return f"rows {got.num_rows} != {exp.num_rows}"
    for f, g in zip(got.schema, exp.schema):
        if not f.equals(g) or f.nullable != g.nullable or type_signature(f.type) != type_signature(g.type):
            return (f"field {f.name}{'' if f.nullable else ' not null'}: {type_signature(f.type)} != "
                    f"{g.name}{'' if g.nullable else ' not null'}: {type_signature(g.type)}")
    try:
        got.validate(full=True)
    except pa.ArrowInvalid as e:
        return f"pqfast's table does not validate: {e}"
    for name, gc, ec in zip(got.column_names, got.columns, exp.columns):
        for c in gc.chunks:
            try:
                c.validate(full=True)
            except pa.ArrowInvalid as e:
                return f"{name}: a chunk does not validate: {e}"
        d = diff_arrays(gc, ec, name)
        if d:
            return d
        field = exp.schema.field(name)
        if not has_unspecified_slots(field.type, field.nullable) and not _combine(gc).equals(_combine(ec)):
            if not _has_floats(field.type):  # (NaN != NaN for equals())
                return f"{name}: every level compares equal but Array.equals() says otherwise"
    if (got.schema.metadata or {}) != (exp.schema.metadata or {}):
        return f"schema metadata {got.schema.metadata} != {exp.schema.metadata}"
    return None


def _has_floats(t: pa.DataType) -> bool:
    if pa.types.is_floating(t):
        return True
    if pa.types.is_struct(t):
        return any(_has_floats(f.type) for f in t)
    if pa.types.is_map(t):
        return _has_floats(t.key_type) or _has_floats(t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _has_floats(t.value_type)
    return False


def assert_same_table(got: pa.Table, exp: pa.Table, where: str = "") -> None:
    d = diff_tables(got, exp)
    if d:
        raise AssertionError(f"{where}: {d}" if where else d)


def leaf_values(t: pa.Table) -> int:
    """Leaf values (nulls at the leaf included) a table holds: the bench's unit."""
    def count(a) -> int:
        a = _combine(a)
        tt = a.type
        if pa.types.is_list(tt) or pa.types.is_large_list(tt):
            return count(a.flatten())
        if pa.types.is_fixed_size_list(tt):
            return count(a.flatten())
        if pa.types.is_map(tt):
            off = a.offsets
            s, e = off[0].as_py(), off[-1].as_py()
            return count(a.keys.slice(s, e - s)) + count(a.items.slice(s, e - s))
        if pa.types.is_struct(tt):
            return sum(count(a.field(j)) for j in range(tt.num_fields))
        return len(a)
    return sum(count(c) for c in t.columns)

