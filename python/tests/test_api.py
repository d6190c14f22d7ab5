"""ssdlab.run / list / sweep against the CLI (the same library underneath)."""

import json
import subprocess
import threading

import pandas as pd
import pytest

import ssdlab
from conftest import SMALL, grid16

NONDETERMINISTIC = {"wall_clock_s", "wall_clock_measured_s"}


def strip(report):
    return {k: v for k, v in report.items() if k not in NONDETERMINISTIC}


def test_run_equals_the_cli(cli):
    r = ssdlab.run("ssd-a", workload="random-write", seed=3, settings=SMALL)
    assert isinstance(r, ssdlab.Result)
    out = subprocess.run(
        [cli, "run", "--preset", "ssd-a", "--workload", "random-write", "--seed", "3",
         "--capacity", "256MiB", "--requests", "4000", "--json", "-"],
        check=True, capture_output=True, text=True,
    ).stdout
    assert strip(r.to_dict()) == strip(json.loads(out))
    assert r.write_amplification == r["write_amplification"] >= 1.0
    assert r.latency_ns["count"] == 4000


def test_fio_equals_the_cli_in_fios_key_order(cli):
    r = ssdlab.run("ssd-a", workload="random-write", seed=3, settings=SMALL)
    out = subprocess.run(
        [cli, "run", "--preset", "ssd-a", "--workload", "random-write", "--seed", "3",
         "--capacity", "256MiB", "--requests", "4000", "--json-format", "fio", "--json", "-"],
        check=True, capture_output=True, text=True,
    ).stdout
    mine, theirs = r.fio(), json.loads(out)  # json.loads keeps the file's key order
    assert list(mine) == list(theirs) == [
        "fio version", "timestamp", "timestamp_ms", "time", "global options", "jobs", "disk_util"]
    job = mine["jobs"][0]
    assert list(job) == list(theirs["jobs"][0])
    assert list(job)[:4] == ["jobname", "groupid", "job_start", "error"]
    assert job["jobname"] == "design" and job["write"]["total_ios"] == 4000
    for d in (mine, theirs):
        for k in ("timestamp", "timestamp_ms", "time"):
            del d[k]
    assert mine == theirs


def test_sweep_writes_fio_shaped_reports(tmp_path):
    g = {"base": {"workload": "random-write", "seed": 3, "set": dict(SMALL)},
         "axis": [{"key": "ftl.name", "values": ["page", "dftl"]}]}
    ssdlab.sweep(g, out=tmp_path / "f", json_format="fio")
    lines = [json.loads(l) for l in (tmp_path / "f" / "reports.jsonl").read_text().splitlines()]
    assert [l["report"]["jobs"][0]["jobname"] for l in lines] == ["ftl.name=page", "ftl.name=dftl"]
    assert list(lines[0]["report"])[0] == "fio version"
    page = ssdlab.run({"ftl.name": "page"}, workload="random-write", seed=3, settings=SMALL).fio()
    cell = lines[0]["report"]
    for d in (page, cell):
        for k in ("timestamp", "timestamp_ms", "time"):
            del d[k]
        d["jobs"][0]["jobname"] = d["jobs"][0]["job options"]["name"] = ""
    assert cell == page
    with pytest.raises(ssdlab.ConfigError, match="json_format"):
        ssdlab.sweep(g, out=tmp_path / "g", json_format="xml")


def test_to_frame_has_a_row_per_phase_with_the_whole_run_first():
    r = ssdlab.run(None, workload="iozone", settings={"device.capacity": "256MiB", "workload.span": "16MiB"})
    f = r.to_frame()
    assert isinstance(f, pd.DataFrame)
    assert f["phase"].iloc[0] == "all"
    assert list(f["phase"].iloc[1:]) == [p["name"] for p in r["phases"] if p["name"] != "all"]
    assert "latency_ns_p99" in f.columns
    assert f["requests"].iloc[0] == f["requests"].iloc[1:].sum()


