"""One scan of a ``pqfast.dataset()`` (or of a fragment): its projection,
filter, batch size, readahead, threads and memory limit, streamed as record
batches; the fragments that survive pruning; and ``read_pruned(filter_rows=False)``
of local paths as a caller of the same scan (:func:`read_row_groups`). Below
the ``Dataset`` class (``_dataset``), and free of pyarrow.dataset, so that
``pqfast.parquet`` uses it without importing that (~88 MiB, 0.4 s).

How a scan runs (see docs/streaming.md, docs/architecture.md):
- a local lake of small files without a filter (its first file at most
  ``_stream_io.SMALL_FILE_BYTES``): in file tasks of the C++ scanner (each
  file read whole with its footer and decoded by one thread), planned from
  the first file's footer alone, run after run of files alike;
- when every column is a flat leaf, by the one C++ streaming scanner
  (:mod:`pqfast._stream_io`: local files on its own threads, ``s3://`` and
  ``filesystem=`` fed by one I/O loop), batches out in order within
  ``memory_limit``; files unlike the first, dictionary, extension and cast
  columns too: the files cut into runs read alike, one scanner after the
  other, each batch conformed to the dataset's schema
  (:mod:`pqfast._stream_plan`); with a filter, each file's (its hive keys,
  and the columns its run lacks, folded in) is
  run by the scan engine inside the scanner, and what pqfast cannot push
  applied by pyarrow.compute to each batch. Local files are pruned in C++
  before any unit is planned (footers cached per process, statistics, Bloom
  filters; files in parallel; a sidecar index's tails read as each file's
  own, :func:`._stream_io.local_batches`), each row group left read by the
  engine in one run (it reads what one engine call reads), lookups
  included; remote
  files: the footers' statistics prune here, and the scanner prunes each
  file once by the Bloom blocks its keys hash to (_native_filters).
  A filter the engine cannot type for the files (a BYTE_ARRAY DECIMAL
  column) is applied by pyarrow.compute to each batch, as ``post`` is;
- nested columns (lists, structs, maps) go through the scanner too, which
  assembles them in C++ (a dictionary leaf as a dictionary array: its
  chunk's dictionary page, as pyarrow's); under a filter the engine selects
  rows on the flat filter columns and the scanner takes those rows of each
  nested field it assembled (a filter on a nested leaf is left to
  pyarrow.compute); a nested column the read retypes (large, fixed-size or
  view lists, time zones, extension leaves, a struct field "s.a") is
  finished batch by batch (``_stream_plan``);
- there is no other route: every scan is the scanner's plan;
- batches come in file-then-row order, each at most ``batch_size`` rows.
"""

from __future__ import annotations

import threading
from typing import Any, Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from . import _pqfast
from ._errors import INVALID_ARGUMENT, UNSUPPORTED, batch_size_of, code_of, column_list, format_error
from ._lake import LOCAL, Lake
from ._nested import batches_with_map_names
from ._paths import _remote_urls
from ._rowgroup_stats import ALL, NONE, SOME, chunk_bounds, file_ruled_out, flat_leaves, row_group_verdicts
from ._stream_io import (
    NativePlan, StreamInfo, local_batches, native_plan, remote_batches, remote_small_files, small_files_plan,
    with_strings,
)
from ._stream_plan import fold_missing
from ._strings import checked_strings
from .filters import Dnf, normalize, to_expression
from .scan import (
    _add_stats, _descs_with_units, _encode_filter, _local_paths, _memory_limit, _per_file_filters,
)

FormatError = _pqfast.FormatError

DEFAULT_BATCH_SIZE = 131072
# The scan engine's counts (read_table(stats=True)'s names), 0 when nothing ran.
_ENGINE_COUNTS = ("files_read", "row_groups", "row_groups_pruned_by_statistics", "row_groups_pruned_by_bloom",
                  "row_groups_pruned_by_dictionary", "row_groups_pruned_by_page_index", "row_groups_read",
                  "row_groups_matched", "pages_read", "pages_skipped", "bytes_read", "reads", "rows")
# read_row_groups' batches: a row group each (no batch cut).
_WHOLE_ROW_GROUPS = 1 << 40


