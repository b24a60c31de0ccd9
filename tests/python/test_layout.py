"""The package laid out as docs/architecture.md draws it, checked on the sources.

Every module of python/pqfast is parsed with ``ast`` (imports at the top and
inside functions alike) and held to the layout:

- each module sits in one layer (LAYERS below, the table of
  docs/architecture.md) and imports only from its own layer or lower ones;
- no import cycle among pqfast's modules, deferred imports included;
- no import inside a function, except of optional third-party packages
  (a user may not have them installed) and the few heavy imports deferred for
  import-time cost, each in ALLOWED_DEFERRED with the reason;
- no control flow on an exception's message text (``"..." in str(e)``,
  ``str(e).startswith(...)``): errors carry codes (``pqfast.FormatError.code``).

And the two behaviours the layout is for: ``import pqfast`` does not import
pyarrow.dataset (about 88 MiB and 0.4 s), and errors carry their codes.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqfast
from pqfast import _errors, _optional
from pqfast._read_local import read_rows

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "pqfast"

# Bottom to top (docs/architecture.md, "The Python package"). A new module gets
# a row here and in that table.
LAYERS = [
    ("leaves", ["_pqfast", "_errors", "_optional", "_build_info", "_progress", "_table", "_time_values", "_strings",
                "_dictionaries", "_values", "_paths", "_remote_file", "_index_run"]),
    ("kernels", ["sbbf", "local_bloom", "delta"]),
    ("values and types", ["_encode", "_plan", "filters", "_assemble"]),
    ("I/O backends", ["remote", "sansio", "fs_driver", "_index_s3", "_requests"]),
    ("one file", ["_nested", "_read", "_scan_whole", "_file"]),
    ("planning", ["_partitions", "_rowgroup_stats", "_sidecar", "_sidecar_s3"]),
    ("scan", ["scan", "_filtered_scan", "_prune"]),
    ("lake", ["_lake", "_stream_plan", "_stream_io", "_read_scan", "_fragments", "_dataset_scan", "_read_remote",
              "_read_local"]),
    ("API", ["reader", "parquet", "_dataset", "_index", "_index_sidecar", "__init__"]),
    ("engine adapters", ["polars", "dask", "ray", "duckdb", "datafusion"]),
    ("CLI and tools", ["cli", "__main__", "commands", "benches", "_s3server", "_testlake", "_latency_proxy"]),
]

# Optional third-party packages: imported where used, so pqfast imports
# without them (pyproject's extras).
OPTIONAL = {"obstore", "polars", "dask", "distributed", "ray", "duckdb", "datafusion", "fsspec", "s3fs", "tqdm",
            "matplotlib", "pandas", "botocore", "uvloop"}

# (importing module, imported module): why it is deferred.
ALLOWED_DEFERRED = {
    ("pqfast", "pqfast._dataset"): "pqfast.dataset/Dataset/... load pyarrow.dataset (~88 MiB, 0.4 s) on first use",
    ("pqfast.benches.engines", "pqfast.dask"): "pqfast.dask imports dask (optional)",
    ("pqfast.benches.engines", "pqfast.polars"): "pqfast.polars imports polars (optional)",
    ("pqfast.benches.lake", "pqfast.dask"): "pqfast.dask imports dask (optional)",
    ("pqfast.benches.lookup", "pyarrow.dataset"): "the CLI imports every bench to build its parser",
    ("pqfast.benches.lookup_s3", "pyarrow.dataset"): "the CLI imports every bench to build its parser",
    ("pqfast.benches.stream", "pyarrow.dataset"): "the CLI imports every bench to build its parser",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["pqfast", *parts])


def _modules() -> dict[str, ast.Module]:
    return {_module_name(p): ast.parse(p.read_text(), str(p)) for p in sorted(PACKAGE.rglob("*.py"))}


def _targets(module: str, is_package: bool, node) -> list[str]:
    """The modules an import statement imports (``from . import x`` names x)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level == 0:
        base = node.module
    else:
        parts = module.split(".")
        if not is_package:
            parts = parts[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    if node.module is None:
        return [f"{base}.{a.name}" for a in node.names]
    return [base]


def _imports(modules: dict) -> list[tuple[str, str, bool, int]]:
    """(module, imported module, inside a function, line) for every import."""
    out = []
    for name, tree in modules.items():
        is_package = name == "pqfast" or name in ("pqfast.commands", "pqfast.benches")

        def walk(node, in_function):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for t in _targets(name, is_package, child):
                        out.append((name, t, in_function, child.lineno))
                walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

        walk(tree, False)
    return out


def _own(target: str, modules: dict) -> str | None:
    """The pqfast module an import target is (a name imported from a module: that module)."""
    if target == "pqfast._pqfast":
        return target
    while target.startswith("pqfast"):
        if target in modules:
            return target
        if "." not in target:
            return None
        target = target.rsplit(".", 1)[0]
    return None


def _layer_of(module: str) -> int:
    short = module[len("pqfast."):] if module != "pqfast" else "__init__"
    top = short.split(".")[0]
    for i, (_, names) in enumerate(LAYERS):
        if short in names or top in names:
            return i
    raise AssertionError(f"{module} is in no layer: add it to LAYERS here and to docs/architecture.md")


def test_every_module_has_a_layer():
    for name in _modules():
        _layer_of(name)


def test_imports_go_down_the_layers():
    modules = _modules()
    upward = []
    for src, target, _, line in _imports(modules):
        dst = _own(target, modules)
        if dst is None or dst == src:
            continue
        if _layer_of(dst) > _layer_of(src):
            upward.append(f"{src}:{line} imports {dst} ({LAYERS[_layer_of(src)][0]} -> {LAYERS[_layer_of(dst)][0]})")
    assert not upward, "imports up the layers:\n" + "\n".join(upward)


def test_no_import_cycle():
    modules = _modules()
    graph: dict[str, set] = {m: set() for m in modules}
    for src, target, _, _ in _imports(modules):
        dst = _own(target, modules)
        if dst is not None and dst != src and dst in modules:
            graph[src].add(dst)
    # Depth-first search for a back edge; the cycle is reported as a path.
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycle = stack[stack.index(n):] + [n]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_no_function_local_imports_but_optional_and_deferred():
    local = []
    for src, target, in_function, line in _imports(_modules()):
        if not in_function or target.split(".")[0] in OPTIONAL:
            continue
        if (src, target) in ALLOWED_DEFERRED:
            continue
        local.append(f"{src}:{line}: import {target}")
    assert not local, "imports inside functions (import at the module's top):\n" + "\n".join(local)


def test_allowed_deferred_imports_exist():
    """The allow-list holds no stale entry (each names an import that is there)."""
    found = {(src, target) for src, target, in_function, _ in _imports(_modules()) if in_function}
    assert set(ALLOWED_DEFERRED) <= found, set(ALLOWED_DEFERRED) - found


def _message_branches(tree: ast.Module) -> list[int]:
    """Lines where a test (if/while/ternary/assert/comprehension filter)
    looks at an exception's text: str(e), repr(e) or e.args of a name bound
    by ``except ... as e``."""
    caught: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.name:
            caught.add(node.name)
    tests = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            tests.append(node.test)
        elif isinstance(node, ast.comprehension):
            tests.extend(node.ifs)
        elif isinstance(node, ast.FunctionDef) and node.name.startswith("_is_"):
            tests.extend(n.value for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None)
    def is_args(n):
        return isinstance(n, ast.Attribute) and n.attr == "args" and isinstance(n.value, ast.Name) and n.value.id in caught

    lines = []
    for test in tests:
        for n in ast.walk(test):
            text_of_error = (
                (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("str", "repr")
                 and n.args and isinstance(n.args[0], ast.Name) and n.args[0].id in caught)
                or (isinstance(n, ast.Subscript) and is_args(n.value))
                or (isinstance(n, ast.Compare) and any(is_args(x) for x in [n.left, *n.comparators])))
            if text_of_error:
                lines.append(n.lineno)
    return sorted(set(lines))


def test_no_control_flow_on_error_text():
    found = []
    for name, tree in _modules().items():
        found += [f"{name}:{line}" for line in _message_branches(tree)]
    assert not found, "branches on an exception's message text (use its code or type):\n" + "\n".join(found)


def test_the_checker_sees_message_branches():
    """The check above would catch the shapes it forbids."""
    bad = ast.parse("try:\n    f()\nexcept ValueError as e:\n    if 'no column' in str(e):\n        raise\n"
                    "    x = 1 if str(e).endswith('x') else 2\n    if e.args[0] == 'y':\n        pass\n")
    assert _message_branches(bad) == [4, 6, 7]
    good = ast.parse("try:\n    f()\nexcept ValueError as e:\n    if e.code == 'unsupported':\n        raise\n")
    assert _message_branches(good) == []


def test_import_pqfast_leaves_pyarrow_dataset_alone(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), path)
    code = (
        "import sys, pqfast\n"
        "assert 'pyarrow.dataset' not in sys.modules, 'import pqfast imported pyarrow.dataset'\n"
        f"ds = pqfast.dataset({str(path)!r})\n"
        "assert isinstance(ds, pqfast.Dataset) and issubclass(pqfast.Dataset, sys.modules['pyarrow.dataset'].Dataset)\n"
        "assert ds.to_table().column('a').to_pylist() == [1, 2, 3]\n"
        "from pqfast import Scanner, Fragment, dataset\n"
        "assert 'Dataset' in dir(pqfast)\n"
        "print('ok')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        pqfast.no_such_name  # noqa: B018


def test_native_errors_carry_their_code(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1" + b"\0" * 64)
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.ParquetFile(str(bad))
    assert e.value.code in (_errors.CORRUPT, _errors.TRUNCATED)
    assert str(e.value).startswith(e.value.code + ":")

    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({"a": [1, 2, 3]}), good)
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.read_table(str(good), filters=[("a", "=", 1)], memory_limit=0)
    assert e.value.code is None or e.value.code == _errors.INVALID_ARGUMENT
    with pytest.raises(KeyError):
        pqfast.ParquetFile(str(good)).column_index("b")
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.prune(str(good), "b", [1])
    assert e.value.code == _errors.INVALID_ARGUMENT and "no column 'b'" in str(e.value)


def test_memory_limit_error_has_its_code():
    assert pqfast.MemoryLimitError.code == _errors.MEMORY_LIMIT
    assert pqfast.FormatError.code is None  # raised by Python code that gave none


def test_python_errors_carry_codes(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"a": pa.array([1, 2], pa.int32())}), path)
    with pytest.raises(pqfast.FormatError) as e:
        pqfast.read_table(str(path), filters=[("a", "=", "x")])
    assert e.value.code == _errors.INVALID_ARGUMENT and "'a'" in str(e.value)
    err = _errors.format_error("unsupported: something", _errors.UNSUPPORTED, column="c")
    again = _errors.reworded(err, f"f.parquet: {err}")
    assert isinstance(again, pqfast.FormatError)
    assert (again.code, again.column, str(again)) == (_errors.UNSUPPORTED, "c", "f.parquet: unsupported: something")


