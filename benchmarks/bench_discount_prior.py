"""Would a prior with a discount beat the MLE where the Dirichlet cannot? (issue 39, item 2)

At GRR, ε = 2, d = 64, n = 100 (Zipf(1.5), the table's row in benchmarks/README.md)
the learned Dirichlet's posterior mean is not significantly better than the MLE. The
Dirichlet has one number, α, for two things: how many values are held (25 of 64 here,
15 of them by one user each) and how far the posterior mean pulls the most frequent
value towards the rest (its pseudo-users, ``d α``). Holding 25 values takes α ≈ 0.2,
whose 13 pseudo-users keep only 100 / 113 of the head.

A Pitman–Yor prior (Pitman & Yor 1997) has a second number, the discount ``σ``: each
held value gives up ``σ`` users' worth of mass, whatever its count, so many values held
once cost the head little. This prototype measures what that prior gets from the same
reports, with its ``σ`` and ``θ`` learned:

* the prior is PY(σ, θ) over the d values (base measure uniform), ``σ ~ U(0, 1)``,
  ``θ ~ Exp(1)``;
* the sampler is a Chinese-restaurant Gibbs sampler (Neal 2000, Algorithm 2 with the
  tables' labels drawn given their users): each user's true value is latent, which is
  exact for GRR (one report per user, ``P(report r | value v)`` is ``p`` for ``r = v``
  and ``q`` otherwise; Wang et al. 2017, Sec. 4.1), and its cost grows with n, which is
  why it is a prototype and not a method;
* ``σ`` and ``θ`` move by Metropolis on ``logit σ`` and ``log θ`` against the partition's
  probability (the exchangeable partition probability function's two-parameter case,
  Pitman 1995);
* the estimate is the posterior mean of each value's mass, the average over sweeps of
  ``(Σ_{tables of v} (n_t − σ) + (θ + σ T) / d) / (n + θ)``.

Both are compared with the MLE on the same collections (collection ``i`` drawn with seed
``i``, as in ``bench_prior_room.py``): paired ratios of mean squared error with
simultaneous 95% intervals (:func:`ldpcore.stats.compare.compare`).

Usage::

    .venv/bin/python benchmarks/bench_discount_prior.py --runs 120
    .venv/bin/python benchmarks/bench_discount_prior.py --runs 40 --sigma 0.2 --theta 0.5
"""

from __future__ import annotations

import argparse
import math
import warnings
from collections.abc import Sequence

import numpy as np
from scipy import special

from ldpcore.data.datasets import zipf
from ldpcore.postprocess import Bayes
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.protocols import get_protocol
from ldpcore.stats.compare import compare

SWEEPS, BURN = 1_500, 500


def log_partition(sizes: np.ndarray, sigma: float, theta: float) -> float:
    """log P(a partition with these table sizes | σ, θ) under Pitman–Yor (the EPPF)."""
    n, tables = int(sizes.sum()), sizes.size
    return float(
        np.log(theta + sigma * np.arange(1, tables)).sum()
        - (special.gammaln(theta + n) - special.gammaln(theta + 1.0))
        + (special.gammaln(sizes - sigma) - special.gammaln(1.0 - sigma)).sum()
    )


def log_hyper(sizes: np.ndarray, sigma: float, theta: float) -> float:
    """The EPPF with the hyperpriors, in ``(logit σ, log θ)`` (Jacobians included)."""
    return log_partition(sizes, sigma, theta) - theta + math.log(sigma * (1.0 - sigma) * theta)


