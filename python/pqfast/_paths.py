"""Sources named by paths: which strings are ``s3://`` URLs, which are
patterns, a source expanded into its files (a glob, a directory, a list; on
the local disk or a ``filesystem=``), and which files a listing skips
(``hidden``: names starting with "." or "_").

Below the I/O backends and the lake layer, which all list; knows no Parquet.
"""

from __future__ import annotations

import fnmatch
import glob as _glob
import os
from typing import Any

import pyarrow.fs as pafs

from . import _pqfast


def hidden(relative: str) -> bool:
    """True when a path below the listed directory has a component starting
    with "." or "_": pyarrow.dataset skips such files (``_SUCCESS``,
    ``_delta_log/``, ``.crc`` files), and so do pqfast's listings."""
    return any(part[:1] in (".", "_") for part in relative.split("/") if part)


def hidden_below(root: str, path: str) -> bool:
    """`hidden` for `path`'s components below directory `root`."""
    root = root.rstrip("/")
    if not path.startswith(root) and "://" in root:  # fsspec lists "bucket/key" under "s3://bucket"
        root = root.split("://", 1)[1]
    return hidden(path[len(root):] if path.startswith(root) else path)


def _remote_urls(p: Any) -> bool:
    """s3:// URLs (one, or a list whose first is one)."""
    if isinstance(p, str):
        return p.startswith(("s3://", "s3a://"))
    if isinstance(p, (list, tuple)) and p and isinstance(p[0], str):
        return p[0].startswith(("s3://", "s3a://"))
    return False


def _has_magic(p: str) -> bool:
    return "*" in p or "?" in p or "[" in p


def expand_paths(paths_or_glob: Any, filesystem: Any = None) -> list[str]:
    """Paths from a glob, a directory (every *.parquet file under it, none
    under a name starting with "." or "_"), a path, or a list of them."""
    single = isinstance(paths_or_glob, (str, os.PathLike))
    items = [os.fspath(paths_or_glob)] if single else [p if type(p) is str else os.fspath(p) for p in paths_or_glob]
    if filesystem is None and not single and items and all(type(p) is str for p in items):
        # The common case, a list of local *.parquet paths: checked in a few
        # passes over one string instead of path by path.
        blob = "\0".join(items)
        if ("*" not in blob and "?" not in blob and "[" not in blob
                and blob.count("\0") == len(items) - 1
                and blob.count(".parquet\0") == len(items) - 1 and blob.endswith(".parquet")):
            return items
    out: list[str] = []
    for p in items:
        if filesystem is None:
            if "*" in p or "?" in p or "[" in p:
                # glob(3) in C++ where it means the same; Python's for "**".
                out.extend(_pqfast._glob(os.fsencode(p)) if "**" not in p else sorted(_glob.glob(p, recursive=True)))
            elif (single or not p.endswith(".parquet")) and os.path.isdir(p):
                # sorted(glob(p + "/**/*.parquet", recursive=True)), listed in C++
                out.extend(_pqfast._parquet_files_under(os.fsencode(p)))
            else:
                out.append(p)
        elif hasattr(filesystem, "glob") and any(ch in p for ch in "*?["):  # fsspec
            out.extend(sorted(filesystem.glob(p)))
        elif hasattr(filesystem, "get_file_info"):  # pyarrow

            if any(ch in p for ch in "*?["):
                base = p[: min(p.find(c) for c in "*?[" if c in p)]
                base = base.rsplit("/", 1)[0] if "/" in base else ""
                infos = filesystem.get_file_info(pafs.FileSelector(base or "/", recursive=True))
                out.extend(sorted(i.path for i in infos if i.type == pafs.FileType.File and fnmatch.fnmatch(i.path, p)))
            else:
                info = filesystem.get_file_info(p)
                if info.type == pafs.FileType.Directory:
                    infos = filesystem.get_file_info(pafs.FileSelector(p, recursive=True))
                    out.extend(sorted(i.path for i in infos if i.type == pafs.FileType.File and i.path.endswith(".parquet")
                                      and not hidden_below(p, i.path)))
                else:
                    out.append(p)
        elif hasattr(filesystem, "isdir") and filesystem.isdir(p):
            out.extend(sorted(f for f in filesystem.glob(p.rstrip("/") + "/**/*.parquet") if not hidden_below(p, f)))
        else:
            out.append(p)
    return out
