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
Jeffreys' prior on a few cells (``--bayes``). A full run is stored in
``benchmarks/results/class_intervals.json``, from which the docs' tables and sentences
are made (``devtools/claims``).
"""

from __future__ import annotations

import argparse
import itertools
import time
from typing import Any

from benchmarks._common import store
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
    rows: list[dict[str, Any]] = []
    if cells:
        rows = grid_table(cells, args.classes, time.perf_counter() - start)
    bayes: list[dict[str, Any]] = []
    if args.bayes:
        print(
            f"\n### Bayes, the most popular option (4 in 5 of the class), 7 options, "
            f"{args.bayes} classes\n"
        )
        print("| cell | Jeffreys' credible interval | uniform prior's | as Bayes shows it now |")
        print("|---|---:|---:|---:|")
        for label, alone, uniform, widened in bayes_cells(args.bayes):
            print(f"| {label} | {alone:.0%} | {uniform:.0%} | {widened:.0%} |", flush=True)
            bayes.append({"cell": label, "jeffreys": alone, "uniform": uniform, "widened": widened})
    if rows and bayes:
        ones = [c for c in cells if c.n == 1]
        store(
            "class_intervals",
            {
                "classes": args.classes,
                "bayes_classes": args.bayes,
                "cells_per_row": len(cells) // len(rows),
                "rows": rows,
                "ones": {
                    "cells": len(ones),
                    "reported_holds_zero": sum(c.reported_holds_zero for c in ones),
                },
                "bayes": bayes,
            },
        )


def grid_table(cells: list[Cell], classes: int, seconds: float) -> list[dict[str, Any]]:
    """The grid's Markdown table: the worst cell of each protocol and class size."""
    print(f"\n### Coverage at class sizes ({classes} classes per cell, {seconds:.0f} s)\n")
    print("Lowest coverage over the cells of each row (options × ε × the three classes):\n")
    print(
        "| protocol | n | per option, worst | all options at once, worst | before: score, worst |"
    )
    print("|---|---:|---:|---:|---:|")
    rows = []
    for name, n in itertools.product(PROTOCOLS, CLASS_SIZES):
        mine = [c for c in cells if c.protocol == name and c.n == n]
        row = {
            "protocol": name,
            "n": n,
            "per_option": float(min(c.worst_option for c in mine)),
            "all_at_once": float(min(c.all_at_once for c in mine)),
            "score": float(min(c.score_worst for c in mine)),
        }
        rows.append(row)
        print(
            f"| {name} | {n} | {row['per_option']:.1%} | {row['all_at_once']:.1%} | "
            f"{row['score']:.1%} |"
        )
    ones = [c for c in cells if c.n == 1]
    print(
        f"\nn = 1: the reported option's interval includes 0 in "
        f"{sum(c.reported_holds_zero for c in ones)} of {len(ones)} cells."
    )
    return rows


if __name__ == "__main__":
    main()
