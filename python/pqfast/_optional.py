"""Optional third-party packages, imported where a feature first needs them,
with an error that says which extra to install.

pqfast imports without them (pyproject's extras): obstore for ``s3://``
URLs, botocore for ``pqfast.index`` on S3, fsspec's event loop for its async
filesystems, uvloop where installed. Library modules take them through
``load`` (or ``find`` for a package that only speeds things up), never with an
``import`` inside a function.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# Top-level package -> (what needs it, the pip requirement that brings it).
_WHY = {
    "obstore": ("s3:// URLs", "pqfast[s3]"),
    "botocore": ("pqfast.index on s3:// URLs", "botocore"),
    "fsspec": ("an fsspec filesystem", "fsspec"),
    "uvloop": ("the faster event loop", "uvloop"),
}


def load(name: str) -> ModuleType:
    """The module `name` (e.g. "obstore.store"); ImportError naming the
    feature and what to install when its package is absent."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        top = name.split(".")[0]
        if e.name is None or e.name.split(".")[0] != top:
            raise  # the package is there; something it imports is not
        what, pip = _WHY.get(top, (name, top))
        raise ImportError(f"pqfast: {what} need {top}: pip install {pip}") from e


def find(name: str) -> ModuleType | None:
    """The module `name`, or None when its package is not installed."""
    try:
        return load(name)
    except ImportError:
        return None
