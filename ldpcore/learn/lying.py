"""Fake users in the Learn page's small class: their reports and what they move.

The honest reports are the walkthrough's (:mod:`ldpcore.learn.walkthrough`); a few fake
users then send the maximal-gain report for one target value (Cao, Jia and Gong 2021,
Sec. 3; for a protocol that describes none, the target through the real randomizer):
real reports in the protocol's own format, each read back by the server's own
aggregation, so the page can show what every fake report supports. What a fake user
is worth at each ε is the closed form (:func:`ldpcore.attacks.expected_gain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ldpcore.attacks import expected_gain
from ldpcore.attacks.fakes import described_attacks
from ldpcore.attacks.gains import fake_reports
from ldpcore.collection.formats import report_format
from ldpcore.errors import InputError
from ldpcore.learn.walkthrough import supports_text
from ldpcore.postprocess import get_method
from ldpcore.protocols import get_protocol
from ldpcore.protocols.base import FrequencyOracle, empty_support

#: The ε of the closed-form table: strong privacy to weak.
EPSILONS = (0.5, 1.0, 2.0, 4.0)
#: The methods shown beside Base with the fake users.
SHOWN = ("Norm-Sub", "Norm-Mul")


@dataclass(frozen=True)
class LyingClass:
    """The class with its fake users.

    Attributes
    ----------
    kind : str
        The attack: ``"mga"`` (the maximal-gain report), or ``"ria"`` (the target through
        the real randomizer) for a protocol that describes no maximal-gain report.
    reports : DataFrame
        One row per fake user: ``fake user, report, supports``.
    estimates : DataFrame
        Per value: ``truth``, ``Base, honest`` and Base and :data:`SHOWN` with the fakes.
    gains : DataFrame
        Per method (Base and :data:`SHOWN`): its estimate of the target without the
        fake users, with them, and the gain, the second minus the first on the same
        honest reports (Cao, Jia and Gong 2021, Sec. 3).
    by_epsilon : DataFrame
        Per ε: the target's expected rise in its Base estimate with these fake users.
    """

    kind: str
    reports: pd.DataFrame
    estimates: pd.DataFrame
    gains: pd.DataFrame
    by_epsilon: pd.DataFrame


def lying_class(
    oracle: FrequencyOracle,
    honest_support: NDArray[np.int64],
    values: NDArray[np.int64],
    labels: Sequence[str],
    *,
    target: int,
    fakes: int,
    seed: int = 0,
) -> LyingClass:
    """``fakes`` maximal-gain fake users pushing ``target`` into the walkthrough's class.

    Parameters
    ----------
    oracle : FrequencyOracle
        The walkthrough's protocol.
    honest_support : ndarray
        The honest users' support counts (the walkthrough's).
    values : ndarray
        The honest users' true values (0-based).
    labels : sequence of str
        The values' names.
    target : int
        The value the fake users push (0-based).
    fakes : int
        How many fake users (0 to 100).
    seed : int
        The fake reports' randomness (OLH's seed search, unary encoding's padding).
    """
    if not 0 <= target < len(labels):
        raise InputError(f"the target must be one of the values, 0 to {len(labels) - 1}")
    if not 0 <= fakes <= 100:
        raise InputError(f"between 0 and 100 fake users, got {fakes}")
    n = int(values.size)
    targets = np.array([target])
    kind = "mga" if "mga" in described_attacks(oracle) else "ria"
    rng = np.random.default_rng(seed)
    rows = []
    support = np.asarray(honest_support, dtype=empty_support(oracle).dtype).copy()
    if fakes:
        reports = fake_reports(oracle, kind, targets, fakes, rng)
        for user in range(fakes):
            text, single = report_format(oracle).describe(oracle, reports, user)
            supported = oracle.aggregate(single)
            support += supported
            rows.append(
                {
                    "fake user": user + 1,
                    "report": text,
                    "supports": supports_text(oracle, supported, labels),
                }
            )
    truth = np.bincount(values, minlength=len(labels)) / n
    honest = oracle.estimate(honest_support, n)
    poisoned = oracle.estimate(support, n + fakes)
    estimates: dict[str, object] = {
        "value": list(labels),
        "truth": truth,
        "Base, honest": honest,
        f"Base, {fakes} fake": poisoned,
    }
    gains = []
    for name in ("Base", *SHOWN):
        method = get_method(name)
        before = method(honest, protocol=oracle, n=n)[target]
        after = method(poisoned, protocol=oracle, n=n + fakes)
        if name != "Base":
            estimates[f"{name}, {fakes} fake"] = after
        gains.append(
            {
                "method": name,
                f"{labels[target]}, without the fakes": before,
                f"{labels[target]}, with them": after[target],
                "gain (with − without)": after[target] - before,
            }
        )
    share = fakes / (n + fakes)
    by_epsilon = pd.DataFrame(
        {
            "ε": list(EPSILONS),
            f"{labels[target]}'s expected rise (Base)": [
                expected_gain(
                    get_protocol(oracle.name, epsilon=epsilon, domain_size=len(labels)),
                    kind,
                    targets,
                    truth,
                    share,
                )
                for epsilon in EPSILONS
            ],
        }
    )
    return LyingClass(
        kind, pd.DataFrame(rows), pd.DataFrame(estimates), pd.DataFrame(gains), by_epsilon
    )


__all__ = ["EPSILONS", "SHOWN", "LyingClass", "lying_class"]
