"""``read_table(filters=)`` of local files through the streaming scanner
(``_LocalScanner``, pqfast/scanner.h): the lean route ``scan.lean_scan``
takes for local paths (``_read_local`` tries it first), planned from what
it holds already (the first file's cached column plans and the filter it
encoded), without a Lake, a dataset schema or a Python object per file. A
sidecar index's tails go to the scan (``sidecar=``).

In C++ the scan prunes every file first (footers from the process-wide
cache, statistics and Bloom filters, files in parallel), then runs the scan
engine on each row group left, as one engine call does; the batches come
back through one C stream taken at once (``read_all``), with the plan file
of each, so that ``_file_rows`` and the counts of ``stats=True`` are the
engine call's.

:func:`scanner_schema` decides before any page is read whether the scanner
takes a projection (every column a flat leaf read straight into its final
Arrow type: no dictionary, extension type or cast after the read; or a
nested field the scanner assembles, finished per row group when the read
retypes it); otherwise ``_read_local`` takes the
dataset scan. A nested field's rows are those the engine selects on the
flat filter columns: the scanner assembles the field per matching row group
and takes them (``take_nested_rows``, pqfast/parquet_nested.h).

Below the scan (``scan``); imports the column plans only.
"""

from __future__ import annotations

import warnings

import pyarrow as pa

from . import _pqfast
from ._nested import NestedPlan, with_map_names
from ._plan import _Plan, _field
from ._read import _pyarrow_types_path, _schema_metadata

# One batch per row group: the scan is taken whole, as the engine call's
# pieces are (a chunk per row group with rows).
_WHOLE_UNITS = 1 << 62
# The engine's counts, as read_table(stats=True) names them.
FormatError = _pqfast.FormatError
_COUNTS = ("files", "files_read", "row_groups", "row_groups_pruned_by_statistics", "row_groups_pruned_by_bloom",
           "row_groups_pruned_by_dictionary", "row_groups_pruned_by_page_index", "row_groups_read",
           "row_groups_matched", "pages_read", "pages_skipped", "bytes_read", "reads", "rows")


# The output schema per plans list (scan._first_file_plans keeps one list per
# file, projection and layout, reused by every lookup of the same lake):
# {id(plans): (plans, schema)}, the list held so that its id stays its own.
_schemas: dict = {}
_SCHEMAS_MAX = 64


def scanner_schema(plans: list, meta) -> pa.Schema | None:
    """:func:`scanner_fields` as a schema (with the metadata of `meta`, the
    footer the plans were made from), kept per plans list; None when the
    scanner does not take them."""
    hit = _schemas.get(id(plans))
    if hit is not None and hit[0] is plans:
        return hit[1]
    fields = scanner_fields(plans)
    if fields is None:
        return None
    schema = pa.schema(fields, metadata=_schema_metadata(meta))
    if len(_schemas) >= _SCHEMAS_MAX:
        _schemas.clear()
    _schemas[id(plans)] = (plans, schema)
    return schema


def scanner_fields(plans: list) -> list | None:
    """The output fields of a projection the scanner reads (see the
    module's doc), or None when some column needs the engine's own call."""
    if not plans:
        return None  # (no column: the row count alone, which the engine call gives)
    fields = []
    for p in plans:
        # (a file with two columns of one name: the scanner takes its
        # leaves of that name in order, one per mention, as the plans list them)
        if isinstance(p, NestedPlan):
            # Assembled by the scanner straight into its final type; or, when
            # the embedded schema retypes it after the read (large, fixed-size
            # or view lists, time zones, extension leaves) or a struct field
            # is named ("s.a"), assembled and finished row group by row group
            # (_finished). A dictionary leaf comes out of the scanner as a
            # dictionary array (its chunk's dictionary page, as pyarrow's).
            t = p.scanner_type()
            if t is None:
                t = p.assembled_type()
            fields.append(_field(p.name, t, p.nullable, p.field_metadata))
            continue
        if not isinstance(p, _Plan) or p.dictionary is not None or p.extension is not None or \
                p.native_dictionary or not p.read_type.equals(p.final_type) or not p.format:
            return None
        fields.append(_field(p.name, p.final_type, p.nullable, p.field_metadata))
    return fields


def scanner_specs(plans: list) -> list:
    """The scanner's column specs of a projection :func:`scanner_fields`
    takes, in plan order: (name, layout, format) of a flat leaf, (name,
    [(layout, format) per leaf]) of a nested field."""
    return [p.scanner_spec() if isinstance(p, NestedPlan) else (p.name, p.read_layout, p.format) for p in plans]


