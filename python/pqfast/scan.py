"""``read_table(..., filters=...)``: the rows of a lake that a filter keeps, read
by the native scan engine (``src/scan/``, see ``pqfast/scan.h``).

Python builds the call: the files (a path, a directory, a glob or a list),
the projected columns typed from the first file's schema (as
``pyarrow.dataset`` does), and the filter normalized to an OR of ANDs of
atoms (``pqfast.filters``) whose values are typed by each column. C++ does the
rest with the GIL released: row groups pruned by min/max and Bloom filters,
chunks by their dictionaries, pages by the ColumnIndex, the filter columns
decoded and evaluated on what is left, and the projected columns read for
the selected rows only. The pieces come back through the Arrow C Data
Interface and are assembled here into one ``pyarrow.Table``.

Local paths go to the streaming scanner: ``read_table``, ``read_pruned``
and ``pqfast.dask`` reach it through ``_read_local``, which takes the lean
route here (:func:`lean_scan` -> ``_filtered_scan``: flat columns read
straight into their final types, a filter the engine types, files alike;
a sidecar index's tails given to the scan) or else the dataset scan. What
still reaches the engine's own call (``_scan_engine``: ``_scan_local`` and
Python assembly) is nested columns with a dictionary leaf under a filter
(nested fields otherwise take the lean route: the scanner takes the
engine's selected rows of each field in C++; ``_read_local`` leaves the
rest to :func:`scan_table`, and the dataset's units reach it through
``Lake.scan``). ``s3://`` URLs, paths on a filesystem object (pyarrow,
fsspec) and file objects do not come here: the streaming scanner reads
them, fed by one I/O loop (``_read_remote``, ``_stream_io``); the tails it
plans from are kept here (``_tails``).
"""

from __future__ import annotations

import atexit
import collections
import os
import threading
import time
from typing import Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pyarrow.types as pt

from . import _pqfast
from ._dictionaries import dictionary_names, table_with_dictionaries
from ._encode import _scale
from ._errors import INVALID_ARGUMENT, UNSUPPORTED, code_of
from ._file import ParquetFile
from ._partitions import discover
from ._paths import expand_paths, _remote_urls
from ._plan import _EmptyGroupPlan, _Plan, duration_units, is_nested_plan, is_null_typed
from ._pqfast import FormatError
from ._read import arrow_errors_named, _concat, _dictionary_pages, _memory_limit, _plans, _schema_metadata
from ._filtered_scan import read_filtered, scanner_schema, with_map_types
from ._sidecar import local_tails
from ._strings import checked_strings, table_with_strings
from .filters import Dnf, encode_atom_values, normalize, to_expression

_LT_DECIMAL = 5  # parquet.thrift LogicalType union id


def _refuse_file_objects(source: Any) -> None:
    if hasattr(source, "read") or hasattr(source, "read_at"):
        raise FormatError("invalid argument: filters= takes paths, directories, globs or lists of them, "
                          "not file objects")


def _local_paths(source: Any) -> list[str]:
    _refuse_file_objects(source)
    return expand_paths(source)


def _descs_with_units(meta) -> dict:
    """Leaf descriptors by dotted path; an Arrow duration's carries its unit
    (filters then take timedelta values, as read_table returns them)."""
    units = duration_units(meta)
    descs = {}
    for d in meta.columns():
        if d["physical_type"] == "INT64" and len(d["path"]) == 1 and d["path"][0] in units:
            d = dict(d, duration_unit=units[d["path"][0]])
        if is_null_typed(d):
            d = dict(d, null_type=True)
        if d["dotted_path"] in descs:
            # Two leaves of one name: a filter naming it cannot say which (pyarrow refuses it too).
            d = dict(d, ambiguous=True)
        descs[d["dotted_path"]] = d
    return descs


def _no_filter_column(path: str, column: str, descs: dict):
    """Raises for a filter on a column the file has no flat leaf of: KeyError
    when the name is unknown; NotImplementedError for a nested column (lists,
    structs and maps are projected, not filtered on)."""
    below = [n for n in descs if n.startswith(column + ".")]
    if below:
        raise NotImplementedError(
            f"{path}: filter on column {column!r}: a nested column (leaves {', '.join(below[:4])}); "
            f"filters= take flat columns. Read it and filter with pyarrow.compute, or filter on a flat column")
    names = ", ".join(list(descs)[:12])
    raise KeyError(f"{path}: filter on column {column!r}: no such column (columns: {names})")


