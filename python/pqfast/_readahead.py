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

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator


class Readahead:
    """Iterates ``run(unit)`` for each ``(unit, estimated bytes)`` of
    `units` (an iterable, drawn from only as units are started: a plan made
    lazily stays lazy), in order.

    ``size_of(result)`` measures a finished result (bytes); ``ahead`` is
    the most units started and not yet consumed (1: no readahead)."""

    def __init__(self, units: Iterable[tuple[Any, int]], run: Callable[[Any], Any], budget: int, ahead: int,
                 size_of: Callable[[Any], int]):
        self._units = iter(units)
        self._run = run
        self._budget = max(1, int(budget))
        self._ahead = max(1, int(ahead))
        self._size_of = size_of
        self._pool = None
        self._futures: dict[int, Future] = {}
        self._held: dict[int, int] = {}  # unit -> bytes counted against the budget
        self._peeked = None  # the next (unit, estimate), drawn but not started
        self._exhausted = False
        self._next_start = 0
        self._next_out = 0
        self._closed = False
        self.peak_held = 0  # the most bytes ever counted at once (for tests and stats)
        self.started = 0

    # -- scheduling --------------------------------------------------------

    def _peek(self):
        if self._peeked is None and not self._exhausted:
            try:
                u, e = next(self._units)
                self._peeked = (u, max(0, int(e)))
            except StopIteration:
                self._exhausted = True
        return self._peeked

    def _top_up(self) -> None:
        while len(self._futures) < self._ahead and not self._closed:
            nxt = self._peek()
            if nxt is None:
                return
            unit, est = nxt
            held = sum(self._held.values())
            if self._held and held + est > self._budget:
                return
            i = self._next_start
            self._peeked = None
            self._held[i] = est
            self.peak_held = max(self.peak_held, held + est)
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self._ahead)
            self._futures[i] = self._pool.submit(self._run, unit)
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
                self._top_up()
                yield result
                # Consumed: its bytes are the consumer's now.
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
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
