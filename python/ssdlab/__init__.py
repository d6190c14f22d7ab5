"""ssdlab from Python: the simulator's own Rust code (built by maturin), for notebooks.

    >>> import ssdlab
    >>> r = ssdlab.run("default", workload="random-write",
    ...                settings={"device.capacity": "1GiB", "workload.requests": 20000})
    >>> r.write_amplification, r["latency_ns"]["p99"]
    >>> r.to_frame()            # one row per phase (pandas)
    >>> df = ssdlab.sweep("grid.toml", out="results/")        # pandas.DataFrame
    >>> df = ssdlab.sweep("grid.toml", out="results/", backend="ray", address="auto")
    >>> ssdlab.list()["ftls"]

Errors are exceptions carrying the library's messages (the command line's, without its
"command line:" origin): ``ConfigError`` for a design, workload, trace or grid refused
before any work, ``SimulationError`` for a run that could not finish, ``OutputError``
for files that could not be written. They belong to this module (``ssdlab.ConfigError``)
and pickle, as results do. The GIL is released while a design simulates, so threads run
designs in parallel, and Ctrl-C stops a run or a sweep within a fraction of a second
(a sweep keeps the cells it finished).

See docs/python.md.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
import time
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

from . import _native
from ._native import ConfigError, OutputError, SimulationError, SsdlabError

__all__ = [
    "run",
    "sweep",
    "list",
    "Result",
    "SsdlabError",
    "ConfigError",
    "SimulationError",
    "OutputError",
    "__version__",
]

__version__: str = _native.__version__

PathLike = Union[str, "os.PathLike[str]"]

_builtin_list = list


def _presets() -> "list[str]":
    return [n for n, _ in _native.list()["presets"]]


class Result(Mapping[str, Any]):
    """The report of one run: a read-only mapping of the JSON report's keys.

    Top-level keys are also attributes (``r.iops``, ``r.write_amplification``).
    ``to_dict()`` gives the report as plain Python data, ``to_frame()`` a pandas
    DataFrame with one row per phase (the whole run first, as ``phase == "all"``),
    ``fio()`` the report in fio's JSON shape (``ssdlab run --json-format fio``).
    """

    def __init__(
        self,
        report: Dict[str, Any],
        phases: "list[Dict[str, Any]]",
        fio: Optional[str] = None,
    ):
        self._report = report
        self._phases = phases
        self._fio = fio

    def __getitem__(self, key: str) -> Any:
        return self._report[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._report)

    def __len__(self) -> int:
        return len(self._report)

    def __getattr__(self, name: str) -> Any:
        # Only report keys: private and special names (``_report`` itself while
        # unpickling, ``__setstate__``, ``__deepcopy__``) are never report keys, and
        # looking them up in ``_report`` would recurse before it is set.
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._report[name]
        except KeyError:
            raise AttributeError(name) from None

    def __reduce__(self):
        return (Result, (self._report, self._phases, self._fio))

    def __repr__(self) -> str:
        r = self._report
        return (
            f"<ssdlab.Result iops={r.get('iops'):.6g} "
            f"write_amplification={r.get('write_amplification'):.4g} "
            f"latency_ns.p99={r.get('latency_ns', {}).get('p99')}>"
        )

    def to_dict(self) -> Dict[str, Any]:
        """The whole report as plain data (the ``ssdlab run --json`` form); a copy."""
        return json.loads(json.dumps(self._report))

    def fio(self) -> Dict[str, Any]:
        """The report in fio 3.x's ``--output-format=json`` shape, as ``ssdlab run
        --json-format fio`` writes it (one job, named ``design``; docs/outputs.md, "fio
        JSON"): a new dict whose keys are in fio's order, so ``json.dumps(r.fio(),
        indent=2)`` writes a file that fio tooling reads and that diffs against fio's."""
        if self._fio is None:
            raise SsdlabError("this Result was built without its fio form (use ssdlab.run)")
        return json.loads(self._fio)

    def to_frame(self):
        """A pandas DataFrame, one row per phase, latencies flattened
        (``latency_ns_p99``); the whole measured run first as phase ``all``."""
        import pandas as pd

        rows = []
        for p in self._phases:
            row: Dict[str, Any] = {}
            for k, v in p.items():
                key = "phase" if k == "name" else k
                if isinstance(v, dict):
                    for kk, vv in v.items():
                        row[f"{key}_{kk}"] = vv
                else:
                    row[key] = v
            rows.append(row)
        return pd.DataFrame(rows)


