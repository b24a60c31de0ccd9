"""Whole reads of local files through the streaming scanner
(``_LocalScanner``, pqfast/scanner.h), taken at once into one Table: the
route of ``ParquetFile.read`` / ``read_row_groups`` on a local file (so of
``read_table`` of one local path) and of ``read_table`` without filters on
local lakes (``_read_scan`` plans a lake's files and calls :func:`read_whole`,
or, for a lake of small files, :func:`read_files`: file tasks planned from
the first file's footer).

Which route a read takes is decided before any page is read, never by
catching an error: :func:`file_plan` gives the scanner's column specs when
every projected column is a flat leaf or a nested field (list, struct, map;
the scanner assembles it in C++) read straight into its final Arrow type
(no dictionary output, no extension type, no cast or retyping after the
read); otherwise None and the caller keeps the column reader.
``PQFAST_READ_ROUTE=reader`` keeps every whole read on the column reader.

Below the file and the lake (imports the column reader's planning only).
"""

from __future__ import annotations

import os
from typing import Sequence

import pyarrow as pa

from . import _pqfast
from ._nested import NestedPlan, with_map_names
from ._plan import _Plan, _field
from ._read import _memory_limit, _plans, _pyarrow_types_path, _schema_metadata, _thread_count
from ._strings import checked_strings

# PQFAST_READ_ROUTE=reader keeps every whole read on the column reader (the
# escape hatch, and what scripts/bench_read_route.py compares against);
# otherwise whole reads of local files, one file or a lake, go through the
# scanner when it takes the projection (file_plan). One file took the column
# reader until the scanner's per-unit costs were cut (LocalScan reads each
# column chunk on the thread that decodes it, just before): lineitem SF1,
# four writers' files, all 16 and Q12's 5 columns, CPU per read 0.99-1.01x
# the column reader's at 1 thread, 0.95-1.08x at 2 (docs/reading.md); a lake
# of 10,000 small files reads 4x faster through the scanner.
ROUTE_ENV = "PQFAST_READ_ROUTE"

# A read decoding less than this (the footers' uncompressed bytes of the
# selected row groups) runs on the calling thread: handing a few hundred KB
# to the scanner's threads and back costs more than decoding it.
SMALL_READ_BYTES = 2 << 20

# The least bytes (decoded) of a range of pages that a thread decodes of a
# chunk cut over several (split_parts' piece, src/parquet/column_reader.cc;
# PQFAST_SPLIT_BYTES sets it there, and so here: tests cut small chunks).
SPLIT_PIECE_BYTES = 4 << 20
SPLIT_ENV = "PQFAST_SPLIT_BYTES"

# Ranges of one row group closer than this are read as one pread.
LOCAL_GAP = 64 << 10

# Readahead (bytes asked for and not consumed) when no memory_limit is given.
DEFAULT_READAHEAD_BYTES = 512 << 20

# Rows per batch of a whole read in file tasks: a batch per row group (a
# chunk of the table each, as the column reader gives them).
WHOLE_ROW_GROUPS = 1 << 40


def _route() -> str:
    return os.environ.get(ROUTE_ENV, "").strip().lower()


def wants_reader() -> bool:
    return _route() == "reader"


def units_ahead(n_threads: int) -> int:
    """Row groups read and decoded ahead of the consumer on the scanner's
    threads (readahead_bytes bounds their bytes too). A whole read takes
    every batch at once, so a deep window only keeps threads from waiting
    on the one that decodes the next unit: lineitem SF1 (polars' file, 53
    row groups) at 2 threads on a loaded 2-core VM, all columns, took
    1,670 ms with 4 units ahead, 1,013 with 16, 983 by the column reader."""
    return max(16, 4 * n_threads)


def names_list(read_dictionary) -> bool:
    """Whether ``read_dictionary`` is None or a list of column names; any
    other shape is left to the column reader, which says what is wrong."""
    return read_dictionary is None or (isinstance(read_dictionary, (list, tuple))
                                       and all(isinstance(c, str) for c in read_dictionary))


