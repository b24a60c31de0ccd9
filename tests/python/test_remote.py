"""The remote driver against a real S3 server (SeaweedFS) behind pqfast's
latency proxy: the same verdicts as local pruning, one request per file,
clear per-file errors, retries, storage options, no secret in messages."""

from __future__ import annotations

import os

import pytest

import pqfast
from pqfast import _testlake

from s3_fixtures import N_FILES, ROWS, lake_values, opts, pa_lake, proxy, rs_lake, s3  # noqa: F401

_values = lake_values


def _rows(t):
    return list(zip(t["path"].to_pylist(), t["row_group"].to_pylist(), t["verdict"].to_pylist(),
                    t["reason"].to_pylist()))


def _local_rows(t, paths, urls):
    to_url = dict(zip(paths, urls))
    return [(to_url[p], g, v, r) for p, g, v, r in _rows(t)]


@pytest.mark.parametrize("column", ["id", "key"])
def test_remote_equals_local(pa_lake, opts, column):
    paths, urls = pa_lake
    vals = _values()[column]
    local = pqfast.prune(paths, column, vals)
    remote = pqfast.prune(f"s3://lake/pa/*.parquet", column, vals, storage_options=opts)
    assert _rows(remote) == _local_rows(local, paths, urls)
    verdicts = set(remote["verdict"].to_pylist())
    assert "maybe" in verdicts and "absent" in verdicts
    by_value_l = pqfast.prune(paths, column, vals, by_value=True)
    by_value_r = pqfast.prune(urls, column, vals, by_value=True, storage_options=opts)
    assert by_value_r["verdict"].to_pylist() == by_value_l["verdict"].to_pylist()
    assert by_value_r["value"].to_pylist() == by_value_l["value"].to_pylist()


def test_one_request_per_file_and_no_head(pa_lake, opts, proxy):
    vals = _values()["id"]
    pqfast.prune("s3://lake/pa/*.parquet", "id", vals, storage_options=opts)
    st = proxy.stats()
    assert "HEAD" not in st["methods"], st
    # One listing, one footer read that types the values, one GET per file.
    assert st["methods"].get("GET") == N_FILES + 2, st
    proxy.reset()
    pqfast.prune(pa_lake[1], "id", vals, storage_options=opts)  # explicit URLs: suffix GETs, no listing
    st = proxy.stats()
    assert "HEAD" not in st["methods"] and st["requests"] == N_FILES + 1, st


def test_filters_after_each_row_group(rs_lake, opts, proxy):
    paths, urls = rs_lake
    ids = _testlake.file_ids(2, ROWS)
    for column, vals in (("id", [int(ids[5]), 17]), ("key", [f"key-{ids[5]}", "key-x"])):
        proxy.reset()
        remote = pqfast.prune("s3://lake/rs/*.parquet", column, vals, storage_options=opts)
        st = proxy.stats()
        assert _rows(remote) == _local_rows(pqfast.prune(paths, column, vals), paths, urls)
        assert "maybe" in remote["verdict"].to_pylist()
        assert "HEAD" not in st["methods"]
        assert st["requests"] <= 2 * len(paths) + 2, st


def test_sansio_driven_by_hand_equals_local(pa_lake):
    from pqfast import sansio

    paths, _ = pa_lake
    vals = _values()["key"]
    with open(paths[0], "rb") as f:
        data0 = f.read()
    q = sansio.Query("key", vals, sansio.descriptor(data0[-65536:], len(data0), "key"))
    pruners = []
    for i, p in enumerate(paths):
        with open(p, "rb") as f:
            data = f.read()
        pr = q.file(p, len(data), tail_bytes=[64, 4096, 1 << 20][i % 3])
        rounds = 0
        while not pr.done:
            for off, n in pr.needs:
                pr.feed(off, data[off: off + n])
            rounds += 1
            assert rounds < 10
        pruners.append(pr)
    assert _rows(q.table(pruners)) == _rows(pqfast.prune(paths, "key", vals))


