"""prune()'s result table from the per-file results of the C++ core: the
record batch it made (one row per file x row group), or, per value, its flat
arrays (one row per file x row group x value) assembled here, vectorised."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from . import _pqfast

FormatError = _pqfast.FormatError

VERDICTS = ("absent", "absent", "maybe", "no_filter")  # by the C++ Verdict code
_ABSENT_BY_STATS, _ABSENT_BY_BLOOM, _MAYBE, _NO_FILTER = 0, 1, 2, 3


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _reason(code: int, by_stats: int, by_bloom: int, maybe: int, n: int) -> str:
    if code == _ABSENT_BY_STATS:
        return "min/max"
    if code == _ABSENT_BY_BLOOM:
        return "min/max + bloom filter" if by_stats else "bloom filter"
    if code == _MAYBE:
        return f"bloom filter: {maybe} of {n} values may be present"
    return f"no bloom filter; min/max keep {maybe} of {n} values"


def verdict_table(parts, paths, nv: int, by_value: bool, raw_values, on_error: str):
    """``parts``: (result dict, file index or None when the dict covers every
    file of ``paths``); ``paths`` is read only for results without a record
    batch (per value). Raises FormatError for the first failed file unless
    ``on_error="skip"``."""
    # Assemble, vectorised: one row per (file, row group) [x value].
    errors = [msg for res, _ in parts for (_fi, _code, msg) in res["errors"]]
    if errors and on_error == "raise":
        more = f" (and {len(errors) - 1} more files)" if len(errors) > 1 else ""
        raise FormatError(errors[0] + more)
    if parts and all("batch" in res for res, _ in parts):
        # The table made in C++ (path, row_group, verdict, reason; a batch per
        # part, in order), imported through the Arrow C Data Interface without
        # a copy.
        return pa.Table.from_batches([pa.RecordBatch._import_from_c_capsule(*res["batch"]) for res, _ in parts])
    fidx, rg, ver, bs, bb, mb, pv = [], [], [], [], [], [], []
    for res, file_i in parts:
        n = res["rows"]
        fidx.append(res["file_index"][:n] if file_i is None else np.full(n, file_i, np.int32))
        rg.append(res["row_group"][:n])
        ver.append(res["verdict"][:n])
        bs.append(res["excluded_by_stats"][:n])
        bb.append(res["excluded_by_bloom"][:n])
        mb.append(res["maybe"][:n])
        if by_value:
            pv.append(res["per_value"][: n * nv])
    fidx, rg, ver = np.concatenate(fidx), np.concatenate(rg), np.concatenate(ver)
    path_arr = pa.array(paths if isinstance(paths, list) else paths.to_list(), pa.string())
    if by_value:
        codes = np.concatenate(pv).astype(np.int64)
        rows_idx = np.repeat(np.arange(len(rg)), nv)
        value_labels = [v if isinstance(v, str) else str(int(v)) if _is_int(v) else repr(v)
                        for v in list(raw_values)]
        cols = {"path": path_arr.take(pa.array(fidx[rows_idx])),
                "row_group": pa.array(rg[rows_idx].astype(np.int32)),
                "verdict": pa.array(VERDICTS).take(pa.array(codes)),
                "reason": pa.array(["min/max", "bloom filter", "bloom filter", "no bloom filter"]).take(pa.array(codes)),
                "value": pa.array(value_labels, pa.string()).take(pa.array(np.tile(np.arange(nv), len(rg))))}
        return pa.table(cols)
    bs, bb, mb = np.concatenate(bs).astype(np.int64), np.concatenate(bb).astype(np.int64), np.concatenate(mb).astype(np.int64)
    # Few distinct (verdict, counts) combinations: format each once.
    key = ver.astype(np.int64) + 4 * (bs + (nv + 1) * (bb + (nv + 1) * mb))
    uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    reasons = [_reason(int(ver[k]), int(bs[k]), int(bb[k]), int(mb[k]), nv) for k in first]
    cols = {"path": path_arr.take(pa.array(fidx)),
            "row_group": pa.array(rg.astype(np.int32)),
            "verdict": pa.array(VERDICTS).take(pa.array(ver.astype(np.int64))),
            "reason": pa.array(reasons, pa.string()).take(pa.array(inverse.astype(np.int64).ravel()))}
    return pa.table(cols)


