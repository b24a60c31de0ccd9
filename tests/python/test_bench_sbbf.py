"""`pqfast bench sbbf`: row format, modes, the Arrow peer rows and the chart
(shapes only; timings are never asserted)."""

import json

import pytest

from conftest import run_cli

MODES = {"classic", "single", "batched", "multi", "hash_probe", "build"}


def _rows(*extra):
    proc = run_cli("bench", "sbbf", "--quick", "--json", "--footprints", "65536,4194304", *extra)
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def test_json_rows_cover_every_mode_and_implementation():
    import pqfast

    rows = _rows("--no-peers")
    for r in rows:
        assert {"footprint_bytes", "implementation", "mode", "ns_per_op"} <= r.keys()
        assert r["ns_per_op"] > 0
    assert {r["footprint_bytes"] for r in rows} == {65536, 4194304}
    assert {r["mode"] for r in rows} == MODES
    impls = {r["implementation"] for r in rows if r["mode"] == "batched"}
    assert impls == set(pqfast.available_simd_levels())


def test_arrow_peer_rows_when_built():
    from pqfast.benches import sbbf

    if sbbf.find_peer() is None:
        pytest.skip("arrow_sbbf_bench not built (-DPQFAST_PEERS=ON with pyarrow)")
    rows = _rows()
    arrow = {(r["footprint_bytes"], r["mode"]) for r in rows if r["implementation"] == "arrow"}
    assert (65536, "single") in arrow and (65536, "build") in arrow and (4194304, "hash_probe") in arrow
    ours = [r for r in rows if r["mode"] == "batched"]
    assert all(r["speedup_vs_arrow"] for r in ours)


def test_chart_is_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "sbbf.png"
    run_cli("bench", "sbbf", "--quick", "--no-peers", "--footprints", "65536", "--chart", str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
