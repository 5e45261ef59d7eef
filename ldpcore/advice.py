"""Decisions from simulations: which method to use, and which ε (or n) is enough.

* :func:`recommend` — NDSS 2020 Section V-D, "choosing the method on a synthetic
  dataset": make a consistent stand-in for the unknown truth from the Base estimate
  (Norm-Sub or PowerNS of it), simulate the whole pipeline on it, rank the methods
  for the query that matters.
* :func:`advise_epsilon` — the smallest ε at which a method's root-mean-square error
  on the query meets a target, by a monotone search over ε (analytic for Base),
  with an interval from the simulation's standard error.
* :func:`advise_users` — the reverse: how many users at a given ε.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ldpcore import bounds
from ldpcore.datasets import round_to_total
from ldpcore.experiment import ExperimentConfig, run
from ldpcore.postprocess import get_method, method_names
from ldpcore.protocols import FrequencyOracle

#: The ε range searched (the app's slider range).
EPSILON_RANGE = (0.05, 10.0)
#: The n range searched by :func:`advise_users`.
USERS_RANGE = (100, 10**9)
#: Bisection steps in log space after the bracketing grid (precision ≈ 1 %).
_REFINE_STEPS = 7
#: Standard errors on each side for the reported interval.
_SE_WIDTH = 2.0


def recommend(
    estimate: ArrayLike,
    *,
    protocol: FrequencyOracle,
    n: int,
    query: str = "full",
    methods: Sequence[str] | None = None,
    trials: int = 20,
    seed: int = 0,
    truth_from: str = "Norm-Sub",
    groups: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Rank post-processing methods for data like this estimate (NDSS Sec. V-D).

    Parameters
    ----------
    estimate : array_like
        The Base estimate that was collected.
    protocol : FrequencyOracle
        The protocol that produced it.
    n : int
        Number of users.
    query : str
        The query that matters (see :func:`ldpcore.queries.parse_query`).
    methods : sequence of str, optional
        Candidates (default: all).
    trials, seed : int
        Simulation size and seed.
    truth_from : {"Norm-Sub", "PowerNS"}
        How the consistent stand-in for the truth is made.
    groups : sequence of str, optional
        The group of each value, for the ``groups`` query.

    Returns
    -------
    DataFrame
        ``rank, method, mse, mse_std`` sorted best first.
    """
    if truth_from not in {"Norm-Sub", "PowerNS"}:
        raise ValueError(f"truth_from must be 'Norm-Sub' or 'PowerNS', got {truth_from!r}")
    stand_in = get_method(truth_from)(estimate, protocol=protocol, n=n)
    counts = round_to_total(stand_in, n)
    extras = protocol.parameters()
    config = ExperimentConfig(
        dataset=f"synthetic truth ({truth_from} of the estimate)",
        n=n,
        protocol=protocol.name,
        epsilon=protocol.epsilon,
        methods=method_names() if methods is None else tuple(methods),
        query=query,
        trials=trials,
        seed=seed,
        g=_optional_int(extras.get("g")),
        k=_optional_int(extras.get("k")),
        true_counts=tuple(int(c) for c in counts),
        groups=None if groups is None else tuple(groups),
    )
    summary = run(config).summary.sort_values("mse", kind="stable").reset_index(drop=True)
    summary.insert(0, "rank", np.arange(1, len(summary) + 1))
    return summary[["rank", "method", "mse", "mse_std"]]


def _optional_int(value: object) -> int | None:
    return None if value is None else int(value)  # type: ignore[call-overload]


@dataclass(frozen=True)
class Advice:
    """The smallest value of a parameter (ε or n) that meets an accuracy target.

    Attributes
    ----------
    protocol, method : str
    value : float or None
        The smallest value meeting the target (None if none in range does).
    low, high : float or None
        The range of values for which the simulation cannot tell whether the target
        is met (the curve ± 2 standard errors crosses the target there).
    rmse_at_value : float or None
        The measured RMSE at ``value``.
    """

    protocol: str
    method: str
    value: float | None
    low: float | None
    high: float | None
    rmse_at_value: float | None


