"""``pqfast.dataset()``: a lake (files, a directory, a glob, ``s3://`` URLs or
a prefix, paths on a ``filesystem``) scanned as a stream of record batches in
bounded memory, as a ``pyarrow.dataset.Dataset`` that engines push
projections and filters into.

    ds = pqfast.dataset("lake/")                      # hive keys are columns
    for batch in ds.to_batches(columns=["id", "v"], filter=pc.field("id") > 5,
                                batch_size=65536, memory_limit=512 << 20):
        ...
    reader = ds.scanner(columns=["id"]).to_reader()   # a pyarrow.RecordBatchReader
    ds.head(10); ds.count_rows(); ds.get_fragments()  # fragments pickle (Dask, Ray)

How a scan runs: :mod:`pqfast._dataset_scan` (the streaming scanner, with or
without a filter, where it takes the projection; the older units otherwise).
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads

from . import _pqfast
from ._dataset_scan import DEFAULT_BATCH_SIZE, Fragment, Scanner, ScanStats
from ._fragments import bloom_kept_files
from ._lake import FS, Lake
from ._rowgroup_stats import flat_leaves
from ._stream_io import with_strings
from ._strings import checked_strings
from .scan import _filter_expression

FormatError = _pqfast.FormatError

# Scanner and Fragment are defined in _dataset_scan (below this module, free
# of pyarrow.dataset); named here too, where the API documents them.
__all__ = ["dataset", "Dataset", "Scanner", "Fragment", "ScanStats", "DEFAULT_BATCH_SIZE"]


def dataset(source: Any, *, partitioning: str | None = "hive", filesystem: Any = None,
            storage_options: dict | None = None, schema: pa.Schema | None = None,
            read_dictionary: Sequence[str] | None = None, strings: str | None = None) -> "Dataset":
    """A :class:`Dataset` over ``source``: a Parquet file path, a list of
    paths, a directory (every ``*.parquet`` under it, none under a name
    starting with "." or "_"), a glob, ``s3://`` URLs, a pattern or a prefix
    (``storage_options`` as ``read_table`` takes them), or paths on
    ``filesystem`` (a pyarrow ``FileSystem`` or an fsspec filesystem).

    Files are listed once, now; footers are read when a scan needs them.
    The schema is the first file's (columns added to later files are left
    out; a file lacking a column gives nulls; other types are cast), then,
    with ``partitioning="hive"``, each ``key=value`` directory level as a
    dictionary column; ``schema=`` replaces it.

    ``read_dictionary`` (pyarrow's name and form: column names) and
    ``strings`` (None, "view", "large": docs/strings.md) set how every scan
    of the dataset reads those columns, and its schema says so: engines that
    scan the dataset themselves (DuckDB, DataFusion) get them. A group-by key
    read as ``dictionary<int32, string>`` is built from the files'
    dictionary pages, no string copied per row, and DuckDB and polars
    aggregate over it 2-3x faster than over strings (docs/engines/)."""
    if read_dictionary is not None and (isinstance(read_dictionary, (str, bytes))
                                        or not all(isinstance(c, str) for c in read_dictionary)):
        raise FormatError(f"invalid argument: read_dictionary takes a list of column names, not {read_dictionary!r}")
    lake = Lake.open(source, partitioning, filesystem, storage_options, schema, tuple(read_dictionary or ()))
    lake.strings = checked_strings(strings)
    return Dataset._make(lake)


def dictionary_worthy_columns(ds: "Dataset") -> list[str]:
    """The dataset's string and binary columns that its first file stores
    dictionary-encoded with small dictionaries in every row group: under 4
    bytes a value, dictionary page included (a value stored plain costs its
    4-byte length at least, so a chunk that fell back to plain, or one with a
    large dictionary, is over). Read as ``dictionary<int32, string>`` they
    are built from the dictionary pages, no string copied per row, and
    engines aggregate over them by index (DuckDB: 1.2-1.6x faster)."""
    if not ds._selection:
        return []
    meta = ds._lake.meta(ds._selection[0][0])
    leaves = flat_leaves(meta)
    out = []
    for field in ds.schema:
        t = field.type
        if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)
                or pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)):
            continue
        j = leaves.get(field.name)
        if j is None or meta.num_row_groups == 0:
            continue
        chunks = [meta.column_chunk(rg, j) for rg in range(meta.num_row_groups)]
        if all(c.get("dictionary_page_offset") is not None and c["num_values"] > 0
               and c["total_uncompressed_size"] < 4 * c["num_values"] for c in chunks):
            out.append(field.name)
    return out


class Dataset(pads.Dataset):
    """A Parquet lake read by pqfast, as a ``pyarrow.dataset.Dataset``
    (made by :func:`pqfast.dataset`)."""

    def __init__(self, *args, **kwargs):  # noqa: D107 - made by pqfast.dataset()
        # (The Cython base's own __init__ is not called: it wraps a C++
        # dataset, and this one has none.)
        raise TypeError("use pqfast.dataset(source, ...) to make a pqfast.Dataset")

    @classmethod
    def _make(cls, lake: Lake, selection: list | None = None, filter=None) -> "Dataset":
        self = cls.__new__(cls)
        self._lake = lake
        self._selection = selection if selection is not None else [(i, None) for i in range(len(lake.names))]
        self._filter = filter  # Dataset.filter()'s, and-ed into every scan's
        self._scan_stats = ScanStats()
        return self

    def __reduce__(self):
        return (Dataset._make, (self._lake, self._selection, self._filter))

    def _and_filter(self, filter):
        if self._filter is None:
            return filter
        if filter is None:
            return self._filter
        return _filter_expression(self._filter) & _filter_expression(filter)

    # -- what it is ----------------------------------------------------------------

    @property
    def schema(self) -> pa.Schema:
        return with_strings(self._lake.schema, self._lake.strings)

    @property
    def files(self) -> list:
        return [self._lake.names[i] for i, _ in self._selection]

    @property
    def partition_keys(self) -> list:
        """The hive key columns (after the files' columns in ``schema``)."""
        return list(self._lake.parts.types) if self._lake.parts is not None else []

    @property
    def scan_stats(self) -> dict:
        """What the filtered scans of this dataset and its fragments read in
        this process since it was made or ``reset_scan_stats()``, summed as
        ``read_table(stats=True)`` gives them (``pages_read``, ``bytes_read``, ...)."""
        return self._scan_stats.snapshot()

    def reset_scan_stats(self) -> None:
        self._scan_stats.reset()

    def with_files(self, paths) -> "Dataset":
        """This dataset narrowed to the given files of it (as ``files`` names
        them), in its order, with its schema, keys and scan stats; no footer
        is read (the engine adapters prune files before making fragments)."""
        keep = set(paths)
        sub = Dataset._make(self._lake, [(i, rgs) for i, rgs in self._selection if self._lake.names[i] in keep],
                            self._filter)
        sub._scan_stats = self._scan_stats
        return sub

    @property
    def partition_expression(self):
        return pc.scalar(True)

    @property
    def partitioning(self):
        return None

    def __repr__(self) -> str:
        return f"<pqfast.Dataset files={len(self._selection)} schema={self.schema.names}>"

    # -- scans ----------------------------------------------------------------------

    def scanner(self, columns=None, filter=None, batch_size: int = DEFAULT_BATCH_SIZE,
                batch_readahead: int | None = None, threads: int | None = None,
                memory_limit: int | None = None, strings: str | None = None, **ignored) -> Scanner:
        """A :class:`Scanner`. ``strings``: the layout of string and binary
        columns (None: pyarrow's types, "view", "large"; see docs/strings.md).
        Other keyword arguments pyarrow's scanner takes (``use_threads``,
        ``fragment_readahead``, ``fragment_scan_options``, ``cache_metadata``,
        ``memory_pool``) are accepted and ignored."""
        return Scanner(self._lake, self._selection, columns, self._and_filter(filter), batch_size, batch_readahead,
                       threads, memory_limit, self._scan_stats, strings)

    # -- pyarrow.dataset.Dataset's other methods (the Cython ones need a C++
    # dataset, which this is not: each is given here) -------------------------------

    def filter(self, expression) -> "Dataset":
        """This dataset with `expression` (what ``filter=`` takes) and-ed into every scan."""
        return Dataset._make(self._lake, self._selection, self._and_filter(expression))

    def replace_schema(self, schema: pa.Schema) -> "Dataset":
        """This dataset read in `schema` (as ``pqfast.dataset(schema=)``)."""
        lake = self._lake.subset(range(len(self._lake.names)))
        lake.schema = schema
        return Dataset._make(lake, self._selection, self._filter)

    def take(self, indices, columns=None, filter=None, **kw) -> pa.Table:
        """Rows by position (of the scan with `columns` and `filter`: read whole, then taken)."""
        return self.to_table(columns, filter, **kw).take(indices)

    def _in_memory(self):
        return pads.dataset(self.to_table())

    def sort_by(self, sorting, **kw):
        """A sorted in-memory ``pyarrow.dataset`` of this one's rows (read whole)."""
        return self._in_memory().sort_by(sorting, **kw)

    def join(self, right_dataset, *args, **kw):
        """pyarrow's join of this dataset's rows (read whole) and `right_dataset`."""
        if isinstance(right_dataset, Dataset):
            right_dataset = right_dataset._in_memory()
        return self._in_memory().join(right_dataset, *args, **kw)

    def join_asof(self, right_dataset, *args, **kw):
        if isinstance(right_dataset, Dataset):
            right_dataset = right_dataset._in_memory()
        return self._in_memory().join_asof(right_dataset, *args, **kw)

    def _get_fragments(self, *a, **k):
        raise TypeError("a pqfast.Dataset has no C++ fragments: use get_fragments() and its scanner()")

    def _scanner_options(self, *a, **k):
        raise TypeError("a pqfast.Dataset is scanned by its own scanner(), not pyarrow.dataset.Scanner")

    _scan_options = _scanner_options

    def to_batches(self, columns=None, filter=None, **kw) -> Iterator[pa.RecordBatch]:
        return self.scanner(columns, filter, **kw).to_batches()

    def to_reader(self, columns=None, filter=None, **kw) -> pa.RecordBatchReader:
        return self.scanner(columns, filter, **kw).to_reader()

    def to_table(self, columns=None, filter=None, **kw) -> pa.Table:
        return self.scanner(columns, filter, **kw).to_table()

    def head(self, num_rows: int, columns=None, filter=None, **kw) -> pa.Table:
        return self.scanner(columns, filter, **kw).head(num_rows)

    def count_rows(self, filter=None, **kw) -> int:
        return self.scanner([], filter, **kw).count_rows()

    def __arrow_c_stream__(self, requested_schema=None):
        return self.scanner().__arrow_c_stream__(requested_schema)

    def get_fragments(self, filter=None, *, prune_files=None) -> list:
        """One :class:`Fragment` per file a filter on partition keys leaves,
        holding the row groups its statistics do not rule out; with an
        ``=``/``in`` column in every conjunction of the filter, only of the
        files whose Bloom filters and statistics of it can hold a value
        (:mod:`pqfast._fragments`; ``prune_files(files, column, values)``
        replaces pqfast.prune, e.g. by a cluster's)."""
        ds, full = self, self._and_filter(filter)
        if full is not None and self._lake.kind != FS:
            kept = bloom_kept_files(self.files, self.schema.names, self.partition_keys, full,
                                    self._lake.storage_options, prune_files)
            if kept is not None:
                ds = self.with_files(kept)
        return ds.scanner([], filter).fragments()