def read_row_groups(source: Any, row_groups: dict, columns, *, threads: int | None, partitioning,
                    filters: Any = None, filesystem: Any = None, storage_options: dict | None = None):
    """``read_pruned(filter_rows=False)`` (and pqfast.dask's parts) as a
    caller of the dataset scan: the row groups ``row_groups`` ({name: [row
    group]}, as pqfast.prune reports the source's files: paths, ``s3://``
    URLs, paths on ``filesystem``; None: every row group of every file)
    read whole, or their rows ``filters`` keeps, files in the source's
    order, through the streaming scanner. Local files: None when a name is
    not one of the source's files (the caller reads the files named)."""
    remote = filesystem is not None or bool(_remote_urls(source))
    if not remote and not _local_paths(source):
        return None
    lake = Lake.open(source, partitioning, filesystem, storage_options, None)
    at = {name: i for i, name in enumerate(lake.names)}
    if row_groups is None:
        selection = [(i, None) for i in range(len(lake.names))]
    elif any(p not in at for p in row_groups):
        if remote:
            raise FormatError(f"invalid argument: {next(p for p in row_groups if p not in at)!r} is not a file "
                              f"of {source!r}")
        return None
    else:
        selection = [(i, sorted(set(int(g) for g in row_groups[name]))) for i, name in enumerate(lake.names)
                     if row_groups.get(name)]
    sc = Scanner(lake, selection, columns, filters, _WHOLE_ROW_GROUPS, threads=threads)
    return pa.Table.from_batches(list(sc._native_stream(sc._native_plan(), sc._ahead)), schema=sc._out)


def _checked_threads(n):
    if n is None:
        return None
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise FormatError(f"invalid argument: threads must be a count of threads (0: every core), not {n!r}")
    return int(n)


class _Filter:
    """A scan's filter: the DNF the engines take (``dnf``), or, for an
    Expression that is not one of them (arithmetic, functions...), the
    Expression, applied by pyarrow.compute to each unit read whole
    (``post``)."""

    def __init__(self, filter: Any):
        self.given = filter
        self.dnf = None
        self.post = None
        # The columns ``post`` names, when known (a DNF left to
        # pyarrow.compute); None: any column (an Expression).
        self.post_columns = None
        if filter is None:
            return
        if isinstance(filter, pc.Expression):
            try:
                self.dnf = Dnf(normalize(filter))
            except FormatError:
                # pyarrow.compute evaluates what the engine cannot; no column is pruned by it.
                self.post = filter
            return
        self.dnf = Dnf(normalize(filter))

    def untyped(self, schema: pa.Schema) -> None:
        """The engine cannot type the filter for the files (a BYTE_ARRAY
        DECIMAL column): pyarrow.compute evaluates it on each batch, as it
        does an Expression the engines do not take (``schema`` types its literals)."""
        self.post = to_expression(self.dnf, schema)
        self.post_columns = sorted({a.column for conj in self.dnf for a in conj})
        self.dnf = None


def _conformed(b: pa.RecordBatch, out: pa.Schema) -> pa.RecordBatch:
    """Batch `b` in schema `out` (the same columns; field nullability and
    metadata as the dataset says), its rows kept when it has no column."""
    if b.schema == out:
        return b
    if b.schema.equals(out, check_metadata=False):
        return b.replace_schema_metadata(out.metadata)
    return pa.RecordBatch.from_arrays(b.columns, schema=out)


def _rows_only(batches: Iterator[pa.RecordBatch], out: pa.Schema) -> Iterator[pa.RecordBatch]:
    """A scan of no column as one batch of its rows (DataFusion pays about
    0.2 ms for each batch it takes from Python: a count(*) of 500 row groups
    made 500)."""
    rows = sum(b.num_rows for b in batches)
    if rows:
        b = pa.RecordBatch.from_arrays([pa.nulls(rows)], names=["_"]).drop_columns(["_"])
        yield b.replace_schema_metadata(out.metadata)  # (a cast to no column would drop its rows)


class ScanStats:
    """What the filtered scans of a dataset and of its fragments read in this
    process, summed (read_table(stats=True)'s numbers: pages_read,
    bytes_read, ...): how the engines' pushdown is checked. Not pickled: a
    fragment in another process counts there."""

    def __init__(self):
        self._lock = threading.Lock()
        self._totals: dict = {}

    def add(self, st: dict) -> None:
        with self._lock:
            _add_stats(self._totals, st)

    def snapshot(self) -> dict:
        with self._lock:
            return dict(self._totals)

    def reset(self) -> None:
        with self._lock:
            self._totals = {}

    def __getstate__(self):
        return {}

    def __setstate__(self, _):
        self.__init__()


