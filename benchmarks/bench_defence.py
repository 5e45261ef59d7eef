"""Two defences against fake users of unary encoding, report by report.

Run: ``.venv/bin/python -m benchmarks.bench_defence [--trials 20]``. Both come from Cao,
Jia and Gong (USENIX Security 2021, Sec. 6):

- the **ones-count** test (``ldpcore.attacks.detection``): a report whose number of ones
  lies in either tail of the honest law, each tail at most 10⁻⁶/2, is dropped;
- the **frequent itemset** (``ldpcore.attacks.itemsets``): pairs of values supported
  together beyond Bernstein's bound for honest reports (any false alarm on an honest
  collection at most 10⁻³), grown into itemsets; the reports containing one are dropped.

Per protocol and attack (β = 5%, 3 targets, d = 256, ε = 1, Zipf s = 1.5, n = 50,000):
every honest and fake report drawn one by one (``randomize``, ``fake_reports``),
``trials`` collections; printed, one Markdown row each:

- honest reports flagged (the measured false-alarm rate) and fake reports flagged;
- Base's gain on the targets without a defence and with each, in Cao et al.'s sense: the
  estimate with the fake users minus the estimate without them, the defence applied to
  both (the server cannot tell which it holds), each with its 95% t-interval;
- at β = 0, the defence's extra mean squared error over Base on honest data alone, and
  for the itemsets the share of honest collections with any itemset flagged;
- beside the itemsets read through a kept report's channel, Cao et al.'s own reading:
  the reports dropped and the rest estimated as if nothing had been.

The numbers are stored in ``benchmarks/results/defence.json``, from which the docs'
table and sentences are made (``devtools/claims``).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from benchmarks._common import store
from ldpcore.attacks import AttackSpec
from ldpcore.attacks.detection import screened, size_bounds, suspicious
from ldpcore.attacks.gains import choose_targets, fake_reports
from ldpcore.attacks.itemsets import contains_itemset, screened_by_itemsets
from ldpcore.data.datasets import zipf
from ldpcore.protocols import get_protocol
from ldpcore.protocols.base import FrequencyOracle

D, EPSILON, N, BETA, TARGETS = 256, 1.0, 50_000, 0.05, 3


def interval(values: list[float]) -> dict[str, float]:
    """The mean and its 95% t-interval's half-width."""
    array = np.asarray(values)
    half = stats.t.ppf(0.975, array.size - 1) * array.std(ddof=1) / math.sqrt(array.size)
    return {"mean": float(array.mean()), "half": float(half)}


def dropped(protocol: FrequencyOracle, reports: np.ndarray) -> np.ndarray:
    """Cao et al.'s reading: the reports with an itemset dropped, the rest read as Base."""
    _, _, check = screened_by_itemsets(protocol, reports)
    kept = reports[~contains_itemset(protocol, reports, check.itemsets)]
    return protocol.estimate(protocol.aggregate(kept), kept.shape[0])


def measure(name: str, trials: int, values: np.ndarray, truth: np.ndarray) -> dict[str, Any]:
    """One protocol: honest data alone, then each attack, every report drawn."""
    protocol = get_protocol(name, epsilon=EPSILON, domain_size=D)
    rng = np.random.default_rng(11)
    targets = choose_targets(TARGETS, D, rng)
    defences: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "none": lambda r: protocol.estimate(protocol.aggregate(r), len(r)),
        "ones": lambda r: screened(protocol, r)[0],
        "itemsets": lambda r: screened_by_itemsets(protocol, r)[0],
        "dropped": lambda r: dropped(protocol, r),
    }
    extra: dict[str, list[float]] = {key: [] for key in defences}
    alarms = 0
    for _ in range(trials):  # β = 0: what each defence costs on honest data
        honest = protocol.randomize(values, rng)
        for key, defence in defences.items():
            extra[key].append(float(np.mean((defence(honest) - truth) ** 2)))
        alarms += screened_by_itemsets(protocol, honest)[1] > 0
    bounds = size_bounds(protocol)
    found: dict[str, Any] = {
        "protocol": name,
        "exact_false_alarm": None if bounds is None else bounds.rate,
        "honest_extra_mse": {
            key: float(np.mean(extra[key]) - np.mean(extra["none"])) for key in defences
        },
        "honest_collections_with_itemset": int(alarms),
        "attacks": [],
    }
    for kind in ("rpa", "ria", "mga"):
        fakes = AttackSpec(kind, beta=BETA, targets=TARGETS).fake_users(N)
        flags = {"ones": [0, 0], "itemsets": [0, 0]}
        gains: dict[str, list[float]] = {key: [] for key in defences}
        for _ in range(trials):
            honest = protocol.randomize(values, rng)
            reports = np.concatenate([honest, fake_reports(protocol, kind, targets, fakes, rng)])
            ones = suspicious(protocol, reports)
            _, _, check = screened_by_itemsets(protocol, reports)
            sets = contains_itemset(protocol, reports, check.itemsets)
            for key, flagged in (("ones", ones), ("itemsets", sets)):
                flags[key][0] += int(flagged[:N].sum())
                flags[key][1] += int(flagged[N:].sum())
            for key, defence in defences.items():
                after, before = defence(reports), defence(honest)
                gains[key].append(float(after[targets].sum() - before[targets].sum()))
        found["attacks"].append(
            {
                "attack": kind,
                "fakes": int(fakes),
                "honest_flagged": {k: v[0] / (N * trials) for k, v in flags.items()},
                "fakes_flagged": {k: v[1] / (fakes * trials) for k, v in flags.items()},
                "gain": {key: interval(gains[key]) for key in defences},
            }
        )
    return found


def main() -> None:
    """Measure both protocols, print the table and store the results."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=20)
    trials = parser.parse_args().trials
    data = zipf(D, N)
    values = np.repeat(np.arange(D), data.counts)
    rows = [measure(name, trials, values, data.frequencies()) for name in ("OUE", "SUE")]
    print("| protocol | attack | fakes flagged: ones, itemset | gain: none, ones, itemsets |")
    print("|---|---|---:|---:|")
    for row in rows:
        for attack in row["attacks"]:
            g, caught = attack["gain"], attack["fakes_flagged"]
            print(
                f"| {row['protocol']} | {attack['attack']} | "
                f"{caught['ones']:.1%}, {caught['itemsets']:.1%} | "
                + ", ".join(f"{g[k]['mean']:.4f}" for k in ("none", "ones", "itemsets"))
                + " |"
            )
    store(
        "defence",
        {
            "setting": {"d": D, "n": N, "epsilon": EPSILON, "data": "zipf s=1.5"},
            "beta": BETA,
            "targets": TARGETS,
            "trials": trials,
            "protocols": rows,
        },
    )


if __name__ == "__main__":
    main()
