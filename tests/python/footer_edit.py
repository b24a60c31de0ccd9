"""TEST-ONLY: rewrite a Parquet file's footer to craft legacy-statistics cases.

The footer goes through thrift_compact.py, which round-trips a
FileMetaData exactly, so a test can change `created_by`, drop
`column_orders` or move min_value/max_value to the deprecated min/max fields
of a file pyarrow wrote, then ask both pyarrow and pqfast about it. Only the
footer changes: the pages before it keep their offsets.
"""

from __future__ import annotations

import struct
from pathlib import Path

from thrift_compact import (  # noqa: F401 (re-exported for the tests)
    T_BINARY, T_I32, T_STRUCT, Reader, encode_struct,
)


def read_footer(path) -> tuple[bytes, dict]:
    """(bytes before the footer, FileMetaData as nested {id: (type, value)})."""
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<I", data[-8:-4])
    return data[:-8 - n], Reader(data[-8 - n:-8]).struct()


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
