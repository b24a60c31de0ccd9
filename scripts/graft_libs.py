#!/usr/bin/env python3
"""Copies shared libraries that auditwheel leaves to the system into a
repaired wheel, as auditwheel grafts the others: each into pqfast.libs/ under
a name with a hash of its bytes, its soname set to that name, the extension's
DT_NEEDED entry pointed at it (the RPATH $ORIGIN/../pqfast.libs that
auditwheel set finds it), and RECORD rewritten.

manylinux policies let a wheel take libz.so.1 from the system; pqfast's wheel
carries its zlib like every other page codec so that it needs nothing beyond
glibc and libstdc++ (scripts/wheel.sh).

    scripts/graft_libs.py WHEEL SONAME...     (patchelf on PATH)
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def _resolve(extension: Path, soname: str) -> Path:
    """Where the dynamic loader finds `soname` for this extension (ldd's answer)."""
    out = subprocess.run(["ldd", str(extension)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] == soname and len(parts) >= 3 and parts[1] == "=>":
            return Path(parts[2]).resolve()
    raise SystemExit(f"graft_libs: {soname} is not a dependency of {extension.name}")


def _record_row(root: Path, path: Path) -> list[str]:
    data = path.read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [path.relative_to(root).as_posix(), f"sha256={digest}", str(len(data))]


def graft(wheel: Path, sonames: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(root)
        extensions = sorted((root / "pqfast").glob("_pqfast*.so"))
        if len(extensions) != 1:
            raise SystemExit(f"graft_libs: expected one extension module in {wheel}, found {extensions}")
        ext = extensions[0]
        libs = root / "pqfast.libs"
        libs.mkdir(exist_ok=True)
        for soname in sonames:
            source = _resolve(ext, soname)
            stem, _, suffix = soname.partition(".so")
            tag = hashlib.sha256(source.read_bytes()).hexdigest()[:8]
            name = f"{stem}-{tag}.so{suffix}"
            shutil.copyfile(source, libs / name)
            os.chmod(libs / name, 0o755)
            subprocess.run(["patchelf", "--set-soname", name, str(libs / name)], check=True)
            subprocess.run(["patchelf", "--replace-needed", soname, name, str(ext)], check=True)
            print(f"graft_libs: {soname} ({source}) -> pqfast.libs/{name}")
        record = next(root.glob("*.dist-info/RECORD"))
        rows = [_record_row(root, p) for p in sorted(root.rglob("*")) if p.is_file() and p != record]
        rows.append([record.relative_to(root).as_posix(), "", ""])
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows)
        record.write_text(buf.getvalue())
        rebuilt = wheel.with_suffix(".tmp")
        with zipfile.ZipFile(rebuilt, "w", zipfile.ZIP_DEFLATED) as z:
            # dist-info last, RECORD last of all, as wheels are laid out.
            files = sorted(p for p in root.rglob("*") if p.is_file())
            files.sort(key=lambda p: (".dist-info" in p.relative_to(root).parts[0], p == record))
            for p in files:
                z.write(p, p.relative_to(root).as_posix())
        rebuilt.replace(wheel)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    graft(Path(sys.argv[1]), sys.argv[2:])
