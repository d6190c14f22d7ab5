"""Results and exceptions pickle, so ProcessPoolExecutor, multiprocessing and Jupyter's
parallel tools can carry them; exceptions belong to the `ssdlab` module and carry the
library's message."""

import copy
import functools
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

import ssdlab
from conftest import SMALL


def test_a_result_pickles_and_copies():
    r = ssdlab.run("ssd-a", workload="random-write", seed=5, settings=SMALL)
    back = pickle.loads(pickle.dumps(r))
    assert isinstance(back, ssdlab.Result)
    assert back == r and back.to_dict() == r.to_dict()
    assert back.write_amplification == r.write_amplification
    assert back.to_frame().equals(r.to_frame())
    assert back.fio() == r.fio()
    assert copy.deepcopy(r) == r and copy.copy(r) == r
    with pytest.raises(AttributeError):
        back.no_such_key


def test_exceptions_pickle_in_the_package_module():
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.run(None, settings={"ftl.name": "nosuch"})
    err = e.value
    for cls in (ssdlab.SsdlabError, ssdlab.ConfigError, ssdlab.SimulationError,
                ssdlab.OutputError):
        assert cls.__module__ == "ssdlab", cls
    # The library's message, not the command line's framing of it.
    assert not str(err).startswith("command line"), str(err)
    assert "nosuch" in str(err)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is ssdlab.ConfigError and str(back) == str(err)


def _fails(_):
    ssdlab.run(None, settings={"device.op_percent": -3})


def test_a_process_pool_maps_runs_and_carries_errors():
    # "spawn" (the default on macOS and Windows): a fresh interpreter that must
    # unpickle the function, its arguments, results and exceptions, where a fork
    # would inherit them.
    ctx = multiprocessing.get_context("spawn")
    run = functools.partial(ssdlab.run, workload="random-write", settings=SMALL)
    with ProcessPoolExecutor(2, mp_context=ctx) as ex:
        results = list(ex.map(run, ["ssd-a", "ssd-b"]))
        assert [type(r) for r in results] == [ssdlab.Result, ssdlab.Result]
        assert strip(results[0]) == strip(run("ssd-a"))
        with pytest.raises(ssdlab.ConfigError, match="device.op_percent"):
            list(ex.map(_fails, [0]))


def strip(r):
    """The report without its wall-clock times."""
    return {k: v for k, v in r.to_dict().items() if k not in ("wall_clock_s", "wall_clock_measured_s")}
