"""pqfast.ray.read_parquet: Ray Data datasets equal to ray.data.read_parquet
on the lookup lakes and a hive lake (point, range, IN, nulls, projections,
aggregates, limit, sort), filters given to read_parquet and Ray's own
filter(expr=)/select_columns pushed into the datasource; one read task per
group of kept fragments."""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

import pyarrow as pa  # noqa: E402

import pqfast  # noqa: E402
import pqfast.ray as pqray  # noqa: E402

import engine_lakes  # noqa: E402


@pytest.fixture(scope="module")
def lakes(tmp_path_factory):
    return engine_lakes.build(tmp_path_factory.mktemp("engines"))


@pytest.fixture(scope="module", autouse=True)
def ray_session():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    # A tiny lake on 2 CPUs: Ray's defaults (200 read blocks, 200 shuffle
    # partitions) would spend minutes scheduling empty tasks.
    ctx.read_op_min_num_blocks = 2
    ctx.min_parallelism = 2
    ctx.default_hash_shuffle_parallelism = 2
    yield
    ray.shutdown()


def _table(rds) -> pa.Table:
    """The dataset's blocks as one table (values only: see engine_lakes.plain)."""
    tables = ray.get(rds.to_arrow_refs())
    return pa.concat_tables([engine_lakes.plain(x) for x in tables]) if tables else pa.table({})


_OWN: dict = {}


def _own(d: str, lake: str, columns, filters) -> pa.Table:
    """Ray's own Parquet reader (each lake read once, every column), the rows
    filtered by pyarrow."""
    import pyarrow.parquet as pq

    if d not in _OWN:
        _OWN[d] = _table(ray.data.read_parquet(d))  # its default partitioning: hive
    t = _OWN[d]
    if filters is not None:
        t = t.filter(pq.filters_to_expression(filters))
    return t.select(columns) if columns is not None else t


def test_lakes_equal_ray_read_parquet(lakes):
    v = engine_lakes.lookup_ids(lakes["bloom"])
    cases = [
        ("bloom", "point", [("id", "==", v["one"])], None),
        ("bloom", "ten ids", [("id", "in", v["ten"])], ["id", "quantity"]),
        ("bloom", "string key", [("key", "==", v["key"])], ["id", "key"]),
        ("sorted", "range", [("id", ">=", v["lo"]), ("id", "<", v["hi"])], ["id", "ts"]),
        ("bloom", "or", [[("id", ">=", v["lo"]), ("id", "<", v["hi"])], [("id", "==", v["one"])]], ["id"]),
        ("hive", "all", None, ["id", "score", "label", "region", "year"]),
        ("hive", "keys and column", [("region", "==", "west"), ("score", "<", 30)], ["id", "score", "region"]),
        ("bloom", "all", None, None),
    ]
    if "polars" in lakes:
        cases.append(("polars", "point", [("id", "==", v["one"])], ["id", "amount"]))
    for lake, name, filters, cols in cases:
        d = str(lakes[lake])
        got = _table(pqray.read_parquet(d, columns=cols, filter=filters))
        want = _own(d, lake, cols, filters)
        if cols is None:
            want = want.select(got.column_names)
        if "year" in got.column_names:  # Ray types hive keys as strings, pyarrow.dataset (and pqfast) as ints
            got = got.set_column(got.column_names.index("year"), "year", got.column("year").cast(pa.string()))
        engine_lakes.assert_same(got, want, what=f"{lake}: {name}")


def test_ray_filter_and_select_are_pushed(lakes):
    from ray.data.expressions import col

    d = str(lakes["hive"])
    rds = pqray.read_parquet(d).filter(expr=col("score").is_null() | (col("score") > 95)).select_columns(
        ["id", "score"])
    got = _table(rds)
    import pyarrow.compute as pc

    want = _own(d, "hive", None, None)
    want = want.filter(pc.field("score").is_null() | (pc.field("score") > 95)).select(["id", "score"])
    engine_lakes.assert_same(got, want, what="ray filter")
    assert got.num_rows > 0
    # Ray handed the predicate and the projection to the datasource.
    src = _datasource_of(rds)
    assert src is not None and src._filter is not None and src._columns() == ["id", "score"]


def _datasource_of(rds):
    """The datasource in Ray's optimized logical plan (after its pushdown rules)."""
    from ray.data._internal.logical.optimizers import LogicalOptimizer

    plan = LogicalOptimizer().optimize(rds._logical_plan)
    stack = [plan.dag]
    while stack:
        op = stack.pop()
        if isinstance(getattr(op, "datasource", None), pqray.PqfastDatasource):
            return op.datasource
        stack.extend(op.input_dependencies)
    return None


