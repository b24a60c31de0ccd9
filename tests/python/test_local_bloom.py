"""pqfast.LocalBloom and pqfast.rocksdb_hash64 (RocksDB's FastLocalBloom)."""

import numpy as np
import pytest

import pqfast


def keys(first, n):
    return [b"key%021d" % i for i in range(first, first + n)]


def test_rocksdb_hash64_vectors():
    # RocksDB util/hash_test.cc, Hash64SmallValueSchema (seed 0).
    assert pqfast.rocksdb_hash64(b"") == 5999572062939766020
    assert pqfast.rocksdb_hash64(b"\x08") == 583283813901344696
    assert pqfast.rocksdb_hash64(b"\x4d\x76") == 6859542833406258115
    assert pqfast.rocksdb_hash64(b"\x67\x53\x81\x1c") == 9010661983527562386
    assert pqfast.rocksdb_hash64(b"\x31\x1b\x98\x75\x96\x22\xd3\x9a") == 9844314944338447628
    assert pqfast.rocksdb_hash64(bytearray(b"\x22\x6f\x39\x1f\xf8\xdd\x4f\x52\x17\x94")) == 12883919702069153152
    # Not released XXH3.
    xxhash = pytest.importorskip("xxhash")
    assert pqfast.rocksdb_hash64(b"\x08") != xxhash.xxh3_64_intdigest(b"\x08")


def test_build_check_serialize_parse_with_keys():
    inside = keys(0, 5000)
    f = pqfast.LocalBloom.build(inside, 10)
    assert f.num_probes == 6
    assert f.payload_bytes == 6272  # ceil(5000 * 10 / 8) = 6250, rounded up to 64
    assert f.kind == "fast_local_bloom"
    assert f.check(inside).all()
    outside = keys(10_000_000, 20000)
    fp = f.check(outside).mean()
    assert 0.004 < fp < 0.02
    block = f.serialize()
    assert len(block) == 6272 + 5
    assert block[-5:] == bytes([0xFF, 0x00, 6, 0, 0])
    g = pqfast.LocalBloom.parse(block)
    assert g.serialize() == block
    assert (g.check(outside) == f.check(outside)).all()
    assert inside[3] in g


def test_keys_and_hashes_agree():
    ks = keys(100, 2000)
    hashes = np.array([pqfast.rocksdb_hash64(k) for k in ks], dtype=np.uint64)
    a = pqfast.LocalBloom.build(ks, 6.5)
    b = pqfast.LocalBloom.build(hashes, 6.5)
    assert a.serialize() == b.serialize()
    q = keys(5_000_000, 3000)
    qh = np.array([pqfast.rocksdb_hash64(k) for k in q], dtype=np.uint64)
    assert (a.check(q) == b.check(qh)).all()


def test_num_probes_follow_rocksdb():
    expected = {1: 1, 6: 4, 8: 5, 9.9: 6, 10: 6, 11: 7, 12: 8, 16: 9, 24: 12, 50: 23, 60: 24}
    for bits, probes in expected.items():
        assert pqfast.LocalBloom.build(np.arange(10, dtype=np.uint64), bits).num_probes == probes, bits


def test_every_implementation_answers_the_same(each_simd_level):
    rng = np.random.default_rng(1)
    hashes = rng.integers(0, 2**64, size=20000, dtype=np.uint64)
    queries = rng.integers(0, 2**64, size=200_000, dtype=np.uint64)
    queries[: len(hashes)] = hashes
    results = {}
    blocks = {}
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        f = pqfast.LocalBloom.build(hashes, 13.0)  # 8 probes
        g = pqfast.LocalBloom.build(hashes, 60.0)  # 24 probes: several SIMD steps
        blocks[level] = (f.serialize(), g.serialize())
        results[level] = (f.check(queries), g.check(queries))
    ref = results["scalar"]
    for level in each_simd_level:
        assert blocks[level] == blocks["scalar"], level
        assert (results[level][0] == ref[0]).all(), level
        assert (results[level][1] == ref[1]).all(), level


def test_markers_and_errors():
    always_false = pqfast.LocalBloom.parse(b"")
    assert always_false.kind == "always_false"
    assert not always_false.check([b"x"]).any()
    always_true = pqfast.LocalBloom.parse(bytes(6))
    assert always_true.kind == "always_true"
    assert always_true.check([b"x", b"y"]).all()
    good = pqfast.LocalBloom.build(keys(0, 100), 10).serialize()
    with pytest.raises(pqfast.FormatError, match="Ribbon"):
        pqfast.LocalBloom.parse(good[:-5] + bytes([0xFE, 0, 0, 0, 0]))
    with pytest.raises(pqfast.FormatError, match="Legacy Bloom"):
        pqfast.LocalBloom.parse(good[:-5] + bytes([6, 0, 0, 0, 0]))
    with pytest.raises(pqfast.FormatError, match="64-byte lines"):
        pqfast.LocalBloom.parse(good[3:])
    with pytest.raises(ValueError, match="0.5"):
        pqfast.LocalBloom.build([b"a"], 0.2)
    with pytest.raises(TypeError):
        pqfast.LocalBloom.build(b"abc", 10)
    with pytest.raises(TypeError):
        pqfast.LocalBloom.build(np.arange(3, dtype=np.int32), 10)


def test_empty_build_is_rocksdbs_always_false_block():
    f = pqfast.LocalBloom.build([], 10)
    assert f.serialize() == bytes([0xFF, 0x00, 6, 0, 0])
    assert not f.check([b"a"]).any()


def test_bench_rows_have_the_documented_fields(monkeypatch):
    """`pqfast bench local-bloom --json` rows, on a tiny configuration (no timing asserted)."""
    from pqfast.benches import local_bloom as bench

    tiny = dict(bits_per_key=10.0, keys_per_filter=500, build_filters=2, random_footprint=1 << 20,
                queries=2000, reps=1, fp_filters=2, fp_queries=2e4)
    monkeypatch.setattr(bench, "_settings", lambda quick, bpk: dict(tiny, bits_per_key=bpk))
    monkeypatch.setattr(bench, "FP_BITS", [10, 16])
    rows = bench.measure(quick=True, runs=1, bits_per_key=10.0, rocksdb=True)
    metrics = {r["metric"] for r in rows}
    assert {"build", "single", "batched", "random", "fp_rate"} <= metrics
    for r in rows:
        if r["metric"] == "note":
            continue
        assert {"metric", "bits_per_key", "implementation", "value"} <= set(r)
        assert r["value"] >= 0
    impls = {r["implementation"] for r in rows}
    assert pqfast.simd_level() in impls
    if bench.find_peer():
        assert "rocksdb" in impls
        ours = {(r["bits_per_key"], r["mode"]): r["positives"] for r in rows
                if r["metric"] == "fp_rate" and r["implementation"] == pqfast.simd_level()}
        theirs = {(r["bits_per_key"], r["mode"]): r["positives"] for r in rows
                  if r["metric"] == "fp_rate" and r["implementation"] == "rocksdb"}
        assert theirs and all(v >= 0 for v in theirs.values()) and ours