class Scanner:
    """One scan of a :class:`Dataset` (or a fragment): its projection,
    filter, batch size, readahead, threads and memory limit. Each
    ``to_reader()`` / ``to_batches()`` / ``to_table()`` reads anew."""

    def __init__(self, lake: Lake, selection: list, columns=None, filter=None, batch_size: int = DEFAULT_BATCH_SIZE,
                 batch_readahead: int | None = None, threads: int | None = None, memory_limit: int | None = None,
                 scan_stats: ScanStats | None = None, strings: str | None = None):
        self._lake = lake
        self._scan_stats = scan_stats
        self._selection = selection  # [(file, [row group] or None)]
        self._columns = column_list(columns)
        self._filter = _Filter(filter)
        self._batch_size = max(batch_size_of(batch_size), lake.min_batch_size)
        self._threads = _checked_threads(threads)
        self._memory_limit = memory_limit
        _memory_limit(memory_limit)  # checked now
        if batch_readahead is not None and (isinstance(batch_readahead, bool) or not isinstance(batch_readahead, int)
                                            or batch_readahead < 0):
            raise FormatError(f"invalid argument: batch_readahead must be a count of units, not {batch_readahead!r}")
        self._ahead = 4 if batch_readahead is None else max(1, batch_readahead)
        self._ahead_given = batch_readahead is not None
        self._strings = checked_strings(strings if strings is not None else lake.strings)
        self._out = with_strings(lake.projection(self._columns)[2], self._strings)
        # A fragment's scan of local files decodes on the consumer's thread
        # (Fragment.scanner sets it): see _native_stream.
        self._on_caller = False
        # The last stream's StreamInfo (the C++ scanner's units started, peak
        # bytes held, counts: tests, stats).
        self.last_readahead = None
        self._ruled_out = 0  # row groups statistics ruled out before a native filtered scan

    # -- schemas ----------------------------------------------------------------

    @property
    def projected_schema(self) -> pa.Schema:
        return self._out

    @property
    def dataset_schema(self) -> pa.Schema:
        return with_strings(self._lake.schema, self._lake.strings)

    # -- planning ---------------------------------------------------------------

    def _read_columns(self):
        """The columns each unit reads: the projection, or, with a filter
        left to pyarrow.compute, the projection and the columns it names
        (every column when they are not known: an Expression)."""
        f = self._filter
        if f.post is None:
            return self._columns
        names = set(self._lake.schema.names)
        if self._columns is None or f.post_columns is None or not all(c in names for c in f.post_columns):
            return None  # (a nested field's leaf: its top-level column whole, with every other)
        return list(self._columns) + [c for c in f.post_columns if c not in self._columns]

    def _per_file_filters(self) -> list:
        """Per selected file: False (not read), None (no filter) or a Dnf."""
        lake, dnf = self._lake, self._filter.dnf
        n = len(self._selection)
        if dnf is None:
            return [None] * n
        if lake.parts is None:
            return [dnf] * n
        folded = _per_file_filters(lake.parts, dnf, len(lake.names))
        return [folded[i] for i, _ in self._selection]

    # -- streams -----------------------------------------------------------------

    def _native_plan(self):
        """The C++ scanner's plan of this scan (with ``selection``, the files
        the filter's partition keys leave, and ``filters``, per file its
        encoded DNF or None), the one route of every scan. Files unlike the
        first are runs of the plan (``NativePlan.runs``), each with its
        filters; a filter the engine cannot type for them is evaluated by
        pyarrow.compute on each batch (``_Filter.untyped``)."""
        if self._lake.kind != LOCAL:
            # Every footer planning reads (statistics, conformity) in one round
            # of requests, not one round per file; none of a file the filter's
            # partition keys rule out.
            self._lake.metas([i for (i, _), f in zip(self._selection, self._per_file_filters()) if f is not False])
        else:
            # Every footer planning reads at once in C++, not file by file.
            self._lake.read_footers([i for i, _ in self._selection], self._threads or 0)
        selection, filters = self._native_filters()
        if not selection:
            plan = NativePlan([], self._out, self._out, [])
            plan.selection, plan.filters = [], []
            return plan
        plan = native_plan(self._lake, selection, self._read_columns(), self._strings, merge=filters is None)
        if plan is None:
            where = self._lake.names[selection[0][0]]
            raise format_error(f"unsupported: {where}: the streaming scanner reads no projection of "
                               f"{self._read_columns() or 'every column'} here (a file with two columns of "
                               f"one name, or an object of unknown size)", UNSUPPORTED)
        if filters is not None and not self._run_filters(plan, filters):
            self._filter.untyped(self._lake.schema)
            return self._native_plan()
        plan.selection = [item for run in plan.runs for item in run.selection]
        plan.filters = None if filters is None else [f for run in plan.runs for f in run.filters]
        return plan

    def _run_filters(self, plan, per_file: list) -> bool:
        """Each run's filters (``per_file``: per selected file, in the runs'
        order), folded for the columns its files lack (a file no row of
        which can match leaves the run) and encoded for its files' types;
        False when the engine cannot type one (pyarrow.compute decides)."""
        at, kept = 0, []
        for run in plan.runs:
            mine = per_file[at:at + len(run.selection)]
            at += len(run.selection)
            selection, filters, folded = [], [], {}
            for item, f in zip(run.selection, mine):
                if f is not None and run.missing:
                    key = id(f)
                    if key not in folded:
                        folded[key] = (f, fold_missing(f, run.missing))  # (f held: its id stays its own)
                    f = folded[key][1]
                    if f is False:
                        continue
                selection.append(item)
                filters.append(f)
            if not selection:
                continue
            encoded = self._encoded(selection, filters, run.convert is not None)
            if encoded is None:
                return False
            run.selection, run.filters = selection, encoded
            kept.append(run)
        plan.runs = kept
        return True

    def _native_filters(self):
        """(selection, per file its filter or None) for the scanner: the
        files a filter's partition keys rule out left out, each other file's
        filter what its keys leave (encoded by :meth:`_encoded`, which may
        still refuse). A sidecar index beside local files is read by the
        scanner (``_stream_io.local_batches``).

        A lookup (every conjunction names one ``=``/``in`` column,
        ``filters.lookup_key``) takes the scanner like any other filter:
        local files pruned in C++ first, the row groups left run together as
        the engine call runs its row groups (docs/streaming.md, "Lookups
        through the scanner"); remote files pruned once each, before their
        units, by statistics and the Bloom blocks the keys hash to (one
        round of requests for the lake). Local files are not pruned here:
        LocalScan prunes them in C++."""
        nonempty = [(i, rgs) for i, rgs in self._selection if rgs is None or len(rgs)]
        if self._filter.dnf is None:
            return nonempty, None
        lake = self._lake
        selection, per_file = [], []
        for (i, rgs), f in zip(self._selection, self._per_file_filters()):
            if f is not False and (rgs is None or len(rgs)):
                selection.append((i, rgs))
                per_file.append(f)
        if not selection:
            return [], []  # (nothing to read: an empty plan)
        if lake.kind == LOCAL:
            return selection, per_file  # (pruned in C++, files in parallel, footers cached per process)
        return self._stats_pruned(selection, per_file)

    def _stats_pruned(self, selection: list, per_file: list) -> tuple[list, list]:
        """The row groups the footers' statistics do not rule out (as
        ``count_rows`` and ``get_fragments`` judge them; footers read once
        per lake): a range over a sorted lake plans a few units, not one per
        row group, each of which would run the engine over its file's tail.
        ``_ruled_out`` holds the row groups of the selection: those the
        engine's units do not count were ruled out here, by statistics
        (:meth:`_engine_stats`; the engine counts those of a unit's file
        that statistics rule out itself, which a count of the row groups
        left out here counted twice)."""
        out_sel, out_f, ruled = [], [], 0
        for (i, rgs), f in zip(selection, per_file):
            ruled += self._lake.meta(i).num_row_groups if rgs is None else len(rgs)
            if f is None:
                out_sel.append((i, rgs))
                out_f.append(f)
                continue
            verdicts = self._verdicts(i, rgs, f)
            kept = [g for g, v in verdicts if v != NONE]
            if kept:
                out_sel.append((i, kept if rgs is not None or len(kept) < len(verdicts) else None))
                out_f.append(f)
        self._ruled_out = ruled
        if not out_sel:
            return [], []  # no row group can match: nothing is read
        return out_sel, out_f

    def _encoded(self, selection: list, per_file: list, retyped: bool = False) -> list | None:
        """Per file its filter encoded for the scan engine (typed by the
        first file's columns, which the others conform to), or None.
        ``retyped``: the files' columns are cast to the dataset's types after
        the read (a run of files unlike the first): a value their own type
        does not take (a string for a column stored as integers) makes it
        None too, the filter then evaluated by pyarrow.compute on the cast
        batches, as pyarrow.dataset does."""
        lake = self._lake
        first = selection[0][0]
        descs = _descs_with_units(lake.meta(first))
        encoded: list = []  # [(Dnf, its encoding)], one per distinct filter
        out = []
        for f in per_file:
            if f is None:
                out.append(None)
                continue
            for g, enc in encoded:
                if g is f or g == f:
                    break
            else:
                try:
                    enc = _encode_filter(normalize(f), descs, lake.names[first])
                except FormatError as e:
                    if code_of(e) != UNSUPPORTED and not (retyped and code_of(e) == INVALID_ARGUMENT):
                        raise
                    return None
                encoded.append((f, enc))
            out.append(enc)
        return out

    def _stream_file_by_file(self) -> Iterator[pa.RecordBatch]:
        info = StreamInfo()
        self.last_readahead = info
        for sel in self._selection:
            one = Scanner(self._lake, [sel], self._columns, self._filter.given, self._batch_size, 1, self._threads,
                          self._memory_limit, self._scan_stats, self._strings)
            yield from one._native_stream(one._native_plan(), 1, info)
            info.next_scanner()
        info._closed = True

    def _small_files(self, selection: list, plan, ahead: int) -> Iterator[pa.RecordBatch]:
        """A lake of small files without a filter, read in file tasks
        (``_stream_io.local_batches`` with ``stopped``; remote lakes,
        ``s3://`` or ``filesystem=``: ``remote_small_files``, each object
        fetched whole in one GET): run after run, each
        planned from its first file's footer alone and ending before the
        first file whose columns differ from it; no other footer is read
        first. The rest, once its first file is not small, is planned from
        every footer (:meth:`_stream`). ``ahead``: files taken ahead at most
        (0: as the readahead bytes allow)."""
        info = StreamInfo()
        self.last_readahead = info
        while True:
            stopped: list = []
            if self._lake.kind == "local":
                batches = local_batches(self._lake, selection, plan, self._batch_size, self._threads,
                                        self._memory_limit, ahead, info, stopped=stopped)
            else:
                batches = remote_small_files(self._lake, selection, plan, self._batch_size, self._threads,
                                             self._memory_limit, ahead, info, stopped)
            yield from batches_with_map_names(batches, plan.out)
            if not stopped:
                return
            selection = selection[stopped[0]:]
            info.next_scanner()
            plan = small_files_plan(self._lake, selection, self._read_columns(), self._strings)
            if plan is None:
                rest = Scanner(self._lake, selection, self._columns, None, self._batch_size,
                               self._ahead if self._ahead_given else None, self._threads, self._memory_limit,
                               self._scan_stats, self._strings)
                yield from rest._native_stream(rest._native_plan(), ahead or rest._ahead, info)
                self.last_readahead = info
                return

    def _native_stream(self, plan, ahead: int, info: StreamInfo | None = None) -> Iterator[pa.RecordBatch]:
        info = info if info is not None else StreamInfo()
        self.last_readahead = info
        selection, filters = plan.selection, plan.filters
        if not selection:
            return iter(())
        # (A local filtered scan left with a few row groups once its files are
        # pruned runs on the consumer's thread: LocalScan decides, after pruning.)
        threads = self._threads
        if self._lake.kind == LOCAL and self._on_caller:
            # A fragment is the unit an engine scans in parallel on its own
            # threads, many at once (DataFusion starts one stream per
            # fragment, every one together; Dask and Ray a task each): each
            # fragment's scan decoding on threads of its own, with units read
            # ahead, would multiply threads and memory by the fragments in
            # flight. Its batches are read and decoded when the consumer asks,
            # in C++ without the GIL.
            ahead = 1
        if len(plan.runs) == 1:
            batches = self._run_batches(plan, plan.runs[0], ahead, threads, info)
        else:
            batches = self._chained(plan, ahead, threads, info)
        if filters is None and self._filter.post is None:
            return batches
        return self._filtered_batches(batches, info, sum(f is not None for f in filters or ()))

    def _run_batches(self, plan, run, ahead: int, threads, info: StreamInfo) -> Iterator[pa.RecordBatch]:
        """The batches of one run of the plan (one scanner), finished into the
        dataset's schema (map entries named as in it: local and remote alike)."""
        one = plan.for_run(run)
        if self._lake.kind == LOCAL:
            batches = local_batches(self._lake, run.selection, one, self._batch_size, threads,
                                    self._memory_limit, ahead, info, run.filters)
        else:
            # Remote units ahead are bounded by bytes (readahead within
            # memory_limit), not by a count: each costs a round trip or more,
            # so more in flight is what hides the store's latency.
            remote_ahead = ahead if ahead == 1 or self._ahead_given else 0
            batches = remote_batches(self._lake, run.selection, one, self._batch_size, self._memory_limit,
                                     remote_ahead, info, run.filters, threads=self._threads)
        return batches_with_map_names(batches, plan.out)

    def _chained(self, plan, ahead: int, threads, info: StreamInfo) -> Iterator[pa.RecordBatch]:
        """The runs' scanners one after the other (files in order): each
        holds its budget only while it runs, so the scan stays within
        memory_limit; a consumer that stops closes the one running."""
        for n, run in enumerate(plan.runs):
            if n:
                info.next_scanner()
            yield from self._run_batches(plan, run, ahead, threads, info)

    def _filtered_batches(self, batches, info: StreamInfo, n_filtered: int) -> Iterator[pa.RecordBatch]:
        """A filtered native stream: the part of the filter pqfast cannot push
        (``post``) applied by pyarrow.compute to each batch (which then holds
        every column), the projection taken after it; the scan engine's counts
        added to the scan stats at the end (as read_table(stats=True) names them)."""
        post, out = self._filter.post, self._out
        try:
            for b in batches:
                if post is not None:
                    b = pa.Table.from_batches([b]).filter(post)
                    if self._columns is not None:
                        b = b.select(out.names)  # (a dotted name's column is named by its field)
                    for piece in b.to_batches(max_chunksize=self._batch_size):
                        if piece.num_rows:
                            yield _conformed(piece, out)
                    continue
                yield b
        finally:
            batches.close()
            if self._scan_stats is not None and n_filtered:
                st = self._engine_stats(info)
                st["route"] = "scanner"  # (tests and benchmarks tell the routes apart by it)
                self._scan_stats.add(st)

    def _engine_stats(self, info: StreamInfo) -> dict:
        """What a filtered native scan read, as read_table(stats=True) names it:
        the scan engine's counts over the units it ran, and the row groups
        the footers' statistics ruled out before (:meth:`_stats_pruned`)."""
        st = dict.fromkeys(_ENGINE_COUNTS, 0)
        st.update(info.stats.get("engine", {}))
        unseen = self._ruled_out - st["row_groups"] if self._lake.kind != LOCAL else 0
        st["row_groups"] += unseen
        st["row_groups_pruned_by_statistics"] += unseen
        st["files"] = len(self._selection)
        return st

    def _stream(self, ahead: int | None = None) -> Iterator[pa.RecordBatch]:
        if (ahead or self._ahead) == 1 and len(self._selection) > 1 and self._filter.dnf is None \
                and self._filter.post is None:
            # No readahead (head): file by file, each footer read only once the
            # rows before it did not suffice.
            yield from self._stream_file_by_file()
            return
        if self._filter.dnf is None and self._filter.post is None:
            selection = [(i, rgs) for i, rgs in self._selection if rgs is None or len(rgs)]
            plan = small_files_plan(self._lake, selection, self._read_columns(), self._strings)
            if plan is not None:
                # (files ahead bounded by bytes alone unless batch_readahead was
                # given: a window of 4 small files kept the threads waiting)
                tasks_ahead = ahead or (self._ahead if self._ahead_given else 0)
                yield from self._small_files(selection, plan, tasks_ahead)
                return
        yield from self._native_stream(self._native_plan(), ahead or self._ahead)

    def to_batches(self) -> Iterator[pa.RecordBatch]:
        """The batches, in file-then-row order, each at most ``batch_size`` rows
        (on a dataset with a batch floor, ``Lake.min_batch_size``, a scan of
        no column gives its rows as one batch)."""
        if self._lake.min_batch_size and not self._out.names:
            return _rows_only(self._stream(), self._out)
        return self._stream()

    def to_reader(self) -> pa.RecordBatchReader:
        """The batches as a ``pyarrow.RecordBatchReader``; its ``close()``
        cancels the scan (the reads ahead stop at once)."""
        return pa.RecordBatchReader._import_from_c_capsule(_pqfast._iterator_stream(self._stream(), self._out))

    def __arrow_c_stream__(self, requested_schema=None):
        return self.to_reader().__arrow_c_stream__(requested_schema)

    def to_table(self) -> pa.Table:
        return pa.Table.from_batches(list(self._stream()), schema=self._out)

    def head(self, num_rows: int) -> pa.Table:
        """The first ``num_rows`` rows, reading no unit past the one that
        completes them (no readahead)."""
        if num_rows < 0:
            raise FormatError(f"invalid argument: head takes a count of rows, not {num_rows!r}")
        got, n = [], 0
        if num_rows:
            stream = self._stream(ahead=1)
            try:
                for b in stream:
                    got.append(b.slice(0, num_rows - n))
                    n += got[-1].num_rows
                    if n >= num_rows:
                        break
            finally:
                stream.close()
        return pa.Table.from_batches(got, schema=self._out)

    def _verdicts(self, i: int, rgs, filt) -> list:
        """[(row group, verdict)] of file i's selected row groups under its
        filter (None: every row: "all"), from the footer's statistics."""
        meta = self._lake.meta(i)
        groups = range(meta.num_row_groups) if rgs is None else rgs
        if filt is None:
            return [(g, ALL) for g in groups]
        lake = self._lake
        leaves = lake.leaves(i)
        if file_ruled_out(filt, leaves, lambda j: lake.leaf_stats(i, j)[1]):
            return [(g, NONE) for g in groups]
        return row_group_verdicts(filt, leaves, lambda j: lake.leaf_stats(i, j)[0], lake.row_counts(i), groups)

    def count_rows(self) -> int:
        """The rows the scan gives: from the footers alone without a filter,
        and where partition keys or row group statistics settle it (every
        row of a row group matches, or none); the other row groups are
        scanned for no column."""
        lake = self._lake
        per_file = self._per_file_filters()
        total = 0
        todo = []
        lake.metas([i for (i, _), f in zip(self._selection, per_file) if f is not False])
        for (i, rgs), filt in zip(self._selection, per_file):
            if filt is False:
                continue
            if self._filter.post is not None:
                todo.append((i, rgs))
                continue
            meta = lake.meta(i)
            some = []
            for g, v in self._verdicts(i, rgs, filt):
                if v == ALL:
                    total += meta.row_group(g)["num_rows"]
                elif v == SOME:
                    some.append(g)
            if some:
                todo.append((i, some))
        if todo:
            sub = Scanner(lake, todo, [] if self._filter.post is None else None, self._filter.given,
                          self._batch_size, self._ahead, self._threads, self._memory_limit, self._scan_stats)
            total += sum(b.num_rows for b in sub._stream())
        return total

    def fragments(self) -> list:
        """The fragments of this scan's files: those its filter's partition
        keys leave, with the row groups the statistics do not rule out."""
        out = []
        per_file = self._per_file_filters()
        for (i, rgs), filt in zip(self._selection, per_file):
            if filt is False:
                continue
            if filt is not None and self._filter.post is None:
                kept = [g for g, v in self._verdicts(i, rgs, filt) if v != NONE]
                if not kept:
                    continue
                if rgs is not None or len(kept) < self._lake.meta(i).num_row_groups:
                    rgs = kept
            out.append(Fragment(self._lake.subset([i]), rgs, self._scan_stats))
        return out


