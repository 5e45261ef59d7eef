"""How the claims say numbers, and where they read them from.

Shared by every module of :mod:`devtools.claims`: a benchmark's stored results, and the
words for a setting, a span of ratios or a share, so every sentence says them alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"

Setting = dict[str, Any]


@cache
def results(name: str) -> dict[str, Any]:
    """A benchmark's stored results (``benchmarks/results/NAME.json``)."""
    return dict(json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8")))


def count_words(n: int) -> str:
    exponent = len(str(n)) - 1
    return (
        f"10{''.join('⁰¹²³⁴⁵⁶⁷⁸⁹'[int(c)] for c in str(exponent))}"
        if n == 10**exponent
        else f"{n:,}"
    )


def setting_words(setting: Setting) -> str:
    """``d = 1,024, ε = 1, n = 10⁶``."""
    return f"d = {setting['d']:,}, ε = {setting['epsilon']:g}, n = {count_words(setting['n'])}"


def length_range(values: Iterable[float]) -> str:
    """Range lengths as whole numbers: ``4 to 64``."""
    ordered = sorted({int(v) for v in values})
    return f"{ordered[0]:,}" if len(ordered) == 1 else f"{ordered[0]:,} to {ordered[-1]:,}"


def number(value: float, digits: int = 2) -> str:
    """A ratio or share as people write it: 0.0021, 0.96, 3.1, 190, 4,300."""
    text = f"{value:.{digits}g}"
    # Rounding up to the next power of ten (99.96 to two figures) is written out.
    return f"{value:,.0f}" if abs(value) >= 10**digits or "e+" in text else text


def span(values: Sequence[float], digits: int = 2) -> str:
    low, high = number(min(values), digits), number(max(values), digits)
    return low if low == high else f"{low}–{high}"


def percent(values: Sequence[float]) -> str:
    return span([100 * v for v in values]) + "%"


def shared_setting(settings: Sequence[Setting]) -> str:
    """What the settings share, in words ("all at ε = 2"), or how many they are."""
    words = {
        "d": lambda v: f"d = {v:,}",
        "epsilon": lambda v: f"ε = {v:g}",
        "n": lambda v: f"n = {count_words(v)}",
    }
    shared = [
        say(settings[0][key]) for key, say in words.items() if len({s[key] for s in settings}) == 1
    ]
    if not shared:
        return ""
    return ", all at " + " and ".join(shared)


def stamp(name: str) -> str:
    record = results(name)
    return f"{record['trials']} trials each, `{record['command']}`, {record['date']}"


def signed(value: float, spec: str = "+.4f") -> str:
    """A number with its sign, the minus typeset as such: ``+0.0122``, ``−0.0314``."""
    text = f"{value:{spec}}"
    return "−" + text[1:] if text.startswith("-") else text


def fixed_span(values: Sequence[float], decimals: int = 2) -> str:
    """A span of ratios to fixed decimals, where two digits would round them alike:
    ``0.99–1.00``."""
    low, high = f"{min(values):.{decimals}f}", f"{max(values):.{decimals}f}"
    return low if low == high else f"{low}–{high}"


def change_words(percentages: Sequence[float], what: str = "it") -> str:
    """Percent changes of one sign as a direction and a span: ``lowers it 46–50%``."""
    if all(p < 0 for p in percentages):
        return f"lowers {what} {span([-p for p in percentages])}%"
    if all(p > 0 for p in percentages):
        return f"raises {what} {span(percentages)}%"
    low, high = signed(min(percentages), "+.0f"), signed(max(percentages), "+.0f")
    return f"changes {what} by {low}% to {high}%"
