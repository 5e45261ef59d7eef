"""The papers' claims as reproduced: each recipe's verdicts at full size.

Made from ``benchmarks/results/reproduce.json`` (``bench_reproduce.py``: every recipe of
:mod:`ldpcore.reproduce` at the papers' trial counts). A claim that does not hold or
cannot be told is shown with what was measured and, for the latter, about how many
trials would settle it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from devtools.claims.words import results

Row = dict[str, Any]
STATUSES = ("holds", "does not hold", "cannot tell")


def _claims() -> list[Row]:
    return [c for r in results("reproduce")["recipes"] for c in r["claims"]]


def _cell(claims: list[Row], status: str) -> str:
    found = [c for c in claims if c["status"] == status]
    if not found:
        return "–"
    words = []
    for claim in found:
        text = claim["measured"].replace("|", "\\|").replace("\n", " ")
        if status == "cannot tell" and claim["trials_to_settle"]:
            text += f" (≈ {claim['trials_to_settle']:,} trials would settle it)"
        words.append(text)
    return "; ".join(words)


def reproduce_table() -> str:
    """A row per recipe: how many claims hold, and what was measured where one does not."""
    record = results("reproduce")
    lines = [
        "| recipe | holds | does not hold | cannot tell | seconds |",
        "| --- | ---: | --- | --- | ---: |",
    ]
    for recipe in record["recipes"]:
        claims = recipe["claims"]
        held = sum(c["status"] == "holds" for c in claims)
        lines.append(
            f"| {recipe['recipe']} | {held} of {len(claims)} | "
            f"{_cell(claims, 'does not hold')} | {_cell(claims, 'cannot tell')} | "
            f"{recipe['seconds']:.1f} |"
        )
    counts = {s: sum(c["status"] == s for c in _claims()) for s in STATUSES}
    lines.append(
        f"| **total** | **{counts['holds']} of {len(_claims())}** | {counts['does not hold']} "
        f"| {counts['cannot tell']} | {sum(r['seconds'] for r in record['recipes']):.0f} |"
    )
    return "\n\n" + "\n".join(lines) + "\n\n"


def reproduce_total() -> str:
    """How many of the papers' claims hold at full size, with the run that says so."""
    record = results("reproduce")
    counts = {s: sum(c["status"] == s for c in _claims()) for s in STATUSES}
    return (
        f"At {record['mode']} size {counts['holds']} of {len(_claims())} claims of "
        f"{len(record['recipes'])} recipes hold, {counts['does not hold']} do not and "
        f"{counts['cannot tell']} cannot be told, each recipe at its paper's settings "
        f"(`{record['command']}`, {record['date']}, "
        f"{sum(r['seconds'] for r in record['recipes']) / 60:.1f} min on this 2-core machine)"
    )


#: The claims whose setting is not one d, ε and n: each recipe's is its paper's own.
SETTING_ELSEWHERE = {"reproduce.total": "each recipe at its paper's settings (its report.md)"}

#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "reproduce.table": reproduce_table,
    "reproduce.total": reproduce_total,
}
