"""What a simulation will cost before it starts: measured seconds per trial (issue 36).

A trial costs the protocol's sampler with its Base estimate, plus each method on top.
The fast sampler draws support counts directly, so a trial's cost depends on the
protocol, the domain size and the methods, not on n (README, "The fast samplers").
:data:`MEASURED` holds one trial's seconds at the first sizes of :data:`SIZES` on the
machine the project is developed on (``benchmarks/bench_costs.py`` measures all three
and prints the table); between them the cost follows the power law through the
neighbouring points. The table stops at d = 16,384 for now: beyond
:func:`measured_up_to` an estimate is an extrapolation (IBU at GRR, d = 100,000 ran
for minutes where the law said 0.1 s), and the pages ask before any such run.

The estimate is what a page shows before a run and what the server's budget
(``LDPCORE_RUN_BUDGET_S``) is compared with. It is for one core: a faster or slower
machine scales it; ``bench_costs.py --check`` compares it with whole runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ldpcore.experiments.config import ExperimentConfig

#: The domain sizes each cost was measured at (the last is the d slider's end).
SIZES = (1024, 16384, 100_000)

#: ``(protocol, "trial" | method) -> seconds at each of :data:`SIZES```: one trial
#: at n = 10⁶, ε = 1, Zipf s = 1.5 (``benchmarks/bench_costs.py``, 2026-11-24, this
#: 2-core machine). "trial" is one trial with Base only (sampler, estimate, metrics);
#: a method's figure is one call of it on a trial's estimate.
MEASURED: dict[tuple[str, str], tuple[float, ...]] = {
    ("GRR", "trial"): (2.08e-04, 2.04e-03),
    ("GRR", "Base-Pos"): (1.35e-05, 3.23e-05),
    ("GRR", "Post-Pos"): (1.22e-05, 2.44e-05),
    ("GRR", "Base-Cut"): (1.79e-05, 3.93e-05),
    ("GRR", "Norm"): (1.40e-05, 3.22e-05),
    ("GRR", "Norm-Mul"): (1.54e-05, 4.42e-05),
    ("GRR", "Norm-Cut"): (3.34e-05, 1.41e-04),
    ("GRR", "Norm-Sub"): (3.08e-05, 1.63e-04),
    ("GRR", "MLE-Apx"): (8.33e-05, 7.67e-04),
    ("GRR", "Power"): (6.85e-05, 3.24e-04),
    ("GRR", "PowerNS"): (1.06e-04, 5.07e-04),
    ("GRR", "MLE"): (9.58e-05, 8.14e-04),
    ("GRR", "IBU"): (6.44e-04, 1.17e-02),
    ("OLH", "trial"): (2.44e-04, 1.07e-03),
    ("OLH", "Base-Pos"): (1.48e-05, 3.24e-05),
    ("OLH", "Post-Pos"): (1.04e-05, 2.34e-05),
    ("OLH", "Base-Cut"): (1.70e-05, 3.71e-05),
    ("OLH", "Norm"): (1.27e-05, 3.33e-05),
    ("OLH", "Norm-Mul"): (1.51e-05, 4.21e-05),
    ("OLH", "Norm-Cut"): (3.14e-05, 1.62e-04),
    ("OLH", "Norm-Sub"): (3.16e-05, 1.97e-04),
    ("OLH", "MLE-Apx"): (7.64e-05, 1.12e-03),
    ("OLH", "Power"): (2.16e-04, 6.10e-04),
    ("OLH", "PowerNS"): (2.40e-04, 8.35e-04),
    ("OLH", "MLE"): (4.08e-04, 1.99e-03),
    ("OLH", "IBU"): (9.27e-04, 1.60e-02),
    ("BLH", "trial"): (2.10e-04, 1.14e-03),
    ("BLH", "Base-Pos"): (1.30e-05, 3.21e-05),
    ("BLH", "Post-Pos"): (1.19e-05, 2.29e-05),
    ("BLH", "Base-Cut"): (1.77e-05, 3.73e-05),
    ("BLH", "Norm"): (1.38e-05, 3.09e-05),
    ("BLH", "Norm-Mul"): (1.51e-05, 4.23e-05),
    ("BLH", "Norm-Cut"): (3.25e-05, 1.54e-04),
    ("BLH", "Norm-Sub"): (2.92e-05, 1.87e-04),
    ("BLH", "MLE-Apx"): (7.84e-05, 1.12e-03),
    ("BLH", "Power"): (1.99e-04, 7.94e-04),
    ("BLH", "PowerNS"): (2.30e-04, 9.32e-04),
    ("BLH", "MLE"): (4.15e-04, 2.04e-03),
    ("BLH", "IBU"): (7.59e-04, 1.59e-02),
    ("OUE", "trial"): (3.55e-04, 1.03e-03),
    ("OUE", "Base-Pos"): (1.47e-05, 3.14e-05),
    ("OUE", "Post-Pos"): (1.03e-05, 2.41e-05),
    ("OUE", "Base-Cut"): (1.69e-05, 3.79e-05),
    ("OUE", "Norm"): (1.88e-05, 3.08e-05),
    ("OUE", "Norm-Mul"): (1.68e-05, 4.37e-05),
    ("OUE", "Norm-Cut"): (3.55e-05, 1.49e-04),
    ("OUE", "Norm-Sub"): (3.62e-05, 1.80e-04),
    ("OUE", "MLE-Apx"): (7.95e-05, 1.12e-03),
    ("OUE", "Power"): (2.01e-04, 6.60e-04),
    ("OUE", "PowerNS"): (2.21e-04, 8.18e-04),
    ("OUE", "MLE"): (3.11e-04, 2.17e-03),
    ("OUE", "IBU"): (8.51e-04, 1.59e-02),
    ("SUE", "trial"): (2.45e-04, 1.03e-03),
    ("SUE", "Base-Pos"): (1.47e-05, 3.13e-05),
    ("SUE", "Post-Pos"): (1.04e-05, 2.34e-05),
    ("SUE", "Base-Cut"): (1.79e-05, 3.88e-05),
    ("SUE", "Norm"): (1.28e-05, 3.17e-05),
    ("SUE", "Norm-Mul"): (1.55e-05, 4.54e-05),
    ("SUE", "Norm-Cut"): (3.86e-05, 1.52e-04),
    ("SUE", "Norm-Sub"): (2.99e-05, 1.92e-04),
    ("SUE", "MLE-Apx"): (7.46e-05, 1.16e-03),
    ("SUE", "Power"): (2.04e-04, 6.57e-04),
    ("SUE", "PowerNS"): (2.21e-04, 9.30e-04),
    ("SUE", "MLE"): (4.69e-04, 2.22e-03),
    ("SUE", "IBU"): (9.19e-04, 2.00e-02),
    ("SS", "trial"): (1.49e-02, 2.02e-01),
    ("SS", "Base-Pos"): (1.16e-05, 3.07e-05),
    ("SS", "Post-Pos"): (1.19e-05, 2.43e-05),
    ("SS", "Base-Cut"): (1.74e-05, 3.79e-05),
    ("SS", "Norm"): (1.44e-05, 3.59e-05),
    ("SS", "Norm-Mul"): (2.27e-05, 4.59e-05),
    ("SS", "Norm-Cut"): (3.18e-05, 1.51e-04),
    ("SS", "Norm-Sub"): (3.47e-05, 1.86e-04),
    ("SS", "MLE-Apx"): (8.23e-05, 1.14e-03),
    ("SS", "Power"): (1.99e-04, 6.98e-04),
    ("SS", "PowerNS"): (2.33e-04, 8.98e-04),
    ("SS", "MLE"): (3.50e-04, 2.05e-03),
    ("SS", "IBU"): (8.16e-04, 1.41e-02),
    ("HR", "trial"): (3.80e-03, 3.93e-02),
    ("HR", "Base-Pos"): (1.47e-05, 3.18e-05),
    ("HR", "Post-Pos"): (1.08e-05, 2.42e-05),
    ("HR", "Base-Cut"): (1.72e-05, 3.90e-05),
    ("HR", "Norm"): (1.43e-05, 3.17e-05),
    ("HR", "Norm-Mul"): (1.64e-05, 4.58e-05),
    ("HR", "Norm-Cut"): (3.58e-05, 1.49e-04),
    ("HR", "Norm-Sub"): (4.17e-05, 1.86e-04),
    ("HR", "MLE-Apx"): (8.36e-05, 1.11e-03),
    ("HR", "Power"): (2.05e-04, 6.71e-04),
    ("HR", "PowerNS"): (2.30e-04, 8.71e-04),
    ("HR", "MLE"): (9.54e-02, 1.49e00),
    ("HR", "IBU"): (8.20e-02, 1.02e00),
}

#: Seconds per user per trial of the per-user (reference) sampler, which draws every
#: user's report (benchmarks/README.md, "Per-user OLH": about 0.4 µs a user).
PER_USER_S = 4e-7


def measured_up_to() -> int:
    """The largest domain size every part of :data:`MEASURED` was measured at.

    Beyond it an estimate is an extrapolation, and it can be far off: IBU at GRR,
    d = 100,000 ran for minutes a trial where the power law through 1,024 and 16,384
    said 0.1 s (its iterations grow with d). The pages then always ask first.

    Examples
    --------
    >>> measured_up_to() in SIZES
    True
    """
    return SIZES[min(len(times) for times in MEASURED.values()) - 1]


def _at(times: tuple[float, ...], domain_size: int) -> float:
    """The cost at ``domain_size``: piecewise power law through the measured points.

    Below the first size and above the last, the nearest segment's slope continues
    (kept between 0 and 2: a cost never falls with d, nor grows faster than d²).
    """
    points = [max(t, 1e-6) for t in times]
    sizes = SIZES[: len(points)]
    segment = next(
        (i for i in range(len(sizes) - 2) if domain_size <= sizes[i + 1]), len(sizes) - 2
    )
    low, high = sizes[segment], sizes[segment + 1]
    slope = math.log(points[segment + 1] / points[segment]) / math.log(high / low)
    slope = min(max(slope, 0.0), 2.0)
    return points[segment] * (domain_size / low) ** slope


def _part(protocol: str, part: str, domain_size: int) -> float:
    """One part's seconds (a part not measured: the dearest measured of its kind).

    A protocol or method added later is not yet measured; over-estimating it is the
    safe side of a budget.
    """
    found = MEASURED.get((protocol, part))
    if found is not None:
        return _at(found, domain_size)
    if part == "trial":
        kin = [pair for (_, p), pair in MEASURED.items() if p == "trial"]
    else:
        kin = [pair for (name, p), pair in MEASURED.items() if p != "trial" and name == protocol]
        kin = kin or [pair for (_, p), pair in MEASURED.items() if p != "trial"]
    return max((_at(pair, domain_size) for pair in kin), default=0.0)


def trial_seconds(protocol: str, domain_size: int, methods: Sequence[str]) -> float:
    """Seconds one trial of ``protocol`` at ``domain_size`` takes with ``methods``.

    Examples
    --------
    >>> fast = trial_seconds("GRR", 64, ["Base", "Norm-Sub"])
    >>> slow = trial_seconds("HR", 16384, ["Base", "Norm-Sub", "MLE", "IBU"])
    >>> fast < 0.01 < 1 < slow
    True
    """
    total = _part(protocol, "trial", domain_size)
    return total + sum(_part(protocol, m, domain_size) for m in methods if m != "Base")


def domain_size_of(config: ExperimentConfig) -> int:
    """How many values ``config``'s dataset has (built to learn it, unless given)."""
    if config.true_counts is not None:
        return len(config.true_counts)
    return config.dataset.build(config.n).domain_size


def run_seconds(config: ExperimentConfig) -> float:
    """Seconds of one core that running ``config`` takes (every trial, every method)."""
    per_trial = trial_seconds(config.protocol, domain_size_of(config), config.methods)
    if config.sampler != "fast":
        per_trial += PER_USER_S * config.n
    return config.trials * per_trial


def sweep_seconds(config: ExperimentConfig, parameter: str, values: Sequence[Any]) -> float:
    """Seconds of one core that a sweep of ``parameter`` over ``values`` takes."""
    from ldpcore.experiments.sweeps import with_parameter  # noqa: PLC0415 (sweeps loads pandas)

    return sum(run_seconds(with_parameter(config, parameter, value)) for value in values)


__all__ = [
    "MEASURED",
    "PER_USER_S",
    "SIZES",
    "domain_size_of",
    "measured_up_to",
    "run_seconds",
    "sweep_seconds",
    "trial_seconds",
]
