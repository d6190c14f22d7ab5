"""Ctrl-C stops `ssdlab.run` and `ssdlab.sweep` soon, not when the native call returns,
and a stopped sweep keeps the cells it finished (and only those: an interrupted cell is
not recorded as failed)."""

import json
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Each child first restores Python's own SIGINT handler: a process started with SIGINT
# ignored (a CI job run in the background, `nohup … &`) passes SIG_IGN on, and Python
# then installs no handler, so no Ctrl-C could ever reach it, whatever the library does.
RESTORE_SIGINT = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"

# A sweep far longer than the test waits: 400 cells of a few tenths of a second each.
LONG_SWEEP = RESTORE_SIGINT + """
import sys, ssdlab
grid = {"base": {"workload": "random-write",
                 "set": {"device.capacity": "256MiB", "workload.requests": 100000}},
        "axis": [{"key": "seed", "values": list(range(1, 401))}]}
print("started", flush=True)
ssdlab.sweep(grid, out=sys.argv[1], jobs=2)
print("finished", flush=True)
"""

# One run of minutes.
LONG_RUN = RESTORE_SIGINT + """
import ssdlab
print("started", flush=True)
ssdlab.run(None, workload="random-write",
           settings={"device.capacity": "4GiB", "workload.requests": 50_000_000})
print("finished", flush=True)
"""

# Generous: an interrupt that is ignored until the native call returns takes minutes.
EXIT_WITHIN_S = 20


def interrupt(code, *args, ready=lambda: True):
    """Starts `code`, waits 1 s after it printed "started" and until `ready()`, sends
    SIGINT; returns (the process, its stderr, seconds from SIGINT to exit)."""
    p = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(1)
        deadline = time.monotonic() + 60
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = p.communicate(timeout=EXIT_WITHIN_S)
        return p, out, err, time.monotonic() - sent
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_ctrl_c_stops_a_run():
    p, out, err, _ = interrupt(LONG_RUN)
    assert "KeyboardInterrupt" in err, err
    assert p.returncode != 0 and "finished" not in out


def test_ctrl_c_stops_a_sweep_keeping_its_finished_cells(tmp_path):
    out_dir = tmp_path / "s"
    store = out_dir / "store.jsonl"

    def some_cells_done():
        return store.exists() and store.read_text().count("\n") >= 2

    p, out, err, _ = interrupt(LONG_SWEEP, str(out_dir), ready=some_cells_done)
    assert "KeyboardInterrupt" in err, err
    assert p.returncode != 0 and "finished" not in out
    records = [json.loads(line) for line in store.read_text().splitlines() if line.strip()]
    assert 2 <= len(records) < 400
    # Cells cut short are not stored as failures: they run when the sweep resumes.
    assert {r["status"] for r in records} == {"ok"}
    # The result files were written for the cells done, the rest shown as missing.
    import pandas as pd

    df = pd.read_csv(out_dir / "results.csv")
    assert len(df) == 400
    assert (df["status"] == "ok").sum() == len(records)
    assert set(df["status"]) == {"ok", "missing"}