def test_throttling_is_retried(pa_lake, opts, proxy):
    vals = _values()["id"]
    want = _rows(pqfast.prune(pa_lake[1], "id", vals, storage_options=opts))
    proxy.reset()
    proxy.fail_next(4, status=503)
    got = _rows(pqfast.prune(pa_lake[1], "id", vals, storage_options=opts))
    st = proxy.stats()
    assert st["injected"] == 4
    assert got == want
    proxy.reset()
    proxy.fail_next(2, status=500)
    assert _rows(pqfast.prune(pa_lake[1], "id", vals, storage_options=opts)) == want
    assert proxy.stats()["injected"] == 2


def test_wrong_credentials(pa_lake, s3, proxy, capsys):
    secret = "not-the-secret-" + "x" * 12
    bad = s3.storage_options(endpoint=proxy.endpoint, secret_access_key=secret)
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.prune(pa_lake[1][:3], "id", [1], storage_options=bad)
    msg = str(e.value)
    assert "access denied" in msg and "403" in msg and "SignatureDoesNotMatch" in msg, msg
    assert pa_lake[1][0] in msg
    assert secret not in msg and s3.secret_key not in msg
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.prune("s3://lake/pa/*.parquet", "id", [1], storage_options=bad, progress=True)
    assert "cannot list" in str(e.value) and secret not in str(e.value)
    out = capsys.readouterr()
    assert secret not in out.err and secret not in out.out


def test_anonymous_is_denied_per_file(pa_lake, s3, proxy):
    anon = {"endpoint": proxy.endpoint, "region": "us-east-1", "anon": True}
    from pqfast.remote import prune_remote

    desc = {"physical_type": "INT64", "type_length": 0, "logical_type": {"kind": 0, "name": ""},
            "converted_type": None, "dotted_path": "id", "scale": 0}
    t = prune_remote(pa_lake[1][:2], "id", [1], storage_options=anon, on_error="skip", descriptor=desc)
    assert t.num_rows == 0
    with pytest.raises(pqfast.FormatError, match="access denied|403"):
        prune_remote(pa_lake[1][:2], "id", [1], storage_options=anon, descriptor=desc)


def test_missing_bucket(opts):
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.prune(["s3://no-such-bucket-pqfast/a.parquet"], "id", [1], storage_options=opts)
    assert "s3://no-such-bucket-pqfast/a.parquet" in str(e.value)
    assert "NoSuchBucket" in str(e.value) or "not found" in str(e.value), str(e.value)


