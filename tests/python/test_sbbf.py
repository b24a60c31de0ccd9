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