def test_optional_packages_load_with_a_clear_error():
    assert _optional.load("json").dumps([1]) == "[1]"
    assert _optional.find("pqfast_no_such_package") is None
    with pytest.raises(ImportError, match="pip install pqfast_no_such_package"):
        _optional.load("pqfast_no_such_package.sub")


def test_schema_mismatch_by_code_keeps_other_invalid_arguments(tmp_path):
    """A later file the lean route refuses is read in a run of its own (the
    dataset scan) only for a schema mismatch (an invalid argument): row
    groups it lacks stay an error."""
    for i in range(2):
        pq.write_table(pa.table({"a": [1, 2, 3]}), tmp_path / f"f{i}.parquet", row_group_size=2)
    pq.write_table(pa.table({"b": [1, 2, 3]}), tmp_path / "f2.parquet", row_group_size=2)
    f0, f1, f2 = (str(tmp_path / f"f{i}.parquet") for i in range(3))
    with pytest.raises(pqfast.FormatError, match="row group 5") as e:
        read_rows([f0, f1], ["a"], [("a", ">", 0)], row_groups={f0: [0], f1: [5]})
    assert e.value.code == _errors.INVALID_ARGUMENT
    got = read_rows([f0, f2], ["a"], [("a", ">", 0)], row_groups={f0: [0], f2: [1]})
    assert got.column("a").to_pylist() == [1, 2]  # f2 lacks "a": read as an evolved file, its rows null
