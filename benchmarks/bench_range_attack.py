"""Fake users against a tree's range: each method's gain against Base, paired.

Liao et al. (arXiv 2503.03454) find that Norm-Sub amplifies what fake users do to a
tree's range answers. This measures it on the tool's own attack
(:mod:`ldpcore.attacks.ranges`): TreeOUE and TreeOLH at d = 1,024, n = 10⁶, ε = 1,
Zipf s = 1.1, a range of 64 values drawn once, the maximal-gain attack aimed at the
raw or at the consistent tree, at four shares β of fake users. Per cell, 50 trials,
every method on the same honest and fake reports (``run_attack``): each method's mean
gain, its paired difference from Base's with a 95% t-interval, and what each fake
user is worth in honest users holding a value in the range.

A second table holds β and the protocol fixed (TreeOUE, β = 0.005, aimed at the raw
tree) and moves the range: whether Norm-Sub's effect depends on where the range lies.
The raw tree is read as Kulkarni et al. read it, from the fewest nodes that tile the
range, which subtracts no node (read as two prefixes' difference, the lower prefix's
nodes were subtracted, and Norm-Sub shrank the gain where the fake users filled them).

A third compares TreeOLH's fake users drawn under the ideal hash (the simulation) with
the real reports the tool's multiply-shift hash makes, on the raw reading's gain.

Run: ``.venv/bin/python benchmarks/bench_range_attack.py [--trials 50]``. Prints
Markdown tables and a trial's time, and stores the numbers in
``benchmarks/results/range_attack.json``, from which the docs' table and findings are
made (``devtools/claims``).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
from _common import store, zipf_counts

from ldpcore.attacks import AttackSpec, parse_attack
from ldpcore.attacks.ranges import TreePlan, fake_tallies, fake_tree_reports, plan_attack
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.poisoning import run_attack
from ldpcore.protocols import get_protocol

D, N, LENGTH = 1024, 1_000_000, 64
BETAS = (0.001, 0.005, 0.01, 0.05)
METHODS = ("Base", "Norm-Sub", "Consistency", "Cons-NS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=50)
    args = parser.parse_args()
    rows = [
        row
        for protocol in ("TreeOUE", "TreeOLH")
        for aim in ("raw", "consistent")
        for row in table(protocol, aim, args.trials)
    ]
    record = {
        "setting": {"d": D, "n": N, "epsilon": 1.0, "data": "zipf s=1.1", "branching": 4},
        "trials": args.trials,
        "by_beta": rows,
        "by_place": by_place(args.trials),
        "olh_real": olh_real_reports(args.trials),
    }
    store("range_attack", record)


def _methods(summary: Any, methods: tuple[str, ...]) -> dict[str, dict[str, float]]:
    """Each method's mean gain and its paired difference from Base's (95% interval)."""
    rows = summary.set_index("method")
    return {
        m: {
            "gain": float(rows.loc[m, "gain"]),
            "vs_base": float(rows.loc[m, "vs_base"]),
            "low": float(rows.loc[m, "vs_base_low"]),
            "high": float(rows.loc[m, "vs_base_high"]),
            "influence": float(rows.loc[m, "influence"]),
        }
        for m in methods
    }


#: Ranges ``[start, stop)`` at d = 1,024 (B = 4): one whole node of level 2, and four
#: that begin or end inside nodes (the last two subtracted nodes at their filled level
#: when a range was read as two prefixes' difference).
PLACES = ((768, 832), (961, 969), (960, 976), (688, 752), (939, 971))


def by_place(trials: int) -> list[dict[str, Any]]:
    """Norm-Sub against Base as the range moves (and the nodes subtracted: none, read
    off the fewest nodes)."""
    print(f"\n### Norm-Sub by the range's place, TreeOUE, β = 0.005, raw aim ({trials} trials)\n")
    print(
        "| range | fake users per level | subtracted nodes there | Base gain "
        "| Norm-Sub − Base (95%) |"
    )
    print("|---|---|---|---|---|")
    found = []
    for start, stop in PLACES:
        config = ExperimentConfig(
            dataset=f"zipf:d={D},s=1.1",
            n=N,
            protocol="TreeOUE",
            epsilon=1.0,
            methods=["Base", "Norm-Sub"],
            trials=trials,
            seed=11,
        )
        named = "+".join(str(v) for v in range(start, stop))
        result = run_attack(config, parse_attack(f"mga:beta=0.005,pick={named}"))
        data, tree, _ = config.build()
        plan = plan_attack(
            tree, start, stop, fakes=result.fakes, honest=data.n, frequencies=data.frequencies()
        )
        filled = plan.fakes > 0
        subtracted = sum(int((w < 0).sum()) for w, f in zip(plan.weights, filled, strict=True) if f)
        rows = result.summary.set_index("method")
        change = rows.loc["Norm-Sub"]
        print(
            f"| {start}–{stop - 1} | {plan.fakes.tolist()} | {subtracted} | "
            f"{rows.loc['Base', 'gain']:.4f} | {change['vs_base']:+.4f} "
            f"({change['vs_base_low']:+.4f} to {change['vs_base_high']:+.4f}) |",
            flush=True,
        )
        found.append(
            {
                "start": start,
                "stop": stop,
                "fakes_per_level": plan.fakes.tolist(),
                "subtracted": subtracted,
                "methods": _methods(result.summary, ("Base", "Norm-Sub")),
            }
        )
    return found


def table(protocol: str, aim: str, trials: int) -> list[dict[str, Any]]:
    """One protocol and aim: a row per β, each method's gain and its change from Base."""
    print(f"\n### {protocol}, aimed at the {aim} tree ({trials} trials per row)\n")
    print(
        "| β | Base gain | "
        + " | ".join(f"{m} gain (− Base, 95%)" for m in METHODS[1:])
        + " | each fake, in honest users (Base) | s per trial |"
    )
    print("|---" * (len(METHODS) + 3) + "|")
    found = []
    for beta in BETAS:
        config = ExperimentConfig(
            dataset=f"zipf:d={D},s=1.1",
            n=N,
            protocol=protocol,
            epsilon=1.0,
            methods=list(METHODS),
            trials=trials,
            seed=11,
        )
        start = time.perf_counter()
        result = run_attack(config, AttackSpec("mga", beta=beta, targets=LENGTH, aim=aim))
        seconds = (time.perf_counter() - start) / trials
        rows = result.summary.set_index("method")
        base = rows.loc["Base"]
        cells = [
            f"{rows.loc[m, 'gain']:.4f} ({rows.loc[m, 'vs_base']:+.4f}, "
            f"{rows.loc[m, 'vs_base_low']:+.4f} to {rows.loc[m, 'vs_base_high']:+.4f})"
            for m in METHODS[1:]
        ]
        print(
            f"| {beta:g} | {base['gain']:.4f} | "
            + " | ".join(cells)
            + f" | {base['influence']:.3g} | {seconds:.3f} |",
            flush=True,
        )
        found.append(
            {
                "protocol": protocol,
                "aim": aim,
                "beta": beta,
                "seconds_per_trial": seconds,
                "targets": [int(result.targets[0]), int(result.targets[-1])],
                "methods": _methods(result.summary, METHODS),
            }
        )
    print(f"\nTarget range: values {result.targets[0]} to {result.targets[-1]}.")
    return found


