"""The intervals the tool shows, measured: how often each holds what it claims to.

Made from ``benchmarks/results/value_coverage.json`` (``bench_coverage.py --values``: the
intervals of :func:`ldpcore.postprocess.intervals.frequency_intervals` on Zipf 1.5, d = 64,
for the frequent (top 10%) and rare (bottom half) values),
``benchmarks/results/value_coverage_real.json`` (``bench_coverage.py --real-values``: the
same intervals on bundled real histograms, value by value),
``benchmarks/results/class_intervals.json`` (``bench_class_intervals.py``: the Class
page's exact intervals at class sizes, against the score interval it showed before, and
Bayes's credible interval), ``benchmarks/results/epsilon_intervals.json``
(``bench_epsilon_intervals.py``: Choose ε's interval for the smallest ε) and
``benchmarks/results/credible_coverage.json`` (``bench_coverage.py --credible``: Bayes's
credible intervals under Jeffreys' prior, and how far the prior pulled).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from devtools.claims.words import count_words, results, span
from ldpcore.postprocess.posterior import PRIOR_PULL_WARNING

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


# --- the Class page's intervals (class_intervals.json) ---------------------------------


def class_table() -> str:
    """The worst cell of each protocol and class size: exact per option, all at once, score."""
    lines = [
        "| protocol | n | per option, worst | all options at once, worst | before: score, worst |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results("class_intervals")["rows"]:
        lines.append(
            f"| {r['protocol']} | {r['n']} | {100 * r['per_option']:.1f}% | "
            f"{100 * r['all_at_once']:.1f}% | {100 * r['score']:.1f}% |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def class_finding() -> str:
    """The exact intervals' lowest cell against the score interval's."""
    record = results("class_intervals")
    rows = record["rows"]
    lowest = min(rows, key=lambda r: r["all_at_once"])
    score = min(rows, key=lambda r: r["score"])
    classes = record["classes"]
    se = math.sqrt(0.95 * 0.05 / classes)
    ones = record["ones"]
    return (
        f"the exact intervals' lowest cell, all options at once, is "
        f"{100 * lowest['all_at_once']:.1f}% ({lowest['protocol']}, n = {lowest['n']}; "
        f"{(0.95 - lowest['all_at_once']) / se:.1f} standard errors of one cell below 95%, "
        f"the lowest of {record['cells_per_row']} cells in its row), and the score interval "
        f"fell as low as {100 * score['score']:.1f}% ({score['protocol']}, n = {score['n']}). "
        f"At n = 1 the reported option's interval includes 0 in {ones['reported_holds_zero']} "
        f"of {ones['cells']} cells (d = 2 to 10, ε = 0.5 to 4, n = 1 to 60, {classes} "
        f"seeded classes a cell; `{record['command']}`, {record['date']})"
    )


def class_bayes_table() -> str:
    """Bayes's credible interval for the most popular option, by prior and widened."""
    record = results("class_intervals")
    lines = [
        "| cell | Jeffreys' credible interval | uniform prior's | as Bayes shows it now |",
        "|---|---:|---:|---:|",
    ]
    for r in record["bayes"]:
        lines.append(
            f"| {r['cell']} | {100 * r['jeffreys']:.0f}% | {100 * r['uniform']:.0f}% | "
            f"{100 * r['widened']:.0f}% |"
        )
    return f"\n\n{record['bayes_classes']} seeded classes a cell:\n\n" + "\n".join(lines) + "\n\n"


# --- Choose ε's interval for the smallest ε (epsilon_intervals.json) -------------------


