"""LDPRecover against Norm-Sub, on honest data and under each attack, paired.

LDPRecover (Sun et al., ICDE 2024; :mod:`ldpcore.postprocess.recover`) rescales the
estimate by ``1 + η`` and removes the fake users' learned mass before Norm-Sub's
projection. Without the attack's targets that mass is one constant on every value
estimated above zero, so what it changes against Norm-Sub is measured here:

- **honest data** (no fake users; LDPRecover told the default η = 0.05): each method's
  mean squared error over all values, and their paired difference with its 95%
  t-interval, over the same seeded collections;
- **under attack** (β = 5%, 3 targets, Cao et al.'s three attacks; LDPRecover told the
  attack's own η = m/n, as the Fake users page tells it): each method's gain on the
  targets and the error on the other values, LDPRecover's against Norm-Sub's paired on
  the same honest and fake reports (``run_attack``).

Setting: d = 100, n = 10⁵, ε = 1, Zipf s = 1.5; GRR, OUE and OLH. Run:
``.venv/bin/python benchmarks/bench_recover.py [--trials 200]``. Prints Markdown tables
and stores ``benchmarks/results/recover.json``, from which the docs' table and sentences
are made (``devtools/claims``).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
from _common import store
from scipy import stats

from ldpcore.attacks import AttackSpec
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.poisoning import run_attack
from ldpcore.experiments.trials import trial_generator
from ldpcore.postprocess import LDPRecover, get_method

D, N, EPSILON, DATA = 100, 100_000, 1.0, "zipf:d=100,s=1.5"
PROTOCOLS = ("GRR", "OUE", "OLH")
ATTACKS = ("rpa", "ria", "mga")
BETA, TARGETS, ASSUMED = 0.05, 3, 0.05


def paired(first: np.ndarray, second: np.ndarray) -> dict[str, float]:
    """Means, their ratio and the paired difference ``first − second`` (95% t-interval)."""
    difference = first - second
    spread = float(stats.sem(difference))
    low, high = (
        stats.t.interval(0.95, difference.size - 1, loc=difference.mean(), scale=spread)
        if spread > 0
        else (difference.mean(), difference.mean())  # equal on every trial
    )
    return {
        "first": float(first.mean()),
        "second": float(second.mean()),
        "difference": float(difference.mean()),
        "low": float(low),
        "high": float(high),
    }


def honest(protocol_name: str, trials: int) -> dict[str, Any]:
    """No fake users: LDPRecover (η assumed 0.05) against Norm-Sub, MSE over all values."""
    config = ExperimentConfig(
        dataset=DATA, n=N, protocol=protocol_name, epsilon=EPSILON, trials=trials, seed=5
    )
    data, protocol, _ = config.build()
    truth = data.frequencies()
    norm_sub, recover = get_method("Norm-Sub"), LDPRecover(fake_share=ASSUMED)
    errors = np.empty((2, trials))
    for trial in range(trials):
        estimate = protocol.estimate(
            protocol.sample_support_counts(data.counts, trial_generator(config.seed, trial)),
            data.n,
        )
        for row, method in enumerate((norm_sub, recover)):
            answer = method(estimate, protocol=protocol, n=data.n)
            errors[row, trial] = np.mean((answer - truth) ** 2)
    return {"protocol": protocol_name, "mse": paired(errors[1], errors[0])}


def attacked(protocol_name: str, kind: str, trials: int) -> dict[str, Any]:
    """Under one attack: LDPRecover's gain and collateral error against Norm-Sub's."""
    config = ExperimentConfig(
        dataset=DATA,
        n=N,
        protocol=protocol_name,
        epsilon=EPSILON,
        methods=["Base", "Norm-Sub"],
        trials=trials,
        seed=7,
    )
    result = run_attack(config, AttackSpec(kind, beta=BETA, targets=TARGETS))
    at = {name: k for k, name in enumerate(result.methods)}
    recover, norm_sub = at[LDPRecover.name], at["Norm-Sub"]
    return {
        "protocol": protocol_name,
        "attack": kind,
        "fakes": result.fakes,
        "base_gain": float(result.gains[at["Base"]].mean()),
        "gain": paired(result.gains[recover], result.gains[norm_sub]),
        "collateral": paired(result.collateral[recover], result.collateral[norm_sub]),
    }


def main() -> None:
    """Run both parts, print them and store the results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=200)
    trials = parser.parse_args().trials
    quiet = [honest(p, trials) for p in PROTOCOLS]
    print("| protocol | Norm-Sub MSE | LDPRecover MSE | LDPRecover − Norm-Sub (95%) |")
    print("|---|---:|---:|---:|")
    for row in quiet:
        m = row["mse"]
        print(
            f"| {row['protocol']} | {m['second']:.3g} | {m['first']:.3g} | "
            f"{m['difference']:+.2g} ({m['low']:+.2g} to {m['high']:+.2g}) |",
            flush=True,
        )
    loud = [attacked(p, kind, trials) for p in PROTOCOLS for kind in ATTACKS]
    print(
        "\n| protocol | attack | Base gain | Norm-Sub gain | LDPRecover gain | collateral ratio |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for row in loud:
        g, c = row["gain"], row["collateral"]
        print(
            f"| {row['protocol']} | {row['attack']} | {row['base_gain']:.4f} | "
            f"{g['second']:.4f} | {g['first']:.4f} | {c['first'] / c['second']:.3f} |",
            flush=True,
        )
    store(
        "recover",
        {
            "setting": {"d": D, "n": N, "epsilon": EPSILON, "data": "zipf s=1.5"},
            "trials": trials,
            "assumed_share": ASSUMED,
            "beta": BETA,
            "targets": TARGETS,
            "honest": quiet,
            "attacked": loud,
        },
    )


if __name__ == "__main__":
    main()
