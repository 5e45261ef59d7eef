"""How often Choose ε's stated 95% interval for the smallest ε holds the true crossing.

Run: ``.venv/bin/python benchmarks/bench_epsilon_intervals.py [--repeats 100]
[--truth-trials 400]``.

For each workload (a bundled dataset or a Zipf set, one protocol, n = 10⁶, the page's
default methods and trials) the Choose ε search runs ``--repeats`` times, each with its
own seed, as the page runs it (:func:`ldpcore.advice.choose_epsilon`). Each method's
stated interval is read from the search's own curve with the search's own rule (where
the band's edges, mean ∓ t·SE of the MSE, cross the target), so every method of the
search is measured, not only the one recommended that time.

The true crossing of each method: its RMSE from ``--truth-trials`` trials (a seed no
search uses) at every point of a fine grid around the searches' answers, crossed with
the same interpolation. Base's is exact (NDSS Eq. 3) where the query asks single values
and its interval then has no width (it covers by construction, and the table says so);
the set-query workload measures Base's simulated interval.

The page states an interval for Base where its ε is simulated (set queries), and for a
method only when it recommends that method over Base; those are the intervals measured,
per search, grouped by the method recommended.

Coverage is the share of searches whose interval holds the true crossing, with a 95%
Wilson interval for that share. Stored in ``benchmarks/results/epsilon_intervals.json``,
from which the docs' table and sentence are made (``devtools/claims``).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from collections import defaultdict

import numpy as np
from _common import store

from ldpcore.advice import choose_epsilon
from ldpcore.advice.epsilon_search import _crossing
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run

#: The Choose ε page's default methods and trials (pages/choose_epsilon.py).
METHODS = ("Base", "Base-Cut", "Norm", "Norm-Sub", "MLE-Apx", "PowerNS")
TRIALS = 10
#: (dataset, protocol, query, target RMSE): crossings inside the slider's range.
WORKLOADS = (
    ("countries", "OLH", "full", 0.001),
    ("emoji", "GRR", "full", 0.001),
    ("zipf:d=256,s=1.1", "OUE", "full", 0.0005),
    ("zipf:d=256,s=1.1", "OLH", "set:rho=0.1", 0.005),
)
#: Seeds of the truth's trials: far from the searches' (1 … repeats).
TRUTH_SEED = 1_000_003


def _interval(
    curve: tuple[dict[str, float | str], ...], method: str, target: float
) -> tuple[float, float]:
    """A method's stated interval from the search's curve (band −1 first, band +1 last)."""
    points = sorted((float(p["epsilon"]), p) for p in curve if p["method"] == method)
    grid = np.array([e for e, _ in points])
    low = _crossing(grid, np.array([float(p["rmse_low"]) for _, p in points]), target)
    high = _crossing(grid, np.array([float(p["rmse_high"]) for _, p in points]), target)
    return low, high


def _wilson(hits: int, total: int) -> tuple[float, float]:
    if total == 0:
        return math.nan, math.nan
    z = 1.959964
    share = hits / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total))
    return centre - half / (1 + z * z / total), centre + half / (1 + z * z / total)


def _true_crossings(
    config: ExperimentConfig, target: float, around: dict[str, list[float]], trials: int
) -> dict[str, float]:
    """Each method's crossing from ``trials`` trials on a grid spanning the searches' answers."""
    found = [e for values in around.values() for e in values if math.isfinite(e)]
    low, high = 0.8 * min(found), 1.25 * max(found)
    grid = np.unique(np.round(np.geomspace(low, high, 25), 5))
    truth_config = dataclasses.replace(config, trials=trials, seed=TRUTH_SEED)
    mse = np.array(
        [
            run(dataclasses.replace(truth_config, epsilon=float(e))).trial_errors.mean(axis=1)
            for e in grid
        ]
    )
    return {
        name: _crossing(grid, np.sqrt(mse[:, row]), target)
        for row, name in enumerate(config.methods)
    }


def main() -> None:
    """Print one Markdown table: per workload and method, the coverage and its interval."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--truth-trials", type=int, default=400)
    args = parser.parse_args()
    print("| workload | method | searches | coverage | 95% interval | median width (ε) |")
    print("| --- | --- | ---: | ---: | --- | ---: |")
    rows: list[dict[str, object]] = []
    for dataset, protocol, query, target in WORKLOADS:
        started = time.perf_counter()
        config = ExperimentConfig(
            dataset=dataset,
            n=10**6,
            protocol=protocol,
            epsilon=1.0,
            query=query,
            methods=METHODS,
            trials=TRIALS,
        )
        stated: dict[str, list[tuple[float, float]]] = defaultdict(list)
        exact: dict[str, float] = {}
        for repeat in range(args.repeats):
            (answer,) = choose_epsilon(
                dataclasses.replace(config, seed=repeat + 1),
                target_rmse=target,
                protocols=[protocol],
            )
            if answer.base_exact and answer.base_epsilon is not None:
                exact["Base"] = answer.base_epsilon
            elif answer.base_epsilon_low is not None and answer.base_epsilon_high is not None:
                stated["Base"].append((answer.base_epsilon_low, answer.base_epsilon_high))
            # A method's interval is stated only when it is recommended over Base.
            if (
                answer.post_processing_helps
                and answer.epsilon_low is not None
                and answer.epsilon_high is not None
            ):
                stated[answer.method].append((answer.epsilon_low, answer.epsilon_high))
        around = {m: [v for pair in pairs for v in pair] for m, pairs in stated.items()}
        truth = _true_crossings(config, target, around, args.truth_trials)
        label = f"{dataset}/{protocol} {query}, target {100 * target:g} pp"
        if "Base" in exact:
            print(f"| {label} | Base | {args.repeats} | exact (Eq. 3): no interval | | 0 |")
            rows.append({"workload": label, "query": query, "method": "Base", "exact": True})
        for method, pairs in sorted(stated.items(), key=lambda item: -len(item[1])):
            true = truth[method]
            hits = sum(low <= true <= high for low, high in pairs)
            share_low, share_high = _wilson(hits, len(pairs))
            widths = [high - low for low, high in pairs if math.isfinite(high - low)]
            width = f"{np.median(widths):.3g}" if widths else "—"
            print(
                f"| {label} | {method} | {len(pairs)} | {hits / len(pairs):.1%} | "
                f"{share_low:.1%}–{share_high:.1%} | {width} |"
            )
            rows.append(
                {
                    "workload": label,
                    "query": query,
                    "method": method,
                    "exact": False,
                    "searches": len(pairs),
                    "covered": hits,
                    "low": share_low,
                    "high": share_high,
                    "median_width": float(np.median(widths)) if widths else None,
                }
            )
        print(f"<!-- {dataset}: {time.perf_counter() - started:.0f} s -->", flush=True)
    store(
        "epsilon_intervals",
        {"repeats": args.repeats, "truth_trials": args.truth_trials, "users": 10**6, "rows": rows},
    )


if __name__ == "__main__":
    main()