def _encode_filter(dnf, descs: dict, path: str):
    """The DNF as the binding takes it: per atom (column, op, negate, physical
    type, type_length, data, offsets, set_has_null). A conjunct holding a
    comparison with a null literal is never TRUE and is dropped."""
    out = []
    for conj in dnf:
        atoms = []
        dead = False
        for a in conj:
            desc = descs.get(a.column)
            if desc is None:
                _no_filter_column(path, a.column, descs)
            if desc.get("ambiguous"):
                raise FormatError(f"{path}: filter on column {a.column!r}: the file has several columns so named")
            if a.op not in ("in", "is_null") and (not a.values or a.values[0] is None):
                dead = True
                break
            if desc.get("null_type"):
                # A column of the null type (read as nulls whatever its pages
                # hold): is_null is TRUE, any comparison null, as in pyarrow.
                always = not a.negate and (a.op == "is_null" or (a.op == "in" and None in a.values))
                if not always:
                    dead = True
                    break
                continue
            if a.op == "is_null":
                atoms.append((a.column, a.op, bool(a.negate), desc["physical_type"], 0, b"", None, False, -1))
                continue
            data, offsets, tl, has_null = encode_atom_values(desc, a)
            lt = desc["logical_type"]
            scale = -1
            if lt["kind"] == _LT_DECIMAL or desc.get("converted_type") == "DECIMAL":
                scale = int(_scale(desc))
            atoms.append((a.column, a.op, bool(a.negate), desc["physical_type"], int(tl), data, offsets,
                          bool(has_null), scale))
        if not dead:
            out.append(atoms)
    return out


def _assemble(plans, meta, pieces, nested_chunks=None, open_file=None):
    """The table of the engine's pieces: flat plans' arrays from the pieces (in
    plan order among the flat ones), nested plans' from `nested_chunks`
    ({id(plan): [array per piece]}). A column read as a dictionary takes, per
    piece, its row group's dictionary page as pyarrow's dictionary does (from
    `open_file(file index) -> ParquetFile`; without it, the values')."""
    arrays, fields = [], []
    j = 0
    for p in plans:
        pages = None
        if isinstance(p, _EmptyGroupPlan):
            arr = p.column([piece[2] for piece in pieces])
            arrays.append(arr)
            fields.append(p.field(arr))
            continue
        if isinstance(p, _Plan):
            chunks = [pa.Array._import_from_c_capsule(*piece[3][j]) for piece in pieces]
            j += 1
            if p.dictionary is not None and not p.native_dictionary and open_file is not None and pieces:
                pages = _piece_dictionary_pages(p, pieces, open_file)
        else:
            chunks = nested_chunks[id(p)]
        arr = p.finish(chunks, pages) if pages is not None else p.finish(chunks)
        arrays.append(arr)
        fields.append(p.field(arr))
    if plans:
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=_schema_metadata(meta)))
    num = sum(piece[2] for piece in pieces)
    return pa.table({"_": pa.nulls(num)}).drop_columns(["_"])


def _without_views(t):
    """`t` with its string and binary views, at any depth, as the plain types
    holding the same values (list views stay: pyarrow filters them)."""
    if pt.is_string_view(t):
        return pa.string()
    if pt.is_binary_view(t):
        return pa.binary()
    if pt.is_list_view(t) or pt.is_large_list_view(t) or pt.is_list(t) or pt.is_large_list(t):
        vf = t.value_field.with_type(_without_views(t.value_type))
        kind = pa.list_view if pt.is_list_view(t) else pa.large_list_view if pt.is_large_list_view(t) else \
            pa.large_list if pt.is_large_list(t) else pa.list_
        return kind(vf)
    if pt.is_fixed_size_list(t):
        return pa.list_(t.value_field.with_type(_without_views(t.value_type)), t.list_size)
    if pt.is_struct(t):
        return pa.struct([t.field(i).with_type(_without_views(t.field(i).type)) for i in range(t.num_fields)])
    if pt.is_map(t):
        return pa.map_(t.key_field.with_type(_without_views(t.key_type)),
                       t.item_field.with_type(_without_views(t.item_type)), t.keys_sorted)
    return t


