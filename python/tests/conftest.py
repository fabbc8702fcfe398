"""Paths the tests read: set by ctest (python/CMakeLists.txt); running
pytest by hand needs the same variables (docs/python.md)."""
import glob
import os
import subprocess
import warnings

import pytest


def _env(name):
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set (run through ctest)")
    return value


@pytest.fixture(scope="session")
def fixtures():
    return _env("ETKIT_FIXTURES")


@pytest.fixture(scope="session")
def oracle_dumps():
    return _env("ETKIT_ORACLE_DUMPS")


@pytest.fixture(scope="session")
def numerics_fixtures():
    return _env("ETKIT_NUMERICS_FIXTURES")


@pytest.fixture(scope="session")
def python_fixtures():
    return _env("ETKIT_PYTHON_FIXTURES")


@pytest.fixture(scope="session")
def source_dir():
    return _env("ETKIT_SOURCE_DIR")


@pytest.fixture(scope="session")
def conformance():
    path = os.environ.get("ETKIT_CONFORMANCE_DIR", "")
    if not os.path.isfile(os.path.join(path, "etdump_tutorial.etdp")):
        pytest.skip("conformance files absent (ETKIT_CONFORMANCE_DIR)")
    return path


@pytest.fixture(scope="session")
def cli():
    return _env("ETKIT_CLI")


def run_cli(cli, *args):
    """`etkit inspect ARGS` stdout (bytes); fails the test on a non-zero exit."""
    out = subprocess.run([cli, "inspect", *args], capture_output=True)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout


def all_dumps(fixtures, oracle_dumps):
    return sorted(glob.glob(os.path.join(fixtures, "*.etdp"))) + sorted(
        glob.glob(os.path.join(oracle_dumps, "*.etdp")))


def quiet_inspector(**kwargs):
    import etkit

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return etkit.Inspector(**kwargs)