def test_errors_carry_the_cli_message(cli):
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(None, settings={"ftl.name": "nosuch"})
    p = subprocess.run([cli, "run", "--set", "ftl.name=nosuch"], capture_output=True, text=True)
    assert p.returncode == 2
    # The library's message; the CLI puts where it came from (its flags) in front.
    assert p.stderr.strip() in (f"error: {e.value}", f"error: command line: {e.value}")
    assert not str(e.value).startswith("command line")
    with pytest.raises(ssdlab.ConfigError, match="device.op_percent"):
        ssdlab.run(None, settings={"device.op_percent": -3})
    assert issubclass(ssdlab.ConfigError, ssdlab.SsdlabError)


def test_list_matches_the_registries():
    reg = ssdlab.list()
    names = {n for n, _ in reg["ftls"]}
    assert {"page", "dftl", "bast", "fast"} <= names
    assert "default" in {n for n, _ in reg["presets"]}
    assert all(isinstance(d, str) for _, d in reg["workloads"])


def test_the_gil_is_released_while_simulating():
    # While the other thread is inside the simulator, this thread keeps executing
    # Python; a call holding the GIL would stop it until the run returned.
    from ssdlab import _native

    ticks = 0
    entering = threading.Event()
    done = threading.Event()
    settings = json.dumps({"workload.kind": "random-write", "device.capacity": "1GiB",
                           "workload.requests": 400000})

    def work():
        entering.set()
        _native.run(None, None, settings, False)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    entering.wait()
    while not done.is_set():
        ticks += 1
    t.join()
    assert ticks > 50000, f"only {ticks} ticks ran beside the simulation"


def norm(frame):
    """Missing values as None, whatever the reader's choice (None, NaN, NA)."""
    return frame.astype(object).where(frame.notna(), None)


def test_sweep_returns_the_table_it_wrote(tmp_path):
    df = ssdlab.sweep(grid16(), out=tmp_path / "s", jobs=2)
    assert len(df) == 16 and (df["status"] == "ok").all()
    assert list(df["cell"]) == list(range(1, 17))
    # Counters stay integers (read through Arrow, not JSON): int64, or pandas' nullable
    # Int64 where some cells lack the column (DFTL's counters on page-FTL rows).
    for column in ["cell", "seed", "device.op_percent", "erases", "latency_ns_p99"]:
        assert df[column].dtype == "int64", (column, df[column].dtype)
    dftl = df["counters.ftl.dftl.trans_reads"]
    assert dftl.dtype == "Int64" and dftl.isna().sum() == 8
    assert df["write_amplification"].dtype == "float64"
    csv = pd.read_csv(tmp_path / "s" / "results.csv")
    pd.testing.assert_frame_equal(norm(df), norm(csv), check_dtype=False)
    pq = pd.read_parquet(tmp_path / "s" / "results.parquet")
    assert list(pq.columns) == list(df.columns)
    pd.testing.assert_frame_equal(norm(df), norm(pq), check_dtype=False)
    # Resumed: nothing runs again, same table.
    again = ssdlab.sweep(grid16(), out=tmp_path / "s")
    pd.testing.assert_frame_equal(df, again)


def test_a_bad_grid_names_the_axis_before_any_cell_runs(tmp_path):
    g = grid16()
    g["axis"][1] = {"key": "device.op_percent", "values": [7, "lots"]}
    with pytest.raises(ssdlab.ConfigError, match=r"axis `device.op_percent` value \"lots\""):
        ssdlab.sweep(g, out=tmp_path / "bad")
    assert not (tmp_path / "bad" / "store.jsonl").exists()


def test_requests_carry_placement_identifiers_to_fdp():
    design = {"device.capacity": "64MiB", "buffer.name": "none", "ftl.name": "page",
              "ftl.fdp.enabled": True}
    reqs = [{"op": "write", "offset": i * 4096, "size": 4096, "placement": i % 2}
            for i in range(64)]
    r = ssdlab.run(design, requests=reqs)
    by = {h["index"]: h["host_bytes_written"] for h in r["fdp"]["handles"]}
    assert by[0] == by[1] == 32 * 4096
    assert r["latency_ns"]["count"] == 64