def epsilon_table() -> str:
    """Per workload and recommended method: how often the stated interval held the truth."""
    lines = [
        "| workload | method | searches | coverage | 95% interval | median width (ε) |",
        "| --- | --- | ---: | ---: | --- | ---: |",
    ]
    record = results("epsilon_intervals")
    for r in record["rows"]:
        if r["exact"]:
            lines.append(
                f"| {r['workload']} | {r['method']} | {record['repeats']} | exact (Eq. 3): no "
                "interval | | 0 |"
            )
            continue
        width = "—" if r["median_width"] is None else f"{r['median_width']:.3g}"
        lines.append(
            f"| {r['workload']} | {r['method']} | {r['searches']} | "
            f"{100 * r['covered'] / r['searches']:.1f}% | {100 * r['low']:.1f}%–"
            f"{100 * r['high']:.1f}% | {width} |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def epsilon_finding() -> str:
    """Where the stated ε interval covers as it says, and where it falls short."""
    record = results("epsilon_intervals")
    rows = [r for r in record["rows"] if not r["exact"] and r["searches"] >= 20]
    short = [r for r in rows if r["high"] < 0.95]
    fine = [r for r in rows if r["high"] >= 0.95]
    words = (
        f"where the page states an interval on at least 20 searches it covers "
        f"{span([100 * r['covered'] / r['searches'] for r in fine], 3)}% of the time, the "
        f"95% Wilson interval of each holding 95%"
        if fine
        else "no stated interval's coverage holds 95% in its Wilson interval"
    )
    if short:
        words += "; it falls short for " + "; ".join(
            f"{r['method']} on {r['workload']}, recommended in {r['searches']} of "
            f"{record['repeats']} searches: {100 * r['covered'] / r['searches']:.0f}% "
            f"({100 * r['low']:.0f}–{100 * r['high']:.0f}%)"
            for r in short
        )
    return (
        words + f" (n = {count_words(record['users'])}, d = 248 to 1,573, ε ≈ each answer's; "
        f"`{record['command']}`, {record['date']})"
    )


# --- Bayes's credible intervals (credible_coverage.json) -------------------------------


def credible_table() -> str:
    """Each regime: frequent / rare values covered at 90% and 95%, and the prior's pull."""
    lines = [
        "| protocol | ε | n | 90% | 95% | prior pull (median) |",
        "|---|---:|---:|---|---|---:|",
    ]
    for r in results("credible_coverage")["rows"]:
        cells = " | ".join(
            f"{100 * pair[0]:.1f} / {100 * pair[1]:.1f}" for pair in r["covered"].values()
        )
        lines.append(
            f"| {r['protocol']} | {r['epsilon']:g} | {r['n']:,} | {cells} | {r['pull']:.2f} |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def credible_finding() -> str:
    """Coverage where the reports decide (pull at most the warning's threshold) and not."""
    record = results("credible_coverage")
    rows = record["rows"]
    decide = [r for r in rows if r["pull"] <= PRIOR_PULL_WARNING]
    pulled = [r for r in rows if r["pull"] > PRIOR_PULL_WARNING]

    def held(group: list[Row], level: str, which: int) -> str:
        return span([100 * r["covered"][level][which] for r in group], 2) + "%"

    words = (
        f"where the reports decide (median pull ≤ {PRIOR_PULL_WARNING:g}, {len(decide)} "
        f"regimes) the 95% intervals held the truth {held(decide, '0.95', 0)} of the time for "
        f"frequent values and {held(decide, '0.95', 1)} for rare ones; the 90% ones "
        f"{held(decide, '0.9', 0)} and {held(decide, '0.9', 1)}"
    )
    if pulled:
        words += (
            f". Where the prior pulls harder ({len(pulled)} regimes) the 95% intervals of "
            f"frequent values covered {held(pulled, '0.95', 0)}"
        )
    return words + (
        f" (Jeffreys' prior; Zipf s = {record['data'].split('=')[1]}, d = {record['d']}, "
        f"ε = 0.5 and 2, n = 10² to 10⁶, {record['runs']} collections a regime; "
        f"`{record['command']}`, {record['date']})"
    )


#: Claim name → the function that makes its text.
def real_value_table() -> str:
    """Every value's 95% interval on real histograms: groups, the worst value, zero widths.

    Methods whose intervals did alike on a row share it.
    """
    record = results("value_coverage_real")
    lines = [
        f"{record['collections']} collections a row; `{record['command']}`, {record['date']}.",
        "",
        "| setting | methods | frequent | rare | few users | worst value | values < 90% "
        "| zero-width |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    shown: dict[tuple[Any, ...], list[str]] = {}
    for r in record["rows"]:
        setting = f"{r['dataset']}, {r['protocol']}, ε = {r['epsilon']:g}, n = {r['n']:,}"
        cells = " | ".join(f"{100 * r['groups'][g]:.1f}" for g in ("frequent", "rare", "few"))
        tail = f"{100 * r['worst']:.1f} | {100 * r['below']:.1f} | {r['points']}"
        shown.setdefault((setting, cells, tail), []).append(r["method"])
    for (setting, cells, tail), methods in shown.items():
        lines.append(f"| {setting} | {', '.join(methods)} | {cells} | {tail} |")
    return "\n\n" + "\n".join(lines) + "\n\n"


CLAIMS: dict[str, Callable[[], str]] = {
    "value-coverage.table": value_table,
    "value-coverage.shortfall": value_shortfall,
    "value-coverage.real": real_value_table,
    "class-intervals.table": class_table,
    "class-intervals.finding": class_finding,
    "class-intervals.bayes": class_bayes_table,
    "epsilon-intervals.table": epsilon_table,
    "epsilon-intervals.finding": epsilon_finding,
    "credible-coverage.table": credible_table,
    "credible-coverage.finding": credible_finding,
}