def _settings(
    design: Union[None, str, PathLike, Mapping[str, Any]],
    workload: Optional[str],
    trace: Optional[PathLike],
    seed: Optional[int],
    settings: Optional[Mapping[str, Any]],
) -> Tuple[Optional[str], Optional[str], Dict[str, Any]]:
    preset: Optional[str] = None
    config: Optional[str] = None
    keys: Dict[str, Any] = {}
    if design is None:
        pass
    elif isinstance(design, Mapping):
        keys.update(design)
        p = keys.pop("preset", None)
        preset = None if p is None else str(p)
        c = keys.pop("config", None)
        config = None if c is None else os.fspath(c)
    else:
        s = os.fspath(design)
        if s in _presets():
            preset = s
        elif s.endswith(".toml") or os.path.exists(s):
            config = s
        else:
            names = ", ".join(_presets())
            raise ConfigError(
                f"design {s!r}: expected a preset ({names}), a TOML config file, or a dict of config keys"
            )
    if settings:
        keys.update(settings)
    if workload is not None:
        keys["workload.kind"] = workload
    if trace is not None:
        keys["trace.path"] = os.path.abspath(os.fspath(trace))
    if seed is not None:
        keys["seed"] = int(seed)
    return preset, config, keys


# The ASCII trace's op codes (docs/traces.md): reads, writes and the zone operations.
_OPS = {
    "read": "1",
    "write": "0",
    "zone-append": "ZA",
    "zone-reset": "ZR",
    "zone-finish": "ZF",
    "zone-open": "ZO",
    "zone-close": "ZC",
    "zone-report": "ZQ",
}
_SECTOR = 512
# Report Zones' state filters by their Zone Receive Action Specific value (docs/zns.md).
_ZONE_FILTERS = (
    "all",
    "empty",
    "implicitly-opened",
    "explicitly-opened",
    "closed",
    "full",
    "read-only",
    "offline",
)


def _request_line(i: int, r: Mapping[str, Any]) -> str:
    """One request of ``run(requests=...)`` as an ASCII trace line."""
    unknown = set(r) - {"op", "offset", "size", "time_ns", "device", "placement", "filter"}
    if unknown:
        raise ConfigError(
            f"requests[{i}]: unknown key(s) {sorted(unknown)}: expected op, offset, size, "
            "time_ns, device, placement, filter"
        )
    op = r.get("op")
    if op not in _OPS:
        raise ConfigError(f"requests[{i}].op = {op!r}: expected one of {', '.join(_OPS)}")
    fields = {}
    for key, default in (("offset", None), ("size", 0), ("time_ns", 0), ("device", 0)):
        v = r.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ConfigError(f"requests[{i}].{key} = {v!r}: expected an integer >= 0")
        fields[key] = v
    for key in ("offset", "size"):
        if fields[key] % _SECTOR:
            raise ConfigError(
                f"requests[{i}].{key} = {fields[key]}: expected a multiple of {_SECTOR} bytes"
            )
    if op in ("read", "write", "zone-append") and fields["size"] == 0:
        raise ConfigError(f"requests[{i}].size = 0: a {op} needs a size > 0")
    code = _OPS[op]
    if "filter" in r and op != "zone-report":
        raise ConfigError(f"requests[{i}].filter: only a zone-report takes a filter")
    if op == "zone-report":
        f = r.get("filter", "all")
        if f not in _ZONE_FILTERS:
            raise ConfigError(
                f"requests[{i}].filter = {f!r}: expected one of {', '.join(_ZONE_FILTERS)}"
            )
        code += str(_ZONE_FILTERS.index(f))
    line = (
        f"{fields['time_ns']} {fields['device']} {fields['offset'] // _SECTOR} "
        f"{fields['size'] // _SECTOR} {code}"
    )
    pid = r.get("placement")
    if pid is not None:
        if not isinstance(pid, int) or isinstance(pid, bool) or not 0 <= pid <= 0xFFFF:
            raise ConfigError(f"requests[{i}].placement = {pid!r}: expected 0 to 65535")
        line += f" {pid}"
    return line + "\n"


