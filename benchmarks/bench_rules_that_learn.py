"""Two empirical-Bayes rules at the row where no learned prior beats the MLE (issue 39, item 2).

At GRR, ε = 2, d = 64, n = 100 (Zipf(1.5); the row of ``bench_prior_room.py``) a
Dirichlet with α = 0.03 chosen *after* seeing the errors has 0.87 of the MLE's error,
but the learned prior (α sampled with π) gets 0.97, not significantly below 1. Marginal
likelihood points to α ≈ 0.2 (benchmarks/README.md, "Session 25"). This measures two
rules that choose from the reports by other means than the marginal likelihood:

* **α by an unbiased risk estimate.** Stein's idea (Stein 1981; for shrinkage's tuning
  number, Xie, Kou & Brown 2012): choose the α of a grid whose estimated squared error is
  least. For GRR the report counts are ``c ~ Multinomial(n, r)``, ``r_v = q + (p − q) π_v``
  (NDSS 2020, Sec. III-A, Eq. (1)), and for any function ``h``
  ``E[c_v h(c − e_v)] = n r_v E[h(c′)]`` with ``c′ ~ Multinomial(n − 1, r)`` (write the
  expectation as a sum and cancel ``c_v`` against the multinomial coefficient; the
  Poisson case is Hudson 1978). With ``Σ_v π̂_v = 1`` this makes

      R̂(α) = (1/n) Σ_v c_v ‖π̂(c − e_v)‖² − 2 [(1/n) Σ_v c_v π̂_v(c − e_v) − q] / (p − q)

  unbiased for ``E‖π̂(c′) − π‖² − ‖π‖²``, the risk with one user fewer. The posterior
  mean without one report at ``v`` comes from the same draws, weighted by ``1 / r_v(π)``
  (the likelihood's factor that report contributed; bounded by ``1/q``, so the weights
  are tame).
* **A nonparametric prior, fitted (NPMLE).** Kiefer & Wolfowitz (1956): the
  distribution ``G`` of the d frequencies, on a grid of 400 points in [0, 1], at the
  maximum of ``Π_v Σ_k G_k Bin(c_v; n, q + (p − q) x_k)`` (EM, Laird 1978); each value's
  estimate is its posterior mean under ``G`` (Robbins 1956; for normal means, Jiang &
  Zhang 2009), unnormalised and normalised to sum to one. A prior shaped like the
  frequencies, not a Dirichlet's one-parameter shape.

Also shown: each fixed α of the grid (what an oracle tuning α would choose from) and the
estimated against the realised error for each α, averaged over the collections (the
check that ``R̂`` is unbiased) with ``R̂``'s spread between collections and that of its
differences from α = 0.03 (what the choice must see through).

Paired ratios of mean squared error to the MLE's, simultaneous 95% intervals
(:func:`ldpcore.stats.compare.compare`); collection ``i`` drawn with seed ``i``.

Usage::

    .venv/bin/python benchmarks/bench_rules_that_learn.py --runs 240
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence

import numpy as np
from bench_prior_room import fixed_alpha_draws
from scipy import stats

from ldpcore.data.datasets import zipf
from ldpcore.postprocess import Bayes
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.protocols import get_protocol
from ldpcore.stats.compare import compare
from ldpcore.stats.pair_gibbs import SeparableLikelihood

ALPHAS = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
GRID = 400
EM_STEPS = 2_000


def risk_estimate(draws: np.ndarray, counts: np.ndarray, n: int, p: float, q: float) -> float:
    """``R̂``: unbiased for the normalised posterior mean's risk at n − 1, less ``‖π‖²``."""
    d = draws.shape[1]
    weights = 1.0 / (q + (p - q) * draws)  # drop one report at v: divide by r_v(π)
    weights /= weights.sum(axis=0, keepdims=True)
    left_out = weights.T @ draws  # row v: the posterior mean without one report at v
    left_out /= left_out.sum(axis=1, keepdims=True)
    square = float(counts @ (left_out**2).sum(axis=1)) / n
    cross = float(counts @ left_out[np.arange(d), np.arange(d)]) / n
    return square - 2.0 * (cross - q) / (p - q)