def file_plan(meta, path: str, columns: Sequence[str] | None, strings, read_dictionary=None):
    """(specs, schema) of a projection of one file that the scanner reads
    as the column reader would give it, or None (see the module's doc). A
    column the file lacks raises as the column reader raises it."""
    plans = _plans(meta, path, columns, strings, read_dictionary)
    if not plans:
        return None
    if len({p.name for p in plans}) != len(plans):
        # The scanner finds a leaf by its name: a file with two columns of
        # one name (legal in Parquet) keeps the column reader, which reads
        # by position.
        return None
    if any(isinstance(p, NestedPlan) and p.has_map for p in plans):
        # A map's type is the one pyarrow derives from the footer (its
        # entries' names), as the column reader sets it.
        arrow_types = _pyarrow_types_path(path, meta)
        for p in plans:
            if isinstance(p, NestedPlan) and p.has_map:
                p.pyarrow_type = arrow_types.field(p.field_index).type
    specs, fields = [], []
    for p in plans:
        if isinstance(p, NestedPlan):
            t = p.scanner_type()
            if t is None:
                return None
            specs.append(p.scanner_spec())
            fields.append(_field(p.name, t, p.nullable, p.field_metadata))
            continue
        if not isinstance(p, _Plan) or p.dictionary is not None or p.extension is not None \
                or not p.read_type.equals(p.final_type):
            return None
        specs.append((p.name, p.layout, p.format))
        fields.append(_field(p.name, p.final_type, p.nullable, p.field_metadata))
    return specs, pa.schema(fields, metadata=_schema_metadata(meta))


def selected_row_groups(meta, row_groups: Sequence[int] | None) -> list | None:
    """The row groups to read (negative ones counted from the end, as the
    column reader takes them), None for all; IndexError past the end."""
    if row_groups is None:
        return None
    n = meta.num_row_groups
    out = []
    for r in row_groups:
        r = int(r)
        if not -n <= r < n:
            raise IndexError(f"row group index {r} out of range (0..{n - 1})")
        out.append(r % n)
    return out


def shape(metas: list, selections: list) -> tuple[int, int]:
    """(rows of the largest selected row group, uncompressed bytes of the
    selected row groups). Batches are that many rows, so that a row group is
    one chunk of the table, as the column reader gives it."""
    most, nbytes = 1, 0
    for meta, rgs in zip(metas, selections):
        for g in (range(meta.num_row_groups) if rgs is None else rgs):
            rg = meta.row_group(g)
            most = max(most, int(rg["num_rows"]))
            nbytes += max(0, int(rg["total_byte_size"] or 0))
    return most, nbytes


