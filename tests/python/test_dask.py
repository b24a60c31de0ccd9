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
    URLs by the streaming scanner): with and without the row filter, the rows and
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


def test_dask_read_pruned_on_a_partitioned_lake(client, s3, opts, tmp_path):  # noqa: F811
    """A hive-partitioned directory and the same lake under an s3:// prefix:
    the key columns as read_table gives them (categoricals of every value
    of the key), for a key as the pruned column (files chosen by their
    directories) and for a column of the files; the rows pyarrow reads."""
    import pandas as pd
    import pyarrow.parquet as pq

    import pqfast.dask
    from test_partitions import _table
    from test_partitions_remote import _upload

    root = str(tmp_path / "lake")
    t = _table()
    pq.write_to_dataset(t, root, partition_cols=["n", "region"])
    _upload(s3.store(), root, "dask-hive")
    ids = [int(x) for x in t.column("id").to_pylist()[5:9]] + [10 ** 9]
    full = pq.read_table(root)
    # Every value of a key, in pyarrow's order (its to_pandas refuses the null partitions' dictionaries).
    values = {k: next(c.dictionary.to_pylist() for c in full.column(k).chunks if c.dictionary.null_count == 0)
              for k in ("n", "region")}

    def plain(df):
        df = df.reset_index(drop=True)
        return df.astype(object).where(df.notna(), None).to_dict("list")

    for column, vals, columns in (("n", [1, 3], None), ("id", ids, ["v", "region", "n"]),
                                  ("region", ["eu", "us"], ["id", "region"]), ("n", [99], ["id", "n"])):
        want = pq.read_table(root, columns=columns, filters=[(column, "in", vals)])
        for src, kw in ((root, {}), ("s3://lake/dask-hive/", {"storage_options": opts})):
            got = pqfast.dask.read_pruned(src, column, vals, client=client, columns=columns, **kw).compute()
            assert list(got.columns) == want.column_names, (src, column)
            assert plain(got) == want.to_pydict(), (src, column)
            for k in values:
                if k in got.columns:
                    assert isinstance(got[k].dtype, pd.CategoricalDtype), (src, k)
                    assert list(got[k].cat.categories) == values[k], (src, k)
