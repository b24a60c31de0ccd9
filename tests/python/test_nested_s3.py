"""Nested columns of a lake on object storage (SeaweedFS on 127.0.0.1):
read_table on s3:// URLs, with and without filters= on a flat column, equal
to the same files read locally."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast

from s3_fixtures import opts, proxy, s3  # noqa: F401


@pytest.fixture(scope="module")
def nested_lake(s3, tmp_path_factory):  # noqa: F811
    from pqfast import _testlake

    d = tmp_path_factory.mktemp("nested_lake")
    paths = []
    n = 3000
    for k in range(3):
        t = pa.table({
            "id": pa.array(range(k * n, (k + 1) * n), pa.int64()),
            "tags": pa.array([[f"t{i % 7}"] * (i % 3) if i % 11 else None for i in range(n)], pa.list_(pa.string())),
            "m": pa.array([[("a", i)] if i % 5 else None for i in range(n)], pa.map_(pa.string(), pa.int64())),
            "s": pa.array([{"a": i, "b": [i, i + 1]} for i in range(n)]),
        })
        p = d / f"n{k}.parquet"
        pq.write_table(t, p, row_group_size=1000, bloom_filter_options={"id": {"fpp": 0.01}})
        paths.append(str(p))
    _testlake.upload(s3.store(), paths, "nested")
    return paths


@pytest.mark.parametrize("filters", [None, [("id", "in", [3, 4500, 8999])], [("id", ">", 10**9)],
                                     [("id", "<", 20)]])
def test_nested_columns_on_s3_equal_local(nested_lake, opts, filters):  # noqa: F811
    local = pqfast.read_table(nested_lake, filters=filters) if filters else \
        pa.concat_tables([pqfast.read_table(p) for p in nested_lake])
    remote = pqfast.read_table("s3://lake/nested/*.parquet", filters=filters, storage_options=opts)
    assert remote.schema.equals(local.schema), (remote.schema, local.schema)
    assert remote.equals(local)
    cols = pqfast.read_table("s3://lake/nested/*.parquet", columns=["s.b", "id"], filters=filters,
                             storage_options=opts)
    assert cols.equals(local.select(["s", "id"]).set_column(0, "b", pc_field(local.column("s"), "b")))


def pc_field(col, name):
    import pyarrow.compute as pc

    return pc.struct_field(col, [name])