def test_deleted_and_truncated_objects(pa_lake, s3, opts):
    import obstore

    from pqfast.remote import list_sizes, prune_remote

    paths, urls = pa_lake
    store = s3.store()
    with open(paths[3], "rb") as f:
        data = f.read()
    obstore.put(store, "tmp/gone.parquet", data)
    obstore.put(store, "tmp/half.parquet", data[: len(data) // 2])
    obstore.put(store, "tmp/ok.parquet", data)
    listed = dict(list_sizes("s3://lake/tmp/*.parquet", opts))
    assert set(listed) == {"s3://lake/tmp/gone.parquet", "s3://lake/tmp/half.parquet", "s3://lake/tmp/ok.parquet"}
    obstore.delete(store, "tmp/gone.parquet")  # listed, then deleted
    vals = _values()["id"]
    good = prune_remote(list(listed), "id", vals, storage_options=opts, sizes=listed, on_error="skip")
    assert set(good["path"].to_pylist()) == {"s3://lake/tmp/ok.parquet"}
    for url, words in (("s3://lake/tmp/gone.parquet", ("not found", "404")),
                       ("s3://lake/tmp/half.parquet", ("magic",))):
        with pytest.raises(pqfast.FormatError) as e:
            prune_remote([url], "id", vals, storage_options=opts, sizes=listed,
                         descriptor=_descriptor(paths[0], "id"))
        assert url in str(e.value) and any(w in str(e.value) for w in words), str(e.value)
    # An object shorter than its listed size: a clear error, no hang.
    sizes = {"s3://lake/tmp/ok.parquet": len(data) + 100_000}
    with pytest.raises(pqfast.FormatError) as e:
        prune_remote(list(sizes), "id", vals, storage_options=opts, sizes=sizes,
                     descriptor=_descriptor(paths[0], "id"))
    assert "s3://lake/tmp/ok.parquet" in str(e.value)


def _descriptor(path, column):
    with pqfast.ParquetFile(path) as f:
        return f._columns[f.column_index(column)]


def test_storage_option_spellings_and_environment(pa_lake, s3, proxy, monkeypatch):
    from pqfast.remote import normalise_options

    vals = _values()["key"]
    want = _rows(pqfast.prune(pa_lake[1], "key", vals, storage_options=s3.storage_options(endpoint=proxy.endpoint)))
    polars_style = {"aws_endpoint_url": proxy.endpoint, "aws_region": "us-east-1",
                    "aws_access_key_id": s3.access_key, "aws_secret_access_key": s3.secret_key}
    fsspec_style = {"key": s3.access_key, "secret": s3.secret_key,
                    "client_kwargs": {"endpoint_url": proxy.endpoint, "region_name": "us-east-1"}}
    for so in (polars_style, fsspec_style):
        assert _rows(pqfast.prune(pa_lake[1], "key", vals, storage_options=so)) == want
    with pytest.raises(ValueError) as e:
        normalise_options({"secret": s3.secret_key, "nonsense_option": s3.secret_key})
    assert s3.secret_key not in str(e.value) and "nonsense_option" in str(e.value)
    # Credentials from the environment, as obstore reads them.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.secret_key)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    assert _rows(pqfast.prune(pa_lake[1], "key", vals, storage_options={"endpoint": proxy.endpoint})) == want


def test_latency_proxy_counts_and_delays(pa_lake, opts, proxy):
    import time

    proxy.set_delay(50)
    t0 = time.perf_counter()
    pqfast.prune(pa_lake[1][:1], "id", [1], storage_options=opts)
    elapsed = time.perf_counter() - t0
    st = proxy.stats()
    proxy.set_delay(0)
    assert st["requests"] == 2 and st["bytes_out"] > 0
    assert elapsed >= 0.1  # two requests, each delayed 50 ms: the proxy works as the benchmark assumes


def test_filesystem_path_still_works(pa_lake, s3):
    pafs = pytest.importorskip("pyarrow.fs")
    paths, urls = pa_lake
    fs = pafs.S3FileSystem(access_key=s3.access_key, secret_key=s3.secret_key, endpoint_override=s3.endpoint,
                           scheme="http", region="us-east-1")
    keys = [u[len("s3://"):] for u in urls[:4]]
    vals = _values()["id"]
    got = pqfast.prune(keys, "id", vals, filesystem=fs)
    want = pqfast.prune(paths[:4], "id", vals)
    assert got["verdict"].to_pylist() == want["verdict"].to_pylist()
    assert os.path.basename(got["path"].to_pylist()[0]) == os.path.basename(want["path"].to_pylist()[0])


def test_a_server_that_never_answers_is_an_error_not_a_hang():
    import socket
    import threading
    import time

    from pqfast.remote import prune_remote

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    held = []
    stop = threading.Event()

    def accept():  # takes connections and never answers
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        so = {"endpoint": f"http://127.0.0.1:{srv.getsockname()[1]}", "region": "us-east-1",
              "access_key_id": "a", "secret_access_key": "b", "timeout": "1s", "max_retries": 1,
              "retry_timeout": 5}
        desc = {"physical_type": "INT64", "type_length": 0, "logical_type": {"kind": 0, "name": ""},
                "converted_type": None, "dotted_path": "id", "scale": 0}
        t0 = time.monotonic()
        with pytest.raises(pqfast.FormatError) as e:
            prune_remote(["s3://lake/a.parquet", "s3://lake/b.parquet"], "id", [1], storage_options=so,
                         descriptor=desc)
        assert time.monotonic() - t0 < 30
        assert "s3://lake/a.parquet" in str(e.value)
    finally:
        stop.set()
        t.join()
        for c in held:
            c.close()
        srv.close()


def test_cli_probe_s3(pa_lake, opts, proxy):
    """`pqfast probe s3://...` with --storage-option: the verdicts of local
    pruning, one GET per file, the secret in no output."""
    import json

    from conftest import run_cli

    paths, urls = pa_lake
    vals = _values()["id"]
    want = pqfast.prune(paths, "id", vals)
    so = [a for k, v in opts.items() for a in ("-o", f"{k}={v}")]
    proc = run_cli("probe", "s3://lake/pa/*.parquet", "--column", "id", "--json", *so, *[str(v) for v in vals])
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["path"], r["row_group"], r["verdict"]) for r in rows] == \
        [(u, g, v) for u, g, v, _ in _local_rows(want, paths, urls)]
    st = proxy.stats()
    assert "HEAD" not in st["methods"], st
    assert st["methods"].get("GET") == N_FILES + 2, st  # the listing, one footer read that types the values, one per file
    # Wrong secret: a clear error, exit 1, the secret nowhere.
    bad = dict(opts, secret_access_key="not-the-secret-1234")
    so = [a for k, v in bad.items() for a in ("-o", f"{k}={v}")]
    proc = run_cli("probe", "s3://lake/pa/*.parquet", "--column", "id", *so, "5", check=False)
    assert proc.returncode == 1, proc.stderr
    assert "error:" in proc.stderr and "Traceback" not in proc.stderr
    assert "not-the-secret-1234" not in proc.stderr + proc.stdout
    proc = run_cli("probe", "s3://lake/pa/*.parquet", "-o", "nokey", "--column", "id", "5", check=False)
    assert proc.returncode != 0 and "KEY=VALUE" in proc.stderr


