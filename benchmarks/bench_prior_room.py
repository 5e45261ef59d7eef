"""How much a prior that treats the values alike could help, against what Bayes gets (issue 39).

Item 2 of issue 39 asks Bayes's MSE to be lower than the MLE's "wherever the prior can
help (small n)". This measures how much help there is to have, on the same collections
as ``bench_learned_prior.py`` (Zipf(1.5), d = 64; collection ``i`` drawn with seed ``i``):

* **Bayes**: the default learned prior (α sampled with the distribution);
* **Dirichlet(α)** at fixed α: the posterior mean under each α of a grid, by the same
  pair sampler (:func:`ldpcore.stats.pair_gibbs.run`) with α held fixed; its best α is
  chosen *after* seeing the errors, so it is what an oracle tuning α would get;
* **oracle, separable**: ``E[π_v | c_v]`` when ``π_v`` is known to be one of the true
  frequencies, each equally likely (a prior that knows the set of frequencies but not
  which value holds which), with the support count's binomial
  ``c_v ~ Bin(n, q + (p − q) π_v)`` (exact for GRR's multinomial cells; for the
  other protocols the sum of two binomials it approximates). Of the rules that apply
  one function to each value's own count, it has the least expected error (the
  compound decision problem; Robbins 1951); a yardstick, not a bound, for rules that
  look at all counts (as the MLE and Bayes do).

Each is compared with the MLE on the same collections (paired ratios of mean squared
error, simultaneous 95% intervals: :func:`ldpcore.stats.compare.compare`).

Usage::

    .venv/bin/python benchmarks/bench_prior_room.py --runs 80
    .venv/bin/python benchmarks/bench_prior_room.py --runs 240 --only GRR --epsilon 2
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence

import numpy as np
from scipy import stats

from ldpcore.data.datasets import zipf
from ldpcore.postprocess import Bayes
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.protocols import get_protocol
from ldpcore.stats.compare import compare
from ldpcore.stats.pair_gibbs import SeparableLikelihood, run

PROTOCOLS = ("GRR", "OLH", "OUE", "SS", "HR")
ALPHAS = (0.01, 0.03, 0.1, 0.3)
CHAINS, WARMUP, KEPT = 12, 300, 600


def fixed_alpha_draws(
    likelihood: SeparableLikelihood, start: np.ndarray, alpha: float, seed: int
) -> np.ndarray:
    """Draws of π under Dirichlet(α, …, α), shape (draws, d), by the pair sampler."""
    rng = np.random.default_rng(seed)
    d = start.size
    log_pi = np.tile(np.log((start + alpha / d) / (1.0 + alpha)), (CHAINS, 1))
    concentration = np.full(d, alpha)
    run(log_pi, concentration, likelihood, rng, steps=WARMUP, keep=False)
    draws, _, _ = run(log_pi, concentration, likelihood, rng, steps=KEPT, keep=True)
    assert draws is not None
    return draws.reshape(-1, d)


def fixed_alpha_mean(
    likelihood: SeparableLikelihood, start: np.ndarray, alpha: float, seed: int
) -> np.ndarray:
    """The posterior mean under Dirichlet(α, …, α), by the pair sampler with α fixed."""
    mean = fixed_alpha_draws(likelihood, start, alpha, seed).mean(axis=0)
    return mean / mean.sum()


def oracle_separable(
    support: np.ndarray, truth: np.ndarray, n: int, p: float, q: float
) -> np.ndarray:
    """``E[π_v | c_v]`` under "π_v is one of the true frequencies, each equally likely"."""
    rate = q + (p - q) * truth
    weights = stats.binom.pmf(np.rint(support)[:, None], n, rate[None, :])
    return (weights * truth[None, :]).sum(axis=1) / weights.sum(axis=1)


def measure(protocol: str, epsilon: float, n: int, *, runs: int, d: int = 64) -> str:
    """One row of the table, as Markdown."""
    data = zipf(d, n, 1.5)
    truth = data.frequencies()
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=d)
    p, q = oracle.p, oracle.q
    names = ["MLE", "Bayes", *(f"α = {a:g}" for a in ALPHAS), "oracle"]
    errors = np.empty((len(names), runs))
    alphas = []
    for seed in range(runs):
        support = oracle.sample_support_counts(data.counts, np.random.default_rng(seed))
        estimate = oracle.estimate(support, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotConverged)
            posterior = Bayes().posterior(estimate, protocol=oracle, n=n)
        assert posterior.concentration is not None
        alphas.append(posterior.concentration.median)
        misses = np.zeros(d) if protocol == "GRR" else n - np.asarray(support, dtype=float)
        likelihood = SeparableLikelihood(np.asarray(support, dtype=float), misses, p, q, estimate)
        means = [posterior.mle, posterior.mean]
        means += [fixed_alpha_mean(likelihood, posterior.mle, a, seed) for a in ALPHAS]
        means.append(oracle_separable(np.asarray(support, dtype=float), truth, n, p, q))
        errors[:, seed] = [np.mean((m - truth) ** 2) for m in means]
    versus = {c.method: c for c in compare(errors, names, reference="MLE", margin=0.0)}

    def cell(name: str) -> str:
        c = versus[name]
        return f"{c.ratio:.3f} [{c.low:.3f}, {c.high:.3f}]"

    best = min(ALPHAS, key=lambda a: versus[f"α = {a:g}"].ratio)
    return (
        f"| {protocol} | {epsilon:g} | {n:,} | {runs} | {cell('Bayes')} | "
        f"{float(np.median(alphas)):.3f} | {best:g} | {cell(f'α = {best:g}')} | "
        f"{cell('oracle')} |"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Print the table of benchmarks/README.md ("How much a prior could help")."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=80, help="collections per row")
    parser.add_argument("--only", choices=PROTOCOLS, help="one protocol's rows")
    parser.add_argument("--epsilon", type=float, choices=(0.5, 2.0), help="one ε's rows")
    parser.add_argument("--n", type=int, default=100, help="users (default 100)")
    args = parser.parse_args(argv)
    print(
        "| protocol | ε | n | collections | Bayes/MLE | α (median) | best fixed α | "
        "its ratio to the MLE | oracle, separable |"
    )
    print("|---|---:|---:|---:|---|---:|---:|---|---|")
    for protocol in (args.only,) if args.only else PROTOCOLS:
        for epsilon in (args.epsilon,) if args.epsilon else (0.5, 2.0):
            print(measure(protocol, epsilon, args.n, runs=args.runs), flush=True)
    print(f"\nFixed α: {CHAINS} chains, {WARMUP} steps of warmup, {KEPT} kept.")


if __name__ == "__main__":
    main()
