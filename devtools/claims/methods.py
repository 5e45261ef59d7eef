"""The comparisons between post-processing methods: against Base, against the MLE.

Made from ``benchmarks/results/coverage.json`` (``bench_coverage.py``: every method's
true MSE ratio to Base and how often the paired intervals hold it),
``benchmarks/results/choose_epsilon.json`` (``bench_choose_epsilon.py --compare``: the
ε a method needs against Base's) and ``benchmarks/results/learned_prior.json``
(``bench_learned_prior.py``: Bayes against the MLE over 34 regimes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from devtools.claims.words import count_words, results, span

Row = dict[str, Any]


# --- the paired ratio intervals (coverage.json) ----------------------------------------


def _coverage_runs(trials: int) -> list[Row]:
    return [r for r in results("coverage")["runs"] if r["trials"] == trials]


def _bonferroni() -> float:
    """The coverage each of the simultaneous intervals claims on its own."""
    record = results("coverage")
    return 1 - (1 - record["claimed"]) / record["methods"]


def coverage_how() -> str:
    """The coverage run's command and date."""
    record = results("coverage")
    sizes = " and ".join(str(t) for t in dict.fromkeys(r["trials"] for r in record["runs"]))
    configurations = "; ".join(dict.fromkeys(r["configuration"] for r in record["runs"]))
    return (
        f"`{record['command']}` ({record['date']}): {record['blocks']} blocks of {sizes} "
        f"trials on each configuration ({configurations})"
    )


def coverage_tables() -> str:
    """At the Explorer's 30 trials a block: each method's true ratio and both intervals'
    coverage, per configuration."""
    record = results("coverage")
    parts = []
    for run in _coverage_runs(30):
        kinds = list(run["intervals"])
        lines = [
            f"**{run['configuration']}** ({record['blocks']} blocks of {run['trials']} trials)",
            "",
            "| method | true ratio | " + " | ".join(kinds) + " |",
            "|---|---:|" + "---:|" * len(kinds),
        ]
        for name, ratio in run["true_ratio"].items():
            cells = " | ".join(
                f"{100 * run['intervals'][k]['per_method'][name]:.1f}%" for k in kinds
            )
            lines.append(f"| {name} | {ratio:.4f} | {cells} |")
        joint = " | ".join(f"**{100 * run['intervals'][k]['joint']:.1f}%**" for k in kinds)
        lines.append(f"| all at once (claimed ≥ {100 * record['claimed']:.0f}%) | | {joint} |")
        parts.append("\n".join(lines))
    return "\n\n" + "\n\n".join(parts) + "\n\n"


def coverage_short_blocks() -> str:
    """At Choose ε's 10 trials a block: the methods whose Fieller interval covered less than
    its Bonferroni share by more than two binomial standard errors, and the joint rate."""
    record = results("coverage")
    share = _bonferroni()
    share -= 2 * (share * (1 - share) / record["blocks"]) ** 0.5
    lines = [
        "| configuration | row | true ratio | fieller | bootstrap |",
        "|---|---|---:|---:|---:|",
    ]
    for run in _coverage_runs(10):
        fieller, boot = run["intervals"]["fieller"], run["intervals"]["bootstrap"]
        first = True
        for name, ratio in run["true_ratio"].items():
            if fieller["per_method"][name] >= share:
                continue
            label = run["configuration"] if first else ""
            first = False
            lines.append(
                f"| {label} | {name} | {ratio:.4f} | {100 * fieller['per_method'][name]:.1f}% | "
                f"{100 * boot['per_method'][name]:.1f}% |"
            )
        lines.append(
            f"| {run['configuration'] if first else ''} | all at once (claimed ≥ "
            f"{100 * record['claimed']:.0f}%) | | **{100 * fieller['joint']:.1f}%** | "
            f"**{100 * boot['joint']:.1f}%** |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def coverage_finding() -> str:
    """Where the Fieller interval fell short and the bootstrap did not."""
    share = _bonferroni()
    worst = {
        trials: min(
            (
                (run["intervals"]["fieller"]["per_method"][name], name, run)
                for run in _coverage_runs(trials)
                for name in run["true_ratio"]
            ),
            key=lambda found: found[0],
        )
        for trials in (30, 10)
    }
    (rate, name, run), (short_rate, _, _) = worst[30], worst[10]
    joint = {
        trials: run["intervals"]["fieller"]["joint"]
        for trials in (30, 10)
        for run in _coverage_runs(trials)
        if run["configuration"] == worst[30][2]["configuration"]
    }
    boot = [r["intervals"]["bootstrap"]["joint"] for r in results("coverage")["runs"]]
    return (
        f"Fieller's interval for {name} ({run['configuration']}) covered {100 * rate:.1f}% "
        f"({100 * short_rate:.1f}% at 10 trials) where Bonferroni claimed "
        f"{100 * share:.1f}%, and the joint rate fell to {100 * joint[30]:.1f}% "
        f"({100 * joint[10]:.1f}%); the bootstrap's joint rate is "
        f"{span([100 * b for b in boot], 3)}% in every configuration and block size "
        f"({results('coverage')['blocks']} blocks each)"
    )


def coverage_target() -> str:
    """The targets table's cell: the bootstrap's lowest joint rate."""
    record = results("coverage")
    lowest = min(record["runs"], key=lambda r: r["intervals"]["bootstrap"]["joint"])
    return (
        f"{100 * lowest['intervals']['bootstrap']['joint']:.1f}% at the lowest "
        f"({lowest['configuration']}, {lowest['trials']} trials a block, "
        f"{record['blocks']} blocks)"
    )


# --- the ε a method needs (choose_epsilon.json) ----------------------------------------


def choose_epsilon_compared() -> str:
    """The ε the recommended method needs against Base's, and its MSE ratio."""
    record = results("choose_epsilon")
    s, a = record["setting"], record["answer"]
    base = (
        f"Base's {a['base_epsilon_as_shown']:g} (exact)"
        if a["base_exact"]
        else f"Base's {a['base_epsilon_as_shown']:g} ({a['base_epsilon_low']:.3g}–"
        f"{a['base_epsilon_high']:.3g})"
    )
    return (
        f"on {a['protocol']} with the {s['query']} query (Zipf 1.5, d = "
        f"{int(s['dataset'].split('d=')[1].split(',')[0]):,}, n = {count_words(s['n'])}, "
        f"target {100 * s['target_rmse']:g} pp, {s['trials']} trials a point) {a['method']} "
        f"needs ε ≈ {a['epsilon_as_shown']:g} ({a['epsilon_low']:.3g}–{a['epsilon_high']:.3g}) "
        f"against {base}, {1 / a['mse_ratio_to_base']:.1f}× lower MSE "
        f"({1 / a['ratio_high']:.1f}–{1 / a['ratio_low']:.1f}×; `{record['command']}`, "
        f"{record['date']})"
    )


#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "coverage.how": coverage_how,
    "coverage.tables": coverage_tables,
    "coverage.short-blocks": coverage_short_blocks,
    "coverage.finding": coverage_finding,
    "coverage.target": coverage_target,
    "choose-epsilon.compared": choose_epsilon_compared,
}
