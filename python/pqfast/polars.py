"""polars reading through pqfast: ``scan_parquet`` returns a ``pl.LazyFrame``
whose scan is pqfast's, with projection, predicate, ``n_rows`` and batch size
pushed down (``polars.io.plugins.register_io_source``).

    import polars as pl
    import pqfast.polars

    lf = pqfast.polars.scan_parquet("lake/*.parquet")
    lf.filter(pl.col("id") == 42).select("key", "amount").collect()

polars hands the source its predicate as a polars expression. It is read
through polars' documented serialization (``Expr.meta.serialize(format=
"json")``), never through its repr, and translated to a
``pyarrow.compute.Expression`` for ``pqfast.Dataset.scanner(filter=)`` only
where the translation is exact under polars' semantics (three-valued
logic; NaN is equal to itself and greater than every number; ``is_in``'s
``nulls_equal``): comparisons of a column with a literal, ``is_in``,
``is_between``, ``is_null``/``is_not_null``, a boolean column, combined with
``&``, ``|`` and ``~``. (``str.starts_with`` is left to polars: as a range
pushed into pqfast it was 2.2x slower over an unsorted key, whose filter
column pqfast decodes apart from the output.) A conjunct that cannot be
translated is left out of what is pushed (the pushed filter then keeps a superset of the rows) and
the whole predicate is applied by polars to each batch read; anything
unknown in the serialized form is never pushed.

The schema is the one ``pl.scan_parquet`` gives for the same files (strings
as polars' String, dictionaries as Categorical, the files' time units,
hive keys as polars infers them), also where polars reads the Parquet
schema otherwise than pyarrow (enums, seconds, legacy timestamps, null-typed
leaves, JSON: ``_typing``, docs/engines/polars.md).
"""

from __future__ import annotations

import json
import queue
import threading
from typing import Any, Iterator, NamedTuple, Sequence

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
from polars.io.plugins import register_io_source

from ._dataset import Dataset, dataset as _dataset
from ._dataset_scan import DEFAULT_BATCH_SIZE
from ._errors import UNSUPPORTED, format_error
from ._plan import _LT_ENUM, _LT_JSON, embedded_schema, is_null_typed

__all__ = ["scan_parquet", "translate", "Translation", "polars_schema"]

# How exact a translated (sub)expression is: EXACT is TRUE on exactly the rows
# where polars' is TRUE; SUPERSET at least there.
EXACT, SUPERSET = 2, 1

_CMP = {"Eq": "eq", "NotEq": "ne", "Lt": "lt", "LtEq": "le", "Gt": "gt", "GtEq": "ge"}
_FLIP = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_TIME_UNITS = {"Nanoseconds": "ns", "Microseconds": "us", "Milliseconds": "ms"}
_INT_SCALARS = ("Int8", "Int16", "Int32", "Int64", "Int128", "UInt8", "UInt16", "UInt32", "UInt64")


class Translation(NamedTuple):
    """``expression``: what is pushed into pqfast (None: nothing);
    ``exact``: True when it selects exactly polars' rows, so polars need not
    filter again."""

    expression: Any
    exact: bool


class _NotPushed(Exception):
    """A node this translator does not know or cannot translate exactly."""


# -- literals -------------------------------------------------------------------------------------------------


def _literal(node: Any) -> Any:
    """The Python/pyarrow value of a serialized polars literal; _NotPushed
    for kinds not handled (decimals, times, durations, nulls, ...)."""
    if not isinstance(node, dict) or len(node) != 1:
        raise _NotPushed
    (kind, body), = node.items()
    if kind == "Dyn" and isinstance(body, dict) and len(body) == 1:
        (k, v), = body.items()
        if k == "Int" and isinstance(v, int) and not isinstance(v, bool):
            return v
        if k == "Float" and isinstance(v, (int, float)):
            return float(v)
        raise _NotPushed
    if kind != "Scalar" or not isinstance(body, dict) or len(body) != 1:
        raise _NotPushed
    (k, v), = body.items()
    if k in _INT_SCALARS and isinstance(v, int) and not isinstance(v, bool):
        return v
    if k in ("Float32", "Float64") and isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if k == "String" and isinstance(v, str):
        return v
    if k == "Boolean" and isinstance(v, bool):
        return v
    if k == "Binary" and isinstance(v, list):
        return bytes(v)
    if k == "Date" and isinstance(v, int):
        return pa.scalar(v, pa.date32())
    if k == "Datetime" and isinstance(v, list) and len(v) == 3 and isinstance(v[0], int) and v[1] in _TIME_UNITS:
        tz = v[2]
        if isinstance(tz, dict):
            tz = tz.get("inner")
        if tz is not None and not isinstance(tz, str):
            raise _NotPushed
        return pa.scalar(v[0], pa.timestamp(_TIME_UNITS[v[1]], tz))
    raise _NotPushed