def _filter_rows(t, mask):
    """t.filter(mask) (a boolean mask or an Expression); pyarrow filters no
    string or binary views: those columns are filtered as string or binary
    and given back their view types."""
    try:
        return t.filter(mask)
    except pa.ArrowNotImplementedError:
        pass
    plain = pa.schema([f.with_type(_without_views(f.type)) for f in t.schema], metadata=t.schema.metadata)
    return t.cast(plain).filter(mask).cast(t.schema)


def _piece_dictionary_pages(plan, pieces, open_file) -> list:
    """Per piece, the dictionary pyarrow gives its chunk of `plan`'s column:
    the chunk's dictionary page; for a chunk without one (written plain),
    the chunk read whole gives it (its values in order of appearance). None
    where the file names the leaf otherwise. (A chunk that fell back from
    dictionary to plain pages: its page, then the selected rows' values.)"""
    opened, out = {}, []
    try:
        for piece in pieces:
            fi, rg = piece[0], piece[1]
            got = opened.get(fi)
            if got is None:
                f = open_file(fi)
                descs = f._meta.columns()
                got = opened[fi] = (f, plan.leaf < len(descs) and descs[plan.leaf]["dotted_path"] == plan.name)
            f, same = got
            page = _dictionary_pages(f._source, f._meta, plan, [rg])[0] if same else None
            if same and page is None:
                whole = f.read(columns=[plan.name], row_groups=[rg]).column(0)
                if whole.num_chunks and pt.is_dictionary(whole.type):
                    page = whole.chunk(0).dictionary
            out.append(page)
    finally:
        for f, _ in opened.values():
            f.close()
    return out


def _filter_expression(filters, schema=None):
    """`filters` (DNF, Expression or filters.Dnf) as a pyarrow.compute
    Expression; None stays None. `schema` (the table's) types a Dnf's
    literals where pyarrow's inference would not (see filters.to_expression)."""
    if filters is None:
        return None

    if isinstance(filters, Dnf):
        return to_expression(filters, schema)
    return filters if isinstance(filters, pc.Expression) else pq.filters_to_expression(filters)


def _filter_columns(filters) -> list:
    """The columns `filters` names, in order of first use."""
    if filters is None:
        return []

    return list(dict.fromkeys(a.column for conj in normalize(filters) for a in conj))


def _nested_rows(open_file, nested, pieces, memory_limit, filters=None, strings=None):
    """The nested columns' values for the rows the engine selected, per piece:
    each matching row group's nested chunks read whole (a record's pages are
    unknown without its levels), then cut to the piece's rows: by the row
    selection the engine kept (piece[4]), or, where it kept none (object
    storage), by `filters` evaluated again in pyarrow's semantics, which the
    engine's rows follow. open_file(file index) -> ParquetFile.
    {id(plan): [array per piece]}."""
    out = {id(p): [] for p in nested}
    names = list(dict.fromkeys(p.name for p in nested))
    expr = _filter_expression(filters)
    filter_cols = _filter_columns(filters)
    opened = {}
    try:
        for piece in pieces:
            fi, rg = piece[0], piece[1]
            sel = piece[4] if len(piece) > 4 else None
            f = opened.get(fi)
            if f is None:
                f = opened[fi] = open_file(fi)
            if sel is not None:
                t = f.read(columns=names, row_groups=[rg], memory_limit=memory_limit, strings=strings)
                t = _filter_rows(t, np.unpackbits(np.frombuffer(sel, np.uint8),
                                                  bitorder="little")[:t.num_rows].astype(bool))
            else:
                t = f.read(columns=list(dict.fromkeys(names + filter_cols)), row_groups=[rg],
                           memory_limit=memory_limit, strings=strings)
                if expr is not None:
                    t = _filter_rows(t, expr)
            for p in nested:
                col = t.column(p.name)
                out[id(p)].extend(col.chunks if col.num_chunks else [col.combine_chunks()])
        if not pieces:
            # No row matched: empty arrays of the columns' types.
            f = opened[0] = open_file(0)
            # (A file without row groups types them from its footer.)
            t = f.read(columns=names, row_groups=[0] if f.num_row_groups else [],
                       memory_limit=memory_limit, strings=strings).slice(0, 0)
            for p in nested:
                out[id(p)].append(t.column(p.name).combine_chunks())
    finally:
        for f in opened.values():
            f.close()
    return out


