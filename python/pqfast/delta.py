"""pqfast.delta: Parquet DELTA_BINARY_PACKED streams of INT32 and INT64 values.

``decode_int32(buffer)`` / ``decode_int64(buffer)`` decode a whole stream (one
page's DELTA_BINARY_PACKED bytes) into a numpy array; ``encode_int32`` /
``encode_int64`` write one the way Arrow C++ does. Malformed streams raise
``pqfast.FormatError`` saying what and where. The kernels run without the GIL.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _pqfast

__all__ = ["decode_int32", "decode_int64", "encode_int32", "encode_int64", "stream_info"]


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


def stream_info(buffer: Any) -> dict:
    """A stream's header (block_size, miniblocks_per_block, total_values) and its
    length in bytes, stream_bytes (where a DELTA_LENGTH_BYTE_ARRAY page's data begins)."""
    return _pqfast._delta_stream_info(buffer)