def _list_literal(node: Any) -> list:
    """The values of an ``is_in`` list literal: polars serializes the Series
    as an Arrow IPC stream, read back by polars itself."""
    try:
        raw = node["Literal"]["Scalar"]["List"]
    except (KeyError, TypeError):
        raise _NotPushed from None
    if not isinstance(raw, list):
        raise _NotPushed
    try:
        frame = pl.read_ipc_stream(bytes(raw))
    except Exception:  # noqa: BLE001  (an encoding this version does not read: not pushed)
        raise _NotPushed from None
    if frame.width != 1:
        raise _NotPushed
    s = frame.to_series(0)
    if s.dtype.is_float() or s.dtype.is_nested() or s.dtype == pl.Null and s.len() == 0:
        raise _NotPushed
    arr = s.to_arrow()
    if pa.types.is_string_view(arr.type) or pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.string())
    elif pa.types.is_binary_view(arr.type) or pa.types.is_large_binary(arr.type):
        arr = arr.cast(pa.binary())
    return [arr[i] for i in range(len(arr))]


# -- columns --------------------------------------------------------------------------------------------------


def _base_type(t: pa.DataType) -> pa.DataType:
    return t.value_type if pa.types.is_dictionary(t) else t


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _is_bytes(t: pa.DataType) -> bool:
    return pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)


def _compatible(t: pa.DataType, value: Any) -> bool:
    """Whether comparing a column of arrow type ``t`` with ``value`` means the
    same in polars and pqfast (polars casts the literal to the column's type;
    only the kinds where that cast is lossless are pushed)."""
    if isinstance(value, bool):
        return pa.types.is_boolean(t)
    if isinstance(value, int):
        if pa.types.is_integer(t):
            return True
        return pa.types.is_floating(t) and abs(value) <= 1 << 53
    if isinstance(value, float):
        return pa.types.is_floating(t)
    if isinstance(value, str):
        return _is_text(t)
    if isinstance(value, bytes):
        return _is_bytes(t)
    if isinstance(value, pa.Scalar):
        if pa.types.is_date32(value.type):
            return pa.types.is_date32(t)
        if pa.types.is_timestamp(value.type):
            return pa.types.is_timestamp(t) and (t.tz is None) == (value.type.tz is None)
    return False


class _Context:
    def __init__(self, schema: pa.Schema):
        self.types = {f.name: f.type for f in schema}

    def column(self, node: Any) -> tuple[str, pa.DataType]:
        if not isinstance(node, dict) or set(node) != {"Column"} or not isinstance(node["Column"], str):
            raise _NotPushed
        name = node["Column"]
        if name not in self.types:
            raise _NotPushed
        t = self.types[name]
        if pa.types.is_nested(t):
            raise _NotPushed
        return name, t


def _is_column(node: Any) -> bool:
    return isinstance(node, dict) and set(node) == {"Column"}


def _is_literal(node: Any) -> bool:
    return isinstance(node, dict) and set(node) == {"Literal"}


# -- the expression tree ----------------------------------------------------------------------------------------


# Each leaf gives (TRUE rows, FALSE rows) as pyarrow expressions: the
# expression TRUE exactly where the polars leaf is TRUE, and one TRUE exactly
# where it is FALSE. Negations are pushed down to the leaves (De Morgan; exact
# in polars' Kleene logic), so a row is kept iff the formula is TRUE, and AND
# and OR are monotone: each leaf need only match polars' TRUE rows in its
# polarity, not its NULLs.


def _negatable(expr: pc.Expression) -> tuple[pc.Expression, pc.Expression]:
    """A leaf whose pyarrow result equals polars' in all three values: its
    FALSE rows are where its negation is TRUE."""
    return expr, ~expr


