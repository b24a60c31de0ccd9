"""Sidecar index files: the Bloom filters ``pqfast.index`` would append,
kept in one file beside the lake instead (for tables whose metadata pins
each data file's size and checksum, so the files must not change).

Format (version 1), all integers little-endian:

    offset 0   8 bytes   magic "PQFASTIX"
    offset 8   u32       format version (1)
    offset 12  u32       manifest length M
    offset 16  M bytes   manifest, UTF-8 JSON (below)
    then       blobs     each a Parquet Bloom filter as a file stores it:
                         Thrift BloomFilterHeader + bitset

    manifest = {"format": "pqfast-index", "version": 1, "created_by": "pqfast <version>",
                "files": [{"path": "<relative to the sidecar's directory, '/'-separated>",
                           "size": <bytes>, "mtime_ns": <int>, "tail_xxh64": "<16 hex digits>",
                           "num_row_groups": <int>,
                           "filters": [{"row_group": g, "column": "<dotted path>",
                                        "offset": <absolute offset in the sidecar>, "length": <bytes>,
                                        "ndv": n, "fpp": f}]}]}

A data file's entries hold while its size, mtime and the XXH64 of its last
64 KiB (the footer) are those recorded; otherwise they are stale: readers
ignore them and say so. The filters are byte for byte those ``index`` would
append to the file. Readers treat the sidecar as hostile: a bad magic,
version, manifest or blob location makes the whole sidecar ignored.
"""

from __future__ import annotations

import json
import os
import struct
import warnings
from typing import Any

from . import _pqfast

MAGIC = b"PQFASTIX"
VERSION = 1
DEFAULT_NAME = "_pqfast_index"
TAIL_BYTES = 64 * 1024
MAX_MANIFEST = 1 << 30


