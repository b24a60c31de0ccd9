"""Reading flat Parquet columns into pyarrow Tables with pqfast's own reader.

The pages are decoded in C++ (``src/parquet/column_reader.cc``) on a thread
per column chunk with the GIL released, and handed over through the Arrow C
Data Interface, so pyarrow wraps the buffers without a copy. Types are those
pyarrow derives from the Parquet schema, or from the Arrow schema the writer
embedded (``ARROW:schema``: string_view, large_string, time zones,
dictionaries...), as ``pyarrow.parquet.read_table`` gives them.
"""

from __future__ import annotations

import base64
import contextlib
import os
from typing import Any, Sequence

from . import _pqfast
from ._pqfast import FormatError
from ._strings import checked_strings, strings_type

# LogicalType kinds (parquet.thrift LogicalType union ids).
_LT_STRING, _LT_ENUM, _LT_DECIMAL, _LT_DATE, _LT_TIME, _LT_TIMESTAMP = 1, 4, 5, 6, 7, 8
_LT_INTEGER, _LT_UNKNOWN, _LT_JSON, _LT_BSON, _LT_UUID, _LT_FLOAT16 = 10, 11, 12, 13, 14, 15
_UNITS = ("ms", "us", "ns")
# The converted type id old parquet-cpp (pyarrow < 0.15) wrote for null
# columns (its ConvertedType::NA, one past INTERVAL's neighbours): Arrow C++
# still reads it as the null type, whatever the physical type.
_CT_ARROW_NA = 24

# Struct levels an array may have to cross the Arrow C Data Interface into
# pyarrow (its importer's recursion limit): a deeper column is refused by
# name before any page is read. pyarrow itself refuses 99 levels and more.
_MAX_IMPORT_DEPTH = 64


@contextlib.contextmanager
def arrow_errors_named(path: str):
    """Errors pyarrow raises inside a read of `path` (converting a hostile
    schema, importing arrays, casting) become the FormatError (or
    MemoryLimitError) a read raises, naming the file: never a bare
    ValueError or an Arrow error. The read's boundary (read_source,
    scan_table) wraps itself in this, once."""
    import pyarrow as pa

    try:
        yield
    except FormatError:
        raise
    except pa.ArrowMemoryError as e:
        raise _pqfast.MemoryLimitError(f"memory limit: {path}: {e}") from e
    except (pa.ArrowException, ValueError) as e:
        raise FormatError(f"unsupported: {path}: pyarrow cannot hold what the file holds "
                          f"({type(e).__name__}: {e})") from e


# ---- types -------------------------------------------------------------------------------


def _decimal(precision: int, scale: int):
    import pyarrow as pa

    if not 1 <= precision <= 76:
        # Arrow's decimals hold 1..76 digits: a file saying otherwise is
        # corrupt, not a caller's ValueError.
        raise _pqfast.FormatError(f"corrupt: DECIMAL precision {precision} outside 1..76 (scale {scale})")
    if precision <= 38:
        return pa.decimal128(precision, scale), "decimal128"
    return pa.decimal256(precision, scale), "decimal256"


def is_null_typed(desc: dict) -> bool:
    """Whether pyarrow reads the leaf as the null type (every value null)."""
    return desc["logical_type"]["kind"] == _LT_UNKNOWN or desc.get("converted_type_id") == _CT_ARROW_NA


