"""pqfast.prune(..., filesystem=fs) through the filesystem drivers
(pqfast.fs_driver) against a real S3 server (SeaweedFS) behind pqfast's
latency proxy: pyarrow's S3FileSystem, s3fs (async reads), and fsspec's
local filesystem (blocking reads). Same verdicts as local pruning, the
requests per file the proxy counts, clear per-file errors, retries."""

from __future__ import annotations

import os

import pytest

import pqfast

from s3_fixtures import N_FILES, lake_values, opts, pa_lake, proxy, s3  # noqa: F401

_values = lake_values


def _rows(t, by_value=False):
    cols = ["path", "row_group", "verdict", "reason"] + (["value"] if by_value else [])
    out = list(zip(*(t[c].to_pylist() for c in cols)))
    # Paths compared by file name: local paths against bucket/key paths.
    return [(os.path.basename(r[0]),) + r[1:] for r in out]


def _keys(urls):
    return [u[len("s3://"):] for u in urls]  # bucket/key, as both filesystems name objects


@pytest.fixture
def pa_fs(s3, proxy):
    pafs = pytest.importorskip("pyarrow.fs")
    proxy.reset()
    proxy.set_delay(0)
    return pafs.S3FileSystem(access_key=s3.access_key, secret_key=s3.secret_key,
                             endpoint_override=proxy.endpoint.split("://")[1], scheme="http", region="us-east-1")


def _s3fs(s3, proxy, **kw):
    s3fs = pytest.importorskip("s3fs")
    # A fresh instance (no listing cache from another test); a pool as wide
    # as the files in flight (botocore's default is 10 connections).
    return s3fs.S3FileSystem(key=kw.pop("key", s3.access_key), secret=kw.pop("secret", s3.secret_key),
                             endpoint_url=proxy.endpoint, client_kwargs={"region_name": "us-east-1"},
                             config_kwargs={"max_pool_connections": 64}, skip_instance_cache=True, **kw)


@pytest.fixture
def s3_fs(s3, proxy):
    proxy.reset()
    proxy.set_delay(0)
    return _s3fs(s3, proxy)


@pytest.fixture
def file_fs():
    fsspec = pytest.importorskip("fsspec")
    return fsspec.filesystem("file")


@pytest.mark.parametrize("column", ["id", "key"])
def test_pyarrow_s3_equals_local(pa_lake, pa_fs, column):
    paths, urls = pa_lake
    vals = _values()[column]
    want = _rows(pqfast.prune(paths, column, vals))
    assert _rows(pqfast.prune("lake/pa/*.parquet", column, vals, filesystem=pa_fs)) == want
    assert _rows(pqfast.prune(_keys(urls), column, vals, filesystem=pa_fs)) == want
    assert _rows(pqfast.prune("lake/pa", column, vals, filesystem=pa_fs)) == want  # a directory
    assert {"maybe", "absent"} <= set(r[2] for r in want)
    bv = _rows(pqfast.prune(_keys(urls), column, vals, filesystem=pa_fs, by_value=True), True)
    assert bv == _rows(pqfast.prune(paths, column, vals, by_value=True), True)


@pytest.mark.parametrize("column", ["id", "key"])
def test_s3fs_equals_local(pa_lake, s3_fs, column):
    paths, urls = pa_lake
    vals = _values()[column]
    want = _rows(pqfast.prune(paths, column, vals))
    assert _rows(pqfast.prune("lake/pa/*.parquet", column, vals, filesystem=s3_fs)) == want
    s3_fs.invalidate_cache()
    assert _rows(pqfast.prune(_keys(urls), column, vals, filesystem=s3_fs)) == want
    assert _rows(pqfast.prune(urls, column, vals, filesystem=s3_fs, concurrency=3)) == want  # s3:// URLs too
    bv = _rows(pqfast.prune(_keys(urls), column, vals, filesystem=s3_fs, by_value=True), True)
    assert bv == _rows(pqfast.prune(paths, column, vals, by_value=True), True)


@pytest.mark.parametrize("column", ["id", "key"])
def test_fsspec_local_equals_local(pa_lake, file_fs, column):
    paths, _ = pa_lake
    vals = _values()[column]
    want = pqfast.prune(paths, column, vals)
    got = pqfast.prune(paths, column, vals, filesystem=file_fs, threads=3)
    assert got["path"].to_pylist() == want["path"].to_pylist()  # the paths as given
    assert _rows(got) == _rows(want)
    d = os.path.dirname(paths[0])
    assert _rows(pqfast.prune(d + "/*.parquet", column, vals, filesystem=file_fs)) == _rows(want)
    assert _rows(pqfast.prune(d, column, vals, filesystem=file_fs)) == _rows(want)
    assert (_rows(pqfast.prune(paths, column, vals, filesystem=file_fs, by_value=True), True)
            == _rows(pqfast.prune(paths, column, vals, by_value=True), True))


