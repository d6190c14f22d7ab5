"""progress=True shows progress where no terminal is (a notebook, a log file): tqdm when
it is installed, else plain lines."""

import json
import subprocess
import sys

import pytest

from conftest import grid16

SWEEP = """
import json, sys
{prelude}
import ssdlab
ssdlab.sweep(json.loads(sys.argv[1]), out=sys.argv[2], jobs=2, progress=True)
"""


def sweep_stderr(tmp_path, prelude=""):
    p = subprocess.run(
        [sys.executable, "-c", SWEEP.format(prelude=prelude), json.dumps(grid16()),
         str(tmp_path / "s")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    return p.stderr


def test_plain_progress_lines_without_a_terminal_or_tqdm(tmp_path):
    # `import tqdm` fails, as where it is not installed.
    err = sweep_stderr(tmp_path, prelude="sys.modules['tqdm'] = None")
    lines = [line for line in err.splitlines() if line.startswith("sweep: ")]
    assert lines, err
    assert lines[-1].startswith("sweep: 16/16 cells"), lines


def test_tqdm_progress_without_a_terminal(tmp_path):
    pytest.importorskip("tqdm")
    err = sweep_stderr(tmp_path)
    assert "16/16" in err and "cell" in err, err
