"""``pqfast.index(..., sidecar=...)``: the tails ``index`` would append to each
data file, written into one sidecar index instead (format in
``pqfast._sidecar``), the data files left as they are.

Per data file: its fingerprint, then the plan of the file as readers will
see it, data file + the tail the old sidecar holds for it when that entry is
still fresh (so a second run adds nothing, and a new column goes after the
old tail, as a second in-place run would append it), then the fingerprint
again (a file changed while it was planned is left out: "conflict"). One
place is local (``LocalTarget``), the other S3 (``S3Target``):
how files are named, fingerprinted, planned and the sidecar written.
"""

from __future__ import annotations

import os
import posixpath
import time
from typing import Any

from . import _index_s3, _pqfast, remote, _sidecar, _sidecar_s3
from ._index_run import IndexSummary, _per_file
from ._index_s3 import Conflict, object_reader, _precondition_failed
from ._paths import expand_paths
from ._progress import Progress

_PLAN_KEYS = ("chunks_indexed", "chunks_had_filter", "chunks_unsupported", "chunks_from_dictionary",
              "offset_indexes", "column_indexes")


class LocalTarget:
    """A local lake's sidecar: ``_pqfast_index`` in the source directory or
    the files' common parent, or the path given."""

    def __init__(self, source, sidecar):
        self.paths = [os.path.abspath(p) for p in expand_paths(source)]
        if sidecar is True:
            if isinstance(source, (str, os.PathLike)) and os.path.isdir(source):
                base = os.path.abspath(source)
            else:
                base = os.path.commonpath([os.path.dirname(p) for p in self.paths]) if self.paths else os.getcwd()
            self.location = os.path.join(base, _sidecar.DEFAULT_NAME)
        else:
            if isinstance(sidecar, str) and "://" in sidecar:
                raise ValueError(f"sidecar= for local files must be a local path, not {sidecar!r}")
            self.location = os.path.abspath(os.fspath(sidecar))
        self.dir = os.path.dirname(self.location)
        self.old = None
        self.identity = None  # of the sidecar read: checked again before the new one replaces it

    def files(self) -> list[str]:
        return self.paths

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.dir).replace(os.sep, "/")

    def load_old(self):
        self.identity = _sidecar.identity(self.location)
        if self.identity is None:
            return None
        try:
            self.old = _sidecar.read(self.location)
        except (OSError, _pqfast.FormatError):
            return None  # rebuilt whole
        return self.old.files

    def fingerprint(self, path: str) -> dict:
        return _sidecar.fingerprint(path)

    def plan(self, path: str, fp: dict, e, cols, fpp, ndv, page_index, threads):
        tail = (e.size, e.offset, e.length) if e is not None else None
        return _pqfast._plan_index_path(os.fsencode(path), cols, fpp, ndv, page_index,
                                        self.location if e is not None else None, tail, threads)

    def old_part(self, e):
        return (self.location, e.offset, e.length)

    def still_fresh(self, rel: str, e) -> bool:
        return self.old is not None and self.old.fresh(rel)

    def write(self, entries: list) -> int:
        return _sidecar.write(self.location, entries, expect=self.identity)



class S3Target:
    """The sidecar of objects on S3, for _index_sidecar.build: objects named
    by their URLs, fingerprinted by a HEAD (size, ETag), planned over ranged
    GETs conditional on that ETag (a change meanwhile: left out, "conflict"),
    the sidecar put whole, conditional on the ETag of the one it replaces."""

    def __init__(self, source: Any, sidecar: Any, storage_options: dict | None):
        _, items = remote.resolve(source, storage_options)
        self.keys = {u: k for u, k, _ in items}
        self.client = _index_s3.make_client(storage_options)
        self.bucket, self.key = _sidecar_s3.location(source, sidecar)
        self.location = f"s3://{self.bucket}/{self.key}"
        self.old_bytes = b""
        self.old_etag = None

    def files(self) -> list[str]:
        return list(self.keys)

    def rel(self, url: str) -> str:
        return _sidecar_s3.rel(self.key, self.keys[url])

    def load_old(self):
        try:
            r = self.client.get_object(Bucket=self.bucket, Key=self.key)
        except Exception as e:  # noqa: BLE001 - a missing sidecar is a new one
            if getattr(e, "response", {}).get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise
        self.old_bytes, self.old_etag = r["Body"].read(), r["ETag"]
        try:
            mlen = _sidecar.manifest_length(self.old_bytes[:_sidecar.HEADER], len(self.old_bytes), self.location)
            return _sidecar.parse_manifest(self.old_bytes[_sidecar.HEADER:_sidecar.HEADER + mlen],
                                           len(self.old_bytes), self.location)
        except _pqfast.FormatError:
            return None  # rebuilt whole

    def _head(self, key: str) -> dict:
        h = self.client.head_object(Bucket=self.bucket, Key=key)
        return {"size": int(h["ContentLength"]), "etag": _sidecar_s3.etag(h["ETag"])}

    def fingerprint(self, url: str) -> dict:
        return self._head(self.keys[url])

    def plan(self, url: str, fp: dict, e, cols, fpp, ndv, page_index, threads):
        changed: list = []
        read_object = object_reader(self.client, self.bucket, self.keys[url], f'"{fp["etag"]}"', {"get": 0,
                                                                                               "get_bytes": 0},
                                    changed)
        base = fp["size"]
        read_at = read_object
        if e is not None:
            tail = self.old_bytes[e.offset:e.offset + e.length]

            def read_at(off: int, n: int) -> bytes:
                out = read_object(off, min(n, base - off)) if off < base else b""
                lo = max(off, base) - base
                return out + tail[lo:lo + n - len(out)]

        try:
            return _pqfast._plan_index(read_at, base + (e.length if e is not None else 0), url, cols, fpp, ndv,
                                       page_index, threads)
        except (_pqfast.FormatError, Conflict):
            if changed:
                raise Changed() from None
            raise

    def old_part(self, e) -> bytes:
        return self.old_bytes[e.offset:e.offset + e.length]

    def still_fresh(self, rel_key: str, e) -> bool:
        key = posixpath.normpath(posixpath.join(posixpath.dirname(self.key), rel_key))
        try:
            h = self._head(key)
        except Exception:  # noqa: BLE001 - gone or unreadable: dropped
            return False
        return _sidecar_s3.fresh(e, h["size"], h["etag"])

    def write(self, entries: list) -> int:
        head, total = _sidecar.encode(entries)
        body = b"".join([head] + [bytes(p) for _, _, parts in entries for p in parts])
        assert len(body) == total
        kw = {"IfMatch": self.old_etag} if self.old_etag else {}
        try:
            self.client.put_object(Bucket=self.bucket, Key=self.key, Body=body, **kw)
        except Exception as e:  # noqa: BLE001

            if _precondition_failed(e):
                raise _pqfast.FormatError(f"{self.location}: replaced by another writer while this index was "
                                          f"built; run pqfast.index again") from None
            raise
        return total


