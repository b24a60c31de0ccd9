"""read_table(filters=) on s3:// URLs against SeaweedFS (on 127.0.0.1, behind
the latency proxy): the same rows as the same files read locally, for
lookups (pruned remotely, kept row groups fetched in one round), ranges (no
Bloom atom: tails, then the pages the engine asks for) and misses; the
request rounds it reports."""

from __future__ import annotations

import pyarrow.compute as pc
import pytest

import pqfast

from s3_fixtures import N_FILES, lake_values, opts, pa_lake, proxy, s3  # noqa: F401


def _same(local, remote):
    assert remote.schema.equals(local.schema), (remote.schema, local.schema)
    assert remote.equals(local)


@pytest.mark.parametrize("filters", [
    lambda v: [("id", "in", v["id"])],
    lambda v: [("id", "=", v["id"][0])],
    lambda v: [("key", "in", v["key"])],
    lambda v: [[("id", "=", v["id"][1])], [("key", "=", v["key"][0])]],
    lambda v: (pc.field("id") == v["id"][0]) & (pc.field("key") != "zzz"),
    lambda v: [("id", "in", [5, 6])],                     # no such ids: nothing read but the pruner's
    lambda v: [("id", ">=", v["id"][0]), ("id", "<", v["id"][0] + 1000)],  # no Bloom atom: tails, then pages
])
def test_s3_equals_local(pa_lake, opts, filters):  # noqa: F811
    paths, urls = pa_lake
    f = filters(lake_values())
    local = pqfast.read_table(paths, filters=f)
    remote, st = pqfast.read_table("s3://lake/pa/*.parquet", filters=f, storage_options=opts, stats=True)
    _same(local, remote)
    assert st["rows"] == local.num_rows
    remote2 = pqfast.read_table(urls, columns=["key", "id"], filters=f, storage_options=opts)
    _same(pqfast.read_table(paths, columns=["key", "id"], filters=f), remote2)


def test_lookup_rounds_and_requests(pa_lake, opts, proxy):  # noqa: F811
    v = lake_values()
    _, st = pqfast.read_table("s3://lake/pa/*.parquet", filters=[("id", "in", v["id"][:2])], storage_options=opts,
                              stats=True)
    # Listing; the pruner's tails (and Bloom blocks); then tails and kept row groups in one round.
    assert st["rounds"] <= 5, st
    assert st["fallback_reads"] == 0, st
    ps = proxy.stats()
    assert "HEAD" not in ps["methods"], ps
    # At most: a listing, a footer read typing the values, a GET per file, and for the
    # two files kept their tail and row groups.
    assert ps["requests"] <= N_FILES + 2 + 2 * 3, ps


def test_missing_bucket_is_a_clear_error(s3, opts):  # noqa: F811
    with pytest.raises(Exception) as e:
        pqfast.read_table("s3://no-such-bucket/x/*.parquet", filters=[("id", "=", 1)], storage_options=opts)
    assert "no-such-bucket" in str(e.value) or "NoSuchBucket" in str(e.value) or "not found" in str(e.value).lower()
