"""Sentences about fake users' attack on every method: the answer, the reasons, the table.

The targets' gain under fake users (:mod:`ldpcore.experiments.poisoning`, Cao, Jia and
Gong 2021): the one line a page opens on (:func:`attack_headline`), every method's
effect with the closed form (:func:`attack_sentence`), the top-k query and the table.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ldpcore.formats import format_error, format_number, format_percent_change
from ldpcore.protocols.base import FrequencyOracle

if TYPE_CHECKING:
    from ldpcore.experiments.poisoning import AttackResult

# A measured span the words quote; tests/house/test_claims.py holds it to the stored run.
#: Norm-Sub's change of the raw-aimed gain on TreeOUE at β = 0.5%, over the ranges measured.
NORM_SUB_RANGE_GAIN = (0.14, 0.33)


def attack_headline(result: AttackResult) -> str:
    """What the fake users did and which method holds them back most, in one line.

    The page opens on it; :func:`attack_sentence` gives every method's effect and the
    closed form. Base's gain is its measured mean (Cao, Jia and Gong 2021, Sec. 3); a
    method is named only when the paired interval says it shrinks the gain by more
    than the practical margin (the effect the table reads).
    """
    summary = result.summary
    base = summary[summary["method"] == "Base"]
    share = f"{result.fakes / (result.fakes + result.config.n):.1%}"
    if not len(base):
        return f"{result.fakes:,} fake users ({share} of all reports): add Base to compare."
    gain = float(base["gain"].iloc[0])
    moves = "lift" if gain >= 0 else "lower"
    text = (
        f"{result.fakes:,} fake users ({share} of all reports) {moves} their targets' "
        f"estimated share by **{100 * abs(gain):.3g} percentage points** under Base"
    )
    effects = summary.get("effect")
    shrink = summary.iloc[0:0] if effects is None else summary[effects == "shrinks the gain"]
    if len(shrink) and gain:
        best = shrink.loc[shrink["vs_base"].abs().idxmax()]
        return (
            f"{text}; **{best['method']}** shrinks that the most "
            f"({format_percent_change(float(best['vs_base']) / gain)})."
        )
    return f"{text}; no method shrinks it by more than 5%."


def attack_sentence(result: AttackResult) -> str:
    """What the fake users did, in one sentence with its closed form.

    The targets' gain is their total estimated frequency with the fake users minus the
    same without them, on the same honest reports (Cao, Jia and Gong 2021, Sec. 3);
    Base's mean gain is the closed form up to Monte Carlo error.
    """
    ranges = result.config.oracle().composite
    targets = (
        f"the range {result.labels[0]} to {result.labels[-1]} ({len(result.labels)} "
        f"value{'s' if len(result.labels) != 1 else ''})"
        if ranges
        else ", ".join(result.labels)
    )
    summary = result.summary
    base = summary[summary["method"] == "Base"]
    measured = (
        f"; Base's measured {format_number(float(base['gain'].iloc[0]))}" if len(base) else ""
    )
    verdict = ""
    if "effect" in summary and len(base):
        reference = float(base["gain"].iloc[0])

        def named(effect: str) -> list[str]:
            chosen = summary[summary["effect"] == effect]
            return [
                f"{row.method} ({format_percent_change(row.vs_base / reference)})"
                if reference
                else str(row.method)
                for row in chosen.itertuples()
            ]

        shrink, amplify = named("shrinks the gain"), named("amplifies the gain")
        verdict = (
            f" Against Base on the same trials, {', '.join(shrink) or 'no method'} shrink"
            f"{'s' if len(shrink) <= 1 else ''} the gain and "
            f"{', '.join(amplify) or 'none'} amplif{'ies' if len(amplify) <= 1 else 'y'} it."
        )
        close = named("about the same")
        if close:
            verdict += (
                f" {', '.join(close)} change{'s' if len(close) == 1 else ''} it by less than "
                "5% of Base's gain: about the same."
            )
        same = [str(m) for m in summary.loc[summary["effect"] == "the same as Base", "method"]]
        if same:
            gives = "gives" if len(same) == 1 else "give"
            verdict += f" {', '.join(same)} {gives} Base's gain exactly."
    pull = ""
    if ranges and len(base) and math.isfinite(float(base["influence"].iloc[0])):
        pull = (
            f" Each fake user moves Base's answer as far as {base['influence'].iloc[0]:.3g} "
            "honest users holding a value in the range would."
        )
    return (
        f"{result.fakes:,} fake users ({result.attack.in_words(ranges=ranges)}) on {targets}: "
        "the targets' "
        f"estimated share {'rises' if result.expected >= 0 else 'falls'} (with them minus "
        "without them, on the same honest reports) by "
        f"{format_number(abs(result.expected))} in expectation "
        f"(closed form{', the raw tree' if ranges else ''}){measured}.{pull}{verdict}"
        f"{generalized_base_words(result.config.oracle())}"
    )


def range_attack_words() -> str:
    """How fake users attack a tree's ranges here, and whose finding the page measures."""
    return (
        "Against a tree the fake users push one range of consecutive values up (Liao et al., "
        "arXiv 2503.03454, who find that Norm-Sub amplifies what they do). Under the "
        "maximal-gain attack each fake user names a level and reports, there, the nodes that "
        "raise the range's answer in the reading of the tree it aims at, and the fake users "
        "are spread over the levels where they raise it most. That attack is derived here "
        "from the estimator, as Cao et al. derive theirs; it is not Liao et al.'s own "
        "construction, whose details this tool's library does not hold. Each method's "
        "effect is measured against Base on the same trials. The raw tree reads a range off "
        "the fewest nodes that tile it (Kulkarni et al.), so the attack only raises nodes. "
        'Measured at d = 1,024, n = 10⁶, ε = 1 (benchmarks/README.md, "Fake users"): '
        "Norm-Sub, run on each level, amplifies the gain on TreeOUE while fake users are "
        f"a small share (+{100 * NORM_SUB_RANGE_GAIN[0]:.0f}% to "
        f"+{100 * NORM_SUB_RANGE_GAIN[1]:.0f}% at β = 0.5%) and caps it once their gain is "
        "large; "
        "on TreeOLH it lowers it."
    )


