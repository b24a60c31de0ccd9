"""Column plans: each Parquet column's Arrow type, as pyarrow derives it from
the Parquet schema or takes it from the embedded ``ARROW:schema`` (decimals,
time units and zones, durations, extension and dictionary types, string
layouts), and the plan of a flat top-level column (``_Plan``: the layout the
C++ reader decodes into, then the final type).

Above the native module and the string layouts; below the nested plans
(``_nested``), the column reader (``_read``) and the scan, which build on it.
"""

from __future__ import annotations

import base64

import pyarrow as pa
import pyarrow.types as pt

from . import _pqfast
from ._pqfast import FormatError
from ._strings import strings_type

# LogicalType kinds (parquet.thrift LogicalType union ids).
_LT_STRING, _LT_ENUM, _LT_DECIMAL, _LT_DATE, _LT_TIME, _LT_TIMESTAMP = 1, 4, 5, 6, 7, 8
_LT_INTEGER, _LT_UNKNOWN, _LT_JSON, _LT_BSON, _LT_UUID, _LT_FLOAT16 = 10, 11, 12, 13, 14, 15
_UNITS = ("ms", "us", "ns")


# The converted type id old parquet-cpp (pyarrow < 0.15) wrote for null
# columns (its ConvertedType::NA, one past INTERVAL's neighbours): Arrow C++
# still reads it as the null type, whatever the physical type.
_CT_ARROW_NA = 24


def _decimal(precision: int, scale: int):
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
    kind = desc["logical_type"]["kind"]
    phys = desc["physical_type"]
    if kind == _LT_UUID and phys == "FIXED_LEN_BYTE_ARRAY" and desc["type_length"] == 16:
        return pa.uuid()
    if phys == "BYTE_ARRAY" and (kind == _LT_JSON or (kind == 0 and desc.get("converted_type") == "JSON")):
        return pa.json_(pa.string())
    return None


def arrow_format(t) -> str | None:
    """The Arrow C Data Interface format string of a flat pyarrow type, or None."""
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


def embedded_schema(meta):
    """The file's embedded Arrow schema (``ARROW:schema``), or None when it
    has none or it cannot be read (ignored then, as pyarrow ignores it)."""
    return _embedded_arrow_schema(meta.key_value_metadata)


def duration_units(meta) -> dict:
    """{top-level column: unit} of the Arrow durations in the embedded schema
    (stored as plain INT64: the unit is known only from there)."""
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
    f = pa.field(name, t, nullable=True, metadata=metadata)
    return f if nullable else f.with_nullable(False)


class _EmptyGroupPlan:
    """A top-level group with no leaves: pyarrow reads it as struct<> (a
    repeated one as a list of non-null struct<>), null in every row."""

    def __init__(self, name: str, repetition: int):
        self.name = name
        if repetition == _REPEATED:
            self.type, self.nullable = pa.list_(pa.field(name, pa.struct([]), nullable=False)), False
        else:
            self.type, self.nullable = pa.struct([]), repetition != _REQUIRED

    def column(self, row_counts: list):
        """The column of row groups (or pieces) of these row counts."""
        return pa.chunked_array([pa.nulls(n, self.type) for n in row_counts], type=self.type)

    def field(self, arr):
        return _field(self.name, arr.type, self.nullable)


_REQUIRED, _REPEATED = 0, 2


def is_nested_plan(p) -> bool:
    """Whether a plan reads a nested column (leaves assembled by the nested reader)."""
    return not isinstance(p, (_Plan, _EmptyGroupPlan))


def dictionary_array(values, page, t):
    """`values` as dictionary type `t`, the dictionary as pyarrow builds it:
    the chunk's dictionary page (`page`: every value, in page order; None when
    unknown) then the values not in it, in order of appearance."""
    if page is not None and page.type.equals(values.type) and page.null_count == 0:
        e = pa.concat_arrays([page, values]).dictionary_encode()
        indices, dictionary = e.indices.slice(len(page)), e.dictionary
    else:
        e = values.dictionary_encode()
        indices, dictionary = e.indices, e.dictionary
    return pa.DictionaryArray.from_arrays(indices.cast(t.index_type), dictionary, ordered=t.ordered)
