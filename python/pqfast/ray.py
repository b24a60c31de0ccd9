"""Ray Data reading through pqfast: ``read_parquet`` returns a
``ray.data.Dataset`` made by a ``Datasource`` whose read tasks scan groups
of the fragments (file row groups) that survive pruning, with projection and
predicate pushdown.

    import pqfast.ray
    from ray.data.expressions import col

    ds = pqfast.ray.read_parquet("lake/*.parquet", columns=["id", "amount"],
                                 filter=[("id", "in", [42, 43])])
    ds.filter(expr=col("amount") > 0.5).take_all()   # pushed into pqfast as well

``filter`` takes what ``pqfast.read_table(filters=)`` takes. A
``Dataset.filter(expr=...)`` or ``select_columns`` after the read reaches the
datasource through Ray's pushdown rules (``apply_predicate``,
``apply_projection``); a predicate pqfast's filters cannot express (Ray
lowers it to a pyarrow Expression first) is left to Ray.
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import ray.data
from ray.data.block import BlockMetadata
from ray.data.datasource import Datasource, ReadTask

from ._dataset import dataset as _dataset
from ._errors import UNSUPPORTED, column_list, format_error
from ._pqfast import FormatError
from .filters import normalize

__all__ = ["read_parquet", "PqfastDatasource"]


def _as_expression(filters: Any) -> pc.Expression | None:
    if filters is None or isinstance(filters, pc.Expression):
        return filters
    return pq.filters_to_expression(filters)


def _and(a: pc.Expression | None, b: pc.Expression | None) -> pc.Expression | None:
    if a is None:
        return b
    return a if b is None else a & b


def _read_group(fragments: list, columns: list[str] | None, filter: pc.Expression | None, schema: pa.Schema):
    """One read task: its fragments scanned in order, one block each."""
    out = []
    for f in fragments:
        t = f.to_table(columns=columns, filter=filter)
        out.append(t.cast(schema) if t.schema != schema else t)
    return out or [schema.empty_table()]


class PqfastDatasource(Datasource):
    """A Ray ``Datasource`` over ``pqfast.dataset(source, **dataset_kw)``."""

    def __init__(self, source: Any, columns: Sequence[str] | None = None, filter: Any = None,
                 fragments_per_task: int | None = None, **dataset_kw: Any):
        super().__init__()
        self._source = source
        self._dataset_kw = dataset_kw
        columns = column_list(columns)
        self._projection_map = None if columns is None else {c: c for c in columns}
        # (a DNF pyarrow cannot read fails here, not in a task; an Expression
        # the engine does not take, is_nan(x) or arithmetic, is evaluated by
        # pyarrow.compute on each unit read, as pqfast.dataset does)
        self._filter = _as_expression(filter)
        self._fragments_per_task = fragments_per_task
        self._ds = None

    def _dataset(self):
        if self._ds is None:
            self._ds = _dataset(self._source, **self._dataset_kw)
        return self._ds

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_ds"] = None  # opened again where needed
        return state

    def get_name(self) -> str:
        return "pqfast"

    def supports_projection_pushdown(self) -> bool:
        return True

    def supports_predicate_pushdown(self) -> bool:
        return True

    def apply_predicate(self, predicate_expr):
        """Ray's predicate, lowered to pyarrow, joins pqfast's filter; one
        pqfast cannot express stays with Ray (returning self tells Ray so)."""
        try:
            expr = predicate_expr.to_pyarrow()
            normalize(expr)
        except (FormatError, NotImplementedError, TypeError, ValueError, pa.ArrowException):
            return self
        clone = copy.copy(self)
        clone._filter = _and(self._filter, expr)
        clone._predicate_expr = predicate_expr if self._predicate_expr is None \
            else self._predicate_expr & predicate_expr
        return clone

    def _columns(self) -> list[str] | None:
        return None if self._projection_map is None else list(self._projection_map)

    def estimate_inmemory_data_size(self) -> int | None:
        return None

    def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None,
                       data_context: Any = None) -> list[ReadTask]:
        ds = self._dataset()
        columns = self._columns()
        if columns == [] and ds.schema.names:
            # Ray counts the rows of a block by its columns: a block of none
            # (a count's projection) would count as empty. One column is read.
            columns = ds.schema.names[:1]
        schema = ds.schema if columns is None else pa.schema([ds.schema.field(c) for c in columns])
        fragments = list(ds.get_fragments(filter=self._filter))
        if not fragments:
            return []
        n = self._fragments_per_task or max(1, -(-len(fragments) // max(1, parallelism)))
        groups = [fragments[i:i + n] for i in range(0, len(fragments), n)]
        tasks = []
        for g in groups:
            meta = BlockMetadata(num_rows=None, size_bytes=None, input_files=[f.path for f in g], exec_stats=None)
            tasks.append(ReadTask(lambda g=g: _read_group(g, columns, self._filter, schema), meta, schema=schema,
                                  per_task_row_limit=per_task_row_limit))
        return tasks


# ray.data.read_datasource's arguments (how the read runs, not what it
# returns): handed on as given.
_RUN_ARGS = {"parallelism", "num_cpus", "num_gpus", "memory", "concurrency", "compute", "override_num_blocks",
             "label_selector", "fallback_strategy", "max_calls", "resources", "accelerator_type", "runtime_env",
             "ray_remote_args"}
# ray.data.read_parquet's arguments that change the rows or columns, at the
# value that leaves them as pqfast reads them.
_DATA_ARGS = {"catalog": None, "tensor_column_schema": None, "partition_filter": None, "shuffle": None,
              "include_paths": False, "include_row_hash": False, "ignore_missing_paths": False, "skip_paths": None}


def _run_args(kw: dict) -> dict:
    """The arguments for ``ray.data.read_datasource``; FormatError
    ("unsupported") for a ``ray.data.read_parquet`` argument pqfast does not
    do (``include_paths=True``, ``shuffle``, ``partition_filter``...) or one
    neither takes (pyarrow's read options), rather than a result without
    what it asks."""
    where = "pqfast.ray.read_parquet"
    exts = kw.pop("file_extensions", None)
    if exts is not None and "parquet" not in [str(e).lstrip(".") for e in exts]:
        raise format_error(f"{where}: file_extensions={exts!r}: pqfast reads a directory's *.parquet files "
                           "(a glob or a list names others)", UNSUPPORTED)
    for name, neutral in _DATA_ARGS.items():
        if name in kw:
            value = kw.pop(name)
            if value is not neutral and value != neutral:
                raise format_error(f"{where}: {name}={value!r} is not supported", UNSUPPORTED)
    other = sorted(set(kw) - _RUN_ARGS)
    if other:
        raise format_error(f"{where}: {', '.join(other)} is not supported (pyarrow's read options: pqfast reads "
                           "the files itself)", UNSUPPORTED)
    return kw


def read_parquet(source: Any, columns: Sequence[str] | None = None, filter: Any = None, *,
                 partitioning: str | None = "hive", filesystem: Any = None, storage_options: dict | None = None,
                 fragments_per_task: int | None = None, **read_kw: Any) -> ray.data.Dataset:
    """A ``ray.data.Dataset`` of the Parquet files ``source`` names (as
    ``pqfast.dataset`` takes it), read by pqfast: one read task per group of
    fragments that survive pruning by ``filter`` (``fragments_per_task`` per
    group; default: as many groups as Ray's parallelism), each reading only
    ``columns`` of the rows ``filter`` keeps.

    ``ray.data.read_parquet``'s arguments on how the read runs
    (``override_num_blocks``, ``concurrency``, ``ray_remote_args``,
    ``num_cpus``...) are handed to ``ray.data.read_datasource``;
    ``file_extensions`` must take ``parquet``; ``include_paths``,
    ``include_row_hash``, ``shuffle``, ``partition_filter``,
    ``tensor_column_schema``, ``ignore_missing_paths``, ``skip_paths``,
    ``catalog`` and pyarrow's read options raise FormatError "unsupported"
    unless at their defaults."""
    run = _run_args(dict(read_kw))
    src = PqfastDatasource(source, columns, filter, fragments_per_task, partitioning=partitioning,
                           filesystem=filesystem, storage_options=storage_options)
    return ray.data.read_datasource(src, **run)
