"""Bayes with a prior that learns: its MSE against the MLE's, its intervals' coverage.

For every protocol, ε ∈ {0.5, 2} and n ∈ {10², 10⁴, 10⁶} on Zipf(1.5), d = 64 (the
regimes of the credible-interval table in benchmarks/README.md), and at d = 1,024 on
Zipf(1.1), n = 10⁶: ``runs`` collections each, ``small-runs`` where n ≤ 10⁴
(collection ``i`` drawn with seed ``i``), and on each the posterior under the chosen
prior and the MLE from the same likelihood.

Printed per regime:

* the paired ratio of Bayes's mean squared error to the MLE's over the collections,
  with its 95% interval (:func:`ldpcore.stats.compare.compare`: the same collections
  for both; "lower", "higher" or "no significant difference");
* how often the 95% credible interval held the true frequency, for the frequent (top
  10%) and the rare (bottom half) values: the raw credible interval, and the one the
  pages and the CLI show (widened to the exact confidence interval up to
  :data:`~ldpcore.postprocess.intervals.EXACT_MAX_N` users);
* the median over collections of α's posterior median, and the median
  :attr:`Posterior.prior_pull`;
* in how many collections the sampler warned that it had not converged, and in how many
  the pages and the CLI said, next to the interval, that the prior shapes the answer
  (:attr:`Posterior.prior_shapes_answer`): where the coverage falls short that note is
  what a learned prior must show.

Usage::

    .venv/bin/python benchmarks/bench_learned_prior.py --runs 20   # n ≤ 10⁴: 80
    .venv/bin/python benchmarks/bench_learned_prior.py --runs 20 --prior Jeffreys
    .venv/bin/python benchmarks/bench_learned_prior.py --runs 4 --only GRR   # a quick look

The whole table under the learned prior is stored in
``benchmarks/results/learned_prior.json``, from which the docs' table and sentences are
made (``devtools/claims``); a partial run (``--only``, ``--n``) or another prior is
printed only.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence

import numpy as np
from _common import store

from ldpcore.data.datasets import zipf
from ldpcore.postprocess import Bayes
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.postprocess.intervals import EXACT_MAX_N, frequency_intervals
from ldpcore.postprocess.prior import JEFFREYS, LEARNED
from ldpcore.protocols import get_protocol
from ldpcore.stats.compare import compare

PROTOCOLS = ("GRR", "OLH", "OUE", "SS", "HR")
LEVEL = 0.95


def regimes(only: str | None, users: int | None = None) -> list[tuple[str, float, int, int, float]]:
    """``(protocol, ε, n, d, Zipf s)`` of every row, in the table's order."""
    rows = [
        (protocol, epsilon, n, 64, 1.5)
        for protocol in PROTOCOLS
        for epsilon in (0.5, 2.0)
        for n in (100, 10_000, 1_000_000)
    ]
    rows += [
        (protocol, epsilon, 1_000_000, 1024, 1.1)
        for protocol in ("GRR", "OLH")
        for epsilon in (0.5, 2.0)
    ]
    return [
        row
        for row in rows
        if (only is None or row[0] == only) and (users is None or row[2] == users)
    ]


