"""`pqfast bench local-bloom`: our own filter_bench for RocksDB's FastLocalBloom.

24-byte keys, hashing included in every figure, ~10k keys per filter (as
RocksDB's ``filter_bench -quick -net_includes_hashing``). RocksDB 7.8.3 runs
side by side in the same invocation when the peer driver
``pqfast_peer_local_bloom`` (built with ``-DPQFAST_PEERS=ON`` where
librocksdb-dev is installed) is found.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
from pathlib import Path

from .. import _pqfast
from .._progress import Progress
from .._table import format_table

NAME = "local-bloom"
HELP = "RocksDB FastLocalBloom: build, single/batched/random-filter queries and FP rates, vs RocksDB 7.8.3."

MiB = 1 << 20
FP_BITS = [6, 8, 10, 12, 16, 24, 50]
# RocksDB's published FP rates (percent) for FastLocalBloom (PR #6007).
ROCKSDB_PUBLISHED_FP = {6: 5.69888, 8: 2.29709, 10: 0.959254, 12: 0.411593, 16: 0.0873754, 24: 0.0060971, 50: 0.00003}
PEER = "pqfast_peer_local_bloom"


def add_arguments(p) -> None:
    p.add_argument("--quick", action="store_true", help="fewer queries, repetitions and FP samples (seconds)")
    p.add_argument("--json", action="store_true", help="print one JSON object per row instead of tables")
    p.add_argument("--runs", type=int, default=1, help="repeat the timings and report medians")
    p.add_argument("--bits-per-key", type=float, default=10.0, help="bits/key of the timed filters (default 10)")
    p.add_argument("--no-rocksdb", action="store_true", help="skip the RocksDB peer even if it is built")


def _settings(quick: bool, bits_per_key: float) -> dict:
    return dict(
        bits_per_key=bits_per_key,
        keys_per_filter=10_000,
        build_filters=30 if quick else 100,
        random_footprint=200 * MiB,
        queries=(1 << 20) if quick else (1 << 22),
        reps=3 if quick else 5,
        fp_filters=100 if quick else 400,
        fp_queries=2e7 if quick else 4e8,
    )


def find_peer() -> str | None:
    """The RocksDB peer driver: $PQFAST_PEER_DIR, the build tree next to this package, or PATH."""
    candidates = []
    if os.environ.get("PQFAST_PEER_DIR"):
        candidates.append(Path(os.environ["PQFAST_PEER_DIR"]) / PEER)
    if os.environ.get("PQFAST_BUILD_DIR"):
        candidates.append(Path(os.environ["PQFAST_BUILD_DIR"]) / "peers" / PEER)
    here = Path(__file__).resolve()
    candidates.append(here.parents[3] / "peers" / PEER)  # <build>/python/pqfast/benches -> <build>/peers
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return shutil.which(PEER)


def _run_peer(peer: str, s: dict, fp: bool, rounds: int, progress: Progress | None) -> list[dict]:
    args = [peer, "--interleave", str(rounds), "--bits-per-key", str(s["bits_per_key"]), "--keys-per-filter", str(s["keys_per_filter"]),
            "--build-filters", str(s["build_filters"]), "--random-footprint", str(s["random_footprint"]),
            "--queries", str(s["queries"]), "--reps", str(s["reps"]), "--fp-filters", str(s["fp_filters"]),
            "--fp-queries", str(s["fp_queries"] / 4), "--fp-bits", ",".join(str(b) for b in (FP_BITS if fp else []))]
    if progress:
        progress.message(f"RocksDB 7.8.3 and pqfast interleaved in the peer driver ({rounds} rounds)")
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{peer} failed ({proc.returncode}): {proc.stderr.strip()}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def _key(r: dict) -> tuple:
    return (r["metric"], r["mode"], r["implementation"], r["bits_per_key"])


def measure(quick: bool, runs: int = 1, bits_per_key: float = 10.0, rocksdb: bool = True,
            progress: Progress | None = None) -> list[dict]:
    s = _settings(quick, bits_per_key)
    cb = progress.message if progress else None
    peer = find_peer() if rocksdb else None
    all_runs = []
    for run in range(max(1, runs)):
        fp_bits = FP_BITS if run == 0 else []  # FP rates are counts, not timings: once
        all_runs.append(_pqfast._bench_local_bloom(s["bits_per_key"], s["keys_per_filter"], s["build_filters"],
                                                   s["random_footprint"], s["queries"], s["reps"], fp_bits,
                                                   s["fp_filters"], s["fp_queries"], cb))
    rows = all_runs[0]
    for r in rows:
        if r["metric"] != "fp_rate":
            r["value"] = statistics.median(x["value"] for run in all_runs for x in run if _key(x) == _key(r))
    for r in rows:
        if r["metric"] == "fp_rate":
            pub = ROCKSDB_PUBLISHED_FP.get(int(r["bits_per_key"]))
            r["rocksdb_published"] = pub
            if pub:
                r["relative_to_published"] = r["value"] / pub - 1.0
    if peer:
        # RocksDB and pqfast's active implementation, interleaved in one process
        # (medians of the rounds): the ratios see the same machine load.
        peer_rows = _run_peer(peer, s, True, max(3, runs), progress)
        for r in peer_rows:
            r["same_process"] = True
        ref = {(r["metric"], r["mode"], r["bits_per_key"]): r["value"]
               for r in peer_rows if r["implementation"] == "rocksdb"}
        for r in peer_rows:
            k = (r["metric"], r["mode"], r["bits_per_key"])
            if r["implementation"] != "rocksdb" and r["metric"] != "fp_rate" and k in ref and r["value"] > 0:
                r["speedup_vs_rocksdb"] = ref[k] / r["value"]
            if r["metric"] == "fp_rate":
                pub = ROCKSDB_PUBLISHED_FP.get(int(r["bits_per_key"]))
                r["rocksdb_published"] = pub
                if pub:
                    r["relative_to_published"] = r["value"] / pub - 1.0
        rows += peer_rows
    else:
        rows.append({"metric": "note", "mode": "", "implementation": "rocksdb", "bits_per_key": s["bits_per_key"],
                     "value": 0.0, "unit": "", "note": "RocksDB peer driver not found (build with -DPQFAST_PEERS=ON and librocksdb-dev)"})
    return rows


def run(args) -> int:
    progress = Progress(enabled=not args.json)
    rows = measure(args.quick, args.runs, args.bits_per_key, not args.no_rocksdb, progress)
    progress.close()
    if args.json:
        keep = ("metric", "mode", "implementation", "bits_per_key", "value", "unit", "ops", "positives",
                "rocksdb_published", "relative_to_published", "speedup_vs_rocksdb", "same_process", "note")
        for r in rows:
            print(json.dumps({k: r[k] for k in keep if k in r}))
        return 0
    timed = [r for r in rows if r["metric"] in ("build", "single", "batched", "random") and not r.get("same_process")]
    print(f"FastLocalBloom at {args.bits_per_key:g} bits/key, 24-byte keys, hashing included, "
          f"~10k keys/filter; random = 200 MiB of filters. SIMD active: {_pqfast.simd_level()}")
    print(format_table(["metric", "mode", "implementation", "ns/op"],
                       [[r["metric"], r["mode"], r["implementation"], r["value"]] for r in timed]))
    side = [r for r in rows if r.get("same_process") and r["metric"] != "fp_rate"]
    if side:
        print()
        print("Side by side in one process, interleaved (median of rounds): pqfast vs RocksDB 7.8.3 (Debian build, no AVX2)")
        by = {}
        for r in side:
            by.setdefault((r["metric"], r["mode"]), {})[r["implementation"]] = r
        table = []
        for (metric, mode), impls in by.items():
            ours = next((v for k, v in impls.items() if k != "rocksdb"), None)
            theirs = impls.get("rocksdb")
            table.append([metric, mode, ours["implementation"] if ours else "", ours["value"] if ours else "",
                          theirs["value"] if theirs else "n/a",
                          f"{ours['speedup_vs_rocksdb']:.2f}x" if ours and "speedup_vs_rocksdb" in ours else ""])
        print(format_table(["metric", "mode", "pqfast", "pqfast ns/op", "rocksdb ns/op", "speedup"], table))
    fps = [r for r in rows if r["metric"] == "fp_rate"]
    if fps:
        print()
        print("FP rate (% of never-inserted keys reported present). rocksdb_probes: RocksDB 7.8's num_probes")
        print("choice (what build() does); pr6007_probes: int(0.69 * bits/key), the choice RocksDB published its")
        print("table with in 2019 (it differs at 16, 24 and 50 bits/key, where 7.8 uses fewer probes).")
        print(format_table(
            ["bits/key", "probes chosen as", "implementation", "FP %", "RocksDB published %", "relative", "queries", "false positives"],
            [[f"{r['bits_per_key']:g}", r["mode"], r["implementation"], f"{r['value']:.6g}", f"{r['rocksdb_published']:g}",
              f"{100 * r['relative_to_published']:+.1f}%", f"{r['ops']:.3g}", int(r["positives"])] for r in fps],
        ))
    for r in rows:
        if r["metric"] == "note":
            print(f"\nnote: {r['note']}")
    return 0
