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


def _env_fixture(name, variable):
    """A session fixture `name` giving the environment variable's value."""

    @pytest.fixture(scope="session", name=name)
    def from_environment():
        return _env(variable)

    return from_environment


fixtures = _env_fixture("fixtures", "ETKIT_FIXTURES")
oracle_dumps = _env_fixture("oracle_dumps", "ETKIT_ORACLE_DUMPS")
numerics_fixtures = _env_fixture("numerics_fixtures", "ETKIT_NUMERICS_FIXTURES")
python_fixtures = _env_fixture("python_fixtures", "ETKIT_PYTHON_FIXTURES")
source_dir = _env_fixture("source_dir", "ETKIT_SOURCE_DIR")
kws_model = _env_fixture("kws_model", "ETKIT_KWS_MODEL")


def conformance_present():
    path = os.environ.get("ETKIT_CONFORMANCE_DIR", "")
    return os.path.isfile(os.path.join(path, "etdump_tutorial.etdp"))


@pytest.fixture(scope="session")
def conformance():
    # run_pytest.py runs the tests that use this fixture as their own ctest
    # test (python_package_conformance), SKIPPED as a whole when the files
    # are absent: never a skip hidden inside a passing test
    if not conformance_present():
        pytest.skip("conformance files absent (ETKIT_CONFORMANCE_DIR)")
    return os.environ["ETKIT_CONFORMANCE_DIR"]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "conformance: uses upstream's files (../shared/conformance)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "conformance" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.conformance)


cli = _env_fixture("cli", "ETKIT_CLI")


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


@pytest.fixture(scope="session")
def demo(cli, tmp_path_factory):
    """`etkit demo --runs 2`'s files (model.pte, model.bpte, model.etrecord,
    etdump.etdp, debug_buffer.bin) in a temporary directory."""
    d = tmp_path_factory.mktemp("demo")
    subprocess.run([cli, "demo", "--output-dir", str(d), "--runs", "2"], check=True,
                   capture_output=True)
    return d
