"""Pruning lakes on object storage: the remote driver over the sans-IO core.

    pqfast.prune("s3://bucket/lake/*.parquet", "user_id", [42],
                 storage_options={"endpoint": "http://127.0.0.1:9000", "region": "us-east-1",
                                  "access_key_id": "...", "secret_access_key": "..."})

Built for latency: object sizes come from the listing (no HEAD per file, no
existence check); each file costs one GET of its tail, sized by the footers
seen so far so that the footer and the Bloom filters written just before it
arrive together; filters elsewhere (after each row group, as arrow-rs
writes them) come in one coalesced range request. Hundreds of files are in
flight on obstore's async client (the Rust object_store of arrow-rs and
DataFusion), which retries throttling and 5xx answers with backoff. A
file's error (missing, denied, truncated) is reported like a local file's.
Explicit URLs (no pattern) are fetched with a suffix GET, which gives the
size too. Secrets never appear in errors: messages are reduced to the
status and the server's error code, and any configured secret is masked.
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
import threading
from datetime import timedelta
from typing import Any, Sequence

import pyarrow as pa

from . import _optional, _pqfast
from ._assemble import verdict_table
from ._encode import _as_list_or_array, encode_values
from ._paths import hidden
from ._plan import with_duration_unit
from ._progress import Progress

FormatError = _pqfast.FormatError

SCHEMES = ("s3://", "s3a://")

# storage_options keys as polars, pandas/fsspec (s3fs) and object_store
# users write them -> obstore S3Store config keys.
_KEYS = {
    "endpoint": "endpoint", "endpoint_url": "endpoint", "aws_endpoint": "endpoint",
    "aws_endpoint_url": "endpoint",
    "region": "region", "region_name": "region", "aws_region": "region", "aws_default_region": "region",
    "key": "access_key_id", "access_key": "access_key_id", "access_key_id": "access_key_id",
    "aws_access_key_id": "access_key_id",
    "secret": "secret_access_key", "secret_key": "secret_access_key", "secret_access_key": "secret_access_key",
    "aws_secret_access_key": "secret_access_key",
    "token": "session_token", "session_token": "session_token", "aws_session_token": "session_token",
    "anon": "skip_signature", "anonymous": "skip_signature", "skip_signature": "skip_signature",
    "aws_skip_signature": "skip_signature",
    "allow_http": "allow_http", "aws_allow_http": "allow_http",
    "virtual_hosted_style_request": "virtual_hosted_style_request",
    # pqfast's own: bounds on one request, retries of throttling and 5xx answers
    "timeout": "timeout", "connect_timeout": "connect_timeout", "max_retries": "max_retries",
    "retry_timeout": "retry_timeout",
}
_SECRET_KEYS = ("secret_access_key", "session_token")


def is_url(p: Any) -> bool:
    return isinstance(p, str) and p.startswith(SCHEMES)


def _truthy(v: Any) -> bool:
    return v if isinstance(v, bool) else str(v).lower() in ("1", "true", "yes", "on")


def normalise_options(storage_options: dict | None) -> dict:
    """The accepted keys (any case; fsspec's client_kwargs too) -> S3Store config."""
    out: dict = {}
    opts = dict(storage_options or {})
    ck = opts.pop("client_kwargs", None) or {}
    for k in ("endpoint_url", "region_name"):
        if k in ck:
            opts.setdefault(k, ck[k])
    for k, v in opts.items():
        key = _KEYS.get(str(k).lower())
        if key is None:
            raise ValueError(f"unknown storage option {k!r}; accepted: {', '.join(sorted(set(_KEYS)))}")
        if v is None:
            continue
        out[key] = v
    return out


def _secrets_of(conf: dict) -> list[str]:
    return [str(conf[k]) for k in _SECRET_KEYS if conf.get(k)]


_STORES: dict = {}  # (bucket, options) -> S3Store, the last few used
_STORES_LOCK = threading.Lock()


def make_store(bucket: str, storage_options: dict | None = None):
    """An obstore S3Store for ``bucket``; unset credentials and region come
    from the environment (AWS_*), as obstore reads them.

    The last 16 stores made are reused by calls with the same bucket and
    options: a store holds its HTTP connections (idle ones for 30 s), so a
    lake read again opens none, and a store costs ~6 ms to make. Stores
    that take credentials from the environment are made afresh each time
    (the environment may change between calls)."""
    key = None
    try:
        opts = normalise_options(storage_options)
        if opts.get("access_key_id") or opts.get("skip_signature"):
            key = (bucket, tuple(sorted((k, str(v)) for k, v in opts.items())))
    except ValueError:
        key = None
    if key is not None:
        with _STORES_LOCK:
            store = _STORES.get(key)
        if store is not None:
            return store
    store = _make_store(bucket, storage_options)
    if key is not None:
        with _STORES_LOCK:
            if len(_STORES) >= 16:
                _STORES.pop(next(iter(_STORES)))
            _STORES[key] = store
    return store


def _make_store(bucket: str, storage_options: dict | None = None):
    S3Store = _optional.load("obstore.store").S3Store

    conf = normalise_options(storage_options)
    client: dict = {"timeout": str(conf.pop("timeout", "30s")), "connect_timeout": str(conf.pop("connect_timeout", "5s")),
                    "pool_idle_timeout": "30s"}
    max_retries = int(conf.pop("max_retries", 6))
    retry_timeout = float(conf.pop("retry_timeout", 60))
    allow_http = conf.pop("allow_http", None)
    if allow_http is not None:
        client["allow_http"] = _truthy(allow_http)
    elif str(conf.get("endpoint", "")).startswith("http://"):
        client["allow_http"] = True
    if "skip_signature" in conf:
        conf["skip_signature"] = _truthy(conf["skip_signature"])
        if not conf["skip_signature"]:
            del conf["skip_signature"]
    retry = {"max_retries": max_retries, "retry_timeout": timedelta(seconds=retry_timeout),
             "backoff": {"init_backoff": timedelta(milliseconds=20), "max_backoff": timedelta(seconds=2),
                         "base": 2.0}}
    store = S3Store(bucket, config=conf, client_options=client, retry_config=retry)
    store._pqfast_secrets = _secrets_of(conf)  # masked in messages
    return store


def split_url(url: str) -> tuple[str, str]:
    """s3://bucket/key -> (bucket, key)."""
    rest = url.split("://", 1)[1]
    bucket, _, key = rest.partition("/")
    if not bucket:
        raise ValueError(f"no bucket in {url!r}")
    return bucket, key


def _pattern_regex(pattern: str) -> re.Pattern:
    """A key pattern as glob means it: * and ? stay within a path segment, ** crosses them."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            if i < len(pattern) and pattern[i] == "/":
                out[-1] = "(?:.*/)?"
                i += 1
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1:j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def _has_magic(s: str) -> bool:
    return any(ch in s for ch in "*?[")


def _selection(url: str):
    """(prefix to list, key filter) for a pattern or a "/"-ended prefix; None for one key."""
    _, key = split_url(url)
    if _has_magic(key):
        fixed = key[: min(key.find(c) for c in "*?[" if c in key)]
        rx = _pattern_regex(key)
        return (fixed.rsplit("/", 1)[0] + "/" if "/" in fixed else ""), (lambda k: rx.match(k) is not None)
    if key == "" or key.endswith("/"):
        # As a local directory: *.parquet keys, none under a "." or "_" name (_delta_log/, _SUCCESS).
        return key, (lambda k: k.endswith(".parquet") and not hidden(k[len(key):]))
    return None


def list_objects(store, bucket: str, url: str, versions: dict | None = None) -> list[tuple[str, str, int]]:
    """(url, key, size) of the objects a URL names: a pattern, a prefix ending
    in "/" (every *.parquet under it), or one key (size unknown: -1); sorted
    by key. ``versions`` (a dict) gets {url: (e_tag, last_modified)} of the
    objects listed."""
    if _selection(url) is None:
        return [(url, split_url(url)[1], -1)]

    async def collect():
        return [it async for page in _listed_pages(store, url, versions) for it in page]

    out = run(collect())
    out.sort(key=lambda t: t[1].encode())
    return out


# Prefixes listed at once when a pattern spans partitions (lake/date=*/...).
LIST_CONCURRENCY = 32


def _partition_filter(prefix: str, key_pattern: str):
    """For a pattern whose first wildcard lies in a directory component
    (lake/date=2024-*/h=*/x.parquet): a test of the sub-prefixes one level
    below ``prefix`` (lake/date=2024-01/) against that component, or None
    when the pattern is flat or the component is "**"."""
    rest = key_pattern[len(prefix):]
    if "/" not in rest:
        return None
    component = rest.split("/", 1)[0]
    if "**" in component:
        return None
    rx = _pattern_regex(component)
    return lambda sub: rx.match(sub[len(prefix):].rstrip("/")) is not None


async def _listed_pages(store, url: str, versions: dict | None = None, sidecars: dict | None = None):
    """The listing of a pattern page by page, as (url, key, size) lists, for
    pruning to start before the listing ends. A flat pattern is one listing
    (S3 lists a prefix serially, 1,000 keys a page); a pattern over
    partitions (lake/date=*/part-*.parquet) lists the partitions found one
    level down in parallel, LIST_CONCURRENCY at a time, so a lake of many
    prefixes is not listed page after page. Pages of different prefixes
    interleave: callers sort. ``sidecars`` (a dict) gets {key: (size, e_tag)}
    of the sidecar index the listing passes, if any (pqfast._sidecar_s3)."""
    obstore = _optional.load("obstore")

    scheme = url.split("://", 1)[0] + "://"
    bucket, key_pattern = split_url(url)
    prefix, keep = _selection(url)
    sidecar_key = prefix + "_pqfast_index"

    def rows(batch):
        out = [(f"{scheme}{bucket}/{m['path']}", m["path"], int(m["size"])) for m in batch if keep(m["path"])]
        if sidecars is not None:
            sidecars.update((m["path"], (int(m["size"]), m.get("e_tag"))) for m in batch if m["path"] == sidecar_key)
        if versions is not None:
            for m in batch:
                if keep(m["path"]):
                    versions[f"{scheme}{bucket}/{m['path']}"] = (m.get("e_tag"), str(m.get("last_modified")))
        return out

    def fail(e, where):
        raise FormatError(f"{scheme}{bucket}/{where}: cannot list: {describe_error(e, store)}") from None

    part_ok = _partition_filter(prefix, key_pattern) if _has_magic(key_pattern) else None
    if part_ok is None:
        try:
            async for batch in obstore.list(store, prefix or None, chunk_size=1000):
                yield rows(batch)
        except Exception as e:  # noqa: BLE001 - reworded
            fail(e, prefix)
        return
    try:
        top = await obstore.list_with_delimiter_async(store, prefix or None)
    except Exception as e:  # noqa: BLE001 - reworded
        fail(e, prefix)
    if top["objects"]:
        yield rows(top["objects"])
    subs = [p if p.endswith("/") else p + "/" for p in top["common_prefixes"]]
    subs = [p for p in subs if part_ok(p)]
    pages: asyncio.Queue = asyncio.Queue(maxsize=4 * LIST_CONCURRENCY)
    gate = asyncio.Semaphore(LIST_CONCURRENCY)

    async def lister(sub):
        async with gate:
            try:
                async for batch in obstore.list(store, sub, chunk_size=1000):
                    await pages.put(rows(batch))
            except Exception as e:  # noqa: BLE001 - handed to the consumer
                await pages.put(e)
                return
            finally:
                await pages.put(None)

    tasks = [asyncio.ensure_future(lister(sub)) for sub in subs]
    try:
        open_listers = len(tasks)
        while open_listers:
            page = await pages.get()
            if page is None:
                open_listers -= 1
            elif isinstance(page, BaseException):
                fail(page, prefix)
            elif page:
                yield page
    finally:
        for t in tasks:
            t.cancel()


def describe_error(e: BaseException, store=None) -> str:
    """One line: what failed and the server's answer, secrets masked."""
    text = str(e)
    status = re.search(r"status code: (\d{3}[^:<]*)", text)
    code = re.search(r"<Code>([^<]{1,100})</Code>", text)
    msg = re.search(r"<Message>([^<]{1,300})</Message>", text)
    kind = {"FileNotFoundError": "not found", "PermissionDeniedError": "access denied",
            "UnauthenticatedError": "not authenticated"}.get(type(e).__name__)
    if status:
        parts = [kind] if kind else []
        parts.append("HTTP " + status.group(1).strip())
        if code:
            parts.append(code.group(1) + (f" ({msg.group(1)})" if msg else ""))
        line = ": ".join(parts)
    else:
        first = text.strip().splitlines()[0] if text.strip() else type(e).__name__
        first = first.split("Debug source")[0].strip()
        line = f"{kind}: {first}" if kind else f"{type(e).__name__}: {first}"
    for s in getattr(store, "_pqfast_secrets", ()) or ():
        if s:
            line = line.replace(s, "***")
    return line[:500]


class TailHint:
    """The tail GET's size, learned from the last file: its footer and, when
    the probed column's Bloom filters lie just before the footer (pyarrow,
    parquet-java, DuckDB), them too, + 1/8, whole 4 KiB pages. Filters far
    from the footer (after each row group: arrow-rs) are not worth a longer
    tail: they come in one more request. Starts at 64 KiB: a request costs
    more than a few KiB over the wire."""

    def __init__(self, start: int = 64 * 1024):
        self.bytes = start
        self._last = (0, 0)

    def learn(self, footer_length: int, filter_span: int = 0) -> None:
        if (footer_length, filter_span) == self._last:
            return  # a lake's files mostly repeat the last footer's sizes
        self._last = (footer_length, filter_span)
        if footer_length:
            want = footer_length + 8
            if filter_span and filter_span <= max(4 * want, 1 << 20):
                want = max(want, filter_span)
            want += want // 8 + 512
            self.bytes = min(max((want + 4095) // 4096 * 4096, 4096), 8 << 20)


async def _prune_one(store, query, display: str, key: str, size: int, hint: TailHint):
    obstore = _optional.load("obstore")

    p = None
    try:
        if size < 0:
            # Size unknown (an explicit URL): a suffix GET brings the tail and the size.
            r = await obstore.get_async(store, key, options={"range": {"suffix": hint.bytes}})
            size = int(r.meta["size"])
            start, end = r.range
            data = await r.bytes_async()
            p = query.file(display, size, max(end - start, 64) if end - start < size else size)
            p.feed(start, data)
        else:
            # The tail and, when filters lie just before the footer, them too.
            p = query.file(display, size, hint.bytes)
        while not p.done:
            needs = p.needs
            if len(needs) == 1:
                off, n = needs[0]
                p.feed(off, await obstore.get_range_async(store, key, start=off, length=n))
            else:
                got = await obstore.get_ranges_async(store, key, starts=[o for o, _ in needs],
                                                     lengths=[n for _, n in needs])
                for (off, _), d in zip(needs, got):
                    p.feed(off, d)
                    if p.done:
                        break
    except Exception as e:  # noqa: BLE001 - a file's error, reported with it
        msg = f"{display}: {describe_error(e, store)}"
        if p is None:
            p = query.file(display, 12, 64)
        p.fail(msg)
    hint.learn(p.footer_length, p.filter_span)
    return p


async def _prune_all(store, query, items, concurrency: int, hint: TailHint, progress):
    out: list = [None] * len(items)
    it = iter(range(len(items)))

    async def worker():
        for i in it:
            display, key, size = items[i]
            out[i] = await _prune_one(store, query, display, key, size, hint)
            if progress is not None:
                progress(1)

    await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(items))))))
    return out


