"""The column reader: one opened Parquet file (a ``_file._Source`` and its
parsed footer) read into a pyarrow Table by pqfast's own reader.

The pages are decoded in C++ (``src/parquet/column_reader.cc``) on a thread
per column chunk with the GIL released, and handed over through the Arrow C
Data Interface, so pyarrow wraps the buffers without a copy. Types are those
pyarrow derives from the Parquet schema, or from the Arrow schema the writer
embedded (``ARROW:schema``: string_view, large_string, time zones,
dictionaries...), as ``pyarrow.parquet.read_table`` gives them (``_plan``);
nested columns are assembled by ``_nested``.

Above the plans; below the file (``_file.ParquetFile.read``), the scan and
``read_table``.
"""

from __future__ import annotations

import contextlib
import io
import os
import struct
from typing import Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from . import _pqfast
from ._dictionaries import dictionary_names
from ._nested import NestedPlan
from ._plan import _EmptyGroupPlan, _Plan, _embedded_arrow_schema, is_nested_plan
from ._pqfast import FormatError
from ._strings import checked_strings


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
    try:
        yield
    except FormatError:
        raise
    except pa.ArrowMemoryError as e:
        raise _pqfast.MemoryLimitError(f"memory limit: {path}: {e}") from e
    except (pa.ArrowException, ValueError) as e:
        raise FormatError(f"unsupported: {path}: pyarrow cannot hold what the file holds "
                          f"({type(e).__name__}: {e})") from e


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
    as_dictionary = dictionary_names(read_dictionary)
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
            plans.append(_nested_plan(NestedPlan, meta, path, name, k, descs, field, strings))
            continue
        problem = _pqfast._flat_column_problem(meta, leaves[0])
        if problem:
            raise FormatError(f"{path}: {problem}")
        plan = _Plan(name, leaves[0], descs[leaves[0]], field, strings, read_dictionary=name in as_dictionary)
        plan.native_dictionary = plan.dictionary is not None and plan.layout == "binary"
        plans.append(plan)
    return plans


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
    if source.local:
        return _pyarrow_types_path(source.path, meta)
    n = meta.footer_length + 8
    return _pyarrow_types_of(source.path, meta, bytes(source.read_at(source.size - n, n)))


def _pyarrow_types_path(path: str, meta):
    """:func:`_pyarrow_types` of a local file by its path."""
    n = meta.footer_length + 8
    with open(path, "rb") as fh:
        fh.seek(max(0, os.path.getsize(path) - n))
        tail = fh.read(n)
    return _pyarrow_types_of(path, meta, tail)


def _pyarrow_types_of(path: str, meta, tail: bytes):
    n = meta.footer_length + 8
    if len(tail) != n or struct.unpack("<I", tail[-8:-4])[0] != meta.footer_length:
        raise FormatError(f"{path}: the footer changed while it was read")
    return pq.read_metadata(io.BytesIO(b"PAR1" + tail)).schema.to_arrow_schema()


def _dictionary_pages(source, meta, plan: _Plan, rgs: list) -> list:
    """Per row group, the values of the column's dictionary page as an Arrow
    array (None where the chunk has none or it cannot be located: the
    dictionary then follows the values' order)."""
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
    columns read as dictionary<int32>, as pyarrow's keyword, see _dictionaries)."""
    with arrow_errors_named(source.path):
        return _read_source(source, meta, columns, row_groups, use_threads, memory_limit, threads,
                            checked_strings(strings), read_dictionary)


def _read_source(source, meta, columns, row_groups, use_threads, memory_limit, threads, strings=None,
                 read_dictionary=None):
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


def _concat(tables):
    """pa.concat_tables, keeping the row count of tables without columns
    (``columns=[]``: pyarrow gives the rows, no column)."""
    if tables and tables[0].num_columns == 0:
        return pa.table({"_": pa.nulls(sum(t.num_rows for t in tables))}).drop_columns(["_"])
    return pa.concat_tables(tables)


def _memory_limit(limit) -> int:
    """memory_limit= as the bindings take it: bytes, 0 for the default."""
    if limit is None:
        return 0
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        raise FormatError(f"invalid argument: memory_limit must be a positive number of bytes, not {limit!r}")
    return int(limit)