def _compare(ctx: _Context, op: str, left: Any, right: Any):
    if _is_column(left) and _is_literal(right):
        col, lit = left, right
    elif _is_literal(left) and _is_column(right):
        col, lit, op = right, left, _FLIP[op]
    else:
        raise _NotPushed
    name, t = ctx.column(col)
    value = _literal(lit["Literal"])
    base = _base_type(t)
    if not _compatible(base, value):
        raise _NotPushed
    if pa.types.is_dictionary(t) and op not in ("eq", "ne"):
        raise _NotPushed  # a categorical's order is polars' own
    f = pc.field(name)
    if pa.types.is_floating(base):
        if isinstance(value, float) and value != value:
            raise _NotPushed  # polars: NaN == NaN
        value = float(value)
        if op in ("gt", "ge"):
            # polars: NaN is greater than every number; IEEE: NaN > v is
            # false. NOT (x <= v) is TRUE for NaN and where x > v, null on a
            # null (kept by neither); its FALSE rows are x <= v's TRUE rows.
            below = (f <= value) if op == "gt" else (f < value)
            return ~below, below
    expr = {"eq": f == value, "ne": f != value, "lt": f < value, "le": f <= value,
            "gt": f > value, "ge": f >= value}[op]
    return _negatable(expr)


def _is_in(ctx: _Context, args: list, nulls_equal: Any):
    if len(args) != 2 or not isinstance(nulls_equal, bool):
        raise _NotPushed
    name, t = ctx.column(args[0])
    base = _base_type(t)
    if pa.types.is_floating(base):
        raise _NotPushed  # polars' is_in on floats: NaN and -0.0 by total order
    values = _list_literal(args[1])
    plain = [v for v in values if v.is_valid]
    for v in plain:
        if not _compatible(base, v if pa.types.is_date32(v.type) or pa.types.is_timestamp(v.type) else v.as_py()):
            raise _NotPushed
    has_null = len(plain) < len(values)
    if not plain:
        raise _NotPushed  # an empty set: rare, and pyarrow needs a typed one
    value_set = pa.array([v.as_py() for v in plain], type=plain[0].type)
    f = pc.field(name)
    # skip_nulls=True: a null row is FALSE, nulls in the set are ignored.
    member = pc.is_in(f, value_set=value_set, skip_nulls=True)
    if nulls_equal:
        # Never NULL: a null row is TRUE iff the list holds a null.
        return _negatable((member | f.is_null()) if has_null else member)
    # polars' default: a null row gives NULL (neither TRUE nor FALSE); a null
    # in the list matches nothing.
    return member, ~member & f.is_valid()


def _between(ctx: _Context, args: list, closed: Any, neg: bool):
    if len(args) != 3 or closed not in ("Both", "Left", "Right", "None"):
        raise _NotPushed
    lo = _compare(ctx, "ge" if closed in ("Both", "Left") else "gt", args[0], args[1])
    hi = _compare(ctx, "le" if closed in ("Both", "Right") else "lt", args[0], args[2])
    return (lo[1] | hi[1]) if neg else (lo[0] & hi[0])


def _leaf(pair: tuple, neg: bool):
    return pair[1] if neg else pair[0], EXACT


def _function(ctx: _Context, body: Any, neg: bool):
    if not isinstance(body, dict):
        raise _NotPushed
    args, fn = body.get("input"), body.get("function")
    if not isinstance(args, list) or not isinstance(fn, dict):
        raise _NotPushed
    if set(fn) != {"Boolean"}:
        raise _NotPushed
    b = fn["Boolean"]
    if b in ("IsNull", "IsNotNull"):
        if len(args) != 1:
            raise _NotPushed
        name, _ = ctx.column(args[0])
        null = b == "IsNull"
        return (pc.field(name).is_null() if null != neg else pc.field(name).is_valid()), EXACT
    if b == "Not":
        if len(args) != 1:
            raise _NotPushed
        return _node(ctx, args[0], not neg)
    if isinstance(b, dict) and len(b) == 1:
        (k, v), = b.items()
        if k == "IsIn" and isinstance(v, dict):
            return _leaf(_is_in(ctx, args, v.get("nulls_equal")), neg)
        if k == "IsBetween" and isinstance(v, dict):
            return _between(ctx, args, v.get("closed"), neg), EXACT
    raise _NotPushed


def _junction(ctx: _Context, op: str, left: Any, right: Any, neg: bool):
    if neg:  # De Morgan
        op = "Or" if op == "And" else "And"
    parts = []
    for side in (left, right):
        try:
            parts.append(_node(ctx, side, neg))
        except _NotPushed:
            if op == "Or":
                raise  # an OR needs both sides
            parts.append(None)
    kept = [p for p in parts if p is not None]
    if not kept:
        raise _NotPushed
    if len(kept) == 1:  # an AND of what was translated: TRUE wherever the whole is
        return kept[0][0], SUPERSET
    (a, ka), (b, kb) = kept
    return (a & b if op == "And" else a | b), min(ka, kb)


