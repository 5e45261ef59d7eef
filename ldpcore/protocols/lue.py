"""The memoized unary-encoding chains: RAPPOR's (L-SUE), L-OSUE, L-OUE and L-SOUE.

Each memoizes a unary encoding at ε∞ (OUE or SUE, Wang et al. 2017 Sec. 4.3) and flips the
memo's bits afresh per report with a symmetric (SUE-like) or optimized (OUE-like) round;
Arcolezi et al., arXiv 2111.04636, Sec. 3, name the four chains and find L-OSUE the most
accurate. L-SUE is basic RAPPOR's permanent and instantaneous randomized response
(Erlingsson et al., CCS 2014, Sec. 3) on a one-hot vector, without the Bloom filter. One
report's bits are independent with the compound ``p`` and ``q``, so every unary-encoding
hook applies to one round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ldpcore.protocols.memoized import Memoized
from ldpcore.protocols.rounds import ChainShape, FreshRound
from ldpcore.protocols.unary import OUE, SUE, UnaryEncoding


@dataclass(frozen=True, kw_only=True)
class LSUE(Memoized, UnaryEncoding):
    """RAPPOR's chain: SUE memoized at ε∞, SUE afresh per report.

    Examples
    --------
    >>> round(LSUE(epsilon=1.0, domain_size=8).epsilon_inf, 6)
    2.0
    """

    name: ClassVar[str] = "L-SUE"
    description: ClassVar[str] = (
        "RAPPOR's chain: permanent then instantaneous symmetric bit flips (no Bloom filter)"
    )
    good_for: ClassVar[str] = (
        "Matching basic RAPPOR's repeated reports; one report is SUE's at ε, with more "
        "error than L-OSUE's"
    )
    reference: ClassVar[str] = "Erlingsson et al., CCS 2014, Sec. 3; Arcolezi et al. 2111.04636"
    first_round: ClassVar[type[UnaryEncoding]] = SUE
    memo_shape: ClassVar[ChainShape] = "bits"
    fresh_round: ClassVar[FreshRound] = FreshRound("symmetric")


@dataclass(frozen=True, kw_only=True)
class LOSUE(Memoized, UnaryEncoding):
    """L-OSUE: OUE memoized at ε∞, SUE afresh per report."""

    name: ClassVar[str] = "L-OSUE"
    description: ClassVar[str] = "Longitudinal unary encoding: OUE memoized, SUE each report"
    good_for: ClassVar[str] = (
        "Collecting a large domain again and again: beyond d = 3e^ε + 2 values its error "
        "is below L-GRR's, and the least of the four memoized unary chains"
    )
    reference: ClassVar[str] = "Arcolezi et al., arXiv 2111.04636, Sec. 3 (L-OSUE)"
    first_round: ClassVar[type[UnaryEncoding]] = OUE
    memo_shape: ClassVar[ChainShape] = "bits"
    fresh_round: ClassVar[FreshRound] = FreshRound("symmetric")


@dataclass(frozen=True, kw_only=True)
class LOUE(Memoized, UnaryEncoding):
    """L-OUE: OUE memoized at ε∞, OUE afresh per report."""

    name: ClassVar[str] = "L-OUE"
    description: ClassVar[str] = "Longitudinal unary encoding: OUE memoized, OUE each report"
    good_for: ClassVar[str] = (
        "Comparing the memoized chains: its error is above L-OSUE's, and one report "
        "cannot spend all of ε∞"
    )
    reference: ClassVar[str] = "Arcolezi et al., arXiv 2111.04636, Sec. 3 (L-OUE)"
    first_round: ClassVar[type[UnaryEncoding]] = OUE
    memo_shape: ClassVar[ChainShape] = "bits"
    fresh_round: ClassVar[FreshRound] = FreshRound("optimized")


@dataclass(frozen=True, kw_only=True)
class LSOUE(Memoized, UnaryEncoding):
    """L-SOUE: SUE memoized at ε∞, OUE afresh per report."""

    name: ClassVar[str] = "L-SOUE"
    description: ClassVar[str] = "Longitudinal unary encoding: SUE memoized, OUE each report"
    good_for: ClassVar[str] = (
        "Comparing the memoized chains: its error is above L-OSUE's, and one report "
        "cannot spend all of ε∞"
    )
    reference: ClassVar[str] = "Arcolezi et al., arXiv 2111.04636, Sec. 3 (L-SOUE)"
    first_round: ClassVar[type[UnaryEncoding]] = SUE
    memo_shape: ClassVar[ChainShape] = "bits"
    fresh_round: ClassVar[FreshRound] = FreshRound("optimized")


__all__ = ["LOSUE", "LOUE", "LSOUE", "LSUE"]