def posterior_mean(
    reports: np.ndarray,
    d: int,
    rates: tuple[float, float],
    rng: np.random.Generator,
    *,
    fixed: tuple[float, float] | None = None,
) -> tuple[np.ndarray, tuple[float, float, float]]:
    """Each value's posterior mean mass, and the median σ, θ and number of tables.

    ``rates`` is GRR's ``(p, q)``; ``fixed`` holds ``(σ, θ)`` instead of learning them.
    """
    n = reports.size
    p, q = rates
    like = np.where(np.arange(d)[None, :] == reports[:, None], p, q)  # (users, values)
    table = np.arange(n)  # each user starts alone at a table labelled by its report
    labels, sizes = reports.copy(), np.ones(n)
    sigma, theta = fixed if fixed is not None else (0.5, 1.0)
    total, kept, hyper = np.zeros(d), 0, []
    for sweep in range(SWEEPS):
        for user in rng.permutation(n):
            own = table[user]
            sizes[own] -= 1
            if sizes[own] == 0:  # the table empties: the last one takes its index
                last = sizes.size - 1
                sizes[own], labels[own] = sizes[last], labels[last]
                table[table == last] = own
                sizes, labels = sizes[:last], labels[:last]
            weights = np.append(
                (sizes - sigma) * like[user, labels],
                (theta + sigma * sizes.size) * (q + (p - q) / d),
            )
            pick = int(rng.choice(weights.size, p=weights / weights.sum()))
            if pick == sizes.size:  # a new table, its label from this user's report
                value = int(rng.choice(d, p=like[user] / like[user].sum()))
                labels, sizes = np.append(labels, value), np.append(sizes, 1.0)
            else:
                sizes[pick] += 1
            table[user] = pick
        for t in range(sizes.size):  # each table's label given its users' reports
            held = np.bincount(reports[table == t], minlength=d)
            log_w = held * math.log(p) + (sizes[t] - held) * math.log(q)
            w = np.exp(log_w - log_w.max())
            labels[t] = int(rng.choice(d, p=w / w.sum()))
        if fixed is None:
            for _ in range(5):
                s2 = special.expit(special.logit(sigma) + 0.5 * rng.standard_normal())
                t2 = theta * math.exp(0.5 * rng.standard_normal())
                ratio = log_hyper(sizes, s2, t2) - log_hyper(sizes, sigma, theta)
                if math.log(rng.random()) < ratio:
                    sigma, theta = float(s2), t2
        if sweep >= BURN:
            mass = np.bincount(labels, weights=sizes - sigma, minlength=d)
            total += (mass + (theta + sigma * sizes.size) / d) / (n + theta)
            kept += 1
            hyper.append((sigma, theta, float(sizes.size)))
    middle = np.median(np.array(hyper), axis=0)
    return total / kept, (float(middle[0]), float(middle[1]), float(middle[2]))


def main(argv: Sequence[str] | None = None) -> None:
    """Print one Markdown row: Bayes and Pitman–Yor against the MLE."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=120, help="collections")
    parser.add_argument("--epsilon", type=float, default=2.0)
    parser.add_argument("--sigma", type=float, help="fix σ (with --theta) instead of learning")
    parser.add_argument("--theta", type=float)
    args = parser.parse_args(argv)
    fixed = None if args.sigma is None else (args.sigma, args.theta)
    d, n = 64, 100
    data = zipf(d, n, 1.5)
    truth = data.frequencies()
    oracle = get_protocol("GRR", epsilon=args.epsilon, domain_size=d)
    errors, hypers = np.empty((3, args.runs)), []
    for seed in range(args.runs):
        support = np.asarray(oracle.sample_support_counts(data.counts, np.random.default_rng(seed)))
        estimate = oracle.estimate(support, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotConverged)
            posterior = Bayes().posterior(estimate, protocol=oracle, n=n)
        reports = np.repeat(np.arange(d), support.astype(int))
        rng = np.random.default_rng(1_000 + seed)
        mean, hyper = posterior_mean(reports, d, (oracle.p, oracle.q), rng, fixed=fixed)
        hypers.append(hyper)
        errors[:, seed] = [np.mean((m - truth) ** 2) for m in (posterior.mle, posterior.mean, mean)]
    versus = {
        c.method: f"{c.ratio:.3f} [{c.low:.3f}, {c.high:.3f}]"
        for c in compare(errors, ["MLE", "Bayes", "PY"], reference="MLE", margin=0.0)
    }
    sigma, theta, tables = np.median(np.array(hypers), axis=0)
    prior = "learned" if fixed is None else f"σ = {fixed[0]:g}, θ = {fixed[1]:g}"
    print("| ε | collections | Pitman–Yor | Bayes/MLE | PY/MLE | σ | θ | tables |")
    print("|---:|---:|---|---|---|---:|---:|---:|")
    print(
        f"| {args.epsilon:g} | {args.runs} | {prior} | {versus['Bayes']} | {versus['PY']} | "
        f"{sigma:.2f} | {theta:.2f} | {tables:.0f} |"
    )


if __name__ == "__main__":
    main()
