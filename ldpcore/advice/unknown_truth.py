"""Ranking methods for a real collection, whose truth nobody knows.

A recommendation from collected estimates must simulate on some truth. A single
stand-in made from the estimate (NDSS Sec. V-D: Norm-Sub of it) is one guess, and a
systematically wrong one: Norm-Sub zeroes the noisy tail, so the stand-in is sparser than
any real distribution, and methods are ranked for data unlike the data. On the InstEval
lecturers' collected OUE counts (ε = 1, n = 73,421, top-10) it put Norm-Sub at 1.37× Base
(0.88–2.12) where the truth gives 0.62×.

Here the truths simulated on are drawn from the posterior of the distribution given the
collection (the project's Bayes posterior, learned prior: :mod:`ldpcore.postprocess.bayes`),
so they carry what the reports leave uncertain. Each method's MSE ratio to Base is
measured on every drawn truth (the same trials for every method of one truth), and its
interval is the central 95% of those ratios: where the true ratio lies, as far as the
collection tells. A method is better than Base only where that whole interval is below
1 and outside the practical margin, as for a paired comparison
(:mod:`ldpcore.stats.compare`).

The collection says little about the shape of the long tail, and on a question about
every value at once some methods' ratios depend on that shape most: PowerNS fits a power
law to it, Norm-Mul rescales what it keeps of it. Posterior draws under an exchangeable
Dirichlet prior have a rougher tail than a real histogram, so their intervals alone held
PowerNS's true ratio in 1 of 12 collections of countries. Each interval is therefore
widened to hold the ratios on two more truths, the stand-ins that bracket the tail's
shape: Norm-Sub's (sparser than any real tail) and PowerNS's (a smooth power law). The
coverage of these intervals over real histograms is measured, not assumed
(benchmarks/README.md, "Recommending for a collection").

The posterior is sampled briefly (two chains, a hundred draws each): the draws spread the
truths, they do not have to be a converged sample of every frequency. A domain beyond the
posterior's limit (:attr:`ldpcore.postprocess.bayes.Bayes.max_domain`) is refused in
words: there is no honest interval to give without it.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from ldpcore.advice.ranking import (
    STAND_INS,
    Recommendation,
    asked_factors,
    consistent_methods,
    no_op_methods,
    ranked,
    recommend_on_stand_in,
    stand_in_truth,
    without_base_unless_asked,
)
from ldpcore.advice.verdicts import verdict
from ldpcore.data.datasets import round_to_total
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.postprocess import default_method_names
from ldpcore.postprocess.bayes import Bayes
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.protocols import FrequencyOracle
from ldpcore.queries.specs import parse_query_spec
from ldpcore.stats.compare import Comparison, judge

#: How many truths are drawn from the posterior, and the share of their ratios an
#: interval holds.
TRUTHS = 20
LEVEL = 0.95
#: How many times a drawn truth's trials each stand-in gets: its ratio is one number,
#: not one of twenty, so it is measured more closely.
STAND_IN_TRIALS = 4


def plausible_truths(
    estimate: Sequence[float] | np.ndarray,
    *,
    protocol: FrequencyOracle,
    n: int,
    count: int = TRUTHS,
    seed: int = 0,
) -> list[tuple[int, ...]]:
    """``count`` histograms of ``n`` users drawn from the posterior given the estimate."""
    sampler = Bayes(chains=2, draws=25, seed=seed)
    sampler.check_domain(protocol.domain_size)
    with warnings.catch_warnings():
        # A brief chain: its draws spread the truths; no frequency is read off them.
        warnings.simplefilter("ignore", NotConverged)
        posterior = sampler.posterior(estimate, protocol=protocol, n=n)
    flat = posterior.draws.reshape(-1, protocol.domain_size)
    # Evenly through every chain's draws: far-apart draws are the least alike.
    picked = np.linspace(0, flat.shape[0] - 1, count).round().astype(int)
    return [tuple(int(c) for c in round_to_total(flat[i], n)) for i in picked]


def recommend_for_collection(
    estimate: Sequence[float] | np.ndarray,
    *,
    protocol: FrequencyOracle,
    n: int,
    query: str = "full",
    methods: Sequence[str] | None = None,
    trials: int = 10,
    seed: int = 0,
    groups: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    stand_ins: Sequence[str] = STAND_INS,
) -> Recommendation:
    """Rank methods for a collected estimate, the truth unknown (see the module notes).

    ``trials`` are simulated on each of :data:`TRUTHS` drawn truths, and
    :data:`STAND_IN_TRIALS` times as many on each of ``stand_ins``, whose ratios widen
    the intervals (``()`` for the drawn truths alone, as the coverage study compares);
    the other parameters are :func:`ldpcore.advice.ranking.recommend`'s.
    """
    wanted = default_method_names() if methods is None else tuple(methods)
    names = list(dict.fromkeys(("Base", *wanted)))
    drawn = plausible_truths(estimate, protocol=protocol, n=n, seed=seed)
    tails = [stand_in_truth(estimate, protocol=protocol, n=n, truth_from=s) for s in stand_ins]
    truths = [*drawn, *tails]
    extras = {k: v for k, v in protocol.parameters().items() if k not in {"epsilon", "domain_size"}}
    mse = np.empty((len(truths), len(names)))
    errors, factors = [], []
    for i, truth in enumerate(truths):
        config = ExperimentConfig(
            dataset="a truth drawn from the posterior given the collection"
            if i < len(drawn)
            else f"the {stand_ins[i - len(drawn)]} stand-in of the collection",
            n=n,
            protocol=protocol.name,
            epsilon=protocol.epsilon,
            methods=tuple(names),
            query=query,
            trials=trials if i < len(drawn) else STAND_IN_TRIALS * trials,
            seed=seed + i,
            params=extras,
            true_counts=truth,
            groups=None if groups is None else tuple(groups),
        )
        result = run(config)
        mse[i] = result.trial_errors.mean(axis=1)
        if i < len(drawn):
            errors.append(result.trial_errors)
            factors.append(asked_factors(result))
        if progress is not None:
            progress(i + 1, len(truths))
    no_ops = set(no_op_methods(names, protocol))

    def against(reference: str, *, no_op: Callable[[str], bool]) -> list[Comparison]:
        ratios = mse / mse[:, [names.index(reference)]]
        return [
            _comparison(
                name,
                reference,
                ratios[: len(drawn), k],
                dict(zip(stand_ins, (float(r) for r in ratios[len(drawn) :, k]), strict=True)),
                no_op=no_op(name),
            )
            for k, name in enumerate(names)
            if name != reference
        ]

    against_base = against("Base", no_op=lambda name: name in no_ops)
    pooled = np.concatenate(errors, axis=1)
    best = names[int(np.argmin(mse[: len(drawn)].mean(axis=0)))]
    mean_factors = None if factors[0] is None else _mean_factors(factors)
    found = verdict(
        pooled,
        names,
        no_ops=tuple(no_ops),
        consistent=consistent_methods(names),
        query=parse_query_spec(query).in_words(),
        against_base=against_base,
        factors=mean_factors,
    )
    # Against the best, the ratios over the same truths too (not the pooled trials).
    found = dataclasses.replace(found, against_best=against(best, no_op=lambda name: name == best))
    measured = [
        (name, float(mse[: len(drawn), k].mean()), float(mse[: len(drawn), k].std(ddof=1)))
        for k, name in enumerate(names)
    ]
    return ranked(measured, found)


def _comparison(
    method: str,
    reference: str,
    ratios: np.ndarray,
    bracket: dict[str, float],
    *,
    no_op: bool,
) -> Comparison:
    """The ratio over the drawn truths: their median and their central :data:`LEVEL`.

    The interval is widened to hold the ratio on each stand-in (``bracket``, by name).
    """
    if no_op:
        return Comparison(method, reference, 1.0, 1.0, 1.0, False, False, True, ratios.size)
    # The truths' ratios, not a paired bootstrap: the sentence says which.
    tail = 100 * (1 - LEVEL) / 2
    low, high = (float(v) for v in np.percentile(ratios, [tail, 100 - tail]))
    words = f"the middle {LEVEL:.0%} over {ratios.size} truths drawn from the posterior"
    if bracket:
        low = min(low, *bracket.values())
        high = max(high, *bracket.values())
        words += f", widened to the {' and '.join(bracket)} stand-ins' ratios"
    said = judge(low, high)  # the one verdict rule, as for a paired interval
    return Comparison(
        method,
        reference,
        float(np.median(ratios)),
        low,
        high,
        said == "lower",
        said == "higher",
        False,
        ratios.size,
        said == "about the same",
        words,
    )


def _mean_factors(found: list[dict[str, float] | None]) -> dict[str, float]:
    """Each method's total factor, averaged over the drawn truths."""
    names = set().union(*(f or {} for f in found))
    return {m: float(np.mean([f[m] for f in found if f and m in f])) for m in names}