_TAIL = 64 * 1024  # first read of each object's tail


class _TailCache:
    """Tails (footer, page index) of objects read before, for the next scans
    of the same lake (``Lake.tail``: the footers a remote scan plans from),
    as local scans keep parsed footers: an entry is used
    only while the listing gives the object the same size, ETag and
    modification time (an object listed without them is not kept). Bounded:
    256 MiB, least recently used out first."""

    def __init__(self, max_bytes: int = 256 << 20):
        self.max_bytes = max_bytes
        self.bytes = 0
        self.map: collections.OrderedDict = collections.OrderedDict()
        self.lock = threading.Lock()

    def get(self, where, size, version):
        if version is None or not version[0]:
            return None
        with self.lock:
            e = self.map.get(where)
            if e is None or e[0] != size or e[1] != version:
                return None
            self.map.move_to_end(where)
            return e[2]

    def put(self, where, size, version, tail: bytes) -> None:
        if version is None or not version[0] or len(tail) > self.max_bytes // 16:
            return
        with self.lock:
            old = self.map.pop(where, None)
            if old is not None:
                self.bytes -= len(old[2])
            self.map[where] = (size, version, tail)
            self.bytes += len(tail)
            while self.bytes > self.max_bytes and self.map:
                _, e = self.map.popitem(last=False)
                self.bytes -= len(e[2])


_tails = _TailCache()


def clear_tail_cache() -> None:
    """Forgets what earlier scans kept: of s3:// URLs tails and the
    streaming scanner's pruner footers (with the Bloom layouts they
    learned); of local files the first file's read plans."""
    _pqfast._scan_prune_cache_clear()
    _first_plans.clear()
    with _tails.lock:
        _tails.map.clear()
        _tails.bytes = 0


# What the first file of a scan says about its columns (footer, read plans,
# descriptors), by path, size, mtime and projection: a lookup asks the same
# lake again and again, and building the plans costs a tenth of a lookup.
# Only flat plans are kept (nested ones are set per read).
_first_plans: dict = {}
_FIRST_PLANS_MAX = 64


def _forget_at_exit() -> None:
    """Lets the caches' native objects (footers, read plans) go before the
    interpreter tears the modules down, where nanobind would count those
    still alive as leaks. No lock: a scan thread still running at exit must
    not hang it, and each clear is one step under the GIL."""
    _first_plans.clear()
    _tails.map.clear()


atexit.register(_forget_at_exit)


def _first_file_plans(path: str, columns, strings=None, read_dictionary=None):
    try:
        st = os.stat(path)
        key = (path, st.st_size, st.st_mtime_ns, None if columns is None else tuple(columns), strings,
               dictionary_names(read_dictionary))
    except (OSError, TypeError):
        key = None  # (unhashable or unreadable: ParquetFile says what is wrong)
    hit = _first_plans.get(key) if key is not None else None
    if hit is not None:
        return hit
    with ParquetFile(path) as first:
        meta = first._meta
        plans = _plans(meta, path, columns, strings, read_dictionary)
        descs = _descs_with_units(meta)
    # Kept only for a file last changed 2 s ago or more: one changed again
    # within its mtime's tick, at the same size, would otherwise look the same.
    if key is not None and time.time_ns() - key[2] >= 2_000_000_000 and all(isinstance(p, _Plan) for p in plans):
        if len(_first_plans) >= _FIRST_PLANS_MAX:
            _first_plans.clear()
        _first_plans[key] = (meta, plans, descs)
    return meta, plans, descs


def _is_schema_mismatch(e: Exception, path: str | None = None, row_groups=None) -> bool:
    """A later file the engine refused with the first file's plans and filter
    (a column missing, of another type, or typed otherwise for the filter's
    values): an invalid argument, since the same call took the first file;
    unless the row groups asked of the local file `path` are not in it
    (checked on its footer, after the failure: that error stands)."""
    if code_of(e) != INVALID_ARGUMENT:
        return False
    if path is None or row_groups is None:
        return True
    with ParquetFile(path) as f:
        n = f.num_row_groups
    rgs = list(row_groups)
    return all(0 <= r < n for r in rgs) and rgs == sorted(set(rgs))


