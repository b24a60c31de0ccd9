"""read_table(filters=) on files other writers wrote (polars, DuckDB,
DataFusion's arrow-rs, pyarrow with its options varied): the rows pyarrow
reads from the same files, filtered by the reference evaluator
(pqfast.filters.reference_filter, Arrow's semantics), for every filter form."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast.filters import normalize, reference_filter

N = 6000
RNG = np.random.default_rng(11)


def _table() -> pa.Table:
    ids = RNG.permutation(N * 3)[:N].astype(np.int64)
    nulls = RNG.random(N) < 0.1
    return pa.table({
        "id": pa.array(ids),
        "k": pa.array([f"k{int(i) % 997:04d}" for i in ids]),
        "x": pa.array(np.where(nulls, np.nan, RNG.standard_normal(N)), mask=RNG.random(N) < 0.05),
        "n": pa.array((ids % 50).astype(np.int32), mask=nulls),
        "d": pa.array([dt.date(2020, 1, 1) + dt.timedelta(days=int(i) % 400) for i in ids]),
        "flag": pa.array(ids % 3 == 0),
    })


def _write(kind: str, t: pa.Table, path) -> None:
    if kind == "pyarrow_pages":
        pq.write_table(t, path, row_group_size=1500, data_page_size=2048, write_page_index=True,
                       bloom_filter_options={"id": {"ndv": 1500, "fpp": 0.01}})
    elif kind == "pyarrow_plain_v2":
        pq.write_table(t, path, row_group_size=2500, use_dictionary=False, data_page_version="2.0",
                       compression="zstd", write_page_index=True)
    elif kind == "polars":
        pl = pytest.importorskip("polars")
        pl.from_arrow(t).write_parquet(path, row_group_size=2000)
    elif kind == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        con.register("t", t)
        con.execute(f"COPY t TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 2048)")
    elif kind == "datafusion":
        datafusion = pytest.importorskip("datafusion")
        ctx = datafusion.SessionContext()
        ctx.from_arrow(t).write_parquet(str(path))
    else:
        raise ValueError(kind)


def _filters(t: pa.Table):
    some = t["id"].to_pylist()[:: N // 7]
    return [
        [("id", "in", some)],
        [("id", "=", some[0])],
        [("id", ">=", 100), ("id", "<", 400)],
        [("k", "=", "k0005")],
        [("k", "in", ["k0001", "k0100", "nope"])],
        [[("n", "<", 3)], [("x", ">", 2.0)]],
        [("n", "not in", [1, 2, 3])],
        [("d", ">=", dt.date(2020, 12, 1))],
        [("flag", "=", True), ("n", "=", 7)],
        pc.field("x").is_null() | (pc.field("n") == 0),
        ~(pc.field("x") < 0.5) & pc.field("k").isin(["k0002", "k0003"]),
    ]


def _values(col) -> list:
    return ["NaN" if isinstance(v, float) and math.isnan(v) else v for v in col.to_pylist()]


@pytest.mark.parametrize("kind", ["pyarrow_pages", "pyarrow_plain_v2", "polars", "duckdb", "datafusion"])
def test_writers(tmp_path, kind):
    t = _table()
    paths = []
    for i in range(2):
        p = tmp_path / f"{kind}-{i}.parquet"
        _write(kind, t.slice(i * (N // 2), N // 2), p)
        if p.is_dir():  # a writer that made a directory of files
            paths.extend(sorted(str(q) for q in p.glob("*.parquet")))
        else:
            paths.append(str(p))
    whole = pa.concat_tables([pq.read_table(p) for p in paths])
    for f in _filters(t):
        got = pqfast.read_table(paths, filters=f)
        want = reference_filter(whole, normalize(f))
        assert got.schema.equals(want.schema), (kind, f, got.schema, want.schema)
        for name in want.column_names:  # values, NaN equal to NaN
            assert _values(got[name]) == _values(want[name]), (kind, f, name)