def _node(ctx: _Context, node: Any, neg: bool = False):
    """(pyarrow Expression, EXACT or SUPERSET) TRUE where the polars node is
    TRUE (``neg``: where it is FALSE), or _NotPushed."""
    if not isinstance(node, dict) or len(node) != 1:
        raise _NotPushed
    (kind, body), = node.items()
    if kind == "Column":
        name, t = ctx.column(node)
        if not pa.types.is_boolean(t):
            raise _NotPushed
        return (pc.field(name) == (not neg)), EXACT  # a boolean column as the condition
    if kind == "BinaryExpr" and isinstance(body, dict):
        op = body.get("op")
        if op in ("And", "LogicalAnd", "Or", "LogicalOr"):
            return _junction(ctx, "And" if "And" in op else "Or", body.get("left"), body.get("right"), neg)
        if op in _CMP:
            return _leaf(_compare(ctx, _CMP[op], body.get("left"), body.get("right")), neg)
        raise _NotPushed
    if kind == "Function":
        return _function(ctx, body, neg)
    raise _NotPushed


def translate(predicate: pl.Expr | None, schema: pa.Schema) -> Translation:
    """The part of a polars predicate pqfast can apply, over a dataset of
    arrow ``schema``: Translation(None, True) for no predicate,
    Translation(None, False) when nothing can be pushed."""
    if predicate is None:
        return Translation(None, True)
    try:
        tree = json.loads(predicate.meta.serialize(format="json"))
    except Exception:  # noqa: BLE001  (a form this polars cannot serialize: nothing pushed)
        return Translation(None, False)
    try:
        expr, kind = _node(_Context(schema), tree)
    except _NotPushed:
        return Translation(None, False)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return Translation(None, False)  # a literal arrow cannot type: polars filters
    return Translation(expr, kind == EXACT)


# -- the schema -----------------------------------------------------------------------------------------------

# polars' type for a leaf pyarrow reads as the null type (a LogicalType
# UNKNOWN) inside a list or struct: its physical type's.
_PHYSICAL = {"BOOLEAN": pl.Boolean, "INT32": pl.Int32, "INT64": pl.Int64, "INT96": pl.Datetime("ns"),
             "FLOAT": pl.Float32, "DOUBLE": pl.Float64, "BYTE_ARRAY": pl.Binary, "FIXED_LEN_BYTE_ARRAY": pl.Binary}
_SECONDS_TO_MS = 1000


def _polars_type(field: pa.Field, partition_key: bool):
    """polars' dtype for an arrow field, as pl.scan_parquet types it: a hive
    key is what polars infers from the directory names (Int64 for integers,
    Float64, String), not pyarrow's dictionary."""
    t = field.type
    if partition_key:
        vt = _base_type(t)
        if pa.types.is_integer(vt):
            return pl.Int64
        if pa.types.is_floating(vt):
            return pl.Float64
        if pa.types.is_boolean(vt):
            return pl.Boolean
        return pl.String
    return pl.from_arrow(pa.schema([field]).empty_table()).schema[field.name]


def _leaf_type(t: pa.DataType, desc: dict, nested: bool, embedded: bool):
    """The arrow type polars gives a leaf where it reads the Parquet schema
    otherwise than pyarrow (None: as pyarrow). ``embedded``: the file's
    ARROW:schema names the column (then polars follows it, as pyarrow does)."""
    lt, ct = desc["logical_type"]["kind"], desc.get("converted_type")
    if embedded:
        return None
    if pa.types.is_null(t) and is_null_typed(desc):
        return _PHYSICAL.get(desc["physical_type"])
    if pa.types.is_timestamp(t) and t.tz is not None and lt == 0 and ct in ("TIMESTAMP_MILLIS", "TIMESTAMP_MICROS"):
        return pl.Datetime(t.unit)  # a legacy converted type: polars reads no zone
    if desc["physical_type"] == "BYTE_ARRAY" and pa.types.is_binary(t) and (lt == _LT_ENUM or ct == "ENUM"):
        return pl.String  # ClickHouse's enums: polars reads them as text
    if desc["physical_type"] == "BYTE_ARRAY" and (lt == _LT_JSON or ct == "JSON") \
            and isinstance(t, pa.BaseExtensionType):
        return pl.Binary  # JSON without an Arrow schema: bytes to polars
    return None