def generalized_base_words(protocol: FrequencyOracle) -> str:
    """Where a run's Base is the generalized form and the protocol has its own estimator.

    Fake users' gains are defined through ``p`` and ``q`` (Cao, Jia and Gong 2021), so
    a run with them estimates every protocol by ``(c_v/n − q)/(p − q)``; a protocol
    whose simulations use another estimator (dBitFlipPM: Ding et al.'s) says so.
    """
    own = type(protocol).estimate_from_tallies
    if own is FrequencyOracle.estimate_from_tallies:
        return ""
    return (
        f" {protocol.name}'s Base here is the generalized form (c/n − q)/(p − q), through "
        "which the gains are defined; the Explorer uses its own estimator "
        f"({protocol.reference}), unbiased too, with a smaller variance."
    )


def attack_top_k_words(summary: Any, top_k: int, targets: int) -> str:
    """What the top-k query shows: how many targets Base (and the best method) lets in.

    ``summary`` is :attr:`ldpcore.experiments.poisoning.AttackResult.summary`.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"method": ["Base", "Norm-Mul"], "in_top_k": [2.5, 1.0],
    ...                       "honest_in_top_k": [0.0, 0.0], "top_k_any": [1.0, 0.75]})
    >>> attack_top_k_words(table, 10, 3)[:72]
    'Top-10 query: with the fake users, Base ranks 2.5 of the 3 targets among'
    """
    rows = summary.set_index("method")
    lowest = rows["in_top_k"].idxmin()
    sentence = ""
    if "Base" in rows.index:
        base = rows.loc["Base"]
        sentence = (
            f"Top-{top_k} query: with the fake users, Base ranks {base['in_top_k']:.2g} of the "
            f"{targets} target{'s' if targets != 1 else ''} among its {top_k} largest "
            f"estimates on average (at least one in {base['top_k_any']:.0%} of the trials), "
            f"against {base['honest_in_top_k']:.2g} without them."
        )
    if lowest != "Base" and rows.loc[lowest, "in_top_k"] < rows["in_top_k"].max():
        sentence += f" {lowest} lets in the fewest: {rows.loc[lowest, 'in_top_k']:.2g} on average."
    return sentence.strip()


def attack_table(summary: Any, *, ranges: bool = False) -> Any:
    """The Fake users page's table: per method, its gain, against Base, its top-k, its error.

    Parameters
    ----------
    summary : DataFrame
        :attr:`ldpcore.experiments.poisoning.AttackResult.summary`.
    ranges : bool
        The targets are one range (a tree): each fake user's pull in honest users
        replaces the top-k column, which asks of values.

    Returns
    -------
    DataFrame
        Columns in words, numbers formatted (``—`` where Base has no comparison).
    """
    import pandas as pd  # noqa: PLC0415 (pandas loads with the run)

    def interval(low: float, high: float) -> str:
        return f"{format_number(low)} to {format_number(high)}"

    rows = []
    for row in summary.itertuples():
        against = "—"
        effect = getattr(row, "effect", "reference")
        if effect == "the same as Base":
            against = "the same as Base (every trial, to rounding)"
        elif effect != "reference":
            against = (
                f"{format_number(row.vs_base)} ({interval(row.vs_base_low, row.vs_base_high)}): "
                f"{row.effect}"
            )
        asked = (
            {
                "each fake, in honest users": (
                    f"{row.influence:.3g}" if math.isfinite(row.influence) else "—"
                )
            }
            if ranges
            else {
                "targets in the top k (honest)": f"{row.in_top_k:.2g} ({row.honest_in_top_k:.2g})"
            }
        )
        rows.append(
            {
                "method": row.method,
                "gain: with minus without the fakes (95% interval)": (
                    f"{format_number(row.gain)} ({interval(row.gain_low, row.gain_high)})"
                ),
                "own bias, no attack": f"{format_number(row.honest_bias)}",
                "against Base, same trials": against,
                **asked,
                "MSE on the other values": format_error(row.collateral_mse),
                "ranking kept (Kendall's τ)": (
                    "—" if math.isnan(row.kendall_tau) else f"{row.kendall_tau:.3f}"
                ),
            }
        )
    return pd.DataFrame(rows)


__all__ = [
    "attack_headline",
    "attack_sentence",
    "attack_table",
    "attack_top_k_words",
    "generalized_base_words",
    "range_attack_words",
]
