"""Nested chunks whose levels lie: clear FormatErrors, never a crash or a
wrong table. The files are built byte by byte (hostile_files.py's writer)."""

from __future__ import annotations

import struct

import pytest

import pqfast
from hostile_files import INT64_T, PLAIN, UNCOMPRESSED, page, write_file
from thrift_compact import T_BINARY as BINARY, T_I32 as I32

OPTIONAL, REPEATED, REQUIRED = 1, 2, 0
LIST = 3  # ConvertedType


def _bitpacked(values: list[int], width: int) -> bytes:
    """One bit-packed run of the RLE / bit-packed hybrid (padded to groups of 8)."""
    vals = values + [0] * (-len(values) % 8)
    bits = 0
    for i, v in enumerate(vals):
        bits |= v << (i * width)
    nbytes = len(vals) * width // 8
    return bytes([(len(vals) // 8) << 1 | 1]) + bits.to_bytes(nbytes, "little")


def _levels(values: list[int], width: int) -> bytes:
    run = _bitpacked(values, width)
    return struct.pack("<I", len(run)) + run


def _list_file(tmp_path, rep, deff, values, num_rows, name="l.parquet"):
    """optional group l (LIST) { repeated group list { required int64 element } }:
    max rep 1, max def 2; one v1 page of the given levels and PLAIN values."""
    body = _levels(rep, 1) + _levels(deff, 2) + b"".join(struct.pack("<q", v) for v in values)
    schema = [
        [(4, BINARY, "schema"), (5, I32, 1)],
        [(3, I32, OPTIONAL), (4, BINARY, "l"), (5, I32, 1), (6, I32, LIST)],
        [(3, I32, REPEATED), (4, BINARY, "list"), (5, I32, 1)],
        [(1, I32, INT64_T), (3, I32, REQUIRED), (4, BINARY, "element")],
    ]
    leaf = [(1, I32, INT64_T), (3, I32, REQUIRED), (4, BINARY, "element")]
    pages = [page(0, body, len(rep), PLAIN)]
    return write_file(tmp_path / name, [(leaf, INT64_T, UNCOMPRESSED, pages, False)], num_rows, schema=schema)


def test_the_builder_makes_a_valid_list_file(tmp_path):
    p = _list_file(tmp_path, [0, 1, 0, 0], [2, 2, 1, 0], [1, 2], 3)
    assert pqfast.read_table(p).column("l").to_pylist() == [[1, 2], [], None]


@pytest.mark.parametrize("case, rep, deff, values, rows, message", [
    ("no record starts the chunk", [1, 1, 0, 0], [2, 2, 1, 0], [1, 2], 3, "first repetition level is 1"),
    ("definition level above the maximum", [0, 1, 0, 0], [2, 3, 1, 0], [1, 2], 3, "definition level 3 above"),
    ("more records than rows", [0, 1, 0, 0], [2, 2, 1, 0], [1, 2], 2, "records, past the row group's 2 rows"),
    ("fewer records than rows", [0, 1, 0, 0], [2, 2, 1, 0], [1, 2], 5, "end after 3 of the row group's 5"),
    ("levels announce more values than stored", [0, 1, 0, 0], [2, 2, 2, 2], [1, 2], 3, "4 PLAIN values need 32 bytes"),
])
def test_lying_levels_raise_format_error(tmp_path, case, rep, deff, values, rows, message):
    p = _list_file(tmp_path, rep, deff, values, rows)
    with pytest.raises(pqfast.FormatError, match=message):
        pqfast.read_table(p)


def test_truncated_level_stream(tmp_path):
    p = _list_file(tmp_path, [0, 1, 0, 0], [2, 2, 1, 0], [1, 2], 3)
    data = bytearray(p.read_bytes())
    # The repetition levels' 4-byte length, made to run past the page.
    at = data.index(struct.pack("<I", 2) + bytes([0x03]))
    data[at:at + 4] = struct.pack("<I", 1 << 20)
    p.write_bytes(bytes(data))
    with pytest.raises(pqfast.FormatError, match="run past"):
        pqfast.read_table(p)
