"""A loopback HTTP/1.1 proxy for tests and benchmarks: adds a fixed delay
before forwarding each request (a cloud store's first-byte latency; this
kernel has no tc netem), counts requests by method and bytes, and can
answer the next requests itself with an error (503 SlowDown) to test
retries. Listens on 127.0.0.1 only; forwards only to 127.0.0.1.

    python -m pqfast._latency_proxy --upstream-port 8333 --delay-ms 20
    # prints "port N", then serves; control: GET /__proxy/stats | reset |
    # delay?ms=X | fail?count=N&status=503 (not counted, not forwarded)

Each client connection gets its own upstream connection: requests are
parsed (to delay and count them), responses are piped back as bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from urllib.parse import parse_qs, urlsplit

MAX_HEAD = 64 * 1024


class Proxy:
    def __init__(self, upstream_port: int, delay_ms: float):
        self.upstream_port = upstream_port
        self.delay = delay_ms / 1000.0
        self.fail_count = 0
        self.fail_status = 503
        self.reset()

    def reset(self) -> dict:
        self.requests = 0
        self.methods: dict[str, int] = {}
        self.bytes_out = 0
        self.bytes_in = 0
        self.injected = 0
        return {"ok": True}

    def stats(self) -> dict:
        return {"requests": self.requests, "methods": dict(self.methods), "bytes_out": self.bytes_out,
                "bytes_in": self.bytes_in, "injected": self.injected, "delay_ms": self.delay * 1000}

    def control(self, target: str) -> dict:
        u = urlsplit(target)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        what = u.path[len("/__proxy/"):]
        if what == "stats":
            return self.stats()
        if what == "reset":
            return self.reset()
        if what == "delay":
            self.delay = float(q["ms"]) / 1000.0
            return {"ok": True}
        if what == "fail":
            self.fail_count = int(q.get("count", "1"))
            self.fail_status = int(q.get("status", "503"))
            return {"ok": True}
        return {"error": f"unknown control {what!r}"}

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_w = None
        pump = None
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                first, _, rest = head.partition(b"\r\n")
                parts = first.split(b" ")
                if len(parts) != 3:
                    return
                method, target = parts[0].decode("latin-1"), parts[1].decode("latin-1")
                length = 0
                for line in rest.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                    elif name.strip().lower() == b"transfer-encoding":
                        return  # chunked uploads are not used through the proxy
                body = await reader.readexactly(length) if length else b""
                if target.startswith("/__proxy/"):
                    payload = json.dumps(self.control(target)).encode()
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                                 + str(len(payload)).encode() + b"\r\n\r\n" + payload)
                    await writer.drain()
                    continue
                self.requests += 1
                self.methods[method] = self.methods.get(method, 0) + 1
                self.bytes_in += len(head) + len(body)
                if self.delay:
                    await asyncio.sleep(self.delay)
                if self.fail_count > 0:
                    self.fail_count -= 1
                    self.injected += 1
                    code = self.fail_status
                    xml = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code>'
                           b"<Message>Please reduce your request rate.</Message></Error>")
                    resp = (f"HTTP/1.1 {code} {'Slow Down' if code == 503 else 'Error'}\r\n"
                            f"Content-Type: application/xml\r\nContent-Length: {len(xml)}\r\n\r\n").encode() + xml
                    self.bytes_out += len(resp)
                    writer.write(resp)
                    await writer.drain()
                    continue
                if up_w is None:
                    up_r, up_w = await asyncio.open_connection("127.0.0.1", self.upstream_port)
                    pump = asyncio.ensure_future(self._pump(up_r, writer))
                up_w.write(head + body)
                await up_w.drain()
        finally:
            if up_w is not None:
                up_w.close()
            if pump is not None:
                try:
                    await asyncio.wait_for(pump, 5)
                except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                    pump.cancel()
            writer.close()

    async def _pump(self, up_r: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                data = await up_r.read(256 * 1024)
                if not data:
                    break
                self.bytes_out += len(data)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


async def _main(args) -> None:
    proxy = Proxy(args.upstream_port, args.delay_ms)
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", args.port, limit=MAX_HEAD, backlog=4096)
    port = server.sockets[0].getsockname()[1]
    sys.stdout.write(f"port {port}\n")
    sys.stdout.flush()
    async with server:
        await server.serve_forever()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--upstream-port", type=int, required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--delay-ms", type=float, default=0.0)
    runner = asyncio.run
    try:  # uvloop when installed: half the proxy's CPU per request, left to the client and server
        import uvloop

        runner = uvloop.run
    except ImportError:
        pass
    try:
        runner(_main(ap.parse_args()))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