def test_pyarrow_requests_per_file(pa_lake, pa_fs, proxy):
    _, urls = pa_lake
    vals = _values()["id"]
    pqfast.prune("lake/pa/*.parquet", "id", vals, filesystem=pa_fs)
    st = proxy.stats()["methods"]
    # One listing (a GET), then per file one HEAD (pyarrow's open_input_file
    # sends it whatever the caller knows: its Python API opens by path only)
    # and one GET of the tail; the first file's tail, read to type the
    # values, is not read again.
    assert st == {"GET": N_FILES + 1, "HEAD": N_FILES}, st
    proxy.reset()
    pqfast.prune(_keys(urls), "id", vals, filesystem=pa_fs)
    st = proxy.stats()["methods"]
    assert st == {"GET": N_FILES, "HEAD": N_FILES}, st  # explicit paths: no listing, no existence check


def test_s3fs_requests_per_file(pa_lake, s3_fs, proxy):
    _, urls = pa_lake
    vals = _values()["key"]
    pqfast.prune("lake/pa/*.parquet", "key", vals, filesystem=s3_fs)
    st = proxy.stats()["methods"]
    assert st == {"GET": N_FILES + 1}, st  # one listing, one ranged GET per file, no HEAD
    # Explicit paths: one listing of their parent gives the sizes...
    s3_fs.invalidate_cache()
    proxy.reset()
    pqfast.prune(_keys(urls), "key", vals, filesystem=s3_fs)
    assert proxy.stats()["methods"] == {"GET": N_FILES + 1}
    # ... or s3fs's listing cache does, when it holds the parent.
    proxy.reset()
    pqfast.prune(_keys(urls), "key", vals, filesystem=s3_fs)
    assert proxy.stats()["methods"] == {"GET": N_FILES}
    # One path per parent: its size from an info (a HEAD), made with the reads.
    s3_fs.invalidate_cache()
    proxy.reset()
    pqfast.prune(_keys(urls)[:1], "key", vals, filesystem=s3_fs)
    assert proxy.stats()["methods"] == {"HEAD": 1, "GET": 1}


