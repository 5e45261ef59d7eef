"""Do the Class page's intervals hold the class's true shares at class sizes? (issue 36)

Run: ``.venv/bin/python benchmarks/bench_class_intervals.py [--classes 200]``.
Prints Markdown tables for benchmarks/README.md, "Intervals for a class".

For every cell of the grid (GRR, OUE, OLH × 2, 4, 7, 10 options × ε 0.5, 1, 2, 4 ×
n = 1, 2, 5, 15, 30, 60) and three classes of ``n`` students (all on one option; four
in five on one option and the rest on another; as even as ``n`` allows), it draws
seeded classes with the exact sampler, computes the intervals the Class page shows
(:func:`ldpcore.postprocess.intervals.frequency_intervals`, 95%, simultaneous over the
options) and counts how often they hold each option's true share ``k / n``, and all
options' at once. Every method's interval holds this one (it is widened to hold the
method's estimate; tests/test_class_intervals.py checks that for every method), so
its coverage is a floor for all of them. For contrast it also measures the score
interval the page showed before (per option), and Bayes's credible interval under
Jeffreys' prior on a few cells (``--bayes``).
"""

from __future__ import annotations

import argparse
import itertools
import time
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
    from ldpcore.postprocess.bayes import JEFFREYS, UNIFORM

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, default=200)
    parser.add_argument("--bayes", type=int, default=60, help="classes per Bayes cell (0: none)")
    args = parser.parse_args()
    start = time.perf_counter()
    cells = list(grid(args.classes)) if args.classes else []
    if cells:
        grid_table(cells, args.classes, time.perf_counter() - start)
    if args.bayes:
        print(
            f"\n### Bayes, the most popular option (4 in 5 of the class), 7 options, "
            f"{args.bayes} classes\n"
        )
        print("| cell | Jeffreys' credible interval | uniform prior's | as Bayes shows it now |")
        print("|---|---:|---:|---:|")
        for label, alone, uniform, widened in bayes_cells(args.bayes):
            print(f"| {label} | {alone:.0%} | {uniform:.0%} | {widened:.0%} |")


def grid_table(cells: list[Cell], classes: int, seconds: float) -> None:
    """The grid's Markdown table: the worst cell of each protocol and class size."""
    print(f"\n### Coverage at class sizes ({classes} classes per cell, {seconds:.0f} s)\n")
    print("Lowest coverage over the cells of each row (options × ε × the three classes):\n")
    print(
        "| protocol | n | per option, worst | all options at once, worst | before: score, worst |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, n in itertools.product(PROTOCOLS, CLASS_SIZES):
        mine = [c for c in cells if c.protocol == name and c.n == n]
        print(
            f"| {name} | {n} | {min(c.worst_option for c in mine):.1%} | "
            f"{min(c.all_at_once for c in mine):.1%} | {min(c.score_worst for c in mine):.1%} |"
        )
    ones = [c for c in cells if c.n == 1]
    print(
        f"\nn = 1: the reported option's interval includes 0 in "
        f"{sum(c.reported_holds_zero for c in ones)} of {len(ones)} cells."
    )


if __name__ == "__main__":
    main()
