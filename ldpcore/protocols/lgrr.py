"""L-GRR: GRR memoized at ε∞, then GRR afresh per report (Arcolezi et al., arXiv 2111.04636).

One report's channel is GRR-shaped (its own value with ``p``, each other value with
``q``), so GRR's sampler, estimator, exact likelihood and report files apply to one
round; :mod:`ldpcore.protocols.memoized` holds the budgets and the rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ldpcore.protocols.grr import GRR
from ldpcore.protocols.memoized import Memoized
from ldpcore.protocols.rounds import ChainShape, FreshRound


@dataclass(frozen=True, kw_only=True)
class LGRR(Memoized, GRR):
    """Longitudinal GRR: a permanent GRR answer at ε∞, reported through GRR at each round.

    Examples
    --------
    >>> lgrr = LGRR(epsilon=1.0, domain_size=8, epsilon_inf=2.0)
    >>> round(lgrr.p / lgrr.q, 9) == round(2.718281828, 9)
    True
    """

    name: ClassVar[str] = "L-GRR"
    description: ClassVar[str] = (
        "Longitudinal GRR: a permanent GRR answer per value, re-randomized by GRR each report"
    )
    good_for: ClassVar[str] = (
        "Collecting a small domain again and again: below d = 3e^ε + 2 values its error "
        "is below L-OSUE's (ε per report), and no number of reports reveals more than ε∞"
    )
    reference: ClassVar[str] = "Arcolezi et al., arXiv 2111.04636, Sec. 3 (L-GRR)"
    first_round: ClassVar[type[GRR]] = GRR
    memo_shape: ClassVar[ChainShape] = "value"
    fresh_round: ClassVar[FreshRound] = FreshRound("grr")


__all__ = ["LGRR"]
