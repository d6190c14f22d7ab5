"""Type stubs of the compiled module (python/src/lib.rs)."""

from typing import Callable, Dict, List, Optional, Tuple

__version__: str

class SsdlabError(Exception):
    """Base class of every ssdlab error."""

class ConfigError(SsdlabError):
    """A design, workload, trace or grid refused before any work (CLI exit code 2)."""

class SimulationError(SsdlabError):
    """A run that could not complete (the FTL ran out of space)."""

class OutputError(SsdlabError):
    """An output that could not be written (CLI exit code 1)."""

def run(
    preset: Optional[str] = None,
    config: Optional[str] = None,
    settings_json: str = "{}",
    check: bool = False,
) -> Tuple[str, str, str]:
    """Runs one design (GIL released; Ctrl-C stops it); returns (report JSON, phases JSON,
    fio-shaped JSON: the `ssdlab run --json-format fio` form, in fio's key order)."""

def run_spec(spec_json: str) -> str:
    """Runs one sweep cell from its spec (GIL released); returns its record (JSON)."""

def list() -> Dict[str, List[Tuple[str, str]]]:
    """The registries, as `ssdlab list` prints them."""

class Sweep:
    """A validated grid with its store (the directory `out`)."""

    def __init__(
        self,
        out: str,
        path: Optional[str] = None,
        grid_json: Optional[str] = None,
        base_dir: str = ".",
        jobs: Optional[int] = None,
    ) -> None: ...
    def check_format(self, json_format: str) -> None:
        """Refuses `json_format` ("ssdlab" or "fio") before any cell runs when the store
        holds cells an earlier ssdlab ran without fio's figures (ConfigError)."""
    def pending(self, retry_failed: bool = False) -> List[str]:
        """Specs (JSON) of the cells still to run."""
    def record(self, record_json: str) -> None:
        """Stores a record a remote worker produced."""
    def run_local(
        self,
        jobs: Optional[int] = None,
        progress: Optional[Callable[[int, int], None]] = None,
        retry_failed: bool = False,
    ) -> Tuple[int, int]:
        """Runs the missing cells here (GIL released; Ctrl-C stops it, keeping the cells
        recorded): (cells run, cells failed). `progress(done, failed)` is called as
        cells are recorded."""
    def finish(
        self, html_dir: Optional[str] = None, command: str = "", json_format: str = "ssdlab"
    ) -> List[str]:
        """Writes the result files (reports.jsonl's reports in `json_format`: "ssdlab" or
        "fio"); returns the columns."""
    def summary(self) -> Tuple[int, int, int, int]:
        """(cells, distinct, done, failed)."""
