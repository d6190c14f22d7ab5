"""Shared fixtures: the ssdlab CLI binary the Python results are compared with, and a
local Ray cluster (started once, for the Ray tests and the docs' Ray example)."""

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import time

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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """A head node with 2 CPUs on this machine, stopped (its process group) at the end."""
    port = free_port()
    temp = tmp_path_factory.mktemp("ray")
    ray_bin = shutil.which("ray", path=os.path.dirname(sys.executable)) or "ray"
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    head = subprocess.Popen(
        [ray_bin, "start", "--head", "--block", "--num-cpus=2", f"--port={port}",
         "--node-ip-address=127.0.0.1", "--include-dashboard=false",
         f"--temp-dir={temp}", "--disable-usage-stats"],
        env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    address = f"127.0.0.1:{port}"
    deadline = time.time() + 120
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if head.poll() is not None or time.time() > deadline:
                raise RuntimeError("ray start --head did not come up")
            time.sleep(0.5)
    yield address
    os.killpg(head.pid, signal.SIGTERM)
    try:
        head.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(head.pid, signal.SIGKILL)
        head.wait()