def _add_stats(total: dict, st) -> None:
    """Adds one scan's stats into `total`: numbers summed, flags or-ed,
    lists joined, others the last seen."""
    for k, v in dict(st).items():
        if isinstance(v, bool):
            total[k] = bool(total.get(k)) or v
        elif isinstance(v, (int, float)):
            total[k] = total.get(k, 0) + v
        elif isinstance(v, list):
            total[k] = total.get(k, []) + v
        else:
            total[k] = v


def _as_schema(t, schema, path):
    """Table `t` with `schema`'s columns: missing ones null, others cast."""
    cols = []
    for f in schema:
        if f.name in t.column_names:
            c = t.column(f.name)
            if not c.type.equals(f.type):
                try:
                    c = c.cast(f.type)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                    raise FormatError(f"invalid argument: {path}: column {f.name!r} is {c.type} here, "
                                      f"{f.type} in the lake's first file, and does not cast: {e}") from None
        else:
            c = pa.nulls(t.num_rows, f.type)
        cols.append(c)
    return pa.Table.from_arrays(cols, schema=schema)


def _lake_schema(first, schema, filters):
    """`schema` (the projected columns, as the first file gives them) and,
    after it, the filter's other columns as the first file types them
    (`first`: its path, or a function opening it as a ParquetFile)."""
    extra = [c for c in _filter_columns(filters) if c not in schema.names]
    if extra:
        f = first() if callable(first) else ParquetFile(first)
        try:
            typed = f.read(columns=extra, row_groups=[]).schema
        finally:
            f.close()
        return pa.schema(list(schema) + list(typed), metadata=schema.metadata)
    return schema


def _evolved_file(path, schema, lake, filters, row_groups, opener=None):
    """One file unlike the lake's first: its rows `filters` keeps, in
    `schema`; `lake` types the filter's columns too. `opener()` opens it
    (default: the local path)."""
    f = opener() if opener is not None else ParquetFile(path)
    try:
        have = {d["path"][0] for d in f.columns}
        t = f.read(columns=[n for n in lake.names if n in have], row_groups=row_groups)
    finally:
        f.close()
    full = _as_schema(t, lake, path)
    if filters is not None:
        full = full.filter(_filter_expression(filters, full.schema))
    return full.select(schema.names)


def scan_table(source: Any, columns: Sequence[str] | None = None, filters: Any = None, *,
               threads: int | None = None, use_threads: bool = True, stats: bool = False,
               use_statistics: bool = True, use_bloom: bool = True, use_dictionary: bool = True,
               use_page_index: bool = True, memory_limit: int | None = None, row_groups: dict | None = None,
               partitioning: str | None = "hive", strings: str | None = None, _file_rows: list | None = None,
               read_dictionary: Sequence[str] | None = None):
    """The rows of local ``source`` that ``filters`` keeps, as a ``pyarrow.Table`` (see
    :func:`pqfast.read_table`). With ``stats=True``: ``(table, dict)`` where the
    dict says what was read (files, row groups, pages, bytes, seconds).

    Local paths only: the streaming scanner's lean route (:func:`lean_scan`)
    where it takes them, else the engine's own call (``_scan_engine``:
    nested columns under a filter; readers come through ``_read_local``,
    which sends the rest to the dataset scan). ``s3://`` URLs, paths on a
    ``filesystem=`` and file objects are read by the streaming scanner fed by
    one I/O loop (``_read_remote``, ``_dataset_scan.read_row_groups``).
    ``row_groups`` ({path: [row group]}, paths as the source names them, or as
    ``prune`` reports them): only those row groups are read, their rows
    filtered by ``filters`` when given, else whole (``read_pruned``); a file
    of ``source`` without any is read for nothing but, first, the schema.
    ``partitioning="hive"``: a directory's ``key=value`` levels are columns
    (:mod:`pqfast._partitions`). ``_file_rows`` (a list) gets the
    rows returned from each file of the source, in order.
    ``strings``: the layout of string and binary columns (see
    :func:`pqfast.read_table`), produced by the engine itself.
    (A dataset scan passes it here, as to read_table.)
    ``read_dictionary``: columns given as dictionary<int32> (see :func:`pqfast.read_table`):
    built by the engine (a filtered row group keeps its whole
    dictionary, as pyarrow's); other paths encode the values read."""
    checked_strings(strings)
    if _remote_urls(source):
        raise FormatError("invalid argument: scan_table reads local files; s3:// URLs are read by "
                          "pqfast.read_table / pqfast.dataset (the streaming scanner)")
    where = os.fspath(source) if isinstance(source, (str, os.PathLike)) else repr(source)[:200]
    with arrow_errors_named(where):
        got = _scan_table(source, columns, filters, threads, use_threads, stats, use_statistics, use_bloom,
                          use_dictionary, use_page_index, memory_limit, row_groups, partitioning, _file_rows,
                          strings, read_dictionary)
        # Paths that read through pyarrow (a filter only pyarrow.compute
        # evaluates, files of another schema) are cast here; others are read so.
        if stats:
            return table_with_dictionaries(table_with_strings(got[0], strings), read_dictionary), got[1]
        return table_with_dictionaries(table_with_strings(got, strings), read_dictionary)


