"""Which post-processing method to use: paired rankings of a run's methods.

:func:`rank_methods` ranks any run's methods with paired intervals
(:mod:`ldpcore.stats.compare`); :func:`recommend_on_stand_in` makes one consistent
stand-in for the unknown truth from the Base estimate (Norm-Sub or PowerNS of it, NDSS
Sec. V-D), simulates on it and ranks the methods for the query that matters. What a
person gets by default draws truths from the posterior instead
(:func:`ldpcore.advice.unknown_truth.recommend`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ldpcore._json import json_value
from ldpcore.advice.verdicts import Verdict, total_factors, verdict
from ldpcore.data.datasets import round_to_total
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import ExperimentResult, run
from ldpcore.postprocess import (
    default_method_names,
    get_method,
    method_class,
    resolve_method_name,
)
from ldpcore.protocols import FrequencyOracle
from ldpcore.queries.specs import parse_query_spec


@dataclass(frozen=True)
class Recommendation:
    """The ranking of methods for a query, and what it supports saying.

    Attributes
    ----------
    ranking : DataFrame
        One row per method, best (lowest mean MSE) first: ``rank, method, mse, mse_std,
        mse_ratio_to_best, ratio_low, ratio_high, mse_ratio_to_base, base_ratio_low,
        base_ratio_high, better_than_base, no_op``. Ratios are paired on the same trials,
        intervals simultaneous over the methods (:mod:`ldpcore.stats.compare`).
    verdict : Verdict
        The recommended method, whether it is significantly better than Base, and a
        headline in words.
    """

    ranking: pd.DataFrame
    verdict: Verdict

    def ranks(self) -> dict[str, int]:
        """Each method's rank in :attr:`ranking` (by mean MSE, 1 the lowest)."""
        pairs = zip(self.ranking["method"], self.ranking["rank"], strict=True)
        return {str(method): int(rank) for method, rank in pairs}

    @property
    def recommended(self) -> str:
        """The method to use."""
        return self.verdict.recommended

    @property
    def significant(self) -> bool:
        """Whether the recommended method is significantly more accurate than Base."""
        return self.verdict.helps

    def to_json_dict(self, query: str, headline: str, note: str = "") -> dict[str, object]:
        """``ldpcore recommend --format json``: the ranking with its intervals.

        ``headline`` is the verdict in words
        (:func:`ldpcore.present.sentences.verdict_headline`); ``note`` why the
        recommended method is not first in the ranking, if it is not
        (:func:`ldpcore.present.sentences.ranking_note`).
        """
        return {
            "query": query,
            "recommended": self.recommended,
            "significant": self.significant,
            "headline": headline,
            "ranking_note": note,
            "ranking": [
                {key: json_value(value) for key, value in record.items()}
                for record in self.ranking.to_dict("records")
            ],
        }


def consistent_methods(methods: Sequence[str]) -> tuple[str, ...]:
    """Of ``methods``, those the registry says always return a distribution.

    That is non-negative and summing to one (``"yes"`` for both in the metadata), in
    the order given, except that Norm-Sub (the paper's general recommendation, NDSS
    Sec. V-D) comes first when present.
    """
    proper = [
        m
        for m in methods
        if (method_class(m).nonnegative, method_class(m).sums_to_one) == ("yes", "yes")
    ]
    return tuple(sorted(proper, key=lambda m: m != "Norm-Sub"))


def no_op_methods(methods: Sequence[str], protocol: FrequencyOracle) -> tuple[str, ...]:
    """Of ``methods``, those the registry declares a no-op for ``protocol``."""
    return tuple(m for m in methods if get_method(m).is_no_op(protocol))


def asked_factors(result: ExperimentResult) -> dict[str, float] | None:
    """Each method's answers in total, as a multiple of the truth's, on some values.

    :func:`ldpcore.advice.verdicts.total_factors`; None for a question about every value
    at once, which MSE alone answers.
    """
    if result.config.query.whole_domain:
        return None
    found = total_factors(result.answers, result.truth)
    methods = result.config.methods
    return {m: float(f) for m, f in zip(methods, found, strict=True) if np.isfinite(f)}


def rank_methods(
    result: ExperimentResult, protocol: FrequencyOracle, *, query_words: str = "the query"
) -> Recommendation:
    """Rank the methods of a run by mean MSE, with paired intervals and a verdict."""
    names = list(result.config.methods)
    if "Base" not in names:
        raise InputError("ranking methods needs Base among them (the reference)")
    errors = result.trial_errors
    no_ops = no_op_methods(names, protocol)
    found = verdict(
        errors,
        names,
        no_ops=no_ops,
        consistent=consistent_methods(names),
        query=query_words,
        against_base=result.against_base or None,  # the summary's own comparisons
        factors=asked_factors(result),
    )
    measured = [(str(row["method"]), row["mse"], row["mse_std"]) for row in result.rows]
    return ranked(measured, found)


