"""read_table(filters=) on s3:// URLs against SeaweedFS (on 127.0.0.1, behind
the latency proxy), through the streaming scanner: the same rows as the
same files read locally, for lookups (pruned by Bloom blocks, then the
filter column's pages, then the projected pages), ranges (no Bloom atom:
tails, then the pages the engine asks for) and misses; the request rounds,
requests and bytes it reports (``_requests``: listing, tails, then the
scanner's rounds ``data 1``, ``data 2``...)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pytest

import pqfast

from s3_fixtures import N_FILES, lake_values, opts, pa_lake, proxy, rs_lake, s3  # noqa: F401


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
    # Listing; tails (with the Bloom filters of these small files); the filter
    # column's chunks (no page index here), then the projected columns'.
    assert st["rounds"] <= 5, st
    ps = proxy.stats()
    assert "HEAD" not in ps["methods"], ps
    assert ps["requests"] == st["requests"], (ps, st["round_detail"])
    # At most: a listing, a GET per file, and for the two files kept their
    # chunks (3 columns, in at most two rounds).
    assert ps["requests"] <= N_FILES + 1 + 2 * 3 * 2, ps


def test_lake_whose_schema_evolved(s3, opts, tmp_path):  # noqa: F811
    """Objects unlike the first (a column added later, an int32 widened to
    int64): read as pyarrow.dataset reads them, as the same files locally."""
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    from pqfast import _testlake

    tables = [pa.table({"k": pa.array([1, 2, 3, 4], pa.int64()), "v": pa.array(["a", "b", None, "d"])}),
              pa.table({"k": pa.array([5, 6], pa.int64())}),
              pa.table({"k": pa.array([7, 8, 9], pa.int32()), "v": pa.array(["b", "g", "h"])})]
    paths = []
    for i, t in enumerate(tables):
        paths.append(str(tmp_path / f"part-{i}.parquet"))
        pq.write_table(t, paths[-1])
    _testlake.upload(s3.store(), paths, "evolved")
    for f in ([("k", ">", 2)], [("v", "=", "b")], pc.field("v").is_null(), [("k", "in", [2, 8])]):
        expr = f if isinstance(f, pc.Expression) else pq.filters_to_expression(f)
        want = ds.dataset(paths).to_table(filter=expr)
        remote = pqfast.read_table("s3://lake/evolved/*.parquet", filters=f, storage_options=opts)
        assert remote.equals(want), f
        assert pqfast.read_table(paths, filters=f).equals(want), f


def test_missing_bucket_is_a_clear_error(s3, opts):  # noqa: F811
    with pytest.raises(Exception) as e:
        pqfast.read_table("s3://no-such-bucket/x/*.parquet", filters=[("id", "=", 1)], storage_options=opts)
    assert "no-such-bucket" in str(e.value) or "NoSuchBucket" in str(e.value) or "not found" in str(e.value).lower()


# ---- rounds, requests and bytes ----------------------------------------------------------


@pytest.fixture(scope="session")
def pi_lake(s3, tmp_path_factory):
    """(local paths, URL pattern) of a lake with a page index and many pages per chunk
    (pyarrow, Bloom filters on id and key, 4 row groups of 2,000 rows, pages of 200 rows)."""
    import pyarrow.parquet as pq

    from pqfast import _testlake

    d = tmp_path_factory.mktemp("pi_lake")
    paths = []
    for i in range(6):
        p = str(d / f"part-{i:05d}.parquet")
        pq.write_table(_testlake._table(i, 8000), p, row_group_size=2000, write_page_index=True,
                       data_page_size=2048, write_batch_size=200,
                       bloom_filter_options={"id": {"ndv": 2000, "fpp": 0.01}, "key": {"ndv": 2000, "fpp": 0.01}})
        paths.append(p)
    _testlake.upload(s3.store(), paths, "pi")
    return paths, f"s3://{s3.bucket}/pi/*.parquet"


def _kept_row_group_bytes(path, rg):
    import pyarrow.parquet as pq

    md = pq.ParquetFile(path).metadata.row_group(rg)
    return sum(md.column(c).total_compressed_size for c in range(md.num_columns))


def _data_rounds(st) -> list:
    """The scanner's rounds of a read's stats, in order (data 1, data 2...)."""
    return [r for r in st["round_detail"] if r["what"].startswith("data ")]


def test_lookup_fetches_pages_not_row_groups(pi_lake, opts, proxy):  # noqa: F811
    import os

    from pqfast import _testlake

    paths, url = pi_lake
    ids = _testlake.file_ids(3, 8000)
    want = int(ids[4321])  # row group 2 of file 3
    f = [("id", "=", want)]
    proxy.reset()
    t, st = pqfast.read_table(url, filters=f, storage_options=opts, stats=True)
    _same(pqfast.read_table(paths, filters=f), t)
    assert t.num_rows == 1
    # listing, tails, Bloom blocks, the filter column's pages, the projected pages
    assert st["rounds"] <= 5, st["round_detail"]
    what = [r["what"] for r in st["round_detail"]]
    assert what[:2] == ["listing", "tails"], st["round_detail"]
    assert st["route"] == "scanner" and st["row_groups_read"] >= 1, st
    ps = proxy.stats()
    assert ps["requests"] == st["requests"], (ps, st["round_detail"])
    assert "HEAD" not in ps["methods"], ps
    data = _data_rounds(st)
    # Bloom blocks first (these small files' filters mostly lie in the
    # tails): one GET per filter at most (4 row groups per file).
    if len(data) == 3:
        assert data[0]["requests"] <= len(paths) * 4, data
    # Pages, not row groups: the rounds after the Bloom blocks fetch less
    # than the matching row group.
    engine = sum(r["bytes"] for r in data[-2:])
    assert 0 < engine < _kept_row_group_bytes(paths[3], 2), st["round_detail"]
    # Past the tails (64 KiB each, most of these small files): a few percent of the lake.
    tails = sum(r["bytes"] for r in st["round_detail"] if r["what"] == "tails")
    assert st["bytes_fetched"] - tails < sum(os.path.getsize(p) for p in paths) / 20, st
    assert st["pages_skipped"] > 0, st


def test_miss_reads_no_pages(pi_lake, opts):  # noqa: F811
    paths, url = pi_lake
    t, st = pqfast.read_table(url, filters=[("id", "in", [5, 6])], storage_options=opts, stats=True)
    assert t.num_rows == 0
    # The listing, the tails, the Bloom blocks; pages only for a false positive.
    assert st["rounds"] <= 3 + (2 if st["pages_read"] else 0), st["round_detail"]
    assert st["pages_read"] <= 2 * len(paths), st  # Bloom false positives only


@pytest.mark.parametrize("filters", [
    lambda v: [("id", "in", v["id"])],
    lambda v: [[("id", "=", v["id"][1])], [("key", "=", v["key"][0])]],
    lambda v: [("id", ">=", v["id"][0]), ("id", "<", v["id"][0] + 100000), ("amount", "<", 0.5)],
    lambda v: None,
])
def test_short_tails_and_no_coalescing_equal_local(pi_lake, opts, monkeypatch, filters):  # noqa: F811
    """Tails shorter than the footer (read again whole), page indexes outside the
    tail, every range its own GET (reads spanning adjacent ranges): the same rows."""
    from pqfast import _lake, _stream_io, _testlake

    paths, url = pi_lake
    ids3, ids4 = _testlake.file_ids(3, 8000), _testlake.file_ids(4, 8000)
    v = {"id": [int(ids3[10]), int(ids4[7999]), 5], "key": [f"key-{ids4[100]}"]}
    f = filters(v)
    pqfast.clear_footer_cache()
    monkeypatch.setattr(_lake, "_TAIL", 512)
    monkeypatch.setattr(_stream_io, "_REMOTE_GAP", 0)
    local = pqfast.read_table(paths, filters=f) if f is not None else pqfast.read_table(paths)
    remote, st = pqfast.read_table(url, filters=f, storage_options=opts, stats=True)
    _same(local, remote)
    assert st["route"] == "scanner" and "tails" in [r["what"] for r in st["round_detail"]], st
    # Each unit's engine: an AND's later atoms a run each, and a run per round of pages.
    assert st["engine_runs"] <= 5 * max(1, st["scanner"]["units"]), st
    pqfast.clear_footer_cache()


def test_arrow_rs_lake_equals_local(rs_lake, opts):  # noqa: F811
    """Bloom filters after each row group (arrow-rs): blocks fetched from the file's middle."""
    paths, urls = rs_lake
    from pqfast import _testlake

    ids = _testlake.file_ids(2, 8000)
    for f in ([("id", "=", int(ids[77]))], [("key", "in", [f"key-{ids[5]}", "nope"])]):
        local = pqfast.read_table(paths, filters=f)
        remote, st = pqfast.read_table("s3://lake/rs/*.parquet", filters=f, storage_options=opts, stats=True)
        assert remote.num_rows >= 1
        assert remote.equals(local)
        assert st["rounds"] <= 5, st["round_detail"]


