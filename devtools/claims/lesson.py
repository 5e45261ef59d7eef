"""What a class of 30 sees at each ε: the noise in Base and Norm-Sub's fix.

Made from ``benchmarks/results/lesson_outlook.json`` (``bench_lesson_outlook.py``: seeded
classes per preset question, protocol and ε of the Class form), and read at the form's
own defaults (``ldpcore.live``), so a changed default changes the sentence.
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


#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "lesson.table": outlook_table,
    "lesson.default": outlook_default,
    "lesson.old-default": outlook_old_default,
}
