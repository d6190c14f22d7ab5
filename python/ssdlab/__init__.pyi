"""Type stubs of the ssdlab package (docs/python.md)."""

import os
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

import pandas

from ._native import ConfigError as ConfigError
from ._native import OutputError as OutputError
from ._native import SimulationError as SimulationError
from ._native import SsdlabError as SsdlabError

__version__: str
PathLike = Union[str, os.PathLike[str]]

class Result(Mapping[str, Any]):
    """The report of one run; top-level keys are also attributes."""

    def __init__(
        self, report: Dict[str, Any], phases: List[Dict[str, Any]], fio: Optional[str] = None
    ) -> None: ...
    def __getitem__(self, key: str) -> Any: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def __getattr__(self, name: str) -> Any: ...
    def to_dict(self) -> Dict[str, Any]:
        """The whole report as plain data (the `ssdlab run --json` form)."""
    def to_frame(self) -> pandas.DataFrame:
        """One row per phase (the whole run first as `all`), latencies flattened."""
    def fio(self) -> Dict[str, Any]:
        """The report in fio's JSON shape (`ssdlab run --json-format fio`), keys in fio's
        order; `json.dumps(r.fio(), indent=2)` writes the file fio tools read."""

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
    """Simulate one SSD design and return its report."""

def list() -> Dict[str, List[Tuple[str, str]]]:
    """Every registry as {section: [(name, description), ...]}."""

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
) -> pandas.DataFrame:
    """Run every cell of a grid; the results table, one row per cell."""
