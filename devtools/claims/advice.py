"""Choose ε's answers measured: the ε a method needs, and the consistent option's ε.

Made from ``benchmarks/results/choose_epsilon.json`` (``bench_choose_epsilon.py
--compare``: the ε a method needs against Base's, where post-processing helps) and
``benchmarks/results/option_epsilon.json`` (``bench_option_epsilon.py``: the option's ε,
pooled and answer by answer, against a reference from many trials) and
``benchmarks/results/target_coverage.json`` (``bench_target_coverage.py``: whether the ε
printed meets "within ±x, 95% of the time" on fresh trials) and
``benchmarks/results/shuffling.json`` (``bench_shuffling.py``: the central ε after
shuffling, FMT 2021's numerical bound against its closed form).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from devtools.claims.words import count_words, results, span

Row = dict[str, Any]


def choose_epsilon_compared() -> str:
    """The ε the recommended method needs against Base's, and its MSE ratio."""
    record = results("choose_epsilon")
    s, a = record["setting"], record["answer"]
    base = (
        f"Base's {a['base_epsilon_as_shown']:g} (exact)"
        if a["base_exact"]
        else f"Base's {a['base_epsilon_as_shown']:g} ({a['base_epsilon_low']:.3g}–"
        f"{a['base_epsilon_high']:.3g})"
    )
    return (
        f"on {a['protocol']} with the {s['query']} query (Zipf 1.5, d = "
        f"{int(s['dataset'].split('d=')[1].split(',')[0]):,}, n = {count_words(s['n'])}, "
        f"target {100 * s['target_rmse']:g} pp, {s['trials']} trials a point) {a['method']} "
        f"needs ε ≈ {a['epsilon_as_shown']:g} ({a['epsilon_low']:.3g}–{a['epsilon_high']:.3g}) "
        f"against {base}, {1 / a['mse_ratio_to_base']:.1f}× lower MSE "
        f"({1 / a['ratio_high']:.1f}–{1 / a['ratio_low']:.1f}×; `{record['command']}`, "
        f"{record['date']})"
    )


def _options() -> list[Row]:
    return [w for w in results("option_epsilon")["workloads"] if w["method"] is not None]


def _option_setting() -> str:
    record = results("option_epsilon")
    return (
        f"the bundled countries (d = 248) and emoji (d = 1,573) data, n = "
        f"{count_words(record['users'])}, ε ≈ the ε each row prints; {record['trials']:,}-trial "
        f"references; `{record['command']}`, {record['date']}"
    )


def _share(found: Row | None) -> str:
    if found is None:
        return "—"
    return f"{100 * found['share']:.1f}% ({100 * found['low']:.1f}–{100 * found['high']:.1f})"


