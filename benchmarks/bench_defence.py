"""The ones-count defence against fake users, for unary encoding, report by report.

Run: ``.venv/bin/python -m benchmarks.bench_defence [--trials 20]``. Cao, Jia and Gong
(USENIX Security 2021, Sec. 6) detect fake OUE reports by their number of ones; the
tool's version (``ldpcore.attacks.detection``) flags a report whose count lies in
either tail of the honest law, each tail at most 10⁻⁶/2, and estimates from the rest.
Per protocol and attack (β = 5%, 3 targets, d = 256, ε = 1, Zipf s = 1.5, n = 50,000):
every honest and fake report drawn one by one (``randomize``, ``fake_reports``),
``trials`` collections; printed, one Markdown row each:

- honest reports flagged (the measured false-alarm rate, beside the exact one);
- fake reports flagged;
- Base's gain on the targets without the defence and with it, each with its 95%
  t-interval over the collections;
- at β = 0, the defence's extra mean squared error over Base on honest data alone.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy import stats

from ldpcore.attacks import AttackSpec
from ldpcore.attacks.detection import screened, size_bounds, suspicious
from ldpcore.attacks.gains import choose_targets, fake_reports
from ldpcore.data.datasets import zipf
from ldpcore.protocols import get_protocol

D, EPSILON, N, BETA, TARGETS = 256, 1.0, 50_000, 0.05, 3


def _interval(values: list[float]) -> str:
    array = np.asarray(values)
    half = stats.t.ppf(0.975, array.size - 1) * array.std(ddof=1) / math.sqrt(array.size)
    return f"{array.mean():.4f} ± {half:.4f}"


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=20)
    trials = parser.parse_args().trials
    data = zipf(D, N)
    values = np.repeat(np.arange(D), data.counts)
    truth = data.frequencies()
    print(
        "| protocol | attack | honest flagged (exact) | fakes flagged | Base gain, no defence "
        "| Base gain, with it | extra MSE at β = 0 |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in ("OUE", "SUE"):
        protocol = get_protocol(name, epsilon=EPSILON, domain_size=D)
        exact = size_bounds(protocol)
        assert exact is not None
        rng = np.random.default_rng(11)
        targets = choose_targets(TARGETS, D, rng)
        extra = []
        for _ in range(trials):  # β = 0: what the defence costs on honest data
            honest = protocol.randomize(values, rng)
            base = protocol.estimate(protocol.aggregate(honest), N)
            kept, _ = screened(protocol, honest)
            extra.append(np.mean((kept - truth) ** 2) - np.mean((base - truth) ** 2))
        extra_mse = f"{np.mean(extra):.2g}"
        for kind in ("rpa", "ria", "mga"):
            fakes = AttackSpec(kind, beta=BETA, targets=TARGETS).fake_users(N)
            honest_flags = fake_flags = 0
            without, with_defence = [], []
            for _ in range(trials):
                honest = protocol.randomize(values, rng)
                fake = fake_reports(protocol, kind, targets, fakes, rng)
                reports = np.concatenate([honest, fake])
                flagged = suspicious(protocol, reports)
                honest_flags += int(flagged[:N].sum())
                fake_flags += int(flagged[N:].sum())
                base = protocol.estimate(protocol.aggregate(reports), N + fakes)
                kept, _ = screened(protocol, reports)
                without.append(float(base[targets].sum() - truth[targets].sum()))
                with_defence.append(float(kept[targets].sum() - truth[targets].sum()))
            print(
                f"| {name} | {kind} | {honest_flags / (N * trials):.2g} ({exact.rate:.2g}) "
                f"| {fake_flags / (fakes * trials):.1%} | {_interval(without)} "
                f"| {_interval(with_defence)} | {extra_mse} |"
            )


if __name__ == "__main__":
    main()
