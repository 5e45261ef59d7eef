"""The tables Choose ε shows and its decision record files, written once.

A page formatted a number one way (a percent column, 5.45%) and the record another
(5.5%); a person who files the record and reads the page aloud then quotes two numbers
for one. Each table here is made of the text both show, so they cannot differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ldpcore.attacks.reach import TopKQuestion
from ldpcore.formats import format_share

if TYPE_CHECKING:
    import pandas as pd

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
    import pandas as pd  # noqa: PLC0415

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
    import pandas as pd  # noqa: PLC0415

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


__all__ = ["RISK_SHARES", "fake_users_table", "risk_table"]
