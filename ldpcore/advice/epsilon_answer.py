"""What Choose ε answers, per protocol: the ε to use, Base's, and the method.

The result types of :func:`ldpcore.advice.epsilon_search.choose_epsilon`; the search
itself is in :mod:`ldpcore.advice.epsilon_search`, and the answer in words (the table
the page, the record and the notebook show) in :mod:`ldpcore.present.sentences`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ldpcore._json import json_value
from ldpcore.advice.targets import AccuracyTarget
from ldpcore.advice.verdicts import Verdict
from ldpcore.formats import round_up
from ldpcore.stats.compare import Comparison


@dataclass(frozen=True)
class ConsistentOption:
    """A method that gives a proper distribution, offered at Base's ε when none helps.

    Attributes
    ----------
    method : str
        The consistent method (non-negative, sums to one).
    rmse_at_epsilon : float
        Its measured RMSE at the ε recommended (Base's).
    comparison : Comparison
        Its MSE against Base's at that ε, paired on the same trials, with the interval.
    target : float or None
        The target's size asked for (the RMSE, or the ±x; None: not known to this record).
    epsilon_for_target : float or None
        Where it does not surely meet the target at that ε: about the ε from which its
        mean measure does, read off the evaluated points (None: beyond the range
        searched).
    error_at_epsilon : float or None
        Its measure at that ε in the target's terms (the RMSE for an RMSE target, the
        margin for a "within" one; None: the RMSE is the measure).
    error_high : float or None
        The upper end of that measure's 95% band (mean + t·SE over the trials): it
        meets the target at that ε only when this does, as the main answer's method is
        credited only where its band says so.
    epsilon_low, epsilon_high : float or None
        ``epsilon_for_target``'s 95% interval: where the band's lower and upper edges
        cross the target (None: not crossed in range).
    kind : str
        The target's kind (:data:`ldpcore.advice.targets.TARGET_KINDS`).
    level : float
        How often a "within" target must hold.
    measured_at : float or None
        The ε it was measured at when Base meets the target nowhere in the range (the
        range's end); None: at Base's ε.
    searched_to : float or None
        The largest ε the search evaluated: a crossing not found was looked for up to
        there, not to the range's end (None: not known to this record).
    """

    method: str
    rmse_at_epsilon: float
    comparison: Comparison
    target: float | None = None
    epsilon_for_target: float | None = None
    error_at_epsilon: float | None = None
    kind: str = "rmse"
    level: float = 0.95
    error_high: float | None = None
    epsilon_low: float | None = None
    epsilon_high: float | None = None
    measured_at: float | None = None
    searched_to: float | None = None

    @property
    def error(self) -> float:
        """Its measure at that ε, in the target's terms."""
        return self.rmse_at_epsilon if self.error_at_epsilon is None else self.error_at_epsilon

    @property
    def meets_target(self) -> bool | None:
        """Whether its band's upper end at that ε is within the target (None: no target)."""
        if self.target is None:
            return None
        return (self.error if self.error_high is None else self.error_high) <= self.target

    def to_json_dict(self) -> dict[str, object]:
        """The ``consistent_option`` record of ``choose-epsilon --format json``."""
        return {
            "method": self.method,
            "rmse_at_epsilon": json_value(self.rmse_at_epsilon),
            "error_at_epsilon": json_value(self.error),
            "mse_ratio_to_base": json_value(self.comparison.ratio),
            "ratio_low": json_value(self.comparison.low),
            "ratio_high": json_value(self.comparison.high),
            "error_high": json_value(self.error_high),
            "meets_target": self.meets_target,
            "epsilon_for_target": json_value(self.epsilon_for_target),
            "epsilon_for_target_low": json_value(self.epsilon_low),
            "epsilon_for_target_high": json_value(self.epsilon_high),
            "measured_at_epsilon": json_value(self.measured_at),
            "searched_up_to_epsilon": json_value(self.searched_to),
        }


@dataclass(frozen=True)
class EpsilonAnswer:
    """For one protocol: the ε to use, Base's ε, with intervals, and the method to use.

    The ε to use is never above Base's: a method is recommended over Base only when it
    is significantly more accurate at Base's ε (paired, simultaneous over the methods)
    *and* its ε interval lies wholly below Base's; otherwise the answer is Base at its
    own ε, with a consistent method offered at that ε (:class:`ConsistentOption`).
    Every method comes from the same simulated trials (common random numbers). Base's ε
    is exact (NDSS Eq. 3) for single-value queries; elsewhere ``*_low``/``*_high``
    bound where the RMSE curve's 95% band (mean ± t·SE) crosses the target. None where
    the target is not met for any ε up to :data:`EPSILON_RANGE`'s end.

    Attributes
    ----------
    protocol, method : str
        The protocol and the recommended method.
    epsilon, epsilon_low, epsilon_high : float or None
        The recommended method's smallest ε and its interval.
    base_epsilon, base_epsilon_low, base_epsilon_high : float or None
        The same for Base (no post-processing).
    post_processing_helps : bool
        True only when the method is significantly more accurate than Base at Base's
        ε (paired, simultaneous over the candidates) *and* its ε interval lies wholly
        below Base's. When False, ``method`` is Base and ``epsilon`` Base's.
    comparison : Comparison or None
        The method against Base at Base's ε (None when the method is Base).
    verdict : Verdict
        The paired verdict at ``compared_at`` (why this method:
        :func:`ldpcore.present.epsilon_sentences.epsilon_reason` says it in words).
    compared_at : float
        The ε at which the methods were compared (Base's, or the nearest point).
    curve : tuple of dict
        Every evaluated point: ``epsilon, method, rmse, rmse_low, rmse_high``.
    consistent_option : ConsistentOption or None
        When post-processing does not help: a method that gives a proper distribution,
        with its RMSE and paired ratio to Base at the ε recommended.
    base_exact : bool
        Whether Base's ε is exact (Eq. 3), not simulated.
    target : AccuracyTarget or None
        The target searched for (None: an RMSE target of a record that did not keep it).
    same_as : str or None
        The protocol whose search this answer is, when one report of ``protocol`` is
        one report of that protocol (a memoized chain's first round at the same ε): the
        same law gives the same answer, searched once.
    not_converged : tuple of str
        The iterative methods (IBU, MLE, EM, EMS) that stopped at their step cap rather
        than by their stopping rule in any trial of the search.
    """

    protocol: str
    method: str
    epsilon: float | None
    epsilon_low: float | None
    epsilon_high: float | None
    base_epsilon: float | None
    base_epsilon_low: float | None
    base_epsilon_high: float | None
    post_processing_helps: bool
    comparison: Comparison | None
    verdict: Verdict
    compared_at: float
    curve: tuple[dict[str, float | str], ...] = ()
    consistent_option: ConsistentOption | None = None
    base_exact: bool = False
    target: AccuracyTarget | None = None
    same_as: str | None = None
    not_converged: tuple[str, ...] = ()

    @property
    def variance_source(self) -> str:
        """Where Base's exact ε comes from: the protocol's ``variance_source``."""
        from ldpcore.protocols import protocol_class  # noqa: PLC0415 (the registry, when asked)

        return protocol_class(self.protocol).variance_source

    def to_json_dict(self) -> dict[str, object]:
        """The ``choose-epsilon --format json`` record."""
        keys = (
            "protocol",
            "method",
            "epsilon",
            "epsilon_low",
            "epsilon_high",
            "base_epsilon",
            "base_epsilon_low",
            "base_epsilon_high",
            "post_processing_helps",
            "same_as",
        )
        record: dict[str, object] = {key: getattr(self, key) for key in keys}
        # The ε as the page, the record and the table print it: rounded up to three
        # significant digits, so a specification copied from any of them meets the target.
        for key in ("epsilon", "base_epsilon"):
            value = getattr(self, key)
            record[f"{key}_as_shown"] = None if value is None else round_up(value)
        comparison = self.comparison
        record["mse_ratio_to_base"] = None if comparison is None else json_value(comparison.ratio)
        record["ratio_low"] = None if comparison is None else json_value(comparison.low)
        record["ratio_high"] = None if comparison is None else json_value(comparison.high)
        option = self.consistent_option
        record["consistent_option"] = None if option is None else option.to_json_dict()
        record["base_exact"] = self.base_exact
        record["target"] = None if self.target is None else self.target.to_json_dict()
        record["not_converged"] = list(self.not_converged)
        return record


def winning_answer(answers: Sequence[EpsilonAnswer]) -> EpsilonAnswer:
    """The answer with the smallest reachable ε (the first when none is reachable)."""
    reachable = [a for a in answers if a.epsilon is not None]
    return min(reachable, key=lambda a: a.epsilon or math.inf) if reachable else answers[0]