def olh_real_reports(draws: int) -> list[dict[str, Any]]:
    """TreeOLH's maximal-gain fake users: the ideal-hash draw against real reports.

    The raw reading's shift per unit share from 500 fake users alone,
    ``Σ_ℓ Σ_j W_ℓj (C_ℓj/m_ℓ − q)/(p − q)``, over ``draws`` draws of each.
    """
    print(f"\n### TreeOLH's fake users: ideal hash against real reports ({draws} draws)\n")
    print("| range | targets per level | ideal hash | real reports | real ÷ ideal |")
    print("|---|---|---|---|---|")
    tree = get_protocol("TreeOLH", epsilon=1.0, domain_size=D)
    counts = zipf_counts(D, N, 1.1)
    cuts = np.cumsum([0] + [oracle.domain_size for oracle in tree.levels])
    found = []
    for start, stop in PLACES[:4]:
        plan = plan_attack(
            tree, start, stop, fakes=500, honest=N, frequencies=counts / counts.sum()
        )

        def shift(tallies: np.ndarray, plan: TreePlan = plan) -> float:
            users, total = tallies[: tree.height], 0.0
            for level in range(tree.height):
                if users[level]:
                    c = tallies[tree.height :][cuts[level] : cuts[level + 1]]
                    total += float(
                        plan.weights[level] @ ((c / users[level] - tree.q) / (tree.p - tree.q))
                    )
            return total

        ideal = [
            shift(
                fake_tallies(
                    tree, "mga", start, stop, fakes=500, rng=np.random.default_rng(s), plan=plan
                )
            )
            for s in range(draws)
        ]
        real = [
            shift(
                tree.aggregate(
                    fake_tree_reports(
                        tree,
                        "mga",
                        start,
                        stop,
                        fakes=500,
                        rng=np.random.default_rng(10**6 + s),
                        plan=plan,
                    )
                )
            )
            for s in range(draws)
        ]
        sizes = [int(t.size) for t in plan.targets]
        print(
            f"| {start}–{stop - 1} | {sizes} | {np.mean(ideal):.3f} | {np.mean(real):.3f} | "
            f"{np.mean(real) / np.mean(ideal):.3f} |",
            flush=True,
        )
        found.append(
            {
                "start": start,
                "stop": stop,
                "targets_per_level": sizes,
                "ideal": float(np.mean(ideal)),
                "real": float(np.mean(real)),
            }
        )
    return found


if __name__ == "__main__":
    main()
