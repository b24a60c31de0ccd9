"""Columns read as dictionaries (``read_dictionary=`` of read_table,
ParquetFile and its reads, scan_table), as pyarrow's keyword names them:
string and binary columns given as ``dictionary<int32, string/binary>``.

The reader's plans (``_plan._Plan``) ask the C++ column reader for the
indices themselves; `table_with_dictionaries` is the encoding for paths that
read plain values (pyarrow's own evaluation of a filter, files of another
schema), as ``_strings.table_with_strings`` is for string layouts.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.types as pt

from ._pqfast import FormatError


def dictionary_names(read_dictionary) -> frozenset:
    """read_dictionary= (pyarrow's form: column names) as a set; a string
    alone is refused (it would read as its letters)."""
    if read_dictionary is None:
        return frozenset()
    if isinstance(read_dictionary, (str, bytes)) or not all(isinstance(c, str) for c in read_dictionary):
        raise FormatError(f"invalid argument: read_dictionary takes a list of column names, not {read_dictionary!r}")
    return frozenset(read_dictionary)


def table_with_dictionaries(table, read_dictionary):
    """`table` with the string and binary columns `read_dictionary` names as
    dictionary<int32, string/binary>, for reads that did not build them
    natively (pyarrow's fallbacks, files of another schema): the values
    encoded in order of appearance (pyarrow's own dictionary would start with
    the row group's dictionary page)."""
    names = dictionary_names(read_dictionary)
    for i, f in enumerate(table.schema):
        t = f.type
        if f.name not in names or pt.is_dictionary(t):
            continue
        if pt.is_string(t) or pt.is_large_string(t) or pt.is_string_view(t):
            value = pa.string()
        elif pt.is_binary(t) or pt.is_large_binary(t) or pt.is_binary_view(t):
            value = pa.binary()
        else:
            continue
        col = table.column(i).cast(value)
        d = pa.dictionary(pa.int32(), value)
        col = pa.chunked_array([c.dictionary_encode() for c in col.chunks], type=d)
        table = table.set_column(i, f.with_type(d), col)
    return table