def _nested_type(t: pa.DataType, leaves: Iterator[dict], nested: bool, embedded: bool):
    """(polars dtype, changed?) of arrow type ``t`` whose Parquet leaves come
    next from ``leaves`` (in schema order)."""
    if pa.types.is_struct(t):
        fields, changed = {}, False
        for f in t:
            sub, c = _nested_type(f.type, leaves, True, embedded)
            fields[f.name], changed = sub, changed or c
        return (pl.Struct(fields) if changed else None), changed
    if pa.types.is_map(t):
        _nested_type(t.key_type, leaves, True, embedded)
        _nested_type(t.item_type, leaves, True, embedded)
        return None, False  # polars has no map type: as pl.from_arrow makes it
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t) \
            or pa.types.is_fixed_size_list(t):
        sub, changed = _nested_type(t.value_type, leaves, True, embedded)
        if not changed:
            return None, False
        if pa.types.is_fixed_size_list(t):
            return pl.Array(sub, t.list_size), True
        return pl.List(sub), True
    desc = next(leaves, None)
    if desc is None:
        return None, False
    got = _leaf_type(t, desc, nested, embedded)
    if got is not None:
        return got, True
    return _polars_of(t), False


def _polars_of(t: pa.DataType):
    return pl.from_arrow(pa.schema([pa.field("x", t)]).empty_table()).schema["x"]


def _reference_footer(lake):
    """The reference file's parsed footer (the one the dataset's schema is the first file's from)."""
    if lake.names and lake.ref[1] == lake.keys[0]:
        return lake.meta(0)
    with lake.open_ref() as f:
        return f._meta


class _Typing(NamedTuple):
    """polars' schema for a dataset, and the columns whose values change
    with their type: ``scaled`` {name: factor} (INT64 seconds that polars
    reads as milliseconds); ``storage``: extension columns handed to polars
    as their storage (JSON it reads as bytes)."""

    schema: pl.Schema
    scaled: dict
    storage: frozenset


def _typing(ds: Dataset) -> _Typing:
    """The schema pl.scan_parquet gives for the dataset's files: pyarrow's
    types (the dataset's) as polars takes them, except where polars reads
    the Parquet schema otherwise (`_leaf_type`: null-typed leaves in lists
    and structs, legacy converted timestamps, ClickHouse enums, JSON without
    an Arrow schema) and INT64 columns the file's ARROW:schema calls
    timestamps in seconds (polars: milliseconds)."""
    schema, keys = ds.schema, set(ds.partition_keys)
    lake = ds._lake
    meta = _reference_footer(lake) if lake.names else None
    descs = lake.ref_descs() if meta is not None else []
    embedded = embedded_schema(meta) if meta is not None else None
    in_embedded = set(embedded.names) if embedded is not None else set()
    by_top: dict = {}
    for d in descs:
        by_top.setdefault(d["path"][0], []).append(d)
    out, scaled, storage = {}, {}, set()
    for f in schema:
        if f.name in keys:
            out[f.name] = _polars_type(f, True)
            continue
        leaves = by_top.get(f.name)
        file_type = None
        if leaves is not None:
            emb = f.name in in_embedded
            if len(leaves) == 1 and len(leaves[0]["path"]) == 1:
                file_type = _leaf_type(f.type, leaves[0], False, emb)
                if file_type is not None and isinstance(f.type, pa.BaseExtensionType):
                    storage.add(f.name)
                if file_type is None and emb and pa.types.is_int64(f.type):
                    et = embedded.field(f.name).type
                    if pa.types.is_timestamp(et) and et.unit == "s" and leaves[0]["logical_type"]["kind"] == 0 \
                            and leaves[0].get("converted_type") is None:
                        file_type, scaled[f.name] = pl.Datetime("ms", et.tz), _SECONDS_TO_MS
            else:
                file_type, _ = _nested_type(f.type, iter(leaves), False, emb)
        out[f.name] = file_type if file_type is not None else _polars_type(f, False)
    return _Typing(pl.Schema(out), scaled, frozenset(storage))


