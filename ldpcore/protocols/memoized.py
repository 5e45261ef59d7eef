"""Memoized two-round protocols: a permanent randomization, then a fresh one per report.

RAPPOR (Erlingsson et al., CCS 2014, Sec. 3) and the longitudinal chains of Arcolezi et
al. (arXiv 2111.04636, Sec. 3) randomize each user's value once with a lifetime budget
ε∞ and keep the answer; every report then randomizes that memo afresh, so that one
report is private at ε₁ < ε∞ and no number of reports ever reveals more than ε∞ about
the value (the reports are post-processing of the memo). The parameters are chosen from
the two budgets as Arcolezi et al. do: the permanent round is the chain's first protocol
at ε∞; the fresh round is its second protocol at the ε₂ that makes one report's worst
ratio exactly ``e^{ε₁}`` (:func:`ldpcore.protocols.rounds.solve_fresh_round`).

Here a memoized protocol's ``epsilon`` is ε₁, one report's budget, as for every other
protocol, so that the pages compare it with the one-shot protocols at the same ε per
report; ``epsilon_inf`` is ε∞, by default twice ε₁ (our choice; Arcolezi et al. study
ε₁ as a fraction of ε∞).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, cast

from numpy.typing import ArrayLike

from ldpcore import bounds
from ldpcore._validation import check_real
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.parameters import ProtocolParameter
from ldpcore.protocols.rounds import Chain, ChainRatio, ChainShape, FreshRound, solve_fresh_round
from ldpcore.rng import ClientRNG, as_source

#: ε∞ over ε₁ when ε∞ is not given.
DEFAULT_LIFETIME_FACTOR = 2.0


@dataclass(frozen=True, kw_only=True)
class Memoized(FrequencyOracle):
    """The chain's two budgets and rounds; mixed in before GRR or a unary encoding.

    A subclass names its permanent round (``first_round``: a protocol class, run at ε∞),
    the shape of its memo and its fresh round; ``p`` and ``q`` are then one report's
    compound probabilities, and the parent's sampler, estimator and likelihood apply to
    one round unchanged (:mod:`ldpcore.protocols.rounds`).

    Parameters
    ----------
    epsilon_inf : float, optional
        ε∞, the lifetime budget per value, at least ε (default ``2ε``, at most
        ``bounds.EPSILON_MAX``).
    """

    first_round: ClassVar[type[FrequencyOracle]]
    memo_shape: ClassVar[ChainShape]
    fresh_round: ClassVar[FreshRound]
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = (
        ProtocolParameter(
            "epsilon_inf",
            "a memoized protocol's lifetime ε per value, at least ε (default 2ε)",
            bounds.EPSILON_MIN,
            whole=False,
            default=lambda epsilon, _d: min(DEFAULT_LIFETIME_FACTOR * epsilon, bounds.EPSILON_MAX),
            examples=((1.0, 8), (2.0, 8)),
        ),
    )

    epsilon_inf: float = None  # type: ignore[assignment]  # None: 2ε, set in __post_init__

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The permanent round's protocol, drawn afresh at every report, is the one-shot form.
        if "first_round" in vars(cls):
            cls.one_shot = cls.first_round

    def __post_init__(self) -> None:
        super().__post_init__()
        given: float | None = self.epsilon_inf
        if given is None:
            given = min(DEFAULT_LIFETIME_FACTOR * self.epsilon, bounds.EPSILON_MAX)
        lifetime = check_real(
            given, name="epsilon_inf", minimum=bounds.EPSILON_MIN, maximum=bounds.EPSILON_MAX
        )
        if lifetime < self.epsilon:
            raise InputError(
                f"epsilon_inf (the lifetime ε per value, {lifetime:g}) must be at least "
                f"epsilon (one report's, {self.epsilon:g})"
            )
        object.__setattr__(self, "epsilon_inf", lifetime)
        _ = self.chain  # solved now, so that a budget no fresh round reaches is refused here

    def parameters(self) -> dict[str, Any]:
        """Constructor arguments, including ``epsilon_inf``."""
        return {**super().parameters(), "epsilon_inf": self.epsilon_inf}

    @cached_property
    def chain(self) -> Chain:
        """The permanent round at ε∞ and the fresh round that brings one report to ε₁."""
        first = self.first_round(epsilon=self.epsilon_inf, domain_size=self.domain_size)
        ratio = ChainRatio(self.memo_shape, self.domain_size, first.p, first.q, self.fresh_round)
        u = solve_fresh_round(ratio, target=math.exp(self.epsilon), upper=math.exp(-self.epsilon))
        return ratio.chain(u)

    def rounds_chain(self) -> Chain:
        """The memoizing chain."""
        return self.chain

    @property
    def p(self) -> float:
        """One report supports the user's value: ``p₁p₂ + (1 − p₁)q₂``."""
        return self.chain.p

    @property
    def q(self) -> float:
        """One report supports another value: ``q₁p₂ + (1 − q₁)q₂``."""
        return self.chain.q

    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> Any:
        """The real client, for one report: the permanent round, then a fresh one.

        A deployment keeps each user's memo between reports (``chain.memoize`` once,
        ``chain.report`` per round); one report of a new memo has the same law.
        """
        chain = self.chain
        # One stream for both rounds (a seed given twice would repeat its draws); as_source
        # gives a Generator or the secure source, each a ClientRNG.
        source = cast(ClientRNG, as_source(rng))
        return chain.report(chain.memoize(self._values(values), source), source)


__all__ = ["DEFAULT_LIFETIME_FACTOR", "Memoized"]
