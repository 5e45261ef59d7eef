"""Choose ε's adaptive search, on curves whose crossings are known in closed form.

The search (``ldpcore.advice.epsilon_search``) places its ε points by what it has seen;
here ``evaluate`` reads them off deterministic curves (no simulation noise, a standard
error of almost nothing), so where each crossing lies, and how many points a search may
spend reaching it, are known exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldpcore.advice.epsilon_search import _FINE_SPACING, _MAX_ROUNDS, _Point, _Search
from ldpcore.advice.targets import parse_target
from ldpcore.bounds import EPSILON_RANGE
from ldpcore.data.specs import parse_dataset_spec
from ldpcore.experiments.config import ExperimentConfig

TARGET = 0.005  # an RMSE


def _config(dataset: str, n: int, protocol: str) -> ExperimentConfig:
    return ExperimentConfig(
        dataset=parse_dataset_spec(dataset),
        n=n,
        protocol=protocol,
        epsilon=1.0,
        methods=("Base", "PowerNS"),
        query="full",
        trials=10,
    )


class _OnCurves(_Search):
    """The search, each point's RMSE read off ``rmse(ε)`` per method, not simulated."""

    def __init__(self, curves, anchor: float) -> None:
        config = _config("zipf:d=16,s=1", 1000, "GRR")
        super().__init__(config, parse_target(f"rmse:{TARGET}"), EPSILON_RANGE)
        self.curves = curves
        self._anchor = anchor
        self.evaluated: list[list[float]] = []

    def evaluate(self, epsilons) -> None:
        new = sorted({self.key(e) for e in epsilons} - set(self.points))
        self.evaluated.append(new)
        for e in new:
            mse = np.array([curve(e) ** 2 for curve in self.curves])
            tiny = mse * 1e-9
            errors = np.repeat(mse[:, None], 10, axis=1)
            self.points[e] = _Point(mse, tiny, errors, mse, tiny)


def base(epsilon: float) -> float:
    return 0.02 / epsilon  # crosses the target at ε = 4


def flat(epsilon: float) -> float:
    """A method whose error barely falls with ε: far better than Base's at small ε."""
    return 0.003 * epsilon**-0.3  # crosses at ε = (5/3)^(−1/0.3) ≈ 0.182


def test_a_crossing_far_below_the_prediction_is_bracketed_finely() -> None:
    """The method's ratio to Base at Base's ε predicts its crossing near 1.6; it lies at
    0.182, 8.7× further. Stepping ×1.44 a round, the rounds ran out before reaching it
    (the answer was then the grid's last point, too high); galloping, the crossing is
    bracketed within ``_FINE_SPACING`` and found to the interpolation's accuracy."""
    search = _OnCurves((base, flat), anchor=4.0)
    search.evaluate([search.anchor()])
    search.follow_prediction()
    search.refine()
    truth = (0.003 / TARGET) ** (1 / 0.3)
    value, state = search.crossing(1, 0.0)
    assert state == 0 and value is not None
    grid = sorted(search.points)
    above = min(e for e in grid if e >= value)
    below = max(e for e in grid if e < value)
    assert below <= truth <= above and above / below <= _FINE_SPACING * 1.01, grid
    assert value == pytest.approx(truth, rel=0.02)
    assert len(search.evaluated) <= 2 + _MAX_ROUNDS


def test_the_mean_leads_and_the_bands_follow() -> None:
    """While the mean's crossing is beyond the grid, no round adds a band's fine step:
    each round beyond the grid's end adds one point, and the steps grow."""
    search = _OnCurves((base, flat), anchor=4.0)
    search.evaluate([search.anchor()])
    search.follow_prediction()
    search.refine()
    lowest = min(search.evaluated[1])
    steps = []
    for new in search.evaluated[2:]:
        if min(new) < lowest:  # a round beyond the grid's lower end
            assert len(new) == 1, search.evaluated
            steps.append(lowest / min(new))
            lowest = min(new)
    assert len(steps) >= 3 and steps == sorted(steps), steps
    assert steps[0] == pytest.approx(_FINE_SPACING**2, rel=1e-3)


def test_an_exact_base_starts_from_one_point() -> None:
    """Base's exact crossing (Eq. 3) is where the search starts: one simulated point, not
    a bracket of two, when the methods' ratios there say where to look next."""
    from ldpcore.advice.epsilon_search import _search_protocol  # noqa: PLC0415

    calls: list[list[float]] = []
    original = _Search.evaluate

    def counting(self: _Search, epsilons) -> None:
        calls.append(sorted({self.key(e) for e in epsilons} - set(self.points)))
        original(self, epsilons)

    config = _config("zipf:d=256,s=1.5", 10_000, "OUE")
    _Search.evaluate = counting  # type: ignore[method-assign]
    try:
        answer = _search_protocol(config, parse_target("rmse:0.01"), EPSILON_RANGE)
    finally:
        _Search.evaluate = original  # type: ignore[method-assign]
    assert len(calls[0]) == 1 and math.isclose(calls[0][0], float(f"{answer.base_epsilon:.4g}"))
    assert answer.method == "PowerNS" and answer.epsilon < answer.base_epsilon / 2
