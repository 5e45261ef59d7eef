"""Ranges of growing length in words: which protocol and method wins where, and why.

The words under :func:`ldpcore.experiments.ranges.run_ranges`: a headline that groups
neighbouring lengths with the same winner (only a win its paired interval supports is
called one), a table row per length, and why a hierarchy helps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ldpcore.formats import format_error, format_ratio, ratio_range
from ldpcore.stats.compare import compare

if TYPE_CHECKING:
    import pandas as pd

    from ldpcore.experiments.ranges import RangeRun

#: Why a tree answers long ranges better, for the page and the notebook.
WHY_A_HIERARCHY_HELPS = (
    "A flat estimate answers a range by adding one noisy estimate per value, so its noise "
    "grows with the range's length. A hierarchy estimates a tree of intervals (each user "
    "reports one level of it) and answers a range from a few nodes per level, at most "
    "B − 1 at each end, so its noise grows with the tree's height, not with the length. "
    "It pays on short ranges: each level hears from only a share of the users. The "
    "consistency step makes the levels agree (every parent the sum of its children) and "
    "lowers every range's error without adding bias."
)


def ordered_note(protocol: str) -> str:
    """What a page asking single values should say of a protocol made for ranges ("" if not).

    A hierarchy is built for ranges: each level hears from a share of the users, so on
    one value its error is a few times a flat oracle's. The Square Wave's positions blur
    neighbouring values together: its unbiased estimate pays for undoing the blur with
    noise, and EMS, which accepts some blur, is its estimator.
    """
    from ldpcore.protocols import protocol_class  # noqa: PLC0415

    chosen = protocol_class(protocol)
    if not chosen.ordered_values:
        return ""
    if not chosen.offers_likelihood:
        return (
            f"{protocol} reports one Haar coefficient of a tree of intervals per user: a long "
            "range reads two coefficients per level, and the estimate is consistent as it "
            "comes, while a single value's error is a few times a flat protocol's. Compare "
            "it on ranges on the Queries page (Ranges by length)."
        )
    if not chosen.composite:
        return (
            f"{protocol} reports a position near the value, so neighbouring values blur "
            "together. Its Base undoes the blur without bias and is hundreds of times "
            "noisier than OUE's; EMS (EM with smoothing, Li et al.) keeps a little blur and "
            "loses most of the noise, which suits smooth distributions such as ages. On a "
            "spiky distribution, or with so many users that OUE's noise is small, the blur "
            "costs more than it saves: compare them here, and on ranges on the Queries page "
            "(Ranges by length)."
        )
    return (
        f"{protocol} is built for ranges of an ordered domain: each user reports one level "
        "of a tree, so a single value's error is a few times a flat protocol's, while a "
        "long range's is far lower. Compare them on the Queries page (Ranges by length). "
        "Every method here runs on each level, and Consistency makes the levels agree."
    )


@dataclass(frozen=True)
class Winner:
    """The entry with the lowest error at one length, and whether its win is significant.

    ``tied`` holds it and every entry whose error is not significantly above its own on
    the same trials (paired, simultaneous over the entries): the lowest mean among them
    may be noise.
    """

    length: int
    entry: str
    mse: float
    ratio: float
    low: float
    high: float
    significant: bool
    tied: tuple[str, ...]


def winners(run: RangeRun) -> list[Winner]:
    """At each length, the entry with the lowest mean error and its ratio to the reference."""
    found = []
    for at, length in enumerate(run.lengths):
        errors = run.errors[:, at, :]
        means = errors.mean(axis=1)
        best = int(np.argmin(means))
        entry = run.entries[best]
        against_best = compare(errors, run.entries, reference=entry)
        tied = (entry, *(c.method for c in against_best if not c.worse))
        against = {c.method: c for c in run.comparisons[at]}.get(entry)
        if against is None:  # the reference itself
            found.append(Winner(length, entry, float(means[best]), 1.0, 1.0, 1.0, False, tied))
        else:
            found.append(
                Winner(
                    length,
                    entry,
                    float(means[best]),
                    against.ratio,
                    against.low,
                    against.high,
                    against.better,
                    tied,
                )
            )
    return found


def range_headline(run: RangeRun) -> str:
    """Which entry wins over which lengths, against the flat protocol's Base.

    Neighbouring lengths with the same significant winner are one stretch; a length where
    no entry's interval lies below the reference's is said to have no clear winner.
    """
    stretches: list[tuple[int, int, str | None, list[Winner]]] = []
    for winner in winners(run):
        # The tied entries in the run's order, so one group reads the same at each length.
        group = [e for e in run.entries if e in winner.tied]
        name = " or ".join(group) if winner.significant else None
        if stretches and stretches[-1][2] == name:
            first, _, _, members = stretches[-1]
            stretches[-1] = (first, winner.length, name, [*members, winner])
        else:
            stretches.append((winner.length, winner.length, name, [winner]))
    parts = []
    for first, last, name, members in stretches:
        span = f"{first:,}" if first == last else f"{first:,} to {last:,}"
        if name is None:
            parts.append(f"ranges of {span} values: nothing beats {run.reference} clearly")
            continue
        ratios = [m.ratio for m in members]
        scale = (
            f"{min(ratios):.2g}× to {max(ratios):.2g}×" if len(ratios) > 1 else f"{ratios[0]:.2g}×"
        )
        together = " (no significant difference between them)" if " or " in name else ""
        parts.append(
            f"ranges of {span} values: {name}{together}, at {scale} {run.reference}'s error"
        )
    return "Lowest error, paired on the same trials — " + "; ".join(parts) + "."


def range_table(run: RangeRun) -> pd.DataFrame:
    """One row per length: its winner, the winner's MSE and its ratio to the reference."""
    import pandas as pd  # noqa: PLC0415

    rows = []
    for winner in winners(run):
        rows.append(
            {
                "range length": f"{winner.length:,}",
                "lowest error": winner.entry,
                "its MSE": format_error(winner.mse),
                f"against {run.reference} (95%)": (
                    "the reference"
                    if winner.entry == run.reference
                    else format_ratio(winner.ratio, winner.low, winner.high)
                ),
                "significant": "yes" if winner.significant else "no",
                "no different from it": ", ".join(winner.tied[1:]) or "—",
            }
        )
    return pd.DataFrame(rows)


def crossing_words(run: RangeRun, entry: str) -> str:
    """From which length on ``entry`` is significantly below the reference, in a sentence."""
    below = []
    for at, length in enumerate(run.lengths):
        found = {c.method: c for c in run.comparisons[at]}.get(entry)
        below.append((length, found))
    lengths = [length for length, found in below if found is not None and found.better]
    if not lengths:
        return f"{entry} is not clearly below {run.reference} at any length measured."
    first = lengths[0]
    after = [length for length, _ in below if length >= first]
    steady = lengths == after
    found = dict(below)[first]
    assert found is not None
    interval = ratio_range(found.low, found.high, f"{run.reference}'s")
    tail = "and at every longer one measured" if steady else "(not at every longer one)"
    return (
        f"{entry} is below {run.reference} from ranges of {first:,} values on {tail}: "
        f"there its error is {interval}."
    )


__all__ = [
    "WHY_A_HIERARCHY_HELPS",
    "Winner",
    "crossing_words",
    "ordered_note",
    "range_headline",
    "range_table",
    "winners",
]
