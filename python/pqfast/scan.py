"""What ``read_table(filters=)`` of local paths needs below the streaming
scanner: the lean route (:func:`lean_scan` -> ``_filtered_scan``: the
first file's cached column plans, the filter normalized to an OR of ANDs of
atoms (``pqfast.filters``) and typed by each column as the scan engine takes
it, a sidecar index's tails), and what the dataset scan shares with it
(filters encoded per file, hive partitions of a local directory, per-file
filters folded by their keys, stats summed, the tails of ``s3://`` objects
read before: ``_tails``).

Every read goes through the one C++ streaming scanner (pqfast/scanner.h):
``_read_local`` tries :func:`lean_scan` first and gives the rest to the
dataset scan (``_dataset_scan``), which reads local files, ``s3://`` URLs
and ``filesystem=`` paths alike. The scan engine (``src/scan/scan.cc``)
runs inside the scanner, once per filtered unit; it has no call of its own.
"""

from __future__ import annotations

import atexit
import collections
import os
import threading
import time
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from . import _pqfast
from ._dictionaries import dictionary_names
from ._encode import _scale
from ._errors import INVALID_ARGUMENT, UNSUPPORTED, code_of
from ._file import ParquetFile
from ._partitions import discover
from ._paths import expand_paths
from ._plan import _Plan, duration_units, is_nested_plan, is_null_typed
from ._pqfast import FormatError
from ._read import _memory_limit, _plans
from ._filtered_scan import read_filtered, scanner_schema, with_map_types
from ._sidecar import local_tails
from .filters import Atom, Dnf, constant_filter, encode_atom_values, normalize, numbers_on_integers, to_expression

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
            got = numbers_on_integers(desc, a)
            if got is False:  # (never TRUE: the conjunct keeps no row)
                dead = True
                break
            # TRUE on every non-null row: is_valid, as a conjunct means it.
            a = Atom(a.column, "is_null", True, ()) if got is True else got
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


def _filter_expression(filters, schema=None):
    """`filters` (DNF, Expression or filters.Dnf) as a pyarrow.compute
    Expression; None stays None. `schema` (the table's) types a Dnf's
    literals where pyarrow's inference would not (see filters.to_expression)."""
    if filters is None:
        return None

    if isinstance(filters, Dnf):
        return to_expression(filters, schema)
    filters = constant_filter(filters)
    return filters if isinstance(filters, pc.Expression) else pq.filters_to_expression(filters)


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


def _is_schema_mismatch(e: Exception) -> bool:
    """A later file the scanner refused with the first file's plans and
    filter (a column missing, of another type, or typed otherwise for the
    filter's values): an invalid argument, since the same scan took the
    first file (its code, not its text)."""
    return code_of(e) == INVALID_ARGUMENT


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


def local_partitioned_lake(source):
    """(files, Partitions) of a hive-partitioned local directory, or None
    (not a directory, or no key=value level): ``_lake.partitioned_lake``'s
    for local sources."""
    if not isinstance(source, (str, os.PathLike)) or not os.path.isdir(os.fspath(source)):
        return None
    paths = expand_paths(source)
    parts = _local_partitions(source, paths, "hive") if paths else None
    return (paths, parts) if parts is not None else None


