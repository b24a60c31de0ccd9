import numpy as np
import pytest

import pqfast


def test_insert_check_every_implementation(each_simd_level):
    rng = np.random.default_rng(3)
    inserted = rng.integers(0, 2**64, size=20000, dtype=np.uint64)
    queries = np.concatenate([inserted[:5000], rng.integers(0, 2**64, size=50000, dtype=np.uint64)])
    pqfast.set_simd_level("scalar")
    ref = pqfast.Sbbf(32 * 3001)  # a non-power-of-two block count
    ref.insert_hashes(inserted)
    expected = ref.check_hashes(queries)
    assert expected[:5000].all()
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        f = pqfast.Sbbf(32 * 3001)
        f.insert_hashes(inserted)
        assert f.bitset == ref.bitset
        got = ref.check_hashes(queries)
        assert got.dtype == np.bool_
        assert np.array_equal(got, expected)


def test_typed_insert_and_check():
    f = pqfast.Sbbf.for_ndv(1000, 0.01)
    f.insert(["apple", "banana"], "BYTE_ARRAY")
    assert f.check(["apple", "banana"], "BYTE_ARRAY").all()
    assert not f.check(["cherry-" + str(i) for i in range(100)], "BYTE_ARRAY").all()
    f.insert(np.arange(100, dtype=np.int32), "INT32")
    assert f.check(np.arange(100), "INT32").all()


def test_serialize_parse_round_trip():
    f = pqfast.Sbbf.for_ndv(500, 0.05)
    f.insert(np.arange(500), "INT64")
    blob = f.serialize()
    g = pqfast.Sbbf.parse(blob)
    assert g.bitset == f.bitset and g.num_bytes == f.num_bytes
    h = pqfast.Sbbf.from_bitset(f.bitset)
    assert h.bitset == f.bitset


def test_parse_errors_are_format_errors():
    f = pqfast.Sbbf(64)
    blob = f.serialize()
    for cut in range(len(blob)):
        with pytest.raises(pqfast.FormatError):
            pqfast.Sbbf.parse(blob[:cut])
    with pytest.raises(pqfast.FormatError, match="multiple of 32"):
        pqfast.Sbbf(33)
    with pytest.raises(pqfast.FormatError, match="multiple of 32"):
        pqfast.Sbbf.from_bitset(b"\0" * 40)


def test_fold():
    f = pqfast.Sbbf.for_ndv(100000, 0.01)
    f.insert(np.arange(1000), "INT64")
    before = f.num_bytes
    folds = f.fold(0.01)
    assert folds > 0 and f.num_bytes == before >> folds
    assert f.check(np.arange(1000), "INT64").all()


def test_parquet_testing_bins(data_dir):
    f = pqfast.Sbbf.parse((data_dir / "bloom_filter.xxhash.bin").read_bytes())
    assert f.check(["hello", "parquet", "bloom", "filter"], "BYTE_ARRAY").all()
    with pytest.raises(pqfast.FormatError, match="BloomFilterHeader"):
        pqfast.Sbbf.parse((data_dir / "bloom_filter.bin").read_bytes())


def test_fused_check_equals_hash_then_probe(each_simd_level):
    rng = np.random.default_rng(11)
    f = pqfast.Sbbf.for_ndv(5000, 0.05)
    inserted = rng.integers(-(2**40), 2**40, size=5000)
    f.insert(inserted, "INT64")
    queries = np.concatenate([inserted[:1000], rng.integers(-(2**62), 2**62, size=20000)])
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        for t, q in [("INT64", queries), ("INT32", queries.astype(np.int32)),
                     ("DOUBLE", queries / 3.0), ("FLOAT", (queries / 3.0).astype(np.float32))]:
            expected = f.check_hashes(pqfast.hash_values(q, t))
            assert np.array_equal(f.check(q, t), expected), (level, t)
        assert f.check(inserted, "INT64").all()


def test_check_product_matches_per_filter_checks(each_simd_level):
    rng = np.random.default_rng(12)
    filters = []
    for i in range(7):
        f = pqfast.Sbbf(32 * (50 + 13 * i))  # different, non-power-of-two sizes
        f.insert(np.arange(i * 1000, i * 1000 + 800), "INT64")
        filters.append(f)
    values = np.concatenate([np.arange(0, 7000, 37), rng.integers(10**6, 10**9, 200)])
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        got = pqfast.check_product(filters, values, "INT64")
        assert got.shape == (len(values), len(filters))
        for j, f in enumerate(filters):
            assert np.array_equal(got[:, j], f.check(values, "INT64")), (level, j)
        hashes = pqfast.hash_values(values, "INT64")
        assert np.array_equal(pqfast.check_product(filters, hashes), got)
    assert pqfast.check_product([], values, "INT64").shape == (len(values), 0)
