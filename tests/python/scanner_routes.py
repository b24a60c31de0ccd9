"""What the route tests share: fixtures that count reads through the
scanner (filtered: ``routes``, with reads by the dataset scan's route for
comparison; whole: ``routed``)."""

from __future__ import annotations

import pytest

import pqfast
from pqfast import _filtered_scan, _read_local, _read_scan, _scan_whole, scan


@pytest.fixture
def routes(monkeypatch):
    """(calls, other): ``calls`` counts reads through the scanner's lean
    route (_filtered_scan.read_filtered); ``other(...)`` is read_table with
    the lean route declining every read, so through the dataset scan
    (_read_local: a Lake, the scanner's runs), which the lean route must
    equal, counts included."""
    calls = []
    real = _filtered_scan.read_filtered

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(scan, "read_filtered", counting)

    def other(*a, **k):
        with monkeypatch.context() as m:
            m.setattr(_read_local, "lean_scan", lambda *a, **k: None)
            return pqfast.read_table(*a, **k)

    return calls, other


@pytest.fixture
def routed(monkeypatch):
    """Counts whole reads through the scanner (calls of its helpers: a lake
    read file by file counts once, as one read_whole did)."""
    calls = []

    def counter(real):
        def counting(*a, **k):
            calls.append(1)
            got = real(*a, **k)
            if got is None:  # (files that differ: read by read_whole next)
                calls.pop()
            return got
        return counting

    for name in ("read_whole", "read_files"):
        wrapped = counter(getattr(_scan_whole, name))
        monkeypatch.setattr(_scan_whole, name, wrapped)
        monkeypatch.setattr(_read_scan, name, wrapped)
    monkeypatch.setenv(_read_scan.ROUTE_ENV, "scanner")
    return calls
