"""Generalized Random Response (GRR), NDSS 2020 Section III-A, Eq. (1)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle, ValueReports, ratio_from_matrix
from ldpcore.protocols.rounds import Chain
from ldpcore.rng import ClientRNG, as_source

#: Largest domain for which ``channel_matrix`` builds the explicit d × d matrix.
_MAX_EXPLICIT = 4096


@dataclass(frozen=True, kw_only=True)
class GRR(ValueReports, FrequencyOracle):
    """Generalized Random Response: report the true value or another one.

    A user keeps the true value with probability ``p = e^ε/(e^ε + d − 1)`` and
    otherwise reports one of the other ``d − 1`` values uniformly, each with
    ``q = 1/(e^ε + d − 1)`` (NDSS Eq. 1).

    Reports are the reported values, an int64 array (0-based); report files, the
    audit event, the walkthrough and the exact likelihood of the reported values come
    from :class:`~ldpcore.protocols.base.ValueReports`.

    Examples
    --------
    >>> grr = GRR(epsilon=1.0, domain_size=4)
    >>> round(grr.p / grr.q, 6) == round(math.e, 6)
    True
    """

    name: ClassVar[str] = "GRR"
    estimates_sum_to_one: ClassVar[bool] = True
    description: ClassVar[str] = "Generalized randomized response: keep the value or report another"
    good_for: ClassVar[str] = (
        "Small domains: below d = 3e^ε + 2 values its error is below OUE's and OLH's "
        "(Wang et al. 2017), with one value per report"
    )
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. III-A, Eq. (1)"
    communication: ClassVar[str] = "one value (log2 d bits)"

    @property
    def p(self) -> float:
        """``e^ε / (e^ε + d − 1)``."""
        return math.exp(self.epsilon) / (math.exp(self.epsilon) + self.domain_size - 1)

    @property
    def q(self) -> float:
        """``1 / (e^ε + d − 1)``."""
        return 1.0 / (math.exp(self.epsilon) + self.domain_size - 1)

    def rounds_chain(self) -> Chain:
        """Every round randomizes the value afresh: GRR's round on an unchanged memo."""
        return Chain("value", self.domain_size, p1=1.0, q1=0.0, p2=self.p, q2=self.q)

    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.int64]:
        """Keep each value with probability ``p``, else report a uniform *other* value."""
        v = self._values(values)
        generator = as_source(rng)
        keep = generator.random(v.size) < self.p
        # v + U{1..d-1} mod d is uniform over the d - 1 other values
        other = (
            v + 1 + generator.integers(0, self.domain_size - 1, size=v.size)
        ) % self.domain_size
        return np.where(keep, v, other)

    def aggregate(self, reports: ArrayLike) -> NDArray[np.int64]:
        """Count how often each value was reported."""
        reported = self._values(reports)
        return np.bincount(reported, minlength=self.domain_size).astype(np.int64)

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        # GRR as a mixture: with α = p − q the user keeps the value, otherwise it
        # reports a uniform value of the *whole* domain (q = (1 − α)/d). Kept users
        # are binomial per value; the rest are one multinomial over d cells.
        kept = rng.binomial(true_counts, self.p - self.q)
        spread = int(true_counts.sum() - kept.sum())
        uniform = rng.multinomial(spread, np.full(self.domain_size, 1.0 / self.domain_size))
        return (kept + uniform).astype(np.int64)

    def worst_case_ratio(self) -> float:
        """``max P(y|v)/P(y|v')``: each output has the two probabilities ``p`` and ``q``."""
        if self.domain_size <= _MAX_EXPLICIT:
            return ratio_from_matrix(self.channel_matrix())
        return self.p / self.q

    def channel_matrix(self) -> NDArray[np.float64]:
        """``Q[y, v] = p`` if ``y == v`` else ``q`` (outputs are domain values)."""
        if self.domain_size > _MAX_EXPLICIT:
            raise InputError(
                f"channel_matrix is built for domain_size <= {_MAX_EXPLICIT}, "
                f"got {self.domain_size}"
            )
        channel = np.full((self.domain_size, self.domain_size), self.q)
        np.fill_diagonal(channel, self.p)
        return channel