def ranked(measured: Sequence[tuple[str, float, float]], found: Verdict) -> Recommendation:
    """The ranking table of ``(method, mse, mse_std)`` rows beside a verdict's intervals."""
    to_base = {c.method: c for c in found.against_base}
    to_best = {c.method: c for c in found.against_best}
    rows = []
    for name, mse, mse_std in measured:
        best = to_best.get(name)
        base = to_base.get(name)
        rows.append(
            {
                "method": name,
                "mse": mse,
                "mse_std": mse_std,
                "mse_ratio_to_best": 1.0 if best is None else best.ratio,
                "ratio_low": 1.0 if best is None else best.low,
                "ratio_high": 1.0 if best is None else best.high,
                "mse_ratio_to_base": 1.0 if base is None else base.ratio,
                "base_ratio_low": 1.0 if base is None else base.low,
                "base_ratio_high": 1.0 if base is None else base.high,
                "better_than_base": bool(base is not None and base.better),
                "no_op": bool(base is not None and base.no_op),
            }
        )
    ranking = pd.DataFrame(rows).sort_values("mse", kind="stable").reset_index(drop=True)
    ranking.insert(0, "rank", np.arange(1, len(ranking) + 1))
    return Recommendation(ranking, found)


def recommend_on_stand_in(
    estimate: ArrayLike,
    *,
    protocol: FrequencyOracle,
    n: int,
    query: str = "full",
    methods: Sequence[str] | None = None,
    trials: int = 20,
    seed: int = 0,
    truth_from: str = "Norm-Sub",
    groups: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Recommendation:
    """Rank post-processing methods on one stand-in for the truth (NDSS Sec. V-D).

    Every method is simulated on the same trials on the consistent stand-in that
    ``truth_from`` makes of the estimate, and compared with Base and with the best method
    by paired ratios of mean squared error with simultaneous intervals
    (:mod:`ldpcore.stats.compare`). Those intervals hold for the stand-in, not for the
    unknown truth: :func:`ldpcore.advice.unknown_truth.recommend` draws truths from the
    posterior instead, by default. Base is always simulated, as the reference.

    Parameters
    ----------
    estimate : array_like
        The Base estimate that was collected.
    protocol : FrequencyOracle
        The protocol that produced it.
    n : int
        Number of users.
    query : str
        The query that matters (see :func:`ldpcore.queries.specs.parse_query`).
    methods : sequence of str, optional
        Candidates (default: all).
    trials, seed : int
        Simulation size and seed.
    truth_from : {"Norm-Sub", "PowerNS"}
        The method that makes the consistent stand-in.
    groups : sequence of str, optional
        The group of each value, for the ``groups`` query.
    progress : callable, optional
        Called as ``progress(done, total)`` as the simulated trials finish.

    Returns
    -------
    Recommendation
        The ranking (best first, with intervals) and the verdict.
    """
    if truth_from not in STAND_INS:
        raise InputError(f"truth_from must be 'Norm-Sub' or 'PowerNS', got {truth_from!r}")
    wanted = default_method_names() if methods is None else tuple(methods)
    counts = stand_in_truth(estimate, protocol=protocol, n=n, truth_from=truth_from)
    extras = protocol.parameters()
    config = ExperimentConfig(
        dataset=f"synthetic truth ({truth_from} of the estimate)",
        n=n,
        protocol=protocol.name,
        epsilon=protocol.epsilon,
        methods=("Base", *wanted),
        query=query,
        trials=trials,
        seed=seed,
        params={
            key: value for key, value in extras.items() if key not in {"epsilon", "domain_size"}
        },
        true_counts=counts,
        groups=None if groups is None else tuple(groups),
    )
    result = run(config, progress=progress)
    found = rank_methods(result, protocol, query_words=parse_query_spec(query).in_words())
    return without_base_unless_asked(found, wanted)


#: The methods whose output can stand in for the truth (NDSS Sec. V-D).
STAND_INS = ("Norm-Sub", "PowerNS")


def stand_in_truth(
    estimate: ArrayLike,
    *,
    protocol: FrequencyOracle,
    n: int,
    truth_from: str,
) -> tuple[int, ...]:
    """The histogram of ``n`` users that ``truth_from`` makes of the estimate (NDSS Sec. V-D)."""
    stand_in = get_method(truth_from)(estimate, protocol=protocol, n=n)
    return tuple(int(c) for c in round_to_total(stand_in, n))


def without_base_unless_asked(found: Recommendation, wanted: Sequence[str]) -> Recommendation:
    """Base is the reference, not a candidate, unless asked for.

    When no candidate beats it and none is a consistent method at no significant cost,
    Base is what is recommended, and its row stays so the recommendation has one.
    """
    asked = {resolve_method_name(m) for m in wanted}
    if "Base" not in asked and found.recommended != "Base":
        ranking = found.ranking[found.ranking["method"] != "Base"].reset_index(drop=True)
        ranking["rank"] = np.arange(1, len(ranking) + 1)
        return Recommendation(ranking, found.verdict)
    return found