def _scan_table(source, columns, filters, threads, use_threads, stats, use_statistics, use_bloom, use_dictionary,
                use_page_index, memory_limit, row_groups, partitioning, _file_rows, strings=None,
                read_dictionary=None):
    t0 = time.perf_counter()
    paths = _local_paths(source)
    if not paths:
        raise FormatError(f"invalid argument: no Parquet files in {os.fspath(source) if isinstance(source, (str, os.PathLike)) else source!r}")
    parts = _local_partitions(source, paths, partitioning)
    if parts is not None:
        kw = dict(threads=threads, use_threads=use_threads, use_statistics=use_statistics, use_bloom=use_bloom,
                  use_dictionary=use_dictionary, use_page_index=use_page_index, memory_limit=memory_limit,
                  strings=strings, read_dictionary=read_dictionary)
        return _scan_local_partitioned(paths, parts, columns, filters, stats, t0, kw, row_groups, _file_rows)
    got = lean_scan(paths, columns, filters, threads, use_threads, (use_statistics, use_bloom, use_dictionary,
                                                                      use_page_index),
                    memory_limit, row_groups, _file_rows, strings, read_dictionary, t0)
    if got is not None:
        return got if stats else got[0]
    return _scan_engine(paths, columns, filters, threads, use_threads, stats, (use_statistics, use_bloom,
                                                                              use_dictionary, use_page_index),
                        memory_limit, row_groups, _file_rows, strings, read_dictionary, t0)


def lean_scan(paths: list, columns, filters, threads, use_threads, flags: tuple, memory_limit, row_groups,
              file_rows, strings, read_dictionary, t0):
    """The rows `filters` keeps in local files `paths` through the streaming
    scanner's lean route (:mod:`._filtered_scan`), planned from the first
    file's cached column plans and the filter it encoded: (table, stats), or
    None when that route does not take the read, which then goes through
    the dataset scan (``_read_local``): no filter, a filter the engine
    cannot type for the first file (a BYTE_ARRAY DECIMAL column), a column
    not read straight into its final type (dictionary, extension, cast,
    nested), or files the scanner refuses with the first file's plans and
    filter (a later file of another schema: an invalid argument, typed). A
    sidecar index beside the files gives its tails to the scan
    (``_sidecar.local_tails``). `flags`: use_statistics, use_bloom,
    use_dictionary, use_page_index."""
    if filters is None:
        return None
    meta, plans, descs = _first_file_plans(paths[0], columns, strings, read_dictionary)
    try:
        dnf = _encode_filter(normalize(filters), descs, paths[0])
    except FormatError as e:
        if code_of(e) != UNSUPPORTED:
            raise
        return None
    kept, groups = paths, None
    if row_groups is not None:
        # Chosen by the caller (pruned before); files without any are left out.
        kept = [p for p in paths if row_groups.get(p)]
        groups = [sorted(set(row_groups[p])) for p in kept]
    if dnf and kept and any(is_nested_plan(p) for p in plans):
        with_map_types(plans, paths[0], meta)
    schema = scanner_schema(plans, meta) if dnf and kept else None
    if schema is None:
        return None
    n_threads = threads if threads is not None else (0 if use_threads else 1)
    use_bloom, use_page_index = flags[1], flags[3]
    sidecar = local_tails(kept) if use_bloom or use_page_index else None
    rows: list | None = [] if file_rows is not None else None
    try:
        table, st = read_filtered(kept, groups, plans, schema, dnf, int(n_threads), flags,
                                  _memory_limit(memory_limit), rows, sidecar)
    except FormatError as e:
        if len(kept) < 2 or not _is_schema_mismatch(e):
            raise
        return None  # (files unlike the first: runs of alike files, in the dataset scan)
    if file_rows is not None:
        at = dict(zip(kept, rows))
        file_rows.extend(at.get(p, 0) for p in paths)
    st["seconds"] = time.perf_counter() - t0
    return table, st