def _loop_runner():
    """uvloop's run when installed (less CPU per request: its callbacks and
    cross-thread wake-ups are C), else asyncio's."""
    if os.environ.get("PQFAST_UVLOOP", "1") != "0":
        uvloop = _optional.find("uvloop")
        if uvloop is not None:
            return uvloop.run
    return asyncio.run


class _NoCyclicGC:
    """Python's cycle collector off while a lake is pruned: the run makes
    tens of thousands of short-lived acyclic objects (pruners, coroutines,
    buffers) that keep triggering collections, and each full collection walks
    every object of the process (a Dask client's, a notebook's). Measured:
    0.02-0.05 ms less client CPU per file. Reference counting still frees
    them; collections resume after."""

    def __enter__(self):
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            gc.enable()


def run(coro):
    """Runs a coroutine to completion, also from inside a running event loop
    (Jupyter): then on a helper thread with its own loop.

    The value comes back through a box, the main task's result staying None:
    asyncio's Runner (uvloop's run too) puts back its SIGINT handler on the
    way out through signal.getsignal, which builds the repr of a handler
    holding the main task, result included; reprlib calls repr() on every
    item, so a task returning ranges of a few MB spent ~150 ms there
    (measured: 10 GETs of 1 MB, 55 ms of requests, 200 ms in run)."""
    box: dict = {}

    async def main():
        box["v"] = await coro

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        with _NoCyclicGC():
            _loop_runner()(main())
        return box.get("v")

    def target():
        try:
            _loop_runner()(main())
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            box["e"] = e

    t = threading.Thread(target=target, daemon=True)
    with _NoCyclicGC():
        t.start()
        t.join()
    if "e" in box:
        raise box["e"]
    return box["v"]


