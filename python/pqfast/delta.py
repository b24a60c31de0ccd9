"""pqfast.delta: Parquet's DELTA encodings, one page's bytes at a time.

``decode_int32(buffer)`` / ``decode_int64(buffer)`` decode a whole
DELTA_BINARY_PACKED stream into a numpy array; ``encode_int32`` /
``encode_int64`` write one the way Arrow C++ does.
``decode_length_byte_array(buffer)`` / ``decode_byte_array(buffer)`` decode a
DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY page into a ``pyarrow.BinaryArray``
(zero-copy from the decoder's buffers); ``encode_length_byte_array`` /
``encode_byte_array`` write them byte for byte as Arrow C++ does. Malformed
input raises ``pqfast.FormatError`` saying what and where. The kernels run
without the GIL.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from . import _pqfast
from ._values import _byte_arrays

__all__ = [
    "decode_int32",
    "decode_int64",
    "encode_int32",
    "encode_int64",
    "decode_length_byte_array",
    "decode_byte_array",
    "encode_length_byte_array",
    "encode_byte_array",
    "stream_info",
]


def decode_int32(buffer: Any) -> np.ndarray:
    """Decode a DELTA_BINARY_PACKED INT32 stream (bytes-like) to a numpy int32 array.

    Miniblocks 33..64 bits wide (DuckDB 2.0 writes them) are read, wrapping mod 2**32.
    """
    return _pqfast._delta_decode_int32(buffer)


def decode_int64(buffer: Any) -> np.ndarray:
    """Decode a DELTA_BINARY_PACKED INT64 stream (bytes-like) to a numpy int64 array."""
    return _pqfast._delta_decode_int64(buffer)


def encode_int32(values: Any, block_size: int = 128, miniblocks: int = 4) -> bytes:
    """Encode int32 values as one DELTA_BINARY_PACKED stream (Arrow C++'s default geometry)."""
    arr = np.ascontiguousarray(values, dtype=np.int32).reshape(-1)
    return _pqfast._delta_encode_int32(arr, int(block_size), int(miniblocks))


def encode_int64(values: Any, block_size: int = 256, miniblocks: int = 4) -> bytes:
    """Encode int64 values as one DELTA_BINARY_PACKED stream (Arrow C++'s default geometry)."""
    arr = np.ascontiguousarray(values, dtype=np.int64).reshape(-1)
    return _pqfast._delta_encode_int64(arr, int(block_size), int(miniblocks))


def _binary_array(offsets: np.ndarray, data: np.ndarray):
    return pa.Array.from_buffers(pa.binary(), len(offsets) - 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def decode_length_byte_array(buffer: Any):
    """Decode one DELTA_LENGTH_BYTE_ARRAY page (bytes-like) to a ``pyarrow.BinaryArray``."""
    return _binary_array(*_pqfast._delta_decode_length_byte_array(buffer))


def decode_byte_array(buffer: Any):
    """Decode one DELTA_BYTE_ARRAY page (bytes-like) to a ``pyarrow.BinaryArray``.

    Prefixes start afresh on each page, as the format says."""
    return _binary_array(*_pqfast._delta_decode_byte_array(buffer))


def encode_length_byte_array(values: Any) -> bytes:
    """Encode values (a list of bytes/str, or a pyarrow binary/string array without
    nulls) as one DELTA_LENGTH_BYTE_ARRAY page, as Arrow C++ writes it."""
    data, offsets = _byte_arrays(values)
    return _pqfast._delta_encode_length_byte_array(data, offsets)


def encode_byte_array(values: Any) -> bytes:
    """Encode values as one DELTA_BYTE_ARRAY page (incremental: common prefixes
    with the value before), as Arrow C++ writes it."""
    data, offsets = _byte_arrays(values)
    return _pqfast._delta_encode_byte_array(data, offsets)


def stream_info(buffer: Any, encoding: str = "DELTA_BINARY_PACKED") -> dict:
    """What a page's streams hold.

    DELTA_BINARY_PACKED (the default): the header (block_size,
    miniblocks_per_block, total_values) and the stream's length, stream_bytes.
    DELTA_LENGTH_BYTE_ARRAY: total_values, the lengths stream's header and
    length (lengths_stream_bytes), data_offset and data_bytes.
    DELTA_BYTE_ARRAY: the same with prefix_stream_bytes and suffix_stream_bytes.
    """
    if encoding == "DELTA_BINARY_PACKED":
        return _pqfast._delta_stream_info(buffer)
    if encoding in ("DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"):
        info = _pqfast._delta_string_stream_info(buffer, encoding == "DELTA_BYTE_ARRAY")
        info["encoding"] = encoding
        return info
    raise ValueError(f"unknown encoding {encoding!r}: DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY")