def _scan_engine(paths, columns, filters, threads, use_threads, stats, flags, memory_limit, row_groups, file_rows,
                 strings, read_dictionary, t0):
    """The engine's own call (``_pqfast._scan_local``) and Python assembly:
    what only ``Lake.scan`` still asks of it (the dataset's units for nested
    columns with a dictionary leaf under a filter); the nested columns the
    scanner takes (the rest) no longer come here."""
    meta, plans, descs = _first_file_plans(paths[0], columns, strings, read_dictionary)
    dnf = None if filters is None else _encode_filter(normalize(filters), descs, paths[0])
    n_threads = threads if threads is not None else (0 if use_threads else 1)
    specs = [(p.name, p.read_layout, p.format) for p in plans if isinstance(p, _Plan)]
    nested = [p for p in plans if is_nested_plan(p)]
    kept, groups = paths, None
    if row_groups is not None:
        # Chosen by the caller (pruned before); the engine takes an empty list as "all": such files are left out.
        kept = [p for p in paths if row_groups.get(p)]
        groups = [sorted(set(row_groups[p])) for p in kept]
    args = (kept, specs, dnf, int(n_threads), *flags, _memory_limit(memory_limit), groups, bool(nested))
    pieces, st = _pqfast._scan_local(*args)
    nested_chunks = None
    if nested:
        # With no file left (no pieces either), the first file types the empty columns.
        nested_chunks = _nested_rows(lambda i: ParquetFile(kept[i] if kept else paths[0]), nested, pieces,
                                     memory_limit, strings=strings)

    table = _assemble(plans, meta, pieces, nested_chunks, lambda i: ParquetFile(kept[i]))
    if file_rows is not None:
        counts = [0] * len(kept)
        for piece in pieces:
            counts[piece[0]] += piece[2]
        at = dict(zip(kept, counts))
        file_rows.extend(at.get(p, 0) for p in paths)
    if stats:
        st = dict(st)
        st["seconds"] = time.perf_counter() - t0
        return table, st
    return table


def _checked_partitioning(partitioning):
    if partitioning not in ("hive", None):
        raise FormatError(f"invalid argument: partitioning must be 'hive' or None, not {partitioning!r}")
    return partitioning


def _local_partitions(source, paths, partitioning):
    """The hive partitions of a local directory source, or None (not a
    directory, or no ``key=value`` level under it)."""
    if _checked_partitioning(partitioning) is None:
        return None
    if not isinstance(source, (str, os.PathLike)) or not os.path.isdir(os.fspath(source)):
        return None

    parts = discover(os.fspath(source), paths)
    if parts is not None:
        with ParquetFile(paths[0]) as f:
            parts = parts.without({c["path"][0] for c in f.columns})
    return parts


def _scan_local_partitioned(paths, parts, columns, filters, stats, t0, kw, row_groups=None, file_rows=None):
    """scan_table over a partitioned local directory (see _scan_partitioned)."""

    def scan(files, cols, filt, file_rows=None, schema_only=False):
        chosen = [paths[i] for i in files]
        return scan_table(chosen, cols, filt, stats=True, partitioning=None, _file_rows=file_rows,
                          row_groups={} if schema_only else _chosen_groups(row_groups, chosen), **kw)

    return _scan_partitioned(paths, parts, columns, filters, stats, t0, scan, row_groups, file_rows)