def polars_schema(schema: pa.Schema, partition_keys: Sequence[str] = ()) -> pl.Schema:
    """polars' types for an arrow schema (pyarrow's types as polars takes them, hive keys as polars infers them)."""
    keys = set(partition_keys)
    return pl.Schema({f.name: _polars_type(f, f.name in keys) for f in schema})


# -- the source -----------------------------------------------------------------------------------------------


def _as_views(data):
    """Strings and binaries as arrow views, polars' own layout: handed over
    without a copy (pyarrow's cast to views costs about 2/3 of polars'
    conversion of plain strings)."""
    cols, changed = [], False
    for c in data.columns:
        t = c.type
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            c, changed = c.cast(pa.string_view()), True
        elif pa.types.is_binary(t) or pa.types.is_large_binary(t):
            c, changed = c.cast(pa.binary_view()), True
        cols.append(c)
    if not changed:
        return data
    kind = pa.RecordBatch if isinstance(data, pa.RecordBatch) else pa.Table
    return kind.from_arrays(cols, names=data.schema.names)


def _typed(df: pl.DataFrame, typing: _Typing) -> pl.DataFrame:
    """``df`` (pyarrow's types as polars takes them) in polars' own schema."""
    schema, have = typing.schema, df.schema
    scaled = [(pl.col(n) * typing.scaled[n]).cast(schema[n]) for n in df.columns if n in typing.scaled]
    if scaled:
        df = df.with_columns(scaled)
        have = df.schema
    want = {n: schema[n] for n in df.columns if have[n] != schema[n]}
    return df.cast(want) if want else df


def _storage_of(column):
    """An extension column (an Array, or a ChunkedArray's chunks) as its storage."""
    if isinstance(column, pa.ChunkedArray):
        return pa.chunked_array([c.storage for c in column.chunks], column.type.storage_type)
    return column.storage


def _storage(data, typing: _Typing):
    """``data`` with the extension columns polars reads as plain bytes given as their storage."""
    if not typing.storage:
        return data
    cols = [_storage_of(c) if n in typing.storage and isinstance(c.type, pa.BaseExtensionType) else c
            for n, c in zip(data.schema.names, data.columns)]
    kind = pa.RecordBatch if isinstance(data, pa.RecordBatch) else pa.Table
    return kind.from_arrays(cols, names=data.schema.names)


def _imported(data: pa.RecordBatch | pa.Table) -> pl.DataFrame:
    """``data`` as polars takes it: a batch by the Arrow C stream (polars'
    own import, which also keeps a batch of no column's row count), a table
    of several batches by ``pl.from_arrow`` without a rechunk."""
    return pl.DataFrame(data) if isinstance(data, pa.RecordBatch) else pl.from_arrow(data, rechunk=False)


def _frame(data: pa.RecordBatch | pa.Table, typing: _Typing) -> pl.DataFrame:
    df = _imported(_as_views(_storage(data, typing)))
    return _typed(df.to_frame() if isinstance(df, pl.Series) else df, typing)


class _Framer:
    """The batches of one scan as polars frames. What ``_frame`` decides for
    each batch (views, storage, polars' types) is decided on the first: where
    nothing changes, a batch crosses by the Arrow C stream as it is (polars'
    own import, about 30 us a frame, against 100 us through ``_frame``: 50 ms
    of an aggregate's 500 frames, on the cores polars groups on)."""

    def __init__(self, typing: _Typing):
        self._typing = typing
        self._schema: pa.Schema | None = None
        self._direct = False

    def __call__(self, data: pa.RecordBatch | pa.Table) -> pl.DataFrame:
        if self._schema is None or not data.schema.equals(self._schema):
            df = _frame(data, self._typing)
            self._schema = data.schema
            self._direct = (data.num_columns > 0 and _as_views(_storage(data, self._typing)) is data
                            and df.schema == _imported(data.slice(0, 0)).schema)
            return df
        return _imported(data) if self._direct else _frame(data, self._typing)


# polars pays about 150 us for each frame a source yields (a count over 50 M
# rows of one boolean column: 111 ms in frames of 100,000 rows, 35 ms in
# frames of 1 M): small batches are gathered into frames of at least this
# many bytes, or of FRAME_BATCHES times polars' batch size. A batch of the
# batch size and of ALONE_BYTES or more goes alone: polars' group-by copies a
# frame of several chunks into one (9% of an aggregate's CPU), where the
# cost of a frame is under a tenth of what it holds.
FRAME_BYTES = 8 << 20
FRAME_BATCHES = 16
ALONE_BYTES = 1 << 20


