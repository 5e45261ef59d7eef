"""The Class page's larger-class panel: what it says, and why it no longer re-simulates
a small class's own estimate.

Part 1, the panel as it is: for each protocol and ε, the 95% half-width at 1,000 students
and how often a class of 1,000 names the true leader (and another option) at each lead,
from the settings alone (``ldpcore.live.outlook.larger_class_outlook``).

Part 2, the study behind it: many small classes (``--size`` students, a true leader
ahead by ``--lead``) where the room's own reports cannot name a leader (the panel's
condition). The old panel drew 1,000 students holding that room's Norm-Sub estimate
and read them as the page does; it named a leader in most such rooms, often the wrong
one, because the estimate it started from was mostly noise. The new panel names none.

    .venv/bin/python benchmarks/bench_larger_class.py [--rooms 400] [--size 24] [--lead 0.1]

Stored in ``benchmarks/results/larger_class.json``, from which the docs' table and
sentence are made (``devtools/claims``).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from _common import store

from ldpcore.data.datasets import round_to_total
from ldpcore.live.outlook import LARGER_CLASS, LEADS, larger_class_outlook, led_class
from ldpcore.live.reports import poll_protocol
from ldpcore.postprocess import get_method
from ldpcore.postprocess.intervals import frequency_intervals


def _named(oracle, base: np.ndarray, n: int) -> int | None:  # type: ignore[no-untyped-def]
    """The option the Class page names from a Base estimate (None: it names none)."""
    point = get_method("Norm-Sub")(base, protocol=oracle, n=n)
    low, high = frequency_intervals(base, protocol=oracle, n=n, point=point, simultaneous=True)
    top = int(np.argmax(point))
    others = np.arange(base.size) != top
    return top if np.all(high[others] < low[top]) else None


def _wilson_bounds(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of k successes in n."""
    if n == 0:
        return float("nan"), float("nan")
    z, p = 1.959964, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    spread = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(centre - spread), float(centre + spread)


def _wilson(k: int, n: int) -> str:
    """The 95% Wilson interval of k successes in n, in percent."""
    if n == 0:
        return "—"
    low, high = _wilson_bounds(k, n)
    return f"{100 * low:.0f}–{100 * high:.0f}%"


def part_one() -> list[dict[str, Any]]:
    print("| protocol | ε | ±half-width at 1,000 | named (lead 10 / 20 / 30 / 50 points) | wrong |")
    print("| --- | ---: | ---: | --- | ---: |")
    rows = []
    for protocol in ("GRR", "OUE", "OLH"):
        for epsilon in (1.0, 2.0):
            larger = larger_class_outlook(protocol, epsilon, 5)
            named = " / ".join(f"{share:.0%}" for share in larger.named_right)
            print(
                f"| {protocol} | {epsilon:g} | {larger.half_width * 100:.1f} pp | {named} "
                f"| {max(larger.named_wrong):.0%} |"
            )
            rows.append(
                {
                    "protocol": protocol,
                    "epsilon": epsilon,
                    "half_width": float(larger.half_width),
                    "named_right": [float(x) for x in larger.named_right],
                    "named_wrong": float(max(larger.named_wrong)),
                }
            )
    return rows


def part_two(rooms: int, size: int, lead: float, options: int = 5) -> list[dict[str, Any]]:
    print()
    print(
        f"| protocol, ε = 1 | rooms that name no leader (of {rooms}) | old panel named one "
        "| of which the true leader | new panel named one |"
    )
    print("| --- | ---: | ---: | ---: | ---: |")
    rng = np.random.default_rng(2026)
    rows = []
    for protocol in ("GRR", "OUE", "OLH"):
        oracle = poll_protocol(protocol, 1.0, options)
        truth = led_class(options, size, lead)
        undecided = old_named = old_right = 0
        for _ in range(rooms):
            base = oracle.estimate(oracle.sample_support_counts(truth, rng), size)
            if _named(oracle, base, size) is not None:
                continue  # the room names its own leader: the panel is not shown
            undecided += 1
            # The old panel: 1,000 students holding the room's Norm-Sub estimate.
            shares = get_method("Norm-Sub")(base, protocol=oracle, n=size)
            held = round_to_total(shares, LARGER_CLASS)
            big = oracle.estimate(oracle.sample_support_counts(held, rng), LARGER_CLASS)
            named = _named(oracle, big, LARGER_CLASS)
            if named is not None:
                old_named += 1
                old_right += named == 0
        print(
            f"| {protocol} | {undecided} | {old_named / max(1, undecided):.0%} "
            f"({old_named}, {_wilson(old_named, undecided)}) "
            f"| {old_right / max(1, old_named):.0%} ({old_right}, "
            f"{_wilson(old_right, old_named)}) | 0% |"
        )
        rows.append(
            {
                "protocol": protocol,
                "undecided": undecided,
                "old_named": old_named,
                "old_named_interval": _wilson_bounds(old_named, undecided),
                "old_right": old_right,
                "old_right_interval": _wilson_bounds(old_right, old_named),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rooms", type=int, default=400)
    parser.add_argument("--size", type=int, default=24)
    parser.add_argument("--lead", type=float, default=0.1)
    args = parser.parse_args()
    panel = part_one()
    study = part_two(args.rooms, args.size, args.lead)
    store(
        "larger_class",
        {
            "options": 5,
            "larger": 1000,
            "leads": list(LEADS),
            "panel": panel,
            "rooms": args.rooms,
            "size": args.size,
            "lead": args.lead,
            "study": study,
        },
    )


if __name__ == "__main__":
    main()
