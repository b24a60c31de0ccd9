import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# A copy of apache/parquet-testing (see its NOTICE.txt) kept in the repository.
DATA = REPO / "tests" / "data" / "parquet-testing" / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.exists():
        pytest.skip(f"parquet-testing data not found at {DATA}")
    return DATA


@pytest.fixture(params=None)
def each_simd_level():
    """Runs a test once per SIMD implementation (forced by name), restoring the active one."""
    import pqfast

    saved = pqfast.simd_level()
    levels = pqfast.available_simd_levels()
    yield levels
    pqfast.set_simd_level(saved)


def run_cli(*args, env=None, check=True):
    """Runs `python -m pqfast ARGS` with this interpreter and the test PYTHONPATH."""
    e = dict(os.environ)
    if env:
        e.update(env)
    proc = subprocess.run([sys.executable, "-m", "pqfast", *args], capture_output=True, text=True, env=e)
    if check and proc.returncode != 0:
        raise AssertionError(f"pqfast {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


# A 2-worker Dask cluster on loopback for a test module (pqfast.dask's and the
# engine tests'), closed when the module ends; distributed imported only by
# the modules that ask for it (they skip when it is absent).
@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=40)
    c = Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()