def advise_epsilon(
    config: ExperimentConfig,
    *,
    target_rmse: float,
    epsilon_range: tuple[float, float] = EPSILON_RANGE,
) -> list[Advice]:
    """Smallest ε meeting ``target_rmse`` for every method of ``config``.

    The RMSE is ``√MSE`` of the query's answers (frequency units). Base is solved on
    its analytic curve (Eq. 3) for single-value queries; everything else by
    simulation with common random numbers (the same seed at every ε).
    """
    _check_target(target_rmse)
    return [
        _advise(config, method, "epsilon", target_rmse, epsilon_range) for method in config.methods
    ]


def advise_users(
    config: ExperimentConfig,
    *,
    target_rmse: float,
    users_range: tuple[int, int] = USERS_RANGE,
) -> list[Advice]:
    """Smallest number of users meeting ``target_rmse`` at ``config.epsilon``."""
    _check_target(target_rmse)
    return [
        _advise(config, method, "n", target_rmse, (float(users_range[0]), float(users_range[1])))
        for method in config.methods
    ]


def _check_target(target: float) -> None:
    if not (isinstance(target, int | float) and math.isfinite(target) and 0 < target < 1):
        raise ValueError(
            f"target_rmse must be in (0, 1) (frequency units; 0.005 = 0.5 percentage points), "
            f"got {target!r}"
        )


def _advise(
    config: ExperimentConfig,
    method: str,
    parameter: str,
    target: float,
    bounds_: tuple[float, float],
) -> Advice:
    single = dataclasses.replace(config, methods=(method,))
    seen: dict[float, tuple[float, float]] = {}  # the three searches share grid points

    def at(value: float) -> tuple[float, float]:
        if value not in seen:
            seen[value] = measure(value)
        return seen[value]

    def measure(value: float) -> tuple[float, float]:
        point = (
            dataclasses.replace(single, n=round(value))
            if parameter == "n"
            else dataclasses.replace(single, epsilon=value)
        )
        result = run(point)
        if method == "Base" and result.analytic["base_mse"] is not None:
            return math.sqrt(float(result.analytic["base_mse"])), 0.0  # exact, no noise
        row = result.summary.iloc[0]
        mse, se = float(row["mse"]), float(row["mse_std"]) / math.sqrt(point.trials)
        return math.sqrt(mse), se / (2 * math.sqrt(mse)) if mse > 0 else 0.0

    value, rmse = _smallest_meeting(lambda v: at(v)[0], target, bounds_, integer=parameter == "n")
    low, _ = _smallest_meeting(lambda v: _shift(at(v), -_SE_WIDTH), target, bounds_,
                               integer=parameter == "n")  # fmt: skip
    high, _ = _smallest_meeting(lambda v: _shift(at(v), _SE_WIDTH), target, bounds_,
                                integer=parameter == "n")  # fmt: skip
    return Advice(single.protocol, method, value, low, high, rmse)


@dataclass(frozen=True)
class EpsilonAnswer:
    """For one protocol: its best method's smallest ε, and Base's, for a target.

    Attributes
    ----------
    protocol, method : str
        The protocol and the method that needs the smallest ε with it.
    best : Advice
        That method's advice.
    base : Advice
        Base's advice (no post-processing), for comparison.
    """

    protocol: str
    method: str
    best: Advice
    base: Advice