def with_map_types(plans: list, path: str, meta) -> None:
    """Gives each nested plan holding a map the type pyarrow derives for it
    from the footer of `path` (`meta`): its map entries named as pyarrow
    names them, which the scanner's output schema then carries."""
    maps = [p for p in plans if isinstance(p, NestedPlan) and p.has_map and p.pyarrow_type is None]
    if maps:
        types = _pyarrow_types_path(path, meta)
        for p in maps:
            p.pyarrow_type = types.field(p.name).type


def _finished(table: pa.Table, plans: list, schema: pa.Schema) -> pa.Table:
    """`table` (as the scanner read it: a chunk per row group, offset 0 at
    every level) with the nested columns the read retypes finished as the
    column reader finishes them (``NestedPlan.finish``); others as they are."""
    todo = [isinstance(p, NestedPlan) and p.scanner_type() is None for p in plans]
    if not any(todo):
        return table
    arrays, fields = [], []
    for k, (p, finish) in enumerate(zip(plans, todo)):
        col = table.column(k)
        if finish:
            # (no row group with rows: one empty chunk types the column)
            col = p.finish(col.chunks or [pa.array([], type=col.type)])
            fields.append(p.field(col))
        else:
            fields.append(schema.field(k))
        arrays.append(col)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=schema.metadata))


def scanner_threads(threads: int) -> int:
    """The engine call's thread count (0: every core) as ``_LocalScanner``
    takes it: one thread is the calling thread alone (-1)."""
    return -1 if threads == 1 else int(threads)


def read_filtered(paths: list, groups: list | None, plans: list, schema: pa.Schema, dnf, threads: int,
                  flags: tuple, memory_limit: int, file_rows: list | None = None,
                  sidecar: tuple | None = None) -> tuple[pa.Table, dict]:
    """The rows `dnf` (encoded for the engine) keeps in local files `paths`
    (``groups[i]``: only those row groups of file i; None: all), the columns
    of `plans` read as `schema` (:func:`scanner_schema`) and finished;
    (table, the engine's counts). `flags`: use_statistics,
    use_bloom, use_dictionary, use_page_index. `file_rows` gets the rows
    given from each file, in order. `sidecar`: ``_sidecar.local_tails``'s
    (sidecar path, per file its tail, files with one): those files are read
    as data file + tail (their Bloom filters and page indexes the sidecar's);
    a tail that fails the scan (it does not parse) makes the scan run again
    without the sidecar, with a warning, as pqfast always treated a sidecar."""
    if sidecar is not None:
        try:
            table, st = _read(paths, groups, plans, schema, dnf, threads, flags, memory_limit, file_rows, sidecar)
        except FormatError as e:
            warnings.warn(f"pqfast: sidecar ignored: {sidecar[0]}: {e}", stacklevel=5)
            if file_rows is not None:
                del file_rows[:]
        else:
            st["files_with_sidecar"] = sidecar[2]
            return table, st
    return _read(paths, groups, plans, schema, dnf, threads, flags, memory_limit, file_rows, None)


def _read(paths, groups, plans, schema, dnf, threads, flags, memory_limit, file_rows, sidecar):
    specs = scanner_specs(plans)
    use_statistics, use_bloom, use_dictionary, use_page_index = flags
    files = [(p, 0, None if groups is None else [int(g) for g in groups[i]]) for i, p in enumerate(paths)]
    where, tails = (sidecar[0], sidecar[1]) if sidecar is not None else (None, None)
    sc = _pqfast._LocalScanner(files, specs, dnf, batch_size=_WHOLE_UNITS, memory_limit=memory_limit,
                               threads=scanner_threads(threads), use_statistics=use_statistics, use_bloom=use_bloom,
                               use_dictionary=use_dictionary, use_page_index=use_page_index, sidecar=where,
                               tails=tails)
    try:
        stream, batch_files = sc.read_all(schema.__arrow_c_schema__())
        table = with_map_names(pa.RecordBatchReader._import_from_c_capsule(stream).read_all(), schema)
        table = _finished(table, plans, schema)
        engine = sc.stats["engine"]
    finally:
        sc.cancel()
    if file_rows is not None:
        rows = [0] * len(paths)
        for k, b in zip(batch_files, table.to_batches()):
            rows[k] += b.num_rows
        file_rows.extend(rows)
    return table, {k: engine[k] for k in _COUNTS}
