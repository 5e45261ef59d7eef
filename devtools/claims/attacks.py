"""The comparisons under fake users on a tree's range: each method's gain against Base.

Made from ``benchmarks/results/range_attack.json`` (``bench_range_attack.py``). A change
is stated with its paired 95% interval's verdict: a percentage whose interval holds zero
is said to be no measurable change, never a number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from devtools.claims.words import change_words, count_words, fixed_span, results, signed, span

Row = dict[str, Any]


def _range_setting() -> str:
    s = results("range_attack")["setting"]
    return (
        f"d = {s['d']:,}, n = {count_words(s['n'])}, ε = {s['epsilon']:g}, "
        f"Zipf s = {s['data'].split('=')[1]}"
    )


def _change(methods: dict[str, Row], method: str) -> str:
    """``+19%``: the method's gain against Base's, or that no change is measurable."""
    row = methods[method]
    if row["low"] <= 0 <= row["high"]:
        return "no measurable change"
    return f"{signed(100 * row['vs_base'] / methods['Base']['gain'], '+.0f')}%"


def _rows(protocol: str, aim: str) -> list[Row]:
    return [
        r
        for r in results("range_attack")["by_beta"]
        if r["protocol"] == protocol and r["aim"] == aim
    ]


def _at_each_beta(rows: Iterable[Row], method: str) -> str:
    return ", ".join(f"{_change(r['methods'], method)} at β = {r['beta']:g}" for r in rows)


def _cell(m: Row, base: bool = False) -> str:
    if base:
        return f"{m['gain']:.4f}"
    return f"{m['gain']:.4f} ({signed(m['vs_base'])}, {signed(m['low'])} to {signed(m['high'])})"


def range_attack_how() -> str:
    """The β table's setting and command, from the run that made it."""
    record = results("range_attack")
    s, first = record["setting"], record["by_beta"][0]
    return (
        f"`{record['command']}` ({record['date']}): {_range_setting()} (B = {s['branching']}), "
        f"the maximal-gain attack on a range of {first['targets'][1] - first['targets'][0] + 1} "
        f"values drawn once ({first['targets'][0]}–{first['targets'][1]}), every method on "
        f"the same {record['trials']} trials"
    )


def range_attack_table() -> str:
    """Every protocol, aim and β: each method's gain and its paired change from Base's."""
    methods = ("Norm-Sub", "Consistency", "Cons-NS")
    lines = [
        "| protocol, aim | β | Base | "
        + " | ".join(f"{m} (− Base, 95%)" for m in methods)
        + " | each fake, in honest users (Base) |",
        "|---|---|---|" + "---|" * len(methods) + "---|",
    ]
    for r in results("range_attack")["by_beta"]:
        m = r["methods"]
        lines.append(
            f"| {r['protocol']}, {r['aim']} | {r['beta']:g} | {_cell(m['Base'], base=True)} | "
            + " | ".join(_cell(m[name]) for name in methods)
            + f" | {m['Base']['influence']:.1f} |"
        )
    seconds = [r["seconds_per_trial"] * 1000 for r in results("range_attack")["by_beta"]]
    return (
        "\n\n"
        + "\n".join(lines)
        + f"\n\nA trial, both collections and four methods, took {span(seconds)} ms.\n\n"
    )