def _grouped(batches: Iterator[pa.RecordBatch], rows: int, nbytes: int = FRAME_BYTES,
             most: int = FRAME_BATCHES, alone: int = ALONE_BYTES) -> Iterator[Any]:
    """The batches, in order, as frames: a batch of at least ``rows`` rows
    and ``alone`` bytes alone; the others gathered (a table of several) into
    frames of at least ``rows`` rows and either ``nbytes`` bytes or ``most *
    rows`` rows; the last may hold fewer. (A filter keeping one row in ten
    made 500 frames of 10,000 rows from 50 M.)"""
    pending, held, size = [], 0, 0
    for b in batches:
        if not b.num_rows:
            continue
        if not pending and b.num_rows >= rows and b.nbytes >= alone:
            yield b
            continue
        pending.append(b)
        held += b.num_rows
        size += b.nbytes
        if held >= rows and (size >= nbytes or held >= most * rows):
            yield pending[0] if len(pending) == 1 else pa.Table.from_batches(pending)
            pending, held, size = [], 0, 0
    if pending:
        yield pending[0] if len(pending) == 1 else pa.Table.from_batches(pending)


# polars pulls a source's frames on one of its threads while its others
# group and sum them. Converting a batch into a frame on that thread (100-150
# ms of a 1 s aggregate's 500 batches) and waiting there for the scanner left
# about a tenth of two cores idle: frames are made on a thread of their own,
# this many ahead of polars.
AHEAD_FRAMES = 4


def _made_ahead(items: Iterator, make, depth: int = AHEAD_FRAMES) -> Iterator:
    """``make(x)`` for each of ``items``, in order, computed on a thread of
    its own up to ``depth`` results ahead of the caller. An exception of
    ``items`` or ``make`` is raised to the caller in its place; closing the
    generator stops the thread and waits for it, so ``items`` is no longer
    in use when it returns."""
    q: queue.Queue = queue.Queue(depth)
    stop = threading.Event()

    def run():
        try:
            for x in items:
                q.put((True, make(x)))
                if stop.is_set():
                    return
            q.put((False, None))
        except BaseException as e:  # the caller's to raise: nothing escapes this thread
            q.put((False, e))

    worker = threading.Thread(target=run, name="pqfast.polars frames", daemon=True)
    worker.start()
    try:
        while True:
            more, x = q.get()
            if not more:
                if x is not None:
                    raise x
                return
            yield x
    finally:
        stop.set()
        # The worker puts at most one more result once it sees the stop (the
        # queue is drained under it); then it returns.
        while worker.is_alive():
            try:
                q.get(timeout=0.01)
            except queue.Empty:
                pass
        worker.join()


def _source(ds: Any, typing: _Typing, scan_kw: dict):
    arrow_schema = ds.schema
    schema = typing.schema

    def read(with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None,
             batch_size: int | None) -> Iterator[pl.DataFrame]:
        t = translate(predicate, arrow_schema)
        columns = list(with_columns) if with_columns is not None else list(schema.names())
        needed = columns
        if not t.exact:  # polars filters: the predicate's columns are read too
            extra = [c for c in predicate.meta.root_names() if c not in columns]
            needed = columns + list(dict.fromkeys(extra))
        # Views are polars' own string layout: the scanner builds them natively
        # (pl.from_arrow takes them without a copy; a plain string column costs
        # polars a conversion of every value).
        kw = dict(scan_kw, strings="view")
        if batch_size:
            kw["batch_size"] = int(batch_size)
        scanner = ds.scanner(columns=needed, filter=t.expression, **kw)
        if n_rows is not None and t.exact:
            # head(n) reads only the row groups it needs.
            yield _frame_table(scanner.head(int(n_rows)), typing, columns)
            return
        left = n_rows

        framer = _Framer(typing)

        def make(batch):
            df = framer(batch)
            if not t.exact:
                df = df.filter(predicate)
            return df.select(columns) if needed is not columns else df

        # Under a limit polars filters, frames stay near the batch size and
        # are made on polars' call (no more read than the head needs).
        ahead = left is None and AHEAD_FRAMES > 0
        reader = scanner.to_reader()
        frames = None
        try:
            batches = _grouped(reader, int(batch_size) if batch_size else DEFAULT_BATCH_SIZE,
                               nbytes=0 if left is not None else FRAME_BYTES)
            frames = _made_ahead(batches, make) if ahead else map(make, batches)
            for df in frames:
                if left is not None:
                    df = df.head(left)
                    left -= df.height
                yield df
                if left is not None and left <= 0:
                    break
        finally:
            if ahead and frames is not None:
                frames.close()
            reader.close()

    return read


