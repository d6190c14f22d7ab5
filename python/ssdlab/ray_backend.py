"""The Ray backend of a sweep: each missing cell is one Ray task.

The driver (``ssdlab.sweep(..., backend="ray")`` or ``ssdlab sweep --ray ADDRESS``,
which runs ``python -m ssdlab.ray_backend``) validates the grid and keys every cell
itself; a task receives only the cell's spec (the preset, config text and overlay that
rebuild its design), rebuilds and validates it on the worker, checks that it hashes to
the driver's key (same ssdlab version, same trace file), reads the trace there and runs
it with the GIL released. Records stream back as tasks finish, in completion order,
into the same resumable store the local backend writes, so the rows are the same.

Workers need this package installed (the same wheel), and traces at the same paths
(a shared file system), as the driver sees them.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Iterable, List, Optional

RECORD_PREFIX = "SSDLAB-RECORD "


def _run_spec(spec_json: str) -> str:
    from ssdlab import _native

    return _native.run_spec(spec_json)


def run_cells(
    specs: Iterable[str],
    on_record: Callable[[str], None],
    address: Optional[str] = None,
    max_in_flight: Optional[int] = None,
) -> int:
    """Run every spec (JSON) as a Ray task on the cluster at ``address`` (``None``:
    ``RAY_ADDRESS``, else a local cluster started for this process) and hand each
    record (JSON) to ``on_record`` as its task ends. At most ``max_in_flight`` tasks are
    queued at once (default: twice the cluster's CPUs), so a sweep of 100 000 cells
    does not flood the scheduler. Returns the number of records."""
    import ray

    specs = list(specs)
    if not specs:
        return 0
    started = False
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False, logging_level="ERROR")
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=2)(_run_spec)
        limit = max_in_flight or max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
        queue = iter(specs)
        in_flight: List = []
        done = 0
        for s in queue:
            in_flight.append(task.remote(s))
            if len(in_flight) >= limit:
                break
        try:
            while in_flight:
                ready, in_flight = ray.wait(in_flight, num_returns=1)
                for ref in ready:
                    on_record(ray.get(ref))
                    done += 1
                    nxt = next(queue, None)
                    if nxt is not None:
                        in_flight.append(task.remote(nxt))
        except KeyboardInterrupt:
            # Ctrl-C: the records handed over so far are kept by the caller; the tasks
            # still running are inside native code, which only a forced cancel stops.
            for ref in in_flight:
                ray.cancel(ref, force=True)
            raise
        return done
    finally:
        if started:
            ray.shutdown()


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m ssdlab.ray_backend --address ADDR``: specs on stdin (one JSON line
    each), records on stdout (``SSDLAB-RECORD {json}`` lines), for ``ssdlab sweep
    --ray``."""
    ap = argparse.ArgumentParser(prog="python -m ssdlab.ray_backend", description=main.__doc__)
    ap.add_argument("--address", required=True, help="Ray cluster address (or 'auto')")
    ap.add_argument("--max-in-flight", type=int, default=None)
    a = ap.parse_args(argv)
    specs = [line.strip() for line in sys.stdin if line.strip()]
    out = sys.stdout

    def emit(record: str) -> None:
        out.write(RECORD_PREFIX + record + "\n")
        out.flush()

    run_cells(specs, emit, address=a.address, max_in_flight=a.max_in_flight)
    return 0


if __name__ == "__main__":
    sys.exit(main())