def parquet_arrow_type(desc: dict):
    """(pyarrow type, reader layout) for a leaf as pyarrow derives it from the Parquet schema alone."""
    import pyarrow as pa

    phys = desc["physical_type"]
    lt = desc["logical_type"]
    kind = lt["kind"]
    ct = desc.get("converted_type")
    if is_null_typed(desc):
        return pa.null(), "null"
    if phys == "BOOLEAN":
        return pa.bool_(), "bool"
    if phys == "INT32":
        if kind == _LT_INTEGER:
            bw, signed = lt["bit_width"], lt["is_signed"]
            t = {(8, True): pa.int8(), (16, True): pa.int16(), (32, True): pa.int32(),
                 (8, False): pa.uint8(), (16, False): pa.uint16(), (32, False): pa.uint32()}.get((bw, signed))
            if t is None:
                raise FormatError(f"column '{desc['dotted_path']}': INTEGER({bw},{signed}) on INT32")
            return t, str(t)
        if kind == _LT_DATE or ct == "DATE":
            return pa.date32(), "int32"
        if kind == _LT_TIME:
            if lt["unit"] != 0:
                raise FormatError(f"column '{desc['dotted_path']}': TIME({_UNITS[lt['unit']]}) on INT32")
            return pa.time32("ms"), "int32"
        if ct == "TIME_MILLIS":
            return pa.time32("ms"), "int32"
        if kind == _LT_DECIMAL:
            return _decimal(lt["precision"], lt["scale"])
        legacy = {"UINT_8": pa.uint8(), "UINT_16": pa.uint16(), "UINT_32": pa.uint32(),
                  "INT_8": pa.int8(), "INT_16": pa.int16(), "INT_32": pa.int32()}.get(ct)
        if legacy is not None:
            return legacy, str(legacy)
        return pa.int32(), "int32"
    if phys == "INT64":
        if kind == _LT_INTEGER:
            return (pa.int64(), "int64") if lt["is_signed"] else (pa.uint64(), "uint64")
        if kind == _LT_TIMESTAMP:
            return pa.timestamp(_UNITS[lt["unit"]], "UTC" if lt["adjusted_to_utc"] else None), "int64"
        if ct in ("TIMESTAMP_MILLIS", "TIMESTAMP_MICROS"):
            return pa.timestamp("ms" if ct == "TIMESTAMP_MILLIS" else "us", "UTC"), "int64"
        if kind == _LT_TIME:
            if lt["unit"] == 0:
                raise FormatError(f"column '{desc['dotted_path']}': TIME(MILLIS) on INT64")
            return pa.time64(_UNITS[lt["unit"]]), "int64"
        if ct == "TIME_MICROS":
            return pa.time64("us"), "int64"
        if kind == _LT_DECIMAL:
            return _decimal(lt["precision"], lt["scale"])
        if ct == "UINT_64":
            return pa.uint64(), "uint64"
        return pa.int64(), "int64"
    if phys == "INT96":
        return pa.timestamp("ns"), "timestamp_ns"
    if phys == "FLOAT":
        return pa.float32(), "float32"
    if phys == "DOUBLE":
        return pa.float64(), "float64"
    if phys == "BYTE_ARRAY":
        if kind == _LT_DECIMAL:
            return _decimal(lt["precision"], lt["scale"])
        # As Arrow C++ maps them (parquet/arrow/schema.cc): JSON is read as
        # UTF-8 (wrapped as arrow.json by `extension_type`); ENUM and BSON
        # carry no promise of UTF-8 and stay binary.
        if kind in (_LT_STRING, _LT_JSON) or (kind == 0 and ct in ("UTF8", "JSON")):
            return pa.string(), "binary"
        return pa.binary(), "binary"
    if phys == "FIXED_LEN_BYTE_ARRAY":
        if kind == _LT_DECIMAL:
            return _decimal(lt["precision"], lt["scale"])
        if kind == _LT_FLOAT16 and desc["type_length"] == 2:
            return pa.float16(), "float16"
        return pa.binary(desc["type_length"]), "fixed_size_binary"
    raise FormatError(f"column '{desc['dotted_path']}': unknown physical type {phys}")


def extension_type(desc: dict):
    """The Arrow extension type pyarrow 26 gives a leaf (``arrow_extensions_enabled``
    is on by default there): ``arrow.uuid`` for UUID, ``arrow.json`` for JSON; else None."""
    import pyarrow as pa

    kind = desc["logical_type"]["kind"]
    phys = desc["physical_type"]
    if kind == _LT_UUID and phys == "FIXED_LEN_BYTE_ARRAY" and desc["type_length"] == 16:
        return pa.uuid()
    if phys == "BYTE_ARRAY" and (kind == _LT_JSON or (kind == 0 and desc.get("converted_type") == "JSON")):
        return pa.json_(pa.string())
    return None


def arrow_format(t) -> str | None:
    """The Arrow C Data Interface format string of a flat pyarrow type, or None."""
    import pyarrow as pa
    import pyarrow.types as pt

    simple = {pa.bool_(): "b", pa.int8(): "c", pa.int16(): "s", pa.int32(): "i", pa.int64(): "l",
              pa.uint8(): "C", pa.uint16(): "S", pa.uint32(): "I", pa.uint64(): "L", pa.float16(): "e",
              pa.float32(): "f", pa.float64(): "g", pa.string(): "u", pa.large_string(): "U",
              pa.binary(): "z", pa.large_binary(): "Z", pa.date32(): "tdD", pa.null(): "n",
              pa.time32("ms"): "ttm", pa.time64("us"): "ttu", pa.time64("ns"): "ttn"}
    if t in simple:
        return simple[t]
    if pt.is_string_view(t):
        return "vu"
    if pt.is_binary_view(t):
        return "vz"
    if pt.is_duration(t):
        return f"tD{t.unit[0]}"
    if pt.is_timestamp(t):
        return f"ts{t.unit[0]}:{t.tz or ''}"
    if pt.is_decimal128(t):
        return f"d:{t.precision},{t.scale}"
    if pt.is_decimal256(t):
        return f"d:{t.precision},{t.scale},256"
    if pt.is_fixed_size_binary(t):
        return f"w:{t.byte_width}"
    return None


def _embedded_arrow_schema(kv: dict, strict: bool = False):
    raw = kv.get(b"ARROW:schema") if kv else None
    if raw is None and kv:
        raw = kv.get("ARROW:schema")
    if raw is None:
        return None
    import pyarrow as pa

    try:
        data = base64.b64decode(raw)
        return pa.ipc.read_schema(pa.py_buffer(data))
    except pa.ArrowNotImplementedError as e:
        # A well-formed schema of a type Arrow lacks (polars writes Int128 so):
        # pyarrow refuses the file; reading refuses it too (`strict`).
        if strict:
            raise FormatError(f"unsupported: the file's Arrow schema (ARROW:schema) holds a type Arrow "
                              f"does not implement ({e}); pyarrow refuses the file too") from None
        return None
    except Exception:  # noqa: BLE001 - a malformed schema is ignored, as pyarrow does
        return None