def resolve(paths_or_glob: Any, storage_options: dict | None, sizes: dict | None = None,
            versions: dict | None = None):
    """-> (store, [(url, key, size)]) for one bucket; ``versions`` (a dict)
    gets {url: (e_tag, last_modified)} of the objects listed."""
    urls = [paths_or_glob] if isinstance(paths_or_glob, str) else list(paths_or_glob)
    if not urls:
        return None, []
    buckets = {split_url(u)[0] for u in urls}
    if len(buckets) != 1:
        raise ValueError(f"one bucket per call; got {sorted(buckets)}")
    bucket = buckets.pop()
    store = make_store(bucket, storage_options)
    items: list = []
    for u in urls:
        if sizes is not None and u in sizes:
            items.append((u, split_url(u)[1], int(sizes[u])))
        else:
            items.extend(list_objects(store, bucket, u, versions))
    return store, items


def descriptor_and_tail(read_at, size: int, display: str, column: str):
    """From one file's footer (read through ``read_at(offset, n)``): the
    probed column's descriptor, which types the values, and the tail size
    that file suggests for the others (see TailHint)."""
    meta = _pqfast._read_metadata_file(read_at, size, display)
    i = meta.find_column(column)
    if i < 0:
        names = ", ".join(c["dotted_path"] for c in meta.columns()[:12])
        raise FormatError(f"invalid argument: {display}: no column '{column}' (leaf columns: {names})")
    hint = TailHint()
    offsets = [meta.column_chunk(g, i)["bloom_filter_offset"] for g in range(meta.num_row_groups)]
    offsets = [o for o in offsets if o is not None]
    hint.learn(meta.footer_length, size - min(offsets) if offsets else 0)

    return with_duration_unit(meta, meta.columns()[i]), hint.bytes


