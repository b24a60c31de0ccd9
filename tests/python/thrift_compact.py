"""TEST-ONLY: a generic Thrift compact-protocol codec of our own, for tests
that read page headers, edit footers or write hostile files byte by byte.

Structs are {field id: (type, value)} (or, to write, [(id, type, value)]);
lists are (element type, [items]); binaries are bytes. Reading then writing
a FileMetaData gives back the same bytes.
"""

from __future__ import annotations

# Compact protocol type ids.
T_TRUE, T_FALSE, T_BYTE, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY, T_LIST, T_SET, T_MAP, T_STRUCT = range(1, 13)


class Reader:
    """Reads from `b` at `pos`; structs come back as {field id: (type, value)}."""

    def __init__(self, b: bytes, pos: int = 0):
        self.b, self.p = b, pos

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
        b = v.encode() if isinstance(v, str) else bytes(v)
        return _varint(len(b)) + b
    if t in (T_LIST, T_SET):
        et, items = v
        head = bytes([(len(items) << 4) | et]) if len(items) < 15 else bytes([0xF0 | et]) + _varint(len(items))
        body = b"".join(bytes([1 if x else 2]) if et in (T_TRUE, T_FALSE) else _value(et, x) for x in items)
        return head + body
    if t == T_STRUCT:
        return encode_struct(v)
    raise ValueError(f"thrift type {t} not handled")


def encode_struct(fields) -> bytes:
    """fields: {id: (type, value)}, or [(id, type, value)]; nested structs
    take either form too."""
    if not isinstance(fields, dict):
        fields = {fid: (t, v) for fid, t, v in fields}
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


def plain(v):
    """A value read by Reader without its type tags: structs as {id: value},
    lists as [items]."""
    if isinstance(v, dict):
        return {fid: plain(x) for fid, (_, x) in v.items()}
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], list):
        return [plain(x) for x in v[1]]
    return v
