"""The per-value intervals: how often each method's interval holds the true frequency.

Made from ``benchmarks/results/value_coverage.json`` (``bench_coverage.py --values``: the
intervals of :func:`ldpcore.postprocess.intervals.frequency_intervals` on Zipf 1.5, d = 64,
over seeded collections per regime, for the frequent (top 10%) and rare (bottom half)
values).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from devtools.claims.words import count_words, results, span

Row = dict[str, Any]
GROUPS = ("frequent", "rare")


def _sizes() -> tuple[int, int]:
    """Value-collections behind each cell: frequent (top 10%) and rare (bottom half)."""
    record = results("value_coverage")
    d = record["d"]
    return record["collections"] * max(1, d // 10), record["collections"] * (d - d // 2)


def _setting() -> str:
    record = results("value_coverage")
    rows = record["rows"]
    ns = sorted({r["n"] for r in rows})
    eps = sorted({r["epsilon"] for r in rows})
    return (
        f"Zipf s = {record['data'].split('=')[1]}, d = {record['d']}, ε = "
        f"{' and '.join(f'{e:g}' for e in eps)}, n = {count_words(ns[0])} to "
        f"{count_words(ns[-1])}, {record['collections']} collections a row; "
        f"`{record['command']}`, {record['date']}"
    )


def value_table() -> str:
    """Every regime and level: each method's coverage of frequent / rare values."""
    rows = results("value_coverage")["rows"]
    methods = list(rows[0]["covered"])
    lines = [
        "| protocol | ε | n | level | " + " | ".join(methods) + " |",
        "|---|---:|---:|---:|" + "---|" * len(methods),
    ]
    for r in rows:
        cells = " | ".join(
            f"{100 * r['covered'][m][0]:.1f} / {100 * r['covered'][m][1]:.1f}" for m in methods
        )
        lines.append(
            f"| {r['protocol']} | {r['epsilon']:g} | {r['n']:,} | {r['level']:g} | {cells} |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def value_shortfall() -> str:
    """The cell furthest below its level, in standard errors; and the over-coverage at the
    smallest n."""
    sizes = _sizes()
    worst: tuple[float, Row, str, int] | None = None
    for r in results("value_coverage")["rows"]:
        for method, pair in r["covered"].items():
            for group, rate in enumerate(pair):
                se = math.sqrt(r["level"] * (1 - r["level"]) / sizes[group])
                z = (rate - r["level"]) / se
                if worst is None or z < worst[0]:
                    worst = (z, r, method, group)
    assert worst is not None
    z, row, method, group = worst
    rows = results("value_coverage")["rows"]
    smallest = min(r["n"] for r in rows)
    highest = max(r["level"] for r in rows)
    over = [
        100 * rate
        for r in rows
        if r["n"] == smallest and r["level"] == highest
        for rate in (pair[1] for pair in r["covered"].values())
    ]
    return (
        f"the lowest cell is {100 * row['covered'][method][group]:.1f}% for a "
        f"{100 * row['level']:.0f}% interval ({method}, {row['protocol']}, ε = "
        f"{row['epsilon']:g}, n = {count_words(row['n'])}, {GROUPS[group]} values), "
        f"{abs(z):.1f} standard errors {'below' if z < 0 else 'above'} its level; at n = "
        f"{count_words(smallest)} rare values are covered {span(over, 3)}% at "
        f"{100 * highest:.0f}% "
        f"({_setting()})"
    )


#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "value-coverage.table": value_table,
    "value-coverage.shortfall": value_shortfall,
}
