"""Data augmentation (the Bayesian twin of IBU) against the tool's HMC, for GRR.

Run: ``.venv/bin/python -m benchmarks.bench_data_augmentation``. The posterior of GRR's
frequencies under a Jeffreys prior, Dirichlet(½), from one collection (Zipf s = 1.5), by
two samplers with 4 chains each:

- data augmentation (Tanner & Wong 1987; the Gibbs sampler whose EM is IBU): given π,
  every report's true value is drawn (of the ``y_j`` reports of ``j``, a binomial number
  keep ``j`` with probability ``p π_j / (q + (p − q) π_j)``; the rest spread over the
  other values in proportion to π), then π ~ Dirichlet(½ + true counts);
- the tool's HMC (``ldpcore.postprocess.posterior_draws.sample_posterior``).

Printed per regime: each sampler's smallest bulk ESS over the values (of 4 × draws), and
per second of sampling, and the largest difference of the two posterior means in units of the HMC's
posterior sd. Finding in ``docs/research/data-augmentation.md``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ldpcore.data.datasets import zipf
from ldpcore.postprocess.posterior_draws import sample_posterior
from ldpcore.protocols import get_protocol
from ldpcore.stats.diagnostics import mixing

REGIMES = [(16, 4.0, 10_000), (16, 1.0, 10_000), (128, 2.0, 100_000), (256, 1.0, 1_000_000)]


def data_augmentation(
    reports: np.ndarray, p: float, q: float, *, draws: int, chains: int, rng: np.random.Generator
) -> np.ndarray:
    """``(chains, draws, d)`` draws of π; the first half of 2·draws sweeps discarded."""
    d = reports.size
    out = np.empty((chains, draws, d))
    for chain in range(chains):
        pi = rng.dirichlet(np.full(d, 0.5) + reports)
        for sweep in range(2 * draws):
            keep = rng.binomial(reports, p * pi / (q + (p - q) * pi))
            true = keep.astype(np.float64)
            rest = reports - keep
            weights = np.broadcast_to(pi, (d, d)).copy()
            np.fill_diagonal(weights, 0.0)
            weights /= weights.sum(axis=1, keepdims=True)
            true += rng.multinomial(rest, weights).sum(axis=0)
            pi = rng.dirichlet(0.5 + true)
            if sweep >= draws:
                out[chain, sweep - draws] = pi
    return out


def main() -> None:
    """Print one Markdown row per regime."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--draws", type=int, default=500)
    draws = parser.parse_args().draws
    print(
        "| d | ε | n | DA: min ESS | HMC: min ESS | DA: min ESS / s | HMC: min ESS / s "
        "| HMC / DA (per s) | means apart (HMC sd) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d, epsilon, n in REGIMES:
        rng = np.random.default_rng(7)
        protocol = get_protocol("GRR", epsilon=epsilon, domain_size=d)
        reports = protocol.sample_support_counts(zipf(d, n).counts, rng)
        start = time.perf_counter()
        da = data_augmentation(reports, protocol.p, protocol.q, draws=draws, chains=4, rng=rng)
        da_seconds = time.perf_counter() - start
        model = protocol.likelihood_model(protocol.estimate(reports, n), n, reports)
        start = time.perf_counter()
        hmc = sample_posterior(model, np.full(d, 0.5), chains=4, draws=draws, rng=rng)
        hmc_seconds = time.perf_counter() - start
        da_min = float(mixing(da).bulk_ess.min())
        hmc_min = float(mixing(hmc.draws).bulk_ess.min())
        da_ess, hmc_ess = da_min / da_seconds, hmc_min / hmc_seconds
        sd = hmc.draws.reshape(-1, d).std(axis=0)
        apart = float(np.max(np.abs(da.reshape(-1, d).mean(axis=0) - hmc.mean) / sd))
        print(
            f"| {d:,} | {epsilon:g} | {n:,} | {da_min:,.0f} | {hmc_min:,.0f} "
            f"| {da_ess:,.1f} | {hmc_ess:,.1f} "
            f"| {hmc_ess / da_ess:,.1f}× | {apart:.2f} |"
        )


if __name__ == "__main__":
    main()
