"""The comparisons the docs state, made from the benchmarks' stored results.

A sentence in the docs that says how a method or mechanism compares ("consistency lowers
the raw tree's error 1.3–4×") is not typed: it sits between two markers,
``<!-- claim: NAME -->`` and ``<!-- /claim -->``, and :data:`CLAIMS` makes its text from
the results a benchmark stored (``benchmarks/results/*.json``), with the setting it was
measured at and, over the benchmark's grid of settings, where it holds and where it
flips. ``tests/house/test_claims.py`` makes every claim again and fails when a sentence
no longer matches its results; ``python -m devtools.claims --write`` writes them after a
benchmark is run again.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
#: The files whose claims are made here (a claim marker anywhere else is not read).
DOCUMENTS = (
    ROOT / "README.md",
    ROOT / "benchmarks" / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
)
#: The setting each range comparison leads with (the benchmarks' headline one).
HEADLINE = {"d": 1024, "epsilon": 1.0, "n": 1_000_000, "data": "cauchy"}
_MARKER = re.compile(r"<!-- claim: ([\w.-]+) -->(.*?)<!-- /claim -->", re.S)

Setting = dict[str, Any]


@cache
def results(name: str) -> dict[str, Any]:
    """A benchmark's stored results (``benchmarks/results/NAME.json``)."""
    return dict(json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8")))


def _n(n: int) -> str:
    exponent = len(str(n)) - 1
    return (
        f"10{''.join('⁰¹²³⁴⁵⁶⁷⁸⁹'[int(c)] for c in str(exponent))}"
        if n == 10**exponent
        else f"{n:,}"
    )


def setting_words(setting: Setting) -> str:
    """``d = 1,024, ε = 1, n = 10⁶``."""
    return f"d = {setting['d']:,}, ε = {setting['epsilon']:g}, n = {_n(setting['n'])}"


def _ratios(setting: Setting, entry: str, reference: str) -> list[dict[str, float]]:
    return [r for r in setting["ratios"] if r["entry"] == entry and r["reference"] == reference]


def _upto_half(setting: Setting, rows: Iterable[dict[str, float]]) -> list[dict[str, float]]:
    """The ratios on ranges of 1 to d/2 values (the longest, d − 1, is nearly the root)."""
    return [r for r in rows if r["length"] <= setting["d"] // 2]


def _lengths(values: Iterable[float]) -> str:
    """Range lengths as whole numbers: ``4 to 64``."""
    ordered = sorted({int(v) for v in values})
    return f"{ordered[0]:,}" if len(ordered) == 1 else f"{ordered[0]:,} to {ordered[-1]:,}"


def _number(value: float, digits: int = 2) -> str:
    """A ratio or share as people write it: 0.0021, 0.96, 3.1, 190, 4,300."""
    if abs(value) >= 10**digits:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def _span(values: Sequence[float], digits: int = 2) -> str:
    low, high = _number(min(values), digits), _number(max(values), digits)
    return low if low == high else f"{low}–{high}"


def _percent(values: Sequence[float]) -> str:
    return _span([100 * v for v in values]) + "%"


def _headline(name: str) -> Setting:
    return next(s for s in results(name)["settings"] if all(s[k] == v for k, v in HEADLINE.items()))


def _grid(name: str, data: str = "cauchy") -> list[Setting]:
    return [s for s in results(name)["settings"] if s["data"] == data]


def _where(settings: Sequence[Setting]) -> str:
    """What the settings share, in words ("all at ε = 2"), or how many they are."""
    words = {
        "d": lambda v: f"d = {v:,}",
        "epsilon": lambda v: f"ε = {v:g}",
        "n": lambda v: f"n = {_n(v)}",
    }
    shared = [
        say(settings[0][key]) for key, say in words.items() if len({s[key] for s in settings}) == 1
    ]
    if not shared:
        return ""
    return ", all at " + " and ".join(shared)


def _grid_words(name: str) -> str:
    record = results(name)
    ds = sorted({s["d"] for s in record["settings"]})
    eps = sorted({s["epsilon"] for s in record["settings"]})
    ns = sorted({s["n"] for s in record["settings"]})
    sizes = " and ".join(f"{d:,}" for d in ds)
    return f"d = {sizes}, ε = {eps[0]:g} to {eps[-1]:g}, n = {' and '.join(_n(n) for n in ns)}"


def _stamp(name: str) -> str:
    record = results(name)
    return f"{record['trials']} trials each, `{record['command']}`, {record['date']}"


# --- the range comparisons (benchmarks/results/ranges.json) ----------------------------


def consistency_gain() -> str:
    """How much the consistency step lowers the raw tree's range error."""
    head = _headline("ranges")
    gains = [
        1 / r["ratio"]
        for r in _upto_half(head, _ratios(head, "TreeOUE · Consistency", "TreeOUE · Base"))
    ]
    every = [
        r
        for s in results("ranges")["settings"]
        for r in _upto_half(s, _ratios(s, "TreeOUE · Consistency", "TreeOUE · Base"))
    ]
    unclear = sum(r["high"] >= 1 for r in every)
    return (
        f"Consistency lowers the raw tree's error {_span(gains)}× on ranges of 1 to "
        f"{head['d'] // 2} values at {setting_words(head)} (Cauchy-shaped data), the raw "
        f"tree read off the fewest nodes as Kulkarni et al. read it; over the grid "
        f"({_grid_words('ranges')}, both datasets) {_span([1 / r['ratio'] for r in every])}×, "
        + (
            "significantly in every comparison"
            if not unclear
            else f"not significantly in {unclear} of {len(every)} comparisons"
        )
        + f" ({_stamp('ranges')})."
    )


def tree_against_flat() -> str:
    """From which range length the consistent tree beats flat OUE."""

    head = _headline("ranges")
    single = [
        r["ratio"]
        for s in results("ranges")["settings"]
        for r in _ratios(s, "TreeOUE · Consistency", "OUE · Base")
        if r["length"] == 1
    ]
    lengths = [_crossover(s) for s in results("ranges")["settings"]]
    found = [length for length in lengths if length is not None]
    never = len(lengths) - len(found)
    return (
        f"The consistent TreeOUE beats flat OUE (paired 95% interval below 1) from ranges of "
        f"{_crossover(head)} values on at {setting_words(head)}; over the grid from "
        f"{_lengths(found)} values on"
        + (f" (in {never} settings at no length up to d/2)" if never else "")
        + f", and flat OUE is better on single values in every setting ({_span(single)}×)."
    )


def ems_on_smooth_data() -> str:
    """Where SW with EMS stands against flat OUE on smooth data, and where it flips."""
    head = _headline("ranges")
    shares = [r["ratio"] for r in _upto_half(head, _ratios(head, "SW · EMS", "OUE · Base"))]
    every = [
        (s, r) for s in _grid("ranges") for r in _upto_half(s, _ratios(s, "SW · EMS", "OUE · Base"))
    ]
    below = [r["ratio"] for _s, r in every if r["high"] < 1]
    above = [(s, r) for s, r in every if r["low"] > 1]
    words = (
        f"On the smooth (Cauchy-shaped) data, SW with EMS has {_percent(shares)} of flat "
        f"OUE's error on ranges of 1 to {head['d'] // 2} values at {setting_words(head)}; "
        f"over the grid ({_grid_words('ranges')}) it is below flat OUE's in {len(below)} of "
        f"{len(every)} comparisons ({_percent(below)})"
    )
    if above:
        words += (
            f" and above it in {len(above)} ({_span([r['ratio'] for _s, r in above])}×, on "
            f"ranges of {_lengths(r['length'] for _s, r in above)} values"
            f"{_where([s for s, _r in above])})"
        )
    return words + "."


def em_against_ems() -> str:
    """Where plain EM beats EMS, which is the best of the Square Wave's answers elsewhere."""
    parts = []
    for data, label in (("cauchy", "smooth data"), ("zipf", "Zipf data")):
        settings = _grid("ranges", data)
        better = [
            (s, r)
            for s in settings
            for r in _upto_half(s, _ratios(s, "SW · EM", "SW · EMS"))
            if r["high"] < 1
        ]
        worse = [
            (s, r)
            for s in settings
            for r in _upto_half(s, _ratios(s, "SW · EM", "SW · EMS"))
            if r["low"] > 1
        ]
        total = sum(len(_upto_half(s, _ratios(s, "SW · EM", "SW · EMS"))) for s in settings)
        if not better:
            parts.append(
                f"on {label} EMS is better than plain EM or level with it at every length "
                f"in every setting (EM significantly worse in {len(worse)} of {total})"
            )
            continue
        where = sorted({setting_words(s) for s, _ in better})
        lengths = sorted({int(r["length"]) for _, r in better})
        parts.append(
            f"on {label} plain EM is significantly better than EMS in {len(better)} of "
            f"{total} comparisons ({_span([r['ratio'] for _, r in better])}× EMS's error; "
            f"ranges of {_lengths(lengths)} values; in {len(where)} of {len(settings)} settings"
            f"{_where([s for s, _ in better])}), and EMS better in {len(worse)}"
        )
    return (
        f"Of the Square Wave's answers over the grid ({_grid_words('ranges')}), "
        + "; ".join(parts)
        + "."
    )


def haar_against_tree() -> str:
    """HaarHRR's Base against the consistent hierarchy, and where that flips."""
    head = _headline("ranges")
    rows = _upto_half(head, _ratios(head, "HaarHRR · Base", "TreeOUE · Consistency"))
    level = all(r["low"] <= 1 <= r["high"] for r in rows[1:])
    words = [
        f"HaarHRR's error on ranges is {_span([r['ratio'] for r in rows])}× the consistent "
        f"TreeOUE's at {setting_words(head)}"
        + (" (level from 4 values on: every paired interval holds 1)" if level else "")
    ]
    every = [
        (s, r)
        for s in results("ranges")["settings"]
        for r in _upto_half(s, _ratios(s, "HaarHRR · Base", "TreeOUE · Consistency"))
    ]
    worse = [(s, r) for s, r in every if r["low"] > 1]
    better = [(s, r) for s, r in every if r["high"] < 1]
    sides = [
        f"{side} in {len(found)} of {len(every)} comparisons "
        f"({_span([r['ratio'] for _s, r in found], 3)}×{_where([s for s, _r in found])})"
        for found, side in ((worse, "worse"), (better, "better"))
        if found
    ]
    if sides:
        words.append("over the grid significantly " + ", and ".join(sides))
    return "; ".join(words) + "."


def _crossover(setting: Setting) -> int | None:
    """The shortest length from which the consistent tree beats flat OUE at every longer
    length up to d/2 (paired 95% intervals below 1); None if there is none."""
    rows = _upto_half(setting, _ratios(setting, "TreeOUE · Consistency", "OUE · Base"))
    for at, row in enumerate(rows):
        if all(r["high"] < 1 for r in rows[at:]):
            return int(row["length"])
    return None


def grid_table() -> str:
    """One row per setting of the grid: where each comparison stands, ranges of 1 to d/2."""

    def span(setting: Setting, entry: str, reference: str, invert: bool = False) -> str:
        rows = _upto_half(setting, _ratios(setting, entry, reference))
        values = [1 / r["ratio"] if invert else r["ratio"] for r in rows]
        return _span(values) + "×"

    lines = [
        "| d | ε | n | data | consistent tree beats flat OUE from | consistency's gain on "
        "the raw tree | SW EMS ÷ flat OUE | SW EM ÷ SW EMS | HaarHRR ÷ consistent tree |",
        "|---:|---:|---:|---|---:|---|---|---|---|",
    ]
    for s in results("ranges")["settings"]:
        crossing = _crossover(s)
        lines.append(
            f"| {s['d']:,} | {s['epsilon']:g} | {_n(s['n'])} | {s['data']} | "
            f"{'none' if crossing is None else f'{crossing} values'} | "
            f"{span(s, 'TreeOUE · Consistency', 'TreeOUE · Base', invert=True)} | "
            f"{span(s, 'SW · EMS', 'OUE · Base')} | {span(s, 'SW · EM', 'SW · EMS')} | "
            f"{span(s, 'HaarHRR · Base', 'TreeOUE · Consistency')} |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


#: Claim name → the function that makes its sentence.
CLAIMS: dict[str, Callable[[], str]] = {
    "ranges.consistency-gain": consistency_gain,
    "ranges.tree-against-flat": tree_against_flat,
    "ranges.ems-on-smooth-data": ems_on_smooth_data,
    "ranges.em-against-ems": em_against_ems,
    "ranges.haar-against-tree": haar_against_tree,
    "ranges.grid-table": grid_table,
}


def stated() -> list[tuple[Path, str, str]]:
    """Every claim the docs carry: (file, name, its text as written, whitespace made single)."""
    found = []
    for path in DOCUMENTS:
        for name, text in _MARKER.findall(path.read_text(encoding="utf-8")):
            found.append((path, name, " ".join(text.split())))
    return found


def write() -> int:
    """Write every claim's sentence between its markers; returns how many changed."""
    changed = 0
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")

        def made(match: re.Match[str]) -> str:
            return f"<!-- claim: {match.group(1)} -->{CLAIMS[match.group(1)]()}<!-- /claim -->"

        new = _MARKER.sub(made, text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def main(argv: list[str] | None = None) -> int:
    """Print every claim (``--write``: write them into the docs)."""
    args = sys.argv[1:] if argv is None else argv
    if "--write" in args:
        print(f"{write()} files written")
        return 0
    for name, make in CLAIMS.items():
        print(f"{name}: {make()}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