def range_attack_by_place() -> str:
    """Norm-Sub against Base as the range moves."""
    record = results("range_attack")
    lines = [
        "| range | fake users per level | nodes the raw reading subtracts there | Base gain "
        "| Norm-Sub − Base (95%) |",
        "|---|---|---|---|---|",
    ]
    for r in record["by_place"]:
        ns = r["methods"]["Norm-Sub"]
        lines.append(
            f"| {r['start']}–{r['stop'] - 1} | {r['fakes_per_level']} | {r['subtracted']} | "
            f"{r['methods']['Base']['gain']:.4f} | "
            + f"{signed(ns['vs_base'])} ({signed(ns['low'])} to {signed(ns['high'])}) |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def range_attack_norm_sub() -> str:
    """What Norm-Sub does to the raw-aimed gain, TreeOUE then TreeOLH, at each β."""
    places = [
        100 * r["methods"]["Norm-Sub"]["vs_base"] / r["methods"]["Base"]["gain"]
        for r in results("range_attack")["by_place"]
    ]
    significant = all(
        not (r["methods"]["Norm-Sub"]["low"] <= 0 <= r["methods"]["Norm-Sub"]["high"])
        for r in results("range_attack")["by_place"]
    )
    return (
        f"On TreeOUE, aimed at the raw tree, Norm-Sub changes the gain by "
        f"{_at_each_beta(_rows('TreeOUE', 'raw'), 'Norm-Sub')}; on the five ranges of the "
        f"place table (β = 0.005) it {change_words(places)}"
        + (" (every paired interval excludes zero)" if significant else "")
        + f". On TreeOLH: {_at_each_beta(_rows('TreeOLH', 'raw'), 'Norm-Sub')} "
        f"({_range_setting()}, {results('range_attack')['trials']} trials)."
    )


def range_attack_consistency() -> str:
    """Consistency and Cons-NS against Base, by the aim; a fake user's worth."""
    raw = _rows("TreeOUE", "raw") + _rows("TreeOLH", "raw")
    consistent = _rows("TreeOUE", "consistent") + _rows("TreeOLH", "consistent")
    worth = [r["methods"]["Base"]["influence"] for r in raw]

    def shares(rows: list[Row], method: str) -> list[float]:
        return [100 * r["methods"][method]["vs_base"] / r["methods"]["Base"]["gain"] for r in rows]

    def by_protocol(method: str) -> str:
        return " and ".join(
            f"{change_words(shares(_rows(protocol, 'raw'), method), what)} on {protocol}"
            for protocol, what in (("TreeOUE", "the gain"), ("TreeOLH", "it"))
        )

    ratios = [
        r["methods"]["Consistency"]["gain"] / r["methods"]["Base"]["gain"] for r in consistent
    ]
    return (
        f"Aimed at the raw tree, a fake user is worth {span(worth)} honest users on Base; "
        f"the Consistency step {by_protocol('Consistency')}, and Cons-NS "
        f"{by_protocol('Cons-NS')}, at every β. Aimed at the consistent tree, Consistency's "
        f"gain is {fixed_span(ratios)}× Base's ({_range_setting()}, every β)"
    )


def range_attack_cap() -> str:
    """From which β the raw-aimed gain is large enough for a sum-to-one method to cap it."""
    rows = [r for r in results("range_attack")["by_beta"] if r["aim"] == "raw"]
    capped = sorted({r["beta"] for r in rows if r["methods"]["Base"]["gain"] > 0.5})
    first = capped[0] if capped else None
    gains = [r["methods"]["Base"]["gain"] for r in rows if r["beta"] == first]
    if first is None:
        return f"At no β measured does the raw-aimed gain pass 0.5 ({_range_setting()})"
    return (
        f"From β = {first:g} the raw-aimed Base gain passes 0.5 ({span(gains)} on TreeOUE "
        f"and TreeOLH at {_range_setting()})"
    )


def range_attack_olh_reports() -> str:
    """TreeOLH's real fake reports against the simulation's ideal hash."""
    rows = results("range_attack")["olh_real"]
    ratios = [r["real"] / r["ideal"] for r in rows]
    return (
        f"real and simulated reports move it alike, {fixed_span(ratios, 3)}× on all {len(rows)} "
        f"ranges ({results('range_attack')['trials']} draws of 500 fake users each, "
        f"{_range_setting()})"
    )


#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "range-attack.how": range_attack_how,
    "range-attack.table": range_attack_table,
    "range-attack.by-place": range_attack_by_place,
    "range-attack.norm-sub": range_attack_norm_sub,
    "range-attack.consistency": range_attack_consistency,
    "range-attack.cap": range_attack_cap,
    "range-attack.olh-reports": range_attack_olh_reports,
}