def run(
    design: Union[None, str, PathLike, Mapping[str, Any]] = None,
    workload: Optional[str] = None,
    trace: Optional[PathLike] = None,
    *,
    seed: Optional[int] = None,
    settings: Optional[Mapping[str, Any]] = None,
    check: bool = False,
    requests: Optional[Iterable[Mapping[str, Any]]] = None,
) -> Result:
    """Simulate one SSD design and return its report.

    design: a preset name (``"ssd-a"``), a TOML config file, or a dict of dotted config
        keys (``{"preset": "ssd-c", "ftl.name": "dftl", "device.capacity": "4GiB"}``);
        ``None`` is the default device.
    workload: a generator name (``ssdlab.list()["workloads"]``).
    trace: a block trace to replay instead (format detected, or set ``trace.format``).
    seed: the random seed.
    settings: more dotted keys, as ``ssdlab run --set`` takes them.
    check: verify the device against a reference model at the end (slower).
    requests: the host commands themselves, instead of a workload or a trace: dicts with
        ``op`` (``read``, ``write``, ``zone-append``, ``zone-reset``, ``zone-finish``,
        ``zone-open``, ``zone-close``, ``zone-report``), ``offset`` and ``size`` in bytes
        (multiples of 512; a zone operation's offset is its zone's start; a
        ``zone-report`` lists the zones from the one holding ``offset`` whose state
        passes ``filter``: ``all``, ``empty``, ``implicitly-opened``,
        ``explicitly-opened``, ``closed``, ``full``, ``read-only`` or ``offline``; what
        each returned is the report's ``zone_reports`` list), and optionally ``time_ns``
        (arrival, default 0), ``device`` (a trace device number, mapped to a namespace by
        its ``device`` key) and ``placement`` (an FDP placement identifier, 0–65535).
        They are replayed as an ASCII trace (docs/traces.md), in order.

    The design is validated before anything runs; a refusal raises ``ConfigError`` with
    the message ``ssdlab run`` prints. The GIL is released while simulating, and Ctrl-C
    stops the run within a fraction of a second (KeyboardInterrupt).
    """
    if requests is None:
        preset, config, keys = _settings(design, workload, trace, seed, settings)
        report, phases, fio = _native.run(preset, config, json.dumps(keys), check)
        return Result(json.loads(report), json.loads(phases), fio)
    if workload is not None or trace is not None:
        raise ConfigError("requests: expected either requests, a workload or a trace, not two")
    lines = [_request_line(i, r) for i, r in enumerate(requests)]
    if not lines:
        raise ConfigError("requests: expected at least one request")
    with tempfile.TemporaryDirectory(prefix="ssdlab-requests-") as d:
        path = os.path.join(d, "requests.ascii")
        with open(path, "w") as f:
            f.writelines(lines)
        extra = dict(settings or {})
        extra.setdefault("trace.format", "ascii")
        return run(design, trace=path, seed=seed, settings=extra, check=check)


def list() -> Dict[str, "list[Tuple[str, str]]"]:  # noqa: A001 - the CLI's name
    """Every registry as ``{section: [(name, description), ...]}``: presets, ftls,
    gc_policies, buffers, dispatch_orders, workloads, trace_formats, trace_fits,
    papers (the names `ssdlab reproduce` takes), timing_models, organisations (what ``ssdlab list`` prints)."""
    return dict(_native.list())


def _command(grid: Any, out: str, backend: str) -> str:
    where = grid if isinstance(grid, (str, os.PathLike)) else "<dict>"
    return f"{shlex.quote(sys.executable)} -c 'ssdlab.sweep({str(where)!r}, out={out!r}, backend={backend!r})'"