def test_partitions_are_listed_in_parallel(s3, pa_lake, opts, proxy):
    """lake/date=*/part-*.parquet: one delimiter listing finds the partitions,
    each matching one is listed (in parallel), the others not at all; the
    verdicts are those of local pruning, in key order."""
    from pqfast import _testlake

    paths, _ = pa_lake
    store = s3.store()
    parts = {"date=2026-01": paths[0:4], "date=2026-02": paths[4:8], "date=2026-03": paths[8:12]}
    urls = []
    for part, ps in parts.items():
        urls += [f"s3://{s3.bucket}/{k}" for k in _testlake.upload(store, ps, f"parts/{part}")]
    _testlake.upload(store, paths[:2], "parts/other=1")  # not matched by date=*: never listed
    _testlake.upload(store, paths[:1], "parts")  # an object beside the partitions: not matched either
    vals = _values()["key"]
    local = pqfast.prune(paths, "key", vals)
    proxy.reset()
    got = pqfast.prune(f"s3://{s3.bucket}/parts/date=*/part-*.parquet", "key", vals, storage_options=opts)
    assert _rows(got) == _local_rows(local, paths, urls)
    st = proxy.stats()
    # 1 delimiter listing + 3 partition listings + 1 footer read that types the values + 1 GET per file
    assert st["methods"].get("GET") == 1 + 3 + 1 + len(paths), st
    # The same through the sizes Dask and list_sizes use.
    from pqfast import remote

    listed = remote.list_sizes(f"s3://{s3.bucket}/parts/date=2026-0[13]/*.parquet", opts)
    assert [u for u, _ in listed] == urls[:4] + urls[8:]
    assert all(size > 0 for _, size in listed)


def test_listing_of_many_pages_overlaps_pruning(s3, tmp_path, opts, proxy):
    """Past 1,000 objects the listing comes in pages; workers prune the first
    page while the next is listed and wait when they are ahead: every file is
    pruned once, in key order, with the verdicts of local pruning, and the
    progress bar's total follows the listing."""
    import obstore
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pqfast._progress import Progress

    local = tmp_path / "tiny.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2, 3], pa.int64())}), local, bloom_filter_options={"id": True})
    data = local.read_bytes()
    store = s3.store()
    n = 1105

    async def put_all():
        import asyncio

        sem = asyncio.Semaphore(64)

        async def one(i):
            async with sem:
                await obstore.put_async(store, f"pages/f-{i:05d}.parquet", data)

        await asyncio.gather(*(one(i) for i in range(n)))

    from pqfast import remote

    remote.run(put_all())
    want = pqfast.prune(str(local), "id", [2, 7], by_value=True)["verdict"].to_pylist()
    bar = Progress(total=None, label="probe", enabled=False)
    proxy.reset()
    got = pqfast.prune(f"s3://{s3.bucket}/pages/*.parquet", "id", [2, 7], by_value=True, storage_options=opts,
                       progress=bar, concurrency=64)
    paths = got["path"].to_pylist()
    assert paths == sorted(paths) and len(set(paths)) == n
    assert got["verdict"].to_pylist() == want * n
    assert bar.total == n
    st = proxy.stats()
    assert st["methods"].get("GET") == 2 + 1 + n, st  # two listing pages, the typing footer, one per file