class Fragment:
    """One file (or some row groups of it) of a dataset: plain data, pickled
    to another process (Dask, Ray) and scanned there alone."""

    def __init__(self, lake: Lake, row_groups: Sequence[int] | None = None, scan_stats: ScanStats | None = None):
        self._lake = lake
        self._row_groups = None if row_groups is None else list(row_groups)
        self._scan_stats = scan_stats  # the dataset's: its scans count there

    @property
    def path(self) -> str:
        return self._lake.names[0]

    @property
    def row_groups(self) -> list:
        """The row group numbers in the file this fragment reads."""
        if self._row_groups is None:
            return list(range(self._lake.meta(0).num_row_groups))
        return list(self._row_groups)

    @property
    def partition_keys(self) -> dict:
        return dict(self._lake.parts.per_file[0]) if self._lake.parts is not None else {}

    @property
    def partition_expression(self):
        keys = self.partition_keys
        expr = None
        for k, v in keys.items():
            e = pc.field(k).is_null() if v is None else pc.field(k) == v
            expr = e if expr is None else expr & e
        return expr if expr is not None else pc.scalar(True)

    @property
    def physical_schema(self) -> pa.Schema:
        with self._lake.open_file(0) as f:
            return f.read(row_groups=[]).schema

    def __repr__(self) -> str:
        return f"<pqfast.Fragment {self.path!r} row_groups={self._row_groups}>"

    def subset(self, row_group_ids: Sequence[int]) -> "Fragment":
        """This file's fragment of the row groups ``row_group_ids`` (pyarrow's
        ``ParquetFileFragment.subset(row_group_ids=)``)."""
        n = self._lake.meta(0).num_row_groups
        ids = [int(i) for i in row_group_ids]
        bad = [i for i in ids if not 0 <= i < n]
        if bad:
            raise format_error(f"{self.path}: row group {bad[0]} is out of range (the file has {n})")
        return Fragment(self._lake, ids, self._scan_stats)

    def column_bounds(self, column: str) -> tuple | None:
        """(min, max) of a flat column over the row groups this fragment
        reads, from the footer's statistics; None when a row group's
        statistics lack either bound, count a null, or the column is not
        stored in the file (a partition key)."""
        meta = self._lake.meta(0)
        j = flat_leaves(meta).get(column)
        if j is None:
            return None
        desc = meta.columns()[j]
        lo = hi = None
        for rg in self.row_groups:
            if meta.row_group(rg)["num_rows"] == 0:
                continue
            b = chunk_bounds(meta.column_chunk(rg, j), desc)
            if b is None:
                return None
            lo = b[0] if lo is None or b[0] < lo else lo
            hi = b[1] if hi is None or b[1] > hi else hi
        return None if lo is None else (lo, hi)

    def split_by_row_group(self, filter=None, schema=None, **ignored) -> list:
        """One fragment per row group this fragment reads, in file order
        (pyarrow's ``ParquetFileFragment.split_by_row_group``). ``filter``
        and ``schema`` are taken and not used: every row group is a piece
        (pyarrow leaves out those the statistics exclude; a scan of such a
        piece with the filter returns no row)."""
        return [Fragment(self._lake, [rg], self._scan_stats) for rg in self.row_groups]

    def scanner(self, schema=None, columns=None, filter=None, batch_size: int = DEFAULT_BATCH_SIZE,
                batch_readahead: int | None = None, threads: int | None = None, memory_limit: int | None = None,
                strings: str | None = None, **ignored) -> Scanner:
        """A scan of this fragment alone (``schema``, pyarrow's, is ignored: the dataset's is kept).
        Without ``threads`` or ``batch_readahead``, a local fragment's
        batches are decoded on the thread that asks for them (an engine
        scanning many fragments at once brings its own threads)."""
        sc = Scanner(self._lake, [(0, self._row_groups)], columns, filter, batch_size, batch_readahead, threads,
                     memory_limit, self._scan_stats, strings)
        sc._on_caller = threads is None and batch_readahead is None
        return sc

    def to_batches(self, columns=None, filter=None, **kw) -> Iterator[pa.RecordBatch]:
        return self.scanner(columns=columns, filter=filter, **kw).to_batches()

    def to_table(self, columns=None, filter=None, **kw) -> pa.Table:
        return self.scanner(columns=columns, filter=filter, **kw).to_table()

    def head(self, num_rows: int, columns=None, filter=None, **kw) -> pa.Table:
        return self.scanner(columns=columns, filter=filter, **kw).head(num_rows)

    def count_rows(self, filter=None, **kw) -> int:
        return self.scanner(columns=[], filter=filter, **kw).count_rows()
