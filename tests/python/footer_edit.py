"""TEST-ONLY: rewrite a Parquet file's footer to craft legacy-statistics cases.

A generic Thrift compact codec (struct <-> {field id: (type, value)}) that
round-trips a FileMetaData exactly, so a test can change `created_by`, drop
`column_orders` or move min_value/max_value to the deprecated min/max fields
of a file pyarrow wrote, then ask both pyarrow and pqfast about it. Only the
footer changes: the pages before it keep their offsets.
"""

from __future__ import annotations

import struct
from pathlib import Path

# Compact protocol type ids.
T_TRUE, T_FALSE, T_BYTE, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY, T_LIST, T_SET, T_MAP, T_STRUCT = range(1, 13)


class _Reader:
    def __init__(self, b: bytes):
        self.b, self.p = b, 0

    def byte(self) -> int:
        self.p += 1
        return self.b[self.p - 1]

    def varint(self) -> int:
        v = s = 0
        while True:
            x = self.byte()
            v |= (x & 0x7F) << s
            s += 7
            if x < 0x80:
                return v

    def zigzag(self) -> int:
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t: int):
        if t in (T_TRUE, T_FALSE):
            return t == T_TRUE
        if t == T_BYTE:
            return self.byte()
        if t in (T_I16, T_I32, T_I64):
            return self.zigzag()
        if t == T_DOUBLE:
            self.p += 8
            return self.b[self.p - 8:self.p]
        if t == T_BINARY:
            n = self.varint()
            self.p += n
            return self.b[self.p - n:self.p]
        if t in (T_LIST, T_SET):
            h = self.byte()
            n, et = h >> 4, h & 0x0F
            if n == 15:
                n = self.varint()
            items = [(self.byte() == 1) if et in (T_TRUE, T_FALSE) else self.value(et) for _ in range(n)]
            return (et, items)
        if t == T_STRUCT:
            return self.struct()
        raise ValueError(f"thrift type {t} not handled")

    def struct(self) -> dict:
        out, last = {}, 0
        while True:
            h = self.byte()
            if h == 0:
                return out
            delta, t = h >> 4, h & 0x0F
            fid = last + delta if delta else self.zigzag()
            last = fid
            out[fid] = (t, self.value(t))


def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7


def _zigzag(v: int) -> bytes:
    return _varint((v << 1) ^ (v >> 63))


def _value(t: int, v) -> bytes:
    if t in (T_TRUE, T_FALSE):
        return b""
    if t == T_BYTE:
        return bytes([v])
    if t in (T_I16, T_I32, T_I64):
        return _zigzag(v)
    if t == T_DOUBLE:
        return bytes(v)
    if t == T_BINARY:
        return _varint(len(v)) + bytes(v)
    if t in (T_LIST, T_SET):
        et, items = v
        head = bytes([(len(items) << 4) | et]) if len(items) < 15 else bytes([0xF0 | et]) + _varint(len(items))
        body = b"".join(bytes([1 if x else 2]) if et in (T_TRUE, T_FALSE) else _value(et, x) for x in items)
        return head + body
    if t == T_STRUCT:
        return encode_struct(v)
    raise ValueError(f"thrift type {t} not handled")


def encode_struct(fields: dict) -> bytes:
    out, last = bytearray(), 0
    for fid in sorted(fields):
        t, v = fields[fid]
        if t in (T_TRUE, T_FALSE):
            t = T_TRUE if v else T_FALSE
        if 0 < fid - last <= 15:
            out.append(((fid - last) << 4) | t)
        else:
            out.append(t)
            out += _zigzag(fid)
        last = fid
        out += _value(t, v)
    out.append(0)
    return bytes(out)


def read_footer(path) -> tuple[bytes, dict]:
    """(bytes before the footer, FileMetaData as nested {id: (type, value)})."""
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<I", data[-8:-4])
    return data[:-8 - n], _Reader(data[-8 - n:-8]).struct()


def write_footer(path, head: bytes, meta: dict) -> None:
    f = encode_struct(meta)
    Path(path).write_bytes(head + f + struct.pack("<I", len(f)) + b"PAR1")


def edit(src, dst, created_by: str | None = None, drop_column_orders: bool = False,
         legacy_stats: bool = False, keep_new_stats: bool = False) -> None:
    """Copies `src` to `dst` with the footer changed: `created_by` replaced
    (None removes it), `column_orders` dropped, and each chunk's
    min_value/max_value (fields 6/5) moved to the deprecated min/max (2/1),
    or copied there when `keep_new_stats`."""
    head, meta = read_footer(src)
    if created_by is None:
        meta.pop(6, None)
    else:
        meta[6] = (T_BINARY, created_by.encode())
    if drop_column_orders:
        meta.pop(7, None)
    if legacy_stats:
        for rg in meta[4][1][1]:  # FileMetaData.row_groups
            for chunk in rg[1][1][1]:  # RowGroup.columns
                cmd = chunk.get(3)
                if cmd is None or 12 not in cmd[1]:
                    continue
                st = cmd[1][12][1]  # ColumnMetaData.statistics
                for new, old in ((6, 2), (5, 1)):
                    if new in st:
                        st[old] = st[new]
                        if not keep_new_stats:
                            del st[new]
    write_footer(dst, head, meta)


def mark_utf8(src, dst, column: str) -> None:
    """Copies `src` to `dst` with the BYTE_ARRAY leaf `column` annotated
    STRING (ConvertedType UTF8 and LogicalType STRING), whatever bytes its
    values hold: a String column with non-UTF-8 values, as some writers
    produce, without the Arrow schema that would say binary."""
    head, meta = read_footer(src)
    for el in meta[2][1][1]:  # FileMetaData.schema: SchemaElement list
        if el.get(4, (0, b""))[1] == column.encode():
            el[6] = (T_I32, 0)  # converted_type UTF8
            el[10] = (T_STRUCT, {1: (T_STRUCT, {})})  # logicalType STRING
    # Drop the embedded Arrow schema (key_value_metadata) so the Parquet schema decides.
    meta.pop(5, None)
    write_footer(dst, head, meta)
