"""The package under test and the built command it must agree with.

ctest sets PYTHONPATH (build/python) and CLUSTERSIM (see CMakeLists.txt); run by hand, the
defaults are this checkout's build/python and build/bin/clustersim.
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.append(os.path.join(ROOT, "build", "python"))  # after PYTHONPATH's entries (ctest sets it)


def philly(jobs, policy="fifo", seed=5, nodes=16, gpus_per_node=8, load=1.0, steady_state="off"):
    """A Philly-shaped generated workload at full offered load, as a config dict: every job
    measured (steady_state "off"), since these tests compare whole runs."""
    return {
        "cluster": {"nodes": nodes, "gpus_per_node": gpus_per_node, "nodes_per_rack": 4},
        "workload": {"generator": "philly", "jobs": jobs, "load": load, "seed": seed},
        "scheduler": {"policy": policy},
        "metrics": {"sample_interval_s": 600, "steady_state": steady_state},
    }


@pytest.fixture(scope="session")
def clustersim_command():
    path = os.environ.get("CLUSTERSIM") or os.path.join(ROOT, "build", "bin", "clustersim")
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is missing: build first (scripts/build.sh) or set CLUSTERSIM")
    return path