def _put_broken(s3, paths, prefix):
    """ok.parquet, half.parquet (truncated) under prefix; gone.parquet never exists."""
    import obstore

    store = s3.store()
    with open(paths[3], "rb") as f:
        data = f.read()
    obstore.put(store, f"{prefix}/ok.parquet", data)
    obstore.put(store, f"{prefix}/half.parquet", data[: len(data) // 2])
    return [f"lake/{prefix}/ok.parquet", f"lake/{prefix}/gone.parquet", f"lake/{prefix}/half.parquet"], data


@pytest.mark.parametrize("kind", ["pyarrow", "s3fs"])
def test_missing_and_truncated_objects(pa_lake, s3, proxy, pa_fs, kind):
    paths, _ = pa_lake
    fs = pa_fs if kind == "pyarrow" else _s3fs(s3, proxy)
    names, data = _put_broken(s3, paths, f"broken-{kind}")
    ok, gone, half = names
    vals = _values()["id"]
    got = pqfast.prune(names, "id", vals, filesystem=fs, on_error="skip")
    assert set(got["path"].to_pylist()) == {ok}
    assert [r[1:] for r in _rows(got)] == [r[1:] for r in _rows(pqfast.prune(paths[3:4], "id", vals))]
    for name, words in ((gone, ("not found",)), (half, ("magic", "footer", "truncated", "too short"))):
        with pytest.raises(pqfast.FormatError) as e:
            pqfast.prune([ok, name], "id", vals, filesystem=fs)
        msg = str(e.value)
        assert name in msg and any(w in msg for w in words), msg
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.prune([ok, gone, half], "id", vals, filesystem=fs)
    assert "and 1 more files" in str(e.value)
    # No readable file at all: says so.
    with pytest.raises(pqfast.FormatError, match="no readable file"):
        pqfast.prune([gone, half], "id", vals, filesystem=fs, on_error="skip")


def test_object_shorter_than_its_listed_size(pa_lake, s3, proxy):
    """The object changed between listing and reading: an error for that file, no hang."""
    from pqfast.fs_driver import prune_filesystem

    paths, _ = pa_lake
    fs = _s3fs(s3, proxy)
    (ok, _gone, half), data = _put_broken(s3, paths, "shrunk")
    vals = _values()["id"]
    sizes = {ok: len(data), half: len(data)}  # half's listing said the whole file
    t = prune_filesystem([ok, half], "id", vals, fs, sizes=sizes, on_error="skip")
    assert set(t["path"].to_pylist()) == {ok}
    with pytest.raises(pqfast.FormatError) as e:
        prune_filesystem([ok, half], "id", vals, fs, sizes=sizes)
    assert half in str(e.value), str(e.value)


def test_fsspec_local_missing_and_truncated(pa_lake, file_fs, tmp_path):
    paths, _ = pa_lake
    with open(paths[3], "rb") as f:
        data = f.read()
    half = tmp_path / "half.parquet"
    half.write_bytes(data[: len(data) // 2])
    gone = str(tmp_path / "gone.parquet")
    vals = _values()["id"]
    got = pqfast.prune([paths[3], gone, str(half)], "id", vals, filesystem=file_fs, on_error="skip")
    assert got["path"].to_pylist() == [paths[3]] * 4
    assert _rows(got) == _rows(pqfast.prune(paths[3:4], "id", vals))
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.prune([paths[3], gone], "id", vals, filesystem=file_fs)
    assert gone in str(e.value) and "not found" in str(e.value)


@pytest.mark.parametrize("kind", ["pyarrow", "s3fs"])
def test_throttling_is_retried(pa_lake, s3, proxy, pa_fs, kind):
    paths, urls = pa_lake
    fs = pa_fs if kind == "pyarrow" else _s3fs(s3, proxy)
    vals = _values()["id"]
    want = _rows(pqfast.prune(paths, "id", vals))
    # pyarrow's default retry strategy makes 3 attempts (AwsStandardS3RetryStrategy);
    # s3fs retries SlowDown and 5xx answers 5 times (botocore's retries below that).
    failures = 2 if kind == "pyarrow" else 4
    for status in (503, 500):
        if kind == "s3fs":
            fs.invalidate_cache()
        proxy.reset()
        proxy.fail_next(failures, status=status)
        assert _rows(pqfast.prune(_keys(urls), "id", vals, filesystem=fs)) == want
        st = proxy.stats()
        assert st["injected"] == failures, st
    if kind == "pyarrow":
        # More failures than attempts: a clear per-file error, not a hang.
        proxy.reset()
        proxy.fail_next(3, status=503)
        with pytest.raises(pqfast.FormatError, match="503"):
            pqfast.prune(_keys(urls)[:1], "id", vals, filesystem=fs)


def test_wrong_credentials_no_secret_in_messages(pa_lake, s3, proxy, capsys):
    pafs = pytest.importorskip("pyarrow.fs")
    _, urls = pa_lake
    secret = "not-the-secret-" + "y" * 16
    fss = [pafs.S3FileSystem(access_key=s3.access_key, secret_key=secret, scheme="http", region="us-east-1",
                             endpoint_override=proxy.endpoint.split("://")[1]),
           _s3fs(s3, proxy, secret=secret)]
    for fs in fss:
        for on_error in ("raise", "skip"):
            with pytest.raises(pqfast.FormatError) as e:
                pqfast.prune(_keys(urls)[:3], "id", [1], filesystem=fs, on_error=on_error, progress=True)
            msg = str(e.value)
            assert any(k in msg for k in _keys(urls)[:3]) and secret not in msg and s3.secret_key not in msg, msg
            assert any(w in msg.lower() for w in ("denied", "403", "signature", "forbidden")), msg
        with pytest.raises(pqfast.FormatError) as e:  # the listing itself refused
            pqfast.prune("lake/pa/*.parquet", "id", [1], filesystem=fs)
        assert "lake/pa/*.parquet: cannot list" in str(e.value) and secret not in str(e.value), str(e.value)
        from pqfast.fs_driver import secrets_of

        assert secret in secrets_of(fs)  # what is masked, for pyarrow and s3fs alike
    out = capsys.readouterr()
    assert secret not in out.err + out.out


def test_secret_masking():
    from pqfast.fs_driver import describe_error, secrets_of

    class FS:
        storage_options = {"key": "AKIDEXAMPLE", "secret": "s3cr3t-value-123",
                           "client_kwargs": {"aws_session_token": "tok-456789"}}

    sec = secrets_of(FS())
    assert "s3cr3t-value-123" in sec and "tok-456789" in sec and "AKIDEXAMPLE" not in sec
    e = PermissionError("signature for s3cr3t-value-123 with tok-456789 refused")
    line = describe_error(e, sec)
    assert line.startswith("access denied: ") and "s3cr3t" not in line and "tok-456789" not in line


def test_empty_pattern_and_unsupported_object(s3_fs):
    t = pqfast.prune("lake/no-such-prefix/*.parquet", "id", [1], filesystem=s3_fs)
    assert t.num_rows == 0 and t.column_names == ["path", "row_group", "verdict", "reason"]
    with pytest.raises(TypeError):
        pqfast.prune(["a.parquet"], "id", [1], filesystem=object())


@pytest.mark.parametrize("kind", ["pyarrow", "s3fs"])
def test_missing_bucket_is_a_per_file_error(s3, proxy, pa_fs, kind):
    fs = pa_fs if kind == "pyarrow" else _s3fs(s3, proxy)
    names = ["no-such-bucket-pqfast/a.parquet", "no-such-bucket-pqfast/b.parquet"]
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.prune(names, "id", [1], filesystem=fs)
    assert names[0] in str(e.value) and "not found" in str(e.value), str(e.value)


def test_bench_baseline_is_the_old_path(pa_lake, pa_fs, proxy):
    """`pqfast bench lake`'s "today" row: the per-file path pqfast.prune took
    before the drivers (same answers; a HEAD per listed path, then HEAD + GET)."""
    from pqfast.benches.lake import old_filesystem_prune

    paths, urls = pa_lake
    vals = _values()["id"]
    got = old_filesystem_prune(_keys(urls)[:4], "id", vals, pa_fs)
    assert _rows(got) == _rows(pqfast.prune(paths[:4], "id", vals))
    st = proxy.stats()["methods"]
    assert st["HEAD"] >= 2 * 4 and st["GET"] >= 4, st
