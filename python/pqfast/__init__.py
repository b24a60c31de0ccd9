"""pqfast: the fast path of the Parquet read stack.

Parquet Split Block Bloom Filters, RocksDB's cache-local Bloom filter, DELTA
decoding and Bloom-filter pruning of Parquet lakes, on SIMD kernels chosen at
run time (``PQFAST_SIMD=scalar|sse4|avx2|avx512|neon`` forces one).
"""

import os
import sys

# pyarrow's shared libraries load before our extension: on a 16-core Ubuntu
# 24.04 machine with pqfast built by GCC 13, loading pyarrow 26's wheel after
# _pqfast aborted in free(); pqfast needs pyarrow anyway (every read returns
# Arrow data), so importing it first costs nothing.
import pyarrow  # noqa: F401

from . import _pqfast
from ._pqfast import (
    FormatError, MemoryLimitError, __version__, available_simd_levels, set_simd_level, simd_level, xxh64,
)


def _invoked_as_cli() -> bool:
    orig = list(getattr(sys, "orig_argv", []))
    if "-m" in orig and orig.index("-m") + 1 < len(orig) and orig[orig.index("-m") + 1] == "pqfast":
        return True
    return os.path.basename(sys.argv[0] if sys.argv else "") == "pqfast"


_simd_problem = _pqfast.simd_status()
if _simd_problem:
    # Never fall back silently: a forced implementation that cannot run is an
    # error the user must see. The CLI reports it in one line; importers get
    # an ImportError.
    if _invoked_as_cli():
        sys.stderr.write(f"error: {_simd_problem}\n")
        sys.exit(2)
    raise ImportError(f"pqfast: {_simd_problem}")

from . import delta  # noqa: E402
from ._values import PHYSICAL_TYPES, hash_values  # noqa: E402
from .local_bloom import LocalBloom, rocksdb_hash64  # noqa: E402
from .sbbf import Sbbf, check_product  # noqa: E402
from .reader import read_table  # noqa: E402
from ._index import IndexSummary, index  # noqa: E402
from ._build_info import build_info  # noqa: E402


def default_memory_limit() -> int:
    """The bytes a read may allocate when no ``memory_limit=`` is given: half of
    the smallest of physical memory, the cgroup's memory.max and what RLIMIT_AS
    leaves free, read once per process."""
    return int(_pqfast._default_memory_limit())


from .parquet import (  # noqa: E402
    ColumnChunkMetaData,
    ParquetFile,
    RowGroupMetaData,
    Statistics,
    clear_footer_cache,
    prune,
    read_pruned,
)

# pqfast.Dataset subclasses pyarrow.dataset.Dataset, and importing
# pyarrow.dataset costs ~40 MiB of RSS and ~0.4 s: the dataset API is loaded on
# first use (PEP 562), so `import pqfast` for a lookup does not pay it.
_DATASET_NAMES = ("Dataset", "Fragment", "Scanner", "dataset")


def __getattr__(name: str):
    if name in _DATASET_NAMES:
        from . import _dataset  # deferred for import cost (see above), not for an import loop

        value = getattr(_dataset, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'pqfast' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_DATASET_NAMES))


__all__ = [
    "Dataset",
    "Fragment",
    "Scanner",
    "dataset",
    "ColumnChunkMetaData",
    "build_info",
    "FormatError",
    "MemoryLimitError",
    "IndexSummary",
    "index",
    "ParquetFile",
    "RowGroupMetaData",
    "Statistics",
    "clear_footer_cache",
    "prune",
    "read_pruned",
    "read_table",
    "default_memory_limit",
    "LocalBloom",
    "PHYSICAL_TYPES",
    "Sbbf",
    "__version__",
    "available_simd_levels",
    "check_product",
    "delta",
    "hash_values",
    "rocksdb_hash64",
    "set_simd_level",
    "simd_level",
    "xxh64",
]
