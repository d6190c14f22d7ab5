"""The Ray backend on a local cluster (`ray start --head`, 2 CPUs): the same rows as
the local backend, through Python and through `ssdlab sweep --ray`."""

import os
import subprocess
import sys

import pandas as pd
import pytest

import ssdlab
from conftest import grid16

ray = pytest.importorskip("ray") if os.environ.get("SSDLAB_CI") != "1" else __import__("ray")


def test_ray_rows_equal_local_rows(cluster, tmp_path, cli, capfd):
    local = ssdlab.sweep(grid16(), out=tmp_path / "local", jobs=2)
    capfd.readouterr()
    remote = ssdlab.sweep(grid16(), out=tmp_path / "ray", backend="ray", address=cluster,
                          progress=True)
    # Progress with the Ray backend too (pytest's capture: not a terminal).
    assert "16/16" in capfd.readouterr().err
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
