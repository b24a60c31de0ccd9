"""Requests a remote read makes, counted by round: what
``read_table(..., stats=True)`` reports of an ``s3://`` or ``filesystem=``
read (``requests``, ``bytes_fetched``, ``rounds``, ``round_detail``).

A :class:`Fetcher` reads ranges of one store's I/O (``remote.ObjectStoreIO``,
``fs_driver.FilesystemIO``) and
counts each request under the name of its round: ``listing``, ``tails``
(the footers planning reads), ``sidecar`` (a sidecar index's manifest),
then the streaming scanner's rounds ``data 1``, ``data 2``...
The scanner's rounds are numbered by dependency: a range asked before any
of the scan's own reads came back is in round 1; one asked after reads of
round k came back, in round k + 1 (an upper bound on the round trips in
sequence: a lookup's are its Bloom blocks, then the filter column's pages,
then the projected pages). A round's figures sum its requests and bytes;
its ms span its first request to its last answer.

I/O layer: imports nothing of the package.
"""

from __future__ import annotations

import re
import threading
import time

LISTING, TAILS, SIDECAR = "listing", "tails", "sidecar"


def data_round(depth: int) -> str:
    """The name of the scanner's round `depth` (1-based)."""
    return f"data {depth}"


def _round_order(r: dict):
    m = re.fullmatch(r"data (\d+)", r["what"])
    if m is not None:
        return (3, int(m.group(1)))
    return ({LISTING: 0, TAILS: 1, SIDECAR: 2}.get(r["what"], 3), 0)


class Fetcher:
    """Ranged reads of one store's I/O, counted by round (see the module's
    doc). Reads on the I/O's loop go through :meth:`get` / :meth:`suffix`;
    blocking reads made elsewhere (a lake's footers on a pool of threads)
    are counted by :meth:`count`. Thread-safe."""

    def __init__(self, io=None):
        self.io = io
        self.steps: dict[str, dict] = {}
        self._lock = threading.Lock()

    def over(self, io) -> "Fetcher":
        """A fetcher of `io` counting into this one's rounds."""
        f = Fetcher(io)
        f.steps, f._lock = self.steps, self._lock
        return f

    def step(self, what: str) -> dict:
        with self._lock:
            r = self.steps.get(what)
            if r is None:
                r = self.steps[what] = {"what": what, "requests": 0, "bytes": 0, "ms": 0.0, "_t0": None,
                                        "_t1": None}
            return r

    def _started(self, rnd: dict, t: float | None = None) -> None:
        t = time.perf_counter() if t is None else t
        with self._lock:
            if rnd["_t0"] is None or t < rnd["_t0"]:
                rnd["_t0"] = t
            rnd["requests"] += 1

    def _done(self, rnd: dict, nbytes: int, t: float | None = None) -> None:
        t = time.perf_counter() if t is None else t
        with self._lock:
            rnd["bytes"] += nbytes
            rnd["_t1"] = max(rnd["_t1"] or 0.0, t)

    def count(self, what: str, requests: int, nbytes: int, t0: float, t1: float) -> None:
        """Requests made outside this fetcher (blocking, or a listing's
        pages), `t0` to `t1` (time.perf_counter)."""
        rnd = self.step(what)
        for _ in range(requests):
            self._started(rnd, t0)
        self._done(rnd, nbytes, t1)

    async def get(self, what: str, key: str, offset: int, length: int) -> bytes:
        rnd = self.step(what)
        self._started(rnd)
        data = await self.io.read(key, offset, length)
        self._done(rnd, len(data))
        return data

    async def suffix(self, what: str, key: str, n: int):
        """(object size, its last n bytes or fewer)."""
        rnd = self.step(what)
        self._started(rnd)
        size, data = await self.io.suffix(key, n)
        self._done(rnd, len(data))
        return size, data

    def detail(self) -> list[dict]:
        """The rounds with requests: the listing, the tails, a sidecar's,
        then the scanner's in order."""
        out = []
        with self._lock:
            for r in sorted(self.steps.values(), key=_round_order):
                if r["requests"]:
                    ms = (r["_t1"] - r["_t0"]) * 1e3 if r["_t0"] is not None and r["_t1"] is not None else 0.0
                    out.append({"what": r["what"], "requests": r["requests"], "bytes": r["bytes"],
                                "ms": round(ms, 1)})
        return out

    def totals(self) -> dict:
        """``rounds``, ``round_detail``, ``requests`` and ``bytes_fetched``
        (read_table(stats=True)'s names)."""
        detail = self.detail()
        return {"rounds": len(detail), "round_detail": detail, "requests": sum(r["requests"] for r in detail),
                "bytes_fetched": sum(r["bytes"] for r in detail)}