class Changed(Exception):
    """The data file changed while it was planned: left out of the sidecar."""


def entry_fingerprint(e) -> dict:
    """The fingerprint an entry recorded, as fingerprint() gives it."""
    if e.etag is not None:
        return {"size": e.size, "etag": e.etag}
    return {"size": e.size, "mtime_ns": e.mtime_ns, "tail_xxh64": e.tail_xxh64}


def _same(a: dict, b: dict) -> bool:
    return all(a.get(k) == b.get(k) for k in ("size", "mtime_ns", "tail_xxh64", "etag"))


def build(target, cols, fpp: float, ndv: int, page_index: bool, threads, progress, on_error: str,
          dry_run: bool, start: float) -> IndexSummary:
    """Plans every file of ``target`` and writes its sidecar (unless nothing
    changed, or ``dry_run``)."""
    summary = IndexSummary(dry_run=dry_run)
    summary.sidecar = target.location
    files = target.files()
    old = target.load_old()
    bar = None
    if progress is not None and progress is not False:
        bar = progress if isinstance(progress, Progress) else Progress(total=len(files), label="index")
    inner_threads = max(1, (threads or os.cpu_count() or 1) // max(1, len(files)))

    def one(f):
        rel = target.rel(f)
        try:
            fp = target.fingerprint(f)
            e = old.get(rel) if old else None
            if e is not None and not _same(entry_fingerprint(e), fp):
                e = None  # stale: planned afresh
            plan, tail = target.plan(f, fp, e, cols, fpp, ndv, page_index, inner_threads)
            if not _same(fp, target.fingerprint(f)):
                raise Changed()
        except Changed:
            return f, (rel, None, None, None, e), None
        except (_pqfast.FormatError, OSError) as err:
            return f, None, err
        parts = ([target.old_part(e)] if e is not None else []) + ([bytes(tail)] if tail else [])
        return f, (rel, fp, parts, plan, e), None

    entries, failures, changed = [], [], old is None
    seen = set()
    for f, (rel, fp, parts, plan, e) in _per_file(files, one, threads, bar, summary, failures):
        seen.add(rel)
        summary.files_unchanged += 1  # data files are never touched with a sidecar
        if fp is None:
            summary.files_conflict += 1
            summary.details.append({"path": f, "outcome": "conflict", "tail_bytes": 0})
            changed = True
            continue
        entries.append((rel, fp, parts))
        for k in _PLAN_KEYS:
            setattr(summary, k, getattr(summary, k) + plan[k])
        grown = plan["chunks_indexed"] > 0 or e is None
        changed = changed or grown
        summary.details.append({"path": f, "outcome": "indexed" if grown else "unchanged",
                                "tail_bytes": sum(len(p) if isinstance(p, bytes) else p[2] for p in parts),
                                "chunks": plan["chunks"]})
    if bar is not None:
        bar.close()
    if failures and on_error == "raise":
        raise failures[0]
    # Entries of files outside this run that are still fresh are kept.
    for rel, e in (old or {}).items():
        if rel in seen:
            continue
        if target.still_fresh(rel, e):
            entries.append((rel, entry_fingerprint(e), [target.old_part(e)]))
        else:
            changed = True  # dropped
    entries.sort(key=lambda x: x[0])
    if changed:  # (a dry run says how large the sidecar would be)
        summary.bytes_appended = _sidecar.encode(entries)[1] if dry_run else target.write(entries)
    summary.seconds = time.perf_counter() - start
    return summary