def choose_epsilon(
    config: ExperimentConfig,
    *,
    target_rmse: float,
    protocols: Sequence[str],
    epsilon_range: tuple[float, float] = EPSILON_RANGE,
    progress: Callable[[float, str], None] | None = None,
    executor: Executor | None = None,
) -> list[EpsilonAnswer]:
    """Per protocol, the smallest ε meeting the target with its best method, and with Base.

    Every method of ``config`` is simulated together (common random numbers) on a
    coarse log grid of ε; the best method is the one whose RMSE curve crosses the
    target first (log-linear interpolation between grid points). That method and
    Base are then searched precisely as in :func:`advise_epsilon`. With an
    ``executor`` (e.g. a Dask client's) the grid's points run in parallel there.
    """
    _check_target(target_rmse)
    grid = np.geomspace(epsilon_range[0], epsilon_range[1], 10)
    answers = []
    for position, protocol in enumerate(protocols):
        point = dataclasses.replace(config, protocol=protocol)
        points = [dataclasses.replace(point, epsilon=float(e)) for e in grid]
        results = (
            [f.result() for f in [executor.submit(run, p) for p in points]]
            if executor is not None
            else [run(p) for p in points]
        )
        curves = pd.concat(
            [r.summary.assign(epsilon=e) for r, e in zip(results, grid, strict=True)]
        )  # fmt: skip
        crossing = {}
        for name, frame in curves.groupby("method", sort=False):
            rmse = np.sqrt(frame["mse"].to_numpy())
            crossing[str(name)] = _crossing(frame["epsilon"].to_numpy(), rmse, target_rmse)
        candidates = {m: c for m, c in crossing.items() if m != "Base"} or crossing
        method = min(candidates, key=lambda m: candidates[m])
        best = _advise(point, method, "epsilon", target_rmse, epsilon_range)
        base = (
            best
            if method == "Base"
            else _advise(point, "Base", "epsilon", target_rmse, epsilon_range)
        )
        answers.append(EpsilonAnswer(point.protocol, method, best, base))
        if progress is not None:
            progress((position + 1) / len(protocols), point.protocol)
    return answers


#: Runs of the experiment one :func:`choose_epsilon` protocol takes, about: the coarse
#: grid, then up to three bisections of the best method and Base's (shared grid points
#: are cached, Base is analytic for single-value queries).
RUNS_PER_PROTOCOL = 10 + 2 * (9 + _REFINE_STEPS)


def estimate_choose_epsilon_seconds(
    config: ExperimentConfig, protocols: Sequence[str]
) -> dict[str, float]:
    """Seconds :func:`choose_epsilon` will take per protocol, from one timed 1-trial run each.

    A measurement, so only a guide; it lets an interface warn before a long search
    (Subset Selection's exact sampler is O(d·√k) per trial: ~0.5 s at d = 10,000).
    """
    estimates = {}
    for protocol in protocols:
        probe = dataclasses.replace(config, protocol=protocol, trials=1)
        start = time.perf_counter()
        run(probe)
        estimates[probe.protocol] = (
            (time.perf_counter() - start) * config.trials * (RUNS_PER_PROTOCOL)
        )
    return estimates


def _crossing(epsilons: np.ndarray, rmse: np.ndarray, target: float) -> float:
    """First ε where a decreasing RMSE curve reaches ``target`` (inf if it never does)."""
    meeting = np.flatnonzero(rmse <= target)
    if meeting.size == 0:
        return math.inf
    i = int(meeting[0])
    if i == 0:
        return float(epsilons[0])
    x0, x1 = math.log(epsilons[i - 1]), math.log(epsilons[i])
    y0, y1 = math.log(rmse[i - 1]), math.log(max(rmse[i], 1e-300))
    t = (math.log(target) - y0) / (y1 - y0) if y1 != y0 else 1.0
    return math.exp(x0 + min(max(t, 0.0), 1.0) * (x1 - x0))


def _shift(pair: tuple[float, float], width: float) -> float:
    return pair[0] + width * pair[1]


def _smallest_meeting(
    rmse: Callable[[float], float],
    target: float,
    bounds_: tuple[float, float],
    *,
    integer: bool,
) -> tuple[float | None, float | None]:
    """Smallest value in ``bounds_`` with ``rmse(value) ≤ target`` (rmse falls with value)."""
    low, high = bounds_
    grid = np.geomspace(low, high, 9)
    values = [rmse(float(v)) for v in grid]
    meeting = [i for i, r in enumerate(values) if r <= target]
    if not meeting:
        return None, None
    first = meeting[0]
    if first == 0:
        return float(grid[0]), values[0]
    lo, hi, hi_rmse = float(grid[first - 1]), float(grid[first]), values[first]
    for _ in range(_REFINE_STEPS):
        mid = math.sqrt(lo * hi)
        if integer:
            mid = float(round(mid))
            if mid in {lo, hi}:
                break
        mid_rmse = rmse(mid)
        if mid_rmse <= target:
            hi, hi_rmse = mid, mid_rmse
        else:
            lo = mid
    return (float(math.ceil(hi)) if integer else hi), hi_rmse


assert EPSILON_RANGE[0] >= bounds.EPSILON_MIN
