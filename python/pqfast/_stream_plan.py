"""The streaming scanner's plan of a dataset scan, for every file a lake
holds: the selected files cut into runs of consecutive files that share one
column plan (the same leaf descriptors, so one scanner reads them), and,
per run, how its batches become the dataset's.

A run's columns are those of the projection its files have, read as the
column reader reads them (``_read._plans``: the embedded Arrow schema's
types, ``read_dictionary=``); each batch is then finished as the column
reader finishes a chunk (``_Plan.finish``: a dictionary's index type and
``ordered``, extension types, narrowed decimals) and conformed to the
dataset's schema as ``pyarrow.dataset`` conforms a file unlike the first:
a column the run's files lack is null, one they type otherwise is cast.
Columns read as dictionaries come out of the C++ scanner as dictionary
arrays (``dictionary:<layout>`` specs), each row group's dictionary shared
by its batches. A run's filter is folded for the columns its files lack
(:func:`fold_missing`): every atom on them decided once, on a null.

Everything here is decided from footers and the dataset schema, before any
data page is read. Below the stream's I/O (``_stream_io``), above the
column plans.
"""

from __future__ import annotations

import pyarrow as pa

from . import _pqfast
from ._lake import Lake, _has_column
from ._nested import NestedPlan
from ._plan import _Plan
from ._read import _plans
from .filters import Dnf, _atom_true, normalize

FormatError = _pqfast.FormatError


class Run:
    """Consecutive selected files read by one scanner: ``selection`` (its
    part of the scan's), ``specs`` (name, layout, format) for the scanner,
    ``convert`` (batch -> the arrays of the projection's file columns, in
    the dataset's types; None when the batch's columns are those already),
    ``missing`` ({column: dataset type} of the dataset's file columns its
    files lack) and, once the scan has encoded it, ``filters`` (per file its
    encoded filter or None; None: no filter)."""

    def __init__(self, selection: list, specs: list, convert, missing: dict):
        self.selection = selection
        self.specs = specs
        self.convert = convert
        self.missing = missing
        self.filters: list | None = None


def _tops(lake: Lake, i: int) -> set:
    return {d["path"][0] for d in lake.descs(i)}


def _same_plan(lake: Lake, i: int, j: int) -> bool:
    """Whether files i and j are read with one column plan (both like the
    lake's reference file, or the same leaf descriptors)."""
    return (lake.conforms(i) and lake.conforms(j)) or lake.descs(i) == lake.descs(j)


def _groups(lake: Lake, selection: list) -> list:
    """The selection cut where a file's leaves differ from the one before."""
    out: list = []
    for item in selection:
        if out and _same_plan(lake, out[-1][-1][0], item[0]):
            out[-1].append(item)
        else:
            out.append([item])
    return out


def _column_of(p) -> str:
    """The projection's name of the column plan `p` reads: a struct field
    reference's dotted name ("s.a"), else the column's."""
    ref = getattr(p, "ref", None)
    return p.name if ref is None else ".".join([p.name] + list(ref))


def _needs_finish(p: _Plan) -> bool:
    """Whether the column reader's finish changes a chunk of `p` (its type
    not the scanner's output type; a nested column's when the scanner does
    not assemble it straight into the dataset's type: ``stream_type`` None)."""
    if isinstance(p, NestedPlan):
        return p.stream_type is None
    if p.native_dictionary:
        return not p.dictionary.equals(pa.dictionary(pa.int32(), p.read_type))
    return p.dictionary is not None or p.extension is not None or not p.read_type.equals(p.final_type)


def _out_type(p: _Plan):
    if isinstance(p, NestedPlan):
        return p.stream_type if p.stream_type is not None else p.assembled_type()
    return p.dictionary if p.dictionary is not None else (p.extension if p.extension is not None else p.final_type)


def _cast(a, t, name: str, path: str):
    try:
        return a.cast(t)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
        raise FormatError(f"invalid argument: {path}: column {name!r} is {a.type} here, {t} in the lake's first "
                          f"file, and does not cast: {e}") from None


def _unsliced(a: pa.Array) -> pa.Array:
    """A batch's nested column (a slice of its row group's: offsets into
    the children) copied so that every level starts at offset 0, as
    ``NestedPlan.finish`` retypes it node by node on the buffers."""
    if a.offset == 0 and len(a) == 0:
        return a
    return pa.concat_arrays([a, pa.array([], type=a.type)])


