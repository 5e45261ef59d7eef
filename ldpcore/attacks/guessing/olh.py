"""Local hashing (OLH, BLH): how often the best attacker guesses a user's value from one report.

The exact closed form for any d; :mod:`ldpcore.attacks.guessing` registers it.
"""

from __future__ import annotations

import math

from numpy.typing import ArrayLike

from ldpcore.attacks.guessing.priors import check_prior, membership_guess_rate
from ldpcore.protocols.olh import OLH


def guess_rate(protocol: OLH, prior: ArrayLike) -> float:
    """MAP attacker success under an ideal (fully random) hash, exact in that model.

    Given the report ``(H, y)``, value ``v`` is *marked* when ``H(v) = y``: the
    user's own value with probability ``e^ε/(e^ε+g−1)``, every other value with
    ``1/g`` independently (an ideal hash), and a marked value is ``e^ε`` times
    as likely as an unmarked one. The shipped hash family approximates this;
    the tests check the real randomizer against it by simulation.
    """
    g, e = protocol.hash_range, math.exp(protocol.epsilon)
    return membership_guess_rate(
        check_prior(prior, protocol.domain_size), own=e / (e + g - 1), other=1.0 / g, ratio=e
    )
