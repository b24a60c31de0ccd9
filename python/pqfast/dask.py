"""Pruning lakes of millions of files on a Dask cluster (``dask[distributed]``).

    from distributed import Client
    import pqfast.dask

    client = Client()                                      # or a cluster's address
    t = pqfast.dask.prune("s3://bucket/lake/*.parquet", "user_id", [42],
                          storage_options={...}, files_per_task=2000)
    # the pyarrow Table pqfast.prune returns, rows in the same order
    df = pqfast.dask.read_pruned("s3://bucket/lake/*.parquet", "user_id", [42], storage_options={...})
    # a dask DataFrame: one partition per file with kept row groups, reading only those

The listing (and the object sizes it gives) is made once, on the client; the
probed column's type is read from one footer there too. Each task prunes a
batch of files with the same drivers as pqfast.prune (the remote driver for
s3:// URLs: one request per file, hundreds in flight per worker; the local
driver otherwise). A Dask task costs 1-2 ms of scheduling: batches of
hundreds to thousands of files keep that under 2% of the work. read_pruned's
partitions are read by the scan engine, as pqfast.read_pruned reads them.
A hive-partitioned directory or s3:// prefix (lake/year=2024/...) gives its
key columns as read_table does; a key as ``column`` chooses the files by
their directories alone, on the client.

``read_parquet(source, columns=, filters=)`` is dask's ``read_parquet`` read
by pqfast: ``pqfast.dataset(source).get_fragments(filter=)`` keeps the row
groups that can hold matching rows (on the client, or on the cluster in
batches of files for large unpartitioned lakes), and each partition of the
dask DataFrame scans a group of those fragments with the filter and the
projection pushed into pqfast's scanner.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _pqfast
from ._dataset import dataset as _dataset
from ._dataset_scan import read_row_groups
from ._encode import _as_list_or_array
from ._errors import UNSUPPORTED, column_list, format_error
from ._file import _column_descriptor
from ._paths import expand_paths, _remote_urls
from .filters import normalize, to_expression
from .parquet import kept_row_groups, prune as prune_local
from .remote import column_descriptor, prune_remote, resolve
from ._lake import partitioned_lake
from ._read_local import read_rows

FormatError = _pqfast.FormatError


def _client(client):
    if client is not None:
        return client
    from distributed import default_client

    return default_client()


def _plan(paths_or_glob: Any, column: str, storage_options: dict | None, on_error: str):
    """-> (remote?, [(path, size)], descriptor, first tail size) made on the client."""
    if _remote_urls(paths_or_glob):
        store, items = resolve(paths_or_glob, storage_options)
        if not items:
            return True, [], None, None
        desc, tail = column_descriptor(store, items, column, on_error)
        return True, [(u, s) for u, _, s in items], desc, tail
    paths = expand_paths(paths_or_glob)
    desc = None
    for p in paths:
        try:
            desc = _column_descriptor(p, column, None, False)
            break
        except (FormatError, KeyError, OSError):
            if on_error == "raise":
                raise
    return False, [(p, -1) for p in paths], desc, None


def _prune_batch(batch, remote: bool, column: str, values, desc: dict, storage_options, kw: dict, tail=None):
    """One task: a batch of files pruned as pqfast.prune does; with its time."""
    t0 = time.perf_counter()
    if remote:
        table = prune_remote([u for u, _ in batch], column, values, storage_options=storage_options,
                             sizes=dict(batch), descriptor=desc, tail_bytes=tail, **kw)
    else:
        kw = {k: v for k, v in kw.items() if k != "concurrency"}
        table = prune_local([p for p, _ in batch], column, values, **kw)
    return table, time.perf_counter() - t0


def prune_with_stats(paths_or_glob: Any, column: str, values: Any, *, client=None, files_per_task: int = 1000,
                     storage_options: dict | None = None, by_value: bool = False, use_statistics: bool = True,
                     use_bloom: bool = True, on_error: str = "raise", concurrency: int = 256):
    """prune() and {"tasks", "task_seconds" (each task's own time), "wall_seconds", "plan_seconds"}."""
    t0 = time.perf_counter()
    client = _client(client)
    remote, items, desc, tail = _plan(paths_or_glob, column, storage_options, on_error)
    t_plan = time.perf_counter() - t0
    if not items or desc is None:
        return prune_remote([], column, values), {"tasks": 0, "task_seconds": [], "wall_seconds": 0.0,
                                                  "plan_seconds": t_plan}
    n = max(1, int(files_per_task))
    batches = [items[i:i + n] for i in range(0, len(items), n)]
    kw = {"by_value": by_value, "use_statistics": use_statistics, "use_bloom": use_bloom,
          "on_error": on_error, "concurrency": concurrency}
    futures = client.map(_prune_batch, batches, remote=remote, column=column, values=values, desc=desc,
                         storage_options=storage_options, kw=kw, tail=tail, pure=False)
    done = client.gather(futures)
    tables = [t for t, _ in done]
    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    return table, {"tasks": len(batches), "task_seconds": [d for _, d in done],
                   "wall_seconds": time.perf_counter() - t0, "plan_seconds": t_plan}


def prune(paths_or_glob: Any, column: str, values: Any, *, client=None, files_per_task: int = 1000,
          storage_options: dict | None = None, by_value: bool = False, use_statistics: bool = True,
          use_bloom: bool = True, on_error: str = "raise", concurrency: int = 256):
    """pqfast.prune over a Dask cluster: the same pyarrow Table, rows in the same order."""
    return prune_with_stats(paths_or_glob, column, values, client=client, files_per_task=files_per_task,
                            storage_options=storage_options, by_value=by_value, use_statistics=use_statistics,
                            use_bloom=use_bloom, on_error=on_error, concurrency=concurrency)[0]


def _read_part(part, columns, column: str, values, filter_rows: bool, storage_options):
    """One partition: a file's row groups the cluster kept, read by the scan
    engine (local paths natively; an s3:// URL by the streaming scanner, the
    dataset scan, where it takes the projection), the rows filtered to
    ``column`` in ``values`` unless ``filter_rows=False``."""
    path, row_groups = part
    filters = [(column, "in", list(values))] if filter_rows else None
    return _pandas(_read_file(path, columns, filters, list(row_groups), storage_options))


def _read_file(path, columns, filters, row_groups, storage_options):
    """One file's row groups (None: all; [] none, the file's schema alone),
    the rows ``filters`` keeps: a local path through ``_read_local.read_rows``,
    an s3:// URL by the streaming scanner (the dataset scan's
    ``read_row_groups``, its only route)."""
    chosen = None if row_groups is None else {path: list(row_groups)}
    if _remote_urls(path):
        return read_row_groups(path, chosen, columns, threads=1, partitioning=None, filters=filters,
                               storage_options=storage_options)
    return read_rows(path, columns, filters, threads=1, partitioning=None, row_groups=chosen)


def read_pruned(paths_or_glob: Any, column: str, values: Any, *, client=None, columns: Sequence[str] | None = None,
                filter_rows: bool = True, storage_options: dict | None = None, files_per_task: int = 1000):
    """A dask DataFrame of the rows pqfast.read_pruned returns: the kept row
    groups of each file (pruned on the cluster), one partition per file that
    keeps any, each read by pqfast's scan engine (only those row groups; the
    filter column first, then the other columns for matching rows); rows
    filtered to ``column`` in ``values`` unless ``filter_rows=False``.

    A hive-partitioned directory or prefix: its key columns follow the
    files' (as ``read_table`` gives them, pandas categoricals of every value
    of the key); ``column`` a key: the files of its directories, read whole."""
    import dask.dataframe as dd

    vals = list(_as_list_or_array(values))
    lake = partitioned_lake(paths_or_glob, storage_options)
    if lake is not None:
        return _read_pruned_partitioned(lake, column, vals, client, columns, filter_rows, storage_options,
                                        files_per_task)
    table = prune(paths_or_glob, column, vals, client=client, files_per_task=files_per_task,
                  storage_options=storage_options)
    parts = list(kept_row_groups(table).items())
    if not parts:
        # No row group can hold a value: an empty frame with the lake's columns (its first footer read).
        if _remote_urls(paths_or_glob):
            meta = _pandas(read_row_groups(paths_or_glob, {}, columns, threads=1, partitioning=None,
                                           storage_options=storage_options))
        else:
            meta = _pandas(read_rows(paths_or_glob, columns, row_groups={}))
        return dd.from_pandas(meta, npartitions=1)
    meta = _read_part((parts[0][0], []), columns, column, vals, filter_rows, storage_options)
    return dd.from_map(_read_part, parts, columns=columns, column=column, values=vals, filter_rows=filter_rows,
                       storage_options=storage_options, meta=meta, enforce_metadata=False)


def _read_key_part(part, parts, columns, storage_options):
    """One partition of a partitioned lake: ``part`` = (file number, path,
    its row groups or None for all, filters or None), the key columns after
    the files' (or as ``columns`` orders them), each a categorical of every
    value of the key: the same dtype in every partition, as pyarrow's
    to_pandas gives a whole table (made here: a null key's one-null
    dictionary is no pandas categorical)."""
    import pandas as pd

    i, path, row_groups, filters = part
    cols, keys = parts.split(columns)
    t = _read_file(path, cols, filters, row_groups, storage_options)
    df = _pandas(t)
    for k in keys:
        v = parts.per_file[i].get(k)
        code = -1 if v is None else parts._index[k][v]  # -1: null (a null or missing key)
        df[k] = pd.Categorical.from_codes(np.full(t.num_rows, code, np.int32),
                                          categories=parts.dictionaries[k].to_pylist())
    return df[list(columns)] if columns is not None else df


def _read_pruned_partitioned(lake, column, vals, client, columns, filter_rows, storage_options, files_per_task):
    """read_pruned over a partitioned lake ((files, Partitions) from
    _lake.partitioned_lake): files chosen by the key directories when
    ``column`` is a key, else pruned on the cluster as files are."""
    import dask.dataframe as dd

    files, parts = lake
    if column in parts.types:
        # The directories decide, on the client: a file kept has every row matching (no filter left).
        keep = parts.fold(normalize([(column, "in", vals)]))
        chosen = [(i, files[i], None, None) for i, k in enumerate(keep) if k is not None]
    else:
        table = prune(files, column, vals, client=client, files_per_task=files_per_task,
                      storage_options=storage_options)
        filters = [(column, "in", vals)] if filter_rows else None
        at = {p: i for i, p in enumerate(files)}
        chosen = [(at[p], p, rgs, filters) for p, rgs in kept_row_groups(table).items()]
    kw = dict(parts=parts, columns=columns, storage_options=storage_options)
    # No file kept: the first file's footer types the empty frame (no row group read).
    meta = _read_key_part((0, files[0], [], None), **kw)
    if not chosen:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(_read_key_part, chosen, meta=meta, enforce_metadata=False, **kw)



# -- read_parquet: dask.dataframe.read_parquet through pqfast.dataset -------------------------------------------


# Dask's own filter operators: besides pyarrow's, a null test written as
# ("column", "is", None) / ("column", "is not", None).
_NULL_TESTS = ("is", "is not")
# Where Dask's meaning of a DNF filter differs from pyarrow's (and so from
# pqfast.read_table's): these keep the rows whose value is null.
_NULL_KEEPING = ("!=", "not in")


def _is_missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def dask_filters(filters: Any, schema: pa.Schema) -> Any:
    """``filters`` as ``dask.dataframe.read_parquet`` means them, in a form
    pqfast's scan takes. Dask keeps null rows for ``!=`` and ``not in`` where
    pyarrow drops them (``("g", "!=", 5)`` keeps a null ``g``). It also has
    ``("g", "is", None)`` and ``("g", "is not", None)``, and counts NaN as
    null in both cases. A DNF list that uses none of these is returned as
    given, so the lookup's pruning sees the same tuples. Otherwise the result
    is the pyarrow Expression Dask builds for these filters. An empty list
    is no filter, as Dask takes it."""
    if filters is None or isinstance(filters, pc.Expression):
        return filters
    if isinstance(filters, (list, tuple)) and len(filters) == 0:
        return None
    if isinstance(filters, (list, tuple)) and isinstance(filters[0], str):
        normalize(filters)  # one bare predicate: its clear FormatError
    disjunction = [filters] if filters and isinstance(filters[0], tuple) and isinstance(filters[0][0], str) \
        else filters
    preds = [p for conj in disjunction for p in conj]
    if not any(isinstance(p, (tuple, list)) and len(p) == 3 and isinstance(p[1], str)
               and (p[1].lower() in _NULL_KEEPING + _NULL_TESTS or _is_missing(p[2])) for p in preds):
        return filters
    conjunctions = []
    for conj in disjunction:
        terms = [_dask_predicate(p, schema) for p in conj]
        expr = terms[0]
        for t in terms[1:]:
            expr = expr & t
        conjunctions.append(expr)
    out = conjunctions[0]
    for e in conjunctions[1:]:
        out = out | e
    return out


def _null_test(column: str, schema: pa.Schema, nan: bool) -> pc.Expression:
    """Dask's null test (``nan``: NaN counts as null in a floating-point
    column, as Dask's ``is`` tests count it)."""
    f = pc.field(column)
    i = schema.get_field_index(column)
    if nan and i >= 0 and pa.types.is_floating(schema.field(i).type):
        return f.is_null() | f.is_nan()
    return f.is_null()


def _dask_predicate(pred, schema: pa.Schema) -> pc.Expression:
    if not isinstance(pred, (tuple, list)) or len(pred) != 3 or not isinstance(pred[1], str):
        raise FormatError(f"invalid argument: malformed filters: predicate {pred!r} is not a (column, op, value) tuple")
    col, op, val = pred
    op_l = op.lower()
    if _is_missing(val):
        if op_l not in _NULL_TESTS:
            raise FormatError(f"invalid argument: filter {tuple(pred)!r}: compare with None by 'is' or 'is not'")
        test = _null_test(col, schema, nan=True)
        return test if op_l == "is" else ~test
    if op_l in _NULL_TESTS:
        raise FormatError(f"invalid argument: filter {tuple(pred)!r}: 'is' and 'is not' take None")
    # The comparison itself as pqfast.read_table means it (its checks, errors and literal types).
    expr = to_expression(normalize([[tuple(pred)]]), schema)
    if op_l in _NULL_KEEPING:
        # (A NaN already passes `!=` and `not in` unless the values hold NaN: only then is it tested.)
        values = val if op_l == "not in" else [val]
        nan_listed = any(isinstance(v, float) and np.isnan(v) for v in values)
        return _null_test(col, schema, nan=nan_listed) | expr
    return expr


def _types_mapper(t: pa.DataType):
    """The pandas dtype of an arrow type where Dask's own Parquet reader
    gives one other than ``to_pandas``'s default (its ``_determine_type_mapper``
    with pyarrow strings on: strings as ``string[pyarrow]``, dates and
    decimals as ``pd.ArrowDtype``), and booleans as pandas' nullable
    ``boolean``. Any column left as numpy ``object`` is turned into strings
    by ``dd.from_map`` (its pyarrow-string conversion): decimals, dates and
    booleans with nulls read as text ('25.94', '2021-04-02', 'False')."""
    import pandas as pd
    from dask.dataframe.utils import pyarrow_strings_enabled

    if not pyarrow_strings_enabled():
        return None
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return pd.StringDtype("pyarrow")
    if pa.types.is_date(t) or pa.types.is_decimal(t):
        return pd.ArrowDtype(t)
    if pa.types.is_boolean(t):
        return pd.BooleanDtype()
    return None


def _arrow_mapper(t: pa.DataType):
    """``dtype_backend="pyarrow"``: every column a ``pd.ArrowDtype``, strings
    ``string[pyarrow]`` while Dask's pyarrow strings are on (as Dask types them)."""
    import pandas as pd

    default = _types_mapper(t)
    return default if isinstance(default, pd.StringDtype) else pd.ArrowDtype(t)


def _nullable_mapper(t: pa.DataType):
    """``dtype_backend="numpy_nullable"``: integers, floats and booleans as
    pandas' nullable dtypes (``Int64``, ``Float64``, ``boolean``), the rest as
    the default backend types them."""
    import pandas as pd

    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
        return pd.api.types.pandas_dtype(_NULLABLE[str(t)]) if str(t) in _NULLABLE else None
    return _types_mapper(t)


_NULLABLE = {"int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64", "uint8": "UInt8",
             "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "float": "Float32",
             "double": "Float64", "bool": "boolean"}
_MAPPERS = {None: _types_mapper, "pyarrow": _arrow_mapper, "numpy_nullable": _nullable_mapper}


def _pandas(t: pa.Table, dtype_backend: str | None = None, index: str | None = None,
            arrow_to_pandas: dict | None = None):
    """A partition (or meta) as pandas, typed as Dask's reader types it
    (`_types_mapper`, or the ``dtype_backend``'s mapper), ``index`` as its index."""
    kw = {"types_mapper": _MAPPERS[dtype_backend], **(arrow_to_pandas or {})}
    pdf = t.to_pandas(**kw)
    return pdf.set_index(index) if index is not None else pdf


def _read_fragments(group: list, columns, filters, schema, dtype_backend=None, index=None, arrow_to_pandas=None):
    """One partition: its fragments scanned in order, as one pandas frame
    (``columns``: Dask's projection, the ``index`` column not among them)."""
    if index is not None and columns is not None:
        columns = [*columns, index]
    tables = [f.to_table(columns=columns, filter=filters) for f in group]
    t = pa.concat_tables(tables) if len(tables) > 1 else tables[0] if tables else schema.empty_table()
    return _pandas(t, dtype_backend, index, arrow_to_pandas)


def _fragments(ds, filters, client, files_per_task: int, prune_on_cluster, storage_options=None):
    """The fragments a scan of ``filters`` reads (``Dataset.get_fragments``:
    files pruned by Bloom filters first), those files pruned on the cluster
    for a large unpartitioned lake."""
    partitioned = bool(ds.partition_keys)
    if prune_on_cluster is None:
        prune_on_cluster = len(ds.files) > files_per_task and not partitioned
    if prune_on_cluster and partitioned:
        raise ValueError("prune_on_cluster=True: a hive-partitioned lake is pruned on the client")
    if not prune_on_cluster:
        return list(ds.get_fragments(filter=filters))

    def on_cluster(files, col, values):
        return prune(files, col, values, client=client, files_per_task=files_per_task,
                     storage_options=storage_options)

    return list(ds.get_fragments(filter=filters, prune_files=on_cluster))


_DEFAULT_EXTENSIONS = (".parq", ".parquet", ".pq")


def _partition_groups(frags: list, split_row_groups, fragments_per_partition) -> list:
    """The fragments grouped into partitions: ``split_row_groups`` as Dask
    takes it (True: a row group each; an int n: n row groups of one file
    each; False: a file each), else ``fragments_per_partition`` fragments
    each."""
    by_file: dict = {}
    for f in frags:
        by_file.setdefault(f.path, []).append(f)
    if split_row_groups is True or (isinstance(split_row_groups, int) and not isinstance(split_row_groups, bool)):
        per = 1 if split_row_groups is True else int(split_row_groups)
        if per < 1:
            raise format_error(f"pqfast.dask.read_parquet: split_row_groups={split_row_groups} is not a positive count")
        groups = []
        for file_frags in by_file.values():
            pieces = [p for f in file_frags for p in f.split_by_row_group()]
            groups.extend(pieces[i:i + per] for i in range(0, len(pieces), per))
        return groups
    if split_row_groups is False:
        return list(by_file.values())
    n = max(1, int(fragments_per_partition))
    return [frags[i:i + n] for i in range(0, len(frags), n)]


def _divisions(groups: list, index: str, meta) -> tuple | None:
    """Dask's divisions of partitions sorted on ``index`` (each partition's
    least value, then the last one's greatest), from the footers'
    statistics, as ``calculate_divisions=True`` asks; None (unknown) when a
    bound is missing or the partitions overlap or are out of order (Dask's
    rule: each partition's least value at or above the one before's
    greatest)."""
    import pandas as pd

    bounds = []
    for g in groups:
        b = [f.column_bounds(index) for f in g]
        if not b or any(x is None for x in b):
            return None
        bounds.append((min(x[0] for x in b), max(x[1] for x in b)))
    for (_, hi), (lo, _) in zip(bounds, bounds[1:]):
        if lo < hi:
            return None
    divs = [lo for lo, _ in bounds] + [bounds[-1][1]]
    try:
        return tuple(pd.Index(divs, dtype=meta.index.dtype))
    except (TypeError, ValueError):
        return None


def _check_extensions(extensions) -> None:
    """pqfast lists a directory's ``*.parquet`` files: ``parquet_file_extension``
    must include ``.parquet`` (or be None)."""
    if extensions is None:
        return
    exts = (extensions,) if isinstance(extensions, str) else tuple(extensions)
    if ".parquet" not in exts and "parquet" not in exts:
        raise format_error(f"pqfast.dask.read_parquet: parquet_file_extension={extensions!r}: pqfast reads a "
                           "directory's *.parquet files (a glob or a list names others)", UNSUPPORTED)


def _dask_options(categories, dtype_backend, engine, calculate_divisions, index, kwargs: dict):
    """Refuses what pqfast.dask.read_parquet does not do (FormatError,
    "unsupported"); returns the index column (or None)."""
    where = "pqfast.dask.read_parquet"
    if kwargs:
        raise format_error(f"{where}: {', '.join(sorted(kwargs))} is not supported (Dask hands these to "
                           "pyarrow.dataset; pqfast reads the files itself)", UNSUPPORTED)
    if categories is not None:
        raise format_error(f"{where}: categories= is not supported: read the column and call "
                           ".astype('category')", UNSUPPORTED)
    if dtype_backend not in _MAPPERS:
        raise format_error(f"{where}: dtype_backend={dtype_backend!r}: 'pyarrow', 'numpy_nullable' or None")
    if engine not in (None, "auto", "pyarrow"):
        raise format_error(f"{where}: engine={engine!r}: pqfast reads the files (engine None, 'auto' or "
                           "'pyarrow' are taken)", UNSUPPORTED)
    if index is None or index is False:
        if calculate_divisions:
            raise format_error(f"{where}: calculate_divisions=True needs index= (the sorted column)", UNSUPPORTED)
        return None
    names = [index] if isinstance(index, str) else list(index)
    if len(names) != 1 or not isinstance(names[0], str):
        raise format_error(f"{where}: index={index!r}: one column name (Dask has no multi-index)")
    return names[0]


def read_parquet(source: Any, columns: Sequence[str] | str | None = None, filters: Any = None, *,
                 categories: Any = None, index: Any = None, storage_options: dict | None = None,
                 dtype_backend: str | None = None, calculate_divisions: bool = False,
                 ignore_metadata_file: bool = False, metadata_task_size: int | None = None,
                 split_row_groups: Any = "infer", blocksize: Any = "default", aggregate_files: Any = None,
                 parquet_file_extension: Any = _DEFAULT_EXTENSIONS, filesystem: Any = "fsspec",
                 engine: Any = None, arrow_to_pandas: dict | None = None, client=None,
                 partitioning: str | None = "hive", fragments_per_partition: int = 1, files_per_task: int = 1000,
                 prune_on_cluster: bool | None = None, **kwargs: Any):
    """A dask DataFrame of the rows ``dask.dataframe.read_parquet(source,
    columns=, filters=)`` gives, read by pqfast: one partition per group of
    ``fragments_per_partition`` fragments (file row groups) that survive
    pruning by ``filters``, each scanning only those row groups, the filter
    and the projection pushed into pqfast's scan. ``filters`` takes what
    ``pqfast.read_table(filters=)`` takes. When every conjunction of it
    holds an ``=``/``in`` on one column, files are first pruned by that
    column's Bloom filters and statistics (``pqfast.prune``): on the client,
    or on the cluster (``client`` or the default client) in tasks of
    ``files_per_task`` files when the lake is unpartitioned and larger than
    that (``prune_on_cluster`` forces either). No fragment kept: one empty
    partition with the projected columns. ``columns`` a str (one name): a
    dask Series of that column, as Dask gives it.

    A DNF filter means what it means to Dask (:func:`dask_filters`): ``!=``
    and ``not in`` keep null rows, and ``("c", "is", None)`` /
    ``("c", "is not", None)`` test nullness.

    ``dd.read_parquet``'s other arguments mean what they mean there:
    ``index`` (a column as each partition's index), ``calculate_divisions``
    (with ``index``: the divisions from the footers' statistics, unknown
    where they overlap or lack a bound), ``dtype_backend`` (``"pyarrow"``,
    ``"numpy_nullable"``), ``arrow_to_pandas`` (``Table.to_pandas``'s
    options), ``split_row_groups`` (True: a partition per row group, an int:
    that many row groups each, False: a file each; ``"infer"`` and
    ``"adaptive"``: ``fragments_per_partition``), ``filesystem`` (``"fsspec"``
    or ``"arrow"``: chosen by the path, else the filesystem object; the
    columns are typed as Dask's fsspec reader types them, where its
    ``"arrow"`` reader gives dates and decimals as objects),
    ``engine`` (None, ``"auto"``, ``"pyarrow"``). ``blocksize``,
    ``aggregate_files``, ``ignore_metadata_file`` and ``metadata_task_size``
    tune Dask's planning and are taken without effect. A directory's files
    are its ``*.parquet`` files (Dask's ``parquet_file_extension`` default
    also takes ``.parq`` and ``.pq``: name those by a glob or a list).
    ``categories`` and Dask's pyarrow options (``dataset=``, ``read=``...)
    raise FormatError "unsupported"."""
    import dask.dataframe as dd

    index = _dask_options(categories, dtype_backend, engine, calculate_divisions, index, kwargs)
    if isinstance(filesystem, str):
        if filesystem not in ("fsspec", "arrow"):
            raise format_error(f"pqfast.dask.read_parquet: filesystem={filesystem!r}: 'fsspec', 'arrow' or a "
                               "filesystem object")
        filesystem = None
    _check_extensions(parquet_file_extension)
    dataset_kw = {"partitioning": partitioning, "filesystem": filesystem, "storage_options": storage_options}
    ds = _dataset(source, **dataset_kw)
    filters = dask_filters(filters, ds.schema)
    # A str names one column: a dask Series of it, as dd.read_parquet(columns="id") gives.
    series = isinstance(columns, str)
    cols = [columns] if series else column_list(columns)
    if index is not None:
        ds.schema.field(index)  # (KeyError naming it, as pyarrow's)
        cols = [c for c in (cols if cols is not None else ds.schema.names) if c != index]
    read = cols if index is None else [*cols, index]
    schema = ds.schema if read is None else pa.schema([ds.schema.field(c) for c in read])
    meta = _pandas(schema.empty_table(), dtype_backend, index, arrow_to_pandas)
    frags = _fragments(ds, filters, client, files_per_task, prune_on_cluster, storage_options)
    read_kw = {"columns": cols, "filters": filters, "schema": schema, "dtype_backend": dtype_backend,
               "index": index, "arrow_to_pandas": arrow_to_pandas}
    if not frags:
        df = dd.from_pandas(meta, npartitions=1)
    else:
        groups = _partition_groups(frags, split_row_groups, fragments_per_partition)
        divisions = _divisions(groups, index, meta) if calculate_divisions else None
        df = dd.from_map(_read_fragments, groups, meta=meta, enforce_metadata=False, divisions=divisions, **read_kw)
    return df[columns] if series else df
