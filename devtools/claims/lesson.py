"""The Class page measured: what a class sees at each ε, and the larger-class panel.

Made from ``benchmarks/results/lesson_outlook.json`` (``bench_lesson_outlook.py``: seeded
classes per preset question, protocol and ε of the Class form), read at the form's own
defaults (``ldpcore.live``), so a changed default changes the sentence; and from
``benchmarks/results/larger_class.json`` (``bench_larger_class.py``: the panel at 1,000
students, and the study of the panel it replaced).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from devtools.claims.words import results
from ldpcore.live.outlook import LESSON_EPSILON
from ldpcore.live.reports import LESSON_PRESET, PRESETS, live_protocols

Row = dict[str, Any]


def _seen(options: int, protocol: str, epsilon: float) -> Row:
    row = next(
        r for r in results("lesson_outlook")["rows"]
        if r["options"] == options and r["protocol"] == protocol
    )  # fmt: skip
    return next(s for s in row["seen"] if s["epsilon"] == epsilon)


def _shares(seen: Row) -> str:
    return f"{100 * seen['noise']:.0f}% / {100 * seen['fix']:.0f}%"


def outlook_table() -> str:
    """Every preset question, protocol and ε: noise / fix, in percent of classes."""
    rows = results("lesson_outlook")["rows"]
    epsilons = [s["epsilon"] for s in rows[0]["seen"]]
    lines = [
        "| question (options) | protocol | " + " | ".join(f"ε = {e:g}" for e in epsilons) + " |",
        "|---|---|" + "---:|" * len(epsilons),
    ]
    for r in rows:
        cells = " | ".join(_shares(s) for s in r["seen"])
        lines.append(f"| {r['question']} ({r['options']}) | {r['protocol']} | {cells} |")
    return "\n\n" + "\n".join(lines) + "\n\n"


def outlook_default() -> str:
    """The Class form's opening lesson: how often a class sees the noise and the fix."""
    record = results("lesson_outlook")
    protocol, options = live_protocols()[0], len(PRESETS[LESSON_PRESET])
    seen = _seen(options, protocol, LESSON_EPSILON)
    return (
        f'the form opens at "{LESSON_PRESET}" ({options} options) in {protocol} at '
        f"ε = {LESSON_EPSILON:g}, where {100 * seen['noise']:.0f}% of classes of "
        f"{record['size']} see Base leave 0–100% and {100 * seen['fix']:.0f}% see Norm-Sub "
        f"move an estimate by 5 points or more (d = {options}, n = {record['size']}, "
        f"{record['classes']:,} seeded classes; `{record['command']}`, {record['date']})"
    )


def outlook_old_default() -> str:
    """The form's earlier opening (seven options at ε = 6), for comparison."""
    record = results("lesson_outlook")
    seen = _seen(7, "GRR", 6.0)
    return (
        f"{100 * seen['noise']:.1f}% / {100 * seen['fix']:.1f}% of classes, a lesson with "
        f"nothing to see (GRR, d = 7, ε = 6, n = {record['size']}, {record['classes']:,} "
        f"classes)"
    )


def larger_table() -> str:
    """Per protocol and ε: the half-width at 1,000 and how often a leader is named."""
    record = results("larger_class")
    leads = " / ".join(f"{100 * lead:.0f}" for lead in record["leads"])
    lines = [
        f"| protocol | ε | ±half-width at {record['larger']:,} | named (lead {leads} points) "
        "| wrong |",
        "| --- | ---: | ---: | --- | ---: |",
    ]
    for r in record["panel"]:
        named = " / ".join(f"{100 * share:.0f}%" for share in r["named_right"])
        lines.append(
            f"| {r['protocol']} | {r['epsilon']:g} | {100 * r['half_width']:.1f} pp | {named} | "
            f"{100 * r['named_wrong']:.0f}% |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def larger_study() -> str:
    """The panel it replaced: how often it named a leader from a room's noise, and rightly."""
    record = results("larger_class")

    def share(k: int, total: int, bounds: list[float]) -> str:
        low, high = 100 * bounds[0], 100 * bounds[1]
        return f"{100 * k / max(1, total):.0f}% ({k}; 95% Wilson {low:.0f}–{high:.0f}%)"

    named = "; ".join(
        f"{r['protocol']} {share(r['old_named'], r['undecided'], r['old_named_interval'])}"
        for r in record["study"]
    )
    right = "; ".join(
        f"{r['protocol']} {share(r['old_right'], r['old_named'], r['old_right_interval'])}"
        for r in record["study"]
    )
    return (
        f"in {record['rooms']} rooms of {record['size']} students at ε = 1 (d = "
        f"{record['options']} options, a true leader {100 * record['lead']:.0f} points ahead, "
        f"n = {record['size']}; rooms whose own reports name no leader), that simulation "
        f"named a leader in {named} of the rooms, and that leader was the true one in "
        f"{right} of them (`{record['command']}`, {record['date']})"
    )


#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "lesson.table": outlook_table,
    "lesson.default": outlook_default,
    "lesson.old-default": outlook_old_default,
    "larger-class.table": larger_table,
    "larger-class.study": larger_study,
}