def fingerprint(path: str) -> dict:
    """What a data file must still match for its entries to hold."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        n = min(st.st_size, TAIL_BYTES)
        tail = os.pread(f.fileno(), n, st.st_size - n)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "tail_xxh64": f"{_pqfast.xxh64(tail):016x}"}


class Sidecar:
    """A parsed sidecar: manifest entries by relative path, blobs read on demand."""

    def __init__(self, path: str, files: dict):
        self.path = path
        self.dir = os.path.dirname(os.path.abspath(path))
        self.files = files  # rel -> {"size", "mtime_ns", "tail_xxh64", "filters": {(rg, column): (off, len, ndv, fpp)}}
        self._fresh: dict[str, bool] = {}

    def rel(self, data_path: str) -> str:
        return os.path.relpath(os.path.abspath(data_path), self.dir).replace(os.sep, "/")

    def fresh(self, rel: str) -> bool:
        if rel not in self._fresh:
            e = self.files.get(rel)
            ok = False
            if e is not None:
                try:
                    fp = fingerprint(os.path.join(self.dir, rel))
                    ok = (fp["size"], fp["mtime_ns"], fp["tail_xxh64"]) == (e["size"], e["mtime_ns"], e["tail_xxh64"])
                except OSError:
                    ok = False
            self._fresh[rel] = ok
        return self._fresh[rel]

    def blob(self, off: int, length: int) -> bytes:
        with open(self.path, "rb") as f:
            return os.pread(f.fileno(), length, off)


def read(path: str) -> Sidecar:
    """Parses a sidecar; FormatError on anything malformed."""
    FormatError = _pqfast.FormatError
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(16)
        if len(head) < 16 or head[:8] != MAGIC:
            raise FormatError(f"corrupt: {path}: not a pqfast sidecar index (bad magic)")
        version, mlen = struct.unpack("<II", head[8:16])
        if version != VERSION:
            raise FormatError(f"unsupported: {path}: sidecar format version {version} (this pqfast reads {VERSION})")
        if mlen > size - 16 or mlen > MAX_MANIFEST:
            raise FormatError(f"corrupt: {path}: manifest of {mlen} bytes past the {size}-byte file")
        raw = f.read(mlen)
    try:
        m = json.loads(raw.decode("utf-8"))
        if m.get("format") != "pqfast-index" or m.get("version") != VERSION:
            raise ValueError("not a pqfast-index manifest")
        files = {}
        for e in m["files"]:
            filters = {}
            for flt in e["filters"]:
                off, length = int(flt["offset"]), int(flt["length"])
                if off < 16 + mlen or length <= 0 or off + length > size:
                    raise ValueError(f"filter at {off} of {length} bytes outside the blobs")
                filters[(int(flt["row_group"]), str(flt["column"]))] = (off, length, int(flt.get("ndv", 0)),
                                                                         float(flt.get("fpp", 0)))
            files[str(e["path"])] = {"size": int(e["size"]), "mtime_ns": int(e["mtime_ns"]),
                                     "tail_xxh64": str(e["tail_xxh64"]),
                                     "num_row_groups": int(e.get("num_row_groups", -1)), "filters": filters}
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise FormatError(f"corrupt: {path}: bad sidecar manifest ({e})") from None
    return Sidecar(path, files)


def write(path: str, entries: list[tuple[str, dict, list[tuple[int, str, bytes, int, float]]]]) -> int:
    """Writes a sidecar atomically (temporary file + fsync + rename); returns its size.
    entries: (relative path, fingerprint, [(row_group, column, blob, ndv, fpp)])."""
    from . import __version__

    # Offsets depend on the manifest's length, which depends on the offsets'
    # digits: lay out with a guess, then again until the length is stable.
    mlen = 0
    for _ in range(8):
        off = 16 + mlen
        files = []
        for rel, fp, flts in entries:
            out = []
            for rg, col, blob, ndv, fpp in flts:
                out.append({"row_group": rg, "column": col, "offset": off, "length": len(blob), "ndv": ndv, "fpp": fpp})
                off += len(blob)
            files.append({"path": rel, **fp, "filters": out})
        manifest = json.dumps({"format": "pqfast-index", "version": VERSION, "created_by": f"pqfast {__version__}",
                               "files": files}, separators=(",", ":")).encode()
        if len(manifest) == mlen:
            break
        mlen = len(manifest)
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(MAGIC + struct.pack("<II", VERSION, len(manifest)) + manifest)
        for _, _, flts in entries:
            for _, _, blob, _, _ in flts:
                f.write(blob)
        f.flush()
        os.fsync(f.fileno())
        size = f.tell()
    os.replace(tmp, path)
    return size


def find(paths: list[str]) -> str | None:
    """The sidecar beside the files (in the directory of the first, or a parent of it up to 3 levels)."""
    if not paths:
        return None
    d = os.path.dirname(os.path.abspath(os.fspath(paths[0])))
    for _ in range(4):
        p = os.path.join(d, DEFAULT_NAME)
        if os.path.isfile(p):
            return p
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return None


def apply(table, column: str, values: Any, sidecar_path: str, by_value: bool):
    """prune's verdicts with the sidecar's filters: a "no_filter" (file, row
    group) with a fresh sidecar filter becomes "absent" when that filter
    excludes every value (per value with by_value), else "maybe"; the reason
    says "bloom filter (sidecar)". Stale files are ignored and warned about."""
    import numpy as np
    import pyarrow as pa

    from .parquet import _as_list_or_array, _column_descriptor, _is_int, encode_values

    try:
        sc = read(sidecar_path)
    except (OSError, _pqfast.FormatError) as e:
        warnings.warn(f"pqfast: sidecar ignored: {e}", stacklevel=3)
        return table
    verdicts = table.column("verdict").to_pylist()
    rows = [i for i, v in enumerate(verdicts) if v == "no_filter"]
    if not rows:
        return table
    paths = table.column("path").to_pylist()
    rgs = table.column("row_group").to_pylist()
    reasons = table.column("reason").to_pylist()
    desc = _column_descriptor(paths[rows[0]], column, None, False)
    raw = _as_list_or_array(values)
    pt, tl, data, offsets = encode_values(desc, raw)
    if pt == "BYTE_ARRAY":
        hashes = [_pqfast._hash_byte_arrays(np.frombuffer(bytes(data), np.uint8), np.asarray(offsets, np.int64))]
    else:
        width = tl or {"INT32": 4, "INT64": 8, "FLOAT": 4, "DOUBLE": 8, "INT96": 12}[pt]
        hashes = _fixed_hashes(pt, tl, data, len(data) // width)
    stale = set()
    cache: dict = {}
    value_list = table.column("value").to_pylist() if by_value else None
    value_index = {}
    if by_value:
        # The labels prune's by-value table shows (see _assemble.verdict_table).
        shown = [v if isinstance(v, str) else str(int(v)) if _is_int(v) else repr(v) for v in list(raw)]
        for k, v in enumerate(shown):
            value_index.setdefault(v, k)
    for i in rows:
        rel = sc.rel(paths[i])
        if rel not in sc.files:
            continue
        if not sc.fresh(rel):
            stale.add(paths[i])
            continue
        loc = sc.files[rel]["filters"].get((int(rgs[i]), column))
        if loc is None:
            continue
        key = (rel, int(rgs[i]))
        if key not in cache:
            from .sbbf import Sbbf

            try:
                f = Sbbf.parse(sc.blob(loc[0], loc[1]))
            except _pqfast.FormatError as e:
                warnings.warn(f"pqfast: sidecar ignored: {sidecar_path}: {e}", stacklevel=3)
                return table
            maybe = np.zeros(len(hashes[0]), dtype=bool)
            for h in hashes:
                maybe |= np.asarray(f.check_hashes(h), dtype=bool)
            cache[key] = maybe
        maybe = cache[key]
        if by_value:
            k = value_index.get(str(value_list[i]))
            excluded = k is not None and not maybe[k]
        else:
            excluded = not maybe.any()
        # The row group has a filter now (the sidecar's): absent or maybe.
        verdicts[i] = "absent" if excluded else "maybe"
        reasons[i] = "bloom filter (sidecar)"
    if stale:
        warnings.warn(f"pqfast: sidecar {sidecar_path}: {len(stale)} file(s) changed since it was written "
                      f"(their entries are ignored; run pqfast.index(..., sidecar=...) again): "
                      f"{', '.join(sorted(stale)[:5])}", stacklevel=3)
    cols = {name: table.column(name) for name in table.column_names}
    cols["verdict"] = pa.array(verdicts, pa.string())
    cols["reason"] = pa.array(reasons, pa.string())
    return pa.table(cols)


def _fixed_hashes(pt: str, tl: int, data, n: int) -> list:
    """The hashes of n fixed-width values, and for floats those with the sign
    of any zero flipped (0.0 == -0.0, and a filter holds one of them)."""
    import numpy as np

    raw = np.frombuffer(bytes(data), dtype=np.uint8)
    out = [_pqfast._hash_fixed(raw, n, pt, int(tl) if pt == "FIXED_LEN_BYTE_ARRAY" else 0)]
    if pt in ("FLOAT", "DOUBLE"):
        arr = raw.view("<f4" if pt == "FLOAT" else "<f8").copy()
        if (arr == 0).any():
            arr[arr == 0] = -arr[arr == 0]
            out.append(_pqfast._hash_fixed(arr.view(np.uint8), n, pt, 0))
    return out


def _atom_hashes(atom) -> list | None:
    """Hashes a sidecar filter can rule out for an encoded scan atom (column,
    op, negate, type, type_length, data, offsets, set_has_null, scale), or
    None when a Bloom filter proves nothing for it (not = / in, negated, or
    an IN list holding None, which matches null rows)."""
    import numpy as np

    column, op, negate, pt, tl, data, offsets, has_null, _scale = atom
    if negate or op not in ("eq", "in") or has_null:
        return None
    if pt == "BYTE_ARRAY":
        if offsets is None:
            return None
        return [_pqfast._hash_byte_arrays(np.frombuffer(bytes(data), np.uint8), np.asarray(offsets, np.int64))]
    if pt == "BOOLEAN":
        return None
    width = tl or {"INT32": 4, "INT64": 8, "FLOAT": 4, "DOUBLE": 8, "INT96": 12}[pt]
    n = len(data) // width
    if n == 0:
        return None
    return _fixed_hashes(pt, tl, data, n)


def scan_row_groups(paths: list[str], dnf: list):
    """For read_table(filters=): the row groups a sidecar beside the files
    rules out. A row group is ruled out when every conjunction of the filter
    has an = / IN atom whose values the row group's (fresh) sidecar filter
    excludes. Returns None (no sidecar, or nothing it can prove), else
    (paths kept, row groups per kept path ([] = all), row groups ruled out)."""
    import numpy as np

    from .sbbf import Sbbf

    if not dnf or not paths:
        return None
    path = find(paths)
    if path is None:
        return None
    try:
        sc = read(path)
    except (OSError, _pqfast.FormatError) as e:
        warnings.warn(f"pqfast: sidecar ignored: {e}", stacklevel=3)
        return None
    conj = []
    for atoms in dnf:
        usable = [(a[0], h) for a in atoms if (h := _atom_hashes(a)) is not None]
        if not usable:
            return None  # this conjunction may hold anywhere: nothing to prune
        conj.append(usable)
    filters: dict = {}

    def excluded(rel, e, g, column, hashes) -> bool:
        loc = e["filters"].get((g, column))
        if loc is None:
            return False
        key = (rel, g, column)
        if key not in filters:
            try:
                filters[key] = Sbbf.parse(sc.blob(loc[0], loc[1]))
            except _pqfast.FormatError:
                filters[key] = None
        f = filters[key]
        if f is None:
            return False
        maybe = np.zeros(len(hashes[0]), dtype=bool)
        for h in hashes:
            maybe |= np.asarray(f.check_hashes(h), dtype=bool)
        return not maybe.any()

    kept_paths, kept_groups, pruned, stale = [], [], 0, []
    for p in paths:
        rel = sc.rel(p)
        e = sc.files.get(rel)
        if e is None or e["num_row_groups"] < 0 or not sc.fresh(rel):
            if e is not None and not sc.fresh(rel):
                stale.append(p)
            kept_paths.append(p)
            kept_groups.append([])
            continue
        n = e["num_row_groups"]
        keep = [g for g in range(n)
                if not all(any(excluded(rel, e, g, c, h) for c, h in usable) for usable in conj)]
        pruned += n - len(keep)
        if keep:
            kept_paths.append(p)
            kept_groups.append([] if len(keep) == n else keep)
    if stale:
        warnings.warn(f"pqfast: sidecar {path}: {len(stale)} file(s) changed since it was written "
                      f"(their entries are ignored; run pqfast.index(..., sidecar=...) again): "
                      f"{', '.join(sorted(stale)[:5])}", stacklevel=3)
    return kept_paths, kept_groups, pruned