class _Progress:
    """A sweep's progress: a tqdm bar when tqdm is installed (``tqdm.auto``: a widget in
    Jupyter, a text bar elsewhere), else plain lines on stderr, at most one a second and
    the last. Both write whether or not stderr is a terminal: a notebook's never is."""

    def __init__(self, total: int, desc: str = "sweep"):
        self.total = total
        self.desc = desc
        self.done = 0
        self.failed = 0
        self.start = time.monotonic()
        self.last_line = 0.0
        self.bar = None
        try:
            from tqdm.auto import tqdm
        except ImportError:
            pass
        else:
            self.bar = tqdm(total=total, desc=desc, unit="cell", file=sys.stderr)

    def update(self, done: int, failed: int) -> None:
        step = done - self.done
        self.done, self.failed = done, failed
        if self.bar is not None:
            if failed:
                self.bar.set_postfix_str(f"{failed} failed", refresh=False)
            self.bar.update(step)
            return
        now = time.monotonic()
        if now - self.last_line >= 1.0 or done >= self.total:
            self.last_line = now
            self._line()

    def _line(self) -> None:
        failed = f", {self.failed} failed" if self.failed else ""
        sys.stderr.write(
            f"{self.desc}: {self.done}/{self.total} cells{failed}, "
            f"{time.monotonic() - self.start:.1f} s\n"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.done < self.total:
            self._line()


def _frame(out: str, columns: "list[str]"):
    """The results table as pandas, from the Parquet file the sweep just wrote (Arrow
    types kept: counters stay integers; an integer column with missing values, from
    failed or missing cells, becomes pandas' nullable ``Int64`` rather than float)."""
    import pandas as pd

    try:
        import pyarrow.parquet as pq
        import pyarrow.types as pat
    except ImportError as e:  # pragma: no cover - the [pandas] extra installs it
        raise ImportError(
            "ssdlab.sweep builds its DataFrame with pyarrow: pip install pyarrow "
            "(or ssdlab[pandas])"
        ) from e
    table = pq.read_table(os.path.join(out, "results.parquet"))
    df = table.to_pandas()
    for field, column in zip(table.schema, table.columns):
        if pat.is_integer(field.type) and column.null_count:
            df[field.name] = pd.array(column.to_pylist(), dtype="Int64")
    return df[columns]


def sweep(
    grid: Union[PathLike, Mapping[str, Any]],
    out: Optional[PathLike] = None,
    backend: str = "local",
    *,
    jobs: Optional[int] = None,
    address: Optional[str] = None,
    html: Optional[PathLike] = None,
    retry_failed: bool = False,
    progress: bool = False,
    json_format: str = "ssdlab",
):
    """Run every cell of a grid and return the results table as a pandas DataFrame.

    grid: a grid file (TOML, docs/sweep.md) or the same as a dict (relative paths
        then start from the current directory).
    out: the sweep's directory: the resumable store and results.csv, results.parquet,
        reports.jsonl. A second call with the same ``out`` runs only missing cells.
        ``None``: a new temporary directory.
    backend: ``"local"`` (threads here, GIL released) or ``"ray"`` (one Ray task per
        cell on the cluster at ``address``; traces are read on the workers, which need
        this package installed).
    jobs: cells at once for the local backend (default: RAYON_NUM_THREADS or all cores).
    html: also write an HTML report (index.html) into this directory.
    retry_failed: run cells that failed in an earlier sweep again.
    progress: show the cells done (tqdm if installed, else a line a second on stderr;
        in notebooks too, and with either backend).
    json_format: shape of each cell's report in reports.jsonl: ``"ssdlab"`` (the full
        report) or ``"fio"`` (fio's JSON, one job named by the cell's axis values, as
        ``ssdlab sweep --json-format fio`` writes it).

    Every cell is validated before the first runs (``ConfigError`` naming the axis).
    The rows are the same for both backends, in grid order; failed cells have
    ``status == "failed"`` and their ``error``. Integer columns are integers (read from
    the Parquet file through Arrow).

    Ctrl-C (KeyboardInterrupt) stops the sweep within a fraction of a second: the cells
    finished so far stay in ``out`` (and in its result files, the others as
    ``status == "missing"``), and a second call with the same ``out`` runs the rest.
    """
    if backend not in ("local", "ray"):
        raise ConfigError(f"backend {backend!r}: expected 'local' or 'ray'")
    if out is None:
        out = tempfile.mkdtemp(prefix="ssdlab-sweep-")
    out = os.fspath(out)
    if isinstance(grid, Mapping):
        s = _native.Sweep(out, grid_json=json.dumps(dict(grid)), base_dir=os.getcwd(), jobs=jobs)
    else:
        s = _native.Sweep(out, path=os.fspath(grid), jobs=jobs)

    s.check_format(json_format)

    def finish():
        return s.finish(
            html_dir=None if html is None else os.fspath(html),
            command=_command(grid, out, backend),
            json_format=json_format,
        )

    # The specs (JSON) are built only when needed: for Ray's tasks or a progress total.
    pending = s.pending(retry_failed) if progress or backend == "ray" else []
    bar = _Progress(len(pending)) if progress and pending else None
    try:
        if backend == "local":
            s.run_local(jobs=jobs, progress=None if bar is None else bar.update,
                        retry_failed=retry_failed)
        else:
            from . import ray_backend

            counts = [0, 0]

            def record(r: str) -> None:
                s.record(r)
                if bar is not None:
                    counts[0] += 1
                    counts[1] += json.loads(r).get("status") == "failed"
                    bar.update(counts[0], counts[1])

            ray_backend.run_cells(pending, record, address=address)
    except KeyboardInterrupt:
        # The store already holds every finished cell; the result files show them too
        # (best effort: the interrupt is what the caller must see).
        try:
            finish()
        except Exception:
            pass
        raise
    finally:
        if bar is not None:
            bar.close()
    return _frame(out, finish())
