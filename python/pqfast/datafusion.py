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

from ._dataset import Dataset
from ._dataset import dataset as _dataset

__all__ = ["dataset", "register"]


def dataset(source: Any, **kwargs: Any) -> Dataset:
    """``pqfast.dataset(source, **kwargs)`` with strings and binaries as
    views (``strings="view"``) unless ``strings`` is given."""
    kwargs.setdefault("strings", "view")
    return _dataset(source, **kwargs)


def register(ctx: Any, name: str, source: Any, **kwargs: Any) -> Dataset:
    """Registers ``dataset(source, **kwargs)`` on the DataFusion
    ``SessionContext`` ``ctx`` as the table ``name``
    (``ctx.register_dataset``); returns the dataset."""
    ds = dataset(source, **kwargs)
    ctx.register_dataset(name, ds)
    return ds
