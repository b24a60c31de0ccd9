"""The engines over a lake on S3 (SeaweedFS on 127.0.0.1): polars through
pqfast.polars.scan_parquet, DuckDB and DataFusion over a pqfast.dataset of
an s3:// prefix give what the same engine gives over the same files on
local disk, and a 1-id lookup reads there what read_table(filters=) reads."""

from __future__ import annotations

import os

import pytest

import pqfast
from s3_fixtures import lake_values, opts, pa_lake, proxy, s3  # noqa: F401

import engine_sweep


def _prefix(urls):
    return urls[0].rsplit("/", 1)[0] + "/"


def _local(paths):
    return os.path.dirname(paths[0])


QUERIES = [
    ("1 id", "SELECT id, key, amount FROM {t} WHERE id = {one}", False),
    ("ids", "SELECT id, key FROM {t} WHERE id IN ({one}, {other}, 5)", False),
    ("range", "SELECT id, amount FROM {t} WHERE amount > 0.25 AND amount < 0.2501", False),
    ("key", "SELECT id FROM {t} WHERE key = '{key}'", False),
    ("count", "SELECT count(*) AS n, round(sum(amount), 4) AS s FROM {t}", False),
    ("top", "SELECT id FROM {t} WHERE amount < 0.01 ORDER BY id LIMIT 5", True),
]


def _sql(q: str, t: str) -> str:
    v = lake_values()
    return q.format(t=t, one=v["id"][0], other=v["id"][1], key=v["key"][0])


def test_duckdb_over_an_s3_dataset(pa_lake, opts):
    duckdb = pytest.importorskip("duckdb")
    paths, urls = pa_lake
    con = duckdb.connect()
    con.register("s3lake", pqfast.dataset(_prefix(urls), storage_options=opts))
    for name, q, ordered in QUERIES:
        got = con.sql(_sql(q, "s3lake")).to_arrow_table()
        want = con.sql(_sql(q, f"read_parquet('{_local(paths)}/*.parquet')")).to_arrow_table()
        assert engine_sweep.same(got, want, ordered) == "", name


def test_datafusion_over_an_s3_dataset(pa_lake, opts):
    datafusion = pytest.importorskip("datafusion")
    paths, urls = pa_lake
    ctx = datafusion.SessionContext()
    ctx.register_dataset("s3lake", pqfast.dataset(_prefix(urls), storage_options=opts))
    ctx.register_parquet("own", _local(paths))
    for name, q, ordered in QUERIES:
        got = ctx.sql(_sql(q, "s3lake")).to_arrow_table()
        want = ctx.sql(_sql(q, "own")).to_arrow_table()
        assert engine_sweep.same(got, want, ordered) == "", name


def test_polars_over_an_s3_prefix(pa_lake, opts):
    pl = pytest.importorskip("polars")
    import pqfast.polars as pqpl

    paths, urls = pa_lake
    v = lake_values()
    ours = pqpl.scan_parquet(_prefix(urls), storage_options=opts)
    theirs = pl.scan_parquet(os.path.join(_local(paths), "*.parquet"))
    assert ours.collect_schema() == theirs.collect_schema()
    for name, f in (("1 id", lambda lf: lf.filter(pl.col("id") == v["id"][0])),
                    ("ids", lambda lf: lf.filter(pl.col("id").is_in(v["id"])).select("id", "key")),
                    ("key", lambda lf: lf.filter(pl.col("key") == v["key"][1]).select("id")),
                    ("agg", lambda lf: lf.select(pl.len(), pl.col("amount").sum().round(4))),
                    ("head", lambda lf: lf.head(3))):
        a, b = f(ours).collect(), f(theirs).collect()
        assert engine_sweep.same(a.to_arrow(), b.to_arrow(), name == "head") == "", name


def test_one_id_through_duckdb_on_s3_reads_what_read_table_reads(pa_lake, opts):
    duckdb = pytest.importorskip("duckdb")
    _, urls = pa_lake
    one = lake_values()["id"][0]
    ds = pqfast.dataset(_prefix(urls), storage_options=opts)
    con = duckdb.connect()
    con.register("t", ds)
    got = con.sql(f"SELECT * FROM t WHERE id = {one}").to_arrow_table()
    want, st = pqfast.read_table(_prefix(urls), filters=[("id", "==", one)], storage_options=opts, stats=True)
    assert got.num_rows == want.num_rows == 1
    assert ds.scan_stats["pages_read"] == st["pages_read"], (ds.scan_stats, st)