def test_requests_issue_zone_operations():
    design = {"device.capacity": "256MiB", "buffer.name": "none", "ftl.name": "zoned"}
    reqs = [{"op": "write", "offset": i * 4096, "size": 4096} for i in range(8)]
    reqs.append({"op": "write", "offset": 64 * 4096, "size": 4096})  # off the pointer
    reqs.append({"op": "zone-reset", "offset": 0})
    c = ssdlab.run(design, requests=reqs)["counters"]
    assert c["zns.resets"] == 1
    assert c["zns.errors.invalid_write"] == 1


def test_zone_report_answers_from_the_zone_states():
    # 4 KiB pages, so a descriptor's logical blocks are pages of 4 KiB.
    design = {"device.capacity": "256MiB", "device.page_size": "4KiB", "buffer.name": "none",
              "ftl.name": "zoned"}
    reqs = [{"op": "write", "offset": i * 4096, "size": 4096} for i in range(8)]
    reqs += [
        {"op": "zone-report", "offset": 0},  # filter "all" by default
        {"op": "zone-report", "offset": 0, "filter": "empty"},
        {"op": "zone-report", "offset": 0, "filter": "implicitly-opened"},
        {"op": "zone-reset", "offset": 0},
        {"op": "zone-report", "offset": 0, "filter": "implicitly-opened"},
    ]
    r = ssdlab.run(design, requests=reqs)
    zones = len(r["zones"])
    assert zones > 1
    q = r["zone_reports"]
    assert [(c["filter"], c["start_lba"]) for c in q] == [
        ("all", 0), ("empty", 0), ("implicitly-opened", 0), ("implicitly-opened", 0)]
    # Every zone; the first written up to 8 blocks and implicitly opened by the writes.
    assert q[0]["zones_matching"] == len(q[0]["zones"]) == zones
    first = q[0]["zones"][0]
    assert (first["start_lba"], first["write_pointer_lba"], first["state"]) == (0, 8, "ZSIO")
    assert all(z["state"] == "ZSE" for z in q[0]["zones"][1:])
    # The others are empty; only the first is open, until its reset empties it.
    assert q[1]["zones_matching"] == zones - 1
    assert 0 not in [z["start_lba"] for z in q[1]["zones"]]
    assert [z["start_lba"] for z in q[2]["zones"]] == [0]
    assert q[3]["zones_matching"] == 0 and q[3]["zones"] == []
    assert r["counters"]["zns.report_zones"] == 4
    # A bad filter, or a filter on another op, names the item.
    with pytest.raises(ssdlab.ConfigError, match=r"requests\[0\]\.filter = 'open'"):
        ssdlab.run(design, requests=[{"op": "zone-report", "offset": 0, "filter": "open"}])
    with pytest.raises(ssdlab.ConfigError, match=r"requests\[0\]\.filter: only a zone-report"):
        ssdlab.run(design, requests=[{"op": "zone-reset", "offset": 0, "filter": "all"}])


def test_bad_requests_name_the_item_and_key():
    with pytest.raises(ssdlab.ConfigError, match=r"requests\[1\]\.op = 'trim'"):
        ssdlab.run(None, requests=[{"op": "read", "offset": 0, "size": 512},
                                   {"op": "trim", "offset": 0, "size": 512}])
    with pytest.raises(ssdlab.ConfigError, match=r"requests\[0\]\.offset = 100"):
        ssdlab.run(None, requests=[{"op": "read", "offset": 100, "size": 512}])
    with pytest.raises(ssdlab.ConfigError, match="not two"):
        ssdlab.run(None, workload="random-write", requests=[{"op": "read", "offset": 0,
                                                             "size": 512}])
