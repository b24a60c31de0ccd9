"""Sidecar indexes on S3 (SeaweedFS behind the counting proxy):
index(urls, columns, sidecar=True) writes _pqfast_index beside the objects
and leaves them as they were; prune and read_table(filters=) find it (by the
listing of a pattern, by one HEAD for a list of URLs) and read the objects as
object + tail: the same verdicts and rows as the same lake indexed locally
with a sidecar; an object replaced after indexing is reported stale and read
as it is; a hostile sidecar is ignored with a warning; the CLI does it too."""

from __future__ import annotations

import shutil
import warnings

import pytest

import pqfast

from conftest import run_cli
from s3_fixtures import opts, proxy, s3  # noqa: F401
from test_sidecar_v2 import N_FILES, filters_for, same_rows, write_lake

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _client(server):
    from pqfast._index_s3 import make_client

    return make_client(server.storage_options())


def _objects(server, prefix):
    c = _client(server)
    listed = c.list_objects_v2(Bucket=server.bucket, Prefix=prefix).get("Contents", [])
    return {o["Key"]: c.get_object(Bucket=server.bucket, Key=o["Key"])["Body"].read() for o in listed}


@pytest.fixture
def lakes(s3, tmp_path):  # noqa: F811
    """(local lake dir, its paths, URL pattern, URLs): the same files locally and under a fresh prefix."""
    from pqfast import _testlake

    lake = tmp_path / "lake"
    paths = write_lake(lake)
    prefix = f"sc-{tmp_path.name}"
    keys = _testlake.upload(s3.store(), [str(p) for p in paths], prefix)
    return lake, paths, f"s3://{s3.bucket}/{prefix}/*.parquet", [f"s3://{s3.bucket}/{k}" for k in keys]


def _rows(t):
    return list(zip([p.rsplit("/", 1)[1] for p in t["path"].to_pylist()], t["row_group"].to_pylist(),
                    t["verdict"].to_pylist(), t["reason"].to_pylist()))


def test_index_beside_the_objects_then_prune_and_read_table_use_it(s3, opts, proxy, lakes):  # noqa: F811
    lake, paths, pattern, urls = lakes
    prefix = pattern.split("/", 3)[3].rsplit("/", 1)[0]
    before = _objects(s3, prefix + "/")
    fs = filters_for(paths)
    plain = [pqfast.read_table(pattern, filters=f, storage_options=opts, stats=True) for f in fs]

    s = pqfast.index(pattern, ["id", "key"], sidecar=True, storage_options=opts)
    assert s.sidecar == f"s3://{s3.bucket}/{prefix}/_pqfast_index"
    assert s.chunks_indexed == 2 * 3 * N_FILES
    after = _objects(s3, prefix + "/")
    assert set(after) == set(before) | {f"{prefix}/_pqfast_index"}
    assert all(after[k] == v for k, v in before.items())  # the objects are untouched
    # The tails equal those of the same lake indexed locally (the fingerprints differ).
    from pqfast import _sidecar

    pqfast.index(lake, ["id", "key"], sidecar=True)
    mine = _sidecar.read(str(lake / "_pqfast_index"))
    side = after[f"{prefix}/_pqfast_index"]
    theirs = _sidecar.parse_manifest(side[16:16 + _sidecar.manifest_length(side[:16], len(side), "s3")], len(side),
                                     "s3")
    for rel, e in mine.files.items():
        t = theirs[rel]
        assert t.etag and t.size == e.size and side[t.offset:t.offset + t.length] == mine.blob(e)

    # prune: the verdicts the local lake's sidecar gives.
    a, b, _ = filters_for(paths)[1][0][2][:3]
    local = pqfast.prune(lake, "id", [a, b, 5])
    for source in (pattern, urls):
        got = pqfast.prune(source, "id", [a, b, 5], storage_options=opts)
        assert _rows(got) == _rows(local)
        assert any("sidecar" in r for r in got["reason"].to_pylist())
    local_bv = pqfast.prune(lake, "key", [f"k{a}", "nope"], by_value=True)
    got_bv = pqfast.prune(urls, "key", [f"k{a}", "nope"], by_value=True, storage_options=opts)
    assert got_bv["verdict"].to_pylist() == local_bv["verdict"].to_pylist()

    # read_table(filters=): pyarrow's rows, fewer pages than without the sidecar.
    for f, (t0, st0) in zip(fs, plain):
        proxy.reset()
        t1, st1 = pqfast.read_table(pattern, filters=f, storage_options=opts, stats=True)
        same_rows(t1, lake, f)
        assert t1.equals(t0), f
        assert st1["pages_read"] <= st0["pages_read"], (f, st0, st1)
        assert proxy.stats()["requests"] == st1["requests"], st1["round_detail"]
        assert "HEAD" not in proxy.stats()["methods"]  # the listing shows the sidecar
    assert pqfast.read_table(pattern, filters=fs[0], storage_options=opts, stats=True)[1]["pages_read"] * 3 < \
        plain[0][1]["pages_read"]
    # A list of URLs: one HEAD finds the sidecar; each object's ETag comes
    # with its tail's GET (which gives its size too), no HEAD per object.
    proxy.reset()
    t2, st2 = pqfast.read_table(urls, filters=fs[0], storage_options=opts, stats=True)
    same_rows(t2, lake, fs[0])
    assert "sidecar" in [r["what"] for r in st2["round_detail"]]
    assert proxy.stats()["methods"].get("HEAD") == 1, proxy.stats()
    assert st2["pages_read"] * 3 < plain[0][1]["pages_read"], (st2, plain[0][1])
    # No listing is sent for the URLs, and the stats count none.
    assert "listing" not in [r["what"] for r in st2["round_detail"]]
    assert proxy.stats()["requests"] == st2["requests"], st2["round_detail"]

    again = pqfast.index(pattern, ["id", "key"], sidecar=True, storage_options=opts)
    assert again.chunks_indexed == 0 and again.bytes_appended == 0
    more = pqfast.index(urls, ["amount"], sidecar=True, storage_options=opts)
    assert more.chunks_indexed == 3 * N_FILES and more.chunks_had_filter == 0