def test_memory_limit(pi_lake, opts):  # noqa: F811
    _, url = pi_lake
    with pytest.raises(MemoryError):
        pqfast.read_table(url, filters=[("id", ">", 0)], storage_options=opts, memory_limit=64 * 1024)


def _without_data(st):
    """(what, requests, bytes) of a read's rounds other than the scanner's."""
    return [(r["what"], r["requests"], r["bytes"]) for r in st["round_detail"] if not r["what"].startswith("data ")]


def _data_totals(st):
    """(requests, bytes) of the scanner's rounds together."""
    data = [r for r in st["round_detail"] if r["what"].startswith("data ")]
    return sum(r["requests"] for r in data), sum(r["bytes"] for r in data)


def test_tails_kept_for_the_next_scan_while_objects_are_unchanged(s3, opts, tmp_path):  # noqa: F811
    """A second scan of the same objects reads no tail; an object rewritten
    (new ETag) is read afresh, and its new rows come back."""
    import pyarrow.parquet as pq

    from pqfast import _testlake

    paths = _testlake.write_local(str(tmp_path / "a"), 3)
    _testlake.upload(s3.store(), paths, "tc")
    url = f"s3://{s3.bucket}/tc/*.parquet"
    ids = _testlake.file_ids(1, 8000)
    f = [("id", "in", [int(ids[3]), int(ids[4000])])]
    pqfast.clear_footer_cache()
    first, st1 = pqfast.read_table(url, filters=f, storage_options=opts, stats=True)
    again, st2 = pqfast.read_table(url, filters=f, storage_options=opts, stats=True)
    assert first.equals(again) and first.num_rows == 2
    assert "tails" in [r["what"] for r in st1["round_detail"]]
    assert "tails" not in [r["what"] for r in st2["round_detail"]], st2["round_detail"]
    # Only the tails are saved: the listing and the scanner's requests and
    # bytes are the same. (Not its count of data rounds: a range asked after
    # any read came back counts a round deeper, so two independent row
    # groups' reads make 2 or 3 rounds as their answers happen to arrive.)
    assert _without_data(st2) == [r for r in _without_data(st1) if r[0] != "tails"], (st1, st2)
    assert _data_totals(st2) == _data_totals(st1), (st1["round_detail"], st2["round_detail"])
    # File 1 rewritten with other rows (file 9's, in no other file): read afresh.
    other = tmp_path / "other.parquet"
    _testlake.write_pyarrow(str(other), 9)
    import obstore

    obstore.put(s3.store(), "tc/part-00001.parquet", other.read_bytes())
    ids2 = _testlake.file_ids(9, 8000)
    f2 = [("id", "in", [int(ids2[3]), int(ids[3])])]
    t, st3 = pqfast.read_table(url, filters=f2, storage_options=opts, stats=True)
    want = pq.read_table(str(other)).filter(pc.field("id") == int(ids2[3]))
    assert t.column("id").to_pylist() == want.column("id").to_pylist() == [int(ids2[3])]
    assert "tails" in [r["what"] for r in st3["round_detail"]]
    pqfast.clear_footer_cache()