#: Where :func:`recommend` takes the truths it simulates on.
TRUTH_SOURCES = ("posterior", *STAND_INS)


def recommend(
    estimate: Sequence[float] | np.ndarray,
    *,
    protocol: FrequencyOracle,
    n: int,
    query: str = "full",
    methods: Sequence[str] | None = None,
    trials: int = 20,
    seed: int = 0,
    truth_from: str = "posterior",
    groups: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Recommendation:
    """Rank post-processing methods for a collected estimate.

    The parameters are :func:`ldpcore.advice.ranking.recommend_on_stand_in`'s, ``trials``
    counted per drawn truth; ``truth_from`` is where the simulated truths come from:
    drawn from the posterior given the collection (``"posterior"``, the default:
    :func:`recommend_for_collection`, at most the Bayes method's 4,096 values), or the
    one stand-in ``"Norm-Sub"`` or ``"PowerNS"`` makes of the estimate, whose intervals
    hold for the stand-in, not for the unknown truth.

    Returns
    -------
    Recommendation
        The ranking (best first, with intervals) and the verdict.
    """
    if truth_from not in TRUTH_SOURCES:
        sources = ", ".join(TRUTH_SOURCES)
        raise InputError(f"truth_from must be one of {sources}, got {truth_from!r}")
    wanted = default_method_names() if methods is None else tuple(methods)
    if truth_from != "posterior":
        return recommend_on_stand_in(
            estimate,
            protocol=protocol,
            n=n,
            query=query,
            methods=wanted,
            trials=trials,
            seed=seed,
            truth_from=truth_from,
            groups=groups,
            progress=progress,
        )
    limit = Bayes.max_domain
    if limit is not None and protocol.domain_size > limit:
        raise InputError(
            f"the truth's posterior is drawn for at most {limit:,} values, and this "
            f"collection has {protocol.domain_size:,}: merge rare values first, or pass "
            "--truth-from Norm-Sub (one stand-in; its intervals then hold for the "
            "stand-in, not for the unknown truth)"
        )
    found = recommend_for_collection(
        np.asarray(estimate, dtype=np.float64),
        protocol=protocol,
        n=n,
        query=query,
        methods=wanted,
        trials=trials,
        seed=seed,
        groups=groups,
        progress=progress,
    )
    return without_base_unless_asked(found, wanted)


__all__ = [
    "LEVEL",
    "STAND_IN_TRIALS",
    "TRUTHS",
    "TRUTH_SOURCES",
    "plausible_truths",
    "recommend",
    "recommend_for_collection",
]
