"""Repeated collection: the ε a user spends when reports are collected again and again.

An ε chosen in this tool is spent per report. Collected every period, it composes:

* **Fresh randomization** of every report. Basic composition: T reports at ε each are
  T·ε-DP (Dwork & Roth, "The Algorithmic Foundations of Differential Privacy", 2014,
  Thm 3.16), a pure bound. Advanced composition (Dwork, Rothblum & Vadhan, FOCS 2010;
  Dwork & Roth Thm 3.20) trades a δ for a smaller ε when ε is small:
  ε' = ε √(2T ln(1/δ')) + T ε (e^ε − 1), (ε', δ')-DP. Both are given; the smaller is
  quoted with its δ. (Optimal composition, Kairouz, Oh & Viswanath 2015, is tighter
  still and not computed here.)
* **Memoization** (a permanent randomized response, RAPPOR's, Erlingsson, Pihur &
  Korolova, CCS 2014, Sec. 3): the report for a value is drawn once and sent again
  each period. A value that never changes costs its ε once; each distinct value a user
  holds over the horizon costs ε again (RAPPOR's ε∞ is per distinct value). What it leaves
  exposed is in :data:`MEMOIZATION_EXPOSES`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ldpcore._validation import check_delta, check_epsilon, check_int

#: What memoization does not protect, in words (pages, record, notebook and CLI).
MEMOIZATION_EXPOSES: tuple[str, ...] = (
    "a value that changes costs ε again for each new value (a user whose answer changes "
    "every period spends as much as with fresh randomization)",
    "the same report sent every period links a user's reports together: it works as an "
    "identifier across periods unless each sending adds fresh noise on top (RAPPOR's "
    "instantaneous randomized response), which costs more ε per report",
)


@dataclass(frozen=True)
class RepeatedCost:
    """The ε one user spends over ``periods`` periods of ``reports_per_period`` reports.

    Attributes
    ----------
    epsilon
        ε per report.
    reports_per_period, periods
        The cadence: reports per period, and how many periods.
    distinct_values
        How many different values one user holds over the horizon (memoization pays
        once per distinct value).
    delta
        The δ' the advanced-composition bound is stated at.
    """

    epsilon: float
    reports_per_period: int
    periods: int
    distinct_values: int
    delta: float

    @property
    def reports(self) -> int:
        """Reports one user sends over the horizon (T)."""
        return self.reports_per_period * self.periods

    @property
    def basic(self) -> float:
        """Fresh randomization, basic composition: T·ε (pure ε-DP)."""
        return self.reports * self.epsilon

    @property
    def advanced(self) -> float:
        """Fresh randomization, advanced composition at :attr:`delta` (DRV 2010)."""
        t = self.reports
        return self.epsilon * math.sqrt(2.0 * t * math.log(1.0 / self.delta)) + t * (
            self.epsilon * math.expm1(self.epsilon)
        )

    @property
    def fresh(self) -> float:
        """Fresh randomization: the smaller of the two bounds."""
        return min(self.basic, self.advanced)

    @property
    def fresh_is_advanced(self) -> bool:
        """Whether :attr:`fresh` is the advanced bound (then it carries :attr:`delta`)."""
        return self.advanced < self.basic

    @property
    def memoized(self) -> float:
        """Memoized (permanent) responses: ε per distinct value, never more than fresh."""
        return self.epsilon * min(self.distinct_values, self.reports)


def repeated_cost(
    epsilon: float,
    *,
    reports_per_period: float = 1,
    periods: float = 365,
    distinct_values: float = 1,
    delta: float = 1e-6,
) -> RepeatedCost:
    """The ε spent by repeated collection, checked (see the module's text for the bounds).

    Examples
    --------
    >>> cost = repeated_cost(1.0, reports_per_period=1, periods=365)
    >>> cost.basic, cost.memoized
    (365.0, 1.0)
    >>> round(repeated_cost(0.1, periods=365).advanced, 1)  # below T·ε = 36.5
    13.9
    """
    return RepeatedCost(
        epsilon=check_epsilon(epsilon),
        reports_per_period=check_int(reports_per_period, name="reports per period", minimum=1),
        periods=check_int(periods, name="periods", minimum=1),
        distinct_values=check_int(distinct_values, name="distinct values", minimum=1),
        delta=check_delta(delta),
    )


__all__ = ["MEMOIZATION_EXPOSES", "RepeatedCost", "repeated_cost"]