def column_descriptor(store, items, column: str, on_error: str):
    """The probed column's descriptor from the first readable file's footer,
    and the tail size that file suggests (see TailHint) for the others."""
    obstore = _optional.load("obstore")

    first_error = None
    for display, key, _size in items:
        try:
            r = obstore.get(store, key, options={"range": {"suffix": 256 * 1024}})
            size = int(r.meta["size"])
            start, _ = r.range
            tail = bytes(r.bytes())

            def read_at(off: int, n: int, _tail=tail, _start=start, _key=key):
                if off >= _start:
                    return _tail[off - _start: off - _start + n]
                return bytes(obstore.get_range(store, _key, start=off, length=n))

            return descriptor_and_tail(read_at, size, display, column)
        except FormatError as e:
            first_error = str(e)
        except Exception as e:  # noqa: BLE001
            first_error = f"{display}: {describe_error(e, store)}"
        if on_error == "raise":
            raise FormatError(first_error)
    raise FormatError(f"no readable file has column {column!r}: {first_error}")


def _empty_table(by_value: bool):
    empty = {"path": pa.array([], pa.string()), "row_group": pa.array([], pa.int32()),
             "verdict": pa.array([], pa.string()), "reason": pa.array([], pa.string())}
    if by_value:
        empty["value"] = pa.array([], pa.string())
    return pa.table(empty)


