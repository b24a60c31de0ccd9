import numpy as np
import pytest
import xxhash

import pqfast
from conftest import run_cli


def test_simd_levels():
    levels = pqfast.available_simd_levels()
    assert levels[0] == "scalar"
    assert pqfast.simd_level() in levels


def test_unknown_simd_name_is_a_clear_error():
    with pytest.raises(pqfast.FormatError, match="unknown SIMD implementation 'avx3'"):
        pqfast.set_simd_level("avx3")


@pytest.mark.parametrize("value,expected_fragment", [("avx3", "unknown SIMD implementation"), ("neon", "cannot run it")])
def test_bad_PQFAST_SIMD_fails_loudly(value, expected_fragment):
    if value == "neon" and "neon" in pqfast.available_simd_levels():
        pytest.skip("neon is available here")
    proc = run_cli("demo", "--rows", "1000", "--no-bench", env={"PQFAST_SIMD": value}, check=False)
    assert proc.returncode == 2
    assert expected_fragment in proc.stderr


def test_version_reports_active_implementation():
    for level in pqfast.available_simd_levels():
        proc = run_cli("--version", env={"PQFAST_SIMD": level})
        assert f"SIMD: {level}" in proc.stdout
        assert pqfast.__version__ in proc.stdout


def test_xxh64_matches_xxhash_package():
    rng = np.random.default_rng(1)
    for n in range(0, 1025):
        data = rng.integers(0, 256, size=n, dtype=np.uint8).tobytes()
        assert pqfast.xxh64(data) == xxhash.xxh64_intdigest(data)
        assert pqfast.xxh64(data, seed=77) == xxhash.xxh64_intdigest(data, seed=77)


def test_hash_values_every_type(each_simd_level):
    rng = np.random.default_rng(2)
    i32 = rng.integers(-(2**31), 2**31, size=500, dtype=np.int32)
    i64 = rng.integers(-(2**63), 2**63 - 1, size=500, dtype=np.int64)
    f32 = rng.standard_normal(500).astype(np.float32)
    f64 = np.concatenate([rng.standard_normal(497), [-0.0, np.nan, np.inf]])
    strs = [f"value-{i}" * (i % 5) for i in range(300)]
    flba = [rng.integers(0, 256, 16, dtype=np.uint8).tobytes() for _ in range(100)]
    int96 = [rng.integers(0, 256, 12, dtype=np.uint8).tobytes() for _ in range(100)]
    for level in each_simd_level:
        pqfast.set_simd_level(level)
        for arr, t in [(i32, "INT32"), (i64, "INT64"), (f32, "FLOAT"), (f64, "DOUBLE")]:
            got = pqfast.hash_values(arr, t)
            assert got.dtype == np.uint64
            assert got.tolist() == [xxhash.xxh64_intdigest(v.tobytes()) for v in arr]
        assert pqfast.hash_values(strs, "BYTE_ARRAY").tolist() == [xxhash.xxh64_intdigest(s.encode()) for s in strs]
        assert pqfast.hash_values(flba, "FIXED_LEN_BYTE_ARRAY").tolist() == [xxhash.xxh64_intdigest(b) for b in flba]
        assert pqfast.hash_values(int96, "INT96").tolist() == [xxhash.xxh64_intdigest(b) for b in int96]


def test_hash_values_pyarrow_inputs():
    pa = pytest.importorskip("pyarrow")
    arr = pa.array(["a", "bb", "", "dddd"]).slice(1)
    assert pqfast.hash_values(arr, "BYTE_ARRAY").tolist() == [xxhash.xxh64_intdigest(s.encode()) for s in ["bb", "", "dddd"]]
    ints = pa.chunked_array([[1, 2], [3]], type=pa.int64())
    assert pqfast.hash_values(ints, "INT64").tolist() == [xxhash.xxh64_intdigest(np.int64(v).tobytes()) for v in [1, 2, 3]]


def test_hash_values_errors():
    with pytest.raises(pqfast.FormatError, match="BOOLEAN"):
        pqfast.hash_values([True], "BOOLEAN")
    with pytest.raises(pqfast.FormatError, match="unknown physical type"):
        pqfast.hash_values([1], "INT8")
    with pytest.raises(pqfast.FormatError, match="out of range"):
        pqfast.hash_values(np.array([2**40]), "INT32")
    with pytest.raises(pqfast.FormatError, match="needs 4"):
        pqfast.hash_values([b"abcd", b"abc"], "FIXED_LEN_BYTE_ARRAY")
    assert issubclass(pqfast.FormatError, ValueError)
