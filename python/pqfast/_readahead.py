"""Ordered, bounded readahead: the units of a scan read on a pool of threads,
handed back in order, with the bytes read but not yet consumed kept within
a budget.

A scan is a list of units (a row group, or files and row groups for one
filtered engine call), each with an estimate of the bytes its result holds
(from the footers). A unit is started only while the estimates of the
units started and not yet consumed, plus its own, fit the budget (the next
unit in order always starts when nothing else is held, so a unit larger
than the budget is read alone, never refused here: the native read's own
``memory_limit`` says whether it fits). When a unit finishes, its estimate
is replaced by what its result really holds, so a selective filter lets
the next units start at once.

Scheduling happens on the consumer's thread, when it asks for the next
result: no thread of ours outlives the consumer. A consumer that stops
(``close()``, or the generator dropped) cancels the units not started; the
ones running finish and are dropped. A unit's exception is raised in the
consumer, at that unit's place in the order.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator

# One pool for every scan's units, its threads started once (a lookup that
# reads one unit would otherwise start a thread for it: a tenth of its
# time). A unit never waits for another, so scans sharing it all progress.
_POOL = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max(8, os.cpu_count() or 1), thread_name_prefix="pqfast-scan")
        return _POOL


class Readahead:
    """Iterates ``run(unit)`` for each ``(unit, estimated bytes)`` of
    `units` (an iterable, drawn from only as units are started: a plan made
    lazily stays lazy), in order.

    ``size_of(result)`` measures a finished result (bytes); ``ahead`` is
    the most units started and not yet consumed, the one being consumed
    included (1: no readahead)."""

    def __init__(self, units: Iterable[tuple[Any, int]], run: Callable[[Any], Any], budget: int, ahead: int,
                 size_of: Callable[[Any], int]):
        self._units = iter(units)
        self._run = run
        self._budget = max(1, int(budget))
        self._ahead = max(1, int(ahead))
        self._size_of = size_of
        self._futures: dict[int, Future] = {}
        self._held: dict[int, int] = {}  # unit -> bytes counted against the budget
        self._queue: list = []  # the next (unit, estimate)s, drawn but not started
        self._exhausted = False
        self._next_start = 0
        self._next_out = 0
        self._closed = False
        self._consuming = False  # a unit handed to the consumer (counts as not consumed yet)
        self.peak_held = 0  # the most bytes ever counted at once (for tests and stats)
        self.started = 0

    # -- scheduling --------------------------------------------------------

    def _peek(self, k: int = 0):
        """The k-th unit not started yet, or None."""
        while len(self._queue) <= k and not self._exhausted:
            try:
                u, e = next(self._units)
                self._queue.append((u, max(0, int(e))))
            except StopIteration:
                self._exhausted = True
        return self._queue[k] if len(self._queue) > k else None

    def _start(self, unit) -> Future:
        """Unit started: on the pool, or, when it is the one the consumer
        waits for and no other would overlap it (no readahead, or the last
        unit), here (a lookup's one engine call pays no thread hand-off)."""
        if not self._futures and not self._consuming and (self._ahead == 1 or self._peek(1) is None):
            f: Future = Future()
            try:
                f.set_result(self._run(unit))
            except BaseException as e:  # noqa: BLE001 - raised in the consumer, as a worker's would be
                f.set_exception(e)
            return f
        return _pool().submit(self._run, unit)

    def _top_up(self) -> None:
        # Until the first result is out, one unit alone: the first batch comes
        # in the time of one unit, not of `ahead` units sharing the cores.
        ahead = self._ahead if self._next_out else 1
        while len(self._futures) + self._consuming < ahead and not self._closed:
            nxt = self._peek()
            if nxt is None:
                return
            unit, est = nxt
            held = sum(self._held.values())
            if self._held and held + est > self._budget:
                return
            i = self._next_start
            self._held[i] = est
            self.peak_held = max(self.peak_held, held + est)
            self._futures[i] = self._start(unit)
            self._queue.pop(0)
            self._next_start += 1
            self.started += 1

    def _measured(self, i: int, result: Any) -> None:
        """Unit i's estimate replaced by its result's size."""
        self._held[i] = max(0, int(self._size_of(result)))
        self.peak_held = max(self.peak_held, sum(self._held.values()))

    # -- consuming -----------------------------------------------------------

    def __iter__(self) -> Iterator[Any]:
        return self._results()

    def _results(self) -> Iterator[Any]:
        try:
            while True:
                i = self._next_out
                self._top_up()
                if i not in self._futures:
                    return  # (every unit consumed)
                result = self._futures.pop(i).result()
                self._measured(i, result)
                self._next_out += 1
                self._consuming = True
                self._top_up()
                yield result
                # Consumed: its bytes are the consumer's now.
                self._consuming = False
                self._held.pop(i, None)
        finally:
            self.close()

    def close(self) -> None:
        """Cancels the units not started; running ones finish, unread."""
        if self._closed:
            return
        self._closed = True
        for f in self._futures.values():
            f.cancel()
        self._futures.clear()
        self._held.clear()