def test_a_replaced_object_is_stale_and_read_as_it_is(s3, opts, lakes):  # noqa: F811
    lake, paths, pattern, urls = lakes
    pqfast.index(pattern, ["id"], sidecar=True, storage_options=opts)
    # Another writer replaces an object with another file's bytes.
    key = urls[0].split("/", 3)[3]
    _client(s3).put_object(Bucket=s3.bucket, Key=key, Body=paths[2].read_bytes())
    shutil.copy(paths[2], paths[0])
    c = pq.read_table(paths[2], columns=["id"])["id"][100].as_py()  # now in objects 0 and 2
    f = [("id", "in", [filters_for(paths)[0][0][2], c])]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = pqfast.read_table(pattern, filters=f, storage_options=opts)
        pr = pqfast.prune(pattern, "id", [c], storage_options=opts)
    same_rows(got, lake, f)
    msgs = [str(x.message) for x in w]
    assert sum("changed since" in m and urls[0] in m for m in msgs) == 2, msgs
    assert "no_filter" in pr.filter(pa.compute.equal(pr["path"], urls[0]))["verdict"].to_pylist()
    rebuilt = pqfast.index(pattern, ["id"], sidecar=True, storage_options=opts)
    assert rebuilt.chunks_indexed == 3 and rebuilt.chunks_had_filter == 3 * (N_FILES - 1)


def test_an_explicit_sidecar_url(s3, opts, lakes):  # noqa: F811
    lake, paths, pattern, urls = lakes
    where = f"s3://{s3.bucket}/indexes/{pattern.split('/')[3]}.pqfastix"
    s = pqfast.index(urls, ["id"], sidecar=where, storage_options=opts)
    assert s.sidecar == where and s.chunks_indexed == 3 * N_FILES
    a = filters_for(paths)[0][0][2]
    assert "no_filter" in pqfast.prune(urls, "id", [a], storage_options=opts)["verdict"].to_pylist()
    got = pqfast.prune(urls, "id", [a], storage_options=opts, sidecar=where)
    assert "no_filter" not in got["verdict"].to_pylist()
    pqfast.index(lake, ["id"], sidecar=True)
    assert _rows(got) == _rows(pqfast.prune(lake, "id", [a]))
    with pytest.raises(ValueError):
        pqfast.index(urls, ["id"], sidecar="s3://another-bucket/x", storage_options=opts)


def test_a_hostile_sidecar_object_is_ignored_with_a_warning(s3, opts, lakes):  # noqa: F811
    lake, paths, pattern, urls = lakes
    pqfast.index(pattern, ["id"], sidecar=True, storage_options=opts)
    key = pattern.split("/", 3)[3].rsplit("/", 1)[0] + "/_pqfast_index"
    good = _client(s3).get_object(Bucket=s3.bucket, Key=key)["Body"].read()
    from test_sidecar_v2 import HOSTILE

    f = filters_for(paths)[1]
    a = f[0][2][0]
    for case in ("bad magic", "manifest cut", "tail past the end", "trailer broken", "footer garbage"):
        _client(s3).put_object(Bucket=s3.bucket, Key=key, Body=HOSTILE[case](good))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for source in (pattern, urls):
                got = pqfast.read_table(source, filters=f, storage_options=opts)
                same_rows(got, lake, f)
                pr = pqfast.prune(source, "id", [a], storage_options=opts)
                assert "no_filter" in pr["verdict"].to_pylist(), case
        assert any("sidecar ignored" in str(x.message) for x in w), case


def test_cli_index_sidecar_on_s3_then_probe(s3, opts, lakes):  # noqa: F811
    import json

    lake, paths, pattern, _ = lakes
    o = [x for k, v in opts.items() for x in ("-o", f"{k}={v}")]
    out = run_cli("index", pattern, "--columns", "id", "--sidecar", *o).stdout
    assert "sidecar s3://" in out and "_pqfast_index" in out
    a = filters_for(paths)[0][0][2]
    rows = [json.loads(line) for line in run_cli("probe", pattern, "--column", "id", "--json", str(a), *o)
            .stdout.splitlines()]
    assert any(r["verdict"] == "maybe" and "sidecar" in r["reason"] for r in rows), rows
    assert not any(r["verdict"] == "no_filter" for r in rows)


def test_nested_columns_of_objects_read_through_the_sidecar(s3, opts, tmp_path):  # noqa: F811
    """Nested columns are read from the objects themselves (their own
    footer), the flat filter columns through object + tail: no warning."""
    import numpy as np

    from pqfast import _testlake

    paths = []
    for i in range(2):
        ids = np.arange(5000) + i * 10000
        p = tmp_path / f"n{i}.parquet"
        pq.write_table(pa.table({"id": ids, "tags": [[int(x), int(x) + 1] for x in ids]}), p, row_group_size=1000)
        paths.append(str(p))
    _testlake.upload(s3.store(), paths, "sc-nested")
    url = f"s3://{s3.bucket}/sc-nested/*.parquet"
    pqfast.index(url, ["id"], sidecar=True, storage_options=opts)
    f = [("id", "in", [10007, 3])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = pqfast.read_table(url, filters=f, storage_options=opts)
    assert got.to_pylist() == pq.read_table(paths, filters=f).to_pylist() == [
        {"id": 3, "tags": [3, 4]}, {"id": 10007, "tags": [10007, 10008]}]
