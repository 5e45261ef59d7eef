"""Unary encoding: how often the best attacker guesses a user's value from one report.

OUE, SUE, THE and the memoized chains over them. The exact closed form for any d;
:mod:`ldpcore.attacks.guessing` registers it.
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from ldpcore.attacks.guessing.priors import check_prior, membership_guess_rate
from ldpcore.protocols.unary import UnaryEncoding


def guess_rate(protocol: UnaryEncoding, prior: ArrayLike) -> float:
    """Exact MAP attacker success: independent bits, ``P(1) = p`` own / ``q`` other."""
    p, q = protocol.p, protocol.q
    ratio = (p / q) * ((1 - q) / (1 - p))  # e^ε: a set bit against a clear one
    return membership_guess_rate(
        check_prior(prior, protocol.domain_size), own=p, other=q, ratio=ratio
    )
