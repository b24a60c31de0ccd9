"""DataFusion reading through pqfast: a ``pqfast.Dataset`` laid out as
DataFusion's own Parquet reader lays out its columns.

    import datafusion
    import pqfast.datafusion

    ctx = datafusion.SessionContext()
    pqfast.datafusion.register(ctx, "sales", "lake/")       # or: ctx.register_dataset("sales", pqfast.datafusion.dataset("lake/"))
    ctx.sql("SELECT category, sum(amount) FROM sales WHERE id = 42 GROUP BY category").to_arrow_table()

``SessionContext.register_dataset`` pushes projections and filters into any
``pqfast.Dataset``. DataFusion's own reader hands its plans strings as views
(``Utf8View``): this dataset does too (``strings="view"``), so results are
typed as over ``register_parquet`` and no string is copied per row into
pyarrow's ``string`` layout first (`pqfast bench engines`: the aggregate
1.1x DataFusion's own reader where plain strings tie it).
"""

from __future__ import annotations

from typing import Any

from ._dataset import DEFAULT_BATCH_SIZE, Dataset
from ._dataset import dataset as _dataset

__all__ = ["dataset", "register"]


# DataFusion asks a dataset's fragments for batches of its session's batch
# size (8,192 rows), its operators' unit; each batch then crosses from Python
# at a cost of its own (a count(*) of 50 M rows: 747 ms in batches of 8,192,
# 128 in batches of 1 M). Its operators take batches of any size: these
# datasets hand over batches of at least this many rows.
MIN_BATCH_ROWS = DEFAULT_BATCH_SIZE


def dataset(source: Any, **kwargs: Any) -> Dataset:
    """``pqfast.dataset(source, **kwargs)`` with strings and binaries as
    views (``strings="view"``) unless ``strings`` is given, whose scans make
    batches of at least ``MIN_BATCH_ROWS`` rows (DataFusion asks 8,192)."""
    kwargs.setdefault("strings", "view")
    ds = _dataset(source, **kwargs)
    ds._lake.min_batch_size = MIN_BATCH_ROWS
    return ds


def register(ctx: Any, name: str, source: Any, **kwargs: Any) -> Dataset:
    """Registers ``dataset(source, **kwargs)`` on the DataFusion
    ``SessionContext`` ``ctx`` as the table ``name``
    (``ctx.register_dataset``); returns the dataset."""
    ds = dataset(source, **kwargs)
    ctx.register_dataset(name, ds)
    return ds