def _make_query(column, values, desc, by_value, use_statistics, use_bloom, coalesce_gap):
    raw_values = _as_list_or_array(values)
    pt, tl, data, offsets = encode_values(desc, raw_values)
    return raw_values, _pqfast._prune_query(column, pt, tl, data, offsets, by_value, use_statistics, use_bloom,
                                            int(coalesce_gap))


async def _prune_streamed(store, url, column, values, opts, on_error, concurrency, progress):
    """A pattern's listing and its pruning overlapped: the first page gives the
    footer that types the values, then workers prune while pages arrive."""
    pages = _listed_pages(store, url)
    first: list = []
    async for page in pages:
        first.extend(page)
        if first:
            break
    if not first:
        return [], None, None, None
    desc, tail = await asyncio.to_thread(column_descriptor, store, first, column, on_error)
    raw_values, query = _make_query(column, values, desc, *opts)
    hint = TailHint(tail)
    items: list = list(first)
    out: list = [None] * len(items)
    # Workers take the next listed file by index; when they are ahead of the
    # listing they wait for the next page (no queue operation per file).
    more = asyncio.Event()
    state = {"next": 0, "listed": False}
    workers = max(1, concurrency)
    if progress is not None:
        progress.total = len(items)  # grows as pages arrive

    async def producer():
        try:
            async for page in pages:
                items.extend(page)
                out.extend([None] * len(page))
                if progress is not None:
                    progress.total = len(items)
                more.set()
        finally:
            state["listed"] = True
            more.set()

    async def worker():
        while True:
            i = state["next"]
            if i < len(items):
                state["next"] = i + 1
                display, key, size = items[i]
                out[i] = await _prune_one(store, query, display, key, size, hint)
                if progress is not None:
                    progress.advance(1)
            elif state["listed"]:
                return
            else:
                more.clear()
                await more.wait()

    await asyncio.gather(producer(), *(worker() for _ in range(workers)))
    # Partitions listed in parallel arrive interleaved: the table is in key order.
    order = sorted(range(len(items)), key=lambda i: items[i][1].encode())
    if order != list(range(len(items))):
        items = [items[i] for i in order]
        out = [out[i] for i in order]
    return items, out, query, raw_values


