"""Every ```python block of docs/python.md runs as written: in order, as one script, in
an empty directory (the examples create the files they name), with RAY_ADDRESS pointing
the Ray example's address="auto" at the test cluster."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

if os.environ.get("SSDLAB_CI") != "1":
    pytest.importorskip("ray")


def blocks():
    text = (ROOT / "docs" / "python.md").read_text()
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)


def test_docs_examples_run_as_written(cluster, tmp_path):
    code = blocks()
    assert len(code) >= 5, "docs/python.md lost its examples"
    script = tmp_path / "examples.py"
    script.write_text("\n".join(code))
    env = dict(os.environ, RAY_ADDRESS=cluster)
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]
