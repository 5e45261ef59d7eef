"""The smallest ε (or n) at which each method meets an accuracy target, by bisection.

:func:`advise_epsilon` and :func:`advise_users` search a monotone RMSE curve on a grid
then by bisection in log space (analytic for Base on single-value queries, NDSS Eq. 3),
with an interval from the simulation's standard error.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

from ldpcore.advice.targets import AccuracyTarget, accuracy_target
from ldpcore.bounds import EPSILON_RANGE, USERS_RANGE
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import exact_base_variances, run

#: Bisection steps in log space after the bracketing grid (precision ≈ 1 %).
_REFINE_STEPS = 7


def t_quantile(trials: int, level: float = 0.95) -> float:
    """Student's t quantile for a two-sided ``level`` interval of a mean of ``trials`` values.

    At 10 trials it is 2.26, not the normal 1.96 (or a flat 2): a band of ±2 standard
    errors would under-cover when trials are few.

    Examples
    --------
    >>> round(t_quantile(10), 3), round(t_quantile(1000), 3)
    (2.262, 1.962)
    """
    return float(special.stdtrit(max(1, trials - 1), 0.5 + level / 2))


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
        is met (the curve ± t standard errors, t of the trial count at 95 %, crosses the
        target there).
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
    target_rmse: float | None = None,
    epsilon_range: tuple[float, float] = EPSILON_RANGE,
    progress: Callable[[int, int], None] | None = None,
    target: AccuracyTarget | None = None,
) -> list[Advice]:
    """Smallest ε meeting ``target_rmse`` (or ``target``) for every method of ``config``.

    The RMSE is ``√MSE`` of the query's answers (frequency units); ``target`` may instead
    ask for each value, or all at once, within ±x 95% of the time
    (:class:`~ldpcore.advice.targets.AccuracyTarget`). Base is solved on its analytic
    curve (Eq. 3) for single-value queries; everything else by simulation with common
    random numbers (the same seed at every ε). ``progress`` is called as
    ``progress(done, total)`` after each method.
    """
    wanted = accuracy_target(target_rmse, target)
    found = []
    for done, method in enumerate(config.methods, start=1):
        found.append(_advise(config, method, "epsilon", wanted, epsilon_range))
        if progress is not None:
            progress(done, len(config.methods))
    return found


def advise_users(
    config: ExperimentConfig,
    *,
    target_rmse: float | None = None,
    users_range: tuple[int, int] = USERS_RANGE,
    target: AccuracyTarget | None = None,
) -> list[Advice]:
    """Smallest number of users meeting ``target_rmse`` (or ``target``) at ``config.epsilon``."""
    wanted = accuracy_target(target_rmse, target)
    return [
        _advise(config, method, "n", wanted, (float(users_range[0]), float(users_range[1])))
        for method in config.methods
    ]


def _advise(
    config: ExperimentConfig,
    method: str,
    parameter: str,
    wanted: AccuracyTarget,
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
        variances = exact_base_variances(point) if method == "Base" else None
        if variances is not None:
            # Eq. 3: exact, no noise, and no trials to run (at words' d = 10,000 an SS
            # run of 10 trials takes 2 s per point of the search).
            return wanted.scale(wanted.exact_base(variances)), 0.0
        result = run(point)
        if not wanted.is_rmse:
            stat, stat_se = wanted.statistic(result.answers, result.truth)
            return float(stat[0]), float(stat_se[0])
        row = result.summary.iloc[0]
        mse, se = float(row["mse"]), float(row["mse_std"]) / math.sqrt(point.trials)
        return math.sqrt(mse), se / (2 * math.sqrt(mse)) if mse > 0 else 0.0

    target = wanted.size
    if parameter == "n" and method == "Base" and exact_base_variances(single) is not None:
        return _exact_users(single, wanted, bounds_)
    value, rmse = smallest_meeting(lambda v: at(v)[0], target, bounds_, integer=parameter == "n")
    width = t_quantile(config.trials)
    low, _ = smallest_meeting(
        lambda v: _shift(at(v), -width), target, bounds_, integer=parameter == "n"
    )
    high, _ = smallest_meeting(
        lambda v: _shift(at(v), width), target, bounds_, integer=parameter == "n"
    )
    return Advice(single.protocol, method, value, low, high, rmse)


def _exact_users(
    config: ExperimentConfig, wanted: AccuracyTarget, bounds_: tuple[float, float]
) -> Advice:
    """Base's users needed, solved rather than searched.

    Every variance of NDSS Eq. 3 is proportional to 1/n at fixed frequencies, so its
    margin (or RMSE) is proportional to 1/√n and n = n₀ (m(n₀) / target)² exactly. The
    dataset's counts are rounded to each n, which moves its frequencies by 1/n; the
    solve is repeated at its own answer until it stands, and the answer is checked to
    meet the target with one user fewer not meeting it.
    """

    def measure(n: int) -> float:
        variances = exact_base_variances(dataclasses.replace(config, n=n))
        assert variances is not None  # single-value queries, checked by the caller
        return wanted.scale(wanted.exact_base(variances))

    low, high = math.ceil(bounds_[0]), int(bounds_[1])
    n = config.n
    for _ in range(4):
        solved = min(max(math.ceil(n * (measure(n) / wanted.size) ** 2), low), high)
        if solved == n:
            break
        n = solved
    while n < high and measure(n) > wanted.size:  # rounding's last user
        n += 1
    met = measure(n)
    if met > wanted.size:
        return Advice(config.protocol, "Base", None, None, None, None)
    return Advice(config.protocol, "Base", float(n), float(n), float(n), met)


def _shift(pair: tuple[float, float], width: float) -> float:
    return pair[0] + width * pair[1]


def smallest_meeting(
    rmse: Callable[[float], float],
    target: float,
    bounds_: tuple[float, float],
    *,
    integer: bool,
    steps: int = _REFINE_STEPS,
) -> tuple[float | None, float | None]:
    """Smallest value in ``bounds_`` with ``rmse(value) ≤ target`` (rmse falls with value).

    A 9-point geometric grid brackets the first crossing, then bisection in log space
    refines it (``steps`` steps; the default :data:`_REFINE_STEPS`, about 1 %). Returns
    the value and its RMSE, or ``(None, None)`` when no value in range meets the target.
    """
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
    for _ in range(steps):
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


def log_crossing(epsilons: np.ndarray, rmse: np.ndarray, target: float) -> float:
    """First ε where a decreasing RMSE curve reaches ``target`` (inf if it never does).

    Between the two points around it, the crossing is read off the straight line through
    them on log–log axes, where an error falls like a power of ε.
    """
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