def prune_remote(paths_or_glob: Any, column: str, values: Any, *, storage_options: dict | None = None,
                 by_value: bool = False, use_statistics: bool = True, use_bloom: bool = True,
                 on_error: str = "raise", progress: Any = None, concurrency: int = 256,
                 sizes: dict | None = None, coalesce_gap: int = 1 << 20,
                 descriptor: dict | None = None, tail_bytes: int | None = None):
    """pqfast.prune for s3:// URLs (see the module's docstring). ``sizes``
    maps URLs to object sizes already known (Dask tasks pass the listing's);
    ``concurrency``: files in flight; ``descriptor`` and ``tail_bytes`` (the
    first tail request) skip reading one footer to learn them."""
    bar = None
    if progress is not None and progress is not False:
        bar = progress if isinstance(progress, Progress) else Progress(total=None, label="probe")
    opts = (by_value, use_statistics, use_bloom, coalesce_gap)
    if (isinstance(paths_or_glob, str) and sizes is None and descriptor is None
            and _selection(paths_or_glob) is not None):
        # One pattern: list and prune at the same time.
        store = make_store(split_url(paths_or_glob)[0], storage_options)
        items, pruners, query, raw_values = run(_prune_streamed(store, paths_or_glob, column, values, opts,
                                                                on_error, int(concurrency), bar))
        if not items:
            return _empty_table(by_value)
    else:
        store, items = resolve(paths_or_glob, storage_options, sizes)
        if not items:
            return _empty_table(by_value)
        if descriptor is None:
            descriptor, learned = column_descriptor(store, items, column, on_error)
            tail_bytes = tail_bytes or learned
        raw_values, query = _make_query(column, values, descriptor, *opts)
        if bar is not None:
            bar.total = len(items)
        hint = TailHint(int(tail_bytes) if tail_bytes else 64 * 1024)
        pruners = run(_prune_all(store, query, items, int(concurrency), hint, bar.advance if bar else None))
    res = _pqfast._pruner_results(pruners, query.num_values, by_value)
    return verdict_table([(res, None)], [u for u, _, _ in items], query.num_values, by_value, raw_values,
                         on_error)


