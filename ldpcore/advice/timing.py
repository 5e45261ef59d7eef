"""How long a Choose ε search will take, measured, so an interface can warn first."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from concurrent.futures import Executor

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.scope import searched_configs
from ldpcore.experiments.trials import run


def estimate_choose_epsilon_seconds(
    config: ExperimentConfig,
    protocols: Sequence[str],
    executor: Executor | None = None,
    methods: Sequence[str] | None = None,
) -> dict[str, float]:
    """Seconds :func:`choose_epsilon` will take per protocol, from one timed 1-trial run each.

    A measurement, so only a guide; it lets an interface warn before a long search.
    The adaptive search evaluates about :data:`RUNS_PER_PROTOCOL` points. With an
    ``executor`` (the search's own threads) the probes run at once; each then times its
    own run, a little longer for sharing the cores, so the guide errs towards warning.
    Each protocol is timed with the methods the search will run on it (``methods``,
    default ``config``'s: :func:`~ldpcore.experiments.scope.searched_configs`).
    """
    searched = searched_configs(config, protocols, methods)

    def timed(protocol: str) -> tuple[str, float]:
        probe = dataclasses.replace(searched[protocol], trials=1)
        start = time.perf_counter()
        run(probe)
        return probe.protocol, (time.perf_counter() - start) * config.trials * RUNS_PER_PROTOCOL

    if executor is None:
        return dict(timed(p) for p in searched)
    return dict(executor.map(timed, searched))


def parallel_seconds(estimates: dict[str, float], workers: int) -> float:
    """Wall time of searches taking ``estimates`` seconds each, on ``workers`` in parallel.

    Longest first, each to the least loaded worker (Graham's LPT rule; within 4/3 of
    the best schedule), which is about what a shared pool taking them in turn achieves.

    Examples
    --------
    >>> parallel_seconds({"GRR": 1.0, "OLH": 1.0, "SS": 6.0}, 2)
    6.0
    >>> parallel_seconds({"GRR": 1.0, "OLH": 1.0}, 1)
    2.0
    """
    loads = [0.0] * max(1, workers)
    for seconds in sorted(estimates.values(), reverse=True):
        loads[loads.index(min(loads))] += seconds
    return max(loads)


#: Points one :func:`choose_epsilon` protocol evaluates, typically (measured: 4 to 7).
RUNS_PER_PROTOCOL = 6
