"""pqfast.dask: the same table as pqfast.prune, local and on S3 (SeaweedFS),
with the work in batches on two local Dask workers; read_pruned reads only
the kept row groups and gives the rows pqfast.read_pruned gives."""

from __future__ import annotations

import importlib.util

import pytest

import pqfast
from pqfast import _testlake

from s3_fixtures import opts, pa_lake, proxy, s3  # noqa: F401

pytestmark = pytest.mark.skipif(importlib.util.find_spec("distributed") is None,
                                reason="dask[distributed] not installed; scripts/setup.sh installs it")


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=40)
    c = Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def _vals():
    ids = _testlake.file_ids(4, 8000)
    return [int(ids[3]), int(_testlake.file_ids(9, 8000)[100]), 77]


def test_dask_prune_equals_prune_local(pa_lake, client):
    import pqfast.dask

    paths, _ = pa_lake
    for files_per_task in (1, 5, 100):
        got = pqfast.dask.prune(paths, "id", _vals(), client=client, files_per_task=files_per_task)
        assert got.equals(pqfast.prune(paths, "id", _vals()))
    by_value = pqfast.dask.prune(paths, "id", _vals(), client=client, files_per_task=4, by_value=True)
    assert by_value.equals(pqfast.prune(paths, "id", _vals(), by_value=True))


def test_dask_prune_equals_prune_remote(pa_lake, client, opts):
    import pqfast.dask

    want = pqfast.prune("s3://lake/pa/*.parquet", "key", ["key-1", f"key-{_vals()[0]}"], storage_options=opts)
    got, stats = pqfast.dask.prune_with_stats("s3://lake/pa/*.parquet", "key", ["key-1", f"key-{_vals()[0]}"],
                                              client=client, files_per_task=5, storage_options=opts)
    assert got.equals(want)
    assert stats["tasks"] == 3 and len(stats["task_seconds"]) == 3
    assert "maybe" in got["verdict"].to_pylist()


def test_dask_read_pruned(pa_lake, client, opts):
    import pqfast.dask

    paths, _ = pa_lake
    vals = _vals()
    want = pqfast.read_pruned(paths, "id", vals).to_pandas().sort_values("id").reset_index(drop=True)
    assert len(want) == 2
    df = pqfast.dask.read_pruned(paths, "id", vals, client=client)
    kept = pqfast.prune(paths, "id", vals)
    assert df.npartitions == len({p for p, v in zip(kept["path"].to_pylist(), kept["verdict"].to_pylist())
                                  if v != "absent"})
    got = df.compute().sort_values("id").reset_index(drop=True)
    assert got.to_dict("list") == want.to_dict("list")  # dtypes aside (dask picks its string dtype)
    remote = pqfast.dask.read_pruned("s3://lake/pa/*.parquet", "id", vals, client=client, storage_options=opts,
                                     columns=["key"])
    assert sorted(remote.compute()["key"].tolist()) == sorted(want["key"].tolist())
    none = pqfast.dask.read_pruned(paths, "id", [5], client=client).compute()
    assert len(none) == 0 and list(none.columns) == list(want.columns)


def test_dask_read_pruned_equals_read_pruned_on_every_source(pa_lake, client, opts):
    """Each partition is read by the scan engine (local files natively, s3://
    URLs by the staged scan): with and without the row filter, the rows and
    values pqfast.read_pruned gives, files in order."""
    import pqfast.dask

    paths, _ = pa_lake
    vals = _vals()
    for filter_rows in (True, False):
        want = pqfast.read_pruned(paths, "id", vals, filter_rows=filter_rows).to_pandas()
        assert len(want) == (2 if filter_rows else 2 * 2000)  # two kept row groups of 2,000 rows
        for src, kw in ((paths, {}), ("s3://lake/pa/*.parquet", {"storage_options": opts})):
            got = pqfast.dask.read_pruned(src, "id", vals, client=client, filter_rows=filter_rows, **kw)
            got = got.compute().reset_index(drop=True)
            assert got.to_dict("list") == want.to_dict("list"), (src, filter_rows)