def npmle_means(counts: np.ndarray, n: int, p: float, q: float) -> np.ndarray:
    """Each value's posterior mean under the fitted distribution of frequencies."""
    grid = np.linspace(0.0, 1.0, GRID)
    like = stats.binom.pmf(np.rint(counts)[:, None], n, (q + (p - q) * grid)[None, :])
    mix = np.full(GRID, 1.0 / GRID)
    for _ in range(EM_STEPS):
        joint = like * mix
        mix = (joint / joint.sum(axis=1, keepdims=True)).mean(axis=0)
    joint = like * mix
    return (joint @ grid) / joint.sum(axis=1)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the two tables of benchmarks/README.md ("Session 26")."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=240, help="collections")
    parser.add_argument("--epsilon", type=float, default=2.0)
    parser.add_argument("--n", type=int, default=100, help="users")
    args = parser.parse_args(argv)
    d, n, epsilon = 64, args.n, args.epsilon
    data = zipf(d, n, 1.5)
    truth = data.frequencies()
    oracle = get_protocol("GRR", epsilon=epsilon, domain_size=d)
    p, q = oracle.p, oracle.q
    names = [
        "MLE",
        "Bayes (learned α)",
        *(f"α = {a:g}" for a in ALPHAS),
        "α by risk estimate",
        "NPMLE",
        "NPMLE, normalised",
        "½ (Bayes + MLE)",
    ]
    errors = np.empty((len(names), args.runs))
    estimated = np.empty((args.runs, len(ALPHAS)))
    realised = np.empty((args.runs, len(ALPHAS)))
    chosen: list[float] = []
    for seed in range(args.runs):
        counts = np.asarray(
            oracle.sample_support_counts(data.counts, np.random.default_rng(seed)), dtype=float
        )
        estimate = oracle.estimate(counts, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotConverged)
            posterior = Bayes().posterior(estimate, protocol=oracle, n=n)
        likelihood = SeparableLikelihood(counts, np.zeros(d), p, q, estimate)
        means = []
        for k, alpha in enumerate(ALPHAS):
            draws = fixed_alpha_draws(likelihood, posterior.mle, alpha, seed)
            mean = draws.mean(axis=0)
            means.append(mean / mean.sum())
            estimated[seed, k] = risk_estimate(draws, counts, n, p, q)
            realised[seed, k] = float(((means[-1] - truth) ** 2).sum())
        best = int(np.argmin(estimated[seed]))
        chosen.append(ALPHAS[best])
        npmle = npmle_means(counts, n, p, q)
        rows = [
            posterior.mle,
            posterior.mean,
            *means,
            means[best],
            npmle,
            npmle / npmle.sum(),
            (posterior.mean + posterior.mle) / 2.0,
        ]
        errors[:, seed] = [np.mean((row - truth) ** 2) for row in rows]
    print(f"GRR, ε = {epsilon:g}, d = {d}, n = {n:,}, {args.runs} collections\n")
    print("| rule | MSE / MLE's |")
    print("|---|---|")
    for c in compare(errors, names, reference="MLE", margin=0.0):
        print(f"| {c.method} | {c.ratio:.3f} [{c.low:.3f}, {c.high:.3f}] |")
    picks = ", ".join(f"{a:g}: {chosen.count(a)}" for a in ALPHAS)
    print(f"\nα chosen by the risk estimate (collections): {picks}")
    offset = float((truth**2).sum())
    gap = estimated - estimated[:, [ALPHAS.index(0.03)]]
    print("\n| α | R̂ + ‖π‖², mean ± s.e. | realised ‖π̂ − π‖², mean | R̂'s sd | sd of R̂ − R̂(0.03) |")
    print("|---:|---|---:|---:|---:|")
    for k, alpha in enumerate(ALPHAS):
        column = estimated[:, k] + offset
        print(
            f"| {alpha:g} | {column.mean():.4f} ± {column.std() / np.sqrt(args.runs):.4f} | "
            f"{realised[:, k].mean():.4f} | {column.std():.4f} | {gap[:, k].std():.4f} |"
        )


if __name__ == "__main__":
    main()
