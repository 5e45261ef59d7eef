"""Coverage oracles: what the coverage benchmark and the tests both measure with.

The paired ratio intervals' coverage over blocks of trials (:func:`measure` on
:func:`pooled_errors`), the per-value intervals' (:func:`value_coverage` on Zipf data,
:func:`real_value_coverage` value by value on real histograms) and Bayes's
credible intervals' (:func:`credible_coverage`); ``benchmarks/bench_coverage.py``
prints their tables, ``tests/reproduce/test_reproduce.py`` checks a small case.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence

import numpy as np

from ldpcore.data.datasets import Dataset, zipf
from ldpcore.data.specs import parse_dataset_spec
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.postprocess import JEFFREYS, Bayes, get_method
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.postprocess.intervals import frequency_intervals
from ldpcore.protocols import get_protocol
from ldpcore.stats.compare import ALPHA, compare

CONFIGURATIONS = {
    "OLH, ε = 1, n = 10⁵, Zipf 1.5, d = 256, full query": ExperimentConfig(
        dataset="zipf:d=256,s=1.5", n=100_000, protocol="OLH", epsilon=1.0, query="full"
    ),
    "GRR, ε = 2, n = 10⁴, Zipf 1.5, d = 64, top-10": ExperimentConfig(
        dataset="zipf:d=64,s=1.5", n=10_000, protocol="GRR", epsilon=2.0, query="topk:k=10"
    ),
}


@dataclasses.dataclass(frozen=True)
class Coverage:
    """Measured coverage of one interval kind on one configuration."""

    label: str
    interval: str
    blocks: int
    joint: float
    per_method: dict[str, float]
    true_ratio: dict[str, float]


def pooled_errors(config: ExperimentConfig, trials: int) -> np.ndarray:
    """Per-trial MSE of every method over ``trials`` trials, shape (methods, trials)."""
    chunks = []
    done = 0
    step = 500  # in chunks: a run keeps every answer of every trial in memory
    while done < trials:
        size = min(step, trials - done)
        part = run(dataclasses.replace(config, trials=size, seed=config.seed + done))
        chunks.append(part.trial_errors)
        done += size
    return np.concatenate(chunks, axis=1)


def measure(
    label: str,
    pool: np.ndarray,
    names: Sequence[str],
    *,
    block: int,
    interval: str,
    no_ops: Sequence[str] = (),
    alpha: float = ALPHA,
) -> Coverage:
    """Coverage of ``interval`` over disjoint blocks of ``block`` trials of ``pool``.

    Methods whose errors equal Base's in every trial of the pool are left out (their
    comparison is "same answers", with no interval to cover anything).
    """
    base = pool[names.index("Base")]
    truth = pool.mean(axis=1) / base.mean()
    blocks = pool.shape[1] // block
    checked = [
        i for i, name in enumerate(names) if name != "Base" and not np.array_equal(pool[i], base)
    ]
    held = np.zeros((blocks, len(checked)), dtype=bool)
    for b in range(blocks):
        part = pool[:, b * block : (b + 1) * block]
        found = compare(
            part, names, reference="Base", no_ops=no_ops, interval=interval, alpha=alpha
        )
        by_name = {c.method: c for c in found}
        for k, i in enumerate(checked):
            c = by_name[names[i]]
            held[b, k] = c.no_op or (c.low <= truth[i] <= c.high)
    return Coverage(
        label,
        interval,
        blocks,
        float(held.all(axis=1).mean()),
        {names[i]: float(held[:, k].mean()) for k, i in enumerate(checked)},
        {names[i]: float(truth[i]) for i in checked},
    )


def value_coverage(
    protocol: str,
    epsilon: float,
    n: int,
    *,
    d: int = 64,
    runs: int = 200,
    level: float = 0.95,
    methods: Sequence[str] = ("Base", "Norm-Sub", "MLE"),
) -> dict[str, tuple[float, float]]:
    """How often each method's per-value interval holds the true frequency.

    Zipf(1.5) over ``d`` values; ``runs`` collections (each its own seed). Returns, per
    method, the rate for frequent values (the top 10%) and for rare ones (bottom half).
    """
    data = zipf(d, n, 1.5)
    order = np.argsort(-data.frequencies(), kind="stable")
    frequent, rare = order[: max(1, d // 10)], order[d // 2 :]
    held, _ = _held_per_value(data, protocol, epsilon, runs=runs, level=level, methods=methods)
    return {
        name: (float(rows[:, frequent].mean()), float(rows[:, rare].mean()))
        for name, rows in held.items()
    }


def _held_per_value(
    data: Dataset,
    protocol: str,
    epsilon: float,
    *,
    runs: int,
    level: float,
    methods: Sequence[str],
) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """Whether each method's interval held each value's truth, and its zero-width count.

    A row per collection, each its own seed.
    """
    truth, n = data.frequencies(), data.n
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=data.domain_size)
    held = {name: np.zeros((runs, data.domain_size), bool) for name in methods}
    points = dict.fromkeys(methods, 0)
    for seed in range(runs):
        support = oracle.sample_support_counts(data.counts, np.random.default_rng(seed))
        estimate = oracle.estimate(support, n)
        for name in methods:
            point = get_method(name)(estimate, protocol=oracle, n=n)
            low, high = frequency_intervals(
                estimate, protocol=oracle, n=n, level=level, point=point
            )
            held[name][seed] = (low <= truth) & (truth <= high)
            points[name] += int(np.sum(high <= low))
    return held, points


@dataclasses.dataclass(frozen=True)
class ValueCoverage:
    """How one method's per-value intervals did over many collections of one histogram.

    ``groups`` maps a group of values (the most frequent 10%, the rarest half, the values
    held by at most :data:`FEW_USERS` users) to the share of its value-collections
    covered; ``worst`` is the lowest coverage of any single value over the collections,
    ``below`` the share of values covered in under 90% of them, and ``points`` how many
    intervals had zero width.
    """

    groups: dict[str, float]
    worst: float
    below: float
    points: int


#: "Few users": the values a zero-width interval hid (a lecturer rated once or twice).
FEW_USERS = 5


def real_value_coverage(
    dataset: str,
    protocol: str,
    epsilon: float,
    n: int,
    *,
    runs: int = 200,
    level: float = 0.95,
    methods: Sequence[str] = ("Base", "Norm-Sub", "MLE"),
) -> dict[str, ValueCoverage]:
    """Per-value coverage of the intervals on a real histogram, value by value.

    ``runs`` collections (each its own seed) of the bundled ``dataset`` at ``n`` users;
    every value is checked, and grouped as :class:`ValueCoverage` says.
    """
    data = parse_dataset_spec(dataset).build(n)
    order = np.argsort(-data.frequencies(), kind="stable")
    d = data.domain_size
    groups = {
        "frequent": order[: max(1, d // 10)],
        "rare": order[d // 2 :],
        "few": np.flatnonzero(data.counts <= FEW_USERS),
    }
    held, points = _held_per_value(data, protocol, epsilon, runs=runs, level=level, methods=methods)
    found = {}
    for name, rows in held.items():
        each = rows.mean(axis=0)
        found[name] = ValueCoverage(
            {g: float(rows[:, at].mean()) if at.size else math.nan for g, at in groups.items()},
            float(each.min()),
            float(np.mean(each < 0.9)),
            points[name],
        )
    return found


def credible_coverage(
    protocol: str, epsilon: float, n: int, *, d: int = 64, runs: int = 100
) -> tuple[dict[float, tuple[float, float]], float]:
    """How often Bayes's credible intervals (Jeffreys' prior) hold the true frequency.

    As :func:`value_coverage`, at levels 0.9 and 0.95 from one posterior per collection.
    The truth is fixed (Zipf), not drawn from the prior: this is the frequentist coverage
    a person relying on the interval gets, which a prior can raise or lower. Also the
    median :attr:`~ldpcore.postprocess.posterior.Posterior.prior_pull`.
    """
    data = zipf(d, n, 1.5)
    truth = data.frequencies()
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=d)
    order = np.argsort(-truth, kind="stable")
    frequent, rare = order[: max(1, d // 10)], order[d // 2 :]
    held: dict[float, list[np.ndarray]] = {0.9: [], 0.95: []}
    pulls = []
    sampler = Bayes(prior=JEFFREYS)  # the table's prior (the default learned one has its own)
    for seed in range(runs):
        support = oracle.sample_support_counts(data.counts, np.random.default_rng(seed))
        estimate = oracle.estimate(support, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotConverged)  # counted in bench_bayes.py
            posterior = sampler.posterior(estimate, protocol=oracle, n=n)
        pulls.append(posterior.prior_pull)
        for level, rows in held.items():
            low, high = posterior.interval(level)
            rows.append((low <= truth) & (truth <= high))
    found = {
        level: (
            float(np.mean(np.array(rows)[:, frequent])),
            float(np.mean(np.array(rows)[:, rare])),
        )
        for level, rows in held.items()
    }
    return found, float(np.median(pulls))