def measure(
    protocol: str, epsilon: float, n: int, d: int, s: float, *, runs: int, prior: str
) -> dict[str, object]:
    """One row: the paired MSE ratio, coverage, α and prior pull over ``runs`` collections."""
    data = zipf(d, n, s)
    truth = data.frequencies()
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=d)
    order = np.argsort(-truth, kind="stable")
    frequent, rare = order[: max(1, d // 10)], order[d // 2 :]
    sampler = Bayes(prior=LEARNED if prior == "learned" else JEFFREYS)
    errors = np.empty((2, runs))
    raw, shown = [], []
    alphas, pulls, seconds, unconverged, flagged = [], [], [], 0, 0
    for seed in range(runs):
        support = oracle.sample_support_counts(data.counts, np.random.default_rng(seed))
        estimate = oracle.estimate(support, n)
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", NotConverged)
            posterior = sampler.posterior(estimate, protocol=oracle, n=n)
        seconds.append(time.perf_counter() - start)
        unconverged += any(issubclass(w.category, NotConverged) for w in caught)
        errors[:, seed] = [
            np.mean((posterior.mean - truth) ** 2),
            np.mean((posterior.mle - truth) ** 2),
        ]
        low, high = posterior.interval(LEVEL)
        raw.append((low <= truth) & (truth <= high))
        if n <= EXACT_MAX_N:
            exact_low, exact_high = frequency_intervals(estimate, protocol=oracle, n=n, level=LEVEL)
            low, high = np.minimum(low, exact_low), np.maximum(high, exact_high)
        shown.append((low <= truth) & (truth <= high))
        if posterior.concentration is not None:
            alphas.append(posterior.concentration.median)
        pulls.append(posterior.prior_pull)
        flagged += posterior.prior_shapes_answer
    (versus,) = compare(errors, ["Bayes", "MLE"], reference="MLE", margin=0.0)[:1]
    raw_held, shown_held = np.array(raw), np.array(shown)
    return {
        "protocol": protocol,
        "epsilon": epsilon,
        "n": n,
        "d": d,
        "zipf": s,
        "collections": runs,
        "ratio": versus.ratio,
        "low": versus.low,
        "high": versus.high,
        "outcome": versus.outcome,
        "raw": (float(raw_held[:, frequent].mean()), float(raw_held[:, rare].mean())),
        "shown": (float(shown_held[:, frequent].mean()), float(shown_held[:, rare].mean())),
        "alpha": float(np.median(alphas)) if alphas else float("nan"),
        "pull": float(np.median(pulls)),
        "seconds": float(np.median(seconds)),
        "unconverged": int(unconverged),
        "flagged": int(flagged),
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Print the table of benchmarks/README.md ("Bayes with the learned prior")."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="collections per regime")
    parser.add_argument("--prior", choices=("learned", "Jeffreys"), default="learned")
    parser.add_argument("--only", choices=PROTOCOLS, help="one protocol's rows")
    parser.add_argument("--n", type=int, help="only the rows with this many users")
    parser.add_argument(
        "--small-runs",
        type=int,
        default=80,
        help="collections per regime with n ≤ 10⁴, where Bayes can be within a few per "
        "cent of the MLE and 20 collections bound the ratio only to ±20%% (80 take about "
        "40 s a row)",
    )
    args = parser.parse_args(argv)
    print(
        f"\n### Bayes ({args.prior} prior) against the MLE, {args.runs} collections per row "
        f"({args.small_runs} where n ≤ 10⁴)\n"
    )
    print(
        "| protocol | ε | n | d | collections | Bayes/MLE MSE [95% interval] | | "
        "frequent / rare covered "
        "(credible) | (as shown) | α (median) | prior pull | s (median) | not converged | flagged |"
    )
    print("|---|---:|---:|---:|---:|---|---|---|---|---:|---:|---:|---:|---:|")
    rows = []
    for protocol, epsilon, n, d, s in regimes(args.only, args.n):
        runs = args.small_runs if n <= 10_000 else args.runs
        row = measure(protocol, epsilon, n, d, s, runs=runs, prior=args.prior)
        raw, shown = row["raw"], row["shown"]
        print(
            f"| {protocol} | {epsilon:g} | {n:,} | {d:,} | {runs} | {row['ratio']:.3f} "
            f"[{row['low']:.3f}, {row['high']:.3f}] | {row['outcome']} | "
            f"{100 * raw[0]:.1f} / {100 * raw[1]:.1f} | "  # type: ignore[index]
            f"{100 * shown[0]:.1f} / {100 * shown[1]:.1f} | "  # type: ignore[index]
            f"{row['alpha']:.3f} | {row['pull']:.2f} | {row['seconds']:.2f} | "
            f"{row['unconverged']} | {row['flagged']} |",
            flush=True,
        )
        rows.append(row)
    if args.only is None and args.n is None and args.prior == "learned":
        store(
            "learned_prior",
            {"runs": args.runs, "small_runs": args.small_runs, "level": LEVEL, "regimes": rows},
        )


if __name__ == "__main__":
    main()
