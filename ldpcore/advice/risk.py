"""What one report tells the best attacker (the Bayes-optimal guess rate per protocol)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ldpcore.attacks.guessing import guess_rate
from ldpcore.protocols import get_protocol


def privacy_risk(
    prior: ArrayLike, *, epsilon: float, protocols: Sequence[str]
) -> list[dict[str, object]]:
    """What one report tells the best attacker, per protocol (Bayes-optimal guess rate).

    Parameters
    ----------
    prior : array_like
        The attacker's prior: the distribution of values (e.g. the dataset's frequencies).
    epsilon : float
        The privacy budget.
    protocols : sequence of str
        Protocol names.

    Returns
    -------
    list of dict
        ``protocol, attacker guesses right, guessing without the report`` per protocol.
    """
    prior = np.asarray(prior, dtype=np.float64)
    rows: list[dict[str, object]] = []
    for name in protocols:
        oracle = get_protocol(name, epsilon=epsilon, domain_size=prior.size)
        rows.append(
            {
                "protocol": oracle.name,
                "attacker guesses right": guess_rate(oracle, prior),
                "guessing without the report": float(prior.max()),
            }
        )
    return rows