def test_aggregate_limit_sort(lakes):
    """Ray's aggregates, limit and sort over pqfast's read, against Ray's own
    reader's rows (read once, computed by pyarrow)."""
    import pyarrow.compute as pc
    from ray.data.aggregate import Count, Max, Sum
    from ray.data.expressions import col

    d = str(lakes["bloom"])
    ours = pqray.read_parquet(d, columns=["id", "quantity", "category"])
    own = _own(d, "bloom", ["id", "quantity", "category"], None)
    got = ours.aggregate(Count(), Sum("quantity"), Max("id"))
    assert got["count()"] == own.num_rows == engine_lakes.FILES * engine_lakes.ROWS
    assert got["sum(quantity)"] == pc.sum(own.column("quantity")).as_py()
    assert got["max(id)"] == pc.max(own.column("id")).as_py()
    assert ours.count() == own.num_rows
    assert len(ours.limit(5).take_all()) == 5
    top = [r["id"] for r in ours.filter(expr=col("quantity") < 5).sort("id", descending=True).take_all()]
    want = own.filter(pc.field("quantity") < 5).sort_by([("id", "descending")]).column("id").to_pylist()
    assert top == want


def test_one_read_task_per_fragment_group(lakes):
    d = str(lakes["bloom"])
    src = pqray.PqfastDatasource(d, ["id"], None)
    assert len(src.get_read_tasks(2)) == 2
    assert len(src.get_read_tasks(100)) == len(pqfast.dataset(d).get_fragments())
    src = pqray.PqfastDatasource(d, ["id"], None, fragments_per_task=3)
    assert len(src.get_read_tasks(100)) == -(-engine_lakes.FILES // 3)


def test_one_id_reads_what_read_table_reads(lakes):
    """The read tasks (run here, so their scans count in the dataset's stats)
    read the pages and row groups read_table reads."""
    d = str(lakes["bloom"])
    v = engine_lakes.lookup_ids(lakes["bloom"])
    src = pqray.PqfastDatasource(d, None, [("id", "==", v["one"])])
    tables = [t for task in src.get_read_tasks(4) for t in task()]  # the tasks run here: stats counted here
    want, want_stats = pqfast.read_table(d, filters=[("id", "==", v["one"])], stats=True)
    assert sum(t.num_rows for t in tables) == want.num_rows == 1
    stats = src._dataset().scan_stats
    for k in ("pages_read", "row_groups_read", "rows"):
        assert stats[k] == want_stats[k], (k, stats, want_stats)
    # Fewer bytes: the other files were ruled out by their Bloom filters before
    # any task (read_table reads their footers and filters in its scan).
    assert stats["bytes_read"] <= want_stats["bytes_read"], (stats, want_stats)


def test_columns_as_a_str_is_refused(lakes):
    """A str is not taken for the list of its letters (``"id"`` would read columns i and d)."""
    with pytest.raises(pqfast.FormatError, match="not a str") as e:
        pqray.read_parquet(str(lakes["bloom"]), columns="id")
    assert e.value.code == "invalid argument"


def test_filters_pqfast_evaluates_after_the_read(lakes):
    """An Expression the engine does not take (arithmetic, a function) is
    taken as pqfast.dataset takes it (pyarrow.compute on each unit read),
    not refused."""
    import pyarrow.compute as pc

    d = str(lakes["hive"])
    for f in ((pc.field("score") + 1) == 8, pc.is_nan(pc.field("weight")) | (pc.field("weight") > 0.9),
              (pc.multiply(pc.field("score"), 3) > 200) & (pc.field("region") == "east")):
        got = _table(pqray.read_parquet(d, columns=["id", "score", "weight"], filter=f))
        want = _own(d, "hive", None, None).filter(f).select(["id", "score", "weight"])
        engine_lakes.assert_same(got, want, what=str(f))
        assert want.num_rows > 0


def test_ray_read_parquet_arguments(lakes):
    """ray.data.read_parquet's arguments on how the read runs are handed to
    Ray (the same rows); those that would change the result, which pqfast
    does not do, are refused rather than dropped (include_paths=True read
    without its path column before)."""
    d = str(lakes["bloom"])
    want = pqfast.read_table(d, columns=["id"]).num_rows
    for kw in ({"override_num_blocks": 2}, {"concurrency": 1, "ray_remote_args": {"num_cpus": 1}},
               {"file_extensions": ["parquet"], "include_paths": False, "shuffle": None}):
        assert pqray.read_parquet(d, columns=["id"], **kw).count() == want, kw
    for kw in ({"include_paths": True}, {"shuffle": "files"}, {"include_row_hash": True},
               {"partition_filter": lambda p: True}, {"file_extensions": ["pq"]}, {"coerce_int96_timestamp_unit": "ms"},
               {"ignore_missing_paths": True}):
        with pytest.raises(pqfast.FormatError, match="not supported|pqfast reads") as e:
            pqray.read_parquet(d, columns=["id"], **kw)
        assert e.value.code == "unsupported", kw
