"""The layout string and binary columns are read in (``strings=`` of
read_table, ParquetFile.read*, scan_table): pyarrow's types by default,
string_view / binary_view, or large_string / large_binary.

The reader's plans ask the C++ column reader for the layout itself, so a
column is decoded into it (views point into the decoded pages and the
dictionary page's bytes); `table_with_strings` is the cast for paths that
read through pyarrow (a filter only pyarrow.compute evaluates).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pt

from ._pqfast import FormatError

# strings= choices: None keeps pyarrow's types; "view" gives string_view /
# binary_view (the layout polars and DataFusion return: no per-value copy of
# dictionary strings), "large" gives large_string / large_binary (64-bit offsets).
STRING_LAYOUTS = (None, "view", "large")


def checked_strings(strings):
    """`strings` if it is one of STRING_LAYOUTS, else a FormatError."""
    if strings not in STRING_LAYOUTS:
        raise FormatError(f"invalid argument: strings must be None, 'view' or 'large', not {strings!r}")
    return strings


def strings_type(t, strings):
    """`t` with its string and binary types, at any depth (not in dictionaries
    or extension types, whose storage is the file's), in the `strings` layout."""
    if strings is None:
        return t
    if pt.is_string(t) or pt.is_large_string(t) or pt.is_string_view(t):
        return pa.string_view() if strings == "view" else pa.large_string()
    if pt.is_binary(t) or pt.is_large_binary(t) or pt.is_binary_view(t):
        return pa.binary_view() if strings == "view" else pa.large_binary()
    if pt.is_list(t) or pt.is_large_list(t) or pt.is_list_view(t) or pt.is_large_list_view(t) or \
            pt.is_fixed_size_list(t):
        vt = strings_type(t.value_type, strings)
        if vt.equals(t.value_type):
            return t
        vf = t.value_field.with_type(vt)
        if pt.is_fixed_size_list(t):
            return pa.list_(vf, t.list_size)
        kind = pa.list_view if pt.is_list_view(t) else pa.large_list_view if pt.is_large_list_view(t) else \
            pa.large_list if pt.is_large_list(t) else pa.list_
        return kind(vf)
    if pt.is_map(t):
        kt, it = strings_type(t.key_type, strings), strings_type(t.item_type, strings)
        if kt.equals(t.key_type) and it.equals(t.item_type):
            return t
        return pa.map_(t.key_field.with_type(kt), t.item_field.with_type(it), t.keys_sorted)
    if pt.is_struct(t):
        fields = [t.field(i).with_type(strings_type(t.field(i).type, strings)) for i in range(t.num_fields)]
        return pa.struct(fields) if any(not f.type.equals(t.field(i).type) for i, f in enumerate(fields)) else t
    return t


def table_with_strings(table, strings):
    """`table` with its string columns in the `strings` layout: a cast where a
    path read them otherwise (pyarrow's own evaluation of a filter), else `table`."""
    if strings is None:
        return table
    fields = [f.with_type(strings_type(f.type, strings)) for f in table.schema]
    if all(f.type.equals(g.type) for f, g in zip(fields, table.schema)):
        return table
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))
