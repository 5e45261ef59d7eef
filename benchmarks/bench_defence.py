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
  for the itemsets the share of honest collections with any itemset flagged.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import numpy as np
from scipy import stats

from ldpcore.attacks import AttackSpec
from ldpcore.attacks.detection import screened, suspicious
from ldpcore.attacks.gains import choose_targets, fake_reports
from ldpcore.attacks.itemsets import contains_itemset, screened_by_itemsets
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
        "| protocol | attack | honest flagged: ones, itemset | fakes flagged: ones, itemset "
        "| Base gain, no defence | with the ones count | with the itemsets |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in ("OUE", "SUE"):
        protocol = get_protocol(name, epsilon=EPSILON, domain_size=D)
        rng = np.random.default_rng(11)
        targets = choose_targets(TARGETS, D, rng)
        defences: dict[str, Callable[[np.ndarray], np.ndarray]] = {
            "none": lambda r, p=protocol: p.estimate(p.aggregate(r), len(r)),
            "ones": lambda r, p=protocol: screened(p, r)[0],
            "itemsets": lambda r, p=protocol: screened_by_itemsets(p, r)[0],
        }
        extra = {key: [] for key in defences}
        alarms = 0
        for _ in range(trials):  # β = 0: what each defence costs on honest data
            honest = protocol.randomize(values, rng)
            for key, defence in defences.items():
                extra[key].append(float(np.mean((defence(honest) - truth) ** 2)))
            alarms += screened_by_itemsets(protocol, honest)[1] > 0
        base_mse = np.mean(extra["none"])
        print(
            f"| {name} | none (β = 0) | extra MSE {np.mean(extra['ones']) - base_mse:.2g}, "
            f"{np.mean(extra['itemsets']) - base_mse:.2g} | collections with an itemset: "
            f"{alarms} of {trials} | | | |"
        )
        for kind in ("rpa", "ria", "mga"):
            fakes = AttackSpec(kind, beta=BETA, targets=TARGETS).fake_users(N)
            flags = {"ones": [0, 0], "itemsets": [0, 0]}
            gains: dict[str, list[float]] = {key: [] for key in defences}
            for _ in range(trials):
                honest = protocol.randomize(values, rng)
                reports = np.concatenate(
                    [honest, fake_reports(protocol, kind, targets, fakes, rng)]
                )
                ones = suspicious(protocol, reports)
                _, _, check = screened_by_itemsets(protocol, reports)
                sets = contains_itemset(protocol, reports, check.itemsets)
                for key, flagged in (("ones", ones), ("itemsets", sets)):
                    flags[key][0] += int(flagged[:N].sum())
                    flags[key][1] += int(flagged[N:].sum())
                for key, defence in defences.items():
                    after, before = defence(reports), defence(honest)
                    gains[key].append(float(after[targets].sum() - before[targets].sum()))
            print(
                f"| {name} | {kind} | {flags['ones'][0] / (N * trials):.2g}, "
                f"{flags['itemsets'][0] / (N * trials):.2g} "
                f"| {flags['ones'][1] / (fakes * trials):.1%}, "
                f"{flags['itemsets'][1] / (fakes * trials):.1%} "
                f"| {_interval(gains['none'])} | {_interval(gains['ones'])} "
                f"| {_interval(gains['itemsets'])} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
