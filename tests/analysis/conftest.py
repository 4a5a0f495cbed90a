"""Shared fixtures: the built commands and one real small sweep (with /jobs and /timeseries).

ctest sets CLUSTERSIM, CLUSTERSIM_ANALYZE, CLUSTERSIM_MPIEXEC and PYTHONPATH (see
CMakeLists.txt); run by hand, the defaults are this checkout's build/bin and `mpirun`.
"""
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(HERE, "data")
sys.path.insert(0, ROOT)  # the analysis package, when pytest runs outside ctest


def _command(variable, name):
    path = os.environ.get(variable) or os.path.join(ROOT, "build", "bin", name)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is missing: build first (scripts/build.sh) or set {variable}")
    return path


@pytest.fixture(scope="session")
def clustersim():
    path = _command("CLUSTERSIM", "clustersim")
    os.environ["CLUSTERSIM"] = path  # load() reads journals through it
    return path


@pytest.fixture(scope="session")
def analyze():
    return _command("CLUSTERSIM_ANALYZE", "clustersim-analyze")


def run_sweep(clustersim, grid, out, *flags, ranks=2):
    """Runs `clustersim sweep` on `ranks` MPI ranks (one process without mpirun when ranks == 1)."""
    command = [clustersim, "sweep", grid, "--out", out, "--quiet", *flags]
    mpiexec = os.environ.get("CLUSTERSIM_MPIEXEC", "mpirun")
    if ranks > 1 and shutil.which(mpiexec):
        command = [mpiexec, "-np", str(ranks), "--oversubscribe"] + command
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(command, check=True, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return out


def run(command, **kwargs):
    """Runs a command, returning (status, stdout, stderr)."""
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240, **kwargs)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="session")
def sweep_file(clustersim, tmp_path_factory):
    """18 points (3 policies x 2 loads x 3 paired seeds) with per-job records and time series."""
    folder = tmp_path_factory.mktemp("sweep")
    return run_sweep(clustersim, os.path.join(DATA, "grid.toml"), str(folder / "results.h5"),
                     "--save-jobs", "--save-timeseries")


@pytest.fixture(scope="session")
def report(analyze, sweep_file, tmp_path_factory):
    """The report of sweep_file against the fifo baseline: (folder, stdout)."""
    out = str(tmp_path_factory.mktemp("report") / "report")
    status, stdout, stderr = run([analyze, sweep_file, "--out", out, "--baseline", "fifo"])
    assert status == 0, stderr
    return out, stdout