def option_table() -> str:
    """Per workload: the option's ε now and before, the reference, and what it meets."""
    trials = results("option_epsilon")["trials"]
    lines = [
        "| workload | target | option | ε: pooled (now), 95% interval | ε: answer by answer "
        f"(before) | ε: {trials:,}-trial reference | now / reference | before / reference | "
        "measured at the printed ε | measured at the interval's upper end |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for w in results("option_epsilon")["workloads"]:
        if w["method"] is None:
            lines.append(
                f"| {w['workload']} | ±{100 * w['target']:g} pp | — | no option | | | | | | |"
            )
            continue
        interval = (
            f" ({w['low']:.3g}–{w['high']:.3g})"
            if w["low"] is not None and w["high"] is not None
            else ""
        )
        lines.append(
            f"| {w['workload']} | ±{100 * w['target']:g} pp | {w['method']} | "
            f"{w['printed']:g}{interval} | {w['before']:.3g} ({w['before_method']}) | "
            f"{w['reference']:.3g} | {w['epsilon'] / w['reference']:.2f} | "
            f"{w['before'] / w['reference']:.2f} | {_share(w['at_printed'])} | "
            f"{_share(w['at_upper'])} |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def option_against_reference() -> str:
    """The option's ε over the reference, before and now; what the printed ε meets."""
    rows = _options()
    with_interval = [w for w in rows if w["low"] is not None and w["high"] is not None]
    held = sum(w["low"] <= w["reference"] <= w["high"] for w in with_interval)
    upper = [100 * w["at_upper"]["share"] for w in with_interval if w["at_upper"]]
    printed = [100 * w["at_printed"]["share"] for w in rows if w["at_printed"]]
    return (
        f"before, {span([w['before'] / w['reference'] for w in rows], 3)}× the ε needed; now "
        f"{span([w['epsilon'] / w['reference'] for w in rows], 3)}×. The interval holds the "
        f"reference in {held} of the {len(with_interval)} rows that have one, and its upper end "
        f"meets the target in {span(upper, 3)}% of trials; at the printed ε, "
        f"{span(printed, 3)}% ({_option_setting()})"
    )


def option_short() -> str:
    """The option's ε over the reference, before and now, in a clause."""
    rows = _options()
    before = span([w["before"] / w["reference"] for w in rows], 3)
    now = span([w["epsilon"] / w["reference"] for w in rows], 3)
    return (
        f"answer by answer it came out {before}× the ε the reference needs, pooled {now}× "
        f"({_option_setting()})"
    )


# --- whether the printed ε meets the target (target_coverage.json) -------------------


def _targets() -> list[Row]:
    return [r for r in results("target_coverage")["rows"] if r["method"] is not None]


def _pct(r: Row) -> str:
    return f"{100 * r['share']:.1f}% ({100 * r['low']:.1f}–{100 * r['high']:.1f})"


def target_table() -> str:
    """Per workload, target and method: the share of fresh trials within ±x."""
    lines = [
        "| workload | target | method | ε printed | measured: within ±x | averaged over the "
        "values |",
        "|---|---|---|---|---|---|",
    ]
    for r in results("target_coverage")["rows"]:
        if r["method"] is None:
            lines.append(
                f"| {r['workload']} | {r['kind']} ±{100 * r['size']:g} pp | — | not met | | |"
            )
            continue
        averaged = "—" if r["averaged"] is None else f"{100 * r['averaged']:.1f}%"
        lines.append(
            f"| {r['workload']} | {r['kind']} ±{100 * r['size']:g} pp | {r['method']} | "
            f"{r['printed']:g} | {_pct(r)} | {averaged} |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def _target_setting() -> str:
    record = results("target_coverage")
    return (
        f"n = 10⁵ and 10⁶, d = 248 to 1,573, ε ≈ each answer's printed one; "
        f"{record['trials']:,} fresh trials each; `{record['command']}`, {record['date']}"
    )


def target_base() -> str:
    """Base's printed ε against the target: exact and simulated."""
    base = [r for r in _targets() if r["method"] == "Base"]
    exact = [100 * r["share"] for r in base if r["base_exact"]]
    simulated = [100 * r["share"] for r in base if not r["base_exact"]]
    words = f"Base meets the target as printed in {span(exact, 3)}% of trials where its ε is exact"
    if simulated:
        words += f" and {span(simulated, 3)}% where it is simulated"
    return words + f" ({_target_setting()})"


def target_option() -> str:
    """The option's ε at its point against the target, and the rows below 95%."""
    options = [r for r in _targets() if r["option"]]
    short = [r for r in options if r["high"] < 0.95]
    words = (
        f"the option at its point meets it in {span([100 * r['share'] for r in options], 3)}% "
        f"of trials over {len(options)} rows"
    )
    if short:
        words += "; below 95% beyond its interval in " + "; ".join(
            f"{r['workload']}, {r['kind']} ±{100 * r['size']:g} pp: {_pct(r)} at ε = "
            f"{r['printed']:g}"
            for r in short
        )
    return words + f" ({_target_setting()})"


# --- the central ε after shuffling (shuffling.json) -------------------------------------


def shuffling_table() -> str:
    """Per ε₀ and n: the numerical bound, the closed form, the time and the divergences."""
    record = results("shuffling")
    lines = [
        "| ε₀ | n | central ε (δ = 10⁻⁶) | closed form | seconds | divergences |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in record["rows"]:
        closed = "—" if r["closed_form"] is None else f"{r['closed_form']:.4g}"
        lines.append(
            f"| {r['epsilon0']:g} | {r['n']:,} | {r['numerical']:.4g} | {closed} | "
            f"{r['seconds']:.3f} | {r['divergences']} |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


#: FMT 2021's published example, as their companion code computes it (the range is
#: over its settings of the numerical search), and their closed form's value.
FMT_EXAMPLE = {"low": 0.1675, "high": 0.1728, "closed_form": 0.538}


def shuffling_example() -> str:
    """The published example, ours against the paper's."""
    record = results("shuffling")
    e = record["example"]
    return (
        f"the published example (ε₀ = {e['epsilon0']:g}, n = {count_words(e['n'])}, "
        f"δ = 10⁻⁶) gives {e['numerical']:.4g} (FMT's companion code: "
        f"{FMT_EXAMPLE['low']}–{FMT_EXAMPLE['high']}); the closed form "
        f"{e['closed_form']:.3g} (theirs ≤ {FMT_EXAMPLE['closed_form']}; `{record['command']}`, "
        f"{record['date']})"
    )


#: The claims whose setting is not a d, ε and n, and why.
SETTING_ELSEWHERE = {
    "shuffling.example": "the central ε depends on ε₀, n and δ alone, which it says",
}

#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "choose-epsilon.compared": choose_epsilon_compared,
    "option-epsilon.table": option_table,
    "option-epsilon.against-reference": option_against_reference,
    "option-epsilon.short": option_short,
    "target-coverage.table": target_table,
    "target-coverage.base": target_base,
    "target-coverage.option": target_option,
    "shuffling.table": shuffling_table,
    "shuffling.example": shuffling_example,
}
