"""The hidden-query sweep: ~40 queries per engine (DuckDB, polars,
DataFusion, Dask, Ray) over a lake of nulls, NaN, decimals, dates,
timestamps, strings, hive keys and evolved files (engine_sweep.py), each
route over pqfast equal to the engine's own Parquet reader on the same files,
except where the engine's own two doors differ by its design (engine_sweep.KNOWN:
there pqfast's rows are checked against pyarrow's, and the own reader's
different count is asserted, so a change in the engine shows here).

The default run takes every fifth query of each engine; PQFAST_LONG_TESTS=1
runs them all."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pytest

import pqfast

import engine_sweep

LONG = os.environ.get("PQFAST_LONG_TESTS") == "1"


def _picked(queries: list) -> list:
    """Every query under PQFAST_LONG_TESTS=1, else every fifth (and the known differences)."""
    if LONG:
        return queries
    return [q for k, q in enumerate(queries) if k % 5 == 0]


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    return engine_sweep.build(tmp_path_factory.mktemp("sweep"))


def _check_all(results: list) -> None:
    """results: (name, differences or '') for each query; every one must be ''."""
    bad = [f"{n}: {d}" for n, d in results if d]
    assert not bad, "\n".join(bad)


def _pyarrow_ids(lake, condition: pc.Expression) -> int:
    """Rows of the nully lake pyarrow's own dataset keeps under ``condition`` (its hive keys as pqfast types them)."""
    ds = pads.dataset(str(lake), format="parquet", partitioning="hive")
    return ds.count_rows(filter=condition)


# -- DuckDB ---------------------------------------------------------------------------------------------------


def test_duckdb_sweep(lakes):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.execute("SET threads TO 2")
    con.execute("SET TimeZone = 'UTC'")
    con.register("pq_n", pqfast.dataset(str(lakes["nully"])))
    con.register("pq_e", pqfast.dataset(str(lakes["evolved"])))
    own_n = f"read_parquet('{lakes['nully']}/**/*.parquet', hive_partitioning = true)"
    own_e = f"read_parquet('{lakes['evolved']}/*.parquet', union_by_name = true)"
    results = []
    for name, template, ordered in _picked(engine_sweep.SQL):
        if ("duckdb", name) in engine_sweep.KNOWN:
            continue
        got = con.sql(engine_sweep.sql("duckdb", template, "pq_n", "pq_e")).to_arrow_table()
        want = con.sql(engine_sweep.sql("duckdb", template, own_n, own_e)).to_arrow_table()
        results.append((name, engine_sweep.same(got, want, ordered)))
    _check_all(results)


# -- DataFusion -----------------------------------------------------------------------------------------------


def _datafusion(lakes, ours: bool):
    datafusion = pytest.importorskip("datafusion")
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(2))
    if ours:
        ctx.register_dataset("n", pqfast.dataset(str(lakes["nully"])))
        ctx.register_dataset("e", pqfast.dataset(str(lakes["evolved"])))
    else:
        ctx.register_parquet("n", str(lakes["nully"]), table_partition_cols=[("region", pa.string()),
                                                                             ("year", pa.int32())])
        schema = pa.schema([("id", pa.int64()), ("a", pa.int64()), ("s", pa.string()), ("x", pa.float64())])
        ctx.register_parquet("e", str(lakes["evolved"]), schema=schema)
    return ctx


def test_datafusion_sweep(lakes):
    ours, theirs = _datafusion(lakes, True), _datafusion(lakes, False)
    results = []
    for name, template, ordered in _picked(engine_sweep.SQL):
        if ("datafusion", name) in engine_sweep.KNOWN:
            continue
        q = engine_sweep.sql("datafusion", template, "n", "e")
        results.append((name, engine_sweep.same(ours.sql(q).to_arrow_table(), theirs.sql(q).to_arrow_table(),
                                                ordered)))
    _check_all(results)


def test_datafusion_nan_comparison_through_a_dataset(lakes):
    """engine_sweep.KNOWN: through register_dataset `x > 0.5` keeps
    pyarrow's rows (IEEE: no NaN), DataFusion's own reader NaN's too."""
    ours, theirs = _datafusion(lakes, True), _datafusion(lakes, False)
    q = "SELECT count(*) AS n FROM n WHERE x > 0.5"
    got = ours.sql(q).to_arrow_table().column(0)[0].as_py()
    own = theirs.sql(q).to_arrow_table().column(0)[0].as_py()
    nan = theirs.sql("SELECT count(*) FROM n WHERE isnan(x)").to_arrow_table().column(0)[0].as_py()
    assert got == _pyarrow_ids(lakes["nully"], pc.field("x") > 0.5)
    assert own == got + nan, "DataFusion's answer changed: drop the KNOWN entry"


# -- polars ---------------------------------------------------------------------------------------------------


