"""Shared fixtures: the ssdlab CLI binary the Python results are compared with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """Path of the ssdlab binary (SSDLAB_BIN, else target/release/ssdlab)."""
    p = os.environ.get("SSDLAB_BIN") or str(ROOT / "target" / "release" / "ssdlab")
    if not os.path.exists(p):
        subprocess.run(["cargo", "build", "--release", "--bin", "ssdlab"], cwd=ROOT, check=True)
    return p


SMALL = {"device.capacity": "256MiB", "workload.requests": 4000}


def grid16():
    """A 16-cell grid: 2 FTLs x 2 OP settings x 4 seeds, small runs."""
    return {
        "base": {"workload": "random-write", "set": dict(SMALL)},
        "axis": [
            {"key": "ftl.name", "values": ["page", "dftl"]},
            {"key": "device.op_percent", "values": [7, 28]},
            {"key": "seed", "values": [1, 2, 3, 4]},
        ],
    }