def test_rescans_of_a_changing_lake(s3, opts, tmp_path):  # noqa: F811
    """A pattern scanned again starts the files it listed last time while it
    lists them anew; objects added (also before the first, which types the
    scan), rewritten or deleted since give the rows of the lake as it is."""
    import obstore

    from pqfast import _testlake

    store = s3.store()
    paths = _testlake.write_local(str(tmp_path / "l"), 12)  # files 0..11; 4 of them used as new contents
    for i in range(3):
        obstore.put(store, f"ch/part-{i}.parquet", Path(paths[i]).read_bytes())
    url = f"s3://{s3.bucket}/ch/*.parquet"
    ids = {i: _testlake.file_ids(i, 8000) for i in range(12)}
    probe = [int(ids[i][17]) for i in range(12)]
    f = [("id", "in", probe)]

    def check(present):
        for _ in range(2):  # the first scan after a change, then one that speculates on it
            t, st = pqfast.read_table(url, filters=f, storage_options=opts, stats=True)
            assert sorted(t.column("id").to_pylist()) == sorted(probe[i] for i in present), (present, st)

    check([0, 1, 2])
    obstore.put(store, "ch/part-1.parquet", Path(paths[5]).read_bytes())   # rewritten
    check([0, 5, 2])
    obstore.delete(store, "ch/part-2.parquet")                              # gone
    obstore.put(store, "ch/part-3.parquet", Path(paths[6]).read_bytes())   # new, last
    check([0, 5, 6])
    obstore.put(store, "ch/a-first.parquet", Path(paths[7]).read_bytes())  # new, first
    check([7, 0, 5, 6])
    t = pqfast.read_table(url, columns=["id", "amount"], filters=f, storage_options=opts)
    assert t.column_names == ["id", "amount"]