def _converter(plans: list, wanted: list, target: pa.Schema, path: str):
    """convert(batch) -> the arrays of `target` (the dataset's types of
    the columns `wanted`) for a run read by `plans` (the batch's columns,
    in order: those of `wanted` its files have), or None when the batch's
    columns are those arrays already."""
    finishing = [_needs_finish(p) for p in plans]
    if len(plans) == len(wanted) and not any(finishing) and \
            all(_out_type(p).equals(f.type) for p, f in zip(plans, target)):
        return None
    at = {_column_of(p): k for k, p in enumerate(plans)}
    fields = [(at.get(c), f) for c, f in zip(wanted, target)]

    def convert(b: pa.RecordBatch) -> list:
        cols = b.columns
        out = []
        for k, f in fields:
            if k is None:
                out.append(pa.nulls(b.num_rows, f.type))
                continue
            a = cols[k]
            if finishing[k]:
                a = plans[k].finish([_unsliced(a) if isinstance(plans[k], NestedPlan) else a]).chunk(0)
            if not a.type.equals(f.type):
                a = _cast(a, f.type, f.name, path)
            out.append(a)
        return out

    return convert


def plan_runs(lake: Lake, selection: list, file_cols, file_schema: pa.Schema, strings,
              merge: bool = True) -> list | None:
    """The runs of `selection` for a projection (`file_cols`: the file
    columns read, None for all; `file_schema`: what they are in the
    dataset, in the `strings` layout), or None when a column is one the
    scanner does not read (a file with two columns of one name).
    ``merge``: consecutive runs read alike (the same specs, no conversion:
    files that differ only in columns not read) are one; not for a scan
    whose filter each run encodes for its own files' types."""
    wanted = list(file_schema.names) if file_cols is None else list(file_cols)
    if len(wanted) != len(file_schema):
        return None
    keys = set(lake.parts.names) if lake.parts is not None else set()
    runs: list = []
    for group in _groups(lake, selection):
        first = group[0][0]
        tops = _tops(lake, first)
        # (a column named twice in the projection is read once, given twice by the conversion)
        have = list(dict.fromkeys(c for c in wanted if _has_column(tops, c)))
        plans = _plans(lake.meta(first), lake.names[first], have, strings, lake.read_dictionary or None)
        if len(plans) != len(have) or not all(isinstance(p, (_Plan, NestedPlan)) and _column_of(p) == c
                                              for p, c in zip(plans, have)):
            return None
        if any(isinstance(p, _Plan) and p.dictionary is not None and not p.native_dictionary for p in plans):
            return None  # (never so: a flat column's dictionary is the reader's own, _read._plans)
        for p in plans:
            if isinstance(p, NestedPlan):
                # Assembled by the scanner straight into the dataset's type
                # (dictionary leaves too); else (large, fixed-size or view
                # lists, time zones, extension leaves) finished batch by
                # batch as the column reader finishes a chunk (_converter).
                p.stream_type = p.scanner_type(file_schema.field(wanted.index(_column_of(p))).type)
        specs = [p.scanner_spec() if isinstance(p, NestedPlan) else (p.name, p.read_layout, p.format)
                 for p in plans]
        missing = {f.name: f.type for f in lake.schema if f.name not in keys and f.name not in tops}
        run = Run(group, specs, _converter(plans, wanted, file_schema, lake.names[first]), missing)
        prev = runs[-1] if runs else None
        if merge and prev is not None and prev.specs == specs and prev.convert is None and run.convert is None:
            prev.selection = prev.selection + group
            continue
        runs.append(run)
    return runs


def fold_missing(filt, missing: dict):
    """A filter (a Dnf or what ``normalize`` takes) for files lacking the
    columns ``missing`` ({name: type}): its atoms on them decided on a null
    of that type, as pyarrow.dataset evaluates a column a file lacks. False:
    no row can match; None: every row does; else the Dnf left."""
    dnf = normalize(filt)
    if not any(a.column in missing for conj in dnf for a in conj):
        return filt
    nulls = pa.table({n: pa.nulls(1, t) for n, t in missing.items()})
    left = []
    for conj in dnf:
        if any(a.column in missing and not bool(_atom_true(nulls, a)[0]) for a in conj):
            continue
        rest = [a for a in conj if a.column not in missing]
        if not rest:
            return None
        left.append(rest)
    return Dnf(left) if left else False
