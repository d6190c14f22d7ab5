"""The Ray backend on a local cluster (`ray start --head`, 2 CPUs): the same rows as
the local backend, through Python and through `ssdlab sweep --ray`."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pandas as pd
import pytest

import ssdlab
from conftest import grid16

ray = pytest.importorskip("ray") if os.environ.get("SSDLAB_CI") != "1" else __import__("ray")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
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


def test_ray_rows_equal_local_rows(cluster, tmp_path, cli):
    local = ssdlab.sweep(grid16(), out=tmp_path / "local", jobs=2)
    remote = ssdlab.sweep(grid16(), out=tmp_path / "ray", backend="ray", address=cluster)
    pd.testing.assert_frame_equal(local, remote)
    for f in ["results.csv", "results.parquet"]:
        assert (tmp_path / "local" / f).read_bytes() == (tmp_path / "ray" / f).read_bytes()

    # The CLI's --ray runs the same backend through `python -m ssdlab.ray_backend`.
    import json
    grid = tmp_path / "grid.toml"
    g = grid16()
    lines = ["[base]", 'workload = "random-write"', "[base.set]"]
    lines += [f'"{k}" = {json.dumps(v)}' for k, v in g["base"]["set"].items()]
    for a in g["axis"]:
        lines += ["[[axis]]", f'key = "{a["key"]}"', f"values = {json.dumps(a['values'])}"]
    grid.write_text("\n".join(lines) + "\n")
    p = subprocess.run(
        [cli, "sweep", str(grid), "--out", str(tmp_path / "cli"), "--ray", cluster,
         "--python", sys.executable, "-q"],
        capture_output=True, text=True, timeout=600,
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "cli" / "results.csv").read_bytes() == (tmp_path / "local" / "results.csv").read_bytes()
