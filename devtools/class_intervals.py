"""The live class's interval grid: class sizes, compositions and one cell's coverage.

Shared by ``benchmarks/bench_class_intervals.py`` (the whole grid, its table) and
``tests/live/test_class_intervals.py`` (a seeded corner of it).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ldpcore.postprocess.intervals import _score_intervals, frequency_intervals
from ldpcore.protocols import get_protocol

PROTOCOLS = ("GRR", "OUE", "OLH")
OPTIONS = (2, 4, 7, 10)
EPSILONS = (0.5, 1.0, 2.0, 4.0)
CLASS_SIZES = (1, 2, 5, 15, 30, 60)
COMPOSITIONS = ("one option", "four in five", "even")
LEVEL = 0.95


def composition(kind: str, n: int, d: int) -> np.ndarray:
    """The class's true counts per option: a whole number of students each."""
    counts = np.zeros(d, dtype=np.int64)
    if kind == "one option":
        counts[0] = n
    elif kind == "four in five":
        counts[0] = round(0.8 * n)
        counts[1] = n - counts[0]
    else:
        counts += n // d
        counts[: n % d] += 1
    return counts


@dataclass(frozen=True)
class Cell:
    """Coverage in one cell: the worst option's, and all options' at once."""

    protocol: str
    options: int
    epsilon: float
    n: int
    composition: str
    classes: int
    worst_option: float  # the lowest per-option coverage
    all_at_once: float  # every option covered in the same class
    score_worst: float  # the score interval's lowest per-option coverage (before)
    reported_holds_zero: bool  # n = 1: the reported option's interval includes 0


def cell(
    protocol_name: str, d: int, epsilon: float, n: int, kind: str, *, classes: int, seed: int
) -> Cell:
    """Draw ``classes`` classes and measure the intervals' coverage."""
    protocol = get_protocol(protocol_name, epsilon=epsilon, domain_size=d)
    truth_counts = composition(kind, n, d)
    truth = truth_counts / n
    rng = np.random.default_rng([seed, d, round(epsilon * 10), n, COMPOSITIONS.index(kind)])
    held, held_score = [], []
    holds_zero = True
    for _ in range(classes):
        counts = protocol.sample_support_counts(truth_counts, rng)
        estimate = protocol.estimate(counts, n)
        low, high = frequency_intervals(
            estimate, protocol=protocol, n=n, level=LEVEL, simultaneous=True
        )
        held.append((low <= truth + 1e-12) & (truth <= high + 1e-12))
        s_low, s_high = _score_intervals(estimate, protocol=protocol, n=n, level=LEVEL)
        held_score.append((s_low <= truth + 1e-12) & (truth <= s_high + 1e-12))
        if n == 1:
            # The options this one report supports (GRR: its value; OUE: its set bits;
            # OLH: the values hashing to its bucket): none may exclude a share of 0.
            holds_zero &= bool(np.all(low[counts > 0] == 0.0))
    covered = np.array(held)
    return Cell(
        protocol_name,
        d,
        epsilon,
        n,
        kind,
        classes,
        float(covered.mean(axis=0).min()),
        float(covered.all(axis=1).mean()),
        float(np.array(held_score).mean(axis=0).min()),
        holds_zero,
    )


def grid(classes: int, seed: int = 36) -> Iterator[Cell]:
    """Every cell of the issue's grid."""
    for name, d, epsilon, n, kind in itertools.product(
        PROTOCOLS, OPTIONS, EPSILONS, CLASS_SIZES, COMPOSITIONS
    ):
        yield cell(name, d, epsilon, n, kind, classes=classes, seed=seed)


def bayes_cells(classes: int) -> list[tuple[str, float, float, float]]:
    """Jeffreys' and the uniform prior's credible intervals alone, and widened as
    Bayes now widens them at class sizes, for the most popular option of the issue's class.
    """
    from ldpcore.postprocess import Bayes
    from ldpcore.postprocess.prior import JEFFREYS, UNIFORM

    rows = []
    for name, epsilon, n in (("GRR", 1.0, 5), ("GRR", 1.0, 15), ("OUE", 2.0, 30), ("OLH", 1.0, 60)):
        protocol = get_protocol(name, epsilon=epsilon, domain_size=7)
        truth_counts = composition("four in five", n, 7)
        truth = truth_counts / n
        rng = np.random.default_rng(7)
        alone, uniform, widened = [], [], []
        for _ in range(classes):
            estimate = protocol.estimate(protocol.sample_support_counts(truth_counts, rng), n)
            posterior = Bayes(prior=JEFFREYS).posterior(estimate, protocol=protocol, n=n)
            low, high = posterior.interval(LEVEL)
            alone.append(low[0] <= truth[0] <= high[0])
            flat = Bayes(prior=UNIFORM).posterior(estimate, protocol=protocol, n=n)
            u_low, u_high = flat.interval(LEVEL)
            uniform.append(u_low[0] <= truth[0] <= u_high[0])  # converged or not: as shown
            found = Bayes().with_intervals(estimate, protocol=protocol, n=n, level=LEVEL)
            widened.append(found.low[0] <= truth[0] <= found.high[0])
        rows.append(
            (
                f"{name}, ε = {epsilon:g}, n = {n}",
                float(np.mean(alone)),
                float(np.mean(uniform)),
                float(np.mean(widened)),
            )
        )
    return rows