def test_rescans_ask_for_bloom_blocks_alone(s3, opts, tmp_path):  # noqa: F811
    """Filters outside the tails: the first scan reads each filter's header
    with the blocks its length implies (one GET per filter); a scan of the
    unchanged objects after it asks for the 32-byte blocks alone."""
    import pyarrow.parquet as pq

    from pqfast import _testlake

    paths = []
    for i in range(2):
        p = str(tmp_path / f"part-{i}.parquet")
        pq.write_table(_testlake._table(i, 120000), p, row_group_size=60000,
                       bloom_filter_options={"id": {"ndv": 60000, "fpp": 0.01}})  # 64 KiB filters
        paths.append(p)
    _testlake.upload(s3.store(), paths, "bb")
    url = f"s3://{s3.bucket}/bb/*.parquet"
    ids = _testlake.file_ids(1, 120000)
    f = [("id", "in", [int(ids[5]), int(ids[70000])])]
    pqfast.clear_footer_cache()
    local = pqfast.read_table(paths, filters=f)
    details = []
    for _ in range(2):
        t, st = pqfast.read_table(url, filters=f, storage_options=opts, stats=True)
        assert t.equals(local) and t.num_rows == 2
        details.append({r["what"]: r for r in st["round_detail"]})
    # (The Bloom blocks: the scanner's first round, before any page.)
    first, second = details[0]["data 1"], details[1]["data 1"]
    assert second["requests"] <= 2 * 2 and first["requests"] <= 2 * 2, details
    assert second["bytes"] < first["bytes"] / 4, details
    pqfast.clear_footer_cache()


def test_mutated_objects_give_the_local_answer_or_an_error(pi_lake, s3, opts, tmp_path):  # noqa: F811
    """Objects with bytes flipped in their tails (footer, page index, Bloom
    filters) or cut short: the remote read gives what a local scan of the same
    bytes gives, or an error (FormatError, MemoryError), never another
    exception or a hang."""
    import random

    import obstore

    from pqfast import _testlake

    paths, _ = pi_lake
    clean = Path(paths[3]).read_bytes()
    ids = _testlake.file_ids(3, 8000)
    f = [("id", "in", [int(ids[4321]), int(ids[10])])]
    rng = random.Random(5)
    store = s3.store()
    outcomes = {"rows": 0, "error": 0}
    for m in range(40):
        b = bytearray(clean)
        if m % 8 == 7:
            b = b[: rng.randrange(8, len(b))]
        else:
            for _ in range(rng.randint(1, 4)):
                at = len(b) - 1 - rng.randrange(min(len(b), 30000)) if rng.random() < 0.8 else rng.randrange(len(b))
                b[at] = rng.randrange(256)
        local_path = tmp_path / f"m{m}.parquet"
        local_path.write_bytes(bytes(b))
        obstore.put(store, f"hx/m{m}/part.parquet", bytes(b))
        try:
            want = pqfast.read_table(str(local_path), filters=f)
        except (pqfast.FormatError, MemoryError, KeyError):
            want = None
        try:
            got = pqfast.read_table(f"s3://{s3.bucket}/hx/m{m}/*.parquet", filters=f, storage_options=opts)
        except (pqfast.FormatError, MemoryError, KeyError):
            got = None
        if got is not None:
            outcomes["rows"] += 1
            if want is not None:
                assert got.equals(want), m
        else:
            outcomes["error"] += 1
    assert outcomes["error"] > 0 and outcomes["rows"] > 0, outcomes
