"""What this build of pqfast carries: its version, the compression codecs
compiled in (and the ones a source build left out with
PQFAST_ALLOW_MISSING_CODECS), and the SIMD implementations this CPU runs."""

from __future__ import annotations

from . import _pqfast


def build_info() -> dict:
    """The build's version, codecs and SIMD levels, as a dict.

    ``codecs`` lists the compression libraries built in (``snappy``, ``zlib``
    for GZIP, ``zstd``, ``lz4`` for LZ4_RAW and Hadoop LZ4, ``brotli``);
    ``missing_codecs`` the ones this build lacks (empty for wheels and for
    default source builds, which stop when one is missing); ``simd_levels``
    the implementations this CPU and build can run, best last, and
    ``simd_level`` the active one (``PQFAST_SIMD`` forces one).

    >>> sorted(pqfast.build_info())
    ['codecs', 'missing_codecs', 'simd_level', 'simd_levels', 'version']
    """
    libraries = [(str(name), bool(ok)) for name, ok in _pqfast._codec_libraries()]
    problem = _pqfast.simd_status()
    return {
        "version": _pqfast.__version__,
        "codecs": [name for name, ok in libraries if ok],
        "missing_codecs": [name for name, ok in libraries if not ok],
        "simd_levels": list(_pqfast.available_simd_levels()),
        "simd_level": None if problem else _pqfast.simd_level(),
    }


def version_line() -> str:
    """One line for ``pqfast --version``: version, codecs, SIMD levels."""
    info = build_info()
    missing = f"; MISSING codecs: {', '.join(info['missing_codecs'])}" if info["missing_codecs"] else ""
    active = info["simd_level"] or "invalid PQFAST_SIMD"
    return (
        f"pqfast {info['version']} (codecs: {', '.join(info['codecs'])}{missing}; "
        f"SIMD: {active}; available: {', '.join(info['simd_levels'])})"
    )