def _chosen_groups(row_groups, chosen) -> dict | None:
    """The row_groups= entries of the files `chosen` (None: every row group)."""
    return None if row_groups is None else {p: row_groups[p] for p in chosen if p in row_groups}


def _per_file_filters(parts, filters, n_files: int) -> list:
    """Per file, the filter left for its own columns: False (no row can
    match: not read), None (no filter), or a Dnf; atoms on keys decided by
    the file's directories (Partitions.fold)."""
    if filters is None:
        return [None] * n_files
    dnf = normalize(filters)
    if not any(a.column in parts.types for conj in dnf for a in conj):
        return [filters] * n_files
    return [False if f is None else (None if f is True else Dnf(f)) for f in parts.fold(dnf)]


def _filter_groups(per_file: list) -> list:
    """[(filter, [file index])]: the files to read, grouped by the filter
    left for them (groups in order of their first file)."""
    groups: list = []
    for i, f in enumerate(per_file):
        if f is False:
            continue
        for g in groups:
            if g[0] is f or (type(g[0]) is type(f) and g[0] == f):
                g[1].append(i)
                break
        else:
            groups.append((f, [i]))
    return groups


def _in_file_order(slices: dict):
    """One table of {file index: (table, offset, rows)}, files in order; a
    table's consecutive files are sliced from it once."""
    runs: list = []
    for f in sorted(slices):
        t, at, n = slices[f]
        if runs and runs[-1][0] is t and runs[-1][1] + runs[-1][2] == at:
            runs[-1][2] += n
        else:
            runs.append([t, at, n])
    return _concat([t.slice(at, n) for t, at, n in runs])


def _scan_partitioned(names, parts, columns, filters, stats, t0, scan, row_groups=None, file_rows=None):
    """scan_table over a partitioned directory of files `names` (as the
    source names them): the filter's atoms on keys decided per directory
    (files no branch can match are not read: on object storage not
    fetched), the files left read by one scan per filter left for them
    (most filters leave one: the same for all), the key columns appended
    from each file's rows, files in path order. `row_groups` ({name: [row
    group]}, read_pruned's): only those row groups, files without any not
    read. `file_rows` (a list) gets the rows given from each file.

    scan(files, columns, filters, file_rows=None, schema_only=False) ->
    (table, stats) reads files (indices), `file_rows` getting each one's
    rows; `schema_only`: no row, the first file's schema."""
    n_files = len(names)
    cols, keys = parts.split(columns)
    slices: dict = {}
    schema, st_all = None, {}
    per_file = _per_file_filters(parts, filters, n_files)
    if row_groups is not None:
        per_file = [f if row_groups.get(name) else False for f, name in zip(per_file, names)]
    for filt, files in _filter_groups(per_file):
        rows: list = []
        t, st = scan(files, cols, filt, file_rows=rows)
        t = parts.with_columns(t, keys, files, rows)
        if schema is None:
            schema = t.schema
        elif t.schema != schema:  # (files unlike the lake's first: its types)
            t = _as_schema(t, schema, f"file {files[0]} of the lake")
        at = 0
        for f, n in zip(files, rows):
            slices[f] = (t, at, n)
            at += n
        _add_stats(st_all, st)
    if slices:
        table = _in_file_order(slices)
    else:  # nothing can match: the lake's schema from the first file, no row
        t, st = scan([0], cols, None, schema_only=True)
        table = parts.with_columns(t, keys, [0], [0])
        _add_stats(st_all, st)
    if columns is not None:
        table = table.select(list(columns))
    if file_rows is not None:
        file_rows.extend(slices[i][2] if i in slices else 0 for i in range(n_files))
    st_all["files"] = n_files
    st_all["seconds"] = time.perf_counter() - t0
    return (table, st_all) if stats else table


def local_partitioned_lake(source):
    """(files, Partitions) of a hive-partitioned local directory, or None
    (not a directory, or no key=value level): ``_lake.partitioned_lake``'s
    for local sources."""
    if not isinstance(source, (str, os.PathLike)) or not os.path.isdir(os.fspath(source)):
        return None
    paths = expand_paths(source)
    parts = _local_partitions(source, paths, "hive") if paths else None
    return (paths, parts) if parts is not None else None