def duration_units(meta) -> dict:
    """{top-level column: unit} of the Arrow durations in the embedded schema
    (stored as plain INT64: the unit is known only from there)."""
    import pyarrow.types as pt

    schema = _embedded_arrow_schema(meta.key_value_metadata)
    if schema is None:
        return {}
    return {f.name: f.type.unit for f in schema if pt.is_duration(f.type)}


def with_duration_unit(meta, desc: dict) -> dict:
    """`desc` (a leaf of `meta`) with its Arrow duration unit, when it has one."""
    if desc.get("physical_type") != "INT64" or len(desc.get("path", ())) != 1:
        return desc
    unit = duration_units(meta).get(desc["path"][0])
    return dict(desc, duration_unit=unit) if unit else desc


_BINARY_LAYOUTS = {"u": "binary", "z": "binary", "U": "large_binary", "Z": "large_binary",
                   "vu": "binary_view", "vz": "binary_view"}


class _Plan:
    """How one top-level column is read: layout and format for the C++ reader, then the final type."""

    def __init__(self, name: str, leaf: int, desc: dict, arrow_field, strings=None, read_dictionary=False):
        self._types(name, leaf, desc, arrow_field)
        if read_dictionary:
            self._as_dictionary(desc)
        # Set by _plans for a flat column read as a dictionary: the C++ reader
        # gives dictionary<int32> chunks itself (indices straight from the
        # pages, the dictionary page decoded once), no dictionary_encode after.
        self.native_dictionary = False
        if strings is not None and self.dictionary is None and self.extension is None and \
                self.read_type.equals(self.final_type):
            # Read natively in the layout asked for (binary views point into
            # the decoded pages and the dictionary's bytes): no cast after.
            t = strings_type(self.final_type, strings)
            if not t.equals(self.final_type):
                self.read_type = self.final_type = t
                self.layout = _BINARY_LAYOUTS[arrow_format(t)]
                self.format = arrow_format(t)

    def _types(self, name: str, leaf: int, desc: dict, arrow_field):
        import pyarrow as pa
        import pyarrow.types as pt

        self.name = name
        self.leaf = leaf
        self.nullable = desc["max_definition_level"] > 0
        base, layout = parquet_arrow_type(desc)
        self.read_type, self.layout = base, layout
        self.final_type = base
        self.dictionary = None
        self.field_metadata = None
        # Read as its storage type, then wrapped (chunk by chunk) in `finish`.
        self.extension = extension_type(desc)
        if arrow_field is None:
            self.format = arrow_format(base) or ""
            return
        self.field_metadata = arrow_field.metadata
        # The embedded Arrow type wins only where Arrow C++ lets it
        # (parquet/arrow/schema.cc, ApplyOriginalStorageMetadata).
        origin = arrow_field.type
        final = base
        narrow = None
        if pt.is_timestamp(origin) and pt.is_timestamp(base):
            if base.tz == "UTC" and origin.tz:
                final = origin if origin.unit == base.unit else pa.timestamp(base.unit, origin.tz)
        if pt.is_duration(origin) and base == pa.int64():
            final = origin
        if pt.is_dictionary(origin) and (pt.is_string(base) or pt.is_binary(base)):
            # The values keep the Parquet type; the index type and `ordered`
            # are the embedded schema's, as pyarrow gives them (polars writes
            # Enum as dictionary<uint8, ordered>, Categorical as uint32).
            index = origin.index_type if pt.is_integer(origin.index_type) else pa.int32()
            self.dictionary = pa.dictionary(index, base, origin.ordered)
        if isinstance(origin, pa.BaseExtensionType) and self.extension is None and \
                origin.storage_type.equals(base):
            # A registered extension type whose storage is what the file holds.
            self.extension = origin
        if (pt.is_large_binary(origin) and pt.is_binary(base)) or \
                (pt.is_large_string(origin) and pt.is_string(base)) or \
                (pt.is_binary_view(origin) and pt.is_binary(base)) or \
                (pt.is_string_view(origin) and pt.is_string(base)):
            final = origin
            self.layout = _BINARY_LAYOUTS[arrow_format(origin)]
        if pt.is_decimal256(origin) and pt.is_decimal128(base):
            final = origin
            self.layout = "decimal256"
        if (pt.is_decimal32(origin) or pt.is_decimal64(origin)) and pt.is_decimal128(base) and \
                (origin.precision, origin.scale) == (base.precision, base.scale):
            # pyarrow gives back the narrow decimals it wrote: read as
            # decimal128, narrowed in `finish` (the precision fits).
            narrow = origin
        self.read_type = self.final_type = final
        self.format = arrow_format(final) or ""
        if narrow is not None:
            self.final_type = narrow

    def _as_dictionary(self, desc: dict):
        """read_dictionary= names this column: pyarrow gives a string or binary
        leaf as dictionary<int32> of its Parquet type, whatever the embedded
        schema says (large_string, string_view, another index type)."""
        import pyarrow as pa
        import pyarrow.types as pt

        base, _ = parquet_arrow_type(desc)
        if self.extension is not None or not (pt.is_string(base) or pt.is_binary(base)):
            return  # (pyarrow reads only BYTE_ARRAY strings and binary as dictionaries)
        self.dictionary = pa.dictionary(pa.int32(), base)
        self.read_type = self.final_type = base
        self.layout, self.format = "binary", arrow_format(base)

    @property
    def read_layout(self) -> str:
        """The layout the C++ reader is asked for (bindings' parse_read_layout)."""
        return "dictionary:" + self.layout if self.native_dictionary else self.layout

    def spec(self, rg: int):
        return (rg, self.leaf, self.read_layout, self.format)

    def finish(self, chunks: list, page_dictionaries: list | None = None):
        """The column from its chunks (one per row group). A dictionary column's
        dictionary is, as pyarrow builds it, the chunk's dictionary page (every
        value, in page order) then the values of its non-dictionary pages in
        order of appearance, when `page_dictionaries` gives the pages."""
        import pyarrow as pa

        if self.native_dictionary:
            return self._native_dictionary(chunks)
        arr = pa.chunked_array(chunks, type=self.read_type)
        if not arr.type.equals(self.final_type):
            try:
                arr = arr.cast(self.final_type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                self.final_type = arr.type
        if self.dictionary is not None:
            d = self.dictionary
            pages = page_dictionaries or [None] * arr.num_chunks
            arr = pa.chunked_array([dictionary_array(c, page, d) for c, page in zip(arr.chunks, pages)], type=d)
        elif self.extension is not None:
            ext = self.extension
            arr = pa.chunked_array([pa.ExtensionArray.from_storage(ext, c) for c in arr.chunks], type=ext)
        return arr

    def _native_dictionary(self, chunks: list):
        """The column from dictionary<int32> chunks the reader built: the
        index type and `ordered` made the plan's (an embedded schema's uint8...)."""
        import pyarrow as pa

        d = self.dictionary
        out = [c if c.type.equals(d) else
               pa.DictionaryArray.from_arrays(c.indices.cast(d.index_type), c.dictionary, ordered=d.ordered)
               for c in chunks]
        return pa.chunked_array(out, type=d)

    def field(self, arr):
        return _field(self.name, arr.type, self.nullable, self.field_metadata)


def _field(name: str, t, nullable: bool, metadata=None):
    """An Arrow field; a required column of the null type is the non-nullable
    null field pyarrow gives (pa.field refuses to make one directly)."""
    import pyarrow as pa

    f = pa.field(name, t, nullable=True, metadata=metadata)
    return f if nullable else f.with_nullable(False)


class _EmptyGroupPlan:
    """A top-level group with no leaves: pyarrow reads it as struct<> (a
    repeated one as a list of non-null struct<>), null in every row."""

    def __init__(self, name: str, repetition: int):
        import pyarrow as pa

        self.name = name
        if repetition == _REPEATED:
            self.type, self.nullable = pa.list_(pa.field(name, pa.struct([]), nullable=False)), False
        else:
            self.type, self.nullable = pa.struct([]), repetition != _REQUIRED

    def column(self, row_counts: list):
        """The column of row groups (or pieces) of these row counts."""
        import pyarrow as pa

        return pa.chunked_array([pa.nulls(n, self.type) for n in row_counts], type=self.type)

    def field(self, arr):
        return _field(self.name, arr.type, self.nullable)


_REQUIRED, _REPEATED = 0, 2


def is_nested_plan(p) -> bool:
    """Whether a plan reads a nested column (leaves assembled by the nested reader)."""
    return not isinstance(p, (_Plan, _EmptyGroupPlan))


def _arrow_field_of(arrow_schema, fields: list, k: int):
    """The embedded Arrow field of top-level field k: by position where the
    Arrow schema matches the Parquet one field for field (names given twice
    included), else by its name."""
    if arrow_schema is None:
        return None
    name = fields[k][0]
    if len(arrow_schema) == len(fields) and arrow_schema.field(k).name == name:
        return arrow_schema.field(k)
    i = arrow_schema.get_field_index(name)
    return arrow_schema.field(i) if i >= 0 else None


def _plans(meta, path: str, columns: Sequence[str] | None, strings=None, read_dictionary=None) -> list:
    descs = meta.columns()
    as_dictionary = _dictionary_names(read_dictionary)
    # (name, leaves, is a group, repetition) per top-level field, in schema
    # order: a name given twice is every field of that name (as pyarrow's
    # ParquetFile.read gives them), a group without leaves an empty struct.
    fields = _pqfast._top_level_fields(meta)
    top: dict[str, list[int]] = {}
    by_name: dict[str, list[int]] = {}
    for k, (name, leaves, _, _) in enumerate(fields):
        if leaves:
            top.setdefault(name, leaves)
        by_name.setdefault(name, []).append(k)
    arrow_schema = _embedded_arrow_schema(meta.key_value_metadata, strict=True)
    # Each selected field by index; a name the file lacks stays a name (a dotted struct field).
    picked = list(range(len(fields))) if columns is None else \
        [k for name in columns for k in by_name.get(name, [name])]
    plans = []
    for k in picked:
        if isinstance(k, int):
            name, leaves, group, repetition = fields[k]
        else:
            name, leaves = k, None
        if leaves is None:
            # "s.a" names field a of struct s, as pyarrow's read_table takes it.
            ref = _struct_field_ref(name, top)
            if ref is None:
                raise KeyError(f"{path}: no column {name!r} (columns: {', '.join(list(top)[:12])})")
            from ._nested import NestedPlan

            top_name, refs = ref
            leaves = top[top_name]
            field = arrow_schema.field(arrow_schema.get_field_index(top_name)) \
                if arrow_schema is not None and arrow_schema.get_field_index(top_name) >= 0 else None
            plan = _nested_plan(NestedPlan, meta, path, top_name, _pqfast._top_level_field_of(meta, leaves[0]), descs,
                                field, strings)
            plan.set_field_ref(refs, path)
            plans.append(plan)
            continue
        if not leaves:
            plans.append(_EmptyGroupPlan(name, repetition))
            continue
        field = _arrow_field_of(arrow_schema, fields, k)
        deepest = max(len(descs[i]["path"]) for i in leaves)
        if deepest > _MAX_IMPORT_DEPTH:
            raise FormatError(f"unsupported: {path}: column {name!r}: nested {deepest} levels deep, past the "
                              f"{_MAX_IMPORT_DEPTH} a column may have to cross the Arrow C Data Interface")
        if group or len(leaves) != 1 or _pqfast._is_nested_leaf(meta, leaves[0]):
            from ._nested import NestedPlan

            plans.append(_nested_plan(NestedPlan, meta, path, name, k, descs, field, strings))
            continue
        problem = _pqfast._flat_column_problem(meta, leaves[0])
        if problem:
            raise FormatError(f"{path}: {problem}")
        plan = _Plan(name, leaves[0], descs[leaves[0]], field, strings, read_dictionary=name in as_dictionary)
        plan.native_dictionary = plan.dictionary is not None and plan.layout == "binary"
        plans.append(plan)
    return plans


def _dictionary_names(read_dictionary) -> frozenset:
    """read_dictionary= (pyarrow's form: column names) as a set; a string
    alone is refused (it would read as its letters)."""
    if read_dictionary is None:
        return frozenset()
    if isinstance(read_dictionary, (str, bytes)) or not all(isinstance(c, str) for c in read_dictionary):
        raise FormatError(f"invalid argument: read_dictionary takes a list of column names, not {read_dictionary!r}")
    return frozenset(read_dictionary)


def _nested_plan(plan_class, meta, path: str, name: str, field_index: int, descs: list, field, strings=None):
    """The plan of nested column `name` (top-level field `field_index`); a
    schema form it cannot read (a LIST group of two children...) raises a
    FormatError naming the file."""
    try:
        return plan_class(meta, name, field_index, descs, field, strings=strings)
    except FormatError as e:
        raise FormatError(f"{path}: {e}") from None


def _struct_field_ref(name: str, top: dict):
    """(top-level column, [field, ...]) for a dotted name whose first part is
    a top-level column ("s.a", "s.t.z"), else None."""
    at = name.find(".")
    while at > 0:
        if name[:at] in top:
            return name[:at], name[at + 1:].split(".")
        at = name.find(".", at + 1)
    return None


def _schema_metadata(meta) -> dict | None:
    kv = meta.key_value_metadata
    if not kv:
        return None
    out = {}
    for k, v in kv.items():
        kb = k if isinstance(k, bytes) else str(k).encode()
        if kb == b"ARROW:schema":
            continue
        out[kb] = v if isinstance(v, bytes) else (b"" if v is None else str(v).encode())
    return out or None


def _pyarrow_types(source, meta):
    """The Arrow schema pyarrow derives from the file's footer (map entries are
    named there as pyarrow names them, which no Arrow type constructor in
    Python can do): the footer read again and handed to pyarrow's parser."""
    import io
    import struct

    import pyarrow.parquet as pq

    size = os.path.getsize(source.path) if source.local else source.size
    n = meta.footer_length + 8
    if source.local:
        with open(source.path, "rb") as fh:
            fh.seek(size - n)
            tail = fh.read(n)
    else:
        tail = bytes(source.read_at(size - n, n))
    if len(tail) != n or struct.unpack("<I", tail[-8:-4])[0] != meta.footer_length:
        raise FormatError(f"{source.path}: the footer changed while it was read")
    return pq.read_metadata(io.BytesIO(b"PAR1" + tail)).schema.to_arrow_schema()


def dictionary_array(values, page, t):
    """`values` as dictionary type `t`, the dictionary as pyarrow builds it:
    the chunk's dictionary page (`page`: every value, in page order; None when
    unknown) then the values not in it, in order of appearance."""
    import pyarrow as pa

    if page is not None and page.type.equals(values.type) and page.null_count == 0:
        e = pa.concat_arrays([page, values]).dictionary_encode()
        indices, dictionary = e.indices.slice(len(page)), e.dictionary
    else:
        e = values.dictionary_encode()
        indices, dictionary = e.indices, e.dictionary
    return pa.DictionaryArray.from_arrays(indices.cast(t.index_type), dictionary, ordered=t.ordered)


def table_with_dictionaries(table, read_dictionary):
    """`table` with the string and binary columns `read_dictionary` names as
    dictionary<int32, string/binary>, for reads that did not build them
    natively (pyarrow's fallbacks, the staged scan): the values encoded in
    order of appearance (pyarrow's own dictionary would start with the row
    group's dictionary page)."""
    import pyarrow as pa
    import pyarrow.types as pt

    names = _dictionary_names(read_dictionary)
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


def _dictionary_pages(source, meta, plan: _Plan, rgs: list) -> list:
    """Per row group, the values of the column's dictionary page as an Arrow
    array (None where the chunk has none or it cannot be located: the
    dictionary then follows the values' order)."""
    import pyarrow as pa

    out = []
    for rg in rgs:
        c = meta.column_chunk(rg, plan.leaf)
        off, end = c["dictionary_page_offset"], c["data_page_offset"]
        # Declared offsets are the file's word: a span past the chunk's size or
        # past 64 MiB (dictionary pages are kept near 1 MiB by writers) is not read.
        if off is None or not 0 <= off < end or end - off > min(max(c["total_compressed_size"], 0), 64 << 20):
            out.append(None)
            continue
        if source.local:
            with open(source.path, "rb") as fh:
                fh.seek(off)
                data = fh.read(end - off)
        else:
            data = bytes(source.read_at(off, end - off))
        try:
            caps = _pqfast._dictionary_page(data, meta, rg, plan.leaf, plan.layout, plan.format)
        except FormatError:
            caps = None
        out.append(pa.Array._import_from_c_capsule(*caps) if caps is not None else None)
    return out


def _thread_count(threads: int | None, use_threads: bool) -> int:
    """threads= as the bindings take it: 0 for every core."""
    if threads is None:
        return 0 if use_threads else 1
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise FormatError(f"invalid argument: threads must be a count of threads (0: every core), not {threads!r}")
    return int(threads)


def read_source(source, meta, columns=None, row_groups=None, use_threads: bool = True, memory_limit=None,
                threads: int | None = None, strings: str | None = None, read_dictionary=None):
    """Reads a file already opened (a parquet._Source and its parsed footer) into a pyarrow.Table
    (`threads`: the reader's threads; None: all cores, or one when not `use_threads`;
    `strings`: the layout of string and binary columns, see _strings; `read_dictionary`:
    columns read as dictionary<int32>, as pyarrow's keyword)."""
    with arrow_errors_named(source.path):
        return _read_source(source, meta, columns, row_groups, use_threads, memory_limit, threads,
                            checked_strings(strings), read_dictionary)


def _read_source(source, meta, columns, row_groups, use_threads, memory_limit, threads, strings=None,
                 read_dictionary=None):
    import pyarrow as pa

    plans = _plans(meta, source.path, columns, strings, read_dictionary)
    nrg = meta.num_row_groups
    if row_groups is None:
        rgs = list(range(nrg))
    else:
        rgs = []
        for r in row_groups:
            r = int(r)
            if not -nrg <= r < nrg:
                raise IndexError(f"row group index {r} out of range (0..{nrg - 1})")
            rgs.append(r % nrg)
    flat = [p for p in plans if isinstance(p, _Plan)]
    nested = [p for p in plans if is_nested_plan(p)]
    if any(p.has_map for p in nested):
        arrow_types = _pyarrow_types(source, meta)
        for p in nested:
            if p.has_map:
                p.pyarrow_type = arrow_types.field(p.name).type
    specs = [p.spec(rg) for rg in rgs for p in flat]
    nested_specs = [p.nested_spec(rg) for rg in rgs for p in nested]
    threads = _thread_count(threads, use_threads)
    if not source.local and not getattr(source, "positional", False):
        threads = 1  # seek + read on a shared file object: one reader at a time
    if specs or nested_specs:
        from .scan import _memory_limit

        limit = _memory_limit(memory_limit)
        if source.local:
            caps = _pqfast._read_chunks_path(source.path, meta, specs, threads, limit, nested_specs)
        else:
            caps = _pqfast._read_chunks_file(source.read_at, source.size, source.path, meta, specs, threads, limit,
                                             nested_specs)
    else:
        caps = []
    by_plan = {}
    for j, p in enumerate(flat):
        by_plan[id(p)] = [pa.Array._import_from_c_capsule(*caps[i * len(flat) + j]) for i in range(len(rgs))]
    base = len(specs)
    for j, p in enumerate(nested):
        by_plan[id(p)] = [pa.Array._import_from_c_capsule(*caps[base + i * len(nested) + j]) for i in range(len(rgs))]
    if nested and not rgs and nrg:
        # No row group read: the types from row group 0, sliced empty.
        empty = _read_source(source, meta, [p.name for p in nested], [0], use_threads, memory_limit, threads,
                             strings, read_dictionary)
        for p in nested:
            by_plan[id(p)] = [empty.column(p.name).combine_chunks().slice(0, 0)]
    elif nested and not nrg:
        # No row group in the file: no leaf to read a type from, so the
        # columns are empty of the types pyarrow derives from the footer.
        arrow_types = _pyarrow_types(source, meta)
        for p in nested:
            p.pyarrow_type = arrow_types.field(p.field_index).type
    arrays, fields = [], []
    for p in plans:
        chunks = by_plan.get(id(p))
        if isinstance(p, _EmptyGroupPlan):
            arr = p.column([meta.row_group(r)["num_rows"] for r in rgs])
        elif isinstance(p, _Plan):
            pages = _dictionary_pages(source, meta, p, rgs) \
                if p.dictionary is not None and not p.native_dictionary else None
            arr = p.finish(chunks, pages)
        else:
            # Per leaf, per row group: the dictionary pages of leaves read as dictionaries.
            pages = [_dictionary_pages(source, meta, q, rgs) if q.dictionary is not None else None
                     for q in p.leaf_plans]
            arr = p.finish(chunks, pages if any(x is not None for x in pages) else None)
        arrays.append(arr)
        fields.append(p.field(arr))
    schema = pa.schema(fields, metadata=_schema_metadata(meta))
    if not arrays:
        # No columns: a table of the selected row groups' row count, as pyarrow gives.
        num = sum(meta.row_group(r)["num_rows"] for r in rgs)
        return pa.table({"_": pa.nulls(num)}).drop_columns(["_"])  # (replacing its metadata would lose the rows)
    return pa.Table.from_arrays(arrays, schema=schema)


def _read_columns_it_has(source, columns, row_groups, filesystem, use_threads, memory_limit, threads=None,
                         strings=None, read_dictionary=None):
    """read_table(source, columns) of the columns the file has (the others
    are given as nulls by the caller)."""
    try:
        return read_table(source, columns, row_groups, filesystem, use_threads, memory_limit=memory_limit,
                          threads=threads, strings=strings, read_dictionary=read_dictionary)
    except (KeyError, FormatError) as e:
        if isinstance(e, FormatError) and "no column '" not in str(e):
            raise
    from .parquet import ParquetFile

    f = ParquetFile(source, filesystem=filesystem)
    try:
        have = {d["path"][0] for d in f.columns} | {d["dotted_path"] for d in f.columns}
    finally:
        f.close()
    return read_table(source, [c for c in columns if c in have], row_groups, filesystem, use_threads,
                      memory_limit=memory_limit, threads=threads, strings=strings, read_dictionary=read_dictionary)


def read_table(source: Any, columns: Sequence[str] | None = None, row_groups: Sequence[int] | None = None,
               filesystem: Any = None, use_threads: bool = True, *, filters: Any = None,
               threads: int | None = None, stats: bool = False, storage_options: dict | None = None,
               memory_limit: int | None = None, partitioning: str | None = "hive", strings: str | None = None,
               read_dictionary: Sequence[str] | None = None):
    """Reads a Parquet file (a path, a path on ``filesystem``, a binary file object, or a
    list of paths) into a ``pyarrow.Table``, as ``pyarrow.parquet.read_table`` names it.

    Columns of every physical type and encoding are read, nested ones too
    (lists, structs, maps at any depth, as pyarrow 26 types them); a dotted
    name ``"s.a"`` reads field ``a`` of struct ``s`` as a column ``a``.

    ``filters`` (pyarrow's DNF: a list of ``(column, op, value)`` tuples is an
    AND, a list of such lists an OR; ops ``=``/``==``, ``!=``, ``<``, ``<=``,
    ``>``, ``>=``, ``in``, ``not in``; or a ``pyarrow.compute.Expression`` of
    the same comparisons with ``&``, ``|``, ``~``, ``is_null``, ``is_valid``)
    returns the rows ``pyarrow.dataset`` returns for it, in file-then-row
    order, read by the native scan engine: row groups pruned by min/max and
    Bloom filters, chunks by dictionaries, pages by the page index, filter
    columns decoded first and the projected columns read only for matching
    rows. ``source`` may then also be a directory or a glob, or ``s3://`` URLs
    (``storage_options`` as ``prune`` takes them), read in stages of ranged
    GETs, many files in flight: the listing, every file's tail (footer, page
    index), the Bloom blocks of ``=``/``in`` atoms, then the same engine over
    the bytes fetched so far, fetching what it lacks in one round per step:
    the filter columns' dictionaries and candidate pages, then the projected
    pages of the selected rows (a lookup: five rounds). With ``filesystem``
    (a pyarrow ``FileSystem`` or an fsspec filesystem, async ones such as
    s3fs included) paths on it go through that same staged scan, listed and
    read by :mod:`pqfast.fs_driver`'s backends. ``stats=True`` returns
    ``(table, dict)``, the dict saying what was read (on S3 also ``rounds``,
    ``round_detail``, ``requests`` and ``bytes_fetched``).

    A directory is read as ``pyarrow.parquet.read_table`` reads it: every
    ``*.parquet`` file under it, in path order, none under a name starting
    with "." or "_" (``_delta_log/``, ``_SUCCESS``); the first file's schema
    is the lake's (columns added later are null in older files, others cast);
    with ``partitioning="hive"`` (the default; None: off) each ``key=value``
    directory level is a dictionary column after the files' columns, typed
    and valued as pyarrow gives it, and filters on it choose directories
    before any file is opened (:mod:`pqfast._partitions`); so too for an
    ``s3://`` prefix ending in "/" and a directory on ``filesystem``.

    ``memory_limit`` bounds the bytes a read may allocate for decompressed
    pages and decoded values, shared by its threads (default: half of what
    the process may use: physical memory, the cgroup's limit, RLIMIT_AS).
    A file that would need more, like a few KB announcing gigabytes, raises
    ``pqfast.MemoryLimitError`` (a ``MemoryError``) naming the column, the
    size asked and the limit, before the memory is allocated.

    ``strings``: the layout of string and binary columns: None (pyarrow's
    types, as the file's Arrow schema names them), ``"view"``
    (string_view / binary_view, as polars and DataFusion return them: views
    into the decoded pages and dictionaries, no per-value copy) or
    ``"large"`` (large_string / large_binary); at any depth of nested
    columns, not in dictionary-typed columns (docs/strings.md).

    ``read_dictionary``: names of columns given as ``dictionary<int32, string>``
    (or ``binary``), as ``pyarrow.parquet.read_table(read_dictionary=)`` types
    and values them: per row group, the dictionary page's values then those of
    pages the writer did not dictionary-encode. The indices come straight from
    the pages' runs (no string is built), which makes group-by keys cheap for
    engines (docs/read_dictionary.md). Other columns named there keep their type.
    """
    from .parquet import ParquetFile

    from .parquet import _remote_urls

    if filters is not None or stats or (filesystem is None and _remote_urls(source)) \
            or _directory_on(filesystem, source):
        if row_groups is not None:
            raise FormatError("invalid argument: filters= reads paths, directories, globs and s3:// URLs; "
                              "row_groups= does not combine with it yet")
        from .scan import scan_table

        return scan_table(source, columns, filters, threads=threads, use_threads=use_threads, stats=stats,
                          storage_options=storage_options, memory_limit=memory_limit, filesystem=filesystem,
                          partitioning=partitioning, strings=strings, read_dictionary=read_dictionary)

    if filesystem is None and isinstance(source, (str, os.PathLike)) and os.path.isdir(os.fspath(source)):
        from .parquet import expand_paths
        from .scan import _local_partitions

        files = expand_paths(source)
        if not files:
            raise FormatError(f"invalid argument: no Parquet files in {os.fspath(source)}")
        parts = _local_partitions(source, files, partitioning) if partitioning is not None else None
        if parts is None:
            return read_table(files, columns, row_groups, None, use_threads, memory_limit=memory_limit,
                              threads=threads, strings=strings, read_dictionary=read_dictionary)
        cols, keys = parts.split(columns)
        tables = _read_files(files, cols, row_groups, use_threads, memory_limit, threads=threads, strings=strings,
                             read_dictionary=read_dictionary)
        table = parts.with_columns(_concat(tables), keys, range(len(files)), [t.num_rows for t in tables])
        return table.select(list(columns)) if columns is not None else table
    if isinstance(source, (list, tuple)):
        import pyarrow as pa

        tables = _read_files(source, columns, row_groups, use_threads, memory_limit, filesystem, threads, strings,
                             read_dictionary)
        return _concat(tables) if tables else pa.table({})
    with ParquetFile(source, filesystem=filesystem) as f:
        return f.read(columns=columns, row_groups=row_groups, use_threads=use_threads, memory_limit=memory_limit,
                      threads=threads, strings=strings, read_dictionary=read_dictionary)


def _directory_on(filesystem, source) -> bool:
    """Whether `source` names a directory of `filesystem` (read as a lake by
    the staged scan, its key=value levels columns, as pyarrow reads it). A
    name ending in ".parquet" is taken for a file: a read of one file asks
    nothing more of the store than it did."""
    if filesystem is None or not isinstance(source, (str, os.PathLike)) or os.fspath(source).endswith(".parquet"):
        return False
    from . import fs_driver

    try:
        return fs_driver.backend_of(filesystem).kind_of(os.fspath(source))[0] == "directory"
    except (OSError, ValueError):
        return False  # the file's own open says what is wrong


def _concat(tables):
    """pa.concat_tables, keeping the row count of tables without columns
    (``columns=[]``: pyarrow gives the rows, no column)."""
    import pyarrow as pa

    if tables and tables[0].num_columns == 0:
        return pa.table({"_": pa.nulls(sum(t.num_rows for t in tables))}).drop_columns(["_"])
    return pa.concat_tables(tables)


def _read_files(source, columns, row_groups, use_threads, memory_limit, filesystem=None, threads=None,
                strings=None, read_dictionary=None) -> list:
    """Each file of the list read whole (its projected columns), as a table
    in the first file's schema (pyarrow.dataset's rule for a lake)."""
    tables = []
    for s in source:
        if tables and columns is not None:
            # A file lacking a projected column (added to the lake later) gives it as nulls.
            t = _read_columns_it_has(s, columns, row_groups, filesystem, use_threads, memory_limit, threads, strings,
                                     read_dictionary)
        else:
            t = read_table(s, columns, row_groups, filesystem, use_threads, memory_limit=memory_limit,
                           threads=threads, strings=strings, read_dictionary=read_dictionary)
        if tables and t.schema != tables[0].schema:
            from .scan import _as_schema

            # As pyarrow.dataset: the first file's schema is the lake's; columns it lacks are left out.
            t = _as_schema(t, tables[0].schema, os.fspath(s) if isinstance(s, (str, os.PathLike)) else repr(s))
        tables.append(t)
    return tables
