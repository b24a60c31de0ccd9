"""Turning Python, numpy and pyarrow values into Parquet PLAIN bytes to hash."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from . import _pqfast

PHYSICAL_TYPES = (
    "INT32",
    "INT64",
    "FLOAT",
    "DOUBLE",
    "BYTE_ARRAY",
    "FIXED_LEN_BYTE_ARRAY",
    "INT96",
)

_NUMPY_DTYPES = {
    "INT32": np.dtype("<i4"),
    "INT64": np.dtype("<i8"),
    "FLOAT": np.dtype("<f4"),
    "DOUBLE": np.dtype("<f8"),
}


def _check_type(physical_type: str) -> str:
    if not isinstance(physical_type, str):
        raise TypeError(f"physical_type must be a str, got {type(physical_type).__name__}")
    t = physical_type.upper()
    if t == "BOOLEAN":
        raise _pqfast.FormatError(
            "invalid argument: BOOLEAN columns have no Bloom filter in Parquet; nothing to hash"
        )
    if t not in PHYSICAL_TYPES:
        raise _pqfast.FormatError(
            f"invalid argument: unknown physical type {physical_type!r}; "
            f"expected one of {', '.join(PHYSICAL_TYPES)}"
        )
    return t


def _pyarrow():
    """The pyarrow module if this process imported it, else None. pyarrow is
    optional for the kernels (hashing, Bloom filters): a pyarrow value can
    only come from a process that imported it, so it is looked up here, never
    imported."""
    return sys.modules.get("pyarrow")


def _to_pyarrow(values: Any):
    """A pyarrow Array for pyarrow inputs, else None."""
    pa = _pyarrow()
    if pa is None:
        return None
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks()
    if isinstance(values, pa.Array):
        return values
    return None


def _byte_arrays(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """(data uint8, offsets int64) in Arrow layout for BYTE_ARRAY values."""
    arr = _to_pyarrow(values)
    if arr is not None:
        pa = _pyarrow()
        if arr.null_count:
            raise _pqfast.FormatError("invalid argument: null values have no hash; drop them first")
        if pa.types.is_string(arr.type) or pa.types.is_binary(arr.type):
            arr = arr.cast(pa.large_binary())
        elif not (pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)):
            raise TypeError(f"BYTE_ARRAY values must be strings or binary, got {arr.type}")
        _, offsets_buf, data_buf = arr.buffers()
        offsets = np.frombuffer(offsets_buf, dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
        data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
        return data, np.ascontiguousarray(offsets)
    if isinstance(values, (str, bytes)):
        values = [values]
    parts = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values]
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    data = np.frombuffer(b"".join(parts), dtype=np.uint8)
    return data, offsets


def _fixed_width(values: Any, physical_type: str, type_length: int | None) -> tuple[np.ndarray, int, int]:
    """(contiguous bytes, count, width) for fixed-width values."""
    if physical_type in _NUMPY_DTYPES:
        arr = _to_pyarrow(values)
        if arr is not None:
            if arr.null_count:
                raise _pqfast.FormatError("invalid argument: null values have no hash; drop them first")
            values = arr.to_numpy(zero_copy_only=False)
        a = np.asarray(values)
        if a.ndim == 0:
            a = a.reshape(1)
        want = _NUMPY_DTYPES[physical_type]
        if a.dtype != want:
            if a.dtype.kind not in "iuf" and a.dtype != object:
                raise TypeError(f"{physical_type} values must be numbers, got dtype {a.dtype}")
            # Integers must fit the column type: refuse silent wrap-around.
            if want.kind == "i" and a.dtype.kind in "iu" and a.size:
                info = np.iinfo(want)
                if a.min() < info.min or a.max() > info.max:
                    raise _pqfast.FormatError(
                        f"invalid argument: values out of range for {physical_type}"
                    )
            a = a.astype(want)
        a = np.ascontiguousarray(a.ravel())
        return a.view(np.uint8), a.size, want.itemsize
    # FIXED_LEN_BYTE_ARRAY and INT96: bytes of equal length.
    width = 12 if physical_type == "INT96" else type_length
    arr = _to_pyarrow(values)
    if arr is not None:
        values = arr.to_pylist()
    if isinstance(values, np.ndarray) and values.dtype.kind in "SV":
        items = [bytes(v) for v in values]
    elif isinstance(values, np.ndarray) and values.dtype == np.uint8 and values.ndim == 2:
        items = [bytes(r) for r in values]
    else:
        if isinstance(values, (bytes, bytearray)):
            values = [values]
        items = [bytes(v) for v in values]
    if width is None:
        width = len(items[0]) if items else 1
    for i, it in enumerate(items):
        if len(it) != width:
            raise _pqfast.FormatError(
                f"invalid argument: value {i} has {len(it)} bytes; {physical_type} needs {width}"
            )
    data = np.frombuffer(b"".join(items), dtype=np.uint8)
    return data, len(items), width


def hash_values(values: Any, physical_type: str, type_length: int | None = None) -> np.ndarray:
    """XXH64 (seed 0) of each value's PLAIN encoding, as a numpy uint64 array.

    ``values`` may be a numpy array, a list, or a pyarrow array. BYTE_ARRAY
    takes str (UTF-8) or bytes; FIXED_LEN_BYTE_ARRAY and INT96 take bytes of
    equal length (``type_length`` or the first value's length).
    """
    t = _check_type(physical_type)
    if t == "BYTE_ARRAY":
        data, offsets = _byte_arrays(values)
        return _pqfast._hash_byte_arrays(data, offsets)
    data, n, width = _fixed_width(values, t, type_length)
    return _pqfast._hash_fixed(data, n, t, width if t == "FIXED_LEN_BYTE_ARRAY" else 0)