def _frame_table(table: pa.Table, typing: _Typing, columns: list[str]) -> pl.DataFrame:
    df = pl.from_arrow(_as_views(_storage(table, typing)), rechunk=False)
    if isinstance(df, pl.Series):
        df = df.to_frame()
    return _typed(df, typing).select(columns)


def _check_schema(expected: pl.Schema, have: pl.Schema) -> None:
    """The files' polars schema must be ``expected`` (pl.scan_parquet(schema=)'s rule)."""
    for name, dtype in have.items():
        if name not in expected:
            raise format_error(f"pqfast.polars.scan_parquet: extra column in the files outside of the schema: "
                               f"{name!r}")
        if expected[name] != dtype:
            raise format_error(f"pqfast.polars.scan_parquet: column {name!r} is {dtype} in the files; the schema "
                               f"says {expected[name]}")
    for name in expected:
        if name not in have:
            raise format_error(f"pqfast.polars.scan_parquet: column {name!r} of the schema is not in the files")


def scan_parquet(source: Any, *, n_rows: int | None = None, row_index_name: str | None = None,
                 row_index_offset: int = 0, hive_partitioning: bool | None = None,
                 partitioning: str | None = "hive", filesystem: Any = None, storage_options: dict | None = None,
                 schema: Any = None, threads: int | None = None, memory_limit: int | None = None,
                 include_file_paths: str | None = None, glob: bool = True, parallel: str = "auto",
                 use_statistics: bool = True, low_memory: bool = False, cache: bool = True) -> pl.LazyFrame:
    """A ``pl.LazyFrame`` over Parquet files read by pqfast (``source`` as
    ``pqfast.dataset`` takes it: a path, a list, a glob, a directory, an
    ``s3://`` URL or prefix; or a ``pqfast.Dataset``). Projections, exactly translatable predicates,
    ``n_rows`` (``head``/``limit``) and polars' batch size are pushed into
    pqfast's scan; the rest of a predicate is applied by polars.

    ``pl.scan_parquet``'s arguments mean what they mean there: ``n_rows``
    (the first rows only), ``row_index_name``/``row_index_offset`` (a row
    index first, counted over the files' rows before any filter),
    ``hive_partitioning`` (False: directory names are not columns; None or
    True: ``key=value`` levels are, as ``partitioning="hive"``). ``parallel``,
    ``use_statistics``, ``low_memory`` and ``cache`` tune polars'
    own reader and are taken without effect (pqfast decides its threads by
    ``threads``, and always prunes by statistics). ``include_file_paths``
    and ``glob=False`` are refused (FormatError, code "unsupported").
    ``schema``: a ``pyarrow.Schema`` is the dataset's (``pqfast.dataset``'s
    argument: files cast to it); a polars schema (a dict of names to polars
    types, or ``pl.Schema``) is checked as polars checks it: the files'
    schema must be that one, every column and type, else FormatError."""
    if include_file_paths is not None:
        raise format_error("pqfast.polars.scan_parquet: include_file_paths is not supported", UNSUPPORTED)
    if not glob:
        raise format_error("pqfast.polars.scan_parquet: glob=False is not supported (a path with * is a glob)",
                           UNSUPPORTED)
    if hive_partitioning is False:
        partitioning = None
    expected = None
    if schema is not None and not isinstance(schema, pa.Schema):
        expected, schema = pl.Schema(schema), None
    if isinstance(source, Dataset):
        ds = source
    else:
        ds = _dataset(source, partitioning=partitioning, filesystem=filesystem, storage_options=storage_options,
                      schema=schema)
    typing = _typing(ds)
    if expected is not None:
        _check_schema(expected, typing.schema)
    scan_kw = {}
    if threads is not None:
        scan_kw["threads"] = threads
    if memory_limit is not None:
        scan_kw["memory_limit"] = memory_limit
    lf = register_io_source(_source(ds, typing, scan_kw), schema=typing.schema, is_pure=True,
                            explain_name="pqfast", explain_detail=f"{len(ds.files)} files")
    if row_index_name is not None:
        lf = lf.with_row_index(row_index_name, offset=row_index_offset)
    if n_rows is not None:
        lf = lf.head(n_rows)
    return lf
