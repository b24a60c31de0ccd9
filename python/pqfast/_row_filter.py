"""Rows of a column in a set of values, and those rows of a table, for every
flat type pqfast reads.

Arrow's compute kernels lack some of them (``is_in`` on float16, views and
extension types, ``array_take``/``array_filter`` on views, a value set of a
dictionary's type): each column is brought to a type the kernels have
(the dictionary's values, the view's large type, float32, the extension's
storage), compared or filtered there, and put back.
"""

from __future__ import annotations

import uuid as _uuid
from typing import Any, Sequence

import numpy as np


def _kernel_type(t):
    """(type the kernels take, whether the values compare as bytes)."""
    import pyarrow as pa
    import pyarrow.types as pt

    if pt.is_string_view(t):
        return pa.large_string()
    if pt.is_binary_view(t):
        return pa.large_binary()
    if pt.is_float16(t):
        return pa.float32()
    return t


def _as_bytes(t):
    import pyarrow as pa
    import pyarrow.types as pt

    if pt.is_large_string(t) or pt.is_large_binary(t):
        return pa.large_binary()
    return pa.binary()


def _value_set(values: Sequence[Any], t, from_float16: bool):
    import pyarrow as pa
    import pyarrow.types as pt

    vals = [v for v in values if v is not None]
    if from_float16:
        # A float16 column compared as float32: pyarrow rounds the set to float16 first.
        return pa.array(np.array(vals, dtype=np.float16).astype(np.float32), t)
    if pt.is_fixed_size_binary(t):
        vals = [v.bytes if isinstance(v, _uuid.UUID) else v for v in vals]
    return pa.array(vals, t)


def _mask_plain(arr, values: Sequence[Any]) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.types as pt

    if isinstance(arr.type, pa.BaseExtensionType):
        arr = arr.storage
    if pt.is_dictionary(arr.type):
        member = _mask_plain(arr.dictionary, values)
        idx = arr.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        valid = arr.is_valid().to_numpy(zero_copy_only=False)
        return member[idx] & valid if len(member) else np.zeros(len(arr), dtype=bool)
    from_float16 = pt.is_float16(arr.type)
    t = _kernel_type(arr.type)
    if t != arr.type:
        arr = arr.cast(t)
    if (pt.is_string(t) or pt.is_large_string(t)) and any(isinstance(v, (bytes, bytearray)) for v in values):
        # bytes probed on a String column (whose values may not be UTF-8): compare bytes.
        t = _as_bytes(t)
        arr = arr.cast(t)
        values = [v.encode() if isinstance(v, str) else v for v in values]
    m = pc.is_in(arr, value_set=_value_set(values, t, from_float16))
    return m.fill_null(False).to_numpy(zero_copy_only=False)


def is_in_mask(col, values: Sequence[Any]) -> np.ndarray:
    """A bool array: the rows of `col` (Array or ChunkedArray) equal to one of `values`."""
    import pyarrow as pa

    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    parts = [_mask_plain(c, values) for c in chunks]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def _filter_column(col, mask: np.ndarray):
    import pyarrow as pa
    import pyarrow.types as pt

    t = col.type
    k = _kernel_type(t.value_type if pt.is_dictionary(t) else t)
    if pt.is_string_view(t) or pt.is_binary_view(t):
        return col.cast(k).filter(mask).cast(t)
    if pt.is_dictionary(t) and (pt.is_string_view(t.value_type) or pt.is_binary_view(t.value_type)):
        dense = col.cast(t.value_type).cast(k).filter(mask).cast(t.value_type)
        return pa.chunked_array([c.dictionary_encode() for c in dense.chunks], type=None)
    return col.filter(mask)


def filter_rows(table, mask: np.ndarray):
    """The rows of `table` where `mask` is True, every column type kept."""
    import pyarrow as pa

    mask = pa.array(np.asarray(mask, dtype=bool))
    cols = [_filter_column(table.column(i), mask) for i in range(table.num_columns)]
    return pa.Table.from_arrays(cols, schema=table.schema)
