"""The tables pages show and the decision record files, written once.

A page formatted a number one way (a percent column, 5.45%) and the record another
(5.5%); a person who files the record and reads the page aloud then quotes two numbers
for one. Each table here is made of the text both show, so they cannot differ: the
method table, the privacy risk per protocol and the fake users needed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from ldpcore.attacks.reach import TopKQuestion
from ldpcore.formats import format_count, format_error, format_ratio, format_share
from ldpcore.postprocess import method_class

#: Where an undefined cell of the method table links to (its section's anchor).
METHOD_TABLE_ANCHOR = "every-method"

#: What the method table's columns mean, said under it.
METHOD_TABLE_NOTE = (
    "MSE, bias² and variance: of the query's answers, in frequency units squared, to three "
    "significant digits. Equivalent users n': how many users Base would need for this MSE "
    "(NDSS Sec. V-C), to three significant digits; — where it is not defined (the query is "
    "not every value's frequency, or the method has no error at all)."
)

_NO_USERS = (
    "Not defined here: equivalent users compare with Base over every value's frequency, "
    "and need an error above zero"
)


#: How the method table says what a method enforces (``PostProcessor.nonnegative`` and
#: ``sums_to_one``).
ENFORCEMENT_WORDS = {"yes": "yes", "no": "no", "almost": "at most 1"}


def method_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Measured numbers, the paired comparison with Base, and what each method enforces.

    Every cell is display text in the app's one number format (``ldpcore.stats.compare``):
    errors to three significant digits, ratios with their interval, equivalent users as
    whole numbers, and "—" (with a tooltip) where a number is not defined.
    """
    rows = []
    for record in summary.to_dict("records"):
        meta = method_class(record["method"])
        users = record["equivalent_users"]
        rows.append(
            {
                "method": record["method"],
                "MSE ÷ Base (95%)": format_ratio(
                    record["mse_ratio_to_base"], record["ratio_low"], record["ratio_high"]
                ),
                "vs Base": record["mse_vs_base"] or "—",
                "MSE": format_error(record["mse"]),
                "equivalent users n'": (
                    format_count(users)
                    if pd.notna(users) and math.isfinite(users) and abs(users) < 1e18
                    else f'[—](#{METHOD_TABLE_ANCHOR} "{_NO_USERS}")'
                ),
                "bias²": (
                    f"0 (unbiased; the trials' noise: {format_error(record['bias_noise'])})"
                    if meta.unbiased
                    else format_error(record["bias_sq"])
                ),
                "variance": format_error(record["variance"]),
                # The registry's own word ("yes", "no", "almost"): a string is always
                # true, so testing it as a flag had called every method "yes".
                "non-negative": ENFORCEMENT_WORDS[meta.nonnegative],
                "sums to one": ENFORCEMENT_WORDS[meta.sums_to_one],
                "complexity": meta.complexity,
            }
        )
    return pd.DataFrame(rows)


#: The risk table's share columns (:func:`ldpcore.advice.privacy_risk`).
RISK_SHARES = ("attacker guesses right", "guessing without the report")


def risk_table(rows: Sequence[Mapping[str, object]]) -> pd.DataFrame:
    """What one report tells the best attacker, per protocol, as the page and record show it.

    Examples
    --------
    >>> risk_table([{"protocol": "GRR", "attacker guesses right": 0.05449,
    ...              "guessing without the report": 0.0312}]).iloc[0].tolist()
    ['GRR', '5.45%', '3.12%']
    """
    frame = pd.DataFrame(list(rows))
    for column in RISK_SHARES:
        if column in frame:
            frame[column] = [format_share(float(value)) for value in frame[column]]
    return frame


def fake_users_table(question: TopKQuestion) -> pd.DataFrame:
    """Fake users needed at each ε, and their share of all reports (page and record).

    Examples
    --------
    >>> q = TopKQuestion("kale", 0.001, 10, "OLH", 1.0, 10_000, ((0.5, 120), (1.0, None)))
    >>> fake_users_table(q).values.tolist()
    [['0.5', '120', '1.19%'], ['1 (the answer)', 'no number', '—']]
    """

    def at(epsilon: float) -> str:
        return f"{epsilon:g} (the answer)" if epsilon == question.epsilon else f"{epsilon:g}"

    return pd.DataFrame(
        {
            "ε": [at(e) for e, _ in question.by_epsilon],
            "fake users needed": [
                "no number" if m is None else f"{m:,}" for _, m in question.by_epsilon
            ],
            "share of all reports": [
                "—" if m is None else format_share(m / (question.n + m))
                for _, m in question.by_epsilon
            ],
        }
    )


__all__ = [
    "ENFORCEMENT_WORDS",
    "METHOD_TABLE_ANCHOR",
    "METHOD_TABLE_NOTE",
    "RISK_SHARES",
    "fake_users_table",
    "method_table",
    "risk_table",
]