def list_sizes(paths_or_glob: Any, storage_options: dict | None = None) -> list[tuple[str, int]]:
    """(url, size) of every object a URL, pattern or list names (one listing per pattern)."""
    _, items = resolve(paths_or_glob, storage_options)
    return [(u, s) for u, _, s in items]


class ObjectStoreIO:
    """The I/O of ``s3://`` URLs of one bucket (obstore) for a lake and the
    streaming scanner's I/O loop (``_stream_io``): the listing (with ETags
    and modification times, which what scans keep is keyed by; the sidecar
    indexes it passes are noted in ``sidecars``), ranged reads, suffix
    reads, on obstore's event loop (``run``)."""

    def __init__(self, source: Any, storage_options: dict | None):
        self.source = source
        self.urls = [source] if isinstance(source, str) else list(source)
        if not self.urls:
            raise _pqfast.FormatError(f"invalid argument: no objects match {source!r}")
        buckets = {split_url(u)[0] for u in self.urls}
        if len(buckets) != 1:
            raise ValueError(f"one bucket per call; got {sorted(buckets)}")
        self.store = make_store(next(iter(buckets)), storage_options)
        self.list_requests = 0  # listing pages fetched (explicit URLs: none)
        self.sidecars: dict = {}  # sidecar objects the listing passed: key -> (size, e_tag)
        key = split_url(source)[1] if isinstance(source, str) else None
        # The prefix the source names, whose key=value levels are partition keys (None: files, patterns, lists).
        self.directory = source if key is not None and (key == "" or key.endswith("/")) else None

    async def _list_objects(self):
        """[(url, key, size, version)] (explicit URLs: size -1, no version)."""
        out = []
        for u in self.urls:
            if _selection(u) is None:
                out.append((u, split_url(u)[1], -1, None))
                continue
            versions: dict = {}
            got = []
            async for page in _listed_pages(self.store, u, versions, self.sidecars):
                self.list_requests += 1
                got.extend(page)
            got.sort(key=lambda it: it[1].encode())
            out.extend((url, key, size, versions.get(url)) for url, key, size in got)
        return out

    def listing(self):
        return ran(self.run, self._list_objects)

    async def read(self, key: str, offset: int, length: int):
        obstore = _optional.load("obstore")

        return await obstore.get_range_async(self.store, key, start=int(offset), length=int(length))

    async def suffix(self, key: str, n: int):
        """(object size, its last n bytes or fewer): one GET gives the size too."""
        obstore = _optional.load("obstore")

        r = await obstore.get_async(self.store, key, options={"range": {"suffix": int(n)}})
        return int(r.meta["size"]), await r.bytes_async()

    def run(self, main) -> None:
        """Awaits ``main()`` on obstore's event loop."""
        with _NoCyclicGC():
            run(main())

    def close(self) -> None:
        pass


def ran(run_on, make):
    """What coroutine ``make()`` returns, awaited by an I/O's ``run``
    (``run_on``, which gives nothing back)."""
    box = {}

    async def main():
        box["v"] = await make()

    run_on(main)
    return box["v"]


__all__: Sequence[str] = ("prune_remote", "make_store", "list_sizes", "is_url", "normalise_options")