def test_polars_sweep(lakes):
    pl = pytest.importorskip("polars")
    import pqfast.polars as pqpl

    nully, evolved = str(lakes["nully"]), str(lakes["evolved"])
    own = {"n": pl.scan_parquet(nully + "/**/*.parquet", hive_partitioning=True),
           "e": pl.scan_parquet(evolved + "/*.parquet", missing_columns="insert",
                                cast_options=pl.ScanCastOptions(integer_cast="upcast"))}
    ours = {"n": pqpl.scan_parquet(nully), "e": pqpl.scan_parquet(evolved)}
    assert ours["n"].collect_schema() == own["n"].collect_schema()
    results = []
    for name, fn, ordered in _picked(engine_sweep.polars_queries()):
        k = "e" if name.startswith("evolved") else "n"
        got, want = fn(ours[k]).collect().to_arrow(), fn(own[k]).collect().to_arrow()
        results.append((name, engine_sweep.same(got, want, ordered)))
    _check_all(results)


# -- Dask -----------------------------------------------------------------------------------------------------


def _pandas_table(pdf) -> pa.Table:
    pdf = pdf.reset_index(drop=True)
    for c in pdf.columns:
        if str(pdf[c].dtype) == "category":
            pdf[c] = pdf[c].astype(object)
    return pa.Table.from_pandas(pdf, preserve_index=False)


def test_dask_sweep(lakes):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import pqfast.dask as pqdask

    results = []
    with dask.config.set(scheduler="sync"):
        for name, cols, filters in _picked(engine_sweep.dnf_queries()):
            evolved = name.startswith("evolved")
            d = str(lakes["evolved" if evolved else "nully"])
            got = _pandas_table(pqdask.read_parquet(d, columns=cols, filters=filters).compute())
            if evolved:
                want = _pandas_table(_evolved_by_pyarrow(lakes["evolved"], cols, filters).to_pandas())
            else:
                want = _pandas_table(dd.read_parquet(d, columns=cols, filters=filters).compute())
            results.append((name, engine_sweep.same(got, want)))
    _check_all(results)


def _evolved_by_pyarrow(d, cols, filters) -> pa.Table:
    """The evolved lake as pyarrow.dataset reads it in its first file's schema
    (a file lacking a column gives nulls): what pqfast's routes give."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(d / "f0.parquet")
    expr = None if filters is None else pq.filters_to_expression(filters)
    return pads.dataset(str(d), schema=schema).to_table(columns=cols, filter=expr)


def test_dask_reader_refuses_the_evolved_lake(lakes):
    """engine_sweep.KNOWN: dask.dataframe.read_parquet raises on a lake whose
    second file lacks a column of the first; pqfast.dask reads it as
    pyarrow.dataset does (nulls there)."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    import pqfast.dask as pqdask

    d = str(lakes["evolved"])
    with dask.config.set(scheduler="sync"):
        with pytest.raises(KeyError):
            dd.read_parquet(d).compute()
        got = _pandas_table(pqdask.read_parquet(d).compute())
    assert engine_sweep.same(got, _pandas_table(_evolved_by_pyarrow(lakes["evolved"], None, None).to_pandas())) == ""


# -- Ray ------------------------------------------------------------------------------------------------------


def test_ray_sweep(lakes):
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    import pyarrow.parquet as pq

    import pqfast.ray as pqray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        ctx.read_op_min_num_blocks = 2
        ctx.min_parallelism = 2

        def table(rds):
            tables = ray.get(rds.to_arrow_refs())
            return pa.concat_tables([engine_sweep_plain(t) for t in tables]) if tables else pa.table({})

        queries = engine_sweep.dnf_queries()
        results, own = [], {}
        # (Dask's "is" / "is not" None are not read_table's filters: Ray takes those.)
        queries = [q for q in queries if not (q[2] and any(op.startswith("is") for _, op, _ in _terms(q[2])))]
        for name, cols, filters in (queries if LONG else queries[::8]):
            d = str(lakes["evolved" if name.startswith("evolved") else "nully"])
            got = table(pqray.read_parquet(d, columns=cols, filter=filters))
            if d not in own:  # Ray's reader takes no filter: every row, filtered by pyarrow
                t = table(ray.data.read_parquet(d))
                if "year" in t.column_names:  # Ray's hive keys are strings; pqfast's as pyarrow infers them
                    t = t.set_column(t.column_names.index("year"), "year", t.column("year").cast(pa.int64()))
                own[d] = t
            want = own[d]
            if filters is not None:
                want = want.filter(pq.filters_to_expression(filters))
            want = want.select(cols) if cols is not None else want
            results.append((name, engine_sweep.same(got, want)))
        _check_all(results)
    finally:
        ray.shutdown()


def _terms(filters) -> list:
    """The (column, op, value) terms of a DNF filter (a list of them, or a list of such lists)."""
    return [t for conj in filters for t in conj] if isinstance(filters[0], list) else list(filters)


def engine_sweep_plain(t: pa.Table) -> pa.Table:
    from engine_lakes import plain

    return plain(t)