def useful_threads(meta, rgs, specs, n_threads: int) -> int:
    """At most `n_threads`, and no more than there are pieces of work: a
    thread started for none costs a read of one chunk ~0.1 ms (a row group's
    column at 2 threads: 0.78 ms against 0.64 on the calling thread alone).
    A piece is a column chunk, or with fewer chunks than threads a range of
    its pages of at least 4 MiB decoded (the scanner cuts such a chunk over
    its threads, pqfast::parquet::split_parts)."""
    groups = range(meta.num_row_groups) if rgs is None else rgs
    chunks = len(groups) * max(1, len(specs))
    piece = split_piece_bytes()
    if chunks >= n_threads or piece <= 0:
        return max(1, min(n_threads, chunks))
    pieces = 0
    for g in groups:
        for spec in specs:
            if len(spec) != 3:
                pieces += 1  # a nested field: its leaves decoded one after the other, never cut
                continue
            name = spec[0]
            size = int(meta.column_chunk(g, meta.find_column(name))["total_uncompressed_size"] or 0)
            pieces += max(1, -(-size // piece))
    return max(1, min(n_threads, pieces))


def split_piece_bytes() -> int:
    """SPLIT_PIECE_BYTES, or what PQFAST_SPLIT_BYTES says (<= 0: no chunk is cut)."""
    raw = os.environ.get(SPLIT_ENV, "").strip()
    try:
        return int(raw) if raw else SPLIT_PIECE_BYTES
    except ValueError:
        return SPLIT_PIECE_BYTES


def read_file(path: str, meta, columns, row_groups, use_threads: bool, memory_limit, threads, strings,
              read_dictionary=None) -> pa.Table | None:
    """One local file's selected row groups through the scanner, or None
    when the column reader is to read it (see the module's doc)."""
    if wants_reader():
        return None
    if not names_list(read_dictionary):
        return None  # (the column reader says what is wrong with it)
    strings = checked_strings(strings)
    n_threads = _thread_count(threads, use_threads)
    limit = _memory_limit(memory_limit)
    plan = file_plan(meta, path, None if columns is None else list(columns), strings, read_dictionary)
    if plan is None:
        return None
    specs, schema = plan
    rgs = selected_row_groups(meta, row_groups)
    if rgs == []:
        return schema.empty_table()  # (the schema alone: a lake's planning asks this of its first file)
    rows, nbytes = shape([meta], [rgs])
    n_threads = n_threads or (os.cpu_count() or 1)
    if nbytes < SMALL_READ_BYTES:
        n_threads = 1
    n_threads = useful_threads(meta, rgs, specs, n_threads)
    stream, _ = read_whole([(path, 0, rgs)], [meta], specs, schema, rows, n_threads, limit)
    return with_map_names(pa.RecordBatchReader._import_from_c_capsule(stream).read_all(), schema)


def read_files(paths: list, first_meta, specs: list, schema: pa.Schema | None, n_threads: int, limit: int,
               whole_file_bytes: int, absent: list):
    """(an arrow_array_stream capsule over a batch per row group, [plan file
    of each batch], the index of the first file not read or None) of local
    `paths` read by one ``_LocalScanner`` in file tasks (LocalScan: each file
    opened once, read whole with its footer when small, decoded by the
    thread that read it; pqfast/scanner.h), planned from the first file's
    footer alone (`first_meta`): the scan ends before the first file whose
    projected leaf columns are not the first file's, or that holds one of
    the columns `absent` from it (``stop_at_unlike``), which the caller
    reads another way. Files of at most `whole_file_bytes` are read
    in one read. `schema` as :func:`read_whole` takes it."""
    own = -1 if n_threads <= 1 else n_threads - 1
    lim = int(limit or 0)
    footers = [first_meta] + [None] * (len(paths) - 1)
    sc = _pqfast._LocalScanner([(p, 0, None) for p in paths], specs, None, batch_size=WHOLE_ROW_GROUPS, threads=own,
                               coalesce_gap=LOCAL_GAP, footers=footers,
                               readahead_bytes=lim // 2 if lim else DEFAULT_READAHEAD_BYTES, memory_limit=lim,
                               file_tasks=True, stop_at_unlike=True, whole_file_bytes=int(whole_file_bytes),
                               absent_columns=list(absent))
    try:
        stream, files = sc.read_all(schema.__arrow_c_schema__() if schema is not None and len(schema) else None)
        return stream, files, sc.stopped_at
    finally:
        sc.cancel()


def read_whole(files: list, footers: list, specs: list, schema: pa.Schema | None, batch_size: int, n_threads: int,
               limit: int):
    """(an arrow_array_stream capsule over every batch, [plan file of each
    batch]) of `files` [(path, size or 0, [row group] or None)] read by one
    ``_LocalScanner`` whole (``read_all``: no Python per batch; an error is
    raised typed before any batch is handed out). `schema`: the stream's
    (the scan's Arrow types); None or empty: the scan's own.

    One thread: the calling thread reads and decodes (no threads of the
    scanner's own, one unit at a time). More: ``n_threads - 1`` threads of
    the scanner's own and the calling thread, which reads and decodes beside
    them while it waits (LocalScan::next_batch), enough units ahead to keep
    them all busy."""
    own = -1 if n_threads <= 1 else n_threads - 1
    ahead = 1 if n_threads <= 1 else units_ahead(n_threads)
    lim = int(limit or 0)
    sc = _pqfast._LocalScanner(files, specs, None, batch_size=batch_size, threads=own, coalesce_gap=LOCAL_GAP,
                               footers=footers, readahead_bytes=lim // 2 if lim else DEFAULT_READAHEAD_BYTES,
                               memory_limit=lim, max_units_ahead=ahead)
    try:
        return sc.read_all(schema.__arrow_c_schema__() if schema is not None and len(schema) else None)
    finally:
        sc.cancel()
