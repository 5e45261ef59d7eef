"""Do the Class page's intervals hold the class's true shares at class sizes?

Run: ``.venv/bin/python -m benchmarks.bench_class_intervals [--classes 200]``.
Prints Markdown tables for benchmarks/README.md, "Intervals for a class".

For every cell of the grid (GRR, OUE, OLH × 2, 4, 7, 10 options × ε 0.5, 1, 2, 4 ×
n = 1, 2, 5, 15, 30, 60) and three classes of ``n`` students (all on one option; four
in five on one option and the rest on another; as even as ``n`` allows), it draws
seeded classes with the exact sampler, computes the intervals the Class page shows
(:func:`ldpcore.postprocess.intervals.frequency_intervals`, 95%, simultaneous over the
options) and counts how often they hold each option's true share ``k / n``, and all
options' at once. Every method's interval holds this one (it is widened to hold the
method's estimate; tests/live/test_class_intervals.py checks that for every method), so
its coverage is a floor for all of them. For contrast it also measures the score
interval the page showed before (per option), and Bayes's credible interval under
Jeffreys' prior on a few cells (``--bayes``).
"""

from __future__ import annotations

import argparse
import itertools
import time

from devtools.class_intervals import (
    CLASS_SIZES,
    PROTOCOLS,
    Cell,
    bayes_cells,
    grid,
)


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
