"""Source builds are loud about page codecs: CMake stops, naming the packages
to install, when a codec's headers are missing (hidden here by pointing
PQFAST_<codec>_INCLUDE at an empty directory), unless the builder opts out
with PQFAST_ALLOW_MISSING_CODECS; such a build then says what it lacks in
pqfast.build_info(). And this build (the one under test: the wheel in CI)
has every codec and reads a file of each."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import pqfast

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "parquet-testing" / "data"
LONG = os.environ.get("PQFAST_LONG_TESTS") == "1"
needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")

# A file of each codec, from apache/parquet-testing (its brotli file holds a
# 1 GiB page: brotli is covered by the files pyarrow writes below).
CODEC_FILES = {
    "snappy": "alltypes_plain.snappy.parquet",
    "zlib": "byte_stream_split_extended.gzip.parquet",
    "zstd": "byte_stream_split.zstd.parquet",
    "lz4": "lz4_raw_compressed.parquet",
    "lz4 (Hadoop framing)": "hadoop_lz4_compressed.parquet",
}


def _configure(build: Path, empty: Path, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja", f"-DPQFAST_zstd_INCLUDE={empty}", *extra],
        capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300)


def test_this_build_has_every_codec():
    info = pqfast.build_info()
    assert info["codecs"] == ["snappy", "zlib", "zstd", "lz4", "brotli"]
    assert info["missing_codecs"] == []
    assert info["version"] == pqfast.__version__
    assert info["simd_level"] in info["simd_levels"]


@pytest.mark.parametrize("codec", list(CODEC_FILES))
def test_reads_a_file_of_each_codec(codec):
    import pyarrow.parquet as pq

    path = DATA / CODEC_FILES[codec]
    if not path.exists():
        pytest.skip(f"{path} not in this checkout")
    assert pqfast.read_table(str(path)).equals(pq.read_table(path))


@pytest.mark.parametrize("compression", ["snappy", "gzip", "zstd", "lz4", "brotli"])
def test_reads_what_pyarrow_compresses(tmp_path, compression):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    ids = np.arange(50_000, dtype=np.int64) * 7
    t = pa.table({"id": ids, "s": pa.array([f"value-{v % 1000}" for v in ids])})
    path = tmp_path / f"{compression}.parquet"
    pq.write_table(t, path, compression=compression, row_group_size=20_000)
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression.lower() == compression
    assert pqfast.read_table(str(path)).equals(t)


@needs_cmake
def test_missing_codec_stops_the_build_naming_packages(tmp_path):
    empty = tmp_path / "empty-include"
    empty.mkdir()
    proc = _configure(tmp_path / "b", empty)
    assert proc.returncode != 0
    err = " ".join(proc.stderr.split())
    assert "page codec libraries not found: zstd." in err
    for package in ("Debian/Ubuntu: libzstd-dev", "Fedora/RHEL: libzstd-devel", "Homebrew: zstd",
                    "PQFAST_ALLOW_MISSING_CODECS"):
        assert package in err, package
    for found in ("snappy", "zlib", "lz4", "brotli"):
        assert f"{found} (" not in err


@needs_cmake
def test_snappy_needs_no_library(tmp_path):
    """SNAPPY is pqfast's own decoder: a build configured where no libsnappy
    can be found (its header and library hidden from the tests' optional
    reference, and nothing else looks for them) still has SNAPPY without
    opting out, and no target links libsnappy."""
    empty = tmp_path / "empty-include"
    empty.mkdir()
    build = tmp_path / "b"
    proc = subprocess.run(
        ["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja", "-DPQFAST_BUILD_TESTS=ON",
         f"-DPQFAST_TEST_SNAPPY_INCLUDE={empty}", "-DPQFAST_TEST_SNAPPY_LIBRARY=PQFAST_TEST_SNAPPY_LIBRARY-NOTFOUND"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"page codecs built in: snappy zlib zstd lz4 brotli\n", proc.stdout)
    assert "WITHOUT" not in proc.stderr
    assert "no libsnappy, the snappy decoder's checks against it are left out" in proc.stdout
    cache = (build / "CMakeCache.txt").read_text()
    assert "PQFAST_snappy" not in cache  # (the library's own lookup is gone)
    ninja = (build / "build.ninja").read_text()
    assert "libsnappy" not in ninja and "-lsnappy" not in ninja


@needs_cmake
@pytest.mark.parametrize("opt_out", ["option", "environment"])
def test_opting_out_configures_and_warns(tmp_path, opt_out):
    empty = tmp_path / "empty-include"
    empty.mkdir()
    if opt_out == "option":
        proc = _configure(tmp_path / "b", empty, "-DPQFAST_ALLOW_MISSING_CODECS=ON")
    else:
        proc = _configure(tmp_path / "b", empty, env={"PQFAST_ALLOW_MISSING_CODECS": "1"})
    assert proc.returncode == 0, proc.stderr
    assert "building WITHOUT the page codecs: zstd" in " ".join(proc.stderr.split())
    assert re.search(r"page codecs built in: snappy zlib lz4 brotli\n", proc.stdout)


@needs_cmake
@pytest.mark.skipif(not LONG, reason="builds the extension again: PQFAST_LONG_TESTS=1")
def test_build_without_zstd_says_so(tmp_path):
    empty = tmp_path / "empty-include"
    empty.mkdir()
    # Under the repository's build/ (as build/dev is) so that ccache, keyed on
    # paths relative to the checkout, serves every object but codec.cc, and a
    # rerun is incremental.
    build = REPO / "build" / "test-without-zstd"
    launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
    proc = _configure(build, empty, "-DPQFAST_ALLOW_MISSING_CODECS=ON", "-DPQFAST_BUILD_PYTHON=ON",
                      "-DCMAKE_BUILD_TYPE=Release", f"-DPython_EXECUTABLE={sys.executable}", *launcher)
    assert proc.returncode == 0, proc.stderr
    jobs = str(os.cpu_count() or 2)
    made = subprocess.run(["cmake", "--build", str(build), "-j", jobs, "--target", "pqfast_python_files"],
                          capture_output=True, text=True, timeout=3600)
    assert made.returncode == 0, made.stdout[-4000:]
    probe = (
        "import pqfast, sys\n"
        "info = pqfast.build_info()\n"
        "print(info['codecs'], info['missing_codecs'])\n"
        f"print('snappy rows:', pqfast.read_table({str(DATA / CODEC_FILES['snappy'])!r}).num_rows)\n"
        "try:\n"
        f"    pqfast.read_table({str(DATA / CODEC_FILES['zstd'])!r})\n"
        "except pqfast.FormatError as e:\n"
        "    print('error:', e)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(build / "python")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "['snappy', 'zlib', 'lz4', 'brotli'] ['zstd']" in out.stdout
    assert "snappy rows: 2" in out.stdout
    assert "compression codec ZSTD is not supported by this build of pqfast" in out.stdout
    version = subprocess.run([sys.executable, "-m", "pqfast", "--version"], capture_output=True, text=True,
                             env=env, cwd=tmp_path)
    assert "MISSING codecs: zstd" in version.stdout


def test_version_has_one_home():
    cmake = (REPO / "CMakeLists.txt").read_text()
    declared = re.search(r"project\(pqfast VERSION ([0-9.]+)", cmake).group(1)
    assert pqfast.__version__ == declared
    project = re.search(r"^\[project\]\n(.*?)^\[", (REPO / "pyproject.toml").read_text(), re.S | re.M).group(1)
    assert 'dynamic = ["version"]' in project and not re.search(r"^version\s*=", project, re.M)
    assert f"## {declared}" in (REPO / "CHANGELOG.md").read_text()
    try:
        dist = metadata.distribution("pqfast")
    except metadata.PackageNotFoundError:
        return
    # Installed (the wheel under test): its metadata carries the same version.
    if Path(dist.locate_file("pqfast/__init__.py")).resolve() == Path(pqfast.__file__).resolve():
        assert dist.version == declared


def test_wheel_links_its_own_codecs():
    """Installed from the wheel (a pqfast.libs/ beside the package, as
    auditwheel grafts it), the extension resolves every codec library there."""
    package = Path(pqfast.__file__).resolve().parent
    libs = package.parent / "pqfast.libs"
    if not libs.is_dir():
        pytest.skip("pqfast is not installed from a wheel (no pqfast.libs/)")
    extension = next(package.glob("_pqfast*.so"))
    out = subprocess.run(["ldd", str(extension)], capture_output=True, text=True, check=True).stdout
    resolved = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>":
            resolved[parts[0]] = Path(parts[2]).resolve()
    # No libsnappy: SNAPPY pages inflate through pqfast's own decoder
    # (src/parquet/snappy_decode.cc), so the extension does not link it.
    assert not any(name.startswith("libsnappy") for name in resolved), out
    for codec in ("libz", "libzstd", "liblz4", "libbrotlidec", "libbrotlicommon"):
        found = [path for name, path in resolved.items() if name.startswith(codec + "-") or name.startswith(codec + ".")]
        assert found, f"{codec} not linked: {out}"
        assert all(p.parent == libs.resolve() for p in found), f"{codec} resolved outside the wheel: {found}"
    outside = [n for n, p in resolved.items() if p.parent != libs.resolve()]
    assert all(n.split(".so")[0] in ("libstdc++", "libm", "libgcc_s", "libc", "libpthread", "libdl") for n in outside), outside
