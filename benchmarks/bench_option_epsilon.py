"""The proper-distribution option's ε on Choose ε against a 2,000-trial reference.

Run: ``.venv/bin/python benchmarks/bench_option_epsilon.py [--trials 2000]``.

For each workload Choose ε searches as the page does (its six default methods, 10
trials a point, target "each value within ±x, 95% of the time"), once with each
answer's bias and variance pooled across answers of similar truth (the tool now,
:mod:`ldpcore.stats.pooling`) and once answer by answer (as before). The option's ε is
where the page says its method meets the target. The reference is the same method's
smallest ε whose margin, from ``--trials`` trials answer by answer, is within the
target (a bisection on ε, the same seeds at every ε). At the option's printed ε (the
pooled one) the method then runs ``--trials`` fresh trials, and the table gives the
share of trials in which the value least often within ±x was within, with its 95%
Wilson interval (the promise is 95%; the least of many values' shares leans low).
Stored in ``benchmarks/results/option_epsilon.json``, from which the docs' table and
sentences are made (``devtools/claims``).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from typing import Any
from unittest import mock

import numpy as np
from _common import store
from bench_target_coverage import METHODS, SEARCH_TRIALS, wilson

from ldpcore.advice import choose_epsilon
from ldpcore.advice import targets as target_module
from ldpcore.advice.targets import AccuracyTarget, margin
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.formats import round_up

#: (dataset, protocol, query, ±x) on two bundled datasets, n = 10⁶.
WORKLOADS = (
    ("countries", "GRR", "full", 0.005),
    ("countries", "OUE", "full", 0.005),
    ("countries", "OLH", "full", 0.005),
    ("emoji", "GRR", "topk:k=10", 0.005),
    ("emoji", "OUE", "full", 0.002),
    ("emoji", "OLH", "topk:k=10", 0.005),
)
USERS = 10**6
REFERENCE_SEED = 4_000_037
CHECK_SEED = 5_000_011


def _answer_by_answer(errors: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The earlier estimator: each answer's own bias and standard deviation."""
    del truth
    return errors.mean(axis=1), errors.std(axis=1, ddof=1)


def _option_epsilon(
    config: ExperimentConfig, target: AccuracyTarget
) -> tuple[str, float, float | None, float | None] | None:
    """The option's method, its ε where the page says it meets the target, and that ε's
    interval (the answer's ε itself, without one, where it surely meets it there)."""
    (answer,) = choose_epsilon(config, target=target, protocols=[config.protocol])
    option = answer.consistent_option
    if option is None or answer.epsilon is None:
        return None
    if option.meets_target:
        return option.method, answer.epsilon, answer.epsilon, answer.epsilon
    if option.epsilon_for_target is None:
        return None
    return option.method, option.epsilon_for_target, option.epsilon_low, option.epsilon_high


def _reference(config: ExperimentConfig, method: str, size: float, trials: int) -> float:
    """The smallest ε whose ``trials``-trial margin (answer by answer) is within ``size``."""

    def margin_at(epsilon: float) -> float:
        check = dataclasses.replace(
            config, epsilon=epsilon, methods=(method,), trials=trials, seed=REFERENCE_SEED
        )
        result = run(check)
        errors = result.answers - result.truth
        return float(
            margin(errors.mean(axis=1), errors.std(axis=1, ddof=1), kind="each", level=0.95)[0]
        )

    low, high = math.log(0.05), math.log(10.0)
    for _ in range(14):
        middle = (low + high) / 2
        if margin_at(math.exp(middle)) <= size:
            high = middle
        else:
            low = middle
    return math.exp(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=2000)
    args = parser.parse_args()
    print(
        "| workload | target | option | ε: pooled (now), 95% interval | ε: answer by answer "
        f"(before) | ε: {args.trials:,}-trial reference | now / reference | before / "
        "reference | measured at the printed ε | measured at the interval's upper end |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows: list[dict[str, Any]] = []
    for dataset, protocol, query, size in WORKLOADS:
        config = ExperimentConfig(
            dataset=dataset,
            n=USERS,
            protocol=protocol,
            epsilon=1.0,
            query=query,
            methods=METHODS,
            trials=SEARCH_TRIALS,
        )
        target = AccuracyTarget("each", size)
        now = _option_epsilon(config, target)
        with mock.patch.object(target_module, "pooled_moments", _answer_by_answer):
            before = _option_epsilon(config, target)
        workload = f"{dataset}, {protocol}, {query}"
        if now is None or before is None:
            print(f"| {workload} | ±{100 * size:g} pp | — | no option | | | | | |")
            rows.append({"workload": workload, "target": size, "method": None})
            continue
        method = now[0]
        reference = _reference(config, method, size, args.trials)

        def measured(
            epsilon: float | None,
            method: str = method,
            config: ExperimentConfig = config,
            size: float = size,
        ) -> dict[str, float] | None:
            if epsilon is None:
                return None
            check = dataclasses.replace(
                config, epsilon=epsilon, methods=(method,), trials=args.trials, seed=CHECK_SEED
            )
            result = run(check)
            inside = np.abs(result.answers[0] - result.truth) <= size
            share = float(inside.mean(axis=0).min())
            low, high = wilson(share * args.trials, args.trials)
            return {"share": share, "low": float(low), "high": float(high)}

        upper = None if now[3] is None else round_up(now[3])
        row = {
            "workload": workload,
            "target": size,
            "method": method,
            "epsilon": now[1],
            "printed": round_up(now[1]),
            # An interval only where the page shows one: both ends, and not the ε itself.
            "low": now[2] if None not in (now[2], now[3]) and now[2] != now[3] else None,
            "high": now[3] if None not in (now[2], now[3]) and now[2] != now[3] else None,
            "before": before[1],
            "before_method": before[0],
            "reference": reference,
            "at_printed": measured(round_up(now[1])),
            "at_upper": measured(upper)
            if None not in (now[2], now[3]) and now[2] != now[3]
            else None,
        }
        rows.append(row)
        print(_row(row), flush=True)
    store("option_epsilon", {"trials": args.trials, "users": USERS, "workloads": rows})


def _share(found: dict[str, float] | None) -> str:
    if found is None:
        return "—"
    return f"{100 * found['share']:.1f}% ({100 * found['low']:.1f}–{100 * found['high']:.1f})"


def _row(row: dict[str, Any]) -> str:
    interval = f" ({row['low']:.3g}–{row['high']:.3g})" if row["low"] is not None else ""
    return (
        f"| {row['workload']} | ±{100 * row['target']:g} pp | {row['method']} | "
        f"{row['printed']:g}{interval} | {round_up(row['before']):g} ({row['before_method']}) "
        f"| {row['reference']:.3g} | {row['epsilon'] / row['reference']:.2f} | "
        f"{row['before'] / row['reference']:.2f} | {_share(row['at_printed'])} | "
        f"{_share(row['at_upper'])} |"
    )


if __name__ == "__main__":
    main()
